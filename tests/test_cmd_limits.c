/* tests/test_cmd_limits.c: input at the edges, as a reviewer fed it to the sinew command:
 * index ranges that reach INT32_MAX, edge records with a gap, weightList and blendWeights
 * elements far past the mesh's last point, a script that starts with a byte-order mark, an
 * unterminated comment. Each must give a clear answer quickly, with memory that does not grow
 * with the indices written. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinew/sinew.h"
#include "tests/support.h"

static sinew_session_t *session(void) {
  sinew_session_t *s = NULL;
  assert_int_equal(sinew_session_create(NULL, &s), SINEW_OK);
  return s;
}

static int run(sinew_session_t *s, const char *text) {
  return sinew_session_run(s, text, strlen(text), "limits.mel", NULL);
}

static void ok(sinew_session_t *s, const char *text) {
  if (run(s, text)) fail_msg("%s: %s", text, sinew_session_errmsg(s));
}

static void fails_with(sinew_session_t *s, const char *text, int want, const char *message) {
  int rc = run(s, text);
  if (rc != want)
    fail_msg("%s\n  gave %s (%s), not %s", text, sinew_err_name(rc), sinew_session_errmsg(s), sinew_err_name(want));
  if (!strstr(sinew_session_errmsg(s), message))
    fail_msg("%s\n  message \"%s\" lacks \"%s\"", text, sinew_session_errmsg(s), message);
}

static double getd(sinew_session_t *s, const char *text) {
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_plug_t p;
  double v = NAN;
  if (sinew_plug_parse(g, text, (sinew_node_t){0}, &p) || sinew_get_double(g, &p, &v))
    fail_msg("%s: %s", text, sinew_graph_errmsg(g));
  return v;
}

/* A range may reach INT32_MAX - 1; one that ends at INT32_MAX is refused (a loop over it
 * would never end), and nothing is set. */
static void test_ranges_at_int32_max(void **state) {
  (void)state;
  sinew_session_t *s = session();
  ok(s, "createNode transform -n w; addAttr -ln arr -at double -m w;");
  fails_with(s, "setAttr \"w.arr[2147483645:2147483647]\" 1 2 3;", SINEW_EINVAL,
             "limits.mel:1: setAttr: w.arr[2147483645:2147483647]: bad range");
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_plug_t arr;
  assert_int_equal(sinew_plug_parse(g, "w.arr", (sinew_node_t){0}, &arr), SINEW_OK);
  assert_int_equal(sinew_plug_indices(g, &arr, NULL, 0), 0);
  ok(s, "setAttr \"w.arr[2147483644:2147483646]\" 1 2 3;");
  assert_int_equal(sinew_plug_indices(g, &arr, NULL, 0), 3);
  assert_true(getd(s, "w.arr[2147483646]") == 3);
  fails_with(s, "setAttr \"w.arr[5:2]\" 1;", SINEW_EINVAL, "bad range [5:2]");
  fails_with(s, "setAttr \"w.arr[-1:2]\" 1;", SINEW_EINVAL, "bad range");
  sinew_session_destroy(s);
}

/* Edge records come in order: a first index past the edges given so far is refused instead
 * of making room for two billion edges. */
static void test_edges_in_order(void **state) {
  (void)state;
  sinew_session_t *s = session();
  ok(s, "createNode mesh -n m;");
  fails_with(s, "setAttr \"m.ed[2000000000:2000000000]\" 0 1 0;", SINEW_ERANGE, "edge 2000000000 given before edge 0");
  /* (a mesh's edge lines are read together: the session finishes a mesh at the end of a run) */
  fails_with(s, "setAttr \"m.ed[0:1]\" 0 1 0 1 2 0;\nsetAttr \"m.ed[5:5]\" 2 0 0;", SINEW_ERANGE,
             "limits.mel:2: setAttr: .ed[5:5]: edge 5 given before edge 2");
  ok(s, "setAttr \"m.ed[0:1]\" 0 1 0 1 2 0;\nsetAttr \"m.ed[2:2]\" 2 0 0;");
  sinew_session_destroy(s);
}

/* weightList[999999999] and blendWeights[999999999] on a cube: the deformer ignores elements past
 * the mesh's last point (as Maya does), so pulling the output costs what the cube costs. */
static void test_weights_past_the_last_point(void **state) {
  (void)state;
  test_alloc_install();
  sinew_session_t *s = session();
  ok(s, "polyCube -n box; select -cl; joint -n j1; joint -n j2 -p 0 1 0;\n"
        "skinCluster -tsb -n sk j1 j2 box;\n"
        "setAttr sk.skinningMethod 2;\n"
        "setAttr j2.rotateZ 30;");
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_plug_t out;
  assert_int_equal(sinew_plug_parse(g, "boxShape.outMesh", (sinew_node_t){0}, &out), SINEW_OK);
  sinew_data_t *before = NULL;
  assert_int_equal(sinew_get_data(g, &out, &before), SINEW_OK);
  size_t bytes = test_alloc_live_bytes();
  ok(s, "setAttr sk.wl[999999999].w[0] 0.5; setAttr sk.blendWeights[999999999] 0.5;");
  sinew_data_t *after = NULL;
  assert_int_equal(sinew_get_data(g, &out, &after), SINEW_OK);
  size_t grown = test_alloc_live_bytes() - bytes;
  if (grown > 64 * 1024) fail_msg("pulling the output with far weight indices took %zu more bytes", grown);
  const sinew_mesh_t *a = sinew_mesh_get(before), *b = sinew_mesh_get(after);
  assert_int_equal(a->npoints, 8);
  assert_int_equal(b->npoints, 8);
  assert_memory_equal(a->points, b->points, 3 * 8 * sizeof(float));
  sinew_data_unref(before);
  sinew_data_unref(after);
  sinew_session_destroy(s);
  assert_int_equal(test_alloc_live(), 0);
  test_alloc_uninstall();
}

/* A script saved with a UTF-8 byte-order mark runs; an unterminated comment is reported at the
 * line and column where it starts. */
static void test_bom_and_comments(void **state) {
  (void)state;
  sinew_session_t *s = session();
  ok(s, "\xEF\xBB\xBF" "createNode transform -n a; setAttr a.tx 3;");
  assert_true(getd(s, "a.tx") == 3);
  fails_with(s, "setAttr a.ty 1;\n  /* never closed\nsetAttr a.tz 1;", SINEW_ESYNTAX,
             "limits.mel:2:3: unterminated comment");
  assert_true(getd(s, "a.ty") == 0); /* a syntax error runs nothing */
  sinew_session_destroy(s);
}

/* Every setAttr failure names the plug, also when the value is what is wrong. */
static void test_set_attr_messages_name_the_plug(void **state) {
  (void)state;
  sinew_session_t *s = session();
  ok(s, "createNode transform -n a;");
  fails_with(s, "setAttr a.tx \"a lot\";", SINEW_EINVAL, "limits.mel:1: setAttr: a.tx: 'a lot' is not a number");
  /* a plug relative to the node just created, as in .ma files */
  fails_with(s, "createNode transform -n b;\nsetAttr \".t\" -type \"double3\" 1 \"x\" 3;", SINEW_EINVAL,
             "limits.mel:2: setAttr: b.t: 'x' is not a number");
  /* a message that names the node or plug already is left as it is */
  fails_with(s, "setAttr nobody.tx 1;", SINEW_ENOTFOUND, "limits.mel:1: setAttr: no node named 'nobody'");
  assert_true(getd(s, "a.tx") == 0);
  sinew_session_destroy(s);
}

/* A taken name gets its trailing number increased, as the graph names nodes (joint3 -> joint4);
 * a trailing number too long to count on is part of the name (no overflow). */
static void test_taken_names(void **state) {
  (void)state;
  sinew_session_t *s = session();
  ok(s, "select -cl; joint -n j3; select -cl; joint -n j3;");
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_node_t n;
  assert_int_equal(sinew_node_find(g, "j4", &n), SINEW_OK);
  ok(s, "createNode transform -n p99999999999999999999; select -cl; joint -n p99999999999999999999;\n"
        "select -cl; joint -n j; dagPose -s -n p99999999999999999999 j;");
  assert_int_equal(sinew_node_find(g, "p999999999999999999991", &n), SINEW_OK); /* the joint */
  assert_int_equal(sinew_node_find(g, "p999999999999999999992", &n), SINEW_OK); /* the pose */
  assert_string_equal(sinew_node_type_name(sinew_node_type(g, n)), "dagPose");
  sinew_session_destroy(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ranges_at_int32_max),
      cmocka_unit_test(test_edges_in_order),
      cmocka_unit_test(test_weights_past_the_last_point),
      cmocka_unit_test(test_bom_and_comments),
      cmocka_unit_test(test_set_attr_messages_name_the_plug),
      cmocka_unit_test(test_taken_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
