/* bench/bench_graph_parallel.c: independent branches of one graph evaluated at once (issue 17).
 *
 * Two skinned meshes in one graph, each with its own 16 joints and skinCluster, 500,000 points
 * (by default) and 4 influences per point. A frame rotates one joint of each rig and brings both
 * meshes' outMesh up to date:
 *   - serial:   sinew_evaluate on each mesh, pool of 1 thread (everything on the caller);
 *   - parallel: sinew_evaluate_parallel on both, pool of 2 threads (one skinCluster per thread;
 *               a kernel started inside a step runs on that step's thread);
 *   - for scale, serial evaluation with a pool of 2 threads (each skinCluster's points split
 *     over both threads, the meshes one after the other).
 * Rounds alternate between the modes (the machine is shared and noisy); figures are medians of
 * per-frame times, the ratio is serial / parallel. Every frame's points are compared bitwise
 * between the modes (the same pose is set again before each). The CPU time the process used
 * over the wall time, per mode, tells whether two threads did work at once (near 2) when the
 * machine is too busy for the times to show it. The serial mode also times each mesh on its own:
 * the slower of the two is what two threads could do at best, so parallel / that bound is the
 * scheduler's own cost, apart from the machine's load (printed before and after, from
 * getloadavg: the 1-minute load over the CPU count says how much of the machine was free).
 *
 *   bench_graph_parallel [points [rounds [frames-per-round]]]
 */
#define _DEFAULT_SOURCE /* getloadavg */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sinew/sinew.h"
#include "bench/bench_util.h"

#define JOINTS 16
#define INFL 4
#define RIGS 2

static void check(int rc, sinew_graph_t *g, const char *what) {
  if (rc == SINEW_OK) return;
  fprintf(stderr, "bench_graph_parallel: %s: %s (%s)\n", what, sinew_err_name(rc), g ? sinew_graph_errmsg(g) : "");
  exit(1);
}

static double cpu_now(void) { /* the process's CPU time, all threads */
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint32_t lcg(uint32_t *s) {
  *s = *s * 1664525u + 1013904223u;
  return *s >> 8;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct rig {
  sinew_node_t joints[JOINTS];
  sinew_plug_t out;
} rig;

static void build_rig(sinew_graph_t *g, rig *r, int which, uint32_t npoints, uint32_t seed) {
  char name[64];
  sinew_node_t root;
  snprintf(name, sizeof name, "root%d", which);
  check(sinew_node_create(g, "joint", name, &root), g, "root");
  for (int j = 0; j < JOINTS; j++) {
    check(sinew_node_create_under(g, "joint", NULL, root, &r->joints[j]), g, "joint");
    sinew_plug_t t;
    check(sinew_plug_parse_attr(g, r->joints[j], "t", &t), g, "t");
    double v[3] = {(j % 4) * 2.0, (j / 4) * 2.0, 0};
    check(sinew_set_doubles(g, &t, v, 3), g, "t");
  }
  sinew_data_t *mesh;
  check(sinew_mesh_create(npoints, 0, NULL, NULL, &mesh), g, "mesh");
  float *p = sinew_mesh_points_mutable(&mesh);
  if (!p) check(SINEW_ENOMEM, g, "points");
  for (uint32_t i = 0; i < npoints; i++) {
    p[3 * i] = (float)(lcg(&seed) % 8000) * 0.001f;
    p[3 * i + 1] = (float)(lcg(&seed) % 8000) * 0.001f;
    p[3 * i + 2] = (float)(lcg(&seed) % 1000) * 0.001f;
  }
  sinew_node_t xf, shape, skin;
  snprintf(name, sizeof name, "skinned%d", which);
  check(sinew_node_create(g, "transform", name, &xf), g, "transform");
  check(sinew_node_create_under(g, "mesh", NULL, xf, &shape), g, "shape");
  check(sinew_node_create(g, "skinCluster", NULL, &skin), g, "skinCluster");
  sinew_plug_t ig, og, in;
  check(sinew_plug_parse_attr(g, skin, "ip[0].ig", &ig), g, "ig");
  check(sinew_set_data(g, &ig, mesh), g, "input geometry");
  sinew_data_unref(mesh);
  check(sinew_plug_parse_attr(g, skin, "og[0]", &og), g, "og");
  check(sinew_plug_parse_attr(g, shape, "inMesh", &in), g, "inMesh");
  check(sinew_connect(g, &og, &in, 0, NULL), g, "og -> inMesh");
  check(sinew_plug_parse_attr(g, shape, "outMesh", &r->out), g, "outMesh");
  for (int j = 0; j < JOINTS; j++) {
    sinew_plug_t wm, ma, pm;
    char buf[32];
    check(sinew_plug_parse_attr(g, r->joints[j], "wm[0]", &wm), g, "wm");
    snprintf(buf, sizeof buf, "ma[%d]", j);
    check(sinew_plug_parse_attr(g, skin, buf, &ma), g, "ma");
    check(sinew_connect(g, &wm, &ma, 0, NULL), g, "wm -> ma");
    sinew_mat4_t w, inv;
    check(sinew_get_matrix(g, &wm, &w), g, "world");
    sinew_mat4_inverse(&w, &inv);
    snprintf(buf, sizeof buf, "pm[%d]", j);
    check(sinew_plug_parse_attr(g, skin, buf, &pm), g, "pm");
    check(sinew_set_matrix(g, &pm, &inv), g, "bindPreMatrix");
  }
  for (uint32_t i = 0; i < npoints; i++) { /* 4 distinct influences, ascending, summing to 1 */
    int32_t ii[INFL];
    double ww[INFL], sum = 0;
    int first = (int)(lcg(&seed) % (JOINTS - INFL + 1));
    for (int k = 0; k < INFL; k++) {
      ii[k] = first + k;
      ww[k] = 1.0 + (double)(lcg(&seed) % 100);
      sum += ww[k];
    }
    for (int k = 0; k < INFL; k++) ww[k] /= sum;
    char buf[32];
    snprintf(buf, sizeof buf, "wl[%u].w", i);
    sinew_plug_t wp;
    check(sinew_plug_parse_attr(g, skin, buf, &wp), g, "wl");
    check(sinew_set_double_elements(g, &wp, ii, ww, INFL), g, "weights");
  }
}

static void pose(sinew_graph_t *g, rig *rigs, int frame) {
  for (int r = 0; r < RIGS; r++) {
    sinew_plug_t rz;
    check(sinew_plug_parse_attr(g, rigs[r].joints[(frame + 5 * r) % JOINTS], "rz", &rz), g, "rz");
    check(sinew_set_double(g, &rz, 0.01 * frame + 0.1 * r), g, "rotate");
  }
}

enum { SERIAL, PARALLEL, SERIAL_KERNELS, MODES };
static const int mode_threads[MODES] = {1, 2, 2};

static double busy[MODES], wall[MODES]; /* CPU and wall seconds spent evaluating, per mode */
static double slowest; /* the last frame's slower mesh, timed alone (serial modes) */

static double frame_time(sinew_graph_t *g, rig *rigs, int frame, int mode) {
  sinew_plug_t outs[RIGS];
  for (int r = 0; r < RIGS; r++) outs[r] = rigs[r].out;
  pose(g, rigs, frame);
  double c0 = cpu_now(), t0 = now();
  slowest = 0;
  if (mode == PARALLEL) check(sinew_evaluate_parallel(g, outs, RIGS), g, "evaluate_parallel");
  else
    for (int r = 0; r < RIGS; r++) {
      double m0 = now();
      check(sinew_evaluate(g, &outs[r]), g, "evaluate");
      slowest = fmax(slowest, now() - m0);
    }
  double dt = now() - t0;
  busy[mode] += cpu_now() - c0;
  wall[mode] += dt;
  return dt;
}

/* The points of both meshes, copied. */
static void snapshot(sinew_graph_t *g, rig *rigs, float **pts, uint32_t npoints) {
  for (int r = 0; r < RIGS; r++) {
    sinew_data_t *d = NULL;
    check(sinew_get_data(g, &rigs[r].out, &d), g, "outMesh");
    const sinew_mesh_t *m = sinew_mesh_get(d);
    if (!m || m->npoints != npoints) check(SINEW_ETYPE, g, "outMesh is not the skinned mesh");
    memcpy(pts[r], m->points, sizeof(float) * 3 * npoints);
    sinew_data_unref(d);
  }
}

int main(int argc, char **argv) {
  uint32_t npoints = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 500000;
  int rounds = argc > 2 ? atoi(argv[2]) : 5;
  int frames = argc > 3 ? atoi(argv[3]) : 6;
  if (npoints < 1 || rounds < 1 || frames < 1 || rounds * frames > 10000) {
    fprintf(stderr, "usage: bench_graph_parallel [points [rounds [frames-per-round]]]\n");
    return 2;
  }
  sinew_graph_t *g;
  check(sinew_scene_create(NULL, &g), NULL, "scene");
  rig rigs[RIGS];
  double t0 = now();
  for (int r = 0; r < RIGS; r++) build_rig(g, &rigs[r], r, npoints, 17u + (uint32_t)r);
  double build_s = now() - t0;
  float *ref[RIGS], *got[RIGS];
  for (int r = 0; r < RIGS; r++) {
    ref[r] = malloc(sizeof(float) * 3 * npoints);
    got[r] = malloc(sizeof(float) * 3 * npoints);
    if (!ref[r] || !got[r]) check(SINEW_ENOMEM, NULL, "memory");
  }
  int n = rounds * frames;
  double *t[MODES];
  for (int m = 0; m < MODES; m++)
    if (!(t[m] = malloc(sizeof(double) * (size_t)n))) check(SINEW_ENOMEM, NULL, "memory");
  double *ratio = malloc(sizeof(double) * (size_t)n), *bound = malloc(sizeof(double) * (size_t)n);
  if (!ratio || !bound) check(SINEW_ENOMEM, NULL, "memory");
  double load0[3] = {0, 0, 0}, load1[3] = {0, 0, 0};
  getloadavg(load0, 3);
  long mismatches = 0;
  int frame = 1;
  for (int round = 0; round < rounds; round++) {
    for (int m = 0; m < MODES; m++) {
      check(sinew_pool_set_threads(mode_threads[m]), NULL, "threads");
      frame_time(g, rigs, 0, m); /* warm up: threads, buffers */
      for (int f = 0; f < frames; f++) {
        t[m][round * frames + f] = frame_time(g, rigs, frame + f, m);
        if (m == SERIAL) bound[round * frames + f] = slowest;
      }
    }
    /* bitwise: each of this round's poses evaluated serially, then again in parallel */
    for (int f = 0; f < frames; f++) {
      check(sinew_pool_set_threads(1), NULL, "threads");
      frame_time(g, rigs, frame + f, SERIAL);
      snapshot(g, rigs, ref, npoints);
      check(sinew_pool_set_threads(2), NULL, "threads");
      frame_time(g, rigs, frame + f, PARALLEL);
      snapshot(g, rigs, got, npoints);
      for (int r = 0; r < RIGS; r++) mismatches += memcmp(ref[r], got[r], sizeof(float) * 3 * npoints) != 0;
    }
    for (int f = 0; f < frames; f++) {
      int i = round * frames + f;
      ratio[i] = t[SERIAL][i] / t[PARALLEL][i];
    }
    frame += frames;
  }
  getloadavg(load1, 3);
  printf("%d skinned meshes of %u points (%d joints, %d influences per point each), built in %.1f s\n", RIGS,
         npoints, JOINTS, INFL, build_s);
  printf("%d rounds of %d frames per mode, alternating; median ms per frame (both meshes):\n", rounds, frames);
  double ms = median(t[SERIAL], n) * 1e3, mp = median(t[PARALLEL], n) * 1e3, mk = median(t[SERIAL_KERNELS], n) * 1e3;
  printf("  serial evaluation, 1 thread:                        %8.2f\n", ms);
  printf("  sinew_evaluate_parallel, 2 threads:                 %8.2f\n", mp);
  printf("  serial evaluation, 2 threads inside each skinCluster: %6.2f\n", mk);
  printf("  parallel vs serial: %.2fx (median of per-frame ratios %.2fx; goal >= 1.7x)\n", ms / mp,
         median(ratio, n));
  double mb = median(bound, n) * 1e3;
  printf("  the slower mesh alone, 1 thread (the 2-thread bound): %6.2f; parallel / bound %.2f\n", mb, mp / mb);
  printf("  CPU time / wall time while evaluating: serial %.2f, parallel %.2f, serial with 2-thread kernels %.2f\n",
         busy[SERIAL] / wall[SERIAL], busy[PARALLEL] / wall[PARALLEL], busy[SERIAL_KERNELS] / wall[SERIAL_KERNELS]);
  printf("  load average (1 min) before %.2f, after %.2f, on %ld CPUs\n", load0[0], load1[0],
         sysconf(_SC_NPROCESSORS_ONLN));
  printf("  results bitwise equal: %s (%ld of %d mesh frames differ)\n", mismatches ? "NO" : "yes", mismatches,
         RIGS * n);
  for (int r = 0; r < RIGS; r++) {
    free(ref[r]);
    free(got[r]);
  }
  for (int m = 0; m < MODES; m++) free(t[m]);
  free(ratio);
  free(bound);
  sinew_graph_destroy(g);
  sinew_pool_set_threads(0);
  return mismatches ? 1 : 0;
}
