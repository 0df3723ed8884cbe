/* cmds/cmd_rig.c: the rigging commands (joint, poly primitives, expression). The skinning
 * commands are in cmd_skin.c. */
#include "cmds/cmds_internal.h"

int sinew__register_rig_cmds(sinew_lang_t *L, sinew_session_t *s) {
  (void)L;
  (void)s;
  return SINEW_OK;
}
