/* lang/builtins.c: the built-in functions of spec 7.2 (math, trigonometry in radians and
 * degrees, curves, vectors, conversions, random numbers and noise) and the string and array
 * helpers rig scripts use. Functions that cannot produce a number (sqrt(-1), log(0)) give a
 * defined value and report a fault instead of returning NaN. */
#include <ctype.h>
#include <fnmatch.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

#include "lang/lang_internal.h"

#define DEG (3.14159265358979323846 / 180.0)

typedef sinew_value_t val;

static double num(const val *v) {
  return v->kind == SINEW_VALUE_FLOAT ? v->as.f
         : v->kind == SINEW_VALUE_INT ? (double)v->as.i
                                      : sinew_value_to_double(v);
}
static bool isvec(const val *v) { return v->kind == SINEW_VALUE_VECTOR; }
static void vec(const val *v, double out[3]) {
  if (isvec(v)) {
    memcpy(out, v->as.v, 3 * sizeof(double));
  } else if (v->kind == SINEW_VALUE_FLOAT_ARRAY || v->kind == SINEW_VALUE_INT_ARRAY) {
    for (int k = 0; k < 3; k++) out[k] = sinew_value_double_at(v, (size_t)k);
  } else {
    out[0] = out[1] = out[2] = num(v);
  }
}
static int ret_f(val *out, double d) {
  lv_put_float(out, d);
  return SINEW_OK;
}
static int ret_v(val *out, const double v[3]) {
  *out = lv_vec(v[0], v[1], v[2]);
  return SINEW_OK;
}

/* ---- math -------------------------------------------------------------------------------------- */

/* The functions of numbers are written once, as kernels over doubles (builtin_scalar_fn); the
 * generic entry converts its arguments with num() and calls the kernel, the typed VM calls the
 * kernel directly. A kernel reports its own faults through bc. */
static int scalar_call(builtin_call *bc, val *a, int n, val *out, builtin_scalar_fn k) {
  double x[SINEW_BUILTIN_MAX_SCALAR_ARGS];
  for (int i = 0; i < n; i++) x[i] = num(&a[i]);
  return ret_f(out, k(bc, x));
}

#define SCALAR(name)                                                            \
  static int f_##name(builtin_call *bc, val *a, int n, val *out) {              \
    return scalar_call(bc, a, n, out, k_##name);                                \
  }

/* A finite result, or 0 with a fault naming the function. */
static double checked(builtin_call *bc, const char *fn, double d) {
  if (!isfinite(d)) {
    sinew__fault(bc, "%s: result is not a finite number; 0 used", fn);
    d = 0;
  }
  return d;
}

#define MATH1(name, expr)                                                       \
  static double k_##name(builtin_call *bc, const double *a) {                   \
    double x = a[0];                                                            \
    return checked(bc, #name, (expr));                                          \
  }                                                                             \
  SCALAR(name)

MATH1(ceil, ceil(x))
MATH1(floor, floor(x))
MATH1(trunc, trunc(x))
MATH1(round, round(x))
MATH1(exp, exp(x))
MATH1(cbrt, cbrt(x))
MATH1(sin, sin(x))
MATH1(cos, cos(x))
MATH1(tan, tan(x))
MATH1(atan, atan(x))
MATH1(sinh, sinh(x))
MATH1(cosh, cosh(x))
MATH1(tanh, tanh(x))
MATH1(sind, sin(x * DEG))
MATH1(cosd, cos(x * DEG))
MATH1(tand, tan(x * DEG))
MATH1(atand, atan(x) / DEG)
MATH1(deg_to_rad, x * DEG)
MATH1(rad_to_deg, x / DEG)

/* abs, min and max keep ints ints and work on vectors component by component: the kernels are
 * their float forms. */
static double k_abs(builtin_call *bc, const double *x) {
  (void)bc;
  return fabs(x[0]);
}
static int f_abs(builtin_call *bc, val *a, int n, val *out) {
  if (a[0].kind == SINEW_VALUE_INT) {
    *out = lv_int(a[0].as.i < 0 ? (int64_t)(0 - (uint64_t)a[0].as.i) : a[0].as.i);
    return SINEW_OK;
  }
  if (isvec(&a[0])) {
    double v[3];
    vec(&a[0], v);
    for (int k = 0; k < 3; k++) v[k] = fabs(v[k]);
    return ret_v(out, v);
  }
  return scalar_call(bc, a, n, out, k_abs);
}

static double k_sign(builtin_call *bc, const double *a) {
  (void)bc;
  return a[0] > 0 ? 1 : a[0] < 0 ? -1 : 0;
}
SCALAR(sign)

/* x inside lo..hi, or clamped into it with a fault naming the function (NaN gives 0). */
static double domain(builtin_call *bc, const char *fn, double x, double lo, double hi) {
  if (x < lo || x > hi || x != x) {
    sinew__fault(bc, "%s: argument %g outside %g..%g; clamped", fn, x, lo, hi);
    x = x != x ? 0 : x < lo ? lo : hi;
  }
  return x;
}

static double k_sqrt(builtin_call *bc, const double *a) {
  if (a[0] < 0) {
    sinew__fault(bc, "sqrt: negative argument %g; 0 used", a[0]);
    return 0;
  }
  return sqrt(a[0]);
}
SCALAR(sqrt)

static double k_log(builtin_call *bc, const double *a) {
  if (!(a[0] > 0)) {
    sinew__fault(bc, "log: argument %g is not positive; 0 used", a[0]);
    return 0;
  }
  return log(a[0]);
}
SCALAR(log)

static double k_log10(builtin_call *bc, const double *a) {
  if (!(a[0] > 0)) {
    sinew__fault(bc, "log10: argument %g is not positive; 0 used", a[0]);
    return 0;
  }
  return log10(a[0]);
}
SCALAR(log10)

static double k_asin(builtin_call *bc, const double *a) { return asin(domain(bc, "asin", a[0], -1, 1)); }
SCALAR(asin)
static double k_acos(builtin_call *bc, const double *a) { return acos(domain(bc, "acos", a[0], -1, 1)); }
SCALAR(acos)
static double k_asind(builtin_call *bc, const double *a) {
  return asin(domain(bc, "asind", a[0], -1, 1)) / DEG;
}
SCALAR(asind)
static double k_acosd(builtin_call *bc, const double *a) {
  return acos(domain(bc, "acosd", a[0], -1, 1)) / DEG;
}
SCALAR(acosd)
static double k_atan2(builtin_call *bc, const double *a) { return checked(bc, "atan2", atan2(a[0], a[1])); }
SCALAR(atan2)
static double k_atan2d(builtin_call *bc, const double *a) {
  return checked(bc, "atan2d", atan2(a[0], a[1]) / DEG);
}
SCALAR(atan2d)
static double k_pow(builtin_call *bc, const double *a) { return checked(bc, "pow", pow(a[0], a[1])); }
SCALAR(pow)
static double k_fmod(builtin_call *bc, const double *a) {
  if (a[1] == 0) {
    sinew__fault(bc, "fmod: division by zero; 0 used");
    return 0;
  }
  return fmod(a[0], a[1]);
}
SCALAR(fmod)
static double k_hypot(builtin_call *bc, const double *a) { return checked(bc, "hypot", hypot(a[0], a[1])); }
SCALAR(hypot)

static double k_min(builtin_call *bc, const double *a) {
  (void)bc;
  return a[0] < a[1] ? a[0] : a[1];
}
static double k_max(builtin_call *bc, const double *a) {
  (void)bc;
  return a[0] > a[1] ? a[0] : a[1];
}
static int minmax(builtin_call *bc, val *a, val *out, bool want_max) {
  if (isvec(&a[0]) || isvec(&a[1])) {
    double x[3], y[3], r[3];
    vec(&a[0], x);
    vec(&a[1], y);
    for (int k = 0; k < 3; k++) r[k] = want_max ? (x[k] > y[k] ? x[k] : y[k]) : (x[k] < y[k] ? x[k] : y[k]);
    return ret_v(out, r);
  }
  if (a[0].kind == SINEW_VALUE_INT && a[1].kind == SINEW_VALUE_INT) {
    int64_t x = a[0].as.i, y = a[1].as.i;
    *out = lv_int(want_max ? (x > y ? x : y) : (x < y ? x : y));
    return SINEW_OK;
  }
  return scalar_call(bc, a, 2, out, want_max ? k_max : k_min);
}
static int f_min(builtin_call *bc, val *a, int n, val *out) {
  (void)n;
  return minmax(bc, a, out, false);
}
static int f_max(builtin_call *bc, val *a, int n, val *out) {
  (void)n;
  return minmax(bc, a, out, true);
}

/* clamp(min, max, value) */
static double k_clamp(builtin_call *bc, const double *a) {
  (void)bc;
  return sinew__clamp(a[0], a[1], a[2]);
}
SCALAR(clamp)

static double k_linstep(builtin_call *bc, const double *a) {
  (void)bc;
  return sinew__linstep(a[0], a[1], a[2]);
}
SCALAR(linstep)
static double k_smoothstep(builtin_call *bc, const double *a) {
  (void)bc;
  return sinew__smoothstep(a[0], a[1], a[2]);
}
SCALAR(smoothstep)
/* hermite(p1, p2, t1, t2, s): the cubic through p1 (s = 0) and p2 (s = 1) with tangents t1, t2.
 * Floats or vectors. */
static int f_hermite(builtin_call *bc, val *a, int n, val *out) {
  (void)bc, (void)n;
  double s = num(&a[4]);
  double s2 = s * s, s3 = s2 * s;
  double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2, h11 = s3 - s2;
  bool v = false;
  for (int k = 0; k < 4; k++) v |= isvec(&a[k]);
  if (!v) return ret_f(out, h00 * num(&a[0]) + h01 * num(&a[1]) + h10 * num(&a[2]) + h11 * num(&a[3]));
  double p1[3], p2[3], t1[3], t2[3], r[3];
  vec(&a[0], p1);
  vec(&a[1], p2);
  vec(&a[2], t1);
  vec(&a[3], t2);
  for (int k = 0; k < 3; k++) r[k] = h00 * p1[k] + h01 * p2[k] + h10 * t1[k] + h11 * t2[k];
  return ret_v(out, r);
}

/* ---- vectors ------------------------------------------------------------------------------------ */

static double vmag(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

static int f_mag(builtin_call *bc, val *a, int n, val *out) {
  (void)bc, (void)n;
  double v[3];
  vec(&a[0], v);
  return ret_f(out, vmag(v));
}
static int f_unit(builtin_call *bc, val *a, int n, val *out) {
  (void)n;
  double v[3];
  vec(&a[0], v);
  double m = vmag(v);
  if (m == 0) {
    sinew__fault(bc, "unit: zero vector; <<0, 0, 0>> used");
    return ret_v(out, v);
  }
  for (int k = 0; k < 3; k++) v[k] /= m;
  return ret_v(out, v);
}
static int f_dot(builtin_call *bc, val *a, int n, val *out) {
  (void)bc, (void)n;
  double x[3], y[3];
  vec(&a[0], x);
  vec(&a[1], y);
  return ret_f(out, x[0] * y[0] + x[1] * y[1] + x[2] * y[2]);
}
static int f_cross(builtin_call *bc, val *a, int n, val *out) {
  (void)bc, (void)n;
  double x[3], y[3];
  vec(&a[0], x);
  vec(&a[1], y);
  double r[3] = {x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]};
  return ret_v(out, r);
}
static int f_angle(builtin_call *bc, val *a, int n, val *out) {
  (void)n;
  double x[3], y[3];
  vec(&a[0], x);
  vec(&a[1], y);
  double mx = vmag(x), my = vmag(y);
  if (mx == 0 || my == 0) {
    sinew__fault(bc, "angle: zero vector; 0 used");
    return ret_f(out, 0);
  }
  double c[3] = {x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]};
  return ret_f(out, atan2(vmag(c), x[0] * y[0] + x[1] * y[1] + x[2] * y[2]));
}
/* rot(v, axis, angle): v rotated about axis by angle radians (right-handed). */
static int f_rot(builtin_call *bc, val *a, int n, val *out) {
  (void)n;
  double v[3], k[3];
  vec(&a[0], v);
  vec(&a[1], k);
  double m = vmag(k), th = num(&a[2]);
  if (m == 0) {
    sinew__fault(bc, "rot: zero axis; the vector is returned unchanged");
    return ret_v(out, v);
  }
  for (int i = 0; i < 3; i++) k[i] /= m;
  double c = cos(th), s = sin(th), d = k[0] * v[0] + k[1] * v[1] + k[2] * v[2];
  double kx[3] = {k[1] * v[2] - k[2] * v[1], k[2] * v[0] - k[0] * v[2], k[0] * v[1] - k[1] * v[0]};
  double r[3];
  for (int i = 0; i < 3; i++) r[i] = v[i] * c + kx[i] * s + k[i] * d * (1 - c);
  return ret_v(out, r);
}

static int f_hsv_to_rgb(builtin_call *bc, val *a, int n, val *out) {
  (void)bc, (void)n;
  double hsv[3], rgb[3];
  vec(&a[0], hsv);
  double h = isfinite(hsv[0]) ? fmod(hsv[0], 1.0) : 0, s = hsv[1], v = hsv[2];
  if (h < 0) h += 1;
  double h6 = h * 6;
  int i = (int)floor(h6);
  double f = h6 - i, p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
  switch (i % 6) {
    case 0: rgb[0] = v, rgb[1] = t, rgb[2] = p; break;
    case 1: rgb[0] = q, rgb[1] = v, rgb[2] = p; break;
    case 2: rgb[0] = p, rgb[1] = v, rgb[2] = t; break;
    case 3: rgb[0] = p, rgb[1] = q, rgb[2] = v; break;
    case 4: rgb[0] = t, rgb[1] = p, rgb[2] = v; break;
    default: rgb[0] = v, rgb[1] = p, rgb[2] = q; break;
  }
  return ret_v(out, rgb);
}

static int f_rgb_to_hsv(builtin_call *bc, val *a, int n, val *out) {
  (void)bc, (void)n;
  double c[3];
  vec(&a[0], c);
  double mx = fmax(c[0], fmax(c[1], c[2])), mn = fmin(c[0], fmin(c[1], c[2])), d = mx - mn;
  double h = 0;
  if (d > 0) {
    if (mx == c[0]) h = fmod((c[1] - c[2]) / d, 6.0);
    else if (mx == c[1]) h = (c[2] - c[0]) / d + 2;
    else h = (c[0] - c[1]) / d + 4;
    h /= 6;
    if (h < 0) h += 1;
  }
  double r[3] = {h, mx > 0 ? d / mx : 0, mx};
  return ret_v(out, r);
}

/* ---- random numbers and noise ---------------------------------------------------------------------- */

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static double rand01(builtin_call *bc) {
  static _Thread_local uint64_t fallback = 0;
  uint64_t *s = bc->rand_state ? bc->rand_state : &fallback;
  return (double)(splitmix(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* rand(max) / rand(min, max), floats or vectors (per component). */
static int f_rand(builtin_call *bc, val *a, int n, val *out) {
  bool v = isvec(&a[0]) || (n > 1 && isvec(&a[1]));
  double lo[3] = {0, 0, 0}, hi[3];
  if (n == 1) {
    vec(&a[0], hi);
  } else {
    vec(&a[0], lo);
    vec(&a[1], hi);
  }
  double r[3];
  for (int k = 0; k < (v ? 3 : 1); k++) r[k] = lo[k] + (hi[k] - lo[k]) * rand01(bc);
  return v ? ret_v(out, r) : ret_f(out, r[0]);
}

static double normal(builtin_call *bc) {
  double u1 = rand01(bc), u2 = rand01(bc);
  if (u1 < 1e-300) u1 = 1e-300;
  return sqrt(-2 * log(u1)) * cos(2 * 3.14159265358979323846 * u2);
}

/* gauss(stdDev), gauss(stdDevX, stdDevY) (a vector with z = 0) or gauss(vector). Mean 0. */
static int f_gauss(builtin_call *bc, val *a, int n, val *out) {
  if (n == 2) {
    double r[3] = {num(&a[0]) * normal(bc), num(&a[1]) * normal(bc), 0};
    return ret_v(out, r);
  }
  if (isvec(&a[0])) {
    double sd[3], r[3];
    vec(&a[0], sd);
    for (int k = 0; k < 3; k++) r[k] = sd[k] * normal(bc);
    return ret_v(out, r);
  }
  return ret_f(out, num(&a[0]) * normal(bc));
}

/* sphrand(radius) or sphrand(vector): a uniform point inside a sphere or ellipsoid. */
static int f_sphrand(builtin_call *bc, val *a, int n, val *out) {
  (void)n;
  double r[3], p[3];
  vec(&a[0], r);
  do {
    for (int k = 0; k < 3; k++) p[k] = 2 * rand01(bc) - 1;
  } while (p[0] * p[0] + p[1] * p[1] + p[2] * p[2] > 1);
  for (int k = 0; k < 3; k++) p[k] *= r[k];
  return ret_v(out, p);
}

static int f_seed(builtin_call *bc, val *a, int n, val *out) {
  (void)n;
  if (bc->rand_state) *bc->rand_state = (uint64_t)sinew_value_to_int(&a[0]) * 0x2545F4914F6CDD1Dull;
  *out = lv_int(0);
  return SINEW_OK;
}

/* Gradient noise on the integer lattice (Perlin's improved noise): a fixed permutation made
 * by shuffling 0..255 with a fixed seed, so values are the same in every run. */
static uint8_t perm[512];
static pthread_once_t perm_once = PTHREAD_ONCE_INIT; /* graphs may live on several threads */

static void perm_fill(void) {
  uint8_t p[256];
  for (int i = 0; i < 256; i++) p[i] = (uint8_t)i;
  uint64_t s = 0x5EED5EEDull;
  for (int i = 255; i > 0; i--) {
    int j = (int)(splitmix(&s) % (uint64_t)(i + 1));
    uint8_t t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
  for (int i = 0; i < 512; i++) perm[i] = p[i & 255];
}

static void perm_init(void) { pthread_once(&perm_once, perm_fill); }

static double fade(double t) { return t * t * t * (t * (t * 6 - 15) + 10); }
static double lerp(double t, double a, double b) { return a + t * (b - a); }
static double grad(int h, double x, double y, double z) {
  h &= 15;
  double u = h < 8 ? x : y, v = h < 4 ? y : (h == 12 || h == 14) ? x : z;
  return ((h & 1) ? -u : u) + ((h & 2) ? -v : v);
}

static double noise3(double x, double y, double z) {
  perm_init();
  if (!isfinite(x) || !isfinite(y) || !isfinite(z)) return 0;
  double fx = floor(x), fy = floor(y), fz = floor(z);
  /* the lattice repeats every 256: reduce before the cast, which a huge coordinate would overflow */
  int X = (int)fmod(fmod(fx, 256) + 256, 256), Y = (int)fmod(fmod(fy, 256) + 256, 256),
      Z = (int)fmod(fmod(fz, 256) + 256, 256);
  x -= fx, y -= fy, z -= fz;
  double u = fade(x), v = fade(y), w = fade(z);
  int A = perm[X] + Y, AA = perm[A] + Z, AB = perm[A + 1] + Z, B = perm[X + 1] + Y,
      BA = perm[B] + Z, BB = perm[B + 1] + Z;
  double r = lerp(w,
                  lerp(v, lerp(u, grad(perm[AA], x, y, z), grad(perm[BA], x - 1, y, z)),
                       lerp(u, grad(perm[AB], x, y - 1, z), grad(perm[BB], x - 1, y - 1, z))),
                  lerp(v, lerp(u, grad(perm[AA + 1], x, y, z - 1), grad(perm[BA + 1], x - 1, y, z - 1)),
                       lerp(u, grad(perm[AB + 1], x, y - 1, z - 1),
                            grad(perm[BB + 1], x - 1, y - 1, z - 1))));
  return r < -1 ? -1 : r > 1 ? 1 : r;
}

/* noise(x), noise(x, y), noise(vector): -1..1, the same for the same argument. The 1- and
 * 2-argument forms sample off the lattice planes so they are not zero at integers. */
static int f_noise(builtin_call *bc, val *a, int n, val *out) {
  (void)bc;
  if (n == 1 && isvec(&a[0])) return ret_f(out, noise3(a[0].as.v[0], a[0].as.v[1], a[0].as.v[2]));
  double x = num(&a[0]), y = n > 1 ? num(&a[1]) : 0.0;
  return ret_f(out, noise3(x + 0.31, y + 0.57, 0.73));
}

/* dnoise(vector): three independent noise values. */
static int f_dnoise(builtin_call *bc, val *a, int n, val *out) {
  (void)bc, (void)n;
  double p[3];
  vec(&a[0], p);
  double r[3] = {noise3(p[0], p[1], p[2]), noise3(p[0] + 31.416, p[1] + 47.853, p[2] + 12.793),
                 noise3(p[0] + 71.211, p[1] + 13.577, p[2] + 57.119)};
  return ret_v(out, r);
}

/* ---- arrays and strings ------------------------------------------------------------------------------ */

static int f_size(builtin_call *bc, val *a, int n, val *out) {
  (void)bc, (void)n;
  if (a[0].kind == SINEW_VALUE_STRING) *out = lv_int((int64_t)lv_strlen(&a[0]));
  else if (lv_is_array(a[0].kind)) *out = lv_int(a[0].as.obj->len);
  else if (a[0].kind == SINEW_VALUE_MATRIX) *out = lv_int(a[0].as.obj->len);
  else *out = lv_int(1);
  return SINEW_OK;
}

/* clear($array): compiled as an assignment of the result to the variable. */
static int f_clear(builtin_call *bc, val *a, int n, val *out) {
  (void)bc, (void)n;
  uint8_t k = lv_is_array(a[0].kind) ? a[0].kind : SINEW_VALUE_STRING_ARRAY;
  return sinew__array_new(k, 0, out);
}

/* a[i] < a[j] for sort: numbers, strings, vectors by length. */
static int cmp_elems(const val *arr, uint32_t i, uint32_t j) {
  const sinew_lang_obj_t *o = arr->as.obj;
  switch (arr->kind) {
    case SINEW_VALUE_INT_ARRAY: return o->d.i[i] < o->d.i[j] ? -1 : o->d.i[i] > o->d.i[j];
    case SINEW_VALUE_FLOAT_ARRAY: return o->d.f[i] < o->d.f[j] ? -1 : o->d.f[i] > o->d.f[j];
    case SINEW_VALUE_STRING_ARRAY: return strcmp(o->d.str[i]->d.s, o->d.str[j]->d.s);
    default: {
      double a = vmag(&o->d.f[3 * i]), b = vmag(&o->d.f[3 * j]);
      return a < b ? -1 : a > b;
    }
  }
}

/* A stable merge sort of the indices idx[0..n) (tmp: room for n more); no global state, so
 * expressions in graphs on different threads can sort at once. */
static void sort_idx(const val *arr, uint32_t *idx, uint32_t *tmp, uint32_t n) {
  for (uint32_t w = 1; w < n; w *= 2) {
    for (uint32_t lo = 0; lo < n; lo += 2 * w) {
      uint32_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      uint32_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) tmp[k++] = cmp_elems(arr, idx[j], idx[i]) < 0 ? idx[j++] : idx[i++];
      while (i < mid) tmp[k++] = idx[i++];
      while (j < hi) tmp[k++] = idx[j++];
    }
    memcpy(idx, tmp, n * sizeof *idx);
  }
}

static int f_sort(builtin_call *bc, val *a, int n, val *out) {
  (void)bc, (void)n;
  if (!lv_is_array(a[0].kind)) {
    sinew_value_copy(out, &a[0]);
    return SINEW_OK;
  }
  uint32_t len = a[0].as.obj->len;
  uint32_t *idx = sinew_malloc((len ? 2 * (size_t)len : 1) * sizeof *idx);
  if (!idx) return SINEW_ENOMEM;
  for (uint32_t i = 0; i < len; i++) idx[i] = i;
  sort_idx(&a[0], idx, idx + len, len);
  int rc = sinew__array_new(a[0].kind, 0, out);
  for (uint32_t i = 0; i < len && !rc; i++) {
    val e;
    if (!(rc = sinew__array_get(&a[0], idx[i], &e))) {
      rc = sinew__array_push(out, &e);
      lv_release(&e);
    }
  }
  sinew_free(idx);
  if (rc) lv_release(out);
  return rc;
}

static int new_str(val *out, const char *s, size_t n) { return sinew__str_new(s, n, out); }

static int text_of(const val *v, val *out) { return sinew__to_string(v, out); }

/* substring(s, start, end): 1-based, inclusive. */
static int f_substring(builtin_call *bc, val *a, int n, val *out) {
  (void)bc, (void)n;
  val s;
  int rc = text_of(&a[0], &s);
  if (rc) return rc;
  int64_t len = (int64_t)lv_strlen(&s), b = sinew_value_to_int(&a[1]), e = sinew_value_to_int(&a[2]);
  if (b < 1) b = 1;
  if (e > len) e = len;
  rc = b > e ? new_str(out, "", 0) : new_str(out, lv_str(&s) + b - 1, (size_t)(e - b + 1));
  lv_release(&s);
  return rc;
}

/* Splits s at any of the characters in delims (" " by default), dropping empty parts. */
static int split(const char *s, const char *delims, val *out) {
  int rc = sinew__array_new(SINEW_VALUE_STRING_ARRAY, 0, out);
  while (!rc && *s) {
    size_t skip = strspn(s, delims);
    s += skip;
    if (!*s) break;
    size_t n = strcspn(s, delims);
    val e;
    if (!(rc = new_str(&e, s, n))) {
      rc = sinew__array_push(out, &e);
      lv_release(&e);
    }
    s += n;
  }
  if (rc) lv_release(out);
  return rc;
}

/* tokenize(s, [delims], $array): compiled as $array = tokenize(s, delims), then size($array). */
static int f_tokenize(builtin_call *bc, val *a, int n, val *out) {
  (void)bc;
  val s, d;
  int rc = text_of(&a[0], &s);
  if (rc) return rc;
  if (n > 1) {
    if ((rc = text_of(&a[1], &d))) {
      lv_release(&s);
      return rc;
    }
  } else if ((rc = new_str(&d, " ", 1))) {
    lv_release(&s);
    return rc;
  }
  rc = split(lv_str(&s), lv_strlen(&d) ? lv_str(&d) : " ", out);
  lv_release(&s);
  lv_release(&d);
  return rc;
}

static int f_stringToStringArray(builtin_call *bc, val *a, int n, val *out) {
  return f_tokenize(bc, a, n, out);
}

static int f_stringArrayToString(builtin_call *bc, val *a, int n, val *out) {
  (void)bc, (void)n;
  val sep, acc;
  int rc = text_of(&a[1], &sep);
  if (rc) return rc;
  if ((rc = new_str(&acc, "", 0))) {
    lv_release(&sep);
    return rc;
  }
  size_t cnt = lv_is_array(a[0].kind) ? a[0].as.obj->len : 1;
  for (size_t i = 0; i < cnt && !rc; i++) {
    val e, t;
    if (lv_is_array(a[0].kind)) rc = sinew__array_get(&a[0], (uint32_t)i, &e);
    else sinew_value_copy(&e, &a[0]);
    if (rc) break;
    if (i && !(rc = sinew__str_cat(&acc, &sep, &t))) {
      lv_release(&acc);
      acc = t;
    }
    if (!rc && !(rc = sinew__str_cat(&acc, &e, &t))) {
      lv_release(&acc);
      acc = t;
    }
    lv_release(&e);
  }
  lv_release(&sep);
  if (rc) {
    lv_release(&acc);
    return rc;
  }
  *out = acc;
  return SINEW_OK;
}

static int f_strcmp(builtin_call *bc, val *a, int n, val *out) {
  (void)bc, (void)n;
  val x, y;
  int rc = text_of(&a[0], &x);
  if (rc) return rc;
  if ((rc = text_of(&a[1], &y))) {
    lv_release(&x);
    return rc;
  }
  int c = strcmp(lv_str(&x), lv_str(&y));
  lv_release(&x);
  lv_release(&y);
  *out = lv_int(c < 0 ? -1 : c > 0);
  return SINEW_OK;
}

static int case_map(val *a, val *out, int upper) {
  val s;
  int rc = text_of(&a[0], &s);
  if (rc) return rc;
  if ((rc = new_str(out, lv_str(&s), lv_strlen(&s)))) {
    lv_release(&s);
    return rc;
  }
  for (char *p = out->as.obj->d.s; *p; p++) *p = (char)(upper ? toupper((unsigned char)*p) : tolower((unsigned char)*p));
  lv_release(&s);
  return SINEW_OK;
}
static int f_toupper(builtin_call *bc, val *a, int n, val *out) {
  (void)bc, (void)n;
  return case_map(a, out, 1);
}
static int f_tolower(builtin_call *bc, val *a, int n, val *out) {
  (void)bc, (void)n;
  return case_map(a, out, 0);
}

static int f_strip(builtin_call *bc, val *a, int n, val *out) {
  (void)bc, (void)n;
  val s;
  int rc = text_of(&a[0], &s);
  if (rc) return rc;
  const char *p = lv_str(&s);
  size_t len = lv_strlen(&s), b = 0;
  while (b < len && isspace((unsigned char)p[b])) b++;
  while (len > b && isspace((unsigned char)p[len - 1])) len--;
  rc = new_str(out, p + b, len - b);
  lv_release(&s);
  return rc;
}

static int affix(val *a, val *out, bool start) {
  val s, x;
  int rc = text_of(&a[0], &s);
  if (rc) return rc;
  if ((rc = text_of(&a[1], &x))) {
    lv_release(&s);
    return rc;
  }
  size_t ls = lv_strlen(&s), lx = lv_strlen(&x);
  bool r = lx <= ls && memcmp(lv_str(&s) + (start ? 0 : ls - lx), lv_str(&x), lx) == 0;
  lv_release(&s);
  lv_release(&x);
  *out = lv_int(r);
  return SINEW_OK;
}
static int f_startsWith(builtin_call *bc, val *a, int n, val *out) {
  (void)bc, (void)n;
  return affix(a, out, true);
}
static int f_endsWith(builtin_call *bc, val *a, int n, val *out) {
  (void)bc, (void)n;
  return affix(a, out, false);
}

/* match(regex, s): the first match, "" when none (POSIX extended regular expressions). */
static int f_match(builtin_call *bc, val *a, int n, val *out) {
  (void)n;
  val re, s;
  int rc = text_of(&a[0], &re);
  if (rc) return rc;
  if ((rc = text_of(&a[1], &s))) {
    lv_release(&re);
    return rc;
  }
  regex_t r;
  if (regcomp(&r, lv_str(&re), REG_EXTENDED)) {
    lv_release(&re);
    lv_release(&s);
    if (bc->lang) sinew__lang_error(bc->lang, SINEW_EINVAL, "bad regular expression");
    return SINEW_EINVAL;
  }
  regmatch_t m;
  if (regexec(&r, lv_str(&s), 1, &m, 0) == 0)
    rc = new_str(out, lv_str(&s) + m.rm_so, (size_t)(m.rm_eo - m.rm_so));
  else
    rc = new_str(out, "", 0);
  regfree(&r);
  lv_release(&re);
  lv_release(&s);
  return rc;
}

/* substitute(regex, s, replacement): the first match replaced. */
static int f_substitute(builtin_call *bc, val *a, int n, val *out) {
  (void)n;
  val re, s, rep;
  int rc = text_of(&a[0], &re);
  if (rc) return rc;
  if ((rc = text_of(&a[1], &s))) {
    lv_release(&re);
    return rc;
  }
  if ((rc = text_of(&a[2], &rep))) {
    lv_release(&re);
    lv_release(&s);
    return rc;
  }
  regex_t r;
  if (regcomp(&r, lv_str(&re), REG_EXTENDED)) {
    rc = SINEW_EINVAL;
    if (bc->lang) sinew__lang_error(bc->lang, SINEW_EINVAL, "bad regular expression");
  } else {
    regmatch_t m;
    if (regexec(&r, lv_str(&s), 1, &m, 0) == 0) {
      size_t ls = lv_strlen(&s), lr = lv_strlen(&rep);
      size_t total = (size_t)m.rm_so + lr + (ls - (size_t)m.rm_eo);
      char *buf = sinew_malloc(total + 1);
      if (!buf) {
        rc = SINEW_ENOMEM;
      } else {
        memcpy(buf, lv_str(&s), (size_t)m.rm_so);
        memcpy(buf + m.rm_so, lv_str(&rep), lr);
        memcpy(buf + m.rm_so + lr, lv_str(&s) + m.rm_eo, ls - (size_t)m.rm_eo);
        rc = new_str(out, buf, total);
        sinew_free(buf);
      }
    } else {
      sinew_value_copy(out, &s);
    }
    regfree(&r);
  }
  lv_release(&re);
  lv_release(&s);
  lv_release(&rep);
  return rc;
}

/* gmatch(s, pattern): shell-style wildcards (* ? [abc]). */
static int f_gmatch(builtin_call *bc, val *a, int n, val *out) {
  (void)bc, (void)n;
  val s, p;
  int rc = text_of(&a[0], &s);
  if (rc) return rc;
  if ((rc = text_of(&a[1], &p))) {
    lv_release(&s);
    return rc;
  }
  *out = lv_int(fnmatch(lv_str(&p), lv_str(&s), 0) == 0);
  lv_release(&s);
  lv_release(&p);
  return SINEW_OK;
}

static int f_stringArrayContains(builtin_call *bc, val *a, int n, val *out) {
  (void)bc, (void)n;
  val s;
  int rc = text_of(&a[0], &s);
  if (rc) return rc;
  bool found = false;
  if (a[1].kind == SINEW_VALUE_STRING_ARRAY)
    for (uint32_t i = 0; i < a[1].as.obj->len && !found; i++)
      found = strcmp(a[1].as.obj->d.str[i]->d.s, lv_str(&s)) == 0;
  lv_release(&s);
  *out = lv_int(found);
  return SINEW_OK;
}

static int f_print(builtin_call *bc, val *a, int n, val *out) {
  val s;
  int rc = SINEW_OK;
  for (int i = 0; i < n && !rc; i++) {
    if ((rc = text_of(&a[i], &s))) break;
    if (bc->lang) {
      if (bc->lang->desc.print) bc->lang->desc.print(bc->lang->desc.user_data, lv_str(&s));
      sinew_log(bc->lang->graph, SINEW_LOG_INFO, SINEW_LOG_SCRIPT_PRINT, "%s", lv_str(&s));
    }
    lv_release(&s);
  }
  *out = LV_NONE;
  return rc;
}

/* eval(text): runs text as a script in the same context; its result. */
static int f_eval(builtin_call *bc, val *a, int n, val *out) {
  if (!bc->lang) return SINEW_EINVAL;
  val s;
  int rc = SINEW_OK;
  if (n == 1) {
    rc = text_of(&a[0], &s);
  } else {
    /* eval("setAttr", $plug, 1): the words joined with spaces, as MEL does */
    rc = new_str(&s, "", 0);
    for (int i = 0; i < n && !rc; i++) {
      val t, sp;
      if (i && !(rc = new_str(&sp, " ", 1))) {
        rc = sinew__str_cat(&s, &sp, &t);
        lv_release(&sp);
        if (!rc) {
          lv_release(&s);
          s = t;
        }
      }
      if (!rc && !(rc = sinew__str_cat(&s, &a[i], &t))) {
        lv_release(&s);
        s = t;
      }
    }
  }
  if (rc) return rc;
  const char *file = bc->lang->cur_file;
  uint32_t line = bc->lang->cur_line;
  rc = sinew_lang_run(bc->lang, lv_str(&s), lv_strlen(&s), "eval", out);
  bc->lang->cur_file = file;
  bc->lang->cur_line = line;
  lv_release(&s);
  return rc;
}

static int f_exists(builtin_call *bc, val *a, int n, val *out) {
  (void)n;
  val s;
  int rc = text_of(&a[0], &s);
  if (rc) return rc;
  bool e = sinew__builtin_find(lv_str(&s)) >= 0;
  if (bc->lang) {
    e = e || sinew_lang_has_command(bc->lang, lv_str(&s));
    proc_def *pd = NULL;
    HASH_FIND_STR(bc->lang->procs, lv_str(&s), pd);
    e = e || (pd && pd->defined);
    /* Maya's commands, the UI ones too, and scripts Maya would source on first use */
    char path[4096];
    e = e || sinew__is_ui_command(lv_str(&s)) || strcmp(lv_str(&s), "catch") == 0 ||
        strcmp(lv_str(&s), "catchQuiet") == 0 ||
        (lv_strlen(&s) && sinew__find_script(bc->lang, lv_str(&s), false, path, sizeof path));
  }
  lv_release(&s);
  *out = lv_int(e);
  return SINEW_OK;
}

/* ---- environment and Maya's string-array procedures -------------------------------------------- */

/* getenv(name): the variable as the script sees it (putenv's value first), "" when unset. */
static int f_getenv(builtin_call *bc, val *a, int n, val *out) {
  (void)n;
  val s;
  int rc = text_of(&a[0], &s);
  if (rc) return rc;
  const char *v = sinew__lang_getenv(bc->lang, lv_str(&s));
  lv_release(&s);
  return new_str(out, v ? v : "", v ? strlen(v) : 0);
}

/* putenv(name, value): for this language context (getenv, source, MAYA_SCRIPT_PATH), not the
 * process: the library does not change its host's environment. */
static int f_putenv(builtin_call *bc, val *a, int n, val *out) {
  (void)n;
  if (!bc->lang) return SINEW_EINVAL;
  val k, v;
  int rc = text_of(&a[0], &k);
  if (rc) return rc;
  if ((rc = text_of(&a[1], &v))) {
    lv_release(&k);
    return rc;
  }
  rc = lv_strlen(&k) ? sinew__lang_putenv(bc->lang, lv_str(&k), lv_str(&v)) : SINEW_OK;
  lv_release(&k);
  lv_release(&v);
  *out = LV_NONE;
  return rc;
}

/* substituteAllString(s, search, replace): every occurrence of the text search (not a regular
 * expression) replaced. */
static int f_substituteAllString(builtin_call *bc, val *a, int n, val *out) {
  (void)bc, (void)n;
  val s, f, r;
  int rc = text_of(&a[0], &s);
  if (rc) return rc;
  if ((rc = text_of(&a[1], &f))) {
    lv_release(&s);
    return rc;
  }
  if ((rc = text_of(&a[2], &r))) {
    lv_release(&s);
    lv_release(&f);
    return rc;
  }
  size_t ls = lv_strlen(&s), lf = lv_strlen(&f), lr = lv_strlen(&r), count = 0;
  const char *src = lv_str(&s), *fs = lv_str(&f);
  if (lf)
    for (const char *p = src; (p = strstr(p, fs)); p += lf) count++;
  if (!count) {
    *out = s;
  } else {
    char *buf = sinew_malloc(ls - count * lf + count * lr + 1);
    if (!buf) {
      rc = SINEW_ENOMEM;
    } else {
      size_t k = 0;
      for (const char *p = src;;) {
        const char *q = strstr(p, fs);
        if (!q) {
          memcpy(buf + k, p, (size_t)(src + ls - p));
          k += (size_t)(src + ls - p);
          break;
        }
        memcpy(buf + k, p, (size_t)(q - p));
        k += (size_t)(q - p);
        memcpy(buf + k, lv_str(&r), lr);
        k += lr;
        p = q + lf;
      }
      rc = new_str(out, buf, k);
      sinew_free(buf);
    }
    lv_release(&s);
  }
  lv_release(&f);
  lv_release(&r);
  return rc;
}

/* v as a string array (a single value is an array of one), a new reference. */
static int as_string_array(const val *v, val *out) {
  if (v->kind == SINEW_VALUE_STRING_ARRAY) {
    sinew_value_copy(out, v);
    return SINEW_OK;
  }
  sinew_value_copy(out, v);
  int rc = sinew__convert(out, SINEW_VALUE_STRING_ARRAY);
  if (rc) lv_release(out);
  return rc;
}

static bool str_in(const val *arr, const char *s) {
  for (uint32_t i = 0; i < arr->as.obj->len; i++)
    if (strcmp(arr->as.obj->d.str[i]->d.s, s) == 0) return true;
  return false;
}

/* Appends element i of from to out when keep(i) says so. */
static int push_str(val *out, const val *from, uint32_t i) {
  val e;
  int rc = sinew__array_get(from, i, &e);
  if (rc) return rc;
  rc = sinew__array_push(out, &e);
  lv_release(&e);
  return rc;
}

/* stringArrayRemove(remove[], list[]): list without the items of remove. */
static int f_stringArrayRemove(builtin_call *bc, val *a, int n, val *out) {
  (void)bc, (void)n;
  val rm, list;
  int rc = as_string_array(&a[0], &rm);
  if (rc) return rc;
  if ((rc = as_string_array(&a[1], &list))) {
    lv_release(&rm);
    return rc;
  }
  rc = sinew__array_new(SINEW_VALUE_STRING_ARRAY, 0, out);
  for (uint32_t i = 0; i < list.as.obj->len && !rc; i++)
    if (!str_in(&rm, list.as.obj->d.str[i]->d.s)) rc = push_str(out, &list, i);
  if (rc) lv_release(out);
  lv_release(&rm);
  lv_release(&list);
  return rc;
}

/* stringArrayCatenate(a[], b[]): a then b. */
static int f_stringArrayCatenate(builtin_call *bc, val *a, int n, val *out) {
  (void)bc, (void)n;
  val x, y;
  int rc = as_string_array(&a[0], &x);
  if (rc) return rc;
  if ((rc = as_string_array(&a[1], &y))) {
    lv_release(&x);
    return rc;
  }
  rc = sinew__array_new(SINEW_VALUE_STRING_ARRAY, 0, out);
  for (uint32_t i = 0; i < x.as.obj->len && !rc; i++) rc = push_str(out, &x, i);
  for (uint32_t i = 0; i < y.as.obj->len && !rc; i++) rc = push_str(out, &y, i);
  if (rc) lv_release(out);
  lv_release(&x);
  lv_release(&y);
  return rc;
}

/* stringArrayFind(item, start, list[]): the index of the first item at or after start, -1. */
static int f_stringArrayFind(builtin_call *bc, val *a, int n, val *out) {
  (void)bc, (void)n;
  val item, list;
  int rc = text_of(&a[0], &item);
  if (rc) return rc;
  if ((rc = as_string_array(&a[2], &list))) {
    lv_release(&item);
    return rc;
  }
  int64_t start = sinew_value_to_int(&a[1]), found = -1;
  for (int64_t i = start < 0 ? 0 : start; i < (int64_t)list.as.obj->len; i++)
    if (strcmp(list.as.obj->d.str[i]->d.s, lv_str(&item)) == 0) {
      found = i;
      break;
    }
  lv_release(&item);
  lv_release(&list);
  *out = lv_int(found);
  return SINEW_OK;
}

/* stringArrayRemoveDuplicates(list[]): the first of each item, in order. */
static int f_stringArrayRemoveDuplicates(builtin_call *bc, val *a, int n, val *out) {
  (void)bc, (void)n;
  val list;
  int rc = as_string_array(&a[0], &list);
  if (rc) return rc;
  rc = sinew__array_new(SINEW_VALUE_STRING_ARRAY, 0, out);
  for (uint32_t i = 0; i < list.as.obj->len && !rc; i++)
    if (!str_in(out, list.as.obj->d.str[i]->d.s)) rc = push_str(out, &list, i);
  if (rc) lv_release(out);
  lv_release(&list);
  return rc;
}

/* stringArrayRemoveAtIndex(index, list[]): list without that element (unchanged when out of
 * range). */
static int f_stringArrayRemoveAtIndex(builtin_call *bc, val *a, int n, val *out) {
  (void)bc, (void)n;
  val list;
  int rc = as_string_array(&a[1], &list);
  if (rc) return rc;
  int64_t skip = sinew_value_to_int(&a[0]);
  rc = sinew__array_new(SINEW_VALUE_STRING_ARRAY, 0, out);
  for (uint32_t i = 0; i < list.as.obj->len && !rc; i++)
    if ((int64_t)i != skip) rc = push_str(out, &list, i);
  if (rc) lv_release(out);
  lv_release(&list);
  return rc;
}

/* ---- the table ------------------------------------------------------------------------------------------ */

static const builtin_def builtins[] = {
    {"abs", f_abs, 1, 1, true, k_abs},           {"ceil", f_ceil, 1, 1, true, k_ceil},
    {"floor", f_floor, 1, 1, true, k_floor},       {"trunc", f_trunc, 1, 1, true, k_trunc},
    {"round", f_round, 1, 1, true, k_round},       {"sign", f_sign, 1, 1, true, k_sign},
    {"min", f_min, 2, 2, true, k_min},           {"max", f_max, 2, 2, true, k_max},
    {"clamp", f_clamp, 3, 3, true, k_clamp},       {"fmod", f_fmod, 2, 2, true, k_fmod},
    {"exp", f_exp, 1, 1, true, k_exp},           {"log", f_log, 1, 1, true, k_log},
    {"log10", f_log10, 1, 1, true, k_log10},       {"pow", f_pow, 2, 2, true, k_pow},
    {"sqrt", f_sqrt, 1, 1, true, k_sqrt},         {"cbrt", f_cbrt, 1, 1, true, k_cbrt},
    {"hypot", f_hypot, 2, 2, true, k_hypot},       {"sin", f_sin, 1, 1, true, k_sin},
    {"cos", f_cos, 1, 1, true, k_cos},           {"tan", f_tan, 1, 1, true, k_tan},
    {"asin", f_asin, 1, 1, true, k_asin},         {"acos", f_acos, 1, 1, true, k_acos},
    {"atan", f_atan, 1, 1, true, k_atan},         {"atan2", f_atan2, 2, 2, true, k_atan2},
    {"sinh", f_sinh, 1, 1, true, k_sinh},         {"cosh", f_cosh, 1, 1, true, k_cosh},
    {"tanh", f_tanh, 1, 1, true, k_tanh},         {"sind", f_sind, 1, 1, true, k_sind},
    {"cosd", f_cosd, 1, 1, true, k_cosd},         {"tand", f_tand, 1, 1, true, k_tand},
    {"asind", f_asind, 1, 1, true, k_asind},       {"acosd", f_acosd, 1, 1, true, k_acosd},
    {"atand", f_atand, 1, 1, true, k_atand},       {"atan2d", f_atan2d, 2, 2, true, k_atan2d},
    {"deg_to_rad", f_deg_to_rad, 1, 1, true, k_deg_to_rad}, {"rad_to_deg", f_rad_to_deg, 1, 1, true, k_rad_to_deg},
    {"hsv_to_rgb", f_hsv_to_rgb, 1, 1, true, NULL}, {"rgb_to_hsv", f_rgb_to_hsv, 1, 1, true, NULL},
    {"linstep", f_linstep, 3, 3, true, k_linstep},   {"smoothstep", f_smoothstep, 3, 3, true, k_smoothstep},
    {"hermite", f_hermite, 5, 5, true, NULL},   {"mag", f_mag, 1, 1, true, NULL},
    {"unit", f_unit, 1, 1, true, NULL},         {"dot", f_dot, 2, 2, true, NULL},
    {"cross", f_cross, 2, 2, true, NULL},       {"angle", f_angle, 2, 2, true, NULL},
    {"rot", f_rot, 3, 3, true, NULL},           {"rand", f_rand, 1, 2, true, NULL},
    {"gauss", f_gauss, 1, 2, true, NULL},       {"sphrand", f_sphrand, 1, 1, true, NULL},
    {"seed", f_seed, 1, 1, true, NULL},         {"noise", f_noise, 1, 2, true, NULL},
    {"dnoise", f_dnoise, 1, 1, true, NULL},     {"size", f_size, 1, 1, true, NULL},
    {"clear", f_clear, 1, 1, true, NULL},       {"sort", f_sort, 1, 1, true, NULL},
    {"substring", f_substring, 3, 3, true, NULL}, {"tokenize", f_tokenize, 1, 3, false, NULL},
    {"stringToStringArray", f_stringToStringArray, 2, 2, false, NULL},
    {"stringArrayToString", f_stringArrayToString, 2, 2, false, NULL},
    {"strcmp", f_strcmp, 2, 2, true, NULL},     {"toupper", f_toupper, 1, 1, true, NULL},
    {"tolower", f_tolower, 1, 1, true, NULL},   {"strip", f_strip, 1, 1, true, NULL},
    {"startsWith", f_startsWith, 2, 2, true, NULL}, {"endsWith", f_endsWith, 2, 2, true, NULL},
    {"match", f_match, 2, 2, true, NULL},       {"substitute", f_substitute, 3, 3, true, NULL},
    {"gmatch", f_gmatch, 2, 2, true, NULL},     {"stringArrayContains", f_stringArrayContains, 2, 2, true, NULL},
    {"print", f_print, 1, -1, false, NULL},      {"eval", f_eval, 1, -1, false, NULL},
    {"exists", f_exists, 1, 1, false, NULL},
    {"getenv", f_getenv, 1, 1, false, NULL},    {"putenv", f_putenv, 2, 2, false, NULL},
    {"substituteAllString", f_substituteAllString, 3, 3, false, NULL},
    {"stringArrayRemove", f_stringArrayRemove, 2, 2, false, NULL},
    {"stringArrayCatenate", f_stringArrayCatenate, 2, 2, false, NULL},
    {"stringArrayFind", f_stringArrayFind, 3, 3, false, NULL},
    {"stringArrayRemoveDuplicates", f_stringArrayRemoveDuplicates, 1, 1, false, NULL},
    {"stringArrayRemoveAtIndex", f_stringArrayRemoveAtIndex, 2, 2, false, NULL},
};

#define NBUILTINS (int)(sizeof builtins / sizeof builtins[0])

int sinew__builtin_find(const char *name) {
  for (int i = 0; i < NBUILTINS; i++)
    if (strcmp(builtins[i].name, name) == 0) return i;
  return -1;
}

const builtin_def *sinew__builtin(int id) { return id >= 0 && id < NBUILTINS ? &builtins[id] : NULL; }
