/* nodes/curve.c: NURBS curve data (sinew/curve.h): the block, its checks, evaluation (de Boor's
 * basis functions with derivatives), arc length, Maya's circle.
 *
 * Maya's knot vector leaves out the first and last knot of the textbook one (ncvs + degree + 1
 * knots): those two never enter the basis functions over the curve's range, so the evaluation
 * indexes Maya's knots directly, U[i] = knots[i - 1]. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nodes/nodes_internal.h"
#include "sinew/curve.h"

/* The block: this header, then the knots, then 4 numbers per CV. */
typedef struct curve_block {
  uint32_t degree, form, rational, dim, ncvs, nknots;
} curve_block;

#define TWO_PI 6.283185307179586476925286766559
#define HEADER_DOUBLES ((sizeof(curve_block) + sizeof(double) - 1) / sizeof(double))

const sinew_data_type_t sinew_curve_data_type = {.name = "nurbsCurve"};

static int why_fmt(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int why_fmt(char *why, size_t cap, const char *fmt, ...) {
  if (why && cap) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
  }
  return SINEW_EINVAL;
}

int sinew_curve_check(const sinew_curve_t *c, char *why, size_t cap) {
  if (!c) return why_fmt(why, cap, "no curve");
  if (c->degree < 1 || c->degree > SINEW_CURVE_MAX_DEGREE)
    return why_fmt(why, cap, "degree %u is not between 1 and %d", c->degree, SINEW_CURVE_MAX_DEGREE);
  if ((unsigned)c->form >= SINEW_CURVE_FORM_MAX)
    return why_fmt(why, cap, "form %u is not 0 (open), 1 (closed) or 2 (periodic)", (unsigned)c->form);
  if (c->dim != 2 && c->dim != 3) return why_fmt(why, cap, "dimension %u is not 2 or 3", c->dim);
  if (c->ncvs > SINEW_CURVE_MAX_CVS) return why_fmt(why, cap, "%u CVs is more than a curve may have", c->ncvs);
  if (c->ncvs <= c->degree)
    return why_fmt(why, cap, "a degree %u curve needs at least %u CVs, got %u", c->degree, c->degree + 1, c->ncvs);
  if (c->nknots != c->ncvs + c->degree - 1)
    return why_fmt(why, cap, "%u CVs of degree %u need %u knots, got %u", c->ncvs, c->degree,
                   c->ncvs + c->degree - 1, c->nknots);
  if (!c->knots || !c->cvs) return why_fmt(why, cap, "no knots or CVs");
  for (uint32_t i = 0; i < c->nknots; i++) {
    if (!isfinite(c->knots[i])) return why_fmt(why, cap, "knot %u is not a finite number", i);
    if (i && c->knots[i] < c->knots[i - 1])
      return why_fmt(why, cap, "knot %u (%.17g) is below knot %u (%.17g)", i, c->knots[i], i - 1, c->knots[i - 1]);
  }
  if (!(c->knots[c->ncvs - 1] > c->knots[c->degree - 1])) return why_fmt(why, cap, "the knots give an empty range");
  /* a knot repeated more than degree times would split the curve */
  for (uint32_t i = 0, run = 1; i + 1 < c->nknots; i++) {
    run = c->knots[i + 1] == c->knots[i] ? run + 1 : 1;
    if (run > c->degree) return why_fmt(why, cap, "knot %.17g is repeated more than %u times", c->knots[i], c->degree);
  }
  for (uint32_t i = 0; i < c->ncvs; i++) {
    const double *p = &c->cvs[4 * (size_t)i];
    for (int k = 0; k < 4; k++)
      if (!isfinite(p[k])) return why_fmt(why, cap, "CV %u is not made of finite numbers", i);
    if (!(p[3] > 0)) return why_fmt(why, cap, "CV %u has weight %.17g (weights must be positive)", i, p[3]);
  }
  if (c->form == SINEW_CURVE_PERIODIC) {
    if (c->ncvs < 2 * c->degree)
      return why_fmt(why, cap, "a periodic curve of degree %u needs at least %u CVs, got %u", c->degree,
                     2 * c->degree, c->ncvs);
    for (uint32_t i = 0; i < c->degree; i++) {
      const double *a = &c->cvs[4 * (size_t)i], *b = &c->cvs[4 * (size_t)(c->ncvs - c->degree + i)];
      double d = fabs(a[0] - b[0]) + fabs(a[1] - b[1]) + fabs(a[2] - b[2]);
      double s = fabs(a[0]) + fabs(a[1]) + fabs(a[2]) + 1;
      if (d > 1e-9 * s)
        return why_fmt(why, cap, "a periodic curve's CV %u must repeat CV %u", c->ncvs - c->degree + i, i);
    }
  }
  return SINEW_OK;
}

int sinew_curve_create(const sinew_curve_t *c, sinew_data_t **out) {
  if (!out) return SINEW_EINVAL;
  int rc = sinew_curve_check(c, NULL, 0);
  if (rc) return rc;
  size_t n = HEADER_DOUBLES + c->nknots + 4 * (size_t)c->ncvs;
  sinew_data_t *d;
  if ((rc = sinew_data_create(&sinew_curve_data_type, n * sizeof(double), &d))) return rc;
  double *payload = sinew_data_mutable(&d); /* exclusive: made just above */
  curve_block h = {c->degree, (uint32_t)c->form, c->rational, c->dim, c->ncvs, c->nknots};
  memcpy(payload, &h, sizeof h);
  memcpy(payload + HEADER_DOUBLES, c->knots, c->nknots * sizeof(double));
  memcpy(payload + HEADER_DOUBLES + c->nknots, c->cvs, 4 * (size_t)c->ncvs * sizeof(double));
  *out = d;
  return SINEW_OK;
}

int sinew_curve_get(const sinew_data_t *d, sinew_curve_t *out) {
  if (!d || !out || sinew_data_type(d) != &sinew_curve_data_type) return SINEW_EINVAL;
  const double *payload = sinew_data_get(d);
  curve_block h;
  memcpy(&h, payload, sizeof h);
  *out = (sinew_curve_t){.degree = h.degree,
                         .form = (sinew_curve_form_t)h.form,
                         .rational = h.rational != 0,
                         .dim = h.dim,
                         .ncvs = h.ncvs,
                         .nknots = h.nknots,
                         .knots = payload + HEADER_DOUBLES,
                         .cvs = payload + HEADER_DOUBLES + h.nknots};
  return SINEW_OK;
}

void sinew_curve_range(const sinew_curve_t *c, double *min, double *max) {
  if (min) *min = c->knots[c->degree - 1];
  if (max) *max = c->knots[c->ncvs - 1];
}

uint32_t sinew_curve_spans(const sinew_curve_t *c) { return c->ncvs - c->degree; }

/* The textbook knot U[i] (i in 1 .. ncvs + degree - 1). */
#define U(c, i) ((c)->knots[(i) - 1])

/* The span s in [degree, ncvs - 1] with U[s] <= u < U[s + 1] (the last non-empty one at the end). */
static uint32_t find_span(const sinew_curve_t *c, double u) {
  uint32_t p = c->degree, n = c->ncvs;
  if (u >= U(c, n)) {
    uint32_t s = n - 1;
    while (s > p && U(c, s) == U(c, s + 1)) s--;
    return s;
  }
  if (u <= U(c, p)) {
    uint32_t s = p;
    while (s < n - 1 && U(c, s) == U(c, s + 1)) s++;
    return s;
  }
  uint32_t lo = p, hi = n;
  while (hi - lo > 1) {
    uint32_t mid = (lo + hi) / 2;
    if (u < U(c, mid)) hi = mid;
    else lo = mid;
  }
  return lo;
}

/* Basis functions N[k][j] (k-th derivative, k <= 2) of the degree + 1 CVs span - degree ..
 * span at u (The NURBS Book, A2.3). */
static void basis_ders(const sinew_curve_t *c, uint32_t span, double u, double N[3][SINEW_CURVE_MAX_DEGREE + 1]) {
  enum { P = SINEW_CURVE_MAX_DEGREE + 1 };
  int p = (int)c->degree;
  double ndu[P][P], left[P], right[P], a[2][P];
  ndu[0][0] = 1;
  for (int j = 1; j <= p; j++) {
    left[j] = u - U(c, span + 1 - (uint32_t)j);
    right[j] = U(c, span + (uint32_t)j) - u;
    double saved = 0;
    for (int r = 0; r < j; r++) {
      ndu[j][r] = right[r + 1] + left[j - r];
      double t = ndu[r][j - 1] / ndu[j][r];
      ndu[r][j] = saved + right[r + 1] * t;
      saved = left[j - r] * t;
    }
    ndu[j][j] = saved;
  }
  for (int j = 0; j <= p; j++) N[0][j] = ndu[j][p];
  int nd = p < 2 ? p : 2;
  for (int k = nd + 1; k <= 2; k++)
    for (int j = 0; j <= p; j++) N[k][j] = 0;
  for (int r = 0; r <= p; r++) {
    int s1 = 0, s2 = 1;
    a[0][0] = 1;
    for (int k = 1; k <= nd; k++) {
      double d = 0;
      int rk = r - k, pk = p - k;
      if (r >= k) {
        a[s2][0] = a[s1][0] / ndu[pk + 1][rk];
        d = a[s2][0] * ndu[rk][pk];
      }
      int j1 = rk >= -1 ? 1 : -rk, j2 = r - 1 <= pk ? k - 1 : p - r;
      for (int j = j1; j <= j2; j++) {
        a[s2][j] = (a[s1][j] - a[s1][j - 1]) / ndu[pk + 1][rk + j];
        d += a[s2][j] * ndu[rk + j][pk];
      }
      if (r <= pk) {
        a[s2][k] = -a[s1][k - 1] / ndu[pk + 1][r];
        d += a[s2][k] * ndu[r][pk];
      }
      N[k][r] = d;
      int t = s1;
      s1 = s2;
      s2 = t;
    }
  }
  double f = p;
  for (int k = 1; k <= nd; k++) {
    for (int j = 0; j <= p; j++) N[k][j] *= f;
    f *= p - k;
  }
}

static double wrap_param(const sinew_curve_t *c, double u) {
  double lo, hi;
  sinew_curve_range(c, &lo, &hi);
  if (!isfinite(u)) return lo;
  if (c->form == SINEW_CURVE_PERIODIC && (u < lo || u > hi)) {
    double len = hi - lo;
    u = lo + fmod(u - lo, len);
    if (u < lo) u += len;
    return u;
  }
  return u < lo ? lo : u > hi ? hi : u;
}

void sinew_curve_eval(const sinew_curve_t *c, double u, sinew_vec3_t *pos, sinew_vec3_t *d1, sinew_vec3_t *d2) {
  u = wrap_param(c, u);
  uint32_t span = find_span(c, u);
  double N[3][SINEW_CURVE_MAX_DEGREE + 1];
  basis_ders(c, span, u, N);
  double A[3][4] = {{0}}; /* homogeneous: x w, y w, z w, w and their derivatives */
  for (uint32_t j = 0; j <= c->degree; j++) {
    const double *P = &c->cvs[4 * (size_t)(span - c->degree + j)];
    double w = c->rational ? P[3] : 1;
    for (int k = 0; k < 3; k++) {
      A[k][0] += N[k][j] * P[0] * w;
      A[k][1] += N[k][j] * P[1] * w;
      A[k][2] += N[k][j] * P[2] * w;
      A[k][3] += N[k][j] * w;
    }
  }
  double C[3][3];
  for (int k = 0; k < 3; k++) {
    for (int i = 0; i < 3; i++) {
      double v = A[k][i];
      if (k >= 1) v -= (k == 1 ? 1 : 2) * A[1][3] * C[k - 1][i];
      if (k == 2) v -= A[2][3] * C[0][i];
      C[k][i] = v / A[0][3];
    }
  }
  if (pos) *pos = (sinew_vec3_t){C[0][0], C[0][1], C[0][2]};
  if (d1) *d1 = (sinew_vec3_t){C[1][0], C[1][1], C[1][2]};
  if (d2) *d2 = (sinew_vec3_t){C[2][0], C[2][1], C[2][2]};
}

/* ---- arc length ---------------------------------------------------------------------------- */

/* 8-point Gauss-Legendre on [-1, 1]. */
static const double GL_X[4] = {0.1834346424956498, 0.5255324099163290, 0.7966664774136267, 0.9602898564975363};
static const double GL_W[4] = {0.3626837833783620, 0.3137066458778873, 0.2223810344533745, 0.1012285362903763};
#define PIECES 4 /* sub-intervals per knot interval */

static double speed(const sinew_curve_t *c, double u) {
  sinew_vec3_t d;
  sinew_curve_eval(c, u, NULL, &d, NULL);
  return sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
}

static double gauss(const sinew_curve_t *c, double a, double b) {
  double m = 0.5 * (a + b), h = 0.5 * (b - a), s = 0;
  for (int i = 0; i < 4; i++) s += GL_W[i] * (speed(c, m - h * GL_X[i]) + speed(c, m + h * GL_X[i]));
  return s * h;
}

/* Length over [a, b] inside one knot interval. */
static double piece_length(const sinew_curve_t *c, double a, double b) {
  double s = 0, h = (b - a) / PIECES;
  for (int k = 0; k < PIECES; k++) s += gauss(c, a + k * h, k == PIECES - 1 ? b : a + (k + 1) * h);
  return s;
}

double sinew_curve_length(const sinew_curve_t *c, double u0, double u1) {
  double lo, hi;
  sinew_curve_range(c, &lo, &hi);
  u0 = u0 < lo ? lo : u0 > hi ? hi : u0;
  u1 = u1 < lo ? lo : u1 > hi ? hi : u1;
  if (!(u1 > u0)) return 0;
  double s = 0;
  for (uint32_t i = c->degree; i < c->ncvs; i++) {
    double a = U(c, i), b = U(c, i + 1);
    if (b <= u0 || a >= u1 || a == b) continue;
    s += piece_length(c, a < u0 ? u0 : a, b > u1 ? u1 : b);
  }
  return s;
}

double sinew_curve_param_at_length(const sinew_curve_t *c, double s) {
  double lo, hi;
  sinew_curve_range(c, &lo, &hi);
  if (!(s > 0)) return lo;
  for (uint32_t i = c->degree; i < c->ncvs; i++) {
    double a = U(c, i), b = U(c, i + 1);
    if (a == b) continue;
    double len = piece_length(c, a, b);
    if (s > len) {
      s -= len;
      continue;
    }
    /* inside [a, b]: Newton on L(a, u) = s, kept inside a shrinking bracket */
    double ua = a, ub = b, u = a + (b - a) * (len > 0 ? s / len : 0);
    for (int it = 0; it < 60; it++) {
      double f = piece_length(c, a, u) - s;
      if (f > 0) ub = u;
      else ua = u;
      double v = speed(c, u), nu = v > 0 ? u - f / v : 0.5 * (ua + ub);
      if (!(nu > ua && nu < ub)) nu = 0.5 * (ua + ub);
      if (fabs(nu - u) <= 1e-15 * (fabs(u) + 1)) return nu;
      u = nu;
    }
    return u;
  }
  return hi;
}

/* ---- Maya's circle ---------------------------------------------------------------------------- */

/* v rotated by the smallest rotation taking +z onto n (unit). */
static sinew_vec3_t from_z(sinew_vec3_t n, sinew_vec3_t v) {
  if (n.z <= -1 + 1e-12) return (sinew_vec3_t){v.x, -v.y, -v.z}; /* half a turn about x */
  sinew_vec3_t a = {-n.y, n.x, 0};                                 /* z x n */
  double k = 1 / (1 + n.z);
  sinew_vec3_t av = {a.y * v.z - a.z * v.y, a.z * v.x - a.x * v.z, a.x * v.y - a.y * v.x};
  sinew_vec3_t aav = {a.y * av.z - a.z * av.y, a.z * av.x - a.x * av.z, a.x * av.y - a.y * av.x};
  return (sinew_vec3_t){v.x + av.x + k * aav.x, v.y + av.y + k * aav.y, v.z + av.z + k * aav.z};
}

int sinew_curve_circle(sinew_vec3_t normal, sinew_vec3_t center, double radius, uint32_t degree, uint32_t sections,
                       double sweep, sinew_data_t **out) {
  if (!out) return SINEW_EINVAL;
  double nl = sqrt(normal.x * normal.x + normal.y * normal.y + normal.z * normal.z);
  if (degree != 1 && degree != 3) return SINEW_EINVAL;
  if (sections < 3 || sections > 100000) return SINEW_EINVAL;
  if (!(nl > 0) || !isfinite(nl) || !isfinite(radius) || !isfinite(center.x) || !isfinite(center.y) ||
      !isfinite(center.z) || !isfinite(sweep))
    return SINEW_EINVAL;
  /* Only the full circle: Maya's open arcs (sweep below a full turn) are not modelled. */
  if (fabs(fabs(sweep) - TWO_PI) > 1e-9) return SINEW_EUNSUPPORTED;
  sinew_vec3_t n = {normal.x / nl, normal.y / nl, normal.z / nl};
  sinew_vec3_t ex = from_z(n, (sinew_vec3_t){1, 0, 0}), ey = from_z(n, (sinew_vec3_t){0, 1, 0});
  double step = sweep / sections;
  /* cubic: the CVs sit outside the circle so that the curve passes through radius at each
   * knot, (P[i-1] + 4 P[i] + P[i+1]) / 6 at the CV's angle */
  double R = degree == 3 ? radius * 6 / (4 + 2 * cos(step)) : radius;
  uint32_t ncvs = sections + degree, nknots = ncvs + degree - 1;
  sinew_data_t *holder;
  double *buf = sinew__scratch((nknots + 4 * (size_t)ncvs) * sizeof(double), &holder);
  if (!buf) return SINEW_ENOMEM;
  double *knots = buf, *cvs = buf + nknots;
  for (uint32_t i = 0; i < nknots; i++) knots[i] = (double)i - (double)(degree - 1);
  for (uint32_t i = 0; i < ncvs; i++) {
    double a = (double)(i % sections + 1) * step, ca = R * cos(a), sa = R * sin(a);
    double *p = &cvs[4 * (size_t)i];
    p[0] = center.x + ca * ex.x + sa * ey.x;
    p[1] = center.y + ca * ex.y + sa * ey.y;
    p[2] = center.z + ca * ex.z + sa * ey.z;
    p[3] = 1;
  }
  sinew_curve_t c = {.degree = degree, .form = SINEW_CURVE_PERIODIC, .dim = 3, .ncvs = ncvs, .nknots = nknots,
                     .knots = knots, .cvs = cvs};
  int rc = sinew_curve_create(&c, out);
  sinew_data_unref(holder);
  return rc;
}

int sinew_curve_transform(const sinew_data_t *src, const sinew_mat4_t *m, sinew_data_t **out) {
  sinew_curve_t c;
  if (!m || !out || sinew_curve_get(src, &c)) return SINEW_EINVAL;
  sinew_data_t *d = sinew_data_ref((sinew_data_t *)src);
  double *payload = sinew_data_mutable(&d); /* a copy: src is shared by its holder */
  if (!payload) {
    sinew_data_unref(d);
    return SINEW_ENOMEM;
  }
  double *cv = payload + HEADER_DOUBLES + c.nknots;
  for (uint32_t i = 0; i < c.ncvs; i++) {
    double *p = &cv[4 * (size_t)i], x = p[0], y = p[1], z = p[2];
    for (int k = 0; k < 3; k++) p[k] = x * m->m[0][k] + y * m->m[1][k] + z * m->m[2][k] + m->m[3][k];
  }
  *out = d;
  return SINEW_OK;
}

int sinew_curve_from_values(const double *v, size_t n, sinew_data_t **out, char *why, size_t cap) {
  if (!out || (!v && n)) return SINEW_EINVAL;
  if (n < 6) return why_fmt(why, cap, "a curve starts with degree, spans, form, rational, dimension and knot count");
  for (int i = 0; i < 6; i++)
    if (!(v[i] >= 0 && v[i] <= SINEW_CURVE_MAX_CVS) || v[i] != floor(v[i]))
      return why_fmt(why, cap, "header value %d (%.17g) is not a small whole number", i + 1, v[i]);
  uint32_t degree = (uint32_t)v[0], spans = (uint32_t)v[1], form = (uint32_t)v[2], dim = (uint32_t)v[4];
  bool rational = v[3] != 0;
  size_t nknots = (size_t)v[5];
  if (6 + nknots + 1 > n) return why_fmt(why, cap, "%zu knots announced, %zu values follow", nknots, n - 6);
  double ncv_d = v[6 + nknots];
  if (!(ncv_d >= 0 && ncv_d <= SINEW_CURVE_MAX_CVS) || ncv_d != floor(ncv_d))
    return why_fmt(why, cap, "the CV count (%.17g) is not a small whole number", ncv_d);
  uint32_t ncvs = (uint32_t)ncv_d;
  if (dim != 2 && dim != 3) return why_fmt(why, cap, "dimension %u is not 2 or 3", dim);
  size_t per = dim + (rational ? 1 : 0), need = 7 + nknots + per * ncvs;
  if (n != need)
    return why_fmt(why, cap, "%u CVs of %zu numbers need %zu values in all, got %zu", ncvs, per, need, n);
  if (degree >= 1 && ncvs > degree && spans != ncvs - degree)
    return why_fmt(why, cap, "%u spans announced, but %u CVs of degree %u make %u", spans, ncvs, degree, ncvs - degree);
  sinew_data_t *holder;
  double *cvs = sinew__scratch(4 * (size_t)(ncvs ? ncvs : 1) * sizeof(double), &holder);
  if (!cvs) return SINEW_ENOMEM;
  const double *src = v + 7 + nknots;
  for (uint32_t i = 0; i < ncvs; i++) {
    double *p = &cvs[4 * (size_t)i];
    p[0] = src[0];
    p[1] = src[1];
    p[2] = dim == 3 ? src[2] : 0;
    p[3] = rational ? src[dim] : 1;
    src += per;
  }
  sinew_curve_t c = {.degree = degree, .form = (sinew_curve_form_t)form, .rational = rational, .dim = dim,
                     .ncvs = ncvs, .nknots = (uint32_t)nknots, .knots = v + 6, .cvs = cvs};
  int rc = sinew_curve_check(&c, why, cap);
  if (!rc) rc = sinew_curve_create(&c, out);
  sinew_data_unref(holder);
  return rc;
}

/* ---- interpolation ---------------------------------------------------------------------------- */

int sinew_curve_interpolate(const sinew_vec3_t *pts, uint32_t n, uint32_t degree, sinew_data_t **out) {
  if (!pts || !out || degree < 1 || degree > SINEW_CURVE_MAX_DEGREE || n <= degree || n > 4096) return SINEW_EINVAL;
  /* parameters by chord length (The NURBS Book 9.5), knots by averaging them (9.8) */
  uint32_t nk = n + degree - 1;
  size_t doubles = n + nk + 4 * (size_t)n + (size_t)n * n + 3 * (size_t)n;
  sinew_data_t *holder;
  double *mem = sinew__scratch(doubles * sizeof(double), &holder);
  if (!mem) return SINEW_ENOMEM;
  double *ub = mem, *knots = ub + n, *cvs = knots + nk, *a = cvs + 4 * (size_t)n, *rhs = a + (size_t)n * n;
  double total = 0;
  for (uint32_t k = 1; k < n; k++) {
    double d = sqrt((pts[k].x - pts[k - 1].x) * (pts[k].x - pts[k - 1].x) +
                    (pts[k].y - pts[k - 1].y) * (pts[k].y - pts[k - 1].y) +
                    (pts[k].z - pts[k - 1].z) * (pts[k].z - pts[k - 1].z));
    if (!(d > 0) || !isfinite(d)) {
      sinew_data_unref(holder);
      return SINEW_EINVAL; /* two points at one place, or not finite */
    }
    ub[k] = d;
    total += d;
  }
  double spans = n - degree;
  ub[0] = 0;
  for (uint32_t k = 1; k < n; k++) ub[k] = ub[k - 1] + ub[k] / total;
  ub[n - 1] = 1;
  /* Maya's knots (the textbook's without the first and last), scaled to 0 .. spans */
  for (uint32_t i = 0; i < nk; i++) {
    uint32_t t = i + 1; /* textbook index */
    double v;
    if (t <= degree) v = 0;
    else if (t >= n) v = 1;
    else {
      v = 0;
      for (uint32_t j = t - degree; j < t; j++) v += ub[j];
      v /= degree;
    }
    knots[i] = v * spans;
  }
  for (uint32_t i = 0; i < n; i++) cvs[4 * i + 3] = 1;
  sinew_curve_t c = {.degree = degree, .dim = 3, .ncvs = n, .nknots = nk, .knots = knots, .cvs = cvs};
  /* A[k][i] = N_i(u_k); solved by Gaussian elimination with partial pivoting */
  memset(a, 0, (size_t)n * n * sizeof(double));
  for (uint32_t k = 0; k < n; k++) {
    double u = ub[k] * spans, N[3][SINEW_CURVE_MAX_DEGREE + 1];
    uint32_t span = find_span(&c, u);
    basis_ders(&c, span, u, N);
    for (uint32_t j = 0; j <= degree; j++) a[(size_t)k * n + span - degree + j] = N[0][j];
    rhs[3 * k] = pts[k].x, rhs[3 * k + 1] = pts[k].y, rhs[3 * k + 2] = pts[k].z;
  }
  int rc = SINEW_OK;
  for (uint32_t col = 0; col < n && !rc; col++) {
    uint32_t piv = col;
    for (uint32_t r = col + 1; r < n; r++)
      if (fabs(a[(size_t)r * n + col]) > fabs(a[(size_t)piv * n + col])) piv = r;
    if (!(fabs(a[(size_t)piv * n + col]) > 1e-14)) {
      rc = SINEW_EINVAL;
      break;
    }
    if (piv != col) {
      for (uint32_t j = 0; j < n; j++) {
        double t = a[(size_t)col * n + j];
        a[(size_t)col * n + j] = a[(size_t)piv * n + j], a[(size_t)piv * n + j] = t;
      }
      for (int j = 0; j < 3; j++) {
        double t = rhs[3 * col + j];
        rhs[3 * col + j] = rhs[3 * piv + j], rhs[3 * piv + j] = t;
      }
    }
    for (uint32_t r = col + 1; r < n; r++) {
      double f = a[(size_t)r * n + col] / a[(size_t)col * n + col];
      if (f == 0) continue;
      for (uint32_t j = col; j < n; j++) a[(size_t)r * n + j] -= f * a[(size_t)col * n + j];
      for (int j = 0; j < 3; j++) rhs[3 * r + j] -= f * rhs[3 * col + j];
    }
  }
  for (uint32_t i = n; i-- > 0 && !rc;) {
    for (int j = 0; j < 3; j++) {
      double v = rhs[3 * i + j];
      for (uint32_t k = i + 1; k < n; k++) v -= a[(size_t)i * n + k] * cvs[4 * k + j];
      cvs[4 * i + j] = v / a[(size_t)i * n + i];
    }
  }
  if (!rc) rc = sinew_curve_create(&c, out);
  sinew_data_unref(holder);
  return rc;
}
