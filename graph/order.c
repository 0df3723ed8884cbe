/* graph/order.c: a topological order of the graph's connections, kept as connections come and
 * go, so that refusing a cycle costs what the edit touches rather than what lies downstream.
 *
 * The vertices are connections, the edges what the cycle search (connect.c) follows: from a
 * connection c1, the search enters c1's destination plug, walks the affects closure inside that
 * node, and leaves through every connection c2 whose source it reaches (c2 follows c1). This is
 * finer than nodes on purpose: a constraint reads its target's parentInverseMatrix and drives
 * its translate, a cycle between nodes that is not one between plugs.
 *
 * Each connection carries a label; labels grow along the list and along every edge. A new
 * connection c = src -> dst has predecessors P (connections into src's node that reach src)
 * and successors S (connections leaving what dst reaches). When max label of P < min label of
 * S it goes between them, found in time proportional to the two nodes' connections. Otherwise
 * the part of the order between the two is searched from both ends at once (forward from S,
 * backward from P, one step each in turn, as in the two-way search of Bender, Fineman, Gilbert
 * and Tarjan): meeting means a cycle; the side that runs out first is moved past c, so the
 * cost follows the smaller side. The labels come from an order-maintenance list (Bender, Cole,
 * Demaine, Farach-Colton, Zito: relabel the smallest enclosing block that is sparse enough).
 *
 * A journal record putting a connection back (undo of a disconnect or delete, redo of a
 * connect) cannot allocate or fail: it goes between its neighbours when they allow it, and
 * otherwise the order is marked stale and rebuilt by the next connect. */
#include <stdlib.h>
#include <string.h>

#include "graph/internal.h"

#define ORD_TOP (1ull << 62) /* labels lie in [1, ORD_TOP) */
#define ORD_STEP (1ull << 32) /* between labels added at either end */

enum { O_P = 1, O_S = 2, O_F = 4, O_B = 8 }; /* predecessor, successor, seen forward, backward */
enum { A_CLOS = 1, A_UP = 2 }; /* in the affects closure; a closure member or its ancestor */

static uint8_t bits_of(const sinew_graph_t *g, const sinew__conn *c) {
  return c->ord_epoch == g->order.epoch ? c->ord_bits : 0;
}

static void set_bits(const sinew_graph_t *g, sinew__conn *c, uint8_t b) {
  if (c->ord_epoch != g->order.epoch) {
    c->ord_epoch = g->order.epoch;
    c->ord_bits = 0;
  }
  c->ord_bits |= b;
}

/* A fresh set of connection marks. */
static void new_epoch(sinew_graph_t *g) {
  if (++g->order.epoch == 0) { /* wrapped: no mark may look current */
    for (sinew__conn *c = g->conn_head; c; c = c->next) c->ord_epoch = 0;
    g->order.epoch = 1;
  }
}

/* ---- the labelled list ------------------------------------------------------------------- */

static void relabel_all(sinew__order *o) {
  uint64_t n = 0;
  for (sinew__conn *c = o->head; c; c = c->ord_next) n++;
  uint64_t step = ORD_TOP / (n + 1), i = 1;
  for (sinew__conn *c = o->head; c; c = c->ord_next, i++) c->ord = step * i;
}

/* Spreads the labels of the smallest aligned block around x that holds few enough of them
 * (at most (4/3)^k in a block of 2^k labels), leaving a gap of at least 2 after x and before the
 * first label. */
static void relabel_around(sinew__order *o, sinew__conn *x) {
  double allowed = 1.0;
  for (int k = 1; k < 62; k++) {
    allowed *= 4.0 / 3.0;
    uint64_t size = 1ull << k, base = x->ord & ~(size - 1);
    sinew__conn *first = x;
    while (first->ord_prev && first->ord_prev->ord >= base) first = first->ord_prev;
    uint64_t count = 0;
    for (sinew__conn *y = first; y && y->ord < base + size; y = y->ord_next) count++;
    if ((double)(count + 1) <= allowed && (count + 2) * 2 <= size) {
      uint64_t step = size / (count + 1), i = 1;
      for (sinew__conn *y = first; i <= count; y = y->ord_next, i++) y->ord = base + step * i;
      return;
    }
  }
  relabel_all(o);
}

/* Puts c (in no list) right after x, or first when x is NULL. */
static void insert_after(sinew__order *o, sinew__conn *x, sinew__conn *c) {
  sinew__conn *next = x ? x->ord_next : o->head;
  uint64_t lo = x ? x->ord : 0, hi = next ? next->ord : ORD_TOP;
  if (hi - lo < 2) {
    relabel_around(o, x ? x : next);
    lo = x ? x->ord : 0;
    hi = next ? next->ord : ORD_TOP;
  }
  /* at either end, a fixed step rather than half the room, so that adding at the end of the
   * order again and again (building a hierarchy) uses up no gap and relabels nothing */
  uint64_t half = (hi - lo) / 2;
  c->ord = !next && half > ORD_STEP ? lo + ORD_STEP : !x && half > ORD_STEP ? hi - ORD_STEP : lo + half;
  c->ord_prev = x;
  c->ord_next = next;
  if (x) x->ord_next = c;
  else o->head = c;
  if (next) next->ord_prev = c;
  else o->tail = c;
}

static void unlink_item(sinew__order *o, sinew__conn *c) {
  if (c->ord_prev) c->ord_prev->ord_next = c->ord_next;
  else if (o->head == c) o->head = c->ord_next;
  if (c->ord_next) c->ord_next->ord_prev = c->ord_prev;
  else if (o->tail == c) o->tail = c->ord_prev;
  c->ord_prev = c->ord_next = NULL;
}

/* ---- edges: what the cycle search follows inside one node ------------------------------- */

static uint32_t amark(const sinew__order *o, uint32_t a) {
  return (o->amark[a] >> 2) == o->aepoch ? (o->amark[a] & 3) : 0;
}

static void aset(sinew__order *o, uint32_t a, uint32_t b) {
  o->amark[a] = (o->aepoch << 2) | amark(o, a) | b;
}

/* Room for the attribute marks of a node (may allocate). */
static int attr_room(sinew_graph_t *g, const sinew__node *n) {
  sinew__order *o = &g->order;
  uint32_t need = sinew__node_nattrs(n);
  if (need <= o->capattrs) return SINEW_OK;
  uint32_t *m = sinew__realloc(o->amark, need * sizeof *m), *s;
  if (!m) return SINEW_ENOMEM;
  o->amark = m;
  if (!(s = sinew__realloc(o->astack, need * sizeof *s))) return SINEW_ENOMEM;
  o->astack = s;
  memset(m + o->capattrs, 0, (need - o->capattrs) * sizeof *m);
  o->capattrs = need;
  return SINEW_OK;
}

/* Marks the attributes the search reaches through affects from attribute a of node n: the
 * whole attributes it queues after one or more affects steps (A_CLOS), and their ancestors
 * (A_UP). attr_room must have been made for n. */
static void closure(const sinew_graph_t *g, sinew__order *o, const sinew__node *n, uint32_t a) {
  if (++o->aepoch >= (1u << 30)) {
    memset(o->amark, 0, o->capattrs * sizeof *o->amark);
    o->aepoch = 1;
  }
  uint32_t top = 0;
  const sinew__attr *at = sinew__attr_get(g, n, a);
  for (;;) {
    for (uint32_t k = 0; k < at->naffects; k++) {
      uint32_t y = at->affects[k];
      if (amark(o, y) & A_CLOS) continue;
      aset(o, y, A_CLOS);
      o->astack[top++] = y;
      for (uint32_t x = y; x != SINEW__NO_ATTR && !(amark(o, x) & A_UP); x = sinew__attr_get(g, n, x)->parent)
        aset(o, x, A_UP);
    }
    if (!top) break;
    at = sinew__attr_get(g, n, o->astack[--top]);
  }
}

/* With the closure of from's attribute marked: does the search entering plug `from` reach plug t
 * of the same node (so that it leaves through a connection from t, or hits t as a cycle)? */
static bool reaches(const sinew_graph_t *g, const sinew__order *o, const sinew__node *n,
                    const sinew_plug_t *from, const sinew_plug_t *t) {
  if (sinew__attr_family(g, n, from->attr, t->attr) && sinew__plug_overlap(from, t)) return true;
  if (amark(o, t->attr) & A_UP) return true; /* t is a closure member or an ancestor of one */
  for (uint32_t x = t->attr; x != SINEW__NO_ATTR; x = sinew__attr_get(g, n, x)->parent)
    if (amark(o, x) & A_CLOS) return true; /* t lies inside a closure member */
  return false;
}

typedef bool (*visit_fn)(sinew_graph_t *g, sinew__conn *c, void *ud);

/* Calls fn on each connection leaving the search that enters plug p (not skip); stops when fn
 * returns false, and then returns false. */
static bool each_exit(sinew_graph_t *g, const sinew_plug_t *p, const sinew__conn *skip, visit_fn fn,
                      void *ud) {
  sinew__node *n = sinew__node_get(g, p->node);
  closure(g, &g->order, n, p->attr);
  for (uint32_t i = 0; i < n->nconns; i++) {
    sinew__conn *c = n->conns[i];
    if (c == skip || c->src.node.index != p->node.index) continue;
    if (reaches(g, &g->order, n, p, &c->src) && !fn(g, c, ud)) return false;
  }
  return true;
}

/* Calls fn on each connection into the node of plug s whose search reaches s (not skip). */
static bool each_entry(sinew_graph_t *g, const sinew_plug_t *s, const sinew__conn *skip, visit_fn fn,
                       void *ud) {
  sinew__node *n = sinew__node_get(g, s->node);
  if (!n->nin) return true; /* a node fed by nothing (time1 feeding every curve) costs nothing */
  uint32_t last = SINEW__NO_ATTR;
  for (uint32_t i = 0; i < n->nconns; i++) {
    sinew__conn *c = n->conns[i];
    if (c == skip || c->dst.node.index != s->node.index) continue;
    if (c->dst.attr != last) closure(g, &g->order, n, last = c->dst.attr);
    if (reaches(g, &g->order, n, &c->dst, s) && !fn(g, c, ud)) return false;
  }
  return true;
}

/* ---- placing one connection ---------------------------------------------------------------- */

typedef struct bounds {
  sinew__conn *max_p, *min_s;
  uint8_t bit;    /* marked on each one seen (0: none) */
  bool both;      /* one connection is both a predecessor and a successor */
} bounds;

static bool take_pred(sinew_graph_t *g, sinew__conn *c, void *ud) {
  bounds *b = ud;
  if (b->bit && (bits_of(g, c) & O_S)) b->both = true;
  if (b->bit) set_bits(g, c, O_P);
  if (!b->max_p || c->ord > b->max_p->ord) b->max_p = c;
  return true;
}

static bool take_succ(sinew_graph_t *g, sinew__conn *c, void *ud) {
  bounds *b = ud;
  if (b->bit) set_bits(g, c, O_S);
  if (!b->min_s || c->ord < b->min_s->ord) b->min_s = c;
  return true;
}

void sinew__order_relink(sinew_graph_t *g, sinew__conn *c) {
  sinew__order *o = &g->order;
  c->ord_epoch = 0; /* marks from before it left are not this search's */
  sinew__node *sn = sinew__node_get(g, c->src.node), *dn = sinew__node_get(g, c->dst.node);
  bounds b = {NULL, NULL, 0, false};
  if (!o->stale && sn && dn && sinew__node_nattrs(sn) <= o->capattrs && sinew__node_nattrs(dn) <= o->capattrs) {
    each_exit(g, &c->dst, c, take_succ, &b);
    if (b.min_s) each_entry(g, &c->src, c, take_pred, &b); /* nothing after it: it goes last */
    if (!b.max_p || !b.min_s || b.max_p->ord < b.min_s->ord) {
      insert_after(o, b.max_p ? b.max_p : b.min_s ? b.min_s->ord_prev : o->tail, c);
      return;
    }
  }
  o->stale = true; /* the next check rebuilds the whole order */
  insert_after(o, o->tail, c);
}

void sinew__order_remove(sinew_graph_t *g, sinew__conn *c) { unlink_item(&g->order, c); }

/* ---- the two-way search --------------------------------------------------------------------- */

typedef struct side {
  sinew__conn ***list;
  uint32_t *n, *cap;
  uint32_t head;       /* frontier: list[head..n) */
  uint64_t bound;      /* labels beyond it are not searched */
  bool forward;
  bool cycle, nomem;
} side;

static bool visit(sinew_graph_t *g, sinew__conn *w, void *ud) {
  side *s = ud;
  uint8_t b = bits_of(g, w);
  if (s->forward ? (b & (O_P | O_B)) : (b & (O_S | O_F))) {
    s->cycle = true; /* reached the other end, or what the other search came from */
    return false;
  }
  if (b & (s->forward ? O_F : O_B)) return true;
  if (s->forward ? w->ord > s->bound : w->ord < s->bound) return true;
  if (sinew__reserve((void **)s->list, s->cap, *s->n + 1, sizeof **s->list)) {
    s->nomem = true;
    return false;
  }
  set_bits(g, w, s->forward ? O_F : O_B);
  (*s->list)[(*s->n)++] = w;
  return true;
}

/* One step of a search: expands the next connection of its frontier. */
static void step(sinew_graph_t *g, side *s) {
  sinew__conn *u = (*s->list)[s->head++];
  if (attr_room(g, sinew__node_get(g, s->forward ? u->dst.node : u->src.node))) {
    s->nomem = true;
    return;
  }
  if (s->forward) each_exit(g, &u->dst, NULL, visit, s);
  else each_entry(g, &u->src, NULL, visit, s);
}

static int by_label(const void *a, const void *b) {
  uint64_t x = (*(sinew__conn *const *)a)->ord, y = (*(sinew__conn *const *)b)->ord;
  return x < y ? -1 : x > y;
}

static int rebuild(sinew_graph_t *g);

/* Sets the graph error for a cycle (the full search names its path). Should the full search find
 * none, the order was wrong: the connection is allowed (appended, stale) and counted, and the
 * next check rebuilds the order. */
static int refuse(sinew_graph_t *g, const sinew_plug_t *src, const sinew_plug_t *dst, const char *what) {
  int rc = sinew__cycle_search(g, src, dst, what);
  if (rc) return rc;
  g->order.stale = true;
  g->order.repairs++;
  g->order.anchor = NULL;
  g->order.nmove = 0;
  return SINEW_OK;
}

int sinew__order_check(sinew_graph_t *g, const sinew_plug_t *src, const sinew_plug_t *dst,
                       const char *what) {
  sinew__order *o = &g->order;
  sinew__node *sn = sinew__node_get(g, src->node), *dn = sinew__node_get(g, dst->node);
  o->anchor = NULL;
  o->before = false;
  o->nmove = 0;
  if (attr_room(g, sn) || attr_room(g, dn) || (o->stale && rebuild(g)))
    return sinew_graph_fail(g, SINEW_ENOMEM, what, "out of memory");
  new_epoch(g);
  closure(g, o, dn, dst->attr);
  if (src->node.index == dst->node.index && reaches(g, o, dn, dst, src)) return refuse(g, src, dst, what);
  bounds b = {NULL, NULL, O_S, false};
  each_exit(g, dst, NULL, take_succ, &b);
  b.bit = O_P;
  if (b.min_s) each_entry(g, src, NULL, take_pred, &b); /* nothing after it: it goes last */
  if (b.both) return refuse(g, src, dst, what);
  if (!b.max_p || !b.min_s || b.max_p->ord < b.min_s->ord) {
    o->anchor = b.max_p ? b.max_p : b.min_s;
    o->before = !b.max_p && b.min_s;
    return SINEW_OK;
  }
  /* The order must change between min_s and max_p. */
  o->nfw = o->nbw = 0;
  side fw = {&o->fw, &o->nfw, &o->capfw, 0, b.max_p->ord, true, false, false};
  side bw = {&o->bw, &o->nbw, &o->capbw, 0, b.min_s->ord, false, false, false};
  each_exit(g, dst, NULL, visit, &fw);  /* the successors below max_p start the forward search */
  each_entry(g, src, NULL, visit, &bw); /* the predecessors above min_s the backward one */
  while (!fw.cycle && !bw.cycle && !fw.nomem && !bw.nomem && fw.head < o->nfw && bw.head < o->nbw) {
    step(g, &fw);
    if (!fw.cycle && !fw.nomem && bw.head < o->nbw) step(g, &bw);
  }
  if (fw.cycle || bw.cycle) return refuse(g, src, dst, what);
  if (fw.nomem || bw.nomem) return sinew_graph_fail(g, SINEW_ENOMEM, what, "out of memory");
  if (fw.head >= o->nfw) { /* all of S's reach below max_p is known: it moves after c */
    o->anchor = b.max_p;
    o->move = o->fw;
    o->nmove = o->nfw;
  } else { /* all that reaches P above min_s is known: it moves before c */
    o->anchor = b.min_s;
    o->before = true;
    o->move = o->bw;
    o->nmove = o->nbw;
  }
  qsort(o->move, o->nmove, sizeof *o->move, by_label);
  return SINEW_OK;
}

void sinew__order_place(sinew_graph_t *g, sinew__conn *c) {
  sinew__order *o = &g->order;
  if (o->stale) {
    insert_after(o, o->tail, c);
    return;
  }
  if (o->before) insert_after(o, o->anchor->ord_prev, c);
  else insert_after(o, o->anchor ? o->anchor : o->tail, c);
  sinew__conn *prev = o->before ? c->ord_prev : c;
  for (uint32_t i = 0; i < o->nmove; i++) unlink_item(o, o->move[i]);
  /* by increasing label, together next to c: spread over the gap there when it has room */
  sinew__conn *next = prev ? prev->ord_next : o->head;
  uint64_t lo = prev ? prev->ord : 0, hi = next ? next->ord : ORD_TOP, step = (hi - lo) / ((uint64_t)o->nmove + 1);
  for (uint32_t i = 0; i < o->nmove; i++) {
    sinew__conn *m = o->move[i];
    if (step >= 2) { /* room for all: linked in place, labelled evenly */
      m->ord = lo + step * (i + 1);
      m->ord_prev = prev;
      m->ord_next = next;
      if (prev) prev->ord_next = m;
      else o->head = m;
      if (next) next->ord_prev = m;
      else o->tail = m;
    } else {
      insert_after(o, prev, m);
    }
    prev = m;
  }
  o->nmove = 0;
  o->anchor = NULL;
}

/* ---- rebuilding and checking ---------------------------------------------------------------- */

typedef struct collect {
  sinew__conn **list;
  uint32_t n, cap;
  bool nomem;
} collect;

static bool push(collect *k, sinew__conn *c) {
  if (sinew__reserve((void **)&k->list, &k->cap, k->n + 1, sizeof *k->list)) {
    k->nomem = true;
    return false;
  }
  k->list[k->n++] = c;
  return true;
}

static bool push_unvisited(sinew_graph_t *g, sinew__conn *c, void *ud) {
  return (bits_of(g, c) & O_F) || push(ud, c);
}

/* A fresh order of all connections (depth first, reverse finishing order). Entries on the stack
 * with the low pointer bit set are connections whose successors are all done. */
static int rebuild(sinew_graph_t *g) {
  sinew__order *o = &g->order;
  for (sinew__conn *c = g->conn_head; c; c = c->next)
    if (attr_room(g, sinew__node_get(g, c->dst.node))) return SINEW_ENOMEM;
  new_epoch(g);
  collect stack = {NULL, 0, 0, false};
  o->head = o->tail = NULL;
  for (sinew__conn *root = g->conn_head; root && !stack.nomem; root = root->next) {
    if (bits_of(g, root) & O_F) continue;
    push_unvisited(g, root, &stack);
    while (stack.n && !stack.nomem) {
      sinew__conn *top = stack.list[--stack.n];
      if ((uintptr_t)top & 1) { /* finished: goes before everything finished earlier */
        sinew__conn *c = (sinew__conn *)((uintptr_t)top & ~(uintptr_t)1);
        c->ord_prev = NULL;
        c->ord_next = o->head;
        if (o->head) o->head->ord_prev = c;
        else o->tail = c;
        o->head = c;
        continue;
      }
      if (bits_of(g, top) & O_F) continue;
      set_bits(g, top, O_F);
      if (push(&stack, (sinew__conn *)((uintptr_t)top | 1)))
        each_exit(g, &top->dst, NULL, push_unvisited, &stack);
    }
  }
  sinew__free(stack.list);
  if (stack.nomem) { /* keep every connection listed, in no particular order, and stay stale */
    o->head = o->tail = NULL;
    for (sinew__conn *c = g->conn_head; c; c = c->next) insert_after(o, o->tail, c);
    return SINEW_ENOMEM;
  }
  relabel_all(o);
  o->stale = false;
  return SINEW_OK;
}

typedef struct later {
  const sinew__conn *from;
  bool bad;
} later;

static bool check_later(sinew_graph_t *g, sinew__conn *c, void *ud) {
  (void)g;
  later *l = ud;
  if (c->ord <= l->from->ord) l->bad = true;
  return !l->bad;
}

int sinew__order_verify(sinew_graph_t *g) {
  sinew__order *o = &g->order;
  if (o->stale && rebuild(g)) return SINEW_ENOMEM;
  size_t n = 0;
  for (sinew__conn *c = o->head; c; c = c->ord_next, n++) {
    if (c->ord_next && c->ord_next->ord <= c->ord) return SINEW_ERUNTIME;
    if (c->ord_next && c->ord_next->ord_prev != c) return SINEW_ERUNTIME;
  }
  if (n != g->nconnections) return SINEW_ERUNTIME;
  for (uint32_t i = 0; i < g->nnodes; i++) { /* each node's count of connections ending on it */
    const sinew__node *x = g->nodes[i];
    uint32_t in = 0;
    for (uint32_t k = 0; x && x->live && k < x->nconns; k++) in += x->conns[k]->dst.node.index == i;
    if (x && x->live && in != x->nin) return SINEW_ERUNTIME;
  }
  for (sinew__conn *c = g->conn_head; c; c = c->next) {
    if (attr_room(g, sinew__node_get(g, c->dst.node))) return SINEW_ENOMEM;
    later l = {c, false};
    each_exit(g, &c->dst, NULL, check_later, &l);
    if (l.bad) return SINEW_ERUNTIME;
  }
  return SINEW_OK;
}

void sinew__order_free(sinew_graph_t *g) {
  sinew__order *o = &g->order;
  sinew__free(o->amark);
  sinew__free(o->astack);
  sinew__free(o->fw);
  sinew__free(o->bw);
  *o = (sinew__order){0};
}
