/* bench/bench_expr.c: the cost of one expression evaluation through the VM, next to the same
 * formulas compiled in C, in the same process (machines here are shared and noisy: compare
 * ratios, not seconds). Also the cost through the graph: set the elbow's rotation, pull the
 * bicep's scale (dirty propagation, unit conversion, the node's compute and the VM).
 *
 * The bicep formula is the example rig's bulge (scripts/example_rig.mel, docs/expressions.md):
 *   float $bend = clamp(0, 150, elbow.rotateZ);  float $a = smoothstep(15, 120, $bend);
 *   bicep.scaleY = 1 + bicep.bulge * $a;  bicep.scaleZ = 1 + bicep.bulge * $a;
 *   bicep.scaleX = 1 - 0.3 * bicep.bulge * $a;
 * The heavier one is a loop of 16 steps with sin, cos, clamp, smoothstep and vectors (HEAVY).
 * Each runs on the VM the expression gets (the typed VM for both) and, for comparison, on the
 * generic VM. Goal (issue 17): the VM within 3x of C for both.
 *
 *   bench_expr [evaluations]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lang/lang_internal.h"
#include "sinew/lang.h"
#include "sinew/sinew.h"

/* This thread's CPU time: on a shared machine the time other processes take the CPU is not
 * counted against either side of a ratio. */
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
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

static const char *HEAVY =
    "vector $acc = <<0, 0, 0>>;\n"
    "float $x = in.a;\n"
    "for ($i = 0; $i < 16; $i++) {\n"
    "  float $t = $x + $i * 0.25;\n"
    "  vector $p = <<sin($t), cos($t), clamp(-0.5, 0.5, $t - 2)>>;\n"
    "  $acc += $p * smoothstep(0, 4, $t);\n"
    "}\n"
    "out.x = $acc.x; out.y = $acc.y; out.z = $acc.z;\n";

static double smooth01(double lo, double hi, double x) {
  double t = (x - lo) / (hi - lo);
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  return t * t * (3 - 2 * t);
}

static void heavy_c(const double in[2], double out[3]) {
  double acc[3] = {0, 0, 0};
  for (int i = 0; i < 16; i++) {
    double t = in[0] + i * 0.25;
    double c = t - 2;
    double p[3] = {sin(t), cos(t), c < -0.5 ? -0.5 : c > 0.5 ? 0.5 : c};
    double s = smooth01(0, 4, t);
    for (int k = 0; k < 3; k++) acc[k] += p[k] * s;
  }
  out[0] = acc[0];
  out[1] = acc[1];
  out[2] = acc[2];
}

static void die(const char *what, const char *msg) {
  fprintf(stderr, "bench_expr: %s: %s\n", what, msg);
  exit(1);
}

typedef void (*c_fn)(const double in[2], double out[3]);

/* ns per evaluation of text on the VM (typed: the VM the expression gets; else the generic one)
 * and of fn in C, best of 5 rounds, interleaved; the two must agree. in[0] varies. */
#if defined(__GNUC__)
__attribute__((always_inline)) /* fn inlined, as native code is */
#endif
static inline void measure(const char *text, c_fn fn, bool typed, long n, double *vm_ns, double *c_ns,
                    int *typed_len) {
  char err[256];
  sinew_expr_t *e;
  if (sinew_expr_compile(text, &e, err, sizeof err)) die("compile", err);
  if (!typed) sinew__expr_use_typed(e, false);
  *typed_len = sinew__expr_typed_length(e);
  double outs[3] = {0, 0, 0}, in[2] = {0, 0.35}, sink = 0;
  sinew_expr_io_t io = {.inputs = in, .ninputs = sinew_expr_input_count(e), .outputs = outs,
                        .noutputs = 3};
  double best_vm = 1e30, best_c = 1e30;
  for (int round = 0; round < 5; round++) {
    double t0 = now();
    for (long i = 0; i < n; i++) {
      in[0] = (double)(i % 180);
      if (sinew_expr_eval(e, &io, NULL, NULL, 0)) die("eval", "failed");
      sink += outs[0];
    }
    double t1 = now();
    for (long i = 0; i < n; i++) {
      double o[3], ci[2] = {(double)(i % 180), 0.35};
      fn(ci, o);
      sink += o[0];
      __asm__ volatile("" : : "g"(o) : "memory"); /* keep the loop from being folded */
    }
    double t2 = now();
    if (t1 - t0 < best_vm) best_vm = t1 - t0;
    if (t2 - t1 < best_c) best_c = t2 - t1;
  }
  for (int deg = 0; deg < 180; deg += 7) {
    double check_c[3];
    in[0] = deg;
    sinew_expr_eval(e, &io, NULL, NULL, 0);
    fn(in, check_c);
    for (int k = 0; k < 3; k++)
      if (fabs(outs[k] - check_c[k]) > 1e-12) die("check", "the VM and C disagree");
  }
  sinew_expr_destroy(e);
  if (sink == 42.0) printf(" \n"); /* keeps sink alive */
  *vm_ns = best_vm / (double)n * 1e9;
  *c_ns = best_c / (double)n * 1e9;
}

static void report(const char *name, const char *text, c_fn fn, long n) {
  double vm_ns, c_ns, g_ns, gc_ns;
  int len, glen;
  measure(text, fn, true, n, &vm_ns, &c_ns, &len);
  measure(text, fn, false, n, &g_ns, &gc_ns, &glen);
  printf("%s (%ld evaluations, best of 5 rounds)\n", name, n);
  printf("  VM (sinew_expr_eval, %s): %8.1f ns per evaluation\n",
         len > 0 ? "typed" : "generic", vm_ns);
  printf("  the same formula in C:         %8.1f ns per evaluation\n", c_ns);
  printf("  ratio VM / C:                  %8.1f   goal <= 3: %s\n", vm_ns / c_ns,
         vm_ns / c_ns <= 3 ? "met" : "NOT MET");
  printf("  generic VM:                    %8.1f ns (ratio to C %.1f, to the VM %.1f)\n", g_ns,
         g_ns / gc_ns, g_ns / vm_ns);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 2000000;
  if (n < 1000) n = 1000;
  double sink = 0;
  report("bench_expr: the bicep formula (5 statements, 2 inputs, 3 outputs)", TEXT, in_c, n);
  report("bench_expr: the heavier loop (16 steps: sin, cos, clamp, smoothstep, vectors)", HEAVY,
         heavy_c, n / 20);
  double vm_ns, c_ns;
  int len;
  measure(TEXT, in_c, true, n / 10, &vm_ns, &c_ns, &len);

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

  double graph_ns = best_graph / (double)ng * 1e9;
  printf("through the graph (set elbow.rz + pull bicep.sx): %.1f ns per change (%ld changes, %llu node evaluations)\n",
         graph_ns, ng, (unsigned long long)evals);
  printf("  ratio graph / VM:              %8.1f\n", graph_ns / vm_ns);
  if (sink == 42.0) printf(" \n"); /* keeps sink alive */
  return 0;
}
