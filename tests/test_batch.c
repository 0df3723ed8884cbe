/* tests/test_batch.c: the batch calls of the per-frame hot path (docs/graph.md "Batches"):
 * sinew_get_double_many reads what sinew_get_double reads, plug by plug, pulling what is dirty;
 * sinew_store_outputs puts values in computed outputs as if their compute had run (clean, what
 * depends on them dirtied, observers told), refuses any plug that is not a numeric scalar
 * output before storing anything, and is refused from inside a compute. An output batch
 * (sinew_output_batch_*) stores as sinew_store_outputs does into the outputs it was made for,
 * finding them again after attributes are added (their slots move), undone or redone, and
 * failing, with nothing stored, when one of its nodes is gone. A read batch
 * (sinew_read_batch_*) reads what sinew_get_double_many reads, through the same changes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sinew/sinew.h"

/* "twice": o = 2 i, counting its computes; "rogue": a compute that tries to store. */
static uint32_t T_I, T_O, T_M;
static int computes;
static int rogue_rc;

static int twice_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr == T_M) return sinew_compute_set_clean(ctx, plug);
  if (plug->attr != T_O) return SINEW_EUNKNOWN_PLUG;
  computes++;
  double i = 0;
  int rc = sinew_compute_get_double(ctx, T_I, &i);
  return rc ? rc : sinew_compute_set_double(ctx, plug, 2 * i);
}

static int rogue_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_plug_t other = sinew_plug_make(sinew_compute_node(ctx), plug->attr, 0, NULL);
  double v = 1;
  rogue_rc = sinew_store_outputs(sinew_compute_graph(ctx), &other, &v, 1);
  return sinew_compute_set_double(ctx, plug, 3);
}

static const sinew_attr_desc_t twice_attrs[] = {
    {.name = "i", .type = SINEW_ATTR_DOUBLE},
    {.name = "o", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT},
    {.name = "m", .type = SINEW_ATTR_MATRIX, .flags = SINEW_ATTR_OUTPUT},
    {.name = "s", .type = SINEW_ATTR_STRING},
};
static const sinew_affects_t twice_affects[] = {{"i", "o"}, {"i", "m"}};

static sinew_graph_t *graph(void) {
  sinew_graph_t *g;
  assert_int_equal(sinew_scene_create(NULL, &g), 0);
  const sinew_node_type_t *t;
  sinew_node_type_desc_t d = {.name = "twice", .attrs = twice_attrs, .attr_count = 4, .affects = twice_affects,
                              .affects_count = 2, .compute = twice_compute};
  assert_int_equal(sinew_register_node_type(g, &d, &t), 0);
  T_I = sinew_node_type_attr(t, "i");
  T_O = sinew_node_type_attr(t, "o");
  T_M = sinew_node_type_attr(t, "m");
  d = (sinew_node_type_desc_t){.name = "rogue", .attrs = twice_attrs, .attr_count = 4, .affects = twice_affects,
                               .affects_count = 2, .compute = rogue_compute};
  assert_int_equal(sinew_register_node_type(g, &d, NULL), 0);
  computes = 0;
  return g;
}

static sinew_plug_t P(sinew_graph_t *g, const char *text) {
  sinew_plug_t p;
  if (sinew_plug_parse(g, text, (sinew_node_t){0, 0}, &p)) fail_msg("parse %s: %s", text, sinew_graph_errmsg(g));
  return p;
}

static double getd(sinew_graph_t *g, const char *text) {
  double v = NAN;
  sinew_plug_t p = P(g, text);
  if (sinew_get_double(g, &p, &v)) fail_msg("get %s: %s", text, sinew_graph_errmsg(g));
  return v;
}

static int dirtied;
static sinew_plug_t watched;
static bool saw_watched;
static void on_dirty(void *ud, const sinew_plug_t *p) {
  (void)ud;
  dirtied++;
  if (sinew_plug_equal(p, &watched)) saw_watched = true;
}

/* a.o -> b.i: a value stored in a.o is read back without a compute of a, and b computes from it */
static void test_store_outputs(void **state) {
  (void)state;
  sinew_graph_t *g = graph();
  assert_int_equal(sinew_node_create(g, "twice", "a", NULL), 0);
  assert_int_equal(sinew_node_create(g, "twice", "b", NULL), 0);
  sinew_plug_t ao = P(g, "a.o"), bi = P(g, "b.i");
  assert_int_equal(sinew_connect(g, &ao, &bi, 0, NULL), 0);
  sinew_plug_t ai = P(g, "a.i");
  assert_int_equal(sinew_set_double(g, &ai, 1), 0);
  assert_true(getd(g, "b.o") == 4);
  assert_int_equal(computes, 2);
  int id;
  sinew_observer_t obs = {.plug_dirtied = on_dirty};
  assert_int_equal(sinew_graph_add_observer(g, &obs, &id), 0);
  double v = 5;
  watched = ao;
  saw_watched = false;
  assert_int_equal(sinew_store_outputs(g, &ao, &v, 1), 0);
  assert_true(saw_watched && dirtied >= 2); /* a.o itself is reported, then what it feeds */
  assert_int_equal(sinew_graph_remove_observer(g, id), 0);
  assert_true(getd(g, "a.o") == 5);
  assert_int_equal(computes, 2); /* stored, not computed */
  assert_true(getd(g, "b.o") == 10);
  assert_int_equal(computes, 3); /* b, from the stored value */
  /* a later change of the input dirties the output again: the compute takes over */
  assert_int_equal(sinew_set_double(g, &ai, 3), 0);
  assert_true(getd(g, "b.o") == 12);
  assert_int_equal(computes, 5);
  sinew_graph_destroy(g);
}

/* Every plug is checked before anything is stored; the error names the plug. */
static void test_store_outputs_refuses(void **state) {
  (void)state;
  sinew_graph_t *g = graph();
  sinew_node_t a;
  assert_int_equal(sinew_node_create(g, "twice", "a", &a), 0);
  sinew_plug_t ok = P(g, "a.o"), in = P(g, "a.i"), m = P(g, "a.m"), s = P(g, "a.s");
  double v[2] = {7, 8};
  sinew_plug_t bad[][2] = {{ok, in}, {ok, m}, {ok, s}};
  const char *names[] = {"a.i", "a.m", "a.s"};
  for (size_t i = 0; i < 3; i++) {
    assert_int_equal(sinew_store_outputs(g, bad[i], v, 2), SINEW_EINVAL);
    assert_non_null(strstr(sinew_graph_errmsg(g), names[i]));
    assert_true(getd(g, "a.o") == 0); /* a.o computed from i = 0, not the 7 of the refused call */
  }
  assert_int_equal(sinew_store_outputs(NULL, &ok, v, 1), SINEW_EINVAL);
  assert_int_equal(sinew_store_outputs(g, NULL, v, 1), SINEW_EINVAL);
  assert_int_equal(sinew_store_outputs(g, &ok, NULL, 1), SINEW_EINVAL);
  assert_int_equal(sinew_store_outputs(g, NULL, NULL, 0), SINEW_OK);
  /* a deleted node's plug */
  assert_int_equal(sinew_node_delete(g, a), 0);
  assert_int_equal(sinew_store_outputs(g, &ok, v, 1), SINEW_EINVAL);
  /* from inside a compute: refused (the compute itself goes on) */
  assert_int_equal(sinew_node_create(g, "rogue", "r", NULL), 0);
  rogue_rc = 0;
  assert_true(getd(g, "r.o") == 3);
  assert_int_equal(rogue_rc, SINEW_EINVAL);
  sinew_graph_destroy(g);
}

/* The values sinew_get_double gives, clean or dirty, connected or not, element or compound
 * child; the first failure stops the call with its code. */
static void test_get_double_many(void **state) {
  (void)state;
  sinew_graph_t *g = graph();
  assert_int_equal(sinew_node_create(g, "twice", "a", NULL), 0);
  assert_int_equal(sinew_node_create(g, "twice", "b", NULL), 0);
  assert_int_equal(sinew_node_create(g, "transform", "t", NULL), 0);
  sinew_plug_t ao = P(g, "a.o"), bi = P(g, "b.i"), ai = P(g, "a.i");
  assert_int_equal(sinew_connect(g, &ao, &bi, 0, NULL), 0);
  assert_int_equal(sinew_set_double(g, &ai, 1.5), 0);
  sinew_plug_t tz = P(g, "t.tz");
  assert_int_equal(sinew_set_double(g, &tz, -2), 0);
  const char *names[] = {"b.o", "a.o", "b.i", "a.i", "t.tz", "t.wm[0]" /* not a number */};
  sinew_plug_t plugs[6];
  for (size_t i = 0; i < 6; i++) plugs[i] = P(g, names[i]);
  double out[6] = {0};
  assert_int_equal(sinew_get_double_many(g, plugs, out, 5), 0); /* b.o dirty: pulled */
  assert_true(out[0] == 6 && out[1] == 3 && out[2] == 3 && out[3] == 1.5 && out[4] == -2);
  assert_int_equal(sinew_set_double(g, &ai, 2), 0);
  assert_int_equal(sinew_get_double_many(g, plugs + 1, out, 2), 0); /* a.o dirty, b.i behind it */
  assert_true(out[0] == 4 && out[1] == 4);
  out[4] = 99;
  assert_int_equal(sinew_get_double_many(g, plugs, out, 6), SINEW_ETYPE);
  assert_true(out[4] == -2); /* the ones before the failure were read */
  assert_int_equal(sinew_get_double_many(NULL, plugs, out, 1), SINEW_EINVAL);
  assert_int_equal(sinew_get_double_many(g, NULL, out, 1), SINEW_EINVAL);
  assert_int_equal(sinew_get_double_many(g, plugs, NULL, 1), SINEW_EINVAL);
  assert_int_equal(sinew_get_double_many(g, NULL, NULL, 0), SINEW_OK);
  sinew_graph_destroy(g);
}

/* A kept batch of outputs: stores as sinew_store_outputs does (what depends on them dirtied,
 * observers told), a range of it, after the nodes' slot tables moved (addAttr, its undo and
 * redo), and not once a node is gone. */
static void test_output_batch(void **state) {
  (void)state;
  sinew_graph_t *g = graph();
  sinew_node_t a, c;
  assert_int_equal(sinew_node_create(g, "twice", "a", &a), 0);
  assert_int_equal(sinew_node_create(g, "twice", "b", NULL), 0);
  assert_int_equal(sinew_node_create(g, "twice", "c", &c), 0);
  sinew_plug_t ao = P(g, "a.o"), bi = P(g, "b.i");
  assert_int_equal(sinew_connect(g, &ao, &bi, 0, NULL), 0);
  sinew_plug_t outs[2] = {ao, P(g, "c.o")};
  sinew_output_batch_t *b = NULL;
  assert_int_equal(sinew_output_batch_make(g, outs, 2, &b), 0);
  outs[1] = P(g, "b.o"); /* the batch keeps its own copy */
  int id;
  sinew_observer_t obs = {.plug_dirtied = on_dirty};
  assert_int_equal(sinew_graph_add_observer(g, &obs, &id), 0);
  watched = ao;
  saw_watched = false;
  double v[2] = {5, 6};
  assert_int_equal(sinew_output_batch_store(g, b, 0, v, 2), 0);
  assert_true(saw_watched);
  assert_int_equal(sinew_graph_remove_observer(g, id), 0);
  assert_true(getd(g, "a.o") == 5 && getd(g, "c.o") == 6);
  assert_int_equal(computes, 0); /* stored, not computed */
  assert_true(getd(g, "b.o") == 10);
  assert_int_equal(computes, 1);
  /* a range: c.o alone */
  v[0] = 9;
  assert_int_equal(sinew_output_batch_store(g, b, 1, v, 1), 0);
  assert_true(getd(g, "c.o") == 9 && getd(g, "a.o") == 5);
  /* attributes added to a in an undo step: its slots move, the batch finds them again */
  assert_int_equal(sinew_graph_begin(g), 0);
  for (int i = 0; i < 40; i++) {
    char name[16];
    snprintf(name, sizeof name, "x%d", i);
    sinew_attr_desc_t d = {.name = name, .type = SINEW_ATTR_DOUBLE};
    assert_int_equal(sinew_node_add_attr(g, a, &d, 1), 0);
  }
  sinew_change_t *step = NULL;
  assert_int_equal(sinew_graph_commit_step(g, &step), 0);
  double w[2] = {1, 2};
  assert_int_equal(sinew_output_batch_store(g, b, 0, w, 2), 0);
  assert_true(getd(g, "a.o") == 1 && getd(g, "c.o") == 2 && getd(g, "b.o") == 2);
  assert_int_equal(sinew_change_undo(g, step), 0);
  w[0] = 3;
  assert_int_equal(sinew_output_batch_store(g, b, 0, w, 1), 0);
  assert_true(getd(g, "a.o") == 3 && getd(g, "b.o") == 6);
  assert_int_equal(sinew_change_redo(g, step), 0);
  w[0] = 4;
  assert_int_equal(sinew_output_batch_store(g, b, 0, w, 1), 0);
  assert_true(getd(g, "a.o") == 4 && getd(g, "b.o") == 8);
  /* out of range, no values, no batch */
  assert_int_equal(sinew_output_batch_store(g, b, 1, w, 2), SINEW_EINVAL);
  assert_int_equal(sinew_output_batch_store(g, b, 3, w, 0), SINEW_EINVAL);
  assert_int_equal(sinew_output_batch_store(g, b, 0, NULL, 1), SINEW_EINVAL);
  assert_int_equal(sinew_output_batch_store(g, NULL, 0, w, 1), SINEW_EINVAL);
  assert_int_equal(sinew_output_batch_store(g, b, 2, NULL, 0), SINEW_OK);
  /* c deleted: the batch fails naming c.o, and a.o keeps its value */
  assert_int_equal(sinew_node_delete(g, c), 0);
  w[0] = 11;
  assert_int_equal(sinew_output_batch_store(g, b, 0, w, 1), SINEW_EINVAL);
  assert_non_null(strstr(sinew_graph_errmsg(g), "is not a numeric scalar output"));
  assert_true(getd(g, "a.o") == 4);
  sinew_output_batch_free(b);
  sinew_change_free(g, step);
  sinew_graph_destroy(g);
}

/* A batch is made only of numeric scalar outputs; the error names the first other plug. */
static void test_output_batch_refuses(void **state) {
  (void)state;
  sinew_graph_t *g = graph();
  assert_int_equal(sinew_node_create(g, "twice", "a", NULL), 0);
  sinew_output_batch_t *b = (sinew_output_batch_t *)&b;
  const char *names[] = {"a.i", "a.m", "a.s"};
  for (size_t i = 0; i < 3; i++) {
    sinew_plug_t plugs[2] = {P(g, "a.o"), P(g, names[i])};
    assert_int_equal(sinew_output_batch_make(g, plugs, 2, &b), SINEW_EINVAL);
    assert_null(b);
    assert_non_null(strstr(sinew_graph_errmsg(g), names[i]));
  }
  sinew_plug_t ok = P(g, "a.o");
  assert_int_equal(sinew_output_batch_make(NULL, &ok, 1, &b), SINEW_EINVAL);
  assert_int_equal(sinew_output_batch_make(g, NULL, 1, &b), SINEW_EINVAL);
  assert_int_equal(sinew_output_batch_make(g, &ok, 1, NULL), SINEW_EINVAL);
  assert_int_equal(sinew_output_batch_make(g, NULL, 0, &b), SINEW_OK); /* empty: stores nothing */
  assert_int_equal(sinew_output_batch_store(g, b, 0, NULL, 0), SINEW_OK);
  sinew_output_batch_free(b);
  sinew_output_batch_free(NULL);
  sinew_graph_destroy(g);
}

/* A kept read batch reads what sinew_get_double_many reads, frame after frame: clean values
 * from their slots, dirty ones pulled, elements and compound children, the first failure
 * stopping it; after attributes are added (slots move), undone, and a node deleted. */
static void test_read_batch(void **state) {
  (void)state;
  sinew_graph_t *g = graph();
  sinew_node_t a, t;
  assert_int_equal(sinew_node_create(g, "twice", "a", &a), 0);
  assert_int_equal(sinew_node_create(g, "twice", "b", NULL), 0);
  assert_int_equal(sinew_node_create(g, "transform", "t", &t), 0);
  sinew_plug_t ao = P(g, "a.o"), bi = P(g, "b.i"), ai = P(g, "a.i");
  assert_int_equal(sinew_connect(g, &ao, &bi, 0, NULL), 0);
  assert_int_equal(sinew_set_double(g, &ai, 1.5), 0);
  const char *names[] = {"b.o", "a.o", "a.i", "t.tz", "t.t", "t.wm[0]"};
  sinew_plug_t plugs[6];
  for (size_t i = 0; i < 6; i++) plugs[i] = P(g, names[i]);
  plugs[4] = P(g, "t.ty"); /* a compound child */
  sinew_read_batch_t *rb = NULL;
  assert_int_equal(sinew_read_batch_make(g, plugs, 5, &rb), 0);
  double out[6] = {0}, want[6] = {0};
  for (int round = 0; round < 4; round++) {
    if (round == 1) { /* a.o and b.o dirty */
      assert_int_equal(sinew_set_double(g, &ai, 2), 0);
      sinew_plug_t ty = P(g, "t.ty");
      assert_int_equal(sinew_set_double(g, &ty, 7), 0);
    }
    if (round == 2) { /* t's slots move */
      assert_int_equal(sinew_graph_begin(g), 0);
      for (int i = 0; i < 40; i++) {
        char name[16];
        snprintf(name, sizeof name, "x%d", i);
        sinew_attr_desc_t d = {.name = name, .type = SINEW_ATTR_DOUBLE};
        assert_int_equal(sinew_node_add_attr(g, t, &d, 1), 0);
        assert_int_equal(sinew_node_add_attr(g, a, &d, 1), 0);
      }
      sinew_change_t *step = NULL;
      assert_int_equal(sinew_graph_commit_step(g, &step), 0);
      sinew_plug_t tz = P(g, "t.tz");
      assert_int_equal(sinew_set_double(g, &tz, -2), 0);
      assert_int_equal(sinew_set_double(g, &ai, 3), 0); /* a.o dirty in its moved slot */
      assert_int_equal(sinew_read_batch_get(g, rb, out), 0);
      assert_true(out[3] == -2 && out[1] == 6 && out[0] == 12);
      assert_int_equal(sinew_set_double(g, &ai, 2), 0);
      assert_int_equal(sinew_change_undo(g, step), 0);
      sinew_change_free(g, step);
    }
    if (round == 3) assert_int_equal(sinew_node_create(g, "twice", "c", NULL), 0); /* structure moved */
    assert_int_equal(sinew_read_batch_get(g, rb, out), 0);
    assert_int_equal(sinew_get_double_many(g, plugs, want, 5), 0);
    for (size_t i = 0; i < 5; i++)
      if (out[i] != want[i]) fail_msg("round %d, %s: %g, sinew_get_double_many %g", round, names[i], out[i], want[i]);
  }
  assert_true(out[0] == 8 && out[1] == 4 && out[2] == 2 && out[3] == -2 && out[4] == 7);
  sinew_read_batch_free(rb);
  /* a plug that is not a number fails when read, after the ones before it */
  assert_int_equal(sinew_read_batch_make(g, plugs, 6, &rb), 0);
  out[3] = 99;
  assert_int_equal(sinew_read_batch_get(g, rb, out), SINEW_ETYPE);
  assert_true(out[3] == -2);
  sinew_read_batch_free(rb);
  /* a deleted node: its plug fails, as sinew_get_double fails */
  assert_int_equal(sinew_read_batch_make(g, plugs + 1, 2, &rb), 0);
  int want_rc = 0;
  assert_int_equal(sinew_node_delete(g, a), 0);
  double v;
  want_rc = sinew_get_double(g, &plugs[1], &v);
  assert_int_not_equal(want_rc, 0);
  assert_int_equal(sinew_read_batch_get(g, rb, out), want_rc);
  sinew_read_batch_free(rb);
  /* a deleted dynamic attribute (nothing connected to it: the structure does not move) fails as
   * sinew_get_double fails, and reads again once the deletion is undone */
  sinew_attr_desc_t dd = {.name = "extra", .type = SINEW_ATTR_DOUBLE};
  uint32_t extra = UINT32_MAX;
  assert_int_equal(sinew_node_add_attr(g, t, &dd, 1), 0);
  extra = sinew_node_attr(g, t, "extra");
  sinew_plug_t ep = sinew_plug_make(t, extra, 0, NULL);
  assert_int_equal(sinew_set_double(g, &ep, 5), 0);
  assert_int_equal(sinew_read_batch_make(g, &ep, 1, &rb), 0);
  assert_int_equal(sinew_read_batch_get(g, rb, out), 0);
  assert_true(out[0] == 5);
  assert_int_equal(sinew_graph_begin(g), 0);
  assert_int_equal(sinew_node_remove_attr(g, t, extra), 0);
  sinew_change_t *del = NULL;
  assert_int_equal(sinew_graph_commit_step(g, &del), 0);
  want_rc = sinew_get_double(g, &ep, &v);
  assert_int_not_equal(want_rc, 0);
  assert_int_equal(sinew_read_batch_get(g, rb, out), want_rc);
  assert_int_equal(sinew_change_undo(g, del), 0);
  assert_int_equal(sinew_read_batch_get(g, rb, out), 0);
  assert_true(out[0] == 5);
  sinew_change_free(g, del);
  assert_int_equal(sinew_node_remove_attr(g, t, extra), 0); /* outside a transaction */
  assert_int_equal(sinew_read_batch_get(g, rb, out), want_rc);
  sinew_read_batch_free(rb);
  assert_int_equal(sinew_read_batch_make(NULL, plugs, 1, &rb), SINEW_EINVAL);
  assert_int_equal(sinew_read_batch_make(g, NULL, 1, &rb), SINEW_EINVAL);
  assert_int_equal(sinew_read_batch_make(g, plugs, 1, NULL), SINEW_EINVAL);
  assert_int_equal(sinew_read_batch_make(g, NULL, 0, &rb), SINEW_OK);
  assert_int_equal(sinew_read_batch_get(g, rb, NULL), SINEW_OK);
  assert_int_equal(sinew_read_batch_get(g, NULL, out), SINEW_EINVAL);
  sinew_read_batch_free(rb);
  sinew_read_batch_free(NULL);
  sinew_graph_destroy(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_store_outputs),
      cmocka_unit_test(test_store_outputs_refuses),
      cmocka_unit_test(test_get_double_many),
      cmocka_unit_test(test_output_batch),
      cmocka_unit_test(test_output_batch_refuses),
      cmocka_unit_test(test_read_batch),
  };
  return cmocka_run_group_tests_name("batch", tests, NULL, NULL);
}
