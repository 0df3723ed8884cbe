/* tests/test_cmd_skin.c: the skinning commands run from scripts (cmds/cmd_skin.c): skinCluster
 * creation, queries and edits (-ai, -ri, -ub, -rbm, -fnw, attribute edits), skinPercent (set,
 * normalise, relative, prune, queries, locked influences, component forms), dagPose (save,
 * restore local and global, atPose, reset, add, remove, bind poses), and bad input: every
 * failure leaves the scene as it was (nodes, connections, weights, attribute values). */
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

static const double PI = 3.14159265358979323846;

/* ---- helpers -------------------------------------------------------------------------------- */

static sinew_session_t *session(void) {
  sinew_session_t *s = NULL;
  assert_int_equal(sinew_session_create(NULL, &s), SINEW_OK);
  return s;
}

static void run(sinew_session_t *s, const char *text) {
  int rc = sinew_session_run(s, text, strlen(text), "test.mel", NULL);
  if (rc) fail_msg("%s\n-> %s", text, sinew_session_errmsg(s));
}

/* Runs text and returns its result (the caller clears it). */
static sinew_value_t eval(sinew_session_t *s, const char *text) {
  sinew_value_t v = {0};
  int rc = sinew_session_run(s, text, strlen(text), "test.mel", &v);
  if (rc) fail_msg("%s\n-> %s", text, sinew_session_errmsg(s));
  return v;
}

static double eval_num(sinew_session_t *s, const char *text) {
  sinew_value_t v = eval(s, text);
  double d = sinew_value_to_double(&v);
  sinew_value_clear(&v);
  return d;
}

/* The result as one string: array elements joined with spaces. */
static void eval_str(sinew_session_t *s, const char *text, char *out, size_t size) {
  sinew_value_t v = eval(s, text);
  out[0] = 0;
  if (v.kind == SINEW_VALUE_STRING) {
    snprintf(out, size, "%s", sinew_value_string(&v));
  } else if (v.kind == SINEW_VALUE_STRING_ARRAY) {
    size_t k = 0;
    for (size_t i = 0; i < sinew_value_count(&v); i++)
      k += (size_t)snprintf(out + k, size - k, "%s%s", i ? " " : "", sinew_value_string_at(&v, i));
  } else {
    fail_msg("%s: not a string result (%s)", text, sinew_value_kind_name((sinew_value_kind_t)v.kind));
  }
  sinew_value_clear(&v);
}

static void assert_result(sinew_session_t *s, const char *text, const char *want) {
  char got[1024];
  eval_str(s, text, got, sizeof got);
  if (strcmp(got, want)) fail_msg("%s\n-> '%s', expected '%s'", text, got, want);
}

/* Runs text expecting failure with code; returns the message. */
static const char *fails(sinew_session_t *s, const char *text, int code) {
  int rc = sinew_session_run(s, text, strlen(text), "test.mel", NULL);
  if (rc != code)
    fail_msg("%s\n-> %s (%s), expected %s", text, sinew_err_name(rc), sinew_session_errmsg(s), sinew_err_name(code));
  return sinew_session_errmsg(s);
}

static void assert_contains(const char *msg, const char *part) {
  if (!strstr(msg, part)) fail_msg("'%s' does not contain '%s'", msg, part);
}

static sinew_node_t find(sinew_session_t *s, const char *name) {
  sinew_node_t n = {0, 0};
  if (sinew_node_find(sinew_session_graph(s), name, &n)) fail_msg("no node %s", name);
  return n;
}

static bool exists(sinew_session_t *s, const char *name) {
  sinew_node_t n;
  return sinew_node_find(sinew_session_graph(s), name, &n) == SINEW_OK;
}

/* True when src (node.attr) feeds dst (node.attr). */
static bool connected(sinew_session_t *s, const char *src, const char *dst) {
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_plug_t a, b, from;
  if (sinew_plug_parse(g, src, (sinew_node_t){0, 0}, &a) || sinew_plug_parse(g, dst, (sinew_node_t){0, 0}, &b))
    return false;
  return sinew_plug_source(g, &b, &from) && sinew_plug_equal(&from, &a);
}

/* The points of a mesh plug ("geoShape.outMesh"), copied (3 floats each); returns the count. */
static uint32_t points(sinew_session_t *s, const char *plug, float *out, uint32_t cap) {
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_plug_t p;
  assert_int_equal(sinew_plug_parse(g, plug, (sinew_node_t){0, 0}, &p), SINEW_OK);
  sinew_data_t *d = NULL;
  assert_int_equal(sinew_get_data(g, &p, &d), SINEW_OK);
  assert_non_null(d);
  const sinew_mesh_t *m = sinew_mesh_get(d);
  assert_non_null(m);
  uint32_t n = m->npoints;
  assert_true(n <= cap);
  memcpy(out, m->points, 3 * n * sizeof *out);
  sinew_data_unref(d);
  return n;
}

/* A cylinder (22 points: 5 rings of 4 from y = -4 to 4, then the cap centres) and a joint
 * chain j1 (y -4) -> j2 (y -1) -> j3 (y 4) -> j4 (y 6), plus a spare joint j5. */
static const char *SCENE =
    "createNode transform -n geo;\n"
    "createNode mesh -n geoShape -p geo;\n"
    "createNode polyCylinder -n pc;\n"
    "setAttr pc.r 1; setAttr pc.h 8; setAttr pc.sa 4; setAttr pc.sh 4; setAttr pc.sc 1;\n"
    "connectAttr pc.output geoShape.inMesh;\n"
    "createNode joint -n j1; setAttr j1.ty -4;\n"
    "createNode joint -n j2 -p j1; setAttr j2.ty 3;\n"
    "createNode joint -n j3 -p j2; setAttr j3.ty 5;\n"
    "createNode joint -n j4 -p j3; setAttr j4.ty 2;\n"
    "createNode joint -n j5; setAttr j5.tx 3;\n"
    "select -cl;\n";

static sinew_session_t *skinned(void) {
  sinew_session_t *s = session();
  run(s, SCENE);
  assert_result(s, "skinCluster -n sk -tsb -mi 2 -dr 4 j1 j2 j3 geo;", "sk");
  return s;
}

#define NPTS 22

/* Everything a failed command must leave alone. */
typedef struct state {
  size_t nodes, connections;
  double w[NPTS][8];
  double mi, nw, env;
  double pm[4][16]; /* bindPreMatrix[0..3] */
  size_t ninf;
  bool liw4, liw5;  /* j4 / j5 have a lockInfluenceWeights attribute */
} state;

static state snap(sinew_session_t *s) {
  sinew_graph_t *g = sinew_session_graph(s);
  state st;
  memset(&st, 0, sizeof st);
  sinew_graph_stats_t gs;
  sinew_graph_stats(g, &gs);
  st.nodes = gs.nodes;
  st.connections = gs.connections;
  sinew_node_t sk;
  if (sinew_node_find(g, "sk", &sk) == SINEW_OK) {
    for (int32_t v = 0; v < NPTS; v++) {
      size_t cnt = 0;
      sinew_node_t nodes[8];
      assert_int_equal(sinew_skin_get_weights(g, sk, v, -1, nodes, st.w[v], 8, &cnt), SINEW_OK);
    }
    st.ninf = sinew_skin_influences(g, sk, NULL, NULL, 0);
    st.mi = eval_num(s, "getAttr sk.mi");
    st.nw = eval_num(s, "getAttr sk.nw");
    st.env = eval_num(s, "getAttr sk.en");
    for (int i = 0; i < 4; i++) {
      char path[64];
      sinew_plug_t p;
      sinew_mat4_t m;
      snprintf(path, sizeof path, "bindPreMatrix[%d]", i);
      if (sinew_plug_parse_attr(g, sk, path, &p) == SINEW_OK && sinew_plug_has_value(g, &p) &&
          sinew_get_matrix(g, &p, &m) == SINEW_OK)
        memcpy(st.pm[i], m.m, sizeof st.pm[i]);
    }
  }
  sinew_node_t j;
  st.liw4 = sinew_node_find(g, "j4", &j) == SINEW_OK && sinew_node_attr(g, j, "liw") != UINT32_MAX;
  st.liw5 = sinew_node_find(g, "j5", &j) == SINEW_OK && sinew_node_attr(g, j, "liw") != UINT32_MAX;
  return st;
}

static void assert_same_state(const state *a, const state *b) {
  assert_int_equal(a->nodes, b->nodes);
  assert_int_equal(a->connections, b->connections);
  assert_int_equal(a->ninf, b->ninf);
  assert_memory_equal(a->w, b->w, sizeof a->w);
  assert_true(a->mi == b->mi && a->nw == b->nw && a->env == b->env);
  assert_memory_equal(a->pm, b->pm, sizeof a->pm);
  assert_true(a->liw4 == b->liw4 && a->liw5 == b->liw5);
}

/* The weights of vertex v as the query returns them (influence order). */
static size_t weights(sinew_session_t *s, int v, double *out, size_t cap) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "skinPercent -q -v sk geo.vtx[%d];", v);
  sinew_value_t r = eval(s, cmd);
  assert_int_equal(r.kind, SINEW_VALUE_FLOAT_ARRAY);
  size_t n = sinew_value_count(&r);
  for (size_t i = 0; i < n && i < cap; i++) out[i] = sinew_value_double_at(&r, i);
  sinew_value_clear(&r);
  return n;
}

static void assert_weights(sinew_session_t *s, int v, double a, double b, double c) {
  double w[8];
  assert_int_equal(weights(s, v, w, 8), 3);
  if (fabs(w[0] - a) > 1e-9 || fabs(w[1] - b) > 1e-9 || fabs(w[2] - c) > 1e-9)
    fail_msg("vtx[%d]: (%g %g %g), expected (%g %g %g)", v, w[0], w[1], w[2], a, b, c);
}

/* ---- skinCluster creation ------------------------------------------------------------------ */

static void test_bind_from_script(void **unused) {
  (void)unused;
  sinew_session_t *s = skinned();
  /* the deformer chain and the per-influence connections */
  assert_true(exists(s, "geoShapeOrig"));
  assert_true(connected(s, "pc.output", "geoShapeOrig.inMesh"));
  assert_true(connected(s, "geoShapeOrig.outMesh", "sk.input[0].inputGeometry"));
  assert_true(connected(s, "sk.outputGeometry[0]", "geoShape.inMesh"));
  assert_true(connected(s, "j1.worldMatrix[0]", "sk.matrix[0]"));
  assert_true(connected(s, "j2.worldMatrix[0]", "sk.matrix[1]"));
  assert_true(connected(s, "j3.worldMatrix[0]", "sk.matrix[2]"));
  assert_true(connected(s, "j2.lockInfluenceWeights", "sk.lockWeights[1]"));
  assert_true(connected(s, "bindPose1.message", "sk.bindPose"));
  assert_false(connected(s, "j4.worldMatrix[0]", "sk.matrix[3]")); /* -tsb: only the listed joints */
  /* the result is a string array, as in Maya: `string $s[] = `skinCluster ...`;` */
  sinew_value_t r = eval(s, "string $g[] = `polyCube -n g2`; skinCluster -tsb j1 $g[0];");
  assert_int_equal(r.kind, SINEW_VALUE_STRING_ARRAY);
  assert_int_equal(sinew_value_count(&r), 1);
  assert_string_equal(sinew_value_string_at(&r, 0), "skinCluster1");
  sinew_value_clear(&r);
  /* bindPreMatrix = inverse of the bind world matrix: translation rows 4, 1, -4 */
  sinew_value_t m = eval(s, "getAttr sk.bindPreMatrix[1]");
  assert_int_equal(sinew_value_count(&m), 16);
  assert_true(fabs(sinew_value_double_at(&m, 13) - 1) < 1e-12);
  assert_true(fabs(sinew_value_double_at(&m, 0) - 1) < 1e-12);
  sinew_value_clear(&m);
  m = eval(s, "getAttr sk.bindPreMatrix[0]");
  assert_true(fabs(sinew_value_double_at(&m, 13) - 4) < 1e-12);
  sinew_value_clear(&m);
  m = eval(s, "getAttr sk.bindPreMatrix[2]");
  assert_true(fabs(sinew_value_double_at(&m, 13) + 4) < 1e-12);
  sinew_value_clear(&m);
  /* weights: every vertex sums to 1 with at most 2 (-mi) influences */
  for (int v = 0; v < NPTS; v++) {
    double w[8], sum = 0;
    int nonzero = 0;
    size_t n = weights(s, v, w, 8);
    assert_int_equal(n, 3);
    for (size_t i = 0; i < n; i++) {
      sum += w[i];
      nonzero += w[i] > 0;
    }
    assert_true(fabs(sum - 1) < 1e-9);
    assert_true(nonzero >= 1 && nonzero <= 2);
  }
  /* queries, by skinCluster or by geometry (transform or shape) */
  assert_result(s, "skinCluster -q -inf sk", "j1 j2 j3");
  assert_result(s, "skinCluster -q -influence geo", "j1 j2 j3");
  assert_result(s, "skinCluster -q -inf geoShape", "j1 j2 j3");
  assert_result(s, "skinCluster -q -wi sk", "j1 j2 j3");
  assert_result(s, "skinCluster -q -g sk", "geoShape");
  assert_true(eval_num(s, "skinCluster -q -mi sk") == 2);
  assert_true(eval_num(s, "skinCluster -q -sm sk") == 0);
  assert_true(eval_num(s, "skinCluster -q -nw sk") == 1);
  assert_true(eval_num(s, "skinCluster -q -dr sk") == 4);
  assert_true(eval_num(s, "getAttr sk.maxInfluences") == 2);
  /* the bind pose holds the influences */
  assert_result(s, "dagPose -q -members bindPose1", "j1 j2 j3");
  assert_result(s, "dagPose -q -bp j2", "bindPose1");
  assert_true(eval_num(s, "dagPose -q -bp bindPose1") == 1);
  sinew_session_destroy(s);
}

static void test_bind_whole_skeleton_and_selection(void **unused) {
  (void)unused;
  /* without -tsb the whole skeleton of the listed joint is bound; flags from the selection */
  sinew_session_t *s = session();
  run(s, SCENE);
  run(s, "select j2 geo;");
  assert_result(s, "skinCluster -sm 1 -nw 2 -bm 0 -omi on -wd 1", "skinCluster1");
  assert_result(s, "skinCluster -q -inf skinCluster1", "j1 j2 j3 j4");
  assert_true(eval_num(s, "skinCluster -q -sm skinCluster1") == 1);
  assert_true(eval_num(s, "skinCluster -q -nw skinCluster1") == 2);
  assert_true(eval_num(s, "skinCluster -q -omi skinCluster1") == 1);
  assert_true(eval_num(s, "getAttr skinCluster1.bindMethod") == 0);
  assert_true(eval_num(s, "getAttr skinCluster1.weightDistribution") == 1);
  assert_true(eval_num(s, "skinCluster -q -mi skinCluster1") == 5); /* Maya's default */
  /* -g names the geometry; the positional arguments are then all influences */
  run(s, "createNode transform -n geo2; createNode mesh -n geo2Shape -p geo2; createNode polyCube -n cube;"
         "connectAttr cube.output geo2Shape.inMesh;");
  assert_result(s, "skinCluster -tsb -g geo2Shape -n sk2 j5", "sk2");
  assert_result(s, "skinCluster -q -inf geo2", "j5");
  /* the geometry selected first */
  run(s, "createNode transform -n geo3; createNode mesh -n geo3Shape -p geo3; createNode polyPlane -n plane;"
         "connectAttr plane.output geo3Shape.inMesh; select geo3 j5;");
  assert_result(s, "skinCluster -tsb -n sk3", "sk3");
  assert_result(s, "skinCluster -q -g sk3", "geo3Shape");
  sinew_session_destroy(s);
}

/* ---- deformation ---------------------------------------------------------------------------- */

static void test_rotate_joint_moves_point(void **unused) {
  (void)unused;
  sinew_session_t *s = skinned();
  float orig[NPTS * 3], now[NPTS * 3];
  assert_int_equal(points(s, "geoShapeOrig.outMesh", orig, NPTS), NPTS);
  /* vertex 13 (ring 3, y = 2) fully on j2; j2 sits at world (0, -1, 0) */
  run(s, "skinPercent -tv j2 1 sk geo.vtx[13];");
  assert_weights(s, 13, 0, 1, 0);
  assert_int_equal(points(s, "geoShape.outMesh", now, NPTS), NPTS);
  for (int k = 0; k < 3; k++) assert_true(fabs(now[13 * 3 + k] - orig[13 * 3 + k]) < 1e-5);
  run(s, "setAttr j2.rz 90;");
  points(s, "geoShape.outMesh", now, NPTS);
  /* by hand: p' = (p - c) * Rz(90) + c, rows (cos sin; -sin cos): x' = -y, y' = x */
  double x = orig[39], y = orig[40] + 1, z = orig[41];
  double ex = x * cos(PI / 2) - y * sin(PI / 2), ey = x * sin(PI / 2) + y * cos(PI / 2) - 1;
  assert_true(fabs(y - 3) < 1e-6);
  assert_true(fabs(now[39] - ex) < 1e-5);
  assert_true(fabs(now[40] - ey) < 1e-5);
  assert_true(fabs(now[41] - z) < 1e-5);
  /* the envelope scales the motion: half way */
  run(s, "skinCluster -e -envelope 0.5 sk;");
  assert_true(eval_num(s, "skinCluster -q -envelope sk") == 0.5);
  points(s, "geoShape.outMesh", now, NPTS);
  assert_true(fabs(now[39] - (orig[39] + 0.5 * (ex - orig[39]))) < 1e-5);
  run(s, "skinCluster -e -en 1 sk;");
  /* -rbm: the current pose becomes the bind pose for the matrices: nothing is deformed */
  run(s, "skinCluster -e -rbm sk;");
  points(s, "geoShape.outMesh", now, NPTS);
  for (int i = 0; i < NPTS * 3; i++) assert_true(fabs(now[i] - orig[i]) < 1e-5);
  sinew_session_destroy(s);
}

/* ---- skinPercent ---------------------------------------------------------------------------- */

static void test_skin_percent(void **unused) {
  (void)unused;
  sinew_session_t *s = skinned();
  run(s, "skinPercent -tv j1 0.5 -tv j2 0.3 -tv j3 0.2 sk geo.vtx[12];");
  assert_weights(s, 12, 0.5, 0.3, 0.2);
  assert_true(fabs(eval_num(s, "skinPercent -q -t j2 -v sk geo.vtx[12]") - 0.3) < 1e-12);
  assert_true(fabs(eval_num(s, "skinPercent -t j3 -q -v sk geoShape.vtx[12]") - 0.2) < 1e-12);
  /* set one: the others are scaled to the rest */
  run(s, "skinPercent -tv j1 0.8 sk geo.vtx[12];");
  assert_weights(s, 12, 0.8, 0.12, 0.08);
  /* relative */
  run(s, "skinPercent -r on -tv j1 0.1 sk geo.vtx[12];");
  assert_weights(s, 12, 0.9, 0.06, 0.04);
  /* prune: 0.04 goes, the rest is normalised */
  run(s, "skinPercent -prw 0.05 sk geo.vtx[12];");
  assert_weights(s, 12, 0.9 / 0.96, 0.06 / 0.96, 0);
  /* no normalisation */
  run(s, "skinPercent -nrm off -tv j1 0.5 sk geo.vtx[12];");
  assert_weights(s, 12, 0.5, 0.06 / 0.96, 0);
  /* -normalize alone normalises */
  run(s, "skinPercent -nrm on sk geo.vtx[12];");
  double a = 0.5, b = 0.06 / 0.96;
  assert_weights(s, 12, a / (a + b), b / (a + b), 0);
  /* -zri */
  run(s, "skinPercent -tv j3 1 -zri on sk geo.vtx[12];");
  assert_weights(s, 12, 0, 0, 1);
  /* queries: -ib filters, -q -t lists influence names (Maya's "-q -t skin" form too) */
  run(s, "skinPercent -tv j1 0.7 -tv j2 0.3 -tv j3 0 sk geo.vtx[12];");
  assert_result(s, "skinPercent -ib 0.5 -q -t sk geo.vtx[12]", "j1");
  assert_result(s, "skinPercent -q -t sk geo.vtx[12]", "j1 j2 j3");
  sinew_value_t v = eval(s, "skinPercent -ib 0.2 -q -v sk geo.vtx[12]");
  assert_int_equal(sinew_value_count(&v), 2);
  sinew_value_clear(&v);
  /* locked influences keep their weight; setting one is refused */
  run(s, "setAttr j2.liw 1;");
  run(s, "skinPercent -tv j1 0.5 sk geo.vtx[12];");
  assert_weights(s, 12, 0.5, 0.3, 0.2);
  state before = snap(s);
  assert_contains(fails(s, "skinPercent -tv j2 0.5 sk geo.vtx[12];", SINEW_ELOCKED), "j2");
  state after = snap(s);
  assert_same_state(&before, &after);
  run(s, "setAttr j2.liw 0;");
  /* component forms: a range, several arguments, the whole mesh by [*], transform or shape */
  run(s, "skinPercent -tv j1 1 sk geo.vtx[0:3] geoShape.vtx[5];");
  for (int k = 0; k < 6; k++)
    if (k != 4) assert_weights(s, k, 1, 0, 0);
  assert_true(fabs(eval_num(s, "skinPercent -q -t j1 -v sk geo.vtx[0:3]") - 1) < 1e-12);
  /* several vertices: the mean */
  assert_true(fabs(eval_num(s, "skinPercent -q -t j1 -v sk geo.vtx[0] geo.vtx[12]") - 0.75) < 1e-12);
  run(s, "skinPercent -tv j3 1 sk geo.vtx[*];");
  for (int k = 0; k < NPTS; k++) assert_weights(s, k, 0, 0, 1);
  run(s, "skinPercent -tv j2 1 sk geo;");
  for (int k = 0; k < NPTS; k++) assert_weights(s, k, 0, 1, 0);
  run(s, "select geoShape; skinPercent -tv j1 1 sk;");
  for (int k = 0; k < NPTS; k++) assert_weights(s, k, 1, 0, 0);
  /* -rtd gives the default weights back */
  run(s, "skinPercent -rtd sk geo.vtx[20];");
  double w[8];
  weights(s, 20, w, 8);
  assert_true(w[0] > 0.5 && fabs(w[0] + w[1] + w[2] - 1) < 1e-9);
  sinew_session_destroy(s);
}

/* ---- skinCluster edits ---------------------------------------------------------------------- */

static void test_influence_edits(void **unused) {
  (void)unused;
  sinew_session_t *s = skinned();
  sinew_graph_stats_t gs0;
  sinew_graph_stats(sinew_session_graph(s), &gs0);
  /* -ai with weight 0: no point changes */
  state before = snap(s);
  run(s, "skinCluster -e -ai j4 sk;");
  assert_result(s, "skinCluster -q -inf sk", "j1 j2 j3 j4");
  assert_result(s, "skinCluster -q -wi sk", "j1 j2 j3");
  assert_true(connected(s, "j4.worldMatrix[0]", "sk.matrix[3]"));
  assert_result(s, "dagPose -q -members bindPose1", "j1 j2 j3 j4");
  for (int v = 0; v < NPTS; v++) {
    double w[8];
    assert_int_equal(weights(s, v, w, 8), 4);
    for (int i = 0; i < 3; i++) assert_true(fabs(w[i] - before.w[v][i]) < 1e-12);
    assert_true(w[3] == 0);
  }
  /* -ai with -wt and -lw: every point gets the weight, and the influence is locked */
  run(s, "skinCluster -e -ai j5 -wt 0.25 -lw on sk;");
  assert_true(eval_num(s, "getAttr j5.liw") == 1);
  for (int v = 0; v < NPTS; v++) {
    double w[8], sum = 0;
    assert_int_equal(weights(s, v, w, 8), 5);
    for (int i = 0; i < 5; i++) sum += w[i];
    assert_true(fabs(w[4] - 0.25) < 1e-9);
    assert_true(fabs(sum - 1) < 1e-9);
  }
  /* -inf X -lw: lock and unlock an existing influence */
  run(s, "skinCluster -e -inf j5 -lw off sk;");
  assert_true(eval_num(s, "getAttr j5.liw") == 0);
  /* -ri: its weight goes to the others */
  run(s, "skinCluster -e -ri j5 sk;");
  assert_result(s, "skinCluster -q -inf sk", "j1 j2 j3 j4");
  for (int v = 0; v < NPTS; v++) {
    double w[8], sum = 0;
    assert_int_equal(weights(s, v, w, 8), 4);
    for (int i = 0; i < 4; i++) sum += w[i];
    assert_true(fabs(sum - 1) < 1e-9);
  }
  /* attribute edits */
  run(s, "skinCluster -e -mi 3 -omi on -dr 2 -sm 2 -wd 1 sk;");
  assert_true(eval_num(s, "skinCluster -q -mi sk") == 3);
  assert_true(eval_num(s, "skinCluster -q -omi sk") == 1);
  assert_true(eval_num(s, "skinCluster -q -dr sk") == 2);
  assert_true(eval_num(s, "skinCluster -q -sm sk") == 2);
  assert_true(eval_num(s, "skinCluster -q -wd sk") == 1);
  /* -fnw: weights left unnormalised are normalised */
  run(s, "skinCluster -e -mi 5 -omi off sk; skinPercent -nrm off -tv j1 0.1 -tv j2 0.1 -tv j3 0 -tv j4 0 sk geo.vtx[7];");
  double w[8];
  weights(s, 7, w, 8);
  assert_true(fabs(w[0] + w[1] - 0.2) < 1e-12);
  run(s, "skinCluster -e -fnw sk;");
  weights(s, 7, w, 8);
  assert_true(fabs(w[0] - 0.5) < 1e-12 && fabs(w[1] - 0.5) < 1e-12);
  /* -ub: the skinCluster and the Orig go, the cylinder feeds the shape again */
  run(s, "skinCluster -e -ub sk;");
  assert_false(exists(s, "sk"));
  assert_false(exists(s, "geoShapeOrig"));
  assert_true(connected(s, "pc.output", "geoShape.inMesh"));
  assert_true(exists(s, "bindPose1"));
  float now[NPTS * 3], orig[NPTS * 3];
  points(s, "geoShape.outMesh", now, NPTS);
  points(s, "pc.output", orig, NPTS);
  assert_memory_equal(now, orig, sizeof now);
  sinew_session_destroy(s);
}

/* ---- dagPose ---------------------------------------------------------------------------------- */

static void test_dag_pose(void **unused) {
  (void)unused;
  sinew_session_t *s = session();
  run(s, SCENE);
  assert_result(s, "dagPose -s -n p1 j1", "p1");
  assert_result(s, "dagPose -q -members p1", "j1 j2 j3 j4"); /* the whole hierarchy */
  assert_result(s, "dagPose -q -ap p1", "");
  run(s, "setAttr j2.rz 30; setAttr j1.tx 2; setAttr j4.sx 2;");
  assert_result(s, "dagPose -q -atPose p1", "j1 j2 j4");
  /* local restore */
  run(s, "dagPose -r -n p1;");
  assert_result(s, "dagPose -q -ap p1", "");
  assert_true(eval_num(s, "getAttr j2.rz") == 0 && eval_num(s, "getAttr j1.tx") == 0);
  assert_true(eval_num(s, "getAttr j4.sx") == 1);
  /* -reset stores the current state */
  run(s, "setAttr j3.rx 45;");
  assert_result(s, "dagPose -q -ap p1", "j3");
  run(s, "dagPose -rs p1;");
  assert_result(s, "dagPose -q -ap p1", "");
  run(s, "setAttr j3.rx 0; dagPose -restore p1;");
  assert_true(fabs(eval_num(s, "getAttr j3.rx") - 45) < 1e-9);
  /* add and remove members; members from the selection */
  run(s, "select j5; dagPose -a -n p1;");
  assert_result(s, "dagPose -q -m p1", "j1 j2 j3 j4 j5");
  run(s, "dagPose -rm -n p1 j4;");
  assert_result(s, "dagPose -q -m p1", "j1 j2 j3 j5");
  /* -selection: only j2, with its ancestors as global members */
  assert_result(s, "dagPose -s -sl -n p2 j2", "p2");
  assert_result(s, "dagPose -q -m p2", "j1 j2");
  /* bind poses: "the bind pose of these joints" and by name */
  assert_result(s, "skinCluster -n sk -tsb j1 j2 j3 geo", "sk");
  run(s, "setAttr j2.rz 40; setAttr j3.rz -20;");
  assert_result(s, "dagPose -q -ap -bp j1", "j2 j3");
  run(s, "dagPose -r -bp j2;");
  assert_result(s, "dagPose -q -ap bindPose1", "");
  run(s, "setAttr j1.ty -3;");
  run(s, "dagPose -r -g -bp bindPose1;");
  assert_true(fabs(eval_num(s, "getAttr j1.ty") + 4) < 1e-9);
  assert_true(eval_num(s, "dagPose -q -bp p1") == 0);
  assert_result(s, "dagPose -q -n -bp j3", "bindPose1");
  /* a new bind pose from the selection */
  assert_result(s, "select j5; dagPose -s -bp", "bindPose2");
  assert_result(s, "dagPose -q -bp j5", "bindPose2");
  /* local and global restore differ once the hierarchy changed: j5 (world x 3) goes under j1
   * (world y -4) keeping its local values */
  assert_result(s, "dagPose -s -n p3 j5", "p3");
  run(s, "parent -r j5 j1;");
  assert_result(s, "dagPose -q -ap p3", "");
  assert_result(s, "dagPose -q -ap -g p3", "j5");
  run(s, "setAttr j5.tx 7; dagPose -r p3;");
  assert_true(eval_num(s, "getAttr j5.tx") == 3 && eval_num(s, "getAttr j5.ty") == 0);
  run(s, "dagPose -r -g p3;");
  assert_true(fabs(eval_num(s, "getAttr j5.tx") - 3) < 1e-9 && fabs(eval_num(s, "getAttr j5.ty") - 4) < 1e-9);
  assert_result(s, "dagPose -q -ap -g p3", "");
  sinew_session_destroy(s);
}

/* ---- bad input -------------------------------------------------------------------------------- */

static void test_bad_input(void **unused) {
  (void)unused;
  sinew_session_t *s = skinned();
  run(s, "skinPercent -tv j1 0.5 -tv j2 0.3 -tv j3 0.2 sk geo.vtx[12];"
         "addAttr -ln lockInfluenceWeights -sn liw -at bool j5; setAttr -l on j5.liw;");
  state before = snap(s);
  char poses_before[256];
  eval_str(s, "dagPose -q -m bindPose1", poses_before, sizeof poses_before);
  struct {
    const char *text;
    int code;
    const char *says;
  } bad[] = {
      /* unknown influence */
      {"skinCluster -e -ai nosuch sk;", SINEW_ENOTFOUND, "nosuch"},
      {"skinPercent -tv nosuch 0.5 sk geo.vtx[0];", SINEW_ENOTFOUND, "nosuch"},
      {"skinPercent -tv j4 0.5 sk geo.vtx[0];", SINEW_ENOTFOUND, "not an influence of sk"},
      {"skinCluster -e -ri j4 sk;", SINEW_ENOTFOUND, "j4"},
      {"skinCluster -e -ai j1 sk;", SINEW_EEXISTS, "already an influence"},
      {"skinCluster -e -mi 4 -ai j4 -ai nosuch sk;", SINEW_ENOTFOUND, "nosuch"},
      /* geometry that is not a mesh */
      {"skinCluster -tsb j4 pc;", SINEW_ETYPE, "pc is not a mesh"},
      {"skinCluster -tsb j4 j5;", SINEW_ETYPE, "j5 is not a mesh"},
      {"skinCluster -tsb j4 geo;", SINEW_EEXISTS, "already bound"},
      {"skinCluster -tsb geo;", SINEW_EINVAL, "no influences"},
      {"skinCluster -q -inf j1;", SINEW_ETYPE, "j1 is not a skinCluster"},
      {"skinPercent -tv j1 0.5 j1 geo.vtx[0];", SINEW_ETYPE, "j1 is not a skinCluster"},
      /* vertices out of range or not of this mesh */
      {"skinPercent -tv j1 0.5 sk geo.vtx[22];", SINEW_ERANGE, "geo.vtx[22]"},
      {"skinPercent -tv j1 0.5 sk geo.vtx[20:30];", SINEW_ERANGE, "22 vertices"},
      {"skinPercent -q -v sk geo.vtx[99];", SINEW_ERANGE, "out of range"},
      {"skinPercent -tv j1 0.5 sk geo.vtx[x];", SINEW_EINVAL, "bad vertex"},
      {"skinPercent -tv j1 0.5 sk geo.f[0];", SINEW_EUNSUPPORTED, "vertex components"},
      {"skinPercent -tv j1 0.5 sk j1.vtx[0];", SINEW_EINVAL, "not the geometry"},
      /* locked influences */
      {"setAttr j2.liw 1; skinPercent -tv j2 0.5 sk geo.vtx[12];", SINEW_ELOCKED, "j2"},
      /* poses */
      {"dagPose -r -n j1;", SINEW_ETYPE, "not a dagPose"},
      {"dagPose -r j1;", SINEW_ETYPE, "j1 is not a dagPose"},
      {"dagPose -r -n nosuch;", SINEW_ENOTFOUND, "nosuch"},
      {"dagPose -r -bp j5;", SINEW_ENOTFOUND, "j5 is in no bind pose"},
      {"dagPose -s -r -n bindPose1;", SINEW_EINVAL, "cannot be combined"},
      {"dagPose -a -n bindPose1 sk;", SINEW_ETYPE, "not a transform"},
      /* wrong flag arguments */
      {"skinCluster -mi abc j1 geo;", SINEW_EINVAL, "not a number"},
      {"skinCluster -e -mi 0 sk;", SINEW_ERANGE, "-maximumInfluences"},
      {"skinCluster -e -sm 3 sk;", SINEW_ERANGE, "-skinMethod"},
      {"skinCluster -e -dr 20 sk;", SINEW_ERANGE, "-dropoffRate"},
      {"skinCluster -e -ai j4 -wt 2 sk;", SINEW_ERANGE, "-weight"},
      {"skinCluster -e -ub -mi 3 sk;", SINEW_EINVAL, "-unbind"},
      {"skinCluster -e sk;", SINEW_EINVAL, "nothing to edit"},
      {"skinCluster -e -ibp sk;", SINEW_EUNSUPPORTED, "ignoreBindPose"},
      {"skinPercent -tv j1 sk geo.vtx[0];", SINEW_EINVAL, "not a number"},
      {"skinPercent -tv j1 0.5 -nosuch sk geo.vtx[0];", SINEW_EINVAL, "unknown flag"},
      {"skinPercent -tv j1 0.5 sk;", SINEW_EINVAL, "give the components"},
      {"skinPercent -rtd -tv j1 0.5 sk geo.vtx[0];", SINEW_EINVAL, "-resetToDefault"},
      /* late failures: the first steps are taken back (mi, and j4 added before j5 failed) */
      {"skinCluster -e -mi 3 -ai j5 -lw on sk;", SINEW_ELOCKED, "j5"},
      {"skinCluster -e -nw 2 -ai j4 -wt 0.5 -ai j5 -lw on sk;", SINEW_ELOCKED, "j5"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    const char *msg = fails(s, bad[i].text, bad[i].code);
    assert_contains(msg, "test.mel:1: ");
    assert_contains(msg, bad[i].says);
    run(s, "setAttr j2.liw 0;");
    state after = snap(s);
    assert_same_state(&before, &after);
    char poses_after[256];
    eval_str(s, "dagPose -q -m bindPose1", poses_after, sizeof poses_after);
    assert_string_equal(poses_before, poses_after);
    assert_result(s, "skinCluster -q -inf sk", "j1 j2 j3");
  }
  /* the -ai that was taken back left no attribute behind on j4 */
  sinew_node_t j4 = find(s, "j4");
  assert_int_equal(sinew_node_attr(sinew_session_graph(s), j4, "liw"), UINT32_MAX);
  assert_false(connected(s, "j4.worldMatrix[0]", "sk.matrix[3]"));
  sinew_session_destroy(s);
}

/* Every allocation of a command fails in turn: each failure leaves the scene as it was. */
static void test_out_of_memory(void **unused) {
  (void)unused;
  test_alloc_install();
  sinew_session_t *s = skinned();
  run(s, "setAttr j2.rz 30; skinPercent -tv j1 0.5 -tv j2 0.3 -tv j3 0.2 sk geo.vtx[12];"
         "createNode transform -n geo2; createNode mesh -n geo2Shape -p geo2; createNode polyCube -n cube;"
         "connectAttr cube.output geo2Shape.inMesh;");
  /* strict: the failure must be reported as out of memory (sinew_skin_reset_weights reports
   * some as "no original geometry") */
  const struct {
    const char *text;
    bool strict;
  } cmds[] = {
      {"skinCluster -e -mi 3 -envelope 0.5 -ai j4 -wt 0.3 -ai j5 -lw on -rbm -fnw sk;", true},
      {"skinCluster -e -inf j1 -lw on -nw 2 -ri j5 sk;", true},
      {"skinPercent -tv j2 0.6 -r on sk geo.vtx[0:21];", true},
      {"skinPercent -tv j3 0.5 sk geo.vtx[*];", true},
      {"dagPose -r -g -bp j2;", true},
      {"skinCluster -n sk2 -mi 2 -tsb j4 j5 geo2;", true},
      {"dagPose -s -sl -n p9 j3;", true},
      {"dagPose -a -n p9 j5;", true},
      {"setAttr j3.rz 20; dagPose -rs p9;", true},
      {"skinPercent -rtd sk geo;", false},
  };
  long worst = 0;
  for (size_t c = 0; c < sizeof cmds / sizeof *cmds; c++) {
    state before = snap(s);
    char poses_before[256], inf_before[256];
    eval_str(s, "dagPose -q -m bindPose1", poses_before, sizeof poses_before);
    if (exists(s, "sk")) eval_str(s, "skinCluster -q -inf sk", inf_before, sizeof inf_before);
    long n = 1;
    for (;; n++) {
      test_alloc_reset();
      test_alloc_fail_at(n);
      int rc = sinew_session_run(s, cmds[c].text, strlen(cmds[c].text), "oom.mel", NULL);
      test_alloc_fail_at(0);
      if (rc == SINEW_OK) break;
      if (rc != SINEW_ENOMEM && cmds[c].strict) fail_msg("%s, allocation %ld: %s", cmds[c].text, n, sinew_session_errmsg(s));
      state after = snap(s);
      if (after.nodes != before.nodes || after.connections != before.connections)
        fail_msg("%s, allocation %ld (%s): %zu nodes, %zu connections (was %zu, %zu)", cmds[c].text, n, sinew_session_errmsg(s), after.nodes,
                 after.connections, before.nodes, before.connections);
      assert_same_state(&before, &after);
      char poses_after[256], inf_after[256];
      eval_str(s, "dagPose -q -m bindPose1", poses_after, sizeof poses_after);
      assert_string_equal(poses_before, poses_after);
      eval_str(s, "skinCluster -q -inf sk", inf_after, sizeof inf_after);
      assert_string_equal(inf_before, inf_after);
    }
    if (n > worst) worst = n;
  }
  assert_true(worst > 10); /* the failures did reach the commands */
  assert_result(s, "skinCluster -q -inf sk2", "j4 j5");
  assert_result(s, "dagPose -q -m p9", "j1 j2 j3 j5");
  assert_result(s, "dagPose -q -ap p9", "");
  sinew_session_destroy(s);
  test_alloc_uninstall();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bind_from_script),
      cmocka_unit_test(test_bind_whole_skeleton_and_selection),
      cmocka_unit_test(test_rotate_joint_moves_point),
      cmocka_unit_test(test_skin_percent),
      cmocka_unit_test(test_influence_edits),
      cmocka_unit_test(test_dag_pose),
      cmocka_unit_test(test_bad_input),
      cmocka_unit_test(test_out_of_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
