/* bench/bench_graph_eval.c: the evaluator's overhead on joint hierarchies (issue 17), next to
 * plain C recomputing the same Maya joint matrices, in the same process.
 *
 * Two rigs, made through the public graph API: a 1,001-joint tree (a root and 10 chains of 100)
 * and a 10,001-joint one (a root and 100 chains of 100). Every joint has its own translate,
 * rotate, rotateOrder (cycling through the six), scale, rotateAxis, jointOrient and
 * offsetParentMatrix, segmentScaleCompensate on and the parent's scale connected to its
 * inverseScale, as Maya's joint command does. A frame rotates the root and reads every joint's
 * worldMatrix[0]. The C reference recomputes, for every joint, the local matrix
 * S * RA * R * JO * IS * T and the world matrix local * opm * parent's world, with sinew's public
 * math functions, from inputs held in arrays.
 *
 * Frames alternate one by one between the graph and the C loop (the machine is shared and
 * noisy); the figures are medians over all frames in ns per joint, and the ratio is the median
 * of the per-frame ratios. The two results are compared bitwise-close (1e-9) before timing.
 *
 *   bench_graph_eval [rounds [frames-per-round [which]]]   (which: 1 the small rig, 2 the large
 *                                                         one, else both)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sinew/sinew.h"
#include "bench/bench_util.h"

static void die(const char *what, sinew_graph_t *g) {
  fprintf(stderr, "bench_graph_eval: %s: %s\n", what, g ? sinew_graph_errmsg(g) : "failed");
  exit(1);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The inputs of one joint, as the C reference keeps them. */
typedef struct joint_in {
  long parent; /* -1 for the root */
  sinew_vec3_t t, r, s, ra, jo;
  sinew_rotate_order_t ro;
  sinew_mat4_t opm;
} joint_in;

typedef struct rig {
  long n;
  joint_in *in;
  sinew_mat4_t *world; /* the C reference's results */
  sinew_graph_t *g;
  sinew_plug_t root_r, *wm;
} rig;

static double wave(long k, double a) { return sin(0.37 * (double)k + a); }

static void plug_of(sinew_graph_t *g, sinew_node_t node, const char *attr, sinew_plug_t *out) {
  if (sinew_plug_parse_attr(g, node, attr, out)) die(attr, g);
}

static void set3(sinew_graph_t *g, sinew_node_t node, const char *attr, sinew_vec3_t v) {
  sinew_plug_t p;
  plug_of(g, node, attr, &p);
  double d[3] = {v.x, v.y, v.z};
  if (sinew_set_doubles(g, &p, d, 3)) die(attr, g);
}

/* A root and `chains` chains of `len` joints under it. */
static void rig_build(rig *rg, long chains, long len) {
  rg->n = 1 + chains * len;
  rg->in = calloc((size_t)rg->n, sizeof *rg->in);
  rg->world = calloc((size_t)rg->n, sizeof *rg->world);
  rg->wm = calloc((size_t)rg->n, sizeof *rg->wm);
  sinew_node_t *nodes = calloc((size_t)rg->n, sizeof *nodes);
  if (!rg->in || !rg->world || !rg->wm || !nodes) die("out of memory", NULL);
  if (sinew_scene_create(NULL, &rg->g)) die("scene", NULL);
  sinew_graph_t *g = rg->g;
  for (long k = 0; k < rg->n; k++) {
    joint_in *j = &rg->in[k];
    j->parent = k == 0 ? -1 : ((k - 1) % len == 0 ? 0 : k - 1);
    j->t = (sinew_vec3_t){1.0 + 0.1 * wave(k, 0), 0.2 * wave(k, 1), 0.1 * wave(k, 2)};
    j->r = (sinew_vec3_t){0.1 * wave(k, 3), 0.2 * wave(k, 4), 0.15 * wave(k, 5)};
    j->s = (sinew_vec3_t){1.0 + 0.01 * wave(k, 6), 1.0 - 0.01 * wave(k, 7), 1.0 + 0.005 * wave(k, 8)};
    j->ra = (sinew_vec3_t){0.05 * wave(k, 9), 0.03 * wave(k, 10), 0.02 * wave(k, 11)};
    j->jo = (sinew_vec3_t){0.3 * wave(k, 12), 0.1 * wave(k, 13), 0.2 * wave(k, 14)};
    j->ro = (sinew_rotate_order_t)(k % 6);
    sinew_mat4_t rot, tr;
    sinew_mat4_euler((sinew_vec3_t){0.01 * wave(k, 15), 0, 0.02 * wave(k, 16)}, SINEW_ROTATE_XYZ, &rot);
    sinew_mat4_translate((sinew_vec3_t){0.01 * wave(k, 17), 0, 0}, &tr);
    sinew_mat4_mul(&rot, &tr, &j->opm);

    int rc = j->parent < 0 ? sinew_node_create(g, "joint", "j#", &nodes[k])
                           : sinew_node_create_under(g, "joint", "j#", nodes[j->parent], &nodes[k]);
    if (rc) die("createNode joint", g);
    set3(g, nodes[k], "t", j->t);
    set3(g, nodes[k], "r", j->r);
    set3(g, nodes[k], "s", j->s);
    set3(g, nodes[k], "ra", j->ra);
    set3(g, nodes[k], "jo", j->jo);
    sinew_plug_t p, q;
    plug_of(g, nodes[k], "ro", &p);
    if (sinew_set_double(g, &p, (double)j->ro)) die("ro", g);
    plug_of(g, nodes[k], "opm", &p);
    if (sinew_set_matrix(g, &p, &j->opm)) die("opm", g);
    if (j->parent >= 0) { /* parent.s -> child.is, as Maya's joint command connects them */
      plug_of(g, nodes[j->parent], "s", &p);
      plug_of(g, nodes[k], "is", &q);
      if (sinew_connect(g, &p, &q, 0, NULL)) die("connectAttr s is", g);
    }
    plug_of(g, nodes[k], "worldMatrix[0]", &rg->wm[k]);
  }
  plug_of(g, nodes[0], "r", &rg->root_r);
  free(nodes);
}

static void rig_free(rig *rg) {
  sinew_graph_destroy(rg->g);
  free(rg->in);
  free(rg->world);
  free(rg->wm);
}

static sinew_vec3_t root_rotation(long frame) {
  return (sinew_vec3_t){0.3 * sin(0.1 * (double)frame), 0.2 * cos(0.07 * (double)frame), 0.1};
}

/* The C reference: every joint's local and world matrix, parents first (creation order). */
static void c_frame(rig *rg, long frame) {
  rg->in[0].r = root_rotation(frame);
  for (long k = 0; k < rg->n; k++) {
    const joint_in *j = &rg->in[k];
    sinew_mat4_t m, tmp, local;
    sinew_mat4_scale(j->s, &m);
    sinew_mat4_euler(j->ra, SINEW_ROTATE_XYZ, &tmp);
    sinew_mat4_mul(&m, &tmp, &local);
    sinew_mat4_euler(j->r, j->ro, &tmp);
    sinew_mat4_mul(&local, &tmp, &m);
    sinew_mat4_euler(j->jo, SINEW_ROTATE_XYZ, &tmp);
    sinew_mat4_mul(&m, &tmp, &local);
    if (j->parent >= 0) { /* IS: the inverse of the parent's scale */
      sinew_vec3_t ps = rg->in[j->parent].s;
      sinew_mat4_scale((sinew_vec3_t){1 / ps.x, 1 / ps.y, 1 / ps.z}, &tmp);
      sinew_mat4_mul(&local, &tmp, &m);
      local = m;
    }
    local.m[3][0] += j->t.x;
    local.m[3][1] += j->t.y;
    local.m[3][2] += j->t.z;
    sinew_mat4_mul(&local, &j->opm, &m);
    if (j->parent >= 0) sinew_mat4_mul(&m, &rg->world[j->parent], &rg->world[k]);
    else rg->world[k] = m;
  }
}

static double graph_frame(rig *rg, long frame) {
  sinew_vec3_t r = root_rotation(frame);
  double d[3] = {r.x, r.y, r.z}, sink = 0;
  if (sinew_set_doubles(rg->g, &rg->root_r, d, 3)) die("setAttr root.r", rg->g);
  for (long k = 0; k < rg->n; k++) {
    sinew_mat4_t m;
    sinew_get_matrix(rg->g, &rg->wm[k], &m);
    sink += m.m[3][0];
  }
  return sink;
}

static double c_sink(rig *rg) {
  double sink = 0;
  for (long k = 0; k < rg->n; k++) sink += rg->world[k].m[3][0];
  return sink;
}

static int run(long chains, long len, int rounds, long frames) {
  rig rg;
  rig_build(&rg, chains, len);
  /* agreement first */
  double maxdiff = 0;
  for (long f = 0; f < 3; f++) {
    graph_frame(&rg, f * 11);
    c_frame(&rg, f * 11);
    for (long k = 0; k < rg.n; k++) {
      sinew_mat4_t m;
      if (sinew_get_matrix(rg.g, &rg.wm[k], &m)) die("getAttr worldMatrix", rg.g);
      for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) maxdiff = fmax(maxdiff, fabs(m.m[i][j] - rg.world[k].m[i][j]));
    }
  }
  /* Frames alternate one by one between the graph and C, each timed, so a change in the
   * machine's load touches both sides of a pair; the medians are over every pair. */
  long pairs = (long)rounds * frames;
  double *tg = malloc((size_t)pairs * sizeof *tg), *tc = malloc((size_t)pairs * sizeof *tc);
  double *ratio = malloc((size_t)pairs * sizeof *ratio), sink = 0;
  if (!tg || !tc || !ratio) die("out of memory", NULL);
  for (long i = 0; i < pairs; i++) {
    long frame = 100 + i;
    double t0 = now();
    sink += graph_frame(&rg, frame);
    double t1 = now();
    c_frame(&rg, frame);
    sink += c_sink(&rg);
    double t2 = now();
    tg[i] = (t1 - t0) / (double)rg.n * 1e9;
    tc[i] = (t2 - t1) / (double)rg.n * 1e9;
    ratio[i] = tg[i] / tc[i];
  }
  printf("%6ld joints (a root and %ld chains of %ld), %ld frames each way, alternating; median:\n", rg.n,
         chains, len, pairs);
  printf("  graph (rotate the root, read every worldMatrix[0]): %8.1f ns per joint\n", median(tg, (int)pairs));
  printf("  plain C (every local and world matrix):            %8.1f ns per joint\n", median(tc, (int)pairs));
  printf("  ratio %.2fx (goal <= 1.5x); largest difference %.3g (sink %g)\n", median(ratio, (int)pairs),
         maxdiff, sink);
  free(tg);
  free(tc);
  free(ratio);
  rig_free(&rg);
  return maxdiff < 1e-9 ? 0 : 1;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 9;
  long frames = argc > 2 ? atol(argv[2]) : 20;
  if (rounds < 1) rounds = 1;
  if (rounds > 1000) rounds = 1000;
  if (frames < 1) frames = 1;
  int which = argc > 3 ? atoi(argv[3]) : 0, rc = 0;
  if (which != 2) rc |= run(10, 100, rounds, frames);
  if (which != 1) rc |= run(100, 100, rounds, frames > 4 ? frames / 4 : 1);
  return rc;
}
