/* tests/test_vm.c: the expression VM (lang/typed.c, lang/vm.c, docs/lang.md): the typed VM
 * gives what the generic VM gives, bit for bit, faults and step limits included (a table of
 * expressions over MEL's typing rules, and random expressions); which texts it takes; constant
 * folding; and the example rig evaluating its frames without allocating. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/lang_internal.h"
#include "sinew/cmds.h"
#include "sinew/sinew.h"
#include "tests/support.h"

#ifndef SINEW_SOURCE_DIR
#define SINEW_SOURCE_DIR "."
#endif

/* ---- the example rig: no allocation per frame ------------------------------------------------ */

static void test_rig_frames_do_not_allocate(void **state) {
  (void)state;
  test_alloc_install();
  sinew_session_t *s = NULL;
  assert_int_equal(sinew_session_create(NULL, &s), SINEW_OK);
  if (sinew_session_run_file(s, SINEW_SOURCE_DIR "/scripts/example_rig.mel", NULL))
    fail_msg("%s", sinew_session_errmsg(s));
  sinew_graph_t *g = sinew_session_graph(s);
  static const char *pulled[] = {"armGeoShape.worldMesh[0]", "torsoGeoShape.worldMesh[0]",
                                 "bicep.scaleX", "breath.scaleZ", "pecMuscle.scaleY",
                                 "pecMuscle.rotateZ", "elbow.rotateZ"};
  sinew_plug_t plugs[sizeof pulled / sizeof pulled[0]];
  for (size_t i = 0; i < sizeof pulled / sizeof pulled[0]; i++)
    if (sinew_plug_parse(g, pulled[i], (sinew_node_t){0}, &plugs[i])) fail_msg("%s", pulled[i]);
  long per_frame[40];
  for (int f = 0; f < 40; f++) {
    long before = test_alloc_count();
    assert_int_equal(sinew_time_set_frame(g, 1 + f), SINEW_OK);
    for (size_t i = 0; i < sizeof pulled / sizeof pulled[0]; i++) {
      sinew_data_t *d = NULL;
      double v;
      if (i < 2) {
        assert_int_equal(sinew_get_data(g, &plugs[i], &d), SINEW_OK);
        sinew_data_unref(d);
      } else {
        assert_int_equal(sinew_get_double(g, &plugs[i], &v), SINEW_OK);
      }
    }
    per_frame[f] = test_alloc_count() - before;
  }
  /* the first frames may size what later frames reuse; then nothing */
  for (int f = 4; f < 40; f++)
    if (per_frame[f]) fail_msg("frame %d allocated %ld times", 1 + f, per_frame[f]);
  sinew_session_destroy(s);
  test_alloc_uninstall();
}

/* ---- the typed VM against the generic VM --------------------------------------------------------- */

typedef struct outcome {
  int rc;
  unsigned faults;
  char fault[256];
  double out[8];
} outcome;

static sinew_expr_t *compile_or_null(const char *text) {
  char err[256];
  sinew_expr_t *e = NULL;
  if (sinew_expr_compile(text, &e, err, sizeof err)) return NULL;
  return e;
}

/* Round r of an evaluation: inputs, time and frame change from round to round; mats (may be
 * NULL) gives matrix inputs. */
static void eval_round(sinew_expr_t *e, const double *base, size_t nin,
                       const sinew_mat4_t *const *mats, int r, uint64_t max_steps, outcome *o) {
  double in[8];
  for (size_t k = 0; k < nin && k < 8; k++) in[k] = base[k] * (r + 1) - 0.75 * r;
  memset(o, 0, sizeof *o);
  for (int k = 0; k < 8; k++) o->out[k] = -7.25; /* what an unassigned output keeps */
  sinew_expr_io_t io = {.inputs = in, .ninputs = nin, .input_matrices = mats, .outputs = o->out,
                        .noutputs = sinew_expr_output_count(e) < 8 ? sinew_expr_output_count(e) : 8,
                        .time_seconds = 0.5 * r, .frame = 12.0 * r, .max_steps = max_steps};
  o->rc = sinew_expr_eval(e, &io, &o->faults, o->fault, sizeof o->fault);
}

static bool same_on_both_mats(const char *text, const double *inputs, size_t nin,
                              const sinew_mat4_t *const *mats, uint64_t max_steps);

/* Evaluates text on both VMs for a few rounds (its variables persist) and requires the same
 * outcome bit for bit. Returns whether the typed VM took the text. */
static bool same_on_both(const char *text, const double *inputs, size_t nin, uint64_t max_steps) {
  return same_on_both_mats(text, inputs, nin, NULL, max_steps);
}

static bool same_on_both_mats(const char *text, const double *inputs, size_t nin,
                              const sinew_mat4_t *const *mats, uint64_t max_steps) {
  sinew_expr_t *typed = compile_or_null(text), *generic = compile_or_null(text);
  if (!typed || !generic) fail_msg("does not compile: %s", text);
  sinew__expr_use_typed(generic, false);
  assert_int_equal(sinew__expr_typed_length(generic), -1);
  for (int r = 0; r < 4; r++) {
    outcome a, b;
    eval_round(typed, inputs, nin, mats, r, max_steps, &a);
    eval_round(generic, inputs, nin, mats, r, max_steps, &b);
    if (a.rc != b.rc || a.faults != b.faults || strcmp(a.fault, b.fault) != 0 ||
        memcmp(a.out, b.out, sizeof a.out) != 0) {
      fail_msg("round %d of\n%s\n  typed:   rc %d, %u faults \"%s\", out %.17g %.17g %.17g\n"
               "  generic: rc %d, %u faults \"%s\", out %.17g %.17g %.17g",
               r, text, a.rc, a.faults, a.fault, a.out[0], a.out[1], a.out[2], b.rc, b.faults,
               b.fault, b.out[0], b.out[1], b.out[2]);
    }
  }
  bool took = sinew__expr_typed_length(typed) > 0;
  sinew_expr_destroy(typed);
  sinew_expr_destroy(generic);
  return took;
}

/* Texts over MEL's typing rules the typed VM must take, and must evaluate as the generic VM. */
static const char *const TYPED_TEXTS[] = {
    /* int op int stays int, a float makes float: integer division and modulus, wrap-around */
    ".O[0] = 7 / 2; .O[1] = -7 % 3; .O[2] = 7 / 2.0;",
    "int $i = .I[0]; .O[0] = $i / 2; .O[1] = $i % 3; .O[2] = ($i + 1) / -1;",
    "int $big = 9223372036854775807; .O[0] = ($big + 1) / 1000000; .O[1] = $big * 3 % 1000;",
    "int $z = 0; .O[0] = 5 / $z; .O[1] = 5 % $z; .O[2] = .I[0] / $z;",
    ".O[0] = .I[0] / 0; .O[1] = fmod(.I[0], 0); .O[2] = .I[1] % 0;",
    /* assignment converts to the variable's type */
    "int $t = 3.7; float $f = 7; vector $v = 2; .O[0] = $t; .O[1] = $f / 2; .O[2] = $v.z;",
    "int $m = <<3, 4, 0>>; float $g = <<1, 2, 2>>; .O[0] = $m; .O[1] = $g;",
    "int $n = .I[0] * 1e30; .O[0] = $n / 1e18; int $q = -.I[0] * 1e30; .O[1] = $q / 1e18;",
    /* vectors: with numbers component by component, dot and cross products, magnitude */
    "vector $a = <<.I[0], 2, 3>>; vector $b = <<1, .I[1], -1>>; .O[0] = $a * $b; "
    "vector $c = $a ^ $b; .O[1] = $c.x + $c.y * 10 + $c.z * 100; .O[2] = ($a + 1) * <<1, 0, 0>>;",
    "vector $a = <<.I[0], -2, 3>>; vector $d = $a / 0; .O[0] = $d.x; vector $e = $a / .I[1]; .O[1] = $e.y;",
    "vector $a = <<.I[0], 2, 3>>; .O[0] = $a; .O[1] = mag($a); .O[2] = dot($a, cross($a, <<0, 1, 0>>));",
    "vector $a = <<1, 2, 3>>; $a.y = .I[0]; $a.z += 5; .O[0] = $a.y; .O[1] = $a.z; .O[2] = -$a;",
    "vector $a = <<.I[0], 0, 0>>; .O[0] = $a == <<1, 0, 0>>; .O[1] = $a < 2; .O[2] = $a != .I[0];",
    /* comparisons, logic, truth of each type */
    ".O[0] = .I[0] < .I[1]; .O[1] = 3 <= 3.0; .O[2] = .I[0] == .I[0];",
    ".O[0] = (.I[0] > 0 && .I[1] > 0) || .I[0] == 2; .O[1] = !.I[0]; .O[2] = !<<0, 0, 0>>;",
    "float $inf = .I[0] * 1e308 * 10; float $nan = $inf - $inf; .O[0] = ($nan < 1) + 2 * ($nan <= 1) + "
    "4 * ($nan > 1) + 8 * ($nan >= 1) + 16 * ($nan == $nan) + 32 * ($nan != $nan) + 64 * !$nan;",
    "vector $n = <<.I[0], 1, 1>> * 1e308 * 10; $n = $n - $n; .O[0] = ($n < 1) + 2 * ($n >= 1) + "
    "4 * ($n == $n) + 8 * !$n + 16 * ($n <= 1) + 32 * ($n > 1) + 64 * ($n != $n);",
    /* a NaN in compare-and-jump and in a loop's test */
    "float $nan = .I[0] * 1e308 * 10; $nan -= $nan; int $k = 0; while ($k < 3 && !($nan >= 1)) $k++; "
    "if ($nan == $nan) .O[0] = 1; else .O[0] = 2; if ($nan < 1) .O[1] = $k; else .O[1] = -$k;",
    ".O[0] = .I[0] > 1 ? .I[0] : -.I[0]; .O[1] = .I[1] ? 1.5 : 2.5;",
    /* statements, loops, persistent variables */
    "float $acc; $acc += .I[0]; .O[0] = $acc; int $count; $count++; .O[1] = $count;",
    "float $s = 0; for ($i = 0; $i < 10; $i++) { if ($i == 3) continue; if ($i > 7) break; $s += $i * .I[0]; } .O[0] = $s; .O[1] = $i;",
    "int $k = 0; while ($k < 5) $k += 2; do { $k--; } while ($k > 3); .O[0] = $k;",
    "int $k; float $g; .O[0] = $k++; .O[1] = ++$k + $k-- * 10; .O[2] = $g++ + --$g + $k;",
    "float $x; .O[0] = ($x = 5.0) + 1; vector $u; .O[1] = ($u = <<1, 2, 3>>) * <<1, 1, 1>>; .O[2] = $x;",
    "vector $w; $w.y += 1; $w.x += $w.y; .O[0] = $w.x; .O[1] = $w.y; .O[2] = (.O[0] = 4) + .O[0];",
    "float $x = .I[0]; if ($x > 1) { .O[0] = 1; } else if ($x > 0) { .O[0] = 2; } else { .O[0] = 3; }",
    "$y = .I[0] * 2; $y = $y + 1; .O[0] = $y; $w = 5; $w = $w / 2; .O[1] = $w;",
    /* built-in functions, their faults, output faults */
    ".O[0] = clamp(0, 150, .I[0] * 100); .O[1] = smoothstep(15, 120, .I[0] * 90); .O[2] = sind(.I[1] * 30);",
    ".O[0] = sqrt(-.I[0] - 1); .O[1] = log(0); .O[2] = asin(.I[0] + 5);",
    ".O[0] = abs(-.I[0]); .O[1] = min(.I[0], .I[1]); .O[2] = max(.I[0], 2) + pow(.I[1], 2);",
    ".O[0] = 1 / .I[2]; .O[1] = .I[0] * 1e308 * 10; .O[2] = atan2d(.I[0], .I[1]) + hypot(3, 4);",
    /* time, frame, reading an output back, casts */
    ".O[0] = time * 2 + frame; .O[1] = .O[0] + 1; .O[2] = (int)(.I[0] * 10) + (float)3;",
    ".O[0] = (vector).I[0] * <<1, 2, 3>>; .O[1] = (int)<<3, 4, 0>>; .O[2] = int(.I[1] * 7.9);",
    /* a product and a sum fused into one instruction, in every order, rounded as two */
    ".O[0] = .I[0] * .I[1] + .I[2]; .O[1] = .I[2] - .I[0] * 0.1; .O[2] = .I[0] * 0.3 - .I[1] / 3;",
    "float $x = .I[0] * 0.1; float $p; .O[0] = ($p = $x * 3) + $p; .O[1] = 1 + .I[1] * $x + .I[2] * $x;",
    "int $i = 3; .O[0] = $i + .I[0] * 0.7; .O[1] = .I[0] * .I[1] - $i; .O[2] = (.I[0] * 1e308 * 10) - 1;",
    /* constants folded, faults of constant operators left to run time */
    ".O[0] = 2 * 3 + sin(0.5) * 4 - 1 / 4; .O[1] = 1 / 0 + .I[0]; .O[2] = 7 % 0;",
    "switch ((int).I[0]) { case 1: .O[0] = 10; break; case 2: .O[0] = 20; default: .O[1] = 5; }",
    /* superinstructions (pairs): the bicep formula's shapes; a jump landing on a pair's second
     * instruction (the output after the product), which then runs alone */
    "float $bend = clamp(0, 150, .I[0] * 60); float $a = smoothstep(15, 120, $bend); .O[0] = 1 + .I[1] * $a; "
    ".O[1] = 1 + .I[1] * $a; .O[2] = 1 - 0.3 * .I[1] * $a;",
    "float $y = 0.5; if (.I[0] > 0) $y = .I[1] * 2; .O[0] = $y; .O[1] = linstep(-1, 1, .I[0]); .O[2] = .O[1];",
    ".O[0] = clamp(-1, 1, .I[0]) * 1e308 * 10; .O[1] = smoothstep(0, 0, .I[1]) - .I[2] * .I[2] * 3;",
    /* a pair and the output after it (TYPED_PAIR_OUT), each shape; an output fault there; the
     * if's jump landing on the output, which then runs alone */
    "float $t = 0.5; if (.I[0] > 0) $t = smoothstep(0, 2, clamp(0, 1, .I[0])); .O[0] = $t; "
    ".O[1] = linstep(-1, 1, clamp(-2, 2, .I[1])); .O[2] = .I[0] * .I[1] * 1e308;",
    ".O[0] = 1 + 0.3 * .I[1] * .I[0]; .O[1] = 0.3 * .I[1] * .I[2] + 1; .O[2] = 0.7 * .I[0] * .I[2] - 1;",
    /* a value eased then a result of it to two outputs (TYPED_EASE_OUT2), linked through a or
     * b; output faults there; the if's jump landing on the third instruction, which then runs
     * alone with the outputs after it */
    "float $e = linstep(0, 2, clamp(-1, 3, .I[0])); .O[0] = $e * .I[1] - 0.5; .O[1] = $e * .I[1] - 0.5; .O[2] = $e;",
    "float $s = smoothstep(-1, 1, clamp(-2, 2, .I[1])); .O[0] = .I[0] + $s; .O[1] = .I[0] + $s; "
    "float $u = smoothstep(0, 1, clamp(0, 1, .I[0])); .O[2] = 1e308 * 10 * $u; .O[1] = 1e308 * 10 * $u;",
    "float $s = 0.25; if (.I[0] > 1) $s = smoothstep(0, 4, clamp(0, 3, .I[0])); .O[0] = 1 - .I[1] * $s; "
    ".O[1] = 1 - .I[1] * $s; .O[2] = $s;",
};

static void test_typed_matches_generic(void **state) {
  (void)state;
  static const double inputs[][3] = {{1.5, -2.0, 0.0}, {0.0, 3.0, 2.0}, {2.0, 0.5, -1.0}, {-3.25, 1e-3, 4}};
  for (size_t i = 0; i < sizeof TYPED_TEXTS / sizeof TYPED_TEXTS[0]; i++)
    for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; k++)
      if (!same_on_both(TYPED_TEXTS[i], inputs[k], 3, 0)) fail_msg("the typed VM did not take: %s", TYPED_TEXTS[i]);
}

/* An evaluation giving fewer inputs or outputs than the code uses runs the checked entry of the
 * typed VM (a missing input reads 0, a missing output is not written), the others its direct
 * entry: the same expression alternates between the two and must match the generic VM's each
 * time, its variables carried across. */
static void test_typed_short_io(void **state) {
  (void)state;
  static const char *const texts[] = {
      "float $s; $s += .I[0]; .O[0] = $s * 2; .O[1] = .I[1] + 1; .O[2] = clamp(0, 1, .I[2]);",
      "float $bend = clamp(0, 150, .I[0] * 60); float $a = smoothstep(15, 120, $bend); .O[0] = 1 + .I[1] * $a; "
      ".O[1] = 1 + .I[1] * $a; .O[2] = 1 - 0.3 * .I[1] * $a;",
  };
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    sinew_expr_t *e[2] = {compile_or_null(texts[i]), compile_or_null(texts[i])};
    assert_non_null(e[0]);
    assert_non_null(e[1]);
    sinew__expr_use_typed(e[1], false);
    assert_true(sinew__expr_typed_length(e[0]) > 0);
    for (int r = 0; r < 12; r++) {
      size_t nin = (size_t)(r % 4), nout = (size_t)((r / 2) % 4); /* 0 to 3 of each */
      double got[2][3];
      for (int v = 0; v < 2; v++) {
        double in[3] = {0.5 + r, -1.25 * r, 0.3};
        for (int k = 0; k < 3; k++) got[v][k] = -7.25;
        sinew_expr_io_t io = {.inputs = in, .ninputs = nin, .outputs = got[v], .noutputs = nout};
        assert_int_equal(sinew_expr_eval(e[v], &io, NULL, NULL, 0), SINEW_OK);
      }
      if (memcmp(got[0], got[1], sizeof got[0]) != 0)
        fail_msg("%s: round %d (%zu inputs, %zu outputs): typed %.17g %.17g %.17g, generic %.17g %.17g %.17g",
                 texts[i], r, nin, nout, got[0][0], got[0][1], got[0][2], got[1][0], got[1][1], got[1][2]);
    }
    sinew_expr_destroy(e[0]);
    sinew_expr_destroy(e[1]);
  }
}

/* Texts the typed VM leaves to the generic one (strings, arrays, matrices, a type that depends
 * on the path taken); they must still give the same results. */
static void test_untyped_texts(void **state) {
  (void)state;
  static const char *const texts[] = {
      "string $s = \"a\" + .I[0]; .O[0] = size($s);",
      "float $a[] = {1, 2, .I[0]}; .O[0] = $a[2] + size($a);",
      "matrix $m[2][2] = <<1, 2; 3, .I[0]>>; .O[0] = $m[1][1] + $m[5][0] + $m[0][-1];",
      "if (.I[0] > 1) $p = 1; else $p = 2.5; .O[0] = $p / 2;",
      ".O[0] = .I[0] > 1 ? 1 : 2.5;",
      ".O[0] = rand(1) * 0 + .I[0];",
  };
  static const double in[3] = {1.5, 2, 3};
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
    if (same_on_both(texts[i], in, 3, 0)) fail_msg("the typed VM took: %s", texts[i]);
}

/* The rig's muscle (scripts/example_rig.mel, pecStretch): two 4x4 matrix inputs read by
 * element. Typed when the evaluation gives matrices there; a number at one of them runs on the
 * generic VM, which reports the error, and back. */
static void test_typed_matrices(void **state) {
  (void)state;
  static const char *text =
      "matrix $mo[4][4] = .I[0];\n"
      "matrix $mi[4][4] = .I[1];\n"
      "vector $po = <<$mo[3][0], $mo[3][1], $mo[3][2]>>;\n"
      "vector $pi = <<$mi[3][0], $mi[3][1], $mi[3][2]>>;\n"
      "vector $d = $pi - $po;\n"
      "float $stretch = mag($d) / .I[2];\n"
      ".O[0] = 0.5 * ($po.x + $pi.x);\n"
      ".O[1] = atan2d($d.y, hypot($d.x, $d.z)) + $mo[0][1] - $mi[2][2];\n"
      ".O[2] = 1 / sqrt($stretch);\n";
  sinew_mat4_t o = {{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {10, 130, 5, 1}}};
  sinew_mat4_t i = {{{0, -1, 0, 0}, {1, 0, 0, 0}, {0, 0, 1, 0}, {30, 120, -4, 1}}};
  const sinew_mat4_t *mats[3] = {&o, &i, NULL};
  double in[3] = {0, 0, 25};
  assert_true(same_on_both_mats(text, in, 3, mats, 0));
  /* one evaluation with a number where a matrix goes: both VMs fail the same way, then the
   * typed VM takes over again with the variables as the generic VM left them */
  sinew_expr_t *e = compile_or_null(text), *g = compile_or_null(text);
  assert_non_null(e);
  sinew__expr_use_typed(g, false);
  const sinew_mat4_t *none[3] = {NULL, &i, NULL};
  for (int r = 0; r < 4; r++) {
    outcome a, b;
    eval_round(e, in, 3, r == 1 ? none : mats, r, 0, &a);
    eval_round(g, in, 3, r == 1 ? none : mats, r, 0, &b);
    assert_int_equal(a.rc, b.rc);
    assert_string_equal(a.fault, b.fault);
    assert_memory_equal(a.out, b.out, sizeof a.out);
    if (r == 1) assert_int_equal(a.rc, SINEW_ETYPE);
  }
  assert_true(sinew__expr_typed_length(e) > 0);
  sinew_expr_destroy(e);
  sinew_expr_destroy(g);
  /* what stays on the generic VM: a constant index out of range, an index known at run time,
   * a matrix of another size, a matrix in arithmetic */
  static const char *const untyped[] = {
      "matrix $m[4][4] = .I[0]; .O[0] = $m[4][0];",
      "matrix $m[4][4] = .I[0]; .O[0] = $m[(int).I[1]][0];",
      "matrix $m[3][3] = .I[0]; .O[0] = $m[1][1];",
      "matrix $m[4][4] = .I[0]; matrix $n[4][4] = $m * $m; .O[0] = $n[3][0];",
      /* declared in a body that may not run: none there on the generic VM, and indexing it
       * faults (fuzz regression expr/34) */
      "while (.I[1] > 100) matrix $m[4][4] = .I[0]; .O[0] = $m[3][0];",
      "if (.I[1] > 100) matrix $m[4][4] = .I[0]; .O[0] = $m[3][0];",
  };
  for (size_t k = 0; k < sizeof untyped / sizeof untyped[0]; k++)
    if (same_on_both_mats(untyped[k], in, 3, mats, 0)) fail_msg("the typed VM took: %s", untyped[k]);
}

/* The step limit stops a loop at the same step, with the same message, on both. */
static void test_typed_step_limit(void **state) {
  (void)state;
  static const double in[3] = {1, 2, 3};
  assert_true(same_on_both("float $x = 0; while (1) { $x += .I[0]; .O[0] = $x; }", in, 3, 1000));
  assert_true(same_on_both("for ($i = 0; $i < 2500; $i++) .O[0] = $i;", in, 3, 1000));
  assert_true(same_on_both("for ($i = 0; $i < 999; $i++) .O[0] = $i;", in, 3, 1000));
}

/* Operators on constants are computed once, when compiling. */
static void test_constant_folding(void **state) {
  (void)state;
  sinew_expr_t *e = compile_or_null(".O[0] = (2 * 3 + sin(0.5) * 4 - 1.0 / 4) * .I[0];");
  assert_non_null(e);
  /* the multiplication by the input, the output, the end */
  assert_int_equal(sinew__expr_typed_length(e), 3);
  double in = 2, out = 0;
  sinew_expr_io_t io = {.inputs = &in, .ninputs = 1, .outputs = &out, .noutputs = 1};
  assert_int_equal(sinew_expr_eval(e, &io, NULL, NULL, 0), SINEW_OK);
  assert_true(out == (2 * 3 + sin(0.5) * 4 - 1.0 / 4) * 2);
  sinew_expr_destroy(e);
  /* a constant division by zero is not folded: it faults at every evaluation */
  e = compile_or_null(".O[0] = 1 / 0;");
  unsigned faults = 0;
  char fault[128];
  assert_int_equal(sinew_expr_eval(e, &io, &faults, fault, sizeof fault), SINEW_OK);
  assert_int_equal(faults, 1);
  assert_string_equal(fault, "line 1: division by zero");
  sinew_expr_destroy(e);
}

/* ---- random expressions ------------------------------------------------------------------------------- */

typedef struct gen {
  uint64_t s;
  char *buf;
  size_t n, cap;
} gen;

static uint32_t rnd(gen *g, uint32_t n) {
  g->s ^= g->s << 13;
  g->s ^= g->s >> 7;
  g->s ^= g->s << 17;
  return (uint32_t)(g->s % n);
}

static void put(gen *g, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(g->buf + g->n, g->cap - g->n, fmt, ap);
  va_end(ap);
  if (k > 0 && g->n + (size_t)k < g->cap) g->n += (size_t)k;
}

static void gen_expr(gen *g, int depth) {
  static const char *const leaves[] = {"$i", "$f", "$v", ".I[0]", ".I[1]", "0", "1", "-1", "3",
                                       "2.5", "0.0", "7", "<<1, -2, 0.5>>", "time", "$v.y", "$u"};
  static const char *const ops[] = {"+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=",
                                    "&&", "||"};
  static const char *const fns1[] = {"sin", "cos", "abs", "sqrt", "floor", "mag", "sind", "exp"};
  if (depth <= 0 || rnd(g, 4) == 0) {
    put(g, "%s", leaves[rnd(g, sizeof leaves / sizeof leaves[0])]);
    return;
  }
  switch (rnd(g, 7)) {
    case 0:
    case 1:
    case 2:
      put(g, "(");
      gen_expr(g, depth - 1);
      put(g, " %s ", ops[rnd(g, sizeof ops / sizeof ops[0])]);
      gen_expr(g, depth - 1);
      put(g, ")");
      break;
    case 3:
      put(g, "%s(", fns1[rnd(g, sizeof fns1 / sizeof fns1[0])]);
      gen_expr(g, depth - 1);
      put(g, ")");
      break;
    case 4:
      put(g, "%s(", rnd(g, 2) ? "clamp" : "smoothstep");
      gen_expr(g, depth - 1);
      put(g, ", ");
      gen_expr(g, depth - 1);
      put(g, ", ");
      gen_expr(g, depth - 1);
      put(g, ")");
      break;
    case 5:
      if (rnd(g, 4) == 0) { /* an assignment as a value */
        static const char *const lv[] = {"$f", "$v", "$i", ".O[1]", "$u"};
        put(g, "(%s = ", lv[rnd(g, 5)]);
        gen_expr(g, depth - 1);
        put(g, ")");
        break;
      }
      if (rnd(g, 3) == 0) { /* the cross product: a vector with anything */
        put(g, "(%s ^ ", rnd(g, 2) ? "$v" : "<<0, 1, 0>>");
        gen_expr(g, depth - 1);
        put(g, ")");
        break;
      }
      put(g, "%s(", rnd(g, 3) == 0 ? "!" : rnd(g, 2) ? "-" : "(float)");
      gen_expr(g, depth - 1);
      put(g, ")");
      break;
    default:
      if (rnd(g, 2)) { /* a conditional whose branches have the same type */
        put(g, "(");
        gen_expr(g, depth - 1);
        put(g, " ? %s : %s)", rnd(g, 2) ? "$f" : ".I[1]", rnd(g, 2) ? "2.5" : "-$u");
        break;
      }
      put(g, "(");
      gen_expr(g, depth - 1);
      put(g, " ? ");
      gen_expr(g, depth - 1);
      put(g, " : ");
      gen_expr(g, depth - 1);
      put(g, ")");
      break;
  }
}

static void gen_stmt(gen *g, int depth) {
  static const char *const targets[] = {"$i", "$f", "$v", ".O[0]", ".O[1]", "$v.x", "$u"};
  static const char *const assign[] = {"=", "+=", "-=", "*=", "/="};
  switch (rnd(g, depth > 0 ? 5 : 3)) {
    case 0:
    case 1:
    case 2:
      put(g, "%s %s ", targets[rnd(g, sizeof targets / sizeof targets[0])], assign[rnd(g, 5)]);
      gen_expr(g, 3);
      put(g, ";\n");
      break;
    case 3:
      put(g, "if (");
      gen_expr(g, 2);
      put(g, ") { ");
      gen_stmt(g, depth - 1);
      put(g, "} else { ");
      gen_stmt(g, depth - 1);
      put(g, "}\n");
      break;
    default:
      put(g, "for ($k = 0; $k < %u; $k++) { ", rnd(g, 5));
      gen_stmt(g, depth - 1);
      put(g, "}\n");
      break;
  }
}

static void test_random_expressions(void **state) {
  (void)state;
  char buf[4096];
  gen g = {0x9E3779B97F4A7C15ull, buf, 0, sizeof buf};
  int typed = 0, compiled = 0;
  static const double inputs[][2] = {{1.5, -2}, {0, 0}, {-0.0, 1e300}, {3, 0.25}, {NAN, 1}, {-INFINITY, 2}};
  for (int n = 0; n < 3000; n++) {
    g.n = 0;
    buf[0] = 0;
    put(&g, "int $i = %d; float $f; vector $v; $u = 1.5;\n", (int)rnd(&g, 5) - 2);
    for (int k = 0, m = 1 + (int)rnd(&g, 4); k < m; k++) gen_stmt(&g, 2);
    sinew_expr_t *e = compile_or_null(buf);
    if (!e) continue;
    sinew_expr_destroy(e);
    compiled++;
    typed += same_on_both(buf, inputs[n % 6], 2, 100000);
  }
  /* about half use a type only known at run time (a conditional's two types, ^ of numbers);
   * the typed VM must take the others for the comparison to test it */
  if (typed < compiled / 3) fail_msg("the typed VM took %d of %d", typed, compiled);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rig_frames_do_not_allocate),
      cmocka_unit_test(test_typed_matches_generic),
      cmocka_unit_test(test_typed_short_io),
      cmocka_unit_test(test_untyped_texts),
      cmocka_unit_test(test_typed_matrices),
      cmocka_unit_test(test_typed_step_limit),
      cmocka_unit_test(test_constant_folding),
      cmocka_unit_test(test_random_expressions),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
