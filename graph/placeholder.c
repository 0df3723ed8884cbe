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
 * remembers the items a walk proved clean (no placeholder upstream: after the walk, those from
 * which no path of the walk's edges leads to a placeholder) and later walks stop there. The
 * memory is dropped when a connection is made or broken (graph->topology), the only changes
 * that alter what lies upstream of an existing plug. */
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

void sinew__placeholder_cache_free(sinew_graph_t *g) {
  if (!g->clean) return;
  item_set_clear(g->clean);
  sinew__free(g->clean);
  g->clean = NULL;
}

uint32_t sinew__placeholder_clean_count(const sinew_graph_t *g) {
  return g->clean && g->clean_topology == g->topology ? g->clean->n : 0;
}

typedef struct walk {
  sinew_graph_t *g;
  item_set seen;       /* item -> its index in q */
  sinew_plug_t *q;     /* the items, in the order met */
  uint8_t *at_placeholder; /* per item of q: it is on a placeholder node */
  uint32_t n, cap, capflags;
  uint32_t *edges;     /* (from, to) pairs of q indices: "to" is upstream of "from" */
  uint32_t nedges, capedges;
  sinew_node_t *found; /* the placeholder nodes met, in order */
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

/* Item `from` (NO_ITEM for the plug asked about) depends on item: queues item unless it was
 * queued before or is known clean, and records the edge. */
static int visit(walk *w, uint32_t from, const sinew_plug_t *item) {
  sinew_plug_t key = *item;
  if (key.nidx <= SINEW_PLUG_MAX_INDICES) key = sinew__plug_key(item);
  if (item_find(w->g->clean, &key) != NO_ITEM) return SINEW_OK; /* nothing to find up there */
  if (sinew__reserve((void **)&w->q, &w->cap, w->n + 1, sizeof *w->q) ||
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
  w->at_placeholder[w->n] = 0;
  w->q[w->n++] = key;
  return SINEW_OK;
}

/* True when a connection into dst carries a value: not a plain message attribute (a generic
 * one stands for an attribute of a type sinew does not know, which may carry one). */
static bool carries_value(const sinew__attr *da) {
  return da->type != SINEW_ATTR_MESSAGE || (da->flags & SINEW_ATTR_GENERIC);
}

static int expand(walk *w, uint32_t index) {
  sinew_graph_t *g = w->g;
  sinew_plug_t it = w->q[index];
  sinew__node *node = sinew__node_get(g, it.node);
  if (!node) return SINEW_OK;
  if (node->type->flags & SINEW_NODE_TYPE_PLACEHOLDER) {
    w->at_placeholder[index] = 1;
    sinew_plug_t mark = attr_item(it.node, 0);
    mark.nidx = ITEM_NODE;
    uint32_t old;
    if (sinew__reserve((void **)&w->found, &w->capfound, w->nfound + 1, sizeof *w->found) ||
        item_add(&w->seen, &mark, NO_ITEM, &old))
      return SINEW_ENOMEM;
    if (old == NO_ITEM) w->found[w->nfound++] = it.node;
    return SINEW_OK; /* what feeds a placeholder does not matter: it passes nothing on */
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

/* After a complete walk: the items from which no edge path leads to a placeholder depend on
 * none, and join the graph's memory of clean items. Marks the others by following the edges
 * backwards from the placeholder items. Best effort: short of memory, it remembers less. */
static void remember_clean(walk *w) {
  sinew_graph_t *g = w->g;
  if (g->clean && g->clean_topology != g->topology) item_set_clear(g->clean);
  if (!g->clean && !(g->clean = sinew__calloc(1, sizeof *g->clean))) return;
  g->clean_topology = g->topology;
  uint32_t n = w->n, *start = NULL, *from = NULL, *stack = NULL;
  uint8_t *tainted = NULL;
  if (w->nfound) { /* backward adjacency: for each item, the items that depend on it */
    start = sinew__calloc((size_t)n + 1, sizeof *start);
    from = sinew__malloc(((size_t)w->nedges + 1) * sizeof *from);
    stack = sinew__malloc(((size_t)n + 1) * sizeof *stack);
    tainted = sinew__calloc((size_t)n + 1, 1);
    if (!start || !from || !stack || !tainted) goto done;
    for (uint32_t e = 0; e < w->nedges; e++) start[w->edges[2 * e + 1] + 1]++;
    for (uint32_t i = 0; i < n; i++) start[i + 1] += start[i];
    uint32_t *fill = stack; /* borrowed as a cursor per item before the search */
    for (uint32_t i = 0; i < n; i++) fill[i] = start[i];
    for (uint32_t e = 0; e < w->nedges; e++) from[fill[w->edges[2 * e + 1]]++] = w->edges[2 * e];
    uint32_t top = 0;
    for (uint32_t i = 0; i < n; i++)
      if (w->at_placeholder[i]) tainted[i] = 1;
    for (uint32_t i = 0; i < n; i++)
      if (w->at_placeholder[i]) stack[top++] = i;
    while (top) {
      uint32_t t = stack[--top];
      for (uint32_t k = start[t]; k < start[t + 1]; k++)
        if (!tainted[from[k]]) {
          tainted[from[k]] = 1;
          stack[top++] = from[k];
        }
    }
  }
  for (uint32_t i = 0; i < n; i++) {
    uint32_t old;
    if (tainted && tainted[i]) continue;
    if (item_add(g->clean, &w->q[i], 0, &old)) break;
  }
done:
  sinew__free(start);
  sinew__free(from);
  sinew__free(stack);
  sinew__free(tainted);
}

static int run(sinew_graph_t *g, const sinew_plug_t *plug, walk *w) {
  if (g->clean && g->clean_topology != g->topology) item_set_clear(g->clean);
  int rc = visit(w, NO_ITEM, plug);
  uint32_t head = 0;
  for (; !rc && head < w->n && !(w->first_only && w->nfound); head++) rc = expand(w, head);
  if (!rc && head == w->n) remember_clean(w); /* a walk cut short proves nothing clean */
  item_set_clear(&w->seen);
  sinew__free(w->q);
  sinew__free(w->at_placeholder);
  sinew__free(w->edges);
  if (rc) {
    sinew__free(w->found);
    return sinew_graph_set_error(g, rc, "placeholders: out of memory");
  }
  return SINEW_OK;
}

int sinew_plug_placeholders(sinew_graph_t *g, const sinew_plug_t *plug, sinew_node_t *out,
                            size_t cap, size_t *out_count) {
  int rc = sinew__plug_check(g, plug, "placeholders", NULL);
  if (rc) return rc;
  if (cap && !out)
    return sinew_graph_set_error(g, SINEW_EINVAL, "placeholders: room for %zu nodes but no array", cap);
  walk w = {.g = g};
  if ((rc = run(g, plug, &w))) return rc;
  for (uint32_t k = 0; k < w.nfound && k < cap; k++) out[k] = w.found[k];
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
