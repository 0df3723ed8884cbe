/* tests/test_deformers.c: the blendShape and cluster deformers and deformer set membership
 * (docs/deformers.md). blendShape: maya-usd's blendShapesExport.ma (tests/data) evaluates, its
 * stored (pointArray + componentList) targets move exactly the points the file names by the
 * deltas it stores, its live in-between targets are reached at their weights and interpolate
 * piecewise linearly between them (and beyond the last); targetWeights, baseWeights, envelope;
 * a weight of 0 costs nothing (the input block passes through, no item is applied); dirty
 * propagation (a weight re-runs the node, a joint downstream does not); skin(blend(points))
 * with the blendShape in front of a skinCluster; bad componentList / pointArray input. */
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

/* ---- helpers ------------------------------------------------------------------------------- */

static sinew_session_t *session(void) {
  sinew_session_t *s = NULL;
  assert_int_equal(sinew_session_create(NULL, &s), 0);
  return s;
}

static sinew_session_t *open_data(const char *rel) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", SINEW_TEST_DATA_DIR, rel);
  sinew_session_t *s = session();
  if (sinew_session_open(s, path)) fail_msg("%s: %s", path, sinew_session_errmsg(s));
  return s;
}

static void run(sinew_session_t *s, const char *text) {
  if (sinew_session_run(s, text, strlen(text), "test.mel", NULL)) fail_msg("%s: %s", text, sinew_session_errmsg(s));
}

static int try_run(sinew_session_t *s, const char *text) {
  return sinew_session_run(s, text, strlen(text), "test.mel", NULL);
}

static sinew_plug_t plug(sinew_graph_t *g, const char *text) {
  sinew_plug_t p;
  if (sinew_plug_parse(g, text, (sinew_node_t){0}, &p)) fail_msg("%s: %s", text, sinew_graph_errmsg(g));
  return p;
}

/* A new reference to the mesh a plug holds. */
static sinew_data_t *mesh_of(sinew_graph_t *g, const char *text) {
  sinew_plug_t p = plug(g, text);
  sinew_data_t *d = NULL;
  if (sinew_get_data(g, &p, &d)) fail_msg("%s: %s", text, sinew_graph_errmsg(g));
  if (!d || !sinew_mesh_get(d)) fail_msg("%s holds no mesh", text);
  return d;
}

static void set1(sinew_graph_t *g, const char *text, double v) {
  sinew_plug_t p = plug(g, text);
  if (sinew_set_double(g, &p, v)) fail_msg("%s: %s", text, sinew_graph_errmsg(g));
}

static void assert_near(double a, double b, double tol) {
  if (!(fabs(a - b) <= tol)) fail_msg("%.9g != %.9g (tolerance %g)", a, b, tol);
}

/* out == base + sum_i f[i] * (tgt[i] - base), point by point. */
static void assert_combination(const sinew_data_t *out, const sinew_data_t *base, const sinew_data_t *const *tgt,
                               const double *f, int n) {
  const sinew_mesh_t *o = sinew_mesh_get(out), *b = sinew_mesh_get(base);
  assert_int_equal(o->npoints, b->npoints);
  for (uint32_t i = 0; i < 3 * o->npoints; i++) {
    double want = b->points[i];
    for (int k = 0; k < n; k++) want += f[k] * (sinew_mesh_get(tgt[k])->points[i] - b->points[i]);
    assert_near(o->points[i], want, 2e-6);
  }
}

#define BS_FILE "maya-usd/blendShapesExport.ma"

/* ---- stored targets (pointArray + componentList), as the file writes them ----------------- */

/* blendShape22: weights 1 0 0; target 0 moves vtx[0] and vtx[6:7] by the stored (x, 0, 0). */
static void test_corpus_stored_targets(void **state) {
  (void)state;
  sinew_session_t *s = open_data(BS_FILE);
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_data_t *in = mesh_of(g, "blendShape22.ip[0].ig"), *out = mesh_of(g, "blendShape22.og[0]");
  const float *a = sinew_mesh_get(out)->points, *b = sinew_mesh_get(in)->points;
  const double d0[8] = {-0.7817225456237793, 0, 0, 0, 0, 0, -0.7817225456237793, -0.78172260522842407};
  for (int v = 0; v < 8; v++) {
    assert_near(a[3 * v], b[3 * v] + d0[v], 1e-6);
    assert_near(a[3 * v + 1], b[3 * v + 1], 0);
    assert_near(a[3 * v + 2], b[3 * v + 2], 0);
  }
  /* the shape shows it */
  sinew_data_t *shape = mesh_of(g, "|basic_cube_4_blendshape_baked_targets|base|baseShape.o");
  assert_memory_equal(sinew_mesh_get(shape)->points, a, 8 * 3 * sizeof(float));
  sinew_data_unref(shape);
  sinew_data_unref(out);
  /* target 1 (vtx[1], vtx[7] by +0.851 in x) and half of target 2 (vtx[2:3] in z) added */
  set1(g, "blendShape22.w[1]", 1);
  set1(g, "blendShape22.w[2]", 0.5);
  out = mesh_of(g, "blendShape22.og[0]");
  a = sinew_mesh_get(out)->points;
  const double dx[8] = {-0.7817225456237793, 0.85104572772979736, 0, 0, 0, 0, -0.7817225456237793,
                        -0.78172260522842407 + 0.85104572772979736};
  const double dz[8] = {0, 0, 0.5 * 0.47292137145996094, 0.5 * 0.47292137145996094, 0, 0, 0, 0};
  for (int v = 0; v < 8; v++) {
    assert_near(a[3 * v], b[3 * v] + dx[v], 1e-6);
    assert_near(a[3 * v + 2], b[3 * v + 2] + dz[v], 1e-6);
  }
  sinew_data_unref(out);
  /* envelope scales everything; nodeState HasNoEffect passes the input through */
  set1(g, "blendShape22.en", 0.5);
  out = mesh_of(g, "blendShape22.og[0]");
  assert_near(sinew_mesh_get(out)->points[3], b[3] + 0.5 * 0.85104572772979736, 1e-6);
  sinew_data_unref(out);
  set1(g, "blendShape22.nds", 1);
  out = mesh_of(g, "blendShape22.og[0]");
  assert_ptr_equal(out, in);
  sinew_data_unref(out);
  sinew_data_unref(in);
  sinew_session_destroy(s);
}

/* ---- live in-between targets ---------------------------------------------------------------- */

/* blendShape10: items 5333, 5667 and 6000 fed by three target meshes (their local points). */
static void test_corpus_inbetweens(void **state) {
  (void)state;
  sinew_session_t *s = open_data(BS_FILE);
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_data_t *base = mesh_of(g, "blendShape10.ip[0].ig");
  sinew_data_t *t[3] = {mesh_of(g, "|basic_cube_2_inbetweens_no_anim|tgts|tgt3|tgtShape3.o"),
                        mesh_of(g, "|basic_cube_2_inbetweens_no_anim|tgts|tgt2|tgtShape2.o"),
                        mesh_of(g, "|basic_cube_2_inbetweens_no_anim|tgts|tgt1|tgtShape1.o")};
  /* the targets differ from the base and from each other, or the test proves nothing */
  for (int k = 0; k < 3; k++)
    assert_memory_not_equal(sinew_mesh_get(t[k])->points, sinew_mesh_get(base)->points, 24 * sizeof(float));
  assert_memory_not_equal(sinew_mesh_get(t[0])->points, sinew_mesh_get(t[1])->points, 24 * sizeof(float));
  const double W[3] = {0.333, 0.667, 1.0};
  struct {
    double w;
    int a, b;   /* knots (-1: the implicit zero) */
    double u;   /* position between them */
  } cases[] = {
      {0.333, -1, 0, 1},  {0.667, 0, 1, 1},   {1.0, 1, 2, 1},
      {0.1665, -1, 0, 0.5}, /* half way to the first in-between */
      {0.5, 0, 1, (0.5 - 0.333) / (0.667 - 0.333)},
      {0.9, 1, 2, (0.9 - 0.667) / (1 - 0.667)},
      {1.25, 1, 2, (1.25 - 0.667) / (1 - 0.667)},  /* beyond: the last segment extended */
      {-0.2, -1, 0, -0.2 / 0.333},                  /* below 0: the first segment extended */
  };
  (void)W;
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    set1(g, "blendShape10.w[0]", cases[c].w);
    sinew_data_t *out = mesh_of(g, "blendShape10.og[0]");
    const sinew_data_t *tg[2];
    double f[2];
    int n = 0;
    if (cases[c].a >= 0) tg[n] = t[cases[c].a], f[n++] = 1 - cases[c].u;
    tg[n] = t[cases[c].b], f[n++] = cases[c].u;
    assert_combination(out, base, tg, f, n);
    sinew_data_unref(out);
  }
  for (int k = 0; k < 3; k++) sinew_data_unref(t[k]);
  sinew_data_unref(base);
  sinew_session_destroy(s);
}

/* blendShape12: three live targets, one item each; target and base weights painted. */
static void test_corpus_painted_weights(void **state) {
  (void)state;
  sinew_session_t *s = open_data(BS_FILE);
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_data_t *base = mesh_of(g, "blendShape12.ip[0].ig");
  sinew_data_t *t[2] = {mesh_of(g, "|basic_cube_4_blendshapes_no_anim|tgts|tgt3|tgt3Shape.o"),
                        mesh_of(g, "|basic_cube_4_blendshapes_no_anim|tgts|tgt2|tgt2Shape.o")};
  set1(g, "blendShape12.w[0]", 1);
  set1(g, "blendShape12.w[1]", 0.25);
  set1(g, "blendShape12.it[0].itg[0].tw[3]", 0.5);
  set1(g, "blendShape12.it[0].bw[5]", 0);
  sinew_data_t *out = mesh_of(g, "blendShape12.og[0]");
  const float *o = sinew_mesh_get(out)->points, *b = sinew_mesh_get(base)->points;
  for (int v = 0; v < 8; v++) {
    double tw0 = v == 3 ? 0.5 : 1, bw = v == 5 ? 0 : 1;
    for (int c = 0; c < 3; c++) {
      int i = 3 * v + c;
      double want = b[i] + bw * (tw0 * (sinew_mesh_get(t[0])->points[i] - b[i]) +
                                 0.25 * (sinew_mesh_get(t[1])->points[i] - b[i]));
      assert_near(o[i], want, 2e-6);
    }
  }
  sinew_data_unref(out);
  for (int k = 0; k < 2; k++) sinew_data_unref(t[k]);
  sinew_data_unref(base);
  sinew_session_destroy(s);
}

/* ---- a weight of 0 costs nothing; dirty propagation ----------------------------------------- */

static void test_zero_weight_and_dirt(void **state) {
  (void)state;
  sinew_session_t *s = open_data(BS_FILE);
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_node_t bs;
  assert_int_equal(sinew_node_find(g, "blendShape12", &bs), 0);
  /* every weight 0 (as the file has them): the input block itself, no item applied */
  sinew_data_t *in = mesh_of(g, "blendShape12.ip[0].ig"), *out = mesh_of(g, "blendShape12.og[0]");
  assert_ptr_equal(in, out);
  sinew_data_unref(out);
  uint64_t ev0, ap0, ev1, ap1;
  assert_int_equal(sinew_blend_shape_stats(g, bs, &ev0, &ap0, NULL), 0);
  assert_int_equal(ap0, 0);
  /* one weight on: one item applied; a second read computes nothing */
  set1(g, "blendShape12.w[2]", 0.5);
  out = mesh_of(g, "blendShape12.og[0]");
  sinew_data_unref(out);
  out = mesh_of(g, "blendShape12.og[0]");
  sinew_data_unref(out);
  assert_int_equal(sinew_blend_shape_stats(g, bs, &ev1, &ap1, NULL), 0);
  assert_int_equal(ev1, ev0 + 1);
  assert_int_equal(ap1, 1);
  /* the weight dirties the output and the shape downstream */
  set1(g, "blendShape12.w[2]", 0.75);
  sinew_plug_t og = plug(g, "blendShape12.og[0]"), shape = plug(g, "|basic_cube_4_blendshapes_no_anim|base|baseShape.o");
  assert_true(sinew_plug_is_dirty(g, &og));
  assert_true(sinew_plug_is_dirty(g, &shape));
  sinew_data_unref(mesh_of(g, "|basic_cube_4_blendshapes_no_anim|base|baseShape.o"));
  /* an unrelated node's change does not */
  set1(g, "blendShape22.w[1]", 1);
  assert_false(sinew_plug_is_dirty(g, &og));
  /* a target moved: the output follows (the live target is recompiled) */
  sinew_data_t *before = mesh_of(g, "blendShape12.og[0]");
  float b0 = sinew_mesh_get(before)->points[0];
  sinew_data_unref(before);
  set1(g, "|basic_cube_4_blendshapes_no_anim|tgts|tgt|tgtShape.pt[0].px", 1.0);
  assert_true(sinew_plug_is_dirty(g, &og));
  sinew_data_t *after = mesh_of(g, "blendShape12.og[0]");
  sinew_data_t *tgt = mesh_of(g, "|basic_cube_4_blendshapes_no_anim|tgts|tgt|tgtShape.o");
  assert_near(sinew_mesh_get(after)->points[0],
              sinew_mesh_get(in)->points[0] + 0.75 * (sinew_mesh_get(tgt)->points[0] - sinew_mesh_get(in)->points[0]),
              2e-6);
  assert_true(sinew_mesh_get(after)->points[0] != b0);
  sinew_data_unref(tgt);
  sinew_data_unref(after);
  sinew_data_unref(in);
  sinew_session_destroy(s);
}

/* ---- bad input -------------------------------------------------------------------------------- */

static void test_bad_data(void **state) {
  (void)state;
  sinew_session_t *s = session();
  run(s, "createNode blendShape -n bs;");
  assert_int_not_equal(try_run(s, "setAttr bs.it[0].itg[0].iti[6000].ict -type \"componentList\" 1 \"vtx[3:1]\";"), 0);
  assert_non_null(strstr(sinew_session_errmsg(s), "bs.inputTarget[0].inputTargetGroup[0].inputTargetItem[6000].inputComponentsTarget"));
  assert_int_not_equal(try_run(s, "setAttr bs.it[0].itg[0].iti[6000].ict -type \"componentList\" 2 \"vtx[1]\";"), 0);
  assert_int_not_equal(try_run(s, "setAttr bs.it[0].itg[0].iti[6000].ipt -type \"pointArray\" 1 0 1 2;"), 0);
  assert_int_not_equal(try_run(s, "setAttr bs.it[0].itg[0].iti[6000].ipt -type \"componentList\" 1 \"vtx[1]\";"), 0);
  assert_int_not_equal(try_run(s, "setAttr bs.it[0].itg[0].iti[6000].ipt -type \"pointArray\" 1 0 a 2 1;"), 0);
  /* nothing was set */
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_plug_t p = plug(g, "bs.it[0].itg[0].iti[6000].ipt");
  assert_false(sinew_plug_has_value(g, &p));
  run(s, "setAttr bs.it[0].itg[0].iti[6000].ipt -type \"pointArray\" 1 0 1 2 1;");
  assert_true(sinew_plug_has_value(g, &p));
  /* the data types' own checks */
  sinew_data_t *d = NULL;
  const char *bad[] = {"vtx[-1]", "vtx[", "[1]", "", "vtx[1:x]", "vtx[2]x"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    assert_int_equal(sinew_component_list_create(&bad[i], 1, &d), SINEW_EINVAL);
  const char *good[] = {"vtx[*]", "f[0:5]", "vtx[7]", "vtx[2:4]"};
  assert_int_equal(sinew_component_list_create(good, 4, &d), 0);
  assert_int_equal(sinew_component_list_count(d), 4);
  assert_string_equal(sinew_component_list_item(d, 1), "f[0:5]");
  assert_null(sinew_component_list_item(d, 4));
  const int32_t *r;
  bool other;
  assert_int_equal(sinew_component_list_vertices(d, &r, &other), 3);
  assert_true(other);
  assert_int_equal(r[0], 0);
  assert_int_equal(r[1], INT32_MAX);
  assert_int_equal(r[2], 7);
  assert_int_equal(r[5], 4);
  sinew_data_unref(d);
  sinew_session_destroy(s);
}

/* ---- saving keeps the stored targets and component lists ---------------------------------- */

static void test_round_trip(void **state) {
  (void)state;
  sinew_session_t *s = open_data(BS_FILE);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_int_equal(sinew_session_write_ma(s, f, "bs.ma"), 0);
  fclose(f);
  assert_non_null(strstr(text, "setAttr \".it[0].itg[0].iti[6000].ict\" -type \"componentList\" 2 \"vtx[0]\" \"vtx[6:7]\";"));
  assert_non_null(strstr(text, "setAttr \".ic\" -type \"componentList\" 1 \"vtx[*]\";"));
  assert_non_null(strstr(text, "setAttr \".it[0].itg[2].iti[6000].ipt\" -type \"pointArray\" 2 0 0 0.47292137145996094 1 0 0 0.47292137145996094 1;"));
  free(text);
  sinew_session_destroy(s);
}


/* ---- the blendShape command --------------------------------------------------------------- */

static char *save_text(sinew_session_t *s) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_int_equal(sinew_session_write_ma(s, f, "scene.ma"), 0);
  fclose(f);
  return text;
}

static char resbuf[4096];
static const char *res(sinew_session_t *s, const char *text) {
  sinew_value_t v = {0};
  if (sinew_session_run(s, text, strlen(text), "test.mel", &v)) fail_msg("%s: %s", text, sinew_session_errmsg(s));
  sinew_value_format(&v, resbuf, sizeof resbuf);
  sinew_value_clear(&v);
  size_t n = strlen(resbuf);
  while (n && (resbuf[n - 1] == '\n' || resbuf[n - 1] == ' ')) resbuf[--n] = 0;
  return resbuf;
}

/* A failing command leaves the scene as it was (the saved text is the same, byte for byte). */
static void fails_unchanged(sinew_session_t *s, const char *text, const char *msg) {
  char *before = save_text(s);
  if (!try_run(s, text)) fail_msg("%s succeeded", text);
  if (msg && !strstr(sinew_session_errmsg(s), msg)) fail_msg("%s: '%s' lacks '%s'", text, sinew_session_errmsg(s), msg);
  char *after = save_text(s);
  assert_string_equal(before, after);
  free(before);
  free(after);
}

static void test_command_create(void **state) {
  (void)state;
  sinew_session_t *s = session();
  sinew_graph_t *g = sinew_session_graph(s);
  run(s, "polyCube -n base; polyCube -n tgt; setAttr tgtShape.pt[0] -type float3 0 1 0;"
         "polyCube -n other; setAttr otherShape.pt[7] -type float3 0.5 0 0;");
  assert_string_equal(res(s, "blendShape -n bs tgt base"), "bs");
  /* the chain Maya builds: Orig -> groupParts -> blendShape -> shape */
  sinew_node_t n;
  assert_int_equal(sinew_node_find(g, "baseShapeOrig", &n), 0);
  assert_string_equal(res(s, "getAttr baseShapeOrig.io"), "1");
  assert_string_equal(res(s, "listConnections -s 1 -d 0 -p 1 bsGroupParts.ig"), "baseShapeOrig.worldMesh[0]");
  assert_string_equal(res(s, "listConnections -s 1 -d 0 -p 1 bs.ip[0].ig"), "bsGroupParts.outputGeometry");
  assert_string_equal(res(s, "listConnections -s 1 -d 0 -p 1 bs.ip[0].gi"), "bsGroupId.groupId");
  assert_string_equal(res(s, "listConnections -s 1 -d 0 -p 1 baseShape.i"), "bs.outputGeometry[0]");
  assert_string_equal(res(s, "getAttr bsGroupParts.ic"), "vtx[*]");
  assert_string_equal(res(s, "blendShape -q -t bs"), "tgt");
  assert_string_equal(res(s, "blendShape -q -g bs"), "baseShape");
  assert_string_equal(res(s, "blendShape -q -w bs"), "0");
  /* weight 0: the base as it was; weight 1: the target's shape */
  sinew_data_t *b0 = mesh_of(g, "baseShape.o"), *t = mesh_of(g, "tgtShape.o"), *t2 = mesh_of(g, "otherShape.o");
  run(s, "setAttr bs.w[0] 1");
  sinew_data_t *o = mesh_of(g, "baseShape.o");
  assert_memory_equal(sinew_mesh_get(o)->points, sinew_mesh_get(t)->points, 24 * sizeof(float));
  sinew_data_unref(o);
  /* -e -w, -e -t (a second target), -q -w */
  run(s, "blendShape -e -w 0 0.5 bs; blendShape -e -t base 1 other 1 -w 1 1 bs");
  assert_string_equal(res(s, "blendShape -q -t bs"), "tgt\nother");
  assert_string_equal(res(s, "blendShape -q -w bs"), "0.5\n1");
  o = mesh_of(g, "baseShape.o");
  const sinew_data_t *tg[2] = {t, t2};
  const double f[2] = {0.5, 1};
  assert_combination(o, b0, tg, f, 2);
  sinew_data_unref(o);
  /* undo takes the whole command back */
  char *before = save_text(s);
  run(s, "blendShape -n bs2 other base");
  assert_int_equal(sinew_session_undo(s), 0);
  char *after = save_text(s);
  assert_string_equal(before, after);
  free(before);
  free(after);
  sinew_data_unref(b0);
  sinew_data_unref(t);
  sinew_data_unref(t2);
  sinew_session_destroy(s);
}

static void test_command_inbetween(void **state) {
  (void)state;
  sinew_session_t *s = session();
  sinew_graph_t *g = sinew_session_graph(s);
  run(s, "polyCube -n base; polyCube -n half; setAttr halfShape.pt[2] -type float3 0 1 0;"
         "polyCube -n full; setAttr fullShape.pt[2] -type float3 0 1 1;");
  run(s, "blendShape -ib -n bs half full base");
  assert_string_equal(res(s, "listConnections -s 1 -d 0 -p 1 bs.it[0].itg[0].iti[5500].igt"), "halfShape.worldMesh[0]");
  assert_string_equal(res(s, "listConnections -s 1 -d 0 -p 1 bs.it[0].itg[0].iti[6000].igt"), "fullShape.worldMesh[0]");
  sinew_data_t *b = mesh_of(g, "baseShape.o");
  float y0 = sinew_mesh_get(b)->points[7], z0 = sinew_mesh_get(b)->points[8];
  sinew_data_unref(b);
  /* along the weight: (0,0) -> (1,0) at 0.5 -> (1,1) at 1, linear between */
  const double w[] = {0.25, 0.5, 0.75, 1.0};
  const double y[] = {0.5, 1, 1, 1}, z[] = {0, 0, 0.5, 1};
  for (int i = 0; i < 4; i++) {
    char cmd[64];
    snprintf(cmd, sizeof cmd, "setAttr bs.w[0] %g", w[i]);
    run(s, cmd);
    sinew_data_t *o = mesh_of(g, "baseShape.o");
    assert_near(sinew_mesh_get(o)->points[7], y0 + y[i], 1e-6);
    assert_near(sinew_mesh_get(o)->points[8], z0 + z[i], 1e-6);
    sinew_data_unref(o);
  }
  sinew_session_destroy(s);
}

static void test_command_errors(void **state) {
  (void)state;
  sinew_session_t *s = session();
  run(s, "polyCube -n base; polyCube -n tgt; polyPlane -n flat; spaceLocator -n loc;");
  fails_unchanged(s, "blendShape tgt nothing", "nothing");
  fails_unchanged(s, "blendShape tgt loc", "not a mesh");
  fails_unchanged(s, "blendShape flat base", "points");
  fails_unchanged(s, "blendShape -o sideways tgt base", "-origin");
  fails_unchanged(s, "blendShape -t base 0 tgt 0 base", "weight");
  fails_unchanged(s, "blendShape -t tgt 0 tgt 1 base", "not the deformed geometry");
  /* fails after the node and its chain were made: all of it is taken back */
  fails_unchanged(s, "blendShape -n late -w 0 0.5 -w -1 2 tgt base", "-weight index");
  sinew_node_t n;
  assert_int_equal(sinew_node_find(sinew_session_graph(s), "late", &n), SINEW_ENOTFOUND);
  fails_unchanged(s, "blendShape -e -w 0 1 base", "not a blendShape");
  fails_unchanged(s, "blendShape -after tgt base", "not supported");
  run(s, "blendShape -n bs tgt base");
  fails_unchanged(s, "blendShape -e -t base 1 flat 1 bs", "points");
  sinew_session_destroy(s);
}

/* A blendShape in front of a skinCluster: skin(blend(points)); after it: blend(skin(points)). */
static void test_blend_then_skin(void **state) {
  (void)state;
  sinew_session_t *s = session();
  sinew_graph_t *g = sinew_session_graph(s);
  run(s, "polyCube -n body; polyCube -n tgt; setAttr tgtShape.pt[3] -type float3 0.25 0.5 0;"
         "select -cl; joint -n j1; select -cl; skinCluster -n sk j1 body;");
  run(s, "blendShape -foc -n front tgt body; setAttr front.w[0] 1;");
  /* the blendShape sits between the Orig and the skinCluster */
  assert_string_equal(res(s, "listConnections -s 1 -d 0 -p 1 sk.ip[0].ig"), "front.outputGeometry[0]");
  sinew_data_t *t = mesh_of(g, "tgtShape.o");
  run(s, "setAttr j1.tx 2; setAttr j1.rz 90;");
  sinew_data_t *o = mesh_of(g, "bodyShape.o");
  /* the joint's motion (rotate 90 about z, then move 2 in x) applied to the target's points */
  for (int v = 0; v < 8; v++) {
    const float *p = sinew_mesh_get(t)->points + 3 * v, *q = sinew_mesh_get(o)->points + 3 * v;
    assert_near(q[0], -p[1] + 2, 1e-5);
    assert_near(q[1], p[0], 1e-5);
    assert_near(q[2], p[2], 1e-5);
  }
  sinew_data_unref(o);
  /* a blendShape after the skin adds its deltas to the skinned points */
  run(s, "polyCube -n other; setAttr otherShape.pt[0] -type float3 0 0 1; blendShape -n back other body; setAttr back.w[0] 1;");
  assert_string_equal(res(s, "listConnections -s 1 -d 0 -p 1 bodyShape.i"), "back.outputGeometry[0]");
  o = mesh_of(g, "bodyShape.o");
  sinew_data_t *sk = mesh_of(g, "sk.og[0]");
  const float *q = sinew_mesh_get(o)->points, *k = sinew_mesh_get(sk)->points;
  assert_near(q[2], k[2] + 1, 1e-5);
  assert_memory_equal(q + 3, k + 3, 21 * sizeof(float));
  sinew_data_unref(sk);
  sinew_data_unref(o);
  sinew_data_unref(t);
  sinew_session_destroy(s);
}


/* ---- cluster ---------------------------------------------------------------------------------- */

static void assert_point(const sinew_data_t *m, uint32_t v, double x, double y, double z) {
  const float *p = sinew_mesh_get(m)->points + 3 * v;
  assert_near(p[0], x, 1e-5);
  assert_near(p[1], y, 1e-5);
  assert_near(p[2], z, 1e-5);
}

static void test_cluster_command(void **state) {
  (void)state;
  sinew_session_t *s = session();
  sinew_graph_t *g = sinew_session_graph(s);
  run(s, "polyCube -n box; polyCube -n other;");
  sinew_data_t *b = mesh_of(g, "boxShape.o");
  assert_string_equal(res(s, "cluster -n c1 box.vtx[0:1] box.vtx[4]"), "c1\nc1Handle");
  assert_string_equal(res(s, "getAttr c1GroupParts.ic"), "vtx[0:1]\nvtx[4]");
  assert_string_equal(res(s, "listConnections -s 1 -d 0 -p 1 c1.ma"), "c1Handle.worldMatrix[0]");
  assert_string_equal(res(s, "listConnections -s 1 -d 0 -p 1 c1.x"), "c1HandleShape.clusterTransforms");
  /* the handle's pivot is the centre of the three points; at rest nothing moves */
  const float *bp = sinew_mesh_get(b)->points;
  double c[3] = {0, 0, 0};
  const int mem[3] = {0, 1, 4};
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) c[k] += bp[3 * mem[i] + k] / 3.0;
  sinew_plug_t rp = plug(g, "c1Handle.rp");
  double rpv[3];
  assert_int_equal(sinew_get_doubles(g, &rp, rpv, 3, NULL), 0);
  for (int k = 0; k < 3; k++) assert_near(rpv[k], c[k], 1e-9);
  sinew_data_t *o = mesh_of(g, "boxShape.o");
  assert_memory_equal(sinew_mesh_get(o)->points, bp, 24 * sizeof(float));
  sinew_data_unref(o);
  /* moving the handle moves its points by the handle times their weights, no others */
  run(s, "setAttr c1Handle.ty 2; setAttr c1.wl[0].w[1] 0.5;");
  o = mesh_of(g, "boxShape.o");
  for (uint32_t v = 0; v < 8; v++) {
    double dy = v == 0 || v == 4 ? 2 : v == 1 ? 1 : 0;
    assert_point(o, v, bp[3 * v], bp[3 * v + 1] + dy, bp[3 * v + 2]);
  }
  sinew_data_unref(o);
  /* a rotation turns them about the pivot; the envelope scales the motion */
  run(s, "setAttr c1Handle.ty 0; setAttr c1Handle.rz 90; setAttr c1.en 0.5;");
  o = mesh_of(g, "boxShape.o");
  {
    const float *p = bp; /* vertex 0, weight 1: (p - c) turned 90 about z, + c; half way */
    double rx = -(p[1] - c[1]) + c[0], ry = (p[0] - c[0]) + c[1];
    assert_point(o, 0, p[0] + 0.5 * (rx - p[0]), p[1] + 0.5 * (ry - p[1]), p[2]);
  }
  sinew_data_unref(o);
  /* the handle's motion dirties the shape; another mesh's does not */
  sinew_plug_t shape = plug(g, "boxShape.o");
  sinew_data_unref(mesh_of(g, "boxShape.o"));
  run(s, "setAttr other.tx 3");
  assert_false(sinew_plug_is_dirty(g, &shape));
  run(s, "setAttr c1Handle.rz 45");
  assert_true(sinew_plug_is_dirty(g, &shape));
  /* a second cluster, undone: the scene as it was */
  char *before = save_text(s);
  assert_string_equal(res(s, "cluster box.vtx[5]"), "cluster1\ncluster1Handle");
  assert_int_equal(sinew_session_undo(s), 0);
  char *after = save_text(s);
  assert_string_equal(before, after);
  free(before);
  free(after);
  sinew_data_unref(b);
  sinew_session_destroy(s);
}

/* Relative: what moves the handle's parents does not move the points; its own motion does. */
static void test_cluster_relative(void **state) {
  (void)state;
  sinew_session_t *s = session();
  sinew_graph_t *g = sinew_session_graph(s);
  run(s, "polyCube -n box; polyCube -n crate; group -em -n up; group -em -n up2;");
  run(s, "cluster -n abs box; cluster -rel -n rel crate; parent absHandle up; parent relHandle up2;");
  sinew_data_t *b = mesh_of(g, "boxShape.o");
  run(s, "setAttr up.tx 1; setAttr up2.tx 1;");
  sinew_data_t *o1 = mesh_of(g, "boxShape.o"), *o2 = mesh_of(g, "crateShape.o");
  for (uint32_t v = 0; v < 8; v++) {
    const float *p = sinew_mesh_get(b)->points + 3 * v;
    assert_point(o1, v, p[0] + 1, p[1], p[2]);
    assert_point(o2, v, p[0], p[1], p[2]);
  }
  sinew_data_unref(o1);
  sinew_data_unref(o2);
  /* the relative handle's own translation, in its parent's frame (turned 90 about y) */
  run(s, "setAttr up2.ry 90; setAttr relHandle.tx 2;");
  o2 = mesh_of(g, "crateShape.o");
  for (uint32_t v = 0; v < 8; v++) {
    const float *p = sinew_mesh_get(b)->points + 3 * v;
    assert_point(o2, v, p[0], p[1], p[2] - 2);
  }
  sinew_data_unref(o2);
  sinew_data_unref(b);
  sinew_session_destroy(s);
}

static void test_cluster_errors(void **state) {
  (void)state;
  sinew_session_t *s = session();
  run(s, "polyCube -n box; polyCube -n box2; spaceLocator -n loc;");
  fails_unchanged(s, "cluster nothing", "nothing");
  fails_unchanged(s, "cluster loc", "not a mesh");
  fails_unchanged(s, "cluster box.f[0]", "vertices");
  fails_unchanged(s, "cluster box.vtx[3:1]", "malformed");
  fails_unchanged(s, "cluster box.vtx[100:120]", "no points");
  fails_unchanged(s, "cluster box box2", "several meshes");
  fails_unchanged(s, "cluster -wn loc box2 box", "the second must be the first or below it");
  fails_unchanged(s, "cluster -wn nothing nothing box", "nothing");
  fails_unchanged(s, "cluster -wn boxShape boxShape box", "not a transform");
  fails_unchanged(s, "cluster -bs 1 -rel -wn loc loc box", "not supported");
  fails_unchanged(s, "cluster -after box", "-after is not supported");
  fails_unchanged(s, "cluster -e -en 0.5 box", "not a cluster");
  fails_unchanged(s, "cluster -q -wn box", "not a cluster");
  run(s, "cluster -n c1 box");
  fails_unchanged(s, "cluster -e -wn loc loc c1", "create flags");
  fails_unchanged(s, "cluster -q c1", "-query needs");
  sinew_session_destroy(s);
}

/* Point 0 of a mesh's output, checked against hand-worked values. */
static void assert_point0(sinew_graph_t *g, const char *plugtext, double x, double y, double z) {
  sinew_data_t *o = mesh_of(g, plugtext);
  const float *p = sinew_mesh_get(o)->points;
  assert_near(p[0], x, 1e-5);
  assert_near(p[1], y, 1e-5);
  assert_near(p[2], z, 1e-5);
  sinew_data_unref(o);
}

/* Point 0 of boxShape after the commands, against hand-worked values (cube point 0 is
 * (-0.5 -0.5 0.5)). */
static void box_point0(sinew_session_t *s, const char *shape, double x, double y, double z) {
  char plugtext[128];
  snprintf(plugtext, sizeof plugtext, "%s.o", shape);
  assert_point0(sinew_session_graph(s), plugtext, x, y, z);
}

/* cluster -wn: an existing transform drives the cluster, no handle is made. */
static void test_cluster_weighted_node(void **state) {
  (void)state;
  sinew_session_t *s = session();
  run(s, "polyCube -n box; spaceLocator -n ctl; setAttr ctl.t 1 2 3;");
  char *before = save_text(s);
  /* bindState off (Maya's default): the points take ctl's transformation at once */
  assert_string_equal(res(s, "cluster -wn ctl ctl -n c1 box"), "c1\nctl");
  assert_string_equal(res(s, "ls -et clusterHandle"), "");
  assert_string_equal(res(s, "objExists c1Handle"), "0");
  assert_string_equal(res(s, "listConnections -s 1 -d 0 -p 1 c1.matrix"), "ctl.worldMatrix[0]");
  box_point0(s, "boxShape", 0.5, 1.5, 3.5);
  assert_string_equal(res(s, "cluster -q -wn c1"), "ctl\nctl");
  assert_string_equal(res(s, "cluster -q -g c1"), "boxShape");
  assert_string_equal(res(s, "cluster -q -rel c1"), "0");
  /* -e -en: half of it */
  run(s, "cluster -e -en 0.5 c1");
  assert_string_equal(res(s, "cluster -q -en c1"), "0.5");
  box_point0(s, "boxShape", 0, 0.5, 2);
  /* undo: the scene as before the cluster */
  assert_int_equal(sinew_session_undo(s), 0);
  assert_int_equal(sinew_session_undo(s), 0);
  char *after = save_text(s);
  assert_string_equal(before, after);
  free(before);
  free(after);
  /* bindState on: the points stay; moving ctl moves them, rotating it turns them about it:
   * rotateZ 90 takes (x y) about (1 2) to (1 - (y - 2), 2 + (x - 1)): (3.5 0.5) */
  run(s, "cluster -bs 1 -wn ctl ctl -n c2 box");
  box_point0(s, "boxShape", -0.5, -0.5, 0.5);
  run(s, "setAttr ctl.tx 2");
  box_point0(s, "boxShape", 0.5, -0.5, 0.5);
  run(s, "setAttr ctl.tx 1; setAttr ctl.rz 90");
  box_point0(s, "boxShape", 3.5, 0.5, 0.5);
  /* saved and read back: ordinary connections, the same point */
  char *text = save_text(s);
  sinew_session_t *s2 = session();
  run(s2, text);
  box_point0(s2, "boxShape", 3.5, 0.5, 0.5);
  free(text);
  sinew_session_destroy(s2);
  /* relative with a weighted node under an offset group: only the node's own transformation
   * counts; moving the group moves nothing */
  run(s, "polyCube -n boxc; createNode transform -n off; setAttr off.t 5 0 0;"
         "createNode transform -n ctl3 -p off; cluster -rel -wn ctl3 ctl3 -n c3 boxc");
  box_point0(s, "boxcShape", -0.5, -0.5, 0.5);
  run(s, "setAttr ctl3.tx 1; setAttr off.ty 7");
  box_point0(s, "boxcShape", 0.5, -0.5, 0.5);
  assert_string_equal(res(s, "cluster -q -rel c3"), "1");
  /* a weighted node above the driving one */
  run(s, "polyCube -n boxd; createNode transform -n arm; createNode transform -n hand -p arm;"
         "setAttr hand.ty 1; cluster -bs 1 -wn arm hand -n c4 boxd; setAttr arm.tx 2");
  assert_string_equal(res(s, "listConnections -s 1 -d 0 -p 1 c4.matrix"), "hand.worldMatrix[0]");
  box_point0(s, "boxdShape", 1.5, -0.5, 0.5);
  /* -foc: in front of a blendShape already on the mesh */
  run(s, "polyCube -n boxe; polyCube -n tgte; blendShape -n bs5 tgte boxe; cluster -foc -n c5 boxe");
  assert_string_equal(res(s, "listConnections -s 1 -d 0 boxeShape.i"), "bs5");
  sinew_session_destroy(s);
  assert_true(test_fault("polyCube -n box; spaceLocator -n ctl; setAttr ctl.t 1 2 3;",
                         "cluster -bs 1 -wn ctl ctl box") > 0);
}

/* A cluster as Maya writes it in a file: the handle's transform at identity with its pivot on
 * the points, the set's groupParts naming them, the handle shape's transforms connected. */
static const char cluster_ma[] =
    "//Maya ASCII 2018 scene\n"
    "requires maya \"2018\";\n"
    "currentUnit -l centimeter -a degree -t film;\n"
    "createNode transform -n \"box\";\n"
    "createNode mesh -n \"boxShape\" -p \"box\";\n"
    "\tsetAttr -k off \".v\";\n"
    "createNode mesh -n \"boxShapeOrig\" -p \"box\";\n"
    "\tsetAttr -k off \".v\";\n"
    "\tsetAttr \".io\" yes;\n"
    "createNode transform -n \"cluster1Handle\";\n"
    "\tsetAttr \".rp\" -type \"double3\" 0 0.5 0 ;\n"
    "\tsetAttr \".sp\" -type \"double3\" 0 0.5 0 ;\n"
    "createNode clusterHandle -n \"cluster1HandleShape\" -p \"cluster1Handle\";\n"
    "\tsetAttr \".ihi\" 0;\n"
    "\tsetAttr -k off \".v\";\n"
    "\tsetAttr \".or\" -type \"double3\" 0 0.5 0 ;\n"
    "createNode polyCube -n \"polyCube1\";\n"
    "\tsetAttr \".cuv\" 4;\n"
    "createNode cluster -n \"cluster1\";\n"
    "\tsetAttr \".rel\" yes;\n"
    "\tsetAttr \".wl[0].w[3]\" 0.25;\n"
    "\tsetAttr \".gm[0]\" -type \"matrix\" 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1;\n"
    "createNode objectSet -n \"cluster1Set\";\n"
    "\tsetAttr \".ihi\" 0;\n"
    "\tsetAttr \".vo\" yes;\n"
    "createNode groupId -n \"cluster1GroupId\";\n"
    "\tsetAttr \".ihi\" 0;\n"
    "createNode groupParts -n \"cluster1GroupParts\";\n"
    "\tsetAttr \".ihi\" 0;\n"
    "\tsetAttr \".ic\" -type \"componentList\" 1 \"vtx[2:5]\";\n"
    "connectAttr \"cluster1GroupId.id\" \"boxShape.iog.og[0].gid\";\n"
    "connectAttr \"cluster1Set.mwc\" \"boxShape.iog.og[0].gco\";\n"
    "connectAttr \"cluster1.og[0]\" \"boxShape.i\";\n"
    "connectAttr \"polyCube1.out\" \"boxShapeOrig.i\";\n"
    "connectAttr \"cluster1GroupParts.og\" \"cluster1.ip[0].ig\";\n"
    "connectAttr \"cluster1GroupId.id\" \"cluster1.ip[0].gi\";\n"
    "connectAttr \"cluster1Handle.wm\" \"cluster1.ma\";\n"
    "connectAttr \"cluster1HandleShape.x\" \"cluster1.x\";\n"
    "connectAttr \"cluster1GroupId.msg\" \"cluster1Set.gn\" -na;\n"
    "connectAttr \"boxShape.iog.og[0]\" \"cluster1Set.dsm\" -na;\n"
    "connectAttr \"cluster1.msg\" \"cluster1Set.ub[0]\";\n"
    "connectAttr \"boxShapeOrig.w\" \"cluster1GroupParts.ig\";\n"
    "connectAttr \"cluster1GroupId.id\" \"cluster1GroupParts.gi\";\n";

static sinew_session_t *open_text(const char *text) {
  char path[] = "/tmp/sinew_deform_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
  fclose(f);
  char ma[64];
  snprintf(ma, sizeof ma, "%s.ma", path);
  assert_int_equal(rename(path, ma), 0);
  sinew_session_t *s = session();
  sinew_session_stats_t st;
  int rc = sinew_session_open(s, ma);
  remove(ma);
  if (rc) fail_msg("%s", sinew_session_errmsg(s));
  sinew_session_stats(s, &st);
  return s;
}

static void test_cluster_file(void **state) {
  (void)state;
  sinew_session_t *s = open_text(cluster_ma);
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_data_t *b = mesh_of(g, "boxShapeOrig.o");
  run(s, "setAttr cluster1Handle.tz 1;");
  sinew_data_t *o = mesh_of(g, "boxShape.o");
  for (uint32_t v = 0; v < 8; v++) {
    const float *p = sinew_mesh_get(b)->points + 3 * v;
    double dz = v < 2 || v > 5 ? 0 : v == 3 ? 0.25 : 1; /* members 2..5, vertex 3 at 0.25 */
    assert_point(o, v, p[0], p[1], p[2] + dz);
  }
  sinew_data_unref(o);
  /* saved and read back, it deforms the same */
  char *text = save_text(s);
  assert_non_null(strstr(text, "connectAttr \"cluster1HandleShape.x\" \"cluster1.x\";"));
  sinew_session_t *s2 = open_text(text);
  free(text);
  run(s2, "setAttr cluster1Handle.tz 1;");
  sinew_data_t *o2 = mesh_of(sinew_session_graph(s2), "boxShape.o");
  o = mesh_of(g, "boxShape.o");
  assert_memory_equal(sinew_mesh_get(o)->points, sinew_mesh_get(o2)->points, 24 * sizeof(float));
  sinew_data_unref(o);
  sinew_data_unref(o2);
  sinew_data_unref(b);
  sinew_session_destroy(s2);
  sinew_session_destroy(s);
}


/* ---- membership ---------------------------------------------------------------------------------- */

/* A skinCluster behind a groupParts naming vertices 0..3: only those follow the joint. */
static void test_skin_membership(void **state) {
  (void)state;
  sinew_session_t *s = session();
  sinew_graph_t *g = sinew_session_graph(s);
  run(s, "polyCube -n body; select -cl; joint -n j1; select -cl; skinCluster -n sk j1 body;"
         "createNode groupParts -n gp; setAttr gp.ic -type \"componentList\" 2 \"vtx[0:2]\" \"vtx[3]\";"
         "connectAttr -f bodyShapeOrig.outMesh gp.ig; connectAttr -f gp.og sk.ip[0].ig;");
  sinew_data_t *b = mesh_of(g, "bodyShapeOrig.o");
  run(s, "setAttr j1.tx 2");
  sinew_data_t *o = mesh_of(g, "bodyShape.o");
  for (uint32_t v = 0; v < 8; v++) {
    const float *p = sinew_mesh_get(b)->points + 3 * v;
    assert_point(o, v, p[0] + (v < 4 ? 2 : 0), p[1], p[2]);
  }
  sinew_data_unref(o);
  /* the list changes: the output follows */
  run(s, "setAttr gp.ic -type \"componentList\" 1 \"vtx[*]\"");
  o = mesh_of(g, "bodyShape.o");
  for (uint32_t v = 0; v < 8; v++) {
    const float *p = sinew_mesh_get(b)->points + 3 * v;
    assert_point(o, v, p[0] + 2, p[1], p[2]);
  }
  sinew_data_unref(o);
  /* components that are not vertices (faces) cannot be mapped here: every point, as before */
  run(s, "setAttr gp.ic -type \"componentList\" 1 \"f[0]\"");
  o = mesh_of(g, "bodyShape.o");
  assert_point(o, 7, sinew_mesh_get(b)->points[21] + 2, sinew_mesh_get(b)->points[22], sinew_mesh_get(b)->points[23]);
  sinew_data_unref(o);
  sinew_data_unref(b);
  sinew_session_destroy(s);
}

/* A blendShape's set: a target moving every point changes only the members. */
static void test_blend_membership(void **state) {
  (void)state;
  sinew_session_t *s = session();
  sinew_graph_t *g = sinew_session_graph(s);
  run(s, "polyCube -n base; polyCube -n tgt;"
         "for ($i = 0; $i < 8; $i++) setAttr (\"tgtShape.pt[\" + $i + \"]\") -type float3 0 1 0;"
         "blendShape -n bs tgt base; setAttr bs.w[0] 1;"
         "setAttr bsGroupParts.ic -type \"componentList\" 1 \"vtx[6:7]\";");
  sinew_data_t *b = mesh_of(g, "baseShapeOrig.o"), *t = mesh_of(g, "tgtShape.o");
  sinew_data_t *o = mesh_of(g, "baseShape.o");
  assert_near(sinew_mesh_get(t)->points[1], sinew_mesh_get(b)->points[1] + 1, 1e-6); /* the target differs */
  for (uint32_t v = 0; v < 8; v++) {
    const float *p = sinew_mesh_get(v >= 6 ? t : b)->points + 3 * v;
    assert_point(o, v, p[0], p[1], p[2]);
  }
  sinew_data_unref(o);
  sinew_data_unref(t);
  sinew_data_unref(b);
  sinew_session_destroy(s);
}


/* blendShape23 feeds skinCluster2 (a baked target on vtx[2], its weight keyed 0 -> 1 over
 * frames 1 -> 20, the joints animated): the skin deforms the blended points, checked against
 * the linear skinning formula worked here from the file's weights and the graph's matrices. */
static void test_corpus_blend_then_skin(void **state) {
  (void)state;
  sinew_session_t *s = open_data(BS_FILE);
  sinew_graph_t *g = sinew_session_graph(s);
  assert_int_equal(sinew_time_set_frame(g, 12), 0);
  sinew_plug_t wp = plug(g, "blendShape23.w[0]");
  double w = 0;
  assert_int_equal(sinew_get_double(g, &wp, &w), 0);
  assert_true(w > 0.2 && w < 0.9);
  sinew_data_t *in = mesh_of(g, "blendShape23.ip[0].ig"), *bl = mesh_of(g, "blendShape23.og[0]");
  const double d2[3] = {-0.70974814891815186, 0.56029319763183594, 0.61569833755493164};
  for (uint32_t v = 0; v < 8; v++)
    for (int c = 0; c < 3; c++)
      assert_near(sinew_mesh_get(bl)->points[3 * v + c], sinew_mesh_get(in)->points[3 * v + c] + (v == 2 ? w * d2[c] : 0),
                  1e-6);
  /* skin(blend(points)) */
  sinew_mat4_t G, Gi, M[2];
  sinew_plug_t gm = plug(g, "skinCluster2.gm");
  assert_int_equal(sinew_get_matrix(g, &gm, &G), 0);
  assert_true(sinew_mat4_inverse(&G, &Gi));
  for (int i = 0; i < 2; i++) {
    char a[64], b[64];
    snprintf(a, sizeof a, "skinCluster2.pm[%d]", i);
    snprintf(b, sizeof b, "skinCluster2.ma[%d]", i);
    sinew_plug_t pa = plug(g, a), pb = plug(g, b);
    sinew_mat4_t pm, ma, t;
    assert_int_equal(sinew_get_matrix(g, &pa, &pm), 0);
    assert_int_equal(sinew_get_matrix(g, &pb, &ma), 0);
    sinew_mat4_mul(&G, &pm, &t);
    sinew_mat4_mul(&t, &ma, &M[i]);
  }
  const double wts[8] = {0.85712288128259462, 0.9886539866732359, 0.85712288128259462, 0.9886539866732359,
                         0.57410486203748967, 0.78767572210252079, 0.57410486203748967, 0.78767572210252079};
  sinew_data_t *sk = mesh_of(g, "|basic_skinned_cube_blendshape_baked_target_anim|base|baseShape.o");
  bool moved = false;
  for (uint32_t v = 0; v < 8; v++) {
    const float *p = sinew_mesh_get(bl)->points + 3 * v;
    sinew_vec3_t pv = {p[0], p[1], p[2]}, q0, q1, sum, out;
    sinew_mat4_transform_point(pv, &M[0], &q0);
    sinew_mat4_transform_point(pv, &M[1], &q1);
    sum = (sinew_vec3_t){wts[v] * q0.x + (1 - wts[v]) * q1.x, wts[v] * q0.y + (1 - wts[v]) * q1.y,
                         wts[v] * q0.z + (1 - wts[v]) * q1.z};
    sinew_mat4_transform_point(sum, &Gi, &out);
    assert_point(sk, v, out.x, out.y, out.z);
    moved = moved || fabs(out.x - p[0]) + fabs(out.y - p[1]) + fabs(out.z - p[2]) > 1e-3;
  }
  assert_true(moved); /* the joints are posed away from the bind pose at this frame */
  sinew_data_unref(sk);
  sinew_data_unref(bl);
  sinew_data_unref(in);
  sinew_session_destroy(s);
}


/* ---- out of memory ------------------------------------------------------------------------------ */

static void set_data(sinew_graph_t *g, const char *text, sinew_data_t *d) {
  sinew_plug_t p = plug(g, text);
  if (sinew_set_data(g, &p, d)) fail_msg("%s: %s", text, sinew_graph_errmsg(g));
  sinew_data_unref(d);
}

/* A blendShape (stored targets, an in-between, painted weights, a set) evaluated with each of
 * its allocations failing in turn: the read fails with SINEW_ENOMEM or gives the right points,
 * the next read (memory back) gives them, and nothing leaks. */
static void test_blend_alloc_failures(void **state) {
  (void)state;
  test_alloc_install();
  long total = -1;
  float want[24];
  for (long k = 0; total < 0 || k <= total; k++) {
    test_alloc_reset();
    sinew_graph_t *g = NULL;
    assert_int_equal(sinew_scene_create(NULL, &g), 0);
    sinew_node_t gp, bs;
    assert_int_equal(sinew_node_create(g, "groupParts", "gp", &gp), 0);
    assert_int_equal(sinew_node_create(g, "blendShape", "bs", &bs), 0);
    sinew_data_t *m = NULL, *d = NULL;
    assert_int_equal(sinew_mesh_cube(1, 1, 1, 1, 1, 1, &m), 0);
    set_data(g, "gp.ig", sinew_data_ref(m));
    const char *members[] = {"vtx[0:3]"}, *some[] = {"vtx[1]", "vtx[3:4]"};
    assert_int_equal(sinew_component_list_create(members, 1, &d), 0);
    set_data(g, "gp.ic", d);
    sinew_plug_t a = plug(g, "gp.og"), b = plug(g, "bs.ip[0].ig");
    assert_int_equal(sinew_connect(g, &a, &b, 0, NULL), 0);
    const double full[12] = {1, 0, 0, 1, 0, 2, 0, 1, 0, 0, 3, 1}, half[12] = {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1};
    assert_int_equal(sinew_point_array_create(full, 3, &d), 0);
    set_data(g, "bs.it[0].itg[0].iti[6000].ipt", d);
    assert_int_equal(sinew_point_array_create(half, 3, &d), 0);
    set_data(g, "bs.it[0].itg[0].iti[5500].ipt", d);
    for (int i = 0; i < 2; i++) {
      assert_int_equal(sinew_component_list_create(some, 2, &d), 0);
      set_data(g, i ? "bs.it[0].itg[0].iti[5500].ict" : "bs.it[0].itg[0].iti[6000].ict", d);
    }
    set1(g, "bs.w[0]", 0.75);
    set1(g, "bs.it[0].itg[0].tw[3]", 0.5);
    set1(g, "bs.it[0].bw[1]", 0.25);
    sinew_plug_t og = plug(g, "bs.og[0]");
    long before = test_alloc_count();
    if (k) test_alloc_fail_at(before + k); /* k = 0: a clean run that counts */
    sinew_data_t *out = NULL;
    int rc = sinew_get_data(g, &og, &out);
    test_alloc_fail_at(0);
    if (!k) {
      total = test_alloc_count() - before;
      assert_int_equal(rc, 0);
      memcpy(want, sinew_mesh_get(out)->points, sizeof want);
      /* worked by hand: w 0.75 is half way from the in-between (0.5) to the full item */
      const float *p = sinew_mesh_get(m)->points;
      assert_near(want[3 * 1 + 0], p[3] + 0.25 * 0.5 * 1, 1e-6); /* baseWeights 0.25 */
      assert_near(want[3 * 1 + 1], p[4] + 0.25 * 0.5 * 1, 1e-6);
      assert_near(want[3 * 3 + 1], p[10] + 0.5 * (0.5 * 1 + 0.5 * 2), 1e-6);
      assert_memory_equal(want + 12, p + 12, 12 * sizeof(float)); /* not members, or no delta */
    }
    assert_true(rc == 0 || rc == SINEW_ENOMEM);
    if (out) assert_memory_equal(sinew_mesh_get(out)->points, want, sizeof want);
    sinew_data_unref(out);
    out = NULL;
    assert_int_equal(sinew_get_data(g, &og, &out), 0);
    assert_memory_equal(sinew_mesh_get(out)->points, want, sizeof want);
    sinew_data_unref(out);
    sinew_data_unref(m);
    sinew_graph_destroy(g);
    assert_int_equal(test_alloc_live(), 0);
  }
  assert_true(total >= 3);
  test_alloc_uninstall();
}


/* What compiles when: a weight compiles nothing, a target at weight 0 is not compiled, a new
 * base (the creation node's width) measures the live targets again, a moved target only that
 * target. */
static void test_compiles(void **state) {
  (void)state;
  sinew_session_t *s = session();
  sinew_graph_t *g = sinew_session_graph(s);
  run(s, "polyCube -n base; polyCube -n tgt; setAttr tgtShape.pt[0] -type float3 0 1 0;"
         "polyCube -n other; setAttr otherShape.pt[1] -type float3 1 0 0;"
         "blendShape -n bs tgt other base;");
  sinew_node_t bs;
  assert_int_equal(sinew_node_find(g, "bs", &bs), 0);
  uint64_t c0, c1;
  sinew_data_unref(mesh_of(g, "baseShape.o"));
  assert_int_equal(sinew_blend_shape_stats(g, bs, NULL, NULL, &c0), 0);
  assert_int_equal(c0, 0); /* every weight 0: nothing compiled */
  run(s, "setAttr bs.w[0] 1");
  sinew_data_unref(mesh_of(g, "baseShape.o"));
  assert_int_equal(sinew_blend_shape_stats(g, bs, NULL, NULL, &c1), 0);
  assert_int_equal(c1, 1); /* target 0 only */
  for (int i = 0; i < 5; i++) {
    char cmd[64];
    snprintf(cmd, sizeof cmd, "setAttr bs.w[0] %g", 0.1 * (i + 1));
    run(s, cmd);
    sinew_data_unref(mesh_of(g, "baseShape.o"));
  }
  assert_int_equal(sinew_blend_shape_stats(g, bs, NULL, NULL, &c1), 0);
  assert_int_equal(c1, 1); /* weights compile nothing */
  /* the base changes (the cube widens): at weight 1 the shape is still the target's */
  run(s, "setAttr bs.w[0] 1; setAttr polyCube1.w 3");
  sinew_data_t *o = mesh_of(g, "baseShape.o"), *t = mesh_of(g, "tgtShape.o");
  assert_memory_equal(sinew_mesh_get(o)->points, sinew_mesh_get(t)->points, 24 * sizeof(float));
  sinew_data_unref(o);
  sinew_data_unref(t);
  assert_int_equal(sinew_blend_shape_stats(g, bs, NULL, NULL, &c1), 0);
  assert_int_equal(c1, 2);
  /* the other target moves while at weight 0: compiled only once its weight is set */
  run(s, "setAttr otherShape.pt[1] -type float3 2 0 0;");
  sinew_data_unref(mesh_of(g, "baseShape.o"));
  assert_int_equal(sinew_blend_shape_stats(g, bs, NULL, NULL, &c1), 0);
  assert_int_equal(c1, 2);
  run(s, "setAttr bs.w[1] 0.5");
  sinew_data_unref(mesh_of(g, "baseShape.o"));
  assert_int_equal(sinew_blend_shape_stats(g, bs, NULL, NULL, &c1), 0);
  assert_int_equal(c1, 3);
  sinew_session_destroy(s);
}


/* A tweak behind a groupParts naming vertices 0..1: an offset on vertex 3 does nothing. */
static void test_tweak_membership(void **state) {
  (void)state;
  sinew_session_t *s = session();
  sinew_graph_t *g = sinew_session_graph(s);
  run(s, "polyCube -n box; createNode groupParts -n gp; createNode tweak -n tw;"
         "setAttr gp.ic -type \"componentList\" 1 \"vtx[0:1]\";"
         "connectAttr polyCube1.out gp.ig; connectAttr gp.og tw.ip[0].ig;"
         "setAttr tw.vl[0].vt[0] -type float3 0 1 0; setAttr tw.vl[0].vt[3] -type float3 0 1 0;");
  sinew_data_t *in = mesh_of(g, "gp.og"), *o = mesh_of(g, "tw.og[0]");
  const float *p = sinew_mesh_get(in)->points;
  assert_point(o, 0, p[0], p[1] + 1, p[2]);
  assert_point(o, 3, p[9], p[10], p[11]);
  sinew_data_unref(o);
  sinew_data_unref(in);
  sinew_session_destroy(s);
}


/* A mesh with no history (its points stored, a pnts tweak on it): the Orig takes the points with
 * the tweak, which leaves the shape; undo gives the scene back. */
static void test_command_stored_base(void **state) {
  (void)state;
  sinew_session_t *s = session();
  sinew_graph_t *g = sinew_session_graph(s);
  run(s, "polyCube -ch 0 -n box; polyCube -ch 0 -n tgt; setAttr boxShape.pt[2] -type float3 0 0.5 0;");
  sinew_data_t *b = mesh_of(g, "boxShape.o");
  char *before = save_text(s);
  run(s, "blendShape -n bs tgt box;");
  assert_string_equal(res(s, "listConnections -s 1 -d 0 boxShape.i"), "bs");
  sinew_data_t *orig = mesh_of(g, "boxShapeOrig.o"), *o = mesh_of(g, "boxShape.o");
  assert_memory_equal(sinew_mesh_get(orig)->points, sinew_mesh_get(b)->points, 24 * sizeof(float));
  assert_memory_equal(sinew_mesh_get(o)->points, sinew_mesh_get(b)->points, 24 * sizeof(float));
  sinew_data_unref(orig);
  sinew_data_unref(o);
  assert_string_equal(res(s, "getAttr boxShape.pt[2]"), "0\n0\n0");
  assert_int_equal(sinew_session_undo(s), 0);
  char *after = save_text(s);
  assert_string_equal(before, after);
  o = mesh_of(g, "boxShape.o");
  assert_memory_equal(sinew_mesh_get(o)->points, sinew_mesh_get(b)->points, 24 * sizeof(float));
  sinew_data_unref(o);
  free(before);
  free(after);
  sinew_data_unref(b);
  sinew_session_destroy(s);
}


/* Stored targets whose lists do not match: points pair with vertices in order until either
 * runs out, vertices past the geometry are ignored; queries of the command's other flags. */
/* origin world: the target's points go to the world through the target's matrix and back
 * through the base's inverse. The base is scaled 2 and moved 10 in x, the target moved 1 in y
 * with its point 0 (-0.5 -0.5 0.5) raised by 1: in the world (-0.5 1.5 0.5), in the base's
 * space ((-0.5 - 10) / 2, 1.5 / 2, 0.5 / 2) = (-5.25 0.75 0.25), so at weight 0.5 point 0 is
 * halfway from (-0.5 -0.5 0.5): (-2.875 0.125 0.375). With origin local: (-0.5 0 0.5). */
static void test_origin_world(void **state) {
  (void)state;
  sinew_session_t *s = session();
  sinew_graph_t *g = sinew_session_graph(s);
  run(s, "polyCube -n base; polyCube -n tgt; setAttr tgtShape.pt[0] -type float3 0 1 0;"
         "setAttr base.t 10 0 0; setAttr base.s 2 2 2; setAttr tgt.ty 1;");
  /* the command is one undo step, its wiring included */
  char *before = save_text(s);
  run(s, "blendShape -o world -n bs tgt base");
  assert_string_equal(res(s, "listConnections -s 1 -d 0 -p 1 bs.snbm[0]"), "base.worldMatrix[0]");
  assert_int_equal(sinew_session_undo(s), 0);
  char *after = save_text(s);
  assert_string_equal(before, after);
  free(before);
  free(after);
  assert_int_equal(sinew_session_redo(s), 0);
  assert_string_equal(res(s, "listConnections -s 1 -d 0 -p 1 bs.it[0].itg[0].iti[6000].sntm"), "tgt.worldMatrix[0]");
  run(s, "setAttr bs.w[0] 0.5");
  assert_string_equal(res(s, "getAttr bs.origin"), "0");
  assert_point0(g, "baseShape.o", -2.875, 0.125, 0.375);
  /* the world matrices are inputs: moving the target or the base moves the result */
  run(s, "setAttr tgt.ty 2"); /* world y 2.5, base space 1.25 */
  assert_point0(g, "baseShape.o", -2.875, 0.375, 0.375);
  run(s, "setAttr base.tx 20"); /* base space x (-0.5 - 20) / 2 */
  assert_point0(g, "baseShape.o", -5.375, 0.375, 0.375);
  /* saved without sinew's wiring, read back wired again: the same point */
  char *text = save_text(s);
  assert_null(strstr(text, "snbm"));
  assert_null(strstr(text, "sntm"));
  sinew_session_t *s2 = session();
  run(s2, text);
  assert_point0(sinew_session_graph(s2), "baseShape.o", -5.375, 0.375, 0.375);
  free(text);
  sinew_session_destroy(s2);
  /* origin local: object-space points, whatever the transforms; the wiring goes */
  run(s, "setAttr bs.origin 1");
  assert_point0(g, "baseShape.o", -0.5, 0, 0.5);
  assert_string_equal(res(s, "listConnections -s 1 -d 0 bs.snbm[0]"), "");
  assert_string_equal(res(s, "listConnections -s 1 -d 0 bs.it[0].itg[0].iti[6000].sntm"), "");
  run(s, "setAttr base.tx 30; setAttr tgt.ty 3");
  assert_point0(g, "baseShape.o", -0.5, 0, 0.5);
  /* and back to world by setAttr: the session wires it after the script */
  run(s, "setAttr base.tx 10; setAttr tgt.ty 1; setAttr bs.origin 0");
  assert_point0(g, "baseShape.o", -2.875, 0.125, 0.375);
  /* -e -t adds a target wired in world space: a second target equal to the base in the world
   * (the base's own shape, moved and scaled as the base) adds nothing */
  run(s, "polyCube -n same; setAttr same.t 10 0 0; setAttr same.s 2 2 2; blendShape -e -t base 1 same 1 -w 1 1 bs");
  assert_string_equal(res(s, "listConnections -s 1 -d 0 -p 1 bs.it[0].itg[1].iti[6000].sntm"), "same.worldMatrix[0]");
  assert_point0(g, "baseShape.o", -2.875, 0.125, 0.375);
  run(s, "setAttr same.ty 1"); /* now it lifts the base by 1 / 2 in its space */
  assert_point0(g, "baseShape.o", -2.875, 0.625, 0.375);
  /* the wiring refuses what is not a blendShape */
  sinew_node_t tgt;
  assert_int_equal(sinew_node_find(g, "tgt", &tgt), 0);
  assert_int_equal(sinew_blend_shape_wire_world(g, tgt), SINEW_ETYPE);
  sinew_session_destroy(s);
  /* every allocation of the command failing in turn leaves the scene as it was */
  assert_true(test_fault("polyCube -n base; polyCube -n tgt; setAttr base.tx 10;",
                         "blendShape -o world -n bs tgt base") > 0);
}

static void test_stored_target_mismatch(void **state) {
  (void)state;
  sinew_session_t *s = session();
  sinew_graph_t *g = sinew_session_graph(s);
  run(s, "polyCube -n box; blendShape -n bs box; setAttr bs.w[0] 1;"
         "setAttr bs.it[0].itg[0].iti[6000].ipt -type \"pointArray\" 3 1 0 0 1 2 0 0 1 3 0 0 1;"
         "setAttr bs.it[0].itg[0].iti[6000].ict -type \"componentList\" 2 \"vtx[6:9]\" \"vtx[0]\";"
         "setAttr bs.it[0].itg[1].iti[6000].ipt -type \"pointArray\" 2 0 5 0 1 0 6 0 1;"
         "setAttr bs.it[0].itg[1].iti[6000].ict -type \"componentList\" 1 \"vtx[1]\"; setAttr bs.w[1] 1;");
  sinew_data_t *b = mesh_of(g, "boxShapeOrig.o"), *o = mesh_of(g, "boxShape.o");
  const float *p = sinew_mesh_get(b)->points;
  /* target 0: vertex 6 +1, vertex 7 +2, vertices 8 and 9 do not exist (point 3 unused), vertex 0 gets nothing */
  assert_point(o, 6, p[18] + 1, p[19], p[20]);
  assert_point(o, 7, p[21] + 2, p[22], p[23]);
  assert_point(o, 0, p[0], p[1], p[2]);
  /* target 1: one vertex for two points */
  assert_point(o, 1, p[3], p[4] + 5, p[5]);
  sinew_data_unref(o);
  sinew_data_unref(b);
  assert_string_equal(res(s, "blendShape -q -wc bs"), "2");
  assert_string_equal(res(s, "blendShape -q -en bs"), "1");
  assert_string_equal(res(s, "blendShape -q -tc bs"), "1");
  assert_string_equal(res(s, "blendShape -q -t bs"), ""); /* no live target */
  sinew_session_destroy(s);
}

/* A deformer that moves nothing passes a nurbsCurve through as the same block, and gives no
 * warning (it would for geometry it cannot deform: "deform meshes and curves only"). */
static int not_mesh_warnings;
static void count_not_mesh(void *ud, sinew_log_level_t level, sinew_log_id_t id, const char *msg) {
  (void)ud;
  (void)id;
  if (level == SINEW_LOG_WARNING && strstr(msg, "deform meshes and curves only")) not_mesh_warnings++;
}

static void test_curve_passes_through(void **state) {
  (void)state;
  sinew_graph_t *g = NULL;
  assert_int_equal(sinew_scene_create(NULL, &g), 0);
  sinew_graph_set_logger(g, count_not_mesh, NULL);
  sinew_data_t *curve = NULL;
  assert_int_equal(sinew_curve_circle((sinew_vec3_t){0, 1, 0}, (sinew_vec3_t){0, 0, 0}, 2, 3, 8, 2 * 3.14159265358979323846, &curve), 0);
  static const char *const types[] = {"skinCluster", "blendShape", "cluster", "tweak"};
  for (size_t i = 0; i < 4; i++) {
    sinew_node_t d;
    assert_int_equal(sinew_node_create(g, types[i], NULL, &d), 0);
    sinew_plug_t ig, og;
    assert_int_equal(sinew_plug_parse_attr(g, d, "input[0].inputGeometry", &ig), 0);
    assert_int_equal(sinew_plug_parse_attr(g, d, "outputGeometry[0]", &og), 0);
    assert_int_equal(sinew_set_data(g, &ig, curve), 0);
    not_mesh_warnings = 0;
    for (int frame = 0; frame < 3; frame++) {
      sinew_data_t *out = NULL;
      assert_int_equal(sinew_get_data(g, &og, &out), 0);
      assert_ptr_equal(out, curve); /* undeformed, not copied */
      sinew_data_unref(out);
      assert_int_equal(sinew_set_data(g, &ig, curve), 0); /* dirty again */
    }
    /* a curve is geometry the deformers deform (tests/test_curve_deform.c): no warning */
    if (not_mesh_warnings != 0) fail_msg("%s: %d warnings, want none", types[i], not_mesh_warnings);
  }
  sinew_data_unref(curve);
  sinew_graph_destroy(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_corpus_stored_targets), cmocka_unit_test(test_corpus_inbetweens),
      cmocka_unit_test(test_corpus_painted_weights), cmocka_unit_test(test_zero_weight_and_dirt),
      cmocka_unit_test(test_bad_data), cmocka_unit_test(test_round_trip),
      cmocka_unit_test(test_command_create), cmocka_unit_test(test_command_inbetween),
      cmocka_unit_test(test_command_errors), cmocka_unit_test(test_blend_then_skin),
      cmocka_unit_test(test_command_stored_base), cmocka_unit_test(test_stored_target_mismatch),
      cmocka_unit_test(test_cluster_command), cmocka_unit_test(test_cluster_relative),
      cmocka_unit_test(test_cluster_errors), cmocka_unit_test(test_cluster_file),
      cmocka_unit_test(test_skin_membership), cmocka_unit_test(test_blend_membership),
      cmocka_unit_test(test_corpus_blend_then_skin), cmocka_unit_test(test_blend_alloc_failures),
      cmocka_unit_test(test_compiles), cmocka_unit_test(test_tweak_membership),
      cmocka_unit_test(test_curve_passes_through), cmocka_unit_test(test_origin_world),
      cmocka_unit_test(test_cluster_weighted_node),
  };
  return cmocka_run_group_tests_name("deformers", tests, NULL, NULL);
}
