/* nodes/transform.c: the DAG node types: dagNode (the abstract base of transforms and shapes),
 * transform and joint, with Maya's matrix compositions (spec sections 2 and 3).
 *
 *   transform: m = SPinv * S * SH * SP * ST * RPinv * RA * R * RP * RT * T
 *   joint:     m = S * RA * R * JO * IS * T       (IS = inverse of inverseScale when ssc is on)
 *   all:       wm[0] = m * offsetParentMatrix * pm[0],  pm[0] = parent's wm[0] (identity when
 *              inheritsTransform is off or under the world)
 *
 * The parent's world matrix reaches the child through an implicit connection made by the graph
 * while the node has a DAG parent: parent.worldMatrix[0] -> child.sinewParentMatrix (hidden, not
 * stored in files), so moving a parent dirties exactly its descendants' world matrices. */
#include <math.h>
#include <string.h>

#include "nodes/nodes_internal.h"

sinew__dag_ids sinew__dag;

#define F_IN SINEW_ATTR_INPUT
#define F_KEY (SINEW_ATTR_INPUT | SINEW_ATTR_KEYABLE)
#define F_HIDDEN_IN (SINEW_ATTR_READABLE | SINEW_ATTR_WRITABLE | SINEW_ATTR_CONNECTABLE | SINEW_ATTR_HIDDEN)
#define F_OUT SINEW_ATTR_OUTPUT
#define F_OUT_ARRAY (SINEW_ATTR_OUTPUT | SINEW_ATTR_ARRAY)

/* A numeric compound of three children: parent, then x/y/z. */
#define VEC3(lname, sname, ctype, dflt, fl, lx, sx, ly, sy, lz, sz)                         \
  {.name = lname, .short_name = sname, .type = SINEW_ATTR_COMPOUND, .flags = fl},          \
      {.name = lx, .short_name = sx, .type = ctype, .parent = lname, .default_value = dflt,   \
       .flags = fl},                                                                       \
      {.name = ly, .short_name = sy, .type = ctype, .parent = lname, .default_value = dflt,   \
       .flags = fl},                                                                       \
      {.name = lz, .short_name = sz, .type = ctype, .parent = lname, .default_value = dflt,   \
       .flags = fl}

static const sinew_attr_desc_t dag_attrs[] = {
    {.name = "visibility", .short_name = "v", .type = SINEW_ATTR_BOOL, .default_value = 1, .flags = F_KEY},
    {.name = "intermediateObject", .short_name = "io", .type = SINEW_ATTR_BOOL},
    {.name = "template", .short_name = "tmp", .type = SINEW_ATTR_BOOL},
    {.name = "lodVisibility", .short_name = "lodv", .type = SINEW_ATTR_BOOL, .default_value = 1},
    {.name = "hiddenInOutliner", .short_name = "hio", .type = SINEW_ATTR_BOOL},
    {.name = "objectColor", .short_name = "oc", .type = SINEW_ATTR_INT},
    {.name = "useObjectColor", .short_name = "uoc", .type = SINEW_ATTR_INT},
    VEC3("objectColorRGB", "obcc", SINEW_ATTR_FLOAT, 0, F_IN, "objectColorR", "obcr", "objectColorG",
         "obcg", "objectColorB", "obcb"),
    {.name = "overrideEnabled", .short_name = "ove", .type = SINEW_ATTR_BOOL},
    {.name = "overrideDisplayType", .short_name = "ovdt", .type = SINEW_ATTR_ENUM, .enum_fields = "Normal:Template:Reference"},
    {.name = "overrideVisibility", .short_name = "ovv", .type = SINEW_ATTR_BOOL, .default_value = 1},
    {.name = "overrideColor", .short_name = "ovc", .type = SINEW_ATTR_INT},
    {.name = "instObjGroups", .short_name = "iog", .type = SINEW_ATTR_COMPOUND,
     .flags = SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY},
    {.name = "objectGroups", .short_name = "og", .type = SINEW_ATTR_COMPOUND, .parent = "instObjGroups",
     .flags = SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY},
    {.name = "objectGrpCompList", .short_name = "gcl", .type = SINEW_ATTR_DATA, .parent = "objectGroups"},
    {.name = "objectGroupId", .short_name = "gid", .type = SINEW_ATTR_INT, .parent = "objectGroups"},
    {.name = "objectGrpColor", .short_name = "gco", .type = SINEW_ATTR_INT, .parent = "objectGroups"},
    {.name = "sinewParentMatrix", .short_name = "snpm", .type = SINEW_ATTR_MATRIX, .flags = F_HIDDEN_IN},
    {.name = "worldMatrix", .short_name = "wm", .type = SINEW_ATTR_MATRIX, .flags = F_OUT_ARRAY},
    {.name = "worldInverseMatrix", .short_name = "wim", .type = SINEW_ATTR_MATRIX, .flags = F_OUT_ARRAY},
    {.name = "parentMatrix", .short_name = "pm", .type = SINEW_ATTR_MATRIX, .flags = F_OUT_ARRAY},
    {.name = "parentInverseMatrix", .short_name = "pim", .type = SINEW_ATTR_MATRIX, .flags = F_OUT_ARRAY},
};

static const sinew_affects_t dag_affects[] = {
    {"sinewParentMatrix", "parentMatrix"}, {"sinewParentMatrix", "parentInverseMatrix"},
    {"sinewParentMatrix", "worldMatrix"}, {"sinewParentMatrix", "worldInverseMatrix"}};

static const sinew_attr_desc_t transform_attrs[] = {
    VEC3("translate", "t", SINEW_ATTR_DISTANCE, 0, F_KEY, "translateX", "tx", "translateY", "ty",
         "translateZ", "tz"),
    VEC3("rotate", "r", SINEW_ATTR_ANGLE, 0, F_KEY, "rotateX", "rx", "rotateY", "ry", "rotateZ", "rz"),
    VEC3("scale", "s", SINEW_ATTR_DOUBLE, 1, F_KEY, "scaleX", "sx", "scaleY", "sy", "scaleZ", "sz"),
    VEC3("shear", "sh", SINEW_ATTR_DOUBLE, 0, F_IN, "shearXY", "shxy", "shearXZ", "shxz", "shearYZ", "shyz"),
    VEC3("rotatePivot", "rp", SINEW_ATTR_DISTANCE, 0, F_IN, "rotatePivotX", "rpx", "rotatePivotY", "rpy",
         "rotatePivotZ", "rpz"),
    VEC3("scalePivot", "sp", SINEW_ATTR_DISTANCE, 0, F_IN, "scalePivotX", "spx", "scalePivotY", "spy",
         "scalePivotZ", "spz"),
    VEC3("rotatePivotTranslate", "rpt", SINEW_ATTR_DISTANCE, 0, F_IN, "rotatePivotTranslateX", "rptx",
         "rotatePivotTranslateY", "rpty", "rotatePivotTranslateZ", "rptz"),
    VEC3("scalePivotTranslate", "spt", SINEW_ATTR_DISTANCE, 0, F_IN, "scalePivotTranslateX", "sptx",
         "scalePivotTranslateY", "spty", "scalePivotTranslateZ", "sptz"),
    VEC3("rotateAxis", "ra", SINEW_ATTR_ANGLE, 0, F_IN, "rotateAxisX", "rax", "rotateAxisY", "ray",
         "rotateAxisZ", "raz"),
    {.name = "rotateOrder", .short_name = "ro", .type = SINEW_ATTR_ENUM, .enum_fields = "xyz:yzx:zxy:xzy:yxz:zyx"},
    {.name = "inheritsTransform", .short_name = "it", .type = SINEW_ATTR_BOOL, .default_value = 1},
    {.name = "offsetParentMatrix", .short_name = "opm", .type = SINEW_ATTR_MATRIX},
    {.name = "displayHandle", .short_name = "dh", .type = SINEW_ATTR_BOOL},
    {.name = "displayRotatePivot", .short_name = "drp", .type = SINEW_ATTR_BOOL},
    {.name = "displayScalePivot", .short_name = "dsp", .type = SINEW_ATTR_BOOL},
    {.name = "displayLocalAxis", .short_name = "dla", .type = SINEW_ATTR_BOOL},
    {.name = "showManipDefault", .short_name = "smd", .type = SINEW_ATTR_ENUM,
     .enum_fields = "None:Translate:Rotate:Scale:Transform:Center:Default"},
    {.name = "rotationInterpolation", .short_name = "roi", .type = SINEW_ATTR_ENUM,
     .enum_fields = "No Independent:Independent Euler-Angle Curves:Synchronized Euler-Angle Curves:Quaternion Slerp:Quaternion Cubic:Quaternion Tangent Dependent"},
    {.name = "matrix", .short_name = "m", .type = SINEW_ATTR_MATRIX, .flags = F_OUT},
    {.name = "inverseMatrix", .short_name = "im", .type = SINEW_ATTR_MATRIX, .flags = F_OUT},
    {.name = "xformMatrix", .short_name = "xm", .type = SINEW_ATTR_MATRIX, .flags = F_OUT},
};

#define LOCAL_INPUTS "translate", "rotate", "scale", "shear", "rotatePivot", "scalePivot", \
                     "rotatePivotTranslate", "scalePivotTranslate", "rotateAxis", "rotateOrder"
#define LOCAL_OUTPUTS "matrix", "inverseMatrix", "xformMatrix", "worldMatrix", "worldInverseMatrix"

static const char *const local_inputs[] = {LOCAL_INPUTS};
static const char *const local_outputs[] = {LOCAL_OUTPUTS};

static const sinew_attr_desc_t joint_attrs[] = {
    VEC3("jointOrient", "jo", SINEW_ATTR_ANGLE, 0, F_IN, "jointOrientX", "jox", "jointOrientY", "joy",
         "jointOrientZ", "joz"),
    {.name = "segmentScaleCompensate", .short_name = "ssc", .type = SINEW_ATTR_BOOL, .default_value = 1},
    VEC3("inverseScale", "is", SINEW_ATTR_DOUBLE, 1, F_IN, "inverseScaleX", "isx", "inverseScaleY", "isy",
         "inverseScaleZ", "isz"),
    VEC3("preferredAngle", "pa", SINEW_ATTR_ANGLE, 0, F_IN, "preferredAngleX", "pax", "preferredAngleY",
         "pay", "preferredAngleZ", "paz"),
    {.name = "bindPose", .short_name = "bps", .type = SINEW_ATTR_MATRIX},
    /* IK (nodes/ik.c): while an ikHandle drives the joint, its rotate is fed by the handle and
     * the FK rotation the handle blends with lives here (hidden, not written to files) */
    VEC3("sinewFkRotate", "sfkr", SINEW_ATTR_ANGLE, 0, F_HIDDEN_IN, "sinewFkRotateX", "sfkx",
         "sinewFkRotateY", "sfky", "sinewFkRotateZ", "sfkz"),
    /* and a spline IK handle's start joint, whose translate the handle places on the curve
     * (rootOnCurve), keeps its FK translate here */
    VEC3("sinewFkTranslate", "sfkt", SINEW_ATTR_DISTANCE, 0, F_HIDDEN_IN, "sinewFkTranslateX", "sftx",
         "sinewFkTranslateY", "sfty", "sinewFkTranslateZ", "sftz"),
    {.name = "radius", .short_name = "radi", .type = SINEW_ATTR_DOUBLE, .default_value = 1},
    {.name = "drawStyle", .short_name = "ds", .type = SINEW_ATTR_ENUM,
     .enum_fields = "Bone:Multi-child as Box:None:Joint"},
    VEC3("minRotLimit", "mnrl", SINEW_ATTR_ANGLE, -6.283185307179586, F_IN, "minRotXLimit", "mnrx",
         "minRotYLimit", "mnry", "minRotZLimit", "mnrz"),
    VEC3("maxRotLimit", "mxrl", SINEW_ATTR_ANGLE, 6.283185307179586, F_IN, "maxRotXLimit", "mxrx",
         "maxRotYLimit", "mxry", "maxRotZLimit", "mxrz"),
    VEC3("minRotLimitEnable", "mrle", SINEW_ATTR_BOOL, 0, F_IN, "minRotXLimitEnable", "mrxe",
         "minRotYLimitEnable", "mrye", "minRotZLimitEnable", "mrze"),
    VEC3("maxRotLimitEnable", "xrle", SINEW_ATTR_BOOL, 0, F_IN, "maxRotXLimitEnable", "xrxe",
         "maxRotYLimitEnable", "xrye", "maxRotZLimitEnable", "xrze"),
    VEC3("stiffness", "st", SINEW_ATTR_DOUBLE, 0, F_IN, "stiffnessX", "stx", "stiffnessY", "sty",
         "stiffnessZ", "stz"),
    {.name = "jointTypeX", .short_name = "jtx", .type = SINEW_ATTR_BOOL, .default_value = 1},
    {.name = "jointTypeY", .short_name = "jty", .type = SINEW_ATTR_BOOL, .default_value = 1},
    {.name = "jointTypeZ", .short_name = "jtz", .type = SINEW_ATTR_BOOL, .default_value = 1},
    {.name = "jointType", .short_name = "jot", .type = SINEW_ATTR_STRING},
    {.name = "side", .short_name = "sd", .type = SINEW_ATTR_ENUM, .enum_fields = "Center:Left:Right:None"},
    {.name = "type", .short_name = "typ", .type = SINEW_ATTR_ENUM,
     .enum_fields = "None:Root:Hip:Knee:Foot:Toe:Spine:Neck:Head:Collar:Shoulder:Elbow:Hand:Finger:Thumb:PropA:PropB:PropC:Other:Index Finger:Middle Finger:Ring Finger:Pinky Finger:Extra Finger:Big Toe:Index Toe:Middle Toe:Ring Toe:Pinky Toe:Foot Thumb"},
    {.name = "otherType", .short_name = "otp", .type = SINEW_ATTR_STRING},
    {.name = "drawLabel", .short_name = "dl", .type = SINEW_ATTR_BOOL},
};

/* ---- reading inputs --------------------------------------------------------------------------- */

/* Readers that note the first failure in *rc (NULL: ignore it). Inside compute the inputs were
 * pulled beforehand and cannot fail; outside it (parenting) a pull may run out of memory. */
static sinew_vec3_t get3_rc(sinew_graph_t *g, sinew_node_t n, uint32_t attr, int *rc) {
  double v[3] = {0, 0, 0};
  sinew_plug_t p = sinew_plug_make(n, attr, 0, NULL);
  int r = sinew_get_doubles(g, &p, v, 3, NULL);
  if (r && rc && !*rc) *rc = r;
  return (sinew_vec3_t){v[0], v[1], v[2]};
}

static double get1_rc(sinew_graph_t *g, sinew_node_t n, uint32_t attr, int *rc) {
  double v = 0;
  sinew_plug_t p = sinew_plug_make(n, attr, 0, NULL);
  int r = sinew_get_double(g, &p, &v);
  if (r && rc && !*rc) *rc = r;
  return v;
}

/* rotateOrder's value as an order (xyz for anything out of range). */
static sinew_rotate_order_t order_of(double ro) {
  if (!(ro >= 0 && ro < SINEW_ROTATE_ORDER_MAX)) return SINEW_ROTATE_XYZ;
  return (sinew_rotate_order_t)ro;
}

/* a = a * b */
static void post(sinew_mat4_t *a, const sinew_mat4_t *b) { sinew_mat4_mul(a, b, a); }

static void post_translate(sinew_mat4_t *a, sinew_vec3_t t) {
  a->m[3][0] += t.x;
  a->m[3][1] += t.y;
  a->m[3][2] += t.z;
}

static sinew_vec3_t neg(sinew_vec3_t v) { return (sinew_vec3_t){-v.x, -v.y, -v.z}; }

/* rotateAxis is always applied in xyz order (spec 2.2). */
static void rotate_axis_matrix(sinew_vec3_t ra, sinew_mat4_t *out) {
  sinew_mat4_euler(ra, SINEW_ROTATE_XYZ, out);
}

void sinew__transform_local(const sinew__local_inputs *in, sinew_mat4_t *out) {
  sinew_mat4_t m, tmp;
  sinew_mat4_translate(neg(in->sp), &m);                       /* SPinv */
  sinew_mat4_scale(in->s, &tmp);
  post(&m, &tmp);                                               /* S */
  sinew_mat4_shear(in->sh.x, in->sh.y, in->sh.z, &tmp);
  post(&m, &tmp);                                               /* SH */
  post_translate(&m, in->sp);                                   /* SP */
  post_translate(&m, in->spt);                                  /* ST */
  post_translate(&m, neg(in->rp));                              /* RPinv */
  rotate_axis_matrix(in->ra, &tmp);
  post(&m, &tmp);                                               /* RA */
  sinew_mat4_euler(in->r, in->order, &tmp);
  post(&m, &tmp);                                               /* R */
  post_translate(&m, in->rp);                                   /* RP */
  post_translate(&m, in->rpt);                                  /* RT */
  post_translate(&m, in->t);                                    /* T */
  *out = m;
}

/* IS: the inverse of the parent's scale; a zero component is ignored (Maya would divide by 0). */
static sinew_vec3_t inverse_scale(sinew_vec3_t is) {
  return (sinew_vec3_t){is.x != 0 ? 1 / is.x : 1, is.y != 0 ? 1 / is.y : 1, is.z != 0 ? 1 / is.z : 1};
}

void sinew__joint_local(const sinew__local_inputs *in, sinew_mat4_t *out) {
  sinew_mat4_t m, tmp;
  sinew_mat4_scale(in->s, &m);                                  /* S */
  rotate_axis_matrix(in->ra, &tmp);
  post(&m, &tmp);                                               /* RA (the joint's rotate orient) */
  sinew_mat4_euler(in->r, in->order, &tmp);
  post(&m, &tmp);                                               /* R */
  sinew_mat4_euler(in->jo, SINEW_ROTATE_XYZ, &tmp);
  post(&m, &tmp);                                               /* JO */
  if (in->ssc) {
    sinew_mat4_scale(inverse_scale(in->is), &tmp);
    post(&m, &tmp);                                             /* IS */
  }
  post_translate(&m, in->t);                                    /* T */
  *out = m;
}

int sinew__read_local_inputs(sinew_graph_t *g, sinew_node_t n, bool joint, sinew__local_inputs *in) {
  int rc = SINEW_OK;
  memset(in, 0, sizeof *in);
  in->t = get3_rc(g, n, sinew__dag.translate, &rc);
  in->r = get3_rc(g, n, sinew__dag.rotate, &rc);
  in->s = get3_rc(g, n, sinew__dag.scale, &rc);
  in->ra = get3_rc(g, n, sinew__dag.rotate_axis, &rc);
  in->order = order_of(get1_rc(g, n, sinew__dag.rotate_order, &rc));
  if (joint) {
    in->jo = get3_rc(g, n, sinew__dag.joint_orient, &rc);
    in->is = get3_rc(g, n, sinew__dag.inverse_scale, &rc);
    in->ssc = get1_rc(g, n, sinew__dag.ssc, &rc) != 0;
    return rc;
  }
  in->sh = get3_rc(g, n, sinew__dag.shear, &rc);
  in->rp = get3_rc(g, n, sinew__dag.rotate_pivot, &rc);
  in->sp = get3_rc(g, n, sinew__dag.scale_pivot, &rc);
  in->rpt = get3_rc(g, n, sinew__dag.rotate_pivot_translate, &rc);
  in->spt = get3_rc(g, n, sinew__dag.scale_pivot_translate, &rc);
  return rc;
}

/* ---- compute ------------------------------------------------------------------------------- */

typedef enum local_kind { LOCAL_IDENTITY, LOCAL_TRANSFORM, LOCAL_JOINT } local_kind;

/* Inside compute the inputs are read by id (the fast path): they were pulled before compute
 * was called, so a read cannot fail but through a bug, which leaves the default. */
static sinew_vec3_t cget3(sinew_compute_t *ctx, uint32_t attr) {
  double v[3] = {0, 0, 0};
  sinew_compute_get_doubles(ctx, attr, v, 3);
  return (sinew_vec3_t){v[0], v[1], v[2]};
}

static double cget1(sinew_compute_t *ctx, uint32_t attr) {
  double v = 0;
  sinew_compute_get_double(ctx, attr, &v);
  return v;
}

static void cget_matrix(sinew_compute_t *ctx, uint32_t attr, sinew_mat4_t *out) {
  if (sinew_compute_get_matrix(ctx, attr, out)) sinew_mat4_identity(out);
}

static void read_local_ctx(sinew_compute_t *ctx, bool joint, sinew__local_inputs *in) {
  memset(in, 0, sizeof *in);
  in->t = cget3(ctx, sinew__dag.translate);
  in->r = cget3(ctx, sinew__dag.rotate);
  in->s = cget3(ctx, sinew__dag.scale);
  in->ra = cget3(ctx, sinew__dag.rotate_axis);
  in->order = order_of(cget1(ctx, sinew__dag.rotate_order));
  if (joint) {
    in->jo = cget3(ctx, sinew__dag.joint_orient);
    in->is = cget3(ctx, sinew__dag.inverse_scale);
    in->ssc = cget1(ctx, sinew__dag.ssc) != 0;
    return;
  }
  in->sh = cget3(ctx, sinew__dag.shear);
  in->rp = cget3(ctx, sinew__dag.rotate_pivot);
  in->sp = cget3(ctx, sinew__dag.scale_pivot);
  in->rpt = cget3(ctx, sinew__dag.rotate_pivot_translate);
  in->spt = cget3(ctx, sinew__dag.scale_pivot_translate);
}

/* The local matrix. The `matrix` output holds it: while no local input changed that output is
 * clean and is taken as it is; otherwise it is made from the inputs and stored there, so the
 * world matrices of a moving parent's descendants reuse their local matrices. */
static void local_matrix(sinew_compute_t *ctx, local_kind kind, sinew_mat4_t *out) {
  if (kind == LOCAL_IDENTITY) {
    sinew_mat4_identity(out);
    return;
  }
  if (sinew_compute_peek_matrix(ctx, sinew__dag.matrix, out)) return;
  sinew__local_inputs in;
  read_local_ctx(ctx, kind == LOCAL_JOINT, &in);
  if (kind == LOCAL_JOINT) sinew__joint_local(&in, out);
  else sinew__transform_local(&in, out);
  /* keeping it is a saving only: if that runs out of memory, matrix stays dirty */
  sinew_plug_t m = sinew_plug_make(sinew_compute_node(ctx), sinew__dag.matrix, 0, NULL);
  (void)sinew_compute_set_matrix(ctx, &m, out);
}

/* The parent's world matrix. Under the world it is the identity whatever sinewParentMatrix holds:
 * breaking the implicit link leaves the old parent's last world matrix stored there. */
static void parent_matrix(sinew_compute_t *ctx, local_kind kind, sinew_mat4_t *out) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  if (!sinew_node_parent(g, sinew_compute_node(ctx)).gen ||
      (kind != LOCAL_IDENTITY && cget1(ctx, sinew__dag.inherits_transform) == 0)) {
    sinew_mat4_identity(out);
    return;
  }
  cget_matrix(ctx, sinew__dag.parent_in, out);
}

/* Inverse that never fails: a singular matrix gives identity (logged once per compute). */
static void safe_inverse(sinew_graph_t *g, sinew_node_t n, const sinew_mat4_t *m, sinew_mat4_t *out) {
  if (sinew_mat4_inverse(m, out)) return;
  sinew_mat4_identity(out);
  sinew_log(g, SINEW_LOG_WARNING, SINEW_LOG_GENERIC, "%s: singular matrix; its inverse is taken as identity",
            sinew_node_name(g, n));
}

static int dag_outputs(sinew_compute_t *ctx, const sinew_plug_t *plug, local_kind kind) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  uint32_t a = plug->attr;
  sinew_mat4_t local, result, tmp;
  if (a == sinew__dag.matrix || a == sinew__dag.inverse_matrix || a == sinew__dag.xform_matrix) {
    if (kind == LOCAL_IDENTITY) return SINEW_EUNKNOWN_PLUG;
    local_matrix(ctx, kind, &local);
    if (a == sinew__dag.matrix) return SINEW_OK; /* local_matrix wrote it */
    if (a == sinew__dag.inverse_matrix) safe_inverse(g, n, &local, &result);
    else result = local;
    return sinew_compute_set_matrix(ctx, plug, &result);
  }
  if (a == sinew__dag.parent_matrix || a == sinew__dag.parent_inverse_matrix) {
    parent_matrix(ctx, kind, &tmp);
    if (a == sinew__dag.parent_inverse_matrix) safe_inverse(g, n, &tmp, &result);
    else result = tmp;
    return sinew_compute_set_matrix(ctx, plug, &result);
  }
  if (a == sinew__dag.world_matrix || a == sinew__dag.world_inverse_matrix) {
    /* Every instance index gives the one path sinew supports (no instancing). */
    local_matrix(ctx, kind, &local);
    if (kind != LOCAL_IDENTITY) {
      cget_matrix(ctx, sinew__dag.offset_parent_matrix, &tmp);
      post(&local, &tmp);
    }
    parent_matrix(ctx, kind, &tmp);
    post(&local, &tmp);
    if (a == sinew__dag.world_inverse_matrix) safe_inverse(g, n, &local, &result);
    else result = local;
    return sinew_compute_set_matrix(ctx, plug, &result);
  }
  return SINEW_EUNKNOWN_PLUG;
}

static int dag_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  return dag_outputs(ctx, plug, LOCAL_IDENTITY);
}

static int transform_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  return dag_outputs(ctx, plug, LOCAL_TRANSFORM);
}

static int joint_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  return dag_outputs(ctx, plug, LOCAL_JOINT);
}

/* ---- registration ------------------------------------------------------------------------- */

/* Every local input affects every local output, and the parent inputs affect the world ones. */
static size_t build_affects(sinew_affects_t *out, const char *const *extra_in, size_t nextra) {
  size_t n = 0;
  for (size_t i = 0; i < sizeof local_inputs / sizeof *local_inputs; i++)
    for (size_t o = 0; o < sizeof local_outputs / sizeof *local_outputs; o++)
      out[n++] = (sinew_affects_t){local_inputs[i], local_outputs[o]};
  for (size_t i = 0; i < nextra; i++)
    for (size_t o = 0; o < sizeof local_outputs / sizeof *local_outputs; o++)
      out[n++] = (sinew_affects_t){extra_in[i], local_outputs[o]};
  return n;
}

static uint32_t id(const sinew_node_type_t *t, const char *name) { return sinew_node_type_attr(t, name); }

int sinew__register_dag_types(sinew_graph_t *g) {
  const sinew_node_type_t *dag, *xf, *jt;
  /* Maya's abstract classes above dagNode (`nodeType -i` lists them: containerBase entity
   * dagNode transform); no attributes of their own */
  sinew_node_type_desc_t cb = {.name = "containerBase", .flags = SINEW_NODE_TYPE_ABSTRACT};
  int rc = sinew_register_node_type(g, &cb, NULL);
  if (rc) return rc;
  sinew_node_type_desc_t en = {.name = "entity", .parent_type = "containerBase", .flags = SINEW_NODE_TYPE_ABSTRACT};
  if ((rc = sinew_register_node_type(g, &en, NULL))) return rc;
  sinew_node_type_desc_t d = {.name = "dagNode", .parent_type = "entity",
                              .flags = SINEW_NODE_TYPE_DAG | SINEW_NODE_TYPE_ABSTRACT | SINEW_NODE_TYPE_PARALLEL,
                              .attrs = dag_attrs, .attr_count = sizeof dag_attrs / sizeof *dag_attrs,
                              .affects = dag_affects, .affects_count = sizeof dag_affects / sizeof *dag_affects,
                              .compute = dag_compute, .dag_parent_output = "worldMatrix[0]",
                              .dag_child_input = "sinewParentMatrix"};
  rc = sinew_register_node_type(g, &d, &dag);
  if (rc) return rc;
  sinew_affects_t aff[128];
  size_t na = build_affects(aff, NULL, 0);
  /* offsetParentMatrix sits between the local and parent matrices: only the world ones */
  aff[na++] = (sinew_affects_t){"offsetParentMatrix", "worldMatrix"};
  aff[na++] = (sinew_affects_t){"offsetParentMatrix", "worldInverseMatrix"};
  const char *parent_outs[] = {"parentMatrix", "parentInverseMatrix", "worldMatrix", "worldInverseMatrix"};
  for (size_t o = 0; o < 4; o++) aff[na++] = (sinew_affects_t){"inheritsTransform", parent_outs[o]};
  /* Parallel: the computes read only the node's own declared inputs (and its DAG parent link,
   * which evaluation does not change) and write only its outputs. */
  sinew_node_type_desc_t t = {.name = "transform", .parent_type = "dagNode", .flags = SINEW_NODE_TYPE_PARALLEL,
                              .attrs = transform_attrs,
                              .attr_count = sizeof transform_attrs / sizeof *transform_attrs,
                              .affects = aff, .affects_count = na, .compute = transform_compute};
  if ((rc = sinew_register_node_type(g, &t, &xf))) return rc;
  na = build_affects(aff, (const char *const[]){"jointOrient", "inverseScale", "segmentScaleCompensate"}, 3);
  sinew_node_type_desc_t j = {.name = "joint", .parent_type = "transform", .flags = SINEW_NODE_TYPE_PARALLEL,
                              .attrs = joint_attrs,
                              .attr_count = sizeof joint_attrs / sizeof *joint_attrs,
                              .affects = aff, .affects_count = na, .compute = joint_compute};
  if ((rc = sinew_register_node_type(g, &j, &jt))) return rc;
  sinew__dag = (sinew__dag_ids){
      .translate = id(xf, "t"), .rotate = id(xf, "r"), .scale = id(xf, "s"), .shear = id(xf, "sh"),
      .rotate_pivot = id(xf, "rp"), .scale_pivot = id(xf, "sp"), .rotate_pivot_translate = id(xf, "rpt"),
      .scale_pivot_translate = id(xf, "spt"), .rotate_axis = id(xf, "ra"), .rotate_order = id(xf, "ro"),
      .inherits_transform = id(xf, "it"), .offset_parent_matrix = id(xf, "opm"),
      .matrix = id(xf, "m"), .inverse_matrix = id(xf, "im"), .xform_matrix = id(xf, "xm"),
      .world_matrix = id(dag, "wm"), .world_inverse_matrix = id(dag, "wim"),
      .parent_matrix = id(dag, "pm"), .parent_inverse_matrix = id(dag, "pim"),
      .parent_in = id(dag, "snpm"), .joint_orient = id(jt, "jo"), .inverse_scale = id(jt, "is"),
      .ssc = id(jt, "ssc"), .bind_pose = id(jt, "bps")};
  return SINEW_OK;
}
