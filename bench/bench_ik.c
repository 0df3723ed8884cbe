/* bench/bench_ik.c: frames of many two-bone RP chains (nodes/ik.c): each frame moves every
 * handle and reads every chain's end joint world matrix, which re-solves each chain once and
 * recomputes its three joint matrices. Reports the time per chain per frame, and, in the same
 * process (machines here are shared and noisy: compare ratios, not seconds), the time of the
 * same frame with the handles' moves going to a plain transform instead (three joint matrices
 * re-read without IK), so the difference is what the solve adds.
 *
 *   bench_ik [chains [frames]]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sinew/sinew.h"
#include "bench/bench_util.h"

static void die(const char *what, sinew_session_t *s) {
  fprintf(stderr, "bench_ik: %s: %s\n", what, s ? sinew_session_errmsg(s) : "failed");
  exit(1);
}

/* chains of j0 (under root<i>) -> j1 (3, 0, 0) -> j2 (4, 0, 0) with an RP handle each (ik) or a
 * root that moves instead (no IK) */
static double run(int chains, int frames, int ik) {
  sinew_session_t *s = NULL;
  if (sinew_session_create(NULL, &s)) die("session", NULL);
  char text[512];
  for (int i = 0; i < chains; i++) {
    snprintf(text, sizeof text,
             "createNode transform -n root%d; createNode joint -n a%d -p root%d; createNode joint -n b%d -p a%d;"
             "setAttr b%d.t 3 0 0; createNode joint -n c%d -p b%d; setAttr c%d.t 4 0 0; setAttr b%d.pa 0 0 10;",
             i, i, i, i, i, i, i, i, i, i);
    if (sinew_session_run(s, text, strlen(text), "bench", NULL)) die("setup", s);
    if (ik) {
      snprintf(text, sizeof text, "ikHandle -sj a%d -ee c%d -n h%d; setAttr h%d.pv 0 1 0;", i, i, i, i);
      if (sinew_session_run(s, text, strlen(text), "bench", NULL)) die("ikHandle", s);
    }
  }
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_plug_t *mv = malloc((size_t)chains * sizeof *mv), *end = malloc((size_t)chains * sizeof *end);
  if (!mv || !end) die("memory", NULL);
  for (int i = 0; i < chains; i++) {
    snprintf(text, sizeof text, ik ? "h%d.t" : "root%d.t", i);
    if (sinew_plug_parse(g, text, (sinew_node_t){0, 0}, &mv[i])) die(text, s);
    snprintf(text, sizeof text, "c%d.wm[0]", i);
    if (sinew_plug_parse(g, text, (sinew_node_t){0, 0}, &end[i])) die(text, s);
  }
  double t0 = now(), sum = 0;
  for (int f = 0; f < frames; f++)
    for (int i = 0; i < chains; i++) {
      double v[3] = {4 + sin(f * 0.1 + i), 2 * cos(f * 0.07), 0.5 * sin(f * 0.13)};
      if (sinew_set_doubles(g, &mv[i], v, 3)) die("set", s);
    }
  (void)t0;
  /* timed: set then read, frame by frame */
  t0 = now();
  for (int f = 0; f < frames; f++) {
    for (int i = 0; i < chains; i++) {
      double v[3] = {4 + sin(f * 0.1 + i), 2 * cos(f * 0.07), 0.5 * sin(f * 0.13)};
      if (sinew_set_doubles(g, &mv[i], v, 3)) die("set", s);
    }
    for (int i = 0; i < chains; i++) {
      sinew_mat4_t m;
      if (sinew_get_matrix(g, &end[i], &m)) die("get", s);
      sum += m.m[3][0];
    }
  }
  double dt = now() - t0;
  if (!isfinite(sum)) die("result", NULL);
  free(mv);
  free(end);
  sinew_session_destroy(s);
  return dt / frames / chains;
}

int main(int argc, char **argv) {
  int chains = argc > 1 ? atoi(argv[1]) : 1000, frames = argc > 2 ? atoi(argv[2]) : 50;
  if (chains < 1 || frames < 1) {
    fprintf(stderr, "usage: bench_ik [chains [frames]]\n");
    return 2;
  }
  double with = run(chains, frames, 1), without = run(chains, frames, 0);
  printf("%d two-bone RP chains, %d frames: %.2f us per chain per frame with IK, %.2f us moving "
         "the chain's root instead (ratio %.2f)\n",
         chains, frames, with * 1e6, without * 1e6, with / without);
  return 0;
}
