/* tests/test_real_rigs.c: real rigs evaluate (issue 14's proof). Each rig of tests/data that
 * auto-riggers and riggers built from constraints, utility and matrix nodes and IK:
 *
 *   - no joint's world matrix depends on a node type sinew does not evaluate (the flexi-surface
 *     module's follicles are the one known exception, listed), nor any mesh that is not an
 *     intermediate object (omtk's body goes through a polyColorPerVertex);
 *   - as loaded, every skinned joint sits where the skinCluster's bindPreMatrix says it was
 *     bound (worldMatrix * bindPreMatrix = identity): the whole network of constraints,
 *     conditions, multiplyDivides and IK between the controls and the joints reproduces the
 *     pose Maya saved;
 *   - moving a control moves the joints it drives and the skin, and putting it back puts them
 *     back.
 *
 * The files are copies in tests/data (tests/data/README.md gives their sources and licences). */
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

static sinew_session_t *open_rig(const char *rel) {
  sinew_session_t *s = NULL;
  assert_int_equal(sinew_session_create(NULL, &s), SINEW_OK);
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", SINEW_TEST_DATA_DIR, rel);
  if (sinew_session_open(s, path)) fail_msg("%s: %s", path, sinew_session_errmsg(s));
  return s;
}

static sinew_plug_t plug(sinew_graph_t *g, const char *text) {
  sinew_plug_t p;
  if (sinew_plug_parse(g, text, (sinew_node_t){0, 0}, &p)) fail_msg("no plug %s: %s", text, sinew_graph_errmsg(g));
  return p;
}

static sinew_mat4_t world(sinew_graph_t *g, sinew_node_t n) {
  sinew_mat4_t m;
  sinew_plug_t p = sinew_plug_make(n, sinew_node_attr(g, n, "worldMatrix"), 1, (const int32_t[]){0});
  if (sinew_get_matrix(g, &p, &m)) fail_msg("%s.worldMatrix: %s", sinew_node_name(g, n), sinew_graph_errmsg(g));
  return m;
}

static double mat_diff(const sinew_mat4_t *a, const sinew_mat4_t *b) {
  double d = 0;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) d = fmax(d, fabs(a->m[i][j] - b->m[i][j]));
  return d;
}

/* Every node of `type` whose `attr` (element 0 when it is an array) depends on a placeholder:
 * how many (their names listed in `frozen`, comma-separated, for the message). Meshes that are
 * intermediate objects (the Orig shapes) are skipped, as sinew info does. */
static size_t frozen_nodes(sinew_graph_t *g, const char *type, const char *attr, bool array, char *frozen,
                           size_t size) {
  size_t n = sinew_node_list_type(g, type, false, NULL, 0), count = 0;
  sinew_node_t *j = calloc(n ? n : 1, sizeof *j);
  assert_non_null(j);
  sinew_node_list_type(g, type, false, j, n);
  frozen[0] = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t io = sinew_node_attr(g, j[i], "intermediateObject");
    if (io != UINT32_MAX) {
      bool inter = false;
      sinew_plug_t iop = sinew_plug_make(j[i], io, 0, NULL);
      if (sinew_get_bool(g, &iop, &inter) == SINEW_OK && inter) continue;
    }
    sinew_plug_t p = sinew_plug_make(j[i], sinew_node_attr(g, j[i], attr), array ? 1 : 0, (const int32_t[]){0});
    if (!sinew_plug_depends_on_placeholder(g, &p)) continue;
    count++;
    size_t len = strlen(frozen);
    snprintf(frozen + len, size - len, "%s%s", len ? ", " : "", sinew_node_name(g, j[i]));
  }
  free(j);
  return count;
}

static size_t frozen_joints(sinew_graph_t *g, char *frozen, size_t size) {
  return frozen_nodes(g, "joint", "worldMatrix", true, frozen, size);
}

/* For every skinCluster and every influence: worldMatrix * bindPreMatrix, the largest
 * difference from the identity over all of them; the influences checked are counted. */
static double bind_pose_error(sinew_graph_t *g, size_t *checked) {
  size_t ns = sinew_node_list_type(g, "skinCluster", false, NULL, 0);
  sinew_node_t *skins = calloc(ns ? ns : 1, sizeof *skins);
  assert_non_null(skins);
  sinew_node_list_type(g, "skinCluster", false, skins, ns);
  double worst = 0;
  *checked = 0;
  sinew_mat4_t id;
  sinew_mat4_identity(&id);
  for (size_t k = 0; k < ns; k++) {
    sinew_plug_t ma = sinew_plug_make(skins[k], sinew_node_attr(g, skins[k], "matrix"), 0, NULL);
    size_t n = sinew_plug_indices(g, &ma, NULL, 0);
    int32_t *idx = calloc(n ? n : 1, sizeof *idx);
    assert_non_null(idx);
    sinew_plug_indices(g, &ma, idx, n);
    for (size_t i = 0; i < n; i++) {
      sinew_plug_t m = sinew_plug_make(skins[k], ma.attr, 1, &idx[i]), src;
      if (!sinew_plug_source(g, &m, &src)) continue; /* an influence slot with no joint */
      sinew_plug_t b = sinew_plug_make(skins[k], sinew_node_attr(g, skins[k], "bindPreMatrix"), 1, &idx[i]);
      sinew_mat4_t wm, bpm, prod;
      assert_int_equal(sinew_get_matrix(g, &m, &wm), SINEW_OK);
      assert_int_equal(sinew_get_matrix(g, &b, &bpm), SINEW_OK);
      sinew_mat4_mul(&wm, &bpm, &prod);
      double d = mat_diff(&prod, &id);
      if (d > worst) worst = d;
      (*checked)++;
    }
    free(idx);
  }
  free(skins);
  return worst;
}

/* Every skinned mesh's deformed points, summed (a cheap fingerprint of the skins). */
static double skin_fingerprint(sinew_graph_t *g) {
  sinew_node_t skins[16];
  size_t ns = sinew_node_list_type(g, "skinCluster", false, skins, 16);
  if (ns < 1) fail_msg("no skinCluster");
  double sum = 0;
  for (size_t k = 0; k < ns && k < 16; k++) {
    sinew_plug_t og =
        sinew_plug_make(skins[k], sinew_node_attr(g, skins[k], "outputGeometry"), 1, (const int32_t[]){0});
    sinew_data_t *d = NULL;
    assert_int_equal(sinew_get_data(g, &og, &d), SINEW_OK);
    const sinew_mesh_t *m = sinew_mesh_get(d);
    for (uint32_t i = 0; m && i < m->npoints; i++)
      sum += m->points[i * 3] + 2.0 * m->points[i * 3 + 1] + 3.0 * m->points[i * 3 + 2];
    sinew_data_unref(d);
  }
  return sum;
}

typedef struct rig_case {
  const char *file;
  size_t min_skinned;     /* influences the bind-pose check must cover */
  const char *control;    /* a control a rigger moves, and the channel */
  double value;
  const char *moves[3];   /* joints it must move */
  const char *gap_type;   /* a known gap: the placeholder types (comma-separated) the only frozen
                             joints depend on */
  size_t gap_joints;      /* and how many joints it freezes */
  size_t gap_meshes;      /* and visible meshes */
} rig_case;

static const rig_case RIGS[] = {
    /* the arm is in IK as saved: its IK control drags the hand, and the elbow and shoulder follow
     * through the solver, the blend chain and the parentConstraints */
    {"omtk/rig_example_02_built.ma", 22,
     "|All_Grp|Ctrls_Grp|L_Arm_CtrlGrp|L_Arm_CtrlGrp1|L_Arm_Ik_Ctrl_offset|L_Arm_Ik_Ctrl_spaceSwitch|L_Arm_Ik_Ctrl.ty",
     -5, {"jnt_upperarm_l", "jnt_forearm_l", "jnt_hand_l"}, NULL, 0, 0},
    {"nlol/standalone_modules_digitigrade_leg_mod_example.ma", 8, "root_ctrl.ty", 3, {"root_jnt", NULL, NULL}, NULL, 0, 0},
    /* the tail's spline IK curve is deformed by a skinCluster and a blendShape whose one target
     * is the nHair simulation's output curve (a hair follicle's outCurve, fed by a hairSystem
     * sinew does not simulate, from a start curve a rebuildCurve makes). The blend's weight is
     * 0 as saved, so the tail is right, but its 21 spline joints depend on that target and are
     * reported: the known gap is nHair dynamics, not curves
     * (test_nlol_spline_tail_follows_its_controls checks the curve) */
    {"nlol/standalone_modules_spline_curve_tail_example.ma", 14, "pelvis_ctrl.ty", 2,
     {"pelvis_jnt", "tail_01_jnt", "tail_09_jnt"}, "hairSystem,rebuildCurve", 21, 1},
    /* the flexi-surface tail: its joints follow follicles riding a skinned ribbon mesh at UVs;
     * sliding them along the ribbon (uvSlide scales every follicle's parameterU) moves the tail */
    {"nlol/standalone_modules_flexi_surface_fk_ctrl_mod_v2_example.ma", 9, "fkTailParent_ctrl.uvSlide", -0.1,
     {"tail_01_jnt", "tail_05_jnt", "tail_09_jnt"}, NULL, 0, 0},
};

static void check_rig(const rig_case *rc) {
  sinew_session_t *s = open_rig(rc->file);
  sinew_graph_t *g = sinew_session_graph(s);
  char frozen[4096];
  size_t nf = frozen_joints(g, frozen, sizeof frozen);
  if (nf != rc->gap_joints) fail_msg("%s: %zu joints depend on placeholders: %s", rc->file, nf, frozen);
  if (rc->gap_type) {
    size_t n = sinew_node_list_type(g, "joint", false, NULL, 0);
    sinew_node_t *jn = calloc(n ? n : 1, sizeof *jn);
    assert_non_null(jn);
    sinew_node_list_type(g, "joint", false, jn, n);
    for (size_t i = 0; i < n; i++) {
      sinew_plug_t p = sinew_plug_make(jn[i], sinew_node_attr(g, jn[i], "worldMatrix"), 1, (const int32_t[]){0});
      sinew_node_t ph[8];
      size_t count = 0;
      assert_int_equal(sinew_plug_placeholders(g, &p, ph, 8, &count), SINEW_OK);
      for (size_t k = 0; k < count && k < 8; k++)
        if (!strstr(rc->gap_type, sinew_node_type_name(sinew_node_type(g, ph[k]))))
          fail_msg("%s: %s waits on a %s, not only the known %s", rc->file, sinew_node_name(g, jn[i]),
                   sinew_node_type_name(sinew_node_type(g, ph[k])), rc->gap_type);
    }
    free(jn);
  }
  nf = frozen_nodes(g, "mesh", "outMesh", false, frozen, sizeof frozen);
  if (nf != rc->gap_meshes) fail_msg("%s: %zu meshes depend on placeholders: %s", rc->file, nf, frozen);
  size_t checked;
  double err = bind_pose_error(g, &checked);
  if (checked < rc->min_skinned) fail_msg("%s: %zu skinned joints checked, want %zu", rc->file, checked, rc->min_skinned);
  if (err > 1e-3) fail_msg("%s: a skinned joint is %.3g from its bind pose", rc->file, err);
  if (rc->control) {
    sinew_plug_t ctl = plug(g, rc->control);
    double before_v;
    assert_int_equal(sinew_get_double(g, &ctl, &before_v), SINEW_OK);
    sinew_mat4_t before[3];
    sinew_node_t j[3];
    for (int k = 0; k < 3 && rc->moves[k]; k++) {
      assert_int_equal(sinew_node_find(g, rc->moves[k], &j[k]), SINEW_OK);
      before[k] = world(g, j[k]);
    }
    double skin0 = skin_fingerprint(g);
    /* the control's unit: degrees for rotations (the scene's angle unit), its linear unit else */
    double v = rc->value;
    if (strstr(rc->control, ".r")) v *= 3.14159265358979323846 / 180;
    assert_int_equal(sinew_set_double(g, &ctl, before_v + v), SINEW_OK);
    for (int k = 0; k < 3 && rc->moves[k]; k++) {
      sinew_mat4_t now = world(g, j[k]);
      if (mat_diff(&now, &before[k]) < 1e-3) fail_msg("%s: %s did not move with %s", rc->file, rc->moves[k], rc->control);
    }
    if (fabs(skin_fingerprint(g) - skin0) < 1e-6) fail_msg("%s: the skin did not move with %s", rc->file, rc->control);
    /* and back */
    assert_int_equal(sinew_set_double(g, &ctl, before_v), SINEW_OK);
    for (int k = 0; k < 3 && rc->moves[k]; k++) {
      sinew_mat4_t now = world(g, j[k]);
      if (mat_diff(&now, &before[k]) > 1e-9) fail_msg("%s: %s did not come back", rc->file, rc->moves[k]);
    }
    assert_true(fabs(skin_fingerprint(g) - skin0) < 1e-6 * (1 + fabs(skin0)));
  }
  sinew_session_destroy(s);
}

static void test_omtk_biped(void **state) {
  (void)state;
  check_rig(&RIGS[0]);
}

static void test_nlol_digitigrade_leg(void **state) {
  (void)state;
  check_rig(&RIGS[1]);
}

static void test_nlol_spline_tail(void **state) {
  (void)state;
  check_rig(&RIGS[2]);
}

/* The tail's end control moves the spline IK curve through its skinCluster (the curve's CVs
 * deformed as points), and the spline joints follow it: each on the deformed curve, each bone
 * its length, the tip moving most; putting the control back puts them back. */
static void test_nlol_spline_tail_follows_its_controls(void **state) {
  (void)state;
  sinew_session_t *s = open_rig("nlol/standalone_modules_spline_curve_tail_example.ma");
  sinew_graph_t *g = sinew_session_graph(s);
  enum { N = 9 };
  sinew_node_t j[N];
  sinew_mat4_t before[N];
  for (int k = 0; k < N; k++) {
    char name[32];
    snprintf(name, sizeof name, "ikTail_%02d_jnt", k + 1);
    assert_int_equal(sinew_node_find(g, name, &j[k]), SINEW_OK);
    before[k] = world(g, j[k]);
  }
  sinew_plug_t ctl = plug(g, "ikTailEnd_ctrl.ty"), ws = plug(g, "tail_ikHandkleCrvShape.worldSpace[0]");
  double ty0;
  assert_int_equal(sinew_get_double(g, &ctl, &ty0), SINEW_OK);
  assert_int_equal(sinew_set_double(g, &ctl, ty0 + 40), SINEW_OK);
  sinew_data_t *d = NULL;
  sinew_curve_t c;
  assert_int_equal(sinew_get_data(g, &ws, &d), SINEW_OK);
  assert_int_equal(sinew_curve_get(d, &c), SINEW_OK);
  double lo, hi, moved_first = 0, moved_last = 0;
  sinew_curve_range(&c, &lo, &hi);
  for (int k = 0; k < N; k++) {
    sinew_mat4_t m = world(g, j[k]);
    double mv = hypot(hypot(m.m[3][0] - before[k].m[3][0], m.m[3][1] - before[k].m[3][1]), m.m[3][2] - before[k].m[3][2]);
    if (k == 1) moved_first = mv;
    if (k == N - 1) moved_last = mv;
    /* on the deformed curve: the nearest of 20,000 samples, within a sample's spacing */
    double best = INFINITY;
    for (int i = 0; i <= 20000; i++) {
      sinew_vec3_t q;
      sinew_curve_eval(&c, lo + (hi - lo) * i / 20000, &q, NULL, NULL);
      best = fmin(best, hypot(hypot(q.x - m.m[3][0], q.y - m.m[3][1]), q.z - m.m[3][2]));
    }
    if (best > 0.05) fail_msg("ikTail_%02d_jnt is %.3g off the deformed curve", k + 1, best);
  }
  sinew_data_unref(d);
  if (!(moved_last > 10 && moved_last > moved_first))
    fail_msg("the tail did not follow ikTailEnd_ctrl: tip moved %.3g, second joint %.3g", moved_last, moved_first);
  assert_int_equal(sinew_set_double(g, &ctl, ty0), SINEW_OK);
  for (int k = 0; k < N; k++) {
    sinew_mat4_t now = world(g, j[k]);
    if (mat_diff(&now, &before[k]) > 1e-9) fail_msg("ikTail_%02d_jnt did not come back", k + 1);
  }
  sinew_session_destroy(s);
}

static void test_nlol_flexi_surface(void **state) {
  (void)state;
  check_rig(&RIGS[3]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_omtk_biped),
      cmocka_unit_test(test_nlol_digitigrade_leg),
      cmocka_unit_test(test_nlol_spline_tail),
      cmocka_unit_test(test_nlol_spline_tail_follows_its_controls),
      cmocka_unit_test(test_nlol_flexi_surface),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
