/* graph/format.c: numbers as text (sinew/io.h). A file utility that knows nothing of graphs,
 * beside atomic_file.c in the lowest layer so that every writer can share it.
 *
 * sinew_format_float: the shortest decimal that reads back to the same float. The value is
 * rounded to p significant digits (m * 10^k, m an integer of p digits) and the candidate is
 * kept when it lies inside the float's rounding interval. If p digits read back, p + 1 do too
 * (they are closer), so a binary search over p = 1..9 finds the shortest in three or four
 * tries; nine digits always read back. The check is done in double: m * 10^k with an exact
 * power of ten (|k| <= 22) is the decimal value rounded once, and the interval's ends (the
 * midpoints to the neighbouring floats) are exact doubles, so the comparison is right unless
 * the rounded value lands exactly on an end. Those rare candidates, and the few values whose k
 * is out of the exact range, are checked with strtof itself. tests/test_output.c checks the
 * result reads back and is as short as printf's shortest on a million values. */
#include <float.h>
#include <stdio.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sinew/io.h"

static const double POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* 10^e as a double: exact for |e| <= 22. */
static double p10(int e) { return e >= 0 ? (e <= 22 ? POW10[e] : pow(10, e)) : (e >= -22 ? 1 / POW10[-e] : pow(10, e)); }

/* Writes the decimal digits of m (at least one) and returns how many. */
static size_t put_uint(char *out, uint64_t m) {
  char tmp[24];
  size_t n = 0;
  do {
    tmp[n++] = (char)('0' + m % 10);
    m /= 10;
  } while (m);
  for (size_t i = 0; i < n; i++) out[i] = tmp[n - 1 - i];
  return n;
}

/* The text of m * 10^e10 where m has exactly p digits (its first digit is worth 10^e10). */
static size_t compose(char *out, bool neg, uint64_t m, int p, int e10) {
  char digits[24]; /* room for any uint64_t: gcc -march=native cannot see p <= 9 */
  put_uint(digits, m); /* exactly p digits */
  while (p > 1 && digits[p - 1] == '0') p--; /* never happens for the shortest, but keep it tidy */
  size_t n = 0;
  if (neg) out[n++] = '-';
  if (e10 >= -5 && e10 < 9) {
    if (e10 < 0) { /* 0.000ddd */
      out[n++] = '0';
      out[n++] = '.';
      for (int z = -1; z > e10; z--) out[n++] = '0';
      memcpy(out + n, digits, (size_t)p);
      n += (size_t)p;
    } else if (p <= e10 + 1) { /* ddd000 */
      memcpy(out + n, digits, (size_t)p);
      n += (size_t)p;
      for (int z = p; z <= e10; z++) out[n++] = '0';
    } else { /* dd.ddd */
      memcpy(out + n, digits, (size_t)e10 + 1);
      n += (size_t)e10 + 1;
      out[n++] = '.';
      memcpy(out + n, digits + e10 + 1, (size_t)(p - e10 - 1));
      n += (size_t)(p - e10 - 1);
    }
  } else { /* d.ddde+XX */
    out[n++] = digits[0];
    if (p > 1) {
      out[n++] = '.';
      memcpy(out + n, digits + 1, (size_t)p - 1);
      n += (size_t)p - 1;
    }
    out[n++] = 'e';
    out[n++] = e10 < 0 ? '-' : '+';
    int ae = e10 < 0 ? -e10 : e10;
    if (ae < 10) out[n++] = '0';
    n += put_uint(out + n, (uint64_t)ae);
  }
  out[n] = 0;
  return n;
}

/* The float's rounding interval: the decimals strtof turns into f lie between the midpoints to
 * its neighbours (a decimal exactly on a midpoint goes to the even neighbour: reads_back leaves
 * that case to strtof). Midpoints of floats are exact in double. */
typedef struct interval {
  double lo, hi;
} interval;

static interval interval_of(float f) {
  double x = fabs((double)f);
  float af = fabsf(f);
  double below = nextafterf(af, 0), above = nextafterf(af, INFINITY);
  if (isinf(above)) above = x + (x - below); /* FLT_MAX: what strtof still rounds down to it */
  interval in = {(below + x) / 2, (above + x) / 2};
  return in;
}

/* Whether the decimal m * 10^k (p digits, the first worth 10^e10) reads back as f. */
static bool reads_back(float f, const interval *in, uint64_t m, int k, int p, int e10, bool neg) {
  if (k >= -22 && k <= 22) {
    double y = k >= 0 ? (double)m * POW10[k] : (double)m / POW10[-k];
    if (y != in->lo && y != in->hi) return y > in->lo && y < in->hi;
    /* on a midpoint: the exact decimal may lie on either side of it; strtof decides */
  }
  char text[SINEW_FLOAT_CHARS + 8];
  compose(text, neg, m, p, e10);
  return strtof(text, NULL) == f;
}

/* The p-digit rounding of x (whose first digit is worth 10^e10): m and its exponents. */
static void round_to(double x, int e10, int p, uint64_t *m, int *k, int *e) {
  *k = e10 - p + 1;
  *e = e10;
  double scaled = *k >= 0 ? x / p10(*k) : (*k >= -22 ? x * POW10[-*k] : x / p10(*k));
  *m = (uint64_t)llround(scaled);
  if (*m >= (uint64_t)POW10[p]) { /* 9.96 -> 10 at p = 2: one more digit's worth */
    *m /= 10;
    (*e)++;
    (*k)++;
  }
}

size_t sinew_format_float(float v, char out[SINEW_FLOAT_CHARS]) {
  if (isnan(v)) {
    memcpy(out, "nan", 4);
    return 3;
  }
  if (isinf(v)) {
    memcpy(out, v < 0 ? "-inf" : "inf", v < 0 ? 5 : 4);
    return v < 0 ? 4 : 3;
  }
  if (v == 0) { /* -0 stays -0: its bits read back */
    bool minus = signbit(v) != 0;
    memcpy(out, minus ? "-0" : "0", minus ? 3 : 2);
    return minus ? 2 : 1;
  }
  bool neg = v < 0;
  double x = fabs((double)v);
  int e10 = (int)floor(log10(x));
  /* log10 may be one off next to a power of ten (a float is at most 3.4e38 and at least 1.4e-45,
   * so the powers stay within a double's range) */
  if (x >= p10(e10 + 1)) e10++;
  else if (x < p10(e10)) e10--;
  /* the shortest p: if p digits read back, so do p + 1 (closer to the value), so a binary
   * search over 1..9 finds it; 9 always reads back */
  interval in = interval_of(v);
  int lo = 1, hi = 9;
  while (lo < hi) {
    int p = (lo + hi) / 2, k, e;
    uint64_t m;
    round_to(x, e10, p, &m, &k, &e);
    if (m && reads_back(v, &in, m, k, p, e, neg)) hi = p;
    else lo = p + 1;
  }
  {
    int k, e;
    uint64_t m;
    round_to(x, e10, lo, &m, &k, &e);
    if (m && reads_back(v, &in, m, k, lo, e, neg)) return compose(out, neg, m, lo, e);
  }
  /* unreachable for a finite float (nine digits always round-trip); a safe answer anyway */
  int e = e10, k = e - 8;
  uint64_t m = (uint64_t)llround(x / p10(k));
  if (m >= 1000000000u) m /= 10, e++;
  return compose(out, neg, m, 9, e);
}

size_t sinew_format_double(double d, char *buf, size_t size) {
  char tmp[SINEW_DOUBLE_CHARS];
  if (d != d) {
    snprintf(tmp, sizeof tmp, "nan"); /* whatever its sign bit (printf may say "-nan") */
  } else if (d == 0) {
    snprintf(tmp, sizeof tmp, "0"); /* -0 too: "-0" would read back as the integer 0 anyway */
  } else if (d > -1e15 && d < 1e15 && d == (double)(int64_t)d) { /* in range before the cast */
    snprintf(tmp, sizeof tmp, "%lld", (long long)d);
  } else {
    for (int prec = 15; prec <= 17; prec++) { /* "inf" / "-inf" read back */
      snprintf(tmp, sizeof tmp, "%.*g", prec, d);
      if (strtod(tmp, NULL) == d) break;
    }
  }
  int n = snprintf(buf, size, "%s", tmp);
  return n < 0 ? 0 : (size_t)n;
}
