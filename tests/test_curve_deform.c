/* tests/test_curve_deform.c: deformers on nurbsCurves (issue 15). A skinCluster, blendShape,
 * cluster or tweak over a curve deforms its CVs as a mesh's points (docs/deformers.md#curves),
 * and the deformed curve's worldSpace drives a spline IK chain. Scenes are written as Maya
 * writes them (the Orig shape's worldSpace into the deformer, its outputGeometry into the
 * shape's create); expected CVs are worked by hand from the deformers' formulas. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sinew/sinew.h"

static sinew_session_t *session(void) {
  sinew_session_t *s = NULL;
  assert_int_equal(sinew_session_create(NULL, &s), 0);
  return s;
}

static void run(sinew_session_t *s, const char *text) {
  if (sinew_session_run(s, text, strlen(text), "test", NULL)) fail_msg("%s: %s", text, sinew_session_errmsg(s));
}

static sinew_plug_t plug(sinew_graph_t *g, const char *text) {
  sinew_plug_t p;
  if (sinew_plug_parse(g, text, (sinew_node_t){0, 0}, &p)) fail_msg("no plug %s: %s", text, sinew_graph_errmsg(g));
  return p;
}

/* The curve at `text` (a new reference). */
static sinew_data_t *curve_at(sinew_graph_t *g, const char *text, sinew_curve_t *c) {
  sinew_plug_t p = plug(g, text);
  sinew_data_t *d = NULL;
  if (sinew_get_data(g, &p, &d)) fail_msg("%s: %s", text, sinew_graph_errmsg(g));
  if (!d || sinew_curve_get(d, c)) fail_msg("%s holds no curve", text);
  return d;
}

static void expect_cvs(sinew_graph_t *g, const char *text, const double (*want)[3], uint32_t n, double tol) {
  sinew_curve_t c;
  sinew_data_t *d = curve_at(g, text, &c);
  assert_int_equal(c.ncvs, n);
  for (uint32_t i = 0; i < n; i++)
    for (int a = 0; a < 3; a++)
      if (fabs(c.cvs[4 * i + a] - want[i][a]) > tol)
        fail_msg("%s: CV %u axis %d is %.9g, want %.9g", text, i, a, c.cvs[4 * i + a], want[i][a]);
  sinew_data_unref(d);
}

static sinew_vec3_t position(sinew_graph_t *g, const char *node) {
  char text[256];
  snprintf(text, sizeof text, "%s.worldMatrix[0]", node);
  sinew_plug_t p = plug(g, text);
  sinew_mat4_t m;
  if (sinew_get_matrix(g, &p, &m)) fail_msg("%s: %s", text, sinew_graph_errmsg(g));
  return (sinew_vec3_t){m.m[3][0], m.m[3][1], m.m[3][2]};
}

/* Distance from p to the curve (dense sampling, then a Newton polish on the parameter). */
static double distance_to_curve(const sinew_curve_t *c, sinew_vec3_t p) {
  double lo, hi, best = INFINITY, bu = 0;
  sinew_curve_range(c, &lo, &hi);
  for (int i = 0; i <= 4000; i++) {
    double u = lo + (hi - lo) * i / 4000;
    sinew_vec3_t q;
    sinew_curve_eval(c, u, &q, NULL, NULL);
    double d = hypot(hypot(q.x - p.x, q.y - p.y), q.z - p.z);
    if (d < best) best = d, bu = u;
  }
  for (int it = 0; it < 20; it++) {
    sinew_vec3_t q, d1, d2;
    sinew_curve_eval(c, bu, &q, &d1, &d2);
    sinew_vec3_t r = {q.x - p.x, q.y - p.y, q.z - p.z};
    double f = r.x * d1.x + r.y * d1.y + r.z * d1.z;
    double df = d1.x * d1.x + d1.y * d1.y + d1.z * d1.z + r.x * d2.x + r.y * d2.y + r.z * d2.z;
    if (df == 0) break;
    bu -= f / df;
    if (bu < lo) bu = lo;
    if (bu > hi) bu = hi;
  }
  sinew_vec3_t q;
  sinew_curve_eval(c, bu, &q, NULL, NULL);
  return fmin(best, hypot(hypot(q.x - p.x, q.y - p.y), q.z - p.z));
}

static double dist(sinew_vec3_t a, sinew_vec3_t b) { return hypot(hypot(a.x - b.x, a.y - b.y), a.z - b.z); }

/* A 5-CV cubic along x, skinned to two joints as Maya 2025 writes it (no groupParts: the
 * Orig's worldSpace straight into the skinCluster), with the weights of a spine: the first two
 * CVs on root_inf, the middle one half and half, the last two on tip_inf. */
static const char SKINNED_CURVE[] =
    "createNode transform -n \"crv\";\n"
    "createNode nurbsCurve -n \"crvShape\" -p \"crv\";\n"
    "createNode nurbsCurve -n \"crvShapeOrig\" -p \"crv\";\n"
    "  setAttr \".io\" yes;\n"
    "  setAttr \".cc\" -type \"nurbsCurve\" 3 2 0 no 3 7 0 0 0 1 2 2 2 5\n"
    "    0 0 0  2.5 0 0  5 0 0  7.5 0 0  10 0 0 ;\n"
    "createNode joint -n \"root_inf\";\n"
    "createNode joint -n \"tip_inf\";\n"
    "  setAttr \".t\" -type \"double3\" 10 0 0;\n"
    "createNode skinCluster -n \"crvSkin\";\n"
    "  setAttr -s 5 \".wl\";\n"
    "  setAttr \".wl[0].w[0]\" 1;\n"
    "  setAttr \".wl[1].w[0]\" 1;\n"
    "  setAttr \".wl[2].w[0:1]\" 0.5 0.5;\n"
    "  setAttr \".wl[3].w[1]\" 1;\n"
    "  setAttr \".wl[4].w[1]\" 1;\n"
    "  setAttr \".pm[0]\" -type \"matrix\" 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1;\n"
    "  setAttr \".pm[1]\" -type \"matrix\" 1 0 0 0 0 1 0 0 0 0 1 0 -10 0 0 1;\n"
    "  setAttr \".gm\" -type \"matrix\" 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1;\n"
    "connectAttr \"crvShapeOrig.ws\" \"crvSkin.ip[0].ig\";\n"
    "connectAttr \"crvShapeOrig.l\" \"crvSkin.orggeom[0]\";\n"
    "connectAttr \"root_inf.wm\" \"crvSkin.ma[0]\";\n"
    "connectAttr \"tip_inf.wm\" \"crvSkin.ma[1]\";\n"
    "connectAttr \"crvSkin.og[0]\" \"crvShape.cr\";\n";

static void test_skinned_curve_cvs(void **state) {
  (void)state;
  sinew_session_t *s = session();
  sinew_graph_t *g = sinew_session_graph(s);
  run(s, SKINNED_CURVE);
  static const double rest[5][3] = {{0, 0, 0}, {2.5, 0, 0}, {5, 0, 0}, {7.5, 0, 0}, {10, 0, 0}};
  expect_cvs(g, "crvShape.local", rest, 5, 0);
  /* at the bind pose nothing moves: the curve passes on as the Orig's own block */
  sinew_curve_t c0, c1;
  sinew_data_t *orig = curve_at(g, "crvShapeOrig.local", &c0), *skinned = curve_at(g, "crvSkin.og[0]", &c1);
  assert_ptr_equal(orig, skinned);
  sinew_data_unref(orig);
  sinew_data_unref(skinned);
  /* tip_inf up 3 and turned 90 degrees about z (about its own origin at x = 10): p * pm[1] *
   * wm[1] takes (x, 0, 0) to (10, 3 + (x - 10), 0) */
  run(s, "setAttr tip_inf.ty 3; setAttr tip_inf.rz 90;");
  static const double moved[5][3] = {{0, 0, 0}, {2.5, 0, 0}, {7.5, -1, 0}, {10, 0.5, 0}, {10, 3, 0}};
  expect_cvs(g, "crvShape.local", moved, 5, 1e-6);
  /* worldSpace: the deformed local CVs under the transform */
  run(s, "setAttr crv.tx 1;");
  static const double world[5][3] = {{1, 0, 0}, {3.5, 0, 0}, {8.5, -1, 0}, {11, 0.5, 0}, {11, 3, 0}};
  expect_cvs(g, "crvShape.worldSpace[0]", world, 5, 1e-6);
  /* curveInfo sees the deformed curve */
  run(s, "createNode curveInfo -n ci; connectAttr crvShape.ws[0] ci.ic;");
  double cp[3];
  sinew_plug_t p = plug(g, "ci.cp[4]");
  assert_int_equal(sinew_get_doubles(g, &p, cp, 3, NULL), 0);
  assert_true(fabs(cp[0] - 11) < 1e-6 && fabs(cp[1] - 3) < 1e-6);
  /* and back */
  run(s, "setAttr tip_inf.ty 0; setAttr tip_inf.rz 0; setAttr crv.tx 0;");
  expect_cvs(g, "crvShape.local", rest, 5, 1e-6);
  sinew_session_destroy(s);
}

/* The skinned curve drives a spline IK chain: the joints sit on the deformed curve, with their
 * bone lengths, and follow the influence. */
static void test_skinned_curve_spline_ik(void **state) {
  (void)state;
  sinew_session_t *s = session();
  sinew_graph_t *g = sinew_session_graph(s);
  run(s, SKINNED_CURVE);
  run(s, "select -cl; joint -n j0 -p 0 0 0; joint -n j1 -p 2.5 0 0; joint -n j2 -p 5 0 0; joint -n j3 -p 7.5 0 0;"
         "joint -n j4 -p 10 0 0;"
         "ikHandle -n spline -sol ikSplineSolver -sj j0 -ee j4 -ccv false -c crvShape;");
  static const char *const J[5] = {"j0", "j1", "j2", "j3", "j4"};
  sinew_vec3_t before[5];
  for (int k = 0; k < 5; k++) before[k] = position(g, J[k]);
  assert_true(dist(before[4], (sinew_vec3_t){10, 0, 0}) < 1e-9);
  run(s, "setAttr tip_inf.ty 4; setAttr tip_inf.rz 30;");
  sinew_curve_t c;
  sinew_data_t *d = curve_at(g, "crvShape.worldSpace[0]", &c);
  sinew_vec3_t now[5];
  for (int k = 0; k < 5; k++) {
    now[k] = position(g, J[k]);
    double e = distance_to_curve(&c, now[k]);
    if (e > 1e-6) fail_msg("%s is %.3g off the deformed curve", J[k], e);
    if (k) {
      double bone = dist(now[k], now[k - 1]);
      if (fabs(bone - 2.5) > 1e-9) fail_msg("bone %d is %.12g long", k, bone);
    }
  }
  sinew_data_unref(d);
  assert_true(dist(now[0], before[0]) < 1e-9); /* the root stays */
  assert_true(now[4].y > 1);                   /* the tip follows tip_inf up */
  run(s, "setAttr tip_inf.ty 0; setAttr tip_inf.rz 0;");
  for (int k = 0; k < 5; k++) assert_true(dist(position(g, J[k]), before[k]) < 1e-6);
  sinew_session_destroy(s);
}

/* A blendShape on a curve: a live curve target (its worldSpace, whose local CVs count) at 0.5,
 * and a stored target naming CVs as cv[] items; tweak offsets (plist, as Maya writes a curve's)
 * and a groupParts set of cv[] items limiting a cluster. */
static void test_blend_tweak_cluster_on_curve(void **state) {
  (void)state;
  sinew_session_t *s = session();
  sinew_graph_t *g = sinew_session_graph(s);
  run(s, "createNode transform -n crv;\n"
         "createNode nurbsCurve -n crvShape -p crv;\n"
         "createNode nurbsCurve -n crvShapeOrig -p crv;\n"
         "  setAttr .io yes;\n"
         "  setAttr .cc -type nurbsCurve 1 3 0 no 3 4 0 1 2 3 4  0 0 0  1 0 0  2 0 0  3 0 0 ;\n"
         "createNode transform -n tgt;\n"
         "  setAttr .t -type double3 100 0 0;\n"
         "createNode nurbsCurve -n tgtShape -p tgt;\n"
         "  setAttr .cc -type nurbsCurve 1 3 0 no 3 4 0 1 2 3 4  0 2 0  1 2 0  2 2 0  3 2 0 ;\n"
         "createNode tweak -n tw;\n"
         "  setAttr .pl[0].cp[1] -type double3 0 0 1;\n"
         "createNode blendShape -n bs;\n"
         "  setAttr .w[0] 0.5;\n"
         "  setAttr .w[1] 1;\n"
         "  setAttr .it[0].itg[1].iti[6000].ipt -type pointArray 1 0 0 4 1;\n"
         "  setAttr .it[0].itg[1].iti[6000].ict -type componentList 1 \"cv[3]\";\n"
         "connectAttr crvShapeOrig.ws tw.ip[0].ig;\n"
         "connectAttr tw.og[0] bs.ip[0].ig;\n"
         "connectAttr crvShapeOrig.l bs.orggeom[0];\n"
         "connectAttr tgtShape.ws bs.it[0].itg[0].iti[6000].igt;\n"
         "connectAttr bs.og[0] crvShape.cr;\n");
  /* tweak moves CV 1 by z 1; the live target (local CVs, its transform ignored) adds half of
   * (0, 2, 0) to every CV; the stored target adds z 4 to CV 3 */
  static const double want[4][3] = {{0, 1, 0}, {1, 1, 1}, {2, 1, 0}, {3, 1, 4}};
  expect_cvs(g, "crvShape.local", want, 4, 1e-6);
  /* a cluster after it, on cv[1:2] only, handle moved by 10 in x */
  run(s, "createNode transform -n clh;\n"
         "  setAttr .t -type double3 10 0 0;\n"
         "createNode cluster -n cl;\n"
         "createNode groupParts -n clGroupParts;\n"
         "  setAttr .ic -type componentList 1 \"cv[1:2]\";\n"
         "connectAttr bs.og[0] clGroupParts.ig;\n"
         "connectAttr clGroupParts.og cl.ip[0].ig;\n"
         "connectAttr clh.wm cl.ma;\n"
         "connectAttr -f cl.og[0] crvShape.cr;\n");
  static const double want2[4][3] = {{0, 1, 0}, {11, 1, 1}, {12, 1, 0}, {3, 1, 4}};
  expect_cvs(g, "crvShape.local", want2, 4, 1e-6);
  sinew_session_destroy(s);
}

/* A periodic circle through a cluster: its repeated CVs follow the first ones, so the result is
 * a valid periodic curve (the deformer sees 8 points, not 11). */
static void test_periodic_curve(void **state) {
  (void)state;
  sinew_session_t *s = session();
  sinew_graph_t *g = sinew_session_graph(s);
  run(s, "createNode makeNurbCircle -n mk; setAttr mk.nr -type double3 0 1 0;\n"
         "createNode transform -n c; createNode nurbsCurve -n cShape -p c;\n"
         "createNode transform -n clh; setAttr clh.t -type double3 0 5 0;\n"
         "createNode cluster -n cl;\n"
         "  setAttr .wl[0].w[0] 0.5;\n"
         "connectAttr mk.oc cl.ip[0].ig;\n"
         "connectAttr clh.wm cl.ma;\n"
         "connectAttr cl.og[0] cShape.cr;\n");
  sinew_curve_t in, out;
  sinew_data_t *a = curve_at(g, "mk.oc", &in), *b = curve_at(g, "cShape.local", &out);
  assert_int_equal(out.ncvs, in.ncvs);
  assert_int_equal(out.form, SINEW_CURVE_PERIODIC);
  for (uint32_t i = 0; i < in.ncvs; i++) {
    uint32_t u = i % (in.ncvs - in.degree); /* the distinct CV this one is */
    double dy = u == 0 ? 2.5 : 5;           /* CV 0 weighs 0.5, the others the default 1 */
    assert_true(fabs(out.cvs[4 * i] - in.cvs[4 * i]) < 1e-6);
    assert_true(fabs(out.cvs[4 * i + 1] - (in.cvs[4 * i + 1] + dy)) < 1e-6);
  }
  sinew_data_unref(a);
  sinew_data_unref(b);
  sinew_session_destroy(s);
}

/* A rational curve keeps its weights through a skinCluster; a new Orig curve with more CVs is
 * deformed at its own size (weights past the old end default to none: those CVs stay); an
 * influence matrix that makes a CV not finite fails the evaluation (logged, the curve keeps its
 * last value) instead of making a curve sinew_curve_check refuses. */
static int failures;
static void count_failures(void *ud, sinew_log_level_t level, sinew_log_id_t id, const char *msg) {
  (void)ud;
  (void)msg;
  if (level >= SINEW_LOG_WARNING && id == SINEW_LOG_COMPUTE_FAILED) failures++;
}

static void test_curve_edge_cases(void **state) {
  (void)state;
  sinew_session_t *s = session();
  sinew_graph_t *g = sinew_session_graph(s);
  run(s, SKINNED_CURVE);
  run(s, "setAttr crvShapeOrig.cc -type nurbsCurve 3 2 0 yes 3 7 0 0 0 1 2 2 2 5"
         "  0 0 0 1  2.5 0 0 2  5 0 0 1  7.5 0 0 0.5  10 0 0 1 ;"
         "setAttr tip_inf.ty 3;");
  sinew_curve_t c;
  sinew_data_t *d = curve_at(g, "crvShape.local", &c);
  assert_true(c.rational);
  static const double w[5] = {1, 2, 1, 0.5, 1};
  for (int i = 0; i < 5; i++) assert_true(c.cvs[4 * i + 3] == w[i]);
  assert_true(fabs(c.cvs[4 * 3 + 1] - 3) < 1e-6 && fabs(c.cvs[4 * 2 + 1] - 1.5) < 1e-6);
  sinew_data_unref(d);
  /* seven CVs now: CVs 5 and 6 have no weights and stay */
  run(s, "setAttr crvShapeOrig.cc -type nurbsCurve 1 6 0 no 3 7 0 1 2 3 4 5 6 7"
         "  0 0 0  2.5 0 0  5 0 0  7.5 0 0  10 0 0  12 0 0  14 0 0 ;");
  static const double seven[7][3] = {{0, 0, 0}, {2.5, 0, 0}, {5, 1.5, 0}, {7.5, 3, 0}, {10, 3, 0}, {12, 0, 0}, {14, 0, 0}};
  expect_cvs(g, "crvShape.local", seven, 7, 1e-6);
  /* a matrix of infinities: the evaluation fails, the curve stays as it was */
  sinew_graph_set_logger(g, count_failures, NULL);
  failures = 0;
  run(s, "setAttr crvSkin.pm[1] -type matrix 1e308 0 0 0 0 1e308 0 0 0 0 1e308 0 0 0 0 1;"
         "setAttr tip_inf.s -type double3 1e308 1e308 1e308;");
  expect_cvs(g, "crvShape.local", seven, 7, 1e-6);
  assert_true(failures > 0);
  sinew_session_destroy(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_skinned_curve_cvs),
      cmocka_unit_test(test_skinned_curve_spline_ik),
      cmocka_unit_test(test_blend_tweak_cluster_on_curve),
      cmocka_unit_test(test_periodic_curve),
      cmocka_unit_test(test_curve_edge_cases),
  };
  return cmocka_run_group_tests_name("curve_deform", tests, NULL, NULL);
}
