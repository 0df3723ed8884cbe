/* nodes/constraint.c: Maya's constraint nodes (spec maya-reference-rigging.md section 3):
 *
 *   constraint            abstract base (a transform, so a constraint is a DAG child of the
 *                         object it drives): enableRestPosition, lockOutput
 *   pointConstraint       ct = (sum w_i P_i) * cpim - crp - crt + o
 *   orientConstraint      cr = euler(Rot(o) * blend(Q_i) -> the object's parent space, cro)
 *   parentConstraint      ct, cr from C_i = Off_i * L_i * tpm_i (the object as a child of each target)
 *   aimConstraint         cr: aimVector to the targets' weighted pivot, upVector to the world up
 *   scaleConstraint       cs = weighted geometric mean of the targets' world scales, in the
 *                         object's parent space, times o
 *   poleVectorConstraint  ct = (P - (crp * ps)) * cpim, a direction for an ikHandle's poleVector
 *
 * P_i = (tt + trp + trt) * tpm is target i's world rotate pivot; w_i its weight (tg[i].tw)
 * divided by the sum of the weights (a negative weight counts as 0). With every weight 0 the
 * outputs are the rest values (rst, rsrr) when enableRestPosition is on, and otherwise keep the
 * last values they had. Rotations leave the world through the object's parent inverse matrix
 * (cpim), its inverseScale (is, joints) and jointOrient (cjo); see docs/rigging.md. */
#include <math.h>
#include <string.h>

#include "nodes/nodes_internal.h"

#define COUNT(a) (sizeof(a) / sizeof *(a))

/* ---- kinds and attribute ids ---------------------------------------------------------------- */

typedef enum ckind { K_POINT, K_ORIENT, K_PARENT, K_AIM, K_SCALE, K_POLE, K_MAX } ckind;

static const char *const kind_names[K_MAX] = {"pointConstraint", "orientConstraint", "parentConstraint",
                                              "aimConstraint", "scaleConstraint", "poleVectorConstraint"};

/* Ids of one constraint type's attributes; UINT32_MAX where the type has none. The same in
 * every graph (registered from the same descriptors in the same order). */
typedef struct cids {
  uint32_t tg, tt, tr, ts, trp, trt, tro, tjo, tsc, tis, tpm, tw, tot, tor;
  uint32_t cpim, crp, crt, cro, cjo, is, ct, cr, cs, o, erp, rst, rsrr, lr, interp;
  uint32_t a, u, wu, wum, wut, ps, csc;
} cids;
static cids K[K_MAX];

/* ---- descriptors (built at registration: each type takes the pieces it has) ----------------- */

enum {
  P_TT = 1u << 0, P_TR = 1u << 1, P_TS = 1u << 2, P_TRP = 1u << 3, P_TRO = 1u << 4, P_TJO = 1u << 5,
  P_TSC = 1u << 6, P_OFF = 1u << 7, /* targetOffsetTranslate/Rotate */
  P_CRP = 1u << 8, P_CRO = 1u << 9, P_CJO = 1u << 10, P_IS = 1u << 11, P_CT = 1u << 12, P_CR = 1u << 13,
  P_CS = 1u << 14, P_REST_T = 1u << 15, P_REST_R = 1u << 16, P_INTERP = 1u << 17, P_AIM = 1u << 18,
  P_PS = 1u << 19, P_CSC = 1u << 20, P_CT_IN = 1u << 21
};

typedef struct desc_list {
  sinew_attr_desc_t d[160];
  size_t n;
} desc_list;

#define F_IN SINEW_ATTR_INPUT
#define F_OUT SINEW_ATTR_OUTPUT
#define F_KEY (SINEW_ATTR_INPUT | SINEW_ATTR_KEYABLE)

static void add(desc_list *l, sinew_attr_desc_t d) {
  if (!d.flags) d.flags = F_IN;
  l->d[l->n++] = d;
}

/* A compound of three numbers: long/short names of the parent, children = parent + X/Y/Z and
 * short + x/y/z unless given. */
static void add3(desc_list *l, const char *lname, const char *sname, const char *const child[6],
                 sinew_attr_type_t type, double dflt, uint32_t flags, const char *parent) {
  add(l, (sinew_attr_desc_t){.name = lname, .short_name = sname, .type = SINEW_ATTR_COMPOUND, .flags = flags,
                             .parent = parent});
  for (int i = 0; i < 3; i++)
    add(l, (sinew_attr_desc_t){.name = child[2 * i], .short_name = child[2 * i + 1], .type = type,
                               .default_value = dflt, .flags = flags, .parent = lname});
}

#define NAMES(...) ((const char *const[6]){__VA_ARGS__})

static void build(desc_list *l, uint32_t p) {
  l->n = 0;
  add(l, (sinew_attr_desc_t){.name = "target", .short_name = "tg", .type = SINEW_ATTR_COMPOUND,
                             .flags = F_IN | SINEW_ATTR_ARRAY});
  if (p & P_TT)
    add3(l, "targetTranslate", "tt", NAMES("targetTranslateX", "ttx", "targetTranslateY", "tty", "targetTranslateZ", "ttz"),
         SINEW_ATTR_DISTANCE, 0, F_IN, "target");
  if (p & P_TR)
    add3(l, "targetRotate", "tr", NAMES("targetRotateX", "trx", "targetRotateY", "try", "targetRotateZ", "trz"),
         SINEW_ATTR_ANGLE, 0, F_IN, "target");
  if (p & P_TS)
    add3(l, "targetScale", "ts", NAMES("targetScaleX", "tsx", "targetScaleY", "tsy", "targetScaleZ", "tsz"),
         SINEW_ATTR_DOUBLE, 1, F_IN, "target");
  if (p & P_TRP) {
    add3(l, "targetRotatePivot", "trp",
         NAMES("targetRotatePivotX", "trpx", "targetRotatePivotY", "trpy", "targetRotatePivotZ", "trpz"),
         SINEW_ATTR_DISTANCE, 0, F_IN, "target");
    add3(l, "targetRotateTranslate", "trt",
         NAMES("targetRotateTranslateX", "trtx", "targetRotateTranslateY", "trty", "targetRotateTranslateZ", "trtz"),
         SINEW_ATTR_DISTANCE, 0, F_IN, "target");
  }
  if (p & P_TRO)
    add(l, (sinew_attr_desc_t){.name = "targetRotateOrder", .short_name = "tro", .type = SINEW_ATTR_ENUM,
                               .parent = "target", .enum_fields = "xyz:yzx:zxy:xzy:yxz:zyx"});
  if (p & P_TJO)
    add3(l, "targetJointOrient", "tjo",
         NAMES("targetJointOrientX", "tjox", "targetJointOrientY", "tjoy", "targetJointOrientZ", "tjoz"),
         SINEW_ATTR_ANGLE, 0, F_IN, "target");
  if (p & P_TSC) {
    add(l, (sinew_attr_desc_t){.name = "targetScaleCompensate", .short_name = "tsc", .type = SINEW_ATTR_BOOL,
                               .parent = "target", .default_value = 1});
    add3(l, "targetInverseScale", "tis",
         NAMES("targetInverseScaleX", "tisx", "targetInverseScaleY", "tisy", "targetInverseScaleZ", "tisz"),
         SINEW_ATTR_DOUBLE, 1, F_IN, "target");
  }
  add(l, (sinew_attr_desc_t){.name = "targetParentMatrix", .short_name = "tpm", .type = SINEW_ATTR_MATRIX,
                             .parent = "target"});
  add(l, (sinew_attr_desc_t){.name = "targetWeight", .short_name = "tw", .type = SINEW_ATTR_DOUBLE, .parent = "target",
                             .default_value = 1, .flags = F_KEY});
  if (p & P_OFF) {
    add3(l, "targetOffsetTranslate", "tot",
         NAMES("targetOffsetTranslateX", "totx", "targetOffsetTranslateY", "toty", "targetOffsetTranslateZ", "totz"),
         SINEW_ATTR_DISTANCE, 0, F_IN, "target");
    add3(l, "targetOffsetRotate", "tor",
         NAMES("targetOffsetRotateX", "torx", "targetOffsetRotateY", "tory", "targetOffsetRotateZ", "torz"),
         SINEW_ATTR_ANGLE, 0, F_IN, "target");
  }
  add(l, (sinew_attr_desc_t){.name = "constraintParentInverseMatrix", .short_name = "cpim",
                             .type = SINEW_ATTR_MATRIX});
  if (p & P_CRP) {
    add3(l, "constraintRotatePivot", "crp",
         NAMES("constraintRotatePivotX", "crpx", "constraintRotatePivotY", "crpy", "constraintRotatePivotZ", "crpz"),
         SINEW_ATTR_DISTANCE, 0, F_IN, NULL);
    if (!(p & P_PS))
      add3(l, "constraintRotateTranslate", "crt",
           NAMES("constraintRotateTranslateX", "crtx", "constraintRotateTranslateY", "crty",
                 "constraintRotateTranslateZ", "crtz"),
           SINEW_ATTR_DISTANCE, 0, F_IN, NULL);
  }
  if (p & P_CRO)
    add(l, (sinew_attr_desc_t){.name = "constraintRotateOrder", .short_name = "cro", .type = SINEW_ATTR_ENUM,
                               .enum_fields = "xyz:yzx:zxy:xzy:yxz:zyx"});
  if (p & P_CJO)
    add3(l, "constraintJointOrient", "cjo",
         NAMES("constraintJointOrientX", "cjox", "constraintJointOrientY", "cjoy", "constraintJointOrientZ", "cjoz"),
         SINEW_ATTR_ANGLE, 0, F_IN, NULL);
  if (p & P_IS)
    add3(l, "inverseScale", "is", NAMES("inverseScaleX", "isx", "inverseScaleY", "isy", "inverseScaleZ", "isz"),
         SINEW_ATTR_DOUBLE, 1, F_IN, NULL);
  if (p & P_CSC)
    add(l, (sinew_attr_desc_t){.name = "constraintScaleCompensate", .short_name = "tsc", .type = SINEW_ATTR_BOOL});
  if (p & P_PS)
    add(l, (sinew_attr_desc_t){.name = "pivotSpace", .short_name = "ps", .type = SINEW_ATTR_MATRIX});
  if (p & P_AIM) {
    add3(l, "aimVector", "a", NAMES("aimVectorX", "ax", "aimVectorY", "ay", "aimVectorZ", "az"), SINEW_ATTR_DOUBLE, 0,
         F_IN, NULL);
    l->d[l->n - 3].default_value = 1;
    add3(l, "upVector", "u", NAMES("upVectorX", "ux", "upVectorY", "uy", "upVectorZ", "uz"), SINEW_ATTR_DOUBLE, 0, F_IN,
         NULL);
    l->d[l->n - 2].default_value = 1;
    add3(l, "worldUpVector", "wu", NAMES("worldUpVectorX", "wux", "worldUpVectorY", "wuy", "worldUpVectorZ", "wuz"),
         SINEW_ATTR_DOUBLE, 0, F_IN, NULL);
    l->d[l->n - 2].default_value = 1;
    add(l, (sinew_attr_desc_t){.name = "worldUpMatrix", .short_name = "wum", .type = SINEW_ATTR_MATRIX});
    add(l, (sinew_attr_desc_t){.name = "worldUpType", .short_name = "wut", .type = SINEW_ATTR_ENUM,
                               .enum_fields = "Scene Up:Object Up:Object Rotation Up:Vector:None"});
  }
  /* offset: a distance (point), angles (orient, aim) or scale factors (scale) */
  if (!(p & (P_OFF | P_PS))) {
    sinew_attr_type_t ot = (p & P_CS) ? SINEW_ATTR_DOUBLE : (p & P_CR) ? SINEW_ATTR_ANGLE : SINEW_ATTR_DISTANCE;
    add3(l, "offset", "o", NAMES("offsetX", "ox", "offsetY", "oy", "offsetZ", "oz"), ot, (p & P_CS) ? 1 : 0, F_KEY,
         NULL);
  }
  if (p & P_REST_T)
    add3(l, "restTranslate", "rst", NAMES("restTranslateX", "rtx", "restTranslateY", "rty", "restTranslateZ", "rtz"),
         SINEW_ATTR_DISTANCE, 0, F_IN, NULL);
  if (p & P_REST_R)
    add3(l, "restRotate", "rsrr", NAMES("restRotateX", "rrx", "restRotateY", "rry", "restRotateZ", "rrz"),
         SINEW_ATTR_ANGLE, 0, F_IN, NULL);
  if (p & P_INTERP) {
    add(l, (sinew_attr_desc_t){.name = "interpType", .short_name = "int", .type = SINEW_ATTR_ENUM, .default_value = 1,
                               .enum_fields = "No Flip:Average:Shortest:Longest:Cache"});
    add3(l, "lastTargetRotate", "lr",
         NAMES("lastTargetRotateX", "lrx", "lastTargetRotateY", "lry", "lastTargetRotateZ", "lrz"), SINEW_ATTR_ANGLE,
         0, F_IN, NULL);
  }
  /* constraintTranslate: the output of point/parent/poleVector, an input of aim */
  if (p & (P_CT | P_CT_IN))
    add3(l, "constraintTranslate", "ct",
         NAMES("constraintTranslateX", "ctx", "constraintTranslateY", "cty", "constraintTranslateZ", "ctz"),
         SINEW_ATTR_DISTANCE, 0, (p & P_CT) ? F_OUT : F_IN, NULL);
  if (p & P_CR)
    add3(l, "constraintRotate", "cr",
         NAMES("constraintRotateX", "crx", "constraintRotateY", "cry", "constraintRotateZ", "crz"), SINEW_ATTR_ANGLE,
         0, F_OUT, NULL);
  if (p & P_CS)
    add3(l, "constraintScale", "cs", NAMES("constraintScaleX", "csx", "constraintScaleY", "csy", "constraintScaleZ", "csz"),
         SINEW_ATTR_DOUBLE, 1, F_OUT, NULL);
}

/* Which pieces each type has (Maya's node references and the attributes real files use). */
static const uint32_t kind_parts[K_MAX] = {
    [K_POINT] = P_TT | P_TRP | P_CRP | P_CT | P_REST_T,
    [K_ORIENT] = P_TR | P_TRO | P_TJO | P_CRO | P_CJO | P_IS | P_CR | P_REST_R | P_INTERP,
    [K_PARENT] = P_TT | P_TR | P_TS | P_TRP | P_TRO | P_TJO | P_TSC | P_OFF | P_CRP | P_CRO | P_CJO | P_CT | P_CR |
                 P_REST_T | P_REST_R | P_INTERP,
    [K_AIM] = P_TT | P_TRP | P_CRP | P_CRO | P_CJO | P_IS | P_CR | P_REST_R | P_AIM | P_CT_IN,
    [K_SCALE] = P_TS | P_CS | P_CSC,
    [K_POLE] = P_TT | P_TRP | P_CRP | P_CT | P_REST_T | P_PS,
};

/* The exact attributeAffects of each type: every input an output's formula reads. */
static size_t build_affects(ckind k, sinew_affects_t *out) {
  uint32_t p = kind_parts[k];
  size_t n = 0;
  const char *outs[3];
  size_t no = 0;
  if (p & P_CT) outs[no++] = "constraintTranslate";
  if (p & P_CR) outs[no++] = "constraintRotate";
  if (p & P_CS) outs[no++] = "constraintScale";
  for (size_t o = 0; o < no; o++) {
    bool t = outs[o][10] == 'T', r = outs[o][10] == 'R';
    const char *ins[16];
    size_t ni = 0;
    ins[ni++] = "target";
    ins[ni++] = "constraintParentInverseMatrix";
    if (t || k == K_AIM) {
      ins[ni++] = "constraintRotatePivot";
      if (!(p & P_PS)) ins[ni++] = "constraintRotateTranslate";
    }
    if (r) {
      ins[ni++] = "constraintRotateOrder";
      ins[ni++] = "constraintJointOrient";
      if (p & P_IS) ins[ni++] = "inverseScale";
      if (p & P_INTERP) ins[ni++] = "interpType";
      ins[ni++] = "restRotate";
    }
    if (t) ins[ni++] = "restTranslate";
    if ((p & P_REST_T) || (p & P_REST_R)) ins[ni++] = "enableRestPosition";
    if (!(p & (P_OFF | P_PS))) ins[ni++] = "offset";
    if (p & P_PS) ins[ni++] = "pivotSpace";
    if (p & P_CSC) ins[ni++] = "constraintScaleCompensate";
    if (p & P_AIM) {
      static const char *const aim_in[] = {"constraintTranslate", "aimVector", "upVector", "worldUpVector",
                                           "worldUpMatrix", "worldUpType"};
      for (size_t i = 0; i < COUNT(aim_in); i++) ins[ni++] = aim_in[i];
    }
    for (size_t i = 0; i < ni; i++) out[n++] = (sinew_affects_t){ins[i], outs[o]};
  }
  return n;
}

/* ---- reading -------------------------------------------------------------------------------- */

static sinew_vec3_t get3p(sinew_graph_t *g, const sinew_plug_t *p, sinew_vec3_t dflt) {
  double v[3] = {dflt.x, dflt.y, dflt.z};
  sinew_get_doubles(g, p, v, 3, NULL);
  return (sinew_vec3_t){v[0], v[1], v[2]};
}

static sinew_vec3_t get3(sinew_graph_t *g, sinew_node_t n, uint32_t attr, sinew_vec3_t dflt) {
  if (attr == UINT32_MAX) return dflt;
  sinew_plug_t p = sinew_plug_make(n, attr, 0, NULL);
  return get3p(g, &p, dflt);
}

static double get1(sinew_graph_t *g, sinew_node_t n, uint32_t attr, double dflt) {
  if (attr == UINT32_MAX) return dflt;
  sinew_plug_t p = sinew_plug_make(n, attr, 0, NULL);
  double v = dflt;
  sinew_get_double(g, &p, &v);
  return v;
}

static void getm(sinew_graph_t *g, sinew_node_t n, uint32_t attr, sinew_mat4_t *out) {
  sinew_mat4_identity(out);
  if (attr == UINT32_MAX) return;
  sinew_plug_t p = sinew_plug_make(n, attr, 0, NULL);
  if (sinew_get_matrix(g, &p, out)) sinew_mat4_identity(out);
}

static sinew_rotate_order_t order_of(double v) {
  return v >= 0 && v < SINEW_ROTATE_ORDER_MAX ? (sinew_rotate_order_t)(int)v : SINEW_ROTATE_XYZ;
}

/* One target's inputs (the children its type has; the others at their defaults). */
typedef struct target {
  int32_t index;
  double w;
  sinew_vec3_t tt, tr, ts, trp, trt, tjo, tis, tot, tor;
  sinew_rotate_order_t tro;
  bool tsc;
  sinew_mat4_t tpm;
} target;

static sinew_vec3_t tchild3(sinew_graph_t *g, sinew_node_t n, uint32_t attr, int32_t i, sinew_vec3_t dflt) {
  if (attr == UINT32_MAX) return dflt;
  sinew_plug_t p = sinew_plug_make(n, attr, 1, &i);
  return get3p(g, &p, dflt);
}

static double tchild1(sinew_graph_t *g, sinew_node_t n, uint32_t attr, int32_t i, double dflt) {
  if (attr == UINT32_MAX) return dflt;
  sinew_plug_t p = sinew_plug_make(n, attr, 1, &i);
  double v = dflt;
  sinew_get_double(g, &p, &v);
  return v;
}

static void read_target(sinew_graph_t *g, sinew_node_t n, const cids *c, int32_t i, target *t) {
  const sinew_vec3_t zero = {0, 0, 0}, one = {1, 1, 1};
  t->index = i;
  t->w = tchild1(g, n, c->tw, i, 1);
  if (!(t->w > 0)) t->w = 0; /* negative or NaN: no influence */
  t->tt = tchild3(g, n, c->tt, i, zero);
  t->tr = tchild3(g, n, c->tr, i, zero);
  t->ts = tchild3(g, n, c->ts, i, one);
  t->trp = tchild3(g, n, c->trp, i, zero);
  t->trt = tchild3(g, n, c->trt, i, zero);
  t->tjo = tchild3(g, n, c->tjo, i, zero);
  t->tis = tchild3(g, n, c->tis, i, one);
  t->tot = tchild3(g, n, c->tot, i, zero);
  t->tor = tchild3(g, n, c->tor, i, zero);
  t->tro = order_of(tchild1(g, n, c->tro, i, 0));
  t->tsc = tchild1(g, n, c->tsc, i, 1) != 0;
  sinew_mat4_identity(&t->tpm);
  sinew_plug_t p = sinew_plug_make(n, c->tpm, 1, &i);
  if (sinew_get_matrix(g, &p, &t->tpm)) sinew_mat4_identity(&t->tpm);
}

/* The targets of a constraint, in index order, in a buffer that grows with them (kept in the
 * node's state so that a frame allocates nothing). */
typedef struct cstate {
  sinew_data_t *buf; /* int32_t indices then target records */
  size_t cap;
  sinew_vec3_t last_t, last_r, last_s; /* the outputs' last values (all weights 0, rest off) */
  sinew_mat4_t last_aim;               /* the last world aim frame (degenerate up vectors) */
  sinew_quat_t last_q;                 /* the last blended rotation (no flip) */
  bool has_aim, has_q, has_s;
} cstate;

static void cstate_destroy(sinew_graph_t *g, sinew_node_t n, void *state) {
  (void)g;
  (void)n;
  sinew_data_unref(((cstate *)state)->buf);
}

/* Reads every target into st's buffer: *out the records, *count how many, *sum the weights. */
static int read_targets(sinew_graph_t *g, sinew_node_t n, const cids *c, cstate *st, target **out, size_t *count,
                        double *sum) {
  sinew_plug_t tg = sinew_plug_make(n, c->tg, 0, NULL);
  size_t total = sinew_plug_indices(g, &tg, NULL, 0);
  if (total > st->cap) {
    sinew_data_t *buf = NULL;
    if (!sinew__scratch(total * (sizeof(target) + sizeof(int32_t)) + sizeof(target), &buf)) return SINEW_ENOMEM;
    sinew_data_unref(st->buf);
    st->buf = buf;
    st->cap = total;
  }
  *count = 0;
  *sum = 0;
  *out = NULL;
  if (!total) return SINEW_OK;
  char *mem = sinew_data_mutable(&st->buf);
  if (!mem) return SINEW_ENOMEM;
  target *t = (target *)mem;
  int32_t *idx = (int32_t *)(mem + (st->cap + 1) * sizeof(target));
  total = sinew_plug_indices(g, &tg, idx, st->cap);
  for (size_t k = 0; k < total && k < st->cap; k++) {
    read_target(g, n, c, idx[k], &t[k]);
    *sum += t[k].w;
  }
  *count = total < st->cap ? total : st->cap;
  *out = t;
  return SINEW_OK;
}

/* ---- math helpers ----------------------------------------------------------------------------- */

/* The rotation of m's upper 3x3 (Gram-Schmidt of the rows, translation dropped); identity when
 * it is singular. */
static void rot_of(const sinew_mat4_t *m, sinew_mat4_t *out) {
  sinew_mat4_t r, s, a = *m;
  a.m[3][0] = a.m[3][1] = a.m[3][2] = 0;
  if (!sinew_mat4_orthonormalize_rows(&a, &r, &s)) {
    sinew_mat4_identity(out);
    return;
  }
  r.m[3][0] = r.m[3][1] = r.m[3][2] = 0;
  *out = r;
}

static sinew_vec3_t origin(const sinew_mat4_t *m) { return (sinew_vec3_t){m->m[3][0], m->m[3][1], m->m[3][2]}; }

/* out = a * b, for the many products below */
static void mul(const sinew_mat4_t *a, const sinew_mat4_t *b, sinew_mat4_t *out) { sinew_mat4_mul(a, b, out); }

static sinew_vec3_t inv_scale(sinew_vec3_t is) {
  return (sinew_vec3_t){is.x != 0 ? 1 / is.x : 1, is.y != 0 ? 1 / is.y : 1, is.z != 0 ? 1 / is.z : 1};
}

/* A target's world rotate pivot P_i = (tt + trp + trt) * tpm. */
static sinew_vec3_t target_pivot(const target *t) {
  sinew_vec3_t p = {t->tt.x + t->trp.x + t->trt.x, t->tt.y + t->trp.y + t->trt.y, t->tt.z + t->trp.z + t->trt.z}, out;
  sinew_mat4_transform_point(p, &t->tpm, &out);
  return out;
}

/* The target's pivot frame L_i * tpm_i, with L = T(-trp) * S * R * JO * IS * T(trp + trt + tt):
 * Maya's transform matrix with the scale pivot at the rotate pivot and no shear or rotateAxis
 * (the parts a constraint is given), and a joint's matrix (trp = 0) with its orient and
 * inverse scale. */
static void target_frame(const target *t, sinew_mat4_t *out) {
  sinew_mat4_t m, tmp;
  sinew_mat4_translate((sinew_vec3_t){-t->trp.x, -t->trp.y, -t->trp.z}, &m);
  sinew_mat4_scale(t->ts, &tmp);
  mul(&m, &tmp, &m);
  sinew_mat4_euler(t->tr, t->tro, &tmp);
  mul(&m, &tmp, &m);
  sinew_mat4_euler(t->tjo, SINEW_ROTATE_XYZ, &tmp);
  mul(&m, &tmp, &m);
  if (t->tsc) {
    sinew_mat4_scale(inv_scale(t->tis), &tmp);
    mul(&m, &tmp, &m);
  }
  m.m[3][0] += t->trp.x + t->trt.x + t->tt.x;
  m.m[3][1] += t->trp.y + t->trt.y + t->tt.y;
  m.m[3][2] += t->trp.z + t->trt.z + t->tt.z;
  mul(&m, &t->tpm, out);
}

/* C_i = Off_i * L_i * tpm_i with Off = Rot(tor, tro) * T(tot): the place the object would have
 * as a child of the target. */
static void parent_frame(const target *t, sinew_mat4_t *out) {
  sinew_mat4_t off, frame;
  sinew_mat4_euler(t->tor, t->tro, &off);
  off.m[3][0] = t->tot.x;
  off.m[3][1] = t->tot.y;
  off.m[3][2] = t->tot.z;
  target_frame(t, &frame);
  mul(&off, &frame, out);
}

/* Spherical interpolation from a to b without choosing the hemisphere (the caller does). */
static sinew_quat_t slerp_raw(sinew_quat_t a, sinew_quat_t b, double t) {
  double d = sinew_quat_dot(a, b);
  if (d > 1) d = 1;
  if (d < -1) d = -1;
  double th = acos(d), s = sin(th), wa, wb;
  if (fabs(s) < 1e-12) {
    wa = 1 - t;
    wb = t;
  } else {
    wa = sin((1 - t) * th) / s;
    wb = sin(t * th) / s;
  }
  sinew_quat_t q = {a.x * wa + b.x * wb, a.y * wa + b.y * wb, a.z * wa + b.z * wb, a.w * wa + b.w * wb};
  sinew_quat_normalize(q, &q);
  return q;
}

static sinew_quat_t qneg(sinew_quat_t q) { return (sinew_quat_t){-q.x, -q.y, -q.z, -q.w}; }

enum { INTERP_NO_FLIP = 0, INTERP_AVERAGE = 1, INTERP_SHORTEST = 2, INTERP_LONGEST = 3, INTERP_CACHE = 4 };

/* Blends n rotations with weights w (sum > 0) per interpType (spec 3.3):
 *   average   sum of the quaternions, each turned into the first one's hemisphere, normalised;
 *   shortest  slerp one target after another along the short arc (q = slerp(q, q_i, w_i / W_i),
 *             W_i the weight so far), which for two targets is the slerp between them;
 *   longest   the same along the long arc;
 *   no flip   the average with every quaternion in the hemisphere of the last result, so the
 *             result moves on continuously instead of flipping when the targets pass 180 degrees;
 *   cache     (no cache is kept) as average. */
static sinew_quat_t blend_quats(const sinew_quat_t *q, const double *w, size_t n, int mode, cstate *st) {
  sinew_quat_t ref = q[0];
  size_t first = 0;
  while (first < n && w[first] <= 0) first++;
  if (first == n) return q[0];
  ref = q[first];
  if (mode == INTERP_SHORTEST || mode == INTERP_LONGEST) {
    sinew_quat_t acc = q[first];
    double wsum = w[first];
    for (size_t i = first + 1; i < n; i++) {
      if (w[i] <= 0) continue;
      sinew_quat_t b = q[i];
      double d = sinew_quat_dot(acc, b);
      if ((mode == INTERP_SHORTEST && d < 0) || (mode == INTERP_LONGEST && d > 0)) b = qneg(b);
      wsum += w[i];
      acc = slerp_raw(acc, b, w[i] / wsum);
    }
    return acc;
  }
  if (mode == INTERP_NO_FLIP && st->has_q) ref = st->last_q;
  sinew_quat_t sum = {0, 0, 0, 0};
  for (size_t i = 0; i < n; i++) {
    if (w[i] <= 0) continue;
    sinew_quat_t b = sinew_quat_dot(ref, q[i]) < 0 ? qneg(q[i]) : q[i];
    sum.x += b.x * w[i];
    sum.y += b.y * w[i];
    sum.z += b.z * w[i];
    sum.w += b.w * w[i];
  }
  double len = sqrt(sum.x * sum.x + sum.y * sum.y + sum.z * sum.z + sum.w * sum.w);
  if (len < 1e-12) return ref; /* opposite rotations with equal weights: no average; keep one */
  sinew_quat_t out = {sum.x / len, sum.y / len, sum.z / len, sum.w / len};
  if (mode == INTERP_NO_FLIP) {
    st->last_q = out;
    st->has_q = true;
  }
  return out;
}

/* A world rotation as the constrained object's rotate values:
 * R = orth(Rw * cpim * diag(is)) * JO(cjo)^-1, cr = euler(R, cro). For a joint, the world
 * rotation is R * JO * IS * parentWorld with IS = diag(1 / is), hence diag(is) here. */
static sinew_vec3_t to_local_euler(sinew_graph_t *g, sinew_node_t n, const cids *c, const sinew_mat4_t *rw) {
  sinew_mat4_t cpim, m, tmp, r, jo, joi;
  getm(g, n, c->cpim, &cpim);
  mul(rw, &cpim, &m);
  sinew_mat4_scale(get3(g, n, c->is, (sinew_vec3_t){1, 1, 1}), &tmp);
  mul(&m, &tmp, &m);
  rot_of(&m, &r);
  sinew_mat4_euler(get3(g, n, c->cjo, (sinew_vec3_t){0, 0, 0}), SINEW_ROTATE_XYZ, &jo);
  sinew_mat4_transpose(&jo, &joi);
  mul(&r, &joi, &r);
  sinew_vec3_t e;
  sinew_euler_from_mat4(&r, order_of(get1(g, n, c->cro, 0)), &e);
  return e;
}

/* ---- per-type results --------------------------------------------------------------------- */

/* The weighted world pivot of the targets: sum w_i P_i / sum w_i. */
static sinew_vec3_t weighted_pivot(const target *t, size_t n, double sum) {
  sinew_vec3_t p = {0, 0, 0};
  for (size_t i = 0; i < n; i++) {
    if (t[i].w <= 0) continue;
    sinew_vec3_t q = target_pivot(&t[i]);
    double w = t[i].w / sum;
    p.x += q.x * w;
    p.y += q.y * w;
    p.z += q.z * w;
  }
  return p;
}

/* A world point as the object's translate: P * cpim - crp - crt. */
static sinew_vec3_t to_local_translate(sinew_graph_t *g, sinew_node_t n, const cids *c, sinew_vec3_t p) {
  sinew_mat4_t cpim;
  getm(g, n, c->cpim, &cpim);
  sinew_vec3_t l, rp = get3(g, n, c->crp, (sinew_vec3_t){0, 0, 0}), rt = get3(g, n, c->crt, (sinew_vec3_t){0, 0, 0});
  sinew_mat4_transform_point(p, &cpim, &l);
  return (sinew_vec3_t){l.x - rp.x - rt.x, l.y - rp.y - rt.y, l.z - rp.z - rt.z};
}

/* The blended world rotation of orient (Q_i = Rot(tr) * JO(tjo) * rot(tpm)) or parent
 * (rot(C_i)) targets. */
static void blended_rotation(sinew_graph_t *g, sinew_node_t n, const cids *c, ckind k, const target *t, size_t count,
                             cstate *st, sinew_mat4_t *out) {
  sinew_quat_t qs[16], *q = qs;
  double ws[16], *w = ws;
  sinew_data_t *hold = NULL;
  if (count > 16) {
    char *mem = sinew__scratch(count * (sizeof(sinew_quat_t) + sizeof(double)), &hold);
    if (mem) {
      q = (sinew_quat_t *)mem;
      w = (double *)(mem + count * sizeof(sinew_quat_t));
    } else {
      count = 16; /* out of memory: the first 16 targets */
    }
  }
  for (size_t i = 0; i < count; i++) {
    sinew_mat4_t m, r;
    if (k == K_PARENT) {
      parent_frame(&t[i], &m);
    } else {
      sinew_mat4_t jo;
      sinew_mat4_euler(t[i].tr, t[i].tro, &m);
      sinew_mat4_euler(t[i].tjo, SINEW_ROTATE_XYZ, &jo);
      mul(&m, &jo, &m);
      mul(&m, &t[i].tpm, &m);
    }
    rot_of(&m, &r);
    sinew_quat_from_mat4(&r, &q[i]);
    w[i] = t[i].w;
  }
  int mode = (int)get1(g, n, c->interp, INTERP_AVERAGE);
  sinew_quat_t b = blend_quats(q, w, count, mode, st);
  sinew_quat_to_mat4(b, out);
  sinew_data_unref(hold);
}

/* The aim frame in world space (spec 3.2): a * R = d, and u * R in the plane of d and the world
 * up w. Degenerate inputs (no direction, w along d) keep the last frame. */
static bool aim_frame(sinew_graph_t *g, sinew_node_t n, const cids *c, sinew_vec3_t target_p, cstate *st,
                      sinew_mat4_t *out) {
  sinew_mat4_t cpim, pw;
  getm(g, n, c->cpim, &cpim);
  if (!sinew_mat4_inverse(&cpim, &pw)) sinew_mat4_identity(&pw);
  sinew_vec3_t ct = get3(g, n, c->ct, (sinew_vec3_t){0, 0, 0}), rp = get3(g, n, c->crp, (sinew_vec3_t){0, 0, 0}),
               rt = get3(g, n, c->crt, (sinew_vec3_t){0, 0, 0}), o, d, a, u;
  sinew_mat4_transform_point((sinew_vec3_t){ct.x + rp.x + rt.x, ct.y + rp.y + rt.y, ct.z + rp.z + rt.z}, &pw, &o);
  sinew_vec3_sub(target_p, o, &d);
  double dl = sinew_vec3_length(d);
  sinew_vec3_normalize(get3(g, n, c->a, (sinew_vec3_t){1, 0, 0}), &a);
  u = get3(g, n, c->u, (sinew_vec3_t){0, 1, 0});
  if (!(dl > 1e-12) || !(sinew_vec3_length(a) > 0.5)) goto keep;
  sinew_vec3_scale(d, 1 / dl, &d);
  int wut = (int)get1(g, n, c->wut, 0);
  sinew_mat4_t wum;
  getm(g, n, c->wum, &wum);
  sinew_vec3_t w = {0, 1, 0};
  if (wut == 1) {
    sinew_vec3_sub(origin(&wum), o, &w);
  } else if (wut == 2) {
    sinew_mat4_transform_vector(get3(g, n, c->wu, (sinew_vec3_t){0, 1, 0}), &wum, &w);
  } else if (wut == 3) {
    w = get3(g, n, c->wu, (sinew_vec3_t){0, 1, 0});
  } else if (wut == 4) {
    /* none: the shortest rotation taking a onto d */
    sinew_vec3_t axis;
    sinew_vec3_cross(a, d, &axis);
    double cs = sinew_vec3_dot(a, d), sn = sinew_vec3_length(axis);
    sinew_quat_t q;
    if (sn < 1e-12 && cs < 0) {
      /* opposite: half a turn about any axis perpendicular to a */
      sinew_vec3_t perp = fabs(a.x) < 0.9 ? (sinew_vec3_t){1, 0, 0} : (sinew_vec3_t){0, 1, 0};
      sinew_vec3_cross(a, perp, &axis);
      sinew_quat_from_axis_angle(axis, 3.14159265358979323846, &q);
    } else {
      sinew_quat_from_axis_angle(axis, atan2(sn, cs), &q);
    }
    sinew_quat_to_mat4(q, out);
    st->last_aim = *out;
    st->has_aim = true;
    return true;
  }
  /* the object's local basis: a, u made perpendicular to a, a x u */
  sinew_vec3_t ua, wa, b2, b3, tmp;
  sinew_vec3_scale(a, sinew_vec3_dot(u, a), &tmp);
  sinew_vec3_sub(u, tmp, &ua);
  if (!(sinew_vec3_length(ua) > 1e-9)) goto keep;
  sinew_vec3_normalize(ua, &ua);
  sinew_vec3_scale(d, sinew_vec3_dot(w, d), &tmp);
  sinew_vec3_sub(w, tmp, &wa);
  if (!(sinew_vec3_length(wa) > 1e-9)) goto keep;
  sinew_vec3_normalize(wa, &wa);
  sinew_vec3_cross(a, ua, &b3);
  sinew_vec3_cross(d, wa, &b2);
  sinew_mat4_t bl, bw, blt;
  sinew_mat4_identity(&bl);
  sinew_mat4_identity(&bw);
  const sinew_vec3_t lr[3] = {a, ua, b3}, wr[3] = {d, wa, b2};
  for (int r = 0; r < 3; r++) {
    bl.m[r][0] = lr[r].x, bl.m[r][1] = lr[r].y, bl.m[r][2] = lr[r].z;
    bw.m[r][0] = wr[r].x, bw.m[r][1] = wr[r].y, bw.m[r][2] = wr[r].z;
  }
  sinew_mat4_transpose(&bl, &blt);
  mul(&blt, &bw, out);
  st->last_aim = *out;
  st->has_aim = true;
  return true;
keep:
  if (st->has_aim) {
    *out = st->last_aim;
    return true;
  }
  sinew_mat4_identity(out);
  return false;
}

static sinew_vec3_t mul3(sinew_vec3_t a, sinew_vec3_t b) { return (sinew_vec3_t){a.x * b.x, a.y * b.y, a.z * b.z}; }

/* The weighted geometric mean of the targets' world scales, in the object's parent space. */
static sinew_vec3_t scale_result(sinew_graph_t *g, sinew_node_t n, const cids *c, const target *t, size_t count,
                                 double sum) {
  sinew_vec3_t lg = {0, 0, 0};
  for (size_t i = 0; i < count; i++) {
    if (t[i].w <= 0) continue;
    sinew_mat4_t s, m;
    sinew_mat4_scale(t[i].ts, &s);
    mul(&s, &t[i].tpm, &m);
    /* the length of each row: the world scale along the target's own axes */
    double w = t[i].w / sum;
    for (int r = 0; r < 3; r++) {
      double len = sqrt(m.m[r][0] * m.m[r][0] + m.m[r][1] * m.m[r][1] + m.m[r][2] * m.m[r][2]);
      double l = len > 1e-300 ? log(len) : log(1e-300);
      if (r == 0) lg.x += w * l;
      else if (r == 1) lg.y += w * l;
      else lg.z += w * l;
    }
  }
  sinew_vec3_t s = {exp(lg.x), exp(lg.y), exp(lg.z)};
  if (get1(g, n, c->csc, 0) == 0) {
    /* not a compensating joint: divide out the parent's scale (the row lengths of cpim) */
    sinew_mat4_t cpim;
    getm(g, n, c->cpim, &cpim);
    sinew_vec3_t ps;
    for (int r = 0; r < 3; r++) {
      double len = sqrt(cpim.m[r][0] * cpim.m[r][0] + cpim.m[r][1] * cpim.m[r][1] + cpim.m[r][2] * cpim.m[r][2]);
      if (r == 0) ps.x = len;
      else if (r == 1) ps.y = len;
      else ps.z = len;
    }
    s = mul3(s, ps);
  }
  return s;
}

/* ---- compute ------------------------------------------------------------------------------ */

static int set3(sinew_compute_t *ctx, sinew_node_t n, uint32_t attr, sinew_vec3_t v) {
  sinew_plug_t p = sinew_plug_make(n, attr, 0, NULL);
  double d[3] = {v.x, v.y, v.z};
  return sinew_compute_set_doubles(ctx, &p, d, 3);
}

static sinew_vec3_t addv(sinew_vec3_t a, sinew_vec3_t b) { return (sinew_vec3_t){a.x + b.x, a.y + b.y, a.z + b.z}; }

static int constraint_compute(sinew_compute_t *ctx, const sinew_plug_t *plug, ckind k) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  const cids *c = &K[k];
  sinew_plug_t parent;
  uint32_t attr = sinew_plug_parent(g, plug, &parent) ? parent.attr : plug->attr;
  bool want_t = attr == c->ct && (kind_parts[k] & P_CT), want_r = attr == c->cr && c->cr != UINT32_MAX,
       want_s = attr == c->cs && c->cs != UINT32_MAX;
  if (!want_t && !want_r && !want_s) return SINEW_EUNKNOWN_PLUG;
  cstate *st = sinew_compute_state(ctx);
  target *t;
  size_t count;
  double sum;
  int rc = read_targets(g, n, c, st, &t, &count, &sum);
  if (rc) return rc;
  const sinew_vec3_t zero = {0, 0, 0};
  if (!(sum > 0)) {
    /* every weight 0: the rest position, or the last value */
    bool rest = get1(g, n, c->erp, 0) != 0;
    if (want_t) {
      if (rest && c->rst != UINT32_MAX) st->last_t = get3(g, n, c->rst, zero);
      return set3(ctx, n, c->ct, st->last_t);
    }
    if (want_r) {
      if (rest && c->rsrr != UINT32_MAX) st->last_r = get3(g, n, c->rsrr, zero);
      return set3(ctx, n, c->cr, st->last_r);
    }
    return set3(ctx, n, c->cs, st->has_s ? st->last_s : (sinew_vec3_t){1, 1, 1});
  }
  sinew_vec3_t v;
  if (k == K_PARENT) {
    /* both outputs from one pass over the targets: a joint reads both, and the frames C_i are
     * the expensive part (the other output is set too, which leaves it clean) */
    sinew_vec3_t p = {0, 0, 0};
    for (size_t i = 0; i < count; i++) {
      if (t[i].w <= 0) continue;
      sinew_mat4_t m;
      parent_frame(&t[i], &m);
      sinew_vec3_scale(origin(&m), t[i].w / sum, &v);
      p = addv(p, v);
    }
    sinew_mat4_t rw;
    blended_rotation(g, n, c, k, t, count, st, &rw);
    st->last_t = to_local_translate(g, n, c, p);
    st->last_r = to_local_euler(g, n, c, &rw);
    int rc1 = set3(ctx, n, c->ct, st->last_t), rc2 = set3(ctx, n, c->cr, st->last_r);
    return rc1 ? rc1 : rc2;
  }
  if (want_s) {
    v = mul3(scale_result(g, n, c, t, count, sum), get3(g, n, c->o, (sinew_vec3_t){1, 1, 1}));
    st->last_s = v;
    st->has_s = true;
    return set3(ctx, n, c->cs, v);
  }
  if (want_t) {
    if (k == K_POLE) {
      /* a direction from the chain's start S = crp * ps to the targets, in the handle's parent space */
      sinew_mat4_t ps, cpim;
      getm(g, n, c->ps, &ps);
      getm(g, n, c->cpim, &cpim);
      sinew_vec3_t s, d, p = weighted_pivot(t, count, sum);
      sinew_mat4_transform_point(get3(g, n, c->crp, zero), &ps, &s);
      sinew_vec3_sub(p, s, &d);
      sinew_mat4_transform_vector(d, &cpim, &v);
    } else {
      v = addv(to_local_translate(g, n, c, weighted_pivot(t, count, sum)), get3(g, n, c->o, zero));
    }
    st->last_t = v;
    return set3(ctx, n, c->ct, v);
  }
  /* rotation */
  sinew_mat4_t rw, off;
  if (k == K_AIM) {
    aim_frame(g, n, c, weighted_pivot(t, count, sum), st, &rw);
  } else {
    blended_rotation(g, n, c, k, t, count, st, &rw);
  }
  if (k != K_PARENT) {
    sinew_mat4_euler(get3(g, n, c->o, zero), SINEW_ROTATE_XYZ, &off);
    mul(&off, &rw, &rw);
  }
  v = to_local_euler(g, n, c, &rw);
  st->last_r = v;
  return set3(ctx, n, c->cr, v);
}

static int point_compute(sinew_compute_t *ctx, const sinew_plug_t *p) { return constraint_compute(ctx, p, K_POINT); }
static int orient_compute(sinew_compute_t *ctx, const sinew_plug_t *p) { return constraint_compute(ctx, p, K_ORIENT); }
static int parent_compute(sinew_compute_t *ctx, const sinew_plug_t *p) { return constraint_compute(ctx, p, K_PARENT); }
static int aim_compute(sinew_compute_t *ctx, const sinew_plug_t *p) { return constraint_compute(ctx, p, K_AIM); }
static int scale_compute(sinew_compute_t *ctx, const sinew_plug_t *p) { return constraint_compute(ctx, p, K_SCALE); }
static int pole_compute(sinew_compute_t *ctx, const sinew_plug_t *p) { return constraint_compute(ctx, p, K_POLE); }

static const sinew_compute_fn kind_compute[K_MAX] = {point_compute, orient_compute, parent_compute,
                                                     aim_compute, scale_compute, pole_compute};

/* ---- maintain offset ------------------------------------------------------------------------ */

static ckind kind_of(sinew_graph_t *g, sinew_node_t n) {
  const sinew_node_type_t *t = sinew_node_type(g, n);
  for (int k = 0; k < K_MAX; k++)
    if (t && sinew_node_type_is_a(t, kind_names[k])) return (ckind)k;
  return K_MAX;
}

bool sinew_constraint_is(sinew_graph_t *g, sinew_node_t n) { return g && kind_of(g, n) != K_MAX; }

/* The object's world rotation as a constraint sees it (Rot(r) * JO * IS * pm, orthonormalised)
 * and its world rotate pivot ((t + rp + rpt) * pm). */
static int object_pose(sinew_graph_t *g, sinew_node_t obj, const sinew_vec3_t *values, sinew_mat4_t *rot,
                       sinew_vec3_t *pivot, sinew_vec3_t *scale) {
  const sinew_node_type_t *ty = sinew_node_type(g, obj);
  bool joint = ty && sinew_node_type_is_a(ty, "joint");
  sinew__local_inputs in;
  int rc = sinew__read_local_inputs(g, obj, joint, &in);
  if (rc) return rc;
  if (values) {
    in.t = values[0];
    in.r = values[1];
    in.s = values[2];
  }
  sinew_plug_t pmp = sinew_plug_make(obj, sinew__dag.parent_matrix, 1, (int32_t[]){0});
  sinew_mat4_t pm, m, tmp;
  if ((rc = sinew_get_matrix(g, &pmp, &pm))) return rc;
  sinew_mat4_euler(in.r, in.order, &m);
  if (joint) {
    sinew_mat4_euler(in.jo, SINEW_ROTATE_XYZ, &tmp);
    mul(&m, &tmp, &m);
    if (in.ssc) {
      sinew_mat4_scale(inv_scale(in.is), &tmp);
      mul(&m, &tmp, &m);
    }
  }
  mul(&m, &pm, &m);
  rot_of(&m, rot);
  if (!joint) {
    sinew_plug_t p = sinew_plug_make(obj, sinew__dag.rotate_pivot, 0, NULL);
    in.rp = get3p(g, &p, (sinew_vec3_t){0, 0, 0});
    p = sinew_plug_make(obj, sinew__dag.rotate_pivot_translate, 0, NULL);
    in.rpt = get3p(g, &p, (sinew_vec3_t){0, 0, 0});
  }
  sinew_mat4_transform_point(addv(addv(in.t, in.rp), in.rpt), &pm, pivot);
  *scale = in.s;
  return SINEW_OK;
}

int sinew_constraint_offset(sinew_graph_t *g, sinew_node_t cn, sinew_node_t obj, int32_t target_index,
                            const sinew_vec3_t *object_values, sinew_vec3_t *out) {
  if (!g) return SINEW_EINVAL;
  if (!out) return sinew_graph_set_error(g, SINEW_EINVAL, "constraint offset: no output");
  ckind k = kind_of(g, cn);
  if (k == K_MAX)
    return sinew_graph_set_error(g, SINEW_ETYPE, "%s is not a constraint",
                                 sinew_node_name(g, cn) ? sinew_node_name(g, cn) : "(invalid node)");
  const sinew_node_type_t *ot = sinew_node_type(g, obj);
  if (!ot || !sinew_node_type_is_a(ot, "transform"))
    return sinew_graph_set_error(g, SINEW_ETYPE, "%s is not a transform",
                                 sinew_node_name(g, obj) ? sinew_node_name(g, obj) : "(invalid node)");
  const cids *c = &K[k];
  cstate *st = sinew_node_state(g, cn);
  sinew_mat4_t orot;
  sinew_vec3_t opiv, oscale, zero = {0, 0, 0};
  int rc = object_pose(g, obj, object_values, &orot, &opiv, &oscale);
  if (rc) return rc;
  target *t;
  size_t count;
  double sum;
  if ((rc = read_targets(g, cn, c, st, &t, &count, &sum))) return sinew_graph_set_error(g, rc, "out of memory");
  if (!(sum > 0)) return sinew_graph_set_error(g, SINEW_ERANGE, "%s: every target weight is 0", sinew_node_name(g, cn));
  if (k == K_PARENT) {
    /* Off_i = ObjectFrame * (L_i * tpm_i)^-1: tot its translation, tor its rotation in the
     * target's rotate order */
    for (size_t i = 0; i < count; i++) {
      if (t[i].index != target_index) continue;
      sinew_mat4_t frame, inv, objf = orot, off, r;
      objf.m[3][0] = opiv.x, objf.m[3][1] = opiv.y, objf.m[3][2] = opiv.z;
      target_frame(&t[i], &frame);
      if (!sinew_mat4_inverse(&frame, &inv))
        return sinew_graph_set_error(g, SINEW_ERANGE, "%s: target %d's matrix is singular", sinew_node_name(g, cn),
                                     (int)target_index);
      mul(&objf, &inv, &off);
      rot_of(&off, &r);
      out[0] = origin(&off);
      sinew_euler_from_mat4(&r, t[i].tro, &out[1]);
      return SINEW_OK;
    }
    return sinew_graph_set_error(g, SINEW_ENOTFOUND, "%s has no target %d", sinew_node_name(g, cn), (int)target_index);
  }
  if (k == K_POINT) {
    sinew_vec3_t now = to_local_translate(g, cn, c, weighted_pivot(t, count, sum)),
                 want = to_local_translate(g, cn, c, opiv);
    sinew_vec3_sub(want, now, out);
    return SINEW_OK;
  }
  if (k == K_SCALE) {
    sinew_vec3_t s = scale_result(g, cn, c, t, count, sum);
    *out = (sinew_vec3_t){s.x != 0 ? oscale.x / s.x : 1, s.y != 0 ? oscale.y / s.y : 1, s.z != 0 ? oscale.z / s.z : 1};
    return SINEW_OK;
  }
  if (k == K_POLE) {
    *out = zero;
    return SINEW_OK;
  }
  /* orient, aim: Rot(o) = ObjectRotation * Rw^-1 */
  sinew_mat4_t rw, rwt, off;
  cstate scratch = *st; /* the offset must not disturb no-flip or aim history */
  scratch.buf = NULL;
  scratch.cap = 0;
  if (k == K_AIM) aim_frame(g, cn, c, weighted_pivot(t, count, sum), &scratch, &rw);
  else blended_rotation(g, cn, c, k, t, count, &scratch, &rw);
  sinew_mat4_transpose(&rw, &rwt);
  mul(&orot, &rwt, &off);
  rot_of(&off, &off);
  sinew_euler_from_mat4(&off, SINEW_ROTATE_XYZ, out);
  return SINEW_OK;
}

/* ---- registration --------------------------------------------------------------------------- */

static const sinew_attr_desc_t constraint_attrs[] = {
    {.name = "enableRestPosition", .short_name = "erp", .type = SINEW_ATTR_BOOL},
    {.name = "lockOutput", .short_name = "lo", .type = SINEW_ATTR_BOOL},
};

static uint32_t id(const sinew_node_type_t *t, const char *name) { return sinew_node_type_attr(t, name); }

int sinew__register_constraint_types(sinew_graph_t *g) {
  if (sinew_find_node_type(g, "constraint")) return SINEW_OK;
  sinew_node_type_desc_t base = {.name = "constraint", .parent_type = "transform", .flags = SINEW_NODE_TYPE_ABSTRACT,
                                 .attrs = constraint_attrs, .attr_count = COUNT(constraint_attrs)};
  const sinew_node_type_t *bt;
  int rc = sinew_register_node_type(g, &base, &bt);
  if (rc) return rc;
  static desc_list l; /* large; registration is single-threaded (ARCHITECTURE: Threading) */
  sinew_affects_t aff[64];
  for (int k = 0; k < K_MAX; k++) {
    build(&l, kind_parts[k]);
    size_t na = build_affects((ckind)k, aff);
    sinew_node_type_desc_t d = {.name = kind_names[k], .parent_type = "constraint", .flags = SINEW_NODE_TYPE_PARALLEL,
                                .attrs = l.d, .attr_count = l.n,
                                .affects = aff, .affects_count = na, .compute = kind_compute[k],
                                .state_size = sizeof(cstate), .destroy = cstate_destroy};
    const sinew_node_type_t *t;
    if ((rc = sinew_register_node_type(g, &d, &t))) return rc;
    K[k] = (cids){.tg = id(t, "tg"), .tt = id(t, "tt"), .tr = id(t, "tr"), .ts = id(t, "ts"), .trp = id(t, "trp"),
                  .trt = id(t, "trt"), .tro = id(t, "tro"), .tjo = id(t, "tjo"), .tsc = UINT32_MAX,
                  .tis = id(t, "tis"), .tpm = id(t, "tpm"), .tw = id(t, "tw"), .tot = id(t, "tot"),
                  .tor = id(t, "tor"), .cpim = id(t, "cpim"), .crp = id(t, "crp"), .crt = id(t, "crt"),
                  .cro = id(t, "cro"), .cjo = id(t, "cjo"), .is = UINT32_MAX, .ct = id(t, "ct"),
                  .cr = id(t, "cr"), .cs = id(t, "cs"), .o = id(t, "o"), .erp = id(t, "erp"),
                  .rst = id(t, "rst"), .rsrr = id(t, "rsrr"), .lr = id(t, "lr"), .interp = id(t, "int"),
                  .a = id(t, "a"), .u = id(t, "u"), .wu = id(t, "wu"), .wum = id(t, "wum"),
                  .wut = id(t, "wut"), .ps = id(t, "ps"), .csc = UINT32_MAX};
    /* names shared with the transform (is: a joint's inverseScale lives on joints only, but
     * tsc is a target child on parentConstraint and top level on scaleConstraint) */
    if (kind_parts[k] & P_IS) K[k].is = id(t, "inverseScale");
    if (kind_parts[k] & P_TSC) K[k].tsc = id(t, "targetScaleCompensate");
    if (kind_parts[k] & P_CSC) K[k].csc = id(t, "constraintScaleCompensate");
  }
  return SINEW_OK;
}
