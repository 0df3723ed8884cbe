/* graph/connect.c: connections between plugs: type checks, cycle refusal, force, next
 * available index, disconnection (the destination keeps its value) and listing.
 *
 * A connection is indexed twice: by destination (one source per destination) and by source
 * (fan-out). Slots carry IN/OUT flags, and SUB_IN/SUB_OUT on their ancestors, so dirty
 * propagation and pulls only look connections up where one exists. */
#include <stdlib.h>
#include <string.h>

#include "graph/internal.h"

/* Whether the plug's slot exists and lacks flag: then the index has nothing for it. The slot's
 * IN and OUT flags answer from the node's own memory; in a large graph an index lookup is a few
 * cache misses, and most plugs asked about (every set, every connect) are no end of anything. */
static bool slot_lacks(const sinew_graph_t *g, const sinew_plug_t *p, uint32_t flag) {
  sinew__node *n = sinew__plug_node(g, p);
  if (!n) return false;
  const sinew__attr *a = sinew__attr_get(g, n, p->attr);
  if (p->nidx == 0 && a->parent == SINEW__NO_ATTR) /* a whole top-level plug: no walk */
    return !(n->slots[a->slot_index].flags & flag);
  sinew__multi *pm = NULL;
  uint32_t pos;
  const sinew__slot *s = sinew__slot_peek(g, n, p, NULL, &pm, &pos);
  if (pm) return !(pm->eflags & flag); /* an element held packed is no end of anything */
  return s && !(s->flags & flag);
}

sinew__conn *sinew__conn_to(const sinew_graph_t *g, const sinew_plug_t *dst) {
  if (slot_lacks(g, dst, SINEW__F_IN)) return NULL;
  sinew_plug_t key = sinew__plug_key(dst);
  sinew__conn *c = NULL;
  HASH_FIND(hh, g->conns_by_dst, &key, sizeof key, c);
  return c;
}

static sinew__src_entry *src_entry(const sinew_graph_t *g, const sinew_plug_t *src) {
  if (slot_lacks(g, src, SINEW__F_OUT)) return NULL;
  sinew_plug_t key = sinew__plug_key(src);
  sinew__src_entry *e = NULL;
  HASH_FIND(hh, g->conns_by_src, &key, sizeof key, e);
  return e;
}

sinew__conn *sinew__conn_from(const sinew_graph_t *g, const sinew_plug_t *src) {
  sinew__src_entry *e = src_entry(g, src);
  return e ? e->head : NULL;
}

/* ---- type compatibility ------------------------------------------------------------------- */

bool sinew__opaque_link(const sinew__node *sn, const sinew__attr *sa, const sinew__node *dn,
                        const sinew__attr *da) {
  return (sn->type->flags & SINEW_NODE_TYPE_PLACEHOLDER) || (dn->type->flags & SINEW_NODE_TYPE_PLACEHOLDER) ||
         (sa->flags & SINEW_ATTR_GENERIC) || (da->flags & SINEW_ATTR_GENERIC);
}

/* What a generic numeric attribute can carry: a number, a matrix, or a compound of 1 to
 * SINEW_GENERIC_MAX numeric children that are not arrays. */
static bool generic_fits(const sinew_graph_t *g, sinew__node *n, const sinew__attr *a) {
  if (sinew_attr_type_is_numeric(a->type) || a->type == SINEW_ATTR_MATRIX) return true;
  if (a->type != SINEW_ATTR_COMPOUND || !a->nchildren || a->nchildren > SINEW_GENERIC_MAX) return false;
  for (uint32_t i = 0; i < a->nchildren; i++) {
    const sinew__attr *c = sinew__attr_get(g, n, a->children[i]);
    if (!sinew_attr_type_is_numeric(c->type) || (c->flags & SINEW_ATTR_ARRAY)) return false;
  }
  return true;
}

static bool compatible(const sinew_graph_t *g, sinew__node *sn, const sinew__attr *sa, bool swhole,
                       sinew__node *dn, const sinew__attr *da, bool dwhole) {
  if (swhole != dwhole) return false;
  if (sa->flags & SINEW_ATTR_GENERIC_NUMERIC) return generic_fits(g, dn, da);
  if (da->flags & SINEW_ATTR_GENERIC_NUMERIC) return generic_fits(g, sn, sa);
  if (sinew_attr_type_is_numeric(sa->type) && sinew_attr_type_is_numeric(da->type)) return true;
  if (sa->type != da->type) return false;
  switch (sa->type) {
    case SINEW_ATTR_COMPOUND:
      if (sa->nchildren != da->nchildren) return false;
      for (uint32_t i = 0; i < sa->nchildren; i++) {
        const sinew__attr *sc = sinew__attr_get(g, sn, sa->children[i]);
        const sinew__attr *dc = sinew__attr_get(g, dn, da->children[i]);
        bool sarr = (sc->flags & SINEW_ATTR_ARRAY) != 0, darr = (dc->flags & SINEW_ATTR_ARRAY) != 0;
        if (!compatible(g, sn, sc, sarr, dn, dc, darr)) return false;
      }
      return true;
    case SINEW_ATTR_DATA:
      return !sa->data_type || !da->data_type || sa->data_type == da->data_type;
    default: return true;
  }
}

/* ---- cycle check --------------------------------------------------------------------------- */

/* The (node index, attribute) pairs a cycle search has visited: open addressing in one block,
 * so that a search costs a few allocations rather than one per visited plug (connecting is
 * on the path of every rig build). */
typedef struct visit_set {
  uint64_t *keys; /* VISIT_EMPTY where free */
  uint32_t cap, n;
} visit_set;

#define VISIT_EMPTY UINT64_MAX

static uint32_t visit_slot(const visit_set *v, uint64_t key) {
  uint64_t h = key * 0x9E3779B97F4A7C15ull; /* Fibonacci hashing: spreads consecutive indices */
  uint32_t i = (uint32_t)(h >> 32) & (v->cap - 1);
  while (v->keys[i] != VISIT_EMPTY && v->keys[i] != key) i = (i + 1) & (v->cap - 1);
  return i;
}

/* Adds key; *fresh tells whether it was new. SINEW_ENOMEM leaves the set as it was. */
static int visit_add(visit_set *v, uint64_t key, bool *fresh) {
  if ((v->n + 1) * 2 > v->cap) { /* keep it at most half full */
    uint32_t ncap = v->cap ? v->cap * 2 : 64;
    uint64_t *keys = sinew__malloc(ncap * sizeof *keys);
    if (!keys) return SINEW_ENOMEM;
    for (uint32_t i = 0; i < ncap; i++) keys[i] = VISIT_EMPTY;
    visit_set bigger = {keys, ncap, v->n};
    for (uint32_t i = 0; i < v->cap; i++)
      if (v->keys[i] != VISIT_EMPTY) keys[visit_slot(&bigger, v->keys[i])] = v->keys[i];
    sinew__free(v->keys);
    *v = bigger;
  }
  uint32_t i = visit_slot(v, key);
  *fresh = v->keys[i] == VISIT_EMPTY;
  if (*fresh) {
    v->keys[i] = key;
    v->n++;
  }
  return SINEW_OK;
}

/* A plug the search reached: a whole attribute (nidx 0: reached through an affects relation,
 * which is declared per attribute), or the very plug a connection ends at, elements included, so
 * that connecting one element of a multi to another (a reference node's placeholder list,
 * `rigRN.phl[1] -> rigRN.phl[2]`) is not taken for a cycle. */
typedef struct qitem {
  sinew_plug_t plug;
  int32_t from; /* queue index of the item that led here, -1 for the start */
} qitem;

/* Do two plugs of one attribute family share a value? They do unless an element index that both
 * give differs (phl[1] and phl[2] do not; phl and phl[2] do). Indices name multi levels from the
 * top of the family down, so the shorter list is compared with the start of the longer. */
bool sinew__plug_overlap(const sinew_plug_t *a, const sinew_plug_t *b) {
  uint32_t n = a->nidx < b->nidx ? a->nidx : b->nidx;
  for (uint32_t i = 0; i < n && i < SINEW_PLUG_MAX_INDICES; i++)
    if (a->idx[i] >= 0 && b->idx[i] >= 0 && a->idx[i] != b->idx[i]) return false;
  return true;
}

bool sinew__attr_family(const sinew_graph_t *g, const sinew__node *n, uint32_t a, uint32_t b) {
  for (uint32_t x = a; x != SINEW__NO_ATTR; x = sinew__attr_get(g, n, x)->parent)
    if (x == b) return true;
  for (uint32_t x = b; x != SINEW__NO_ATTR; x = sinew__attr_get(g, n, x)->parent)
    if (x == a) return true;
  return false;
}

/* Would src -> dst close a cycle? Searches downstream of dst (through affects and connections,
 * at attribute granularity) for src. On a cycle, writes the path into the graph error. Connects
 * ask the order (graph/order.c) instead, which runs this search only to name a cycle's path. */
int sinew__cycle_search(sinew_graph_t *g, const sinew_plug_t *src, const sinew_plug_t *dst,
                        const char *what) {
  qitem *q = NULL;
  uint32_t n = 0, cap = 0;
  /* whole attributes visited, keyed (node index, attribute); and connections followed, keyed by
   * address: each connection's destination plug is queued at most once */
  visit_set seen = {NULL, 0, 0}, followed = {NULL, 0, 0};
  int rc = SINEW_OK;
  int32_t hit = -1;
  if (sinew__reserve((void **)&q, &cap, 16, sizeof *q))
    return sinew_graph_fail(g, SINEW_ENOMEM, what, "out of memory");
  q[n++] = (qitem){sinew__plug_key(dst), -1};
  for (uint32_t head = 0; head < n && hit < 0; head++) {
    qitem it = q[head];
    sinew__node *node = sinew__node_get(g, it.plug.node);
    bool fresh;
    if (!it.plug.nidx) {
      uint64_t key = ((uint64_t)it.plug.node.index << 32) | it.plug.attr;
      if (visit_add(&seen, key, &fresh)) { rc = SINEW_ENOMEM; break; }
      if (!fresh) continue;
    }
    if (it.plug.node.index == src->node.index && sinew__attr_family(g, node, it.plug.attr, src->attr) &&
        sinew__plug_overlap(&it.plug, src)) {
      hit = (int32_t)head;
      break;
    }
    const sinew__attr *a = sinew__attr_get(g, node, it.plug.attr);
    for (uint32_t k = 0; k < a->naffects; k++) {
      if (sinew__reserve((void **)&q, &cap, n + 1, sizeof *q)) { rc = SINEW_ENOMEM; goto done; }
      q[n++] = (qitem){sinew_plug_make(it.plug.node, a->affects[k], 0, NULL), (int32_t)head};
    }
    for (uint32_t k = 0; k < node->nconns; k++) {
      const sinew__conn *c = node->conns[k];
      if (c->src.node.index != it.plug.node.index || !sinew__attr_family(g, node, c->src.attr, it.plug.attr) ||
          !sinew__plug_overlap(&c->src, &it.plug))
        continue;
      if (visit_add(&followed, (uint64_t)(uintptr_t)c, &fresh)) { rc = SINEW_ENOMEM; goto done; }
      if (!fresh) continue;
      if (sinew__reserve((void **)&q, &cap, n + 1, sizeof *q)) { rc = SINEW_ENOMEM; goto done; }
      q[n++] = (qitem){c->dst, (int32_t)head};
    }
  }
done:
  if (hit >= 0) {
    /* Names along the path, from src's node back to dst's node. */
    char path[512];
    size_t used = 0;
    uint32_t last = UINT32_MAX;
    for (int32_t i = hit; i >= 0 && used < sizeof path - 64; i = q[i].from) {
      if (q[i].plug.node.index == last) continue; /* each node once per visit: "c <- b <- a" */
      last = q[i].plug.node.index;
      used += (size_t)snprintf(path + used, sizeof path - used, "%s%s", used ? " <- " : "",
                               sinew_node_name(g, q[i].plug.node));
    }
    char sb[256], db[256];
    sinew__plug_str(g, src, sb, sizeof sb);
    sinew__plug_str(g, dst, db, sizeof db);
    rc = sinew_graph_fail(g, SINEW_ECYCLE, what, "%s -> %s: would create a cycle through %s", sb, db, path);
    sinew__error_plug(g, dst);
  } else if (rc == SINEW_ENOMEM) {
    sinew_graph_fail(g, rc, what, "out of memory");
  }
  sinew__free(seen.keys);
  sinew__free(followed.keys);
  sinew__free(q);
  return rc;
}

/* ---- making and breaking ------------------------------------------------------------------ */

static void set_conn_flags(sinew_graph_t *g, sinew__node *node, const sinew_plug_t *p, uint32_t bit,
                           uint32_t sub_bit) {
  sinew__slot_path path;
  sinew__slot *s = sinew__slot_find(g, node, p, &path);
  if (!s) return;
  s->flags |= bit;
  for (uint32_t i = 0; i + 1 < path.n; i++) path.slots[i]->flags |= sub_bit;
}

static void clear_conn_flag(sinew_graph_t *g, const sinew_plug_t *p, uint32_t bit) {
  sinew__node *node = sinew__node_get(g, p->node);
  sinew__slot *s = node ? sinew__slot_find(g, node, p, NULL) : NULL;
  if (s) s->flags &= ~bit;
}

/* A node's list of connections and its conn_ends, kept together (same capacity). */
static void node_conn_remove(sinew__node *n, sinew__conn *c) {
  for (uint32_t i = 0; i < n->nconns; i++)
    if (n->conns[i] == c) {
      memmove(&n->conns[i], &n->conns[i + 1], (n->nconns - i - 1) * sizeof *n->conns);
      memmove(&n->conn_ends[i], &n->conn_ends[i + 1], (n->nconns - i - 1) * sizeof *n->conn_ends);
      n->nconns--;
      return;
    }
}

/* conns and conn_ends share one block (the pointers, then the ends), so a search reads them
 * from the same few lines. */
static int node_conns_reserve(sinew__node *n, uint32_t need) {
  if (need <= n->capconns) return SINEW_OK;
  uint32_t cap = n->capconns ? n->capconns : 2;
  while (cap < need) cap = cap > UINT32_MAX / 2 ? need : cap * 2;
  sinew__conn **block = sinew__malloc((size_t)cap * (sizeof *n->conns + sizeof *n->conn_ends));
  if (!block) return SINEW_ENOMEM;
  uint64_t *ends = (uint64_t *)(block + cap);
  if (n->nconns) {
    memcpy(block, n->conns, n->nconns * sizeof *n->conns);
    memcpy(ends, n->conn_ends, n->nconns * sizeof *n->conn_ends);
  }
  sinew__free(n->conns);
  n->conns = block;
  n->conn_ends = ends;
  n->capconns = cap;
  return SINEW_OK;
}

/* Inserts c at pos (at most the count) of the list of node n, whose index is `index`; the room
 * was reserved. */
static void node_conn_insert(sinew__node *n, uint32_t index, uint32_t pos, sinew__conn *c) {
  if (pos > n->nconns) pos = n->nconns;
  memmove(&n->conns[pos + 1], &n->conns[pos], (n->nconns - pos) * sizeof *n->conns);
  memmove(&n->conn_ends[pos + 1], &n->conn_ends[pos], (n->nconns - pos) * sizeof *n->conn_ends);
  n->conns[pos] = c;
  n->conn_ends[pos] = sinew__conn_ends(index, c);
  n->nconns++;
}

void sinew__notify_connect(sinew_graph_t *g, const sinew_plug_t *s, const sinew_plug_t *d, bool on) {
  g->pushing++; /* the operation is not finished: observers may read, not change */
  for (uint32_t i = 0; i < g->nobservers; i++) {
    sinew_observer_t o = g->observers[i].obs;
    if (on && o.connected) o.connected(o.user_data, s, d);
    if (!on && o.disconnected) o.disconnected(o.user_data, s, d);
  }
  g->pushing--;
}

/* Index of c in a node's connection list (the list length when absent). */
static uint32_t node_conn_pos(const sinew__node *n, const sinew__conn *c) {
  uint32_t i = 0;
  while (i < n->nconns && n->conns[i] != c) i++;
  return i;
}

/* Unlinks c from every index (no allocation, cannot fail). by_dst is false when c has already
 * left the destination index (a connection being replaced). With a journal record r, an
 * emptied source entry is kept in r instead of freed, and c's positions are noted in r. */
static void unlink_conn_r(sinew_graph_t *g, sinew__conn *c, bool by_dst, sinew__rec *r) {
  if (by_dst) HASH_DELETE(hh, g->conns_by_dst, c);
  sinew__src_entry *e = src_entry(g, &c->src);
  if (e) {
    uint32_t pos = 0;
    for (sinew__conn **link = &e->head; *link; link = &(*link)->src_next, pos++)
      if (*link == c) {
        *link = c->src_next;
        break;
      }
    if (r) r->u.conn.src_pos = pos;
    if (!e->head) {
      HASH_DELETE(hh, g->conns_by_src, e);
      if (r) r->u.conn.entry = e;
      else sinew__free(e);
      clear_conn_flag(g, &c->src, SINEW__F_OUT);
    }
  }
  if (c->prev) c->prev->next = c->next;
  else g->conn_head = c->next;
  if (c->next) c->next->prev = c->prev;
  else g->conn_tail = c->prev;
  sinew__order_remove(g, c);
  sinew__node *sn = sinew__node_get(g, c->src.node), *dn = sinew__node_get(g, c->dst.node);
  if (r) {
    r->u.conn.spos = sn ? node_conn_pos(sn, c) : 0;
    r->u.conn.dpos = dn ? node_conn_pos(dn, c) : 0;
  }
  if (sn) node_conn_remove(sn, c);
  if (dn && dn != sn) node_conn_remove(dn, c);
  if (dn) dn->nin--;
  /* a connection replacing c (or, when undoing that, c's predecessor put back) keeps the mark */
  if (!sinew__conn_to(g, &c->dst)) clear_conn_flag(g, &c->dst, SINEW__F_IN);
  g->nconnections--;
  g->structure++;
  g->topology++;
}

static void unlink_conn(sinew_graph_t *g, sinew__conn *c, bool by_dst) { unlink_conn_r(g, c, by_dst, NULL); }

/* Records that c leaves the graph (the record owns it from now on) and unlinks it. */
static void unlink_journaled(sinew_graph_t *g, sinew__conn *c, bool by_dst) {
  sinew__rec *r = sinew__jpush(g, SINEW__J_CONN);
  r->u.conn.c = c;
  r->u.conn.sn = c->src.node;
  r->u.conn.dn = c->dst.node;
  r->held = true;
  unlink_conn_r(g, c, by_dst, r);
}

void sinew__conn_unlink_rec(sinew_graph_t *g, sinew__rec *r) {
  sinew__conn *c = r->u.conn.c;
  sinew_plug_t src = c->src, dst = c->dst;
  unlink_conn_r(g, c, true, r);
  r->held = true;
  sinew__notify_connect(g, &src, &dst, false);
}

/* Puts c back where the record's unlink took it from: every list it left keeps the room
 * (capacities never shrink) and its neighbours are back in place (records are applied in exact
 * reverse or forward order), so nothing is allocated. */
void sinew__conn_link_rec(sinew_graph_t *g, sinew__rec *r) {
  sinew__conn *c = r->u.conn.c;
  SINEW__HASH_READD(hh, g->conns_by_dst, &c->dst, sizeof c->dst, c);
  sinew__src_entry *e = src_entry(g, &c->src);
  if (!e) {
    e = r->u.conn.entry;
    r->u.conn.entry = NULL;
    e->head = NULL;
    SINEW__HASH_READD(hh, g->conns_by_src, &e->key, sizeof e->key, e);
  }
  sinew__conn **link = &e->head;
  for (uint32_t i = 0; i < r->u.conn.src_pos && *link; i++) link = &(*link)->src_next;
  c->src_next = *link;
  *link = c;
  if (c->prev) c->prev->next = c;
  else g->conn_head = c;
  if (c->next) c->next->prev = c;
  else g->conn_tail = c;
  sinew__node *sn = sinew__node_get(g, c->src.node), *dn = sinew__node_get(g, c->dst.node);
  node_conn_insert(sn, c->src.node.index, r->u.conn.spos, c);
  if (dn != sn) node_conn_insert(dn, c->dst.node.index, r->u.conn.dpos, c);
  dn->nin++;
  sinew__order_relink(g, c);
  g->nconnections++;
  g->structure++;
  g->topology++; /* the placeholder walks' memory (placeholder.c) is stale */
  r->held = false;
  set_conn_flags(g, dn, &c->dst, SINEW__F_IN, SINEW__F_SUB_IN);
  set_conn_flags(g, sn, &c->src, SINEW__F_OUT, SINEW__F_SUB_OUT);
  sinew__notify_connect(g, &c->src, &c->dst, true);
}

/* Journal: the value a destination keeps when its connection breaks (pulled just before) is
 * recorded, so that a redo puts it back whatever the slot held meanwhile. Best effort: a
 * matrix or string copy that finds no memory leaves the value out (the rest of the record
 * stands; docs/graph.md, Known gaps). */
static void keep_value_rec(sinew_graph_t *g, const sinew_plug_t *dst) {
  sinew__node *dn = sinew__node_get(g, dst->node);
  if (dn) sinew__jrec_value_copy(g, dn, dst);
}

int sinew__disconnect_conn(sinew_graph_t *g, sinew__conn *c, bool keep_value) {
  sinew_plug_t src = c->src, dst = c->dst;
  if (keep_value) sinew__pull(g, &dst); /* the destination keeps the value it had */
  bool jon = sinew__jon(g); /* the caller reserved two records per connection broken */
  if (jon && keep_value) keep_value_rec(g, &dst);
  if (jon) unlink_journaled(g, c, true);
  else {
    unlink_conn(g, c, true);
    sinew__free(c);
  }
  sinew__notify_connect(g, &src, &dst, false);
  if (!keep_value) return SINEW_OK;
  sinew__node *dn = sinew__node_get(g, dst.node);
  sinew__slot *s = dn ? sinew__slot_find(g, dn, &dst, NULL) : NULL;
  if (s && jon) {
    sinew__rec *r = sinew__jpush(g, SINEW__J_FLAGS);
    r->plug = dst;
    r->mask = SINEW__F_SET;
    r->bits = s->flags & SINEW__F_SET;
  }
  if (s) s->flags |= SINEW__F_SET;
  return sinew__changed(g, &dst);
}

/* Makes src -> dst, replacing an existing connection into dst. Everything that can fail is
 * done before the graph changes. */
int sinew__connect_raw(sinew_graph_t *g, const sinew_plug_t *src, const sinew_plug_t *dst,
                       bool implicit, const char *what) {
  sinew__node *sn = sinew__node_get(g, src->node), *dn = sinew__node_get(g, dst->node);
  int rc = sinew__order_check(g, src, dst, what);
  if (rc) return rc;
  if (sinew__reserve_push(g)) return sinew_graph_fail(g, SINEW_ENOMEM, what, "out of memory");
  bool jon = sinew__jon(g);
  uint32_t jmark = g->jr.n;
  /* journal: the elements made, the destination's value (a pull overwrites it), c and old */
  if (jon && (sinew__jreserve(g, src->nidx + dst->nidx + 3) || sinew__jrec_value_copy(g, dn, dst)))
    return sinew_graph_fail(g, SINEW_ENOMEM, what, "out of memory");
  sinew__created made = {.n = 0};
  sinew__slot *tmp;
  char buf[256];
  rc = sinew__slot_ensure(g, dn, dst, &tmp, NULL, &made);
  if (!rc) rc = sinew__slot_ensure(g, sn, src, &tmp, NULL, &made);
  sinew__conn *c = rc ? NULL : sinew__calloc(1, sizeof *c);
  sinew__src_entry *e = rc ? NULL : src_entry(g, src);
  sinew__src_entry *fresh = NULL;
  if (!rc && !c) rc = SINEW_ENOMEM;
  if (!rc && !e && !(fresh = sinew__calloc(1, sizeof *fresh))) rc = SINEW_ENOMEM;
  if (!rc && node_conns_reserve(sn, sn->nconns + 1)) rc = SINEW_ENOMEM;
  if (!rc && node_conns_reserve(dn, dn->nconns + 1)) rc = SINEW_ENOMEM;
  sinew__conn *old = rc ? NULL : sinew__conn_to(g, dst);
  if (!rc) {
    c->src = sinew__plug_key(src);
    c->dst = sinew__plug_key(dst);
    c->implicit = implicit;
    /* c takes old's place in the destination index: same key, same bucket, so the add only
     * restores the bucket's count and cannot need to grow the table. */
    if (old) HASH_DELETE(hh, g->conns_by_dst, old);
    sinew__uthash_oom = 0;
    HASH_ADD(hh, g->conns_by_dst, dst, sizeof c->dst, c);
    if (sinew__uthash_oom) {
      if (old) HASH_ADD(hh, g->conns_by_dst, dst, sizeof old->dst, old);
      rc = SINEW_ENOMEM;
    }
  }
  if (!rc && fresh) {
    fresh->key = c->src;
    sinew__uthash_oom = 0;
    HASH_ADD(hh, g->conns_by_src, key, sizeof fresh->key, fresh);
    if (sinew__uthash_oom) {
      HASH_DELETE(hh, g->conns_by_dst, c);
      if (old) HASH_ADD(hh, g->conns_by_dst, dst, sizeof old->dst, old);
      rc = SINEW_ENOMEM;
    } else {
      e = fresh;
      fresh = NULL;
    }
  }
  if (rc) {
    sinew__free(c);
    sinew__free(fresh);
    if (jon) sinew__jtruncate(g, jmark);
    sinew__slot_unensure(g, dn, &made); /* made holds both plugs' elements; each node takes its own */
    if (sn != dn) sinew__slot_unensure(g, sn, &made);
    return sinew_graph_fail(g, rc, what, "%s: %s", sinew__plug_str(g, dst, buf, sizeof buf),
                            sinew_strerror(rc));
  }
  /* Nothing below can fail. c joins its source's list before old leaves it, so a shared source
   * entry never empties on the way. */
  c->src_next = e->head;
  e->head = c;
  c->prev = g->conn_tail;
  if (g->conn_tail) g->conn_tail->next = c;
  else g->conn_head = c;
  g->conn_tail = c;
  node_conn_insert(sn, c->src.node.index, sn->nconns, c);
  if (dn != sn) node_conn_insert(dn, c->dst.node.index, dn->nconns, c);
  dn->nin++;
  sinew__order_place(g, c);
  g->nconnections++;
  g->structure++;
  g->topology++;
  if (jon) {
    sinew__jrec_created(g, &made);
    sinew__rec *r = sinew__jpush(g, SINEW__J_CONN);
    r->u.conn.c = c;
    r->u.conn.sn = c->src.node;
    r->u.conn.dn = c->dst.node;
  }
  if (old) { /* force: the old connection goes without a pull (the new source replaces it) */
    sinew_plug_t os = old->src, od = old->dst;
    if (jon) unlink_journaled(g, old, false);
    else {
      unlink_conn(g, old, false);
      sinew__free(old);
    }
    sinew__notify_connect(g, &os, &od, false);
  }
  set_conn_flags(g, dn, dst, SINEW__F_IN, SINEW__F_SUB_IN);
  set_conn_flags(g, sn, src, SINEW__F_OUT, SINEW__F_SUB_OUT);
  sinew__notify_connect(g, src, dst, true);
  return sinew__mark_dirty(g, dst);
}

/* The connections into a plug above dst or inside it (dst's own excluded). With one of them in
 * place beside a connection into dst, dst's value would depend on which plug is read first, so
 * a destination's ancestors and descendants are never destinations too. Calls fn for each
 * (from the last, so fn may break it) until fn returns false; returns how many were seen. */
static uint32_t each_related_input(sinew_graph_t *g, sinew__node *dn, const sinew_plug_t *dst,
                                   bool (*fn)(sinew_graph_t *, sinew__conn *, void *), void *ud) {
  uint32_t n = 0;
  sinew_plug_t cur = *dst, up;
  while (sinew_plug_parent(g, &cur, &up)) {
    cur = up;
    sinew__conn *c = sinew__conn_to(g, &cur);
    if (c && (n++, !fn(g, c, ud))) return n;
  }
  sinew__slot *s = sinew__slot_find(g, dn, dst, NULL);
  if (!s || !(s->flags & SINEW__F_SUB_IN)) return n;
  for (uint32_t i = dn->nconns; i-- > 0;) {
    if (i >= dn->nconns) continue;
    sinew__conn *c = dn->conns[i];
    if (sinew_plug_equal(&c->dst, dst) || !sinew__plug_within(g, dn, &c->dst, dst)) continue;
    n++;
    if (!fn(g, c, ud)) return n;
  }
  return n;
}

static bool first_related(sinew_graph_t *g, sinew__conn *c, void *ud) {
  *(sinew__conn **)ud = c;
  return false;
}

static bool count_related(sinew_graph_t *g, sinew__conn *c, void *ud) {
  (void)g;
  (void)c;
  (void)ud;
  return true;
}

static bool pull_related(sinew_graph_t *g, sinew__conn *c, void *ud) {
  sinew__pull(g, &c->dst); /* a failure leaves the stale value, as a failed read would */
  return true;
}

/* Breaks a connection whose destination was brought up to date beforehand: it keeps that value. */
static bool drop_related(sinew_graph_t *g, sinew__conn *c, void *ud) {
  sinew_plug_t src = c->src, dst = c->dst;
  bool jon = sinew__jon(g); /* sinew_connect reserved two records per related connection */
  if (jon) keep_value_rec(g, &dst);
  if (jon) unlink_journaled(g, c, true);
  else {
    unlink_conn(g, c, true);
    sinew__free(c);
  }
  sinew__notify_connect(g, &src, &dst, false);
  sinew__node *dn = sinew__node_get(g, dst.node);
  sinew__slot *s = dn ? sinew__slot_find(g, dn, &dst, NULL) : NULL;
  if (s && jon) {
    sinew__rec *r = sinew__jpush(g, SINEW__J_FLAGS);
    r->plug = dst;
    r->mask = SINEW__F_SET;
    r->bits = s->flags & SINEW__F_SET;
  }
  if (s) s->flags |= SINEW__F_SET;
  return true;
}

int sinew_connect(sinew_graph_t *g, const sinew_plug_t *src_in, const sinew_plug_t *dst_in,
                  uint32_t flags, sinew_plug_t *out_dst) {
  sinew__node *sn, *dn;
  int rc = sinew__plug_check(g, src_in, "connectAttr", &sn);
  if (!rc) rc = sinew__plug_check(g, dst_in, "connectAttr", &dn);
  if (!rc) rc = sinew__check_mutable(g, "connectAttr");
  if (rc) return rc;
  sinew_plug_t src = sinew__plug_key(src_in), dst = sinew__plug_key(dst_in);
  char sb[256], db[256];
  if (flags & SINEW_CONNECT_NEXT_AVAILABLE) {
    if (!sinew_plug_is_array(g, &dst))
      return sinew_graph_fail(g, SINEW_EINVAL, "connectAttr", "-nextAvailable: %s is not an array",
                              sinew__plug_str(g, &dst, db, sizeof db));
    const sinew__attr *da = sinew__attr_get(g, dn, dst.attr);
    (void)da; /* Maya requires indexMatters off; files also use -na on such arrays only */
    dst.idx[dst.nidx] = sinew_plug_next_index(g, &dst);
    dst.nidx++;
  }
  bool swhole = sinew_plug_is_array(g, &src), dwhole = sinew_plug_is_array(g, &dst);
  if (swhole && !dwhole) { /* "joint1.wm" -> "skin.ma[0]" means wm[0], as Maya reads it */
    src.idx[src.nidx++] = 0;
    swhole = false;
  }
  const sinew__attr *sa = sinew__attr_get(g, sn, src.attr), *da = sinew__attr_get(g, dn, dst.attr);
  sinew__plug_str(g, &src, sb, sizeof sb);
  sinew__plug_str(g, &dst, db, sizeof db);
  if (!(sa->flags & SINEW_ATTR_READABLE) || !(sa->flags & SINEW_ATTR_CONNECTABLE))
    return sinew_graph_fail(g, SINEW_EREADONLY, "connectAttr", "%s -> %s: the source is not readable", sb,
                            db);
  if (!(da->flags & SINEW_ATTR_WRITABLE) || !(da->flags & SINEW_ATTR_CONNECTABLE))
    return sinew_graph_fail(g, SINEW_EREADONLY, "connectAttr", "%s -> %s: the destination is not writable",
                            sb, db);
  if (!sinew__opaque_link(sn, sa, dn, da) && !compatible(g, sn, sa, swhole, dn, da, dwhole))
    return sinew_graph_fail(g, SINEW_ETYPE, "connectAttr", "%s (%s%s) -> %s (%s%s): incompatible types%s", sb,
                            sinew_attr_type_name(sa->type), swhole ? " array" : "", db,
                            sinew_attr_type_name(da->type), dwhole ? " array" : "",
                            swhole == dwhole && ((sa->flags | da->flags) & SINEW_ATTR_GENERIC_NUMERIC)
                                ? " (a generic numeric attribute carries a number, a compound of up to 16 "
                                  "numbers or a matrix)"
                                : "");
  if (!(flags & SINEW_CONNECT_IGNORE_LOCK) && sinew_plug_locked(g, &dst)) {
    sinew_graph_fail(g, SINEW_ELOCKED, "connectAttr", "%s -> %s: the destination is locked", sb, db);
    sinew__error_plug(g, &dst);
    return SINEW_ELOCKED;
  }
  sinew__conn *old = sinew__conn_to(g, &dst);
  if (old && sinew_plug_equal(&old->src, &src)) { /* already so: nothing to do */
    if (out_dst) *out_dst = dst;
    return SINEW_OK;
  }
  if (old && old->implicit)
    return sinew_graph_fail(g, SINEW_ECONNECTED, "connectAttr",
                            "%s -> %s: the destination carries the DAG parent", sb, db);
  if (old && !(flags & SINEW_CONNECT_FORCE)) {
    char ob[256];
    return sinew_graph_fail(g, SINEW_ECONNECTED, "connectAttr",
                            "%s -> %s: the destination is already connected from %s (use force)", sb, db,
                            sinew__plug_str(g, &old->src, ob, sizeof ob));
  }
  sinew__conn *related = NULL;
  if (sinew__jon(g)) { /* the journal's room for everything below, reserved before any change */
    uint32_t nrel = each_related_input(g, dn, &dst, count_related, NULL);
    if (sinew__jreserve(g, 2 * nrel + src.nidx + dst.nidx + 3 + dst.nidx + 1))
      return sinew_graph_fail(g, SINEW_ENOMEM, "connectAttr", "%s -> %s: out of memory", sb, db);
  }
  if (each_related_input(g, dn, &dst, first_related, &related)) {
    char rs[256], rd[256];
    sinew__plug_str(g, &related->src, rs, sizeof rs);
    sinew__plug_str(g, &related->dst, rd, sizeof rd);
    if (related->implicit || !(flags & SINEW_CONNECT_FORCE))
      return sinew_graph_fail(g, SINEW_ECONNECTED, "connectAttr",
                              "%s -> %s: %s is already connected from %s%s", sb, db, rd, rs,
                              related->implicit ? " (the DAG parent)" : " (use force)");
    /* force: the plugs fed now keep their values when their connections break below */
    each_related_input(g, dn, &dst, pull_related, NULL);
  }
  rc = sinew__connect_raw(g, &src, &dst, false, "connectAttr");
  if (rc) return rc;
  if (related) each_related_input(g, dn, &dst, drop_related, NULL);
  if (flags & SINEW_CONNECT_LOCK) sinew_plug_set_locked(g, &dst, true);
  if (out_dst) *out_dst = dst;
  return SINEW_OK;
}

int sinew_disconnect(sinew_graph_t *g, const sinew_plug_t *src_in, const sinew_plug_t *dst_in) {
  sinew__node *sn, *dn;
  int rc = sinew__plug_check(g, src_in, "disconnectAttr", &sn);
  if (!rc) rc = sinew__plug_check(g, dst_in, "disconnectAttr", &dn);
  if (!rc) rc = sinew__check_mutable(g, "disconnectAttr");
  if (rc) return rc;
  sinew_plug_t src = sinew__plug_key(src_in), dst = sinew__plug_key(dst_in);
  if (sinew_plug_is_array(g, &src) && !sinew_plug_is_array(g, &dst)) src.idx[src.nidx++] = 0;
  sinew__conn *c = sinew__conn_to(g, &dst);
  char sb[256], db[256];
  if (!c || !sinew_plug_equal(&c->src, &src))
    return sinew_graph_fail(g, SINEW_ENOTCONNECTED, "disconnectAttr", "%s is not connected to %s",
                            sinew__plug_str(g, &src, sb, sizeof sb), sinew__plug_str(g, &dst, db, sizeof db));
  if (c->implicit)
    return sinew_graph_fail(g, SINEW_EINVAL, "disconnectAttr", "%s -> %s is the DAG parent link; use parent",
                            sinew__plug_str(g, &src, sb, sizeof sb), sinew__plug_str(g, &dst, db, sizeof db));
  /* The destination keeps its value: bring it up to date and make room for the dirt the cut
   * pushes first, so that a failure leaves the connection in place. */
  if ((rc = sinew__pull(g, &dst))) return rc;
  if (sinew__reserve_push(g) || (sinew__jon(g) && sinew__jreserve(g, 2)))
    return sinew_graph_fail(g, SINEW_ENOMEM, "disconnectAttr", "%s: out of memory",
                            sinew__plug_str(g, &dst, db, sizeof db));
  c = sinew__conn_to(g, &dst); /* a compute run by the pull cannot have moved it, but look again */
  if (!c || !sinew_plug_equal(&c->src, &src)) return SINEW_OK;
  return sinew__disconnect_conn(g, c, true);
}

bool sinew_plug_source(const sinew_graph_t *g, const sinew_plug_t *dst, sinew_plug_t *out) {
  if (!g || !dst) return false;
  sinew__conn *c = sinew__conn_to(g, dst);
  if (!c) return false;
  if (out) *out = c->src;
  return true;
}

size_t sinew_plug_destinations(const sinew_graph_t *g, const sinew_plug_t *src, sinew_plug_t *out,
                               size_t cap) {
  if (!g || !src) return 0;
  size_t n = 0;
  /* the list is newest first; report in creation order */
  for (sinew__conn *c = sinew__conn_from(g, src); c; c = c->src_next) n++;
  size_t i = n;
  for (sinew__conn *c = sinew__conn_from(g, src); c; c = c->src_next) {
    i--;
    if (out && i < cap) out[i] = c->dst;
  }
  return n;
}

void sinew_foreach_connection(const sinew_graph_t *g, sinew_node_t node, bool implicit,
                              bool (*fn)(void *, const sinew_connection_t *), void *ud) {
  if (!g || !fn) return;
  if (node.gen == 0) {
    for (sinew__conn *c = g->conn_head; c; c = c->next) {
      if (c->implicit && !implicit) continue;
      sinew_connection_t info = {c->src, c->dst, c->implicit};
      if (!fn(ud, &info)) return;
    }
    return;
  }
  sinew__node *n = sinew__node_get(g, node);
  if (!n) return;
  for (uint32_t i = 0; i < n->nconns; i++) {
    sinew__conn *c = n->conns[i];
    if (c->implicit && !implicit) continue;
    sinew_connection_t info = {c->src, c->dst, c->implicit};
    if (!fn(ud, &info)) return;
  }
}
