/* lang/util.c: the utility tier of the layers above the graph (lang/util.h): the growable text
 * buffer the language's value formatting and the command layer (results, the .ma writer,
 * messages) write into, and the array growth helper both use. */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/util.h"

void sinew__buf_put(sinew__buf *b, const char *s, size_t n) {
  if (b->oom) return;
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 256;
    while (cap < b->n + n + 1) cap *= 2;
    char *p = sinew_realloc(b->p, cap);
    if (!p) {
      b->oom = true;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
}

void sinew__buf_puts(sinew__buf *b, const char *s) { sinew__buf_put(b, s, strlen(s)); }

void sinew__buf_printf(sinew__buf *b, const char *fmt, ...) {
  char tmp[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n < sizeof tmp) {
    sinew__buf_put(b, tmp, (size_t)n);
    return;
  }
  char *big = sinew_malloc((size_t)n + 1);
  if (!big) {
    b->oom = true;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  sinew__buf_put(b, big, (size_t)n);
  sinew_free(big);
}

void sinew__buf_num(sinew__buf *b, double d) {
  char tmp[SINEW_DOUBLE_CHARS];
  sinew__buf_put(b, tmp, sinew_format_double(d, tmp, sizeof tmp));
}

void sinew__buf_num_float(sinew__buf *b, double d) {
  if (d == 0) { /* -0 too, as sinew__buf_num writes it: "-0" reads back as the integer 0 */
    sinew__buf_put(b, "0", 1);
    return;
  }
  if (!(fabs(d) <= FLT_MAX)) { /* NaN, infinite or beyond float: the cast would be undefined */
    sinew__buf_num(b, d);
    return;
  }
  float f = (float)d;
  if ((double)f != d) {
    sinew__buf_num(b, d);
    return;
  }
  char tmp[40];
  for (int prec = 6; prec <= 9; prec++) {
    snprintf(tmp, sizeof tmp, "%.*g", prec, d);
    if (strtof(tmp, NULL) == f) break;
  }
  sinew__buf_puts(b, tmp);
}

void sinew__buf_quoted(sinew__buf *b, const char *s) {
  sinew__buf_put(b, "\"", 1);
  for (; *s; s++) {
    switch (*s) {
      case '"': sinew__buf_put(b, "\\\"", 2); break;
      case '\\': sinew__buf_put(b, "\\\\", 2); break;
      case '\n': sinew__buf_put(b, "\\n", 2); break;
      case '\t': sinew__buf_put(b, "\\t", 2); break;
      case '\r': sinew__buf_put(b, "\\r", 2); break;
      default: sinew__buf_put(b, s, 1); break;
    }
  }
  sinew__buf_put(b, "\"", 1);
}

void sinew__buf_free(sinew__buf *b) {
  sinew_free(b->p);
  memset(b, 0, sizeof *b);
}

int sinew__grow(void **p, uint32_t *cap, uint32_t need, size_t es) {
  if (need <= *cap) return SINEW_OK;
  uint64_t nc = *cap ? (uint64_t)*cap * 2 : 8;
  while (nc < need) nc *= 2;
  if (nc > UINT32_MAX || nc > SIZE_MAX / 2 / es) return SINEW_ENOMEM;
  void *q = sinew_realloc(*p, (size_t)nc * es);
  if (!q) return SINEW_ENOMEM;
  *p = q;
  *cap = (uint32_t)nc;
  return SINEW_OK;
}
