/* nodes/ik.c: IK (spec maya-reference-rigging.md section 4): the ikHandle and ikEffector
 * transforms, the shared solver nodes ikSCsolver and ikRPsolver, ikSystem, the rotate-plane and
 * single-chain solves of one- and two-bone chains, and sinew_ik_wire(), which joins a handle to
 * its chain.
 *
 * Evaluation (docs/rigging.md#ik): Maya writes the solved rotations into the joints' rotate
 * without a connection. Here the handle is a node whose output sinewIkRotate[k] feeds joint k's
 * rotate through a hidden connection (never written to files), and whose hidden inputs are fed
 * from the chain joints' own inputs (translate, the FK rotation kept in sinewFkRotate, scale,
 * rotateAxis, jointOrient, preferredAngle, inverseScale, rotateOrder, segmentScaleCompensate,
 * offsetParentMatrix) and the start joint's parentMatrix. So there is no cycle, nothing writes an
 * input during a compute, getAttr joint.r reports the solved value, and moving the handle
 * dirties exactly the chain's rotations and what lies downstream of them. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nodes/nodes_internal.h"
#include "sinew/curve.h"

#define F_IN SINEW_ATTR_INPUT
#define F_KEY (SINEW_ATTR_INPUT | SINEW_ATTR_KEYABLE)
#define F_HID (SINEW_ATTR_READABLE | SINEW_ATTR_WRITABLE | SINEW_ATTR_CONNECTABLE | SINEW_ATTR_HIDDEN)
#define F_HID_ARR (F_HID | SINEW_ATTR_ARRAY)
#define F_HID_OUT_ARR (SINEW_ATTR_OUTPUT | SINEW_ATTR_HIDDEN | SINEW_ATTR_ARRAY)
#define F_MSG (SINEW_ATTR_INPUT)

#define VEC3P(lname, sname, ctype, dflt, fl, par, lx, sx, ly, sy, lz, sz)                          \
  {.name = lname, .short_name = sname, .type = SINEW_ATTR_COMPOUND, .flags = fl, .parent = par},  \
      {.name = lx, .short_name = sx, .type = ctype, .parent = lname, .default_value = dflt,         \
       .flags = fl},                                                                             \
      {.name = ly, .short_name = sy, .type = ctype, .parent = lname, .default_value = dflt,         \
       .flags = fl},                                                                             \
      {.name = lz, .short_name = sz, .type = ctype, .parent = lname, .default_value = dflt,         \
       .flags = fl}

/* The most bones a chain may have (the RP/SC solve here is analytic for one and two). */
#define IK_MAX_BONES 2
#define IK_PI 3.14159265358979323846
#define IK_MAX_JOINTS (IK_MAX_BONES + 1)

static const sinew_attr_desc_t handle_attrs[] = {
    {.name = "startJoint", .short_name = "hsj", .type = SINEW_ATTR_MESSAGE, .flags = F_MSG},
    {.name = "endEffector", .short_name = "hee", .type = SINEW_ATTR_MESSAGE, .flags = F_MSG},
    {.name = "ikSolver", .short_name = "hsv", .type = SINEW_ATTR_MESSAGE, .flags = F_MSG},
    {.name = "priority", .short_name = "pri", .type = SINEW_ATTR_INT, .default_value = 1},
    {.name = "weight", .short_name = "w", .type = SINEW_ATTR_DOUBLE, .default_value = 1},
    {.name = "poWeight", .short_name = "pow", .type = SINEW_ATTR_DOUBLE, .default_value = 1},
    /* interactive posing only (spec 4.2); their short names are not known */
    {.name = "stickiness", .type = SINEW_ATTR_ENUM, .enum_fields = "off:sticky:superSticky"},
    {.name = "snapEnable", .type = SINEW_ATTR_BOOL, .default_value = 1},
    VEC3P("poleVector", "pv", SINEW_ATTR_DOUBLE, 0, F_KEY, NULL, "poleVectorX", "pvx", "poleVectorY", "pvy",
          "poleVectorZ", "pvz"),
    {.name = "offset", .short_name = "off", .type = SINEW_ATTR_DOUBLE, .flags = F_KEY},
    {.name = "roll", .short_name = "rol", .type = SINEW_ATTR_ANGLE, .flags = F_KEY},
    {.name = "twist", .short_name = "twi", .type = SINEW_ATTR_ANGLE, .flags = F_KEY},
    {.name = "ikBlend", .short_name = "ikb", .type = SINEW_ATTR_DOUBLE, .default_value = 1, .flags = F_KEY,
     .has_min = true, .has_max = true, .min_value = 0, .max_value = 1},
    /* spline IK: the world-space curve (curveShape.ws[0] -> ic) */
    {.name = "inCurve", .short_name = "ic", .type = SINEW_ATTR_DATA, .data_type = &sinew_curve_data_type,
     .flags = SINEW_ATTR_READABLE | SINEW_ATTR_WRITABLE | SINEW_ATTR_CONNECTABLE | SINEW_ATTR_INDEX_MATTERS},
    {.name = "rootOnCurve", .short_name = "roc", .type = SINEW_ATTR_BOOL},
    {.name = "rootTwistMode", .short_name = "rtm", .type = SINEW_ATTR_BOOL},
    {.name = "twistType", .short_name = "twt", .type = SINEW_ATTR_ENUM,
     .enum_fields = "linear:easeIn:easeOut:easeInOut"},
    {.name = "dTwistControlEnable", .short_name = "dtce", .type = SINEW_ATTR_BOOL},
    {.name = "dWorldUpType", .short_name = "dwut", .type = SINEW_ATTR_ENUM,
     .enum_fields = "Scene Up:Object Up:Object Up (Start/End):Object Rotation Up:Object Rotation Up (Start/End):Vector:Vector (Start/End):Relative"},
    {.name = "dWorldUpMatrix", .short_name = "dwum", .type = SINEW_ATTR_MATRIX},
    {.name = "dWorldUpMatrixEnd", .short_name = "dwue", .type = SINEW_ATTR_MATRIX},
    /* the joint axis aimed down the curve under the advanced twist (numbering as Maya's, whose
     * scripts set 0 for +X, 1 for -X, 2 for +Y) */
    {.name = "dForwardAxis", .short_name = "dfa", .type = SINEW_ATTR_ENUM,
     .enum_fields = "Positive X:Negative X:Positive Y:Negative Y:Positive Z:Negative Z"},
    {.name = "dWorldUpAxis", .short_name = "dwua", .type = SINEW_ATTR_ENUM,
     .enum_fields = "Positive Y:Negative Y:Closest Y:Positive Z:Negative Z:Closest Z:Positive X:Negative X:Closest X"},
    {.name = "dWorldUpVector", .short_name = "dwu", .type = SINEW_ATTR_COMPOUND},
    {.name = "dWorldUpVectorX", .short_name = "dwux", .type = SINEW_ATTR_DOUBLE, .parent = "dWorldUpVector"},
    {.name = "dWorldUpVectorY", .short_name = "dwuy", .type = SINEW_ATTR_DOUBLE, .parent = "dWorldUpVector",
     .default_value = 1},
    {.name = "dWorldUpVectorZ", .short_name = "dwuz", .type = SINEW_ATTR_DOUBLE, .parent = "dWorldUpVector"},
    {.name = "dWorldUpVectorEnd", .short_name = "dwve", .type = SINEW_ATTR_COMPOUND},
    {.name = "dWorldUpVectorEndX", .short_name = "dwvex", .type = SINEW_ATTR_DOUBLE, .parent = "dWorldUpVectorEnd"},
    {.name = "dWorldUpVectorEndY", .short_name = "dwvey", .type = SINEW_ATTR_DOUBLE, .parent = "dWorldUpVectorEnd",
     .default_value = 1},
    {.name = "dWorldUpVectorEndZ", .short_name = "dwvez", .type = SINEW_ATTR_DOUBLE, .parent = "dWorldUpVectorEnd"},
    {.name = "splineIkOldStyle", .short_name = "sio", .type = SINEW_ATTR_BOOL},
    /* sinew's wiring (sinew_ik_wire): the chain's inputs, one element per joint, end joint last */
    {.name = "sinewIkJoint", .short_name = "sikj", .type = SINEW_ATTR_COMPOUND, .flags = F_HID_ARR},
    VEC3P("sinewIkTranslate", "sikt", SINEW_ATTR_DISTANCE, 0, F_HID, "sinewIkJoint", "sinewIkTranslateX", "siktx",
          "sinewIkTranslateY", "sikty", "sinewIkTranslateZ", "siktz"),
    VEC3P("sinewIkFkRotate", "sikf", SINEW_ATTR_ANGLE, 0, F_HID, "sinewIkJoint", "sinewIkFkRotateX", "sikfx",
          "sinewIkFkRotateY", "sikfy", "sinewIkFkRotateZ", "sikfz"),
    VEC3P("sinewIkScale", "siks", SINEW_ATTR_DOUBLE, 1, F_HID, "sinewIkJoint", "sinewIkScaleX", "siksx",
          "sinewIkScaleY", "siksy", "sinewIkScaleZ", "siksz"),
    VEC3P("sinewIkRotateAxis", "sika", SINEW_ATTR_ANGLE, 0, F_HID, "sinewIkJoint", "sinewIkRotateAxisX", "sikax",
          "sinewIkRotateAxisY", "sikay", "sinewIkRotateAxisZ", "sikaz"),
    VEC3P("sinewIkJointOrient", "siko", SINEW_ATTR_ANGLE, 0, F_HID, "sinewIkJoint", "sinewIkJointOrientX", "sikox",
          "sinewIkJointOrientY", "sikoy", "sinewIkJointOrientZ", "sikoz"),
    VEC3P("sinewIkPreferredAngle", "sikp", SINEW_ATTR_ANGLE, 0, F_HID, "sinewIkJoint", "sinewIkPreferredAngleX",
          "sikpx", "sinewIkPreferredAngleY", "sikpy", "sinewIkPreferredAngleZ", "sikpz"),
    VEC3P("sinewIkInverseScale", "siki", SINEW_ATTR_DOUBLE, 1, F_HID, "sinewIkJoint", "sinewIkInverseScaleX",
          "sikix", "sinewIkInverseScaleY", "sikiy", "sinewIkInverseScaleZ", "sikiz"),
    {.name = "sinewIkRotateOrder", .short_name = "sikr", .type = SINEW_ATTR_ENUM, .parent = "sinewIkJoint",
     .flags = F_HID, .enum_fields = "xyz:yzx:zxy:xzy:yxz:zyx"},
    {.name = "sinewIkSegmentScaleCompensate", .short_name = "sikc", .type = SINEW_ATTR_BOOL,
     .parent = "sinewIkJoint", .flags = F_HID, .default_value = 1},
    {.name = "sinewIkOffsetParentMatrix", .short_name = "sikm", .type = SINEW_ATTR_MATRIX, .parent = "sinewIkJoint",
     .flags = F_HID},
    {.name = "sinewIkParentMatrix", .short_name = "sikpm", .type = SINEW_ATTR_MATRIX, .flags = F_HID},
    /* the solved (and blended) rotation of each rotating joint, fed into its rotate */
    {.name = "sinewIkRotate", .short_name = "sikR", .type = SINEW_ATTR_COMPOUND, .flags = F_HID_OUT_ARR},
    {.name = "sinewIkRotateX", .short_name = "sikRx", .type = SINEW_ATTR_ANGLE, .parent = "sinewIkRotate",
     .flags = F_HID_OUT_ARR & ~SINEW_ATTR_ARRAY},
    {.name = "sinewIkRotateY", .short_name = "sikRy", .type = SINEW_ATTR_ANGLE, .parent = "sinewIkRotate",
     .flags = F_HID_OUT_ARR & ~SINEW_ATTR_ARRAY},
    {.name = "sinewIkRotateZ", .short_name = "sikRz", .type = SINEW_ATTR_ANGLE, .parent = "sinewIkRotate",
     .flags = F_HID_OUT_ARR & ~SINEW_ATTR_ARRAY},
    /* spline IK: the start joint's translate (on the curve with rootOnCurve), fed into its
     * translate when that is free */
    VEC3P("sinewIkRootTranslate", "sikT", SINEW_ATTR_DISTANCE, 0, F_HID_OUT_ARR & ~SINEW_ATTR_ARRAY, NULL,
          "sinewIkRootTranslateX", "sikTx", "sinewIkRootTranslateY", "sikTy", "sinewIkRootTranslateZ", "sikTz"),
};

static const char *const handle_inputs[] = {
    "translate", "rotate", "scale", "shear", "rotatePivot", "scalePivot", "rotatePivotTranslate",
    "scalePivotTranslate", "rotateAxis", "rotateOrder", "inheritsTransform", "offsetParentMatrix",
    "sinewParentMatrix", "ikSolver", "poleVector", "twist", "ikBlend", "sinewIkJoint", "sinewIkParentMatrix",
    "inCurve", "roll", "twistType", "dTwistControlEnable", "dWorldUpType", "dForwardAxis", "dWorldUpAxis", "dWorldUpMatrix",
    "dWorldUpMatrixEnd", "dWorldUpVector", "dWorldUpVectorEnd", "offset", "rootOnCurve"};

static const sinew_attr_desc_t effector_attrs[] = {
    {.name = "handlePath", .short_name = "hp", .type = SINEW_ATTR_MESSAGE, .flags = SINEW_ATTR_OUTPUT},
    {.name = "hideDisplay", .short_name = "hd", .type = SINEW_ATTR_BOOL},
};

static const sinew_attr_desc_t solver_attrs[] = {
    {.name = "tolerance", .short_name = "tol", .type = SINEW_ATTR_DOUBLE, .default_value = 1e-5},
    {.name = "maxIterations", .short_name = "mxi", .type = SINEW_ATTR_INT, .default_value = 2147483647},
};

static const sinew_attr_desc_t system_attrs[] = {
    {.name = "ikSolver", .short_name = "sol", .type = SINEW_ATTR_MESSAGE, .flags = F_IN | SINEW_ATTR_ARRAY},
    {.name = "globalSnap", .short_name = "gsn", .type = SINEW_ATTR_BOOL, .default_value = 1},
    {.name = "globalSolve", .short_name = "gsv", .type = SINEW_ATTR_BOOL, .default_value = 1},
};

/* Attribute ids, the same in every graph (registered from the same descriptors). */
static struct {
  uint32_t hsj, hee, hsv, pv, twi, ikb, sikj, sikt, sikf, siks, sika, siko, sikp, siki, sikr, sikc, sikm,
      sikpm, sikR, sikT, hp, sfkr, sfkt, pa, rp;
  uint32_t ic, rol, twt, dtce, dwut, dfa, dwua, dwum, dwue, dwu, dwve, off, roc;
} ik;

/* ---- small math -------------------------------------------------------------------------------- */

static sinew_vec3_t v_sub(sinew_vec3_t a, sinew_vec3_t b) { return (sinew_vec3_t){a.x - b.x, a.y - b.y, a.z - b.z}; }
static sinew_vec3_t v_add(sinew_vec3_t a, sinew_vec3_t b) { return (sinew_vec3_t){a.x + b.x, a.y + b.y, a.z + b.z}; }
static sinew_vec3_t v_mul(sinew_vec3_t a, double s) { return (sinew_vec3_t){a.x * s, a.y * s, a.z * s}; }
static double v_dot(sinew_vec3_t a, sinew_vec3_t b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static double v_len(sinew_vec3_t a) { return sqrt(v_dot(a, a)); }
static sinew_vec3_t v_cross(sinew_vec3_t a, sinew_vec3_t b) {
  sinew_vec3_t c;
  sinew_vec3_cross(a, b, &c);
  return c;
}
static sinew_vec3_t v_norm(sinew_vec3_t a) {
  double l = v_len(a);
  return l > 0 ? v_mul(a, 1 / l) : a;
}
static sinew_vec3_t row3(const sinew_mat4_t *m, int r) { return (sinew_vec3_t){m->m[r][0], m->m[r][1], m->m[r][2]}; }
static sinew_vec3_t qrot(sinew_quat_t q, sinew_vec3_t v) {
  sinew_vec3_t o;
  sinew_quat_rotate(q, v, &o);
  return o;
}
static sinew_quat_t qaxis(sinew_vec3_t axis, double angle) {
  sinew_quat_t q;
  sinew_quat_from_axis_angle(axis, angle, &q);
  return q;
}

/* w = w * T(-p) * rot(q) * T(p): the world matrix w turned by q about the world point p. */
static void turn_about(sinew_mat4_t *w, sinew_quat_t q, sinew_vec3_t p) {
  sinew_mat4_t r, t;
  sinew_quat_to_mat4(q, &r);
  sinew_vec3_t off = v_sub(p, qrot(q, p));
  r.m[3][0] = off.x, r.m[3][1] = off.y, r.m[3][2] = off.z;
  sinew_mat4_mul(w, &r, &t);
  *w = t;
}

/* A unit vector perpendicular to v. */
static sinew_vec3_t any_perpendicular(sinew_vec3_t v) {
  sinew_vec3_t a = fabs(v.x) < 0.9 * v_len(v) ? (sinew_vec3_t){1, 0, 0} : (sinew_vec3_t){0, 1, 0};
  return v_norm(v_cross(v, a));
}

/* ---- the solve -------------------------------------------------------------------------------- */

typedef struct ik_joint {
  sinew__local_inputs in; /* r = the FK rotation */
  sinew_vec3_t pa;
  sinew_mat4_t opm;
} ik_joint;

/* World matrices of joints 0..m-1 with rotations rot[k], and the end joint's world position. */
static void pose(const ik_joint *j, int m, const sinew_vec3_t *rot, const sinew_mat4_t *parent, sinew_mat4_t *w,
                 sinew_vec3_t *end) {
  for (int k = 0; k < m; k++) {
    sinew__local_inputs in = j[k].in;
    in.r = rot[k];
    sinew_mat4_t l, t;
    sinew__joint_local(&in, &l);
    sinew_mat4_mul(&l, &j[k].opm, &t);
    sinew_mat4_mul(&t, k ? &w[k - 1] : parent, &w[k]);
  }
  sinew_mat4_t t;
  sinew_mat4_mul(&j[m].opm, &w[m - 1], &t);
  sinew_mat4_transform_point(j[m].in.t, &t, end);
}

/* The rotate value that gives joint k the world matrix w under `above` (opm * parent world):
 * L = w * above^-1 = S * RA * R * JO * IS * T, so R = (S * RA)^-1 * L * (JO * IS * T)^-1. */
static sinew_vec3_t local_rotation(const ik_joint *jt, const sinew_mat4_t *w, const sinew_mat4_t *above) {
  sinew_mat4_t inv, l, pre, post, tmp, r;
  if (!sinew_mat4_inverse(above, &inv)) return jt->in.r;
  sinew_mat4_mul(w, &inv, &l);
  sinew__local_inputs in = jt->in;
  in.r = (sinew_vec3_t){0, 0, 0};
  in.jo = (sinew_vec3_t){0, 0, 0};
  in.ssc = false;
  in.t = (sinew_vec3_t){0, 0, 0};
  sinew__joint_local(&in, &pre); /* S * RA */
  in = jt->in;
  in.r = (sinew_vec3_t){0, 0, 0};
  in.s = (sinew_vec3_t){1, 1, 1};
  in.ra = (sinew_vec3_t){0, 0, 0};
  sinew__joint_local(&in, &post); /* JO * IS * T */
  if (!sinew_mat4_inverse(&pre, &inv)) return jt->in.r;
  sinew_mat4_mul(&inv, &l, &tmp);
  if (!sinew_mat4_inverse(&post, &inv)) return jt->in.r;
  sinew_mat4_mul(&tmp, &inv, &r);
  sinew_mat4_t rot, rest;
  if (!sinew_mat4_orthonormalize_rows(&r, &rot, &rest)) return jt->in.r;
  sinew_vec3_t e;
  sinew_euler_from_mat4(&rot, jt->in.order, &e);
  return e;
}

typedef enum ik_kind { IK_NONE, IK_SC, IK_RP, IK_SPLINE } ik_kind;

typedef struct ik_goal {
  ik_kind kind;
  sinew_vec3_t h;      /* the handle's world rotate pivot */
  sinew_vec3_t pv;     /* pole vector in world space */
  sinew_mat4_t orient; /* the handle's world rotation (SC) */
  double twist;
} ik_goal;

/* tr(A * B^T) over the 3x3 parts: how close two rotations are (3 when equal). */
static double rot_match(const sinew_mat4_t *a, const sinew_mat4_t *b) {
  double s = 0;
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) s += a->m[r][c] * b->m[r][c];
  return s;
}

/* Solves joints 0..m-1 (m = 1 or 2 bones) toward goal; out[k] is each joint's IK rotate value.
 * Steps (spec 4.3): start from the preferred angles; bend the middle joint about the chain's
 * normal so that the start-to-end distance is the clamped goal distance; turn the chain about
 * the start joint so that the end points at the goal; turn it about the start-goal axis so the
 * middle joint lies on the pole vector's side (RP, then twist) or so the effector's orientation
 * comes as close as it can to the handle's (SC); write back local rotations. */
static void solve(const ik_joint *j, int m, const sinew_mat4_t *parent, const ik_goal *goal, sinew_vec3_t *out) {
  sinew_vec3_t rot[IK_MAX_BONES], pend;
  sinew_mat4_t w[IK_MAX_BONES];
  for (int k = 0; k < m; k++) rot[k] = j[k].pa;
  pose(j, m, rot, parent, w, &pend);
  sinew_vec3_t p0 = row3(&w[0], 3);
  sinew_vec3_t n = {0, 0, 0}; /* the chain's plane normal */
  if (m == 2) {
    sinew_vec3_t p1 = row3(&w[1], 3);
    sinew_vec3_t u = v_sub(p1, p0), v = v_sub(pend, p1);
    double a = v_len(u), b = v_len(v);
    n = v_cross(u, v);
    if (v_len(n) <= 1e-9 * a * b) {
      /* straight at the preferred angles: the FK pose's plane, else the middle joint's z axis */
      sinew_vec3_t fk[IK_MAX_BONES] = {j[0].in.r, j[1].in.r}, pf;
      sinew_mat4_t wf[IK_MAX_BONES];
      pose(j, m, fk, parent, wf, &pf);
      sinew_vec3_t uf = v_sub(row3(&wf[1], 3), row3(&wf[0], 3)), vf = v_sub(pf, row3(&wf[1], 3));
      sinew_vec3_t nf = v_cross(uf, vf);
      if (v_len(nf) > 1e-9 * a * b) {
        /* the FK plane normal expressed in the preferred pose: FK j0 frame -> PA j0 frame */
        sinew_mat4_t inv, rel;
        if (sinew_mat4_inverse_affine(&wf[0], &inv)) {
          sinew_mat4_mul(&inv, &w[0], &rel);
          sinew_mat4_transform_vector(nf, &rel, &n);
        }
      }
      if (v_len(n) <= 1e-9 * a * b) {
        /* the middle joint's z axis (Maya's joints bend about z), across the upper bone */
        sinew_vec3_t z = row3(&w[1], 2);
        n = a > 0 ? v_sub(z, v_mul(u, v_dot(u, z) / (a * a))) : z;
        if (v_len(n) <= 1e-9 * (v_len(z) + 1)) n = any_perpendicular(u);
      }
    }
    n = v_norm(n);
    if (a > 0 && b > 0) {
      double c = v_len(v_sub(goal->h, p0));
      double lo = fabs(a - b), hi = a + b;
      c = c < lo ? lo : c > hi ? hi : c;
      double cg = (a * a + b * b - c * c) / (2 * a * b);
      cg = cg < -1 ? -1 : cg > 1 ? 1 : cg;
      double g = acos(cg);
      double c0 = v_dot(v_mul(u, -1), v) / (a * b);
      c0 = c0 < -1 ? -1 : c0 > 1 ? 1 : c0;
      double g0 = acos(c0);
      /* turning the lower bone by +theta about n bends it further (interior angle g0 - theta) */
      sinew_quat_t q1 = qaxis(n, g0 - g);
      turn_about(&w[1], q1, p1);
      pend = v_add(p1, qrot(q1, v_sub(pend, p1)));
    }
  }
  /* aim: the minimal turn taking (end - p0) onto (goal - p0) */
  sinew_vec3_t e = v_sub(pend, p0), d = v_sub(goal->h, p0);
  sinew_quat_t q3;
  sinew_quat_identity(&q3);
  if (v_len(d) > 1e-12 && v_len(e) > 1e-12) {
    sinew_vec3_t axis = v_cross(e, d);
    double ang = atan2(v_len(axis), v_dot(e, d));
    if (v_len(axis) <= 1e-12 * v_len(e) * v_len(d)) axis = m == 2 ? n : any_perpendicular(e);
    q3 = qaxis(axis, ang);
  }
  for (int k = 0; k < m; k++) turn_about(&w[k], q3, p0);
  n = qrot(q3, n);
  /* the turn about the start-goal axis */
  double phi = 0;
  sinew_vec3_t h = v_len(d) > 1e-12 ? v_norm(d) : v_norm(qrot(q3, e));
  if (v_len(h) > 0 && goal->kind == IK_RP) {
    sinew_vec3_t ref = v_sub(goal->pv, v_mul(h, v_dot(goal->pv, h)));
    if (m == 2 && v_len(ref) > 1e-12 * (v_len(goal->pv) + 1)) {
      sinew_vec3_t mid = v_cross(h, n); /* where the middle joint lies, across h */
      phi = atan2(v_dot(v_cross(mid, ref), h), v_dot(mid, ref));
    }
    phi += goal->twist;
  } else if (v_len(h) > 0 && goal->kind == IK_SC) {
    /* f(phi) = tr(E(phi) Hr^T) = al cos phi + be sin phi + ga; its maximum is at atan2(be, al) */
    double f[3];
    const double at[3] = {0, IK_PI, IK_PI / 2};
    for (int i = 0; i < 3; i++) {
      sinew_mat4_t ew = w[m - 1];
      turn_about(&ew, qaxis(h, at[i]), p0);
      sinew_mat4_t er, rest;
      if (!sinew_mat4_orthonormalize_rows(&ew, &er, &rest)) sinew_mat4_identity(&er);
      f[i] = rot_match(&er, &goal->orient);
    }
    double al = (f[0] - f[1]) / 2, ga = (f[0] + f[1]) / 2, be = f[2] - ga;
    if (fabs(al) + fabs(be) > 1e-12) phi = atan2(be, al);
  }
  if (phi != 0)
    for (int k = 0; k < m; k++) turn_about(&w[k], qaxis(h, phi), p0);
  for (int k = 0; k < m; k++) {
    sinew_mat4_t above;
    sinew_mat4_mul(&j[k].opm, k ? &w[k - 1] : parent, &above);
    out[k] = local_rotation(&j[k], &w[k], &above);
  }
}

/* ---- compute ---------------------------------------------------------------------------------- */

static sinew_vec3_t get3(sinew_graph_t *g, const sinew_plug_t *p) {
  double v[3] = {0, 0, 0};
  sinew_get_doubles(g, p, v, 3, NULL);
  return (sinew_vec3_t){v[0], v[1], v[2]};
}

static sinew_plug_t child_of(sinew_graph_t *g, const sinew_plug_t *p, uint32_t attr) {
  sinew_plug_t c = *p;
  sinew_plug_child(g, p, attr, &c);
  return c;
}

/* The chain joint k's inputs, as the wiring feeds them into sinewIkJoint[k]. */
static void read_joint(sinew_graph_t *g, const sinew_plug_t *arr, int k, ik_joint *jt) {
  sinew_plug_t e;
  sinew_plug_element(g, arr, k, &e);
  sinew__local_inputs *in = &jt->in;
  memset(in, 0, sizeof *in);
  sinew_plug_t p = child_of(g, &e, ik.sikt);
  in->t = get3(g, &p);
  p = child_of(g, &e, ik.sikf), in->r = get3(g, &p);
  p = child_of(g, &e, ik.siks), in->s = get3(g, &p);
  p = child_of(g, &e, ik.sika), in->ra = get3(g, &p);
  p = child_of(g, &e, ik.siko), in->jo = get3(g, &p);
  p = child_of(g, &e, ik.siki), in->is = get3(g, &p);
  p = child_of(g, &e, ik.sikp), jt->pa = get3(g, &p);
  double v = 0;
  p = child_of(g, &e, ik.sikr);
  sinew_get_double(g, &p, &v);
  in->order = v >= 0 && v < SINEW_ROTATE_ORDER_MAX ? (sinew_rotate_order_t)v : SINEW_ROTATE_XYZ;
  p = child_of(g, &e, ik.sikc);
  v = 1;
  sinew_get_double(g, &p, &v);
  in->ssc = v != 0;
  p = child_of(g, &e, ik.sikm);
  if (sinew_get_matrix(g, &p, &jt->opm)) sinew_mat4_identity(&jt->opm);
}

static ik_kind solver_kind(sinew_graph_t *g, sinew_node_t h) {
  sinew_plug_t p = sinew_plug_make(h, ik.hsv, 0, NULL), src;
  if (!sinew_plug_source(g, &p, &src)) return IK_NONE;
  const sinew_node_type_t *t = sinew_node_type(g, src.node);
  if (sinew_node_type_is_a(t, "ikRPsolver")) return IK_RP;
  if (sinew_node_type_is_a(t, "ikSCsolver")) return IK_SC;
  if (sinew_node_type_is_a(t, "ikSplineSolver")) return IK_SPLINE;
  return IK_NONE;
}

/* ---- spline IK ---------------------------------------------------------------------------------- */

/* The most joints a spline IK chain may have. */
#define SPLINE_MAX_JOINTS 1024

/* The curve's point at u, and beyond its end the end tangent's straight continuation (s >= 0
 * past the end): where joints go when the chain is longer than the curve. */
static sinew_vec3_t curve_point(const sinew_curve_t *c, double u) {
  sinew_vec3_t p;
  sinew_curve_eval(c, u, &p, NULL, NULL);
  return p;
}

/* The parameter of the curve point nearest to p: the best of a sampling of every knot
 * interval, refined by Newton on (C(u) - p) . C'(u) = 0. */
static double closest_param(const sinew_curve_t *c, sinew_vec3_t p) {
  double lo, hi;
  sinew_curve_range(c, &lo, &hi);
  uint32_t spans = sinew_curve_spans(c), steps = 16 * (spans ? spans : 1);
  double best = lo, bd = INFINITY;
  for (uint32_t i = 0; i <= steps; i++) {
    double u = lo + (hi - lo) * i / steps, d = v_len(v_sub(curve_point(c, u), p));
    if (d < bd) bd = d, best = u;
  }
  double u = best, h = (hi - lo) / steps;
  for (int it = 0; it < 30; it++) {
    sinew_vec3_t q, d1, d2;
    sinew_curve_eval(c, u, &q, &d1, &d2);
    sinew_vec3_t r = v_sub(q, p);
    double f = v_dot(r, d1), df = v_dot(d1, d1) + v_dot(r, d2);
    if (!(df > 0)) break;
    double nu = u - f / df;
    if (nu < best - h) nu = best - h;
    if (nu > best + h) nu = best + h;
    nu = nu < lo ? lo : nu > hi ? hi : nu;
    if (fabs(nu - u) <= 1e-15 * (fabs(u) + 1)) {
      u = nu;
      break;
    }
    u = nu;
  }
  return u;
}

/* The next joint: the first point past parameter *u along the curve (then along the end
 * tangent) at distance len from p. *u becomes its parameter (the range's end past the end). */
static sinew_vec3_t next_on_curve(const sinew_curve_t *c, sinew_vec3_t p, double len, double *u) {
  double lo, hi;
  sinew_curve_range(c, &lo, &hi);
  uint32_t spans = sinew_curve_spans(c), steps = 64 * (spans ? spans : 1);
  double step = (hi - lo) / steps, a = *u;
  for (double b = a + step;; b += step) {
    if (b > hi) b = hi;
    double fb = v_len(v_sub(curve_point(c, b), p)) - len;
    if (fb >= 0) { /* crossed inside [a, b]: bisect (the distance is continuous) */
      for (int it = 0; it < 200 && b - a > 1e-15 * (fabs(b) + 1); it++) {
        double m = 0.5 * (a + b);
        if (v_len(v_sub(curve_point(c, m), p)) - len >= 0) b = m;
        else a = m;
      }
      *u = b;
      return curve_point(c, b);
    }
    if (b >= hi) break;
    a = b;
  }
  /* past the end: along the end tangent, |e + s t - p| = len with s >= 0 */
  sinew_vec3_t e, t;
  sinew_curve_eval(c, hi, &e, &t, NULL);
  t = v_norm(t);
  if (v_len(t) == 0) t = v_norm(v_sub(e, p));
  sinew_vec3_t w = v_sub(e, p);
  double bq = v_dot(w, t), cq = v_dot(w, w) - len * len, disc = bq * bq - cq;
  double s = disc > 0 ? -bq + sqrt(disc) : 0;
  *u = hi;
  return v_add(e, v_mul(t, s > 0 ? s : 0));
}

/* Twist weight along the chain (twistType): linear, ease in, ease out, ease in and out. */
static double twist_weight(int type, double t) {
  switch (type) {
  case 1: return t * t;
  case 2: return 1 - (1 - t) * (1 - t);
  case 3: return t * t * (3 - 2 * t);
  default: return t;
  }
}

typedef struct spline_goal {
  sinew_curve_t curve;
  double twist, roll;
  int twist_type;
  bool advanced;
  int up_type, up_axis, forward_axis;
  bool root_on_curve;
  double offset; /* with root_on_curve: the start joint's place, a fraction of the arc length */
  sinew_mat4_t up_start, up_end;
  sinew_vec3_t up_vec, up_vec_end;
} spline_goal;

/* The advanced twist's up vector at joint position p, fraction t down the chain (dWorldUpType:
 * scene up, object up, object up start/end, object rotation up, its start/end, vector, vector
 * start/end); false for the types not modelled (relative). */
static bool up_vector(const spline_goal *sg, sinew_vec3_t p, double t, sinew_vec3_t *out) {
  sinew_vec3_t a, b;
  switch (sg->up_type) {
  case 0: *out = (sinew_vec3_t){0, 1, 0}; return true;
  case 1: *out = v_sub(row3(&sg->up_start, 3), p); return true;
  case 2:
    a = v_sub(row3(&sg->up_start, 3), p), b = v_sub(row3(&sg->up_end, 3), p);
    *out = v_add(v_mul(a, 1 - t), v_mul(b, t));
    return true;
  case 3: sinew_mat4_transform_vector(sg->up_vec, &sg->up_start, out); return true;
  case 4:
    sinew_mat4_transform_vector(sg->up_vec, &sg->up_start, &a);
    sinew_mat4_transform_vector(sg->up_vec_end, &sg->up_end, &b);
    *out = v_add(v_mul(v_norm(a), 1 - t), v_mul(v_norm(b), t));
    return true;
  case 5: *out = sg->up_vec; return true;
  case 6: *out = v_add(v_mul(sg->up_vec, 1 - t), v_mul(sg->up_vec_end, t)); return true;
  default: return false;
  }
}

/* Places joints 0..m-1 (m bones; j[m] is the end joint) along the curve: the start joint stays
 * where its parent puts it, each next joint is the first curve point past the last at the
 * bone's length (so every joint lies on the curve and every bone keeps its length; past the
 * curve's end the chain goes on along the end tangent). Each joint turns from its preferred pose
 * by the smallest rotation that aims its bone at the next joint, then about the bone by the
 * twist (roll + twist * weight down the chain), or, with the advanced twist, so that its up axis
 * faces the up vector. out[k] is each joint's rotate value. */
static void spline_solve(const ik_joint *j, int m, const sinew_mat4_t *parent, const spline_goal *sg,
                         sinew_mat4_t *w, sinew_vec3_t *out, sinew_vec3_t *root_t) {
  double u = 0;
  double prev_twist = 0;
  *root_t = j[0].in.t;
  for (int k = 0; k < m; k++) {
    sinew_mat4_t above, l, t;
    sinew_mat4_mul(&j[k].opm, k ? &w[k - 1] : parent, &above);
    sinew__local_inputs in = j[k].in;
    in.r = j[k].pa;
    if (k == 0 && sg->root_on_curve) {
      /* the start joint on the curve at `offset` of its length: a joint's local matrix ends with
       * its translate, so its world position is translate * above */
      double len = sinew_curve_length(&sg->curve, -INFINITY, INFINITY);
      double f = sg->offset < 0 ? 0 : sg->offset > 1 ? 1 : sg->offset;
      u = sinew_curve_param_at_length(&sg->curve, f * len);
      sinew_mat4_t inv;
      if (sinew_mat4_inverse(&above, &inv)) {
        sinew_mat4_transform_point(curve_point(&sg->curve, u), &inv, &in.t);
        *root_t = in.t;
      }
    }
    sinew__joint_local(&in, &l);
    sinew_mat4_mul(&l, &above, &w[k]);
    sinew_vec3_t pk = row3(&w[k], 3);
    if (k == 0 && !sg->root_on_curve) u = closest_param(&sg->curve, pk);
    /* the child's position in this pose, and the bone's length */
    sinew_vec3_t child;
    sinew_mat4_mul(&j[k + 1].opm, &w[k], &t);
    sinew_mat4_transform_point(j[k + 1].in.t, &t, &child);
    sinew_vec3_t b = v_sub(child, pk);
    double len = v_len(b);
    if (len <= 0) {
      out[k] = local_rotation(&j[k], &w[k], &above);
      continue;
    }
    sinew_vec3_t target = next_on_curve(&sg->curve, pk, len, &u), d = v_sub(target, pk);
    if (sg->advanced) {
      /* the advanced twist aims the joint's dForwardAxis at the next point, not the bone: a
       * bone along another axis (or the opposite one) then leaves the curve, as Maya's chain
       * flips when the forward axis does not match the joints' orientation */
      sinew_vec3_t f = v_norm(row3(&w[k], sg->forward_axis / 2));
      b = sg->forward_axis % 2 ? v_mul(f, -1) : f;
    }
    if (v_len(d) > 0 && v_len(b) > 0) {
      sinew_vec3_t axis = v_cross(b, d);
      double ang = atan2(v_len(axis), v_dot(b, d));
      if (v_len(axis) <= 1e-12 * v_len(b) * v_len(d)) axis = any_perpendicular(b);
      if (ang != 0) turn_about(&w[k], qaxis(v_norm(axis), ang), pk);
    }
    sinew_vec3_t dn = v_norm(d);
    double tk = m > 1 ? (double)k / (m - 1) : 1;
    double twist = sg->roll + sg->twist * twist_weight(sg->twist_type, tk);
    sinew_vec3_t up;
    if (sg->advanced && v_len(dn) > 0 && up_vector(sg, pk, tk, &up)) {
      /* turn about the bone so the chosen axis faces the up vector (across the bone) */
      int axis_row = sg->up_axis >= 6 ? 0 : sg->up_axis >= 3 ? 2 : 1, mode = sg->up_axis % 3;
      sinew_vec3_t a = v_norm(row3(&w[k], axis_row));
      if (mode == 1) a = v_mul(a, -1);
      sinew_vec3_t ap = v_sub(a, v_mul(dn, v_dot(a, dn))), upp = v_sub(up, v_mul(dn, v_dot(up, dn)));
      if (v_len(ap) > 1e-12 && v_len(upp) > 1e-12) {
        if (mode == 2 && v_dot(ap, upp) < 0) ap = v_mul(ap, -1);
        double phi = atan2(v_dot(v_cross(ap, upp), dn), v_dot(ap, upp));
        turn_about(&w[k], qaxis(dn, phi + twist), pk);
      }
    } else if (v_len(dn) > 0 && twist - prev_twist != 0) {
      /* the child inherits this joint's twist: each joint adds what it has beyond its parent's */
      turn_about(&w[k], qaxis(dn, twist - prev_twist), pk);
    }
    prev_twist = twist;
    out[k] = local_rotation(&j[k], &w[k], &above);
  }
}

/* ikSplineSolver handles: reads every chain joint, solves once and sets every rotating joint's
 * sinewIkRotate element. */
static int spline_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t h = sinew_compute_node(ctx);
  sinew_plug_t arr = sinew_plug_make(h, ik.sikj, 0, NULL), out = sinew_plug_make(h, ik.sikR, 0, NULL);
  size_t nj = sinew_plug_indices(g, &arr, NULL, 0), no = sinew_plug_indices(g, &out, NULL, 0);
  if (nj > SPLINE_MAX_JOINTS) nj = SPLINE_MAX_JOINTS;
  sinew_data_t *holder;
  size_t bytes = (nj + no + 1) * sizeof(int32_t) + nj * (sizeof(ik_joint) + sizeof(sinew_mat4_t) + sizeof(sinew_vec3_t));
  char *mem = sinew__scratch(bytes + 64, &holder);
  if (!mem) return SINEW_ENOMEM;
  ik_joint *j = (ik_joint *)mem;
  sinew_mat4_t *w = (sinew_mat4_t *)(j + nj);
  sinew_vec3_t *res = (sinew_vec3_t *)(w + nj);
  int32_t *idx = (int32_t *)(res + nj), *oidx = idx + nj;
  nj = sinew_plug_indices(g, &arr, idx, nj);
  no = sinew_plug_indices(g, &out, oidx, no);
  int m = (int)nj - 1;
  bool ok = nj >= 2;
  for (size_t k = 0; ok && k < nj; k++) ok = idx[k] == (int32_t)k;
  for (int k = 0; ok && k <= m; k++) read_joint(g, &arr, k, &j[k]);
  spline_goal sg = {0};
  sinew_vec3_t root_t = ok ? j[0].in.t : (sinew_vec3_t){0, 0, 0};
  sinew_data_t *curve = NULL;
  sinew_plug_t p = sinew_plug_make(h, ik.ic, 0, NULL);
  if (ok) sinew_get_data(g, &p, &curve);
  ok = ok && curve && !sinew_curve_get(curve, &sg.curve);
  double blend = 1;
  p = sinew_plug_make(h, ik.ikb, 0, NULL);
  sinew_get_double(g, &p, &blend);
  if (ok && blend > 0) {
    double v = 0;
    p = sinew_plug_make(h, ik.twi, 0, NULL), sinew_get_double(g, &p, &sg.twist);
    p = sinew_plug_make(h, ik.rol, 0, NULL), sinew_get_double(g, &p, &sg.roll);
    p = sinew_plug_make(h, ik.twt, 0, NULL), v = 0, sinew_get_double(g, &p, &v), sg.twist_type = v >= 0 && v <= 3 ? (int)v : 0;
    p = sinew_plug_make(h, ik.dtce, 0, NULL), v = 0, sinew_get_double(g, &p, &v), sg.advanced = v != 0;
    p = sinew_plug_make(h, ik.dwut, 0, NULL), v = 0, sinew_get_double(g, &p, &v), sg.up_type = v >= 0 && v <= 7 ? (int)v : 7;
    p = sinew_plug_make(h, ik.dwua, 0, NULL), v = 0, sinew_get_double(g, &p, &v), sg.up_axis = v >= 0 && v <= 8 ? (int)v : 0;
    p = sinew_plug_make(h, ik.dfa, 0, NULL), v = 0, sinew_get_double(g, &p, &v), sg.forward_axis = v >= 0 && v <= 5 ? (int)v : 0;
    p = sinew_plug_make(h, ik.roc, 0, NULL), v = 0, sinew_get_double(g, &p, &v), sg.root_on_curve = v != 0;
    p = sinew_plug_make(h, ik.off, 0, NULL), sinew_get_double(g, &p, &sg.offset);
    p = sinew_plug_make(h, ik.dwum, 0, NULL);
    if (sinew_get_matrix(g, &p, &sg.up_start)) sinew_mat4_identity(&sg.up_start);
    p = sinew_plug_make(h, ik.dwue, 0, NULL);
    if (sinew_get_matrix(g, &p, &sg.up_end)) sinew_mat4_identity(&sg.up_end);
    p = sinew_plug_make(h, ik.dwu, 0, NULL), sg.up_vec = get3(g, &p);
    p = sinew_plug_make(h, ik.dwve, 0, NULL), sg.up_vec_end = get3(g, &p);
    sinew_mat4_t parent;
    p = sinew_plug_make(h, ik.sikpm, 0, NULL);
    if (sinew_get_matrix(g, &p, &parent)) sinew_mat4_identity(&parent);
    spline_solve(j, m, &parent, &sg, w, res, &root_t);
    if (blend < 1) {
      root_t = v_add(v_mul(j[0].in.t, 1 - blend), v_mul(root_t, blend));
      for (int k = 0; k < m; k++) {
        sinew_quat_t qa, qb, q;
        sinew_quat_from_euler(j[k].in.r, j[k].in.order, &qa);
        sinew_quat_from_euler(res[k], j[k].in.order, &qb);
        sinew_quat_slerp(qa, qb, blend, &q);
        sinew_quat_to_euler(q, j[k].in.order, &res[k]);
      }
    }
  } else {
    for (int k = 0; k < m && nj >= 2; k++) res[k] = j[k].in.r;
  }
  sinew_data_unref(curve);
  int rc = SINEW_OK;
  bool done = false;
  for (size_t i = 0; i < no && !rc; i++) {
    sinew_plug_t e;
    sinew_plug_element(g, &out, oidx[i], &e);
    done |= plug->idx[0] == oidx[i];
    if (nj < 2 || oidx[i] < 0 || oidx[i] >= m) { /* no chain to solve: the element keeps its value */
      rc = sinew_compute_set_clean(ctx, &e);
      continue;
    }
    double v[3] = {res[oidx[i]].x, res[oidx[i]].y, res[oidx[i]].z};
    rc = sinew_compute_set_doubles(ctx, &e, v, 3);
  }
  if (!rc) { /* the start joint's translate: the FK one unless rootOnCurve placed it */
    sinew_plug_t t = sinew_plug_make(h, ik.sikT, 0, NULL);
    double v[3] = {root_t.x, root_t.y, root_t.z};
    rc = sinew_compute_set_doubles(ctx, &t, v, 3);
    done |= plug->attr >= ik.sikT && plug->attr <= ik.sikT + 3;
  }
  if (!rc && !done) rc = sinew_compute_set_clean(ctx, plug);
  sinew_data_unref(holder);
  return rc;
}

static int handle_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  bool root = plug->attr >= ik.sikT && plug->attr <= ik.sikT + 3;
  if (!root && (plug->attr < ik.sikR || plug->attr > ik.sikR + 3)) return SINEW_EUNKNOWN_PLUG;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t h = sinew_compute_node(ctx);
  if (solver_kind(g, h) == IK_SPLINE) return spline_compute(ctx, plug);
  if (root) { /* only the spline solver places the start joint: the FK translate passes */
    sinew_plug_t arr = sinew_plug_make(h, ik.sikj, 0, NULL), e, t = sinew_plug_make(h, ik.sikT, 0, NULL);
    sinew_vec3_t v = {0, 0, 0};
    if (sinew_plug_element(g, &arr, 0, &e) == SINEW_OK) {
      sinew_plug_t ft = child_of(g, &e, ik.sikt);
      v = get3(g, &ft);
    }
    return sinew_compute_set_doubles(ctx, &t, (const double[]){v.x, v.y, v.z}, 3);
  }
  sinew_plug_t arr = sinew_plug_make(h, ik.sikj, 0, NULL);
  int32_t idx[IK_MAX_JOINTS + 1];
  size_t nj = sinew_plug_indices(g, &arr, idx, IK_MAX_JOINTS + 1);
  ik_joint j[IK_MAX_JOINTS];
  int m = (int)nj - 1;
  bool ok = nj >= 2 && nj <= IK_MAX_JOINTS;
  for (size_t k = 0; ok && k < nj; k++) ok = idx[k] == (int32_t)k;
  for (int k = 0; ok && k <= m; k++) read_joint(g, &arr, k, &j[k]);
  sinew_vec3_t res[IK_MAX_BONES];
  ik_goal goal = {.kind = ok ? solver_kind(g, h) : IK_NONE};
  if (goal.kind == IK_SPLINE) goal.kind = IK_NONE;
  double blend = 1;
  sinew_plug_t p = sinew_plug_make(h, ik.ikb, 0, NULL);
  sinew_get_double(g, &p, &blend);
  if (goal.kind != IK_NONE && blend > 0) {
    sinew_mat4_t parent, hw, above;
    p = sinew_plug_make(h, ik.sikpm, 0, NULL);
    if (sinew_get_matrix(g, &p, &parent)) sinew_mat4_identity(&parent);
    p = sinew_plug_make(h, sinew__dag.world_matrix, 1, (int32_t[]){0});
    if (sinew_get_matrix(g, &p, &hw)) sinew_mat4_identity(&hw);
    p = sinew_plug_make(h, ik.rp, 0, NULL);
    sinew_mat4_transform_point(get3(g, &p), &hw, &goal.h);
    /* the pole vector is in the handle's parent space: offsetParentMatrix * parentMatrix */
    sinew_mat4_t pm, opm;
    p = sinew_plug_make(h, sinew__dag.parent_matrix, 1, (int32_t[]){0});
    if (sinew_get_matrix(g, &p, &pm)) sinew_mat4_identity(&pm);
    p = sinew_plug_make(h, sinew__dag.offset_parent_matrix, 0, NULL);
    if (sinew_get_matrix(g, &p, &opm)) sinew_mat4_identity(&opm);
    sinew_mat4_mul(&opm, &pm, &above);
    p = sinew_plug_make(h, ik.pv, 0, NULL);
    sinew_mat4_transform_vector(get3(g, &p), &above, &goal.pv);
    p = sinew_plug_make(h, ik.twi, 0, NULL);
    sinew_get_double(g, &p, &goal.twist);
    sinew_mat4_t rest;
    if (!sinew_mat4_orthonormalize_rows(&hw, &goal.orient, &rest)) sinew_mat4_identity(&goal.orient);
    solve(j, m, &parent, &goal, res);
    if (blend < 1)
      for (int k = 0; k < m; k++) {
        /* per-joint quaternion slerp from the FK rotation to the IK one */
        sinew_quat_t qa, qb, q;
        sinew_quat_from_euler(j[k].in.r, j[k].in.order, &qa);
        sinew_quat_from_euler(res[k], j[k].in.order, &qb);
        sinew_quat_slerp(qa, qb, blend, &q);
        sinew_quat_to_euler(q, j[k].in.order, &res[k]);
      }
  } else {
    for (int k = 0; k < m && ok; k++) res[k] = j[k].in.r;
  }
  /* every rotating joint's element (those the wiring made) from this one solve */
  sinew_plug_t out = sinew_plug_make(h, ik.sikR, 0, NULL);
  int32_t oidx[IK_MAX_JOINTS];
  size_t no = sinew_plug_indices(g, &out, oidx, IK_MAX_JOINTS);
  bool done = false;
  for (size_t i = 0; i < no && i < IK_MAX_JOINTS; i++) {
    sinew_plug_t e;
    sinew_plug_element(g, &out, oidx[i], &e);
    if (!ok || oidx[i] >= m) { /* no chain to solve: the element keeps its value */
      int rc = sinew_compute_set_clean(ctx, &e);
      if (rc) return rc;
      done |= plug->idx[0] == oidx[i];
      continue;
    }
    double v[3] = {res[oidx[i]].x, res[oidx[i]].y, res[oidx[i]].z};
    int rc = sinew_compute_set_doubles(ctx, &e, v, 3);
    if (rc) return rc;
    done |= plug->idx[0] == oidx[i];
  }
  if (!done) return sinew_compute_set_clean(ctx, plug);
  return SINEW_OK;
}

/* ---- the wiring ------------------------------------------------------------------------------- */

static const sinew_node_type_t *joint_type(sinew_graph_t *g) { return sinew_find_node_type(g, "joint"); }

static bool is_joint(sinew_graph_t *g, sinew_node_t n) {
  return sinew_node_valid(g, n) && sinew_node_type_is_a(sinew_node_type(g, n), "joint");
}

static int fail(sinew_graph_t *g, int rc, sinew_node_t h, const char *why) {
  return sinew_graph_fail(g, rc, "ikHandle", "%s: %s", sinew_node_name(g, h), why);
}

int sinew_ik_chain(sinew_graph_t *g, sinew_node_t h, sinew_node_t *out, size_t cap, size_t *count) {
  if (!g || !count) return SINEW_EINVAL;
  if (!sinew_node_valid(g, h)) return SINEW_ESTALE;
  if (!sinew_node_type_is_a(sinew_node_type(g, h), "ikHandle")) return fail(g, SINEW_ETYPE, h, "not an ikHandle");
  sinew_plug_t p = sinew_plug_make(h, ik.hsj, 0, NULL), src;
  if (!sinew_plug_source(g, &p, &src) || !is_joint(g, src.node))
    return fail(g, SINEW_ENOTFOUND, h, "no start joint (startJoint is not connected from a joint)");
  sinew_node_t start = src.node;
  p = sinew_plug_make(h, ik.hee, 0, NULL);
  if (!sinew_plug_source(g, &p, &src) || !sinew_node_type_is_a(sinew_node_type(g, src.node), "ikEffector"))
    return fail(g, SINEW_ENOTFOUND, h, "no end effector (endEffector is not connected from an ikEffector)");
  sinew_node_t eff = src.node;
  /* joints from the effector's parent up to the start joint */
  sinew_node_t up[256];
  size_t n = 0;
  for (sinew_node_t x = sinew_node_parent(g, eff); ; x = sinew_node_parent(g, x)) {
    if (!is_joint(g, x) || n == 256) return fail(g, SINEW_EINVAL, h, "the end effector is not below the start joint");
    up[n++] = x;
    if (x.index == start.index && x.gen == start.gen) break;
  }
  /* the end joint: the one whose translate feeds the effector's, else the only joint child */
  sinew_node_t end = {0, 0};
  uint32_t tx = sinew_node_type_attr(joint_type(g), "tx");
  p = sinew_plug_make(eff, sinew__dag.translate, 0, NULL);
  if (sinew_plug_source(g, &p, &src) && is_joint(g, src.node)) end = src.node;
  p = sinew_plug_make(eff, tx, 0, NULL);
  if (!end.gen && sinew_plug_source(g, &p, &src) && is_joint(g, src.node)) end = src.node;
  if (!end.gen) {
    sinew_node_t kids[64];
    size_t nk = sinew_node_children(g, up[0], kids, 64), nj = 0;
    for (size_t i = 0; i < nk && i < 64; i++)
      if (is_joint(g, kids[i])) end = kids[i], nj++;
    if (nj != 1) end = (sinew_node_t){0, 0};
  }
  if (!end.gen || sinew_node_parent(g, end).index != up[0].index || sinew_node_parent(g, end).gen != up[0].gen)
    return fail(g, SINEW_EINVAL, h, "no end joint (a joint beside the end effector feeding its translate)");
  *count = n + 1;
  for (size_t i = 0; i < n && i < cap; i++) out[i] = up[n - 1 - i];
  if (n < cap) out[n] = end;
  return SINEW_OK;
}

bool sinew_ik_wired(sinew_graph_t *g, sinew_node_t h) {
  if (!g || !sinew_node_valid(g, h) || !sinew_node_type_is_a(sinew_node_type(g, h), "ikHandle")) return false;
  sinew_plug_t p = sinew_plug_make(h, ik.sikpm, 0, NULL);
  return sinew_plug_source(g, &p, NULL);
}

/* Neither the compound nor a child connected or locked. */
static bool vec3_free(sinew_graph_t *g, sinew_node_t n, uint32_t attr) {
  sinew_plug_t p = sinew_plug_make(n, attr, 0, NULL);
  bool busy = sinew_plug_source(g, &p, NULL) || sinew_plug_locked(g, &p);
  for (uint32_t c = 0; c < 3 && !busy; c++) {
    sinew_plug_t pc = child_of(g, &p, attr + 1 + c);
    busy = sinew_plug_source(g, &pc, NULL) || sinew_plug_locked(g, &pc);
  }
  return !busy;
}

/* Stores the value of n.from (a double3) into n.to's children. */
static int copy3(sinew_graph_t *g, sinew_node_t n, uint32_t from, uint32_t to) {
  sinew_plug_t f = sinew_plug_make(n, from, 0, NULL), t = sinew_plug_make(n, to, 0, NULL);
  sinew_vec3_t v = get3(g, &f);
  const double vv[3] = {v.x, v.y, v.z};
  int rc = SINEW_OK;
  for (uint32_t c = 0; c < 3 && !rc; c++) {
    sinew_plug_t tc = child_of(g, &t, to + 1 + c);
    rc = sinew_set_double(g, &tc, vv[c]);
  }
  return rc;
}

/* A spline handle also takes its start joint's translate when it is free (rootOnCurve places the
 * joint on the curve): the FK translate moves to sinewFkTranslate, which feeds the handle, and
 * the handle's sinewIkRootTranslate feeds translate. */
static int wire(sinew_graph_t *g, sinew_node_t h, const sinew_node_t *jn, size_t nj, bool spline) {
  int rc = SINEW_OK;
  bool root = spline && vec3_free(g, jn[0], sinew__dag.translate);
  if (root) rc = copy3(g, jn[0], sinew__dag.translate, ik.sfkt);
  sinew_plug_t arr = sinew_plug_make(h, ik.sikj, 0, NULL);
  const uint32_t dst_attrs[] = {ik.sikt, ik.sikf, ik.siks, ik.sika, ik.siko, ik.sikp, ik.siki, ik.sikr, ik.sikc, ik.sikm};
  const uint32_t src_attrs[] = {sinew__dag.translate, ik.sfkr, sinew__dag.scale, sinew__dag.rotate_axis,
                                sinew__dag.joint_orient, ik.pa, sinew__dag.inverse_scale, sinew__dag.rotate_order,
                                sinew__dag.ssc, sinew__dag.offset_parent_matrix};
  for (size_t k = 0; k < nj && !rc; k++) {
    sinew_plug_t e;
    if ((rc = sinew_plug_element(g, &arr, (int32_t)k, &e))) break;
    bool last = k + 1 == nj;
    if (!last) {
      /* the FK rotation moves to sinewFkRotate before the handle takes the rotate over */
      sinew_plug_t r = sinew_plug_make(jn[k], sinew__dag.rotate, 0, NULL);
      sinew_plug_t f = sinew_plug_make(jn[k], ik.sfkr, 0, NULL);
      sinew_vec3_t v = get3(g, &r);
      const double vv[3] = {v.x, v.y, v.z};
      for (uint32_t c = 0; c < 3 && !rc; c++) {
        sinew_plug_t fc = child_of(g, &f, ik.sfkr + 1 + c);
        rc = sinew_set_double(g, &fc, vv[c]);
      }
    }
    for (size_t a = 0; a < sizeof dst_attrs / sizeof *dst_attrs && !rc; a++) {
      if (last && dst_attrs[a] != ik.sikt && dst_attrs[a] != ik.sikm) continue;
      uint32_t sa = root && k == 0 && dst_attrs[a] == ik.sikt ? ik.sfkt : src_attrs[a];
      sinew_plug_t s = sinew_plug_make(jn[k], sa, 0, NULL), d = child_of(g, &e, dst_attrs[a]);
      rc = sinew__connect_replacing(g, &s, &d);
    }
  }
  if (!rc) {
    sinew_plug_t s = sinew_plug_make(jn[0], sinew__dag.parent_matrix, 1, (int32_t[]){0});
    sinew_plug_t d = sinew_plug_make(h, ik.sikpm, 0, NULL);
    rc = sinew__connect_replacing(g, &s, &d);
  }
  sinew_plug_t out = sinew_plug_make(h, ik.sikR, 0, NULL);
  for (size_t k = 0; k + 1 < nj && !rc; k++) {
    /* rotate's own value is stored first (it is then "set"): a copy of the joint (duplicate)
     * keeps the solved rotation that comes through the connection as its value */
    sinew_plug_t s, d = sinew_plug_make(jn[k], sinew__dag.rotate, 0, NULL);
    sinew_vec3_t v = get3(g, &d);
    const double vv[3] = {v.x, v.y, v.z};
    for (uint32_t c = 0; c < 3 && !rc; c++) {
      sinew_plug_t rc3 = child_of(g, &d, sinew__dag.rotate + 1 + c);
      rc = sinew_set_double(g, &rc3, vv[c]);
    }
    if (!rc) rc = sinew_plug_element(g, &out, (int32_t)k, &s);
    if (!rc) rc = sinew__connect_replacing(g, &s, &d);
  }
  if (root && !rc) { /* translate's value stored first, as rotate's */
    sinew_plug_t s = sinew_plug_make(h, ik.sikT, 0, NULL), d = sinew_plug_make(jn[0], sinew__dag.translate, 0, NULL);
    rc = copy3(g, jn[0], sinew__dag.translate, sinew__dag.translate);
    if (!rc) rc = sinew__connect_replacing(g, &s, &d);
  }
  return rc;
}

int sinew_ik_wire(sinew_graph_t *g, sinew_node_t h) {
  sinew_node_t jn[257];
  size_t nj = 0;
  int rc = sinew_ik_chain(g, h, jn, 257, &nj);
  if (rc) return rc;
  if (sinew_ik_wired(g, h)) return SINEW_OK;
  sinew_plug_t p = sinew_plug_make(h, ik.hsv, 0, NULL), src;
  if (!sinew_plug_source(g, &p, &src)) return fail(g, SINEW_ENOTFOUND, h, "no solver (ikSolver is not connected)");
  const sinew_node_type_t *st = sinew_node_type(g, src.node);
  bool spline = sinew_node_type_is_a(st, "ikSplineSolver");
  if (!spline && !sinew_node_type_is_a(st, "ikSCsolver")) {
    char why[160];
    snprintf(why, sizeof why, "the %s solver is not supported (ikRPsolver, ikSCsolver and ikSplineSolver are)",
             sinew_node_type_name(st));
    return fail(g, SINEW_EUNSUPPORTED, h, why);
  }
  if (!spline && nj - 1 > IK_MAX_BONES) {
    char why[160];
    snprintf(why, sizeof why, "a chain of %zu bones; the RP and SC solvers here solve one or two", nj - 1);
    return fail(g, SINEW_EUNSUPPORTED, h, why);
  }
  if (nj > 257) return fail(g, SINEW_EUNSUPPORTED, h, "a spline IK chain of more than 256 bones");
  for (size_t k = 0; k + 1 < nj; k++) {
    sinew_plug_t r = sinew_plug_make(jn[k], sinew__dag.rotate, 0, NULL);
    char why[300];
    if (sinew_plug_source(g, &r, &src)) {
      snprintf(why, sizeof why, "%s.rotate is driven by %s; an IK joint's rotate belongs to its handle",
               sinew_node_name(g, jn[k]), sinew_node_name(g, src.node));
      return fail(g, SINEW_ECONNECTED, h, why);
    }
    bool driven = false;
    for (uint32_t c = 0; c < 3; c++) {
      sinew_plug_t rc3 = child_of(g, &r, sinew__dag.rotate + 1 + c);
      driven |= sinew_plug_source(g, &rc3, NULL) || sinew_plug_locked(g, &rc3);
    }
    if (driven || sinew_plug_locked(g, &r)) {
      snprintf(why, sizeof why, "%s.rotate is connected or locked; an IK joint's rotate belongs to its handle",
               sinew_node_name(g, jn[k]));
      return fail(g, SINEW_ECONNECTED, h, why);
    }
  }
  if ((rc = sinew_graph_begin(g))) return rc;
  return sinew_graph_end(g, wire(g, h, jn, nj, spline));
}

/* ---- registration ----------------------------------------------------------------------------- */

int sinew__register_ik_types(sinew_graph_t *g) {
  if (sinew_find_node_type(g, "ikHandle")) return SINEW_OK;
  sinew_affects_t aff[96];
  size_t na = 0;
  for (size_t i = 0; i < sizeof handle_inputs / sizeof *handle_inputs; i++) {
    aff[na++] = (sinew_affects_t){handle_inputs[i], "sinewIkRotate"};
    aff[na++] = (sinew_affects_t){handle_inputs[i], "sinewIkRootTranslate"};
  }
  const sinew_node_type_t *ht, *jt = joint_type(g), *xt = sinew_find_node_type(g, "transform");
  sinew_node_type_desc_t d = {.name = "ikHandle", .parent_type = "transform", .attrs = handle_attrs,
                              .attr_count = sizeof handle_attrs / sizeof *handle_attrs, .affects = aff,
                              .affects_count = na, .compute = handle_compute};
  int rc = sinew_register_node_type(g, &d, &ht);
  if (rc) return rc;
  sinew_node_type_desc_t e = {.name = "ikEffector", .parent_type = "transform", .attrs = effector_attrs,
                              .attr_count = sizeof effector_attrs / sizeof *effector_attrs};
  if ((rc = sinew_register_node_type(g, &e, NULL))) return rc;
  sinew_node_type_desc_t s = {.name = "ikSolver", .flags = SINEW_NODE_TYPE_ABSTRACT, .attrs = solver_attrs,
                              .attr_count = sizeof solver_attrs / sizeof *solver_attrs};
  if ((rc = sinew_register_node_type(g, &s, NULL))) return rc;
  sinew_node_type_desc_t sc = {.name = "ikSCsolver", .parent_type = "ikSolver"};
  if ((rc = sinew_register_node_type(g, &sc, NULL))) return rc;
  sinew_node_type_desc_t rp = {.name = "ikRPsolver", .parent_type = "ikSCsolver"};
  if ((rc = sinew_register_node_type(g, &rp, NULL))) return rc;
  sinew_node_type_desc_t spl = {.name = "ikSplineSolver", .parent_type = "ikSolver"};
  if ((rc = sinew_register_node_type(g, &spl, NULL))) return rc;
  sinew_node_type_desc_t sy = {.name = "ikSystem", .attrs = system_attrs,
                               .attr_count = sizeof system_attrs / sizeof *system_attrs};
  if ((rc = sinew_register_node_type(g, &sy, NULL))) return rc;
  if (!jt || !xt) return SINEW_EINVAL;
  ik.hsj = sinew_node_type_attr(ht, "hsj"), ik.hee = sinew_node_type_attr(ht, "hee");
  ik.hsv = sinew_node_type_attr(ht, "hsv"), ik.pv = sinew_node_type_attr(ht, "pv");
  ik.twi = sinew_node_type_attr(ht, "twi"), ik.ikb = sinew_node_type_attr(ht, "ikb");
  ik.sikj = sinew_node_type_attr(ht, "sikj"), ik.sikt = sinew_node_type_attr(ht, "sikt");
  ik.sikf = sinew_node_type_attr(ht, "sikf"), ik.siks = sinew_node_type_attr(ht, "siks");
  ik.sika = sinew_node_type_attr(ht, "sika"), ik.siko = sinew_node_type_attr(ht, "siko");
  ik.sikp = sinew_node_type_attr(ht, "sikp"), ik.siki = sinew_node_type_attr(ht, "siki");
  ik.sikr = sinew_node_type_attr(ht, "sikr"), ik.sikc = sinew_node_type_attr(ht, "sikc");
  ik.sikm = sinew_node_type_attr(ht, "sikm"), ik.sikpm = sinew_node_type_attr(ht, "sikpm");
  ik.sikR = sinew_node_type_attr(ht, "sikR"), ik.rp = sinew_node_type_attr(xt, "rp");
  ik.sfkr = sinew_node_type_attr(jt, "sfkr"), ik.pa = sinew_node_type_attr(jt, "pa");
  const sinew_node_type_t *et = sinew_find_node_type(g, "ikEffector");
  ik.hp = sinew_node_type_attr(et, "hp");
  ik.ic = sinew_node_type_attr(ht, "ic"), ik.rol = sinew_node_type_attr(ht, "rol");
  ik.twt = sinew_node_type_attr(ht, "twt"), ik.dtce = sinew_node_type_attr(ht, "dtce");
  ik.dwut = sinew_node_type_attr(ht, "dwut"), ik.dwua = sinew_node_type_attr(ht, "dwua");
  ik.dfa = sinew_node_type_attr(ht, "dfa");
  ik.off = sinew_node_type_attr(ht, "off"), ik.roc = sinew_node_type_attr(ht, "roc");
  ik.sikT = sinew_node_type_attr(ht, "sikT"), ik.sfkt = sinew_node_type_attr(jt, "sfkt");
  ik.dwum = sinew_node_type_attr(ht, "dwum"), ik.dwue = sinew_node_type_attr(ht, "dwue");
  ik.dwu = sinew_node_type_attr(ht, "dwu"), ik.dwve = sinew_node_type_attr(ht, "dwve");
  return SINEW_OK;
}
