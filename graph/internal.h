/* graph/internal.h: structures and helpers shared by the graph core's files (sinew__ tier).
 * Nothing here is part of the public API. */
#ifndef SINEW_GRAPH_INTERNAL_H
#define SINEW_GRAPH_INTERNAL_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sinew/graph.h"

/* ---- memory funnel (graph/alloc.c) ------------------------------------------------------- */
void *sinew__malloc(size_t size);
void *sinew__calloc(size_t count, size_t size);
void *sinew__realloc(void *ptr, size_t size);
void sinew__free(void *ptr);
char *sinew__strdup(const char *s);
/* Grows *ptr (an array of elem-sized items with capacity *cap) to hold at least need items. */
int sinew__reserve(void **ptr, uint32_t *cap, uint32_t need, size_t elem);

/* uthash goes through the funnel and never exits the host: a failed add leaves the element out
 * and sets sinew__uthash_oom, which callers check. */
extern _Thread_local int sinew__uthash_oom;
#define uthash_malloc(sz) sinew__malloc(sz)
#define uthash_free(ptr, sz) sinew__free(ptr)
#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(obj) (sinew__uthash_oom = 1)
#include <uthash.h>

/* ---- attributes --------------------------------------------------------------------------- */
typedef struct sinew__node sinew__node;
typedef struct sinew__attr sinew__attr;
/* A connection no value flows through: an end on a placeholder node or a GENERIC attribute. */
bool sinew__opaque_link(const sinew__node *sn, const sinew__attr *sa, const sinew__node *dn,
                        const sinew__attr *da);
#define SINEW__NO_ATTR UINT32_MAX
/* Flag of a removed dynamic attribute: a tombstone, so that attribute ids stay stable. */
#define SINEW__ATTR_REMOVED (1u << 31)
#define SINEW__MAX_DEPTH 8 /* nesting of compounds/arrays in one attribute path */

typedef struct sinew__enum_field {
  char *name;
  int value;
} sinew__enum_field;

typedef struct sinew__attr {
  char *name;
  char *short_name;
  sinew_attr_type_t type;
  uint32_t flags;
  uint32_t id;
  uint32_t parent;      /* SINEW__NO_ATTR at top level */
  uint32_t slot_index;  /* index among the parent's children, or among the node's top slots */
  uint32_t nchildren;
  uint32_t *children;
  uint32_t depth;       /* 0 at top level */
  uint32_t array_depth; /* array attributes on the path, this one included */
  double dflt;
  bool has_min, has_max;
  double min_value, max_value;
  char *enum_text;
  sinew__enum_field *enums;
  uint32_t nenums;
  const sinew_data_type_t *data_type;
  bool computed;        /* some attribute of the node affects it */
  uint32_t *affects;    /* outputs dirtied when this attribute, a parent or a child changes */
  uint32_t naffects;
  uint32_t *inputs;     /* attributes declared to affect this one or a parent/child of it */
  uint32_t ninputs;
  /* The node slots those inputs live in (their top-level attributes' slot_index): bit k for
   * slot k < 64, and inputs_wide when some input's slot is 64 or more. With the node's
   * maybe_dirty, the evaluator looks only at inputs that may be dirty (graph/eval.c expand). */
  uint64_t input_slots;
  bool inputs_wide;
  uint32_t *input_tops; /* parallel to inputs: the slot each lives in */
  /* An attribute a type inherits points at its parent type's names and enum fields (types
   * never change them, and every type lives as long as its graph): not freed with it. */
  bool borrowed;
} sinew__attr;

typedef struct sinew__name_id {
  UT_hash_handle hh;
  const char *key;
  uint32_t id;
} sinew__name_id;

struct sinew_node_type {
  char *name;
  const sinew_node_type_t *parent;
  uint32_t flags;
  sinew__attr *attrs;
  uint32_t nattrs;
  uint32_t ntop;          /* top-level attributes, in slot order */
  uint32_t *pairs;        /* declared affects, (input, output) flattened, inherited first */
  uint32_t ncomputed;     /* attributes some input affects */
  uint32_t npairs;
  sinew__name_id *names;  /* long and short names -> id (the entries: name_ids) */
  sinew__name_id *name_ids;
  sinew_compute_fn compute;
  void (*input_changed)(sinew_graph_t *, sinew_node_t, void *, const sinew_plug_t *);
  size_t state_size;
  int (*init)(sinew_graph_t *, sinew_node_t, void *);
  void (*destroy)(sinew_graph_t *, sinew_node_t, void *);
  void (*restored)(sinew_graph_t *, sinew_node_t, void *);
  char *dag_parent_output;
  char *dag_child_input;
  void *user_data;
  sinew_node_type_t *next; /* registration order */
  UT_hash_handle hh;
};

/* ---- value slots --------------------------------------------------------------------------- */
enum {
  SINEW__F_DIRTY = 1u << 0,   /* value stale (and everything inside it) */
  SINEW__F_SET = 1u << 1,     /* a value was stored (not the default) */
  SINEW__F_LOCKED = 1u << 2,
  SINEW__F_IN = 1u << 3,      /* this exact plug is a connection destination */
  SINEW__F_OUT = 1u << 4,     /* this exact plug is a connection source */
  SINEW__F_SUB_IN = 1u << 5,  /* some plug inside is a destination (not cleared on disconnect) */
  SINEW__F_SUB_OUT = 1u << 6, /* some plug inside is a source (not cleared on disconnect) */
  SINEW__F_BUSY = 1u << 7,    /* being evaluated (cycle guard) */
  SINEW__F_KEY_ON = 1u << 8,
  SINEW__F_KEY_OFF = 1u << 9,
  SINEW__F_CB_ON = 1u << 10,
  SINEW__F_CB_OFF = 1u << 11,
  SINEW__F_CYCLE_WARNED = 1u << 12,
  SINEW__F_ELEMENT = 1u << 13, /* the slot is an element of an array (not the array itself) */
  SINEW__F_PENDING = 1u << 14, /* dirtied, but its dependents still to be dirtied (see eval.c) */
  SINEW__F_PLANNED = 1u << 15, /* dirty, with a step in a parallel evaluation's schedule (eval.c) */
  /* A SINEW_ATTR_GENERIC_NUMERIC slot holding 2..16 numbers in v.g (clear: one number in v.d) */
  SINEW__F_WIDE = 1u << 20
};

/* The numbers of a generic numeric slot wider than one (double2/3, matrix). */
typedef struct sinew__generic {
  uint32_t n;
  double v[SINEW_GENERIC_MAX];
} sinew__generic;

typedef struct sinew__multi sinew__multi;

typedef struct sinew__slot {
  union {
    double d;
    sinew__generic *g; /* SINEW__F_WIDE */
    sinew_mat4_t *m;
    char *s;
    sinew_data_t *data;
    struct sinew__slot *kids;
    sinew__multi *multi;
  } v;
  uint32_t flags;
  uint32_t below; /* direct children/elements that are dirty or have dirt below */
} sinew__slot;

/* Generic numeric slots (graph/slot.c). num: the first number; put_num: one number (a wide
 * slot shrinks back); put_vec: n numbers, 0 < n <= SINEW_GENERIC_MAX (ENOMEM leaves the slot
 * as it was); vec: copies the numbers into out (SINEW_GENERIC_MAX room) and returns how many. */
double sinew__slot_num(const sinew__slot *s);
void sinew__slot_put_num(sinew__slot *s, double v);
int sinew__slot_put_vec(sinew__slot *s, const double *v, uint32_t n);
uint32_t sinew__slot_vec(const sinew__slot *s, double *out);

/* A multi's elements. Slot form: elems[i] is element idx[i]'s slot. Packed form (vals set,
 * elems NULL): a numeric multi whose elements need nothing of their own, held as two parallel
 * arrays in the same block as this header; every element has the flags eflags (ELEMENT, SET,
 * DIRTY when its array is) and no count below. Reaching an element through a slot walk
 * (sinew__slot_find, _ensure) unpacks the multi into slot form, as a connection, a lock or a
 * read of that one element needs; sinew__multi_set_packed makes the packed form. */
typedef struct sinew__csr sinew__csr;

struct sinew__multi {
  uint32_t count, cap;
  int32_t *idx;        /* ascending logical indices */
  sinew__slot *elems;  /* parallel to idx; NULL while packed */
  double *vals;        /* packed: the numbers, parallel to idx */
  uint32_t eflags;     /* packed, two-level: every element's flags */
  sinew__csr *csr;     /* two-level: the shared arrays (idx is csr->outer) */
};

/* The two-level packed form of a multi of compounds whose only child is a numeric multi
 * (weightList[v].weights[i]): element idx[k]'s inner elements are inner[off[k] .. off[k+1])
 * with numbers vals[..], inner indices ascending. The arrays are shared by the headers that
 * view them (a journal record keeps the header from before an append: the same arrays with a
 * smaller count), reference counted; only the owner header whose count is used_outer appends
 * in place, any other copies first. Every outer element has the flags ELEMENT (| DIRTY from
 * eflags), its child array none of its own (| DIRTY), every inner element ELEMENT | SET (|
 * DIRTY). A walk into an element through sinew__slot_peek reads a view of it (no memory); one
 * through sinew__slot_find or _ensure gives the whole multi slots (sinew__multi_csr_unpack). */
struct sinew__csr {
  uint32_t refs;
  uint32_t cap_outer, cap_inner;
  uint32_t used_outer;       /* outer elements the owner has written */
  const sinew__multi *owner; /* the header that may append in place */
  uint64_t moved;            /* elements shifted by in-place inserts and removals (a budget) */
  uint32_t shifting;         /* journal records whose swap shifts the arrays (then every change
                              * of them is such a record: no append in place) */
  int32_t *outer;            /* cap_outer */
  uint32_t *off;             /* cap_outer + 1 */
  int32_t *inner;            /* cap_inner */
  double *vals;              /* cap_inner */
};

/* One outer element of a two-level multi as a journal record holds it: present or not, its
 * inner indices and numbers (n of them, room for cap: the larger of its two states, so that a
 * swap never allocates), and a reference to the arrays it was edited in. */
typedef struct sinew__csr_run {
  sinew__csr *c;
  double *buf; /* cap numbers, then cap inner indices */
  uint32_t n, cap;
  int32_t index;
  bool present;
  bool shifts; /* its swap inserts or removes (counted in c->shifting) */
} sinew__csr_run;

static inline bool sinew__multi_packed(const sinew__multi *m) { return m && m->vals; }
static inline bool sinew__multi_csr(const sinew__multi *m) { return m && m->csr; }
/* Element i's flags and number, in either form. */
static inline uint32_t sinew__multi_elem_flags(const sinew__multi *m, uint32_t i) {
  return (m->vals || m->csr) ? m->eflags : m->elems[i].flags;
}
static inline bool sinew__multi_elem_dirtyish(const sinew__multi *m, uint32_t i) {
  return (m->vals || m->csr) ? (m->eflags & SINEW__F_DIRTY) != 0
                             : ((m->elems[i].flags & SINEW__F_DIRTY) || m->elems[i].below > 0);
}
double sinew__multi_elem_num(const sinew__multi *m, uint32_t i);

/* ---- nodes ------------------------------------------------------------------------------- */
typedef struct sinew__conn sinew__conn;

typedef struct sinew__node {
  /* What every plug operation and evaluation reads comes first, in the first 96 bytes, so a
   * node met cold costs two cache lines, not three. */
  uint32_t gen;
  bool live;
  bool locked;
  uint32_t nslots;
  const sinew_node_type_t *type;
  sinew__slot *slots;      /* top-level slots: type's top attributes, then dynamic ones */
  /* Top-level slots k < 64 that may be dirty-ish: bit k is set whenever slot k can have become
   * DIRTY or gained dirt below (graph/slot.c notes it), and cleared lazily by the evaluator when
   * it finds the slot clean. A superset, so a clear bit means a clean slot without reading it. */
  uint64_t maybe_dirty;
  sinew__conn **conns;     /* every connection touching the node */
  /* Parallel to conns: the node's attribute at the connection's source end (low 32 bits) and
   * at its destination end (high), SINEW__NO_ATTR for an end on another node, so a search of
   * the list for one attribute reads only the connections that touch it (graph/eval.c). It
   * lives in conns' block, after capconns pointers. */
  uint64_t *conn_ends;
  uint32_t nconns, capconns;
  sinew_node_t parent;     /* DAG parent, zero under the world */
  void *state;
  uint32_t nin;            /* how many of them end on it */
  uint32_t ndyn;
  sinew__attr *dyn;        /* dynamic attributes, ids type->nattrs + k */
  /* the rest */
  char *name;
  void *user_data;
  sinew_node_t *children;
  uint32_t nchildren, capchildren;
  uint32_t name_next;      /* next node with the same name, index + 1 */
  uint32_t order_prev, order_next; /* creation order list, index + 1 */
  uint32_t walk;           /* delete_many's marks: (graph's walk_epoch << 4) | bits */
  struct sinew__alias *aliases; /* attribute aliases, in the order made (graph/alias.c) */
  uint32_t naliases;
} sinew__node;
_Static_assert(offsetof(sinew__node, name) <= 96, "sinew__node: the hot fields stay in the first 96 bytes");

/* The next number to try for automatic names of one base ("joint" -> 12), so creating many
 * nodes is not quadratic. Lowered again when a node with a smaller number goes. */
typedef struct sinew__name_hint {
  UT_hash_handle hh;
  char *base;
  unsigned long next;
} sinew__name_hint;

typedef struct sinew__name_entry {
  UT_hash_handle hh;
  char *name;
  uint32_t first; /* node index + 1 */
} sinew__name_entry;

struct sinew__conn {
  sinew_plug_t src, dst;
  bool implicit;
  sinew__conn *prev, *next;    /* graph-wide creation order */
  sinew__conn *src_next;       /* same source plug */
  UT_hash_handle hh;           /* keyed by dst */
  /* graph/order.c: place in the topological order of connections (live ones only) */
  uint64_t ord;
  sinew__conn *ord_prev, *ord_next;
  uint32_t ord_epoch; /* ord_bits are this search's when it equals the order's epoch */
  uint8_t ord_bits;
};

/* The topological order of connections (graph/order.c). A connection c2 follows c1 when the
 * cycle search starting from c1's destination leaves through c2 (c2's source is reached inside
 * c1's destination node through affects, or is the destination's own family). Labels grow
 * along the list and along every such edge. Scratch space is kept for reuse between connects. */
typedef struct sinew__order {
  sinew__conn *head, *tail;
  bool stale;             /* a relinked connection did not fit: rebuilt at the next connect */
  uint32_t repairs;       /* times the full search overruled the order (tests expect none) */
  uint32_t epoch;         /* connection marks */
  uint32_t *amark;        /* attribute marks of one closure, (epoch << 2) | bits, per attribute id */
  uint32_t *astack;       /* attributes of that closure */
  uint32_t capattrs, aepoch;
  sinew__conn **fw, **bw; /* the two searches: visited, in order; the frontier is the tail */
  uint32_t capfw, capbw, nfw, nbw;
  /* what the connect under way decided: the new connection goes after (or before) anchor, and
   * the connections in move, by increasing label, follow (or precede) it */
  sinew__conn *anchor;
  bool before;
  sinew__conn **move;
  uint32_t nmove;
} sinew__order;

typedef struct sinew__src_entry {
  UT_hash_handle hh;
  sinew_plug_t key;
  sinew__conn *head;
} sinew__src_entry;

/* ---- the change journal (graph/journal.c) ----------------------------------------------------
 * A record holds the "other" state of one change: applying it swaps that state with the live
 * one, so undo (reverse order) and redo (forward order) are the same code, and applying never
 * allocates. What a record holds that is not live it owns, freed with the record. */
enum {
  SINEW__J_VALUE,     /* a leaf value and its SET bit (plug) */
  SINEW__J_ELEM,      /* an array element made or removed (plug); held: out of the graph */
  SINEW__J_FLAGS,     /* flag bits of a plug's slot under mask */
  SINEW__J_NODE_LOCK, /* a node's lock */
  SINEW__J_RENAME,    /* a node's name */
  SINEW__J_CONN,      /* a connection made or broken; held: unlinked, owned by the record */
  SINEW__J_PARENT,    /* a node's DAG parent and its position among the parent's children */
  SINEW__J_ATTR_NAME, /* a dynamic attribute's long and/or short name (bits: 1 long, 2 short) */
  SINEW__J_ATTR_DEL,  /* a dynamic attribute removed (plug.attr); held: removed, slot in u.slot */
  SINEW__J_NODE,      /* a node created or deleted; held: detached (not live), owned by the record */
  SINEW__J_ATTR_ADD,  /* dynamic attributes added: the other attribute table and top slots */
  SINEW__J_HOST,      /* a host's record (sinew_graph_record); held: the change is taken back */
  SINEW__J_MULTI,     /* a packed multi replaced whole (plug: its array): u.multi, the other one */
  SINEW__J_CSR,       /* one element of a two-level multi edited in place (plug: the outer array) */
  SINEW__J_DEAD       /* its node was deleted outside a transaction: the step cannot be applied */
};
enum { SINEW__JV_NUMBER, SINEW__JV_MATRIX, SINEW__JV_STRING, SINEW__JV_DATA };

typedef struct sinew__jslot {
  uint32_t top;        /* index in the dynamic attribute table */
  uint32_t slot_index; /* in the node's top-level slots */
  sinew__slot slot;    /* the one not live */
} sinew__jslot;

typedef struct sinew__rec {
  uint8_t kind, vkind;
  bool held;
  uint32_t bits, mask;
  sinew_plug_t plug; /* VALUE, ELEM, FLAGS: the plug; NODE_LOCK, RENAME: plug.node */
  union {
    double d;
    sinew__generic *gen; /* VALUE of a generic numeric slot holding several numbers (bits: WIDE) */
    sinew_mat4_t *m;
    char *s;
    sinew_data_t *data;
    sinew__slot slot; /* ELEM: the element's subtree while held */
    sinew__multi *multi; /* MULTI: the packed multi (or NULL) not live */
    sinew__csr_run run;  /* CSR: the element's other state */
    struct {
      sinew__conn *c;
      sinew__src_entry *entry; /* its source's index entry, when unlinking emptied it */
      uint32_t src_pos, spos, dpos; /* positions in the source list and the nodes' lists */
      sinew_node_t sn, dn; /* c's ends, kept here: c may belong to another step's record */
    } conn;
    struct {
      char *name;
      sinew__name_entry *entry; /* the name's index entry, when no node had the name */
    } ren;
    bool locked;
    struct {
      sinew_node_t parent;
      uint32_t pos;
    } par;
    struct {
      char *name, *short_name;
    } an;
    struct {
      const sinew_record_ops_t *ops;
      void *data;
    } host;
    struct {
      sinew__attr *dyn; /* the other dynamic attribute table */
      uint32_t ndyn, nslots, nfresh;
      struct sinew__jslot *fresh; /* the top-level slots the addition made or re-made */
    } aa;
    struct {
      sinew__name_entry *entry; /* its name's index entry, when detaching emptied it */
      uint32_t pos;             /* its place among its parent's children */
    } nd;
  } u;
} sinew__rec;

struct sinew_change {
  sinew__rec *recs;
  uint32_t n;
  bool undone;
  struct sinew_change *prev, *next; /* the graph's live steps */
};

typedef struct sinew__journal {
  sinew__rec *recs;
  uint32_t n, cap;
  uint32_t promise; /* records up to here are reserved for calls under way (<= cap) */
  uint32_t *marks; /* record count at each open begin */
  uint32_t depth, capmarks;
  bool applying;
  /* Nodes whose type has a `restored` hook and which had a value put back by the records
   * applied, called when they are done: up to 8 noted, beyond that every such node is. */
  sinew_node_t restored[8];
  uint32_t nrestored;
  bool restored_all;
  /* Permanent entries in the three indexes the records relink into, so a delete never frees
   * a table and a re-add (with expansion off) never allocates. */
  sinew__name_entry *sent_name;
  sinew__conn *sent_conn;
  sinew__src_entry *sent_src;
  struct sinew_change *steps;
} sinew__journal;

typedef struct sinew__observer_entry {
  sinew_observer_t obs;
  int id;
} sinew__observer_entry;

struct sinew_graph {
  sinew__node **nodes;
  uint32_t nnodes, capnodes;
  uint32_t *free_slots;
  uint32_t nfree, capfree;
  uint32_t order_head, order_tail; /* index + 1 */
  size_t live_nodes;
  sinew__name_entry *names;
  sinew__name_hint *hints;
  sinew_node_type_t *types;        /* hash by name */
  sinew_node_type_t *types_first, *types_last;
  sinew__conn *conns_by_dst;       /* hash */
  sinew__src_entry *conns_by_src;  /* hash */
  sinew__conn *conn_head, *conn_tail;
  size_t nconnections;
  sinew__observer_entry *observers;
  uint32_t nobservers, capobservers;
  int next_observer_id;
  sinew_log_fn logger;
  void *logger_data;
  void *user_data;
  sinew_error_t err; /* the last failure, as fields */
  char errmsg[2048]; /* and its text, made once when it is set */
  sinew_graph_stats_t stats;
  int eval_depth;                  /* nested pulls from inside computes */
  sinew_plug_t *work;              /* dirty-propagation queue, reserved before changes */
  uint32_t work_cap;
  size_t computed_plugs;           /* computed attributes over all live nodes (queue bound) */
  int pushing;                     /* dirt is being propagated: hooks are running */
  atomic_int interrupt;            /* sinew_graph_interrupt, from any thread */
  uint64_t topology;               /* bumped by every connection made or broken */
  uint64_t structure;              /* and by every node made or deleted too (sinew_graph_structure_serial) */
  uint64_t slot_tables;            /* bumped whenever a node's slot or attribute table may move or a slot
                                      goes (addAttr, deleteAttr, their undo and redo): with structure,
                                      what keeps slot pointers checks */
  /* graph/placeholder.c: what earlier walks found upstream of plugs and attributes, valid
   * while topology is what it was when they were found */
  struct sinew__placeholder_memo *placeholder_memo;
  uint64_t memo_topology;
  /* graph/eval.c: a parallel evaluation under way (errors and logs take its lock), or NULL */
  struct sinew__par *par;
  sinew__journal jr;
  uint64_t limits[SINEW_LIMIT_COUNT_]; /* sinew_graph_set_limit */
  sinew__order order;
  uint32_t walk_epoch;             /* makes every node's walk marks old at once (node.c) */
};

/* ---- helpers shared across files ---------------------------------------------------------- */
/* Wakes the worker pool's sleeping threads to spin for a while (graph/pool.c): a job is about
 * to come, and waking a sleeping thread costs more than a short job. */
void sinew__pool_nudge(void);
/* Around a write of the graph's last error or a call of its logger: during a parallel
 * evaluation (g->par), one thread at a time; otherwise nothing. */
void sinew__par_lock(const sinew_graph_t *g);
void sinew__par_unlock(const sinew_graph_t *g);
/* The live node of a handle, or NULL. Inline: every plug operation starts here. */
static inline sinew__node *sinew__node_get(const sinew_graph_t *g, sinew_node_t n) {
  if (!g || n.gen == 0 || n.index >= g->nnodes) return NULL;
  sinew__node *node = g->nodes[n.index];
  if (!node || !node->live || node->gen != n.gen) return NULL;
  return node;
}
/* sinew_node_find and sinew_node_attr on the first len characters of a text (no copy, so
 * names have no length limit). */
int sinew__node_find_n(const sinew_graph_t *g, const char *name, size_t len, sinew_node_t *out);
uint32_t sinew__node_attr_n(const sinew__node *node, const char *name, size_t len);
static inline const sinew__attr *sinew__attr_get(const sinew_graph_t *g, const sinew__node *node, uint32_t id) {
  (void)g;
  if (id < node->type->nattrs) return &node->type->attrs[id];
  return &node->dyn[id - node->type->nattrs];
}
static inline uint32_t sinew__node_nattrs(const sinew__node *node) { return node->type->nattrs + node->ndyn; }
/* The chain of attribute ids from the top-level ancestor down to attr (inclusive). */
uint32_t sinew__attr_chain(const sinew_graph_t *g, const sinew__node *node, uint32_t attr,
                           uint32_t chain[SINEW__MAX_DEPTH]);
/* Validates a plug against its node; sets the graph error (with `what` as prefix) on failure. */
int sinew__plug_check(sinew_graph_t *g, const sinew_plug_t *p, const char *what,
                      sinew__node **out_node);
/* The plug's node when g and p are given, the node is live and the plug names an existing
 * attribute with no more indices than it has array levels; NULL otherwise. For the query
 * functions that answer "no" instead of reporting an error. */
sinew__node *sinew__plug_node(const sinew_graph_t *g, const sinew_plug_t *p);
/* True when plug q (on node) is e or lies inside it: a child, an element, or deeper. */
bool sinew__plug_within(const sinew_graph_t *g, const sinew__node *node, const sinew_plug_t *q,
                        const sinew_plug_t *e);
/* Normalises a plug for use as a hash key (zeroes unused indices). */
sinew_plug_t sinew__plug_key(const sinew_plug_t *p);
/* The plug as text for messages, into a caller buffer. */
const char *sinew__plug_str(const sinew_graph_t *g, const sinew_plug_t *p, char *buf, size_t n);

/* Slots (graph/slot.c). find makes nothing, but a path through an element of a packed multi
 * unpacks that multi (its only allocation: NULL when it fails; sinew__slot_peek never
 * allocates); ensure creates the path, reporting the array elements it created so a failing
 * caller can take them back with sinew__slot_unensure. */
typedef struct sinew__slot_path {
  sinew__slot *slots[SINEW__MAX_DEPTH * 2 + 1];
  uint32_t n;
} sinew__slot_path;

typedef struct sinew__created {
  sinew_plug_t elems[SINEW_PLUG_MAX_INDICES * 2]; /* room for two plugs (a connection) */
  uint32_t n;
} sinew__created;

sinew__slot *sinew__slot_find(const sinew_graph_t *g, sinew__node *node, const sinew_plug_t *p,
                              sinew__slot_path *path);
int sinew__slot_ensure(sinew_graph_t *g, sinew__node *node, const sinew_plug_t *p,
                       sinew__slot **out, sinew__slot_path *path, sinew__created *created);
void sinew__slot_unensure(sinew_graph_t *g, sinew__node *node, const sinew__created *created);
/* Initialises a slot for an attribute (the array level when `element` is false). */
int sinew__slot_init(const sinew_graph_t *g, const sinew__node *node, const sinew__attr *a,
                     bool element, sinew__slot *s);
void sinew__slot_release(const sinew_graph_t *g, const sinew__node *node, const sinew__attr *a,
                         bool element, sinew__slot *s);
/* A deep copy of a slot's subtree into *dst: values (strings, matrices, blocks copied, data
 * referenced), flags and counts as they are, each multi with the capacity of the one copied
 * (so the records that take elements out of or put them into it find their room). ENOMEM
 * leaves *dst empty (nothing to release). */
int sinew__slot_clone(const sinew_graph_t *g, const sinew__node *node, const sinew__attr *a,
                      bool element, const sinew__slot *src, sinew__slot *dst);
/* Deep copy of a value subtree from src (attribute sa) into dst (attribute da); shapes were
 * checked at connect time. Elements missing in dst are created. */
int sinew__slot_copy(sinew_graph_t *g, sinew__node *dn, const sinew__attr *da, bool delem,
                     sinew__slot *dst, sinew__node *sn, const sinew__attr *sa, bool selem,
                     const sinew__slot *src);
/* Dirty bookkeeping: dirty-ish = DIRTY flag or dirt below. Updates ancestor counts via path. */
static inline bool sinew__slot_dirtyish(const sinew__slot *s) {
  return (s->flags & SINEW__F_DIRTY) || s->below > 0;
}
void sinew__slot_mark_dirty(const sinew_graph_t *g, const sinew__node *node, const sinew__attr *a,
                            bool element, sinew__slot_path *path);
void sinew__slot_mark_clean(const sinew_graph_t *g, const sinew__node *node, const sinew__attr *a,
                            bool element, sinew__slot_path *path);
/* Notes in node->maybe_dirty that the top-level slot `top` (one of node->slots, or anything
 * else, which is ignored) may be dirty-ish. */
void sinew__slot_note_dirty(const sinew__node *node, const sinew__slot *top);
/* Index of a logical index in a multi, or -1. */
int64_t sinew__multi_find(const sinew__multi *m, int32_t index);
/* Removes the element at position pos (releasing it) and fixes dirty counts via path. */
void sinew__multi_remove(const sinew_graph_t *g, const sinew__node *node, const sinew__attr *a,
                         sinew__slot_path *path, uint32_t pos);

/* Connections (graph/connect.c). */
sinew__conn *sinew__conn_to(const sinew_graph_t *g, const sinew_plug_t *dst);
/* The node->conn_ends entry of connection c on the node of that index, and its two halves. */
static inline uint64_t sinew__conn_ends(uint32_t index, const sinew__conn *c) {
  uint64_t src = c->src.node.index == index ? c->src.attr : SINEW__NO_ATTR;
  uint64_t dst = c->dst.node.index == index ? c->dst.attr : SINEW__NO_ATTR;
  return src | dst << 32;
}
static inline uint32_t sinew__end_src(uint64_t ends) { return (uint32_t)ends; }
static inline uint32_t sinew__end_dst(uint64_t ends) { return (uint32_t)(ends >> 32); }
sinew__conn *sinew__conn_from(const sinew_graph_t *g, const sinew_plug_t *src);
/* Attributes a and b of one node are one family: the same, or one an ancestor of the other. */
bool sinew__attr_family(const sinew_graph_t *g, const sinew__node *n, uint32_t a, uint32_t b);
/* Two plugs of one attribute family share a value: no element index that both give differs. */
bool sinew__plug_overlap(const sinew_plug_t *a, const sinew_plug_t *b);
int sinew__disconnect_conn(sinew_graph_t *g, sinew__conn *c, bool keep_value);
/* The full cycle search: would src -> dst close a cycle? Sets the graph error (path included)
 * and returns SINEW_ECYCLE when it would. What the order decides must agree with it. */
int sinew__cycle_search(sinew_graph_t *g, const sinew_plug_t *src, const sinew_plug_t *dst,
                        const char *what);

/* The order of connections (graph/order.c). check: before a connect changes anything, refuses
 * a cycle (the full search's error) and works out where the connection goes; place: puts the
 * new connection there (cannot fail). remove: a connection leaves the graph. relink: a
 * journal record puts one back (no allocation; when it does not fit, the order is rebuilt at
 * the next check). verify (tests): 0 when every edge goes up the order, SINEW_ERUNTIME when one does not. */
int sinew__order_check(sinew_graph_t *g, const sinew_plug_t *src, const sinew_plug_t *dst,
                       const char *what);
void sinew__order_place(sinew_graph_t *g, sinew__conn *c);
void sinew__order_remove(sinew_graph_t *g, sinew__conn *c);
void sinew__order_relink(sinew_graph_t *g, sinew__conn *c);
int sinew__order_verify(sinew_graph_t *g);
void sinew__order_free(sinew_graph_t *g);
int sinew__connect_raw(sinew_graph_t *g, const sinew_plug_t *src, const sinew_plug_t *dst,
                       bool implicit, const char *what);

/* Dirt and evaluation (graph/eval.c). reserve_push makes room for one propagation; call it
 * before changing the graph so that the propagation after the change cannot fail. */
int sinew__reserve_push(sinew_graph_t *g);
/* Refuses (SINEW_EINVAL) a change of the graph requested while dirt is being propagated, from
 * an observer or an input_changed hook: the propagation walks the very lists a change would
 * rewrite. Called first by every call that changes values or structure. */
int sinew__check_mutable(sinew_graph_t *g, const char *what);
int sinew__changed(sinew_graph_t *g, const sinew_plug_t *p);
int sinew__mark_dirty(sinew_graph_t *g, const sinew_plug_t *p);
int sinew__pull(sinew_graph_t *g, const sinew_plug_t *p);

/* Placeholders (graph/placeholder.c): frees what the walks remembered. */
void sinew__placeholder_cache_free(sinew_graph_t *g);
/* How many items are remembered as depending on no placeholder, and as depending on some (for
 * tests); 0 when the memory is out of date. */
uint32_t sinew__placeholder_clean_count(const sinew_graph_t *g);
uint32_t sinew__placeholder_tainted_count(const sinew_graph_t *g);

/* Observers. */
void sinew__notify_connect(sinew_graph_t *g, const sinew_plug_t *s, const sinew_plug_t *d, bool on);

/* The journal. jon: changes are being recorded. jreserve makes room for k more records (call
 * it after the checks, before the change); jpush then cannot fail. */
static inline bool sinew__jon(const sinew_graph_t *g) { return g->jr.depth && !g->jr.applying; }
int sinew__jreserve_slow(sinew_graph_t *g, uint32_t k);
static inline int sinew__jreserve(sinew_graph_t *g, uint32_t k) {
  if (g->jr.cap - g->jr.n < k) return sinew__jreserve_slow(g, k);
  if (g->jr.n + k > g->jr.promise) g->jr.promise = g->jr.n + k;
  return 0;
}
sinew__rec *sinew__jpush(sinew_graph_t *g, int kind);
/* Drops the records above mark without applying them (a failing call taking back its own). */
void sinew__jtruncate(sinew_graph_t *g, uint32_t mark);
/* Records the elements an ensure made (present in the graph now). */
void sinew__jrec_created(sinew_graph_t *g, const sinew__created *made);
/* Records a leaf value before it changes (copying it: the live slot keeps its storage). */
int sinew__jrec_value_copy(sinew_graph_t *g, sinew__node *n, const sinew_plug_t *p);
/* A node goes for good (deleted outside a transaction, or a detached node freed): the records
 * of live steps that name it release what they hold of it and can no longer apply. */
void sinew__journal_forget_node(sinew_graph_t *g, sinew_node_t h);
void sinew__journal_destroy(sinew_graph_t *g);
/* Packed multis (graph/slot.c). unpack: into slot form (ENOMEM leaves it packed). set_packed:
 * stores n numbers (norm applied to each) at indices idx (any order, the last of a repeated
 * index wins) into the numeric multi held by container, which must be absent or packed and
 * not dirty; the result is a new packed multi, the one it replaces goes to *old (NULL when
 * there was none) for the caller to journal or free with free_packed. swap: a MULTI record
 * puts its multi back (no allocation). peek: as sinew__slot_find but never unpacks: an element
 * held packed gives NULL with *pm set to its multi and *pos to its position, the path ending
 * at the multi's slot (*pm NULL otherwise). */
int sinew__multi_unpack(sinew__multi *m);
int sinew__multi_set_packed(const sinew__attr *a, sinew__slot *container, const int32_t *idx,
                            const double *vals, size_t n, double (*norm)(const sinew__attr *, double),
                            sinew__multi **old);
void sinew__multi_free_packed(sinew__multi *m);
/* Two-level packed multis (graph/slot.c; see sinew__csr). csr_append: the numbers of element
 * `index` (its inner indices idx in any order, the last of a repeated one winning, norm
 * applied) added to the multi of compounds held by container (absent, or two-level, clean),
 * index past its last element; 1 when the multi cannot take it so (the caller sets in slot
 * form). With keep_old the header before the change goes to *old for a journal record (NULL
 * when there was none) and stays as it was; without, it may be changed in place or freed
 * (*old NULL). csr_unpack: the multi held by container into slot form (ENOMEM leaves it as
 * it was). csr_view: element pos as slots that read its numbers (valid until the thread's
 * next view; never written). */
int sinew__multi_csr_append(const sinew__attr *inner_attr, sinew__slot *container, int32_t index,
                            const int32_t *idx, const double *vals, size_t n,
                            double (*norm)(const sinew__attr *, double), bool keep_old, sinew__multi **old);
int sinew__multi_csr_unpack(const sinew_graph_t *g, const sinew__node *node, const sinew__attr *a,
                            sinew__slot *container);
sinew__slot *sinew__multi_csr_view(const sinew__multi *m, uint32_t pos);
/* In-place edits of one outer element `index` of the two-level multi held by container (clean):
 * SET merges the n numbers at inner indices idx (any order, the last of a repeated one wins,
 * norm applied) into the element, making it when absent; DEL_INNER removes inner index idx[0]
 * of it; DEL_OUTER removes the element. 1 when the multi cannot take it so (not two-level,
 * dirty, the element or inner index absent for a removal, or the budget of shifted elements
 * spent: the caller goes on in slot form), SINEW_ENOMEM (nothing changed). With jon the edit
 * is journaled: *old gets a header for a MULTI record to push before the CSR one when
 * need_multi is set or the arrays were copied (NULL otherwise), and *run the CSR record's
 * state (run->c NULL: no record); without, nothing is kept. */
enum { SINEW__CSR_SET, SINEW__CSR_DEL_INNER, SINEW__CSR_DEL_OUTER };
int sinew__multi_csr_edit(const sinew__attr *inner_attr, sinew__slot *container, int32_t index, int op,
                          const int32_t *idx, const double *vals, size_t n,
                          double (*norm)(const sinew__attr *, double), bool jon, bool need_multi,
                          sinew__multi **old, sinew__csr_run *run);
/* A CSR record applied: the element's state in the arrays and the one the record holds swap
 * (no allocation); free: what the record holds. */
void sinew__multi_csr_swap(sinew_graph_t *g, sinew__node *node, const sinew_plug_t *arr, sinew__csr_run *run);
void sinew__csr_run_free(sinew__csr_run *run);
/* sinew__multi_csr_edit of element `index` of the two-level multi at plug outer (container c),
 * journaled when the journal is on (graph/eval.c; the caller reserved two records). */
int sinew__edit_csr(sinew_graph_t *g, const sinew__attr *ia, const sinew_plug_t *outer, sinew__slot *c,
                    int32_t index, int op, const int32_t *idx, const double *values, size_t count);
/* The compound array attribute above a numeric array `a` that a two-level multi can hold
 * (a array compound with a as its only child, a numeric, not computed, not generic), or NULL. */
const sinew__attr *sinew__csr_outer_attr(const sinew_graph_t *g, const sinew__node *node, const sinew__attr *a);
void sinew__multi_swap(sinew_graph_t *g, sinew__node *node, const sinew_plug_t *arr, sinew__multi **held);
sinew__slot *sinew__slot_peek(const sinew_graph_t *g, sinew__node *node, const sinew_plug_t *p,
                              sinew__slot_path *path, sinew__multi **pm, uint32_t *pos);
/* Element take / put back without allocating or releasing (graph/slot.c). */
void sinew__multi_take(const sinew_graph_t *g, const sinew__node *node, sinew__slot_path *path,
                       uint32_t pos, sinew__slot *out);
bool sinew__multi_make_room(const sinew_graph_t *g, const sinew__node *node, const sinew__attr *a,
                            sinew__slot_path *path, int32_t index);
void sinew__multi_put(const sinew_graph_t *g, const sinew__node *node, sinew__slot_path *path,
                      int32_t index, const sinew__slot *in);
/* Connection relinking (graph/connect.c). unlink keeps the connection and an emptied source
 * entry in r; link puts it back where r says. Neither allocates. */
void sinew__conn_unlink_rec(sinew_graph_t *g, sinew__rec *r);
void sinew__conn_link_rec(sinew_graph_t *g, sinew__rec *r);
/* Node name swap (graph/node.c): gives the node r's name and keeps its current one in r. */
void sinew__node_name_swap(sinew_graph_t *g, sinew__rec *r);
/* The other parent / attribute names / removal a record holds, swapped in (graph/node.c). */
void sinew__node_parent_swap(sinew_graph_t *g, sinew__rec *r);
void sinew__attr_name_swap(sinew_graph_t *g, sinew__rec *r);
void sinew__attr_del_swap(sinew_graph_t *g, sinew__rec *r);
void sinew__attr_add_swap(sinew_graph_t *g, sinew__rec *r);
void sinew__attr_add_free(sinew_graph_t *g, sinew__rec *r);
/* Detaches a live node (it stays allocated, its index and generation kept) or attaches it back
 * (bits: 1 while its creation is still under way, when the swap does nothing). */
void sinew__node_detach_swap(sinew_graph_t *g, sinew__rec *r);
/* Frees a detached node for good: the type's destroy, the slot index back to the free list. */
void sinew__node_free_detached(sinew_graph_t *g, sinew__rec *r);
/* The node of h, live or detached, while its storage exists (for freeing records). */
sinew__node *sinew__node_any(const sinew_graph_t *g, sinew_node_t h);
/* Applies the records above mark backwards and drops them (a call undoing its own steps). */
void sinew__jundo_to(sinew_graph_t *g, uint32_t mark);
/* Re-adds an element into a hash that has a permanent sentinel, with expansion off: no
 * allocation, so it cannot fail (uthash allocates only for a new table or an expansion). */
#define SINEW__HASH_READD(hh, head, keyptr, keylen, add)                   \
  do {                                                                    \
    unsigned ne_ = (head)->hh.tbl->noexpand;                              \
    (head)->hh.tbl->noexpand = 1;                                         \
    HASH_ADD_KEYPTR(hh, head, keyptr, keylen, add);                       \
    (head)->hh.tbl->noexpand = ne_;                                       \
  } while (0)

/* Sets the graph's error: status, the operation (NULL: none) and the reason (printf). */
int sinew__errorv(sinew_graph_t *g, int status, const char *op, const char *fmt, va_list ap);
/* Names plug p (and its node) as the subject of the graph's error, when p's node exists. */
void sinew__error_plug(sinew_graph_t *g, const sinew_plug_t *p);

/* Attribute aliases (graph/alias.c). A node's aliases are one table, replaced whole by each
 * change (a journal record keeps the other table). */
typedef struct sinew__alias {
  char *name;
  sinew_plug_t plug;
} sinew__alias;
/* The alias named name[0..len) on node, or NULL. */
const sinew__alias *sinew__alias_lookup(const sinew__node *node, const char *name, size_t len);
/* The aliases of plugs inside `within` (an element or a dynamic attribute being removed) go
 * with it, in two steps so the removal stays all or nothing: prepare allocates the node's new
 * table (*out stays NULL when no alias is inside; otherwise reserve one more journal record),
 * then apply (cannot fail) once the removal is sure, or cancel. */
typedef struct sinew__alias_edit sinew__alias_edit;
int sinew__alias_drop_prepare(sinew_graph_t *g, sinew__node *node, const sinew_plug_t *within,
                              sinew__alias_edit **out);
void sinew__alias_apply(sinew_graph_t *g, sinew__alias_edit *ed);
void sinew__alias_cancel(sinew__alias_edit *ed);
/* Frees a node's table (node release). */
void sinew__aliases_free(struct sinew__alias *list, uint32_t n);

#endif
