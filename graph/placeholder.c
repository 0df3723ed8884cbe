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
 * queued once (a visited set), so a cycle the graph could not refuse ends the walk too. */
#include <string.h>

#include "graph/internal.h"

/* nidx values that no real plug has: a whole attribute reached through affects, and the
 * marker of a placeholder node already reported. */
#define ITEM_ATTR UINT32_MAX
#define ITEM_NODE (UINT32_MAX - 1)

typedef struct item_set {
  sinew_plug_t *keys; /* key.node.gen == 0 where free (no live node has generation 0) */
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

/* Adds p; *fresh tells whether it was new. */
static int item_add(item_set *s, const sinew_plug_t *p, bool *fresh) {
  if ((s->n + 1) * 2 > s->cap) { /* at most half full */
    uint32_t ncap = s->cap ? s->cap * 2 : 64;
    sinew_plug_t *keys = sinew__calloc(ncap, sizeof *keys);
    if (!keys) return SINEW_ENOMEM;
    item_set bigger = {keys, ncap, s->n};
    for (uint32_t i = 0; i < s->cap; i++)
      if (s->keys[i].node.gen) keys[item_slot(&bigger, &s->keys[i])] = s->keys[i];
    sinew__free(s->keys);
    *s = bigger;
  }
  uint32_t i = item_slot(s, p);
  *fresh = s->keys[i].node.gen == 0;
  if (*fresh) {
    s->keys[i] = *p;
    s->n++;
  }
  return SINEW_OK;
}

typedef struct walk {
  sinew_graph_t *g;
  item_set seen;
  sinew_plug_t *q;
  uint32_t n, cap;
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

/* Queues an item unless it was queued before. */
static int visit(walk *w, const sinew_plug_t *item) {
  sinew_plug_t key = *item;
  if (key.nidx <= SINEW_PLUG_MAX_INDICES) key = sinew__plug_key(item);
  bool fresh;
  if (item_add(&w->seen, &key, &fresh)) return SINEW_ENOMEM;
  if (!fresh) return SINEW_OK;
  if (sinew__reserve((void **)&w->q, &w->cap, w->n + 1, sizeof *w->q)) return SINEW_ENOMEM;
  w->q[w->n++] = key;
  return SINEW_OK;
}

/* True when a connection into dst carries a value: not a plain message attribute (a generic
 * one stands for an attribute of a type sinew does not know, which may carry one). */
static bool carries_value(const sinew__attr *da) {
  return da->type != SINEW_ATTR_MESSAGE || (da->flags & SINEW_ATTR_GENERIC);
}

static int expand(walk *w, const sinew_plug_t *it) {
  sinew_graph_t *g = w->g;
  sinew__node *node = sinew__node_get(g, it->node);
  if (!node) return SINEW_OK;
  if (node->type->flags & SINEW_NODE_TYPE_PLACEHOLDER) {
    sinew_plug_t mark = attr_item(it->node, 0);
    mark.nidx = ITEM_NODE;
    bool fresh;
    if (item_add(&w->seen, &mark, &fresh)) return SINEW_ENOMEM;
    if (fresh) {
      if (sinew__reserve((void **)&w->found, &w->capfound, w->nfound + 1, sizeof *w->found))
        return SINEW_ENOMEM;
      w->found[w->nfound++] = it->node;
    }
    return SINEW_OK; /* what feeds a placeholder does not matter: it passes nothing on */
  }
  bool whole_attr = it->nidx == ITEM_ATTR;
  for (uint32_t k = 0; k < node->nconns; k++) {
    const sinew__conn *c = node->conns[k];
    if (c->dst.node.index != it->node.index || c->dst.node.gen != it->node.gen) continue;
    if (!sinew__attr_family(g, node, c->dst.attr, it->attr)) continue;
    if (!whole_attr && !sinew__plug_overlap(&c->dst, it)) continue;
    if (!carries_value(sinew__attr_get(g, node, c->dst.attr))) continue;
    int rc = visit(w, &c->src);
    if (rc) return rc;
    node = sinew__node_get(g, it->node); /* visit never changes the graph; stay safe anyway */
  }
  const sinew__attr *a = sinew__attr_get(g, node, it->attr);
  if (!a->computed) return SINEW_OK;
  for (uint32_t k = 0; k < a->ninputs; k++) {
    sinew_plug_t in = attr_item(it->node, a->inputs[k]);
    int rc = visit(w, &in);
    if (rc) return rc;
  }
  return SINEW_OK;
}

static int run(sinew_graph_t *g, const sinew_plug_t *plug, walk *w) {
  int rc = visit(w, plug);
  for (uint32_t head = 0; !rc && head < w->n && !(w->first_only && w->nfound); head++) {
    sinew_plug_t it = w->q[head];
    rc = expand(w, &it);
  }
  sinew__free(w->seen.keys);
  sinew__free(w->q);
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
