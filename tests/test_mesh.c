/* tests/test_mesh.c: mesh data blocks (copy-on-write, shared topology), normals, polyFaces
 * decoding, primitives against Maya's own meshes (spec 8.8's cube, the polyCylinder output
 * in tests/data), OBJ, the mesh and poly* node types, and allocation failure. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodes/nodes_internal.h"
#include "sinew/sinew.h"
#include "tests/support.h"

#define PI 3.14159265358979323846

/* ---- helpers ------------------------------------------------------------------------------- */

/* A scene with the mesh types, whether or not sinew_nodes_register already adds them. */
static sinew_graph_t *scene(void) {
  sinew_graph_t *g = NULL;
  assert_int_equal(sinew_scene_create(NULL, &g), 0);
  if (!sinew_find_node_type(g, "mesh")) assert_int_equal(sinew__register_mesh_types(g), 0);
  assert_int_equal(sinew__register_mesh_types(g), 0); /* a second registration is harmless */
  return g;
}

static sinew_plug_t plug(sinew_graph_t *g, sinew_node_t n, const char *attr) {
  sinew_plug_t p;
  assert_int_equal(sinew_plug_parse_attr(g, n, attr, &p), 0);
  return p;
}

static void assert_near(double a, double b, double tol) {
  if (fabs(a - b) > tol) fail_msg("%.9g != %.9g (tolerance %g)", a, b, tol);
}

static void assert_point(const sinew_mesh_t *m, uint32_t i, double x, double y, double z, double tol) {
  assert_true(i < m->npoints);
  assert_near(m->points[3 * i], x, tol);
  assert_near(m->points[3 * i + 1], y, tol);
  assert_near(m->points[3 * i + 2], z, tol);
}

/* Twice the area times the normal of face f, and its centroid. */
static void face_geom(const sinew_mesh_t *m, uint32_t f, double n[3], double c[3]) {
  const sinew_topology_t *t = m->topology;
  const uint32_t *fv = &t->face_verts[t->face_offsets[f]];
  uint32_t cnt = t->face_counts[f];
  n[0] = n[1] = n[2] = c[0] = c[1] = c[2] = 0;
  for (uint32_t k = 0; k < cnt; k++) {
    const float *a = &m->points[3 * fv[k]], *b = &m->points[3 * fv[(k + 1) % cnt]];
    n[0] += ((double)a[1] - b[1]) * ((double)a[2] + b[2]); /* Newell */
    n[1] += ((double)a[2] - b[2]) * ((double)a[0] + b[0]);
    n[2] += ((double)a[0] - b[0]) * ((double)a[1] + b[1]);
    for (int i = 0; i < 3; i++) c[i] += a[i] / (double)cnt;
  }
}

/* Every face of a convex solid centred at the origin faces away from the origin. */
static void assert_outward(const sinew_mesh_t *m) {
  for (uint32_t f = 0; f < m->topology->nfaces; f++) {
    double n[3], c[3];
    face_geom(m, f, n, c);
    if (n[0] * c[0] + n[1] * c[1] + n[2] * c[2] <= 0) fail_msg("face %u faces inwards", f);
  }
}

/* Closed and consistently wound: every directed edge appears once and its reverse once. */
static void assert_closed(const sinew_mesh_t *m) {
  const sinew_topology_t *t = m->topology;
  size_t n = t->nface_verts;
  uint64_t *e = calloc(n, sizeof *e);
  assert_non_null(e);
  size_t k = 0;
  for (uint32_t f = 0; f < t->nfaces; f++) {
    const uint32_t *fv = &t->face_verts[t->face_offsets[f]];
    for (uint32_t i = 0; i < t->face_counts[f]; i++)
      e[k++] = ((uint64_t)fv[i] << 32) | fv[(i + 1) % t->face_counts[f]];
  }
  for (size_t i = 0; i < n; i++) {
    uint64_t rev = (e[i] << 32) | (e[i] >> 32);
    int same = 0, back = 0;
    for (size_t j = 0; j < n; j++) {
      same += e[j] == e[i];
      back += e[j] == rev;
    }
    if (same != 1 || back != 1) {
      unsigned from = (unsigned)(e[i] >> 32), to = (unsigned)(e[i] & 0xffffffffu);
      free(e);
      fail_msg("edge %u-%u is used %d times and reversed %d times", from, to, same, back);
    }
  }
  free(e);
}

static void assert_face(const sinew_mesh_t *m, uint32_t f, uint32_t n, const uint32_t *expect) {
  const sinew_topology_t *t = m->topology;
  assert_int_equal(t->face_counts[f], n);
  for (uint32_t k = 0; k < n; k++) assert_int_equal(t->face_verts[t->face_offsets[f] + k], expect[k]);
}

/* ---- data blocks --------------------------------------------------------------------------- */

static void test_create(void **state) {
  const uint32_t counts[] = {4, 3};
  const uint32_t verts[] = {0, 1, 2, 3, 0, 2, 4};
  sinew_data_t *d = NULL;
  assert_int_equal(sinew_mesh_create(5, 2, counts, verts, &d), 0);
  const sinew_mesh_t *m = sinew_mesh_get(d);
  assert_non_null(m);
  assert_ptr_equal(sinew_data_type(d), &sinew_mesh_data_type);
  assert_int_equal(m->npoints, 5);
  assert_null(m->normals);
  assert_int_equal(m->topology->nfaces, 2);
  assert_int_equal(m->topology->nface_verts, 7);
  assert_int_equal(m->topology->npoints, 5);
  assert_int_equal(m->topology->face_offsets[1], 4);
  assert_int_equal(m->topology->face_verts[6], 4);
  for (int i = 0; i < 15; i++) assert_true(m->points[i] == 0.0f);
  assert_int_equal((uintptr_t)m->points % 64, 0); /* SIMD-friendly */
  assert_int_equal(sinew_data_refcount(d), 1);
  sinew_data_unref(d);

  /* a point cloud and an empty mesh */
  assert_int_equal(sinew_mesh_create(3, 0, NULL, NULL, &d), 0);
  assert_int_equal(sinew_mesh_get(d)->topology->nfaces, 0);
  sinew_data_unref(d);
  assert_int_equal(sinew_mesh_create(0, 0, NULL, NULL, &d), 0);
  assert_int_equal(sinew_mesh_get(d)->npoints, 0);
  sinew_data_unref(d);

  /* errors leave the output alone */
  sinew_data_t *keep = (sinew_data_t *)&d;
  d = keep;
  const uint32_t bad[] = {0, 1, 5};
  assert_int_equal(sinew_mesh_create(5, 1, (const uint32_t[]){3}, bad, &d), SINEW_ERANGE);
  assert_int_equal(sinew_mesh_create(5, 1, (const uint32_t[]){2}, verts, &d), SINEW_EINVAL);
  assert_int_equal(sinew_mesh_create(5, 1, NULL, verts, &d), SINEW_EINVAL);
  assert_int_equal(sinew_mesh_create(5, 0, NULL, NULL, NULL), SINEW_EINVAL);
  assert_ptr_equal(d, keep);

  /* not a mesh */
  static const sinew_data_type_t other = {"other", NULL, NULL};
  assert_int_equal(sinew_data_create(&other, 16, &d), 0);
  assert_null(sinew_mesh_get(d));
  assert_null(sinew_mesh_points_mutable(&d));
  assert_int_equal(sinew_mesh_compute_normals(&d), SINEW_EINVAL);
  sinew_data_t *c = NULL;
  assert_int_equal(sinew_mesh_clone_shared(d, false, &c), SINEW_EINVAL);
  assert_null(c);
  sinew_data_unref(d);
  assert_null(sinew_mesh_get(NULL));
}

static void test_copy_on_write(void **state) {
  sinew_data_t *src;
  assert_int_equal(sinew_mesh_cube(1, 1, 1, 1, 1, 1, &src), 0);
  const sinew_mesh_t *ms = sinew_mesh_get(src);
  float first = ms->points[0];

  /* clone_shared: new points, same topology */
  sinew_data_t *c;
  assert_int_equal(sinew_mesh_clone_shared(src, true, &c), 0);
  const sinew_mesh_t *mc = sinew_mesh_get(c);
  assert_ptr_equal(mc->topology, ms->topology);
  assert_ptr_not_equal(mc->points, ms->points);
  assert_memory_equal(mc->points, ms->points, sizeof(float) * 24);
  assert_null(mc->normals); /* src has none */
  float *p = sinew_mesh_points_mutable(&c);
  assert_ptr_equal(p, mc->points); /* exclusive: written in place */
  p[0] = 42;
  assert_true(ms->points[0] == first);

  /* a shared block is copied before writing; the copy still shares the topology */
  sinew_data_t *alias = sinew_data_ref(c);
  float *q = sinew_mesh_points_mutable(&c);
  assert_ptr_not_equal(c, alias);
  assert_ptr_equal(sinew_mesh_get(c)->topology, ms->topology);
  q[0] = 7;
  assert_true(sinew_mesh_get(alias)->points[0] == 42);
  assert_true(sinew_mesh_get(c)->points[0] == 7);
  assert_int_equal(sinew_data_refcount(alias), 1);
  sinew_data_unref(alias);

  /* normals are added on first use, keeping the points */
  float *n = sinew_mesh_normals_mutable(&c);
  assert_non_null(n);
  assert_true(sinew_mesh_get(c)->points[0] == 7);
  assert_ptr_equal(sinew_mesh_get(c)->normals, n);
  for (int i = 0; i < 24; i++) assert_true(n[i] == 0);
  n[0] = 1;
  sinew_data_t *c2;
  assert_int_equal(sinew_mesh_clone_shared(c, true, &c2), 0);
  assert_true(sinew_mesh_get(c2)->normals[0] == 1);
  sinew_data_unref(c2);
  assert_int_equal(sinew_mesh_clone_shared(c, false, &c2), 0);
  assert_null(sinew_mesh_get(c2)->normals);
  sinew_data_unref(c2);
  /* the topology outlives the source block */
  sinew_data_unref(src);
  assert_int_equal(sinew_mesh_get(c)->topology->nfaces, 6);
  sinew_data_unref(c);
}

static void test_normals(void **state) {
  sinew_data_t *d;
  assert_int_equal(sinew_mesh_cube(2, 2, 2, 1, 1, 1, &d), 0);
  assert_int_equal(sinew_mesh_compute_normals(&d), 0);
  const sinew_mesh_t *m = sinew_mesh_get(d);
  assert_non_null(m->normals);
  double s = 1 / sqrt(3);
  for (uint32_t i = 0; i < 8; i++)
    for (int c = 0; c < 3; c++) assert_near(m->normals[3 * i + c], m->points[3 * i + c] > 0 ? s : -s, 1e-6);
  /* recomputing overwrites, it does not accumulate */
  assert_int_equal(sinew_mesh_compute_normals(&d), 0);
  assert_near(sinew_mesh_get(d)->normals[0], -s, 1e-6);
  sinew_data_unref(d);

  /* area weighting: a big and a small triangle meeting at vertex 0 */
  const uint32_t counts[] = {3, 3};
  const uint32_t verts[] = {0, 1, 2, 0, 3, 4};
  assert_int_equal(sinew_mesh_create(6, 2, counts, verts, &d), 0);
  float *p = sinew_mesh_points_mutable(&d);
  const float pts[] = {0, 0, 0, 3, 0, 0, 0, 3, 0, /* +Z, area 4.5 */ 0, 0, 1, 1, 0, 0 /* +Y... */, 9, 9, 9};
  memcpy(p, pts, sizeof pts);
  assert_int_equal(sinew_mesh_compute_normals(&d), 0);
  m = sinew_mesh_get(d);
  /* face 2: (0,0,0) (0,0,1) (1,0,0): normal +Y, area 0.5. Vertex 0 = normalise(4.5 z + 0.5 y) */
  double len = sqrt(4.5 * 4.5 + 0.5 * 0.5);
  assert_near(m->normals[0], 0, 1e-6);
  assert_near(m->normals[1], 0.5 / len, 1e-6);
  assert_near(m->normals[2], 4.5 / len, 1e-6);
  for (int c = 0; c < 3; c++) assert_true(m->normals[15 + c] == 0); /* isolated vertex 5 */
  sinew_data_unref(d);
}

/* ---- polyFaces ----------------------------------------------------------------------------- */

/* spec 8.8's cube as Maya writes it */
static const uint32_t cube_edges[] = {0, 1, 2, 3, 4, 5, 6, 7, 0, 2, 1, 3, 2, 4, 3, 5, 4, 6, 5, 7, 6, 0, 7, 1};
static const int32_t cube_face_edges[] = {0, 5, -2, -5, 1, 7, -3, -7, 2, 9, -4, -9, 3, 11, -1, -11, -12, -10, -8, -6, 10, 4, 6, 8};
static const uint32_t four[] = {4, 4, 4, 4, 4, 4};
static const float cube_points[] = {-0.5f, -0.5f, 0.5f, 0.5f, -0.5f, 0.5f, -0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f,
                                    -0.5f, 0.5f, -0.5f, 0.5f, 0.5f, -0.5f, -0.5f, -0.5f, -0.5f, 0.5f, -0.5f, -0.5f};

static void test_faces_from_edges(void **state) {
  uint32_t fv[24];
  assert_int_equal(sinew_mesh_faces_from_edges(cube_edges, 12, cube_face_edges, four, 6, fv), 0);
  const uint32_t first[] = {0, 1, 3, 2};
  assert_memory_equal(fv, first, sizeof first);
  /* the whole decoded cube is the polyCube primitive's topology, face by face */
  sinew_data_t *d;
  assert_int_equal(sinew_mesh_cube(1, 1, 1, 1, 1, 1, &d), 0);
  assert_memory_equal(sinew_mesh_get(d)->topology->face_verts, fv, sizeof fv);
  sinew_data_unref(d);

  /* errors: nothing written */
  uint32_t out[4] = {99, 99, 99, 99};
  assert_int_equal(sinew_mesh_faces_from_edges(cube_edges, 12, (const int32_t[]){0, 5, -2, 12}, four, 1, out),
                   SINEW_ERANGE);
  assert_int_equal(sinew_mesh_faces_from_edges(cube_edges, 12, (const int32_t[]){0, 5, -2, -13}, four, 1, out),
                   SINEW_ERANGE);
  assert_int_equal(sinew_mesh_faces_from_edges(cube_edges, 12, (const int32_t[]){0, 5, 1, -5}, four, 1, out),
                   SINEW_EINVAL); /* 3 then 2: the loop breaks */
  assert_int_equal(sinew_mesh_faces_from_edges(cube_edges, 12, (const int32_t[]){0, 5, -2}, (const uint32_t[]){3}, 1,
                                               out),
                   SINEW_EINVAL); /* does not close */
  assert_int_equal(out[0], 99);
  assert_int_equal(sinew_mesh_faces_from_edges(cube_edges, 12, (const int32_t[]){INT32_MIN, 0, 0, 0}, four, 1, out),
                   SINEW_ERANGE);
}

/* edges_from_faces, then faces_from_edges, gives the faces back; closed primitives have
 * V - E + F = 2. */
static void test_edges_from_faces(void **state) {
  for (int kind = 0; kind < 4; kind++) {
    sinew_data_t *d;
    int rc = kind == 0   ? sinew_mesh_cube(1, 1, 1, 2, 3, 4, &d)
             : kind == 1 ? sinew_mesh_cylinder(1, 2, 20, 3, 2, &d)
             : kind == 2 ? sinew_mesh_sphere(1, 20, 20, &d)
                         : sinew_mesh_plane(1, 1, 4, 3, &d);
    assert_int_equal(rc, 0);
    const sinew_mesh_t *m = sinew_mesh_get(d);
    const sinew_topology_t *t = m->topology;
    uint32_t *edges = malloc(sizeof(uint32_t) * 2 * t->nface_verts), nedges = 0;
    int32_t *fe = malloc(sizeof(int32_t) * t->nface_verts);
    uint32_t *fv = malloc(sizeof(uint32_t) * t->nface_verts);
    assert_int_equal(sinew_mesh_edges_from_faces(t, edges, &nedges, fe), 0);
    assert_int_equal(sinew_mesh_faces_from_edges(edges, nedges, fe, t->face_counts, t->nfaces, fv), 0);
    assert_memory_equal(fv, t->face_verts, sizeof(uint32_t) * t->nface_verts);
    if (kind < 3) assert_int_equal((long)m->npoints - (long)nedges + (long)t->nfaces, 2);
    else assert_int_equal(nedges, 4 * 4 + 5 * 3); /* a 4 x 3 grid */
    free(edges);
    free(fe);
    free(fv);
    sinew_data_unref(d);
  }
  /* the spec's cube: 12 edges, the first face walks e0 e1 e2 e3 */
  sinew_data_t *d;
  assert_int_equal(sinew_mesh_cube(1, 1, 1, 1, 1, 1, &d), 0);
  uint32_t edges[48], n;
  int32_t fe[24];
  assert_int_equal(sinew_mesh_edges_from_faces(sinew_mesh_get(d)->topology, edges, &n, fe), 0);
  assert_int_equal(n, 12);
  assert_int_equal(fe[0], 0);
  assert_int_equal(fe[3], 3);
  assert_int_equal(fe[4], ~2); /* face 1 (2 3 5 4) starts on edge 2 (3 2), walked backwards */
  sinew_data_unref(d);
  assert_int_equal(sinew_mesh_edges_from_faces(NULL, edges, &n, fe), SINEW_EINVAL);
}

/* ---- primitives ---------------------------------------------------------------------------- */

static void test_primitive_counts(void **state) {
  sinew_data_t *d;
  assert_int_equal(sinew_mesh_cube(1, 1, 1, 1, 1, 1, &d), 0);
  const sinew_mesh_t *m = sinew_mesh_get(d);
  assert_int_equal(m->npoints, 8);
  assert_int_equal(m->topology->nfaces, 6);
  assert_memory_equal(m->points, cube_points, sizeof cube_points); /* spec 8.8's order exactly */
  assert_outward(m);
  assert_closed(m);
  sinew_data_unref(d);

  assert_int_equal(sinew_mesh_cylinder(1, 2, 20, 1, 1, &d), 0);
  m = sinew_mesh_get(d);
  assert_int_equal(m->npoints, 42);
  assert_int_equal(m->topology->nfaces, 60);
  assert_point(m, 19, 1, -1, 0, 1e-6);  /* each ring ends on +X */
  assert_point(m, 0, cos(2 * PI / 20), -1, -sin(2 * PI / 20), 1e-6);
  assert_point(m, 40, 0, -1, 0, 0);     /* bottom cap centre, then the top one */
  assert_point(m, 41, 0, 1, 0, 0);
  assert_outward(m);
  assert_closed(m);
  sinew_data_unref(d);

  assert_int_equal(sinew_mesh_sphere(1, 20, 20, &d), 0);
  m = sinew_mesh_get(d);
  assert_int_equal(m->npoints, 20 * 19 + 2);
  assert_int_equal(m->topology->nfaces, 400);
  assert_point(m, 380, 0, -1, 0, 0);
  assert_point(m, 381, 0, 1, 0, 0);
  /* ring 0 at latitude -81 degrees, its first point at 18 degrees as the cylinder's */
  assert_point(m, 0, 0.148778, -0.987688, -0.0483409, 1e-6);
  for (uint32_t i = 0; i < 380; i++) {
    double x = m->points[3 * i], y = m->points[3 * i + 1], z = m->points[3 * i + 2];
    assert_near(x * x + y * y + z * z, 1, 1e-6);
  }
  assert_int_equal(m->topology->face_counts[359], 4);
  assert_int_equal(m->topology->face_counts[360], 3);
  assert_outward(m);
  assert_closed(m);
  sinew_data_unref(d);

  assert_int_equal(sinew_mesh_plane(1, 1, 10, 10, &d), 0);
  m = sinew_mesh_get(d);
  assert_int_equal(m->npoints, 121);
  assert_int_equal(m->topology->nfaces, 100);
  assert_point(m, 0, -0.5, 0, 0.5, 0);
  assert_point(m, 120, 0.5, 0, -0.5, 0);
  for (uint32_t f = 0; f < 100; f++) {
    double n[3], c[3];
    face_geom(m, f, n, c);
    assert_true(n[1] > 0 && n[0] == 0 && n[2] == 0);
  }
  sinew_data_unref(d);

  /* subdivided solids stay closed and outward, with the counts Maya gives */
  assert_int_equal(sinew_mesh_cube(2, 3, 4, 2, 3, 4, &d), 0);
  m = sinew_mesh_get(d);
  assert_int_equal(m->npoints, 2 * (3 + 4) * 3 + 2 * 2 * 3); /* 2(sy+sz)(sx+1) + 2(sy-1)(sz-1) */
  assert_int_equal(m->topology->nfaces, 2 * (2 * 3 + 3 * 4 + 2 * 4));
  assert_outward(m);
  assert_closed(m);
  for (uint32_t i = 0; i < m->npoints; i++) { /* every point on the surface */
    double x = fabs(m->points[3 * i]), y = fabs(m->points[3 * i + 1]), z = fabs(m->points[3 * i + 2]);
    assert_true(fabs(x - 1) < 1e-6 || fabs(y - 1.5) < 1e-6 || fabs(z - 2) < 1e-6);
  }
  sinew_data_unref(d);
  assert_int_equal(sinew_mesh_cylinder(1, 2, 8, 3, 3, &d), 0);
  m = sinew_mesh_get(d);
  assert_int_equal(m->npoints, 8 * 4 + 2 * 8 * 2 + 2);
  assert_outward(m);
  assert_closed(m);
  sinew_data_unref(d);
  assert_int_equal(sinew_mesh_cylinder(1, 2, 8, 1, 0, &d), 0); /* open */
  assert_int_equal(sinew_mesh_get(d)->npoints, 16);
  assert_int_equal(sinew_mesh_get(d)->topology->nfaces, 8);
  sinew_data_unref(d);

  assert_int_equal(sinew_mesh_cube(1, 1, 1, 0, 1, 1, &d), SINEW_EINVAL);
  assert_int_equal(sinew_mesh_sphere(1, 2, 20, &d), SINEW_EINVAL);
  assert_int_equal(sinew_mesh_plane(NAN, 1, 1, 1, &d), SINEW_EINVAL);
  assert_int_equal(sinew_mesh_plane(1, 1, 100000, 100000, &d), SINEW_ERANGE);
}

/* ---- Maya's own polyCylinder output (tests/data) ------------------------------------------ */

/* The text of a file, NUL-terminated; fails the test when the file is missing. */
static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("test data file %s is missing", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  assert_non_null(s);
  assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
  s[n] = '\0';
  fclose(f);
  return s;
}

/* Reads n numbers after `key` (searched from *at); *at moves past them. */
static void numbers_after(char **at, const char *key, double *out, size_t n) {
  char *p = strstr(*at, key);
  assert_non_null(p);
  p += strlen(key);
  for (size_t i = 0; i < n; i++) {
    char *end;
    out[i] = strtod(p, &end);
    assert_true(end != p);
    p = end;
  }
  *at = p;
}

/* Checks the polyCylinder -sa 10 -sh 10 -h 5 primitive against the stored copy Maya wrote of
 * it in mldeform/Cylinder_setup.ma ("Tube1ShapeOrig1": .vt, .ed and .fc). */
static void test_cylinder_matches_maya(void **state) {
  char *text = slurp(SINEW_TEST_DATA_DIR "/mldeform/Cylinder_setup.ma");
  char *at = strstr(text, "createNode mesh -n \"Tube1ShapeOrig1\"");
  assert_non_null(at);
  double vt[336], ed[690];
  numbers_after(&at, "\".vt[0:111]\"", vt, 336);
  numbers_after(&at, "\".ed[0:165]\"", ed, 498);
  numbers_after(&at, "\".ed[166:229]\"", ed + 498, 192);
  at = strstr(at, "\".fc[0:119]\" -type \"polyFaces\"");
  assert_non_null(at);
  at = strchr(at, 'f');
  uint32_t edges[460], counts[120];
  int32_t fe[460];
  size_t nfe = 0, nf = 0;
  for (uint32_t e = 0; e < 230; e++) {
    edges[2 * e] = (uint32_t)ed[3 * e];
    edges[2 * e + 1] = (uint32_t)ed[3 * e + 1];
  }
  while (*at && *at != ';') { /* "f N e..." records; "mu ..." records skipped */
    while (*at == ' ' || *at == '\t' || *at == '\n' || *at == '\r') at++;
    char *end;
    if (at[0] == 'f' && at[1] == ' ') {
      long n = strtol(at + 2, &end, 10);
      at = end;
      counts[nf++] = (uint32_t)n;
      for (long k = 0; k < n; k++) {
        fe[nfe++] = (int32_t)strtol(at, &end, 10);
        at = end;
      }
    } else if (*at && *at != ';') {
      at++;
    }
  }
  assert_int_equal(nf, 120);
  assert_int_equal(nfe, 460);
  uint32_t fv[460];
  assert_int_equal(sinew_mesh_faces_from_edges(edges, 230, fe, counts, 120, fv), 0);

  sinew_data_t *d;
  assert_int_equal(sinew_mesh_cylinder(1, 5, 10, 10, 1, &d), 0);
  const sinew_mesh_t *m = sinew_mesh_get(d);
  assert_int_equal(m->npoints, 112);
  for (uint32_t i = 0; i < 112; i++) assert_point(m, i, vt[3 * i], vt[3 * i + 1], vt[3 * i + 2], 2e-6);
  assert_int_equal(m->topology->nfaces, 120);
  assert_memory_equal(m->topology->face_counts, counts, sizeof counts);
  assert_memory_equal(m->topology->face_verts, fv, sizeof fv);
  sinew_data_unref(d);
  free(text);
}

/* Reads a mesh's .vt, .ed and polyFaces .fc (f records only) written on single lines, as in
 * maya-skin-truth/, and decodes the faces. */
static void read_ma_mesh(const char *path, uint32_t np, uint32_t ne, uint32_t nf, double *vt, uint32_t *counts,
                         uint32_t *fv) {
  char *text = slurp(path);
  char key[64];
  char *at = text;
  snprintf(key, sizeof key, "\".vt[0:%u]\"", np - 1);
  numbers_after(&at, key, vt, 3 * (size_t)np);
  double *ed = malloc(sizeof(double) * 3 * ne);
  uint32_t *edges = malloc(sizeof(uint32_t) * 2 * ne);
  int32_t *fe = malloc(sizeof(int32_t) * 4 * nf);
  snprintf(key, sizeof key, "\".ed[0:%u]\"", ne - 1);
  numbers_after(&at, key, ed, 3 * (size_t)ne);
  for (uint32_t e = 0; e < ne; e++) {
    edges[2 * e] = (uint32_t)ed[3 * e];
    edges[2 * e + 1] = (uint32_t)ed[3 * e + 1];
  }
  at = strstr(at, "-type \"polyFaces\"");
  assert_non_null(at);
  size_t nfe = 0;
  for (uint32_t f = 0; f < nf; f++) {
    at = strstr(at, "f ");
    assert_non_null(at);
    char *end;
    counts[f] = (uint32_t)strtol(at + 2, &end, 10);
    at = end;
    for (uint32_t k = 0; k < counts[f]; k++, nfe++) {
      fe[nfe] = (int32_t)strtol(at, &end, 10);
      at = end;
    }
  }
  assert_int_equal(sinew_mesh_faces_from_edges(edges, ne, fe, counts, nf, fv), 0);
  free(ed);
  free(edges);
  free(fe);
  free(text);
}

/* Cubes Maya exported (through FBX, ufbx's test data; maya-skin-truth/ keeps them as .ma):
 * polyCube -w 1 -h 4 -d 1 -sh 4 (20 points) and -sh 10 (44 points). Same points, same faces. */
static void test_cube_matches_maya(void **state) {
  static const struct {
    const char *file;
    uint32_t sh, np, ne, nf;
  } cases[] = {{SINEW_TEST_DATA_DIR "/maya-skin-truth/transformed_skin_f0.ma", 4, 20, 36, 18},
               {SINEW_TEST_DATA_DIR "/maya-skin-truth/dual_quaternion.ma", 10, 44, 84, 42}};
  for (size_t c = 0; c < 2; c++) {
    double vt[3 * 44];
    uint32_t counts[42], fv[4 * 42];
    read_ma_mesh(cases[c].file, cases[c].np, cases[c].ne, cases[c].nf, vt, counts, fv);
    sinew_data_t *d;
    assert_int_equal(sinew_mesh_cube(1, 4, 1, 1, cases[c].sh, 1, &d), 0);
    const sinew_mesh_t *m = sinew_mesh_get(d);
    assert_int_equal(m->npoints, cases[c].np);
    for (uint32_t i = 0; i < m->npoints; i++) assert_point(m, i, vt[3 * i], vt[3 * i + 1], vt[3 * i + 2], 1e-6);
    assert_int_equal(m->topology->nfaces, cases[c].nf);
    assert_memory_equal(m->topology->face_counts, counts, sizeof(uint32_t) * cases[c].nf);
    assert_memory_equal(m->topology->face_verts, fv, sizeof(uint32_t) * 4 * cases[c].nf);
    sinew_data_unref(d);
  }
}

/* ffda/CylinderTest.ma's component tags for polyCylinder -h 6 -sh 6: sides f[0:119], bottom
 * f[120:139] around vtx[140], top f[140:159] around vtx[141]. */
static void test_cylinder_component_tags(void **state) {
  sinew_data_t *d;
  assert_int_equal(sinew_mesh_cylinder(1, 6, 20, 6, 1, &d), 0);
  const sinew_mesh_t *m = sinew_mesh_get(d);
  const sinew_topology_t *t = m->topology;
  assert_int_equal(m->npoints, 142);
  assert_int_equal(t->nfaces, 160);
  for (uint32_t f = 0; f < 160; f++) {
    const uint32_t *fv = &t->face_verts[t->face_offsets[f]];
    if (f < 120) {
      assert_int_equal(t->face_counts[f], 4);
      for (int k = 0; k < 4; k++) assert_true(fv[k] < 140);
    } else {
      assert_int_equal(t->face_counts[f], 3);
      assert_int_equal(fv[2], f < 140 ? 140 : 141);
      for (int k = 0; k < 2; k++) assert_true(f < 140 ? fv[k] < 20 : (fv[k] >= 120 && fv[k] < 140));
    }
  }
  sinew_data_unref(d);
}

/* ---- OBJ ----------------------------------------------------------------------------------- */

static void test_obj_round_trip(void **state) {
  sinew_data_t *d, *back = NULL;
  assert_int_equal(sinew_mesh_cylinder(1.5, 3, 7, 2, 1, &d), 0);
  assert_int_equal(sinew_mesh_compute_normals(&d), 0);
  FILE *f = tmpfile();
  assert_non_null(f);
  assert_int_equal(sinew_mesh_write_obj(d, f), 0);
  rewind(f);
  char err[256];
  assert_int_equal(sinew_mesh_read_obj(f, "round.obj", &back, err, sizeof err), 0);
  fclose(f);
  const sinew_mesh_t *a = sinew_mesh_get(d), *b = sinew_mesh_get(back);
  assert_int_equal(a->npoints, b->npoints);
  assert_memory_equal(a->points, b->points, sizeof(float) * 3 * a->npoints); /* bit for bit */
  assert_int_equal(a->topology->nfaces, b->topology->nfaces);
  assert_memory_equal(a->topology->face_counts, b->topology->face_counts, 4 * a->topology->nfaces);
  assert_memory_equal(a->topology->face_verts, b->topology->face_verts, 4 * a->topology->nface_verts);
  assert_null(b->normals); /* vn lines are not kept */
  sinew_data_unref(d);
  sinew_data_unref(back);

  /* the ends of float's range read back too: FLT_MAX is written 3.40282347e+38, a little above
   * FLT_MAX as a double, and was refused as "not a finite float" (found by tests/fuzz/fuzz_obj) */
  assert_int_equal(sinew_mesh_cube(1, 1, 1, 1, 1, 1, &d), 0);
  float *p = sinew_mesh_points_mutable(&d);
  assert_non_null(p);
  const float extremes[] = {FLT_MAX, -FLT_MAX, FLT_MIN, -FLT_MIN, 1e-45f, -0.0f, 3.0e38f, 1.17549421e-38f};
  memcpy(p, extremes, sizeof extremes);
  f = tmpfile();
  assert_non_null(f);
  assert_int_equal(sinew_mesh_write_obj(d, f), 0);
  rewind(f);
  if (sinew_mesh_read_obj(f, "extremes.obj", &back, err, sizeof err)) fail_msg("%s", err);
  fclose(f);
  a = sinew_mesh_get(d);
  b = sinew_mesh_get(back);
  assert_memory_equal(a->points, b->points, sizeof(float) * 3 * a->npoints);
  sinew_data_unref(d);
  sinew_data_unref(back);
}

/* A point that is not a finite number is refused before anything is written; a normal that is
 * not finite is written 0 0 0; either way the file sinew writes is one its reader takes. */
static void test_obj_non_finite(void **state) {
  (void)state;
  sinew_data_t *d;
  assert_int_equal(sinew_mesh_cube(1, 1, 1, 1, 1, 1, &d), 0);
  assert_int_equal(sinew_mesh_compute_normals(&d), 0);
  float *normals = sinew_mesh_normals_mutable(&d);
  assert_non_null(normals);
  normals[4] = NAN;
  FILE *f = tmpfile();
  assert_non_null(f);
  assert_int_equal(sinew_mesh_write_obj(d, f), 0);
  rewind(f);
  sinew_data_t *back = NULL;
  char err[256];
  if (sinew_mesh_read_obj(f, "n.obj", &back, err, sizeof err)) fail_msg("%s", err);
  sinew_data_unref(back);
  fclose(f);
  float bad[] = {NAN, INFINITY, -INFINITY};
  for (int k = 0; k < 3; k++) {
    float *points = sinew_mesh_points_mutable(&d);
    assert_non_null(points);
    points[7] = bad[k];
    f = tmpfile();
    assert_non_null(f);
    assert_int_equal(sinew_mesh_write_obj(d, f), SINEW_ERANGE);
    assert_int_equal(ftell(f), 0); /* nothing written */
    fclose(f);
  }
  sinew_data_unref(d);
}

static int read_text(const char *text, sinew_data_t **out, char *err, size_t errlen) {
  FILE *f = fmemopen((void *)text, strlen(text), "r");
  assert_non_null(f);
  int rc = sinew_mesh_read_obj(f, "t.obj", out, err, errlen);
  fclose(f);
  return rc;
}

static void test_obj_forms(void **state) {
  const char *text = "# a comment\r\n"
                     "mtllib x.mtl\n"
                     "o thing\n"
                     "v 0 0 0\n"
                     "v 1 0 0 1.0\n"  /* w ignored */
                     "v 1 1 0\n"
                     "v 0 1 \\\n"     /* continued */
                     "  0\n"
                     "vt 0 0\nvt 1 0\nvt 1 1\n"
                     "vn 0 0 1\n"
                     "g group\ns 1\nusemtl m\n"
                     "f 1/1 2/2 3/3\n"
                     "f 1//1 3//1 4//1\n"
                     "f -4/-3/-1 -3/-2/-1 -1/-1/1\n"
                     "l 1 2\n"
                     "f 1 2 3 4";  /* no final newline */
  sinew_data_t *d = NULL;
  char err[256] = "junk";
  assert_int_equal(read_text(text, &d, err, sizeof err), 0);
  assert_string_equal(err, "");
  const sinew_mesh_t *m = sinew_mesh_get(d);
  assert_int_equal(m->npoints, 4);
  assert_point(m, 3, 0, 1, 0, 0);
  assert_int_equal(m->topology->nfaces, 4);
  assert_face(m, 0, 3, (const uint32_t[]){0, 1, 2});
  assert_face(m, 1, 3, (const uint32_t[]){0, 2, 3});
  assert_face(m, 2, 3, (const uint32_t[]){0, 1, 3});
  assert_face(m, 3, 4, (const uint32_t[]){0, 1, 2, 3});
  sinew_data_unref(d);

  /* an empty file is an empty mesh */
  assert_int_equal(read_text("", &d, NULL, 0), 0);
  assert_int_equal(sinew_mesh_get(d)->npoints, 0);
  sinew_data_unref(d);
}

static void test_obj_errors(void **state) {
  static const struct {
    const char *text;
    int status;
    const char *msg;
  } cases[] = {
      {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", SINEW_ERANGE, "t.obj:4: face index 4 out of range (3 vertices)"},
      {"v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf 1 2 -4\n", SINEW_ERANGE, "t.obj:5: face index -4 out of range (3 vertices)"},
      {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 0 2\n", SINEW_ERANGE, "t.obj:4: face index 0 out of range (3 vertices)"},
      {"v 0 0 0\nv 1 0 zz\n", SINEW_ESYNTAX, "t.obj:2: 'zz' is not a number"},
      {"v 0 0\n", SINEW_ESYNTAX, "t.obj:1: a vertex needs 3 coordinates"},
      {"v 0 0 1e99\n", SINEW_ERANGE, "t.obj:1: coordinate '1e99' is not a finite float"},
      {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 x3\n", SINEW_ESYNTAX, "t.obj:4: 'x3' is not a face index"},
      {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3/\n", SINEW_ESYNTAX, "t.obj:4: '3/' is not a face index"},
      {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3x\n", SINEW_ESYNTAX, "t.obj:4: '3x' is not a face index"},
      {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n", SINEW_ESYNTAX, "t.obj:4: a face needs at least 3 vertices, this one has 2"},
      {"v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/2 3/1\n", SINEW_ERANGE, "t.obj:5: texture index 2 out of range in '2/2'"},
      {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1//1 2//1 3//1\n", SINEW_ERANGE, "t.obj:4: normal index 1 out of range in '1//1'"},
      {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 99999999999999999999\n", SINEW_ERANGE, NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    sinew_data_t *d = (sinew_data_t *)&cases; /* untouched on failure */
    char err[256] = "";
    int rc = read_text(cases[i].text, &d, err, sizeof err);
    if (rc != cases[i].status) fail_msg("case %zu: %s (%s)", i, sinew_err_name(rc), err);
    if (cases[i].msg) assert_string_equal(err, cases[i].msg);
    assert_ptr_equal(d, (sinew_data_t *)&cases);
  }
  /* a short error buffer is truncated, not overrun */
  char small[8];
  sinew_data_t *d = NULL;
  assert_int_equal(read_text("v 0 0\n", &d, small, sizeof small), SINEW_ESYNTAX);
  assert_string_equal(small, "t.obj:1");
  /* the name defaults to "obj" */
  char err[64];
  FILE *f = fmemopen((void *)"v a 0 0\n", 8, "r");
  assert_int_equal(sinew_mesh_read_obj(f, NULL, &d, err, sizeof err), SINEW_ESYNTAX);
  fclose(f);
  assert_string_equal(err, "obj:1: 'a' is not a number");
  assert_int_equal(sinew_mesh_read_obj(NULL, NULL, &d, NULL, 0), SINEW_EINVAL);
  assert_int_equal(sinew_mesh_write_obj(NULL, stdout), SINEW_EINVAL);
}

/* ---- nodes --------------------------------------------------------------------------------- */

static sinew_data_t *get_mesh(sinew_graph_t *g, sinew_node_t n, const char *attr) {
  sinew_plug_t p = plug(g, n, attr);
  sinew_data_t *d = NULL;
  assert_int_equal(sinew_get_data(g, &p, &d), 0);
  return d;
}

static void set3(sinew_graph_t *g, sinew_node_t n, const char *attr, double x, double y, double z) {
  sinew_plug_t p = plug(g, n, attr);
  double v[3] = {x, y, z};
  assert_int_equal(sinew_set_doubles(g, &p, v, 3), 0);
}

static void test_mesh_node_stored(void **state) {
  sinew_graph_t *g = scene();
  sinew_node_t m;
  assert_int_equal(sinew_node_create(g, "mesh", "shape", &m), 0);
  assert_true(sinew_node_type_is_a(sinew_node_type(g, m), "dagNode"));
  assert_null(get_mesh(g, m, "outMesh")); /* no geometry yet */

  sinew_data_t *cube;
  assert_int_equal(sinew_mesh_cube(1, 1, 1, 1, 1, 1, &cube), 0);
  assert_int_equal(sinew_mesh_node_set(g, m, cube), 0);
  sinew_data_t *o = get_mesh(g, m, "o");
  assert_ptr_equal(o, cube); /* nothing to change: the stored block itself */
  sinew_data_unref(o);

  /* vrts override points; Maya's names and short names */
  set3(g, m, "vt[2]", 10, 20, 30);
  sinew_plug_t vx = plug(g, m, "vt[3].vx");
  assert_int_equal(sinew_set_double(g, &vx, 5), 0);
  set3(g, m, "vt[50]", 1, 1, 1); /* beyond the topology: ignored */
  o = get_mesh(g, m, "outMesh");
  const sinew_mesh_t *om = sinew_mesh_get(o);
  assert_ptr_not_equal(o, cube);
  assert_ptr_equal(om->topology, sinew_mesh_get(cube)->topology);
  assert_point(om, 2, 10, 20, 30, 0);
  assert_point(om, 3, 5, 0, 0, 0); /* vty, vtz default to 0 */
  assert_point(om, 0, -0.5, -0.5, 0.5, 0);
  assert_true(sinew_mesh_get(cube)->points[6] == -0.5f); /* the stored block is untouched */
  sinew_data_unref(o);

  /* pnts tweaks add to vt */
  set3(g, m, "pt[2]", 1, 2, 3);
  set3(g, m, "pnts[0]", 0, 0, 0); /* a zero tweak changes nothing */
  o = get_mesh(g, m, "o");
  assert_point(sinew_mesh_get(o), 2, 11, 22, 33, 0);
  assert_point(sinew_mesh_get(o), 0, -0.5, -0.5, 0.5, 0);
  sinew_data_unref(o);

  /* normals carried by the stored mesh follow moved points */
  sinew_node_t lit;
  sinew_data_t *withn;
  assert_int_equal(sinew_mesh_cube(1, 1, 1, 1, 1, 1, &withn), 0);
  assert_int_equal(sinew_mesh_compute_normals(&withn), 0);
  assert_int_equal(sinew_node_create(g, "mesh", "lit", &lit), 0);
  assert_int_equal(sinew_mesh_node_set(g, lit, withn), 0);
  set3(g, lit, "pt[3]", 0, 0, -1); /* vertex 3 (0.5 0.5 0.5) pulled back onto z = -0.5 */
  o = get_mesh(g, lit, "o");
  assert_true(sinew_mesh_get(o)->normals[2] != sinew_mesh_get(withn)->normals[2]);
  assert_true(sinew_mesh_get(withn)->points[11] == 0.5f); /* stored block untouched */
  sinew_data_unref(o);
  sinew_data_unref(withn);

  /* a point cloud from vrts alone, when nothing is stored */
  sinew_node_t cloud;
  assert_int_equal(sinew_node_create(g, "mesh", "cloud", &cloud), 0);
  set3(g, cloud, "vt[4]", 1, 2, 3);
  o = get_mesh(g, cloud, "o");
  assert_int_equal(sinew_mesh_get(o)->npoints, 5);
  assert_int_equal(sinew_mesh_get(o)->topology->nfaces, 0);
  assert_point(sinew_mesh_get(o), 4, 1, 2, 3, 0);
  sinew_data_unref(o);

  /* errors */
  sinew_node_t xf;
  assert_int_equal(sinew_node_create(g, "transform", "xf", &xf), 0);
  assert_int_equal(sinew_mesh_node_set(g, xf, cube), SINEW_ETYPE);
  assert_non_null(strstr(sinew_graph_errmsg(g), "xf is a transform"));
  assert_int_equal(sinew_mesh_node_set(g, (sinew_node_t){0, 0}, cube), SINEW_ESTALE);
  assert_int_equal(sinew_mesh_node_set(g, m, NULL), 0); /* clears */
  o = get_mesh(g, m, "o");
  assert_int_equal(sinew_mesh_get(o)->npoints, 51); /* now a cloud of vt[2], vt[3], vt[50] */
  sinew_data_unref(o);
  sinew_data_unref(cube);
  sinew_graph_destroy(g);
}

static void test_mesh_node_pass_through(void **state) {
  sinew_graph_t *g = scene();
  sinew_node_t m;
  assert_int_equal(sinew_node_create(g, "mesh", NULL, &m), 0);
  assert_string_equal(sinew_node_name(g, m), "mesh1");
  sinew_data_t *in;
  assert_int_equal(sinew_mesh_sphere(1, 8, 6, &in), 0);
  sinew_plug_t pi = plug(g, m, "inMesh");
  assert_int_equal(sinew_set_data(g, &pi, in), 0);
  set3(g, m, "vt[0]", 9, 9, 9); /* vrts do not apply when inMesh holds a mesh */
  sinew_data_t *o = get_mesh(g, m, "outMesh");
  assert_ptr_equal(o, in);
  assert_ptr_equal(sinew_data_get(o), sinew_data_get(in)); /* no copy */
  sinew_data_t *w = get_mesh(g, m, "worldMesh[0]");
  assert_ptr_equal(w, in); /* under the world: shared as well */
  sinew_data_unref(w);
  sinew_data_unref(o);

  /* a connected polyCube: its output block goes all the way through */
  sinew_node_t pc;
  assert_int_equal(sinew_node_create(g, "polyCube", NULL, &pc), 0);
  sinew_plug_t out = plug(g, pc, "out");
  assert_int_equal(sinew_connect(g, &out, &pi, SINEW_CONNECT_FORCE, NULL), 0);
  sinew_data_t *src = get_mesh(g, pc, "output");
  o = get_mesh(g, m, "o");
  assert_ptr_equal(o, src);
  assert_int_equal(sinew_mesh_get(o)->npoints, 8);
  sinew_data_unref(o);
  sinew_data_unref(src);
  /* changing the cube re-evaluates */
  sinew_plug_t pw = plug(g, pc, "w");
  assert_int_equal(sinew_set_double(g, &pw, 2), 0);
  sinew_plug_t po = plug(g, m, "o");
  assert_true(sinew_plug_is_dirty(g, &po));
  o = get_mesh(g, m, "o");
  assert_point(sinew_mesh_get(o), 0, -1, -0.5, 0.5, 0);
  assert_point(sinew_mesh_get(o), 7, 1, -0.5, -0.5, 0);
  sinew_data_unref(o);
  sinew_plug_t psd = plug(g, pc, "sd");
  assert_int_equal(sinew_set_double(g, &psd, 3), 0);
  o = get_mesh(g, m, "o");
  assert_int_equal(sinew_mesh_get(o)->npoints, 16); /* 2(sh+sd) rows of 2 */
  sinew_data_unref(o);
  sinew_data_unref(in);
  sinew_graph_destroy(g);
}

static void test_world_mesh(void **state) {
  sinew_graph_t *g = scene();
  sinew_node_t xf, m;
  assert_int_equal(sinew_node_create(g, "transform", "pCube1", &xf), 0);
  assert_int_equal(sinew_node_create_under(g, "mesh", "pCubeShape1", xf, &m), 0);
  sinew_data_t *cube;
  assert_int_equal(sinew_mesh_cube(1, 1, 1, 1, 1, 1, &cube), 0);
  assert_int_equal(sinew_mesh_compute_normals(&cube), 0);
  assert_int_equal(sinew_mesh_node_set(g, m, cube), 0);

  set3(g, xf, "t", 1, 2, 3);
  sinew_data_t *w = get_mesh(g, m, "w[0]");
  const sinew_mesh_t *wm = sinew_mesh_get(w);
  assert_ptr_equal(wm->topology, sinew_mesh_get(cube)->topology);
  assert_point(wm, 0, 0.5, 1.5, 3.5, 1e-6);
  assert_point(wm, 7, 1.5, 1.5, 2.5, 1e-6);
  sinew_data_unref(w);
  sinew_data_t *o = get_mesh(g, m, "o");
  assert_point(sinew_mesh_get(o), 0, -0.5, -0.5, 0.5, 0); /* outMesh stays local */
  sinew_data_unref(o);
  sinew_mat4_t mw;
  assert_int_equal(sinew_dag_world_matrix(g, m, &mw), 0); /* the shape's own worldMatrix */
  assert_near(mw.m[3][1], 2, 0);

  /* moving the parent dirties worldMesh only; rotating turns the normals */
  sinew_plug_t pw = plug(g, m, "w[0]"), po = plug(g, m, "o");
  set3(g, xf, "r", 0, 0, PI / 2);
  assert_true(sinew_plug_is_dirty(g, &pw));
  assert_false(sinew_plug_is_dirty(g, &po));
  set3(g, xf, "s", 2, 2, 2);
  w = get_mesh(g, m, "worldMesh[0]");
  wm = sinew_mesh_get(w);
  /* p * S * R(z 90) + t: (-0.5,-0.5,0.5) -> (-1,-1,1) -> (1,-1,1) -> (2,1,4) */
  assert_point(wm, 0, 2, 1, 4, 1e-6);
  double s = 1 / sqrt(3);
  assert_near(wm->normals[0], s, 1e-6); /* (-s,-s,s) turned: (s,-s,s) */
  assert_near(wm->normals[1], -s, 1e-6);
  assert_near(wm->normals[2], s, 1e-6);

  /* the parent under another one */
  sinew_node_t top;
  assert_int_equal(sinew_node_create(g, "transform", "top", &top), 0);
  assert_int_equal(sinew_dag_parent(g, xf, top, 0), 0);
  set3(g, top, "t", 0, 10, 0);
  sinew_data_t *w2 = get_mesh(g, m, "w[0]");
  assert_point(sinew_mesh_get(w2), 0, 2, 11, 4, 1e-6);
  assert_ptr_not_equal(w2, w); /* w is still held by the test: a new block */
  sinew_data_unref(w);
  sinew_data_unref(w2);
  sinew_data_unref(cube);
  sinew_graph_destroy(g);
}

/* A deformed mesh pulled every frame allocates nothing once warm (tweaks and worldMesh write
 * into blocks the node keeps). */
static void test_steady_state(void **state) {
  test_alloc_install();
  sinew_graph_t *g = scene();
  sinew_node_t xf, m;
  assert_int_equal(sinew_node_create(g, "transform", "xf", &xf), 0);
  assert_int_equal(sinew_node_create_under(g, "mesh", "shape", xf, &m), 0);
  sinew_data_t *in;
  assert_int_equal(sinew_mesh_sphere(1, 12, 8, &in), 0);
  sinew_plug_t pi = plug(g, m, "i");
  assert_int_equal(sinew_set_data(g, &pi, in), 0);
  set3(g, m, "pt[3]", 0, 1, 0);
  set3(g, xf, "t", 1, 0, 0);
  long before = 0;
  for (int frame = 0; frame < 6; frame++) {
    if (frame == 4) before = test_alloc_count();
    assert_int_equal(sinew_set_data(g, &pi, in), 0); /* "upstream changed" */
    sinew_plug_t tx = plug(g, xf, "tx");
    assert_int_equal(sinew_set_double(g, &tx, frame), 0);
    sinew_data_t *o = get_mesh(g, m, "o"), *w = get_mesh(g, m, "w[0]");
    assert_near(sinew_mesh_get(o)->points[3 * 3 + 1], sinew_mesh_get(in)->points[3 * 3 + 1] + 1, 1e-6);
    assert_near(sinew_mesh_get(w)->points[0], sinew_mesh_get(in)->points[0] + frame, 1e-6);
    sinew_data_unref(o);
    sinew_data_unref(w);
  }
  assert_int_equal(test_alloc_count() - before, 0);
  sinew_data_unref(in);
  sinew_graph_destroy(g);
  assert_int_equal(test_alloc_live(), 0);
  test_alloc_uninstall();
}

static void test_poly_nodes(void **state) {
  sinew_graph_t *g = scene();
  static const struct {
    const char *type;
    uint32_t npoints, nfaces;
  } prims[] = {{"polyCube", 8, 6}, {"polyPlane", 121, 100}, {"polyCylinder", 42, 60}, {"polySphere", 382, 400}};
  for (size_t i = 0; i < 4; i++) {
    sinew_node_t n, shape;
    assert_int_equal(sinew_node_create(g, prims[i].type, NULL, &n), 0);
    assert_true(sinew_node_type_is_a(sinew_node_type(g, n), "polyPrimitive"));
    assert_int_equal(sinew_node_create(g, "mesh", NULL, &shape), 0);
    sinew_plug_t out = plug(g, n, "out"), in = plug(g, shape, "i");
    assert_int_equal(sinew_connect(g, &out, &in, 0, NULL), 0);
    sinew_data_t *o = get_mesh(g, shape, "o");
    assert_int_equal(sinew_mesh_get(o)->npoints, prims[i].npoints);
    assert_int_equal(sinew_mesh_get(o)->topology->nfaces, prims[i].nfaces);
    sinew_data_unref(o);
  }
  sinew_node_t abstract;
  assert_int_not_equal(sinew_node_create(g, "polyPrimitive", NULL, &abstract), 0); /* abstract */

  /* Maya's attribute names as files use them (ffda and mldeform polyCylinder nodes) */
  sinew_node_t cyl, shape;
  assert_int_equal(sinew_node_create(g, "polyCylinder", "polyCylinder1", &cyl), 0);
  assert_int_equal(sinew_node_create(g, "mesh", "TubeShapeOrig", &shape), 0);
  const char *names[] = {"h", "sa", "sh", "sc", "cuv", "height", "subdivisionsAxis", "subdivisionsHeight",
                         "subdivisionsCaps", "createUVs", "radius", "r", "axis", "ax"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) assert_int_not_equal(sinew_node_attr(g, cyl, names[i]), UINT32_MAX);
  sinew_plug_t p;
  p = plug(g, cyl, "h");
  assert_int_equal(sinew_set_double(g, &p, 5), 0);
  p = plug(g, cyl, "sa");
  assert_int_equal(sinew_set_double(g, &p, 10), 0);
  p = plug(g, cyl, "sh");
  assert_int_equal(sinew_set_double(g, &p, 10), 0);
  p = plug(g, cyl, "cuv");
  assert_int_equal(sinew_set_double(g, &p, 3), 0);
  sinew_plug_t out = plug(g, cyl, "out"), in = plug(g, shape, "i");
  assert_int_equal(sinew_connect(g, &out, &in, 0, NULL), 0);
  sinew_data_t *o = get_mesh(g, shape, "o");
  assert_int_equal(sinew_mesh_get(o)->npoints, 112);
  assert_point(sinew_mesh_get(o), 0, 0.80901706, -2.5, -0.58778542, 1e-6);
  sinew_data_unref(o);
  /* subdivisions below Maya's minimum are clamped */
  p = plug(g, cyl, "sa");
  assert_int_equal(sinew_set_double(g, &p, 0), 0);
  o = get_mesh(g, shape, "o");
  assert_int_equal(sinew_mesh_get(o)->npoints, 3 * 11 + 2);
  sinew_data_unref(o);
  /* axis turns the primitive: Y onto +X */
  set3(g, cyl, "ax", 1, 0, 0);
  o = get_mesh(g, shape, "o");
  assert_point(sinew_mesh_get(o), 34, 2.5, 0, 0, 1e-6); /* the top centre now on +X */
  sinew_data_unref(o);
  set3(g, cyl, "ax", 0, -2, 0);
  o = get_mesh(g, shape, "o");
  assert_point(sinew_mesh_get(o), 34, 0, -2.5, 0, 1e-6);
  sinew_data_unref(o);

  /* the mesh's Maya attributes */
  const char *mesh_names[] = {"inMesh", "i", "outMesh", "o", "worldMesh", "w", "vrts", "vt", "vrtx", "vx", "pnts",
                              "pt", "pntx", "px", "pntz", "pz", "normals", "n", "intermediateObject", "io",
                              "worldMatrix", "wm", "uvSet", "uvst", "uvsn", "uvsp", "currentUVSet", "cuvs", "dcc",
                              "vir", "vif", "pv"};
  for (size_t i = 0; i < sizeof mesh_names / sizeof *mesh_names; i++)
    if (sinew_node_attr(g, shape, mesh_names[i]) == UINT32_MAX) fail_msg("mesh has no %s", mesh_names[i]);
  sinew_plug_t uv = plug(g, shape, "uvst[0].uvsp[3]");
  double uvv[2] = {0.25, 0.5};
  assert_int_equal(sinew_set_doubles(g, &uv, uvv, 2), 0);
  sinew_plug_t nx = plug(g, shape, "n[7].nx");
  double unset = 0;
  assert_int_equal(sinew_get_double(g, &nx, &unset), 0);
  assert_near(unset, 1e20, 1e13); /* Maya's "no user normal" */
  for (const char *const *a = (const char *const[]){"uvst[0].uvsp[3].uvpu", "pv.pvx", "vt[0].vy", "pt[0].py", NULL};
       *a; a++)
    (void)plug(g, shape, *a);
  sinew_graph_destroy(g);
}

/* ---- allocation failure -------------------------------------------------------------------- */

/* Runs op with the k-th allocation failing for k = 1, 2, ... until it succeeds: every failure
 * must be SINEW_ENOMEM and leave nothing allocated. */
static void each_failure(int (*op)(sinew_data_t **out), void (*check)(sinew_data_t *d)) {
  test_alloc_install();
  for (long k = 1;; k++) {
    test_alloc_reset();
    test_alloc_fail_at(k);
    sinew_data_t *d = NULL;
    int rc = op(&d);
    test_alloc_fail_at(0);
    if (rc == SINEW_OK) {
      if (check) check(d);
      sinew_data_unref(d);
      assert_int_equal(test_alloc_live(), 0);
      break;
    }
    if (rc != SINEW_ENOMEM) fail_msg("allocation %ld failing gave %s", k, sinew_err_name(rc));
    assert_null(d);
    if (test_alloc_live() != 0) fail_msg("allocation %ld failing leaked %ld blocks", k, test_alloc_live());
    assert_true(k < 1000);
  }
  test_alloc_uninstall();
}

static int op_create(sinew_data_t **out) {
  return sinew_mesh_create(4, 1, (const uint32_t[]){4}, (const uint32_t[]){0, 1, 2, 3}, out);
}

static int op_clone(sinew_data_t **out) {
  sinew_data_t *src;
  int rc = sinew_mesh_cube(1, 1, 1, 2, 2, 2, &src);
  if (rc) return rc;
  if (!sinew_mesh_normals_mutable(&src)) {
    sinew_data_unref(src);
    return SINEW_ENOMEM;
  }
  rc = sinew_mesh_clone_shared(src, true, out);
  sinew_data_unref(src);
  return rc;
}

static int op_normals(sinew_data_t **out) {
  sinew_data_t *d;
  int rc = sinew_mesh_sphere(1, 6, 4, &d);
  if (rc) return rc;
  sinew_data_t *alias = sinew_data_ref(d); /* shared: normals force a copy */
  rc = sinew_mesh_compute_normals(&d);
  if (rc) {
    assert_ptr_equal(d, alias); /* unchanged on failure */
    sinew_data_unref(d);
    sinew_data_unref(alias);
    return rc;
  }
  assert_null(sinew_mesh_get(alias)->normals);
  sinew_data_unref(alias);
  *out = d;
  return SINEW_OK;
}

static int op_points_mutable(sinew_data_t **out) {
  sinew_data_t *d;
  int rc = sinew_mesh_plane(1, 1, 3, 3, &d);
  if (rc) return rc;
  sinew_data_t *alias = sinew_data_ref(d);
  float *p = sinew_mesh_points_mutable(&d);
  sinew_data_unref(alias);
  if (!p) {
    sinew_data_unref(d);
    return SINEW_ENOMEM;
  }
  *out = d;
  return SINEW_OK;
}

static int op_read_obj(sinew_data_t **out) {
  /* long enough to grow every buffer several times */
  static char text[64 * 1024];
  if (!text[0]) {
    size_t n = (size_t)snprintf(text, sizeof text, "vt 0 0\nvn 0 0 1\n");
    for (int i = 0; i < 600; i++) n += (size_t)snprintf(text + n, sizeof text - n, "v %d 0.5 -1\n", i);
    for (int i = 0; i + 3 < 600; i += 3)
      n += (size_t)snprintf(text + n, sizeof text - n, "f %d %d/1 %d//1 -1\n", i + 1, i + 2, i + 3);
  }
  FILE *f = fmemopen(text, strlen(text), "r");
  assert_non_null(f);
  char err[128];
  int rc = sinew_mesh_read_obj(f, "big.obj", out, err, sizeof err);
  fclose(f);
  if (rc == SINEW_ENOMEM) assert_non_null(strstr(err, "out of memory"));
  return rc;
}

static void check_read(sinew_data_t *d) {
  assert_int_equal(sinew_mesh_get(d)->npoints, 600);
  assert_int_equal(sinew_mesh_get(d)->topology->nfaces, 199);
}

static int op_primitives(sinew_data_t **out) {
  sinew_data_t *a, *b, *c;
  int rc = sinew_mesh_cube(1, 1, 1, 2, 2, 2, &a);
  if (rc) return rc;
  if ((rc = sinew_mesh_cylinder(1, 2, 5, 2, 2, &b))) {
    sinew_data_unref(a);
    return rc;
  }
  if ((rc = sinew_mesh_plane(1, 1, 2, 2, &c))) {
    sinew_data_unref(a);
    sinew_data_unref(b);
    return rc;
  }
  sinew_data_unref(a);
  sinew_data_unref(b);
  sinew_data_unref(c);
  return sinew_mesh_sphere(1, 5, 5, out);
}

static void test_alloc_failures(void **state) {
  each_failure(op_create, NULL);
  each_failure(op_clone, NULL);
  each_failure(op_normals, NULL);
  each_failure(op_points_mutable, NULL);
  each_failure(op_read_obj, check_read);
  each_failure(op_primitives, NULL);
}

/* A mesh node's computes under allocation failure, at every allocation a clean evaluation
 * makes: the graph reports the failure (or keeps the stale value) and frees everything. */
static void test_node_alloc_failures(void **state) {
  test_alloc_install();
  long total = -1;
  for (long k = 0; total < 0 || k <= total; k++) {
    test_alloc_reset();
    sinew_graph_t *g = NULL;
    sinew_node_t pc, xf, m;
    int rc = sinew_scene_create(NULL, &g);
    if (!rc && !sinew_find_node_type(g, "mesh")) rc = sinew__register_mesh_types(g);
    if (!rc) rc = sinew_node_create(g, "polySphere", NULL, &pc);
    if (!rc) rc = sinew_node_create(g, "transform", NULL, &xf);
    if (!rc) rc = sinew_node_create_under(g, "mesh", NULL, xf, &m);
    sinew_plug_t out, in, t, pt, w;
    if (!rc) rc = sinew_plug_parse_attr(g, pc, "out", &out) || sinew_plug_parse_attr(g, m, "i", &in) ||
                  sinew_plug_parse_attr(g, xf, "t", &t) || sinew_plug_parse_attr(g, m, "pt[5]", &pt) ||
                  sinew_plug_parse_attr(g, m, "w[0]", &w);
    if (!rc) rc = sinew_connect(g, &out, &in, 0, NULL);
    if (!rc) rc = sinew_set_doubles(g, &t, (const double[]){1, 2, 3}, 3);
    if (!rc) rc = sinew_set_doubles(g, &pt, (const double[]){1, 0, 0}, 3);
    assert_int_equal(rc, 0);
    long before = test_alloc_count();
    if (k) test_alloc_fail_at(before + k); /* k = 0: a clean run that counts */
    sinew_data_t *d = NULL;
    rc = sinew_get_data(g, &w, &d);
    test_alloc_fail_at(0);
    if (!k) {
      total = test_alloc_count() - before;
      assert_int_equal(rc, 0);
      assert_int_equal(sinew_mesh_get(d)->npoints, 382);
    }
    assert_true(rc == 0 || rc == SINEW_ENOMEM);
    if (d) assert_int_equal(sinew_mesh_get(d)->npoints, 382); /* whole, or not at all */
    sinew_data_unref(d);
    sinew_graph_destroy(g);
    assert_int_equal(test_alloc_live(), 0);
  }
  assert_true(total >= 5); /* sphere topology + points, tweak scratch + block, world block */
  test_alloc_uninstall();
}

/* The graph's generated-points limit: a primitive whose subdivisions make more points than
 * the limit fails to compute (SINEW_ELIMIT, the message naming its plug and the limit; the
 * plug keeps its value, as after any failed compute); at or under it, it builds. */
static void test_generated_points_limit(void **state) {
  (void)state;
  assert_int_equal(sinew_graph_limit(NULL, SINEW_LIMIT_GENERATED_POINTS), 1u << 28);
  sinew_graph_t *g = scene();
  assert_int_equal(sinew_graph_limit(g, SINEW_LIMIT_GENERATED_POINTS), 1u << 28);
  assert_int_equal(sinew_graph_limit(g, SINEW_LIMIT_COUNT_), 0);
  assert_int_equal(sinew_graph_set_limit(g, SINEW_LIMIT_COUNT_, 5), 0);
  assert_int_equal(sinew_graph_set_limit(NULL, SINEW_LIMIT_GENERATED_POINTS, 5), 0);
  /* above the largest value is taken as the largest */
  assert_int_equal(sinew_graph_set_limit(g, SINEW_LIMIT_GENERATED_POINTS, UINT64_MAX), 1u << 28);
  assert_int_equal(sinew_graph_limit(g, SINEW_LIMIT_GENERATED_POINTS), 1u << 28);
  /* 10 x 10 cylinder: 10 * 11 rings + 2 centres = 112 points */
  assert_int_equal(sinew_graph_set_limit(g, SINEW_LIMIT_GENERATED_POINTS, 111), 1u << 28);
  sinew_node_t cyl, shape;
  assert_int_equal(sinew_node_create(g, "polyCylinder", "bigCylinder", &cyl), 0);
  assert_int_equal(sinew_node_create(g, "mesh", "bigShape", &shape), 0);
  sinew_plug_t p = plug(g, cyl, "sa");
  assert_int_equal(sinew_set_double(g, &p, 10), 0);
  p = plug(g, cyl, "sh");
  assert_int_equal(sinew_set_double(g, &p, 10), 0);
  sinew_plug_t out = plug(g, cyl, "out"), in = plug(g, shape, "i");
  assert_int_equal(sinew_connect(g, &out, &in, 0, NULL), 0);
  sinew_data_t *d = NULL;
  p = plug(g, cyl, "out");
  /* a failed compute keeps the plug's value (none yet) and says why in the graph's error */
  assert_int_equal(sinew_get_data(g, &p, &d), SINEW_OK);
  assert_null(d);
  assert_int_equal(sinew_graph_errcode(g), SINEW_ELIMIT);
  const char *msg = sinew_graph_errmsg(g);
  assert_non_null(strstr(msg, "bigCylinder.output"));
  assert_non_null(strstr(msg, "111 points"));
  assert_int_equal(sinew_graph_set_limit(g, SINEW_LIMIT_GENERATED_POINTS, 112), 111);
  /* a new limit applies from the next compute: outputs already made keep their values */
  assert_null(get_mesh(g, shape, "o"));
  p = plug(g, cyl, "sa");
  assert_int_equal(sinew_set_double(g, &p, 10), 0);
  sinew_data_t *o = get_mesh(g, shape, "o");
  assert_int_equal(sinew_mesh_get(o)->npoints, 112);
  sinew_data_unref(o);
  /* every primitive obeys it: the default cube has 8 points */
  sinew_graph_set_limit(g, SINEW_LIMIT_GENERATED_POINTS, 7);
  const char *types[] = {"polyCube", "polyPlane", "polySphere"};
  for (size_t i = 0; i < 3; i++) {
    sinew_node_t n;
    assert_int_equal(sinew_node_create(g, types[i], NULL, &n), 0);
    p = plug(g, n, "out");
    d = NULL;
    assert_int_equal(sinew_get_data(g, &p, &d), SINEW_OK);
    assert_null(d);
    assert_int_equal(sinew_graph_errcode(g), SINEW_ELIMIT);
  }
  sinew_graph_destroy(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_create),
      cmocka_unit_test(test_copy_on_write),
      cmocka_unit_test(test_normals),
      cmocka_unit_test(test_faces_from_edges),
      cmocka_unit_test(test_edges_from_faces),
      cmocka_unit_test(test_primitive_counts),
      cmocka_unit_test(test_cylinder_matches_maya),
      cmocka_unit_test(test_cylinder_component_tags),
      cmocka_unit_test(test_cube_matches_maya),
      cmocka_unit_test(test_obj_round_trip),
      cmocka_unit_test(test_obj_non_finite),
      cmocka_unit_test(test_obj_forms),
      cmocka_unit_test(test_obj_errors),
      cmocka_unit_test(test_mesh_node_stored),
      cmocka_unit_test(test_mesh_node_pass_through),
      cmocka_unit_test(test_world_mesh),
      cmocka_unit_test(test_steady_state),
      cmocka_unit_test(test_poly_nodes),
      cmocka_unit_test(test_generated_points_limit),
      cmocka_unit_test(test_alloc_failures),
      cmocka_unit_test(test_node_alloc_failures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
