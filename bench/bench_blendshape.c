/* bench/bench_blendshape.c: blendShape evaluation through the graph against a plain C loop
 * doing the same adds in the same process (machines here are shared and noisy: compare
 * ratios). Runs are interleaved (graph, loop, graph, loop ...) and the median of each is kept.
 *
 * Scene: a blendShape on a mesh of 100,000 points (by default) with 50 targets, each a stored
 * delta on every point (pointArray + componentList "vtx[0:n-1]", as files store them). Each
 * frame sets every weight to a new non-zero value and pulls blendShape.outputGeometry[0]. The
 * reference copies the points and adds w[t] * delta_t[v] for every target, one thread.
 * Then the cost of weight 0: one target on and 49 at 0 (against the loop with one target), and
 * every weight at 0 (the input block passes through); these light cases run 20 times the frames.
 *
 *   bench_blendshape [points] [targets] [frames] [runs]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sinew/sinew.h"
#include "bench/bench_util.h"

static void check(int rc, sinew_graph_t *g, const char *what) {
  if (rc == SINEW_OK) return;
  fprintf(stderr, "bench_blendshape: %s: %s (%s)\n", what, sinew_err_name(rc), g ? sinew_graph_errmsg(g) : "");
  exit(1);
}

static uint32_t lcg(uint32_t *s) {
  *s = *s * 1664525u + 1013904223u;
  return *s >> 8;
}

typedef struct scene {
  sinew_graph_t *g;
  sinew_node_t bs;
  uint32_t np, nt;
  float *points; /* input points */
  float *deltas; /* nt * np * 3 */
  sinew_plug_t *w;
  sinew_plug_t og;
} scene;

static void build(scene *s, uint32_t np, uint32_t nt) {
  check(sinew_scene_create(NULL, &s->g), NULL, "scene");
  sinew_graph_t *g = s->g;
  s->np = np;
  s->nt = nt;
  check(sinew_node_create(g, "blendShape", "bs", &s->bs), g, "blendShape");
  sinew_data_t *mesh;
  check(sinew_mesh_create(np, 0, NULL, NULL, &mesh), g, "mesh");
  float *p = sinew_mesh_points_mutable(&mesh);
  s->points = malloc(sizeof(float) * 3 * np);
  s->deltas = malloc(sizeof(float) * 3 * (size_t)np * nt);
  double *xyzw = malloc(sizeof(double) * 4 * np);
  s->w = malloc(sizeof *s->w * nt);
  uint32_t seed = 7;
  for (uint32_t i = 0; i < 3 * np; i++) p[i] = (float)(lcg(&seed) % 10000) * 0.001f;
  memcpy(s->points, p, sizeof(float) * 3 * np);
  sinew_plug_t ig;
  check(sinew_plug_parse_attr(g, s->bs, "ip[0].ig", &ig), g, "ip");
  check(sinew_set_data(g, &ig, mesh), g, "input geometry");
  sinew_data_unref(mesh);
  char range[32];
  snprintf(range, sizeof range, "vtx[0:%u]", np - 1);
  const char *item = range;
  sinew_data_t *comps;
  check(sinew_component_list_create(&item, 1, &comps), g, "componentList");
  for (uint32_t t = 0; t < nt; t++) {
    float *d = s->deltas + 3 * (size_t)np * t;
    for (uint32_t v = 0; v < np; v++) {
      for (int c = 0; c < 3; c++) {
        d[3 * v + c] = (float)((int)(lcg(&seed) % 2001) - 1000) * 1e-4f;
        xyzw[4 * v + c] = d[3 * v + c];
      }
      xyzw[4 * v + 3] = 1;
    }
    sinew_data_t *pts;
    check(sinew_point_array_create(xyzw, np, &pts), g, "pointArray");
    char path[96];
    sinew_plug_t pp, cp;
    snprintf(path, sizeof path, "it[0].itg[%u].iti[6000].ipt", t);
    check(sinew_plug_parse_attr(g, s->bs, path, &pp), g, path);
    snprintf(path, sizeof path, "it[0].itg[%u].iti[6000].ict", t);
    check(sinew_plug_parse_attr(g, s->bs, path, &cp), g, path);
    check(sinew_set_data(g, &pp, pts), g, "ipt");
    check(sinew_set_data(g, &cp, comps), g, "ict");
    sinew_data_unref(pts);
    snprintf(path, sizeof path, "w[%u]", t);
    check(sinew_plug_parse_attr(g, s->bs, path, &s->w[t]), g, path);
  }
  sinew_data_unref(comps);
  free(xyzw);
  check(sinew_plug_parse_attr(g, s->bs, "og[0]", &s->og), g, "og");
}

/* Weights of frame f: target t at 0.3 + 0.001 * ((f + t) % 500); `on` targets, the rest 0. */
static double weight_of(int f, uint32_t t) { return 0.3 + 0.001 * ((f + (int)t) % 500); }

static void set_weights(scene *s, int f, uint32_t on) {
  for (uint32_t t = 0; t < s->nt; t++) check(sinew_set_double(s->g, &s->w[t], t < on ? weight_of(f, t) : 0), s->g, "w");
}

static const float *pull(scene *s, sinew_data_t **hold) {
  check(sinew_get_data(s->g, &s->og, hold), s->g, "og");
  return sinew_mesh_get(*hold)->points;
}

/* The reference: copy, then every target's adds, one thread, no graph. */
static void reference(const scene *s, int f, uint32_t on, float *out) {
  memcpy(out, s->points, sizeof(float) * 3 * s->np);
  for (uint32_t t = 0; t < on; t++) {
    const float w = (float)weight_of(f, t), *d = s->deltas + 3 * (size_t)s->np * t;
    for (size_t i = 0; i < 3 * (size_t)s->np; i++) out[i] += w * d[i];
  }
}

static double graph_frames(scene *s, int frames, uint32_t on, int *f) {
  double t0 = now();
  for (int i = 0; i < frames; i++) {
    sinew_data_t *hold = NULL;
    set_weights(s, (*f)++, on);
    pull(s, &hold);
    sinew_data_unref(hold);
  }
  return (now() - t0) / frames;
}

static double ref_frames(scene *s, int frames, uint32_t on, int *f, float *out) {
  double t0 = now();
  for (int i = 0; i < frames; i++) reference(s, (*f)++, on, out);
  return (now() - t0) / frames;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Interleaved runs of the graph (at `threads`) and the loop with `on` targets: medians, seconds
 * per frame. */
static void measure(scene *s, int frames, int runs, uint32_t on, int threads, double *graph, double *ref, float *out) {
  double *gv = malloc(sizeof *gv * runs), *rv = malloc(sizeof *rv * runs);
  int f = 1;
  sinew_pool_set_threads(threads);
  sinew_data_t *hold = NULL;
  set_weights(s, f++, on);
  pull(s, &hold); /* warm up: compile, buffers, threads */
  sinew_data_unref(hold);
  for (int r = 0; r < runs; r++) {
    gv[r] = graph_frames(s, frames, on, &f);
    rv[r] = ref_frames(s, frames, on, &f, out);
  }
  *graph = median(gv, runs);
  *ref = median(rv, runs);
  free(gv);
  free(rv);
}

int main(int argc, char **argv) {
  uint32_t np = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 100000;
  uint32_t nt = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 50;
  int frames = argc > 3 ? atoi(argv[3]) : 10;
  int runs = argc > 4 ? atoi(argv[4]) : 7;
  if (np < 1 || nt < 1 || frames < 1 || runs < 1) {
    fprintf(stderr, "usage: bench_blendshape [points] [targets] [frames] [runs]\n");
    return 2;
  }
  scene s;
  double t0 = now();
  build(&s, np, nt);
  double build_s = now() - t0;
  float *ref = malloc(sizeof(float) * 3 * np);
  /* the graph against the reference once */
  sinew_data_t *hold = NULL;
  set_weights(&s, 3, nt);
  const float *gp = pull(&s, &hold);
  reference(&s, 3, nt, ref);
  double maxerr = 0;
  for (uint32_t i = 0; i < 3 * np; i++) maxerr = fmax(maxerr, fabs((double)gp[i] - ref[i]));
  sinew_data_unref(hold);
  double g1, r1, g2, r2, gz, rz, ga, ra;
  /* single-threaded cases first: the pool's workers, once started, share the two cores */
  measure(&s, frames, runs, nt, 1, &g1, &r1, ref);
  /* the light cases take about a hundredth of the time: 20 times the frames, for steadier medians */
  measure(&s, 20 * frames, runs, 1, 1, &gz, &rz, ref);
  uint64_t ev0, ap0, ev1, ap1;
  sinew_blend_shape_stats(s.g, s.bs, &ev0, &ap0, NULL);
  measure(&s, 20 * frames, runs, 0, 1, &ga, &ra, ref);
  sinew_blend_shape_stats(s.g, s.bs, &ev1, &ap1, NULL);
  measure(&s, frames, runs, nt, 2, &g2, &r2, ref);
  printf("bench_blendshape: %u points, %u targets (dense stored deltas), %d frames x %d interleaved runs, medians\n",
         np, nt, frames, runs);
  printf("  setup                                     %8.3f s\n", build_s);
  printf("  max |graph - reference|                   %8.2e\n", maxerr);
  printf("  %2u targets on: reference loop (1 thread) %8.3f ms/frame\n", nt, r1 * 1e3);
  printf("                 graph, 1 thread            %8.3f ms/frame   ratio graph/reference %.2f\n", g1 * 1e3, g1 / r1);
  printf("                 graph, 2 threads           %8.3f ms/frame   ratio graph/reference %.2f (reference %.3f ms)\n",
         g2 * 1e3, g2 / r2, r2 * 1e3);
  printf("   1 target on, %u at weight 0: reference   %8.3f ms/frame\n", nt - 1, rz * 1e3);
  printf("                 graph, 1 thread            %8.3f ms/frame   ratio graph/reference %.2f\n", gz * 1e3, gz / rz);
  printf("  every weight 0: graph, 1 thread           %8.3f ms/frame   (%.4f of the %u-target frame; items applied %llu)\n",
         ga * 1e3, ga / g1, nt, (unsigned long long)(ap1 - ap0));
  free(ref);
  free(s.points);
  free(s.deltas);
  free(s.w);
  sinew_graph_destroy(s.g);
  sinew_pool_shutdown();
  return maxerr < 1e-3 && ap1 == ap0 ? 0 : 1;
}
