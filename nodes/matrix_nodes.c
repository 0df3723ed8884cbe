/* nodes/matrix_nodes.c: Maya's matrix and quaternion utility nodes (spec maya-reference-rigging.md
 * 2.5; docs/rigging.md "Matrix and quaternion nodes"). Row vectors throughout: p' = p * M, the
 * leftmost factor acts first, translation in row 3.
 *
 *   decomposeMatrix   imat -> ot, or, os, osh, oq    inverting S * SH * R * T; a mirrored matrix
 *                                                   gets a negative scale Z (MTransformationMatrix)
 *   composeMatrix     it, ir/iq, is, ish -> omat     S * SH * R * T
 *   multMatrix        i[] -> o                       i[0] * i[1] * ... in logical index order
 *   addMatrix         i[] -> o                       i[0] + i[1] + ...
 *   inverseMatrix     imat -> omat
 *   pickMatrix        imat -> tmat                   unpicked components set to identity
 *   blendMatrix       imat, tgt[] -> omat            ordered (stack) blend per component
 *   aimMatrix         imat -> tmat                   primary aim/align, then secondary about it
 *   wtAddMatrix       i[].m, i[].w -> o              sum of w * m, element-wise
 *   holdMatrix        i -> o                         pass-through
 *   fourByFourMatrix  in00..in33 -> o
 *   quatToEuler, eulerToQuat, quatAdd, quatProd, quatSub, quatInvert, quatNormalize,
 *   quatConjugate, quatNegate, quatSlerp, axisAngleToQuat, quatToAxisAngle  (quatNodes)
 *
 * Every node is a pure function of its inputs; each output lists exactly the inputs it reads. */
#include <math.h>
#include <string.h>

#include "nodes/nodes_internal.h"

#define F_OUT SINEW_ATTR_OUTPUT
#define F_KEY (SINEW_ATTR_INPUT | SINEW_ATTR_KEYABLE)
#define F_ARR (SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY)
#define COUNT(a) (sizeof(a) / sizeof *(a))

/* A numeric compound of three children. */
#define VEC3(lname, sname, ctype, dflt, fl, lx, sx, ly, sy, lz, sz)                                         \
  {.name = lname, .short_name = sname, .type = SINEW_ATTR_COMPOUND, .flags = fl},                          \
      {.name = lx, .short_name = sx, .type = ctype, .parent = lname, .default_value = dflt, .flags = fl},   \
      {.name = ly, .short_name = sy, .type = ctype, .parent = lname, .default_value = dflt, .flags = fl},   \
      {.name = lz, .short_name = sz, .type = ctype, .parent = lname, .default_value = dflt, .flags = fl}
/* A quaternion compound x y z w (w defaults to dw). */
#define QUAT(lname, sname, fl, dw, lx, sx, ly, sy, lz, sz, lw, sw)                                          \
  {.name = lname, .short_name = sname, .type = SINEW_ATTR_COMPOUND, .flags = fl},                          \
      {.name = lx, .short_name = sx, .type = SINEW_ATTR_DOUBLE, .parent = lname, .flags = fl},              \
      {.name = ly, .short_name = sy, .type = SINEW_ATTR_DOUBLE, .parent = lname, .flags = fl},              \
      {.name = lz, .short_name = sz, .type = SINEW_ATTR_DOUBLE, .parent = lname, .flags = fl},              \
      {.name = lw, .short_name = sw, .type = SINEW_ATTR_DOUBLE, .parent = lname, .default_value = dw,       \
       .flags = fl}
#define ROTATE_ORDER(lname, sname)                                                                          \
  {.name = lname, .short_name = sname, .type = SINEW_ATTR_ENUM, .enum_fields = "xyz:yzx:zxy:xzy:yxz:zyx"}
#define MATRIX_IN(lname, sname) {.name = lname, .short_name = sname, .type = SINEW_ATTR_MATRIX}
#define MATRIX_OUT(lname, sname) {.name = lname, .short_name = sname, .type = SINEW_ATTR_MATRIX, .flags = F_OUT}
#define BOOL_IN(lname, sname, d) {.name = lname, .short_name = sname, .type = SINEW_ATTR_BOOL, .default_value = d}

/* ---- reading and writing ------------------------------------------------------------------------- */

static double get1(sinew_graph_t *g, sinew_node_t n, uint32_t attr, double dflt) {
  sinew_plug_t p = sinew_plug_make(n, attr, 0, NULL);
  double v = dflt;
  sinew_get_double(g, &p, &v);
  return v;
}

static sinew_vec3_t get3(sinew_graph_t *g, const sinew_plug_t *p) {
  double v[3] = {0, 0, 0};
  sinew_get_doubles(g, p, v, 3, NULL);
  return (sinew_vec3_t){v[0], v[1], v[2]};
}

static sinew_vec3_t get3a(sinew_graph_t *g, sinew_node_t n, uint32_t attr) {
  sinew_plug_t p = sinew_plug_make(n, attr, 0, NULL);
  return get3(g, &p);
}

static sinew_quat_t getq(sinew_graph_t *g, sinew_node_t n, uint32_t attr) {
  sinew_plug_t p = sinew_plug_make(n, attr, 0, NULL);
  double v[4] = {0, 0, 0, 1};
  sinew_get_doubles(g, &p, v, 4, NULL);
  return (sinew_quat_t){v[0], v[1], v[2], v[3]};
}

static void getm_plug(sinew_graph_t *g, const sinew_plug_t *p, sinew_mat4_t *out) {
  if (sinew_get_matrix(g, p, out)) sinew_mat4_identity(out);
}

static void getm(sinew_graph_t *g, sinew_node_t n, uint32_t attr, sinew_mat4_t *out) {
  sinew_plug_t p = sinew_plug_make(n, attr, 0, NULL);
  getm_plug(g, &p, out);
}

static sinew_rotate_order_t order_of(double ro) {
  return ro >= 0 && ro < SINEW_ROTATE_ORDER_MAX ? (sinew_rotate_order_t)(int)ro : SINEW_ROTATE_XYZ;
}

static int set3(sinew_compute_t *ctx, sinew_node_t n, uint32_t attr, sinew_vec3_t v) {
  sinew_plug_t p = sinew_plug_make(n, attr, 0, NULL);
  double d[3] = {v.x, v.y, v.z};
  return sinew_compute_set_doubles(ctx, &p, d, 3);
}

static int setq(sinew_compute_t *ctx, sinew_node_t n, uint32_t attr, sinew_quat_t q) {
  sinew_plug_t p = sinew_plug_make(n, attr, 0, NULL);
  double d[4] = {q.x, q.y, q.z, q.w};
  return sinew_compute_set_doubles(ctx, &p, d, 4);
}

static int setm(sinew_compute_t *ctx, sinew_node_t n, uint32_t attr, const sinew_mat4_t *m) {
  sinew_plug_t p = sinew_plug_make(n, attr, 0, NULL);
  return sinew_compute_set_matrix(ctx, &p, m);
}

/* The top-level attribute of a plug (a compound child or an array element climbs to its root). */
static uint32_t top_attr(sinew_graph_t *g, const sinew_plug_t *plug) {
  sinew_plug_t p = *plug, up;
  while (sinew_plug_parent(g, &p, &up)) p = up;
  return p.attr;
}

/* The logical indices of an array plug, in stack storage for up to 64 and scratch memory beyond. */
typedef struct index_list {
  int32_t stack[64];
  int32_t *idx;
  size_t count;
  sinew_data_t *holder;
} index_list;

static int list_indices(sinew_graph_t *g, const sinew_plug_t *array, index_list *l) {
  l->holder = NULL;
  l->idx = l->stack;
  l->count = sinew_plug_indices(g, array, l->stack, COUNT(l->stack));
  if (l->count > COUNT(l->stack)) {
    if (!(l->idx = sinew__scratch(l->count * sizeof(int32_t), &l->holder))) return SINEW_ENOMEM;
    l->count = sinew_plug_indices(g, array, l->idx, l->count);
  }
  return SINEW_OK;
}

/* ---- decomposition as Maya's decomposeMatrix does it ----------------------------------------------- */

typedef struct parts {
  sinew_vec3_t t, r, s, sh;
  sinew_quat_t q;
} parts;

static void identity_parts(parts *p) {
  *p = (parts){.s = {1, 1, 1}, .q = {0, 0, 0, 1}};
}

static sinew_vec3_t row(const sinew_mat4_t *m, int i) { return (sinew_vec3_t){m->m[i][0], m->m[i][1], m->m[i][2]}; }

static void set_row(sinew_mat4_t *m, int i, sinew_vec3_t v) {
  m->m[i][0] = v.x;
  m->m[i][1] = v.y;
  m->m[i][2] = v.z;
}

static double *comp(sinew_vec3_t *v, int i) { return i == 0 ? &v->x : i == 1 ? &v->y : &v->z; }

/* Splits m = S * SH * R(order) * T. Maya's convention for a mirrored matrix (negative determinant)
 * is a negative scale Z, the rotation staying proper: the Z row is negated, the result decomposed
 * with sinew_mat4_decompose (positive scales), and sz negated back. A zero-length row (zero scale
 * on one axis) is replaced by the unit normal of the other two, decomposed, and gets scale 0, so
 * the rotation stays meaningful; two or more zero rows give scale = the row lengths, rotation and
 * shear zero. */
static void decompose_maya(const sinew_mat4_t *m, sinew_rotate_order_t order, parts *out) {
  identity_parts(out);
  out->t = row(m, 3);
  if (!sinew_mat4_is_finite(m)) return;
  sinew_mat4_t lin;
  sinew_mat4_identity(&lin);
  for (int i = 0; i < 3; i++) set_row(&lin, i, row(m, i));
  double len[3];
  int zero = -1, nzero = 0;
  for (int i = 0; i < 3; i++) {
    len[i] = sinew_vec3_length(row(&lin, i));
    if (len[i] < 1e-12) {
      zero = i;
      nzero++;
    }
  }
  bool flip = false;
  if (nzero == 1) {
    sinew_vec3_t c;
    sinew_vec3_cross(row(&lin, (zero + 1) % 3), row(&lin, (zero + 2) % 3), &c);
    sinew_vec3_normalize(c, &c);
    set_row(&lin, zero, c);
  } else if (nzero == 0 && sinew_mat4_determinant(&lin) < 0) {
    flip = true;
    set_row(&lin, 2, (sinew_vec3_t){-lin.m[2][0], -lin.m[2][1], -lin.m[2][2]});
  }
  sinew_vec3_t r, s, sh;
  if (nzero > 1 || !sinew_mat4_decompose(&lin, order, NULL, &r, &s, &sh)) {
    out->s = (sinew_vec3_t){len[0], len[1], len[2]};
    return;
  }
  if (nzero == 1) *comp(&s, zero) = 0;
  if (flip) s.z = -s.z;
  out->r = r;
  out->s = s;
  out->sh = sh;
  sinew_mat4_t rm;
  sinew_mat4_euler(r, order, &rm);
  sinew_quat_from_mat4(&rm, &out->q);
}

/* S * SH * R(q) * T. */
static void compose_quat(const parts *p, sinew_mat4_t *out) {
  sinew_mat4_t ssh, rm;
  sinew_vec3_t zero = {0, 0, 0};
  sinew_mat4_compose(zero, zero, SINEW_ROTATE_XYZ, p->s, p->sh, &ssh);
  sinew_quat_to_mat4(p->q, &rm);
  sinew_mat4_mul(&ssh, &rm, out);
  set_row(out, 3, p->t);
}

/* Blends matrix a toward b per component: translate, scale and shear linearly, rotation by the
 * shortest slerp. All weights 0 gives a, all 1 gives b exactly. */
static void blend_matrix_parts(const sinew_mat4_t *a, const sinew_mat4_t *b, double wt, double wr, double ws,
                               double wsh, sinew_mat4_t *out) {
  if (wt == 0 && wr == 0 && ws == 0 && wsh == 0) {
    *out = *a;
    return;
  }
  if (wt == 1 && wr == 1 && ws == 1 && wsh == 1) {
    *out = *b;
    return;
  }
  parts pa, pb, r;
  decompose_maya(a, SINEW_ROTATE_XYZ, &pa);
  decompose_maya(b, SINEW_ROTATE_XYZ, &pb);
  sinew_vec3_lerp(pa.t, pb.t, wt, &r.t);
  sinew_vec3_lerp(pa.s, pb.s, ws, &r.s);
  sinew_vec3_lerp(pa.sh, pb.sh, wsh, &r.sh);
  sinew_quat_slerp(pa.q, pb.q, wr, &r.q);
  compose_quat(&r, out);
}

/* ---- attribute ids ------------------------------------------------------------------------------- */

static struct {
  uint32_t dm_imat, dm_ro, dm_ot, dm_or, dm_os, dm_osh, dm_oq;
  uint32_t cm_it, cm_ir, cm_iro, cm_is, cm_ish, cm_iq, cm_uer, cm_omat;
  uint32_t mm_i, mm_o;
  uint32_t im_imat, im_omat;
  uint32_t pk_imat, pk_tmat, pk_tra, pk_rot, pk_sca, pk_she;
  uint32_t bm_imat, bm_omat, bm_env, bm_enb, bm_pre, bm_post, bm_tgt, bm_tmat, bm_wgt, bm_use, bm_sca, bm_tra,
      bm_rot, bm_she;
  uint32_t am_imat, am_tmat, am_env, am_enb, am_pre, am_post, am_pmi, am_pmod, am_ptv, am_ptm, am_smi, am_smod,
      am_stv, am_stm;
  uint32_t wa_i, wa_m, wa_w, wa_o;
  uint32_t hm_i, hm_o;
  uint32_t ff_in[16], ff_o;
  uint32_t qe_iq, qe_iro, qe_ort;
  uint32_t eq_irt, eq_iro, eq_oq;
  uint32_t q2_a, q2_b, q2_o; /* quatAdd / quatProd / quatSub share ids (same table) */
  uint32_t q1_i, q1_o;       /* the one-input quat nodes share ids */
  uint32_t qs_a, qs_b, qs_t, qs_ad, qs_o;
  uint32_t aa_ia, aa_ang, aa_oq;
  uint32_t qa_iq, qa_oa, qa_ang;
} A;

/* ---- decomposeMatrix ------------------------------------------------------------------------------ */

static const sinew_attr_desc_t decompose_attrs[] = {
    MATRIX_IN("inputMatrix", "imat"),
    ROTATE_ORDER("inputRotateOrder", "ro"),
    VEC3("outputTranslate", "ot", SINEW_ATTR_DISTANCE, 0, F_OUT, "outputTranslateX", "otx", "outputTranslateY",
         "oty", "outputTranslateZ", "otz"),
    VEC3("outputRotate", "or", SINEW_ATTR_ANGLE, 0, F_OUT, "outputRotateX", "orx", "outputRotateY", "ory",
         "outputRotateZ", "orz"),
    VEC3("outputScale", "os", SINEW_ATTR_DOUBLE, 0, F_OUT, "outputScaleX", "osx", "outputScaleY", "osy",
         "outputScaleZ", "osz"),
    VEC3("outputShear", "osh", SINEW_ATTR_DOUBLE, 0, F_OUT, "outputShearX", "oshx", "outputShearY", "oshy",
         "outputShearZ", "oshz"),
    QUAT("outputQuat", "oq", F_OUT, 0, "outputQuatX", "oqx", "outputQuatY", "oqy", "outputQuatZ", "oqz",
         "outputQuatW", "oqw"),
};
static const sinew_affects_t decompose_affects[] = {
    {"inputMatrix", "outputTranslate"}, {"inputMatrix", "outputRotate"}, {"inputMatrix", "outputScale"},
    {"inputMatrix", "outputShear"},     {"inputMatrix", "outputQuat"},   {"inputRotateOrder", "outputRotate"}};

/* One decomposition serves every output: the requested one and the others that are dirty (they
 * read the same, already pulled, inputs), so a node feeding translate, rotate and scale
 * decomposes its matrix once per change. Clean outputs are left alone. */
static int decompose_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  uint32_t a = top_attr(g, plug);
  if (a != A.dm_ot && a != A.dm_or && a != A.dm_os && a != A.dm_osh && a != A.dm_oq) return SINEW_EUNKNOWN_PLUG;
  sinew_mat4_t m;
  getm(g, n, A.dm_imat, &m);
  parts p;
  decompose_maya(&m, order_of(get1(g, n, A.dm_ro, 0)), &p);
  const uint32_t outs[] = {A.dm_ot, A.dm_or, A.dm_os, A.dm_osh, A.dm_oq};
  int rc = SINEW_OK;
  for (size_t k = 0; k < COUNT(outs) && !rc; k++) {
    sinew_plug_t o = sinew_plug_make(n, outs[k], 0, NULL);
    if (outs[k] != a && !sinew_plug_is_dirty(g, &o)) continue;
    if (outs[k] == A.dm_ot) rc = set3(ctx, n, outs[k], p.t);
    else if (outs[k] == A.dm_or) rc = set3(ctx, n, outs[k], p.r);
    else if (outs[k] == A.dm_os) rc = set3(ctx, n, outs[k], p.s);
    else if (outs[k] == A.dm_osh) rc = set3(ctx, n, outs[k], p.sh);
    else rc = setq(ctx, n, outs[k], p.q);
  }
  return rc;
}

/* ---- composeMatrix -------------------------------------------------------------------------------- */

/* Short names of inputQuat's children as Autodesk's node reference lists them (iqwx iqwy iqwz iqw). */
static const sinew_attr_desc_t compose_attrs[] = {
    VEC3("inputTranslate", "it", SINEW_ATTR_DISTANCE, 0, SINEW_ATTR_INPUT, "inputTranslateX", "itx",
         "inputTranslateY", "ity", "inputTranslateZ", "itz"),
    VEC3("inputRotate", "ir", SINEW_ATTR_ANGLE, 0, SINEW_ATTR_INPUT, "inputRotateX", "irx", "inputRotateY", "iry",
         "inputRotateZ", "irz"),
    ROTATE_ORDER("inputRotateOrder", "iro"),
    VEC3("inputScale", "is", SINEW_ATTR_DOUBLE, 1, SINEW_ATTR_INPUT, "inputScaleX", "isx", "inputScaleY", "isy",
         "inputScaleZ", "isz"),
    VEC3("inputShear", "ish", SINEW_ATTR_DOUBLE, 0, SINEW_ATTR_INPUT, "inputShearX", "ishx", "inputShearY", "ishy",
         "inputShearZ", "ishz"),
    QUAT("inputQuat", "iq", SINEW_ATTR_INPUT, 1, "inputQuatX", "iqwx", "inputQuatY", "iqwy", "inputQuatZ", "iqwz",
         "inputQuatW", "iqw"),
    BOOL_IN("useEulerRotation", "uer", 1),
    MATRIX_OUT("outputMatrix", "omat"),
};
static const sinew_affects_t compose_affects[] = {
    {"inputTranslate", "outputMatrix"}, {"inputRotate", "outputMatrix"}, {"inputRotateOrder", "outputMatrix"},
    {"inputScale", "outputMatrix"},     {"inputShear", "outputMatrix"},  {"inputQuat", "outputMatrix"},
    {"useEulerRotation", "outputMatrix"}};

static int compose_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  if (plug->attr != A.cm_omat) return SINEW_EUNKNOWN_PLUG;
  sinew_vec3_t t = get3a(g, n, A.cm_it), s = get3a(g, n, A.cm_is), sh = get3a(g, n, A.cm_ish);
  sinew_mat4_t m;
  if (get1(g, n, A.cm_uer, 1) != 0) {
    sinew_mat4_compose(t, get3a(g, n, A.cm_ir), order_of(get1(g, n, A.cm_iro, 0)), s, sh, &m);
  } else {
    parts p = {.t = t, .s = s, .sh = sh, .q = getq(g, n, A.cm_iq)}; /* a non-unit q is normalised */
    compose_quat(&p, &m);
  }
  return setm(ctx, n, A.cm_omat, &m);
}

/* ---- multMatrix, inverseMatrix, holdMatrix, wtAddMatrix, fourByFourMatrix ------------------------- */

static const sinew_attr_desc_t mult_attrs[] = {
    {.name = "matrixIn", .short_name = "i", .type = SINEW_ATTR_MATRIX, .flags = F_ARR},
    MATRIX_OUT("matrixSum", "o"),
};
static const sinew_affects_t mult_affects[] = {{"matrixIn", "matrixSum"}};

/* o = i[first] * ... * i[last]: the lowest logical index acts first; no elements give identity. */
static int mult_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  if (plug->attr != A.mm_o) return SINEW_EUNKNOWN_PLUG;
  sinew_plug_t arr = sinew_plug_make(n, A.mm_i, 0, NULL);
  index_list l;
  if (list_indices(g, &arr, &l)) return SINEW_ENOMEM;
  sinew_mat4_t acc, m;
  sinew_mat4_identity(&acc);
  for (size_t k = 0; k < l.count; k++) {
    sinew_plug_t e = sinew_plug_make(n, A.mm_i, 1, &l.idx[k]);
    getm_plug(g, &e, &m);
    sinew_mat4_mul(&acc, &m, &acc);
  }
  sinew_data_unref(l.holder);
  return setm(ctx, n, A.mm_o, &acc);
}

/* addMatrix: the same attributes; o = sum of the elements (no element: the zero matrix). */
static int add_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  if (plug->attr != A.mm_o) return SINEW_EUNKNOWN_PLUG;
  sinew_plug_t arr = sinew_plug_make(n, A.mm_i, 0, NULL);
  index_list l;
  if (list_indices(g, &arr, &l)) return SINEW_ENOMEM;
  sinew_mat4_t acc, m;
  memset(&acc, 0, sizeof acc);
  for (size_t k = 0; k < l.count; k++) {
    sinew_plug_t e = sinew_plug_make(n, A.mm_i, 1, &l.idx[k]);
    getm_plug(g, &e, &m);
    for (int r = 0; r < 4; r++)
      for (int c = 0; c < 4; c++) acc.m[r][c] += m.m[r][c];
  }
  sinew_data_unref(l.holder);
  return setm(ctx, n, A.mm_o, &acc);
}

static const sinew_attr_desc_t inverse_attrs[] = {MATRIX_IN("inputMatrix", "imat"),
                                                  MATRIX_OUT("outputMatrix", "omat")};
static const sinew_affects_t inverse_affects[] = {{"inputMatrix", "outputMatrix"}};

/* A singular input gives the identity and a warning naming the node (as the transforms do). */
static int inverse_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  if (plug->attr != A.im_omat) return SINEW_EUNKNOWN_PLUG;
  sinew_mat4_t m, inv;
  getm(g, n, A.im_imat, &m);
  if (!sinew_mat4_inverse(&m, &inv)) {
    sinew_mat4_identity(&inv);
    sinew_log(g, SINEW_LOG_WARNING, SINEW_LOG_GENERIC, "%s: singular inputMatrix; its inverse is taken as identity",
              sinew_node_name(g, n));
  }
  return setm(ctx, n, A.im_omat, &inv);
}

static const sinew_attr_desc_t hold_attrs[] = {MATRIX_IN("inMatrix", "i"), MATRIX_OUT("outMatrix", "o")};
static const sinew_affects_t hold_affects[] = {{"inMatrix", "outMatrix"}};

static int hold_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  if (plug->attr != A.hm_o) return SINEW_EUNKNOWN_PLUG;
  sinew_mat4_t m;
  getm(g, n, A.hm_i, &m);
  return setm(ctx, n, A.hm_o, &m);
}

static const sinew_attr_desc_t wtadd_attrs[] = {
    {.name = "wtMatrix", .short_name = "i", .type = SINEW_ATTR_COMPOUND, .flags = F_ARR},
    {.name = "matrixIn", .short_name = "m", .type = SINEW_ATTR_MATRIX, .parent = "wtMatrix"},
    {.name = "weightIn", .short_name = "w", .type = SINEW_ATTR_DOUBLE, .parent = "wtMatrix", .flags = F_KEY},
    MATRIX_OUT("matrixSum", "o"),
};
static const sinew_affects_t wtadd_affects[] = {{"wtMatrix", "matrixSum"}};

/* o = sum of w[k] * m[k], element-wise (not normalised); no elements give the zero matrix. */
static int wtadd_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  if (plug->attr != A.wa_o) return SINEW_EUNKNOWN_PLUG;
  sinew_plug_t arr = sinew_plug_make(n, A.wa_i, 0, NULL);
  index_list l;
  if (list_indices(g, &arr, &l)) return SINEW_ENOMEM;
  sinew_mat4_t acc, m;
  memset(&acc, 0, sizeof acc);
  for (size_t k = 0; k < l.count; k++) {
    sinew_plug_t pm = sinew_plug_make(n, A.wa_m, 1, &l.idx[k]), pw = sinew_plug_make(n, A.wa_w, 1, &l.idx[k]);
    double w = 0;
    getm_plug(g, &pm, &m);
    sinew_get_double(g, &pw, &w);
    for (int r = 0; r < 4; r++)
      for (int c = 0; c < 4; c++) acc.m[r][c] += w * m.m[r][c];
  }
  sinew_data_unref(l.holder);
  return setm(ctx, n, A.wa_o, &acc);
}

#define FF(r, c) {.name = "in" #r #c, .short_name = "i" #r #c, .type = SINEW_ATTR_DOUBLE, .default_value = (r == c), .flags = F_KEY}
static const sinew_attr_desc_t ff_attrs[] = {
    FF(0, 0), FF(0, 1), FF(0, 2), FF(0, 3), FF(1, 0), FF(1, 1), FF(1, 2), FF(1, 3),
    FF(2, 0), FF(2, 1), FF(2, 2), FF(2, 3), FF(3, 0), FF(3, 1), FF(3, 2), FF(3, 3),
    MATRIX_OUT("output", "o"),
};
#define FFA(r, c) {"in" #r #c, "output"}
static const sinew_affects_t ff_affects[] = {FFA(0, 0), FFA(0, 1), FFA(0, 2), FFA(0, 3), FFA(1, 0), FFA(1, 1),
                                             FFA(1, 2), FFA(1, 3), FFA(2, 0), FFA(2, 1), FFA(2, 2), FFA(2, 3),
                                             FFA(3, 0), FFA(3, 1), FFA(3, 2), FFA(3, 3)};

/* o[r][c] = in<r><c>: row-major, translation in in30 in31 in32. */
static int ff_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  if (plug->attr != A.ff_o) return SINEW_EUNKNOWN_PLUG;
  sinew_mat4_t m;
  for (int k = 0; k < 16; k++) m.m[k / 4][k % 4] = get1(g, n, A.ff_in[k], k / 4 == k % 4);
  return setm(ctx, n, A.ff_o, &m);
}

/* ---- pickMatrix ------------------------------------------------------------------------------------ */

static const sinew_attr_desc_t pick_attrs[] = {
    MATRIX_IN("inputMatrix", "imat"), MATRIX_OUT("outputMatrix", "tmat"), BOOL_IN("useTranslate", "tra", 1),
    BOOL_IN("useRotate", "rot", 1),   BOOL_IN("useScale", "sca", 1),      BOOL_IN("useShear", "she", 1),
};
static const sinew_affects_t pick_affects[] = {{"inputMatrix", "outputMatrix"}, {"useTranslate", "outputMatrix"},
                                               {"useRotate", "outputMatrix"},   {"useScale", "outputMatrix"},
                                               {"useShear", "outputMatrix"}};

static int pick_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  if (plug->attr != A.pk_tmat) return SINEW_EUNKNOWN_PLUG;
  sinew_mat4_t m, out;
  getm(g, n, A.pk_imat, &m);
  bool t = get1(g, n, A.pk_tra, 1) != 0, r = get1(g, n, A.pk_rot, 1) != 0;
  bool s = get1(g, n, A.pk_sca, 1) != 0, sh = get1(g, n, A.pk_she, 1) != 0;
  if (t && r && s && sh) return setm(ctx, n, A.pk_tmat, &m);
  parts p;
  decompose_maya(&m, SINEW_ROTATE_XYZ, &p);
  if (!t) p.t = (sinew_vec3_t){0, 0, 0};
  if (!r) p.q = (sinew_quat_t){0, 0, 0, 1};
  if (!s) p.s = (sinew_vec3_t){1, 1, 1};
  if (!sh) p.sh = (sinew_vec3_t){0, 0, 0};
  compose_quat(&p, &out);
  return setm(ctx, n, A.pk_tmat, &out);
}

/* ---- blendMatrix ----------------------------------------------------------------------------------- */

static const sinew_attr_desc_t blend_attrs[] = {
    {.name = "inputMatrix", .short_name = "imat", .type = SINEW_ATTR_MATRIX, .flags = F_KEY},
    MATRIX_OUT("outputMatrix", "omat"),
    {.name = "envelope", .short_name = "env", .type = SINEW_ATTR_DOUBLE, .default_value = 1, .flags = F_KEY},
    BOOL_IN("enable", "enb", 1),
    MATRIX_IN("preSpaceMatrix", "premat"),
    MATRIX_IN("postSpaceMatrix", "pstmat"),
    {.name = "target", .short_name = "tgt", .type = SINEW_ATTR_COMPOUND, .flags = F_ARR | SINEW_ATTR_KEYABLE},
    {.name = "targetMatrix", .short_name = "tmat", .type = SINEW_ATTR_MATRIX, .parent = "target"},
    {.name = "weight", .short_name = "wgt", .type = SINEW_ATTR_DOUBLE, .parent = "target", .default_value = 1,
     .flags = F_KEY},
    {.name = "useMatrix", .short_name = "umt", .type = SINEW_ATTR_BOOL, .parent = "target", .default_value = 1},
    {.name = "scaleWeight", .short_name = "sca", .type = SINEW_ATTR_DOUBLE, .parent = "target", .default_value = 1},
    {.name = "translateWeight", .short_name = "tra", .type = SINEW_ATTR_DOUBLE, .parent = "target",
     .default_value = 1},
    {.name = "rotateWeight", .short_name = "rot", .type = SINEW_ATTR_DOUBLE, .parent = "target", .default_value = 1},
    {.name = "shearWeight", .short_name = "she", .type = SINEW_ATTR_DOUBLE, .parent = "target", .default_value = 1},
};
static const sinew_affects_t blend_affects[] = {
    {"inputMatrix", "outputMatrix"},    {"envelope", "outputMatrix"},        {"enable", "outputMatrix"},
    {"preSpaceMatrix", "outputMatrix"}, {"postSpaceMatrix", "outputMatrix"}, {"target", "outputMatrix"}};

static double elem1(sinew_graph_t *g, sinew_node_t n, uint32_t attr, int32_t i, double dflt) {
  sinew_plug_t p = sinew_plug_make(n, attr, 1, &i);
  double v = dflt;
  sinew_get_double(g, &p, &v);
  return v;
}

/* Ordered blend: R = imat; for each target in index order, R = blend(R, tmat, wgt * component
 * weight); out = blend(imat, R, envelope). Every matrix is taken into preSpaceMatrix's space first
 * (M * premat) and the result out of it (R * postSpaceMatrix). */
static int blend_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  if (plug->attr != A.bm_omat) return SINEW_EUNKNOWN_PLUG;
  sinew_mat4_t in, pre, post, acc, tm, out;
  getm(g, n, A.bm_imat, &in);
  double env = get1(g, n, A.bm_env, 1);
  if (get1(g, n, A.bm_enb, 1) == 0 || env == 0) return setm(ctx, n, A.bm_omat, &in);
  getm(g, n, A.bm_pre, &pre);
  getm(g, n, A.bm_post, &post);
  sinew_mat4_mul(&in, &pre, &in);
  acc = in;
  sinew_plug_t arr = sinew_plug_make(n, A.bm_tgt, 0, NULL);
  index_list l;
  if (list_indices(g, &arr, &l)) return SINEW_ENOMEM;
  for (size_t k = 0; k < l.count; k++) {
    int32_t i = l.idx[k];
    if (elem1(g, n, A.bm_use, i, 1) == 0) continue;
    double w = elem1(g, n, A.bm_wgt, i, 1);
    sinew_plug_t pm = sinew_plug_make(n, A.bm_tmat, 1, &i);
    getm_plug(g, &pm, &tm);
    sinew_mat4_mul(&tm, &pre, &tm);
    blend_matrix_parts(&acc, &tm, w * elem1(g, n, A.bm_tra, i, 1), w * elem1(g, n, A.bm_rot, i, 1),
                       w * elem1(g, n, A.bm_sca, i, 1), w * elem1(g, n, A.bm_she, i, 1), &acc);
  }
  sinew_data_unref(l.holder);
  blend_matrix_parts(&in, &acc, env, env, env, env, &out);
  sinew_mat4_mul(&out, &post, &out);
  return setm(ctx, n, A.bm_omat, &out);
}

/* ---- aimMatrix ------------------------------------------------------------------------------------- */

#define AIM_MODES "Lock Axis:Aim:Align:None"
static const sinew_attr_desc_t aim_attrs[] = {
    {.name = "inputMatrix", .short_name = "imat", .type = SINEW_ATTR_MATRIX, .flags = F_KEY},
    MATRIX_OUT("outputMatrix", "tmat"),
    {.name = "envelope", .short_name = "env", .type = SINEW_ATTR_DOUBLE, .default_value = 1, .flags = F_KEY},
    BOOL_IN("enable", "enb", 1),
    MATRIX_IN("preSpaceMatrix", "premat"),
    MATRIX_IN("postSpaceMatrix", "pstmat"),
    {.name = "primary", .short_name = "pri", .type = SINEW_ATTR_COMPOUND},
    {.name = "primaryInputAxis", .short_name = "pmi", .type = SINEW_ATTR_COMPOUND, .parent = "primary"},
    {.name = "primaryInputAxisX", .short_name = "pmix", .type = SINEW_ATTR_DOUBLE, .parent = "primaryInputAxis",
     .default_value = 1},
    {.name = "primaryInputAxisY", .short_name = "pmiy", .type = SINEW_ATTR_DOUBLE, .parent = "primaryInputAxis"},
    {.name = "primaryInputAxisZ", .short_name = "pmiz", .type = SINEW_ATTR_DOUBLE, .parent = "primaryInputAxis"},
    {.name = "primaryMode", .short_name = "pm", .type = SINEW_ATTR_ENUM, .parent = "primary",
     .enum_fields = AIM_MODES, .default_value = 1},
    {.name = "primaryTargetVector", .short_name = "pmiv", .type = SINEW_ATTR_COMPOUND, .parent = "primary"},
    {.name = "primaryTargetVectorX", .short_name = "pmivx", .type = SINEW_ATTR_DOUBLE, .parent = "primaryTargetVector"},
    {.name = "primaryTargetVectorY", .short_name = "pmivy", .type = SINEW_ATTR_DOUBLE, .parent = "primaryTargetVector"},
    {.name = "primaryTargetVectorZ", .short_name = "pmivz", .type = SINEW_ATTR_DOUBLE, .parent = "primaryTargetVector"},
    {.name = "primaryTargetMatrix", .short_name = "pmat", .type = SINEW_ATTR_MATRIX, .parent = "primary"},
    {.name = "secondary", .short_name = "sec", .type = SINEW_ATTR_COMPOUND},
    {.name = "secondaryInputAxis", .short_name = "smi", .type = SINEW_ATTR_COMPOUND, .parent = "secondary"},
    {.name = "secondaryInputAxisX", .short_name = "smix", .type = SINEW_ATTR_DOUBLE, .parent = "secondaryInputAxis"},
    {.name = "secondaryInputAxisY", .short_name = "smiy", .type = SINEW_ATTR_DOUBLE, .parent = "secondaryInputAxis",
     .default_value = 1},
    {.name = "secondaryInputAxisZ", .short_name = "smiz", .type = SINEW_ATTR_DOUBLE, .parent = "secondaryInputAxis"},
    {.name = "secondaryMode", .short_name = "sm", .type = SINEW_ATTR_ENUM, .parent = "secondary",
     .enum_fields = AIM_MODES, .default_value = 3},
    {.name = "secondaryTargetVector", .short_name = "smiv", .type = SINEW_ATTR_COMPOUND, .parent = "secondary"},
    {.name = "secondaryTargetVectorX", .short_name = "smivx", .type = SINEW_ATTR_DOUBLE,
     .parent = "secondaryTargetVector"},
    {.name = "secondaryTargetVectorY", .short_name = "smivy", .type = SINEW_ATTR_DOUBLE,
     .parent = "secondaryTargetVector"},
    {.name = "secondaryTargetVectorZ", .short_name = "smivz", .type = SINEW_ATTR_DOUBLE,
     .parent = "secondaryTargetVector"},
    {.name = "secondaryTargetMatrix", .short_name = "smat", .type = SINEW_ATTR_MATRIX, .parent = "secondary"},
};
static const sinew_affects_t aim_affects[] = {
    {"inputMatrix", "outputMatrix"},     {"envelope", "outputMatrix"}, {"enable", "outputMatrix"},
    {"preSpaceMatrix", "outputMatrix"},  {"postSpaceMatrix", "outputMatrix"},
    {"primary", "outputMatrix"},         {"secondary", "outputMatrix"}};

enum { AIM_LOCK = 0, AIM_AIM = 1, AIM_ALIGN = 2, AIM_NONE = 3 };

/* The rotation (as a matrix, row vectors) that turns unit vector a onto unit vector b by the
 * shortest arc; opposite vectors turn by 180 degrees about any axis perpendicular to a. */
static void rotation_between(sinew_vec3_t a, sinew_vec3_t b, sinew_mat4_t *out) {
  sinew_vec3_t axis;
  sinew_vec3_cross(a, b, &axis);
  double s = sinew_vec3_length(axis), c = sinew_vec3_dot(a, b);
  if (s < 1e-12) {
    if (c > 0) {
      sinew_mat4_identity(out);
      return;
    }
    sinew_vec3_t other = fabs(a.x) < 0.9 ? (sinew_vec3_t){1, 0, 0} : (sinew_vec3_t){0, 1, 0};
    sinew_vec3_cross(a, other, &axis);
  }
  sinew_quat_t q;
  sinew_quat_from_axis_angle(axis, atan2(s, c), &q);
  sinew_quat_to_mat4(q, out);
}

/* The direction a mode asks the axis to take from position p: toward the point tv * tm (aim), or
 * along the direction tv * tm (align). Returns false for lock/none or a zero direction. */
static bool aim_direction(int mode, sinew_vec3_t p, sinew_vec3_t tv, const sinew_mat4_t *tm, sinew_vec3_t *out) {
  sinew_vec3_t d;
  if (mode == AIM_AIM) {
    sinew_mat4_transform_point(tv, tm, &d);
    sinew_vec3_sub(d, p, &d);
  } else if (mode == AIM_ALIGN) {
    sinew_mat4_transform_vector(tv, tm, &d);
  } else {
    return false;
  }
  if (sinew_vec3_length(d) < 1e-12) return false;
  sinew_vec3_normalize(d, out);
  return true;
}

/* Turns m's axes about the unit vector hinge so that v comes as close as it can to dir (both
 * projected on the plane perpendicular to hinge); nothing when either projection vanishes. */
static void turn_about(sinew_mat4_t *m, sinew_vec3_t hinge, sinew_vec3_t v, sinew_vec3_t dir);

/* Applies the rotation rot to m's axes (rows 0..2) about m's own position. */
static void rotate_axes(sinew_mat4_t *m, const sinew_mat4_t *rot) {
  for (int i = 0; i < 3; i++) {
    sinew_vec3_t v;
    sinew_mat4_transform_vector(row(m, i), rot, &v);
    set_row(m, i, v);
  }
}

static void turn_about(sinew_mat4_t *m, sinew_vec3_t hinge, sinew_vec3_t v, sinew_vec3_t dir) {
  sinew_vec3_t a2, b2;
  sinew_mat4_t rot;
  sinew_vec3_scale(hinge, sinew_vec3_dot(v, hinge), &a2);
  sinew_vec3_sub(v, a2, &a2);
  sinew_vec3_scale(hinge, sinew_vec3_dot(dir, hinge), &b2);
  sinew_vec3_sub(dir, b2, &b2);
  if (sinew_vec3_length(a2) <= 1e-9 || sinew_vec3_length(b2) <= 1e-9) return;
  sinew_vec3_normalize(a2, &a2);
  sinew_vec3_normalize(b2, &b2);
  rotation_between(a2, b2, &rot);
  rotate_axes(m, &rot);
}

/* The primary axis (pmi in the input's space) is turned by the shortest arc onto its target
 * direction; then the secondary axis is turned about the new primary axis as close as it can get
 * to its own target direction (both projected onto the plane perpendicular to the primary axis).
 * A target direction parallel to the primary axis leaves the secondary step out. With the
 * secondary axis in Lock Axis mode, the primary turn is a hinge about the secondary axis, which
 * keeps it unchanged. */
static int aim_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  if (plug->attr != A.am_tmat) return SINEW_EUNKNOWN_PLUG;
  sinew_mat4_t in, pre, post, m, rot, ptm, stm, out;
  getm(g, n, A.am_imat, &in);
  double env = get1(g, n, A.am_env, 1);
  if (get1(g, n, A.am_enb, 1) == 0 || env == 0) return setm(ctx, n, A.am_tmat, &in);
  getm(g, n, A.am_pre, &pre);
  getm(g, n, A.am_post, &post);
  getm(g, n, A.am_ptm, &ptm);
  getm(g, n, A.am_stm, &stm);
  sinew_mat4_mul(&in, &pre, &in);
  m = in;
  sinew_vec3_t p = row(&m, 3), axis, want;
  sinew_mat4_transform_vector(get3a(g, n, A.am_pmi), &m, &axis);
  sinew_vec3_normalize(axis, &axis);
  int pmode = (int)get1(g, n, A.am_pmod, AIM_AIM), smode = (int)get1(g, n, A.am_smod, AIM_NONE);
  sinew_vec3_t sec;
  sinew_mat4_transform_vector(get3a(g, n, A.am_smi), &m, &sec);
  sinew_vec3_normalize(sec, &sec);
  if (sinew_vec3_length(axis) > 0 && aim_direction(pmode, p, get3a(g, n, A.am_ptv), &ptm, &want)) {
    if (smode == AIM_LOCK && sinew_vec3_length(sec) > 0) {
      turn_about(&m, sec, axis, want); /* the secondary axis stays: a hinge about it */
      sinew_mat4_transform_vector(get3a(g, n, A.am_pmi), &m, &axis);
      sinew_vec3_normalize(axis, &axis);
    } else {
      rotation_between(axis, want, &rot);
      rotate_axes(&m, &rot);
      axis = want;
    }
  }
  sinew_vec3_t swant;
  sinew_mat4_transform_vector(get3a(g, n, A.am_smi), &m, &sec);
  if (sinew_vec3_length(axis) > 0 && aim_direction(smode, p, get3a(g, n, A.am_stv), &stm, &swant))
    turn_about(&m, axis, sec, swant); /* about the primary axis, which stays where it is */
  blend_matrix_parts(&in, &m, env, env, env, env, &out);
  sinew_mat4_mul(&out, &post, &out);
  return setm(ctx, n, A.am_tmat, &out);
}

/* ---- quaternion nodes (Maya's quatNodes plug-in) --------------------------------------------------- */

#define QIN(l, s) QUAT(l, s, SINEW_ATTR_INPUT | SINEW_ATTR_KEYABLE, 1, l "X", s "x", l "Y", s "y", l "Z", s "z", l "W", s "w")
#define QOUT(l, s) QUAT(l, s, F_OUT, 0, l "X", s "x", l "Y", s "y", l "Z", s "z", l "W", s "w")

static const sinew_attr_desc_t q2e_attrs[] = {
    QIN("inputQuat", "iq"),
    ROTATE_ORDER("inputRotateOrder", "iro"),
    VEC3("outputRotate", "ort", SINEW_ATTR_ANGLE, 0, F_OUT, "outputRotateX", "ortx", "outputRotateY", "orty",
         "outputRotateZ", "ortz"),
};
static const sinew_affects_t q2e_affects[] = {{"inputQuat", "outputRotate"}, {"inputRotateOrder", "outputRotate"}};

static const sinew_attr_desc_t e2q_attrs[] = {
    VEC3("inputRotate", "irt", SINEW_ATTR_ANGLE, 0, F_KEY, "inputRotateX", "irtx", "inputRotateY", "irty",
         "inputRotateZ", "irtz"),
    ROTATE_ORDER("inputRotateOrder", "iro"),
    QOUT("outputQuat", "oq"),
};
static const sinew_affects_t e2q_affects[] = {{"inputRotate", "outputQuat"}, {"inputRotateOrder", "outputQuat"}};

/* quatAdd, quatProd, quatSub */
static const sinew_attr_desc_t q2_attrs[] = {QIN("input1Quat", "iq1"), QIN("input2Quat", "iq2"), QOUT("outputQuat", "oq")};
static const sinew_affects_t q2_affects[] = {{"input1Quat", "outputQuat"}, {"input2Quat", "outputQuat"}};
/* quatInvert, quatNormalize, quatConjugate, quatNegate */
static const sinew_attr_desc_t q1_attrs[] = {QIN("inputQuat", "iq"), QOUT("outputQuat", "oq")};
static const sinew_affects_t q1_affects[] = {{"inputQuat", "outputQuat"}};

static const sinew_attr_desc_t qslerp_attrs[] = {
    QIN("input1Quat", "iq1"),
    QIN("input2Quat", "iq2"),
    {.name = "inputT", .short_name = "it", .type = SINEW_ATTR_DOUBLE, .flags = F_KEY},
    {.name = "angleDirection", .short_name = "ad", .type = SINEW_ATTR_ENUM, .enum_fields = "Shortest:Positive:Negative:Long"},
    QOUT("outputQuat", "oq"),
};
static const sinew_affects_t qslerp_affects[] = {{"input1Quat", "outputQuat"}, {"input2Quat", "outputQuat"},
                                                 {"inputT", "outputQuat"}, {"angleDirection", "outputQuat"}};

static const sinew_attr_desc_t aa2q_attrs[] = {
    VEC3("inputAxis", "ia", SINEW_ATTR_DOUBLE, 0, F_KEY, "inputAxisX", "iax", "inputAxisY", "iay", "inputAxisZ", "iaz"),
    {.name = "inputAngle", .short_name = "iag", .type = SINEW_ATTR_ANGLE, .flags = F_KEY},
    QOUT("outputQuat", "oq"),
};
static const sinew_affects_t aa2q_affects[] = {{"inputAxis", "outputQuat"}, {"inputAngle", "outputQuat"}};

static const sinew_attr_desc_t q2aa_attrs[] = {
    QIN("inputQuat", "iq"),
    VEC3("outputAxis", "oa", SINEW_ATTR_DOUBLE, 0, F_OUT, "outputAxisX", "oax", "outputAxisY", "oay", "outputAxisZ", "oaz"),
    {.name = "outputAngle", .short_name = "oang", .type = SINEW_ATTR_ANGLE, .flags = F_OUT},
};
static const sinew_affects_t q2aa_affects[] = {{"inputQuat", "outputAxis"}, {"inputQuat", "outputAngle"}};

/* Which one-input or two-input operation a node type performs (its type's user_data). */
enum quat_op { Q_ADD = 1, Q_PROD, Q_SUB, Q_INVERT, Q_NORMALIZE, Q_CONJUGATE, Q_NEGATE };

static int quat_op_of(sinew_graph_t *g, sinew_node_t n) {
  return (int)(intptr_t)sinew_node_type_user_data(sinew_node_type(g, n));
}

static int q2e_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  if (top_attr(g, plug) != A.qe_ort) return SINEW_EUNKNOWN_PLUG;
  sinew_quat_t q;
  sinew_quat_normalize(getq(g, n, A.qe_iq), &q);
  sinew_vec3_t r;
  sinew_quat_to_euler(q, order_of(get1(g, n, A.qe_iro, 0)), &r);
  return set3(ctx, n, A.qe_ort, r);
}

static int e2q_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  if (top_attr(g, plug) != A.eq_oq) return SINEW_EUNKNOWN_PLUG;
  sinew_quat_t q;
  sinew_quat_from_euler(get3a(g, n, A.eq_irt), order_of(get1(g, n, A.eq_iro, 0)), &q);
  return setq(ctx, n, A.eq_oq, q);
}

static int q2_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  if (top_attr(g, plug) != A.q2_o) return SINEW_EUNKNOWN_PLUG;
  sinew_quat_t a = getq(g, n, A.q2_a), b = getq(g, n, A.q2_b), o;
  switch (quat_op_of(g, n)) {
  case Q_ADD: o = (sinew_quat_t){a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w}; break;
  case Q_SUB: o = (sinew_quat_t){a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w}; break;
  default: sinew_quat_mul(a, b, &o); break; /* quatProd: "input1 then input2", as matrices */
  }
  return setq(ctx, n, A.q2_o, o);
}

static int q1_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  if (top_attr(g, plug) != A.q1_o) return SINEW_EUNKNOWN_PLUG;
  sinew_quat_t q = getq(g, n, A.q1_i), o;
  switch (quat_op_of(g, n)) {
  case Q_INVERT: {
    double d = sinew_quat_dot(q, q);
    if (d > 0) {
      sinew_quat_conjugate(q, &o);
      o = (sinew_quat_t){o.x / d, o.y / d, o.z / d, o.w / d};
    } else {
      sinew_quat_identity(&o); /* the zero quaternion has no inverse */
    }
    break;
  }
  case Q_NORMALIZE: sinew_quat_normalize(q, &o); break;
  case Q_CONJUGATE: sinew_quat_conjugate(q, &o); break;
  default: o = (sinew_quat_t){-q.x, -q.y, -q.z, -q.w}; break; /* quatNegate */
  }
  return setq(ctx, n, A.q1_o, o);
}

/* Slerp along the arc between a and b as given (no hemisphere flip); unit inputs. */
static void slerp_as_given(sinew_quat_t a, sinew_quat_t b, double t, sinew_quat_t *out) {
  double c = sinew_quat_dot(a, b);
  if (c > 1) c = 1;
  if (c < -1) c = -1;
  double th = acos(c), s = sin(th), wa, wb;
  if (s < 1e-9) {
    if (c > 0) { /* the same rotation: lerp is exact enough */
      wa = 1 - t;
      wb = t;
    } else { /* opposite quaternions: the arc is any great half-circle; go through a perpendicular */
      sinew_quat_t p = {-a.y, a.x, -a.w, a.z};
      double k = t * 3.14159265358979323846;
      *out = (sinew_quat_t){a.x * cos(k) + p.x * sin(k), a.y * cos(k) + p.y * sin(k), a.z * cos(k) + p.z * sin(k),
                            a.w * cos(k) + p.w * sin(k)};
      return;
    }
  } else {
    wa = sin((1 - t) * th) / s;
    wb = sin(t * th) / s;
  }
  *out = (sinew_quat_t){a.x * wa + b.x * wb, a.y * wa + b.y * wb, a.z * wa + b.z * wb, a.w * wa + b.w * wb};
}

/* angleDirection: 0 shortest arc, 3 the long way round; 1 and 2 interpolate the quaternions as
 * given (the sign of input2 then chooses the direction). */
static int qslerp_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  if (top_attr(g, plug) != A.qs_o) return SINEW_EUNKNOWN_PLUG;
  sinew_quat_t a, b, o;
  sinew_quat_normalize(getq(g, n, A.qs_a), &a);
  sinew_quat_normalize(getq(g, n, A.qs_b), &b);
  double t = get1(g, n, A.qs_t, 0);
  int dir = (int)get1(g, n, A.qs_ad, 0);
  if (dir == 0) {
    sinew_quat_slerp(a, b, t, &o);
  } else {
    if (dir == 3 && sinew_quat_dot(a, b) > 0) b = (sinew_quat_t){-b.x, -b.y, -b.z, -b.w};
    slerp_as_given(a, b, t, &o);
  }
  return setq(ctx, n, A.qs_o, o);
}

static int aa2q_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  if (top_attr(g, plug) != A.aa_oq) return SINEW_EUNKNOWN_PLUG;
  sinew_quat_t q;
  sinew_quat_from_axis_angle(get3a(g, n, A.aa_ia), get1(g, n, A.aa_ang, 0), &q);
  return setq(ctx, n, A.aa_oq, q);
}

/* angle = 2 acos(w) in [0, 2pi) of the normalised q; axis = (x, y, z) / sin(angle / 2); the
 * identity gives angle 0 and axis (1, 0, 0). */
static int q2aa_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  uint32_t a = top_attr(g, plug);
  if (a != A.qa_oa && a != A.qa_ang) return SINEW_EUNKNOWN_PLUG;
  sinew_quat_t q;
  sinew_quat_normalize(getq(g, n, A.qa_iq), &q);
  double w = q.w > 1 ? 1 : q.w < -1 ? -1 : q.w;
  double angle = 2 * acos(w), s = sqrt(1 - w * w);
  if (a == A.qa_ang) {
    sinew_plug_t p = sinew_plug_make(n, A.qa_ang, 0, NULL);
    return sinew_compute_set_double(ctx, &p, angle);
  }
  sinew_vec3_t axis = s < 1e-12 ? (sinew_vec3_t){1, 0, 0} : (sinew_vec3_t){q.x / s, q.y / s, q.z / s};
  return set3(ctx, n, A.qa_oa, axis);
}

/* ---- registration ---------------------------------------------------------------------------------- */

static int reg(sinew_graph_t *g, const char *name, const sinew_attr_desc_t *attrs, size_t na,
               const sinew_affects_t *aff, size_t naff, sinew_compute_fn fn, intptr_t op,
               const sinew_node_type_t **out) {
  sinew_node_type_desc_t d = {.name = name, .flags = SINEW_NODE_TYPE_PARALLEL, .attrs = attrs, .attr_count = na, .affects = aff,
                              .affects_count = naff, .compute = fn, .user_data = (void *)op};
  return sinew_register_node_type(g, &d, out);
}

#define REG(name, attrs, aff, fn, op, out) reg(g, name, attrs, COUNT(attrs), aff, COUNT(aff), fn, op, out)

static uint32_t id(const sinew_node_type_t *t, const char *name) { return sinew_node_type_attr(t, name); }

int sinew__register_matrix_types(sinew_graph_t *g) {
  if (sinew_find_node_type(g, "decomposeMatrix")) return SINEW_OK;
  const sinew_node_type_t *t;
  int rc;
  if ((rc = REG("decomposeMatrix", decompose_attrs, decompose_affects, decompose_compute, 0, &t))) return rc;
  A.dm_imat = id(t, "imat"), A.dm_ro = id(t, "ro"), A.dm_ot = id(t, "ot"), A.dm_or = id(t, "or");
  A.dm_os = id(t, "os"), A.dm_osh = id(t, "osh"), A.dm_oq = id(t, "oq");
  if ((rc = REG("composeMatrix", compose_attrs, compose_affects, compose_compute, 0, &t))) return rc;
  A.cm_it = id(t, "it"), A.cm_ir = id(t, "ir"), A.cm_iro = id(t, "iro"), A.cm_is = id(t, "is");
  A.cm_ish = id(t, "ish"), A.cm_iq = id(t, "iq"), A.cm_uer = id(t, "uer"), A.cm_omat = id(t, "omat");
  if ((rc = REG("multMatrix", mult_attrs, mult_affects, mult_compute, 0, &t))) return rc;
  A.mm_i = id(t, "i"), A.mm_o = id(t, "o");
  if ((rc = REG("addMatrix", mult_attrs, mult_affects, add_compute, 0, &t))) return rc; /* same ids */
  if ((rc = REG("inverseMatrix", inverse_attrs, inverse_affects, inverse_compute, 0, &t))) return rc;
  A.im_imat = id(t, "imat"), A.im_omat = id(t, "omat");
  if ((rc = REG("pickMatrix", pick_attrs, pick_affects, pick_compute, 0, &t))) return rc;
  A.pk_imat = id(t, "imat"), A.pk_tmat = id(t, "tmat"), A.pk_tra = id(t, "tra"), A.pk_rot = id(t, "rot");
  A.pk_sca = id(t, "sca"), A.pk_she = id(t, "she");
  if ((rc = REG("blendMatrix", blend_attrs, blend_affects, blend_compute, 0, &t))) return rc;
  A.bm_imat = id(t, "imat"), A.bm_omat = id(t, "omat"), A.bm_env = id(t, "env"), A.bm_enb = id(t, "enb");
  A.bm_pre = id(t, "premat"), A.bm_post = id(t, "pstmat"), A.bm_tgt = id(t, "tgt"), A.bm_tmat = id(t, "tmat");
  A.bm_wgt = id(t, "wgt"), A.bm_use = id(t, "umt"), A.bm_sca = id(t, "sca"), A.bm_tra = id(t, "tra");
  A.bm_rot = id(t, "rot"), A.bm_she = id(t, "she");
  if ((rc = REG("aimMatrix", aim_attrs, aim_affects, aim_compute, 0, &t))) return rc;
  A.am_imat = id(t, "imat"), A.am_tmat = id(t, "tmat"), A.am_env = id(t, "env"), A.am_enb = id(t, "enb");
  A.am_pre = id(t, "premat"), A.am_post = id(t, "pstmat"), A.am_pmi = id(t, "pmi"), A.am_pmod = id(t, "pm");
  A.am_ptv = id(t, "pmiv"), A.am_ptm = id(t, "pmat"), A.am_smi = id(t, "smi"), A.am_smod = id(t, "sm");
  A.am_stv = id(t, "smiv"), A.am_stm = id(t, "smat");
  if ((rc = REG("wtAddMatrix", wtadd_attrs, wtadd_affects, wtadd_compute, 0, &t))) return rc;
  A.wa_i = id(t, "i"), A.wa_m = id(t, "m"), A.wa_w = id(t, "w"), A.wa_o = id(t, "o");
  if ((rc = REG("holdMatrix", hold_attrs, hold_affects, hold_compute, 0, &t))) return rc;
  A.hm_i = id(t, "i"), A.hm_o = id(t, "o");
  if ((rc = REG("fourByFourMatrix", ff_attrs, ff_affects, ff_compute, 0, &t))) return rc;
  for (int k = 0; k < 16; k++) A.ff_in[k] = id(t, ff_attrs[k].name);
  A.ff_o = id(t, "o");
  if ((rc = REG("quatToEuler", q2e_attrs, q2e_affects, q2e_compute, 0, &t))) return rc;
  A.qe_iq = id(t, "iq"), A.qe_iro = id(t, "iro"), A.qe_ort = id(t, "ort");
  if ((rc = REG("eulerToQuat", e2q_attrs, e2q_affects, e2q_compute, 0, &t))) return rc;
  A.eq_irt = id(t, "irt"), A.eq_iro = id(t, "iro"), A.eq_oq = id(t, "oq");
  static const struct { const char *name; int op; } two[] = {{"quatAdd", Q_ADD}, {"quatProd", Q_PROD}, {"quatSub", Q_SUB}};
  for (size_t k = 0; k < COUNT(two); k++)
    if ((rc = REG(two[k].name, q2_attrs, q2_affects, q2_compute, two[k].op, &t))) return rc;
  A.q2_a = id(t, "iq1"), A.q2_b = id(t, "iq2"), A.q2_o = id(t, "oq");
  static const struct { const char *name; int op; } one[] = {
      {"quatInvert", Q_INVERT}, {"quatNormalize", Q_NORMALIZE}, {"quatConjugate", Q_CONJUGATE}, {"quatNegate", Q_NEGATE}};
  for (size_t k = 0; k < COUNT(one); k++)
    if ((rc = REG(one[k].name, q1_attrs, q1_affects, q1_compute, one[k].op, &t))) return rc;
  A.q1_i = id(t, "iq"), A.q1_o = id(t, "oq");
  if ((rc = REG("quatSlerp", qslerp_attrs, qslerp_affects, qslerp_compute, 0, &t))) return rc;
  A.qs_a = id(t, "iq1"), A.qs_b = id(t, "iq2"), A.qs_t = id(t, "it"), A.qs_ad = id(t, "ad"), A.qs_o = id(t, "oq");
  if ((rc = REG("axisAngleToQuat", aa2q_attrs, aa2q_affects, aa2q_compute, 0, &t))) return rc;
  A.aa_ia = id(t, "ia"), A.aa_ang = id(t, "iag"), A.aa_oq = id(t, "oq");
  if ((rc = REG("quatToAxisAngle", q2aa_attrs, q2aa_affects, q2aa_compute, 0, &t))) return rc;
  A.qa_iq = id(t, "iq"), A.qa_oa = id(t, "oa"), A.qa_ang = id(t, "oang");
  return SINEW_OK;
}
