/* tests/test_expression.c: expression mode and the expression node (lang/expr.c,
 * lang/expression_node.c, docs/expressions.md, spec 7.1 and 7.2): references and their
 * numbering, the internal .I[n] / .O[n] text and its rewrite back to names, evaluation with
 * variables that persist, the node's connections, evaluation on pull and only when something
 * changed, unit options, time and frame at several rates, matrix inputs, the bicep bulge formula
 * against C, runtime faults, and bad input refused with the graph left as it was. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdatomic.h>
#include <uv.h>

#include "sinew/sinew.h"
#include "sinew/lang.h"
#include "tests/support.h"

static const double PI = 3.14159265358979323846;
static double deg(double d) { return d * PI / 180.0; }

static bool close_to(double a, double b, double tol) {
  return fabs(a - b) <= tol * (fabs(b) > 1 ? fabs(b) : 1);
}
#define assert_close(a, b)                                                             \
  do {                                                                                 \
    double a_ = (a), b_ = (b);                                                         \
    if (!close_to(a_, b_, 1e-9)) fail_msg("%s = %.17g, not %.17g", #a, a_, b_);       \
  } while (0)

/* ---- compiling ------------------------------------------------------------------------------- */

static const sinew_expr_ref_t *ref(sinew_expr_t *e, size_t i) {
  const sinew_expr_ref_t *r = sinew_expr_ref(e, i);
  assert_non_null(r);
  return r;
}

static sinew_expr_t *compile(const char *text) {
  char err[256];
  sinew_expr_t *e = NULL;
  int rc = sinew_expr_compile(text, &e, err, sizeof err);
  if (rc) fail_msg("%s\n  %s (%s)", text, err, sinew_err_name(rc));
  return e;
}

static void expect_compile_error(const char *text, const char *prefix) {
  char err[256];
  sinew_expr_t *e = NULL;
  int rc = sinew_expr_compile(text, &e, err, sizeof err);
  if (rc != SINEW_ESYNTAX) fail_msg("%s\n  gave %s, not SINEW_ESYNTAX", text, sinew_err_name(rc));
  assert_null(e);
  if (strncmp(err, prefix, strlen(prefix)) != 0)
    fail_msg("%s\n  message \"%s\" does not start with \"%s\"", text, err, prefix);
}

static void expect_internal(sinew_expr_t *e, const char *want) {
  char *t = sinew_expr_internal_text(e);
  assert_non_null(t);
  if (strcmp(t, want) != 0) fail_msg("internal text \"%s\", not \"%s\"", t, want);
  sinew_free(t);
}

static const char *upper_name(void *ud, const sinew_expr_ref_t *r) {
  char *buf = ud;
  snprintf(buf, 64, "%s_%s%d", r->text, r->written ? "W" : "R", r->index);
  return buf;
}

static const char *keep_inputs(void *ud, const sinew_expr_ref_t *r) {
  (void)ud;
  return r->written ? "OUT" : NULL;
}

static void test_compile_refs(void **state) {
  (void)state;
  sinew_expr_t *e = compile("bicep.scaleY = 1 + 0.35 * smoothstep(15, 120, elbow.rotateZ);");
  assert_int_equal(sinew_expr_ref_count(e), 2);
  assert_int_equal(sinew_expr_input_count(e), 1);
  assert_int_equal(sinew_expr_output_count(e), 1);
  assert_string_equal(ref(e, 0)->text, "bicep.scaleY");
  assert_true(ref(e, 0)->written);
  assert_int_equal(ref(e, 0)->index, 0);
  assert_int_equal(ref(e, 0)->line, 1);
  assert_int_equal(ref(e, 0)->column, 1);
  assert_string_equal(ref(e, 1)->text, "elbow.rotateZ");
  assert_false(ref(e, 1)->written);
  assert_int_equal(ref(e, 1)->index, 0);
  assert_int_equal(ref(e, 1)->column, 47);
  assert_false(sinew_expr_uses_time(e));
  expect_internal(e, ".O[0] = 1 + 0.35 * smoothstep(15, 120, .I[0]);");
  sinew_expr_destroy(e);

  /* numbered in order of first appearance, separately; written anywhere = output */
  e = compile("a.tx = b.ty + c.tz * b.ty;\nd.rx = a.tx;\n  float $k = e.sx; b.ty += 0;");
  assert_int_equal(sinew_expr_ref_count(e), 5);
  const char *texts[] = {"a.tx", "b.ty", "c.tz", "d.rx", "e.sx"};
  bool written[] = {true, true, false, true, false};
  int index[] = {0, 1, 0, 2, 1};
  for (size_t i = 0; i < 5; i++) {
    assert_string_equal(ref(e, i)->text, texts[i]);
    assert_int_equal(ref(e, i)->written, written[i]);
    assert_int_equal(ref(e, i)->index, index[i]);
  }
  assert_int_equal(ref(e, 3)->line, 2);
  assert_int_equal(ref(e, 3)->column, 1);
  assert_int_equal(ref(e, 4)->line, 3);
  assert_int_equal(ref(e, 4)->column, 14);
  assert_int_equal(sinew_expr_input_count(e), 2);
  assert_int_equal(sinew_expr_output_count(e), 3);
  expect_internal(e, ".O[0] = .O[1] + .I[0] * .O[1];\n.O[2] = .O[0];\n  float $k = .I[1]; .O[1] += 0;");
  char buf[64];
  char *t = sinew_expr_rewrite(e, upper_name, buf);
  assert_string_equal(t, "a.tx_W0 = b.ty_W1 + c.tz_R0 * b.ty_W1;\nd.rx_W2 = a.tx_W0;\n  float $k = e.sx_R1; b.ty_W1 += 0;");
  sinew_free(t);
  t = sinew_expr_rewrite(e, keep_inputs, NULL);
  assert_string_equal(t, "OUT = OUT + c.tz * OUT;\nOUT = OUT;\n  float $k = e.sx; OUT += 0;");
  sinew_free(t);
  sinew_expr_destroy(e);

  /* Maya's stored form: .I[n] / .O[n] keep their numbers; others follow */
  e = compile(".O[1] = .I[2] * 2 + x.ty; .O[0] = 1;");
  assert_int_equal(sinew_expr_input_count(e), 4);
  assert_int_equal(sinew_expr_output_count(e), 2);
  expect_internal(e, ".O[1] = .I[2] * 2 + .I[3]; .O[0] = 1;");
  sinew_expr_destroy(e);
  e = compile(".O[0] = .I[ 0 ] + 1;");
  expect_internal(e, ".O[0] = .I[0] + 1;");
  sinew_expr_destroy(e);

  /* names: indices, children, namespaces, DAG paths, bare attributes, ++ */
  e = compile("ns:arm.tx = |grp|leg.t.ty + rig.wl[3].w[2] + tx; arm2.rz++;");
  const char *names[] = {"ns:arm.tx", "|grp|leg.t.ty", "rig.wl[3].w[2]", "tx", "arm2.rz"};
  for (size_t i = 0; i < 5; i++) assert_string_equal(ref(e, i)->text, names[i]);
  assert_true(ref(e, 4)->written);
  sinew_expr_destroy(e);

  /* time and frame */
  e = compile("a.tx = time;");
  assert_true(sinew_expr_uses_time(e));
  assert_int_equal(sinew_expr_input_count(e), 0);
  sinew_expr_destroy(e);
  e = compile("a.tx = 2 * frame;");
  assert_true(sinew_expr_uses_time(e));
  sinew_expr_destroy(e);
  e = compile("float $x = 3; $x *= 2;");
  assert_false(sinew_expr_uses_time(e));
  assert_int_equal(sinew_expr_ref_count(e), 0);
  sinew_expr_destroy(e);
  e = compile("");
  assert_int_equal(sinew_expr_ref_count(e), 0);
  sinew_expr_destroy(e);

  /* what expression mode refuses, with line and column */
  expect_compile_error("a.tx = ;", "line 1, column 8:");
  expect_compile_error("a.tx = 1;\n  b.ty = (2;", "line 2, column 12: expected ')'");
  expect_compile_error(".I[0] = 1;", "cannot assign to input .I[0]");
  expect_compile_error("a.tx = 1;\nsetAttr(\"a.tx\", 1);", "line 2, column 1: unknown function setAttr");
  expect_compile_error("print(1);", "line 1, column 1: print cannot be used in an expression");
  expect_compile_error("a.tx = eval(\"1\");", "line 1, column 8: eval cannot be used in an expression");
  expect_compile_error("string $p[]; tokenize(\"a b\", $p);", "line 1, column 14: tokenize cannot be used in an expression");
  expect_compile_error("global proc f() {}", "line 1, column 8: procedures cannot be defined in an expression");
  expect_compile_error("global float $g;", "line 1, column 14: global variables are not supported in expressions");
  expect_compile_error("return 1;", "line 1, column 1: return is not allowed in an expression");
  expect_compile_error("a.tx = `ls`;", "line 1, column 8: commands are not allowed in expressions");
  expect_compile_error("a.tx = $nope;", "line 1, column 8: undeclared variable $nope");
  char small[8];
  sinew_expr_t *none = NULL;
  assert_int_equal(sinew_expr_compile("a.tx = ;", &none, small, sizeof small), SINEW_ESYNTAX);
  assert_int_equal(strlen(small), 7);
  assert_int_equal(sinew_expr_compile("a.tx = ;", &none, NULL, 0), SINEW_ESYNTAX);
  assert_int_equal(sinew_expr_compile(NULL, &none, NULL, 0), SINEW_EINVAL);
}

/* ---- evaluating without a graph ---------------------------------------------------------------- */

/* ---- bounded evaluation ----------------------------------------------------------------------- */

static bool flag_raised(void *ud) { return atomic_load((atomic_int *)ud) != 0; }

static void *raise_later(void *ud) {
  uv_sleep(20);
  atomic_store((atomic_int *)ud, 1);
  return NULL;
}

static void test_eval_bounded(void **state) {
  (void)state;
  /* an endless loop stops at the default budget, with the line, and the outputs it assigned */
  sinew_expr_t *e = compile("o.a = 1;\nwhile (1) { o.b = o.b + 1; }");
  double out[2] = {0, 0};
  sinew_expr_io_t io = {.outputs = out, .noutputs = 2};
  char fault[256];
  unsigned faults = 0;
  assert_int_equal(sinew_expr_eval(e, &io, &faults, fault, sizeof fault), SINEW_ELIMIT);
  assert_int_equal(faults, 1);
  if (strcmp(fault, "line 2: stopped: over the limit of 10000000 steps (loop iterations and procedure calls)") != 0)
    fail_msg("fault: %s", fault);
  assert_close(out[0], 1);
  /* a step is a jump back: the body ran once before the first one, then once per step */
  assert_close(out[1], SINEW_EXPR_DEFAULT_MAX_STEPS + 1.0);
  /* a budget of its own */
  io.max_steps = 10;
  out[1] = 0;
  assert_int_equal(sinew_expr_eval(e, &io, NULL, fault, sizeof fault), SINEW_ELIMIT);
  assert_close(out[1], 11);
  /* no budget: only the host's poll stops it, raised here from another thread */
  io.max_steps = UINT64_MAX;
  atomic_int stop = 0;
  io.should_stop = flag_raised;
  io.stop_data = &stop;
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, raise_later, &stop), 0);
  assert_int_equal(sinew_expr_eval(e, &io, NULL, fault, sizeof fault), SINEW_EINTERRUPTED);
  assert_int_equal(pthread_join(t, NULL), 0);
  if (strcmp(fault, "line 2: interrupted") != 0) fail_msg("fault: %s", fault);
  assert_true(out[1] > 11);
  sinew_expr_destroy(e);
  /* .I[n] / .O[n] past 65535 are refused when compiled (the node keeps a value per index up to
   * the highest, so a huge one in a file allocated gigabytes); no overflow on any length */
  const char *too_big[] = {".I[65536]", "a.x = .I[2147483648];", ".O[2147483647] = 1;", ".I[99999999999999999999999]"};
  for (size_t k = 0; k < sizeof too_big / sizeof too_big[0]; k++) {
    sinew_expr_t *x = NULL;
    assert_int_equal(sinew_expr_compile(too_big[k], &x, fault, sizeof fault), SINEW_ERANGE);
    assert_null(x);
    if (!strstr(fault, "the index is above the limit of 65535")) fail_msg("%s: %s", too_big[k], fault);
  }
  sinew_expr_t *edge = compile(".O[65535] = .I[65535] + 1;");
  assert_int_equal(sinew_expr_input_count(edge), 65536);
  sinew_expr_destroy(edge);
  /* a loop that ends is not affected */
  e = compile("int $i; float $s = 0; for ($i = 0; $i < 100000; $i++) $s += 1; o.a = $s;");
  io = (sinew_expr_io_t){.outputs = out, .noutputs = 1};
  assert_int_equal(sinew_expr_eval(e, &io, NULL, NULL, 0), SINEW_OK);
  assert_close(out[0], 100000);
  sinew_expr_destroy(e);
}

static void test_eval_direct(void **state) {
  (void)state;
  /* variables keep their values between evaluations; a declaration with a value reassigns */
  sinew_expr_t *e = compile("float $count; $count += 1; float $once = 0; $once += 1; a.tx = $count; a.ty = $once;");
  double out[2] = {0, 0};
  sinew_expr_io_t io = {.outputs = out, .noutputs = 2};
  for (int i = 1; i <= 3; i++) {
    assert_int_equal(sinew_expr_eval(e, &io, NULL, NULL, 0), SINEW_OK);
    assert_close(out[0], i);
    assert_close(out[1], 1);
  }
  sinew_expr_destroy(e);

  /* inputs, time, frame; an output not assigned keeps what the caller put there */
  e = compile("if (x.a > 0) o.one = x.a * 2 + time; else o.two = frame;");
  double in = 3, o2[2] = {-1, -2};
  sinew_expr_io_t io2 = {.inputs = &in, .ninputs = 1, .outputs = o2, .noutputs = 2,
                         .time_seconds = 0.5, .frame = 12};
  assert_int_equal(sinew_expr_eval(e, &io2, NULL, NULL, 0), SINEW_OK);
  assert_close(o2[0], 6.5);
  assert_close(o2[1], -2);
  in = -1;
  assert_int_equal(sinew_expr_eval(e, &io2, NULL, NULL, 0), SINEW_OK);
  assert_close(o2[0], 6.5);
  assert_close(o2[1], 12);
  sinew_expr_destroy(e);

  /* reading an output gives the value last written */
  e = compile("o.a = 5; o.b = o.a * 2; o.a += 1; o.c = o.a;");
  double o3[3] = {0, 0, 0};
  sinew_expr_io_t io3 = {.outputs = o3, .noutputs = 3};
  assert_int_equal(sinew_expr_eval(e, &io3, NULL, NULL, 0), SINEW_OK);
  assert_close(o3[0], 6);
  assert_close(o3[1], 10);
  assert_close(o3[2], 6);
  sinew_expr_destroy(e);

  /* a matrix input */
  e = compile("matrix $m[4][4] = j.worldMatrix[0]; o.x = $m[3][0]; o.y = $m[3][1] + $m[0][0]; vector $p = <<1, 0, 0>> * $m; o.z = $p.z;");
  sinew_mat4_t m = {{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {3, 4, 5, 1}}};
  const sinew_mat4_t *mp[1] = {&m};
  double zero = 0, o4[3] = {0, 0, 0};
  sinew_expr_io_t io4 = {.inputs = &zero, .ninputs = 1, .input_matrices = mp, .outputs = o4, .noutputs = 3};
  assert_int_equal(sinew_expr_eval(e, &io4, NULL, NULL, 0), SINEW_OK);
  assert_close(o4[0], 3);
  assert_close(o4[1], 5);
  assert_close(o4[2], 5);
  sinew_expr_destroy(e);

  /* runtime faults: a defined value, counted, the first one's text kept; the run goes on */
  struct {
    const char *text;
    double in, want;
    unsigned faults;
    const char *msg;
  } c[] = {
      {"o.x = 1 / i.a; o.y = 7;", 0, 0, 1, "line 1: division by zero"},
      {"o.x = 5 % i.a;", 0, 0, 1, "line 1: modulus by zero"},
      {"o.x = sqrt(i.a - 1);", 0, 0, 1, "line 1: sqrt: negative argument -1; 0 used"},
      {"o.x = log(i.a);", 0, 0, 1, "line 1: log: argument 0 is not positive; 0 used"},
      {"o.x = acos(i.a + 2);", 0, 0, 1, "line 1: acos: argument 2 outside -1..1; clamped"},
      {"\nfloat $a[] = {1, 2};\no.x = $a[i.a - 1];", 0, 0, 1, "line 3: negative array index -1"},
      {"float $a[] = {1, 2}; o.x = $a[i.a + 5];", 0, 0, 0, ""}, /* past the end: 0, as MEL */
      {"matrix $m[2][2]; float $r[] = $m[i.a + 3]; o.x = size($r);", 0, 2, 1, "line 1: matrix row 3 out of range (2 rows)"},
      {"vector $v = <<1, 2, 3>>; o.x = 1 / i.a + 1 / i.a + $v.y;", 0, 2, 2, "line 1: division by zero"},
  };
  for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
    e = compile(c[k].text);
    double o[2] = {-9, -9};
    sinew_expr_io_t iof = {.inputs = &c[k].in, .ninputs = 1, .outputs = o, .noutputs = sinew_expr_output_count(e)};
    unsigned faults = 99;
    char fb[128];
    assert_int_equal(sinew_expr_eval(e, &iof, &faults, fb, sizeof fb), SINEW_OK);
    if (faults != c[k].faults) fail_msg("%s: %u faults, not %u", c[k].text, faults, c[k].faults);
    if (strcmp(fb, c[k].msg) != 0) fail_msg("%s: fault \"%s\", not \"%s\"", c[k].text, fb, c[k].msg);
    assert_close(o[0], c[k].want);
    if (sinew_expr_output_count(e) > 1) assert_close(o[1], 7);
    sinew_expr_destroy(e);
  }
  /* an output that would be infinite or NaN keeps its value */
  e = compile("o.x = i.a * 1e308 * 10; o.y = 2;");
  double big = 1, o5[2] = {42, 0};
  sinew_expr_io_t io5 = {.inputs = &big, .ninputs = 1, .outputs = o5, .noutputs = 2};
  unsigned faults = 0;
  char fb[128];
  assert_int_equal(sinew_expr_eval(e, &io5, &faults, fb, sizeof fb), SINEW_OK);
  assert_int_equal(faults, 1);
  assert_string_equal(fb, "line 1: output 0 would be infinite; it keeps its value");
  assert_close(o5[0], 42);
  assert_close(o5[1], 2);
  sinew_expr_destroy(e);

  /* a numeric expression allocates nothing per evaluation */
  test_alloc_install();
  e = compile("float $b = clamp(0, 150, abs(i.ry)); float $a = smoothstep(20, 120, $b); o.x = 1 + 0.35 * $a; o.y = o.x;");
  double iry = 0, o6[2];
  sinew_expr_io_t io6 = {.inputs = &iry, .ninputs = 1, .outputs = o6, .noutputs = 2};
  test_alloc_reset();
  for (int i = 0; i < 100; i++) {
    iry = i * 1.2;
    assert_int_equal(sinew_expr_eval(e, &io6, NULL, NULL, 0), SINEW_OK);
  }
  assert_int_equal(test_alloc_count(), 0);
  double t6 = fmin(fmax((fmin(99 * 1.2, 150) - 20) / 100, 0), 1);
  assert_close(o6[1], 1 + 0.35 * t6 * t6 * (3 - 2 * t6));
  sinew_expr_destroy(e);
  assert_int_equal(test_alloc_live(), 0);
  test_alloc_uninstall();

  /* random numbers: each expression has its own sequence, the same in every compile */
  sinew_expr_t *r1 = compile("o.x = rand(100); o.y = noise(time);");
  sinew_expr_t *r2 = compile("o.x = rand(100); o.y = noise(time);");
  double a[2], b[2];
  sinew_expr_io_t ia = {.outputs = a, .noutputs = 2, .time_seconds = 0.37};
  sinew_expr_io_t ib = {.outputs = b, .noutputs = 2, .time_seconds = 0.37};
  for (int i = 0; i < 5; i++) {
    assert_int_equal(sinew_expr_eval(r1, &ia, NULL, NULL, 0), SINEW_OK);
    assert_int_equal(sinew_expr_eval(r2, &ib, NULL, NULL, 0), SINEW_OK);
    assert_true(a[0] == b[0] && a[1] == b[1]);
    assert_true(a[0] >= 0 && a[0] <= 100);
  }
  sinew_expr_destroy(r1);
  sinew_expr_destroy(r2);
}

/* ---- the node ------------------------------------------------------------------------------------ */

typedef struct fx {
  sinew_graph_t *g;
  int nlog[SINEW_LOG_ID_MAX];
  char lastlog[1024];
} fx;

static void logger(void *ud, sinew_log_level_t level, sinew_log_id_t id, const char *msg) {
  fx *f = ud;
  (void)level;
  if (id < SINEW_LOG_ID_MAX) f->nlog[id]++;
  snprintf(f->lastlog, sizeof f->lastlog, "%s", msg);
}

static void expect_contains_log(fx *f, const char *part) {
  if (!strstr(f->lastlog, part)) fail_msg("log \"%s\" does not mention \"%s\"", f->lastlog, part);
}

/* "probe": plain doubles x, y, z, an angle, a distance, a time, and an output result = x * 2. */
static uint32_t PROBE_X, PROBE_RESULT;
static int probe_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != PROBE_RESULT) return SINEW_EUNKNOWN_PLUG;
  sinew_node_t n = sinew_compute_node(ctx);
  sinew_plug_t px = sinew_plug_make(n, PROBE_X, 0, NULL);
  double x = 0;
  sinew_get_double(sinew_compute_graph(ctx), &px, &x);
  return sinew_compute_set_double(ctx, plug, 2 * x);
}

static void register_probe(sinew_graph_t *g) {
  static const sinew_attr_desc_t attrs[] = {
      {.name = "x", .type = SINEW_ATTR_DOUBLE},
      {.name = "y", .type = SINEW_ATTR_DOUBLE},
      {.name = "z", .type = SINEW_ATTR_DOUBLE},
      {.name = "ang", .type = SINEW_ATTR_ANGLE},
      {.name = "dist", .type = SINEW_ATTR_DISTANCE},
      {.name = "tm", .type = SINEW_ATTR_TIME},
      {.name = "result", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT},
      {.name = "words", .type = SINEW_ATTR_STRING},
      {.name = "list", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY},
  };
  static const sinew_affects_t aff[] = {{"x", "result"}};
  sinew_node_type_desc_t d = {.name = "probe", .attrs = attrs, .attr_count = sizeof attrs / sizeof attrs[0],
                              .affects = aff, .affects_count = 1, .compute = probe_compute};
  const sinew_node_type_t *t;
  assert_int_equal(sinew_register_node_type(g, &d, &t), SINEW_OK);
  PROBE_X = sinew_node_type_attr(t, "x");
  PROBE_RESULT = sinew_node_type_attr(t, "result");
}

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  if (!f || sinew_scene_create(NULL, &f->g) || sinew_lang_register_types(f->g)) return -1;
  sinew_graph_set_logger(f->g, logger, f);
  register_probe(f->g);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  sinew_graph_destroy(f->g);
  free(f);
  return 0;
}

static sinew_node_t mk(fx *f, const char *type, const char *name) {
  sinew_node_t n;
  int rc = sinew_node_create(f->g, type, name, &n);
  if (rc) fail_msg("create %s %s: %s", type, name, sinew_graph_errmsg(f->g));
  return n;
}

static sinew_plug_t P(fx *f, const char *text) {
  sinew_plug_t p;
  int rc = sinew_plug_parse(f->g, text, (sinew_node_t){0, 0}, &p);
  if (rc) fail_msg("no plug %s: %s", text, sinew_graph_errmsg(f->g));
  return p;
}

static void set(fx *f, const char *plug, double v) {
  sinew_plug_t p = P(f, plug);
  int rc = sinew_set_double(f->g, &p, v);
  if (rc) fail_msg("set %s: %s", plug, sinew_graph_errmsg(f->g));
}

static double get(fx *f, const char *plug) {
  sinew_plug_t p = P(f, plug);
  double v = NAN;
  int rc = sinew_get_double(f->g, &p, &v);
  if (rc) fail_msg("get %s: %s", plug, sinew_graph_errmsg(f->g));
  return v;
}

static const char *get_str(fx *f, const char *plug) {
  sinew_plug_t p = P(f, plug);
  const char *s = NULL;
  int rc = sinew_get_string(f->g, &p, &s);
  if (rc) fail_msg("get %s: %s", plug, sinew_graph_errmsg(f->g));
  return s;
}

/* The plug feeding dst, as text ("" when none). */
static const char *source_of(fx *f, const char *dst, char *buf, size_t size) {
  sinew_plug_t p = P(f, dst), s;
  buf[0] = 0;
  if (sinew_plug_source(f->g, &p, &s)) sinew_plug_format(f->g, &s, false, buf, size);
  return buf;
}

static void expect_source(fx *f, const char *dst, const char *want) {
  char buf[256];
  source_of(f, dst, buf, sizeof buf);
  if (strcmp(buf, want) != 0) fail_msg("%s is fed by \"%s\", not \"%s\"", dst, buf, want);
}

static sinew_node_t expr(fx *f, const char *text, sinew_node_t object) {
  sinew_expression_desc_t d = {.text = text, .object = object};
  sinew_node_t n;
  int rc = sinew_expression_create(f->g, &d, &n);
  if (rc) fail_msg("%s\n  %s (%s)", text, sinew_graph_errmsg(f->g), sinew_err_name(rc));
  return n;
}

static uint64_t evals(fx *f, sinew_node_t n) {
  uint64_t e = 0, faults = 0;
  assert_int_equal(sinew_expression_stats(f->g, n, &e, &faults), SINEW_OK);
  return e;
}

static uint64_t faults_of(fx *f, sinew_node_t n) {
  uint64_t e = 0, faults = 0;
  assert_int_equal(sinew_expression_stats(f->g, n, &e, &faults), SINEW_OK);
  return faults;
}

static const sinew_node_t NONE = {0, 0};

static void test_node_connections(void **state) {
  fx *f = *state;
  mk(f, "joint", "elbow");
  mk(f, "joint", "bicep");
  sinew_node_t n = expr(f, "bicep.scaleY = 1 + 0.35 * smoothstep(15, 120, elbow.rotateZ);", NONE);
  assert_string_equal(sinew_node_name(f->g, n), "expression1");
  assert_string_equal(get_str(f, "expression1.internalExpression"), ".O[0] = 1 + 0.35 * smoothstep(15, 120, .I[0]);");
  assert_string_equal(get_str(f, "expression1.ixp"), ".O[0] = 1 + 0.35 * smoothstep(15, 120, .I[0]);");
  assert_string_equal(get_str(f, "expression1.expression"), "bicep.scaleY = 1 + 0.35 * smoothstep(15, 120, elbow.rotateZ);");
  expect_source(f, "expression1.input[0]", "elbow.rotateZ");
  expect_source(f, "bicep.scaleY", "expression1.output[0]");
  expect_source(f, "expression1.time", "time1.outTime"); /* alwaysEvaluate is on by default */
  expect_source(f, "expression1.objectMsg", "");
  /* short names are kept as written in the text, resolved to the same plugs */
  sinew_node_t n2 = expr(f, "bicep.sz = elbow.rz * 2; bicep.sx = elbow.rz + elbow.ry;", NONE);
  (void)n2;
  expect_source(f, "expression2.in[0]", "elbow.rotateZ");
  expect_source(f, "expression2.in[1]", "elbow.rotateY");
  expect_source(f, "bicep.scaleZ", "expression2.output[0]");
  expect_source(f, "bicep.scaleX", "expression2.output[1]");
  assert_string_equal(get_str(f, "expression2.expression"),
                      "bicep.scaleZ = elbow.rotateZ * 2; bicep.scaleX = elbow.rotateZ + elbow.rotateY;");
  /* a default object: bare names, object.message -> objectMsg, and a name */
  sinew_node_t ball = mk(f, "transform", "ball");
  sinew_expression_desc_t d = {.text = "tx = ty * 2 + elbow.tx;", .object = ball, .name = "ballExpr",
                               .not_always_evaluate = true};
  sinew_node_t n3;
  assert_int_equal(sinew_expression_create(f->g, &d, &n3), SINEW_OK);
  assert_string_equal(sinew_node_name(f->g, n3), "ballExpr");
  expect_source(f, "ballExpr.objectMsg", "ball.message");
  expect_source(f, "ballExpr.in[0]", "ball.translateY");
  expect_source(f, "ballExpr.in[1]", "elbow.translateX");
  expect_source(f, "ball.translateX", "ballExpr.output[0]");
  expect_source(f, "ballExpr.time", ""); /* no time used, alwaysEvaluate off */
  assert_string_equal(get_str(f, "ballExpr.object"), "ball");
  assert_string_equal(get_str(f, "ballExpr.expression"), "ball.translateX = ball.translateY * 2 + elbow.translateX;");
  /* a matrix read feeds inputMatrix[n] */
  sinew_node_t n4 = expr(f, "matrix $m[4][4] = elbow.worldMatrix[0]; ball.ty = $m[3][0] + frame;", NONE);
  (void)n4;
  expect_source(f, "expression3.inputMatrix[0]", "elbow.worldMatrix[0]");
  expect_source(f, "expression3.input[0]", "");
  expect_source(f, "expression3.time", "time1.outTime");
  assert_string_equal(get_str(f, "expression3.expression"),
                      "matrix $m[4][4] = elbow.worldMatrix[0]; ball.translateY = $m[3][0] + frame;");
  /* the node's attributes carry Maya's defaults */
  double ani = get(f, "expression1.animated"), uno = get(f, "expression1.unitOption");
  assert_close(ani, 1);
  assert_close(uno, 0);
  assert_close(get(f, "ballExpr.alwaysEvaluate"), 0);
}

/* Evaluated when an output is pulled, once for every output, again only when an input or the
 * time changed. */
static void test_node_evaluation_counts(void **state) {
  fx *f = *state;
  mk(f, "probe", "src");
  mk(f, "probe", "dst");
  sinew_node_t n = expr(f, "dst.x = src.x + 1; dst.y = src.x * 2; dst.z = src.y;", NONE);
  assert_int_equal(evals(f, n), 0);
  set(f, "src.x", 3);
  assert_close(get(f, "dst.x"), 4);
  assert_int_equal(evals(f, n), 1);
  assert_close(get(f, "dst.y"), 6);
  assert_close(get(f, "dst.z"), 0);
  assert_close(get(f, "dst.x"), 4);
  assert_int_equal(evals(f, n), 1);
  set(f, "src.y", 5);
  assert_int_equal(evals(f, n), 1); /* not before a pull */
  assert_close(get(f, "dst.z"), 5);
  assert_close(get(f, "dst.x"), 4);
  assert_int_equal(evals(f, n), 2);
  /* something that is not an input changes nothing */
  set(f, "src.z", 9);
  assert_close(get(f, "dst.x"), 4);
  assert_int_equal(evals(f, n), 2);
  /* alwaysEvaluate (the default): the time alone re-runs it */
  assert_int_equal(sinew_time_set_frame(f->g, 10), SINEW_OK);
  assert_close(get(f, "dst.y"), 6);
  assert_int_equal(evals(f, n), 3);
  /* alwaysEvaluate off and no time in the text: the time alone does not */
  mk(f, "probe", "b");
  sinew_expression_desc_t d2 = {.text = "b.x = src.x * 10;", .not_always_evaluate = true};
  sinew_node_t n2;
  assert_int_equal(sinew_expression_create(f->g, &d2, &n2), SINEW_OK);
  assert_close(get(f, "b.x"), 30);
  assert_int_equal(evals(f, n2), 1);
  assert_int_equal(sinew_time_set_frame(f->g, 11), SINEW_OK);
  assert_close(get(f, "b.x"), 30);
  assert_int_equal(evals(f, n2), 1);
  /* ...unless the text uses time */
  mk(f, "probe", "c");
  sinew_expression_desc_t d3 = {.text = "c.x = frame;", .not_always_evaluate = true};
  sinew_node_t n3;
  assert_int_equal(sinew_expression_create(f->g, &d3, &n3), SINEW_OK);
  assert_close(get(f, "c.x"), 11);
  assert_int_equal(sinew_time_set_frame(f->g, 12), SINEW_OK);
  assert_close(get(f, "c.x"), 12);
  assert_int_equal(evals(f, n3), 2);
  /* turning alwaysEvaluate on again makes the node dirty */
  set(f, "expression2.alwaysEvaluate", 1);
  assert_close(get(f, "b.x"), 30);
  assert_int_equal(evals(f, n2), 2);
  /* changing the stored text recompiles and re-runs */
  sinew_plug_t ixp = P(f, "expression2.internalExpression");
  assert_int_equal(sinew_set_string(f->g, &ixp, ".O[0] = .I[0] * 100;"), SINEW_OK);
  assert_close(get(f, "b.x"), 300);
  assert_int_equal(evals(f, n2), 3);
  /* a stored text that does not compile: the output keeps its value and a warning names it */
  int before = f->nlog[SINEW_LOG_COMPUTE_FAILED];
  assert_int_equal(sinew_set_string(f->g, &ixp, ".O[0] = ;"), SINEW_OK);
  double v = 0;
  sinew_plug_t bx = P(f, "b.x");
  sinew_get_double(f->g, &bx, &v);
  assert_close(v, 300);
  assert_true(f->nlog[SINEW_LOG_COMPUTE_FAILED] > before);
  expect_contains_log(f, "expression2");
}

/* A declared variable keeps its value between evaluations of the node. */
static void test_node_variables(void **state) {
  fx *f = *state;
  mk(f, "probe", "p");
  sinew_node_t n = expr(f, "float $count; $count += 1; int $calls = 0; $calls++; p.x = $count; p.y = $calls;", NONE);
  for (int i = 1; i <= 4; i++) {
    assert_int_equal(sinew_time_set_frame(f->g, i), SINEW_OK);
    assert_close(get(f, "p.x"), i);
    assert_close(get(f, "p.y"), 1);
  }
  assert_int_equal(evals(f, n), 4);
  /* a second node with the same text has its own variables */
  mk(f, "probe", "q");
  expr(f, "float $count; $count += 1; q.x = $count;", NONE);
  assert_close(get(f, "q.x"), 1);
  assert_close(get(f, "p.x"), 4);
}

/* unitOption: what the numbers mean (docs/expressions.md, spec 7.2 "Convert Units"). */
static void test_node_units(void **state) {
  fx *f = *state;
  assert_int_equal(sinew_scene_set_linear_unit(f->g, sinew_linear_unit_from_name("mm")), SINEW_OK);
  const char *names[3] = {"all", "none", "angular"};
  /* writing: 90 (degrees or radians), 5 (mm or cm), 12 (frames or seconds) */
  double want_ang[3] = {PI / 2, 90, PI / 2}, want_dist[3] = {0.5, 5, 5}, want_tm[3] = {0.5, 12, 12};
  for (int o = 0; o < 3; o++) {
    char name[32], text[256];
    snprintf(name, sizeof name, "w_%s", names[o]);
    mk(f, "probe", name);
    mk(f, "joint", names[o]);
    snprintf(text, sizeof text, "%s.ang = 90; %s.dist = 5; %s.tm = 12; %s.x = 7; %s.rotateZ = 45;", name, name,
             name, name, names[o]);
    sinew_expression_desc_t d = {.text = text, .unit_option = o};
    sinew_node_t n;
    assert_int_equal(sinew_expression_create(f->g, &d, &n), SINEW_OK);
    char plug[64];
    snprintf(plug, sizeof plug, "%s.ang", name);
    assert_close(get(f, plug), want_ang[o]);
    snprintf(plug, sizeof plug, "%s.dist", name);
    assert_close(get(f, plug), want_dist[o]);
    snprintf(plug, sizeof plug, "%s.tm", name);
    assert_close(get(f, plug), want_tm[o]);
    snprintf(plug, sizeof plug, "%s.x", name);
    assert_close(get(f, plug), 7);
    snprintf(plug, sizeof plug, "%s.rz", names[o]);
    assert_close(get(f, plug), o == 1 ? 45 : deg(45));
  }
  /* reading: pi/2 radians, 1 cm, 0.5 s */
  mk(f, "probe", "src");
  set(f, "src.ang", PI / 2);
  set(f, "src.dist", 1);
  set(f, "src.tm", 0.5);
  double read_ang[3] = {90, PI / 2, 90}, read_dist[3] = {10, 1, 1}, read_tm[3] = {12, 0.5, 0.5};
  for (int o = 0; o < 3; o++) {
    char name[32], text[256], plug[64];
    snprintf(name, sizeof name, "r_%s", names[o]);
    mk(f, "probe", name);
    snprintf(text, sizeof text, "%s.x = src.ang; %s.y = src.dist; %s.z = src.tm;", name, name, name);
    sinew_expression_desc_t d = {.text = text, .unit_option = o};
    sinew_node_t n;
    assert_int_equal(sinew_expression_create(f->g, &d, &n), SINEW_OK);
    snprintf(plug, sizeof plug, "%s.x", name);
    assert_close(get(f, plug), read_ang[o]);
    snprintf(plug, sizeof plug, "%s.y", name);
    assert_close(get(f, plug), read_dist[o]);
    snprintf(plug, sizeof plug, "%s.z", name);
    assert_close(get(f, plug), read_tm[o]);
  }
  /* an angle copied through an expression keeps its meaning: rz (radians inside) -> rz */
  mk(f, "joint", "a1");
  mk(f, "joint", "a2");
  set(f, "a1.rz", deg(30));
  expr(f, "a2.rz = a1.rz * 2;", NONE);
  assert_close(get(f, "a2.rz"), deg(60));
  /* a unitConversion between the node and the angle (as Maya writes files): converted once */
  sinew_node_t e, uc;
  assert_int_equal(sinew_node_create(f->g, "expression", "fileExpr", &e), SINEW_OK);
  uc = mk(f, "unitConversion", "uc1");
  (void)uc;
  mk(f, "joint", "a3");
  sinew_plug_t ixp = P(f, "fileExpr.ixp");
  assert_int_equal(sinew_set_string(f->g, &ixp, ".O[0] = 90;"), SINEW_OK);
  sinew_plug_t out0 = P(f, "fileExpr.out[0]"), ucin = P(f, "uc1.input"), ucout = P(f, "uc1.output"),
               rz = P(f, "a3.rz");
  assert_int_equal(sinew_connect(f->g, &out0, &ucin, 0, NULL), SINEW_OK);
  assert_int_equal(sinew_connect(f->g, &ucout, &rz, 0, NULL), SINEW_OK);
  set(f, "uc1.conversionFactor", PI / 180);
  assert_close(get(f, "a3.rz"), PI / 2);
  /* bad unit option */
  sinew_expression_desc_t bad = {.text = "a3.tx = 1;", .unit_option = 3};
  sinew_node_t n;
  assert_int_equal(sinew_expression_create(f->g, &bad, &n), SINEW_EINVAL);
  assert_int_equal(sinew_node_find(f->g, "expression1", &n) == SINEW_OK ? 1 : 0,
                   1); /* the earlier ones only */
}

/* A node works out where its inputs come from and where its outputs go once, not at every
 * evaluation: each change of that after it has run (a connection made or broken, undone,
 * unitOption, the scene's units, the text) is seen at the next evaluation. */
static void test_node_rewired(void **state) {
  fx *f = *state;
  mk(f, "probe", "src");
  mk(f, "probe", "dst");
  mk(f, "probe", "other");
  set(f, "src.ang", PI / 2);
  set(f, "other.x", 3);
  sinew_expression_desc_t d = {.text = "dst.x = src.ang; dst.ang = 45;", .not_always_evaluate = true};
  sinew_node_t n;
  assert_int_equal(sinew_expression_create(f->g, &d, &n), SINEW_OK);
  assert_close(get(f, "dst.x"), 90);        /* an angle read in degrees */
  assert_close(get(f, "dst.ang"), deg(45)); /* written in degrees */
  /* in[0] fed by a plain number instead: no conversion */
  sinew_plug_t ox = P(f, "other.x"), in0 = P(f, "expression1.input[0]");
  assert_int_equal(sinew_connect(f->g, &ox, &in0, SINEW_CONNECT_FORCE, NULL), SINEW_OK);
  assert_close(get(f, "dst.x"), 3);
  /* out[1] feeding a plain number instead of the angle */
  sinew_plug_t out1 = P(f, "expression1.output[1]"), dang = P(f, "dst.ang"), dy = P(f, "dst.y");
  assert_int_equal(sinew_disconnect(f->g, &out1, &dang), SINEW_OK);
  assert_int_equal(sinew_connect(f->g, &out1, &dy, 0, NULL), SINEW_OK);
  set(f, "other.x", 4);
  assert_close(get(f, "dst.y"), 45);
  /* a connection taken back by a rollback: the number again */
  assert_int_equal(sinew_graph_begin(f->g), SINEW_OK);
  sinew_plug_t sang = P(f, "src.ang");
  assert_int_equal(sinew_connect(f->g, &sang, &in0, SINEW_CONNECT_FORCE, NULL), SINEW_OK);
  assert_close(get(f, "dst.x"), 90);
  assert_int_equal(sinew_graph_rollback(f->g), SINEW_OK);
  set(f, "other.x", 5);
  assert_close(get(f, "dst.x"), 5);
  assert_int_equal(sinew_connect(f->g, &sang, &in0, SINEW_CONNECT_FORCE, NULL), SINEW_OK);
  assert_close(get(f, "dst.x"), 90);
  /* unitOption none: radians */
  set(f, "expression1.unitOption", SINEW_EXPR_UNITS_NONE);
  assert_close(get(f, "dst.x"), PI / 2);
  set(f, "expression1.unitOption", SINEW_EXPR_UNITS_ALL);
  assert_close(get(f, "dst.x"), 90);
  /* the scene's angle unit: taken at the next evaluation */
  assert_int_equal(sinew_scene_set_angle_unit(f->g, SINEW_ANGLE_RAD), SINEW_OK);
  set(f, "src.ang", PI / 4);
  assert_close(get(f, "dst.x"), PI / 4);
  assert_int_equal(sinew_scene_set_angle_unit(f->g, SINEW_ANGLE_DEG), SINEW_OK);
  set(f, "src.ang", PI / 2);
  assert_close(get(f, "dst.x"), 90);
  /* a new text set on internalExpression */
  sinew_plug_t ixp = P(f, "expression1.ixp");
  assert_int_equal(sinew_set_string(f->g, &ixp, ".O[0] = .I[0] * 2;"), SINEW_OK);
  assert_close(get(f, "dst.x"), 180);
  /* the source deleted: in[0] keeps its value (pi / 2), no longer an angle's, so not converted */
  sinew_node_t src;
  assert_int_equal(sinew_node_find(f->g, "src", &src), SINEW_OK);
  assert_int_equal(sinew_node_delete(f->g, src), SINEW_OK);
  assert_close(get(f, "dst.x"), PI);
  (void)n;
  /* inputMatrix[0] set by value, then taken back: read as a matrix, then as a number again (a
   * number where the text wants a matrix is a fault; the output keeps its value) */
  sinew_node_t e;
  assert_int_equal(sinew_node_create(f->g, "expression", "byValue", &e), SINEW_OK);
  sinew_plug_t bixp = P(f, "byValue.ixp"), bout = P(f, "byValue.out[0]"), bx = P(f, "dst.z");
  assert_int_equal(sinew_set_string(f->g, &bixp, "matrix $m[4][4] = .I[0]; .O[0] = $m[3][0] + 1;"), SINEW_OK);
  assert_int_equal(sinew_connect(f->g, &bout, &bx, 0, NULL), SINEW_OK);
  set(f, "byValue.input[0]", 5);
  get(f, "dst.z");
  uint64_t faults = faults_of(f, e);
  assert_true(faults > 0);
  sinew_mat4_t m;
  sinew_mat4_identity(&m);
  m.m[3][0] = 41;
  sinew_plug_t inm = P(f, "byValue.inputMatrix[0]");
  assert_int_equal(sinew_graph_begin(f->g), SINEW_OK);
  assert_int_equal(sinew_set_matrix(f->g, &inm, &m), SINEW_OK);
  assert_close(get(f, "dst.z"), 42);
  assert_int_equal(faults_of(f, e), faults);
  assert_int_equal(sinew_graph_rollback(f->g), SINEW_OK);
  set(f, "byValue.input[0]", 6);
  assert_close(get(f, "dst.z"), 42);
  assert_true(faults_of(f, e) > faults);
}

/* time is in seconds and frame in frames, at every frame rate. */
static void test_node_time(void **state) {
  fx *f = *state;
  mk(f, "probe", "p");
  sinew_node_t n = expr(f, "p.x = time; p.y = frame; p.z = p.y / time;", NONE);
  expect_source(f, "expression1.time", "time1.outTime");
  struct {
    const char *unit;
    double frame, fps;
  } c[] = {{"film", 12, 24}, {"ntsc", 18, 30}, {"pal", 50, 25}, {"show", 6, 48}, {"game", 45, 15},
           {"ntscf", 90, 60}, {"palf", 25, 50}, {"film", 0, 24}, {"film", -24, 24}};
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    assert_int_equal(sinew_time_set_unit(f->g, sinew_time_unit_from_name(c[i].unit)), SINEW_OK);
    assert_int_equal(sinew_time_set_frame(f->g, c[i].frame), SINEW_OK);
    assert_close(get(f, "p.x"), c[i].frame / c[i].fps);
    assert_close(get(f, "p.y"), c[i].frame);
    if (c[i].frame != 0) assert_close(get(f, "p.z"), c[i].fps);
  }
  assert_int_equal(faults_of(f, n), 1); /* frame 0: 0 / 0 */
  /* set in seconds */
  assert_int_equal(sinew_time_set_unit(f->g, SINEW_TIME_FILM), SINEW_OK);
  assert_int_equal(sinew_time_set_seconds(f->g, 2.5), SINEW_OK);
  assert_close(get(f, "p.x"), 2.5);
  assert_close(get(f, "p.y"), 60);
}

/* worldMatrix[0] of a moving joint, through inputMatrix. */
static void test_node_matrix_input(void **state) {
  fx *f = *state;
  sinew_node_t root = mk(f, "joint", "root");
  sinew_node_t j;
  assert_int_equal(sinew_node_create_under(f->g, "joint", "j", root, &j), SINEW_OK);
  mk(f, "probe", "p");
  sinew_node_t n = expr(f,
                        "matrix $m[4][4] = j.worldMatrix[0];\n"
                        "p.x = $m[3][0]; p.y = $m[3][1]; p.z = $m[3][2];\n"
                        "vector $ax = <<1, 0, 0>> * $m - <<$m[3][0], $m[3][1], $m[3][2]>>;\n"
                        "p.ang = atan2d($ax.y, $ax.x);",
                        NONE);
  set(f, "j.tx", 3);
  set(f, "j.ty", 4);
  set(f, "j.tz", 5);
  assert_close(get(f, "p.x"), 3);
  assert_close(get(f, "p.y"), 4);
  assert_close(get(f, "p.z"), 5);
  assert_close(get(f, "p.ang"), 0);
  /* the parent moves and turns: the expression follows */
  set(f, "root.tx", 10);
  set(f, "root.rz", deg(90));
  sinew_mat4_t m;
  assert_int_equal(sinew_dag_world_matrix(f->g, j, &m), SINEW_OK);
  assert_close(get(f, "p.x"), m.m[3][0]);
  assert_close(get(f, "p.y"), m.m[3][1]);
  assert_close(get(f, "p.z"), m.m[3][2]);
  assert_close(m.m[3][0], 10 - 4);
  assert_close(m.m[3][1], 3);
  assert_close(get(f, "p.ang"), deg(90)); /* written in degrees (unitOption all), stored in radians */
  uint64_t e = evals(f, n);
  assert_close(get(f, "p.x"), m.m[3][0]);
  assert_int_equal(evals(f, n), e);
}

/* The example rig's bicep bulge, checked against the formula in C at several elbow angles. */
static double smooth(double a, double b, double x) {
  double t = (x - a) / (b - a);
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  return t * t * (3 - 2 * t);
}

static void test_bicep_bulge(void **state) {
  fx *f = *state;
  sinew_node_t shoulder = mk(f, "joint", "shoulder"), elbow, bicep;
  assert_int_equal(sinew_node_create_under(f->g, "joint", "elbow", shoulder, &elbow), SINEW_OK);
  assert_int_equal(sinew_node_create_under(f->g, "joint", "bicep", shoulder, &bicep), SINEW_OK);
  sinew_attr_desc_t bulge = {.name = "bulge", .type = SINEW_ATTR_DOUBLE, .default_value = 0.35,
                             .flags = SINEW_ATTR_INPUT | SINEW_ATTR_KEYABLE};
  assert_int_equal(sinew_node_add_attr(f->g, bicep, &bulge, 1), SINEW_OK);
  sinew_node_t n = expr(f,
                        "float $bend = clamp(0, 150, elbow.rotateZ);\n"
                        "float $a = smoothstep(15, 120, $bend);\n"
                        "bicep.scaleY = 1 + bicep.bulge * $a;   bicep.scaleZ = 1 + bicep.bulge * $a;\n"
                        "bicep.scaleX = 1 - 0.3 * bicep.bulge * $a;\n",
                        NONE);
  double angles[] = {0, 10, 15, 30, 45, 60, 90, 119, 120, 135, 150, 170, -20, 67.5};
  double b = 0.35;
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < sizeof angles / sizeof angles[0]; i++) {
      uint64_t before = evals(f, n);
      set(f, "elbow.rz", deg(angles[i]));
      double bend = angles[i] < 0 ? 0 : angles[i] > 150 ? 150 : angles[i];
      double a = smooth(15, 120, bend);
      assert_close(get(f, "bicep.sy"), 1 + b * a);
      assert_close(get(f, "bicep.sz"), 1 + b * a);
      assert_close(get(f, "bicep.sx"), 1 - 0.3 * b * a);
      assert_int_equal(evals(f, n) - before, 1);
    }
    b = 0.5;
    set(f, "bicep.bulge", b);
  }
  assert_int_equal(faults_of(f, n), 0);
  /* the bicep's world matrix carries the scale */
  set(f, "elbow.rz", deg(120));
  sinew_mat4_t m;
  assert_int_equal(sinew_dag_world_matrix(f->g, bicep, &m), SINEW_OK);
  assert_close(m.m[1][1], 1 + 0.5);
}

/* Runtime faults: a defined value, a warning naming the node and line, counted; never a crash. */
static void test_node_runtime_faults(void **state) {
  fx *f = *state;
  mk(f, "probe", "src");
  mk(f, "probe", "p");
  mk(f, "probe", "other");
  sinew_node_t n = expr(f,
                        "p.x = 10 / src.x;\n"
                        "p.y = sqrt(src.y);\n"
                        "float $a[] = {1, 2};\n"
                        "p.z = $a[src.z] + 100;\n"
                        "p.ang = src.x * 1e308 * 1e10;",
                        NONE);
  expr(f, "other.x = src.y + 1;", NONE);
  set(f, "src.x", 2);
  set(f, "src.y", 4);
  assert_close(get(f, "p.x"), 5);
  assert_close(get(f, "p.y"), 2);
  assert_close(get(f, "p.z"), 101);
  double ang = get(f, "p.ang");
  assert_int_equal(faults_of(f, n), 1); /* the infinite output */
  int before = f->nlog[SINEW_LOG_EXPR_RUNTIME];
  set(f, "src.x", 0);
  set(f, "src.y", -1);
  set(f, "src.z", -1);
  assert_close(get(f, "p.x"), 0);
  assert_close(get(f, "p.y"), 0);
  assert_close(get(f, "p.z"), 100);
  assert_close(get(f, "p.ang"), 0); /* 0 * big is fine */
  assert_int_equal(f->nlog[SINEW_LOG_EXPR_RUNTIME] - before, 1); /* one warning per evaluation */
  expect_contains_log(f, "expression1");
  expect_contains_log(f, "line 1: division by zero");
  assert_int_equal(faults_of(f, n), 1 + 3);
  /* the rest of the graph goes on */
  assert_close(get(f, "other.x"), 0);
  set(f, "src.x", 1);
  set(f, "src.y", 9);
  set(f, "src.z", 1);
  assert_close(get(f, "p.x"), 10);
  assert_close(get(f, "p.y"), 3);
  assert_close(get(f, "p.z"), 102);
  assert_close(get(f, "other.x"), 10);
  assert_int_equal(faults_of(f, n), 4 + 1); /* the infinite output again */
  (void)ang;
}

/* ---- bad input: refused, the graph left as it was ----------------------------------------------- */

typedef struct snap_ctx {
  char *buf;
  size_t n, size;
  sinew_graph_t *g;
} snap_ctx;

static void snap_put(snap_ctx *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(s->buf + s->n, s->size - s->n, fmt, ap);
  va_end(ap);
  if (k > 0) s->n += (size_t)k < s->size - s->n ? (size_t)k : s->size - s->n - 1;
}

static bool snap_conn(void *ud, const sinew_connection_t *c) {
  snap_ctx *s = ud;
  char a[256], b[256];
  sinew_plug_format(s->g, &c->src, false, a, sizeof a);
  sinew_plug_format(s->g, &c->dst, false, b, sizeof b);
  snap_put(s, "%s -> %s%s\n", a, b, c->implicit ? " (implicit)" : "");
  return true;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every node, every connection and the numeric values people look at, as text. */
static void snapshot(fx *f, char *buf, size_t size) {
  snap_ctx s = {buf, 0, size, f->g};
  buf[0] = 0;
  sinew_node_t it = {0, 0};
  static const char *attrs[] = {"tx", "ty", "tz", "rx", "ry", "rz", "sx", "sy", "sz", "x", "y", "z", "ang", "ixp"};
  while (sinew_node_next(f->g, &it)) {
    snap_put(&s, "%s (%s):", sinew_node_name(f->g, it), sinew_node_type_name(sinew_node_type(f->g, it)));
    for (size_t k = 0; k < sizeof attrs / sizeof attrs[0]; k++) {
      sinew_plug_t p;
      if (sinew_plug_parse_attr(f->g, it, attrs[k], &p)) continue;
      const char *str;
      double v;
      if (k == sizeof attrs / sizeof attrs[0] - 1) {
        if (!sinew_get_string(f->g, &p, &str)) snap_put(&s, " %s=\"%s\"", attrs[k], str);
      } else if (!sinew_get_double(f->g, &p, &v)) {
        snap_put(&s, " %s=%.17g", attrs[k], v);
      }
    }
    snap_put(&s, "\n");
  }
  /* connections as a sorted list: a refused edit may make them again in another order */
  char *conns = malloc(size);
  assert_non_null(conns);
  snap_ctx c = {conns, 0, size, f->g};
  conns[0] = 0;
  sinew_foreach_connection(f->g, NONE, true, snap_conn, &c);
  char *lines[512];
  size_t n = 0;
  for (char *t = strtok(conns, "\n"); t && n < 512; t = strtok(NULL, "\n")) lines[n++] = t;
  qsort(lines, n, sizeof *lines, cmp_str);
  for (size_t i = 0; i < n; i++) snap_put(&s, "%s\n", lines[i]);
  free(conns);
}

static void expect_refused(fx *f, const char *text, sinew_node_t object, int want, const char *msg) {
  char before[16384], after[16384];
  snapshot(f, before, sizeof before);
  size_t count = sinew_node_count(f->g);
  sinew_expression_desc_t d = {.text = text, .object = object};
  sinew_node_t n = {7, 7};
  int rc = sinew_expression_create(f->g, &d, &n);
  if (rc != want) fail_msg("%s\n  gave %s (%s), not %s", text, sinew_err_name(rc), sinew_graph_errmsg(f->g), sinew_err_name(want));
  if (strncmp(sinew_graph_errmsg(f->g), msg, strlen(msg)) != 0)
    fail_msg("%s\n  message \"%s\" does not start with \"%s\"", text, sinew_graph_errmsg(f->g), msg);
  assert_int_equal(n.index, 7); /* the out-parameter is left alone */
  assert_int_equal(sinew_node_count(f->g), count);
  snapshot(f, after, sizeof after);
  if (strcmp(before, after) != 0) fail_msg("%s\n  changed the graph:\n%s\n--- became ---\n%s", text, before, after);
}

/* An expression node that loops forever logs an error and keeps its last values; the graph goes
 * on (the others evaluate), and the host's interrupt stops it the same way. */
static void test_node_bounded(void **state) {
  fx *f = *state;
  mk(f, "probe", "src");
  mk(f, "probe", "dst");
  mk(f, "probe", "other");
  sinew_node_t n = expr(f, "dst.y = src.x * 2;\nif (src.x > 5) { while (1) { dst.x = dst.x + 1; } }\ndst.x = src.x;", NONE);
  expr(f, "other.x = src.x + 100;", NONE);
  set(f, "src.x", 2);
  assert_close(get(f, "dst.x"), 2);
  assert_close(get(f, "dst.y"), 4);
  set(f, "src.x", 7);
  memset(f->nlog, 0, sizeof f->nlog);
  assert_close(get(f, "dst.x"), 2); /* the value before the endless run */
  assert_close(get(f, "dst.y"), 4); /* assigned before the loop, put back too */
  assert_int_equal(f->nlog[SINEW_LOG_EXPR_STOPPED], 1);
  expect_contains_log(f, "line 2: stopped: over the limit of 10000000 steps");
  expect_contains_log(f, "its outputs keep their last values");
  assert_close(get(f, "other.x"), 107); /* the graph goes on */
  uint64_t ev, faults;
  assert_int_equal(sinew_expression_stats(f->g, n, &ev, &faults), SINEW_OK);
  assert_int_equal(faults, 1);
  /* back in range: it runs again */
  set(f, "src.x", 3);
  assert_close(get(f, "dst.x"), 3);
  /* the host's interrupt, raised before the pull, is taken by the first compute that polls */
  set(f, "src.x", 8);
  sinew_graph_interrupt(f->g);
  memset(f->nlog, 0, sizeof f->nlog);
  assert_close(get(f, "dst.x"), 3);
  assert_int_equal(f->nlog[SINEW_LOG_EXPR_STOPPED], 1);
  expect_contains_log(f, "line 2: interrupted");
  /* taken: the flag does not stop the next one */
  set(f, "src.x", 4);
  assert_close(get(f, "dst.x"), 4);
}

static void test_node_bad_input(void **state) {
  fx *f = *state;
  sinew_node_t p = mk(f, "probe", "p");
  mk(f, "probe", "q");
  mk(f, "probe", "src");
  mk(f, "joint", "j");
  set(f, "p.x", 1.5);
  set(f, "q.y", 2.5);
  sinew_plug_t sx = P(f, "src.x"), py = P(f, "p.y");
  assert_int_equal(sinew_connect(f->g, &sx, &py, 0, NULL), SINEW_OK);
  expr(f, "q.x = p.x;", NONE); /* for the cycle below */
  expect_refused(f, "p.z = ;", NONE, SINEW_ESYNTAX, "expression: line 1, column 7:");
  expect_refused(f, "p.z = 1;\n  q.z = (;", NONE, SINEW_ESYNTAX, "expression: line 2, column 10:");
  expect_refused(f, "nosuch.tx = 1;", NONE, SINEW_ENOTFOUND, "expression: line 1, column 1: no such node: nosuch.tx");
  expect_refused(f, "p.z = 1;\n  q.z = p.nope * 2;", NONE, SINEW_ENOTFOUND,
                 "expression: line 2, column 9: no such attribute: p.nope");
  expect_refused(f, "tx = 1;", NONE, SINEW_ENOTFOUND, "expression: line 1, column 1: 'tx' names no object");
  expect_refused(f, "q.z = 1; nope = 2;", p, SINEW_ENOTFOUND, "expression: line 1, column 10: no such attribute: nope");
  expect_refused(f, "q.z = 1; p.result = 1;", NONE, SINEW_EREADONLY, "expression: line 1, column 10: cannot write p.result:");
  expect_refused(f, "q.z = 1; p.y = 1;", NONE, SINEW_ECONNECTED, "expression: line 1, column 10: cannot write p.y:");
  expect_refused(f, "p.list = 1;", NONE, SINEW_ETYPE, "expression: line 1, column 1: p.list is an array");
  expect_refused(f, "p.z = p.words;", NONE, SINEW_ETYPE, "expression: line 1, column 7: p.words is string");
  expect_refused(f, "j.worldMatrix[0] = 1;", NONE, SINEW_ETYPE, "expression: line 1, column 1: j.worldMatrix[0] is matrix");
  expect_refused(f, "q.z = 1; p.x = q.x;", NONE, SINEW_ECYCLE, "expression: line 1, column 16: cannot read q.x:");
  expect_refused(f, "p.x = p.result;", NONE, SINEW_ECYCLE, "expression: line 1, column 7: cannot read p.result:");
  expect_refused(f, "j.tx = 1; matrix $m[4][4] = j.worldMatrix[0];", NONE, SINEW_ECYCLE, "expression: line 1, column ");
  expect_refused(f, ".O[0] = .I[0];", NONE, SINEW_EINVAL, "expression: line 1, column 1: .O[0]: use attribute names");
  expect_refused(f, "p.z = setAttr(1);", NONE, SINEW_ESYNTAX, "expression: line 1, column 7: unknown function setAttr");
  /* the ones that are fine still work afterwards, and the first name is reused */
  sinew_node_t n = expr(f, "p.z = q.y * 2;", NONE);
  assert_string_equal(sinew_node_name(f->g, n), "expression2");
  assert_close(get(f, "p.z"), 5);
  sinew_expression_desc_t d = {.text = NULL};
  assert_int_equal(sinew_expression_create(f->g, &d, &n), SINEW_EINVAL);
  assert_int_equal(sinew_expression_stats(f->g, p, NULL, NULL), SINEW_ETYPE);
}

/* expression -e -s: the connections follow the new text, all or nothing. */
static void test_set_text(void **state) {
  fx *f = *state;
  mk(f, "probe", "p");
  mk(f, "probe", "q");
  sinew_node_t n = expr(f, "q.x = p.x * 2;", NONE);
  set(f, "p.x", 3);
  set(f, "p.y", 4);
  set(f, "p.z", 5);
  assert_close(get(f, "q.x"), 6);
  assert_int_equal(sinew_expression_set_text(f->g, n, "q.y = p.y + p.z;\nq.z = 1;", NONE), SINEW_OK);
  assert_string_equal(get_str(f, "expression1.ixp"), ".O[0] = .I[0] + .I[1];\n.O[1] = 1;");
  expect_source(f, "q.x", "");
  expect_source(f, "q.y", "expression1.output[0]");
  expect_source(f, "q.z", "expression1.output[1]");
  expect_source(f, "expression1.in[0]", "p.y");
  expect_source(f, "expression1.in[1]", "p.z");
  assert_close(get(f, "q.x"), 6); /* keeps its last value */
  assert_close(get(f, "q.y"), 9);
  assert_close(get(f, "q.z"), 1);
  set(f, "p.x", 100);
  assert_close(get(f, "q.x"), 6);
  assert_string_equal(get_str(f, "expression1.expression"), "q.y = p.y + p.z;\nq.z = 1;");
  /* failures leave everything as it was */
  char before[16384], after[16384];
  snapshot(f, before, sizeof before);
  const char *bad[] = {"q.y = ;", "q.y = p.nope;", "p.x = q.x;\nq.z = p.result;", "p.result = 2;", "q.y = p.result;\np.x = q.z + 1;"};
  int want[] = {SINEW_ESYNTAX, SINEW_ENOTFOUND, SINEW_ECYCLE, SINEW_EREADONLY, SINEW_ECYCLE};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int rc = sinew_expression_set_text(f->g, n, bad[i], NONE);
    if (rc != want[i]) fail_msg("%s: %s (%s)", bad[i], sinew_err_name(rc), sinew_graph_errmsg(f->g));
    snapshot(f, after, sizeof after);
    if (strcmp(before, after) != 0) fail_msg("%s\n  changed the graph:\n%s\n--- became ---\n%s", bad[i], before, after);
  }
  set(f, "p.y", 10);
  assert_close(get(f, "q.y"), 15);
  /* a node that is not an expression */
  sinew_node_t q;
  assert_int_equal(sinew_node_find(f->g, "q", &q), SINEW_OK);
  assert_int_equal(sinew_expression_set_text(f->g, q, "q.x = 1;", NONE), SINEW_ETYPE);
  /* a default object given with the new text */
  sinew_node_t p;
  assert_int_equal(sinew_node_find(f->g, "p", &p), SINEW_OK);
  assert_int_equal(sinew_expression_set_text(f->g, n, "q.x = x + y;", p), SINEW_OK);
  expect_source(f, "expression1.objectMsg", "p.message");
  assert_close(get(f, "q.x"), 110);
}

/* Out of memory at every allocation of sinew_expression_create: SINEW_ENOMEM, the graph as it
 * was, no leak; and a pull that runs out of memory recovers on the next one. */
static void test_node_out_of_memory(void **state) {
  (void)state;
  const char *text = "float $k = 2; q.x = p.x * $k + time; q.y = p.y; matrix $m[4][4] = j.wm[0]; q.z = $m[3][0];";
  bool done = false;
  for (long k = 1; !done; k++) {
    test_alloc_install();
    fx f0 = {0}, *f = &f0;
    assert_int_equal(sinew_scene_create(NULL, &f->g), SINEW_OK);
    assert_int_equal(sinew_lang_register_types(f->g), SINEW_OK);
    register_probe(f->g);
    mk(f, "probe", "p");
    mk(f, "probe", "q");
    mk(f, "joint", "j");
    set(f, "p.x", 1);
    set(f, "j.tx", 4);
    char before[16384], after[16384];
    snapshot(f, before, sizeof before);
    sinew_expression_desc_t d = {.text = text};
    sinew_node_t n;
    test_alloc_reset();
    test_alloc_fail_at(k);
    int rc = sinew_expression_create(f->g, &d, &n);
    long made = test_alloc_count();
    test_alloc_fail_at(0);
    if (rc == SINEW_OK) {
      assert_close(get(f, "q.x"), 2);
      assert_close(get(f, "q.z"), 4);
      done = made < k;
    } else {
      if (rc != SINEW_ENOMEM) fail_msg("allocation %ld: %s (%s)", k, sinew_err_name(rc), sinew_graph_errmsg(f->g));
      snapshot(f, after, sizeof after);
      if (strcmp(before, after) != 0) fail_msg("allocation %ld changed the graph:\n%s\n--- became ---\n%s", k, before, after);
    }
    sinew_graph_destroy(f->g);
    if (test_alloc_live() != 0) fail_msg("allocation %ld: %ld blocks leaked", k, test_alloc_live());
    test_alloc_uninstall();
    if (k > 20000) fail_msg("no end to the allocations");
  }
  /* pulling (compiling ixp, running) under out-of-memory */
  done = false;
  for (long k = 1; !done; k++) {
    test_alloc_install();
    fx f0 = {0}, *f = &f0;
    assert_int_equal(sinew_scene_create(NULL, &f->g), SINEW_OK);
    register_probe(f->g);
    mk(f, "probe", "p");
    mk(f, "probe", "q");
    mk(f, "joint", "j");
    set(f, "j.tx", 4);
    set(f, "p.x", 3);
    expr(f, text, NONE);
    /* a fresh node state: reload the stored text */
    sinew_plug_t ixp = P(f, "expression1.ixp");
    const char *cur;
    assert_int_equal(sinew_get_string(f->g, &ixp, &cur), SINEW_OK);
    char copy[512];
    snprintf(copy, sizeof copy, "%s ", cur);
    assert_int_equal(sinew_set_string(f->g, &ixp, copy), SINEW_OK);
    sinew_plug_t qx = P(f, "q.x");
    double v = 0;
    test_alloc_reset();
    test_alloc_fail_at(k);
    int rc = sinew_get_double(f->g, &qx, &v);
    long made = test_alloc_count();
    test_alloc_fail_at(0);
    if (rc == SINEW_OK && made < k) done = true;
    assert_true(rc == SINEW_OK || rc == SINEW_ENOMEM);
    set(f, "p.x", 5); /* whatever happened, the next change evaluates right */
    assert_close(get(f, "q.x"), 10);
    assert_close(get(f, "q.z"), 4);
    sinew_graph_destroy(f->g);
    if (test_alloc_live() != 0) fail_msg("pull, allocation %ld: %ld blocks leaked", k, test_alloc_live());
    test_alloc_uninstall();
    if (k > 20000) fail_msg("no end to the allocations");
  }
}

/* Graphs on different threads evaluate expressions that sort and use noise at the same time
 * (the built-ins keep no unsynchronised global state); each gets the single-threaded answers. */
#define THREAD_FRAMES 300
static const char *THREAD_TEXT =
    "float $a[] = {5, 3, frame, 1, -frame}; $a = sort($a);\n"
    "p.x = $a[0] + $a[2] * 10 + noise(time * 3.7) + noise(<<frame, 1.5, time>>);";

typedef struct thread_job {
  sinew_graph_t *g;
  double want[THREAD_FRAMES];
  int bad;
} thread_job;

static void *thread_main(void *arg) {
  thread_job *j = arg;
  sinew_plug_t px;
  if (sinew_plug_parse(j->g, "p.x", (sinew_node_t){0, 0}, &px)) {
    j->bad = -1;
    return NULL;
  }
  for (int round = 0; round < 3; round++)
    for (int i = 0; i < THREAD_FRAMES; i++) {
      double v = NAN;
      sinew_time_set_frame(j->g, i);
      if (sinew_get_double(j->g, &px, &v) || v != j->want[i]) j->bad++;
    }
  return NULL;
}

static void test_threads(void **state) {
  (void)state;
  thread_job jobs[2];
  sinew_expr_t *e = compile(THREAD_TEXT);
  for (int i = 0; i < THREAD_FRAMES; i++) {
    double out = 0;
    sinew_expr_io_t io = {.outputs = &out, .noutputs = 1, .time_seconds = i / 24.0, .frame = i};
    assert_int_equal(sinew_expr_eval(e, &io, NULL, NULL, 0), SINEW_OK);
    jobs[0].want[i] = jobs[1].want[i] = out;
  }
  sinew_expr_destroy(e);
  for (int k = 0; k < 2; k++) {
    jobs[k].bad = 0;
    assert_int_equal(sinew_scene_create(NULL, &jobs[k].g), SINEW_OK);
    register_probe(jobs[k].g);
    sinew_node_t p, n;
    assert_int_equal(sinew_node_create(jobs[k].g, "probe", "p", &p), SINEW_OK);
    sinew_expression_desc_t d = {.text = THREAD_TEXT};
    assert_int_equal(sinew_expression_create(jobs[k].g, &d, &n), SINEW_OK);
  }
  pthread_t t[2];
  for (int k = 0; k < 2; k++) assert_int_equal(pthread_create(&t[k], NULL, thread_main, &jobs[k]), 0);
  for (int k = 0; k < 2; k++) {
    assert_int_equal(pthread_join(t[k], NULL), 0);
    assert_int_equal(jobs[k].bad, 0);
    sinew_graph_destroy(jobs[k].g);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_compile_refs),
      cmocka_unit_test(test_eval_direct),
      cmocka_unit_test(test_eval_bounded),
      cmocka_unit_test_setup_teardown(test_node_connections, setup, teardown),
      cmocka_unit_test_setup_teardown(test_node_evaluation_counts, setup, teardown),
      cmocka_unit_test_setup_teardown(test_node_variables, setup, teardown),
      cmocka_unit_test_setup_teardown(test_node_units, setup, teardown),
      cmocka_unit_test_setup_teardown(test_node_rewired, setup, teardown),
      cmocka_unit_test_setup_teardown(test_node_time, setup, teardown),
      cmocka_unit_test_setup_teardown(test_node_matrix_input, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bicep_bulge, setup, teardown),
      cmocka_unit_test_setup_teardown(test_node_runtime_faults, setup, teardown),
      cmocka_unit_test_setup_teardown(test_node_bounded, setup, teardown),
      cmocka_unit_test_setup_teardown(test_node_bad_input, setup, teardown),
      cmocka_unit_test_setup_teardown(test_set_text, setup, teardown),
      cmocka_unit_test(test_node_out_of_memory),
      cmocka_unit_test(test_threads),
  };
  return cmocka_run_group_tests_name("expression", tests, NULL, NULL);
}
