/* graph/data.c: reference-counted, copy-on-write data blocks for large values (meshes,
 * arrays). Counts are atomic so evaluated blocks can be read from worker threads. */
#include <stdatomic.h>
#include <string.h>

#include "graph/internal.h"

/* The header and the payload share one allocation; the payload starts on a 64-byte boundary
 * (cache line, and any SIMD width) whatever alignment the host's allocator gives. */
struct sinew_data {
  atomic_uint refs;
  const sinew_data_type_t *type;
  size_t size;
  unsigned char *payload;
};

#define PAYLOAD_ALIGN 64

int sinew_data_create(const sinew_data_type_t *type, size_t size, sinew_data_t **out) {
  if (!type || !out) return SINEW_EINVAL;
  if (size > SIZE_MAX - sizeof(sinew_data_t) - PAYLOAD_ALIGN) return SINEW_ENOMEM;
  sinew_data_t *d = sinew__calloc(1, sizeof *d + size + PAYLOAD_ALIGN);
  if (!d) return SINEW_ENOMEM;
  uintptr_t start = (uintptr_t)(d + 1);
  d->payload = (unsigned char *)((start + PAYLOAD_ALIGN - 1) & ~(uintptr_t)(PAYLOAD_ALIGN - 1));
  atomic_init(&d->refs, 1);
  d->type = type;
  d->size = size;
  *out = d;
  return SINEW_OK;
}

sinew_data_t *sinew_data_ref(sinew_data_t *d) {
  if (d) atomic_fetch_add_explicit(&d->refs, 1, memory_order_relaxed);
  return d;
}

void sinew_data_unref(sinew_data_t *d) {
  if (!d) return;
  if (atomic_fetch_sub_explicit(&d->refs, 1, memory_order_acq_rel) != 1) return;
  if (d->type->destroy) d->type->destroy(d->payload, d->size);
  sinew__free(d);
}

const sinew_data_type_t *sinew_data_type(const sinew_data_t *d) { return d ? d->type : NULL; }
const void *sinew_data_get(const sinew_data_t *d) { return d ? d->payload : NULL; }
size_t sinew_data_size(const sinew_data_t *d) { return d ? d->size : 0; }
unsigned sinew_data_refcount(const sinew_data_t *d) {
  return d ? atomic_load_explicit(&((sinew_data_t *)d)->refs, memory_order_acquire) : 0;
}

void *sinew_data_mutable(sinew_data_t **dp) {
  if (!dp || !*dp) return NULL;
  sinew_data_t *d = *dp;
  if (atomic_load_explicit(&d->refs, memory_order_acquire) == 1) return d->payload;
  sinew_data_t *copy;
  if (sinew_data_create(d->type, d->size, &copy)) return NULL;
  if (d->type->copy) {
    if (d->type->copy(copy->payload, d->payload, d->size)) {
      sinew__free(copy);
      return NULL;
    }
  } else {
    memcpy(copy->payload, d->payload, d->size);
  }
  sinew_data_unref(d);
  *dp = copy;
  return copy->payload;
}
