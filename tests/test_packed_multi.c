/* tests/test_packed_multi.c: numeric multis held packed (graph/slot.c, sinew__multi).
 *
 * A numeric multi set in bulk (sinew_set_double_elements, setAttr of a range or of the compact
 * weights form) is held as two arrays, indices and numbers, with no slot per element; a walk
 * that needs one element's slot (a connection, a lock, a read of that element) unpacks it. The
 * form must not show: every test does the same on a multi held packed and on one forced into
 * slot form, and compares what the public API reports, the evaluated outputs and the saved
 * .ma bytes; rollback, undo and redo restore values exactly; a failing call (any allocation)
 * leaves the graph as it was and leaks nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinew/cmds.h"
#include "sinew/sinew.h"
#include "tests/support.h"

#include "graph/internal.h"

/* ---- a node type with a top-level numeric multi and a weightList-style one ------------------- */

static uint32_t P_VALS, P_WL, P_W, P_SUM, P_SRC, P_OUT;
static int computes;

/* sum = every vals[i] + every wl[v].w[i] * (v + 1), read through the bulk reader */
static int packer_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  computes++;
  if (plug->attr == P_OUT) {
    double v = 0;
    sinew_plug_t src = sinew_plug_make(n, P_SRC, 0, NULL);
    assert_int_equal(sinew_get_double(g, &src, &v), 0);
    return sinew_compute_set_double(ctx, plug, v);
  }
  if (plug->attr != P_SUM) return SINEW_EUNKNOWN_PLUG;
  double s = 0, vals[256];
  int32_t idx[256];
  size_t k = 0;
  sinew_plug_t arr = sinew_plug_make(n, P_VALS, 0, NULL);
  int rc = sinew_get_double_elements(g, &arr, NULL, vals, 256, &k);
  if (rc) return rc;
  for (size_t i = 0; i < k && i < 256; i++) s += vals[i];
  sinew_plug_t wl = sinew_plug_make(n, P_WL, 0, NULL);
  size_t nv = sinew_plug_indices(g, &wl, idx, 256);
  int32_t verts[256];
  memcpy(verts, idx, sizeof verts);
  for (size_t v = 0; v < nv && v < 256; v++) {
    sinew_plug_t w = sinew_plug_make(n, P_W, 1, &verts[v]);
    if ((rc = sinew_get_double_elements(g, &w, NULL, vals, 256, &k))) return rc;
    for (size_t i = 0; i < k && i < 256; i++) s += vals[i] * (verts[v] + 1);
  }
  return sinew_compute_set_double(ctx, plug, s);
}

static const sinew_attr_desc_t packer_attrs[] = {
    {.name = "values", .short_name = "vals", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY},
    {.name = "weightList", .short_name = "wl", .type = SINEW_ATTR_COMPOUND, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY},
    {.name = "weights", .short_name = "w", .type = SINEW_ATTR_DOUBLE, .parent = "weightList",
     .flags = SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY},
    {.name = "sum", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT},
    {.name = "source", .short_name = "src", .type = SINEW_ATTR_DOUBLE},
    {.name = "output", .short_name = "out", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT},
};
static const sinew_affects_t packer_affects[] = {{"values", "sum"}, {"weightList", "sum"}, {"source", "output"}};

static sinew_graph_t *graph(void) {
  sinew_graph_t *g = NULL;
  assert_int_equal(sinew_graph_create(NULL, &g), 0);
  const sinew_node_type_t *t;
  sinew_node_type_desc_t d = {.name = "packer", .attrs = packer_attrs, .attr_count = 6, .affects = packer_affects,
                              .affects_count = 3, .compute = packer_compute};
  assert_int_equal(sinew_register_node_type(g, &d, &t), 0);
  P_VALS = sinew_node_type_attr(t, "vals");
  P_WL = sinew_node_type_attr(t, "wl");
  P_W = sinew_node_type_attr(t, "w");
  P_SUM = sinew_node_type_attr(t, "sum");
  P_SRC = sinew_node_type_attr(t, "src");
  P_OUT = sinew_node_type_attr(t, "out");
  return g;
}

static sinew_node_t node(sinew_graph_t *g, const char *name) {
  sinew_node_t n;
  assert_int_equal(sinew_node_create(g, "packer", name, &n), 0);
  return n;
}

static sinew_plug_t vals_of(sinew_node_t n) { return sinew_plug_make(n, P_VALS, 0, NULL); }
static sinew_plug_t weights_of(sinew_node_t n, int32_t v) { return sinew_plug_make(n, P_W, 1, &v); }
static sinew_plug_t weight_of(sinew_node_t n, int32_t v, int32_t i) {
  int32_t ix[2] = {v, i};
  return sinew_plug_make(n, P_W, 2, ix);
}

/* The multi holding a whole-array plug's elements, or NULL (the array plug's own slot: finding
 * it does not unpack anything). */
static const sinew__multi *multi_of(sinew_graph_t *g, const sinew_plug_t *arr) {
  sinew__node *n = sinew__node_get(g, arr->node);
  assert_non_null(n);
  sinew__slot *s = sinew__slot_find(g, n, arr, NULL);
  return s ? s->v.multi : NULL;
}

static bool packed(sinew_graph_t *g, const sinew_plug_t *arr) { return sinew__multi_packed(multi_of(g, arr)); }

/* Everything the public API says about a node's two multis and its output, as text. */
static char *state(sinew_graph_t *g, sinew_node_t n) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  int32_t idx[512], verts[512];
  double v[512];
  size_t k = 0;
  sinew_plug_t arr = vals_of(n);
  assert_int_equal(sinew_get_double_elements(g, &arr, idx, v, 512, &k), 0);
  fprintf(f, "vals %zu:", k);
  for (size_t i = 0; i < k; i++) fprintf(f, " %d=%.17g", idx[i], v[i]);
  fprintf(f, "\nnext %d set %d\n", sinew_plug_next_index(g, &arr), sinew_plug_has_value(g, &arr));
  sinew_plug_t wl = sinew_plug_make(n, P_WL, 0, NULL);
  size_t nv = sinew_plug_indices(g, &wl, verts, 512);
  for (size_t q = 0; q < nv; q++) {
    sinew_plug_t w = weights_of(n, verts[q]);
    assert_int_equal(sinew_get_double_elements(g, &w, idx, v, 512, &k), 0);
    fprintf(f, "wl[%d] %zu next %d:", verts[q], k, sinew_plug_next_index(g, &w));
    for (size_t i = 0; i < k; i++) {
      sinew_plug_t e = weight_of(n, verts[q], idx[i]);
      fprintf(f, " %d=%.17g%s%s%s", idx[i], v[i], sinew_plug_locked(g, &e) ? " locked" : "",
              sinew_plug_has_value(g, &e) ? "" : " unset", sinew_plug_is_dirty(g, &e) ? " dirty" : "");
    }
    fprintf(f, "\n");
  }
  double s = 0;
  sinew_plug_t sum = sinew_plug_make(n, P_SUM, 0, NULL);
  assert_int_equal(sinew_get_double(g, &sum, &s), 0);
  fprintf(f, "sum %.17g\n", s);
  fclose(f);
  return buf;
}

static void expect_same(sinew_graph_t *g, sinew_node_t a, sinew_node_t b) {
  char *sa = state(g, a), *sb = state(g, b);
  if (strcmp(sa, sb)) {
    test_print_diff(sa, sb);
    fail_msg("the packed and the slot-form multis differ");
  }
  free(sa);
  free(sb);
}

static void set_w(sinew_graph_t *g, sinew_node_t n, int32_t v, const int32_t *idx, const double *val, size_t k) {
  sinew_plug_t w = weights_of(n, v);
  if (sinew_set_double_elements(g, &w, idx, val, k)) fail_msg("set wl[%d].w: %s", v, sinew_graph_errmsg(g));
}

/* Puts a multi into slot form the way a user would: a read of one of its elements. */
static void touch(sinew_graph_t *g, const sinew_plug_t *e) {
  double d;
  assert_int_equal(sinew_get_double(g, e, &d), 0);
}

/* ---- the form ------------------------------------------------------------------------------- */

static void test_bulk_set_is_packed(void **unused) {
  (void)unused;
  sinew_graph_t *g = graph();
  sinew_node_t n = node(g, "n");
  /* unordered indices, a repeated one (the last wins), a sparse one */
  set_w(g, n, 3, (int32_t[]){5, 1, 9, 1, 70000}, (double[]){0.5, 0.25, 0.125, 0.75, 2}, 5);
  sinew_plug_t w3 = weights_of(n, 3);
  assert_true(packed(g, &w3));
  const sinew__multi *m = multi_of(g, &w3);
  assert_int_equal(m->count, 4);
  assert_int_equal(m->idx[0], 1);
  assert_int_equal(m->idx[3], 70000);
  assert_true(m->vals[0] == 0.75);
  /* merged with what is there: one replaced, one added in the middle, one appended */
  set_w(g, n, 3, (int32_t[]){9, 2, 80000}, (double[]){-1, 3, 4}, 3);
  m = multi_of(g, &w3);
  assert_true(sinew__multi_packed(m));
  int32_t idx[8];
  double v[8];
  size_t k = 0;
  assert_int_equal(sinew_get_double_elements(g, &w3, idx, v, 8, &k), 0);
  assert_int_equal(k, 6);
  int32_t want_i[] = {1, 2, 5, 9, 70000, 80000};
  double want_v[] = {0.75, 3, 0.5, -1, 2, 4};
  for (size_t i = 0; i < 6; i++) {
    assert_int_equal(idx[i], want_i[i]);
    assert_true(v[i] == want_v[i]);
  }
  assert_int_equal(sinew_plug_indices(g, &w3, NULL, 0), 6);
  /* queries answer without giving the elements slots */
  sinew_plug_t e = weight_of(n, 3, 9);
  assert_true(sinew_plug_has_value(g, &e));
  assert_false(sinew_plug_locked(g, &e));
  assert_false(sinew_plug_is_dirty(g, &e));
  assert_false(sinew_plug_source(g, &e, NULL));
  assert_int_equal(sinew_plug_next_index(g, &w3), 0);
  assert_true(packed(g, &w3));
  /* the output reads them through the bulk reader */
  double s = 0;
  sinew_plug_t sum = sinew_plug_make(n, P_SUM, 0, NULL);
  assert_int_equal(sinew_get_double(g, &sum, &s), 0);
  assert_true(s == (0.75 + 3 + 0.5 - 1 + 2 + 4) * 4);
  assert_true(packed(g, &w3));
  /* a read of one element gives the multi slots: the same numbers */
  double d = 0;
  assert_int_equal(sinew_get_double(g, &e, &d), 0);
  assert_true(d == -1);
  assert_false(packed(g, &w3));
  assert_int_equal(sinew_get_double_elements(g, &w3, idx, v, 8, &k), 0);
  for (size_t i = 0; i < 6; i++) assert_true(idx[i] == want_i[i] && v[i] == want_v[i]);
  /* a top-level numeric multi too; a float-typed one would be rounded as a single set is */
  sinew_plug_t vals = vals_of(n);
  assert_int_equal(sinew_set_double_elements(g, &vals, (int32_t[]){0, 1, 2}, (double[]){1, 2, 3}, 3), 0);
  assert_true(packed(g, &vals));
  sinew_plug_t v1 = sinew_plug_make(n, P_VALS, 1, (int32_t[]){1});
  assert_int_equal(sinew_get_double(g, &v1, &d), 0);
  assert_true(d == 2);
  assert_int_equal(sinew_get_double(g, &sum, &s), 0);
  assert_true(s == 6 + (0.75 + 3 + 0.5 - 1 + 2 + 4) * 4);
  /* a set with no values makes nothing */
  sinew_plug_t w7 = weights_of(n, 7);
  assert_int_equal(sinew_set_double_elements(g, &w7, NULL, NULL, 0), 0);
  sinew_plug_t wl = sinew_plug_make(n, P_WL, 0, NULL);
  assert_int_equal(sinew_plug_indices(g, &wl, NULL, 0), 1);
  sinew_graph_destroy(g);
}

/* The same random edits on a packed multi and on one kept in slot form report the same. */
static void test_packed_matches_slot_form(void **unused) {
  (void)unused;
  sinew_graph_t *g = graph();
  sinew_node_t a = node(g, "a"), b = node(g, "b");
  uint32_t seed = 7;
  for (int round = 0; round < 400; round++) {
    seed = seed * 1103515245u + 12345u;
    int32_t v = (int32_t)((seed >> 16) % 12);
    int op = (int)((seed >> 8) % 10);
    if (op < 6) { /* a bulk set of 1..6 weights */
      int32_t idx[6];
      double val[6];
      size_t k = 1 + (seed >> 4) % 6;
      for (size_t i = 0; i < k; i++) {
        seed = seed * 1103515245u + 12345u;
        idx[i] = (int32_t)((seed >> 16) % 10);
        val[i] = (double)((seed >> 8) % 1000) / 7.0;
      }
      set_w(g, a, v, idx, val, k);
      /* b first reads one element it has, which keeps its multi in slot form */
      sinew_plug_t wb = weights_of(b, v);
      int32_t have[16];
      if (sinew_plug_indices(g, &wb, have, 16)) {
        sinew_plug_t e = weight_of(b, v, have[0]);
        touch(g, &e);
      }
      set_w(g, b, v, idx, val, k);
      if (sinew_plug_indices(g, &wb, have, 16)) {
        sinew_plug_t e = weight_of(b, v, have[0]);
        touch(g, &e);
      }
    } else if (op < 8) { /* remove an element */
      int32_t i = (int32_t)((seed >> 4) % 10);
      sinew_plug_t ea = weight_of(a, v, i), eb = weight_of(b, v, i);
      int ra = sinew_plug_remove_element(g, &ea), rb = sinew_plug_remove_element(g, &eb);
      assert_int_equal(ra, rb);
    } else if (op == 8) { /* a single set of one element */
      int32_t i = (int32_t)((seed >> 4) % 10);
      sinew_plug_t ea = weight_of(a, v, i), eb = weight_of(b, v, i);
      assert_int_equal(sinew_set_double(g, &ea, i * 0.5), 0);
      assert_int_equal(sinew_set_double(g, &eb, i * 0.5), 0);
    } else { /* a whole vertex goes */
      sinew_plug_t ea = sinew_plug_make(a, P_WL, 1, &v), eb = sinew_plug_make(b, P_WL, 1, &v);
      assert_int_equal(sinew_plug_remove_element(g, &ea), sinew_plug_remove_element(g, &eb));
    }
    expect_same(g, a, b);
  }
  sinew_graph_destroy(g);
}

/* ---- the journal ---------------------------------------------------------------------------- */

static void test_rollback_undo_redo(void **unused) {
  (void)unused;
  sinew_graph_t *g = graph();
  sinew_node_t n = node(g, "n");
  char *empty = state(g, n);
  /* rolled back: nothing made stays */
  assert_int_equal(sinew_graph_begin(g), 0);
  set_w(g, n, 4, (int32_t[]){0, 3}, (double[]){0.25, 0.75}, 2);
  assert_int_equal(sinew_graph_rollback(g), 0);
  char *now = state(g, n);
  assert_string_equal(now, empty);
  free(now);
  /* three steps: make, merge into, make elsewhere */
  sinew_change_t *st[3];
  assert_int_equal(sinew_graph_begin(g), 0);
  set_w(g, n, 4, (int32_t[]){0, 3}, (double[]){0.25, 0.75}, 2);
  assert_int_equal(sinew_graph_commit_step(g, &st[0]), 0);
  char *s1 = state(g, n);
  assert_int_equal(sinew_graph_begin(g), 0);
  set_w(g, n, 4, (int32_t[]){3, 1}, (double[]){0.1 + 0.2, 1.0 / 3.0}, 2);
  assert_int_equal(sinew_graph_commit_step(g, &st[1]), 0);
  char *s2 = state(g, n);
  assert_int_equal(sinew_graph_begin(g), 0);
  sinew_plug_t vals = vals_of(n);
  assert_int_equal(sinew_set_double_elements(g, &vals, (int32_t[]){2}, (double[]){1e-300}, 1), 0);
  assert_int_equal(sinew_graph_commit_step(g, &st[2]), 0);
  char *s3 = state(g, n);
  for (int pass = 0; pass < 2; pass++) {
    /* pass 1: an element read between the steps gives the multi slots; undo works the same */
    if (pass) {
      sinew_plug_t e = weight_of(n, 4, 1);
      touch(g, &e);
    }
    assert_int_equal(sinew_change_undo(g, st[2]), 0);
    now = state(g, n);
    assert_string_equal(now, s2);
    free(now);
    assert_int_equal(sinew_change_undo(g, st[1]), 0);
    now = state(g, n);
    assert_string_equal(now, s1);
    free(now);
    assert_int_equal(sinew_change_undo(g, st[0]), 0);
    now = state(g, n);
    assert_string_equal(now, empty);
    free(now);
    for (int i = 0; i < 3; i++) assert_int_equal(sinew_change_redo(g, st[i]), 0);
    now = state(g, n);
    assert_string_equal(now, s3);
    free(now);
  }
  for (int i = 0; i < 3; i++) sinew_change_free(g, st[i]);
  free(empty);
  free(s1);
  free(s2);
  free(s3);
  sinew_graph_destroy(g);
}

/* removeMultiInstance of a packed element, rolled back and undone. */
static void test_remove_element(void **unused) {
  (void)unused;
  sinew_graph_t *g = graph();
  sinew_node_t n = node(g, "n");
  set_w(g, n, 2, (int32_t[]){0, 1, 2}, (double[]){0.5, 0.25, 0.25}, 3);
  char *before = state(g, n);
  sinew_plug_t e = weight_of(n, 2, 1);
  assert_int_equal(sinew_graph_begin(g), 0);
  assert_int_equal(sinew_plug_remove_element(g, &e), 0);
  sinew_plug_t w = weights_of(n, 2);
  assert_int_equal(sinew_plug_indices(g, &w, NULL, 0), 2);
  assert_int_equal(sinew_graph_rollback(g), 0);
  char *now = state(g, n);
  assert_string_equal(now, before);
  free(now);
  assert_true(packed(g, &w)); /* removing an element keeps the multi packed */
  /* undone after a read gave the multi slots in between: the element finds its room back */
  sinew_change_t *st;
  assert_int_equal(sinew_graph_begin(g), 0);
  assert_int_equal(sinew_plug_remove_element(g, &e), 0);
  assert_int_equal(sinew_graph_commit_step(g, &st), 0);
  assert_true(packed(g, &w));
  char *removed = state(g, n);
  sinew_plug_t e0 = weight_of(n, 2, 0);
  touch(g, &e0);
  assert_false(packed(g, &w));
  assert_int_equal(sinew_change_undo(g, st), 0);
  now = state(g, n);
  assert_string_equal(now, before);
  free(now);
  assert_int_equal(sinew_change_redo(g, st), 0);
  now = state(g, n);
  assert_string_equal(now, removed);
  free(now);
  sinew_change_free(g, st);
  /* outside a transaction */
  sinew_plug_t e2 = weight_of(n, 2, 2);
  assert_int_equal(sinew_plug_remove_element(g, &e2), 0);
  int32_t idx[4];
  assert_int_equal(sinew_plug_indices(g, &w, idx, 4), 1);
  assert_int_equal(idx[0], 0);
  set_w(g, n, 3, (int32_t[]){0, 1}, (double[]){1, 2}, 2);
  sinew_plug_t w3 = weights_of(n, 3), e31 = weight_of(n, 3, 1);
  assert_int_equal(sinew_plug_remove_element(g, &e31), 0);
  assert_true(packed(g, &w3));
  assert_int_equal(sinew_plug_indices(g, &w3, idx, 4), 1);
  assert_int_equal(sinew_plug_remove_element(g, &e31), SINEW_ENOTFOUND);
  free(removed);
  free(before);
  sinew_graph_destroy(g);
}

/* ---- connections, locks, dirt --------------------------------------------------------------- */

static void test_connections_and_locks(void **unused) {
  (void)unused;
  sinew_graph_t *g = graph();
  sinew_node_t n = node(g, "n"), o = node(g, "o");
  set_w(g, n, 1, (int32_t[]){0, 1, 2}, (double[]){0.5, 0.25, 0.25}, 3);
  /* into a packed element */
  sinew_plug_t src = sinew_plug_make(o, P_OUT, 0, NULL), osrc = sinew_plug_make(o, P_SRC, 0, NULL);
  assert_int_equal(sinew_set_double(g, &osrc, 9), 0);
  sinew_plug_t e1 = weight_of(n, 1, 1);
  assert_int_equal(sinew_connect(g, &src, &e1, 0, NULL), 0);
  double d = 0;
  assert_int_equal(sinew_get_double(g, &e1, &d), 0);
  assert_true(d == 9);
  sinew_plug_t sum = sinew_plug_make(n, P_SUM, 0, NULL);
  assert_int_equal(sinew_get_double(g, &sum, &d), 0);
  assert_true(d == (0.5 + 9 + 0.25) * 2);
  /* a bulk set over the connected element is refused, and changes nothing */
  char *before = state(g, n);
  sinew_plug_t w1 = weights_of(n, 1);
  assert_int_equal(sinew_set_double_elements(g, &w1, (int32_t[]){0, 1}, (double[]){1, 1}, 2), SINEW_ECONNECTED);
  char *now = state(g, n);
  assert_string_equal(now, before);
  free(now);
  free(before);
  /* dirt flows through the connection into the sum */
  assert_int_equal(sinew_set_double(g, &osrc, 3), 0);
  assert_true(sinew_plug_is_dirty(g, &sum));
  assert_int_equal(sinew_get_double(g, &sum, &d), 0);
  assert_true(d == (0.5 + 3 + 0.25) * 2);
  /* out of a packed element */
  set_w(g, n, 5, (int32_t[]){0, 1}, (double[]){0.125, 0.875}, 2);
  sinew_plug_t e5 = weight_of(n, 5, 1), oin = sinew_plug_make(o, P_SRC, 0, NULL);
  assert_int_equal(sinew_connect(g, &e5, &oin, SINEW_CONNECT_FORCE, NULL), 0);
  sinew_plug_t out = sinew_plug_make(o, P_OUT, 0, NULL);
  assert_int_equal(sinew_get_double(g, &out, &d), 0);
  assert_true(d == 0.875);
  /* a bulk set of the source element (the multi is in slot form now) reaches the destination */
  set_w(g, n, 5, (int32_t[]){1}, (double[]){0.5}, 1);
  assert_int_equal(sinew_get_double(g, &out, &d), 0);
  assert_true(d == 0.5);
  /* a lock on one packed element refuses a bulk set over it */
  set_w(g, n, 6, (int32_t[]){0, 1}, (double[]){0.5, 0.5}, 2);
  sinew_plug_t e6 = weight_of(n, 6, 0), w6 = weights_of(n, 6);
  assert_int_equal(sinew_plug_set_locked(g, &e6, true), 0);
  assert_true(sinew_plug_locked(g, &e6));
  assert_int_equal(sinew_set_double_elements(g, &w6, (int32_t[]){0}, (double[]){1}, 1), SINEW_ELOCKED);
  assert_int_equal(sinew_set_double_elements(g, &w6, (int32_t[]){1}, (double[]){1}, 1), 0);
  assert_int_equal(sinew_get_double(g, &e6, &d), 0);
  assert_true(d == 0.5);
  /* a lock on the array above refuses it too */
  set_w(g, n, 8, (int32_t[]){0}, (double[]){1}, 1);
  sinew_plug_t w8 = weights_of(n, 8), e8 = weight_of(n, 8, 0);
  assert_int_equal(sinew_plug_set_locked(g, &w8, true), 0);
  assert_true(sinew_plug_locked(g, &e8));
  assert_int_equal(sinew_set_double_elements(g, &w8, (int32_t[]){0}, (double[]){2}, 1), SINEW_ELOCKED);
  assert_true(packed(g, &w8));
  sinew_graph_destroy(g);
}

/* A whole multi fed by a connection copies into the destination, packed or not. */
static void test_whole_array_connection(void **unused) {
  (void)unused;
  sinew_graph_t *g = graph();
  sinew_node_t a = node(g, "a"), b = node(g, "b");
  sinew_plug_t va = vals_of(a), vb = vals_of(b);
  assert_int_equal(sinew_set_double_elements(g, &va, (int32_t[]){0, 4}, (double[]){1, 2}, 2), 0);
  assert_int_equal(sinew_set_double_elements(g, &vb, (int32_t[]){1, 4, 6}, (double[]){7, 7, 7}, 3), 0);
  assert_true(packed(g, &va) && packed(g, &vb));
  assert_int_equal(sinew_connect(g, &va, &vb, 0, NULL), 0);
  double d = 0;
  sinew_plug_t sum = sinew_plug_make(b, P_SUM, 0, NULL);
  assert_int_equal(sinew_get_double(g, &sum, &d), 0);
  assert_true(d == 3);
  int32_t idx[4];
  assert_int_equal(sinew_plug_indices(g, &vb, idx, 4), 2);
  assert_int_equal(idx[1], 4);
  /* a packed source changed in bulk dirties and refills the destination */
  assert_int_equal(sinew_set_double_elements(g, &va, (int32_t[]){9}, (double[]){5}, 1), 0);
  assert_int_equal(sinew_get_double(g, &sum, &d), 0);
  assert_true(d == 8);
  /* the fed destination is refused a set */
  assert_int_equal(sinew_set_double_elements(g, &vb, (int32_t[]){0}, (double[]){1}, 1), SINEW_ECONNECTED);
  sinew_graph_destroy(g);
}

/* ---- failures ------------------------------------------------------------------------------- */

/* Every allocation of a bulk set failing, in and out of a transaction: the graph as it was,
 * nothing leaked. */
static void test_alloc_failures(void **unused) {
  (void)unused;
  test_alloc_install();
  /* merged into a packed multi; a new vertex; a multi in slot form */
  for (int call = 0; call < 3; call++) {
    for (int tx = 0; tx < 2; tx++) {
      bool failed = false;
      for (long k = 1; k < 200; k++) {
        test_alloc_reset();
        sinew_graph_t *g = graph();
        sinew_node_t n = node(g, "n");
        set_w(g, n, 2, (int32_t[]){0, 3}, (double[]){0.5, 0.5}, 2);
        if (call == 2) {
          sinew_plug_t e = weight_of(n, 2, 3);
          touch(g, &e);
        }
        char *before = state(g, n);
        if (tx) assert_int_equal(sinew_graph_begin(g), 0);
        long start = test_alloc_count();
        test_alloc_fail_at(start + k);
        sinew_plug_t w = weights_of(n, call == 1 ? 9 : 2);
        int rc = sinew_set_double_elements(g, &w, (int32_t[]){1, 3}, (double[]){0.25, 0.125}, 2);
        long used = test_alloc_count() - start;
        test_alloc_fail_at(0);
        if (rc) {
          assert_int_equal(rc, SINEW_ENOMEM);
          failed = true;
        }
        if (tx) assert_int_equal(sinew_graph_rollback(g), 0);
        if (rc || tx) {
          char *now = state(g, n);
          assert_string_equal(now, before);
          free(now);
        }
        free(before);
        sinew_graph_destroy(g);
        assert_int_equal(test_alloc_live(), 0);
        if (!rc && used < k) break;
      }
      assert_true(failed);
    }
  }
  test_alloc_uninstall();
}

/* ---- sessions: the saved file, undo, the fault harness --------------------------------------- */

static sinew_session_t *session(void) {
  sinew_session_t *s = NULL;
  assert_int_equal(sinew_session_create(NULL, &s), 0);
  return s;
}

static void run(sinew_session_t *s, const char *text) {
  if (sinew_session_run(s, text, strlen(text), "test.mel", NULL)) fail_msg("%s\n-> %s", text, sinew_session_errmsg(s));
}

#define SKIN "createNode skinCluster -n sk;\n"
/* the compact weights form (held packed) and the same weights one element at a time */
#define COMPACT "setAttr \"sk.wl[0:2].w\" 2 0 0.25 3 0.75 1 1 1 3 0 0.5 2 0.125 5 0.375;\n"
#define SINGLE                                                                                         \
  "setAttr sk.wl[0].w[0] 0.25; setAttr sk.wl[0].w[3] 0.75; setAttr sk.wl[1].w[1] 1;"                    \
  " setAttr sk.wl[2].w[0] 0.5; setAttr sk.wl[2].w[2] 0.125; setAttr sk.wl[2].w[5] 0.375;\n"

static void test_saved_file_is_the_same(void **unused) {
  (void)unused;
  sinew_session_t *a = session(), *b = session();
  run(a, SKIN COMPACT);
  run(b, SKIN SINGLE);
  sinew_node_t sk;
  assert_int_equal(sinew_node_find(sinew_session_graph(a), "sk", &sk), 0);
  int32_t v0 = 0;
  sinew_plug_t w0 = sinew_plug_make(sk, sinew_node_attr(sinew_session_graph(a), sk, "w"), 1, &v0);
  assert_true(packed(sinew_session_graph(a), &w0));
  char *ta = test_scene_text(a), *tb = test_scene_text(b);
  if (strcmp(ta, tb)) {
    test_print_diff(ta, tb);
    fail_msg("the packed weights save differently");
  }
  assert_non_null(strstr(ta, "setAttr \".wl[0:2].w\""));
  /* read back: the file's weights load packed and save to the same bytes */
  sinew_session_t *c = session();
  assert_int_equal(sinew_session_run(c, ta, strlen(ta), "scene.ma", NULL), 0);
  char *tc = test_scene_text(c);
  assert_string_equal(tc, ta);
  /* getAttr of ranges and sizes */
  test_expect_nums(a, "getAttr -s sk.wl[2].w", 1, 3.0);
  test_expect_nums(a, "getAttr sk.wl[2].w", 3, 0.5, 0.125, 0.375);
  test_expect_nums(a, "getAttr sk.wl[0].w[3]", 1, 0.75);
  /* a read of one element (the multi takes slots) saves the same */
  test_expect_nums(a, "getAttr sk.wl[2].w[2]", 1, 0.125);
  char *ta2 = test_scene_text(a);
  assert_string_equal(ta2, ta);
  /* an undone compact set restores the weights exactly */
  run(a, "setAttr \"sk.wl[1:2].w\" 1 1 0.3 1 2 0.7;");
  run(a, "undo;");
  char *ta3 = test_scene_text(a);
  assert_string_equal(ta3, ta);
  run(a, "redo;");
  test_expect_nums(a, "getAttr sk.wl[2].w", 3, 0.5, 0.7, 0.375);
  free(ta);
  free(tb);
  free(tc);
  free(ta2);
  free(ta3);
  sinew_session_destroy(a);
  sinew_session_destroy(b);
  sinew_session_destroy(c);
}

/* Every allocation of the compact set and of an edit over packed weights failing: the scene
 * saved before and after is the same. */
static void test_fault_harness(void **unused) {
  (void)unused;
  assert_true(test_fault(SKIN, COMPACT) > 0);
  assert_true(test_fault(SKIN COMPACT, "setAttr \"sk.wl[1:3].w\" 1 1 0.3 1 2 0.7 2 0 1 9 2;") > 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bulk_set_is_packed),
      cmocka_unit_test(test_packed_matches_slot_form),
      cmocka_unit_test(test_rollback_undo_redo),
      cmocka_unit_test(test_remove_element),
      cmocka_unit_test(test_connections_and_locks),
      cmocka_unit_test(test_whole_array_connection),
      cmocka_unit_test(test_alloc_failures),
      cmocka_unit_test(test_saved_file_is_the_same),
      cmocka_unit_test(test_fault_harness),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
