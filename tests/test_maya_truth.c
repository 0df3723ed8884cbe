/* tests/test_maya_truth.c: Maya's own skinCluster output, reproduced end to end: each scene of
 * tests/data/maya-skin-truth is opened with the real Maya ASCII reader (sinew_session_open, as
 * `sinew run` does), skinCluster1.outputGeometry[0] is pulled, and every point is compared with
 * the points Maya computed (CASE.expected.txt). tests/test_skin.c checks the same numbers with
 * the skinCluster driven directly; this one proves the file path (compact weightList forms,
 * matrix setAttrs, polyFaces, units) gives the same result. */
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

#include "sinew/cmds.h"
#include "sinew/sinew.h"

#ifndef SINEW_SOURCE_DIR
#define SINEW_SOURCE_DIR "."
#endif
#define DATA SINEW_SOURCE_DIR "/tests/data/maya-skin-truth/"

/* The x y z lines of an expected file (comment lines start with '#'). */
static double *read_expected(const char *path, size_t *count) {
  FILE *f = fopen(path, "r");
  if (!f) fail_msg("cannot open %s", path);
  size_t n = 0, cap = 0;
  double *v = NULL;
  char line[256];
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == '\n') continue;
    double x, y, z;
    if (sscanf(line, "%lf %lf %lf", &x, &y, &z) != 3) fail_msg("%s: bad line %s", path, line);
    if (n + 3 > cap) {
      cap = cap ? 2 * cap : 768;
      v = realloc(v, cap * sizeof *v);
      assert_non_null(v);
    }
    v[n++] = x, v[n++] = y, v[n++] = z;
  }
  fclose(f);
  *count = n / 3;
  return v;
}

/* Max |outputGeometry[0] - want| over every coordinate. */
static double max_error(sinew_session_t *s, const char *stem, const double *want, size_t n) {
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_plug_t og;
  if (sinew_plug_parse(g, "skinCluster1.outputGeometry[0]", (sinew_node_t){0}, &og))
    fail_msg("%s: %s", stem, sinew_graph_errmsg(g));
  sinew_data_t *d = NULL;
  assert_int_equal(sinew_get_data(g, &og, &d), SINEW_OK);
  const sinew_mesh_t *m = sinew_mesh_get(d);
  assert_non_null(m);
  assert_int_equal(m->npoints, n);
  double maxerr = 0;
  for (size_t i = 0; i < 3 * n; i++) maxerr = fmax(maxerr, fabs(m->points[i] - want[i]));
  sinew_data_unref(d);
  return maxerr;
}

static void check_case(const char *stem) {
  char ma[512], exp[512];
  snprintf(ma, sizeof ma, DATA "%s.ma", stem);
  snprintf(exp, sizeof exp, DATA "%s.expected.txt", stem);
  sinew_session_t *s = NULL;
  assert_int_equal(sinew_session_create(NULL, &s), SINEW_OK);
  if (sinew_session_open(s, ma)) fail_msg("%s: %s", ma, sinew_session_errmsg(s));
  sinew_session_stats_t st;
  sinew_session_stats(s, &st);
  assert_int_equal(st.failed_commands, 0);
  assert_int_equal(st.placeholder_nodes, 0);
  size_t n = 0;
  double *want = read_expected(exp, &n);
  double maxerr = max_error(s, stem, want, n);
  print_message("%-24s %4zu points, max |sinew - Maya| %.2e\n", stem, n, maxerr);
  if (!(maxerr < 1e-4)) fail_msg("%s: max error %g", stem, maxerr);
  /* saved by sinew and opened again: the same result (weights, matrices and geometry survive) */
  char tmp[] = "/tmp/sinew_truth_XXXXXX";
  int fd = mkstemp(tmp);
  assert_true(fd >= 0);
  close(fd);
  if (sinew_session_save(s, tmp)) fail_msg("save %s: %s", tmp, sinew_session_errmsg(s));
  if (sinew_session_open(s, tmp)) fail_msg("reopen %s: %s", tmp, sinew_session_errmsg(s));
  remove(tmp);
  double again = max_error(s, stem, want, n);
  if (!(again <= maxerr)) fail_msg("%s: after save and reopen the error is %g, was %g", stem, again, maxerr);
  free(want);
  sinew_session_destroy(s);
}

static void test_linear_moved_mesh(void **state) {
  (void)state;
  check_case("transformed_skin_f0");
  check_case("transformed_skin_f4");
  check_case("transformed_skin_f8");
}

static void test_dual_quaternion(void **state) {
  (void)state;
  check_case("dual_quaternion");
  check_case("dual_quaternion_scale");
}

static void test_weight_blended(void **state) {
  (void)state;
  check_case("dq_weight_blended_f10");
  check_case("dq_weight_blended_f18");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_linear_moved_mesh),
      cmocka_unit_test(test_dual_quaternion),
      cmocka_unit_test(test_weight_blended),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
