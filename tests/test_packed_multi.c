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

/* The multi holding a whole-array plug's elements, or NULL. Looked at without unpacking
 * anything: inside a two-level multi (wl held whole) it is a view of the element's numbers. */
static const sinew__multi *multi_of(sinew_graph_t *g, const sinew_plug_t *arr) {
  sinew__node *n = sinew__node_get(g, arr->node);
  assert_non_null(n);
  sinew__multi *pm;
  uint32_t pos;
  sinew__slot *s = sinew__slot_peek(g, n, arr, NULL, &pm, &pos);
  return s ? s->v.multi : NULL;
}

/* Held without element slots: packed, or inside a two-level multi. */
static bool packed(sinew_graph_t *g, const sinew_plug_t *arr) { return sinew__multi_packed(multi_of(g, arr)); }

/* The node's whole weightList held two-level. */
static bool two_level(sinew_graph_t *g, sinew_node_t n) {
  sinew_plug_t wl = sinew_plug_make(n, P_WL, 0, NULL);
  return sinew__multi_csr(multi_of(g, &wl));
}

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

/* Puts the multis above an element into slot form, as something needing the element's own
 * slot does (a connection, a lock); changes nothing the API reports. */
static void touch(sinew_graph_t *g, const sinew_plug_t *e) {
  sinew__node *n = sinew__node_get(g, e->node);
  assert_non_null(n);
  assert_non_null(sinew__slot_find(g, n, e, NULL));
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
  /* a read of one element reads it where it is; something that needs its slot gives the
   * multi slots: the same numbers */
  double d = 0;
  assert_int_equal(sinew_get_double(g, &e, &d), 0);
  assert_true(d == -1);
  assert_true(packed(g, &w3));
  touch(g, &e);
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

/* ---- the two-level form -------------------------------------------------------------------- */

/* Vertices set in ascending order are held as one structure for the whole weightList; what
 * only reads (the bulk reader, indices, one element, queries, the compute) leaves it so. */
static void test_two_level_form(void **unused) {
  (void)unused;
  sinew_graph_t *g = graph();
  sinew_node_t n = node(g, "n");
  for (int32_t v = 0; v < 40; v += 3)
    set_w(g, n, v, (int32_t[]){v % 5, 7, 2, 7}, (double[]){0.5, 0.125, 0.25, 0.375}, 4);
  assert_true(two_level(g, n));
  sinew_plug_t wl = sinew_plug_make(n, P_WL, 0, NULL), w6 = weights_of(n, 6), e = weight_of(n, 6, 7);
  int32_t idx[8];
  double v[8];
  size_t k = 0;
  assert_int_equal(sinew_plug_indices(g, &wl, NULL, 0), 14);
  assert_int_equal(sinew_get_double_elements(g, &w6, idx, v, 8, &k), 0);
  assert_int_equal(k, 3); /* 6 % 5 = 1, 2, 7 (the last 7 wins) */
  assert_true(idx[0] == 1 && idx[1] == 2 && idx[2] == 7);
  assert_true(v[0] == 0.5 && v[1] == 0.25 && v[2] == 0.375);
  double d = 0;
  assert_int_equal(sinew_get_double(g, &e, &d), 0);
  assert_true(d == 0.375);
  sinew_plug_t absent = weight_of(n, 6, 3), gap = weights_of(n, 7);
  assert_int_equal(sinew_get_double(g, &absent, &d), 0);
  assert_true(d == 0);
  assert_false(sinew_plug_has_value(g, &absent));
  assert_true(sinew_plug_has_value(g, &e));
  assert_int_equal(sinew_plug_indices(g, &gap, NULL, 0), 0);
  assert_false(sinew_plug_locked(g, &e));
  assert_false(sinew_plug_is_dirty(g, &e));
  assert_false(sinew_plug_source(g, &e, NULL));
  assert_int_equal(sinew_plug_next_index(g, &wl), 0); /* as in slot form: wl[0] holds no value itself */
  assert_int_equal(sinew_plug_next_index(g, &w6), 0);
  sinew_plug_t sum = sinew_plug_make(n, P_SUM, 0, NULL);
  assert_int_equal(sinew_get_double(g, &sum, &d), 0);
  assert_true(two_level(g, n));
  char *before = state(g, n);
  assert_true(two_level(g, n));
  /* a lock needs the element's slot: the whole multi takes slots, the same state */
  assert_int_equal(sinew_plug_set_locked(g, &e, true), 0);
  assert_false(two_level(g, n));
  assert_int_equal(sinew_plug_set_locked(g, &e, false), 0);
  char *now = state(g, n);
  assert_string_equal(now, before);
  free(now);
  free(before);
  /* a multi in slot form takes new vertices element by element */
  set_w(g, n, 100, (int32_t[]){0}, (double[]){1}, 1);
  assert_false(two_level(g, n));
  sinew_plug_t w100 = weights_of(n, 100);
  assert_int_equal(sinew_plug_indices(g, &w100, NULL, 0), 1);
  /* a vertex set again, or one before the last, is edited in place: still two-level */
  sinew_node_t m = node(g, "m");
  set_w(g, m, 5, (int32_t[]){0}, (double[]){1}, 1);
  set_w(g, m, 9, (int32_t[]){0}, (double[]){1}, 1);
  assert_true(two_level(g, m));
  set_w(g, m, 7, (int32_t[]){1}, (double[]){2}, 1);
  assert_true(two_level(g, m));
  sinew_plug_t wlm = sinew_plug_make(m, P_WL, 0, NULL);
  assert_int_equal(sinew_plug_indices(g, &wlm, idx, 8), 3);
  assert_true(idx[0] == 5 && idx[1] == 7 && idx[2] == 9);
  /* a whole two-level weightList feeding another one (two-level too): the destination mirrors
   * it, and follows a later append to the source */
  sinew_node_t src = node(g, "src"), dst = node(g, "dst");
  set_w(g, src, 1, (int32_t[]){0, 2}, (double[]){0.25, 0.75}, 2);
  set_w(g, src, 4, (int32_t[]){1}, (double[]){1}, 1);
  set_w(g, dst, 0, (int32_t[]){3}, (double[]){5}, 1);
  set_w(g, dst, 8, (int32_t[]){3}, (double[]){5}, 1);
  assert_true(two_level(g, src) && two_level(g, dst));
  sinew_plug_t wls = sinew_plug_make(src, P_WL, 0, NULL), wld = sinew_plug_make(dst, P_WL, 0, NULL);
  assert_int_equal(sinew_connect(g, &wls, &wld, 0, NULL), 0);
  sinew_plug_t sd = sinew_plug_make(dst, P_SUM, 0, NULL);
  assert_int_equal(sinew_get_double(g, &sd, &d), 0);
  assert_true(d == (0.25 + 0.75) * 2 + 1 * 5);
  assert_true(two_level(g, src));
  set_w(g, src, 6, (int32_t[]){0}, (double[]){2}, 1);
  assert_true(sinew_plug_is_dirty(g, &sd));
  assert_int_equal(sinew_get_double(g, &sd, &d), 0);
  assert_true(d == (0.25 + 0.75) * 2 + 1 * 5 + 2 * 7);
  int32_t vs[8], vd[8];
  assert_int_equal(sinew_plug_indices(g, &wls, vs, 8), 3);
  assert_int_equal(sinew_plug_indices(g, &wld, vd, 8), 3);
  for (int q = 0; q < 3; q++) { /* the same vertices and numbers (a fed copy is not "set") */
    assert_int_equal(vs[q], vd[q]);
    sinew_plug_t ws = weights_of(src, vs[q]), wd = weights_of(dst, vd[q]);
    int32_t i1[8], i2[8];
    double v1[8], v2[8];
    size_t k1 = 0, k2 = 0;
    assert_int_equal(sinew_get_double_elements(g, &ws, i1, v1, 8, &k1), 0);
    assert_int_equal(sinew_get_double_elements(g, &wd, i2, v2, 8, &k2), 0);
    assert_int_equal(k1, k2);
    for (size_t i = 0; i < k1; i++) assert_true(i1[i] == i2[i] && v1[i] == v2[i]);
  }
  /* in-place edits of the source (a vertex removed, a weight set) reach the destination */
  sinew_plug_t s4 = sinew_plug_make(src, P_WL, 1, (int32_t[]){4}), s10 = weight_of(src, 1, 0);
  assert_int_equal(sinew_plug_remove_element(g, &s4), 0);
  assert_int_equal(sinew_set_double(g, &s10, 0.5), 0);
  assert_true(two_level(g, src));
  assert_int_equal(sinew_get_double(g, &sd, &d), 0);
  assert_true(d == (0.5 + 0.75) * 2 + 2 * 7);
  assert_int_equal(sinew_plug_indices(g, &wld, vd, 8), 2);
  assert_true(vd[0] == 1 && vd[1] == 6);
  sinew_graph_destroy(g);
}

/* Random edits, in and out of transactions that are rolled back or kept as steps and then
 * undone and redone, on a node whose weightList starts two-level (a) and on one kept in slot
 * form from the start (b): the API reports the same after every edit. */
static void set_w_rc(sinew_graph_t *g, sinew_node_t n, int32_t v, const int32_t *idx, const double *val, size_t k,
                     int *rc) {
  sinew_plug_t w = weights_of(n, v);
  *rc = sinew_set_double_elements(g, &w, idx, val, k);
}

static int edit(sinew_graph_t *g, sinew_node_t n, uint32_t seed, int32_t *next) {
  int rc = 0;
  int op = (int)((seed >> 8) % 64);
  int32_t v = (int32_t)((seed >> 16) % (uint32_t)(*next + 1));
  int32_t idx[6];
  double val[6];
  size_t k = 1 + (seed >> 4) % 6;
  uint32_t s2 = seed;
  for (size_t i = 0; i < k; i++) {
    s2 = s2 * 1103515245u + 12345u;
    idx[i] = (int32_t)((s2 >> 16) % 10);
    val[i] = (double)((s2 >> 8) % 1000) / 7.0;
  }
  if (op < 56) { /* the usual: the next vertex (the file, binding) */
    set_w_rc(g, n, *next, idx, val, k, &rc);
  } else if (op < 58) { /* a vertex again or in between */
    set_w_rc(g, n, v, idx, val, k, &rc);
  } else if (op == 58) {
    sinew_plug_t e = weight_of(n, v, idx[0]);
    rc = sinew_plug_remove_element(g, &e);
  } else if (op == 59) {
    sinew_plug_t e = sinew_plug_make(n, P_WL, 1, &v);
    rc = sinew_plug_remove_element(g, &e);
  } else if (op == 60) {
    sinew_plug_t e = weight_of(n, v, idx[0]);
    rc = sinew_set_double(g, &e, val[0]);
  } else if (op == 61) {
    sinew_plug_t e = weight_of(n, v, idx[0]);
    rc = sinew_plug_set_locked(g, &e, !sinew_plug_locked(g, &e));
  } else { /* something needs one element's slot, unjournaled */
    sinew_plug_t e = weight_of(n, v, idx[0]);
    sinew__node *node = sinew__node_get(g, n);
    sinew__slot_find(g, node, &e, NULL);
  }
  return rc;
}

static void test_two_level_matches_slot_form(void **unused) {
  (void)unused;
  sinew_graph_t *g = graph();
  sinew_node_t a = node(g, "a"), b = node(g, "b");
  /* b's weightList in slot form: an element made and removed leaves its table */
  set_w(g, b, 1000, (int32_t[]){0}, (double[]){1}, 1);
  sinew_plug_t b1000 = sinew_plug_make(b, P_WL, 1, (int32_t[]){1000});
  touch(g, &b1000);
  assert_int_equal(sinew_plug_remove_element(g, &b1000), 0);
  assert_false(two_level(g, b));
  uint32_t seed = 11;
  int32_t next = 0;
  int was_two_level = 0;
  for (int round = 0; round < 400; round++) {
    sinew_change_t *st[4];
    char *states[5];
    int mode = round % 3; /* 0: no transaction, 1: rolled back, 2: steps undone and redone */
    int nsteps = mode == 2 ? 4 : 1;
    states[0] = state(g, a);
    int32_t next0 = next;
    for (int s = 0; s < nsteps; s++) {
      if (mode) assert_int_equal(sinew_graph_begin(g), 0);
      for (int e = 0; e < 3; e++) { /* a few edits a step: runs of appends share a record */
        seed = seed * 1103515245u + 12345u;
        int ra = edit(g, a, seed, &next), rb = edit(g, b, seed, &next);
        assert_int_equal(ra, rb); /* refused alike (a locked element), or done alike */
        if ((seed >> 8) % 64 < 56) next++;
        was_two_level += two_level(g, a);
        expect_same(g, a, b);
      }
      if (mode == 1) {
        assert_int_equal(sinew_graph_rollback(g), 0);
        next = next0;
      }
      if (mode == 2) assert_int_equal(sinew_graph_commit_step(g, &st[s]), 0);
      states[s + 1] = state(g, a);
      expect_same(g, a, b);
    }
    if (mode == 1) {
      char *now = state(g, a);
      assert_string_equal(now, states[0]);
      free(now);
    }
    if (mode == 2) {
      for (int s = nsteps; s-- > 0;) {
        if (s == 2) { /* slots given between steps, unjournaled */
          int32_t v = (int32_t)(seed % (uint32_t)(next + 1));
          sinew_plug_t e = weight_of(a, v, 0);
          sinew__slot_find(g, sinew__node_get(g, a), &e, NULL); /* may not exist */
        }
        assert_int_equal(sinew_change_undo(g, st[s]), 0);
        char *now = state(g, a);
        assert_string_equal(now, states[s]);
        free(now);
        expect_same(g, a, b);
      }
      for (int s = 0; s < nsteps; s++) {
        assert_int_equal(sinew_change_redo(g, st[s]), 0);
        char *now = state(g, a);
        assert_string_equal(now, states[s + 1]);
        free(now);
        expect_same(g, a, b);
      }
      for (int s = 0; s < nsteps; s++) sinew_change_free(g, st[s]);
    }
    for (int s = 0; s <= nsteps; s++) free(states[s]);
    /* now and then the whole weightList goes, so a starts two-level again */
    if (round % 4 == 3) {
      sinew_plug_t wa = sinew_plug_make(a, P_WL, 0, NULL), wb = sinew_plug_make(b, P_WL, 0, NULL);
      int32_t ix[512];
      size_t nv = sinew_plug_indices(g, &wa, ix, 512);
      for (size_t i = 0; i < nv; i++) {
        sinew_plug_t ea = sinew_plug_make(a, P_WL, 1, &ix[i]), eb = sinew_plug_make(b, P_WL, 1, &ix[i]);
        assert_int_equal(sinew_plug_remove_element(g, &ea), 0);
        assert_int_equal(sinew_plug_remove_element(g, &eb), 0);
      }
      assert_int_equal(sinew_plug_indices(g, &wb, NULL, 0), 0);
      sinew__node *na = sinew__node_get(g, a);
      sinew__slot_release(g, na, sinew__attr_get(g, na, P_WL), false, &na->slots[sinew__attr_get(g, na, P_WL)->slot_index]);
      next = 0;
    }
  }
  print_message("two-level in %d of the edits\n", was_two_level);
  assert_true(was_two_level > 600); /* the two-level form was exercised */
  sinew_graph_destroy(g);
}

/* ---- in-place edits of a two-level multi ---------------------------------------------------- */

/* The existing vertices of n's weightList (up to 512). */
static size_t verts_of(sinew_graph_t *g, sinew_node_t n, int32_t *out) {
  sinew_plug_t wl = sinew_plug_make(n, P_WL, 0, NULL);
  return sinew_plug_indices(g, &wl, out, 512);
}

/* One edit of the kinds a rigger's script makes (the same on both nodes, chosen from a's
 * vertices): 0 new values of a vertex's existing weights, 1 a new weight in a vertex, 2 a new
 * vertex before the last, 3 one weight removed, 4 one vertex removed, 5 one weight set on
 * its own (existing or new), 6 a vertex past the last (an append). Returns both codes. */
static void in_place_edit_of(sinew_graph_t *g, sinew_node_t a, sinew_node_t b, int nodes, uint32_t seed, int *ra,
                             int *rb) {
  int32_t vs[512], wi[16];
  double wv[16];
  size_t nv = verts_of(g, a, vs), nw = 0;
  int op = (int)(((seed >> 4) & 0xff) % 7);
  int32_t v = nv ? vs[(seed >> 12) % nv] : 0;
  if (nv) {
    sinew_plug_t w = weights_of(a, v);
    assert_int_equal(sinew_get_double_elements(g, &w, wi, wv, 16, &nw), 0);
  }
  if (!nv || op == 6) op = 6, v = nv ? vs[nv - 1] + 1 + (int32_t)(seed >> 20) % 3 : 0;
  if (op == 2) { /* a gap below the last vertex, else an append */
    int32_t lo = 0;
    for (size_t i = 0; i < nv; i++, lo++)
      if (vs[i] != lo) break;
    v = lo;
  }
  double x = 1 + (double)((seed >> 14) % 1000) / 8.0;
  int32_t i0 = nw ? wi[(seed >> 16) % nw] : 0, fresh = 0;
  for (size_t i = 0; i < nw; i++)
    if (wi[i] == fresh) fresh++, i = (size_t)-1; /* the smallest weight index not held */
  sinew_node_t ns[2] = {a, b};
  for (int k = 0; k < nodes; k++) {
    sinew_node_t n = ns[k];
    int rc;
    if (op == 0 && nw) {
      double nwv[16];
      for (size_t i = 0; i < nw; i++) nwv[i] = wv[i] * 0.5 + x;
      sinew_plug_t w = weights_of(n, v);
      rc = sinew_set_double_elements(g, &w, wi, nwv, nw);
    } else if (op == 1 || op == 2 || op == 6 || (op == 0 && !nw)) {
      sinew_plug_t w = weights_of(n, v);
      rc = sinew_set_double_elements(g, &w, (int32_t[]){fresh, i0, fresh}, (double[]){x, x + 1, x + 2}, 3);
    } else if (op == 3) {
      sinew_plug_t e = weight_of(n, v, nw ? i0 : 0);
      rc = sinew_plug_remove_element(g, &e);
    } else if (op == 4) {
      sinew_plug_t e = sinew_plug_make(n, P_WL, 1, &v);
      rc = sinew_plug_remove_element(g, &e);
    } else {
      sinew_plug_t e = weight_of(n, v, (seed >> 24) % 2 ? fresh : i0);
      rc = sinew_set_double(g, &e, x);
    }
    *(k ? rb : ra) = rc;
  }
}

static void in_place_edit(sinew_graph_t *g, sinew_node_t a, sinew_node_t b, uint32_t seed, int *ra, int *rb) {
  in_place_edit_of(g, a, b, 2, seed, ra, rb);
}

/* A whole weightList feeds n for a moment and goes (rolled back): the record of n's multi is
 * a copy of it (a clone), put back live, which later edits change in place. */
static void fed_and_rolled_back(sinew_graph_t *g, sinew_node_t src, sinew_node_t n) {
  sinew_plug_t s = sinew_plug_make(src, P_WL, 0, NULL), d = sinew_plug_make(n, P_WL, 0, NULL);
  sinew_plug_t sum = sinew_plug_make(n, P_SUM, 0, NULL);
  double x;
  assert_int_equal(sinew_graph_begin(g), 0);
  assert_int_equal(sinew_connect(g, &s, &d, 0, NULL), 0);
  assert_int_equal(sinew_get_double(g, &sum, &x), 0);
  assert_int_equal(sinew_graph_rollback(g), 0);
}

/* Random in-place edits of a two-level weightList (a) and the same on one in slot form (b),
 * without a transaction, in transactions rolled back (nested ones too, and a command failing
 * after edits), and as steps undone and redone: the API reports the same after every step,
 * and a stays two-level throughout. */
static void test_edits_stay_two_level(void **unused) {
  (void)unused;
  test_alloc_install();
  sinew_graph_t *g = graph();
  sinew_node_t a = node(g, "a"), b = node(g, "b"), src = node(g, "src");
  set_w(g, src, 3, (int32_t[]){1}, (double[]){0.5}, 1);
  for (int32_t v = 0; v < 24; v += 1 + v % 3) {
    set_w(g, a, v, (int32_t[]){v % 4, 5, 1}, (double[]){0.25 * v, 1, 2}, 3);
    set_w(g, b, v, (int32_t[]){v % 4, 5, 1}, (double[]){0.25 * v, 1, 2}, 3);
  }
  sinew_plug_t b0 = sinew_plug_make(b, P_WL, 1, (int32_t[]){0});
  touch(g, &b0);
  assert_true(two_level(g, a));
  assert_false(two_level(g, b));
  expect_same(g, a, b);
  uint32_t seed = 7;
  int ops = 0, failures = 0;
  for (int round = 0; round < 300; round++) {
    int mode = round % 5; /* none, rolled back, steps, nested, a command failing */
    int nsteps = mode == 2 ? 3 : 1;
    sinew_change_t *st[3];
    char *states[4];
    states[0] = state(g, a);
    for (int s = 0; s < nsteps; s++) {
      if (mode) assert_int_equal(sinew_graph_begin(g), 0);
      for (int e = 0; e < 4; e++) {
        if (mode == 3 && e == 2) assert_int_equal(sinew_graph_begin(g), 0);
        seed = seed * 1103515245u + 12345u;
        int ra, rb;
        if (seed % 3 == 0) { /* first on a alone with one of its first allocations failing */
          char *pre = state(g, a);
          test_alloc_fail_at(test_alloc_count() + 1 + (seed >> 24) % 3);
          int r, unused_rb;
          in_place_edit_of(g, a, b, 1, seed, &r, &unused_rb);
          test_alloc_fail_at(0);
          char *post = state(g, a);
          if (r) { /* refused whole: out of memory, or refused as b will be */
            assert_string_equal(post, pre);
            failures += r == SINEW_ENOMEM;
          }
          free(pre);
          free(post);
          if (!r) { /* made: b follows on its own (the seed picks the same vertex) */
            in_place_edit_of(g, b, a, 1, seed, &rb, &unused_rb);
            assert_int_equal(rb, 0);
            ops++;
            assert_true(two_level(g, a));
            expect_same(g, a, b);
            continue;
          }
        }
        in_place_edit(g, a, b, seed, &ra, &rb);
        assert_int_equal(ra, rb);
        ops++;
        if (!two_level(g, a)) fail_msg("round %d edit %d: op %d rc %d", round, e, (int)(((seed >> 4) & 0xff) % 7), ra);
        expect_same(g, a, b);
      }
      if (mode == 3) { /* the inner transaction rolled back, the outer kept */
        assert_int_equal(sinew_graph_rollback(g), 0);
        expect_same(g, a, b);
        assert_true(two_level(g, a));
        assert_int_equal(sinew_graph_commit_step(g, &st[0]), 0);
      } else if (mode == 4) { /* a command failing after its edits: all taken back */
        sinew_plug_t w = weights_of(a, 1);
        int rc = sinew_set_double_elements(g, &w, (int32_t[]){-1}, (double[]){1}, 1);
        assert_int_equal(sinew_graph_end(g, rc), SINEW_ERANGE);
      } else if (mode == 1) {
        assert_int_equal(sinew_graph_rollback(g), 0);
      } else if (mode == 2) {
        assert_int_equal(sinew_graph_commit_step(g, &st[s]), 0);
      }
      states[s + 1] = state(g, a);
      assert_true(two_level(g, a));
      expect_same(g, a, b);
    }
    if (mode == 1 || mode == 4) {
      char *now = state(g, a);
      assert_string_equal(now, states[0]);
      free(now);
    }
    if (mode == 2 || mode == 3) {
      for (int s = nsteps; s-- > 0;) {
        assert_int_equal(sinew_change_undo(g, st[s]), 0);
        char *now = state(g, a);
        assert_string_equal(now, states[s]);
        free(now);
        assert_true(two_level(g, a));
        expect_same(g, a, b);
      }
      for (int s = 0; s < nsteps; s++) {
        assert_int_equal(sinew_change_redo(g, st[s]), 0);
        char *now = state(g, a);
        assert_string_equal(now, states[s + 1]);
        free(now);
        assert_true(two_level(g, a));
        expect_same(g, a, b);
      }
      /* undone again and kept undone now and then: the next edits start from the header a
       * step put back (steps freed later, as an undo queue drops them) */
      if (round % 3 == 0)
        for (int s = nsteps; s-- > 0;) assert_int_equal(sinew_change_undo(g, st[s]), 0);
      for (int s = 0; s < nsteps; s++) sinew_change_free(g, st[s]);
      expect_same(g, a, b);
    }
    for (int s = 0; s <= nsteps; s++) free(states[s]);
    /* the budget of shifted elements (test_edit_budget) left aside: a small multi edited this
     * often would spend it and go to slot form */
    sinew_plug_t wla = sinew_plug_make(a, P_WL, 0, NULL);
    ((sinew__multi *)multi_of(g, &wla))->csr->moved = 0;
    if (round % 7 == 6) {
      fed_and_rolled_back(g, src, a);
      fed_and_rolled_back(g, src, b);
      assert_true(two_level(g, a));
      expect_same(g, a, b);
    }
  }
  print_message("%d in-place edits, %d refused by a failing allocation\n", ops, failures);
  assert_true(failures > 50);
  sinew_graph_destroy(g);
  assert_int_equal(test_alloc_live(), 0);
  test_alloc_uninstall();
}

/* Inserting a weight into every vertex in turn, front first, shifts the arrays' tail each time:
 * past the budget (64 times the multi's size, plus 64K elements) the multi goes to slot form,
 * so the loop stays linear; value edits shift nothing and never spend it. */
static void test_edit_budget(void **unused) {
  (void)unused;
  sinew_graph_t *g = graph();
  sinew_node_t a = node(g, "a");
  enum { NV = 6000 };
  for (int32_t v = 0; v < NV; v++) set_w(g, a, v, (int32_t[]){0, 1, 2, 3}, (double[]){0.25, 0.25, 0.25, 0.25}, 4);
  sinew_plug_t wl = sinew_plug_make(a, P_WL, 0, NULL);
  for (int round = 0; round < 3; round++)
    for (int32_t v = 0; v < NV; v++) set_w(g, a, v, (int32_t[]){1, 2}, (double[]){0.125 * round, 0.5}, 2);
  assert_true(two_level(g, a));
  assert_true(multi_of(g, &wl)->csr->moved == 0);
  int32_t v = 0;
  uint64_t budget = 64 * ((uint64_t)NV * 4 + NV) + 65536, moved = 0;
  for (; v < NV && two_level(g, a); v++) {
    moved = multi_of(g, &wl)->csr->moved;
    set_w(g, a, v, (int32_t[]){9}, (double[]){0.5}, 1);
  }
  assert_true(v < NV);      /* it went to slot form before the end */
  assert_true(v > 3);       /* after a few full-length shifts */
  assert_true(moved <= budget);
  for (; v < NV; v++) set_w(g, a, v, (int32_t[]){9}, (double[]){0.5}, 1);
  sinew_plug_t w = weights_of(a, NV - 1);
  assert_int_equal(sinew_plug_indices(g, &w, NULL, 0), 5);
  sinew_graph_destroy(g);
}

/* Steps holding in-place edits of a node deleted outside a transaction: their records let go
 * of the arrays (nothing leaks, ASan), the steps can no longer apply, and a second node's
 * steps still do. */
static void test_edits_of_a_deleted_node(void **unused) {
  (void)unused;
  test_alloc_install();
  sinew_graph_t *g = graph();
  sinew_node_t a = node(g, "a"), c = node(g, "c");
  for (int32_t v = 0; v < 8; v++) {
    set_w(g, a, v, (int32_t[]){0, 1}, (double[]){0.5, 0.5}, 2);
    set_w(g, c, v, (int32_t[]){0, 1}, (double[]){0.5, 0.5}, 2);
  }
  sinew_change_t *st[2];
  char *before = state(g, c);
  for (int s = 0; s < 2; s++) {
    assert_int_equal(sinew_graph_begin(g), 0);
    set_w(g, a, 3, (int32_t[]){4}, (double[]){0.25}, 1);
    set_w(g, c, 3, (int32_t[]){4}, (double[]){0.25}, 1);
    sinew_plug_t e = weight_of(a, 5, s), f = weight_of(c, 5, s);
    assert_int_equal(sinew_plug_remove_element(g, &e), 0);
    assert_int_equal(sinew_plug_remove_element(g, &f), 0);
    assert_int_equal(sinew_graph_commit_step(g, &st[s]), 0);
  }
  assert_int_equal(sinew_change_undo(g, st[1]), 0); /* one undone (a redo step), one done */
  assert_true(two_level(g, a) && two_level(g, c));
  assert_int_equal(sinew_node_delete(g, a), 0);
  assert_int_equal(sinew_change_redo(g, st[1]), SINEW_ESTALE);
  assert_int_equal(sinew_change_undo(g, st[0]), SINEW_ESTALE);
  char *now = state(g, c);
  assert_string_not_equal(now, before);
  free(now);
  for (int s = 0; s < 2; s++) sinew_change_free(g, st[s]);
  free(before);
  assert_true(two_level(g, c));
  sinew_graph_destroy(g);
  assert_int_equal(test_alloc_live(), 0);
  test_alloc_uninstall();
}

/* Each in-place edit with every allocation failing in turn, outside a transaction and inside
 * one rolled back, on a multi whose arrays only it views and on one an undo step's record also
 * views (the edit then copies them, or journals beside them): a failing call changes nothing,
 * a rollback gives the state from before, and a call that succeeds keeps the multi two-level
 * with what the slot form shows. */
static void test_edit_alloc_failures(void **unused) {
  (void)unused;
  test_alloc_install();
  for (int op = 0; op < 7; op++) {
    for (int variant = 0; variant < 4; variant++) { /* bit 0: in a transaction; bit 1: a step holds a header */
      bool tx = variant & 1, step = variant & 2, failed = false;
      for (long k = 1; k < 600; k++) {
        test_alloc_reset();
        sinew_graph_t *g = graph();
        sinew_node_t a = node(g, "a"), b = node(g, "b");
        sinew_change_t *st = NULL;
        for (int32_t v = 0; v < 12; v += 2) {
          if (step && v == 10) assert_int_equal(sinew_graph_begin(g), 0);
          set_w(g, a, v, (int32_t[]){0, 2, 3}, (double[]){0.5, 0.25, 0.25}, 3);
          set_w(g, b, v, (int32_t[]){0, 2, 3}, (double[]){0.5, 0.25, 0.25}, 3);
        }
        if (step) assert_int_equal(sinew_graph_commit_step(g, &st), 0);
        sinew_plug_t b0 = sinew_plug_make(b, P_WL, 1, (int32_t[]){0});
        touch(g, &b0);
        int rb = 0, ra = 0;
        uint32_t seed = (uint32_t)op << 4; /* vertex 0, its first weight */
        char *before = state(g, a);
        if (tx) assert_int_equal(sinew_graph_begin(g), 0);
        long start = test_alloc_count();
        test_alloc_fail_at(start + k);
        in_place_edit(g, a, b, seed, &ra, &rb);
        long used = test_alloc_count() - start;
        test_alloc_fail_at(0);
        if (ra) {
          assert_int_equal(ra, SINEW_ENOMEM);
          failed = true;
          char *now = state(g, a);
          assert_string_equal(now, before);
          free(now);
        } else if (!rb) {
          assert_true(two_level(g, a));
          expect_same(g, a, b);
        }
        if (tx) {
          assert_int_equal(sinew_graph_rollback(g), 0);
          char *now = state(g, a);
          assert_string_equal(now, before);
          free(now);
          assert_true(two_level(g, a));
        }
        if (st) { /* the older step undone and redone around the edit */
          assert_int_equal(sinew_change_undo(g, st), 0);
          assert_int_equal(sinew_change_redo(g, st), 0);
          sinew_change_free(g, st);
        }
        free(before);
        sinew_graph_destroy(g);
        assert_int_equal(test_alloc_live(), 0);
        if (!ra && !rb && used < k) break;
      }
      /* an append outside a transaction writes into the room the arrays have */
      if (!failed && (op != 6 || tx)) fail_msg("op %d variant %d never failed", op, variant);
    }
  }
  test_alloc_uninstall();
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
      /* a new vertex appended outside a transaction fits in the arrays' room: no allocation */
      assert_true(failed || (call == 1 && !tx));
    }
  }
  test_alloc_uninstall();
}

/* Appends to a two-level multi with every allocation failing: the first vertex, one that
 * outgrows the arrays (grown in place, or copied when a journal record shares them), one
 * after another in the same transaction (sharing the record), and the first unpack after
 * that (rollback must still find the appended vertices). */
static void test_two_level_alloc_failures(void **unused) {
  (void)unused;
  test_alloc_install();
  int32_t big_i[20];
  double big_v[20];
  for (int i = 0; i < 20; i++) big_i[i] = 19 - i, big_v[i] = 1.0 / (i + 1);
  for (int call = 0; call < 4; call++) {
    for (int tx = 0; tx < 2; tx++) {
      bool failed = false;
      for (long k = 1; k < 400; k++) {
        test_alloc_reset();
        sinew_graph_t *g = graph();
        sinew_node_t n = node(g, "n");
        if (call) set_w(g, n, 2, (int32_t[]){0, 3}, (double[]){0.5, 0.5}, 2);
        if (tx) assert_int_equal(sinew_graph_begin(g), 0);
        if (call >= 2) set_w(g, n, 4, (int32_t[]){1}, (double[]){0.25}, 1);
        char *before = state(g, n);
        long start = test_alloc_count();
        test_alloc_fail_at(start + k);
        int rc;
        if (call < 3) {
          sinew_plug_t w = weights_of(n, 9);
          rc = sinew_set_double_elements(g, &w, big_i, big_v, call == 0 ? 3 : 20);
        } else { /* a lock needs the element's slot */
          sinew_plug_t e = weight_of(n, 4, 1);
          rc = sinew_plug_set_locked(g, &e, true);
        }
        long used = test_alloc_count() - start;
        test_alloc_fail_at(0);
        if (rc) {
          assert_int_equal(rc, SINEW_ENOMEM);
          failed = true;
          char *now = state(g, n);
          assert_string_equal(now, before);
          free(now);
        }
        if (tx) {
          assert_int_equal(sinew_graph_rollback(g), 0);
          char *now = state(g, n);
          sinew_graph_t *g2 = graph(); /* what the rollback must give: the first set only */
          sinew_node_t n2 = node(g2, "n");
          if (call) set_w(g2, n2, 2, (int32_t[]){0, 3}, (double[]){0.5, 0.5}, 2);
          char *want = state(g2, n2);
          assert_string_equal(now, want);
          free(want);
          free(now);
          sinew_graph_destroy(g2);
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

/* Binding writes the weights vertex by vertex in ascending order: they are held two-level; a
 * skinPercent edit of one vertex keeps them so, and undoing it and the bind restores the saved
 * scene. */
static void test_bind_is_two_level(void **unused) {
  (void)unused;
  sinew_session_t *s = session();
  run(s, "createNode transform -n geo; createNode mesh -n geoShape -p geo; createNode polyCylinder -n pc;\n"
         "setAttr pc.sa 6; setAttr pc.sh 4; connectAttr pc.output geoShape.inMesh;\n"
         "createNode joint -n j1; setAttr j1.ty -1; createNode joint -n j2 -p j1; setAttr j2.ty 2;\n"
         "select -cl;\n");
  char *plain = test_scene_text(s);
  run(s, "skinCluster -n sk -tsb -mi 2 j1 j2 geo;");
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_node_t sk;
  assert_int_equal(sinew_node_find(g, "sk", &sk), 0);
  sinew__node *n = sinew__node_get(g, sk);
  const sinew__attr *wl = sinew__attr_get(g, n, sinew_node_attr(g, sk, "wl"));
  assert_true(sinew__multi_csr(n->slots[wl->slot_index].v.multi));
  char *bound = test_scene_text(s);
  assert_true(sinew__multi_csr(n->slots[wl->slot_index].v.multi)); /* saving read it in place */
  run(s, "skinPercent -tv j1 0.25 sk geo.vtx[3];");
  test_expect_nums(s, "getAttr sk.wl[3].w", 2, 0.25, 0.75);
  assert_true(sinew__multi_csr(n->slots[wl->slot_index].v.multi));
  run(s, "undo;");
  assert_true(sinew__multi_csr(n->slots[wl->slot_index].v.multi));
  char *now = test_scene_text(s);
  assert_string_equal(now, bound);
  free(now);
  run(s, "undo;");
  now = test_scene_text(s);
  assert_string_equal(now, plain);
  free(now);
  run(s, "redo; redo;");
  test_expect_nums(s, "getAttr sk.wl[3].w", 2, 0.25, 0.75);
  free(bound);
  free(plain);
  sinew_session_destroy(s);
}

/* A 6 x 4 cylinder bound to a chain of three joints, at most 3 weights a vertex (the MEL
 * per-vertex edit tests). */
static const char three_joint_rig[] =
    "createNode transform -n geo; createNode mesh -n geoShape -p geo; createNode polyCylinder -n pc;\n"
    "setAttr pc.sa 6; setAttr pc.sh 4; connectAttr pc.output geoShape.inMesh;\n"
    "createNode joint -n j1; setAttr j1.ty -1; createNode joint -n j2 -p j1; setAttr j2.ty 2;\n"
    "createNode joint -n j3 -p j2; setAttr j3.ty 2; select -cl;\n"
    "skinCluster -n sk -tsb -mi 3 j1 j2 j3 geo;\n";

/* Per-vertex edits from MEL (skinPercent of single vertices, setAttr of one weight, a weight
 * and a vertex removed) on two-level weights, and the same on weights given slots first (a
 * lock set and cleared): the same saved scene, the weights still two-level, and undoing them
 * all gives the bound scene back. */
static void test_mel_vertex_edits(void **unused) {
  (void)unused;
  const char *edits = "skinPercent -tv j1 1 sk geo.vtx[12]; skinPercent -tv j3 0.5 sk geo.vtx[2];\n"
                      "skinPercent -tv j2 0.2 -tv j3 0.3 sk geo.vtx[20]; setAttr sk.wl[5].w[1] 0.125;\n"
                      "removeMultiInstance sk.wl[7].w[0]; removeMultiInstance sk.wl[9];\n"
                      "setAttr \"sk.wl[3].w[0:1]\" 0.5 0.5; setAttr sk.wl[40].w[2] 1;\n";
  sinew_session_t *a = session(), *b = session();
  run(a, three_joint_rig);
  run(b, three_joint_rig);
  char *bound = test_scene_text(a);
  run(b, "setAttr -l on sk.wl[0].w[0]; setAttr -l off sk.wl[0].w[0];");
  sinew_graph_t *ga = sinew_session_graph(a), *gb = sinew_session_graph(b);
  sinew_node_t ska, skb;
  assert_int_equal(sinew_node_find(ga, "sk", &ska), 0);
  assert_int_equal(sinew_node_find(gb, "sk", &skb), 0);
  sinew_plug_t wla = sinew_plug_make(ska, sinew_node_attr(ga, ska, "wl"), 0, NULL);
  sinew_plug_t wlb = sinew_plug_make(skb, sinew_node_attr(gb, skb, "wl"), 0, NULL);
  assert_true(sinew__multi_csr(multi_of(ga, &wla)));
  assert_false(sinew__multi_csr(multi_of(gb, &wlb)));
  run(a, edits);
  run(b, edits);
  assert_true(sinew__multi_csr(multi_of(ga, &wla)));
  char *ta = test_scene_text(a), *tb = test_scene_text(b);
  if (strcmp(ta, tb)) {
    test_print_diff(ta, tb);
    fail_msg("in-place edits save differently from the slot form");
  }
  test_expect_nums(a, "getAttr sk.wl[12].w", 1, 1.0);
  test_expect_nums(a, "getAttr -s sk.wl[9].w", 1, 0.0);
  for (int i = 0; i < 8; i++) run(a, "undo;"); /* the 8 commands of edits */
  assert_true(sinew__multi_csr(multi_of(ga, &wla)));
  char *now = test_scene_text(a);
  assert_string_equal(now, bound);
  free(now);
  for (int i = 0; i < 8; i++) run(a, "redo;");
  now = test_scene_text(a);
  assert_string_equal(now, ta);
  free(now);
  free(ta);
  free(tb);
  free(bound);
  sinew_session_destroy(a);
  sinew_session_destroy(b);
}

/* Every allocation of the compact set and of an edit over packed weights failing: the scene
 * saved before and after is the same. */
static void test_fault_harness(void **unused) {
  (void)unused;
  assert_true(test_fault(SKIN, COMPACT) > 0);
  assert_true(test_fault(SKIN COMPACT, "setAttr \"sk.wl[1:3].w\" 1 1 0.3 1 2 0.7 2 0 1 9 2;") > 0);
  /* in-place edits of one vertex: an insert, removals, a value after an earlier step's insert */
  assert_true(test_fault(SKIN COMPACT, "setAttr sk.wl[1].w[4] 0.5;") > 0);
  assert_true(test_fault(SKIN COMPACT, "removeMultiInstance sk.wl[0].w[3];") > 0);
  assert_true(test_fault(SKIN COMPACT, "removeMultiInstance sk.wl[2];") > 0);
  assert_true(test_fault(SKIN COMPACT "setAttr sk.wl[1].w[4] 0.5;", "setAttr sk.wl[1].w[1] 0.25;") > 0);
}

/* ---- review of the in-place edits (issue 16) ------------------------------------------------ */

/* Edits refused for a bad or absent index change nothing and leave the weightList two-level. */
static void test_refused_edits_keep_two_level(void **unused) {
  (void)unused;
  sinew_graph_t *g = graph();
  sinew_node_t a = node(g, "a");
  for (int32_t v = 0; v < 12; v++) set_w(g, a, v, (int32_t[]){0, 2}, (double[]){0.5, 0.25}, 2);
  char *before = state(g, a);
  sinew_plug_t p = weight_of(a, 3, -1);
  assert_int_equal(sinew_set_double(g, &p, 1), SINEW_ERANGE);
  p = weight_of(a, -2, 0);
  assert_int_equal(sinew_set_double(g, &p, 1), SINEW_ERANGE);
  p = weight_of(a, 3, -1);
  assert_int_equal(sinew_plug_remove_element(g, &p), SINEW_ERANGE);
  p = weight_of(a, 3, 7);
  assert_int_equal(sinew_plug_remove_element(g, &p), SINEW_ENOTFOUND);
  assert_non_null(strstr(sinew_graph_errmsg(g), "a.weightList[3].weights[7] does not exist"));
  p = sinew_plug_make(a, P_WL, 1, (int32_t[]){40});
  assert_int_equal(sinew_plug_remove_element(g, &p), SINEW_ENOTFOUND);
  assert_true(two_level(g, a));
  char *after = state(g, a);
  assert_string_equal(after, before);
  free(before);
  free(after);
  sinew_graph_destroy(g);
}

/* In-place edits as a step, then a whole weightList connected as the next step: undone before
 * and after the pull (the pull puts the multi in slot form; the record holds a copy), redone,
 * and edited again on what the undo put back: each state exactly as it was, as the slot form. */
static void test_feed_as_a_step(void **unused) {
  (void)unused;
  sinew_graph_t *g = graph();
  sinew_node_t a = node(g, "a"), b = node(g, "b"), src = node(g, "src");
  sinew_node_t ns[2] = {a, b};
  for (int32_t v = 0; v < 12; v++) {
    set_w(g, a, v, (int32_t[]){0, 2}, (double[]){0.5, 0.25}, 2);
    set_w(g, b, v, (int32_t[]){0, 2}, (double[]){0.5, 0.25}, 2);
    set_w(g, src, v, (int32_t[]){1}, (double[]){0.125 * v}, 1);
  }
  sinew_plug_t b0 = sinew_plug_make(b, P_WL, 1, (int32_t[]){0});
  touch(g, &b0);
  assert_true(two_level(g, a));
  sinew_change_t *st[3];
  char *s0 = state(g, a);
  assert_int_equal(sinew_graph_begin(g), 0);
  for (int k = 0; k < 2; k++) {
    set_w(g, ns[k], 4, (int32_t[]){1, 3}, (double[]){0.1, 0.2}, 2);
    sinew_plug_t e = weight_of(ns[k], 6, 0);
    assert_int_equal(sinew_plug_remove_element(g, &e), 0);
    sinew_plug_t o = sinew_plug_make(ns[k], P_WL, 1, (int32_t[]){8});
    assert_int_equal(sinew_plug_remove_element(g, &o), 0);
  }
  assert_int_equal(sinew_graph_commit_step(g, &st[0]), 0);
  assert_true(two_level(g, a));
  expect_same(g, a, b);
  char *s1 = state(g, a);
  assert_int_equal(sinew_graph_begin(g), 0);
  for (int k = 0; k < 2; k++) {
    sinew_plug_t s = sinew_plug_make(src, P_WL, 0, NULL), d = sinew_plug_make(ns[k], P_WL, 0, NULL);
    assert_int_equal(sinew_connect(g, &s, &d, 0, NULL), 0);
  }
  assert_int_equal(sinew_graph_commit_step(g, &st[1]), 0);
  char *expect[] = {s1, s0};
  for (int pulled = 0; pulled < 2; pulled++) {
    if (pulled) { /* redone, and pulled: a mirrors src (wl[8], removed before, comes back) */
      assert_int_equal(sinew_change_redo(g, st[0]), 0);
      assert_int_equal(sinew_change_redo(g, st[1]), 0);
      for (int k = 0; k < 2; k++) {
        double x;
        sinew_plug_t sum = sinew_plug_make(ns[k], P_SUM, 0, NULL);
        assert_int_equal(sinew_get_double(g, &sum, &x), 0);
        assert_true(x == 71.5);
      }
      assert_int_equal(verts_of(g, a, (int32_t[512]){0}), 12);
      expect_same(g, a, b);
    }
    for (int s = 1; s >= 0; s--) {
      assert_int_equal(sinew_change_undo(g, st[s]), 0);
      char *now = state(g, a);
      assert_string_equal(now, expect[1 - s]);
      free(now);
      expect_same(g, a, b);
    }
    assert_true(two_level(g, a)); /* the header from before the edits */
  }
  /* redo the edits, edit what the undo of the feed puts back, take it all back (an undone
   * feed that was never pulled leaves the weightList dirty, so the first read of it above gave
   * it slots: the header the feed's record holds by now is in slot form) */
  assert_int_equal(sinew_change_redo(g, st[0]), 0);
  assert_int_equal(sinew_change_redo(g, st[1]), 0);
  assert_int_equal(sinew_change_undo(g, st[1]), 0);
  sinew_change_free(g, st[1]);
  assert_int_equal(sinew_graph_begin(g), 0);
  for (int k = 0; k < 2; k++) set_w(g, ns[k], 2, (int32_t[]){5, 9, 1}, (double[]){0.3, 0.4, 0.5}, 3);
  assert_int_equal(sinew_graph_commit_step(g, &st[2]), 0);
  expect_same(g, a, b);
  assert_int_equal(sinew_change_undo(g, st[2]), 0);
  char *now = state(g, a);
  assert_string_equal(now, s1);
  free(now);
  assert_int_equal(sinew_change_undo(g, st[0]), 0);
  now = state(g, a);
  assert_string_equal(now, s0);
  free(now);
  expect_same(g, a, b);
  sinew_change_free(g, st[0]);
  sinew_change_free(g, st[2]);
  free(s0);
  free(s1);
  sinew_graph_destroy(g);
}

/* Undo and redo of in-place edits (values, inserts, removals of weights and of vertices)
 * allocate nothing: counted, and with every allocation failing. */
static void test_undo_redo_allocate_nothing(void **unused) {
  (void)unused;
  test_alloc_install();
  sinew_graph_t *g = graph();
  sinew_node_t a = node(g, "a");
  for (int32_t v = 0; v < 12; v++) set_w(g, a, v, (int32_t[]){0, 2}, (double[]){0.5, 0.25}, 2);
  char *s0 = state(g, a);
  enum { N = 6 };
  sinew_change_t *st[N];
  for (int i = 0; i < N; i++) {
    assert_int_equal(sinew_graph_begin(g), 0);
    if (i % 3 == 0) {
      set_w(g, a, i, (int32_t[]){1, 3}, (double[]){0.1, 0.2}, 2);
    } else if (i % 3 == 1) {
      sinew_plug_t e = weight_of(a, i, 0);
      assert_int_equal(sinew_plug_remove_element(g, &e), 0);
    } else {
      sinew_plug_t o = sinew_plug_make(a, P_WL, 1, (int32_t[]){i});
      assert_int_equal(sinew_plug_remove_element(g, &o), 0);
    }
    sinew_plug_t e = weight_of(a, 11, 0);
    assert_int_equal(sinew_set_double(g, &e, 0.01 * i), 0);
    assert_int_equal(sinew_graph_commit_step(g, &st[i]), 0);
  }
  assert_true(two_level(g, a));
  char *s6 = state(g, a);
  for (int round = 0; round < 2; round++) {
    long c0 = test_alloc_count();
    for (int i = N; i-- > 0;) assert_int_equal(sinew_change_undo(g, st[i]), 0);
    long c1 = test_alloc_count();
    for (int i = 0; i < N; i++) assert_int_equal(sinew_change_redo(g, st[i]), 0);
    long c2 = test_alloc_count();
    if (round) { /* the first round may size the propagation queue */
      assert_int_equal(c1 - c0, 0);
      assert_int_equal(c2 - c1, 0);
    }
    assert_true(two_level(g, a));
  }
  test_alloc_fail_at(test_alloc_count() + 1);
  for (int i = N; i-- > 0;) assert_int_equal(sinew_change_undo(g, st[i]), 0);
  test_alloc_fail_at(0);
  char *now = state(g, a);
  assert_string_equal(now, s0);
  free(now);
  test_alloc_fail_at(test_alloc_count() + 1);
  for (int i = 0; i < N; i++) assert_int_equal(sinew_change_redo(g, st[i]), 0);
  test_alloc_fail_at(0);
  now = state(g, a);
  assert_string_equal(now, s6);
  free(now);
  assert_true(two_level(g, a));
  for (int i = 0; i < N; i++) sinew_change_free(g, st[i]);
  free(s0);
  free(s6);
  sinew_graph_destroy(g);
  assert_int_equal(test_alloc_live(), 0);
  test_alloc_uninstall();
}

/* Random in-place edits kept as an undo queue keeps its steps: a new step drops the undone
 * ones, the oldest go past a history of 6, steps undo and redo in stack order; nested
 * transactions rolled back, commands failing, feeds rolled back; the budget of shifted
 * elements is left to run out; at the end both nodes deleted as a step and restored, every
 * step undone. The two-level node reports what the slot-form one does throughout. */
static void test_edits_under_an_undo_queue(void **unused) {
  (void)unused;
  for (uint32_t base = 1; base <= 3; base++) {
    sinew_graph_t *g = graph();
    sinew_node_t a = node(g, "a"), b = node(g, "b"), src = node(g, "src");
    set_w(g, src, 3, (int32_t[]){1}, (double[]){0.5}, 1);
    for (int32_t v = 0; v < 10; v++) {
      set_w(g, a, v, (int32_t[]){v % 4, 5, 1}, (double[]){0.25 * v, 1, 2}, 3);
      set_w(g, b, v, (int32_t[]){v % 4, 5, 1}, (double[]){0.25 * v, 1, 2}, 3);
    }
    sinew_plug_t b0 = sinew_plug_make(b, P_WL, 1, (int32_t[]){0});
    touch(g, &b0);
    sinew_change_t *done[8], *undone[8];
    int nd = 0, nu = 0, edits_two_level = 0;
    uint32_t seed = base * 7919u;
    for (int it = 0; it < 300; it++) {
      seed = seed * 1103515245u + 12345u;
      int act = (int)((seed >> 8) % 10), ra, rb;
      if (act < 5) { /* a step of edits */
        for (int i = 0; i < nu; i++) sinew_change_free(g, undone[i]);
        nu = 0;
        assert_int_equal(sinew_graph_begin(g), 0);
        int ne = 1 + (int)((seed >> 16) % 3);
        for (int e = 0; e < ne; e++) {
          seed = seed * 1103515245u + 12345u;
          edits_two_level += two_level(g, a);
          in_place_edit(g, a, b, seed, &ra, &rb);
          assert_int_equal(ra, rb);
        }
        if ((seed >> 20) % 5 == 0) { /* a nested transaction rolled back */
          assert_int_equal(sinew_graph_begin(g), 0);
          seed = seed * 1103515245u + 12345u;
          in_place_edit(g, a, b, seed, &ra, &rb);
          assert_int_equal(ra, rb);
          assert_int_equal(sinew_graph_rollback(g), 0);
        }
        assert_int_equal(sinew_graph_commit_step(g, &done[nd++]), 0);
        if (nd > 6) {
          sinew_change_free(g, done[0]);
          memmove(done, done + 1, (size_t)--nd * sizeof *done);
        }
      } else if (act < 7 && nd) {
        assert_int_equal(sinew_change_undo(g, done[--nd]), 0);
        undone[nu++] = done[nd];
      } else if (act < 8 && nu) {
        assert_int_equal(sinew_change_redo(g, undone[--nu]), 0);
        done[nd++] = undone[nu];
      } else if (act < 9) { /* a command failing after an edit */
        assert_int_equal(sinew_graph_begin(g), 0);
        in_place_edit(g, a, b, seed, &ra, &rb);
        assert_int_equal(ra, rb);
        sinew_plug_t w = weights_of(a, 1);
        int rc = sinew_set_double_elements(g, &w, (int32_t[]){-1}, (double[]){1}, 1);
        assert_int_equal(sinew_graph_end(g, rc), SINEW_ERANGE);
      } else {
        fed_and_rolled_back(g, src, a);
        fed_and_rolled_back(g, src, b);
      }
      expect_same(g, a, b);
    }
    assert_true(edits_two_level > 100);
    while (nd) {
      assert_int_equal(sinew_change_undo(g, done[--nd]), 0);
      undone[nu++] = done[nd];
      expect_same(g, a, b);
    }
    while (nu) {
      assert_int_equal(sinew_change_redo(g, undone[--nu]), 0);
      done[nd++] = undone[nu];
      expect_same(g, a, b);
    }
    sinew_change_t *del;
    assert_int_equal(sinew_graph_begin(g), 0);
    assert_int_equal(sinew_node_delete(g, a), 0);
    assert_int_equal(sinew_node_delete(g, b), 0);
    assert_int_equal(sinew_graph_commit_step(g, &del), 0);
    assert_int_equal(sinew_change_undo(g, del), 0);
    sinew_change_free(g, del);
    expect_same(g, a, b);
    while (nd) {
      assert_int_equal(sinew_change_undo(g, done[--nd]), 0);
      expect_same(g, a, b);
      sinew_change_free(g, done[nd]);
    }
    sinew_graph_destroy(g);
  }
}

/* MEL edits that empty a vertex's weights and fill it again, remove vertices and make new
 * ones around them, prune and change normalizeWeights: each saves as the slot form does,
 * reads back to the same file, and undo and redo give each file again. */
static void test_mel_edits_read_back(void **unused) {
  (void)unused;
  const char *edits[] = {
      "removeMultiInstance sk.wl[4].w[0]; removeMultiInstance sk.wl[4].w[1]; removeMultiInstance sk.wl[4].w[2];",
      "setAttr sk.wl[4].w[2] 0.5;",
      "removeMultiInstance sk.wl[6]; setAttr sk.wl[6].w[1] 0.25;",
      "removeMultiInstance sk.wl[0]; removeMultiInstance sk.wl[1];",
      "setAttr \"sk.wl[0].w[0:2]\" 0.1 0.2 0.7;",
      "removeMultiInstance sk.wl[29]; setAttr sk.wl[35].w[0] 1; setAttr sk.wl[33].w[1] 1;",
      "setAttr sk.wl[10].w[2] 0; skinPercent -prw 0.3 sk geo.vtx[10:12];",
      "setAttr sk.nw 0; skinPercent -tv j1 0.9 sk geo.vtx[14];",
  };
  enum { NE = sizeof edits / sizeof *edits };
  sinew_session_t *a = session(), *b = session();
  run(a, three_joint_rig);
  run(b, three_joint_rig);
  run(b, "setAttr -l on sk.wl[0].w[0]; setAttr -l off sk.wl[0].w[0];"); /* slot form */
  sinew_graph_t *ga = sinew_session_graph(a);
  sinew_node_t ska;
  assert_int_equal(sinew_node_find(ga, "sk", &ska), 0);
  sinew_plug_t wla = sinew_plug_make(ska, sinew_node_attr(ga, ska, "wl"), 0, NULL);
  char *texts[NE + 1];
  texts[0] = test_scene_text(a);
  for (int e = 0; e < NE; e++) {
    run(a, edits[e]);
    run(b, edits[e]);
    char *ta = test_scene_text(a), *tb = test_scene_text(b);
    if (strcmp(ta, tb)) {
      test_print_diff(ta, tb);
      fail_msg("edit %d saves differently from the slot form", e);
    }
    sinew_session_t *c = session();
    assert_int_equal(sinew_session_run(c, ta, strlen(ta), "scene.ma", NULL), 0);
    char *tc = test_scene_text(c);
    if (strcmp(tc, ta)) {
      test_print_diff(ta, tc);
      fail_msg("edit %d: the file read back saves differently", e);
    }
    free(tc);
    free(tb);
    sinew_session_destroy(c);
    texts[e + 1] = ta;
  }
  assert_true(sinew__multi_csr(multi_of(ga, &wla)));
  for (int e = NE; e-- > 0;) {
    for (const char *c = edits[e]; *c; c++)
      if (*c == ';') run(a, "undo;");
    char *now = test_scene_text(a);
    if (strcmp(now, texts[e])) {
      test_print_diff(texts[e], now);
      fail_msg("undo of edit %d", e);
    }
    free(now);
  }
  for (int e = 0; e < NE; e++) {
    for (const char *c = edits[e]; *c; c++)
      if (*c == ';') run(a, "redo;");
    char *now = test_scene_text(a);
    if (strcmp(now, texts[e + 1])) {
      test_print_diff(texts[e + 1], now);
      fail_msg("redo of edit %d", e);
    }
    free(now);
  }
  for (int e = 0; e <= NE; e++) free(texts[e]);
  sinew_session_destroy(a);
  sinew_session_destroy(b);
}

/* The undo and redo of in-place edits (which report the edited vertex, not the whole array)
 * reach what the weightList feeds: a node fed the whole array, and the node's own output. */
static void test_undo_of_edits_reaches_downstream(void **unused) {
  (void)unused;
  sinew_graph_t *g = graph();
  sinew_node_t a = node(g, "a"), d = node(g, "d");
  for (int32_t v = 0; v < 12; v++) set_w(g, a, v, (int32_t[]){0, 2}, (double[]){0.5, 0.25}, 2);
  sinew_plug_t wa = sinew_plug_make(a, P_WL, 0, NULL), wd = sinew_plug_make(d, P_WL, 0, NULL);
  assert_int_equal(sinew_connect(g, &wa, &wd, 0, NULL), 0);
  sinew_plug_t sa = sinew_plug_make(a, P_SUM, 0, NULL), sd = sinew_plug_make(d, P_SUM, 0, NULL);
  double x, y, sums[5];
  assert_int_equal(sinew_get_double(g, &sa, &sums[0]), 0);
  assert_int_equal(sinew_get_double(g, &sd, &y), 0);
  assert_true(y == sums[0]);
  sinew_change_t *st[4];
  for (int q = 0; q < 4; q++) {
    assert_int_equal(sinew_graph_begin(g), 0);
    if (q == 0) set_w(g, a, 3, (int32_t[]){0}, (double[]){0.75}, 1); /* a value */
    if (q == 1) set_w(g, a, 5, (int32_t[]){4}, (double[]){0.125}, 1); /* one more */
    if (q == 2) { /* one fewer */
      sinew_plug_t e = weight_of(a, 7, 2);
      assert_int_equal(sinew_plug_remove_element(g, &e), 0);
    }
    if (q == 3) { /* a vertex gone */
      sinew_plug_t e = sinew_plug_make(a, P_WL, 1, (int32_t[]){9});
      assert_int_equal(sinew_plug_remove_element(g, &e), 0);
    }
    assert_int_equal(sinew_graph_commit_step(g, &st[q]), 0);
    assert_true(two_level(g, a));
    assert_int_equal(sinew_get_double(g, &sa, &sums[q + 1]), 0);
    assert_int_equal(sinew_get_double(g, &sd, &y), 0);
    assert_true(y == sums[q + 1] && sums[q + 1] != sums[q]);
  }
  for (int dir = 0; dir < 2; dir++)
    for (int i = 0; i < 4; i++) {
      int q = dir ? i : 3 - i;
      assert_int_equal((dir ? sinew_change_redo : sinew_change_undo)(g, st[q]), 0);
      assert_int_equal(sinew_get_double(g, &sa, &x), 0);
      assert_int_equal(sinew_get_double(g, &sd, &y), 0);
      double want = sums[dir ? q + 1 : q];
      if (x != want || y != want) fail_msg("%s of step %d: sums %g and %g, want %g", dir ? "redo" : "undo", q, x, y, want);
      assert_true(two_level(g, a));
    }
  for (int q = 0; q < 4; q++) sinew_change_free(g, st[q]);
  sinew_graph_destroy(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bulk_set_is_packed),
      cmocka_unit_test(test_packed_matches_slot_form),
      cmocka_unit_test(test_two_level_form),
      cmocka_unit_test(test_two_level_matches_slot_form),
      cmocka_unit_test(test_edits_stay_two_level),
      cmocka_unit_test(test_edit_alloc_failures),
      cmocka_unit_test(test_edit_budget),
      cmocka_unit_test(test_edits_of_a_deleted_node),
      cmocka_unit_test(test_rollback_undo_redo),
      cmocka_unit_test(test_remove_element),
      cmocka_unit_test(test_connections_and_locks),
      cmocka_unit_test(test_whole_array_connection),
      cmocka_unit_test(test_alloc_failures),
      cmocka_unit_test(test_two_level_alloc_failures),
      cmocka_unit_test(test_saved_file_is_the_same),
      cmocka_unit_test(test_bind_is_two_level),
      cmocka_unit_test(test_mel_vertex_edits),
      cmocka_unit_test(test_fault_harness),
      cmocka_unit_test(test_refused_edits_keep_two_level),
      cmocka_unit_test(test_feed_as_a_step),
      cmocka_unit_test(test_undo_redo_allocate_nothing),
      cmocka_unit_test(test_edits_under_an_undo_queue),
      cmocka_unit_test(test_mel_edits_read_back),
      cmocka_unit_test(test_undo_of_edits_reaches_downstream),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
