/* graph/eval.c: dirty propagation (push), lazy evaluation (pull), value setters and getters,
 * and the compute context.
 *
 * Push: a change at plug P dirties the outputs its attribute affects (declared per type, not
 * transitive) and the destinations of connections leaving P, a parent of P or a child of P;
 * then the same from each newly dirtied plug. A plug is marked when it is queued, so each is
 * queued once and propagation stops at plugs already dirty. The queue is reserved before the
 * graph changes, and a plug that finds it full and cannot grow it waits in its slot (PENDING),
 * so propagation itself never fails. The queue is worked last in, first out: a change at the
 * root of a hierarchy goes down one branch to its end before the next, visiting nodes in the
 * order they were made (parents first, so mostly in address order), where first in, first out
 * went level by level across every branch and met each node's memory cold
 * (bench_graph_eval, 10,001 joints: 2.2x -> 1.8x the plain C). Which plugs are dirtied does not
 * depend on the order; only the order of the observers' plug_dirtied calls does.
 *
 * Pull: an explicit stack (never the C stack), so a 100,000-node chain evaluates. A frame first
 * pushes what its plug needs (its connection's source, or for a computed plug the dirty inputs
 * its attribute depends on); when those are clean it copies or computes. A plug met again
 * while it is being evaluated is a cycle: it keeps its stale value and a warning is logged. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "graph/internal.h"
#include "sinew/pool.h"

#define MAX_NESTED_PULLS 64

struct sinew_compute {
  sinew_graph_t *graph;
  sinew_node_t node;
  sinew__node *n;
  const sinew_plug_t *plug;
};

/* ---- helpers --------------------------------------------------------------------------------- */

/* Set on a thread while it runs a step of a parallel evaluation that may run beside others
 * (a copy, or a compute of a SINEW_NODE_TYPE_PARALLEL type); NULL stats: the graph's own. */
static _Thread_local bool tl_shared;
static _Thread_local uint32_t tl_node;  /* the node of that step (its index) */
static _Thread_local int tl_depth;      /* nested pulls inside that step */
static _Thread_local sinew_graph_stats_t *tl_stats;

/* A step running beside others evaluates nothing on another node: a plug there that is not up
 * to date was not declared (the schedule would have made it), so the read fails with a warning
 * instead of racing with that node's own steps. */
static int foreign_read(sinew_graph_t *g, const sinew_plug_t *p) {
  char buf[256];
  sinew__plug_str(g, p, buf, sizeof buf);
  sinew_log(g, SINEW_LOG_WARNING, SINEW_LOG_EVAL_UNDECLARED,
            "%s is read by a compute running in parallel that does not declare it; the read fails", buf);
  return sinew_graph_set_error(g, SINEW_EINVAL, "%s: not declared by the compute reading it in parallel", buf);
}

static sinew_graph_stats_t *stats_of(sinew_graph_t *g) { return tl_stats ? tl_stats : &g->stats; }

/* sinew__slot_find, answered directly for a top-level attribute without indices (the plug of
 * most reads and of most dirtied outputs), which is the first slot of any path, and for an
 * element of a top-level array. */
static sinew__slot *slot_of(const sinew_graph_t *g, sinew__node *n, const sinew_plug_t *p,
                            sinew__slot_path *path) {
  if (p->nidx <= 1 && p->attr < n->type->nattrs && n->type->attrs[p->attr].parent == SINEW__NO_ATTR) {
    const sinew__attr *a = &n->type->attrs[p->attr];
    sinew__slot *s = &n->slots[a->slot_index];
    if (p->nidx == 0) {
      if (path) {
        path->slots[0] = s;
        path->n = 1;
      }
      return s;
    }
    if (a->array_depth == 1) { /* an element of a top-level array: worldMatrix[0] */
      int64_t pos = sinew__multi_find(s->v.multi, p->idx[0]);
      if (pos < 0) return NULL;
      if (s->v.multi->vals || s->v.multi->csr) return sinew__slot_find(g, n, p, path); /* packed: unpacks it */
      sinew__slot *e = &s->v.multi->elems[pos];
      if (path) {
        path->slots[0] = s;
        path->slots[1] = e;
        path->n = 2;
      }
      return e;
    }
  }
  return sinew__slot_find(g, n, p, path);
}

/* The connection into exactly plug p of node n. A node's own list of connections is short and
 * warm where the graph-wide index is a hash over every connection; a node with many takes the
 * index. Only the connections ending on p's attribute are read (conn_ends). */
static sinew__conn *conn_into(const sinew_graph_t *g, const sinew__node *n, const sinew_plug_t *p) {
  if (n->nconns > 16) return sinew__conn_to(g, p);
  for (uint32_t i = 0; i < n->nconns; i++) {
    if (sinew__end_dst(n->conn_ends[i]) != p->attr) continue;
    sinew__conn *c = n->conns[i];
    if (sinew_plug_equal(&c->dst, p)) return c;
  }
  return NULL;
}

static const sinew__attr *attr_of(sinew_graph_t *g, const sinew_plug_t *p, sinew__node **out) {
  sinew__node *n = sinew__node_get(g, p->node);
  if (out) *out = n;
  return n ? sinew__attr_get(g, n, p->attr) : NULL;
}

static bool plug_whole(const sinew__attr *a, const sinew_plug_t *p) {
  return (a->flags & SINEW_ATTR_ARRAY) && p->nidx + 1 == a->array_depth;
}

/* Calls fn for each plug of attribute `attr` on the node whose slot exists and passes `want`
 * (NULL: all). Array levels above the attribute are enumerated; the attribute's own array
 * level is reported as the whole-array plug. */
typedef bool (*slot_filter)(const sinew__slot *s);
typedef int (*plug_fn)(sinew_graph_t *g, const sinew_plug_t *p, void *ud);

static int each_plug_rec(sinew_graph_t *g, sinew__node *n, const uint32_t *chain, uint32_t len,
                         uint32_t level, sinew__slot *s, sinew_plug_t *p, slot_filter want,
                         plug_fn fn, void *ud) {
  if (want && !want(s)) return SINEW_OK;
  const sinew__attr *a = sinew__attr_get(g, n, chain[level]);
  bool last = level + 1 == len;
  if (last) return fn(g, p, ud);
  if (a->flags & SINEW_ATTR_ARRAY) {
    sinew__multi *m = s->v.multi;
    for (uint32_t i = 0; m && i < m->count; i++) {
      p->idx[p->nidx++] = m->idx[i];
      const sinew__attr *c = sinew__attr_get(g, n, chain[level + 1]);
      /* two-level: a view of the element (what fn reaches through it, it unpacks) */
      sinew__slot *e = m->csr ? sinew__multi_csr_view(m, i) : &m->elems[i];
      int rc = e->v.kids ? each_plug_rec(g, n, chain, len, level + 1, &e->v.kids[c->slot_index], p, want, fn, ud)
                         : SINEW_OK;
      p->nidx--;
      if (rc) return rc;
      m = s->v.multi; /* fn may not resize, but stay safe */
    }
    return SINEW_OK;
  }
  const sinew__attr *c = sinew__attr_get(g, n, chain[level + 1]);
  if (!s->v.kids) return SINEW_OK;
  return each_plug_rec(g, n, chain, len, level + 1, &s->v.kids[c->slot_index], p, want, fn, ud);
}

static int each_plug(sinew_graph_t *g, sinew_node_t node, uint32_t attr, slot_filter want,
                     plug_fn fn, void *ud) {
  sinew__node *n = sinew__node_get(g, node);
  const sinew__attr *a = sinew__attr_get(g, n, attr);
  if (a->parent == SINEW__NO_ATTR) { /* a top-level attribute: its one plug, nothing to enumerate */
    if (want && !want(&n->slots[a->slot_index])) return SINEW_OK;
    sinew_plug_t p = sinew_plug_make(node, attr, 0, NULL);
    return fn(g, &p, ud);
  }
  uint32_t chain[SINEW__MAX_DEPTH];
  uint32_t len = sinew__attr_chain(g, n, attr, chain);
  sinew_plug_t p = sinew_plug_make(node, attr, 0, NULL);
  sinew__slot *top = &n->slots[sinew__attr_get(g, n, chain[0])->slot_index];
  return each_plug_rec(g, n, chain, len, 0, top, &p, want, fn, ud);
}

/* ---- push ------------------------------------------------------------------------------------ */

static void notify_dirty(sinew_graph_t *g, const sinew_plug_t *p) {
  for (uint32_t i = 0; i < g->nobservers; i++) {
    sinew_observer_t o = g->observers[i].obs;
    if (o.plug_dirtied) o.plug_dirtied(o.user_data, p);
  }
}

static void input_changed(sinew_graph_t *g, sinew__node *n, const sinew_plug_t *p) {
  if (n->type->input_changed) n->type->input_changed(g, p->node, n->state, p);
}

typedef struct push_ctx {
  sinew_plug_t *q;
  uint32_t n, cap;
  bool overflow; /* some marked plugs are PENDING in their slots, not in the queue */
} push_ctx;

/* Marks p dirty and queues it, unless it is dirty already or has no storage. The queue is
 * reserved for the usual case and grows when one change reaches more plugs (one per element
 * of an array above a computed attribute); if growing fails, the plug is marked PENDING in its
 * slot instead, and run_push finds it there, so no dependent is left clean. */
static int push_dirty(sinew_graph_t *g, const sinew_plug_t *p, void *ud) {
  push_ctx *w = ud;
  sinew__node *n;
  const sinew__attr *a = attr_of(g, p, &n);
  if (!a) return SINEW_OK;
  sinew__slot_path path;
  sinew__slot *s = slot_of(g, n, p, &path);
  if (!s || (s->flags & SINEW__F_DIRTY)) return SINEW_OK;
  if (w->n == w->cap && !w->overflow) {
    uint32_t cap = w->cap;
    if (sinew__reserve((void **)&w->q, &cap, w->n + 1, sizeof *w->q)) w->overflow = true;
    else w->cap = cap;
  }
  sinew__slot_mark_dirty(g, n, a, !plug_whole(a, p), &path);
  g->stats.dirtied++;
  /* A plug that affects nothing, is not a source and has no parent or child that is (an output
   * nobody reads: parentInverseMatrix) has no dependents to dirty: it is not queued. */
  bool leaf = a->naffects == 0 && p->nidx == 0 && a->parent == SINEW__NO_ATTR &&
              !(s->flags & (SINEW__F_OUT | SINEW__F_SUB_OUT));
  if (!leaf && w->n < w->cap) w->q[w->n++] = sinew__plug_key(p);
  else if (!leaf) s->flags |= SINEW__F_PENDING;
  notify_dirty(g, p);
  if (!a->computed) input_changed(g, n, p);
  return SINEW_OK;
}

/* Moves PENDING plugs of the subtree at slot s (plug p, attribute a) into the queue; false when
 * the queue is full again (the rest stay PENDING for the next round). */
static bool requeue_slot(sinew_graph_t *g, sinew__node *n, const sinew__attr *a, bool element,
                         sinew__slot *s, sinew_plug_t *p, push_ctx *w) {
  if (s->flags & SINEW__F_PENDING) {
    if (w->n == w->cap) return false;
    s->flags &= ~(uint32_t)SINEW__F_PENDING;
    w->q[w->n++] = sinew__plug_key(p);
  }
  if ((a->flags & SINEW_ATTR_ARRAY) && !element) {
    sinew__multi *m = s->v.multi;
    for (uint32_t i = 0; m && !m->vals && !m->csr && i < m->count; i++) { /* packed: never PENDING */
      p->idx[p->nidx++] = m->idx[i];
      bool room = requeue_slot(g, n, a, true, &m->elems[i], p, w);
      p->nidx--;
      if (!room) return false;
    }
  } else if (a->type == SINEW_ATTR_COMPOUND && s->v.kids) {
    for (uint32_t i = 0; i < a->nchildren; i++) {
      const sinew__attr *c = sinew__attr_get(g, n, a->children[i]);
      p->attr = c->id;
      bool room = requeue_slot(g, n, c, false, &s->v.kids[i], p, w);
      p->attr = a->id;
      if (!room) return false;
    }
  }
  return true;
}

/* After an overflow: refills the (empty) queue with PENDING plugs, walking every slot. This
 * only runs when growing the queue failed, so its cost does not matter; it needs no memory. */
static void requeue_pending(sinew_graph_t *g, push_ctx *w) {
  w->n = 0;
  w->overflow = false;
  for (uint32_t i = 0; i < g->nnodes; i++) {
    sinew__node *n = g->nodes[i];
    if (!n || !n->live) continue;
    for (uint32_t id = 0; id < sinew__node_nattrs(n); id++) {
      const sinew__attr *a = sinew__attr_get(g, n, id);
      if (a->parent != SINEW__NO_ATTR || (a->flags & SINEW__ATTR_REMOVED)) continue;
      sinew_plug_t p = sinew_plug_make((sinew_node_t){i, n->gen}, id, 0, NULL);
      if (!requeue_slot(g, n, a, false, &n->slots[a->slot_index], &p, w)) {
        w->overflow = true;
        return;
      }
    }
  }
}

/* Dirties what depends on p (not p itself). */
static void spread(sinew_graph_t *g, const sinew_plug_t *p, push_ctx *w) {
  sinew__node *n;
  const sinew__attr *a = attr_of(g, p, &n);
  if (!a) return;
  sinew_node_t node = p->node;
  /* Outputs of the node that the attribute (or a parent or child of it) affects. */
  for (uint32_t k = 0; k < a->naffects; k++) each_plug(g, node, a->affects[k], NULL, push_dirty, w);
  /* Connections leaving p or one of its parents (a top-level plug without indices has none).
   * An element held packed is no source of anything: looked at without unpacking it. */
  sinew__multi *pm;
  uint32_t ppos;
  sinew__slot *s = p->nidx ? sinew__slot_peek(g, n, p, NULL, &pm, &ppos) : slot_of(g, n, p, NULL);
  uint32_t sflags = s ? s->flags : 0; /* s may be a view the next peek reuses */
  if (sflags & SINEW__F_OUT)
    for (sinew__conn *c = sinew__conn_from(g, p); c; c = c->src_next) push_dirty(g, &c->dst, w);
  sinew_plug_t cur = *p, up;
  while ((cur.nidx || a->parent != SINEW__NO_ATTR) && sinew_plug_parent(g, &cur, &up)) {
    cur = up;
    sinew__slot *ps = cur.nidx ? sinew__slot_peek(g, n, &cur, NULL, &pm, &ppos) : slot_of(g, n, &cur, NULL);
    if (ps && (ps->flags & SINEW__F_OUT))
      for (sinew__conn *c = sinew__conn_from(g, &cur); c; c = c->src_next) push_dirty(g, &c->dst, w);
  }
  /* Connections leaving a child of p. */
  if (sflags & SINEW__F_SUB_OUT) {
    for (uint32_t i = 0; i < n->nconns; i++) {
      /* the source's attribute first (conn_ends): is it p's or one inside p's? */
      uint32_t x = sinew__end_src(n->conn_ends[i]);
      while (x != p->attr && x != SINEW__NO_ATTR) x = sinew__attr_get(g, n, x)->parent;
      if (x == SINEW__NO_ATTR) continue;
      sinew__conn *c = n->conns[i];
      if (c->src.nidx < p->nidx) continue;
      bool inside = c->src.attr != p->attr || c->src.nidx > p->nidx;
      for (uint32_t j = 0; inside && j < p->nidx; j++) inside = c->src.idx[j] == p->idx[j];
      if (inside) push_dirty(g, &c->dst, w);
      n = sinew__node_get(g, node); /* push_dirty never deletes; keep the pointer fresh anyway */
    }
  }
}

/* Room for one propagation, reserved before a change is made: every connection destination
 * plus every computed attribute of every node (each plug is queued at most once). That covers
 * any propagation that meets no array above a computed attribute; a longer one grows the queue,
 * and if that fails falls back on PENDING marks (push_dirty), so a propagation never stops
 * half-way. */
static int reserve_push(sinew_graph_t *g, push_ctx *w) {
  size_t bound = g->nconnections + g->computed_plugs + 16;
  if (bound > UINT32_MAX) bound = UINT32_MAX;
  uint32_t cap = g->work_cap;
  if (sinew__reserve((void **)&g->work, &cap, (uint32_t)bound, sizeof *g->work)) return SINEW_ENOMEM;
  g->work_cap = cap;
  w->q = g->work;
  w->cap = cap;
  w->n = 0;
  w->overflow = false;
  return SINEW_OK;
}

static void run_push(sinew_graph_t *g, push_ctx *w) {
  for (;;) {
    while (w->n) { /* last in, first out: see the note at the top */
      sinew_plug_t p = w->q[--w->n];
      spread(g, &p, w);
    }
    if (!w->overflow) break;
    requeue_pending(g, w); /* each round spreads at least one full queue, so this ends */
  }
  g->work = w->q; /* may have grown */
  if (w->cap > g->work_cap) g->work_cap = w->cap;
}

int sinew__reserve_push(sinew_graph_t *g) {
  push_ctx w;
  return reserve_push(g, &w);
}

int sinew__check_mutable(sinew_graph_t *g, const char *what) {
  if (g && g->pushing)
    return sinew_graph_set_error(g, SINEW_EINVAL,
                                 "%s: the graph cannot change from an observer or an input_changed "
                                 "hook (it is in the middle of a change)", what);
  return SINEW_OK;
}

/* Starts the propagation that follows a change. The change's caller reserved the queue before
 * changing anything, but the change itself may have raised the bound (a connection made): if
 * the queue cannot grow to it now, the smaller queue does, helped by the PENDING marks, so a
 * change that is made is never reported as failed. Only a graph that never reserved a queue
 * (sinew_dirty on a new graph) can fail here, before anything is marked. */
static int begin_push(sinew_graph_t *g, push_ctx *w) {
  if (reserve_push(g, w) == SINEW_OK) return SINEW_OK;
  if (!g->work_cap) return sinew_graph_set_error(g, SINEW_ENOMEM, "dirty propagation: out of memory");
  *w = (push_ctx){.q = g->work, .n = 0, .cap = g->work_cap, .overflow = false};
  return SINEW_OK;
}

int sinew__changed(sinew_graph_t *g, const sinew_plug_t *p) {
  push_ctx w;
  int rc = begin_push(g, &w);
  if (rc) return rc;
  sinew__node *n;
  if (!attr_of(g, p, &n)) return SINEW_OK;
  g->pushing++;
  input_changed(g, n, p);
  spread(g, p, &w);
  run_push(g, &w);
  g->pushing--;
  return SINEW_OK;
}

int sinew__mark_dirty(sinew_graph_t *g, const sinew_plug_t *p) {
  push_ctx w;
  int rc = begin_push(g, &w);
  if (rc) return rc;
  g->pushing++;
  push_dirty(g, p, &w);
  run_push(g, &w);
  g->pushing--;
  return SINEW_OK;
}

/* ---- pull ------------------------------------------------------------------------------------ */

#define NO_FRAME UINT32_MAX

typedef struct frame {
  sinew_plug_t plug;
  int phase;
  uint32_t id, parent; /* for a schedule: this frame, and the one that pushed it (NO_FRAME) */
} frame;

typedef struct plan plan;

typedef struct pull_ctx {
  frame *st;
  uint32_t n, cap;
  uint32_t cur, next_id; /* the frame being expanded; the next frame's id */
  plan *pl;              /* making a schedule (sinew_evaluate_parallel), or NULL */
  int err;               /* why an expand failed, when not out of memory */
  frame local[32];
} pull_ctx;

static int plan_frame(plan *pl, uint32_t id, uint32_t parent);

static int frame_push(pull_ctx *c, const sinew_plug_t *p) {
  if (c->n == c->cap) {
    uint32_t ncap = c->cap * 2;
    frame *f = c->st == c->local ? sinew__malloc(ncap * sizeof *f) : sinew__realloc(c->st, ncap * sizeof *f);
    if (!f) return SINEW_ENOMEM;
    if (c->st == c->local) memcpy(f, c->local, sizeof c->local);
    c->st = f;
    c->cap = ncap;
  }
  uint32_t id = c->next_id++;
  if (c->pl && plan_frame(c->pl, id, c->cur)) return SINEW_ENOMEM;
  c->st[c->n++] = (frame){sinew__plug_key(p), 0, id, c->cur};
  return SINEW_OK;
}

static void warn_cycle(sinew_graph_t *g, sinew__slot *s, const sinew_plug_t *p) {
  if (s->flags & SINEW__F_CYCLE_WARNED) return;
  s->flags |= SINEW__F_CYCLE_WARNED;
  char buf[256];
  sinew_log(g, SINEW_LOG_WARNING, SINEW_LOG_EVAL_CYCLE, "Cycle on '%s' may not evaluate as expected",
            sinew__plug_str(g, p, buf, sizeof buf));
}

static sinew__conn *feeding(sinew_graph_t *g, sinew__node *n, const sinew_plug_t *p, sinew_plug_t *dst);

static int plan_after(plan *pl, const sinew_plug_t *q, uint32_t frame_id);

/* Queues q as a dependency when it needs evaluation; reports a cycle when q is in progress.
 * While a schedule is made, a plug with a step already planned is a dependency on that step. */
static int need(sinew_graph_t *g, pull_ctx *c, const sinew_plug_t *q) {
  sinew__node *n;
  const sinew__attr *a = attr_of(g, q, &n);
  if (!a) return SINEW_OK;
  sinew__slot *s = slot_of(g, n, q, NULL);
  if (!s) {
    if (!a->computed && !feeding(g, n, q, &(sinew_plug_t){0})) return SINEW_OK; /* default value */
    if (tl_shared && q->node.index != tl_node) return c->err = foreign_read(g, q);
    return frame_push(c, q);
  }
  if (s->flags & SINEW__F_BUSY) {
    warn_cycle(g, s, q);
    return SINEW_OK;
  }
  if (tl_shared && q->node.index != tl_node && sinew__slot_dirtyish(s)) return c->err = foreign_read(g, q);
  if (c->pl && (s->flags & SINEW__F_PLANNED)) return plan_after(c->pl, q, c->cur);
  if (!sinew__slot_dirtyish(s)) return SINEW_OK;
  return frame_push(c, q);
}

typedef struct need_ctx {
  pull_ctx *pc;
  int rc;
} need_ctx;

static bool want_dirtyish(const sinew__slot *s) { return sinew__slot_dirtyish(s); }

static int need_cb(sinew_graph_t *g, const sinew_plug_t *p, void *ud) {
  need_ctx *nc = ud;
  int rc = need(g, nc->pc, p);
  if (rc) nc->rc = rc;
  return rc;
}

/* The nearest plug at or above p that is a connection destination, if any. An element that
 * does not exist yet is still fed when an array above it is. */
/* feeding, for an existing plug cur whose slots down from the top are path. */
static sinew__conn *feeding_at(sinew_graph_t *g, sinew__node *n, sinew_plug_t cur, const sinew__slot_path *path,
                               sinew_plug_t *dst) {
  bool any = false;
  for (uint32_t i = 0; i < path->n; i++) any |= (path->slots[i]->flags & SINEW__F_IN) != 0;
  if (!any) return NULL;
  for (;;) {
    sinew__conn *c = conn_into(g, n, &cur);
    if (c) {
      *dst = cur;
      return c;
    }
    sinew_plug_t up;
    if (!sinew_plug_parent(g, &cur, &up)) return NULL;
    cur = up;
  }
}

static sinew__conn *feeding(sinew_graph_t *g, sinew__node *n, const sinew_plug_t *p, sinew_plug_t *dst) {
  sinew__slot_path path;
  sinew_plug_t cur = *p;
  sinew__multi *pm;
  uint32_t pos;
  /* the nearest existing plug decides (one held packed: the path down to its array) */
  while (!sinew__slot_peek(g, n, &cur, &path, &pm, &pos) && !pm) {
    sinew_plug_t up;
    if (!sinew_plug_parent(g, &cur, &up)) return NULL;
    cur = up;
  }
  return feeding_at(g, n, cur, &path, dst);
}

/* Children (or elements) of p that are dirty, queued as dependencies. */
static int need_children(sinew_graph_t *g, pull_ctx *pc, sinew__node *n, const sinew__attr *a,
                         const sinew_plug_t *p, sinew__slot *s) {
  if (plug_whole(a, p)) {
    sinew__multi *m = s->v.multi;
    uint32_t count = m ? m->count : 0;
    for (uint32_t i = 0; i < count; i++) {
      m = slot_of(g, n, p, NULL)->v.multi;
      if (!sinew__multi_elem_dirtyish(m, i)) continue;
      sinew_plug_t e;
      sinew_plug_element(g, p, m->idx[i], &e);
      int rc = need(g, pc, &e);
      if (rc) return rc;
    }
    return SINEW_OK;
  }
  if (a->type != SINEW_ATTR_COMPOUND) return SINEW_OK;
  for (uint32_t i = 0; i < a->nchildren; i++) {
    sinew_plug_t ch;
    sinew_plug_child(g, p, a->children[i], &ch);
    sinew__slot *cs = slot_of(g, n, &ch, NULL);
    if (cs && sinew__slot_dirtyish(cs)) {
      int rc = need(g, pc, &ch);
      if (rc) return rc;
    }
  }
  return SINEW_OK;
}

static void set_busy(sinew_graph_t *g, const sinew_plug_t *p, bool on) {
  sinew__node *n = sinew__node_get(g, p->node);
  sinew__slot *s = n ? slot_of(g, n, p, NULL) : NULL;
  if (!s) return;
  if (on) s->flags |= SINEW__F_BUSY;
  else s->flags &= ~(uint32_t)SINEW__F_BUSY;
}

static void mark_clean(sinew_graph_t *g, const sinew_plug_t *p) {
  sinew__node *n;
  const sinew__attr *a = attr_of(g, p, &n);
  sinew__slot_path path;
  if (a && slot_of(g, n, p, &path)) sinew__slot_mark_clean(g, n, a, !plug_whole(a, p), &path);
}

/* Copies the source's value into the destination and marks it clean. */
static int pull_copy(sinew_graph_t *g, const sinew_plug_t *src, const sinew_plug_t *dst) {
  sinew__node *sn, *dn;
  const sinew__attr *sa = attr_of(g, src, &sn), *da = attr_of(g, dst, &dn);
  if (!sa || !da) return SINEW_OK;
  if (sinew__opaque_link(sn, sa, dn, da)) { /* the destination keeps its own value */
    mark_clean(g, dst);
    return SINEW_OK;
  }
  sinew__slot *ds;
  sinew__slot_path path;
  int rc = (ds = slot_of(g, dn, dst, &path)) ? SINEW_OK : sinew__slot_ensure(g, dn, dst, &ds, &path, NULL);
  if (rc) return rc;
  /* The copy may drop dirty elements the source lacks; with the destination DIRTY throughout,
   * the clean below settles the counts of everything above it in one go. */
  if (!(ds->flags & SINEW__F_DIRTY)) sinew__slot_mark_dirty(g, dn, da, !plug_whole(da, dst), &path);
  sinew__slot *ss = slot_of(g, sn, src, NULL);
  if (ss) {
    rc = sinew__slot_copy(g, dn, da, !plug_whole(da, dst), ds, sn, sa, !plug_whole(sa, src), ss);
  } else { /* the source element does not exist: the destination takes the default */
    sinew__slot fresh;
    rc = sinew__slot_init(g, sn, sa, !plug_whole(sa, src), &fresh);
    if (!rc) rc = sinew__slot_copy(g, dn, da, !plug_whole(da, dst), ds, sn, sa, !plug_whole(sa, src), &fresh);
    sinew__slot_release(g, sn, sa, !plug_whole(sa, src), &fresh);
  }
  if (rc) return rc; /* a copy cut short stays dirty, to be made again on the next read */
  stats_of(g)->copies++;
  /* the copy changed nothing above ds (only inside it), so the path found before still holds */
  sinew__slot_mark_clean(g, dn, da, !plug_whole(da, dst), &path);
  return SINEW_OK;
}

static int run_compute(sinew_graph_t *g, const sinew_plug_t *p) {
  sinew__node *n = sinew__node_get(g, p->node);
  sinew_compute_t ctx = {g, p->node, n, p};
  int rc = SINEW_EUNKNOWN_PLUG;
  sinew_compute_fn last = NULL;
  for (const sinew_node_type_t *t = n->type; t && rc == SINEW_EUNKNOWN_PLUG; t = t->parent) {
    if (!t->compute || t->compute == last) continue;
    last = t->compute;
    stats_of(g)->computes++;
    rc = t->compute(&ctx, p);
    n = sinew__node_get(g, p->node);
    if (!n) return SINEW_OK; /* a misbehaving compute deleted its node */
  }
  char buf[256];
  sinew__slot_path path;
  sinew__slot *s = slot_of(g, n, p, &path);
  if (s) s->flags &= ~(uint32_t)SINEW__F_BUSY;
  bool still = s && sinew__slot_dirtyish(s);
  /* Running out of memory is no fault of the node: the plug stays dirty, to be computed again
   * by the next read, and this read fails, rather than a stale value passing as clean. */
  if (rc == SINEW_ENOMEM && still) return SINEW_ENOMEM;
  if (rc == SINEW_EUNKNOWN_PLUG) {
    sinew_log(g, SINEW_LOG_WARNING, SINEW_LOG_COMPUTE_UNKNOWN_PLUG,
              "no compute of %s handles %s; it keeps its value", n->type->name,
              sinew__plug_str(g, p, buf, sizeof buf));
  } else if (rc) {
    sinew_log(g, SINEW_LOG_WARNING, SINEW_LOG_COMPUTE_FAILED, "compute of %s failed (%s)",
              sinew__plug_str(g, p, buf, sizeof buf), sinew_err_name(rc));
  } else if (still) {
    sinew_log(g, SINEW_LOG_WARNING, SINEW_LOG_COMPUTE_NOT_SET,
              "compute of %s returned without setting it", sinew__plug_str(g, p, buf, sizeof buf));
  }
  const sinew__attr *a = sinew__attr_get(g, n, p->attr);
  if (still) sinew__slot_mark_clean(g, n, a, !plug_whole(a, p), &path);
  return SINEW_OK;
}

/* The dirty inputs of computed plug p (attribute a of node n), queued. Only the slots that the
 * node's maybe_dirty says may be dirty are looked at (a bit found clean is cleared), so the cost
 * follows the dirty inputs, not the declared ones: moving a parent makes a child's worldMatrix
 * look at its parent matrix input alone, not at its eighteen declared inputs. */
static int need_inputs(sinew_graph_t *g, pull_ctx *pc, sinew__node *n, const sinew__attr *a,
                       const sinew_plug_t *p) {
  sinew_graph_stats_t *st = stats_of(g);
  uint64_t live = a->input_slots & n->maybe_dirty;
  for (uint64_t b = live; b; b &= b - 1) {
    uint64_t bit = b & (~b + 1);
    st->inputs_checked++;
    if (!sinew__slot_dirtyish(&n->slots[__builtin_ctzll(b)])) {
      live &= ~bit;
      n->maybe_dirty &= ~bit;
    }
  }
  if (!live && !a->inputs_wide) return SINEW_OK;
  need_ctx nc = {pc, SINEW_OK};
  for (uint32_t k = 0; k < a->ninputs && !nc.rc; k++) {
    uint32_t top = a->input_tops[k];
    if (top < 64) {
      if (!(live & ((uint64_t)1 << top))) continue; /* clean, known without a look */
    } else {
      st->inputs_checked++;
      if (!sinew__slot_dirtyish(&n->slots[top])) continue;
    }
    const sinew__attr *in = sinew__attr_get(g, n, a->inputs[k]);
    if (in->parent == SINEW__NO_ATTR) {
      sinew_plug_t q = sinew_plug_make(p->node, in->id, 0, NULL);
      nc.rc = need(g, pc, &q);
    } else {
      each_plug(g, p->node, in->id, want_dirtyish, need_cb, &nc);
    }
    n = sinew__node_get(g, p->node); /* need may make slots; the node stays */
  }
  return nc.rc;
}

/* Phase 0 of a frame: queue what the plug needs. Returns 1 when the frame is already done. */
static int expand(sinew_graph_t *g, pull_ctx *pc, frame *f) {
  sinew_plug_t p = f->plug;
  sinew__node *n;
  const sinew__attr *a = attr_of(g, &p, &n);
  if (!a) return 1;
  sinew__slot_path path;
  sinew__slot *s = slot_of(g, n, &p, &path);
  if (!s && !a->computed) {
    /* An input element that does not exist yet, under a fed array: evaluating the array
     * brings it if the source has it (reading it does not make it). */
    sinew_plug_t dst;
    if (!feeding(g, n, &p, &dst)) return 1;
    f->plug = dst;
    return expand(g, pc, f);
  }
  if (!s) { /* an output element asked for is made, born dirty */
    sinew__slot *made;
    if (sinew__slot_ensure(g, n, &p, &made, &path, NULL)) return -1;
    s = made;
  }
  if (!sinew__slot_dirtyish(s)) return 1;
  if (s->flags & SINEW__F_BUSY) return 1;
  if (pc->pl && (s->flags & SINEW__F_PLANNED)) return plan_after(pc->pl, &p, f->parent) ? -1 : 1;
  s->flags |= SINEW__F_BUSY;
  sinew_plug_t dst;
  sinew__conn *c = feeding_at(g, n, p, &path, &dst);
  if (c) {
    if (!sinew_plug_equal(&dst, &p)) { /* fed through a parent: pull the whole destination */
      s->flags &= ~(uint32_t)SINEW__F_BUSY;
      f->plug = dst;
      return expand(g, pc, f);
    }
    f->phase = 1;
    return need(g, pc, &c->src) ? -1 : 0;
  }
  f->phase = 1;
  /* A whole computed array is brought up to date element by element (below, as children):
   * compute always sees element plugs, which is what it can write. */
  if (a->computed && !plug_whole(a, &p)) return need_inputs(g, pc, n, a, &p) ? -1 : 0;
  return need_children(g, pc, n, a, &p, s) ? -1 : 0;
}

/* Phase 1: dependencies are clean; produce the value. */
static int finish(sinew_graph_t *g, const sinew_plug_t *p) {
  sinew__node *n;
  const sinew__attr *a = attr_of(g, p, &n);
  if (!a) return SINEW_OK;
  sinew__slot_path path;
  sinew__slot *s = slot_of(g, n, p, &path);
  if (!s) return SINEW_OK;
  s->flags &= ~(uint32_t)SINEW__F_BUSY;
  if (!sinew__slot_dirtyish(s)) return SINEW_OK;
  sinew_plug_t dst;
  sinew__conn *c = feeding_at(g, n, *p, &path, &dst);
  if (c && sinew_plug_equal(&dst, p)) {
    sinew_plug_t src = c->src;
    return pull_copy(g, &src, p);
  }
  if (a->computed && !plug_whole(a, p)) {
    s->flags |= SINEW__F_BUSY;
    return run_compute(g, p); /* clears it */
  }
  /* an input dirtied by hand, or a compound or array whose parts are now clean */
  sinew__slot_mark_clean(g, n, a, !plug_whole(a, p), &path);
  return SINEW_OK;
}

static int emit(sinew_graph_t *g, plan *pl, const frame *f);

/* Runs the frames on the stack: expand each, then finish it (or, making a schedule, plan its
 * step) once what it pushed is done. */
static int run_stack(sinew_graph_t *g, pull_ctx *pc) {
  int rc = SINEW_OK;
  while (!rc && pc->n) {
    frame *f = &pc->st[pc->n - 1];
    if (f->phase == 0) {
      uint32_t before = pc->n;
      pc->cur = f->id;
      int r = expand(g, pc, f);
      if (r < 0) rc = pc->err ? pc->err : SINEW_ENOMEM;
      else if (r == 1) {
        memmove(&pc->st[before - 1], &pc->st[before], (pc->n - before) * sizeof *pc->st);
        pc->n--;
      }
      continue;
    }
    frame done = *f;
    pc->n--;
    rc = pc->pl ? emit(g, pc->pl, &done) : finish(g, &done.plug);
  }
  return rc;
}

int sinew__pull(sinew_graph_t *g, const sinew_plug_t *p) {
  sinew__node *n;
  const sinew__attr *a = attr_of(g, p, &n);
  if (!a) return SINEW_OK;
  /* inside a multi that may be held packed (not a top-level array in slot form, slot_of's
   * fast case): read where it is, not unpacked */
  const sinew__multi *top = p->nidx == 1 && a->parent == SINEW__NO_ATTR ? n->slots[a->slot_index].v.multi : NULL;
  if (p->nidx > 1 || (p->nidx && a->parent != SINEW__NO_ATTR) || (top && (top->vals || top->csr))) {
    sinew__multi *pm;
    uint32_t pos;
    sinew__slot *v = sinew__slot_peek(g, n, p, NULL, &pm, &pos);
    if (pm ? !(pm->eflags & SINEW__F_DIRTY) : v && !sinew__slot_dirtyish(v)) return SINEW_OK;
    if (!v && !pm && !a->computed && !feeding(g, n, p, &(sinew_plug_t){0})) return SINEW_OK;
  }
  sinew__slot *s = slot_of(g, n, p, NULL);
  if (s && !sinew__slot_dirtyish(s)) return SINEW_OK; /* the common case: clean */
  if (!s && !a->computed && !feeding(g, n, p, &(sinew_plug_t){0}))
    return SINEW_OK; /* an element never set and not fed through an array above: the default */
  if (s && (s->flags & SINEW__F_BUSY)) {
    warn_cycle(g, s, p);
    return SINEW_OK;
  }
  if (tl_shared && p->node.index != tl_node) return foreign_read(g, p);
  int *depth = tl_shared ? &tl_depth : &g->eval_depth; /* the graph's is shared by the steps */
  if (*depth >= MAX_NESTED_PULLS) {
    char buf[256];
    sinew_log(g, SINEW_LOG_WARNING, SINEW_LOG_EVAL_DEPTH, "evaluation of %s nested too deeply",
              sinew__plug_str(g, p, buf, sizeof buf));
    return SINEW_OK;
  }
  (*depth)++;
  pull_ctx pc; /* field by field: an initialiser would zero the 32 local frames on every pull */
  pc.st = pc.local;
  pc.n = 0;
  pc.cap = 32;
  pc.cur = NO_FRAME;
  pc.next_id = 0;
  pc.pl = NULL;
  pc.err = 0;
  int rc = frame_push(&pc, p);
  if (!rc) rc = run_stack(g, &pc);
  /* On failure, release the in-progress marks left on the stack. */
  for (uint32_t i = 0; i < pc.n; i++) set_busy(g, &pc.st[i].plug, false);
  if (pc.st != pc.local) sinew__free(pc.st);
  (*depth)--;
  if (rc) {
    char buf[256];
    return sinew_graph_set_error(g, rc, "evaluating %s: %s", sinew__plug_str(g, p, buf, sizeof buf),
                                 sinew_strerror(rc));
  }
  return SINEW_OK;
}

int sinew_evaluate(sinew_graph_t *g, const sinew_plug_t *p) {
  int rc = sinew__plug_check(g, p, "evaluate", NULL);
  return rc ? rc : sinew__pull(g, p);
}

/* ---- parallel evaluation ---------------------------------------------------------------------
 *
 * sinew_evaluate_parallel first makes a schedule on the calling thread: the pull's own walk
 * (run_stack), where finishing a frame plans its step (a copy along a connection, a compute, or
 * marking a compound or array clean) instead of making it, and marks the plug PLANNED so that
 * what needs it later waits for that step rather than planning it again. A step waits for the
 * steps its frame pushed, for planned plugs it needed, and for the node's previous step (and,
 * for a copy, the source node's): a node's slots are changed by one step at a time, in the
 * order serial evaluation would use. Then the steps run on the worker pool as the ones they
 * wait for finish; each step is the serial finish(), so the values are those of serial
 * evaluation. A compute of a type not declared SINEW_NODE_TYPE_PARALLEL takes the graph's
 * lock for writing, so nothing else runs beside it; the other steps take it for reading. */

typedef struct pstep {
  sinew_plug_t plug;
  uint32_t first, count; /* the steps waiting for this one: plan.out[first .. first + count) */
  uint32_t waiting;      /* steps this one still waits for */
  bool alone;            /* a compute of a type not declared parallel */
} pstep;

typedef struct pedge {
  uint32_t from, to; /* step -> step, or step -> frame id when to_frame */
  bool to_frame;
} pedge;

typedef struct pkey { /* plug -> its planned step */
  UT_hash_handle hh;
  sinew_plug_t key;
  uint32_t step;
} pkey;

typedef struct plast { /* node index -> its last planned step */
  UT_hash_handle hh;
  uint32_t node;
  uint32_t step;
} plast;

struct plan {
  pstep *steps;
  uint32_t n, cap;
  pedge *edges;
  uint32_t ne, cape;
  uint32_t *ftask, *fparent; /* per frame id: its step (NO_FRAME: none), the frame that pushed it */
  uint32_t nf, capf;
  uint32_t *out;
  pkey *by_plug;
  plast *by_node;
};

static int plan_frame(plan *pl, uint32_t id, uint32_t parent) {
  if (id >= pl->capf) {
    uint32_t cap = pl->capf, cap2 = pl->capf;
    if (sinew__reserve((void **)&pl->ftask, &cap, id + 1, sizeof *pl->ftask) ||
        sinew__reserve((void **)&pl->fparent, &cap2, id + 1, sizeof *pl->fparent))
      return SINEW_ENOMEM;
    pl->capf = cap < cap2 ? cap : cap2;
  }
  pl->ftask[id] = NO_FRAME;
  pl->fparent[id] = parent;
  if (id >= pl->nf) pl->nf = id + 1;
  return SINEW_OK;
}

static int plan_edge(plan *pl, uint32_t from, uint32_t to, bool to_frame) {
  if (to == NO_FRAME) return SINEW_OK;
  if (pl->ne == pl->cape && sinew__reserve((void **)&pl->edges, &pl->cape, pl->ne + 1, sizeof *pl->edges))
    return SINEW_ENOMEM;
  pl->edges[pl->ne++] = (pedge){from, to, to_frame};
  return SINEW_OK;
}

/* The frame being expanded (or its parent) needs q, whose step is planned. */
static int plan_after(plan *pl, const sinew_plug_t *q, uint32_t frame_id) {
  sinew_plug_t key = sinew__plug_key(q);
  pkey *k = NULL;
  HASH_FIND(hh, pl->by_plug, &key, sizeof key, k);
  return k ? plan_edge(pl, k->step, frame_id, true) : SINEW_OK;
}

/* The step follows the node's previous one, and becomes its last. */
static int plan_chain(plan *pl, uint32_t node, uint32_t step) {
  plast *l = NULL;
  HASH_FIND(hh, pl->by_node, &node, sizeof node, l);
  if (l) {
    int rc = plan_edge(pl, l->step, step, false);
    l->step = step;
    return rc;
  }
  if (!(l = sinew__malloc(sizeof *l))) return SINEW_ENOMEM;
  l->node = node;
  l->step = step;
  sinew__uthash_oom = 0;
  HASH_ADD(hh, pl->by_node, node, sizeof l->node, l);
  if (sinew__uthash_oom) {
    sinew__free(l);
    return SINEW_ENOMEM;
  }
  return SINEW_OK;
}

/* Plans the step of a frame whose dependencies are planned (finish's cases, not made). */
static int emit(sinew_graph_t *g, plan *pl, const frame *f) {
  const sinew_plug_t *p = &f->plug;
  sinew__node *n;
  const sinew__attr *a = attr_of(g, p, &n);
  if (!a) return SINEW_OK;
  sinew__slot_path path;
  sinew__slot *s = slot_of(g, n, p, &path);
  if (!s) return SINEW_OK;
  s->flags &= ~(uint32_t)SINEW__F_BUSY;
  if (!sinew__slot_dirtyish(s) || (s->flags & SINEW__F_PLANNED)) return SINEW_OK;
  uint32_t src_node = NO_FRAME;
  bool alone = false;
  sinew_plug_t dst;
  sinew__conn *c = feeding_at(g, n, *p, &path, &dst);
  if (c && sinew_plug_equal(&dst, p)) src_node = c->src.node.index;
  else if (a->computed && !plug_whole(a, p)) alone = !(n->type->flags & SINEW_NODE_TYPE_PARALLEL);
  if (pl->n == pl->cap && sinew__reserve((void **)&pl->steps, &pl->cap, pl->n + 1, sizeof *pl->steps))
    return SINEW_ENOMEM;
  pkey *k = sinew__malloc(sizeof *k);
  if (!k) return SINEW_ENOMEM;
  k->key = sinew__plug_key(p);
  k->step = pl->n;
  sinew__uthash_oom = 0;
  HASH_ADD(hh, pl->by_plug, key, sizeof k->key, k);
  if (sinew__uthash_oom) {
    sinew__free(k);
    return SINEW_ENOMEM;
  }
  uint32_t step = pl->n++;
  pl->steps[step] = (pstep){.plug = k->key, .alone = alone};
  s->flags |= SINEW__F_PLANNED;
  pl->ftask[f->id] = step;
  int rc = plan_chain(pl, p->node.index, step);
  if (!rc && src_node != NO_FRAME && src_node != p->node.index) rc = plan_chain(pl, src_node, step);
  /* A compute may read, clean, what feeds its node (a deformer takes the local geometry of the
   * shape whose worldMesh it is given): the feeding nodes' later steps wait for it. */
  if (src_node == NO_FRAME && a->computed && !plug_whole(a, p))
    for (uint32_t i = 0; !rc && i < n->nconns; i++)
      if (n->conns[i]->dst.node.index == p->node.index && n->conns[i]->src.node.index != p->node.index)
        rc = plan_chain(pl, n->conns[i]->src.node.index, step);
  if (!rc) rc = plan_edge(pl, step, f->parent, true);
  return rc;
}

/* Takes the PLANNED mark off the step's plug (its node's steps are not running). */
static void unplan(sinew_graph_t *g, const sinew_plug_t *p) {
  sinew__node *n = sinew__node_get(g, p->node);
  sinew__slot *s = n && p->attr < sinew__node_nattrs(n) ? slot_of(g, n, p, NULL) : NULL;
  if (s) s->flags &= ~(uint32_t)SINEW__F_PLANNED;
}

static void plan_free(sinew_graph_t *g, plan *pl, uint32_t unplan_from) {
  for (uint32_t i = unplan_from; i < pl->n; i++) unplan(g, &pl->steps[i].plug);
  pkey *k, *kt;
  HASH_ITER(hh, pl->by_plug, k, kt) {
    HASH_DEL(pl->by_plug, k);
    sinew__free(k);
  }
  plast *l, *lt;
  HASH_ITER(hh, pl->by_node, l, lt) {
    HASH_DEL(pl->by_node, l);
    sinew__free(l);
  }
  sinew__free(pl->steps);
  sinew__free(pl->edges);
  sinew__free(pl->ftask);
  sinew__free(pl->fparent);
  sinew__free(pl->out);
}

/* Edges to frames become edges to steps (a frame without a step passes its dependencies on to
 * the frame that pushed it); then each step's dependents are listed and its waits counted. */
static int plan_link(plan *pl) {
  for (uint32_t i = 0; i < pl->ne; i++) {
    pedge *e = &pl->edges[i];
    if (!e->to_frame) continue;
    uint32_t fr = e->to;
    while (fr != NO_FRAME && pl->ftask[fr] == NO_FRAME) fr = pl->fparent[fr];
    e->to = fr == NO_FRAME ? NO_FRAME : pl->ftask[fr];
    e->to_frame = false;
  }
  if (!(pl->out = sinew__malloc((pl->ne ? pl->ne : 1) * sizeof *pl->out))) return SINEW_ENOMEM;
  for (uint32_t i = 0; i < pl->ne; i++) {
    pedge *e = &pl->edges[i];
    if (e->to == NO_FRAME || e->to == e->from) continue;
    pl->steps[e->from].count++;
    pl->steps[e->to].waiting++;
  }
  uint32_t at = 0;
  for (uint32_t i = 0; i < pl->n; i++) {
    pl->steps[i].first = at;
    at += pl->steps[i].count;
    pl->steps[i].count = 0;
  }
  for (uint32_t i = 0; i < pl->ne; i++) {
    pedge *e = &pl->edges[i];
    if (e->to == NO_FRAME || e->to == e->from) continue;
    pstep *from = &pl->steps[e->from];
    pl->out[from->first + from->count++] = e->to;
  }
  return SINEW_OK;
}

/* The run: a queue of steps ready to go, under a mutex; the graph's lock, read or write. */
typedef struct sinew__par {
  sinew_graph_t *g;
  plan *pl;
  uv_mutex_t m, log;
  uv_cond_t cv;
  uv_rwlock_t rw;
  uint32_t *ready;
  uint32_t head, tail, done;
  int rc;
  sinew_graph_stats_t *stats; /* one per pool item */
} par_run;

void sinew__par_lock(const sinew_graph_t *g) {
  if (g->par) uv_mutex_lock(&g->par->log);
}

void sinew__par_unlock(const sinew_graph_t *g) {
  if (g->par) uv_mutex_unlock(&g->par->log);
}

static int par_step(par_run *r, uint32_t i, bool skip) {
  pstep *st = &r->pl->steps[i];
  if (st->alone) uv_rwlock_wrlock(&r->rw);
  else uv_rwlock_rdlock(&r->rw);
  unplan(r->g, &st->plug);
  int rc = SINEW_OK;
  if (!skip) {
    tl_shared = !st->alone;
    tl_node = st->plug.node.index;
    rc = finish(r->g, &st->plug);
    tl_shared = false;
  }
  if (st->alone) uv_rwlock_wrunlock(&r->rw);
  else uv_rwlock_rdunlock(&r->rw);
  return rc;
}

static void par_worker(void *ud, size_t begin, size_t end) {
  par_run *r = ud;
  for (size_t item = begin; item < end; item++) {
    tl_stats = &r->stats[item];
    uv_mutex_lock(&r->m);
    for (;;) {
      if (r->head < r->tail) {
        uint32_t i = r->ready[r->head++];
        bool skip = r->rc != SINEW_OK; /* after a failure the rest only lose their marks */
        uv_mutex_unlock(&r->m);
        int rc = par_step(r, i, skip);
        uv_mutex_lock(&r->m);
        if (rc && !r->rc) r->rc = rc;
        r->done++;
        const pstep *st = &r->pl->steps[i];
        for (uint32_t k = 0; k < st->count; k++) {
          pstep *d = &r->pl->steps[r->pl->out[st->first + k]];
          if (--d->waiting == 0) r->ready[r->tail++] = r->pl->out[st->first + k];
        }
        if (r->head < r->tail || r->done == r->pl->n) uv_cond_broadcast(&r->cv);
        continue;
      }
      if (r->done == r->pl->n) break;
      uv_cond_wait(&r->cv, &r->m);
    }
    uv_mutex_unlock(&r->m);
    tl_stats = NULL;
  }
}

static int run_plan(sinew_graph_t *g, plan *pl, int threads) {
  par_run r = {.g = g, .pl = pl, .rc = SINEW_OK};
  r.ready = sinew__malloc(pl->n * sizeof *r.ready);
  r.stats = sinew__calloc((size_t)threads, sizeof *r.stats);
  if (!r.ready || !r.stats) {
    sinew__free(r.ready);
    sinew__free(r.stats);
    return SINEW_ENOMEM;
  }
  for (uint32_t i = 0; i < pl->n; i++)
    if (!pl->steps[i].waiting) r.ready[r.tail++] = i;
  if (uv_mutex_init(&r.m) || uv_mutex_init(&r.log) || uv_cond_init(&r.cv) || uv_rwlock_init(&r.rw)) abort();
  g->par = &r;
  sinew_pool_run((size_t)threads, 1, par_worker, &r);
  g->par = NULL;
  for (int i = 0; i < threads; i++) {
    g->stats.computes += r.stats[i].computes;
    g->stats.copies += r.stats[i].copies;
    g->stats.inputs_checked += r.stats[i].inputs_checked;
  }
  uv_rwlock_destroy(&r.rw);
  uv_cond_destroy(&r.cv);
  uv_mutex_destroy(&r.log);
  uv_mutex_destroy(&r.m);
  sinew__free(r.ready);
  sinew__free(r.stats);
  return r.rc;
}

int sinew_evaluate_parallel(sinew_graph_t *g, const sinew_plug_t *plugs, size_t count) {
  if (!g) return SINEW_EINVAL;
  if (count && !plugs) return sinew_graph_fail(g, SINEW_EINVAL, "evaluate", "no plugs given");
  for (size_t i = 0; i < count; i++) {
    int rc = sinew__plug_check(g, &plugs[i], "evaluate", NULL);
    if (rc) return rc;
  }
  int threads = sinew_pool_threads();
  if (threads <= 1 || g->eval_depth || g->par) { /* serial, or called from inside a compute */
    for (size_t i = 0; i < count; i++) {
      int rc = sinew__pull(g, &plugs[i]);
      if (rc) return rc;
    }
    return SINEW_OK;
  }
  sinew__pool_nudge(); /* the workers wake while the schedule is made */
  plan pl = {0};
  pull_ctx pc = {.st = NULL, .n = 0, .cap = 32, .cur = NO_FRAME, .next_id = 0, .pl = &pl};
  pc.st = pc.local;
  int rc = SINEW_OK;
  g->eval_depth++;
  for (size_t i = 0; i < count && !rc; i++) {
    pc.cur = NO_FRAME;
    rc = need(g, &pc, &plugs[i]);
    if (!rc) rc = run_stack(g, &pc);
  }
  for (uint32_t i = 0; i < pc.n; i++) set_busy(g, &pc.st[i].plug, false);
  if (pc.st != pc.local) sinew__free(pc.st);
  if (!rc && pl.n) rc = plan_link(&pl);
  if (rc) {
    plan_free(g, &pl, 0);
    g->eval_depth--;
    return sinew_graph_fail(g, rc, "evaluate", "%s while scheduling", sinew_strerror(rc));
  }
  if (pl.n) rc = run_plan(g, &pl, threads);
  plan_free(g, &pl, rc ? 0 : pl.n); /* after a failure, no mark may stay behind */
  g->eval_depth--;
  if (rc) return sinew_graph_fail(g, rc, "evaluate", "%s", sinew_strerror(rc));
  return SINEW_OK;
}

int sinew_dirty(sinew_graph_t *g, const sinew_plug_t *p) {
  int rc = sinew__plug_check(g, p, "dgdirty", NULL);
  if (!rc) rc = sinew__check_mutable(g, "dgdirty");
  return rc ? rc : sinew__mark_dirty(g, p);
}

/* ---- setters --------------------------------------------------------------------------------- */

typedef enum want_kind { WANT_NUMBER, WANT_NUMBERS, WANT_MATRIX, WANT_STRING, WANT_DATA } want_kind;

static bool numeric_compound(sinew_graph_t *g, sinew__node *n, const sinew__attr *a) {
  if (a->type != SINEW_ATTR_COMPOUND || !a->nchildren) return false;
  for (uint32_t i = 0; i < a->nchildren; i++) {
    const sinew__attr *c = sinew__attr_get(g, n, a->children[i]);
    if (!sinew_attr_type_is_numeric(c->type) || (c->flags & SINEW_ATTR_ARRAY)) return false;
  }
  return true;
}

static bool kind_ok(sinew_graph_t *g, sinew__node *n, const sinew__attr *a, want_kind k) {
  switch (k) {
    case WANT_NUMBER: return sinew_attr_type_is_numeric(a->type);
    case WANT_NUMBERS: return numeric_compound(g, n, a) || sinew_attr_type_is_numeric(a->type);
    case WANT_MATRIX: return a->type == SINEW_ATTR_MATRIX;
    case WANT_STRING: return a->type == SINEW_ATTR_STRING;
    case WANT_DATA: return a->type == SINEW_ATTR_DATA;
  }
  return false;
}

static const char *kind_name(want_kind k) {
  static const char *names[] = {"a number", "numbers", "a matrix", "a string", "data"};
  return names[k];
}

static int check_set_of(sinew_graph_t *g, const sinew_plug_t *p, want_kind k, sinew__node **out_n,
                        const sinew__attr **out_a);

/* Everything that can refuse a set of plug p (a value of kind k), before anything is made; a
 * refusal names p as its subject. */
static int check_set(sinew_graph_t *g, const sinew_plug_t *p, want_kind k, sinew__node **out_n,
                     const sinew__attr **out_a) {
  int rc = check_set_of(g, p, k, out_n, out_a);
  if (rc) sinew__error_plug(g, p);
  return rc;
}

static int check_set_of(sinew_graph_t *g, const sinew_plug_t *p, want_kind k, sinew__node **out_n,
                        const sinew__attr **out_a) {
  sinew__node *n;
  int rc = sinew__plug_check(g, p, "setAttr", &n);
  if (!rc) rc = sinew__check_mutable(g, "setAttr");
  if (rc) return rc;
  const sinew__attr *a = sinew__attr_get(g, n, p->attr);
  char buf[256]; /* the plug's name, made only for a refusal */
#define NAME sinew__plug_str(g, p, buf, sizeof buf)
  if (plug_whole(a, p))
    return sinew_graph_fail(g, SINEW_EINVAL, "setAttr", "%s is an array; give an index", NAME);
  if (!kind_ok(g, n, a, k))
    return sinew_graph_fail(g, SINEW_ETYPE, "setAttr", "%s is of type %s, not %s", NAME,
                            sinew_attr_type_name(a->type), kind_name(k));
  if (!(a->flags & SINEW_ATTR_WRITABLE))
    return sinew_graph_fail(g, SINEW_EREADONLY, "setAttr", "%s is an output and cannot be set", NAME);
  if (sinew_plug_locked(g, p)) return sinew_graph_fail(g, SINEW_ELOCKED, "setAttr", "%s is locked", NAME);
  sinew_plug_t dst;
  if (feeding(g, n, p, &dst)) {
    char sb[256];
    sinew_plug_t src;
    sinew_plug_source(g, &dst, &src);
    return sinew_graph_fail(g, SINEW_ECONNECTED, "setAttr", "%s is connected from %s and cannot be set", NAME,
                            sinew__plug_str(g, &src, sb, sizeof sb));
  }
#undef NAME
  *out_n = n;
  *out_a = a;
  return SINEW_OK;
}

/* After check_set: reserves the propagation and makes the plug's slot (and any array element
 * on its path). On failure nothing is left behind. */
static int prepare_set_k(sinew_graph_t *g, sinew__node *n, const sinew_plug_t *p, sinew__slot **out_s,
                         uint32_t nvalues) {
  char buf[256];
  bool jon = sinew__jon(g);
  sinew__created made = {.n = 0};
  if (sinew__reserve_push(g) || (jon && sinew__jreserve(g, p->nidx + nvalues)) ||
      sinew__slot_ensure(g, n, p, out_s, NULL, &made))
    return sinew_graph_fail(g, SINEW_ENOMEM, "setAttr", "%s: out of memory",
                            sinew__plug_str(g, p, buf, sizeof buf));
  if (jon) sinew__jrec_created(g, &made);
  return SINEW_OK;
}

static int prepare_set(sinew_graph_t *g, sinew__node *n, const sinew_plug_t *p, sinew__slot **out_s) {
  return prepare_set_k(g, n, p, out_s, 1);
}

/* Journal: the value about to be replaced goes into a record (its storage with it: the caller
 * gives the slot new storage instead of reusing or freeing the old). */
static void jrec_value(sinew_graph_t *g, const sinew_plug_t *p, int vkind, sinew__slot *s) {
  sinew__rec *r = sinew__jpush(g, SINEW__J_VALUE);
  r->plug = sinew__plug_key(p);
  r->vkind = (uint8_t)vkind;
  r->bits = s->flags & (SINEW__F_SET | SINEW__F_WIDE);
  switch (vkind) {
    case SINEW__JV_NUMBER: /* a generic numeric slot's numbers move into the record */
      if (s->flags & SINEW__F_WIDE) {
        r->u.gen = s->v.g;
        s->v.d = 0;
        s->flags &= ~(uint32_t)SINEW__F_WIDE;
      } else {
        r->u.d = s->v.d;
      }
      break;
    case SINEW__JV_MATRIX: r->u.m = s->v.m; s->v.m = NULL; break;
    case SINEW__JV_STRING: r->u.s = s->v.s; s->v.s = NULL; break;
    default: r->u.data = s->v.data; s->v.data = NULL; break;
  }
}

static int check_range(sinew_graph_t *g, const sinew__attr *a, const sinew_plug_t *p, double v) {
  char buf[256];
  if (!isfinite(v) && a->type != SINEW_ATTR_DOUBLE && a->type != SINEW_ATTR_FLOAT &&
      a->type != SINEW_ATTR_DISTANCE && a->type != SINEW_ATTR_ANGLE && a->type != SINEW_ATTR_TIME)
    return sinew_graph_fail(g, SINEW_ERANGE, "setAttr", "%s: %g is not a valid %s",
                            sinew__plug_str(g, p, buf, sizeof buf), v, sinew_attr_type_name(a->type));
  if ((a->has_min && v < a->min_value) || (a->has_max && v > a->max_value))
    return sinew_graph_fail(g, SINEW_ERANGE, "setAttr", "%s: %g is outside [%g, %g]",
                            sinew__plug_str(g, p, buf, sizeof buf), v, a->has_min ? a->min_value : -INFINITY,
                            a->has_max ? a->max_value : INFINITY);
  return SINEW_OK;
}

static double normalise(const sinew__attr *a, double v) {
  switch (a->type) {
    case SINEW_ATTR_BOOL: return v != 0.0 ? 1.0 : 0.0;
    case SINEW_ATTR_INT:
    case SINEW_ATTR_ENUM: return nearbyint(v);
    case SINEW_ATTR_FLOAT: return (double)(float)v;
    default: return v;
  }
}

/* sinew_set_double of one inner element of a two-level multi (weightList[v].weights[i]): an
 * in-place edit. 1 when the plug is not such an element or its multi is not held so. */
static int set_one_csr(sinew_graph_t *g, sinew__node *n, const sinew__attr *a, const sinew_plug_t *p, double v) {
  const sinew__attr *oa = p->nidx >= 2 ? sinew__csr_outer_attr(g, n, a) : NULL;
  if (!oa || p->nidx != a->array_depth || p->nidx != oa->array_depth + 1) return 1;
  sinew_plug_t outer = sinew_plug_make(p->node, oa->id, p->nidx - 2, p->idx);
  sinew__slot *c = slot_of(g, n, &outer, NULL);
  if (!c || !sinew__multi_csr(c->v.multi)) return 1;
  char buf[256];
  if (sinew__reserve_push(g) || (sinew__jon(g) && sinew__jreserve(g, 2)))
    return sinew_graph_fail(g, SINEW_ENOMEM, "setAttr", "%s: out of memory", sinew__plug_str(g, p, buf, sizeof buf));
  int rc = sinew__edit_csr(g, a, &outer, c, p->idx[p->nidx - 2], SINEW__CSR_SET, &p->idx[p->nidx - 1], &v, 1);
  if (rc == SINEW_ENOMEM)
    return sinew_graph_fail(g, rc, "setAttr", "%s: out of memory", sinew__plug_str(g, p, buf, sizeof buf));
  return rc ? rc : sinew__changed(g, p);
}

int sinew_set_double(sinew_graph_t *g, const sinew_plug_t *p, double v) {
  sinew__node *n = NULL;
  const sinew__attr *a = NULL;
  sinew__slot *s = NULL;
  int rc = check_set(g, p, WANT_NUMBER, &n, &a);
  if (!rc) rc = check_range(g, a, p, v);
  if (rc) return rc;
  if (!a->computed && !(a->flags & SINEW_ATTR_GENERIC_NUMERIC) && (rc = set_one_csr(g, n, a, p, v)) <= 0)
    return rc;
  if ((rc = prepare_set(g, n, p, &s))) return rc;
  if (sinew__jon(g)) jrec_value(g, p, SINEW__JV_NUMBER, s);
  sinew__slot_put_num(s, normalise(a, v));
  s->flags |= SINEW__F_SET;
  return sinew__changed(g, p);
}

int sinew_set_int(sinew_graph_t *g, const sinew_plug_t *p, int64_t v) {
  return sinew_set_double(g, p, (double)v);
}

int sinew_set_bool(sinew_graph_t *g, const sinew_plug_t *p, bool v) {
  return sinew_set_double(g, p, v ? 1.0 : 0.0);
}

int sinew_set_doubles(sinew_graph_t *g, const sinew_plug_t *p, const double *values, size_t count) {
  sinew__node *n = NULL;
  const sinew__attr *a = NULL;
  sinew__slot *s = NULL;
  if (!values) return g ? sinew_graph_fail(g, SINEW_EINVAL, "setAttr", "no values given") : SINEW_EINVAL;
  int rc = check_set(g, p, WANT_NUMBERS, &n, &a);
  if (rc) return rc;
  /* Everything is checked before anything (an array element included) is made. */
  size_t k = a->type != SINEW_ATTR_COMPOUND ? 1 : (count < a->nchildren ? count : a->nchildren);
  char buf[256];
  if (count < 1)
    rc = sinew_graph_fail(g, SINEW_EINVAL, "setAttr", "%s: no values given",
                          sinew__plug_str(g, p, buf, sizeof buf));
  for (size_t i = 0; !rc && i < k; i++) {
    if (a->type != SINEW_ATTR_COMPOUND) {
      rc = check_range(g, a, p, values[0]);
      break;
    }
    const sinew__attr *c = sinew__attr_get(g, n, a->children[i]);
    sinew_plug_t cp;
    sinew_plug_child(g, p, c->id, &cp);
    if ((rc = check_range(g, c, &cp, values[i]))) break;
    /* a child that is itself locked or connected refuses the whole set */
    if (sinew_plug_locked(g, &cp))
      rc = sinew_graph_fail(g, SINEW_ELOCKED, "setAttr", "%s is locked",
                            sinew__plug_str(g, &cp, buf, sizeof buf));
    else if (sinew__conn_to(g, &cp))
      rc = sinew_graph_fail(g, SINEW_ECONNECTED, "setAttr", "%s is connected and cannot be set",
                            sinew__plug_str(g, &cp, buf, sizeof buf));
  }
  if (!rc) rc = prepare_set_k(g, n, p, &s, (uint32_t)k);
  if (rc) return rc;
  bool jon = sinew__jon(g);
  if (a->type != SINEW_ATTR_COMPOUND) {
    if (jon) jrec_value(g, p, SINEW__JV_NUMBER, s);
    sinew__slot_put_num(s, normalise(a, values[0]));
    s->flags |= SINEW__F_SET;
    return sinew__changed(g, p);
  }
  for (size_t i = 0; i < k; i++) {
    const sinew__attr *c = sinew__attr_get(g, n, a->children[i]);
    if (jon) {
      sinew_plug_t cp;
      sinew_plug_child(g, p, c->id, &cp);
      jrec_value(g, &cp, SINEW__JV_NUMBER, &s->v.kids[i]);
    }
    sinew__slot_put_num(&s->v.kids[i], normalise(c, values[i]));
    s->v.kids[i].flags |= SINEW__F_SET;
  }
  return sinew__changed(g, p);
}

int sinew_set_matrix(sinew_graph_t *g, const sinew_plug_t *p, const sinew_mat4_t *m) {
  sinew__node *n = NULL;
  const sinew__attr *a = NULL;
  sinew__slot *s = NULL;
  if (!m) return g ? sinew_graph_fail(g, SINEW_EINVAL, "setAttr", "no matrix given") : SINEW_EINVAL;
  int rc = check_set(g, p, WANT_MATRIX, &n, &a);
  if (rc) return rc;
  /* The storage is made before the slot, so that nothing needs taking back. */
  sinew__slot *had = slot_of(g, n, p, NULL);
  bool reuse = had && had->v.m && !sinew__jon(g); /* the journal keeps the old matrix */
  sinew_mat4_t *fresh = reuse ? NULL : sinew__malloc(sizeof *fresh);
  if (!reuse && !fresh) {
    char buf[256];
    return sinew_graph_fail(g, SINEW_ENOMEM, "setAttr", "%s: out of memory",
                            sinew__plug_str(g, p, buf, sizeof buf));
  }
  if ((rc = prepare_set(g, n, p, &s))) {
    sinew__free(fresh);
    return rc;
  }
  if (sinew__jon(g)) jrec_value(g, p, SINEW__JV_MATRIX, s);
  if (fresh) {
    sinew__free(s->v.m); /* a slot's matrix kept while unjournaled: none, or the journal took it */
    s->v.m = fresh;
  }
  *s->v.m = *m;
  s->flags |= SINEW__F_SET;
  return sinew__changed(g, p);
}

int sinew_set_string(sinew_graph_t *g, const sinew_plug_t *p, const char *v) {
  sinew__node *n = NULL;
  const sinew__attr *a = NULL;
  sinew__slot *s = NULL;
  int rc = check_set(g, p, WANT_STRING, &n, &a);
  if (rc) return rc;
  char *copy = v ? sinew__strdup(v) : NULL;
  if (v && !copy) {
    char buf[256];
    return sinew_graph_fail(g, SINEW_ENOMEM, "setAttr", "%s: out of memory",
                            sinew__plug_str(g, p, buf, sizeof buf));
  }
  if ((rc = prepare_set(g, n, p, &s))) {
    sinew__free(copy);
    return rc;
  }
  if (sinew__jon(g)) jrec_value(g, p, SINEW__JV_STRING, s);
  sinew__free(s->v.s);
  s->v.s = copy;
  s->flags |= SINEW__F_SET;
  return sinew__changed(g, p);
}

int sinew_set_data(sinew_graph_t *g, const sinew_plug_t *p, sinew_data_t *d) {
  sinew__node *n = NULL;
  const sinew__attr *a = NULL;
  sinew__slot *s = NULL;
  int rc = check_set(g, p, WANT_DATA, &n, &a);
  if (rc) return rc;
  if (d && a->data_type && a->data_type != sinew_data_type(d)) {
    char buf[256];
    return sinew_graph_fail(g, SINEW_ETYPE, "setAttr", "%s holds %s data, not %s",
                            sinew__plug_str(g, p, buf, sizeof buf), a->data_type->name,
                            sinew_data_type(d)->name);
  }
  if ((rc = prepare_set(g, n, p, &s))) return rc;
  sinew_data_t *ref = d ? sinew_data_ref(d) : NULL;
  if (sinew__jon(g)) jrec_value(g, p, SINEW__JV_DATA, s);
  sinew_data_unref(s->v.data);
  s->v.data = ref;
  s->flags |= SINEW__F_SET;
  return sinew__changed(g, p);
}

/* The journal's last record, when it is a whole-multi record of plug arr made inside the
 * innermost open transaction: a later change of that multi is taken back with it. */
static bool last_record_holds(const sinew_graph_t *g, const sinew_plug_t *arr, bool csr_too) {
  const sinew__journal *j = &g->jr;
  if (!j->depth || !j->n || j->n - 1 < j->marks[j->depth - 1]) return false;
  const sinew__rec *r = &j->recs[j->n - 1];
  sinew_plug_t key = sinew__plug_key(arr);
  return (r->kind == SINEW__J_MULTI || (csr_too && r->kind == SINEW__J_CSR)) &&
         !memcmp(&r->plug, &key, sizeof key);
}

/* See internal.h: a MULTI record with the header from before unless the last record of the
 * innermost transaction already is one of this multi (or a CSR record on top of one), then the
 * CSR record. */
int sinew__edit_csr(sinew_graph_t *g, const sinew__attr *ia, const sinew_plug_t *outer, sinew__slot *c,
                    int32_t index, int op, const int32_t *idx, const double *values, size_t count) {
  bool jon = sinew__jon(g);
  sinew__multi *old = NULL;
  sinew__csr_run run;
  int rc = sinew__multi_csr_edit(ia, c, index, op, idx, values, count, normalise, jon,
                                 jon && !last_record_holds(g, outer, true), &old, &run);
  if (rc) return rc;
  if (old) {
    sinew__rec *r = sinew__jpush(g, SINEW__J_MULTI);
    r->plug = sinew__plug_key(outer);
    r->u.multi = old;
  }
  if (run.c) {
    sinew__rec *r = sinew__jpush(g, SINEW__J_CSR);
    r->plug = sinew__plug_key(outer);
    r->u.run = run;
  }
  return 0;
}

/* sinew_set_double_elements into element v of a multi of compounds held two-level
 * (weightList[v].weights, graph/slot.c). v past its last element: the numbers are appended to
 * the shared arrays; one journal record keeps the header from before (a run of appends inside
 * one transaction shares it). Otherwise (v exists, or comes before the last) the element is
 * edited in place (edit_csr). 1 when the multi is not held so (the caller goes on with the
 * leaf multi). */
static int set_csr(sinew_graph_t *g, sinew__node *n, const sinew__attr *a, const sinew_plug_t *arr,
                   const int32_t *idx, const double *values, size_t count, bool jon, const char *buf) {
  const sinew__attr *oa = sinew__csr_outer_attr(g, n, a);
  if (!oa || arr->nidx != oa->array_depth) return 1;
  sinew_plug_t outer = sinew_plug_make(arr->node, oa->id, arr->nidx - 1, arr->idx);
  sinew__slot_path path;
  sinew__created made = {.n = 0};
  sinew__slot *c = slot_of(g, n, &outer, &path);
  if (c && ((c->v.multi && !c->v.multi->csr) || sinew__slot_dirtyish(c))) return 1;
  if (!c && sinew__slot_ensure(g, n, &outer, &c, &path, &made))
    return sinew_graph_fail(g, SINEW_ENOMEM, "setAttr", "%s: out of memory", buf);
  int32_t v = arr->idx[arr->nidx - 1];
  /* An append writes in place past the end: not while a record would shift the arrays (its
   * room and positions assume every later change is a record too). */
  sinew__multi *m = c ? c->v.multi : NULL;
  if (m && ((m->count && m->idx[m->count - 1] >= v) || m->csr->shifting)) {
    int rc = sinew__edit_csr(g, a, &outer, c, v, SINEW__CSR_SET, idx, values, count);
    if (rc == SINEW_ENOMEM) return sinew_graph_fail(g, rc, "setAttr", "%s: out of memory", buf);
    return rc ? rc : sinew__changed(g, arr);
  }
  bool keep = jon && !last_record_holds(g, &outer, false);
  sinew__multi *old = NULL;
  int rc = sinew__multi_csr_append(a, c, v, idx, values, count, normalise, keep, &old);
  if (rc) {
    sinew__slot_unensure(g, n, &made);
    return rc == SINEW_ENOMEM ? sinew_graph_fail(g, rc, "setAttr", "%s: out of memory", buf) : 1;
  }
  if (jon) sinew__jrec_created(g, &made);
  if (keep) {
    sinew__rec *r = sinew__jpush(g, SINEW__J_MULTI);
    r->plug = sinew__plug_key(&outer);
    r->u.multi = old;
  }
  return sinew__changed(g, arr);
}

/* sinew_set_double_elements into a multi that is absent or packed (graph/slot.c) and not dirty:
 * a new packed multi replaces it whole, one journal record keeping the old one. 1 when the multi
 * is in slot form or dirty (the caller sets element by element). */
static int set_packed(sinew_graph_t *g, sinew__node *n, const sinew__attr *a, const sinew_plug_t *arr,
                      const int32_t *idx, const double *values, size_t count, bool jon, const char *buf) {
  sinew__slot_path path;
  sinew__created made = {.n = 0};
  sinew__slot *c = slot_of(g, n, arr, &path);
  if (c && ((c->v.multi && !c->v.multi->vals) || sinew__slot_dirtyish(c))) return 1;
  if (!c && sinew__slot_ensure(g, n, arr, &c, &path, &made))
    return sinew_graph_fail(g, SINEW_ENOMEM, "setAttr", "%s: out of memory", buf);
  sinew__multi *old = NULL;
  int rc = sinew__multi_set_packed(a, c, idx, values, count, normalise, &old);
  if (rc) {
    sinew__slot_unensure(g, n, &made);
    return rc == SINEW_ENOMEM ? sinew_graph_fail(g, rc, "setAttr", "%s: out of memory", buf) : 1;
  }
  if (jon) {
    sinew__jrec_created(g, &made);
    sinew__rec *r = sinew__jpush(g, SINEW__J_MULTI);
    r->plug = sinew__plug_key(arr);
    r->u.multi = old;
  } else {
    sinew__multi_free_packed(old);
  }
  return sinew__changed(g, arr);
}

int sinew_set_double_elements(sinew_graph_t *g, const sinew_plug_t *arr, const int32_t *idx,
                              const double *values, size_t count) {
  sinew__node *n;
  int rc = sinew__plug_check(g, arr, "setAttr", &n);
  if (!rc) rc = sinew__check_mutable(g, "setAttr");
  if (rc) return rc;
  if (count && (!idx || !values)) return sinew_graph_fail(g, SINEW_EINVAL, "setAttr", "no values given");
  const sinew__attr *a = sinew__attr_get(g, n, arr->attr);
  char buf[256];
  sinew__plug_str(g, arr, buf, sizeof buf);
  if (!plug_whole(a, arr) || !sinew_attr_type_is_numeric(a->type))
    return sinew_graph_fail(g, SINEW_ETYPE, "setAttr", "%s is not a numeric array", buf);
  if (!(a->flags & SINEW_ATTR_WRITABLE))
    return sinew_graph_fail(g, SINEW_EREADONLY, "setAttr", "%s is an output and cannot be set", buf);
  if (sinew_plug_locked(g, arr)) return sinew_graph_fail(g, SINEW_ELOCKED, "setAttr", "%s is locked", buf);
  sinew_plug_t fed;
  if (feeding(g, n, arr, &fed))
    return sinew_graph_fail(g, SINEW_ECONNECTED, "setAttr", "%s is connected and cannot be set", buf);
  for (size_t i = 0; i < count; i++) {
    if (idx[i] < 0) return sinew_graph_fail(g, SINEW_ERANGE, "setAttr", "%s: negative index %d", buf, idx[i]);
    sinew_plug_t e;
    sinew_plug_element(g, arr, idx[i], &e);
    if ((rc = check_range(g, a, &e, values[i]))) return rc;
    if (sinew_plug_locked(g, &e)) /* an element locked on its own */
      return sinew_graph_fail(g, SINEW_ELOCKED, "setAttr", "%s[%d] is locked", buf, idx[i]);
    if (sinew__conn_to(g, &e))
      return sinew_graph_fail(g, SINEW_ECONNECTED, "setAttr", "%s[%d] is connected and cannot be set", buf,
                              idx[i]);
  }
  bool jon = sinew__jon(g); /* a value and at most one element per index, and the arrays above */
  if (sinew__reserve_push(g) ||
      (jon && (count > UINT32_MAX / 4 || sinew__jreserve(g, (uint32_t)(2 * count + SINEW_PLUG_MAX_INDICES)))))
    return sinew_graph_fail(g, SINEW_ENOMEM, "setAttr", "%s: out of memory", buf);
  if (count && !a->computed && !(a->flags & SINEW_ATTR_GENERIC_NUMERIC)) {
    rc = set_csr(g, n, a, arr, idx, values, count, jon, buf);
    if (rc <= 0) return rc;
    rc = set_packed(g, n, a, arr, idx, values, count, jon, buf);
    if (rc <= 0) return rc;
    rc = SINEW_OK; /* in slot form: element by element */
  }
  /* Make every element first, remembering each one made (the arrays above the elements too,
   * "wl[v]" for "wl[v].w"), so that a failure changes nothing. */
  size_t cap = count + SINEW_PLUG_MAX_INDICES;
  sinew_plug_t *made = sinew__malloc(cap * sizeof *made);
  if (!made) return sinew_graph_fail(g, SINEW_ENOMEM, "setAttr", "%s: out of memory", buf);
  size_t nmade = 0;
  sinew__slot *s;
  for (size_t i = 0; i < count && !rc; i++) {
    sinew_plug_t e;
    sinew_plug_element(g, arr, idx[i], &e);
    if (slot_of(g, n, &e, NULL)) continue;
    sinew__created one = {.n = 0};
    rc = sinew__slot_ensure(g, n, &e, &s, NULL, &one);
    for (uint32_t k = 0; k < one.n && nmade < cap; k++) made[nmade++] = one.elems[k];
  }
  if (rc) {
    for (size_t i = nmade; i-- > 0;) { /* innermost last made, so first taken back */
      sinew__created one = {.elems = {made[i]}, .n = 1};
      sinew__slot_unensure(g, n, &one);
    }
    sinew__free(made);
    return sinew_graph_fail(g, rc, "setAttr", "%s: out of memory", buf);
  }
  if (jon) { /* made holds the elements outermost first, as an ensure reports them */
    sinew__created one = {.n = 0};
    for (size_t i = 0; i < nmade; i++) {
      one.elems[one.n++] = made[i];
      if (one.n == SINEW_PLUG_MAX_INDICES * 2 || i + 1 == nmade) {
        sinew__jrec_created(g, &one);
        one.n = 0;
      }
    }
  }
  sinew__free(made);
  for (size_t i = 0; i < count; i++) {
    sinew_plug_t e;
    sinew_plug_element(g, arr, idx[i], &e);
    s = slot_of(g, n, &e, NULL);
    if (jon) jrec_value(g, &e, SINEW__JV_NUMBER, s);
    sinew__slot_put_num(s, normalise(a, values[i]));
    s->flags |= SINEW__F_SET;
  }
  return sinew__changed(g, arr);
}

/* ---- getters --------------------------------------------------------------------------------- */

static int begin_get(sinew_graph_t *g, const sinew_plug_t *p, want_kind k, sinew__node **out_n,
                     const sinew__attr **out_a, sinew__slot **out_s) {
  sinew__node *n;
  int rc = sinew__plug_check(g, p, "getAttr", &n);
  if (rc) return rc;
  const sinew__attr *a = sinew__attr_get(g, n, p->attr);
  char buf[256];
  if (plug_whole(a, p)) /* read a whole array with sinew_get_double_elements */
    return sinew_graph_fail(g, SINEW_EINVAL, "getAttr", "%s is an array; give an index",
                            sinew__plug_str(g, p, buf, sizeof buf));
  if (!kind_ok(g, n, a, k))
    return sinew_graph_fail(g, SINEW_ETYPE, "getAttr", "%s is of type %s, not %s",
                            sinew__plug_str(g, p, buf, sizeof buf), sinew_attr_type_name(a->type),
                            kind_name(k));
  rc = sinew__pull(g, p);
  if (rc) return rc;
  n = sinew__node_get(g, p->node);
  if (!n) return sinew_graph_fail(g, SINEW_ESTALE, "getAttr", "the node was deleted during evaluation");
  *out_n = n;
  *out_a = sinew__attr_get(g, n, p->attr);
  /* an element held packed is read where it is: a slot of its number for the caller */
  static _Thread_local sinew__slot one;
  sinew__multi *pm;
  uint32_t pos;
  *out_s = p->nidx ? sinew__slot_peek(g, n, p, NULL, &pm, &pos) : slot_of(g, n, p, NULL);
  if (p->nidx && pm) {
    one = (sinew__slot){.v.d = pm->vals[pos], .flags = pm->eflags};
    *out_s = &one;
  }
  return SINEW_OK;
}

int sinew_get_double(sinew_graph_t *g, const sinew_plug_t *p, double *out) {
  sinew__node *n = NULL;
  const sinew__attr *a = NULL;
  sinew__slot *s = NULL;
  int rc = begin_get(g, p, WANT_NUMBER, &n, &a, &s);
  if (rc) return rc;
  if (out) *out = s ? sinew__slot_num(s) : a->dflt;
  return SINEW_OK;
}

int sinew_get_int(sinew_graph_t *g, const sinew_plug_t *p, int64_t *out) {
  double d;
  int rc = sinew_get_double(g, p, &d);
  if (!rc && out) *out = (int64_t)llround(d);
  return rc;
}

int sinew_get_bool(sinew_graph_t *g, const sinew_plug_t *p, bool *out) {
  double d;
  int rc = sinew_get_double(g, p, &d);
  if (!rc && out) *out = d != 0.0;
  return rc;
}

int sinew_get_doubles(sinew_graph_t *g, const sinew_plug_t *p, double *out, size_t count,
                      size_t *out_n) {
  sinew__node *n = NULL;
  const sinew__attr *a = NULL;
  sinew__slot *s = NULL;
  int rc = begin_get(g, p, WANT_NUMBERS, &n, &a, &s);
  if (rc) return rc;
  if (a->type != SINEW_ATTR_COMPOUND) {
    if (count && out) out[0] = s ? sinew__slot_num(s) : a->dflt;
    if (out_n) *out_n = 1;
    return SINEW_OK;
  }
  for (uint32_t i = 0; out && i < a->nchildren && i < count; i++) {
    const sinew__attr *c = sinew__attr_get(g, n, a->children[i]);
    out[i] = s && s->v.kids ? sinew__slot_num(&s->v.kids[i]) : c->dflt;
  }
  if (out_n) *out_n = a->nchildren;
  return SINEW_OK;
}

int sinew_get_matrix(sinew_graph_t *g, const sinew_plug_t *p, sinew_mat4_t *out) {
  sinew__node *n = NULL;
  const sinew__attr *a = NULL;
  sinew__slot *s = NULL;
  int rc = begin_get(g, p, WANT_MATRIX, &n, &a, &s);
  if (rc) return rc;
  if (out) {
    if (s && s->v.m) *out = *s->v.m;
    else sinew_mat4_identity(out);
  }
  return SINEW_OK;
}

int sinew_get_string(sinew_graph_t *g, const sinew_plug_t *p, const char **out) {
  sinew__node *n = NULL;
  const sinew__attr *a = NULL;
  sinew__slot *s = NULL;
  int rc = begin_get(g, p, WANT_STRING, &n, &a, &s);
  if (rc) return rc;
  if (out) *out = s && s->v.s ? s->v.s : "";
  return SINEW_OK;
}

int sinew_get_data(sinew_graph_t *g, const sinew_plug_t *p, sinew_data_t **out) {
  sinew__node *n = NULL;
  const sinew__attr *a = NULL;
  sinew__slot *s = NULL;
  int rc = begin_get(g, p, WANT_DATA, &n, &a, &s);
  if (rc) return rc;
  if (out) *out = s && s->v.data ? sinew_data_ref(s->v.data) : NULL;
  return SINEW_OK;
}

int sinew_get_double_elements(sinew_graph_t *g, const sinew_plug_t *arr, int32_t *idx, double *values,
                              size_t cap, size_t *out_count) {
  sinew__node *n;
  int rc = sinew__plug_check(g, arr, "getAttr", &n);
  if (rc) return rc;
  const sinew__attr *a = sinew__attr_get(g, n, arr->attr);
  char buf[256];
  if (!plug_whole(a, arr) || !sinew_attr_type_is_numeric(a->type))
    return sinew_graph_fail(g, SINEW_ETYPE, "getAttr", "%s is not a numeric array",
                            sinew__plug_str(g, arr, buf, sizeof buf));
  if ((rc = sinew__pull(g, arr))) return rc;
  n = sinew__node_get(g, arr->node);
  sinew__multi *pm;
  uint32_t pos;
  sinew__slot *s = arr->nidx ? sinew__slot_peek(g, n, arr, NULL, &pm, &pos) : slot_of(g, n, arr, NULL);
  const sinew__multi *m = s ? s->v.multi : NULL; /* two-level: a view, not unpacked */
  uint32_t count = m ? m->count : 0;
  for (uint32_t i = 0; i < count && i < cap; i++) {
    if (idx) idx[i] = m->idx[i];
    if (values) values[i] = sinew__multi_elem_num(m, i);
  }
  if (out_count) *out_count = count;
  return SINEW_OK;
}

/* ---- generic numeric attributes ---------------------------------------------------------------- */

int sinew_get_generic(sinew_graph_t *g, const sinew_plug_t *p, double *out, size_t cap, size_t *out_n) {
  sinew__node *n;
  int rc = sinew__plug_check(g, p, "getAttr", &n);
  if (rc) return rc;
  const sinew__attr *a = sinew__attr_get(g, n, p->attr);
  char buf[256];
  if (plug_whole(a, p))
    return sinew_graph_fail(g, SINEW_EINVAL, "getAttr", "%s is an array; give an index",
                            sinew__plug_str(g, p, buf, sizeof buf));
  if (a->type == SINEW_ATTR_MATRIX) {
    sinew_mat4_t m;
    if ((rc = sinew_get_matrix(g, p, &m))) return rc;
    for (size_t i = 0; out && i < 16 && i < cap; i++) out[i] = m.m[i / 4][i % 4];
    if (out_n) *out_n = 16;
    return SINEW_OK;
  }
  if (!(a->flags & SINEW_ATTR_GENERIC_NUMERIC)) {
    double v[SINEW_GENERIC_MAX];
    size_t k = 0;
    if (a->type == SINEW_ATTR_COMPOUND && !numeric_compound(g, n, a))
      return sinew_graph_fail(g, SINEW_ETYPE, "getAttr", "%s is of type %s, not numbers",
                              sinew__plug_str(g, p, buf, sizeof buf), sinew_attr_type_name(a->type));
    if ((rc = sinew_get_doubles(g, p, v, SINEW_GENERIC_MAX, &k))) return rc;
    for (size_t i = 0; out && i < k && i < cap && i < SINEW_GENERIC_MAX; i++) out[i] = v[i];
    if (out_n) *out_n = k;
    return SINEW_OK;
  }
  sinew__slot *s;
  const sinew__attr *a2;
  if ((rc = begin_get(g, p, WANT_NUMBER, &n, &a2, &s))) return rc;
  double v[SINEW_GENERIC_MAX];
  uint32_t k = 1;
  if (s) k = sinew__slot_vec(s, v);
  else v[0] = a2->dflt;
  for (uint32_t i = 0; out && i < k && i < cap; i++) out[i] = v[i];
  if (out_n) *out_n = k;
  return SINEW_OK;
}

static int generic_count(sinew_graph_t *g, const sinew_plug_t *p, const double *values, size_t count,
                         const char *what) {
  sinew__node *n;
  int rc = sinew__plug_check(g, p, what, &n);
  if (rc) return rc;
  const sinew__attr *a = sinew__attr_get(g, n, p->attr);
  char buf[256];
  if (!(a->flags & SINEW_ATTR_GENERIC_NUMERIC))
    return sinew_graph_fail(g, SINEW_ETYPE, what, "%s is not a generic numeric attribute",
                            sinew__plug_str(g, p, buf, sizeof buf));
  if (!values || count < 1 || count > SINEW_GENERIC_MAX)
    return sinew_graph_fail(g, values ? SINEW_ERANGE : SINEW_EINVAL, what,
                            "%s takes 1 to %d numbers, not %zu", sinew__plug_str(g, p, buf, sizeof buf),
                            SINEW_GENERIC_MAX, values ? count : (size_t)0);
  for (size_t i = 0; i < count; i++)
    if ((rc = check_range(g, a, p, values[i]))) return rc;
  return SINEW_OK;
}

int sinew_set_generic(sinew_graph_t *g, const sinew_plug_t *p, const double *values, size_t count) {
  int rc = generic_count(g, p, values, count, "setAttr");
  if (rc) return rc;
  sinew__node *n = NULL;
  const sinew__attr *a = NULL;
  sinew__slot *s = NULL;
  if ((rc = check_set(g, p, WANT_NUMBER, &n, &a))) return rc;
  if ((rc = prepare_set(g, n, p, &s))) return rc;
  if (sinew__jon(g)) {
    /* the old numbers go into a record, so new storage is made first: nothing fails after */
    sinew__generic *w = count > 1 ? sinew__malloc(sizeof *w) : NULL;
    if (count > 1 && !w) {
      char buf[256];
      return sinew_graph_fail(g, SINEW_ENOMEM, "setAttr", "%s: out of memory",
                              sinew__plug_str(g, p, buf, sizeof buf));
    }
    jrec_value(g, p, SINEW__JV_NUMBER, s);
    if (w) {
      w->n = count > SINEW_GENERIC_MAX ? SINEW_GENERIC_MAX : (uint32_t)count;
      memcpy(w->v, values, w->n * sizeof *values);
      s->v.g = w;
      s->flags |= SINEW__F_WIDE;
    } else {
      sinew__slot_put_num(s, values[0]);
    }
  } else if ((rc = sinew__slot_put_vec(s, values, (uint32_t)count))) {
    char buf[256];
    return sinew_graph_fail(g, rc, "setAttr", "%s: out of memory", sinew__plug_str(g, p, buf, sizeof buf));
  }
  s->flags |= SINEW__F_SET;
  return sinew__changed(g, p);
}

/* ---- compute context ------------------------------------------------------------------------- */

sinew_graph_t *sinew_compute_graph(sinew_compute_t *ctx) { return ctx ? ctx->graph : NULL; }
sinew_node_t sinew_compute_node(sinew_compute_t *ctx) { return ctx ? ctx->node : (sinew_node_t){0, 0}; }
bool sinew_compute_interrupted(sinew_compute_t *ctx) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  return g && atomic_load_explicit(&g->interrupt, memory_order_relaxed) &&
         atomic_exchange(&g->interrupt, 0);
}

void sinew_graph_interrupt(sinew_graph_t *g) {
  if (g) atomic_store(&g->interrupt, 1);
}

void *sinew_compute_state(sinew_compute_t *ctx) {
  return ctx ? sinew_node_state(ctx->graph, ctx->node) : NULL;
}

/* ---- the fast path: reads by attribute id ------------------------------------------------------ */

/* Where a read by id finds its value: the slot of a top-level attribute or of a child of a
 * top-level compound, neither an array. *s is NULL when the value is the attribute's default
 * (no storage yet); false sends the read through the ordinary getter on the plug. Any other
 * id is refused here, with a message naming the node. */
static int direct_slot(sinew_compute_t *ctx, uint32_t attr, want_kind k, const char *what,
                       const sinew__attr **out_a, sinew__slot **out_s, bool *direct) {
  if (!ctx) return SINEW_EINVAL;
  sinew_graph_t *g = ctx->graph;
  sinew__node *n = sinew__node_get(g, ctx->node);
  if (!n) return sinew_graph_fail(g, SINEW_ESTALE, what, "the node being computed was deleted");
  if (attr >= sinew__node_nattrs(n) || (sinew__attr_get(g, n, attr)->flags & SINEW__ATTR_REMOVED))
    return sinew_graph_fail(g, SINEW_EINVAL, what, "%s (%s) has no attribute #%u", n->name, n->type->name,
                            attr);
  const sinew__attr *a = sinew__attr_get(g, n, attr);
  if (!kind_ok(g, n, a, k))
    return sinew_graph_fail(g, SINEW_ETYPE, what, "%s.%s is of type %s, not %s", n->name, a->name,
                            sinew_attr_type_name(a->type), kind_name(k));
  *out_a = a;
  *direct = false;
  if (a->array_depth) return SINEW_OK;
  sinew__slot *s;
  if (a->parent == SINEW__NO_ATTR) {
    s = &n->slots[a->slot_index];
  } else {
    const sinew__attr *pa = sinew__attr_get(g, n, a->parent);
    if (pa->parent != SINEW__NO_ATTR) return SINEW_OK;
    sinew__slot *ps = &n->slots[pa->slot_index];
    s = ps->v.kids ? &ps->v.kids[a->slot_index] : NULL;
  }
  if (s && (sinew__slot_dirtyish(s) || (s->flags & SINEW__F_BUSY))) return SINEW_OK;
  *out_s = s;
  *direct = true;
  return SINEW_OK;
}

int sinew_compute_get_double(sinew_compute_t *ctx, uint32_t attr, double *out) {
  const sinew__attr *a = NULL;
  sinew__slot *s = NULL;
  bool direct = false;
  int rc = direct_slot(ctx, attr, WANT_NUMBER, "compute read", &a, &s, &direct);
  if (rc) return rc;
  if (!direct) {
    sinew_plug_t p = sinew_plug_make(ctx->node, attr, 0, NULL);
    return sinew_get_double(ctx->graph, &p, out);
  }
  if (out) *out = s ? sinew__slot_num(s) : a->dflt;
  return SINEW_OK;
}

int sinew_compute_get_doubles(sinew_compute_t *ctx, uint32_t attr, double *out, size_t count) {
  const sinew__attr *a = NULL;
  sinew__slot *s = NULL;
  bool direct = false;
  int rc = direct_slot(ctx, attr, WANT_NUMBERS, "compute read", &a, &s, &direct);
  if (rc) return rc;
  if (!direct) {
    sinew_plug_t p = sinew_plug_make(ctx->node, attr, 0, NULL);
    return sinew_get_doubles(ctx->graph, &p, out, count, NULL);
  }
  if (!out) return SINEW_OK;
  if (a->type != SINEW_ATTR_COMPOUND) {
    if (count) out[0] = s ? sinew__slot_num(s) : a->dflt;
    return SINEW_OK;
  }
  sinew__node *n = sinew__node_get(ctx->graph, ctx->node);
  for (uint32_t i = 0; i < a->nchildren && i < count; i++)
    out[i] = s && s->v.kids ? sinew__slot_num(&s->v.kids[i])
                            : sinew__attr_get(ctx->graph, n, a->children[i])->dflt;
  return SINEW_OK;
}

int sinew_compute_get_matrix(sinew_compute_t *ctx, uint32_t attr, sinew_mat4_t *out) {
  const sinew__attr *a = NULL;
  sinew__slot *s = NULL;
  bool direct = false;
  int rc = direct_slot(ctx, attr, WANT_MATRIX, "compute read", &a, &s, &direct);
  if (rc) return rc;
  if (!direct) {
    sinew_plug_t p = sinew_plug_make(ctx->node, attr, 0, NULL);
    return sinew_get_matrix(ctx->graph, &p, out);
  }
  if (out) {
    if (s && s->v.m) *out = *s->v.m;
    else sinew_mat4_identity(out);
  }
  return SINEW_OK;
}

bool sinew_compute_peek_matrix(sinew_compute_t *ctx, uint32_t attr, sinew_mat4_t *out) {
  const sinew__attr *a = NULL;
  sinew__slot *s = NULL;
  bool direct = false;
  if (!ctx) return false;
  sinew__node *n = sinew__node_get(ctx->graph, ctx->node);
  if (!n || attr >= sinew__node_nattrs(n) || sinew__attr_get(ctx->graph, n, attr)->type != SINEW_ATTR_MATRIX)
    return false;
  if (direct_slot(ctx, attr, WANT_MATRIX, "compute read", &a, &s, &direct) || !direct || !s || !s->v.m)
    return false;
  if (out) *out = *s->v.m;
  return true;
}

/* Checks an output write from a compute and ensures the slot (path: the slots down to it, for
 * end_out; the value written in between changes no slot tree). */
static int begin_out(sinew_compute_t *ctx, const sinew_plug_t *p, want_kind k, sinew__node **out_n,
                     const sinew__attr **out_a, sinew__slot **out_s, sinew__slot_path *path) {
  if (!ctx) return SINEW_EINVAL;
  sinew_graph_t *g = ctx->graph;
  sinew__node *n;
  int rc = sinew__plug_check(g, p, "compute", &n);
  if (rc) return rc;
  char buf[256];
  if (p->node.index != ctx->node.index || p->node.gen != ctx->node.gen)
    return sinew_graph_set_error(g, SINEW_EINVAL, "compute of %s: may not write %s on another node",
                                 sinew_node_name(g, ctx->node), sinew__plug_str(g, p, buf, sizeof buf));
  const sinew__attr *a = sinew__attr_get(g, n, p->attr);
  if (!kind_ok(g, n, a, k) || plug_whole(a, p))
    return sinew_graph_fail(g, SINEW_ETYPE, "compute", "%s is of type %s, not %s",
                            sinew__plug_str(g, p, buf, sizeof buf), sinew_attr_type_name(a->type),
                            kind_name(k));
  if (!a->computed)
    return sinew_graph_fail(g, SINEW_EREADONLY, "compute", "%s is an input, not an output",
                            sinew__plug_str(g, p, buf, sizeof buf));
  rc = (*out_s = slot_of(g, n, p, path)) ? SINEW_OK : sinew__slot_ensure(g, n, p, out_s, path, NULL);
  if (rc) return sinew_graph_set_error(g, rc, "compute %s: out of memory", sinew__plug_str(g, p, buf, sizeof buf));
  *out_n = n;
  *out_a = a;
  return SINEW_OK;
}

static void end_out(sinew_graph_t *g, sinew__node *n, const sinew__attr *a, const sinew_plug_t *p,
                    sinew__slot_path *path) {
  sinew__slot_mark_clean(g, n, a, !plug_whole(a, p), path);
}

int sinew_compute_set_double(sinew_compute_t *ctx, const sinew_plug_t *p, double v) {
  sinew__node *n = NULL;
  const sinew__attr *a = NULL;
  sinew__slot *s = NULL;
  sinew__slot_path path;
  int rc = begin_out(ctx, p, WANT_NUMBER, &n, &a, &s, &path);
  if (rc) return rc;
  sinew__slot_put_num(s, normalise(a, v));
  end_out(ctx->graph, n, a, p, &path);
  return SINEW_OK;
}

int sinew_compute_set_doubles(sinew_compute_t *ctx, const sinew_plug_t *p, const double *values,
                              size_t count) {
  sinew__node *n = NULL;
  const sinew__attr *a = NULL;
  sinew__slot *s = NULL;
  sinew__slot_path path;
  if (!values && count) return SINEW_EINVAL;
  int rc = begin_out(ctx, p, WANT_NUMBERS, &n, &a, &s, &path);
  if (rc) return rc;
  if (a->type != SINEW_ATTR_COMPOUND) {
    if (count) sinew__slot_put_num(s, normalise(a, values[0]));
  } else {
    for (uint32_t i = 0; i < a->nchildren && i < count; i++)
      sinew__slot_put_num(&s->v.kids[i], normalise(sinew__attr_get(ctx->graph, n, a->children[i]), values[i]));
  }
  end_out(ctx->graph, n, a, p, &path);
  return SINEW_OK;
}

int sinew_compute_set_generic(sinew_compute_t *ctx, const sinew_plug_t *p, const double *values,
                              size_t count) {
  if (!ctx) return SINEW_EINVAL;
  int rc = generic_count(ctx->graph, p, values, count, "compute");
  sinew__node *n = NULL;
  const sinew__attr *a = NULL;
  sinew__slot *s = NULL;
  sinew__slot_path path;
  if (!rc) rc = begin_out(ctx, p, WANT_NUMBER, &n, &a, &s, &path);
  if (rc) return rc;
  if ((rc = sinew__slot_put_vec(s, values, (uint32_t)count)))
    return sinew_graph_fail(ctx->graph, rc, "compute", "out of memory");
  end_out(ctx->graph, n, a, p, &path);
  return SINEW_OK;
}

int sinew_compute_set_matrix(sinew_compute_t *ctx, const sinew_plug_t *p, const sinew_mat4_t *m) {
  sinew__node *n = NULL;
  const sinew__attr *a = NULL;
  sinew__slot *s = NULL;
  sinew__slot_path path;
  if (!m) return SINEW_EINVAL;
  int rc = begin_out(ctx, p, WANT_MATRIX, &n, &a, &s, &path);
  if (rc) return rc;
  if (!s->v.m && !(s->v.m = sinew__malloc(sizeof *s->v.m)))
    return sinew_graph_fail(ctx->graph, SINEW_ENOMEM, "compute", "out of memory");
  *s->v.m = *m;
  end_out(ctx->graph, n, a, p, &path);
  return SINEW_OK;
}

int sinew_compute_set_string(sinew_compute_t *ctx, const sinew_plug_t *p, const char *v) {
  sinew__node *n = NULL;
  const sinew__attr *a = NULL;
  sinew__slot *s = NULL;
  sinew__slot_path path;
  int rc = begin_out(ctx, p, WANT_STRING, &n, &a, &s, &path);
  if (rc) return rc;
  char *copy = v ? sinew__strdup(v) : NULL;
  if (v && !copy) return sinew_graph_fail(ctx->graph, SINEW_ENOMEM, "compute", "out of memory");
  sinew__free(s->v.s);
  s->v.s = copy;
  end_out(ctx->graph, n, a, p, &path);
  return SINEW_OK;
}

int sinew_compute_set_data(sinew_compute_t *ctx, const sinew_plug_t *p, sinew_data_t *d) {
  sinew__node *n = NULL;
  const sinew__attr *a = NULL;
  sinew__slot *s = NULL;
  sinew__slot_path path;
  int rc = begin_out(ctx, p, WANT_DATA, &n, &a, &s, &path);
  if (rc) return rc;
  sinew_data_t *ref = d ? sinew_data_ref(d) : NULL;
  sinew_data_unref(s->v.data);
  s->v.data = ref;
  end_out(ctx->graph, n, a, p, &path);
  return SINEW_OK;
}

int sinew_compute_set_clean(sinew_compute_t *ctx, const sinew_plug_t *p) {
  if (!ctx) return SINEW_EINVAL;
  sinew_graph_t *g = ctx->graph;
  int rc = sinew__plug_check(g, p, "compute", NULL);
  if (rc) return rc;
  if (p->node.index != ctx->node.index) return SINEW_EINVAL;
  mark_clean(g, p);
  return SINEW_OK;
}

/* ---- batches --------------------------------------------------------------------------------- */

/* The slot of a numeric, top-level, non-array attribute, or NULL (another kind of plug). */
static sinew__slot *scalar_slot(const sinew_graph_t *g, const sinew_plug_t *p, sinew__node **out_n,
                                const sinew__attr **out_a) {
  sinew__node *n = sinew__node_get(g, p->node);
  /* a type attribute always exists: the record's count of dynamic ones (often on its second
   * cache line) is read only for the others */
  if (!n || p->nidx || (p->attr >= n->type->nattrs && p->attr >= sinew__node_nattrs(n))) return NULL;
  const sinew__attr *a = sinew__attr_get(g, n, p->attr);
  if (a->parent != SINEW__NO_ATTR || (a->flags & (SINEW_ATTR_ARRAY | SINEW__ATTR_REMOVED)) ||
      !sinew_attr_type_is_numeric(a->type))
    return NULL;
  *out_n = n;
  *out_a = a;
  return &n->slots[a->slot_index];
}

/* A batch walks nodes spread over the heap, each a few cache misses away (its record, then its
 * slots): fetching ahead keeps several in flight. At step i the record of plug i + 2 * AHEAD is
 * asked for, and the slot of plug i + AHEAD, whose record was asked for AHEAD steps before. */
enum { AHEAD = 8 };

static void fetch_ahead(const sinew_graph_t *g, const sinew_plug_t *plugs, size_t i, size_t count) {
  if (i + 2 * AHEAD < count) {
    const sinew_plug_t *p = &plugs[i + 2 * AHEAD];
    if (p->node.index < g->nnodes) {
      const char *rec = (const char *)g->nodes[p->node.index];
      __builtin_prefetch(rec);
      __builtin_prefetch(rec + offsetof(sinew__node, slots) + sizeof(void *) - 1); /* the fields read, when on two lines */
    }
  }
  if (i + AHEAD < count) {
    sinew__node *n = NULL;
    const sinew__attr *a = NULL;
    sinew__slot *s = scalar_slot(g, &plugs[i + AHEAD], &n, &a);
    if (s) __builtin_prefetch(s);
  }
}

int sinew_get_double_many(sinew_graph_t *g, const sinew_plug_t *plugs, double *out, size_t count) {
  if (!g || (count && (!plugs || !out))) return SINEW_EINVAL;
  for (size_t i = 0; i < count; i++) {
    if (!tl_shared) fetch_ahead(g, plugs, i, count);
    sinew__node *n = NULL;
    const sinew__attr *a = NULL;
    sinew__slot *s = tl_shared ? NULL : scalar_slot(g, &plugs[i], &n, &a);
    if (s && !sinew__slot_dirtyish(s)) {
      out[i] = sinew__slot_num(s);
      continue;
    }
    int rc = sinew_get_double(g, &plugs[i], &out[i]);
    if (rc) return rc;
  }
  return SINEW_OK;
}

/* The slot and attribute of p if it is a computed numeric top-level output, else an error
 * naming it (what: the call). */
static int output_slot(sinew_graph_t *g, const sinew_plug_t *p, const char *what, sinew__slot **out_s,
                       const sinew__attr **out_a) {
  sinew__node *n = NULL;
  const sinew__attr *a = NULL;
  sinew__slot *s = scalar_slot(g, p, &n, &a);
  if (!s || !a->computed) {
    char buf[256];
    return sinew_graph_set_error(g, SINEW_EINVAL, "%s: %s is not a numeric scalar output", what,
                                 sinew__plug_str(g, p, buf, sizeof buf));
  }
  *out_s = s;
  *out_a = a;
  return SINEW_OK;
}

/* Refuses a store from inside a compute, an observer or a hook. */
static int check_store(sinew_graph_t *g, const char *what) {
  int rc = sinew__check_mutable(g, what);
  if (rc) return rc;
  if (g->eval_depth || tl_shared) return sinew_graph_set_error(g, SINEW_EINVAL, "%s: not from inside a compute", what);
  return SINEW_OK;
}

/* v into the output p (slot s of attribute a), as its compute would leave it: clean, observers
 * told it changed, what depends on it dirtied (queued on w). A slot clean already stays so
 * without touching its node (its maybe_dirty bit stays set: a superset). */
static void store_output(sinew_graph_t *g, const sinew_plug_t *p, sinew__slot *s, const sinew__attr *a, double v,
                         push_ctx *w) {
  sinew__slot_put_num(s, normalise(a, v));
  if (sinew__slot_dirtyish(s)) {
    sinew__slot_path path = {.slots = {s}, .n = 1};
    sinew__slot_mark_clean(g, sinew__node_get(g, p->node), a, false, &path);
  }
  if (g->nobservers) notify_dirty(g, p); /* its value changed */
  if (a->naffects || (s->flags & (SINEW__F_OUT | SINEW__F_SUB_OUT))) spread(g, p, w);
}

int sinew_store_outputs(sinew_graph_t *g, const sinew_plug_t *plugs, const double *values, size_t count) {
  if (!g || (count && (!plugs || !values))) return SINEW_EINVAL;
  int rc = check_store(g, "sinew_store_outputs");
  if (rc) return rc;
  for (size_t i = 0; i < count; i++) {
    sinew__slot *s;
    const sinew__attr *a;
    fetch_ahead(g, plugs, i, count);
    if ((rc = output_slot(g, &plugs[i], "sinew_store_outputs", &s, &a))) return rc;
  }
  push_ctx w;
  if ((rc = begin_push(g, &w))) return rc;
  g->pushing++;
  for (size_t i = 0; i < count; i++) {
    sinew__node *n = NULL;
    const sinew__attr *a = NULL;
    sinew__slot *s = scalar_slot(g, &plugs[i], &n, &a);
    store_output(g, &plugs[i], s, a, values[i], &w);
  }
  run_push(g, &w);
  g->pushing--;
  return SINEW_OK;
}

/* A kept sinew_store_outputs: the plugs, and their slots and attributes as found when the
 * graph's structure and slot tables were what is noted (found again when either moved). One
 * allocation. */
struct sinew_output_batch {
  size_t count;
  uint64_t structure, slot_tables;
  bool found;
  sinew_plug_t *plugs;
  sinew__slot **slots;
  const sinew__attr **attrs;
};

static int batch_find(sinew_graph_t *g, sinew_output_batch_t *b, const char *what) {
  b->found = false;
  for (size_t i = 0; i < b->count; i++) {
    fetch_ahead(g, b->plugs, i, b->count);
    int rc = output_slot(g, &b->plugs[i], what, &b->slots[i], &b->attrs[i]);
    if (rc) return rc;
  }
  b->structure = g->structure;
  b->slot_tables = g->slot_tables;
  b->found = true;
  return SINEW_OK;
}

int sinew_output_batch_make(sinew_graph_t *g, const sinew_plug_t *plugs, size_t count, sinew_output_batch_t **out) {
  if (!g || !out || (count && !plugs)) return SINEW_EINVAL;
  *out = NULL;
  size_t head = (sizeof(sinew_output_batch_t) + 15) & ~(size_t)15;
  char *block = sinew__malloc(head + (count ? count : 1) * (sizeof(sinew_plug_t) + 2 * sizeof(void *)));
  if (!block) return sinew_graph_set_error(g, SINEW_ENOMEM, "sinew_output_batch_make: out of memory");
  sinew_output_batch_t *b = (sinew_output_batch_t *)block;
  *b = (sinew_output_batch_t){.count = count, .plugs = (sinew_plug_t *)(block + head)};
  b->slots = (sinew__slot **)(b->plugs + count);
  b->attrs = (const sinew__attr **)(b->slots + count);
  if (count) memcpy(b->plugs, plugs, count * sizeof *plugs);
  int rc = batch_find(g, b, "sinew_output_batch_make");
  if (rc) {
    sinew__free(block);
    return rc;
  }
  *out = b;
  return SINEW_OK;
}

void sinew_output_batch_free(sinew_output_batch_t *b) { sinew__free(b); }

int sinew_output_batch_store(sinew_graph_t *g, sinew_output_batch_t *b, size_t first, const double *values,
                             size_t count) {
  if (!g || !b || (count && !values) || first > b->count || count > b->count - first) return SINEW_EINVAL;
  int rc = check_store(g, "sinew_output_batch_store");
  if (rc) return rc;
  if ((!b->found || b->structure != g->structure || b->slot_tables != g->slot_tables) &&
      (rc = batch_find(g, b, "sinew_output_batch_store")))
    return rc;
  push_ctx w;
  if ((rc = begin_push(g, &w))) return rc;
  g->pushing++;
  /* The slots are spread over the heap: the one AHEAD on is fetched (to be written) meanwhile. */
  for (size_t i = first, end = first + count; i < end; i++) {
    if (i + 2 * AHEAD < end) __builtin_prefetch(b->slots[i + 2 * AHEAD], 1);
    store_output(g, &b->plugs[i], b->slots[i], b->attrs[i], values[i - first], &w);
  }
  run_push(g, &w);
  g->pushing--;
  return SINEW_OK;
}

/* A kept sinew_get_double_many: the plugs, and the slot of each clean-readable one (a numeric,
 * top-level, non-array attribute; NULL for the others) as found when the graph's structure
 * and slot tables were what is noted. One allocation. */
struct sinew_read_batch {
  size_t count;
  uint64_t structure, slot_tables;
  sinew_plug_t *plugs;
  const sinew__slot **slots;
};

static void read_batch_find(const sinew_graph_t *g, sinew_read_batch_t *b) {
  for (size_t i = 0; i < b->count; i++) {
    fetch_ahead(g, b->plugs, i, b->count);
    sinew__node *n = NULL;
    const sinew__attr *a = NULL;
    b->slots[i] = scalar_slot(g, &b->plugs[i], &n, &a);
  }
  b->structure = g->structure;
  b->slot_tables = g->slot_tables;
}

int sinew_read_batch_make(sinew_graph_t *g, const sinew_plug_t *plugs, size_t count, sinew_read_batch_t **out) {
  if (!g || !out || (count && !plugs)) return SINEW_EINVAL;
  *out = NULL;
  size_t head = (sizeof(sinew_read_batch_t) + 15) & ~(size_t)15;
  char *block = sinew__malloc(head + (count ? count : 1) * (sizeof(sinew_plug_t) + sizeof(void *)));
  if (!block) return sinew_graph_set_error(g, SINEW_ENOMEM, "sinew_read_batch_make: out of memory");
  sinew_read_batch_t *b = (sinew_read_batch_t *)block;
  *b = (sinew_read_batch_t){.count = count, .plugs = (sinew_plug_t *)(block + head)};
  b->slots = (const sinew__slot **)(b->plugs + count);
  if (count) memcpy(b->plugs, plugs, count * sizeof *plugs);
  read_batch_find(g, b);
  *out = b;
  return SINEW_OK;
}

void sinew_read_batch_free(sinew_read_batch_t *b) { sinew__free(b); }

int sinew_read_batch_get(sinew_graph_t *g, sinew_read_batch_t *b, double *out) {
  if (!g || !b || (b->count && !out)) return SINEW_EINVAL;
  for (size_t i = 0; i < b->count; i++) {
    if (b->structure != g->structure || b->slot_tables != g->slot_tables) read_batch_find(g, b);
    if (i + 2 * AHEAD < b->count && b->slots[i + 2 * AHEAD]) __builtin_prefetch(b->slots[i + 2 * AHEAD]);
    const sinew__slot *s = tl_shared ? NULL : b->slots[i];
    if (s && !sinew__slot_dirtyish(s)) {
      out[i] = sinew__slot_num(s);
      continue;
    }
    int rc = sinew_get_double(g, &b->plugs[i], &out[i]); /* a pull may make or delete nodes: checked above */
    if (rc) return rc;
  }
  return SINEW_OK;
}
