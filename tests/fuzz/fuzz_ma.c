/* tests/fuzz/fuzz_ma.c: the bytes as a Maya ASCII file opened in a fresh session
 * (sinew_session_open of input.ma in the sandbox; file -open / -import / -new / -save inside it
 * stay in the sandbox, fuzz_common.h). Then:
 * - every output of the scene pulled at two frames, each mesh's OBJ read back
 *   (fuzz_check_meshes);
 * - sinew reads what it writes, and saving is idempotent: the scene is written, the written
 *   file opened in another fresh session with the strict option (every line must succeed)
 *   and written again, and the two texts must be the same (a file that loads must pass
 *   through sinew unchanged after one save; a difference aborts with the first differing
 *   line);
 * - the file opened again with the session's strict option (a failing line fails the open);
 * - every file reference it loaded was read inside the sandbox (file -r obeys it as file -o). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_init();
  return 0;
}

/* The scene as Maya ASCII text (malloc'd), NULL when the writer fails. */
static char *write_text(sinew_session_t *s, size_t *len) {
  char *text = NULL;
  FILE *f = open_memstream(&text, len);
  if (!f) return NULL;
  int rc = sinew_session_write_ma(s, f, "fuzz.ma");
  if (fclose(f) != 0) rc = rc ? rc : SINEW_EIO;
  if (rc) {
    free(text);
    return NULL;
  }
  return text;
}

static void first_difference(const char *a, const char *b) {
  size_t line = 1, i = 0, start = 0;
  for (; a[i] && a[i] == b[i]; i++)
    if (a[i] == '\n') line++, start = i + 1;
  fprintf(stderr, "fuzz: first difference on line %zu:\n  first save:  %.200s\n  second save: %.200s\n",
          line, a + start, b + start);
}

static void check_roundtrip(sinew_session_t *s) {
  size_t len1 = 0, len2 = 0;
  char *t1 = write_text(s, &len1);
  if (!t1) return;
  fuzz_sandbox_put("roundtrip.ma", (const uint8_t *)t1, len1);
  sinew_session_t *s2 = fuzz_session(true);
  fuzz_sandbox_enter();
  int rc = sinew_session_open(s2, "roundtrip.ma");
  if (rc == SINEW_OK) {
    char *t2 = write_text(s2, &len2);
    if (t2 && (len1 != len2 || memcmp(t1, t2, len1) != 0)) {
      fprintf(stderr, "fuzz: saving is not idempotent: the saved file, opened and saved again, "
                      "differs (%zu and %zu bytes)\n", len1, len2);
      first_difference(t1, t2);
      abort();
    }
    free(t2);
  } else if (rc != SINEW_ENOMEM && rc != SINEW_ELIMIT && !strstr(sinew_session_errmsg(s2), ": file: reference ")) {
    /* a file -r line fails in a strict session when the file it references (the input, which
     * sinew did not write) has a failing line, or closes a cycle (tests/test_references.c);
     * any other failure of a file sinew wrote is a finding */
    fprintf(stderr, "fuzz: a file sinew wrote does not open (strict): %s\n", sinew_session_errmsg(s2));
    abort();
  }
  fuzz_sandbox_leave();
  sinew_session_destroy(s2);
  free(t1);
}

/* file -r obeys the sandbox as file -o does: every loaded reference was read from a plain file
 * name, which the sandbox takes inside its folder (a path with a folder is refused). A reference
 * read from anywhere else means the reader opened a file some way the sandbox does not see. */
static void check_references_sandboxed(sinew_session_t *s) {
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_node_t it = {0, 0};
  const char *last = NULL;
  while (sinew_node_next(g, &it)) {
    const char *rfn = sinew_session_node_reference(s, it);
    if (!rfn || (last && strcmp(last, rfn) == 0)) continue;
    last = rfn;
    char mel[600];
    snprintf(mel, sizeof mel, "referenceQuery -f \"%s\"", rfn);
    sinew_value_t v = {0};
    if (sinew_session_run(s, mel, strlen(mel), "fuzz", &v) != SINEW_OK) continue;
    const char *file = sinew_value_string(&v);
    while (file && file[0] == '.' && file[1] == '/') file += 2;
    if (file && strchr(file, '/')) {
      fprintf(stderr, "fuzz: reference %s was read from %s, outside the sandbox\n", rfn, file);
      abort();
    }
    sinew_value_clear(&v);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_sandbox_put("input.ma", data, size);

  sinew_session_t *s = fuzz_session(false);
  fuzz_sandbox_enter();
  int rc = sinew_session_open(s, "input.ma");
  fuzz_sandbox_leave();
  if (rc == SINEW_OK) check_references_sandboxed(s);
  if (rc == SINEW_OK) check_roundtrip(s);
  fuzz_sandbox_enter();
  fuzz_evaluate(sinew_session_graph(s), 2000);
  fuzz_check_meshes(sinew_session_graph(s));
  fuzz_write_ma(s);
  fuzz_sandbox_leave();
  sinew_session_destroy(s);

  s = fuzz_session(true);
  fuzz_sandbox_put("input.ma", data, size); /* the first open may have saved over it */
  fuzz_sandbox_enter();
  sinew_session_open(s, "input.ma");
  fuzz_sandbox_leave();
  sinew_session_destroy(s);
  return 0;
}
