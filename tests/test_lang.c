/* tests/test_lang.c: the MEL-subset language in script mode (lang/, docs/lang.md, spec 7.2):
 * literals and types, MEL's conversions, operators and precedence, statements, procedures,
 * globals, command syntax with flag parsing (through small test commands), every built-in
 * function checked against the same computation in C, print, and the errors: syntax errors
 * that run nothing, failing and unknown commands, keep-going mode, runaway recursion and
 * nesting, and out-of-memory at every allocation of a small script. Then what real scripts
 * need: command syntax with parenthesised expressions as words (setAttr ($n + ".tx") 10),
 * MEL's implicit declarations and scopes, catch / error / warning, the language commands
 * (source, exists, whatIs, about, optionVar, getenv / putenv, UI commands refused) and Maya's
 * string-array procedures. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <uv.h>

#include "sinew/sinew.h"
#include "sinew/lang.h"
#include "tests/support.h"

static const double PI = 3.14159265358979323846;

/* ---- fixture: a scene, a language context, a print hook, a logger and test commands --------- */

typedef struct fx {
  sinew_graph_t *g;
  sinew_lang_t *L;
  sinew_value_t res;
  char out[8192]; /* what print wrote */
  size_t nout;
  int counter;    /* calls of the "counter" command */
  char rec[2048]; /* what the last "tcmd" call received */
  double dist, angle, time;
  int nlog[SINEW_LOG_ID_MAX];
  char lastlog[1024];
} fx;

static void print_hook(void *ud, const char *text) {
  fx *f = ud;
  size_t n = strlen(text);
  if (f->nout + n < sizeof f->out) {
    memcpy(f->out + f->nout, text, n + 1);
    f->nout += n;
  }
}

static void logger(void *ud, sinew_log_level_t level, sinew_log_id_t id, const char *msg) {
  fx *f = ud;
  (void)level;
  if (id < SINEW_LOG_ID_MAX) f->nlog[id]++;
  snprintf(f->lastlog, sizeof f->lastlog, "%s", msg);
}

static const sinew_cmd_flag_t tcmd_flags[] = {
    {"name", "n", "s", 0},
    {"count", "c", "i", 0},
    {"scale", "sc", "f", 0},
    {"visible", "vis", "b", 0},
    {"dist", "d", "l", 0},
    {"angle", "a", "a", 0},
    {"time", "t", "t", 0},
    {"pair", "p", "ff", 0},
    {"item", "it", "s", SINEW_CMD_MULTI},
    {"value", "v", "v", 0},
    {"weight", "w", "f", SINEW_CMD_QUERY_ARGS},
    {"query", "q", "", SINEW_CMD_QUERY},
    {"edit", "e", "", SINEW_CMD_EDIT},
};

static void rec_value(char *buf, size_t size, const sinew_value_t *v) {
  char t[256];
  sinew_value_format(v, t, sizeof t);
  size_t n = strlen(buf);
  snprintf(buf + n, size - n, " %s%s:%s", v->word ? "w" : "", sinew_value_kind_name(v->kind), t);
}

/* Records its positional arguments and flags: "Q E pos: string:a int:5 | -name string:x". */
static int tcmd_fn(sinew_cmd_t *c) {
  fx *f = sinew_cmd_user_data(c);
  char *r = f->rec;
  snprintf(r, sizeof f->rec, "%s%spos:", sinew_cmd_query(c) ? "Q " : "", sinew_cmd_edit(c) ? "E " : "");
  for (size_t i = 0; i < sinew_cmd_argc(c); i++) rec_value(r, sizeof f->rec, sinew_cmd_arg(c, i));
  size_t n = strlen(r);
  snprintf(r + n, sizeof f->rec - n, " |");
  for (size_t k = 0; k < sizeof tcmd_flags / sizeof tcmd_flags[0]; k++) {
    const char *name = tcmd_flags[k].name;
    for (size_t occ = 0; occ < sinew_cmd_flag_count(c, name); occ++) {
      n = strlen(r);
      snprintf(r + n, sizeof f->rec - n, " -%s", name);
      const sinew_value_t *v;
      for (size_t a = 0; (v = sinew_cmd_flag_arg(c, name, occ, a)); a++) rec_value(r, sizeof f->rec, v);
    }
  }
  f->dist = sinew_cmd_flag_double(c, "d", 0, NAN);
  f->angle = sinew_cmd_flag_double(c, "angle", 0, NAN);
  f->time = sinew_cmd_flag_double(c, "t", 0, NAN);
  return sinew_cmd_result_int(c, (int64_t)sinew_cmd_argc(c));
}

static int counter_fn(sinew_cmd_t *c) {
  fx *f = sinew_cmd_user_data(c);
  f->counter++;
  return sinew_cmd_result_int(c, f->counter);
}

/* echo: its first positional argument as a string; several: a string array. */
static int echo_fn(sinew_cmd_t *c) {
  size_t n = sinew_cmd_argc(c);
  if (n == 1) return sinew_cmd_result_string(c, sinew_cmd_arg_string(c, 0));
  int rc = sinew_cmd_result_empty_array(c, SINEW_VALUE_STRING_ARRAY);
  for (size_t i = 0; i < n && !rc; i++) rc = sinew_cmd_result_append_string(c, sinew_cmd_arg_string(c, i));
  return rc;
}

static int fail_fn(sinew_cmd_t *c) {
  const char *a = sinew_cmd_arg_string(c, 0);
  return sinew_cmd_error(c, SINEW_EINVAL, "boom %s", a ? a : "");
}

/* gfail: fails through the graph's last error, whose operation is the command itself when the
 * argument is "own", and which has no operation otherwise. */
static int gfail_fn(sinew_cmd_t *c) {
  const char *a = sinew_cmd_arg_string(c, 0);
  bool own = a && strcmp(a, "own") == 0;
  if (own) sinew_graph_fail(sinew_cmd_graph(c), SINEW_ELOCKED, "gfail", "j.tx is locked");
  else sinew_graph_set_error(sinew_cmd_graph(c), SINEW_ELOCKED, "j.tx is locked");
  return sinew_cmd_graph_error(c, SINEW_ELOCKED);
}

static const sinew_cmd_flag_t echo_flags[] = {{"flag", "f", "", 0}};

static void register_commands(fx *f) {
  sinew_cmd_desc_t d[] = {
      {.name = "tcmd", .fn = tcmd_fn, .flags = tcmd_flags,
       .flag_count = sizeof tcmd_flags / sizeof tcmd_flags[0], .user_data = f},
      {.name = "counter", .fn = counter_fn, .user_data = f},
      {.name = "echo", .fn = echo_fn, .flags = echo_flags, .flag_count = 1, .user_data = f},
      {.name = "fail", .fn = fail_fn, .user_data = f},
      {.name = "gfail", .fn = gfail_fn, .user_data = f},
  };
  for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
    assert_int_equal(sinew_lang_register_command(f->L, &d[i]), SINEW_OK);
}

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  if (!f) return -1;
  if (sinew_scene_create(NULL, &f->g)) return -1;
  sinew_graph_set_logger(f->g, logger, f);
  sinew_lang_desc_t d = {.print = print_hook, .user_data = f};
  if (sinew_lang_create(f->g, &d, &f->L)) return -1;
  register_commands(f);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  sinew_value_clear(&f->res);
  sinew_lang_destroy(f->L);
  sinew_graph_destroy(f->g);
  free(f);
  return 0;
}

/* ---- running and checking -------------------------------------------------------------------- */

static int run(fx *f, const char *src) {
  sinew_value_clear(&f->res);
  return sinew_lang_run(f->L, src, strlen(src), "test.mel", &f->res);
}

static void run_ok(fx *f, const char *src) {
  int rc = run(f, src);
  if (rc) fail_msg("%s\n  failed (%s): %s", src, sinew_err_name(rc), sinew_lang_errmsg(f->L));
}

static void expect_kind(fx *f, const char *src, sinew_value_kind_t kind) {
  if (f->res.kind != kind)
    fail_msg("%s\n  gave a %s, not a %s", src, sinew_value_kind_name(f->res.kind),
             sinew_value_kind_name(kind));
}

static void expect_int(fx *f, const char *src, int64_t want) {
  run_ok(f, src);
  expect_kind(f, src, SINEW_VALUE_INT);
  if (f->res.as.i != want) fail_msg("%s\n  gave %lld, not %lld", src, (long long)f->res.as.i, (long long)want);
}

static bool close_to(double a, double b, double tol) {
  return fabs(a - b) <= tol * (fabs(b) > 1 ? fabs(b) : 1);
}

static void expect_float(fx *f, const char *src, double want) {
  run_ok(f, src);
  expect_kind(f, src, SINEW_VALUE_FLOAT);
  if (!close_to(f->res.as.f, want, 1e-12)) fail_msg("%s\n  gave %.17g, not %.17g", src, f->res.as.f, want);
}

static void expect_str(fx *f, const char *src, const char *want) {
  run_ok(f, src);
  expect_kind(f, src, SINEW_VALUE_STRING);
  if (strcmp(sinew_value_string(&f->res), want) != 0)
    fail_msg("%s\n  gave \"%s\", not \"%s\"", src, sinew_value_string(&f->res), want);
}

static void expect_vec(fx *f, const char *src, double x, double y, double z) {
  run_ok(f, src);
  expect_kind(f, src, SINEW_VALUE_VECTOR);
  const double *v = f->res.as.v;
  if (!close_to(v[0], x, 1e-12) || !close_to(v[1], y, 1e-12) || !close_to(v[2], z, 1e-12))
    fail_msg("%s\n  gave <<%.17g, %.17g, %.17g>>, not <<%.17g, %.17g, %.17g>>", src, v[0], v[1], v[2], x, y, z);
}

/* The script fails with status want and a message that starts with prefix. */
static void expect_error(fx *f, const char *src, int want, const char *prefix) {
  int rc = run(f, src);
  if (rc != want)
    fail_msg("%s\n  gave %s (%s), not %s", src, sinew_err_name(rc), sinew_lang_errmsg(f->L), sinew_err_name(want));
  if (prefix && strncmp(sinew_lang_errmsg(f->L), prefix, strlen(prefix)) != 0)
    fail_msg("%s\n  message \"%s\" does not start with \"%s\"", src, sinew_lang_errmsg(f->L), prefix);
}

static void expect_contains(const char *text, const char *part) {
  if (!strstr(text, part)) fail_msg("\"%s\" does not contain \"%s\"", text, part);
}

/* ---- literals and types ------------------------------------------------------------------------ */

static void test_literals(void **state) {
  fx *f = *state;
  expect_int(f, "7;", 7);
  expect_int(f, "-3;", -3);
  expect_int(f, "0x1F;", 31);
  expect_int(f, "9000000000;", 9000000000LL);
  expect_int(f, "true;", 1);
  expect_int(f, "false;", 0);
  expect_int(f, "on;", 1);
  expect_int(f, "off;", 0);
  expect_int(f, "yes;", 1);
  expect_int(f, "no;", 0);
  expect_float(f, "1.5;", 1.5);
  expect_float(f, "1e-005;", 1e-5);
  expect_float(f, ".5;", 0.5);
  expect_float(f, "2.;", 2.0);
  expect_float(f, "-2.5e3;", -2500);
  expect_str(f, "\"plain\";", "plain");
  expect_str(f, "\"a\\tb\\n\";", "a\tb\n");
  expect_str(f, "\"q\\\"q\";", "q\"q");
  expect_str(f, "\"back\\\\slash\";", "back\\slash");
  expect_str(f, "\"cr\\r\";", "cr\r");
  expect_str(f, "\"\";", "");
  expect_str(f, "\"// not a comment\";", "// not a comment");
  expect_int(f, "/* a comment */ 4 // another\n;", 4);
  expect_vec(f, "<<1, 2, 3>>;", 1, 2, 3);
  expect_vec(f, "<<1.5, -2, 3 + 4>>;", 1.5, -2, 7);
  expect_vec(f, "vector $v = <<1, 2, 3>>; $v;", 1, 2, 3);
  expect_float(f, "vector $v = <<1, 2, 3>>; $v.y;", 2);
  expect_float(f, "vector $v = <<1, 2, 3>>; $v.x + $v.z;", 4);

  run_ok(f, "int $a[] = {1, 2, 3}; $a;");
  expect_kind(f, "{1, 2, 3}", SINEW_VALUE_INT_ARRAY);
  assert_int_equal(sinew_value_count(&f->res), 3);
  assert_true(sinew_value_double_at(&f->res, 2) == 3);
  run_ok(f, "$x = {1, 2.5};");
  expect_kind(f, "{1, 2.5}", SINEW_VALUE_FLOAT_ARRAY);
  assert_true(sinew_value_double_at(&f->res, 1) == 2.5);
  run_ok(f, "$x = {\"a\", \"b\"};");
  expect_kind(f, "{\"a\", \"b\"}", SINEW_VALUE_STRING_ARRAY);
  assert_string_equal(sinew_value_string_at(&f->res, 1), "b");
  run_ok(f, "$x = {<<1, 2, 3>>, <<4, 5, 6>>};");
  expect_kind(f, "vector array", SINEW_VALUE_VECTOR_ARRAY);
  assert_int_equal(sinew_value_count(&f->res), 2);

  run_ok(f, "matrix $m[2][3] = <<1, 2, 3; 4, 5, 6>>; $m;");
  expect_kind(f, "matrix", SINEW_VALUE_MATRIX);
  assert_int_equal(sinew_value_count(&f->res), 6);
  for (int i = 0; i < 6; i++) assert_true(sinew_value_double_at(&f->res, (size_t)i) == i + 1);
  expect_float(f, "matrix $m[2][2] = <<1, 2; 3, 4>>; $m[1][0];", 3);
  expect_float(f, "matrix $m[4][4]; $m[3][3];", 0);
  expect_float(f, "matrix $m[2][2]; $m[0][1] = 7; $m[0][1];", 7);

  /* typed declarations and their zero values */
  expect_int(f, "int $i; $i;", 0);
  expect_float(f, "float $x; $x;", 0);
  expect_str(f, "string $s; $s;", "");
  expect_vec(f, "vector $v; $v;", 0, 0, 0);
  expect_int(f, "int $a[]; size($a);", 0);
  expect_int(f, "int $a[5]; size($a);", 5);
  expect_int(f, "int $a = 1, $b = 2, $c[]; $c[1] = $a + $b; $c[1];", 3);
}

/* ---- MEL's conversions ------------------------------------------------------------------------- */

static void test_conversions(void **state) {
  fx *f = *state;
  expect_int(f, "7 / 2;", 3);
  expect_int(f, "-7 / 2;", -3);
  expect_int(f, "7 / 2 * 2;", 6);
  expect_float(f, "7.0 / 2;", 3.5);
  expect_float(f, "7 / 2.0;", 3.5);
  expect_float(f, "float $f = 7 / 2; $f;", 3);
  expect_int(f, "7 % 3;", 1);
  expect_int(f, "-7 % 3;", -1);
  expect_float(f, "7.5 % 2;", 1.5);
  expect_vec(f, "2 + <<1, 2, 3>>;", 3, 4, 5);
  expect_vec(f, "<<1, 2, 3>> * 2;", 2, 4, 6);
  expect_vec(f, "<<2, 4, 6>> / 2;", 1, 2, 3);
  expect_vec(f, "<<1, 2, 3>> - <<1, 1, 1>>;", 0, 1, 2);
  expect_vec(f, "-<<1, 2, 3>>;", -1, -2, -3);
  expect_float(f, "<<1, 2, 3>> * <<4, 5, 6>>;", 32);
  expect_vec(f, "<<1, 0, 0>> ^ <<0, 1, 0>>;", 0, 0, 1);
  expect_vec(f, "<<1, 2, 3>> ^ <<4, 5, 6>>;", 2 * 6 - 3 * 5, 3 * 4 - 1 * 6, 1 * 5 - 2 * 4);
  expect_str(f, "\"500\" + 5;", "5005");
  expect_str(f, "5 + \"500\";", "5500");
  expect_str(f, "\"a\" + 1 + 2;", "a12");
  expect_str(f, "1 + 2 + \"a\";", "3a");
  expect_str(f, "\"x\" + 0.5;", "x0.5");
  expect_str(f, "\"v: \" + <<1, 2, 3>>;", "v: 1 2 3");
  /* assignment converts to the variable's type */
  expect_int(f, "int $i = 3.7; $i;", 3);
  expect_int(f, "int $i = -3.7; $i;", -3);
  expect_int(f, "int $i; $i = 9.99; $i;", 9);
  expect_float(f, "float $f = 3; $f;", 3);
  expect_float(f, "float $f = <<3, 4, 0>>; $f;", 5);
  expect_vec(f, "vector $v = 2; $v;", 2, 2, 2);
  expect_float(f, "float $f = \"2.5abc\"; $f;", 2.5);
  expect_int(f, "int $i = \"42\"; $i;", 42);
  expect_int(f, "int $i = \"nope\"; $i;", 0);
  expect_str(f, "string $s = 47; $s;", "47");
  expect_str(f, "string $s = 0.25; $s;", "0.25");
  /* an undeclared variable takes the type of its first value */
  expect_int(f, "$x = 5; $x = 2.5; $x;", 2);
  expect_str(f, "$s = \"a\"; $s = 3; $s;", "3");
  /* casts */
  expect_float(f, "(float) 7;", 7);
  expect_int(f, "int(3.67);", 3);
  expect_int(f, "(int) -3.67;", -3);
  expect_str(f, "(string) 47.5;", "47.5");
  expect_vec(f, "(vector) \"<<1, 2, 3>>\";", 1, 2, 3);
  expect_float(f, "float(\"1.25\");", 1.25);
  /* vector * matrix: the point with w = 1, row-vector convention */
  expect_vec(f,
             "matrix $m[4][4] = <<1, 0, 0, 0; 0, 1, 0, 0; 0, 0, 1, 0; 10, 20, 30, 1>>;"
             "<<1, 2, 3>> * $m;",
             11, 22, 33);
  expect_vec(f,
             "matrix $m[4][4] = <<0, 1, 0, 0; -1, 0, 0, 0; 0, 0, 1, 0; 0, 0, 0, 1>>;"
             "<<1, 0, 0>> * $m;",
             0, 1, 0);
  run_ok(f, "matrix $a[2][2] = <<1, 2; 3, 4>>; matrix $b[2][2] = <<5, 6; 7, 8>>; $a * $b;");
  expect_kind(f, "matrix product", SINEW_VALUE_MATRIX);
  double want[4] = {19, 22, 43, 50};
  for (int i = 0; i < 4; i++) assert_true(sinew_value_double_at(&f->res, (size_t)i) == want[i]);
  run_ok(f, "matrix $a[2][2] = <<1, 2; 3, 4>>; $a * 2;");
  assert_true(sinew_value_double_at(&f->res, 3) == 8);
}

/* ---- operators and precedence ------------------------------------------------------------------ */

static void test_operators(void **state) {
  fx *f = *state;
  expect_int(f, "1 + 2 * 3;", 7);
  expect_int(f, "(1 + 2) * 3;", 9);
  expect_int(f, "10 - 4 - 3;", 3);
  expect_int(f, "100 / 10 / 5;", 2);
  expect_int(f, "2 * 3 % 4;", 2);
  expect_int(f, "-2 * 3;", -6);
  expect_int(f, "- -2;", 2);
  expect_int(f, "1 - -1;", 2);
  expect_int(f, "+3;", 3);
  expect_int(f, "!0;", 1);
  expect_int(f, "!5;", 0);
  expect_int(f, "!1 == 0;", 1);
  expect_int(f, "1 < 2;", 1);
  expect_int(f, "2 <= 2;", 1);
  expect_int(f, "3 > 4;", 0);
  expect_int(f, "5 >= 5;", 1);
  expect_int(f, "1 == 1.0;", 1);
  expect_int(f, "1 != 2;", 1);
  expect_int(f, "1 + 1 == 2;", 1);
  expect_int(f, "1 < 2 == 1;", 1);
  expect_int(f, "\"abc\" == \"abc\";", 1);
  expect_int(f, "\"abc\" != \"abd\";", 1);
  expect_int(f, "\"a\" < \"b\";", 1);
  expect_int(f, "<<1, 2, 3>> == <<1, 2, 3>>;", 1);
  expect_int(f, "<<1, 2, 3>> != <<1, 2, 4>>;", 1);
  expect_int(f, "1 || 0 && 0;", 1);
  expect_int(f, "(1 || 0) && 0;", 0);
  expect_int(f, "0 || 0;", 0);
  expect_int(f, "2 && 3;", 1);
  expect_int(f, "1 < 2 && 3 > 2;", 1);
  expect_int(f, "1 ? 2 : 3;", 2);
  expect_int(f, "0 ? 2 : 3;", 3);
  expect_int(f, "0 ? 1 : 0 ? 2 : 3;", 3);
  expect_int(f, "1 + 1 > 1 ? 10 : 20;", 10);
  expect_str(f, "\"\" ? \"t\" : \"f\";", "f");
  /* assignment operators and their values */
  expect_int(f, "int $a; int $b; $a = $b = 3; $a + $b;", 6);
  expect_int(f, "int $a = 10; $a += 5; $a;", 15);
  expect_int(f, "int $a = 10; $a -= 5; $a;", 5);
  expect_int(f, "int $a = 10; $a *= 5; $a;", 50);
  expect_int(f, "int $a = 10; $a /= 4; $a;", 2);
  expect_float(f, "float $a = 10; $a /= 4; $a;", 2.5);
  expect_str(f, "string $s = \"a\"; $s += \"b\"; $s;", "ab");
  expect_int(f, "int $a = 10; ($a += 1) * 2;", 22);
  expect_int(f, "int $i = 5; $i++;", 5);
  expect_int(f, "int $i = 5; $i++; $i;", 6);
  expect_int(f, "int $i = 5; ++$i;", 6);
  expect_int(f, "int $i = 5; $i--; $i;", 4);
  expect_int(f, "int $i = 5; --$i;", 4);
  expect_float(f, "float $x = 0.5; $x++; $x;", 1.5);
  expect_int(f, "int $a[] = {1, 2}; $a[1]++; $a[1];", 3);
  expect_int(f, "int $a[] = {1, 2}; $a[0] += 10; $a[0];", 11);
  expect_float(f, "vector $v = <<1, 2, 3>>; $v.x = 9; $v.x + $v.y;", 11);
  expect_vec(f, "vector $v = <<1, 2, 3>>; $v.y += 10; $v.z *= 2; $v;", 1, 12, 6);
  /* && and || stop early: counter does not run */
  f->counter = 0;
  expect_int(f, "0 && `counter`;", 0);
  expect_int(f, "1 || `counter`;", 1);
  assert_int_equal(f->counter, 0);
  expect_int(f, "1 && `counter`;", 1);
  assert_int_equal(f->counter, 1);
  expect_int(f, "1 ? 5 : `counter`;", 5);
  assert_int_equal(f->counter, 1);
  /* integer overflow wraps instead of being undefined */
  expect_int(f, "9223372036854775807 + 1;", INT64_MIN);
  expect_int(f, "-9223372036854775807 - 1;", INT64_MIN);
  expect_int(f, "(-9223372036854775807 - 1) / -1;", INT64_MIN);
}

/* ---- statements ---------------------------------------------------------------------------------- */

static void test_control_flow(void **state) {
  fx *f = *state;
  expect_int(f, "int $r; if (1) $r = 1; else $r = 2; $r;", 1);
  expect_int(f, "int $r; if (0) $r = 1; else $r = 2; $r;", 2);
  expect_int(f, "int $r = 0; if (0) $r = 1; $r;", 0);
  expect_int(f,
             "int $r, $x = 5;\n"
             "if ($x < 3) $r = 1;\n"
             "else if ($x < 6) $r = 2;\n"
             "else $r = 3;\n"
             "$r;",
             2);
  expect_int(f, "int $r; if (1) if (0) $r = 1; else $r = 2; $r;", 2); /* else binds to the inner if */
  expect_int(f, "int $i = 0, $s = 0; while ($i < 10) { $s += $i; $i++; } $s;", 45);
  expect_int(f, "int $i = 0; while (0) $i++; $i;", 0);
  expect_int(f, "int $i = 0; do { $i++; } while (0); $i;", 1);
  expect_int(f, "int $i = 0; do $i += 2; while ($i < 9); $i;", 10);
  expect_int(f, "int $s = 0; int $i; for ($i = 1; $i <= 4; $i++) $s += $i; $s;", 10);
  expect_int(f, "int $s = 0; int $i, $j; for ($i = 0, $j = 10; $i < $j; $i++, $j--) $s++; $s;", 5);
  expect_int(f, "int $s = 0; int $i = 0; for (; $i < 3;) $i++; $i;", 3);
  expect_int(f, "int $s = 0; int $i = 0; for (;;) { if (++$i > 4) break; } $i;", 5);
  expect_str(f, "string $s = \"\"; string $x; for ($x in {\"a\", \"b\", \"c\"}) $s += $x; $s;", "abc");
  expect_int(f, "int $s = 0; int $a[] = {1, 2, 3, 4}; int $x; for ($x in $a) $s += $x; $s;", 10);
  expect_int(f, "int $n = 0; int $a[]; int $x; for ($x in $a) $n++; $n;", 0);
  /* break and continue */
  expect_int(f, "int $s = 0; int $i; for ($i = 0; $i < 10; $i++) { if ($i == 5) break; $s += $i; } $s;", 10);
  expect_int(f, "int $s = 0; int $i; for ($i = 0; $i < 10; $i++) { if ($i % 2) continue; $s += $i; } $s;", 20);
  expect_int(f, "int $i = 0, $s = 0; while (1) { $i++; if ($i > 5) break; if ($i == 2) continue; $s += $i; } $s;", 13);
  expect_int(f, "int $i = 0; do { $i++; if ($i < 3) continue; break; } while (1); $i;", 3);
  expect_int(f,
             "int $n = 0; int $i, $j;\n"
             "for ($i = 0; $i < 3; $i++) for ($j = 0; $j < 10; $j++) { if ($j == 2) break; $n++; }\n"
             "$n;",
             6);
  expect_int(f, "int $s = 0; int $x; for ($x in {1, 2, 3, 4}) { if ($x == 2) continue; if ($x == 4) break; $s += $x; } $s;", 4);
  /* switch: fall-through, break, default, strings, continue reaching the loop */
  const char *sw =
      "global proc int sw(int $x) {\n"
      "  int $r = 0;\n"
      "  switch ($x) {\n"
      "    case 1: $r += 1;\n"
      "    case 2: $r += 10; break;\n"
      "    case 3: $r = 100; break;\n"
      "    default: $r = -1;\n"
      "  }\n"
      "  return $r;\n"
      "}\n";
  run_ok(f, sw);
  expect_int(f, "sw(1);", 11);
  expect_int(f, "sw(2);", 10);
  expect_int(f, "sw(3);", 100);
  expect_int(f, "sw(7);", -1);
  expect_int(f, "int $r = 5; switch (9) { case 1: $r = 1; } $r;", 5);
  expect_int(f, "int $r; switch (\"b\") { case \"a\": $r = 1; break; case \"b\": $r = 2; break; } $r;", 2);
  expect_int(f, "int $s = 0; int $x; for ($x in {1, 2, 3}) { switch ($x) { case 2: continue; } $s += $x; } $s;", 4);
  /* blocks have their own scope */
  expect_int(f, "int $a = 1; { int $a = 2; } $a;", 1);
  expect_int(f, "int $a = 1; { $a = 2; } $a;", 2);
  /* a declaration in a loop body starts from zero each time */
  expect_int(f, "int $s = 0; int $i; for ($i = 0; $i < 3; $i++) { int $t; $t++; $s += $t; } $s;", 3);
  /* empty statements */
  expect_int(f, ";;; 3;", 3);
}

/* The compiler's table of variables grows while a statement is compiled: an initializer, an
 * element's index or value, or tokenize's arguments may declare variables of their own. The
 * variable being stored into is kept by its slot, not by a pointer into the table (a fuzz_expr
 * finding: a use after free under ASan, a store into the wrong variable without it). */
static void test_locals_table_moves(void **state) {
  fx *f = *state;
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  assert_non_null(m);
  enum { N = 60 };
  for (int i = 0; i < N; i++)
    fprintf(m, "float $a%d = $b%d = %d; int $arr%d[]; $arr%d[$k%d = 1] = ($v%d = 7); string $t%d[];"
               " tokenize(($s%d = \"x y\"), $t%d);\n", i, i, i, i, i, i, i, i, i, i);
  fprintf(m, "float $sum = 0;");
  for (int i = 0; i < N; i++) fprintf(m, " $sum += $a%d + $b%d + $arr%d[1] + size($t%d) + $k%d;", i, i, i, i, i);
  fprintf(m, " $sum;");
  assert_int_equal(fclose(m), 0);
  expect_float(f, text, 2.0 * (N * (N - 1) / 2) + 7.0 * N + 2.0 * N + N);
  free(text);
}

static void test_arrays(void **state) {
  fx *f = *state;
  expect_int(f, "int $a[] = {1, 2, 3}; $a[5] = 9; size($a);", 6);
  expect_int(f, "int $a[] = {1, 2, 3}; $a[5] = 9; $a[4];", 0);
  expect_int(f, "int $a[] = {1, 2, 3}; $a[10];", 0);      /* reading past the end */
  expect_int(f, "int $a[] = {1, 2, 3}; $a[10]; size($a);", 3); /* does not grow it */
  expect_str(f, "string $a[]; $a[2] = \"x\"; $a[0] + $a[2] + size($a);", "x3");
  expect_vec(f, "vector $a[]; $a[1] = <<1, 2, 3>>; $a[1];", 1, 2, 3);
  expect_float(f, "float $a[]; $a[0] = 3; $a[0];", 3);
  expect_kind(f, "", SINEW_VALUE_FLOAT);
  expect_int(f, "int $a[]; $a[0] = 3.9; $a[0];", 3);
  /* value semantics */
  expect_int(f, "int $a[] = {1, 2, 3}; int $b[] = $a; $b[0] = 100; $a[0];", 1);
  expect_int(f, "int $a[] = {1, 2, 3}; int $b[] = $a; $a[0] = 100; $b[0];", 1);
  /* an array must be declared before its elements are assigned */
  /* an element assigned to an undeclared variable declares an array of the value's type */
  expect_int(f, "$u[3] = 4; size($u);", 4);
  expect_str(f, "$u[1] = \"b\"; $u[0] + $u[1];", "b");
  expect_error(f, "$u[3] += 4;", SINEW_ESYNTAX, "test.mel:1:1: undeclared variable $u");
  expect_error(f, "$m[1][2] = 4;", SINEW_ESYNTAX, "test.mel:1:1: undeclared variable $m");
  /* arrays of a size given at declaration */
  expect_int(f, "float $f[3]; size($f);", 3);
  /* sizes, sort, clear */
  expect_int(f, "int $a[] = {3, 1, 2}; $a = sort($a); $a[0] * 100 + $a[1] * 10 + $a[2];", 123);
  expect_str(f, "string $a[] = {\"pear\", \"apple\", \"fig\"}; $a = sort($a); $a[0] + $a[1] + $a[2];", "applefigpear");
  expect_int(f, "int $a[] = {3, 1, 2}; clear($a); size($a);", 0);
  expect_int(f, "size(\"hello\");", 5);
  /* a string array element in a vector */
  expect_int(f, "string $a[] = {\"x\"}; size($a[0]);", 1);
}

/* ---- procedures and globals ---------------------------------------------------------------------- */

static void test_procedures(void **state) {
  fx *f = *state;
  run_ok(f, "global proc float lerp(float $a, float $b, float $t) { return $a + ($b - $a) * $t; }");
  expect_float(f, "lerp(2, 4, 0.25);", 2.5);
  expect_float(f, "lerp(0, 1, 1);", 1); /* int arguments are converted */
  expect_kind(f, "lerp", SINEW_VALUE_FLOAT);
  /* the procedure stays for later scripts; recursion */
  run_ok(f, "global proc int fact(int $n) { if ($n <= 1) return 1; return $n * fact($n - 1); }");
  expect_int(f, "fact(10);", 3628800);
  expect_int(f, "fact(20);", 2432902008176640000LL);
  run_ok(f, "global proc int fib(int $n) { return $n < 2 ? $n : fib($n - 1) + fib($n - 2); }");
  expect_int(f, "fib(20);", 6765);
  /* called before its definition in the same file */
  expect_int(f, "int $r = later(4); global proc int later(int $x) { return $x * 2; } $r;", 8);
  /* the declared return type converts */
  expect_int(f, "global proc int trunc3() { return 3.9; } trunc3();", 3);
  expect_str(f, "global proc string str5() { return 5; } str5();", "5");
  /* a void procedure gives nothing */
  run_ok(f, "global proc nothing() { return; } nothing();");
  assert_int_equal(f->res.kind, SINEW_VALUE_NONE);
  /* arrays as arguments and results: passed by value */
  run_ok(f,
         "global proc int total(int $a[]) { int $s = 0; int $x; for ($x in $a) $s += $x; $a[0] = 999; return $s; }\n"
         "global proc string[] twice(string $s) { string $r[]; $r[0] = $s; $r[1] = $s; return $r; }");
  expect_int(f, "total({1, 2, 3, 4});", 10);
  expect_int(f, "int $v[] = {5, 6}; total($v); $v[0];", 5);
  expect_int(f, "string $t[] = twice(\"x\"); size($t);", 2);
  expect_str(f, "twice(\"y\")[1];", "y");
  /* redefinition replaces */
  run_ok(f, "global proc int version() { return 1; }");
  expect_int(f, "version();", 1);
  run_ok(f, "global proc int version() { return 2; }");
  expect_int(f, "version();", 2);
  /* plain proc is global too */
  run_ok(f, "proc int local1() { return 11; }");
  expect_int(f, "local1();", 11);
  /* command syntax for a procedure */
  run_ok(f, "global int $seen; global proc note(string $s, int $n) { global int $seen; $seen = $n + size($s); }");
  run_ok(f, "note \"abc\" 4;");
  expect_int(f, "global int $seen; $seen;", 7);
  /* procedures' variables are their own */
  expect_int(f, "int $q = 1; global proc int shadow() { int $q = 50; return $q; } shadow() + $q;", 51);
  /* return from inside loops and a switch */
  run_ok(f, "global proc int firstEven(int $a[]) { int $x; for ($x in $a) if ($x % 2 == 0) return $x; return -1; }\n"
            "global proc string pick(int $k) { while (1) { switch ($k) { case 1: return \"one\"; default: return \"many\"; } } return \"\"; }");
  expect_int(f, "firstEven({3, 5, 8, 10});", 8);
  expect_int(f, "firstEven({3, 5});", -1);
  expect_str(f, "pick(1) + pick(2);", "onemany");
  /* a procedure that redefines itself while it runs finishes with its old body */
  run_ok(f, "global proc int selfmod() { eval(\"global proc int selfmod() { return 2; }\"); return 1; }");
  expect_int(f, "int $a = selfmod(); int $b = selfmod(); $a * 10 + $b;", 12);
  /* wrong argument count is found before anything runs */
  f->counter = 0;
  expect_error(f, "counter;\nlerp(1, 2);", SINEW_ESYNTAX, "test.mel:2:1: lerp takes 3 arguments, not 2");
  assert_int_equal(f->counter, 0);
  /* a wrong argument type fails when it is called */
  expect_error(f, "global proc sum_a(int $a[]) {}\nsum_a(1);", SINEW_ETYPE,
               "test.mel:2: sum_a: argument 1 must be int[], not int");
  /* built-in functions cannot be redefined; procedures only at the top level */
  expect_error(f, "global proc sin() {}", SINEW_ESYNTAX, "test.mel:1:");
  expect_error(f, "if (1) { global proc inner() {} }", SINEW_ESYNTAX, "test.mel:1:");
  expect_error(f, "global proc twice1() {} global proc twice1() {}", SINEW_ESYNTAX, "test.mel:1:");
}

static void test_globals(void **state) {
  fx *f = *state;
  run_ok(f, "global int $g = 5;");
  expect_int(f, "global int $g; $g;", 5);
  run_ok(f, "global int $g; $g += 1;");
  sinew_value_t v = {0};
  assert_int_equal(sinew_lang_get_global(f->L, "g", &v), SINEW_OK);
  assert_int_equal(v.kind, SINEW_VALUE_INT);
  assert_int_equal(v.as.i, 6);
  assert_int_equal(sinew_lang_get_global(f->L, "$g", &v), SINEW_OK);
  assert_int_equal(v.as.i, 6);
  /* set from C: converted to the declared type */
  sinew_value_t x = {.kind = SINEW_VALUE_FLOAT, .as.f = 41.9};
  assert_int_equal(sinew_lang_set_global(f->L, "$g", &x), SINEW_OK);
  expect_int(f, "global int $g; $g + 1;", 42);
  /* a new one from C */
  sinew_value_t s;
  sinew_value_clear(&v);
  run_ok(f, "\"hello\";");
  sinew_value_copy(&s, &f->res);
  assert_int_equal(sinew_lang_set_global(f->L, "greeting", &s), SINEW_OK);
  sinew_value_clear(&s);
  expect_str(f, "global string $greeting; $greeting + \"!\";", "hello!");
  assert_int_equal(sinew_lang_get_global(f->L, "nosuch", &v), SINEW_ENOTFOUND);
  /* globals reach procedures */
  run_ok(f, "global float $scale = 2; global proc float scaled(float $x) { global float $scale; return $x * $scale; }");
  expect_float(f, "scaled(3);", 6);
  run_ok(f, "global float $scale; $scale = 10;");
  expect_float(f, "scaled(3);", 30);
  /* a global array */
  run_ok(f, "global string $names[]; $names[size($names)] = \"a\"; $names[size($names)] = \"b\";");
  expect_int(f, "global string $names[]; size($names);", 2);
  /* a script's top-level variables are its own: the next run does not see them */
  run_ok(f, "int $mine = 3;");
  expect_error(f, "$mine + 1;", SINEW_ESYNTAX, "test.mel:1:1: undeclared variable $mine");
}

/* ---- commands ------------------------------------------------------------------------------------ */

static void test_command_syntax(void **state) {
  fx *f = *state;
  run_ok(f, "tcmd a 5 -2 1.5 \"q s\";");
  assert_string_equal(f->rec, "pos: wstring:a int:5 int:-2 float:1.5 string:q s |");
  assert_int_equal(f->res.kind, SINEW_VALUE_INT);
  assert_int_equal(f->res.as.i, 5);
  /* bare words keep Maya's punctuation */
  run_ok(f, "tcmd :time1 |grp|joint1.tx pCube1.vtx[0:5] on joint1.t[0];");
  assert_string_equal(f->rec, "pos: wstring::time1 wstring:|grp|joint1.tx wstring:pCube1.vtx[0:5] wstring:on wstring:joint1.t[0] |");
  /* variables, expressions, arrays, vectors, backquotes; an array stands for its elements, as
   * in Maya (`select $joints`) */
  run_ok(f, "int $a[] = {7, 8}; string $s = \"str\"; tcmd $s $a[1] (1 + 2) {1, 2} <<1, 2, 3>> `echo hi`;");
  assert_string_equal(f->rec, "pos: string:str int:8 int:3 int:1 int:2 vector:1 2 3 string:hi |");
  run_ok(f, "string $n[] = {\"a\", \"b\"}; string $none[]; tcmd $none $n -pair {1, 2.5} $none;");
  assert_string_equal(f->rec, "pos: string:a string:b | -pair float:1 float:2.5");
  /* flags: long and short names, converted arguments */
  run_ok(f, "tcmd -n \"x\" -count 3 -sc 2 -pair 1 2.5 obj;");
  assert_string_equal(f->rec, "pos: wstring:obj | -name string:x -count int:3 -scale float:2 -pair float:1 float:2.5");
  run_ok(f, "tcmd -count \"4\" -name 12 -value <<1, 2, 3>>;");
  assert_string_equal(f->rec, "pos: | -name string:12 -count int:4 -value vector:1 2 3");
  /* booleans: a lone boolean flag means on */
  run_ok(f, "tcmd -vis;");
  assert_string_equal(f->rec, "pos: | -visible int:1");
  run_ok(f, "tcmd -vis off a;");
  assert_string_equal(f->rec, "pos: wstring:a | -visible int:0");
  run_ok(f, "tcmd -vis no; ");
  assert_string_equal(f->rec, "pos: | -visible int:0");
  run_ok(f, "tcmd -vis true;");
  assert_string_equal(f->rec, "pos: | -visible int:1");
  run_ok(f, "tcmd -vis 0;");
  assert_string_equal(f->rec, "pos: | -visible int:0");
  /* multi flags */
  run_ok(f, "tcmd -it a -it b -item c;");
  assert_string_equal(f->rec, "pos: | -item string:a -item string:b -item string:c");
  /* query mode drops the arguments of flags that take none in queries */
  run_ok(f, "tcmd -q -n obj;");
  assert_string_equal(f->rec, "Q pos: wstring:obj | -name -query");
  run_ok(f, "tcmd -q -w 0.5 obj;");
  assert_string_equal(f->rec, "Q pos: wstring:obj | -weight float:0.5 -query");
  run_ok(f, "tcmd -e -n x obj;");
  assert_string_equal(f->rec, "E pos: wstring:obj | -name string:x -edit");
  /* units: the scene's (cm, degrees, film) by default */
  run_ok(f, "tcmd -d 2 -a 90 -t 12;");
  assert_true(close_to(f->dist, 2, 1e-12));
  assert_true(close_to(f->angle, PI / 2, 1e-12));
  assert_true(close_to(f->time, 0.5, 1e-12));
  assert_int_equal(sinew_scene_set_linear_unit(f->g, sinew_linear_unit_from_name("mm")), SINEW_OK);
  assert_int_equal(sinew_scene_set_angle_unit(f->g, sinew_angle_unit_from_name("rad")), SINEW_OK);
  assert_int_equal(sinew_time_set_unit(f->g, SINEW_TIME_NTSC), SINEW_OK);
  run_ok(f, "tcmd -d 20 -a 1.5 -t 15;");
  assert_true(close_to(f->dist, 2, 1e-12));
  assert_true(close_to(f->angle, 1.5, 1e-12));
  assert_true(close_to(f->time, 0.5, 1e-12));
  /* function syntax: a string that looks like a flag is a flag */
  run_ok(f, "tcmd(\"-n\", \"abc\", \"obj\", 4);");
  assert_string_equal(f->rec, "pos: string:obj int:4 | -name string:abc");
  /* backquote capture, and a command's result as a statement's value */
  expect_str(f, "string $j = `echo joint1`; $j;", "joint1");
  expect_str(f, "echo(\"x\");", "x");
  run_ok(f, "string $all[] = `echo a b c`; $all;");
  expect_kind(f, "echo a b c", SINEW_VALUE_STRING_ARRAY);
  assert_int_equal(sinew_value_count(&f->res), 3);
  expect_int(f, "counter; counter; counter;", f->counter + 3);
  /* a negative number is not a flag */
  run_ok(f, "tcmd -count -5 -1.5;");
  assert_string_equal(f->rec, "pos: float:-1.5 | -count int:-5");
  /* commands from C */
  sinew_value_t argv[2] = {{.kind = SINEW_VALUE_INT, .as.i = 3}, {.kind = SINEW_VALUE_FLOAT, .as.f = 0.5}};
  sinew_value_t r = {0};
  assert_int_equal(sinew_lang_call(f->L, "tcmd", argv, 2, &r), SINEW_OK);
  assert_string_equal(f->rec, "pos: int:3 float:0.5 |");
  assert_int_equal(r.as.i, 2);
  assert_int_equal(sinew_lang_call(f->L, "nosuch", argv, 2, &r), SINEW_ENOTFOUND);
  assert_true(sinew_lang_has_command(f->L, "tcmd"));
  assert_false(sinew_lang_has_command(f->L, "nosuch"));
}

static void test_command_errors(void **state) {
  fx *f = *state;
  expect_error(f, "tcmd -bogus;", SINEW_EINVAL, "test.mel:1: tcmd: unknown flag -bogus");
  expect_error(f, "tcmd -n;", SINEW_EINVAL, "test.mel:1: tcmd: flag -name needs 1 argument");
  expect_error(f, "tcmd -pair 1;", SINEW_EINVAL, "test.mel:1: tcmd: flag -pair needs 2 arguments");
  expect_error(f, "tcmd -pair 1 -n x;", SINEW_EINVAL, "test.mel:1: tcmd: flag -pair needs 2 arguments");
  expect_error(f, "tcmd -n a -name b;", SINEW_EINVAL, "test.mel:1: tcmd: flag -name given twice");
  expect_error(f, "\n\ntcmd -count abc;", SINEW_EINVAL, "test.mel:3: tcmd: -count: 'abc' is not a number");
  expect_error(f, "tcmd -sc {\"x\"};", SINEW_EINVAL, "test.mel:1: tcmd: -scale: 'x' is not a number");
  expect_error(f, "tcmd -pair {1};", SINEW_EINVAL, "test.mel:1: tcmd: flag -pair needs 2 arguments");
}

static void test_command_errors_fixed(void **state) {
  fx *f = *state;
  /* a lone boolean followed by a word that is not a boolean: the flag is on, the word positional */
  run_ok(f, "tcmd -vis maybe;");
  assert_string_equal(f->rec, "pos: wstring:maybe | -visible int:1");
  expect_error(f, "tcmd -count 1e999;", SINEW_ERANGE, "test.mel:1: tcmd: -count: not a finite number");
  expect_error(f, "tcmd -count 1e30;", SINEW_ERANGE, "test.mel:1: tcmd: -count:");
}

/* ---- built-in functions -------------------------------------------------------------------------- */

typedef struct fcase {
  const char *src;
  double want;
} fcase;

static double smooth(double a, double b, double x) {
  double t = (x - a) / (b - a);
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  return t * t * (3 - 2 * t);
}

static double herm(double p1, double p2, double t1, double t2, double s) {
  return (2 * s * s * s - 3 * s * s + 1) * p1 + (s * s * s - 2 * s * s + s) * t1 +
         (-2 * s * s * s + 3 * s * s) * p2 + (s * s * s - s * s) * t2;
}

static void test_builtin_math(void **state) {
  fx *f = *state;
  const double D = PI / 180;
  fcase c[] = {
      {"abs(-2.5);", 2.5},        {"ceil(1.2);", 2},           {"ceil(-1.2);", -1},
      {"floor(1.8);", 1},         {"floor(-1.2);", -2},        {"trunc(-1.7);", -1},
      {"trunc(1.7);", 1},         {"round(2.5);", 3},          {"round(-2.4);", -2},
      {"sign(-3.5);", -1},        {"sign(0);", 0},             {"sign(2);", 1},
      {"min(2.5, 1);", 1},        {"max(2.5, 1);", 2.5},       {"clamp(0, 10, 15);", 10},
      {"clamp(0, 10, -5);", 0},   {"clamp(0, 10, 2.5);", 2.5}, {"fmod(7.5, 2);", fmod(7.5, 2)},
      {"fmod(-7.5, 2);", fmod(-7.5, 2)}, {"exp(1.5);", exp(1.5)}, {"log(10);", log(10)},
      {"log10(1000);", 3},        {"pow(2, 10);", 1024},       {"pow(2, 0.5);", sqrt(2)},
      {"sqrt(2);", sqrt(2)},      {"cbrt(27);", 3},            {"cbrt(-8);", -2},
      {"hypot(3, 4);", 5},        {"sin(0.5);", sin(0.5)},     {"cos(0.5);", cos(0.5)},
      {"tan(0.5);", tan(0.5)},    {"asin(0.5);", asin(0.5)},   {"acos(0.5);", acos(0.5)},
      {"atan(2);", atan(2)},      {"atan2(1, -1);", atan2(1, -1)}, {"atan2(-1, -1);", atan2(-1, -1)},
      {"sinh(0.7);", sinh(0.7)},  {"cosh(0.7);", cosh(0.7)},   {"tanh(0.7);", tanh(0.7)},
      {"sind(30);", sin(30 * D)}, {"cosd(60);", cos(60 * D)},  {"tand(45);", tan(45 * D)},
      {"asind(0.5);", asin(0.5) / D}, {"acosd(0.5);", acos(0.5) / D}, {"atand(1);", 45},
      {"atan2d(1, 1);", 45},      {"atan2d(1, -1);", 135},     {"deg_to_rad(180);", PI},
      {"rad_to_deg(3.14159265358979323846);", 180}, {"deg_to_rad(45);", PI / 4},
      {"linstep(0, 10, 2.5);", 0.25}, {"linstep(0, 10, -1);", 0}, {"linstep(0, 10, 11);", 1},
      {"linstep(10, 20, 12);", 0.2},
      {"smoothstep(0, 10, 2.5);", smooth(0, 10, 2.5)}, {"smoothstep(15, 120, 90);", smooth(15, 120, 90)},
      {"smoothstep(15, 120, 0);", 0}, {"smoothstep(15, 120, 150);", 1},
      {"hermite(1, 3, 0.5, -2, 0.3);", herm(1, 3, 0.5, -2, 0.3)}, {"hermite(1, 3, 0.5, -2, 0);", 1},
      {"hermite(1, 3, 0.5, -2, 1);", 3},
      {"mag(<<3, 4, 12>>);", 13}, {"dot(<<1, 2, 3>>, <<4, -5, 6>>);", 4 - 10 + 18},
      {"angle(<<1, 0, 0>>, <<0, 1, 0>>);", PI / 2}, {"angle(<<1, 0, 0>>, <<1, 1, 0>>);", PI / 4},
      {"angle(<<1, 0, 0>>, <<-1, 0, 0>>);", PI},
  };
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) expect_float(f, c[i].src, c[i].want);
  /* ints stay ints where MEL keeps them */
  expect_int(f, "abs(-3);", 3);
  expect_int(f, "min(2, 7);", 2);
  expect_int(f, "max(2, 7);", 7);
  /* vectors */
  expect_vec(f, "unit(<<3, 4, 0>>);", 0.6, 0.8, 0);
  expect_vec(f, "cross(<<1, 0, 0>>, <<0, 1, 0>>);", 0, 0, 1);
  expect_vec(f, "cross(<<1, 2, 3>>, <<4, 5, 6>>);", -3, 6, -3);
  expect_vec(f, "rot(<<1, 0, 0>>, <<0, 0, 1>>, 3.14159265358979323846 / 2);", cos(PI / 2), 1, 0);
  expect_vec(f, "rot(<<0, 1, 0>>, <<2, 0, 0>>, 3.14159265358979323846);", 0, cos(PI), sin(PI));
  expect_vec(f, "abs(<<-1, 2, -3>>);", 1, 2, 3);
  expect_vec(f, "min(<<1, 5, 3>>, <<4, 2, 6>>);", 1, 2, 3);
  expect_vec(f, "max(<<1, 5, 3>>, <<4, 2, 6>>);", 4, 5, 6);
  expect_vec(f, "hsv_to_rgb(<<0, 1, 1>>);", 1, 0, 0);
  expect_vec(f, "hsv_to_rgb(<<0.5, 1, 1>>);", 0, 1, 1);
  expect_vec(f, "hsv_to_rgb(<<0, 0, 0.5>>);", 0.5, 0.5, 0.5);
  expect_vec(f, "rgb_to_hsv(<<0, 0, 1>>);", 2.0 / 3, 1, 1);
  expect_vec(f, "rgb_to_hsv(<<1, 1, 0>>);", 1.0 / 6, 1, 1);
  expect_vec(f, "rgb_to_hsv(hsv_to_rgb(<<0.3, 0.6, 0.9>>));", 0.3, 0.6, 0.9);
  double p1[3] = {0, 0, 0}, p2[3] = {1, 2, 3}, t1[3] = {1, 0, 0}, t2[3] = {0, 1, 0};
  run_ok(f, "hermite(<<0, 0, 0>>, <<1, 2, 3>>, <<1, 0, 0>>, <<0, 1, 0>>, 0.4);");
  for (int k = 0; k < 3; k++) assert_true(close_to(f->res.as.v[k], herm(p1[k], p2[k], t1[k], t2[k], 0.4), 1e-12));
}

static void test_builtin_strings(void **state) {
  fx *f = *state;
  expect_str(f, "substring(\"abcdef\", 2, 4);", "bcd");
  expect_str(f, "substring(\"abcdef\", 4, 99);", "def");
  expect_str(f, "substring(\"abcdef\", 5, 2);", "");
  expect_int(f, "string $p[]; tokenize(\"a b  c\", $p);", 3);
  expect_str(f, "string $p[]; tokenize(\"a|b|c\", \"|\", $p); $p[2];", "c");
  expect_str(f, "string $p[] = stringToStringArray(\"x,y\", \",\"); $p[1];", "y");
  expect_str(f, "stringArrayToString({\"a\", \"b\", \"c\"}, \", \");", "a, b, c");
  expect_int(f, "strcmp(\"a\", \"b\");", -1);
  expect_int(f, "strcmp(\"b\", \"b\");", 0);
  expect_str(f, "toupper(\"aBc\");", "ABC");
  expect_str(f, "tolower(\"aBc\");", "abc");
  expect_str(f, "strip(\"  a b \\n\");", "a b");
  expect_int(f, "startsWith(\"joint1\", \"joint\");", 1);
  expect_int(f, "endsWith(\"joint1\", \"int1\");", 1);
  expect_int(f, "endsWith(\"a\", \"abc\");", 0);
  expect_str(f, "match(\"[0-9]+\", \"joint42_end\");", "42");
  expect_str(f, "match(\"x\", \"abc\");", "");
  expect_str(f, "substitute(\"[0-9]+\", \"joint42_end\", \"N\");", "jointN_end");
  expect_int(f, "gmatch(\"joint12\", \"joint*\");", 1);
  expect_int(f, "gmatch(\"bone\", \"joint*\");", 0);
  expect_int(f, "stringArrayContains(\"b\", {\"a\", \"b\"});", 1);
  expect_int(f, "exists(\"sin\");", 1);
  expect_int(f, "exists(\"tcmd\");", 1);
  expect_int(f, "exists(\"nope_nothing\");", 0);
  expect_int(f, "eval(\"1 + 2;\");", 3);
  expect_error(f, "match(\"(\", \"abc\");", SINEW_EINVAL, "test.mel:1: match: bad regular expression");
}

/* noise: deterministic in every context, in -1..1, not constant; random: reproducible with seed. */
static void test_builtin_random(void **state) {
  fx *f = *state;
  /* noise at a few points, twice, and in a second context */
  sinew_lang_t *L2;
  assert_int_equal(sinew_lang_create(f->g, NULL, &L2), SINEW_OK);
  double lo = 1, hi = -1, first = 0;
  bool varies = false;
  for (int i = 0; i < 200; i++) {
    char src[128];
    double x = i * 0.173 - 17;
    snprintf(src, sizeof src, "noise(%.17g);", x);
    run_ok(f, src);
    expect_kind(f, src, SINEW_VALUE_FLOAT);
    double a = f->res.as.f;
    sinew_value_t r = {0};
    assert_int_equal(sinew_lang_run(L2, src, strlen(src), NULL, &r), SINEW_OK);
    assert_true(r.as.f == a);
    run_ok(f, src);
    assert_true(f->res.as.f == a);
    assert_true(a >= -1 && a <= 1);
    if (i == 0) first = a;
    if (a != first) varies = true;
    if (a < lo) lo = a;
    if (a > hi) hi = a;
    snprintf(src, sizeof src, "noise(%.17g, %.17g) + noise(<<%.17g, 0.5, 2.5>>);", x, -x, x);
    run_ok(f, src);
    double b = f->res.as.f;
    run_ok(f, src);
    assert_true(f->res.as.f == b);
    assert_true(b >= -2 && b <= 2);
  }
  assert_true(varies);
  assert_true(hi - lo > 0.5); /* it really moves */
  sinew_lang_destroy(L2);
  expect_kind(f, "", SINEW_VALUE_FLOAT);
  run_ok(f, "dnoise(<<0.3, 0.6, 0.9>>);");
  expect_kind(f, "dnoise", SINEW_VALUE_VECTOR);
  for (int k = 0; k < 3; k++) assert_true(fabs(f->res.as.v[k]) <= 1);

  /* rand: in range and reproducible after seed */
  const char *seq =
      "seed(7); float $s[]; int $i;"
      "for ($i = 0; $i < 50; $i++) $s[$i] = rand(10);"
      "for ($i = 0; $i < 50; $i++) $s[50 + $i] = rand(-2, 3);"
      "$s;";
  run_ok(f, seq);
  double a[100];
  for (int i = 0; i < 100; i++) a[i] = sinew_value_double_at(&f->res, (size_t)i);
  run_ok(f, seq);
  int distinct = 0;
  for (int i = 0; i < 100; i++) {
    assert_true(sinew_value_double_at(&f->res, (size_t)i) == a[i]);
    if (i < 50) assert_true(a[i] >= 0 && a[i] <= 10);
    else assert_true(a[i] >= -2 && a[i] <= 3);
    if (i && a[i] != a[i - 1]) distinct++;
  }
  assert_true(distinct > 90);
  run_ok(f, "seed(8); rand(10);");
  assert_true(f->res.as.f != a[0]);
  /* vector rand per component */
  run_ok(f, "seed(1); rand(<<1, 10, 100>>);");
  expect_kind(f, "rand vector", SINEW_VALUE_VECTOR);
  assert_true(f->res.as.v[0] >= 0 && f->res.as.v[0] <= 1);
  assert_true(f->res.as.v[2] >= 0 && f->res.as.v[2] <= 100);
  /* gauss: mean about 0, standard deviation about what was asked */
  run_ok(f,
         "seed(3); float $sum = 0, $sq = 0; int $i;"
         "for ($i = 0; $i < 4000; $i++) { float $g = gauss(2); $sum += $g; $sq += $g * $g; }"
         "<<$sum / 4000, sqrt($sq / 4000), 0>>;");
  assert_true(fabs(f->res.as.v[0]) < 0.15);
  assert_true(fabs(f->res.as.v[1] - 2) < 0.15);
  run_ok(f, "gauss(1, 2);");
  expect_kind(f, "gauss 2", SINEW_VALUE_VECTOR);
  assert_true(f->res.as.v[2] == 0);
  run_ok(f, "gauss(<<1, 1, 1>>);");
  expect_kind(f, "gauss vector", SINEW_VALUE_VECTOR);
  /* sphrand: inside the sphere / ellipsoid */
  run_ok(f,
         "seed(4); int $i; float $worst = 0;"
         "for ($i = 0; $i < 500; $i++) { vector $p = sphrand(2); if (mag($p) > $worst) $worst = mag($p); }"
         "$worst;");
  assert_true(f->res.as.f <= 2 && f->res.as.f > 1.5);
  run_ok(f,
         "seed(5); int $i; float $worst = 0;"
         "for ($i = 0; $i < 500; $i++) { vector $p = sphrand(<<1, 2, 3>>);"
         "  float $e = $p.x * $p.x + $p.y * $p.y / 4 + $p.z * $p.z / 9; if ($e > $worst) $worst = $e; }"
         "$worst;");
  assert_true(f->res.as.f <= 1 + 1e-12);
  /* reproducible across contexts: a new context starts from the same seed */
  run_ok(f, "seed(11); sphrand(1);");
  double sx = f->res.as.v[0];
  sinew_lang_t *L3;
  assert_int_equal(sinew_lang_create(f->g, NULL, &L3), SINEW_OK);
  sinew_value_t r = {0};
  const char *s11 = "seed(11); sphrand(1);";
  assert_int_equal(sinew_lang_run(L3, s11, strlen(s11), NULL, &r), SINEW_OK);
  assert_true(r.as.v[0] == sx);
  sinew_lang_destroy(L3);
}

/* ---- print ----------------------------------------------------------------------------------------- */

static void test_print(void **state) {
  fx *f = *state;
  f->nout = 0;
  f->out[0] = 0;
  int before = f->nlog[SINEW_LOG_SCRIPT_PRINT];
  run_ok(f, "print \"hello\\n\"; print(1 + 2); print \" \"; print(<<1, 2.5, 3>>); print(\"\\n\");"
            "print {\"a\", \"b\"}; print 0.1;");
  assert_string_equal(f->out, "hello\n3 1 2.5 3\na\nb\n0.1");
  assert_int_equal(f->nlog[SINEW_LOG_SCRIPT_PRINT] - before, 7);
  /* print is a script-mode function */
  expect_int(f, "exists(\"print\");", 1);
}

/* ---- errors ------------------------------------------------------------------------------------------ */

static void test_syntax_errors(void **state) {
  fx *f = *state;
  f->counter = 0;
  /* line and column, and nothing runs: counter is on line 1 */
  expect_error(f, "counter;\nint $x = ;\ncounter;", SINEW_ESYNTAX, "test.mel:2:10:");
  expect_error(f, "counter;\nint $x = 1\ncounter;", SINEW_ESYNTAX, "test.mel:3:1: expected ';'");
  expect_error(f, "counter;\n  if (1 { }", SINEW_ESYNTAX, "test.mel:2:9: expected ')'");
  expect_error(f, "counter;\n\"abc", SINEW_ESYNTAX, "test.mel:2:1: unterminated string");
  expect_error(f, "counter; /* never closed", SINEW_ESYNTAX, "test.mel:1:10: unterminated comment");
  expect_error(f, "counter;\n$y + 1;", SINEW_ESYNTAX, "test.mel:2:1: undeclared variable $y");
  expect_error(f, "counter;\nbreak;", SINEW_ESYNTAX, "test.mel:2:1: break outside a loop");
  expect_error(f, "counter;\n<<1, 2>>;", SINEW_ESYNTAX, "test.mel:2:");
  expect_error(f, "counter;\nsqrt(1, 2);", SINEW_ESYNTAX, "test.mel:2:1: wrong number of arguments to sqrt");
  expect_error(f, "counter;\n{ counter;", SINEW_ESYNTAX, "test.mel:2:");
  expect_error(f, "counter;\n3 = 4;", SINEW_ESYNTAX, "test.mel:2:");
  expect_error(f, "counter;\nmatrix $m;", SINEW_ESYNTAX, "test.mel:2:");
  expect_error(f, "counter;\nfloat $x = 1 +* 2;", SINEW_ESYNTAX, "test.mel:2:");
  expect_error(f, "counter;\n`counter;", SINEW_ESYNTAX, "test.mel:2:");
  expect_error(f, "counter;\n$ = 1;", SINEW_ESYNTAX, "test.mel:2:");
  expect_error(f, "counter;\nint $a[1.5];", SINEW_ESYNTAX, "test.mel:2:11: a size must be a whole number from 0 to 16777216");
  expect_error(f, "counter;\nint $a[99999999999];", SINEW_ESYNTAX, "test.mel:2:");
  expect_error(f, "counter;\nmatrix $m[4][5000];", SINEW_ESYNTAX, "test.mel:2:");
  expect_error(f, "counter;\nmatrix $m[4][0];", SINEW_ESYNTAX, "test.mel:2:15: a size must be a whole number from 1 to 4096");
  assert_int_equal(f->counter, 0);
  /* the default name */
  sinew_value_t r = {0};
  assert_int_equal(sinew_lang_run(f->L, "1 +;", 4, NULL, &r), SINEW_ESYNTAX);
  assert_true(strncmp(sinew_lang_errmsg(f->L), "script:1:", 9) == 0);
  /* a procedure defined in a script that does not compile is not defined */
  expect_error(f, "global proc int half_defined() { return 1; }\n1 +;", SINEW_ESYNTAX, "test.mel:2:");
  expect_int(f, "exists(\"half_defined\");", 0);
  /* NUL-free empty text runs */
  run_ok(f, "");
  run_ok(f, "  // only a comment\n");
}

static void test_command_failure(void **state) {
  fx *f = *state;
  f->counter = 0;
  expect_error(f, "counter;\nfail \"x\";\ncounter;", SINEW_EINVAL, "test.mel:2: fail: boom x");
  assert_int_equal(sinew_lang_errcode(f->L), SINEW_EINVAL);
  assert_int_equal(f->counter, 1);
  f->counter = 0;
  expect_error(f, "counter;\n\n  nosuch 1 2;\ncounter;", SINEW_ENOTFOUND, "test.mel:3: nosuch: unknown command");
  assert_int_equal(f->counter, 1);
  /* inside a procedure, the line of the failing command */
  expect_error(f, "global proc p1() {\n  fail \"in proc\";\n}\np1();", SINEW_EINVAL, "test.mel:2: fail: boom in proc");
  /* a function-syntax call and a backquote fail the same way */
  expect_error(f, "string $s = `fail bq`;", SINEW_EINVAL, "test.mel:1: fail: boom bq");
  expect_error(f, "fail(\"fn\");", SINEW_EINVAL, "test.mel:1: fail: boom fn");
  /* runtime type errors stop the script too */
  expect_error(f, "int $a[] = {1}; $a + 1;", SINEW_ETYPE, "test.mel:1: arithmetic on an array");
  expect_error(f, "int $i = 1;\n$i ^ 2;", SINEW_ETYPE, "test.mel:2: ^ (cross product) needs vectors");
  expect_error(f, "float $x = 1.5;\n$x ^ 2;", SINEW_ETYPE, "test.mel:2: ^ (cross product) needs vectors");
  expect_error(f, "int $a[];\n$a = 5;", SINEW_ETYPE, "test.mel:2: cannot assign a int to a int[] variable");
  /* a graph message that already names the command is not prefixed twice */
  expect_error(f, "gfail own;", SINEW_ELOCKED, "test.mel:1: gfail: j.tx is locked");
  assert_null(strstr(sinew_lang_errmsg(f->L), "gfail: gfail"));
  expect_error(f, "gfail other;", SINEW_ELOCKED, "test.mel:1: gfail: j.tx is locked");
  /* run_file: a missing file */
  sinew_value_t r = {0};
  assert_int_equal(sinew_lang_run_file(f->L, "/nonexistent/x.mel", &r), SINEW_EIO);
  expect_contains(sinew_lang_errmsg(f->L), "/nonexistent/x.mel");
}

static void test_keep_going(void **state) {
  fx *f = *state;
  f->counter = 0;
  sinew_lang_set_keep_going(f->L, true);
  assert_true(sinew_lang_keep_going(f->L));
  int before = f->nlog[SINEW_LOG_COMMAND_FAILED];
  run_ok(f, "counter;\nfail \"x\";\nnosuch;\ncounter;");
  assert_int_equal(f->counter, 2);
  assert_int_equal(sinew_lang_failures(f->L), 2);
  assert_int_equal(f->nlog[SINEW_LOG_COMMAND_FAILED] - before, 2);
  assert_string_equal(f->lastlog, "test.mel:3: nosuch: unknown command");
  /* syntax errors still stop everything */
  expect_error(f, "counter;\n1 +;", SINEW_ESYNTAX, "test.mel:2:");
  assert_int_equal(f->counter, 2);
  sinew_lang_set_keep_going(f->L, false);
  expect_error(f, "fail a;", SINEW_EINVAL, NULL);
  assert_int_equal(sinew_lang_failures(f->L), 2);
}

/* Runaway recursion, deep nesting and long loops end cleanly (no C stack overflow). */
/* ---- bounded execution ---------------------------------------------------------------------- */

typedef struct interrupter {
  sinew_lang_t *L;
  unsigned delay_ms;
} interrupter;

static void interrupter_main(void *arg) {
  interrupter *it = arg;
  uv_sleep(it->delay_ms);
  sinew_lang_interrupt(it->L);
}

static void test_bounded_execution(void **state) {
  fx *f = *state;
  /* a step budget: loops and calls count, straight code does not */
  sinew_lang_limits_t lim = {.max_steps = 1000};
  sinew_lang_set_limits(f->L, &lim);
  expect_error(f, "int $i = 0;\nwhile (1) $i++;", SINEW_ELIMIT, "test.mel:2: stopped: over the limit of 1000 steps");
  expect_int(f, "int $s = 0; int $i; for ($i = 0; $i < 999; $i++) $s += 1; $s;", 999);
  expect_error(f, "int $s = 0; int $i; for ($i = 0; $i < 1001; $i++) $s += 1; $s;", SINEW_ELIMIT, "test.mel:1:");
  expect_error(f, "global proc spin() { while (1); }\n\nspin();", SINEW_ELIMIT, "test.mel:1: stopped");
  /* calls count too: a procedure calling itself twice per level (2^100 calls, never ending in
   * practice, never nested past 101) stops at the budget */
  expect_error(f, "global proc fork(int $n) { if ($n > 100) return; fork($n + 1); fork($n + 1); }\nfork(0);",
               SINEW_ELIMIT, "test.mel:1: stopped");
  /* nested runs (eval) share the budget of the run that started them */
  expect_error(f, "int $k; for ($k = 0; $k < 10; $k++) eval(\"int $j; for ($j = 0; $j < 200; $j++);\");",
               SINEW_ELIMIT, NULL);
  /* keep-going mode (reading a .ma file) does not skip a stop */
  sinew_lang_set_keep_going(f->L, true);
  expect_error(f, "counter;\neval(\"while (1);\");\ncounter;", SINEW_ELIMIT, NULL);
  assert_int_equal(f->counter, 1);
  sinew_lang_set_keep_going(f->L, false);
  /* the context still works; the budget is per top-level run */
  expect_int(f, "int $s = 0; int $i; for ($i = 0; $i < 900; $i++) $s += 1; $s;", 900);

  /* a time limit */
  lim = (sinew_lang_limits_t){.max_seconds = 0.05};
  sinew_lang_set_limits(f->L, &lim);
  expect_error(f, "\nwhile (1) ;", SINEW_ELIMIT, "test.mel:2: stopped: the run took longer than its limit of 0.05 s");
  sinew_lang_set_limits(f->L, NULL);

  /* an interrupt from another thread stops a script that has no limit */
  interrupter it = {f->L, 30};
  uv_thread_t t;
  assert_int_equal(uv_thread_create(&t, interrupter_main, &it), 0);
  expect_error(f, "global proc loop() { int $i = 0; while (1) $i++; }\nloop();", SINEW_EINTERRUPTED, "test.mel:1: interrupted");
  assert_int_equal(uv_thread_join(&t), 0);
  /* the same for a procedure recursing forever */
  it.delay_ms = 10;
  assert_int_equal(uv_thread_create(&t, interrupter_main, &it), 0);
  expect_error(f, "fork(0);", SINEW_EINTERRUPTED, "test.mel:1: interrupted");
  assert_int_equal(uv_thread_join(&t), 0);
  /* taken by the run it stopped: the next run goes on */
  expect_int(f, "1 + 1;", 2);
  /* raised while nothing runs, it stops the next run at its first check: before a command */
  sinew_lang_interrupt(f->L);
  f->counter = 0;
  expect_error(f, "int $x = 1;\ncounter;", SINEW_EINTERRUPTED, "test.mel:2: interrupted");
  assert_int_equal(f->counter, 0);
  expect_int(f, "2 + 2;", 4);
}

static void test_limits(void **state) {
  fx *f = *state;
  run_ok(f, "global proc int down(int $n) { if ($n == 0) return 0; return 1 + down($n - 1); }");
  expect_int(f, "down(900);", 900);
  expect_error(f, "down(5000);", SINEW_ERANGE, "test.mel:1: procedures nested too deeply");
  expect_error(f, "global proc forever() { forever(); }\nforever();", SINEW_ERANGE,
               "test.mel:1: procedures nested too deeply");
  /* eval nests runs: stopped at 32 */
  expect_error(f, "global proc ev() { eval(\"ev()\"); }\nev();", SINEW_ERANGE, NULL);
  expect_contains(sinew_lang_errmsg(f->L), "nested too deeply");
  /* the context still works afterwards */
  expect_int(f, "down(10);", 10);
  /* a long loop finishes */
  expect_int(f, "int $s = 0; int $i; for ($i = 0; $i < 300000; $i++) $s += $i; $s;", 300000LL * 299999 / 2);
  /* deeply nested text is a syntax error, not a crash */
  size_t n = 100000;
  char *src = malloc(2 * n + 16);
  assert_non_null(src);
  const char *kinds[] = {"(", "-", "!", "{", "<<", "if(1)"};
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    size_t len = strlen(kinds[k]), m = (2 * n) / len, pos = 0;
    for (size_t i = 0; i < m; i++, pos += len) memcpy(src + pos, kinds[k], len);
    memcpy(src + pos, "1;", 3);
    int rc = run(f, src);
    if (rc != SINEW_ESYNTAX) fail_msg("nesting %s: %s", kinds[k], sinew_lang_errmsg(f->L));
    expect_contains(sinew_lang_errmsg(f->L), "nested too deeply");
  }
  /* right-hand sides nest too: a 100,000-long ?: chain or assignment chain is refused, a short
   * one runs */
  {
    const char *chains[] = {"1 ? 2 : ", "$v = "};
    for (size_t k = 0; k < 2; k++) {
      size_t len = strlen(chains[k]), m = 100000, at = 0;
      char *big = malloc(len * m + 64);
      assert_non_null(big);
      at += (size_t)sprintf(big, "float $v; $v = ");
      for (size_t i = 0; i < m; i++, at += len) memcpy(big + at, chains[k], len);
      memcpy(big + at, "3;", 3);
      int rc = run(f, big);
      if (rc != SINEW_ESYNTAX) fail_msg("chain '%s': %s", chains[k], sinew_lang_errmsg(f->L));
      expect_contains(sinew_lang_errmsg(f->L), "nested too deeply");
      free(big);
    }
    expect_int(f, "int $t = 0 ? 1 : 0 ? 2 : 0 ? 3 : 4; $t;", 4);
    expect_int(f, "int $a; int $b; int $c; $a = $b = $c = 6; $a + $b + $c;", 18);
  }
  /* a very long chain of operators builds a deep tree: refused too, or compiled */
  size_t pos = 0;
  for (size_t i = 0; i < n; i++) {
    memcpy(src + pos, "1+", 2);
    pos += 2;
  }
  memcpy(src + pos, "1;", 3);
  int rc = run(f, src);
  if (rc == SINEW_OK) {
    assert_int_equal(f->res.as.i, (int64_t)n + 1);
  } else {
    assert_int_equal(rc, SINEW_ESYNTAX);
    expect_contains(sinew_lang_errmsg(f->L), "nested too deeply");
  }
  /* moderately nested text is fine */
  pos = 0;
  for (size_t i = 0; i < 50; i++) src[pos++] = '(';
  src[pos++] = '2';
  for (size_t i = 0; i < 50; i++) src[pos++] = ')';
  memcpy(src + pos, ";", 2);
  expect_int(f, src, 2);
  free(src);
  /* arrays too large to make */
  expect_error(f, "int $a[]; $a[100000000] = 1;", SINEW_ERANGE, "test.mel:1: array index 100000000 out of range");
  expect_error(f, "int $a[]; $a[-1] = 1;", SINEW_ERANGE, "test.mel:1: array index -1 out of range");
}

/* Runtime faults in a script give a defined value and a warning; the script goes on. */
static void test_runtime_faults(void **state) {
  fx *f = *state;
  int before = f->nlog[SINEW_LOG_EXPR_RUNTIME];
  expect_int(f, "1 / 0;", 0);
  expect_float(f, "1.0 / 0;", 0);
  expect_int(f, "5 % 0;", 0);
  expect_float(f, "sqrt(-1);", 0);
  expect_float(f, "log(0);", 0);
  expect_float(f, "acos(2);", 0);
  expect_float(f, "asin(-3);", -PI / 2);
  expect_float(f, "fmod(1, 0);", 0);
  expect_int(f, "int $a[] = {1}; $a[-1];", 0);
  expect_vec(f, "unit(<<0, 0, 0>>);", 0, 0, 0);
  expect_float(f, "exp(1000);", 0);
  assert_int_equal(f->nlog[SINEW_LOG_EXPR_RUNTIME] - before, 11);
  assert_string_equal(f->lastlog, "test.mel:1: exp: result is not a finite number; 0 used");
  /* the script goes on after a fault */
  f->counter = 0;
  run_ok(f, "float $x = 1 / 0; counter;");
  assert_int_equal(f->counter, 1);
}

/* Unknown commands through the fallback, lenient flag tables, files, another graph, values. */
static int fallback_fn(sinew_cmd_t *c) {
  fx *f = sinew_cmd_user_data(c);
  snprintf(f->rec, sizeof f->rec, "%s:", sinew_cmd_name(c));
  for (size_t i = 0; i < sinew_cmd_argc(c); i++) {
    const sinew_value_t *v = sinew_cmd_arg(c, i);
    size_t n = strlen(f->rec);
    snprintf(f->rec + n, sizeof f->rec - n, " %s%s", v->flag ? "-" : "", sinew_cmd_arg_string(c, i));
  }
  return SINEW_OK;
}

static int lenient_fn(sinew_cmd_t *c) {
  fx *f = sinew_cmd_user_data(c);
  snprintf(f->rec, sizeof f->rec, "n=%s argc=%zu", sinew_cmd_flag_string(c, "n", "-"), sinew_cmd_argc(c));
  sinew_cmd_warning(c, SINEW_LOG_NONE, "careful with %s", sinew_cmd_arg_string(c, 0));
  return SINEW_OK;
}

static void test_hosting(void **state) {
  fx *f = *state;
  /* the fallback receives every word; flags keep their mark */
  sinew_lang_set_fallback(f->L, fallback_fn, f);
  run_ok(f, "someMayaCmd -f 1 -name \"x y\" word 2.5;");
  assert_string_equal(f->rec, "someMayaCmd: -f 1 -name x y word 2.5");
  sinew_lang_set_fallback(f->L, NULL, NULL);
  expect_error(f, "someMayaCmd;", SINEW_ENOTFOUND, "test.mel:1: someMayaCmd: unknown command");
  /* lenient flags: an unknown flag is logged and skipped */
  static const sinew_cmd_flag_t lf[] = {{"name", "n", "s", 0}};
  sinew_cmd_desc_t d = {.name = "lenient", .fn = lenient_fn, .flags = lf, .flag_count = 1,
                        .lenient_flags = true, .user_data = f};
  assert_int_equal(sinew_lang_register_command(f->L, &d), SINEW_OK);
  int warnings = f->nlog[SINEW_LOG_FILE_WARNING];
  run_ok(f, "\nlenient -n a -bogus b;");
  assert_string_equal(f->rec, "n=a argc=1");
  assert_int_equal(f->nlog[SINEW_LOG_FILE_WARNING] - warnings, 2);
  assert_string_equal(f->lastlog, "test.mel:2: lenient: careful with b");
  /* re-registering replaces the callback */
  d.fn = counter_fn;
  assert_int_equal(sinew_lang_register_command(f->L, &d), SINEW_OK);
  f->counter = 0;
  run_ok(f, "lenient;");
  assert_int_equal(f->counter, 1);
  sinew_cmd_desc_t bad = {.name = "", .fn = counter_fn};
  assert_int_equal(sinew_lang_register_command(f->L, &bad), SINEW_EINVAL);
  /* files */
  char path[] = "/tmp/sinew_test_lang_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *fp = fdopen(fd, "w");
  fputs("global proc int fromFile() { return 12; }\nint $x = fromFile();\n$x + 1", fp);
  fclose(fp);
  sinew_value_t r = {0};
  assert_int_equal(sinew_lang_run_file(f->L, path, &r), SINEW_OK);
  assert_int_equal(r.as.i, 13);
  fp = fopen(path, "w");
  fputs("counter;\n  fail oops;\n", fp);
  fclose(fp);
  assert_int_equal(sinew_lang_run_file(f->L, path, &r), SINEW_EINVAL);
  char want[256];
  snprintf(want, sizeof want, "%s:2: fail: boom oops", path);
  assert_string_equal(sinew_lang_errmsg(f->L), want);
  fp = fopen(path, "wb");
  fwrite("1;\0;", 1, 4, fp);
  fclose(fp);
  assert_int_equal(sinew_lang_run_file(f->L, path, &r), SINEW_ESYNTAX);
  remove(path);
  /* another graph: procedures and globals stay */
  run_ok(f, "global int $kept = 4;");
  sinew_graph_t *g2;
  assert_int_equal(sinew_scene_create(NULL, &g2), SINEW_OK);
  sinew_lang_set_graph(f->L, g2);
  assert_ptr_equal(sinew_lang_graph(f->L), g2);
  expect_int(f, "global int $kept; $kept + fromFile();", 16);
  sinew_lang_set_graph(f->L, f->g);
  sinew_graph_destroy(g2);
  assert_ptr_equal(sinew_lang_user_data(f->L), f);
  assert_null(sinew_lang_current_file(f->L));
  /* the value API */
  run_ok(f, "<<3, 4, 0>>;");
  assert_true(sinew_value_to_double(&f->res) == 5);
  assert_int_equal(sinew_value_to_int(&f->res), 5);
  char buf[64];
  assert_int_equal(sinew_value_format(&f->res, buf, sizeof buf), 5);
  assert_string_equal(buf, "3 4 0");
  assert_int_equal(sinew_value_format(&f->res, buf, 3), 5);
  assert_string_equal(buf, "3 ");
  bool b;
  run_ok(f, "\"yes\";");
  assert_true(sinew_value_to_bool(&f->res, &b) && b);
  run_ok(f, "\"0.0\";");
  assert_true(sinew_value_to_bool(&f->res, &b) && !b);
  run_ok(f, "\"perhaps\";");
  assert_false(sinew_value_to_bool(&f->res, &b));
  assert_string_equal(sinew_value_kind_name(SINEW_VALUE_VECTOR_ARRAY), "vector[]");
  run_ok(f, "string $a[] = {\"p\", \"q\"}; $a;");
  sinew_value_t copy;
  sinew_value_copy(&copy, &f->res);
  sinew_value_clear(&f->res);
  assert_string_equal(sinew_value_string_at(&copy, 1), "q");
  assert_null(sinew_value_string_at(&copy, 2));
  sinew_value_clear(&copy);
  assert_int_equal(copy.kind, SINEW_VALUE_NONE);
}

/* ---- out of memory at every allocation -------------------------------------------------------------- */

/* ---- command syntax with expressions (issue 12) ------------------------------------------------- */

static void test_command_expressions(void **state) {
  fx *f = *state;
  /* a parenthesised expression as the first word makes a command, not a call */
  run_ok(f, "string $n = \"obj\"; tcmd ($n + \".tx\") 10;");
  assert_string_equal(f->rec, "pos: string:obj.tx int:10 |");
  run_ok(f, "string $n = \"obj\"; tcmd ($n+\".ty\") (2 * 3);");
  assert_string_equal(f->rec, "pos: string:obj.ty int:6 |");
  run_ok(f, "string $a = \"p\", $b = \"q\"; tcmd ($a) ($b);");
  assert_string_equal(f->rec, "pos: string:p string:q |");
  run_ok(f, "string $a = \"a\"; tcmd ($a + \".x\") ($a + \".y\");");
  assert_string_equal(f->rec, "pos: string:a.x string:a.y |");
  /* flag values in parentheses, words after them */
  run_ok(f, "string $name = \"arm\"; tcmd -n ($name + \"_grp\") -c (1 + 2) -sc (0.5) obj;");
  assert_string_equal(f->rec, "pos: wstring:obj | -name string:arm_grp -count int:3 -scale float:0.5");
  run_ok(f, "tcmd (1) -n (\"x\");");
  assert_string_equal(f->rec, "pos: int:1 | -name string:x");
  /* negative numbers are words; a '-' glued to a number after a parenthesised word too */
  run_ok(f, "tcmd 0 -1 0;");
  assert_string_equal(f->rec, "pos: int:0 int:-1 int:0 |");
  run_ok(f, "float $x = 2; tcmd ($x) -1 0;");
  assert_string_equal(f->rec, "pos: float:2 int:-1 int:0 |");
  run_ok(f, "tcmd (1) -2.5;");
  assert_string_equal(f->rec, "pos: int:1 float:-2.5 |");
  run_ok(f, "float $y = 2; tcmd 1 -$y -($y * 2);");
  assert_string_equal(f->rec, "pos: int:1 float:-2 float:-4 |");
  run_ok(f, "float $y = 2; tcmd ($y) -$y -($y) 0;");
  assert_string_equal(f->rec, "pos: float:2 float:-2 float:-2 int:0 |");
  run_ok(f, "string $a[] = {\"q\"}; tcmd -n $a[0] -c -(1 + 2);");
  assert_string_equal(f->rec, "pos: | -name string:q -count int:-3");
  /* vectors as words */
  run_ok(f, "vector $v = <<1, 2, 3>>; tcmd <<4, 5, 6>> $v -v <<7, 8, 9>>;");
  assert_string_equal(f->rec, "pos: vector:4 5 6 vector:1 2 3 | -value vector:7 8 9");
  run_ok(f, "vector $v = <<1, 2, 3>>; tcmd ($v.x) ($v.y * 2) ($v.z);");
  assert_string_equal(f->rec, "pos: float:1 float:4 float:3 |");
  /* the same inside backquotes */
  expect_str(f, "string $n = \"leg\"; string $g = `echo ($n + \"_grp\")`; $g;", "leg_grp");
  run_ok(f, "string $n = \"leg\"; string $g = `tcmd -n ($n + \"_grp\") ($n) (1 + 1)`;");
  assert_string_equal(f->rec, "pos: string:leg int:2 | -name string:leg_grp");
  expect_str(f, "string $r[] = `echo (\"a\" + 1) (\"b\" + 2)`; $r[0] + $r[1];", "a1b2");
  /* ... where function syntax stays function syntax */
  expect_int(f, "abs(-3) + 1;", 4);
  expect_int(f, "int $a = 2; print ($a + 1); 0;", 0);
  assert_string_equal(f->out, "3");
  expect_int(f, "tcmd(\"a\", 5);", 2);
  assert_string_equal(f->rec, "pos: string:a int:5 |");
  expect_int(f, "int $x = `tcmd a`; $x;", 1);
  expect_int(f, "int $x = tcmd(\"a\", \"b\") * 10; $x;", 20);
  /* procedures: function syntax, command syntax, parenthesised words */
  run_ok(f, "global proc int add2(int $a, int $b) { return $a * 10 + $b; }");
  expect_int(f, "int $a = 1; add2($a, 2);", 12);
  expect_int(f, "int $a = 1; add2 $a 3;", 13);
  expect_int(f, "int $a = 1; add2 ($a) (4);", 14);
  expect_int(f, "int $a = 1; add2 ($a + 1) -5;", 15);
  expect_int(f, "int $a = 1; add2 ($a) 6;", 16);
  expect_int(f, "add2(1, 2) + add2 (0, 1);", 13);
  /* bad input: syntax errors name the file, line and column */
  expect_error(f, "string $n;\ntcmd ($n + ) 1;", SINEW_ESYNTAX, "test.mel:2:12: unexpected ')'");
  expect_error(f, "tcmd ($n + \".x\" 1;", SINEW_ESYNTAX, "test.mel:1:17: expected ')'");
  expect_error(f, "int $a;\nadd2($a, 2) 3;", SINEW_ESYNTAX, "test.mel:2:8: expected ')'");
  expect_error(f, "if (1) print(\"a\") else print(\"b\");", SINEW_ESYNTAX, "test.mel:1:19: expected ';'");
  expect_error(f, "int $a; add2 ($a) (1) (2);", SINEW_ESYNTAX, "test.mel:1:9: add2 takes 2 arguments, not 3");
  expect_error(f, "\n  fail (\"x\" + 1) 2;", SINEW_EINVAL, "test.mel:2: fail: boom x1");
}

/* ---- declarations as MEL has them ---------------------------------------------------------------- */

static void test_declarations(void **state) {
  fx *f = *state;
  /* implicit declarations take the type of their first value */
  expect_str(f, "for ($i = 0; $i < 3; $i++) $arr[$i] = $i * 2; string $t = $arr[2] + \" \" + size($arr); $t;", "4 3");
  run_ok(f, "for ($i = 0; $i < 3; $i++) $arr[$i] = $i * 2; $arr;");
  assert_int_equal(f->res.kind, SINEW_VALUE_INT_ARRAY);
  run_ok(f, "$names[0] = \"a\"; $names;");
  assert_int_equal(f->res.kind, SINEW_VALUE_STRING_ARRAY);
  run_ok(f, "$ws[2] = 0.5; $ws;");
  assert_int_equal(f->res.kind, SINEW_VALUE_FLOAT_ARRAY);
  assert_int_equal(sinew_value_count(&f->res), 3);
  expect_int(f, "$x = 5; $x = 2.9; $x;", 2);
  expect_str(f, "$s = \"a\"; $s = 5; $s + 1;", "51");
  /* a loop variable lives on after its loop, and is used again by a later one */
  expect_int(f, "for ($i = 0; $i < 4; $i++) ; $i;", 4);
  expect_int(f, "for ($i = 0; $i < 2; $i++) {} for ($i = 0; $i < 5; $i++) {} $i;", 5);
  expect_int(f, "{ int $i; for ($i = 0; $i < 2; $i++) ; } int $n = 0; for ($i = 0; $i < 3; $i++) $n += $i; $n;", 3);
  expect_str(f, "for ($k in {\"a\", \"b\"}) ; string $r = $k; for ($k in {\"c\"}) $r += $k; $r;", "bc");
  expect_int(f, "int $t = 0; for ($i = 0; $i < 3; $i++) { int $j = $i * 2; $t += $j; } for ($j = 0; $j < 2; $j++) $t += 10; $t;", 26);
  expect_int(f, "if (1) $late = 7; $late;", 7);
  /* blocks: a variable declared (or made by assignment) inside one is local to it */
  expect_int(f, "int $test = 10; { int $test = 15; } $test;", 10);
  expect_error(f, "{ $inner = 1; }\n$inner;", SINEW_ESYNTAX, "test.mel:2:1: undeclared variable $inner");
  expect_error(f, "if (1) { int $q = 1; }\n$q;", SINEW_ESYNTAX, "test.mel:2:1: undeclared variable $q");
  /* declaring again in the same scope: same type allowed (the value stays unless a new one is
   * given); another type is an error */
  expect_int(f, "int $x = 1; int $x; $x;", 1);
  expect_int(f, "int $x = 1; int $x = 3; $x;", 3);
  expect_int(f, "string $a[] = {\"p\"}; string $a[]; size($a);", 1);
  expect_int(f, "for ($i = 0; $i < 3; $i++) { int $x; $x++; if ($i == 2) print $x; } 0;", 0);
  assert_string_equal(f->out, "1");
  expect_error(f, "int $x = 1;\nfloat $x;", SINEW_ESYNTAX,
               "test.mel:2:7: $x is already declared as int in this scope; it cannot be declared again as float");
  expect_error(f, "string $s;\nstring $s[];", SINEW_ESYNTAX, "test.mel:2:8: $s is already declared as string");
  /* globals: declared where they are used; the same name again keeps the value */
  run_ok(f, "global string $gRig = \"rig1\";");
  expect_str(f, "global string $gRig; $gRig;", "rig1");
  expect_str(f, "global proc string rigName() { global string $gRig; return $gRig; } rigName();", "rig1");
  expect_error(f, "proc string noGlobal() { return $gRig; }", SINEW_ESYNTAX, "test.mel:1:33: undeclared variable $gRig");
}

/* ---- catch, error, warning ---------------------------------------------------------------------- */

static void test_catch_error(void **state) {
  fx *f = *state;
  /* catch: 1 when what it evaluates fails, the error logged; the script goes on */
  int before = f->nlog[SINEW_LOG_COMMAND_FAILED];
  expect_int(f, "int $r = catch(`fail x`); $r;", 1);
  assert_int_equal(f->nlog[SINEW_LOG_COMMAND_FAILED], before + 1);
  assert_string_equal(f->lastlog, "test.mel:1: fail: boom x");
  expect_int(f, "catch(`counter`);", 0);
  expect_int(f, "catch(`fail`) + catch(`fail`) + catch(`counter`);", 2);
  expect_int(f, "catch (`fail a`);\ncounter;", f->counter + 1);
  expect_int(f, "int $r = catch(fail(\"y\")); $r;", 1);
  /* command syntax, errors inside procedures, nested catches */
  expect_int(f, "int $n = 0; catch `fail`; $n + 5;", 5);
  expect_int(f, "proc deep(int $d) { if ($d == 0) fail; deep($d - 1); } catch(deep(5));", 1);
  expect_int(f, "proc int inner() { return catch(`fail`) * 10; } catch(inner()) + inner();", 10);
  expect_int(f, "int $k = 0; for ($i = 0; $i < 5; $i++) $k += catch(`fail`); $k;", 5);
  expect_int(f, "catch(eval(\"fail z\"));", 1);
  expect_int(f, "catch(eval(\"int $q = ;\"));", 1);
  expect_int(f, "catch(`error \"stop\"`);", 1);
  /* catchQuiet: the same, nothing logged */
  before = f->nlog[SINEW_LOG_COMMAND_FAILED];
  expect_int(f, "catchQuiet(`fail q`);", 1);
  assert_int_equal(f->nlog[SINEW_LOG_COMMAND_FAILED], before);
  /* a stop is not an error to catch */
  sinew_lang_limits_t lim = {.max_steps = 100};
  sinew_lang_set_limits(f->L, &lim);
  expect_error(f, "catch(eval(\"while (1) ;\"));", SINEW_ELIMIT, NULL);
  sinew_lang_set_limits(f->L, NULL);
  /* error: stops the script with the file and line */
  expect_error(f, "counter;\nerror \"bad joint\";\ncounter;", SINEW_ERUNTIME, "test.mel:2: Error: bad joint");
  expect_error(f, "proc check(string $j) {\n  if ($j == \"\") error (\"no joint given for \" + \"arm\");\n}\ncheck(\"\");",
               SINEW_ERUNTIME, "test.mel:2: Error: no joint given for arm");
  expect_error(f, "error -sl true \"x\";", SINEW_ERUNTIME, "test.mel:1: Error: x");
  /* warning: logged with the file and line, the script goes on */
  before = f->nlog[SINEW_LOG_FILE_WARNING];
  expect_int(f, "\nwarning \"careful\"; 7;", 7);
  assert_int_equal(f->nlog[SINEW_LOG_FILE_WARNING], before + 1);
  assert_string_equal(f->lastlog, "test.mel:2: Warning: careful");
  expect_error(f, "catch();", SINEW_ESYNTAX, "test.mel:1:1: catch takes one argument, not 0");
}

/* ---- language commands: source, exists, whatIs, about, optionVar, environment, UI ---------------- */

static void write_text(const char *path, const char *text) {
  FILE *fp = fopen(path, "w");
  assert_non_null(fp);
  fputs(text, fp);
  fclose(fp);
}

static void test_language_commands(void **state) {
  fx *f = *state;
  char dir[] = "/tmp/sinew_test_src_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char p1[512], p2[512], p3[512], p4[512], sub[512], main_path[512], src[2048];
  snprintf(sub, sizeof sub, "%s/lib", dir);
  snprintf(p1, sizeof p1, "%s/lib/util.mel", dir);
  snprintf(p2, sizeof p2, "%s/paths/autoRig.mel", dir);
  snprintf(p3, sizeof p3, "%s/main.mel", dir);
  snprintf(p4, sizeof p4, "%s/paths/broken.mel", dir);
  snprintf(main_path, sizeof main_path, "%s/paths", dir);
  assert_int_equal(mkdir(sub, 0700), 0);
  assert_int_equal(mkdir(main_path, 0700), 0);
  write_text(p1, "global proc string suffixed(string $n) { return ($n + \"_jnt\"); }\n");
  write_text(p2, "global proc int autoRig(int $n) { return $n * 3; }\n");
  write_text(p4, "counter;\nnotACommand;\n");
  /* source: relative to the running script, then MAYA_SCRIPT_PATH; procedures it defines can
   * be called by the script that sourced it */
  snprintf(src, sizeof src, "source \"lib/util.mel\";\nsource lib/util;\nstring $r = suffixed(\"arm\") + `suffixed leg`;\n$r;");
  write_text(p3, src);
  sinew_value_clear(&f->res);
  if (sinew_lang_run_file(f->L, p3, &f->res)) fail_msg("%s", sinew_lang_errmsg(f->L));
  assert_string_equal(sinew_value_string(&f->res), "arm_jntleg_jnt");
  snprintf(src, sizeof src, "putenv \"MAYA_SCRIPT_PATH\" \"/nonexistent:%s\"; source \"util.mel\";", sub);
  run_ok(f, src);
  expect_error(f, "putenv \"MAYA_SCRIPT_PATH\" \"\";\nsource \"nowhere.mel\";", SINEW_ENOTFOUND,
               "test.mel:2: source: cannot find nowhere.mel (looked beside test.mel and in MAYA_SCRIPT_PATH)");
  /* a procedure in MAYA_SCRIPT_PATH in a file of its name is sourced on its first call */
  snprintf(src, sizeof src, "putenv \"MAYA_SCRIPT_PATH\" \"%s\"; autoRig(4) + `autoRig 1`;", main_path);
  expect_int(f, src, 15);
  char want[1024];
  snprintf(want, sizeof want, "Mel procedure found in: %s", p2);
  expect_str(f, "whatIs autoRig;", want);
  /* an error in a sourced script names that script's line */
  snprintf(want, sizeof want, "test.mel:2: %s:2: notACommand: unknown command", p4);
  expect_error(f, "\nsource broken;", SINEW_ENOTFOUND, want);
  expect_int(f, "exists broken;", 1);
  /* keep-going mode (reading a file) skips an unknown command without sourcing anything */
  sinew_lang_set_keep_going(f->L, true);
  int counted = f->counter;
  run_ok(f, "broken;");
  assert_int_equal(f->counter, counted);
  sinew_lang_set_keep_going(f->L, false);
  /* exists, whatIs */
  expect_int(f, "exists \"tcmd\";", 1);
  expect_int(f, "exists(\"sin\") + exists(\"suffixed\") + exists(\"window\") + exists(\"catch\");", 4);
  expect_int(f, "exists \"noSuchThing\";", 0);
  expect_int(f, "exists \"\";", 0);
  expect_str(f, "whatIs tcmd;", "Command");
  expect_str(f, "whatIs \"print\";", "Command");
  expect_str(f, "whatIs source;", "Command");
  snprintf(want, sizeof want, "Mel procedure found in: %s", p1);
  expect_str(f, "whatIs suffixed;", want);
  run_ok(f, "eval \"global proc typed() {}\";");
  expect_str(f, "whatIs typed;", "Mel procedure entered interactively.");
  expect_str(f, "whatIs noSuchThing;", "Unknown");
  run_ok(f, "global float $gW[];");
  expect_str(f, "whatIs \"$gW\";", "float array variable");
  run_ok(f, "global int $gI;");
  expect_str(f, "whatIs \"$gI\";", "int variable");
  expect_str(f, "whatIs \"$nope\";", "Unknown");
  snprintf(want, sizeof want, "Script found in: %s/broken.mel", main_path);
  expect_str(f, "whatIs broken;", want);
  /* about */
  expect_int(f, "about -batch;", 1);
  expect_int(f, "`about -b`;", 1);
  expect_str(f, "about -version;", "2020");
  expect_int(f, "about -apiVersion;", 20200000);
  expect_str(f, "about -os;", "linux64");
  expect_int(f, "about -windows;", 0);
  expect_int(f, "about -linux;", 1);
  expect_error(f, "about -nope;", SINEW_EINVAL, "test.mel:1: about: unknown flag -nope");
  /* optionVar: kept in the context */
  run_ok(f, "optionVar -iv \"rigSize\" 3 -fv \"rigScale\" 1.5 -sv \"rigName\" \"bob\";");
  expect_int(f, "optionVar -q \"rigSize\";", 3);
  expect_float(f, "`optionVar -q rigScale`;", 1.5);
  expect_str(f, "optionVar -q \"rigName\";", "bob");
  expect_int(f, "optionVar -exists \"rigName\";", 1);
  expect_int(f, "optionVar -exists \"other\";", 0);
  expect_int(f, "optionVar -q \"other\";", 0);
  run_ok(f, "optionVar -sva \"recent\" \"a\" -sva \"recent\" \"b\"; optionVar -sva \"recent\" \"c\";");
  expect_str(f, "string $r[] = `optionVar -q \"recent\"`; $r[0] + $r[2] + size($r);", "ac3");
  expect_int(f, "optionVar -arraySize \"recent\";", 3);
  run_ok(f, "optionVar -iva \"ids\" 4 -iva \"ids\" 5;");
  expect_int(f, "int $ids[] = `optionVar -q ids`; $ids[1];", 5);
  run_ok(f, "optionVar -remove \"rigName\";");
  expect_int(f, "optionVar -exists \"rigName\";", 0);
  run_ok(f, "optionVar -ca \"recent\";");
  expect_int(f, "optionVar -arraySize \"recent\";", 0);
  /* getenv / putenv: the context's environment over the process's */
  expect_str(f, "putenv \"SINEW_TEST_VAR\" \"hello\"; getenv(\"SINEW_TEST_VAR\");", "hello");
  expect_str(f, "getenv \"SINEW_TEST_VAR\";", "hello");
  assert_null(getenv("SINEW_TEST_VAR"));
  expect_str(f, "getenv(\"SINEW_TEST_UNSET_VAR\");", "");
  /* UI commands are not faked; scripts that check about -batch skip them */
  expect_error(f, "\nwindow -title \"Rig\";", SINEW_EUNSUPPORTED,
               "test.mel:2: window: a UI command; sinew runs without a user interface");
  expect_error(f, "string $b = `button -l \"go\"`;", SINEW_EUNSUPPORTED,
               "test.mel:1: button: a UI command; sinew runs without a user interface");
  expect_int(f, "int $shown = 0; if (!`about -batch`) { window; showWindow; $shown = 1; } $shown;", 0);
  expect_int(f, "catchQuiet(`deleteUI \"win\"`);", 1);
  expect_str(f, "whatIs window;", "Command");
  remove(p1);
  remove(p2);
  remove(p3);
  remove(p4);
  rmdir(sub);
  rmdir(main_path);
  rmdir(dir);
}

/* ---- Maya's string and array procedures ------------------------------------------------------------ */

static void test_string_array_procs(void **state) {
  fx *f = *state;
  expect_int(f, "string $p[]; tokenize(\"a|b||c\", \"|\", $p);", 3);
  expect_str(f, "string $p[]; int $n = tokenize(\"l_arm_jnt\", \"_\", $p); $p[1] + $n;", "arm3");
  expect_int(f, "string $p[]; tokenize \"x y  z\" $p;", 3);
  expect_int(f, "tokenize(\"one two\", $fresh); size($fresh);", 2);
  expect_str(f, "substituteAllString(\"a.b.c\", \".\", \"_\");", "a_b_c");
  expect_str(f, "substituteAllString(\"l_arm_l\", \"l\", \"left\");", "left_arm_left");
  expect_str(f, "substituteAllString(\"abc\", \"\", \"x\");", "abc");
  expect_str(f, "substituteAllString(\"aaa\", \"aa\", \"b\");", "ba");
  expect_str(f, "substitute(\"_jnt$\", \"arm_jnt\", \"_ctl\");", "arm_ctl");
  expect_str(f, "match(\"[0-9]+\", \"joint12_end\");", "12");
  expect_int(f, "gmatch(\"arm_jnt\", \"*_jnt\");", 1);
  expect_str(f, "strip(\"  x y \\n\");", "x y");
  expect_int(f, "startsWith(\"L_arm\", \"L_\") + endsWith(\"L_arm\", \"arm\") + endsWith(\"a\", \"arm\");", 2);
  expect_str(f, "stringArrayToString(stringArrayRemove({\"a\", \"c\"}, {\"a\", \"b\", \"a\", \"c\", \"d\"}), \",\");", "b,d");
  expect_str(f, "stringArrayToString(stringArrayCatenate({\"a\"}, {\"b\", \"c\"}), \"\");", "abc");
  expect_int(f, "stringArrayContains(\"b\", {\"a\", \"b\"}) + stringArrayContains(\"z\", {\"a\"});", 1);
  expect_int(f, "stringArrayFind(\"b\", 0, {\"a\", \"b\", \"b\"});", 1);
  expect_int(f, "stringArrayFind(\"b\", 2, {\"a\", \"b\", \"b\"});", 2);
  expect_int(f, "stringArrayFind(\"q\", 0, {\"a\"});", -1);
  expect_str(f, "stringArrayToString(stringArrayRemoveDuplicates({\"a\", \"b\", \"a\", \"c\", \"b\"}), \" \");", "a b c");
  expect_str(f, "stringArrayToString(stringArrayRemoveAtIndex(1, {\"a\", \"b\", \"c\"}), \"\");", "ac");
  expect_str(f, "string $s[] = {\"c\", \"a\", \"b\"}; $s = sort($s); stringArrayToString($s, \"\");", "abc");
  expect_int(f, "string $s[] = {\"c\"}; clear($s); size($s);", 0);
  expect_int(f, "size(\"four\") + size({1, 2});", 6);
  /* command syntax works for them too */
  expect_int(f, "string $l[] = {\"x\", \"y\"}; stringArrayFind \"y\" 0 $l;", 1);
  expect_error(f, "stringArrayFind(\"y\", 0);", SINEW_ESYNTAX, "test.mel:1:1: wrong number of arguments to stringArrayFind (2)");
  expect_error(f, "string $l[];\ntokenize(\"a b\", \"c\");", SINEW_ESYNTAX,
               "test.mel:2:17: tokenize needs an array variable as its last argument");
}

static const char *OOM_SCRIPT =
    "global proc string[] parts(string $s) { string $r[]; tokenize($s, \"_\", $r); return $r; }\n"
    "global int $calls;\n"
    "string $p[] = parts(\"l_arm_joint\");\n"
    "vector $v = <<1, 2, 3>> ^ <<0, 1, 0>>;\n"
    "matrix $m[2][2] = <<1, 2; 3, 4>>;\n"
    "float $f[]; int $i;\n"
    "for ($i = 0; $i < 6; $i++) { $f[$i] = $i * 0.5; $calls++; }\n"
    "string $s = $p[1] + \"_\" + size($f) + \" \" + $v;\n"
    "tcmd -n $s -it a -it b -pair 1 2 word `echo x`;\n"
    "print($s);\n"
    "switch ($p[0]) { case \"l\": $s += \"!\"; break; default: $s = \"\"; }\n"
    "$s;\n";

static void test_out_of_memory(void **state) {
  (void)state;
  long total = -1;
  for (long k = 1;; k++) {
    test_alloc_install();
    fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    assert_int_equal(sinew_scene_create(NULL, &f->g), SINEW_OK);
    sinew_lang_desc_t d = {.print = print_hook, .user_data = f};
    assert_int_equal(sinew_lang_create(f->g, &d, &f->L), SINEW_OK);
    register_commands(f);
    test_alloc_reset();
    test_alloc_fail_at(k);
    int rc = sinew_lang_run(f->L, OOM_SCRIPT, strlen(OOM_SCRIPT), "oom.mel", &f->res);
    long made = test_alloc_count();
    test_alloc_fail_at(0);
    if (rc == SINEW_OK) {
      assert_int_equal(f->res.kind, SINEW_VALUE_STRING);
      assert_string_equal(sinew_value_string(&f->res), "arm_6 -3 0 1!");
    } else if (rc != SINEW_ENOMEM) {
      fail_msg("allocation %ld failed: %s (%s)", k, sinew_err_name(rc), sinew_lang_errmsg(f->L));
    }
    sinew_value_clear(&f->res);
    sinew_lang_destroy(f->L);
    sinew_graph_destroy(f->g);
    free(f);
    if (test_alloc_live() != 0) fail_msg("allocation %ld failed: %ld blocks leaked", k, test_alloc_live());
    test_alloc_uninstall();
    if (rc == SINEW_OK && made < k) {
      total = made;
      break;
    }
    if (k > 100000) fail_msg("no end to the allocations");
  }
  assert_true(total > 20);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_literals, setup, teardown),
      cmocka_unit_test_setup_teardown(test_conversions, setup, teardown),
      cmocka_unit_test_setup_teardown(test_operators, setup, teardown),
      cmocka_unit_test_setup_teardown(test_control_flow, setup, teardown),
      cmocka_unit_test_setup_teardown(test_locals_table_moves, setup, teardown),
      cmocka_unit_test_setup_teardown(test_arrays, setup, teardown),
      cmocka_unit_test_setup_teardown(test_procedures, setup, teardown),
      cmocka_unit_test_setup_teardown(test_globals, setup, teardown),
      cmocka_unit_test_setup_teardown(test_command_syntax, setup, teardown),
      cmocka_unit_test_setup_teardown(test_command_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_command_errors_fixed, setup, teardown),
      cmocka_unit_test_setup_teardown(test_builtin_math, setup, teardown),
      cmocka_unit_test_setup_teardown(test_builtin_strings, setup, teardown),
      cmocka_unit_test_setup_teardown(test_builtin_random, setup, teardown),
      cmocka_unit_test_setup_teardown(test_print, setup, teardown),
      cmocka_unit_test_setup_teardown(test_syntax_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_command_failure, setup, teardown),
      cmocka_unit_test_setup_teardown(test_keep_going, setup, teardown),
      cmocka_unit_test_setup_teardown(test_limits, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bounded_execution, setup, teardown),
      cmocka_unit_test_setup_teardown(test_runtime_faults, setup, teardown),
      cmocka_unit_test_setup_teardown(test_hosting, setup, teardown),
      cmocka_unit_test_setup_teardown(test_command_expressions, setup, teardown),
      cmocka_unit_test_setup_teardown(test_declarations, setup, teardown),
      cmocka_unit_test_setup_teardown(test_catch_error, setup, teardown),
      cmocka_unit_test_setup_teardown(test_language_commands, setup, teardown),
      cmocka_unit_test_setup_teardown(test_string_array_procs, setup, teardown),
      cmocka_unit_test(test_out_of_memory),
  };
  return cmocka_run_group_tests_name("lang", tests, NULL, NULL);
}
