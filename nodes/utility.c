/* nodes/utility.c: Maya's utility nodes (spec maya-reference-rigging.md 2.1-2.4; docs/rigging.md):
 *
 *   multiplyDivide, condition, plusMinusAverage, reverse, blendColors, clamp, setRange
 *                  per-channel arithmetic on float triples: each output channel is affected
 *                  only by the same channel of the inputs (and the operation), so setting
 *                  input1X dirties and recomputes outputX alone
 *   multDoubleLinear, addDoubleLinear   distance-typed products and sums
 *   distanceBetween, vectorProduct, angleBetween   vectors, points and matrices
 *   remapValue     value and colour ramps (None / Linear / Smooth / Spline entries)
 *   choice         output = input[selector] (numbers)
 *   floatConstant  lookdevKit's constant (the corpus carries one)
 *   floatMath, floatCondition  lookdevKit's arithmetic and switch (rig files carry them)
 *   multiply, sum, subtract, divide   Maya 2026's unitless math nodes
 *
 * A result that is not a finite number (divide by zero, a negative number to a fractional
 * power) is written as 0, and the node logs one warning (GENERIC) the first time. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nodes/nodes_internal.h"

#define IN (SINEW_ATTR_INPUT | SINEW_ATTR_KEYABLE)
#define OUT SINEW_ATTR_OUTPUT
#define FL SINEW_ATTR_FLOAT
#define DIST SINEW_ATTR_DISTANCE
#define COUNT(a) (sizeof(a) / sizeof *(a))
/* An enum whose values are 0..hi: setAttr refuses a number past the list. */
#define ENUM_RANGE(hi) .has_min = true, .has_max = true, .min_value = 0, .max_value = hi

/* A compound of three numbers: "long (short)" and its children. */
#define TRIPLE(l, s, lx, sx, ly, sy, lz, sz, ty, fl, d0, d1, d2)                                \
  {.name = l, .short_name = s, .type = SINEW_ATTR_COMPOUND, .flags = fl},                          \
      {.name = lx, .short_name = sx, .type = ty, .parent = l, .flags = fl, .default_value = d0},   \
      {.name = ly, .short_name = sy, .type = ty, .parent = l, .flags = fl, .default_value = d1},   \
      {.name = lz, .short_name = sz, .type = ty, .parent = l, .flags = fl, .default_value = d2}

/* A compound parent and its three children, as attribute ids. */
typedef struct trip {
  uint32_t p, c[3];
} trip;

/* Per-node state: whether the warning about a non-finite result was given. */
typedef struct util_state {
  bool warned;
} util_state;

/* ---- reading and writing --------------------------------------------------------------------- */

static double get_attr(sinew_graph_t *g, sinew_node_t n, uint32_t attr, double dflt) {
  sinew_plug_t p = sinew_plug_make(n, attr, 0, NULL);
  double v = dflt;
  sinew_get_double(g, &p, &v);
  return v;
}

/* Child `attr` of element `index` of a top-level array of compounds (or the element itself). */
static double get_attr_el(sinew_graph_t *g, sinew_node_t n, uint32_t attr, int32_t index) {
  sinew_plug_t p = sinew_plug_make(n, attr, 1, &index);
  double v = 0;
  sinew_get_double(g, &p, &v);
  return v;
}

/* A float attribute as Maya's compute sees it (a value arriving from a double source along a
 * connection is not rounded on the way in). */
static double get_float(sinew_graph_t *g, sinew_node_t n, uint32_t attr, double dflt) {
  return (double)(float)get_attr(g, n, attr, dflt);
}

static sinew_vec3_t get_vec(sinew_graph_t *g, sinew_node_t n, const trip *t, double d0, double d1, double d2) {
  return (sinew_vec3_t){get_attr(g, n, t->c[0], d0), get_attr(g, n, t->c[1], d1), get_attr(g, n, t->c[2], d2)};
}

static sinew_mat4_t get_mat(sinew_graph_t *g, sinew_node_t n, uint32_t attr) {
  sinew_plug_t p = sinew_plug_make(n, attr, 0, NULL);
  sinew_mat4_t m;
  sinew_mat4_identity(&m);
  sinew_get_matrix(g, &p, &m);
  if (!sinew_mat4_is_finite(&m)) sinew_mat4_identity(&m);
  return m;
}

/* 0-2 for a child of t, 3 for t itself, -1 otherwise. */
static int which(const trip *t, uint32_t attr) {
  if (attr == t->p) return 3;
  for (int k = 0; k < 3; k++)
    if (attr == t->c[k]) return k;
  return -1;
}

/* A finite value, or 0 with a warning (the first time for this node). */
static double finite_or_zero(sinew_compute_t *ctx, double v, const char *why) {
  util_state *st = sinew_compute_state(ctx);
  if (isfinite(v)) return v;
  if (st && !st->warned) {
    sinew_graph_t *g = sinew_compute_graph(ctx);
    st->warned = true;
    sinew_log(g, SINEW_LOG_WARNING, SINEW_LOG_GENERIC, "%s: %s; 0 used",
              sinew_node_name(g, sinew_compute_node(ctx)), why);
  }
  return 0.0;
}

typedef double (*channel_fn)(sinew_compute_t *ctx, sinew_graph_t *g, sinew_node_t n, int k);

/* Computes the requested channel of an output triple, or all three for the whole compound. */
static int compute_channels(sinew_compute_t *ctx, const sinew_plug_t *plug, const trip *out, channel_fn f) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  int w = which(out, plug->attr);
  if (w < 0) return SINEW_EUNKNOWN_PLUG;
  if (w < 3) return sinew_compute_set_double(ctx, plug, f(ctx, g, n, w));
  double v[3];
  for (int k = 0; k < 3; k++) v[k] = f(ctx, g, n, k);
  return sinew_compute_set_doubles(ctx, plug, v, 3);
}

static int set_vec(sinew_compute_t *ctx, const sinew_plug_t *plug, const trip *out, sinew_vec3_t v) {
  double d[3] = {v.x, v.y, v.z};
  int w = which(out, plug->attr);
  if (w < 0) return SINEW_EUNKNOWN_PLUG;
  if (w < 3) return sinew_compute_set_double(ctx, plug, d[w]);
  return sinew_compute_set_doubles(ctx, plug, d, 3);
}

/* ---- attribute ids (identical in every graph: types are registered from the same tables) ----- */

static struct {
  /* multiplyDivide */
  uint32_t md_op;
  trip md_i1, md_i2, md_o;
  /* condition */
  uint32_t cd_op, cd_ft, cd_st;
  trip cd_ct, cd_cf, cd_oc;
  /* plusMinusAverage */
  uint32_t pm_op, pm_i1, pm_i2, pm_i2c[2], pm_i3, pm_i3c[3], pm_o1;
  trip pm_o2, pm_o3; /* pm_o2.c[2] unused */
  /* reverse */
  trip rv_i, rv_o;
  /* blendColors */
  uint32_t bc_b;
  trip bc_c1, bc_c2, bc_op;
  /* clamp */
  trip cl_mn, cl_mx, cl_ip, cl_op;
  /* setRange */
  trip sr_v, sr_n, sr_m, sr_on, sr_om, sr_o;
  /* multDoubleLinear, addDoubleLinear */
  uint32_t ml_i1, ml_i2, ml_o, al_i1, al_i2, al_o;
  /* distanceBetween */
  uint32_t db_im1, db_im2, db_d;
  trip db_p1, db_p2;
  /* vectorProduct */
  uint32_t vp_op, vp_m, vp_no;
  trip vp_i1, vp_i2, vp_o;
  /* angleBetween */
  uint32_t ab_axa, ab_a;
  trip ab_v1, ab_v2, ab_eu, ab_ax;
  /* remapValue */
  uint32_t rm_i, rm_imn, rm_imx, rm_omn, rm_omx, rm_vl, rm_vlp, rm_vlfv, rm_vli, rm_cl, rm_clp, rm_cli, rm_ov;
  trip rm_clc, rm_oc;
  /* choice */
  uint32_t ch_s, ch_i, ch_o;
  /* floatConstant, multiply, sum, subtract, divide */
  uint32_t fc_f, fc_o, mu_i, mu_o, su_i, su_o, sb_i1, sb_i2, sb_o, dv_i1, dv_i2, dv_o;
  /* floatMath, floatCondition */
  uint32_t fm_a, fm_b, fm_op, fm_o, fcd_a, fcd_b, fcd_c, fcd_o;
} U;

/* ---- multiplyDivide ---------------------------------------------------------------------------- */

static const sinew_attr_desc_t md_attrs[] = {
    {.name = "operation", .short_name = "op", .type = SINEW_ATTR_ENUM, .flags = IN, .default_value = 1,
     .enum_fields = "No operation:Multiply:Divide:Power", ENUM_RANGE(3)},
    TRIPLE("input1", "i1", "input1X", "i1x", "input1Y", "i1y", "input1Z", "i1z", FL, IN, 0, 0, 0),
    TRIPLE("input2", "i2", "input2X", "i2x", "input2Y", "i2y", "input2Z", "i2z", FL, IN, 1, 1, 1),
    TRIPLE("output", "o", "outputX", "ox", "outputY", "oy", "outputZ", "oz", FL, OUT, 0, 0, 0),
};
static const sinew_affects_t md_affects[] = {{"op", "o"},    {"i1x", "ox"}, {"i2x", "ox"}, {"i1y", "oy"},
                                             {"i2y", "oy"},  {"i1z", "oz"}, {"i2z", "oz"}};

static double md_channel(sinew_compute_t *ctx, sinew_graph_t *g, sinew_node_t n, int k) {
  int op = (int)get_attr(g, n, U.md_op, 1);
  double a = get_float(g, n, U.md_i1.c[k], 0);
  if (op == 0) return a; /* no operation: input2 is ignored */
  double b = get_float(g, n, U.md_i2.c[k], 1);
  switch (op) {
    case 1: return finite_or_zero(ctx, a * b, "multiply overflows");
    case 2: return finite_or_zero(ctx, a / b, "divide by zero");
    case 3: return finite_or_zero(ctx, pow(a, b), "power has no real result");
    default: return a;
  }
}

static int md_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  return compute_channels(ctx, plug, &U.md_o, md_channel);
}

/* ---- condition --------------------------------------------------------------------------------- */

static const sinew_attr_desc_t cd_attrs[] = {
    {.name = "operation", .short_name = "op", .type = SINEW_ATTR_ENUM, .flags = IN,
     .enum_fields = "Equal:Not Equal:Greater Than:Greater or Equal:Less Than:Less or Equal", ENUM_RANGE(5)},
    {.name = "firstTerm", .short_name = "ft", .type = FL, .flags = IN},
    {.name = "secondTerm", .short_name = "st", .type = FL, .flags = IN},
    TRIPLE("colorIfTrue", "ct", "colorIfTrueR", "ctr", "colorIfTrueG", "ctg", "colorIfTrueB", "ctb", FL, IN, 0, 0, 0),
    TRIPLE("colorIfFalse", "cf", "colorIfFalseR", "cfr", "colorIfFalseG", "cfg", "colorIfFalseB", "cfb", FL, IN, 1, 1, 1),
    TRIPLE("outColor", "oc", "outColorR", "ocr", "outColorG", "ocg", "outColorB", "ocb", FL, OUT, 0, 0, 0),
};
static const sinew_affects_t cd_affects[] = {{"op", "oc"},   {"ft", "oc"},   {"st", "oc"},
                                             {"ctr", "ocr"}, {"cfr", "ocr"}, {"ctg", "ocg"},
                                             {"cfg", "ocg"}, {"ctb", "ocb"}, {"cfb", "ocb"}};

/* The comparison in single precision, as Maya's float attributes hold it. */
static bool cd_test(sinew_graph_t *g, sinew_node_t n) {
  float a = (float)get_attr(g, n, U.cd_ft, 0), b = (float)get_attr(g, n, U.cd_st, 0);
  switch ((int)get_attr(g, n, U.cd_op, 0)) {
    case 1: return a != b;
    case 2: return a > b;
    case 3: return a >= b;
    case 4: return a < b;
    case 5: return a <= b;
    default: return a == b;
  }
}

static double cd_channel(sinew_compute_t *ctx, sinew_graph_t *g, sinew_node_t n, int k) {
  (void)ctx;
  return cd_test(g, n) ? get_float(g, n, U.cd_ct.c[k], 0) : get_float(g, n, U.cd_cf.c[k], 1);
}

static int cd_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  return compute_channels(ctx, plug, &U.cd_oc, cd_channel);
}

/* ---- plusMinusAverage -------------------------------------------------------------------------- */

static const sinew_attr_desc_t pm_attrs[] = {
    {.name = "operation", .short_name = "op", .type = SINEW_ATTR_ENUM, .flags = IN, .default_value = 1,
     .enum_fields = "No operation:Sum:Subtract:Average", ENUM_RANGE(3)},
    {.name = "input1D", .short_name = "i1", .type = FL, .flags = IN | SINEW_ATTR_ARRAY},
    {.name = "input2D", .short_name = "i2", .type = SINEW_ATTR_COMPOUND, .flags = IN | SINEW_ATTR_ARRAY},
    {.name = "input2Dx", .short_name = "i2x", .type = FL, .parent = "input2D", .flags = IN},
    {.name = "input2Dy", .short_name = "i2y", .type = FL, .parent = "input2D", .flags = IN},
    {.name = "input3D", .short_name = "i3", .type = SINEW_ATTR_COMPOUND, .flags = IN | SINEW_ATTR_ARRAY},
    {.name = "input3Dx", .short_name = "i3x", .type = FL, .parent = "input3D", .flags = IN},
    {.name = "input3Dy", .short_name = "i3y", .type = FL, .parent = "input3D", .flags = IN},
    {.name = "input3Dz", .short_name = "i3z", .type = FL, .parent = "input3D", .flags = IN},
    {.name = "output1D", .short_name = "o1", .type = FL, .flags = OUT},
    {.name = "output2D", .short_name = "o2", .type = SINEW_ATTR_COMPOUND, .flags = OUT},
    {.name = "output2Dx", .short_name = "o2x", .type = FL, .parent = "output2D", .flags = OUT},
    {.name = "output2Dy", .short_name = "o2y", .type = FL, .parent = "output2D", .flags = OUT},
    TRIPLE("output3D", "o3", "output3Dx", "o3x", "output3Dy", "o3y", "output3Dz", "o3z", FL, OUT, 0, 0, 0),
};
static const sinew_affects_t pm_affects[] = {
    {"op", "o1"},    {"op", "o2"},    {"op", "o3"},    {"i1", "o1"},    {"i2x", "o2x"},
    {"i2y", "o2y"},  {"i3x", "o3x"},  {"i3y", "o3y"},  {"i3z", "o3z"}};

/* Combines the present elements of one lane in logical-index order: 0 the first, 1 the sum,
 * 2 the first minus the rest, 3 the mean. No element gives 0. */
typedef struct pm_acc {
  double v;
  size_t count;
} pm_acc;

static void pm_add(pm_acc *acc, int op, double x) {
  if (acc->count == 0) acc->v = x;
  else if (op == 1 || op == 3) acc->v += x;
  else if (op == 2) acc->v -= x;
  acc->count++;
}

/* One lane: array `arr`, and child `child` of its elements (UINT32_MAX: the elements are
 * numbers). Out of memory (more than 64 elements need scratch memory for their indices) is
 * returned, so the plug stays dirty. */
static int pm_lane(sinew_compute_t *ctx, uint32_t arr, uint32_t child, double *out) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  int op = (int)get_attr(g, n, U.pm_op, 1);
  sinew_plug_t a = sinew_plug_make(n, arr, 0, NULL);
  pm_acc acc = {0, 0};
  int32_t idx[64], *all = idx;
  sinew_data_t *holder = NULL;
  size_t total = sinew_plug_indices(g, &a, idx, COUNT(idx));
  if (total > COUNT(idx)) {
    if (!(all = sinew__scratch(total * sizeof *all, &holder))) return SINEW_ENOMEM;
    total = sinew_plug_indices(g, &a, all, total);
  }
  for (size_t i = 0; i < total; i++) {
    sinew_plug_t e = sinew_plug_make(n, child == UINT32_MAX ? arr : child, 1, &all[i]);
    double x = 0;
    sinew_get_double(g, &e, &x);
    pm_add(&acc, op, (double)(float)x);
  }
  sinew_data_unref(holder);
  if (op == 3 && acc.count) acc.v /= (double)acc.count;
  *out = finite_or_zero(ctx, acc.v, "sum overflows");
  return SINEW_OK;
}

/* output1D, output2D and output3D, each channel from its own lane. */
static int pm_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  const uint32_t *lanes;
  uint32_t arr;
  int nch, w;
  if (plug->attr == U.pm_o1) {
    double v;
    int rc = pm_lane(ctx, U.pm_i1, UINT32_MAX, &v);
    return rc ? rc : sinew_compute_set_double(ctx, plug, v);
  }
  if ((w = which(&U.pm_o3, plug->attr)) >= 0) {
    arr = U.pm_i3, lanes = U.pm_i3c, nch = 3;
  } else if ((w = which(&U.pm_o2, plug->attr)) >= 0 && w != 2) {
    arr = U.pm_i2, lanes = U.pm_i2c, nch = 2;
  } else {
    return SINEW_EUNKNOWN_PLUG;
  }
  double v[3];
  for (int k = 0; k < nch; k++) {
    if (w < 3 && k != w) continue;
    int rc = pm_lane(ctx, arr, lanes[k], &v[k]);
    if (rc) return rc;
  }
  return w < 3 ? sinew_compute_set_double(ctx, plug, v[w]) : sinew_compute_set_doubles(ctx, plug, v, (size_t)nch);
}

/* ---- reverse, blendColors, clamp, setRange ----------------------------------------------------- */

static const sinew_attr_desc_t rv_attrs[] = {
    TRIPLE("input", "i", "inputX", "ix", "inputY", "iy", "inputZ", "iz", FL, IN, 0, 0, 0),
    TRIPLE("output", "o", "outputX", "ox", "outputY", "oy", "outputZ", "oz", FL, OUT, 0, 0, 0),
};
static const sinew_affects_t rv_affects[] = {{"ix", "ox"}, {"iy", "oy"}, {"iz", "oz"}};

static double rv_channel(sinew_compute_t *ctx, sinew_graph_t *g, sinew_node_t n, int k) {
  return finite_or_zero(ctx, 1.0 - get_float(g, n, U.rv_i.c[k], 0), "input is not finite");
}
static int rv_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  return compute_channels(ctx, plug, &U.rv_o, rv_channel);
}

static const sinew_attr_desc_t bc_attrs[] = {
    {.name = "blender", .short_name = "b", .type = FL, .flags = IN, .default_value = 0.5},
    TRIPLE("color1", "c1", "color1R", "c1r", "color1G", "c1g", "color1B", "c1b", FL, IN, 1, 0, 0),
    TRIPLE("color2", "c2", "color2R", "c2r", "color2G", "c2g", "color2B", "c2b", FL, IN, 0, 0, 1),
    TRIPLE("output", "op", "outputR", "opr", "outputG", "opg", "outputB", "opb", FL, OUT, 0, 0, 0),
};
static const sinew_affects_t bc_affects[] = {{"b", "op"},    {"c1r", "opr"}, {"c2r", "opr"}, {"c1g", "opg"},
                                             {"c2g", "opg"}, {"c1b", "opb"}, {"c2b", "opb"}};

static double bc_channel(sinew_compute_t *ctx, sinew_graph_t *g, sinew_node_t n, int k) {
  static const double d1[3] = {1, 0, 0}, d2[3] = {0, 0, 1};
  double b = get_float(g, n, U.bc_b, 0.5);
  double c1 = get_float(g, n, U.bc_c1.c[k], d1[k]), c2 = get_float(g, n, U.bc_c2.c[k], d2[k]);
  return finite_or_zero(ctx, c1 * b + c2 * (1.0 - b), "input is not finite");
}
static int bc_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  return compute_channels(ctx, plug, &U.bc_op, bc_channel);
}

static const sinew_attr_desc_t cl_attrs[] = {
    TRIPLE("min", "mn", "minR", "mnr", "minG", "mng", "minB", "mnb", FL, IN, 0, 0, 0),
    TRIPLE("max", "mx", "maxR", "mxr", "maxG", "mxg", "maxB", "mxb", FL, IN, 0, 0, 0),
    TRIPLE("input", "ip", "inputR", "ipr", "inputG", "ipg", "inputB", "ipb", FL, IN, 0, 0, 0),
    TRIPLE("output", "op", "outputR", "opr", "outputG", "opg", "outputB", "opb", FL, OUT, 0, 0, 0),
};
static const sinew_affects_t cl_affects[] = {{"mnr", "opr"}, {"mxr", "opr"}, {"ipr", "opr"},
                                             {"mng", "opg"}, {"mxg", "opg"}, {"ipg", "opg"},
                                             {"mnb", "opb"}, {"mxb", "opb"}, {"ipb", "opb"}};

/* min(max(input, min), max): with min > max the result is max. */
static double cl_channel(sinew_compute_t *ctx, sinew_graph_t *g, sinew_node_t n, int k) {
  (void)ctx;
  double lo = get_float(g, n, U.cl_mn.c[k], 0), hi = get_float(g, n, U.cl_mx.c[k], 0);
  double v = get_float(g, n, U.cl_ip.c[k], 0);
  if (v < lo) v = lo;
  if (v > hi) v = hi;
  return v;
}
static int cl_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  return compute_channels(ctx, plug, &U.cl_op, cl_channel);
}

static const sinew_attr_desc_t sr_attrs[] = {
    TRIPLE("value", "v", "valueX", "vx", "valueY", "vy", "valueZ", "vz", FL, IN, 0, 0, 0),
    TRIPLE("min", "n", "minX", "nx", "minY", "ny", "minZ", "nz", FL, IN, 0, 0, 0),
    TRIPLE("max", "m", "maxX", "mx", "maxY", "my", "maxZ", "mz", FL, IN, 0, 0, 0),
    TRIPLE("oldMin", "on", "oldMinX", "onx", "oldMinY", "ony", "oldMinZ", "onz", FL, IN, 0, 0, 0),
    TRIPLE("oldMax", "om", "oldMaxX", "omx", "oldMaxY", "omy", "oldMaxZ", "omz", FL, IN, 0, 0, 0),
    TRIPLE("outValue", "o", "outValueX", "ox", "outValueY", "oy", "outValueZ", "oz", FL, OUT, 0, 0, 0),
};
static const sinew_affects_t sr_affects[] = {
    {"vx", "ox"}, {"nx", "ox"}, {"mx", "ox"}, {"onx", "ox"}, {"omx", "ox"},
    {"vy", "oy"}, {"ny", "oy"}, {"my", "oy"}, {"ony", "oy"}, {"omy", "oy"},
    {"vz", "oz"}, {"nz", "oz"}, {"mz", "oz"}, {"onz", "oz"}, {"omz", "oz"}};

/* min + (clamp(value, oldMin, oldMax) - oldMin) * (max - min) / (oldMax - oldMin); an empty old
 * range (oldMax = oldMin) gives min. A reversed old range clamps to [oldMax, oldMin]. */
static double sr_channel(sinew_compute_t *ctx, sinew_graph_t *g, sinew_node_t n, int k) {
  double v = get_float(g, n, U.sr_v.c[k], 0), lo = get_float(g, n, U.sr_n.c[k], 0);
  double hi = get_float(g, n, U.sr_m.c[k], 0), olo = get_float(g, n, U.sr_on.c[k], 0);
  double ohi = get_float(g, n, U.sr_om.c[k], 0);
  if (ohi == olo) return lo;
  double a = olo < ohi ? olo : ohi, b = olo < ohi ? ohi : olo;
  if (v < a) v = a;
  if (v > b) v = b;
  return finite_or_zero(ctx, lo + (v - olo) * (hi - lo) / (ohi - olo), "input is not finite");
}
static int sr_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  return compute_channels(ctx, plug, &U.sr_o, sr_channel);
}

/* ---- multDoubleLinear, addDoubleLinear --------------------------------------------------------- */

static const sinew_attr_desc_t dl_attrs[] = {
    {.name = "input1", .short_name = "i1", .type = DIST, .flags = IN},
    {.name = "input2", .short_name = "i2", .type = DIST, .flags = IN},
    {.name = "output", .short_name = "o", .type = DIST, .flags = OUT},
};
static const sinew_affects_t dl_affects[] = {{"i1", "o"}, {"i2", "o"}};

static int ml_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != U.ml_o) return SINEW_EUNKNOWN_PLUG;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  double v = get_attr(g, n, U.ml_i1, 0) * get_attr(g, n, U.ml_i2, 0);
  return sinew_compute_set_double(ctx, plug, finite_or_zero(ctx, v, "product overflows"));
}

static int al_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != U.al_o) return SINEW_EUNKNOWN_PLUG;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  double v = get_attr(g, n, U.al_i1, 0) + get_attr(g, n, U.al_i2, 0);
  return sinew_compute_set_double(ctx, plug, finite_or_zero(ctx, v, "sum overflows"));
}

/* ---- distanceBetween --------------------------------------------------------------------------- */

static const sinew_attr_desc_t db_attrs[] = {
    TRIPLE("point1", "p1", "point1X", "p1x", "point1Y", "p1y", "point1Z", "p1z", DIST, IN, 0, 0, 0),
    {.name = "inMatrix1", .short_name = "im1", .type = SINEW_ATTR_MATRIX, .flags = IN},
    TRIPLE("point2", "p2", "point2X", "p2x", "point2Y", "p2y", "point2Z", "p2z", DIST, IN, 0, 0, 0),
    {.name = "inMatrix2", .short_name = "im2", .type = SINEW_ATTR_MATRIX, .flags = IN},
    {.name = "distance", .short_name = "d", .type = DIST, .flags = OUT},
};
static const sinew_affects_t db_affects[] = {{"p1", "d"}, {"im1", "d"}, {"p2", "d"}, {"im2", "d"}};

/* |p1 * im1 - p2 * im2|, points with w = 1. */
static int db_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != U.db_d) return SINEW_EUNKNOWN_PLUG;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  sinew_mat4_t m1 = get_mat(g, n, U.db_im1), m2 = get_mat(g, n, U.db_im2);
  sinew_vec3_t a, b, d;
  sinew_mat4_transform_point(get_vec(g, n, &U.db_p1, 0, 0, 0), &m1, &a);
  sinew_mat4_transform_point(get_vec(g, n, &U.db_p2, 0, 0, 0), &m2, &b);
  sinew_vec3_sub(a, b, &d);
  return sinew_compute_set_double(ctx, plug, finite_or_zero(ctx, sinew_vec3_length(d), "input is not finite"));
}

/* ---- vectorProduct ----------------------------------------------------------------------------- */

static const sinew_attr_desc_t vp_attrs[] = {
    {.name = "operation", .short_name = "op", .type = SINEW_ATTR_ENUM, .flags = IN, .default_value = 1,
     .enum_fields = "No Operation:Dot Product:Cross Product:Vector Matrix Product:Point Matrix Product",
     ENUM_RANGE(4)},
    TRIPLE("input1", "i1", "input1X", "i1x", "input1Y", "i1y", "input1Z", "i1z", FL, IN, 0, 0, 0),
    TRIPLE("input2", "i2", "input2X", "i2x", "input2Y", "i2y", "input2Z", "i2z", FL, IN, 0, 0, 0),
    {.name = "matrix", .short_name = "m", .type = SINEW_ATTR_MATRIX, .flags = SINEW_ATTR_INPUT},
    {.name = "normalizeOutput", .short_name = "no", .type = SINEW_ATTR_BOOL, .flags = IN},
    TRIPLE("output", "o", "outputX", "ox", "outputY", "oy", "outputZ", "oz", FL, OUT, 0, 0, 0),
};
/* A cross product or a matrix mixes channels: every input affects every output channel. */
static const sinew_affects_t vp_affects[] = {{"op", "o"}, {"i1", "o"}, {"i2", "o"}, {"m", "o"}, {"no", "o"}};

static sinew_vec3_t vec_f(sinew_graph_t *g, sinew_node_t n, const trip *t) {
  return (sinew_vec3_t){get_float(g, n, t->c[0], 0), get_float(g, n, t->c[1], 0), get_float(g, n, t->c[2], 0)};
}

static int vp_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (which(&U.vp_o, plug->attr) < 0) return SINEW_EUNKNOWN_PLUG;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  int op = (int)get_attr(g, n, U.vp_op, 1);
  bool nml = get_attr(g, n, U.vp_no, 0) != 0;
  sinew_vec3_t a = vec_f(g, n, &U.vp_i1), r = a;
  if (op == 1) {
    sinew_vec3_t b = vec_f(g, n, &U.vp_i2);
    if (nml) { /* the cosine of the angle between them */
      sinew_vec3_normalize(a, &a);
      sinew_vec3_normalize(b, &b);
    }
    double d = sinew_vec3_dot(a, b);
    r = (sinew_vec3_t){d, d, d};
  } else {
    if (op == 2) sinew_vec3_cross(a, vec_f(g, n, &U.vp_i2), &r);
    if (op == 3 || op == 4) {
      sinew_mat4_t m = get_mat(g, n, U.vp_m);
      if (op == 3) sinew_mat4_transform_vector(a, &m, &r);
      else sinew_mat4_transform_point(a, &m, &r);
    }
    if (nml) sinew_vec3_normalize(r, &r); /* a zero vector stays zero */
  }
  r = (sinew_vec3_t){finite_or_zero(ctx, r.x, "result is not finite"), finite_or_zero(ctx, r.y, "result is not finite"),
                     finite_or_zero(ctx, r.z, "result is not finite")};
  return set_vec(ctx, plug, &U.vp_o, r);
}

/* ---- angleBetween ------------------------------------------------------------------------------ */

static const sinew_attr_desc_t ab_attrs[] = {
    TRIPLE("vector1", "v1", "vector1X", "v1x", "vector1Y", "v1y", "vector1Z", "v1z", DIST, IN, 1, 0, 0),
    TRIPLE("vector2", "v2", "vector2X", "v2x", "vector2Y", "v2y", "vector2Z", "v2z", DIST, IN, 0, 1, 0),
    TRIPLE("euler", "eu", "eulerX", "eux", "eulerY", "euy", "eulerZ", "euz", SINEW_ATTR_ANGLE, OUT, 0, 0, 0),
    {.name = "axisAngle", .short_name = "axa", .type = SINEW_ATTR_COMPOUND, .flags = OUT},
    {.name = "axis", .short_name = "ax", .type = SINEW_ATTR_COMPOUND, .parent = "axisAngle", .flags = OUT},
    {.name = "axisX", .short_name = "axx", .type = DIST, .parent = "axis", .flags = OUT},
    {.name = "axisY", .short_name = "axy", .type = DIST, .parent = "axis", .flags = OUT},
    {.name = "axisZ", .short_name = "axz", .type = DIST, .parent = "axis", .flags = OUT, .default_value = 1},
    {.name = "angle", .short_name = "a", .type = SINEW_ATTR_ANGLE, .parent = "axisAngle", .flags = OUT},
};
static const sinew_affects_t ab_affects[] = {{"v1", "eu"}, {"v2", "eu"}, {"v1", "axa"}, {"v2", "axa"}};

/* The shortest rotation taking v1 to v2: axis = norm(v1 x v2), angle = acos(v1.v2 / |v1||v2|).
 * Parallel or opposite vectors have no cross product: the axis is then a unit vector
 * perpendicular to v1 (v1 x X, or v1 x Y when v1 is along X); a zero vector gives angle 0 about
 * (0, 0, 1). */
static void ab_solve(sinew_graph_t *g, sinew_node_t n, sinew_vec3_t *axis, double *angle) {
  sinew_vec3_t a = get_vec(g, n, &U.ab_v1, 1, 0, 0), b = get_vec(g, n, &U.ab_v2, 0, 1, 0), c;
  sinew_vec3_normalize(a, &a);
  sinew_vec3_normalize(b, &b);
  *axis = (sinew_vec3_t){0, 0, 1};
  *angle = 0;
  if (sinew_vec3_length(a) == 0 || sinew_vec3_length(b) == 0) return;
  double d = sinew_vec3_dot(a, b);
  sinew_vec3_cross(a, b, &c);
  double s = sinew_vec3_length(c);
  *angle = atan2(s, d);
  if (s > 1e-12) {
    sinew_vec3_scale(c, 1 / s, axis);
    return;
  }
  sinew_vec3_t ref = fabs(a.x) < 0.9 ? (sinew_vec3_t){1, 0, 0} : (sinew_vec3_t){0, 1, 0};
  sinew_vec3_cross(a, ref, &c);
  sinew_vec3_normalize(c, axis);
}

static int ab_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  sinew_vec3_t axis;
  double angle;
  ab_solve(g, n, &axis, &angle);
  if (which(&U.ab_eu, plug->attr) >= 0) {
    sinew_quat_t q;
    sinew_vec3_t e;
    sinew_quat_from_axis_angle(axis, angle, &q);
    sinew_quat_to_euler(q, SINEW_ROTATE_XYZ, &e);
    return set_vec(ctx, plug, &U.ab_eu, e);
  }
  if (plug->attr == U.ab_a) return sinew_compute_set_double(ctx, plug, angle);
  if (which(&U.ab_ax, plug->attr) >= 0) return set_vec(ctx, plug, &U.ab_ax, axis);
  if (plug->attr == U.ab_axa) {
    sinew_plug_t p;
    int rc = sinew_plug_child(g, plug, U.ab_ax.p, &p);
    double d[3] = {axis.x, axis.y, axis.z};
    if (!rc) rc = sinew_compute_set_doubles(ctx, &p, d, 3);
    if (!rc) rc = sinew_plug_child(g, plug, U.ab_a, &p);
    if (!rc) rc = sinew_compute_set_double(ctx, &p, angle);
    if (!rc) rc = sinew_compute_set_clean(ctx, plug);
    return rc;
  }
  return SINEW_EUNKNOWN_PLUG;
}

/* ---- remapValue -------------------------------------------------------------------------------- */

#define RAMP_INTERP "None:Linear:Smooth:Spline"

static const sinew_attr_desc_t rm_attrs[] = {
    {.name = "inputValue", .short_name = "i", .type = FL, .flags = IN},
    {.name = "inputMin", .short_name = "imn", .type = FL, .flags = IN},
    {.name = "inputMax", .short_name = "imx", .type = FL, .flags = IN, .default_value = 1},
    {.name = "outputMin", .short_name = "omn", .type = FL, .flags = IN},
    {.name = "outputMax", .short_name = "omx", .type = FL, .flags = IN, .default_value = 1},
    {.name = "value", .short_name = "vl", .type = SINEW_ATTR_COMPOUND, .flags = IN | SINEW_ATTR_ARRAY},
    {.name = "value_Position", .short_name = "vlp", .type = FL, .parent = "value", .flags = IN},
    {.name = "value_FloatValue", .short_name = "vlfv", .type = FL, .parent = "value", .flags = IN},
    {.name = "value_Interp", .short_name = "vli", .type = SINEW_ATTR_ENUM, .parent = "value", .flags = IN,
     .enum_fields = RAMP_INTERP, ENUM_RANGE(3)},
    {.name = "color", .short_name = "cl", .type = SINEW_ATTR_COMPOUND, .flags = IN | SINEW_ATTR_ARRAY},
    {.name = "color_Position", .short_name = "clp", .type = FL, .parent = "color", .flags = IN},
    {.name = "color_Color", .short_name = "clc", .type = SINEW_ATTR_COMPOUND, .parent = "color", .flags = IN},
    {.name = "color_ColorR", .short_name = "clcr", .type = FL, .parent = "color_Color", .flags = IN},
    {.name = "color_ColorG", .short_name = "clcg", .type = FL, .parent = "color_Color", .flags = IN},
    {.name = "color_ColorB", .short_name = "clcb", .type = FL, .parent = "color_Color", .flags = IN},
    {.name = "color_Interp", .short_name = "cli", .type = SINEW_ATTR_ENUM, .parent = "color", .flags = IN,
     .enum_fields = RAMP_INTERP, ENUM_RANGE(3)},
    {.name = "outValue", .short_name = "ov", .type = FL, .flags = OUT},
    TRIPLE("outColor", "oc", "outColorR", "ocr", "outColorG", "ocg", "outColorB", "ocb", FL, OUT, 0, 0, 0),
};
static const sinew_affects_t rm_affects[] = {
    {"i", "ov"},   {"imn", "ov"}, {"imx", "ov"}, {"omn", "ov"}, {"omx", "ov"}, {"vl", "ov"},
    {"i", "oc"},   {"imn", "oc"}, {"imx", "oc"}, {"omn", "oc"}, {"omx", "oc"}, {"cl", "oc"}};

/* One ramp entry: position, up to three values, interpolation, and its logical index (which
 * orders entries at the same position). */
typedef struct ramp_entry {
  double pos, v[3];
  int interp;
  int32_t index;
} ramp_entry;

static int ramp_cmp(const void *pa, const void *pb) {
  const ramp_entry *a = pa, *b = pb;
  if (a->pos != b->pos) return a->pos < b->pos ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

/* Evaluates a ramp sorted by position at x, in `dim` values (Maya's ramp attribute as Autodesk's
 * Arnold translator reproduces it): before the first entry its value, from the last entry on
 * the last value; in between, the left entry's interpolation decides:
 *   None    the left value;
 *   Linear  v1 + u (v2 - v1), u = (x - p1) / (p2 - p1);
 *   Smooth  Hermite with flat ends: v1 (2u^3 - 3u^2 + 1) + v2 (3u^2 - 2u^3);
 *   Spline  Hermite whose tangents are the mean of the slopes on either side of an entry (the
 *           one slope there is at the first and last entry), scaled by p2 - p1. */
static void ramp_eval(const ramp_entry *e, size_t count, double x, int dim, double *out) {
  for (int k = 0; k < dim; k++) out[k] = 0;
  if (count == 0) return;
  size_t next = count;
  for (size_t i = 0; i < count; i++)
    if (x < e[i].pos) {
      next = i;
      break;
    }
  if (next == count || next == 0) {
    const ramp_entry *r = next == 0 ? &e[0] : &e[count - 1];
    for (int k = 0; k < dim; k++) out[k] = r->v[k];
    return;
  }
  const ramp_entry *a = &e[next - 1], *b = &e[next];
  double dp = b->pos - a->pos, u = (x - a->pos) / dp, u2 = u * u, u3 = u2 * u;
  for (int k = 0; k < dim; k++) {
    double v1 = a->v[k], v2 = b->v[k];
    switch (a->interp) {
      case 1: out[k] = v1 + u * (v2 - v1); break;
      case 2: out[k] = (2 * u3 - 3 * u2 + 1) * v1 + (3 * u2 - 2 * u3) * v2; break;
      case 3: {
        double s = (v2 - v1) / dp, t1 = s, t2 = s;
        if (next >= 2) {
          const ramp_entry *z = &e[next - 2];
          if (a->pos != z->pos) t1 = 0.5 * ((v1 - z->v[k]) / (a->pos - z->pos) + s);
        }
        if (next + 1 < count) {
          const ramp_entry *c = &e[next + 1];
          if (c->pos != b->pos) t2 = 0.5 * (s + (c->v[k] - v2) / (c->pos - b->pos));
        }
        out[k] = (2 * u3 - 3 * u2 + 1) * v1 + (3 * u2 - 2 * u3) * v2 + (u3 - 2 * u2 + u) * t1 * dp +
                 (u3 - u2) * t2 * dp;
        break;
      }
      default: out[k] = v1; break;
    }
  }
}

/* Reads the ramp `arr` (entries with children pos, values, interp) sorted by position into
 * scratch memory held by *holder. */
static int ramp_read(sinew_graph_t *g, sinew_node_t n, uint32_t arr, uint32_t pos, const uint32_t *vals, int dim,
                     uint32_t interp, ramp_entry **out, size_t *count, sinew_data_t **holder) {
  sinew_plug_t a = sinew_plug_make(n, arr, 0, NULL);
  size_t total = sinew_plug_indices(g, &a, NULL, 0);
  *out = NULL;
  *count = 0;
  if (!total) return SINEW_OK;
  ramp_entry *e = sinew__scratch(total * (sizeof *e + sizeof(int32_t)), holder);
  if (!e) return SINEW_ENOMEM;
  int32_t *idx = (int32_t *)(e + total);
  total = sinew_plug_indices(g, &a, idx, total);
  for (size_t i = 0; i < total; i++) {
    e[i].index = idx[i];
    e[i].pos = (double)(float)get_attr_el(g, n, pos, idx[i]);
    for (int k = 0; k < dim; k++) e[i].v[k] = (double)(float)get_attr_el(g, n, vals[k], idx[i]);
    e[i].interp = (int)get_attr_el(g, n, interp, idx[i]);
  }
  qsort(e, total, sizeof *e, ramp_cmp);
  *out = e;
  *count = total;
  return SINEW_OK;
}

/* x = (i - imn) / (imx - imn) (an empty input range is a step at imn); outValue = omn + ramp(x)
 * (omx - omn); outColor = omn + colourRamp(x) (omx - omn) per channel, as Autodesk's Arnold
 * translator of remapValue applies the output range to both. An empty ramp gives 0. */
static int rm_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  bool color = which(&U.rm_oc, plug->attr) >= 0;
  if (!color && plug->attr != U.rm_ov) return SINEW_EUNKNOWN_PLUG;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  double i = get_float(g, n, U.rm_i, 0), imn = get_float(g, n, U.rm_imn, 0), imx = get_float(g, n, U.rm_imx, 1);
  double omn = get_float(g, n, U.rm_omn, 0), omx = get_float(g, n, U.rm_omx, 1);
  double x = imx != imn ? (i - imn) / (imx - imn) : (i < imn ? 0.0 : 1.0);
  ramp_entry *e;
  size_t count;
  sinew_data_t *holder = NULL;
  double r[3];
  int rc = color ? ramp_read(g, n, U.rm_cl, U.rm_clp, U.rm_clc.c, 3, U.rm_cli, &e, &count, &holder)
                 : ramp_read(g, n, U.rm_vl, U.rm_vlp, &U.rm_vlfv, 1, U.rm_vli, &e, &count, &holder);
  if (rc) return rc;
  ramp_eval(e, count, x, color ? 3 : 1, r);
  sinew_data_unref(holder);
  for (int k = 0; k < 3; k++) r[k] = finite_or_zero(ctx, omn + r[k] * (omx - omn), "input is not finite");
  if (!color) return sinew_compute_set_double(ctx, plug, r[0]);
  return set_vec(ctx, plug, &U.rm_oc, (sinew_vec3_t){r[0], r[1], r[2]});
}

/* ---- choice ------------------------------------------------------------------------------------ */

/* Maya's input and output are generic: here generic numeric attributes, so each input carries
 * a number, a numeric compound (double3) or a matrix, and the output takes the shape of the
 * selected one. Strings, meshes and messages are refused. */
static const sinew_attr_desc_t ch_attrs[] = {
    {.name = "selector", .short_name = "s", .type = SINEW_ATTR_INT, .flags = IN},
    {.name = "input", .short_name = "i", .type = SINEW_ATTR_DOUBLE,
     .flags = IN | SINEW_ATTR_ARRAY | SINEW_ATTR_GENERIC_NUMERIC},
    {.name = "output", .short_name = "o", .type = SINEW_ATTR_DOUBLE, .flags = OUT | SINEW_ATTR_GENERIC_NUMERIC},
};
static const sinew_affects_t ch_affects[] = {{"s", "o"}, {"i", "o"}};

/* input[selector]; a selector naming no element gives 0. */
static int ch_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != U.ch_o) return SINEW_EUNKNOWN_PLUG;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  double s = get_attr(g, n, U.ch_s, 0), v[SINEW_GENERIC_MAX] = {0};
  size_t count = 1;
  if (s >= 0 && s <= INT32_MAX) {
    int32_t k = (int32_t)s;
    sinew_plug_t e = sinew_plug_make(n, U.ch_i, 1, &k); /* a missing element reads 0 */
    int rc = sinew_get_generic(g, &e, v, SINEW_GENERIC_MAX, &count);
    if (rc) return rc;
    if (count < 1 || count > SINEW_GENERIC_MAX) count = 1;
  }
  for (size_t j = 0; j < count; j++) v[j] = finite_or_zero(ctx, v[j], "input is not finite");
  return sinew_compute_set_generic(ctx, plug, v, count);
}

/* ---- floatConstant (lookdevKit); multiply, sum, subtract, divide (Maya 2026 math) ------------ */

static const sinew_attr_desc_t fc_attrs[] = {
    {.name = "inFloat", .short_name = "_f", .type = FL, .flags = IN},
    {.name = "outFloat", .short_name = "of", .type = FL, .flags = OUT},
};
static const sinew_affects_t fc_affects[] = {{"_f", "of"}};

static int fc_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != U.fc_o) return SINEW_EUNKNOWN_PLUG;
  return sinew_compute_set_double(
      ctx, plug, get_attr(sinew_compute_graph(ctx), sinew_compute_node(ctx), U.fc_f, 0));
}

static const sinew_attr_desc_t mu_attrs[] = {
    {.name = "input", .short_name = "i", .type = SINEW_ATTR_DOUBLE, .flags = IN | SINEW_ATTR_ARRAY},
    {.name = "output", .short_name = "o", .type = SINEW_ATTR_DOUBLE, .flags = OUT},
};
static const sinew_affects_t mu_affects[] = {{"i", "o"}};

/* Folds the present elements of multi `arr`: their sum, or their product (none gives 0 either
 * way; Maya's page leaves an empty product undocumented and 0 is the output's default). */
static int list_fold(sinew_compute_t *ctx, uint32_t arr, bool product, double *out) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_plug_t a = sinew_plug_make(sinew_compute_node(ctx), arr, 0, NULL);
  size_t total = sinew_plug_indices(g, &a, NULL, 0);
  *out = 0;
  if (!total) return SINEW_OK;
  sinew_data_t *holder = NULL;
  double *val = sinew__scratch(total * (sizeof(double) + sizeof(int32_t)), &holder);
  if (!val) return SINEW_ENOMEM;
  int32_t *idx = (int32_t *)(val + total);
  size_t got = 0;
  int rc = sinew_get_double_elements(g, &a, idx, val, total, &got);
  double v = product ? 1 : 0;
  for (size_t k = 0; !rc && k < got && k < total; k++) v = product ? v * val[k] : v + val[k];
  sinew_data_unref(holder);
  if (!rc) *out = finite_or_zero(ctx, v, product ? "product overflows" : "sum overflows");
  return rc;
}

static int mu_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != U.mu_o) return SINEW_EUNKNOWN_PLUG;
  double v;
  int rc = list_fold(ctx, U.mu_i, true, &v);
  return rc ? rc : sinew_compute_set_double(ctx, plug, v);
}

static int su_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != U.su_o) return SINEW_EUNKNOWN_PLUG;
  double v;
  int rc = list_fold(ctx, U.su_i, false, &v);
  return rc ? rc : sinew_compute_set_double(ctx, plug, v);
}

/* subtract: input1 - input2; divide: input1 / input2 (input2 defaults to 1). */
static const sinew_attr_desc_t sb_attrs[] = {
    {.name = "input1", .short_name = "i1", .type = SINEW_ATTR_DOUBLE, .flags = IN},
    {.name = "input2", .short_name = "i2", .type = SINEW_ATTR_DOUBLE, .flags = IN},
    {.name = "output", .short_name = "o", .type = SINEW_ATTR_DOUBLE, .flags = OUT},
};
static const sinew_attr_desc_t dv_attrs[] = {
    {.name = "input1", .short_name = "i1", .type = SINEW_ATTR_DOUBLE, .flags = IN},
    {.name = "input2", .short_name = "i2", .type = SINEW_ATTR_DOUBLE, .flags = IN, .default_value = 1},
    {.name = "output", .short_name = "o", .type = SINEW_ATTR_DOUBLE, .flags = OUT},
};
static const sinew_affects_t pair_affects[] = {{"i1", "o"}, {"i2", "o"}};

static int sb_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != U.sb_o) return SINEW_EUNKNOWN_PLUG;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  double v = get_attr(g, n, U.sb_i1, 0) - get_attr(g, n, U.sb_i2, 0);
  return sinew_compute_set_double(ctx, plug, finite_or_zero(ctx, v, "difference overflows"));
}

static int dv_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != U.dv_o) return SINEW_EUNKNOWN_PLUG;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  double v = get_attr(g, n, U.dv_i1, 0) / get_attr(g, n, U.dv_i2, 1);
  return sinew_compute_set_double(ctx, plug, finite_or_zero(ctx, v, "divide by zero"));
}

/* ---- floatMath, floatCondition (lookdevKit, Maya 2017+) --------------------------------------------
 *
 * floatMath: outFloat = floatA <op> floatB, op (_cnd) 0 add, 1 subtract, 2 multiply, 3 divide,
 * 4 min, 5 max, 6 power. Autodesk's page lists the operations but not their numbers or the
 * defaults: the numbering is read from Maya-written files (a node named "...halfLength" with
 * _fb -0.5 and _cnd 2 halves; "...StretchFactor" with _cnd 3 divides one length by another; a
 * length "...OriginalLength" with the default op adds two), and the defaults chosen are floatA 0,
 * floatB 1. floatCondition: outFloat = condition ? floatA : floatB. */
static const sinew_attr_desc_t fm_attrs[] = {
    {.name = "floatA", .short_name = "_fa", .type = FL, .flags = IN},
    {.name = "floatB", .short_name = "_fb", .type = FL, .flags = IN, .default_value = 1},
    {.name = "operation", .short_name = "_cnd", .type = SINEW_ATTR_ENUM, .flags = IN,
     .enum_fields = "Add:Subtract:Multiply:Divide:Min:Max:Power", ENUM_RANGE(6)},
    {.name = "outFloat", .short_name = "of", .type = FL, .flags = OUT},
};
static const sinew_affects_t fm_affects[] = {{"_fa", "of"}, {"_fb", "of"}, {"_cnd", "of"}};

static int fm_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != U.fm_o) return SINEW_EUNKNOWN_PLUG;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  double a = get_attr(g, n, U.fm_a, 0), b = get_attr(g, n, U.fm_b, 1), v;
  switch ((int)get_attr(g, n, U.fm_op, 0)) {
    case 1: v = a - b; break;
    case 2: v = a * b; break;
    case 3: v = a / b; break;
    case 4: v = fmin(a, b); break;
    case 5: v = fmax(a, b); break;
    case 6: v = pow(a, b); break;
    default: v = a + b; break;
  }
  return sinew_compute_set_double(ctx, plug, finite_or_zero(ctx, v, "the result is not finite"));
}

static const sinew_attr_desc_t fcd_attrs[] = {
    {.name = "floatA", .short_name = "_fa", .type = FL, .flags = IN},
    {.name = "floatB", .short_name = "_fb", .type = FL, .flags = IN, .default_value = 1},
    {.name = "condition", .short_name = "_cnd", .type = SINEW_ATTR_BOOL, .flags = IN},
    {.name = "outFloat", .short_name = "of", .type = FL, .flags = OUT},
};

static int fcd_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != U.fcd_o) return SINEW_EUNKNOWN_PLUG;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  bool c = get_attr(g, n, U.fcd_c, 0) != 0;
  return sinew_compute_set_double(ctx, plug, c ? get_attr(g, n, U.fcd_a, 0) : get_attr(g, n, U.fcd_b, 1));
}

/* ---- registration ------------------------------------------------------------------------------ */

typedef struct util_type {
  const char *name;
  const sinew_attr_desc_t *attrs;
  size_t nattrs;
  const sinew_affects_t *affects;
  size_t naffects;
  sinew_compute_fn compute;
} util_type;

#define UT(n, a, f, c) {n, a, COUNT(a), f, COUNT(f), c}
static const util_type types[] = {
    UT("multiplyDivide", md_attrs, md_affects, md_compute),
    UT("condition", cd_attrs, cd_affects, cd_compute),
    UT("plusMinusAverage", pm_attrs, pm_affects, pm_compute),
    UT("reverse", rv_attrs, rv_affects, rv_compute),
    UT("blendColors", bc_attrs, bc_affects, bc_compute),
    UT("clamp", cl_attrs, cl_affects, cl_compute),
    UT("setRange", sr_attrs, sr_affects, sr_compute),
    UT("multDoubleLinear", dl_attrs, dl_affects, ml_compute),
    UT("addDoubleLinear", dl_attrs, dl_affects, al_compute),
    UT("distanceBetween", db_attrs, db_affects, db_compute),
    UT("vectorProduct", vp_attrs, vp_affects, vp_compute),
    UT("angleBetween", ab_attrs, ab_affects, ab_compute),
    UT("remapValue", rm_attrs, rm_affects, rm_compute),
    UT("choice", ch_attrs, ch_affects, ch_compute),
    UT("floatConstant", fc_attrs, fc_affects, fc_compute),
    UT("multiply", mu_attrs, mu_affects, mu_compute),
    UT("sum", mu_attrs, mu_affects, su_compute),
    UT("subtract", sb_attrs, pair_affects, sb_compute),
    UT("divide", dv_attrs, pair_affects, dv_compute),
    UT("floatMath", fm_attrs, fm_affects, fm_compute),
    UT("floatCondition", fcd_attrs, fm_affects, fcd_compute),
};

static void ids(const sinew_node_type_t *t, const char *const *names, uint32_t *const *out, size_t n) {
  for (size_t i = 0; i < n; i++) *out[i] = sinew_node_type_attr(t, names[i]);
}

static void trip_ids(const sinew_node_type_t *t, trip *tr, const char *p, const char *x, const char *y,
                     const char *z) {
  tr->p = sinew_node_type_attr(t, p);
  tr->c[0] = sinew_node_type_attr(t, x);
  tr->c[1] = sinew_node_type_attr(t, y);
  tr->c[2] = z ? sinew_node_type_attr(t, z) : UINT32_MAX;
}

static void lookup_ids(const sinew_node_type_t *const *t) {
  trip_ids(t[0], &U.md_i1, "i1", "i1x", "i1y", "i1z");
  trip_ids(t[0], &U.md_i2, "i2", "i2x", "i2y", "i2z");
  trip_ids(t[0], &U.md_o, "o", "ox", "oy", "oz");
  U.md_op = sinew_node_type_attr(t[0], "op");
  ids(t[1], (const char *const[]){"op", "ft", "st"}, (uint32_t *const[]){&U.cd_op, &U.cd_ft, &U.cd_st}, 3);
  trip_ids(t[1], &U.cd_ct, "ct", "ctr", "ctg", "ctb");
  trip_ids(t[1], &U.cd_cf, "cf", "cfr", "cfg", "cfb");
  trip_ids(t[1], &U.cd_oc, "oc", "ocr", "ocg", "ocb");
  ids(t[2], (const char *const[]){"op", "i1", "i2", "i2x", "i2y", "i3", "i3x", "i3y", "i3z", "o1"},
      (uint32_t *const[]){&U.pm_op, &U.pm_i1, &U.pm_i2, &U.pm_i2c[0], &U.pm_i2c[1], &U.pm_i3, &U.pm_i3c[0],
                          &U.pm_i3c[1], &U.pm_i3c[2], &U.pm_o1},
      10);
  trip_ids(t[2], &U.pm_o2, "o2", "o2x", "o2y", NULL);
  trip_ids(t[2], &U.pm_o3, "o3", "o3x", "o3y", "o3z");
  trip_ids(t[3], &U.rv_i, "i", "ix", "iy", "iz");
  trip_ids(t[3], &U.rv_o, "o", "ox", "oy", "oz");
  U.bc_b = sinew_node_type_attr(t[4], "b");
  trip_ids(t[4], &U.bc_c1, "c1", "c1r", "c1g", "c1b");
  trip_ids(t[4], &U.bc_c2, "c2", "c2r", "c2g", "c2b");
  trip_ids(t[4], &U.bc_op, "op", "opr", "opg", "opb");
  trip_ids(t[5], &U.cl_mn, "mn", "mnr", "mng", "mnb");
  trip_ids(t[5], &U.cl_mx, "mx", "mxr", "mxg", "mxb");
  trip_ids(t[5], &U.cl_ip, "ip", "ipr", "ipg", "ipb");
  trip_ids(t[5], &U.cl_op, "op", "opr", "opg", "opb");
  trip_ids(t[6], &U.sr_v, "v", "vx", "vy", "vz");
  trip_ids(t[6], &U.sr_n, "n", "nx", "ny", "nz");
  trip_ids(t[6], &U.sr_m, "m", "mx", "my", "mz");
  trip_ids(t[6], &U.sr_on, "on", "onx", "ony", "onz");
  trip_ids(t[6], &U.sr_om, "om", "omx", "omy", "omz");
  trip_ids(t[6], &U.sr_o, "o", "ox", "oy", "oz");
  ids(t[7], (const char *const[]){"i1", "i2", "o"}, (uint32_t *const[]){&U.ml_i1, &U.ml_i2, &U.ml_o}, 3);
  ids(t[8], (const char *const[]){"i1", "i2", "o"}, (uint32_t *const[]){&U.al_i1, &U.al_i2, &U.al_o}, 3);
  ids(t[9], (const char *const[]){"im1", "im2", "d"}, (uint32_t *const[]){&U.db_im1, &U.db_im2, &U.db_d}, 3);
  trip_ids(t[9], &U.db_p1, "p1", "p1x", "p1y", "p1z");
  trip_ids(t[9], &U.db_p2, "p2", "p2x", "p2y", "p2z");
  ids(t[10], (const char *const[]){"op", "m", "no"}, (uint32_t *const[]){&U.vp_op, &U.vp_m, &U.vp_no}, 3);
  trip_ids(t[10], &U.vp_i1, "i1", "i1x", "i1y", "i1z");
  trip_ids(t[10], &U.vp_i2, "i2", "i2x", "i2y", "i2z");
  trip_ids(t[10], &U.vp_o, "o", "ox", "oy", "oz");
  ids(t[11], (const char *const[]){"axa", "a"}, (uint32_t *const[]){&U.ab_axa, &U.ab_a}, 2);
  trip_ids(t[11], &U.ab_v1, "v1", "v1x", "v1y", "v1z");
  trip_ids(t[11], &U.ab_v2, "v2", "v2x", "v2y", "v2z");
  trip_ids(t[11], &U.ab_eu, "eu", "eux", "euy", "euz");
  trip_ids(t[11], &U.ab_ax, "ax", "axx", "axy", "axz");
  ids(t[12],
      (const char *const[]){"i", "imn", "imx", "omn", "omx", "vl", "vlp", "vlfv", "vli", "cl", "clp", "cli", "ov"},
      (uint32_t *const[]){&U.rm_i, &U.rm_imn, &U.rm_imx, &U.rm_omn, &U.rm_omx, &U.rm_vl, &U.rm_vlp, &U.rm_vlfv,
                          &U.rm_vli, &U.rm_cl, &U.rm_clp, &U.rm_cli, &U.rm_ov},
      13);
  trip_ids(t[12], &U.rm_clc, "clc", "clcr", "clcg", "clcb");
  trip_ids(t[12], &U.rm_oc, "oc", "ocr", "ocg", "ocb");
  ids(t[13], (const char *const[]){"s", "i", "o"}, (uint32_t *const[]){&U.ch_s, &U.ch_i, &U.ch_o}, 3);
  ids(t[14], (const char *const[]){"_f", "of"}, (uint32_t *const[]){&U.fc_f, &U.fc_o}, 2);
  ids(t[15], (const char *const[]){"i", "o"}, (uint32_t *const[]){&U.mu_i, &U.mu_o}, 2);
  ids(t[16], (const char *const[]){"i", "o"}, (uint32_t *const[]){&U.su_i, &U.su_o}, 2);
  ids(t[17], (const char *const[]){"i1", "i2", "o"}, (uint32_t *const[]){&U.sb_i1, &U.sb_i2, &U.sb_o}, 3);
  ids(t[18], (const char *const[]){"i1", "i2", "o"}, (uint32_t *const[]){&U.dv_i1, &U.dv_i2, &U.dv_o}, 3);
  ids(t[19], (const char *const[]){"_fa", "_fb", "_cnd", "of"}, (uint32_t *const[]){&U.fm_a, &U.fm_b, &U.fm_op, &U.fm_o},
      4);
  ids(t[20], (const char *const[]){"_fa", "_fb", "_cnd", "of"},
      (uint32_t *const[]){&U.fcd_a, &U.fcd_b, &U.fcd_c, &U.fcd_o}, 4);
}

int sinew__register_utility_types(sinew_graph_t *g) {
  if (sinew_find_node_type(g, "multiplyDivide")) return SINEW_OK;
  const sinew_node_type_t *t[COUNT(types)];
  for (size_t i = 0; i < COUNT(types); i++) {
    sinew_node_type_desc_t d = {.name = types[i].name, .flags = SINEW_NODE_TYPE_PARALLEL,
                                .attrs = types[i].attrs, .attr_count = types[i].nattrs,
                                .affects = types[i].affects, .affects_count = types[i].naffects,
                                .compute = types[i].compute, .state_size = sizeof(util_state)};
    int rc = sinew_register_node_type(g, &d, &t[i]);
    if (rc) return rc;
  }
  lookup_ids(t);
  return SINEW_OK;
}
