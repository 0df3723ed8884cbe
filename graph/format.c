/* graph/format.c: numbers as text (sinew/io.h). A file utility that knows nothing of graphs,
 * beside atomic_file.c in the lowest layer so that every writer can share it.
 *
 * sinew_format_float: the shortest decimal that reads back to the same float. The value is
 * rounded to p significant digits (m * 10^k, m an integer of p digits) and the candidate is
 * kept when it lies inside the float's rounding interval. If p digits read back, p + 1 do too
 * (they are closer), so a search over p = 1..9 finds the shortest (7 first, then 8: what a
 * deformed point mostly needs; fewer by bisection); nine digits always read back. The check is
 * done in double: m * 10^k with an exact
 * power of ten (|k| <= 22) is the decimal value rounded once, and the interval's ends (the
 * midpoints to the neighbouring floats) are exact doubles, so the comparison is right unless
 * the rounded value lands exactly on an end. Those rare candidates, and the few values whose k
 * is out of the exact range, are checked with strtof itself. No libm call on the common path
 * (the decimal exponent from the binary one, the rounding and the neighbours from the bits;
 * bench/bench_obj: about 40 ns a number, 2.5x the log10 / llround / nextafterf version, with
 * the same text for every float compared). tests/test_output.c checks the result reads back
 * and is as short as printf's shortest on a million values. */
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
static inline double p10(int e) { return e >= 0 ? (e <= 22 ? POW10[e] : pow(10, e)) : (e >= -22 ? 1 / POW10[-e] : pow(10, e)); }

/* "00" to "99" */
static const char DIGIT_PAIRS[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                     "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                     "8081828384858687888990919293949596979899";

/* Writes the last `count` decimal digits of *m so that they end just before `end`, two at a
 * time, and leaves the digits above them in *m. */
static inline void put_digits(char *end, uint64_t *m, int count) {
  uint64_t v = *m;
  for (; count >= 2; count -= 2) {
    uint64_t q = v / 100;
    end -= 2;
    end[0] = DIGIT_PAIRS[2 * (v - 100 * q)];
    end[1] = DIGIT_PAIRS[2 * (v - 100 * q) + 1];
    v = q;
  }
  if (count) {
    *--end = (char)('0' + v % 10);
    v /= 10;
  }
  *m = v;
}

/* The number of decimal digits of m (at least one). */
static inline int digit_count(uint64_t m) {
  int n = 1;
  while (m >= 10) m /= 10, n++;
  return n;
}

/* The text of m * 10^e10 where m has exactly p digits (its first digit is worth 10^e10). */
static size_t compose(char *out, bool neg, uint64_t m, int p, int e10) {
  while (p > 1 && m % 10 == 0) m /= 10, p--; /* never happens for the shortest, but keep it tidy */
  char *o = out;
  if (neg) *o++ = '-';
  if (e10 >= -5 && e10 < 9) {
    if (e10 < 0) { /* 0.000ddd */
      *o++ = '0';
      *o++ = '.';
      for (int z = -1; z > e10; z--) *o++ = '0';
      put_digits(o + p, &m, p);
      o += p;
    } else if (p <= e10 + 1) { /* ddd000 */
      put_digits(o + p, &m, p);
      o += p;
      for (int z = p; z <= e10; z++) *o++ = '0';
    } else { /* dd.ddd */
      int whole = e10 + 1;
      put_digits(o + p + 1, &m, p - whole);
      o[whole] = '.';
      put_digits(o + whole, &m, whole);
      o += p + 1;
    }
  } else { /* d.ddde+XX */
    put_digits(o + p + 1, &m, p - 1);
    o[0] = (char)('0' + m);
    if (p > 1) {
      o[1] = '.';
      o += p + 1;
    } else {
      o++;
    }
    *o++ = 'e';
    *o++ = e10 < 0 ? '-' : '+';
    uint64_t ae = (uint64_t)(e10 < 0 ? -e10 : e10);
    int nd = ae < 10 ? 2 : digit_count(ae);
    put_digits(o + nd, &ae, nd);
    o += nd;
  }
  *o = 0;
  return (size_t)(o - out);
}

/* The float's rounding interval: the decimals strtof turns into f lie between the midpoints to
 * its neighbours (a decimal exactly on a midpoint goes to the even neighbour: reads_back leaves
 * that case to strtof). Midpoints of floats are exact in double. */
typedef struct interval {
  double lo, hi;
} interval;

static interval interval_of(uint32_t abs_bits) {
  /* the neighbours of a positive finite float are the next bit patterns down and up */
  float af, below, above;
  uint32_t b = abs_bits - 1, a = abs_bits + 1;
  memcpy(&af, &abs_bits, sizeof af);
  memcpy(&below, &b, sizeof below);
  memcpy(&above, &a, sizeof above);
  double x = af, lo = below, hi = above;
  if (isinf(above)) hi = x + (x - lo); /* FLT_MAX: what strtof still rounds down to it */
  interval in = {(lo + x) / 2, (hi + x) / 2};
  return in;
}

/* Whether the decimal m * 10^k (p digits, the first worth 10^e10) reads back as f. */
static inline bool reads_back(float f, const interval *in, uint64_t m, int k, int p, int e10, bool neg) {
  if (k < 0 && k >= -22) {
    /* m against the ends scaled by 10^-k (two products, each within 2^-53 of the exact one):
     * clearly inside or outside, the answer is the same as the exact quotient's; near an end,
     * the quotient decides, below. This spares a division in the common case. */
    double dm = (double)m, ls = in->lo * POW10[-k], hs = in->hi * POW10[-k];
    const double margin = 0x1p-50;
    if (dm > ls * (1 + margin) && dm < hs * (1 - margin)) return true;
    if (dm < ls * (1 - margin) || dm > hs * (1 + margin)) return false;
  }
  if (k >= -22 && k <= 22) {
    double y = k >= 0 ? (double)m * POW10[k] : (double)m / POW10[-k];
    if (y != in->lo && y != in->hi) return y > in->lo && y < in->hi;
    /* on a midpoint: the exact decimal may lie on either side of it; strtof decides */
  }
  char text[SINEW_FLOAT_CHARS + 8];
  compose(text, neg, m, p, e10);
  return strtof(text, NULL) == f;
}

/* The p-digit rounding of x (whose first digit is worth 10^e10), half away from zero as llround
 * (without its call: x is positive and the scaled value below 2^53, so its fraction is exact):
 * m and its exponents. */
static inline void round_to(double x, int e10, int p, uint64_t *m, int *k, int *e) {
  *k = e10 - p + 1;
  *e = e10;
  double scaled = *k >= 0 ? x / p10(*k) : (*k >= -22 ? x * POW10[-*k] : x / p10(*k));
  uint64_t r = (uint64_t)scaled;
  if (scaled - (double)r >= 0.5) r++;
  *m = r;
  if (*m >= (uint64_t)POW10[p]) { /* 9.96 -> 10 at p = 2: one more digit's worth */
    *m /= 10;
    (*e)++;
    (*k)++;
  }
}

/* Whether the p-digit rounding of x reads back as v; its digits in *m, *e when it does. */
static inline bool try_digits(float v, const interval *in, double x, int e10, int p, bool neg, uint64_t *m,
                              int *e) {
  int k;
  round_to(x, e10, p, m, &k, e);
  return *m && reads_back(v, in, *m, k, p, *e, neg);
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
  uint32_t bits;
  memcpy(&bits, &v, sizeof bits);
  bool neg = bits >> 31;
  double x = fabs((double)v);
  /* the first digit's power of ten: from the binary exponent (x in [2^e2, 2^(e2 + 1)), so
   * floor(e2 * log10 2) is it or one below; 78913 / 2^18 is log10 2 to 2e-7, exact enough for
   * |e2| <= 150), then checked against the powers themselves (log10 would cost a call) */
  uint64_t xbits;
  memcpy(&xbits, &x, sizeof xbits);
  int e2 = (int)(xbits >> 52) - 1023;
  int e10 = (e2 * 78913) >> 18; /* an arithmetic shift: the floor for negative e2 too */
  while (x >= p10(e10 + 1)) e10++;
  while (x < p10(e10)) e10--;
  /* the shortest p: if p digits read back, so do p + 1 (closer to the value), so the search
   * below finds the first that does; 9 always does. A deformed point mostly needs 7 to 9, so
   * 7 is tried first, then 8, and fewer digits only when 7 read back. */
  interval in = interval_of(bits & 0x7fffffffu);
  uint64_t m, best_m = 0;
  int e, best_e = 0, lo, hi;
  if (try_digits(v, &in, x, e10, 7, neg, &m, &e)) {
    best_m = m, best_e = e, lo = 1, hi = 7;
  } else if (try_digits(v, &in, x, e10, 8, neg, &m, &e)) {
    return compose(out, neg, m, 8, e);
  } else {
    lo = hi = 9;
  }
  while (lo < hi) {
    int p = (lo + hi) / 2;
    if (try_digits(v, &in, x, e10, p, neg, &m, &e)) best_m = m, best_e = e, hi = p;
    else lo = p + 1;
  }
  if (hi < 9 || best_m) return compose(out, neg, best_m, hi, best_e);
  if (try_digits(v, &in, x, e10, 9, neg, &m, &e)) return compose(out, neg, m, 9, e);
  /* unreachable for a finite float (nine digits always round-trip); a safe answer anyway */
  e = e10;
  int k = e - 8;
  m = (uint64_t)llround(x / p10(k));
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
