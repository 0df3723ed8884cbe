/* nodes/mesh_prim.c: the primitives (polyCube, polyPlane, polyCylinder, polySphere) with Maya's
 * point order and face winding, so vertex indices in files (weights, tweaks, components) mean the
 * same points here. The orders were read off meshes Maya wrote (spec 8.8's cube, the corpus's
 * polyCylinder meshes); docs/mesh.md lists what could not be checked against a file.
 *
 * Angles around Y follow Maya: point i of a ring sits at theta = 2*pi*(i+1)/n with
 * x = r cos(theta), z = -r sin(theta), so the last point of each ring is on +X. */
#include <math.h>

#include "nodes/mesh_internal.h"

#define PI 3.14159265358979323846

/* The largest primitive built: keeps every index and face-vertex count within 32 bits. */
#define MAX_POINTS (1u << 28)

typedef struct builder {
  sinew_data_t *mesh;
  float *p;
  uint32_t *counts, *verts;
  uint32_t nf, nv; /* faces and face-vertices written */
} builder;

/* Allocates a mesh of npoints points and nfaces faces of nface_verts face-vertices in total:
 * SINEW_ERANGE beyond what 32-bit indices hold, SINEW_ELIMIT beyond the caller's max_points. */
static int begin(builder *b, uint64_t npoints, uint64_t nfaces, uint64_t nface_verts, uint64_t max_points) {
  if (npoints > MAX_POINTS || nfaces > MAX_POINTS || nface_verts > 4ull * MAX_POINTS) return SINEW_ERANGE;
  if (npoints > max_points) return SINEW_ELIMIT;
  sinew_data_t *topo;
  int rc = sinew__topology_new((uint32_t)npoints, (uint32_t)nfaces, nface_verts, &topo, &b->counts, &b->verts);
  if (rc) return rc;
  /* The topology's arrays are written before finish; the mesh block only holds a reference. */
  if ((rc = sinew__mesh_new(topo, (uint32_t)npoints, false, &b->mesh))) return rc;
  b->p = (float *)sinew_mesh_get(b->mesh)->points;
  b->nf = b->nv = 0;
  return SINEW_OK;
}

static void point(builder *b, uint32_t i, double x, double y, double z) {
  b->p[3 * (size_t)i] = (float)x;
  b->p[3 * (size_t)i + 1] = (float)y;
  b->p[3 * (size_t)i + 2] = (float)z;
}

static void quad(builder *b, uint32_t a, uint32_t c, uint32_t d, uint32_t e) {
  b->counts[b->nf++] = 4;
  b->verts[b->nv++] = a;
  b->verts[b->nv++] = c;
  b->verts[b->nv++] = d;
  b->verts[b->nv++] = e;
}

static void tri(builder *b, uint32_t a, uint32_t c, uint32_t d) {
  b->counts[b->nf++] = 3;
  b->verts[b->nv++] = a;
  b->verts[b->nv++] = c;
  b->verts[b->nv++] = d;
}

static int finish(builder *b, sinew_data_t **out) {
  int rc = sinew__topology_finish(sinew__mesh_topology_block(b->mesh));
  if (rc) { /* a bug in a builder below, never bad input */
    sinew_data_unref(b->mesh);
    return rc;
  }
  *out = b->mesh;
  return SINEW_OK;
}

static bool finite_size(double v) { return isfinite(v); }

/* ---- polyCube ------------------------------------------------------------------------------- *
 * Maya wraps rows of (sx+1) points around the X axis: the front (+Z) rows from bottom to top,
 * the top rows from front to back, the back rows from top to bottom, the bottom rows from back
 * to front; then the inner points of the +X and the -X side. Faces: the wrapped strip row by
 * row, then the +X side, then the -X side. For 1x1x1 this is spec 8.8's cube exactly. */

typedef struct cube {
  uint32_t sx, sy, sz, rows;
} cube;

/* Ring row k of a side grid point (a along -Z from the front, b along +Y from the bottom), or
 * UINT32_MAX for an inner point. */
static uint32_t cube_row(const cube *c, uint32_t a, uint32_t b) {
  if (b == 0) return a == 0 ? 0 : c->rows - a;
  if (b == c->sy) return c->sy + a;
  if (a == 0) return b;
  if (a == c->sz) return 2 * c->sy + c->sz - b;
  return UINT32_MAX;
}

static uint32_t cube_side_point(const cube *c, bool right, uint32_t a, uint32_t b) {
  uint32_t k = cube_row(c, a, b);
  if (k != UINT32_MAX) return k * (c->sx + 1) + (right ? c->sx : 0);
  uint32_t inner = (c->sy - 1) * (c->sz - 1);
  return c->rows * (c->sx + 1) + (right ? 0 : inner) + (b - 1) * (c->sz - 1) + (a - 1);
}

int sinew_mesh_cube(double w, double h, double d, uint32_t sx, uint32_t sy, uint32_t sz, sinew_data_t **out) {
  return sinew__mesh_cube(w, h, d, sx, sy, sz, MAX_POINTS, out);
}

int sinew__mesh_cube(double w, double h, double d, uint32_t sx, uint32_t sy, uint32_t sz, uint64_t max_points,
                     sinew_data_t **out) {
  if (!out || !sx || !sy || !sz || !finite_size(w) || !finite_size(h) || !finite_size(d)) return SINEW_EINVAL;
  cube c = {sx, sy, sz, 0};
  uint64_t rows = 2 * ((uint64_t)sy + sz), inner = (uint64_t)(sy - 1) * (sz - 1);
  uint64_t npoints = rows * (sx + 1ull) + 2 * inner, nfaces = rows * sx + 2ull * sy * sz;
  builder b;
  int rc = begin(&b, npoints, nfaces, 4 * nfaces, max_points);
  if (rc) return rc;
  c.rows = (uint32_t)rows;
  for (uint32_t k = 0; k < c.rows; k++) {
    double y, z;
    if (k <= sy) y = -h / 2 + h * k / sy, z = d / 2;
    else if (k <= sy + sz) y = h / 2, z = d / 2 - d * (k - sy) / sz;
    else if (k <= 2 * sy + sz) y = h / 2 - h * (k - sy - sz) / sy, z = -d / 2;
    else y = -h / 2, z = -d / 2 + d * (k - 2 * sy - sz) / sz;
    for (uint32_t i = 0; i <= sx; i++) point(&b, k * (sx + 1) + i, -w / 2 + w * i / sx, y, z);
  }
  for (int side = 0; side < 2; side++)
    for (uint32_t bb = 1; bb < sy; bb++)
      for (uint32_t a = 1; a < sz; a++)
        point(&b, cube_side_point(&c, side == 0, a, bb), side == 0 ? w / 2 : -w / 2, -h / 2 + h * bb / sy,
              d / 2 - d * a / sz);
  for (uint32_t k = 0; k < c.rows; k++) {
    uint32_t r0 = k * (sx + 1), r1 = ((k + 1) % c.rows) * (sx + 1);
    for (uint32_t i = 0; i < sx; i++) quad(&b, r0 + i, r0 + i + 1, r1 + i + 1, r1 + i);
  }
  for (uint32_t bb = 0; bb < sy; bb++) /* +X side, normal +X */
    for (uint32_t a = 0; a < sz; a++)
      quad(&b, cube_side_point(&c, true, a, bb), cube_side_point(&c, true, a + 1, bb),
           cube_side_point(&c, true, a + 1, bb + 1), cube_side_point(&c, true, a, bb + 1));
  for (uint32_t bb = 0; bb < sy; bb++) /* -X side, normal -X */
    for (uint32_t a = 0; a < sz; a++)
      quad(&b, cube_side_point(&c, false, a + 1, bb), cube_side_point(&c, false, a, bb),
           cube_side_point(&c, false, a, bb + 1), cube_side_point(&c, false, a + 1, bb + 1));
  return finish(&b, out);
}

/* ---- polyPlane ------------------------------------------------------------------------------ *
 * Rows of (sx+1) points along +X, from z = +h/2 to z = -h/2; quads wound for a +Y normal. */
int sinew_mesh_plane(double w, double h, uint32_t sx, uint32_t sy, sinew_data_t **out) {
  return sinew__mesh_plane(w, h, sx, sy, MAX_POINTS, out);
}

int sinew__mesh_plane(double w, double h, uint32_t sx, uint32_t sy, uint64_t max_points, sinew_data_t **out) {
  if (!out || !sx || !sy || !finite_size(w) || !finite_size(h)) return SINEW_EINVAL;
  uint64_t npoints = (sx + 1ull) * (sy + 1ull), nfaces = (uint64_t)sx * sy;
  builder b;
  int rc = begin(&b, npoints, nfaces, 4 * nfaces, max_points);
  if (rc) return rc;
  for (uint32_t r = 0; r <= sy; r++)
    for (uint32_t i = 0; i <= sx; i++) point(&b, r * (sx + 1) + i, -w / 2 + w * i / sx, 0, h / 2 - h * r / sy);
  for (uint32_t r = 0; r < sy; r++)
    for (uint32_t i = 0; i < sx; i++) {
      uint32_t a = r * (sx + 1) + i, c = a + sx + 1;
      quad(&b, a, a + 1, c + 1, c);
    }
  return finish(&b, out);
}

/* ---- polyCylinder --------------------------------------------------------------------------- *
 * Checked against Maya files (corpus mldeform/Cylinder_setup.ma, ffda/CylinderTest.ma):
 * (sy+1) rings of sx points from bottom to top, then the bottom and the top cap centres; faces:
 * the sides ring by ring, then the bottom cap triangles (i+1, i, centre), then the top ones
 * (i, i+1, centre). With sz > 1 the caps get sz-1 inner rings each (bottom cap's first, outer to
 * inner) before the centres, and quads between rings; that layout is not checked against Maya.
 * sz = 0 leaves the cylinder open. */

static void ring(builder *b, uint32_t first, uint32_t n, double radius, double y) {
  for (uint32_t i = 0; i < n; i++) {
    double t = 2 * PI * (i + 1) / n;
    point(b, first + i, radius * cos(t), y, -radius * sin(t));
  }
}

/* Faces of the band between two rings: (a_i, a_i+1, b_i+1, b_i). */
static void band(builder *b, uint32_t ra, uint32_t rb, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) quad(b, ra + i, ra + (i + 1) % n, rb + (i + 1) % n, rb + i);
}

int sinew_mesh_cylinder(double radius, double height, uint32_t sx, uint32_t sy, uint32_t sz,
                        sinew_data_t **out) {
  return sinew__mesh_cylinder(radius, height, sx, sy, sz, MAX_POINTS, out);
}

int sinew__mesh_cylinder(double radius, double height, uint32_t sx, uint32_t sy, uint32_t sz, uint64_t max_points,
                         sinew_data_t **out) {
  if (!out || sx < 3 || !sy || !finite_size(radius) || !finite_size(height)) return SINEW_EINVAL;
  uint64_t sides = (uint64_t)sx * (sy + 1ull), inner = sz > 1 ? (uint64_t)sx * (sz - 1) : 0;
  uint64_t npoints = sides + 2 * inner + (sz ? 2 : 0);
  uint64_t nquads = (uint64_t)sx * sy + 2 * inner, ntris = sz ? 2ull * sx : 0;
  builder b;
  int rc = begin(&b, npoints, nquads + ntris, 4 * nquads + 3 * ntris, max_points);
  if (rc) return rc;
  for (uint32_t j = 0; j <= sy; j++) ring(&b, j * sx, sx, radius, -height / 2 + height * j / sy);
  uint32_t bottom_inner = (uint32_t)sides, top_inner = (uint32_t)(sides + inner);
  uint32_t bottom_centre = (uint32_t)(sides + 2 * inner), top_centre = bottom_centre + 1;
  for (uint32_t q = 1; q < sz; q++) {
    double rr = radius * (sz - q) / sz;
    ring(&b, bottom_inner + (q - 1) * sx, sx, rr, -height / 2);
    ring(&b, top_inner + (q - 1) * sx, sx, rr, height / 2);
  }
  if (sz) {
    point(&b, bottom_centre, 0, -height / 2, 0);
    point(&b, top_centre, 0, height / 2, 0);
  }
  for (uint32_t j = 0; j < sy; j++) band(&b, j * sx, (j + 1) * sx, sx);
  if (!sz) return finish(&b, out);
  /* bottom cap: outer ring is ring 0; walk inwards against the sides' direction */
  uint32_t outer = 0;
  for (uint32_t q = 1; q < sz; q++) {
    uint32_t in = bottom_inner + (q - 1) * sx;
    for (uint32_t i = 0; i < sx; i++) quad(&b, outer + (i + 1) % sx, outer + i, in + i, in + (i + 1) % sx);
    outer = in;
  }
  for (uint32_t i = 0; i < sx; i++) tri(&b, outer + (i + 1) % sx, outer + i, bottom_centre);
  outer = sy * sx;
  for (uint32_t q = 1; q < sz; q++) {
    uint32_t in = top_inner + (q - 1) * sx;
    band(&b, outer, in, sx);
    outer = in;
  }
  for (uint32_t i = 0; i < sx; i++) tri(&b, outer + i, outer + (i + 1) % sx, top_centre);
  return finish(&b, out);
}

/* ---- polySphere ----------------------------------------------------------------------------- *
 * (sy-1) rings of sx points from the south to the north, then the south and the north pole;
 * faces: the quads band by band, then the south triangles, then the north ones, wound like the
 * cylinder's. Default 20 x 20: 382 points, 400 faces. */
int sinew_mesh_sphere(double radius, uint32_t sx, uint32_t sy, sinew_data_t **out) {
  return sinew__mesh_sphere(radius, sx, sy, MAX_POINTS, out);
}

int sinew__mesh_sphere(double radius, uint32_t sx, uint32_t sy, uint64_t max_points, sinew_data_t **out) {
  if (!out || sx < 3 || sy < 2 || !finite_size(radius)) return SINEW_EINVAL;
  uint64_t rings = sy - 1ull, npoints = (uint64_t)sx * rings + 2, nquads = (uint64_t)sx * (rings - 1);
  builder b;
  int rc = begin(&b, npoints, nquads + 2ull * sx, 4 * nquads + 6ull * sx, max_points);
  if (rc) return rc;
  for (uint32_t j = 0; j < rings; j++) {
    double phi = -PI / 2 + PI * (j + 1) / sy;
    ring(&b, j * sx, sx, radius * cos(phi), radius * sin(phi));
  }
  uint32_t south = (uint32_t)(sx * rings), north = south + 1, last = (uint32_t)(sx * (rings - 1));
  point(&b, south, 0, -radius, 0);
  point(&b, north, 0, radius, 0);
  for (uint32_t j = 0; j + 1 < rings; j++) band(&b, j * sx, (j + 1) * sx, sx);
  for (uint32_t i = 0; i < sx; i++) tri(&b, (i + 1) % sx, i, south);
  for (uint32_t i = 0; i < sx; i++) tri(&b, last + i, last + (i + 1) % sx, north);
  return finish(&b, out);
}
