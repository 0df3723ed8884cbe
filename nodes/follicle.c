/* nodes/follicle.c: Maya's follicle shape (docs/rigging.md#follicles): a point riding a mesh at
 * a UV, as ribbon and flexi-surface rigs use it, and the hair follicle's curve.
 *
 *   inputMesh (inm), inputWorldMatrix (iwm), parameterU (pu), parameterV (pv)
 *       -> outTranslate (ot), outRotate (or): the mesh point whose UV (first UV set) is (pu, pv),
 *          in world space, and the frame there (X along the surface's U direction, Y along V
 *          made perpendicular to it, Z the normal: see docs for how this was checked), as
 *          Euler angles XYZ. Files wire them into the follicle's transform (ot -> t, or -> r).
 *   startPosition (sp), startPositionMatrix (spm), currentPosition (crp) -> outCurve (ocr): the
 *          hair's curve. The hairSystem simulation that writes currentPosition is not evaluated:
 *          outCurve is the start curve in world space (the hair at rest), and it depends on
 *          currentPosition so that what the simulation would move is reported as depending on it.
 *
 * A UV outside every face takes the nearest point (in UV space) of the nearest face; a mesh
 * without UVs, or inputSurface (a NURBS surface, not modelled),
 * fails the compute, which is logged, and the outputs keep their values. */
#include <math.h>
#include <string.h>

#include "nodes/nodes_internal.h"
#include "sinew/curve.h"
#include "sinew/mesh.h"

#define F_IN SINEW_ATTR_INPUT
#define F_OUT SINEW_ATTR_OUTPUT
#define F_GEOM_IN (SINEW_ATTR_READABLE | SINEW_ATTR_WRITABLE | SINEW_ATTR_CONNECTABLE | SINEW_ATTR_INDEX_MATTERS)
#define COUNT(a) (sizeof(a) / sizeof *(a))

#define VEC3(lname, sname, ctype, fl, lx, sx, ly, sy, lz, sz)                                         \
  {.name = lname, .short_name = sname, .type = SINEW_ATTR_COMPOUND, .flags = fl},                     \
      {.name = lx, .short_name = sx, .type = ctype, .parent = lname, .flags = fl},                    \
      {.name = ly, .short_name = sy, .type = ctype, .parent = lname, .flags = fl},                    \
      {.name = lz, .short_name = sz, .type = ctype, .parent = lname, .flags = fl}

/* Maya's ramp attributes: elements of position, value and interpolation (files set them as
 * ".sts[0:1] 0 1 3 1 0.2 3"); stored, not used (they shape the simulated hair). */
#define RAMP(lname, sname, pos, spos, val, sval, interp, sinterp)                                          \
  {.name = lname, .short_name = sname, .type = SINEW_ATTR_COMPOUND, .flags = F_IN | SINEW_ATTR_ARRAY},     \
      {.name = pos, .short_name = spos, .type = SINEW_ATTR_FLOAT, .parent = lname, .flags = F_IN},         \
      {.name = val, .short_name = sval, .type = SINEW_ATTR_FLOAT, .parent = lname, .flags = F_IN},         \
      {.name = interp, .short_name = sinterp, .type = SINEW_ATTR_ENUM, .parent = lname, .flags = F_IN,     \
       .enum_fields = "None:Linear:Smooth:Spline"}

static const sinew_attr_desc_t follicle_attrs[] = {
    {.name = "inputMesh", .short_name = "inm", .type = SINEW_ATTR_DATA, .flags = F_GEOM_IN},
    {.name = "inputSurface", .short_name = "is", .type = SINEW_ATTR_DATA, .flags = F_GEOM_IN},
    {.name = "inputWorldMatrix", .short_name = "iwm", .type = SINEW_ATTR_MATRIX, .flags = F_IN},
    {.name = "parameterU", .short_name = "pu", .type = SINEW_ATTR_DOUBLE, .flags = F_IN | SINEW_ATTR_KEYABLE},
    {.name = "parameterV", .short_name = "pv", .type = SINEW_ATTR_DOUBLE, .flags = F_IN | SINEW_ATTR_KEYABLE},
    {.name = "mapSetName", .short_name = "msn", .type = SINEW_ATTR_STRING},
    VEC3("outTranslate", "ot", SINEW_ATTR_DISTANCE, F_OUT, "outTranslateX", "otx", "outTranslateY", "oty",
         "outTranslateZ", "otz"),
    VEC3("outRotate", "or", SINEW_ATTR_ANGLE, F_OUT, "outRotateX", "orx", "outRotateY", "ory", "outRotateZ", "orz"),
    /* the hair */
    {.name = "startPosition", .short_name = "sp", .type = SINEW_ATTR_DATA, .flags = F_GEOM_IN},
    {.name = "startPositionMatrix", .short_name = "spm", .type = SINEW_ATTR_MATRIX, .flags = F_IN},
    {.name = "currentPosition", .short_name = "crp", .type = SINEW_ATTR_DATA, .flags = F_GEOM_IN},
    {.name = "outCurve", .short_name = "ocr", .type = SINEW_ATTR_DATA, .flags = F_OUT,
     .data_type = &sinew_curve_data_type},
    /* the hair the hairSystem reads: a connection source, no value sinew makes */
    {.name = "outHair", .short_name = "oha", .type = SINEW_ATTR_DATA,
     .flags = SINEW_ATTR_READABLE | SINEW_ATTR_CONNECTABLE},
    {.name = "restPose", .short_name = "rsp", .type = SINEW_ATTR_ENUM, .enum_fields = "Same as Start:Straight:Curved"},
    {.name = "startDirection", .short_name = "sdr", .type = SINEW_ATTR_ENUM, .enum_fields = "Normal:Start Curve"},
    {.name = "degree", .short_name = "dgr", .type = SINEW_ATTR_INT, .default_value = 2},
    {.name = "simulationMethod", .short_name = "sim", .type = SINEW_ATTR_ENUM,
     .enum_fields = "Off:Static:Dynamic Follicle Only:All Follicles", .default_value = 2},
    RAMP("stiffnessScale", "sts", "stiffnessScale_Position", "stsp", "stiffnessScale_FloatValue", "stsfv",
         "stiffnessScale_Interp", "stsi"),
    RAMP("clumpWidthScale", "cws", "clumpWidthScale_Position", "cwsp", "clumpWidthScale_FloatValue", "cwsfv",
         "clumpWidthScale_Interp", "cwsi"),
    RAMP("attractionScale", "ats", "attractionScale_Position", "atsp", "attractionScale_FloatValue", "atsfv",
         "attractionScale_Interp", "atsi"),
};

static const sinew_affects_t follicle_affects[] = {
    {"inputMesh", "outTranslate"},        {"inputMesh", "outRotate"},
    {"inputSurface", "outTranslate"},     {"inputSurface", "outRotate"},
    {"inputWorldMatrix", "outTranslate"}, {"inputWorldMatrix", "outRotate"},
    {"parameterU", "outTranslate"},       {"parameterU", "outRotate"},
    {"parameterV", "outTranslate"},       {"parameterV", "outRotate"},
    {"mapSetName", "outTranslate"},       {"mapSetName", "outRotate"},
    {"startPosition", "outCurve"},        {"startPositionMatrix", "outCurve"},
    {"currentPosition", "outCurve"},      {"simulationMethod", "outCurve"},
};

static struct {
  uint32_t inm, is, iwm, pu, pv, ot, or_, sp, spm, ocr;
} F;

static sinew_vec3_t v3(const float *p) { return (sinew_vec3_t){p[0], p[1], p[2]}; }
static sinew_vec3_t vsub(sinew_vec3_t a, sinew_vec3_t b) { return (sinew_vec3_t){a.x - b.x, a.y - b.y, a.z - b.z}; }
static sinew_vec3_t vadd(sinew_vec3_t a, sinew_vec3_t b) { return (sinew_vec3_t){a.x + b.x, a.y + b.y, a.z + b.z}; }
static sinew_vec3_t vmul(sinew_vec3_t a, double s) { return (sinew_vec3_t){a.x * s, a.y * s, a.z * s}; }
static double vdot(sinew_vec3_t a, sinew_vec3_t b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static sinew_vec3_t vcross(sinew_vec3_t a, sinew_vec3_t b) {
  return (sinew_vec3_t){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static sinew_vec3_t vnorm(sinew_vec3_t a) {
  double l = sqrt(vdot(a, a));
  return l > 0 ? vmul(a, 1 / l) : a;
}

/* Barycentric coordinates of (u, v) in the UV triangle a b c; false when it is degenerate. */
static bool barycentric(const float *a, const float *b, const float *c, double u, double v, double l[3]) {
  double x1 = b[0] - a[0], y1 = b[1] - a[1], x2 = c[0] - a[0], y2 = c[1] - a[1];
  double det = x1 * y2 - x2 * y1;
  if (fabs(det) < 1e-20) return false;
  double px = u - a[0], py = v - a[1];
  l[1] = (px * y2 - x2 * py) / det;
  l[2] = (x1 * py - px * y1) / det;
  l[0] = 1 - l[1] - l[2];
  return true;
}

/* Twice face f's area vector (Newell). */
static sinew_vec3_t face_area(const sinew_mesh_t *m, uint32_t f) {
  const sinew_topology_t *t = m->topology;
  uint32_t at = t->face_offsets[f], cnt = t->face_counts[f];
  sinew_vec3_t area = {0, 0, 0};
  for (uint32_t k = 0; k < cnt; k++)
    area = vadd(area, vcross(v3(m->points + 3 * (size_t)t->face_verts[at + k]),
                             v3(m->points + 3 * (size_t)t->face_verts[at + (k + 1) % cnt])));
  return area;
}

#define FAN_MAX 64

/* Vertex v's normal as face f0 sees it: the area vectors summed over the faces around v that f0
 * reaches across smooth edges (Maya's hard edges split the normal; every edge is smooth when the
 * mesh does not say). A vertex of more than FAN_MAX faces sums them all. */
static sinew_vec3_t vertex_normal(const sinew_mesh_t *m, uint32_t f0, uint32_t v) {
  const sinew_topology_t *t = m->topology;
  uint32_t fan[FAN_MAX], prev[FAN_MAX], next[FAN_MAX], nf = 0;
  uint8_t hard_prev[FAN_MAX], hard_next[FAN_MAX], in[FAN_MAX];
  bool all = !t->face_hard;
  sinew_vec3_t sum = {0, 0, 0};
  for (uint32_t f = 0; f < t->nfaces; f++) {
    uint32_t at = t->face_offsets[f], cnt = t->face_counts[f];
    for (uint32_t k = 0; k < cnt; k++) {
      if (t->face_verts[at + k] != v) continue;
      if (nf == FAN_MAX) all = true;
      else {
        uint32_t kp = (k + cnt - 1) % cnt;
        fan[nf] = f, prev[nf] = t->face_verts[at + kp], next[nf] = t->face_verts[at + (k + 1) % cnt];
        hard_prev[nf] = t->face_hard ? t->face_hard[at + kp] : 0;
        hard_next[nf] = t->face_hard ? t->face_hard[at + k] : 0;
        in[nf] = f == f0;
        nf++;
      }
      if (all) sum = vadd(sum, face_area(m, f));
      break;
    }
  }
  if (all) return sum;
  for (bool grew = true; grew;) { /* spread from f0 across the smooth edges at v */
    grew = false;
    for (uint32_t i = 0; i < nf; i++) {
      if (!in[i]) continue;
      for (uint32_t j = 0; j < nf; j++) {
        if (in[j]) continue;
        bool shared_smooth = (next[i] == prev[j] && !hard_next[i]) || (prev[i] == next[j] && !hard_prev[i]) ||
                             (next[i] == next[j] && !hard_next[i]) || (prev[i] == prev[j] && !hard_prev[i]);
        if (shared_smooth) in[j] = 1, grew = true;
      }
    }
  }
  for (uint32_t i = 0; i < nf; i++)
    if (in[i]) sum = vadd(sum, face_area(m, fan[i]));
  return sum;
}

/* The point of the mesh at (u, v) and the surface's frame there (local space). */
typedef struct uv_hit {
  sinew_vec3_t p, du, dv, n;
} uv_hit;

static bool mesh_at_uv(const sinew_mesh_t *m, double u, double v, uv_hit *out) {
  const sinew_topology_t *t = m->topology;
  if (!t->face_uvs || !t->uvs) return false;
  double best = INFINITY, bl[3] = {0, 0, 0};
  uint32_t bi[3] = {0, 0, 0}, face = 0;
  for (uint32_t f = 0; f < t->nfaces && best > 0; f++) {
    uint32_t at = t->face_offsets[f], cnt = t->face_counts[f];
    for (uint32_t k = 1; k + 1 < cnt; k++) { /* the face as a fan of triangles */
      uint32_t fv[3] = {at, at + k, at + k + 1};
      if (t->face_uvs[fv[0]] == UINT32_MAX || t->face_uvs[fv[1]] == UINT32_MAX || t->face_uvs[fv[2]] == UINT32_MAX)
        continue;
      double l[3];
      const float *ta = t->uvs + 2 * t->face_uvs[fv[0]], *tb = t->uvs + 2 * t->face_uvs[fv[1]],
                  *tc = t->uvs + 2 * t->face_uvs[fv[2]];
      if (!barycentric(ta, tb, tc, u, v, l)) continue;
      double dist = 0;
      if (fmin(fmin(l[0], l[1]), l[2]) < 0) { /* outside: the nearest point of its edges */
        const float *c[3] = {ta, tb, tc};
        dist = INFINITY;
        for (int q = 0; q < 3; q++) {
          const float *a = c[q], *b = c[(q + 1) % 3];
          double ex = b[0] - a[0], ey = b[1] - a[1], len2 = ex * ex + ey * ey;
          double s = len2 > 0 ? ((u - a[0]) * ex + (v - a[1]) * ey) / len2 : 0;
          s = s < 0 ? 0 : s > 1 ? 1 : s;
          double dx = a[0] + s * ex - u, dy = a[1] + s * ey - v, d = sqrt(dx * dx + dy * dy);
          if (d < dist) {
            dist = d;
            l[q] = 1 - s, l[(q + 1) % 3] = s, l[(q + 2) % 3] = 0;
          }
        }
      }
      if (dist < best) {
        best = dist;
        memcpy(bl, l, sizeof bl);
        for (int q = 0; q < 3; q++) bi[q] = fv[q];
        face = f;
      }
    }
  }
  if (best == INFINITY) return false;
  sinew_vec3_t p[3];
  const float *uv[3];
  for (int q = 0; q < 3; q++) {
    p[q] = v3(m->points + 3 * (size_t)t->face_verts[bi[q]]);
    uv[q] = t->uvs + 2 * t->face_uvs[bi[q]];
  }
  out->p = vadd(vadd(vmul(p[0], bl[0]), vmul(p[1], bl[1])), vmul(p[2], bl[2]));
  /* dP/du and dP/dv: the triangle's edges are a linear map of its UV edges */
  sinew_vec3_t e1 = vsub(p[1], p[0]), e2 = vsub(p[2], p[0]);
  double a = uv[1][0] - uv[0][0], b = uv[2][0] - uv[0][0], c = uv[1][1] - uv[0][1], d = uv[2][1] - uv[0][1];
  double det = a * d - b * c;
  out->du = vmul(vsub(vmul(e1, d), vmul(e2, c)), 1 / det);
  out->dv = vmul(vsub(vmul(e2, a), vmul(e1, b)), 1 / det);
  /* the normal: the vertex normals of the triangle's face interpolated */
  sinew_vec3_t vn[3];
  for (int q = 0; q < 3; q++) vn[q] = vertex_normal(m, face, t->face_verts[bi[q]]);
  out->n = vnorm(vadd(vadd(vmul(vnorm(vn[0]), bl[0]), vmul(vnorm(vn[1]), bl[1])), vmul(vnorm(vn[2]), bl[2])));
  if (vdot(out->n, out->n) == 0) out->n = vnorm(vcross(e1, e2));
  return true;
}

static int follicle_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  sinew_plug_t top = *plug, up;
  while (sinew_plug_parent(g, &top, &up)) top = up;
  if (top.attr == F.ocr) {
    sinew_plug_t sp = sinew_plug_make(n, F.sp, 0, NULL), spm = sinew_plug_make(n, F.spm, 0, NULL);
    sinew_data_t *c = NULL, *w = NULL;
    sinew_mat4_t m;
    int rc = sinew_get_data(g, &sp, &c);
    if (!rc && (!c || sinew_data_type(c) != &sinew_curve_data_type)) rc = SINEW_ENOTFOUND;
    if (!rc && sinew_get_matrix(g, &spm, &m)) sinew_mat4_identity(&m);
    if (!rc) rc = sinew_curve_transform(c, &m, &w);
    if (!rc) rc = sinew_compute_set_data(ctx, &top, w);
    sinew_data_unref(c);
    sinew_data_unref(w);
    if (rc == SINEW_ENOTFOUND)
      return sinew_graph_set_error(g, rc, "%s: no start curve (startPosition holds no curve)", sinew_node_name(g, n));
    return rc;
  }
  if (top.attr != F.ot && top.attr != F.or_) return SINEW_EUNKNOWN_PLUG;
  sinew_plug_t inm = sinew_plug_make(n, F.inm, 0, NULL), is = sinew_plug_make(n, F.is, 0, NULL);
  sinew_plug_t iwm = sinew_plug_make(n, F.iwm, 0, NULL), pu = sinew_plug_make(n, F.pu, 0, NULL),
               pv = sinew_plug_make(n, F.pv, 0, NULL);
  sinew_data_t *md = NULL;
  double u = 0, v = 0;
  sinew_mat4_t wm;
  sinew_get_double(g, &pu, &u);
  sinew_get_double(g, &pv, &v);
  if (sinew_get_matrix(g, &iwm, &wm)) sinew_mat4_identity(&wm);
  int rc = sinew_get_data(g, &inm, &md);
  const sinew_mesh_t *mesh = md ? sinew_mesh_get(md) : NULL;
  uv_hit h;
  if (!rc && (!mesh || !mesh_at_uv(mesh, u, v, &h))) {
    bool surface = sinew_plug_source(g, &is, NULL);
    rc = sinew_graph_set_error(g, SINEW_EUNSUPPORTED, "%s: %s", sinew_node_name(g, n),
                               surface && !mesh ? "follicles on NURBS surfaces are not modelled"
                               : mesh        ? "inputMesh has no UVs in its first UV set"
                                             : "no inputMesh");
  }
  sinew_data_unref(md);
  if (rc) return rc;
  sinew_vec3_t p, du, dv, nn;
  sinew_mat4_transform_point(h.p, &wm, &p);
  sinew_mat4_transform_vector(h.du, &wm, &du);
  sinew_mat4_transform_vector(h.dv, &wm, &dv);
  sinew_mat4_transform_vector(h.n, &wm, &nn);
  /* the frame: Z the normal, X against U across it, Y = Z x X */
  sinew_vec3_t z = vnorm(nn), x = vmul(du, -1);
  x = vnorm(vsub(x, vmul(z, vdot(x, z))));
  sinew_vec3_t y = vcross(z, x);
  sinew_mat4_t r;
  sinew_mat4_identity(&r);
  const sinew_vec3_t rows[3] = {x, y, z};
  for (int i = 0; i < 3; i++) r.m[i][0] = rows[i].x, r.m[i][1] = rows[i].y, r.m[i][2] = rows[i].z;
  sinew_vec3_t e;
  sinew_euler_from_mat4(&r, SINEW_ROTATE_XYZ, &e);
  sinew_plug_t ot = sinew_plug_make(n, F.ot, 0, NULL), orp = sinew_plug_make(n, F.or_, 0, NULL);
  rc = sinew_compute_set_doubles(ctx, &ot, (const double[]){p.x, p.y, p.z}, 3);
  if (!rc) rc = sinew_compute_set_doubles(ctx, &orp, (const double[]){e.x, e.y, e.z}, 3);
  return rc;
}

int sinew__register_follicle_types(sinew_graph_t *g) {
  if (sinew_find_node_type(g, "follicle")) return SINEW_OK;
  const sinew_node_type_t *t;
  sinew_node_type_desc_t d = {.name = "follicle", .parent_type = "dagNode", .attrs = follicle_attrs,
                              .attr_count = COUNT(follicle_attrs), .affects = follicle_affects,
                              .affects_count = COUNT(follicle_affects), .compute = follicle_compute};
  int rc = sinew_register_node_type(g, &d, &t);
  if (rc) return rc;
  F.inm = sinew_node_type_attr(t, "inm");
  F.is = sinew_node_type_attr(t, "is");
  F.iwm = sinew_node_type_attr(t, "iwm");
  F.pu = sinew_node_type_attr(t, "pu");
  F.pv = sinew_node_type_attr(t, "pv");
  F.ot = sinew_node_type_attr(t, "ot");
  F.or_ = sinew_node_type_attr(t, "or");
  F.sp = sinew_node_type_attr(t, "sp");
  F.spm = sinew_node_type_attr(t, "spm");
  F.ocr = sinew_node_type_attr(t, "ocr");
  return SINEW_OK;
}
