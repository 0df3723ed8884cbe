/* bench/bench_rig.c: a frame of a rig made of constraints and utility nodes (issue 14), next to
 * the same math written as plain C, in the same process (machines here are shared and noisy:
 * compare ratios, not seconds).
 *
 * The rig: N controls, each a transform driving a joint through a parentConstraint, and the
 * joint's scale through multiplyDivide -> condition -> blendColors, the pattern of a stretchy
 * or switch-driven limb:
 *
 *   ctrl.tx -> md.i1x (* 0.5) -> cond.ft (> 0: ct = 1 0 0, else cf = 0 1 1) -> bc.b
 *   bc.c1 = 1.5 1.5 1.5, bc.c2 = 1 1 1, bc.op -> joint.s
 *   parentConstraint ctrl joint (no offset) -> joint.t, joint.r
 *
 * A frame sets every control's tx, ty and rz (a new pose) and reads every joint's
 * worldMatrix[0]. The C loop does the same arithmetic: the control's matrix, the constraint's
 * decomposition of it into translate and Euler rotate, the scale chain, and the joint's matrix
 * (S * R * T). Both results are compared.
 *
 *   bench_rig [controls [frames]]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sinew/sinew.h"
#include "bench/bench_util.h"

static void die(const char *what, const char *msg) {
  fprintf(stderr, "bench_rig: %s: %s\n", what, msg ? msg : "failed");
  exit(1);
}

/* The pose of control k at frame f. */
static void pose(long k, long f, double *tx, double *ty, double *rz) {
  *tx = sin(0.1 * (double)f + 0.37 * (double)k) * 2.0; /* crosses 0: the condition switches */
  *ty = cos(0.05 * (double)f + 0.11 * (double)k);
  *rz = 0.7 * sin(0.03 * (double)f + (double)k); /* radians */
}

/* The same arithmetic in C: returns the joint's world matrix. */
static void rig_c(double tx, double ty, double rz, sinew_mat4_t *out) {
  /* the control's world matrix: Rz * T (no parent) */
  sinew_mat4_t r, t, ctrl;
  sinew_mat4_rotate_z(rz, &r);
  sinew_mat4_translate((sinew_vec3_t){tx, ty, 0}, &t);
  sinew_mat4_mul(&r, &t, &ctrl);
  /* the constraint: the joint's world = the control's, split into translate and rotate */
  sinew_vec3_t ct, cr;
  sinew_mat4_decompose(&ctrl, SINEW_ROTATE_XYZ, &ct, &cr, NULL, NULL);
  /* the scale chain */
  double md = tx * 0.5, b = md > 0 ? 1.0 : 0.0, s = 1.5 * b + 1.0 * (1 - b);
  /* the joint: S * R * T */
  sinew_mat4_t sm, rm, tm, sr;
  sinew_mat4_scale((sinew_vec3_t){s, s, s}, &sm);
  sinew_mat4_euler(cr, SINEW_ROTATE_XYZ, &rm);
  sinew_mat4_translate(ct, &tm);
  sinew_mat4_mul(&sm, &rm, &sr);
  sinew_mat4_mul(&sr, &tm, out);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 500;
  long frames = argc > 2 ? atol(argv[2]) : 100;
  if (n < 1) n = 1;
  if (frames < 10) frames = 10;
  sinew_session_t *s;
  if (sinew_session_create(NULL, &s)) die("session", NULL);
  char script[4096];
  snprintf(script, sizeof script,
           "for ($i = 0; $i < %ld; $i++) {\n"
           "  string $c = `createNode transform -n (\"ctrl\" + $i)`;\n"
           "  string $j = `createNode joint -n (\"jnt\" + $i)`;\n"
           "  parentConstraint $c $j;\n"
           "  string $md = `createNode multiplyDivide`;\n"
           "  connectAttr ($c + \".tx\") ($md + \".i1x\"); setAttr ($md + \".i2x\") 0.5;\n"
           "  string $cd = `createNode condition`;\n"
           "  connectAttr ($md + \".ox\") ($cd + \".ft\"); setAttr ($cd + \".op\") 2;\n"
           "  setAttr ($cd + \".ct\") -type float3 1 0 0; setAttr ($cd + \".cf\") -type float3 0 1 1;\n"
           "  string $bc = `createNode blendColors`;\n"
           "  connectAttr ($cd + \".ocr\") ($bc + \".b\");\n"
           "  setAttr ($bc + \".c1\") -type float3 1.5 1.5 1.5; setAttr ($bc + \".c2\") -type float3 1 1 1;\n"
           "  connectAttr ($bc + \".op\") ($j + \".s\");\n"
           "}\n",
           n);
  double b0 = now();
  if (sinew_session_run(s, script, strlen(script), "bench_rig.mel", NULL)) die("build", sinew_session_errmsg(s));
  double build = now() - b0;
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_plug_t *tx = calloc((size_t)n, sizeof *tx), *ty = calloc((size_t)n, sizeof *ty);
  sinew_plug_t *rz = calloc((size_t)n, sizeof *rz), *wm = calloc((size_t)n, sizeof *wm);
  if (!tx || !ty || !rz || !wm) die("memory", NULL);
  for (long k = 0; k < n; k++) {
    char name[64];
    snprintf(name, sizeof name, "ctrl%ld.tx", k);
    if (sinew_plug_parse(g, name, (sinew_node_t){0, 0}, &tx[k])) die(name, sinew_graph_errmsg(g));
    snprintf(name, sizeof name, "ctrl%ld.ty", k);
    if (sinew_plug_parse(g, name, (sinew_node_t){0, 0}, &ty[k])) die(name, sinew_graph_errmsg(g));
    snprintf(name, sizeof name, "ctrl%ld.rz", k);
    if (sinew_plug_parse(g, name, (sinew_node_t){0, 0}, &rz[k])) die(name, sinew_graph_errmsg(g));
    snprintf(name, sizeof name, "jnt%ld.worldMatrix[0]", k);
    if (sinew_plug_parse(g, name, (sinew_node_t){0, 0}, &wm[k])) die(name, sinew_graph_errmsg(g));
  }
  double sink = 0, maxdiff = 0;
  /* warm up, and check that both agree */
  for (long f = 0; f < 5; f++)
    for (long k = 0; k < n; k++) {
      double a, b, c;
      pose(k, f * 7, &a, &b, &c);
      if (sinew_set_double(g, &tx[k], a) || sinew_set_double(g, &ty[k], b) || sinew_set_double(g, &rz[k], c))
        die("set", sinew_graph_errmsg(g));
    }
  for (long k = 0; k < n; k++) {
    sinew_mat4_t m, want;
    double a, b, c;
    pose(k, 28, &a, &b, &c);
    if (sinew_get_matrix(g, &wm[k], &m)) die("get", sinew_graph_errmsg(g));
    rig_c(a, b, c, &want);
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 4; j++) maxdiff = fmax(maxdiff, fabs(m.m[i][j] - want.m[i][j]));
  }
  double best_graph = 1e30, best_c = 1e30;
  for (int round_ = 0; round_ < 3; round_++) {
    double t0 = now();
    for (long f = 0; f < frames; f++) {
      for (long k = 0; k < n; k++) {
        double a, b, c;
        pose(k, f, &a, &b, &c);
        sinew_set_double(g, &tx[k], a);
        sinew_set_double(g, &ty[k], b);
        sinew_set_double(g, &rz[k], c);
      }
      for (long k = 0; k < n; k++) {
        sinew_mat4_t m;
        sinew_get_matrix(g, &wm[k], &m);
        sink += m.m[3][0];
      }
    }
    double t1 = now();
    for (long f = 0; f < frames; f++)
      for (long k = 0; k < n; k++) {
        double a, b, c;
        sinew_mat4_t m;
        pose(k, f, &a, &b, &c);
        rig_c(a, b, c, &m);
        sink += m.m[3][0];
      }
    double t2 = now();
    best_graph = fmin(best_graph, t1 - t0);
    best_c = fmin(best_c, t2 - t1);
  }
  printf("%ld controls (parentConstraint + multiplyDivide -> condition -> blendColors each), %ld frames (best of 3)\n",
         n, frames);
  printf("built by a MEL script in %.3f s\n", build);
  printf("graph (set 3 channels per control, read every joint's worldMatrix): %8.3f ms per frame\n",
         best_graph / (double)frames * 1e3);
  printf("plain C, the same arithmetic:                                      %8.3f ms per frame\n",
         best_c / (double)frames * 1e3);
  printf("ratio %.1fx; largest difference between the two %.3g (sink %g)\n", best_graph / best_c, maxdiff, sink);
  free(tx);
  free(ty);
  free(rz);
  free(wm);
  sinew_session_destroy(s);
  return maxdiff < 1e-9 ? 0 : 1;
}
