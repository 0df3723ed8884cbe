/* tests/test_transforms.c: the transform-side node types (transform, joint, time,
 * unitConversion) and the DAG operations on them, against Maya's formulas (spec sections 2, 3
 * and 9).
 *
 * Every expectation is worked out here independently of the library: literal numbers done by
 * hand, or matrices built in this file from axis-angle rotations (Rodrigues' formula) and
 * multiplied with this file's own 4x4 product. The library's math functions are never used to
 * produce an expected value. */
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

#define TOL 1e-9
static const double PI = 3.14159265358979323846;
static double deg(double d) { return d * PI / 180.0; }

/* ---- independent matrix helpers (row vectors: p' = p * M, translation in row 3) ------------- */

typedef sinew_mat4_t M4;
typedef sinew_vec3_t V3;

static M4 ident(void) {
  M4 r;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) r.m[i][j] = i == j ? 1.0 : 0.0;
  return r;
}

/* a * b: "a then b". */
static M4 mm(M4 a, M4 b) {
  M4 r;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) {
      double s = 0;
      for (int k = 0; k < 4; k++) s += a.m[i][k] * b.m[k][j];
      r.m[i][j] = s;
    }
  return r;
}

/* The product of n matrices, left to right. */
static M4 chain(int n, ...) {
  va_list ap;
  va_start(ap, n);
  M4 r = ident();
  for (int i = 0; i < n; i++) r = mm(r, va_arg(ap, M4));
  va_end(ap);
  return r;
}

static M4 tr(double x, double y, double z) {
  M4 r = ident();
  r.m[3][0] = x;
  r.m[3][1] = y;
  r.m[3][2] = z;
  return r;
}

static M4 sc(double x, double y, double z) {
  M4 r = ident();
  r.m[0][0] = x;
  r.m[1][1] = y;
  r.m[2][2] = z;
  return r;
}

/* Maya's SH: x' = x + xy*y + xz*z, y' = y + yz*z, written out by hand. */
static M4 shear(double xy, double xz, double yz) {
  M4 r = ident();
  r.m[1][0] = xy;
  r.m[2][0] = xz;
  r.m[2][1] = yz;
  return r;
}

static M4 rows(double a, double b, double c, double d, double e, double f, double g, double h, double i) {
  M4 r = ident();
  double v[9] = {a, b, c, d, e, f, g, h, i};
  for (int k = 0; k < 9; k++) r.m[k / 3][k % 3] = v[k];
  return r;
}

static V3 cross(V3 a, V3 b) { return (V3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
static double dot(V3 a, V3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

/* Rodrigues: v rotated by angle about the unit axis k (right-handed). */
static V3 rodrigues(V3 v, V3 k, double a) {
  double c = cos(a), s = sin(a), kv = dot(k, v);
  V3 kx = cross(k, v);
  return (V3){v.x * c + kx.x * s + k.x * kv * (1 - c), v.y * c + kx.y * s + k.y * kv * (1 - c),
              v.z * c + kx.z * s + k.z * kv * (1 - c)};
}

/* The row-vector matrix of a rotation about an arbitrary axis: row i is the image of e_i. */
static M4 axis_angle(V3 axis, double a) {
  double len = sqrt(dot(axis, axis));
  V3 k = {axis.x / len, axis.y / len, axis.z / len};
  M4 r = ident();
  V3 e[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (int i = 0; i < 3; i++) {
    V3 img = rodrigues(e[i], k, a);
    r.m[i][0] = img.x;
    r.m[i][1] = img.y;
    r.m[i][2] = img.z;
  }
  return r;
}

static M4 RX(double a) { return axis_angle((V3){1, 0, 0}, a); }
static M4 RY(double a) { return axis_angle((V3){0, 1, 0}, a); }
static M4 RZ(double a) { return axis_angle((V3){0, 0, 1}, a); }

/* Maya's rotate-order table (spec 2.2), by order index. */
static M4 euler(double x, double y, double z, int order) {
  M4 a = RX(x), b = RY(y), c = RZ(z);
  switch (order) {
    case 1: return chain(3, b, c, a); /* yzx */
    case 2: return chain(3, c, a, b); /* zxy */
    case 3: return chain(3, a, c, b); /* xzy */
    case 4: return chain(3, b, a, c); /* yxz */
    case 5: return chain(3, c, b, a); /* zyx */
    default: return chain(3, a, b, c); /* xyz */
  }
}

static V3 xfp(V3 p, M4 m) {
  return (V3){p.x * m.m[0][0] + p.y * m.m[1][0] + p.z * m.m[2][0] + m.m[3][0],
              p.x * m.m[0][1] + p.y * m.m[1][1] + p.z * m.m[2][1] + m.m[3][1],
              p.x * m.m[0][2] + p.y * m.m[1][2] + p.z * m.m[2][2] + m.m[3][2]};
}

static void print_m(const char *label, const M4 *m) {
  fprintf(stderr, "%s:\n", label);
  for (int i = 0; i < 4; i++)
    fprintf(stderr, "  %.15g %.15g %.15g %.15g\n", m->m[i][0], m->m[i][1], m->m[i][2], m->m[i][3]);
}

static void assert_mat_near_at(const M4 *got, const M4 *want, double tol, const char *what, int line) {
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      if (!(fabs(got->m[i][j] - want->m[i][j]) <= tol)) {
        print_m("got", got);
        print_m("want", want);
        fail_msg("line %d: %s: [%d][%d] %.17g != %.17g", line, what, i, j, got->m[i][j], want->m[i][j]);
      }
}
#define assert_mat_near(got, want, what) assert_mat_near_at((got), (want), TOL, (what), __LINE__)

static void assert_vec_near_at(V3 got, V3 want, double tol, const char *what, int line) {
  if (!(fabs(got.x - want.x) <= tol && fabs(got.y - want.y) <= tol && fabs(got.z - want.z) <= tol))
    fail_msg("line %d: %s: (%.17g, %.17g, %.17g) != (%.17g, %.17g, %.17g)", line, what, got.x, got.y, got.z,
             want.x, want.y, want.z);
}
#define assert_vec_near(got, want, what) assert_vec_near_at((got), (want), TOL, (what), __LINE__)

#define assert_near(got, want)                                                                  \
  do {                                                                                          \
    double g_ = (got), w_ = (want);                                                             \
    if (!(fabs(g_ - w_) <= TOL)) fail_msg("line %d: %.17g != %.17g", __LINE__, g_, w_);         \
  } while (0)

/* ---- graph helpers ---------------------------------------------------------------------------- */

static sinew_graph_t *scene(void) {
  sinew_graph_t *g = NULL;
  assert_int_equal(sinew_scene_create(NULL, &g), 0);
  assert_non_null(g);
  return g;
}

static sinew_node_t mk(sinew_graph_t *g, const char *type, const char *name) {
  sinew_node_t n;
  int rc = sinew_node_create(g, type, name, &n);
  if (rc) fail_msg("create %s %s: %s", type, name, sinew_graph_errmsg(g));
  return n;
}

static sinew_node_t node(sinew_graph_t *g, const char *name) {
  sinew_node_t n;
  int rc = sinew_node_find(g, name, &n);
  if (rc) fail_msg("find %s: %s", name, sinew_graph_errmsg(g));
  return n;
}

static sinew_plug_t P(sinew_graph_t *g, const char *text) {
  sinew_plug_t p;
  int rc = sinew_plug_parse(g, text, (sinew_node_t){0, 0}, &p);
  if (rc) fail_msg("parse %s: %s", text, sinew_graph_errmsg(g));
  return p;
}

static double getd(sinew_graph_t *g, const char *text) {
  double v = NAN;
  sinew_plug_t p = P(g, text);
  int rc = sinew_get_double(g, &p, &v);
  if (rc) fail_msg("get %s: %s", text, sinew_graph_errmsg(g));
  return v;
}

static void setd(sinew_graph_t *g, const char *text, double v) {
  sinew_plug_t p = P(g, text);
  int rc = sinew_set_double(g, &p, v);
  if (rc) fail_msg("set %s: %s", text, sinew_graph_errmsg(g));
}

static void set3(sinew_graph_t *g, const char *text, double x, double y, double z) {
  sinew_plug_t p = P(g, text);
  double v[3] = {x, y, z};
  int rc = sinew_set_doubles(g, &p, v, 3);
  if (rc) fail_msg("set %s: %s", text, sinew_graph_errmsg(g));
}

static V3 get3(sinew_graph_t *g, const char *text) {
  sinew_plug_t p = P(g, text);
  double v[3] = {NAN, NAN, NAN};
  size_t n = 0;
  int rc = sinew_get_doubles(g, &p, v, 3, &n);
  if (rc) fail_msg("get %s: %s", text, sinew_graph_errmsg(g));
  assert_int_equal(n, 3);
  return (V3){v[0], v[1], v[2]};
}

static M4 getm(sinew_graph_t *g, const char *text) {
  M4 m;
  sinew_plug_t p = P(g, text);
  int rc = sinew_get_matrix(g, &p, &m);
  if (rc) fail_msg("get %s: %s", text, sinew_graph_errmsg(g));
  return m;
}

static void setm(sinew_graph_t *g, const char *text, M4 m) {
  sinew_plug_t p = P(g, text);
  int rc = sinew_set_matrix(g, &p, &m);
  if (rc) fail_msg("set %s: %s", text, sinew_graph_errmsg(g));
}

static void conn(sinew_graph_t *g, const char *a, const char *b) {
  sinew_plug_t s = P(g, a), d = P(g, b);
  int rc = sinew_connect(g, &s, &d, 0, NULL);
  if (rc) fail_msg("connect %s -> %s: %s", a, b, sinew_graph_errmsg(g));
}

static void parent(sinew_graph_t *g, const char *child, const char *par, uint32_t flags) {
  sinew_node_t c = node(g, child), p = {0, 0};
  if (par) p = node(g, par);
  int rc = sinew_dag_parent(g, c, p, flags);
  if (rc) fail_msg("parent %s %s: %s", child, par ? par : "(world)", sinew_graph_errmsg(g));
}

static M4 world(sinew_graph_t *g, const char *name) {
  M4 m;
  int rc = sinew_dag_world_matrix(g, node(g, name), &m);
  if (rc) fail_msg("world matrix of %s: %s", name, sinew_graph_errmsg(g));
  return m;
}

static bool sources_from(sinew_graph_t *g, const char *dst, const char *src) {
  sinew_plug_t d = P(g, dst), s;
  if (!sinew_plug_source(g, &d, &s)) return false;
  sinew_plug_t want = P(g, src);
  return sinew_plug_equal(&s, &want);
}

/* A logger that counts warnings. */
typedef struct log_count {
  int warnings;
  int total;
} log_count;

static void count_log(void *ud, sinew_log_level_t level, sinew_log_id_t id, const char *msg) {
  log_count *c = ud;
  c->total++;
  if (level == SINEW_LOG_WARNING) c->warnings++;
}

/* ---- rotate orders ------------------------------------------------------------------------------ */

static void test_rotate_orders(void **state) {
  (void)state;
  static const char *names[6] = {"xyz", "yzx", "zxy", "xzy", "yxz", "zyx"};
  double rx = deg(30), ry = deg(45), rz = deg(60);
  for (int order = 0; order < 6; order++) {
    sinew_graph_t *g = scene();
    mk(g, "transform", "x");
    set3(g, "x.r", rx, ry, rz);
    set3(g, "x.t", 1, 2, 3);
    setd(g, "x.ro", order);
    /* the enum field names follow the spec's table */
    sinew_node_t x = node(g, "x");
    assert_string_equal(sinew_attr_enum_name(g, x, sinew_node_attr(g, x, "ro"), order), names[order]);
    M4 want = mm(euler(rx, ry, rz, order), tr(1, 2, 3));
    M4 m = getm(g, "x.m"), wm = getm(g, "x.wm[0]");
    char what[64];
    snprintf(what, sizeof what, "matrix, order %s", names[order]);
    assert_mat_near(&m, &want, what);
    assert_mat_near(&wm, &want, what);
    /* a point: rotated about the parent axes in the order's letters, first letter first */
    V3 p = {0.25, -1.5, 2}, q = p;
    for (int k = 0; k < 3; k++) {
      char axis = names[order][k];
      V3 ax = {axis == 'x', axis == 'y', axis == 'z'};
      q = rodrigues(q, ax, axis == 'x' ? rx : axis == 'y' ? ry : rz);
    }
    q = (V3){q.x + 1, q.y + 2, q.z + 3};
    assert_vec_near(xfp(p, wm), q, what);
    sinew_graph_destroy(g);
  }
  /* by hand, rx = rz = 90deg: RX(90) takes (0,1,0) to (0,0,1), RZ(90) takes (1,0,0) to (0,1,0) */
  sinew_graph_t *g = scene();
  mk(g, "transform", "x");
  set3(g, "x.r", deg(90), 0, deg(90));
  M4 wm = getm(g, "x.wm[0]");
  assert_vec_near(xfp((V3){1, 0, 0}, wm), ((V3){0, 1, 0}), "xyz: (1,0,0) -X-> same -Z-> (0,1,0)");
  setd(g, "x.ro", 5); /* zyx: Z first, then X */
  wm = getm(g, "x.wm[0]");
  assert_vec_near(xfp((V3){1, 0, 0}, wm), ((V3){0, 0, 1}), "zyx: (1,0,0) -Z-> (0,1,0) -X-> (0,0,1)");
  assert_vec_near(xfp((V3){0, 1, 0}, wm), ((V3){-1, 0, 0}), "zyx: (0,1,0) -Z-> (-1,0,0)");
  setd(g, "x.ro", 0);
  wm = getm(g, "x.wm[0]");
  assert_vec_near(xfp((V3){0, 1, 0}, wm), ((V3){0, 0, 1}), "xyz: (0,1,0) -X-> (0,0,1) -Z-> same");
  sinew_graph_destroy(g);
}

/* An out-of-range rotateOrder is stored (the enum has no min/max, as a setAttr of any int on an
 * enum) and the node treats it as xyz. A fractional value rounds to the nearest order. */
static void test_rotate_order_out_of_range(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  mk(g, "transform", "x");
  set3(g, "x.r", deg(30), deg(45), deg(60));
  M4 xyz = euler(deg(30), deg(45), deg(60), 0);
  sinew_plug_t ro = P(g, "x.ro");
  assert_int_equal(sinew_set_double(g, &ro, 7), 0);
  assert_near(getd(g, "x.ro"), 7);
  M4 m = getm(g, "x.m");
  assert_mat_near(&m, &xyz, "rotateOrder 7 acts as xyz");
  assert_int_equal(sinew_set_double(g, &ro, -1), 0);
  m = getm(g, "x.m");
  assert_mat_near(&m, &xyz, "rotateOrder -1 acts as xyz");
  assert_int_equal(sinew_set_double(g, &ro, 4.6), 0); /* rounds to 5, zyx */
  assert_near(getd(g, "x.ro"), 5);
  m = getm(g, "x.m");
  M4 zyx = euler(deg(30), deg(45), deg(60), 5);
  assert_mat_near(&m, &zyx, "rotateOrder 4.6 rounds to zyx");
  sinew_graph_destroy(g);
}

/* ---- joints and rotateAxis ------------------------------------------------------------------------ */

static void test_joint_orient_and_rotate(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  mk(g, "joint", "j");
  set3(g, "j.jo", 0, 0, deg(90));
  set3(g, "j.r", 0, deg(45), 0);
  set3(g, "j.t", 2, 0, 0);
  /* m = R * JO * T = RY(45) * RZ(90) * T; by hand (h = sqrt(2)/2):
   * RY(45) rows (h,0,-h) (0,1,0) (h,0,h); times RZ(90) rows (0,1,0) (-1,0,0) (0,0,1) */
  double h = sqrt(2.0) / 2;
  M4 want = rows(0, h, -h, -1, 0, 0, 0, h, h);
  want.m[3][0] = 2;
  M4 m = getm(g, "j.m"), wm = getm(g, "j.wm[0]");
  assert_mat_near(&m, &want, "joint m");
  assert_mat_near(&wm, &want, "joint wm");
  assert_vec_near(xfp((V3){1, 0, 0}, wm), ((V3){2, h, -h}), "joint point");
  /* jointOrient is always xyz, whatever rotateOrder says */
  set3(g, "j.jo", deg(30), deg(45), deg(60));
  set3(g, "j.r", 0, 0, 0);
  setd(g, "j.ro", 5);
  want = mm(chain(3, RX(deg(30)), RY(deg(45)), RZ(deg(60))), tr(2, 0, 0));
  m = getm(g, "j.m");
  assert_mat_near(&m, &want, "jointOrient ignores rotateOrder");
  /* rotate uses rotateOrder and comes before jointOrient */
  set3(g, "j.r", deg(10), deg(20), deg(30));
  want = chain(3, euler(deg(10), deg(20), deg(30), 5), chain(3, RX(deg(30)), RY(deg(45)), RZ(deg(60))),
               tr(2, 0, 0));
  m = getm(g, "j.m");
  assert_mat_near(&m, &want, "R(zyx) * JO * T");
  sinew_graph_destroy(g);
}

static void test_rotate_axis_transform(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  mk(g, "transform", "x");
  set3(g, "x.ra", deg(90), 0, 0);
  set3(g, "x.r", 0, 0, deg(90));
  /* RA * R = RX(90) * RZ(90): by hand rows (0,1,0) (0,0,1) (1,0,0) */
  M4 want = rows(0, 1, 0, 0, 0, 1, 1, 0, 0);
  M4 m = getm(g, "x.m");
  assert_mat_near(&m, &want, "RA then R");
  /* rotateAxis is always xyz, even with another rotateOrder */
  set3(g, "x.ra", deg(30), deg(45), deg(60));
  set3(g, "x.r", deg(-20), deg(10), deg(5));
  setd(g, "x.ro", 2); /* zxy */
  want = mm(chain(3, RX(deg(30)), RY(deg(45)), RZ(deg(60))), euler(deg(-20), deg(10), deg(5), 2));
  m = getm(g, "x.m");
  assert_mat_near(&m, &want, "RA(xyz) * R(zxy)");
  /* with a rotate pivot, RA sits inside the pivot like R */
  set3(g, "x.rp", 1, 2, 3);
  want = chain(4, tr(-1, -2, -3), chain(3, RX(deg(30)), RY(deg(45)), RZ(deg(60))),
               euler(deg(-20), deg(10), deg(5), 2), tr(1, 2, 3));
  m = getm(g, "x.m");
  assert_mat_near(&m, &want, "RPinv * RA * R * RP");
  sinew_graph_destroy(g);
}

static void test_rotate_axis_joint(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  mk(g, "joint", "j");
  set3(g, "j.ra", 0, 0, deg(90));
  set3(g, "j.r", deg(90), 0, 0);
  set3(g, "j.jo", 0, deg(90), 0);
  /* RZ(90) * RX(90) * RY(90), by hand:
   * RZ(90) rows (0,1,0) (-1,0,0) (0,0,1); * RX(90) rows (1,0,0) (0,0,1) (0,-1,0) -> (0,0,1) (-1,0,0) (0,-1,0);
   * * RY(90) rows (0,0,-1) (0,1,0) (1,0,0) -> (1,0,0) (0,0,1) (0,-1,0) */
  M4 want = rows(1, 0, 0, 0, 0, 1, 0, -1, 0);
  M4 m = getm(g, "j.m");
  assert_mat_near(&m, &want, "joint RA * R * JO");
  /* with scale and translate: S * RA * R * JO * T, the scale acting first in joint space */
  set3(g, "j.s", 2, 3, 4);
  set3(g, "j.t", 5, 6, 7);
  set3(g, "j.ra", deg(15), deg(25), deg(35));
  setd(g, "j.ro", 1); /* yzx: RA stays xyz */
  want = chain(5, sc(2, 3, 4), chain(3, RX(deg(15)), RY(deg(25)), RZ(deg(35))), euler(deg(90), 0, 0, 1),
               RY(deg(90)), tr(5, 6, 7));
  m = getm(g, "j.m");
  assert_mat_near(&m, &want, "S * RA * R * JO * T");
  /* a joint ignores the transform-only inputs (pivots and shear stay fixed at 0 for joints) */
  set3(g, "j.rp", 1, 1, 1);
  set3(g, "j.sp", 1, 1, 1);
  set3(g, "j.sh", 1, 1, 1);
  m = getm(g, "j.m");
  assert_mat_near(&m, &want, "pivots and shear ignored on a joint");
  sinew_graph_destroy(g);
}

/* ---- pivots and shear ------------------------------------------------------------------------------- */

static void test_pivots(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  mk(g, "transform", "x");
  /* rotating 90deg about Z around the pivot (1,0,0) moves the origin to (1,-1,0) */
  set3(g, "x.r", 0, 0, deg(90));
  set3(g, "x.rp", 1, 0, 0);
  M4 wm = getm(g, "x.wm[0]");
  assert_vec_near(xfp((V3){0, 0, 0}, wm), ((V3){1, -1, 0}), "origin about rotate pivot");
  assert_vec_near(xfp((V3){1, 0, 0}, wm), ((V3){1, 0, 0}), "the pivot stays");
  set3(g, "x.r", 0, 0, 0);
  set3(g, "x.rp", 0, 0, 0);
  /* scale 2 about the scale pivot (1,1,1): the pivot stays, the origin goes to (-1,-1,-1) */
  set3(g, "x.s", 2, 2, 2);
  set3(g, "x.sp", 1, 1, 1);
  wm = getm(g, "x.wm[0]");
  assert_vec_near(xfp((V3){1, 1, 1}, wm), ((V3){1, 1, 1}), "scale pivot stays");
  assert_vec_near(xfp((V3){0, 0, 0}, wm), ((V3){-1, -1, -1}), "origin about scale pivot");
  assert_vec_near(xfp((V3){2, 1, 1}, wm), ((V3){3, 1, 1}), "a point beside the pivot");
  /* everything at once:
   * s = 2, sp = (1,1,1), spt = (0.5,0,0), rz = 90, rp = (1,0,0), rpt = (0,0,3), t = (10,0,0).
   * (1,2,3) -sp-> (0,1,2) -S-> (0,2,4) +sp-> (1,3,5) +spt-> (1.5,3,5) -rp-> (0.5,3,5)
   *   -RZ(90)-> (-3,0.5,5) +rp-> (-2,0.5,5) +rpt-> (-2,0.5,8) +t-> (8,0.5,8)
   * origin: (-1,-1,-1) (-2,-2,-2) (-1,-1,-1) (-0.5,-1,-1) (-1.5,-1,-1) (1,-1.5,-1) (2,-1.5,-1)
   *   (2,-1.5,2) (12,-1.5,2) */
  set3(g, "x.spt", 0.5, 0, 0);
  set3(g, "x.r", 0, 0, deg(90));
  set3(g, "x.rp", 1, 0, 0);
  set3(g, "x.rpt", 0, 0, 3);
  set3(g, "x.t", 10, 0, 0);
  wm = getm(g, "x.wm[0]");
  assert_vec_near(xfp((V3){1, 2, 3}, wm), ((V3){8, 0.5, 8}), "all pivots");
  M4 want = rows(0, 2, 0, -2, 0, 0, 0, 0, 2);
  want.m[3][0] = 12;
  want.m[3][1] = -1.5;
  want.m[3][2] = 2;
  assert_mat_near(&wm, &want, "all pivots, matrix");
  /* general case against the spec's product, with non-uniform values everywhere */
  set3(g, "x.s", 1.5, 0.5, 2);
  set3(g, "x.sh", 0.3, -0.2, 0.7);
  set3(g, "x.sp", 0.1, -0.4, 0.9);
  set3(g, "x.spt", -0.3, 0.6, 0.2);
  set3(g, "x.rp", 2, -1, 0.5);
  set3(g, "x.rpt", 0.25, 0.5, -0.75);
  set3(g, "x.ra", deg(12), deg(-7), deg(33));
  set3(g, "x.r", deg(40), deg(-65), deg(120));
  setd(g, "x.ro", 3);
  set3(g, "x.t", -3, 4, 5);
  want = chain(11, tr(-0.1, 0.4, -0.9), sc(1.5, 0.5, 2), shear(0.3, -0.2, 0.7), tr(0.1, -0.4, 0.9),
               tr(-0.3, 0.6, 0.2), tr(-2, 1, -0.5), chain(3, RX(deg(12)), RY(deg(-7)), RZ(deg(33))),
               euler(deg(40), deg(-65), deg(120), 3), tr(2, -1, 0.5), tr(0.25, 0.5, -0.75), tr(-3, 4, 5));
  M4 m = getm(g, "x.m");
  assert_mat_near(&m, &want, "SPinv*S*SH*SP*ST*RPinv*RA*R*RP*RT*T");
  sinew_graph_destroy(g);
}

static void test_shear(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  mk(g, "transform", "x");
  set3(g, "x.sh", 0.5, 0.25, 2);
  /* x' = x + 0.5 y + 0.25 z, y' = y + 2 z: (1,2,3) -> (2.75, 8, 3) */
  M4 m = getm(g, "x.m");
  M4 want = rows(1, 0, 0, 0.5, 1, 0, 0.25, 2, 1);
  assert_mat_near(&m, &want, "SH layout");
  assert_vec_near(xfp((V3){1, 2, 3}, m), ((V3){2.75, 8, 3}), "sheared point");
  /* each component alone lands in its own cell */
  set3(g, "x.sh", 0.5, 0, 0);
  m = getm(g, "x.m");
  assert_near(m.m[1][0], 0.5);
  assert_near(m.m[2][0], 0);
  assert_near(m.m[2][1], 0);
  set3(g, "x.sh", 0, 0.5, 0);
  m = getm(g, "x.m");
  assert_near(m.m[2][0], 0.5);
  assert_near(m.m[1][0], 0);
  set3(g, "x.sh", 0, 0, 0.5);
  m = getm(g, "x.m");
  assert_near(m.m[2][1], 0.5);
  assert_near(m.m[2][0], 0);
  /* scale acts before shear: (1,2,3) -S(2,3,4)-> (2,6,12) -SH(0.5,0.25,2)-> (8,30,12) */
  set3(g, "x.sh", 0.5, 0.25, 2);
  set3(g, "x.s", 2, 3, 4);
  m = getm(g, "x.m");
  assert_vec_near(xfp((V3){1, 2, 3}, m), ((V3){8, 30, 12}), "S then SH");
  /* shear is about the scale pivot: the pivot stays */
  set3(g, "x.sp", 1, 1, 1);
  m = getm(g, "x.m");
  assert_vec_near(xfp((V3){1, 1, 1}, m), ((V3){1, 1, 1}), "scale pivot fixed under shear");
  /* (2,2,2) - sp = (1,1,1) -S-> (2,3,4) -SH-> (2+1.5+1, 3+8, 4) = (4.5,11,4) + sp = (5.5,12,5) */
  assert_vec_near(xfp((V3){2, 2, 2}, m), ((V3){5.5, 12, 5}), "shear about the pivot");
  sinew_graph_destroy(g);
}

/* ---- hierarchy --------------------------------------------------------------------------------- */

static void test_four_level_hierarchy(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  mk(g, "transform", "a");
  mk(g, "transform", "b");
  mk(g, "transform", "c");
  mk(g, "transform", "d");
  parent(g, "b", "a", 0);
  parent(g, "c", "b", 0);
  parent(g, "d", "c", 0);
  set3(g, "a.t", 1, 0, 0);
  set3(g, "a.r", 0, 0, deg(90));
  set3(g, "b.t", 1, 0, 0);
  set3(g, "b.s", 2, 2, 2);
  set3(g, "c.t", 0, 1, 0);
  set3(g, "c.r", deg(90), 0, 0);
  set3(g, "d.t", 0, 0, 2);
  /* by hand: d's origin (0,0,2) -RX(90)-> (0,-2,0) +c.t-> (0,-1,0) -S2-> (0,-2,0) +b.t-> (1,-2,0)
   *   -RZ(90)-> (2,1,0) +a.t-> (3,1,0) */
  M4 wd = world(g, "d");
  assert_vec_near(xfp((V3){0, 0, 0}, wd), ((V3){3, 1, 0}), "d origin in world");
  /* a point of d: (1,0,0) -> (1,0,2) -> (1,-2,0) -> (1,-1,0) -> (2,-2,0) -> (3,-2,0) -> (2,3,0) -> (3,3,0) */
  assert_vec_near(xfp((V3){1, 0, 0}, wd), ((V3){3, 3, 0}), "d point in world");
  M4 ma = mm(RZ(deg(90)), tr(1, 0, 0)), mb = mm(sc(2, 2, 2), tr(1, 0, 0)), mc = mm(RX(deg(90)), tr(0, 1, 0)),
     md = tr(0, 0, 2);
  M4 want = chain(4, md, mc, mb, ma);
  assert_mat_near(&wd, &want, "wm(d) = m(d) m(c) m(b) m(a)");
  M4 wc = getm(g, "c.wm[0]"), wb = getm(g, "b.wm[0]"), wa = getm(g, "a.wm[0]");
  want = chain(3, mc, mb, ma);
  assert_mat_near(&wc, &want, "wm(c)");
  want = mm(mb, ma);
  assert_mat_near(&wb, &want, "wm(b)");
  assert_mat_near(&wa, &ma, "wm(a)");
  /* moving the root moves everything under it */
  set3(g, "a.t", 0, 0, 10);
  wd = world(g, "d");
  assert_vec_near(xfp((V3){0, 0, 0}, wd), ((V3){2, 1, 10}), "after moving the root");
  /* pm[0] of each is its parent's wm[0] */
  M4 pmd = getm(g, "d.pm[0]");
  wc = getm(g, "c.wm[0]");
  assert_mat_near(&pmd, &wc, "pm(d) = wm(c)");
  sinew_graph_destroy(g);
}

static void test_segment_scale_compensate(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  mk(g, "joint", "p");
  mk(g, "joint", "c");
  parent(g, "c", "p", 0);
  assert_true(sources_from(g, "c.is", "p.s"));
  set3(g, "p.s", 2, 3, 4);
  set3(g, "p.r", 0, 0, deg(90));
  set3(g, "c.t", 1, 1, 1);
  V3 is = get3(g, "c.is");
  assert_vec_near(is, ((V3){2, 3, 4}), "inverseScale carries the parent's scale");
  /* ssc on: c.wm = IS * T * S * RZ(90): the child is not scaled: linear part RZ(90); its
   * position is moved by the parent's scale: (1,1,1) -S-> (2,3,4) -RZ(90)-> (-3,2,4) */
  M4 wc = world(g, "c");
  M4 want = rows(0, 1, 0, -1, 0, 0, 0, 0, 1);
  want.m[3][0] = -3;
  want.m[3][1] = 2;
  want.m[3][2] = 4;
  assert_mat_near(&wc, &want, "ssc on");
  M4 mc = getm(g, "c.m");
  M4 want_m = rows(0.5, 0, 0, 0, 1.0 / 3, 0, 0, 0, 0.25);
  want_m.m[3][0] = 1;
  want_m.m[3][1] = 1;
  want_m.m[3][2] = 1;
  assert_mat_near(&mc, &want_m, "ssc on: m = IS * T");
  /* ssc off: the joint inherits the scale like a transform: linear S * RZ(90) */
  setd(g, "c.ssc", 0);
  wc = world(g, "c");
  want = rows(0, 2, 0, -3, 0, 0, 0, 0, 4);
  want.m[3][0] = -3;
  want.m[3][1] = 2;
  want.m[3][2] = 4;
  assert_mat_near(&wc, &want, "ssc off");
  mc = getm(g, "c.m");
  M4 t111 = tr(1, 1, 1);
  assert_mat_near(&mc, &t111, "ssc off: m = T");
  /* changing the parent's scale reaches the child through is as well as through the parent */
  setd(g, "c.ssc", 1);
  set3(g, "p.s", 0.5, 0.5, 0.5);
  wc = world(g, "c");
  want = rows(0, 1, 0, -1, 0, 0, 0, 0, 1);
  want.m[3][0] = -0.5;
  want.m[3][1] = 0.5;
  want.m[3][2] = 0.5;
  assert_mat_near(&wc, &want, "ssc on after scaling the parent again");
  /* a grandchild under a compensated child is unscaled too */
  mk(g, "joint", "gc");
  parent(g, "gc", "c", 0);
  set3(g, "gc.t", 2, 0, 0);
  M4 wgc = world(g, "gc");
  want.m[3][0] = -0.5;
  want.m[3][1] = 0.5 + 2;
  assert_mat_near(&wgc, &want, "grandchild");
  /* a zero inverseScale component is ignored (taken as 1) rather than dividing by zero */
  parent(g, "gc", NULL, 0);
  sinew_plug_t gcis = P(g, "gc.is");
  assert_false(sinew_plug_source(g, &gcis, NULL));
  set3(g, "gc.is", 0, 2, 1);
  set3(g, "gc.t", 0, 0, 0);
  M4 mgc = getm(g, "gc.m");
  M4 want_is = sc(1, 0.5, 1);
  assert_mat_near(&mgc, &want_is, "zero is component ignored");
  assert_true(sinew_mat4_is_finite(&mgc));
  sinew_graph_destroy(g);
}

static void test_inherits_transform(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  mk(g, "transform", "p");
  mk(g, "transform", "c");
  parent(g, "c", "p", 0);
  set3(g, "p.t", 5, 0, 0);
  set3(g, "p.s", 2, 2, 2);
  set3(g, "c.t", 1, 0, 0);
  M4 wc = world(g, "c");
  assert_vec_near(xfp((V3){0, 0, 0}, wc), ((V3){7, 0, 0}), "inherits");
  setd(g, "c.it", 0);
  wc = world(g, "c");
  M4 want = tr(1, 0, 0), id = ident();
  assert_mat_near(&wc, &want, "inheritsTransform off: wm = m");
  M4 pm = getm(g, "c.pm[0]"), pim = getm(g, "c.pim[0]");
  assert_mat_near(&pm, &id, "pm identity");
  assert_mat_near(&pim, &id, "pim identity");
  /* the parent moving does not move it while off */
  set3(g, "p.t", -5, 0, 0);
  wc = world(g, "c");
  assert_mat_near(&wc, &want, "parent moves, child stays");
  /* switching back picks up the parent again */
  setd(g, "c.it", 1);
  wc = world(g, "c");
  assert_vec_near(xfp((V3){0, 0, 0}, wc), ((V3){-3, 0, 0}), "inherits again");
  pm = getm(g, "c.pm[0]");
  M4 wp = world(g, "p");
  assert_mat_near(&pm, &wp, "pm = parent wm");
  /* a joint too */
  mk(g, "joint", "j");
  parent(g, "j", "p", 0);
  set3(g, "j.t", 1, 0, 0);
  setd(g, "j.it", 0);
  M4 wj = world(g, "j");
  assert_mat_near(&wj, &want, "joint with inheritsTransform off");
  sinew_graph_destroy(g);
}

static void test_offset_parent_matrix(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  mk(g, "transform", "p");
  mk(g, "transform", "c");
  parent(g, "c", "p", 0);
  set3(g, "p.t", 5, 0, 0);
  set3(g, "c.t", 1, 0, 0);
  setm(g, "c.opm", rows(0, 1, 0, -1, 0, 0, 0, 0, 1)); /* RZ(90) */
  /* wm = m * opm * pm: (0,0,0) -T-> (1,0,0) -RZ(90)-> (0,1,0) -P-> (5,1,0) (the other order would
   * give (6,0,0)) */
  M4 wc = world(g, "c");
  assert_vec_near(xfp((V3){0, 0, 0}, wc), ((V3){5, 1, 0}), "m * opm * pm");
  M4 want = chain(3, tr(1, 0, 0), rows(0, 1, 0, -1, 0, 0, 0, 0, 1), tr(5, 0, 0));
  assert_mat_near(&wc, &want, "m * opm * pm, matrix");
  /* opm is not part of matrix nor of parentMatrix */
  M4 m = getm(g, "c.m"), pm = getm(g, "c.pm[0]"), t1 = tr(1, 0, 0), t5 = tr(5, 0, 0);
  assert_mat_near(&m, &t1, "matrix excludes opm");
  assert_mat_near(&pm, &t5, "parentMatrix excludes opm");
  /* changing only the opm recomputes the world matrix (and the child's below it) */
  mk(g, "transform", "gc");
  parent(g, "gc", "c", 0);
  M4 wgc = world(g, "gc");
  assert_vec_near(xfp((V3){0, 0, 0}, wgc), ((V3){5, 1, 0}), "grandchild before");
  setm(g, "c.opm", tr(0, 0, 4));
  wc = world(g, "c");
  assert_vec_near(xfp((V3){0, 0, 0}, wc), ((V3){6, 0, 4}), "after changing only opm");
  wgc = world(g, "gc");
  assert_vec_near(xfp((V3){0, 0, 0}, wgc), ((V3){6, 0, 4}), "grandchild after changing only opm");
  parent(g, "gc", NULL, 0);
  /* a scaled opm under a rotated parent */
  set3(g, "p.r", deg(30), 0, 0);
  setm(g, "c.opm", mm(sc(2, 1, 1), tr(0, 0, 3)));
  wc = world(g, "c");
  want = chain(4, tr(1, 0, 0), mm(sc(2, 1, 1), tr(0, 0, 3)), RX(deg(30)), tr(5, 0, 0));
  assert_mat_near(&wc, &want, "scaled opm");
  /* under the world the opm still applies */
  parent(g, "c", NULL, 0);
  wc = world(g, "c");
  want = chain(2, tr(1, 0, 0), mm(sc(2, 1, 1), tr(0, 0, 3)));
  assert_mat_near(&wc, &want, "opm under the world");
  /* and with inheritsTransform off only the parent is dropped */
  parent(g, "c", "p", 0);
  setd(g, "c.it", 0);
  wc = world(g, "c");
  assert_mat_near(&wc, &want, "opm with inheritsTransform off");
  /* a joint: m * opm * pm as well */
  mk(g, "joint", "j");
  parent(g, "j", "p", 0);
  set3(g, "j.t", 0, 1, 0);
  setm(g, "j.opm", tr(0, 0, 7));
  M4 wj = world(g, "j");
  want = chain(3, tr(0, 1, 0), tr(0, 0, 7), mm(RX(deg(30)), tr(5, 0, 0)));
  assert_mat_near(&wj, &want, "joint opm");
  sinew_graph_destroy(g);
}

/* Every output of a transform is consistent with the others. */
static void check_outputs(sinew_graph_t *g, const char *name, const char *parent_name) {
  char buf[64];
  M4 id = ident();
#define GETM(attr) (snprintf(buf, sizeof buf, "%s.%s", name, attr), getm(g, buf))
  M4 m = GETM("m"), im = GETM("im"), xm = GETM("xm"), wm = GETM("wm[0]"), wim = GETM("wim[0]"),
     pm = GETM("pm[0]"), pim = GETM("pim[0]"), opm = GETM("opm");
#undef GETM
  M4 prod = mm(m, im);
  assert_mat_near(&prod, &id, "m * im");
  prod = mm(im, m);
  assert_mat_near(&prod, &id, "im * m");
  prod = mm(wm, wim);
  assert_mat_near(&prod, &id, "wm * wim");
  prod = mm(pm, pim);
  assert_mat_near(&prod, &id, "pm * pim");
  assert_mat_near(&xm, &m, "xm = m");
  M4 want = chain(3, m, opm, pm);
  assert_mat_near(&wm, &want, "wm = m * opm * pm");
  if (parent_name) {
    M4 pw = world(g, parent_name);
    assert_mat_near(&pm, &pw, "pm = parent's wm");
  } else {
    assert_mat_near(&pm, &id, "pm = identity under the world");
  }
}

static void test_output_consistency(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  mk(g, "transform", "a");
  mk(g, "transform", "b");
  mk(g, "joint", "j");
  parent(g, "b", "a", 0);
  parent(g, "j", "b", 0);
  set3(g, "a.t", 1, -2, 3);
  set3(g, "a.r", deg(10), deg(20), deg(30));
  set3(g, "a.s", 1, 2, 3);
  set3(g, "b.t", 4, 5, -6);
  set3(g, "b.r", deg(-50), deg(60), deg(70));
  setd(g, "b.ro", 4);
  set3(g, "b.s", 0.5, 1.5, 2.5);
  set3(g, "b.sh", 0.1, 0.2, 0.3);
  set3(g, "b.rp", 1, 2, 3);
  set3(g, "b.sp", -1, 0.5, 2);
  set3(g, "b.ra", deg(5), deg(6), deg(7));
  setm(g, "b.opm", chain(2, RY(deg(25)), tr(0.5, 0.25, 0.125)));
  set3(g, "j.t", 1, 1, 0);
  set3(g, "j.jo", deg(15), 0, deg(-40));
  set3(g, "j.r", 0, deg(33), 0);
  set3(g, "j.s", 1.25, 1.25, 0.75);
  check_outputs(g, "a", NULL);
  check_outputs(g, "b", "a");
  check_outputs(g, "j", "b");
  /* every instance index gives the one path (no instancing) */
  M4 w0 = getm(g, "b.wm[0]"), w3 = getm(g, "b.wm[3]");
  assert_mat_near(&w3, &w0, "wm[3] = wm[0]");
  M4 p0 = getm(g, "b.pm[0]"), p2 = getm(g, "b.pm[2]");
  assert_mat_near(&p2, &p0, "pm[2] = pm[0]");
  /* the world matrix of a whole chain is the product of the locals (with b's opm) */
  M4 ma = getm(g, "a.m"), mb = getm(g, "b.m"), mj = getm(g, "j.m"), opm = getm(g, "b.opm");
  M4 wj = world(g, "j"), want = chain(4, mj, mb, opm, ma);
  assert_mat_near(&wj, &want, "chain");
  /* the matrix outputs are read-only */
  sinew_plug_t pwm = P(g, "a.wm[0]"), pm = P(g, "a.m");
  M4 id = ident();
  assert_int_equal(sinew_set_matrix(g, &pwm, &id), SINEW_EREADONLY);
  assert_int_equal(sinew_set_matrix(g, &pm, &id), SINEW_EREADONLY);
  sinew_graph_destroy(g);
}

/* A singular local matrix: inverses are identity with a warning. */
static void test_singular_inverse(void **state) {
  (void)state;
  log_count lc = {0, 0};
  sinew_graph_desc_t desc = {.logger = count_log, .logger_data = &lc};
  sinew_graph_t *g = NULL;
  assert_int_equal(sinew_scene_create(&desc, &g), 0);
  mk(g, "transform", "x");
  set3(g, "x.s", 0, 1, 1);
  set3(g, "x.t", 1, 2, 3);
  M4 im = getm(g, "x.im"), id = ident();
  assert_mat_near(&im, &id, "singular im");
  assert_true(lc.warnings >= 1);
  int before = lc.warnings;
  M4 wim = getm(g, "x.wim[0]");
  assert_mat_near(&wim, &id, "singular wim");
  assert_true(lc.warnings > before);
  /* a child under a singular parent: pim is identity too */
  mk(g, "transform", "c");
  parent(g, "c", "x", 0);
  M4 pim = getm(g, "c.pim[0]");
  assert_mat_near(&pim, &id, "singular pim");
  sinew_graph_destroy(g);
}

/* ---- evaluation counts -------------------------------------------------------------------------- */

static uint64_t count_world_reads(sinew_graph_t *g) {
  static const char *const names[] = {"root", "a", "b", "c", "d"};
  sinew_graph_stats_t st;
  sinew_graph_reset_stats(g);
  for (size_t i = 0; i < 5; i++) {
    char buf[32];
    snprintf(buf, sizeof buf, "%s.wm[0]", names[i]);
    getm(g, buf);
  }
  sinew_graph_stats(g, &st);
  return st.computes;
}

static void test_eval_counts(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  mk(g, "transform", "root");
  mk(g, "transform", "a");
  mk(g, "joint", "b");
  mk(g, "joint", "c");
  mk(g, "transform", "d");
  parent(g, "a", "root", 0);
  parent(g, "b", "a", 0);
  parent(g, "c", "b", 0); /* also connects b.s -> c.is */
  parent(g, "d", "root", 0);
  set3(g, "a.t", 1, 0, 0);
  set3(g, "b.t", 1, 0, 0);
  set3(g, "c.t", 1, 0, 0);
  set3(g, "d.t", 0, 1, 0);
  assert_true(count_world_reads(g) == 5); /* first read: each world matrix once */
  assert_true(count_world_reads(g) == 0); /* clean */
  /* with every output read (so clean), moving the root dirties exactly its own local outputs
   * and the parent and world matrices of its subtree: root m im xm wm wim, then for each of a, b,
   * c, d its hidden parent input, pm, pim, wm, wim; no local matrix below the root */
  static const char *const all[] = {"m", "im", "xm", "wm[0]", "wim[0]", "pm[0]", "pim[0]"};
  static const char *const names[] = {"root", "a", "b", "c", "d"};
  char buf[32];
  for (size_t i = 0; i < 5; i++)
    for (size_t k = 0; k < 7; k++) {
      snprintf(buf, sizeof buf, "%s.%s", names[i], all[k]);
      getm(g, buf);
    }
  sinew_graph_stats_t st;
  sinew_graph_reset_stats(g);
  setd(g, "root.tx", 2);
  sinew_graph_stats(g, &st);
  assert_true(st.dirtied == 5 + 4 * 5);
  for (size_t i = 1; i < 5; i++)
    for (size_t k = 0; k < 3; k++) {
      snprintf(buf, sizeof buf, "%s.%s", names[i], all[k]);
      sinew_plug_t p = P(g, buf);
      if (sinew_plug_is_dirty(g, &p)) fail_msg("%s dirtied by moving the root", buf);
    }
  sinew_plug_t rpm = P(g, "root.pm[0]");
  assert_false(sinew_plug_is_dirty(g, &rpm));
  /* moving the root recomputes exactly the five world matrices of its subtree */
  assert_true(count_world_reads(g) == 5);
  M4 wc = world(g, "c");
  assert_vec_near(xfp((V3){0, 0, 0}, wc), ((V3){5, 0, 0}), "c after moving root");
  /* moving b recomputes b and c only */
  setd(g, "b.tx", 3);
  assert_true(count_world_reads(g) == 2);
  wc = world(g, "c");
  assert_vec_near(xfp((V3){0, 0, 0}, wc), ((V3){7, 0, 0}), "c after moving b");
  /* moving the leaf of the other branch recomputes d only */
  setd(g, "d.ty", 2);
  assert_true(count_world_reads(g) == 1);
  /* b's scale reaches c through is and through b's world matrix: still only b and c. With
   * everything clean: b m im xm wm wim; c.is; c's hidden parent input; c m im xm wm wim pm pim */
  for (size_t i = 0; i < 5; i++)
    for (size_t k = 0; k < 7; k++) {
      snprintf(buf, sizeof buf, "%s.%s", names[i], all[k]);
      getm(g, buf);
    }
  sinew_graph_reset_stats(g);
  setd(g, "b.sx", 2);
  sinew_graph_stats(g, &st);
  assert_true(st.dirtied == 5 + 1 + 1 + 7);
  sinew_plug_t am = P(g, "a.wm[0]"), dm = P(g, "d.wm[0]");
  assert_false(sinew_plug_is_dirty(g, &am));
  assert_false(sinew_plug_is_dirty(g, &dm));
  assert_true(count_world_reads(g) == 2);
  /* changing the time recomputes nothing in a static rig and dirties nothing downstream */
  sinew_graph_reset_stats(g);
  assert_int_equal(sinew_time_set_frame(g, 10), 0);
  sinew_graph_stats(g, &st);
  assert_true(st.computes == 0);
  assert_true(st.dirtied == 0);
  assert_true(count_world_reads(g) == 0);
  assert_int_equal(sinew_time_set_frame(g, 11), 0);
  assert_true(count_world_reads(g) == 0);
  /* reading a local matrix computes only that plug */
  setd(g, "a.ry", 0.5);
  sinew_graph_reset_stats(g);
  getm(g, "a.m");
  sinew_graph_stats(g, &st);
  assert_true(st.computes == 1);
  /* the offsetParentMatrix leaves the local matrices clean: only world matrices recompute */
  getm(g, "a.im");
  getm(g, "a.xm");
  count_world_reads(g);
  setm(g, "a.opm", tr(0, 0, 1));
  sinew_graph_reset_stats(g);
  getm(g, "a.m");
  getm(g, "a.im");
  getm(g, "a.xm");
  sinew_graph_stats(g, &st);
  assert_true(st.computes == 0);
  assert_true(count_world_reads(g) == 3); /* a, b, c */
  sinew_graph_destroy(g);
}

/* ---- sinew_dag_parent --------------------------------------------------------------------------- */

static void test_parent_joint_inverse_scale(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  mk(g, "joint", "p");
  mk(g, "joint", "q");
  mk(g, "joint", "c");
  mk(g, "transform", "t");
  set3(g, "p.s", 2, 2, 2);
  set3(g, "q.s", 3, 3, 3);
  parent(g, "c", "p", 0);
  assert_true(sources_from(g, "c.is", "p.s"));
  assert_int_equal(sinew_node_parent(g, node(g, "c")).index, node(g, "p").index);
  /* re-parenting to another joint moves the link */
  parent(g, "c", "q", 0);
  assert_true(sources_from(g, "c.is", "q.s"));
  sinew_plug_t ps = P(g, "p.s");
  assert_int_equal(sinew_plug_destinations(g, &ps, NULL, 0), 0);
  assert_vec_near(get3(g, "c.is"), ((V3){3, 3, 3}), "is from q");
  /* to the world: the link is broken and is goes back to 1 */
  parent(g, "c", NULL, 0);
  sinew_plug_t cis = P(g, "c.is");
  assert_false(sinew_plug_source(g, &cis, NULL));
  assert_vec_near(get3(g, "c.is"), ((V3){1, 1, 1}), "is reset under the world");
  assert_int_equal(sinew_node_parent(g, node(g, "c")).gen, 0);
  /* under a plain transform: no link, is = 1 */
  parent(g, "c", "p", 0);
  parent(g, "c", "t", 0);
  assert_false(sinew_plug_source(g, &cis, NULL));
  assert_vec_near(get3(g, "c.is"), ((V3){1, 1, 1}), "is reset under a transform");
  /* a transform under a joint gets no link (it has no is) */
  parent(g, "t", "p", 0);
  assert_int_equal(sinew_plug_destinations(g, &ps, NULL, 0), 0);
  /* parenting to the same joint again keeps exactly one link */
  parent(g, "c", "p", 0);
  parent(g, "c", "p", 0);
  assert_true(sources_from(g, "c.is", "p.s"));
  assert_int_equal(sinew_plug_destinations(g, &ps, NULL, 0), 1);
  /* a locked inverseScale cannot be relinked: refused before anything changes */
  sinew_plug_t cisx = P(g, "c.isx");
  assert_int_equal(sinew_plug_set_locked(g, &cisx, true), 0);
  assert_int_equal(sinew_dag_parent(g, node(g, "c"), node(g, "q"), 0), SINEW_ELOCKED);
  assert_non_null(strstr(sinew_graph_errmsg(g), "inverseScaleX"));
  assert_int_equal(sinew_node_parent(g, node(g, "c")).index, node(g, "p").index);
  assert_true(sources_from(g, "c.is", "p.s"));
  assert_int_equal(sinew_plug_set_locked(g, &cisx, false), 0);
  /* deleting the parent joint deletes its subtree, the child with it */
  assert_int_equal(sinew_node_delete(g, node(g, "p")), 0);
  sinew_node_t tmp;
  assert_int_equal(sinew_node_find(g, "c", &tmp), SINEW_ENOTFOUND);
  sinew_graph_destroy(g);
}

/* A transform with every kind of input set. */
static void busy_transform(sinew_graph_t *g, const char *n, double k) {
  char buf[64];
#define S3(attr, x, y, z) (snprintf(buf, sizeof buf, "%s.%s", n, attr), set3(g, buf, x, y, z))
  S3("t", 0.5 * k, -1, 2);
  S3("r", deg(25 * k), deg(-35), deg(50));
  S3("s", 1.5, 0.7 * k, 1.2);
  S3("sh", 0.1 * k, -0.2, 0.3);
  S3("rp", 0.3, 0.2 * k, 0.1);
  S3("sp", -0.2, 0.4, 0.6 * k);
  S3("rpt", 0.1 * k, 0, 0.05);
  S3("spt", 0, 0.2, -0.1 * k);
  S3("ra", deg(5), deg(10 * k), deg(15));
#undef S3
}

static void test_parent_keep_world_transforms(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  mk(g, "transform", "p1");
  mk(g, "transform", "p2");
  mk(g, "transform", "x");
  mk(g, "transform", "y");
  set3(g, "p1.t", 1, 2, 3);
  set3(g, "p1.r", deg(10), deg(20), deg(30));
  setd(g, "p1.ro", 1);
  set3(g, "p1.s", 1, 2, 0.5);
  set3(g, "p2.t", -4, 0, 1);
  set3(g, "p2.r", deg(-40), deg(15), deg(70));
  set3(g, "p2.s", 3, 1, 2);
  set3(g, "p2.sh", 0.2, 0, 0.1);
  set3(g, "p2.rp", 1, 1, 0);
  busy_transform(g, "x", 1);
  setd(g, "x.ro", 2);
  set3(g, "y.t", 1, 1, 1);
  parent(g, "y", "x", 0);
  parent(g, "x", "p1", 0);
  M4 w0 = world(g, "x"), y0 = world(g, "y");
  V3 rp = get3(g, "x.rp"), sp = get3(g, "x.sp"), ra = get3(g, "x.ra");
  /* under a rotated, non-uniformly scaled, sheared parent with a pivot */
  parent(g, "x", "p2", SINEW_PARENT_KEEP_WORLD);
  M4 w1 = world(g, "x"), y1 = world(g, "y");
  assert_int_equal(sinew_node_parent(g, node(g, "x")).index, node(g, "p2").index);
  assert_mat_near(&w1, &w0, "kept under p2");
  assert_mat_near(&y1, &y0, "child kept under p2");
  /* pivots, rotateAxis and rotateOrder are not touched */
  assert_vec_near(get3(g, "x.rp"), rp, "rp kept");
  assert_vec_near(get3(g, "x.sp"), sp, "sp kept");
  assert_vec_near(get3(g, "x.ra"), ra, "ra kept");
  assert_near(getd(g, "x.ro"), 2);
  /* to the world */
  parent(g, "x", NULL, SINEW_PARENT_KEEP_WORLD);
  w1 = world(g, "x");
  assert_mat_near(&w1, &w0, "kept under the world");
  assert_int_equal(sinew_node_parent(g, node(g, "x")).gen, 0);
  /* back under p1 with an offsetParentMatrix on x */
  setm(g, "x.opm", chain(2, RZ(deg(20)), tr(0, 3, 0)));
  w0 = world(g, "x");
  parent(g, "x", "p1", SINEW_PARENT_KEEP_WORLD);
  w1 = world(g, "x");
  assert_mat_near(&w1, &w0, "kept under p1 with opm");
  /* every rotate order */
  for (int order = 0; order < 6; order++) {
    setd(g, "x.ro", order);
    w0 = world(g, "x");
    parent(g, "x", order % 2 ? "p1" : "p2", SINEW_PARENT_KEEP_WORLD);
    w1 = world(g, "x");
    assert_mat_near(&w1, &w0, "kept, each rotate order");
    assert_near(getd(g, "x.ro"), order);
  }
  /* a node with inheritsTransform off keeps its world trivially (the parent does not apply) */
  setd(g, "x.it", 0);
  V3 t0 = get3(g, "x.t");
  w0 = world(g, "x");
  parent(g, "x", "p1", SINEW_PARENT_KEEP_WORLD);
  parent(g, "x", "p2", SINEW_PARENT_KEEP_WORLD);
  w1 = world(g, "x");
  assert_mat_near(&w1, &w0, "inheritsTransform off");
  assert_vec_near(get3(g, "x.t"), t0, "inheritsTransform off: local kept");
  sinew_graph_destroy(g);
}

static void test_parent_keep_world_joints(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  mk(g, "joint", "pj");
  mk(g, "joint", "j");
  mk(g, "transform", "grp");
  set3(g, "pj.t", 5, 0, 0);
  set3(g, "pj.r", deg(30), deg(-20), deg(45));
  set3(g, "pj.jo", 0, deg(10), 0);
  set3(g, "pj.s", 2, 3, 4);
  set3(g, "j.t", 1, 2, 3);
  set3(g, "j.r", deg(10), deg(20), deg(30));
  setd(g, "j.ro", 1);
  set3(g, "j.jo", 0, 0, deg(90));
  set3(g, "j.ra", deg(5), 0, 0);
  set3(g, "j.s", 1, 1.5, 1);
  M4 w0 = world(g, "j");
  /* under a rotated, non-uniformly scaled joint: is cancels the scale, the rotation goes into r */
  parent(g, "j", "pj", SINEW_PARENT_KEEP_WORLD);
  assert_true(sources_from(g, "j.is", "pj.s"));
  M4 w1 = world(g, "j");
  assert_mat_near(&w1, &w0, "joint kept under pj");
  assert_vec_near(get3(g, "j.jo"), ((V3){0, 0, deg(90)}), "jo kept");
  assert_vec_near(get3(g, "j.ra"), ((V3){deg(5), 0, 0}), "ra kept");
  assert_vec_near(get3(g, "j.s"), ((V3){1, 1.5, 1}), "scale kept");
  /* the solved rotate, checked independently: R' = R * JO * inverse(Rpj * JOpj) * JO^-1 (the
   * scales cancel through is); compare the matrices they build */
  V3 r = get3(g, "j.r");
  M4 got = euler(r.x, r.y, r.z, 1);
  M4 rpj = mm(euler(deg(30), deg(-20), deg(45), 0), RY(deg(10)));
  M4 rpj_inv; /* a rotation's inverse is its transpose */
  for (int i = 0; i < 4; i++)
    for (int k = 0; k < 4; k++) rpj_inv.m[i][k] = rpj.m[k][i];
  M4 want = chain(4, euler(deg(10), deg(20), deg(30), 1), RZ(deg(90)), rpj_inv, RZ(deg(-90)));
  assert_mat_near(&got, &want, "solved rotate");
  /* a child joint (relative, its is fed by j.s) under j */
  mk(g, "joint", "k");
  set3(g, "k.t", 0, 3, 0);
  set3(g, "k.r", deg(20), 0, 0);
  parent(g, "k", "j", 0);
  assert_true(sources_from(g, "k.is", "j.s"));
  M4 k0 = world(g, "k");
  /* back to the world: is back to 1, world kept, and with it the child's world */
  parent(g, "j", NULL, SINEW_PARENT_KEEP_WORLD);
  w1 = world(g, "j");
  assert_mat_near(&w1, &w0, "joint kept under the world");
  assert_vec_near(get3(g, "j.is"), ((V3){1, 1, 1}), "is reset");
  assert_vec_near(get3(g, "j.jo"), ((V3){0, 0, deg(90)}), "jo kept");
  assert_vec_near(get3(g, "j.s"), ((V3){1, 1.5, 1}), "scale kept");
  M4 k1 = world(g, "k");
  assert_mat_near(&k1, &k0, "the child joint moves with j");
  /* under a rotated transform with a uniform scale: the scale cannot be compensated by is,
   * so the uniform factor is folded into the joint's scale */
  set3(g, "grp.r", deg(-15), deg(25), deg(5));
  set3(g, "grp.s", 2, 2, 2);
  set3(g, "grp.t", 0, -1, 0);
  parent(g, "j", "grp", SINEW_PARENT_KEEP_WORLD);
  w1 = world(g, "j");
  assert_mat_near(&w1, &w0, "joint kept under a scaled transform");
  assert_vec_near(get3(g, "j.s"), ((V3){0.5, 0.75, 0.5}), "uniform parent scale folded into s");
  assert_vec_near(get3(g, "j.jo"), ((V3){0, 0, deg(90)}), "jo kept");
  /* and back under the joint */
  parent(g, "j", "pj", SINEW_PARENT_KEEP_WORLD);
  w1 = world(g, "j");
  assert_mat_near(&w1, &w0, "j kept under pj again");
  assert_vec_near(get3(g, "j.s"), ((V3){1, 1.5, 1}), "scale back to 1, 1.5, 1");
  sinew_graph_destroy(g);
}

static void test_parent_relative(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  mk(g, "transform", "p");
  mk(g, "transform", "x");
  set3(g, "p.t", 1, 2, 3);
  set3(g, "p.r", 0, 0, deg(90));
  set3(g, "p.s", 2, 2, 2);
  busy_transform(g, "x", 2);
  M4 m0 = getm(g, "x.m");
  V3 t0 = get3(g, "x.t"), r0 = get3(g, "x.r"), s0 = get3(g, "x.s"), sh0 = get3(g, "x.sh");
  parent(g, "x", "p", 0);
  assert_vec_near(get3(g, "x.t"), t0, "t kept");
  assert_vec_near(get3(g, "x.r"), r0, "r kept");
  assert_vec_near(get3(g, "x.s"), s0, "s kept");
  assert_vec_near(get3(g, "x.sh"), sh0, "sh kept");
  M4 w = world(g, "x"), want = chain(4, m0, sc(2, 2, 2), RZ(deg(90)), tr(1, 2, 3));
  assert_mat_near(&w, &want, "moves with the parent");
  /* a joint under a scaled joint, relative: is gets connected and applies */
  mk(g, "joint", "pj");
  mk(g, "joint", "j");
  set3(g, "pj.s", 2, 4, 8);
  set3(g, "j.t", 1, 1, 1);
  set3(g, "j.r", 0, deg(90), 0);
  parent(g, "j", "pj", 0);
  assert_vec_near(get3(g, "j.t"), ((V3){1, 1, 1}), "joint t kept");
  assert_vec_near(get3(g, "j.r"), ((V3){0, deg(90), 0}), "joint r kept");
  w = world(g, "j");
  want = chain(4, RY(deg(90)), sc(0.5, 0.25, 0.125), tr(1, 1, 1), sc(2, 4, 8));
  assert_mat_near(&w, &want, "joint relative");
  sinew_graph_destroy(g);
}

static void test_set_local_matrix(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  mk(g, "transform", "x");
  busy_transform(g, "x", 1);
  setd(g, "x.ro", 3); /* xzy */
  /* a target built from new values with x's pivots and rotateAxis (spec 2.2 written out) */
  V3 t = {3, -2, 1}, r = {deg(-30), deg(40), deg(80)}, s = {2, 0.5, 1.25}, sh = {0.4, -0.1, 0.25};
  M4 L = chain(11, tr(0.2, -0.4, -0.6), sc(s.x, s.y, s.z), shear(sh.x, sh.y, sh.z), tr(-0.2, 0.4, 0.6),
               tr(0, 0.2, -0.1), tr(-0.3, -0.2, -0.1), chain(3, RX(deg(5)), RY(deg(10)), RZ(deg(15))),
               euler(r.x, r.y, r.z, 3), tr(0.3, 0.2, 0.1), tr(0.1, 0, 0.05), tr(t.x, t.y, t.z));
  assert_int_equal(sinew_dag_set_local_matrix(g, node(g, "x"), &L), 0);
  M4 m = getm(g, "x.m");
  assert_mat_near(&m, &L, "transform round trip");
  assert_vec_near(get3(g, "x.t"), t, "t solved");
  assert_vec_near(get3(g, "x.r"), r, "r solved");
  assert_vec_near(get3(g, "x.s"), s, "s solved");
  assert_vec_near(get3(g, "x.sh"), sh, "sh solved");
  assert_vec_near(get3(g, "x.rp"), ((V3){0.3, 0.2, 0.1}), "rp kept");
  assert_vec_near(get3(g, "x.ra"), ((V3){deg(5), deg(10), deg(15)}), "ra kept");
  /* a mirrored matrix: a negative determinant becomes a negative scale */
  M4 mir = chain(2, sc(-1, 1, 1), tr(1, 0, 0));
  set3(g, "x.rp", 0, 0, 0);
  set3(g, "x.sp", 0, 0, 0);
  set3(g, "x.rpt", 0, 0, 0);
  set3(g, "x.spt", 0, 0, 0);
  set3(g, "x.ra", 0, 0, 0);
  assert_int_equal(sinew_dag_set_local_matrix(g, node(g, "x"), &mir), 0);
  m = getm(g, "x.m");
  assert_mat_near(&m, &mir, "mirrored round trip");
  /* a joint with jointOrient, rotateAxis and a connected inverseScale */
  mk(g, "joint", "pj");
  mk(g, "joint", "j");
  parent(g, "j", "pj", 0);
  set3(g, "pj.s", 2, 3, 4);
  set3(g, "j.jo", deg(20), deg(-30), deg(40));
  set3(g, "j.ra", deg(-5), deg(15), 0);
  set3(g, "j.s", 1.5, 1, 0.5);
  setd(g, "j.ro", 4);
  V3 jr = {deg(12), deg(-34), deg(56)};
  M4 JL = chain(6, sc(1.5, 1, 0.5), chain(3, RX(deg(-5)), RY(deg(15)), RZ(0)), euler(jr.x, jr.y, jr.z, 4),
                chain(3, RX(deg(20)), RY(deg(-30)), RZ(deg(40))), sc(0.5, 1.0 / 3, 0.25), tr(7, 8, 9));
  assert_int_equal(sinew_dag_set_local_matrix(g, node(g, "j"), &JL), 0);
  m = getm(g, "j.m");
  assert_mat_near(&m, &JL, "joint round trip");
  assert_vec_near(get3(g, "j.r"), jr, "joint r solved");
  assert_vec_near(get3(g, "j.t"), ((V3){7, 8, 9}), "joint t solved");
  assert_vec_near(get3(g, "j.s"), ((V3){1.5, 1, 0.5}), "joint s kept");
  assert_vec_near(get3(g, "j.jo"), ((V3){deg(20), deg(-30), deg(40)}), "joint jo kept");
  /* errors: not a transform, not finite, singular; nothing is written */
  sinew_node_t uc = mk(g, "unitConversion", "uc");
  assert_int_equal(sinew_dag_set_local_matrix(g, uc, &L), SINEW_ETYPE);
  assert_int_equal(sinew_dag_set_local_matrix(g, node(g, "x"), NULL), SINEW_EINVAL);
  M4 bad = L;
  bad.m[1][1] = NAN;
  V3 tb = get3(g, "x.t");
  assert_int_equal(sinew_dag_set_local_matrix(g, node(g, "x"), &bad), SINEW_ERANGE);
  M4 flat = chain(2, sc(1, 0, 1), tr(9, 9, 9));
  assert_int_equal(sinew_dag_set_local_matrix(g, node(g, "x"), &flat), SINEW_ERANGE);
  assert_non_null(strstr(sinew_graph_errmsg(g), "decomposed"));
  assert_vec_near(get3(g, "x.t"), tb, "nothing written on error");
  sinew_graph_destroy(g);
}

static void test_set_local_matrix_refused(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  mk(g, "transform", "x");
  mk(g, "transform", "src");
  mk(g, "transform", "p");
  set3(g, "p.t", 10, 0, 0);
  set3(g, "x.t", 1, 2, 3);
  set3(g, "x.r", 0.1, 0.2, 0.3);
  M4 L = chain(2, RZ(deg(30)), tr(4, 5, 6));
  /* locked translate: refused, the message names the plug, nothing written */
  sinew_plug_t pt = P(g, "x.t");
  assert_int_equal(sinew_plug_set_locked(g, &pt, true), 0);
  assert_int_equal(sinew_dag_set_local_matrix(g, node(g, "x"), &L), SINEW_ELOCKED);
  assert_non_null(strstr(sinew_graph_errmsg(g), "x.translate"));
  assert_vec_near(get3(g, "x.t"), ((V3){1, 2, 3}), "t unchanged");
  assert_vec_near(get3(g, "x.r"), ((V3){0.1, 0.2, 0.3}), "r unchanged");
  /* KEEP_WORLD parenting needs to write translate: refused and the hierarchy unchanged */
  M4 w0 = world(g, "x");
  assert_int_equal(sinew_dag_parent(g, node(g, "x"), node(g, "p"), SINEW_PARENT_KEEP_WORLD), SINEW_ELOCKED);
  assert_non_null(strstr(sinew_graph_errmsg(g), "x.translate"));
  assert_int_equal(sinew_node_parent(g, node(g, "x")).gen, 0);
  M4 w1 = world(g, "x");
  assert_mat_near(&w1, &w0, "unchanged after a refused parent");
  /* relative parenting writes nothing, so it is allowed */
  parent(g, "x", "p", 0);
  parent(g, "x", NULL, 0);
  assert_int_equal(sinew_plug_set_locked(g, &pt, false), 0);
  /* one locked child: the message names the child */
  sinew_plug_t pry = P(g, "x.ry");
  assert_int_equal(sinew_plug_set_locked(g, &pry, true), 0);
  assert_int_equal(sinew_dag_set_local_matrix(g, node(g, "x"), &L), SINEW_ELOCKED);
  assert_non_null(strstr(sinew_graph_errmsg(g), "rotateY")); /* "x.rotate.rotateY" */
  assert_vec_near(get3(g, "x.t"), ((V3){1, 2, 3}), "t unchanged");
  assert_int_equal(sinew_plug_set_locked(g, &pry, false), 0);
  /* a connected child: refused as connected */
  conn(g, "src.sz", "x.sz");
  assert_int_equal(sinew_dag_set_local_matrix(g, node(g, "x"), &L), SINEW_ECONNECTED);
  assert_non_null(strstr(sinew_graph_errmsg(g), "scaleZ"));
  assert_vec_near(get3(g, "x.t"), ((V3){1, 2, 3}), "t unchanged");
  assert_int_equal(sinew_dag_parent(g, node(g, "x"), node(g, "p"), SINEW_PARENT_KEEP_WORLD), SINEW_ECONNECTED);
  assert_int_equal(sinew_node_parent(g, node(g, "x")).gen, 0);
  sinew_graph_destroy(g);
}

static void test_parent_errors(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  mk(g, "transform", "a");
  mk(g, "transform", "b");
  mk(g, "joint", "c");
  mk(g, "joint", "d");
  sinew_node_t uc = mk(g, "unitConversion", "uc"), t1 = node(g, "time1");
  parent(g, "b", "a", 0);
  parent(g, "c", "b", 0);
  parent(g, "d", "c", 0);
  set3(g, "a.t", 1, 2, 3);
  set3(g, "c.s", 2, 2, 2);
  set3(g, "d.t", 1, 0, 0);
  /* not DAG nodes, either way round */
  assert_int_equal(sinew_dag_parent(g, uc, node(g, "a"), 0), SINEW_ETYPE);
  assert_int_equal(sinew_dag_parent(g, node(g, "a"), uc, 0), SINEW_ETYPE);
  assert_non_null(strstr(sinew_graph_errmsg(g), "uc"));
  assert_int_equal(sinew_dag_parent(g, t1, (sinew_node_t){0, 0}, SINEW_PARENT_KEEP_WORLD), SINEW_ETYPE);
  M4 m;
  assert_int_equal(sinew_dag_world_matrix(g, uc, &m), SINEW_ETYPE);
  /* under its own descendant, or itself: refused, the graph unchanged */
  M4 wa = world(g, "a"), wd = world(g, "d");
  sinew_graph_stats_t st0, st1;
  sinew_graph_stats(g, &st0);
  assert_int_equal(sinew_dag_parent(g, node(g, "a"), node(g, "d"), SINEW_PARENT_KEEP_WORLD), SINEW_ECYCLE);
  assert_int_equal(sinew_dag_parent(g, node(g, "a"), node(g, "c"), 0), SINEW_ECYCLE);
  assert_int_equal(sinew_dag_parent(g, node(g, "a"), node(g, "a"), 0), SINEW_ECYCLE);
  /* a joint under its own joint descendant: the is link must survive */
  assert_int_equal(sinew_dag_parent(g, node(g, "c"), node(g, "d"), SINEW_PARENT_KEEP_WORLD), SINEW_ECYCLE);
  assert_int_equal(sinew_dag_parent(g, node(g, "c"), node(g, "d"), 0), SINEW_ECYCLE);
  sinew_graph_stats(g, &st1);
  assert_int_equal(st1.connections, st0.connections);
  assert_int_equal(sinew_node_parent(g, node(g, "a")).gen, 0);
  assert_int_equal(sinew_node_parent(g, node(g, "c")).index, node(g, "b").index);
  assert_true(sources_from(g, "d.is", "c.s"));
  sinew_plug_t cis = P(g, "c.is");
  assert_false(sinew_plug_source(g, &cis, NULL));
  assert_vec_near(get3(g, "a.t"), ((V3){1, 2, 3}), "a.t unchanged");
  M4 wa1 = world(g, "a"), wd1 = world(g, "d");
  assert_mat_near(&wa1, &wa, "a unchanged");
  assert_mat_near(&wd1, &wd, "d unchanged");
  /* a loop through connections and the parent link: a's world drives e's offsetParentMatrix,
   * so e cannot become a's parent */
  mk(g, "transform", "e");
  conn(g, "a.wm[0]", "e.opm");
  assert_int_equal(sinew_dag_parent(g, node(g, "a"), node(g, "e"), 0), SINEW_ECYCLE);
  assert_non_null(strstr(sinew_graph_errmsg(g), "cycle"));
  assert_int_equal(sinew_node_parent(g, node(g, "a")).gen, 0);
  /* and through the joint link only: d's local matrix drives c.sx (through a small node that
   * picks the x translation), so d cannot take c's scale as its inverseScale, although the
   * hierarchy alone would allow the move: refused before anything moved */
  static const sinew_attr_desc_t pick_attrs[] = {
      {.name = "inMatrix", .type = SINEW_ATTR_MATRIX},
      {.name = "x", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT}};
  static const sinew_affects_t pick_aff[] = {{"inMatrix", "x"}};
  sinew_node_type_desc_t pick = {.name = "pick", .attrs = pick_attrs, .attr_count = 2, .affects = pick_aff,
                                 .affects_count = 1};
  assert_int_equal(sinew_register_node_type(g, &pick, NULL), 0);
  mk(g, "joint", "q");
  parent(g, "d", "q", 0);
  mk(g, "pick", "loop2");
  conn(g, "d.m", "loop2.inMatrix");
  sinew_plug_t l2o = P(g, "loop2.x"), csx = P(g, "c.sx");
  assert_int_equal(sinew_connect(g, &l2o, &csx, 0, NULL), 0);
  sinew_graph_stats(g, &st0);
  assert_int_equal(sinew_dag_parent(g, node(g, "d"), node(g, "c"), 0), SINEW_ECYCLE);
  sinew_graph_stats(g, &st1);
  assert_int_equal(st1.connections, st0.connections);
  assert_int_equal(sinew_node_parent(g, node(g, "d")).index, node(g, "q").index);
  assert_true(sources_from(g, "d.is", "q.s"));
  /* a stale handle */
  sinew_node_t gone = mk(g, "transform", "gone");
  assert_int_equal(sinew_node_delete(g, gone), 0);
  assert_true(sinew_dag_parent(g, gone, (sinew_node_t){0, 0}, 0) < 0);
  assert_true(sinew_dag_parent(g, node(g, "a"), gone, 0) < 0);
  assert_int_equal(sinew_node_parent(g, node(g, "a")).gen, 0);
  /* a singular new parent cannot keep the world: refused, nothing changed */
  mk(g, "transform", "flat");
  set3(g, "flat.s", 1, 0, 1);
  assert_int_equal(sinew_dag_parent(g, node(g, "a"), node(g, "flat"), SINEW_PARENT_KEEP_WORLD), SINEW_ERANGE);
  assert_int_equal(sinew_node_parent(g, node(g, "a")).gen, 0);
  wa1 = world(g, "a");
  assert_mat_near(&wa1, &wa, "a unchanged after a singular parent");
  sinew_graph_destroy(g);
}

/* ---- sinew_dag_parent under allocation failure ---------------------------------------------------- */

typedef struct dag_state {
  sinew_node_t parent;
  bool has_is_src;
  sinew_plug_t is_src;
  V3 t, r, s, sh, is;
  M4 world;
  size_t connections, nodes;
} dag_state;

static void dag_snapshot(sinew_graph_t *g, const char *name, dag_state *st) {
  sinew_node_t n = node(g, name);
  memset(st, 0, sizeof *st);
  st->parent = sinew_node_parent(g, n);
  bool joint = sinew_node_type_is_a(sinew_node_type(g, n), "joint");
  char buf[64];
  if (joint) {
    snprintf(buf, sizeof buf, "%s.is", name);
    sinew_plug_t is = P(g, buf);
    st->has_is_src = sinew_plug_source(g, &is, &st->is_src);
    st->is = get3(g, buf);
  }
#define G3(field, attr) (snprintf(buf, sizeof buf, "%s.%s", name, attr), st->field = get3(g, buf))
  G3(t, "t");
  G3(r, "r");
  G3(s, "s");
  G3(sh, "sh");
#undef G3
  st->world = world(g, name);
  sinew_graph_stats_t gs;
  sinew_graph_stats(g, &gs);
  st->connections = gs.connections;
  st->nodes = gs.nodes;
}

static void dag_same(const dag_state *a, const dag_state *b, long k) {
  if (a->parent.index != b->parent.index || a->parent.gen != b->parent.gen)
    fail_msg("allocation %ld: the parent changed", k);
  if (a->has_is_src != b->has_is_src || (a->has_is_src && !sinew_plug_equal(&a->is_src, &b->is_src)))
    fail_msg("allocation %ld: the inverseScale link changed", k);
  if (a->connections != b->connections || a->nodes != b->nodes) fail_msg("allocation %ld: counts changed", k);
  assert_vec_near(a->t, b->t, "t");
  assert_vec_near(a->r, b->r, "r");
  assert_vec_near(a->s, b->s, "s");
  assert_vec_near(a->sh, b->sh, "sh");
  assert_vec_near(a->is, b->is, "is");
  assert_mat_near(&a->world, &b->world, "world");
}

static void dag_rig(sinew_graph_t *g) {
  mk(g, "joint", "p1");
  mk(g, "joint", "p2");
  mk(g, "transform", "grp");
  mk(g, "joint", "j");
  mk(g, "transform", "x");
  mk(g, "joint", "k");
  set3(g, "p1.s", 2, 2, 2);
  set3(g, "p2.r", deg(20), deg(-30), deg(40));
  set3(g, "p2.s", 1, 3, 1);
  set3(g, "grp.t", 1, 2, 3);
  set3(g, "grp.r", 0, deg(45), 0);
  set3(g, "j.t", 1, 1, 1);
  set3(g, "j.jo", 0, 0, deg(30));
  set3(g, "x.t", 3, 2, 1);
  set3(g, "x.sh", 0.1, 0.2, 0.3);
  parent(g, "j", "p1", 0);
  parent(g, "k", "j", 0);
  parent(g, "x", "grp", 0);
}

static void test_dag_parent_alloc_failure(void **state) {
  (void)state;
  static const struct {
    const char *node, *parent;
    uint32_t flags;
  } cases[] = {{"j", "p2", SINEW_PARENT_KEEP_WORLD}, /* the is link moves, the world is kept */
               {"j", NULL, SINEW_PARENT_KEEP_WORLD}, /* the is link breaks, is goes back to 1 */
               {"j", "grp", 0},                      /* under a transform, relative */
               {"j", "p2", 0},
               {"x", "p2", SINEW_PARENT_KEEP_WORLD}, /* a transform under a joint */
               {"x", NULL, SINEW_PARENT_KEEP_WORLD}};
  test_alloc_install();
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    for (long k = 1;; k++) {
      test_alloc_reset();
      sinew_graph_t *g = scene();
      dag_rig(g);
      dag_state before, after;
      dag_snapshot(g, cases[c].node, &before);
      M4 kw = world(g, "k");
      sinew_node_t n = node(g, cases[c].node), p = {0, 0};
      if (cases[c].parent) p = node(g, cases[c].parent);
      long start = test_alloc_count();
      test_alloc_fail_at(start + k);
      int rc = sinew_dag_parent(g, n, p, cases[c].flags);
      long used = test_alloc_count() - start;
      test_alloc_fail_at(0);
      if (rc && rc != SINEW_ENOMEM)
        fail_msg("case %zu, allocation %ld: %s (%s)", c, k, sinew_err_name(rc), sinew_graph_errmsg(g));
      dag_snapshot(g, cases[c].node, &after);
      if (rc) {
        dag_same(&before, &after, k);
        M4 kw1 = world(g, "k");
        assert_mat_near(&kw1, &kw, "the child joint unchanged");
      } else {
        assert_int_equal(after.parent.index, p.index);
        if (cases[c].flags & SINEW_PARENT_KEEP_WORLD) assert_mat_near(&after.world, &before.world, "world kept");
      }
      sinew_graph_destroy(g);
      if (test_alloc_live() != 0) fail_msg("case %zu, allocation %ld: %ld blocks leaked", c, k, test_alloc_live());
      if (!rc && used < k) break;
    }
  }
  /* sinew_dag_set_local_matrix on a dirty joint: all of it or nothing */
  M4 L = chain(2, RZ(deg(30)), tr(4, 5, 6));
  for (long k = 1;; k++) {
    test_alloc_reset();
    sinew_graph_t *g = scene();
    dag_rig(g);
    set3(g, "p1.s", 3, 3, 3); /* j's inputs are dirty again */
    dag_state before, after;
    dag_snapshot(g, "j", &before);
    set3(g, "p1.s", 4, 4, 4);
    before.is = (V3){4, 4, 4};
    long start = test_alloc_count();
    test_alloc_fail_at(start + k);
    int rc = sinew_dag_set_local_matrix(g, node(g, "j"), &L);
    long used = test_alloc_count() - start;
    test_alloc_fail_at(0);
    if (rc) {
      assert_int_equal(rc, SINEW_ENOMEM);
      dag_snapshot(g, "j", &after);
      before.world = after.world; /* p1's new scale moved it; its local values did not change */
      dag_same(&before, &after, k);
    } else {
      M4 m = getm(g, "j.m");
      assert_mat_near(&m, &L, "local matrix written");
    }
    sinew_graph_destroy(g);
    assert_int_equal(test_alloc_live(), 0);
    if (!rc && used < k) break;
  }
  test_alloc_uninstall();
}

/* ---- time -------------------------------------------------------------------------------------- */

static void test_time_units(void **state) {
  (void)state;
  assert_int_equal(sinew_time_unit_from_name("ntsc"), SINEW_TIME_NTSC);
  assert_int_equal(sinew_time_unit_from_name("30fps"), SINEW_TIME_NTSC);
  assert_int_equal(sinew_time_unit_from_name("film"), SINEW_TIME_FILM);
  assert_int_equal(sinew_time_unit_from_name("24fps"), SINEW_TIME_FILM);
  assert_int_equal(sinew_time_unit_from_name("game"), SINEW_TIME_GAME);
  assert_int_equal(sinew_time_unit_from_name("15fps"), SINEW_TIME_GAME);
  assert_int_equal(sinew_time_unit_from_name("pal"), SINEW_TIME_PAL);
  assert_int_equal(sinew_time_unit_from_name("show"), SINEW_TIME_SHOW);
  assert_int_equal(sinew_time_unit_from_name("palf"), SINEW_TIME_PALF);
  assert_int_equal(sinew_time_unit_from_name("ntscf"), SINEW_TIME_NTSCF);
  assert_int_equal(sinew_time_unit_from_name("bogus"), SINEW_TIME_INVALID);
  assert_int_equal(sinew_time_unit_from_name(""), SINEW_TIME_INVALID);
  assert_int_equal(sinew_time_unit_from_name("fps"), SINEW_TIME_INVALID);
  assert_int_equal(sinew_time_unit_from_name("31fps"), SINEW_TIME_INVALID);
  assert_int_equal(sinew_time_unit_from_name("30fpsx"), SINEW_TIME_INVALID);
  assert_int_equal(sinew_time_unit_from_name(NULL), SINEW_TIME_INVALID);
  assert_string_equal(sinew_time_unit_name(SINEW_TIME_NTSC), "ntsc");
  assert_null(sinew_time_unit_name(SINEW_TIME_INVALID));
  assert_true(sinew_time_unit_fps(SINEW_TIME_GAME) == 15);
  assert_true(sinew_time_unit_fps(SINEW_TIME_FILM) == 24);
  assert_true(sinew_time_unit_fps(SINEW_TIME_PAL) == 25);
  assert_true(sinew_time_unit_fps(SINEW_TIME_NTSC) == 30);
  assert_true(sinew_time_unit_fps(SINEW_TIME_SHOW) == 48);
  assert_true(sinew_time_unit_fps(SINEW_TIME_PALF) == 50);
  assert_true(sinew_time_unit_fps(SINEW_TIME_NTSCF) == 60);
  assert_true(sinew_time_unit_fps(SINEW_TIME_UNIT_MAX) == 0);
}

static void test_time_frames(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  sinew_node_t t1, t2;
  assert_int_equal(sinew_node_find(g, "time1", &t1), 0);
  assert_true(sinew_node_type_is_a(sinew_node_type(g, t1), "time"));
  assert_int_equal(sinew_time_node(g, &t2), 0);
  assert_int_equal(t1.index, t2.index);
  assert_int_equal(sinew_time_get_unit(g), SINEW_TIME_FILM);
  double s = -1, f = -1;
  assert_int_equal(sinew_time_get_seconds(g, &s), 0);
  assert_true(s == 0);
  /* film: frame 12 = 0.5 s */
  assert_int_equal(sinew_time_set_frame(g, 12), 0);
  assert_int_equal(sinew_time_get_seconds(g, &s), 0);
  assert_near(s, 0.5);
  assert_near(getd(g, "time1.outTime"), 0.5);
  assert_int_equal(sinew_time_get_frame(g, &f), 0);
  assert_near(f, 12);
  /* ntsc: frame 15 = 0.5 s; the seconds stay when the unit changes, so frames are re-read */
  assert_int_equal(sinew_time_set_unit(g, SINEW_TIME_NTSC), 0);
  assert_int_equal(sinew_time_get_unit(g), SINEW_TIME_NTSC);
  assert_int_equal(sinew_time_get_frame(g, &f), 0);
  assert_near(f, 15);
  assert_int_equal(sinew_time_set_frame(g, 45), 0);
  assert_int_equal(sinew_time_get_seconds(g, &s), 0);
  assert_near(s, 1.5);
  /* game: frame 15 = 1 s */
  assert_int_equal(sinew_time_set_unit(g, SINEW_TIME_GAME), 0);
  assert_int_equal(sinew_time_set_frame(g, 15), 0);
  assert_int_equal(sinew_time_get_seconds(g, &s), 0);
  assert_near(s, 1.0);
  assert_int_equal(sinew_time_get_frame(g, &f), 0);
  assert_near(f, 15);
  /* fractional and negative frames */
  assert_int_equal(sinew_time_set_frame(g, -7.5), 0);
  assert_int_equal(sinew_time_get_seconds(g, &s), 0);
  assert_near(s, -0.5);
  /* seconds directly */
  assert_int_equal(sinew_time_set_seconds(g, 2), 0);
  assert_int_equal(sinew_time_get_frame(g, &f), 0);
  assert_near(f, 30);
  /* errors */
  assert_int_equal(sinew_time_set_unit(g, SINEW_TIME_INVALID), SINEW_EINVAL);
  assert_int_equal(sinew_time_set_unit(g, SINEW_TIME_UNIT_MAX), SINEW_EINVAL);
  assert_int_equal(sinew_time_get_unit(g), SINEW_TIME_GAME);
  assert_int_equal(sinew_time_set_seconds(g, NAN), SINEW_ERANGE);
  assert_int_equal(sinew_time_set_seconds(g, INFINITY), SINEW_ERANGE);
  assert_int_equal(sinew_time_get_seconds(g, &s), 0);
  assert_near(s, 2);
  sinew_graph_destroy(g);
}

/* The scene keeps one time node: renaming time1 keeps it the time node (it keeps its rate and
 * time), and another node taking the name time1 does not make a new time node per call. */
static void test_time_node_renamed(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  sinew_node_t t1 = node(g, "time1"), t;
  assert_int_equal(sinew_time_set_unit(g, SINEW_TIME_NTSC), 0);
  assert_int_equal(sinew_time_set_frame(g, 15), 0);
  assert_int_equal(sinew_node_rename(g, t1, "clock"), 0);
  mk(g, "transform", "time1");
  size_t count = sinew_node_count(g);
  for (int i = 0; i < 3; i++) {
    assert_int_equal(sinew_time_node(g, &t), 0);
    assert_int_equal(t.index, t1.index);
    assert_int_equal(sinew_time_get_unit(g), SINEW_TIME_NTSC);
  }
  double f = 0;
  assert_int_equal(sinew_time_get_frame(g, &f), 0);
  assert_near(f, 15);
  assert_int_equal(sinew_time_set_frame(g, 30), 0);
  assert_near(getd(g, "clock.outTime"), 1.0);
  assert_int_equal(sinew_node_count(g), count);
  /* with no time node left, one is made, named time1 when that name is free */
  assert_int_equal(sinew_node_delete(g, t1), 0);
  assert_int_equal(sinew_node_delete(g, node(g, "time1")), 0);
  assert_int_equal(sinew_time_node(g, &t), 0);
  assert_string_equal(sinew_node_name(g, t), "time1");
  assert_int_equal(sinew_time_get_unit(g), SINEW_TIME_FILM);
  assert_int_equal(sinew_node_count(g), count - 1);
  sinew_graph_destroy(g);
}

static void test_time_same_dirties_nothing(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  mk(g, "unitConversion", "uc");
  conn(g, "time1.outTime", "uc.input");
  sinew_graph_stats_t st;
  assert_int_equal(sinew_time_set_frame(g, 24), 0);
  assert_near(getd(g, "uc.output"), 1);
  sinew_graph_reset_stats(g);
  assert_int_equal(sinew_time_set_frame(g, 24), 0);
  sinew_graph_stats(g, &st);
  assert_true(st.dirtied == 0);
  assert_near(getd(g, "uc.output"), 1);
  sinew_graph_stats(g, &st);
  assert_true(st.computes == 0);
  /* the same time through set_seconds too */
  assert_int_equal(sinew_time_set_seconds(g, 1), 0);
  sinew_graph_stats(g, &st);
  assert_true(st.dirtied == 0);
  /* a new time does dirty what depends on it */
  assert_int_equal(sinew_time_set_frame(g, 48), 0);
  sinew_graph_stats(g, &st);
  assert_true(st.dirtied > 0);
  assert_near(getd(g, "uc.output"), 2);
  /* setting time 0 on a fresh scene (never set) is a change from "no value" */
  sinew_graph_t *g2 = scene();
  assert_int_equal(sinew_time_set_seconds(g2, 0), 0);
  sinew_graph_reset_stats(g2);
  assert_int_equal(sinew_time_set_seconds(g2, 0), 0);
  sinew_graph_stats(g2, &st);
  assert_true(st.dirtied == 0);
  sinew_graph_destroy(g2);
  sinew_graph_destroy(g);
}

/* ---- unitConversion ----------------------------------------------------------------------------- */

static void test_unit_conversion(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  mk(g, "unitConversion", "uc");
  assert_near(getd(g, "uc.cf"), 1); /* default factor 1 */
  setd(g, "uc.i", 3);
  assert_near(getd(g, "uc.o"), 3);
  /* time (seconds) -> degrees-as-radians -> a rotation */
  setd(g, "uc.cf", 0.017453292519943295);
  conn(g, "time1.outTime", "uc.input");
  mk(g, "transform", "x");
  conn(g, "uc.output", "x.rz");
  assert_int_equal(sinew_time_set_seconds(g, 90), 0);
  assert_near(getd(g, "uc.output"), PI / 2);
  assert_near(getd(g, "x.rz"), PI / 2);
  M4 wm = world(g, "x");
  assert_vec_near(xfp((V3){1, 0, 0}, wm), ((V3){0, 1, 0}), "rz driven by time");
  /* at film rate, frame 4320 is 180 s -> pi */
  assert_int_equal(sinew_time_set_frame(g, 4320), 0);
  assert_near(getd(g, "x.rz"), PI);
  /* a plain double source: x.sx (double) * 2.54 -> y.tx (distance) */
  mk(g, "unitConversion", "uc2");
  mk(g, "transform", "y");
  setd(g, "uc2.cf", 2.54);
  conn(g, "x.sx", "uc2.i");
  conn(g, "uc2.o", "y.tx");
  setd(g, "x.sx", 3);
  assert_near(getd(g, "y.tx"), 7.62);
  /* the factor itself drives the output */
  setd(g, "uc2.cf", -1);
  assert_near(getd(g, "y.tx"), -3);
  M4 wy = world(g, "y");
  assert_near(wy.m[3][0], -3);
  /* the output is read-only */
  sinew_plug_t po = P(g, "uc2.o");
  assert_int_equal(sinew_set_double(g, &po, 1), SINEW_EREADONLY);
  /* uc is no DAG node */
  assert_int_equal(sinew_dag_parent(g, node(g, "uc2"), node(g, "x"), 0), SINEW_ETYPE);
  sinew_graph_destroy(g);
}

/* ---- attributes -------------------------------------------------------------------------------- */

static void test_attribute_defaults(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  mk(g, "transform", "x");
  mk(g, "joint", "j");
  assert_vec_near(get3(g, "x.t"), ((V3){0, 0, 0}), "t");
  assert_vec_near(get3(g, "x.s"), ((V3){1, 1, 1}), "s");
  assert_near(getd(g, "x.ro"), 0);
  assert_near(getd(g, "x.it"), 1);
  assert_near(getd(g, "x.v"), 1);
  assert_vec_near(get3(g, "j.is"), ((V3){1, 1, 1}), "is");
  assert_near(getd(g, "j.ssc"), 1);
  assert_near(getd(g, "j.radi"), 1);
  assert_near(getd(g, "j.mnrx"), -2 * PI);
  assert_near(getd(g, "j.mxrz"), 2 * PI);
  M4 id = ident(), m = getm(g, "x.wm[0]");
  assert_mat_near(&m, &id, "default wm");
  m = getm(g, "j.wm[0]");
  assert_mat_near(&m, &id, "default joint wm");
  m = getm(g, "x.opm");
  assert_mat_near(&m, &id, "default opm");
  /* types of the main attributes */
  sinew_node_t x = node(g, "x");
  sinew_attr_info_t info;
  assert_int_equal(sinew_node_attr_info(g, x, sinew_node_attr(g, x, "tx"), &info), 0);
  assert_int_equal(info.type, SINEW_ATTR_DISTANCE);
  assert_int_equal(sinew_node_attr_info(g, x, sinew_node_attr(g, x, "rx"), &info), 0);
  assert_int_equal(info.type, SINEW_ATTR_ANGLE);
  assert_int_equal(sinew_node_attr_info(g, x, sinew_node_attr(g, x, "sx"), &info), 0);
  assert_int_equal(info.type, SINEW_ATTR_DOUBLE);
  assert_int_equal(sinew_node_attr_info(g, x, sinew_node_attr(g, x, "worldMatrix"), &info), 0);
  assert_true(info.flags & SINEW_ATTR_ARRAY);
  assert_false(info.flags & SINEW_ATTR_WRITABLE);
  assert_int_equal(sinew_node_attr_info(g, x, sinew_node_attr(g, x, "sinewParentMatrix"), &info), 0);
  assert_true(info.flags & SINEW_ATTR_HIDDEN);
  assert_false(info.flags & SINEW_ATTR_STORABLE);
  /* the dagNode base type is abstract */
  sinew_node_t d;
  assert_true(sinew_node_create(g, "dagNode", "d", &d) < 0);
  /* the implicit parent link is implicit: parent.wm[0] -> child.sinewParentMatrix */
  parent(g, "j", "x", 0);
  assert_true(sources_from(g, "j.sinewParentMatrix", "x.wm[0]"));
  sinew_graph_destroy(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rotate_orders),
      cmocka_unit_test(test_rotate_order_out_of_range),
      cmocka_unit_test(test_joint_orient_and_rotate),
      cmocka_unit_test(test_rotate_axis_transform),
      cmocka_unit_test(test_rotate_axis_joint),
      cmocka_unit_test(test_pivots),
      cmocka_unit_test(test_shear),
      cmocka_unit_test(test_four_level_hierarchy),
      cmocka_unit_test(test_segment_scale_compensate),
      cmocka_unit_test(test_inherits_transform),
      cmocka_unit_test(test_offset_parent_matrix),
      cmocka_unit_test(test_output_consistency),
      cmocka_unit_test(test_singular_inverse),
      cmocka_unit_test(test_eval_counts),
      cmocka_unit_test(test_parent_joint_inverse_scale),
      cmocka_unit_test(test_parent_keep_world_transforms),
      cmocka_unit_test(test_parent_keep_world_joints),
      cmocka_unit_test(test_parent_relative),
      cmocka_unit_test(test_set_local_matrix),
      cmocka_unit_test(test_set_local_matrix_refused),
      cmocka_unit_test(test_parent_errors),
      cmocka_unit_test(test_dag_parent_alloc_failure),
      cmocka_unit_test(test_time_units),
      cmocka_unit_test(test_time_frames),
      cmocka_unit_test(test_time_same_dirties_nothing),
      cmocka_unit_test(test_time_node_renamed),
      cmocka_unit_test(test_unit_conversion),
      cmocka_unit_test(test_attribute_defaults),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
