/* nodes/components.c: the componentList and pointArray data blocks deformers read (blendShape
 * targets' ipt / ict, groupParts.inputComponents). A componentList keeps its items as written,
 * so a file reads back byte for byte, beside the vertex ranges they name. Both payloads hold
 * no pointers (offsets only), so copying a block is a memcpy. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "sinew/deform.h"

const sinew_data_type_t sinew_component_list_data_type = {.name = "componentList"};
const sinew_data_type_t sinew_point_array_data_type = {.name = "pointArray"};

typedef struct list_header {
  uint32_t nitems, nranges, other, text_off; /* text_off: bytes from the payload's start */
} list_header;

/* "vtx[a]", "vtx[a:b]", "vtx[*]" -> [lo, hi]; 1 for a point item, 0 for another component,
 * -1 for a malformed item. A curve's "cv[a:b]" names its points as vtx[] names a mesh's (a
 * deformer's set on a curve); a surface's two-index "cv[a][b]" is another component. */
static int parse_item(const char *s, int32_t *lo, int32_t *hi) {
  const char *br = strchr(s, '[');
  if (!*s || !br || br == s) return -1;
  bool cv = strncmp(s, "cv[", 3) == 0;
  if (!cv && strncmp(s, "vtx[", 4) != 0) return 0;
  if (cv && strchr(br + 1, '[')) return 0;
  const char *c = br + 1;
  if (c[0] == '*' && c[1] == ']' && !c[2]) {
    *lo = 0;
    *hi = INT32_MAX;
    return 1;
  }
  char *end;
  long a = strtol(c, &end, 10), b = a;
  if (end == c || a < 0 || a > INT32_MAX) return -1;
  if (*end == ':') {
    c = end + 1;
    b = strtol(c, &end, 10);
    if (end == c || b < a || b > INT32_MAX) return -1;
  }
  if (end[0] != ']' || end[1]) return -1;
  *lo = (int32_t)a;
  *hi = (int32_t)b;
  return 1;
}

int sinew_component_list_create(const char *const *items, size_t count, sinew_data_t **out) {
  if (!out || (count && !items) || count > UINT32_MAX / 2) return SINEW_EINVAL;
  size_t text = 0, nr = 0;
  for (size_t i = 0; i < count; i++) {
    int32_t lo, hi;
    if (!items[i]) return SINEW_EINVAL;
    int k = parse_item(items[i], &lo, &hi);
    if (k < 0) return SINEW_EINVAL;
    nr += (size_t)k;
    text += strlen(items[i]) + 1;
  }
  size_t off = sizeof(list_header) + nr * 2 * sizeof(int32_t);
  if (off + text > UINT32_MAX) return SINEW_EINVAL;
  sinew_data_t *d;
  int rc = sinew_data_create(&sinew_component_list_data_type, off + text, &d);
  if (rc) return rc;
  unsigned char *p = sinew_data_mutable(&d);
  list_header h = {.nitems = (uint32_t)count, .nranges = (uint32_t)nr, .text_off = (uint32_t)off};
  int32_t *r = (int32_t *)(p + sizeof h);
  char *t = (char *)p + off;
  for (size_t i = 0, j = 0; i < count; i++) {
    int32_t lo, hi;
    if (parse_item(items[i], &lo, &hi) == 1) {
      r[2 * j] = lo;
      r[2 * j + 1] = hi;
      j++;
    } else {
      h.other = 1;
    }
    size_t n = strlen(items[i]) + 1;
    memcpy(t, items[i], n);
    t += n;
  }
  memcpy(p, &h, sizeof h);
  *out = d;
  return SINEW_OK;
}

static const list_header *list_of(const sinew_data_t *d) {
  if (!d || sinew_data_type(d) != &sinew_component_list_data_type || sinew_data_size(d) < sizeof(list_header))
    return NULL;
  return sinew_data_get(d);
}

size_t sinew_component_list_count(const sinew_data_t *list) {
  const list_header *h = list_of(list);
  return h ? h->nitems : 0;
}

const char *sinew_component_list_item(const sinew_data_t *list, size_t i) {
  const list_header *h = list_of(list);
  if (!h || i >= h->nitems) return NULL;
  const char *t = (const char *)h + h->text_off;
  while (i--) t += strlen(t) + 1;
  return t;
}

size_t sinew_component_list_vertices(const sinew_data_t *list, const int32_t **ranges, bool *has_other) {
  const list_header *h = list_of(list);
  if (ranges) *ranges = h ? (const int32_t *)(h + 1) : NULL;
  if (has_other) *has_other = h && h->other;
  return h ? h->nranges : 0;
}

int sinew_point_array_create(const double *xyzw, size_t count, sinew_data_t **out) {
  if (!out || count > SIZE_MAX / (4 * sizeof(double)) - 1) return SINEW_EINVAL;
  sinew_data_t *d;
  int rc = sinew_data_create(&sinew_point_array_data_type, count ? count * 4 * sizeof(double) : 1, &d);
  if (rc) return rc;
  if (xyzw && count) memcpy(sinew_data_mutable(&d), xyzw, count * 4 * sizeof(double));
  *out = d;
  return SINEW_OK;
}

const double *sinew_point_array_get(const sinew_data_t *array, size_t *count) {
  if (!array || sinew_data_type(array) != &sinew_point_array_data_type) return NULL;
  if (count) *count = sinew_data_size(array) / (4 * sizeof(double));
  return sinew_data_get(array);
}
