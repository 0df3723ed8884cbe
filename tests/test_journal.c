/* tests/test_journal.c: the change journal in graph/: transactions (begin / commit / rollback,
 * nested), undo steps (commit_step, undo, redo), one test per record kind, a random property
 * test against a canonical dump of the graph, and allocation failure inside a transaction. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinew/sinew.h"
#include "tests/support.h"

#ifndef SINEW_TEST_DATA_DIR
#define SINEW_TEST_DATA_DIR "tests/data"
#endif

/* The dump walks the internal slot trees, so that it sees every flag and element. */
#include "graph/internal.h"

/* ---- test node types (as in test_graph.c) ---------------------------------------------------- */

/* "add": out = in + bias, out2 = 2 (in + bias). */
static uint32_t A_IN, A_BIAS, A_OUT, A_OUT2;

static int add_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  if (plug->attr != A_OUT && plug->attr != A_OUT2) return SINEW_EUNKNOWN_PLUG;
  double in = 0, bias = 0;
  sinew_plug_t pin = sinew_plug_make(n, A_IN, 0, NULL), pb = sinew_plug_make(n, A_BIAS, 0, NULL);
  sinew_get_double(g, &pin, &in);
  sinew_get_double(g, &pb, &bias);
  return sinew_compute_set_double(ctx, plug, plug->attr == A_OUT ? in + bias : 2 * (in + bias));
}

static const sinew_attr_desc_t add_attrs[] = {
    {.name = "input", .short_name = "in", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_KEYABLE},
    {.name = "bias", .short_name = "b", .type = SINEW_ATTR_DOUBLE},
    {.name = "output", .short_name = "out", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT},
    {.name = "output2", .short_name = "out2", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT}};
static const sinew_affects_t add_affects[] = {
    {"input", "output"}, {"bias", "output"}, {"input", "output2"}, {"bias", "output2"}};

/* "sum": sum = sum of ins[]; len = |vec|; tx = im[3][0]; outs[i] = 10 i + ins[i]. */
static uint32_t S_INS, S_VEC, S_VX, S_SUM, S_LEN, S_MAT, S_TX, S_WL, S_W, S_OUTS, S_MODE, S_LABEL, S_CL;

static int sum_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  if (plug->attr == S_SUM) {
    sinew_plug_t arr = sinew_plug_make(n, S_INS, 0, NULL);
    double vals[256];
    size_t count = 0;
    sinew_get_double_elements(g, &arr, NULL, vals, 256, &count);
    double s = 0;
    for (size_t i = 0; i < count && i < 256; i++) s += vals[i];
    return sinew_compute_set_double(ctx, plug, s);
  }
  if (plug->attr == S_LEN) {
    double v[3] = {0, 0, 0};
    sinew_plug_t vec = sinew_plug_make(n, S_VEC, 0, NULL);
    sinew_get_doubles(g, &vec, v, 3, NULL);
    return sinew_compute_set_double(ctx, plug, sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
  }
  if (plug->attr == S_TX) {
    sinew_mat4_t m;
    sinew_plug_t pm = sinew_plug_make(n, S_MAT, 0, NULL);
    sinew_get_matrix(g, &pm, &m);
    return sinew_compute_set_double(ctx, plug, m.m[3][0]);
  }
  if (plug->attr == S_OUTS) {
    double v = 0;
    sinew_plug_t in = sinew_plug_make(n, S_INS, 1, &plug->idx[0]);
    sinew_get_double(g, &in, &v);
    return sinew_compute_set_double(ctx, plug, 10.0 * plug->idx[0] + v);
  }
  return SINEW_EUNKNOWN_PLUG;
}

static const sinew_attr_desc_t sum_attrs[] = {
    {.name = "inputs", .short_name = "ins", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY},
    {.name = "vector", .short_name = "vec", .type = SINEW_ATTR_COMPOUND},
    {.name = "vectorX", .short_name = "vx", .type = SINEW_ATTR_DISTANCE, .parent = "vector"},
    {.name = "vectorY", .short_name = "vy", .type = SINEW_ATTR_DISTANCE, .parent = "vector"},
    {.name = "vectorZ", .short_name = "vz", .type = SINEW_ATTR_DISTANCE, .parent = "vector", .default_value = 1},
    {.name = "sum", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT},
    {.name = "length", .short_name = "len", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT},
    {.name = "inMatrix", .short_name = "im", .type = SINEW_ATTR_MATRIX},
    {.name = "translateX", .short_name = "tx", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT},
    {.name = "weightList", .short_name = "wl", .type = SINEW_ATTR_COMPOUND, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY},
    {.name = "weights", .short_name = "w", .type = SINEW_ATTR_DOUBLE, .parent = "weightList",
     .flags = SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY},
    {.name = "outputs", .short_name = "outs", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT | SINEW_ATTR_ARRAY},
    {.name = "mode", .short_name = "md", .type = SINEW_ATTR_ENUM, .enum_fields = "off:on:auto=5:extra"},
    {.name = "label", .short_name = "lb", .type = SINEW_ATTR_STRING},
    {.name = "clamped", .short_name = "cl", .type = SINEW_ATTR_DOUBLE, .has_min = true, .min_value = 0,
     .has_max = true, .max_value = 1}};
static const sinew_affects_t sum_affects[] = {
    {"inputs", "sum"}, {"vector", "length"}, {"inMatrix", "translateX"}, {"inputs", "outputs"}};

/* "xform": DAG; worldValue[0] = localValue + parentValue, parentValue fed by the parent. */
static uint32_t X_LOCAL, X_PARENT, X_WORLD;

static int xform_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != X_WORLD) return SINEW_EUNKNOWN_PLUG;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  double l = 0, p = 0;
  sinew_plug_t pl = sinew_plug_make(n, X_LOCAL, 0, NULL), pp = sinew_plug_make(n, X_PARENT, 0, NULL);
  sinew_get_double(g, &pl, &l);
  sinew_get_double(g, &pp, &p);
  return sinew_compute_set_double(ctx, plug, l + p);
}

static const sinew_attr_desc_t xform_attrs[] = {
    {.name = "localValue", .short_name = "lv", .type = SINEW_ATTR_DOUBLE},
    {.name = "parentValue", .short_name = "pv", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_HIDDEN},
    {.name = "worldValue", .short_name = "wv", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT | SINEW_ATTR_ARRAY}};
static const sinew_affects_t xform_affects[] = {{"localValue", "worldValue"}, {"parentValue", "worldValue"}};

/* "counted": init and destroy counted, to see when they run. */
static int inits, destroys, added_events, removed_events;
static int counted_init(sinew_graph_t *g, sinew_node_t n, void *st) {
  (void)g;
  (void)n;
  *(int *)st = 42;
  inits++;
  return SINEW_OK;
}
static void counted_destroy(sinew_graph_t *g, sinew_node_t n, void *st) {
  (void)g;
  (void)n;
  assert_int_equal(*(int *)st, 42); /* its state survived */
  destroys++;
}
static const sinew_attr_desc_t counted_attrs[] = {
    {.name = "value", .short_name = "v", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_INPUT}};
static void on_added(void *ud, sinew_node_t n) {
  (void)ud;
  (void)n;
  added_events++;
}
static void on_removed(void *ud, sinew_node_t n) {
  (void)ud;
  (void)n;
  removed_events++;
}

static sinew_graph_t *new_graph(void) {
  sinew_graph_t *g = NULL;
  assert_int_equal(sinew_graph_create(NULL, &g), 0);
  const sinew_node_type_t *t;
  sinew_node_type_desc_t add = {.name = "add", .attrs = add_attrs, .attr_count = 4, .affects = add_affects,
                                .affects_count = 4, .compute = add_compute};
  assert_int_equal(sinew_register_node_type(g, &add, &t), 0);
  A_IN = sinew_node_type_attr(t, "in");
  A_BIAS = sinew_node_type_attr(t, "b");
  A_OUT = sinew_node_type_attr(t, "out");
  A_OUT2 = sinew_node_type_attr(t, "out2");
  sinew_node_type_desc_t sum = {.name = "sum", .attrs = sum_attrs, .attr_count = sizeof sum_attrs / sizeof sum_attrs[0],
                                .affects = sum_affects, .affects_count = 4, .compute = sum_compute};
  assert_int_equal(sinew_register_node_type(g, &sum, &t), 0);
  S_INS = sinew_node_type_attr(t, "ins");
  S_VEC = sinew_node_type_attr(t, "vec");
  S_VX = sinew_node_type_attr(t, "vx");
  S_SUM = sinew_node_type_attr(t, "sum");
  S_LEN = sinew_node_type_attr(t, "len");
  S_MAT = sinew_node_type_attr(t, "im");
  S_TX = sinew_node_type_attr(t, "tx");
  S_WL = sinew_node_type_attr(t, "wl");
  S_W = sinew_node_type_attr(t, "w");
  S_OUTS = sinew_node_type_attr(t, "outs");
  S_MODE = sinew_node_type_attr(t, "md");
  S_LABEL = sinew_node_type_attr(t, "lb");
  S_CL = sinew_node_type_attr(t, "cl");
  sinew_node_type_desc_t xf = {.name = "xform", .flags = SINEW_NODE_TYPE_DAG, .attrs = xform_attrs,
                               .attr_count = 3, .affects = xform_affects, .affects_count = 2,
                               .compute = xform_compute, .dag_parent_output = "worldValue[0]",
                               .dag_child_input = "parentValue"};
  assert_int_equal(sinew_register_node_type(g, &xf, &t), 0);
  X_LOCAL = sinew_node_type_attr(t, "lv");
  X_PARENT = sinew_node_type_attr(t, "pv");
  X_WORLD = sinew_node_type_attr(t, "wv");
  sinew_node_type_desc_t cd = {.name = "counted", .attrs = counted_attrs, .attr_count = 1,
                               .state_size = sizeof(int), .init = counted_init, .destroy = counted_destroy};
  assert_int_equal(sinew_register_node_type(g, &cd, &t), 0);
  return g;
}

static sinew_node_t mk(sinew_graph_t *g, const char *type, const char *name) {
  sinew_node_t n;
  int rc = sinew_node_create(g, type, name, &n);
  if (rc) fail_msg("create %s: %s", name, sinew_graph_errmsg(g));
  return n;
}

/* The `restored` hook: called once per node whose value a rollback, undo or redo put back,
 * after the records are applied (the value read there is the one put back), and never for a
 * node nothing was put back on; the graph notes up to 8 nodes and beyond that looks at all. */
static int restored_calls[16];
static double restored_seen[16];
static uint32_t K_VALUE;
static void kept_restored(sinew_graph_t *g, sinew_node_t n, void *st) {
  int k = *(int *)st;
  restored_calls[k]++;
  sinew_plug_t p = sinew_plug_make(n, K_VALUE, 0, NULL);
  assert_int_equal(sinew_get_double(g, &p, &restored_seen[k]), 0);
  assert_int_equal(sinew_dirty(g, &p), 0); /* it may push dirt */
}
static int kept_init(sinew_graph_t *g, sinew_node_t n, void *st) {
  (void)g;
  (void)n;
  static int next;
  *(int *)st = next++ % 16;
  return SINEW_OK;
}

static void test_restored_hook(void **state) {
  (void)state;
  sinew_graph_t *g = new_graph();
  sinew_node_type_desc_t kd = {.name = "kept", .attrs = counted_attrs, .attr_count = 1, .state_size = sizeof(int),
                               .init = kept_init, .restored = kept_restored};
  const sinew_node_type_t *kt;
  assert_int_equal(sinew_register_node_type(g, &kd, &kt), 0);
  K_VALUE = sinew_node_type_attr(kt, "value");
  sinew_node_t n[12];
  for (int k = 0; k < 12; k++) {
    char name[8];
    snprintf(name, sizeof name, "k%d", k);
    n[k] = mk(g, "kept", name);
  }
  int first = *(int *)sinew_node_state(g, n[0]);
  for (int round = 0; round < 2; round++) {
    int touched = round ? 12 : 3; /* 3: the noted list; 12: more than it holds */
    for (int k = 0; k < 12; k++) {
      sinew_plug_t p = sinew_plug_make(n[k], K_VALUE, 0, NULL);
      assert_int_equal(sinew_set_double(g, &p, k), 0);
    }
    memset(restored_calls, 0, sizeof restored_calls);
    assert_int_equal(sinew_graph_begin(g), 0);
    for (int k = 0; k < touched; k++)
      for (int twice = 0; twice < 2; twice++) {
        sinew_plug_t p = sinew_plug_make(n[k], K_VALUE, 0, NULL);
        assert_int_equal(sinew_set_double(g, &p, 100 + k + twice), 0);
      }
    for (int k = 0; k < 16; k++) assert_int_equal(restored_calls[k], 0); /* not while changing */
    assert_int_equal(sinew_graph_rollback(g), 0);
    for (int k = 0; k < 12; k++) {
      int slot = (first + k) % 16;
      assert_int_equal(restored_calls[slot], k < touched ? 1 : 0);
      if (k < touched) assert_true(restored_seen[slot] == k);
    }
    /* an undo step: undone and redone, each node once each way */
    assert_int_equal(sinew_graph_begin(g), 0);
    for (int k = 0; k < touched; k++) {
      sinew_plug_t p = sinew_plug_make(n[k], K_VALUE, 0, NULL);
      assert_int_equal(sinew_set_double(g, &p, 200 + k), 0);
    }
    sinew_change_t *step = NULL;
    assert_int_equal(sinew_graph_commit_step(g, &step), 0);
    memset(restored_calls, 0, sizeof restored_calls);
    assert_int_equal(sinew_change_undo(g, step), 0);
    for (int k = 0; k < 12; k++) {
      int slot = (first + k) % 16;
      assert_int_equal(restored_calls[slot], k < touched ? 1 : 0);
      if (k < touched) assert_true(restored_seen[slot] == k);
    }
    assert_int_equal(sinew_change_redo(g, step), 0);
    for (int k = 0; k < touched; k++) {
      int slot = (first + k) % 16;
      assert_int_equal(restored_calls[slot], 2);
      assert_true(restored_seen[slot] == 200 + k);
    }
    sinew_change_free(g, step);
  }
  /* nodes a step made and set (more than the noted list holds): undone, they are gone and no
   * hook runs on them (its read would fail); beyond the noted list every live node with the
   * hook is called, the twelve above, once each */
  assert_int_equal(sinew_graph_begin(g), 0);
  for (int k = 0; k < 10; k++) {
    char name[8];
    snprintf(name, sizeof name, "m%d", k);
    sinew_plug_t p = sinew_plug_make(mk(g, "kept", name), K_VALUE, 0, NULL);
    assert_int_equal(sinew_set_double(g, &p, k), 0);
  }
  sinew_change_t *made = NULL;
  assert_int_equal(sinew_graph_commit_step(g, &made), 0);
  memset(restored_calls, 0, sizeof restored_calls);
  assert_int_equal(sinew_change_undo(g, made), 0);
  int calls = 0;
  for (int k = 0; k < 16; k++) calls += restored_calls[k];
  assert_int_equal(calls, 12);
  sinew_change_free(g, made);
  sinew_graph_destroy(g);
}

static sinew_plug_t P(sinew_graph_t *g, const char *text) {
  sinew_plug_t p;
  int rc = sinew_plug_parse(g, text, (sinew_node_t){0, 0}, &p);
  if (rc) fail_msg("parse %s: %s", text, sinew_graph_errmsg(g));
  return p;
}

static double getd(sinew_graph_t *g, const char *text) {
  double v = NAN;
  sinew_plug_t p = P(g, text);
  int rc = sinew_get_double(g, &p, &v);
  if (rc) fail_msg("get %s: %s", text, sinew_graph_errmsg(g));
  return v;
}

static void setd(sinew_graph_t *g, const char *text, double v) {
  sinew_plug_t p = P(g, text);
  int rc = sinew_set_double(g, &p, v);
  if (rc) fail_msg("set %s: %s", text, sinew_graph_errmsg(g));
}

static void conn(sinew_graph_t *g, const char *a, const char *b, uint32_t flags) {
  sinew_plug_t s = P(g, a), d = P(g, b);
  int rc = sinew_connect(g, &s, &d, flags, NULL);
  if (rc) fail_msg("connect %s -> %s: %s", a, b, sinew_graph_errmsg(g));
}

static bool connected(sinew_graph_t *g, const char *a, const char *b) {
  sinew_plug_t s = P(g, a), d = P(g, b), src;
  return sinew_plug_source(g, &d, &src) && sinew_plug_equal(&src, &s);
}

/* ---- canonical dump -------------------------------------------------------------------------- */

typedef struct buf {
  char *s;
  size_t n, cap;
} buf;

static void put(buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char tmp[1024];
  int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  assert_true(k >= 0 && (size_t)k < sizeof tmp);
  if (b->n + (size_t)k + 1 > b->cap) {
    b->cap = (b->n + (size_t)k + 1) * 2;
    b->s = realloc(b->s, b->cap);
    assert_non_null(b->s);
  }
  memcpy(b->s + b->n, tmp, (size_t)k + 1);
  b->n += (size_t)k;
}

#define FLAG_MASK                                                                                   \
  (SINEW__F_SET | SINEW__F_LOCKED | SINEW__F_IN | SINEW__F_OUT | SINEW__F_KEY_ON | SINEW__F_KEY_OFF | \
   SINEW__F_CB_ON | SINEW__F_CB_OFF)

/* One slot subtree: flags everywhere; values and elements where they are stored values (not
 * under a connection destination and not computed: those are recomputed, and checked by the
 * evaluated outputs below). */
static void dump_slot(buf *b, sinew_graph_t *g, sinew__node *n, const sinew__attr *a, bool element,
                      const sinew__slot *s, const char *path, bool fed) {
  fed = fed || (s->flags & SINEW__F_IN);
  bool stored = !fed && !a->computed;
  put(b, "  %s f=%x", path, s->flags & FLAG_MASK);
  char sub[512];
  if ((a->flags & SINEW_ATTR_ARRAY) && !element) {
    put(b, "\n");
    sinew__multi *m = s->v.multi;
    for (uint32_t i = 0; m && i < m->count; i++) {
      /* a packed element dumps as the slot it would have: the form does not show */
      sinew__slot one = {.v.d = m->vals ? m->vals[i] : 0, .flags = m->vals ? m->eflags : 0};
      const sinew__slot *e = m->csr ? sinew__multi_csr_view(m, i) : m->vals ? &one : &m->elems[i];
      if (!stored && !(e->flags & FLAG_MASK)) continue; /* made by a pull or compute */
      snprintf(sub, sizeof sub, "%s[%d]", path, m->idx[i]);
      dump_slot(b, g, n, a, true, e, sub, fed);
    }
    return;
  }
  if (a->type == SINEW_ATTR_COMPOUND) {
    put(b, "\n");
    for (uint32_t i = 0; s->v.kids && i < a->nchildren; i++) {
      const sinew__attr *c = sinew__attr_get(g, n, a->children[i]);
      snprintf(sub, sizeof sub, "%s.%s", path, c->name);
      dump_slot(b, g, n, c, false, &s->v.kids[c->slot_index], sub, fed);
    }
    return;
  }
  if (stored) {
    if (sinew_attr_type_is_numeric(a->type)) put(b, " v=%.17g", s->v.d);
    else if (a->type == SINEW_ATTR_MATRIX && s->v.m)
      for (int i = 0; i < 16; i++) put(b, "%s%.17g", i ? "," : " m=", s->v.m->m[i / 4][i % 4]);
    else if (a->type == SINEW_ATTR_STRING) put(b, " s=%s", s->v.s ? s->v.s : "(null)");
    else if (a->type == SINEW_ATTR_DATA) put(b, " d=%p", (void *)s->v.data);
  }
  put(b, "\n");
}

static sinew_graph_t *dump_g;

static bool dump_conn(void *ud, const sinew_connection_t *c) {
  buf *b = ud;
  char s[256], d[256];
  put(b, "conn %s -> %s%s\n", (sinew_plug_format(dump_g, &c->src, false, s, sizeof s), s),
      (sinew_plug_format(dump_g, &c->dst, false, d, sizeof d), d), c->implicit ? " implicit" : "");
  return true;
}

/* Everything a transaction may change, in a canonical text: nodes in creation order with name,
 * type, lock, parent and child order, the name index, every slot's flags and stored values,
 * every connection in creation order (and each node's own list), and the value of every
 * computed output (read, so evaluated: a rollback must leave the right dirt behind). */
static char *dump(sinew_graph_t *g) {
  buf b = {0};
  for (uint32_t i = g->order_head; i; i = g->nodes[i - 1]->order_next) {
    sinew__node *n = g->nodes[i - 1];
    sinew_node_t h = {i - 1, n->gen};
    sinew_node_t found;
    int rc = sinew_node_find(g, n->name, &found);
    put(&b, "node %u %s %s locked=%d parent=%u find=%d:%d\n", i - 1, n->name, n->type->name, n->locked,
        n->parent.index, rc, rc == 0 ? (int)found.index : -1);
    /* the name index holds the node under its name */
    sinew__name_entry *e = NULL;
    HASH_FIND_STR(g->names, n->name, e);
    bool in_index = false;
    for (uint32_t k = e ? e->first : 0; k; k = g->nodes[k - 1]->name_next) in_index |= k == i;
    put(&b, "  indexed=%d children", in_index);
    for (uint32_t c = 0; c < n->nchildren; c++) put(&b, " %u", n->children[c].index);
    put(&b, "\n  conns");
    for (uint32_t c = 0; c < n->nconns; c++) {
      char s[256], d[256];
      put(&b, " %s>%s", (sinew_plug_format(g, &n->conns[c]->src, false, s, sizeof s), s),
          (sinew_plug_format(g, &n->conns[c]->dst, false, d, sizeof d), d));
    }
    put(&b, "\n");
    for (uint32_t k = 0; k < n->ndyn; k++)
      put(&b, "  dyn %u %s/%s%s\n", n->dyn[k].id, n->dyn[k].name, n->dyn[k].short_name ? n->dyn[k].short_name : "-",
          (n->dyn[k].flags & SINEW__ATTR_REMOVED) ? " removed" : "");
    for (uint32_t id = 0; id < sinew__node_nattrs(n); id++) {
      const sinew__attr *a = sinew__attr_get(g, n, id);
      if (a->parent != SINEW__NO_ATTR || (a->flags & SINEW__ATTR_REMOVED)) continue;
      dump_slot(&b, g, n, a, false, &n->slots[a->slot_index], a->name, false);
    }
    (void)h;
  }
  put(&b, "nconnections %zu\n", g->nconnections);
  dump_g = g;
  sinew_foreach_connection(g, (sinew_node_t){0, 0}, true, dump_conn, &b);
  /* evaluated outputs */
  for (uint32_t i = g->order_head; i; i = g->nodes[i - 1]->order_next) {
    sinew__node *n = g->nodes[i - 1];
    sinew_node_t h = {i - 1, n->gen};
    for (uint32_t id = 0; id < sinew__node_nattrs(n); id++) {
      const sinew__attr *a = sinew__attr_get(g, n, id);
      if (!a->computed || a->type == SINEW_ATTR_COMPOUND || a->parent != SINEW__NO_ATTR) continue;
      double v = NAN;
      if (a->flags & SINEW_ATTR_ARRAY) {
        int32_t idx = 0;
        sinew_plug_t p = sinew_plug_make(h, id, 1, &idx);
        sinew_get_double(g, &p, &v);
        put(&b, "eval %s.%s[0]=%.17g\n", n->name, a->name, v);
      } else {
        sinew_plug_t p = sinew_plug_make(h, id, 0, NULL);
        sinew_get_double(g, &p, &v);
        put(&b, "eval %s.%s=%.17g\n", n->name, a->name, v);
      }
    }
  }
  return b.s;
}

static void assert_dump(const char *want, char *got, const char *what, unsigned seed) {
  if (strcmp(want, got) != 0) {
    /* the first differing line, for the failure message */
    size_t i = 0;
    while (want[i] && want[i] == got[i]) i++;
    while (i > 0 && want[i - 1] != '\n') i--;
    fail_msg("%s differs (seed %u) at:\nwant: %.200s\ngot:  %.200s", what, seed, want + i, got + i);
  }
  free(got);
}

/* ---- one record kind at a time ----------------------------------------------------------------- */

/* a -> b (a.out -> b.in); s: a sum node; c fed by a.out2. */
static sinew_graph_t *small_scene(void) {
  sinew_graph_t *g = new_graph();
  mk(g, "add", "a");
  mk(g, "add", "b");
  mk(g, "add", "c");
  mk(g, "sum", "s");
  conn(g, "a.out", "b.in", 0);
  conn(g, "a.out2", "c.b", 0);
  setd(g, "a.in", 1); /* b.out = a.out + 0 = 1; c.out = 0 + a.out2 = 2 */
  return g;
}

static void change_values(sinew_graph_t *g) {
  setd(g, "a.in", 5);
  setd(g, "a.b", 2);                    /* a.out = 7, b.out = 7, c.out = 2 * 7 = 14 */
  sinew_plug_t p = P(g, "s.lb");
  assert_int_equal(sinew_set_string(g, &p, "label"), 0);
  assert_int_equal(sinew_set_string(g, &p, "other"), 0); /* twice: both records swap back */
  p = P(g, "s.im");
  sinew_mat4_t m = {{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {4, 5, 6, 1}}};
  assert_int_equal(sinew_set_matrix(g, &p, &m), 0); /* tx = 4 */
  p = P(g, "s.vec");
  assert_int_equal(sinew_set_doubles(g, &p, (double[]){1, 2, 2}, 3), 0); /* len = sqrt(1+4+4) = 3 */
  setd(g, "s.ins[3]", 4);                                                /* sum = 4, outs[3] = 34 */
  p = P(g, "s.wl[2].w");
  assert_int_equal(sinew_set_double_elements(g, &p, (int32_t[]){0, 5}, (double[]){0.25, 0.75}, 2), 0);
  setd(g, "s.md", 5);
  sinew_plug_t cl = P(g, "s.cl");
  assert_int_equal(sinew_set_double(g, &cl, 2), SINEW_ERANGE); /* refused: records nothing */
}

static void check_changed(sinew_graph_t *g) {
  assert_true(getd(g, "b.out") == 7);
  assert_true(getd(g, "c.out") == 14);
  assert_true(getd(g, "s.tx") == 4);
  assert_true(getd(g, "s.len") == 3);
  assert_true(getd(g, "s.sum") == 4);
  assert_true(getd(g, "s.outs[3]") == 34);
  assert_true(getd(g, "s.wl[2].w[5]") == 0.75);
  const char *lb = NULL;
  sinew_plug_t p = P(g, "s.lb");
  assert_int_equal(sinew_get_string(g, &p, &lb), 0);
  assert_string_equal(lb, "other");
}

static void check_original(sinew_graph_t *g) {
  assert_true(getd(g, "b.out") == 1);
  assert_true(getd(g, "c.out") == 2);
  assert_true(getd(g, "s.tx") == 0);  /* identity */
  assert_true(getd(g, "s.len") == 1); /* default (0, 0, 1) */
  assert_true(getd(g, "s.sum") == 0); /* no element */
  assert_true(getd(g, "s.md") == 0);
  sinew_plug_t p = P(g, "s.ins");
  assert_int_equal(sinew_plug_indices(g, &p, NULL, 0), 0);
  p = P(g, "s.wl");
  assert_int_equal(sinew_plug_indices(g, &p, NULL, 0), 0);
  p = P(g, "s.lb");
  assert_false(sinew_plug_has_value(g, &p));
  p = P(g, "a.b");
  assert_false(sinew_plug_has_value(g, &p)); /* the SET mark went back too */
}

static void test_values(void **state) {
  (void)state;
  sinew_graph_t *g = small_scene();
  check_original(g);
  char *before = dump(g);
  /* rollback */
  assert_int_equal(sinew_graph_begin(g), 0);
  assert_int_equal(sinew_graph_in_transaction(g), 1);
  change_values(g);
  check_changed(g);
  assert_int_equal(sinew_graph_rollback(g), 0);
  assert_int_equal(sinew_graph_in_transaction(g), 0);
  check_original(g);
  assert_dump(before, dump(g), "after rollback", 0);
  /* an undo step: undo, redo, undo */
  assert_int_equal(sinew_graph_begin(g), 0);
  change_values(g);
  sinew_change_t *step = NULL;
  assert_int_equal(sinew_graph_commit_step(g, &step), 0);
  assert_false(sinew_change_empty(step));
  char *after = dump(g);
  assert_int_equal(sinew_change_undo(g, step), 0);
  check_original(g);
  assert_dump(before, dump(g), "after undo", 0);
  assert_int_equal(sinew_change_undo(g, step), SINEW_EINVAL); /* undone already */
  assert_int_equal(sinew_change_redo(g, step), 0);
  check_changed(g);
  assert_dump(after, dump(g), "after redo", 0);
  assert_int_equal(sinew_change_redo(g, step), SINEW_EINVAL);
  assert_int_equal(sinew_change_undo(g, step), 0);
  assert_dump(before, dump(g), "after second undo", 0);
  sinew_change_free(g, step); /* freed undone: it owns the values of the changes */
  check_original(g);
  free(after);
  free(before);
  sinew_graph_destroy(g);
}

static void test_connections(void **state) {
  (void)state;
  sinew_graph_t *g = small_scene();
  setd(g, "c.in", 9); /* c.out = 9 + 2 = 11 */
  setd(g, "s.vx", 3);
  mk(g, "sum", "t");
  char *before = dump(g);
  assert_int_equal(sinew_graph_begin(g), 0);
  conn(g, "a.out", "c.in", 0);               /* c.in now 1, c.out = 1 + 2 = 3 */
  assert_true(getd(g, "c.out") == 3);
  conn(g, "c.out", "b.in", SINEW_CONNECT_FORCE); /* replaces a.out -> b.in */
  assert_true(getd(g, "b.out") == 3);
  sinew_plug_t s = P(g, "a.out2"), d = P(g, "c.b");
  assert_int_equal(sinew_disconnect(g, &s, &d), 0); /* c.b keeps 2 */
  conn(g, "a.out", "s.ins[4]", 0);           /* a new element, fed */
  conn(g, "s.vec", "t.vec", 0);              /* a compound: t.vec's values are overwritten */
  assert_true(getd(g, "t.len") == sqrt(9.0 + 1.0));
  conn(g, "b.out", "t.ins[1]", SINEW_CONNECT_LOCK);
  sinew_plug_t e = P(g, "s.ins[4]");
  assert_int_equal(sinew_plug_remove_element(g, &e), 0); /* breaks a.out -> s.ins[4] */
  assert_false(connected(g, "a.out", "s.ins[4]"));
  assert_int_equal(sinew_graph_rollback(g), 0);
  assert_true(connected(g, "a.out", "b.in") && connected(g, "a.out2", "c.b"));
  assert_false(connected(g, "a.out", "c.in") || connected(g, "c.out", "b.in"));
  assert_true(getd(g, "c.in") == 9); /* the value set before the connection */
  assert_true(getd(g, "c.out") == 11);
  assert_true(getd(g, "b.out") == 1);
  assert_true(getd(g, "t.len") == 1); /* t.vec back to its default (0, 0, 1) */
  assert_dump(before, dump(g), "after rollback", 0);
  /* the same as a step, undone and redone twice */
  assert_int_equal(sinew_graph_begin(g), 0);
  conn(g, "a.out", "c.in", 0);
  conn(g, "c.out", "b.in", SINEW_CONNECT_FORCE);
  assert_int_equal(sinew_disconnect(g, &s, &d), 0);
  conn(g, "a.out", "s.ins[4]", 0);
  conn(g, "s.vec", "t.vec", 0);
  assert_int_equal(sinew_plug_remove_element(g, &e), 0);
  sinew_change_t *step;
  assert_int_equal(sinew_graph_commit_step(g, &step), 0);
  char *after = dump(g);
  for (int k = 0; k < 2; k++) {
    assert_int_equal(sinew_change_undo(g, step), 0);
    assert_dump(before, dump(g), "after undo", 0);
    assert_int_equal(sinew_change_redo(g, step), 0);
    assert_dump(after, dump(g), "after redo", 0);
  }
  assert_true(getd(g, "b.out") == 3); /* c.out = a.out (1) + c.b (kept 2) */
  sinew_change_free(g, step);          /* freed done: owns the broken connections */
  free(after);
  free(before);
  sinew_graph_destroy(g);
}

static void test_flags_and_names(void **state) {
  (void)state;
  sinew_graph_t *g = small_scene();
  sinew_node_t a, b;
  assert_int_equal(sinew_node_find(g, "a", &a), 0);
  assert_int_equal(sinew_node_find(g, "b", &b), 0);
  mk(g, "add", "add1");
  char *before = dump(g);
  assert_int_equal(sinew_graph_begin(g), 0);
  sinew_plug_t p = P(g, "a.in");
  assert_int_equal(sinew_plug_set_locked(g, &p, true), 0);
  assert_int_equal(sinew_set_double(g, &p, 3), SINEW_ELOCKED);
  p = P(g, "s.ins[7]"); /* makes the element */
  assert_int_equal(sinew_plug_set_keyable(g, &p, true), 0);
  assert_int_equal(sinew_plug_set_channel_box(g, &p, false), 0);
  assert_int_equal(sinew_node_rename(g, a, "renamed"), 0);
  assert_int_equal(sinew_node_rename(g, b, "a"), 0); /* the name a freed */
  assert_int_equal(sinew_node_rename(g, b, "add#"), 0); /* automatic: add2 */
  assert_string_equal(sinew_node_name(g, b), "add2");
  assert_int_equal(sinew_node_set_locked(g, b, true), 0);
  assert_int_equal(sinew_node_rename(g, b, "x"), SINEW_ELOCKED);
  assert_int_equal(sinew_graph_rollback(g), 0);
  sinew_node_t f;
  assert_int_equal(sinew_node_find(g, "a", &f), 0);
  assert_true(f.index == a.index && f.gen == a.gen);
  assert_int_equal(sinew_node_find(g, "renamed", &f), SINEW_ENOTFOUND);
  assert_int_equal(sinew_node_find(g, "add2", &f), SINEW_ENOTFOUND);
  assert_false(sinew_node_locked(g, b));
  p = P(g, "a.in");
  assert_false(sinew_plug_locked(g, &p));
  assert_dump(before, dump(g), "after rollback", 0);
  /* the automatic number add2 is free again: a new "add#" gets it */
  assert_int_equal(sinew_node_rename(g, b, "add#"), 0);
  assert_string_equal(sinew_node_name(g, b), "add2");
  free(before);
  sinew_graph_destroy(g);
}

static void test_nested(void **state) {
  (void)state;
  sinew_graph_t *g = small_scene();
  char *d0 = dump(g);
  assert_int_equal(sinew_graph_begin(g), 0);
  setd(g, "a.in", 2);
  char *d1 = dump(g);
  assert_int_equal(sinew_graph_begin(g), 0);
  assert_int_equal(sinew_graph_in_transaction(g), 2);
  setd(g, "a.in", 3);
  conn(g, "b.out", "c.in", 0);
  sinew_change_t *step = NULL;
  assert_int_equal(sinew_graph_commit_step(g, &step), SINEW_EINVAL); /* not the outermost */
  assert_int_equal(sinew_graph_rollback(g), 0); /* the inner one only */
  assert_true(getd(g, "b.out") == 2);
  assert_dump(d1, dump(g), "after inner rollback", 0);
  assert_int_equal(sinew_graph_begin(g), 0);
  setd(g, "a.in", 4);
  assert_int_equal(sinew_graph_commit(g), 0); /* merges into the outer one */
  assert_true(getd(g, "b.out") == 4);
  assert_int_equal(sinew_graph_rollback(g), 0); /* both */
  assert_true(getd(g, "b.out") == 1);
  assert_dump(d0, dump(g), "after outer rollback", 0);
  assert_int_equal(sinew_graph_rollback(g), SINEW_EINVAL); /* none open */
  assert_int_equal(sinew_graph_commit(g), SINEW_EINVAL);
  /* committed: kept; an empty step */
  assert_int_equal(sinew_graph_begin(g), 0);
  setd(g, "a.in", 6);
  assert_int_equal(sinew_graph_commit(g), 0);
  assert_true(getd(g, "b.out") == 6);
  assert_int_equal(sinew_graph_begin(g), 0);
  assert_int_equal(sinew_graph_commit_step(g, &step), 0);
  assert_true(sinew_change_empty(step));
  assert_int_equal(sinew_change_undo(g, step), 0);
  sinew_change_free(g, step);
  assert_true(sinew_change_empty(NULL));
  assert_int_equal(sinew_graph_begin(NULL), SINEW_EINVAL);
  assert_int_equal(sinew_change_undo(g, NULL), SINEW_EINVAL);
  free(d0);
  free(d1);
  sinew_graph_destroy(g);
}

/* A step whose node was deleted since (outside a transaction) cannot be applied; undo inside a
 * transaction is refused; steps and an open transaction left to the graph go with it. */
static void test_stale_steps(void **state) {
  (void)state;
  sinew_graph_t *g = small_scene();
  sinew_node_t a, x, y;
  assert_int_equal(sinew_node_find(g, "a", &a), 0);
  x = mk(g, "xform", "x");
  y = mk(g, "xform", "y");
  assert_int_equal(sinew_graph_begin(g), 0);
  (void)x;
  (void)y;
  setd(g, "a.in", 8);
  sinew_change_t *step;
  assert_int_equal(sinew_graph_commit_step(g, &step), 0);
  assert_int_equal(sinew_graph_begin(g), 0);
  assert_int_equal(sinew_change_undo(g, step), SINEW_EINVAL);
  assert_int_equal(sinew_graph_commit(g), 0);
  assert_int_equal(sinew_node_delete(g, a), 0); /* outside: allowed; the step can no longer apply */
  assert_int_equal(sinew_change_undo(g, step), SINEW_ESTALE);
  sinew_change_free(g, step);
  /* step 1 makes a node, step 2 changes it (an element made); both undone, step 1 freed: the
   * node goes, and step 2 releases what it held of it and can no longer be redone */
  sinew_change_t *s1, *s2;
  sinew_node_t made;
  assert_int_equal(sinew_graph_begin(g), 0);
  assert_int_equal(sinew_node_create(g, "sum", "made", &made), 0);
  assert_int_equal(sinew_graph_commit_step(g, &s1), 0);
  assert_int_equal(sinew_graph_begin(g), 0);
  setd(g, "made.ins[3]", 2);
  setd(g, "made.wl[1].w[2]", 0.5);
  assert_int_equal(sinew_graph_commit_step(g, &s2), 0);
  assert_int_equal(sinew_change_undo(g, s2), 0);
  assert_int_equal(sinew_change_undo(g, s1), 0);
  assert_false(sinew_node_valid(g, made));
  sinew_change_free(g, s1);
  assert_int_equal(sinew_change_redo(g, s2), SINEW_ESTALE);
  sinew_change_free(g, s2);
  /* a step left to the graph goes with it */
  assert_int_equal(sinew_graph_begin(g), 0);
  setd(g, "b.b", 1);
  assert_int_equal(sinew_graph_commit_step(g, &step), 0);
  assert_int_equal(sinew_graph_begin(g), 0); /* and an open transaction too */
  setd(g, "b.b", 2);
  sinew_graph_destroy(g);
}

static void test_parent_and_attrs(void **state) {
  (void)state;
  sinew_graph_t *g = small_scene();
  sinew_node_t r = mk(g, "xform", "r"), m, l, other = mk(g, "xform", "other"), p1 = mk(g, "xform", "p1");
  sinew_node_t p2 = mk(g, "xform", "p2"), c1, c2, a;
  assert_int_equal(sinew_node_create_under(g, "xform", "m", r, &m), 0);
  assert_int_equal(sinew_node_create_under(g, "xform", "l", m, &l), 0);
  assert_int_equal(sinew_node_create_under(g, "xform", "k", p1, &c1), 0);
  assert_int_equal(sinew_node_create_under(g, "xform", "k", p2, &c2), 0);
  assert_int_equal(sinew_node_find(g, "a", &a), 0);
  setd(g, "r.lv", 1);
  setd(g, "m.lv", 2);
  setd(g, "other.lv", 10);
  assert_true(getd(g, "l.wv[0]") == 3); /* l: 0 + m (2 + r (1)) */
  sinew_attr_desc_t dyn[] = {
      {.name = "dynA", .short_name = "dA", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_INPUT},
      {.name = "dynC", .type = SINEW_ATTR_COMPOUND, .flags = SINEW_ATTR_INPUT},
      {.name = "dynC1", .type = SINEW_ATTR_DOUBLE, .parent = "dynC", .flags = SINEW_ATTR_INPUT},
      {.name = "dynC2", .type = SINEW_ATTR_STRING, .parent = "dynC", .flags = SINEW_ATTR_INPUT}};
  assert_int_equal(sinew_node_add_attr(g, a, dyn, 4), 0);
  setd(g, "a.dynC1", 4);
  char *before = dump(g);
  for (int as_step = 0; as_step < 2; as_step++) {
    assert_int_equal(sinew_graph_begin(g), 0);
    assert_int_equal(sinew_node_set_parent(g, l, other), 0); /* l: 0 + 10 */
    assert_true(getd(g, "l.wv[0]") == 10);
    /* m to the world: its parentValue keeps what r gave it (1), so m: 2 + 1 */
    assert_int_equal(sinew_node_set_parent(g, m, (sinew_node_t){0, 0}), 0);
    assert_true(getd(g, "m.wv[0]") == 3);
    assert_int_equal(sinew_node_set_parent(g, r, other), 0);
    assert_int_equal(sinew_node_set_parent(g, other, r), SINEW_ECYCLE);
    assert_int_equal(sinew_node_set_parent(g, c2, p1), 0); /* next to p1|k: renamed */
    assert_string_equal(sinew_node_name(g, c2), "k1");
    sinew_attr_desc_t more[] = {
        {.name = "late", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_INPUT},
        {.name = "dynC3", .type = SINEW_ATTR_DOUBLE, .parent = "dynC", .flags = SINEW_ATTR_INPUT}};
    assert_int_equal(sinew_node_add_attr(g, a, more, 2), 0); /* dynC grows: its slot is made again */
    setd(g, "a.late", 6);
    setd(g, "a.dynC3", 9);
    assert_true(getd(g, "a.dynC1") == 0); /* Maya drops a grown compound's values too */
    conn(g, "a.late", "c.in", 0);
    setd(g, "a.dynA", 3);
    conn(g, "a.dynA", "b.b", 0);
    assert_true(getd(g, "b.out") == 1 + 3);
    uint32_t da = sinew_node_attr(g, a, "dynA"), dc = sinew_node_attr(g, a, "dynC");
    assert_int_equal(sinew_node_rename_attr(g, a, da, "renamedA", false), 0);
    assert_int_equal(sinew_node_rename_attr(g, a, da, "rA", true), 0);
    assert_int_equal(sinew_node_remove_attr(g, a, dc), 0);
    assert_int_equal(sinew_node_attr(g, a, "dynC1"), SINEW__NO_ATTR);
    assert_int_equal(sinew_node_remove_attr(g, a, da), 0); /* breaks a.dynA -> b.b: b.b keeps 3 */
    assert_true(getd(g, "b.out") == 1 + 3);
    if (!as_step) {
      assert_int_equal(sinew_graph_rollback(g), 0);
    } else {
      sinew_change_t *step;
      assert_int_equal(sinew_graph_commit_step(g, &step), 0);
      char *after = dump(g);
      assert_int_equal(sinew_change_undo(g, step), 0);
      assert_dump(before, dump(g), "after undo", 0);
      assert_int_equal(sinew_change_redo(g, step), 0);
      assert_dump(after, dump(g), "after redo", 0);
      assert_int_equal(sinew_change_undo(g, step), 0);
      sinew_change_free(g, step);
      free(after);
    }
    assert_true(getd(g, "l.wv[0]") == 3);
    assert_true(getd(g, "b.out") == 1);
    assert_string_equal(sinew_node_name(g, c2), "k");
    assert_true(sinew_node_parent(g, c2).index == p2.index);
    assert_true(getd(g, "a.dynC1") == 4);
    assert_true(getd(g, "a.dA") == 0);
    assert_int_equal(sinew_node_attr(g, a, "late"), SINEW__NO_ATTR);
    assert_int_equal(sinew_node_attr(g, a, "dynC3"), SINEW__NO_ATTR);
    assert_true(getd(g, "c.in") == 0);
    assert_dump(before, dump(g), as_step ? "after undo (final)" : "after rollback", 0);
  }
  free(before);
  sinew_graph_destroy(g);
}

/* Deleting and creating nodes inside a transaction: a deleted node is kept (detached) by its
 * record, so its handle is valid again after the undo; init is not run again, destroy runs
 * when the record holding the dead node goes; observers see the nodes come and go. */
static void test_nodes(void **state) {
  (void)state;
  sinew_graph_t *g = small_scene();
  sinew_observer_t obs = {.node_added = on_added, .node_removed = on_removed};
  int id;
  assert_int_equal(sinew_graph_add_observer(g, &obs, &id), 0);
  inits = destroys = added_events = removed_events = 0;
  sinew_node_t k = mk(g, "counted", "k"), a, r = mk(g, "xform", "r"), ch;
  assert_int_equal(sinew_node_create_under(g, "xform", "ch", r, &ch), 0);
  assert_int_equal(sinew_node_find(g, "a", &a), 0);
  setd(g, "k.v", 5);
  setd(g, "r.lv", 2); /* ch.wv[0] = 0 + 2 */
  conn(g, "k.v", "a.b", 0); /* b.out = a.out = a.in (1) + 5 = 6 */
  assert_true(getd(g, "b.out") == 6);
  char *before = dump(g);
  size_t count = sinew_node_count(g);
  assert_int_equal(sinew_graph_begin(g), 0);
  assert_int_equal(sinew_node_delete(g, k), 0);
  assert_false(sinew_node_valid(g, k));
  assert_int_equal(destroys, 0); /* not yet: the record keeps it */
  assert_true(getd(g, "b.out") == 6); /* a.b keeps the 5 it had */
  assert_int_equal(sinew_node_delete(g, r), 0); /* r and ch */
  assert_int_equal(sinew_node_count(g), count - 3);
  sinew_node_t made;
  assert_int_equal(sinew_node_create(g, "counted", "k", &made), 0); /* the name is free */
  assert_int_equal(inits, 2);
  setd(g, "k.v", 7);
  assert_int_equal(sinew_graph_rollback(g), 0);
  assert_int_equal(destroys, 1); /* the node made inside the transaction */
  assert_true(sinew_node_valid(g, k) && sinew_node_valid(g, r) && sinew_node_valid(g, ch));
  assert_false(sinew_node_valid(g, made));
  assert_int_equal(*(int *)sinew_node_state(g, k), 42);
  assert_true(getd(g, "ch.wv[0]") == 2);
  assert_true(connected(g, "k.v", "a.b"));
  assert_int_equal(sinew_node_count(g), count);
  assert_dump(before, dump(g), "after rollback", 0);
  /* as a step: undo and redo keep the handles; freeing the done step destroys the nodes */
  assert_int_equal(sinew_graph_begin(g), 0);
  assert_int_equal(sinew_node_delete(g, k), 0);
  assert_int_equal(sinew_node_delete(g, r), 0);
  assert_int_equal(sinew_node_create(g, "counted", "n", &made), 0);
  sinew_change_t *step;
  assert_int_equal(sinew_graph_commit_step(g, &step), 0);
  char *after = dump(g);
  int removed0 = removed_events, added0 = added_events;
  assert_int_equal(sinew_change_undo(g, step), 0);
  assert_int_equal(removed_events - removed0, 1); /* n */
  assert_int_equal(added_events - added0, 3);     /* k, r, ch */
  assert_true(sinew_node_valid(g, k) && !sinew_node_valid(g, made));
  assert_dump(before, dump(g), "after undo", 0);
  assert_int_equal(sinew_change_redo(g, step), 0);
  assert_true(!sinew_node_valid(g, k) && sinew_node_valid(g, made));
  assert_dump(after, dump(g), "after redo", 0);
  assert_int_equal(inits, 3); /* never run again */
  int d0 = destroys;
  sinew_change_free(g, step);
  assert_int_equal(destroys, d0 + 1); /* k (r and ch have no destroy) */
  assert_false(sinew_node_valid(g, k));
  free(before);
  free(after);
  sinew_graph_destroy(g);
}

static const sinew_data_type_t blob = {.name = "blob"};

/* Data blocks: the record keeps a reference to the block replaced (and gives it back). Automatic
 * names after a rollback are what they would have been without the transaction. */
static void test_data_and_names(void **state) {
  (void)state;
  sinew_graph_t *g = small_scene();
  sinew_node_t a;
  assert_int_equal(sinew_node_find(g, "a", &a), 0);
  sinew_attr_desc_t d = {.name = "payload", .type = SINEW_ATTR_DATA, .flags = SINEW_ATTR_INPUT};
  assert_int_equal(sinew_node_add_attr(g, a, &d, 1), 0);
  sinew_data_t *d1, *d2, *got;
  assert_int_equal(sinew_data_create(&blob, 8, &d1), 0);
  assert_int_equal(sinew_data_create(&blob, 8, &d2), 0);
  sinew_plug_t p = P(g, "a.payload");
  assert_int_equal(sinew_set_data(g, &p, d1), 0);
  assert_int_equal(sinew_data_refcount(d1), 2); /* ours and the slot's */
  char *before = dump(g);
  assert_int_equal(sinew_graph_begin(g), 0);
  assert_int_equal(sinew_set_data(g, &p, d2), 0);
  assert_int_equal(sinew_data_refcount(d1), 2); /* ours and the record's */
  assert_int_equal(sinew_data_refcount(d2), 2);
  assert_int_equal(sinew_set_data(g, &p, NULL), 0);
  assert_int_equal(sinew_graph_rollback(g), 0);
  assert_int_equal(sinew_get_data(g, &p, &got), 0);
  assert_ptr_equal(got, d1);
  sinew_data_unref(got); /* get_data gives a new reference */
  assert_int_equal(sinew_data_refcount(d2), 1); /* the record's reference went with it */
  assert_int_equal(sinew_data_refcount(d1), 2);
  assert_dump(before, dump(g), "after rollback", 0);
  free(before);
  /* add1 add2 add3; inside: add2 deleted, "add#" takes 2; after the rollback add2 is back and
   * the next "add#" is add4 (1, 2, 3 taken), as without the transaction */
  sinew_node_t n1, n2, n3, made;
  assert_int_equal(sinew_node_create(g, "add", "add#", &n1), 0);
  assert_int_equal(sinew_node_create(g, "add", "add#", &n2), 0);
  assert_int_equal(sinew_node_create(g, "add", "add#", &n3), 0);
  assert_string_equal(sinew_node_name(g, n3), "add3");
  assert_int_equal(sinew_graph_begin(g), 0);
  assert_int_equal(sinew_node_delete(g, n2), 0);
  assert_int_equal(sinew_node_create(g, "add", "add#", &made), 0);
  assert_string_equal(sinew_node_name(g, made), "add2");
  assert_int_equal(sinew_node_create(g, "add", "add#", &made), 0);
  assert_string_equal(sinew_node_name(g, made), "add4");
  assert_int_equal(sinew_graph_rollback(g), 0);
  assert_string_equal(sinew_node_name(g, n2), "add2");
  assert_int_equal(sinew_node_create(g, "add", "add#", &made), 0);
  assert_string_equal(sinew_node_name(g, made), "add4");
  sinew_graph_destroy(g);
  assert_int_equal(sinew_data_refcount(d1), 1);
  sinew_data_unref(d1);
  sinew_data_unref(d2);
}

/* Observers may not open, close or apply transactions from their callbacks. */
static sinew_graph_t *cb_graph;
static sinew_change_t *cb_step;
static int cb_calls, cb_refused;
static void cb_dirtied(void *ud, const sinew_plug_t *p) {
  (void)ud;
  (void)p;
  cb_calls++;
  cb_refused += sinew_graph_begin(cb_graph) == SINEW_EINVAL;
  cb_refused += sinew_graph_commit(cb_graph) == SINEW_EINVAL;
  cb_refused += sinew_graph_rollback(cb_graph) == SINEW_EINVAL;
  cb_refused += sinew_change_undo(cb_graph, cb_step) == SINEW_EINVAL;
  sinew_change_free(cb_graph, cb_step); /* ignored */
}

static void test_callbacks_refused(void **state) {
  (void)state;
  sinew_graph_t *g = small_scene();
  cb_graph = g;
  assert_int_equal(sinew_graph_begin(g), 0);
  setd(g, "a.b", 1);
  assert_int_equal(sinew_graph_commit_step(g, &cb_step), 0);
  sinew_observer_t obs = {.plug_dirtied = cb_dirtied};
  int id;
  assert_int_equal(sinew_graph_add_observer(g, &obs, &id), 0);
  /* a.in 1, a.b 1: a.out 2, b.out 2, c.b = a.out2 = 4, c.out 4 (clean before the set) */
  assert_true(getd(g, "b.out") == 2 && getd(g, "c.out") == 4);
  cb_calls = cb_refused = 0;
  assert_int_equal(sinew_graph_begin(g), 0);
  setd(g, "a.in", 3); /* dirties a.out, b.in, b.out, ...: each callback tries and is refused */
  assert_true(cb_calls > 0);
  assert_int_equal(cb_refused, 4 * cb_calls);
  assert_int_equal(sinew_graph_in_transaction(g), 1);
  assert_int_equal(sinew_graph_remove_observer(g, id), 0);
  assert_int_equal(sinew_graph_rollback(g), 0);
  assert_true(getd(g, "b.out") == 2 && getd(g, "c.out") == 4); /* a.in back to 1 */
  assert_int_equal(sinew_change_undo(g, cb_step), 0); /* the step survived the callbacks */
  assert_true(getd(g, "b.out") == 1 && getd(g, "c.out") == 2); /* a.b back to 0 */
  sinew_change_free(g, cb_step);
  sinew_graph_destroy(g);
}

/* The command layer on a real scene (a corpus file with a skinned mesh): MEL commands run inside
 * a transaction, then the graph is rolled back, or kept as a step undone and redone. Only the
 * graph is compared (the session's own records are the next step's). */
static sinew_node_t node_at(sinew_graph_t *g, uint32_t k);

static const char *const SCENE_CMDS[] = {
    "createNode transform -n \"jt1\";",
    "createNode joint -n \"jj1\" -p \"jt1\";",
    "joint -p 1 2 3 -n \"jj2\";",
    "setAttr \"jt1.translate\" 1 2 3;",
    "setAttr -lock true \"jt1.ry\";",
    "addAttr -ln \"extra\" -at double \"jt1\";",
    "setAttr \"jt1.extra\" 4;",
    "connectAttr \"jt1.extra\" \"jj1.tx\";",
    "rename \"jt1\" \"jtRenamed\";",
    "parent -w \"jj1\";",
    "polyCube -n \"cubeX\";",
    "skinCluster -n \"skinX\" \"jj2\" \"cubeX\";",
    "setAttr \"jj2.rz\" 30;",
    "disconnectAttr \"jtRenamed.extra\" \"jj1.tx\";",
    "deleteAttr \"jtRenamed.extra\";",
    "delete \"jj1\";",
    "undoInfo -q -state;", /* not a command yet: fails, changes nothing */
};

static void test_scene_commands(void **state) {
  (void)state;
  for (int as_step = 0; as_step < 2; as_step++) {
    sinew_session_t *S;
    sinew_session_desc_t d = {0};
    assert_int_equal(sinew_session_create(&d, &S), 0);
    char path[512];
    snprintf(path, sizeof path, "%s/ffda/CylinderTest.ma", SINEW_TEST_DATA_DIR);
    if (sinew_session_run_file(S, path, NULL)) fail_msg("load %s", path);
    sinew_graph_t *g = sinew_session_graph(S);
    char *before = dump(g);
    uint32_t count = (uint32_t)sinew_node_count(g);
    assert_int_equal(sinew_graph_begin(g), 0);
    int ok = 0;
    for (size_t i = 0; i < sizeof SCENE_CMDS / sizeof SCENE_CMDS[0]; i++)
      ok += sinew_session_run(S, SCENE_CMDS[i], strlen(SCENE_CMDS[i]), "cmds.mel", NULL) == 0;
    print_message("scene: %d of %zu commands succeeded\n", ok, sizeof SCENE_CMDS / sizeof SCENE_CMDS[0]);
    assert_true(ok >= 12);
    /* and the scene's own nodes: the middle one deleted, a value on the first set */
    assert_int_equal(sinew_node_delete(g, node_at(g, count / 2)), 0);
    sinew_node_t first = node_at(g, 0);
    uint32_t attr = 0;
    while (attr < sinew_node_attr_count(g, first)) {
      sinew_attr_info_t info;
      sinew_node_attr_info(g, first, attr, &info);
      if (info.type == SINEW_ATTR_DOUBLE && (info.flags & SINEW_ATTR_WRITABLE) && info.parent == UINT32_MAX &&
          !(info.flags & SINEW_ATTR_ARRAY))
        break;
      attr++;
    }
    sinew_plug_t p = sinew_plug_make(first, attr, 0, NULL);
    sinew_set_double(g, &p, 0.25);
    if (!as_step) {
      assert_int_equal(sinew_graph_rollback(g), 0);
      assert_dump(before, dump(g), "scene after rollback", 0);
    } else {
      sinew_change_t *step;
      assert_int_equal(sinew_graph_commit_step(g, &step), 0);
      char *after = dump(g);
      for (int k = 0; k < 2; k++) {
        assert_int_equal(sinew_change_undo(g, step), 0);
        assert_dump(before, dump(g), "scene after undo", 0);
        assert_int_equal(sinew_change_redo(g, step), 0);
        assert_dump(after, dump(g), "scene after redo", 0);
      }
      free(after);
      sinew_change_free(g, step);
    }
    free(before);
    sinew_session_destroy(S);
  }
}

/* A host's own state beside the graph, journaled with sinew_graph_record. */
typedef struct host_rec {
  int *live;
  int other;
} host_rec;
static int host_released, host_released_done;
static void host_swap(sinew_graph_t *g, void *data) {
  (void)g;
  host_rec *h = data;
  int t = *h->live;
  *h->live = h->other;
  h->other = t;
}
static void host_release(sinew_graph_t *g, void *data, bool done) {
  (void)g;
  host_released++;
  host_released_done += done;
  free(data);
}
static const sinew_record_ops_t host_ops = {.swap = host_swap, .release = host_release};

/* Sets the host's value through the journal: record first (it may fail), then change. */
static int host_set(sinew_graph_t *g, int *value, int v) {
  host_rec *h = malloc(sizeof *h);
  assert_non_null(h);
  *h = (host_rec){.live = value, .other = *value};
  int rc = sinew_graph_record(g, &host_ops, h);
  if (rc) {
    free(h);
    return rc;
  }
  *value = v;
  return SINEW_OK;
}

static void test_host_records(void **state) {
  (void)state;
  sinew_graph_t *g = small_scene();
  int value = 1;
  host_released = host_released_done = 0;
  assert_int_equal(host_set(g, &value, 2), 0); /* no transaction: released at once, done */
  assert_int_equal(value, 2);
  assert_int_equal(host_released, 1);
  assert_int_equal(host_released_done, 1);
  assert_int_equal(sinew_graph_begin(g), 0);
  assert_int_equal(host_set(g, &value, 3), 0);
  setd(g, "a.in", 4);
  assert_int_equal(host_set(g, &value, 5), 0);
  assert_int_equal(sinew_graph_rollback(g), 0);
  assert_int_equal(value, 2); /* both taken back, in order */
  assert_true(getd(g, "b.out") == 1);
  assert_int_equal(host_released, 3);
  assert_int_equal(host_released_done, 1); /* released holding the changes taken back */
  assert_int_equal(sinew_graph_begin(g), 0);
  assert_int_equal(host_set(g, &value, 7), 0);
  sinew_change_t *step;
  assert_int_equal(sinew_graph_commit_step(g, &step), 0);
  assert_int_equal(sinew_change_undo(g, step), 0);
  assert_int_equal(value, 2);
  assert_int_equal(sinew_change_redo(g, step), 0);
  assert_int_equal(value, 7);
  sinew_change_free(g, step);
  assert_int_equal(host_released, 4);
  assert_int_equal(host_released_done, 2); /* done: it held the state before */
  assert_int_equal(sinew_graph_record(g, NULL, NULL), SINEW_EINVAL);
  sinew_record_ops_t noswap = {0};
  assert_int_equal(sinew_graph_record(g, &noswap, NULL), SINEW_EINVAL);
  /* out of memory: the record fails, the host changes nothing */
  test_alloc_install();
  sinew_graph_t *g2 = small_scene();
  int v2 = 1;
  assert_int_equal(sinew_graph_begin(g2), 0);
  for (long n = 1;; n++) {
    test_alloc_reset();
    test_alloc_fail_at(n);
    int rc = host_set(g2, &v2, 9);
    test_alloc_fail_at(0);
    if (!rc) break;
    assert_int_equal(rc, SINEW_ENOMEM);
    assert_int_equal(v2, 1);
  }
  assert_int_equal(sinew_graph_rollback(g2), 0);
  assert_int_equal(v2, 1);
  sinew_graph_destroy(g2);
  assert_int_equal(test_alloc_live(), 0);
  test_alloc_uninstall();
  sinew_graph_destroy(g);
}

/* ---- random property test ----------------------------------------------------------------------- */

static unsigned rng_state;
static unsigned rnd(unsigned n) { /* xorshift32 */
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return n ? rng_state % n : 0;
}

static const char *const ADDS[] = {"a0", "a1", "a2"};
static const char *const SUMS[] = {"s0", "s1", "s2"};
static const char *const XFS[] = {"x0", "x1", "x2", "x3"};

static uint32_t D_A, D_C, D_C1; /* the dynamic attributes of a0 and a1 (same ids on both) */

static sinew_graph_t *random_scene(void) {
  sinew_graph_t *g = new_graph();
  for (int i = 0; i < 3; i++) mk(g, "add", ADDS[i]);
  for (int i = 0; i < 3; i++) mk(g, "sum", SUMS[i]);
  sinew_node_t x[4];
  for (int i = 0; i < 4; i++) x[i] = mk(g, "xform", XFS[i]);
  assert_int_equal(sinew_node_set_parent(g, x[1], x[0]), 0);
  assert_int_equal(sinew_node_set_parent(g, x[2], x[0]), 0);
  assert_int_equal(sinew_node_set_parent(g, x[3], x[1]), 0);
  sinew_attr_desc_t dyn[] = {
      {.name = "dynA", .short_name = "dA", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_INPUT},
      {.name = "dynC", .type = SINEW_ATTR_COMPOUND, .flags = SINEW_ATTR_INPUT},
      {.name = "dynC1", .type = SINEW_ATTR_DOUBLE, .parent = "dynC", .flags = SINEW_ATTR_INPUT},
      {.name = "dynC2", .type = SINEW_ATTR_DOUBLE, .parent = "dynC", .flags = SINEW_ATTR_INPUT}};
  for (int i = 0; i < 2; i++) {
    sinew_node_t a;
    assert_int_equal(sinew_node_find(g, ADDS[i], &a), 0);
    assert_int_equal(sinew_node_add_attr(g, a, dyn, 4), 0);
    D_A = sinew_node_attr(g, a, "dynA");
    D_C = sinew_node_attr(g, a, "dynC");
    D_C1 = sinew_node_attr(g, a, "dynC1");
  }
  conn(g, "a0.out", "a1.in", 0);
  conn(g, "a1.out", "s0.ins[2]", 0);
  conn(g, "a0.dynA", "a1.dynC1", 0);
  setd(g, "a0.dynC1", 0.5);
  setd(g, "a0.in", 1.5);
  setd(g, "s1.ins[0]", 2);
  return g;
}

/* A random live node of a group (0 add, 1 sum, 2 xform, 3 any); the zero handle when none. */
static sinew_node_t rnode(sinew_graph_t *g, int group) {
  static const char *const T[] = {"add", "sum", "xform"};
  sinew_node_t found[256];
  uint32_t n = 0;
  for (uint32_t i = g->order_head; i && n < 256; i = g->nodes[i - 1]->order_next)
    if (group == 3 || strcmp(g->nodes[i - 1]->type->name, T[group]) == 0)
      found[n++] = (sinew_node_t){i - 1, g->nodes[i - 1]->gen};
  return n ? found[rnd(n)] : (sinew_node_t){0, 0};
}

/* The k-th node in creation order (nodes may have been renamed). */
static sinew_node_t node_at(sinew_graph_t *g, uint32_t k) {
  uint32_t i = g->order_head;
  for (uint32_t j = 0; j < k && i; j++) i = g->nodes[i - 1]->order_next;
  return (sinew_node_t){i - 1, g->nodes[i - 1]->gen};
}

static sinew_plug_t rplug_in(sinew_graph_t *g) {
  uint32_t k = rnd(10);
  sinew_node_t n = rnode(g, k < 3 ? 0 : k < 6 ? 1 : 2);
  int32_t idx[2] = {(int32_t)rnd(5), (int32_t)rnd(4)};
  if (k < 3) {
    static const uint32_t *const ids[] = {&A_IN, &A_BIAS, &D_A, &D_C1, &D_C};
    return sinew_plug_make(n, *ids[rnd(5)], 0, NULL); /* a2 has no dynamic ones: refused */
  }
  if (k < 6) {
    switch (rnd(6)) {
      case 0: return sinew_plug_make(n, S_INS, 1, idx);
      case 1: return sinew_plug_make(n, S_VX, 0, NULL);
      case 2: return sinew_plug_make(n, S_VEC, 0, NULL);
      case 3: return sinew_plug_make(n, S_W, 2, idx);
      case 4: return sinew_plug_make(n, S_MODE, 0, NULL);
      default: return sinew_plug_make(n, S_CL, 0, NULL);
    }
  }
  return sinew_plug_make(n, X_LOCAL, 0, NULL);
}

static sinew_plug_t rplug_out(sinew_graph_t *g) {
  uint32_t k = rnd(10);
  sinew_node_t n = rnode(g, k < 3 ? 0 : k < 6 ? 1 : 2);
  int32_t idx[1] = {(int32_t)rnd(4)};
  if (k < 3) return sinew_plug_make(n, rnd(2) ? A_OUT : A_OUT2, 0, NULL);
  if (k < 6) {
    switch (rnd(4)) {
      case 0: return sinew_plug_make(n, S_SUM, 0, NULL);
      case 1: return sinew_plug_make(n, S_LEN, 0, NULL);
      case 2: return sinew_plug_make(n, S_OUTS, 1, idx);
      default: return sinew_plug_make(n, S_VEC, 0, NULL);
    }
  }
  return sinew_plug_make(n, X_WORLD, 1, (int32_t[]){0});
}

typedef struct pick {
  uint32_t want, seen;
  sinew_connection_t c;
} pick;

static bool pick_conn(void *ud, const sinew_connection_t *c) {
  pick *p = ud;
  if (p->seen++ == p->want) {
    p->c = *c;
    return false;
  }
  return true;
}

static const char *const NAMES[] = {"a0", "s1", "foo", "foo#", "add#", "x", "node1", "n#"};

/* One random graph call (its result does not matter: a refused call must change nothing). */
static long ok_calls[20], all_calls[20];
static void ok_count(int k, int rc) {
  all_calls[k]++;
  if (rc == 0) ok_calls[k]++;
}

static void random_op(sinew_graph_t *g) {
  sinew_plug_t p;
  switch (rnd(20)) {
    case 0:
    case 1:
    case 2: {
      p = rplug_in(g);
      double v = (double)((int)rnd(13) - 6) / 2;
      if (p.attr == S_VEC && g->nodes[p.node.index]->type == sinew_find_node_type(g, "sum"))
        ok_count(0, sinew_set_doubles(g, &p, (double[]){v, v + 1, v - 1}, 1 + rnd(3)));
      else ok_count(1, sinew_set_double(g, &p, v));
      break;
    }
    case 3: {
      sinew_node_t n = rnode(g, 1);
      p = sinew_plug_make(n, S_MAT, 0, NULL);
      sinew_mat4_t m = {{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {(double)rnd(9), 1, 2, 1}}};
      ok_count(2, sinew_set_matrix(g, &p, &m));
      break;
    }
    case 4: {
      sinew_node_t n = rnode(g, 1);
      p = sinew_plug_make(n, S_LABEL, 0, NULL);
      static const char *const L[] = {"one", "two", NULL, ""};
      ok_count(3, sinew_set_string(g, &p, L[rnd(4)]));
      break;
    }
    case 5: {
      sinew_node_t n = rnode(g, 1);
      int32_t idx[3] = {(int32_t)rnd(6), (int32_t)rnd(6), rnd(5) ? (int32_t)rnd(6) : -1};
      double v[3] = {rnd(5), rnd(5), 0.5};
      if (rnd(2)) {
        p = sinew_plug_make(n, S_INS, 0, NULL);
      } else {
        int32_t o = (int32_t)rnd(3);
        p = sinew_plug_make(n, S_W, 1, &o);
      }
      ok_count(4, sinew_set_double_elements(g, &p, idx, v, 3));
      break;
    }
    case 6:
    case 7:
    case 8: {
      sinew_plug_t s = rplug_out(g), d = rplug_in(g);
      ok_count(5, sinew_connect(g, &s, &d, rnd(2) ? SINEW_CONNECT_FORCE : 0, NULL));
      break;
    }
    case 9: {
      pick pk = {.want = rnd(8)};
      sinew_foreach_connection(g, (sinew_node_t){0, 0}, false, pick_conn, &pk);
      if (pk.seen > pk.want) ok_count(6, sinew_disconnect(g, &pk.c.src, &pk.c.dst));
      break;
    }
    case 10: {
      sinew_node_t n = rnode(g, 1);
      int32_t i = (int32_t)rnd(5);
      p = sinew_plug_make(n, rnd(2) ? S_INS : S_WL, 1, &i);
      ok_count(7, sinew_plug_remove_element(g, &p));
      break;
    }
    case 11: ok_count(8, sinew_node_rename(g, rnode(g, 3), NAMES[rnd(8)])); break;
    case 12: ok_count(9, sinew_node_set_locked(g, rnode(g, 3), rnd(4) == 0)); break;
    case 13:
      p = rplug_in(g);
      if (rnd(3) == 0) ok_count(10, sinew_plug_set_locked(g, &p, rnd(2)));
      else if (rnd(2)) ok_count(11, sinew_plug_set_keyable(g, &p, rnd(2)));
      else ok_count(12, sinew_plug_set_channel_box(g, &p, rnd(2)));
      break;
    case 16: {
      sinew_node_t x = rnode(g, 2);
      sinew_node_t par = rnd(5) == 0 ? (sinew_node_t){0, 0} : rnode(g, 2);
      ok_count(14, sinew_node_set_parent(g, x, par));
      break;
    }
    case 17: {
      static const char *const AN[] = {"dynA", "dynB", "q", "dA", "dynC1", "bad name"};
      sinew_node_t a = rnode(g, 0);
      uint32_t id = rnd(2) ? D_A : rnd(2) ? D_C : D_C1;
      if (rnd(3) == 0) ok_count(15, sinew_node_remove_attr(g, a, id));
      else ok_count(16, sinew_node_rename_attr(g, a, id, AN[rnd(6)], rnd(3) == 0));
      break;
    }
    case 14: { /* create: automatic, explicit or taken names; xforms under an xform */
      static const char *const T[] = {"add", "sum", "xform"};
      static const char *const N[] = {NULL, "a0", "fresh", "k#", "x1"};
      int t = (int)rnd(3);
      sinew_node_t par = t == 2 && rnd(2) ? rnode(g, 2) : (sinew_node_t){0, 0};
      ok_count(17, sinew_node_create_under(g, T[t], N[rnd(5)], par, NULL));
      break;
    }
    case 19: { /* add attributes: a top-level one, or a child to the compound */
      static const char *const AN[] = {"extra", "dynA", "more", "q"};
      sinew_attr_desc_t d[2] = {
          {.name = AN[rnd(4)], .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_INPUT},
          {.name = "dynC9", .type = SINEW_ATTR_DOUBLE, .parent = "dynC", .flags = SINEW_ATTR_INPUT}};
      bool both = rnd(2);
      ok_count(19, sinew_node_add_attr(g, rnode(g, 0), both || rnd(2) ? d : d + 1, both ? 2 : 1));
      break;
    }
    case 18: { /* delete one node (its subtree) or two */
      sinew_node_t two[2] = {rnode(g, 3), rnode(g, 3)};
      if (!two[0].gen) break;
      ok_count(18, sinew_node_delete_many(g, two, rnd(3) == 0 ? 2 : 1));
      break;
    }
    default: {
      sinew_plug_t s = rplug_out(g), d = rplug_in(g);
      ok_count(13, sinew_disconnect(g, &s, &d)); /* mostly not connected: refused */
      break;
    }
  }
}

static void test_random(void **state) {
  (void)state;
  unsigned seeds = 40;
  const char *env = getenv("SINEW_JOURNAL_SEEDS");
  if (env) seeds = (unsigned)strtoul(env, NULL, 10);
  long ops = 0;
  for (unsigned seed = 1; seed <= seeds; seed++) {
    rng_state = seed * 2654435761u;
    sinew_graph_t *g = random_scene();
    for (int round = 0; round < 12; round++) {
      char *d0 = dump(g);
      assert_int_equal(sinew_graph_begin(g), 0);
      int n = 1 + (int)rnd(80);
      for (int i = 0; i < n; i++, ops++) {
        if (rnd(20) == 0) { /* a nested savepoint */
          char *dn = dump(g);
          assert_int_equal(sinew_graph_begin(g), 0);
          for (int k = (int)rnd(10); k > 0; k--, ops++) random_op(g);
          if (rnd(2)) {
            assert_int_equal(sinew_graph_rollback(g), 0);
            assert_dump(dn, dump(g), "after a nested rollback", seed);
          } else {
            assert_int_equal(sinew_graph_commit(g), 0);
          }
          free(dn);
        }
        random_op(g);
      }
      if (rnd(3) == 0) {
        assert_int_equal(sinew_graph_rollback(g), 0);
        assert_dump(d0, dump(g), "after rollback", seed);
        free(d0);
        continue;
      }
      sinew_change_t *step;
      assert_int_equal(sinew_graph_commit_step(g, &step), 0);
      char *d1 = dump(g);
      for (int k = 1 + (int)rnd(3); k > 0; k--) {
        assert_int_equal(sinew_change_undo(g, step), 0);
        assert_dump(d0, dump(g), "after undo", seed);
        assert_int_equal(sinew_change_redo(g, step), 0);
        assert_dump(d1, dump(g), "after redo", seed);
      }
      if (rnd(2)) { /* leave it undone: the next round starts from the scene before */
        assert_int_equal(sinew_change_undo(g, step), 0);
        assert_dump(d0, dump(g), "after final undo", seed);
      }
      sinew_change_free(g, step);
      free(d0);
      free(d1);
    }
    sinew_graph_destroy(g);
  }
  print_message("random: %u seeds, %ld calls; succeeded per kind:", seeds, ops);
  for (int k = 0; k < 20; k++) {
    print_message(" %ld/%ld", ok_calls[k], all_calls[k]);
    assert_true(ok_calls[k] > 0); /* every kind of call really changed the graph sometimes */
  }
  print_message("\n");
}

/* ---- allocation failure ---------------------------------------------------------------------- */

/* Mutating calls, each run with every allocation failing in turn inside a transaction after a
 * few changes: the failing call changes nothing, the rollback restores the scene, no leak. */
static int fault_op(sinew_graph_t *g, int which) {
  sinew_plug_t p, q;
  switch (which) {
    case 0: p = P(g, "s0.ins[9]"); return sinew_set_double(g, &p, 3);
    case 1: p = P(g, "s0.wl[4].w"); return sinew_set_double_elements(g, &p, (int32_t[]){1, 7}, (double[]){1, 2}, 2);
    case 2: {
      p = P(g, "s1.im");
      sinew_mat4_t m = {{{2, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {1, 1, 1, 1}}};
      return sinew_set_matrix(g, &p, &m);
    }
    case 3: p = P(g, "s1.lb"); return sinew_set_string(g, &p, "text");
    case 4: p = P(g, "a2.out"); q = P(g, "s2.wl[3].w[1]"); return sinew_connect(g, &p, &q, 0, NULL);
    case 5: p = P(g, "a2.out"); q = P(g, "a1.in"); return sinew_connect(g, &p, &q, SINEW_CONNECT_FORCE | SINEW_CONNECT_LOCK, NULL);
    case 6: p = P(g, "s0.vec"); q = P(g, "s2.vec"); return sinew_connect(g, &p, &q, 0, NULL);
    case 7: p = P(g, "a0.out"); q = P(g, "a1.in"); return sinew_disconnect(g, &p, &q);
    case 8: p = P(g, "s0.ins[2]"); return sinew_plug_remove_element(g, &p);
    case 9: p = P(g, "s2.ins[5]"); return sinew_plug_set_keyable(g, &p, true);
    case 10: return sinew_node_rename(g, node_at(g, 0), "brandNew");
    case 11: return sinew_node_rename(g, node_at(g, 1), "a#");
    case 12: return sinew_node_set_locked(g, node_at(g, 2), true);
    case 13: p = P(g, "s2.vec"); return sinew_set_doubles(g, &p, (double[]){1, 2, 3}, 3);
    case 14: return sinew_node_set_parent(g, node_at(g, 9), node_at(g, 6)); /* x3 from x1 to x0 */
    case 15: return sinew_node_set_parent(g, node_at(g, 7), (sinew_node_t){0, 0}); /* x1 to the world */
    case 16: return sinew_node_rename_attr(g, node_at(g, 0), D_A, "other", false);
    case 17: return sinew_node_remove_attr(g, node_at(g, 0), D_A); /* a0.dynA -> a1.dynC1 breaks */
    case 18: return sinew_node_create_under(g, "xform", "x3", node_at(g, 7), NULL); /* renamed x4 */
    case 19: return sinew_node_create(g, "sum", NULL, NULL);
    case 20: return sinew_node_delete(g, node_at(g, 7)); /* x1 and x3 below it */
    case 21: {
      sinew_attr_desc_t d[] = {
          {.name = "late", .type = SINEW_ATTR_MATRIX, .flags = SINEW_ATTR_INPUT},
          {.name = "dynC3", .type = SINEW_ATTR_DOUBLE, .parent = "dynC", .flags = SINEW_ATTR_INPUT}};
      return sinew_node_add_attr(g, node_at(g, 0), d, 2);
    }
    default: return sinew_node_delete_many(g, (sinew_node_t[]){node_at(g, 1), node_at(g, 0)}, 2);
  }
}

static void test_alloc_failure(void **state) {
  (void)state;
  test_alloc_install();
  for (int which = 0; which < 23; which++) {
    for (long n = 1;; n++) {
      sinew_graph_t *g = random_scene();
      char *d0 = dump(g);
      assert_int_equal(sinew_graph_begin(g), 0);
      setd(g, "s2.ins[1]", 7); /* changes already in the transaction */
      conn(g, "a2.out2", "s1.ins[3]", 0);
      char *d1 = dump(g);
      test_alloc_reset();
      test_alloc_fail_at(n);
      int rc = fault_op(g, which);
      bool hit = test_alloc_count() >= n;
      test_alloc_fail_at(0);
      if (rc) {
        if (rc != SINEW_ENOMEM) fail_msg("op %d at %ld: %s", which, n, sinew_graph_errmsg(g));
        assert_dump(d1, dump(g), "after a failed call", (unsigned)which);
      }
      free(d1);
      assert_int_equal(sinew_graph_rollback(g), 0);
      assert_dump(d0, dump(g), "after rollback", (unsigned)which);
      free(d0);
      sinew_graph_destroy(g);
      assert_int_equal(test_alloc_live(), 0);
      if (!rc && !hit) break;
      if (n > 2000) fail_msg("op %d never succeeded", which);
    }
  }
  /* applying records allocates nothing: with every allocation failing, rollback, undo and redo
   * of connections, elements, values, names, parents, attributes and nodes still succeed */
  for (int k = 0; k < 3; k++) {
    sinew_graph_t *g = random_scene();
    char *d0 = dump(g);
    assert_int_equal(sinew_graph_begin(g), 0);
    char dst[32];
    for (int i = 0; i < 40; i++) {
      snprintf(dst, sizeof dst, "s2.ins[%d]", 10 + i);
      conn(g, "a2.out", dst, 0);
    }
    for (int which = 0; which < 23; which++) fault_op(g, which); /* each kind of change */
    sinew_change_t *step = NULL;
    if (k == 0) {
      test_alloc_reset();
      test_alloc_fail_at(1);
      assert_int_equal(sinew_graph_rollback(g), 0);
      test_alloc_fail_at(0);
      assert_dump(d0, dump(g), "after rollback with no memory", 0);
    } else {
      assert_int_equal(sinew_graph_commit_step(g, &step), 0);
      char *d1 = dump(g);
      for (int r = 0; r < 2; r++) {
        test_alloc_reset();
        test_alloc_fail_at(1);
        assert_int_equal(sinew_change_undo(g, step), 0);
        test_alloc_fail_at(0);
        assert_dump(d0, dump(g), "after undo with no memory", 0);
        test_alloc_reset();
        test_alloc_fail_at(1);
        assert_int_equal(sinew_change_redo(g, step), 0);
        test_alloc_fail_at(0);
        assert_dump(d1, dump(g), "after redo with no memory", 0);
      }
      free(d1);
      if (k == 2) assert_int_equal(sinew_change_undo(g, step), 0);
      sinew_change_free(g, step);
    }
    free(d0);
    sinew_graph_destroy(g);
    assert_int_equal(test_alloc_live(), 0);
  }
  /* begin itself and commit_step fail cleanly too */
  for (long n = 1;; n++) {
    sinew_graph_t *g = random_scene();
    char *d0 = dump(g);
    test_alloc_reset();
    test_alloc_fail_at(n);
    int rc = sinew_graph_begin(g);
    sinew_change_t *step = NULL;
    if (!rc) {
      test_alloc_fail_at(0);
      setd(g, "a0.in", 4);
      test_alloc_reset();
      test_alloc_fail_at(n);
      rc = sinew_graph_commit_step(g, &step);
      if (rc) {
        assert_int_equal(sinew_graph_in_transaction(g), 1);
        test_alloc_fail_at(0);
        assert_int_equal(sinew_graph_rollback(g), 0);
      }
    }
    bool hit = test_alloc_count() >= n;
    test_alloc_fail_at(0);
    if (rc) assert_int_equal(rc, SINEW_ENOMEM);
    if (step) assert_int_equal(sinew_change_undo(g, step), 0);
    assert_dump(d0, dump(g), "after begin/commit failure", 0);
    free(d0);
    sinew_change_free(g, step);
    sinew_graph_destroy(g);
    assert_int_equal(test_alloc_live(), 0);
    if (!rc && !hit) break;
  }
  test_alloc_uninstall();
}

/* Whole arrays connected into arrays with elements of their own (a numeric multi, and a multi
 * of compounds holding a multi): the pull after the connection replaces the destination's
 * elements by the source's; a rollback, an undo and an undo after a redo give every element
 * back with its value and flags (the journal keeps each destination array whole). */
static void overwrite_arrays(sinew_graph_t *g) {
  conn(g, "s1.ins", "s2.ins", 0);
  conn(g, "s1.wl", "s2.wl", 0);
  assert_true(getd(g, "s2.sum") == 2.0);
  assert_true(getd(g, "s2.wl[0].w[0]") == 1.0);
}

static void check_own_arrays(sinew_graph_t *g) {
  assert_true(getd(g, "s2.sum") == 7.0 + 8.0);
  assert_true(getd(g, "s2.wl[3].w[4]") == 6.0);
  assert_true(getd(g, "s2.wl[3].w[1]") == 5.0);
}

static void test_array_overwritten(void **state) {
  (void)state;
  sinew_graph_t *g = new_graph();
  mk(g, "sum", "s1");
  mk(g, "sum", "s2");
  setd(g, "s1.wl[0].w[0]", 1);
  setd(g, "s1.ins[0]", 2);
  setd(g, "s2.wl[3].w[1]", 5);
  setd(g, "s2.wl[3].w[4]", 6);
  setd(g, "s2.ins[5]", 7);
  setd(g, "s2.ins[9]", 8);
  check_own_arrays(g);
  char *before = dump(g);
  assert_int_equal(sinew_graph_begin(g), 0);
  overwrite_arrays(g);
  assert_int_equal(sinew_graph_rollback(g), 0);
  check_own_arrays(g);
  assert_dump(before, dump(g), "after rollback", 0);
  assert_int_equal(sinew_graph_begin(g), 0);
  overwrite_arrays(g);
  sinew_change_t *step = NULL;
  assert_int_equal(sinew_graph_commit_step(g, &step), 0);
  for (int round = 0; round < 2; round++) {
    assert_int_equal(sinew_change_undo(g, step), 0);
    check_own_arrays(g);
    assert_dump(before, dump(g), "after undo", (unsigned)round);
    assert_int_equal(sinew_change_redo(g, step), 0);
    assert_true(getd(g, "s2.sum") == 2.0);
    assert_true(getd(g, "s2.wl[0].w[0]") == 1.0);
  }
  sinew_change_free(g, step); /* freed done: it owns the copies of the destination arrays */
  free(before);
  sinew_graph_destroy(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_values), cmocka_unit_test(test_array_overwritten),   cmocka_unit_test(test_connections),
      cmocka_unit_test(test_flags_and_names), cmocka_unit_test(test_nested),
      cmocka_unit_test(test_stale_steps),  cmocka_unit_test(test_parent_and_attrs),
      cmocka_unit_test(test_nodes),    cmocka_unit_test(test_data_and_names),
      cmocka_unit_test(test_callbacks_refused), cmocka_unit_test(test_scene_commands),
      cmocka_unit_test(test_host_records), cmocka_unit_test(test_random),
      cmocka_unit_test(test_alloc_failure), cmocka_unit_test(test_restored_hook),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
