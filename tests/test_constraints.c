/* tests/test_constraints.c: the constraint nodes (nodes/constraint.c) and commands
 * (cmds/cmd_constraint.c), run through a session as a rig script or a .ma file runs them.
 *
 * Every expected value is worked out by hand in the comment next to it from the formulas in
 * docs/rigging.md ("Constraints"); the library's math is never used to produce one. Angles in
 * scripts are degrees; values read through the C API are internal units (cm, radians). */
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
#include "sinew/cmds.h"
#include "tests/support.h"

#define TOL 1e-9
static const double PI = 3.14159265358979323846;
static double deg(double r) { return r * 180 / PI; }

/* ---- helpers ------------------------------------------------------------------------------- */

static sinew_session_t *new_session(void) {
  sinew_session_t *s = NULL;
  assert_int_equal(sinew_session_create(NULL, &s), SINEW_OK);
  return s;
}

static int run(sinew_session_t *s, const char *text, sinew_value_t *res) {
  return sinew_session_run(s, text, strlen(text), "rig.mel", res);
}

static void run_ok(sinew_session_t *s, const char *text) {
  int rc = run(s, text, NULL);
  if (rc) fail_msg("'%s' failed: %s", text, sinew_session_errmsg(s));
}

static void run_fails(sinew_session_t *s, const char *text, int want) {
  int rc = run(s, text, NULL);
  if (rc != want) fail_msg("'%s': got %s, want %s (%s)", text, sinew_err_name(rc), sinew_err_name(want), sinew_session_errmsg(s));
}

/* Reads a numeric compound (3 values) in internal units. */
static void get3(sinew_session_t *s, const char *plug, double out[3]) {
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_plug_t p;
  if (sinew_plug_parse(g, plug, (sinew_node_t){0, 0}, &p)) fail_msg("no plug %s: %s", plug, sinew_graph_errmsg(g));
  assert_int_equal(sinew_get_doubles(g, &p, out, 3, NULL), SINEW_OK);
}

static void expect3(sinew_session_t *s, const char *plug, double x, double y, double z, double tol) {
  double v[3];
  get3(s, plug, v);
  double w[3] = {x, y, z};
  for (int i = 0; i < 3; i++) {
    if (!isfinite(v[i]) || fabs(v[i] - w[i]) > tol)
      fail_msg("%s[%d]: got %.12g, want %.12g", plug, i, v[i], w[i]);
  }
}

/* Rotate values in degrees. */
static void expect_rot(sinew_session_t *s, const char *plug, double x, double y, double z, double tol) {
  double v[3];
  get3(s, plug, v);
  double w[3] = {x, y, z};
  for (int i = 0; i < 3; i++)
    if (!isfinite(v[i]) || fabs(deg(v[i]) - w[i]) > tol)
      fail_msg("%s[%d]: got %.12g deg, want %.12g", plug, i, deg(v[i]), w[i]);
}

/* Rows 0..2 of a node's world matrix. */
static void expect_rows(sinew_session_t *s, const char *node, const double want[3][3], double tol) {
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_node_t n;
  assert_int_equal(sinew_node_find(g, node, &n), SINEW_OK);
  sinew_mat4_t m;
  assert_int_equal(sinew_dag_world_matrix(g, n, &m), SINEW_OK);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      if (!isfinite(m.m[r][c]) || fabs(m.m[r][c] - want[r][c]) > tol)
        fail_msg("%s world row %d col %d: got %.12g, want %.12g", node, r, c, m.m[r][c], want[r][c]);
}

static void expect_strings(sinew_session_t *s, const char *text, size_t n, const char *const *want) {
  sinew_value_t r = {0};
  if (run(s, text, &r)) fail_msg("'%s' failed: %s", text, sinew_session_errmsg(s));
  if (sinew_value_count(&r) != n) fail_msg("'%s': %zu results, want %zu", text, sinew_value_count(&r), n);
  for (size_t i = 0; i < n; i++) {
    const char *got = sinew_value_string_at(&r, i);
    if (!got || strcmp(got, want[i]) != 0) fail_msg("'%s'[%zu]: got '%s', want '%s'", text, i, got, want[i]);
  }
  sinew_value_clear(&r);
}

/* What a failed command must leave as it was. */
typedef struct snapshot {
  size_t nodes, conns;
  double t[3], r[3], s[3];
  uint32_t attrs;
} snapshot;

static void snap(sinew_session_t *s, const char *obj, snapshot *out) {
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_graph_stats_t st;
  sinew_graph_stats(g, &st);
  out->nodes = st.nodes;
  out->conns = st.connections;
  char buf[128];
  snprintf(buf, sizeof buf, "%s.t", obj);
  get3(s, buf, out->t);
  snprintf(buf, sizeof buf, "%s.r", obj);
  get3(s, buf, out->r);
  snprintf(buf, sizeof buf, "%s.s", obj);
  get3(s, buf, out->s);
  sinew_node_t n;
  assert_int_equal(sinew_node_find(g, obj, &n), SINEW_OK);
  out->attrs = sinew_node_attr_count(g, n);
}

static void same_snapshot(sinew_session_t *s, const char *obj, const snapshot *before) {
  snapshot now;
  snap(s, obj, &now);
  assert_int_equal(now.nodes, before->nodes);
  assert_int_equal(now.conns, before->conns);
  assert_int_equal(now.attrs, before->attrs);
  for (int i = 0; i < 3; i++) {
    assert_true(now.t[i] == before->t[i]);
    assert_true(now.r[i] == before->r[i]);
    assert_true(now.s[i] == before->s[i]);
  }
}

/* ---- pointConstraint -------------------------------------------------------------------------- */

static void test_point_two_weighted_targets(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s, "createNode transform -n A; setAttr A.t 2 0 0;"
            "createNode transform -n B; setAttr B.t 0 4 0;"
            "createNode transform -n grp; setAttr grp.t 1 1 1;"
            "createNode transform -n obj -p grp; setAttr obj.rp 0 1 0;"
            "pointConstraint -w 1 A obj; pointConstraint -w 3 B obj;");
  /* P = (1*(2,0,0) + 3*(0,4,0)) / 4 = (0.5, 3, 0); in grp's space (translate 1 1 1):
   * (-0.5, 2, -1); minus the rotate pivot (0, 1, 0): ct = (-0.5, 1, -1) */
  expect3(s, "obj.t", -0.5, 1, -1, TOL);
  expect3(s, "obj_pointConstraint1.ct", -0.5, 1, -1, TOL);
  /* the targets move: B to (0, 8, 0) -> P = (0.5, 6, 0) -> ct = (-0.5, 4, -1) (pull after set) */
  run_ok(s, "setAttr B.ty 8;");
  expect3(s, "obj.t", -0.5, 4, -1, TOL);
  /* the weight alias drives tg[1].tw: B's weight 0 leaves A alone: (2,0,0) - (1,1,1) - rp = (1,-2,-1) */
  run_ok(s, "setAttr obj_pointConstraint1.BW1 0;");
  expect3(s, "obj.t", 1, -2, -1, TOL);
  sinew_session_destroy(s);
}

static void test_point_offset_and_maintain(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s, "createNode transform -n A; setAttr A.t 2 0 0;"
            "createNode transform -n obj; setAttr obj.t 0 0 5;"
            "pointConstraint -mo A obj;");
  /* -mo: o = (0,0,5) - (2,0,0) = (-2, 0, 5); the object stays at (0, 0, 5) */
  expect3(s, "obj_pointConstraint1.o", -2, 0, 5, TOL);
  expect3(s, "obj.t", 0, 0, 5, TOL);
  run_ok(s, "setAttr A.tx 3;"); /* (3,0,0) + (-2,0,5) = (1, 0, 5) */
  expect3(s, "obj.t", 1, 0, 5, TOL);
  /* -o at creation on a second object: (3,0,0) + (1,2,3) */
  run_ok(s, "createNode transform -n obj2; pointConstraint -o 1 2 3 A obj2;");
  expect3(s, "obj2.t", 4, 2, 3, TOL);
  /* -q -o reads it back; -e -o changes it: (3,0,0) + (0,0,1) */
  sinew_value_t r = {0};
  assert_int_equal(run(s, "pointConstraint -q -o obj2;", &r), SINEW_OK);
  assert_int_equal(sinew_value_count(&r), 3);
  assert_true(sinew_value_double_at(&r, 0) == 1 && sinew_value_double_at(&r, 1) == 2 &&
              sinew_value_double_at(&r, 2) == 3);
  sinew_value_clear(&r);
  run_ok(s, "pointConstraint -e -o 0 0 1 obj2;");
  expect3(s, "obj2.t", 3, 0, 1, TOL);
  /* orient offsets are angles: -q -o answers in degrees */
  run_ok(s, "createNode transform -n obj4; orientConstraint -o 0 0 45 A obj4;");
  assert_int_equal(run(s, "orientConstraint -q -o obj4;", &r), SINEW_OK);
  assert_true(fabs(sinew_value_double_at(&r, 2) - 45) < 1e-9);
  sinew_value_clear(&r);
  expect_rot(s, "obj4.r", 0, 0, 45, 1e-9);
  sinew_session_destroy(s);
}

static void test_point_skip_axes(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  sinew_graph_t *g = sinew_session_graph(s);
  run_ok(s, "createNode transform -n A; setAttr A.t 2 3 4;"
            "createNode transform -n obj; setAttr obj.t 7 8 9;"
            "pointConstraint -sk y -sk z A obj;");
  /* x follows A; y and z are not connected and keep their values */
  expect3(s, "obj.t", 2, 8, 9, TOL);
  sinew_plug_t p;
  assert_int_equal(sinew_plug_parse(g, "obj.ty", (sinew_node_t){0, 0}, &p), SINEW_OK);
  assert_false(sinew_plug_source(g, &p, NULL));
  assert_int_equal(sinew_plug_parse(g, "obj.tx", (sinew_node_t){0, 0}, &p), SINEW_OK);
  assert_true(sinew_plug_source(g, &p, NULL));
  run_ok(s, "setAttr obj.ty 1;"); /* still free */
  expect3(s, "obj.t", 2, 1, 9, TOL);
  /* parentConstraint: -st x -sr z leave tx and rz free */
  run_ok(s, "createNode transform -n obj3; setAttr obj3.t 5 5 5; setAttr obj3.rz 10;"
            "setAttr A.rz 30; parentConstraint -st x -sr z A obj3;");
  expect3(s, "obj3.t", 5, 3, 4, TOL);
  expect_rot(s, "obj3.r", 0, 0, 10, 1e-9);
  sinew_session_destroy(s);
}

/* ---- rest position ----------------------------------------------------------------------------- */

static void test_rest_when_weights_zero(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s, "createNode transform -n A; setAttr A.t 2 0 0;"
            "createNode transform -n obj; setAttr obj.t 0 0 5; setAttr obj.rz 20;"
            "parentConstraint A obj;");
  expect3(s, "obj.t", 2, 0, 0, TOL);
  /* the command turned the rest position on at the object's values then: rst (0,0,5), rsrr (0,0,20) */
  run_ok(s, "setAttr obj_parentConstraint1.AW0 0;");
  expect3(s, "obj.t", 0, 0, 5, TOL);
  expect_rot(s, "obj.r", 0, 0, 20, 1e-9);
  /* rest off: the outputs keep their last values */
  run_ok(s, "setAttr obj_parentConstraint1.erp 0; setAttr obj_parentConstraint1.rst 9 9 9;");
  expect3(s, "obj.t", 0, 0, 5, TOL);
  /* a weight back: (2,0,0) again */
  run_ok(s, "setAttr obj_parentConstraint1.AW0 0.5;");
  expect3(s, "obj.t", 2, 0, 0, TOL);
  sinew_session_destroy(s);
}

/* ---- orientConstraint -------------------------------------------------------------------------- */

/* Blends A (rz = 0) and B (rz = b) half and half with interpType mode: the object's rz. */
static double orient_blend(sinew_session_t *s, int mode, double b) {
  char buf[256];
  snprintf(buf, sizeof buf, "setAttr obj_orientConstraint1.int %d; setAttr B.rz %.17g;", mode, b);
  run_ok(s, buf);
  double v[3];
  get3(s, "obj.r", v);
  assert_true(fabs(v[0]) < 1e-9 && fabs(v[1]) < 1e-9);
  return deg(v[2]);
}

static void test_orient_interp_types_across_180(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s, "createNode transform -n A; createNode transform -n B; createNode transform -n obj;"
            "orientConstraint A B obj;");
  /* q_A = (0,0,0,1); B at 170: q_B = (0,0,sin 85, cos 85), dot = cos 85 > 0.
   * average / shortest: the half way rotation, 85. longest: the other way round, 85 - 180 = -95. */
  assert_true(fabs(orient_blend(s, 1, 170) - 85) < 1e-9);
  assert_true(fabs(orient_blend(s, 2, 170) - 85) < 1e-9);
  assert_true(fabs(orient_blend(s, 3, 170) - -95) < 1e-9);
  /* B at 190 (= -170): q_B = (0,0,sin 95, cos 95), dot = cos 95 < 0, so average and shortest go
   * through 0: (0 + -170) / 2 = -85; longest goes through 180: 95. */
  assert_true(fabs(orient_blend(s, 1, 190) - -85) < 1e-9);
  assert_true(fabs(orient_blend(s, 2, 190) - -85) < 1e-9);
  assert_true(fabs(orient_blend(s, 3, 190) - 95) < 1e-9);
  /* cache (no cache kept): as average */
  assert_true(fabs(orient_blend(s, 4, 190) - -85) < 1e-9);
  /* no flip: B from 170 to 190 continues from the last result (85): q_B(190) lies in the
   * hemisphere of q(85) (dot = cos(95/2... ) = cos 52.5 > 0), and so does q_A: the average of
   * q_A and q_B unflipped is 95, where average flips to -85 */
  assert_true(fabs(orient_blend(s, 0, 170) - 85) < 1e-9);
  assert_true(fabs(orient_blend(s, 0, 190) - 95) < 1e-9);
  /* a single target with weight 1 is the same in every mode */
  run_ok(s, "setAttr obj_orientConstraint1.BW1 0;");
  for (int m = 0; m <= 4; m++) assert_true(fabs(orient_blend(s, m, 190)) < 1e-9);
  sinew_session_destroy(s);
}

static void test_orient_joint_orient_and_offset(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s, "createNode transform -n A; setAttr A.rz 90;"
            "createNode joint -n j; setAttr j.jo 0 0 90;"
            "orientConstraint A j;");
  /* the joint's world rotation is R * JO = RZ(90), so R = RZ(90) * RZ(-90) = identity */
  expect_rot(s, "j.r", 0, 0, 0, 1e-9);
  run_ok(s, "setAttr A.rz 120;"); /* RZ(120) * RZ(-90) = RZ(30) */
  expect_rot(s, "j.r", 0, 0, 30, 1e-9);
  /* -mo on a transform: A at rz 120, the object at rx 10: Rot(o) = RX(10) * RZ(-120); with A
   * moved to rz 150 the object's rotation is RX(10) * RZ(-120) * RZ(150) = RX(10) * RZ(30):
   * xyz Euler (10, 0, 30) */
  run_ok(s, "createNode transform -n obj; setAttr obj.rx 10; orientConstraint -mo A obj;");
  expect_rot(s, "obj.r", 10, 0, 0, 1e-9);
  run_ok(s, "setAttr A.rz 150;");
  expect_rot(s, "obj.r", 10, 0, 30, 1e-9);
  expect_rot(s, "j.r", 0, 0, 60, 1e-9);
  sinew_session_destroy(s);
}

/* ---- parentConstraint --------------------------------------------------------------------------- */

static void test_parent_two_targets_and_offset(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s, "createNode transform -n A; createNode transform -n B; setAttr B.t 4 0 0; setAttr B.rz 90;"
            "createNode transform -n obj; parentConstraint A B obj;");
  /* no offsets: each C_i is the target's frame; positions (0,0,0) and (4,0,0) -> (2,0,0);
   * rotations 0 and 90 about z, averaged: 45 */
  expect3(s, "obj.t", 2, 0, 0, TOL);
  expect_rot(s, "obj.r", 0, 0, 45, 1e-9);
  /* a target offset in the target's space: B.tot = (1,0,0) is (0,1,0) in the world after B's
   * RZ(90), so B's point is (4,1,0) and the blend (2, 0.5, 0); B.tor = (0,0,-90) makes B's
   * rotation 0, so the blend is 0 */
  run_ok(s, "setAttr obj_parentConstraint1.tg[1].tot 1 0 0; setAttr obj_parentConstraint1.tg[1].tor 0 0 -90;");
  expect3(s, "obj.t", 2, 0.5, 0, TOL);
  expect_rot(s, "obj.r", 0, 0, 0, 1e-9);
  sinew_session_destroy(s);
}

static void test_parent_maintain_offset_follows(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s, "createNode transform -n A; setAttr A.t 1 2 3; setAttr A.rz 90;"
            "createNode transform -n obj; setAttr obj.t 0 0 7;"
            "parentConstraint -mo A obj;");
  /* Off = T(0,0,7) * A^-1: rotation RZ(-90); translation ((0,0,7) - (1,2,3)) * RZ(-90):
   * (-1,-2,4) * rows (0,-1,0), (1,0,0), (0,0,1) = (-2, 1, 4) */
  expect3(s, "obj_parentConstraint1.tg[0].tot", -2, 1, 4, 1e-9);
  expect_rot(s, "obj_parentConstraint1.tg[0].tor", 0, 0, -90, 1e-9);
  expect3(s, "obj.t", 0, 0, 7, 1e-9);
  expect_rot(s, "obj.r", 0, 0, 0, 1e-9);
  /* A turns to rz 180: the object swings around A as its child: (-2,1,4) * RZ(180) + (1,2,3)
   * = (2,-1,4) + (1,2,3) = (3, 1, 7); its rotation RZ(-90) * RZ(180) = RZ(90) */
  run_ok(s, "setAttr A.rz 180;");
  expect3(s, "obj.t", 3, 1, 7, 1e-9);
  expect_rot(s, "obj.r", 0, 0, 90, 1e-9);
  sinew_session_destroy(s);
}

/* A space switch built as scripts do: one -mo call per target. The second call adds to the
 * constraint the object already has and keeps the pose the object had before it. */
static void test_parent_maintain_offset_second_target(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s, "createNode transform -n A; setAttr A.t 1 0 0;"
            "createNode transform -n B; setAttr B.rz 90;"
            "createNode transform -n obj; setAttr obj.t 0 0 7;"
            "parentConstraint -mo A obj; parentConstraint -mo B obj;");
  /* A's offset: (0,0,7) - (1,0,0) = (-1,0,7); B's: T(0,0,7) * RZ(-90): tot (0,0,7), tor (0,0,-90).
   * Both give the frame (0,0,7), identity: the object stays */
  expect3(s, "obj_parentConstraint1.tg[0].tot", -1, 0, 7, 1e-9);
  expect3(s, "obj_parentConstraint1.tg[1].tot", 0, 0, 7, 1e-9);
  expect_rot(s, "obj_parentConstraint1.tg[1].tor", 0, 0, -90, 1e-9);
  expect3(s, "obj.t", 0, 0, 7, 1e-9);
  expect_rot(s, "obj.r", 0, 0, 0, 1e-9);
  /* B moves 2 along x: its frame goes to (2,0,7); the average of (0,0,7) and (2,0,7) is (1,0,7) */
  run_ok(s, "setAttr B.tx 2;");
  expect3(s, "obj.t", 1, 0, 7, 1e-9);
  const char *tl[] = {"A", "B"};
  expect_strings(s, "parentConstraint -q -tl obj;", 2, tl);
  sinew_session_destroy(s);
}

/* A joint target and a joint object: the target's jointOrient turns its frame, the object's is
 * taken out of its rotate. */
static void test_parent_joints(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s, "createNode joint -n tj; setAttr tj.t 0 5 0; setAttr tj.jo 0 0 90;"
            "createNode joint -n oj; setAttr oj.jo 0 0 30;"
            "parentConstraint tj oj;");
  /* target frame RZ(90) at (0,5,0); the object's R * JO = RZ(90) -> R = RZ(60) */
  expect3(s, "oj.t", 0, 5, 0, TOL);
  expect_rot(s, "oj.r", 0, 0, 60, 1e-9);
  sinew_session_destroy(s);
}

/* ---- aimConstraint ----------------------------------------------------------------------------- */

static void test_aim_world_up_types(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s, "createNode transform -n T; setAttr T.t 0 0 5;"
            "createNode transform -n up; setAttr up.t 0 -3 0; setAttr up.rx 90;"
            "createNode transform -n obj; aimConstraint T obj;");
  /* default: aim x, up y, world up vector (0,1,0): d = (0,0,1), w = (0,1,0), d x w = (-1,0,0):
   * world rows (0,0,1), (0,1,0), (-1,0,0), which is RY(-90) */
  const double vec_y[3][3] = {{0, 0, 1}, {0, 1, 0}, {-1, 0, 0}};
  expect_rows(s, "obj", vec_y, 1e-9);
  expect_rot(s, "obj.r", 0, -90, 0, 1e-9);
  /* scene up: world +Y, the same frame */
  run_ok(s, "aimConstraint -e -wut scene T obj;");
  expect_rows(s, "obj", vec_y, 1e-9);
  /* object up: toward up's origin (0,-3,0): w = (0,-1,0); third row d x w = (0,0,1) x (0,-1,0) = (1,0,0) */
  const double down[3][3] = {{0, 0, 1}, {0, -1, 0}, {1, 0, 0}};
  run_ok(s, "aimConstraint -e -wut object -wuo up T obj;");
  expect_rows(s, "obj", down, 1e-9);
  /* object rotation up: wu (0,0,1) through up's RX(90) (rows (1,0,0), (0,0,1), (0,-1,0)) = (0,-1,0) */
  run_ok(s, "aimConstraint -e -wut objectrotation -wu 0 0 1 T obj;");
  expect_rows(s, "obj", down, 1e-9);
  /* vector (1,0,0): w = (1,0,0), third row (0,0,1) x (1,0,0) = (0,1,0) */
  const double vx[3][3] = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}};
  run_ok(s, "aimConstraint -e -wut vector -wu 1 0 0 T obj;");
  expect_rows(s, "obj", vx, 1e-9);
  /* none: the shortest turn from x to (0,0,1): 90 degrees about x cross z = (0,-1,0): RY(-90) */
  run_ok(s, "aimConstraint -e -wut none T obj;");
  expect_rows(s, "obj", vec_y, 1e-9);
  /* aim -z with up y to a target at (5,0,0): local rows a = (0,0,-1), u = (0,1,0),
   * a x u = (1,0,0); world rows d = (1,0,0), w = (0,1,0), d x w = (0,0,1). Row r of
   * R = B_local^T * B_world is sum_k B_local[k][r] * B_world[k]: x: 1 * (0,0,1); y: (0,1,0);
   * z: -1 * (1,0,0). Check: a * R = -(row z) = (1,0,0) = d. */
  run_ok(s, "setAttr T.t 5 0 0; aimConstraint -e -aim 0 0 -1 -u 0 1 0 -wut vector -wu 0 1 0 T obj;");
  const double negz[3][3] = {{0, 0, 1}, {0, 1, 0}, {-1, 0, 0}};
  expect_rows(s, "obj", negz, 1e-9);
  sinew_session_destroy(s);
}

static void test_aim_target_on_up_vector(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  /* the target straight above: d = (0,1,0) = w, no frame; the first evaluation has no last frame:
   * the identity (finite, no NaN) */
  run_ok(s, "createNode transform -n T; setAttr T.t 0 5 0; createNode transform -n obj; aimConstraint T obj;");
  expect_rot(s, "obj.r", 0, 0, 0, 1e-9);
  /* a proper frame first (target at (0,0,5): RY(-90)), then onto the up vector: the last frame stays */
  run_ok(s, "setAttr T.t 0 0 5;");
  expect_rot(s, "obj.r", 0, -90, 0, 1e-9);
  run_ok(s, "setAttr T.t 0 5 0;");
  expect_rot(s, "obj.r", 0, -90, 0, 1e-9);
  /* the target on the object itself: no direction, the last frame too */
  run_ok(s, "setAttr T.t 0 0 0;");
  expect_rot(s, "obj.r", 0, -90, 0, 1e-9);
  sinew_session_destroy(s);
}

/* ---- scaleConstraint --------------------------------------------------------------------------- */

static void test_scale_geometric_mean(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s, "createNode transform -n A; setAttr A.s 2 1 4;"
            "createNode transform -n B; setAttr B.s 8 1 1;"
            "createNode transform -n grp; setAttr grp.s 2 2 2;"
            "createNode transform -n obj -p grp; scaleConstraint A B obj;");
  /* weighted geometric mean, weights 1/2 each: x sqrt(2*8) = 4, y 1, z sqrt(4*1) = 2; divided by
   * the parent's scale 2: (2, 0.5, 1) */
  expect3(s, "obj.s", 2, 0.5, 1, 1e-9);
  /* -o multiplies: a second object under the world with offset (1, 2, 3): (4, 2, 6) */
  run_ok(s, "createNode transform -n obj2; scaleConstraint -o 1 2 3 A B obj2;");
  expect3(s, "obj2.s", 4, 2, 6, 1e-9);
  /* -mo keeps the present scale: obj3 at scale 3: o = 3 / (4, 1, 2) */
  run_ok(s, "createNode transform -n obj3; setAttr obj3.s 3 3 3; scaleConstraint -mo A B obj3;");
  expect3(s, "obj3.s", 3, 3, 3, 1e-9);
  expect3(s, "obj3_scaleConstraint1.o", 0.75, 3, 1.5, 1e-9);
  sinew_session_destroy(s);
}

/* A joint with segmentScaleCompensate: its parent's scale is cancelled by its inverseScale, so
 * the constraint does not divide it out (the command connects ssc -> constraintScaleCompensate). */
static void test_scale_compensating_joint(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s, "createNode transform -n A; setAttr A.s 3 3 3;"
            "createNode joint -n j1; setAttr j1.s 2 2 2;"
            "createNode joint -n j2 -p j1; connectAttr j1.s j2.is;"
            "scaleConstraint A j2;");
  /* cs = 3 (not 3 / 2); j2's world scale: 3 * (1/2 from IS) * 2 (j1) = 3, the target's */
  expect3(s, "j2.s", 3, 3, 3, 1e-9);
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_node_t j2;
  assert_int_equal(sinew_node_find(g, "j2", &j2), SINEW_OK);
  sinew_mat4_t m;
  assert_int_equal(sinew_dag_world_matrix(g, j2, &m), SINEW_OK);
  assert_true(fabs(m.m[0][0] - 3) < 1e-9 && fabs(m.m[1][1] - 3) < 1e-9 && fabs(m.m[2][2] - 3) < 1e-9);
  /* ssc off: the parent's scale is divided out: 3 / 2 */
  run_ok(s, "setAttr j2.ssc 0;");
  expect3(s, "j2.s", 1.5, 1.5, 1.5, 1e-9);
  sinew_session_destroy(s);
}

/* ---- poleVectorConstraint (node level: sinew has no ikHandle) ---------------------------------- */

static void test_pole_vector_node(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s, "createNode transform -n T; setAttr T.t 0 0 5;"
            "createNode transform -n startParent; setAttr startParent.t 0 2 0;"
            "createNode poleVectorConstraint -n pv;"
            "connectAttr T.t pv.tg[0].tt; connectAttr T.pm pv.tg[0].tpm;"
            "connectAttr startParent.wm pv.ps; setAttr pv.crp 0 1 0;");
  /* S = (0,1,0) * T(0,2,0) = (0,3,0); P = (0,0,5); ct = P - S = (0,-3,5) as a direction */
  expect3(s, "pv.ct", 0, -3, 5, TOL);
  /* a translated handle parent does not change a direction; a rotated one does: RZ(90)^-1 = RZ(-90)
   * maps (0,-3,5) to (0*0 + -3*1, 0*-1 + -3*0, 5) = (-3, 0, 5) */
  run_ok(s, "createNode transform -n hp; setAttr hp.t 7 7 7; setAttr hp.rz 90; connectAttr hp.wim pv.cpim;");
  expect3(s, "pv.ct", -3, 0, 5, 1e-9);
  /* the command needs an ikHandle (an object with a poleVector) */
  snapshot before;
  snap(s, "T", &before);
  run_fails(s, "poleVectorConstraint T startParent;", SINEW_ETYPE);
  same_snapshot(s, "T", &before);
  sinew_session_destroy(s);
}

/* ---- commands: queries and bad input ----------------------------------------------------------- */

static void test_queries_and_names(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s, "createNode transform -n ctrl; createNode transform -n other; createNode transform -n obj;");
  const char *name[] = {"obj_parentConstraint1"};
  expect_strings(s, "parentConstraint ctrl other obj;", 1, name);
  const char *tl[] = {"ctrl", "other"};
  expect_strings(s, "parentConstraint -q -tl obj;", 2, tl);
  expect_strings(s, "parentConstraint -q -tl obj_parentConstraint1;", 2, tl);
  const char *wal[] = {"ctrlW0", "otherW1"};
  expect_strings(s, "parentConstraint -q -wal obj;", 2, wal);
  /* -e -w sets a target's weight through its alias; -q -w reads the weights */
  run_ok(s, "parentConstraint -e -w 0.25 other obj;");
  sinew_value_t r = {0};
  assert_int_equal(run(s, "parentConstraint -q -w obj;", &r), SINEW_OK);
  assert_int_equal(sinew_value_count(&r), 2);
  assert_true(sinew_value_double_at(&r, 0) == 1 && sinew_value_double_at(&r, 1) == 0.25);
  sinew_value_clear(&r);
  /* -rm takes a target out; its alias goes too */
  run_ok(s, "parentConstraint -e -rm ctrl obj;");
  const char *tl2[] = {"other"}, *wal2[] = {"otherW1"};
  expect_strings(s, "parentConstraint -q -tl obj;", 1, tl2);
  expect_strings(s, "parentConstraint -q -wal obj;", 1, wal2);
  /* -n, and a second constraint of a taken name gets the next number */
  const char *named[] = {"myCon"};
  expect_strings(s, "createNode transform -n o2; pointConstraint -n myCon ctrl o2;", 1, named);
  const char *named2[] = {"myCon1"};
  expect_strings(s, "createNode transform -n o3; pointConstraint -n myCon ctrl o3;", 1, named2);
  sinew_session_destroy(s);
}

static void test_bad_input_leaves_scene(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s, "createNode transform -n A; createNode transform -n obj; setAttr obj.t 1 2 3;"
            "createNode transform -n locked; setAttr -l on locked.tx;");
  snapshot before;
  snap(s, "obj", &before);
  run_fails(s, "parentConstraint A nosuch;", SINEW_ENOTFOUND);             /* missing object */
  same_snapshot(s, "obj", &before);
  run_fails(s, "parentConstraint time1 obj;", SINEW_ETYPE);                /* non-transform target */
  same_snapshot(s, "obj", &before);
  run_fails(s, "parentConstraint obj;", SINEW_EINVAL);                     /* no target */
  run_fails(s, "parentConstraint obj obj;", SINEW_EINVAL);                 /* itself */
  run_fails(s, "parentConstraint -e -w 0.5 A obj;", SINEW_ETYPE);          /* -e on a non-constraint */
  run_fails(s, "parentConstraint -q -tl A;", SINEW_ETYPE);
  run_fails(s, "pointConstraint -w -1 A obj;", SINEW_ERANGE);              /* negative weight */
  run_fails(s, "pointConstraint -sk w A obj;", SINEW_EINVAL);              /* bad axis */
  run_fails(s, "aimConstraint -wut sideways A obj;", SINEW_EINVAL);
  run_fails(s, "aimConstraint -wut object A obj;", SINEW_EINVAL);          /* needs -wuo */
  run_fails(s, "aimConstraint -aim 0 0 0 A obj;", SINEW_ERANGE);
  run_fails(s, "pointConstraint A locked;", SINEW_ELOCKED);
  same_snapshot(s, "obj", &before);
  /* a constraint on obj, then edits that refuse: a target it does not have */
  run_ok(s, "pointConstraint A obj;");
  snap(s, "obj", &before);
  run_fails(s, "pointConstraint -e -w 2 locked obj;", SINEW_ENOTFOUND);
  run_fails(s, "pointConstraint -e -mo A obj;", SINEW_EINVAL);
  same_snapshot(s, "obj", &before);
  /* a loop (obj constrained to its own child) is refused by the graph and taken back whole */
  run_ok(s, "createNode transform -n kid -p obj; setAttr kid.t 1 0 0;");
  snap(s, "obj", &before);
  int rc = run(s, "orientConstraint kid obj;", NULL);
  assert_int_not_equal(rc, SINEW_OK);
  same_snapshot(s, "obj", &before);
  sinew_session_destroy(s);
}

/* Every allocation of a command fails in turn: each failure leaves the scene as it was (nodes,
 * connections, the object's attributes and values), and the command then succeeds. Each attempt
 * runs in a fresh scene built by the commands before it (a dynamic attribute taken back leaves
 * a tombstone in the node, so retrying in one scene would cost more allocations each time). */
static const char oom_setup[] =
    "createNode transform -n A; setAttr A.t 1 2 3; setAttr A.rz 30;"
    "createNode transform -n B; setAttr B.t 0 4 0;"
    "createNode transform -n up; setAttr up.t 0 -3 0;"
    "createNode joint -n obj; setAttr obj.jo 0 0 20; setAttr obj.t 0 0 5;"
    "createNode transform -n obj2; createNode transform -n obj3; setAttr obj3.s 2 2 2;";

static const struct {
  const char *text, *obj;
} oom_cmds[] = {
    {"parentConstraint -mo -w 0.5 A obj;", "obj"},
    {"parentConstraint -mo B obj;", "obj"},
    {"parentConstraint -e -w 0.25 A obj;", "obj"},
    {"aimConstraint -wut object -wuo up -aim 0 0 1 A B obj2;", "obj2"},
    {"scaleConstraint -mo -sk y A B obj3;", "obj3"},
    {"orientConstraint -o 10 0 0 B obj3;", "obj3"},
};

/* A scene with the setup and the first `upto` commands run. */
static sinew_session_t *oom_scene(size_t upto) {
  sinew_session_t *s = new_session();
  run_ok(s, oom_setup);
  for (size_t c = 0; c < upto; c++) run_ok(s, oom_cmds[c].text);
  return s;
}

static void test_out_of_memory(void **state) {
  (void)state;
  test_alloc_install();
  long worst = 0;
  for (size_t c = 0; c < sizeof oom_cmds / sizeof *oom_cmds; c++) {
    long n = 1;
    for (;; n++) {
      sinew_session_t *s = oom_scene(c);
      snapshot before;
      snap(s, oom_cmds[c].obj, &before);
      test_alloc_reset();
      test_alloc_fail_at(n);
      int rc = run(s, oom_cmds[c].text, NULL);
      test_alloc_fail_at(0);
      if (rc == SINEW_OK) {
        sinew_session_destroy(s);
        break;
      }
      if (rc != SINEW_ENOMEM) fail_msg("%s, allocation %ld: %s", oom_cmds[c].text, n, sinew_session_errmsg(s));
      snapshot now;
      snap(s, oom_cmds[c].obj, &now);
      if (now.t[0] != before.t[0] || now.t[1] != before.t[1] || now.t[2] != before.t[2] || now.r[2] != before.r[2])
        fail_msg("%s, allocation %ld (%s): t %g %g %g r %g (was %g %g %g r %g)", oom_cmds[c].text, n,
                 sinew_session_errmsg(s), now.t[0], now.t[1], now.t[2], now.r[2], before.t[0], before.t[1],
                 before.t[2], before.r[2]);
      same_snapshot(s, oom_cmds[c].obj, &before);
      sinew_session_destroy(s);
    }
    if (n > worst) worst = n;
  }
  assert_true(worst > 10); /* the failures did reach the commands */
  /* and the scene works: obj keeps its pose (-mo twice), weights 0.25 and 1 */
  sinew_session_t *s = oom_scene(sizeof oom_cmds / sizeof *oom_cmds);
  expect3(s, "obj.t", 0, 0, 5, 1e-9);
  expect_rot(s, "obj.r", 0, 0, 0, 1e-9);
  sinew_session_destroy(s);
  test_alloc_uninstall();
}

static void expect_finite(sinew_session_t *s, const char *plug) {
  double v[3];
  get3(s, plug, v);
  for (int i = 0; i < 3; i++)
    if (!isfinite(v[i])) fail_msg("%s[%d] is not finite", plug, i);
}

/* Degenerate inputs (a zero scale, a zero aim vector, a singular parent inverse) give finite
 * outputs, never NaN. */
static void test_degenerate_inputs_finite(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s, "createNode transform -n A; setAttr A.s 0 0 0; setAttr A.t 1 2 3; createNode transform -n obj;");
  /* -mo needs the target's frame inverted: refused, nothing made */
  snapshot before;
  snap(s, "obj", &before);
  run_fails(s, "parentConstraint -mo A obj;", SINEW_ERANGE);
  same_snapshot(s, "obj", &before);
  run_ok(s, "parentConstraint A obj;");
  expect3(s, "obj.t", 1, 2, 3, 1e-12);
  expect_finite(s, "obj.r");
  run_ok(s, "createNode transform -n o2; scaleConstraint A o2;");
  expect_finite(s, "o2.s");
  run_ok(s, "createNode transform -n o3; aimConstraint A o3; setAttr o3_aimConstraint1.a 0 0 0;");
  expect_finite(s, "o3.r");
  run_ok(s, "createNode transform -n o4; setAttr o4.s 0 0 0; createNode transform -n k -p o4;"
            "orientConstraint A k; pointConstraint A k;");
  expect_finite(s, "k.r");
  expect_finite(s, "k.t");
  sinew_session_destroy(s);
}

/* The C API's maintain-offset call refuses what it cannot work on, changing nothing. */
static void test_offset_api_errors(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  sinew_graph_t *g = sinew_session_graph(s);
  run_ok(s, "createNode transform -n A; createNode transform -n obj; setAttr obj.t 0 0 5;"
            "createNode parentConstraint -n pc -p obj; connectAttr A.t pc.tg[0].tt; connectAttr A.pm pc.tg[0].tpm;");
  sinew_node_t a, obj, pc, t1;
  assert_int_equal(sinew_node_find(g, "A", &a), SINEW_OK);
  assert_int_equal(sinew_node_find(g, "obj", &obj), SINEW_OK);
  assert_int_equal(sinew_node_find(g, "pc", &pc), SINEW_OK);
  assert_int_equal(sinew_node_find(g, "time1", &t1), SINEW_OK);
  sinew_vec3_t out[2] = {{7, 7, 7}, {7, 7, 7}};
  assert_int_equal(sinew_constraint_offset(g, a, obj, 0, NULL, out), SINEW_ETYPE);   /* not a constraint */
  assert_int_equal(sinew_constraint_offset(g, pc, t1, 0, NULL, out), SINEW_ETYPE);   /* not a transform */
  assert_int_equal(sinew_constraint_offset(g, pc, obj, 5, NULL, out), SINEW_ENOTFOUND);
  assert_int_equal(sinew_constraint_offset(g, pc, obj, 0, NULL, NULL), SINEW_EINVAL);
  assert_true(out[0].x == 7 && out[1].z == 7); /* untouched */
  assert_false(sinew_constraint_is(g, a));
  assert_true(sinew_constraint_is(g, pc));
  /* weight 0: no offset can be worked out */
  run_ok(s, "setAttr pc.tg[0].tw 0;");
  assert_int_equal(sinew_constraint_offset(g, pc, obj, 0, NULL, out), SINEW_ERANGE);
  /* with the weight back: (0,0,5) - (0,0,0) */
  run_ok(s, "setAttr pc.tg[0].tw 1;");
  assert_int_equal(sinew_constraint_offset(g, pc, obj, 0, NULL, out), SINEW_OK);
  assert_true(fabs(out[0].z - 5) < 1e-12 && fabs(out[0].x) < 1e-12 && fabs(out[1].z) < 1e-12);
  sinew_session_destroy(s);
}

/* ---- a Maya-written snippet ---------------------------------------------------------------------- */

/* Trimmed from corpus/nlol/standalone_modules_digitigrade_leg_mod_example.ma (a parentConstraint
 * on a joint, as Maya writes it: DAG child of the joint, alias attribute, target offsets in
 * degrees), with round numbers. */
static const char snippet[] =
    "//Maya ASCII 2018 scene\n"
    "requires maya \"2018\";\n"
    "currentUnit -l centimeter -a degree -t film;\n"
    "createNode transform -n \"ctrl\";\n"
    "\tsetAttr \".t\" -type \"double3\" 10 0 0 ;\n"
    "\tsetAttr \".r\" -type \"double3\" 0 0 90 ;\n"
    "createNode joint -n \"root_jnt\";\n"
    "\tsetAttr \".jo\" -type \"double3\" 0 0 45 ;\n"
    "createNode parentConstraint -n \"root_jntParentConstraint\" -p \"root_jnt\";\n"
    "\taddAttr -dcb 0 -ci true -k true -sn \"w0\" -ln \"ctrlW0\" -dv 1 -min 0 -at \"double\";\n"
    "\tsetAttr -k off \".v\";\n"
    "\tsetAttr -k off \".tx\";\n"
    "\tsetAttr \".erp\" yes;\n"
    "\tsetAttr \".tg[0].tot\" -type \"double3\" 0 2 0 ;\n"
    "\tsetAttr \".tg[0].tor\" -type \"double3\" 0 0 -90 ;\n"
    "\tsetAttr \".lr\" -type \"double3\" 0 0 -45 ;\n"
    "\tsetAttr \".rst\" -type \"double3\" 8 0 0 ;\n"
    "\tsetAttr \".rsrr\" -type \"double3\" 0 0 -45 ;\n"
    "\tsetAttr -k on \".w0\";\n"
    "connectAttr \"root_jntParentConstraint.ctx\" \"root_jnt.tx\";\n"
    "connectAttr \"root_jntParentConstraint.cty\" \"root_jnt.ty\";\n"
    "connectAttr \"root_jntParentConstraint.ctz\" \"root_jnt.tz\";\n"
    "connectAttr \"root_jntParentConstraint.crx\" \"root_jnt.rx\";\n"
    "connectAttr \"root_jntParentConstraint.cry\" \"root_jnt.ry\";\n"
    "connectAttr \"root_jntParentConstraint.crz\" \"root_jnt.rz\";\n"
    "connectAttr \"root_jnt.ro\" \"root_jntParentConstraint.cro\";\n"
    "connectAttr \"root_jnt.pim\" \"root_jntParentConstraint.cpim\";\n"
    "connectAttr \"root_jnt.rp\" \"root_jntParentConstraint.crp\";\n"
    "connectAttr \"root_jnt.rpt\" \"root_jntParentConstraint.crt\";\n"
    "connectAttr \"root_jnt.jo\" \"root_jntParentConstraint.cjo\";\n"
    "connectAttr \"ctrl.t\" \"root_jntParentConstraint.tg[0].tt\";\n"
    "connectAttr \"ctrl.rp\" \"root_jntParentConstraint.tg[0].trp\";\n"
    "connectAttr \"ctrl.rpt\" \"root_jntParentConstraint.tg[0].trt\";\n"
    "connectAttr \"ctrl.r\" \"root_jntParentConstraint.tg[0].tr\";\n"
    "connectAttr \"ctrl.ro\" \"root_jntParentConstraint.tg[0].tro\";\n"
    "connectAttr \"ctrl.s\" \"root_jntParentConstraint.tg[0].ts\";\n"
    "connectAttr \"ctrl.pm\" \"root_jntParentConstraint.tg[0].tpm\";\n"
    "connectAttr \"root_jntParentConstraint.w0\" \"root_jntParentConstraint.tg[0].tw\";\n"
    "// End of snippet\n";

static void test_ma_snippet_evaluates(void **state) {
  (void)state;
  char path[] = "/tmp/sinew_constraint_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, snippet, sizeof snippet - 1), (ssize_t)(sizeof snippet - 1));
  close(fd);
  char mapath[64];
  snprintf(mapath, sizeof mapath, "%s.ma", path);
  assert_int_equal(rename(path, mapath), 0);
  sinew_session_t *s = new_session();
  int rc = sinew_session_open(s, mapath);
  remove(mapath);
  if (rc) fail_msg("open: %s", sinew_session_errmsg(s));
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_node_t c;
  assert_int_equal(sinew_node_find(g, "root_jntParentConstraint", &c), SINEW_OK);
  assert_true(sinew_constraint_is(g, c));
  assert_false(sinew_node_type_flags(sinew_node_type(g, c)) & SINEW_NODE_TYPE_PLACEHOLDER);
  /* C = Rot(tor) * T(tot) * ctrl = RZ(-90) * T(0,2,0) * RZ(90) * T(10,0,0):
   * position (0,2,0) * RZ(90) + (10,0,0) = (-2,0,0) + (10,0,0) = (8, 0, 0) (RZ(90) maps y to -x);
   * rotation RZ(-90) * RZ(90) = identity; the joint's R * JO = identity -> R = RZ(-45) */
  expect3(s, "root_jnt.t", 8, 0, 0, 1e-9);
  expect_rot(s, "root_jnt.r", 0, 0, -45, 1e-9);
  /* moving the control moves the joint: ctrl.tx 12 -> (10, 0, 0) */
  run_ok(s, "setAttr ctrl.tx 12;");
  expect3(s, "root_jnt.t", 10, 0, 0, 1e-9);
  /* the joint's world matrix follows: origin (10,0,0), x axis along the control's identity frame */
  sinew_node_t j;
  assert_int_equal(sinew_node_find(g, "root_jnt", &j), SINEW_OK);
  sinew_mat4_t m;
  assert_int_equal(sinew_dag_world_matrix(g, j, &m), SINEW_OK);
  assert_true(fabs(m.m[3][0] - 10) < 1e-9 && fabs(m.m[0][0] - 1) < 1e-9 && fabs(m.m[0][1]) < 1e-9);
  sinew_session_destroy(s);
}

/* A constraint made by the commands, saved and read back, gives the same values and still
 * follows its targets. */
static void test_save_and_reload(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s, "createNode transform -n A; setAttr A.t 1 2 3; setAttr A.rz 30;"
            "createNode transform -n B; setAttr B.t 0 4 0;"
            "createNode joint -n obj; setAttr obj.jo 0 0 20; setAttr obj.t 0 0 5;"
            "parentConstraint -mo A B obj; setAttr A.tx 3;");
  /* A moved 2 along x with weight 1/2: (0,0,5) + (1,0,0) */
  expect3(s, "obj.t", 1, 0, 5, 1e-9);
  char path[] = "/tmp/sinew_constraint_save_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  char mapath[64];
  snprintf(mapath, sizeof mapath, "%s.ma", path);
  remove(path);
  assert_int_equal(sinew_session_save(s, mapath), SINEW_OK);
  sinew_session_t *s2 = new_session();
  int rc = sinew_session_open(s2, mapath);
  remove(mapath);
  if (rc) fail_msg("open: %s", sinew_session_errmsg(s2));
  expect3(s2, "obj.t", 1, 0, 5, 1e-9);
  expect_rot(s2, "obj.r", 0, 0, 0, 1e-9);
  const char *wal[] = {"AW0", "BW1"};
  expect_strings(s2, "parentConstraint -q -wal obj;", 2, wal);
  run_ok(s2, "setAttr A.tx 5;"); /* another 2: (2, 0, 5) */
  expect3(s2, "obj.t", 2, 0, 5, 1e-9);
  sinew_session_destroy(s2);
  sinew_session_destroy(s);
}

/* ---- a real rig (tests/data/nlol, MIT, see tests/data/README.md) ------------------------------ */

static void world(sinew_session_t *s, const char *node, sinew_mat4_t *m) {
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_node_t n;
  assert_int_equal(sinew_node_find(g, node, &n), SINEW_OK);
  assert_int_equal(sinew_dag_world_matrix(g, n, m), SINEW_OK);
}

/* rot(a) * rot(b)^T: the rotation of a relative to b (rows normalised first) */
static void relative_rotation(const sinew_mat4_t *a, const sinew_mat4_t *b, double out[3][3]) {
  double ra[3][3], rb[3][3];
  for (int r = 0; r < 3; r++) {
    double la = sqrt(a->m[r][0] * a->m[r][0] + a->m[r][1] * a->m[r][1] + a->m[r][2] * a->m[r][2]);
    double lb = sqrt(b->m[r][0] * b->m[r][0] + b->m[r][1] * b->m[r][1] + b->m[r][2] * b->m[r][2]);
    for (int c = 0; c < 3; c++) ra[r][c] = a->m[r][c] / la, rb[r][c] = b->m[r][c] / lb;
  }
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      out[r][c] = 0;
      for (int k = 0; k < 3; k++) out[r][c] += ra[r][k] * rb[c][k];
    }
}

static void test_real_rig_digitigrade_leg(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  const char *path = SINEW_TEST_DATA_DIR "/nlol/standalone_modules_digitigrade_leg_mod_example.ma";
  if (sinew_session_open(s, path)) fail_msg("open: %s", sinew_session_errmsg(s));
  sinew_graph_t *g = sinew_session_graph(s);
  /* every constraint is a real constraint node, none a placeholder */
  size_t total = 0;
  static const char *const types[] = {"parentConstraint", "orientConstraint", "pointConstraint",
                                      "poleVectorConstraint", "scaleConstraint", "aimConstraint"};
  for (size_t t = 0; t < 6; t++) {
    sinew_node_t nodes[64];
    size_t n = sinew_node_list_type(g, types[t], true, nodes, 64);
    for (size_t i = 0; i < n && i < 64; i++) {
      assert_true(sinew_constraint_is(g, nodes[i]));
      assert_false(sinew_node_type_flags(sinew_node_type(g, nodes[i])) & SINEW_NODE_TYPE_PLACEHOLDER);
    }
    total += n;
  }
  assert_true(total > 30);
  /* The rig is saved in the pose its constraints were made in, which Maya stored as their rest
   * values: every parent constraint's translation reproduces rst (Maya's numbers, not ours) */
  sinew_node_t pcs[64];
  size_t npc = sinew_node_list_type(g, "parentConstraint", true, pcs, 64);
  size_t checked = 0;
  for (size_t i = 0; i < npc && i < 64; i++) {
    char plug[512];
    const char *name = sinew_node_name(g, pcs[i]);
    snprintf(plug, sizeof plug, "%s.ctx", name);
    sinew_plug_t ctx;
    assert_int_equal(sinew_plug_parse(g, plug, (sinew_node_t){0, 0}, &ctx), SINEW_OK);
    if (!sinew_plug_destinations(g, &ctx, NULL, 0)) continue; /* translation not used */
    double rst[3], ct[3];
    snprintf(plug, sizeof plug, "%s.rst", name);
    get3(s, plug, rst);
    snprintf(plug, sizeof plug, "%s.ct", name);
    get3(s, plug, ct);
    for (int k = 0; k < 3; k++)
      if (fabs(ct[k] - rst[k]) > 1e-2) fail_msg("%s: ct[%d] %.6g, rest %.6g", name, k, ct[k], rst[k]);
    checked++;
  }
  assert_true(checked >= 10);
  /* moving a control moves its joint: root_ctrl drives root_jnt through a parentConstraint; the
   * joint keeps its place relative to the control (same translation delta, same relative
   * rotation) */
  sinew_mat4_t c0, j0, c1, j1;
  world(s, "root_ctrl", &c0);
  world(s, "root_jnt", &j0);
  run_ok(s, "setAttr root_ctrl.tx 5; setAttr root_ctrl.ry 30;");
  world(s, "root_ctrl", &c1);
  world(s, "root_jnt", &j1);
  double r0[3][3], r1[3][3];
  relative_rotation(&j0, &c0, r0);
  relative_rotation(&j1, &c1, r1);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) assert_true(fabs(r0[r][c] - r1[r][c]) < 1e-9);
  assert_true(fabs(c1.m[3][0] - c0.m[3][0]) > 1); /* the control did move */
  /* the joint's origin in the control's frame is unchanged */
  double p0[3], p1[3];
  for (int r = 0; r < 3; r++) {
    double d0[3] = {j0.m[3][0] - c0.m[3][0], j0.m[3][1] - c0.m[3][1], j0.m[3][2] - c0.m[3][2]};
    double d1[3] = {j1.m[3][0] - c1.m[3][0], j1.m[3][1] - c1.m[3][1], j1.m[3][2] - c1.m[3][2]};
    double l0 = sqrt(c0.m[r][0] * c0.m[r][0] + c0.m[r][1] * c0.m[r][1] + c0.m[r][2] * c0.m[r][2]);
    double l1 = sqrt(c1.m[r][0] * c1.m[r][0] + c1.m[r][1] * c1.m[r][1] + c1.m[r][2] * c1.m[r][2]);
    p0[r] = (d0[0] * c0.m[r][0] + d0[1] * c0.m[r][1] + d0[2] * c0.m[r][2]) / l0;
    p1[r] = (d1[0] * c1.m[r][0] + d1[1] * c1.m[r][1] + d1[2] * c1.m[r][2]) / l1;
    assert_true(fabs(p0[r] - p1[r]) < 1e-6);
  }
  sinew_session_destroy(s);
}

/* ---- affects: an output is dirtied only by its own inputs ----------------------------------------- */

static void test_affects_exact(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  sinew_graph_t *g = sinew_session_graph(s);
  run_ok(s, "createNode parentConstraint -n pc; createNode transform -n A;"
            "connectAttr A.t pc.tg[0].tt; connectAttr A.pm pc.tg[0].tpm;");
  double v[3];
  get3(s, "pc.ct", v);
  get3(s, "pc.cr", v);
  sinew_plug_t ct, cr;
  assert_int_equal(sinew_plug_parse(g, "pc.ct", (sinew_node_t){0, 0}, &ct), SINEW_OK);
  assert_int_equal(sinew_plug_parse(g, "pc.cr", (sinew_node_t){0, 0}, &cr), SINEW_OK);
  /* the rotate pivot moves the translation only; the rotate order turns the rotation only */
  run_ok(s, "setAttr pc.crp 1 0 0;");
  assert_true(sinew_plug_is_dirty(g, &ct));
  assert_false(sinew_plug_is_dirty(g, &cr));
  get3(s, "pc.ct", v);
  run_ok(s, "setAttr pc.cro 2;");
  assert_false(sinew_plug_is_dirty(g, &ct));
  assert_true(sinew_plug_is_dirty(g, &cr));
  get3(s, "pc.cr", v);
  /* a target's translate affects both */
  run_ok(s, "setAttr A.tx 1;");
  assert_true(sinew_plug_is_dirty(g, &ct));
  assert_true(sinew_plug_is_dirty(g, &cr));
  sinew_session_destroy(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_point_two_weighted_targets),
      cmocka_unit_test(test_point_offset_and_maintain),
      cmocka_unit_test(test_point_skip_axes),
      cmocka_unit_test(test_rest_when_weights_zero),
      cmocka_unit_test(test_orient_interp_types_across_180),
      cmocka_unit_test(test_orient_joint_orient_and_offset),
      cmocka_unit_test(test_parent_two_targets_and_offset),
      cmocka_unit_test(test_parent_maintain_offset_follows),
      cmocka_unit_test(test_parent_maintain_offset_second_target),
      cmocka_unit_test(test_parent_joints),
      cmocka_unit_test(test_aim_world_up_types),
      cmocka_unit_test(test_aim_target_on_up_vector),
      cmocka_unit_test(test_scale_geometric_mean),
      cmocka_unit_test(test_scale_compensating_joint),
      cmocka_unit_test(test_pole_vector_node),
      cmocka_unit_test(test_queries_and_names),
      cmocka_unit_test(test_bad_input_leaves_scene),
      cmocka_unit_test(test_out_of_memory),
      cmocka_unit_test(test_offset_api_errors),
      cmocka_unit_test(test_degenerate_inputs_finite),
      cmocka_unit_test(test_ma_snippet_evaluates),
      cmocka_unit_test(test_save_and_reload),
      cmocka_unit_test(test_real_rig_digitigrade_leg),
      cmocka_unit_test(test_affects_exact),
  };
  return cmocka_run_group_tests_name("constraints", tests, NULL, NULL);
}
