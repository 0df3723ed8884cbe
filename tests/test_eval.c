/* tests/test_eval.c: the evaluator's fast path (issue 17): compute reads by attribute id, and the
 * transform's world matrices made from the local matrix kept in its `matrix` output. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sinew/sinew.h"

/* ---- a host type that reads by id and checks each read against the plug getters ------------- */

static uint32_t P_K, P_V, P_VY, P_M, P_EXTRA, P_ARR, P_OUT, P_CACHE;
static int probe_computes;

static void same_as_getters(sinew_compute_t *ctx) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  double a = NAN, b = NAN, v3[3], w3[3];
  assert_int_equal(sinew_compute_get_double(ctx, P_K, &a), 0);
  sinew_plug_t p = sinew_plug_make(n, P_K, 0, NULL);
  assert_int_equal(sinew_get_double(g, &p, &b), 0);
  assert_true(a == b);
  assert_int_equal(sinew_compute_get_doubles(ctx, P_V, v3, 3), 0);
  p = sinew_plug_make(n, P_V, 0, NULL);
  assert_int_equal(sinew_get_doubles(g, &p, w3, 3, NULL), 0);
  assert_memory_equal(v3, w3, sizeof v3);
  assert_int_equal(sinew_compute_get_double(ctx, P_VY, &a), 0); /* a child by its own id */
  assert_true(a == v3[1]);
  sinew_mat4_t m1, m2;
  assert_int_equal(sinew_compute_get_matrix(ctx, P_M, &m1), 0);
  p = sinew_plug_make(n, P_M, 0, NULL);
  assert_int_equal(sinew_get_matrix(g, &p, &m2), 0);
  assert_memory_equal(&m1, &m2, sizeof m1);
}

static int probe_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != P_OUT) return SINEW_EUNKNOWN_PLUG;
  probe_computes++;
  same_as_getters(ctx);
  double k = 0, v[3] = {0, 0, 0}, extra = 0;
  sinew_mat4_t m;
  int rc = sinew_compute_get_double(ctx, P_K, &k);
  if (!rc) rc = sinew_compute_get_doubles(ctx, P_V, v, 3);
  if (!rc) rc = sinew_compute_get_matrix(ctx, P_M, &m);
  /* not declared to affect output: still dirty here, so the read pulls it */
  if (!rc) rc = sinew_compute_get_double(ctx, P_EXTRA, &extra);
  if (rc) return rc;
  sinew_mat4_t cache;
  bool had = sinew_compute_peek_matrix(ctx, P_CACHE, &cache);
  if (!had) { /* cache = a matrix of k, kept in an output the same inputs affect */
    sinew_mat4_identity(&cache);
    cache.m[0][0] = k;
    sinew_plug_t cp = sinew_plug_make(sinew_compute_node(ctx), P_CACHE, 0, NULL);
    if ((rc = sinew_compute_set_matrix(ctx, &cp, &cache))) return rc;
  }
  return sinew_compute_set_double(ctx, plug, cache.m[0][0] + v[0] + v[1] + v[2] + m.m[3][0] + extra);
}

static const sinew_attr_desc_t probe_attrs[] = {
    {.name = "k", .type = SINEW_ATTR_DOUBLE},
    {.name = "v", .type = SINEW_ATTR_COMPOUND},
    {.name = "vx", .type = SINEW_ATTR_DOUBLE, .parent = "v"},
    {.name = "vy", .type = SINEW_ATTR_DOUBLE, .parent = "v", .default_value = 2},
    {.name = "vz", .type = SINEW_ATTR_DOUBLE, .parent = "v"},
    {.name = "m", .type = SINEW_ATTR_MATRIX},
    {.name = "extra", .type = SINEW_ATTR_DOUBLE},
    {.name = "arr", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY},
    {.name = "out", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT},
    {.name = "cache", .type = SINEW_ATTR_MATRIX, .flags = SINEW_ATTR_OUTPUT}};
static const sinew_affects_t probe_affects[] = {{"k", "out"}, {"v", "out"}, {"m", "out"}, {"k", "cache"}};

static sinew_graph_t *probe_graph(void) {
  sinew_graph_t *g;
  assert_int_equal(sinew_scene_create(NULL, &g), 0);
  const sinew_node_type_t *t;
  sinew_node_type_desc_t d = {.name = "probe", .attrs = probe_attrs,
                              .attr_count = sizeof probe_attrs / sizeof *probe_attrs, .affects = probe_affects,
                              .affects_count = sizeof probe_affects / sizeof *probe_affects,
                              .compute = probe_compute};
  assert_int_equal(sinew_register_node_type(g, &d, &t), 0);
  P_K = sinew_node_type_attr(t, "k");
  P_V = sinew_node_type_attr(t, "v");
  P_VY = sinew_node_type_attr(t, "vy");
  P_M = sinew_node_type_attr(t, "m");
  P_EXTRA = sinew_node_type_attr(t, "extra");
  P_ARR = sinew_node_type_attr(t, "arr");
  P_OUT = sinew_node_type_attr(t, "out");
  P_CACHE = sinew_node_type_attr(t, "cache");
  probe_computes = 0;
  return g;
}

static sinew_plug_t P(sinew_graph_t *g, const char *text) {
  sinew_plug_t p;
  if (sinew_plug_parse(g, text, (sinew_node_t){0, 0}, &p)) fail_msg("parse %s: %s", text, sinew_graph_errmsg(g));
  return p;
}

static void setd(sinew_graph_t *g, const char *text, double v) {
  sinew_plug_t p = P(g, text);
  if (sinew_set_double(g, &p, v)) fail_msg("set %s: %s", text, sinew_graph_errmsg(g));
}

static double getd(sinew_graph_t *g, const char *text) {
  double v = NAN;
  sinew_plug_t p = P(g, text);
  if (sinew_get_double(g, &p, &v)) fail_msg("get %s: %s", text, sinew_graph_errmsg(g));
  return v;
}

static void test_reads_by_id(void **state) {
  (void)state;
  sinew_graph_t *g = probe_graph();
  sinew_node_t n, src;
  assert_int_equal(sinew_node_create(g, "probe", "p", &n), 0);
  assert_int_equal(sinew_node_create(g, "probe", "q", &src), 0);
  /* defaults: k 0, v (0, 2, 0), m identity, extra 0 */
  assert_true(getd(g, "p.out") == 2.0);
  setd(g, "p.k", 3);
  setd(g, "p.vx", 1);
  sinew_mat4_t m;
  sinew_mat4_translate((sinew_vec3_t){5, 0, 0}, &m);
  sinew_plug_t pm = P(g, "p.m");
  assert_int_equal(sinew_set_matrix(g, &pm, &m), 0);
  assert_true(getd(g, "p.out") == 3 + 1 + 2 + 5);
  /* extra fed by another node's output: dirty when p computes (undeclared), so pulled */
  sinew_plug_t qo = P(g, "q.out"), pe = P(g, "p.extra");
  assert_int_equal(sinew_connect(g, &qo, &pe, 0, NULL), 0);
  setd(g, "q.k", 10);
  setd(g, "p.vz", 0.5); /* p.out dirty again, q.out dirty, p.extra dirty */
  assert_true(getd(g, "p.out") == 3 + 1 + 2 + 0.5 + 5 + (10 + 2));
  sinew_graph_destroy(g);
}

/* The kept output: taken back while clean, made again once an input of it changed. */
static void test_peek_kept_output(void **state) {
  (void)state;
  sinew_graph_t *g = probe_graph();
  sinew_node_t n;
  assert_int_equal(sinew_node_create(g, "probe", "p", &n), 0);
  setd(g, "p.k", 4);
  assert_true(getd(g, "p.out") == 4 + 2);
  sinew_plug_t cache = P(g, "p.cache");
  assert_false(sinew_plug_is_dirty(g, &cache)); /* written by out's compute */
  sinew_graph_reset_stats(g);
  sinew_mat4_t m;
  assert_int_equal(sinew_get_matrix(g, &cache, &m), 0);
  sinew_graph_stats_t st;
  sinew_graph_stats(g, &st);
  assert_int_equal(st.computes, 0);
  assert_true(m.m[0][0] == 4);
  setd(g, "p.vx", 1); /* not an input of cache: it stays */
  assert_false(sinew_plug_is_dirty(g, &cache));
  assert_true(getd(g, "p.out") == 4 + 1 + 2);
  setd(g, "p.k", 7); /* an input of cache: made again */
  assert_true(sinew_plug_is_dirty(g, &cache));
  assert_true(getd(g, "p.out") == 7 + 1 + 2);
  assert_int_equal(sinew_get_matrix(g, &cache, &m), 0);
  assert_true(m.m[0][0] == 7);
  sinew_graph_destroy(g);
}

/* Reads by id refuse what they cannot read, naming the node. */
static int bad_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  double d;
  sinew_mat4_t m;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  assert_int_equal(sinew_compute_get_double(ctx, 9999, &d), SINEW_EINVAL);
  assert_non_null(strstr(sinew_graph_errmsg(g), "bad1"));
  assert_non_null(strstr(sinew_graph_errmsg(g), "#9999"));
  assert_int_equal(sinew_compute_get_double(ctx, P_M, &d), SINEW_ETYPE);
  assert_non_null(strstr(sinew_graph_errmsg(g), "bad1.m"));
  assert_int_equal(sinew_compute_get_matrix(ctx, P_K, &m), SINEW_ETYPE);
  assert_int_equal(sinew_compute_get_double(ctx, P_ARR, &d), SINEW_EINVAL); /* a whole array */
  assert_false(sinew_compute_peek_matrix(ctx, P_K, &m));
  assert_false(sinew_compute_peek_matrix(ctx, 9999, &m));
  assert_int_equal(sinew_compute_get_double(NULL, P_K, &d), SINEW_EINVAL);
  assert_false(sinew_compute_peek_matrix(NULL, P_M, &m));
  return sinew_compute_set_double(ctx, plug, 1);
}

static void test_reads_by_id_refuse(void **state) {
  (void)state;
  sinew_graph_t *g = probe_graph();
  const sinew_node_type_t *t;
  sinew_node_type_desc_t d = {.name = "bad", .attrs = probe_attrs,
                              .attr_count = sizeof probe_attrs / sizeof *probe_attrs, .affects = probe_affects,
                              .affects_count = sizeof probe_affects / sizeof *probe_affects,
                              .compute = bad_compute};
  assert_int_equal(sinew_register_node_type(g, &d, &t), 0);
  sinew_node_t n;
  assert_int_equal(sinew_node_create(g, "bad", NULL, &n), 0);
  assert_string_equal(sinew_node_name(g, n), "bad1");
  assert_true(getd(g, "bad1.out") == 1);
  sinew_graph_destroy(g);
}

/* ---- transforms and joints: world matrices from the kept local matrix ------------------------ */

static void setv(sinew_graph_t *g, const char *text, double x, double y, double z) {
  sinew_plug_t p = P(g, text);
  double v[3] = {x, y, z};
  if (sinew_set_doubles(g, &p, v, 3)) fail_msg("set %s: %s", text, sinew_graph_errmsg(g));
}

static sinew_mat4_t getm(sinew_graph_t *g, const char *text) {
  sinew_mat4_t m;
  sinew_plug_t p = P(g, text);
  if (sinew_get_matrix(g, &p, &m)) fail_msg("get %s: %s", text, sinew_graph_errmsg(g));
  return m;
}

static void assert_mat_near(const sinew_mat4_t *a, const sinew_mat4_t *b) {
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      if (fabs(a->m[i][j] - b->m[i][j]) > 1e-12) fail_msg("[%d][%d]: %.17g != %.17g", i, j, a->m[i][j], b->m[i][j]);
}

/* joint local: S * RA * R * JO * IS * T (no IS here: the test does not connect s -> is) */
static sinew_mat4_t joint_local(sinew_vec3_t t, sinew_vec3_t r, sinew_rotate_order_t ro, sinew_vec3_t jo) {
  sinew_mat4_t a, b, c;
  sinew_mat4_euler(r, ro, &a);
  sinew_mat4_euler(jo, SINEW_ROTATE_XYZ, &b);
  sinew_mat4_mul(&a, &b, &c);
  c.m[3][0] += t.x;
  c.m[3][1] += t.y;
  c.m[3][2] += t.z;
  return c;
}

static void test_world_from_kept_local(void **state) {
  (void)state;
  sinew_graph_t *g;
  assert_int_equal(sinew_scene_create(NULL, &g), 0);
  sinew_node_t root, mid, tip;
  assert_int_equal(sinew_node_create(g, "joint", "root", &root), 0);
  assert_int_equal(sinew_node_create_under(g, "joint", "mid", root, &mid), 0);
  assert_int_equal(sinew_node_create_under(g, "transform", "tip", mid, &tip), 0);
  setv(g, "mid.t", 1, 2, 3);
  setv(g, "mid.r", 0.1, 0.2, 0.3);
  setd(g, "mid.ro", 4);
  setv(g, "mid.jo", 0.3, 0, -0.2);
  setv(g, "tip.t", 0, 1, 0);
  setv(g, "root.r", 0, 0.5, 0);
  const char *wms[] = {"root.wm[0]", "mid.wm[0]", "tip.wm[0]"};
  for (int i = 0; i < 3; i++) getm(g, wms[i]);
  /* rotating the root: each world matrix computes once, the children's local ones not at all */
  sinew_graph_reset_stats(g);
  setv(g, "root.r", 0, 0.7, 0.1);
  sinew_plug_t mid_m = P(g, "mid.m"), tip_m = P(g, "tip.m");
  assert_false(sinew_plug_is_dirty(g, &mid_m));
  assert_false(sinew_plug_is_dirty(g, &tip_m));
  sinew_mat4_t w[3];
  for (int i = 0; i < 3; i++) w[i] = getm(g, wms[i]);
  sinew_graph_stats_t st;
  sinew_graph_stats(g, &st);
  assert_int_equal(st.computes, 3);
  sinew_mat4_t lroot = joint_local((sinew_vec3_t){0, 0, 0}, (sinew_vec3_t){0, 0.7, 0.1}, SINEW_ROTATE_XYZ,
                                   (sinew_vec3_t){0, 0, 0});
  sinew_mat4_t lmid = joint_local((sinew_vec3_t){1, 2, 3}, (sinew_vec3_t){0.1, 0.2, 0.3}, SINEW_ROTATE_YXZ,
                                  (sinew_vec3_t){0.3, 0, -0.2});
  sinew_mat4_t want;
  assert_mat_near(&w[0], &lroot);
  sinew_mat4_mul(&lmid, &lroot, &want);
  assert_mat_near(&w[1], &want);
  sinew_mat4_t ltip, wtip;
  sinew_mat4_translate((sinew_vec3_t){0, 1, 0}, &ltip);
  sinew_mat4_mul(&ltip, &want, &wtip);
  assert_mat_near(&w[2], &wtip);
  /* the local matrices read now cost nothing: they were kept */
  sinew_graph_reset_stats(g);
  sinew_mat4_t got = getm(g, "mid.m");
  assert_mat_near(&got, &lmid);
  sinew_graph_stats(g, &st);
  assert_int_equal(st.computes, 0);
  /* a child's own rotation: its local matrix is made again, from the new value */
  setv(g, "mid.r", -0.4, 0.2, 0.3);
  assert_true(sinew_plug_is_dirty(g, &mid_m));
  lmid = joint_local((sinew_vec3_t){1, 2, 3}, (sinew_vec3_t){-0.4, 0.2, 0.3}, SINEW_ROTATE_YXZ,
                     (sinew_vec3_t){0.3, 0, -0.2});
  sinew_mat4_mul(&lmid, &lroot, &want);
  got = getm(g, "mid.wm[0]");
  assert_mat_near(&got, &want);
  got = getm(g, "mid.m");
  assert_mat_near(&got, &lmid);
  /* the inverse matrices and xformMatrix take the same local matrix */
  sinew_mat4_t inv, xm = getm(g, "mid.xm"), im = getm(g, "mid.im"), wim = getm(g, "mid.wim[0]");
  assert_mat_near(&xm, &lmid);
  assert_true(sinew_mat4_inverse(&lmid, &inv));
  assert_mat_near(&im, &inv);
  assert_true(sinew_mat4_inverse(&want, &inv));
  assert_mat_near(&wim, &inv);
  sinew_graph_destroy(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reads_by_id),
      cmocka_unit_test(test_peek_kept_output),
      cmocka_unit_test(test_reads_by_id_refuse),
      cmocka_unit_test(test_world_from_kept_local),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
