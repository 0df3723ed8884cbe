/* tests/test_follicle.c: the follicle on a mesh at a UV (nodes/follicle.c) and the mesh UVs and
 * hard edges it reads (mu records and .ed flags as files write them). Worked values on hand-made
 * meshes; nlol's flexi-surface rig, whose joints ride follicles, is checked against the pose
 * Maya saved in tests/test_real_rigs.c. */
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

static sinew_session_t *session(void) {
  sinew_session_t *s = NULL;
  assert_int_equal(sinew_session_create(NULL, &s), 0);
  return s;
}

static void run(sinew_session_t *s, const char *text) {
  if (sinew_session_run(s, text, strlen(text), "test.ma", NULL)) fail_msg("%s: %s", text, sinew_session_errmsg(s));
}

static void get3(sinew_graph_t *g, const char *text, double v[3]) {
  sinew_plug_t p;
  if (sinew_plug_parse(g, text, (sinew_node_t){0, 0}, &p)) fail_msg("no plug %s", text);
  if (sinew_get_doubles(g, &p, v, 3, NULL)) fail_msg("%s: %s", text, sinew_graph_errmsg(g));
}

static void near3(const double v[3], double x, double y, double z, double tol) {
  if (fabs(v[0] - x) > tol || fabs(v[1] - y) > tol || fabs(v[2] - z) > tol)
    fail_msg("(%.9g %.9g %.9g), want (%g %g %g)", v[0], v[1], v[2], x, y, z);
}

#define DEG (3.14159265358979323846 / 180)

/* One quad 4 x 2 in the xy plane (normal +z), U along +x and V along +y, as a file writes it. */
static const char QUAD[] =
    "createNode transform -n \"plane\";\n"
    "createNode mesh -n \"planeShape\" -p \"plane\";\n"
    "  setAttr \".uvst[0].uvsn\" -type \"string\" \"map1\";\n"
    "  setAttr -s 4 \".uvst[0].uvsp[0:3]\" -type \"float2\" 0 0 1 0 1 1 0 1;\n"
    "  setAttr -s 4 \".vt[0:3]\" 0 0 0 4 0 0 4 2 0 0 2 0;\n"
    "  setAttr -s 4 \".ed[0:3]\" 0 1 0 1 2 0 2 3 0 3 0 0;\n"
    "  setAttr \".fc[0]\" -type \"polyFaces\" f 4 0 1 2 3 mu 0 4 0 1 2 3;\n"
    "createNode transform -n \"fol\";\n"
    "createNode follicle -n \"folShape\" -p \"fol\";\n"
    "  setAttr \".pu\" 0.25;\n"
    "  setAttr \".pv\" 0.5;\n"
    "connectAttr \"planeShape.o\" \"folShape.inm\";\n"
    "connectAttr \"planeShape.wm\" \"folShape.iwm\";\n"
    "connectAttr \"folShape.ot\" \"fol.t\";\n"
    "connectAttr \"folShape.or\" \"fol.r\";\n";

/* The scene saved holds the quad's mu record, and reopened, folShape still sits at its UV
 * (0.25, 0.5): the point (1, 1, 0). */
static void reopened_follicle_at_uv(sinew_session_t *s) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  assert_int_equal(sinew_session_write_ma(s, f, "test.ma"), 0);
  fclose(f);
  if (!strstr(buf, "mu 0 4 0 1 2 3")) fail_msg("the saved faces lost their UVs:\n%s", buf);
  sinew_session_t *s2 = session();
  run(s2, buf);
  double t[3];
  get3(sinew_session_graph(s2), "folShape.ot", t);
  near3(t, 1, 1, 0, 1e-6);
  sinew_session_destroy(s2);
  free(buf);
}

/* At (0.25, 0.5) the point is (1, 1, 0); the frame is Z the normal +z, X against U (-x), Y = Z x
 * X (-y): half a turn about z. Moving and turning the plane moves the follicle with it. */
static void test_follicle_on_quad(void **state) {
  (void)state;
  sinew_session_t *s = session();
  sinew_graph_t *g = sinew_session_graph(s);
  run(s, QUAD);
  double t[3], r[3];
  get3(g, "folShape.ot", t);
  near3(t, 1, 1, 0, 1e-6);
  get3(g, "folShape.or", r);
  near3((double[]){r[0], r[1], fabs(r[2])}, 0, 0, 180 * DEG, 1e-9);
  run(s, "setAttr folShape.pu 1; setAttr folShape.pv 0;");
  get3(g, "fol.t", t);
  near3(t, 4, 0, 0, 1e-6);
  /* outside the UVs: the nearest point of the face */
  run(s, "setAttr folShape.pu 2; setAttr folShape.pv 0.5;");
  get3(g, "fol.t", t);
  near3(t, 4, 1, 0, 1e-6);
  /* the plane at (10, 0, 0) turned 90 degrees about x: local (1, 1, 0) goes to (11, 0, 1) */
  run(s, "setAttr folShape.pu 0.25; setAttr plane.t -type double3 10 0 0; setAttr plane.rx 90;");
  get3(g, "fol.t", t);
  near3(t, 11, 0, 1, 1e-6);
  sinew_plug_t wm;
  sinew_mat4_t m;
  assert_int_equal(sinew_plug_parse(g, "fol.worldMatrix[0]", (sinew_node_t){0, 0}, &wm), 0);
  assert_int_equal(sinew_get_matrix(g, &wm, &m), 0);
  near3((double[]){m.m[2][0], m.m[2][1], m.m[2][2]}, 0, -1, 0, 1e-9); /* the normal +z turned to -y */
  near3((double[]){m.m[0][0], m.m[0][1], m.m[0][2]}, -1, 0, 0, 1e-9);
  sinew_session_destroy(s);
}

/* Two quads folded along a shared edge (the first in the xy plane, normal +z; the second in
 * the plane x = 2, normal +x). On the shared edge a smooth edge gives the average normal, a hard
 * one the face's own. */
static void test_follicle_hard_edges(void **state) {
  (void)state;
  for (int hard = 0; hard < 2; hard++) {
    sinew_session_t *s = session();
    sinew_graph_t *g = sinew_session_graph(s);
    char text[2048];
    snprintf(text, sizeof text,
             "createNode transform -n fold; createNode mesh -n foldShape -p fold;\n"
             "  setAttr -s 6 \".uvst[0].uvsp[0:5]\" -type \"float2\" 0 0 0.5 0 0.5 1 0 1 1 0 1 1;\n"
             "  setAttr -s 6 \".vt[0:5]\" 0 0 0 2 0 0 2 2 0 0 2 0 2 0 -2 2 2 -2;\n"
             "  setAttr -s 7 \".ed[0:6]\" 0 1 0 1 2 %d 2 3 0 3 0 0 1 4 0 4 5 0 5 2 0;\n"
             "  setAttr -s 2 \".fc[0:1]\" -type \"polyFaces\" f 4 0 1 2 3 mu 0 4 0 1 2 3 f 4 4 5 6 -2 mu 0 4 1 4 5 2;\n"
             "createNode follicle -n folShape; setAttr folShape.pu 0.5; setAttr folShape.pv 0.5;\n"
             "connectAttr foldShape.o folShape.inm;\n",
             hard ? 0 : 1);
    run(s, text);
    double t[3], r[3];
    get3(g, "folShape.ot", t);
    near3(t, 2, 1, 0, 1e-6);
    get3(g, "folShape.or", r);
    sinew_mat4_t m;
    sinew_mat4_euler((sinew_vec3_t){r[0], r[1], r[2]}, SINEW_ROTATE_XYZ, &m);
    double h = sqrt(0.5);
    if (hard) near3((double[]){m.m[2][0], m.m[2][1], m.m[2][2]}, 0, 0, 1, 1e-9);
    else near3((double[]){m.m[2][0], m.m[2][1], m.m[2][2]}, h, 0, h, 1e-9);
    sinew_session_destroy(s);
  }
}

/* UVs survive a save when sinew writes the faces itself (a mesh the commands made keeps no file
 * lines, so a mesh read from these lines and changed by sinew is not needed: the writer's mu
 * records are read back); bad mu records fail their line naming the plug. */
static void test_uv_records(void **state) {
  (void)state;
  sinew_session_t *s = session();
  sinew_graph_t *g = sinew_session_graph(s);
  run(s, QUAD);
  /* a UV record that does not match its face, a UV index that is not one */
  const char *bad[] = {
      "createNode mesh -n m2; setAttr -s 3 \".vt[0:2]\" 0 0 0 1 0 0 0 1 0; setAttr -s 3 \".ed[0:2]\" 0 1 0 1 2 0 2 0 0;"
      "setAttr \".fc[0]\" -type \"polyFaces\" f 3 0 1 2 mu 0 2 0 1;",
      "createNode mesh -n m3; setAttr -s 3 \".vt[0:2]\" 0 0 0 1 0 0 0 1 0; setAttr -s 3 \".ed[0:2]\" 0 1 0 1 2 0 2 0 0;"
      "setAttr \".fc[0]\" -type \"polyFaces\" f 3 0 1 2 mu 0 3 0 1.5 2;",
      "createNode mesh -n m4; setAttr \".fc[0]\" -type \"polyFaces\" mu 0 3 0 1 2;",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    int rc = sinew_session_run(s, bad[i], strlen(bad[i]), "bad.mel", NULL);
    assert_int_not_equal(rc, 0);
    const char *msg = sinew_session_errmsg(s);
    if (!strstr(msg, "fc[0]")) fail_msg("the message does not name the plug: %s", msg);
  }
  /* saved and read back (the file's own face lines with their mu records), the follicle still
   * finds its UV */
  reopened_follicle_at_uv(s);
  /* UV indices far sparser than a UV set (here 2^31 - 1, whose (u, v) array would overflow a
   * 32-bit size) are ignored with a warning: the mesh loads, without UVs, and a follicle on it
   * finds none */
  run(s, "createNode transform -n sp; createNode mesh -n spShape -p sp;"
         "setAttr \".uvst[0].uvsp[2147483647]\" -type \"float2\" .5 .5;"
         "setAttr -s 3 \".vt[0:2]\" 0 0 0 1 0 0 0 1 0; setAttr -s 3 \".ed[0:2]\" 0 1 0 1 2 0 2 0 0;"
         "setAttr \".fc[0]\" -type \"polyFaces\" f 3 0 1 2 mu 0 3 0 1 2;"
         "createNode follicle -n f3; connectAttr spShape.o f3.inm;");
  const sinew_mesh_t *sm = NULL;
  sinew_data_t *sd = NULL;
  sinew_plug_t so;
  assert_int_equal(sinew_plug_parse(g, "spShape.o", (sinew_node_t){0, 0}, &so), 0);
  assert_int_equal(sinew_get_data(g, &so, &sd), 0);
  assert_non_null(sm = sinew_mesh_get(sd));
  assert_int_equal(sm->npoints, 3);
  assert_int_equal(sm->topology->nuvs, 0);
  sinew_data_unref(sd);
  /* a follicle on a mesh without UVs fails its compute (logged) */
  run(s, "polyPlane -n pp; createNode follicle -n f2; connectAttr ppShape.o f2.inm;");
  double t[3] = {7, 7, 7};
  get3(g, "f2.ot", t);
  near3(t, 0, 0, 0, 0);
  sinew_session_destroy(s);
}

/* A mesh given through the C API with UVs (sinew_mesh_set_uvs) is written with mu records by
 * the writer's own faces, and reads back with them; bad UV indices are refused. */
static void test_set_uvs(void **state) {
  (void)state;
  sinew_session_t *s = session();
  sinew_graph_t *g = sinew_session_graph(s);
  run(s, "createNode transform -n plane; createNode mesh -n planeShape -p plane;");
  sinew_data_t *m = NULL, *mu = NULL;
  const uint32_t counts[1] = {4}, verts[4] = {0, 1, 2, 3}, fuv[4] = {0, 1, 2, 3}, bad[4] = {0, 1, 2, 4};
  const float uv[8] = {0, 0, 1, 0, 1, 1, 0, 1};
  assert_int_equal(sinew_mesh_create(4, 1, counts, verts, &m), 0);
  float *p = sinew_mesh_points_mutable(&m);
  const float pts[12] = {0, 0, 0, 4, 0, 0, 4, 2, 0, 0, 2, 0};
  memcpy(p, pts, sizeof pts);
  assert_int_equal(sinew_mesh_set_uvs(m, 4, uv, bad, NULL, &mu), SINEW_EINVAL);
  assert_int_equal(sinew_mesh_set_uvs(m, 4, uv, fuv, NULL, &mu), 0);
  sinew_node_t shape;
  assert_int_equal(sinew_node_find(g, "planeShape", &shape), 0);
  assert_int_equal(sinew_mesh_node_set(g, shape, mu), 0);
  sinew_data_unref(m);
  sinew_data_unref(mu);
  run(s, "createNode follicle -n folShape; setAttr folShape.pu 0.25; setAttr folShape.pv 0.5;"
         "connectAttr planeShape.o folShape.inm;");
  reopened_follicle_at_uv(s);
  sinew_session_destroy(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_follicle_on_quad),
      cmocka_unit_test(test_follicle_hard_edges),
      cmocka_unit_test(test_uv_records),
      cmocka_unit_test(test_set_uvs),
  };
  return cmocka_run_group_tests_name("follicle", tests, NULL, NULL);
}
