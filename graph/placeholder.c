/* graph/placeholder.c: which placeholder nodes a plug's value depends on.
 *
 * A node of a type flagged SINEW_NODE_TYPE_PLACEHOLDER computes nothing and passes no value along
 * its connections, so whatever lies downstream of one keeps the value it held. The walk here goes
 * upstream from a plug along what a pull of it would follow: the connection feeding it (into
 * the plug, an ancestor of it or a descendant of it, the implicit DAG links included) and, for a
 * computed attribute, every input its type declares. It stops at each placeholder node it meets
 * and reports those, each once, nearest first.
 *
 * Items are of two kinds. A connection leads to an exact plug, indices included, so one element
 * of a multi does not drag in its siblings' sources. The affects relation is declared per
 * attribute, so it leads to a whole attribute on the node (every element of it), as a pull does
 * (it brings every dirty element of an input array up to date before compute runs). Every item is
 * queued once (a visited set), so a cycle the graph could not refuse ends the walk too.
 *
 * Asking for every joint of a rig walks the same upstream parts again and again, so the graph
 * remembers what each complete walk found for every item it passed: no placeholder at all (a
 * clean item: later walks skip it), or the placeholder nodes upstream of it with their distance
 * (later walks take that list instead of walking on). The lists come from the walk's own edges,
 * upstream first (an item's list is its upstream items' lists one step further); items on a cycle
 * get none. Distances keep the answer the same with or without the memory: nodes nearest first,
 * ties in node slot order. The memory is dropped when a connection is made or broken
 * (graph->topology), the only changes that alter what lies upstream of an existing plug. */
#include <string.h>

#include "graph/internal.h"

/* nidx values that no real plug has: a whole attribute reached through affects, and the
 * marker of a placeholder node already reported. */
#define ITEM_ATTR UINT32_MAX
#define ITEM_NODE (UINT32_MAX - 1)
#define NO_ITEM UINT32_MAX

/* A set of items (plugs, or the markers above) with a number each: open addressing. */
typedef struct sinew__item_set {
  sinew_plug_t *keys; /* key.node.gen == 0 where free (no live node has generation 0) */
  uint32_t *vals;
  uint32_t cap, n;
} item_set;

static uint64_t item_hash(const sinew_plug_t *p) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a over the normalised key */
  const unsigned char *b = (const unsigned char *)p;
  for (size_t i = 0; i < sizeof *p; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

static uint32_t item_slot(const item_set *s, const sinew_plug_t *p) {
  uint32_t i = (uint32_t)(item_hash(p) >> 32) & (s->cap - 1);
  while (s->keys[i].node.gen && memcmp(&s->keys[i], p, sizeof *p)) i = (i + 1) & (s->cap - 1);
  return i;
}

/* The number stored with p, or NO_ITEM when p is not in the set. */
static uint32_t item_find(const item_set *s, const sinew_plug_t *p) {
  if (!s || !s->n) return NO_ITEM;
  uint32_t i = item_slot(s, p);
  return s->keys[i].node.gen ? s->vals[i] : NO_ITEM;
}

/* Adds p with number v; *old is the number it already had (NO_ITEM when it is new). A failure
 * (SINEW_ENOMEM) leaves the set as it was. */
static int item_add(item_set *s, const sinew_plug_t *p, uint32_t v, uint32_t *old) {
  if ((s->n + 1) * 2 > s->cap) { /* at most half full */
    uint32_t ncap = s->cap ? s->cap * 2 : 64;
    sinew_plug_t *keys = sinew__calloc(ncap, sizeof *keys);
    uint32_t *vals = sinew__malloc(ncap * sizeof *vals);
    if (!keys || !vals) {
      sinew__free(keys);
      sinew__free(vals);
      return SINEW_ENOMEM;
    }
    item_set bigger = {keys, vals, ncap, s->n};
    for (uint32_t i = 0; i < s->cap; i++)
      if (s->keys[i].node.gen) {
        uint32_t j = item_slot(&bigger, &s->keys[i]);
        keys[j] = s->keys[i];
        vals[j] = s->vals[i];
      }
    sinew__free(s->keys);
    sinew__free(s->vals);
    *s = bigger;
  }
  uint32_t i = item_slot(s, p);
  *old = s->keys[i].node.gen ? s->vals[i] : NO_ITEM;
  if (*old == NO_ITEM) {
    s->keys[i] = *p;
    s->vals[i] = v;
    s->n++;
  }
  return SINEW_OK;
}

static void item_set_clear(item_set *s) {
  sinew__free(s->keys);
  sinew__free(s->vals);
  *s = (item_set){NULL, NULL, 0, 0};
}

/* A placeholder node at some distance (connections and affects steps) upstream of an item. */
typedef struct found_t {
  sinew_node_t node;
  uint32_t dist;
} found_t;

/* What the walks remember: item -> list number; list 0 is the empty list (a clean item). */
typedef struct sinew__placeholder_memo {
  item_set items;
  found_t *pool;      /* the lists' entries, one list after another */
  uint32_t npool, cappool;
  uint32_t *start;    /* list k is pool[start[k] .. start[k + 1]) */
  uint32_t nlists, caplists;
  uint32_t nclean;
} memo_t;

/* Lists longer than this are not remembered (the few items at the top of a large rig). */
#define MEMO_MAX_LIST 256

static void memo_clear(memo_t *m) {
  item_set_clear(&m->items);
  sinew__free(m->pool);
  sinew__free(m->start);
  memset(m, 0, sizeof *m);
}

void sinew__placeholder_cache_free(sinew_graph_t *g) {
  if (!g->placeholder_memo) return;
  memo_clear(g->placeholder_memo);
  sinew__free(g->placeholder_memo);
  g->placeholder_memo = NULL;
}

/* The graph's memory when it is up to date, else NULL. */
static memo_t *memo_of(const sinew_graph_t *g) {
  return g->placeholder_memo && g->memo_topology == g->topology ? g->placeholder_memo : NULL;
}

uint32_t sinew__placeholder_clean_count(const sinew_graph_t *g) {
  memo_t *m = memo_of(g);
  return m ? m->nclean : 0;
}

uint32_t sinew__placeholder_tainted_count(const sinew_graph_t *g) {
  memo_t *m = memo_of(g);
  return m ? m->items.n - m->nclean : 0;
}

typedef struct walk {
  sinew_graph_t *g;
  memo_t *memo;        /* the graph's memory (NULL: none yet) */
  item_set seen;       /* item -> its index in q */
  sinew_plug_t *q;     /* the items, in the order met */
  uint32_t *depth;     /* per item: steps from the plug asked about */
  uint32_t *known;     /* per item: its remembered list, or NO_ITEM when it is walked */
  uint8_t *at_placeholder; /* per item: it is on a placeholder node */
  uint32_t n, cap, capdepth, capknown, capflags;
  uint32_t *edges;     /* (from, to) pairs of q indices: "to" is upstream of "from" */
  uint32_t nedges, capedges;
  found_t *found;      /* the placeholder nodes met, each once, at their least distance */
  uint32_t nfound, capfound;
  bool first_only;     /* stop at the first one */
} walk;

static sinew_plug_t attr_item(sinew_node_t node, uint32_t attr) {
  sinew_plug_t p;
  memset(&p, 0, sizeof p);
  p.node = node;
  p.attr = attr;
  p.nidx = ITEM_ATTR;
  return p;
}

/* Notes a placeholder node at distance dist, keeping the least distance. */
static int add_found(walk *w, sinew_node_t node, uint32_t dist) {
  sinew_plug_t mark = attr_item(node, 0);
  mark.nidx = ITEM_NODE;
  uint32_t old;
  if (sinew__reserve((void **)&w->found, &w->capfound, w->nfound + 1, sizeof *w->found) ||
      item_add(&w->seen, &mark, w->nfound, &old))
    return SINEW_ENOMEM;
  if (old == NO_ITEM) w->found[w->nfound++] = (found_t){node, dist};
  else if (dist < w->found[old].dist) w->found[old].dist = dist;
  return SINEW_OK;
}

/* Item `from` (NO_ITEM for the plug asked about) depends on item: queues item unless it was
 * queued before or is known clean, and records the edge. An item with a remembered list is
 * queued but not walked: its list stands for what lies upstream of it. */
static int visit(walk *w, uint32_t from, const sinew_plug_t *item) {
  sinew_plug_t key = *item;
  if (key.nidx <= SINEW_PLUG_MAX_INDICES) key = sinew__plug_key(item);
  uint32_t list = w->memo ? item_find(&w->memo->items, &key) : NO_ITEM;
  if (list == 0) return SINEW_OK; /* known clean: nothing to find up there */
  if (sinew__reserve((void **)&w->q, &w->cap, w->n + 1, sizeof *w->q) ||
      sinew__reserve((void **)&w->depth, &w->capdepth, w->n + 1, sizeof *w->depth) ||
      sinew__reserve((void **)&w->known, &w->capknown, w->n + 1, sizeof *w->known) ||
      sinew__reserve((void **)&w->at_placeholder, &w->capflags, w->n + 1, 1) ||
      (from != NO_ITEM &&
       sinew__reserve((void **)&w->edges, &w->capedges, 2 * (w->nedges + 1), sizeof *w->edges)))
    return SINEW_ENOMEM;
  uint32_t old;
  if (item_add(&w->seen, &key, w->n, &old)) return SINEW_ENOMEM;
  if (from != NO_ITEM) {
    w->edges[2 * w->nedges] = from;
    w->edges[2 * w->nedges + 1] = old != NO_ITEM ? old : w->n;
    w->nedges++;
  }
  if (old != NO_ITEM) return SINEW_OK;
  uint32_t i = w->n++;
  w->q[i] = key;
  w->depth[i] = from == NO_ITEM ? 0 : w->depth[from] + 1;
  w->known[i] = list;
  w->at_placeholder[i] = 0;
  if (list == NO_ITEM) return SINEW_OK;
  const memo_t *m = w->memo;
  for (uint32_t k = m->start[list]; k < m->start[list + 1]; k++) {
    int rc = add_found(w, m->pool[k].node, w->depth[i] + m->pool[k].dist);
    if (rc) return rc;
  }
  return SINEW_OK;
}

/* True when a connection into dst carries a value: not a plain message attribute (a generic
 * one stands for an attribute of a type sinew does not know, which may carry one). */
static bool carries_value(const sinew__attr *da) {
  return da->type != SINEW_ATTR_MESSAGE || (da->flags & SINEW_ATTR_GENERIC);
}

static int expand(walk *w, uint32_t index) {
  sinew_graph_t *g = w->g;
  if (w->known[index] != NO_ITEM) return SINEW_OK; /* its list was taken in visit */
  sinew_plug_t it = w->q[index];
  sinew__node *node = sinew__node_get(g, it.node);
  if (!node) return SINEW_OK;
  if (node->type->flags & SINEW_NODE_TYPE_PLACEHOLDER) {
    w->at_placeholder[index] = 1;
    return add_found(w, it.node, w->depth[index]); /* what feeds it does not matter */
  }
  bool whole_attr = it.nidx == ITEM_ATTR;
  for (uint32_t k = 0; k < node->nconns; k++) {
    const sinew__conn *c = node->conns[k];
    if (c->dst.node.index != it.node.index || c->dst.node.gen != it.node.gen) continue;
    if (!sinew__attr_family(g, node, c->dst.attr, it.attr)) continue;
    if (!whole_attr && !sinew__plug_overlap(&c->dst, &it)) continue;
    if (!carries_value(sinew__attr_get(g, node, c->dst.attr))) continue;
    int rc = visit(w, index, &c->src);
    if (rc) return rc;
  }
  const sinew__attr *a = sinew__attr_get(g, node, it.attr);
  if (!a->computed) return SINEW_OK;
  for (uint32_t k = 0; k < a->ninputs; k++) {
    sinew_plug_t in = attr_item(it.node, a->inputs[k]);
    int rc = visit(w, index, &in);
    if (rc) return rc;
  }
  return SINEW_OK;
}

/* Nearest first; ties in node slot order. */
static int by_dist(const void *a, const void *b) {
  const found_t *x = a, *y = b;
  if (x->dist != y->dist) return x->dist < y->dist ? -1 : 1;
  return x->node.index < y->node.index ? -1 : x->node.index > y->node.index;
}

/* Per node, least distance first, so the first entry of each node is the one kept. */
static int by_node(const void *a, const void *b) {
  const found_t *x = a, *y = b;
  if (x->node.index != y->node.index) return x->node.index < y->node.index ? -1 : 1;
  return x->dist < y->dist ? -1 : x->dist > y->dist;
}

/* A list being built for remember(): entries in a growing pool. */
typedef struct lists {
  found_t *pool;
  uint32_t n, cap;
  uint32_t *off, *len; /* per walk item; len NO_ITEM while unknown */
} lists;

/* Item i's list: its own node when it is on a placeholder, its remembered list, or the lists
 * of the items it depends on, one step further, each node at its least distance. */
static int build_list(const walk *w, const memo_t *m, lists *L, uint32_t i, const uint32_t *succ_start,
                      const uint32_t *succ) {
  uint32_t begin = L->n;
  if (w->at_placeholder[i]) {
    if (sinew__reserve((void **)&L->pool, &L->cap, L->n + 1, sizeof *L->pool)) return SINEW_ENOMEM;
    L->pool[L->n++] = (found_t){w->q[i].node, 0};
  } else if (w->known[i] != NO_ITEM) {
    uint32_t a = m->start[w->known[i]], b = m->start[w->known[i] + 1];
    if (b > a) { /* a remembered list is never empty (those items are skipped), but be safe */
      if (sinew__reserve((void **)&L->pool, &L->cap, L->n + (b - a), sizeof *L->pool)) return SINEW_ENOMEM;
      memcpy(L->pool + L->n, m->pool + a, (b - a) * sizeof *L->pool);
      L->n += b - a;
    }
  } else {
    for (uint32_t k = succ_start[i]; k < succ_start[i + 1]; k++) {
      uint32_t s = succ[k];
      if (sinew__reserve((void **)&L->pool, &L->cap, L->n + L->len[s], sizeof *L->pool)) return SINEW_ENOMEM;
      for (uint32_t e = 0; e < L->len[s]; e++) {
        found_t f = L->pool[L->off[s] + e];
        f.dist++;
        L->pool[L->n++] = f;
      }
    }
    if (L->n - begin > 1) qsort(L->pool + begin, L->n - begin, sizeof *L->pool, by_node);
    uint32_t out = begin;
    for (uint32_t k = begin; k < L->n; k++)
      if (out == begin || L->pool[out - 1].node.index != L->pool[k].node.index) L->pool[out++] = L->pool[k];
    L->n = out;
  }
  L->off[i] = begin;
  L->len[i] = L->n - begin;
  return SINEW_OK;
}

/* Stores item i's list in the graph's memory (clean items as list 0). */
static int memo_store(memo_t *m, const sinew_plug_t *key, const found_t *entries, uint32_t n) {
  uint32_t list = 0, old;
  if (n > MEMO_MAX_LIST) return SINEW_OK;
  if (!m->nlists) { /* list 0: the empty one */
    if (sinew__reserve((void **)&m->start, &m->caplists, 2, sizeof *m->start)) return SINEW_ENOMEM;
    m->start[0] = m->start[1] = 0;
    m->nlists = 1;
  }
  if (n) {
    if (sinew__reserve((void **)&m->pool, &m->cappool, m->npool + n, sizeof *m->pool) ||
        sinew__reserve((void **)&m->start, &m->caplists, m->nlists + 2, sizeof *m->start))
      return SINEW_ENOMEM;
    list = m->nlists;
  }
  if (item_add(&m->items, key, list, &old)) return SINEW_ENOMEM;
  if (old != NO_ITEM) return SINEW_OK; /* remembered already */
  if (!n) {
    m->nclean++;
    return SINEW_OK;
  }
  memcpy(m->pool + m->npool, entries, n * sizeof *entries);
  m->npool += n;
  m->nlists++;
  m->start[m->nlists] = m->npool;
  return SINEW_OK;
}

/* After a complete walk: works out every item's list from the walk's edges, upstream first
 * (an item is ready when all the items it depends on are), and remembers them. Items on a
 * cycle, or depending on one, never become ready and are not remembered. Best effort: short of
 * memory, it remembers less. */
static void remember(walk *w) {
  sinew_graph_t *g = w->g;
  if (g->placeholder_memo && g->memo_topology != g->topology) memo_clear(g->placeholder_memo);
  if (!g->placeholder_memo && !(g->placeholder_memo = sinew__calloc(1, sizeof *g->placeholder_memo))) return;
  memo_t *m = g->placeholder_memo;
  g->memo_topology = g->topology;
  uint32_t n = w->n, ne = w->nedges;
  uint32_t *succ_start = sinew__calloc((size_t)n + 1, sizeof *succ_start);
  uint32_t *pred_start = sinew__calloc((size_t)n + 1, sizeof *pred_start);
  uint32_t *succ = sinew__malloc(((size_t)ne + 1) * sizeof *succ);
  uint32_t *pred = sinew__malloc(((size_t)ne + 1) * sizeof *pred);
  uint32_t *waiting = sinew__malloc(((size_t)n + 1) * sizeof *waiting);
  uint32_t *ready = sinew__malloc(((size_t)n + 1) * sizeof *ready);
  lists L = {NULL, 0, 0, sinew__malloc(((size_t)n + 1) * sizeof(uint32_t)),
             sinew__malloc(((size_t)n + 1) * sizeof(uint32_t))};
  if (!succ_start || !pred_start || !succ || !pred || !waiting || !ready || !L.off || !L.len) goto done;
  for (uint32_t e = 0; e < ne; e++) {
    succ_start[w->edges[2 * e] + 1]++;
    pred_start[w->edges[2 * e + 1] + 1]++;
  }
  for (uint32_t i = 0; i < n; i++) {
    succ_start[i + 1] += succ_start[i];
    pred_start[i + 1] += pred_start[i];
  }
  for (uint32_t i = 0; i < n; i++) waiting[i] = succ_start[i];    /* fill cursors for succ */
  for (uint32_t e = 0; e < ne; e++) succ[waiting[w->edges[2 * e]]++] = w->edges[2 * e + 1];
  for (uint32_t i = 0; i < n; i++) waiting[i] = pred_start[i];    /* fill cursors for pred */
  for (uint32_t e = 0; e < ne; e++) pred[waiting[w->edges[2 * e + 1]]++] = w->edges[2 * e];
  uint32_t nready = 0;
  for (uint32_t i = 0; i < n; i++) {
    waiting[i] = succ_start[i + 1] - succ_start[i];
    if (!waiting[i]) ready[nready++] = i;
  }
  for (uint32_t r = 0; r < nready; r++) { /* ready grows as items become ready */
    uint32_t i = ready[r];
    if (build_list(w, m, &L, i, succ_start, succ)) goto done;
    for (uint32_t k = pred_start[i]; k < pred_start[i + 1]; k++)
      if (--waiting[pred[k]] == 0) ready[nready++] = pred[k];
  }
  for (uint32_t r = 0; r < nready; r++) {
    uint32_t i = ready[r];
    if (w->known[i] != NO_ITEM) continue; /* remembered already */
    if (memo_store(m, &w->q[i], L.len[i] ? L.pool + L.off[i] : NULL, L.len[i])) break;
  }
done:
  sinew__free(succ_start);
  sinew__free(pred_start);
  sinew__free(succ);
  sinew__free(pred);
  sinew__free(waiting);
  sinew__free(ready);
  sinew__free(L.pool);
  sinew__free(L.off);
  sinew__free(L.len);
}

static int run(sinew_graph_t *g, const sinew_plug_t *plug, walk *w) {
  if (g->placeholder_memo && g->memo_topology != g->topology) memo_clear(g->placeholder_memo);
  w->memo = memo_of(g);
  int rc = visit(w, NO_ITEM, plug);
  uint32_t head = 0;
  for (; !rc && head < w->n && !(w->first_only && w->nfound); head++) rc = expand(w, head);
  if (!rc && head == w->n) remember(w); /* a walk cut short proves nothing */
  item_set_clear(&w->seen);
  sinew__free(w->q);
  sinew__free(w->depth);
  sinew__free(w->known);
  sinew__free(w->at_placeholder);
  sinew__free(w->edges);
  if (rc) {
    sinew__free(w->found);
    return sinew_graph_fail(g, rc, "placeholders", "out of memory");
  }
  if (w->nfound > 1) qsort(w->found, w->nfound, sizeof *w->found, by_dist);
  return SINEW_OK;
}

int sinew_plug_placeholders(sinew_graph_t *g, const sinew_plug_t *plug, sinew_node_t *out,
                            size_t cap, size_t *out_count) {
  int rc = sinew__plug_check(g, plug, "placeholders", NULL);
  if (rc) return rc;
  if (cap && !out)
    return sinew_graph_fail(g, SINEW_EINVAL, "placeholders", "room for %zu nodes but no array", cap);
  walk w = {.g = g};
  if ((rc = run(g, plug, &w))) return rc;
  for (uint32_t k = 0; k < w.nfound && k < cap; k++) out[k] = w.found[k].node;
  if (out_count) *out_count = w.nfound;
  sinew__free(w.found);
  return SINEW_OK;
}

bool sinew_plug_depends_on_placeholder(sinew_graph_t *g, const sinew_plug_t *plug) {
  if (sinew__plug_check(g, plug, "placeholders", NULL)) return false;
  walk w = {.g = g, .first_only = true};
  if (run(g, plug, &w)) return false;
  bool any = w.nfound > 0;
  sinew__free(w.found);
  return any;
}
