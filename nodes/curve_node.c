/* nodes/curve_node.c: the curve node types (sinew/curve.h, docs/rigging.md#curves), registered
 * through the public node-type API:
 *
 *   nurbsCurve       local = create when it holds a curve, else cached (the file's .cc);
 *                    worldSpace[i] = local * the parent's world matrix
 *   makeNurbCircle   outputCurve = Maya's circle (sinew_curve_circle)
 *   curveInfo        arcLength, controlPoints[], weights[], knots[] of inputCurve
 *   pointOnCurveInfo position, tangent, normal ... of inputCurve at parameter
 *
 * Under the world or an identity parent, worldSpace is the very block local is, and local the
 * block create or cached holds: passing a curve along copies nothing. */
#include <math.h>
#include <string.h>

#include "nodes/nodes_internal.h"
#include "sinew/curve.h"

#define F_OUT SINEW_ATTR_OUTPUT
#define F_OUT_ARRAY (SINEW_ATTR_OUTPUT | SINEW_ATTR_ARRAY)
/* Geometry inputs are connected, not written to files (cached is). */
#define F_GEOM_IN (SINEW_ATTR_READABLE | SINEW_ATTR_WRITABLE | SINEW_ATTR_CONNECTABLE | SINEW_ATTR_INDEX_MATTERS)
#define CURVE &sinew_curve_data_type
#define COUNT(a) (sizeof(a) / sizeof *(a))

#define VEC3(lname, sname, ctype, fl, lx, sx, ly, sy, lz, sz)                                   \
  {.name = lname, .short_name = sname, .type = SINEW_ATTR_COMPOUND, .flags = fl},                \
      {.name = lx, .short_name = sx, .type = ctype, .parent = lname, .flags = (fl) & ~SINEW_ATTR_ARRAY}, \
      {.name = ly, .short_name = sy, .type = ctype, .parent = lname, .flags = (fl) & ~SINEW_ATTR_ARRAY}, \
      {.name = lz, .short_name = sz, .type = ctype, .parent = lname, .flags = (fl) & ~SINEW_ATTR_ARRAY}

static const sinew_attr_desc_t curve_attrs[] = {
    {.name = "create", .short_name = "cr", .type = SINEW_ATTR_DATA, .flags = F_GEOM_IN, .data_type = CURVE},
    {.name = "cached", .short_name = "cc", .type = SINEW_ATTR_DATA, .data_type = CURVE},
    {.name = "local", .short_name = "l", .type = SINEW_ATTR_DATA, .flags = F_OUT, .data_type = CURVE},
    {.name = "worldSpace", .short_name = "ws", .type = SINEW_ATTR_DATA, .flags = F_OUT_ARRAY, .data_type = CURVE},
    {.name = "degree", .short_name = "d", .type = SINEW_ATTR_INT, .flags = F_OUT},
    {.name = "spans", .short_name = "sp", .type = SINEW_ATTR_INT, .flags = F_OUT},
    {.name = "form", .short_name = "f", .type = SINEW_ATTR_ENUM, .flags = F_OUT, .enum_fields = "Open:Closed:Periodic"},
    {.name = "minValue", .short_name = "min", .type = SINEW_ATTR_DOUBLE, .flags = F_OUT},
    {.name = "maxValue", .short_name = "max", .type = SINEW_ATTR_DOUBLE, .flags = F_OUT},
    /* drawing and editing state Maya files set on curves: kept, not used */
    {.name = "tweak", .short_name = "tw", .type = SINEW_ATTR_BOOL},
    {.name = "dispCV", .short_name = "dcv", .type = SINEW_ATTR_BOOL},
    {.name = "dispEP", .short_name = "dep", .type = SINEW_ATTR_BOOL},
    {.name = "dispHull", .short_name = "dh", .type = SINEW_ATTR_BOOL},
    {.name = "dispGeometry", .short_name = "dg", .type = SINEW_ATTR_BOOL, .default_value = 1},
    {.name = "lineWidth", .short_name = "ls", .type = SINEW_ATTR_DOUBLE, .default_value = -1},
    {.name = "alwaysDrawOnTop", .short_name = "adot", .type = SINEW_ATTR_BOOL},
};
static const sinew_affects_t curve_affects[] = {
    {"create", "local"},   {"create", "worldSpace"},   {"create", "degree"},   {"create", "spans"},
    {"create", "form"},    {"create", "minValue"},     {"create", "maxValue"}, {"cached", "local"},
    {"cached", "worldSpace"}, {"cached", "degree"},    {"cached", "spans"},    {"cached", "form"},
    {"cached", "minValue"}, {"cached", "maxValue"},    {"sinewParentMatrix", "worldSpace"}};

static const sinew_attr_desc_t circle_attrs[] = {
    VEC3("center", "c", SINEW_ATTR_DISTANCE, SINEW_ATTR_INPUT | SINEW_ATTR_KEYABLE, "centerX", "cx", "centerY", "cy",
         "centerZ", "cz"),
    {.name = "normal", .short_name = "nr", .type = SINEW_ATTR_COMPOUND},
    {.name = "normalX", .short_name = "nrx", .type = SINEW_ATTR_DOUBLE, .parent = "normal"},
    {.name = "normalY", .short_name = "nry", .type = SINEW_ATTR_DOUBLE, .parent = "normal"},
    {.name = "normalZ", .short_name = "nrz", .type = SINEW_ATTR_DOUBLE, .parent = "normal", .default_value = 1},
    {.name = "radius", .short_name = "r", .type = SINEW_ATTR_DISTANCE, .default_value = 1,
     .flags = SINEW_ATTR_INPUT | SINEW_ATTR_KEYABLE},
    {.name = "degree", .short_name = "d", .type = SINEW_ATTR_ENUM, .default_value = 3, .enum_fields = "Linear=1:Cubic=3"},
    {.name = "sections", .short_name = "s", .type = SINEW_ATTR_INT, .default_value = 8},
    {.name = "sweep", .short_name = "sw", .type = SINEW_ATTR_ANGLE, .default_value = 6.2831853071795862},
    {.name = "useTolerance", .short_name = "ut", .type = SINEW_ATTR_BOOL},
    {.name = "tolerance", .short_name = "tol", .type = SINEW_ATTR_DISTANCE, .default_value = 0.01},
    {.name = "fixCenter", .short_name = "fc", .type = SINEW_ATTR_BOOL, .default_value = 1},
    VEC3("first", "fp", SINEW_ATTR_DISTANCE, SINEW_ATTR_INPUT, "firstPointX", "fpx", "firstPointY", "fpy",
         "firstPointZ", "fpz"),
    {.name = "outputCurve", .short_name = "oc", .type = SINEW_ATTR_DATA, .flags = F_OUT, .data_type = CURVE},
};
static const sinew_affects_t circle_affects[] = {{"center", "outputCurve"},   {"normal", "outputCurve"},
                                                 {"radius", "outputCurve"},   {"degree", "outputCurve"},
                                                 {"sections", "outputCurve"}, {"sweep", "outputCurve"}};

static const sinew_attr_desc_t info_attrs[] = {
    {.name = "inputCurve", .short_name = "ic", .type = SINEW_ATTR_DATA, .flags = F_GEOM_IN, .data_type = CURVE},
    {.name = "arcLength", .short_name = "al", .type = SINEW_ATTR_DISTANCE, .flags = F_OUT},
    VEC3("controlPoints", "cp", SINEW_ATTR_DISTANCE, F_OUT_ARRAY, "xValue", "xv", "yValue", "yv", "zValue", "zv"),
    {.name = "weights", .short_name = "wt", .type = SINEW_ATTR_DOUBLE, .flags = F_OUT_ARRAY},
    {.name = "knots", .short_name = "kn", .type = SINEW_ATTR_DOUBLE, .flags = F_OUT_ARRAY},
};
static const sinew_affects_t info_affects[] = {{"inputCurve", "arcLength"},
                                               {"inputCurve", "controlPoints"},
                                               {"inputCurve", "weights"},
                                               {"inputCurve", "knots"}};

static const sinew_attr_desc_t poc_attrs[] = {
    {.name = "inputCurve", .short_name = "ic", .type = SINEW_ATTR_DATA, .flags = F_GEOM_IN, .data_type = CURVE},
    {.name = "parameter", .short_name = "pr", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_KEYABLE},
    {.name = "turnOnPercentage", .short_name = "top", .type = SINEW_ATTR_BOOL},
    VEC3("position", "p", SINEW_ATTR_DISTANCE, F_OUT, "positionX", "px", "positionY", "py", "positionZ", "pz"),
    VEC3("normal", "n", SINEW_ATTR_DOUBLE, F_OUT, "normalX", "nx", "normalY", "ny", "normalZ", "nz"),
    VEC3("normalizedNormal", "nn", SINEW_ATTR_DOUBLE, F_OUT, "normalizedNormalX", "nnx", "normalizedNormalY", "nny",
         "normalizedNormalZ", "nnz"),
    VEC3("tangent", "t", SINEW_ATTR_DOUBLE, F_OUT, "tangentX", "tx", "tangentY", "ty", "tangentZ", "tz"),
    VEC3("normalizedTangent", "nt", SINEW_ATTR_DOUBLE, F_OUT, "normalizedTangentX", "ntx", "normalizedTangentY", "nty",
         "normalizedTangentZ", "ntz"),
    VEC3("curvatureCenter", "cc", SINEW_ATTR_DISTANCE, F_OUT, "curvatureCenterX", "ccx", "curvatureCenterY", "ccy",
         "curvatureCenterZ", "ccz"),
    {.name = "curvatureRadius", .short_name = "cr", .type = SINEW_ATTR_DISTANCE, .flags = F_OUT},
};
#define POC_OUTS(in)                                                                                          \
  {in, "position"}, {in, "normal"}, {in, "normalizedNormal"}, {in, "tangent"}, {in, "normalizedTangent"}, \
      {in, "curvatureCenter"}, {in, "curvatureRadius"}
static const sinew_affects_t poc_affects[] = {POC_OUTS("inputCurve"), POC_OUTS("parameter"),
                                              POC_OUTS("turnOnPercentage")};


static const sinew_attr_desc_t mp_attrs[] = {
    {.name = "geometryPath", .short_name = "gp", .type = SINEW_ATTR_DATA, .flags = F_GEOM_IN, .data_type = CURVE},
    {.name = "uValue", .short_name = "u", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_KEYABLE},
    {.name = "fractionMode", .short_name = "fm", .type = SINEW_ATTR_BOOL},
    {.name = "follow", .short_name = "f", .type = SINEW_ATTR_BOOL},
    {.name = "frontAxis", .short_name = "fa", .type = SINEW_ATTR_ENUM, .enum_fields = "X:Y:Z", .default_value = 1},
    {.name = "upAxis", .short_name = "ua", .type = SINEW_ATTR_ENUM, .enum_fields = "X:Y:Z", .default_value = 2},
    {.name = "worldUpType", .short_name = "wut", .type = SINEW_ATTR_ENUM,
     .enum_fields = "Scene Up:Object Up:Object Rotation Up:Vector:Normal", .default_value = 3},
    {.name = "worldUpVector", .short_name = "wu", .type = SINEW_ATTR_COMPOUND},
    {.name = "worldUpVectorX", .short_name = "wux", .type = SINEW_ATTR_DOUBLE, .parent = "worldUpVector"},
    {.name = "worldUpVectorY", .short_name = "wuy", .type = SINEW_ATTR_DOUBLE, .parent = "worldUpVector", .default_value = 1},
    {.name = "worldUpVectorZ", .short_name = "wuz", .type = SINEW_ATTR_DOUBLE, .parent = "worldUpVector"},
    {.name = "worldUpMatrix", .short_name = "wum", .type = SINEW_ATTR_MATRIX},
    {.name = "inverseFront", .short_name = "if", .type = SINEW_ATTR_BOOL},
    {.name = "inverseUp", .short_name = "iu", .type = SINEW_ATTR_BOOL},
    {.name = "frontTwist", .short_name = "ft", .type = SINEW_ATTR_ANGLE, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_KEYABLE},
    {.name = "upTwist", .short_name = "ut", .type = SINEW_ATTR_ANGLE, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_KEYABLE},
    {.name = "sideTwist", .short_name = "st", .type = SINEW_ATTR_ANGLE, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_KEYABLE},
    {.name = "rotateOrder", .short_name = "ro", .type = SINEW_ATTR_ENUM, .enum_fields = "xyz:yzx:zxy:xzy:yxz:zyx"},
    /* banking is not modelled: kept */
    {.name = "bank", .short_name = "b", .type = SINEW_ATTR_BOOL},
    {.name = "bankScale", .short_name = "bs", .type = SINEW_ATTR_DOUBLE, .default_value = 1},
    {.name = "bankLimit", .short_name = "bl", .type = SINEW_ATTR_ANGLE, .default_value = 1.5707963267948966},
    {.name = "positionMarkerTime", .short_name = "pmt", .type = SINEW_ATTR_TIME, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY},
    {.name = "orientationMarkerTime", .short_name = "omt", .type = SINEW_ATTR_TIME, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY},
    VEC3("allCoordinates", "ac", SINEW_ATTR_DISTANCE, F_OUT, "xCoordinate", "xc", "yCoordinate", "yc", "zCoordinate", "zc"),
    VEC3("rotate", "r", SINEW_ATTR_ANGLE, F_OUT, "rotateX", "rx", "rotateY", "ry", "rotateZ", "rz"),
    {.name = "orientMatrix", .short_name = "om", .type = SINEW_ATTR_MATRIX, .flags = F_OUT},
};
#define MP_OUTS(in) {in, "allCoordinates"}, {in, "rotate"}, {in, "orientMatrix"}
static const sinew_affects_t mp_affects[] = {
    MP_OUTS("geometryPath"), MP_OUTS("uValue"),     MP_OUTS("fractionMode"), MP_OUTS("follow"),
    MP_OUTS("frontAxis"),    MP_OUTS("upAxis"),     MP_OUTS("worldUpType"),  MP_OUTS("worldUpVector"),
    MP_OUTS("worldUpMatrix"), MP_OUTS("inverseFront"), MP_OUTS("inverseUp"), MP_OUTS("frontTwist"),
    MP_OUTS("upTwist"),      MP_OUTS("sideTwist"),  MP_OUTS("rotateOrder")};

/* Attribute ids, the same in every graph (types come from the same descriptors). */
static struct {
  uint32_t create, cached, local, world, degree, spans, form, min, max, parent_in;
  uint32_t c_center, c_normal, c_radius, c_degree, c_sections, c_sweep, c_out;
  uint32_t i_curve, i_length, i_cp, i_wt, i_kn;
  uint32_t p_curve, p_param, p_top, p_pos, p_normal, p_nnormal, p_tangent, p_ntangent, p_ccenter, p_cradius;
  uint32_t m_gp, m_u, m_fm, m_f, m_fa, m_ua, m_wut, m_wu, m_wum, m_if, m_iu, m_ft, m_ut, m_st, m_ro, m_ac, m_r, m_om;
} C;

static double get1(sinew_graph_t *g, sinew_node_t n, uint32_t attr) {
  double v = 0;
  sinew_plug_t p = sinew_plug_make(n, attr, 0, NULL);
  sinew_get_double(g, &p, &v);
  return v;
}

/* An enum input as a field index in 0..max, or dflt when it holds something else (a connected
 * value can be any number: no cast of an out-of-range double). */
static int get_enum(sinew_graph_t *g, sinew_node_t n, uint32_t attr, int max, int dflt) {
  double v = get1(g, n, attr);
  return v >= 0 && v <= max ? (int)v : dflt;
}

static sinew_vec3_t get3(sinew_graph_t *g, sinew_node_t n, uint32_t attr) {
  sinew_plug_t p = sinew_plug_make(n, attr, 0, NULL);
  double v[3] = {0, 0, 0};
  sinew_get_doubles(g, &p, v, 3, NULL);
  return (sinew_vec3_t){v[0], v[1], v[2]};
}

/* The curve an input holds (a new reference), or NULL when it holds none. */
static sinew_data_t *curve_in(sinew_graph_t *g, sinew_node_t n, uint32_t attr) {
  sinew_data_t *d = NULL;
  sinew_plug_t p = sinew_plug_make(n, attr, 0, NULL);
  sinew_get_data(g, &p, &d);
  if (d && sinew_data_type(d) != &sinew_curve_data_type) {
    sinew_data_unref(d);
    d = NULL;
  }
  return d;
}

/* The outer plug of a compound child or array element: cp[3].xv -> cp[3]. */
static sinew_plug_t top_plug(sinew_graph_t *g, const sinew_plug_t *plug, uint32_t attr) {
  sinew_plug_t e = *plug, up;
  while (e.attr != attr && sinew_plug_parent(g, &e, &up)) e = up;
  return e;
}

/* ---- nurbsCurve -------------------------------------------------------------------------------- */

static int curve_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  uint32_t a = plug->attr;
  if (a != C.local && a != C.world && a != C.degree && a != C.spans && a != C.form && a != C.min && a != C.max)
    return SINEW_EUNKNOWN_PLUG;
  if (a == C.world) {
    sinew_data_t *local = NULL;
    sinew_plug_t pl = sinew_plug_make(n, C.local, 0, NULL);
    int rc = sinew_get_data(g, &pl, &local);
    sinew_mat4_t w, id;
    sinew_mat4_identity(&id);
    sinew_plug_t pm = sinew_plug_make(n, C.parent_in, 0, NULL);
    if (!sinew_node_parent(g, n).gen || sinew_get_matrix(g, &pm, &w)) w = id;
    if (rc || !local || sinew_mat4_equal(&w, &id, 0)) {
      if (!rc) rc = sinew_compute_set_data(ctx, plug, local);
      sinew_data_unref(local);
      return rc;
    }
    sinew_data_t *world = NULL;
    rc = sinew_curve_transform(local, &w, &world);
    sinew_data_unref(local);
    if (!rc) rc = sinew_compute_set_data(ctx, plug, world);
    sinew_data_unref(world);
    return rc;
  }
  sinew_data_t *d = curve_in(g, n, C.create);
  if (!d) d = curve_in(g, n, C.cached);
  int rc;
  if (a == C.local) {
    rc = sinew_compute_set_data(ctx, plug, d);
  } else {
    sinew_curve_t c;
    double v = 0;
    if (d && !sinew_curve_get(d, &c)) {
      if (a == C.degree) v = c.degree;
      else if (a == C.spans) v = sinew_curve_spans(&c);
      else if (a == C.form) v = c.form;
      else if (a == C.min) sinew_curve_range(&c, &v, NULL);
      else sinew_curve_range(&c, NULL, &v);
    }
    rc = sinew_compute_set_double(ctx, plug, v);
  }
  sinew_data_unref(d);
  return rc;
}

/* ---- makeNurbCircle ----------------------------------------------------------------------------- */

static int circle_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != C.c_out) return SINEW_EUNKNOWN_PLUG;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  double deg = get1(g, n, C.c_degree), sec = get1(g, n, C.c_sections);
  sinew_data_t *out = NULL;
  int rc = SINEW_EINVAL;
  if (sec >= 1 && sec <= 100000 && (deg == 1 || deg == 3))
    rc = sinew_curve_circle(get3(g, n, C.c_normal), get3(g, n, C.c_center), get1(g, n, C.c_radius), (uint32_t)deg,
                            (uint32_t)sec, get1(g, n, C.c_sweep), &out);
  if (rc) {
    char buf[256];
    sinew_plug_format(g, plug, false, buf, sizeof buf);
    return sinew_graph_set_error(g, rc,
                                 "%s: cannot build the circle (degree %g, %g sections, sweep %g: degree 1 or 3, "
                                 "3 sections or more, a full turn, a non-zero normal)",
                                 buf, deg, sec, get1(g, n, C.c_sweep) * 180 / 3.14159265358979323846);
  }
  rc = sinew_compute_set_data(ctx, plug, out);
  sinew_data_unref(out);
  return rc;
}

/* ---- curveInfo ------------------------------------------------------------------------------------ */

static int info_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  sinew_plug_t e = top_plug(g, plug, C.i_cp);
  if (plug->attr != C.i_length && plug->attr != C.i_wt && plug->attr != C.i_kn && e.attr != C.i_cp)
    return SINEW_EUNKNOWN_PLUG;
  sinew_data_t *d = curve_in(g, n, C.i_curve);
  sinew_curve_t c;
  bool ok = d && !sinew_curve_get(d, &c);
  int rc;
  if (plug->attr == C.i_length) {
    double lo = 0, hi = 0;
    if (ok) sinew_curve_range(&c, &lo, &hi);
    rc = sinew_compute_set_double(ctx, plug, ok ? sinew_curve_length(&c, lo, hi) : 0);
  } else {
    int32_t i = plug->attr == C.i_cp ? e.idx[e.nidx - 1] : plug->idx[plug->nidx - 1];
    double v[3] = {0, 0, 0};
    if (ok && plug->attr == C.i_kn) {
      if (i >= 0 && (uint32_t)i < c.nknots) v[0] = c.knots[i];
    } else if (ok && i >= 0 && (uint32_t)i < c.ncvs) {
      const double *p = &c.cvs[4 * (size_t)i];
      if (e.attr == C.i_cp) memcpy(v, p, sizeof v);
      else v[0] = p[3];
    }
    rc = e.attr == C.i_cp ? sinew_compute_set_doubles(ctx, &e, v, 3) : sinew_compute_set_double(ctx, plug, v[0]);
  }
  sinew_data_unref(d);
  return rc;
}

/* ---- pointOnCurveInfo ------------------------------------------------------------------------------ */

static bool poc_output(uint32_t a) {
  return a == C.p_pos || a == C.p_normal || a == C.p_nnormal || a == C.p_tangent || a == C.p_ntangent ||
         a == C.p_ccenter || a == C.p_cradius;
}

static int poc_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  sinew_plug_t e = *plug, up;
  while (!poc_output(e.attr) && sinew_plug_parent(g, &e, &up)) e = up;
  if (!poc_output(e.attr)) return SINEW_EUNKNOWN_PLUG;
  sinew_data_t *d = curve_in(g, n, C.p_curve);
  sinew_curve_t c;
  sinew_vec3_t p = {0, 0, 0}, d1 = {0, 0, 0}, d2 = {0, 0, 0}, normal = {0, 0, 0}, nn = {0, 0, 0}, nt = {0, 0, 0},
               cc = {0, 0, 0};
  double radius = 0;
  if (d && !sinew_curve_get(d, &c)) {
    double u = get1(g, n, C.p_param), lo, hi;
    sinew_curve_range(&c, &lo, &hi);
    if (get1(g, n, C.p_top) != 0) u = lo + u * (hi - lo);
    sinew_curve_eval(&c, u, &p, &d1, &d2);
    double s2 = sinew_vec3_dot(d1, d1), s = sqrt(s2);
    if (s > 0) {
      nt = (sinew_vec3_t){d1.x / s, d1.y / s, d1.z / s};
      /* the part of the second derivative across the tangent: |C'|^2 times the curvature vector */
      double k = sinew_vec3_dot(d2, nt);
      normal = (sinew_vec3_t){d2.x - k * nt.x, d2.y - k * nt.y, d2.z - k * nt.z};
      double nl = sinew_vec3_length(normal);
      if (nl > 1e-12 * (s2 + 1)) {
        nn = (sinew_vec3_t){normal.x / nl, normal.y / nl, normal.z / nl};
        radius = s2 / nl;
        cc = (sinew_vec3_t){p.x + radius * nn.x, p.y + radius * nn.y, p.z + radius * nn.z};
      } else {
        normal = (sinew_vec3_t){0, 0, 0};
        cc = p;
      }
    }
  }
  sinew_data_unref(d);
  if (e.attr == C.p_cradius) return sinew_compute_set_double(ctx, &e, radius);
  sinew_vec3_t v = e.attr == C.p_pos        ? p
                   : e.attr == C.p_normal   ? normal
                   : e.attr == C.p_nnormal  ? nn
                   : e.attr == C.p_tangent  ? d1
                   : e.attr == C.p_ntangent ? nt
                                            : cc;
  return sinew_compute_set_doubles(ctx, &e, (double[]){v.x, v.y, v.z}, 3);
}


/* ---- motionPath ------------------------------------------------------------------------------------ */

static sinew_vec3_t unit(sinew_vec3_t v) {
  double l = sinew_vec3_length(v);
  return l > 0 ? (sinew_vec3_t){v.x / l, v.y / l, v.z / l} : v;
}

static sinew_vec3_t cross(sinew_vec3_t a, sinew_vec3_t b) {
  sinew_vec3_t c;
  sinew_vec3_cross(a, b, &c);
  return c;
}

/* The point at uValue (a parameter, or with fractionMode a fraction of the arc length), and
 * with follow the frame whose frontAxis row is the tangent and whose upAxis row faces the up
 * vector (worldUpType), turned by frontTwist, upTwist and sideTwist about its own axes. */
static int mp_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  sinew_plug_t e = *plug, up_plug;
  while (e.attr != C.m_ac && e.attr != C.m_r && e.attr != C.m_om && sinew_plug_parent(g, &e, &up_plug)) e = up_plug;
  if (e.attr != C.m_ac && e.attr != C.m_r && e.attr != C.m_om) return SINEW_EUNKNOWN_PLUG;
  sinew_data_t *d = curve_in(g, n, C.m_gp);
  sinew_curve_t c;
  sinew_vec3_t pos = {0, 0, 0}, tan = {0, 0, 0}, d2 = {0, 0, 0};
  bool have = d && !sinew_curve_get(d, &c);
  if (have) {
    double u = get1(g, n, C.m_u), lo, hi;
    sinew_curve_range(&c, &lo, &hi);
    if (get1(g, n, C.m_fm) != 0) {
      double f = u < 0 ? 0 : u > 1 ? 1 : u;
      u = sinew_curve_param_at_length(&c, f * sinew_curve_length(&c, lo, hi));
    }
    sinew_curve_eval(&c, u, &pos, &tan, &d2);
  }
  sinew_data_unref(d);
  if (e.attr == C.m_ac) return sinew_compute_set_doubles(ctx, &e, (double[]){pos.x, pos.y, pos.z}, 3);
  sinew_mat4_t m;
  sinew_mat4_identity(&m);
  if (have && get1(g, n, C.m_f) != 0 && sinew_vec3_length(tan) > 0) {
    int fa = get_enum(g, n, C.m_fa, 2, 1), ua = get_enum(g, n, C.m_ua, 2, 2);
    sinew_vec3_t front = unit(tan), up;
    if (get1(g, n, C.m_if) != 0) front = (sinew_vec3_t){-front.x, -front.y, -front.z};
    sinew_mat4_t wum;
    sinew_plug_t pw = sinew_plug_make(n, C.m_wum, 0, NULL);
    if (sinew_get_matrix(g, &pw, &wum)) sinew_mat4_identity(&wum);
    switch (get_enum(g, n, C.m_wut, 4, 3)) {
    case 0: up = (sinew_vec3_t){0, 1, 0}; break;
    case 1: up = (sinew_vec3_t){wum.m[3][0] - pos.x, wum.m[3][1] - pos.y, wum.m[3][2] - pos.z}; break;
    case 2: sinew_mat4_transform_vector(get3(g, n, C.m_wu), &wum, &up); break;
    case 4: { /* the curve's normal: the second derivative across the tangent */
      double k = sinew_vec3_dot(d2, unit(tan));
      up = (sinew_vec3_t){d2.x - k * unit(tan).x, d2.y - k * unit(tan).y, d2.z - k * unit(tan).z};
      break;
    }
    default: up = get3(g, n, C.m_wu); break;
    }
    if (get1(g, n, C.m_iu) != 0) up = (sinew_vec3_t){-up.x, -up.y, -up.z};
    double k = sinew_vec3_dot(up, front);
    up = unit((sinew_vec3_t){up.x - k * front.x, up.y - k * front.y, up.z - k * front.z});
    if (fa != ua && sinew_vec3_length(up) > 0) {
      int sa = 3 - fa - ua;
      sinew_vec3_t side = (fa + 1) % 3 == ua ? cross(front, up) : cross(up, front);
      sinew_vec3_t rows[3];
      rows[fa] = front, rows[ua] = up, rows[sa] = side;
      for (int r = 0; r < 3; r++) {
        m.m[r][0] = rows[r].x, m.m[r][1] = rows[r].y, m.m[r][2] = rows[r].z;
      }
      /* the twists, about the frame's own front, up and side axes */
      double tw[3] = {get1(g, n, C.m_ft), get1(g, n, C.m_ut), get1(g, n, C.m_st)};
      int ax[3] = {fa, ua, sa};
      for (int i = 0; i < 3; i++) {
        if (tw[i] == 0) continue;
        sinew_vec3_t a = {0, 0, 0};
        if (ax[i] == 0) a.x = 1;
        else if (ax[i] == 1) a.y = 1;
        else a.z = 1;
        sinew_quat_t q;
        sinew_mat4_t r, t;
        sinew_quat_from_axis_angle(a, tw[i], &q);
        sinew_quat_to_mat4(q, &r);
        sinew_mat4_mul(&r, &m, &t);
        m = t;
      }
    }
  }
  if (e.attr == C.m_om) return sinew_compute_set_matrix(ctx, &e, &m);
  double ro = get1(g, n, C.m_ro);
  sinew_vec3_t rot;
  sinew_euler_from_mat4(&m, ro >= 0 && ro < SINEW_ROTATE_ORDER_MAX ? (sinew_rotate_order_t)ro : SINEW_ROTATE_XYZ, &rot);
  return sinew_compute_set_doubles(ctx, &e, (double[]){rot.x, rot.y, rot.z}, 3);
}

/* ---- registration ------------------------------------------------------------------------------------ */

int sinew__register_curve_types(sinew_graph_t *g) {
  if (!g) return SINEW_EINVAL;
  if (sinew_find_node_type(g, "nurbsCurve")) return SINEW_OK;
  const sinew_node_type_desc_t types[] = {
      {.name = "nurbsCurve", .parent_type = "dagNode", .attrs = curve_attrs, .attr_count = COUNT(curve_attrs),
       .affects = curve_affects, .affects_count = COUNT(curve_affects), .compute = curve_compute},
      {.name = "makeNurbCircle", .attrs = circle_attrs, .attr_count = COUNT(circle_attrs), .affects = circle_affects,
       .affects_count = COUNT(circle_affects), .compute = circle_compute},
      {.name = "curveInfo", .attrs = info_attrs, .attr_count = COUNT(info_attrs), .affects = info_affects,
       .affects_count = COUNT(info_affects), .compute = info_compute},
      {.name = "pointOnCurveInfo", .attrs = poc_attrs, .attr_count = COUNT(poc_attrs), .affects = poc_affects,
       .affects_count = COUNT(poc_affects), .compute = poc_compute},
      {.name = "motionPath", .attrs = mp_attrs, .attr_count = COUNT(mp_attrs), .affects = mp_affects,
       .affects_count = COUNT(mp_affects), .compute = mp_compute},
  };
  const sinew_node_type_t *t[COUNT(types)];
  for (size_t i = 0; i < COUNT(types); i++) {
    int rc = sinew_register_node_type(g, &types[i], &t[i]);
    if (rc) return rc;
  }
  C.create = sinew_node_type_attr(t[0], "cr");
  C.cached = sinew_node_type_attr(t[0], "cc");
  C.local = sinew_node_type_attr(t[0], "l");
  C.world = sinew_node_type_attr(t[0], "ws");
  C.degree = sinew_node_type_attr(t[0], "degree");
  C.spans = sinew_node_type_attr(t[0], "spans");
  C.form = sinew_node_type_attr(t[0], "form");
  C.min = sinew_node_type_attr(t[0], "minValue");
  C.max = sinew_node_type_attr(t[0], "maxValue");
  C.parent_in = sinew_node_type_attr(t[0], "sinewParentMatrix");
  C.c_center = sinew_node_type_attr(t[1], "c");
  C.c_normal = sinew_node_type_attr(t[1], "nr");
  C.c_radius = sinew_node_type_attr(t[1], "r");
  C.c_degree = sinew_node_type_attr(t[1], "d");
  C.c_sections = sinew_node_type_attr(t[1], "s");
  C.c_sweep = sinew_node_type_attr(t[1], "sw");
  C.c_out = sinew_node_type_attr(t[1], "oc");
  C.i_curve = sinew_node_type_attr(t[2], "ic");
  C.i_length = sinew_node_type_attr(t[2], "al");
  C.i_cp = sinew_node_type_attr(t[2], "cp");
  C.i_wt = sinew_node_type_attr(t[2], "wt");
  C.i_kn = sinew_node_type_attr(t[2], "kn");
  C.p_curve = sinew_node_type_attr(t[3], "ic");
  C.p_param = sinew_node_type_attr(t[3], "pr");
  C.p_top = sinew_node_type_attr(t[3], "top");
  C.p_pos = sinew_node_type_attr(t[3], "p");
  C.p_normal = sinew_node_type_attr(t[3], "n");
  C.p_nnormal = sinew_node_type_attr(t[3], "nn");
  C.p_tangent = sinew_node_type_attr(t[3], "t");
  C.p_ntangent = sinew_node_type_attr(t[3], "nt");
  C.p_ccenter = sinew_node_type_attr(t[3], "cc");
  C.p_cradius = sinew_node_type_attr(t[3], "cr");
  const char *mn[] = {"gp", "u", "fm", "f", "fa", "ua", "wut", "wu", "wum", "if", "iu", "ft", "ut", "st", "ro", "ac", "r", "om"};
  uint32_t *mi[] = {&C.m_gp, &C.m_u, &C.m_fm, &C.m_f, &C.m_fa, &C.m_ua, &C.m_wut, &C.m_wu, &C.m_wum,
                    &C.m_if, &C.m_iu, &C.m_ft, &C.m_ut, &C.m_st, &C.m_ro, &C.m_ac, &C.m_r, &C.m_om};
  for (size_t i = 0; i < COUNT(mn); i++) *mi[i] = sinew_node_type_attr(t[4], mn[i]);
  return SINEW_OK;
}
