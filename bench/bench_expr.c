/* bench/bench_expr.c: what an expression costs next to the same formula in C, in the same
 * process (machines here are shared and noisy: compare ratios, not seconds).
 *
 * First a frame of the example rig's bicep bulge (scripts/example_rig.mel, docs/expressions.md)
 * through the graph: the elbow's rotation is set and the bicep's three scales read, so the
 * expression node reads its inputs from the graph, runs and writes its outputs; the reference
 * is the same formula as a C node type wired and read the same way. Goal (issue 17): <= 3x.
 *   float $bend = clamp(0, 150, elbow.rotateZ);  float $a = smoothstep(15, 120, $bend);
 *   bicep.scaleY = 1 + bicep.bulge * $a;  bicep.scaleZ = 1 + bicep.bulge * $a;
 *   bicep.scaleX = 1 - 0.3 * bicep.bulge * $a;
 * Then the VM alone (sinew_expr_eval) against the formula inlined in C, for the bicep formula
 * (goal <= 3x: the first figure, 29x, was this one) and a heavier one, a loop of 16
 * steps with sin, cos, clamp, smoothstep and vectors (HEAVY; goal <= 3x), on the VM the
 * expression gets (the typed VM for both) and on the generic VM.
 *
 *   bench_expr [evaluations [frames|vm]]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lang/lang_internal.h"
#include "sinew/lang.h"
#include "sinew/sinew.h"
#include "bench/bench_util.h"

/* This thread's CPU time: on a shared machine the time other processes take the CPU is not
 * counted against either side of a ratio. */

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
      /* the inputs are unknown to the compiler, as they are to the VM: nothing of the formula
       * is computed at compile time (0.3 * bulge, 1 + bulge * a) */
      __asm__ volatile("" : "+x"(ci[0]), "+x"(ci[1]));
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

/* the goal, <= 3x C */
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

/* ---- a frame's work for the expression: the node's compute through the graph ------------------
 * What a frame of the example rig does for the bicep formula: the elbow's rotation changes, the
 * bicep's scale is pulled, the expression node reads its inputs from the graph, runs, writes its
 * three outputs, which flow into bicep.scale. The reference is the same formula as a node type
 * written in C (as a rigger would write a plug-in node), wired the same way and reading and
 * writing through the same public API: the difference between the two frames is the price of
 * the expression over native code. */

static struct {
  uint32_t bend, bulge, out[3];
} NA;

static int native_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  double rz, bulge;
  int rc = sinew_compute_get_double(ctx, NA.bend, &rz);
  if (!rc) rc = sinew_compute_get_double(ctx, NA.bulge, &bulge);
  if (rc) return rc;
  const double in[2] = {rz * (180.0 / 3.14159265358979323846), bulge};
  double out[3];
  in_c(in, out);
  sinew_node_t n = sinew_compute_node(ctx);
  for (int k = 0; k < 3 && !rc; k++) {
    sinew_plug_t o = sinew_plug_make(n, NA.out[k], 0, NULL);
    rc = sinew_compute_set_double(ctx, &o, out[k]);
  }
  (void)plug;
  return rc;
}

static void register_native(sinew_graph_t *g) {
  static const sinew_attr_desc_t attrs[] = {
      {.name = "bend", .type = SINEW_ATTR_ANGLE, .flags = SINEW_ATTR_INPUT},
      {.name = "bulge", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_INPUT},
      {.name = "outY", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT},
      {.name = "outZ", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT},
      {.name = "outX", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT}};
  static const sinew_affects_t affects[] = {{"bend", "outY"},  {"bend", "outZ"},  {"bend", "outX"},
                                            {"bulge", "outY"}, {"bulge", "outZ"}, {"bulge", "outX"}};
  sinew_node_type_desc_t d = {.name = "bicepBulgeC", .attrs = attrs, .attr_count = 5,
                              .affects = affects, .affects_count = 6, .compute = native_compute};
  const sinew_node_type_t *t;
  if (sinew_register_node_type(g, &d, &t)) die("register", sinew_graph_errmsg(g));
  NA.bend = sinew_node_type_attr(t, "bend");
  NA.bulge = sinew_node_type_attr(t, "bulge");
  NA.out[0] = sinew_node_type_attr(t, "outY");
  NA.out[1] = sinew_node_type_attr(t, "outZ");
  NA.out[2] = sinew_node_type_attr(t, "outX");
}

typedef struct frame_rig {
  sinew_graph_t *g;
  sinew_node_t node;
  sinew_plug_t rz, scale[3]; /* elbow.rz; bicep.sy, sz, sx */
} frame_rig;

static void plug_of(sinew_graph_t *g, const char *name, sinew_plug_t *p) {
  if (sinew_plug_parse(g, name, (sinew_node_t){0, 0}, p)) die(name, sinew_graph_errmsg(g));
}

/* elbow and bicep joints (bicep.bulge 0.35) and the formula between them: the expression node
 * (native false) or the C node. */
static void frame_rig_make(frame_rig *r, bool native) {
  sinew_graph_t *g;
  if (sinew_scene_create(NULL, &g) || sinew_lang_register_types(g)) die("scene", "failed");
  r->g = g;
  sinew_node_t elbow, bicep;
  sinew_node_create(g, "joint", "elbow", &elbow);
  sinew_node_create(g, "joint", "bicep", &bicep);
  sinew_attr_desc_t bulge = {.name = "bulge", .type = SINEW_ATTR_DOUBLE, .default_value = 0.35};
  if (sinew_node_add_attr(g, bicep, &bulge, 1)) die("addAttr", sinew_graph_errmsg(g));
  if (native) {
    register_native(g);
    if (sinew_node_create(g, "bicepBulgeC", "bulgeC", &r->node)) die("node", sinew_graph_errmsg(g));
    static const char *wires[][2] = {{"elbow.rz", "bulgeC.bend"}, {"bicep.bulge", "bulgeC.bulge"},
                                     {"bulgeC.outY", "bicep.sy"}, {"bulgeC.outZ", "bicep.sz"},
                                     {"bulgeC.outX", "bicep.sx"}};
    for (int i = 0; i < 5; i++) {
      sinew_plug_t a, b;
      plug_of(g, wires[i][0], &a);
      plug_of(g, wires[i][1], &b);
      if (sinew_connect(g, &a, &b, 0, NULL)) die("connect", sinew_graph_errmsg(g));
    }
  } else {
    /* as the example rig makes it: alwaysEvaluate on, time1.outTime -> time */
    sinew_expression_desc_t d = {.text = TEXT};
    if (sinew_expression_create(g, &d, &r->node)) die("expression", sinew_graph_errmsg(g));
  }
  plug_of(g, "elbow.rz", &r->rz);
  plug_of(g, "bicep.sy", &r->scale[0]);
  plug_of(g, "bicep.sz", &r->scale[1]);
  plug_of(g, "bicep.sx", &r->scale[2]);
}

/* frames changes of elbow.rz, each followed by reading bicep.scale; ns per frame. */
static double frame_run(frame_rig *r, long frames, double *sink) {
  double t0 = now();
  for (long i = 0; i < frames; i++) {
    if (sinew_set_double(r->g, &r->rz, (double)(i % 180) * (3.14159265358979323846 / 180)))
      die("set", sinew_graph_errmsg(r->g));
    for (int k = 0; k < 3; k++) {
      double v = 0;
      sinew_get_double(r->g, &r->scale[k], &v);
      *sink += v;
    }
  }
  return (now() - t0) / (double)frames * 1e9;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void report_frames(long frames) {
  frame_rig ex, nat;
  frame_rig_make(&ex, false);
  frame_rig_make(&nat, true);
  double sink = 0;
  frame_run(&ex, frames / 10, &sink); /* warm up */
  frame_run(&nat, frames / 10, &sink);
  enum { ROUNDS = 9 };
  double te[ROUNDS], tn[ROUNDS], ratio[ROUNDS];
  for (int r = 0; r < ROUNDS; r++) { /* interleaved: the machine's load touches both */
    te[r] = frame_run(&ex, frames, &sink);
    tn[r] = frame_run(&nat, frames, &sink);
    ratio[r] = te[r] / tn[r];
  }
  /* the two agree, frame by frame */
  for (int deg = 0; deg < 180; deg += 7) {
    double rad = deg * (3.14159265358979323846 / 180);
    sinew_set_double(ex.g, &ex.rz, rad);
    sinew_set_double(nat.g, &nat.rz, rad);
    for (int k = 0; k < 3; k++) {
      double a = 0, b = 0;
      sinew_get_double(ex.g, &ex.scale[k], &a);
      sinew_get_double(nat.g, &nat.scale[k], &b);
      if (fabs(a - b) > 1e-12) die("check", "the expression node and the C node disagree");
    }
  }
  uint64_t evals = 0;
  sinew_expression_stats(ex.g, ex.node, &evals, NULL);
  sinew_graph_destroy(ex.g);
  sinew_graph_destroy(nat.g);
  double me = median(te, ROUNDS), mn = median(tn, ROUNDS), mr = median(ratio, ROUNDS);
  printf("bench_expr: a frame of the bicep formula through the graph (set elbow.rz, read bicep.sy, sz, sx;\n"
         "  %ld frames per round, %d rounds interleaved, medians; %llu expression evaluations)\n",
         frames, ROUNDS, (unsigned long long)evals);
  printf("  expression node:               %8.1f ns per frame\n", me);
  printf("  the formula as a C node:       %8.1f ns per frame\n", mn);
  printf("  ratio expression / C node:     %8.2f   goal <= 3: %s\n", mr, mr <= 3 ? "met" : "NOT MET");
  printf("  the expression's own cost:     %8.1f ns per frame over the C node\n", me - mn);
  if (sink == 42.0) printf(" \n"); /* keeps sink alive */
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 2000000;
  if (n < 1000) n = 1000;
  const char *only = argc > 2 ? argv[2] : ""; /* "frames" or "vm": one part (for a profiler) */
  if (strcmp(only, "vm")) report_frames(n / 40);
  if (!strcmp(only, "frames")) return 0;
  report("bench_expr: the bicep formula alone (5 statements, 2 inputs, 3 outputs)", TEXT, in_c, n);
  report("bench_expr: the heavier loop (16 steps: sin, cos, clamp, smoothstep, vectors)", HEAVY,
         heavy_c, n / 20);
  return 0;
}
