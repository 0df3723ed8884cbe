/* tests/test_repro.c: the inputs that crashed, corrupted memory, hung or silently lost data
 * (issue 18's reproducers, found by fuzzing and by hand), each checked for the right outcome
 * through the public API: a clear error or a correct result. The scripts are written inline;
 * the one .ma file with a mutated byte is tests/data/repro/ma/ (derived from maya-usd's
 * UsdExportDisplayColorTest.ma, Apache-2.0). Under the ASan + UBSan build these runs also
 * check that nothing reads freed memory or casts out of range. The same inputs run through the
 * fuzz targets from tests/fuzz/regressions/. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sinew/sinew.h"
#include "tests/support.h"

/* ---- fixture: a session with a logger, and a temporary folder ---------------------------------- */

typedef struct fx {
  sinew_session_t *s;
  char log[1 << 15];
  size_t nlog;
  char dir[64];
} fx;

static void logger(void *ud, sinew_log_level_t level, sinew_log_id_t id, const char *msg) {
  fx *f = ud;
  (void)level;
  (void)id;
  int n = snprintf(f->log + f->nlog, sizeof f->log - f->nlog, "%s\n", msg);
  if (n > 0 && (size_t)n < sizeof f->log - f->nlog) f->nlog += (size_t)n;
}

static sinew_session_t *new_session(fx *f, bool strict) {
  sinew_session_desc_t d = {.logger = logger, .logger_data = f, .strict = strict};
  sinew_session_t *s;
  assert_int_equal(sinew_session_create(&d, &s), SINEW_OK);
  return s;
}

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  if (!f) return -1;
  snprintf(f->dir, sizeof f->dir, "/tmp/sinew-repro-XXXXXX");
  if (!mkdtemp(f->dir)) return -1;
  f->s = new_session(f, false);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  sinew_session_destroy(f->s);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
  if (system(cmd) != 0) return -1;
  free(f);
  return 0;
}

static const char *path_in(fx *f, const char *name) {
  static char buf[4][256];
  static int k;
  char *p = buf[k++ % 4];
  snprintf(p, 256, "%s/%s", f->dir, name);
  return p;
}

static void write_text(const char *path, const char *text) {
  FILE *o = fopen(path, "wb");
  assert_non_null(o);
  assert_int_equal(fwrite(text, 1, strlen(text), o), strlen(text));
  assert_int_equal(fclose(o), 0);
}

static char *read_text(const char *path) {
  FILE *i = fopen(path, "rb");
  if (!i) fail_msg("cannot read %s", path);
  static char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, i);
  fclose(i);
  buf[n] = 0;
  return buf;
}

static int run(sinew_session_t *s, const char *text) {
  return sinew_session_run(s, text, strlen(text), "repro.mel", NULL);
}

static void expect_fail(sinew_session_t *s, const char *text, int status, const char *msg) {
  int rc = run(s, text);
  if (rc != status)
    fail_msg("%s\n  gave %s (%s), not %s", text, sinew_err_name(rc), sinew_session_errmsg(s), sinew_err_name(status));
  if (msg && !strstr(sinew_session_errmsg(s), msg))
    fail_msg("%s\n  message \"%s\" does not mention \"%s\"", text, sinew_session_errmsg(s), msg);
}

static double get(sinew_session_t *s, const char *plug) {
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_plug_t p;
  if (sinew_plug_parse(g, plug, (sinew_node_t){0, 0}, &p)) fail_msg("%s: %s", plug, sinew_graph_errmsg(g));
  double v = 0;
  if (sinew_get_double(g, &p, &v)) fail_msg("%s: %s", plug, sinew_graph_errmsg(g));
  return v;
}

static bool exists(sinew_session_t *s, const char *name) {
  sinew_node_t n;
  return sinew_node_find(sinew_session_graph(s), name, &n) == SINEW_OK;
}

/* ---- 01-03: a file that replaces the scene it is being read into ---------------------------- */

static void test_file_new_inside_open(void **state) {
  fx *f = *state;
  const char *p01 = path_in(f, "01.ma"), *p02 = path_in(f, "02.ma"), *p03 = path_in(f, "03.ma");
  write_text(p01, "createNode transform -n \"a\";\nfile -new;\ncreateNode transform -n \"b\";\n");
  write_text(p02, "createNode transform -n \"a\";\nfile -new;\nsetAttr \"nope.tx\" 1;\n");
  write_text(p03, "createNode transform -n \"a\";\nfile -o \"other.ma\";\ncreateNode transform -n \"b\";\n");
  write_text(path_in(f, "other.ma"), "createNode transform -n \"o\";\n");
  /* read as Maya reads files: the line fails with a message, the rest is read */
  assert_int_equal(sinew_session_open(f->s, p01), SINEW_OK);
  assert_true(exists(f->s, "a") && exists(f->s, "b"));
  if (!strstr(f->log, "01.ma:2: file: -new: not while a file is being opened")) fail_msg("log: %s", f->log);
  assert_int_equal(sinew_session_open(f->s, p03), SINEW_OK);
  assert_true(exists(f->s, "a") && exists(f->s, "b") && !exists(f->s, "o"));
  if (!strstr(f->log, "03.ma:2: file: -open: not while a file is being opened")) fail_msg("log: %s", f->log);
  /* strict: the read fails at that line and the scene before it stays (02 freed it twice) */
  sinew_session_t *st = new_session(f, true);
  assert_int_equal(run(st, "createNode transform -n \"before\";"), SINEW_OK);
  for (int k = 0; k < 3; k++) {
    const char *p = k == 0 ? p01 : k == 1 ? p02 : p03;
    assert_int_equal(sinew_session_open(st, p), SINEW_EINVAL);
    if (!strstr(sinew_session_errmsg(st), ".ma:2: file: -")) fail_msg("%s", sinew_session_errmsg(st));
    assert_true(exists(st, "before") && !exists(st, "a"));
  }
  /* a script (not a file being opened) may still start a new scene, as rig scripts do */
  assert_int_equal(run(st, "file -f -new; createNode transform -n \"fresh\";"), SINEW_OK);
  assert_true(exists(st, "fresh") && !exists(st, "before"));
  sinew_session_destroy(st);
}

/* ---- 04, 16: endless loops in a script and in a scene's expression -------------------------- */

static void test_endless_loops(void **state) {
  fx *f = *state;
  sinew_lang_limits_t lim = {.max_seconds = 0.05};
  sinew_lang_set_limits(sinew_session_lang(f->s), &lim);
  expect_fail(f->s, "createNode transform -n \"kept\";\nwhile (1) ;", SINEW_ELIMIT, "repro.mel:2: stopped");
  assert_true(exists(f->s, "kept")); /* what ran before stays */
  /* the same loop in a .ma file read in keep-going mode: the whole read fails */
  const char *p = path_in(f, "loop.ma");
  write_text(p, "createNode transform -n \"x\";\nwhile (1) ;\ncreateNode transform -n \"y\";\n");
  assert_int_equal(sinew_session_open(f->s, p), SINEW_ELIMIT);
  assert_true(exists(f->s, "kept") && !exists(f->s, "x"));
  sinew_lang_set_limits(sinew_session_lang(f->s), NULL);
  /* 16: an expression node looping forever: the file loads, a pull ends with the last value */
  p = path_in(f, "16.ma");
  write_text(p, "createNode transform -n \"a\";\ncreateNode expression -n \"spin\";\n"
                "\tsetAttr \".ixp\" -type \"string\" \"while (1) { .O[0] = 1; }\";\n"
                "connectAttr \"spin.out[0]\" \"a.tx\";\n");
  assert_int_equal(sinew_session_open(f->s, p), SINEW_OK);
  f->nlog = 0;
  assert_true(get(f->s, "a.tx") == 0);
  if (!strstr(f->log, "spin: line 1: stopped: over the limit of 10000000 steps")) fail_msg("log: %s", f->log);
  /* the graph goes on: other plugs evaluate */
  assert_int_equal(run(f->s, "setAttr a.ty 3;"), SINEW_OK);
  assert_true(get(f->s, "a.ty") == 3);
}

/* ---- 06, 07, 13, 15: counts and indices too large for their integers ------------------------- */

static void test_huge_numbers_in_weights(void **state) {
  fx *f = *state;
  assert_int_equal(run(f->s, "createNode skinCluster -n \"skin\";"), SINEW_OK);
  expect_fail(f->s, "setAttr \"skin.wl[0:0].w\" 1 3e9 0.5;", SINEW_ERANGE, "element 0: bad index 3e+09");
  expect_fail(f->s, "setAttr \"skin.wl[0:0].w\" 1e300 0 0.5;", SINEW_ESYNTAX, "element 0: bad count 1e+300");
  expect_fail(f->s, "setAttr \"skin.wl[0:0].w\" -1 0 0.5;", SINEW_ESYNTAX, "bad count -1");
  expect_fail(f->s, "setAttr \"skin.wl[0:0].w\" 1 -1e300 0.5;", SINEW_ERANGE, "bad index");
  expect_fail(f->s, "setAttr \"skin.wl[0:0].w\" 1 0 1e309;", SINEW_ERANGE, "not a finite number");
  /* nothing was set by the failures; a good line is */
  sinew_value_t r = {0};
  const char *q = "getAttr -s \"skin.wl\";";
  assert_int_equal(sinew_session_run(f->s, q, strlen(q), NULL, &r), SINEW_OK);
  assert_int_equal(sinew_value_to_int(&r), 0);
  assert_int_equal(run(f->s, "setAttr \"skin.wl[0:0].w\" 2 0 0.25 3 0.75;"), SINEW_OK);
  assert_true(get(f->s, "skin.wl[0].w[3]") == 0.75);
  sinew_value_clear(&r);
}

/* ---- 08, 14: saving a double too large for an integer ---------------------------------------- */

static void test_huge_double_saved(void **state) {
  fx *f = *state;
  const char *p = path_in(f, "08.ma");
  char text[512];
  snprintf(text, sizeof text,
           "createNode transform -n \"a\";\naddAttr -ln \"big\" -at double a;\nsetAttr \"a.big\" 1e300;\n"
           "addAttr -ln \"edge\" -at double a;\nsetAttr \"a.edge\" 9223372036854775808;\n"
           "addAttr -ln \"neg\" -at double a;\nsetAttr \"a.neg\" -1e19;\nfile -rename \"%s\";\nfile -save;\n", p);
  assert_int_equal(run(f->s, text), SINEW_OK);
  char *saved = read_text(p);
  if (!strstr(saved, "1e+300") || !strstr(saved, "9.223372036854776e+18") || !strstr(saved, "-1e+19"))
    fail_msg("saved:\n%s", saved);
  sinew_session_t *back = new_session(f, true);
  assert_int_equal(sinew_session_open(back, p), SINEW_OK);
  assert_true(get(back, "a.big") == 1e300);
  assert_true(get(back, "a.edge") == 9223372036854775808.0);
  assert_true(get(back, "a.neg") == -1e19);
  sinew_session_destroy(back);
}

/* ---- 09-12: a '}' inside a backquoted command ------------------------------------------------- */

static void test_brace_in_backquote(void **state) {
  fx *f = *state;
  expect_fail(f->s, "print `ls }`;", SINEW_ESYNTAX, "repro.mel:1:11: unexpected '}' in a command");
  expect_fail(f->s, "string $a[] = `ls -type }`;\n", SINEW_ESYNTAX, "unexpected '}'");
  expect_fail(f->s, "{ print `ls }`; }", SINEW_ESYNTAX, "unexpected '}'");
  const char *p = path_in(f, "10.ma");
  write_text(p, "createNode transform -n \"a\";\nprint `ls -sl }`;\n");
  assert_int_equal(sinew_session_open(f->s, p), SINEW_ESYNTAX);
  if (!strstr(sinew_session_errmsg(f->s), "10.ma:2:")) fail_msg("%s", sinew_session_errmsg(f->s));
  /* a '}' that ends a block after a plain command is still fine */
  assert_int_equal(run(f->s, "if (1) { createNode transform -n \"ok\" }"), SINEW_OK);
}

/* ---- 17: one element of a reference node's placeholder list connected to another -------------- */

static void test_placeholder_self_connection(void **state) {
  fx *f = *state;
  const char *p = path_in(f, "17.ma"), *q = path_in(f, "17_saved.ma");
  write_text(p, "//Maya ASCII 2020 scene\ncreateNode reference -n \"rigRN\";\n"
                "connectAttr \"rigRN.phl[1]\" \"rigRN.phl[2]\";\n");
  assert_int_equal(sinew_session_open(f->s, p), SINEW_OK);
  sinew_session_stats_t st;
  sinew_session_stats(f->s, &st);
  assert_int_equal(st.failed_commands, 0);
  assert_int_equal(sinew_session_save(f->s, q), SINEW_OK);
  if (!strstr(read_text(q), "connectAttr \"rigRN.phl[1]\" \"rigRN.phl[2]\";")) fail_msg("%s", read_text(q));
  /* an addAttr elsewhere while a compound waits for its children names that compound (the name
   * was read from a freed slot when the compound had no short name) */
  expect_fail(f->s, "createNode transform -n t1; addAttr -ln \"aa\" -sn \"a\" -at double t1;\n"
                    "addAttr -ln \"cmp\" -at compound -nc 1 t1;\ncreateNode transform -n u1; addAttr -ln \"y\" -at double u1;",
              SINEW_EINVAL, "repro.mel:3: addAttr: compound cmp on t1 still waits for 1 children");
  /* still a cycle: an element into itself, and a loop through two elements and back */
  expect_fail(f->s, "connectAttr rigRN.phl[3] rigRN.phl[3];", SINEW_ECYCLE, NULL);
  expect_fail(f->s, "connectAttr rigRN.phl[2] rigRN.phl[1];", SINEW_ECYCLE, NULL);
  /* a chain of elements is not */
  assert_int_equal(run(f->s, "connectAttr rigRN.phl[2] rigRN.phl[3];"), SINEW_OK);
  assert_int_equal(run(f->s, "connectAttr rigRN.phl[5] rigRN.phl[4];"), SINEW_OK);
  expect_fail(f->s, "connectAttr rigRN.phl[3] rigRN.phl[1];", SINEW_ECYCLE, NULL);
  /* through a computing node's affects: a whole attribute, as before */
  assert_int_equal(run(f->s, "createNode transform -n \"t\"; connectAttr t.worldMatrix[0] t.offsetParentMatrix;"),
                   SINEW_ECYCLE);
}

/* ---- 18: open, save, open, save: the same file ------------------------------------------------ */

static void test_roundtrip_is_stable(void **state) {
  fx *f = *state;
  const char *once = path_in(f, "once.ma"), *twice = path_in(f, "twice.ma");
  assert_int_equal(sinew_session_open(f->s, SINEW_TEST_DATA_DIR "/repro/ma/18_roundtrip_drops_raw_line.ma"),
                   SINEW_OK);
  assert_int_equal(sinew_session_save(f->s, once), SINEW_OK);
  assert_int_equal(sinew_session_open(f->s, once), SINEW_OK);
  assert_int_equal(sinew_session_save(f->s, twice), SINEW_OK);
  static char a[1 << 16];
  snprintf(a, sizeof a, "%s", read_text(once));
  const char *b = read_text(twice);
  /* the same but for the name in the header and footer */
  const char *body_a = strstr(a, "requires"), *body_b = strstr(b, "requires");
  const char *end_a = strstr(a, "// End of"), *end_b = strstr(b, "// End of");
  assert_non_null(body_a);
  assert_non_null(body_b);
  assert_non_null(end_a);
  assert_non_null(end_b);
  if (end_a - body_a != end_b - body_b || memcmp(body_a, body_b, (size_t)(end_a - body_a)) != 0)
    fail_msg("the second save differs:\n%s\n----\n%s", a, b);
  /* the dynamic attribute's value is written once, not followed by the stale kept line */
  const char *first = strstr(body_a, "setAttr \".allowPerFaceDisplayColors\"");
  assert_non_null(first);
  assert_null(strstr(first + 1, "setAttr \".allowPerFaceDisplayColors\""));
  /* the kept line that came before addAttr no longer overrides the attribute's value */
  assert_int_equal(run(f->s, "createNode transform -n \"k\";"), SINEW_OK);
  const char *p = path_in(f, "k.ma");
  write_text(p, "createNode transform -n \"k2\";\n\tsetAttr \".dyn\" 5;\n\taddAttr -ln \"dyn\" -at double;\n"
                "\tsetAttr \".dyn\" 2;\n");
  assert_int_equal(sinew_session_open(f->s, p), SINEW_OK);
  assert_int_equal(sinew_session_save(f->s, once), SINEW_OK);
  assert_int_equal(sinew_session_open(f->s, once), SINEW_OK);
  assert_true(get(f->s, "k2.dyn") == 2);
}

/* ---- 19, 20: numbers written as text, and numbers that are not finite -------------------------- */

static void test_numbers_as_text_and_non_finite(void **state) {
  fx *f = *state;
  assert_int_equal(run(f->s, "string $s = \"7.25\";\ncreateNode transform -n \"a\";\nsetAttr \"a.tx\" $s;\n"
                             "setAttr \"a.ty\" \"2.5\";\nsetAttr a.tz \"-1e2\";\nsetAttr a.v \"off\";"),
                   SINEW_OK);
  assert_true(get(f->s, "a.tx") == 7.25);
  assert_true(get(f->s, "a.ty") == 2.5);
  assert_true(get(f->s, "a.tz") == -100);
  assert_true(get(f->s, "a.v") == 0);
  expect_fail(f->s, "setAttr a.tz nan;", SINEW_ERANGE, "a.tz: 'nan' is not a finite number");
  expect_fail(f->s, "setAttr a.tx 1e309;", SINEW_ERANGE, "a.tx: 'inf' is not a finite number");
  expect_fail(f->s, "setAttr a.t -type double3 1 inf 2;", SINEW_ERANGE, "not a finite number");
  expect_fail(f->s, "setAttr a.tx \"seven\";", SINEW_EINVAL, "'seven' is not a number");
  assert_true(get(f->s, "a.tx") == 7.25 && get(f->s, "a.tz") == -100); /* unchanged */
}

/* ---- also seen: deleting time1, a value of the wrong type in a file --------------------------- */

static void test_default_nodes_and_wrong_types(void **state) {
  fx *f = *state;
  expect_fail(f->s, "delete time1;", SINEW_EINVAL, "time1 is the scene's time node");
  expect_fail(f->s, "createNode transform -n \"t\"; delete t time1;", SINEW_EINVAL, "time1");
  assert_true(exists(f->s, "time1") && exists(f->s, "t")); /* all or nothing */
  const char *p = path_in(f, "wrong.ma");
  write_text(p, "createNode transform -n \"a\";\n\tsetAttr \".ro\" -type \"matrix\" 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1;\n");
  f->nlog = 0;
  assert_int_equal(sinew_session_open(f->s, p), SINEW_OK);
  if (!strstr(f->log, "wrong.ma:2: setAttr: a.rotateOrder has type enum, not matrix: the value is not used"))
    fail_msg("log: %s", f->log);
}

/* ---- Maya files as they are: locks written before the connections, fosterParent -------------- */

static void test_files_as_maya_writes_them(void **state) {
  fx *f = *state;
  const char *p = path_in(f, "locked.ma");
  /* the lock comes first, on the compound parent; the connection into a child is made as Maya
   * makes it reading its own file, and the plug stays locked */
  write_text(p, "createNode transform -n \"grp\";\n\taddAttr -ci true -ln \"globalScale\" -dv 1 -at \"double\";\n"
                "\tsetAttr -l on \".s\";\n\tsetAttr \".globalScale\" 2;\n"
                "createNode fosterParent -n \"fp\";\ncreateNode transform -n \"kid\" -p \"fp\";\n"
                "connectAttr \"grp.globalScale\" \"grp.sx\";\n");
  assert_int_equal(sinew_session_open(f->s, p), SINEW_OK);
  sinew_session_stats_t st;
  sinew_session_stats(f->s, &st);
  assert_int_equal(st.failed_commands, 0);
  assert_true(get(f->s, "grp.sx") == 2);
  /* still locked: a script cannot connect or set it */
  expect_fail(f->s, "disconnectAttr grp.globalScale grp.sx; connectAttr grp.globalScale grp.sx;", SINEW_ELOCKED,
              "the destination is locked");
  expect_fail(f->s, "setAttr grp.sy 3;", SINEW_ELOCKED, NULL);
  /* fosterParent is a DAG node: it takes children */
  assert_true(exists(f->s, "fp|kid"));
  /* attributes made on a placeholder to hold a connection have names Maya could make; a child
   * name the node has under another parent is kept as text, whichever line comes first */
  p = path_in(f, "names.ma");
  write_text(p, "createNode transform -n \"src\";\ncreateNode someNode -n \"q\";\n"
                "connectAttr \"src.tx\" \"q.tg[0].ts\";\nconnectAttr \"src.ty\" \"q.bad name[0].ts\";\n"
                "connectAttr \"src.tz\" \"q.other[0].ts\";\n");
  f->nlog = 0;
  assert_int_equal(sinew_session_open(f->s, p), SINEW_OK);
  if (!strstr(f->log, "names.ma:4: connectAttr: q.bad name[0].ts: 'bad name[0].ts' is not an attribute name"))
    fail_msg("log: %s", f->log);
  sinew_session_stats(f->s, &st);
  assert_int_equal(st.failed_commands, 1);
  assert_int_equal(st.raw_connections, 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_file_new_inside_open, setup, teardown),
      cmocka_unit_test_setup_teardown(test_endless_loops, setup, teardown),
      cmocka_unit_test_setup_teardown(test_huge_numbers_in_weights, setup, teardown),
      cmocka_unit_test_setup_teardown(test_huge_double_saved, setup, teardown),
      cmocka_unit_test_setup_teardown(test_brace_in_backquote, setup, teardown),
      cmocka_unit_test_setup_teardown(test_placeholder_self_connection, setup, teardown),
      cmocka_unit_test_setup_teardown(test_roundtrip_is_stable, setup, teardown),
      cmocka_unit_test_setup_teardown(test_numbers_as_text_and_non_finite, setup, teardown),
      cmocka_unit_test_setup_teardown(test_default_nodes_and_wrong_types, setup, teardown),
      cmocka_unit_test_setup_teardown(test_files_as_maya_writes_them, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
