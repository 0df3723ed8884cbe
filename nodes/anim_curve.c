/* nodes/anim_curve.c: Maya's animation curves (spec maya-reference-rigging.md section 1).
 *
 *   animCurveTL / TA / TT / TU   keyed on time: input unconnected = the scene's current time
 *   animCurveUL / UA / UT / UU   keyed on a plain number (set-driven keys): input = the driver
 *
 * The keys live in Maya's attributes (.ktv, .kit, .kot, .kix ...), so files load into them
 * unchanged. When one of those changes, the node only notes it (input_changed); the next
 * evaluation compiles the keys once into a per-node table (sorted keys, the tangents Maya
 * computes for each tangent type, the polynomial of every span). Evaluating at another time
 * then allocates nothing: a span is found from the last one used (time moving forward) or by
 * binary search, and evaluated as AnimX (Autodesk's reference of Maya's evaluation) does.
 *
 * Units: key times of time curves and tangent x are seconds, key values and tangent y the
 * output's internal unit (cm, radians, seconds), as Maya's API gives them; the .ma reader
 * converts the file's frames, degrees and linear unit into these through the attribute types.
 * Time is kept in Maya's ticks (141,120,000 per second). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nodes/nodes_internal.h"

#define TICKS_PER_SECOND 141120000.0
#define KEY_EPS 1e-10 /* AnimX's equivalence of times */

/* Tangent type codes as files and the .kit/.kot/.tan attributes hold them (spec 1.3). */
enum {
  TAN_FIXED = 1,
  TAN_LINEAR = 2,
  TAN_FLAT = 3,
  TAN_STEP = 5,
  TAN_SLOW = 6,
  TAN_FAST = 7,
  TAN_SPLINE = 9,
  TAN_CLAMPED = 10,
  TAN_PLATEAU = 16,
  TAN_STEPNEXT = 17,
  TAN_AUTO = 18,
  TAN_AUTOMIX = 27,
  TAN_AUTOEASE = 28,
  TAN_AUTOCUSTOM = 29
};

/* Infinity codes of .pre / .pst. */
enum { INF_CONSTANT = 0, INF_LINEAR = 1, INF_CYCLE = 3, INF_CYCLE_RELATIVE = 4, INF_OSCILLATE = 5 };

enum span_kind { SPAN_LINEAR, SPAN_STEP, SPAN_STEPNEXT, SPAN_HERMITE, SPAN_BEZIER };

typedef struct anim_key {
  double t, v;
  double inx, iny, outx, outy; /* tangents as used (computed unless fixed) */
  int tin, tout;               /* tangent type codes */
  double sx, sy, tx, ty;       /* the file's stored tangents (fixed keys, slow/fast filler) */
  int32_t index;               /* logical index in .ktv: breaks ties in time, last wins */
  bool has_stored_in, has_stored_out;
} anim_key;

/* Span i runs from key i to key i + 1. Hermite: v = ((a*s + b)*s + c)*s + d with s = t - t0.
 * Bezier: x(u) and y(u) in power basis over the normalised span, solved for u. */
typedef struct anim_span {
  enum span_kind kind;
  bool bezier_linear; /* x(u) = u: no root to solve */
  double c[4];        /* Hermite a, b, c, d; or Bezier y(u) coefficients, highest first */
  double px[4];       /* Bezier x(u) coefficients, highest first */
} anim_span;

/* What an evaluation inside the keys reads of key i and the span it starts, in one cache line:
 * finding and evaluating a span from the one used last touches that line (the next key's time
 * is repeated in it), not the keys' and spans' whole records. */
typedef struct anim_hot {
  double t, v;
  double c[4];   /* the span's cubic (Hermite a, b, c, d; Bezier y(u)) */
  uint64_t kind; /* the span's method (enum span_kind) */
  double tn;     /* key i + 1's time (the last key: its own) */
} anim_hot;

/* The compiled curve: what evaluation reads. keys and spans hold everything; hot repeats what
 * the common path reads. */
typedef struct anim_compiled {
  anim_key *keys;
  anim_span *spans;
  anim_hot *hot; /* 64-byte aligned */
  size_t n;
  bool weighted;
  int pre, post;
} anim_compiled;

typedef struct curve_kind {
  bool time_input;
  sinew_attr_type_t output_type;
} curve_kind;

typedef struct curve_state {
  anim_compiled curve;    /* first, with stale and hint: what a time change reads */
  bool stale;             /* a key attribute changed since the last compile */
  size_t hint;            /* the span used last */
  sinew_data_t *mem;      /* holds keys and spans */
  uint64_t *edits;        /* the time list's count of key edits (edits_mem holds it), or NULL */
  sinew_data_t *edits_mem;
  sinew_node_t time_node; /* the scene's time node and its outTime */
  uint32_t out_time;
  bool warned_roti;       /* rotationInterpolation >= 3 was reported */
} curve_state;

/* ---- attributes ------------------------------------------------------------------------------ */

#define F_ARR (SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY)

/* Stored on every curve type (the abstract animCurve); the key multis are parallel to .ktv. */
static const sinew_attr_desc_t curve_attrs[] = {
    {.name = "keyTanInType", .short_name = "kit", .type = SINEW_ATTR_INT, .flags = F_ARR},
    {.name = "keyTanOutType", .short_name = "kot", .type = SINEW_ATTR_INT, .flags = F_ARR},
    {.name = "keyTanInX", .short_name = "kix", .type = SINEW_ATTR_DOUBLE, .flags = F_ARR},
    {.name = "keyTanInY", .short_name = "kiy", .type = SINEW_ATTR_DOUBLE, .flags = F_ARR},
    {.name = "keyTanOutX", .short_name = "kox", .type = SINEW_ATTR_DOUBLE, .flags = F_ARR},
    {.name = "keyTanOutY", .short_name = "koy", .type = SINEW_ATTR_DOUBLE, .flags = F_ARR},
    {.name = "keyTanLocked", .short_name = "ktl", .type = SINEW_ATTR_BOOL, .flags = F_ARR, .default_value = 1},
    {.name = "keyWeightLocked", .short_name = "kwl", .type = SINEW_ATTR_BOOL, .flags = F_ARR, .default_value = 1},
    {.name = "keyBreakdown", .short_name = "kbd", .type = SINEW_ATTR_BOOL, .flags = F_ARR},
    {.name = "keyTickDrawSpecial", .short_name = "kyts", .type = SINEW_ATTR_BOOL, .flags = F_ARR},
    {.name = "tangentType", .short_name = "tan", .type = SINEW_ATTR_INT, .default_value = TAN_AUTO},
    {.name = "weightedTangents", .short_name = "wgt", .type = SINEW_ATTR_BOOL, .default_value = 1},
    {.name = "preInfinity", .short_name = "pre", .type = SINEW_ATTR_ENUM,
     .enum_fields = "Constant=0:Linear=1:Cycle=3:Cycle with Offset=4:Oscillate=5"},
    {.name = "postInfinity", .short_name = "pst", .type = SINEW_ATTR_ENUM,
     .enum_fields = "Constant=0:Linear=1:Cycle=3:Cycle with Offset=4:Oscillate=5"},
    {.name = "rotationInterpolation", .short_name = "roti", .type = SINEW_ATTR_ENUM,
     .enum_fields = "None=1:Euler=2:Quaternion=3:Slerp=4:Squad=5", .default_value = 1},
    {.name = "stipplePattern", .short_name = "sp", .type = SINEW_ATTR_INT},
    {.name = "outStippleThreshold", .short_name = "ot", .type = SINEW_ATTR_DOUBLE},
    {.name = "stippleReverse", .short_name = "spr", .type = SINEW_ATTR_BOOL},
    {.name = "useCurveColor", .short_name = "ucc", .type = SINEW_ATTR_BOOL},
    {.name = "curveColor", .short_name = "cc", .type = SINEW_ATTR_COMPOUND},
    {.name = "curveColorR", .short_name = "ccr", .type = SINEW_ATTR_FLOAT, .parent = "curveColor"},
    {.name = "curveColorG", .short_name = "ccg", .type = SINEW_ATTR_FLOAT, .parent = "curveColor"},
    {.name = "curveColorB", .short_name = "ccb", .type = SINEW_ATTR_FLOAT, .parent = "curveColor"},
};

/* What changes the compiled keys (tangentType too: it fills omitted .kit/.kot entries). */
enum { K_KIT, K_KOT, K_KIX, K_KIY, K_KOX, K_KOY, K_TAN, K_WGT, K_PRE, K_PST, NKEY_ATTRS };
static const char *const key_attr_names[NKEY_ATTRS] = {"kit", "kot", "kix", "kiy", "kox",
                                                       "koy", "tan", "wgt", "pre", "pst"};

static struct {
  uint32_t key[NKEY_ATTRS];
  uint32_t roti;
  uint32_t input, output, ktv, kt, kv; /* identical in the eight types (same table order) */
} A;

static const struct {
  const char *name;
  curve_kind kind;
} curve_types[] = {
    {"animCurveTL", {true, SINEW_ATTR_DISTANCE}}, {"animCurveTA", {true, SINEW_ATTR_ANGLE}},
    {"animCurveTT", {true, SINEW_ATTR_TIME}},     {"animCurveTU", {true, SINEW_ATTR_DOUBLE}},
    {"animCurveUL", {false, SINEW_ATTR_DISTANCE}}, {"animCurveUA", {false, SINEW_ATTR_ANGLE}},
    {"animCurveUT", {false, SINEW_ATTR_TIME}},     {"animCurveUU", {false, SINEW_ATTR_DOUBLE}},
};
#define NCURVE_TYPES (sizeof curve_types / sizeof *curve_types)

/* ---- span evaluation (AnimX's arithmetic, so results agree to the last bits) -------------------- */

static bool near(double a, double b, double eps) { return fabs(a - b) <= eps; }

static double poly3(const double c[4], double s) { return ((c[0] * s + c[1]) * s + c[2]) * s + c[3]; }

/* Hermite span from key k to key n: cubic in s = t - t0 with the out slope of k and the in
 * slope of n; exactly linear when both tangents are parallel to the chord. */
static void hermite_span(const anim_key *k, const anim_key *n, anim_span *sp) {
  const double third = 1.0 / 3.0;
  double x1 = k->t + k->outx * third, y1 = k->v + k->outy * third;
  double x2 = n->t - n->inx * third, y2 = n->v - n->iny * third;
  double dx = n->t - k->t, dy = n->v - k->v;
  double tx0 = x1 - k->t, ty0 = y1 - k->v, tx1 = n->t - x2, ty1 = n->v - y2;
  sp->kind = SPAN_HERMITE;
  if (near(dx * ty0, dy * tx0, fabs(2e-7 * dx * ty0)) && near(dx * ty1, dy * tx1, fabs(2e-7 * dx * ty1))) {
    sp->c[0] = sp->c[1] = 0;
    sp->c[2] = dy / dx;
    sp->c[3] = k->v;
    return;
  }
  double m1 = tx0 != 0.0 ? ty0 / tx0 : 0.0, m2 = tx1 != 0.0 ? ty1 / tx1 : 0.0;
  double len = 1.0 / (dx * dx), d1 = dx * m1, d2 = dx * m2;
  sp->c[0] = (d1 + d2 - dy - dy) * len / dx;
  sp->c[1] = (dy + dy + dy - d1 - d1 - d2) * len;
  sp->c[2] = m1;
  sp->c[3] = k->v;
}

/* Bezier control values (a, b, c, d) in power basis, highest power first. */
static void bezier_to_power(double a, double b, double c, double d, double out[4]) {
  double e = b - a, f = c - b, g = d - c, h = f - e;
  out[0] = g - f - h;
  out[1] = 3 * h;
  out[2] = 3 * e;
  out[3] = a;
}

/* Moves x2 (or x1 when x1 is past 4/3) so that (x1, x2) lies inside the ellipse
 * x1^2 + x2^2 - 2(x1 + x2) + x1*x2 + 1 <= 0, where x(u) is monotonic. */
static void constrain_inside(double *x1, double *x2) {
  if (*x1 + KEY_EPS < 4.0 / 3.0) {
    double b = *x1 - 2.0, c = *x1 - 1.0, discr = sqrt(b * b - 4 * c * c);
    double root = (-b + discr) * 0.5;
    if (*x2 + KEY_EPS > root) {
      *x2 = root - KEY_EPS;
    } else {
      root = (-b - discr) * 0.5;
      if (*x2 < root + KEY_EPS) *x2 = root + KEY_EPS;
    }
  } else {
    *x1 = 4.0 / 3.0 - KEY_EPS;
    *x2 = 1.0 / 3.0 - KEY_EPS;
  }
}

/* Makes the normalised x control values give a monotonic x(u), keeping the first. */
static void make_monotonic(double *x1, double *x2) {
  double y2 = 1.0 - *x2;
  if (*x1 < 0.0) *x1 = 0.0;
  if (y2 < 0.0) y2 = 0.0;
  if (*x1 > 1.0 || y2 > 1.0) {
    double d = *x1 * (*x1 - 2.0 + y2) + y2 * (y2 - 2.0) + 1.0;
    if (d + KEY_EPS > 0.0) constrain_inside(x1, &y2);
  }
  *x2 = 1.0 - y2;
}

/* Weighted span: the Bezier through the keys and their tangent control points, with x made
 * monotonic (the y control value moved in proportion when its x moves). */
static void bezier_span(const anim_key *k, const anim_key *n, anim_span *sp) {
  const double third = 1.0 / 3.0;
  double x1 = k->t + k->outx * third, y1 = k->v + k->outy * third;
  double x2 = n->t - n->inx * third, y2 = n->v - n->iny * third;
  double range = n->t - k->t;
  double nx1 = (x1 - k->t) / range, nx2 = (x2 - k->t) / range;
  sp->kind = SPAN_BEZIER;
  sp->bezier_linear = near(nx1, 1.0 / 3.0, 1e-6) && near(nx2, 2.0 / 3.0, 1e-6);
  double old1 = nx1, old2 = nx2;
  if (nx1 < 0.0) nx1 = 0.0;
  if (nx2 > 1.0) nx2 = 1.0;
  if (nx1 > 1.0 || nx2 < 0.0) make_monotonic(&nx1, &nx2);
  if (nx1 != old1 && !near(old1, 0.0, KEY_EPS)) y1 = k->v + (y1 - k->v) * nx1 / old1;
  if (nx2 != old2 && !near(old2, 1.0, KEY_EPS)) y2 = n->v - (n->v - y2) * (1.0 - nx2) / (1.0 - old2);
  bezier_to_power(0.0, nx1, nx2, 1.0, sp->px);
  bezier_to_power(k->v, y1, y2, n->v, sp->c);
}

/* ---- the root of x(u) = s ----
 * AnimX (and so Maya) finds it with the classic polynomial root finder: the interval is cut at
 * the roots of the derivative (found the same way, recursively) and each piece whose ends
 * differ in sign is searched with Brent's method to full precision. Where x(u) is nearly flat
 * (a vertical weighted tangent) the root is ill-conditioned and different searches land on
 * different last bits, so the same search is made here, on the same normalised polynomial. */

static double horner(const double *p, int deg, double x) {
  double h = p[deg];
  while (--deg >= 0) h = x * h + p[deg];
  return h;
}

/* Brent's zero finder on [a, b], whose ends have function values of opposite signs. */
static double brent(double a, double b, double fa, double fb, const double *p, int deg) {
  const double eps = 2.220446049250313e-16;
  double c = a, fc = fa, d = b - a, e = d;
  for (int iter = 0; iter < 500; iter++) {
    if (fabs(fc) < fabs(fb)) {
      a = b, b = c, c = a;
      fa = fb, fb = fc, fc = fa;
    }
    double del = 2.0 * eps * fabs(b), m = 0.5 * (c - b);
    if (!(fabs(m) > del && fb != 0.0)) break;
    if (fabs(e) < del || fabs(fa) <= fabs(fb)) {
      d = e = m; /* bisection */
    } else {
      double s = fb / fa, q, r, pp;
      if (a == c) { /* secant */
        pp = 2.0 * m * s;
        q = 1.0 - s;
      } else { /* inverse quadratic interpolation */
        q = fa / fc;
        r = fb / fc;
        pp = s * (2.0 * m * q * (q - r) - (b - a) * (r - 1.0));
        q = (q - 1.0) * (r - 1.0) * (s - 1.0);
      }
      if (pp > 0.0) q = -q;
      else pp = -pp;
      s = e;
      e = d;
      if (2.0 * pp < 3.0 * m * q - fabs(del * q) && pp < fabs(0.5 * s * q)) d = pp / q;
      else d = e = m;
    }
    a = b, fa = fb;
    if (fabs(d) > del) b += d;
    else b += m > 0.0 ? del : -del;
    fb = horner(p, deg, b);
    if (fb * (fc / fabs(fc)) > 0.0) { /* the root left [b, c]: start again from [a, b] */
      c = a, fc = fa;
      d = e = b - a;
    }
  }
  return b;
}

static double brent_start(double a, double b, const double *p, int deg) {
  const double eps = 2.220446049250313e-16;
  double fa = horner(p, deg, a);
  if (fabs(fa) < eps) return a;
  double fb = horner(p, deg, b);
  if (fabs(fb) < eps) return b;
  return brent(a, b, fa, fb, p, deg);
}

/* The real roots of the polynomial poly (degree deg <= 3, lowest coefficient first) in [a, b]
 * (ends included when closed), ascending; -1 for a polynomial that is zero. */
static int poly_roots(const double *poly, int deg, double a, bool a_closed, double b, bool b_closed, double *roots) {
  const double eps = 2.220446049250313e-16;
  double f = 0, p[4] = {0}, d[3] = {0}, dr[4] = {0};
  for (int i = 0; i <= deg; i++) f += fabs(poly[i]);
  double tol = (fabs(a) + fabs(b)) * (deg + 1) * eps;
  if (f <= tol) return -1;
  for (int i = 0; i <= deg; i++) p[i] = 1.0 / f * poly[i];
  while (fabs(p[deg]) < tol) deg--;
  int nr = 0;
  if (deg == 0) return 0;
  if (deg == 1) {
    roots[0] = -p[0] / p[1];
    bool left = a_closed ? a < roots[0] + tol : a < roots[0] - tol;
    bool right = b_closed ? b > roots[0] - tol : b > roots[0] + tol;
    if (!(left && right)) return 0;
    if (a_closed && roots[0] < a) roots[0] = a;
    else if (b_closed && roots[0] > b) roots[0] = b;
    return 1;
  }
  for (int i = 1; i <= deg; i++) d[i - 1] = i * p[i];
  int ndr = poly_roots(d, deg - 1, a, false, b, false, dr);
  if (ndr == -1) return 0;
  double s = a, ps = 0, e = 0, pe = 0;
  bool skip = false;
  for (int i = 0; i <= ndr; i++) {
    if (nr > deg) return nr;
    if (i == 0) {
      s = a;
      ps = horner(p, deg, s);
      if (fabs(ps) <= tol && a_closed) roots[nr++] = a;
    } else {
      s = e;
      ps = pe;
    }
    if (i == ndr) {
      e = b;
      skip = false;
    } else {
      e = dr[i];
    }
    pe = horner(p, deg, e);
    if (skip) {
      skip = false;
    } else if (fabs(pe) < tol) {
      if (i != ndr || b_closed) {
        roots[nr++] = e;
        skip = true;
      }
    } else if ((ps < 0 && pe > 0) || (ps > 0 && pe < 0)) {
      roots[nr++] = brent_start(s, e, p, deg);
      if (nr > 1 && roots[nr - 2] >= roots[nr - 1] - tol) {
        roots[nr - 2] = (roots[nr - 2] + roots[nr - 1]) * 0.5;
        nr--;
      }
    }
  }
  return nr;
}

/* The u in [0, 1] where x(u) = s; 0 when the search finds no single root (as AnimX). */
static double solve_bezier_x(const double px[4], double s) {
  double poly[4] = {px[3] - s, px[2], px[1], px[0]}, roots[8];
  return poly_roots(poly, 3, 0.0, true, 1.0, true, roots) == 1 ? roots[0] : 0.0;
}

/* A linear span from (t0, v0) to (t1, v1) at t. */
static double linear_value(double t0, double t1, double v0, double v1, double t) {
  return v0 + (t - t0) / (t1 - t0) * (v1 - v0);
}

/* The Bezier span sp from t0 to t1 at t. */
static double bezier_value(const anim_span *sp, double t0, double t1, double t) {
  double s;
  if (near(t, t0, KEY_EPS)) s = 0.0;
  else if (near(t, t1, KEY_EPS)) s = 1.0;
  else s = (t - t0) / (t1 - t0);
  double u = sp->bezier_linear ? s : solve_bezier_x(sp->px, s);
  return poly3(sp->c, u);
}

/* Span i (from key i to key i + 1) at t. */
static double eval_span(const anim_compiled *c, size_t i, double t) {
  const anim_hot *h = &c->hot[i];
  double t0 = h->t, t1 = h->tn;
  switch ((enum span_kind)h->kind) {
    case SPAN_LINEAR: return linear_value(t0, t1, h->v, h[1].v, t);
    case SPAN_STEP: return h->v;
    case SPAN_STEPNEXT: return h[1].v;
    case SPAN_HERMITE: return poly3(h->c, t - t0);
    case SPAN_BEZIER: return bezier_value(&c->spans[i], t0, t1, t);
  }
  return h->v;
}

/* ---- curve evaluation ------------------------------------------------------------------------- */

static double to_ticks(double t) {
  double ticks = t * TICKS_PER_SECOND;
  if (!(fabs(ticks) < 9.2e18)) return t; /* beyond 64-bit ticks: kept as it is */
  return (double)llround(ticks) / TICKS_PER_SECOND;
}

/* The first key at or after t (the last key when t is past the end), from the span used last
 * when time moved forward by less than a span, else by binary search. */
static size_t find_next(const anim_compiled *c, double t, size_t *hint) {
  size_t h = *hint;
  const anim_hot *kt = c->hot;
  if (h + 1 < c->n && kt[h].t < t && t <= kt[h].tn) return h + 1;
  if (h + 2 < c->n && kt[h].tn < t && t <= kt[h + 1].tn) {
    *hint = h + 1;
    return h + 2;
  }
  size_t lo = 0, hi = c->n - 1;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (kt[mid].t < t) lo = mid + 1;
    else hi = mid;
  }
  if (lo > 0) *hint = lo - 1;
  return lo;
}

/* Inside the keys (or past them with constant infinity). */
static double eval_inside(const anim_compiled *c, double t, size_t *hint) {
  size_t next = find_next(c, t, hint);
  if (next == 0) return c->hot[0].v;
  double tn = c->hot[next - 1].tn; /* key next's time, from the span's line */
  if (near(tn, t, KEY_EPS) || (next == c->n - 1 && t >= tn)) return c->hot[next].v;
  return eval_span(c, next - 1, t);
}

/* Slope of a tangent as AnimX takes it for linear infinity: through its angle, +-90 degrees
 * when x is 0. */
static double tangent_slope(double x, double y) {
  if (!near(x, 0.0, KEY_EPS)) return tan(atan(y / x));
  if (near(y, 0.0, KEY_EPS)) return 0.0;
  return tan((y > 0 ? 90.0 : -90.0) * 3.141592653589793 / 180.0);
}

/* Before the first or after the last key, with a non-constant infinity (spec 1.7). */
static double eval_infinity(const anim_compiled *c, double t, bool pre, size_t *hint) {
  const anim_key *first = &c->keys[0], *last = &c->keys[c->n - 1];
  int type = pre ? c->pre : c->post;
  double range = last->t - first->t;
  if (type == INF_LINEAR) {
    if (pre) return first->v - (first->t - t) * tangent_slope(first->inx, first->iny);
    return last->v + (t - last->t) * tangent_slope(last->outx, last->outy);
  }
  if (range == 0) return first->v; /* one key: AnimX gives 0 here; the key's value is kept */
  double cycles, ratio = (pre ? t - first->t : t - last->t) / range;
  double remainder = fabs(modf(ratio, &cycles));
  double folded = range * remainder;
  cycles = fabs(cycles) + 1;
  double unused;
  bool odd = modf(cycles / 2, &unused) != 0.0;
  if (type == INF_OSCILLATE) {
    if (pre) folded = odd ? first->t + folded : last->t - folded;
    else folded = odd ? last->t - folded : first->t + folded;
  } else if (type == INF_CYCLE || type == INF_CYCLE_RELATIVE) {
    folded = pre ? last->t - folded : first->t + folded;
  } else {
    return pre ? first->v : last->v; /* an unknown code: constant */
  }
  double v = eval_inside(c, to_ticks(folded), hint);
  if (type == INF_CYCLE_RELATIVE) v += (pre ? -cycles : cycles) * (last->v - first->v);
  return v;
}

static double eval_curve(const anim_compiled *c, double t, size_t *hint) {
  if (c->n == 0) return 0.0;
  if (c->pre != INF_CONSTANT && t < c->keys[0].t) return eval_infinity(c, t, true, hint);
  if (c->post != INF_CONSTANT && t > c->keys[c->n - 1].t) return eval_infinity(c, t, false, hint);
  return eval_inside(c, t, hint);
}

/* What a time change needs of one curve while time stays in one stretch of it (a span, or a
 * constant infinity), in one cache line the time list keeps for each curve in a row: the
 * stretch lo < t < hi (t not near hi) and how to evaluate there, the same arithmetic as
 * eval_curve; for a span, its line of the compiled curve and how many spans follow, to move on
 * to the next span without the curve's state. */
enum dense_kind { DENSE_HERMITE, DENSE_LINEAR, DENSE_BEZIER, DENSE_VALUE };
typedef struct anim_dense {
  double lo, hi;
  union {
    double c[4];          /* Hermite: the cubic; linear: the two values; value: c[0] */
    const anim_span *sp;  /* Bezier: the span */
  } u;
  const anim_hot *h;      /* the span's line, or NULL (an infinity) */
  uint32_t kind;          /* enum dense_kind */
  uint32_t left;          /* spans after this one */
} anim_dense;

static void dense_forget(anim_dense *d) { *d = (anim_dense){.lo = INFINITY, .hi = -INFINITY, .kind = DENSE_VALUE}; }

static bool dense_holds(const anim_dense *d, double t) { return d->lo < t && t < d->hi && !near(d->hi, t, KEY_EPS); }

static double dense_value(const anim_dense *d, double t) {
  if (d->kind == DENSE_HERMITE) return poly3(d->u.c, t - d->lo);
  if (d->kind == DENSE_LINEAR) return linear_value(d->lo, d->hi, d->u.c[0], d->u.c[1], t);
  if (d->kind == DENSE_BEZIER) return bezier_value(d->u.sp, d->lo, d->hi, t);
  return d->u.c[0];
}

/* *d for the span starting at line h (sp: its record, needed for a Bezier span), left spans
 * after it. */
static void dense_span(anim_dense *d, const anim_hot *h, const anim_span *sp, size_t left) {
  *d = (anim_dense){.lo = h->t, .hi = h->tn, .h = h, .left = (uint32_t)left};
  switch ((enum span_kind)h->kind) {
    case SPAN_LINEAR: d->kind = DENSE_LINEAR, d->u.c[0] = h->v, d->u.c[1] = h[1].v; break;
    case SPAN_STEP: d->kind = DENSE_VALUE, d->u.c[0] = h->v; break;
    case SPAN_STEPNEXT: d->kind = DENSE_VALUE, d->u.c[0] = h[1].v; break;
    case SPAN_HERMITE: d->kind = DENSE_HERMITE, memcpy(d->u.c, h->c, sizeof d->u.c); break;
    case SPAN_BEZIER: d->kind = DENSE_BEZIER, d->u.sp = sp; break;
    default: dense_forget(d);
  }
}

/* *d for the stretch of c holding t, just evaluated by eval_curve (which left the span in
 * hint); on a key, the span the key starts (time moving forward goes there next); forgotten
 * where eval_curve takes another way (a cycle or linear infinity). */
static void dense_set(anim_dense *d, const anim_compiled *c, size_t hint, double t) {
  dense_forget(d);
  if (c->n == 0) {
    *d = (anim_dense){.lo = -INFINITY, .hi = INFINITY, .kind = DENSE_VALUE, .u.c = {0.0}};
    return;
  }
  const anim_hot *first = &c->hot[0], *last = &c->hot[c->n - 1];
  if (t < first->t) {
    if (c->pre == INF_CONSTANT) *d = (anim_dense){.lo = -INFINITY, .hi = first->t, .kind = DENSE_VALUE, .u.c = {first->v}};
    return;
  }
  if (t > last->t) {
    if (c->post == INF_CONSTANT) *d = (anim_dense){.lo = last->t, .hi = INFINITY, .kind = DENSE_VALUE, .u.c = {last->v}};
    return;
  }
  if (hint + 1 >= c->n) return;
  const anim_hot *h = &c->hot[hint];
  if (hint + 2 < c->n && near(h->tn, t, KEY_EPS)) ++hint; /* on a key: the span it starts */
  else if (!(h->t < t && t <= h->tn)) return;
  dense_span(d, &c->hot[hint], &c->spans[hint], c->n - 2 - hint);
}

/* Time moved forward out of d's span: its value at t from the span's next line, and d moved to
 * the next span, when that is all it takes (t on the span's end key, or inside the next span,
 * not a Bezier one); false otherwise (d may have moved: dense_set makes it again). */
static bool dense_next(anim_dense *d, double t, double *v) {
  const anim_hot *h = d->h;
  if (!h || !d->left || !(t > d->lo) || h[1].kind == SPAN_BEZIER) return false;
  if (t <= d->hi) { /* on the end key, or near it from before: the key's value */
    if (!near(d->hi, t, KEY_EPS)) return false;
    *v = h[1].v;
    dense_span(d, h + 1, NULL, d->left - 1);
    return true;
  }
  dense_span(d, h + 1, NULL, d->left - 1);
  if (!dense_holds(d, t)) return false;
  *v = dense_value(d, t);
  return true;
}

/* ---- tangents Maya computes (spec 1.6) -------------------------------------------------------- */

typedef struct tan2 {
  double x, y;
} tan2;

static bool is_auto(int type) {
  return type == TAN_AUTO || type == TAN_AUTOMIX || type == TAN_AUTOEASE || type == TAN_AUTOCUSTOM;
}

/* Flat: horizontal, as long as the span on its side (the other side's when it has none). */
static tan2 flat_tangent(const anim_key *p, const anim_key *k, const anim_key *n, bool in) {
  double xin = p ? k->t - p->t : 0.0, xout = n ? n->t - k->t : 0.0;
  if (!p) xin = xout;
  if (!n) xout = xin;
  return (tan2){in ? xin : xout, 0.0};
}

/* Spline (smooth): the slope between the neighbours; an end key takes the slope to its only
 * neighbour; a lone key is flat. */
static tan2 spline_tangent(const anim_key *p, const anim_key *k, const anim_key *n, bool in) {
  if (!p && !n) return (tan2){1.0, 0.0};
  if (!p) return (tan2){n->t - k->t, n->v - k->v};
  if (!n) return (tan2){k->t - p->t, k->v - p->v};
  double slope = (n->v - p->v) / (n->t - p->t), x = in ? k->t - p->t : n->t - k->t;
  return (tan2){x, slope * x};
}

/* Linear: towards the neighbour on its side; an end key continues the segment it has, so a
 * linear curve with linear infinity goes on in a straight line. */
static tan2 linear_tangent(const anim_key *p, const anim_key *k, const anim_key *n, bool in) {
  const anim_key *a = in ? p : n;
  if (!a) a = in ? n : p;
  if (!a) return (tan2){1.0, 0.0};
  return a == p ? (tan2){k->t - p->t, k->v - p->v} : (tan2){n->t - k->t, n->v - k->v};
}

/* Auto (AnimX): a target slope clamped so that the control points stay within the values of
 * the neighbours; flat at extremes and at the ends. automix / autoease blend the one-sided
 * slopes for the target. */
static tan2 auto_tangent(const anim_key *p, const anim_key *k, const anim_key *n, bool in, int type) {
  if (!p || !n) return flat_tangent(p, k, n, in);
  double prev3 = 3.0 * (k->v - p->v) / (k->t - p->t), next3 = 3.0 * (n->v - k->v) / (n->t - k->t);
  double target;
  if (type == TAN_AUTO) {
    target = (n->v - p->v) / (n->t - p->t);
  } else {
    double ps = (k->v - p->v) / (k->t - p->t), ns = (n->v - k->v) / (n->t - k->t);
    double f = (k->t - p->t) / (n->t - p->t);
    if (type == TAN_AUTOMIX) {
      target = (1 - f) * ps + f * ns;
    } else {
      const double c = -0.5; /* ease: the strongest pull towards the nearer neighbour */
      double h = f - 0.5, gf = 0.5 + h * (1 - c + 4 * c * h * h);
      target = (1 - gf) * ps + gf * ns;
    }
  }
  int sp = prev3 < 0.0 ? -1 : 1, sn = next3 < 0.0 ? -1 : 1, st = target < 0.0 ? -1 : 1;
  if (sp != sn || st != sn) target = 0.0;
  else if (next3 >= 0) target = fmin(fmin(target, next3), prev3);
  else target = fmax(fmax(target, next3), prev3);
  double x = in ? k->t - p->t : n->t - k->t;
  return (tan2){x, target * x};
}

/* Clamped: spline, but flat on a side when either neighbour's value is within 0.05. */
static tan2 clamped_tangent(const anim_key *p, const anim_key *k, const anim_key *n, bool in) {
  bool flat_in = false, flat_out = false;
  if (p) {
    double py = fabs(p->v - k->v), ny = n ? fabs(n->v - k->v) : py;
    flat_in = ny <= 0.05 || py <= 0.05;
  }
  if (n) {
    double ny = fabs(n->v - k->v), py = p ? fabs(p->v - k->v) : ny;
    flat_out = ny <= 0.05 || py <= 0.05;
  }
  bool flat = in ? (flat_in || (!p && flat_out)) : (flat_out || (!n && flat_in));
  if (flat) return flat_tangent(p, k, n, in);
  return spline_tangent(p, k, n, in);
}

/* Plateau: spline, flat at the ends and at extremes, and flat on a side where the spline's
 * control point would pass the neighbour's value. */
static tan2 plateau_tangent(const anim_key *p, const anim_key *k, const anim_key *n, bool in) {
  if (!p || !n) return flat_tangent(p, k, n, in);
  double py = p->v - k->v, ny = n->v - k->v;
  if (py * ny >= 0.0) return flat_tangent(p, k, n, in);
  double dp = k->t - p->t, dn = n->t - k->t, span = n->t - p->t;
  bool flat;
  if (in) {
    double cpy = (py - ny) * dp / (3 * span);
    if (-ny / py < dn / dp) py = -ny * dp / dn;
    flat = (py >= 0.0 && cpy > py) || (py <= 0.0 && cpy < py);
  } else {
    double cpy = (ny - py) * dn / (3 * span);
    if (-py / ny < dp / dn) ny = -py * dn / dp;
    flat = (ny >= 0.0 && cpy > ny) || (ny <= 0.0 && cpy < ny);
  }
  return flat ? flat_tangent(p, k, n, in) : spline_tangent(p, k, n, in);
}

/* The tangent of one side of key k for its type; stored x/y for fixed keys. Step tangents are
 * (0, 0): they only matter when the other key of a curve span faces them. */
static tan2 key_tangent(const anim_key *p, const anim_key *k, const anim_key *n, bool in) {
  int type = in ? k->tin : k->tout;
  bool stored = in ? k->has_stored_in : k->has_stored_out;
  tan2 st = in ? (tan2){k->sx, k->sy} : (tan2){k->tx, k->ty};
  switch (type) {
    case TAN_FIXED: return st;
    case TAN_LINEAR: return linear_tangent(p, k, n, in);
    case TAN_FLAT: return flat_tangent(p, k, n, in);
    case TAN_STEP:
    case TAN_STEPNEXT: return (tan2){0.0, 0.0};
    case TAN_SPLINE: return spline_tangent(p, k, n, in);
    case TAN_CLAMPED: return clamped_tangent(p, k, n, in);
    case TAN_PLATEAU: return plateau_tangent(p, k, n, in);
    default:
      if (is_auto(type)) return auto_tangent(p, k, n, in, type == TAN_AUTOCUSTOM ? TAN_AUTOEASE : type);
      /* slow, fast and codes Maya no longer writes: the tangent the file stored, else smooth */
      return stored ? st : spline_tangent(p, k, n, in);
  }
}

/* Non-weighted tangents are unit vectors (only the slope matters); weighted ones keep their
 * length with x kept >= 0. Fixed tangents are used as stored. */
static tan2 finish_tangent(tan2 t, int type, bool weighted) {
  if (type == TAN_FIXED) return t;
  if (!weighted) {
    double len = sqrt(t.x * t.x + t.y * t.y);
    if (len > 0) t.x /= len, t.y /= len;
  } else if (t.x < 0) {
    t.x = 0;
  }
  return t;
}

static void compute_tangents(anim_compiled *c) {
  for (size_t i = 0; i < c->n; i++) {
    anim_key *k = &c->keys[i];
    const anim_key *p = i > 0 ? &c->keys[i - 1] : NULL, *n = i + 1 < c->n ? &c->keys[i + 1] : NULL;
    tan2 ti = finish_tangent(key_tangent(p, k, n, true), k->tin, c->weighted);
    tan2 to = finish_tangent(key_tangent(p, k, n, false), k->tout, c->weighted);
    k->inx = ti.x, k->iny = ti.y, k->outx = to.x, k->outy = to.y;
  }
}

/* The span method is decided by the key that starts it (spec 1.5). */
static void compute_spans(anim_compiled *c) {
  for (size_t i = 0; i + 1 < c->n; i++) {
    const anim_key *k = &c->keys[i], *n = &c->keys[i + 1];
    anim_span *sp = &c->spans[i];
    if (k->tout == TAN_LINEAR && n->tin == TAN_LINEAR) sp->kind = SPAN_LINEAR;
    else if (k->tout == TAN_STEP) sp->kind = SPAN_STEP;
    else if (k->tout == TAN_STEPNEXT) sp->kind = SPAN_STEPNEXT;
    else if (c->weighted) bezier_span(k, n, sp);
    else hermite_span(k, n, sp);
  }
}

/* ---- compiling the key attributes ------------------------------------------------------------- */

static sinew_plug_t plug0(sinew_node_t n, uint32_t attr) { return (sinew_plug_t){.node = n, .attr = attr}; }

static double read_double(sinew_graph_t *g, sinew_node_t n, uint32_t attr, double dflt) {
  sinew_plug_t p = plug0(n, attr);
  double v = dflt;
  sinew_get_double(g, &p, &v);
  return v;
}

static int cmp_key(const void *a, const void *b) {
  const anim_key *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* Reads one per-key multi (kit, kix ...) into the keys whose logical index it has (entries no
 * key has are ignored). keys are sorted by logical index here; idx/vals are scratch of cap
 * entries, at least the multi's. */
static int read_key_multi(sinew_graph_t *g, sinew_node_t node, uint32_t attr, anim_key *keys, size_t n,
                          int32_t *idx, double *vals, size_t cap, void (*store)(anim_key *, double)) {
  sinew_plug_t p = plug0(node, attr);
  size_t count = 0;
  int rc = sinew_get_double_elements(g, &p, idx, vals, cap, &count);
  if (rc) return rc;
  if (count > cap) count = cap;
  size_t j = 0;
  for (size_t i = 0; i < count; i++) {
    while (j < n && keys[j].index < idx[i]) j++;
    if (j < n && keys[j].index == idx[i]) store(&keys[j], vals[i]);
  }
  return SINEW_OK;
}

/* A stored tangent that is not finite (only the API can set one; files refuse it) counts as not
 * written: a fixed key then has a flat (0, 0) tangent instead of making the curve NaN. */
/* A type or infinity code as an int; a number no code has (the API can store any) becomes -1,
 * which no rule knows, instead of an out-of-range conversion. */
static int to_code(double v) { return v >= 0 && v < 1000 ? (int)v : -1; }

static void store_tin(anim_key *k, double v) { k->tin = to_code(v); }
static void store_tout(anim_key *k, double v) { k->tout = to_code(v); }
static void store_ix(anim_key *k, double v) {
  if (isfinite(v)) k->sx = v, k->has_stored_in = true;
}
static void store_iy(anim_key *k, double v) { k->sy = isfinite(v) ? v : 0.0; }
static void store_ox(anim_key *k, double v) {
  if (isfinite(v)) k->tx = v, k->has_stored_out = true;
}
static void store_oy(anim_key *k, double v) { k->ty = isfinite(v) ? v : 0.0; }

/* Keeps the keys Maya could hold: finite, sorted by time, one per time (the last by index).
 * Returns how many were dropped. */
static size_t clean_keys(anim_key *keys, size_t *n) {
  size_t m = 0, total = *n;
  for (size_t i = 0; i < total; i++)
    if (isfinite(keys[i].t) && isfinite(keys[i].v)) keys[m++] = keys[i];
  qsort(keys, m, sizeof *keys, cmp_key);
  size_t u = 0;
  for (size_t i = 0; i < m; i++) {
    if (u > 0 && keys[u - 1].t == keys[i].t) keys[u - 1] = keys[i];
    else keys[u++] = keys[i];
  }
  *n = u;
  return total - u;
}

/* Rebuilds the compiled curve from the key attributes. Allocates; the old table stays in use
 * if it fails. */
static int compile(sinew_graph_t *g, sinew_node_t node, curve_state *st, bool time_keys) {
  sinew_plug_t ktv = plug0(node, A.ktv);
  size_t n = sinew_plug_indices(g, &ktv, NULL, 0), most = n;
  for (size_t i = K_KIT; i <= K_KOY; i++) { /* a multi may hold entries no key has */
    sinew_plug_t m = plug0(node, A.key[i]);
    size_t c = sinew_plug_indices(g, &m, NULL, 0);
    if (c > most) most = c;
  }
  sinew_data_t *tmpmem = NULL, *mem = NULL;
  void *tmp = sinew__scratch(most * (sizeof(int32_t) + sizeof(double)) + 16, &tmpmem);
  size_t per_key = sizeof(anim_key) + sizeof(anim_span) + sizeof(anim_hot);
  void *block = tmp ? sinew__scratch(n * per_key + 64, &mem) : NULL;
  if (!block) {
    sinew_data_unref(tmpmem);
    sinew_data_unref(mem);
    return SINEW_ENOMEM;
  }
  double *vals = tmp;
  int32_t *idx = (int32_t *)(vals + most);
  anim_key *keys = block;
  anim_span *spans = (anim_span *)(keys + n);
  size_t n_read = n; /* the room for each array; clean_keys may leave fewer keys */
  n = sinew_plug_indices(g, &ktv, idx, n);
  int default_type = to_code(read_double(g, node, A.key[K_TAN], TAN_AUTO));
  int rc = SINEW_OK;
  for (size_t i = 0; i < n && !rc; i++) {
    int32_t path[1] = {idx[i]};
    sinew_plug_t pt = sinew_plug_make(node, A.kt, 1, path), pv = sinew_plug_make(node, A.kv, 1, path);
    anim_key *k = &keys[i];
    memset(k, 0, sizeof *k);
    k->index = idx[i];
    k->tin = k->tout = default_type;
    if (!(rc = sinew_get_double(g, &pt, &k->t))) rc = sinew_get_double(g, &pv, &k->v);
    if (time_keys && !rc) k->t = to_ticks(k->t);
  }
  struct {
    uint32_t attr;
    void (*store)(anim_key *, double);
  } multis[] = {{A.key[K_KIT], store_tin}, {A.key[K_KOT], store_tout}, {A.key[K_KIX], store_ix},
                {A.key[K_KIY], store_iy},  {A.key[K_KOX], store_ox},   {A.key[K_KOY], store_oy}};
  for (size_t m = 0; m < sizeof multis / sizeof *multis && !rc; m++)
    rc = read_key_multi(g, node, multis[m].attr, keys, n, idx, vals, most, multis[m].store);
  sinew_data_unref(tmpmem);
  if (rc) {
    sinew_data_unref(mem);
    return rc;
  }
  size_t dropped = clean_keys(keys, &n);
  if (dropped)
    sinew_log(g, SINEW_LOG_WARNING, SINEW_LOG_GENERIC,
              "%s: %zu key(s) not used (a time or value that is not finite, or a time another key has)",
              sinew_node_name(g, node), dropped);
  uintptr_t after = (uintptr_t)(spans + n_read);
  anim_hot *hot = (anim_hot *)((after + 63) & ~(uintptr_t)63);
  anim_compiled c = {.keys = keys, .spans = spans, .hot = hot, .n = n};
  if (read_double(g, node, A.roti, 1) >= 3 && !st->warned_roti) {
    st->warned_roti = true;
    sinew_log(g, SINEW_LOG_WARNING, SINEW_LOG_GENERIC,
              "%s: quaternion rotation interpolation is not supported; the curve is evaluated on its own",
              sinew_node_name(g, node));
  }
  c.weighted = read_double(g, node, A.key[K_WGT], 1) != 0;
  c.pre = to_code(read_double(g, node, A.key[K_PRE], 0));
  c.post = to_code(read_double(g, node, A.key[K_PST], 0));
  compute_tangents(&c);
  compute_spans(&c);
  for (size_t i = 0; i < c.n; i++) {
    c.hot[i] = (anim_hot){.t = keys[i].t, .v = keys[i].v, .tn = keys[i + (i + 1 < c.n)].t};
    if (i + 1 < c.n) {
      memcpy(c.hot[i].c, spans[i].c, sizeof spans[i].c);
      c.hot[i].kind = (uint64_t)spans[i].kind;
    }
  }
  sinew_data_unref(st->mem);
  st->mem = mem;
  st->curve = c;
  st->hint = 0;
  st->stale = false;
  return SINEW_OK;
}

/* ---- the node --------------------------------------------------------------------------------- */

static const curve_kind *kind_of(sinew_graph_t *g, sinew_node_t n) {
  return sinew_node_type_user_data(sinew_node_type(g, n));
}

/* The scene's current time, from the time node remembered in the state (looked up again only
 * when that node is gone: a handle of a deleted node is never valid again). */
static int current_time(sinew_graph_t *g, curve_state *st, double *out) {
  if (!sinew_node_valid(g, st->time_node)) {
    int rc = sinew_time_node(g, &st->time_node);
    if (rc) return rc;
    st->out_time = sinew_node_attr(g, st->time_node, "outTime");
  }
  sinew_plug_t p = plug0(st->time_node, st->out_time);
  return sinew_get_double(g, &p, out);
}

static int curve_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != A.output) return SINEW_EUNKNOWN_PLUG;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  curve_state *st = sinew_compute_state(ctx);
  const curve_kind *kind = kind_of(g, n);
  int rc;
  if (st->stale && (rc = compile(g, n, st, kind->time_input))) return rc;
  sinew_plug_t in = plug0(n, A.input);
  double x = 0;
  if (kind->time_input && !sinew_plug_source(g, &in, NULL)) rc = current_time(g, st, &x);
  else rc = sinew_get_double(g, &in, &x);
  if (rc) return rc;
  if (kind->time_input) x = to_ticks(x);
  return sinew_compute_set_double(ctx, plug, eval_curve(&st->curve, x, &st->hint));
}

static void curve_input_changed(sinew_graph_t *g, sinew_node_t n, void *state, const sinew_plug_t *plug) {
  (void)g;
  (void)n;
  curve_state *st = state;
  bool keys = plug->attr == A.ktv || plug->attr == A.kt || plug->attr == A.kv;
  for (size_t i = 0; i < NKEY_ATTRS; i++) keys |= plug->attr == A.key[i];
  if (!keys) return;
  st->stale = true;
  if (st->edits) ++*st->edits; /* a time change looks at the curves' states again */
}

static int curve_init(sinew_graph_t *g, sinew_node_t n, void *state) {
  (void)g;
  (void)n;
  ((curve_state *)state)->stale = true;
  return SINEW_OK;
}

static void curve_destroy(sinew_graph_t *g, sinew_node_t n, void *state) {
  (void)g;
  (void)n;
  curve_state *st = state;
  sinew_data_unref(st->mem);
  sinew_data_unref(st->edits_mem);
}

/* ---- a time change ---------------------------------------------------------------------------- */

/* The time curves whose input is not connected, in creation order: what a time change
 * evaluates. Kept between time changes in the time node's state, and made again when the
 * graph's structure serial moved (a node made or deleted, a connection made or broken, undo
 * included: what can change which nodes are such curves, or free a state listed here). One
 * block: this header, then the outputs, then the states, then one anim_dense record per curve
 * (the stretch of the curve the last time change was in); with it an output batch
 * (sinew_output_batch_make) for the outputs.
 *
 * A record is used without looking at the curve's state while no key of any listed curve was
 * edited since the last time change: a key edit counts in *edits (a counter the list and its
 * curves' states share, carried over when the list is made again), and when the count moved
 * every record is forgotten, so the next time change reads each state (stale or not) again. */
struct sinew__anim_time_list {
  sinew_data_t *mem; /* the block */
  uint64_t serial;   /* sinew_graph_structure_serial when the list was made */
  size_t n;
  sinew_plug_t *outs;
  curve_state **states;
  anim_dense *dense;
  sinew_output_batch_t *batch;
  uint64_t *edits, edits_seen; /* the shared count, and its value when the records were last good */
  sinew_data_t *edits_mem;
};

void sinew__anim_time_list_free(sinew__anim_time_list *list) {
  if (!list) return;
  sinew_output_batch_free(list->batch);
  sinew_data_unref(list->edits_mem);
  sinew_data_unref(list->mem);
}

/* The next time curve after *n (creation order) whose input is not connected. */
static bool next_time_curve(sinew_graph_t *g, const sinew_node_type_t *const *types, size_t nt, sinew_node_t *n) {
  while (sinew_node_next(g, n)) {
    const sinew_node_type_t *t = sinew_node_type(g, *n);
    bool curve = false;
    for (size_t i = 0; i < nt; i++) curve |= t == types[i];
    if (!curve) continue;
    sinew_plug_t in = plug0(*n, A.input);
    if (!sinew_plug_source(g, &in, NULL)) return true; /* else its source carries the change */
  }
  return false;
}

/* *list, made again when the structure changed since it was made. An error (ENOMEM) leaves it
 * as it was. */
static int time_list(sinew_graph_t *g, sinew__anim_time_list **list) {
  uint64_t serial = sinew_graph_structure_serial(g);
  if (*list && (*list)->serial == serial) return SINEW_OK;
  const sinew_node_type_t *types[NCURVE_TYPES];
  size_t nt = 0;
  for (size_t i = 0; i < NCURVE_TYPES; i++)
    if (curve_types[i].kind.time_input) {
      const sinew_node_type_t *t = sinew_find_node_type(g, curve_types[i].name);
      if (t) types[nt++] = t;
    }
  size_t count = 0;
  for (sinew_node_t n = {0, 0}; next_time_curve(g, types, nt, &n);) count++;
  size_t head = (sizeof(sinew__anim_time_list) + 63) & ~(size_t)63;
  size_t lists = count * (sizeof(sinew_plug_t) + sizeof(curve_state *));
  sinew_data_t *mem = NULL, *edits_mem = *list ? sinew_data_ref((*list)->edits_mem) : NULL;
  uint64_t *edits = *list ? (*list)->edits : NULL;
  if (!edits && (edits = sinew__scratch(sizeof *edits, &edits_mem))) *edits = 0;
  char *block = edits ? sinew__scratch(head + lists + 64 + count * sizeof(anim_dense), &mem) : NULL;
  if (!block) {
    sinew_data_unref(edits_mem);
    return SINEW_ENOMEM;
  }
  sinew__anim_time_list *l = (sinew__anim_time_list *)block;
  *l = (sinew__anim_time_list){.mem = mem, .serial = serial, .n = count, .outs = (sinew_plug_t *)(block + head),
                               .edits = edits, .edits_seen = *edits, .edits_mem = edits_mem};
  l->states = (curve_state **)(l->outs + count);
  l->dense = (anim_dense *)(((uintptr_t)(l->states + count) + 63) & ~(uintptr_t)63);
  size_t k = 0;
  for (sinew_node_t n = {0, 0}; k < count && next_time_curve(g, types, nt, &n); k++) {
    curve_state *st = sinew_node_state(g, n);
    l->outs[k] = plug0(n, A.output);
    l->states[k] = st;
    dense_forget(&l->dense[k]);
    if (st->edits != edits) {
      sinew_data_unref(st->edits_mem);
      st->edits_mem = sinew_data_ref(edits_mem);
      st->edits = edits;
    }
  }
  int rc = sinew_output_batch_make(g, l->outs, count, &l->batch);
  if (rc) {
    sinew__anim_time_list_free(l);
    return rc;
  }
  sinew__anim_time_list_free(*list);
  *list = l;
  return SINEW_OK;
}

/* Stores a run of evaluated time curves, outputs first .. first + k - 1 of the list; where
 * that cannot be done (the time set from inside a compute, where values are not stored from
 * outside the pull) dirties them as before. */
static int store_curves(sinew_graph_t *g, const sinew__anim_time_list *l, size_t first, const double *values,
                        size_t k) {
  if (!k || sinew_output_batch_store(g, l->batch, first, values, k) == SINEW_OK) return SINEW_OK;
  for (size_t i = first; i < first + k; i++) {
    int rc = sinew_dirty(g, &l->outs[i]);
    if (rc) return rc;
  }
  return SINEW_OK;
}

/* The time changed: every time curve whose input is not connected evaluates at the new time.
 * A compiled curve is evaluated here, in one pass over the kept list, and its output stored
 * clean (sinew_output_batch_store, in chunks: what its compute would give, without one pull
 * per curve, as Maya's evaluation manager batches time-driven nodes); a curve whose keys
 * changed since its last compile is dirtied instead and compiles when it is next read. While
 * the time stays in the stretch of a curve its record holds, the record alone is read (the
 * records are in a row, walked in order); else the curve's state, spread over the heap. Without
 * memory for the list, every such curve is dirtied (and evaluates when read). */
int sinew__anim_time_changed(sinew_graph_t *g, sinew__anim_time_list **list) {
  int rc = time_list(g, list);
  if (rc == SINEW_ENOMEM) {
    const sinew_node_type_t *types[NCURVE_TYPES];
    size_t nt = 0;
    for (size_t i = 0; i < NCURVE_TYPES; i++)
      if (curve_types[i].kind.time_input && (types[nt] = sinew_find_node_type(g, curve_types[i].name))) nt++;
    for (sinew_node_t n = {0, 0}; next_time_curve(g, types, nt, &n);) {
      sinew_plug_t out = plug0(n, A.output);
      if ((rc = sinew_dirty(g, &out))) return rc;
    }
    return SINEW_OK;
  }
  if (rc || !(*list)->n) return rc;
  sinew__anim_time_list *l = *list;
  double now = 0;
  if ((rc = sinew_time_get_seconds(g, &now))) return rc;
  now = to_ticks(now);
  if (*l->edits != l->edits_seen) { /* keys were edited: every state is looked at again */
    l->edits_seen = *l->edits;
    for (size_t i = 0; i < l->n; i++) dense_forget(&l->dense[i]);
  }
  /* In chunks of CHUNK: first the curves whose record holds (read in a row), then the others
   * (moved on to the next span from its line, or evaluated from the state, spread over the
   * heap: fetched AHEAD misses ahead), then the chunk is stored, around the stale ones. */
  enum { CHUNK = 256, AHEAD = 8 };
  double values[CHUNK];
  uint16_t miss[CHUNK];
  for (size_t base = 0; base < l->n; base += CHUNK) {
    size_t k = l->n - base < CHUNK ? l->n - base : CHUNK, nmiss = 0;
    anim_dense *dense = l->dense + base;
    for (size_t i = 0; i < k; i++) {
      if (dense_holds(&dense[i], now)) values[i] = dense_value(&dense[i], now);
      else miss[nmiss++] = (uint16_t)i;
    }
    bool stale = false;
    for (size_t m = 0; m < nmiss; m++) {
      if (m + AHEAD < nmiss) {
        const anim_dense *d = &dense[miss[m + AHEAD]];
        if (d->h && d->left) __builtin_prefetch(d->h + 1); /* the next span's line */
        else __builtin_prefetch(l->states[base + miss[m + AHEAD]]);
      }
      size_t i = miss[m];
      if (dense_next(&dense[i], now, &values[i])) continue;
      curve_state *st = l->states[base + i];
      if (st->stale) { /* compiled when it is next read: dirtied below */
        stale = true;
        continue;
      }
      values[i] = eval_curve(&st->curve, now, &st->hint);
      dense_set(&dense[i], &st->curve, st->hint, now);
    }
    if (!stale) {
      if ((rc = store_curves(g, l, base, values, k))) return rc;
      continue;
    }
    size_t run = 0; /* curves base + run .. base + i - 1 are to be stored */
    for (size_t i = 0; i <= k; i++) {
      if (i < k && !l->states[base + i]->stale) continue;
      if ((rc = store_curves(g, l, base + run, values + run, i - run))) return rc;
      if (i < k && (rc = sinew_dirty(g, &l->outs[base + i]))) return rc;
      run = i + 1;
    }
  }
  return SINEW_OK;
}

/* ---- registration ----------------------------------------------------------------------------- */

static int register_curve_type(sinew_graph_t *g, size_t i) {
  const curve_kind *k = &curve_types[i].kind;
  sinew_attr_type_t in_type = k->time_input ? SINEW_ATTR_TIME : SINEW_ATTR_DOUBLE;
  const sinew_attr_desc_t attrs[] = {
      {.name = "input", .short_name = "i", .type = in_type},
      {.name = "output", .short_name = "o", .type = k->output_type, .flags = SINEW_ATTR_OUTPUT},
      {.name = "keyTimeValue", .short_name = "ktv", .type = SINEW_ATTR_COMPOUND, .flags = F_ARR},
      {.name = "keyTime", .short_name = "kt", .type = in_type, .parent = "keyTimeValue"},
      {.name = "keyValue", .short_name = "kv", .type = k->output_type, .parent = "keyTimeValue"},
  };
  sinew_affects_t affects[2 + NKEY_ATTRS] = {
      {"input", "output"}, {"keyTimeValue", "output"}};
  size_t na = 2;
  for (size_t j = 0; j < NKEY_ATTRS; j++)
    affects[na++] = (sinew_affects_t){key_attr_names[j], "output"};
  /* Curves driven by input compute in parallel. A time curve with its input unconnected reads
   * the scene's time node, another node, and finds it (or makes it) by name: it computes
   * alone (a time change evaluates those curves in one batch anyway). */
  sinew_node_type_desc_t d = {.name = curve_types[i].name, .parent_type = "animCurve",
                              .flags = k->time_input ? 0u : SINEW_NODE_TYPE_PARALLEL,
                              .attrs = attrs,
                              .attr_count = sizeof attrs / sizeof *attrs, .affects = affects,
                              .affects_count = na, .compute = curve_compute, .user_data = (void *)k};
  const sinew_node_type_t *t;
  int rc = sinew_register_node_type(g, &d, &t);
  if (rc) return rc;
  A.input = sinew_node_type_attr(t, "input");
  A.output = sinew_node_type_attr(t, "output");
  A.ktv = sinew_node_type_attr(t, "keyTimeValue");
  A.kt = sinew_node_type_attr(t, "keyTime");
  A.kv = sinew_node_type_attr(t, "keyValue");
  return SINEW_OK;
}

int sinew__register_anim_curve_types(sinew_graph_t *g) {
  if (sinew_find_node_type(g, "animCurve")) return SINEW_OK;
  const sinew_node_type_t *base;
  sinew_node_type_desc_t d = {.name = "animCurve", .flags = SINEW_NODE_TYPE_ABSTRACT, .attrs = curve_attrs,
                              .attr_count = sizeof curve_attrs / sizeof *curve_attrs,
                              .input_changed = curve_input_changed, .state_size = sizeof(curve_state),
                              .init = curve_init, .destroy = curve_destroy};
  int rc = sinew_register_node_type(g, &d, &base);
  if (rc) return rc;
  for (size_t i = 0; i < NKEY_ATTRS; i++) A.key[i] = sinew_node_type_attr(base, key_attr_names[i]);
  A.roti = sinew_node_type_attr(base, "roti");
  for (size_t i = 0; i < NCURVE_TYPES && !rc; i++) rc = register_curve_type(g, i);
  return rc;
}

int sinew_anim_curve_tangents(sinew_graph_t *g, sinew_node_t node, double (*out)[5], size_t cap,
                              size_t *out_count) {
  if (!g || !out_count || (cap && !out)) return SINEW_EINVAL;
  const sinew_node_type_t *type = sinew_node_type(g, node);
  if (!type) return sinew_graph_fail(g, SINEW_ESTALE, "sinew_anim_curve_tangents", "no such node");
  const curve_kind *kind = NULL;
  for (size_t i = 0; i < NCURVE_TYPES; i++)
    if (sinew_node_type_is_a(type, curve_types[i].name)) kind = sinew_node_type_user_data(type);
  if (!kind)
    return sinew_graph_fail(g, SINEW_ETYPE, "sinew_anim_curve_tangents", "%s is not an animation curve",
                            sinew_node_name(g, node));
  curve_state *st = sinew_node_state(g, node);
  int rc;
  if (st->stale && (rc = compile(g, node, st, kind->time_input))) return rc;
  *out_count = st->curve.n;
  for (size_t i = 0; i < st->curve.n && i < cap; i++) {
    const anim_key *k = &st->curve.keys[i];
    out[i][0] = k->t, out[i][1] = k->inx, out[i][2] = k->iny, out[i][3] = k->outx, out[i][4] = k->outy;
  }
  return SINEW_OK;
}
