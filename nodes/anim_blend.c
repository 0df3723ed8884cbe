/* nodes/anim_blend.c: the nodes Maya puts between animation curves and the attributes they
 * drive (spec maya-reference-rigging.md 1.1 and 2.7):
 *
 *   pairBlend      two translate/rotate triples blended by weight (keys in input 1, a
 *                  constraint in input 2); rotations per Euler channel or by quaternion slerp
 *   blendWeighted  output = sum of input[k] * weight[k] (several set-driven keys on one plug;
 *                  a missing weight is 1)
 *   blendTwoAttr   output = input[0] * (1 - ab) + input[1] * ab
 *   animBlendNodeAdditive* (animation layers: one node per layer and channel, chained layer to
 *                  layer): output = inputA * weightA + inputB * weightB, in the channel's unit;
 *                  Scale: inputA^weightA * inputB^weightB (multiply accumulation, the default);
 *                  Rotation: per component (by component, the default) or the rotations
 *                  composed as quaternions (by layer); Boolean and Enum: weightB > 0 ? B : A.
 *   animLayer      a layer's weight, mute, solo, override and passthrough, and its place in
 *                  the layer hierarchy, made into the weights its blend nodes use. */
#include <math.h>

#include "nodes/nodes_internal.h"

#define F_ARR (SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY)
#define F_KEY (SINEW_ATTR_INPUT | SINEW_ATTR_KEYABLE)

/* ---- pairBlend -------------------------------------------------------------------------------- */

static const sinew_attr_desc_t pair_blend_attrs[] = {
    {.name = "inTranslate1", .short_name = "it1", .type = SINEW_ATTR_COMPOUND},
    {.name = "inTranslateX1", .short_name = "itx1", .type = SINEW_ATTR_DISTANCE, .parent = "inTranslate1", .flags = F_KEY},
    {.name = "inTranslateY1", .short_name = "ity1", .type = SINEW_ATTR_DISTANCE, .parent = "inTranslate1", .flags = F_KEY},
    {.name = "inTranslateZ1", .short_name = "itz1", .type = SINEW_ATTR_DISTANCE, .parent = "inTranslate1", .flags = F_KEY},
    {.name = "inRotate1", .short_name = "ir1", .type = SINEW_ATTR_COMPOUND},
    {.name = "inRotateX1", .short_name = "irx1", .type = SINEW_ATTR_ANGLE, .parent = "inRotate1", .flags = F_KEY},
    {.name = "inRotateY1", .short_name = "iry1", .type = SINEW_ATTR_ANGLE, .parent = "inRotate1", .flags = F_KEY},
    {.name = "inRotateZ1", .short_name = "irz1", .type = SINEW_ATTR_ANGLE, .parent = "inRotate1", .flags = F_KEY},
    {.name = "inTranslate2", .short_name = "it2", .type = SINEW_ATTR_COMPOUND},
    {.name = "inTranslateX2", .short_name = "itx2", .type = SINEW_ATTR_DISTANCE, .parent = "inTranslate2", .flags = F_KEY},
    {.name = "inTranslateY2", .short_name = "ity2", .type = SINEW_ATTR_DISTANCE, .parent = "inTranslate2", .flags = F_KEY},
    {.name = "inTranslateZ2", .short_name = "itz2", .type = SINEW_ATTR_DISTANCE, .parent = "inTranslate2", .flags = F_KEY},
    {.name = "inRotate2", .short_name = "ir2", .type = SINEW_ATTR_COMPOUND},
    {.name = "inRotateX2", .short_name = "irx2", .type = SINEW_ATTR_ANGLE, .parent = "inRotate2", .flags = F_KEY},
    {.name = "inRotateY2", .short_name = "iry2", .type = SINEW_ATTR_ANGLE, .parent = "inRotate2", .flags = F_KEY},
    {.name = "inRotateZ2", .short_name = "irz2", .type = SINEW_ATTR_ANGLE, .parent = "inRotate2", .flags = F_KEY},
    {.name = "weight", .short_name = "w", .type = SINEW_ATTR_DOUBLE, .flags = F_KEY, .default_value = 1,
     .has_min = true, .has_max = true, .min_value = 0, .max_value = 1},
    {.name = "rotInterpolation", .short_name = "ri", .type = SINEW_ATTR_ENUM, .enum_fields = "Euler:Quaternion"},
    {.name = "rotateMode", .short_name = "rm", .type = SINEW_ATTR_ENUM, .enum_fields = "Blend:Input 1 only:Input 2 only"},
    {.name = "translateXMode", .short_name = "txm", .type = SINEW_ATTR_ENUM, .enum_fields = "Blend:Input 1 only:Input 2 only"},
    {.name = "translateYMode", .short_name = "tym", .type = SINEW_ATTR_ENUM, .enum_fields = "Blend:Input 1 only:Input 2 only"},
    {.name = "translateZMode", .short_name = "tzm", .type = SINEW_ATTR_ENUM, .enum_fields = "Blend:Input 1 only:Input 2 only"},
    {.name = "rotateOrder", .short_name = "ro", .type = SINEW_ATTR_ENUM, .enum_fields = "xyz:yzx:zxy:xzy:yxz:zyx"},
    {.name = "currentDriver", .short_name = "c", .type = SINEW_ATTR_INT},
    {.name = "outTranslate", .short_name = "ot", .type = SINEW_ATTR_COMPOUND, .flags = SINEW_ATTR_OUTPUT},
    {.name = "outTranslateX", .short_name = "otx", .type = SINEW_ATTR_DISTANCE, .parent = "outTranslate", .flags = SINEW_ATTR_OUTPUT},
    {.name = "outTranslateY", .short_name = "oty", .type = SINEW_ATTR_DISTANCE, .parent = "outTranslate", .flags = SINEW_ATTR_OUTPUT},
    {.name = "outTranslateZ", .short_name = "otz", .type = SINEW_ATTR_DISTANCE, .parent = "outTranslate", .flags = SINEW_ATTR_OUTPUT},
    {.name = "outRotate", .short_name = "or", .type = SINEW_ATTR_COMPOUND, .flags = SINEW_ATTR_OUTPUT},
    {.name = "outRotateX", .short_name = "orx", .type = SINEW_ATTR_ANGLE, .parent = "outRotate", .flags = SINEW_ATTR_OUTPUT},
    {.name = "outRotateY", .short_name = "ory", .type = SINEW_ATTR_ANGLE, .parent = "outRotate", .flags = SINEW_ATTR_OUTPUT},
    {.name = "outRotateZ", .short_name = "orz", .type = SINEW_ATTR_ANGLE, .parent = "outRotate", .flags = SINEW_ATTR_OUTPUT},
};
static const sinew_affects_t pair_blend_affects[] = {
    {"inTranslate1", "outTranslate"}, {"inTranslate2", "outTranslate"}, {"weight", "outTranslate"},
    {"translateXMode", "outTranslate"}, {"translateYMode", "outTranslate"}, {"translateZMode", "outTranslate"},
    {"inRotate1", "outRotate"}, {"inRotate2", "outRotate"}, {"weight", "outRotate"},
    {"rotInterpolation", "outRotate"}, {"rotateMode", "outRotate"}, {"rotateOrder", "outRotate"}};

static struct {
  uint32_t it1, ir1, it2, ir2, w, ri, rm, txm, tym, tzm, ro, ot, or_;
  uint32_t bw_input, bw_weight, bw_output, bt_input, bt_ab, bt_output;
} A;

static double get1(sinew_graph_t *g, sinew_node_t n, uint32_t attr, double dflt) {
  sinew_plug_t p = sinew_plug_make(n, attr, 0, NULL);
  double v = dflt;
  sinew_get_double(g, &p, &v);
  return v;
}

static sinew_vec3_t get3(sinew_graph_t *g, sinew_node_t n, uint32_t attr) {
  sinew_plug_t p = sinew_plug_make(n, attr, 0, NULL);
  double v[3] = {0, 0, 0};
  sinew_get_doubles(g, &p, v, 3, NULL);
  return (sinew_vec3_t){v[0], v[1], v[2]};
}

/* One channel by its mode: 0 blend, 1 input 1 only, 2 input 2 only. */
static double blend_channel(double a, double b, double w, int mode) {
  if (mode == 1) return a;
  if (mode == 2) return b;
  return a * (1 - w) + b * w;
}

static int set3(sinew_compute_t *ctx, sinew_node_t n, uint32_t attr, sinew_vec3_t v) {
  sinew_plug_t p = sinew_plug_make(n, attr, 0, NULL);
  double d[3] = {v.x, v.y, v.z};
  return sinew_compute_set_doubles(ctx, &p, d, 3);
}

static sinew_vec3_t blend_rotation(sinew_graph_t *g, sinew_node_t n, double w) {
  sinew_vec3_t r1 = get3(g, n, A.ir1), r2 = get3(g, n, A.ir2);
  int mode = (int)get1(g, n, A.rm, 0);
  if (mode == 1) return r1;
  if (mode == 2) return r2;
  if ((int)get1(g, n, A.ri, 0) != 1)
    return (sinew_vec3_t){r1.x + (r2.x - r1.x) * w, r1.y + (r2.y - r1.y) * w, r1.z + (r2.z - r1.z) * w};
  int ro = (int)get1(g, n, A.ro, 0);
  sinew_rotate_order_t order = ro >= 0 && ro <= 5 ? (sinew_rotate_order_t)ro : SINEW_ROTATE_XYZ;
  sinew_quat_t q1, q2, q;
  sinew_quat_from_euler(r1, order, &q1);
  sinew_quat_from_euler(r2, order, &q2);
  sinew_quat_slerp(q1, q2, w, &q);
  sinew_vec3_t out;
  sinew_quat_to_euler(q, order, &out);
  return out;
}

static int pair_blend_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  sinew_plug_t parent;
  uint32_t attr = sinew_plug_parent(g, plug, &parent) ? parent.attr : plug->attr;
  double w = get1(g, n, A.w, 1);
  if (attr == A.ot) {
    sinew_vec3_t a = get3(g, n, A.it1), b = get3(g, n, A.it2);
    sinew_vec3_t t = {blend_channel(a.x, b.x, w, (int)get1(g, n, A.txm, 0)),
                      blend_channel(a.y, b.y, w, (int)get1(g, n, A.tym, 0)),
                      blend_channel(a.z, b.z, w, (int)get1(g, n, A.tzm, 0))};
    return set3(ctx, n, A.ot, t);
  }
  if (attr == A.or_) return set3(ctx, n, A.or_, blend_rotation(g, n, w));
  return SINEW_EUNKNOWN_PLUG;
}

/* ---- blendWeighted and blendTwoAttr ----------------------------------------------------------- */

/* Maya's abstract "blend": a multi of inputs and one output; currentDriver is stored only. */
static const sinew_attr_desc_t blend_weighted_attrs[] = {
    {.name = "input", .short_name = "i", .type = SINEW_ATTR_DOUBLE, .flags = F_ARR | SINEW_ATTR_KEYABLE},
    {.name = "current", .short_name = "c", .type = SINEW_ATTR_INT},
    {.name = "output", .short_name = "o", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT},
    {.name = "weight", .short_name = "w", .type = SINEW_ATTR_FLOAT, .flags = F_ARR | SINEW_ATTR_KEYABLE,
     .default_value = 1},
};
static const sinew_affects_t blend_weighted_affects[] = {{"input", "output"}, {"weight", "output"}};

static const sinew_attr_desc_t blend_two_attrs[] = {
    {.name = "input", .short_name = "i", .type = SINEW_ATTR_DOUBLE, .flags = F_ARR | SINEW_ATTR_KEYABLE},
    {.name = "current", .short_name = "c", .type = SINEW_ATTR_INT},
    {.name = "output", .short_name = "o", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT},
    {.name = "attributesBlender", .short_name = "ab", .type = SINEW_ATTR_FLOAT, .flags = F_KEY},
};
static const sinew_affects_t blend_two_affects[] = {{"input", "output"}, {"attributesBlender", "output"}};

static double element(sinew_graph_t *g, sinew_node_t n, uint32_t attr, int32_t i, double dflt) {
  sinew_plug_t p = sinew_plug_make(n, attr, 1, &i);
  double v = dflt;
  if (sinew_plug_has_value(g, &p) || sinew_plug_source(g, &p, NULL)) sinew_get_double(g, &p, &v);
  return v;
}

/* The inputs' indices and values, kept between evaluations so that a frame allocates nothing
 * (the buffer grows only when inputs are added). */
typedef struct blend_state {
  sinew_data_t *buf;
  size_t cap;
} blend_state;

static void blend_destroy(sinew_graph_t *g, sinew_node_t n, void *state) {
  (void)g;
  (void)n;
  sinew_data_unref(((blend_state *)state)->buf);
}

/* The elements of a numeric multi (their indices and values) in the node's buffer, which grows
 * only when elements are added. */
static int read_elements(sinew_graph_t *g, blend_state *st, const sinew_plug_t *array, const int32_t **idx,
                         const double **val, size_t *total) {
  size_t count = sinew_plug_indices(g, array, NULL, 0);
  *total = 0;
  if (!count) return SINEW_OK;
  if (count > st->cap) {
    sinew_data_t *buf = NULL;
    if (!sinew__scratch(count * (sizeof(double) + sizeof(int32_t)), &buf)) return SINEW_ENOMEM;
    sinew_data_unref(st->buf);
    st->buf = buf;
    st->cap = count;
  }
  double *v = sinew_data_mutable(&st->buf);
  int32_t *i = (int32_t *)(v + st->cap);
  int rc = sinew_get_double_elements(g, array, i, v, count, total);
  if (*total > count) *total = count;
  *idx = i;
  *val = v;
  return rc;
}

/* output = sum of input[k] * weight[k] over the inputs there are (a missing weight is 1). */
static int blend_weighted_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != A.bw_output) return SINEW_EUNKNOWN_PLUG;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  sinew_plug_t in = sinew_plug_make(n, A.bw_input, 0, NULL);
  const int32_t *idx = NULL;
  const double *val = NULL;
  size_t total = 0;
  int rc = read_elements(g, sinew_compute_state(ctx), &in, &idx, &val, &total);
  if (rc) return rc;
  double sum = 0;
  for (size_t k = 0; k < total; k++) sum += val[k] * element(g, n, A.bw_weight, idx[k], 1.0);
  return sinew_compute_set_double(ctx, plug, sum);
}

static int blend_two_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != A.bt_output) return SINEW_EUNKNOWN_PLUG;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  double ab = get1(g, n, A.bt_ab, 0);
  double a = element(g, n, A.bt_input, 0, 0), b = element(g, n, A.bt_input, 1, 0);
  return sinew_compute_set_double(ctx, plug, a * (1 - ab) + b * ab);
}

/* ---- animation layer blend nodes (animBlendNodeBase and its family) ------------------------------ */

static const sinew_attr_desc_t layer_base_attrs[] = {
    {.name = "destinationPlug", .short_name = "dp", .type = SINEW_ATTR_STRING, .flags = F_ARR},
    {.name = "weightA", .short_name = "wa", .type = SINEW_ATTR_DOUBLE, .flags = F_KEY, .default_value = 1},
    {.name = "weightB", .short_name = "wb", .type = SINEW_ATTR_DOUBLE, .flags = F_KEY, .default_value = 1},
};

/* The scalar members of the family: the same attributes, typed as the channel they drive. */
#define LAYER_SCALAR_ATTRS(name_, type_)                                                                  \
  static const sinew_attr_desc_t name_[] = {                                                              \
      {.name = "inputA", .short_name = "ia", .type = type_, .flags = F_KEY},                              \
      {.name = "inputB", .short_name = "ib", .type = type_, .flags = F_KEY},                              \
      {.name = "interpolateMode", .short_name = "im", .type = SINEW_ATTR_ENUM, .flags = F_KEY,            \
       .enum_fields = "Additive:Multiply"},                                                               \
      {.name = "output", .short_name = "o", .type = type_, .flags = SINEW_ATTR_OUTPUT},                   \
  }
LAYER_SCALAR_ATTRS(layer_double_attrs, SINEW_ATTR_DOUBLE);
LAYER_SCALAR_ATTRS(layer_float_attrs, SINEW_ATTR_FLOAT);
LAYER_SCALAR_ATTRS(layer_distance_attrs, SINEW_ATTR_DISTANCE);
LAYER_SCALAR_ATTRS(layer_angle_attrs, SINEW_ATTR_ANGLE);
LAYER_SCALAR_ATTRS(layer_int_attrs, SINEW_ATTR_INT);
static const sinew_attr_desc_t layer_scale_attrs[] = {
    {.name = "accumulationMode", .short_name = "acm", .type = SINEW_ATTR_ENUM, .flags = F_KEY,
     .enum_fields = "Multiply:Additive"},
    {.name = "inputA", .short_name = "ia", .type = SINEW_ATTR_DOUBLE, .flags = F_KEY},
    {.name = "inputB", .short_name = "ib", .type = SINEW_ATTR_DOUBLE, .flags = F_KEY},
    {.name = "output", .short_name = "o", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT},
};
static const sinew_attr_desc_t layer_switch_attrs[] = { /* Boolean and Enum: an override */
    {.name = "inputA", .short_name = "ia", .type = SINEW_ATTR_INT, .flags = F_KEY},
    {.name = "inputB", .short_name = "ib", .type = SINEW_ATTR_INT, .flags = F_KEY},
    {.name = "output", .short_name = "o", .type = SINEW_ATTR_INT, .flags = SINEW_ATTR_OUTPUT},
};
static const sinew_attr_desc_t layer_rotation_attrs[] = {
    {.name = "accumulationMode", .short_name = "acm", .type = SINEW_ATTR_ENUM, .flags = F_KEY,
     .enum_fields = "By Component:By Layer"},
    {.name = "byLayerAccLegacyMode", .short_name = "bllm", .type = SINEW_ATTR_BOOL, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_HIDDEN},
    {.name = "inputA", .short_name = "ia", .type = SINEW_ATTR_COMPOUND},
    {.name = "inputAX", .short_name = "iax", .type = SINEW_ATTR_ANGLE, .parent = "inputA", .flags = F_KEY},
    {.name = "inputAY", .short_name = "iay", .type = SINEW_ATTR_ANGLE, .parent = "inputA", .flags = F_KEY},
    {.name = "inputAZ", .short_name = "iaz", .type = SINEW_ATTR_ANGLE, .parent = "inputA", .flags = F_KEY},
    {.name = "inputB", .short_name = "ib", .type = SINEW_ATTR_COMPOUND},
    {.name = "inputBX", .short_name = "ibx", .type = SINEW_ATTR_ANGLE, .parent = "inputB", .flags = F_KEY},
    {.name = "inputBY", .short_name = "iby", .type = SINEW_ATTR_ANGLE, .parent = "inputB", .flags = F_KEY},
    {.name = "inputBZ", .short_name = "ibz", .type = SINEW_ATTR_ANGLE, .parent = "inputB", .flags = F_KEY},
    {.name = "rotateOrder", .short_name = "ro", .type = SINEW_ATTR_ENUM, .flags = F_KEY,
     .enum_fields = "xyz:yzx:zxy:xzy:yxz:zyx"},
    {.name = "rotationInterpolation", .short_name = "ri", .type = SINEW_ATTR_ENUM, .flags = F_KEY,
     .enum_fields = "Euler:Quaternion"},
    {.name = "output", .short_name = "o", .type = SINEW_ATTR_COMPOUND, .flags = SINEW_ATTR_OUTPUT},
    {.name = "outputX", .short_name = "ox", .type = SINEW_ATTR_ANGLE, .parent = "output", .flags = SINEW_ATTR_OUTPUT},
    {.name = "outputY", .short_name = "oy", .type = SINEW_ATTR_ANGLE, .parent = "output", .flags = SINEW_ATTR_OUTPUT},
    {.name = "outputZ", .short_name = "oz", .type = SINEW_ATTR_ANGLE, .parent = "output", .flags = SINEW_ATTR_OUTPUT},
};
static const sinew_affects_t layer_affects[] = {
    {"inputA", "output"}, {"inputB", "output"}, {"weightA", "output"}, {"weightB", "output"},
    {"interpolateMode", "output"}};
static const sinew_affects_t layer_scale_affects[] = {
    {"inputA", "output"}, {"inputB", "output"}, {"weightA", "output"}, {"weightB", "output"},
    {"accumulationMode", "output"}};
static const sinew_affects_t layer_switch_affects[] = {
    {"inputA", "output"}, {"inputB", "output"}, {"weightB", "output"}};
static const sinew_affects_t layer_rotation_affects[] = {
    {"inputA", "output"}, {"inputB", "output"}, {"weightA", "output"}, {"weightB", "output"},
    {"accumulationMode", "output"}, {"rotateOrder", "output"}};

/* What a layer blend type computes, and its attribute ids, found once when the types are
 * registered (identical in every graph: registered from the same tables); each type's
 * user_data points at its entry. */
typedef enum layer_kind { LAYER_SUM, LAYER_SUM_INT, LAYER_SCALE, LAYER_SWITCH, LAYER_ROTATION } layer_kind;

typedef struct layer_type {
  layer_kind kind;
  uint32_t wa, wb, ia, ib, o, acm, ro;
} layer_type;

static int layer_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  const layer_type *lt = sinew_node_type_user_data(sinew_node_type(g, n));
  if (plug->attr != lt->o) return SINEW_EUNKNOWN_PLUG;
  double wa = get1(g, n, lt->wa, 1), wb = get1(g, n, lt->wb, 1);
  double a = get1(g, n, lt->ia, 0), b = get1(g, n, lt->ib, 0), v;
  if (lt->kind == LAYER_SWITCH) {
    v = wb > 0 ? b : a; /* an override: B wherever the layer has weight */
  } else if (lt->kind == LAYER_SCALE && get1(g, n, lt->acm, 0) == 0) {
    v = pow(a, wa) * pow(b, wb);
    if (!isfinite(v)) v = 0; /* a negative scale to a fractional weight */
  } else {
    v = a * wa + b * wb;
  }
  if (lt->kind == LAYER_SUM_INT) v = round(v);
  return sinew_compute_set_double(ctx, plug, v);
}

static int layer_rotation_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  const layer_type *lt = sinew_node_type_user_data(sinew_node_type(g, n));
  sinew_plug_t parent;
  bool whole = plug->attr == lt->o, child = !whole && sinew_plug_parent(g, plug, &parent) && parent.attr == lt->o;
  if (!whole && !child) return SINEW_EUNKNOWN_PLUG;
  double wa = get1(g, n, lt->wa, 1), wb = get1(g, n, lt->wb, 1);
  sinew_vec3_t a = get3(g, n, lt->ia), b = get3(g, n, lt->ib), r;
  if (get1(g, n, lt->acm, 0) == 0) {
    r = (sinew_vec3_t){a.x * wa + b.x * wb, a.y * wa + b.y * wb, a.z * wa + b.z * wb};
  } else {
    /* by layer: layer B's rotation, scaled by its weight, applied after A's (quaternions in the
     * node's rotate order) */
    sinew_rotate_order_t ro = (sinew_rotate_order_t)(int)get1(g, n, lt->ro, 0);
    sinew_quat_t qa, qb, id, q;
    sinew_quat_identity(&id);
    sinew_quat_from_euler((sinew_vec3_t){a.x * wa, a.y * wa, a.z * wa}, ro, &qa);
    sinew_quat_from_euler(b, ro, &qb);
    sinew_quat_slerp(id, qb, wb, &qb);
    sinew_quat_mul(qa, qb, &q);
    sinew_quat_to_euler(q, ro, &r);
  }
  return set3(ctx, n, lt->o, r);
}

/* ---- animLayer: a layer's weight, mute and solo, made into the weights of its blend nodes ------ */

/* Maya's animLayer (an objectSet: dagSetMembers lists the layered plugs). Its outputs feed the
 * blend nodes of the layer (bgwt -> wa, fgwt -> wb, oram / sam -> acm) and the layers below it in
 * the layer hierarchy (fgwt -> child.pwth, omte -> child.pmte, csol -> child.sslo; the child's
 * sl -> chsl[i] and play -> cdly[i] go up). Short names from Autodesk's node reference and the
 * files Maya writes, except those of weight, passthrough and rotationAccumulationMode, which
 * are inferred (docs/animation.md, "The animLayer node"). */
static const sinew_attr_desc_t anim_layer_attrs[] = {
    {.name = "blendNodes", .short_name = "bnds", .type = SINEW_ATTR_MESSAGE, .flags = F_ARR},
    {.name = "childrenLayers", .short_name = "cdly", .type = SINEW_ATTR_MESSAGE, .flags = F_ARR},
    {.name = "parentLayer", .short_name = "play", .type = SINEW_ATTR_MESSAGE},
    {.name = "weight", .short_name = "wth", .type = SINEW_ATTR_DOUBLE, .flags = F_KEY, .default_value = 1,
     .has_min = true, .has_max = true, .min_value = 0, .max_value = 1},
    {.name = "mute", .short_name = "mt", .type = SINEW_ATTR_BOOL, .flags = F_KEY},
    {.name = "solo", .short_name = "sl", .type = SINEW_ATTR_BOOL, .flags = F_KEY},
    {.name = "lock", .short_name = "lo", .type = SINEW_ATTR_BOOL},
    {.name = "override", .short_name = "ovrd", .type = SINEW_ATTR_BOOL},
    {.name = "passthrough", .short_name = "pth", .type = SINEW_ATTR_BOOL, .default_value = 1},
    {.name = "preferred", .short_name = "pref", .type = SINEW_ATTR_BOOL},
    {.name = "selected", .short_name = "slct", .type = SINEW_ATTR_BOOL},
    {.name = "collapse", .short_name = "coll", .type = SINEW_ATTR_BOOL},
    {.name = "ghost", .short_name = "gh", .type = SINEW_ATTR_BOOL},
    {.name = "ghostColor", .short_name = "ghc", .type = SINEW_ATTR_INT, .default_value = 5},
    {.name = "rotationAccumulationMode", .short_name = "ram", .type = SINEW_ATTR_ENUM,
     .enum_fields = "By Component:By Layer"},
    {.name = "scaleAccumulationMode", .short_name = "sam", .type = SINEW_ATTR_ENUM, .enum_fields = "Multiply:Additive"},
    {.name = "parentWeight", .short_name = "pwth", .type = SINEW_ATTR_DOUBLE, .default_value = 1},
    {.name = "parentMute", .short_name = "pmte", .type = SINEW_ATTR_BOOL},
    {.name = "siblingSolo", .short_name = "sslo", .type = SINEW_ATTR_BOOL},
    {.name = "childrenSolo", .short_name = "chsl", .type = SINEW_ATTR_BOOL, .flags = F_ARR},
    {.name = "childsoloed", .short_name = "csol", .type = SINEW_ATTR_BOOL, .flags = SINEW_ATTR_OUTPUT},
    {.name = "foregroundWeight", .short_name = "fgwt", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT},
    {.name = "backgroundWeight", .short_name = "bgwt", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT},
    {.name = "outMute", .short_name = "omte", .type = SINEW_ATTR_BOOL, .flags = SINEW_ATTR_OUTPUT},
    {.name = "outRotationAccumulationMode", .short_name = "oram", .type = SINEW_ATTR_ENUM,
     .enum_fields = "By Component:By Layer", .flags = SINEW_ATTR_OUTPUT},
};
static const sinew_affects_t anim_layer_affects[] = {
    {"weight", "foregroundWeight"}, {"parentWeight", "foregroundWeight"}, {"mute", "foregroundWeight"},
    {"parentMute", "foregroundWeight"}, {"solo", "foregroundWeight"}, {"siblingSolo", "foregroundWeight"},
    {"weight", "backgroundWeight"}, {"parentWeight", "backgroundWeight"}, {"mute", "backgroundWeight"},
    {"parentMute", "backgroundWeight"}, {"solo", "backgroundWeight"}, {"siblingSolo", "backgroundWeight"},
    {"override", "backgroundWeight"}, {"passthrough", "backgroundWeight"},
    {"mute", "outMute"}, {"parentMute", "outMute"},
    {"childrenSolo", "childsoloed"},
    {"rotationAccumulationMode", "outRotationAccumulationMode"}};

static struct {
  uint32_t w, mt, sl, ovrd, pth, ram, pwth, pmte, sslo, chsl, csol, fgwt, bgwt, omte, oram;
} L;

/* fgwt = weight x parentWeight, 0 when the layer or a layer above it is muted or a sibling is
 * soloed and it is not; bgwt = what the layers below keep: all of it under an additive layer or
 * an inactive one, 1 - fgwt under an override layer with passthrough, nothing under an opaque
 * override layer. */
static int anim_layer_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  bool muted = get1(g, n, L.mt, 0) != 0 || get1(g, n, L.pmte, 0) != 0;
  if (plug->attr == L.omte) return sinew_compute_set_double(ctx, plug, muted);
  if (plug->attr == L.oram) return sinew_compute_set_double(ctx, plug, get1(g, n, L.ram, 0));
  if (plug->attr == L.csol) { /* any child soloed */
    sinew_plug_t chsl = sinew_plug_make(n, L.chsl, 0, NULL);
    const int32_t *idx = NULL;
    const double *val = NULL;
    size_t total = 0;
    int rc = read_elements(g, sinew_compute_state(ctx), &chsl, &idx, &val, &total);
    if (rc) return rc;
    bool any = false;
    for (size_t k = 0; k < total; k++) any = any || val[k] != 0;
    return sinew_compute_set_double(ctx, plug, any);
  }
  if (plug->attr != L.fgwt && plug->attr != L.bgwt) return SINEW_EUNKNOWN_PLUG;
  bool excluded = get1(g, n, L.sslo, 0) != 0 && get1(g, n, L.sl, 0) == 0;
  double fg = muted || excluded ? 0 : get1(g, n, L.w, 1) * get1(g, n, L.pwth, 1);
  if (plug->attr == L.fgwt) return sinew_compute_set_double(ctx, plug, fg);
  double bg = 1;
  if (get1(g, n, L.ovrd, 0) != 0 && !muted && !excluded) bg = get1(g, n, L.pth, 1) != 0 ? 1 - fg : 0;
  return sinew_compute_set_double(ctx, plug, bg);
}

/* ---- registration ----------------------------------------------------------------------------- */

#define COUNT(a) (sizeof(a) / sizeof *(a))

int sinew__register_anim_blend_types(sinew_graph_t *g) {
  if (sinew_find_node_type(g, "pairBlend")) return SINEW_OK;
  const sinew_node_type_t *pb, *bw, *bt;
  sinew_node_type_desc_t d = {.name = "pairBlend", .flags = SINEW_NODE_TYPE_PARALLEL,
                              .attrs = pair_blend_attrs, .attr_count = COUNT(pair_blend_attrs),
                              .affects = pair_blend_affects, .affects_count = COUNT(pair_blend_affects),
                              .compute = pair_blend_compute};
  int rc = sinew_register_node_type(g, &d, &pb);
  if (rc) return rc;
  d = (sinew_node_type_desc_t){.name = "blendWeighted", .flags = SINEW_NODE_TYPE_PARALLEL,
                               .attrs = blend_weighted_attrs,
                               .attr_count = COUNT(blend_weighted_attrs), .affects = blend_weighted_affects,
                               .affects_count = COUNT(blend_weighted_affects), .compute = blend_weighted_compute,
                               .state_size = sizeof(blend_state), .destroy = blend_destroy};
  if ((rc = sinew_register_node_type(g, &d, &bw))) return rc;
  d = (sinew_node_type_desc_t){.name = "blendTwoAttr", .flags = SINEW_NODE_TYPE_PARALLEL,
                               .attrs = blend_two_attrs, .attr_count = COUNT(blend_two_attrs),
                               .affects = blend_two_affects, .affects_count = COUNT(blend_two_affects),
                               .compute = blend_two_compute};
  if ((rc = sinew_register_node_type(g, &d, &bt))) return rc;
  d = (sinew_node_type_desc_t){.name = "animBlendNodeBase", .flags = SINEW_NODE_TYPE_ABSTRACT,
                               .attrs = layer_base_attrs, .attr_count = COUNT(layer_base_attrs)};
  if ((rc = sinew_register_node_type(g, &d, NULL))) return rc;
  static const struct {
    const char *name;
    const sinew_attr_desc_t *attrs;
    size_t n;
    const sinew_affects_t *aff;
    size_t naff;
    layer_kind kind;
  } layers[] = {
      {"animBlendNodeAdditive", layer_double_attrs, COUNT(layer_double_attrs), layer_affects, COUNT(layer_affects), LAYER_SUM},
      {"animBlendNodeAdditiveF", layer_float_attrs, COUNT(layer_float_attrs), layer_affects, COUNT(layer_affects), LAYER_SUM},
      {"animBlendNodeAdditiveDL", layer_distance_attrs, COUNT(layer_distance_attrs), layer_affects, COUNT(layer_affects),
       LAYER_SUM},
      {"animBlendNodeAdditiveFL", layer_distance_attrs, COUNT(layer_distance_attrs), layer_affects, COUNT(layer_affects),
       LAYER_SUM},
      {"animBlendNodeAdditiveDA", layer_angle_attrs, COUNT(layer_angle_attrs), layer_affects, COUNT(layer_affects), LAYER_SUM},
      {"animBlendNodeAdditiveFA", layer_angle_attrs, COUNT(layer_angle_attrs), layer_affects, COUNT(layer_affects), LAYER_SUM},
      {"animBlendNodeAdditiveI16", layer_int_attrs, COUNT(layer_int_attrs), layer_affects, COUNT(layer_affects),
       LAYER_SUM_INT},
      {"animBlendNodeAdditiveI32", layer_int_attrs, COUNT(layer_int_attrs), layer_affects, COUNT(layer_affects),
       LAYER_SUM_INT},
      {"animBlendNodeAdditiveScale", layer_scale_attrs, COUNT(layer_scale_attrs), layer_scale_affects,
       COUNT(layer_scale_affects), LAYER_SCALE},
      {"animBlendNodeBoolean", layer_switch_attrs, COUNT(layer_switch_attrs), layer_switch_affects,
       COUNT(layer_switch_affects), LAYER_SWITCH},
      {"animBlendNodeEnum", layer_switch_attrs, COUNT(layer_switch_attrs), layer_switch_affects,
       COUNT(layer_switch_affects), LAYER_SWITCH},
      {"animBlendNodeAdditiveRotation", layer_rotation_attrs, COUNT(layer_rotation_attrs), layer_rotation_affects,
       COUNT(layer_rotation_affects), LAYER_ROTATION},
  };
  static layer_type info[COUNT(layers)];
  for (size_t i = 0; i < COUNT(layers); i++) {
    d = (sinew_node_type_desc_t){.name = layers[i].name, .parent_type = "animBlendNodeBase", .flags = SINEW_NODE_TYPE_PARALLEL,
                                 .attrs = layers[i].attrs,
                                 .attr_count = layers[i].n, .affects = layers[i].aff, .affects_count = layers[i].naff,
                                 .compute = layers[i].kind == LAYER_ROTATION ? layer_rotation_compute : layer_compute,
                                 .user_data = &info[i]};
    const sinew_node_type_t *t;
    if ((rc = sinew_register_node_type(g, &d, &t))) return rc;
    info[i] = (layer_type){.kind = layers[i].kind,
                           .wa = sinew_node_type_attr(t, "weightA"),
                           .wb = sinew_node_type_attr(t, "weightB"),
                           .ia = sinew_node_type_attr(t, "inputA"),
                           .ib = sinew_node_type_attr(t, "inputB"),
                           .o = sinew_node_type_attr(t, "output"),
                           .acm = sinew_node_type_attr(t, "accumulationMode"),
                           .ro = sinew_node_type_attr(t, "rotateOrder")};
  }
  /* animLayer is an objectSet in Maya (its dagSetMembers list the layered plugs) */
  const sinew_node_type_t *al;
  if ((rc = sinew__register_object_set_types(g))) return rc;
  d = (sinew_node_type_desc_t){.name = "animLayer", .parent_type = "objectSet", .attrs = anim_layer_attrs,
                               .attr_count = COUNT(anim_layer_attrs), .affects = anim_layer_affects,
                               .affects_count = COUNT(anim_layer_affects), .compute = anim_layer_compute,
                               .state_size = sizeof(blend_state), .destroy = blend_destroy};
  if ((rc = sinew_register_node_type(g, &d, &al))) return rc;
  static const char *const al_names[] = {"wth", "mt", "sl", "ovrd", "pth", "ram", "pwth", "pmte",
                                         "sslo", "chsl", "csol", "fgwt", "bgwt", "omte", "oram"};
  uint32_t *al_ids[] = {&L.w, &L.mt, &L.sl, &L.ovrd, &L.pth, &L.ram, &L.pwth, &L.pmte,
                        &L.sslo, &L.chsl, &L.csol, &L.fgwt, &L.bgwt, &L.omte, &L.oram};
  for (size_t i = 0; i < COUNT(al_names); i++) *al_ids[i] = sinew_node_type_attr(al, al_names[i]);
  static const char *const pb_names[] = {"it1", "ir1", "it2", "ir2", "w", "ri", "rm",
                                         "txm", "tym", "tzm", "ro", "ot", "or"};
  uint32_t *pb_ids[] = {&A.it1, &A.ir1, &A.it2, &A.ir2, &A.w, &A.ri, &A.rm,
                        &A.txm, &A.tym, &A.tzm, &A.ro, &A.ot, &A.or_};
  for (size_t i = 0; i < COUNT(pb_names); i++) *pb_ids[i] = sinew_node_type_attr(pb, pb_names[i]);
  A.bw_input = sinew_node_type_attr(bw, "i");
  A.bw_weight = sinew_node_type_attr(bw, "w");
  A.bw_output = sinew_node_type_attr(bw, "o");
  A.bt_input = sinew_node_type_attr(bt, "i");
  A.bt_ab = sinew_node_type_attr(bt, "ab");
  A.bt_output = sinew_node_type_attr(bt, "o");
  return SINEW_OK;
}
