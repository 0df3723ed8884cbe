/* tests/test_graph.c: the dependency-graph core: node types, nodes, plugs, connections,
 * dirty propagation, evaluation counts, cycles, sparse multis, errors and allocation failure. */
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

/* ---- test node types ------------------------------------------------------------------------ */

/* "add": out = in + bias; counts computes in its state. */
typedef struct add_state {
  int computes;
  int inputs_changed;
} add_state;

static uint32_t A_IN, A_BIAS, A_OUT, A_OUT2;

static int add_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  add_state *st = sinew_compute_state(ctx);
  if (plug->attr != A_OUT && plug->attr != A_OUT2) return SINEW_EUNKNOWN_PLUG;
  st->computes++;
  double in = 0, bias = 0;
  sinew_plug_t pin = sinew_plug_make(n, A_IN, 0, NULL), pb = sinew_plug_make(n, A_BIAS, 0, NULL);
  assert_int_equal(sinew_get_double(g, &pin, &in), 0);
  assert_int_equal(sinew_get_double(g, &pb, &bias), 0);
  return sinew_compute_set_double(ctx, plug, plug->attr == A_OUT ? in + bias : 2 * (in + bias));
}

static void add_input_changed(sinew_graph_t *g, sinew_node_t n, void *state, const sinew_plug_t *p) {
  ((add_state *)state)->inputs_changed++;
}

static const sinew_attr_desc_t add_attrs[] = {
    {.name = "input", .short_name = "in", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_KEYABLE},
    {.name = "bias", .short_name = "b", .type = SINEW_ATTR_DOUBLE},
    {.name = "output", .short_name = "out", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT},
    {.name = "output2", .short_name = "out2", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT},
    {.name = "unhandled", .short_name = "unh", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT}};
static const sinew_affects_t add_affects[] = {
    {"input", "output"}, {"bias", "output"}, {"input", "output2"}, {"bias", "output2"}, {"input", "unhandled"}};

/* "sum": a sparse multi input, a compound double3 input, a matrix input; outputs sum and len. */
static uint32_t S_INS, S_VEC, S_VX, S_VY, S_VZ, S_SUM, S_LEN, S_MAT, S_TX, S_WL, S_W, S_OUTS;
static int sum_computes;

static int sum_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  sum_computes++;
  if (plug->attr == S_SUM) {
    sinew_plug_t arr = sinew_plug_make(n, S_INS, 0, NULL);
    double vals[64];
    size_t count = 0;
    assert_int_equal(sinew_get_double_elements(g, &arr, NULL, vals, 64, &count), 0);
    double s = 0;
    for (size_t i = 0; i < count && i < 64; i++) s += vals[i];
    return sinew_compute_set_double(ctx, plug, s);
  }
  if (plug->attr == S_LEN) {
    double v[3];
    sinew_plug_t vec = sinew_plug_make(n, S_VEC, 0, NULL);
    assert_int_equal(sinew_get_doubles(g, &vec, v, 3, NULL), 0);
    return sinew_compute_set_double(ctx, plug, sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
  }
  if (plug->attr == S_TX) {
    sinew_mat4_t m;
    sinew_plug_t pm = sinew_plug_make(n, S_MAT, 0, NULL);
    assert_int_equal(sinew_get_matrix(g, &pm, &m), 0);
    return sinew_compute_set_double(ctx, plug, m.m[3][0]);
  }
  if (plug->attr == S_OUTS) { /* outs[i] = 10 * i + ins[i] */
    double v = 0;
    sinew_plug_t in = sinew_plug_make(n, S_INS, 1, &plug->idx[0]);
    assert_int_equal(sinew_get_double(g, &in, &v), 0);
    return sinew_compute_set_double(ctx, plug, 10.0 * plug->idx[0] + v);
  }
  return SINEW_EUNKNOWN_PLUG;
}

static const sinew_attr_desc_t sum_attrs[] = {
    {.name = "inputs", .short_name = "ins", .type = SINEW_ATTR_DOUBLE,
     .flags = SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY},
    {.name = "vector", .short_name = "vec", .type = SINEW_ATTR_COMPOUND},
    {.name = "vectorX", .short_name = "vx", .type = SINEW_ATTR_DISTANCE, .parent = "vector"},
    {.name = "vectorY", .short_name = "vy", .type = SINEW_ATTR_DISTANCE, .parent = "vector"},
    {.name = "vectorZ", .short_name = "vz", .type = SINEW_ATTR_DISTANCE, .parent = "vector", .default_value = 1},
    {.name = "sum", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT},
    {.name = "length", .short_name = "len", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT},
    {.name = "inMatrix", .short_name = "im", .type = SINEW_ATTR_MATRIX},
    {.name = "translateX", .short_name = "tx", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT},
    {.name = "weightList", .short_name = "wl", .type = SINEW_ATTR_COMPOUND,
     .flags = SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY},
    {.name = "weights", .short_name = "w", .type = SINEW_ATTR_DOUBLE, .parent = "weightList",
     .flags = SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY},
    {.name = "outputs", .short_name = "outs", .type = SINEW_ATTR_DOUBLE,
     .flags = SINEW_ATTR_OUTPUT | SINEW_ATTR_ARRAY},
    {.name = "mode", .short_name = "md", .type = SINEW_ATTR_ENUM, .enum_fields = "off:on:auto=5:extra"},
    {.name = "label", .short_name = "lb", .type = SINEW_ATTR_STRING},
    {.name = "clamped", .short_name = "cl", .type = SINEW_ATTR_DOUBLE, .has_min = true, .min_value = 0,
     .has_max = true, .max_value = 1}};
static const sinew_affects_t sum_affects[] = {
    {"inputs", "sum"}, {"vector", "length"}, {"inMatrix", "translateX"}, {"inputs", "outputs"}};

/* "xform": a DAG type whose child input "parentValue" is fed by its parent's "worldValue". */
static uint32_t X_LOCAL, X_PARENT, X_WORLD;
static int xform_computes;

static int xform_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != X_WORLD) return SINEW_EUNKNOWN_PLUG;
  xform_computes++;
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

static int register_types(sinew_graph_t *g) {
  const sinew_node_type_t *t;
  sinew_node_type_desc_t add = {.name = "add", .attrs = add_attrs, .attr_count = 5, .affects = add_affects,
                                .affects_count = 5, .compute = add_compute,
                                .input_changed = add_input_changed, .state_size = sizeof(add_state)};
  int rc = sinew_register_node_type(g, &add, &t);
  if (rc) return rc;
  A_IN = sinew_node_type_attr(t, "in");
  A_BIAS = sinew_node_type_attr(t, "bias");
  A_OUT = sinew_node_type_attr(t, "output");
  A_OUT2 = sinew_node_type_attr(t, "output2");
  sinew_node_type_desc_t sum = {.name = "sum", .attrs = sum_attrs,
                                .attr_count = sizeof sum_attrs / sizeof sum_attrs[0],
                                .affects = sum_affects, .affects_count = 4, .compute = sum_compute};
  if ((rc = sinew_register_node_type(g, &sum, &t))) return rc;
  S_INS = sinew_node_type_attr(t, "ins");
  S_VEC = sinew_node_type_attr(t, "vec");
  S_VX = sinew_node_type_attr(t, "vx");
  S_VY = sinew_node_type_attr(t, "vy");
  S_VZ = sinew_node_type_attr(t, "vz");
  S_SUM = sinew_node_type_attr(t, "sum");
  S_LEN = sinew_node_type_attr(t, "len");
  S_MAT = sinew_node_type_attr(t, "im");
  S_TX = sinew_node_type_attr(t, "tx");
  S_WL = sinew_node_type_attr(t, "wl");
  S_W = sinew_node_type_attr(t, "w");
  S_OUTS = sinew_node_type_attr(t, "outs");
  sinew_node_type_desc_t xf = {.name = "xform", .flags = SINEW_NODE_TYPE_DAG, .attrs = xform_attrs,
                               .attr_count = 3, .affects = xform_affects, .affects_count = 2,
                               .compute = xform_compute, .dag_parent_output = "worldValue[0]",
                               .dag_child_input = "parentValue"};
  if ((rc = sinew_register_node_type(g, &xf, &t))) return rc;
  X_LOCAL = sinew_node_type_attr(t, "lv");
  X_PARENT = sinew_node_type_attr(t, "pv");
  X_WORLD = sinew_node_type_attr(t, "wv");
  return SINEW_OK;
}

static int setup(void **state) {
  sinew_graph_t *g = NULL;
  assert_int_equal(sinew_graph_create(NULL, &g), 0);
  assert_int_equal(register_types(g), 0);
  *state = g;
  sum_computes = xform_computes = 0;
  return 0;
}

static int teardown(void **state) {
  sinew_graph_destroy(*state);
  return 0;
}

static sinew_node_t mk(sinew_graph_t *g, const char *type, const char *name) {
  sinew_node_t n;
  assert_int_equal(sinew_node_create(g, type, name, &n), 0);
  return n;
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
  assert_int_equal(sinew_get_double(g, &p, &v), 0);
  return v;
}

static void setd(sinew_graph_t *g, const char *text, double v) {
  sinew_plug_t p = P(g, text);
  int rc = sinew_set_double(g, &p, v);
  if (rc) fail_msg("set %s: %s", text, sinew_graph_errmsg(g));
}

static void conn(sinew_graph_t *g, const char *a, const char *b) {
  sinew_plug_t s = P(g, a), d = P(g, b);
  int rc = sinew_connect(g, &s, &d, 0, NULL);
  if (rc) fail_msg("connect %s -> %s: %s", a, b, sinew_graph_errmsg(g));
}

static int computes_of(sinew_graph_t *g, const char *name) {
  sinew_node_t n;
  assert_int_equal(sinew_node_find(g, name, &n), 0);
  return ((add_state *)sinew_node_state(g, n))->computes;
}

/* ---- errors and types --------------------------------------------------------------------- */

static void test_status_names(void **state) {
  (void)state;
  assert_string_equal(sinew_err_name(SINEW_ECYCLE), "SINEW_ECYCLE");
  assert_string_equal(sinew_strerror(SINEW_ENOMEM), "out of memory");
  assert_string_equal(sinew_err_name(12345), "SINEW_UNKNOWN");
  assert_string_equal(sinew_log_id_name(SINEW_LOG_EVAL_CYCLE), "EVAL_CYCLE");
  assert_string_equal(sinew_attr_type_name(SINEW_ATTR_ANGLE), "doubleAngle");
}

static void test_register_errors(void **state) {
  sinew_graph_t *g = *state;
  sinew_node_type_desc_t dup = {.name = "add"};
  assert_int_equal(sinew_register_node_type(g, &dup, NULL), SINEW_EEXISTS);
  sinew_attr_desc_t bad_parent[] = {{.name = "a", .type = SINEW_ATTR_DOUBLE, .parent = "nope"}};
  sinew_node_type_desc_t t1 = {.name = "t1", .attrs = bad_parent, .attr_count = 1};
  assert_int_equal(sinew_register_node_type(g, &t1, NULL), SINEW_EINVAL);
  assert_non_null(strstr(sinew_graph_errmsg(g), "nope"));
  sinew_attr_desc_t twice[] = {{.name = "a", .type = SINEW_ATTR_DOUBLE}, {.name = "b", .short_name = "a", .type = SINEW_ATTR_DOUBLE}};
  sinew_node_type_desc_t t2 = {.name = "t2", .attrs = twice, .attr_count = 2};
  assert_int_equal(sinew_register_node_type(g, &t2, NULL), SINEW_EEXISTS);
  sinew_affects_t bad_aff[] = {{"a", "zzz"}};
  sinew_node_type_desc_t t3 = {.name = "t3", .attrs = twice, .attr_count = 1, .affects = bad_aff, .affects_count = 1};
  assert_int_equal(sinew_register_node_type(g, &t3, NULL), SINEW_EINVAL);
  assert_non_null(strstr(sinew_graph_errmsg(g), "zzz"));
  assert_null(sinew_find_node_type(g, "t1"));
  assert_null(sinew_find_node_type(g, "t3"));
  sinew_node_t n;
  assert_int_equal(sinew_node_create(g, "node", NULL, &n), SINEW_EINVAL); /* abstract */
  assert_int_equal(sinew_node_create(g, "nosuchtype", NULL, &n), SINEW_ENOTFOUND);
  assert_non_null(strstr(sinew_graph_errmsg(g), "nosuchtype"));
}

static void test_inheritance(void **state) {
  sinew_graph_t *g = *state;
  sinew_attr_desc_t extra[] = {{.name = "extra", .short_name = "ex", .type = SINEW_ATTR_DOUBLE}};
  sinew_affects_t aff[] = {{"extra", "output"}};
  sinew_node_type_desc_t d = {.name = "addMore", .parent_type = "add", .attrs = extra, .attr_count = 1,
                              .affects = aff, .affects_count = 1};
  const sinew_node_type_t *t;
  assert_int_equal(sinew_register_node_type(g, &d, &t), 0);
  assert_true(sinew_node_type_is_a(t, "add"));
  assert_true(sinew_node_type_is_a(t, "node"));
  assert_int_equal(sinew_node_type_attr(t, "output"), A_OUT); /* same ids as the parent */
  assert_int_not_equal(sinew_node_type_attr(t, "message"), UINT32_MAX); /* base attributes */
  sinew_node_t n = mk(g, "addMore", NULL);
  assert_string_equal(sinew_node_name(g, n), "addMore1");
  setd(g, "addMore1.in", 2);
  assert_true(getd(g, "addMore1.out") == 2.0); /* the parent's compute handles it */
  getd(g, "addMore1.out2");
  setd(g, "addMore1.extra", 5); /* the inherited affects and the new one both dirty output */
  assert_true(sinew_plug_is_dirty(g, &(sinew_plug_t){.node = n, .attr = A_OUT}));
  assert_true(getd(g, "addMore1.out") == 2.0);
  assert_false(sinew_plug_is_dirty(g, &(sinew_plug_t){.node = n, .attr = A_OUT2})); /* not affected */
}

/* ---- nodes and names ---------------------------------------------------------------------- */

static void test_naming(void **state) {
  sinew_graph_t *g = *state;
  sinew_node_t a = mk(g, "add", NULL), b = mk(g, "add", NULL), c = mk(g, "add", "add1");
  assert_string_equal(sinew_node_name(g, a), "add1");
  assert_string_equal(sinew_node_name(g, b), "add2");
  assert_string_equal(sinew_node_name(g, c), "add3"); /* taken: the number is increased */
  sinew_node_t d = mk(g, "add", "thing#");
  assert_string_equal(sinew_node_name(g, d), "thing1");
  sinew_node_t e = mk(g, "add", "ns:thing");
  assert_string_equal(sinew_node_name(g, e), "ns:thing");
  sinew_node_t f;
  assert_int_equal(sinew_node_find(g, ":ns:thing", &f), 0);
  assert_int_equal(f.index, e.index);
  assert_int_equal(sinew_node_create(g, "add", "9bad", &f), SINEW_EINVAL);
  assert_int_equal(sinew_node_create(g, "add", "a b", &f), SINEW_EINVAL);
  assert_int_equal(sinew_node_rename(g, a, "renamed"), 0);
  assert_string_equal(sinew_node_name(g, a), "renamed");
  assert_int_equal(sinew_node_find(g, "add1", &f), SINEW_ENOTFOUND);
  assert_int_equal(sinew_node_rename(g, b, "renamed"), 0);
  assert_string_equal(sinew_node_name(g, b), "renamed1");
  assert_int_equal(sinew_node_count(g), 5);
  /* iteration in creation order */
  const char *expect[] = {"renamed", "renamed1", "add3", "thing1", "ns:thing"};
  int i = 0;
  for (sinew_node_t it = {0, 0}; sinew_node_next(g, &it); i++)
    assert_string_equal(sinew_node_name(g, it), expect[i]);
  assert_int_equal(i, 5);
}

static void test_delete_and_stale(void **state) {
  sinew_graph_t *g = *state;
  sinew_node_t a = mk(g, "add", "a"), b = mk(g, "add", "b");
  conn(g, "a.out", "b.in");
  setd(g, "a.in", 3);
  assert_true(getd(g, "b.out") == 3.0);
  setd(g, "a.in", 4); /* b.in is dirty, not yet pulled, when a goes */
  assert_int_equal(sinew_node_delete(g, a), 0);
  assert_false(sinew_node_valid(g, a));
  assert_null(sinew_node_name(g, a));
  sinew_plug_t pa = sinew_plug_make(a, A_IN, 0, NULL);
  assert_int_equal(sinew_set_double(g, &pa, 1), SINEW_ESTALE);
  /* b keeps the last value it had from a */
  assert_true(getd(g, "b.in") == 4.0);
  sinew_plug_t bin = P(g, "b.in");
  assert_false(sinew_plug_source(g, &bin, NULL));
  setd(g, "b.in", 7); /* now an ordinary input again */
  assert_true(getd(g, "b.out") == 7.0);
  /* the slot is reused with a new generation: the old handle stays stale */
  sinew_node_t c = mk(g, "add", "c");
  assert_int_equal(c.index, a.index);
  assert_false(sinew_node_valid(g, a));
  assert_true(sinew_node_valid(g, c));
  assert_int_equal(sinew_node_set_locked(g, b, true), 0);
  assert_int_equal(sinew_node_delete(g, b), SINEW_ELOCKED);
  assert_int_equal(sinew_node_rename(g, b, "zz"), SINEW_ELOCKED);
  assert_true(sinew_node_valid(g, b));
}

static void test_dag_hierarchy(void **state) {
  sinew_graph_t *g = *state;
  sinew_node_t root = mk(g, "xform", "root"), mid, leaf, other;
  assert_int_equal(sinew_node_create_under(g, "xform", "joint", root, &mid), 0);
  assert_int_equal(sinew_node_create_under(g, "xform", "joint", mid, &leaf), 0);
  assert_string_equal(sinew_node_name(g, leaf), "joint"); /* unique among its siblings only */
  assert_int_equal(sinew_node_find(g, "joint", &other), SINEW_EAMBIGUOUS);
  assert_int_equal(sinew_node_find(g, "|root|joint|joint", &other), 0);
  assert_int_equal(other.index, leaf.index);
  assert_int_equal(sinew_node_find(g, "root|joint", &other), 0);
  assert_int_equal(other.index, mid.index);
  assert_int_equal(sinew_node_find(g, "|joint", &other), SINEW_ENOTFOUND);
  char *path = sinew_node_path(g, leaf);
  assert_string_equal(path, "|root|joint|joint");
  sinew_free(path);
  /* the parent's world value feeds the child through the implicit link */
  setd(g, "root.lv", 1);
  sinew_plug_t mp = P(g, "root|joint.lv");
  sinew_set_double(g, &mp, 10);
  sinew_plug_t lw = sinew_plug_make(leaf, X_WORLD, 1, (int32_t[]){0});
  sinew_plug_t ll = sinew_plug_make(leaf, X_LOCAL, 0, NULL);
  sinew_set_double(g, &ll, 100);
  double v;
  assert_int_equal(sinew_get_double(g, &lw, &v), 0);
  assert_true(v == 111.0);
  /* moving the root recomputes exactly its three world values */
  xform_computes = 0;
  setd(g, "root.lv", 2);
  assert_int_equal(sinew_get_double(g, &lw, &v), 0);
  assert_true(v == 112.0);
  assert_int_equal(xform_computes, 3);
  /* an ancestor cannot become a child */
  assert_int_equal(sinew_node_set_parent(g, root, leaf), SINEW_ECYCLE);
  assert_int_equal(sinew_node_set_parent(g, root, root), SINEW_ECYCLE);
  /* unparent: the child keeps the value it had */
  assert_int_equal(sinew_node_set_parent(g, leaf, (sinew_node_t){0, 0}), 0);
  assert_int_equal(sinew_node_parent(g, leaf).gen, 0);
  assert_int_equal(sinew_get_double(g, &lw, &v), 0);
  assert_true(v == 112.0);
  setd(g, "root.lv", 3);
  assert_int_equal(sinew_get_double(g, &lw, &v), 0);
  assert_true(v == 112.0);
  /* implicit links are not listed, not breakable, but counted when asked */
  sinew_plug_t src = sinew_plug_make(root, X_WORLD, 1, (int32_t[]){0});
  sinew_plug_t mpv = sinew_plug_make(mid, X_PARENT, 0, NULL);
  assert_int_equal(sinew_disconnect(g, &src, &mpv), SINEW_EINVAL);
  assert_int_equal(sinew_set_double(g, &mpv, 1), SINEW_ECONNECTED);
  /* deleting a parent deletes its subtree */
  assert_int_equal(sinew_node_delete(g, root), 0);
  assert_false(sinew_node_valid(g, mid));
  assert_true(sinew_node_valid(g, leaf));
  assert_int_equal(sinew_node_count(g), 1);
}

/* ---- plugs ---------------------------------------------------------------------------------- */

static void test_plug_parse_format(void **state) {
  sinew_graph_t *g = *state;
  sinew_node_t s = mk(g, "sum", "s");
  sinew_plug_t p = P(g, "s.wl[5].w[2]");
  assert_int_equal(p.attr, S_W);
  assert_int_equal(p.nidx, 2);
  assert_int_equal(p.idx[0], 5);
  assert_int_equal(p.idx[1], 2);
  char buf[128];
  sinew_plug_format(g, &p, false, buf, sizeof buf);
  assert_string_equal(buf, "s.weightList[5].weights[2]");
  sinew_plug_format(g, &p, true, buf, sizeof buf);
  assert_string_equal(buf, "s.wl[5].w[2]");
  p = P(g, "s.weightList[3].weights");
  assert_true(sinew_plug_is_array(g, &p));
  p = P(g, "s.vx");
  assert_int_equal(p.attr, S_VX);
  p = P(g, "s.vec.vy");
  assert_int_equal(p.attr, S_VY);
  p = P(g, "s.w[4]"); /* a skipped array level reads as [0], as Maya reads "iog.og[0]" */
  assert_int_equal(p.nidx, 2);
  assert_int_equal(p.idx[0], 0);
  assert_int_equal(sinew_plug_parse(g, ".ins[7]", s, &p), 0);
  assert_int_equal(p.idx[0], 7);
  /* bad input: clear errors naming the node and the attribute */
  assert_int_equal(sinew_plug_parse(g, "s.nope", s, &p), SINEW_ENOTFOUND);
  assert_non_null(strstr(sinew_graph_errmsg(g), "nope"));
  assert_non_null(strstr(sinew_graph_errmsg(g), "s"));
  assert_int_equal(sinew_plug_parse(g, "nosuch.tx", s, &p), SINEW_ENOTFOUND);
  assert_non_null(strstr(sinew_graph_errmsg(g), "nosuch"));
  assert_int_equal(sinew_plug_parse(g, "s.ins[x]", s, &p), SINEW_ESYNTAX);
  assert_int_equal(sinew_plug_parse(g, "s.ins[-1]", s, &p), SINEW_ESYNTAX);
  assert_int_equal(sinew_plug_parse(g, "s.ins[1", s, &p), SINEW_ESYNTAX);
  assert_int_equal(sinew_plug_parse(g, "s.sum[1]", s, &p), SINEW_ESYNTAX);
  assert_int_equal(sinew_plug_parse(g, "s.", s, &p), SINEW_ESYNTAX);
  assert_int_equal(sinew_plug_parse(g, "s.vx.vec", s, &p), SINEW_ENOTFOUND);
  assert_int_equal(sinew_plug_parse(g, "s", s, &p), SINEW_ESYNTAX);
  assert_int_equal(sinew_plug_parse(g, ".ins", (sinew_node_t){0, 0}, &p), SINEW_EINVAL);
  /* navigation */
  p = P(g, "s.wl[5].w[2]");
  sinew_plug_t up;
  assert_true(sinew_plug_parent(g, &p, &up));
  sinew_plug_format(g, &up, true, buf, sizeof buf);
  assert_string_equal(buf, "s.wl[5].w");
  assert_true(sinew_plug_parent(g, &up, &up));
  sinew_plug_format(g, &up, true, buf, sizeof buf);
  assert_string_equal(buf, "s.wl[5]");
  assert_true(sinew_plug_parent(g, &up, &up));
  sinew_plug_format(g, &up, true, buf, sizeof buf);
  assert_string_equal(buf, "s.wl");
  assert_false(sinew_plug_parent(g, &up, &up));
}

static void test_sparse_multi(void **state) {
  sinew_graph_t *g = *state;
  mk(g, "sum", "s");
  setd(g, "s.ins[999999]", 2);
  setd(g, "s.ins[3]", 1);
  setd(g, "s.ins[70]", 4);
  sinew_plug_t arr = P(g, "s.ins");
  int32_t idx[8];
  assert_int_equal(sinew_plug_indices(g, &arr, idx, 8), 3);
  assert_int_equal(idx[0], 3);
  assert_int_equal(idx[1], 70);
  assert_int_equal(idx[2], 999999);
  assert_true(getd(g, "s.sum") == 7.0);
  assert_true(getd(g, "s.ins[5]") == 0.0); /* never set: the default, and no element made */
  assert_int_equal(sinew_plug_indices(g, &arr, idx, 8), 3);
  assert_int_equal(sinew_plug_next_index(g, &arr), 0);
  /* nested sparse multi: weightList[v].weights[i] */
  int32_t wi[] = {0, 3, 7};
  double wv[] = {0.5, 0.25, 0.25};
  sinew_plug_t w = P(g, "s.wl[100000].w");
  assert_int_equal(sinew_set_double_elements(g, &w, wi, wv, 3), 0);
  double vals[4];
  int32_t got[4];
  size_t n = 0;
  assert_int_equal(sinew_get_double_elements(g, &w, got, vals, 4, &n), 0);
  assert_int_equal(n, 3);
  assert_int_equal(got[2], 7);
  assert_true(vals[1] == 0.25);
  sinew_plug_t wl = P(g, "s.wl");
  assert_int_equal(sinew_plug_indices(g, &wl, idx, 8), 1);
  assert_int_equal(idx[0], 100000);
  assert_true(getd(g, "s.wl[100000].w[3]") == 0.25);
  /* removing an element */
  sinew_plug_t e = P(g, "s.ins[70]");
  assert_int_equal(sinew_plug_remove_element(g, &e), 0);
  assert_int_equal(sinew_plug_indices(g, &arr, idx, 8), 2);
  assert_true(getd(g, "s.sum") == 3.0);
  assert_int_equal(sinew_plug_remove_element(g, &e), SINEW_ENOTFOUND);
  /* computed array outputs: element by element */
  assert_true(getd(g, "s.outs[3]") == 31.0);
  assert_true(getd(g, "s.outs[999999]") == 9999992.0);
}

static void test_values_and_types(void **state) {
  sinew_graph_t *g = *state;
  sinew_node_t s = mk(g, "sum", "s");
  double v3[3] = {3, 4, 12};
  sinew_plug_t vec = P(g, "s.vec");
  assert_int_equal(sinew_set_doubles(g, &vec, v3, 3), 0);
  assert_true(getd(g, "s.len") == 13.0);
  setd(g, "s.vz", 0);
  assert_true(getd(g, "s.len") == 5.0);
  double out[3];
  size_t nout;
  assert_int_equal(sinew_get_doubles(g, &vec, out, 3, &nout), 0);
  assert_int_equal(nout, 3);
  assert_true(out[2] == 0.0);
  sinew_mat4_t m;
  sinew_mat4_identity(&m);
  m.m[3][0] = 7.5;
  sinew_plug_t pm = P(g, "s.im");
  assert_int_equal(sinew_set_matrix(g, &pm, &m), 0);
  assert_true(getd(g, "s.tx") == 7.5);
  /* enum fields */
  int ev;
  uint32_t md = sinew_node_attr(g, s, "md");
  assert_int_equal(sinew_attr_enum_value(g, s, md, "auto", &ev), 0);
  assert_int_equal(ev, 5);
  assert_int_equal(sinew_attr_enum_value(g, s, md, "extra", &ev), 0);
  assert_int_equal(ev, 6);
  assert_string_equal(sinew_attr_enum_name(g, s, md, 1), "on");
  assert_int_equal(sinew_attr_enum_value(g, s, md, "nope", &ev), SINEW_ENOTFOUND);
  /* strings */
  sinew_plug_t lb = P(g, "s.lb");
  const char *str;
  assert_int_equal(sinew_get_string(g, &lb, &str), 0);
  assert_string_equal(str, "");
  assert_int_equal(sinew_set_string(g, &lb, "hello"), 0);
  assert_int_equal(sinew_get_string(g, &lb, &str), 0);
  assert_string_equal(str, "hello");
  /* type errors and read-only outputs */
  sinew_plug_t sum = P(g, "s.sum");
  assert_int_equal(sinew_set_double(g, &sum, 1), SINEW_EREADONLY);
  assert_non_null(strstr(sinew_graph_errmsg(g), "s.sum"));
  assert_int_equal(sinew_set_matrix(g, &lb, &m), SINEW_ETYPE);
  assert_int_equal(sinew_set_string(g, &pm, "x"), SINEW_ETYPE);
  sinew_plug_t arr = P(g, "s.ins");
  assert_int_equal(sinew_set_double(g, &arr, 1), SINEW_EINVAL);
  /* ranges */
  sinew_plug_t cl = P(g, "s.cl");
  assert_int_equal(sinew_set_double(g, &cl, 1.5), SINEW_ERANGE);
  assert_int_equal(sinew_set_double(g, &cl, 0.5), 0);
  /* a plug with missing indices is refused, not guessed */
  sinew_plug_t bad = sinew_plug_make(s, S_W, 0, NULL);
  assert_int_equal(sinew_set_double(g, &bad, 1), SINEW_EINVAL);
  /* locked */
  assert_int_equal(sinew_plug_set_locked(g, &cl, true), 0);
  assert_int_equal(sinew_set_double(g, &cl, 0.25), SINEW_ELOCKED);
  assert_true(getd(g, "s.cl") == 0.5);
  assert_true(sinew_plug_has_value(g, &cl));
  assert_false(sinew_plug_has_value(g, &sum));
}

/* ---- dirty propagation and evaluation counts ------------------------------------------------ */

static void chain3(sinew_graph_t *g) {
  mk(g, "add", "a");
  mk(g, "add", "b");
  mk(g, "add", "c");
  conn(g, "a.out", "b.in");
  conn(g, "b.out", "c.in");
}

/* Brings every output of the chain up to date (outputs never read stay dirty, and dirt stops
 * at dirty plugs, so counting tests start from an all-clean graph). */
static void read_all(sinew_graph_t *g) {
  const char *names[] = {"a", "b", "c"}, *outs[] = {"out", "out2", "unh"};
  char buf[32];
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) {
      snprintf(buf, sizeof buf, "%s.%s", names[i], outs[k]);
      getd(g, buf);
    }
}

static void test_chain_counts(void **state) {
  sinew_graph_t *g = *state;
  chain3(g);
  setd(g, "a.in", 1);
  assert_true(getd(g, "c.out") == 1.0);
  assert_int_equal(computes_of(g, "a"), 1);
  assert_int_equal(computes_of(g, "b"), 1);
  assert_int_equal(computes_of(g, "c"), 1);
  /* second read: nothing computes */
  assert_true(getd(g, "c.out") == 1.0);
  assert_int_equal(computes_of(g, "c"), 1);
  /* a.out2 was never read: still dirty, so dirt would stop there; b.out was read and is clean */
  sinew_plug_t a_out2 = P(g, "a.out2"), b_out = P(g, "b.out");
  assert_true(sinew_plug_is_dirty(g, &a_out2));
  assert_false(sinew_plug_is_dirty(g, &b_out));
  read_all(g);
  int ca = computes_of(g, "a"), cb = computes_of(g, "b"), cc = computes_of(g, "c");
  /* setting a.in dirties exactly a.{out,out2,unh}, b.in, b.{out,out2,unh}, c.in, c.{...} */
  sinew_graph_reset_stats(g);
  setd(g, "a.in", 2);
  sinew_graph_stats_t st;
  sinew_graph_stats(g, &st);
  assert_int_equal(st.dirtied, 3 + 4 + 4);
  assert_int_equal(st.computes, 0); /* nothing computes until asked */
  /* setting it again dirties nothing new: propagation stops at dirty plugs */
  sinew_graph_reset_stats(g);
  setd(g, "a.in", 3);
  sinew_graph_stats(g, &st);
  assert_int_equal(st.dirtied, 0);
  /* the first read computes each dirty plug upstream of it once: a.out, b.out, c.out */
  sinew_graph_reset_stats(g);
  assert_true(getd(g, "c.out") == 3.0);
  sinew_graph_stats(g, &st);
  assert_int_equal(st.computes, 3);
  assert_int_equal(st.copies, 2); /* a.out -> b.in, b.out -> c.in */
  assert_int_equal(computes_of(g, "a"), ca + 1);
  assert_int_equal(computes_of(g, "b"), cb + 1);
  assert_int_equal(computes_of(g, "c"), cc + 1);
  /* the second read computes nothing */
  sinew_graph_reset_stats(g);
  assert_true(getd(g, "c.out") == 3.0);
  sinew_graph_stats(g, &st);
  assert_int_equal(st.computes, 0);
  assert_int_equal(st.copies, 0);
  /* changing c's own input recomputes only c */
  setd(g, "c.bias", 10);
  assert_true(getd(g, "c.out") == 13.0);
  assert_int_equal(computes_of(g, "a"), ca + 1);
  assert_int_equal(computes_of(g, "b"), cb + 1);
  assert_int_equal(computes_of(g, "c"), cc + 2);
  /* reading a middle plug computes only upstream of it */
  setd(g, "a.in", 4);
  assert_true(getd(g, "b.out") == 4.0);
  assert_int_equal(computes_of(g, "b"), cb + 2);
  assert_int_equal(computes_of(g, "c"), cc + 2);
}

static void test_diamond_and_fanout(void **state) {
  sinew_graph_t *g = *state;
  mk(g, "add", "top");
  mk(g, "add", "left");
  mk(g, "add", "right");
  mk(g, "sum", "bottom");
  conn(g, "top.out", "left.in");
  conn(g, "top.out", "right.in");
  conn(g, "left.out", "bottom.ins[0]");
  conn(g, "right.out2", "bottom.ins[1]");
  setd(g, "top.in", 1);
  assert_true(getd(g, "bottom.sum") == 3.0);
  assert_int_equal(computes_of(g, "top"), 1); /* once, although two paths lead to it */
  assert_int_equal(computes_of(g, "left"), 1);
  assert_int_equal(computes_of(g, "right"), 1);
  sinew_plug_t top = P(g, "top.out");
  sinew_plug_t dsts[4];
  assert_int_equal(sinew_plug_destinations(g, &top, dsts, 4), 2);
  char buf[64];
  sinew_plug_format(g, &dsts[0], false, buf, sizeof buf);
  assert_string_equal(buf, "left.input");
  setd(g, "top.in", 2);
  assert_true(getd(g, "bottom.sum") == 6.0);
  assert_int_equal(computes_of(g, "top"), 2);
  assert_int_equal(computes_of(g, "left"), 2);
  assert_int_equal(computes_of(g, "right"), 2);
}

typedef struct observed {
  int added, removed, connected, disconnected, dirtied;
} observed;

static void ob_added(void *ud, sinew_node_t n) { ((observed *)ud)->added++; }
static void ob_removed(void *ud, sinew_node_t n) { ((observed *)ud)->removed++; }
static void ob_conn(void *ud, const sinew_plug_t *s, const sinew_plug_t *d) { ((observed *)ud)->connected++; }
static void ob_disc(void *ud, const sinew_plug_t *s, const sinew_plug_t *d) { ((observed *)ud)->disconnected++; }
static void ob_dirty(void *ud, const sinew_plug_t *p) { ((observed *)ud)->dirtied++; }

static void test_observers(void **state) {
  sinew_graph_t *g = *state;
  observed o = {0};
  sinew_observer_t obs = {ob_added, ob_removed, ob_conn, ob_disc, ob_dirty, &o};
  int id;
  assert_int_equal(sinew_graph_add_observer(g, &obs, &id), 0);
  chain3(g);
  assert_int_equal(o.added, 3);
  assert_int_equal(o.connected, 2);
  read_all(g);
  o.dirtied = 0;
  setd(g, "a.in", 1);
  assert_int_equal(o.dirtied, 11);
  sinew_node_t b;
  sinew_node_find(g, "b", &b);
  assert_int_equal(sinew_node_delete(g, b), 0);
  assert_int_equal(o.removed, 1);
  assert_int_equal(o.disconnected, 2);
  assert_int_equal(sinew_graph_remove_observer(g, id), 0);
  assert_int_equal(sinew_graph_remove_observer(g, id), SINEW_ENOTFOUND);
  mk(g, "add", "d");
  assert_int_equal(o.added, 3);
}

static void test_input_changed_hook(void **state) {
  sinew_graph_t *g = *state;
  chain3(g);
  sinew_node_t b;
  sinew_node_find(g, "b", &b);
  add_state *st = sinew_node_state(g, b);
  read_all(g);
  int before = st->inputs_changed;
  setd(g, "b.bias", 1);
  assert_int_equal(st->inputs_changed, before + 1);
  setd(g, "a.in", 5); /* b.in is dirtied through the connection */
  assert_int_equal(st->inputs_changed, before + 2);
}

/* ---- connections ---------------------------------------------------------------------------- */

static void test_connect_rules(void **state) {
  sinew_graph_t *g = *state;
  mk(g, "add", "a");
  mk(g, "add", "b");
  mk(g, "sum", "s");
  mk(g, "sum", "t");
  conn(g, "a.out", "b.in");
  sinew_plug_t src = P(g, "a.out2"), dst = P(g, "b.in");
  /* one source per destination */
  assert_int_equal(sinew_connect(g, &src, &dst, 0, NULL), SINEW_ECONNECTED);
  assert_non_null(strstr(sinew_graph_errmsg(g), "a.output"));
  /* the same connection again is not an error */
  sinew_plug_t same = P(g, "a.out");
  assert_int_equal(sinew_connect(g, &same, &dst, 0, NULL), 0);
  /* force replaces */
  setd(g, "a.in", 1);
  assert_int_equal(sinew_connect(g, &src, &dst, SINEW_CONNECT_FORCE, NULL), 0);
  sinew_plug_t got;
  assert_true(sinew_plug_source(g, &dst, &got));
  assert_true(sinew_plug_equal(&got, &src));
  assert_true(getd(g, "b.out") == 2.0);
  sinew_graph_stats_t st;
  sinew_graph_stats(g, &st);
  assert_int_equal(st.connections, 1);
  /* types */
  sinew_plug_t m = P(g, "s.im"), l = P(g, "s.lb"), vec = P(g, "t.vec"), tvec = P(g, "s.vec");
  assert_int_equal(sinew_connect(g, &src, &m, 0, NULL), SINEW_ETYPE);
  assert_int_equal(sinew_connect(g, &l, &m, 0, NULL), SINEW_ETYPE);
  assert_int_equal(sinew_connect(g, &src, &vec, 0, NULL), SINEW_ETYPE);
  assert_int_equal(sinew_connect(g, &tvec, &vec, 0, NULL), 0); /* compound to compound */
  /* outputs cannot be destinations */
  sinew_plug_t out = P(g, "b.out");
  assert_int_equal(sinew_connect(g, &src, &out, 0, NULL), SINEW_EREADONLY);
  /* next available */
  sinew_plug_t arr = P(g, "t.ins"), chosen;
  setd(g, "t.ins[0]", 5);
  assert_int_equal(sinew_connect(g, &src, &arr, SINEW_CONNECT_NEXT_AVAILABLE, &chosen), 0);
  assert_int_equal(chosen.idx[0], 1);
  assert_int_equal(sinew_connect(g, &same, &arr, SINEW_CONNECT_NEXT_AVAILABLE, &chosen), 0);
  assert_int_equal(chosen.idx[0], 2);
  assert_true(getd(g, "t.sum") == 5.0 + 2.0 + 1.0);
  /* a connected destination cannot be set; a locked one cannot be connected */
  assert_int_equal(sinew_set_double(g, &chosen, 3), SINEW_ECONNECTED);
  assert_non_null(strstr(sinew_graph_errmsg(g), "a.output"));
  sinew_plug_t tb = P(g, "t.cl");
  sinew_plug_set_locked(g, &tb, true);
  assert_int_equal(sinew_connect(g, &same, &tb, 0, NULL), SINEW_ELOCKED);
  /* disconnect keeps the value */
  setd(g, "a.in", 10);
  assert_int_equal(sinew_disconnect(g, &same, &chosen), 0);
  assert_true(getd(g, "t.ins[2]") == 10.0);
  setd(g, "a.in", 20);
  assert_true(getd(g, "t.ins[2]") == 10.0);
  assert_int_equal(sinew_disconnect(g, &same, &chosen), SINEW_ENOTCONNECTED);
  /* an unindexed array source means element 0 (Maya's "joint1.wm" -> "skin.ma[0]") */
  sinew_plug_t souts = P(g, "s.outs"), tin = P(g, "t.vx");
  assert_int_equal(sinew_connect(g, &souts, &tin, 0, NULL), 0);
  assert_true(sinew_plug_source(g, &tin, &got));
  assert_int_equal(got.nidx, 1);
  assert_int_equal(got.idx[0], 0);
}

typedef struct listed {
  int count, implicit;
} listed;

static bool count_conn(void *ud, const sinew_connection_t *c) {
  listed *l = ud;
  l->count++;
  l->implicit += c->implicit;
  return true;
}

static void test_list_connections(void **state) {
  sinew_graph_t *g = *state;
  chain3(g);
  sinew_node_t b, r, k;
  sinew_node_find(g, "b", &b);
  listed l = {0};
  sinew_foreach_connection(g, b, false, count_conn, &l);
  assert_int_equal(l.count, 2);
  r = mk(g, "xform", "r");
  assert_int_equal(sinew_node_create_under(g, "xform", "k", r, &k), 0);
  l = (listed){0};
  sinew_foreach_connection(g, (sinew_node_t){0, 0}, false, count_conn, &l);
  assert_int_equal(l.count, 2);
  l = (listed){0};
  sinew_foreach_connection(g, (sinew_node_t){0, 0}, true, count_conn, &l);
  assert_int_equal(l.count, 3);
  assert_int_equal(l.implicit, 1);
  /* DOT export names nodes and connections */
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_int_equal(sinew_graph_write_dot(g, f), 0);
  fclose(f);
  assert_non_null(strstr(text, "digraph"));
  assert_non_null(strstr(text, "output -> input"));
  assert_non_null(strstr(text, "style=dashed"));
  free(text);
}

static void test_cycles(void **state) {
  sinew_graph_t *g = *state;
  chain3(g);
  sinew_plug_t src = P(g, "c.out"), dst = P(g, "a.in");
  assert_int_equal(sinew_connect(g, &src, &dst, 0, NULL), SINEW_ECYCLE);
  const char *msg = sinew_graph_errmsg(g);
  assert_non_null(strstr(msg, "c.output -> a.input"));
  assert_non_null(strstr(msg, "cycle"));
  assert_non_null(strstr(msg, "b"));
  assert_false(sinew_plug_source(g, &dst, NULL)); /* unchanged */
  sinew_graph_stats_t st;
  sinew_graph_stats(g, &st);
  assert_int_equal(st.connections, 2);
  /* a node feeding itself through its own affects */
  sinew_plug_t self_src = P(g, "a.out"), self_dst = P(g, "a.bias");
  assert_int_equal(sinew_connect(g, &self_src, &self_dst, 0, NULL), SINEW_ECYCLE);
  /* an output the input does not affect is fine: a.unhandled is not affected by bias */
  sinew_plug_t ok_src = P(g, "c.unhandled"), ok_dst = P(g, "c.bias");
  assert_int_equal(sinew_connect(g, &ok_src, &ok_dst, 0, NULL), 0);
  /* the graph still evaluates */
  setd(g, "a.in", 1);
  assert_true(isfinite(getd(g, "c.out")));
}

/* A compute that reads an undeclared input which depends on its own output: the cycle is met at
 * evaluation time, reported once, and evaluation terminates. */
static uint32_t LOOP_IN, LOOP_OUT, LOOP_HIDDEN;
static int loop_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  double v = 0;
  sinew_plug_t hidden = sinew_plug_make(n, LOOP_HIDDEN, 0, NULL);
  sinew_get_double(g, &hidden, &v); /* undeclared read */
  sinew_plug_t in = sinew_plug_make(n, LOOP_IN, 0, NULL);
  double i = 0;
  sinew_get_double(g, &in, &i);
  return sinew_compute_set_double(ctx, plug, v + i + 1);
}

typedef struct logged {
  int count[SINEW_LOG_ID_MAX];
} logged;

static void logger(void *ud, sinew_log_level_t level, sinew_log_id_t id, const char *msg) {
  ((logged *)ud)->count[id]++;
}

static void test_eval_cycle_terminates(void **state) {
  sinew_graph_t *g = *state;
  logged lg = {0};
  sinew_graph_set_logger(g, logger, &lg);
  sinew_attr_desc_t attrs[] = {{.name = "in", .type = SINEW_ATTR_DOUBLE},
                               {.name = "hidden", .type = SINEW_ATTR_DOUBLE},
                               {.name = "out", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT}};
  sinew_affects_t aff[] = {{"in", "out"}};
  const sinew_node_type_t *t;
  sinew_node_type_desc_t d = {.name = "loop", .attrs = attrs, .attr_count = 3, .affects = aff,
                              .affects_count = 1, .compute = loop_compute};
  assert_int_equal(sinew_register_node_type(g, &d, &t), 0);
  LOOP_IN = sinew_node_type_attr(t, "in");
  LOOP_OUT = sinew_node_type_attr(t, "out");
  LOOP_HIDDEN = sinew_node_type_attr(t, "hidden");
  mk(g, "loop", "L1");
  mk(g, "loop", "L2");
  conn(g, "L1.out", "L2.in");
  conn(g, "L2.out", "L1.hidden"); /* allowed: hidden affects nothing, but L1 reads it anyway */
  double v = getd(g, "L2.out");
  assert_true(isfinite(v));
  assert_int_equal(lg.count[SINEW_LOG_EVAL_CYCLE], 1);
  setd(g, "L1.in", 5);
  v = getd(g, "L2.out");
  assert_true(isfinite(v));
}

static void test_unknown_plug_reported(void **state) {
  sinew_graph_t *g = *state;
  logged lg = {0};
  sinew_graph_set_logger(g, logger, &lg);
  mk(g, "add", "a");
  setd(g, "a.in", 1);
  double v = getd(g, "a.unhandled");
  assert_true(v == 0.0); /* keeps its value (the default), not garbage */
  assert_int_equal(lg.count[SINEW_LOG_COMPUTE_UNKNOWN_PLUG], 1);
  getd(g, "a.unhandled"); /* clean now: not reported again */
  assert_int_equal(lg.count[SINEW_LOG_COMPUTE_UNKNOWN_PLUG], 1);
}

static void test_deep_chain(void **state) {
  sinew_graph_t *g = *state;
  enum { N = 100000 };
  sinew_node_t prev = {0, 0}, first = {0, 0};
  for (int i = 0; i < N; i++) {
    sinew_node_t n;
    assert_int_equal(sinew_node_create(g, "add", NULL, &n), 0);
    if (i == 0) first = n;
    else {
      sinew_plug_t s = sinew_plug_make(prev, A_OUT, 0, NULL), d = sinew_plug_make(n, A_IN, 0, NULL);
      assert_int_equal(sinew_connect(g, &s, &d, 0, NULL), 0);
    }
    prev = n;
  }
  sinew_plug_t in = sinew_plug_make(first, A_IN, 0, NULL), out = sinew_plug_make(prev, A_OUT, 0, NULL);
  assert_int_equal(sinew_set_double(g, &in, 1), 0);
  double v;
  sinew_graph_reset_stats(g);
  assert_int_equal(sinew_get_double(g, &out, &v), 0);
  assert_true(v == 1.0);
  sinew_graph_stats_t st;
  sinew_graph_stats(g, &st);
  assert_int_equal(st.computes, N);
  assert_int_equal(sinew_set_double(g, &in, 2), 0);
  assert_int_equal(sinew_get_double(g, &out, &v), 0);
  assert_true(v == 2.0);
  /* a cycle search across the whole chain is refused cleanly too */
  sinew_plug_t back = sinew_plug_make(first, A_BIAS, 0, NULL);
  assert_int_equal(sinew_connect(g, &out, &back, 0, NULL), SINEW_ECYCLE);
}

/* ---- dynamic attributes ------------------------------------------------------------------ */

static void test_dynamic_attrs(void **state) {
  sinew_graph_t *g = *state;
  sinew_node_t a = mk(g, "add", "a");
  mk(g, "add", "b");
  sinew_attr_desc_t rate = {.name = "rate", .short_name = "rt", .type = SINEW_ATTR_DOUBLE,
                            .default_value = 0.25, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_KEYABLE};
  assert_int_equal(sinew_node_add_attr(g, a, &rate, 1), 0);
  assert_true(getd(g, "a.rate") == 0.25);
  assert_int_equal(sinew_node_add_attr(g, a, &rate, 1), SINEW_EEXISTS);
  /* a compound with its children, added in two steps as .ma files do */
  sinew_attr_desc_t comp = {.name = "aim", .type = SINEW_ATTR_COMPOUND};
  sinew_attr_desc_t kids[] = {{.name = "aimX", .type = SINEW_ATTR_DOUBLE, .parent = "aim"},
                              {.name = "aimY", .type = SINEW_ATTR_DOUBLE, .parent = "aim", .default_value = 2}};
  assert_int_equal(sinew_node_add_attr(g, a, &comp, 1), 0);
  assert_int_equal(sinew_node_add_attr(g, a, kids, 2), 0);
  assert_true(getd(g, "a.aimY") == 2.0);
  setd(g, "a.aim.aimX", 3);
  assert_true(getd(g, "a.aimX") == 3.0);
  sinew_attr_info_t info;
  uint32_t id = sinew_node_attr(g, a, "rate");
  assert_int_equal(sinew_node_attr_info(g, a, id, &info), 0);
  assert_true(info.flags & SINEW_ATTR_DYNAMIC);
  assert_true(info.flags & SINEW_ATTR_KEYABLE);
  /* dynamic attributes connect like any other */
  conn(g, "a.rate", "b.in");
  assert_true(getd(g, "b.out") == 0.25);
  assert_int_equal(sinew_node_remove_attr(g, a, id), 0);
  assert_int_equal(sinew_node_attr(g, a, "rate"), UINT32_MAX);
  assert_true(getd(g, "b.in") == 0.25); /* kept its value when the connection broke */
  assert_int_equal(sinew_node_remove_attr(g, a, A_IN), SINEW_EINVAL); /* not dynamic */
  assert_true(getd(g, "a.aimX") == 3.0); /* other dynamic attributes unaffected */
}

/* ---- data blocks ---------------------------------------------------------------------------- */

static const sinew_data_type_t blob = {.name = "blob"};

static void test_data_blocks(void **state) {
  (void)state;
  sinew_data_t *d;
  assert_int_equal(sinew_data_create(&blob, 16, &d), 0);
  int *p = sinew_data_mutable(&d);
  p[0] = 42;
  sinew_data_t *shared = sinew_data_ref(d);
  assert_int_equal(sinew_data_refcount(d), 2);
  int *q = sinew_data_mutable(&shared); /* shared: copied before writing */
  assert_ptr_not_equal(q, p);
  q[0] = 7;
  assert_int_equal(((const int *)sinew_data_get(d))[0], 42);
  assert_int_equal(sinew_data_refcount(d), 1);
  sinew_data_unref(shared);
  sinew_data_unref(d);
  sinew_data_unref(NULL);
}

/* ---- allocation failure -------------------------------------------------------------------- */

/* Builds a small graph step by step; each step may fail. Returns the first failure's code. */
static int build_step;
#define STEP(x) (build_step = __LINE__, (x))
static int build_small(sinew_graph_t *g) {
  sinew_node_t a, b, s, r, k;
  int rc;
  if ((rc = STEP(sinew_node_create(g, "add", "a", &a)))) return rc;
  if ((rc = STEP(sinew_node_create(g, "add", "b", &b)))) return rc;
  if ((rc = STEP(sinew_node_create(g, "sum", "s", &s)))) return rc;
  if ((rc = STEP(sinew_node_create(g, "xform", "r", &r)))) return rc;
  if ((rc = STEP(sinew_node_create_under(g, "xform", "k", r, &k)))) return rc;
  sinew_plug_t ao = sinew_plug_make(a, A_OUT, 0, NULL), bi = sinew_plug_make(b, A_IN, 0, NULL);
  if ((rc = STEP(sinew_connect(g, &ao, &bi, 0, NULL)))) return rc;
  sinew_plug_t bo = sinew_plug_make(b, A_OUT, 0, NULL), si = sinew_plug_make(s, S_INS, 1, (int32_t[]){5});
  if ((rc = STEP(sinew_connect(g, &bo, &si, 0, NULL)))) return rc;
  sinew_plug_t ai = sinew_plug_make(a, A_IN, 0, NULL);
  if ((rc = STEP(sinew_set_double(g, &ai, 2)))) return rc;
  sinew_plug_t w = sinew_plug_make(s, S_W, 2, (int32_t[]){9, 3});
  if ((rc = STEP(sinew_set_double(g, &w, 0.5)))) return rc;
  sinew_attr_desc_t dyn = {.name = "extra", .type = SINEW_ATTR_DOUBLE};
  if ((rc = STEP(sinew_node_add_attr(g, a, &dyn, 1)))) return rc;
  sinew_plug_t sum = sinew_plug_make(s, S_SUM, 0, NULL);
  double v;
  if ((rc = STEP(sinew_get_double(g, &sum, &v)))) return rc;
  if (v != 2.0) return SINEW_ERUNTIME;
  if ((rc = STEP(sinew_node_delete(g, b)))) return rc;
  return SINEW_OK;
}

typedef struct snapshot {
  size_t nodes, connections;
} snapshot;

static void test_alloc_failures(void **state) {
  (void)state;
  /* Count the allocations of a clean run, then fail each one in turn. */
  test_alloc_install();
  sinew_graph_t *g;
  assert_int_equal(sinew_graph_create(NULL, &g), 0);
  assert_int_equal(register_types(g), 0);
  long base = test_alloc_count();
  assert_int_equal(build_small(g), 0);
  long total = test_alloc_count() - base;
  sinew_graph_destroy(g);
  assert_int_equal(test_alloc_live(), 0);
  assert_true(total > 10);
  for (long k = 1; k <= total; k++) {
    test_alloc_reset();
    assert_int_equal(sinew_graph_create(NULL, &g), 0);
    assert_int_equal(register_types(g), 0);
    test_alloc_fail_at(test_alloc_count() + 1 + (k - 1));
    /* Before each step, note the counts; a failing step must leave them as they were. */
    int rc = build_small(g);
    test_alloc_fail_at(0);
    if (rc) {
      if (rc != SINEW_ENOMEM || sinew_graph_errcode(g) == 0)
        fail_msg("allocation %ld of %ld (line %d): status %s, message '%s'", k, total, build_step,
                 sinew_err_name(rc), sinew_graph_errmsg(g));
      /* the graph is intact: it still works, and the same build completes on a fresh graph */
      sinew_graph_stats_t st;
      sinew_graph_stats(g, &st);
      sinew_node_t n;
      assert_int_equal(sinew_node_create(g, "add", "after", &n), 0);
      sinew_plug_t in = sinew_plug_make(n, A_IN, 0, NULL), out = sinew_plug_make(n, A_OUT, 0, NULL);
      double v;
      assert_int_equal(sinew_set_double(g, &in, 4), 0);
      assert_int_equal(sinew_get_double(g, &out, &v), 0);
      assert_true(v == 4.0);
      assert_int_equal(sinew_node_count(g), st.nodes + 1);
    }
    sinew_graph_destroy(g);
    assert_int_equal(test_alloc_live(), 0);
  }
  /* graph creation itself */
  for (long k = 1; k < 64; k++) {
    test_alloc_reset();
    test_alloc_fail_at(k);
    g = NULL;
    int rc = sinew_graph_create(NULL, &g);
    test_alloc_fail_at(0);
    if (rc == SINEW_OK) {
      sinew_graph_destroy(g);
      break;
    }
    assert_int_equal(rc, SINEW_ENOMEM);
    assert_null(g);
    assert_int_equal(test_alloc_live(), 0);
  }
  test_alloc_uninstall();
}

/* Each failed step individually leaves the counts unchanged. */
static void test_alloc_failure_atomic_steps(void **state) {
  (void)state;
  test_alloc_install();
  for (long k = 1; k < 400; k++) {
    sinew_graph_t *g;
    test_alloc_reset();
    assert_int_equal(sinew_graph_create(NULL, &g), 0);
    assert_int_equal(register_types(g), 0);
    sinew_node_t a, b, s;
    assert_int_equal(sinew_node_create(g, "add", "a", &a), 0);
    assert_int_equal(sinew_node_create(g, "sum", "s", &s), 0);
    long start = test_alloc_count();
    test_alloc_fail_at(start + k);
    int rc1 = sinew_node_create(g, "add", "b", &b);
    size_t nodes_after = sinew_node_count(g);
    sinew_plug_t ao = sinew_plug_make(a, A_OUT, 0, NULL);
    sinew_plug_t si = sinew_plug_make(s, S_INS, 1, (int32_t[]){1000});
    sinew_graph_stats_t before, after;
    sinew_graph_stats(g, &before);
    int rc2 = sinew_connect(g, &ao, &si, 0, NULL);
    sinew_graph_stats(g, &after);
    sinew_plug_t arr = sinew_plug_make(s, S_INS, 0, NULL);
    size_t elems = sinew_plug_indices(g, &arr, NULL, 0);
    test_alloc_fail_at(0);
    assert_int_equal(nodes_after, rc1 ? 2 : 3);
    if (rc2) {
      assert_int_equal(rc2, SINEW_ENOMEM);
      assert_int_equal(after.connections, before.connections);
      assert_int_equal(elems, 0); /* the element made for the connection was taken back */
    } else {
      assert_int_equal(after.connections, before.connections + 1);
    }
    sinew_graph_destroy(g);
    assert_int_equal(test_alloc_live(), 0);
    if (!rc1 && !rc2) break; /* past every allocation of both steps */
  }
  test_alloc_uninstall();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_status_names),
      cmocka_unit_test_setup_teardown(test_register_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_inheritance, setup, teardown),
      cmocka_unit_test_setup_teardown(test_naming, setup, teardown),
      cmocka_unit_test_setup_teardown(test_delete_and_stale, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dag_hierarchy, setup, teardown),
      cmocka_unit_test_setup_teardown(test_plug_parse_format, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sparse_multi, setup, teardown),
      cmocka_unit_test_setup_teardown(test_values_and_types, setup, teardown),
      cmocka_unit_test_setup_teardown(test_chain_counts, setup, teardown),
      cmocka_unit_test_setup_teardown(test_diamond_and_fanout, setup, teardown),
      cmocka_unit_test_setup_teardown(test_observers, setup, teardown),
      cmocka_unit_test_setup_teardown(test_input_changed_hook, setup, teardown),
      cmocka_unit_test_setup_teardown(test_connect_rules, setup, teardown),
      cmocka_unit_test_setup_teardown(test_list_connections, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cycles, setup, teardown),
      cmocka_unit_test_setup_teardown(test_eval_cycle_terminates, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unknown_plug_reported, setup, teardown),
      cmocka_unit_test_setup_teardown(test_deep_chain, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dynamic_attrs, setup, teardown),
      cmocka_unit_test(test_data_blocks),
      cmocka_unit_test(test_alloc_failures),
      cmocka_unit_test(test_alloc_failure_atomic_steps),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
