/* tests/test_eval.c: the evaluator's fast path and parallel evaluation (issue 17): compute reads
 * by attribute id; the transform's world matrices made from the local matrix kept in its
 * `matrix` output; sinew_evaluate_parallel giving bitwise the values of serial evaluation on
 * random graphs and on the corpus rigs, with types not declared parallel computing alone. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
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


/* ---- parallel evaluation ------------------------------------------------------------------------ */

/* "mix" (declared parallel) and "mixAlone" (not): the same attributes and compute. */
static uint32_t M_A, M_B, M_M, M_INS, M_OUT, M_OM, M_OUTS, M_HIDDEN;
static atomic_int running, alone_overlaps;

typedef struct mix_state {
  int computes;
} mix_state;

static int mix_compute(sinew_compute_t *ctx, const sinew_plug_t *plug, bool alone) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  int now = atomic_fetch_add(&running, 1) + 1;
  if (alone && now != 1) atomic_fetch_add(&alone_overlaps, 1);
  ((mix_state *)sinew_compute_state(ctx))->computes++;
  double a = 0, b = 0;
  int rc = sinew_compute_get_double(ctx, M_A, &a);
  if (!rc && plug->attr == M_OUT) {
    rc = sinew_compute_get_double(ctx, M_B, &b);
    double ins[8];
    int32_t idx[8];
    size_t cnt = 0;
    sinew_plug_t arr = sinew_plug_make(n, M_INS, 0, NULL);
    if (!rc) rc = sinew_get_double_elements(g, &arr, idx, ins, 8, &cnt);
    double v = sin(a) * 1.3 + b * b * 0.7;
    for (size_t i = 0; i < cnt && i < 8; i++) v += ins[i] * (double)(idx[i] + 1);
    if (!rc) rc = sinew_compute_set_double(ctx, plug, v);
  } else if (!rc && plug->attr == M_OM) {
    sinew_mat4_t m, r, out;
    rc = sinew_compute_get_matrix(ctx, M_M, &m);
    sinew_mat4_euler((sinew_vec3_t){a, 0.5 * a, -a}, SINEW_ROTATE_ZXY, &r);
    sinew_mat4_mul(&m, &r, &out);
    out.m[3][0] += 0.25 * a;
    if (!rc) rc = sinew_compute_set_matrix(ctx, plug, &out);
  } else if (!rc && plug->attr == M_OUTS) {
    double v = 0;
    sinew_plug_t in = sinew_plug_make(n, M_INS, 1, &plug->idx[0]);
    rc = sinew_get_double(g, &in, &v);
    if (!rc) rc = sinew_compute_set_double(ctx, plug, v * a + plug->idx[0]);
  } else if (!rc) {
    rc = SINEW_EUNKNOWN_PLUG;
  }
  atomic_fetch_sub(&running, 1);
  return rc;
}

static int mix_par(sinew_compute_t *ctx, const sinew_plug_t *plug) { return mix_compute(ctx, plug, false); }
static int mix_alone(sinew_compute_t *ctx, const sinew_plug_t *plug) { return mix_compute(ctx, plug, true); }

static const sinew_attr_desc_t mix_attrs[] = {
    {.name = "a", .type = SINEW_ATTR_DOUBLE},
    {.name = "b", .type = SINEW_ATTR_DOUBLE},
    {.name = "m", .type = SINEW_ATTR_MATRIX},
    {.name = "ins", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY},
    {.name = "hidden", .type = SINEW_ATTR_DOUBLE},
    {.name = "out", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT},
    {.name = "om", .type = SINEW_ATTR_MATRIX, .flags = SINEW_ATTR_OUTPUT},
    {.name = "outs", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT | SINEW_ATTR_ARRAY}};
static const sinew_affects_t mix_affects[] = {{"a", "out"}, {"b", "out"}, {"ins", "out"}, {"a", "om"},
                                              {"m", "om"},  {"a", "outs"}, {"ins", "outs"}};

static void register_mix(sinew_graph_t *g) {
  const sinew_node_type_t *t;
  sinew_node_type_desc_t d = {.name = "mix", .flags = SINEW_NODE_TYPE_PARALLEL, .attrs = mix_attrs,
                              .attr_count = sizeof mix_attrs / sizeof *mix_attrs, .affects = mix_affects,
                              .affects_count = sizeof mix_affects / sizeof *mix_affects, .compute = mix_par,
                              .state_size = sizeof(mix_state)};
  assert_int_equal(sinew_register_node_type(g, &d, &t), 0);
  d.name = "mixAlone";
  d.flags = 0;
  d.compute = mix_alone;
  assert_int_equal(sinew_register_node_type(g, &d, NULL), 0);
  M_A = sinew_node_type_attr(t, "a");
  M_B = sinew_node_type_attr(t, "b");
  M_M = sinew_node_type_attr(t, "m");
  M_INS = sinew_node_type_attr(t, "ins");
  M_HIDDEN = sinew_node_type_attr(t, "hidden");
  M_OUT = sinew_node_type_attr(t, "out");
  M_OM = sinew_node_type_attr(t, "om");
  M_OUTS = sinew_node_type_attr(t, "outs");
}

static uint64_t rng_next(uint64_t *st) {
  *st = *st * 6364136223846793005ull + 1442695040888963407ull;
  return *st >> 33;
}

static double rng_unit(uint64_t *st) { return (double)(rng_next(st) % 100000) / 100000.0; }

static void must(sinew_graph_t *g, int rc, const char *what) {
  if (rc) fail_msg("%s: %s", what, sinew_graph_errmsg(g));
}

/* A random DAG of mix, mixAlone and joint nodes, made the same way from the same seed. */
typedef struct rgraph {
  sinew_graph_t *g;
  sinew_node_t nodes[160];
  int kind[160]; /* 0 mix, 1 mixAlone, 2 joint */
  int n;
  sinew_plug_t outs[800];
  int nouts;
} rgraph;

static void rgraph_build(rgraph *r, uint64_t seed, int n) {
  uint64_t st = seed;
  assert_int_equal(sinew_scene_create(NULL, &r->g), 0);
  register_mix(r->g);
  sinew_graph_t *g = r->g;
  r->n = n;
  r->nouts = 0;
  int last_joint = -1;
  for (int k = 0; k < n; k++) {
    int kind = (int)(rng_next(&st) % 10);
    kind = kind < 7 ? 0 : kind < 8 ? 1 : 2;
    r->kind[k] = kind;
    if (kind == 2 && last_joint >= 0 && rng_next(&st) % 3)
      must(g, sinew_node_create_under(g, "joint", NULL, r->nodes[last_joint], &r->nodes[k]), "joint");
    else
      must(g, sinew_node_create(g, kind == 0 ? "mix" : kind == 1 ? "mixAlone" : "joint", NULL, &r->nodes[k]),
           "createNode");
    if (kind == 2) last_joint = k;
    sinew_node_t node = r->nodes[k];
    if (kind == 2) {
      sinew_plug_t rx, tx, opm;
      must(g, sinew_plug_parse_attr(g, node, "rx", &rx), "rx");
      must(g, sinew_plug_parse_attr(g, node, "tx", &tx), "tx");
      must(g, sinew_plug_parse_attr(g, node, "opm", &opm), "opm");
      must(g, sinew_set_double(g, &tx, rng_unit(&st)), "set tx");
      must(g, sinew_set_double(g, &rx, rng_unit(&st)), "set rx");
      /* fed from an earlier mix */
      for (int tries = 0; tries < 4 && k > 0; tries++) {
        int src = (int)(rng_next(&st) % (uint64_t)k);
        if (r->kind[src] == 2) continue;
        sinew_plug_t so = sinew_plug_make(r->nodes[src], M_OUT, 0, NULL);
        sinew_plug_t som = sinew_plug_make(r->nodes[src], M_OM, 0, NULL);
        if (rng_next(&st) % 2) must(g, sinew_connect(g, &so, &rx, 0, NULL), "connect rx");
        else must(g, sinew_connect(g, &som, &opm, 0, NULL), "connect opm");
        break;
      }
      sinew_plug_t wm;
      must(g, sinew_plug_parse_attr(g, node, "wm[0]", &wm), "wm");
      r->outs[r->nouts++] = wm;
      continue;
    }
    sinew_plug_t pa = sinew_plug_make(node, M_A, 0, NULL), pb = sinew_plug_make(node, M_B, 0, NULL);
    must(g, sinew_set_double(g, &pa, rng_unit(&st)), "set a");
    must(g, sinew_set_double(g, &pb, rng_unit(&st)), "set b");
    for (int j = 0; j < 3; j++) {
      sinew_plug_t e = sinew_plug_make(node, M_INS, 1, (int32_t[]){j});
      must(g, sinew_set_double(g, &e, rng_unit(&st)), "set ins");
    }
    int nconn = k ? (int)(rng_next(&st) % 4) : 0;
    for (int c = 0; c < nconn; c++) {
      int src = (int)(rng_next(&st) % (uint64_t)k);
      sinew_node_t sn = r->nodes[src];
      int what = (int)(rng_next(&st) % 4);
      sinew_plug_t from, to;
      if (r->kind[src] == 2) { /* a joint's world matrix into m, or its translateX into b */
        if (what % 2) {
          must(g, sinew_plug_parse_attr(g, sn, "wm[0]", &from), "wm");
          to = sinew_plug_make(node, M_M, 0, NULL);
        } else {
          must(g, sinew_plug_parse_attr(g, sn, "tx", &from), "tx");
          to = sinew_plug_make(node, M_B, 0, NULL);
        }
      } else if (what == 0) {
        from = sinew_plug_make(sn, M_OUT, 0, NULL);
        to = sinew_plug_make(node, M_A, 0, NULL);
      } else if (what == 1) {
        from = sinew_plug_make(sn, M_OM, 0, NULL);
        to = sinew_plug_make(node, M_M, 0, NULL);
      } else {
        int32_t j = (int32_t)(rng_next(&st) % 3);
        from = sinew_plug_make(sn, M_OUTS, 1, &j);
        to = sinew_plug_make(node, M_INS, 1, &j);
      }
      if (sinew_plug_source(g, &to, NULL)) continue; /* fed already */
      must(g, sinew_connect(g, &from, &to, 0, NULL), "connect");
    }
    r->outs[r->nouts++] = sinew_plug_make(node, M_OUT, 0, NULL);
    r->outs[r->nouts++] = sinew_plug_make(node, M_OM, 0, NULL);
    for (int32_t j = 0; j < 3; j++) r->outs[r->nouts++] = sinew_plug_make(node, M_OUTS, 1, &j);
  }
}

/* Every output of both graphs, bitwise. */
static void rgraph_compare(rgraph *s, rgraph *p) {
  assert_int_equal(s->nouts, p->nouts);
  for (int i = 0; i < s->nouts; i++) {
    sinew_mat4_t ms, mp;
    double ds = 0, dp = 1;
    sinew_attr_info_t info;
    must(s->g, sinew_node_attr_info(s->g, s->outs[i].node, s->outs[i].attr, &info), "info");
    if (info.type == SINEW_ATTR_MATRIX) {
      must(s->g, sinew_get_matrix(s->g, &s->outs[i], &ms), "get");
      must(p->g, sinew_get_matrix(p->g, &p->outs[i], &mp), "get");
      assert_memory_equal(&ms, &mp, sizeof ms);
    } else {
      must(s->g, sinew_get_double(s->g, &s->outs[i], &ds), "get");
      must(p->g, sinew_get_double(p->g, &p->outs[i], &dp), "get");
      assert_memory_equal(&ds, &dp, sizeof ds);
    }
  }
}

static void test_parallel_random_graphs(void **state) {
  (void)state;
  assert_int_equal(sinew_pool_set_threads(4), 0);
  for (uint64_t seed = 1; seed <= 12; seed++) {
    rgraph s, p;
    rgraph_build(&s, seed, 40 + (int)(seed * 9));
    rgraph_build(&p, seed, 40 + (int)(seed * 9));
    uint64_t st = seed * 977;
    for (int round = 0; round < 6; round++) {
      sinew_graph_reset_stats(s.g);
      sinew_graph_reset_stats(p.g);
      atomic_store(&alone_overlaps, 0);
      /* serial: each output pulled in turn; parallel: all at once */
      for (int i = 0; i < s.nouts; i++) must(s.g, sinew_evaluate(s.g, &s.outs[i]), "evaluate");
      must(p.g, sinew_evaluate_parallel(p.g, p.outs, (size_t)p.nouts), "evaluate_parallel");
      for (int i = 0; i < p.nouts; i++) assert_false(sinew_plug_is_dirty(p.g, &p.outs[i]));
      sinew_graph_stats_t ss, ps;
      sinew_graph_stats(s.g, &ss);
      sinew_graph_stats(p.g, &ps);
      assert_int_equal(ss.computes, ps.computes); /* each dirty plug computed once, as serially */
      assert_int_equal(ss.copies, ps.copies);
      assert_int_equal(atomic_load(&alone_overlaps), 0);
      for (int k = 0; k < s.n; k++) {
        if (s.kind[k] == 2) continue;
        assert_int_equal(((mix_state *)sinew_node_state(s.g, s.nodes[k]))->computes,
                         ((mix_state *)sinew_node_state(p.g, p.nodes[k]))->computes);
      }
      rgraph_compare(&s, &p);
      /* a new pose: a few inputs change in both */
      for (int c = 0; c < 5; c++) {
        int k = (int)(rng_next(&st) % (uint64_t)s.n);
        double v = rng_unit(&st);
        const char *attr = s.kind[k] == 2 ? "ry" : "b";
        sinew_plug_t ps_, pp_;
        must(s.g, sinew_plug_parse_attr(s.g, s.nodes[k], attr, &ps_), attr);
        must(p.g, sinew_plug_parse_attr(p.g, p.nodes[k], attr, &pp_), attr);
        if (sinew_plug_source(s.g, &ps_, NULL)) continue;
        must(s.g, sinew_set_double(s.g, &ps_, v), "set");
        must(p.g, sinew_set_double(p.g, &pp_, v), "set");
      }
    }
    /* nothing is left marked: a serial read after a parallel one computes nothing */
    must(p.g, sinew_evaluate_parallel(p.g, p.outs, (size_t)p.nouts), "evaluate_parallel");
    sinew_graph_reset_stats(p.g);
    for (int i = 0; i < p.nouts; i++) must(p.g, sinew_evaluate(p.g, &p.outs[i]), "evaluate");
    sinew_graph_stats_t ps;
    sinew_graph_stats(p.g, &ps);
    assert_int_equal(ps.computes, 0);
    sinew_graph_destroy(s.g);
    sinew_graph_destroy(p.g);
  }
  assert_int_equal(sinew_pool_set_threads(0), 0);
}

/* A compute declared parallel that reads a dirty plug it does not declare gets its stale value
 * and a warning, instead of evaluating other nodes from a worker. */
static int log_counts[SINEW_LOG_ID_MAX];

static void count_log(void *ud, sinew_log_level_t level, sinew_log_id_t id, const char *msg) {
  (void)ud;
  (void)level;
  (void)msg;
  if ((unsigned)id < SINEW_LOG_ID_MAX) log_counts[id]++;
}

static int sneaky_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != M_OUT) return SINEW_EUNKNOWN_PLUG;
  double h = -1;
  sinew_plug_t hp = sinew_plug_make(sinew_compute_node(ctx), M_HIDDEN, 0, NULL);
  int rc = sinew_get_double(sinew_compute_graph(ctx), &hp, &h);
  return rc ? rc : sinew_compute_set_double(ctx, plug, h);
}

/* Time curves with no time connected read the scene's time node, which the first of them makes
 * when there is none: they compute alone, so a parallel evaluation makes exactly one time node
 * (on a worker thread it raced with the other workers' name lookups) and gives the serial
 * values. */
static sinew_graph_t *time_curves(int n, sinew_plug_t *outs) {
  sinew_graph_t *g;
  assert_int_equal(sinew_graph_create(NULL, &g), 0);
  assert_int_equal(sinew_nodes_register(g), 0);
  for (int i = 0; i < n; i++) {
    char name[32], text[64];
    sinew_node_t c;
    snprintf(name, sizeof name, "c%d", i);
    assert_int_equal(sinew_node_create(g, "animCurveTL", name, &c), 0);
    double k0[2] = {-10, 0}, k1[2] = {10, i};
    snprintf(text, sizeof text, "%s.ktv[0]", name);
    sinew_plug_t p = P(g, text);
    assert_int_equal(sinew_set_doubles(g, &p, k0, 2), 0);
    snprintf(text, sizeof text, "%s.ktv[1]", name);
    p = P(g, text);
    assert_int_equal(sinew_set_doubles(g, &p, k1, 2), 0);
    snprintf(text, sizeof text, "%s.output", name);
    outs[i] = P(g, text);
  }
  return g;
}

static void test_parallel_time_curves_make_one_time_node(void **state) {
  (void)state;
  enum { N = 200 };
  sinew_plug_t outs[N], souts[N];
  assert_int_equal(sinew_pool_set_threads(4), 0);
  sinew_graph_t *g = time_curves(N, outs), *serial = time_curves(N, souts);
  assert_int_equal(sinew_evaluate_parallel(g, outs, N), 0);
  sinew_node_t tn[4];
  assert_int_equal(sinew_node_list_type(g, "time", false, tn, 4), 1);
  for (int i = 0; i < N; i++) {
    double a, b;
    assert_int_equal(sinew_get_double(g, &outs[i], &a), 0);
    assert_int_equal(sinew_get_double(serial, &souts[i], &b), 0);
    assert_true(a == b);
    if (i == N - 1) assert_true(a > 0 && a < N - 1); /* halfway between its keys' values */
  }
  sinew_graph_destroy(g);
  sinew_graph_destroy(serial);
  assert_int_equal(sinew_pool_set_threads(0), 0);
}

static void test_parallel_undeclared_read(void **state) {
  (void)state;
  assert_int_equal(sinew_pool_set_threads(2), 0);
  sinew_graph_t *g;
  assert_int_equal(sinew_scene_create(NULL, &g), 0);
  register_mix(g);
  sinew_node_type_desc_t d = {.name = "sneaky", .flags = SINEW_NODE_TYPE_PARALLEL, .attrs = mix_attrs,
                              .attr_count = sizeof mix_attrs / sizeof *mix_attrs, .affects = mix_affects,
                              .affects_count = sizeof mix_affects / sizeof *mix_affects,
                              .compute = sneaky_compute};
  assert_int_equal(sinew_register_node_type(g, &d, NULL), 0);
  sinew_node_t src, sn;
  assert_int_equal(sinew_node_create(g, "mix", "src", &src), 0);
  assert_int_equal(sinew_node_create(g, "sneaky", "sn", &sn), 0);
  sinew_graph_set_logger(g, count_log, NULL);
  memset(log_counts, 0, sizeof log_counts);
  setd(g, "src.b", 2);       /* src.out = 0.7 * 4 */
  sinew_plug_t so = P(g, "src.out"), sh = P(g, "sn.hidden"), out = P(g, "sn.out");
  assert_int_equal(sinew_connect(g, &so, &sh, 0, NULL), 0);
  setd(g, "sn.a", 1); /* sn.out dirty; sn.hidden dirty, not declared */
  assert_int_equal(sinew_evaluate_parallel(g, &out, 1), 0);
  assert_int_equal(log_counts[SINEW_LOG_EVAL_UNDECLARED], 1);
  double v;
  assert_int_equal(sinew_get_double(g, &out, &v), 0);
  assert_true(v == 0.0); /* the stale (default) value of sn.hidden */
  /* serial evaluation of the same pulls it */
  setd(g, "sn.a", 2);
  assert_true(getd(g, "sn.out") == 0.7 * 4);
  assert_int_equal(log_counts[SINEW_LOG_EVAL_UNDECLARED], 1);
  /* bad input */
  assert_int_equal(sinew_evaluate_parallel(g, NULL, 1), SINEW_EINVAL);
  sinew_plug_t bad = sinew_plug_make(sn, 9999, 0, NULL);
  assert_int_equal(sinew_evaluate_parallel(g, &bad, 1), SINEW_ENOTFOUND);
  assert_int_equal(sinew_evaluate_parallel(g, NULL, 0), 0);
  sinew_graph_destroy(g);
  assert_int_equal(sinew_pool_set_threads(0), 0);
}

/* The corpus rigs: every computed top-level plug (the first element of an array), evaluated
 * serially in one session and all at once in parallel in another, read back bitwise. */
static const char *const corpus_rigs[] = {
    "omtk/rig_example_02_built.ma",
    "nlol/standalone_modules_digitigrade_leg_mod_example.ma",
    "nlol/standalone_modules_spline_curve_tail_example.ma",
    "maya-usd/UsdExportEulerFilterTest.ma",
    "maya-usd/UsdExportSkeleton.ma",
    "maya-usd/rig_with_opm/offset_parent_matrix_rig.ma",
    "mldeform/Cylinder.ma",
    "ffda/CylinderTest.ma",
    "maya-skin-truth/dual_quaternion.ma",
    "avalon/hulk_Bruce_rigDefault_v004_rigDefault.ma",
    /* constraints, utility and matrix nodes, animation curves, blendTwoAttr, IK, blendShape */
    "omtk/limb2/limb2.ma",
    "nlol/standalone_modules_flexi_surface_fk_ctrl_mod_v2_example.ma",
    "maya-usd/blendShapesExport.ma",
    "mel:cluster, pairBlend, blendWeighted, animation layer blend",
};

/* The parallel types that no corpus rig uses, in one scene: a cluster on a cube, and a pairBlend,
 * a blendWeighted and an additive layer blend node driving a transform, each fed by a curve
 * keyed on time so every frame changes them. */
static const char scene_blends[] =
    "polyCube -n box -sx 2 -sy 2 -sz 2;\n"
    "cluster -n clu box;\n"
    "setAttr clu.envelope 0.75;\n"
    "createNode transform -n drv;\n"
    "createNode pairBlend -n pb;\n"
    "setAttr pb.inTranslate1 1 2 3; setAttr pb.inTranslate2 -1 0 5; setAttr pb.inRotate2 30 10 0;\n"
    "connectAttr pb.outTranslate drv.translate; connectAttr pb.outRotate drv.rotate;\n"
    "createNode blendWeighted -n bw;\n"
    "setAttr bw.input[0] 2; setAttr bw.weight[0] 0.5; setAttr bw.input[3] 4; setAttr bw.weight[3] 0.25;\n"
    "connectAttr bw.output drv.scaleX;\n"
    "createNode animBlendNodeAdditiveDL -n ab;\n"
    "setAttr ab.inputA 1.5; setAttr ab.inputB 0.25;\n"
    "connectAttr ab.output cluHandle.translateY;\n"
    "createNode animCurveTU -n key1; setAttr -s 2 key1.ktv[0:1] 1 0 12 1;\n"
    "connectAttr key1.output pb.weight; connectAttr key1.output ab.weightB;\n"
    "connectAttr key1.output bw.weight[1]; setAttr bw.input[1] 3;\n"
    "connectAttr drv.rotate cluHandle.rotate; connectAttr drv.translateX cluHandle.translateX;\n";

static sinew_session_t *open_rig(const char *rel) {
  sinew_session_t *s = NULL;
  assert_int_equal(sinew_session_create(NULL, &s), SINEW_OK);
  if (!strncmp(rel, "mel:", 4)) {
    if (sinew_session_run(s, scene_blends, strlen(scene_blends), "scene_blends", NULL))
      fail_msg("%s: %s", rel, sinew_session_errmsg(s));
    return s;
  }
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", SINEW_TEST_DATA_DIR, rel);
  if (sinew_session_open(s, path)) fail_msg("%s: %s", path, sinew_session_errmsg(s));
  return s;
}

static size_t computed_plugs(sinew_graph_t *g, sinew_plug_t *out, size_t cap) {
  size_t n = 0;
  for (sinew_node_t it = {0, 0}; sinew_node_next(g, &it);) {
    uint32_t na = sinew_node_attr_count(g, it);
    for (uint32_t a = 0; a < na; a++) {
      sinew_attr_info_t info;
      if (sinew_node_attr_info(g, it, a, &info) || !info.computed || info.parent != UINT32_MAX) continue;
      if (info.type == SINEW_ATTR_MESSAGE || info.type == SINEW_ATTR_COMPOUND) continue;
      bool arr = (info.flags & SINEW_ATTR_ARRAY) != 0;
      if (n < cap) out[n] = sinew_plug_make(it, a, arr ? 1 : 0, (const int32_t[]){0});
      n++;
    }
  }
  return n;
}

static void same_value(sinew_graph_t *gs, sinew_graph_t *gp, const sinew_plug_t *p, const char *rig) {
  sinew_attr_info_t info;
  assert_int_equal(sinew_node_attr_info(gs, p->node, p->attr, &info), 0);
  char name[512];
  sinew_plug_format(gs, p, false, name, sizeof name);
  if (info.type == SINEW_ATTR_MATRIX) {
    sinew_mat4_t a, b;
    must(gs, sinew_get_matrix(gs, p, &a), name);
    must(gp, sinew_get_matrix(gp, p, &b), name);
    if (memcmp(&a, &b, sizeof a)) fail_msg("%s: %s differs", rig, name);
  } else if (sinew_attr_type_is_numeric(info.type)) {
    double a, b;
    must(gs, sinew_get_double(gs, p, &a), name);
    must(gp, sinew_get_double(gp, p, &b), name);
    if (memcmp(&a, &b, sizeof a)) fail_msg("%s: %s differs (%.17g, %.17g)", rig, name, a, b);
  } else if (info.type == SINEW_ATTR_STRING) {
    const char *a, *b;
    must(gs, sinew_get_string(gs, p, &a), name);
    must(gp, sinew_get_string(gp, p, &b), name);
    if (strcmp(a, b)) fail_msg("%s: %s differs", rig, name);
  } else if (info.type == SINEW_ATTR_DATA) {
    sinew_data_t *a = NULL, *b = NULL;
    must(gs, sinew_get_data(gs, p, &a), name);
    must(gp, sinew_get_data(gp, p, &b), name);
    const sinew_mesh_t *ma = a ? sinew_mesh_get(a) : NULL, *mb = b ? sinew_mesh_get(b) : NULL;
    if ((ma == NULL) != (mb == NULL)) fail_msg("%s: %s: mesh on one side only", rig, name);
    if (ma) {
      assert_int_equal(ma->npoints, mb->npoints);
      if (memcmp(ma->points, mb->points, 3 * sizeof(float) * ma->npoints)) fail_msg("%s: %s points differ", rig, name);
    }
    sinew_data_unref(a);
    sinew_data_unref(b);
  }
}

static void test_parallel_corpus_rigs(void **state) {
  (void)state;
  assert_int_equal(sinew_pool_set_threads(3), 0);
  size_t total = 0;
  for (size_t r = 0; r < sizeof corpus_rigs / sizeof *corpus_rigs; r++) {
    sinew_session_t *ss = open_rig(corpus_rigs[r]), *sp = open_rig(corpus_rigs[r]);
    sinew_graph_t *gs = sinew_session_graph(ss), *gp = sinew_session_graph(sp);
    uint64_t computes = 0;
    /* a compute running beside others that reads what its type did not declare is logged */
    sinew_graph_set_logger(gp, count_log, NULL);
    memset(log_counts, 0, sizeof log_counts);
    for (int frame = 3; frame <= 11; frame += 4) {
      must(gs, sinew_time_set_frame(gs, frame), "time");
      must(gp, sinew_time_set_frame(gp, frame), "time");
      size_t n = computed_plugs(gs, NULL, 0);
      sinew_plug_t *plugs = calloc(n ? n : 1, sizeof *plugs);
      assert_non_null(plugs);
      assert_int_equal(computed_plugs(gs, plugs, n), n);
      /* the two sessions made the same nodes in the same slots: the plugs name both */
      assert_int_equal(computed_plugs(gp, NULL, 0), n);
      sinew_graph_reset_stats(gs);
      sinew_graph_reset_stats(gp);
      for (size_t i = 0; i < n; i++) must(gs, sinew_evaluate(gs, &plugs[i]), corpus_rigs[r]);
      must(gp, sinew_evaluate_parallel(gp, plugs, n), corpus_rigs[r]);
      for (size_t i = 0; i < n; i++) assert_false(sinew_plug_is_dirty(gp, &plugs[i]));
      sinew_graph_stats_t a, b;
      sinew_graph_stats(gs, &a);
      sinew_graph_stats(gp, &b);
      assert_int_equal(a.computes, b.computes);
      computes += a.computes;
      for (size_t i = 0; i < n; i++) same_value(gs, gp, &plugs[i], corpus_rigs[r]);
      total += n;
      free(plugs);
    }
    if (!computes) fail_msg("%s: nothing computed", corpus_rigs[r]);
    if (log_counts[SINEW_LOG_EVAL_UNDECLARED])
      fail_msg("%s: %d undeclared reads in parallel", corpus_rigs[r], log_counts[SINEW_LOG_EVAL_UNDECLARED]);
    sinew_session_destroy(ss);
    sinew_session_destroy(sp);
  }
  assert_true(total > 1000);
  assert_int_equal(sinew_pool_set_threads(0), 0);
}

/* ---- the evaluator looks at the dirty inputs only --------------------------------------------- */

#define SUM_INPUTS 70 /* more than the 64 slots a node tracks, with the base type's attributes */
static uint32_t SUM_IN0, SUM_OUT;

static int sum_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != SUM_OUT) return SINEW_EUNKNOWN_PLUG;
  double total = 0, v;
  for (uint32_t k = 0; k < SUM_INPUTS; k++) {
    int rc = sinew_compute_get_double(ctx, SUM_IN0 + k, &v);
    if (rc) return rc;
    total += v;
  }
  return sinew_compute_set_double(ctx, plug, total);
}

/* output = the sum of 70 inputs, each declared to affect it. An input fed by a connection whose
 * source changed is dirty; the next pull looks at that input alone among the node's first 64
 * slots (the inputs beyond them are looked at one by one), and the sum is right whichever input
 * changed. An input set by value is clean (setting it dirtied what it affects), so the node
 * that feeds it looks at none of its tracked inputs. */
static void test_inputs_checked_follow_dirt(void **state) {
  (void)state;
  sinew_attr_desc_t attrs[SUM_INPUTS + 1];
  sinew_affects_t aff[SUM_INPUTS];
  char names[SUM_INPUTS][8];
  for (int k = 0; k < SUM_INPUTS; k++) {
    snprintf(names[k], sizeof names[k], "i%d", k);
    attrs[k] = (sinew_attr_desc_t){.name = names[k], .type = SINEW_ATTR_DOUBLE};
    aff[k] = (sinew_affects_t){names[k], "output"};
  }
  attrs[SUM_INPUTS] = (sinew_attr_desc_t){.name = "output", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT};
  sinew_graph_t *g;
  assert_int_equal(sinew_graph_create(NULL, &g), 0);
  const sinew_node_type_t *t;
  assert_int_equal(sinew_register_node_type(g, &(sinew_node_type_desc_t){.name = "sum70", .attrs = attrs,
                   .attr_count = SUM_INPUTS + 1, .affects = aff, .affects_count = SUM_INPUTS,
                   .compute = sum_compute}, &t), 0);
  SUM_IN0 = sinew_node_type_attr(t, "i0");
  SUM_OUT = sinew_node_type_attr(t, "output");
  /* the base type's attributes are all top level, so i0's id is its slot: inputs from slot 64 on
   * are beyond the tracked ones */
  uint64_t wide = SUM_IN0 + SUM_INPUTS > 64 ? SUM_IN0 + SUM_INPUTS - 64 : 0;
  assert_true(wide > 0);
  uint32_t changed[] = {3, 40, SUM_INPUTS - 1, 0};
  enum { NCHANGED = sizeof changed / sizeof *changed };
  sinew_node_t n, src[NCHANGED];
  assert_int_equal(sinew_node_create(g, "sum70", "s", &n), 0);
  for (int c = 0; c < NCHANGED; c++) {
    assert_int_equal(sinew_node_create(g, "sum70", "src#", &src[c]), 0);
    sinew_plug_t from = sinew_plug_make(src[c], SUM_OUT, 0, NULL);
    sinew_plug_t to = sinew_plug_make(n, SUM_IN0 + changed[c], 0, NULL);
    assert_int_equal(sinew_connect(g, &from, &to, 0, NULL), 0);
  }
  sinew_plug_t out = sinew_plug_make(n, SUM_OUT, 0, NULL);
  double v, expect = 0;
  assert_int_equal(sinew_get_double(g, &out, &v), 0);
  assert_true(v == 0);
  for (int c = 0; c < NCHANGED; c++) {
    sinew_plug_t in = sinew_plug_make(src[c], SUM_IN0, 0, NULL);
    assert_int_equal(sinew_set_double(g, &in, 1.5 + (double)c), 0);
    expect += 1.5 + (double)c;
    sinew_graph_reset_stats(g);
    assert_int_equal(sinew_get_double(g, &out, &v), 0);
    assert_true(v == expect);
    sinew_graph_stats_t st;
    sinew_graph_stats(g, &st);
    assert_int_equal(st.computes, 2); /* the source and the sum */
    /* the sum: the changed input's slot when it is tracked, and every untracked slot; the
     * source: its untracked slots only */
    uint64_t tracked = SUM_IN0 + changed[c] < 64;
    assert_int_equal(st.inputs_checked, tracked + 2 * wide);
  }
  sinew_graph_destroy(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reads_by_id),
      cmocka_unit_test(test_peek_kept_output),
      cmocka_unit_test(test_reads_by_id_refuse),
      cmocka_unit_test(test_world_from_kept_local),
      cmocka_unit_test(test_inputs_checked_follow_dirt),
      cmocka_unit_test(test_parallel_random_graphs),
      cmocka_unit_test(test_parallel_undeclared_read),
      cmocka_unit_test(test_parallel_time_curves_make_one_time_node),
      cmocka_unit_test(test_parallel_corpus_rigs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
