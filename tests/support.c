/* tests/support.c: a counting allocator with fault injection for the tests. */
#include "tests/support.h"

#include <stdlib.h>

#include "sinew/graph.h"

static long count, fail_at, live;
static size_t live_bytes;

/* Each block carries its size in a header so live blocks can be counted. */
typedef union header {
  size_t size;
  max_align_t align;
} header;

static void *t_malloc(size_t n) {
  if (fail_at && count + 1 == fail_at) {
    count++;
    return NULL;
  }
  count++;
  header *h = malloc(sizeof *h + n);
  if (!h) return NULL;
  h->size = n;
  live++;
  live_bytes += n;
  return h + 1;
}

static void t_free(void *p) {
  if (!p) return;
  live--;
  live_bytes -= ((header *)p - 1)->size;
  free((header *)p - 1);
}

static void *t_realloc(void *p, size_t n) {
  if (!p) return t_malloc(n);
  if (fail_at && count + 1 == fail_at) {
    count++;
    return NULL;
  }
  count++;
  size_t old = ((header *)p - 1)->size;
  header *h = realloc((header *)p - 1, sizeof *h + n);
  if (!h) return NULL;
  h->size = n;
  live_bytes = live_bytes - old + n;
  return h + 1;
}

static void *t_calloc(size_t a, size_t b) {
  size_t n = a * b;
  char *p = t_malloc(n);
  if (p)
    for (size_t i = 0; i < n; i++) p[i] = 0;
  return p;
}

void test_alloc_install(void) {
  sinew_allocator_t a = {t_malloc, t_realloc, t_calloc, t_free};
  sinew_set_allocator(&a);
  test_alloc_reset();
}

void test_alloc_uninstall(void) { sinew_set_allocator(NULL); }
void test_alloc_fail_at(long n) { fail_at = n; }
long test_alloc_count(void) { return count; }
long test_alloc_live(void) { return live; }
size_t test_alloc_live_bytes(void) { return live_bytes; }
void test_alloc_reset(void) {
  count = 0;
  fail_at = 0;
}
