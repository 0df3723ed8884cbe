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

#include <uv.h>

#include "sinew/sinew.h"
#include "tests/support.h"

/* The consistency checker walks the internal slot trees and connection indexes. */
#include "graph/internal.h"

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
  /* listing by type: derived types count as their bases (ls -type), unless exact */
  sinew_node_t a1 = mk(g, "add", "a1"), s1 = mk(g, "sum", "s1"), a2 = mk(g, "add", "a2"), got[8];
  assert_int_equal(sinew_node_list_type(g, "add", false, got, 8), 3);
  assert_int_equal(got[0].index, n.index); /* creation order */
  assert_int_equal(got[1].index, a1.index);
  assert_int_equal(got[2].index, a2.index);
  assert_int_equal(sinew_node_list_type(g, "add", true, got, 8), 2);
  assert_int_equal(got[0].index, a1.index);
  assert_int_equal(got[1].index, a2.index);
  assert_int_equal(sinew_node_list_type(g, "addMore", false, got, 8), 1);
  assert_int_equal(sinew_node_list_type(g, "sum", true, got, 8), 1);
  assert_int_equal(got[0].index, s1.index);
  assert_int_equal(sinew_node_list_type(g, "node", false, NULL, 0), 4);
  assert_int_equal(sinew_node_list_type(g, "node", true, NULL, 0), 0); /* abstract */
  assert_int_equal(sinew_node_list_type(g, "nosuch", false, got, 8), 0);
  assert_int_equal(sinew_node_list_type(g, NULL, false, got, 8), 0);
  assert_int_equal(sinew_node_list_type(NULL, "add", false, got, 8), 0);
  got[1] = (sinew_node_t){0, 0};
  assert_int_equal(sinew_node_list_type(g, "add", false, got, 1), 3); /* fills up to cap */
  assert_int_equal(got[0].index, n.index);
  assert_int_equal(got[1].gen, 0);
  assert_int_equal(sinew_node_delete(g, a1), 0);
  assert_int_equal(sinew_node_list_type(g, "add", false, got, 8), 2);
  assert_int_equal(got[1].index, a2.index);
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

static void check_graph(const sinew_graph_t *g);

/* Names have no length limit: creation, automatic numbering, renaming, lookup by name and by
 * path, plug parsing and printing. Malformed names are refused with SINEW_EINVAL. */
static void test_long_names(void **state) {
  sinew_graph_t *g = *state;
  static char big[3000], big1[3010], req[3010], buf[8000];
  for (size_t i = 0; i < sizeof big - 1; i++) big[i] = "abcdefghij"[i % 10];
  big[sizeof big - 1] = 0;
  sinew_node_t a, b, c, found;
  assert_int_equal(sinew_node_create(g, "add", big, &a), 0);
  assert_string_equal(sinew_node_name(g, a), big);
  assert_int_equal(sinew_node_find(g, big, &found), 0);
  assert_int_equal(found.index, a.index);
  /* taken: a number is added, as for short names */
  assert_int_equal(sinew_node_create(g, "add", big, &b), 0);
  snprintf(big1, sizeof big1, "%s1", big);
  assert_string_equal(sinew_node_name(g, b), big1);
  /* automatic numbering from a long base, and its hint lowered again by a deletion */
  snprintf(req, sizeof req, "%.2990s#", big);
  assert_int_equal(sinew_node_create(g, "add", req, &c), 0);
  snprintf(big1, sizeof big1, "%.2990s1", big);
  assert_string_equal(sinew_node_name(g, c), big1);
  sinew_node_t c2;
  assert_int_equal(sinew_node_create(g, "add", req, &c2), 0);
  assert_int_equal(sinew_node_delete(g, c), 0);
  assert_int_equal(sinew_node_create(g, "add", req, &c), 0);
  assert_string_equal(sinew_node_name(g, c), big1); /* number 1 is free again */
  /* plugs on it parse and print */
  snprintf(buf, sizeof buf, "%s.in", big);
  setd(g, buf, 3);
  snprintf(buf, sizeof buf, "%s.out", big);
  assert_true(getd(g, buf) == 3.0);
  sinew_plug_t p = P(g, buf);
  char out[8000];
  size_t need = sinew_plug_format(g, &p, false, NULL, 0);
  assert_int_equal(need, strlen(big) + strlen(".output"));
  assert_int_equal(sinew_plug_format(g, &p, false, out, sizeof out), need);
  snprintf(buf, sizeof buf, "%s.output", big);
  assert_string_equal(out, buf);
  /* a short buffer gets the beginning, terminated, as snprintf does */
  char small[16];
  assert_int_equal(sinew_plug_format(g, &p, true, small, sizeof small), strlen(big) + strlen(".out"));
  assert_int_equal(strlen(small), 15);
  assert_int_equal(strncmp(small, big, 15), 0);
  /* renaming to a long name, and DAG nodes sharing a long short name under two parents */
  assert_int_equal(sinew_node_rename(g, a, "short"), 0);
  snprintf(req, sizeof req, "%.2500sZ", big);
  assert_int_equal(sinew_node_rename(g, b, req), 0);
  assert_string_equal(sinew_node_name(g, b), req);
  sinew_node_t r1 = mk(g, "xform", "r1"), r2 = mk(g, "xform", "r2"), k1, k2;
  assert_int_equal(sinew_node_create_under(g, "xform", big, r1, &k1), 0);
  assert_int_equal(sinew_node_create_under(g, "xform", big, r2, &k2), 0);
  assert_string_equal(sinew_node_name(g, k2), big);
  assert_int_equal(sinew_node_find(g, big, &found), SINEW_EAMBIGUOUS);
  snprintf(buf, sizeof buf, "|r2|%s", big);
  assert_int_equal(sinew_node_find(g, buf, &found), 0);
  assert_int_equal(found.index, k2.index);
  snprintf(buf, sizeof buf, "r2|%s", big); /* a unique tail */
  assert_int_equal(sinew_node_find(g, buf, &found), 0);
  assert_int_equal(found.index, k2.index);
  sinew_plug_t kl = sinew_plug_make(k2, X_LOCAL, 0, NULL);
  assert_int_equal(sinew_plug_format(g, &kl, true, out, sizeof out), strlen(big) + strlen("|r2|.lv"));
  snprintf(buf, sizeof buf, "|r2|%s.lv", big);
  assert_string_equal(out, buf);
  sinew_plug_t back = P(g, out);
  assert_true(sinew_plug_equal(&back, &kl));
  /* the path printed into a short buffer is its beginning */
  assert_int_equal(sinew_plug_format(g, &kl, true, small, sizeof small), strlen(buf));
  assert_int_equal(strncmp(small, buf, 15), 0);
  assert_int_equal(strlen(small), 15);
  char *path = sinew_node_path(g, k1);
  snprintf(buf, sizeof buf, "|r1|%s", big);
  assert_string_equal(path, buf);
  sinew_free(path);
  /* a long name that is not a valid name is EINVAL, not ENOMEM */
  snprintf(req, sizeof req, "%.2000s x", big);
  assert_int_equal(sinew_node_create(g, "add", req, &found), SINEW_EINVAL);
  /* malformed automatic names */
  const char *bad[] = {"#", "9x#", "a b#", "a#b#", "##", ".#"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(sinew_node_create(g, "add", bad[i], &found), SINEW_EINVAL);
    assert_non_null(strstr(sinew_graph_errmsg(g), "invalid node name"));
    assert_int_equal(sinew_node_rename(g, a, bad[i]), SINEW_EINVAL);
  }
  assert_string_equal(sinew_node_name(g, a), "short");
  assert_int_equal(sinew_node_count(g), 8);
  check_graph(g);
  /* the DOT export writes long node and attribute names whole */
  static char attr[600];
  memset(attr, 'w', sizeof attr - 1);
  attr[sizeof attr - 1] = 0;
  sinew_attr_desc_t wide = {.name = attr, .type = SINEW_ATTR_DOUBLE};
  assert_int_equal(sinew_node_add_attr(g, k1, &wide, 1), 0);
  snprintf(buf, sizeof buf, "|r1|%s.%s", big, attr);
  sinew_plug_t wp = P(g, buf);
  conn(g, "short.out", buf);
  assert_true(getd(g, buf) == 3.0);
  assert_int_equal(sinew_plug_format_attr(g, &wp, false, out, sizeof out), strlen(attr));
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_int_equal(sinew_graph_write_dot(g, f), 0);
  fclose(f);
  snprintf(buf, sizeof buf, "{%s : xform|<p1_0> %s}", big, attr);
  assert_non_null(strstr(text, buf));
  snprintf(buf, sizeof buf, "[label=\"output -> %s\"]", attr);
  assert_non_null(strstr(text, buf));
  free(text);
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

/* delete_many with many roots: 25,000 parents and a child under each, the children listed
 * first, so every child is inside another listed root's subtree; then a chain whose every link
 * is listed, deepest first. Both must be near-linear (the roots once compared pairwise took
 * minutes here); everything listed goes, each node once. */
static void test_delete_many_roots(void **state) {
  (void)state;
  sinew_graph_t *g;
  assert_int_equal(sinew_graph_create(NULL, &g), 0);
  assert_int_equal(register_types(g), 0);
  enum { HALF = 25000, CHAIN = 20000 };
  sinew_node_t *nodes = malloc(2 * HALF * sizeof *nodes);
  assert_non_null(nodes);
  sinew_node_t keep = mk(g, "xform", "keep");
  char name[32];
  for (size_t i = 0; i < HALF; i++) {
    snprintf(name, sizeof name, "p%zu", i);
    assert_int_equal(sinew_node_create(g, "xform", name, &nodes[HALF + i]), 0);
    snprintf(name, sizeof name, "c%zu", i);
    assert_int_equal(sinew_node_create_under(g, "xform", name, nodes[HALF + i], &nodes[i]), 0);
  }
  assert_int_equal(sinew_node_count(g), 2 * HALF + 1);
  assert_int_equal(sinew_node_delete_many(g, nodes, 2 * HALF), SINEW_OK);
  assert_int_equal(sinew_node_count(g), 1);
  assert_true(sinew_node_valid(g, keep));
  assert_false(sinew_node_valid(g, nodes[0]) || sinew_node_valid(g, nodes[2 * HALF - 1]));
  /* a chain, every link listed (the last one twice), deepest first; a lock at the bottom
   * refuses it all */
  sinew_node_t *chain = malloc((CHAIN + 1) * sizeof *chain);
  assert_non_null(chain);
  chain[CHAIN - 1] = mk(g, "xform", "top");
  for (size_t i = CHAIN - 1; i-- > 0;) {
    snprintf(name, sizeof name, "link%zu", i);
    assert_int_equal(sinew_node_create_under(g, "xform", name, chain[i + 1], &chain[i]), 0);
  }
  chain[CHAIN] = chain[CHAIN - 1];
  assert_int_equal(sinew_node_set_locked(g, chain[0], true), 0);
  assert_int_equal(sinew_node_delete_many(g, chain, CHAIN + 1), SINEW_ELOCKED);
  assert_int_equal(sinew_node_count(g), CHAIN + 1);
  assert_int_equal(sinew_node_set_locked(g, chain[0], false), 0);
  assert_int_equal(sinew_node_delete_many(g, chain, CHAIN + 1), SINEW_OK);
  assert_int_equal(sinew_node_count(g), 1);
  free(chain);
  free(nodes);
  sinew_graph_destroy(g);
}

/* delete a b c: all or nothing. Overlapping subtrees and repeated nodes are deleted once; a
 * locked node, a stale handle or an allocation failure anywhere deletes none of them, and the
 * destinations they fed keep their values. */
static void test_delete_many(void **state) {
  (void)state;
  test_alloc_install();
  sinew_graph_t *g;
  assert_int_equal(sinew_graph_create(NULL, &g), 0);
  assert_int_equal(register_types(g), 0);
  sinew_node_t root = mk(g, "xform", "root"), mid, leaf, a = mk(g, "add", "a"), b = mk(g, "add", "b");
  sinew_node_t keep = mk(g, "add", "keep");
  assert_int_equal(sinew_node_create_under(g, "xform", "mid", root, &mid), 0);
  assert_int_equal(sinew_node_create_under(g, "xform", "leaf", mid, &leaf), 0);
  conn(g, "a.out", "b.in");
  conn(g, "b.out", "keep.in");
  setd(g, "a.in", 5);
  size_t before = sinew_node_count(g);
  /* a locked node in a subtree, or a stale handle: nothing goes */
  assert_int_equal(sinew_node_set_locked(g, leaf, true), 0);
  assert_int_equal(sinew_node_delete_many(g, (sinew_node_t[]){a, root}, 2), SINEW_ELOCKED);
  assert_int_equal(sinew_node_count(g), before);
  assert_true(sinew_node_valid(g, a));
  assert_int_equal(sinew_node_set_locked(g, leaf, false), 0);
  assert_int_equal(sinew_node_delete_many(g, (sinew_node_t[]){a, (sinew_node_t){999, 1}}, 2), SINEW_ESTALE);
  assert_int_equal(sinew_node_count(g), before);
  /* out of memory at every allocation in turn: nothing goes; then everything listed goes */
  for (long n = 1;; n++) {
    test_alloc_reset();
    test_alloc_fail_at(n);
    int rc = sinew_node_delete_many(g, (sinew_node_t[]){leaf, a, root, b, a}, 5);
    test_alloc_fail_at(0);
    if (rc == SINEW_OK) break;
    assert_int_equal(rc, SINEW_ENOMEM);
    assert_int_equal(sinew_node_count(g), before);
    assert_true(sinew_node_valid(g, a) && sinew_node_valid(g, b) && sinew_node_valid(g, leaf));
    if (n > 1000) fail_msg("never succeeded");
  }
  assert_int_equal(sinew_node_count(g), before - 5);
  assert_false(sinew_node_valid(g, root) || sinew_node_valid(g, mid) || sinew_node_valid(g, leaf));
  assert_false(sinew_node_valid(g, a) || sinew_node_valid(g, b));
  assert_true(sinew_node_valid(g, keep));
  assert_true(getd(g, "keep.in") == 5.0); /* the value it had from b */
  assert_int_equal(sinew_node_delete_many(g, NULL, 0), SINEW_OK);
  sinew_graph_destroy(g);
  assert_int_equal(test_alloc_live(), 0);
  test_alloc_uninstall();
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
  /* every plug of every attribute (elements and whole arrays, base and dynamic attributes)
   * prints with long and with short names to text that parses back to the same plug */
  sinew_attr_desc_t dyn[] = {
      {.name = "dynArr", .short_name = "da", .type = SINEW_ATTR_COMPOUND, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY},
      {.name = "dynKid", .short_name = "dk", .type = SINEW_ATTR_DOUBLE, .parent = "dynArr",
       .flags = SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY},
      {.name = "dynLongOnly", .type = SINEW_ATTR_DOUBLE, .parent = "dynArr"}};
  assert_int_equal(sinew_node_add_attr(g, s, dyn, 3), 0);
  int checked = 0;
  for (uint32_t id = 0; id < sinew_node_attr_count(g, s); id++) {
    sinew_attr_info_t info;
    assert_int_equal(sinew_node_attr_info(g, s, id, &info), 0);
    uint32_t depth = 0; /* array levels on the path */
    for (uint32_t x = id; x != UINT32_MAX;) {
      sinew_attr_info_t xi;
      sinew_node_attr_info(g, s, x, &xi);
      depth += (xi.flags & SINEW_ATTR_ARRAY) != 0;
      x = xi.parent;
    }
    for (int whole = 0; whole < 2; whole++) {
      if (whole && !(info.flags & SINEW_ATTR_ARRAY)) continue;
      sinew_plug_t q = sinew_plug_make(s, id, depth - (uint32_t)whole, (int32_t[]){7, 123456});
      for (int shortn = 0; shortn < 2; shortn++) {
        char text[256];
        assert_true(sinew_plug_format(g, &q, shortn, text, sizeof text) < sizeof text);
        sinew_plug_t back;
        if (sinew_plug_parse(g, text, (sinew_node_t){0, 0}, &back)) fail_msg("parse '%s': %s", text, sinew_graph_errmsg(g));
        if (!sinew_plug_equal(&back, &q)) fail_msg("'%s' parses to another plug", text);
        assert_int_equal(sinew_plug_is_array(g, &back), whole);
        checked++;
      }
    }
  }
  assert_true(checked > 40);
  p = P(g, "s.da[2].dynLongOnly");
  sinew_plug_format(g, &p, true, buf, sizeof buf);
  assert_string_equal(buf, "s.da[2].dynLongOnly"); /* no short name: the long one */
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

/* A sparse multi costs per existing element, not per logical index: weights[999999] and
 * weightList[999999].weights[999999] cost one element each, in bytes as in count. */
static void test_sparse_cost(void **state) {
  (void)state;
  test_alloc_install();
  sinew_graph_t *g;
  assert_int_equal(sinew_graph_create(NULL, &g), 0);
  assert_int_equal(register_types(g), 0);
  sinew_node_t s = mk(g, "sum", "s");
  setd(g, "s.ins[1]", 1); /* the propagation queue and the first table are made here */
  size_t bytes = test_alloc_live_bytes();
  long count = test_alloc_count();
  setd(g, "s.ins[999999]", 2);
  /* at most a doubled table of (index, slot) pairs: no array of a million */
  assert_true(test_alloc_live_bytes() - bytes <= 2 * (sizeof(int32_t) + sizeof(sinew__slot)));
  assert_true(test_alloc_count() - count <= 2);
  sinew_plug_t arr = P(g, "s.ins");
  int32_t idx[4];
  assert_int_equal(sinew_plug_indices(g, &arr, idx, 4), 2);
  assert_int_equal(idx[1], 999999);
  /* nested: one weightList element holding one weights element */
  bytes = test_alloc_live_bytes();
  setd(g, "s.wl[999999].w[999999]", 0.5);
  assert_true(test_alloc_live_bytes() - bytes < 256);
  sinew_plug_t wl = P(g, "s.wl"), w = P(g, "s.wl[999999].w");
  assert_int_equal(sinew_plug_indices(g, &wl, idx, 4), 1);
  assert_int_equal(sinew_plug_indices(g, &w, idx, 4), 1);
  assert_int_equal(idx[0], 999999);
  /* reading an element that was never set makes nothing either */
  bytes = test_alloc_live_bytes();
  assert_true(getd(g, "s.ins[500000]") == 0.0);
  assert_true(getd(g, "s.wl[5].w[7]") == 0.0);
  assert_int_equal(test_alloc_live_bytes(), bytes);
  assert_int_equal(sinew_plug_indices(g, &arr, NULL, 0), 2);
  /* a computed array element far out is one element too */
  bytes = test_alloc_live_bytes();
  assert_true(getd(g, "s.outs[999999]") == 9999990.0 + 2.0);
  assert_true(test_alloc_live_bytes() - bytes <= 2 * (sizeof(int32_t) + sizeof(sinew__slot)) + 64);
  (void)s;
  sinew_graph_destroy(g);
  assert_int_equal(test_alloc_live(), 0);
  assert_int_equal(test_alloc_live_bytes(), 0);
  test_alloc_uninstall();
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
  /* a whole array is no compound: every getter refuses it and leaves its outputs alone */
  setd(g, "s.ins[0]", 4);
  setd(g, "s.ins[1]", 5);
  double got[3] = {-1, -1, -1};
  size_t ngot = 99;
  assert_int_equal(sinew_get_doubles(g, &arr, got, 3, &ngot), SINEW_EINVAL);
  assert_non_null(strstr(sinew_graph_errmsg(g), "s.inputs"));
  assert_true(got[0] == -1 && got[1] == -1 && got[2] == -1);
  assert_int_equal(ngot, 99);
  assert_int_equal(sinew_get_double(g, &arr, got), SINEW_EINVAL);
  assert_true(got[0] == -1);
  sinew_plug_t wl = P(g, "s.wl[2].w");
  assert_int_equal(sinew_get_doubles(g, &wl, got, 3, &ngot), SINEW_EINVAL);
  assert_int_equal(ngot, 99);
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

/* What each observer callback receives, and in which order, written down as text. */
typedef struct event_log {
  sinew_graph_t *g;
  char text[4096];
  size_t used;
  bool removed_was_valid;
} event_log;

static void ev_line(event_log *l, const char *what, const sinew_plug_t *a, const sinew_plug_t *b) {
  char pa[128] = "", pb[128] = "";
  if (a) sinew_plug_format(l->g, a, false, pa, sizeof pa);
  if (b) sinew_plug_format(l->g, b, false, pb, sizeof pb);
  l->used += (size_t)snprintf(l->text + l->used, sizeof l->text - l->used, "%s%s%s%s%s\n", what,
                              a ? " " : "", pa, b ? " " : "", pb);
}
static void ev_added(void *ud, sinew_node_t n) {
  event_log *l = ud;
  l->used += (size_t)snprintf(l->text + l->used, sizeof l->text - l->used, "added %s\n", sinew_node_name(l->g, n));
}
static void ev_removed(void *ud, sinew_node_t n) {
  event_log *l = ud;
  l->removed_was_valid = sinew_node_valid(l->g, n); /* called before the node goes */
  l->used += (size_t)snprintf(l->text + l->used, sizeof l->text - l->used, "removed %s\n", sinew_node_name(l->g, n));
}
static void ev_conn(void *ud, const sinew_plug_t *s, const sinew_plug_t *d) { ev_line(ud, "connected", s, d); }
static void ev_disc(void *ud, const sinew_plug_t *s, const sinew_plug_t *d) { ev_line(ud, "disconnected", s, d); }
static void ev_dirty(void *ud, const sinew_plug_t *p) { ev_line(ud, "dirtied", p, NULL); }

static void test_observer_events(void **state) {
  sinew_graph_t *g = *state;
  static event_log l;
  l = (event_log){.g = g};
  sinew_observer_t obs = {ev_added, ev_removed, ev_conn, ev_disc, ev_dirty, &l};
  int id;
  assert_int_equal(sinew_graph_add_observer(g, &obs, &id), 0);
  sinew_node_t a = mk(g, "add", "a");
  mk(g, "add", "b");
  conn(g, "a.out", "b.in"); /* b's outputs are born dirty: only b.input is newly dirtied */
  getd(g, "b.out");
  setd(g, "a.in", 1);       /* a.output2 and the others were never read: already dirty */
  getd(g, "b.out");
  sinew_plug_t s2 = P(g, "a.out2"), bin = P(g, "b.in");
  assert_int_equal(sinew_connect(g, &s2, &bin, SINEW_CONNECT_FORCE, NULL), 0);
  assert_int_equal(sinew_connect(g, &s2, &bin, SINEW_CONNECT_FORCE, NULL), 0); /* no-op: no event */
  getd(g, "b.out");
  assert_int_equal(sinew_disconnect(g, &s2, &bin), 0);
  conn(g, "a.out", "b.bias");
  assert_int_equal(sinew_node_delete(g, a), 0); /* told first, then its connections break */
  assert_true(l.removed_was_valid);
  const char *want = "added a\n"
                     "added b\n"
                     "connected a.output b.input\n"
                     "dirtied b.input\n"
                     "dirtied a.output\n"
                     "dirtied b.input\n"
                     "dirtied b.output\n"
                     "disconnected a.output b.input\n"
                     "connected a.output2 b.input\n"
                     "dirtied b.input\n"
                     "dirtied b.output\n"
                     "disconnected a.output2 b.input\n"
                     "dirtied b.output\n"
                     "connected a.output b.bias\n"
                     "dirtied b.bias\n"
                     "removed a\n"
                     "disconnected a.output b.bias\n";
  if (strcmp(l.text, want) != 0) fail_msg("observed:\n%s\nexpected:\n%s", l.text, want);
  /* a second observer sees the same; a removed one sees nothing more */
  static event_log l2;
  l2 = (event_log){.g = g};
  sinew_observer_t obs2 = {ev_added, ev_removed, ev_conn, ev_disc, ev_dirty, &l2};
  int id2;
  assert_int_equal(sinew_graph_add_observer(g, &obs2, &id2), 0);
  assert_true(id2 != id);
  assert_int_equal(sinew_graph_remove_observer(g, id), 0);
  size_t before = l.used;
  mk(g, "add", "c");
  assert_int_equal(l.used, before);
  assert_string_equal(l2.text, "added c\n");
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
  sinew_plug_t souts = P(g, "s.outs"), tin = P(g, "t.ins[9]");
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
  /* one record per node with its connected plugs, an edge per explicit connection, a dashed
   * line per parenting; the implicit parent link is not drawn as a connection */
  assert_non_null(strstr(text, "  n1 [label=\"{b : add|<p1_0> input|<p0_1> output}\"];\n"));
  assert_non_null(strstr(text, "  n0 -> n1 [label=\"output -> input\"];\n"));
  assert_non_null(strstr(text, "  n1 -> n2 [label=\"output -> input\"];\n"));
  assert_non_null(strstr(text, "  n3 -> n4 [style=dashed, arrowhead=none];\n"));
  assert_non_null(strstr(text, "  n4 [label=\"{k : xform}\"];\n"));
  assert_null(strstr(text, "worldValue"));
  int edges = 0;
  for (const char *q = text; (q = strstr(q, "[label=\"output")); q++) edges++;
  assert_int_equal(edges, 2);
  free(text);
  /* a fan-out lists its source plug once in the node's record, with an edge per connection */
  sinew_node_t d = mk(g, "add", "d");
  (void)d;
  conn(g, "b.out", "d.in");
  f = open_memstream(&text, &len);
  assert_int_equal(sinew_graph_write_dot(g, f), 0);
  fclose(f);
  assert_non_null(strstr(text, "  n1 [label=\"{b : add|<p1_0> input|<p0_1> output}\"];\n"));
  edges = 0;
  for (const char *q = text; (q = strstr(q, "[label=\"output")); q++) edges++;
  assert_int_equal(edges, 3);
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

/* A compute that runs out of memory leaves its plug dirty and fails the read; the next read
 * computes it. Any other failure keeps the last value (and is logged), as before. */
static int flaky_result;
static int flaky_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (flaky_result) return flaky_result;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  double in = 0;
  sinew_plug_t pin = sinew_plug_make(sinew_compute_node(ctx), A_IN, 0, NULL);
  sinew_get_double(g, &pin, &in);
  return sinew_compute_set_double(ctx, plug, 10 * in);
}

static void test_compute_out_of_memory(void **state) {
  sinew_graph_t *g = *state;
  logged lg = {0};
  sinew_graph_set_logger(g, logger, &lg);
  sinew_node_type_desc_t d = {.name = "flaky", .parent_type = "add", .compute = flaky_compute};
  assert_int_equal(sinew_register_node_type(g, &d, NULL), 0);
  mk(g, "flaky", "f");
  mk(g, "add", "b");
  conn(g, "f.out", "b.in");
  setd(g, "f.in", 1);
  assert_true(getd(g, "b.out") == 10.0);
  setd(g, "f.in", 2);
  flaky_result = SINEW_ENOMEM;
  sinew_plug_t bout = P(g, "b.out"), fout = P(g, "f.out");
  double v = -1;
  assert_int_equal(sinew_get_double(g, &bout, &v), SINEW_ENOMEM);
  assert_true(v == -1);
  assert_int_equal(sinew_graph_errcode(g), SINEW_ENOMEM);
  assert_true(sinew_plug_is_dirty(g, &fout));
  assert_true(sinew_plug_is_dirty(g, &bout));
  assert_int_equal(lg.count[SINEW_LOG_COMPUTE_FAILED], 0);
  check_graph(g);
  flaky_result = 0;
  assert_true(getd(g, "b.out") == 20.0);
  /* another failure is the node's own: logged, the last value kept, the plug clean */
  setd(g, "f.in", 3);
  flaky_result = SINEW_ERUNTIME;
  assert_true(getd(g, "b.out") == 20.0);
  assert_int_equal(lg.count[SINEW_LOG_COMPUTE_FAILED], 1);
  assert_false(sinew_plug_is_dirty(g, &fout));
  flaky_result = 0;
  check_graph(g);
}

/* Runs one graph call on a thread with a small stack (256 KiB), so that a call that recursed
 * once per node of a long chain would crash instead of passing on the main thread's 8 MiB. */
typedef struct small_stack_call {
  sinew_graph_t *g;
  sinew_plug_t plug;
  enum { CALL_GET, CALL_SET, CALL_DELETE } kind;
  double value;
  int rc;
} small_stack_call;

static void small_stack_entry(void *arg) {
  small_stack_call *c = arg;
  switch (c->kind) {
    case CALL_GET: c->rc = sinew_get_double(c->g, &c->plug, &c->value); break;
    case CALL_SET: c->rc = sinew_set_double(c->g, &c->plug, c->value); break;
    case CALL_DELETE: c->rc = sinew_node_delete(c->g, c->plug.node); break;
  }
}

static int on_small_stack(sinew_graph_t *g, int kind, const sinew_plug_t *p, double *value) {
  small_stack_call c = {g, *p, kind, value ? *value : 0, -1};
  uv_thread_options_t opt = {.flags = UV_THREAD_HAS_STACK_SIZE, .stack_size = 256 * 1024};
  uv_thread_t t;
  assert_int_equal(uv_thread_create_ex(&t, &opt, small_stack_entry, &c), 0);
  assert_int_equal(uv_thread_join(&t), 0);
  if (value) *value = c.value;
  return c.rc;
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
  double v = 0;
  sinew_graph_reset_stats(g);
  assert_int_equal(on_small_stack(g, CALL_GET, &out, &v), 0);
  assert_true(v == 1.0);
  sinew_graph_stats_t st;
  sinew_graph_stats(g, &st);
  assert_int_equal(st.computes, N);
  v = 2;
  sinew_graph_reset_stats(g);
  assert_int_equal(on_small_stack(g, CALL_SET, &in, &v), 0);
  sinew_graph_stats(g, &st);
  /* each output read, and the next node's input; out2 and unhandled were never read, so they
   * are still dirty and stop nothing */
  assert_int_equal(st.dirtied, 2 * (uint64_t)N - 1);
  assert_int_equal(on_small_stack(g, CALL_GET, &out, &v), 0);
  assert_true(v == 2.0);
  /* a cycle search across the whole chain is refused cleanly too */
  sinew_plug_t back = sinew_plug_make(first, A_BIAS, 0, NULL);
  assert_int_equal(sinew_connect(g, &out, &back, 0, NULL), SINEW_ECYCLE);
}

/* The same depth through the DAG: parenting is an implicit connection, so a 100,000-level
 * hierarchy pulls, pushes and deletes without recursion too. */
static void test_deep_hierarchy(void **state) {
  sinew_graph_t *g = *state;
  enum { N = 100000 };
  sinew_node_t root = mk(g, "xform", "n0"), prev = root, leaf = root;
  char name[32];
  for (int i = 1; i < N; i++) {
    snprintf(name, sizeof name, "n%d", i);
    assert_int_equal(sinew_node_create_under(g, "xform", name, prev, &leaf), 0);
    prev = leaf;
  }
  for (sinew_node_t it = {0, 0}; sinew_node_next(g, &it);) {
    sinew_plug_t lv = sinew_plug_make(it, X_LOCAL, 0, NULL);
    assert_int_equal(sinew_set_double(g, &lv, 1), 0);
  }
  sinew_plug_t lw = sinew_plug_make(leaf, X_WORLD, 1, (int32_t[]){0});
  double v;
  xform_computes = 0;
  assert_int_equal(sinew_get_double(g, &lw, &v), 0);
  assert_true(v == N);
  assert_int_equal(xform_computes, N);
  /* moving the root dirties every level below it, and each recomputes once */
  sinew_plug_t rl = sinew_plug_make(root, X_LOCAL, 0, NULL);
  sinew_graph_reset_stats(g);
  v = 2;
  assert_int_equal(on_small_stack(g, CALL_SET, &rl, &v), 0);
  sinew_graph_stats_t st;
  sinew_graph_stats(g, &st);
  assert_int_equal(st.dirtied, 2 * (uint64_t)N - 1); /* every worldValue and every parentValue */
  xform_computes = 0;
  assert_int_equal(on_small_stack(g, CALL_GET, &lw, &v), 0);
  assert_true(v == N + 1);
  assert_int_equal(xform_computes, N);
  assert_int_equal(sinew_node_set_parent(g, root, leaf), SINEW_ECYCLE);
  char *path = sinew_node_path(g, leaf);
  assert_non_null(path);
  assert_int_equal(strncmp(path, "|n0|n1|n2|", 10), 0);
  sinew_node_t found;
  assert_int_equal(sinew_node_find(g, path, &found), 0);
  assert_int_equal(found.index, leaf.index);
  sinew_free(path);
  sinew_plug_t whole = sinew_plug_make(root, X_LOCAL, 0, NULL);
  assert_int_equal(on_small_stack(g, CALL_DELETE, &whole, NULL), 0);
  assert_int_equal(sinew_node_count(g), 0);
  sinew_graph_stats(g, &st);
  assert_int_equal(st.connections, 0);
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

static void register_gscale(sinew_graph_t *g);
static void expect_generic(sinew_graph_t *g, const char *text, const double *want, size_t n);

/* Generic numeric values under allocation failure: each allocation of a wide set, a wide compute
 * and a wide pull copy fails in turn. A failed set changes nothing (the old single number stays);
 * a failed read fails with SINEW_ENOMEM and the next read is right; nothing leaks. */
static void test_generic_alloc_failures(void **state) {
  (void)state;
  test_alloc_install();
  for (long k = 1; k < 200; k++) {
    sinew_graph_t *g;
    test_alloc_reset();
    assert_int_equal(sinew_graph_create(NULL, &g), 0);
    assert_int_equal(register_types(g), 0);
    register_gscale(g);
    mk(g, "gscale", "g1");
    mk(g, "gscale", "g2");
    mk(g, "sum", "s");
    conn(g, "g1.o", "g2.i");
    conn(g, "g2.o", "s.vec");
    setd(g, "g1.i", 5);
    sinew_plug_t g1i = P(g, "g1.i");
    test_alloc_fail_at(test_alloc_count() + k);
    int rc1 = sinew_set_generic(g, &g1i, (double[]){1, 2, 3}, 3);
    double v[3] = {0};
    sinew_plug_t vec = P(g, "s.vec");
    int rc2 = sinew_get_doubles(g, &vec, v, 3, NULL);
    test_alloc_fail_at(0);
    if (rc1) {
      assert_int_equal(rc1, SINEW_ENOMEM);
      expect_generic(g, "g1.i", (double[]){5}, 1);
    }
    if (rc2) assert_int_equal(rc2, SINEW_ENOMEM);
    /* whatever failed, reading again now gives the right numbers */
    if (rc1) expect_generic(g, "s.vec", (double[]){5, 0, 0}, 3);
    else expect_generic(g, "s.vec", (double[]){1, 2, 3}, 3);
    check_graph(g);
    sinew_graph_destroy(g);
    assert_int_equal(test_alloc_live(), 0);
    if (!rc1 && !rc2) break;
  }
  test_alloc_uninstall();
}

/* ---- internal consistency ---------------------------------------------------------------- */

/* Checks one slot subtree against the dirty invariants: a DIRTY slot's existing descendants are
 * DIRTY, and `below` counts exactly the direct children/elements that are dirty-ish. Returns
 * whether the slot is dirty-ish. */
static bool check_slot(const sinew_graph_t *g, const sinew__node *n, const sinew__attr *a, bool element,
                       const sinew__slot *s, bool parent_dirty, const char *where) {
  if (parent_dirty && !(s->flags & SINEW__F_DIRTY))
    fail_msg("%s.%s: clean slot under a DIRTY parent", where, a->name);
  bool dirty = (s->flags & SINEW__F_DIRTY) != 0;
  uint32_t count = 0;
  if ((a->flags & SINEW_ATTR_ARRAY) && !element) {
    const sinew__multi *m = s->v.multi;
    for (uint32_t i = 0; m && i < m->count; i++) {
      if (i && m->idx[i - 1] >= m->idx[i]) fail_msg("%s.%s: indices not ascending", where, a->name);
      if (m->vals) { /* packed: every element has the common flags */
        if (dirty && !(m->eflags & SINEW__F_DIRTY)) fail_msg("%s.%s: clean packed elements under a DIRTY array", where, a->name);
        if (!(m->eflags & SINEW__F_ELEMENT)) fail_msg("%s.%s: packed elements without ELEMENT", where, a->name);
        count += (m->eflags & SINEW__F_DIRTY) != 0;
        continue;
      }
      /* two-level: checked through the view of the element (the flags its slots would have) */
      count += check_slot(g, n, a, true, m->csr ? sinew__multi_csr_view(m, i) : &m->elems[i], dirty, where);
    }
  } else if (a->type == SINEW_ATTR_COMPOUND && s->v.kids) {
    for (uint32_t i = 0; i < a->nchildren; i++)
      count += check_slot(g, n, sinew__attr_get(g, n, a->children[i]), false, &s->v.kids[i], dirty, where);
  }
  if (s->flags & SINEW__F_BUSY) fail_msg("%s.%s: BUSY left behind", where, a->name);
  if (s->flags & SINEW__F_PENDING) fail_msg("%s.%s: PENDING left behind", where, a->name);
  if (count != s->below)
    fail_msg("%s.%s%s: below is %u, %u children are dirty", where, a->name, element ? "[]" : "",
             s->below, count);
  return dirty || count > 0;
}

static void check_conn_slot(const sinew_graph_t *g, const sinew_plug_t *p, uint32_t bit, uint32_t sub_bit) {
  sinew__node *n = sinew__node_get(g, p->node);
  char buf[256];
  sinew_plug_format(g, p, false, buf, sizeof buf);
  if (!n) fail_msg("connection end %s on a dead node", buf);
  if (p->attr >= sinew__node_nattrs(n) || (sinew__attr_get(g, n, p->attr)->flags & SINEW__ATTR_REMOVED))
    fail_msg("connection end %s on a removed attribute", buf);
  sinew__slot_path path;
  sinew__slot *s = sinew__slot_find(g, n, p, &path);
  if (!s) fail_msg("connection end %s has no slot", buf);
  if (!(s->flags & bit)) fail_msg("connection end %s lacks its IN/OUT flag", buf);
  for (uint32_t i = 0; i + 1 < path.n; i++)
    if (!(path.slots[i]->flags & sub_bit)) fail_msg("an ancestor of %s lacks SUB_IN/SUB_OUT", buf);
}

/* Walks every slot of every live node and every connection index. */
static void check_graph(const sinew_graph_t *g) {
  size_t live = 0;
  for (uint32_t i = 0; i < g->nnodes; i++) {
    const sinew__node *n = g->nodes[i];
    if (!n || !n->live) continue;
    live++;
    sinew_node_t h = {i, n->gen}, found;
    /* the name index holds the node */
    bool named = false;
    sinew__name_entry *e = NULL;
    HASH_FIND_STR(g->names, n->name, e);
    for (uint32_t k = e ? e->first : 0; k; k = g->nodes[k - 1]->name_next) named |= k == i + 1;
    if (!named) fail_msg("node %s is missing from the name index", n->name);
    char *path = sinew_node_path(g, h);
    assert_int_equal(sinew_node_find(g, path, &found), 0);
    assert_int_equal(found.index, i);
    sinew_free(path);
    for (uint32_t id = 0; id < sinew__node_nattrs(n); id++) {
      const sinew__attr *a = sinew__attr_get(g, n, id);
      if (a->parent != SINEW__NO_ATTR || (a->flags & SINEW__ATTR_REMOVED)) continue;
      check_slot(g, n, a, false, &n->slots[a->slot_index], false, n->name);
    }
    for (uint32_t k = 0; k < n->nconns; k++) {
      const sinew__conn *c = n->conns[k];
      if (c->src.node.index != i && c->dst.node.index != i) fail_msg("%s lists a foreign connection", n->name);
      /* the attributes beside the list are the connection's ends on this node */
      if (n->conn_ends[k] != sinew__conn_ends(i, c)) fail_msg("%s: conn_ends[%u] is stale", n->name, k);
    }
  }
  assert_int_equal(live, g->live_nodes);
  size_t nc = 0;
  for (const sinew__conn *c = g->conn_head; c; c = c->next, nc++) {
    if (sinew__conn_to(g, &c->dst) != c) fail_msg("a connection is not indexed by its destination");
    bool indexed = false;
    for (const sinew__conn *x = sinew__conn_from(g, &c->src); x; x = x->src_next) indexed |= x == c;
    if (!indexed) fail_msg("a connection is not indexed by its source");
    check_conn_slot(g, &c->dst, SINEW__F_IN, SINEW__F_SUB_IN);
    check_conn_slot(g, &c->src, SINEW__F_OUT, SINEW__F_SUB_OUT);
    /* both nodes list it */
    const sinew__node *ends[2] = {sinew__node_get(g, c->src.node), sinew__node_get(g, c->dst.node)};
    for (int k = 0; k < 2; k++) {
      bool has = false;
      for (uint32_t j = 0; j < ends[k]->nconns; j++) has |= ends[k]->conns[j] == c;
      if (!has) fail_msg("a node does not list its connection");
    }
  }
  assert_int_equal(nc, g->nconnections);
  /* the change journal's permanent sentinel (graph/journal.c) is in the index, not a connection */
  assert_int_equal(HASH_COUNT(g->conns_by_dst) - (g->jr.sent_conn != NULL), g->nconnections);
  size_t by_src = 0;
  for (const sinew__src_entry *e = g->conns_by_src; e; e = e->hh.next)
    for (const sinew__conn *c = e->head; c; c = c->src_next) by_src++;
  assert_int_equal(by_src, g->nconnections);
}

/* A connection from a node to itself: the node lists it once, with both ends in conn_ends, so
 * dirt from the source reaches the destination on the same node and a pull finds what feeds it;
 * the lists stay right when it is broken and when the break is undone. */
static void test_self_connection(void **state) {
  sinew_graph_t *g = *state;
  mk(g, "sum", "s");
  mk(g, "sum", "t");
  conn(g, "s.len", "s.ins[0]");
  conn(g, "t.len", "s.ins[1]");
  check_graph(g);
  sinew_plug_t vec = P(g, "s.vec"), len = P(g, "s.len"), in0 = P(g, "s.ins[0]");
  assert_int_equal(sinew_set_doubles(g, &vec, (double[]){3, 4, 0}, 3), 0);
  assert_true(getd(g, "s.sum") == 6.0); /* 5 from itself, 1 from t (its vector's default z) */
  setd(g, "s.vy", 0);
  sinew_plug_t sum = P(g, "s.sum");
  assert_true(sinew_plug_is_dirty(g, &in0) && sinew_plug_is_dirty(g, &sum));
  assert_true(getd(g, "s.sum") == 4.0);
  assert_int_equal(sinew_graph_begin(g), 0);
  assert_int_equal(sinew_disconnect(g, &len, &in0), 0);
  sinew_change_t *step = NULL;
  assert_int_equal(sinew_graph_commit_step(g, &step), 0);
  check_graph(g);
  assert_true(getd(g, "s.sum") == 4.0); /* ins[0] keeps the 3 it had */
  assert_int_equal(sinew_change_undo(g, step), 0);
  check_graph(g);
  setd(g, "s.vx", 0);
  assert_true(getd(g, "s.sum") == 1.0);
  assert_int_equal(sinew_change_redo(g, step), 0);
  check_graph(g);
  sinew_change_free(g, step);
}

/* ---- compounds, arrays and their connections ------------------------------------------------ */

static void getv(sinew_graph_t *g, const char *text, double out[3]) {
  sinew_plug_t p = P(g, text);
  size_t n = 0;
  assert_int_equal(sinew_get_doubles(g, &p, out, 3, &n), 0);
  assert_int_equal(n, 3);
}

static bool dirty(sinew_graph_t *g, const char *text) {
  sinew_plug_t p = P(g, text);
  return sinew_plug_is_dirty(g, &p);
}

static void test_compound_connections(void **state) {
  sinew_graph_t *g = *state;
  mk(g, "add", "a");
  mk(g, "add", "b");
  mk(g, "sum", "s");
  mk(g, "sum", "t");
  mk(g, "sum", "u");
  double v[3];
  /* parent to parent, read a child */
  sinew_plug_t svec = P(g, "s.vec");
  assert_int_equal(sinew_set_doubles(g, &svec, (double[]){1, 2, 3}, 3), 0);
  conn(g, "s.vec", "t.vec");
  assert_true(getd(g, "t.vy") == 2.0);
  check_graph(g);
  setd(g, "s.vz", 4); /* a child of the source dirties the destination parent and its children */
  assert_true(dirty(g, "t.vec"));
  assert_true(dirty(g, "t.vz"));
  assert_true(dirty(g, "t.len"));
  check_graph(g);
  assert_true(getd(g, "t.vz") == 4.0);
  assert_true(fabs(getd(g, "t.len") - sqrt(1 + 4 + 16)) < 1e-12);
  check_graph(g);
  /* a child of a connected destination, used as a source itself */
  conn(g, "t.vx", "b.in");
  assert_true(getd(g, "b.out") == 1.0);
  assert_int_equal(sinew_set_doubles(g, &svec, (double[]){5, 6, 7}, 3), 0);
  assert_true(dirty(g, "b.out"));
  check_graph(g);
  assert_true(getd(g, "b.out") == 5.0);
  /* child to child only, read the parent */
  conn(g, "a.out", "u.vx");
  setd(g, "a.in", 3);
  assert_true(dirty(g, "u.vec"));
  getv(g, "u.vec", v);
  assert_true(v[0] == 3.0 && v[1] == 0.0 && v[2] == 1.0);
  assert_false(dirty(g, "u.vec"));
  check_graph(g);
  setd(g, "a.in", 4);
  assert_true(dirty(g, "u.vec"));
  assert_true(dirty(g, "u.len"));
  assert_true(getd(g, "u.len") == sqrt(16 + 1));
  check_graph(g);
  /* setAttr on a compound with a connected child is refused, and changes nothing */
  sinew_plug_t uvec = P(g, "u.vec");
  assert_int_equal(sinew_set_doubles(g, &uvec, (double[]){9, 9, 9}, 3), SINEW_ECONNECTED);
  assert_non_null(strstr(sinew_graph_errmsg(g), "u.vectorX"));
  getv(g, "u.vec", v);
  assert_true(v[0] == 4.0 && v[1] == 0.0 && v[2] == 1.0);
  /* a locked parent locks its children, for setAttr and connectAttr */
  sinew_plug_t tvec = P(g, "u.vec"), uvz = P(g, "u.vz"), aout = P(g, "a.out2");
  assert_int_equal(sinew_plug_set_locked(g, &tvec, true), 0);
  assert_true(sinew_plug_locked(g, &uvz));
  assert_int_equal(sinew_set_double(g, &uvz, 1), SINEW_ELOCKED);
  assert_int_equal(sinew_connect(g, &aout, &uvz, 0, NULL), SINEW_ELOCKED);
  assert_int_equal(sinew_plug_set_locked(g, &tvec, false), 0);
  check_graph(g);
}

/* A destination is fed by one connection: a plug under a connected parent, or a parent with a
 * connected child, cannot take a second one without force (the value would otherwise depend
 * on which of the two plugs was read first). */
static void test_parent_child_destinations(void **state) {
  sinew_graph_t *g = *state;
  mk(g, "add", "a");
  mk(g, "sum", "s");
  mk(g, "sum", "t");
  sinew_plug_t svec = P(g, "s.vec");
  assert_int_equal(sinew_set_doubles(g, &svec, (double[]){1, 2, 3}, 3), 0);
  setd(g, "a.in", 10);
  conn(g, "s.vec", "t.vec");
  sinew_plug_t aout = P(g, "a.out"), tvx = P(g, "t.vx"), tvec = P(g, "t.vec");
  assert_int_equal(sinew_connect(g, &aout, &tvx, 0, NULL), SINEW_ECONNECTED);
  assert_non_null(strstr(sinew_graph_errmsg(g), "t.vector"));
  assert_true(getd(g, "t.vx") == 1.0);
  /* force breaks the parent's connection; the other children keep their values */
  assert_int_equal(sinew_connect(g, &aout, &tvx, SINEW_CONNECT_FORCE, NULL), 0);
  assert_false(sinew_plug_source(g, &tvec, NULL));
  double v[3];
  getv(g, "t.vec", v);
  assert_true(v[0] == 10.0 && v[1] == 2.0 && v[2] == 3.0);
  check_graph(g);
  /* and the other way round: the parent cannot be connected while a child is */
  assert_int_equal(sinew_connect(g, &svec, &tvec, 0, NULL), SINEW_ECONNECTED);
  assert_true(getd(g, "t.vx") == 10.0);
  assert_int_equal(sinew_connect(g, &svec, &tvec, SINEW_CONNECT_FORCE, NULL), 0);
  assert_false(sinew_plug_source(g, &tvx, NULL));
  /* reading order does not matter */
  getv(g, "t.vec", v);
  assert_true(v[0] == 1.0 && getd(g, "t.vx") == 1.0);
  check_graph(g);
  /* the same for whole arrays and their elements */
  sinew_plug_t sins = P(g, "s.ins"), tins = P(g, "t.ins"), t3 = P(g, "t.ins[3]");
  assert_int_equal(sinew_connect(g, &sins, &tins, 0, NULL), 0);
  assert_int_equal(sinew_connect(g, &aout, &t3, 0, NULL), SINEW_ECONNECTED);
  check_graph(g);
}

static void test_whole_array_connections(void **state) {
  sinew_graph_t *g = *state;
  mk(g, "add", "a");
  mk(g, "sum", "s");
  mk(g, "sum", "t");
  mk(g, "sum", "u");
  setd(g, "s.ins[0]", 1);
  setd(g, "s.ins[5]", 2);
  conn(g, "s.ins", "t.ins");
  assert_true(getd(g, "t.sum") == 3.0);
  sinew_plug_t tins = P(g, "t.ins");
  int32_t idx[8];
  assert_int_equal(sinew_plug_indices(g, &tins, idx, 8), 2);
  assert_int_equal(idx[1], 5);
  check_graph(g);
  assert_true(getd(g, "t.ins[3]") == 0.0); /* reading an element the source lacks makes none */
  assert_int_equal(sinew_plug_indices(g, &tins, idx, 8), 2);
  /* an element of the fed array cannot be set */
  sinew_plug_t t3 = P(g, "t.ins[3]");
  assert_int_equal(sinew_set_double(g, &t3, 1), SINEW_ECONNECTED);
  assert_int_equal(sinew_set_double_elements(g, &tins, (int32_t[]){3}, (double[]){1}, 1), SINEW_ECONNECTED);
  /* the destination mirrors removals too */
  sinew_plug_t s5 = P(g, "s.ins[5]");
  assert_int_equal(sinew_plug_remove_element(g, &s5), 0);
  assert_true(getd(g, "t.sum") == 1.0);
  assert_int_equal(sinew_plug_indices(g, &tins, idx, 8), 1);
  check_graph(g);
  /* reading one element of the fed array pulls through the array connection */
  setd(g, "s.ins[2]", 7);
  assert_true(getd(g, "t.ins[2]") == 7.0);
  check_graph(g);
  /* a fed element that is a source itself stays (a connected plug exists), at its default */
  conn(g, "t.ins[2]", "a.in");
  assert_true(getd(g, "a.out") == 7.0);
  sinew_plug_t s2 = P(g, "s.ins[2]");
  assert_int_equal(sinew_plug_remove_element(g, &s2), 0);
  assert_true(getd(g, "t.sum") == 1.0);
  assert_int_equal(sinew_plug_indices(g, &tins, idx, 8), 2);
  assert_true(getd(g, "a.out") == 0.0);
  check_graph(g);
  setd(g, "s.ins[2]", 8);
  assert_true(dirty(g, "a.out"));
  assert_true(getd(g, "a.out") == 8.0);
  check_graph(g);
  /* computed arrays read whole: each existing element is computed as an element */
  setd(g, "s.ins[1]", 1);
  assert_true(getd(g, "s.outs[1]") == 11.0);
  assert_true(getd(g, "s.outs[2]") == 28.0);
  setd(g, "s.ins[1]", 2); /* every existing element is dirtied */
  assert_true(dirty(g, "s.outs[1]"));
  assert_true(dirty(g, "s.outs[2]"));
  sinew_plug_t souts = P(g, "s.outs");
  double vals[8];
  size_t n = 0;
  assert_int_equal(sinew_get_double_elements(g, &souts, idx, vals, 8, &n), 0);
  assert_int_equal(n, 2);
  assert_true(vals[0] == 12.0 && vals[1] == 28.0);
  check_graph(g);
  conn(g, "s.outs", "u.ins");
  assert_true(getd(g, "u.sum") == 40.0);
  setd(g, "s.ins[2]", 9);
  assert_true(getd(g, "u.sum") == 12.0 + 29.0);
  assert_true(getd(g, "s.outs[7]") == 70.0); /* a new element is born dirty and computed */
  setd(g, "s.ins[7]", 1);
  assert_true(getd(g, "u.sum") == 12.0 + 29.0 + 71.0);
  check_graph(g);
}

static void test_multi_of_compounds(void **state) {
  sinew_graph_t *g = *state;
  mk(g, "add", "a");
  mk(g, "sum", "s");
  mk(g, "sum", "t");
  setd(g, "a.in", 0.5);
  conn(g, "a.out", "s.wl[3].w[2]");
  sinew_plug_t w = P(g, "s.wl[3].w");
  double vals[4];
  int32_t idx[4];
  size_t n = 0;
  assert_int_equal(sinew_get_double_elements(g, &w, idx, vals, 4, &n), 0);
  assert_int_equal(n, 1);
  assert_true(idx[0] == 2 && vals[0] == 0.5);
  setd(g, "a.in", 0.75);
  assert_true(dirty(g, "s.wl[3].w[2]"));
  assert_true(dirty(g, "s.wl"));
  assert_true(getd(g, "s.wl[3].w[2]") == 0.75);
  check_graph(g);
  /* a whole inner array as a destination */
  setd(g, "t.wl[1].w[4]", 2);
  conn(g, "t.wl[1].w", "s.wl[7].w");
  assert_true(getd(g, "s.wl[7].w[4]") == 2.0);
  setd(g, "t.wl[1].w[4]", 3);
  assert_true(dirty(g, "s.wl[7].w[4]"));
  assert_true(getd(g, "s.wl[7].w[4]") == 3.0);
  check_graph(g);
  /* an element the source lacks (made by a lock), dirtied by hand, goes when the array is read;
   * the counts above it follow */
  sinew_plug_t w9 = P(g, "s.wl[7].w[9]"), w7 = P(g, "s.wl[7].w");
  assert_int_equal(sinew_plug_set_locked(g, &w9, true), 0);
  assert_int_equal(sinew_dirty(g, &w9), 0);
  check_graph(g);
  assert_true(dirty(g, "s.wl"));
  assert_int_equal(sinew_get_double_elements(g, &w7, idx, vals, 4, &n), 0);
  assert_int_equal(n, 1);
  check_graph(g);
  assert_false(dirty(g, "s.wl[7]"));
  /* the element with a connection inside goes; its connection breaks */
  sinew_plug_t e = P(g, "s.wl[3]"), aout = P(g, "a.out");
  assert_int_equal(sinew_plug_remove_element(g, &e), 0);
  assert_int_equal(sinew_plug_destinations(g, &aout, NULL, 0), 0);
  sinew_plug_t wl = P(g, "s.wl");
  assert_int_equal(sinew_plug_indices(g, &wl, idx, 4), 1);
  assert_true(getd(g, "s.wl[3].w[2]") == 0.0);
  check_graph(g);
}

static void test_remove_element_connections(void **state) {
  sinew_graph_t *g = *state;
  mk(g, "add", "a");
  mk(g, "add", "b");
  mk(g, "sum", "s");
  setd(g, "s.ins[0]", 1);
  setd(g, "s.ins[1]", 2);
  conn(g, "a.out", "s.ins[2]");
  setd(g, "a.in", 5);
  assert_true(getd(g, "s.sum") == 8.0);
  sinew_plug_t arr = P(g, "s.ins"), e2 = P(g, "s.ins[2]"), aout = P(g, "a.out");
  assert_int_equal(sinew_plug_remove_element(g, &e2), 0);
  assert_false(sinew_plug_source(g, &e2, NULL));
  assert_int_equal(sinew_plug_destinations(g, &aout, NULL, 0), 0);
  assert_true(dirty(g, "s.sum"));
  assert_true(getd(g, "s.sum") == 3.0);
  assert_true(getd(g, "s.ins[2]") == 0.0);
  assert_int_equal(sinew_plug_next_index(g, &arr), 2);
  check_graph(g);
  /* an element that is a source: the destination keeps the last value it had from it */
  setd(g, "s.ins[3]", 1);
  conn(g, "s.outs[3]", "b.in");
  assert_true(getd(g, "b.out") == 31.0);
  setd(g, "s.ins[3]", 4); /* b.in is dirty, not pulled, when the element goes */
  sinew_plug_t o3 = P(g, "s.outs[3]");
  assert_int_equal(sinew_plug_remove_element(g, &o3), 0);
  assert_true(getd(g, "b.in") == 34.0);
  assert_true(getd(g, "b.out") == 34.0);
  check_graph(g);
  /* next available index after removals */
  sinew_plug_t e0 = P(g, "s.ins[0]");
  assert_int_equal(sinew_plug_remove_element(g, &e0), 0);
  assert_int_equal(sinew_plug_next_index(g, &arr), 0);
  sinew_plug_t chosen;
  assert_int_equal(sinew_connect(g, &aout, &arr, SINEW_CONNECT_NEXT_AVAILABLE, &chosen), 0);
  assert_int_equal(chosen.idx[0], 0);
  assert_int_equal(sinew_plug_next_index(g, &arr), 2);
  check_graph(g);
}

/* ---- hierarchy, names ------------------------------------------------------------------------ */

static void test_reparent_and_names(void **state) {
  sinew_graph_t *g = *state;
  sinew_node_t r1 = mk(g, "xform", "r1"), r2 = mk(g, "xform", "r2"), j1, j2, found;
  assert_int_equal(sinew_node_create_under(g, "xform", "j", r1, &j1), 0);
  assert_int_equal(sinew_node_create_under(g, "xform", "j", r2, &j2), 0);
  setd(g, "r1.lv", 1);
  setd(g, "r2.lv", 2);
  setd(g, "r2|j.lv", 10);
  sinew_plug_t w2 = sinew_plug_make(j2, X_WORLD, 1, (int32_t[]){0});
  double v;
  assert_int_equal(sinew_get_double(g, &w2, &v), 0);
  assert_true(v == 12.0);
  /* a plug on a node whose short name is shared prints a path that finds it */
  char buf[128];
  sinew_plug_format(g, &w2, false, buf, sizeof buf);
  assert_string_equal(buf, "|r2|j.worldValue[0]");
  sinew_plug_t back = P(g, buf);
  assert_true(sinew_plug_equal(&back, &w2));
  /* reparenting next to a sibling of the same name renames, keeps values, moves the link */
  assert_int_equal(sinew_node_set_parent(g, j2, r1), 0);
  assert_string_equal(sinew_node_name(g, j2), "j1");
  assert_int_equal(sinew_node_find(g, "r1|j1", &found), 0);
  assert_int_equal(found.index, j2.index);
  assert_true(getd(g, "j1.lv") == 10.0);
  assert_int_equal(sinew_get_double(g, &w2, &v), 0);
  assert_true(v == 11.0);
  setd(g, "r2.lv", 5);
  assert_false(sinew_plug_is_dirty(g, &w2));
  setd(g, "r1.lv", 3);
  assert_int_equal(sinew_get_double(g, &w2, &v), 0);
  assert_true(v == 13.0);
  check_graph(g);
  sinew_node_t kids[4];
  assert_int_equal(sinew_node_children(g, r1, kids, 4), 2);
  assert_int_equal(sinew_node_children(g, r2, kids, 4), 0);
  /* renaming: a taken name gets a number; a DAG node needs a unique name among siblings only */
  assert_int_equal(sinew_node_rename(g, j2, "j"), 0);
  assert_string_equal(sinew_node_name(g, j2), "j1"); /* its own name is not taken */
  assert_int_equal(sinew_node_rename(g, j2, "j9"), 0);
  assert_int_equal(sinew_node_rename(g, j2, "j"), 0);
  assert_string_equal(sinew_node_name(g, j2), "j1");
  sinew_node_t k;
  assert_int_equal(sinew_node_create_under(g, "xform", "k", r2, &k), 0);
  assert_int_equal(sinew_node_rename(g, k, "j"), 0);
  assert_string_equal(sinew_node_name(g, k), "j");
  assert_int_equal(sinew_node_rename(g, k, "r1"), 0); /* a root node is a sibling of nobody here */
  assert_string_equal(sinew_node_name(g, k), "r1");
  assert_int_equal(sinew_node_find(g, "r1", &found), SINEW_EAMBIGUOUS);
  sinew_plug_t kl = sinew_plug_make(k, X_LOCAL, 0, NULL);
  sinew_plug_format(g, &kl, true, buf, sizeof buf);
  assert_string_equal(buf, "|r2|r1.lv");
  check_graph(g);
  /* a name freed by renaming is the first free number again */
  sinew_node_t a1 = mk(g, "add", NULL), a2 = mk(g, "add", NULL);
  assert_string_equal(sinew_node_name(g, a2), "add2");
  assert_int_equal(sinew_node_rename(g, a1, "first"), 0);
  sinew_node_t a3 = mk(g, "add", NULL);
  assert_string_equal(sinew_node_name(g, a3), "add1");
  check_graph(g);
}

/* ---- misuse ------------------------------------------------------------------------------------ */

static void test_null_and_stale_arguments(void **state) {
  sinew_graph_t *g = *state;
  sinew_node_t a = mk(g, "add", "a"), dead = mk(g, "add", "dead"), none = {0, 0}, bogus = {9999, 1};
  assert_int_equal(sinew_node_delete(g, dead), 0);
  sinew_plug_t ok = sinew_plug_make(a, A_IN, 0, NULL), stale = sinew_plug_make(dead, A_IN, 0, NULL);
  sinew_plug_t badattr = sinew_plug_make(a, 9999, 0, NULL), far = sinew_plug_make(bogus, 0, 0, NULL);
  sinew_plug_t huge = ok;
  huge.nidx = 1000; /* a corrupt plug: more indices than any attribute has */
  const sinew_plug_t *bad[] = {NULL, &stale, &badattr, &far, &huge};
  double d = 0;
  int64_t i64 = 0;
  bool b = false;
  sinew_mat4_t m;
  sinew_mat4_identity(&m);
  const char *str = NULL;
  sinew_data_t *data = NULL;
  char buf[64];
  int32_t idx[2] = {0, 1};
  double vals[2] = {0, 0};
  size_t n = 0;
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    const sinew_plug_t *p = bad[k];
    sinew_graph_t *gs[2] = {NULL, g};
    for (int j = 0; j < 2; j++) {
      sinew_graph_t *gg = gs[j];
      assert_true(sinew_set_double(gg, p, 1) < 0);
      assert_true(sinew_set_int(gg, p, 1) < 0);
      assert_true(sinew_set_bool(gg, p, 1) < 0);
      assert_true(sinew_set_doubles(gg, p, vals, 2) < 0);
      assert_true(sinew_set_matrix(gg, p, &m) < 0);
      assert_true(sinew_set_string(gg, p, "x") < 0);
      assert_true(sinew_set_data(gg, p, NULL) < 0);
      assert_true(sinew_set_double_elements(gg, p, idx, vals, 2) < 0);
      assert_true(sinew_get_double(gg, p, &d) < 0);
      assert_true(sinew_get_int(gg, p, &i64) < 0);
      assert_true(sinew_get_bool(gg, p, &b) < 0);
      assert_true(sinew_get_doubles(gg, p, vals, 2, &n) < 0);
      assert_true(sinew_get_matrix(gg, p, &m) < 0);
      assert_true(sinew_get_string(gg, p, &str) < 0);
      assert_true(sinew_get_data(gg, p, &data) < 0);
      assert_true(sinew_get_double_elements(gg, p, idx, vals, 2, &n) < 0);
      assert_true(sinew_evaluate(gg, p) < 0);
      assert_true(sinew_dirty(gg, p) < 0);
      assert_true(sinew_connect(gg, p, &ok, 0, NULL) < 0);
      assert_true(sinew_connect(gg, &ok, p, 0, NULL) < 0);
      assert_true(sinew_disconnect(gg, p, &ok) < 0);
      assert_true(sinew_disconnect(gg, &ok, p) < 0);
      assert_true(sinew_plug_remove_element(gg, p) < 0);
      assert_true(sinew_plug_set_locked(gg, p, true) < 0);
      assert_true(sinew_plug_set_keyable(gg, p, true) < 0);
      assert_true(sinew_plug_set_channel_box(gg, p, true) < 0);
      assert_false(sinew_plug_locked(gg, p));
      assert_false(sinew_plug_has_value(gg, p));
      assert_false(sinew_plug_is_dirty(gg, p));
      assert_false(sinew_plug_is_array(gg, p));
      assert_false(sinew_plug_source(gg, p, NULL));
      assert_int_equal(sinew_plug_destinations(gg, p, NULL, 0), 0);
      assert_int_equal(sinew_plug_indices(gg, p, idx, 2), 0);
      assert_true(sinew_plug_next_index(gg, p) < 0);
      sinew_plug_t out;
      assert_false(sinew_plug_parent(gg, p, &out));
      assert_true(sinew_plug_child(gg, p, 0, &out) < 0);
      assert_true(sinew_plug_element(gg, p, 0, &out) < 0);
      sinew_plug_format(gg, p, false, buf, sizeof buf);
      sinew_plug_format_attr(gg, p, false, buf, sizeof buf);
      assert_false(sinew_plug_equal(p, &ok));
      assert_false(sinew_plug_equal(&ok, p));
    }
  }
  /* NULL graph and bad node handles */
  sinew_node_t nodes[3] = {none, dead, bogus};
  for (int k = 0; k < 3; k++) {
    sinew_node_t h = nodes[k], out;
    sinew_graph_t *gs[2] = {NULL, g};
    for (int j = 0; j < 2; j++) {
      sinew_graph_t *gg = gs[j];
      assert_true(sinew_node_delete(gg, h) < 0);
      assert_true(sinew_node_rename(gg, h, "x") < 0);
      assert_false(sinew_node_valid(gg, h));
      assert_null(sinew_node_name(gg, h));
      assert_null(sinew_node_path(gg, h));
      assert_null(sinew_node_type(gg, h));
      assert_null(sinew_node_state(gg, h));
      assert_null(sinew_node_user_data(gg, h));
      sinew_node_set_user_data(gg, h, NULL);
      assert_true(sinew_node_set_locked(gg, h, true) < 0);
      assert_false(sinew_node_locked(gg, h));
      assert_true(sinew_node_set_parent(gg, h, none) < 0);
      assert_int_equal(sinew_node_parent(gg, h).gen, 0);
      assert_int_equal(sinew_node_children(gg, h, NULL, 0), 0);
      assert_int_equal(sinew_node_attr_count(gg, h), 0);
      sinew_attr_info_t info;
      assert_true(sinew_node_attr_info(gg, h, 0, &info) < 0);
      assert_int_equal(sinew_node_attr(gg, h, "in"), UINT32_MAX);
      sinew_attr_desc_t dd = {.name = "zz", .type = SINEW_ATTR_DOUBLE};
      assert_true(sinew_node_add_attr(gg, h, &dd, 1) < 0);
      assert_true(sinew_node_remove_attr(gg, h, 0) < 0);
      assert_true(sinew_attr_enum_value(gg, h, 0, "x", NULL) < 0);
      assert_null(sinew_attr_enum_name(gg, h, 0, 0));
      assert_true(sinew_plug_parse(gg, ".in", h, &ok) < 0);
      assert_true(sinew_node_create_under(gg, "xform", "x", h.gen ? h : bogus, &out) < 0);
      sinew_foreach_connection(gg, h, true, count_conn, &(listed){0});
    }
  }
  ok = sinew_plug_make(a, A_IN, 0, NULL);
  /* NULL everything else */
  assert_true(sinew_node_create(NULL, "add", "x", NULL) < 0);
  assert_true(sinew_node_create(g, NULL, "x", NULL) < 0);
  assert_true(sinew_node_find(NULL, "a", NULL) < 0);
  assert_true(sinew_node_find(g, NULL, NULL) < 0);
  assert_false(sinew_node_next(NULL, NULL));
  assert_int_equal(sinew_node_count(NULL), 0);
  assert_true(sinew_register_node_type(NULL, NULL, NULL) < 0);
  assert_true(sinew_register_node_type(g, NULL, NULL) < 0);
  assert_null(sinew_find_node_type(NULL, "add"));
  assert_null(sinew_node_type_next(NULL, NULL));
  assert_int_equal(sinew_node_type_attr(NULL, "in"), UINT32_MAX);
  assert_true(sinew_graph_add_observer(NULL, NULL, NULL) < 0);
  assert_true(sinew_graph_add_observer(g, NULL, NULL) < 0);
  assert_true(sinew_graph_remove_observer(NULL, 1) < 0);
  assert_true(sinew_graph_write_dot(NULL, stdout) < 0);
  assert_true(sinew_graph_write_dot(g, NULL) < 0);
  assert_true(sinew_plug_parse(g, NULL, a, &ok) < 0);
  assert_true(sinew_plug_parse(g, "a.in", a, NULL) < 0);
  assert_true(sinew_plug_parse_attr(g, a, NULL, &ok) < 0);
  assert_true(sinew_plug_parse_attr(g, a, "in", NULL) < 0);
  assert_true(sinew_plug_parse_attr(NULL, a, "in", &ok) < 0);
  assert_true(sinew_graph_errcode(NULL) < 0);
  assert_non_null(sinew_graph_errmsg(NULL));
  sinew_graph_stats(NULL, NULL);
  sinew_graph_reset_stats(NULL);
  sinew_graph_set_logger(NULL, NULL, NULL);
  sinew_log(NULL, SINEW_LOG_ERROR, SINEW_LOG_GENERIC, "x");
  sinew_foreach_connection(NULL, none, true, count_conn, NULL);
  sinew_foreach_connection(g, none, true, NULL, NULL);
  assert_null(sinew_graph_user_data(NULL));
  sinew_graph_set_user_data(NULL, NULL);
  sinew_graph_destroy(NULL);
  assert_true(sinew_graph_create(NULL, NULL) < 0);
  assert_null(sinew_node_type_name(NULL));
  assert_null(sinew_node_type_parent(NULL));
  assert_int_equal(sinew_node_type_flags(NULL), 0);
  assert_null(sinew_node_type_user_data(NULL));
  assert_false(sinew_node_type_is_a(NULL, "node"));
  assert_false(sinew_node_type_is_a(sinew_find_node_type(g, "add"), NULL));
  assert_null(sinew_data_ref(NULL));
  sinew_data_unref(NULL);
  assert_null(sinew_data_type(NULL));
  assert_null(sinew_data_get(NULL));
  assert_int_equal(sinew_data_size(NULL), 0);
  assert_int_equal(sinew_data_refcount(NULL), 0);
  assert_true(sinew_plug_parse(NULL, "a.in", a, &ok) < 0);
  assert_true(sinew_data_create(NULL, 4, &data) < 0);
  assert_true(sinew_data_create(&blob, 4, NULL) < 0);
  assert_null(sinew_data_mutable(NULL));
  /* NULL value pointers */
  assert_true(sinew_set_doubles(g, &ok, NULL, 1) < 0);
  assert_true(sinew_set_matrix(g, &ok, NULL) < 0);
  mk(g, "sum", "s");
  sinew_plug_t ins = P(g, "s.ins");
  assert_true(sinew_set_double_elements(g, &ins, NULL, NULL, 1) < 0);
  assert_true(sinew_set_double_elements(g, &ins, idx, NULL, 1) < 0);
  assert_int_equal(sinew_plug_indices(g, &ins, NULL, 4), 0);
  assert_int_equal(sinew_plug_destinations(g, &ok, NULL, 4), 0);
  assert_false(sinew_plug_equal(NULL, NULL));
  sinew_plug_t outp = sinew_plug_make(a, A_OUT, 0, NULL);
  assert_true(sinew_compute_set_double(NULL, &outp, 1) < 0);
  assert_true(sinew_compute_set_doubles(NULL, &outp, vals, 1) < 0);
  assert_true(sinew_compute_set_matrix(NULL, &outp, &m) < 0);
  assert_true(sinew_compute_set_string(NULL, &outp, "x") < 0);
  assert_true(sinew_compute_set_data(NULL, &outp, NULL) < 0);
  assert_true(sinew_compute_set_clean(NULL, &outp) < 0);
  assert_null(sinew_compute_graph(NULL));
  assert_null(sinew_compute_state(NULL));
  assert_int_equal(sinew_get_double(g, &ok, NULL), 0);
  assert_int_equal(sinew_get_doubles(g, &ok, NULL, 3, NULL), 0);
  assert_true(sinew_node_add_attr(g, a, NULL, 1) < 0);
  assert_int_equal(sinew_node_children(g, a, NULL, 5), 0);
  /* the graph still works */
  setd(g, "a.in", 2);
  assert_true(getd(g, "a.out") == 2.0);
  check_graph(g);
}

/* ---- dynamic attributes, again ------------------------------------------------------------- */

static void test_dynamic_attrs_lifecycle(void **state) {
  sinew_graph_t *g = *state;
  sinew_node_t a = mk(g, "add", "a");
  mk(g, "add", "b");
  sinew_attr_desc_t rate = {.name = "rate", .short_name = "rt", .type = SINEW_ATTR_DOUBLE};
  assert_int_equal(sinew_node_add_attr(g, a, &rate, 1), 0);
  uint32_t id = sinew_node_attr(g, a, "rate");
  /* a connection from the node into its own dynamic attribute breaks when it goes */
  conn(g, "a.out", "a.rate");
  conn(g, "a.rate", "b.in");
  setd(g, "a.in", 3);
  assert_true(getd(g, "b.out") == 3.0);
  assert_int_equal(sinew_node_remove_attr(g, a, id), 0);
  sinew_graph_stats_t st;
  sinew_graph_stats(g, &st);
  assert_int_equal(st.connections, 0);
  check_graph(g);
  assert_true(getd(g, "b.in") == 3.0);
  /* the name can be used again */
  assert_int_equal(sinew_node_add_attr(g, a, &rate, 1), 0);
  assert_true(getd(g, "a.rt") == 0.0);
  setd(g, "a.rate", 4);
  assert_true(getd(g, "a.rate") == 4.0);
  /* many at once */
  sinew_attr_desc_t many[100];
  char names[100][16];
  for (int i = 0; i < 100; i++) {
    snprintf(names[i], sizeof names[i], "many%d", i);
    many[i] = (sinew_attr_desc_t){.name = names[i], .type = SINEW_ATTR_DOUBLE, .default_value = i};
  }
  assert_int_equal(sinew_node_add_attr(g, a, many, 100), 0);
  assert_true(getd(g, "a.many99") == 99.0);
  /* dynamic compound arrays */
  sinew_attr_desc_t pts[] = {
      {.name = "points", .short_name = "pts", .type = SINEW_ATTR_COMPOUND, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY},
      {.name = "px", .type = SINEW_ATTR_DOUBLE, .parent = "points"},
      {.name = "py", .type = SINEW_ATTR_DOUBLE, .parent = "points", .has_min = true, .min_value = 0},
      {.name = "pz", .type = SINEW_ATTR_DOUBLE, .parent = "points"}};
  assert_int_equal(sinew_node_add_attr(g, a, pts, 4), 0);
  sinew_plug_t p4 = P(g, "a.pts[4]"), arr = P(g, "a.pts");
  /* a whole array of numeric compounds is not one numeric compound */
  double three[3] = {7, 7, 7};
  assert_int_equal(sinew_get_doubles(g, &arr, three, 3, NULL), SINEW_EINVAL);
  assert_true(three[0] == 7 && three[1] == 7 && three[2] == 7);
  assert_int_equal(sinew_set_doubles(g, &arr, three, 3), SINEW_EINVAL);
  /* a refused setAttr leaves no element behind */
  assert_int_equal(sinew_set_doubles(g, &p4, (double[]){1, -1, 1}, 3), SINEW_ERANGE);
  assert_int_equal(sinew_plug_indices(g, &arr, NULL, 0), 0);
  sinew_plug_t px = P(g, "a.pts[4].px");
  assert_int_equal(sinew_plug_set_locked(g, &px, true), 0);
  sinew_plug_t p5 = P(g, "a.pts[5]");
  assert_int_equal(sinew_set_doubles(g, &p5, (double[]){1, 2, 3}, 3), 0);
  assert_int_equal(sinew_set_doubles(g, &p4, (double[]){1, 2, 3}, 3), SINEW_ELOCKED);
  assert_true(getd(g, "a.pts[4].py") == 0.0);
  assert_int_equal(sinew_plug_indices(g, &arr, NULL, 0), 2);
  sinew_plug_t ins = sinew_plug_make(a, A_IN, 0, NULL);
  assert_int_equal(sinew_set_doubles(g, &ins, NULL, 0), SINEW_EINVAL);
  sinew_node_t s = mk(g, "sum", "s");
  sinew_plug_t s7 = sinew_plug_make(s, S_INS, 1, (int32_t[]){7}), sarr = P(g, "s.ins");
  assert_int_equal(sinew_set_doubles(g, &s7, (double[]){1}, 0), SINEW_EINVAL);
  assert_int_equal(sinew_plug_indices(g, &sarr, NULL, 0), 0);
  /* nor does one two array levels down, nor one inside a dirtied array (which would have been
   * born dirty and counted in the array's dirt), and the dirt bookkeeping stays exact */
  sinew_plug_t w3 = P(g, "s.wl[9].w[3]"), swl = P(g, "s.wl");
  assert_int_equal(sinew_set_doubles(g, &w3, (double[]){1}, 0), SINEW_EINVAL);
  assert_int_equal(sinew_plug_indices(g, &swl, NULL, 0), 0);
  setd(g, "s.ins[1]", 1);
  assert_int_equal(sinew_dirty(g, &sarr), 0);
  assert_int_equal(sinew_set_doubles(g, &s7, (double[]){1}, 0), SINEW_EINVAL);
  assert_int_equal(sinew_plug_indices(g, &sarr, NULL, 0), 1);
  check_graph(g);
  assert_true(getd(g, "s.sum") == 1.0);
  assert_false(dirty(g, "s.ins"));
  sinew_plug_t s1 = P(g, "s.ins[1]");
  assert_int_equal(sinew_plug_remove_element(g, &s1), 0);
  /* a numeric array with a minimum: the refused value makes no element */
  sinew_attr_desc_t lims = {.name = "lims", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY,
                            .has_min = true, .min_value = 0};
  assert_int_equal(sinew_node_add_attr(g, a, &lims, 1), 0);
  sinew_plug_t l3 = P(g, "a.lims[3]"), larr = P(g, "a.lims");
  assert_int_equal(sinew_set_doubles(g, &l3, (double[]){-1}, 1), SINEW_ERANGE);
  assert_int_equal(sinew_set_double(g, &l3, -1), SINEW_ERANGE);
  assert_int_equal(sinew_plug_indices(g, &larr, NULL, 0), 0);
  /* a child connected on its own refuses the set of its parent element (the element exists) */
  conn(g, "a.out", "a.pts[6].pz");
  sinew_plug_t p6 = P(g, "a.pts[6]");
  assert_int_equal(sinew_set_doubles(g, &p6, (double[]){1, 2, 3}, 3), SINEW_ECONNECTED);
  assert_non_null(strstr(sinew_graph_errmsg(g), "a.points[6].pz"));
  assert_true(getd(g, "a.pts[6].px") == 0.0);
  check_graph(g);
  /* setting many elements honours a locked element */
  setd(g, "s.ins[2]", 1);
  sinew_plug_t s2 = P(g, "s.ins[2]");
  assert_int_equal(sinew_plug_set_locked(g, &s2, true), 0);
  assert_int_equal(sinew_set_double_elements(g, &sarr, (int32_t[]){1, 2}, (double[]){5, 5}, 2), SINEW_ELOCKED);
  assert_true(getd(g, "s.ins[2]") == 1.0);
  assert_int_equal(sinew_plug_indices(g, &sarr, NULL, 0), 1);
  /* a locked array locks the elements it does not have yet */
  assert_int_equal(sinew_plug_set_locked(g, &sarr, true), 0);
  sinew_plug_t s9 = P(g, "s.ins[9]"), aout = P(g, "a.out");
  assert_true(sinew_plug_locked(g, &s9));
  assert_int_equal(sinew_set_double(g, &s9, 1), SINEW_ELOCKED);
  assert_int_equal(sinew_connect(g, &aout, &s9, 0, NULL), SINEW_ELOCKED);
  assert_int_equal(sinew_plug_indices(g, &sarr, NULL, 0), 1);
  check_graph(g);
}

/* ---- force, and the connection indexes --------------------------------------------------------- */

static void test_force_keeps_indexes(void **state) {
  sinew_graph_t *g = *state;
  mk(g, "add", "a");
  mk(g, "add", "b");
  mk(g, "sum", "s");
  sinew_plug_t aout = P(g, "a.out"), bout = P(g, "b.out");
  char buf[32];
  for (int i = 0; i < 200; i++) {
    snprintf(buf, sizeof buf, "s.ins[%d]", i);
    sinew_plug_t d = P(g, buf);
    assert_int_equal(sinew_connect(g, &aout, &d, 0, NULL), 0);
    assert_int_equal(sinew_connect(g, &bout, &d, SINEW_CONNECT_FORCE, NULL), 0);
    if (i % 3 == 0) assert_int_equal(sinew_connect(g, &aout, &d, SINEW_CONNECT_FORCE, NULL), 0);
  }
  check_graph(g);
  for (int i = 0; i < 200; i++) {
    snprintf(buf, sizeof buf, "s.ins[%d]", i);
    sinew_plug_t d = P(g, buf), src;
    assert_true(sinew_plug_source(g, &d, &src));
    assert_true(sinew_plug_equal(&src, i % 3 == 0 ? &aout : &bout));
  }
  assert_int_equal(sinew_plug_destinations(g, &aout, NULL, 0), 67);
  assert_int_equal(sinew_plug_destinations(g, &bout, NULL, 0), 133);
  setd(g, "a.in", 1);
  setd(g, "b.in", 2);
  sinew_plug_t sins = P(g, "s.ins");
  double vals[200];
  size_t n = 0;
  assert_int_equal(sinew_get_double_elements(g, &sins, NULL, vals, 200, &n), 0);
  assert_int_equal(n, 200);
  for (int i = 0; i < 200; i++) assert_true(vals[i] == (i % 3 == 0 ? 1.0 : 2.0));
  for (int i = 0; i < 200; i += 2) {
    snprintf(buf, sizeof buf, "s.ins[%d]", i);
    sinew_plug_t d = P(g, buf);
    assert_int_equal(sinew_disconnect(g, i % 3 == 0 ? &aout : &bout, &d), 0);
  }
  check_graph(g);
}

/* ---- hooks that try to change the graph while dirt is being propagated ------------------------ */

typedef struct meddler {
  sinew_graph_t *g;
  int calls, refused;
} meddler;

static void meddle(void *ud, const sinew_plug_t *p) {
  meddler *m = ud;
  m->calls++;
  sinew_graph_t *g = m->g;
  sinew_node_t a, b, n;
  if (sinew_node_find(g, "a", &a) || sinew_node_find(g, "b", &b)) return;
  sinew_plug_t ain = sinew_plug_make(a, A_IN, 0, NULL), bbias = sinew_plug_make(b, A_BIAS, 0, NULL);
  sinew_plug_t aout2 = sinew_plug_make(a, A_OUT2, 0, NULL), bin = sinew_plug_make(b, A_IN, 0, NULL);
  sinew_plug_t aout = sinew_plug_make(a, A_OUT, 0, NULL);
  m->refused += sinew_set_double(g, &bbias, 5) == SINEW_EINVAL;
  m->refused += sinew_connect(g, &aout2, &bbias, 0, NULL) == SINEW_EINVAL;
  m->refused += sinew_disconnect(g, &aout, &bin) == SINEW_EINVAL;
  m->refused += sinew_dirty(g, &ain) == SINEW_EINVAL;
  m->refused += sinew_node_create(g, "add", NULL, &n) == SINEW_EINVAL;
  m->refused += sinew_node_delete(g, b) == SINEW_EINVAL;
  sinew_plug_t elem = sinew_plug_make(b, A_IN, 0, NULL);
  m->refused += sinew_plug_set_locked(g, &elem, true) == SINEW_EINVAL;
  double v;
  sinew_get_double(g, &ain, &v); /* reading is allowed */
}

static void meddle_node(void *ud, sinew_node_t n) { meddle(ud, NULL); }
static void meddle_conn(void *ud, const sinew_plug_t *s, const sinew_plug_t *d) { meddle(ud, NULL); }

static void meddle_input(sinew_graph_t *g, sinew_node_t n, void *state, const sinew_plug_t *p) {
  sinew_plug_t out = sinew_plug_make(n, A_BIAS, 0, NULL);
  assert_int_equal(sinew_set_double(g, &out, 1), SINEW_EINVAL);
}

static void test_hooks_cannot_change_the_graph(void **state) {
  sinew_graph_t *g = *state;
  sinew_node_type_desc_t d = {.name = "meddling", .parent_type = "add", .input_changed = meddle_input};
  assert_int_equal(sinew_register_node_type(g, &d, NULL), 0);
  mk(g, "add", "a");
  mk(g, "add", "b");
  mk(g, "meddling", "c");
  conn(g, "a.out", "b.in");
  conn(g, "b.out", "c.in");
  getd(g, "c.out");
  meddler m = {g, 0, 0};
  sinew_observer_t obs = {.plug_dirtied = meddle, .user_data = &m};
  int id;
  assert_int_equal(sinew_graph_add_observer(g, &obs, &id), 0);
  setd(g, "a.in", 2);
  assert_true(m.calls > 0);
  assert_int_equal(m.refused, 7 * m.calls);
  assert_int_equal(sinew_graph_remove_observer(g, id), 0);
  assert_true(getd(g, "c.out") == 2.0);
  assert_int_equal(sinew_node_count(g), 3);
  check_graph(g);
  /* the other callbacks run in the middle of an operation too: refused alike */
  meddler m2 = {g, 0, 0};
  sinew_observer_t all = {meddle_node, meddle_node, meddle_conn, meddle_conn, NULL, &m2};
  assert_int_equal(sinew_graph_add_observer(g, &all, &id), 0);
  sinew_node_t d2 = mk(g, "add", "d");           /* node_added */
  conn(g, "c.out", "d.in");                      /* connected */
  sinew_plug_t cout = P(g, "c.out"), din = P(g, "d.in"), c2 = P(g, "c.out2");
  assert_int_equal(sinew_connect(g, &c2, &din, SINEW_CONNECT_FORCE, NULL), 0); /* both */
  assert_int_equal(sinew_disconnect(g, &c2, &din), 0);                         /* disconnected */
  conn(g, "c.out", "d.in");
  assert_int_equal(sinew_node_delete(g, d2), 0); /* node_removed, disconnected */
  assert_int_equal(m2.calls, 8);
  assert_int_equal(m2.refused, 7 * m2.calls);
  assert_int_equal(sinew_graph_remove_observer(g, id), 0);
  assert_int_equal(sinew_node_count(g), 3);
  assert_false(sinew_plug_source(g, &din, NULL));
  assert_int_equal(sinew_plug_destinations(g, &cout, NULL, 0), 0);
  assert_true(getd(g, "c.out") == 2.0);
  check_graph(g);
}

/* ---- node init that fails after making connections ------------------------------------------- */

static int init_connects_then_fails(sinew_graph_t *g, sinew_node_t n, void *state) {
  sinew_node_t a;
  if (sinew_node_find(g, "a", &a)) return SINEW_OK;
  sinew_plug_t src = sinew_plug_make(a, A_OUT, 0, NULL), dst = sinew_plug_make(n, A_IN, 0, NULL);
  sinew_plug_t src2 = sinew_plug_make(n, A_OUT, 0, NULL), dst2 = sinew_plug_make(a, A_BIAS, 0, NULL);
  assert_int_equal(sinew_connect(g, &src, &dst, 0, NULL), 0);
  assert_int_equal(sinew_connect(g, &src2, &dst2, 0, NULL), SINEW_ECYCLE);
  sinew_plug_t other = sinew_plug_make(n, A_OUT2, 0, NULL), bin;
  sinew_node_t b;
  assert_int_equal(sinew_node_find(g, "b", &b), 0);
  bin = sinew_plug_make(b, A_IN, 0, NULL);
  assert_int_equal(sinew_connect(g, &other, &bin, 0, NULL), 0);
  return sinew_graph_set_error(g, SINEW_ERUNTIME, "init refused");
}

static void test_failed_init_breaks_connections(void **state) {
  sinew_graph_t *g = *state;
  sinew_node_type_desc_t d = {.name = "badInit", .parent_type = "add", .init = init_connects_then_fails};
  assert_int_equal(sinew_register_node_type(g, &d, NULL), 0);
  mk(g, "add", "a");
  mk(g, "add", "b");
  sinew_node_t n;
  assert_int_equal(sinew_node_create(g, "badInit", "x", &n), SINEW_ERUNTIME);
  assert_non_null(strstr(sinew_graph_errmsg(g), "init refused"));
  sinew_graph_stats_t st;
  sinew_graph_stats(g, &st);
  assert_int_equal(st.connections, 0);
  assert_int_equal(st.nodes, 2);
  check_graph(g);
  setd(g, "a.in", 1);
  assert_true(getd(g, "a.out") == 1.0);
  assert_true(getd(g, "b.out") == 0.0);
}

/* ---- allocation failure in every mutating call ------------------------------------------------ */

typedef struct dump_buf {
  char text[32768];
  size_t used;
} dump_buf;

static void dump_add(dump_buf *d, const char *s) {
  size_t n = strlen(s);
  assert_true(d->used + n + 2 < sizeof d->text);
  memcpy(d->text + d->used, s, n);
  d->used += n;
  d->text[d->used++] = '\n';
  d->text[d->used] = 0;
}

static bool dump_conn(void *ud, const sinew_connection_t *c) {
  sinew_graph_t **gp = ((void **)ud)[0];
  dump_buf *d = ((void **)ud)[1];
  char s[128], t[128], line[300];
  sinew_plug_format(*gp, &c->src, false, s, sizeof s);
  sinew_plug_format(*gp, &c->dst, false, t, sizeof t);
  snprintf(line, sizeof line, "%s -> %s%s", s, t, c->implicit ? " (implicit)" : "");
  dump_add(d, line);
  return true;
}

/* One slot subtree as text: the elements of every array that neither evaluation nor a
 * connection fills (outputs, and arrays fed through a connection, may gain elements when a
 * failing call pulls first), every stored value and every lock. */
static void dump_slot(sinew_graph_t *g, const sinew__node *n, const sinew__attr *a, bool element,
                      const sinew__slot *s, sinew_plug_t *p, bool fed, dump_buf *d) {
  char name[256], line[600];
  sinew_plug_format(g, p, false, name, sizeof name);
  fed = fed || sinew__conn_to(g, p) != NULL;
  if (s->flags & SINEW__F_LOCKED) {
    snprintf(line, sizeof line, "  %s locked", name);
    dump_add(d, line);
  }
  if ((a->flags & SINEW_ATTR_ARRAY) && !element) {
    const sinew__multi *m = s->v.multi;
    if (!a->computed && !fed) {
      int used = snprintf(line, sizeof line, "  %s:", name);
      for (uint32_t i = 0; m && i < m->count && used < 500; i++)
        used += snprintf(line + used, sizeof line - (size_t)used, " %d", m->idx[i]);
      dump_add(d, line);
    }
    for (uint32_t i = 0; m && i < m->count; i++) {
      p->idx[p->nidx++] = m->idx[i];
      sinew__slot one = {.v.d = m->vals ? m->vals[i] : 0, .flags = m->vals ? m->eflags : 0};
      const sinew__slot *e = m->csr ? sinew__multi_csr_view(m, i) : m->vals ? &one : &m->elems[i];
      dump_slot(g, n, a, true, e, p, fed, d); /* packed or not, the same */
      p->nidx--;
    }
    return;
  }
  if (a->type == SINEW_ATTR_COMPOUND) {
    for (uint32_t i = 0; s->v.kids && i < a->nchildren; i++) {
      const sinew__attr *c = sinew__attr_get(g, n, a->children[i]);
      p->attr = c->id;
      dump_slot(g, n, c, false, &s->v.kids[i], p, fed, d);
      p->attr = a->id;
    }
    return;
  }
  if (!(s->flags & SINEW__F_SET)) return;
  if (sinew_attr_type_is_numeric(a->type)) snprintf(line, sizeof line, "  %s = %.17g", name, s->v.d);
  else if (a->type == SINEW_ATTR_STRING) snprintf(line, sizeof line, "  %s = \"%s\"", name, s->v.s ? s->v.s : "");
  else if (a->type == SINEW_ATTR_MATRIX && s->v.m)
    snprintf(line, sizeof line, "  %s = matrix %.17g %.17g", name, s->v.m->m[3][0], s->v.m->m[0][0]);
  else snprintf(line, sizeof line, "  %s set", name);
  dump_add(d, line);
}

/* The graph's structure as text: nodes, paths, attributes, array elements, stored values,
 * locks, connections. */
static void dump_graph(sinew_graph_t *g, dump_buf *d) {
  d->used = 0;
  d->text[0] = 0;
  char line[512];
  for (sinew_node_t it = {0, 0}; sinew_node_next(g, &it);) {
    char *path = sinew_node_path(g, it);
    snprintf(line, sizeof line, "%s (%s) attrs %u", path, sinew_node_type_name(sinew_node_type(g, it)),
             sinew_node_attr_count(g, it));
    sinew_free(path);
    dump_add(d, line);
    for (uint32_t id = 0; id < sinew_node_attr_count(g, it); id++) {
      sinew_attr_info_t info;
      if (sinew_node_attr_info(g, it, id, &info)) continue;
      if (info.flags & SINEW_ATTR_DYNAMIC) {
        snprintf(line, sizeof line, "  dyn %s children %u", info.name, info.child_count);
        dump_add(d, line);
      }
      if (info.parent != UINT32_MAX) continue;
      const sinew__node *n = sinew__node_get(g, it);
      const sinew__attr *a = sinew__attr_get(g, n, id);
      sinew_plug_t p = sinew_plug_make(it, id, 0, NULL);
      dump_slot(g, n, a, false, &n->slots[a->slot_index], &p, false, d);
    }
  }
  sinew_graph_t *gp = g;
  void *ud[2] = {&gp, d};
  sinew_foreach_connection(g, (sinew_node_t){0, 0}, true, dump_conn, ud);
}

static void fault_build(sinew_graph_t *g) {
  sinew_node_t a, r1, r2, j;
  assert_int_equal(sinew_node_create(g, "add", "a", &a), 0);
  mk(g, "add", "b");
  mk(g, "sum", "s");
  assert_int_equal(sinew_node_create(g, "xform", "r1", &r1), 0);
  assert_int_equal(sinew_node_create(g, "xform", "r2", &r2), 0);
  assert_int_equal(sinew_node_create_under(g, "xform", "j", r1, &j), 0);
  assert_int_equal(sinew_node_create_under(g, "xform", "j", r2, &j), 0);
  assert_int_equal(sinew_node_create_under(g, "xform", "leaf", j, &j), 0);
  conn(g, "a.out", "b.in");
  conn(g, "b.out", "s.ins[5]");
  conn(g, "a.out2", "s.wl[2].w[1]");
  conn(g, "|r2|j|leaf.wv[0]", "s.ins[6]");
  sinew_attr_desc_t aim[] = {{.name = "aim", .type = SINEW_ATTR_COMPOUND},
                             {.name = "aimX", .type = SINEW_ATTR_DOUBLE, .parent = "aim"}};
  assert_int_equal(sinew_node_add_attr(g, a, aim, 2), 0);
  sinew_attr_desc_t pts[] = {
      {.name = "pts", .type = SINEW_ATTR_COMPOUND, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY},
      {.name = "px", .type = SINEW_ATTR_DOUBLE, .parent = "pts"},
      {.name = "py", .type = SINEW_ATTR_DOUBLE, .parent = "pts", .has_min = true},
      {.name = "pz", .type = SINEW_ATTR_DOUBLE, .parent = "pts"}};
  assert_int_equal(sinew_node_add_attr(g, a, pts, 4), 0);
  setd(g, "s.ins[1]", 1);
  setd(g, "a.in", 2);
  setd(g, "r2.lv", 1);
  getd(g, "s.sum");
  setd(g, "a.in", 3); /* leave things dirty, so that operations have something to pull */
}

static sinew_node_t nodeh(sinew_graph_t *g, const char *name) {
  sinew_node_t n;
  assert_int_equal(sinew_node_find(g, name, &n), 0);
  return n;
}

static int op_add_attr(sinew_graph_t *g) {
  sinew_attr_desc_t more[] = {{.name = "aimY", .type = SINEW_ATTR_DOUBLE, .parent = "aim"},
                              {.name = "arr", .type = SINEW_ATTR_COMPOUND, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY},
                              {.name = "arrX", .type = SINEW_ATTR_DOUBLE, .parent = "arr"},
                              {.name = "mode2", .type = SINEW_ATTR_ENUM, .enum_fields = "a:b=4:c"}};
  return sinew_node_add_attr(g, nodeh(g, "a"), more, 4);
}
static int op_reparent(sinew_graph_t *g) { return sinew_node_set_parent(g, nodeh(g, "|r2|j"), nodeh(g, "r1")); }
static int op_unparent(sinew_graph_t *g) { return sinew_node_set_parent(g, nodeh(g, "leaf"), (sinew_node_t){0, 0}); }
static int op_rename(sinew_graph_t *g) { return sinew_node_rename(g, nodeh(g, "b"), "a"); }
static int op_rename_dag(sinew_graph_t *g) { return sinew_node_rename(g, nodeh(g, "|r1|j"), "r2"); }
static int op_disconnect(sinew_graph_t *g) {
  sinew_plug_t s = P(g, "a.out"), d = P(g, "b.in");
  return sinew_disconnect(g, &s, &d);
}
static int op_delete(sinew_graph_t *g) { return sinew_node_delete(g, nodeh(g, "a")); }
static int op_delete_dag(sinew_graph_t *g) { return sinew_node_delete(g, nodeh(g, "r2")); }
static int op_get_new_element(sinew_graph_t *g) {
  sinew_plug_t p = P(g, "s.outs[999]");
  double v;
  return sinew_get_double(g, &p, &v);
}
static void prep_get_elements(sinew_graph_t *g) {
  getd(g, "s.outs[3]");
  getd(g, "s.outs[4]");
  setd(g, "s.ins[2]", 2);
}
static int op_get_elements(sinew_graph_t *g) {
  sinew_plug_t p = P(g, "s.outs");
  return sinew_get_double_elements(g, &p, NULL, NULL, 0, NULL);
}
static int op_set_elements(sinew_graph_t *g) {
  sinew_plug_t w = P(g, "s.wl[100000].w");
  return sinew_set_double_elements(g, &w, (int32_t[]){0, 3, 7, 9, 11}, (double[]){.5, .25, .25, 1, 1}, 5);
}
static int op_connect_new_source(sinew_graph_t *g) {
  sinew_plug_t s = P(g, "s.outs[2]"), d = P(g, "|r1|j.lv");
  return sinew_connect(g, &s, &d, 0, NULL);
}
static int op_connect_force(sinew_graph_t *g) {
  sinew_plug_t s = P(g, "a.out2"), d = P(g, "s.ins[5]");
  return sinew_connect(g, &s, &d, SINEW_CONNECT_FORCE, NULL);
}
static int op_connect_na(sinew_graph_t *g) {
  sinew_plug_t s = P(g, "a.out"), d = P(g, "s.wl[9].w");
  return sinew_connect(g, &s, &d, SINEW_CONNECT_NEXT_AVAILABLE, NULL);
}
static int op_remove_element(sinew_graph_t *g) {
  sinew_plug_t e = P(g, "s.wl[2]");
  return sinew_plug_remove_element(g, &e);
}
static void prep_remove_attr(sinew_graph_t *g) { conn(g, "a.aimX", "s.ins[9]"); }
static int op_remove_attr(sinew_graph_t *g) {
  sinew_node_t a = nodeh(g, "a");
  return sinew_node_remove_attr(g, a, sinew_node_attr(g, a, "aim"));
}
/* Operations whose kept values need a pull that makes new elements (so it allocates). */
static void prep_array_dest(sinew_graph_t *g) {
  mk(g, "sum", "u");
  conn(g, "s.ins", "u.ins");
  conn(g, "s.wl[2].w", "u.wl[0].w");
  getd(g, "u.ins[1]");
  setd(g, "s.ins[7]", 7);
  setd(g, "s.ins[8]", 8);
  setd(g, "s.wl[2].w[5]", 5);
  setd(g, "s.wl[2].w[6]", 6);
}
static int op_disconnect_array(sinew_graph_t *g) {
  sinew_plug_t s = P(g, "s.ins"), d = P(g, "u.ins");
  return sinew_disconnect(g, &s, &d);
}
static int op_remove_source_element(sinew_graph_t *g) {
  sinew_plug_t e = P(g, "s.wl[2]");
  return sinew_plug_remove_element(g, &e);
}
static int op_delete_source(sinew_graph_t *g) { return sinew_node_delete(g, nodeh(g, "s")); }
static int op_set_string(sinew_graph_t *g) {
  sinew_plug_t p = P(g, "s.lb");
  return sinew_set_string(g, &p, "a label");
}
static int op_set_new_element(sinew_graph_t *g) {
  sinew_plug_t p = P(g, "s.wl[50].w[3]");
  return sinew_set_double(g, &p, 0.5);
}
static int op_set_existing(sinew_graph_t *g) {
  sinew_plug_t p = P(g, "s.ins[1]");
  return sinew_set_double(g, &p, 9);
}
static int op_set_doubles_new(sinew_graph_t *g) {
  sinew_plug_t p = P(g, "a.pts[4]");
  return sinew_set_doubles(g, &p, (double[]){1, 2, 3}, 3);
}
static int op_set_doubles_vec(sinew_graph_t *g) {
  sinew_plug_t p = P(g, "s.vec");
  return sinew_set_doubles(g, &p, (double[]){1, 2, 3}, 3);
}
static int op_set_matrix(sinew_graph_t *g) {
  sinew_plug_t p = P(g, "s.im");
  sinew_mat4_t m;
  sinew_mat4_identity(&m);
  m.m[3][0] = 4;
  return sinew_set_matrix(g, &p, &m);
}
static int op_connect_plain(sinew_graph_t *g) {
  sinew_plug_t s = P(g, "a.out"), d = P(g, "s.ins[20]");
  return sinew_connect(g, &s, &d, 0, NULL);
}
static int op_connect_nested(sinew_graph_t *g) {
  sinew_plug_t s = P(g, "b.out2"), d = P(g, "s.wl[7].w[2]");
  return sinew_connect(g, &s, &d, 0, NULL);
}
static int op_connect_compound(sinew_graph_t *g) {
  sinew_plug_t s = P(g, "s.vec"), d = P(g, "a.pts[8]");
  return sinew_connect(g, &s, &d, 0, NULL);
}
static int op_lock_new_element(sinew_graph_t *g) {
  sinew_plug_t p = P(g, "s.wl[60].w[1]");
  return sinew_plug_set_locked(g, &p, true);
}
static int op_dirty(sinew_graph_t *g) {
  sinew_plug_t p = P(g, "a.in");
  return sinew_dirty(g, &p);
}
static int op_create_named(sinew_graph_t *g) {
  sinew_node_t n;
  return sinew_node_create(g, "sum", "zz", &n);
}
static int op_create_taken(sinew_graph_t *g) {
  sinew_node_t n;
  return sinew_node_create(g, "add", "b", &n);
}
static const char *long_name(void) {
  static char name[401];
  for (size_t i = 0; i < sizeof name - 1; i++) name[i] = "longname"[i % 8];
  return name;
}
static int op_create_long(sinew_graph_t *g) {
  sinew_node_t n;
  return sinew_node_create(g, "add", long_name(), &n);
}
static int op_rename_long(sinew_graph_t *g) { return sinew_node_rename(g, nodeh(g, "b"), long_name()); }
static int op_create_auto(sinew_graph_t *g) {
  sinew_node_t n;
  return sinew_node_create(g, "add", NULL, &n);
}
static int op_create_under(sinew_graph_t *g) {
  sinew_node_t n;
  return sinew_node_create_under(g, "xform", "j", nodeh(g, "r1"), &n);
}

typedef struct fault_case {
  const char *name;
  int (*op)(sinew_graph_t *g);
  void (*prep)(sinew_graph_t *g); /* setup after the common build, not failed */
} fault_case;

static void test_alloc_failure_everywhere(void **state) {
  (void)state;
  const fault_case cases[] = {
      {"add_attr", op_add_attr, NULL},       {"reparent", op_reparent, NULL},
      {"unparent", op_unparent, NULL},       {"rename", op_rename, NULL},
      {"rename_dag", op_rename_dag, NULL},   {"disconnect", op_disconnect, NULL},
      {"delete", op_delete, NULL},           {"delete_dag", op_delete_dag, NULL},
      {"get_new_element", op_get_new_element, NULL}, {"get_elements", op_get_elements, prep_get_elements},
      {"set_elements", op_set_elements, NULL}, {"connect_new_source", op_connect_new_source, NULL},
      {"connect_force", op_connect_force, NULL}, {"connect_na", op_connect_na, NULL},
      {"remove_element", op_remove_element, NULL}, {"remove_attr", op_remove_attr, prep_remove_attr},
      {"set_string", op_set_string, NULL},
      {"disconnect_array", op_disconnect_array, prep_array_dest},
      {"remove_source_element", op_remove_source_element, prep_array_dest},
      {"delete_source", op_delete_source, prep_array_dest},   {"create_under", op_create_under, NULL},
      {"create_auto", op_create_auto, NULL}, {"set_new_element", op_set_new_element, NULL},
      {"set_existing", op_set_existing, NULL}, {"set_doubles_new", op_set_doubles_new, NULL},
      {"set_doubles_vec", op_set_doubles_vec, NULL}, {"set_matrix", op_set_matrix, NULL},
      {"connect_plain", op_connect_plain, NULL}, {"connect_nested", op_connect_nested, NULL},
      {"connect_compound", op_connect_compound, NULL}, {"lock_new_element", op_lock_new_element, NULL},
      {"dirty", op_dirty, NULL}, {"create_named", op_create_named, NULL},
      {"create_taken", op_create_taken, NULL}, {"create_long", op_create_long, NULL},
      {"rename_long", op_rename_long, NULL}};
  test_alloc_install();
  static dump_buf before, after;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    for (long k = 1;; k++) {
      sinew_graph_t *g;
      test_alloc_reset();
      assert_int_equal(sinew_graph_create(NULL, &g), 0);
      assert_int_equal(register_types(g), 0);
      fault_build(g);
      if (cases[c].prep) cases[c].prep(g);
      dump_graph(g, &before);
      long start = test_alloc_count();
      test_alloc_fail_at(start + k);
      int rc = cases[c].op(g);
      long used = test_alloc_count() - start;
      test_alloc_fail_at(0);
      if (rc && rc != SINEW_ENOMEM)
        fail_msg("%s, allocation %ld: %s (%s)", cases[c].name, k, sinew_err_name(rc), sinew_graph_errmsg(g));
      check_graph(g);
      if (rc) {
        if (sinew_graph_errcode(g) != SINEW_ENOMEM) fail_msg("%s: no error message", cases[c].name);
        dump_graph(g, &after);
        if (strcmp(before.text, after.text) != 0)
          fail_msg("%s, allocation %ld changed the graph:\n--- before\n%s--- after\n%s", cases[c].name, k,
                   before.text, after.text);
      }
      /* the graph still works: everything evaluates, and new nodes connect */
      for (sinew_node_t it = {0, 0}; sinew_node_next(g, &it);)
        for (uint32_t id = 0; id < sinew_node_attr_count(g, it); id++) {
          sinew_plug_t p = sinew_plug_make(it, id, 0, NULL);
          double v;
          if (!sinew_plug_is_array(g, &p) && sinew_get_double(g, &p, &v) == 0) assert_true(isfinite(v));
        }
      sinew_node_t n, m2;
      assert_int_equal(sinew_node_create(g, "add", NULL, &n), 0);
      if (rc) assert_string_equal(sinew_node_name(g, n), "add1"); /* no number was used up */
      assert_int_equal(sinew_node_create(g, "sum", NULL, &m2), 0);
      sinew_plug_t no = sinew_plug_make(n, A_OUT, 0, NULL), ni = sinew_plug_make(n, A_IN, 0, NULL);
      sinew_plug_t mi = sinew_plug_make(m2, S_INS, 1, (int32_t[]){3}), ms = sinew_plug_make(m2, S_SUM, 0, NULL);
      assert_int_equal(sinew_connect(g, &no, &mi, 0, NULL), 0);
      assert_int_equal(sinew_set_double(g, &ni, 4), 0);
      double v;
      assert_int_equal(sinew_get_double(g, &ms, &v), 0);
      assert_true(v == 4.0);
      check_graph(g);
      sinew_graph_destroy(g);
      if (test_alloc_live() != 0) fail_msg("%s, allocation %ld: %ld blocks leaked", cases[c].name, k, test_alloc_live());
      if (!rc && used < k) break; /* past every allocation of the call */
    }
  }
  test_alloc_uninstall();
}

/* ---- a propagation longer than its reservation ---------------------------------------------- */

/* "fan": items[i].itemOut = gain * items[i].itemIn. One change of gain dirties one plug per
 * existing element of items, many more than the computed attributes the propagation queue is
 * reserved for, so the queue must grow during the push. */
static uint32_t F_GAIN, F_ITEMS, F_IN, F_OUT;
enum { FAN_FED = 10 };

static int fan_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != F_OUT) return SINEW_EUNKNOWN_PLUG;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  double gain = 0, in = 0;
  sinew_plug_t pg = sinew_plug_make(n, F_GAIN, 0, NULL), pin = sinew_plug_make(n, F_IN, 1, plug->idx);
  sinew_get_double(g, &pg, &gain);
  sinew_get_double(g, &pin, &in);
  return sinew_compute_set_double(ctx, plug, gain * in);
}

static sinew_graph_t *fan_graph(int count) {
  static const sinew_attr_desc_t attrs[] = {
      {.name = "gain", .type = SINEW_ATTR_DOUBLE, .default_value = 1},
      {.name = "items", .type = SINEW_ATTR_COMPOUND, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY},
      {.name = "itemIn", .type = SINEW_ATTR_DOUBLE, .parent = "items"},
      {.name = "itemOut", .type = SINEW_ATTR_DOUBLE, .parent = "items", .flags = SINEW_ATTR_OUTPUT}};
  static const sinew_affects_t aff[] = {{"gain", "itemOut"}, {"itemIn", "itemOut"}};
  sinew_graph_t *g;
  const sinew_node_type_t *t;
  assert_int_equal(sinew_graph_create(NULL, &g), 0);
  sinew_node_type_desc_t d = {.name = "fan", .attrs = attrs, .attr_count = 4, .affects = aff,
                              .affects_count = 2, .compute = fan_compute};
  assert_int_equal(sinew_register_node_type(g, &d, &t), 0);
  assert_int_equal(register_types(g), 0);
  F_GAIN = sinew_node_type_attr(t, "gain");
  F_ITEMS = sinew_node_type_attr(t, "items");
  F_IN = sinew_node_type_attr(t, "itemIn");
  F_OUT = sinew_node_type_attr(t, "itemOut");
  sinew_node_t n;
  assert_int_equal(sinew_node_create(g, "fan", "f", &n), 0);
  /* itemOut of each new element is born dirty, so these sets queue almost nothing */
  for (int i = 0; i < count; i++) {
    sinew_plug_t in = sinew_plug_make(n, F_IN, 1, (int32_t[]){i});
    assert_int_equal(sinew_set_double(g, &in, i), 0);
  }
  /* the last elements, which a push reaches last, feed another node */
  sinew_node_t s;
  assert_int_equal(sinew_node_create(g, "sum", "s", &s), 0);
  for (int i = count - FAN_FED; i < count; i++) {
    sinew_plug_t out = sinew_plug_make(n, F_OUT, 1, (int32_t[]){i}), in = sinew_plug_make(s, S_INS, 1, (int32_t[]){i});
    assert_int_equal(sinew_connect(g, &out, &in, 0, NULL), 0);
  }
  return g;
}

static void fan_check(sinew_graph_t *g, int count, double gain, long k) {
  sinew_node_t n;
  assert_int_equal(sinew_node_find(g, "f", &n), 0);
  for (int i = 0; i < count; i++) {
    sinew_plug_t out = sinew_plug_make(n, F_OUT, 1, (int32_t[]){i});
    double v = NAN;
    assert_int_equal(sinew_get_double(g, &out, &v), 0);
    if (v != gain * i) fail_msg("allocation %ld: f.items[%d].itemOut is %g, expected %g", k, i, v, gain * i);
  }
  double sum = 0, want = 0;
  sinew_node_t s;
  assert_int_equal(sinew_node_find(g, "s", &s), 0);
  sinew_plug_t ps = sinew_plug_make(s, S_SUM, 0, NULL);
  assert_int_equal(sinew_get_double(g, &ps, &sum), 0);
  for (int i = count - FAN_FED; i < count; i++) want += gain * i;
  if (sum != want) fail_msg("allocation %ld: s.sum is %g, expected %g", k, sum, want);
}

static void test_push_beyond_reservation(void **state) {
  (void)state;
  enum { COUNT = 300 };
  test_alloc_install();
  bool grew = false;
  for (long k = 1;; k++) {
    test_alloc_reset();
    sinew_graph_t *g = fan_graph(COUNT);
    fan_check(g, COUNT, 1, k); /* everything clean */
    check_graph(g);
    sinew_node_t n;
    assert_int_equal(sinew_node_find(g, "f", &n), 0);
    sinew_plug_t gain = sinew_plug_make(n, F_GAIN, 0, NULL);
    sinew_graph_reset_stats(g);
    long start = test_alloc_count();
    test_alloc_fail_at(start + k);
    int rc = sinew_set_double(g, &gain, 2);
    long used = test_alloc_count() - start;
    test_alloc_fail_at(0);
    sinew_graph_stats_t st;
    sinew_graph_stats(g, &st);
    check_graph(g);
    if (rc) {
      assert_int_equal(rc, SINEW_ENOMEM);
      assert_int_equal(st.dirtied, 0);
      fan_check(g, COUNT, 1, k); /* refused before anything changed */
    } else {
      /* every element's output and what they feed (s.ins[i], s.sum), none lost */
      assert_int_equal(st.dirtied, COUNT + FAN_FED + 1);
      fan_check(g, COUNT, 2, k);
      grew |= used > 0;
    }
    sinew_graph_destroy(g);
    assert_int_equal(test_alloc_live(), 0);
    if (!rc && used < k) break; /* past every allocation of the set */
  }
  assert_true(grew); /* the queue did have to grow during the push */
  test_alloc_uninstall();
}

/* A call that has made its change does not fail afterwards: connecting reserved the propagation
 * queue for the connections there were, and the dirt pushed after the new connection needed
 * room for one more. With 16 connections and nothing computed, the queue's 32 places are exactly
 * full, so the 17th connection is the one to try. */
static void test_connect_commit_cannot_fail(void **state) {
  (void)state;
  static const sinew_attr_desc_t attrs[] = {
      {.name = "o", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT},
      {.name = "ins", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY}};
  test_alloc_install();
  for (long k = 1;; k++) {
    test_alloc_reset();
    sinew_graph_t *g;
    assert_int_equal(sinew_graph_create(NULL, &g), 0);
    sinew_node_type_desc_t d = {.name = "plain", .attrs = attrs, .attr_count = 2};
    const sinew_node_type_t *t;
    assert_int_equal(sinew_register_node_type(g, &d, &t), 0);
    uint32_t o = sinew_node_type_attr(t, "o"), ins = sinew_node_type_attr(t, "ins");
    sinew_node_t a, b;
    assert_int_equal(sinew_node_create(g, "plain", "a", &a), 0);
    assert_int_equal(sinew_node_create(g, "plain", "b", &b), 0);
    sinew_plug_t src = sinew_plug_make(a, o, 0, NULL);
    for (int i = 0; i < 16; i++) {
      sinew_plug_t dst = sinew_plug_make(b, ins, 1, (int32_t[]){i});
      assert_int_equal(sinew_connect(g, &src, &dst, 0, NULL), 0);
    }
    sinew_plug_t dst = sinew_plug_make(b, ins, 1, (int32_t[]){16});
    long start = test_alloc_count();
    test_alloc_fail_at(start + k);
    int rc = sinew_connect(g, &src, &dst, 0, NULL);
    long used = test_alloc_count() - start;
    test_alloc_fail_at(0);
    sinew_graph_stats_t st;
    sinew_graph_stats(g, &st);
    check_graph(g);
    if (rc) {
      assert_int_equal(rc, SINEW_ENOMEM);
      if (st.connections != 16) fail_msg("allocation %ld: ENOMEM, but the connection was made", k);
      assert_false(sinew_plug_source(g, &dst, NULL));
    } else {
      assert_int_equal(st.connections, 17);
      assert_true(sinew_plug_source(g, &dst, NULL));
    }
    sinew_graph_destroy(g);
    assert_int_equal(test_alloc_live(), 0);
    if (!rc && used < k) break;
  }
  test_alloc_uninstall();
}

/* ---- randomised operations against a reference model ---------------------------------------- */

/* Plugs of the model graph: three "add" nodes a, b, c (in, bias, out, out2) and two "sum" nodes
 * s, t (ins[0..2], vx, vy, vz, sum, len, outs[0..2]). Connections only run from a node to a later
 * one, so the model never has a cycle. */
enum { M_ADD = 4, M_SUM = 11, M_NPLUGS = 3 * M_ADD + 2 * M_SUM };
static const char *m_nodes[] = {"a", "b", "c", "s", "t"};
static const char *m_add_attrs[] = {"in", "bias", "out", "out2"};
static const char *m_sum_attrs[] = {"ins[0]", "ins[1]", "ins[2]", "vx", "vy", "vz", "sum", "len",
                                    "outs[0]", "outs[1]", "outs[2]"};

static int m_node_of(int id) { return id < 3 * M_ADD ? id / M_ADD : 3 + (id - 3 * M_ADD) / M_SUM; }
static int m_local(int id) { return id < 3 * M_ADD ? id % M_ADD : (id - 3 * M_ADD) % M_SUM; }
static int m_id(int node, int local) { return node < 3 ? node * M_ADD + local : 3 * M_ADD + (node - 3) * M_SUM + local; }
static bool m_is_output(int id) {
  int l = m_local(id);
  return m_node_of(id) < 3 ? l >= 2 : l >= 6;
}
static void m_name(int id, char *buf, size_t n) {
  int node = m_node_of(id), l = m_local(id);
  snprintf(buf, n, "%s.%s", m_nodes[node], node < 3 ? m_add_attrs[l] : m_sum_attrs[l]);
}

typedef struct model {
  double stored[M_NPLUGS];
  int src[M_NPLUGS];
  bool vec_conn; /* s.vec -> t.vec */
  bool arr_conn; /* s.ins -> t.ins, whole arrays */
} model;

/* Is t's plug fed through a connected parent (t.vec or the whole t.ins)? */
static bool m_under(const model *m, int id) {
  int l = m_local(id);
  if (m_node_of(id) != 4) return false;
  return (l >= 3 && l <= 5 && m->vec_conn) || (l <= 2 && m->arr_conn);
}

static double m_eval(const model *m, int id) {
  int node = m_node_of(id), l = m_local(id);
  if (!m_is_output(id)) {
    if (m->src[id] >= 0) return m_eval(m, m->src[id]);
    if (m_under(m, id)) return m_eval(m, m_id(3, l));
    return m->stored[id];
  }
  if (node < 3) {
    double v = m_eval(m, m_id(node, 0)) + m_eval(m, m_id(node, 1));
    return l == 2 ? v : 2 * v;
  }
  if (l == 6) return m_eval(m, m_id(node, 0)) + m_eval(m, m_id(node, 1)) + m_eval(m, m_id(node, 2));
  if (l == 7) {
    double x = m_eval(m, m_id(node, 3)), y = m_eval(m, m_id(node, 4)), z = m_eval(m, m_id(node, 5));
    return sqrt(x * x + y * y + z * z);
  }
  return 10.0 * (l - 8) + m_eval(m, m_id(node, l - 8));
}

static uint64_t lcg_state;
static uint32_t lcg(uint32_t n) {
  lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(lcg_state >> 33) % n;
}

static void m_check_value(sinew_graph_t *g, const model *m, int id, int step) {
  char name[64];
  m_name(id, name, sizeof name);
  double want = m_eval(m, id), got = getd(g, name);
  if (fabs(got - want) > 1e-9 * (1 + fabs(want)))
    fail_msg("step %d: %s is %g, the model says %g", step, name, got, want);
  sinew_plug_t p = P(g, name);
  if (sinew_plug_is_dirty(g, &p)) fail_msg("step %d: %s still dirty after a read", step, name);
}

/* Breaks the connection into dst in the model; the destination keeps the value it had. */
static void m_disconnect(model *m, int dst) {
  m->stored[dst] = m_eval(m, dst);
  m->src[dst] = -1;
}

static void m_disconnect_vec(model *m) {
  for (int k = 3; k <= 5; k++) m->stored[m_id(4, k)] = m_eval(m, m_id(3, k));
  m->vec_conn = false;
}

static void m_disconnect_arr(model *m) {
  for (int k = 0; k <= 2; k++) m->stored[m_id(4, k)] = m_eval(m, m_id(3, k));
  m->arr_conn = false;
}

/* ---- the order of connections (graph/order.c) ------------------------------------------------ */

/* Random edits (connect with and without force, disconnect, delete, parent, transactions rolled
 * back, steps undone and redone): every connect is refused for a cycle exactly when the full
 * search finds one, and after each edit the order holds every connection, labels increasing
 * along every edge the search follows. */
static const char *const order_plugs[3][8] = {
    {"in", "b", "out", "out2", "unh", NULL},
    {"ins[0]", "ins[1]", "vec", "vx", "vy", "sum", "len", "outs[1]"},
    {"lv", "pv", "wv[0]", "wv[1]", NULL}};
static const char *const order_types[3] = {"add", "sum", "xform"};

static void order_verify(sinew_graph_t *g, int step) {
  int rc = sinew__order_verify(g);
  if (rc) fail_msg("step %d: the order is broken (%s)", step, sinew_err_name(rc));
  if (g->order.repairs) fail_msg("step %d: the full search overruled the order", step);
}

static void test_order_random_edits(void **state) {
  sinew_graph_t *g = *state;
  enum { NN = 12 };
  sinew_node_t nodes[NN];
  int kinds[NN];
  char name[32];
  for (int i = 0; i < NN; i++) {
    kinds[i] = i % 3;
    snprintf(name, sizeof name, "n%d", i);
    nodes[i] = mk(g, order_types[kinds[i]], name);
  }
  lcg_state = 777;
  int cycles = 0, made = 0, reordered = 0;
  for (int step = 0; step < 6000; step++) {
    uint32_t op = lcg(100);
    int a = (int)lcg(NN), b = (int)lcg(NN);
    if (!sinew_node_valid(g, nodes[a])) { /* deleted: make it again */
      snprintf(name, sizeof name, "n%d", a);
      nodes[a] = mk(g, order_types[kinds[a]], name);
      continue;
    }
    if (op < 55) {
      const char *sa, *da;
      do sa = order_plugs[kinds[a]][lcg(8)]; while (!sa);
      do da = order_plugs[kinds[b]][lcg(8)]; while (!da);
      if (!sinew_node_valid(g, nodes[b])) continue;
      sinew_plug_t ps, pd;
      assert_int_equal(sinew_plug_parse_attr(g, nodes[a], sa, &ps), 0);
      assert_int_equal(sinew_plug_parse_attr(g, nodes[b], da, &pd), 0);
      bool full = sinew__cycle_search(g, &ps, &pd, "connectAttr") == SINEW_ECYCLE;
      char full_msg[sizeof g->errmsg];
      snprintf(full_msg, sizeof full_msg, "%s", sinew_graph_errmsg(g));
      uint64_t before = g->order.head ? g->order.head->ord : 0;
      int rc = sinew_connect(g, &ps, &pd, lcg(2) ? SINEW_CONNECT_FORCE : 0, NULL);
      if (rc == SINEW_ECYCLE) {
        if (!full) fail_msg("step %d: %s.%s -> %s.%s refused, no cycle", step, sinew_node_name(g, nodes[a]), sa,
                            sinew_node_name(g, nodes[b]), da);
        assert_string_equal(sinew_graph_errmsg(g), full_msg);
        cycles++;
      } else if (rc == SINEW_OK) {
        if (full) fail_msg("step %d: %s -> %s made: %s", step, sa, da, full_msg);
        made++;
        reordered += g->order.head && g->order.head->ord != before;
      }
    } else if (op < 68) { /* break one of a node's connections */
      sinew_connection_t got = {0};
      bool any = false;
      sinew__node *n = sinew__node_get(g, nodes[a]);
      for (uint32_t i = 0; i < n->nconns && !any; i++)
        if (!n->conns[i]->implicit) {
          got = (sinew_connection_t){n->conns[i]->src, n->conns[i]->dst, false};
          any = true;
        }
      if (any) assert_int_equal(sinew_disconnect(g, &got.src, &got.dst), 0);
    } else if (op < 72) {
      assert_int_equal(sinew_node_delete(g, nodes[a]), 0);
    } else if (op < 82) { /* parent one xform under another, or under the world */
      if (kinds[a] != 2 || kinds[b] != 2 || !sinew_node_valid(g, nodes[b])) continue;
      int rc = sinew_node_set_parent(g, nodes[a], lcg(4) ? nodes[b] : (sinew_node_t){0, 0});
      if (rc && rc != SINEW_ECYCLE) fail_msg("step %d: parent: %s", step, sinew_graph_errmsg(g));
    } else if (op < 90) { /* a transaction: some edits, then rolled back or committed */
      if (sinew_graph_in_transaction(g)) {
        if (lcg(2)) assert_int_equal(sinew_graph_rollback(g), 0);
        else assert_int_equal(sinew_graph_commit(g), 0);
      } else {
        assert_int_equal(sinew_graph_begin(g), 0);
      }
    } else if (op < 94 && sinew_graph_in_transaction(g) == 1) { /* a step undone, redone, undone */
      sinew_change_t *ch = NULL;
      assert_int_equal(sinew_graph_commit_step(g, &ch), 0);
      assert_int_equal(sinew_change_undo(g, ch), 0);
      order_verify(g, step);
      assert_int_equal(sinew_change_redo(g, ch), 0);
      order_verify(g, step);
      if (lcg(2)) assert_int_equal(sinew_change_undo(g, ch), 0);
      sinew_change_free(g, ch);
    }
    order_verify(g, step);
  }
  while (sinew_graph_in_transaction(g)) assert_int_equal(sinew_graph_rollback(g), 0);
  order_verify(g, -1);
  /* the walk saw all three outcomes */
  assert_true(cycles > 50);
  assert_true(made > 500);
  assert_true(reordered > 10);
}

/* A cycle is refused with the path the full search names, whatever the order had to do. */
static void test_order_cycle_message(void **state) {
  sinew_graph_t *g = *state;
  mk(g, "add", "a");
  mk(g, "add", "b");
  mk(g, "add", "c");
  sinew_plug_t aout = P(g, "a.out"), bin = P(g, "b.in"), bout = P(g, "b.out"), cin = P(g, "c.in");
  sinew_plug_t cout = P(g, "c.out"), ain = P(g, "a.in"), abias = P(g, "a.b");
  /* made last to first, so that the order has to move what it holds to refuse nothing */
  assert_int_equal(sinew_connect(g, &bout, &cin, 0, NULL), 0);
  assert_int_equal(sinew_connect(g, &aout, &bin, 0, NULL), 0);
  assert_int_equal(sinew__order_verify(g), 0);
  assert_int_equal(sinew_connect(g, &cout, &ain, 0, NULL), SINEW_ECYCLE);
  assert_string_equal(sinew_graph_errmsg(g),
                      "connectAttr: c.output -> a.input: would create a cycle through c <- b <- a");
  assert_int_equal(sinew_connect(g, &cout, &abias, 0, NULL), SINEW_ECYCLE);
  /* c.unhandled is not fed by anything a feeds: allowed, the order moves */
  sinew_plug_t cunh = P(g, "c.unh"), bbias = P(g, "b.b");
  mk(g, "add", "d");
  sinew_plug_t dout = P(g, "d.out"), din = P(g, "d.in");
  assert_int_equal(sinew_connect(g, &dout, &abias, 0, NULL), 0);
  assert_int_equal(sinew_connect(g, &cunh, &din, 0, NULL), SINEW_ECYCLE); /* c.unh <- c.in <- ... <- a <- d */
  assert_int_equal(sinew_connect(g, &bout, &bbias, 0, NULL), SINEW_ECYCLE);
  assert_int_equal(sinew__order_verify(g), 0);
  assert_int_equal(g->order.repairs, 0);
}

/* Random parenting and deleting against a plain walk of the hierarchy: parenting is refused
 * exactly when the new parent is the node or below it (the parent check walks up and down at
 * once), and delete_many takes exactly the union of the listed subtrees (roots listed twice or
 * inside each other). The order of connections stays right through the implicit links. */
static bool naive_above(sinew_graph_t *g, sinew_node_t x, sinew_node_t p) {
  for (sinew_node_t y = p; y.gen; y = sinew_node_parent(g, y))
    if (y.index == x.index) return true;
  return false;
}

static void test_hierarchy_random(void **state) {
  sinew_graph_t *g = *state;
  enum { NN = 40 };
  sinew_node_t nodes[NN];
  char name[32];
  for (int i = 0; i < NN; i++) {
    snprintf(name, sizeof name, "x%d", i);
    nodes[i] = mk(g, "xform", name);
  }
  lcg_state = 4242;
  int refused = 0, moved = 0, deleted = 0;
  for (int step = 0; step < 4000; step++) {
    for (int i = 0; i < NN; i++)
      if (!sinew_node_valid(g, nodes[i])) {
        snprintf(name, sizeof name, "x%d", i);
        nodes[i] = mk(g, "xform", name);
      }
    if (lcg(10) < 8) {
      int a = (int)lcg(NN), b = (int)lcg(NN);
      sinew_node_t p = lcg(8) ? nodes[b] : (sinew_node_t){0, 0};
      bool cycle = p.gen && naive_above(g, nodes[a], p);
      int rc = sinew_node_set_parent(g, nodes[a], p);
      if (cycle) {
        assert_int_equal(rc, SINEW_ECYCLE);
        assert_non_null(strstr(sinew_graph_errmsg(g), a == b ? "its own self" : "its own descendant"));
        refused++;
      } else {
        if (rc) fail_msg("step %d: parent: %s", step, sinew_graph_errmsg(g));
        assert_int_equal(sinew_node_parent(g, nodes[a]).index, p.gen ? p.index : 0);
        moved++;
      }
    } else {
      sinew_node_t list[4];
      size_t n = 1 + lcg(4);
      for (size_t k = 0; k < n; k++) list[k] = nodes[lcg(NN)];
      bool gone[NN];
      for (int i = 0; i < NN; i++) {
        gone[i] = false;
        for (size_t k = 0; k < n; k++) gone[i] |= naive_above(g, list[k], nodes[i]);
      }
      assert_int_equal(sinew_node_delete_many(g, list, n), SINEW_OK);
      for (int i = 0; i < NN; i++) assert_int_equal(sinew_node_valid(g, nodes[i]), !gone[i]);
      deleted++;
    }
    order_verify(g, step);
  }
  assert_true(refused > 100 && moved > 1000 && deleted > 300);
}

/* Labels running out: a chain whose links are made from both ends inwards, each new link going
 * between the first one and the last one made, halves one gap again and again, so the
 * order-maintenance list relabels ever larger blocks. The order stays right, and a link closing
 * the chain into a loop is still refused. */
static void test_order_dense_labels(void **state) {
  sinew_graph_t *g = *state;
  enum { N = 3000 };
  sinew_node_t *n = malloc((N + 1) * sizeof *n);
  assert_non_null(n);
  char name[32];
  for (int i = 0; i <= N; i++) {
    snprintf(name, sizeof name, "d%d", i);
    n[i] = mk(g, "add", name);
  }
  sinew_plug_t out = P(g, "d0.out"), in = P(g, "d0.in");
  for (int k = 0; k < N; k++) {
    int i = k == 0 ? 0 : N - k; /* the first link, then from the far end inwards */
    out.node = n[i];
    in.node = n[i + 1];
    assert_int_equal(sinew_connect(g, &out, &in, 0, NULL), 0);
    if (k % 500 == 0) assert_int_equal(sinew__order_verify(g), 0);
  }
  assert_int_equal(sinew__order_verify(g), 0);
  uint64_t prev = 0;
  for (int i = 0; i < N; i++) { /* the links in chain order: labels increase */
    in.node = n[i + 1];
    sinew__conn *c = sinew__conn_to(g, &in);
    assert_non_null(c);
    assert_true(c->ord > prev);
    prev = c->ord;
  }
  out.node = n[N];
  in.node = n[0];
  assert_int_equal(sinew_connect(g, &out, &in, 0, NULL), SINEW_ECYCLE);
  assert_int_equal(g->order.repairs, 0);
  free(n);
}

/* Out of memory in the order's search (its first one: the scratch is allocated then) or
 * rebuild: the connect fails with SINEW_ENOMEM and changes nothing, the order included. */
static void test_order_out_of_memory(void **state) {
  (void)state;
  test_alloc_install();
  for (int stale = 0; stale < 2; stale++) {
    sinew_graph_t *g;
    assert_int_equal(sinew_graph_create(NULL, &g), 0);
    assert_int_equal(register_types(g), 0);
    for (const char *const *nm = (const char *const[]){"a", "b", "y", "z", NULL}; *nm; nm++) mk(g, "add", *nm);
    conn(g, "y.out", "z.in"); /* first: lowest label */
    conn(g, "a.out", "b.in"); /* then: above it */
    g->order.stale = stale; /* as a journal relink that did not fit leaves it: rebuilt first */
    size_t before = g->nconnections;
    sinew_plug_t src = P(g, "b.out"), dst = P(g, "y.in"); /* after a -> b, before y -> z */
    for (long n = 1;; n++) {
      test_alloc_reset();
      test_alloc_fail_at(n);
      int rc = sinew_connect(g, &src, &dst, 0, NULL);
      test_alloc_fail_at(0);
      if (rc == SINEW_OK) break;
      assert_int_equal(rc, SINEW_ENOMEM);
      assert_int_equal(g->nconnections, before);
      assert_int_equal(sinew__order_verify(g), 0);
      if (n > 1000) fail_msg("never succeeded");
    }
    assert_int_equal(sinew__order_verify(g), 0);
    assert_int_equal(g->order.repairs, 0);
    sinew_graph_destroy(g);
  }
  assert_int_equal(test_alloc_live(), 0);
  test_alloc_uninstall();
}

static void test_random_against_model(void **state) {
  sinew_graph_t *g = *state;
  for (int i = 0; i < 3; i++) mk(g, "add", m_nodes[i]);
  mk(g, "sum", "s");
  mk(g, "sum", "t");
  static model m;
  for (int i = 0; i < M_NPLUGS; i++) {
    m.src[i] = -1;
    m.stored[i] = m_node_of(i) >= 3 && m_local(i) == 5 ? 1.0 : 0.0; /* vz defaults to 1 */
  }
  m.vec_conn = m.arr_conn = false;
  lcg_state = 12345;
  char sb[64], db[64];
  for (int step = 0; step < 3000; step++) {
    uint32_t op = lcg(100);
    if (op < 25) { /* set an input */
      int id;
      do id = (int)lcg(M_NPLUGS); while (m_is_output(id));
      double v = (double)lcg(9) - 3;
      m_name(id, db, sizeof db);
      sinew_plug_t p = P(g, db);
      int rc = sinew_set_double(g, &p, v);
      bool fed = m.src[id] >= 0 || m_under(&m, id);
      if (fed) {
        if (rc != SINEW_ECONNECTED) fail_msg("step %d: set %s: %s, expected ECONNECTED", step, db, sinew_err_name(rc));
      } else {
        if (rc) fail_msg("step %d: set %s: %s", step, db, sinew_graph_errmsg(g));
        m.stored[id] = v;
      }
    } else if (op < 30) { /* set a whole vector */
      int node = 3 + (int)lcg(2);
      double v[3] = {(double)lcg(5), (double)lcg(5), (double)lcg(5)};
      snprintf(db, sizeof db, "%s.vec", m_nodes[node]);
      sinew_plug_t p = P(g, db);
      int rc = sinew_set_doubles(g, &p, v, 3);
      bool fed = node == 4 && m.vec_conn;
      for (int k = 3; k <= 5; k++) fed |= m.src[m_id(node, k)] >= 0;
      if (fed) {
        if (rc != SINEW_ECONNECTED) fail_msg("step %d: set %s: %s, expected ECONNECTED", step, db, sinew_err_name(rc));
      } else {
        if (rc) fail_msg("step %d: set %s: %s", step, db, sinew_graph_errmsg(g));
        for (int k = 0; k < 3; k++) m.stored[m_id(node, 3 + k)] = v[k];
      }
    } else if (op < 50) { /* connect */
      int src, dst;
      do {
        src = (int)lcg(M_NPLUGS);
        dst = (int)lcg(M_NPLUGS);
      } while (m_is_output(dst) || m_node_of(src) >= m_node_of(dst));
      bool force = lcg(2);
      m_name(src, sb, sizeof sb);
      m_name(dst, db, sizeof db);
      sinew_plug_t ps = P(g, sb), pd = P(g, db);
      int rc = sinew_connect(g, &ps, &pd, force ? SINEW_CONNECT_FORCE : 0, NULL);
      bool under = m_under(&m, dst);
      if (m.src[dst] == src) {
        if (rc) fail_msg("step %d: reconnect %s -> %s: %s", step, sb, db, sinew_graph_errmsg(g));
      } else if ((m.src[dst] >= 0 || under) && !force) {
        if (rc != SINEW_ECONNECTED) fail_msg("step %d: connect %s -> %s: %s, expected ECONNECTED", step, sb, db, sinew_err_name(rc));
      } else {
        if (rc) fail_msg("step %d: connect %s -> %s: %s", step, sb, db, sinew_graph_errmsg(g));
        if (under && m_local(dst) >= 3) m_disconnect_vec(&m);
        if (under && m_local(dst) <= 2) m_disconnect_arr(&m);
        m.src[dst] = src;
      }
    } else if (op < 55) { /* connect the vectors, or the whole arrays */
      bool force = lcg(2), arrays = lcg(2);
      sinew_plug_t ps = P(g, arrays ? "s.ins" : "s.vec"), pd = P(g, arrays ? "t.ins" : "t.vec");
      int rc = sinew_connect(g, &ps, &pd, force ? SINEW_CONNECT_FORCE : 0, NULL);
      int first = arrays ? 0 : 3;
      bool kids = false, *flag = arrays ? &m.arr_conn : &m.vec_conn;
      for (int k = first; k < first + 3; k++) kids |= m.src[m_id(4, k)] >= 0;
      if (*flag) {
        if (rc) fail_msg("step %d: reconnect %d: %s", step, arrays, sinew_graph_errmsg(g));
      } else if (kids && !force) {
        if (rc != SINEW_ECONNECTED) fail_msg("step %d: connect %d: %s, expected ECONNECTED", step, arrays, sinew_err_name(rc));
      } else {
        if (rc) fail_msg("step %d: connect %d: %s", step, arrays, sinew_graph_errmsg(g));
        for (int k = first; k < first + 3; k++)
          if (m.src[m_id(4, k)] >= 0) m_disconnect(&m, m_id(4, k));
        *flag = true;
      }
    } else if (op < 65) { /* disconnect something */
      if (m.vec_conn && lcg(4) == 0) {
        sinew_plug_t ps = P(g, "s.vec"), pd = P(g, "t.vec");
        assert_int_equal(sinew_disconnect(g, &ps, &pd), 0);
        m_disconnect_vec(&m);
      } else if (m.arr_conn && lcg(4) == 0) {
        sinew_plug_t ps = P(g, "s.ins"), pd = P(g, "t.ins");
        assert_int_equal(sinew_disconnect(g, &ps, &pd), 0);
        m_disconnect_arr(&m);
      } else {
        int dst = (int)lcg(M_NPLUGS);
        if (m_is_output(dst)) continue;
        int src = m.src[dst] >= 0 ? m.src[dst] : (int)lcg(M_NPLUGS);
        m_name(src, sb, sizeof sb);
        m_name(dst, db, sizeof db);
        sinew_plug_t ps = P(g, sb), pd = P(g, db);
        int rc = sinew_disconnect(g, &ps, &pd);
        if (m.src[dst] == src) {
          if (rc) fail_msg("step %d: disconnect %s -> %s: %s", step, sb, db, sinew_graph_errmsg(g));
          m_disconnect(&m, dst);
        } else if (rc != SINEW_ENOTCONNECTED) {
          fail_msg("step %d: disconnect %s -> %s: %s, expected ENOTCONNECTED", step, sb, db, sinew_err_name(rc));
        }
      }
    } else if (op < 70) { /* remove an element of ins */
      int node = 3 + (int)lcg(2), id = m_id(node, (int)lcg(3));
      m_name(id, db, sizeof db);
      sinew_plug_t p = P(g, db);
      int rc = sinew_plug_remove_element(g, &p);
      if (m_under(&m, id)) {
        if (rc != SINEW_ECONNECTED) fail_msg("step %d: remove %s: %s, expected ECONNECTED", step, db, sinew_err_name(rc));
        continue;
      }
      if (rc && rc != SINEW_ENOTFOUND) fail_msg("step %d: remove %s: %s", step, db, sinew_graph_errmsg(g));
      for (int d = 0; d < M_NPLUGS; d++)
        if (m.src[d] == id) m_disconnect(&m, d);
      m.src[id] = -1;
      m.stored[id] = 0;
    } else if (op < 75) { /* dgdirty */
      int id = (int)lcg(M_NPLUGS);
      m_name(id, db, sizeof db);
      sinew_plug_t p = P(g, db);
      assert_int_equal(sinew_dirty(g, &p), 0);
    } else if (op < 78) { /* read a whole array: inputs (maybe fed) or computed outputs */
      int node = 3 + (int)lcg(2), first = lcg(2) ? 0 : 8;
      snprintf(db, sizeof db, "%s.%s", m_nodes[node], first ? "outs" : "ins");
      sinew_plug_t arr = P(g, db);
      int32_t idx[8];
      double vals[8];
      size_t n = 0;
      assert_int_equal(sinew_get_double_elements(g, &arr, idx, vals, 8, &n), 0);
      for (size_t k = 0; k < n && k < 8; k++) {
        assert_true(idx[k] >= 0 && idx[k] <= 2);
        double want = m_eval(&m, m_id(node, first + idx[k]));
        if (vals[k] != want) fail_msg("step %d: %s[%d] is %g, the model says %g", step, db, idx[k], vals[k], want);
      }
    } else if (op < 80) { /* read a vector whole */
      int node = 3 + (int)lcg(2);
      snprintf(db, sizeof db, "%s.vec", m_nodes[node]);
      double v[3];
      getv(g, db, v);
      for (int k = 0; k < 3; k++)
        if (v[k] != m_eval(&m, m_id(node, 3 + k)))
          fail_msg("step %d: %s[%d] is %g, the model says %g", step, db, k, v[k], m_eval(&m, m_id(node, 3 + k)));
    } else { /* read one plug */
      m_check_value(g, &m, (int)lcg(M_NPLUGS), step);
    }
    check_graph(g);
    if (step % 500 == 499)
      for (int id = 0; id < M_NPLUGS; id++) m_check_value(g, &m, id, step);
  }
}

/* ---- placeholders: what a plug's value depends on that the graph does not evaluate ---------- */

/* "ph" stands in for an unknown type (the flag a session sets on the types it makes for a file);
 * "msgUser" has a message input that takes part in its affects; "loop" declares a -> b and
 * b -> a, a cycle inside one type that connections could not make. */
static const sinew_attr_desc_t ph_attrs[] = {
    {.name = "value", .short_name = "v", .type = SINEW_ATTR_DOUBLE},
    {.name = "phIn", .type = SINEW_ATTR_DOUBLE}};
static const sinew_attr_desc_t mu_attrs[] = {
    {.name = "link", .type = SINEW_ATTR_MESSAGE},
    {.name = "val", .type = SINEW_ATTR_DOUBLE},
    {.name = "res", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT}};
static const sinew_affects_t mu_affects[] = {{"link", "res"}, {"val", "res"}};
static const sinew_attr_desc_t loop_attrs[] = {
    {.name = "la", .type = SINEW_ATTR_DOUBLE}, {.name = "lb", .type = SINEW_ATTR_DOUBLE}};
static const sinew_affects_t loop_affects[] = {{"la", "lb"}, {"lb", "la"}};

static void register_placeholder_types(sinew_graph_t *g) {
  sinew_node_type_desc_t ph = {.name = "ph", .flags = SINEW_NODE_TYPE_PLACEHOLDER, .attrs = ph_attrs,
                               .attr_count = 2};
  sinew_node_type_desc_t mu = {.name = "msgUser", .attrs = mu_attrs, .attr_count = 3,
                               .affects = mu_affects, .affects_count = 2};
  sinew_node_type_desc_t lp = {.name = "loop", .attrs = loop_attrs, .attr_count = 2,
                               .affects = loop_affects, .affects_count = 2};
  assert_int_equal(sinew_register_node_type(g, &ph, NULL), 0);
  assert_int_equal(sinew_register_node_type(g, &mu, NULL), 0);
  assert_int_equal(sinew_register_node_type(g, &lp, NULL), 0);
  assert_true(sinew_node_type_flags(sinew_find_node_type(g, "ph")) & SINEW_NODE_TYPE_PLACEHOLDER);
}

/* The placeholder nodes text's value depends on, as a comma-separated list of names ("" for
 * none), checked against the count and the bool query. */
static const char *ph_of(sinew_graph_t *g, const char *text) {
  static char buf[256];
  sinew_plug_t p = P(g, text);
  sinew_node_t out[8];
  size_t n = 99;
  int rc = sinew_plug_placeholders(g, &p, out, 8, &n);
  if (rc) fail_msg("placeholders of %s: %s", text, sinew_graph_errmsg(g));
  assert_true(n <= 8);
  assert_int_equal(sinew_plug_depends_on_placeholder(g, &p), n > 0);
  buf[0] = 0;
  for (size_t k = 0; k < n; k++) {
    strcat(buf, k ? "," : "");
    strcat(buf, sinew_node_name(g, out[k]));
  }
  return buf;
}

static void test_placeholders_upstream(void **state) {
  sinew_graph_t *g = *state;
  register_placeholder_types(g);
  /* ph1.v -> a1.in; a1.out -> a2.bias: a2.output reaches ph1 through two affects relations
   * (bias -> output on a2, in -> output on a1) and two connections */
  mk(g, "ph", "ph1");
  mk(g, "add", "a1");
  mk(g, "add", "a2");
  conn(g, "ph1.v", "a1.in");
  conn(g, "a1.out", "a2.bias");
  assert_string_equal(ph_of(g, "a2.output"), "ph1");
  assert_string_equal(ph_of(g, "a2.output2"), "ph1");
  assert_string_equal(ph_of(g, "a1.in"), "ph1");   /* the connection alone */
  assert_string_equal(ph_of(g, "a1.bias"), "");    /* an input with nothing upstream */
  assert_string_equal(ph_of(g, "a2.in"), "");
  assert_string_equal(ph_of(g, "ph1.phIn"), "ph1"); /* a plug of a placeholder is its own */
  /* the walk stops at a placeholder: one feeding ph1 is not listed for what ph1 feeds */
  mk(g, "ph", "ph2");
  conn(g, "ph2.v", "ph1.phIn");
  assert_string_equal(ph_of(g, "a2.output"), "ph1");
  /* a diamond reaches ph1 twice and lists it once */
  mk(g, "add", "a3");
  conn(g, "a1.out", "a3.in");
  conn(g, "a1.out", "a3.bias");
  assert_string_equal(ph_of(g, "a3.output"), "ph1");
  /* nearest first: ph8 is one connection from a4, ph1 three */
  mk(g, "ph", "ph8");
  mk(g, "add", "a4");
  conn(g, "a2.output", "a4.bias");
  conn(g, "ph8.v", "a4.in");
  assert_string_equal(ph_of(g, "a4.output"), "ph8,ph1");
  sinew_plug_t p = P(g, "a4.output");
  sinew_node_t one[1] = {{0, 0}};
  size_t n = 0;
  assert_int_equal(sinew_plug_placeholders(g, &p, one, 1, &n), 0); /* room for one: the total */
  assert_int_equal(n, 2);
  assert_string_equal(sinew_node_name(g, one[0]), "ph8");
  assert_int_equal(sinew_plug_placeholders(g, &p, NULL, 0, &n), 0);
  assert_int_equal(n, 2);
}

/* Elements and compounds: a connection leads to its exact plug, so an element's sibling is not
 * dragged in; affects lead to the whole input (every element, as a pull). */
static void test_placeholders_elements(void **state) {
  sinew_graph_t *g = *state;
  register_placeholder_types(g);
  mk(g, "ph", "ph3");
  mk(g, "ph", "ph4");
  mk(g, "sum", "s1");
  conn(g, "ph3.v", "s1.ins[2]");
  setd(g, "s1.ins[1]", 5);
  conn(g, "ph4.v", "s1.vx");
  assert_string_equal(ph_of(g, "s1.sum"), "ph3");     /* inputs -> sum, ins[2] fed */
  assert_string_equal(ph_of(g, "s1.outs[1]"), "ph3"); /* affects are per attribute: all of ins */
  assert_string_equal(ph_of(g, "s1.len"), "ph4");     /* vector -> length, fed through vx */
  assert_string_equal(ph_of(g, "s1.tx"), "");
  assert_string_equal(ph_of(g, "s1.ins[1]"), "");     /* a sibling of the fed element */
  assert_string_equal(ph_of(g, "s1.ins[2]"), "ph3");
  assert_string_equal(ph_of(g, "s1.ins"), "ph3");     /* the whole array holds the fed element */
  assert_string_equal(ph_of(g, "s1.vec"), "ph4");     /* a compound holds its fed child */
  assert_string_equal(ph_of(g, "s1.vy"), "");         /* the fed child's sibling */
  /* a connection into a whole compound feeds each child (a placeholder's end connects to any
   * type: no value flows) */
  mk(g, "sum", "s2");
  mk(g, "ph", "ph9");
  conn(g, "ph9.v", "s2.vec");
  assert_string_equal(ph_of(g, "s2.vy"), "ph9");
  assert_string_equal(ph_of(g, "s2.len"), "ph9");
  assert_string_equal(ph_of(g, "s2.sum"), "");
}

/* The implicit DAG link carries a parent's world value to its children; a message connection
 * carries no value; a cycle of affects ends. */
static void test_placeholders_dag_message_cycle(void **state) {
  sinew_graph_t *g = *state;
  register_placeholder_types(g);
  sinew_node_t top = mk(g, "xform", "top"), mid = mk(g, "xform", "mid"), leaf = mk(g, "xform", "leaf");
  assert_int_equal(sinew_node_set_parent(g, mid, top), 0);
  assert_int_equal(sinew_node_set_parent(g, leaf, mid), 0);
  mk(g, "ph", "ph5");
  conn(g, "ph5.v", "top.lv");
  assert_string_equal(ph_of(g, "leaf.wv[0]"), "ph5"); /* leaf.pv <- mid.wv[0], mid.pv <- top.wv[0] */
  assert_string_equal(ph_of(g, "leaf.lv"), "");
  mk(g, "ph", "ph6");
  mk(g, "msgUser", "mu");
  conn(g, "ph6.message", "mu.link");
  assert_string_equal(ph_of(g, "mu.res"), ""); /* link affects res, but a message has no value */
  conn(g, "ph6.v", "mu.val");
  assert_string_equal(ph_of(g, "mu.res"), "ph6");
  /* la -> lb -> la: the walk visits each once and ends */
  mk(g, "loop", "lp");
  assert_string_equal(ph_of(g, "lp.lb"), "");
  mk(g, "ph", "ph7");
  conn(g, "ph7.v", "lp.la");
  assert_string_equal(ph_of(g, "lp.lb"), "ph7");
  assert_string_equal(ph_of(g, "lp.la"), "ph7");
  /* a cycle the graph allows between elements of one array (a reference node's list) */
  mk(g, "sum", "s4");
  conn(g, "s4.ins[1]", "s4.ins[2]");
  assert_string_equal(ph_of(g, "s4.sum"), "");
  conn(g, "ph7.v", "s4.ins[1]");
  assert_string_equal(ph_of(g, "s4.ins[2]"), "ph7");
}

/* The graph remembers what a walk proved clean, and forgets it when a connection changes. */
static void test_placeholders_remembered(void **state) {
  sinew_graph_t *g = *state;
  register_placeholder_types(g);
  mk(g, "add", "c1");
  mk(g, "add", "a5");
  mk(g, "ph", "ph1");
  conn(g, "c1.out", "a5.in");
  assert_string_equal(ph_of(g, "a5.output"), "");
  /* a5.output, its inputs in and bias, c1.out, c1's in and bias: all clean */
  assert_int_equal(sinew__placeholder_clean_count(g), 6);
  assert_string_equal(ph_of(g, "a5.output"), ""); /* answered from memory */
  /* a connection upstream: the memory goes, and the new path is found */
  conn(g, "ph1.v", "c1.bias");
  assert_int_equal(sinew__placeholder_clean_count(g), 0);
  assert_string_equal(ph_of(g, "a5.output"), "ph1");
  /* that walk proved c1.in and a5.bias clean (no path to ph1) and remembered the list of the
   * others: a5.output, a5.in, c1.out, c1.bias and ph1.v itself */
  assert_int_equal(sinew__placeholder_clean_count(g), 2);
  assert_int_equal(sinew__placeholder_tainted_count(g), 5);
  assert_string_equal(ph_of(g, "c1.out"), "ph1"); /* from memory */
  assert_int_equal(sinew__placeholder_tainted_count(g), 5);
  assert_string_equal(ph_of(g, "c1.in"), "");
  assert_string_equal(ph_of(g, "a5.output2"), "ph1"); /* shares the tainted items: not skipped */
  /* breaking the connection makes the answer clean again */
  sinew_plug_t s = P(g, "ph1.v"), d = P(g, "c1.bias");
  assert_int_equal(sinew_disconnect(g, &s, &d), 0);
  assert_string_equal(ph_of(g, "a5.output"), "");
  /* reparenting is a connection too: a placeholder-fed parent taints the child */
  sinew_node_t top = mk(g, "xform", "top"), leaf = mk(g, "xform", "leaf");
  assert_string_equal(ph_of(g, "leaf.wv[0]"), "");
  conn(g, "ph1.v", "top.lv");
  assert_string_equal(ph_of(g, "leaf.wv[0]"), "");
  assert_int_equal(sinew_node_set_parent(g, leaf, top), 0);
  assert_string_equal(ph_of(g, "leaf.wv[0]"), "ph1");
  assert_int_equal(sinew_node_set_parent(g, leaf, (sinew_node_t){0, 0}), 0);
  assert_string_equal(ph_of(g, "leaf.wv[0]"), "");
  /* an undone or redone connection (the change journal) is a connection too */
  assert_int_equal(sinew_graph_begin(g), 0);
  conn(g, "ph1.v", "c1.bias");
  sinew_change_t *step = NULL;
  assert_int_equal(sinew_graph_commit_step(g, &step), 0);
  assert_string_equal(ph_of(g, "a5.output"), "ph1");
  assert_int_equal(sinew_change_undo(g, step), 0);
  assert_string_equal(ph_of(g, "a5.output"), "");
  assert_int_equal(sinew_change_redo(g, step), 0);
  assert_string_equal(ph_of(g, "a5.output"), "ph1");
  sinew_change_free(g, step);
}


/* Answers from memory are the answers of a walk from scratch, in whatever order plugs are asked
 * about: a random network of add nodes fed by placeholders, every output asked forwards, then
 * backwards, then each with the memory dropped first. */
static void test_placeholders_memory_matches_walks(void **state) {
  sinew_graph_t *g = *state;
  register_placeholder_types(g);
  enum { NADD = 80, NPH = 6 };
  char a[48], b[48];
  for (int k = 0; k < NPH; k++) {
    snprintf(a, sizeof a, "p%d", k);
    mk(g, "ph", a);
  }
  unsigned seed = 12345;
  for (int i = 0; i < NADD; i++) {
    snprintf(a, sizeof a, "n%d", i);
    mk(g, "add", a);
    for (int port = 0; port < 2; port++) {
      seed = seed * 1103515245u + 12345u;
      unsigned r = (seed >> 16) % 10;
      if (r < 2) continue; /* unconnected */
      if (r < 3) snprintf(a, sizeof a, "p%u.v", (seed >> 8) % NPH);
      else if (i) snprintf(a, sizeof a, "n%u.%s", (seed >> 4) % (unsigned)i, r & 1 ? "out" : "out2");
      else continue;
      snprintf(b, sizeof b, "n%d.%s", i, port ? "bias" : "in");
      conn(g, a, b);
    }
  }
  char forward[NADD][256], backward[NADD][256];
  for (int i = 0; i < NADD; i++) {
    snprintf(a, sizeof a, "n%d.output", i);
    snprintf(forward[i], sizeof forward[i], "%s", ph_of(g, a));
  }
  assert_true(sinew__placeholder_tainted_count(g) > 0);
  assert_true(sinew__placeholder_clean_count(g) > 0);
  sinew__placeholder_cache_free(g);
  for (int i = NADD - 1; i >= 0; i--) {
    snprintf(a, sizeof a, "n%d.output", i);
    snprintf(backward[i], sizeof backward[i], "%s", ph_of(g, a));
  }
  int frozen = 0;
  for (int i = 0; i < NADD; i++) {
    sinew__placeholder_cache_free(g);
    snprintf(a, sizeof a, "n%d.output", i);
    const char *fresh = ph_of(g, a);
    if (strcmp(fresh, forward[i]) || strcmp(fresh, backward[i]))
      fail_msg("%s: from scratch '%s', forwards '%s', backwards '%s'", a, fresh, forward[i], backward[i]);
    frozen += fresh[0] != 0;
  }
  assert_true(frozen > NADD / 4 && frozen < NADD); /* the network has both kinds */
}

static void test_placeholders_bad_input(void **state) {
  sinew_graph_t *g = *state;
  register_placeholder_types(g);
  sinew_node_t a = mk(g, "add", "a"), ph = mk(g, "ph", "ph1");
  conn(g, "ph1.v", "a.in");
  sinew_plug_t out = sinew_plug_make(a, A_OUT, 0, NULL);
  sinew_node_t res[2] = {{7, 7}, {7, 7}};
  size_t n = 42;
  assert_int_equal(sinew_plug_placeholders(NULL, &out, res, 2, &n), SINEW_EINVAL);
  assert_int_equal(sinew_plug_placeholders(g, NULL, res, 2, &n), SINEW_EINVAL);
  assert_int_equal(sinew_plug_placeholders(g, &out, NULL, 2, &n), SINEW_EINVAL);
  sinew_plug_t bad = sinew_plug_make(a, 9999, 0, NULL);
  assert_int_equal(sinew_plug_placeholders(g, &bad, res, 2, &n), SINEW_ENOTFOUND);
  assert_false(sinew_plug_depends_on_placeholder(g, &bad));
  assert_false(sinew_plug_depends_on_placeholder(NULL, &out));
  mk(g, "sum", "s");
  sinew_plug_t elem_missing = P(g, "s.ins"); /* a whole array is a plug; too many indices is not */
  elem_missing.nidx = 3;
  assert_int_equal(sinew_plug_placeholders(g, &elem_missing, res, 2, &n), SINEW_EINVAL);
  assert_int_equal(n, 42); /* failures leave the outputs alone */
  assert_int_equal(res[0].index, 7);
  /* a deleted placeholder: the plug it fed keeps its value and depends on nothing now */
  assert_int_equal(sinew_plug_placeholders(g, &out, res, 2, &n), 0);
  assert_int_equal(n, 1);
  assert_int_equal(sinew_node_delete(g, ph), 0);
  assert_int_equal(sinew_plug_placeholders(g, &out, res, 2, &n), 0);
  assert_int_equal(n, 0);
  sinew_plug_t stale = sinew_plug_make(ph, 0, 0, NULL);
  assert_int_equal(sinew_plug_placeholders(g, &stale, res, 2, &n), SINEW_ESTALE);
  /* out of memory at each allocation of a query: SINEW_ENOMEM with the outputs untouched, or
   * (when only the memory of clean items could not grow) the right answer; nothing leaks */
  test_alloc_install();
  sinew_graph_t *g2;
  assert_int_equal(sinew_graph_create(NULL, &g2), 0);
  assert_int_equal(register_types(g2), 0);
  register_placeholder_types(g2);
  char name[32];
  mk(g2, "ph", "src");
  mk(g2, "add", "add1");
  conn(g2, "src.v", "add1.in");
  for (int k = 2; k <= 40; k++) { /* a chain long enough to grow the walk's queue and set */
    snprintf(name, sizeof name, "add%d", k);
    mk(g2, "add", name);
    char s[48], d[48];
    snprintf(s, sizeof s, "add%d.out", k - 1);
    snprintf(d, sizeof d, "add%d.bias", k);
    conn(g2, s, d);
  }
  sinew_plug_t end = P(g2, "add40.output");
  long before = test_alloc_count();
  assert_int_equal(sinew_plug_placeholders(g2, &end, res, 2, &n), 0);
  long total = test_alloc_count() - before;
  assert_int_equal(n, 1);
  assert_true(total >= 3);
  int failures = 0;
  for (long k = 1; k <= total; k++) {
    sinew__placeholder_cache_free(g2); /* each run from the same start */
    res[0] = (sinew_node_t){7, 7};
    n = 42;
    long live = test_alloc_live();
    test_alloc_fail_at(test_alloc_count() + k);
    int rc = sinew_plug_placeholders(g2, &end, res, 2, &n);
    test_alloc_fail_at(0);
    if (rc == SINEW_OK) {
      assert_int_equal(n, 1);
      assert_string_equal(sinew_node_name(g2, res[0]), "src");
      continue;
    }
    failures++;
    assert_int_equal(rc, SINEW_ENOMEM);
    assert_int_equal(n, 42);
    assert_int_equal(res[0].index, 7);
    assert_int_equal(test_alloc_live(), live);
  }
  assert_true(failures >= 3);
  sinew_graph_destroy(g2);
  assert_int_equal(test_alloc_live(), 0);
  test_alloc_uninstall();
}

/* ---- generic numeric attributes --------------------------------------------------------------- */

/* "gscale": output = each number of input * factor (unitConversion's shape), generic both ends. */
static uint32_t G_IN, G_F, G_OUT;
static int gscale_computes;

static int gscale_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != G_OUT) return SINEW_EUNKNOWN_PLUG;
  gscale_computes++;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  double v[SINEW_GENERIC_MAX], f = 1;
  size_t count = 0;
  sinew_plug_t pin = sinew_plug_make(n, G_IN, 0, NULL), pf = sinew_plug_make(n, G_F, 0, NULL);
  assert_int_equal(sinew_get_generic(g, &pin, v, SINEW_GENERIC_MAX, &count), 0);
  assert_int_equal(sinew_get_double(g, &pf, &f), 0);
  assert_true(count >= 1 && count <= SINEW_GENERIC_MAX);
  for (size_t i = 0; i < count; i++) v[i] *= f;
  return sinew_compute_set_generic(ctx, plug, v, count);
}

static const sinew_attr_desc_t gscale_attrs[] = {
    {.name = "input", .short_name = "i", .type = SINEW_ATTR_DOUBLE,
     .flags = SINEW_ATTR_INPUT | SINEW_ATTR_GENERIC_NUMERIC},
    {.name = "factor", .short_name = "f", .type = SINEW_ATTR_DOUBLE, .default_value = 1},
    {.name = "output", .short_name = "o", .type = SINEW_ATTR_DOUBLE,
     .flags = SINEW_ATTR_OUTPUT | SINEW_ATTR_GENERIC_NUMERIC}};
static const sinew_affects_t gscale_affects[] = {{"input", "output"}, {"factor", "output"}};

static void register_gscale(sinew_graph_t *g) {
  const sinew_node_type_t *t;
  sinew_node_type_desc_t d = {.name = "gscale", .attrs = gscale_attrs, .attr_count = 3,
                              .affects = gscale_affects, .affects_count = 2, .compute = gscale_compute};
  assert_int_equal(sinew_register_node_type(g, &d, &t), 0);
  G_IN = sinew_node_type_attr(t, "i");
  G_F = sinew_node_type_attr(t, "f");
  G_OUT = sinew_node_type_attr(t, "o");
  gscale_computes = 0;
}

/* The numbers a plug holds, checked against want (count and values). */
static void expect_generic(sinew_graph_t *g, const char *text, const double *want, size_t n) {
  sinew_plug_t p = P(g, text);
  double v[SINEW_GENERIC_MAX];
  size_t got = 0;
  int rc = sinew_get_generic(g, &p, v, SINEW_GENERIC_MAX, &got);
  if (rc) fail_msg("get_generic %s: %s", text, sinew_graph_errmsg(g));
  if (got != n) fail_msg("%s holds %zu numbers, expected %zu", text, got, n);
  for (size_t i = 0; i < n; i++)
    if (fabs(v[i] - want[i]) > 1e-12) fail_msg("%s[%zu] = %.17g, expected %.17g", text, i, v[i], want[i]);
}

/* The change journal keeps a generic slot's numbers, one or several: set, connect (the pull
 * rewrites the slot) and disconnect roll back and undo / redo to the numbers before, with ASan
 * watching the blocks that move between slot and record. */
static void test_generic_numeric_journal(void **state) {
  sinew_graph_t *g = *state;
  register_gscale(g);
  mk(g, "gscale", "g1");
  mk(g, "sum", "s1");
  sinew_plug_t in = P(g, "g1.i"), v1 = P(g, "s1.vec");
  assert_int_equal(sinew_set_generic(g, &in, (double[]){5}, 1), 0);
  assert_int_equal(sinew_set_doubles(g, &v1, (double[]){1, 2, 3}, 3), 0);
  /* one number -> three, rolled back */
  assert_int_equal(sinew_graph_begin(g), 0);
  assert_int_equal(sinew_set_generic(g, &in, (double[]){7, 8, 9}, 3), 0);
  expect_generic(g, "g1.o", (double[]){7, 8, 9}, 3);
  assert_int_equal(sinew_graph_rollback(g), 0);
  expect_generic(g, "g1.i", (double[]){5}, 1);
  expect_generic(g, "g1.o", (double[]){5}, 1);
  /* three -> four -> one, kept as a step: undo and redo */
  assert_int_equal(sinew_set_generic(g, &in, (double[]){1, 1, 1}, 3), 0);
  assert_int_equal(sinew_graph_begin(g), 0);
  assert_int_equal(sinew_set_generic(g, &in, (double[]){4, 3, 2, 1}, 4), 0);
  assert_int_equal(sinew_set_generic(g, &in, (double[]){6}, 1), 0);
  sinew_change_t *step = NULL;
  assert_int_equal(sinew_graph_commit_step(g, &step), 0);
  expect_generic(g, "g1.i", (double[]){6}, 1);
  assert_int_equal(sinew_change_undo(g, step), 0);
  expect_generic(g, "g1.i", (double[]){1, 1, 1}, 3);
  expect_generic(g, "g1.o", (double[]){1, 1, 1}, 3);
  assert_int_equal(sinew_change_redo(g, step), 0);
  expect_generic(g, "g1.i", (double[]){6}, 1);
  sinew_change_free(g, step);
  /* a connection pulls the source's triple over a slot holding three numbers; rolled back */
  assert_int_equal(sinew_set_generic(g, &in, (double[]){0.5, 0.25, 0.125}, 3), 0);
  assert_int_equal(sinew_graph_begin(g), 0);
  conn(g, "s1.vec", "g1.i");
  expect_generic(g, "g1.o", (double[]){1, 2, 3}, 3);
  assert_int_equal(sinew_graph_rollback(g), 0);
  expect_generic(g, "g1.i", (double[]){0.5, 0.25, 0.125}, 3);
  expect_generic(g, "g1.o", (double[]){0.5, 0.25, 0.125}, 3);
  check_graph(g);
}

static void test_generic_numeric(void **state) {
  sinew_graph_t *g = *state;
  register_gscale(g);
  /* scalar: add.out (2 + 1 = 3) -> g1 (factor 2) -> add b.in: b.out = 3 * 2 = 6 */
  mk(g, "add", "a");
  mk(g, "add", "b");
  mk(g, "gscale", "g1");
  setd(g, "a.in", 2);
  setd(g, "a.b", 1);
  setd(g, "g1.f", 2);
  conn(g, "a.out", "g1.i");
  conn(g, "g1.o", "b.in");
  assert_true(fabs(getd(g, "b.out") - 6) < 1e-12);
  expect_generic(g, "g1.o", (double[]){6}, 1);
  assert_true(fabs(getd(g, "g1.o") - 6) < 1e-12); /* a scalar reads as a number too */

  /* triple: s1.vec (distance3) -> g2 (factor 0.5) -> s2.vec; s2.len = |(0.5, 1, 1.5)| = sqrt(3.5) */
  mk(g, "sum", "s1");
  mk(g, "sum", "s2");
  mk(g, "gscale", "g2");
  setd(g, "g2.f", 0.5);
  sinew_plug_t v1 = P(g, "s1.vec");
  assert_int_equal(sinew_set_doubles(g, &v1, (double[]){1, 2, 3}, 3), 0);
  conn(g, "s1.vec", "g2.i");
  conn(g, "g2.o", "s2.vec");
  expect_generic(g, "g2.i", (double[]){1, 2, 3}, 3);
  expect_generic(g, "g2.o", (double[]){0.5, 1, 1.5}, 3);
  assert_true(fabs(getd(g, "s2.len") - sqrt(3.5)) < 1e-12);
  assert_true(fabs(getd(g, "s2.vy") - 1) < 1e-12);
  check_graph(g);

  /* dirt: a child of the source triple dirties the generic chain and the destination's
   * children; one read computes g2 once. s1.vy = 4: s2.vec = (0.5, 2, 1.5) */
  int before = gscale_computes;
  setd(g, "s1.vy", 4);
  sinew_plug_t s2vz = P(g, "s2.vz"), g2o = P(g, "g2.o"), s2len = P(g, "s2.len");
  assert_true(sinew_plug_is_dirty(g, &g2o));
  assert_true(sinew_plug_is_dirty(g, &s2vz));
  assert_true(sinew_plug_is_dirty(g, &s2len));
  assert_true(fabs(getd(g, "s2.len") - sqrt(0.25 + 4 + 2.25)) < 1e-12);
  assert_int_equal(gscale_computes, before + 1);
  assert_true(fabs(getd(g, "s2.vz") - 1.5) < 1e-12);
  assert_int_equal(gscale_computes, before + 1); /* clean now: no second compute */
  setd(g, "g2.f", 2); /* the factor dirties the output too: (2, 8, 6) */
  assert_true(sinew_plug_is_dirty(g, &s2vz));
  expect_generic(g, "s2.vec", (double[]){2, 8, 6}, 3);

  /* matrix: s1.im (a translate (7, 8, 9) matrix) -> g3 (factor 1) -> s3.im; s3.tx = 7 */
  mk(g, "sum", "s3");
  mk(g, "gscale", "g3");
  sinew_mat4_t m;
  sinew_mat4_identity(&m);
  m.m[3][0] = 7;
  m.m[3][1] = 8;
  m.m[3][2] = 9;
  sinew_plug_t im1 = P(g, "s1.im");
  assert_int_equal(sinew_set_matrix(g, &im1, &m), 0);
  conn(g, "s1.im", "g3.i");
  conn(g, "g3.o", "s3.im");
  expect_generic(g, "g3.o", (double[]){1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 7, 8, 9, 1}, 16);
  assert_true(fabs(getd(g, "s3.tx") - 7) < 1e-12);
  setd(g, "g3.f", 2); /* every number doubles: tx = 14 */
  assert_true(fabs(getd(g, "s3.tx") - 14) < 1e-12);

  /* the shape follows the source: g4 fed by g5, whose input is set to 1, 3 and 16 numbers */
  mk(g, "gscale", "g4");
  mk(g, "gscale", "g5");
  conn(g, "g5.o", "g4.i");
  setd(g, "g5.i", 0.5); /* a plain number on a generic input, as files write setAttr ".i" 0.5 */
  expect_generic(g, "g4.o", (double[]){0.5}, 1);
  sinew_plug_t g5i = P(g, "g5.i");
  assert_int_equal(sinew_set_generic(g, &g5i, (double[]){1, -2, 3}, 3), 0);
  sinew_plug_t g4o = P(g, "g4.o");
  assert_true(sinew_plug_is_dirty(g, &g4o));
  expect_generic(g, "g4.o", (double[]){1, -2, 3}, 3);
  double sixteen[16];
  for (int k = 0; k < 16; k++) sixteen[k] = k;
  assert_int_equal(sinew_set_generic(g, &g5i, sixteen, 16), 0);
  expect_generic(g, "g4.o", sixteen, 16);
  setd(g, "g5.i", -1); /* back to one number */
  expect_generic(g, "g4.o", (double[]){-1}, 1);

  /* fewer numbers than the destination has room for: the rest read 0; a matrix fed anything
   * but 16 numbers reads identity. g4.o (one number, -1) -> s4.vec and -> s4.im */
  mk(g, "sum", "s4");
  conn(g, "g4.o", "s4.vec");
  conn(g, "g4.o", "s4.im");
  expect_generic(g, "s4.vec", (double[]){-1, 0, 0}, 3);
  sinew_plug_t im4 = P(g, "s4.im");
  sinew_mat4_t got;
  assert_int_equal(sinew_get_matrix(g, &im4, &got), 0);
  sinew_mat4_identity(&m);
  assert_memory_equal(&got, &m, sizeof m);
  /* and more numbers than room: a triple fed 16 takes the first three */
  assert_int_equal(sinew_set_generic(g, &g5i, sixteen, 16), 0);
  expect_generic(g, "s4.vec", (double[]){0, 1, 2}, 3);
  assert_int_equal(sinew_get_matrix(g, &im4, &got), 0);
  assert_true(got.m[3][0] == 12 && got.m[1][1] == 5); /* row by row: m[r][c] = 4r + c */
  check_graph(g);

  /* disconnecting keeps the last numbers, as for any destination */
  sinew_plug_t g3o = P(g, "g3.o"), s3im = P(g, "s3.im");
  assert_int_equal(sinew_disconnect(g, &g3o, &s3im), 0);
  assert_true(fabs(getd(g, "s3.tx") - 14) < 1e-12);
  sinew_plug_t g5o = P(g, "g5.o"), g4i = P(g, "g4.i");
  assert_int_equal(sinew_disconnect(g, &g5o, &g4i), 0);
  expect_generic(g, "g4.i", sixteen, 16); /* a generic destination keeps all 16 */

  /* refusals: a string, a compound with an array child, a whole array, and a
   * generic flag on a string attribute */
  sinew_plug_t lb = P(g, "s1.lb"), gi = P(g, "g1.i"), go = P(g, "g1.o"), wl0 = P(g, "s1.wl[0]"),
               ins = P(g, "s1.ins");
  assert_int_equal(sinew_connect(g, &lb, &g4i, 0, NULL), SINEW_ETYPE);
  assert_non_null(strstr(sinew_graph_errmsg(g), "generic numeric attribute carries"));
  assert_int_equal(sinew_connect(g, &go, &lb, 0, NULL), SINEW_ETYPE);
  assert_int_equal(sinew_connect(g, &go, &wl0, 0, NULL), SINEW_ETYPE);
  assert_int_equal(sinew_connect(g, &go, &ins, 0, NULL), SINEW_ETYPE); /* into a whole array */
  (void)gi;
  static const sinew_attr_desc_t bad_attrs[] = {
      {.name = "text", .type = SINEW_ATTR_STRING, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_GENERIC_NUMERIC}};
  sinew_node_type_desc_t bad = {.name = "badGeneric", .attrs = bad_attrs, .attr_count = 1};
  assert_int_equal(sinew_register_node_type(g, &bad, NULL), SINEW_EINVAL);
  assert_non_null(strstr(sinew_graph_errmsg(g), "generic numeric"));
  /* bad counts and non-generic plugs */
  assert_int_equal(sinew_set_generic(g, &g5i, sixteen, 0), SINEW_ERANGE);
  assert_int_equal(sinew_set_generic(g, &g5i, sixteen, 17), SINEW_ERANGE);
  assert_int_equal(sinew_set_generic(g, &g5i, NULL, 3), SINEW_EINVAL);
  sinew_plug_t ain = P(g, "a.in");
  assert_int_equal(sinew_set_generic(g, &ain, sixteen, 3), SINEW_ETYPE);
  assert_int_equal(sinew_set_generic(g, &g4o, sixteen, 3), SINEW_EREADONLY); /* an output */
  sinew_plug_t g1i = P(g, "g1.i");
  assert_int_equal(sinew_set_generic(g, &g1i, sixteen, 3), SINEW_ECONNECTED);
  double nan3[3] = {1, NAN, 2}; /* a double generic takes non-finite numbers as double does */
  assert_int_equal(sinew_set_generic(g, &g5i, nan3, 3), 0);
  double buf[2];
  size_t cnt = 0;
  assert_int_equal(sinew_get_generic(g, &lb, buf, 2, &cnt), SINEW_ETYPE);
  /* a short buffer: filled as far as it goes, the count still says 16 */
  assert_int_equal(sinew_set_generic(g, &g5i, sixteen, 16), 0);
  assert_int_equal(sinew_get_generic(g, &g5i, buf, 2, &cnt), 0);
  assert_int_equal(cnt, 16);
  assert_true(buf[0] == 0 && buf[1] == 1);
  /* deleting nodes holding wide values frees them (the ASan build checks) */
  sinew_node_t n5;
  assert_int_equal(sinew_node_find(g, "g5", &n5), 0);
  assert_int_equal(sinew_node_delete(g, n5), 0);
  check_graph(g);
}

int main(void) {
  /* TEST_FILTER=test_random_against_model runs one test (a cmocka glob pattern). */
  if (getenv("TEST_FILTER")) cmocka_set_test_filter(getenv("TEST_FILTER"));
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_status_names),
      cmocka_unit_test_setup_teardown(test_register_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_generic_numeric, setup, teardown),
      cmocka_unit_test_setup_teardown(test_self_connection, setup, teardown),
      cmocka_unit_test_setup_teardown(test_generic_numeric_journal, setup, teardown),
      cmocka_unit_test(test_generic_alloc_failures),
      cmocka_unit_test_setup_teardown(test_inheritance, setup, teardown),
      cmocka_unit_test_setup_teardown(test_naming, setup, teardown),
      cmocka_unit_test_setup_teardown(test_long_names, setup, teardown),
      cmocka_unit_test_setup_teardown(test_delete_and_stale, setup, teardown),
      cmocka_unit_test(test_delete_many),
      cmocka_unit_test(test_delete_many_roots),
      cmocka_unit_test_setup_teardown(test_dag_hierarchy, setup, teardown),
      cmocka_unit_test_setup_teardown(test_plug_parse_format, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sparse_multi, setup, teardown),
      cmocka_unit_test(test_sparse_cost),
      cmocka_unit_test_setup_teardown(test_values_and_types, setup, teardown),
      cmocka_unit_test_setup_teardown(test_chain_counts, setup, teardown),
      cmocka_unit_test_setup_teardown(test_diamond_and_fanout, setup, teardown),
      cmocka_unit_test_setup_teardown(test_observers, setup, teardown),
      cmocka_unit_test_setup_teardown(test_observer_events, setup, teardown),
      cmocka_unit_test_setup_teardown(test_input_changed_hook, setup, teardown),
      cmocka_unit_test_setup_teardown(test_connect_rules, setup, teardown),
      cmocka_unit_test_setup_teardown(test_list_connections, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cycles, setup, teardown),
      cmocka_unit_test_setup_teardown(test_eval_cycle_terminates, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unknown_plug_reported, setup, teardown),
      cmocka_unit_test_setup_teardown(test_compute_out_of_memory, setup, teardown),
      cmocka_unit_test_setup_teardown(test_deep_chain, setup, teardown),
      cmocka_unit_test_setup_teardown(test_deep_hierarchy, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dynamic_attrs, setup, teardown),
      cmocka_unit_test(test_data_blocks),
      cmocka_unit_test(test_alloc_failures),
      cmocka_unit_test(test_alloc_failure_atomic_steps),
      cmocka_unit_test_setup_teardown(test_compound_connections, setup, teardown),
      cmocka_unit_test_setup_teardown(test_parent_child_destinations, setup, teardown),
      cmocka_unit_test_setup_teardown(test_whole_array_connections, setup, teardown),
      cmocka_unit_test_setup_teardown(test_multi_of_compounds, setup, teardown),
      cmocka_unit_test_setup_teardown(test_remove_element_connections, setup, teardown),
      cmocka_unit_test_setup_teardown(test_reparent_and_names, setup, teardown),
      cmocka_unit_test_setup_teardown(test_null_and_stale_arguments, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dynamic_attrs_lifecycle, setup, teardown),
      cmocka_unit_test_setup_teardown(test_force_keeps_indexes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_failed_init_breaks_connections, setup, teardown),
      cmocka_unit_test_setup_teardown(test_hooks_cannot_change_the_graph, setup, teardown),
      cmocka_unit_test(test_alloc_failure_everywhere),
      cmocka_unit_test_setup_teardown(test_placeholders_upstream, setup, teardown),
      cmocka_unit_test_setup_teardown(test_placeholders_elements, setup, teardown),
      cmocka_unit_test_setup_teardown(test_placeholders_dag_message_cycle, setup, teardown),
      cmocka_unit_test_setup_teardown(test_placeholders_remembered, setup, teardown),
      cmocka_unit_test_setup_teardown(test_placeholders_memory_matches_walks, setup, teardown),
      cmocka_unit_test_setup_teardown(test_placeholders_bad_input, setup, teardown),
      cmocka_unit_test(test_push_beyond_reservation),
      cmocka_unit_test(test_connect_commit_cannot_fail),
      cmocka_unit_test_setup_teardown(test_random_against_model, setup, teardown),
      cmocka_unit_test_setup_teardown(test_order_random_edits, setup, teardown),
      cmocka_unit_test_setup_teardown(test_order_cycle_message, setup, teardown),
      cmocka_unit_test_setup_teardown(test_hierarchy_random, setup, teardown),
      cmocka_unit_test_setup_teardown(test_order_dense_labels, setup, teardown),
      cmocka_unit_test(test_order_out_of_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
