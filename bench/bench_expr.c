/* bench/bench_expr.c: the cost of one expression evaluation through the VM, next to the same
 * formulas compiled in C, in the same process (machines here are shared and noisy: compare
 * ratios, not seconds). Also the cost through the graph: set the elbow's rotation, pull the
 * bicep's scale (dirty propagation, unit conversion, the node's compute and the VM).
 *
 * The formula is the example rig's bicep bulge (scripts/example_rig.mel, docs/expressions.md):
 *   float $bend = clamp(0, 150, elbow.rotateZ);  float $a = smoothstep(15, 120, $bend);
 *   bicep.scaleY = 1 + bicep.bulge * $a;  bicep.scaleZ = 1 + bicep.bulge * $a;
 *   bicep.scaleX = 1 - 0.3 * bicep.bulge * $a;
 *
 *   bench_expr [evaluations]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sinew/lang.h"
#include "sinew/sinew.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *TEXT =
    "float $bend = clamp(0, 150, elbow.rotateZ);\n"
    "float $a = smoothstep(15, 120, $bend);\n"
    "bicep.scaleY = 1 + bicep.bulge * $a;\n"
    "bicep.scaleZ = 1 + bicep.bulge * $a;\n"
    "bicep.scaleX = 1 - 0.3 * bicep.bulge * $a;\n";

/* in: elbow.rotateZ (degrees), bicep.bulge; out: scaleY, scaleZ, scaleX (the VM's order) */
static void in_c(const double in[2], double out[3]) {
  double bend = in[0] < 0 ? 0 : in[0] > 150 ? 150 : in[0];
  double t = (bend - 15) / (120 - 15);
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  double a = t * t * (3 - 2 * t);
  out[0] = 1 + in[1] * a;
  out[1] = 1 + in[1] * a;
  out[2] = 1 - 0.3 * in[1] * a;
}

static void die(const char *what, const char *msg) {
  fprintf(stderr, "bench_expr: %s: %s\n", what, msg);
  exit(1);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 2000000;
  if (n < 1000) n = 1000;
  char err[256];
  sinew_expr_t *e;
  if (sinew_expr_compile(TEXT, &e, err, sizeof err)) die("compile", err);
  double outs[3] = {0, 0, 0}, in[2] = {0, 0.35}, sink = 0;
  sinew_expr_io_t io = {.inputs = in, .ninputs = 2, .outputs = outs, .noutputs = 3};
  if (sinew_expr_input_count(e) != 2 || sinew_expr_output_count(e) != 3) die("compile", "references");

  /* best of three rounds each, interleaved, so both see the same machine */
  double best_vm = 1e30, best_c = 1e30;
  for (int round = 0; round < 3; round++) {
    double t0 = now();
    for (long i = 0; i < n; i++) {
      in[0] = (double)(i % 180);
      if (sinew_expr_eval(e, &io, NULL, NULL, 0)) die("eval", "failed");
      sink += outs[0];
    }
    double t1 = now();
    for (long i = 0; i < n; i++) {
      double o[3], ci[2] = {(double)(i % 180), 0.35};
      in_c(ci, o);
      sink += o[0];
      __asm__ volatile("" : : "g"(o) : "memory"); /* keep the loop from being folded */
    }
    double t2 = now();
    if (t1 - t0 < best_vm) best_vm = t1 - t0;
    if (t2 - t1 < best_c) best_c = t2 - t1;
  }
  /* the same answers */
  for (int deg = 0; deg < 180; deg += 7) {
    double check_c[3];
    in[0] = deg;
    sinew_expr_eval(e, &io, NULL, NULL, 0);
    in_c(in, check_c);
    for (int k = 0; k < 3; k++)
      if (fabs(outs[k] - check_c[k]) > 1e-12) die("check", "the VM and C disagree");
  }
  sinew_expr_destroy(e);

  /* through the graph: set elbow.rz, pull bicep.sx (which evaluates the node once) */
  sinew_graph_t *g;
  sinew_node_t elbow, bicep, node;
  if (sinew_scene_create(NULL, &g) || sinew_lang_register_types(g)) die("scene", "failed");
  sinew_node_create(g, "joint", "elbow", &elbow);
  sinew_node_create(g, "joint", "bicep", &bicep);
  sinew_attr_desc_t bulge = {.name = "bulge", .type = SINEW_ATTR_DOUBLE, .default_value = 0.35};
  if (sinew_node_add_attr(g, bicep, &bulge, 1)) die("addAttr", sinew_graph_errmsg(g));
  sinew_expression_desc_t d = {.text = TEXT, .not_always_evaluate = true};
  if (sinew_expression_create(g, &d, &node)) die("expression", sinew_graph_errmsg(g));
  sinew_plug_t rz, sx;
  sinew_plug_parse(g, "elbow.rz", (sinew_node_t){0, 0}, &rz);
  sinew_plug_parse(g, "bicep.sx", (sinew_node_t){0, 0}, &sx);
  long ng = n / 10;
  double best_graph = 1e30;
  for (int round = 0; round < 3; round++) {
    double t0 = now();
    for (long i = 0; i < ng; i++) {
      double v = 0;
      sinew_set_double(g, &rz, (double)(i % 180) * 3.14159265358979 / 180);
      sinew_get_double(g, &sx, &v);
      sink += v;
    }
    double t1 = now();
    if (t1 - t0 < best_graph) best_graph = t1 - t0;
  }
  uint64_t evals = 0;
  sinew_expression_stats(g, node, &evals, NULL);
  sinew_graph_destroy(g);

  double vm_ns = best_vm / (double)n * 1e9, c_ns = best_c / (double)n * 1e9;
  double graph_ns = best_graph / (double)ng * 1e9;
  printf("bench_expr: the bicep formula (5 statements, 2 inputs, 3 outputs), best of 3 rounds\n");
  printf("  VM (sinew_expr_eval):          %8.1f ns per evaluation (%ld evaluations)\n", vm_ns, n);
  printf("  the same formula in C:         %8.1f ns per evaluation\n", c_ns);
  printf("  ratio VM / C:                  %8.1f\n", vm_ns / c_ns);
  printf("  through the graph (set + pull): %7.1f ns per change (%ld changes, %llu node evaluations)\n",
         graph_ns, ng, (unsigned long long)evals);
  printf("  ratio graph / VM:              %8.1f\n", graph_ns / vm_ns);
  if (sink == 42.0) printf(" \n"); /* keeps sink alive */
  return 0;
}
