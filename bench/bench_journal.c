/* bench/bench_journal.c: what the change journal costs the calls users make all the time, in
 * the same run with and without a transaction open (machines here are shared and noisy:
 * compare the ratios, not the seconds).
 *
 *   setAttr      sinew_set_double on a plug that feeds another node, no transaction, then
 *                inside one (records appended; committed every 1000 calls), then with one
 *                transaction per call (begin + set + commit: what a command queue will do).
 *   connect      connect + disconnect of one pair, the same three ways.
 *   create       createNode + delete of one node, the same three ways (inside a transaction
 *                the node is detached and freed when the records go).
 *   rollback     the cost of rolling back 1000 sets, per set.
 *
 *   bench_journal [calls]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sinew/sinew.h"
#include "bench/bench_util.h"

static void die(sinew_graph_t *g, const char *what) {
  fprintf(stderr, "bench_journal: %s: %s\n", what, g ? sinew_graph_errmsg(g) : "");
  exit(1);
}

static uint32_t IN, OUT;

static int add_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != OUT) return SINEW_EUNKNOWN_PLUG;
  double v = 0;
  sinew_plug_t p = sinew_plug_make(sinew_compute_node(ctx), IN, 0, NULL);
  sinew_get_double(sinew_compute_graph(ctx), &p, &v);
  return sinew_compute_set_double(ctx, plug, v + 1);
}

static const sinew_attr_desc_t attrs[] = {
    {.name = "input", .short_name = "in", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_INPUT},
    {.name = "output", .short_name = "out", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT}};
static const sinew_affects_t affects[] = {{"input", "output"}};

enum { NONE, BATCH, PER_CALL };

/* One pass of n calls of kind (0 setAttr, 1 connect+disconnect) in mode; returns seconds. */
static double pass(sinew_graph_t *g, int kind, int mode, long n, sinew_plug_t *in, sinew_plug_t *out,
                   sinew_plug_t *dst) {
  double t0 = now();
  if (mode == BATCH && sinew_graph_begin(g)) die(g, "begin");
  for (long i = 0; i < n; i++) {
    if (mode == PER_CALL && sinew_graph_begin(g)) die(g, "begin");
    if (kind == 0) {
      if (sinew_set_double(g, in, (double)(i & 1023))) die(g, "set");
    } else if (kind == 2) {
      sinew_node_t made;
      if (sinew_node_create(g, "inc", "made", &made) || sinew_node_delete(g, made)) die(g, "create");
    } else {
      if (sinew_connect(g, out, dst, 0, NULL) || sinew_disconnect(g, out, dst)) die(g, "connect");
    }
    if (mode == PER_CALL && sinew_graph_commit(g)) die(g, "commit");
    if (mode == BATCH && i % 1000 == 999 && (sinew_graph_commit(g) || sinew_graph_begin(g))) die(g, "batch");
  }
  if (mode == BATCH && sinew_graph_commit(g)) die(g, "commit");
  return now() - t0;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  if (n < 1000) n = 1000;
  sinew_graph_t *g;
  if (sinew_graph_create(NULL, &g)) die(NULL, "create");
  const sinew_node_type_t *t;
  sinew_node_type_desc_t d = {.name = "inc", .attrs = attrs, .attr_count = 2, .affects = affects,
                              .affects_count = 1, .compute = add_compute};
  if (sinew_register_node_type(g, &d, &t)) die(g, "register");
  IN = sinew_node_type_attr(t, "in");
  OUT = sinew_node_type_attr(t, "out");
  sinew_node_t a, b, c;
  if (sinew_node_create(g, "inc", "a", &a) || sinew_node_create(g, "inc", "b", &b) ||
      sinew_node_create(g, "inc", "c", &c))
    die(g, "node");
  sinew_plug_t ain = sinew_plug_make(a, IN, 0, NULL), aout = sinew_plug_make(a, OUT, 0, NULL);
  sinew_plug_t bin = sinew_plug_make(b, IN, 0, NULL), cin = sinew_plug_make(c, IN, 0, NULL);
  if (sinew_connect(g, &aout, &bin, 0, NULL)) die(g, "connect");

  static const char *const kinds[] = {"setAttr", "connect+disconnect", "createNode+delete"};
  for (int kind = 0; kind < 3; kind++) {
    long k = kind == 0 ? n : n / 10;
    double best[3] = {1e30, 1e30, 1e30};
    for (int round = 0; round < 3; round++) /* best of three, interleaved */
      for (int mode = 0; mode < 3; mode++) {
        double s = pass(g, kind, mode, k, &ain, &aout, &cin);
        if (s < best[mode]) best[mode] = s;
      }
    printf("%-19s %8ld calls: %7.1f ns/call none, %7.1f ns in a transaction (%.2fx), "
           "%7.1f ns with a transaction per call (%.2fx)\n",
           kinds[kind], k, best[0] / (double)k * 1e9, best[1] / (double)k * 1e9, best[1] / best[0],
           best[2] / (double)k * 1e9, best[2] / best[0]);
  }
  /* rollback of 1000 sets at a time */
  double t0 = now(), tset = 0;
  long rounds = n / 1000;
  for (long r = 0; r < rounds; r++) {
    if (sinew_graph_begin(g)) die(g, "begin");
    double s0 = now();
    for (int i = 0; i < 1000; i++)
      if (sinew_set_double(g, &ain, (double)i)) die(g, "set");
    tset += now() - s0;
    if (sinew_graph_rollback(g)) die(g, "rollback");
  }
  double total = now() - t0;
  printf("rollback            %8ld sets: %7.1f ns/set to roll back (%.2fx the set)\n", rounds * 1000,
         (total - tset) / (double)(rounds * 1000) * 1e9, (total - tset) / tset);
  sinew_graph_destroy(g);
  return 0;
}
