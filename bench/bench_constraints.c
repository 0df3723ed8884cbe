/* bench/bench_constraints.c: a frame of N joints, each driven by a parentConstraint with two
 * targets (control i and control i + 1, under one root control), next to the same maths
 * written as a plain C loop, in the same process (machines here are shared and noisy: compare
 * ratios, not seconds). The constraints-only part of issue 14's 500-control benchmark.
 *
 * Graph: the root turns (root.rz), which dirties every control's parentMatrix, every
 * constraint and every joint; then every joint's worldMatrix[0] is read.
 * C loop: per control its world matrix (local translate times the root's rotation), per joint
 * the two targets' frames, the average origin, the average of the two rotations as quaternions,
 * the Euler angles of the result and the joint's world matrix rebuilt from them.
 *
 * Measured when written (500 joints, a shared 2-core machine): about 55 us per joint through
 * the graph against 0.6 us in the loop, a ratio near 90x. A profile puts most of the graph's
 * time in the core's per-plug work (connection lookup, dirty walking, plug checks: each joint
 * pulls about 40 plugs), as bench_anim finds for curves; the constraint maths is a few percent.
 * parentConstraint computes ct and cr in one pass, since a joint reads both.
 *
 *   bench_constraints [joints [frames]]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sinew/sinew.h"
#include "bench/bench_util.h"

static void die(const char *what, sinew_session_t *s) {
  fprintf(stderr, "bench_constraints: %s: %s\n", what, s ? sinew_session_errmsg(s) : "failed");
  exit(1);
}

static void run(sinew_session_t *s, const char *text) {
  if (sinew_session_run(s, text, strlen(text), "bench.mel", NULL)) die("script", s);
}

/* The plain C version of one frame: returns a checksum of the joints' world matrices. */
static double frame_c(long n, double angle, sinew_mat4_t *ctrl_world, sinew_mat4_t *joint_world) {
  sinew_mat4_t root, local;
  sinew_mat4_rotate_z(angle, &root);
  for (long i = 0; i <= n; i++) {
    sinew_mat4_translate((sinew_vec3_t){(double)i, 0, 0}, &local);
    sinew_mat4_mul(&local, &root, &ctrl_world[i]);
  }
  double sum = 0;
  for (long i = 0; i < n; i++) {
    const sinew_mat4_t *a = &ctrl_world[i], *b = &ctrl_world[i + 1];
    sinew_vec3_t p = {(a->m[3][0] + b->m[3][0]) / 2, (a->m[3][1] + b->m[3][1]) / 2, (a->m[3][2] + b->m[3][2]) / 2};
    sinew_quat_t qa, qb, q;
    sinew_quat_from_mat4(a, &qa);
    sinew_quat_from_mat4(b, &qb);
    if (sinew_quat_dot(qa, qb) < 0) qb = (sinew_quat_t){-qb.x, -qb.y, -qb.z, -qb.w};
    sinew_quat_normalize((sinew_quat_t){qa.x + qb.x, qa.y + qb.y, qa.z + qb.z, qa.w + qb.w}, &q);
    sinew_mat4_t r;
    sinew_quat_to_mat4(q, &r);
    sinew_vec3_t e;
    sinew_euler_from_mat4(&r, SINEW_ROTATE_XYZ, &e);
    sinew_mat4_compose(p, e, SINEW_ROTATE_XYZ, (sinew_vec3_t){1, 1, 1}, (sinew_vec3_t){0, 0, 0}, &joint_world[i]);
    sum += joint_world[i].m[3][0] + joint_world[i].m[0][1];
  }
  return sum;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 500, frames = argc > 2 ? atol(argv[2]) : 200;
  if (n < 1 || frames < 1) {
    fprintf(stderr, "usage: bench_constraints [joints [frames]]\n");
    return 2;
  }
  sinew_session_t *s;
  if (sinew_session_create(NULL, &s)) die("session", NULL);
  run(s, "createNode transform -n root;");
  char buf[512];
  for (long i = 0; i <= n; i++) {
    snprintf(buf, sizeof buf, "createNode transform -n c%ld -p root; setAttr c%ld.tx %ld;", i, i, i);
    run(s, buf);
  }
  for (long i = 0; i < n; i++) {
    snprintf(buf, sizeof buf, "createNode joint -n j%ld; parentConstraint c%ld c%ld j%ld;", i, i, i + 1, i);
    run(s, buf);
  }
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_plug_t rz, *wm = malloc((size_t)n * sizeof *wm);
  sinew_mat4_t *cw = malloc((size_t)(n + 1) * sizeof *cw), *jw = malloc((size_t)n * sizeof *jw);
  if (!wm || !cw || !jw) die("memory", NULL);
  if (sinew_plug_parse(g, "root.rz", (sinew_node_t){0, 0}, &rz)) die("root.rz", s);
  for (long i = 0; i < n; i++) {
    snprintf(buf, sizeof buf, "j%ld.wm[0]", i);
    if (sinew_plug_parse(g, buf, (sinew_node_t){0, 0}, &wm[i])) die(buf, s);
  }
  /* check: both give the same joints */
  double maxdiff = 0;
  for (int f = 0; f < 3; f++) {
    double angle = 0.3 + f * 0.7;
    if (sinew_set_double(g, &rz, angle)) die("set", s);
    frame_c(n, angle, cw, jw);
    for (long i = 0; i < n; i++) {
      sinew_mat4_t m;
      if (sinew_get_matrix(g, &wm[i], &m)) die("get", s);
      for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) maxdiff = fmax(maxdiff, fabs(m.m[r][c] - jw[i].m[r][c]));
    }
  }
  double best_graph = 1e30, best_c = 1e30, sink = 0;
  for (int round_ = 0; round_ < 3; round_++) {
    double t0 = now();
    for (long f = 0; f < frames; f++) {
      sinew_set_double(g, &rz, f * 0.01);
      for (long i = 0; i < n; i++) {
        sinew_mat4_t m;
        sinew_get_matrix(g, &wm[i], &m);
        sink += m.m[3][0] + m.m[0][1];
      }
    }
    double t1 = now();
    for (long f = 0; f < frames; f++) sink += frame_c(n, f * 0.01, cw, jw);
    double t2 = now();
    best_graph = fmin(best_graph, t1 - t0);
    best_c = fmin(best_c, t2 - t1);
  }
  printf("bench_constraints: %ld joints (parentConstraint, 2 targets each), %ld frames\n", n, frames);
  printf("  graph   %9.3f us/frame  (%.3f us per joint)\n", best_graph / frames * 1e6, best_graph / frames / n * 1e6);
  printf("  plain C %9.3f us/frame  (%.3f us per joint)\n", best_c / frames * 1e6, best_c / frames / n * 1e6);
  printf("  ratio   %9.1fx   max difference %.3g   (checksum %.6g)\n", best_graph / best_c, maxdiff, sink);
  free(wm);
  free(cw);
  free(jw);
  sinew_session_destroy(s);
  return maxdiff < 1e-9 ? 0 : 1;
}
