/* tests/test_graph_order.c: the order of connections (graph/order.c) on real rigs. Each rig is
 * read from tests/data; the order must hold every connection with labels increasing along every
 * edge the cycle search follows. Then, inside a transaction, connections between plugs the rig
 * already uses are tried at random (forced) and nodes deleted: every connect is refused for a
 * cycle exactly when the full search finds one, with the same message; the rollback puts the
 * rig back and the order stays right. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinew/sinew.h"
#include "tests/support.h"

#include "graph/internal.h"

static uint64_t rng = 99;
static uint32_t pick(uint32_t n) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng >> 33) % n;
}

static void verify(sinew_graph_t *g, const char *rig, const char *when) {
  int rc = sinew__order_verify(g);
  if (rc) fail_msg("%s, %s: the order is broken (%s)", rig, when, sinew_err_name(rc));
  if (g->order.repairs) fail_msg("%s, %s: the full search overruled the order", rig, when);
}

static int total_cycles;

static void one_rig(const char *rel) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", SINEW_TEST_DATA_DIR, rel);
  sinew_session_t *s;
  assert_int_equal(sinew_session_create(NULL, &s), 0);
  if (sinew_session_open(s, path)) fail_msg("%s: %s", rel, sinew_session_errmsg(s));
  sinew_graph_t *g = sinew_session_graph(s);
  verify(g, rel, "read");
  /* the plugs the rig connects, as sources and as destinations */
  size_t n = g->nconnections, k = 0;
  assert_true(n > 0);
  sinew_plug_t *srcs = malloc(n * sizeof *srcs), *dsts = malloc(n * sizeof *dsts);
  assert_non_null(srcs);
  assert_non_null(dsts);
  for (sinew__conn *c = g->conn_head; c; c = c->next)
    if (!c->implicit) {
      srcs[k] = c->src;
      dsts[k++] = c->dst;
    }
  assert_true(k > 0);
  size_t before = g->nconnections;
  int cycles = 0, made = 0;
  assert_int_equal(sinew_graph_begin(g), 0);
  for (int step = 0; step < 400; step++) {
    if (pick(20) == 0) { /* a node goes (its connections with it) */
      sinew_node_t victim = dsts[pick((uint32_t)k)].node;
      if (sinew_node_valid(g, victim) && !sinew_node_locked(g, victim)) sinew_node_delete(g, victim);
      verify(g, rel, "delete");
      continue;
    }
    sinew_plug_t src = srcs[pick((uint32_t)k)], dst = dsts[pick((uint32_t)k)];
    if (!sinew_node_valid(g, src.node) || !sinew_node_valid(g, dst.node)) continue;
    bool full = sinew__cycle_search(g, &src, &dst, "connectAttr") == SINEW_ECYCLE;
    char full_msg[sizeof g->errmsg];
    snprintf(full_msg, sizeof full_msg, "%s", sinew_graph_errmsg(g));
    int rc = sinew_connect(g, &src, &dst, SINEW_CONNECT_FORCE, NULL);
    if (rc == SINEW_ECYCLE) {
      if (!full) fail_msg("%s, step %d: refused with no cycle: %s", rel, step, sinew_graph_errmsg(g));
      assert_string_equal(sinew_graph_errmsg(g), full_msg);
      cycles++;
    } else if (rc == SINEW_OK) {
      if (full) fail_msg("%s, step %d: made across a cycle: %s", rel, step, full_msg);
      made++;
    }
    verify(g, rel, "connect");
  }
  assert_int_equal(sinew_graph_rollback(g), 0);
  verify(g, rel, "rollback");
  assert_int_equal(g->nconnections, before);
  assert_true(made > 0);
  total_cycles += cycles;
  free(srcs);
  free(dsts);
  sinew_session_destroy(s);
}

static void test_order_on_rigs(void **state) {
  (void)state;
  static const char *const rigs[] = {
      "omtk/rig_example_02_built.ma",
      "nlol/standalone_modules_digitigrade_leg_mod_example.ma",
      "nlol/standalone_modules_spline_curve_tail_example.ma",
      "maya-usd/UsdExportSkeletonSegfaultTest.ma",
      "maya-usd/blendShapesExport.ma",
  };
  for (size_t i = 0; i < sizeof rigs / sizeof *rigs; i++) one_rig(rigs[i]);
  assert_true(total_cycles >= 10); /* the walk met cycles, not only connections it could make */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_order_on_rigs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
