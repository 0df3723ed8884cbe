/* tests/test_utility_nodes.c: Maya's utility nodes (nodes/utility.c, docs/rigging.md): every
 * output against values worked out by hand from the formulas (the working is in the comments),
 * the awkward cases (divide by zero, a negative number to a fractional power, condition on equal
 * values, plusMinusAverage with gaps and with no elements, remapValue with one entry, none, and
 * positions out of order), dirt and evaluation limited to the channel that changed, a .ma
 * snippet in Maya's own setAttr forms read through a session, saved and read back, and bad
 * input refused with a message. */
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

#include "sinew/cmds.h"
#include "sinew/sinew.h"
#include "tests/support.h"

#define PI 3.14159265358979323846
#define TOL 1e-6

static sinew_session_t *S;
static char logtext[1 << 14];
static size_t loglen;
static int warnings;

static void logger(void *ud, sinew_log_level_t level, sinew_log_id_t id, const char *msg) {
  (void)ud;
  if (level == SINEW_LOG_WARNING && id == SINEW_LOG_GENERIC) warnings++;
  int n = snprintf(logtext + loglen, sizeof logtext - loglen, "%s\n", msg);
  if (n > 0 && (size_t)n < sizeof logtext - loglen) loglen += (size_t)n;
}

static int setup(void **state) {
  (void)state;
  sinew_session_desc_t d = {.logger = logger};
  assert_int_equal(sinew_session_create(&d, &S), 0);
  loglen = 0;
  logtext[0] = 0;
  warnings = 0;
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

static sinew_plug_t plug(const char *text) {
  sinew_plug_t p;
  if (sinew_plug_parse(sinew_session_graph(S), text, (sinew_node_t){0, 0}, &p)) fail_msg("no plug %s", text);
  return p;
}

static double getd(const char *text) {
  sinew_plug_t p = plug(text);
  double v = NAN;
  if (sinew_get_double(sinew_session_graph(S), &p, &v)) fail_msg("get %s: %s", text, sinew_graph_errmsg(sinew_session_graph(S)));
  return v;
}

static void get3(const char *text, double v[3]) {
  sinew_plug_t p = plug(text);
  if (sinew_get_doubles(sinew_session_graph(S), &p, v, 3, NULL)) fail_msg("get %s", text);
}

static void expect3(const char *text, double x, double y, double z) {
  double v[3];
  get3(text, v);
  if (fabs(v[0] - x) > TOL || fabs(v[1] - y) > TOL || fabs(v[2] - z) > TOL)
    fail_msg("%s = (%.9g %.9g %.9g), expected (%.9g %.9g %.9g)", text, v[0], v[1], v[2], x, y, z);
}

static void expect1(const char *text, double x) {
  double v = getd(text);
  if (fabs(v - x) > TOL) fail_msg("%s = %.9g, expected %.9g", text, v, x);
}

static bool dirty(const char *text) {
  sinew_plug_t p = plug(text);
  return sinew_plug_is_dirty(sinew_session_graph(S), &p);
}

static uint64_t computes(void) {
  sinew_graph_stats_t st;
  sinew_graph_stats(sinew_session_graph(S), &st);
  return st.computes;
}

/* ---- arithmetic -------------------------------------------------------------------------------- */

static void test_multiply_divide(void **state) {
  (void)state;
  run("createNode multiplyDivide -n md;");
  /* defaults: op 1 (multiply), input1 0, input2 1 -> 0 */
  expect3("md.o", 0, 0, 0);
  run("setAttr md.i1 -type float3 2 -3 0.5; setAttr md.i2 -type float3 4 5 -2;");
  expect3("md.o", 8, -15, -1);                        /* 2*4, -3*5, 0.5*-2 */
  run("setAttr md.op 0;");
  expect3("md.o", 2, -3, 0.5);                        /* no operation: input1 */
  run("setAttr md.op 2;");
  expect3("md.o", 0.5, -0.6f, -0.25);                 /* 2/4, -3/5 in float, 0.5/-2 */
  run("setAttr md.op 3;");
  expect3("md.o", 16, -243, 4);                       /* 2^4, (-3)^5 (a whole exponent), 0.5^-2 */
}

static void test_multiply_divide_power_and_zero(void **state) {
  (void)state;
  run("createNode multiplyDivide -n md; setAttr md.op 3;"
      "setAttr md.i1 -type float3 0.5 -8 9; setAttr md.i2 -type float3 -2 0.333333 0.5;");
  /* 0.5^-2 = 4; (-8)^(1/3) has no real result -> 0 with a warning; 9^0.5 = 3 */
  expect3("md.o", 4, 0, 3);
  assert_int_equal(warnings, 1);
  assert_non_null(strstr(logtext, "md: power has no real result; 0 used"));
  run("setAttr md.op 2; setAttr md.i2 -type float3 0 2 0;");
  /* 0.5/0 and 9/0: divide by zero -> 0; -8/2 = -4; the warning is given once per node */
  expect3("md.o", 0, -4, 0);
  assert_int_equal(warnings, 1);
  /* 1/3 is rounded to float as Maya's float output holds it */
  run("setAttr md.i1 -type float3 1 1 1; setAttr md.i2 -type float3 3 3 3;");
  assert_true(getd("md.ox") == (double)(float)(1.0 / 3.0));
}

static void test_condition(void **state) {
  (void)state;
  run("createNode condition -n c;");
  /* defaults: op 0 (==), 0 == 0 -> colorIfTrue (0 0 0) */
  expect3("c.oc", 0, 0, 0);
  run("setAttr c.ct -type float3 1 2 3; setAttr c.cf -type float3 4 5 6; setAttr c.ft 2.5; setAttr c.st 2.5;");
  /* equal values: == and >= and <= are true, != > < are false */
  const double want[6] = {1, 4, 4, 1, 4, 1};
  char cmd[64];
  for (int op = 0; op < 6; op++) {
    snprintf(cmd, sizeof cmd, "setAttr c.op %d;", op);
    run(cmd);
    expect1("c.ocr", want[op]);
  }
  /* 1 vs 2: == F, != T, > F, >= F, < T, <= T */
  run("setAttr c.ft 1; setAttr c.st 2;");
  const double want2[6] = {4, 1, 4, 4, 1, 1};
  for (int op = 0; op < 6; op++) {
    snprintf(cmd, sizeof cmd, "setAttr c.op %d;", op);
    run(cmd);
    expect3("c.oc", want2[op], want2[op] + 1, want2[op] + 2);
  }
  /* A double source 0.1 (addDoubleLinear) against a float 0.1: equal in single precision, as
   * Maya compares its float attributes. */
  run("createNode addDoubleLinear -n a; setAttr a.i1 0.1; connectAttr a.o c.ft; setAttr c.st 0.1; setAttr c.op 0;");
  expect1("c.ocr", 1);
}

static void test_plus_minus_average(void **state) {
  (void)state;
  run("createNode plusMinusAverage -n p;");
  /* no elements: every output 0 */
  expect1("p.o1", 0);
  expect3("p.o3", 0, 0, 0);
  double v[2];
  sinew_plug_t o2 = plug("p.o2");
  assert_int_equal(sinew_get_doubles(sinew_session_graph(S), &o2, v, 2, NULL), 0);
  assert_true(v[0] == 0 && v[1] == 0);
  /* a sparse multi, set out of index order: i1[0] = 1, i1[2] = 10, i1[5] = 4 */
  run("setAttr p.i1[5] 4; setAttr p.i1[0] 1; setAttr p.i1[2] 10;");
  expect1("p.o1", 15);                  /* sum 1 + 10 + 4 */
  run("setAttr p.op 2;");
  expect1("p.o1", -13);                 /* first minus the rest, in index order: 1 - 10 - 4 */
  run("setAttr p.op 3;");
  expect1("p.o1", 5);                   /* 15 / 3 present elements (the gaps do not count) */
  run("setAttr p.op 0;");
  expect1("p.o1", 1);                   /* no operation: the first element */
  /* 3D with a gap, one element with only its y set */
  run("setAttr p.op 2; setAttr p.i3[1] -type float3 1 2 3; setAttr p.i3[4].i3y 7; setAttr p.i3[9] -type float3 -1 -1 -1;");
  expect3("p.o3", 1 - 0 + 1, 2 - 7 + 1, 3 - 0 + 1); /* (1,2,3) - (0,7,0) - (-1,-1,-1) */
  run("setAttr p.op 3;");
  expect3("p.o3", 0, 8.0 / 3, 2.0 / 3);             /* sum (0, 8, 2) over 3 elements */
  /* 2D: one element, subtract gives it back */
  run("setAttr p.op 2; setAttr p.i2[3] -type float2 5 -6;");
  assert_int_equal(sinew_get_doubles(sinew_session_graph(S), &o2, v, 2, NULL), 0);
  assert_true(v[0] == 5 && v[1] == -6);
  /* lanes are independent: the 1D lane still reads 1 - 10 - 4 */
  expect1("p.o1", -13);
  /* removing every element brings the lane back to 0 */
  const char *const els[] = {"p.i1[0]", "p.i1[2]", "p.i1[5]"};
  for (int k = 0; k < 3; k++) {
    sinew_plug_t e = plug(els[k]);
    assert_int_equal(sinew_plug_remove_element(sinew_session_graph(S), &e), 0);
  }
  expect1("p.o1", 0);
}

static void test_reverse_blend_clamp_set_range(void **state) {
  (void)state;
  run("createNode reverse -n r; setAttr r.i -type float3 0.25 1 -2;");
  expect3("r.o", 0.75, 0, 3); /* 1 - i */
  run("createNode blendColors -n b;");
  /* defaults: color1 (1 0 0), color2 (0 0 1), blender 0.5 -> (0.5 0 0.5) */
  expect3("b.op", 0.5, 0, 0.5);
  run("setAttr b.c1 -type float3 10 20 30; setAttr b.c2 -type float3 0 -20 2; setAttr b.b 0.25;");
  expect3("b.op", 2.5, -10, 9); /* c1*0.25 + c2*0.75: 2.5+0, 5-15, 7.5+1.5 */
  run("setAttr b.b 1;");
  expect3("b.op", 10, 20, 30);
  run("createNode clamp -n cl; setAttr cl.mn -type float3 0 -180 5; setAttr cl.mx -type float3 1 180 1;"
      "setAttr cl.ip -type float3 2 -200 3;");
  /* 2 -> max 1; -200 -> min -180; min 5 > max 1: min(max(3, 5), 1) = 1 */
  expect3("cl.op", 1, -180, 1);
  run("createNode setRange -n s; setAttr s.n -type float3 0 10 -1; setAttr s.m -type float3 1 20 1;"
      "setAttr s.on -type float3 0 0 3; setAttr s.om -type float3 10 4 3; setAttr s.v -type float3 2.5 8 7;");
  /* x: 0 + (2.5-0)*(1-0)/10 = 0.25; y: clamped to 4 -> 10 + 4*10/4 = 20; z: empty old range -> min -1 */
  expect3("s.o", 0.25, 20, -1);
  run("setAttr s.on -type float3 10 0 3; setAttr s.om -type float3 0 4 3; setAttr s.v -type float3 -5 8 7;");
  /* reversed old range [10, 0]: -5 clamps to 0 -> 0 + (0-10)*(1-0)/(0-10) = 1 */
  expect1("s.ox", 1);
  run("createNode multDoubleLinear -n m; createNode addDoubleLinear -n a;");
  expect1("m.o", 0); /* defaults 0 * 0 */
  run("setAttr m.i1 -1.5; setAttr m.i2 4; setAttr a.i1 -1.5; setAttr a.i2 4;");
  expect1("m.o", -6);
  expect1("a.o", 2.5);
}

/* ---- vectors ----------------------------------------------------------------------------------- */

static void test_distance_between(void **state) {
  (void)state;
  run("createNode distanceBetween -n d; setAttr d.p1 -type double3 1 2 3; setAttr d.p2 -type double3 4 6 3;");
  expect1("d.d", 5); /* |(3, 4, 0)| */
  /* im1 translates by (10 0 0): (11 2 3) - (4 6 3) = (7 -4 0) -> sqrt 65 */
  run("setAttr d.im1 -type matrix 1 0 0 0 0 1 0 0 0 0 1 0 10 0 0 1;");
  expect1("d.d", sqrt(65.0));
  /* from two transforms' world matrices, points at their origins */
  run("createNode transform -n t1; createNode transform -n t2; setAttr t2.t 0 3 4;"
      "connectAttr t1.wm[0] d.im1; connectAttr t2.wm[0] d.im2; setAttr d.p1 -type double3 0 0 0; setAttr d.p2 -type double3 0 0 0;");
  expect1("d.d", 5);
  run("setAttr t1.t 0 3 4;");
  expect1("d.d", 0);
}

static void test_vector_product(void **state) {
  (void)state;
  run("createNode vectorProduct -n v; setAttr v.i1 -type float3 1 2 3; setAttr v.i2 -type float3 4 5 6;");
  expect3("v.o", 32, 32, 32); /* default op 1, dot 4 + 10 + 18 */
  run("setAttr v.no yes;");
  double c = 32 / (sqrt(14.0) * sqrt(77.0)); /* the cosine */
  expect3("v.o", c, c, c);
  run("setAttr v.op 2; setAttr v.no no;");
  expect3("v.o", -3, 6, -3); /* (2*6-3*5, 3*4-1*6, 1*5-2*4) */
  run("setAttr v.no yes;");
  expect3("v.o", -1 / sqrt(6.0), 2 / sqrt(6.0), -1 / sqrt(6.0));
  /* matrix: scale 2 then translate (10 20 30) (row vectors: translation in the last row) */
  run("setAttr v.no no; setAttr v.m -type matrix 2 0 0 0 0 2 0 0 0 0 2 0 10 20 30 1; setAttr v.op 3;");
  expect3("v.o", 2, 4, 6);    /* vector: no translation */
  run("setAttr v.op 4;");
  expect3("v.o", 12, 24, 36); /* point */
  /* op 0 with normalizeOutput (omtk's getKneeDirectionNormalized): input1 normalised */
  run("setAttr v.op 0; setAttr v.no yes; setAttr v.i1 -type float3 3 0 4;");
  expect3("v.o", 0.6, 0, 0.8);
  /* a zero vector cannot be normalised: it stays zero */
  run("setAttr v.i1 -type float3 0 0 0;");
  expect3("v.o", 0, 0, 0);
}

static void test_angle_between(void **state) {
  (void)state;
  run("createNode angleBetween -n ab;");
  /* defaults (1 0 0) to (0 1 0): 90 degrees about +Z; Euler (0 0 90) */
  expect1("ab.a", PI / 2);
  expect3("ab.ax", 0, 0, 1);
  expect3("ab.eu", 0, 0, PI / 2);
  /* (0 0 2) to (0 3 3): 45 degrees about -X */
  run("setAttr ab.v1 -type double3 0 0 2; setAttr ab.v2 -type double3 0 3 3;");
  expect1("ab.a", PI / 4);
  expect3("ab.ax", -1, 0, 0);
  expect3("ab.eu", -PI / 4, 0, 0);
  /* opposite vectors: 180 degrees about an axis perpendicular to v1 ((1 0 0) x (0 1 0) = +Z) */
  run("setAttr ab.v1 -type double3 1 0 0; setAttr ab.v2 -type double3 -5 0 0;");
  expect1("ab.a", PI);
  expect3("ab.ax", 0, 0, 1);
  /* the whole axisAngle compound is computed at once: axis and angle come out clean */
  run("setAttr ab.v2 -type double3 0 7 0;");
  sinew_plug_t axa = plug("ab.axa");
  assert_true(sinew_plug_is_dirty(sinew_session_graph(S), &axa));
  assert_int_equal(sinew_evaluate(sinew_session_graph(S), &axa), 0);
  assert_false(dirty("ab.axa") || dirty("ab.a") || dirty("ab.axz"));
  expect1("ab.a", PI / 2);
  expect3("ab.ax", 0, 0, 1);
  /* a zero vector: angle 0 about (0 0 1) */
  run("setAttr ab.v2 -type double3 0 0 0;");
  expect1("ab.a", 0);
  expect3("ab.eu", 0, 0, 0);
}

/* ---- remapValue -------------------------------------------------------------------------------- */

static void test_remap_value_interpolations(void **state) {
  (void)state;
  run("createNode remapValue -n r;");
  expect1("r.ov", 0); /* no entries: 0 (then outputMin + 0 * range = 0) */
  /* one entry: its value everywhere */
  run("setAttr r.vl[3].vlp 0.4; setAttr r.vl[3].vlfv 0.7; setAttr r.vl[3].vli 1; setAttr r.i 0.1;");
  expect1("r.ov", 0.7f);
  run("setAttr r.i 0.9;");
  expect1("r.ov", 0.7f);
  /* entries out of order: index 0 at position 1 (value 1), index 3 at 0.4 (0.7), index 7 at 0 (0)
   * sorted by position: (0, 0) (0.4, 0.7) (1, 1) */
  run("setAttr r.vl[0].vlp 1; setAttr r.vl[0].vlfv 1; setAttr r.vl[7].vlp 0; setAttr r.vl[7].vlfv 0;"
      "setAttr r.vl[7].vli 1;");
  run("setAttr r.i 0.2;");
  expect1("r.ov", 0.35); /* linear from (0,0) to (0.4,0.7): u = 0.5 */
  run("setAttr r.i 0.7;");
  expect1("r.ov", 0.85); /* linear (index 3's interp) from 0.7 to 1: u = 0.5 */
  run("setAttr r.i -3;");
  expect1("r.ov", 0); /* before the first entry */
  run("setAttr r.i 5;");
  expect1("r.ov", 1); /* after the last */
  /* None holds the left value */
  run("setAttr r.vl[3].vli 0; setAttr r.i 0.7;");
  expect1("r.ov", 0.7f);
  /* Smooth: u = 0.5 -> weights 0.5 / 0.5: 0.85; u = 0.25: a = 2/64 - 3/16 + 1 = 0.84375,
   * b = 0.15625 -> 0.7*0.84375 + 1*0.15625 = 0.746875 */
  run("setAttr r.vl[3].vli 2;");
  expect1("r.ov", 0.85);
  run("setAttr r.i 0.55;");
  expect1("r.ov", 0.7f * 0.84375 + 0.15625);
  /* Spline, segment (0.4,0.7)-(1,1) at u = 0.25 (x = 0.55):
   * slopes: left segment 0.7/0.4 = 1.75, this one 0.3/0.6 = 0.5; t1 = (1.75 + 0.5)/2 = 1.125;
   * t2 = 0.5 (the last entry: one-sided); h00 = 0.84375, h01 = 0.15625,
   * h10 = u^3 - 2u^2 + u = 0.015625 - 0.125 + 0.25 = 0.140625, h11 = u^3 - u^2 = -0.046875;
   * v = 0.7*0.84375 + 1*0.15625 + 0.140625*1.125*0.6 - 0.046875*0.5*0.6
   *   = 0.590625 + 0.15625 + 0.094921875 - 0.0140625 = 0.827734375 */
  run("setAttr r.vl[3].vli 3;");
  double p = 0.4f, v = 0.7f, u = (0.55 - p) / (1 - p), u2 = u * u, u3 = u2 * u;
  double t1 = 0.5 * (v / p + (1 - v) / (1 - p)), t2 = (1 - v) / (1 - p);
  double want = (2 * u3 - 3 * u2 + 1) * v + (3 * u2 - 2 * u3) + (u3 - 2 * u2 + u) * t1 * (1 - p) +
                (u3 - u2) * t2 * (1 - p);
  assert_true(fabs(want - 0.827734375) < 1e-6); /* the float positions change it by less */
  expect1("r.ov", want);
  /* input and output ranges: i in [10, 20] -> x = (15-10)/10 = 0.5 -> (spline at x=0.5, u=1/6)
   * rather use linear: set index 3 linear: ramp(0.5) = 0.7 + (0.1/0.6)*0.3 = 0.75;
   * output [2, 6]: 2 + 0.75*4 = 5 */
  run("setAttr r.vl[3].vli 1; setAttr r.imn 10; setAttr r.imx 20; setAttr r.i 15; setAttr r.omn 2; setAttr r.omx 6;");
  expect1("r.ov", 2 + (0.7f + (0.5 - 0.4f) / (1 - 0.4f) * (1 - 0.7f)) * 4);
  /* an empty input range is a step at inputMin: i < imn -> x = 0, else x = 1 */
  run("setAttr r.imx 10; setAttr r.i 9;");
  expect1("r.ov", 2); /* ramp(0) = 0 -> 2 */
  run("setAttr r.i 10;");
  expect1("r.ov", 6); /* ramp(1) = 1 -> 6 */
}

static void test_remap_value_color(void **state) {
  (void)state;
  run("createNode remapValue -n r;"
      "setAttr r.cl[0].clp 0; setAttr r.cl[0].clc -type float3 0 0 1; setAttr r.cl[0].cli 1;"
      "setAttr r.cl[1].clp 1; setAttr r.cl[1].clc -type float3 1 0.5 0; setAttr r.cl[1].cli 1;"
      "setAttr r.i 0.25;");
  expect3("r.oc", 0.25, 0.125, 0.75); /* linear: (0 0 1) + 0.25 ((1 0.5 0) - (0 0 1)) */
  /* the output range applies to the colour too: 1 + c * (3 - 1) */
  run("setAttr r.omn 1; setAttr r.omx 3;");
  expect3("r.oc", 1.5, 1.25, 2.5);
  /* the value ramp is empty: outValue is outputMin */
  expect1("r.ov", 1);
}

static void test_choice_and_math_nodes(void **state) {
  (void)state;
  run("createNode choice -n ch; setAttr ch.i[0] 10; setAttr ch.i[2] 30;");
  expect1("ch.o", 10);
  run("setAttr ch.s 2;");
  expect1("ch.o", 30);
  run("setAttr ch.s 1;");
  expect1("ch.o", 0); /* no element 1 */
  /* generic inputs: a triple and a matrix pass through as they are; the output takes the
   * shape of the selected input */
  run("createNode transform -n ct; setAttr ct.t 1 2 3; setAttr ct.r 90 0 0;"
      "connectAttr ct.t ch.i[3]; connectAttr ct.wm[0] ch.i[4];"
      "createNode multiplyDivide -n chm; connectAttr ch.o chm.i1;"
      "createNode transform -n ct2; connectAttr ch.o ct2.t;");
  run("setAttr ch.s 3;");
  expect3("chm.i1", 1, 2, 3);
  expect3("ct2.t", 1, 2, 3);
  {
    sinew_plug_t o = plug("ch.o");
    double v[16];
    size_t n = 0;
    assert_int_equal(sinew_get_generic(sinew_session_graph(S), &o, v, 16, &n), 0);
    assert_int_equal(n, 3);
    run("setAttr ch.s 4;");
    assert_int_equal(sinew_get_generic(sinew_session_graph(S), &o, v, 16, &n), 0);
    assert_int_equal(n, 16);
    /* rotateX 90 degrees, translate (1,2,3), row vectors: rows (1 0 0 0) (0 0 1 0) (0 -1 0 0)
     * (1 2 3 1) */
    const double want[16] = {1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 1, 2, 3, 1};
    for (int k = 0; k < 16; k++) assert_true(fabs(v[k] - want[k]) < TOL);
    /* a triple destination fed 16 numbers takes the first three */
    expect3("chm.i1", 1, 0, 0);
    /* back to a single number: the compound destinations read it and then zeros */
    run("setAttr ch.s 0;");
    assert_int_equal(sinew_get_generic(sinew_session_graph(S), &o, v, 16, &n), 0);
    assert_int_equal(n, 1);
    assert_true(fabs(v[0] - 10) < TOL);
    expect3("chm.i1", 10, 0, 0);
  }
  run("createNode multiply -n mu;");
  expect1("mu.o", 0); /* no inputs */
  run("setAttr mu.i[0] -1; setAttr mu.i[4] 2.5; setAttr mu.i[2] 4;");
  expect1("mu.o", -10);
  run("createNode sum -n su; setAttr su.i[3] 1.5; setAttr su.i[0] -4;");
  expect1("su.o", -2.5);
  run("createNode subtract -n sb; setAttr sb.i1 3; setAttr sb.i2 5;");
  expect1("sb.o", -2); /* input1 - input2 */
  run("createNode divide -n dv; setAttr dv.i1 3;");
  expect1("dv.o", 3);  /* input2 defaults to 1 */
  run("setAttr dv.i2 -4;");
  expect1("dv.o", -0.75);
  run("setAttr dv.i2 0;");
  expect1("dv.o", 0);  /* divide by zero: 0 and a warning */
  assert_int_equal(warnings, 1);
  run("createNode floatConstant -n fc; setAttr fc._f 0.45;");
  expect1("fc.of", 0.45f);
}

/* ---- dirt and evaluation stay in the channel that changed ------------------------------------- */

/* floatMath and floatCondition (lookdevKit): the operation numbers Maya-written files use. */
static void test_float_math(void **state) {
  (void)state;
  run("createNode floatMath -n fm; createNode floatCondition -n fc;");
  expect1("fm.of", 0 + 1); /* defaults: 0 + 1 */
  run("setAttr fm._fa 6; setAttr fm._fb 4;");
  const double want[] = {6 + 4, 6 - 4, 6 * 4, 6.0 / 4, 4, 6, 1296 /* 6^4 */};
  for (int op = 0; op < 7; op++) {
    char mel[64];
    snprintf(mel, sizeof mel, "setAttr fm._cnd %d;", op);
    run(mel);
    expect1("fm.of", want[op]);
  }
  /* as Maya writes a "halfLength" node: `setAttr -l on "._fb" -0.5; setAttr "._cnd" 2;` */
  run("setAttr -l on fm._fb -0.5; setAttr fm._cnd 2;");
  expect1("fm.of", -3);
  /* divide by zero: 0 and a warning, as the other utility nodes */
  run("setAttr -l off fm._fb; setAttr fm._fb 0; setAttr fm._cnd 3;");
  int before = warnings;
  expect1("fm.of", 0);
  assert_true(warnings > before);
  /* floatCondition: condition ? floatA : floatB (floatB defaults to 1) */
  expect1("fc.of", 1);
  run("setAttr fc._fa 7; setAttr fc._cnd 1;");
  expect1("fc.of", 7);
  run("connectAttr fm.of fc._fb; setAttr fc._cnd 0; setAttr fm._cnd 0; setAttr fm._fb 2;");
  expect1("fc.of", 8);
  assert_int_not_equal(run_rc("setAttr fm._cnd 7;"), 0); /* no eighth operation */
}

static void test_dirty_minimal(void **state) {
  (void)state;
  run("createNode multiplyDivide -n md; setAttr md.i1 -type float3 1 2 3; setAttr md.i2 -type float3 4 5 6;"
      "createNode plusMinusAverage -n p; setAttr p.i3[0] -type float3 1 2 3; setAttr p.i3[1] -type float3 1 1 1;"
      "setAttr p.i1[0] 5;");
  expect3("md.o", 4, 10, 18);
  expect3("p.o3", 2, 3, 4);
  expect1("p.o1", 5);
  run("setAttr md.i1x 7;");
  assert_true(dirty("md.ox"));
  assert_false(dirty("md.oy"));
  assert_false(dirty("md.oz"));
  sinew_graph_reset_stats(sinew_session_graph(S));
  expect3("md.o", 28, 10, 18); /* reading the whole output computes only outputX */
  assert_int_equal(computes(), 1);
  /* input2Y dirties outputY alone */
  run("setAttr md.i2y 0.5;");
  assert_false(dirty("md.ox"));
  assert_true(dirty("md.oy"));
  /* the operation dirties every channel */
  expect1("md.oy", 1);
  run("setAttr md.op 2;");
  assert_true(dirty("md.ox") && dirty("md.oy") && dirty("md.oz"));
  /* plusMinusAverage: one child of one element reaches only its lane's channel */
  run("setAttr p.i3[1].i3y 10;");
  assert_false(dirty("p.o3x"));
  assert_true(dirty("p.o3y"));
  assert_false(dirty("p.o3z"));
  assert_false(dirty("p.o1"));
  sinew_graph_reset_stats(sinew_session_graph(S));
  expect3("p.o3", 2, 12, 4);
  assert_int_equal(computes(), 1);
  /* a second read computes nothing */
  sinew_graph_reset_stats(sinew_session_graph(S));
  expect3("p.o3", 2, 12, 4);
  expect1("p.o1", 5);
  assert_int_equal(computes(), 0);
  /* condition: an unchosen colour still dirties only its own channel */
  run("createNode condition -n c; setAttr c.ct -type float3 1 2 3;");
  expect3("c.oc", 1, 2, 3);
  run("setAttr c.cfg 9;");
  assert_false(dirty("c.ocr"));
  assert_true(dirty("c.ocg"));
}

/* ---- a .ma snippet in Maya's forms, saved and read back ---------------------------------------- */

static const char *const SNIPPET =
    "createNode multiplyDivide -n \"md\";\n"
    "\tsetAttr \".op\" 3;\n"
    "\tsetAttr \".i1\" -type \"float3\" 2.7182817 0 0 ;\n"
    "createNode condition -n \"cond\";\n"
    "\tsetAttr \".op\" 4;\n"
    "\tsetAttr \".ct\" -type \"float3\" 180 0 0 ;\n"
    "\tsetAttr \".cf\" -type \"float3\" -180 1 1 ;\n"
    "createNode plusMinusAverage -n \"pma\";\n"
    "\tsetAttr \".op\" 2;\n"
    "\tsetAttr -s 2 \".i1[0:1]\"  1 0;\n"
    "\tsetAttr -s 2 \".i3\";\n"
    "createNode remapValue -n \"rmv\";\n"
    "\tsetAttr -s 3 \".vl[0:2]\"  0 0 1 0.5 1 1 1 0 0;\n"
    "\tsetAttr -s 2 \".cl\";\n"
    "\tsetAttr \".cl[0].clp\" 0;\n"
    "\tsetAttr \".cl[0].clc\" -type \"float3\" 0 0 0 ;\n"
    "\tsetAttr \".cl[0].cli\" 1;\n"
    "\tsetAttr \".cl[1].clp\" 1;\n"
    "\tsetAttr \".cl[1].clc\" -type \"float3\" 1 1 1 ;\n"
    "\tsetAttr \".cl[1].cli\" 1;\n"
    "createNode vectorProduct -n \"vp\";\n"
    "\tsetAttr \".op\" 0;\n"
    "\tsetAttr \".no\" yes;\n"
    "createNode clamp -n \"clp\";\n"
    "\tsetAttr \".mn\" -type \"float3\" 0 -180 0 ;\n"
    "\tsetAttr \".mx\" -type \"float3\" 1 180 1 ;\n"
    "createNode setRange -n \"sr\";\n"
    "\tsetAttr \".om\" -type \"float3\" 1 1 1 ;\n"
    "createNode multiply -n \"mul\";\n"
    "\tsetAttr -s 2 \".i[0:1]\"  -1 0;\n"
    "createNode floatConstant -n \"fc\";\n"
    "\tsetAttr \"._f\" 0.44999998807907104;\n"
    "createNode transform -n \"ctrl\";\n"
    "\taddAttr -ci true -k true -sn \"roll\" -ln \"roll\" -at \"double\";\n"
    "connectAttr \"md.ox\" \"cond.st\";\n"
    "connectAttr \"ctrl.roll\" \"rmv.i\";\n"
    "connectAttr \"ctrl.roll\" \"mul.i[1]\";\n"
    "connectAttr \"ctrl.roll\" \"pma.i1[1]\";\n"
    "connectAttr \"ctrl.t\" \"vp.i1\";\n"
    "connectAttr \"ctrl.t\" \"clp.ip\";\n"
    "connectAttr \"ctrl.t\" \"sr.v\";\n";

/* The values the snippet gives with ctrl.roll = 0.25 and ctrl.t = (3 -400 4). */
static void check_snippet_values(void) {
  run("setAttr ctrl.roll 0.25; setAttr ctrl.t 3 -400 4;");
  expect1("md.ox", (double)2.7182817f);           /* e^1 (input2 default 1) */
  expect1("cond.ocr", 180);                       /* ft 0 < st e: true */
  expect1("pma.o1", 0.75);                        /* 1 - roll */
  expect1("rmv.ov", 0.5);                         /* (0,0) linear to (0.5,1): 0.25 -> 0.5 */
  expect3("rmv.oc", 0.25, 0.25, 0.25);            /* black to white, linear */
  double len = sqrt(9 + 160000 + 16.0);          /* op 0 normalised: t / |t| */
  expect3("vp.o", 3 / len, -400 / len, 4 / len);
  expect3("clp.op", 1, -180, 1);                  /* (3 -400 4) clamped to [0 1] [-180 180] [0 1] */
  expect3("sr.o", 0, 0, 0);                       /* min and max 0: everything maps to 0 */
  expect1("mul.o", -0.25);                        /* -1 * roll */
  expect1("fc.of", 0.44999998807907104);
}

static void test_ma_snippet_round_trip(void **state) {
  (void)state;
  run(SNIPPET);
  sinew_session_stats_t st;
  sinew_session_stats(S, &st);
  assert_int_equal(st.placeholder_nodes, 0);
  assert_int_equal(st.raw_values, 0);
  assert_int_equal(st.failed_commands, 0);
  check_snippet_values();
  /* save, then read the saved text into a new scene */
  char path[128];
  snprintf(path, sizeof path, "/tmp/sinew-test-utility-%d.ma", (int)getpid());
  assert_int_equal(sinew_session_save(S, path), 0);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  static char text[1 << 16];
  size_t len = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[len] = 0;
  /* the forms Maya writes come back */
  assert_non_null(strstr(text, "createNode remapValue -n \"rmv\";"));
  assert_non_null(strstr(text, "setAttr -s 3 \".vl[0:2]\" 0 0 1 0.5 1 1 1 0 0;"));
  assert_non_null(strstr(text, "setAttr \".i1[0]\" 1;")); /* i1[1] is connected */
  assert_non_null(strstr(text, "setAttr \".no\" yes;"));
  assert_non_null(strstr(text, "setAttr \"._f\""));
  assert_null(strstr(text, "setAttr \".ox\"")); /* outputs are not written */
  assert_int_equal(sinew_session_open(S, path), 0);
  remove(path);
  sinew_session_stats(S, &st);
  assert_int_equal(st.placeholder_nodes, 0);
  assert_int_equal(st.failed_commands, 0);
  check_snippet_values();
}

/* ---- a real rig ------------------------------------------------------------------------------- */

/* nlol's digitigrade leg (tests/data/nlol): the foot-roll chain of utility nodes evaluates.
 *   bend = ikAnkleLeg_left_ctrl.rollToeBendAngle (default -35), roll = ...ctrl.roll
 *   legFootToeRemapValueDouble (multiplyDivide, i2 = 2 1 1): ox = 2 bend -> remapValue.imx
 *   legFootToeRoll (remapValue, ramp (0,0) (0.5,1) (1,0) linear): i = roll, omx = bend
 *   leg180Switch (condition, op <, ct 180, cf -180): ft = bend, st = 0
 *   leg180Invert (multiplyDivide, i2 = -1 1 1): ox = -ocr
 *   leg180Difference (plusMinusAverage, sum): o1 = -ocr + bend */
static void test_real_rig_foot_roll(void **state) {
  (void)state;
  const char *path = SINEW_TEST_DATA_DIR "/nlol/standalone_modules_digitigrade_leg_mod_example.ma";
  if (sinew_session_open(S, path)) fail_msg("%s: %s", path, sinew_session_errmsg(S));
  /* as saved: bend -35, roll 0 -> imx -70, x = 0 -> ov 0; -35 < 0 -> 180 -> -180 -> -215 */
  expect1("legFootToeRoll_left_remapValue.imx", -70);
  expect1("legFootToeRoll_left_remapValue.ov", 0);
  expect1("leg180Switch_left_condition.ocr", 180);
  expect1("leg180Difference_left_plusMinusAverage.o1", -215);
  /* roll -17.5: x = -17.5 / -70 = 0.25 -> ramp 0.5 -> ov = 0.5 * -35 = -17.5 */
  run("setAttr ikAnkleLeg_left_ctrl.roll -17.5;");
  expect1("legFootToeRoll_left_remapValue.ov", -17.5);
  /* bend 40: imx 80, omx 40; roll 20: x = 0.25 -> ov 20; the condition flips (40 < 0 false):
   * ocr -180 -> invert 180 -> 180 + 40 = 220 */
  run("setAttr -l false ikAnkleLeg_left_ctrl.rollToeBendAngle; setAttr ikAnkleLeg_left_ctrl.rollToeBendAngle 40;"
      "setAttr ikAnkleLeg_left_ctrl.roll 20;"); /* the rig locks bend */
  expect1("legFootToeRoll_left_remapValue.imx", 80);
  expect1("legFootToeRoll_left_remapValue.ov", 20);
  expect1("leg180Switch_left_condition.ocr", -180);
  expect1("leg180Difference_left_plusMinusAverage.o1", 220);
  /* roll 60: x = 0.75, on the falling half of the ramp: 1 - 0.5 = 0.5 -> 20 */
  run("setAttr ikAnkleLeg_left_ctrl.roll 60;");
  expect1("legFootToeRoll_left_remapValue.ov", 20);
}

/* The same rig's FK/IK rotation switch goes through generic unitConversions carrying triples:
 *   fkAnkleLeg_left_jnt.r -> unitConversion10 (cf 57.29578) -> ankleLegRot_left_blendColors.c1
 *   ikAnkleLeg_left_jnt.r -> unitConversion11 (cf 57.29578) -> ...c2
 *   legSwch_left_ctrl.fkIkBlend -> ...b;  ...op -> unitConversion12 (cf 0.01745329) -> foot_left_jnt.r
 * Every unitConversion of the file is connected at both ends (none kept as text). The two joints'
 * rotations come from constraints sinew keeps as placeholders here, so the test takes those
 * connections away and turns the joints itself. */
static void test_real_rig_rotation_switch(void **state) {
  (void)state;
  const char *path = SINEW_TEST_DATA_DIR "/nlol/standalone_modules_digitigrade_leg_mod_example.ma";
  if (sinew_session_open(S, path)) fail_msg("%s: %s", path, sinew_session_errmsg(S));
  sinew_graph_t *g = sinew_session_graph(S);
  assert_null(strstr(logtext, "unitConversion1.o -> upperLegRot_left_blendColors.c1 kept as text"));
  sinew_node_t ucs[64];
  size_t nuc = sinew_node_list_type(g, "unitConversion", false, ucs, 64);
  assert_int_equal(nuc, 24); /* the file's 24 */
  for (size_t k = 0; k < nuc; k++) {
    sinew_plug_t in, out, src, dsts[4];
    assert_int_equal(sinew_plug_parse_attr(g, ucs[k], "i", &in), 0);
    assert_int_equal(sinew_plug_parse_attr(g, ucs[k], "o", &out), 0);
    if (!sinew_plug_source(g, &in, &src)) fail_msg("%s.i has no source", sinew_node_name(g, ucs[k]));
    if (sinew_plug_destinations(g, &out, dsts, 4) < 1) fail_msg("%s.o feeds nothing", sinew_node_name(g, ucs[k]));
  }
  run("disconnectAttr fkAnkleLeg_left_jntParentConstraint.crx fkAnkleLeg_left_jnt.rx;"
      "disconnectAttr fkAnkleLeg_left_jntParentConstraint.cry fkAnkleLeg_left_jnt.ry;"
      "disconnectAttr fkAnkleLeg_left_jntParentConstraint.crz fkAnkleLeg_left_jnt.rz;"
      "disconnectAttr ikAnkleLeg_left_jntOrientConstraint.crx ikAnkleLeg_left_jnt.rx;"
      "disconnectAttr ikAnkleLeg_left_jntOrientConstraint.cry ikAnkleLeg_left_jnt.ry;"
      "disconnectAttr ikAnkleLeg_left_jntOrientConstraint.crz ikAnkleLeg_left_jnt.rz;"
      "setAttr fkAnkleLeg_left_jnt.r 0 0 0; setAttr ikAnkleLeg_left_jnt.r 0 0 0;"
      "setAttr legSwch_left_ctrl.fkIkBlend 0.25;");
  expect3("foot_left_jnt.r", 0, 0, 0);
  sinew_plug_t fm = plug("foot_left_jnt.m"), fwm = plug("foot_left_jnt.wm[0]");
  sinew_mat4_t m0, w0, m1, w1;
  assert_int_equal(sinew_get_matrix(g, &fm, &m0), 0);
  assert_int_equal(sinew_get_matrix(g, &fwm, &w0), 0);
  /* FK (10, 20, 30) degrees, IK (-4, 8, 2), blender 0.25 (color1 = FK):
   * op = 0.25 (10, 20, 30) + 0.75 (-4, 8, 2) = (2.5 - 3, 5 + 6, 7.5 + 1.5) = (-0.5, 11, 9) */
  run("setAttr fkAnkleLeg_left_jnt.r 10 20 30; setAttr ikAnkleLeg_left_jnt.r -4 8 2;");
  sinew_plug_t uo = plug("unitConversion10.o");
  double v[16];
  size_t n = 0;
  assert_int_equal(sinew_get_generic(g, &uo, v, 16, &n), 0);
  assert_int_equal(n, 3); /* radians * 57.29578: the degrees */
  assert_true(fabs(v[0] - 10) < 1e-9 && fabs(v[1] - 20) < 1e-9 && fabs(v[2] - 30) < 1e-9);
  expect3("ankleLegRot_left_blendColors.op", -0.5, 11, 9);
  const double d2r = 0.017453292519943295;
  expect3("foot_left_jnt.r", -0.5 * d2r, 11 * d2r, 9 * d2r);
  /* the joint it drives: only rz now (FK (0, 0, 40), IK 0: op = (0, 0, 10)). A joint's local
   * matrix is S R JO IS T (row vectors); with the foot's scale 1 the rotation multiplies from the
   * left: rows 0-2 of m become Rz(10) * rows of m0, i.e. row0 = c row0 + s row1,
   * row1 = -s row0 + c row1, row2 and the translation row unchanged. */
  run("setAttr fkAnkleLeg_left_jnt.r 0 0 40; setAttr ikAnkleLeg_left_jnt.r 0 0 0;");
  expect3("foot_left_jnt.r", 0, 0, 10 * d2r);
  assert_int_equal(sinew_get_matrix(g, &fm, &m1), 0);
  assert_int_equal(sinew_get_matrix(g, &fwm, &w1), 0);
  double c = cos(10 * d2r), sn = sin(10 * d2r);
  for (int k = 0; k < 4; k++) {
    assert_true(fabs(m1.m[0][k] - (c * m0.m[0][k] + sn * m0.m[1][k])) < 1e-9);
    assert_true(fabs(m1.m[1][k] - (-sn * m0.m[0][k] + c * m0.m[1][k])) < 1e-9);
    assert_true(fabs(m1.m[2][k] - m0.m[2][k]) < 1e-9);
    assert_true(fabs(m1.m[3][k] - m0.m[3][k]) < 1e-9);
  }
  /* and its world matrix turned: the world position stays (the rotation is about the joint) */
  assert_true(fabs(w1.m[0][0] - w0.m[0][0]) > 1e-3 || fabs(w1.m[0][1] - w0.m[0][1]) > 1e-3);
  for (int k = 0; k < 3; k++) assert_true(fabs(w1.m[3][k] - w0.m[3][k]) < 1e-6);
  /* blender 1: FK only, op = (0, 0, 40) */
  run("setAttr legSwch_left_ctrl.fkIkBlend 1;");
  expect3("foot_left_jnt.r", 0, 0, 40 * d2r);
}

/* The whole FK path with the file's own constraints: the animator turns the FK ankle control
 * 40 degrees about Z; its parentConstraint turns fkAnkleLeg_left_jnt (the control's and the
 * joint's frames line up at rest, so rz 40); with fkIkBlend 1 the blend passes it on, and the
 * skinned foot_left_jnt turns by 40 degrees. blendColors is float3, so 1e-6. */
static void test_real_rig_fk_control_moves_foot(void **state) {
  (void)state;
  const char *path = SINEW_TEST_DATA_DIR "/nlol/standalone_modules_digitigrade_leg_mod_example.ma";
  if (sinew_session_open(S, path)) fail_msg("%s: %s", path, sinew_session_errmsg(S));
  run("setAttr legSwch_left_ctrl.fkIkBlend 1;");
  double r0[3], r1[3];
  get3("foot_left_jnt.r", r0);
  for (int k = 0; k < 3; k++) assert_true(fabs(r0[k]) < 1e-6); /* at rest */
  run("setAttr fkAnkleLeg_left_ctrl.rz 40;");
  get3("foot_left_jnt.r", r1);
  const double d2r = 0.017453292519943295;
  assert_true(fabs(r1[0]) < 1e-6 && fabs(r1[1]) < 1e-6 && fabs(r1[2] - 40 * d2r) < 1e-6);
  expect3("ankleLegRot_left_blendColors.op", 0, 0, 40);
}

/* getAttr's numbers as a list. */
static size_t get_list(const char *mel, double *out, size_t cap) {
  sinew_value_t v = {0};
  if (sinew_session_run(S, mel, strlen(mel), "test", &v)) fail_msg("%s: %s", mel, sinew_session_errmsg(S));
  size_t n = sinew_value_count(&v);
  for (size_t i = 0; i < n && i < cap; i++) out[i] = sinew_value_double_at(&v, i);
  sinew_value_clear(&v);
  return n;
}

/* Commands with generic unitConversions: connectAttr of an angle triple to a plain triple (and
 * back) puts a unitConversion carrying the triple between them, as Maya does; a scalar still gets
 * its own; setAttr -type double3 / a plain number; getAttr prints every number; saving writes
 * the typed form and reading it back gives the same numbers. */
static void test_unit_conversion_triples(void **state) {
  (void)state;
  run("createNode joint -n j; setAttr j.r 90 -45 30; createNode blendColors -n bc; setAttr bc.b 1;"
      "connectAttr j.r bc.c1; createNode joint -n j2; connectAttr bc.op j2.r;"
      "createNode transform -n tr; connectAttr j.rx tr.tx;");
  sinew_graph_t *g = sinew_session_graph(S);
  sinew_node_t ucs[8];
  assert_int_equal(sinew_node_list_type(g, "unitConversion", false, ucs, 8), 3);
  /* j.r (radians) -> uc (cf 180/pi) -> bc.c1 = degrees (90, -45, 30); op = c1 (b = 1);
   * op -> uc (cf pi/180) -> j2.r = the same angles in radians */
  const double d2r = 0.017453292519943295;
  expect3("bc.c1", 90, -45, 30);
  expect3("bc.op", 90, -45, 30);
  expect3("j2.r", 90 * d2r, -45 * d2r, 30 * d2r);
  expect1("tr.tx", 90); /* the scalar conversion as before: rx in degrees */
  sinew_plug_t c1 = plug("bc.c1"), src;
  assert_true(sinew_plug_source(g, &c1, &src));
  const char *ucname = sinew_node_name(g, src.node);
  assert_true(sinew_node_type_is_a(sinew_node_type(g, src.node), "unitConversion"));
  char cmd[256];
  double v[16];
  snprintf(cmd, sizeof cmd, "getAttr %s.o;", ucname);
  assert_int_equal(get_list(cmd, v, 16), 3);
  assert_true(fabs(v[0] - 90) < 1e-9 && fabs(v[1] + 45) < 1e-9 && fabs(v[2] - 30) < 1e-9);
  snprintf(cmd, sizeof cmd, "getAttr %s.cf;", ucname);
  assert_int_equal(get_list(cmd, v, 16), 1);
  assert_true(fabs(v[0] - 57.295779513082323) < 1e-9);
  /* a free unitConversion: a plain number, then a typed triple, then a matrix */
  run("createNode unitConversion -n u; setAttr u.cf 2; setAttr u.i 0.5;");
  assert_int_equal(get_list("getAttr u.o;", v, 16), 1);
  assert_true(v[0] == 1);
  run("setAttr u.i -type double3 1 2 -3;");
  assert_int_equal(get_list("getAttr u.o;", v, 16), 3);
  assert_true(v[0] == 2 && v[1] == 4 && v[2] == -6);
  run("createNode unitConversion -n um; setAttr um.i -type \"matrix\" 1 0 0 0 0 1 0 0 0 0 1 0 5 6 7 1;");
  assert_int_equal(get_list("getAttr um.o;", v, 16), 16);
  assert_true(v[12] == 5 && v[13] == 6 && v[14] == 7 && v[15] == 1);
  /* bad forms: a wrong count, a type a generic does not take, a string */
  assert_int_not_equal(run_rc("setAttr u.i -type double3 1 2;"), 0);
  assert_non_null(strstr(sinew_session_errmsg(S), "takes 3 values"));
  assert_int_not_equal(run_rc("setAttr u.i -type \"string\" \"x\";"), 0);
  assert_int_not_equal(run_rc("setAttr u.o 3;"), 0); /* an output */
  assert_int_not_equal(run_rc("connectAttr j.msg u.i;"), 0);
  /* save and read back: the typed forms are written as Maya writes them, connected generic
   * plugs are not written at all */
  char path[128];
  snprintf(path, sizeof path, "/tmp/sinew-test-uc-%d.ma", (int)getpid());
  assert_int_equal(sinew_session_save(S, path), 0);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  static char text[1 << 16];
  size_t len = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[len] = 0;
  assert_non_null(strstr(text, "setAttr \".i\" -type \"double3\" 1 2 -3;"));
  assert_non_null(strstr(text, "setAttr \".i\" -type \"matrix\" 1 0 0 0 0 1 0 0 0 0 1 0 5 6 7 1;"));
  assert_null(strstr(text, "setAttr \".o\""));
  assert_int_equal(sinew_session_open(S, path), 0);
  remove(path);
  assert_int_equal(get_list("getAttr u.o;", v, 16), 3);
  assert_true(v[0] == 2 && v[1] == 4 && v[2] == -6);
  assert_int_equal(get_list("getAttr um.o;", v, 16), 16);
  assert_true(v[12] == 5 && v[15] == 1); /* um.cf was never set: 1, so the matrix as it is */
  expect3("j2.r", 90 * d2r, -45 * d2r, 30 * d2r);
}

/* ---- bad input --------------------------------------------------------------------------------- */

static void test_bad_input(void **state) {
  (void)state;
  run("createNode multiplyDivide -n md; createNode remapValue -n r; createNode plusMinusAverage -n p;");
  assert_int_not_equal(run_rc("setAttr md.i1 -type \"string\" \"x\";"), 0);
  assert_non_null(strstr(sinew_session_errmsg(S), "md"));
  assert_int_not_equal(run_rc("setAttr md.ox 3;"), 0); /* an output */
  assert_int_not_equal(run_rc("setAttr md.i1x 1e400;"), 0); /* not finite */
  assert_int_not_equal(run_rc("setAttr r.vl[0].vli 7;"), 0); /* no such interpolation */
  assert_int_not_equal(run_rc("setAttr md.nosuch 1;"), 0);
  /* a matrix cannot feed a float channel */
  run("createNode transform -n t;");
  assert_int_not_equal(run_rc("connectAttr t.wm[0] md.i1x;"), 0);
  /* an operation number past the list is refused; the node keeps multiplying */
  assert_int_not_equal(run_rc("setAttr md.op 9;"), 0);
  assert_non_null(strstr(sinew_session_errmsg(S), "outside [0, 3]"));
  /* choice's input is generic numeric: a matrix goes through (below), a message or a string
   * cannot; the spec's "vlf" is not remapValue's name */
  run("createNode choice -n ch;");
  assert_int_not_equal(run_rc("connectAttr t.msg ch.i[0];"), 0);
  assert_non_null(strstr(sinew_session_errmsg(S), "generic numeric"));
  assert_int_not_equal(run_rc("connectAttr ch.o t.msg;"), 0);
  assert_int_not_equal(run_rc("setAttr r.vl[0].vlf 1;"), 0);
  run("setAttr md.i1 -type float3 2 2 2; setAttr md.i2 -type float3 3 3 3;");
  expect3("md.o", 6, 6, 6);
  /* the graph API's own setters accept non-finite numbers on float inputs: the node writes 0 */
  sinew_plug_t i1x = plug("md.i1x");
  assert_int_equal(sinew_set_double(sinew_session_graph(S), &i1x, INFINITY), 0);
  expect1("md.ox", 0);
  assert_int_equal(warnings, 1);
  /* a huge logical index costs one element */
  run("setAttr p.i1[2000000000] 3;");
  expect1("p.o1", 3);
}


/* ---- many elements, and allocation failures --------------------------------------------------- */

static sinew_plug_t gplug(sinew_graph_t *g, const char *text) {
  sinew_plug_t p;
  if (sinew_plug_parse(g, text, (sinew_node_t){0, 0}, &p)) fail_msg("no plug %s", text);
  return p;
}

/* 100 elements (past the 64 indices a compute keeps on its stack) and a 100-entry ramp: the first
 * read needs scratch memory. Each of its allocations fails in turn: the read fails with
 * SINEW_ENOMEM and the plug stays dirty, nothing leaks, and the next read is right. */
static void test_many_elements_and_alloc_failures(void **state) {
  (void)state;
  test_alloc_install();
  long total = -1;
  for (long k = 0; total < 0 || k <= total; k++) {
    test_alloc_reset();
    sinew_graph_t *g;
    assert_int_equal(sinew_scene_create(NULL, &g), 0);
    assert_int_equal(sinew_node_create(g, "plusMinusAverage", "p", NULL), 0);
    assert_int_equal(sinew_node_create(g, "remapValue", "r", NULL), 0);
    char buf[64];
    for (int i = 0; i < 100; i++) {
      snprintf(buf, sizeof buf, "p.i1[%d]", 3 * i); /* sparse: 0, 3, 6 ... 297 */
      sinew_plug_t e = gplug(g, buf);
      assert_int_equal(sinew_set_double(g, &e, i), 0);
      /* ramp entry i at position i/99 with value (i/99)^2, linear: stored in reverse index order */
      double pos = i / 99.0, val[3] = {pos, pos * pos, 1};
      snprintf(buf, sizeof buf, "r.vl[%d]", 99 - i);
      e = gplug(g, buf);
      assert_int_equal(sinew_set_doubles(g, &e, val, 3), 0);
    }
    sinew_plug_t o1 = gplug(g, "p.o1"), ov = gplug(g, "r.ov"), in = gplug(g, "r.i");
    assert_int_equal(sinew_set_double(g, &in, 0.5), 0);
    long before = test_alloc_count();
    if (k) test_alloc_fail_at(before + k); /* k = 0: a clean run that counts */
    double v1 = -1, v2 = -1;
    int rc1 = sinew_get_double(g, &o1, &v1);
    int rc2 = sinew_get_double(g, &ov, &v2);
    test_alloc_fail_at(0);
    if (!k) total = test_alloc_count() - before;
    assert_true(rc1 == 0 || rc1 == SINEW_ENOMEM);
    assert_true(rc2 == 0 || rc2 == SINEW_ENOMEM);
    if (rc1) assert_true(sinew_plug_is_dirty(g, &o1));
    if (rc2) assert_true(sinew_plug_is_dirty(g, &ov));
    /* sum 0 + 1 + ... + 99 = 4950 */
    assert_int_equal(sinew_get_double(g, &o1, &v1), 0);
    assert_true(v1 == 4950);
    /* x = 0.5 lies between entries 49/99 and 50/99: linear between their squares */
    double p0 = (float)(49 / 99.0), p1 = (float)(50 / 99.0), a = (float)(p0 * p0), b = (float)(p1 * p1);
    double want = (float)(a + (0.5 - p0) / (p1 - p0) * (b - a));
    assert_int_equal(sinew_get_double(g, &ov, &v2), 0);
    if (fabs(v2 - want) > 1e-6) fail_msg("ov %.9g want %.9g", v2, want);
    sinew_graph_destroy(g);
    assert_int_equal(test_alloc_live(), 0);
  }
  assert_true(total >= 2); /* the index scratch of each node */
  test_alloc_uninstall();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_multiply_divide, setup, teardown),
      cmocka_unit_test_setup_teardown(test_multiply_divide_power_and_zero, setup, teardown),
      cmocka_unit_test_setup_teardown(test_condition, setup, teardown),
      cmocka_unit_test_setup_teardown(test_plus_minus_average, setup, teardown),
      cmocka_unit_test_setup_teardown(test_reverse_blend_clamp_set_range, setup, teardown),
      cmocka_unit_test_setup_teardown(test_distance_between, setup, teardown),
      cmocka_unit_test_setup_teardown(test_vector_product, setup, teardown),
      cmocka_unit_test_setup_teardown(test_angle_between, setup, teardown),
      cmocka_unit_test_setup_teardown(test_remap_value_interpolations, setup, teardown),
      cmocka_unit_test_setup_teardown(test_remap_value_color, setup, teardown),
      cmocka_unit_test_setup_teardown(test_choice_and_math_nodes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_float_math, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dirty_minimal, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ma_snippet_round_trip, setup, teardown),
      cmocka_unit_test_setup_teardown(test_real_rig_foot_roll, setup, teardown),
      cmocka_unit_test_setup_teardown(test_real_rig_rotation_switch, setup, teardown),
      cmocka_unit_test_setup_teardown(test_real_rig_fk_control_moves_foot, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unit_conversion_triples, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
      cmocka_unit_test(test_many_elements_and_alloc_failures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
