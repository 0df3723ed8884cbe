/* graph/slot.c: value storage for plugs, sparse multis and dirty-state bookkeeping.
 *
 * Every node has one slot per top-level attribute. A compound slot owns an array of child
 * slots; an array (multi) slot owns a sorted table of (logical index, element slot) created on
 * first use, so weights[999999] costs one element, not a million. A numeric multi set in bulk
 * (sinew_set_double_elements) is held packed: its indices and numbers in two arrays and no slot
 * per element, until a walk reaches one of its elements (see sinew__multi in internal.h). Dirty state:
 *   DIRTY  - the slot's value is stale. Invariant: a DIRTY slot's existing descendants are DIRTY.
 *   below  - how many direct children/elements are DIRTY or have dirt below them, so asking
 *            "is anything inside this compound dirty?" is O(1) whatever the size of a multi.
 * Marking dirty pushes DIRTY down the subtree; cleaning clears the subtree and the DIRTY flag of
 * every ancestor (an ancestor stays "dirty-ish" only through its count). */
#include <stdlib.h>
#include <string.h>

#include "graph/internal.h"

/* node->maybe_dirty is bookkeeping about the slots, kept by the functions that change them; they
 * receive the node as const because they change none of its other fields. */
void sinew__slot_note_dirty(const sinew__node *node, const sinew__slot *top) {
  if (!node || top < node->slots || top >= node->slots + node->nslots) return;
  size_t k = (size_t)(top - node->slots);
  if (k < 64) ((sinew__node *)node)->maybe_dirty |= (uint64_t)1 << k;
}

/* A top-level slot found clean again leaves maybe_dirty, so the bits follow the dirt closely. */
static void note_clean(const sinew__node *node, const sinew__slot *top) {
  if (!node || top < node->slots || top >= node->slots + node->nslots || sinew__slot_dirtyish(top)) return;
  size_t k = (size_t)(top - node->slots);
  if (k < 64) ((sinew__node *)node)->maybe_dirty &= ~((uint64_t)1 << k);
}

/* Every tracked slot may be dirty: for changes that do not know which top-level slot holds the
 * slot they made dirty (an element born dirty inside a nested table). */
static void note_all_dirty(const sinew__node *node) {
  if (node) ((sinew__node *)node)->maybe_dirty = ~(uint64_t)0;
}

static bool is_container(const sinew__attr *a, bool element) {
  return (a->flags & SINEW_ATTR_ARRAY) && !element;
}

int sinew__slot_init(const sinew_graph_t *g, const sinew__node *node, const sinew__attr *a,
                     bool element, sinew__slot *s) {
  memset(s, 0, sizeof *s);
  if (element) s->flags |= SINEW__F_ELEMENT;
  if (a->computed) s->flags |= SINEW__F_DIRTY;
  if (is_container(a, element)) return SINEW_OK; /* multi table made on first element */
  if (a->type == SINEW_ATTR_COMPOUND) {
    if (!a->nchildren) return SINEW_OK;
    s->v.kids = sinew__calloc(a->nchildren, sizeof *s->v.kids);
    if (!s->v.kids) return SINEW_ENOMEM;
    for (uint32_t i = 0; i < a->nchildren; i++) {
      const sinew__attr *c = sinew__attr_get(g, node, a->children[i]);
      int rc = sinew__slot_init(g, node, c, false, &s->v.kids[i]);
      if (rc) {
        for (uint32_t j = 0; j < i; j++) sinew__slot_release(g, node, sinew__attr_get(g, node, a->children[j]), false, &s->v.kids[j]);
        sinew__free(s->v.kids);
        s->v.kids = NULL;
        return rc;
      }
      if (sinew__slot_dirtyish(&s->v.kids[i])) s->below++;
    }
    return SINEW_OK;
  }
  if (sinew_attr_type_is_numeric(a->type)) s->v.d = a->dflt;
  return SINEW_OK;
}

double sinew__slot_num(const sinew__slot *s) {
  return (s->flags & SINEW__F_WIDE) ? s->v.g->v[0] : s->v.d;
}

void sinew__slot_put_num(sinew__slot *s, double v) {
  if (s->flags & SINEW__F_WIDE) {
    sinew__free(s->v.g);
    s->flags &= ~(uint32_t)SINEW__F_WIDE;
  }
  s->v.d = v;
}

int sinew__slot_put_vec(sinew__slot *s, const double *v, uint32_t n) {
  if (n <= 1) {
    sinew__slot_put_num(s, n ? v[0] : 0.0);
    return SINEW_OK;
  }
  if (n > SINEW_GENERIC_MAX) n = SINEW_GENERIC_MAX;
  if (!(s->flags & SINEW__F_WIDE)) {
    sinew__generic *w = sinew__malloc(sizeof *w);
    if (!w) return SINEW_ENOMEM;
    s->v.g = w;
    s->flags |= SINEW__F_WIDE;
  }
  s->v.g->n = n;
  memcpy(s->v.g->v, v, n * sizeof *v);
  return SINEW_OK;
}

uint32_t sinew__slot_vec(const sinew__slot *s, double *out) {
  if (!(s->flags & SINEW__F_WIDE)) {
    out[0] = s->v.d;
    return 1;
  }
  memcpy(out, s->v.g->v, s->v.g->n * sizeof *out);
  return s->v.g->n;
}

void sinew__slot_release(const sinew_graph_t *g, const sinew__node *node, const sinew__attr *a,
                         bool element, sinew__slot *s) {
  if (s->flags & SINEW__F_WIDE) { /* a generic numeric slot's numbers (not a container) */
    sinew__slot_put_num(s, 0.0);
    return;
  }
  if (is_container(a, element)) {
    sinew__multi *m = s->v.multi;
    if (!m) return;
    s->v.multi = NULL;
    if (m->vals || m->csr) {
      sinew__multi_free_packed(m);
      return;
    }
    for (uint32_t i = 0; i < m->count; i++) sinew__slot_release(g, node, a, true, &m->elems[i]);
    sinew__free(m->idx);
    sinew__free(m->elems);
    sinew__free(m);
    return;
  }
  switch (a->type) {
    case SINEW_ATTR_COMPOUND:
      if (s->v.kids)
        for (uint32_t i = 0; i < a->nchildren; i++)
          sinew__slot_release(g, node, sinew__attr_get(g, node, a->children[i]), false,
                              &s->v.kids[i]);
      sinew__free(s->v.kids);
      s->v.kids = NULL;
      break;
    case SINEW_ATTR_MATRIX: sinew__free(s->v.m); s->v.m = NULL; break;
    case SINEW_ATTR_STRING: sinew__free(s->v.s); s->v.s = NULL; break;
    case SINEW_ATTR_DATA: sinew_data_unref(s->v.data); s->v.data = NULL; break;
    default: break;
  }
}

static sinew__multi *packed_alloc(uint32_t cap);
static sinew__csr *csr_alloc(uint32_t cap_outer, uint32_t cap_inner);
static void csr_unref(sinew__csr *c, const sinew__multi *m);

static int clone_multi(const sinew_graph_t *g, const sinew__node *node, const sinew__attr *a,
                       const sinew__multi *m, sinew__multi **out) {
  uint32_t cap = m->cap > m->count ? m->cap : m->count ? m->count : 1;
  if (m->csr) { /* arrays of its own: the live ones are edited in place (sinew__multi_csr_edit) */
    const sinew__csr *sc = m->csr;
    uint32_t w = sc->off[m->count];
    sinew__csr *dc = csr_alloc(cap, w ? w : 1);
    sinew__multi *c = dc ? sinew__calloc(1, sizeof *c) : NULL;
    if (!c) {
      if (dc) csr_unref((dc->refs = 1, dc), NULL);
      return SINEW_ENOMEM;
    }
    memcpy(dc->outer, sc->outer, m->count * sizeof *dc->outer);
    memcpy(dc->off, sc->off, ((size_t)m->count + 1) * sizeof *dc->off);
    memcpy(dc->inner, sc->inner, w * sizeof *dc->inner);
    memcpy(dc->vals, sc->vals, w * sizeof *dc->vals);
    *c = *m;
    c->csr = dc;
    c->idx = dc->outer;
    dc->refs = 1;
    dc->owner = c;
    dc->used_outer = m->count;
    *out = c;
    return SINEW_OK;
  }
  if (m->vals) {
    sinew__multi *c = packed_alloc(cap);
    if (!c) return SINEW_ENOMEM;
    memcpy(c->idx, m->idx, m->count * sizeof *c->idx);
    memcpy(c->vals, m->vals, m->count * sizeof *c->vals);
    c->count = m->count;
    c->eflags = m->eflags;
    *out = c;
    return SINEW_OK;
  }
  sinew__multi *c = sinew__calloc(1, sizeof *c);
  int32_t *ci = c ? sinew__malloc(cap * sizeof *ci) : NULL;
  sinew__slot *ce = ci ? sinew__calloc(cap, sizeof *ce) : NULL;
  if (!ce) {
    sinew__free(ci);
    sinew__free(c);
    return SINEW_ENOMEM;
  }
  c->idx = ci;
  c->elems = ce;
  c->cap = cap;
  memcpy(ci, m->idx, m->count * sizeof *ci);
  for (; c->count < m->count; c->count++) {
    if (sinew__slot_clone(g, node, a, true, &m->elems[c->count], &ce[c->count])) {
      sinew__slot tmp = {.v.multi = c};
      sinew__slot_release(g, node, a, false, &tmp);
      return SINEW_ENOMEM;
    }
  }
  *out = c;
  return SINEW_OK;
}

int sinew__slot_clone(const sinew_graph_t *g, const sinew__node *node, const sinew__attr *a,
                      bool element, const sinew__slot *src, sinew__slot *dst) {
  memset(dst, 0, sizeof *dst);
  if (src->flags & SINEW__F_WIDE) {
    if (!(dst->v.g = sinew__malloc(sizeof *dst->v.g))) return SINEW_ENOMEM;
    *dst->v.g = *src->v.g;
  } else if (is_container(a, element)) {
    if (src->v.multi && clone_multi(g, node, a, src->v.multi, &dst->v.multi)) return SINEW_ENOMEM;
  } else {
    switch (a->type) {
      case SINEW_ATTR_COMPOUND:
        if (!src->v.kids || !a->nchildren) break;
        if (!(dst->v.kids = sinew__calloc(a->nchildren, sizeof *dst->v.kids))) return SINEW_ENOMEM;
        for (uint32_t i = 0; i < a->nchildren; i++) {
          if (sinew__slot_clone(g, node, sinew__attr_get(g, node, a->children[i]), false, &src->v.kids[i],
                                &dst->v.kids[i])) {
            sinew__slot_release(g, node, a, element, dst); /* the children made so far */
            return SINEW_ENOMEM;
          }
        }
        break;
      case SINEW_ATTR_MATRIX:
        if (src->v.m && !(dst->v.m = sinew__malloc(sizeof *dst->v.m))) return SINEW_ENOMEM;
        if (src->v.m) *dst->v.m = *src->v.m;
        break;
      case SINEW_ATTR_STRING:
        if (src->v.s && !(dst->v.s = sinew__strdup(src->v.s))) return SINEW_ENOMEM;
        break;
      case SINEW_ATTR_DATA: dst->v.data = src->v.data ? sinew_data_ref(src->v.data) : NULL; break;
      default: dst->v.d = src->v.d; break;
    }
  }
  dst->flags = src->flags;
  dst->below = src->below;
  return SINEW_OK;
}

/* The first of n ascending indices a[] that is >= v (n when none is). */
static uint32_t lower_index(const int32_t *a, uint32_t n, int32_t v) {
  if (!n || a[n - 1] < v) return n;
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (a[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

int64_t sinew__multi_find(const sinew__multi *m, int32_t index) {
  if (!m || !m->count) return -1;
  if (m->idx[m->count - 1] == index) return m->count - 1;
  uint32_t lo = lower_index(m->idx, m->count, index);
  return (lo < m->count && m->idx[lo] == index) ? (int64_t)lo : -1;
}

/* Position where index would be inserted (first idx >= index). */
static uint32_t multi_lower(const sinew__multi *m, int32_t index) { return lower_index(m->idx, m->count, index); }

/* ---- packed multis ---------------------------------------------------------------------------- */

static void fix_counts(sinew__slot_path *path, uint32_t level, bool was, bool now, bool clear_dirty);
static void dirty_subtree(const sinew_graph_t *g, const sinew__node *node, const sinew__attr *a,
                          bool element, sinew__slot *s);

double sinew__multi_elem_num(const sinew__multi *m, uint32_t i) {
  return m->vals ? m->vals[i] : sinew__slot_num(&m->elems[i]);
}

static void csr_unref(sinew__csr *c, const sinew__multi *m) {
  if (c->owner == m) c->owner = NULL;
  if (--c->refs) return;
  sinew__free(c->outer);
  sinew__free(c->off);
  sinew__free(c->inner);
  sinew__free(c->vals);
  sinew__free(c);
}

void sinew__multi_free_packed(sinew__multi *m) {
  if (!m) return;
  if (m->csr) { /* a two-level header: its share of the arrays */
    csr_unref(m->csr, m);
    sinew__free(m);
    return;
  }
  if (!m->vals) { /* unpacked since: its elements are plain numbers, owning nothing */
    sinew__free(m->idx);
    sinew__free(m->elems);
  }
  sinew__free(m); /* the header, and the packed arrays in the same block */
}

/* A packed multi with room for cap elements, its arrays in the same block. */
static sinew__multi *packed_alloc(uint32_t cap) {
  size_t ib = ((size_t)(cap ? cap : 1) * sizeof(int32_t) + 7) & ~(size_t)7;
  sinew__multi *m = sinew__malloc(sizeof *m + ib + (size_t)(cap ? cap : 1) * sizeof(double));
  if (!m) return NULL;
  memset(m, 0, sizeof *m);
  m->cap = cap;
  m->idx = (int32_t *)(m + 1);
  m->vals = (double *)((unsigned char *)(m + 1) + ib);
  return m;
}

int sinew__multi_unpack(sinew__multi *m) {
  if (!m->vals) return SINEW_OK;
  /* the packed capacity kept: an element taken out while packed (a journal record holds it)
   * must find its room when put back into the slot form */
  uint32_t cap = m->cap > m->count ? m->cap : m->count ? m->count : 1;
  int32_t *ni = sinew__malloc(cap * sizeof *ni);
  sinew__slot *ne = ni ? sinew__calloc(cap, sizeof *ne) : NULL;
  if (!ne) {
    sinew__free(ni);
    return SINEW_ENOMEM;
  }
  memcpy(ni, m->idx, m->count * sizeof *ni);
  for (uint32_t i = 0; i < m->count; i++) {
    ne[i].v.d = m->vals[i];
    ne[i].flags = m->eflags;
  }
  /* the header stays where it is (the container points to it); its arrays were inline and
   * now live apart, the inline room is left unused */
  m->idx = ni;
  m->elems = ne;
  m->vals = NULL;
  m->eflags = 0;
  m->cap = cap;
  return SINEW_OK;
}

int sinew__multi_set_packed(const sinew__attr *a, sinew__slot *container, const int32_t *idx,
                            const double *vals, size_t n, double (*norm)(const sinew__attr *, double),
                            sinew__multi **old) {
  sinew__multi *om = container->v.multi;
  uint32_t ocount = om ? om->count : 0;
  if ((om && !om->vals) || sinew__slot_dirtyish(container) || n > UINT32_MAX - ocount) return SINEW_EINVAL;
  sinew__multi *m = packed_alloc(ocount + (uint32_t)n);
  if (!m) return SINEW_ENOMEM;
  if (ocount) {
    memcpy(m->idx, om->idx, ocount * sizeof *m->idx);
    memcpy(m->vals, om->vals, ocount * sizeof *m->vals);
  }
  m->count = ocount;
  for (size_t i = 0; i < n; i++) {
    double v = norm(a, vals[i]);
    if (!m->count || m->idx[m->count - 1] < idx[i]) { /* ascending: append */
      m->idx[m->count] = idx[i];
      m->vals[m->count++] = v;
      continue;
    }
    uint32_t pos = multi_lower(m, idx[i]);
    if (m->idx[pos] != idx[i]) {
      memmove(m->idx + pos + 1, m->idx + pos, (m->count - pos) * sizeof *m->idx);
      memmove(m->vals + pos + 1, m->vals + pos, (m->count - pos) * sizeof *m->vals);
      m->idx[pos] = idx[i];
      m->count++;
    }
    m->vals[pos] = v;
  }
  m->eflags = SINEW__F_ELEMENT | SINEW__F_SET;
  container->v.multi = m;
  *old = om;
  return SINEW_OK;
}

void sinew__multi_swap(sinew_graph_t *g, sinew__node *node, const sinew_plug_t *arr, sinew__multi **held) {
  sinew__slot_path path;
  sinew__slot *container = sinew__slot_find(g, node, arr, &path);
  if (!container) return;
  /* Either multi may have been unpacked since (a walk reached an element): the same numbers,
   * in slot form, each element still plain (what changed its state since was journaled after
   * this record and has been taken back). */
  bool was = sinew__slot_dirtyish(container);
  sinew__multi *m = *held;
  *held = container->v.multi;
  container->v.multi = m;
  /* the same arrays and count as the header going out, which owned their tail: this one does
   * now (so an in-place edit after an undo needs no copy) */
  sinew__multi *out = *held;
  if (m && m->csr && out && out->csr == m->csr && m->csr->owner == out && out->count == m->count)
    m->csr->owner = m;
  uint32_t below = 0;
  bool dirty = (container->flags & SINEW__F_DIRTY) != 0; /* a DIRTY slot's elements are DIRTY */
  if (m && (m->vals || m->csr)) {
    if (dirty) m->eflags |= SINEW__F_DIRTY;
    if (m->eflags & SINEW__F_DIRTY) below = m->count;
  } else if (m) {
    const sinew__attr *a = sinew__attr_get(g, node, arr->attr);
    for (uint32_t i = 0; i < m->count; i++) {
      if (dirty) dirty_subtree(g, node, a, true, &m->elems[i]);
      below += sinew__slot_dirtyish(&m->elems[i]);
    }
  }
  container->below = below;
  fix_counts(&path, path.n - 1, was, sinew__slot_dirtyish(container), false);
  sinew__slot_note_dirty(node, path.slots[0]); /* the evaluator's hint: it may be dirty now */
}

/* ---- two-level packed multis (sinew__csr in internal.h) ------------------------------------------ */

const sinew__attr *sinew__csr_outer_attr(const sinew_graph_t *g, const sinew__node *node, const sinew__attr *a) {
  if (!(a->flags & SINEW_ATTR_ARRAY) || a->computed || (a->flags & SINEW_ATTR_GENERIC_NUMERIC) ||
      !sinew_attr_type_is_numeric(a->type) || a->parent == SINEW__NO_ATTR)
    return NULL;
  const sinew__attr *o = sinew__attr_get(g, node, a->parent);
  if (o->type != SINEW_ATTR_COMPOUND || !(o->flags & SINEW_ATTR_ARRAY) || o->nchildren != 1 || o->computed ||
      a->array_depth != o->array_depth + 1)
    return NULL;
  return o;
}

/* Arrays with room for cap_outer elements and cap_inner numbers, no header viewing them yet. */
static sinew__csr *csr_alloc(uint32_t cap_outer, uint32_t cap_inner) {
  sinew__csr *c = sinew__calloc(1, sizeof *c);
  if (!c) return NULL;
  c->outer = sinew__malloc((size_t)cap_outer * sizeof *c->outer);
  c->off = sinew__malloc(((size_t)cap_outer + 1) * sizeof *c->off);
  c->inner = sinew__malloc((size_t)cap_inner * sizeof *c->inner);
  c->vals = sinew__malloc((size_t)cap_inner * sizeof *c->vals);
  if (!c->outer || !c->off || !c->inner || !c->vals) {
    c->refs = 1;
    csr_unref(c, NULL);
    return NULL;
  }
  c->cap_outer = cap_outer;
  c->cap_inner = cap_inner;
  c->off[0] = 0;
  return c;
}

static uint32_t grown(uint32_t cap, size_t need) {
  size_t c = cap ? cap : 16;
  while (c < need) c *= 2;
  return c > UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)c;
}

/* The arrays of the only header m viewing them grown in place to hold need_o elements and
 * need_i numbers (ENOMEM: what grew stays grown, harmless). */
static int csr_grow(sinew__csr *c, sinew__multi *m, size_t need_o, size_t need_i) {
  uint32_t co = grown(c->cap_outer, need_o), ci = grown(c->cap_inner, need_i);
  int32_t *no = sinew__realloc(c->outer, (size_t)co * sizeof *no);
  if (no) c->outer = no, m->idx = no;
  uint32_t *nf = no ? sinew__realloc(c->off, ((size_t)co + 1) * sizeof *nf) : NULL;
  if (nf) c->off = nf, c->cap_outer = co;
  int32_t *ni = nf ? sinew__realloc(c->inner, (size_t)ci * sizeof *ni) : NULL;
  if (ni) c->inner = ni;
  double *nv = ni ? sinew__realloc(c->vals, (size_t)ci * sizeof *nv) : NULL;
  if (!nv) return SINEW_ENOMEM;
  c->vals = nv;
  c->cap_inner = ci;
  return SINEW_OK;
}

/* New arrays with room for need_o elements and need_i numbers, holding the first count
 * elements of c (c may be NULL); no header views them yet. */
static sinew__csr *csr_copy(const sinew__csr *c, uint32_t count, size_t need_o, size_t need_i) {
  sinew__csr *dc = csr_alloc(grown(c ? c->cap_outer : 0, need_o), grown(c ? c->cap_inner : 0, need_i));
  if (!dc || !c) return dc;
  uint32_t w = c->off[count];
  memcpy(dc->outer, c->outer, count * sizeof *dc->outer);
  memcpy(dc->off, c->off, ((size_t)count + 1) * sizeof *dc->off);
  memcpy(dc->inner, c->inner, w * sizeof *dc->inner);
  memcpy(dc->vals, c->vals, w * sizeof *dc->vals);
  dc->moved = c->moved;
  return dc;
}

/* Merges n numbers at inner indices idx (any order, the last of a repeated one winning, norm
 * applied) into the k ascending ones at ii/vv (room for k + n); returns the new count. */
static uint32_t run_merge(int32_t *ii, double *vv, uint32_t k, const sinew__attr *ia, const int32_t *idx,
                          const double *vals, size_t n, double (*norm)(const sinew__attr *, double)) {
  for (size_t q = 0; q < n; q++) {
    double v = norm(ia, vals[q]);
    if (!k || ii[k - 1] < idx[q]) {
      ii[k] = idx[q];
      vv[k++] = v;
      continue;
    }
    uint32_t lo = lower_index(ii, k, idx[q]);
    if (ii[lo] != idx[q]) {
      memmove(ii + lo + 1, ii + lo, (k - lo) * sizeof *ii);
      memmove(vv + lo + 1, vv + lo, (k - lo) * sizeof *vv);
      ii[lo] = idx[q];
      k++;
    }
    vv[lo] = v;
  }
  return k;
}

int sinew__multi_csr_append(const sinew__attr *ia, sinew__slot *container, int32_t index, const int32_t *idx,
                            const double *vals, size_t n, double (*norm)(const sinew__attr *, double),
                            bool keep_old, sinew__multi **old) {
  *old = NULL;
  sinew__multi *om = container->v.multi;
  if ((om && !om->csr) || sinew__slot_dirtyish(container) || !n) return 1;
  uint32_t ocount = om ? om->count : 0;
  if (ocount && om->idx[ocount - 1] >= index) return 1; /* not past the last: slot form */
  sinew__csr *c = om ? om->csr : NULL;
  uint32_t w0 = c ? c->off[ocount] : 0;
  if (n > UINT32_MAX - 1 - w0 || ocount >= UINT32_MAX - 1) return 1;
  bool tail = c && c->owner == om && c->used_outer == ocount; /* om may write past its count */
  bool fits = tail && ocount < c->cap_outer && w0 + n <= c->cap_inner;
  sinew__csr *dc = c;
  if (!fits && tail && !keep_old && c->refs == 1) { /* the only view: the arrays grow in place */
    if (csr_grow(c, om, (size_t)ocount + 1, (size_t)w0 + n)) return SINEW_ENOMEM;
    fits = true;
  } else if (!fits) { /* new arrays, the elements so far copied */
    if (!(dc = csr_copy(c, ocount, (size_t)ocount + 1, (size_t)w0 + n))) return SINEW_ENOMEM;
  }
  sinew__multi *m = om;
  if (dc != c || keep_old) {
    if (!(m = sinew__calloc(1, sizeof *m))) {
      if (dc != c) csr_unref((dc->refs = 1, dc), NULL);
      return SINEW_ENOMEM;
    }
    m->csr = dc;
    m->eflags = SINEW__F_ELEMENT; /* the container is clean */
    dc->refs++;
  }
  /* the element's inner indices sorted, the last of a repeated one winning (cannot fail now) */
  uint32_t k = run_merge(dc->inner + w0, dc->vals + w0, 0, ia, idx, vals, n, norm);
  dc->outer[ocount] = index;
  dc->off[ocount + 1] = w0 + k;
  m->count = m->cap = ocount + 1;
  m->idx = dc->outer;
  dc->owner = m;
  dc->used_outer = m->count;
  container->v.multi = m;
  if (m != om && om) {
    if (keep_old) *old = om;
    else sinew__multi_free_packed(om);
  }
  return 0;
}

int sinew__multi_csr_unpack(const sinew_graph_t *g, const sinew__node *node, const sinew__attr *a,
                            sinew__slot *container) {
  sinew__multi *m = container->v.multi;
  if (!m || !m->csr) return SINEW_OK;
  const sinew__csr *c = m->csr;
  uint32_t n = m->count, cap = n ? n : 1;
  uint32_t d = m->eflags & SINEW__F_DIRTY;
  sinew__multi *u = sinew__calloc(1, sizeof *u);
  int32_t *ui = u ? sinew__malloc(cap * sizeof *ui) : NULL;
  sinew__slot *ue = ui ? sinew__calloc(cap, sizeof *ue) : NULL;
  if (!ue) goto oom;
  u->idx = ui;
  u->elems = ue;
  u->cap = cap;
  memcpy(ui, m->idx, n * sizeof *ui);
  for (; u->count < n; u->count++) {
    uint32_t i = u->count, b = c->off[i], k = c->off[i + 1] - b;
    sinew__slot *kid = sinew__calloc(1, sizeof *kid);
    sinew__multi *leaf = kid && k ? packed_alloc(k) : NULL;
    if (!kid || (k && !leaf)) {
      sinew__free(kid);
      goto oom;
    }
    if (leaf) {
      memcpy(leaf->idx, c->inner + b, k * sizeof *leaf->idx);
      memcpy(leaf->vals, c->vals + b, k * sizeof *leaf->vals);
      leaf->count = k;
      leaf->eflags = SINEW__F_ELEMENT | SINEW__F_SET | d;
    }
    kid->v.multi = leaf;
    kid->flags = d;
    kid->below = d ? k : 0;
    ue[i].v.kids = kid;
    ue[i].flags = SINEW__F_ELEMENT | d;
    ue[i].below = d ? 1 : 0;
  }
  container->v.multi = u;
  sinew__multi_free_packed(m);
  return SINEW_OK;
oom:
  if (u && ue) {
    sinew__slot tmp = {.v.multi = u};
    sinew__slot_release(g, node, a, false, &tmp);
  } else {
    sinew__free(ui);
    sinew__free(u);
  }
  return SINEW_ENOMEM;
}

/* One view per thread: evaluation threads read their own nodes' multis. */
typedef struct csr_view {
  sinew__slot el, kid;
  sinew__multi leaf;
} csr_view;
static _Thread_local csr_view tl_view;

sinew__slot *sinew__multi_csr_view(const sinew__multi *m, uint32_t pos) {
  csr_view *v = &tl_view;
  const sinew__csr *c = m->csr;
  uint32_t b = c->off[pos], k = c->off[pos + 1] - b, d = m->eflags & SINEW__F_DIRTY;
  v->leaf = (sinew__multi){.count = k, .cap = k, .idx = c->inner + b, .vals = c->vals + b,
                           .eflags = SINEW__F_ELEMENT | SINEW__F_SET | d};
  v->kid = (sinew__slot){.v.multi = k ? &v->leaf : NULL, .flags = d, .below = d ? k : 0};
  v->el = (sinew__slot){.v.kids = &v->kid, .flags = SINEW__F_ELEMENT | d, .below = d ? 1 : 0};
  return &v->el;
}

/* ---- in-place edits of a two-level multi --------------------------------------------------------
 *
 * An edit writes the shared arrays in place and a CSR record keeps the element's other state
 * (its run of inner indices and numbers, or its absence), so undo and redo swap runs and never
 * allocate. Every other header viewing the arrays is held by a journal record (clones copy,
 * see clone_multi; without a journal an edit of arrays that another header views copies them
 * first), and records are applied strictly last-in-first-out on undo and rollback, first-in-
 * first-out on redo: when an older header is live again, every later in-place change has been
 * taken back. A MULTI record holding a header from before comes below the first CSR record of
 * each transaction, so a walk that gave the multi slots since (its slots read the edited
 * numbers) is swapped out again once the runs are back. Inserting or removing moves the arrays'
 * tail; past a budget of shifted elements (64 times the multi's size, plus 64K) an edit leaves the
 * multi to the slot form, so a script editing every vertex in turn stays linear. */

#define CSR_BUDGET(words, outer) (64 * ((uint64_t)(words) + (outer)) + 65536)

/* Position of outer index v among the elements the arrays hold (the first >= v). */
static uint32_t csr_lower(const sinew__csr *c, int32_t v) { return lower_index(c->outer, c->used_outer, v); }

/* Element run->index's state in c's arrays and run's swap; returns the change of the outer
 * count (-1, 0, 1). The arrays have room: they held the larger state before and never shrink. */
static int csr_swap_run(sinew__csr *c, sinew__csr_run *run) {
  uint32_t k = csr_lower(c, run->index), u = c->used_outer;
  bool here = k < u && c->outer[k] == run->index, was = here;
  int d = 0;
  if (!here && run->present) { /* an empty element to fill */
    memmove(c->outer + k + 1, c->outer + k, (u - k) * sizeof *c->outer);
    memmove(c->off + k + 2, c->off + k + 1, (u - k) * sizeof *c->off);
    c->outer[k] = run->index;
    c->off[k + 1] = c->off[k];
    c->used_outer = ++u;
    here = true;
    d = 1;
  }
  if (here) {
    uint32_t b = c->off[k], m = c->off[k + 1] - b, n = run->n, end = c->off[u], s = m < n ? m : n;
    double *bv = run->buf;
    int32_t *bi = (int32_t *)(run->buf + run->cap);
    for (uint32_t q = 0; q < s; q++) {
      int32_t ti = c->inner[b + q];
      double tv = c->vals[b + q];
      c->inner[b + q] = bi[q], c->vals[b + q] = bv[q];
      bi[q] = ti, bv[q] = tv;
    }
    if (n > m) { /* the run grows: the tail moves up */
      memmove(c->inner + b + n, c->inner + b + m, (end - b - m) * sizeof *c->inner);
      memmove(c->vals + b + n, c->vals + b + m, (end - b - m) * sizeof *c->vals);
      memcpy(c->inner + b + m, bi + m, (n - m) * sizeof *bi);
      memcpy(c->vals + b + m, bv + m, (n - m) * sizeof *bv);
    } else if (m > n) {
      memcpy(bi + n, c->inner + b + n, (m - n) * sizeof *bi);
      memcpy(bv + n, c->vals + b + n, (m - n) * sizeof *bv);
      memmove(c->inner + b + n, c->inner + b + m, (end - b - m) * sizeof *c->inner);
      memmove(c->vals + b + n, c->vals + b + m, (end - b - m) * sizeof *c->vals);
    }
    if (n != m)
      for (uint32_t j = k + 1; j <= u; j++) c->off[j] += n - m; /* modulo 2^32: a shrink too */
    run->n = m;
  }
  if (was && !run->present) { /* its run is out (empty now): the element goes */
    memmove(c->outer + k, c->outer + k + 1, (u - k - 1) * sizeof *c->outer);
    memmove(c->off + k + 1, c->off + k + 2, (u - k - 1) * sizeof *c->off);
    c->used_outer = --u;
    d = -1;
  }
  run->present = was;
  return d;
}

void sinew__csr_run_free(sinew__csr_run *run) {
  sinew__free(run->buf);
  if (run->c && run->shifts) run->c->shifting--;
  if (run->c) csr_unref(run->c, NULL);
  memset(run, 0, sizeof *run);
}

int sinew__multi_csr_edit(const sinew__attr *ia, sinew__slot *container, int32_t index, int op,
                          const int32_t *idx, const double *vals, size_t n,
                          double (*norm)(const sinew__attr *, double), bool jon, bool need_multi,
                          sinew__multi **old, sinew__csr_run *run) {
  *old = NULL;
  memset(run, 0, sizeof *run);
  sinew__multi *m = container->v.multi;
  if (!m || !m->csr || sinew__slot_dirtyish(container)) return 1;
  sinew__csr *c = m->csr;
  uint32_t u = m->count, k = multi_lower(m, index);
  bool here = k < u && m->idx[k] == index, present = op != SINEW__CSR_DEL_OUTER;
  uint32_t b = c->off[k], len = here ? c->off[k + 1] - b : 0, end = c->off[u];
  if ((op != SINEW__CSR_SET && !here) || (op == SINEW__CSR_SET && (!n || (uint64_t)n + end + len > UINT32_MAX / 4)))
    return 1;
  /* the element's new run, built in the buffer the record keeps (room for either state) */
  uint32_t cap = len + (op == SINEW__CSR_SET ? (uint32_t)n : 0);
  double *buf = sinew__malloc((size_t)(cap ? cap : 1) * (sizeof(double) + sizeof(int32_t)));
  if (!buf) return SINEW_ENOMEM;
  int32_t *bi = (int32_t *)(buf + (cap ? cap : 1));
  uint32_t nn = 0;
  if (present) {
    memcpy(bi, c->inner + b, len * sizeof *bi);
    memcpy(buf, c->vals + b, len * sizeof *buf);
    nn = len;
  }
  if (op == SINEW__CSR_SET) {
    nn = run_merge(bi, buf, nn, ia, idx, vals, n, norm);
  } else if (op == SINEW__CSR_DEL_INNER) {
    uint32_t q = 0;
    while (q < nn && bi[q] != idx[0]) q++;
    if (q == nn) {
      sinew__free(buf);
      return 1;
    }
    memmove(bi + q, bi + q + 1, (nn - q - 1) * sizeof *bi);
    memmove(buf + q, buf + q + 1, (nn - q - 1) * sizeof *buf);
    nn--;
  }
  if (!cap) cap = 1;
  bool structural = present != here || nn != len;
  uint64_t shift = structural ? (uint64_t)(end - b - len) + (present != here ? u - k : 0) : 0;
  if (shift && c->moved + shift > CSR_BUDGET(end, u)) { /* the slot form from now on */
    sinew__free(buf);
    return 1;
  }
  bool tail = c->owner == m && c->used_outer == u;
  size_t need_o = (size_t)u + (present && !here), need_i = (size_t)end + (nn > len ? nn - len : 0);
  bool fits = tail && need_o <= c->cap_outer && need_i <= c->cap_inner;
  bool copy = false;
  if (structural && !fits) {
    if (tail && !jon && c->refs == 1) {
      if (csr_grow(c, m, need_o, need_i)) {
        sinew__free(buf);
        return SINEW_ENOMEM;
      }
    } else {
      copy = true;
    }
  } else if (!jon && c->refs > 1) { /* records of undo steps view these arrays */
    copy = true;
  }
  if (copy) {
    sinew__csr *dc = csr_copy(c, u, need_o, need_i);
    sinew__multi *nm = dc ? sinew__calloc(1, sizeof *nm) : NULL;
    if (!nm) {
      if (dc) csr_unref((dc->refs = 1, dc), NULL);
      sinew__free(buf);
      return SINEW_ENOMEM;
    }
    *nm = *m;
    nm->csr = dc;
    nm->idx = dc->outer;
    dc->refs = 1;
    dc->owner = nm;
    dc->used_outer = u;
    container->v.multi = nm;
    if (jon) *old = m;
    else sinew__multi_free_packed(m);
    m = nm;
    c = dc;
  } else if (jon && need_multi) { /* the header from before, viewing the same arrays */
    sinew__multi *h = sinew__calloc(1, sizeof *h);
    if (!h) {
      sinew__free(buf);
      return SINEW_ENOMEM;
    }
    *h = *m;
    c->refs++;
    *old = h;
  }
  *run = (sinew__csr_run){.buf = buf, .n = nn, .cap = cap, .index = index, .present = present};
  int d = csr_swap_run(c, run);
  m->count += (uint32_t)d;
  m->cap = m->count;
  m->idx = c->outer;
  c->moved += shift;
  if (jon) {
    run->c = c;
    run->shifts = structural;
    c->refs++;
    c->shifting += structural;
  } else {
    sinew__csr_run_free(run);
  }
  return 0;
}

void sinew__multi_csr_swap(sinew_graph_t *g, sinew__node *node, const sinew_plug_t *arr, sinew__csr_run *run) {
  sinew__slot_path path;
  sinew__slot *container = sinew__slot_find(g, node, arr, &path);
  sinew__multi *m = container ? container->v.multi : NULL;
  if (!m || m->csr != run->c) { /* the live form is another: the MULTI record below swaps it */
    csr_swap_run(run->c, run);
    return;
  }
  bool was = sinew__slot_dirtyish(container);
  int d = csr_swap_run(run->c, run);
  m->count += (uint32_t)d;
  m->cap = m->count;
  m->idx = run->c->outer;
  if (d && (m->eflags & SINEW__F_DIRTY)) container->below += (uint32_t)d;
  fix_counts(&path, path.n - 1, was, sinew__slot_dirtyish(container), false);
  sinew__slot_note_dirty(node, path.slots[0]);
}

/* Inserts a new element; returns its position or -1 on out-of-memory (nothing changed). The
 * element is born dirty when the attribute is computed or the container is DIRTY (a DIRTY
 * slot's descendants are DIRTY). The container's count is updated; the caller fixes ancestors
 * above it. */
static int64_t multi_insert(const sinew_graph_t *g, const sinew__node *node, const sinew__attr *a,
                            sinew__slot *container, int32_t index) {
  sinew__multi *m = container->v.multi;
  bool made = false;
  if (m && m->csr) {
    if (sinew__multi_csr_unpack(g, node, a, container)) return -1;
    m = container->v.multi;
  }
  if (m && sinew__multi_unpack(m)) return -1;
  if (!m) {
    m = sinew__calloc(1, sizeof *m);
    if (!m) return -1;
    made = true;
  }
  uint32_t need = m->count + 1;
  if (need > m->cap) {
    uint32_t ncap = m->cap ? m->cap * 2 : 2;
    if (ncap < need || ncap > (UINT32_MAX >> 1)) ncap = need;
    int32_t *ni = sinew__realloc(m->idx, ncap * sizeof *ni);
    if (!ni) goto oom;
    m->idx = ni;
    sinew__slot *ne = sinew__realloc(m->elems, ncap * sizeof *ne);
    if (!ne) goto oom; /* idx grew, which is harmless */
    m->elems = ne;
    m->cap = ncap;
  }
  sinew__slot fresh;
  if (sinew__slot_init(g, node, a, true, &fresh)) goto oom;
  if (container->flags & SINEW__F_DIRTY) {
    sinew__slot_path p = {.slots = {&fresh}, .n = 1};
    sinew__slot_mark_dirty(g, node, a, true, &p);
  }
  uint32_t pos = multi_lower(m, index);
  memmove(m->idx + pos + 1, m->idx + pos, (m->count - pos) * sizeof *m->idx);
  memmove(m->elems + pos + 1, m->elems + pos, (m->count - pos) * sizeof *m->elems);
  m->idx[pos] = index;
  m->elems[pos] = fresh;
  m->count++;
  container->v.multi = m;
  if (sinew__slot_dirtyish(&fresh)) {
    container->below++;
    note_all_dirty(node);
  }
  return pos;
oom: /* a table made here goes again; an existing one may keep its grown capacity */
  if (made) {
    sinew__free(m->idx);
    sinew__free(m->elems);
    sinew__free(m);
  }
  return -1;
}

/* Applies a change of a child's dirty-ish state (was -> now) to the ancestors in path, the
 * child being path->slots[level]. */
static void fix_counts(sinew__slot_path *path, uint32_t level, bool was, bool now,
                       bool clear_dirty) {
  for (uint32_t i = level; i > 0; i--) {
    sinew__slot *par = path->slots[i - 1];
    bool pwas = sinew__slot_dirtyish(par);
    bool had_dirty = (par->flags & SINEW__F_DIRTY) != 0;
    if (was && !now) par->below--;
    else if (!was && now) par->below++;
    if (clear_dirty) par->flags &= ~(uint32_t)SINEW__F_DIRTY;
    bool pnow = sinew__slot_dirtyish(par);
    if (pwas == pnow && !(clear_dirty && had_dirty)) break;
    was = pwas;
    now = pnow;
  }
}

void sinew__multi_remove(const sinew_graph_t *g, const sinew__node *node, const sinew__attr *a,
                         sinew__slot_path *path, uint32_t pos) {
  sinew__slot *container = path->slots[path->n - 1];
  sinew__multi *m = container->v.multi;
  bool was = sinew__slot_dirtyish(container);
  if (sinew__multi_elem_dirtyish(m, pos)) container->below--;
  if (m->vals) { /* packed: nothing of its own to release */
    memmove(m->idx + pos, m->idx + pos + 1, (m->count - pos - 1) * sizeof *m->idx);
    memmove(m->vals + pos, m->vals + pos + 1, (m->count - pos - 1) * sizeof *m->vals);
    m->count--;
    fix_counts(path, path->n - 1, was, sinew__slot_dirtyish(container), false);
    return;
  }
  sinew__slot_release(g, node, a, true, &m->elems[pos]);
  memmove(m->idx + pos, m->idx + pos + 1, (m->count - pos - 1) * sizeof *m->idx);
  memmove(m->elems + pos, m->elems + pos + 1, (m->count - pos - 1) * sizeof *m->elems);
  m->count--;
  fix_counts(path, path->n - 1, was, sinew__slot_dirtyish(container), false);
}

/* The element at pos leaves the multi whole (its subtree moves to *out, nothing released). The
 * multi's arrays keep their capacity, so putting it back cannot need memory. */
void sinew__multi_take(const sinew_graph_t *g, const sinew__node *node, sinew__slot_path *path,
                       uint32_t pos, sinew__slot *out) {
  (void)g;
  (void)node;
  sinew__slot *container = path->slots[path->n - 1];
  sinew__multi *m = container->v.multi;
  bool was = sinew__slot_dirtyish(container);
  if (sinew__multi_elem_dirtyish(m, pos)) container->below--;
  if (m->vals) { /* packed: the element leaves as a slot of its number and the common flags */
    memset(out, 0, sizeof *out);
    out->v.d = m->vals[pos];
    out->flags = m->eflags;
    memmove(m->vals + pos, m->vals + pos + 1, (m->count - pos - 1) * sizeof *m->vals);
  } else {
    *out = m->elems[pos];
    memmove(m->elems + pos, m->elems + pos + 1, (m->count - pos - 1) * sizeof *m->elems);
  }
  memmove(m->idx + pos, m->idx + pos + 1, (m->count - pos - 1) * sizeof *m->idx);
  m->count--;
  fix_counts(path, path->n - 1, was, sinew__slot_dirtyish(container), false);
}

/* Elements an evaluation made (a read of an output element, a compute writing one, a pull
 * into a fed array) are not journaled, so the element a record puts back may find its index
 * taken by one of them, or its multi without the room it had. Makes both right without
 * memory: the element at index goes, or when the multi is full, a plain element (no value
 * set, no connection, lock or channel-box state: only evaluation or a recorded change since
 * taken back made it, and evaluation makes it again on demand). Returns whether one went. */
bool sinew__multi_make_room(const sinew_graph_t *g, const sinew__node *node, const sinew__attr *a,
                            sinew__slot_path *path, int32_t index) {
  sinew__slot *container = path->slots[path->n - 1];
  sinew__multi *m = container->v.multi;
  if (!m || m->vals || m->csr) return false; /* packed: a walk would have unpacked it */
  int64_t pos = sinew__multi_find(m, index);
  if (pos < 0 && m->count < m->cap) return false;
  const uint32_t keep = SINEW__F_SET | SINEW__F_LOCKED | SINEW__F_IN | SINEW__F_OUT | SINEW__F_SUB_IN |
                        SINEW__F_SUB_OUT | SINEW__F_KEY_ON | SINEW__F_KEY_OFF | SINEW__F_CB_ON |
                        SINEW__F_CB_OFF;
  for (uint32_t i = m->count; pos < 0 && i-- > 0;)
    if (!(m->elems[i].flags & keep)) pos = i;
  if (pos < 0) return false;
  sinew__multi_remove(g, node, a, path, (uint32_t)pos);
  return true;
}

/* Puts a taken element back at its logical index. Records are applied in exact reverse or
 * forward order, so the multi has the room the element had (capacity never shrinks). */
void sinew__multi_put(const sinew_graph_t *g, const sinew__node *node, sinew__slot_path *path,
                      int32_t index, const sinew__slot *in) {
  (void)g;
  sinew__slot *container = path->slots[path->n - 1];
  sinew__multi *m = container->v.multi;
  bool was = sinew__slot_dirtyish(container);
  uint32_t pos = multi_lower(m, index);
  memmove(m->idx + pos + 1, m->idx + pos, (m->count - pos) * sizeof *m->idx);
  if (m->vals) { /* taken from this packed multi: its flags are the common ones */
    memmove(m->vals + pos + 1, m->vals + pos, (m->count - pos) * sizeof *m->vals);
    m->vals[pos] = in->v.d;
  } else {
    memmove(m->elems + pos + 1, m->elems + pos, (m->count - pos) * sizeof *m->elems);
    m->elems[pos] = *in;
  }
  m->idx[pos] = index;
  m->count++;
  if (sinew__slot_dirtyish(in)) container->below++;
  fix_counts(path, path->n - 1, was, sinew__slot_dirtyish(container), false);
  sinew__slot_note_dirty(node, path->slots[0]);
}

/* Walks the plug's path. With `create`, missing array elements are made and recorded. An
 * element of a packed multi is unpacked first, unless `pm` is given: then the walk stops at
 * the multi's slot, setting *pm and *ppos (SINEW_ENOTFOUND is returned, as nothing is made). */
static int walk(sinew_graph_t *g, sinew__node *node, const sinew_plug_t *p, bool create,
                sinew__slot **out, sinew__slot_path *path, sinew__created *created,
                sinew__multi **pm, uint32_t *ppos) {
  uint32_t chain[SINEW__MAX_DEPTH];
  uint32_t len = sinew__attr_chain(g, node, p->attr, chain);
  const sinew__attr *top = sinew__attr_get(g, node, chain[0]);
  sinew__slot *s = &node->slots[top->slot_index];
  path->n = 0;
  path->slots[path->n++] = s;
  uint32_t k = 0;
  for (uint32_t i = 0; i < len; i++) {
    const sinew__attr *a = sinew__attr_get(g, node, chain[i]);
    if (a->flags & SINEW_ATTR_ARRAY) {
      if (k >= p->nidx) break; /* the whole array (only possible for the last attribute) */
      int32_t index = p->idx[k++];
      int64_t pos = sinew__multi_find(s->v.multi, index);
      if (pos >= 0 && s->v.multi->csr) {
        if (pm) { /* read through a view of the element, made of nothing */
          s = sinew__multi_csr_view(s->v.multi, (uint32_t)pos);
          path->slots[path->n++] = s;
          if (i + 1 < len) {
            s = &s->v.kids[0];
            path->slots[path->n++] = s;
          }
          continue;
        }
        if (sinew__multi_csr_unpack(g, node, a, s)) return SINEW_ENOMEM;
      }
      if (pos >= 0 && s->v.multi->vals) {
        if (pm) {
          *pm = s->v.multi;
          *ppos = (uint32_t)pos;
          return SINEW_ENOTFOUND;
        }
        if (sinew__multi_unpack(s->v.multi)) return SINEW_ENOMEM;
      }
      if (pos < 0) {
        if (!create) return SINEW_ENOTFOUND;
        bool was = sinew__slot_dirtyish(s);
        pos = multi_insert(g, node, a, s, index);
        if (pos < 0) return SINEW_ENOMEM;
        fix_counts(path, path->n - 1, was, sinew__slot_dirtyish(s), false);
        sinew__slot_note_dirty(node, path->slots[0]);
        if (created) {
          sinew_plug_t e = *p;
          e.attr = a->id;
          e.nidx = k;
          created->elems[created->n++] = e;
        }
      }
      s = &s->v.multi->elems[pos];
      path->slots[path->n++] = s;
    }
    if (i + 1 < len) {
      const sinew__attr *c = sinew__attr_get(g, node, chain[i + 1]);
      s = &s->v.kids[c->slot_index];
      path->slots[path->n++] = s;
    }
  }
  *out = s;
  return SINEW_OK;
}

sinew__slot *sinew__slot_find(const sinew_graph_t *g, sinew__node *node, const sinew_plug_t *p,
                              sinew__slot_path *path) {
  sinew__slot_path local;
  sinew__slot *s = NULL;
  if (walk((sinew_graph_t *)g, node, p, false, &s, path ? path : &local, NULL, NULL, NULL)) return NULL;
  return s;
}

sinew__slot *sinew__slot_peek(const sinew_graph_t *g, sinew__node *node, const sinew_plug_t *p,
                              sinew__slot_path *path, sinew__multi **pm, uint32_t *pos) {
  sinew__slot_path local;
  sinew__slot *s = NULL;
  *pm = NULL;
  *pos = 0;
  if (walk((sinew_graph_t *)g, node, p, false, &s, path ? path : &local, NULL, pm, pos)) return NULL;
  return s;
}

int sinew__slot_ensure(sinew_graph_t *g, sinew__node *node, const sinew_plug_t *p,
                       sinew__slot **out, sinew__slot_path *path, sinew__created *created) {
  sinew__slot_path local;
  sinew__created mine = {.n = 0};
  int rc = walk(g, node, p, true, out, path ? path : &local, &mine, NULL, NULL);
  if (rc) {
    sinew__slot_unensure(g, node, &mine);
    return rc;
  }
  if (created)
    for (uint32_t i = 0; i < mine.n; i++) created->elems[created->n++] = mine.elems[i];
  return SINEW_OK;
}

void sinew__slot_unensure(sinew_graph_t *g, sinew__node *node, const sinew__created *created) {
  /* Elements are recorded outermost first; once an outer one is removed, the ones made inside
   * it are gone too and are simply not found. The list may hold other nodes' plugs too. */
  for (uint32_t i = 0; i < created->n; i++) {
    sinew_plug_t arr = created->elems[i];
    if (sinew__node_get(g, arr.node) != node) continue; /* another node's (a connection's other end) */
    int32_t index = arr.idx[arr.nidx - 1];
    arr.nidx--;
    sinew__slot_path path;
    sinew__slot *container = sinew__slot_find(g, node, &arr, &path);
    if (!container) continue;
    int64_t pos = sinew__multi_find(container->v.multi, index);
    if (pos >= 0) {
      sinew__multi_remove(g, node, sinew__attr_get(g, node, arr.attr), &path, (uint32_t)pos);
    }
  }
}

/* Marks a subtree DIRTY; returns nothing (counts inside are set exactly). */
static void dirty_subtree(const sinew_graph_t *g, const sinew__node *node, const sinew__attr *a,
                          bool element, sinew__slot *s) {
  s->flags |= SINEW__F_DIRTY;
  if (is_container(a, element)) {
    sinew__multi *m = s->v.multi;
    s->below = m ? m->count : 0;
    if (m && (m->vals || m->csr)) {
      m->eflags |= SINEW__F_DIRTY;
      return;
    }
    for (uint32_t i = 0; m && i < m->count; i++) dirty_subtree(g, node, a, true, &m->elems[i]);
  } else if (a->type == SINEW_ATTR_COMPOUND && s->v.kids) {
    s->below = a->nchildren;
    for (uint32_t i = 0; i < a->nchildren; i++)
      dirty_subtree(g, node, sinew__attr_get(g, node, a->children[i]), false, &s->v.kids[i]);
  }
}

static void clean_subtree(const sinew_graph_t *g, const sinew__node *node, const sinew__attr *a,
                          bool element, sinew__slot *s) {
  if (!sinew__slot_dirtyish(s)) return;
  s->flags &= ~(uint32_t)SINEW__F_DIRTY;
  if (s->below) {
    if (is_container(a, element)) {
      sinew__multi *m = s->v.multi;
      if (m && (m->vals || m->csr)) m->eflags &= ~(uint32_t)SINEW__F_DIRTY;
      for (uint32_t i = 0; m && !m->vals && !m->csr && i < m->count; i++) clean_subtree(g, node, a, true, &m->elems[i]);
    } else if (a->type == SINEW_ATTR_COMPOUND && s->v.kids) {
      for (uint32_t i = 0; i < a->nchildren; i++)
        clean_subtree(g, node, sinew__attr_get(g, node, a->children[i]), false, &s->v.kids[i]);
    }
  }
  s->below = 0;
}

void sinew__slot_mark_dirty(const sinew_graph_t *g, const sinew__node *node, const sinew__attr *a,
                            bool element, sinew__slot_path *path) {
  sinew__slot *s = path->slots[path->n - 1];
  bool was = sinew__slot_dirtyish(s);
  dirty_subtree(g, node, a, element, s);
  fix_counts(path, path->n - 1, was, true, false);
  sinew__slot_note_dirty(node, path->slots[0]);
}

void sinew__slot_mark_clean(const sinew_graph_t *g, const sinew__node *node, const sinew__attr *a,
                            bool element, sinew__slot_path *path) {
  sinew__slot *s = path->slots[path->n - 1];
  bool was = sinew__slot_dirtyish(s);
  clean_subtree(g, node, a, element, s);
  fix_counts(path, path->n - 1, was, false, true);
  note_clean(node, path->slots[0]);
}

/* The numbers a value holds, for a copy into or out of a generic numeric attribute: a number,
 * a generic's numbers, a compound's numeric children, a matrix's 16 (identity when unset). */
static uint32_t numbers_of(const sinew_graph_t *g, const sinew__node *sn, const sinew__attr *sa,
                           const sinew__slot *s, double *out) {
  if (sa->flags & SINEW_ATTR_GENERIC_NUMERIC) return sinew__slot_vec(s, out);
  if (sinew_attr_type_is_numeric(sa->type)) {
    out[0] = s->v.d;
    return 1;
  }
  if (sa->type == SINEW_ATTR_MATRIX) {
    sinew_mat4_t m;
    if (s->v.m) m = *s->v.m;
    else sinew_mat4_identity(&m);
    memcpy(out, &m, sizeof m);
    return 16;
  }
  if (sa->type == SINEW_ATTR_COMPOUND) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < sa->nchildren && n < SINEW_GENERIC_MAX; i++) {
      const sinew__attr *c = sinew__attr_get(g, sn, sa->children[i]);
      out[n++] = s->v.kids && sinew_attr_type_is_numeric(c->type) ? sinew__slot_num(&s->v.kids[i]) : c->dflt;
    }
    return n ? n : (out[0] = 0.0, 1);
  }
  out[0] = 0.0;
  return 1;
}

/* A copy with a generic numeric attribute at either end (the connection check let only numbers,
 * numeric compounds and matrices through): the destination takes the numbers it has room for;
 * missing ones are 0, a matrix fed anything but 16 numbers is identity. */
static int copy_generic(sinew_graph_t *g, sinew__node *dn, const sinew__attr *da, sinew__slot *d,
                        sinew__node *sn, const sinew__attr *sa, const sinew__slot *s) {
  double v[SINEW_GENERIC_MAX];
  uint32_t n = numbers_of(g, sn, sa, s, v);
  if (da->flags & SINEW_ATTR_GENERIC_NUMERIC) return sinew__slot_put_vec(d, v, n);
  if (sinew_attr_type_is_numeric(da->type)) {
    d->v.d = v[0];
    return SINEW_OK;
  }
  if (da->type == SINEW_ATTR_MATRIX) {
    if (n != 16) {
      sinew__free(d->v.m);
      d->v.m = NULL;
      return SINEW_OK;
    }
    if (!d->v.m && !(d->v.m = sinew__malloc(sizeof *d->v.m))) return SINEW_ENOMEM;
    memcpy(d->v.m, v, sizeof *d->v.m);
    return SINEW_OK;
  }
  if (da->type == SINEW_ATTR_COMPOUND && d->v.kids) {
    for (uint32_t i = 0; i < da->nchildren; i++) {
      const sinew__attr *c = sinew__attr_get(g, dn, da->children[i]);
      if (!sinew_attr_type_is_numeric(c->type)) continue;
      double x = i < n ? v[i] : 0.0;
      if (c->flags & SINEW_ATTR_GENERIC_NUMERIC) sinew__slot_put_num(&d->v.kids[i], x);
      else d->v.kids[i].v.d = x;
    }
  }
  return SINEW_OK;
}

/* Copies one value (not a container) of matching kinds. */
static int copy_value(sinew_graph_t *g, sinew__node *dn, const sinew__attr *da, sinew__slot *d,
                      sinew__node *sn, const sinew__attr *sa, const sinew__slot *s) {
  if ((da->flags | sa->flags) & SINEW_ATTR_GENERIC_NUMERIC)
    return copy_generic(g, dn, da, d, sn, sa, s);
  if (da->type == SINEW_ATTR_COMPOUND) {
    if (!d->v.kids || !s->v.kids) return SINEW_OK;
    uint32_t n = da->nchildren < sa->nchildren ? da->nchildren : sa->nchildren;
    for (uint32_t i = 0; i < n; i++) {
      const sinew__attr *dc = sinew__attr_get(g, dn, da->children[i]);
      const sinew__attr *sc = sinew__attr_get(g, sn, sa->children[i]);
      int rc = sinew__slot_copy(g, dn, dc, false, &d->v.kids[i], sn, sc, false, &s->v.kids[i]);
      if (rc) return rc;
    }
    return SINEW_OK;
  }
  if (sinew_attr_type_is_numeric(da->type)) {
    d->v.d = sinew_attr_type_is_numeric(sa->type) ? s->v.d : 0.0;
    return SINEW_OK;
  }
  switch (da->type) {
    case SINEW_ATTR_MATRIX:
      if (sa->type != SINEW_ATTR_MATRIX || !s->v.m) {
        sinew__free(d->v.m);
        d->v.m = NULL;
      } else {
        if (!d->v.m && !(d->v.m = sinew__malloc(sizeof *d->v.m))) return SINEW_ENOMEM;
        *d->v.m = *s->v.m;
      }
      return SINEW_OK;
    case SINEW_ATTR_STRING: {
      char *copy = NULL;
      if (sa->type == SINEW_ATTR_STRING && s->v.s && !(copy = sinew__strdup(s->v.s)))
        return SINEW_ENOMEM;
      sinew__free(d->v.s);
      d->v.s = copy;
      return SINEW_OK;
    }
    case SINEW_ATTR_DATA: {
      sinew_data_t *ref = sa->type == SINEW_ATTR_DATA && s->v.data ? sinew_data_ref(s->v.data) : NULL;
      sinew_data_unref(d->v.data);
      d->v.data = ref;
      return SINEW_OK;
    }
    default: return SINEW_OK;
  }
}

int sinew__slot_copy(sinew_graph_t *g, sinew__node *dn, const sinew__attr *da, bool delem,
                     sinew__slot *dst, sinew__node *sn, const sinew__attr *sa, bool selem,
                     const sinew__slot *src) {
  bool dcont = is_container(da, delem), scont = is_container(sa, selem);
  if (!dcont && !scont) return copy_value(g, dn, da, dst, sn, sa, src);
  if (!dcont || !scont) return SINEW_ETYPE;
  /* Array to array: the destination mirrors the source's elements. The caller has marked the
   * destination DIRTY, so new elements are born dirty like their container, and a copy cut
   * short by out-of-memory leaves everything consistently dirty; the caller cleans the whole
   * destination after a complete copy. */
  const sinew__multi *sm = src->v.multi;
  uint32_t scount = sm ? sm->count : 0;
  if (dst->v.multi && (sinew__multi_csr_unpack(g, dn, da, dst) || sinew__multi_unpack(dst->v.multi)))
    return SINEW_ENOMEM; /* written element by element */
  for (uint32_t i = 0; i < scount; i++) {
    int64_t pos = sinew__multi_find(dst->v.multi, sm->idx[i]);
    if (pos < 0 && (pos = multi_insert(g, dn, da, dst, sm->idx[i])) < 0) return SINEW_ENOMEM;
    sinew__slot one; /* a packed source element, as the slot it would have */
    const sinew__slot *se = &one;
    if (sm->csr) {
      se = sinew__multi_csr_view(sm, i); /* read before anything else makes a view */
    } else if (sm->vals) {
      memset(&one, 0, sizeof one);
      one.v.d = sm->vals[i];
      one.flags = sm->eflags;
    } else {
      se = &sm->elems[i];
    }
    int rc = sinew__slot_copy(g, dn, da, true, &dst->v.multi->elems[pos], sn, sa, true, se);
    if (rc) return rc;
  }
  sinew__multi *dm = dst->v.multi;
  for (uint32_t i = 0; dm && i < dm->count;) {
    if (sinew__multi_find(sm, dm->idx[i]) >= 0 || (dm->elems[i].flags & SINEW__F_IN)) {
      i++;
      continue;
    }
    if (dm->elems[i].flags & (SINEW__F_SUB_IN | SINEW__F_OUT | SINEW__F_SUB_OUT)) {
      /* A connection touches it, so the plug stays (its flags with it); it takes the default
       * value, as the source has no such element. */
      sinew__slot fresh;
      int rc = sinew__slot_init(g, dn, da, true, &fresh);
      if (rc) return rc;
      rc = sinew__slot_copy(g, dn, da, true, &dm->elems[i], dn, da, true, &fresh);
      sinew__slot_release(g, dn, da, true, &fresh);
      if (rc) return rc;
      i++;
      continue;
    }
    if (sinew__slot_dirtyish(&dm->elems[i])) dst->below--;
    sinew__slot_release(g, dn, da, true, &dm->elems[i]);
    memmove(dm->idx + i, dm->idx + i + 1, (dm->count - i - 1) * sizeof *dm->idx);
    memmove(dm->elems + i, dm->elems + i + 1, (dm->count - i - 1) * sizeof *dm->elems);
    dm->count--;
  }
  return SINEW_OK;
}
