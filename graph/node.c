/* graph/node.c: graphs and nodes: creation and deletion, Maya-style naming, lookup by name or
 * DAG path, the DAG hierarchy, dynamic attributes and attribute introspection. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/internal.h"

void sinew__types_destroy(sinew_graph_t *g);
int sinew__build_dynamic(sinew_graph_t *g, const sinew_node_type_t *t, sinew__attr *existing,
                         uint32_t nexisting, const sinew_attr_desc_t *descs, size_t count,
                         sinew__attr **out, uint32_t *ntop_inout);
void sinew__attrs_free(sinew__attr *attrs, uint32_t n);

/* ---- graph ------------------------------------------------------------------------------- */

static const sinew_attr_desc_t base_attrs[] = {
    {.name = "message", .short_name = "msg", .type = SINEW_ATTR_MESSAGE,
     .flags = SINEW_ATTR_READABLE | SINEW_ATTR_WRITABLE | SINEW_ATTR_CONNECTABLE | SINEW_ATTR_HIDDEN},
    {.name = "caching", .short_name = "cch", .type = SINEW_ATTR_BOOL,
     .flags = SINEW_ATTR_INPUT | SINEW_ATTR_HIDDEN},
    {.name = "frozen", .short_name = "fzn", .type = SINEW_ATTR_BOOL,
     .flags = SINEW_ATTR_INPUT | SINEW_ATTR_HIDDEN},
    {.name = "isHistoricallyInteresting", .short_name = "ihi", .type = SINEW_ATTR_INT,
     .default_value = 2, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_HIDDEN},
    {.name = "nodeState", .short_name = "nds", .type = SINEW_ATTR_ENUM,
     .enum_fields = "Normal:HasNoEffect:Blocking:Waiting-Normal:Waiting-HasNoEffect:Waiting-Blocking",
     .flags = SINEW_ATTR_INPUT},
    {.name = "binMembership", .short_name = "bnm", .type = SINEW_ATTR_MESSAGE,
     .flags = SINEW_ATTR_INPUT | SINEW_ATTR_HIDDEN}};

/* The largest value of each limit, also its default. */
static const uint64_t limit_max[SINEW_LIMIT_COUNT_] = {[SINEW_LIMIT_GENERATED_POINTS] = 1u << 28};

int sinew_graph_create(const sinew_graph_desc_t *desc, sinew_graph_t **out) {
  if (!out) return SINEW_EINVAL;
  sinew_graph_t *g = sinew__calloc(1, sizeof *g);
  if (!g) return SINEW_ENOMEM;
  if (desc) {
    g->logger = desc->logger;
    g->logger_data = desc->logger_data;
    g->user_data = desc->user_data;
  }
  g->next_observer_id = 1;
  memcpy(g->limits, limit_max, sizeof g->limits);
  sinew_node_type_desc_t base = {.name = "node", .flags = SINEW_NODE_TYPE_ABSTRACT,
                                 .attrs = base_attrs,
                                 .attr_count = sizeof base_attrs / sizeof base_attrs[0]};
  int rc = sinew_register_node_type(g, &base, NULL);
  if (rc) {
    sinew__types_destroy(g);
    sinew__free(g);
    return rc;
  }
  *out = g;
  return SINEW_OK;
}

/* Releases what a node owns and leaves a tombstone that keeps only the generation, so stale
 * handles stay stale and the slot can be reused; needs no allocation. */
static void node_release(sinew_graph_t *g, sinew__node *n) {
  if (n->slots) {
    for (uint32_t id = 0; id < sinew__node_nattrs(n); id++) {
      const sinew__attr *a = sinew__attr_get(g, n, id);
      if (a->parent == SINEW__NO_ATTR && !(a->flags & SINEW__ATTR_REMOVED) && a->slot_index < n->nslots)
        sinew__slot_release(g, n, a, false, &n->slots[a->slot_index]);
    }
  }
  sinew__free(n->slots);
  sinew__aliases_free(n->aliases, n->naliases);
  sinew__attrs_free(n->dyn, n->ndyn);
  sinew__free(n->state);
  sinew__free(n->name);
  sinew__free(n->children);
  sinew__free(n->conns); /* conn_ends with it */
  *n = (sinew__node){.gen = n->gen};
}

static void node_free(sinew_graph_t *g, sinew__node *n) {
  node_release(g, n);
  sinew__free(n);
}

void sinew_graph_destroy(sinew_graph_t *g) {
  if (!g) return;
  sinew__journal_destroy(g); /* records first: they release through the nodes */
  for (uint32_t i = 0; i < g->nnodes; i++) {
    sinew__node *n = g->nodes[i];
    if (!n) continue;
    if (n->live && n->type->destroy)
      n->type->destroy(g, (sinew_node_t){i, n->gen}, n->state);
  }
  for (uint32_t i = 0; i < g->nnodes; i++)
    if (g->nodes[i]) node_free(g, g->nodes[i]);
  sinew__placeholder_cache_free(g);
  sinew__free(g->nodes);
  sinew__free(g->free_slots);
  sinew__name_entry *e, *etmp;
  HASH_ITER(hh, g->names, e, etmp) {
    HASH_DELETE(hh, g->names, e);
    sinew__free(e->name);
    sinew__free(e);
  }
  sinew__name_hint *nh, *nhtmp;
  HASH_ITER(hh, g->hints, nh, nhtmp) {
    HASH_DELETE(hh, g->hints, nh);
    sinew__free(nh->base);
    sinew__free(nh);
  }
  HASH_CLEAR(hh, g->conns_by_dst);
  sinew__src_entry *s, *stmp;
  HASH_ITER(hh, g->conns_by_src, s, stmp) {
    HASH_DELETE(hh, g->conns_by_src, s);
    sinew__free(s);
  }
  for (sinew__conn *c = g->conn_head, *next; c; c = next) {
    next = c->next;
    sinew__free(c);
  }
  sinew__free(g->observers);
  sinew__free(g->work);
  sinew__free(g->jr.sent_conn); /* in no list; its index went with HASH_CLEAR */
  sinew__order_free(g);
  sinew__types_destroy(g);
  sinew__free(g);
}

uint64_t sinew_graph_limit(const sinew_graph_t *g, sinew_limit_t which) {
  if ((unsigned)which >= SINEW_LIMIT_COUNT_) return 0;
  return g ? g->limits[which] : limit_max[which];
}

uint64_t sinew_graph_set_limit(sinew_graph_t *g, sinew_limit_t which, uint64_t value) {
  if (!g || (unsigned)which >= SINEW_LIMIT_COUNT_) return 0;
  uint64_t old = g->limits[which];
  g->limits[which] = value < limit_max[which] ? value : limit_max[which];
  return old;
}

uint64_t sinew_graph_structure_serial(const sinew_graph_t *g) { return g ? g->structure : 0; }

void *sinew_graph_user_data(const sinew_graph_t *g) { return g ? g->user_data : NULL; }
void sinew_graph_set_user_data(sinew_graph_t *g, void *ud) {
  if (g) g->user_data = ud;
}

void sinew_graph_stats(const sinew_graph_t *g, sinew_graph_stats_t *out) {
  if (!g || !out) return;
  *out = g->stats;
  out->nodes = g->live_nodes;
  out->connections = g->nconnections;
}

void sinew_graph_reset_stats(sinew_graph_t *g) {
  if (g) memset(&g->stats, 0, sizeof g->stats);
}

int sinew_graph_add_observer(sinew_graph_t *g, const sinew_observer_t *obs, int *out_id) {
  if (!g || !obs) return SINEW_EINVAL;
  if (sinew__reserve((void **)&g->observers, &g->capobservers, g->nobservers + 1,
                     sizeof *g->observers))
    return SINEW_ENOMEM;
  sinew__observer_entry *e = &g->observers[g->nobservers++];
  e->obs = *obs;
  e->id = g->next_observer_id++;
  if (out_id) *out_id = e->id;
  return SINEW_OK;
}

int sinew_graph_remove_observer(sinew_graph_t *g, int id) {
  if (!g) return SINEW_EINVAL;
  for (uint32_t i = 0; i < g->nobservers; i++)
    if (g->observers[i].id == id) {
      memmove(&g->observers[i], &g->observers[i + 1],
              (g->nobservers - i - 1) * sizeof *g->observers);
      g->nobservers--;
      return SINEW_OK;
    }
  return SINEW_ENOTFOUND;
}

/* ---- node access --------------------------------------------------------------------------- */

static sinew_node_t handle_of(const sinew_graph_t *g, uint32_t index) {
  return (sinew_node_t){index, g->nodes[index]->gen};
}

uint32_t sinew__attr_chain(const sinew_graph_t *g, const sinew__node *node, uint32_t attr,
                           uint32_t chain[SINEW__MAX_DEPTH]) {
  const sinew__attr *a = sinew__attr_get(g, node, attr);
  uint32_t len = a->depth + 1;
  for (uint32_t i = len; i-- > 0;) {
    chain[i] = a->id;
    if (a->parent != SINEW__NO_ATTR) a = sinew__attr_get(g, node, a->parent);
  }
  return len;
}

bool sinew_node_valid(const sinew_graph_t *g, sinew_node_t n) { return sinew__node_get(g, n) != NULL; }

const char *sinew_node_name(const sinew_graph_t *g, sinew_node_t n) {
  sinew__node *node = sinew__node_get(g, n);
  return node ? node->name : NULL;
}

const sinew_node_type_t *sinew_node_type(const sinew_graph_t *g, sinew_node_t n) {
  sinew__node *node = sinew__node_get(g, n);
  return node ? node->type : NULL;
}

void *sinew_node_state(const sinew_graph_t *g, sinew_node_t n) {
  sinew__node *node = sinew__node_get(g, n);
  return node ? node->state : NULL;
}

void *sinew_node_user_data(const sinew_graph_t *g, sinew_node_t n) {
  sinew__node *node = sinew__node_get(g, n);
  return node ? node->user_data : NULL;
}

void sinew_node_set_user_data(sinew_graph_t *g, sinew_node_t n, void *ud) {
  sinew__node *node = sinew__node_get(g, n);
  if (node) node->user_data = ud;
}

size_t sinew_node_count(const sinew_graph_t *g) { return g ? g->live_nodes : 0; }

bool sinew_node_next(const sinew_graph_t *g, sinew_node_t *iter) {
  if (!g || !iter) return false;
  uint32_t next;
  if (iter->gen == 0) {
    next = g->order_head;
  } else {
    sinew__node *cur = sinew__node_get(g, *iter);
    if (!cur) return false;
    next = cur->order_next;
  }
  if (!next) return false;
  *iter = handle_of(g, next - 1);
  return true;
}

size_t sinew_node_list_type(const sinew_graph_t *g, const char *type, bool exact, sinew_node_t *out,
                            size_t cap) {
  const sinew_node_type_t *want = sinew_find_node_type(g, type);
  if (!want) return 0;
  size_t total = 0;
  for (uint32_t i = g->order_head; i; i = g->nodes[i - 1]->order_next) {
    const sinew_node_type_t *t = g->nodes[i - 1]->type;
    if (!exact)
      while (t && t != want) t = t->parent;
    if (t != want) continue;
    if (out && total < cap) out[total] = handle_of(g, i - 1);
    total++;
  }
  return total;
}

char *sinew_node_path(const sinew_graph_t *g, sinew_node_t n) {
  sinew__node *node = sinew__node_get(g, n);
  if (!node) return NULL;
  if (!(node->type->flags & SINEW_NODE_TYPE_DAG)) return sinew__strdup(node->name);
  size_t len = 0;
  for (sinew__node *x = node; x; x = sinew__node_get(g, x->parent)) len += strlen(x->name) + 1;
  char *out = sinew__malloc(len + 1);
  if (!out) return NULL;
  out[len] = 0;
  size_t end = len;
  for (sinew__node *x = node; x; x = sinew__node_get(g, x->parent)) {
    size_t l = strlen(x->name);
    end -= l;
    memcpy(out + end, x->name, l);
    out[--end] = '|';
  }
  return out;
}

/* ---- names ------------------------------------------------------------------------------- */

static bool is_dag(const sinew__node *n) { return (n->type->flags & SINEW_NODE_TYPE_DAG) != 0; }

/* The first len characters of s make a valid name: not empty, not starting with a digit, only
 * letters, digits, '_' and ':'. */
static bool valid_name_n(const char *s, size_t len) {
  if (!s || !len || isdigit((unsigned char)*s)) return false;
  for (size_t i = 0; i < len; i++)
    if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != ':') return false;
  return true;
}

/* A name asked for at creation or renaming: a valid name, or a valid base followed by '#'
 * (automatic numbering); NULL or "" (the type name as base) only where `automatic_ok`. */
static bool valid_request(const char *s, bool automatic_ok) {
  size_t len = s ? strlen(s) : 0;
  if (!len) return automatic_ok;
  if (s[len - 1] == '#') return valid_name_n(s, len - 1);
  return valid_name_n(s, len);
}

static sinew__name_entry *name_entry(const sinew_graph_t *g, const char *name) {
  sinew__name_entry *e = NULL;
  HASH_FIND_STR(g->names, name, e);
  return e;
}

/* A name is taken for a new or renamed node when a DG node has it, or (for a DAG node) a
 * sibling under the same parent has it; automatic names avoid every node. */
static bool name_taken(const sinew_graph_t *g, const char *name, bool dag, sinew_node_t parent,
                       bool automatic, const sinew__node *self) {
  sinew__name_entry *e = name_entry(g, name);
  if (!e) return false;
  for (uint32_t i = e->first; i; i = g->nodes[i - 1]->name_next) {
    const sinew__node *x = g->nodes[i - 1];
    if (x == self) continue;
    if (!dag || !is_dag(x) || automatic) return true;
    if (x->parent.index == parent.index && x->parent.gen == parent.gen) return true;
  }
  return false;
}

/* The hint for the base name base[0..len). */
static sinew__name_hint *hint_find(const sinew_graph_t *g, const char *base, size_t len) {
  sinew__name_hint *h = NULL;
  HASH_FIND(hh, g->hints, base, len, h);
  return h;
}

/* Remembers that numbers below `next` are taken for base[0..len) (best effort: no memory, no
 * hint). */
static void hint_store(sinew_graph_t *g, const char *base, size_t len, unsigned long next) {
  sinew__name_hint *h = hint_find(g, base, len);
  if (!h) {
    h = sinew__calloc(1, sizeof *h);
    if (!h) return;
    h->base = sinew__malloc(len + 1);
    if (!h->base) {
      sinew__free(h);
      return;
    }
    memcpy(h->base, base, len);
    h->base[len] = 0;
    sinew__uthash_oom = 0;
    HASH_ADD_KEYPTR(hh, g->hints, h->base, len, h);
    if (sinew__uthash_oom) {
      sinew__free(h->base);
      sinew__free(h);
      return;
    }
  }
  h->next = next;
}

/* A name "base12" is free again: the hint for base may not skip 12 any more. */
static void hint_release(sinew_graph_t *g, const char *name) {
  size_t len = strlen(name), bl = len;
  while (bl > 0 && isdigit((unsigned char)name[bl - 1])) bl--;
  if (bl == len || bl == 0) return;
  sinew__name_hint *h = hint_find(g, name, bl);
  unsigned long n = strtoul(name + bl, NULL, 10);
  if (h && n >= 1 && n < h->next) h->next = n;
}

/* Chooses the name for a node by Maya's rules (see sinew_node_create) into *out (the caller
 * frees it). `wanted` passed valid_request. Names have no length limit. */
static int unique_name(sinew_graph_t *g, const char *wanted, const char *type_name, bool dag,
                       sinew_node_t parent, const sinew__node *self, char **out) {
  size_t wl = wanted ? strlen(wanted) : 0;
  bool automatic = wl == 0 || wanted[wl - 1] == '#';
  const char *base;
  size_t bl;
  unsigned long n = 1;
  if (automatic) {
    base = wl ? wanted : type_name;
    bl = wl ? wl - 1 : strlen(type_name);
    if (!valid_name_n(base, bl)) return SINEW_EINVAL; /* a type name that is no node name */
    sinew__name_hint *h = hint_find(g, base, bl);
    if (h && h->next > n) n = h->next;
  } else {
    if (!name_taken(g, wanted, dag, parent, false, self)) {
      *out = sinew__strdup(wanted);
      return *out ? SINEW_OK : SINEW_ENOMEM;
    }
    /* taken: its trailing number goes up ("joint3" -> "joint4"), or one is added */
    base = wanted;
    bl = wl;
    while (bl > 0 && isdigit((unsigned char)wanted[bl - 1])) bl--;
    if (bl < wl) {
      errno = 0;
      unsigned long cur = strtoul(wanted + bl, NULL, 10);
      if (errno || cur == ULONG_MAX) bl = wl; /* too many digits to count on: append */
      else n = cur + 1;
    }
  }
  char *cand = sinew__malloc(bl + 24); /* base, up to 20 digits, NUL */
  if (!cand) return SINEW_ENOMEM;
  memcpy(cand, base, bl);
  for (;; n++) {
    snprintf(cand + bl, 24, "%lu", n);
    if (!name_taken(g, cand, dag, parent, automatic, self)) break;
  }
  if (automatic) hint_store(g, base, bl, n + 1); /* only once the name is really taken */
  *out = cand;
  return SINEW_OK;
}

static int name_link(sinew_graph_t *g, uint32_t index) {
  sinew__node *n = g->nodes[index];
  sinew__name_entry *e = name_entry(g, n->name);
  if (!e) {
    e = sinew__calloc(1, sizeof *e);
    if (!e) return SINEW_ENOMEM;
    e->name = sinew__strdup(n->name);
    if (!e->name) {
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
  }
  n->name_next = e->first;
  e->first = index + 1;
  return SINEW_OK;
}

static void name_unlink(sinew_graph_t *g, uint32_t index) {
  sinew__node *n = g->nodes[index];
  sinew__name_entry *e = name_entry(g, n->name);
  if (!e) return;
  for (uint32_t *link = &e->first; *link; link = &g->nodes[*link - 1]->name_next)
    if (*link == index + 1) {
      *link = n->name_next;
      break;
    }
  n->name_next = 0;
  if (!e->first) {
    HASH_DELETE(hh, g->names, e);
    sinew__free(e->name);
    sinew__free(e);
  }
}

/* Makes sure name has an index entry, so that a later name_link of it cannot fail: renaming
 * reserves the new name before it lets the old one go. */
static int name_reserve(sinew_graph_t *g, const char *name) {
  if (name_entry(g, name)) return SINEW_OK;
  sinew__name_entry *e = sinew__calloc(1, sizeof *e);
  if (!e) return SINEW_ENOMEM;
  e->name = sinew__strdup(name);
  if (!e->name) {
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
  return SINEW_OK;
}

/* Drops a reserved entry that no node took. */
static void name_unreserve(sinew_graph_t *g, const char *name) {
  sinew__name_entry *e = name_entry(g, name);
  if (!e || e->first) return;
  HASH_DELETE(hh, g->names, e);
  sinew__free(e->name);
  sinew__free(e);
}

void sinew__node_name_swap(sinew_graph_t *g, sinew__rec *r) {
  uint32_t index = r->plug.node.index;
  sinew__node *n = g->nodes[index];
  char *other = r->u.ren.name;
  sinew__name_entry *eo = name_entry(g, other);
  if (!eo) { /* the entry an earlier swap took out of the index */
    eo = r->u.ren.entry;
    r->u.ren.entry = NULL;
    eo->first = 0;
    SINEW__HASH_READD(hh, g->names, eo->name, strlen(eo->name), eo);
  }
  sinew__name_entry *e = name_entry(g, n->name);
  if (e) {
    for (uint32_t *link = &e->first; *link; link = &g->nodes[*link - 1]->name_next)
      if (*link == index + 1) {
        *link = n->name_next;
        break;
      }
    if (!e->first) { /* kept for the swap back (the index has its sentinel: no table freed) */
      HASH_DELETE(hh, g->names, e);
      r->u.ren.entry = e;
    }
  }
  char *cur = n->name;
  n->name = other;
  r->u.ren.name = cur;
  n->name_next = eo->first;
  eo->first = index + 1;
  hint_release(g, cur);
}

/* Gives node index the name newname (owned by the caller until it succeeds). */
static int name_change(sinew_graph_t *g, uint32_t index, char *newname) {
  sinew__node *n = g->nodes[index];
  if (name_reserve(g, newname)) return SINEW_ENOMEM;
  if (sinew__jon(g)) { /* the caller reserved the record */
    sinew__rec *r = sinew__jpush(g, SINEW__J_RENAME);
    r->plug.node = (sinew_node_t){index, n->gen};
    r->u.ren.name = newname;
    sinew__node_name_swap(g, r);
    return SINEW_OK;
  }
  char *oldname = n->name;
  name_unlink(g, index);
  n->name = newname;
  name_link(g, index); /* the entry exists: cannot fail */
  hint_release(g, oldname); /* "add1" renamed away is the first free number again */
  sinew__free(oldname);
  return SINEW_OK;
}

/* The path component ending just before *end in [start, *end): components are separated by
 * '|', empty ones are skipped, and one leading ':' (the root namespace) is dropped. Moves *end
 * before the component; false when there is none. */
static bool prev_component(const char *start, const char **end, const char **comp, size_t *len) {
  const char *e = *end;
  while (e > start && e[-1] == '|') e--;
  if (e == start) return false;
  const char *b = e;
  while (b > start && b[-1] != '|') b--;
  *end = b;
  if (*b == ':') b++;
  *comp = b;
  *len = (size_t)(e - b);
  return true;
}

/* Does node x's ancestry match the path text[0..len), read from its last component? */
static bool path_matches(const sinew_graph_t *g, const sinew__node *x, const char *text, size_t len,
                         bool absolute) {
  const char *end = text + len, *comp;
  size_t cl;
  while (prev_component(text, &end, &comp, &cl)) {
    if (!x || strlen(x->name) != cl || memcmp(x->name, comp, cl) != 0) return false;
    x = sinew__node_get(g, x->parent);
  }
  return !absolute || x == NULL;
}

int sinew__node_find_n(const sinew_graph_t *g, const char *name, size_t len, sinew_node_t *out) {
  while (len && *name == ':') {
    name++;
    len--;
  }
  bool absolute = len && *name == '|';
  const char *end = name + len, *last;
  size_t ll;
  if (!prev_component(name, &end, &last, &ll)) return SINEW_ENOTFOUND;
  sinew__name_entry *e = NULL;
  HASH_FIND(hh, g->names, last, ll, e);
  if (!e) return SINEW_ENOTFOUND;
  uint32_t found = 0, count = 0;
  for (uint32_t i = e->first; i; i = g->nodes[i - 1]->name_next)
    if (path_matches(g, g->nodes[i - 1], name, len, absolute)) {
      found = i;
      count++;
    }
  if (count == 0) return SINEW_ENOTFOUND;
  if (count > 1) return SINEW_EAMBIGUOUS;
  *out = handle_of(g, found - 1);
  return SINEW_OK;
}

int sinew_node_find(const sinew_graph_t *g, const char *name, sinew_node_t *out) {
  if (!g || !name || !out) return SINEW_EINVAL;
  return sinew__node_find_n(g, name, strlen(name), out);
}

/* ---- hierarchy ------------------------------------------------------------------------------ */

static int child_add(sinew_graph_t *g, sinew__node *parent, sinew_node_t child) {
  if (sinew__reserve((void **)&parent->children, &parent->capchildren, parent->nchildren + 1,
                     sizeof *parent->children))
    return SINEW_ENOMEM;
  parent->children[parent->nchildren++] = child;
  return SINEW_OK;
}

static void child_remove(sinew__node *parent, sinew_node_t child) {
  for (uint32_t i = 0; i < parent->nchildren; i++)
    if (parent->children[i].index == child.index) {
      memmove(&parent->children[i], &parent->children[i + 1],
              (parent->nchildren - i - 1) * sizeof *parent->children);
      parent->nchildren--;
      return;
    }
}

static uint32_t child_pos(const sinew__node *parent, sinew_node_t child) {
  uint32_t i = 0;
  while (i < parent->nchildren && parent->children[i].index != child.index) i++;
  return i;
}

void sinew__node_parent_swap(sinew_graph_t *g, sinew__rec *r) {
  sinew__node *node = sinew__node_get(g, r->plug.node);
  if (!node) return;
  sinew_node_t other_h = r->u.par.parent;
  sinew__node *cur = sinew__node_get(g, node->parent), *other = sinew__node_get(g, other_h);
  uint32_t pos = 0;
  if (cur) {
    pos = child_pos(cur, r->plug.node);
    child_remove(cur, r->plug.node);
  }
  if (other) { /* it was there in this order before: the room is still there */
    uint32_t at = r->u.par.pos < other->nchildren ? r->u.par.pos : other->nchildren;
    memmove(&other->children[at + 1], &other->children[at], (other->nchildren - at) * sizeof *other->children);
    other->children[at] = r->plug.node;
    other->nchildren++;
  }
  r->u.par.parent = cur ? node->parent : (sinew_node_t){0, 0};
  r->u.par.pos = pos;
  node->parent = other ? other_h : (sinew_node_t){0, 0};
}

/* The implicit parent.out -> child.in plugs of a DAG link, if the type declares one. */
static bool dag_link_plugs(sinew_graph_t *g, sinew_node_t child, sinew_node_t parent,
                           sinew_plug_t *src, sinew_plug_t *dst) {
  sinew__node *c = sinew__node_get(g, child), *p = sinew__node_get(g, parent);
  if (!c || !p || !c->type->dag_child_input || !p->type->dag_parent_output) return false;
  if (sinew_plug_parse_attr(g, parent, p->type->dag_parent_output, src)) return false;
  if (sinew_plug_parse_attr(g, child, c->type->dag_child_input, dst)) return false;
  return true;
}

static void dag_unlink(sinew_graph_t *g, sinew_node_t child) {
  sinew__node *c = sinew__node_get(g, child);
  sinew_plug_t src, dst;
  if (!c || !sinew__node_get(g, c->parent)) return;
  if (dag_link_plugs(g, child, c->parent, &src, &dst)) {
    sinew__conn *conn = sinew__conn_to(g, &dst);
    if (conn && conn->implicit) sinew__disconnect_conn(g, conn, true);
  }
}

static int dag_link(sinew_graph_t *g, sinew_node_t child, sinew_node_t parent) {
  sinew_plug_t src, dst;
  if (!dag_link_plugs(g, child, parent, &src, &dst)) return SINEW_OK;
  return sinew__connect_raw(g, &src, &dst, true, "parent");
}

sinew_node_t sinew_node_parent(const sinew_graph_t *g, sinew_node_t n) {
  sinew__node *node = sinew__node_get(g, n);
  if (!node || !sinew__node_get(g, node->parent)) return (sinew_node_t){0, 0};
  return node->parent;
}

size_t sinew_node_children(const sinew_graph_t *g, sinew_node_t n, sinew_node_t *out, size_t cap) {
  sinew__node *node = sinew__node_get(g, n);
  if (!node) return 0;
  for (uint32_t i = 0; out && i < node->nchildren && i < cap; i++) out[i] = node->children[i];
  return node->nchildren;
}

/* Is x the node p or one of its ancestors? Walks up from p and down x's subtree one node at a
 * time each, so the cost follows the shorter of the two (a new child of a deep chain's leaf, or
 * a small subtree moved under it, is not a walk up the whole chain). 1 yes, 0 no, -1 out of
 * memory. */
static int is_above(sinew_graph_t *g, sinew_node_t x, sinew_node_t p) {
  if (x.index == p.index) return 1;
  sinew__node *xn = sinew__node_get(g, x);
  if (!xn->nchildren) return 0;
  sinew_node_t *queue = NULL, up = p;
  uint32_t head = 0, n = 0, cap = 0;
  int answer = -1;
  for (;;) {
    up = sinew__node_get(g, up)->parent; /* one step up */
    if (!sinew__node_get(g, up)) { answer = 0; break; }
    if (up.index == x.index) { answer = 1; break; }
    const sinew__node *d = head < n ? sinew__node_get(g, queue[head++]) : n ? NULL : xn; /* one down */
    if (!d) { answer = 0; break; }
    if (sinew__reserve((void **)&queue, &cap, n + d->nchildren, sizeof *queue)) break;
    for (uint32_t k = 0; k < d->nchildren; k++) {
      if (d->children[k].index == p.index) answer = 1;
      queue[n++] = d->children[k];
    }
    if (answer == 1) break;
  }
  sinew__free(queue);
  return answer;
}

int sinew_node_set_parent(sinew_graph_t *g, sinew_node_t n, sinew_node_t parent) {
  sinew__node *node = sinew__node_get(g, n);
  if (!node) return sinew_graph_fail(g, SINEW_ESTALE, "parent", "invalid node handle");
  if (sinew__check_mutable(g, "parent")) return SINEW_EINVAL;
  if (!is_dag(node)) return sinew_graph_fail(g, SINEW_ETYPE, "parent", "%s is not a DAG node", node->name);
  sinew__node *p = NULL;
  if (parent.gen) {
    p = sinew__node_get(g, parent);
    if (!p) return sinew_graph_fail(g, SINEW_ESTALE, "parent", "invalid parent handle");
    if (!is_dag(p)) return sinew_graph_fail(g, SINEW_ETYPE, "parent", "%s is not a DAG node", p->name);
    int above = is_above(g, n, parent);
    if (above < 0) return sinew_graph_fail(g, SINEW_ENOMEM, "parent", "out of memory");
    if (above)
      return sinew_graph_fail(g, SINEW_ECYCLE, "parent", "%s cannot be parented under %s, its own %s",
                              node->name, p->name, n.index == parent.index ? "self" : "descendant");
  }
  sinew_node_t old = sinew_node_parent(g, n);
  if (old.gen == parent.gen && old.index == parent.index) return SINEW_OK;
  /* Reserve and check everything that can fail before changing anything. The journal: the
   * implicit link's records (elements, the destination's value, the link made and the one it
   * replaces, or the link cut and the value it leaves), the parent, a rename. */
  bool jon = sinew__jon(g);
  if ((p && sinew__reserve((void **)&p->children, &p->capchildren, p->nchildren + 1,
                           sizeof *p->children)) ||
      (jon && sinew__jreserve(g, 4 * SINEW_PLUG_MAX_INDICES + 16)))
    return sinew_graph_fail(g, SINEW_ENOMEM, "parent", "out of memory");
  char *newname = NULL;
  if (name_taken(g, node->name, true, parent, false, node)) {
    if (unique_name(g, node->name, node->type->name, true, parent, node, &newname) ||
        name_reserve(g, newname)) {
      sinew__free(newname);
      return sinew_graph_fail(g, SINEW_ENOMEM, "parent", "out of memory");
    }
  }
  /* The implicit link: a link to the new parent replaces the old one in one step (nothing
   * changes if it fails); without a new one, the old one is cut and the child input keeps its
   * value, pulled first so that the cut itself cannot fail. */
  sinew_plug_t src, dst;
  int rc = SINEW_OK;
  if (p && dag_link_plugs(g, n, parent, &src, &dst)) {
    rc = sinew__connect_raw(g, &src, &dst, true, "parent");
  } else if (dag_link_plugs(g, n, old, &src, &dst) && sinew__conn_to(g, &dst)) {
    rc = sinew__pull(g, &dst);
    if (!rc && sinew__reserve_push(g)) rc = sinew_graph_fail(g, SINEW_ENOMEM, "parent", "out of memory");
    if (!rc) dag_unlink(g, n);
  }
  if (rc) {
    if (newname) {
      name_unreserve(g, newname);
      sinew__free(newname);
    }
    return rc;
  }
  sinew__node *oldp = sinew__node_get(g, old);
  if (jon) { /* the swap does the move: out of the old parent, to the end of the new one */
    sinew__rec *r = sinew__jpush(g, SINEW__J_PARENT);
    r->plug.node = n;
    r->u.par.parent = p ? parent : (sinew_node_t){0, 0};
    r->u.par.pos = p ? p->nchildren : 0;
    sinew__node_parent_swap(g, r);
  } else {
    if (oldp) child_remove(oldp, n);
    node->parent = p ? parent : (sinew_node_t){0, 0};
    if (p) child_add(g, p, n); /* reserved above: cannot fail */
  }
  if (newname) name_change(g, n.index, newname); /* reserved above: cannot fail */
  return SINEW_OK;
}

/* ---- create / delete / rename ---------------------------------------------------------- */

static int slots_init(sinew_graph_t *g, sinew__node *node) {
  const sinew_node_type_t *t = node->type;
  node->slots = sinew__calloc(t->ntop ? t->ntop : 1, sizeof *node->slots);
  if (!node->slots) return SINEW_ENOMEM;
  node->nslots = t->ntop;
  for (uint32_t id = 0; id < t->nattrs; id++) {
    const sinew__attr *a = &t->attrs[id];
    if (a->parent != SINEW__NO_ATTR) continue;
    int rc = sinew__slot_init(g, node, a, false, &node->slots[a->slot_index]);
    if (rc) {
      for (uint32_t j = 0; j < id; j++)
        if (t->attrs[j].parent == SINEW__NO_ATTR)
          sinew__slot_release(g, node, &t->attrs[j], false, &node->slots[t->attrs[j].slot_index]);
      sinew__free(node->slots);
      node->slots = NULL;
      return rc;
    }
  }
  node->maybe_dirty = ~(uint64_t)0; /* computed slots are born dirty */
  return SINEW_OK;
}

static int index_alloc(sinew_graph_t *g, uint32_t *out) {
  if (g->nfree) {
    *out = g->free_slots[--g->nfree];
    return SINEW_OK;
  }
  if (sinew__reserve((void **)&g->nodes, &g->capnodes, g->nnodes + 1, sizeof *g->nodes))
    return SINEW_ENOMEM;
  if (sinew__reserve((void **)&g->free_slots, &g->capfree, g->nnodes + 1, sizeof *g->free_slots))
    return SINEW_ENOMEM; /* so deletion never needs to allocate */
  g->nodes[g->nnodes] = NULL;
  *out = g->nnodes++;
  return SINEW_OK;
}

static void order_unlink(sinew_graph_t *g, uint32_t index) {
  sinew__node *n = g->nodes[index];
  if (n->order_prev) g->nodes[n->order_prev - 1]->order_next = n->order_next;
  else g->order_head = n->order_next;
  if (n->order_next) g->nodes[n->order_next - 1]->order_prev = n->order_prev;
  else g->order_tail = n->order_prev;
  n->order_prev = n->order_next = 0;
}

static void notify_node(sinew_graph_t *g, sinew_node_t n, bool added) {
  g->pushing++; /* observers may read, not change the graph (node_removed runs mid-deletion) */
  for (uint32_t i = 0; i < g->nobservers; i++) {
    sinew_observer_t o = g->observers[i].obs;
    if (added && o.node_added) o.node_added(o.user_data, n);
    if (!added && o.node_removed) o.node_removed(o.user_data, n);
  }
  g->pushing--;
}

sinew__node *sinew__node_any(const sinew_graph_t *g, sinew_node_t h) {
  if (!g || h.gen == 0 || h.index >= g->nnodes) return NULL;
  sinew__node *node = g->nodes[h.index];
  return node && node->gen == h.gen && node->slots ? node : NULL;
}

void sinew__node_detach_swap(sinew_graph_t *g, sinew__rec *r) {
  if (r->bits & 1) return; /* its creation is under way */
  uint32_t index = r->plug.node.index;
  sinew__node *n = sinew__node_any(g, r->plug.node);
  if (!n) return;
  sinew_node_t h = r->plug.node;
  if (!r->held) { /* detach: what delete_one does, keeping the node, its index and generation */
    notify_node(g, h, false);
    sinew__node *p = sinew__node_get(g, n->parent);
    if (p) {
      r->u.nd.pos = child_pos(p, h);
      child_remove(p, h);
    }
    hint_release(g, n->name);
    sinew__name_entry *e = name_entry(g, n->name);
    if (e) {
      for (uint32_t *link = &e->first; *link; link = &g->nodes[*link - 1]->name_next)
        if (*link == index + 1) {
          *link = n->name_next;
          break;
        }
      n->name_next = 0;
      if (!e->first) {
        HASH_DELETE(hh, g->names, e);
        r->u.nd.entry = e;
      }
    }
    /* out of the creation order, keeping its neighbours to go back between them */
    if (n->order_prev) g->nodes[n->order_prev - 1]->order_next = n->order_next;
    else g->order_head = n->order_next;
    if (n->order_next) g->nodes[n->order_next - 1]->order_prev = n->order_prev;
    else g->order_tail = n->order_prev;
    n->live = false;
    g->structure++;
    g->live_nodes--;
    g->computed_plugs -= n->type->ncomputed;
    r->held = true;
    return;
  }
  n->live = true;
  g->structure++;
  g->live_nodes++;
  g->computed_plugs += n->type->ncomputed;
  if (n->order_prev) g->nodes[n->order_prev - 1]->order_next = index + 1;
  else g->order_head = index + 1;
  if (n->order_next) g->nodes[n->order_next - 1]->order_prev = index + 1;
  else g->order_tail = index + 1;
  sinew__name_entry *e = name_entry(g, n->name);
  if (!e) {
    e = r->u.nd.entry;
    r->u.nd.entry = NULL;
    e->first = 0;
    SINEW__HASH_READD(hh, g->names, e->name, strlen(e->name), e);
  }
  n->name_next = e->first;
  e->first = index + 1;
  sinew__node *p = sinew__node_get(g, n->parent);
  if (p) { /* its place is still there: children lists never shrink */
    uint32_t at = r->u.nd.pos < p->nchildren ? r->u.nd.pos : p->nchildren;
    memmove(&p->children[at + 1], &p->children[at], (p->nchildren - at) * sizeof *p->children);
    p->children[at] = h;
    p->nchildren++;
  }
  r->held = false;
  notify_node(g, h, true);
}

void sinew__node_free_detached(sinew_graph_t *g, sinew__rec *r) {
  if (r->u.nd.entry) {
    sinew__free(r->u.nd.entry->name);
    sinew__free(r->u.nd.entry);
    r->u.nd.entry = NULL;
  }
  sinew__node *n = sinew__node_any(g, r->plug.node);
  if (!r->held || !n || n->live) return;
  sinew__journal_forget_node(g, r->plug.node); /* other steps naming it */
  if (n->type->destroy) n->type->destroy(g, r->plug.node, n->state);
  node_release(g, n); /* the tombstone keeps the generation */
  g->free_slots[g->nfree++] = r->plug.node.index; /* reserved when it was created */
}

int sinew_node_create(sinew_graph_t *g, const char *type, const char *name, sinew_node_t *out) {
  return sinew_node_create_under(g, type, name, (sinew_node_t){0, 0}, out);
}

int sinew_node_create_under(sinew_graph_t *g, const char *type, const char *name,
                            sinew_node_t parent, sinew_node_t *out) {
  if (!g || !type) return SINEW_EINVAL;
  if (sinew__check_mutable(g, "createNode")) return SINEW_EINVAL;
  const sinew_node_type_t *t = sinew_find_node_type(g, type);
  if (!t) return sinew_graph_fail(g, SINEW_ENOTFOUND, "createNode", "unknown node type '%s'", type);
  if (t->flags & SINEW_NODE_TYPE_ABSTRACT)
    return sinew_graph_fail(g, SINEW_EINVAL, "createNode", "%s is an abstract type", type);
  bool dag = (t->flags & SINEW_NODE_TYPE_DAG) != 0;
  sinew__node *p = NULL;
  if (parent.gen) {
    p = sinew__node_get(g, parent);
    if (!p) return sinew_graph_fail(g, SINEW_ESTALE, "createNode", "invalid parent handle");
    if (!dag || !is_dag(p))
      return sinew_graph_fail(g, SINEW_ETYPE, "createNode", "%s cannot be parented under %s", type, p->name);
  }
  if (!valid_request(name, true))
    return sinew_graph_fail(g, SINEW_EINVAL, "createNode", "invalid node name '%s'", name);
  sinew__node *node = sinew__calloc(1, sizeof *node);
  if (!node) return sinew_graph_fail(g, SINEW_ENOMEM, "createNode", "%s: out of memory", type);
  node->type = t;
  int rc = unique_name(g, name, t->name, dag, parent, NULL, &node->name);
  if (rc == SINEW_EINVAL) {
    node_free(g, node);
    return sinew_graph_fail(g, rc, "createNode", "the type name '%s' is not a valid node name; give a name",
                            type);
  }
  if (!rc) rc = slots_init(g, node);
  if (!rc && t->state_size && !(node->state = sinew__calloc(1, t->state_size))) rc = SINEW_ENOMEM;
  if (!rc && p && sinew__reserve((void **)&p->children, &p->capchildren, p->nchildren + 1,
                                 sizeof *p->children))
    rc = SINEW_ENOMEM;
  /* journal: the node's record and the implicit link's (init reserves what it records) */
  bool jon = sinew__jon(g);
  if (!rc && jon && sinew__jreserve(g, 4 * SINEW_PLUG_MAX_INDICES + 16)) rc = SINEW_ENOMEM;
  uint32_t index = 0;
  if (!rc) rc = index_alloc(g, &index);
  if (rc) {
    if (node->name) hint_release(g, node->name); /* an automatic number it took is free again */
    node_free(g, node);
    return sinew_graph_fail(g, rc, "createNode", "%s: out of memory", type);
  }
  sinew__node *old = g->nodes[index]; /* a freed slot keeps its generation counter */
  node->gen = old ? old->gen + 1 : 1;
  if (node->gen == 0) node->gen = 1;
  if (old) sinew__free(old);
  g->nodes[index] = node;
  node->live = true;
  sinew_node_t h = {index, node->gen};
  rc = name_link(g, index);
  /* The node's record comes first (undone last), marked as under way until the node is whole;
   * what the DAG link and init record follows it. */
  uint32_t jmark = g->jr.n;
  if (!rc && jon) {
    sinew__rec *r = sinew__jpush(g, SINEW__J_NODE);
    r->plug.node = h;
    r->bits = 1;
  }
  if (!rc && p) {
    node->parent = parent;
    child_add(g, p, h);
    rc = dag_link(g, h, parent);
    if (rc) {
      child_remove(p, h);
      node->parent = (sinew_node_t){0, 0};
    }
  }
  if (!rc && t->init) rc = t->init(g, h, node->state);
  if (rc) {
    char msg[sizeof g->errmsg];
    snprintf(msg, sizeof msg, "%s: %s", type, g->err.code == rc ? g->errmsg : sinew_strerror(rc));
    /* Whatever init connected goes with the node (nothing keeps a value from a node that never
     * was), the DAG link included. Journaled, the records made since the node's take it back. */
    if (jon && g->jr.n > jmark) {
      sinew__jundo_to(g, jmark + 1);
      g->jr.n = jmark; /* the node's own record, under way: it owns nothing */
      node = g->nodes[index];
    }
    while (node->nconns) sinew__disconnect_conn(g, node->conns[node->nconns - 1], false);
    if (p) child_remove(p, h);
    hint_release(g, node->name);
    name_unlink(g, index);
    node->live = false;
    g->structure++;
    node_release(g, node); /* the tombstone keeps the generation */
    g->free_slots[g->nfree++] = index;
    return sinew_graph_fail(g, rc, "createNode", "%s", msg);
  }
  node->order_prev = g->order_tail;
  if (g->order_tail) g->nodes[g->order_tail - 1]->order_next = index + 1;
  else g->order_head = index + 1;
  g->order_tail = index + 1;
  g->live_nodes++;
  g->computed_plugs += t->ncomputed;
  g->structure++; /* whole now, in the creation order */
  if (jon) g->jr.recs[jmark].bits = 0; /* whole now: undo detaches it */
  notify_node(g, h, true);
  if (out) *out = h;
  return SINEW_OK;
}

/* Deletes one node whose DAG children are already gone. */
static void delete_one(sinew_graph_t *g, sinew_node_t h) {
  sinew__node *node = sinew__node_get(g, h);
  if (sinew__jon(g)) { /* detached, kept by its record: the connections go as their own records */
    while (node->nconns) {
      sinew__conn *c = node->conns[node->nconns - 1];
      sinew__disconnect_conn(g, c, sinew__node_get(g, c->dst.node) != node);
    }
    sinew__rec *r = sinew__jpush(g, SINEW__J_NODE);
    r->plug.node = h;
    sinew__node_detach_swap(g, r);
    return;
  }
  sinew__journal_forget_node(g, h); /* undo steps that name it can no longer apply */
  notify_node(g, h, false);
  /* Destinations on other nodes keep the last value they had from this one. */
  while (node->nconns) {
    sinew__conn *c = node->conns[node->nconns - 1];
    sinew__disconnect_conn(g, c, sinew__node_get(g, c->dst.node) != node);
  }
  if (node->type->destroy) node->type->destroy(g, h, node->state);
  sinew__node *p = sinew__node_get(g, node->parent);
  if (p) child_remove(p, h);
  hint_release(g, node->name);
  name_unlink(g, h.index);
  order_unlink(g, h.index);
  node->live = false;
  g->structure++;
  g->live_nodes--;
  g->computed_plugs -= node->type->ncomputed;
  node_release(g, node); /* the tombstone keeps the generation for stale-handle checks */
  g->free_slots[g->nfree++] = h.index;
}

/* delete_many's marks on the nodes themselves (no buffer the size of the graph): a fresh epoch
 * makes every earlier mark old. */
enum {
  SEEN = 1,    /* in the subtree of a root looked at (pass one) */
  COVERED = 2, /* a listed root inside another listed root's subtree */
  TAKEN = 4,   /* its subtree is collected (pass two) */
  LOOKED = 8   /* a root pass one started from */
};

static void walk_begin(sinew_graph_t *g) {
  if (++g->walk_epoch >= (1u << 28)) {
    for (uint32_t i = 0; i < g->nnodes; i++)
      if (g->nodes[i]) g->nodes[i]->walk = 0;
    g->walk_epoch = 1;
  }
}

static uint32_t walk_bits(const sinew_graph_t *g, const sinew__node *x) {
  return (x->walk >> 4) == g->walk_epoch ? x->walk & 15 : 0;
}

static void walk_mark(const sinew_graph_t *g, sinew__node *x, uint32_t bits) {
  x->walk = (g->walk_epoch << 4) | walk_bits(g, x) | bits;
}

/* Pass one, with several roots: marks those inside another's subtree COVERED,
 * walking down the subtrees rather than up the ancestries. A root already SEEN lies in the
 * subtree of a root looked at before it; a walk that meets an earlier root stops there. */
static int mark_covered(sinew_graph_t *g, const sinew_node_t *nodes, size_t n, sinew_node_t **list,
                        uint32_t *cap) {
  for (size_t r = 0; r < n; r++) {
    sinew__node *root = sinew__node_get(g, nodes[r]);
    if (walk_bits(g, root) & LOOKED) continue; /* listed twice: pass two takes it once */
    if (walk_bits(g, root) & SEEN) {
      walk_mark(g, root, COVERED);
      continue;
    }
    walk_mark(g, root, SEEN | LOOKED);
    uint32_t count = 0;
    if (sinew__reserve((void **)list, cap, 1, sizeof **list)) return SINEW_ENOMEM;
    (*list)[count++] = nodes[r];
    for (uint32_t i = 0; i < count; i++) {
      sinew__node *x = sinew__node_get(g, (*list)[i]);
      if (sinew__reserve((void **)list, cap, count + x->nchildren, sizeof **list)) return SINEW_ENOMEM;
      for (uint32_t k = 0; k < x->nchildren; k++) {
        sinew__node *y = sinew__node_get(g, x->children[k]);
        if (walk_bits(g, y) & SEEN) { /* an earlier root: its subtree is seen */
          walk_mark(g, y, COVERED);
          continue;
        }
        walk_mark(g, y, SEEN);
        (*list)[count++] = x->children[k];
      }
    }
  }
  return SINEW_OK;
}

int sinew_node_delete_many(sinew_graph_t *g, const sinew_node_t *nodes, size_t n) {
  if (!g || (n && !nodes)) return SINEW_EINVAL;
  for (size_t r = 0; r < n; r++)
    if (!sinew__node_get(g, nodes[r]))
      return sinew_graph_fail(g, SINEW_ESTALE, "delete", "invalid node handle");
  if (sinew__check_mutable(g, "delete")) return SINEW_EINVAL;
  if (n == 0) return SINEW_OK;
  const char *first = sinew__node_get(g, nodes[0])->name;
  /* Collect each subtree breadth-first, skipping roots listed twice or inside another root's
   * subtree (so the subtrees are disjoint); refuse if any node in them is locked. Both passes
   * are linear in the subtrees; one root needs no first pass. */
  uint32_t cap = 16, count = 0;
  sinew_node_t *list = sinew__malloc(cap * sizeof *list);
  int rc = list ? SINEW_OK : SINEW_ENOMEM;
  walk_begin(g);
  if (!rc && n > 1) rc = mark_covered(g, nodes, n, &list, &cap);
  for (size_t r = 0; r < n && !rc; r++) {
    sinew__node *root = sinew__node_get(g, nodes[r]);
    if (walk_bits(g, root) & (TAKEN | COVERED)) continue; /* listed twice, or in another's subtree */
    walk_mark(g, root, TAKEN);
    if (sinew__reserve((void **)&list, &cap, count + 1, sizeof *list)) {
      rc = SINEW_ENOMEM;
      break;
    }
    uint32_t begin = count;
    list[count++] = nodes[r];
    for (uint32_t i = begin; i < count && !rc; i++) {
      sinew__node *x = sinew__node_get(g, list[i]);
      if (x->locked && i == begin) {
        rc = sinew_graph_fail(g, SINEW_ELOCKED, "delete", "node %s is locked", x->name);
      } else if (x->locked) {
        rc = sinew_graph_fail(g, SINEW_ELOCKED, "delete", "node %s: its descendant %s is locked",
                              sinew__node_get(g, nodes[r])->name, x->name);
      } else if (sinew__reserve((void **)&list, &cap, count + x->nchildren, sizeof *list)) {
        rc = SINEW_ENOMEM;
      } else {
        for (uint32_t k = 0; k < x->nchildren; k++) list[count++] = x->children[k];
      }
    }
  }
  bool jon = sinew__jon(g);
  if (!rc && jon) { /* two records per connection broken, one per node */
    uint64_t need = 0;
    for (uint32_t i = 0; i < count; i++) need += 2u * sinew__node_get(g, list[i])->nconns + 1;
    if (need > UINT32_MAX / 4 || sinew__jreserve(g, (uint32_t)need)) rc = SINEW_ENOMEM;
  }
  if (rc) {
    sinew__free(list);
    return rc == SINEW_ENOMEM ? sinew_graph_fail(g, SINEW_ENOMEM, "delete", "%s: out of memory", first) : rc;
  }
  /* Destinations on other nodes keep the value they have from the subtrees: bring them up to
   * date, and make room for the dirt their cutting pushes, before anything goes, so that the
   * deletion cannot fail half-way. */
  for (uint32_t i = 0; i < count; i++) {
    sinew__node *x = sinew__node_get(g, list[i]);
    for (uint32_t k = 0; k < x->nconns; k++) {
      const sinew__conn *c = x->conns[k];
      if (c->dst.node.index == list[i].index) continue;
      sinew_plug_t dst = c->dst;
      rc = sinew__pull(g, &dst);
      if (!rc && sinew__reserve_push(g)) rc = sinew_graph_set_error(g, SINEW_ENOMEM, "out of memory");
      if (rc) {
        sinew__free(list);
        char msg[sizeof g->errmsg];
        memcpy(msg, g->errmsg, sizeof msg);
        return sinew_graph_fail(g, rc, "delete", "%s: %s", first, msg);
      }
      x = sinew__node_get(g, list[i]); /* a compute cannot delete it, but stay safe */
      if (!x) break;
    }
  }
  /* children before parents: each subtree's list is in breadth-first order */
  for (uint32_t i = count; i-- > 0;) delete_one(g, list[i]);
  sinew__free(list);
  return SINEW_OK;
}

int sinew_node_delete(sinew_graph_t *g, sinew_node_t n) {
  if (!g) return SINEW_EINVAL;
  return sinew_node_delete_many(g, &n, 1);
}

int sinew_node_rename(sinew_graph_t *g, sinew_node_t n, const char *name) {
  sinew__node *node = sinew__node_get(g, n);
  if (!node) return sinew_graph_fail(g, SINEW_ESTALE, "rename", "invalid node handle");
  if (node->locked) return sinew_graph_fail(g, SINEW_ELOCKED, "rename", "node %s is locked", node->name);
  if (!valid_request(name, false))
    return sinew_graph_fail(g, SINEW_EINVAL, "rename", "%s: invalid name '%s'", node->name, name ? name : "");
  if (strcmp(name, node->name) == 0) return SINEW_OK;
  if (sinew__jon(g) && sinew__jreserve(g, 1))
    return sinew_graph_fail(g, SINEW_ENOMEM, "rename", "%s: out of memory", node->name);
  char *newname = NULL;
  if (unique_name(g, name, node->type->name, is_dag(node), node->parent, node, &newname))
    return sinew_graph_fail(g, SINEW_ENOMEM, "rename", "%s: out of memory", node->name);
  if (strcmp(newname, node->name) == 0) { /* "j" for a "j1" whose sibling is "j": stays "j1" */
    sinew__free(newname);
    return SINEW_OK;
  }
  if (name_change(g, n.index, newname)) {
    sinew__free(newname);
    return sinew_graph_fail(g, SINEW_ENOMEM, "rename", "%s: out of memory", node->name);
  }
  return SINEW_OK;
}

int sinew_node_set_locked(sinew_graph_t *g, sinew_node_t n, bool locked) {
  sinew__node *node = sinew__node_get(g, n);
  if (!node) return sinew_graph_fail(g, SINEW_ESTALE, "lockNode", "invalid node handle");
  if (sinew__jon(g)) {
    if (sinew__jreserve(g, 1)) return sinew_graph_fail(g, SINEW_ENOMEM, "lockNode", "out of memory");
    sinew__rec *r = sinew__jpush(g, SINEW__J_NODE_LOCK);
    r->plug.node = n;
    r->u.locked = node->locked;
  }
  node->locked = locked;
  return SINEW_OK;
}

bool sinew_node_locked(const sinew_graph_t *g, sinew_node_t n) {
  sinew__node *node = sinew__node_get(g, n);
  return node && node->locked;
}

/* ---- attributes ---------------------------------------------------------------------------- */

uint32_t sinew_node_attr_count(const sinew_graph_t *g, sinew_node_t n) {
  sinew__node *node = sinew__node_get(g, n);
  return node ? sinew__node_nattrs(node) : 0;
}

static bool same_text(const char *s, const char *text, size_t len) {
  return s && strlen(s) == len && memcmp(s, text, len) == 0;
}

uint32_t sinew__node_attr_n(const sinew__node *node, const char *name, size_t len) {
  sinew__name_id *e = NULL;
  HASH_FIND(hh, node->type->names, name, len, e);
  if (e) return e->id;
  for (uint32_t i = 0; i < node->ndyn; i++) {
    const sinew__attr *a = &node->dyn[i];
    if (a->flags & SINEW__ATTR_REMOVED) continue;
    if (same_text(a->name, name, len) || same_text(a->short_name, name, len)) return a->id;
  }
  return SINEW__NO_ATTR;
}

uint32_t sinew_node_attr(const sinew_graph_t *g, sinew_node_t n, const char *name) {
  sinew__node *node = sinew__node_get(g, n);
  if (!node || !name) return SINEW__NO_ATTR;
  return sinew__node_attr_n(node, name, strlen(name));
}

int sinew_node_attr_info(const sinew_graph_t *g, sinew_node_t n, uint32_t attr,
                         sinew_attr_info_t *out) {
  sinew__node *node = sinew__node_get(g, n);
  if (!node || !out) return SINEW_EINVAL;
  if (attr >= sinew__node_nattrs(node)) return SINEW_ENOTFOUND;
  const sinew__attr *a = sinew__attr_get(g, node, attr);
  if (a->flags & SINEW__ATTR_REMOVED) return SINEW_ENOTFOUND;
  *out = (sinew_attr_info_t){
      .name = a->name, .short_name = a->short_name, .type = a->type, .flags = a->flags,
      .parent = a->parent, .child_count = a->nchildren, .children = a->children,
      .default_value = a->dflt, .has_min = a->has_min, .has_max = a->has_max,
      .min_value = a->min_value, .max_value = a->max_value, .enum_fields = a->enum_text,
      .data_type = a->data_type, .computed = a->computed};
  return SINEW_OK;
}

int sinew_attr_enum_value(const sinew_graph_t *g, sinew_node_t n, uint32_t attr,
                          const char *field, int *out) {
  sinew__node *node = sinew__node_get(g, n);
  if (!node || !field || attr >= sinew__node_nattrs(node)) return SINEW_EINVAL;
  const sinew__attr *a = sinew__attr_get(g, node, attr);
  for (uint32_t i = 0; i < a->nenums; i++)
    if (strcmp(a->enums[i].name, field) == 0) {
      if (out) *out = a->enums[i].value;
      return SINEW_OK;
    }
  return SINEW_ENOTFOUND;
}

const char *sinew_attr_enum_name(const sinew_graph_t *g, sinew_node_t n, uint32_t attr, int value) {
  sinew__node *node = sinew__node_get(g, n);
  if (!node || attr >= sinew__node_nattrs(node)) return NULL;
  const sinew__attr *a = sinew__attr_get(g, node, attr);
  for (uint32_t i = 0; i < a->nenums; i++)
    if (a->enums[i].value == value) return a->enums[i].name;
  return NULL;
}

static bool has_connections_in(const sinew_graph_t *g, sinew__node *node, uint32_t attr) {
  for (uint32_t i = 0; i < node->nconns; i++) {
    const sinew__conn *c = node->conns[i];
    const sinew_plug_t *ps[2] = {&c->src, &c->dst};
    for (int k = 0; k < 2; k++) {
      if (sinew__node_get(g, ps[k]->node) != node) continue;
      for (uint32_t x = ps[k]->attr; x != SINEW__NO_ATTR; x = sinew__attr_get(g, node, x)->parent)
        if (x == attr) return true;
    }
  }
  return false;
}

void sinew__attr_add_swap(sinew_graph_t *g, sinew__rec *r) {
  sinew__node *node = sinew__node_get(g, r->plug.node);
  if (!node) return;
  sinew__attr *t = node->dyn;
  uint32_t nd = node->ndyn, ns = node->nslots;
  g->slot_tables++;
  node->dyn = r->u.aa.dyn;
  node->ndyn = r->u.aa.ndyn;
  node->nslots = r->u.aa.nslots;
  r->u.aa.dyn = t;
  r->u.aa.ndyn = nd;
  r->u.aa.nslots = ns;
  for (uint32_t k = 0; k < r->u.aa.nfresh; k++) {
    sinew__jslot *j = &r->u.aa.fresh[k];
    sinew__slot tmp = node->slots[j->slot_index];
    node->slots[j->slot_index] = j->slot;
    j->slot = tmp;
  }
  node->maybe_dirty = ~(uint64_t)0; /* slots swapped whole, with their dirt */
  for (uint32_t k = 0; k < r->u.aa.nfresh; k++) { /* a compound back with its old children */
    sinew__jslot *j = &r->u.aa.fresh[k];
    if (j->top < node->ndyn && j->slot_index < node->nslots) {
      sinew_plug_t p = sinew_plug_make(r->plug.node, node->dyn[j->top].id, 0, NULL);
      sinew__changed(g, &p);
    }
  }
}

/* The slots a record holds belong to the table it holds: they are released with that table in
 * place (children are found through the node's table), then the table goes. */
void sinew__attr_add_free(sinew_graph_t *g, sinew__rec *r) {
  sinew__node *node = sinew__node_any(g, r->plug.node);
  if (node) {
    sinew__attr *t = node->dyn;
    uint32_t nd = node->ndyn;
    node->dyn = r->u.aa.dyn;
    node->ndyn = r->u.aa.ndyn;
    for (uint32_t k = 0; k < r->u.aa.nfresh; k++) {
      sinew__jslot *j = &r->u.aa.fresh[k];
      if (j->top < node->ndyn) sinew__slot_release(g, node, &node->dyn[j->top], false, &j->slot);
    }
    node->dyn = t;
    node->ndyn = nd;
  }
  sinew__attrs_free(r->u.aa.dyn, r->u.aa.ndyn);
  sinew__free(r->u.aa.fresh);
}

int sinew_node_add_attr(sinew_graph_t *g, sinew_node_t n, const sinew_attr_desc_t *descs,
                        size_t count) {
  sinew__node *node = sinew__node_get(g, n);
  if (!node) return sinew_graph_fail(g, SINEW_ESTALE, "addAttr", "invalid node handle");
  if (sinew__check_mutable(g, "addAttr")) return SINEW_EINVAL;
  if (!descs || !count) return sinew_graph_fail(g, SINEW_EINVAL, "addAttr", "nothing to add");
  for (size_t i = 0; i < count; i++) {
    if (descs[i].name && sinew_node_attr(g, n, descs[i].name) != SINEW__NO_ATTR)
      return sinew_graph_fail(g, SINEW_EEXISTS, "addAttr", "%s already has an attribute named '%s'",
                              node->name, descs[i].name);
    for (int k = 0; k < 2; k++) {
      const char *nm = k ? descs[i].short_name : descs[i].name;
      if (nm && sinew__alias_lookup(node, nm, strlen(nm)))
        return sinew_graph_fail(g, SINEW_EEXISTS, "addAttr", "%s already has an alias named '%s'",
                                node->name, nm);
    }
  }
  uint32_t ntop = node->nslots;
  sinew__attr *all = NULL;
  int rc = sinew__build_dynamic(g, node->type, node->dyn, node->ndyn, descs, count, &all, &ntop);
  if (rc) {
    if (rc == SINEW_ENOMEM)
      sinew_graph_fail(g, rc, "addAttr", "%s: out of memory", node->name);
    else {
      char msg[sizeof g->errmsg];
      memcpy(msg, g->errmsg, sizeof msg);
      sinew_graph_fail(g, rc, "addAttr", "%s: %s", node->name, msg);
    }
    return rc;
  }
  uint32_t nall = node->ndyn + (uint32_t)count;
  /* Compounds that gained children re-create their slots (they hold no connections). */
  uint32_t base = node->type->nattrs;
  for (uint32_t i = node->ndyn; i < nall; i++) {
    uint32_t p = all[i].parent;
    if (p == SINEW__NO_ATTR || p - base >= node->ndyn) continue;
    if (has_connections_in(g, node, p)) {
      sinew__attrs_free(all, nall);
      return sinew_graph_fail(g, SINEW_ECONNECTED, "addAttr",
                              "%s: cannot add a child to a connected compound", node->name);
    }
  }
  sinew__slot *slots = sinew__realloc(node->slots, (ntop ? ntop : 1) * sizeof *slots);
  if (!slots) {
    sinew__attrs_free(all, nall);
    return sinew_graph_fail(g, SINEW_ENOMEM, "addAttr", "%s: out of memory", node->name);
  }
  node->slots = slots;
  g->slot_tables++;
  /* Build the new slots aside, then swap tables. */
  sinew__attr *olddyn = node->dyn;
  uint32_t oldndyn = node->ndyn, oldnslots = node->nslots;
  node->dyn = all;
  node->ndyn = nall;
  /* One fresh slot per new or grown top-level attribute (at most nall of them). */
  struct fresh_slot {
    sinew__slot slot;
    uint32_t top;
  } *fresh = sinew__malloc(nall * sizeof *fresh);
  uint32_t nfresh = 0;
  if (!fresh) rc = SINEW_ENOMEM;
  for (uint32_t i = 0; i < nall && !rc; i++) {
    const sinew__attr *a = &all[i];
    if (a->parent != SINEW__NO_ATTR) continue;
    bool is_new = i >= oldndyn;
    bool grown = false;
    for (uint32_t j = oldndyn; j < nall; j++)
      for (uint32_t x = all[j].parent; x != SINEW__NO_ATTR; x = all[x - base].parent)
        if (x == a->id) grown = true;
    if (!is_new && !grown) continue;
    rc = sinew__slot_init(g, node, a, false, &fresh[nfresh].slot);
    if (!rc) fresh[nfresh++].top = i;
  }
  /* journal: the record keeps the old table and the slots it replaces, to swap back */
  sinew__jslot *jfresh = NULL;
  bool jon = sinew__jon(g);
  if (!rc && jon &&
      (sinew__jreserve(g, 1) || !(jfresh = sinew__malloc((nfresh ? nfresh : 1) * sizeof *jfresh))))
    rc = SINEW_ENOMEM;
  if (rc) {
    for (uint32_t k = 0; k < nfresh; k++) sinew__slot_release(g, node, &all[fresh[k].top], false, &fresh[k].slot);
    sinew__free(fresh);
    node->dyn = olddyn;
    node->ndyn = oldndyn;
    sinew__attrs_free(all, nall);
    return sinew_graph_fail(g, rc, "addAttr", "%s: %s", node->name, sinew_strerror(rc));
  }
  if (jon) {
    sinew__rec *r = sinew__jpush(g, SINEW__J_ATTR_ADD);
    r->plug = sinew_plug_make(n, 0, 0, NULL);
    node->dyn = olddyn; /* the swap installs the new table and slots */
    node->ndyn = oldndyn;
    r->u.aa.dyn = all;
    r->u.aa.ndyn = nall;
    r->u.aa.nslots = ntop;
    r->u.aa.nfresh = nfresh;
    r->u.aa.fresh = jfresh;
    for (uint32_t k = 0; k < nfresh; k++) {
      jfresh[k].top = fresh[k].top;
      jfresh[k].slot_index = all[fresh[k].top].slot_index;
      jfresh[k].slot = fresh[k].slot;
      if (jfresh[k].slot_index >= oldnslots) memset(&node->slots[jfresh[k].slot_index], 0, sizeof *node->slots);
    }
    sinew__free(fresh);
    sinew__attr_add_swap(g, r);
    return SINEW_OK;
  }
  for (uint32_t k = 0; k < nfresh; k++) {
    const sinew__attr *a = &all[fresh[k].top];
    if (a->slot_index < oldnslots) { /* an existing compound that grew: old value dropped */
      sinew__slot_release(g, node, &olddyn[fresh[k].top], false, &node->slots[a->slot_index]);
    }
    node->slots[a->slot_index] = fresh[k].slot;
  }
  node->maybe_dirty = ~(uint64_t)0;
  sinew__free(fresh);
  node->nslots = ntop;
  sinew__attrs_free(olddyn, oldndyn);
  return SINEW_OK;
}

void sinew__attr_name_swap(sinew_graph_t *g, sinew__rec *r) {
  sinew__node *node = sinew__node_get(g, r->plug.node);
  if (!node || r->plug.attr < node->type->nattrs) return;
  sinew__attr *a = &node->dyn[r->plug.attr - node->type->nattrs];
  if (r->bits & 1) {
    char *t = a->name;
    a->name = r->u.an.name;
    r->u.an.name = t;
  }
  if (r->bits & 2) {
    char *t = a->short_name;
    a->short_name = r->u.an.short_name;
    r->u.an.short_name = t;
  }
}

int sinew_node_rename_attr(sinew_graph_t *g, sinew_node_t n, uint32_t attr, const char *name, bool short_name) {
  sinew__node *node = sinew__node_get(g, n);
  if (!node) return sinew_graph_fail(g, SINEW_ESTALE, "renameAttr", "invalid node handle");
  if (sinew__check_mutable(g, "renameAttr")) return SINEW_EINVAL;
  if (attr < node->type->nattrs || attr >= sinew__node_nattrs(node))
    return sinew_graph_fail(g, SINEW_EINVAL, "renameAttr", "%s: only dynamic attributes can be renamed",
                            node->name);
  sinew__attr *a = &node->dyn[attr - node->type->nattrs];
  if (a->flags & SINEW__ATTR_REMOVED)
    return sinew_graph_fail(g, SINEW_ENOTFOUND, "renameAttr", "no such attribute");
  bool valid = name && ((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z') || name[0] == '_');
  for (const char *c = name; valid && *c; c++)
    valid = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_';
  if (!valid)
    return sinew_graph_fail(g, SINEW_EINVAL, "renameAttr", "%s.%s: '%s' is not an attribute name", node->name,
                            a->name, name ? name : "");
  uint32_t other = sinew_node_attr(g, n, name);
  if (other != SINEW__NO_ATTR && other != attr)
    return sinew_graph_fail(g, SINEW_EEXISTS, "renameAttr", "%s already has an attribute named '%s'",
                            node->name, name);
  if (sinew__alias_lookup(node, name, strlen(name)))
    return sinew_graph_fail(g, SINEW_EEXISTS, "renameAttr", "%s already has an alias named '%s'",
                            node->name, name);
  /* the long name, and the short one with it when they were the same */
  bool both = !short_name && a->short_name && strcmp(a->short_name, a->name) == 0;
  char *copy = sinew__malloc(strlen(name) + 1), *copy2 = both ? sinew__malloc(strlen(name) + 1) : NULL;
  if (!copy || (both && !copy2)) {
    sinew__free(copy);
    sinew__free(copy2);
    return sinew_graph_fail(g, SINEW_ENOMEM, "renameAttr", "out of memory");
  }
  strcpy(copy, name);
  if (copy2) strcpy(copy2, name);
  if (sinew__jon(g)) { /* the record keeps the old names; the swap puts the new ones in */
    if (sinew__jreserve(g, 1)) {
      sinew__free(copy);
      sinew__free(copy2);
      return sinew_graph_fail(g, SINEW_ENOMEM, "renameAttr", "out of memory");
    }
    sinew__rec *r = sinew__jpush(g, SINEW__J_ATTR_NAME);
    r->plug = sinew_plug_make(n, attr, 0, NULL);
    r->bits = short_name ? 2 : both ? 3 : 1;
    r->u.an.name = short_name ? NULL : copy;
    r->u.an.short_name = short_name ? copy : copy2;
    sinew__attr_name_swap(g, r);
    return SINEW_OK;
  }
  if (short_name) {
    sinew__free(a->short_name);
    a->short_name = copy;
  } else {
    sinew__free(a->name);
    a->name = copy;
    if (both) {
      sinew__free(a->short_name);
      a->short_name = copy2;
    }
  }
  return SINEW_OK;
}

/* Removes (tombstones, keeping the slot in r) or restores dynamic attribute r->plug.attr and
 * the attributes below it. */
void sinew__attr_del_swap(sinew_graph_t *g, sinew__rec *r) {
  sinew__node *node = sinew__node_get(g, r->plug.node);
  if (!node || r->plug.attr < node->type->nattrs) return;
  uint32_t base = node->type->nattrs, attr = r->plug.attr;
  sinew__attr *a = &node->dyn[attr - base];
  bool restore = r->held;
  for (uint32_t i = 0; i < node->ndyn; i++)
    for (uint32_t x = node->dyn[i].id; x != SINEW__NO_ATTR; x = node->dyn[x - base].parent)
      if (x == attr) {
        if (restore) node->dyn[i].flags &= ~(uint32_t)SINEW__ATTR_REMOVED;
        else node->dyn[i].flags |= SINEW__ATTR_REMOVED;
        break;
      }
  sinew__slot t = node->slots[a->slot_index];
  node->slots[a->slot_index] = r->u.slot;
  r->u.slot = t;
  g->slot_tables++;                 /* the slot kept by batches is gone or back */
  node->maybe_dirty = ~(uint64_t)0; /* a slot swapped whole, with its dirt */
  r->held = !restore;
  if (restore) sinew__changed(g, &r->plug);
}

int sinew_node_remove_attr(sinew_graph_t *g, sinew_node_t n, uint32_t attr) {
  sinew__node *node = sinew__node_get(g, n);
  if (!node) return sinew_graph_fail(g, SINEW_ESTALE, "deleteAttr", "invalid node handle");
  if (sinew__check_mutable(g, "deleteAttr")) return SINEW_EINVAL;
  if (attr < node->type->nattrs || attr >= sinew__node_nattrs(node))
    return sinew_graph_fail(g, SINEW_EINVAL, "deleteAttr", "%s: only dynamic attributes can be removed",
                            node->name);
  sinew__attr *a = &node->dyn[attr - node->type->nattrs];
  if (a->flags & SINEW__ATTR_REMOVED) return SINEW_ENOTFOUND;
  if (a->parent != SINEW__NO_ATTR)
    return sinew_graph_fail(g, SINEW_EINVAL, "deleteAttr", "%s.%s is a child; remove its parent", node->name,
                            a->name);
  /* Break every connection inside it, then release its slot and tombstone the ids. */
  /* Either end may be inside it (both, for a connection from the node to itself). */
  sinew_plug_t whole = sinew_plug_make(n, attr, 0, NULL);
  bool jon = sinew__jon(g); /* two records per connection broken, one for the removal, one for
                             * the aliases inside it */
  sinew__alias_edit *aliases = NULL;
  if (sinew__alias_drop_prepare(g, node, &whole, &aliases) ||
      (jon && sinew__jreserve(g, 2 * node->nconns + 1 + (aliases != NULL)))) {
    sinew__alias_cancel(aliases);
    return sinew_graph_fail(g, SINEW_ENOMEM, "deleteAttr", "out of memory");
  }
  sinew__alias_apply(g, aliases);
  for (uint32_t i = node->nconns; i-- > 0;) {
    if (i >= node->nconns) continue; /* a disconnection shortened the list */
    sinew__conn *c = node->conns[i];
    if (sinew__plug_within(g, node, &c->src, &whole) || sinew__plug_within(g, node, &c->dst, &whole))
      sinew__disconnect_conn(g, c, true);
  }
  if (jon) {
    sinew__rec *r = sinew__jpush(g, SINEW__J_ATTR_DEL);
    r->plug = whole;
    sinew__attr_del_swap(g, r);
    return SINEW_OK;
  }
  sinew__slot_release(g, node, a, false, &node->slots[a->slot_index]);
  memset(&node->slots[a->slot_index], 0, sizeof node->slots[0]);
  g->slot_tables++;
  uint32_t base = node->type->nattrs;
  for (uint32_t i = 0; i < node->ndyn; i++)
    for (uint32_t x = node->dyn[i].id; x != SINEW__NO_ATTR; x = node->dyn[x - base].parent)
      if (x == attr) {
        node->dyn[i].flags |= SINEW__ATTR_REMOVED;
        break;
      }
  return SINEW_OK;
}
