/* tests/test_errors.c: the one error path. Each layer keeps its last failure as fields
 * (sinew_error_t: operation, node, plug, file, line, column, reason) and makes its text from
 * them; these tests read the fields of failures from the graph, the language, the commands and
 * a file being read, and check that the text is made of exactly those fields. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sinew/sinew.h"
#include "tests/support.h"

#define assert_field(actual, want)                                                               \
  do {                                                                                           \
    if (strcmp((actual), (want)) != 0) fail_msg("%s is \"%s\", not \"%s\"", #actual, (actual), (want)); \
  } while (0)

/* The text is the fields, formatted by the one formatter. */
static void text_is_fields(const sinew_error_t *e, const char *text) {
  char buf[4096];
  sinew_error_format(e, buf, sizeof buf);
  assert_string_equal(buf, text);
}

static sinew_session_t *session(void) {
  sinew_session_t *s = NULL;
  assert_int_equal(sinew_session_create(&(sinew_session_desc_t){.strict = true}, &s), SINEW_OK);
  return s;
}

static int run(sinew_session_t *s, const char *text, const char *name) {
  return sinew_session_run(s, text, strlen(text), name, NULL);
}

/* ---- graph ------------------------------------------------------------------------------------------ */

static void test_graph_bad_plug(void **state) {
  (void)state;
  sinew_session_t *s = session();
  sinew_graph_t *g = sinew_session_graph(s);
  assert_int_equal(run(s, "createNode transform -n a;", "t"), SINEW_OK);
  sinew_plug_t p;
  assert_int_equal(sinew_plug_parse(g, "nope.tx", (sinew_node_t){0, 0}, &p), SINEW_ENOTFOUND);
  const sinew_error_t *e = sinew_graph_error(g);
  assert_int_equal(e->code, SINEW_ENOTFOUND);
  assert_field(e->node, "nope");
  assert_field(e->plug, "nope.tx");
  assert_field(e->file, "");
  assert_int_equal(e->line, 0);
  assert_string_equal(sinew_graph_errmsg(g), "plug 'nope.tx': no node named 'nope'");
  text_is_fields(e, sinew_graph_errmsg(g));
  /* an attribute the node does not have */
  assert_int_equal(sinew_plug_parse(g, "a.nothere", (sinew_node_t){0, 0}, &p), SINEW_ENOTFOUND);
  assert_field(e->node, "a");
  assert_field(e->plug, "a.nothere");
  assert_non_null(strstr(e->reason, "has no attribute 'nothere'"));
  text_is_fields(e, sinew_graph_errmsg(g));
  sinew_session_destroy(s);
}

static void test_graph_cycle_and_lock(void **state) {
  (void)state;
  sinew_session_t *s = session();
  sinew_graph_t *g = sinew_session_graph(s);
  assert_int_equal(run(s, "createNode plusMinusAverage -n p1; createNode plusMinusAverage -n p2;"
                          "connectAttr p1.output1D p2.input1D[0]; setAttr -l on p1.input1D[3] 2;", "t"),
                   SINEW_OK);
  sinew_plug_t src, dst;
  assert_int_equal(sinew_plug_parse(g, "p2.output1D", (sinew_node_t){0, 0}, &src), SINEW_OK);
  assert_int_equal(sinew_plug_parse(g, "p1.input1D[0]", (sinew_node_t){0, 0}, &dst), SINEW_OK);
  assert_int_equal(sinew_connect(g, &src, &dst, 0, NULL), SINEW_ECYCLE);
  const sinew_error_t *e = sinew_graph_error(g);
  assert_int_equal(e->code, SINEW_ECYCLE);
  assert_field(e->op, "connectAttr");
  assert_field(e->node, "p1");
  assert_field(e->plug, "p1.input1D[0]");
  assert_non_null(strstr(e->reason, "would create a cycle"));
  assert_true(strncmp(sinew_graph_errmsg(g), "connectAttr: p2.output1D -> p1.input1D[0]: would create", 55) == 0);
  text_is_fields(e, sinew_graph_errmsg(g));
  /* a locked plug */
  sinew_plug_t locked;
  assert_int_equal(sinew_plug_parse(g, "p1.input1D[3]", (sinew_node_t){0, 0}, &locked), SINEW_OK);
  assert_int_equal(sinew_set_double(g, &locked, 5), SINEW_ELOCKED);
  assert_int_equal(e->code, SINEW_ELOCKED);
  assert_field(e->op, "setAttr");
  assert_field(e->node, "p1");
  assert_field(e->plug, "p1.input1D[3]");
  assert_field(e->reason, "p1.input1D[3] is locked");
  assert_string_equal(sinew_graph_errmsg(g), "setAttr: p1.input1D[3] is locked");
  sinew_session_destroy(s);
}

/* ---- language ------------------------------------------------------------------------------------------- */

static void test_lang_syntax_error(void **state) {
  (void)state;
  sinew_session_t *s = session();
  assert_int_equal(run(s, "int $a = 1;\nfloat $b = (2 + ;\n", "rig.mel"), SINEW_ESYNTAX);
  const sinew_error_t *e = sinew_session_error(s);
  assert_int_equal(e->code, SINEW_ESYNTAX);
  assert_field(e->file, "rig.mel");
  assert_int_equal(e->line, 2);
  assert_int_equal(e->column, 17);
  assert_field(e->op, "");
  char want[2048];
  snprintf(want, sizeof want, "rig.mel:2:17: %s", e->reason);
  assert_string_equal(sinew_session_errmsg(s), want);
  text_is_fields(e, sinew_session_errmsg(s));
  /* the language context keeps the same record */
  const sinew_error_t *le = sinew_lang_error(sinew_session_lang(s));
  assert_int_equal(le->line, 2);
  assert_int_equal(le->column, 17);
  /* an expression compiled alone: the same fields, without a file */
  char buf[512];
  sinew_expr_t *x = NULL;
  assert_int_equal(sinew_expr_compile("a.tx = 1;\nb.ty = (;", &x, buf, sizeof buf), SINEW_ESYNTAX);
  assert_true(strncmp(buf, "line 2, column ", 15) == 0);
  sinew_session_destroy(s);
}

static void test_lang_runtime_error_in_sourced_file(void **state) {
  (void)state;
  char dir[] = "/tmp/sinew-errors-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char lib[512], main_path[512];
  snprintf(lib, sizeof lib, "%s/lib.mel", dir);
  snprintf(main_path, sizeof main_path, "%s/main.mel", dir);
  FILE *fp = fopen(lib, "w");
  assert_non_null(fp);
  fputs("createNode transform -n j;\n\nsetAttr j.tx \"text\";\n", fp);
  fclose(fp);
  fp = fopen(main_path, "w");
  assert_non_null(fp);
  fputs("// main\nsource \"lib.mel\";\n", fp);
  fclose(fp);
  sinew_session_t *s = session();
  int rc = sinew_session_run_file(s, main_path, NULL);
  assert_int_not_equal(rc, SINEW_OK);
  const sinew_error_t *e = sinew_session_error(s);
  assert_int_equal(e->code, rc);
  assert_field(e->file, lib); /* where it failed */
  assert_int_equal(e->line, 3);
  assert_field(e->op, "setAttr");
  assert_field(e->plug, "j.tx");
  char trace[600];
  snprintf(trace, sizeof trace, "%s:2: ", main_path); /* what led there */
  assert_field(e->trace, trace);
  text_is_fields(e, sinew_session_errmsg(s));
  assert_true(strncmp(sinew_session_errmsg(s), trace, strlen(trace)) == 0);
  sinew_session_destroy(s);
  remove(lib);
  remove(main_path);
  rmdir(dir);
}

/* ---- commands --------------------------------------------------------------------------------------------- */

static void test_cmds_set_attr(void **state) {
  (void)state;
  sinew_session_t *s = session();
  /* a node that does not exist */
  assert_int_equal(run(s, "createNode transform -n a;\nsetAttr nope.tx 1;", "s.mel"), SINEW_ENOTFOUND);
  const sinew_error_t *e = sinew_session_error(s);
  assert_field(e->op, "setAttr");
  assert_field(e->node, "nope");
  assert_field(e->plug, "nope.tx");
  assert_field(e->file, "s.mel");
  assert_int_equal(e->line, 2);
  assert_string_equal(sinew_session_errmsg(s), "s.mel:2: setAttr: no node named 'nope'");
  text_is_fields(e, sinew_session_errmsg(s));
  /* the wrong type of value: the plug is named once, as the subject */
  assert_int_equal(run(s, "setAttr a.tx -type \"string\" \"x\";", "s.mel"), SINEW_ETYPE);
  assert_field(e->op, "setAttr");
  assert_field(e->plug, "a.translateX"); /* the graph names it by its long name */
  assert_int_equal(e->line, 1);
  assert_null(strstr(sinew_session_errmsg(s), "setAttr: a.tx: ")); /* not named a second time */
  text_is_fields(e, sinew_session_errmsg(s));
  /* a message of the command's own about a plug is not named twice either */
  assert_int_equal(run(s, "setAttr \"a.tx[1:0]\" 1;", "s.mel"), SINEW_EINVAL);
  assert_field(e->plug, "a.tx[1:0]");
  assert_null(strstr(strstr(sinew_session_errmsg(s), "a.tx[1:0]") + 1, "a.tx[1:0]"));
  sinew_session_destroy(s);
}

/* ---- a file being read ------------------------------------------------------------------------------------- */

static void test_file_load(void **state) {
  (void)state;
  char dir[] = "/tmp/sinew-errors-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[512];
  snprintf(path, sizeof path, "%s/bad.ma", dir);
  FILE *fp = fopen(path, "w");
  assert_non_null(fp);
  fputs("//Maya ASCII 2020 scene\nrequires maya \"2020\";\ncreateNode transform -n \"a\";\n"
        "connectAttr \"a.tx\" \"b.ty\";\n", fp);
  fclose(fp);
  sinew_session_t *s = session(); /* strict: the failing line fails the read */
  assert_int_equal(run(s, "createNode transform -n before;", "t"), SINEW_OK);
  assert_int_equal(sinew_session_open(s, path), SINEW_ENOTFOUND);
  const sinew_error_t *e = sinew_session_error(s);
  assert_field(e->file, path);
  assert_int_equal(e->line, 4);
  assert_field(e->op, "connectAttr");
  assert_field(e->node, "b");
  text_is_fields(e, sinew_session_errmsg(s));
  /* read by the file command: the command leads to the file's line */
  char cmd[700];
  snprintf(cmd, sizeof cmd, "file -i \"%s\";", path);
  assert_int_equal(run(s, cmd, "imp.mel"), SINEW_ENOTFOUND);
  assert_field(e->file, path);
  assert_int_equal(e->line, 4);
  assert_field(e->trace, "imp.mel:1: file: ");
  text_is_fields(e, sinew_session_errmsg(s));
  sinew_session_destroy(s);
  remove(path);
  rmdir(dir);
}

/* The formatter alone: each field in its place, none when empty. */
static void test_format(void **state) {
  (void)state;
  sinew_error_t e = {0};
  snprintf(e.reason, sizeof e.reason, "went wrong");
  text_is_fields(&e, "went wrong");
  snprintf(e.op, sizeof e.op, "setAttr");
  text_is_fields(&e, "setAttr: went wrong");
  e.line = 3;
  text_is_fields(&e, "line 3: setAttr: went wrong");
  e.column = 7;
  text_is_fields(&e, "line 3, column 7: setAttr: went wrong");
  snprintf(e.file, sizeof e.file, "a.mel");
  text_is_fields(&e, "a.mel:3:7: setAttr: went wrong");
  snprintf(e.trace, sizeof e.trace, "main.mel:1: ");
  text_is_fields(&e, "main.mel:1: a.mel:3:7: setAttr: went wrong");
  char small[8];
  assert_int_equal(sinew_error_format(&e, small, sizeof small), strlen("main.mel:1: a.mel:3:7: setAttr: went wrong"));
  assert_string_equal(small, "main.me");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_format),
      cmocka_unit_test(test_graph_bad_plug),
      cmocka_unit_test(test_graph_cycle_and_lock),
      cmocka_unit_test(test_lang_syntax_error),
      cmocka_unit_test(test_lang_runtime_error_in_sourced_file),
      cmocka_unit_test(test_cmds_set_attr),
      cmocka_unit_test(test_file_load),
  };
  return cmocka_run_group_tests_name("errors", tests, NULL, NULL);
}
