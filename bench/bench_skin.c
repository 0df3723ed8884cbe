/* bench/bench_skin.c: skinning throughput through the graph, against a plain loop doing the
 * same math in the same process (machines here are shared and noisy: compare ratios).
 *
 * Rig: 64 joints under one root, a mesh of 1,000,000 points (by default), 4 influences per
 * point. Each frame moves one joint and pulls the skinned mesh (shape.outMesh): the graph
 * recomputes that joint's world matrix, the skinCluster's 64 skin matrices and one pass over the
 * points. The reference loop blends the same four float 3x4 matrices per point, single
 * threaded, with no graph.
 *
 *   bench_skin [points] [frames]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sinew/sinew.h"

#define JOINTS 64
#define INFL 4

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void check(int rc, sinew_graph_t *g, const char *what) {
  if (rc == SINEW_OK) return;
  fprintf(stderr, "bench_skin: %s: %s (%s)\n", what, sinew_err_name(rc), g ? sinew_graph_errmsg(g) : "");
  exit(1);
}

static uint32_t lcg(uint32_t *s) {
  *s = *s * 1664525u + 1013904223u;
  return *s >> 8;
}

typedef struct rig {
  sinew_graph_t *g;
  sinew_node_t joints[JOINTS], skin, shape;
  uint32_t npoints;
  float *points;          /* the input points (for the reference loop) */
  uint16_t *idx;          /* INFL per point */
  float *w;               /* INFL per point */
} rig;

static void build(rig *r, uint32_t npoints) {
  sinew_graph_t *g;
  check(sinew_scene_create(NULL, &g), NULL, "scene");
  r->g = g;
  r->npoints = npoints;
  sinew_node_t root;
  check(sinew_node_create(g, "joint", "root", &root), g, "root");
  for (int j = 0; j < JOINTS; j++) {
    check(sinew_node_create(g, "joint", NULL, &r->joints[j]), g, "joint");
    check(sinew_dag_parent(g, r->joints[j], root, 0), g, "parent");
    sinew_plug_t t;
    sinew_plug_parse_attr(g, r->joints[j], "t", &t);
    double v[3] = {(j % 8) * 1.0, (j / 8) * 1.0, 0};
    check(sinew_set_doubles(g, &t, v, 3), g, "t");
  }
  /* a grid of points in the joints' area */
  sinew_data_t *mesh;
  check(sinew_mesh_create(npoints, 0, NULL, NULL, &mesh), g, "mesh");
  float *p = sinew_mesh_points_mutable(&mesh);
  r->points = malloc(sizeof(float) * 3 * npoints);
  r->idx = malloc(sizeof(uint16_t) * INFL * npoints);
  r->w = malloc(sizeof(float) * INFL * npoints);
  uint32_t seed = 1;
  for (uint32_t i = 0; i < npoints; i++) {
    p[3 * i] = (float)(lcg(&seed) % 8000) * 0.001f;
    p[3 * i + 1] = (float)(lcg(&seed) % 8000) * 0.001f;
    p[3 * i + 2] = (float)(lcg(&seed) % 1000) * 0.001f;
  }
  memcpy(r->points, p, sizeof(float) * 3 * npoints);
  sinew_node_t xf;
  check(sinew_node_create(g, "transform", "skinned", &xf), g, "transform");
  check(sinew_node_create_under(g, "mesh", "skinnedShape", xf, &r->shape), g, "shape");
  check(sinew_node_create(g, "skinCluster", "skinCluster1", &r->skin), g, "skinCluster");
  sinew_plug_t ig, og, in;
  sinew_plug_parse_attr(g, r->skin, "ip[0].ig", &ig);
  check(sinew_set_data(g, &ig, mesh), g, "input geometry");
  sinew_data_unref(mesh);
  sinew_plug_parse_attr(g, r->skin, "og[0]", &og);
  sinew_plug_parse_attr(g, r->shape, "inMesh", &in);
  check(sinew_connect(g, &og, &in, 0, NULL), g, "og -> inMesh");
  for (int j = 0; j < JOINTS; j++) {
    sinew_plug_t wm, ma, pm;
    sinew_plug_parse_attr(g, r->joints[j], "wm[0]", &wm);
    char buf[32];
    snprintf(buf, sizeof buf, "ma[%d]", j);
    sinew_plug_parse_attr(g, r->skin, buf, &ma);
    check(sinew_connect(g, &wm, &ma, 0, NULL), g, "wm -> ma");
    sinew_mat4_t w, inv;
    check(sinew_dag_world_matrix(g, r->joints[j], &w), g, "world");
    sinew_mat4_inverse(&w, &inv);
    snprintf(buf, sizeof buf, "pm[%d]", j);
    sinew_plug_parse_attr(g, r->skin, buf, &pm);
    check(sinew_set_matrix(g, &pm, &inv), g, "bindPreMatrix");
  }
  /* 4 distinct influences per point, weights summing to 1 */
  for (uint32_t i = 0; i < npoints; i++) {
    int32_t ii[INFL];
    double ww[INFL], sum = 0;
    for (int k = 0; k < INFL; k++) {
      int cand;
      bool dup;
      do {
        cand = (int)(lcg(&seed) % JOINTS);
        dup = false;
        for (int q = 0; q < k; q++) dup |= ii[q] == cand;
      } while (dup);
      ii[k] = cand;
      ww[k] = 1.0 + (double)(lcg(&seed) % 100);
      sum += ww[k];
    }
    /* sinew_set_double_elements wants ascending indices for the fast append path */
    for (int a = 0; a < INFL; a++)
      for (int b = a + 1; b < INFL; b++)
        if (ii[b] < ii[a]) {
          int t = ii[a]; ii[a] = ii[b]; ii[b] = t;
          double tw = ww[a]; ww[a] = ww[b]; ww[b] = tw;
        }
    for (int k = 0; k < INFL; k++) {
      ww[k] /= sum;
      r->idx[INFL * i + k] = (uint16_t)ii[k];
      r->w[INFL * i + k] = (float)ww[k];
    }
    char buf[32];
    snprintf(buf, sizeof buf, "wl[%u].w", i);
    sinew_plug_t wp;
    sinew_plug_parse_attr(g, r->skin, buf, &wp);
    check(sinew_set_double_elements(g, &wp, ii, ww, INFL), g, "weights");
  }
}

static void move_joint(rig *r, int frame) {
  sinew_plug_t rz;
  sinew_plug_parse_attr(r->g, r->joints[frame % JOINTS], "rz", &rz);
  check(sinew_set_double(r->g, &rz, 0.01 * frame), r->g, "rotate");
}

static const float *pull(rig *r, sinew_data_t **hold) {
  sinew_plug_t out;
  sinew_plug_parse_attr(r->g, r->shape, "outMesh", &out);
  check(sinew_get_data(r->g, &out, hold), r->g, "outMesh");
  return sinew_mesh_get(*hold)->points;
}

/* The reference: the same blend of float 3x4 matrices, one thread, no graph. */
static void reference(const rig *r, const float (*k)[12], float *out) {
  for (uint32_t i = 0; i < r->npoints; i++) {
    const float *p = &r->points[3 * i];
    float m[12] = {0};
    for (int q = 0; q < INFL; q++) {
      const float *km = k[r->idx[INFL * i + q]];
      float w = r->w[INFL * i + q];
      for (int c = 0; c < 12; c++) m[c] += w * km[c];
    }
    out[3 * i] = p[0] * m[0] + p[1] * m[1] + p[2] * m[2] + m[3];
    out[3 * i + 1] = p[0] * m[4] + p[1] * m[5] + p[2] * m[6] + m[7];
    out[3 * i + 2] = p[0] * m[8] + p[1] * m[9] + p[2] * m[10] + m[11];
  }
}

static double graph_rate(rig *r, int frames, int threads, int *frame) {
  sinew_pool_set_threads(threads);
  sinew_data_t *hold = NULL;
  move_joint(r, (*frame)++);
  pull(r, &hold); /* warm up: buffers, threads */
  sinew_data_unref(hold);
  double t0 = now();
  for (int f = 0; f < frames; f++) {
    move_joint(r, (*frame)++);
    pull(r, &hold);
    sinew_data_unref(hold);
  }
  return (double)r->npoints * frames / (now() - t0);
}

int main(int argc, char **argv) {
  uint32_t npoints = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1000000;
  int frames = argc > 2 ? atoi(argv[2]) : 20;
  if (npoints < 1 || frames < 1) {
    fprintf(stderr, "usage: bench_skin [points] [frames]\n");
    return 2;
  }
  rig r;
  double t0 = now();
  build(&r, npoints);
  double build_s = now() - t0;
  int frame = 1;
  /* check the graph against the reference once, and time the reference */
  sinew_data_t *hold = NULL;
  move_joint(&r, frame++);
  const float *gp = pull(&r, &hold);
  float (*k)[12] = malloc(sizeof(float[12]) * JOINTS);
  for (int j = 0; j < JOINTS; j++) {
    sinew_mat4_t w, pm, m;
    sinew_dag_world_matrix(r.g, r.joints[j], &w);
    char buf[32];
    snprintf(buf, sizeof buf, "pm[%d]", j);
    sinew_plug_t pp;
    sinew_plug_parse_attr(r.g, r.skin, buf, &pp);
    sinew_get_matrix(r.g, &pp, &pm);
    sinew_mat4_mul(&pm, &w, &m);
    sinew_mat4_to_float34(&m, k[j]);
  }
  float *ref = malloc(sizeof(float) * 3 * npoints);
  reference(&r, (const float(*)[12])k, ref);
  double maxerr = 0;
  for (uint32_t i = 0; i < 3 * npoints; i++) maxerr = fmax(maxerr, fabs((double)gp[i] - ref[i]));
  sinew_data_unref(hold);
  t0 = now();
  for (int f = 0; f < frames; f++) reference(&r, (const float(*)[12])k, ref);
  double ref_rate = (double)npoints * frames / (now() - t0);
  double g1 = graph_rate(&r, frames, 1, &frame);
  double g2 = graph_rate(&r, frames, 2, &frame);
  uint64_t compiles = 0, evals = 0;
  sinew_skin_cluster_stats(r.g, r.skin, &compiles, &evals);
  printf("bench_skin: %u points, %d influences/point, %d joints, %d frames per run\n", npoints, INFL,
         JOINTS, frames);
  printf("  setup (graph build + weights)        %8.3f s\n", build_s);
  printf("  max |graph - reference|              %8.2e\n", maxerr);
  printf("  reference scalar loop (1 thread)     %8.1f Mvertices/s\n", ref_rate / 1e6);
  printf("  graph path, 1 thread                 %8.1f Mvertices/s   ratio to reference %.2f\n", g1 / 1e6, g1 / ref_rate);
  printf("  graph path, 2 threads                %8.1f Mvertices/s   ratio to reference %.2f\n", g2 / 1e6, g2 / ref_rate);
  printf("  weight compiles %llu, skin evaluations %llu (compiles must stay 1)\n",
         (unsigned long long)compiles, (unsigned long long)evals);
  free(k);
  free(ref);
  free(r.points);
  free(r.idx);
  free(r.w);
  sinew_graph_destroy(r.g);
  sinew_pool_shutdown();
  return maxerr < 1e-3 && compiles == 1 ? 0 : 1;
}
