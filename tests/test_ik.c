/* tests/test_ik.c: IK handles (nodes/ik.c, cmds/cmd_ik.c): the rotate-plane and single-chain
 * solves of a two-bone chain worked out by hand, reach and out of reach, the pole vector's side,
 * twist, ikBlend, the preferred angle of a straight chain, the SC solver following the handle's
 * rotation, re-solving after a move with exact dirt, the ikHandle command (results, queries,
 * shared solver, bad input leaving the scene as it was), saving and reopening, and Autodesk's
 * maya-usd scene whose constrained cube follows an animated RP chain, against the rotations
 * Autodesk's test records.
 *
 * The test chain (unless a test says otherwise): j0 at the origin, j1 = j0 + (3, 0, 0),
 * j2 = j1 + (4, 0, 0): bones a = 3, b = 4, straight along +x, every rotation 0. With the goal at
 * (5, 0, 0) the chain is the 3-4-5 triangle: the angle at j0 between the upper bone and the goal
 * line is acos((a^2 + c^2 - b^2) / 2ac) = acos(18 / 30) = 53.130102 deg, so the knee sits at
 * 3 (cos, sin) = (1.8, +-2.4) in the chain's plane, and the knee's interior angle is 90 deg. */
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
#include "tests/support.h"

#define DEG (3.14159265358979323846 / 180.0)
#define A53 53.13010235415598 /* atan2(4, 3) in degrees */
#define MAYA_USD_TOL_DEG 1e-3

/* ---- helpers ------------------------------------------------------------------------------- */

static sinew_session_t *session(void) {
  sinew_session_t *s = NULL;
  assert_int_equal(sinew_session_create(NULL, &s), 0);
  return s;
}

static void run(sinew_session_t *s, const char *text) {
  if (sinew_session_run(s, text, strlen(text), "test", NULL)) fail_msg("%s: %s", text, sinew_session_errmsg(s));
}

static int run_rc(sinew_session_t *s, const char *text, sinew_value_t *res) {
  return sinew_session_run(s, text, strlen(text), "test", res);
}

static sinew_plug_t plug(sinew_graph_t *g, const char *text) {
  sinew_plug_t p;
  if (sinew_plug_parse(g, text, (sinew_node_t){0, 0}, &p)) fail_msg("%s: %s", text, sinew_graph_errmsg(g));
  return p;
}

static double getd(sinew_graph_t *g, const char *text) {
  sinew_plug_t p = plug(g, text);
  double v = 0;
  if (sinew_get_double(g, &p, &v)) fail_msg("%s: %s", text, sinew_graph_errmsg(g));
  return v;
}

static sinew_vec3_t wpos(sinew_graph_t *g, const char *node) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s.wm[0]", node);
  sinew_plug_t p = plug(g, buf);
  sinew_mat4_t m;
  if (sinew_get_matrix(g, &p, &m)) fail_msg("%s: %s", buf, sinew_graph_errmsg(g));
  return (sinew_vec3_t){m.m[3][0], m.m[3][1], m.m[3][2]};
}

static void near3(sinew_vec3_t v, double x, double y, double z, double tol) {
  if (fabs(v.x - x) > tol || fabs(v.y - y) > tol || fabs(v.z - z) > tol)
    fail_msg("(%.9g %.9g %.9g) != (%.9g %.9g %.9g)", v.x, v.y, v.z, x, y, z);
}

static void near(double a, double b, double tol) {
  if (fabs(a - b) > tol) fail_msg("%.12g != %.12g", a, b);
}

/* The test chain (see the top of the file); pa: j1's preferred angle about z, in degrees. */
static void chain(sinew_session_t *s, double pa) {
  char text[512];
  snprintf(text, sizeof text,
           "createNode joint -n j0; createNode joint -n j1 -p j0; setAttr j1.t 3 0 0;"
           "createNode joint -n j2 -p j1; setAttr j2.t 4 0 0; setAttr j1.pa 0 0 %.17g;",
           pa);
  run(s, text);
}

/* ---- the RP solve ------------------------------------------------------------------------------ */

static void test_rp_reach_and_pole(void **st) {
  (void)st;
  sinew_session_t *s = session();
  chain(s, 10);
  sinew_value_t res = {0};
  assert_int_equal(run_rc(s, "ikHandle -sj j0 -ee j2", &res), 0);
  sinew_value_clear(&res);
  sinew_graph_t *g = sinew_session_graph(s);
  /* made at the end joint: nothing moves (the chain is straight, the goal at its end) */
  near3(wpos(g, "ikHandle1"), 7, 0, 0, 1e-12);
  near3(wpos(g, "j2"), 7, 0, 0, 1e-9);
  /* goal (5,0,0), pv +y: the knee on the +y side at (1.8, 2.4, 0); j0.rz = 53.13, j1.rz = -90
   * (the lower bone points (3.2, -2.4) / 4, at -36.87 deg: -36.87 - 53.13) */
  run(s, "setAttr ikHandle1.t 5 0 0; setAttr ikHandle1.pv 0 1 0");
  near3(wpos(g, "j1"), 1.8, 2.4, 0, 1e-9);
  near3(wpos(g, "j2"), 5, 0, 0, 1e-9);
  /* the knee keeps bending the way its preferred angle does (+z: j1.rz = +90), so reaching the
   * +y side rolls j0 half a turn about its bone: j0's z axis points down -z */
  near(getd(g, "j1.rz"), 90 * DEG, 1e-9);
  near(getd(g, "j1.rx"), 0, 1e-9);
  near(getd(g, "j1.ry"), 0, 1e-9);
  {
    sinew_plug_t p = plug(g, "j0.wm[0]");
    sinew_mat4_t m;
    assert_int_equal(sinew_get_matrix(g, &p, &m), 0);
    near3((sinew_vec3_t){m.m[0][0], m.m[0][1], m.m[0][2]}, 0.6, 0.8, 0, 1e-9);
    near3((sinew_vec3_t){m.m[2][0], m.m[2][1], m.m[2][2]}, 0, 0, -1, 1e-9);
  }
  /* pv -y: the other side, (1.8, -2.4, 0), j0.rz = -53.13, j1.rz = +90 */
  run(s, "setAttr ikHandle1.pv 0 -3 0");
  near3(wpos(g, "j1"), 1.8, -2.4, 0, 1e-9);
  near3(wpos(g, "j2"), 5, 0, 0, 1e-9);
  near(getd(g, "j0.rz"), -A53 * DEG, 1e-9);
  near(getd(g, "j0.rx"), 0, 1e-9);
  near(getd(g, "j0.ry"), 0, 1e-9);
  near(getd(g, "j1.rz"), 90 * DEG, 1e-9);
  /* pv +z: the knee at (1.8, 0, 2.4) */
  run(s, "setAttr ikHandle1.pv 0 0 1");
  near3(wpos(g, "j1"), 1.8, 0, 2.4, 1e-9);
  near3(wpos(g, "j2"), 5, 0, 0, 1e-9);
  /* twist 90 about the start->goal axis (+x, right-handed) from the +y plane: +y -> +z */
  run(s, "setAttr ikHandle1.pv 0 1 0; setAttr ikHandle1.twi 90");
  near3(wpos(g, "j1"), 1.8, 0, 2.4, 1e-9);
  run(s, "setAttr ikHandle1.twi -90");
  near3(wpos(g, "j1"), 1.8, 0, -2.4, 1e-9);
  run(s, "setAttr ikHandle1.twi 0");
  /* the effector lands on reachable goals in any direction, the knee in the pv plane */
  const double goals[][3] = {{2, 3, 1}, {-1, 2, -3}, {0.3, -4, 2.5}, {0, 0, 6.9}, {1, 0.2, -0.3}};
  for (size_t i = 0; i < sizeof goals / sizeof *goals; i++) {
    char text[200];
    snprintf(text, sizeof text, "setAttr ikHandle1.t %.17g %.17g %.17g", goals[i][0], goals[i][1], goals[i][2]);
    run(s, text);
    near3(wpos(g, "j2"), goals[i][0], goals[i][1], goals[i][2], 1e-6);
    sinew_vec3_t k = wpos(g, "j1"), h = {goals[i][0], goals[i][1], goals[i][2]}, n;
    near(sqrt(k.x * k.x + k.y * k.y + k.z * k.z), 3, 1e-9);
    /* knee, goal and pv (0,1,0) lie in one plane through the root: det = 0, and the knee is on
     * the pv side: (k - (k.h^)h^) . pv > 0 */
    sinew_vec3_t pv = {0, 1, 0};
    sinew_vec3_cross(h, pv, &n);
    near(sinew_vec3_dot(n, k), 0, 1e-9);
    double hh = sinew_vec3_dot(h, h), kh = sinew_vec3_dot(k, h);
    assert_true(k.y - kh / hh * h.y > 0);
  }
  /* out of reach: the chain straightens toward the goal: (10, 0, 0) -> j1 (3,0,0), j2 (7,0,0) */
  run(s, "setAttr ikHandle1.t 10 0 0");
  near3(wpos(g, "j1"), 3, 0, 0, 1e-9);
  near3(wpos(g, "j2"), 7, 0, 0, 1e-9);
  run(s, "setAttr ikHandle1.t 0 -20 0"); /* straight down */
  near3(wpos(g, "j1"), 0, -3, 0, 1e-9);
  near3(wpos(g, "j2"), 0, -7, 0, 1e-9);
  /* too close (|goal| = 0.5 < b - a = 1): folded, the end 1 from the root toward the goal */
  run(s, "setAttr ikHandle1.t 0.3 0.4 0");
  near3(wpos(g, "j2"), 0.6, 0.8, 0, 1e-9);
  /* at the root: nothing to aim at; the chain stays folded and finite */
  run(s, "setAttr ikHandle1.t 0 0 0");
  sinew_vec3_t e = wpos(g, "j2");
  assert_true(isfinite(e.x) && isfinite(e.y) && isfinite(e.z));
  near(sqrt(e.x * e.x + e.y * e.y + e.z * e.z), 1, 1e-9);
  sinew_session_destroy(s);
}

/* Parents: the chain under a root at (10, 0, 0) turned 90 deg about z (the chain points +y in
 * world), the handle under a group turned 90 deg about z. The goal (10, 5, 0) makes the 3-4-5
 * triangle along +y; the knee is 1.8 along the chain and 2.4 across it, on the pole vector's
 * side. The pole vector is in the handle's parent space: (0, -1, 0) under a group turned 90 deg
 * about z is world (0, -1, 0) Rz(90) = (1, 0, 0), so the knee is at (12.4, 1.8, 0). */
static void test_parents(void **st) {
  (void)st;
  sinew_session_t *s = session();
  run(s, "createNode transform -n root; setAttr root.t 10 0 0; setAttr root.rz 90;"
         "createNode joint -n j0 -p root; createNode joint -n j1 -p j0; setAttr j1.t 3 0 0;"
         "createNode joint -n j2 -p j1; setAttr j2.t 4 0 0; setAttr j1.pa 0 0 10;"
         "ikHandle -sj j0 -ee j2; createNode transform -n grp; setAttr grp.rz 90; parent ikHandle1 grp");
  sinew_graph_t *g = sinew_session_graph(s);
  near3(wpos(g, "j2"), 10, 7, 0, 1e-9);
  near3(wpos(g, "ikHandle1"), 10, 7, 0, 1e-9); /* parent keeps the world position */
  /* world (10, 5, 0) = t Rz(90) under grp: t = (5, -10, 0) */
  run(s, "setAttr ikHandle1.t 5 -10 0; setAttr ikHandle1.pv 0 -1 0");
  near3(wpos(g, "j2"), 10, 5, 0, 1e-9);
  near3(wpos(g, "j1"), 12.4, 1.8, 0, 1e-9);
  run(s, "setAttr ikHandle1.pv 0 1 0");
  near3(wpos(g, "j1"), 7.6, 1.8, 0, 1e-9);
  /* moving the chain's root re-solves: the goal stays, the chain follows its root */
  run(s, "setAttr root.t 10 1 0");
  near3(wpos(g, "j2"), 10, 5, 0, 1e-9); /* 4 from the root now: within reach */
  sinew_vec3_t k = wpos(g, "j1");
  near(sqrt((k.x - 10) * (k.x - 10) + (k.y - 1) * (k.y - 1) + k.z * k.z), 3, 1e-9);
  assert_true(k.x < 10);
  sinew_session_destroy(s);
}

static void test_preferred_angle_and_blend(void **st) {
  (void)st;
  sinew_session_t *s = session();
  /* no pole vector (pv 0): the straight chain bends the way its preferred angle does. pa +10
   * about z at j1: from the preferred pose (lower bone at +10 deg) the knee closes to 90 deg,
   * the end at (3, 4, 0); aiming it at (5, 0, 0) turns the chain by -53.13 deg: knee (1.8, -2.4),
   * j1.rz = +90 */
  chain(s, 10);
  run(s, "ikHandle -sj j0 -ee j2; setAttr ikHandle1.pv 0 0 0; setAttr ikHandle1.t 5 0 0");
  sinew_graph_t *g = sinew_session_graph(s);
  near3(wpos(g, "j1"), 1.8, -2.4, 0, 1e-9);
  near(getd(g, "j1.rz"), 90 * DEG, 1e-9);
  run(s, "setAttr j1.pa 0 0 -10");
  near3(wpos(g, "j1"), 1.8, 2.4, 0, 1e-9);
  near(getd(g, "j1.rz"), -90 * DEG, 1e-9);
  /* straight at the preferred angles too (pa 0): the FK pose's bend decides (FK j1.rz = -20,
   * set through j1.r, bends about -z: knee on +y) ... */
  run(s, "setAttr j1.pa 0 0 0; setAttr j1.r 0 0 -20");
  near3(wpos(g, "j1"), 1.8, 2.4, 0, 1e-9);
  /* ... and with the FK pose straight as well, the middle joint's z axis: it bends about +z, the
   * knee on -y */
  run(s, "setAttr j1.r 0 0 0");
  near3(wpos(g, "j1"), 1.8, -2.4, 0, 1e-9);
  near(getd(g, "j1.rz"), 90 * DEG, 1e-9);
  run(s, "setAttr j1.pa 0 0 -10");
  /* ikBlend with FK rotations 0: the quaternion slerp of rotations about one axis is linear in
   * the angle: 0.5 gives j0.rz = 53.13 / 2, j1.rz = -45; 0 gives the FK pose */
  near(getd(g, "j0.rz"), A53 * DEG, 1e-9);
  run(s, "setAttr ikHandle1.ikb 0.5");
  near(getd(g, "j0.rz"), A53 / 2 * DEG, 1e-9);
  near(getd(g, "j1.rz"), -45 * DEG, 1e-9);
  run(s, "setAttr ikHandle1.ikb 0");
  near(getd(g, "j0.rz"), 0, 1e-12);
  near(getd(g, "j1.rz"), 0, 1e-12);
  near3(wpos(g, "j2"), 7, 0, 0, 1e-9);
  /* FK rotation set while IK drives the joint (setAttr on the joint's rotate goes to its FK
   * value): with ikBlend 0 it shows, with 1 the IK solve does */
  run(s, "setAttr j0.r 0 0 90");
  near3(wpos(g, "j2"), 0, 7, 0, 1e-9);
  near(getd(g, "j0.sinewFkRotateZ"), 90 * DEG, 1e-12);
  run(s, "setAttr j0.rz 45");
  near(getd(g, "j0.rz"), 45 * DEG, 1e-12);
  run(s, "setAttr j0.rz 90");
  run(s, "setAttr ikHandle1.ikb 1");
  near3(wpos(g, "j2"), 5, 0, 0, 1e-9);
  /* halfway between FK j0.rz = 90 and IK j0.rz = 53.13 (both about z): (90 + 53.13) / 2 */
  run(s, "setAttr ikHandle1.ikb 0.5");
  near(getd(g, "j0.rz"), (90 + A53) / 2 * DEG, 1e-9);
  run(s, "setAttr ikHandle1.ikb 1");
  /* bad input: ikBlend out of range and a string are refused, the value stays */
  assert_int_not_equal(run_rc(s, "setAttr ikHandle1.ikb 2", NULL), 0);
  assert_int_not_equal(run_rc(s, "setAttr ikHandle1.ikb -type \"string\" \"x\"", NULL), 0);
  near(getd(g, "ikHandle1.ikb"), 1, 0);
  sinew_session_destroy(s);
}

/* ---- SC ------------------------------------------------------------------------------------- */

static void test_sc_solver(void **st) {
  (void)st;
  sinew_session_t *s = session();
  chain(s, 10);
  sinew_value_t res = {0};
  assert_int_equal(run_rc(s, "ikHandle -sj j0 -ee j2 -sol ikSCsolver", &res), 0);
  sinew_value_clear(&res);
  sinew_graph_t *g = sinew_session_graph(s);
  /* the handle starts at the effector's orientation (j1's world rotation: identity) */
  near(getd(g, "ikHandle1.rx"), 0, 1e-12);
  /* goal (5,0,0): reach as RP with no pole: knee (1.8, -2.4, 0); the roll about +x that brings
   * the effector's orientation Rz(36.87) closest to the handle's (identity) is 0, since
   * tr(Rz(al) Rx(psi)) = cos al + cos psi (1 + cos al) is largest at psi = 0 */
  run(s, "setAttr ikHandle1.t 5 0 0");
  near3(wpos(g, "j1"), 1.8, -2.4, 0, 1e-9);
  near3(wpos(g, "j2"), 5, 0, 0, 1e-9);
  /* the handle turned 30 deg about x: by the same trace the best roll is 30 deg: the knee turns
   * about +x from (0, -2.4, 0): (1.8, -2.4 cos 30, -2.4 sin 30) */
  run(s, "setAttr ikHandle1.rx 30");
  near3(wpos(g, "j1"), 1.8, -2.4 * cos(30 * DEG), -2.4 * sin(30 * DEG), 1e-9);
  near3(wpos(g, "j2"), 5, 0, 0, 1e-9);
  /* the pole vector does not steer the SC solver */
  run(s, "setAttr ikHandle1.pv 0 1 0");
  near3(wpos(g, "j1"), 1.8, -2.4 * cos(30 * DEG), -2.4 * sin(30 * DEG), 1e-9);
  /* one bone: j0 aims at the goal (0, 2, 0) -> j0.rz = 90 */
  run(s, "createNode joint -n k0; setAttr k0.t 0 0 5; createNode joint -n k1 -p k0; setAttr k1.t 2 0 0;"
         "ikHandle -sj k0 -ee k1 -sol ikSCsolver -n hk; setAttr hk.t 0 2 5");
  near3(wpos(g, "k1"), 0, 2, 5, 1e-9);
  near(getd(g, "k0.rz"), 90 * DEG, 1e-9);
  sinew_session_destroy(s);
}

/* ---- evaluation: re-solve on a move, exact dirt ----------------------------------------------- */

static void test_dirt(void **st) {
  (void)st;
  sinew_session_t *s = session();
  chain(s, 10);
  run(s, "createNode joint -n j3 -p j2; setAttr j3.t 1 0 0;"   /* a child of the end joint */
         "createNode joint -n other; setAttr other.t 0 5 0;"   /* not in the chain */
         "ikHandle -sj j0 -ee j2; setAttr ikHandle1.pv 0 1 0; setAttr ikHandle1.t 5 0 0");
  sinew_graph_t *g = sinew_session_graph(s);
  near3(wpos(g, "j3"), 5 + 0.8, -0.6, 0, 1e-9); /* along the lower bone (0.8, -0.6) */
  wpos(g, "other");
  wpos(g, "ikHandle1");
  /* pull after set: moving the handle re-solves */
  run(s, "setAttr ikHandle1.t 0 5 0");
  sinew_plug_t owm = plug(g, "other.wm[0]"), j0wm = plug(g, "j0.wm[0]"), j3wm = plug(g, "j3.wm[0]");
  assert_false(sinew_plug_is_dirty(g, &owm));
  assert_true(sinew_plug_is_dirty(g, &j0wm));
  assert_true(sinew_plug_is_dirty(g, &j3wm));
  sinew_graph_reset_stats(g);
  /* reading j3 computes: the handle's world matrix (2 compute callbacks: ikHandle's compute
   * passes it on to transform's, and the counter counts each callback), one solve (it sets both
   * joints' rotations), the world matrices of j0, j1, j2, j3: 7 */
  near3(wpos(g, "j2"), 0, 5, 0, 1e-9);
  wpos(g, "j3");
  sinew_graph_stats_t stats;
  sinew_graph_stats(g, &stats);
  assert_int_equal(stats.computes, 7);
  sinew_graph_reset_stats(g);
  wpos(g, "j3");
  wpos(g, "j0");
  sinew_graph_stats(g, &stats);
  assert_int_equal(stats.computes, 0);
  /* moving an unrelated joint dirties nothing of the chain */
  run(s, "setAttr other.tx 1");
  assert_false(sinew_plug_is_dirty(g, &j0wm));
  /* the pole vector (0, 1, 0) is parallel to the goal line (0,0)-(0,5) here, so it sets no plane
   * (spec 4.3 leaves pv || h open; sinew keeps the preferred pose's plane): the preferred pose
   * bent to the 3-4-5 triangle has its end at (3, 4, 0); turned +36.87 deg about z onto (0, 5, 0)
   * the knee is at 3 (cos 36.87, sin 36.87) = (2.4, 1.8, 0) */
  near3(wpos(g, "j1"), 2.4, 1.8, 0, 1e-9);
  /* getAttr on an IK joint's rotate reports the solved value, in degrees */
  sinew_value_t res = {0};
  assert_int_equal(run_rc(s, "getAttr j0.rz", &res), 0);
  near(sinew_value_to_double(&res), getd(g, "j0.rz") / DEG, 1e-9);
  sinew_value_clear(&res);
  assert_int_equal(run_rc(s, "getAttr j1.rz", &res), 0);
  near(sinew_value_to_double(&res), 90, 1e-9); /* the knee bends its preferred way, +z */
  sinew_value_clear(&res);
  sinew_session_destroy(s);
}

/* ---- the command --------------------------------------------------------------------------------- */

static void test_command(void **st) {
  (void)st;
  sinew_session_t *s = session();
  chain(s, 10);
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_value_t res = {0};
  assert_int_equal(run_rc(s, "ikHandle -sj j0 -ee j2", &res), 0);
  assert_int_equal(res.kind, SINEW_VALUE_STRING_ARRAY);
  assert_int_equal(sinew_value_count(&res), 2);
  assert_string_equal(sinew_value_string_at(&res, 0), "ikHandle1");
  assert_string_equal(sinew_value_string_at(&res, 1), "effector1");
  sinew_value_clear(&res);
  /* the effector under the joint before the end, fed the end joint's translate */
  sinew_node_t eff, j1;
  assert_int_equal(sinew_node_find(g, "effector1", &eff), 0);
  assert_int_equal(sinew_node_find(g, "j1", &j1), 0);
  assert_int_equal(sinew_node_parent(g, eff).index, j1.index);
  sinew_plug_t etx = plug(g, "effector1.tx"), src;
  assert_true(sinew_plug_source(g, &etx, &src));
  assert_string_equal(sinew_node_name(g, src.node), "j2");
  assert_int_equal(run_rc(s, "ikHandle -q -jl ikHandle1", &res), 0);
  assert_int_equal(sinew_value_count(&res), 2);
  assert_string_equal(sinew_value_string_at(&res, 0), "j0");
  assert_string_equal(sinew_value_string_at(&res, 1), "j1");
  sinew_value_clear(&res);
  const char *q[][2] = {{"ikHandle -q -sj ikHandle1", "j0"}, {"ikHandle -q -ee ikHandle1", "effector1"},
                        {"ikHandle -q -sol ikHandle1", "ikRPsolver"}};
  for (size_t i = 0; i < 3; i++) {
    assert_int_equal(run_rc(s, q[i][0], &res), 0);
    assert_string_equal(sinew_value_string(&res), q[i][1]);
    sinew_value_clear(&res);
  }
  /* -setupForRPsolver: the knee's side of the start->end line, as a unit vector */
  run(s, "setAttr ikHandle1.t 5 0 0; setAttr ikHandle1.pv 0 0 0; ikHandle -e -setupForRPsolver 1 ikHandle1");
  near(getd(g, "ikHandle1.pvy"), -1, 1e-9); /* the knee is at (1.8, -2.4): below the goal line */
  /* -e -sol switches the handle to the shared SC solver (made now): the pole vector no longer
   * steers it; and back */
  run(s, "setAttr ikHandle1.pv 0 1 0");
  near3(wpos(g, "j1"), 1.8, 2.4, 0, 1e-9);
  run(s, "ikHandle -e -sol ikSCsolver ikHandle1");
  assert_int_equal(run_rc(s, "ikHandle -q -sol ikHandle1", &res), 0);
  assert_string_equal(sinew_value_string(&res), "ikSCsolver");
  sinew_value_clear(&res);
  near3(wpos(g, "j2"), 5, 0, 0, 1e-9);
  assert_true(fabs(wpos(g, "j1").y - 2.4) > 1e-3); /* SC: the roll follows the handle's rotation */
  run(s, "ikHandle -e -sol ikRPsolver ikHandle1");
  near3(wpos(g, "j1"), 1.8, 2.4, 0, 1e-9);
  assert_int_equal(sinew_node_list_type(g, "ikSCsolver", true, NULL, 0), 1);
  assert_int_not_equal(run_rc(s, "ikHandle -e -sol ikSplineSolver ikHandle1", NULL), 0);
  /* a second handle shares the solver node */
  run(s, "createNode joint -n m0; createNode joint -n m1 -p m0; setAttr m1.t 1 0 0;"
         "ikHandle -sj m0 -ee m1 -n arm -p 2 -w 0.5");
  assert_int_equal(sinew_node_list_type(g, "ikRPsolver", true, NULL, 0), 1);
  near(getd(g, "arm.pri"), 2, 0);
  near(getd(g, "arm.w"), 0.5, 0);
  /* queries and edits of the numbers; the interactive flags are accepted and change nothing */
  run(s, "ikHandle -e -p 3 -w 2 -pw 0.25 arm");
  assert_int_equal(run_rc(s, "ikHandle -q -p arm", &res), 0);
  assert_int_equal(sinew_value_to_int(&res), 3);
  sinew_value_clear(&res);
  assert_int_equal(run_rc(s, "ikHandle -q -w arm", &res), 0);
  near(sinew_value_to_double(&res), 2, 0);
  sinew_value_clear(&res);
  assert_int_equal(run_rc(s, "ikHandle -q -pw arm", &res), 0);
  near(sinew_value_to_double(&res), 0.25, 0);
  sinew_value_clear(&res);
  run(s, "createNode joint -n s0; createNode joint -n s1 -p s0; setAttr s1.t 1 0 0;"
         "ikHandle -sj s0 -ee s1 -s off -fs on -shf on -n sticky");
  near3(wpos(g, "s1"), 1, 0, 0, 1e-12);
  /* bad commands leave the scene as it was */
  run(s, "createNode joint -n n0; createNode joint -n n1 -p n0; createNode joint -n n2 -p n1;"
         "createNode joint -n n3 -p n2; setAttr n1.t 1 0 0; setAttr n2.t 1 0 0; setAttr n3.t 1 0 0");
  sinew_graph_stats_t before, after;
  sinew_graph_stats(g, &before);
  const char *bad[] = {"ikHandle -sj j2 -ee j0",                 /* end above start */
                       "ikHandle -sj j0 -ee j0",                 /* one joint */
                       "ikHandle -sj j0 -ee nothere",            /* no such node */
                       "ikHandle -sj j0 -ee m1",                 /* another chain */
                       "ikHandle -sj j0 -ee j2 -sol ikSplineSolver", "ikHandle -sj j0 -ee j2 -sol bogus",
                       "ikHandle -sj n0 -ee n3",                 /* three bones */
                       "ikHandle -sj j0 -ee j2 -p 0",            /* priority out of range */
                       "ikHandle -sj j0 -ee j2 -pw 2",
                       "ikHandle -sj j0",                        /* no end */
                       "ikHandle -sj ikRPsolver -ee j2",         /* not a joint */
                       "ikHandle -q -jl j0",                     /* not a handle */
                       "ikHandle -e -p 0 ikHandle1"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    if (run_rc(s, bad[i], NULL) == 0) fail_msg("%s succeeded", bad[i]);
    sinew_graph_stats(g, &after);
    if (after.nodes != before.nodes || after.connections != before.connections)
      fail_msg("%s changed the scene: %zu -> %zu nodes, %zu -> %zu connections", bad[i], before.nodes, after.nodes,
               before.connections, after.connections);
  }
  near(getd(g, "ikHandle1.pri"), 1, 0);
  /* a locked priority refuses the whole edit, the solver switch too */
  run(s, "setAttr -l on ikHandle1.pri");
  assert_int_not_equal(run_rc(s, "ikHandle -e -sol ikSCsolver -p 4 ikHandle1", NULL), 0);
  assert_int_equal(run_rc(s, "ikHandle -q -sol ikHandle1", &res), 0);
  assert_string_equal(sinew_value_string(&res), "ikRPsolver");
  sinew_value_clear(&res);
  run(s, "setAttr -l off ikHandle1.pri");
  /* a joint whose rotate is driven cannot be an IK joint */
  run(s, "createNode joint -n d0; createNode joint -n d1 -p d0; setAttr d1.t 1 0 0; createNode transform -n drv;"
         "connectAttr drv.r d0.r");
  sinew_graph_stats(g, &before);
  assert_int_not_equal(run_rc(s, "ikHandle -sj d0 -ee d1", NULL), 0);
  sinew_graph_stats(g, &after);
  assert_int_equal(after.nodes, before.nodes);
  sinew_session_destroy(s);
}

/* Handles wired wrongly by hand (createNode / connectAttr, as a script or a damaged file could):
 * each is refused with its reason, warned about, and nothing crashes or changes; deleting parts
 * of a joined chain leaves the joints at their last solve. */
static int h0_warnings;
static void count_h0(void *ud, sinew_log_level_t level, sinew_log_id_t id, const char *msg) {
  (void)ud;
  if (level == SINEW_LOG_WARNING && id == SINEW_LOG_FILE_WARNING && strstr(msg, "ikHandle: h0:")) h0_warnings++;
}

static void test_bad_wiring(void **st) {
  (void)st;
  sinew_session_t *s = NULL;
  sinew_session_desc_t desc = {.logger = count_h0};
  assert_int_equal(sinew_session_create(&desc, &s), 0);
  h0_warnings = 0;
  chain(s, 10);
  sinew_graph_t *g = sinew_session_graph(s);
  /* a handle with nothing connected */
  run(s, "createNode ikHandle -n h0");
  sinew_node_t h;
  assert_int_equal(sinew_node_find(g, "h0", &h), 0);
  assert_false(sinew_ik_wired(g, h));
  assert_int_equal(sinew_ik_wire(g, h), SINEW_ENOTFOUND);
  assert_non_null(strstr(sinew_graph_errmsg(g), "no start joint"));
  assert_int_not_equal(run_rc(s, "ikHandle -q -jl h0", NULL), 0);
  sinew_value_t res = {0};
  assert_int_equal(run_rc(s, "ikHandle -q -sj h0", &res), 0); /* nothing connected: "" */
  assert_string_equal(sinew_value_string(&res), "");
  sinew_value_clear(&res);
  /* a start joint that is a transform; an effector that is a joint */
  run(s, "createNode transform -n tr; connectAttr tr.msg h0.hsj");
  assert_int_equal(sinew_ik_wire(g, h), SINEW_ENOTFOUND);
  run(s, "connectAttr -f j0.msg h0.hsj; connectAttr j2.msg h0.hee");
  assert_int_equal(sinew_ik_wire(g, h), SINEW_ENOTFOUND);
  /* an effector under the world, then one under another chain */
  run(s, "disconnectAttr j2.msg h0.hee; createNode ikEffector -n e0; connectAttr e0.hp h0.hee");
  assert_int_equal(sinew_ik_wire(g, h), SINEW_EINVAL);
  run(s, "createNode joint -n o0; createNode joint -n o1 -p o0; parent e0 o0");
  assert_int_equal(sinew_ik_wire(g, h), SINEW_EINVAL);
  /* under j1 but nothing feeds its translate and j1 has one joint child: that is the end */
  run(s, "parent -r e0 j1");
  assert_int_equal(sinew_ik_wire(g, h), SINEW_ENOTFOUND); /* still no solver */
  /* a solver sinew does not implement (here a transform stands in for one: scripts cannot make
   * placeholder types such as ikSplineSolver) */
  run(s, "createNode transform -n notsolver; connectAttr notsolver.msg h0.hsv");
  assert_int_equal(sinew_ik_wire(g, h), SINEW_EUNSUPPORTED);
  assert_non_null(strstr(sinew_graph_errmsg(g), "the transform solver is not supported"));
  assert_int_equal(h0_warnings, 1); /* once per handle, however often it is tried */
  /* until now every run tried to join h0 and warned once; nothing was connected. With an RP
   * solver (replacing the stand-in: one connection for another) the run joins it */
  sinew_graph_stats_t before, after;
  sinew_graph_stats(g, &before);
  run(s, "createNode ikRPsolver -n rp; connectAttr -f rp.msg h0.hsv");
  run(s, "setAttr h0.t 5 0 0; setAttr h0.pv 0 1 0");
  assert_true(sinew_ik_wired(g, h));
  near3(wpos(g, "j1"), 1.8, 2.4, 0, 1e-9);
  sinew_graph_stats(g, &after);
  assert_int_equal(after.connections, before.connections + 25); /* 2 x 10 + 2 + 1 + 2 */
  /* zero-length bones and a zero scale: finite, no crash */
  run(s, "setAttr j2.t 0 0 0");
  sinew_vec3_t e = wpos(g, "j2");
  assert_true(isfinite(e.x) && isfinite(e.y) && isfinite(e.z));
  run(s, "setAttr j2.t 4 0 0; setAttr j0.s 0 0 0");
  e = wpos(g, "j2");
  assert_true(isfinite(e.x) && isfinite(e.y) && isfinite(e.z));
  run(s, "setAttr j0.s 1 1 1");
  near3(wpos(g, "j1"), 1.8, 2.4, 0, 1e-9);
  /* deleting the handle keeps the joints at their last solve, their rotate settable again */
  double rz = getd(g, "j1.rz");
  run(s, "delete h0");
  near(getd(g, "j1.rz"), rz, 1e-12);
  near3(wpos(g, "j2"), 5, 0, 0, 1e-9);
  run(s, "setAttr j1.rz 0");
  near(getd(g, "j1.rz"), 0, 0);
  sinew_session_destroy(s);
}

/* duplicate of an IK chain (rig scripts copy chains for IK/FK setups): the copies hold the
 * solved pose as plain values and are not driven by the handle; sinew's own wiring is not
 * copied. */
static void duplicate_case(const char *command) {
  sinew_session_t *s = session();
  chain(s, 10);
  run(s, "ikHandle -sj j0 -ee j2; setAttr ikHandle1.t 5 0 0; setAttr ikHandle1.pv 0 1 0");
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_value_t res = {0};
  assert_int_equal(run_rc(s, command, &res), 0);
  assert_true(sinew_value_count(&res) >= 3);
  char root[64], mid[64], end[64];
  snprintf(root, sizeof root, "%s", sinew_value_string_at(&res, 0));
  snprintf(mid, sizeof mid, "%s", sinew_value_string_at(&res, 1));
  snprintf(end, sizeof end, "%s", sinew_value_string_at(&res, 2));
  sinew_value_clear(&res);
  near3(wpos(g, mid), 1.8, 2.4, 0, 1e-9);
  near3(wpos(g, end), 5, 0, 0, 1e-9);
  char text[200];
  snprintf(text, sizeof text, "%s.r", root);
  sinew_plug_t r = plug(g, text);
  assert_false(sinew_plug_source(g, &r, NULL));
  run(s, "setAttr ikHandle1.t 0 5 0");
  near3(wpos(g, "j2"), 0, 5, 0, 1e-9);
  near3(wpos(g, end), 5, 0, 0, 1e-9); /* the copy stays */
  snprintf(text, sizeof text, "setAttr %s.rz 0; setAttr %s.rz 0", root, mid);
  run(s, text);
  near3(wpos(g, end), 7, 0, 0, 1e-9);
  sinew_session_destroy(s);
}

static void test_duplicate(void **st) {
  (void)st;
  duplicate_case("duplicate -rc j0");
  duplicate_case("duplicate -ic -rc j0"); /* inputs from outside too, but not the handle's */
}

/* ---- files ------------------------------------------------------------------------------------ */

static char *write_scene(sinew_session_t *s) {
  FILE *f = tmpfile();
  assert_non_null(f);
  assert_int_equal(sinew_session_write_ma(s, f, "ik.ma"), 0);
  long n = ftell(f);
  assert_true(n > 0);
  char *text = malloc((size_t)n + 1);
  assert_non_null(text);
  rewind(f);
  assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
  text[n] = 0;
  fclose(f);
  return text;
}

static void test_save_and_reopen(void **st) {
  (void)st;
  sinew_session_t *s = session();
  chain(s, 10);
  run(s, "ikHandle -sj j0 -ee j2; setAttr ikHandle1.t 2 3 1; setAttr ikHandle1.pv 0 1 0");
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_vec3_t k = wpos(g, "j1");
  char *text = write_scene(s);
  /* sinew's own wiring is not written; the solved rotations are (Maya writes them too) */
  assert_null(strstr(text, "sinewIk"));
  assert_null(strstr(text, "sik"));
  assert_null(strstr(text, "sfk"));
  assert_non_null(strstr(text, "connectAttr \"j0.msg\" \"ikHandle1.hsj\""));
  assert_non_null(strstr(text, "connectAttr \"effector1.hp\" \"ikHandle1.hee\""));
  const char *j0 = strstr(text, "createNode joint -n \"j0\"");
  assert_non_null(j0);
  assert_non_null(strstr(j0, "setAttr \".r\""));
  /* reading it back joins the handle again: the same pose, and moving the handle still works */
  sinew_session_t *s2 = session();
  assert_int_equal(sinew_session_run(s2, text, strlen(text), "ik.ma", NULL), 0);
  sinew_graph_t *g2 = sinew_session_graph(s2);
  sinew_vec3_t k2 = wpos(g2, "j1");
  near3(k2, k.x, k.y, k.z, 1e-9);
  near3(wpos(g2, "j2"), 2, 3, 1, 1e-9);
  run(s2, "setAttr ikHandle1.t 5 0 0");
  near3(wpos(g2, "j1"), 1.8, 2.4, 0, 1e-9);
  free(text);
  sinew_session_destroy(s2);
  sinew_session_destroy(s);
}

/* Autodesk's maya-usd scene (tests/data/maya-usd/UsdExportEulerFilterTest.ma): ikHandle1's
 * translate is keyed (frames 1-3), an ikRPsolver drives joint1 -> joint2 -> joint3, and pCube1
 * is parentConstrained to joint1 (offset ~0, no parents), so pCube1's rotation is joint1's world
 * rotation. testUsdExportEulerFilter.py records pCube1's rotateXYZ (degrees, to 4 places):
 *   frame 1: (-0.21669838, -1.8291378, 174.18279)
 *   frame 2: (0.027377421, -6.3026876, -179.2725)
 *   frame 3: (0.26995704, 0.286542, -172.7325)
 * Compared as rotation matrices (the Euler filter only changes the representation): measured
 * 4.1e-4, 1.2e-5 and 1.5e-5 deg apart. Frame 1 has the handle 0.004 short of full extension,
 * where the knee angle acos(...) is most sensitive to rounding in the solve; the test allows
 * 1e-3 deg. */
static void test_maya_usd_euler_filter_scene(void **st) {
  (void)st;
  char path[600];
  snprintf(path, sizeof path, "%s/maya-usd/UsdExportEulerFilterTest.ma", SINEW_TEST_DATA_DIR);
  sinew_session_t *s = session();
  if (sinew_session_open(s, path)) fail_msg("%s: %s", path, sinew_session_errmsg(s));
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_node_t h;
  assert_int_equal(sinew_node_find(g, "ikHandle1", &h), 0);
  assert_true(sinew_ik_wired(g, h));
  /* :ikSystem is Maya's default node, of its own type, listing the shared solver */
  sinew_node_t sys;
  assert_int_equal(sinew_node_find(g, "ikSystem", &sys), 0);
  assert_string_equal(sinew_node_type_name(sinew_node_type(g, sys)), "ikSystem");
  sinew_plug_t sol = plug(g, "ikSystem.sol[0]"), src;
  assert_true(sinew_plug_source(g, &sol, &src));
  assert_string_equal(sinew_node_name(g, src.node), "ikRPsolver");
  /* a handle made by the command on a new solver is listed there too */
  run(s, "createNode joint -n a0; createNode joint -n a1 -p a0; setAttr a1.t 1 0 0;"
         "ikHandle -sj a0 -ee a1 -sol ikSCsolver");
  sol = plug(g, "ikSystem.sol[1]");
  assert_true(sinew_plug_source(g, &sol, &src));
  assert_string_equal(sinew_node_name(g, src.node), "ikSCsolver");
  const double expect[3][3] = {{-0.21669838, -1.8291378, 174.18279},
                               {0.027377421, -6.3026876, -179.2725},
                               {0.26995704, 0.286542, -172.7325}};
  for (int f = 0; f < 3; f++) {
    assert_int_equal(sinew_time_set_frame(g, f + 1), 0);
    sinew_plug_t p = plug(g, "joint1.wm[0]");
    sinew_mat4_t w, want, rot, rest;
    assert_int_equal(sinew_get_matrix(g, &p, &w), 0);
    assert_true(sinew_mat4_orthonormalize_rows(&w, &rot, &rest));
    sinew_mat4_euler((sinew_vec3_t){expect[f][0] * DEG, expect[f][1] * DEG, expect[f][2] * DEG}, SINEW_ROTATE_XYZ,
                     &want);
    /* the angle of the rotation between sinew's and Maya's: acos((tr(R W^T) - 1) / 2) */
    double tr = 0;
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) tr += rot.m[r][c] * want.m[r][c];
    double ang = acos(fmin(1, fmax(-1, (tr - 1) / 2))) / DEG;
    if (ang > MAYA_USD_TOL_DEG) fail_msg("frame %d: joint1's world rotation is %.6g deg from Maya's", f + 1, ang);
    /* the end joint reaches the handle when it can (frames 1, 2); on frame 3 the handle is out
     * of reach (3.9522 from joint1, bones 1.8202 + 2.1233 = 3.9435) and the chain points at it */
    sinew_vec3_t e = wpos(g, "joint3"), hp = wpos(g, "ikHandle1"), r = wpos(g, "joint1"), d, de;
    sinew_vec3_sub(hp, r, &d);
    sinew_vec3_sub(e, r, &de);
    double reach = 1.8202072563168847 + 2.1232561047443403, dist = sinew_vec3_length(d);
    if (f < 2) {
      assert_true(dist < reach);
      near3(e, hp.x, hp.y, hp.z, 1e-6);
    } else {
      assert_true(dist > reach);
      sinew_vec3_scale(d, reach / dist, &d);
      near3(de, d.x, d.y, d.z, 1e-6);
    }
  }
  sinew_session_destroy(s);
}

/* omtk's built biped (tests/data/omtk/rig_example_02_built.ma, Maya 2016-2018) has eight
 * handles. Which are joined depends only on the file's connections: the four two-bone arm and
 * leg RP handles and the two one-bone SC "Ties" handles are; the two foot handles, whose start
 * joint's rotate channels an orientConstraint drives, are not (warned, left to their driver).
 * The solved poses are not compared with the rotations Maya saved: the handles and the bone
 * lengths are driven by constraints and utility nodes (stretch), which this test cannot rely on
 * evaluating as Maya does; every chain joint's world matrix must be finite. */
static void test_omtk_rig(void **st) {
  (void)st;
  char path[600];
  snprintf(path, sizeof path, "%s/omtk/rig_example_02_built.ma", SINEW_TEST_DATA_DIR);
  sinew_session_t *s = session();
  if (sinew_session_open(s, path)) fail_msg("%s: %s", path, sinew_session_errmsg(s));
  sinew_graph_t *g = sinew_session_graph(s);
  const char *joined[] = {"L_Arm_IkHandle", "R_Arm_IkHandle", "L_Leg_IkHandle", "R_Leg_IkHandle",
                          "L_Leg_IkHandle_Ties", "R_Leg_IkHandle_Ties"};
  for (size_t i = 0; i < sizeof joined / sizeof *joined; i++) {
    sinew_node_t h, jl[3];
    size_t nj = 0;
    assert_int_equal(sinew_node_find(g, joined[i], &h), 0);
    if (!sinew_ik_wired(g, h)) fail_msg("%s is not joined", joined[i]);
    assert_int_equal(sinew_ik_chain(g, h, jl, 3, &nj), 0);
    assert_int_equal(nj, i < 4 ? 3 : 2);
    for (size_t k = 0; k < nj; k++) {
      sinew_mat4_t w;
      assert_int_equal(sinew_dag_world_matrix(g, jl[k], &w), 0);
      assert_true(sinew_mat4_is_finite(&w));
    }
  }
  const char *left[] = {"L_Leg_IkHandle_Foot", "R_Leg_IkHandle_Foot"};
  for (size_t i = 0; i < 2; i++) {
    sinew_node_t h;
    assert_int_equal(sinew_node_find(g, left[i], &h), 0);
    assert_false(sinew_ik_wired(g, h));
  }
  sinew_session_destroy(s);
}

/* ---- out of memory: a failing ikHandle changes nothing ---------------------------------------- */

/* The scene as text (what a save writes), the number of connections (sinew's own IK wiring
 * included) and every joint's FK rotation (not saved). */
static char *snapshot(sinew_session_t *s) {
  sinew_graph_t *g = sinew_session_graph(s);
  char *text = write_scene(s);
  sinew_graph_stats_t st;
  sinew_graph_stats(g, &st);
  size_t n = strlen(text);
  char *out = realloc(text, n + 4096);
  assert_non_null(out);
  size_t at = n + (size_t)snprintf(out + n, 4096, "%zu connections\n", st.connections);
  const char *joints[] = {"j0", "j1", "j2"};
  for (size_t i = 0; i < 3; i++) {
    char p[64];
    snprintf(p, sizeof p, "%s.sinewFkRotateZ", joints[i]);
    at += (size_t)snprintf(out + at, n + 4096 - at, "%s %.17g\n", p, getd(g, p));
  }
  return out;
}

static void test_out_of_memory(void **st) {
  (void)st;
  const char *commands[] = {"ikHandle -sj j0 -ee j2 -n leg", "ikHandle -sj j0 -ee j2 -sol ikSCsolver"};
  for (size_t c = 0; c < 2; c++) {
    bool done = false;
    for (long n = 1; !done && n < 20000; n++) {
      test_alloc_install();
      sinew_session_t *s = session();
      chain(s, 10);
      run(s, "setAttr j0.r 0 0 20; setAttr j1.r 0 0 -30");
      char *before = snapshot(s);
      test_alloc_reset();
      test_alloc_fail_at(n);
      int rc = run_rc(s, commands[c], NULL);
      test_alloc_fail_at(0);
      if (rc == SINEW_OK) {
        done = test_alloc_count() < n; /* the failure point was never reached */
        sinew_node_t h;
        assert_int_equal(sinew_node_list_type(sinew_session_graph(s), "ikHandle", true, &h, 1), 1);
        assert_true(sinew_ik_wired(sinew_session_graph(s), h));
      } else {
        char *after = snapshot(s);
        if (strcmp(before, after) != 0)
          fail_msg("'%s' failing at allocation %ld changed the scene", commands[c], n);
        free(after);
      }
      free(before);
      sinew_session_destroy(s);
      assert_int_equal(test_alloc_live(), 0);
      test_alloc_uninstall();
    }
    assert_true(done);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rp_reach_and_pole),
      cmocka_unit_test(test_parents),
      cmocka_unit_test(test_preferred_angle_and_blend),
      cmocka_unit_test(test_sc_solver),
      cmocka_unit_test(test_dirt),
      cmocka_unit_test(test_command),
      cmocka_unit_test(test_bad_wiring),
      cmocka_unit_test(test_duplicate),
      cmocka_unit_test(test_save_and_reopen),
      cmocka_unit_test(test_maya_usd_euler_filter_scene),
      cmocka_unit_test(test_omtk_rig),
      cmocka_unit_test(test_out_of_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
