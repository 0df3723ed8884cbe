/* bench/bench_graph_edit.c: what editing a graph costs as the graph grows (issue 17). The cost of
 * one edit should not depend on the size of the graph; the ratio of the 100k figure to the 1k
 * one is printed for each (goal: <= 2).
 *
 * The graph: one chain of N joints built through the API, each joint parented under the one
 * before it (the implicit worldMatrix -> parentMatrix link) and fed its scale
 * (j[k].s -> j[k+1].is), as Maya files connect joints. Per size, interleaved between the sizes,
 * several rounds of K operations each; per-operation medians over the rounds.
 *
 *   connect     drv.tx -> j0.tx, into the root: everything in the graph is downstream
 *   disconnect  the same connection broken again (not a goal; printed for context)
 *   parent      a fresh joint parented under the deepest joint of the chain
 *   delete      that joint deleted
 *   load        one chain of N joints as a .ma file writes it (createNode joint -p, then the
 *               connectAttr lines at the end), run through the session; per joint
 *
 *   bench_graph_edit [max-load-N]   (default 100000; the load at N is skipped above it)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sinew/sinew.h"
#include "bench/bench_util.h"

static void die(sinew_graph_t *g, const char *what) {
  fprintf(stderr, "bench_graph_edit: %s: %s\n", what, g ? sinew_graph_errmsg(g) : "failed");
  exit(1);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

enum { NSIZES = 4, ROUNDS = 5, K = 100, NOPS = 4 };
static const int sizes[NSIZES] = {100, 1000, 10000, 100000};
static const char *const op_names[NOPS] = {"connect", "disconnect", "parent", "delete"};

typedef struct chain {
  sinew_graph_t *g;
  sinew_node_t drv, leaf;
  sinew_plug_t drv_tx, root_tx;
} chain;

static sinew_plug_t plug(sinew_graph_t *g, sinew_node_t n, const char *attr) {
  sinew_plug_t p;
  if (sinew_plug_parse_attr(g, n, attr, &p)) die(g, attr);
  return p;
}

static void build(chain *c, int n) {
  if (sinew_scene_create(NULL, &c->g)) die(NULL, "scene");
  sinew_graph_t *g = c->g;
  sinew_node_t prev = {0, 0}, root = {0, 0};
  for (int i = 0; i < n; i++) {
    sinew_node_t j;
    char name[32];
    snprintf(name, sizeof name, "j%d", i);
    if (sinew_node_create_under(g, "joint", name, prev, &j)) die(g, "create joint");
    if (i == 0) root = j;
    else {
      sinew_plug_t s = plug(g, prev, "s"), is = plug(g, j, "is");
      if (sinew_connect(g, &s, &is, 0, NULL)) die(g, "connect s -> is");
    }
    prev = j;
  }
  c->leaf = prev;
  if (sinew_node_create(g, "transform", "drv", &c->drv)) die(g, "create drv");
  c->drv_tx = plug(g, c->drv, "tx");
  c->root_tx = plug(g, root, "tx");
}

/* One round of K operations of each kind on one chain; adds seconds per operation to out. */
static void round_ops(chain *c, double out[NOPS]) {
  sinew_graph_t *g = c->g;
  double t[NOPS] = {0};
  for (int k = 0; k < K; k++) {
    double t0 = now();
    if (sinew_connect(g, &c->drv_tx, &c->root_tx, 0, NULL)) die(g, "connect");
    double t1 = now();
    if (sinew_disconnect(g, &c->drv_tx, &c->root_tx)) die(g, "disconnect");
    double t2 = now();
    t[0] += t1 - t0;
    t[1] += t2 - t1;
  }
  for (int k = 0; k < K; k++) {
    sinew_node_t x;
    if (sinew_node_create(g, "joint", "extra", &x)) die(g, "create extra");
    double t0 = now();
    if (sinew_node_set_parent(g, x, c->leaf)) die(g, "parent");
    double t1 = now();
    if (sinew_node_delete(g, x)) die(g, "delete");
    double t2 = now();
    t[2] += t1 - t0;
    t[3] += t2 - t1;
  }
  for (int i = 0; i < NOPS; i++) out[i] = t[i] / K;
}

/* The text of a .ma file's body for one chain of n joints. */
static char *chain_text(int n, size_t *len) {
  size_t cap = (size_t)n * 160 + 64, used = 0;
  char *s = malloc(cap);
  if (!s) die(NULL, "memory");
  for (int i = 0; i < n; i++) {
    if (i) used += (size_t)snprintf(s + used, cap - used, "createNode joint -n \"j%d\" -p \"j%d\";\n", i, i - 1);
    else used += (size_t)snprintf(s + used, cap - used, "createNode joint -n \"j0\";\n");
    used += (size_t)snprintf(s + used, cap - used, "\tsetAttr \".t\" -type \"double3\" 1 0 0 ;\n");
  }
  for (int i = 1; i < n; i++)
    used += (size_t)snprintf(s + used, cap - used, "connectAttr \"j%d.s\" \"j%d.is\";\n", i - 1, i);
  *len = used;
  return s;
}

/* Seconds per joint to load a chain of n joints into a fresh session. */
static double load(int n) {
  size_t len;
  char *text = chain_text(n, &len);
  sinew_session_t *s;
  if (sinew_session_create(NULL, &s)) die(NULL, "session");
  double t0 = now();
  if (sinew_session_run(s, text, len, "chain.ma", NULL)) {
    fprintf(stderr, "bench_graph_edit: load: %s\n", sinew_session_errmsg(s));
    exit(1);
  }
  double t = now() - t0;
  sinew_node_t leaf;
  char name[32];
  snprintf(name, sizeof name, "j%d", n - 1);
  if (sinew_node_find(sinew_session_graph(s), name, &leaf)) die(sinew_session_graph(s), "leaf");
  sinew_session_destroy(s);
  free(text);
  return t / n;
}

int main(int argc, char **argv) {
  long max_load = argc > 1 ? atol(argv[1]) : 100000;
  chain chains[NSIZES];
  for (int i = 0; i < NSIZES; i++) build(&chains[i], sizes[i]);
  double samples[NSIZES][NOPS][ROUNDS];
  for (int r = 0; r < ROUNDS; r++) /* interleaved: each round visits every size */
    for (int i = 0; i < NSIZES; i++) {
      double per[NOPS];
      round_ops(&chains[i], per);
      for (int o = 0; o < NOPS; o++) samples[i][o][r] = per[o];
    }
  printf("graph edits on one chain of N joints, median of %d rounds of %d (microseconds per operation)\n",
         ROUNDS, K);
  printf("%-11s", "N");
  for (int i = 0; i < NSIZES; i++) printf("%12d", sizes[i]);
  printf("%14s\n", "100k/1k");
  for (int o = 0; o < NOPS; o++) {
    double m[NSIZES];
    for (int i = 0; i < NSIZES; i++) m[i] = median(samples[i][o], ROUNDS) * 1e6;
    printf("%-11s", op_names[o]);
    for (int i = 0; i < NSIZES; i++) printf("%12.2f", m[i]);
    printf("%13.2fx%s\n", m[3] / m[1], o == 1 ? "" : (m[3] / m[1] <= 2 ? "  (goal <= 2: met)" : "  (goal <= 2: NOT met)"));
  }
  for (int i = 0; i < NSIZES; i++) sinew_graph_destroy(chains[i].g);

  /* Loading: three rounds, sizes interleaved; per joint. */
  static const int lsizes[3] = {1000, 10000, 100000};
  double ls[3][3];
  int nl = 0;
  while (nl < 3 && lsizes[nl] <= max_load) nl++;
  for (int r = 0; r < 3; r++)
    for (int i = 0; i < nl; i++) ls[i][r] = load(lsizes[i]);
  printf("\nloading one chain of N joints from .ma text (microseconds per joint, median of 3)\n");
  double lm[3] = {0};
  for (int i = 0; i < nl; i++) {
    lm[i] = median(ls[i], 3) * 1e6;
    printf("N = %-8d %10.2f us/joint  %10.3f s\n", lsizes[i], lm[i], lm[i] * lsizes[i] * 1e-6);
  }
  if (nl == 3)
    printf("per-joint 100k/1k %.2fx%s\n", lm[2] / lm[0], lm[2] / lm[0] <= 2 ? "  (goal <= 2: met)" : "  (goal <= 2: NOT met)");
  else if (nl == 2)
    printf("per-joint 10k/1k %.2fx (100k skipped: argument %ld)\n", lm[1] / lm[0], max_load);
  return 0;
}
