/* graph/journal.c: the change journal (transactions, rollback, undo steps).
 *
 * While a transaction is open, every public call that changes the graph appends records of
 * what it changed (graph/internal.h, sinew__rec). A record holds the state the graph does not
 * have now; applying it swaps that state with the live one. Rolling back applies records in
 * reverse order; an undo step (sinew_change_t) is the committed records, undone in reverse and
 * redone in forward order by the same swaps.
 *
 * Nothing here allocates once a change is made: each mutating call reserves its records after
 * its checks and before it changes anything (sinew__jreserve), and a swap only moves pointers
 * and relinks objects the record kept alive. Lists that records put things back into never
 * shrink (multi element arrays, node connection lists), the hashes they re-add into keep a
 * permanent sentinel (a delete never frees the table) and are re-added into with expansion
 * off (uthash then allocates nothing), and the dirt propagation queue is reserved at begin. */
#include <assert.h>
#include <string.h>

#include "graph/internal.h"

int sinew__jreserve_slow(sinew_graph_t *g, uint32_t k) {
  uint64_t need = (uint64_t)g->jr.n + k;
  if (need > UINT32_MAX / 2) return SINEW_ENOMEM;
  int rc = sinew__reserve((void **)&g->jr.recs, &g->jr.cap, (uint32_t)need, sizeof *g->jr.recs);
  if (!rc && need > g->jr.promise) g->jr.promise = (uint32_t)need;
  return rc;
}

sinew__rec *sinew__jpush(sinew_graph_t *g, int kind) {
  assert(g->jr.n < g->jr.cap); /* the mutating call reserved its records */
  sinew__rec *r = &g->jr.recs[g->jr.n++];
  memset(r, 0, sizeof *r);
  r->kind = (uint8_t)kind;
  return r;
}

void sinew__jrec_created(sinew_graph_t *g, const sinew__created *made) {
  for (uint32_t i = 0; i < made->n; i++) {
    sinew__rec *r = sinew__jpush(g, SINEW__J_ELEM);
    r->plug = sinew__plug_key(&made->elems[i]);
  }
}

/* ---- values kept by records ------------------------------------------------------------------ */

static int value_kind(sinew_attr_type_t t) {
  if (sinew_attr_type_is_numeric(t)) return SINEW__JV_NUMBER;
  if (t == SINEW_ATTR_MATRIX) return SINEW__JV_MATRIX;
  if (t == SINEW_ATTR_STRING) return SINEW__JV_STRING;
  if (t == SINEW_ATTR_DATA) return SINEW__JV_DATA;
  return -1;
}

/* The records jrec_copy_rec makes below attribute a (a whole array is one). */
static uint32_t count_leaves(const sinew_graph_t *g, const sinew__node *n, const sinew__attr *a, bool whole) {
  if (whole) return 1;
  if (a->type != SINEW_ATTR_COMPOUND) return value_kind(a->type) >= 0 ? 1 : 0;
  uint32_t k = 0;
  for (uint32_t i = 0; i < a->nchildren; i++) {
    const sinew__attr *c = sinew__attr_get(g, n, a->children[i]);
    k += count_leaves(g, n, c, (c->flags & SINEW_ATTR_ARRAY) != 0);
  }
  return k;
}

/* A whole array the pull will make mirror its source: a copy of its elements (values and
 * flags, nested arrays included) kept whole in one MULTI record, swapped back on rollback. */
static int jrec_copy_array(sinew_graph_t *g, sinew__node *n, const sinew__attr *a, const sinew_plug_t *p,
                           const sinew__slot *s) {
  sinew__slot copy;
  if (sinew__slot_clone(g, n, a, false, s, &copy)) return SINEW_ENOMEM;
  sinew__rec *r = sinew__jpush(g, SINEW__J_MULTI);
  r->plug = sinew__plug_key(p);
  r->u.multi = copy.v.multi;
  return SINEW_OK;
}

static int jrec_copy_rec(sinew_graph_t *g, sinew__node *n, const sinew__attr *a, const sinew_plug_t *p,
                         const sinew__slot *s, bool whole) {
  if (whole) return jrec_copy_array(g, n, a, p, s);
  if (a->type == SINEW_ATTR_COMPOUND) {
    for (uint32_t i = 0; s->v.kids && i < a->nchildren; i++) {
      const sinew__attr *c = sinew__attr_get(g, n, a->children[i]);
      sinew_plug_t cp = *p;
      cp.attr = c->id;
      int rc = jrec_copy_rec(g, n, c, &cp, &s->v.kids[c->slot_index], (c->flags & SINEW_ATTR_ARRAY) != 0);
      if (rc) return rc;
    }
    return SINEW_OK;
  }
  int vk = value_kind(a->type);
  if (vk < 0) return SINEW_OK;
  sinew__rec *r = sinew__jpush(g, SINEW__J_VALUE);
  r->plug = sinew__plug_key(p);
  r->vkind = (uint8_t)vk;
  r->bits = s->flags & (SINEW__F_SET | SINEW__F_WIDE);
  switch (vk) {
    case SINEW__JV_NUMBER:
      if (s->flags & SINEW__F_WIDE) { /* the pull will rewrite the slot's numbers: keep a copy */
        if (!(r->u.gen = sinew__malloc(sizeof *r->u.gen))) {
          r->bits &= ~(uint32_t)SINEW__F_WIDE;
          return SINEW_ENOMEM;
        }
        *r->u.gen = *s->v.g;
      } else {
        r->u.d = s->v.d;
      }
      break;
    case SINEW__JV_MATRIX:
      if (s->v.m && !(r->u.m = sinew__malloc(sizeof *r->u.m))) return SINEW_ENOMEM;
      if (s->v.m) *r->u.m = *s->v.m;
      break;
    case SINEW__JV_STRING:
      if (s->v.s && !(r->u.s = sinew__strdup(s->v.s))) return SINEW_ENOMEM;
      break;
    default: r->u.data = s->v.data ? sinew_data_ref(s->v.data) : NULL; break;
  }
  return SINEW_OK;
}

/* The values a connection into p will overwrite (a pull copies the source into p): each leaf
 * value of p, or of p's compound children, copied into a VALUE record, and each whole array
 * (p itself or a compound's child) into a MULTI record: the pull gives it the source's
 * elements and drops its own. */
int sinew__jrec_value_copy(sinew_graph_t *g, sinew__node *n, const sinew_plug_t *p) {
  sinew__slot *s = sinew__slot_find(g, n, p, NULL);
  if (!s) return SINEW_OK; /* made by the connection: its ELEM record takes it back */
  const sinew__attr *a = sinew__attr_get(g, n, p->attr);
  bool whole = (a->flags & SINEW_ATTR_ARRAY) && p->nidx < a->array_depth;
  /* The copies come on top of what the calls under way reserved (the promise), so that a call
   * breaking many connections keeps the room it reserved for its own records. */
  uint32_t mark = g->jr.n, leaves = count_leaves(g, n, a, whole);
  uint32_t base = g->jr.promise > g->jr.n ? g->jr.promise : g->jr.n;
  if ((uint64_t)base + leaves > UINT32_MAX / 2 ||
      sinew__reserve((void **)&g->jr.recs, &g->jr.cap, base + leaves, sizeof *g->jr.recs))
    return SINEW_ENOMEM;
  int rc = jrec_copy_rec(g, n, a, p, s, whole);
  if (rc) sinew__jtruncate(g, mark);
  else g->jr.promise = base + leaves;
  return rc;
}

/* ---- applying and freeing records ------------------------------------------------------------ */

static void swap_value(sinew_graph_t *g, sinew__rec *r) {
  sinew__node *n = sinew__node_get(g, r->plug.node);
  sinew__slot *s = n ? sinew__slot_find(g, n, &r->plug, NULL) : NULL;
  if (!s) return;
  switch (r->vkind) {
    case SINEW__JV_NUMBER: { /* a number, or (WIDE) a generic slot's block of numbers */
      if (s->flags & SINEW__F_WIDE) {
        sinew__generic *t = s->v.g;
        if (r->bits & SINEW__F_WIDE) s->v.g = r->u.gen;
        else s->v.d = r->u.d;
        r->u.gen = t;
      } else {
        double t = s->v.d;
        if (r->bits & SINEW__F_WIDE) s->v.g = r->u.gen;
        else s->v.d = r->u.d;
        r->u.d = t;
      }
      break;
    }
    case SINEW__JV_MATRIX: {
      sinew_mat4_t *t = s->v.m;
      s->v.m = r->u.m;
      r->u.m = t;
      break;
    }
    case SINEW__JV_STRING: {
      char *t = s->v.s;
      s->v.s = r->u.s;
      r->u.s = t;
      break;
    }
    default: {
      sinew_data_t *t = s->v.data;
      s->v.data = r->u.data;
      r->u.data = t;
      break;
    }
  }
  const uint32_t swapped = SINEW__F_SET | SINEW__F_WIDE;
  uint32_t cur = s->flags & swapped;
  s->flags = (s->flags & ~swapped) | (r->bits & swapped);
  r->bits = cur;
  sinew__changed(g, &r->plug);
}

static void swap_elem(sinew_graph_t *g, sinew__rec *r) {
  sinew__node *n = sinew__node_get(g, r->plug.node);
  if (!n) return;
  const sinew__attr *a = sinew__attr_get(g, n, r->plug.attr);
  sinew_plug_t arr = r->plug;
  arr.nidx--;
  int32_t index = r->plug.idx[arr.nidx];
  arr.idx[arr.nidx] = 0;
  sinew__slot_path path;
  sinew__slot *container = sinew__slot_find(g, n, &arr, &path);
  if (!container) return;
  if (r->held) {
    /* an element evaluation made since may hold its index or its room (slot.c) */
    bool evicted = sinew__multi_make_room(g, n, a, &path, index);
    sinew__multi_put(g, n, &path, index, &r->u.slot);
    r->held = false;
    memset(&r->u.slot, 0, sizeof r->u.slot);
    if (evicted && (a->computed || (container->flags & SINEW__F_IN))) sinew__mark_dirty(g, &arr);
    if (a->computed) sinew__mark_dirty(g, &r->plug);
    else sinew__changed(g, &r->plug);
  } else {
    int64_t pos = sinew__multi_find(container->v.multi, index);
    if (pos < 0) return;
    sinew__multi_take(g, n, &path, (uint32_t)pos, &r->u.slot);
    r->held = true;
  }
  sinew__changed(g, &arr);
}

static void swap_flags(sinew_graph_t *g, sinew__rec *r) {
  sinew__node *n = sinew__node_get(g, r->plug.node);
  sinew__slot *s = n ? sinew__slot_find(g, n, &r->plug, NULL) : NULL;
  if (!s) return;
  uint32_t cur = s->flags & r->mask;
  s->flags = (s->flags & ~r->mask) | r->bits;
  r->bits = cur;
}

/* A value of node h was put back: note it when its type wants to hear of it (no allocation). */
static void note_restored(sinew_graph_t *g, sinew_node_t h) {
  sinew__node *n = sinew__node_get(g, h);
  if (!n || !n->type->restored || g->jr.restored_all) return;
  for (uint32_t i = 0; i < g->jr.nrestored; i++)
    if (g->jr.restored[i].index == h.index && g->jr.restored[i].gen == h.gen) return;
  if (g->jr.nrestored < sizeof g->jr.restored / sizeof g->jr.restored[0]) g->jr.restored[g->jr.nrestored++] = h;
  else g->jr.restored_all = true;
}

/* The records are applied: the noted nodes' `restored` hooks run (sinew_node_type_desc_t). */
static void run_restored(sinew_graph_t *g) {
  if (!g->jr.nrestored && !g->jr.restored_all) return;
  sinew_node_t noted[sizeof g->jr.restored / sizeof g->jr.restored[0]];
  uint32_t k = g->jr.nrestored;
  bool all = g->jr.restored_all;
  memcpy(noted, g->jr.restored, k * sizeof noted[0]);
  g->jr.nrestored = 0;
  g->jr.restored_all = false;
  for (uint32_t i = 0; i < (all ? g->nnodes : k); i++) {
    sinew_node_t h = {0, 0};
    if (!all) h = noted[i];
    else if (g->nodes[i]) h = (sinew_node_t){i, g->nodes[i]->gen};
    sinew__node *n = sinew__node_get(g, h); /* live only: a node the records detached is left */
    if (n && n->type->restored) n->type->restored(g, h, n->state);
  }
}

static void apply(sinew_graph_t *g, sinew__rec *r) {
  switch (r->kind) {
    case SINEW__J_VALUE:
      swap_value(g, r);
      note_restored(g, r->plug.node);
      break;
    case SINEW__J_ELEM: swap_elem(g, r); break;
    case SINEW__J_FLAGS: swap_flags(g, r); break;
    case SINEW__J_NODE_LOCK: {
      sinew__node *n = sinew__node_get(g, r->plug.node);
      if (!n) break;
      bool t = n->locked;
      n->locked = r->u.locked;
      r->u.locked = t;
      break;
    }
    case SINEW__J_RENAME: sinew__node_name_swap(g, r); break;
    case SINEW__J_PARENT: sinew__node_parent_swap(g, r); break;
    case SINEW__J_ATTR_NAME: sinew__attr_name_swap(g, r); break;
    case SINEW__J_ATTR_DEL: sinew__attr_del_swap(g, r); break;
    case SINEW__J_NODE: sinew__node_detach_swap(g, r); break;
    case SINEW__J_ATTR_ADD: sinew__attr_add_swap(g, r); break;
    case SINEW__J_MULTI: {
      sinew__node *n = sinew__node_get(g, r->plug.node);
      if (!n) break;
      /* The header an in-place edit keeps below its CSR records views the same arrays and
       * count as the live one once those records are taken back (undo), or before they are
       * applied again (redo): the swap changes nothing a reader sees, and the CSR records
       * report their elements, so a skinCluster packs just those vertices again. */
      sinew__slot *s = sinew__slot_find(g, n, &r->plug, NULL);
      const sinew__multi *live = s ? s->v.multi : NULL, *held = r->u.multi;
      bool same = live && held && live->csr && live->csr == held->csr && live->count == held->count;
      sinew__multi_swap(g, n, &r->plug, &r->u.multi);
      if (!same) sinew__changed(g, &r->plug);
      note_restored(g, r->plug.node);
      break;
    }
    case SINEW__J_CSR: {
      sinew__node *n = sinew__node_get(g, r->plug.node);
      if (!n) break;
      bool present = r->u.run.present;
      sinew__multi_csr_swap(g, n, &r->plug, &r->u.run);
      /* one element's weights changed: that element is reported; one that came or went, the
       * whole array (as its removal is) */
      sinew_plug_t p = r->plug;
      if (present == r->u.run.present && p.nidx < SINEW_PLUG_MAX_INDICES) p.idx[p.nidx++] = r->u.run.index;
      sinew__changed(g, &p);
      note_restored(g, r->plug.node);
      break;
    }
    case SINEW__J_HOST:
      g->pushing++; /* the host's swap may read the graph, not change it */
      r->u.host.ops->swap(g, r->u.host.data);
      g->pushing--;
      r->held = !r->held;
      break;
    case SINEW__J_CONN: {
      sinew_plug_t dst = r->u.conn.c->dst;
      if (r->held) {
        sinew__conn_link_rec(g, r);
        sinew__mark_dirty(g, &dst);
      } else {
        sinew__conn_unlink_rec(g, r);
        sinew__changed(g, &dst);
      }
      break;
    }
    default: break;
  }
}

/* Releases what a record owns: the state that is not live. */
static void rec_free(sinew_graph_t *g, sinew__rec *r) {
  switch (r->kind) {
    case SINEW__J_VALUE:
      if (r->vkind == SINEW__JV_NUMBER && (r->bits & SINEW__F_WIDE)) sinew__free(r->u.gen);
      else if (r->vkind == SINEW__JV_MATRIX) sinew__free(r->u.m);
      else if (r->vkind == SINEW__JV_STRING) sinew__free(r->u.s);
      else if (r->vkind == SINEW__JV_DATA) sinew_data_unref(r->u.data);
      break;
    case SINEW__J_NODE: sinew__node_free_detached(g, r); break;
    case SINEW__J_MULTI: { /* a packed block, or a copied array whose elements own values */
      sinew__node *n = r->u.multi ? sinew__node_any(g, r->plug.node) : NULL;
      sinew__slot held = {.v.multi = r->u.multi};
      if (n) sinew__slot_release(g, n, sinew__attr_get(g, n, r->plug.attr), false, &held);
      else sinew__multi_free_packed(r->u.multi);
      r->u.multi = NULL;
      break;
    }
    case SINEW__J_CSR: sinew__csr_run_free(&r->u.run); break;
    case SINEW__J_ATTR_ADD: sinew__attr_add_free(g, r); break;
    case SINEW__J_HOST:
      if (r->u.host.ops->release) r->u.host.ops->release(g, r->u.host.data, !r->held);
      break;
    case SINEW__J_ELEM:
      if (r->held) {
        sinew__node *n = sinew__node_any(g, r->plug.node);
        if (n) sinew__slot_release(g, n, sinew__attr_get(g, n, r->plug.attr), true, &r->u.slot);
      }
      break;
    case SINEW__J_RENAME:
      sinew__free(r->u.ren.name);
      if (r->u.ren.entry) {
        sinew__free(r->u.ren.entry->name);
        sinew__free(r->u.ren.entry);
      }
      break;
    case SINEW__J_CONN:
      if (r->held) {
        sinew__free(r->u.conn.c);
        sinew__free(r->u.conn.entry);
      }
      break;
    case SINEW__J_ATTR_NAME:
      if (r->bits & 1) sinew__free(r->u.an.name);
      if (r->bits & 2) sinew__free(r->u.an.short_name);
      break;
    case SINEW__J_ATTR_DEL:
      if (r->held) {
        sinew__node *n = sinew__node_any(g, r->plug.node);
        if (n) sinew__slot_release(g, n, sinew__attr_get(g, n, r->plug.attr), false, &r->u.slot);
      }
      break;
    default: break;
  }
  r->kind = SINEW__J_DEAD;
}

static bool same_node(sinew_node_t a, sinew_node_t h) { return a.index == h.index && a.gen == h.gen; }

/* The attribute table holding the attribute of a held element or attribute record, when the
 * live table lacks it: its addition, earlier in the same range, was taken back too (a rollback
 * of a transaction that added an attribute and gave it elements), so that addition's record
 * holds the table. NULL when the live table has it. */
static const sinew__rec *table_of(const sinew__rec *recs, uint32_t from, uint32_t i, const sinew__node *n) {
  const sinew__rec *r = &recs[i];
  if (r->plug.attr < sinew__node_nattrs(n)) return NULL;
  for (uint32_t k = i; k-- > from;) {
    const sinew__rec *a = &recs[k];
    if (a->kind == SINEW__J_ATTR_ADD && same_node(a->plug.node, r->plug.node) &&
        r->plug.attr < n->type->nattrs + a->u.aa.ndyn)
      return a;
  }
  return NULL;
}

/* Releases record i of a range (see table_of). */
static void rec_free_in(sinew_graph_t *g, sinew__rec *recs, uint32_t from, uint32_t i) {
  sinew__rec *r = &recs[i];
  bool walks = ((r->kind == SINEW__J_ELEM || r->kind == SINEW__J_ATTR_DEL) && r->held) ||
               (r->kind == SINEW__J_MULTI && r->u.multi);
  sinew__node *n = walks ? sinew__node_any(g, r->plug.node) : NULL;
  const sinew__rec *t = n ? table_of(recs, from, i, n) : NULL;
  if (n && !t && r->plug.attr >= sinew__node_nattrs(n)) { /* its table is gone: nothing to walk */
    r->kind = SINEW__J_DEAD;
    return;
  }
  if (!t) {
    rec_free(g, r);
    return;
  }
  sinew__attr *live = n->dyn;
  uint32_t nlive = n->ndyn;
  n->dyn = t->u.aa.dyn;
  n->ndyn = t->u.aa.ndyn;
  rec_free(g, r);
  n->dyn = live;
  n->ndyn = nlive;
}

/* Nodes go last: a record of a value, element or attribute of a node releases through the
 * node's attribute table, which a dead node's record frees with the node. */
static void free_range(sinew_graph_t *g, sinew__rec *recs, uint32_t from, uint32_t to) {
  for (uint32_t i = to; i-- > from;)
    if (recs[i].kind != SINEW__J_NODE) rec_free_in(g, recs, from, i);
  for (uint32_t i = to; i-- > from;)
    if (recs[i].kind == SINEW__J_NODE) rec_free(g, &recs[i]);
}

void sinew__jtruncate(sinew_graph_t *g, uint32_t mark) {
  free_range(g, g->jr.recs, mark, g->jr.n);
  g->jr.n = mark;
  if (g->jr.promise > g->jr.cap) g->jr.promise = g->jr.cap;
}

static bool rec_names(const sinew__rec *r, sinew_node_t h) {
  switch (r->kind) {
    case SINEW__J_DEAD: return false;
    case SINEW__J_CONN: return same_node(r->u.conn.sn, h) || same_node(r->u.conn.dn, h);
    case SINEW__J_PARENT: return same_node(r->plug.node, h) || same_node(r->u.par.parent, h);
    default: return same_node(r->plug.node, h);
  }
}

void sinew__journal_forget_node(sinew_graph_t *g, sinew_node_t h) {
  for (sinew_change_t *st = g->jr.steps; st; st = st->next)
    for (uint32_t i = 0; i < st->n; i++)
      if (rec_names(&st->recs[i], h)) rec_free(g, &st->recs[i]);
}

static void step_free(sinew_graph_t *g, sinew_change_t *st) {
  if (st->prev) st->prev->next = st->next;
  else g->jr.steps = st->next;
  if (st->next) st->next->prev = st->prev;
  free_range(g, st->recs, 0, st->n);
  sinew__free(st->recs);
  sinew__free(st);
}

void sinew__journal_destroy(sinew_graph_t *g) {
  sinew__jtruncate(g, 0);
  sinew__free(g->jr.recs);
  sinew__free(g->jr.marks);
  while (g->jr.steps) step_free(g, g->jr.steps);
  g->jr.recs = NULL;
  g->jr.marks = NULL;
  g->jr.n = g->jr.cap = g->jr.depth = g->jr.capmarks = g->jr.promise = 0;
}

int sinew_graph_record(sinew_graph_t *g, const sinew_record_ops_t *ops, void *data) {
  if (!g || !ops || !ops->swap)
    return g ? sinew_graph_fail(g, SINEW_EINVAL, "record", "no swap given") : SINEW_EINVAL;
  if (sinew__check_mutable(g, "record")) return SINEW_EINVAL;
  if (!sinew__jon(g)) {
    if (ops->release) ops->release(g, data, true);
    return SINEW_OK;
  }
  if (sinew__jreserve(g, 1)) return sinew_graph_fail(g, SINEW_ENOMEM, "record", "out of memory");
  sinew__rec *r = sinew__jpush(g, SINEW__J_HOST);
  r->u.host.ops = ops;
  r->u.host.data = data;
  return SINEW_OK;
}

/* ---- transactions ------------------------------------------------------------------------------ */

static int install_sentinels(sinew_graph_t *g) {
  if (!g->jr.sent_name) {
    sinew__name_entry *e = sinew__calloc(1, sizeof *e);
    if (!e || !(e->name = sinew__strdup("|journal"))) { /* '|' is in no node name */
      sinew__free(e);
      return SINEW_ENOMEM;
    }
    sinew__uthash_oom = 0;
    HASH_ADD_KEYPTR(hh, g->names, e->name, strlen(e->name), e);
    if (sinew__uthash_oom) {
      sinew__free(e->name);
      sinew__free(e);
      return SINEW_ENOMEM;
    }
    g->jr.sent_name = e;
  }
  /* a plug key no live node has: generation and attribute UINT32_MAX */
  sinew_plug_t none = {.node = {UINT32_MAX, UINT32_MAX}, .attr = UINT32_MAX};
  if (!g->jr.sent_conn) {
    sinew__conn *c = sinew__calloc(1, sizeof *c);
    if (!c) return SINEW_ENOMEM;
    c->src = c->dst = none;
    sinew__uthash_oom = 0;
    HASH_ADD(hh, g->conns_by_dst, dst, sizeof c->dst, c);
    if (sinew__uthash_oom) {
      sinew__free(c);
      return SINEW_ENOMEM;
    }
    g->jr.sent_conn = c;
  }
  if (!g->jr.sent_src) {
    sinew__src_entry *e = sinew__calloc(1, sizeof *e);
    if (!e) return SINEW_ENOMEM;
    e->key = none;
    sinew__uthash_oom = 0;
    HASH_ADD(hh, g->conns_by_src, key, sizeof e->key, e);
    if (sinew__uthash_oom) {
      sinew__free(e);
      return SINEW_ENOMEM;
    }
    g->jr.sent_src = e;
  }
  return SINEW_OK;
}

int sinew_graph_begin(sinew_graph_t *g) {
  if (!g) return SINEW_EINVAL;
  if (sinew__check_mutable(g, "begin")) return SINEW_EINVAL;
  /* The propagation a rollback pushes is reserved here, so that a rollback needs no memory
   * (the queue only grows; a bigger need later falls back on PENDING marks, see eval.c). */
  if (install_sentinels(g) ||
      sinew__reserve((void **)&g->jr.marks, &g->jr.capmarks, g->jr.depth + 1, sizeof *g->jr.marks) ||
      sinew__reserve_push(g))
    return sinew_graph_fail(g, SINEW_ENOMEM, "begin", "out of memory");
  g->jr.marks[g->jr.depth++] = g->jr.n;
  return SINEW_OK;
}

int sinew_graph_in_transaction(const sinew_graph_t *g) { return g ? (int)g->jr.depth : 0; }

int sinew_graph_commit(sinew_graph_t *g) {
  if (!g) return SINEW_EINVAL;
  if (sinew__check_mutable(g, "commit")) return SINEW_EINVAL; /* it frees what records hold */
  if (!g->jr.depth) return sinew_graph_fail(g, SINEW_EINVAL, "commit", "no transaction is open");
  if (--g->jr.depth == 0) sinew__jtruncate(g, 0); /* the outermost: the records are not needed */
  return SINEW_OK;
}

void sinew__jundo_to(sinew_graph_t *g, uint32_t mark) {
  bool was = g->jr.applying;
  g->jr.applying = true;
  for (uint32_t i = g->jr.n; i-- > mark;) apply(g, &g->jr.recs[i]);
  g->jr.applying = was;
  sinew__jtruncate(g, mark); /* the records now hold the changes taken back */
  if (!was) run_restored(g);
}

int sinew_graph_rollback(sinew_graph_t *g) {
  if (!g) return SINEW_EINVAL;
  if (!g->jr.depth) return sinew_graph_fail(g, SINEW_EINVAL, "rollback", "no transaction is open");
  if (sinew__check_mutable(g, "rollback")) return SINEW_EINVAL;
  sinew__jundo_to(g, g->jr.marks[g->jr.depth - 1]);
  g->jr.depth--;
  return SINEW_OK;
}

int sinew_graph_end(sinew_graph_t *g, int rc) {
  if (!g) return rc ? rc : SINEW_EINVAL;
  if (!rc) return sinew_graph_commit(g);
  sinew_graph_rollback(g); /* sets no error when a transaction is open */
  return rc;
}

int sinew_graph_commit_step(sinew_graph_t *g, sinew_change_t **out) {
  if (!g || !out) return g ? sinew_graph_fail(g, SINEW_EINVAL, "commit", "no step given") : SINEW_EINVAL;
  if (sinew__check_mutable(g, "commit")) return SINEW_EINVAL;
  if (g->jr.depth != 1)
    return sinew_graph_fail(g, SINEW_EINVAL, "commit",
                            "an undo step needs the outermost transaction (depth %u)", g->jr.depth);
  sinew_change_t *st = sinew__calloc(1, sizeof *st);
  if (!st) return sinew_graph_fail(g, SINEW_ENOMEM, "commit", "out of memory (the transaction stays open)");
  st->recs = g->jr.recs;
  st->n = g->jr.n;
  if (st->n < g->jr.cap) { /* best effort: a step keeps only what it uses */
    sinew__rec *small = st->n ? sinew__realloc(st->recs, st->n * sizeof *small) : NULL;
    if (small || !st->n) {
      if (!st->n) sinew__free(st->recs);
      st->recs = small;
    }
  }
  g->jr.recs = NULL;
  g->jr.n = g->jr.cap = g->jr.promise = 0;
  g->jr.depth = 0;
  st->next = g->jr.steps;
  if (st->next) st->next->prev = st;
  g->jr.steps = st;
  *out = st;
  return SINEW_OK;
}

bool sinew_change_empty(const sinew_change_t *step) { return !step || step->n == 0; }

static int step_apply(sinew_graph_t *g, sinew_change_t *st, bool undo) {
  const char *what = undo ? "undo" : "redo";
  if (!g || !st) return g ? sinew_graph_fail(g, SINEW_EINVAL, what, "no step given") : SINEW_EINVAL;
  if (sinew__check_mutable(g, what)) return SINEW_EINVAL;
  if (g->jr.depth) return sinew_graph_fail(g, SINEW_EINVAL, what, "not allowed inside a transaction");
  if (st->undone == undo)
    return sinew_graph_fail(g, SINEW_EINVAL, what, "the step is %s already", undo ? "undone" : "done");
  for (uint32_t i = 0; i < st->n; i++)
    if (st->recs[i].kind == SINEW__J_DEAD)
      return sinew_graph_fail(g, SINEW_ESTALE, what, "a node the step changed was deleted since");
  if (sinew__reserve_push(g)) return sinew_graph_fail(g, SINEW_ENOMEM, what, "out of memory");
  g->jr.applying = true;
  if (undo)
    for (uint32_t i = st->n; i-- > 0;) apply(g, &st->recs[i]);
  else
    for (uint32_t i = 0; i < st->n; i++) apply(g, &st->recs[i]);
  g->jr.applying = false;
  st->undone = undo;
  run_restored(g);
  return SINEW_OK;
}

int sinew_change_undo(sinew_graph_t *g, sinew_change_t *step) { return step_apply(g, step, true); }
int sinew_change_redo(sinew_graph_t *g, sinew_change_t *step) { return step_apply(g, step, false); }

void sinew_change_free(sinew_graph_t *g, sinew_change_t *step) {
  if (g && step && !g->pushing) step_free(g, step); /* not from a callback: see check_mutable */
}
