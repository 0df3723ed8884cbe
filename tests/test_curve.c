/* tests/test_curve.c: NURBS curves (nodes/curve.c, nodes/curve_node.c, docs/rigging.md#curves):
 * evaluation against values worked out by hand (a line, a cubic Bezier, a two-span cubic whose
 * basis functions at a knot are 1/4 1/2 1/4, a rational quarter circle), arc length against an
 * independent polyline, Maya's circle against the CVs Maya writes for `circle -nr 0 1 0`, the
 * nurbsCurve shape's local and world outputs, curveInfo and pointOnCurveInfo, the .cc form read
 * and written back exactly, and bad curves refused with a message naming the plug. */
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

#define PI 3.14159265358979323846

static sinew_session_t *S;

#define res(text) test_res(S, text)
#define expect_res(text, want) test_expect_res(S, text, want)
static char logtext[1 << 14];
static size_t loglen;

static void logger(void *ud, sinew_log_level_t level, sinew_log_id_t id, const char *msg) {
  (void)ud;
  (void)level;
  (void)id;
  int n = snprintf(logtext + loglen, sizeof logtext - loglen, "%s\n", msg);
  if (n > 0 && (size_t)n < sizeof logtext - loglen) loglen += (size_t)n;
}

static int setup(void **state) {
  (void)state;
  sinew_session_desc_t d = {.logger = logger};
  assert_int_equal(sinew_session_create(&d, &S), 0);
  loglen = 0;
  logtext[0] = 0;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  sinew_session_destroy(S);
  S = NULL;
  return 0;
}

static void run(const char *mel) {
  if (sinew_session_run(S, mel, strlen(mel), "test", NULL)) fail_msg("%s\n-> %s", mel, sinew_session_errmsg(S));
}

static int run_rc(const char *mel) { return sinew_session_run(S, mel, strlen(mel), "test", NULL); }

static sinew_graph_t *G(void) { return sinew_session_graph(S); }

static size_t node_count(void) { return sinew_node_count(G()); }

static sinew_plug_t plug(const char *text) {
  sinew_plug_t p;
  if (sinew_plug_parse(G(), text, (sinew_node_t){0, 0}, &p)) fail_msg("no plug %s", text);
  return p;
}

static double getd(const char *text) {
  sinew_plug_t p = plug(text);
  double v = NAN;
  if (sinew_get_double(G(), &p, &v)) fail_msg("get %s: %s", text, sinew_graph_errmsg(G()));
  return v;
}

static void expect3(const char *text, double x, double y, double z, double tol) {
  sinew_plug_t p = plug(text);
  double v[3] = {NAN, NAN, NAN};
  if (sinew_get_doubles(G(), &p, v, 3, NULL)) fail_msg("get %s", text);
  if (!(fabs(v[0] - x) <= tol && fabs(v[1] - y) <= tol && fabs(v[2] - z) <= tol))
    fail_msg("%s = (%.17g %.17g %.17g), expected (%.17g %.17g %.17g)", text, v[0], v[1], v[2], x, y, z);
}

static void expect1(const char *text, double x, double tol) {
  double v = getd(text);
  if (!(fabs(v - x) <= tol)) fail_msg("%s = %.17g, expected %.17g", text, v, x);
}

/* The curve a plug holds (a new reference). */
static sinew_data_t *curve_at(const char *text, sinew_curve_t *c) {
  sinew_plug_t p = plug(text);
  sinew_data_t *d = NULL;
  if (sinew_get_data(G(), &p, &d) || !d) fail_msg("no curve at %s", text);
  if (sinew_curve_get(d, c)) fail_msg("%s holds a %s", text, sinew_data_type(d)->name);
  return d;
}

static void near3(sinew_vec3_t v, double x, double y, double z, double tol) {
  if (!(fabs(v.x - x) <= tol && fabs(v.y - y) <= tol && fabs(v.z - z) <= tol))
    fail_msg("(%.17g %.17g %.17g), expected (%.17g %.17g %.17g)", v.x, v.y, v.z, x, y, z);
}

/* cmocka's float comparison is relative; these are absolute tolerances */
static void near1(double v, double want, double tol) {
  if (!(fabs(v - want) <= tol)) fail_msg("%.17g, expected %.17g (within %g)", v, want, tol);
}

static sinew_data_t *make(uint32_t degree, sinew_curve_form_t form, bool rational, uint32_t ncvs, const double *knots,
                          const double *cvs) {
  sinew_curve_t c = {.degree = degree, .form = form, .rational = rational, .dim = 3, .ncvs = ncvs,
                     .nknots = ncvs + degree - 1, .knots = knots, .cvs = cvs};
  sinew_data_t *d = NULL;
  char why[200] = "";
  if (sinew_curve_check(&c, why, sizeof why)) fail_msg("curve refused: %s", why);
  assert_int_equal(sinew_curve_create(&c, &d), 0);
  return d;
}

/* ---- evaluation --------------------------------------------------------------------------------- */

/* rig_splineik.ma's curve: degree 1 from (-4,0,0) to (4,0,0) over [0, 1]: C(u) = -4 + 8u, C' = 8. */
static void test_line(void **state) {
  (void)state;
  double k[] = {0, 1}, p[] = {-4, 0, 0, 1, 4, 0, 0, 1};
  sinew_data_t *d = make(1, SINEW_CURVE_OPEN, false, 2, k, p);
  sinew_curve_t c;
  assert_int_equal(sinew_curve_get(d, &c), 0);
  sinew_vec3_t pos, d1, d2;
  sinew_curve_eval(&c, 0.25, &pos, &d1, &d2);
  near3(pos, -2, 0, 0, 1e-15);
  near3(d1, 8, 0, 0, 1e-15);
  near3(d2, 0, 0, 0, 1e-15);
  sinew_curve_eval(&c, 7, &pos, NULL, NULL); /* clamped to the end */
  near3(pos, 4, 0, 0, 1e-15);
  near1(sinew_curve_length(&c, 0, 1), 8, 1e-13);
  near1(sinew_curve_param_at_length(&c, 2), 0.25, 1e-13);
  sinew_data_unref(d);
}

/* One cubic span with Maya's knots 0 0 0 1 1 1 is the Bezier P0 (0,0) P1 (1,2) P2 (3,2) P3 (4,0).
 * At t = 1/2: (P0 + 3 P1 + 3 P2 + P3) / 8 = (2, 1.5); C' = 3 [(P1-P0)/4 + (P2-P1)/2 + (P3-P2)/4]
 * = (4.5, 0); C'' = 6 [(P2 - 2 P1 + P0)/2 + (P3 - 2 P2 + P1)/2] = (0, -12). Curvature radius
 * |C'|^3 / |C' x C''| = 4.5^2 / 12 = 1.6875, centre below the point. */
static void test_bezier(void **state) {
  (void)state;
  double k[] = {0, 0, 0, 1, 1, 1}, p[] = {0, 0, 0, 1, 1, 2, 0, 1, 3, 2, 0, 1, 4, 0, 0, 1};
  sinew_data_t *d = make(3, SINEW_CURVE_OPEN, false, 4, k, p);
  sinew_curve_t c;
  sinew_curve_get(d, &c);
  sinew_vec3_t pos, d1, d2;
  sinew_curve_eval(&c, 0.5, &pos, &d1, &d2);
  near3(pos, 2, 1.5, 0, 1e-14);
  near3(d1, 4.5, 0, 0, 1e-13);
  near3(d2, 0, -12, 0, 1e-12);
  sinew_curve_eval(&c, 0, &pos, &d1, NULL);
  near3(pos, 0, 0, 0, 1e-15);
  near3(d1, 3, 6, 0, 1e-13); /* 3 (P1 - P0) */
  sinew_curve_eval(&c, 1, &pos, &d1, NULL);
  near3(pos, 4, 0, 0, 1e-15);
  near3(d1, 3, -6, 0, 1e-13); /* 3 (P3 - P2) */

  /* the same through pointOnCurveInfo, fed by a shape's .cc as a file writes it */
  run("createNode transform -n c1; createNode nurbsCurve -n c1Shape -p c1;"
      "setAttr c1Shape.cc -type nurbsCurve 3 1 0 no 3 6 0 0 0 1 1 1 4 0 0 0 1 2 0 3 2 0 4 0 0;"
      "createNode pointOnCurveInfo -n poc; connectAttr c1Shape.ws[0] poc.ic; setAttr poc.pr 0.5;");
  expect3("poc.p", 2, 1.5, 0, 1e-12);
  expect3("poc.t", 4.5, 0, 0, 1e-12);
  expect3("poc.nt", 1, 0, 0, 1e-12);
  expect3("poc.nn", 0, -1, 0, 1e-12);
  expect3("poc.n", 0, -12, 0, 1e-12);
  expect1("poc.cr", 1.6875, 1e-12);
  expect3("poc.cc", 2, 1.5 - 1.6875, 0, 1e-12);
  /* turnOnPercentage: the parameter in 0-1 across the range, here [0, 2] (test_two_spans' curve:
   * 0.25 -> u = 0.5, (1.1875, 1.875)) */
  run("createNode transform -n c2; createNode nurbsCurve -n c2Shape -p c2;"
      "setAttr c2Shape.cc -type nurbsCurve 3 2 0 no 3 7 0 0 0 1 2 2 2 5 0 0 0 1 1 0 2 4 0 3 9 0 4 16 0;"
      "createNode pointOnCurveInfo -n poc2; connectAttr c2Shape.ws[0] poc2.ic; setAttr poc2.top 1;"
      "setAttr poc2.pr 0.25;");
  expect3("poc2.p", 1.1875, 1.875, 0, 1e-12);
  run("setAttr poc2.top 0;"); /* u = 0.25: basis 27/64 127/256 5/64 1/256 (Cox-de Boor) */
  expect3("poc2.p", 127.0 / 256 + 2 * 5.0 / 64 + 3.0 / 256, 127.0 / 256 + 4 * 5.0 / 64 + 9.0 / 256, 0, 1e-12);
  sinew_data_unref(d);
}

/* Two cubic spans, Maya knots 0 0 0 1 2 2 2 (textbook 0 0 0 0 1 2 2 2 2): at u = 1 the basis
 * functions are 1/4 1/2 1/4 on CVs 1..3, at u = 0.5 0.125 0.59375 0.25 0.03125 on CVs 0..3
 * (Cox-de Boor by hand). CVs (i, i^2): C(1) = (2, 4.5), C(0.5) = (1.1875, 1.875). */
static void test_two_spans(void **state) {
  (void)state;
  double k[] = {0, 0, 0, 1, 2, 2, 2};
  double p[20];
  for (int i = 0; i < 5; i++) {
    p[4 * i] = i;
    p[4 * i + 1] = i * i;
    p[4 * i + 2] = 0;
    p[4 * i + 3] = 1;
  }
  sinew_data_t *d = make(3, SINEW_CURVE_OPEN, false, 5, k, p);
  sinew_curve_t c;
  sinew_curve_get(d, &c);
  sinew_vec3_t pos;
  sinew_curve_eval(&c, 1, &pos, NULL, NULL);
  near3(pos, 2, 4.5, 0, 1e-14);
  sinew_curve_eval(&c, 0.5, &pos, NULL, NULL);
  near3(pos, 1.1875, 1.875, 0, 1e-14);
  assert_int_equal(sinew_curve_spans(&c), 2);
  /* the derivative against a central difference */
  sinew_vec3_t d1, a, b;
  double h = 1e-6;
  sinew_curve_eval(&c, 1.3, NULL, &d1, NULL);
  sinew_curve_eval(&c, 1.3 - h, &a, NULL, NULL);
  sinew_curve_eval(&c, 1.3 + h, &b, NULL, NULL);
  near3(d1, (b.x - a.x) / (2 * h), (b.y - a.y) / (2 * h), 0, 1e-7);
  sinew_data_unref(d);
}

/* A rational quadratic quarter circle: (1,0) w 1, (1,1) w sqrt(1/2), (0,1) w 1. Every point is
 * on the unit circle; t = 1/2 is at 45 degrees. */
static void test_rational(void **state) {
  (void)state;
  double w = sqrt(0.5);
  double k[] = {0, 0, 1, 1}, p[] = {1, 0, 0, 1, 1, 1, 0, w, 0, 1, 0, 1};
  sinew_data_t *d = make(2, SINEW_CURVE_OPEN, true, 3, k, p);
  sinew_curve_t c;
  sinew_curve_get(d, &c);
  for (double t = 0; t <= 1; t += 0.125) {
    sinew_vec3_t pos, d1;
    sinew_curve_eval(&c, t, &pos, &d1, NULL);
    near1(pos.x * pos.x + pos.y * pos.y, 1, 1e-14);
    near1(pos.x * d1.x + pos.y * d1.y, 0, 1e-13); /* the tangent is across the radius */
  }
  sinew_vec3_t pos;
  sinew_curve_eval(&c, 0.5, &pos, NULL, NULL);
  near3(pos, w, w, 0, 1e-15);
  near1(sinew_curve_length(&c, 0, 1), PI / 2, 1e-12);
  sinew_data_unref(d);
}

/* Arc length against a fine polyline, and the parameter at a length back to that length. */
static void test_length(void **state) {
  (void)state;
  double k[] = {0, 0, 0, 1, 2, 2, 2}, p[] = {0, 0, 0, 1, 1, 3, 0, 1, 4, -1, 2, 1, 6, 2, 1, 1, 8, 0, 0, 1};
  sinew_data_t *d = make(3, SINEW_CURVE_OPEN, false, 5, k, p);
  sinew_curve_t c;
  sinew_curve_get(d, &c);
  double poly = 0;
  sinew_vec3_t prev;
  sinew_curve_eval(&c, 0, &prev, NULL, NULL);
  int n = 200000;
  for (int i = 1; i <= n; i++) {
    sinew_vec3_t q;
    sinew_curve_eval(&c, 2.0 * i / n, &q, NULL, NULL);
    poly += sqrt((q.x - prev.x) * (q.x - prev.x) + (q.y - prev.y) * (q.y - prev.y) + (q.z - prev.z) * (q.z - prev.z));
    prev = q;
  }
  double len = sinew_curve_length(&c, 0, 2);
  near1(len, poly, 1e-8 * len); /* the polyline is short by O(1/n^2) */
  for (double f = 0; f <= 1; f += 0.1) {
    double u = sinew_curve_param_at_length(&c, f * len);
    near1(sinew_curve_length(&c, 0, u), f * len, 1e-10);
  }
  near1(sinew_curve_param_at_length(&c, 2 * len), 2, 0);
  sinew_data_unref(d);
}

/* ---- bad curves ------------------------------------------------------------------------------------ */

static void refused(const sinew_curve_t *c, const char *reason) {
  char why[200] = "";
  sinew_data_t *d = NULL;
  assert_int_equal(sinew_curve_check(c, why, sizeof why), SINEW_EINVAL);
  assert_int_equal(sinew_curve_create(c, &d), SINEW_EINVAL);
  assert_null(d);
  if (!strstr(why, reason)) fail_msg("reason '%s' does not say '%s'", why, reason);
}

static void test_bad_curves(void **state) {
  (void)state;
  double k[] = {0, 0, 0, 1, 1, 1, 1}, p[] = {0, 0, 0, 1, 1, 2, 0, 1, 3, 2, 0, 1, 4, 0, 0, 1};
  sinew_curve_t c = {.degree = 3, .dim = 3, .ncvs = 4, .nknots = 5, .knots = k, .cvs = p};
  refused(&c, "need 6 knots, got 5");
  c.nknots = 6;
  c.degree = 4; /* degree above the CVs */
  c.nknots = 7;
  refused(&c, "needs at least 5 CVs");
  c.degree = 0;
  refused(&c, "degree 0");
  c = (sinew_curve_t){.degree = 3, .dim = 3, .ncvs = 4, .nknots = 6, .knots = (double[]){0, 0, 1, 0.5, 1, 1}, .cvs = p};
  refused(&c, "knot 3 (0.5) is below knot 2 (1)");
  c.knots = (double[]){0, 0, 0, 0, 0, 0};
  refused(&c, "empty range");
  c.knots = k;
  c.form = SINEW_CURVE_PERIODIC;
  refused(&c, "periodic");
  c.form = 7;
  refused(&c, "form 7");
  c.form = SINEW_CURVE_OPEN;
  double bad[16];
  memcpy(bad, p, sizeof bad);
  bad[5] = NAN;
  c.cvs = bad;
  refused(&c, "CV 1 is not made of finite numbers");
  bad[5] = 2;
  bad[7] = 0;
  refused(&c, "weight 0");
  c.cvs = p;
  c.dim = 4;
  refused(&c, "dimension 4");

  /* the .cc text: counts checked against the values before anything is read */
  char why[200];
  sinew_data_t *d = NULL;
  double v1[] = {1, 1, 0, 0, 3, 2, 0, 1, 2, -4, 0, 0, 4, 0}; /* one number short */
  assert_int_equal(sinew_curve_from_values(v1, sizeof v1 / sizeof *v1, &d, why, sizeof why), SINEW_EINVAL);
  assert_non_null(strstr(why, "need 15 values in all, got 14"));
  double v2[] = {1, 1, 0, 0, 3, 1000000, 0};
  assert_int_equal(sinew_curve_from_values(v2, sizeof v2 / sizeof *v2, &d, why, sizeof why), SINEW_EINVAL);
  assert_non_null(strstr(why, "1000000 knots announced"));
  double v3[] = {1, 5, 0, 0, 3, 2, 0, 1, 2, -4, 0, 0, 4, 0, 0}; /* 5 spans announced, 1 made */
  assert_int_equal(sinew_curve_from_values(v3, sizeof v3 / sizeof *v3, &d, why, sizeof why), SINEW_EINVAL);
  assert_non_null(strstr(why, "5 spans announced"));
  double v4[] = {1.5, 1, 0, 0, 3, 2, 0, 1, 2, -4, 0, 0, 4, 0, 0};
  assert_int_equal(sinew_curve_from_values(v4, sizeof v4 / sizeof *v4, &d, why, sizeof why), SINEW_EINVAL);
  assert_null(d);
}

/* A script's setAttr of a bad .cc fails naming the plug and the reason, and changes nothing. */
static void test_setattr_bad_curve(void **state) {
  (void)state;
  run("createNode transform -n c1; createNode nurbsCurve -n c1Shape -p c1;"
      "setAttr c1Shape.cc -type nurbsCurve 1 1 0 no 3 2 0 1 2 -4 0 0 4 0 0;");
  expect1("c1Shape.max", 1, 0);
  const char *bad[] = {
      "setAttr c1Shape.cc -type nurbsCurve 1 1 0 no 3 3 0 1 2 2 -4 0 0 4 0 0;",  /* knot count */
      "setAttr c1Shape.cc -type nurbsCurve 3 1 0 no 3 2 0 1 2 -4 0 0 4 0 0;",    /* degree > CVs */
      "setAttr c1Shape.cc -type nurbsCurve 1 1 0 no 3 2 1 0 2 -4 0 0 4 0 0;",    /* knots decrease */
      "setAttr c1Shape.cc -type nurbsCurve 1 1 0 no 3 2 0 1 2 -4 0 0 4 0;",      /* a number short */
      "setAttr c1Shape.cc -type nurbsCurve 1 1 0 maybe 3 2 0 1 2 -4 0 0 4 0 0;", /* not a number */
      "setAttr c1Shape.cc -type double3 1 2 3;",
      "setAttr c1Shape.cc 1;",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    if (run_rc(bad[i]) == 0) fail_msg("accepted: %s", bad[i]);
    const char *msg = sinew_session_errmsg(S);
    if (!strstr(msg, "c1Shape") && !strstr(msg, "number")) fail_msg("%s: message '%s' names no plug", bad[i], msg);
  }
  expect1("c1Shape.max", 1, 0); /* the old curve is still there */
  expect1("c1Shape.spans", 1, 0);
}

/* ---- Maya's circle ------------------------------------------------------------------------------------ */

/* `circle -nr 0 1 0` (makeNurbCircle radius 1, 8 sections, degree 3) as Maya writes the shape's
 * .cc (the x and z columns; Maya's y column is rounding noise around 0 of order 1e-17). */
static const double MAYA_CIRCLE_Y[11][2] = {
    {0.78361162489122504, -0.78361162489122382}, {-1.2643170607829326e-16, -1.1081941875543879},
    {-0.78361162489122427, -0.78361162489122427}, {-1.1081941875543879, -3.2112695072372299e-16},
    {-0.78361162489122449, 0.78361162489122405}, {-3.3392053635905195e-16, 1.1081941875543881},
    {0.78361162489122382, 0.78361162489122438}, {1.1081941875543879, 5.9521325992805852e-16},
    {0.78361162489122504, -0.78361162489122382}, {-1.2643170607829326e-16, -1.1081941875543879},
    {-0.78361162489122427, -0.78361162489122427}};

static void test_circle_matches_maya(void **state) {
  (void)state;
  run("createNode transform -n ring; createNode nurbsCurve -n ringShape -p ring;"
      "createNode makeNurbCircle -n makeNurbCircle1; setAttr makeNurbCircle1.nr -type double3 0 1 0;"
      "connectAttr makeNurbCircle1.oc ringShape.cr;");
  sinew_curve_t c;
  sinew_data_t *d = curve_at("ringShape.l", &c);
  assert_int_equal(c.degree, 3);
  assert_int_equal(c.form, SINEW_CURVE_PERIODIC);
  assert_int_equal(c.ncvs, 11);
  assert_int_equal(c.nknots, 13);
  for (uint32_t i = 0; i < 13; i++) near1(c.knots[i], (double)i - 2, 0);
  for (uint32_t i = 0; i < 11; i++) {
    const double *p = &c.cvs[4 * i];
    if (fabs(p[0] - MAYA_CIRCLE_Y[i][0]) > 1e-14 || fabs(p[1]) > 1e-14 || fabs(p[2] - MAYA_CIRCLE_Y[i][1]) > 1e-14)
      fail_msg("CV %u = (%.17g %.17g %.17g), Maya (%.17g 0 %.17g)", i, p[0], p[1], p[2], MAYA_CIRCLE_Y[i][0],
               MAYA_CIRCLE_Y[i][1]);
  }
  /* at every knot the curve is on the circle */
  for (int u = 0; u <= 8; u++) {
    sinew_vec3_t q;
    sinew_curve_eval(&c, u, &q, NULL, NULL);
    near1(q.x * q.x + q.z * q.z, 1, 1e-14);
  }
  expect1("ringShape.spans", 8, 0);
  expect1("ringShape.f", 2, 0);
  expect1("ringShape.min", 0, 0);
  expect1("ringShape.max", 8, 0);
  sinew_data_unref(d);

  /* radius, centre and normal move it; degree 1 puts the CVs on the circle */
  run("setAttr makeNurbCircle1.r 2; setAttr makeNurbCircle1.c -type double3 1 2 3;"
      "setAttr makeNurbCircle1.nr -type double3 0 0 1; setAttr makeNurbCircle1.d 1; setAttr makeNurbCircle1.s 4;");
  d = curve_at("ringShape.l", &c);
  assert_int_equal(c.degree, 1);
  assert_int_equal(c.ncvs, 5);
  double expect[5][3] = {{1, 4, 3}, {-1, 2, 3}, {1, 0, 3}, {3, 2, 3}, {1, 4, 3}}; /* 90, 180, 270, 360 degrees */
  for (int i = 0; i < 5; i++)
    near3((sinew_vec3_t){c.cvs[4 * i], c.cvs[4 * i + 1], c.cvs[4 * i + 2]}, expect[i][0], expect[i][1], expect[i][2],
          1e-14);
  sinew_data_unref(d);

  /* what the circle cannot build is refused with a message; the shape keeps its last curve */
  sinew_curve_t before;
  sinew_data_t *db = curve_at("ringShape.l", &before);
  run("setAttr makeNurbCircle1.d 2;");
  sinew_data_t *da = curve_at("ringShape.l", &c);
  assert_ptr_equal(da, db);
  if (!strstr(logtext, "compute of makeNurbCircle1.outputCurve failed")) fail_msg("log:\n%s", logtext);
  if (!strstr(sinew_graph_errmsg(G()), "makeNurbCircle1.outputCurve: cannot build the circle (degree 2"))
    fail_msg("error: %s", sinew_graph_errmsg(G()));
  sinew_data_unref(da);
  sinew_data_unref(db);
}

/* ---- the shape: local and world space, dirt --------------------------------------------------------- */

static void test_shape_world_space(void **state) {
  (void)state;
  run("createNode transform -n grp; createNode transform -n c1 -p grp; createNode nurbsCurve -n c1Shape -p c1;"
      "setAttr c1Shape.cc -type nurbsCurve 1 1 0 no 3 2 0 1 2 -4 0 0 4 0 0;"
      "createNode curveInfo -n info; connectAttr c1Shape.ws[0] info.ic;"
      "createNode curveInfo -n localInfo; connectAttr c1Shape.l localInfo.ic;");
  expect1("info.al", 8, 1e-12);
  expect3("info.cp[1]", 4, 0, 0, 0);
  /* under the world the world curve is the very block */
  sinew_curve_t c;
  sinew_data_t *l = curve_at("c1Shape.l", &c), *w = curve_at("c1Shape.ws[0]", &c);
  assert_ptr_equal(l, w);
  sinew_data_unref(w);
  run("setAttr grp.s -type double3 2 2 2; setAttr c1.t -type double3 0 1 0; setAttr grp.ry 90;");
  /* (x, 1, 0) scaled by 2 then turned 90 degrees about y: (0, 2, -2x) */
  expect3("info.cp[0]", 0, 2, 8, 1e-12);
  expect3("info.cp[1]", 0, 2, -8, 1e-12);
  expect1("info.al", 16, 1e-12);
  expect1("localInfo.al", 8, 1e-12);
  expect1("info.kn[1]", 1, 0);
  expect1("info.wt[0]", 1, 0);
  w = curve_at("c1Shape.ws[0]", &c);
  assert_ptr_not_equal(l, w);
  sinew_data_unref(l);
  sinew_data_unref(w);
  /* moving the parent dirties the world curve and what reads it, not the local one */
  run("setAttr grp.tx 5;");
  sinew_plug_t pl = plug("localInfo.al"), pw = plug("info.al");
  assert_false(sinew_plug_is_dirty(G(), &pl));
  assert_true(sinew_plug_is_dirty(G(), &pw));
  expect3("info.cp[0]", 5, 2, 8, 1e-12);
}

/* ---- files --------------------------------------------------------------------------------------------- */

static char *save_text(void) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  assert_int_equal(sinew_session_write_ma(S, f, "test.ma"), 0);
  fclose(f);
  return buf;
}

/* .cc in Maya's multi-line form (rig_splineik.ma's line, and a periodic circle) reads, evaluates
 * and is written back line for line. */
static void test_ma_round_trip(void **state) {
  (void)state;
  const char *ma =
      "//Maya ASCII 2016 scene\n"
      "requires maya \"2016\";\n"
      "currentUnit -l centimeter -a degree -t film;\n"
      "createNode transform -n \"curve1\";\n"
      "createNode nurbsCurve -n \"curveShape1\" -p \"curve1\";\n"
      "\tsetAttr -k off \".v\";\n"
      "\tsetAttr \".cc\" -type \"nurbsCurve\" \n"
      "\t\t1 1 0 no 3\n"
      "\t\t2 0 1\n"
      "\t\t2\n"
      "\t\t-4 0 0\n"
      "\t\t4 0 0\n"
      "\t\t;\n"
      "createNode transform -n \"ctrl\";\n"
      "createNode nurbsCurve -n \"ctrlShape\" -p \"ctrl\";\n"
      "\tsetAttr \".tw\" yes;\n"
      "\tsetAttr \".cc\" -type \"nurbsCurve\" \n"
      "\t\t3 4 2 no 3\n"
      "\t\t9 -2 -1 0 1 2 3 4 5 6\n"
      "\t\t7\n"
      "\t\t1 0 0\n"
      "\t\t0 0 -1\n"
      "\t\t-1 0 0\n"
      "\t\t0 0 1\n"
      "\t\t1 0 0\n"
      "\t\t0 0 -1\n"
      "\t\t-1 0 0\n"
      "\t\t;\n";
  FILE *f = fopen("test_curve_rt.ma", "w");
  assert_non_null(f);
  fputs(ma, f);
  fclose(f);
  run("file -f -o \"test_curve_rt.ma\";");
  expect1("curveShape1.spans", 1, 0);
  expect1("ctrlShape.spans", 4, 0);
  expect1("ctrlShape.f", 2, 0);
  char *text = save_text();
  const char *want1 = "\tsetAttr \".cc\" -type \"nurbsCurve\" \n\t\t1 1 0 no 3\n\t\t2 0 1\n\t\t2\n\t\t-4 0 0\n\t\t4 0 0\n\t\t;\n";
  const char *want2 = "\t\t3 4 2 no 3\n\t\t9 -2 -1 0 1 2 3 4 5 6\n\t\t7\n\t\t1 0 0\n\t\t0 0 -1\n";
  if (!strstr(text, want1) || !strstr(text, want2)) fail_msg("written:\n%s", text);
  free(text);
  /* and read back: the same curve */
  run("file -f -s; file -f -o \"test_curve_rt.ma\";");
  expect1("ctrlShape.max", 4, 0);
  sinew_curve_t c;
  sinew_data_t *d = curve_at("ctrlShape.l", &c);
  near3((sinew_vec3_t){c.cvs[4], c.cvs[5], c.cvs[6]}, 0, 0, -1, 0);
  sinew_data_unref(d);
  remove("test_curve_rt.ma");
}

/* A bad .cc in a file is logged with the file's line and skipped; the rest of the file loads. */
static void test_ma_bad_curve(void **state) {
  (void)state;
  const char *ma = "//Maya ASCII 2016 scene\n"
                   "createNode transform -n \"curve1\";\n"
                   "createNode nurbsCurve -n \"curveShape1\" -p \"curve1\";\n"
                   "\tsetAttr \".cc\" -type \"nurbsCurve\" \n"
                   "\t\t3 1 0 no 3\n"
                   "\t\t2 0 1\n"
                   "\t\t2\n"
                   "\t\t-4 0 0\n"
                   "\t\t4 0 0\n"
                   "\t\t;\n"
                   "createNode transform -n \"after\";\n";
  FILE *f = fopen("test_curve_bad.ma", "w");
  assert_non_null(f);
  fputs(ma, f);
  fclose(f);
  run("file -f -o \"test_curve_bad.ma\";");
  assert_non_null(strstr(logtext, "test_curve_bad.ma:4"));
  assert_non_null(strstr(logtext, "curveShape1.cached: bad nurbsCurve: a degree 3 curve needs at least 4 CVs"));
  sinew_node_t n;
  assert_int_equal(sinew_node_find(G(), "after", &n), 0);
  expect1("curveShape1.spans", 0, 0); /* no curve */
  remove("test_curve_bad.ma");
}

/* ---- the curve and circle commands ------------------------------------------------------------------- */

static void expect_knots(const char *shape, uint32_t n, const double *k) {
  sinew_curve_t c;
  sinew_data_t *d = curve_at(shape, &c);
  if (c.nknots != n) fail_msg("%s: %u knots, expected %u", shape, c.nknots, n);
  for (uint32_t i = 0; i < n; i++)
    if (c.knots[i] != k[i]) fail_msg("%s: knot %u is %g, expected %g", shape, i, c.knots[i], k[i]);
  sinew_data_unref(d);
}

static void test_curve_command(void **state) {
  (void)state;
  expect_res("curve -d 1 -p -4 0 0 -p 4 0 0", "curve1");
  expect_knots("curveShape1.l", 2, (double[]){0, 1});
  expect1("curveShape1.d", 1, 0);
  /* degree 3 by default, Maya's clamped uniform knots */
  expect_res("curve -p 0 0 0 -p 1 2 0 -p 3 2 0 -p 4 0 0 -p 5 1 0", "curve2");
  expect_knots("curveShape2.l", 7, (double[]){0, 0, 0, 1, 2, 2, 2});
  expect1("curveShape2.f", 0, 0);
  /* a name, given knots */
  expect_res("curve -n spine -d 3 -p 0 0 0 -p 0 1 0 -p 0 2 0 -p 0 3 0 -k 0 -k 0 -k 0 -k 3 -k 3 -k 3", "spine");
  expect1("spineShape.max", 3, 0);
  /* periodic: the circle control riggers paste, which is makeNurbCircle's */
  run("curve -per true -d 3 -n ctrl -p 0.78361162489122504 0 -0.78361162489122382 -p -1.2643170607829326e-16 0 "
      "-1.1081941875543879 -p -0.78361162489122427 0 -0.78361162489122427 -p -1.1081941875543879 0 "
      "-3.2112695072372299e-16 -p -0.78361162489122449 0 0.78361162489122405 -p -3.3392053635905195e-16 0 "
      "1.1081941875543881 -p 0.78361162489122382 0 0.78361162489122438 -p 1.1081941875543879 0 "
      "5.9521325992805852e-16 -p 0.78361162489122504 0 -0.78361162489122382 -p -1.2643170607829326e-16 0 "
      "-1.1081941875543879 -p -0.78361162489122427 0 -0.78361162489122427 -k -2 -k -1 -k 0 -k 1 -k 2 -k 3 -k 4 "
      "-k 5 -k 6 -k 7 -k 8 -k 9 -k 10;");
  expect1("ctrlShape.f", 2, 0);
  expect1("ctrlShape.sp", 8, 0);
  /* ends that meet make a closed curve */
  run("curve -d 1 -n tri -p 0 0 0 -p 1 0 0 -p 0 1 0 -p 0 0 0;");
  expect1("triShape.f", 1, 0);
  /* the new transform is selected */
  expect_res("ls -sl", "tri");

  /* -a adds points at the end (knots made again), -r replaces the curve */
  expect_res("curve -a -p 5 0 0 curve1", "curveShape1");
  expect_knots("curveShape1.l", 3, (double[]){0, 1, 2});
  expect_res("curve -r -d 3 -p 0 0 0 -p 1 0 0 -p 2 0 0 -p 3 0 0 curveShape1", "curveShape1");
  expect_knots("curveShape1.l", 6, (double[]){0, 0, 0, 1, 1, 1});
  /* -ws points come into the curve's space */
  run("setAttr curve1.t -type double3 10 0 0; curve -r -ws -d 1 -p 10 0 0 -p 12 0 0 curve1;");
  sinew_curve_t c;
  sinew_data_t *d = curve_at("curveShape1.l", &c);
  near3((sinew_vec3_t){c.cvs[4], c.cvs[5], c.cvs[6]}, 2, 0, 0, 1e-12);
  sinew_data_unref(d);
  run("curve -r -os -d 1 -p 10 0 0 -p 12 0 0 curve1;");
  d = curve_at("curveShape1.ws[0]", &c);
  near3((sinew_vec3_t){c.cvs[4], c.cvs[5], c.cvs[6]}, 22, 0, 0, 1e-12);
  sinew_data_unref(d);

  /* undo takes a curve back */
  size_t before = node_count();
  run("curve -d 1 -p 0 0 0 -p 1 1 1; undo;");
  assert_int_equal(node_count(), before);
}

static void test_curve_command_bad_input(void **state) {
  (void)state;
  run("curve -d 1 -p 0 0 0 -p 1 0 0;");
  size_t before = node_count();
  struct {
    const char *mel, *msg;
  } bad[] = {
      {"curve -d 1 -p 0 0 0 -p 1 0 0 -k 0 -k 1 -k 2", "2 points of degree 1 need 2 knots, got 3"},
      {"curve -d 3 -p 0 0 0 -p 1 0 0", "a degree 3 curve needs at least 4 points, got 2"},
      {"curve -d 1 -p 0 0 0 -p 1 0 0 -k 1 -k 0", "knot 1 (0) is below knot 0 (1)"},
      {"curve -per true -d 3 -p 0 0 0 -p 1 0 0 -p 2 0 0 -p 3 0 0 -p 4 0 0 -p 5 0 0", "must repeat CV"},
      {"curve -d 9 -p 0 0 0 -p 1 0 0", "-degree 9 is not between 1 and 7"},
      {"curve", "no points"},
      {"curve -a -p 1 1 1", "-append needs the curve to change"},
      {"curve -a -r -p 1 1 1 curve1", "cannot be used together"},
      {"curve -a -p 1 1 1 nothing", "nothing"},
      {"curve -ep 0 0 0 -ep 1 1 1", "-editPoint"},
      {"circle -d 2", "-degree 2: a circle is degree 1 or 3"},
      {"circle -s 2", "-sections 2"},
      {"circle -sw 180", "only a full circle"},
      {"circle -nr 0 0 0", "no direction"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    if (run_rc(bad[i].mel) == 0) fail_msg("accepted: %s", bad[i].mel);
    if (!strstr(sinew_session_errmsg(S), bad[i].msg))
      fail_msg("%s: message '%s' does not say '%s'", bad[i].mel, sinew_session_errmsg(S), bad[i].msg);
    if (node_count() != before) fail_msg("%s left %zu nodes behind", bad[i].mel, node_count() - before);
  }
  expect_knots("curveShape1.l", 2, (double[]){0, 1}); /* untouched */
}

static void test_circle_command(void **state) {
  (void)state;
  expect_res("circle -nr 0 1 0", "nurbsCircle1 makeNurbCircle1");
  sinew_curve_t c;
  sinew_data_t *d = curve_at("nurbsCircleShape1.l", &c);
  for (uint32_t i = 0; i < 11; i++)
    near3((sinew_vec3_t){c.cvs[4 * i], c.cvs[4 * i + 1], c.cvs[4 * i + 2]}, MAYA_CIRCLE_Y[i][0], 0,
          MAYA_CIRCLE_Y[i][1], 1e-14);
  sinew_data_unref(d);
  /* the history node drives the shape: a new radius scales it */
  run("setAttr makeNurbCircle1.r 3;");
  d = curve_at("nurbsCircleShape1.l", &c);
  near1(c.cvs[4 * 3], 3 * MAYA_CIRCLE_Y[3][0], 1e-13);
  sinew_data_unref(d);
  /* every flag lands on the node */
  expect_res("circle -n ring -c 1 2 3 -nr 1 0 0 -r 2 -d 1 -s 6", "ring makeNurbCircle2");
  expect1("makeNurbCircle2.r", 2, 0);
  expect1("makeNurbCircle2.s", 6, 0);
  expect1("makeNurbCircle2.d", 1, 0);
  expect3("makeNurbCircle2.c", 1, 2, 3, 0);
  expect3("makeNurbCircle2.nr", 1, 0, 0, 0);
  expect1("ringShape.sp", 6, 0);
  /* without history the shape holds the curve itself */
  expect_res("circle -ch off -r 2", "nurbsCircle2");
  d = curve_at("nurbsCircleShape2.cc", &c);
  near1(c.cvs[4 * 1 + 1], 2 * 1.1081941875543879, 1e-13); /* CV 1 at 90 degrees, normal z */
  sinew_data_unref(d);
  /* kept and written back: the history node with its values, the curve without it */
  char *text = save_text();
  if (!strstr(text, "createNode makeNurbCircle -n \"makeNurbCircle2\";") ||
      !strstr(text, "connectAttr \"makeNurbCircle1.oc\" \"nurbsCircleShape1.cr\";") ||
      !strstr(text, "createNode nurbsCurve -n \"nurbsCircleShape2\" -p \"nurbsCircle2\";\n\tsetAttr \".cc\" -type \"nurbsCurve\" \n\t\t3 8 2 no 3\n"))
    fail_msg("written:\n%s", text);
  free(text);
}

/* ---- spline IK ------------------------------------------------------------------------------------------ */

static sinew_mat4_t wmat(const char *node) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s.wm[0]", node);
  sinew_plug_t p = plug(buf);
  sinew_mat4_t m;
  if (sinew_get_matrix(G(), &p, &m)) fail_msg("%s: %s", buf, sinew_graph_errmsg(G()));
  return m;
}

static sinew_vec3_t wpos(const char *node) {
  sinew_mat4_t m = wmat(node);
  return (sinew_vec3_t){m.m[3][0], m.m[3][1], m.m[3][2]};
}

static double dist(sinew_vec3_t a, sinew_vec3_t b) {
  return sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z));
}

/* Distance from p to the curve a plug holds (dense sampling refined by ternary search). */
static double off_curve(const char *curve_plug, sinew_vec3_t p, double *param) {
  sinew_curve_t c;
  sinew_data_t *d = curve_at(curve_plug, &c);
  double lo, hi, best = 0, bd = INFINITY;
  sinew_curve_range(&c, &lo, &hi);
  int n = 20000;
  for (int i = 0; i <= n; i++) {
    double u = lo + (hi - lo) * i / n;
    sinew_vec3_t q;
    sinew_curve_eval(&c, u, &q, NULL, NULL);
    if (dist(q, p) < bd) bd = dist(q, p), best = u;
  }
  double a = best - (hi - lo) / n, b = best + (hi - lo) / n;
  a = a < lo ? lo : a;
  b = b > hi ? hi : b;
  for (int it = 0; it < 200; it++) {
    double m1 = a + (b - a) / 3, m2 = b - (b - a) / 3;
    sinew_vec3_t q1, q2;
    sinew_curve_eval(&c, m1, &q1, NULL, NULL);
    sinew_curve_eval(&c, m2, &q2, NULL, NULL);
    if (dist(q1, p) < dist(q2, p)) b = m2;
    else a = m1;
  }
  sinew_vec3_t q;
  sinew_curve_eval(&c, 0.5 * (a + b), &q, NULL, NULL);
  if (param) *param = 0.5 * (a + b);
  sinew_data_unref(d);
  return dist(q, p);
}

/* Five joints 2 apart along x: j0 (root) .. j4 (end). */
static void spine(void) {
  run("createNode joint -n j0; createNode joint -n j1 -p j0; setAttr j1.t 2 0 0;"
      "createNode joint -n j2 -p j1; setAttr j2.t 2 0 0; createNode joint -n j3 -p j2; setAttr j3.t 2 0 0;"
      "createNode joint -n j4 -p j3; setAttr j4.t 2 0 0;");
}

/* Every joint on the curve, in order along it, every bone `bone` long, each bone's x axis aimed
 * at the next joint. */
static void check_chain_on_curve(const char *curve_plug, const char *const *names, int n, double bone, double tol) {
  double prev = -INFINITY;
  for (int k = 0; k < n; k++) {
    double u, d = off_curve(curve_plug, wpos(names[k]), &u);
    if (d > tol) fail_msg("%s is %.3g off the curve", names[k], d);
    if (!(u > prev)) fail_msg("%s is not past the joint before it along the curve", names[k]);
    prev = u;
  }
  for (int k = 0; k + 1 < n; k++) {
    sinew_vec3_t a = wpos(names[k]), b = wpos(names[k + 1]);
    near1(dist(a, b), bone, 1e-9);
    sinew_mat4_t m = wmat(names[k]);
    double lx = sqrt(m.m[0][0] * m.m[0][0] + m.m[0][1] * m.m[0][1] + m.m[0][2] * m.m[0][2]);
    near3((sinew_vec3_t){m.m[0][0] / lx, m.m[0][1] / lx, m.m[0][2] / lx}, (b.x - a.x) / bone, (b.y - a.y) / bone,
          (b.z - a.z) / bone, 1e-9);
  }
}

static void check_on_curve(const char *curve_plug, double tol) {
  static const char *const names[] = {"j0", "j1", "j2", "j3", "j4"};
  check_chain_on_curve(curve_plug, names, 5, 2, tol);
}

/* A straight curve along x: the joints stay where they are (x = 0 2 4 6 8); a chain longer
 * than the curve goes on along its end tangent. */
static void test_spline_ik_straight(void **state) {
  (void)state;
  spine();
  run("curve -d 1 -n line -p 0 0 0 -p 10 0 0;");
  expect_res("ikHandle -sol ikSplineSolver -sj j0 -ee j4 -c line", "ikHandle1 effector1");
  sinew_node_t hn;
  assert_int_equal(sinew_node_find(G(), "ikHandle1", &hn), 0);
  assert_true(sinew_ik_wired(G(), hn));
  const char *names[] = {"j0", "j1", "j2", "j3", "j4"};
  for (int k = 0; k < 5; k++) near3(wpos(names[k]), 2 * k, 0, 0, 1e-9);
  /* the curve turned 90 degrees about z (its transform): the chain stands up along y */
  run("setAttr line.rz 90;");
  for (int k = 0; k < 5; k++) near3(wpos(names[k]), 0, 2 * k, 0, 1e-9);
  expect1("j0.rz", PI / 2, 1e-9);
  expect1("j1.rz", 0, 1e-9);
  /* shorter than the chain: 0..5, then on along +x */
  run("setAttr line.rz 0; curve -r -d 1 -p 0 0 0 -p 5 0 0 lineShape;");
  for (int k = 0; k < 5; k++) near3(wpos(names[k]), 2 * k, 0, 0, 1e-9);
  run("curve -r -d 1 -p 0 0 0 -p 5 0 0 -p 5 5 0 lineShape;"); /* a corner at (5,0,0) */
  near3(wpos("j2"), 4, 0, 0, 1e-9);
  /* j3 is on the upright leg, 2 from j2: (5, sqrt(3), 0) */
  near3(wpos("j3"), 5, sqrt(3), 0, 1e-9);
  check_on_curve("lineShape.ws[0]", 1e-9);
}

/* A bent cubic: every joint on the curve, bones kept, and the chain follows a CV that moves. */
static void test_spline_ik_follows_curve(void **state) {
  (void)state;
  spine();
  run("curve -d 3 -n spineCrv -p 0 0 0 -p 3 1 0 -p 5 -1 1 -p 9 2 1;"
      "ikHandle -sol ikSplineSolver -sj j0 -ee j4 -c spineCrv;");
  check_on_curve("spineCrvShape.ws[0]", 1e-6);
  sinew_vec3_t before = wpos("j3");
  run("curve -r -d 3 -p 0 0 0 -p 3 2 0 -p 5 -1 3 -p 9 2 1 spineCrvShape;");
  check_on_curve("spineCrvShape.ws[0]", 1e-6);
  if (dist(before, wpos("j3")) < 0.1) fail_msg("j3 did not follow the curve");
  /* the parent moving the curve moves the chain with it (root on the curve's start) */
  run("createNode transform -n rig; parent -r spineCrv rig; parent -r j0 rig; setAttr rig.t -type double3 1 2 3;"
      "setAttr rig.ry 30;");
  check_on_curve("spineCrvShape.ws[0]", 1e-6);
  /* ikBlend 0 gives the FK pose back */
  run("setAttr ikHandle1.ikb 0;");
  expect1("j1.ry", 0, 1e-12);
  expect1("j1.rz", 0, 1e-12);
}

/* Twist and roll along a straight chain on x: joint k turns about x by roll + twist * k / 3 in
 * all, so its own rotateX is the step from its parent's. */
static void test_spline_ik_twist(void **state) {
  (void)state;
  spine();
  run("curve -d 1 -n line -p 0 0 0 -p 10 0 0; ikHandle -sol ikSplineSolver -sj j0 -ee j4 -c line;"
      "setAttr ikHandle1.twi 90; setAttr ikHandle1.rol 10;");
  expect1("j0.rx", 10 * PI / 180, 1e-9);
  expect1("j1.rx", 30 * PI / 180, 1e-9);
  expect1("j2.rx", 30 * PI / 180, 1e-9);
  expect1("j3.rx", 30 * PI / 180, 1e-9);
  run("setAttr ikHandle1.twt 1;"); /* ease in: 90 * (k/3)^2 -> 10, 10, 40, 90 (+10 roll) */
  expect1("j1.rx", 10 * PI / 180, 1e-9);
  expect1("j2.rx", 30 * PI / 180, 1e-9);
  expect1("j3.rx", 50 * PI / 180, 1e-9);
  /* advanced twist, vector up (0 0 1) with the joints' +Y facing it: every Y axis is +z */
  run("setAttr ikHandle1.twt 0; setAttr ikHandle1.twi 0; setAttr ikHandle1.rol 0; setAttr ikHandle1.dtce 1;"
      "setAttr ikHandle1.dwut 5; setAttr ikHandle1.dwu -type double3 0 0 1;");
  const char *names[] = {"j0", "j1", "j2", "j3"};
  for (int k = 0; k < 4; k++) {
    sinew_mat4_t m = wmat(names[k]);
    near3((sinew_vec3_t){m.m[1][0], m.m[1][1], m.m[1][2]}, 0, 0, 1, 1e-9);
  }
  /* object rotation up, start/end (nlol's tail): the up vector turned by each end's locator,
   * blended down the chain: start up +z, end up -y, so j0 faces +z and j3 -y */
  run("createNode transform -n upA; createNode transform -n upB; setAttr upB.rx -90;"
      "connectAttr upA.wm[0] ikHandle1.dwum; connectAttr upB.wm[0] ikHandle1.dwue;"
      "setAttr ikHandle1.dwut 4; setAttr ikHandle1.dwu -type double3 0 0 1; setAttr ikHandle1.dwve -type double3 0 0 1;");
  sinew_mat4_t m0 = wmat("j0"), m3 = wmat("j3");
  near3((sinew_vec3_t){m0.m[1][0], m0.m[1][1], m0.m[1][2]}, 0, 0, 1, 1e-9);
  near3((sinew_vec3_t){m3.m[1][0], m3.m[1][1], m3.m[1][2]}, 0, 1, 0, 1e-9);
  /* enums fed any number by a connection: an unknown up type is the plain twist, an unknown
   * twist type linear (here the same pose as without the advanced twist) */
  run("setAttr ikHandle1.dtce 0;");
  double plain = getd("j2.rx");
  run("setAttr ikHandle1.dtce 1; createNode multiplyDivide -n big; setAttr big.i1x 1e30;"
      "connectAttr big.ox ikHandle1.dwut; connectAttr big.ox ikHandle1.twt;");
  expect1("j2.rx", plain, 1e-12);
}

/* dForwardAxis (advanced twist): the joint axis aimed down the curve. A chain up +y whose joints
 * keep the world's axes (bones along their +Y): forward +Y leaves every joint unturned; forward
 * +X turns j0 by 90 degrees about z (its X up the curve), so its bone along its own Y leaves the
 * curve and j1 lands at (-2, 0, 0), the flip a rigger sees in Maya with the wrong forward axis;
 * forward -Y turns j0 half a turn about z (Z kept facing the up vector +z) and j1 goes down. */
static void test_spline_ik_forward_axis(void **state) {
  (void)state;
  run("createNode joint -n j0; createNode joint -n j1 -p j0; setAttr j1.t 0 2 0;"
      "createNode joint -n j2 -p j1; setAttr j2.t 0 2 0; createNode joint -n j3 -p j2; setAttr j3.t 0 2 0;"
      "curve -d 1 -n line -p 0 0 0 -p 0 10 0; ikHandle -sol ikSplineSolver -sj j0 -ee j3 -c line;"
      "setAttr ikHandle1.dtce 1; setAttr ikHandle1.dwut 5; setAttr ikHandle1.dwu -type double3 0 0 1;"
      "setAttr ikHandle1.dwua 3; setAttr ikHandle1.dfa 2;");
  const char *names[] = {"j0", "j1", "j2", "j3"};
  for (int k = 0; k < 4; k++) near3(wpos(names[k]), 0, 2 * k, 0, 1e-9);
  for (int k = 0; k < 3; k++) {
    char a[16];
    snprintf(a, sizeof a, "%s.rz", names[k]);
    expect1(a, 0, 1e-9);
  }
  run("setAttr ikHandle1.dfa 0;");
  sinew_mat4_t m = wmat("j0");
  near3((sinew_vec3_t){m.m[0][0], m.m[0][1], m.m[0][2]}, 0, 1, 0, 1e-9);
  near3((sinew_vec3_t){m.m[2][0], m.m[2][1], m.m[2][2]}, 0, 0, 1, 1e-9);
  expect1("j0.rz", PI / 2, 1e-9);
  near3(wpos("j1"), -2, 0, 0, 1e-9);
  run("setAttr ikHandle1.dfa 3;");
  m = wmat("j0");
  near3((sinew_vec3_t){m.m[1][0], m.m[1][1], m.m[1][2]}, 0, -1, 0, 1e-9);
  near3((sinew_vec3_t){m.m[2][0], m.m[2][1], m.m[2][2]}, 0, 0, 1, 1e-9);
  near3(wpos("j1"), 0, -2, 0, 1e-9);
  /* without the advanced twist the bone itself is aimed, whatever dForwardAxis says */
  run("setAttr ikHandle1.dtce 0;");
  for (int k = 0; k < 4; k++) near3(wpos(names[k]), 0, 2 * k, 0, 1e-9);
}

/* rootOnCurve and offset: the start joint is placed on the curve (its translate written by the
 * handle), `offset` slides it along by a fraction of the arc length; off, the start joint stays
 * where its FK translate puts it. A chain of 2-long bones at x = 0..8 and a curve from (3, 1, 0)
 * to (13, 1, 0). */
static void test_spline_ik_root_on_curve(void **state) {
  (void)state;
  spine();
  run("curve -d 1 -n line -p 3 1 0 -p 13 1 0; ikHandle -sol ikSplineSolver -sj j0 -ee j4 -c line -roc false;");
  near3(wpos("j0"), 0, 0, 0, 1e-12);
  run("setAttr ikHandle1.roc 1;");
  const char *names[] = {"j0", "j1", "j2", "j3", "j4"};
  for (int k = 0; k < 5; k++) near3(wpos(names[k]), 3 + 2 * k, 1, 0, 1e-9);
  expect1("j0.tx", 3, 1e-9); /* getAttr reports the placed translate, as Maya's */
  /* offset 0.5 of the 10-long curve: j0 at x = 8; past the end the chain goes on along it */
  run("setAttr ikHandle1.off 0.5;");
  for (int k = 0; k < 5; k++) near3(wpos(names[k]), 8 + 2 * k, 1, 0, 1e-9);
  run("setAttr ikHandle1.off 0;");
  /* setAttr on the translate sets the FK translate (what roc off and ikBlend 0 give) */
  run("setAttr j0.t -type double3 0 -1 0;");
  near3(wpos("j0"), 3, 1, 0, 1e-9);
  run("setAttr ikHandle1.ikb 0.5;"); /* the translate blends linearly: (0,-1,0) to (3,1,0) */
  near3(wpos("j0"), 1.5, 0, 0, 1e-9);
  run("setAttr ikHandle1.ikb 1; setAttr ikHandle1.roc 0;");
  near3(wpos("j0"), 0, -1, 0, 1e-9);
  /* under a moved parent the translate is in the parent's space */
  run("setAttr ikHandle1.roc 1; createNode transform -n rig; parent -r j0 rig; setAttr rig.t -type double3 10 0 0;"
      "setAttr rig.rz 90;");
  near3(wpos("j0"), 3, 1, 0, 1e-9);
  expect1("j0.tx", 1, 1e-9); /* (3, 1) - (10, 0) turned back by -90 about z: (1, 7) */
  expect1("j0.ty", 7, 1e-9);
}

static void test_spline_ik_command_forms(void **state) {
  (void)state;
  spine();
  /* -ccv (the default without -c): a curve through the joints, returned third */
  expect_res("ikHandle -sol ikSplineSolver -sj j0 -ee j4", "ikHandle1 effector1 curve1");
  check_on_curve("curveShape1.ws[0]", 1e-9);
  expect1("ikHandle1.roc", 1, 0);
  struct {
    const char *mel, *msg;
  } bad[] = {
      {"ikHandle -sol ikSplineSolver -sj j1 -ee j3 -c nothing", "nothing"},
      {"ikHandle -sol ikSplineSolver -sj j1 -ee j3 -c j2", "j2 is not a NURBS curve"},
      {"ikHandle -sol ikSplineSolver -sj j1 -ee j3 -ccv false", "needs -curve or -createCurve on"},
      {"ikHandle -sol ikSplineSolver -sj j1 -ee j3 -tws spiral", "-twistType spiral"},
      {"ikHandle -sj j1 -ee j3 -c curve1", "-c is a spline IK flag"},
  };
  size_t before = node_count();
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    if (run_rc(bad[i].mel) == 0) fail_msg("accepted: %s", bad[i].mel);
    if (!strstr(sinew_session_errmsg(S), bad[i].msg))
      fail_msg("%s: message '%s' does not say '%s'", bad[i].mel, sinew_session_errmsg(S), bad[i].msg);
    assert_int_equal(node_count(), before);
  }
  /* a bent chain: the made curve passes through its joints, so making the handle moves nothing */
  run("createNode transform -n grp; setAttr grp.t -type double3 1 2 3; setAttr grp.ry 20;"
      "createNode joint -n b0 -p grp; createNode joint -n b1 -p b0; setAttr b1.t 2 0 0; setAttr b0.rz 20;"
      "createNode joint -n b2 -p b1; setAttr b2.t 2 0 0; setAttr b1.rz -35; createNode joint -n b3 -p b2;"
      "setAttr b3.t 2 0 0; setAttr b2.ry 25; createNode joint -n b4 -p b3; setAttr b4.t 1.5 0 0; setAttr b3.rz 30;");
  static const char *const bent[] = {"b0", "b1", "b2", "b3", "b4"};
  sinew_vec3_t was[5];
  for (int k = 0; k < 5; k++) was[k] = wpos(bent[k]);
  expect_res("ikHandle -sol ikSplineSolver -sj b0 -ee b4 -n bentIk", "bentIk effector2 curve2");
  for (int k = 0; k < 5; k++) {
    near3(wpos(bent[k]), was[k].x, was[k].y, was[k].z, 1e-9);
    double d = off_curve("curveShape2.ws[0]", was[k], NULL);
    if (d > 1e-9) fail_msg("the made curve misses %s by %.3g", bent[k], d);
  }
  sinew_node_t c2, grp;
  assert_int_equal(sinew_node_find(G(), "curve2", &c2), 0);
  assert_int_equal(sinew_node_find(G(), "grp", &grp), 0);
  assert_true(sinew_node_parent(G(), c2).index == grp.index); /* -parentCurve: under b0's parent */
  /* undo takes the handle, effector and curve back and gives the joints their own rotations */
  run("undo;");
  const char *gone[] = {"bentIk", "effector2", "curve2", "curveShape2"};
  for (size_t i = 0; i < 4; i++) {
    sinew_node_t n;
    if (sinew_node_find(G(), gone[i], &n) == 0) fail_msg("%s is still there after undo", gone[i]);
  }
  sinew_plug_t r = plug("b0.r");
  assert_false(sinew_plug_source(G(), &r, NULL));
  expect1("b0.rz", 20 * PI / 180, 1e-12);
}

/* A spline handle as Maya writes it in a file (nlol's tail form): joined after the load,
 * solved, saved without sinew's wiring, and read back to the same pose. */
static void test_spline_ik_file(void **state) {
  (void)state;
  const char *ma =
      "//Maya ASCII 2025 scene\n"
      "requires maya \"2025\";\n"
      "currentUnit -l centimeter -a degree -t film;\n"
      "createNode joint -n \"j0\";\n"
      "createNode joint -n \"j1\" -p \"j0\";\n\tsetAttr \".t\" -type \"double3\" 2 0 0 ;\n"
      "createNode joint -n \"j2\" -p \"j1\";\n\tsetAttr \".t\" -type \"double3\" 2 0 0 ;\n"
      "createNode joint -n \"j3\" -p \"j2\";\n\tsetAttr \".t\" -type \"double3\" 2 0 0 ;\n"
      "createNode joint -n \"j4\" -p \"j3\";\n\tsetAttr \".t\" -type \"double3\" 2 0 0 ;\n"
      "createNode ikEffector -n \"eff\" -p \"j3\";\n\tsetAttr \".v\" no;\n\tsetAttr \".hd\" yes;\n"
      "createNode ikHandle -n \"spineIk\";\n\tsetAttr \".roc\" yes;\n\tsetAttr \".dwut\" 4;\n"
      "createNode transform -n \"crv\";\n"
      "createNode nurbsCurve -n \"crvShape\" -p \"crv\";\n"
      "\tsetAttr \".cc\" -type \"nurbsCurve\" \n\t\t3 1 0 no 3\n\t\t6 0 0 0 1 1 1\n\t\t4\n"
      "\t\t0 0 0\n\t\t3 1 0\n\t\t5 -1 1\n\t\t9 2 1\n\t\t;\n"
      "createNode ikSplineSolver -n \"ikSplineSolver\";\n"
      "connectAttr \"j4.tx\" \"eff.tx\";\nconnectAttr \"j4.ty\" \"eff.ty\";\nconnectAttr \"j4.tz\" \"eff.tz\";\n"
      "connectAttr \"j4.opm\" \"eff.opm\";\n"
      "connectAttr \"j0.msg\" \"spineIk.hsj\";\nconnectAttr \"eff.hp\" \"spineIk.hee\";\n"
      "connectAttr \"ikSplineSolver.msg\" \"spineIk.hsv\";\nconnectAttr \"crvShape.ws\" \"spineIk.ic\";\n";
  FILE *f = fopen("test_spline_ik.ma", "w");
  assert_non_null(f);
  fputs(ma, f);
  fclose(f);
  run("file -f -o \"test_spline_ik.ma\";");
  sinew_node_t h;
  assert_int_equal(sinew_node_find(G(), "spineIk", &h), 0);
  assert_true(sinew_ik_wired(G(), h));
  check_on_curve("crvShape.ws[0]", 1e-6);
  sinew_vec3_t p3 = wpos("j3");
  char *text = save_text();
  if (strstr(text, "sinewIk") || strstr(text, "sikR")) fail_msg("sinew's wiring was written:\n%s", text);
  if (!strstr(text, "connectAttr \"crvShape.ws[0]\" \"spineIk.ic\";") &&
      !strstr(text, "connectAttr \"crvShape.ws\" \"spineIk.ic\";"))
    fail_msg("the curve's connection is missing:\n%s", text);
  f = fopen("test_spline_ik.ma", "w");
  fputs(text, f);
  fclose(f);
  free(text);
  run("file -f -o \"test_spline_ik.ma\";");
  near3(wpos("j3"), p3.x, p3.y, p3.z, 1e-9);
  remove("test_spline_ik.ma");
}

/* Stretch as rigs wire it: curveInfo.arcLength / rest length -> multiplyDivide -> each joint's
 * translateX. The chain grows with the curve, its joints still on it. */
static void test_spline_ik_stretch(void **state) {
  (void)state;
  spine();
  run("curve -d 1 -n line -p 0 0 0 -p 8 0 0; ikHandle -sol ikSplineSolver -sj j0 -ee j4 -c line;"
      "createNode curveInfo -n info; connectAttr lineShape.ws[0] info.ic;"
      "createNode multiplyDivide -n ratio; setAttr ratio.op 2; connectAttr info.al ratio.i1x; setAttr ratio.i2x 8;"
      "createNode multiplyDivide -n bone; connectAttr ratio.ox bone.i1x; setAttr bone.i2x 2;"
      "connectAttr bone.ox j1.tx; connectAttr bone.ox j2.tx; connectAttr bone.ox j3.tx; connectAttr bone.ox j4.tx;");
  near3(wpos("j4"), 8, 0, 0, 1e-9);
  run("curve -r -d 1 -p 0 0 0 -p 16 0 0 lineShape;");
  expect1("info.al", 16, 1e-12);
  near3(wpos("j2"), 8, 0, 0, 1e-9);
  near3(wpos("j4"), 16, 0, 0, 1e-9);
  /* bent: chords are shorter than arcs, so the joints up to j3 lie on the curve and j4 runs
   * a little past its end, along the end tangent 3 (P3 - P2) = (12, 9, 0) */
  run("curve -r -d 3 -p 0 0 0 -p 4 3 0 -p 10 -3 0 -p 14 0 0 lineShape;");
  const char *names[] = {"j0", "j1", "j2", "j3", "j4"};
  for (int k = 0; k < 4; k++) {
    double d = off_curve("lineShape.ws[0]", wpos(names[k]), NULL);
    if (d > 1e-6) fail_msg("%s is %.3g off the stretched curve", names[k], d);
  }
  double al = getd("info.al"), chord = 0;
  for (int k = 0; k < 4; k++) chord += dist(wpos(names[k]), wpos(names[k + 1]));
  near1(chord, al, 1e-5); /* the bones are as long as the curve (multiplyDivide is single precision) */
  sinew_vec3_t e = wpos("j4");
  double past = dist(e, (sinew_vec3_t){14, 0, 0});
  if (!(past > 0 && past < 0.05 * al)) fail_msg("j4 is %.3g past the curve's end", past);
  near3((sinew_vec3_t){(e.x - 14) / past, e.y / past, e.z / past}, 0.8, 0.6, 0, 1e-9);
}

/* omtk's rig_splineik.ma (Maya 2016-2018): five joints 2 apart on a straight degree-1 curve, a
 * skinned cylinder. The spline handle omtk's SplineIK module builds on it keeps the chain where
 * it is; bending the curve bends the spine, its joints on the curve, and the skin follows. */
static double skin_sum(void) {
  sinew_node_t skin;
  if (sinew_node_list_type(G(), "skinCluster", false, &skin, 1) < 1) fail_msg("no skinCluster");
  sinew_plug_t og = sinew_plug_make(skin, sinew_node_attr(G(), skin, "outputGeometry"), 1, (const int32_t[]){0});
  sinew_data_t *d = NULL;
  assert_int_equal(sinew_get_data(G(), &og, &d), SINEW_OK);
  const sinew_mesh_t *m = sinew_mesh_get(d);
  assert_non_null(m);
  double sum = 0;
  for (uint32_t i = 0; i < m->npoints; i++) sum += m->points[i * 3] + 2.0 * m->points[i * 3 + 1] + 3.0 * m->points[i * 3 + 2];
  sinew_data_unref(d);
  return sum;
}

static void test_omtk_rig_splineik(void **state) {
  (void)state;
  char path[1024];
  snprintf(path, sizeof path, "%s/omtk/rig_splineik.ma", SINEW_TEST_DATA_DIR);
  if (sinew_session_open(S, path)) fail_msg("%s: %s", path, sinew_session_errmsg(S));
  static const char *const names[] = {"joint1", "joint2", "joint3", "joint4", "joint5"};
  double skin0 = skin_sum();
  expect1("curveShape1.sp", 1, 0);
  run("ikHandle -sol ikSplineSolver -sj joint1 -ee joint5 -c curve1 -n spineIk;");
  for (int k = 0; k < 5; k++) near3(wpos(names[k]), -4 + 2 * k, 0, 0, 1e-9);
  near1(skin_sum(), skin0, 1e-3);
  /* the spine's controls bend the curve */
  run("curve -r -d 3 -p -4 0 0 -p -1 2 0 -p 1 -2 1 -p 4 0 0 curveShape1;");
  check_chain_on_curve("curveShape1.ws[0]", names, 5, 2, 1e-6);
  if (fabs(skin_sum() - skin0) < 1e-3) fail_msg("the skin did not follow the spine");
  /* and back */
  run("curve -r -d 1 -p -4 0 0 -p 4 0 0 curveShape1;");
  for (int k = 0; k < 5; k++) near3(wpos(names[k]), -4 + 2 * k, 0, 0, 1e-9);
  near1(skin_sum(), skin0, 1e-3);
}

/* ---- motionPath ------------------------------------------------------------------------------------------ */

static void test_motion_path(void **state) {
  (void)state;
  /* a straight path along z, and a Bezier along x whose parameter runs unevenly */
  run("curve -d 1 -n path -p 0 0 0 -p 0 0 10; createNode motionPath -n mp; connectAttr pathShape.ws[0] mp.gp;"
      "createNode transform -n rider; connectAttr mp.ac rider.t; connectAttr mp.r rider.r;"
      "setAttr mp.u 0.3;");
  expect3("rider.t", 0, 0, 3, 1e-12);
  expect3("mp.r", 0, 0, 0, 0); /* follow off: no rotation */
  /* follow, front X, up Y: X along +z, Y up, Z = X x Y = -x: a turn of -90 degrees about y */
  run("setAttr mp.f 1; setAttr mp.fa 0; setAttr mp.ua 1;");
  expect3("mp.r", 0, -PI / 2, 0, 1e-12);
  near3((sinew_vec3_t){wmat("rider").m[0][0], wmat("rider").m[0][1], wmat("rider").m[0][2]}, 0, 0, 1, 1e-12);
  run("setAttr mp.if 1;"); /* inverse front: X along -z, a turn of +90 */
  expect3("mp.r", 0, PI / 2, 0, 1e-12);
  run("setAttr mp.if 0; setAttr mp.ft 90;"); /* a right-handed quarter turn about the front (X = +z) */
  sinew_plug_t om = plug("mp.om");
  sinew_mat4_t m;
  assert_int_equal(sinew_get_matrix(G(), &om, &m), 0);
  near3((sinew_vec3_t){m.m[0][0], m.m[0][1], m.m[0][2]}, 0, 0, 1, 1e-12); /* front unchanged */
  near3((sinew_vec3_t){m.m[1][0], m.m[1][1], m.m[1][2]}, -1, 0, 0, 1e-12); /* Y turned about +z by 90: -x */
  /* the default axes: front Y, up Z; with up vector +y the up row is +y and the side (X) is front x up */
  run("setAttr mp.ft 0; setAttr mp.fa 1; setAttr mp.ua 2; setAttr mp.wu -type double3 0 1 0;");
  assert_int_equal(sinew_get_matrix(G(), &om, &m), 0);
  near3((sinew_vec3_t){m.m[1][0], m.m[1][1], m.m[1][2]}, 0, 0, 1, 1e-12);
  near3((sinew_vec3_t){m.m[2][0], m.m[2][1], m.m[2][2]}, 0, 1, 0, 1e-12);
  near3((sinew_vec3_t){m.m[0][0], m.m[0][1], m.m[0][2]}, -1, 0, 0, 1e-12);
  /* object up: towards a locator's position */
  run("createNode transform -n upObj; setAttr upObj.t -type double3 5 0 3; connectAttr upObj.wm[0] mp.wum;"
      "setAttr mp.wut 1;");
  assert_int_equal(sinew_get_matrix(G(), &om, &m), 0);
  near3((sinew_vec3_t){m.m[2][0], m.m[2][1], m.m[2][2]}, 1, 0, 0, 1e-12);
  /* fraction mode: a fraction of the arc length, not of the parameter. Bezier x: 0 1 2 10 */
  run("curve -d 3 -n bez -p 0 0 0 -p 1 0 0 -p 2 0 0 -p 10 0 0; connectAttr -f bezShape.ws[0] mp.gp; setAttr mp.u 0.5;");
  expect3("mp.ac", 19.0 / 8, 0, 0, 1e-12); /* (0 + 3 + 6 + 10) / 8 */
  run("setAttr mp.fm 1;");
  expect3("mp.ac", 5, 0, 0, 1e-9);
  run("setAttr mp.u 1.5;"); /* clamped to the end */
  expect3("mp.ac", 10, 0, 0, 1e-9);
  /* enums fed any number by a connection fall back to their defaults (front Y, up type vector) */
  run("createNode multiplyDivide -n big; setAttr big.i1x 1e30; connectAttr big.ox mp.fa; connectAttr big.ox mp.wut;");
  assert_int_equal(sinew_get_matrix(G(), &om, &m), 0);
  near3((sinew_vec3_t){m.m[1][0], m.m[1][1], m.m[1][2]}, 1, 0, 0, 1e-9);
  near3((sinew_vec3_t){m.m[2][0], m.m[2][1], m.m[2][2]}, 0, 1, 0, 1e-9);
  near3((sinew_vec3_t){m.m[0][0], m.m[0][1], m.m[0][2]}, 0, 0, 1, 1e-9);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_line),
      cmocka_unit_test_setup_teardown(test_bezier, setup, teardown),
      cmocka_unit_test(test_two_spans),
      cmocka_unit_test(test_rational),
      cmocka_unit_test(test_length),
      cmocka_unit_test(test_bad_curves),
      cmocka_unit_test_setup_teardown(test_setattr_bad_curve, setup, teardown),
      cmocka_unit_test_setup_teardown(test_circle_matches_maya, setup, teardown),
      cmocka_unit_test_setup_teardown(test_shape_world_space, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ma_round_trip, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ma_bad_curve, setup, teardown),
      cmocka_unit_test_setup_teardown(test_curve_command, setup, teardown),
      cmocka_unit_test_setup_teardown(test_curve_command_bad_input, setup, teardown),
      cmocka_unit_test_setup_teardown(test_circle_command, setup, teardown),
      cmocka_unit_test_setup_teardown(test_spline_ik_straight, setup, teardown),
      cmocka_unit_test_setup_teardown(test_spline_ik_follows_curve, setup, teardown),
      cmocka_unit_test_setup_teardown(test_spline_ik_twist, setup, teardown),
      cmocka_unit_test_setup_teardown(test_spline_ik_forward_axis, setup, teardown),
      cmocka_unit_test_setup_teardown(test_spline_ik_root_on_curve, setup, teardown),
      cmocka_unit_test_setup_teardown(test_spline_ik_command_forms, setup, teardown),
      cmocka_unit_test_setup_teardown(test_spline_ik_file, setup, teardown),
      cmocka_unit_test_setup_teardown(test_spline_ik_stretch, setup, teardown),
      cmocka_unit_test_setup_teardown(test_omtk_rig_splineik, setup, teardown),
      cmocka_unit_test_setup_teardown(test_motion_path, setup, teardown),
  };
  return cmocka_run_group_tests_name("curve", tests, NULL, NULL);
}
