/* tests/test_anim.c: animation curves and the blending nodes (spec maya-reference-rigging.md
 * sections 1 and 2.7).
 *
 * The curve evaluation is checked against values Autodesk's AnimX computed for 600 random
 * curves (tests/data/animx, README there); the rest against numbers worked out by hand from
 * the keys, and the corpus files against the keys they store. */
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
#include "tests/support.h"

static const double PI = 3.14159265358979323846;
static double deg(double d) { return d * (PI / 180.0); }

static sinew_plug_t P(sinew_graph_t *g, const char *text) {
  sinew_plug_t p;
  int rc = sinew_plug_parse(g, text, (sinew_node_t){0, 0}, &p);
  if (rc) fail_msg("plug %s: %s", text, sinew_graph_errmsg(g));
  return p;
}

static void set(sinew_graph_t *g, const char *text, double v) {
  sinew_plug_t p = P(g, text);
  int rc = sinew_set_double(g, &p, v);
  if (rc) fail_msg("set %s: %s", text, sinew_graph_errmsg(g));
}

static double get(sinew_graph_t *g, const char *text) {
  sinew_plug_t p = P(g, text);
  double v = NAN;
  int rc = sinew_get_double(g, &p, &v);
  if (rc) fail_msg("get %s: %s", text, sinew_graph_errmsg(g));
  return v;
}

static void connect(sinew_graph_t *g, const char *a, const char *b) {
  sinew_plug_t s = P(g, a), d = P(g, b);
  int rc = sinew_connect(g, &s, &d, 0, NULL);
  if (rc) fail_msg("connect %s %s: %s", a, b, sinew_graph_errmsg(g));
}

static void assert_near(double got, double want, double tol) {
  if (!(fabs(got - want) <= tol)) fail_msg("%.17g != %.17g (tolerance %g)", got, want, tol);
}

static void key(sinew_graph_t *g, const char *curve, int i, double t, double v, int tin, int tout) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s.ktv[%d].kt", curve, i);
  set(g, buf, t);
  snprintf(buf, sizeof buf, "%s.ktv[%d].kv", curve, i);
  set(g, buf, v);
  snprintf(buf, sizeof buf, "%s.kit[%d]", curve, i);
  set(g, buf, tin);
  snprintf(buf, sizeof buf, "%s.kot[%d]", curve, i);
  set(g, buf, tout);
}

static sinew_graph_t *scene(void) {
  sinew_graph_t *g = NULL;
  assert_int_equal(sinew_scene_create(NULL, &g), 0);
  return g;
}

/* ---- AnimX reference values ------------------------------------------------------------------ */

typedef struct ref_key {
  double t, v, ix, iy, ox, oy;
  int tin, tout;
} ref_key;

/* Builds one curve of the data file on node `name` (animCurveTU or animCurveUU). */
static void build_ref_curve(sinew_graph_t *g, const char *name, bool tcurve, double fps, int weighted, int pre,
                            int post, const ref_key *keys, int nk) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s.wgt", name);
  set(g, buf, weighted);
  snprintf(buf, sizeof buf, "%s.pre", name);
  set(g, buf, pre);
  snprintf(buf, sizeof buf, "%s.pst", name);
  set(g, buf, post);
  for (int i = 0; i < nk; i++) {
    key(g, name, i, tcurve ? keys[i].t / fps : keys[i].t, keys[i].v, keys[i].tin, keys[i].tout);
    const char *names[4] = {"kix", "kiy", "kox", "koy"};
    double vals[4] = {keys[i].ix, keys[i].iy, keys[i].ox, keys[i].oy};
    for (int c = 0; c < 4; c++) {
      snprintf(buf, sizeof buf, "%s.%s[%d]", name, names[c], i);
      set(g, buf, vals[c]);
    }
  }
}

static void test_animx_reference(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s/animx/curves.txt", SINEW_TEST_DATA_DIR);
  FILE *f = fopen(path, "r");
  if (!f) fail_msg("%s is missing", path);
  sinew_graph_t *g = scene();
  char line[512];
  size_t ncurves = 0, nvalues = 0, worst_curve = 0;
  double worst = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#') continue;
    int id, weighted, pre, post, nk;
    size_t ns;
    char kind;
    double fps;
    if (sscanf(line, "curve %d %c %lf %d %d %d %d %zu", &id, &kind, &fps, &weighted, &pre, &post, &nk, &ns) != 8)
      fail_msg("bad line: %s", line);
    bool tcurve = kind == 'T';
    ref_key keys[16];
    assert_true(nk > 0 && nk <= 16);
    for (int i = 0; i < nk; i++) {
      assert_non_null(fgets(line, sizeof line, f));
      ref_key *k = &keys[i];
      if (sscanf(line, "key %lf %lf %d %d %lf %lf %lf %lf", &k->t, &k->v, &k->tin, &k->tout, &k->ix, &k->iy, &k->ox,
                 &k->oy) != 8)
        fail_msg("bad key line: %s", line);
    }
    sinew_node_t n;
    assert_int_equal(sinew_node_create(g, tcurve ? "animCurveTU" : "animCurveUU", "ref", &n), 0);
    if (tcurve) {
      sinew_time_unit_t u = fps == 24 ? SINEW_TIME_FILM : fps == 30 ? SINEW_TIME_NTSC : SINEW_TIME_PAL;
      assert_int_equal(sinew_time_set_unit(g, u), 0);
    }
    build_ref_curve(g, "ref", tcurve, fps, weighted, pre, post, keys, nk);
    for (size_t s = 0; s < ns; s++) {
      double x, want;
      assert_non_null(fgets(line, sizeof line, f));
      if (sscanf(line, "at %lf %lf", &x, &want) != 2) fail_msg("bad sample line: %s", line);
      if (tcurve) assert_int_equal(sinew_time_set_frame(g, x), 0);
      else set(g, "ref.i", x);
      double got = get(g, "ref.o");
      double err = want != 0 ? fabs(got - want) / fabs(want) : fabs(got);
      if (err > worst) worst = err, worst_curve = (size_t)id;
      if (!(err <= 1e-9))
        fail_msg("curve %d (%s, weighted %d, pre %d, post %d) at %.17g: %.17g, AnimX %.17g", id, tcurve ? "T" : "U",
                 weighted, pre, post, x, got, want);
      nvalues++;
    }
    assert_int_equal(sinew_node_delete(g, n), 0);
    ncurves++;
  }
  fclose(f);
  assert_true(ncurves >= 500);
  printf("AnimX reference: %zu curves, %zu values, largest relative difference %.3g (curve %zu)\n", ncurves,
         nvalues, worst, worst_curve);
  sinew_graph_destroy(g);
}

/* ---- curves from .ma text -------------------------------------------------------------------- */

static char tmpfile_path[128];

static sinew_session_t *open_text(const char *text) {
  snprintf(tmpfile_path, sizeof tmpfile_path, "/tmp/sinew-test-anim-%d.ma", (int)getpid());
  FILE *f = fopen(tmpfile_path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  sinew_session_t *s = NULL;
  assert_int_equal(sinew_session_create(NULL, &s), 0);
  if (sinew_session_open(s, tmpfile_path)) fail_msg("open: %s", sinew_session_errmsg(s));
  sinew_session_stats_t st;
  sinew_session_stats(s, &st);
  assert_int_equal(st.failed_commands, 0);
  remove(tmpfile_path);
  return s;
}

/* A joint keyed in degrees at ntsc, a transform keyed in metres: the reader converts frames,
 * degrees and metres, and the joint plays as time moves. */
static void test_ma_curves_play(void **state) {
  (void)state;
  sinew_session_t *s = open_text("//Maya ASCII 2018 scene\n"
                                 "requires maya \"2018\";\n"
                                 "currentUnit -l meter -a degree -t ntsc;\n"
                                 "createNode joint -n \"elbow\";\n"
                                 "createNode transform -n \"box\";\n"
                                 "createNode animCurveTA -n \"elbow_rotateZ\";\n"
                                 "\tsetAttr \".tan\" 2;\n"
                                 "\tsetAttr \".wgt\" no;\n"
                                 "\tsetAttr -s 3 \".ktv[0:2]\"  1 0 13 45 25 45;\n"
                                 "\tsetAttr \".pst\" 4;\n"
                                 "createNode animCurveTL -n \"box_translateY\";\n"
                                 "\tsetAttr \".tan\" 5;\n"
                                 "\tsetAttr \".wgt\" no;\n"
                                 "\tsetAttr -s 2 \".ktv[0:1]\"  0 1 10 2;\n"
                                 "createNode animCurveTU -n \"box_scaleX\";\n"
                                 "\tsetAttr \".tan\" 2;\n"
                                 "\tsetAttr \".wgt\" no;\n"
                                 "\tsetAttr -s 2 \".ktv[0:1]\"  0 1 30 4;\n"
                                 "connectAttr \"elbow_rotateZ.o\" \"elbow.rz\";\n"
                                 "connectAttr \"box_translateY.o\" \"box.ty\";\n"
                                 "connectAttr \":time1.o\" \"box_scaleX.i\";\n"
                                 "connectAttr \"box_scaleX.o\" \"box.sx\";\n");
  sinew_graph_t *g = sinew_session_graph(s);
  double want[][2] = {{1, 0}, {7, 22.5}, {13, 45}, {20, 45}, {25, 45}, {31, 67.5}, {37, 90}, {-5, 0}};
  /* (cycle with offset after frame 25: each cycle adds 45 degrees) */
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    assert_int_equal(sinew_time_set_frame(g, want[i][0]), 0);
    assert_near(get(g, "elbow.rz"), deg(want[i][1]), 1e-12);
  }
  /* at ntsc 0.4 s is frame 12: the key times are seconds */
  assert_int_equal(sinew_time_set_seconds(g, 0.4), 0);
  assert_near(get(g, "elbow.rz"), deg(45.0 * 11 / 12), 1e-12);
  /* step keys in metres: 100 cm held until frame 10 */
  assert_int_equal(sinew_time_set_frame(g, 9.9), 0);
  assert_near(get(g, "box.ty"), 100, 1e-12);
  assert_int_equal(sinew_time_set_frame(g, 10), 0);
  assert_near(get(g, "box.ty"), 200, 1e-12);
  /* setAttr on time1.outTime (a script's way to change the time, in frames) moves the curves
   * that were evaluated at the old time */
  assert_near(get(g, "elbow.rz"), deg(45.0 * 9 / 12), 1e-12);
  sinew_value_t res = {0};
  assert_int_equal(sinew_session_run(s, "setAttr time1.o 6;", 18, "t.mel", &res), 0);
  sinew_value_clear(&res);
  assert_near(get(g, "elbow.rz"), deg(45.0 * 5 / 12), 1e-12);
  /* a curve connected from time1 (as some files write it) follows it through the connection */
  assert_int_equal(sinew_time_set_frame(g, 15), 0);
  assert_near(get(g, "box.sx"), 2.5, 1e-12);
  /* the joint's world matrix follows the curve */
  sinew_node_t elbow;
  assert_int_equal(sinew_node_find(g, "elbow", &elbow), 0);
  assert_int_equal(sinew_time_set_frame(g, 13), 0);
  sinew_mat4_t wm;
  assert_int_equal(sinew_dag_world_matrix(g, elbow, &wm), 0);
  assert_near(wm.m[0][0], cos(deg(45)), 1e-12);
  assert_near(wm.m[0][1], sin(deg(45)), 1e-12);
  sinew_session_destroy(s);
}

/* Every time unit Maya writes: a file at 59.94 fps keys in its own frames. */
static void test_time_units(void **state) {
  (void)state;
  struct {
    const char *name;
    double fps;
  } units[] = {{"film", 24}, {"ntsc", 30}, {"pal", 25}, {"game", 15}, {"show", 48}, {"palf", 50},
               {"ntscf", 60}, {"23.976fps", 24000.0 / 1001}, {"29.97fps", 30000.0 / 1001},
               {"29.97df", 30000.0 / 1001}, {"47.952fps", 48000.0 / 1001}, {"59.94fps", 60000.0 / 1001},
               {"2fps", 2}, {"120fps", 120}, {"6000fps", 6000}, {"44100fps", 44100}, {"48000fps", 48000},
               {"millisec", 1000}, {"sec", 1}, {"min", 1.0 / 60}, {"hour", 1.0 / 3600}};
  for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
    sinew_time_unit_t u = sinew_time_unit_from_name(units[i].name);
    if (u == SINEW_TIME_INVALID) fail_msg("%s: not a time unit", units[i].name);
    assert_string_equal(sinew_time_unit_name(u), units[i].name);
    assert_near(sinew_time_unit_fps(u), units[i].fps, 1e-12);
    /* a frame is a whole number of Maya's ticks */
    double ticks = 141120000.0 / units[i].fps;
    assert_near(ticks, round(ticks), 1e-6);
  }
  assert_int_equal(sinew_time_unit_from_name("60fps"), SINEW_TIME_NTSCF);
  assert_int_equal(sinew_time_unit_from_name("59.94"), SINEW_TIME_INVALID);
  sinew_session_t *s = open_text("//Maya ASCII 2020 scene\n"
                                 "requires maya \"2020\";\n"
                                 "currentUnit -l centimeter -a degree -t 59.94fps;\n"
                                 "createNode transform -n \"x\";\n"
                                 "createNode animCurveTU -n \"x_scaleX\";\n"
                                 "\tsetAttr \".tan\" 2;\n"
                                 "\tsetAttr \".wgt\" no;\n"
                                 "\tsetAttr -s 2 \".ktv[0:1]\"  0 0 100 100;\n"
                                 "connectAttr \"x_scaleX.o\" \"x.sx\";\n");
  sinew_graph_t *g = sinew_session_graph(s);
  assert_int_equal(sinew_time_get_unit(g), SINEW_TIME_59_94FPS);
  assert_int_equal(sinew_time_set_seconds(g, 1.0), 0); /* frame 59.94... */
  assert_near(get(g, "x.sx"), 60000.0 / 1001, 1e-9);
  assert_int_equal(sinew_time_set_frame(g, 50), 0);
  assert_near(get(g, "x.sx"), 50, 1e-9);
  sinew_session_destroy(s);
}

/* A set-driven key as Maya wires it: the driver's angle goes through a unitConversion (radians
 * to degrees) into an animCurveUA, whose output drives the joint; a distance driver goes
 * straight into an animCurveUL. Two driven keys on one plug are summed by a blendWeighted. */
static void test_set_driven_keys(void **state) {
  (void)state;
  sinew_session_t *s = open_text("//Maya ASCII 2018 scene\n"
                                 "requires maya \"2018\";\n"
                                 "currentUnit -l centimeter -a degree -t film;\n"
                                 "createNode transform -n \"ctl\";\n"
                                 "createNode joint -n \"driven\";\n"
                                 "createNode unitConversion -n \"unitConversion1\";\n"
                                 "\tsetAttr \".cf\" 57.295779513082323;\n"
                                 "createNode animCurveUA -n \"driven_rotateX\";\n"
                                 "\tsetAttr \".tan\" 2;\n"
                                 "\tsetAttr \".wgt\" no;\n"
                                 "\tsetAttr -s 2 \".ktv[0:1]\"  0 0 90 45;\n"
                                 "createNode animCurveUL -n \"driven_translateY\";\n"
                                 "\tsetAttr \".tan\" 2;\n"
                                 "\tsetAttr \".wgt\" no;\n"
                                 "\tsetAttr -s 2 \".ktv[0:1]\"  0 0 10 -5;\n"
                                 "\tsetAttr \".pre\" 1;\n"
                                 "\tsetAttr \".pst\" 1;\n"
                                 "createNode animCurveUU -n \"sdk_a\";\n"
                                 "\tsetAttr \".tan\" 2;\n"
                                 "\tsetAttr \".wgt\" no;\n"
                                 "\tsetAttr -s 2 \".ktv[0:1]\"  0 1 10 2;\n"
                                 "createNode animCurveUU -n \"sdk_b\";\n"
                                 "\tsetAttr \".tan\" 2;\n"
                                 "\tsetAttr \".wgt\" no;\n"
                                 "\tsetAttr -s 2 \".ktv[0:1]\"  0 0 1 3;\n"
                                 "createNode blendWeighted -n \"blendWeighted1\";\n"
                                 "\tsetAttr -s 2 \".w\";\n"
                                 "\tsetAttr \".w[1]\" 0.5;\n"
                                 "connectAttr \"ctl.rz\" \"unitConversion1.i\";\n"
                                 "connectAttr \"unitConversion1.o\" \"driven_rotateX.i\";\n"
                                 "connectAttr \"driven_rotateX.o\" \"driven.rx\";\n"
                                 "connectAttr \"ctl.tx\" \"driven_translateY.i\";\n"
                                 "connectAttr \"driven_translateY.o\" \"driven.ty\";\n"
                                 "connectAttr \"ctl.tx\" \"sdk_a.i\";\n"
                                 "connectAttr \"ctl.sy\" \"sdk_b.i\";\n"
                                 "connectAttr \"sdk_a.o\" \"blendWeighted1.i[0]\";\n"
                                 "connectAttr \"sdk_b.o\" \"blendWeighted1.i[1]\";\n"
                                 "connectAttr \"blendWeighted1.o\" \"driven.sz\";\n");
  sinew_graph_t *g = sinew_session_graph(s);
  set(g, "ctl.rz", deg(45));
  assert_near(get(g, "driven.rx"), deg(22.5), 1e-12);
  set(g, "ctl.rz", deg(90));
  assert_near(get(g, "driven.rx"), deg(45), 1e-12);
  set(g, "ctl.tx", 4);
  assert_near(get(g, "driven.ty"), -2, 1e-12);
  set(g, "ctl.tx", 20); /* linear post-infinity goes on with the last slope */
  assert_near(get(g, "driven.ty"), -10, 1e-12);
  /* blendWeighted: sdk_a(tx = 20: past the end, constant 2) * 1 + sdk_b(sy = 1: 3) * 0.5 */
  assert_near(get(g, "driven.sz"), 2 + 1.5, 1e-12);
  set(g, "ctl.tx", 5);
  set(g, "ctl.sy", 0.5);
  assert_near(get(g, "driven.sz"), 1.5 + 0.75, 1e-12);
  /* moving time changes nothing here */
  assert_int_equal(sinew_time_set_frame(g, 30), 0);
  assert_near(get(g, "driven.sz"), 2.25, 1e-12);
  sinew_session_destroy(s);
}

/* ---- blending nodes -------------------------------------------------------------------------- */

static void test_pair_blend(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  assert_int_equal(sinew_node_create(g, "pairBlend", "pb", NULL), 0);
  assert_int_equal(sinew_node_create(g, "transform", "x", NULL), 0);
  connect(g, "pb.ot", "x.t");
  connect(g, "pb.or", "x.r");
  set(g, "pb.itx1", 1);
  set(g, "pb.ity1", 2);
  set(g, "pb.itx2", 5);
  set(g, "pb.itz2", 4);
  set(g, "pb.irz1", deg(10));
  set(g, "pb.irz2", deg(50));
  set(g, "pb.w", 0.25);
  assert_near(get(g, "x.tx"), 1 * 0.75 + 5 * 0.25, 1e-12);
  assert_near(get(g, "x.ty"), 2 * 0.75, 1e-12);
  assert_near(get(g, "x.tz"), 1, 1e-12);
  assert_near(get(g, "x.rz"), deg(20), 1e-12);
  /* per-channel modes: input 1 only, input 2 only */
  set(g, "pb.txm", 1);
  set(g, "pb.tzm", 2);
  assert_near(get(g, "x.tx"), 1, 1e-12);
  assert_near(get(g, "x.tz"), 4, 1e-12);
  set(g, "pb.rm", 2);
  assert_near(get(g, "x.rz"), deg(50), 1e-12);
  set(g, "pb.rm", 0);
  /* quaternion: about one axis the slerp is the angle's own interpolation */
  set(g, "pb.ri", 1);
  assert_near(get(g, "x.rz"), deg(20), 1e-9);
  /* two axes: the slerp halfway between 90 degrees about x and 90 about y */
  set(g, "pb.irz1", 0);
  set(g, "pb.irz2", 0);
  set(g, "pb.irx1", deg(90));
  set(g, "pb.iry2", deg(90));
  set(g, "pb.w", 0.5);
  sinew_node_t x;
  assert_int_equal(sinew_node_find(g, "x", &x), 0);
  sinew_mat4_t m;
  assert_int_equal(sinew_dag_world_matrix(g, x, &m), 0);
  /* halfway: q = (sin 45, 0, 0, cos 45) + (0, sin 45, 0, cos 45) normalised = (1, 1, 0, 2)/sqrt 6,
   * whose x axis is (1 - 2(y^2 + z^2), 2(xy + wz), 2(xz - wy)) = (2/3, 1/3, -2/3) */
  assert_near(m.m[0][0], 2.0 / 3, 1e-9);
  assert_near(m.m[0][1], 1.0 / 3, 1e-9);
  assert_near(m.m[0][2], -2.0 / 3, 1e-9);
  sinew_graph_destroy(g);
}

/* Animation layers as Maya writes them: a base curve into inputA, the layer's curve into
 * inputB, the animLayer's weights into weightA / weightB. The wiring between the layers and
 * into the blend nodes is the one of public Maya 2015-2023 scenes (BaseAnimation.fgwt ->
 * AnimLayer1.pwth, omte -> pmte, csol -> sslo, AnimLayer1.sl -> BaseAnimation.chsl[i],
 * play -> cdly[i], bgwt -> wa, fgwt -> wb, oram / sam -> acm). */
static const char *const layers_ma =
    "//Maya ASCII 2020 scene\n"
    "requires maya \"2020\";\n"
    "currentUnit -l centimeter -a degree -t film;\n"
    "createNode joint -n \"head\";\n"
    "createNode animLayer -n \"BaseAnimation\";\n"
    "\tsetAttr -s 2 \".cdly\";\n"
    "\tsetAttr -s 2 \".chsl\";\n"
    "\tsetAttr \".pref\" yes;\n"
    "\tsetAttr \".ovrd\" yes;\n"
    "createNode animLayer -n \"AnimLayer1\";\n"
    "\tsetAttr -s 2 \".dsm\";\n"
    "\tsetAttr -s 4 \".bnds\";\n"
    "createNode animLayer -n \"AnimLayer2\";\n"
    "\tsetAttr \".ovrd\" yes;\n"
    "createNode animLayer -n \"AnimLayer3\";\n"
    "createNode animBlendNodeAdditiveDL -n \"head_translateX_AnimLayer1\";\n"
    "createNode animBlendNodeAdditiveDL -n \"head_translateX_AnimLayer2\";\n"
    "createNode animBlendNodeAdditiveDL -n \"head_translateY_AnimLayer3\";\n"
    "createNode animBlendNodeAdditiveScale -n \"head_scaleX_AnimLayer1\";\n"
    "\tsetAttr \".ia\" 1;\n"
    "\tsetAttr \".ib\" 1;\n"
    "createNode animBlendNodeAdditiveRotation -n \"head_rotate_AnimLayer1\";\n"
    "\tsetAttr \".ia\" -type \"double3\" 10 0 0 ;\n"
    "createNode animBlendNodeBoolean -n \"head_visibility_AnimLayer1\";\n"
    "\tsetAttr \".ia\" yes;\n"
    "createNode animCurveTL -n \"head_translateX\";\n"
    "\tsetAttr \".tan\" 18;\n"
    "\tsetAttr -s 2 \".ktv[0:1]\"  1 0 11 10;\n"
    "createNode animCurveTL -n \"head_translateX_AnimLayer1_inputB\";\n"
    "\tsetAttr \".tan\" 18;\n"
    "\tsetAttr -s 2 \".ktv[0:1]\"  1 0 11 4;\n"
    "createNode animCurveTL -n \"head_translateX_AnimLayer2_inputB\";\n"
    "\tsetAttr \".ktv[0]\"  1 20;\n"
    "createNode animCurveTL -n \"head_translateY\";\n"
    "\tsetAttr \".ktv[0]\"  1 1;\n"
    "createNode animCurveTL -n \"head_translateY_AnimLayer3_inputB\";\n"
    "\tsetAttr \".ktv[0]\"  1 2;\n"
    "createNode animCurveTU -n \"head_scaleX_AnimLayer1_inputB\";\n"
    "\tsetAttr \".tan\" 18;\n"
    "\tsetAttr -s 2 \".ktv[0:1]\"  1 1 11 2;\n"
    "createNode animCurveTA -n \"head_rotate_AnimLayer1_inputBZ\";\n"
    "\tsetAttr \".tan\" 18;\n"
    "\tsetAttr -s 2 \".ktv[0:1]\"  1 0 11 30;\n"
    /* the hierarchy: AnimLayer1 and AnimLayer2 under BaseAnimation, AnimLayer3 under AnimLayer1 */
    "connectAttr \"AnimLayer1.sl\" \"BaseAnimation.chsl[0]\";\n"
    "connectAttr \"AnimLayer1.play\" \"BaseAnimation.cdly[0]\";\n"
    "connectAttr \"AnimLayer2.sl\" \"BaseAnimation.chsl[1]\";\n"
    "connectAttr \"AnimLayer2.play\" \"BaseAnimation.cdly[1]\";\n"
    "connectAttr \"AnimLayer3.sl\" \"AnimLayer1.chsl[0]\";\n"
    "connectAttr \"AnimLayer3.play\" \"AnimLayer1.cdly[0]\";\n"
    "connectAttr \"BaseAnimation.csol\" \"AnimLayer1.sslo\";\n"
    "connectAttr \"BaseAnimation.fgwt\" \"AnimLayer1.pwth\";\n"
    "connectAttr \"BaseAnimation.omte\" \"AnimLayer1.pmte\";\n"
    "connectAttr \"BaseAnimation.csol\" \"AnimLayer2.sslo\";\n"
    "connectAttr \"BaseAnimation.fgwt\" \"AnimLayer2.pwth\";\n"
    "connectAttr \"BaseAnimation.omte\" \"AnimLayer2.pmte\";\n"
    "connectAttr \"AnimLayer1.csol\" \"AnimLayer3.sslo\";\n"
    "connectAttr \"AnimLayer1.fgwt\" \"AnimLayer3.pwth\";\n"
    "connectAttr \"AnimLayer1.omte\" \"AnimLayer3.pmte\";\n"
    "connectAttr \"head.tx\" \"AnimLayer1.dsm\" -na;\n"
    "connectAttr \"head.sx\" \"AnimLayer1.dsm\" -na;\n"
    "connectAttr \"head_translateX_AnimLayer1.msg\" \"AnimLayer1.bnds[0]\";\n"
    "connectAttr \"head_scaleX_AnimLayer1.msg\" \"AnimLayer1.bnds[1]\";\n"
    "connectAttr \"head_rotate_AnimLayer1.msg\" \"AnimLayer1.bnds[2]\";\n"
    "connectAttr \"head_visibility_AnimLayer1.msg\" \"AnimLayer1.bnds[3]\";\n"
    /* tx: base -> AnimLayer1 (additive) -> AnimLayer2 (override) */
    "connectAttr \"head_translateX.o\" \"head_translateX_AnimLayer1.ia\";\n"
    "connectAttr \"head_translateX_AnimLayer1_inputB.o\" \"head_translateX_AnimLayer1.ib\";\n"
    "connectAttr \"AnimLayer1.bgwt\" \"head_translateX_AnimLayer1.wa\";\n"
    "connectAttr \"AnimLayer1.fgwt\" \"head_translateX_AnimLayer1.wb\";\n"
    "connectAttr \"head_translateX_AnimLayer1.o\" \"head_translateX_AnimLayer2.ia\";\n"
    "connectAttr \"head_translateX_AnimLayer2_inputB.o\" \"head_translateX_AnimLayer2.ib\";\n"
    "connectAttr \"AnimLayer2.bgwt\" \"head_translateX_AnimLayer2.wa\";\n"
    "connectAttr \"AnimLayer2.fgwt\" \"head_translateX_AnimLayer2.wb\";\n"
    "connectAttr \"head_translateX_AnimLayer2.o\" \"head.tx\";\n"
    /* ty: base -> AnimLayer3 (additive, a child of AnimLayer1) */
    "connectAttr \"head_translateY.o\" \"head_translateY_AnimLayer3.ia\";\n"
    "connectAttr \"head_translateY_AnimLayer3_inputB.o\" \"head_translateY_AnimLayer3.ib\";\n"
    "connectAttr \"AnimLayer3.bgwt\" \"head_translateY_AnimLayer3.wa\";\n"
    "connectAttr \"AnimLayer3.fgwt\" \"head_translateY_AnimLayer3.wb\";\n"
    "connectAttr \"head_translateY_AnimLayer3.o\" \"head.ty\";\n"
    "connectAttr \"AnimLayer1.sam\" \"head_scaleX_AnimLayer1.acm\";\n"
    "connectAttr \"AnimLayer1.bgwt\" \"head_scaleX_AnimLayer1.wa\";\n"
    "connectAttr \"AnimLayer1.fgwt\" \"head_scaleX_AnimLayer1.wb\";\n"
    "connectAttr \"head_scaleX_AnimLayer1_inputB.o\" \"head_scaleX_AnimLayer1.ib\";\n"
    "connectAttr \"head_scaleX_AnimLayer1.o\" \"head.sx\";\n"
    "connectAttr \"head.ro\" \"head_rotate_AnimLayer1.ro\";\n"
    "connectAttr \"AnimLayer1.oram\" \"head_rotate_AnimLayer1.acm\";\n"
    "connectAttr \"AnimLayer1.bgwt\" \"head_rotate_AnimLayer1.wa\";\n"
    "connectAttr \"AnimLayer1.fgwt\" \"head_rotate_AnimLayer1.wb\";\n"
    "connectAttr \"head_rotate_AnimLayer1_inputBZ.o\" \"head_rotate_AnimLayer1.ibz\";\n"
    "connectAttr \"head_rotate_AnimLayer1.o\" \"head.r\";\n"
    "connectAttr \"AnimLayer1.bgwt\" \"head_visibility_AnimLayer1.wa\";\n"
    "connectAttr \"AnimLayer1.fgwt\" \"head_visibility_AnimLayer1.wb\";\n"
    "connectAttr \"head_visibility_AnimLayer1.o\" \"head.v\";\n";

/* Values worked by hand at frame 6, halfway along every linear curve: base tx 5, AnimLayer1's
 * tx 2, AnimLayer2's tx 20 (an override), base ty 1, AnimLayer3's ty 2. */
static void test_anim_layers(void **state) {
  (void)state;
  sinew_session_t *s = open_text(layers_ma);
  sinew_graph_t *g = sinew_session_graph(s);
  assert_int_equal(sinew_time_set_frame(g, 6), 0);
  /* every layer at weight 1: the opaque override hides the layers below it (passthrough on,
   * bgwt 1 - 1 = 0); ty 1 + 2 */
  assert_near(get(g, "AnimLayer1.fgwt"), 1, 0);
  assert_near(get(g, "AnimLayer1.bgwt"), 1, 0);
  assert_near(get(g, "AnimLayer2.bgwt"), 0, 0);
  assert_near(get(g, "head.tx"), 20, 1e-12);
  assert_near(get(g, "head.ty"), 3, 1e-12);
  /* the override at weight 0.5 with passthrough: 7 * 0.5 + 20 * 0.5; without: 20 * 0.5 */
  set(g, "AnimLayer2.weight", 0.5);
  assert_near(get(g, "head.tx"), 13.5, 1e-12);
  set(g, "AnimLayer2.passthrough", 0);
  assert_near(get(g, "AnimLayer2.bgwt"), 0, 0);
  assert_near(get(g, "head.tx"), 10, 1e-12);
  /* the override muted: it lets everything below through (fgwt 0, bgwt 1): 5 + 2 */
  set(g, "AnimLayer2.mute", 1);
  assert_near(get(g, "AnimLayer2.fgwt"), 0, 0);
  assert_near(get(g, "AnimLayer2.bgwt"), 1, 0);
  assert_near(get(g, "AnimLayer2.omte"), 1, 0);
  assert_near(get(g, "head.tx"), 7, 1e-12);
  /* the additive layer at weight 0.5: tx 5 + 1; its layers follow: scale 1 * 1.5^0.5
   * (multiply accumulation), rotate (10, 0, 15 * 0.5) by component, visibility still B (the
   * default 0) while its weight is above 0; its child layer's weight is 0.5 * 1: ty 1 + 1 */
  set(g, "AnimLayer1.weight", 0.5);
  assert_near(get(g, "head.tx"), 6, 1e-12);
  assert_near(get(g, "head.sx"), sqrt(1.5), 1e-12);
  assert_near(get(g, "head.rx"), deg(10), 1e-12);
  assert_near(get(g, "head.rz"), deg(7.5), 1e-12);
  assert_near(get(g, "head.v"), 0, 0);
  assert_near(get(g, "AnimLayer3.pwth"), 0.5, 0);
  assert_near(get(g, "head.ty"), 2, 1e-12);
  /* nested weights multiply: 0.5 * 0.5 */
  set(g, "AnimLayer3.weight", 0.5);
  assert_near(get(g, "AnimLayer3.fgwt"), 0.25, 0);
  assert_near(get(g, "head.ty"), 1.5, 1e-12);
  /* scale accumulation additive: 1 * 1 + 1.5 * 0.5; rotation by layer: Rx(10) then Rz(7.5) */
  set(g, "AnimLayer1.scaleAccumulationMode", 1);
  assert_near(get(g, "head.sx"), 1.75, 1e-12);
  set(g, "AnimLayer1.rotationAccumulationMode", 1);
  assert_near(get(g, "AnimLayer1.oram"), 1, 0);
  sinew_mat4_t want, rx, rz, got;
  sinew_mat4_rotate_x(deg(10), &rx);
  sinew_mat4_rotate_z(deg(7.5), &rz);
  sinew_mat4_mul(&rx, &rz, &want);
  sinew_vec3_t r = {get(g, "head.rx"), get(g, "head.ry"), get(g, "head.rz")};
  sinew_mat4_euler(r, SINEW_ROTATE_XYZ, &got);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) assert_near(got.m[i][j], want.m[i][j], 1e-12);
  /* muting a layer mutes its children (outMute -> parentMute): ty back to the base 1; the
   * Boolean blend takes A again (weight 0): visible */
  set(g, "AnimLayer1.mute", 1);
  assert_near(get(g, "AnimLayer3.pmte"), 1, 0);
  assert_near(get(g, "AnimLayer3.omte"), 1, 0);
  assert_near(get(g, "head.ty"), 1, 1e-12);
  assert_near(get(g, "head.tx"), 5, 1e-12);
  assert_near(get(g, "head.v"), 1, 0);
  set(g, "AnimLayer1.mute", 0);
  set(g, "AnimLayer2.mute", 0);
  set(g, "AnimLayer2.passthrough", 1);
  /* solo AnimLayer1: its sibling AnimLayer2 plays as if muted (tx 5 + 1), AnimLayer1 and its
   * child AnimLayer3 play (ty 1 + 2 * 0.25) */
  set(g, "AnimLayer1.solo", 1);
  assert_near(get(g, "BaseAnimation.csol"), 1, 0);
  assert_near(get(g, "AnimLayer2.fgwt"), 0, 0);
  assert_near(get(g, "AnimLayer2.bgwt"), 1, 0);
  assert_near(get(g, "head.tx"), 6, 1e-12);
  assert_near(get(g, "head.ty"), 1.5, 1e-12);
  /* solo AnimLayer2 instead: AnimLayer1 is left out, and with it its child: ty 1; tx: the
   * override over the base alone, 5 * 0.5 + 20 * 0.5 */
  set(g, "AnimLayer1.solo", 0);
  set(g, "AnimLayer2.solo", 1);
  assert_near(get(g, "AnimLayer1.fgwt"), 0, 0);
  assert_near(get(g, "AnimLayer3.pwth"), 0, 0);
  assert_near(get(g, "head.ty"), 1, 1e-12);
  assert_near(get(g, "head.tx"), 12.5, 1e-12);
  /* every channel now evaluates: nothing depends on a placeholder */
  sinew_plug_t tx = P(g, "head.tx"), ty = P(g, "head.ty");
  assert_false(sinew_plug_depends_on_placeholder(g, &tx));
  assert_false(sinew_plug_depends_on_placeholder(g, &ty));
  /* the layer's weight is a plain keyable input: out of [0, 1] is refused, and the outputs
   * are not writable */
  sinew_plug_t w = P(g, "AnimLayer1.weight"), fg = P(g, "AnimLayer1.fgwt");
  assert_int_not_equal(sinew_set_double(g, &w, 1.5), 0);
  assert_int_not_equal(sinew_set_double(g, &fg, 0.5), 0);
  /* saved and reopened: the same layers, the same values */
  char path[160];
  snprintf(path, sizeof path, "/tmp/sinew-test-layers-%d.ma", (int)getpid());
  assert_int_equal(sinew_session_save(s, path), 0);
  sinew_session_t *t = NULL;
  assert_int_equal(sinew_session_create(NULL, &t), 0);
  if (sinew_session_open(t, path)) fail_msg("reopen: %s", sinew_session_errmsg(t));
  remove(path);
  sinew_graph_t *h = sinew_session_graph(t);
  assert_int_equal(sinew_time_set_frame(h, 6), 0);
  assert_near(get(h, "head.tx"), 12.5, 1e-12);
  assert_near(get(h, "head.ty"), 1, 1e-12);
  assert_near(get(h, "AnimLayer3.weight"), 0.5, 0);
  sinew_session_destroy(t);
  sinew_session_destroy(s);
}

static void test_blend_two_attr(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  assert_int_equal(sinew_node_create(g, "blendTwoAttr", "b", NULL), 0);
  set(g, "b.i[0]", 2);
  set(g, "b.i[1]", 10);
  assert_near(get(g, "b.o"), 2, 1e-12);
  set(g, "b.ab", 0.25);
  assert_near(get(g, "b.o"), 4, 1e-12);
  set(g, "b.ab", 1);
  assert_near(get(g, "b.o"), 10, 1e-12);
  sinew_graph_destroy(g);
}

/* ---- bad input ------------------------------------------------------------------------------- */

static char logged[2048];

static void capture(void *ud, sinew_log_level_t level, sinew_log_id_t id, const char *msg) {
  (void)ud;
  (void)level;
  (void)id;
  size_t n = strlen(logged);
  snprintf(logged + n, sizeof logged - n, "%s\n", msg);
}

static void test_bad_keys(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  logged[0] = 0;
  sinew_graph_set_logger(g, capture, NULL);
  sinew_node_t n;
  assert_int_equal(sinew_node_create(g, "animCurveUU", "c", &n), 0);
  /* no keys: 0 */
  set(g, "c.i", 3);
  assert_near(get(g, "c.o"), 0, 0);
  /* keys written out of order are used in time order */
  key(g, "c", 0, 10, 5, 2, 2);
  key(g, "c", 1, 0, 0, 2, 2);
  assert_near(get(g, "c.o"), 1.5, 1e-12);
  set(g, "c.i", 10);
  assert_near(get(g, "c.o"), 5, 0);
  /* two keys at one time: the one with the higher index stays */
  key(g, "c", 2, 10, 7, 2, 2);
  assert_near(get(g, "c.o"), 7, 0);
  assert_non_null(strstr(logged, "c: 1 key(s) not used"));
  set(g, "c.i", 5);
  assert_near(get(g, "c.o"), 3.5, 1e-12);
  /* a key that is not finite is not used */
  key(g, "c", 3, 5, 100, 2, 2);
  assert_near(get(g, "c.o"), 100, 0);
  sinew_plug_t kv = P(g, "c.ktv[3].kv");
  if (sinew_set_double(g, &kv, NAN) == SINEW_OK) {
    assert_near(get(g, "c.o"), 3.5, 1e-12);
    assert_true(isfinite(get(g, "c.o")));
  } else {
    assert_near(get(g, "c.o"), 100, 0); /* refused: the key is as it was */
  }
  /* tangent entries for keys that do not exist (below and between the keys' indices) are
   * ignored, and the keys' own entries still found */
  sinew_node_t sp;
  assert_int_equal(sinew_node_create(g, "animCurveUU", "sp", &sp), 0);
  for (int i = 0; i < 8; i++) {
    char buf[64];
    snprintf(buf, sizeof buf, "sp.kot[%d]", i);
    set(g, buf, 5); /* step */
  }
  key(g, "sp", 6, 0, 0, 2, 2);
  key(g, "sp", 7, 1, 10, 2, 2);
  set(g, "sp.i", 0.25);
  assert_near(get(g, "sp.o"), 2.5, 1e-12); /* linear: the kot entries 6 and 7 were read */
  set(g, "sp.kit[9]", 1e300);
  set(g, "sp.tan", 1e300);
  assert_near(get(g, "sp.o"), 2.5, 1e-12);
  /* a fixed tangent that is not finite counts as not written (flat), not as a NaN curve */
  sinew_node_t fx;
  assert_int_equal(sinew_node_create(g, "animCurveUU", "fx", &fx), 0);
  set(g, "fx.wgt", 0);
  key(g, "fx", 0, 0, 0, 1, 1);
  key(g, "fx", 1, 2, 2, 1, 1);
  set(g, "fx.kox[0]", 1);
  set(g, "fx.koy[0]", 0);
  set(g, "fx.kix[1]", 1);
  set(g, "fx.kiy[1]", 0);
  set(g, "fx.i", 0.5);
  double flat = get(g, "fx.o"); /* flat ends: 2 * (3 s^2 - 2 s^3) at s = 1/4 */
  assert_near(flat, 2 * (3 * 0.0625 - 2 * 0.015625), 1e-12);
  sinew_plug_t kix = P(g, "fx.kix[1]");
  if (sinew_set_double(g, &kix, NAN) == SINEW_OK) assert_near(get(g, "fx.o"), flat, 1e-12);
  /* quaternion rotation curves are evaluated one by one, with a warning */
  sinew_node_t q;
  assert_int_equal(sinew_node_create(g, "animCurveTA", "q", &q), 0);
  set(g, "q.roti", 3);
  key(g, "q", 0, 0, 1, 2, 2);
  assert_near(get(g, "q.o"), 1, 0);
  assert_non_null(strstr(logged, "q: quaternion rotation interpolation is not supported"));
  /* a single key: its value everywhere, whatever the infinity */
  sinew_node_t one;
  assert_int_equal(sinew_node_create(g, "animCurveUU", "one", &one), 0);
  key(g, "one", 0, 2, 9, 18, 18);
  set(g, "one.pre", 3);
  set(g, "one.pst", 4);
  set(g, "one.i", -50);
  assert_near(get(g, "one.o"), 9, 0);
  set(g, "one.i", 50);
  assert_near(get(g, "one.o"), 9, 0);
  sinew_graph_destroy(g);
}

/* ---- no allocation when time changes --------------------------------------------------------- */

/* A time change evaluates the compiled time curves in one batch and stores their outputs
 * (sinew__anim_time_changed); a curve whose input is connected to time1.outTime is pulled as
 * before. Both give bitwise the same values, at whole and fractional frames, inside the keys
 * and in every infinity; a key edited between two frames is compiled when the curve is read,
 * and joints driven by the curves follow. */
static void test_time_batch_matches_pull(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  sinew_node_t time1;
  assert_int_equal(sinew_time_node(g, &time1), 0);
  assert_int_equal(sinew_node_create(g, "joint", "j", NULL), 0);
  const char *names[][2] = {{"e0", "p0"}, {"e1", "p1"}, {"e2", "p2"}};
  for (int c = 0; c < 3; c++) {
    for (int w = 0; w < 2; w++) {
      const char *nm = names[c][w];
      assert_int_equal(sinew_node_create(g, "animCurveTA", nm, NULL), 0);
      for (int i = 0; i < 7; i++) key(g, nm, i, i * 0.3 + c * 0.1, cos(i * 1.7 + c), c == 2 ? 1 : 18, c == 1 ? 9 : 18);
      char buf[64];
      snprintf(buf, sizeof buf, "%s.pre", nm);
      set(g, buf, c == 0 ? 4 : 5);
      snprintf(buf, sizeof buf, "%s.pst", nm);
      set(g, buf, c == 0 ? 3 : 1);
      snprintf(buf, sizeof buf, "%s.wgt", nm);
      set(g, buf, c == 1);
      if (w == 1) {
        snprintf(buf, sizeof buf, "%s.i", nm);
        connect(g, "time1.o", buf);
      }
    }
  }
  connect(g, "e0.o", "j.rx");
  for (int f = -40; f < 80; f++) {
    double frame = f * 0.37;
    assert_int_equal(sinew_time_set_frame(g, frame), 0);
    if (f == 10) { /* a key edited on both curves: stale until read */
      key(g, "e1", 3, 1.0, 4.0, 18, 18);
      key(g, "p1", 3, 1.0, 4.0, 18, 18);
    }
    for (int c = 0; c < 3; c++) {
      char e[16], p[16];
      snprintf(e, sizeof e, "%s.o", names[c][0]);
      snprintf(p, sizeof p, "%s.o", names[c][1]);
      double ve = get(g, e), vp = get(g, p);
      if (ve != vp) fail_msg("frame %g, curve %d: batch %.17g, pulled %.17g", frame, c, ve, vp);
    }
    assert_true(get(g, "j.rx") == get(g, "e0.o"));
  }
  sinew_graph_destroy(g);
}

/* A time curve with the keys every curve of test_time_list_follows_structure has. */
static void keyed_curve(sinew_graph_t *g, const char *name) {
  assert_int_equal(sinew_node_create(g, "animCurveTL", name, NULL), 0);
  for (int i = 0; i < 6; i++) key(g, name, i, i * 0.2, sin(i * 1.3) * 3, 18, 18);
}

/* Every listed curve reads what the reference curve (its input connected to time1.outTime,
 * pulled) reads at frame f. */
static void frame_matches(sinew_graph_t *g, double f, const char *const *curves, size_t n) {
  assert_int_equal(sinew_time_set_frame(g, f), 0);
  double want = get(g, "ref.o");
  for (size_t i = 0; i < n; i++) {
    char buf[64];
    snprintf(buf, sizeof buf, "%s.o", curves[i]);
    double v = get(g, buf);
    if (v != want) fail_msg("frame %g: %s %.17g, the pulled curve %.17g", f, buf, v, want);
  }
}

static sinew_change_t *step_end(sinew_graph_t *g) {
  sinew_change_t *step = NULL;
  assert_int_equal(sinew_graph_commit_step(g, &step), 0);
  return step;
}

/* The list of unconnected time curves a time change evaluates is kept between time changes,
 * and made again when the graph's structure serial moves: a curve created, deleted, its input
 * connected or disconnected, by a call or by undo and redo. Each case reads a curve, moves the
 * time and reads it again: a list not made again would leave a new curve out (its output
 * keeps the last frame's value), store a connected curve at the scene's time, or store into a
 * deleted node (the time change would fail). Values and names leave the serial alone. */
static void test_time_list_follows_structure(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  keyed_curve(g, "ref");
  connect(g, "time1.o", "ref.i");
  keyed_curve(g, "a");
  const char *a[] = {"a"}, *ab[] = {"a", "b"}, *b[] = {"b"}, *bc[] = {"b", "c"};
  frame_matches(g, 1, a, 1);
  frame_matches(g, 2, a, 1);
  uint64_t serial = sinew_graph_structure_serial(g);
  set(g, "a.ktv[5].kv", 1); /* a value: the same structure */
  sinew_node_t an;
  assert_int_equal(sinew_node_find(g, "a", &an), 0);
  assert_int_equal(sinew_node_rename(g, an, "a2"), 0);
  assert_int_equal(sinew_node_rename(g, an, "a"), 0);
  assert_true(sinew_graph_structure_serial(g) == serial);
  set(g, "a.ktv[5].kv", sin(5 * 1.3) * 3);
  frame_matches(g, 3, a, 1);
  /* created */
  keyed_curve(g, "b");
  assert_true(sinew_graph_structure_serial(g) != serial);
  frame_matches(g, 4, ab, 2);
  frame_matches(g, 5, ab, 2);
  /* connected: b reads t.tx (seconds), whatever the frame */
  assert_int_equal(sinew_time_set_frame(g, 12), 0);
  double at_half = get(g, "ref.o");
  assert_int_equal(sinew_node_create(g, "transform", "t", NULL), 0);
  set(g, "t.tx", 0.5);
  connect(g, "t.tx", "b.i");
  for (double f = 6; f < 8; f++) {
    assert_int_equal(sinew_time_set_frame(g, f), 0);
    assert_true(get(g, "b.o") == at_half);
  }
  /* disconnected */
  sinew_plug_t tx = P(g, "t.tx"), bi = P(g, "b.i");
  assert_int_equal(sinew_disconnect(g, &tx, &bi), 0);
  frame_matches(g, 8, ab, 2);
  frame_matches(g, 9, ab, 2);
  /* deleted */
  assert_int_equal(sinew_node_delete(g, an), 0);
  frame_matches(g, 10, b, 1);
  frame_matches(g, 11, b, 1);
  /* by undo and redo: a curve created in one step, another's input connected in the next */
  assert_int_equal(sinew_graph_begin(g), 0);
  keyed_curve(g, "c");
  sinew_change_t *made = step_end(g);
  frame_matches(g, 12, bc, 2);
  assert_int_equal(sinew_graph_begin(g), 0);
  connect(g, "t.tx", "b.i");
  sinew_change_t *wired = step_end(g);
  frame_matches(g, 13, (const char *[]){"c"}, 1);
  assert_true(get(g, "b.o") == at_half);
  assert_int_equal(sinew_change_undo(g, wired), 0); /* b unconnected again */
  frame_matches(g, 14, bc, 2);
  frame_matches(g, 15, bc, 2);
  assert_int_equal(sinew_change_undo(g, made), 0); /* c gone */
  frame_matches(g, 16, b, 1);
  assert_int_equal(sinew_change_redo(g, made), 0); /* c back */
  frame_matches(g, 17, bc, 2);
  frame_matches(g, 18, bc, 2);
  assert_int_equal(sinew_change_redo(g, wired), 0); /* b connected again */
  frame_matches(g, 19, (const char *[]){"c"}, 1);
  assert_int_equal(sinew_time_set_frame(g, 20), 0);
  assert_true(get(g, "b.o") == at_half);
  sinew_change_free(g, made);
  sinew_change_free(g, wired);
  sinew_graph_destroy(g);
}

/* Curve j of test_time_records_follow_edits and its twin "<name>r", pulled through
 * time1.outTime: span kinds by j (auto, linear, step, step next, spline, flat, clamped,
 * plateau, mixed), weighted for j % 3 == 1, every infinity, keys on whole frames. */
static void twin_curves(sinew_graph_t *g, const char *name, int j) {
  static const int tans[][2] = {{18, 18}, {2, 2}, {5, 5}, {17, 17}, {9, 9}, {3, 3},
                                {10, 10}, {16, 16}, {2, 18}, {18, 5}, {9, 2}, {17, 9}};
  static const int inf[] = {0, 1, 3, 4, 5};
  char twin[32], buf[64];
  snprintf(twin, sizeof twin, "%sr", name);
  const char *nm[2] = {name, twin};
  for (int w = 0; w < 2; w++) {
    assert_int_equal(sinew_node_create(g, "animCurveTL", nm[w], NULL), 0);
    for (int k = 0; k < 6; k++)
      key(g, nm[w], k, (k * 4 + j % 3) / 24.0, sin(k * 1.7 + j) * 2, tans[j % 12][0], tans[j % 12][1]);
    snprintf(buf, sizeof buf, "%s.wgt", nm[w]);
    set(g, buf, j % 3 == 1);
    snprintf(buf, sizeof buf, "%s.pre", nm[w]);
    set(g, buf, inf[j % 5]);
    snprintf(buf, sizeof buf, "%s.pst", nm[w]);
    set(g, buf, inf[(j + 2) % 5]);
  }
  snprintf(buf, sizeof buf, "%s.i", twin);
  connect(g, "time1.o", buf);
}

/* Sets plug text on curve c and its twin. */
static void set_twins(sinew_graph_t *g, int c, const char *attr, double v) {
  char buf[64];
  snprintf(buf, sizeof buf, "c%d.%s", c, attr);
  set(g, buf, v);
  snprintf(buf, sizeof buf, "c%dr.%s", c, attr);
  set(g, buf, v);
}

/* A time change evaluates a time curve from a record of the stretch it was in last (kept in a
 * row for all curves) and moves it to the next span by itself: every such value is the pulled
 * twin's, bitwise, as time goes forward by steps that land on keys and between them, jumps
 * back and over spans and into every infinity, while between frames keys are edited (values,
 * times, tangent types, weights; in an undo step, undone and redone), a curve's output gets a
 * consumer, a curve gets an attribute (its slots move) and curves are deleted. */
static void test_time_records_follow_edits(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  sinew_node_t time1;
  assert_int_equal(sinew_time_node(g, &time1), 0);
  enum { NC = 14 };
  for (int j = 0; j < NC; j++) {
    char name[16];
    snprintf(name, sizeof name, "c%d", j);
    twin_curves(g, name, j);
  }
  double frames[200];
  int nf = 0;
  for (double f = -3; f <= 12; f += 0.5) frames[nf++] = f;
  for (double f = 12; f >= 2; f -= 2.5) frames[nf++] = f;
  for (double f = 2; f <= 26; f += 1) frames[nf++] = f;
  const double jumps[] = {3, 17, 29, 55, -7, 2.25, 9, 21, 1.0 / 3, 0};
  for (size_t i = 0; i < sizeof jumps / sizeof *jumps; i++) frames[nf++] = jumps[i];
  for (double f = 0; f <= 23; f += 1.0 / 3) frames[nf++] = f;
  assert_true(nf <= 200);
  assert_int_equal(sinew_node_create(g, "joint", "j", NULL), 0);
  bool deleted = false, consumer = false;
  sinew_change_t *step = NULL;
  for (int i = 0; i < nf; i++) {
    switch (i) {
      case 5: set_twins(g, 0, "ktv[2].kv", 5.0), set_twins(g, 1, "ktv[3].kv", -1.0); break;
      case 12: set_twins(g, 2, "kot[1]", 2), set_twins(g, 2, "kit[2]", 2); break;
      case 20:
        assert_int_equal(sinew_graph_begin(g), 0);
        set_twins(g, 3, "ktv[2].kt", 9.5 / 24.0);
        set_twins(g, 4, "ktv[0].kv", 3.0);
        step = step_end(g);
        break;
      case 26: assert_int_equal(sinew_change_undo(g, step), 0); break;
      case 32: assert_int_equal(sinew_change_redo(g, step), 0); break;
      case 40: connect(g, "c5.o", "j.tx"), consumer = true; break;
      case 48: {
        sinew_node_t c6;
        assert_int_equal(sinew_node_find(g, "c6", &c6), 0);
        for (int k = 0; k < 30; k++) {
          char name[16];
          snprintf(name, sizeof name, "extra%d", k);
          sinew_attr_desc_t d = {.name = name, .type = SINEW_ATTR_DOUBLE};
          assert_int_equal(sinew_node_add_attr(g, c6, &d, 1), 0);
        }
        break;
      }
      case 55: {
        const char *gone[] = {"c7", "c7r"};
        for (int k = 0; k < 2; k++) {
          sinew_node_t n;
          assert_int_equal(sinew_node_find(g, gone[k], &n), 0);
          assert_int_equal(sinew_node_delete(g, n), 0);
        }
        deleted = true;
        break;
      }
      case 60: set_twins(g, 8, "wgt", 1), set_twins(g, 9, "ktv[6].kt", 30 / 24.0), set_twins(g, 9, "ktv[6].kv", 1); break;
      case 70: set_twins(g, 10, "pst", 0), set_twins(g, 11, "pre", 0); break;
      default: break;
    }
    assert_int_equal(sinew_time_set_frame(g, frames[i]), 0);
    for (int c = 0; c < NC; c++) {
      if (deleted && c == 7) continue;
      char a[16], b[16];
      snprintf(a, sizeof a, "c%d.o", c);
      snprintf(b, sizeof b, "c%dr.o", c);
      double va = get(g, a), vb = get(g, b);
      if (va != vb) fail_msg("step %d, frame %g, curve c%d: batch %.17g, pulled %.17g", i, frames[i], c, va, vb);
    }
    if (consumer) assert_true(get(g, "j.tx") == get(g, "c5.o"));
  }
  sinew_change_free(g, step);
  sinew_graph_destroy(g);
}

/* A time change taken back by a rollback, an undo or a redo: the unconnected time curves follow
 * the time put back (they read it outside the graph's connections, so only the time node's
 * `restored` hook brings them back), as the curve pulled through time1.outTime does. */
static void test_time_taken_back(void **state) {
  (void)state;
  sinew_graph_t *g = scene();
  keyed_curve(g, "ref");
  connect(g, "time1.o", "ref.i");
  const char *const curves[] = {"a", "b"};
  keyed_curve(g, "a");
  keyed_curve(g, "b");
  frame_matches(g, 2, curves, 2);
  double at2 = get(g, "a.o");
  assert_int_equal(sinew_graph_begin(g), 0);
  frame_matches(g, 5, curves, 2);
  assert_true(get(g, "a.o") != at2);
  assert_int_equal(sinew_graph_rollback(g), 0);
  double f = 0;
  assert_int_equal(sinew_time_get_frame(g, &f), 0);
  assert_true(f == 2);
  assert_true(get(g, "a.o") == at2 && get(g, "b.o") == get(g, "ref.o"));
  assert_int_equal(sinew_graph_begin(g), 0);
  frame_matches(g, 4, curves, 2);
  double at4 = get(g, "a.o");
  sinew_change_t *step = step_end(g);
  assert_int_equal(sinew_change_undo(g, step), 0);
  assert_true(get(g, "a.o") == at2 && get(g, "b.o") == get(g, "ref.o"));
  assert_int_equal(sinew_change_redo(g, step), 0);
  assert_true(get(g, "a.o") == at4 && get(g, "b.o") == get(g, "ref.o"));
  sinew_change_free(g, step);
  sinew_graph_destroy(g);
}

static void test_no_alloc_on_time(void **state) {
  (void)state;
  test_alloc_install();
  sinew_graph_t *g = scene();
  assert_int_equal(sinew_node_create(g, "joint", "j", NULL), 0);
  const char *curves[] = {"jx", "jy", "jz"};
  const char *dst[] = {"j.rx", "j.ry", "j.tz"};
  for (int c = 0; c < 3; c++) {
    assert_int_equal(sinew_node_create(g, c < 2 ? "animCurveTA" : "animCurveTL", curves[c], NULL), 0);
    for (int i = 0; i < 20; i++) key(g, curves[c], i, i * 0.25, sin(i + c), 18, c == 1 ? 9 : 18);
    char buf[64];
    snprintf(buf, sizeof buf, "%s.pst", curves[c]);
    set(g, buf, 3);
    snprintf(buf, sizeof buf, "%s.o", curves[c]);
    connect(g, buf, dst[c]);
  }
  /* and through the blending nodes: a blendWeighted and a pairBlend drive a second node */
  assert_int_equal(sinew_node_create(g, "transform", "k", NULL), 0);
  assert_int_equal(sinew_node_create(g, "blendWeighted", "bw", NULL), 0);
  assert_int_equal(sinew_node_create(g, "pairBlend", "pb", NULL), 0);
  connect(g, "jz.o", "bw.i[0]");
  connect(g, "jx.o", "bw.i[1]");
  connect(g, "bw.o", "k.sx");
  connect(g, "jy.o", "pb.iry1");
  connect(g, "jx.o", "pb.irx2");
  set(g, "pb.w", 0.3);
  set(g, "pb.ri", 1);
  connect(g, "pb.or", "k.r");
  sinew_node_t j, kk;
  assert_int_equal(sinew_node_find(g, "j", &j), 0);
  assert_int_equal(sinew_node_find(g, "k", &kk), 0);
  sinew_mat4_t m;
  for (int f = 0; f < 3; f++) {
    assert_int_equal(sinew_time_set_frame(g, f), 0);
    assert_int_equal(sinew_dag_world_matrix(g, j, &m), 0);
    assert_int_equal(sinew_dag_world_matrix(g, kk, &m), 0);
  }
  test_alloc_reset();
  double prev = get(g, "j.rx");
  bool moved = false;
  for (int f = 3; f < 300; f++) {
    assert_int_equal(sinew_time_set_frame(g, f * 0.7), 0);
    assert_int_equal(sinew_dag_world_matrix(g, j, &m), 0);
    assert_int_equal(sinew_dag_world_matrix(g, kk, &m), 0);
    double rx = get(g, "j.rx");
    moved |= rx != prev;
    prev = rx;
  }
  assert_int_equal(test_alloc_count(), 0);
  assert_true(moved);
  sinew_graph_destroy(g);
  assert_int_equal(test_alloc_live(), 0);
  test_alloc_uninstall();
}

/* Each allocation of a curve's first evaluation (compiling its keys) fails in turn: the read
 * fails with SINEW_ENOMEM, nothing leaks, and the next read computes the right value. */
static void test_alloc_failures(void **state) {
  (void)state;
  test_alloc_install();
  long total = -1;
  for (long k = 0; total < 0 || k <= total; k++) {
    test_alloc_reset();
    sinew_graph_t *g = scene();
    assert_int_equal(sinew_node_create(g, "animCurveUU", "c", NULL), 0);
    for (int i = 0; i < 5; i++) key(g, "c", i, i, i * i, 18, 18);
    set(g, "c.i", 2);
    sinew_plug_t o = P(g, "c.o");
    long before = test_alloc_count();
    if (k) test_alloc_fail_at(before + k); /* k = 0: a clean run that counts */
    double v = -1;
    int rc = sinew_get_double(g, &o, &v);
    test_alloc_fail_at(0);
    if (!k) total = test_alloc_count() - before;
    assert_true(rc == 0 || rc == SINEW_ENOMEM);
    if (rc == 0) assert_near(v, 4, 0);
    assert_near(get(g, "c.o"), 4, 0); /* tried again, with memory */
    sinew_graph_destroy(g);
    assert_int_equal(test_alloc_live(), 0);
  }
  assert_true(total >= 2); /* the index scratch and the key table */
  test_alloc_uninstall();
}

/* A scene with curves saved and opened again gives the same values. */
static void test_save_reopen(void **state) {
  (void)state;
  sinew_session_t *s = open_text("//Maya ASCII 2018 scene\n"
                                 "requires maya \"2018\";\n"
                                 "currentUnit -l centimeter -a degree -t pal;\n"
                                 "createNode joint -n \"j\";\n"
                                 "createNode animCurveTA -n \"j_rotateZ\";\n"
                                 "\tsetAttr \".tan\" 10;\n"
                                 "\tsetAttr -s 4 \".ktv[0:3]\"  1 0 10 30 20 29.98 30 -40;\n"
                                 "\tsetAttr -s 4 \".kot[1:3]\"  1 17 18;\n"
                                 "\tsetAttr -s 4 \".kox[1:3]\"  0.5 1 1;\n"
                                 "\tsetAttr -s 4 \".koy[1:3]\"  0.8 0 0;\n"
                                 "\tsetAttr \".pre\" 5;\n"
                                 "\tsetAttr \".pst\" 3;\n"
                                 "connectAttr \"j_rotateZ.o\" \"j.rz\";\n");
  double frames[] = {-17.5, 0, 1, 4.2, 10, 14, 20, 25, 30, 44.4, 71};
  double want[sizeof frames / sizeof *frames];
  sinew_graph_t *g = sinew_session_graph(s);
  for (size_t i = 0; i < sizeof frames / sizeof *frames; i++) {
    assert_int_equal(sinew_time_set_frame(g, frames[i]), 0);
    want[i] = get(g, "j.rz");
  }
  char path[128];
  snprintf(path, sizeof path, "/tmp/sinew-test-anim-save-%d.ma", (int)getpid());
  assert_int_equal(sinew_session_save(s, path), 0);
  sinew_session_t *t = NULL;
  assert_int_equal(sinew_session_create(NULL, &t), 0);
  if (sinew_session_open(t, path)) fail_msg("reopen: %s", sinew_session_errmsg(t));
  remove(path);
  g = sinew_session_graph(t);
  for (size_t i = 0; i < sizeof frames / sizeof *frames; i++) {
    assert_int_equal(sinew_time_set_frame(g, frames[i]), 0);
    if (get(g, "j.rz") != want[i]) fail_msg("frame %g: %.17g, before saving %.17g", frames[i], get(g, "j.rz"), want[i]);
  }
  sinew_session_destroy(t);
  sinew_session_destroy(s);
}

/* ---- the corpus ------------------------------------------------------------------------------ */

static sinew_session_t *open_data(const char *rel) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", SINEW_TEST_DATA_DIR, rel);
  sinew_session_t *s = NULL;
  assert_int_equal(sinew_session_create(NULL, &s), 0);
  if (sinew_session_open(s, path)) fail_msg("%s: %s", path, sinew_session_errmsg(s));
  return s;
}

/* Cylinder.ma (Maya 2018, film, degrees): at the key times the joints hold the keys' values
 * exactly; between them they move; and the tangents sinew computes for its auto keys are the
 * ones Maya stored in the file: a copy of each curve with every key made fixed with the stored
 * tangents gives the same values. */
static void test_corpus_cylinder(void **state) {
  (void)state;
  sinew_session_t *s = open_data("mldeform/Cylinder.ma");
  sinew_graph_t *g = sinew_session_graph(s);
  /* joint1_rotateY: .ktv 1 0 27 33.926708484143681 56 -24.207856697044612 85 -19.665645652181905
   * 100 34.938447916115848 120 0 */
  double keys[][2] = {{1, 0}, {27, 33.926708484143681}, {56, -24.207856697044612},
                      {85, -19.665645652181905}, {100, 34.938447916115848}, {120, 0}};
  for (size_t i = 0; i < 6; i++) {
    assert_int_equal(sinew_time_set_frame(g, keys[i][0]), 0);
    double got = get(g, "joint1.ry");
    if (got != keys[i][1] * (PI / 180.0)) fail_msg("frame %g: %.17g", keys[i][0], got);
  }
  assert_int_equal(sinew_time_set_frame(g, 40), 0);
  double a = get(g, "joint1.ry");
  assert_int_equal(sinew_time_set_frame(g, 41), 0);
  assert_true(a != get(g, "joint1.ry"));
  assert_true(a < deg(33.926708484143681) && a > deg(-24.207856697044612));
  /* the stored tangents: rebuild every curve with fixed keys and compare */
  sinew_node_t curves[64];
  size_t nc = sinew_node_list_type(g, "animCurveTA", true, curves, 64);
  assert_true(nc == 12);
  size_t nstored = 0;
  for (size_t c = 0; c < nc; c++) {
    const char *name = sinew_node_name(g, curves[c]);
    char buf[256];
    snprintf(buf, sizeof buf, "%s.ktv", name);
    sinew_plug_t ktv = P(g, buf);
    int32_t idx[16];
    size_t nk = sinew_plug_indices(g, &ktv, idx, 16);
    sinew_node_t copy;
    assert_int_equal(sinew_node_create(g, "animCurveTA", "fixedCopy", &copy), 0);
    set(g, "fixedCopy.wgt", 0);
    snprintf(buf, sizeof buf, "%s.tan", name);
    set(g, "fixedCopy.tan", get(g, buf));
    for (size_t i = 0; i < nk; i++) {
      char src[256], dstp[256];
      snprintf(src, sizeof src, "%s.kix[%zu]", name, i);
      sinew_plug_t stored = P(g, src);
      bool fixed = sinew_plug_has_value(g, &stored);
      const char *attrs[] = {"ktv[%zu].kt", "ktv[%zu].kv", "kit[%zu]", "kot[%zu]",
                             "kix[%zu]",    "kiy[%zu]",    "kox[%zu]", "koy[%zu]"};
      for (size_t k = 0; k < 8; k++) {
        char a1[64];
        snprintf(a1, sizeof a1, attrs[k], i);
        snprintf(src, sizeof src, "%s.%s", name, a1);
        snprintf(dstp, sizeof dstp, "fixedCopy.%s", a1);
        sinew_plug_t sp = P(g, src);
        if (k == 2 || k == 3) { /* a key with stored tangents becomes fixed; others keep their type */
          if (fixed) set(g, dstp, 1);
          else if (sinew_plug_has_value(g, &sp)) set(g, dstp, get(g, src));
        } else if (sinew_plug_has_value(g, &sp)) {
          set(g, dstp, get(g, src));
        }
      }
      nstored += fixed;
    }
    snprintf(buf, sizeof buf, "%s.o", name);
    for (double f = -5; f <= 130; f += 0.5) {
      assert_int_equal(sinew_time_set_frame(g, f), 0);
      double want = get(g, "fixedCopy.o"), got = get(g, buf);
      if (!(fabs(got - want) <= 1e-9 * fmax(1, fabs(want))))
        fail_msg("%s at frame %g: %.17g, with the file's tangents %.17g", name, f, got, want);
    }
    assert_int_equal(sinew_node_delete(g, copy), 0);
  }
  assert_true(nstored >= 15); /* keys whose stored tangents were compared */
  sinew_session_destroy(s);
}

/* UsdExportSkeleton.ma: 3 auto keys at frames 1, 2, 3 with the middle one an extreme (flat);
 * halfway between two keys with flat tangents a Hermite span is at the mean of the values. */
static void test_corpus_usd_skeleton(void **state) {
  (void)state;
  sinew_session_t *s = open_data("maya-usd/UsdExportSkeleton.ma");
  sinew_graph_t *g = sinew_session_graph(s);
  /* SkelChar_rotateZ: 1 -5.7370631743402694 2 3.1080952133423874 3 -5.7370631743402694 */
  double v1 = -5.7370631743402694, v2 = 3.1080952133423874;
  assert_int_equal(sinew_time_set_frame(g, 1), 0);
  assert_true(get(g, "SkelChar.rz") == v1 * (PI / 180.0));
  assert_int_equal(sinew_time_set_frame(g, 2), 0);
  assert_true(get(g, "SkelChar.rz") == v2 * (PI / 180.0));
  assert_int_equal(sinew_time_set_frame(g, 1.5), 0);
  assert_near(get(g, "SkelChar.rz"), deg((v1 + v2) / 2), 1e-12);
  assert_int_equal(sinew_time_set_frame(g, 3), 0);
  assert_true(get(g, "SkelChar.rz") == v1 * (PI / 180.0));
  /* SkelChar_translateX: 1 -8.4976140071971855 2 -13.180064874791341 */
  assert_int_equal(sinew_time_set_frame(g, 2), 0);
  assert_true(get(g, "SkelChar.tx") == -13.180064874791341);
  assert_int_equal(sinew_time_set_frame(g, 2.5), 0);
  assert_near(get(g, "SkelChar.tx"), (-13.180064874791341 + -8.4976140071971855) / 2, 1e-12);
  sinew_session_destroy(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_animx_reference), cmocka_unit_test(test_ma_curves_play),
      cmocka_unit_test(test_time_units),
      cmocka_unit_test(test_set_driven_keys), cmocka_unit_test(test_pair_blend),
      cmocka_unit_test(test_blend_two_attr),  cmocka_unit_test(test_bad_keys),
      cmocka_unit_test(test_anim_layers),
      cmocka_unit_test(test_time_batch_matches_pull), cmocka_unit_test(test_time_list_follows_structure),
      cmocka_unit_test(test_time_records_follow_edits),
      cmocka_unit_test(test_time_taken_back),
      cmocka_unit_test(test_no_alloc_on_time), cmocka_unit_test(test_alloc_failures),
      cmocka_unit_test(test_save_reopen),      cmocka_unit_test(test_corpus_cylinder),
      cmocka_unit_test(test_corpus_usd_skeleton),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
