/* tests/test_deformer_chain.c: the nodes Maya puts around every deformer (groupId, groupParts,
 * tweak): their names as Maya files write them, pass-through without a copy (the same block),
 * tweak offsets (vlist and sparse plist controlPoints) scaled by envelope 0 / 0.5 / 1, several
 * geometries, normals, a worldMesh source read as local points, dirty propagation (an offset
 * re-runs the skin; a joint does not re-run the tweak), steady state and allocation failure, bad
 * input; and real Maya scenes (tests/data; a missing file fails the test) whose skinClusters are
 * fed through groupParts + tweak + groupParts: at their bind pose the skinned output equals the
 * Orig's points, a tweak offset shows through, and a turned joint moves the output. */
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

#include "nodes/nodes_internal.h"
#include "sinew/cmds.h"
#include "sinew/sinew.h"
#include "tests/support.h"

/* ---- helpers ------------------------------------------------------------------------------- */

static sinew_graph_t *scene(void) {
  sinew_graph_t *g = NULL;
  assert_int_equal(sinew_scene_create(NULL, &g), 0);
  return g;
}

static sinew_node_t node(sinew_graph_t *g, const char *type, const char *name) {
  sinew_node_t n;
  if (sinew_node_create(g, type, name, &n)) fail_msg("create %s: %s", type, sinew_graph_errmsg(g));
  return n;
}

static sinew_plug_t plug(sinew_graph_t *g, sinew_node_t n, const char *attr) {
  sinew_plug_t p;
  if (sinew_plug_parse_attr(g, n, attr, &p)) fail_msg("%s: %s", attr, sinew_graph_errmsg(g));
  return p;
}

static void set3(sinew_graph_t *g, sinew_node_t n, const char *attr, double x, double y, double z) {
  sinew_plug_t p = plug(g, n, attr);
  double v[3] = {x, y, z};
  if (sinew_set_doubles(g, &p, v, 3)) fail_msg("%s: %s", attr, sinew_graph_errmsg(g));
}

static void set1(sinew_graph_t *g, sinew_node_t n, const char *attr, double v) {
  sinew_plug_t p = plug(g, n, attr);
  if (sinew_set_double(g, &p, v)) fail_msg("%s: %s", attr, sinew_graph_errmsg(g));
}

static void conn(sinew_graph_t *g, sinew_node_t a, const char *pa, sinew_node_t b, const char *pb) {
  sinew_plug_t s = plug(g, a, pa), d = plug(g, b, pb);
  if (sinew_connect(g, &s, &d, 0, NULL)) fail_msg("%s -> %s: %s", pa, pb, sinew_graph_errmsg(g));
}

/* A new reference to the data a plug holds (NULL when none). */
static sinew_data_t *get(sinew_graph_t *g, sinew_node_t n, const char *attr) {
  sinew_plug_t p = plug(g, n, attr);
  sinew_data_t *d = NULL;
  if (sinew_get_data(g, &p, &d)) fail_msg("%s: %s", attr, sinew_graph_errmsg(g));
  return d;
}

static void assert_near(double a, double b, double tol) {
  if (!(fabs(a - b) <= tol)) fail_msg("%.9g != %.9g (tolerance %g)", a, b, tol);
}

/* Point i of `out` equals point i of `in` plus (dx, dy, dz). */
static void assert_moved(const sinew_data_t *out, const sinew_data_t *in, uint32_t i, double dx, double dy,
                         double dz) {
  const float *a = sinew_mesh_get(out)->points + 3 * i, *b = sinew_mesh_get(in)->points + 3 * i;
  assert_near(a[0], b[0] + dx, 1e-6);
  assert_near(a[1], b[1] + dy, 1e-6);
  assert_near(a[2], b[2] + dz, 1e-6);
}

static double max_diff(const sinew_data_t *a, const sinew_data_t *b) {
  const sinew_mesh_t *ma = sinew_mesh_get(a), *mb = sinew_mesh_get(b);
  assert_non_null(ma);
  assert_non_null(mb);
  assert_int_equal(ma->npoints, mb->npoints);
  double d = 0;
  for (size_t i = 0; i < 3 * (size_t)ma->npoints; i++) d = fmax(d, fabs((double)ma->points[i] - mb->points[i]));
  return d;
}

static sinew_data_t *cube(void) {
  sinew_data_t *m = NULL;
  assert_int_equal(sinew_mesh_cube(2, 2, 2, 1, 1, 1, &m), 0);
  return m;
}

/* A tweak whose input[0] holds `m`. */
static sinew_node_t tweak_on(sinew_graph_t *g, sinew_data_t *m) {
  sinew_node_t t = node(g, "tweak", "tweak1");
  sinew_plug_t ig = plug(g, t, "ip[0].ig");
  assert_int_equal(sinew_set_data(g, &ig, m), 0);
  return t;
}

/* ---- types and names --------------------------------------------------------------------------- */

static void test_types(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  static const char *const types[] = {"groupId", "groupParts", "tweak"};
  for (size_t i = 0; i < 3; i++) {
    const sinew_node_type_t *t = sinew_find_node_type(g, types[i]);
    assert_non_null(t);
    assert_false(sinew_node_type_flags(t) & (SINEW_NODE_TYPE_PLACEHOLDER | SINEW_NODE_TYPE_ABSTRACT));
  }
  assert_true(sinew_node_type_is_a(sinew_find_node_type(g, "tweak"), "geometryFilter"));
  assert_int_equal(sinew__register_deformer_chain_types(g), 0); /* a second registration is harmless */
  sinew_node_t gid = node(g, "groupId", "groupId1"), gp = node(g, "groupParts", "groupParts1");
  sinew_node_t tw = node(g, "tweak", "tweak1"), sk = node(g, "skinCluster", "skinCluster1");
  /* long and short names as Maya writes them, on each node */
  static const struct {
    int node;
    const char *a, *b;
  } names[] = {
      {0, "groupId", "id"},
      {1, "inputGeometry", "ig"},
      {1, "outputGeometry", "og"},
      {1, "inputComponents", "ic"},
      {1, "inputRemoveComponent", "irc"},
      {1, "groupId", "gi"},
      {2, "relativeTweak", "rtw"},
      {2, "plist[0].controlPoints[3].xValue", "pl[0].cp[3].xv"},
      {2, "plist[0].controlPoints[3].zValue", "pl[0].cp[3].zv"},
      {2, "vlist[1].vertex[7].xVertex", "vl[1].vt[7].vx"},
      {2, "vlist[1].vertex[7].zVertex", "vl[1].vt[7].vz"},
      {2, "input[2].inputGeometry", "ip[2].ig"},
      {2, "input[2].groupId", "ip[2].gi"},
      {2, "outputGeometry[2]", "og[2]"},
      {2, "envelope", "en"},
      {3, "input[0].groupId", "ip[0].gi"},
  };
  sinew_node_t nodes[] = {gid, gp, tw, sk};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    sinew_plug_t a = plug(g, nodes[names[i].node], names[i].a), b = plug(g, nodes[names[i].node], names[i].b);
    if (!sinew_plug_equal(&a, &b)) fail_msg("%s and %s name different plugs", names[i].a, names[i].b);
  }
  /* defaults and kinds */
  sinew_attr_info_t info;
  assert_int_equal(sinew_node_attr_info(g, gp, sinew_node_attr(g, gp, "ic"), &info), 0);
  assert_int_equal(info.type, SINEW_ATTR_DATA);
  assert_string_equal(info.data_type->name, "componentList");
  assert_int_equal(sinew_node_attr_info(g, gp, sinew_node_attr(g, gp, "gi"), &info), 0);
  assert_near(info.default_value, -1, 0);
  assert_int_equal(sinew_node_attr_info(g, tw, sinew_node_attr(g, tw, "xv"), &info), 0);
  assert_int_equal(info.type, SINEW_ATTR_DISTANCE); /* plist: doubles in scene units */
  assert_int_equal(sinew_node_attr_info(g, tw, sinew_node_attr(g, tw, "vx"), &info), 0);
  assert_int_equal(info.type, SINEW_ATTR_FLOAT);
  bool rtw = false;
  sinew_plug_t prtw = plug(g, tw, "rtw");
  assert_int_equal(sinew_get_bool(g, &prtw, &rtw), 0);
  assert_true(rtw);
  /* outputs are computed, not set */
  sinew_plug_t og = plug(g, gp, "og");
  assert_int_equal(sinew_set_data(g, &og, NULL), SINEW_EREADONLY);
  /* groupId feeds the deformers' and groupParts' groupId */
  set1(g, gid, "id", 7);
  conn(g, gid, "id", gp, "gi");
  conn(g, gid, "id", tw, "ip[0].gi");
  conn(g, gid, "id", sk, "ip[0].gi");
  int64_t v = 0;
  sinew_plug_t p = plug(g, sk, "ip[0].gi");
  assert_int_equal(sinew_get_int(g, &p, &v), 0);
  assert_int_equal(v, 7);
  p = plug(g, gp, "gi");
  assert_int_equal(sinew_get_int(g, &p, &v), 0);
  assert_int_equal(v, 7);
  sinew_graph_destroy(g);
}

/* tweak is registered after geometryFilter; without it the registration says so. */
static void test_registration_order(void **state) {
  (void)state;
  sinew_graph_t *g = NULL;
  assert_int_equal(sinew_graph_create(NULL, &g), 0);
  assert_int_equal(sinew__register_deformer_chain_types(g), SINEW_EINVAL);
  assert_non_null(strstr(sinew_graph_errmsg(g), "geometryFilter"));
  assert_null(sinew_find_node_type(g, "groupId"));
  sinew_graph_destroy(g);
}

/* ---- groupParts ---------------------------------------------------------------------------- */

static void test_group_parts_pass_through(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  sinew_node_t a = node(g, "groupParts", "groupParts1"), b = node(g, "groupParts", "groupParts2");
  sinew_data_t *none = get(g, a, "og");
  assert_null(none); /* nothing in, nothing out */
  sinew_data_t *m = cube();
  sinew_plug_t ig = plug(g, a, "ig");
  assert_int_equal(sinew_set_data(g, &ig, m), 0);
  conn(g, a, "og", b, "ig");
  unsigned before = sinew_data_refcount(m);
  sinew_data_t *out = get(g, b, "og");
  assert_ptr_equal(out, m); /* the block itself through two groupParts: nothing copied */
  /* references only: a.og, b.ig, b.og and ours */
  assert_int_equal(sinew_data_refcount(m), before + 4);
  sinew_data_unref(out);
  /* a new input flows through */
  sinew_data_t *m2 = cube();
  assert_int_equal(sinew_set_data(g, &ig, m2), 0);
  sinew_plug_t pog = plug(g, b, "og");
  assert_true(sinew_plug_is_dirty(g, &pog));
  out = get(g, b, "og");
  assert_ptr_equal(out, m2);
  sinew_data_unref(out);
  sinew_data_unref(m);
  sinew_data_unref(m2);
  sinew_graph_destroy(g);
}

/* Fed from a transformed shape's worldMesh (as Maya files connect Orig.w), the chain gets the
 * shape's local points, as Maya's deformers do; world points would be moved twice. */
static void test_world_mesh_source(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  sinew_node_t xf = node(g, "transform", "xf"), shape, gp = node(g, "groupParts", "gp"),
               tw = node(g, "tweak", "tw"), sk = node(g, "skinCluster", "sk");
  assert_int_equal(sinew_node_create_under(g, "mesh", "shapeOrig", xf, &shape), 0);
  sinew_data_t *m = cube();
  assert_int_equal(sinew_mesh_node_set(g, shape, m), 0);
  set3(g, xf, "t", 5, 0, 0);
  conn(g, shape, "w[0]", gp, "ig");
  conn(g, shape, "w[0]", tw, "ip[0].ig");
  conn(g, shape, "w[0]", sk, "ip[0].ig");
  sinew_data_t *local = get(g, shape, "o"), *world = get(g, shape, "w[0]");
  assert_near(max_diff(world, local), 5, 1e-6); /* sinew's worldMesh holds world points */
  sinew_data_t *o1 = get(g, gp, "og"), *o2 = get(g, tw, "og[0]"), *o3 = get(g, sk, "og[0]");
  assert_ptr_equal(o1, local);
  assert_ptr_equal(o2, local);
  assert_near(max_diff(o3, local), 0, 1e-6); /* no influences: the skin leaves the points */
  sinew_data_unref(o1);
  sinew_data_unref(o2);
  sinew_data_unref(o3);
  /* a tweak on the shape moves the chain's input; moving the transform does not (twice each:
   * the dirt must reach the chain again after it was pulled) */
  for (int round = 1; round <= 2; round++) {
    set3(g, shape, "pt[2]", 0, round, 0);
    o1 = get(g, gp, "og");
    assert_moved(o1, m, 2, 0, round, 0);
    sinew_data_unref(o1);
    set3(g, xf, "t", 5 + round, 0, 0);
    o1 = get(g, gp, "og");
    assert_moved(o1, m, 2, 0, round, 0);
    assert_moved(o1, m, 0, 0, 0, 0);
    sinew_data_unref(o1);
  }
  sinew_data_unref(local);
  sinew_data_unref(world);
  sinew_data_unref(m);
  sinew_graph_destroy(g);
}

/* ---- tweak --------------------------------------------------------------------------------- */

static void test_tweak_pass_through(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  sinew_data_t *m = cube();
  sinew_node_t t = tweak_on(g, m);
  sinew_data_t *out = get(g, t, "og[0]");
  assert_ptr_equal(out, m); /* no offsets: the input block, not a copy */
  sinew_data_unref(out);
  set3(g, t, "vl[0].vt[2]", 0, 0, 0); /* a zero offset moves nothing */
  set3(g, t, "pl[0].cp[9]", 1, 1, 1); /* beyond the cube's 8 points: ignored */
  set3(g, t, "vl[0].vt[100]", 1, 1, 1);
  out = get(g, t, "og[0]");
  assert_ptr_equal(out, m);
  sinew_data_unref(out);
  /* offsets with envelope 0, or the node switched off (nodeState HasNoEffect): the input */
  set3(g, t, "vl[0].vt[3]", 1, 2, 3);
  set1(g, t, "en", 0);
  out = get(g, t, "og[0]");
  assert_ptr_equal(out, m);
  sinew_data_unref(out);
  set1(g, t, "en", 1);
  set1(g, t, "nds", 1);
  out = get(g, t, "og[0]");
  assert_ptr_equal(out, m);
  sinew_data_unref(out);
  set1(g, t, "nds", 0);
  out = get(g, t, "og[0]");
  assert_ptr_not_equal(out, m);
  assert_moved(out, m, 3, 1, 2, 3);
  sinew_data_unref(out);
  /* an input that is not a mesh passes through as it is */
  static const sinew_data_type_t other = {.name = "nurbsCurve"};
  sinew_data_t *curve = NULL;
  assert_int_equal(sinew_data_create(&other, 16, &curve), 0);
  sinew_plug_t ig = plug(g, t, "ip[0].ig");
  assert_int_equal(sinew_set_data(g, &ig, curve), 0);
  out = get(g, t, "og[0]");
  assert_ptr_equal(out, curve);
  sinew_data_unref(out);
  /* no input: no output */
  assert_int_equal(sinew_set_data(g, &ig, NULL), 0);
  assert_null(get(g, t, "og[0]"));
  sinew_data_unref(curve);
  sinew_data_unref(m);
  sinew_graph_destroy(g);
}

static void test_tweak_envelope(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  sinew_data_t *m = cube();
  float first[24];
  memcpy(first, sinew_mesh_get(m)->points, sizeof first);
  sinew_node_t t = tweak_on(g, m);
  set3(g, t, "vl[0].vt[1]", 1, 2, 3);
  set3(g, t, "vl[0].vt[6]", -0.5, 0, 0.25);
  static const double envelopes[] = {1, 0.5, 0, 0.5, 2, -1};
  for (size_t e = 0; e < sizeof envelopes / sizeof *envelopes; e++) {
    double en = envelopes[e];
    set1(g, t, "en", en);
    sinew_data_t *out = get(g, t, "og[0]");
    if (en == 0) assert_ptr_equal(out, m);
    assert_int_equal(sinew_mesh_get(out)->npoints, 8);
    assert_ptr_equal(sinew_mesh_get(out)->topology, sinew_mesh_get(m)->topology); /* shared */
    for (uint32_t i = 0; i < 8; i++) {
      double d[3] = {0, 0, 0};
      if (i == 1) d[0] = 1, d[1] = 2, d[2] = 3;
      if (i == 6) d[0] = -0.5, d[2] = 0.25;
      assert_moved(out, m, i, en * d[0], en * d[1], en * d[2]);
    }
    sinew_data_unref(out);
  }
  assert_memory_equal(first, sinew_mesh_get(m)->points, sizeof first); /* the input is never written */
  sinew_data_unref(m);
  sinew_graph_destroy(g);
}

/* plist's controlPoints are sparse, set child by child or whole, and add to vlist's offsets. */
static void test_tweak_sparse_control_points(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  sinew_data_t *m = cube();
  sinew_node_t t = tweak_on(g, m);
  set3(g, t, "pl[0].cp[0]", 0, 1, 0);
  set3(g, t, "pl[0].cp[5]", 0, 0, -2);
  set1(g, t, "pl[0].cp[7].yv", 0.75); /* one child only: the others stay 0 */
  set3(g, t, "vl[0].vt[5]", 1, 0, 0);
  sinew_plug_t cp = plug(g, t, "pl[0].cp");
  assert_int_equal(sinew_plug_indices(g, &cp, NULL, 0), 3);
  sinew_data_t *out = get(g, t, "og[0]");
  assert_moved(out, m, 0, 0, 1, 0);
  assert_moved(out, m, 5, 1, 0, -2);
  assert_moved(out, m, 7, 0, 0.75, 0);
  for (uint32_t i = 1; i < 5; i++) assert_moved(out, m, i, 0, 0, 0);
  assert_moved(out, m, 6, 0, 0, 0);
  sinew_data_unref(out);
  /* removing an element takes its offset away */
  sinew_plug_t e5 = plug(g, t, "pl[0].cp[5]");
  assert_int_equal(sinew_plug_remove_element(g, &e5), 0);
  out = get(g, t, "og[0]");
  assert_moved(out, m, 5, 1, 0, 0);
  sinew_data_unref(out);
  /* input[1] has its own list: vl[1] moves og[1] only */
  sinew_data_t *m2 = cube();
  sinew_plug_t ig1 = plug(g, t, "ip[1].ig");
  assert_int_equal(sinew_set_data(g, &ig1, m2), 0);
  set3(g, t, "vl[1].vt[4]", 0, 0, 9);
  sinew_data_t *o0 = get(g, t, "og[0]"), *o1 = get(g, t, "og[1]");
  assert_moved(o1, m2, 4, 0, 0, 9);
  assert_moved(o1, m2, 0, 0, 0, 0); /* pl[0] belongs to input[0] */
  assert_moved(o0, m, 4, 0, 0, 0);
  assert_moved(o0, m, 0, 0, 1, 0);
  sinew_data_unref(o0);
  sinew_data_unref(o1);
  sinew_data_unref(m2);
  sinew_data_unref(m);
  sinew_graph_destroy(g);
}

/* A mesh that carries normals gets them recomputed where the tweak moved points. */
static void test_tweak_normals(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  sinew_data_t *m = cube();
  assert_int_equal(sinew_mesh_compute_normals(&m), 0);
  sinew_node_t t = tweak_on(g, m);
  set3(g, t, "vl[0].vt[0]", -3, -3, 3); /* pull one corner far out */
  sinew_data_t *out = get(g, t, "og[0]");
  const sinew_mesh_t *mo = sinew_mesh_get(out), *mi = sinew_mesh_get(m);
  assert_non_null(mo->normals);
  double change = 0;
  for (uint32_t i = 0; i < 8; i++) {
    const float *n = mo->normals + 3 * i;
    assert_near(sqrt((double)n[0] * n[0] + (double)n[1] * n[1] + (double)n[2] * n[2]), 1, 1e-5);
    for (int c = 0; c < 3; c++) change = fmax(change, fabs((double)n[c] - mi->normals[3 * i + c]));
  }
  assert_true(change > 0.05);
  sinew_data_unref(out);
  sinew_data_unref(m);
  sinew_graph_destroy(g);
}

/* relativeTweak off is not modelled: the offsets still add, and the node says so once. */
static int warnings;
static void count_warnings(void *ud, sinew_log_level_t level, sinew_log_id_t id, const char *msg) {
  (void)ud;
  (void)id;
  if (level == SINEW_LOG_WARNING && strstr(msg, "relativeTweak")) warnings++;
}

static void test_tweak_absolute(void **state) {
  (void)state;
  sinew_graph_t *g = NULL;
  sinew_graph_desc_t d = {.logger = count_warnings};
  assert_int_equal(sinew_scene_create(&d, &g), 0);
  sinew_data_t *m = cube();
  sinew_node_t t = tweak_on(g, m);
  set3(g, t, "vl[0].vt[2]", 0, 1, 0);
  set1(g, t, "rtw", 0);
  warnings = 0;
  for (int i = 0; i < 3; i++) {
    set1(g, t, "en", 1 - 0.25 * i);
    sinew_data_t *out = get(g, t, "og[0]");
    assert_moved(out, m, 2, 0, 1 - 0.25 * i, 0);
    sinew_data_unref(out);
  }
  assert_int_equal(warnings, 1);
  sinew_data_unref(m);
  sinew_graph_destroy(g);
}

/* Re-evaluating a tweak every frame allocates nothing once warm: it writes into one of the two
 * blocks it keeps. */
static void test_tweak_steady_state(void **state) {
  (void)state;
  test_alloc_install();
  sinew_graph_t *g = scene();
  sinew_data_t *m = NULL;
  assert_int_equal(sinew_mesh_sphere(1, 12, 8, &m), 0);
  sinew_node_t t = tweak_on(g, m);
  set3(g, t, "vl[0].vt[3]", 0, 1, 0);
  long before = 0;
  for (int frame = 0; frame < 6; frame++) {
    if (frame == 4) before = test_alloc_count();
    set1(g, t, "vl[0].vt[3].vy", frame);
    sinew_data_t *out = get(g, t, "og[0]");
    assert_moved(out, m, 3, 0, frame, 0);
    sinew_data_unref(out);
  }
  assert_int_equal(test_alloc_count() - before, 0);
  sinew_data_unref(m);
  sinew_graph_destroy(g);
  assert_int_equal(test_alloc_live(), 0);
  test_alloc_uninstall();
}

/* Every allocation a tweak evaluation makes, failed in turn: the read fails with ENOMEM (or
 * keeps no value), nothing leaks, and the result is whole when there is one. */
static void test_tweak_alloc_failures(void **state) {
  (void)state;
  test_alloc_install();
  long total = -1;
  for (long k = 0; total < 0 || k <= total; k++) {
    test_alloc_reset();
    sinew_graph_t *g = NULL;
    assert_int_equal(sinew_scene_create(NULL, &g), 0);
    sinew_data_t *m = NULL;
    assert_int_equal(sinew_mesh_sphere(1, 12, 8, &m), 0);
    assert_int_equal(sinew_mesh_compute_normals(&m), 0);
    sinew_node_t gp = node(g, "groupParts", "gp"), t = node(g, "tweak", "tw");
    sinew_plug_t ig = plug(g, gp, "ig");
    assert_int_equal(sinew_set_data(g, &ig, m), 0);
    conn(g, gp, "og", t, "ip[0].ig");
    set3(g, t, "vl[0].vt[3]", 0, 1, 0);
    set3(g, t, "pl[0].cp[4]", 1, 0, 0);
    sinew_plug_t og = plug(g, t, "og[0]");
    long before = test_alloc_count();
    if (k) test_alloc_fail_at(before + k); /* k = 0: a clean run that counts */
    sinew_data_t *d = NULL;
    int rc = sinew_get_data(g, &og, &d);
    test_alloc_fail_at(0);
    if (!k) {
      total = test_alloc_count() - before;
      assert_int_equal(rc, 0);
    }
    assert_true(rc == 0 || rc == SINEW_ENOMEM);
    if (d) {
      assert_moved(d, m, 3, 0, 1, 0);
      assert_moved(d, m, 4, 1, 0, 0);
    }
    sinew_data_unref(d);
    sinew_data_unref(m);
    sinew_graph_destroy(g);
    assert_int_equal(test_alloc_live(), 0);
  }
  assert_true(total >= 2); /* the index scratch and the output block */
  test_alloc_uninstall();
}

/* ---- a chain as Maya writes it, through a session ----------------------------------------------- */

static sinew_session_t *session(void) {
  sinew_session_t *s = NULL;
  assert_int_equal(sinew_session_create(NULL, &s), 0);
  return s;
}

/* Opens `text` as a .ma file (the path a file read takes: placeholders for objectSet, attributes
 * such as mesh.twl added as Maya files need them). */
static sinew_session_t *open_text(const char *text) {
  char path[] = "/tmp/sinew_chain_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
  fclose(f);
  char ma[64];
  snprintf(ma, sizeof ma, "%s.ma", path);
  assert_int_equal(rename(path, ma), 0);
  sinew_session_t *s = session();
  int rc = sinew_session_open(s, ma);
  remove(ma);
  if (rc) fail_msg("%s", sinew_session_errmsg(s));
  return s;
}

static void run(sinew_session_t *s, const char *text) {
  if (sinew_session_run(s, text, strlen(text), "chain.ma", NULL)) fail_msg("%s", sinew_session_errmsg(s));
}

static char resbuf[4096];
static const char *res(sinew_session_t *s, const char *text) {
  sinew_value_t v = {0};
  if (sinew_session_run(s, text, strlen(text), "test.mel", &v)) fail_msg("%s: %s", text, sinew_session_errmsg(s));
  sinew_value_format(&v, resbuf, sizeof resbuf);
  sinew_value_clear(&v);
  size_t n = strlen(resbuf);
  while (n && (resbuf[n - 1] == '\n' || resbuf[n - 1] == ' ')) resbuf[--n] = 0;
  return resbuf;
}

/* A cube skinned to one joint at the origin, with the chain and attributes Maya writes. */
static const char chain_ma[] =
    "//Maya ASCII 2020 scene\n"
    "requires maya \"2020\";\n"
    "currentUnit -l centimeter -a degree -t film;\n"
    "createNode transform -n \"cube\";\n"
    "createNode mesh -n \"cubeShape\" -p \"cube\";\n"
    "createNode mesh -n \"cubeShapeOrig\" -p \"cube\";\n"
    "\tsetAttr \".io\" yes;\n"
    "createNode joint -n \"joint1\";\n"
    "createNode polyCube -n \"polyCube1\";\n"
    "\tsetAttr \".w\" 2;\n"
    "createNode skinCluster -n \"skinCluster1\";\n"
    "\tsetAttr -s 8 \".wl\";\n"
    "\tsetAttr \".wl[0:7].w\" 1 0 1 1 0 1 1 0 1 1 0 1 1 0 1 1 0 1 1 0 1 1 0 1;\n"
    "\tsetAttr \".pm[0]\" -type \"matrix\" 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1;\n"
    "createNode tweak -n \"tweak1\";\n"
    "\tsetAttr -s 2 \".vl[0].vt[0:1]\" -type \"float3\" 0 0 0 0 0 0;\n"
    "createNode objectSet -n \"skinCluster1Set\";\n"
    "\tsetAttr \".ihi\" 0;\n"
    "\tsetAttr \".vo\" yes;\n"
    "createNode groupId -n \"skinCluster1GroupId\";\n"
    "\tsetAttr \".ihi\" 0;\n"
    "createNode groupParts -n \"skinCluster1GroupParts\";\n"
    "\tsetAttr \".ihi\" 0;\n"
    "\tsetAttr \".ic\" -type \"componentList\" 1 \"vtx[*]\";\n"
    "createNode groupId -n \"groupId2\";\n"
    "\tsetAttr \".ihi\" 0;\n"
    "createNode groupParts -n \"groupParts2\";\n"
    "\tsetAttr \".ihi\" 0;\n"
    "\tsetAttr \".ic\" -type \"componentList\" 1 \"vtx[*]\";\n"
    "connectAttr \"polyCube1.out\" \"cubeShapeOrig.i\";\n"
    "connectAttr \"skinCluster1.og[0]\" \"cubeShape.i\";\n"
    "connectAttr \"skinCluster1GroupId.id\" \"cubeShape.iog.og[0].gid\";\n"
    "connectAttr \"tweak1.vl[0].vt[0]\" \"cubeShape.twl\";\n"
    "connectAttr \"skinCluster1GroupParts.og\" \"skinCluster1.ip[0].ig\";\n"
    "connectAttr \"skinCluster1GroupId.id\" \"skinCluster1.ip[0].gi\";\n"
    "connectAttr \"joint1.wm\" \"skinCluster1.ma[0]\";\n"
    "connectAttr \"groupParts2.og\" \"tweak1.ip[0].ig\";\n"
    "connectAttr \"groupId2.id\" \"tweak1.ip[0].gi\";\n"
    "connectAttr \"skinCluster1GroupId.msg\" \"skinCluster1Set.gn\" -na;\n"
    "connectAttr \"cubeShape.iog.og[0]\" \"skinCluster1Set.dsm\" -na;\n"
    "connectAttr \"skinCluster1.msg\" \"skinCluster1Set.ub[0]\";\n"
    "connectAttr \"tweak1.og[0]\" \"skinCluster1GroupParts.ig\";\n"
    "connectAttr \"skinCluster1GroupId.id\" \"skinCluster1GroupParts.gi\";\n"
    "connectAttr \"cubeShapeOrig.w\" \"groupParts2.ig\";\n"
    "connectAttr \"groupId2.id\" \"groupParts2.gi\";\n";

typedef struct dirt {
  sinew_graph_t *g;
  sinew_node_t watched[3];
  int hits;
} dirt;

static void on_dirty(void *ud, const sinew_plug_t *p) {
  dirt *d = ud;
  for (int i = 0; i < 3; i++)
    if (p->node.index == d->watched[i].index && p->node.gen == d->watched[i].gen) d->hits++;
}

static sinew_node_t find(sinew_graph_t *g, const char *name) {
  sinew_node_t n;
  if (sinew_node_find(g, name, &n)) fail_msg("no node %s", name);
  return n;
}

static void test_chain_dirty_propagation(void **state) {
  (void)state;
  sinew_session_t *s = open_text(chain_ma);
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_session_stats_t st;
  sinew_session_stats(s, &st);
  assert_int_equal(st.raw_connections, 0); /* every connectAttr above made a connection */
  assert_string_equal(res(s, "getAttr groupParts2.ic"), "vtx[*]"); /* kept as Maya wrote it */
  sinew_node_t sk = find(g, "skinCluster1"), tw = find(g, "tweak1"), orig = find(g, "cubeShapeOrig"),
               shape = find(g, "cubeShape"), j = find(g, "joint1");
  sinew_data_t *base = get(g, orig, "o"), *out = get(g, sk, "og[0]");
  assert_int_equal(sinew_mesh_get(base)->npoints, 8);
  assert_near(max_diff(out, base), 0, 1e-6); /* the bind pose */
  sinew_data_unref(out);
  out = get(g, find(g, "skinCluster1GroupParts"), "og");
  assert_ptr_equal(out, base); /* zero offsets: the Orig's block came through the chain whole */
  sinew_data_unref(out);
  uint64_t evals0 = 0, evals = 0;
  assert_int_equal(sinew_skin_cluster_stats(g, sk, NULL, &evals0), 0);
  /* an offset on the tweak re-runs the skin, and shows through it */
  run(s, "setAttr \"tweak1.vl[0].vt[3]\" -type \"float3\" 0 0.5 0;");
  out = get(g, shape, "o");
  assert_moved(out, base, 3, 0, 0.5, 0);
  assert_moved(out, base, 2, 0, 0, 0);
  sinew_data_unref(out);
  assert_int_equal(sinew_skin_cluster_stats(g, sk, NULL, &evals), 0);
  assert_int_equal(evals, evals0 + 1);
  /* turning the joint re-runs the skin but dirties nothing of the chain */
  sinew_data_t *tweaked = get(g, tw, "og[0]");
  dirt d = {.g = g, .watched = {tw, find(g, "groupParts2"), find(g, "skinCluster1GroupParts")}};
  sinew_observer_t ob = {.plug_dirtied = on_dirty, .user_data = &d};
  int id = 0;
  assert_int_equal(sinew_graph_add_observer(g, &ob, &id), 0);
  set1(g, j, "rz", 1.57079632679489661923); /* radians: a quarter turn */
  out = get(g, shape, "o");
  assert_int_equal(d.hits, 0);
  sinew_plug_t tog = plug(g, tw, "og[0]");
  assert_false(sinew_plug_is_dirty(g, &tog));
  sinew_data_t *again = get(g, tw, "og[0]");
  assert_ptr_equal(again, tweaked); /* not recomputed */
  sinew_data_unref(again);
  sinew_data_unref(tweaked);
  assert_int_equal(sinew_skin_cluster_stats(g, sk, NULL, &evals), 0);
  assert_int_equal(evals, evals0 + 2);
  /* (x, y) -> (-y, x) about the joint at the origin, the tweak included */
  const float *p = sinew_mesh_get(out)->points, *b = sinew_mesh_get(base)->points;
  assert_near(p[3 * 3], -(b[3 * 3 + 1] + 0.5), 1e-5);
  assert_near(p[3 * 3 + 1], b[3 * 3], 1e-5);
  assert_near(p[0], -b[1], 1e-5);
  sinew_data_unref(out);
  /* ...while an envelope change on the tweak dirties the chain below it again */
  set1(g, tw, "en", 0);
  assert_true(d.hits > 0);
  assert_true(sinew_plug_is_dirty(g, &tog));
  sinew_graph_remove_observer(g, id);
  sinew_data_unref(base);
  sinew_session_destroy(s);
}

/* Saved and read back: the offsets, components and chain connections survive, and the reread
 * scene deforms the same. */
static void test_chain_save_load(void **state) {
  (void)state;
  sinew_session_t *s = open_text(chain_ma);
  run(s, "setAttr \"tweak1.vl[0].vt[5]\" -type \"float3\" 0.25 0 -1;\n"
         "setAttr \"tweak1.pl[0].cp[2]\" -type \"double3\" 0 2 0;\n"
         "setAttr \"tweak1.en\" 0.5;\n"
         "setAttr \"joint1.rz\" 30;");
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_non_null(f);
  assert_int_equal(sinew_session_write_ma(s, f, "chain.ma"), 0);
  fclose(f);
  static const char *const want[] = {
      "createNode tweak -n \"tweak1\"", "\".vl[0].vt[5]\" -type \"float3\" 0.25 0 -1",
      "\".pl[0].cp[2]\" -type \"double3\" 0 2 0", "\".ic\" -type \"componentList\" 1 \"vtx[*]\"",
      "connectAttr \"groupParts2.og\" \"tweak1.ip[0].ig\"", "connectAttr \"groupId2.id\" \"tweak1.ip[0].gi\"",
      "connectAttr \"skinCluster1GroupId.id\" \"skinCluster1.ip[0].gi\""};
  for (size_t i = 0; i < sizeof want / sizeof *want; i++)
    if (!strstr(text, want[i])) fail_msg("the written file lacks %s:\n%s", want[i], text);
  sinew_session_t *s2 = open_text(text);
  free(text);
  sinew_graph_t *g = sinew_session_graph(s), *g2 = sinew_session_graph(s2);
  sinew_data_t *a = get(g, find(g, "cubeShape"), "o"), *b = get(g2, find(g2, "cubeShape"), "o");
  sinew_data_t *base = get(g, find(g, "cubeShapeOrig"), "o");
  assert_true(max_diff(a, base) > 0.1);
  assert_near(max_diff(a, b), 0, 1e-6);
  sinew_data_t *t = get(g2, find(g2, "tweak1"), "og[0]");
  assert_moved(t, base, 5, 0.125, 0, -0.5);
  assert_moved(t, base, 2, 0, 1, 0);
  sinew_data_unref(t);
  sinew_data_unref(a);
  sinew_data_unref(b);
  sinew_data_unref(base);
  sinew_session_destroy(s);
  sinew_session_destroy(s2);
}

/* polyColorPerVertex passes the mesh through as the same block (a skinCluster's output fed
 * through it, as omtk's rig_example_02_built.ma wires it, stays the skinned mesh); its vertex
 * colours, in the forms Maya files write, read back and are saved; polyModifier is abstract. */
static void test_poly_color_per_vertex(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  sinew_node_t abstract;
  assert_int_not_equal(sinew_node_create(g, "polyModifier", NULL, &abstract), 0);
  sinew_node_t pc = node(g, "polyColorPerVertex", "polyColorPerVertex1"), gp = node(g, "groupParts", "gp");
  assert_true(sinew_node_type_is_a(sinew_node_type(g, pc), "polyModifier"));
  assert_null(get(g, pc, "out")); /* nothing in, nothing out */
  sinew_data_t *m = cube();
  sinew_plug_t ip = plug(g, pc, "ip");
  assert_int_equal(sinew_set_data(g, &ip, m), 0);
  conn(g, pc, "out", gp, "ig");
  sinew_data_t *out = get(g, gp, "og");
  assert_ptr_equal(out, m); /* the block itself: nothing copied */
  sinew_data_unref(out);
  /* a new input flows through */
  sinew_data_t *m2 = cube();
  assert_int_equal(sinew_set_data(g, &ip, m2), 0);
  out = get(g, gp, "og");
  assert_ptr_equal(out, m2);
  sinew_data_unref(out);
  sinew_data_unref(m);
  sinew_data_unref(m2);
  sinew_graph_destroy(g);

  static const char scene_ma[] =
      "createNode transform -n \"box\";\n"
      "createNode mesh -n \"boxShape\" -p \"box\";\n"
      "createNode polyCube -n \"polyCube1\";\n"
      "createNode polyColorPerVertex -n \"polyColorPerVertex1\";\n"
      "\tsetAttr \".uopa\" yes;\n"
      "\tsetAttr \".ics\" -type \"componentList\" 1 \"vtx[*]\";\n"
      "\tsetAttr -s 2 \".vclr\";\n"
      "\tsetAttr -s 2 \".vclr[0].vfcl\";\n"
      "\tsetAttr \".vclr[0].vfcl[0].frgb\" -type \"float3\" 0.5 0.25 1 ;\n"
      "\tsetAttr \".vclr[0].vfcl[0].vfal\" 0.75;\n"
      "\tsetAttr \".vclr[3].vxal\" 0.5;\n"
      "\tsetAttr \".cn\" -type \"string\" \"colorSet1\";\n"
      "\tsetAttr \".clam\" no;\n"
      "connectAttr \"polyCube1.out\" \"polyColorPerVertex1.ip\";\n"
      "connectAttr \"polyColorPerVertex1.out\" \"boxShape.i\";\n";
  sinew_session_t *s = open_text(scene_ma);
  g = sinew_session_graph(s);
  sinew_data_t *o = get(g, find(g, "boxShape"), "o");
  assert_non_null(o);
  assert_int_equal(sinew_mesh_get(o)->npoints, 8);
  sinew_data_unref(o);
  double v[3];
  sinew_plug_t p = plug(g, find(g, "polyColorPerVertex1"), "vclr[0].vfcl[0].frgb");
  assert_int_equal(sinew_get_doubles(g, &p, v, 3, NULL), 0);
  assert_true(v[0] == 0.5 && v[1] == 0.25 && v[2] == 1);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_non_null(f);
  assert_int_equal(sinew_session_write_ma(s, f, "color.ma"), 0);
  fclose(f);
  static const char *const want[] = {"createNode polyColorPerVertex -n \"polyColorPerVertex1\"",
                                     "\".vclr[0].vfcl[0].frgb\" -type \"float3\" 0.5 0.25 1",
                                     "\".vclr[0].vfcl[0].vfal\" 0.75", "\".vclr[3].vxal\" 0.5",
                                     "\".cn\" -type \"string\" \"colorSet1\"", "\".clam\" no",
                                     "\".ics\" -type \"componentList\" 1 \"vtx[*]\"",
                                     "connectAttr \"polyColorPerVertex1.out\" \"boxShape.i\""};
  for (size_t i = 0; i < sizeof want / sizeof *want; i++)
    if (!strstr(text, want[i])) fail_msg("the written file lacks %s:\n%s", want[i], text);
  free(text);
  sinew_session_destroy(s);
}

/* Bad values are refused with the plug named, and leave the node as it was. */
static void test_bad_input(void **state) {
  (void)state;
  sinew_session_t *s = open_text(chain_ma);
  static const struct {
    const char *text, *names;
  } bad[] = {
      {"setAttr \"tweak1.vl[0].vt[3]\" -type \"string\" \"up\";", "tweak1.vlist[0].vertex[3]"},
      {"setAttr \"tweak1.vl[0].vt[3]\" -type \"float3\" 1 2;", "tweak1.vlist[0].vertex[3]"},
      {"setAttr \"tweak1.pl[0].cp[3].xv\" \"a lot\";", "a lot"},
      {"connectAttr \"joint1.wm[0]\" \"groupParts2.ig\";", "groupParts2"},
      {"setAttr \"tweak1.vl[0].vt[-2]\" -type \"float3\" 1 2 3;", "tweak1"},
      {"connectAttr \"groupParts2.og\" \"skinCluster1GroupParts.ig\";", "skinCluster1GroupParts.inputGeometry"},
      {"connectAttr -f \"skinCluster1GroupParts.og\" \"groupParts2.ig\";", "cycle"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    int rc = sinew_session_run(s, bad[i].text, strlen(bad[i].text), "bad.mel", NULL);
    if (rc == 0) fail_msg("accepted: %s", bad[i].text);
    const char *msg = sinew_session_errmsg(s);
    if (!strstr(msg, "bad.mel:1:") || !strstr(msg, bad[i].names))
      fail_msg("%s: the message does not name %s: %s", bad[i].text, bad[i].names, msg);
  }
  assert_string_equal(res(s, "getAttr -s tweak1.vl[0].vt"), "2");
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_data_t *base = get(g, find(g, "cubeShapeOrig"), "o"), *out = get(g, find(g, "tweak1"), "og[0]");
  assert_ptr_equal(out, base);
  sinew_data_unref(base);
  sinew_data_unref(out);
  sinew_session_destroy(s);
}

/* ---- real Maya scenes (tests/data) ------------------------------------------------------------ */

/* The path of a file under tests/data; fails the test when the file is missing. */
static const char *data_file(const char *rel) {
  static char buf[512];
  snprintf(buf, sizeof buf, "%s/%s", SINEW_TEST_DATA_DIR, rel);
  FILE *f = fopen(buf, "rb");
  if (!f) fail_msg("test data file %s is missing", buf);
  fclose(f);
  return buf;
}

static bool same_node(sinew_node_t a, sinew_node_t b) { return a.index == b.index && a.gen == b.gen; }

static const char *type_of(sinew_graph_t *g, sinew_node_t n) { return sinew_node_type_name(sinew_node_type(g, n)); }

/* The node feeding `dst` (asserted present) and the plug it comes from. */
static sinew_plug_t source_of(sinew_graph_t *g, const sinew_plug_t *dst) {
  sinew_plug_t src;
  if (!sinew_plug_source(g, dst, &src)) {
    char buf[300];
    sinew_plug_format(g, dst, false, buf, sizeof buf);
    fail_msg("nothing feeds %s", buf);
  }
  return src;
}

/* Frees a joint's channels from the animation curves (and any placeholders) that drive them. */
typedef struct incoming {
  sinew_node_t node;
  sinew_connection_t c[64];
  size_t n;
} incoming;

static bool collect(void *ud, const sinew_connection_t *c) {
  incoming *x = ud;
  if (same_node(c->dst.node, x->node) && x->n < 64) x->c[x->n++] = *c;
  return true;
}

static void free_channels(sinew_graph_t *g, sinew_node_t n) {
  incoming x = {.node = n};
  sinew_foreach_connection(g, n, false, collect, &x);
  for (size_t i = 0; i < x.n; i++) {
    const sinew_node_type_t *t = sinew_node_type(g, x.c[i].src.node);
    if (!(sinew_node_type_flags(t) & SINEW_NODE_TYPE_PLACEHOLDER) && !sinew_node_type_is_a(t, "animCurve")) continue;
    assert_int_equal(sinew_disconnect(g, &x.c[i].src, &x.c[i].dst), 0);
  }
}

static int depth_of(sinew_graph_t *g, sinew_node_t n) {
  int d = 0;
  for (n = sinew_node_parent(g, n); sinew_node_valid(g, n); n = sinew_node_parent(g, n)) d++;
  return d;
}

/* Poses every influence joint so that its world matrix is inverse(bindPreMatrix[i]), parents
 * first. Returns the joint feeding the lowest matrix[] index. */
static sinew_node_t bind_pose(sinew_graph_t *g, sinew_node_t sk) {
  sinew_plug_t ma = plug(g, sk, "ma"), pm = plug(g, sk, "pm");
  int32_t idx[64];
  size_t n = sinew_plug_indices(g, &ma, idx, 64);
  assert_true(n >= 1 && n <= 64);
  sinew_node_t first = {0, 0};
  for (int depth = 0; depth < 64; depth++)
    for (size_t k = 0; k < n; k++) {
      sinew_plug_t e, pe;
      sinew_plug_element(g, &ma, idx[k], &e);
      sinew_plug_element(g, &pm, idx[k], &pe);
      sinew_plug_t src = source_of(g, &e);
      if (k == 0) first = src.node;
      if (depth_of(g, src.node) != depth) continue;
      sinew_mat4_t m, world, parent, pinv, local;
      assert_int_equal(sinew_get_matrix(g, &pe, &m), 0);
      assert_true(sinew_mat4_inverse(&m, &world));
      sinew_node_t p = sinew_node_parent(g, src.node);
      sinew_mat4_identity(&parent);
      if (sinew_node_valid(g, p)) assert_int_equal(sinew_dag_world_matrix(g, p, &parent), 0);
      assert_true(sinew_mat4_inverse(&parent, &pinv));
      sinew_mat4_mul(&world, &pinv, &local);
      free_channels(g, src.node);
      if (sinew_dag_set_local_matrix(g, src.node, &local))
        fail_msg("%s: %s", sinew_node_name(g, src.node), sinew_graph_errmsg(g));
    }
  return first;
}

/* Each skinCluster of the scene is fed through groupParts <- tweak <- groupParts (one or more)
 * <- the Orig mesh, with groupIds connected; at the bind pose its output is the Orig's points, a tweak offset
 * shows through exactly, and turning an influence moves the output without touching the chain. */
static void check_scene(const char *rel, size_t want_skins) {
  sinew_session_t *s = session();
  if (sinew_session_open(s, data_file(rel))) fail_msg("%s: %s", rel, sinew_session_errmsg(s));
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_node_t sk[8];
  size_t nsk = sinew_node_list_type(g, "skinCluster", true, sk, 8);
  assert_int_equal(nsk, want_skins);
  for (size_t k = 0; k < nsk; k++) {
    const char *name = sinew_node_name(g, sk[k]);
    /* the chain, hop by hop */
    sinew_plug_t p = plug(g, sk[k], "ip[0].ig");
    sinew_plug_t src = source_of(g, &p);
    sinew_node_t gp_skin = src.node;
    assert_string_equal(type_of(g, gp_skin), "groupParts");
    p = plug(g, gp_skin, "ig");
    src = source_of(g, &p);
    sinew_node_t tw = src.node;
    assert_string_equal(type_of(g, tw), "tweak");
    int32_t ti = src.idx[0];
    char attr[64];
    snprintf(attr, sizeof attr, "ip[%d].ig", ti);
    p = plug(g, tw, attr);
    src = source_of(g, &p);
    sinew_node_t gp_tweak = src.node;
    assert_string_equal(type_of(g, gp_tweak), "groupParts");
    /* then one groupParts per component set (shading groups on faces, "f[0:339]") */
    for (int hops = 0; hops < 8 && !strcmp(type_of(g, src.node), "groupParts"); hops++) {
      p = plug(g, src.node, "ig");
      src = source_of(g, &p);
    }
    sinew_node_t orig = src.node;
    assert_string_equal(type_of(g, orig), "mesh");
    bool io = false;
    sinew_plug_t pio = plug(g, orig, "io");
    assert_int_equal(sinew_get_bool(g, &pio, &io), 0);
    assert_true(io); /* the intermediate Orig shape */
    /* groupIds feed the deformers and the groupParts */
    p = plug(g, sk[k], "ip[0].gi");
    assert_string_equal(type_of(g, source_of(g, &p).node), "groupId");
    snprintf(attr, sizeof attr, "ip[%d].gi", ti);
    p = plug(g, tw, attr);
    assert_string_equal(type_of(g, source_of(g, &p).node), "groupId");
    p = plug(g, gp_skin, "gi");
    assert_string_equal(type_of(g, source_of(g, &p).node), "groupId");
    /* bind pose: the Orig's points come out */
    sinew_node_t j = bind_pose(g, sk[k]);
    sinew_data_t *base = get(g, orig, "o"), *out = get(g, sk[k], "og[0]");
    assert_non_null(out);
    assert_true(sinew_mesh_get(base)->npoints > 0);
    double d = max_diff(out, base);
    if (!(d <= 1e-4)) fail_msg("%s %s: at the bind pose the output differs from the Orig's by %g", rel, name, d);
    sinew_data_unref(out);
    /* a tweak offset shows through the skin at the bind pose */
    snprintf(attr, sizeof attr, "vl[%d].vt[3]", ti);
    set3(g, tw, attr, 0.25, -0.5, 0.125);
    out = get(g, sk[k], "og[0]");
    assert_moved(out, base, 3, 0.25, -0.5, 0.125);
    sinew_data_unref(out);
    set3(g, tw, attr, 0, 0, 0);
    out = get(g, sk[k], "og[0]");
    d = max_diff(out, base);
    if (!(d <= 1e-4)) fail_msg("%s %s: offset taken back, the output differs by %g", rel, name, d);
    sinew_data_unref(out);
    /* turning the first influence moves the output; the chain is not dirtied */
    sinew_data_t *tweaked = NULL;
    snprintf(attr, sizeof attr, "og[%d]", ti);
    tweaked = get(g, tw, attr);
    double r[3] = {0, 0, 0};
    sinew_plug_t rot = plug(g, j, "r");
    assert_int_equal(sinew_get_doubles(g, &rot, r, 3, NULL), 0);
    r[2] += 0.5;
    assert_int_equal(sinew_set_doubles(g, &rot, r, 3), 0);
    sinew_plug_t tog = plug(g, tw, attr);
    assert_false(sinew_plug_is_dirty(g, &tog));
    out = get(g, sk[k], "og[0]");
    d = max_diff(out, base);
    if (!(d > 1e-3)) fail_msg("%s %s: turning %s moved nothing", rel, name, sinew_node_name(g, j));
    sinew_data_t *again = get(g, tw, attr);
    assert_ptr_equal(again, tweaked);
    sinew_data_unref(again);
    sinew_data_unref(tweaked);
    sinew_data_unref(out);
    sinew_data_unref(base);
  }
  sinew_session_destroy(s);
}

static void test_corpus_cylinder(void **state) {
  (void)state;
  check_scene("mldeform/Cylinder.ma", 1);
}

static void test_corpus_usd_skeleton(void **state) {
  (void)state;
  check_scene("maya-usd/UsdExportSkeletonWithoutBindPose.ma", 1);
  check_scene("maya-usd/UsdExportSkeletonAtSceneRoot.ma", 1);
}

/* The eyes' shapes sit under moved transforms and their Orig feeds the chain from worldMesh. */
static void test_corpus_transformed_shapes(void **state) {
  (void)state;
  check_scene("maya-usd/bindTransformsExport.ma", 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_types),
      cmocka_unit_test(test_registration_order),
      cmocka_unit_test(test_group_parts_pass_through),
      cmocka_unit_test(test_world_mesh_source),
      cmocka_unit_test(test_tweak_pass_through),
      cmocka_unit_test(test_tweak_envelope),
      cmocka_unit_test(test_tweak_sparse_control_points),
      cmocka_unit_test(test_tweak_normals),
      cmocka_unit_test(test_tweak_absolute),
      cmocka_unit_test(test_tweak_steady_state),
      cmocka_unit_test(test_tweak_alloc_failures),
      cmocka_unit_test(test_chain_dirty_propagation),
      cmocka_unit_test(test_chain_save_load),
      cmocka_unit_test(test_poly_color_per_vertex),
      cmocka_unit_test(test_bad_input),
      cmocka_unit_test(test_corpus_cylinder),
      cmocka_unit_test(test_corpus_usd_skeleton),
      cmocka_unit_test(test_corpus_transformed_shapes),
  };
  return cmocka_run_group_tests_name("deformer_chain", tests, NULL, NULL);
}
