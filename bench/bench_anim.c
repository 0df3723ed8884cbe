/* bench/bench_anim.c: a frame of 10,000 animated channels (animCurveTA, 20 auto keys each)
 * through the graph, next to a plain C loop over the same Hermite segments, in the same process
 * (machines here are shared and noisy: compare ratios, not seconds; 7 rounds, the four loops
 * in turn in each, medians of the times and of each round's ratios).
 *
 * Graph: sinew_time_set_frame (which evaluates every compiled time curve in one batch and
 * stores its output, nodes/anim_curve.c) and a read of every curve's output: one
 * sinew_get_double per curve, one sinew_get_double_many for all, or one sinew_read_batch_get
 * of a read batch made once (what a host reading the same channels every frame keeps). C loop: for every channel,
 * find the span from the last one and evaluate the same cubic. Before the timed rounds both
 * reads are checked against each other (bitwise) and against the C loop.
 *
 * The issue asks for the graph within 2x of the loop (docs/animation.md#speed). A time change
 * reads each curve's record of the span it is in (one line per curve, the records in a row),
 * moves it on to the next span from the span's own line, and stores the outputs through an
 * output batch (one write per output, no lookup); what is left is memory the loop does not
 * touch: each output's slot, written, then its node record and slot read back.
 *
 *   bench_anim [channels [frames]]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sinew/sinew.h"
#include "bench/bench_util.h"

#define KEYS 20

static double median(const double *v, int n) {
  double s[16];
  for (int i = 0; i < n; i++) s[i] = v[i];
  qsort(s, (size_t)n, sizeof *s, cmp_double);
  return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static void die(const char *what, sinew_graph_t *g) {
  fprintf(stderr, "bench_anim: %s: %s\n", what, g ? sinew_graph_errmsg(g) : "failed");
  exit(1);
}

/* One channel for the C loop: key times and each span's cubic in s = t - t0. */
typedef struct channel {
  double t[KEYS], v[KEYS], c[KEYS][4];
  int hint;
} channel;

static double eval_c(channel *ch, double t) {
  if (t <= ch->t[0]) return ch->v[0];
  if (t >= ch->t[KEYS - 1]) return ch->v[KEYS - 1];
  int h = ch->hint;
  if (!(ch->t[h] <= t && t < ch->t[h + 1])) {
    if (h + 2 < KEYS && ch->t[h + 1] <= t && t < ch->t[h + 2]) {
      h++;
    } else {
      int lo = 0, hi = KEYS - 1;
      while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (ch->t[mid] <= t) lo = mid;
        else hi = mid;
      }
      h = lo;
    }
    ch->hint = h;
  }
  const double *c = ch->c[h];
  double s = t - ch->t[h];
  return ((c[0] * s + c[1]) * s + c[2]) * s + c[3];
}

/* Hermite coefficients with flat tangents (what a C port with precomputed spans would do). */
static void build_c(channel *ch) {
  for (int i = 0; i + 1 < KEYS; i++) {
    double dx = ch->t[i + 1] - ch->t[i], dy = ch->v[i + 1] - ch->v[i];
    ch->c[i][0] = -2 * dy / (dx * dx * dx);
    ch->c[i][1] = 3 * dy / (dx * dx);
    ch->c[i][2] = 0;
    ch->c[i][3] = ch->v[i];
  }
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 10000;
  long frames = argc > 2 ? atol(argv[2]) : 200;
  if (n < 1) n = 1;
  if (frames < 10) frames = 10;
  sinew_graph_t *g;
  if (sinew_scene_create(NULL, &g)) die("scene", NULL);
  sinew_plug_t *outs = calloc((size_t)n, sizeof *outs);
  double *vals = calloc((size_t)n, sizeof *vals);
  channel *chs = calloc((size_t)n, sizeof *chs);
  if (!outs || !vals || !chs) die("memory", NULL);
  srand(7);
  for (long k = 0; k < n; k++) {
    sinew_node_t c;
    if (sinew_node_create(g, "animCurveTA", "curve#", &c)) die("create", g);
    uint32_t kt = sinew_node_attr(g, c, "kt"), kv = sinew_node_attr(g, c, "kv");
    sinew_plug_t wgt = sinew_plug_make(c, sinew_node_attr(g, c, "wgt"), 0, NULL);
    sinew_set_double(g, &wgt, 0);
    for (int i = 0; i < KEYS; i++) {
      /* alternating values: every key is an extreme, so its auto tangent is flat (as in C) */
      double t = (i * 5 + 1) / 24.0, v = (i % 2 ? 1.0 : -1.0) * (0.5 + rand() / (double)RAND_MAX);
      int32_t idx[1] = {i};
      sinew_plug_t pt = sinew_plug_make(c, kt, 1, idx), pv = sinew_plug_make(c, kv, 1, idx);
      if (sinew_set_double(g, &pt, t) || sinew_set_double(g, &pv, v)) die("key", g);
      sinew_get_double(g, &pt, &t); /* as stored */
      chs[k].t[i] = round(t * 141120000.0) / 141120000.0;
      chs[k].v[i] = v;
    }
    build_c(&chs[k]);
    outs[k] = sinew_plug_make(c, sinew_node_attr(g, c, "o"), 0, NULL);
  }
  double sink = 0, maxdiff = 0;
  sinew_read_batch_t *rb = NULL;
  if (sinew_read_batch_make(g, outs, (size_t)n, &rb)) die("read batch", g);
  /* warm up: compile every curve once, check both agree */
  for (long f = 0; f < 3; f++) {
    sinew_time_set_frame(g, f * 1.3);
    double t;
    sinew_time_get_seconds(g, &t);
    for (long k = 0; k < n; k++) {
      double v = 0;
      if (sinew_get_double(g, &outs[k], &v)) die("get", g);
      maxdiff = fmax(maxdiff, fabs(v - eval_c(&chs[k], round(t * 141120000.0) / 141120000.0)));
    }
    if (sinew_get_double_many(g, outs, vals, (size_t)n)) die("get many", g);
    for (long k = 0; k < n; k++) {
      double v = 0;
      sinew_get_double(g, &outs[k], &v);
      if (v != vals[k]) die("sinew_get_double_many differs from sinew_get_double", NULL);
    }
    double *many = calloc((size_t)n, sizeof *many);
    if (!many) die("memory", NULL);
    memcpy(many, vals, (size_t)n * sizeof *vals);
    if (sinew_read_batch_get(g, rb, vals)) die("read batch", g);
    for (long k = 0; k < n; k++)
      if (vals[k] != many[k]) die("sinew_read_batch_get differs from sinew_get_double_many", NULL);
    free(many);
  }
  /* ROUNDS rounds, each running the four loops in turn over the same frames; per loop the
   * median of its per-frame time, and per graph loop the median over rounds of its ratio to
   * the C loop of the same round (the machine's load changes between rounds more than within
   * one). */
  enum { ROUNDS = 7, LOOPS = 4 };
  double took[LOOPS][ROUNDS], in_set[LOOPS][ROUNDS], ratio[LOOPS][ROUNDS];
  for (int r = 0; r < ROUNDS; r++) {
    for (int loop = 0; loop < LOOPS; loop++) {
      double t0 = now(), set = 0;
      for (long f = 0; f < frames; f++) {
        if (loop == LOOPS - 1) { /* the plain C loop */
          double t = round((1 + f * 0.5) / 24.0 * 141120000.0) / 141120000.0;
          for (long k = 0; k < n; k++) sink += eval_c(&chs[k], t);
          continue;
        }
        double ts = now();
        if (sinew_time_set_frame(g, 1 + f * 0.5)) die("time", g);
        set += now() - ts;
        if (loop == 0) {
          for (long k = 0; k < n; k++) {
            double v = 0;
            sinew_get_double(g, &outs[k], &v);
            sink += v;
          }
          continue;
        }
        if (loop == 1 && sinew_get_double_many(g, outs, vals, (size_t)n)) die("get many", g);
        if (loop == 2 && sinew_read_batch_get(g, rb, vals)) die("read batch", g);
        for (long k = 0; k < n; k++) sink += vals[k];
      }
      took[loop][r] = (now() - t0) / frames * 1e3;
      in_set[loop][r] = set / frames * 1e3;
    }
    for (int loop = 0; loop < LOOPS; loop++) ratio[loop][r] = took[loop][r] / took[LOOPS - 1][r];
  }
  static const char *const what[LOOPS] = {"graph, sinew_get_double per curve:", "graph, one sinew_get_double_many:",
                                          "graph, one sinew_read_batch_get:", "plain C loop over the same spans:"};
  printf("%ld channels x %d keys, %ld frames, %d rounds (medians)\n", n, KEYS, frames, ROUNDS);
  for (int loop = 0; loop < LOOPS; loop++) {
    printf("%-38s %8.3f ms per frame", what[loop], median(took[loop], ROUNDS));
    if (loop < LOOPS - 1)
      printf(" (setting the time %.3f), %.2fx the C loop", median(in_set[loop], ROUNDS), median(ratio[loop], ROUNDS));
    printf("\n");
  }
  printf("largest difference to the C loop %.3g (sink %g)\n", maxdiff, sink);
  free(outs);
  free(vals);
  sinew_read_batch_free(rb);
  free(chs);
  sinew_graph_destroy(g);
  return 0;
}
