/* tests/test_rig.c: the example rig (scripts/example_rig.mel, docs/expressions.md): an arm and a
 * torso skinned to generated cylinders, with three auxiliary joints driven by expressions, a
 * bicep that bulges as the elbow bends, a chest that breathes with time, and a muscle that stays
 * between its origin and insertion and keeps its volume. The expected values are worked out here
 * in C from the formulas the rig documents, independently of the expression VM. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinew/cmds.h"
#include "sinew/sinew.h"

#ifndef SINEW_SOURCE_DIR
#define SINEW_SOURCE_DIR "."
#endif
#define RIG_PATH SINEW_SOURCE_DIR "/scripts/example_rig.mel"

static const double PI = 3.14159265358979323846;

/* |got - want| <= tol, with both values in the message (cmocka 1.1 has no double assertion). */
#define assert_double_equal(got, want, tol)                                                     \
  do {                                                                                          \
    double g_ = (got), w_ = (want), t_ = (tol);                                                 \
    if (!(fabs(g_ - w_) <= t_))                                                                 \
      fail_msg("line %d: %s = %.17g, want %.17g (tolerance %g)", __LINE__, #got, g_, w_, t_);   \
  } while (0)

/* ---- helpers -------------------------------------------------------------------------------- */

static sinew_session_t *load_rig(void) {
  sinew_session_t *s = NULL;
  assert_int_equal(sinew_session_create(NULL, &s), SINEW_OK);
  int rc = sinew_session_run_file(s, RIG_PATH, NULL);
  if (rc) fail_msg("%s: %s", RIG_PATH, sinew_session_errmsg(s));
  return s;
}

static void run(sinew_session_t *s, const char *text) {
  int rc = sinew_session_run(s, text, strlen(text), "test", NULL);
  if (rc) fail_msg("%s: %s", text, sinew_session_errmsg(s));
}

static sinew_plug_t plug(sinew_session_t *s, const char *text) {
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_plug_t p;
  if (sinew_plug_parse(g, text, (sinew_node_t){0}, &p)) fail_msg("%s: %s", text, sinew_graph_errmsg(g));
  return p;
}

static double getd(sinew_session_t *s, const char *text) {
  sinew_plug_t p = plug(s, text);
  double v = 0;
  if (sinew_get_double(sinew_session_graph(s), &p, &v))
    fail_msg("%s: %s", text, sinew_graph_errmsg(sinew_session_graph(s)));
  return v;
}

static sinew_mat4_t getm(sinew_session_t *s, const char *text) {
  sinew_plug_t p = plug(s, text);
  sinew_mat4_t m;
  if (sinew_get_matrix(sinew_session_graph(s), &p, &m))
    fail_msg("%s: %s", text, sinew_graph_errmsg(sinew_session_graph(s)));
  return m;
}

/* The world position of a transform: the translation row of its world matrix. */
static void world_pos(sinew_session_t *s, const char *node, double out[3]) {
  char buf[128];
  snprintf(buf, sizeof buf, "%s.worldMatrix[0]", node);
  sinew_mat4_t m = getm(s, buf);
  for (int i = 0; i < 3; i++) out[i] = m.m[3][i];
}

static void set_frame(sinew_session_t *s, double frame) {
  assert_int_equal(sinew_time_set_frame(sinew_session_graph(s), frame), SINEW_OK);
}

/* A new reference to a mesh plug's data; the caller releases it. */
static sinew_data_t *mesh_of(sinew_session_t *s, const char *text) {
  sinew_plug_t p = plug(s, text);
  sinew_data_t *d = NULL;
  if (sinew_get_data(sinew_session_graph(s), &p, &d) || !d)
    fail_msg("%s: %s", text, sinew_graph_errmsg(sinew_session_graph(s)));
  assert_non_null(sinew_mesh_get(d));
  return d;
}

static double smoothstep(double a, double b, double x) {
  if (x <= a) return 0;
  if (x >= b) return 1;
  double t = (x - a) / (b - a);
  return t * t * (3 - 2 * t);
}

/* The animation the rig's "animate" expression plays, in degrees. */
static double elbow_at(double frame) { return 60 - 60 * cos(frame * 7.5 * PI / 180); }
static double shoulder_at(double frame) { return 25 * sin(frame * 7.5 * PI / 180); }

/* ---- the rig as built ----------------------------------------------------------------------- */

static void test_rig_builds(void **state) {
  (void)state;
  sinew_session_t *s = load_rig();
  sinew_graph_t *g = sinew_session_graph(s);
  /* 11 joints, 4 expressions, 2 skinClusters, each with its influences */
  assert_int_equal(sinew_node_list_type(g, "joint", true, NULL, 0), 11);
  assert_int_equal(sinew_node_list_type(g, "expression", true, NULL, 0), 4);
  assert_int_equal(sinew_node_list_type(g, "skinCluster", true, NULL, 0), 2);
  sinew_node_t arm_skin, torso_skin;
  assert_int_equal(sinew_node_find(g, "armSkin", &arm_skin), SINEW_OK);
  assert_int_equal(sinew_node_find(g, "torsoSkin", &torso_skin), SINEW_OK);
  assert_int_equal(sinew_skin_influences(g, arm_skin, NULL, NULL, 0), 4);
  assert_int_equal(sinew_skin_influences(g, torso_skin, NULL, NULL, 0), 5);
  /* the joints sit where the script put them (world positions in cm) */
  set_frame(s, 0);
  double p[3];
  world_pos(s, "elbow", p);
  assert_double_equal(p[0], 40, 1e-9);
  assert_double_equal(p[1], 140, 1e-9);
  assert_double_equal(p[2], 0, 1e-9);
  world_pos(s, "bicep", p);
  assert_double_equal(p[0], 26, 1e-9);
  assert_double_equal(p[1], 143, 1e-9);
  /* the user controls are dynamic attributes with the documented defaults */
  assert_double_equal(getd(s, "bicep.bulge"), 0.35, 1e-12);
  assert_double_equal(getd(s, "breath.rate"), 0.25, 1e-12);
  assert_double_equal(getd(s, "breath.depth"), 0.04, 1e-12);
  /* every skinned vertex's weights sum to 1 and at most 3 influences carry weight */
  int32_t idx[8];
  sinew_node_t infl[8];
  size_t ninf = sinew_skin_influences(g, arm_skin, infl, idx, 8);
  (void)ninf;
  sinew_data_t *arm = mesh_of(s, "armGeoShape.worldMesh[0]");
  uint32_t npoints = sinew_mesh_get(arm)->npoints;
  sinew_data_unref(arm);
  assert_true(npoints > 100);
  for (uint32_t v = 0; v < npoints; v++) {
    double w[8];
    size_t n = 0;
    assert_int_equal(sinew_skin_get_weights(g, arm_skin, (int32_t)v, 0, NULL, w, 8, &n), SINEW_OK);
    double sum = 0;
    for (size_t k = 0; k < n; k++) sum += w[k];
    assert_double_equal(sum, 1, 1e-6);
    assert_true(n <= 3);
  }
  sinew_session_destroy(s);
}

/* ---- the bicep bulges as the elbow bends ---------------------------------------------------- */

static void test_bicep_bulge_follows_elbow(void **state) {
  (void)state;
  sinew_session_t *s = load_rig();
  const double frames[] = {0, 3, 8, 12, 16, 20, 24, 30, 40};
  for (size_t i = 0; i < sizeof frames / sizeof frames[0]; i++) {
    double f = frames[i];
    set_frame(s, f);
    double bend = elbow_at(f);
    /* the elbow is driven by the animation (degrees in, radians stored) */
    assert_double_equal(getd(s, "elbow.rotateZ"), bend * PI / 180, 1e-9);
    assert_double_equal(getd(s, "shoulder.rotateY"), shoulder_at(f) * PI / 180, 1e-9);
    double a = smoothstep(15, 120, fmin(fmax(bend, 0), 150));
    assert_double_equal(getd(s, "bicep.scaleY"), 1 + 0.35 * a, 1e-9);
    assert_double_equal(getd(s, "bicep.scaleZ"), 1 + 0.35 * a, 1e-9);
    assert_double_equal(getd(s, "bicep.scaleX"), 1 - 0.3 * 0.35 * a, 1e-9);
  }
  /* straight arm: no bulge; fully bent (frame 24, 120 degrees): the whole bulge */
  set_frame(s, 0);
  assert_double_equal(getd(s, "bicep.scaleY"), 1, 1e-12);
  set_frame(s, 24);
  assert_double_equal(getd(s, "bicep.scaleY"), 1.35, 1e-9);
  /* the user's control changes the bulge */
  run(s, "setAttr bicep.bulge 1;");
  assert_double_equal(getd(s, "bicep.scaleY"), 2, 1e-9);
  assert_double_equal(getd(s, "bicep.scaleX"), 0.7, 1e-9);
  /* and is limited to its range (0..2): the command fails and the value stays */
  assert_int_not_equal(sinew_session_run(s, "setAttr bicep.bulge 5;", 22, "test", NULL), SINEW_OK);
  assert_double_equal(getd(s, "bicep.bulge"), 1, 1e-12);
  sinew_session_destroy(s);
}

/* ---- the chest breathes with time ----------------------------------------------------------- */

static void test_breathing_follows_time(void **state) {
  (void)state;
  sinew_session_t *s = load_rig();
  double rate = 0.25, depth = 0.04;
  for (int f = 0; f <= 96; f += 6) {
    set_frame(s, f);
    double t = f / 24.0; /* film */
    double sn = sin(t * rate * 2 * PI);
    assert_double_equal(getd(s, "breath.scaleX"), 1 + 0.5 * depth * sn, 1e-9);
    assert_double_equal(getd(s, "breath.scaleY"), 1 + 0.5 * depth * sn, 1e-9);
    assert_double_equal(getd(s, "breath.scaleZ"), 1 + depth * sn, 1e-9);
  }
  /* one breath every 4 seconds: frame 24 (1 s) is the deepest point */
  set_frame(s, 24);
  assert_double_equal(getd(s, "breath.scaleZ"), 1.04, 1e-9);
  /* faster and deeper breathing, changed by the user */
  run(s, "setAttr breath.rate 0.5; setAttr breath.depth 0.1;");
  set_frame(s, 12); /* 0.5 s at 0.5 Hz: the top of the sine */
  assert_double_equal(getd(s, "breath.scaleZ"), 1.1, 1e-9);
  assert_double_equal(getd(s, "breath.scaleX"), 1.05, 1e-9);
  /* a new frame rate keeps the time in seconds and re-runs what reads frames: at 1 s, the
   * animation (driven by frame) is now at frame 30 */
  set_frame(s, 24);
  assert_double_equal(getd(s, "elbow.rotateZ"), elbow_at(24) * PI / 180, 1e-9);
  run(s, "currentUnit -t ntsc;");
  assert_double_equal(getd(s, "elbow.rotateZ"), elbow_at(30) * PI / 180, 1e-9);
  run(s, "currentUnit -t film;");
  assert_double_equal(getd(s, "elbow.rotateZ"), elbow_at(24) * PI / 180, 1e-9);
  /* a different frame rate changes what a frame means, not the breathing in seconds */
  run(s, "currentUnit -t ntsc;");
  set_frame(s, 15); /* 0.5 s at 30 fps */
  assert_double_equal(getd(s, "breath.scaleZ"), 1.1, 1e-9);
  sinew_session_destroy(s);
}

/* ---- the muscle stays between origin and insertion and keeps its volume -------------------- */

static void test_muscle_stretches_keeping_volume(void **state) {
  (void)state;
  sinew_session_t *s = load_rig();
  double o[3], in[3];
  set_frame(s, 0);
  world_pos(s, "pecOrigin", o);
  world_pos(s, "pecInsertion", in);
  double rest = sqrt((in[0] - o[0]) * (in[0] - o[0]) + (in[1] - o[1]) * (in[1] - o[1]) +
                     (in[2] - o[2]) * (in[2] - o[2]));
  assert_double_equal(getd(s, "pecMuscle.restLength"), rest, 1e-6);
  bool stretched = false, squashed = false;
  for (int f = 0; f <= 48; f += 4) {
    set_frame(s, f);
    world_pos(s, "pecOrigin", o);
    world_pos(s, "pecInsertion", in);
    double d[3] = {in[0] - o[0], in[1] - o[1], in[2] - o[2]};
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double sx = getd(s, "pecMuscle.scaleX"), sy = getd(s, "pecMuscle.scaleY"),
           sz = getd(s, "pecMuscle.scaleZ");
    assert_double_equal(sx, len / rest, 1e-6);
    assert_double_equal(sx * sy * sz, 1, 1e-9); /* volume kept */
    if (sx > 1.01) stretched = true;
    if (sx < 0.99) squashed = true;
    /* it sits midway */
    double m[3];
    world_pos(s, "pecMuscle", m);
    for (int k = 0; k < 3; k++) assert_double_equal(m[k], 0.5 * (o[k] + in[k]), 1e-6);
    /* and its X axis points from the origin to the insertion */
    sinew_mat4_t w = getm(s, "pecMuscle.worldMatrix[0]");
    double ax[3] = {w.m[0][0], w.m[0][1], w.m[0][2]};
    double axl = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
    for (int k = 0; k < 3; k++) assert_double_equal(ax[k] / axl, d[k] / len, 1e-6);
  }
  /* the shoulder's sway both stretches and squashes it over the cycle */
  assert_true(stretched);
  assert_true(squashed);
  sinew_session_destroy(s);
}

/* ---- the skinned meshes follow -------------------------------------------------------------- */

/* Mean distance from the upper arm's axis (the line y = 140, z = 0) of the points whose rest
 * position lies in the bicep region (22 <= x <= 30). */
static double bicep_region_radius(const sinew_mesh_t *rest, const sinew_mesh_t *m, int *count) {
  double sum = 0;
  int n = 0;
  for (uint32_t v = 0; v < rest->npoints; v++) {
    const float *r = rest->points + 3 * v;
    if (r[0] < 22 || r[0] > 30) continue;
    const float *p = m->points + 3 * v;
    sum += hypot(p[1] - 140.0, p[2]);
    n++;
  }
  *count = n;
  return n ? sum / n : 0;
}

static void test_skinned_arm_follows(void **state) {
  (void)state;
  sinew_session_t *s = load_rig();
  /* the rig was bound at frame 0, where the animation is at rest: the output is the input */
  set_frame(s, 0);
  sinew_data_t *orig = mesh_of(s, "armGeoShapeOrig.worldMesh[0]");
  sinew_data_t *rest = mesh_of(s, "armGeoShape.worldMesh[0]");
  const sinew_mesh_t *mo = sinew_mesh_get(orig), *mr = sinew_mesh_get(rest);
  assert_int_equal(mo->npoints, mr->npoints);
  for (uint32_t i = 0; i < 3 * mo->npoints; i++) assert_double_equal(mr->points[i], mo->points[i], 1e-4);
  int n0 = 0, n1 = 0;
  double r0 = bicep_region_radius(mo, mr, &n0);
  assert_true(n0 > 16);
  assert_double_equal(r0, 4, 1e-3); /* the cylinder's radius */

  /* frame 24: the elbow is bent 120 degrees and the shoulder back at 0, so the upper arm has not
   * moved: the points of the bicep region move outward, with the bicep's bulge */
  set_frame(s, 24);
  sinew_data_t *bent = mesh_of(s, "armGeoShape.worldMesh[0]");
  const sinew_mesh_t *mb = sinew_mesh_get(bent);
  double r1 = bicep_region_radius(mo, mb, &n1);
  assert_int_equal(n0, n1);
  assert_true(r1 > r0 + 0.1);
  /* with the bulge turned off, the same pose leaves the bicep region on the cylinder, which
   * shows the bulge (not the elbow) moved it */
  run(s, "setAttr bicep.bulge 0;");
  sinew_data_t *flat = mesh_of(s, "armGeoShape.worldMesh[0]");
  double r2 = bicep_region_radius(mo, sinew_mesh_get(flat), &n1);
  print_message("bicep region: mean radius %.3f at rest, %.3f bent with the bulge, %.3f without\n", r0, r1, r2);
  assert_true(r2 < r1 - 0.1);
  assert_double_equal(r2, 4, 0.05);
  /* the forearm follows the elbow: the wrist end of the mesh is far from where it was */
  const sinew_mesh_t *mf = sinew_mesh_get(flat);
  double moved = 0;
  for (uint32_t v = 0; v < mo->npoints; v++)
    if (mo->points[3 * v] > 60) moved = fmax(moved, fabs(mf->points[3 * v + 1] - mo->points[3 * v + 1]));
  assert_true(moved > 10);
  sinew_data_unref(flat);
  sinew_data_unref(bent);
  sinew_data_unref(rest);
  sinew_data_unref(orig);
  sinew_session_destroy(s);
}

/* The torso follows the breathing joint: at the deepest breath the chest points near the
 * breath joint move, and the rest of the torso stays. */
static void test_skinned_torso_breathes(void **state) {
  (void)state;
  sinew_session_t *s = load_rig();
  set_frame(s, 0);
  sinew_data_t *a = mesh_of(s, "torsoGeoShape.worldMesh[0]");
  set_frame(s, 24);
  sinew_data_t *b = mesh_of(s, "torsoGeoShape.worldMesh[0]");
  const sinew_mesh_t *ma = sinew_mesh_get(a), *mb = sinew_mesh_get(b);
  double chest = 0, hips = 0;
  for (uint32_t v = 0; v < ma->npoints; v++) {
    const float *p = ma->points + 3 * v, *q = mb->points + 3 * v;
    double d = sqrt((q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]) +
                    (q[2] - p[2]) * (q[2] - p[2]));
    if (p[1] > 125 && p[2] > 5) chest = fmax(chest, d);
    if (p[1] < 105) hips = fmax(hips, d);
  }
  print_message("torso at the deepest breath: chest points moved up to %.3f cm, hips %.2g\n", chest, hips);
  assert_true(chest > 0.05);
  assert_double_equal(hips, 0, 1e-4);
  sinew_data_unref(b);
  sinew_data_unref(a);
  sinew_session_destroy(s);
}

/* Re-evaluation: changing the frame recomputes the skins; pulling again computes nothing. */
static void test_rig_reevaluates_only_when_dirty(void **state) {
  (void)state;
  sinew_session_t *s = load_rig();
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_node_t arm_skin;
  assert_int_equal(sinew_node_find(g, "armSkin", &arm_skin), SINEW_OK);
  set_frame(s, 5);
  sinew_data_unref(mesh_of(s, "armGeoShape.worldMesh[0]"));
  uint64_t c0, e0, c1, e1;
  assert_int_equal(sinew_skin_cluster_stats(g, arm_skin, &c0, &e0), SINEW_OK);
  sinew_data_unref(mesh_of(s, "armGeoShape.worldMesh[0]"));
  assert_int_equal(sinew_skin_cluster_stats(g, arm_skin, &c1, &e1), SINEW_OK);
  assert_int_equal(e1, e0); /* clean: nothing computed */
  set_frame(s, 6);
  sinew_data_unref(mesh_of(s, "armGeoShape.worldMesh[0]"));
  assert_int_equal(sinew_skin_cluster_stats(g, arm_skin, &c1, &e1), SINEW_OK);
  assert_int_equal(e1, e0 + 1); /* deformed once more */
  assert_int_equal(c1, c0);     /* joints moved: the weights were not compiled again */
  sinew_session_destroy(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rig_builds),
      cmocka_unit_test(test_bicep_bulge_follows_elbow),
      cmocka_unit_test(test_breathing_follows_time),
      cmocka_unit_test(test_muscle_stretches_keeping_volume),
      cmocka_unit_test(test_skinned_arm_follows),
      cmocka_unit_test(test_skinned_torso_breathes),
      cmocka_unit_test(test_rig_reevaluates_only_when_dirty),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
