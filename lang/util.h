/* lang/util.h: the utility tier of the layers above the graph (lang/, cmds/): the one growable
 * text buffer and the one array growth helper, internal (sinew__ names, not exported:
 * the shared build exports only SINEW_API symbols). The language formats values with it and
 * the command layer, above the language, includes it through cmds/cmds_internal.h. After an
 * allocation fails the buffer keeps what it had, sets oom and ignores further writes, so a
 * writer checks once at the end. */
#ifndef SINEW_LANG_UTIL_H
#define SINEW_LANG_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sinew/sinew.h"

/* A growable text buffer; zero-initialised is empty. p is NUL-terminated once written to. */
typedef struct sinew__buf {
  char *p;
  size_t n, cap;
  bool oom;
} sinew__buf;
void sinew__buf_put(sinew__buf *b, const char *s, size_t n);
void sinew__buf_puts(sinew__buf *b, const char *s);
void sinew__buf_printf(sinew__buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* A number in the shortest form that reads back to the same double. */
void sinew__buf_num(sinew__buf *b, double d);
/* A value that is exactly a float, in the shortest form that reads back to that float. */
void sinew__buf_num_float(sinew__buf *b, double d);
/* A quoted MEL string with \" \\ \n \t escapes. */
void sinew__buf_quoted(sinew__buf *b, const char *s);
void sinew__buf_free(sinew__buf *b);

/* Grows *p to hold at least need elements of es bytes (capacity doubling, kept in *cap);
 * SINEW_ENOMEM leaves *p and *cap as they were. (graph/ has its own, sinew__reserve, on the
 * graph's allocator funnel: the layers above reach the graph through its public API only.) */
int sinew__grow(void **p, uint32_t *cap, uint32_t need, size_t es);

#endif
