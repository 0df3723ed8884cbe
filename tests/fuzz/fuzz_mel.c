/* tests/fuzz/fuzz_mel.c: the bytes as a MEL script run in a fresh session (sinew_session_run)
 * in keep-going mode (a failing top-level command is logged and the script goes on, so one
 * bad line does not hide the rest of an input), at most FUZZ_MAX_STEPS loop iterations and
 * calls, then every output of the scene it built pulled, at two frames, the scene written as Maya
 * ASCII, and each mesh's world-space points written as OBJ and read back
 * (fuzz_check_meshes). Files the script opens or saves stay in the sandbox (fuzz_common.h). */
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_init();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  sinew_session_t *s = fuzz_session(false);
  sinew_lang_set_keep_going(sinew_session_lang(s), true);
  fuzz_sandbox_enter();
  sinew_value_t result = {0};
  sinew_session_run(s, (const char *)data, size, "fuzz.mel", &result);
  sinew_value_clear(&result);
  fuzz_evaluate(sinew_session_graph(s), 2000);
  fuzz_check_meshes(sinew_session_graph(s));
  fuzz_write_ma(s);
  fuzz_sandbox_leave();
  sinew_session_destroy(s);
  return 0;
}
