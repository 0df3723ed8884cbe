/* graph/alloc.c: the one allocation funnel of the library (and uthash), plus small helpers. */
#include <stdlib.h>
#include <string.h>

#include "graph/internal.h"

_Thread_local int sinew__uthash_oom;

static sinew_allocator_t allocator = {malloc, realloc, calloc, free};

int sinew_set_allocator(const sinew_allocator_t *a) {
  if (a == NULL) {
    allocator = (sinew_allocator_t){malloc, realloc, calloc, free};
    return SINEW_OK;
  }
  if (!a->malloc_fn || !a->realloc_fn || !a->calloc_fn || !a->free_fn) return SINEW_EINVAL;
  allocator = *a;
  return SINEW_OK;
}

void *sinew__malloc(size_t size) { return allocator.malloc_fn(size ? size : 1); }

void *sinew__calloc(size_t count, size_t size) {
  if (count == 0 || size == 0) count = size = 1;
  return allocator.calloc_fn(count, size);
}

void *sinew__realloc(void *ptr, size_t size) { return allocator.realloc_fn(ptr, size ? size : 1); }

void sinew__free(void *ptr) {
  if (ptr) allocator.free_fn(ptr);
}

void sinew_free(void *ptr) { sinew__free(ptr); }
void *sinew_malloc(size_t size) { return sinew__malloc(size); }
void *sinew_calloc(size_t count, size_t size) { return sinew__calloc(count, size); }
void *sinew_realloc(void *ptr, size_t size) { return sinew__realloc(ptr, size); }

char *sinew__strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = sinew__malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

int sinew__reserve(void **ptr, uint32_t *cap, uint32_t need, size_t elem) {
  if (need <= *cap) return SINEW_OK;
  uint64_t ncap = *cap ? (uint64_t)*cap * 2 : 4;
  while (ncap < need) ncap *= 2;
  if (ncap > UINT32_MAX || ncap * elem > SIZE_MAX / 2) return SINEW_ENOMEM;
  void *p = sinew__realloc(*ptr, (size_t)ncap * elem);
  if (!p) return SINEW_ENOMEM;
  *ptr = p;
  *cap = (uint32_t)ncap;
  return SINEW_OK;
}
