/* tests/support.c: a counting allocator with fault injection for the tests, the helpers the
 * command tests share (run a command, read its result, check a bad one), and the
 * fault-injection harness over commands. */
#include "tests/support.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sinew/graph.h"

static long count, fail_at, live;
static size_t live_bytes;

/* Each block carries its size in a header so live blocks can be counted. */
typedef union header {
  size_t size;
  max_align_t align;
} header;

static void *t_malloc(size_t n) {
  if (fail_at && count + 1 == fail_at) {
    count++;
    return NULL;
  }
  count++;
  header *h = malloc(sizeof *h + n);
  if (!h) return NULL;
  h->size = n;
  live++;
  live_bytes += n;
  return h + 1;
}

static void t_free(void *p) {
  if (!p) return;
  live--;
  live_bytes -= ((header *)p - 1)->size;
  free((header *)p - 1);
}

static void *t_realloc(void *p, size_t n) {
  if (!p) return t_malloc(n);
  if (fail_at && count + 1 == fail_at) {
    count++;
    return NULL;
  }
  count++;
  size_t old = ((header *)p - 1)->size;
  header *h = realloc((header *)p - 1, sizeof *h + n);
  if (!h) return NULL;
  h->size = n;
  live_bytes = live_bytes - old + n;
  return h + 1;
}

static void *t_calloc(size_t a, size_t b) {
  size_t n = a * b;
  char *p = t_malloc(n);
  if (p)
    for (size_t i = 0; i < n; i++) p[i] = 0;
  return p;
}

void test_alloc_install(void) {
  sinew_allocator_t a = {t_malloc, t_realloc, t_calloc, t_free};
  sinew_set_allocator(&a);
  test_alloc_reset();
}

void test_alloc_uninstall(void) { sinew_set_allocator(NULL); }
void test_alloc_fail_at(long n) { fail_at = n; }
long test_alloc_count(void) { return count; }
long test_alloc_live(void) { return live; }
size_t test_alloc_live_bytes(void) { return live_bytes; }
void test_alloc_reset(void) {
  count = 0;
  fail_at = 0;
}

/* ---- the fault-injection harness over commands -------------------------------------------------- */

char *test_scene_text(sinew_session_t *s) {
  FILE *f = tmpfile();
  assert_non_null(f);
  if (sinew_session_write_ma(s, f, "scene.ma") != SINEW_OK) fail_msg("save: %s", sinew_session_errmsg(s));
  long n = ftell(f);
  assert_true(n >= 0);
  char *text = malloc((size_t)n + 1);
  assert_non_null(text);
  rewind(f);
  assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
  text[n] = 0;
  fclose(f);
  return text;
}

static bool count_conn(void *ud, const sinew_connection_t *c) {
  (void)c;
  (*(size_t *)ud)++;
  return true;
}

char *test_snapshot(sinew_session_t *s) {
  sinew_graph_t *g = sinew_session_graph(s);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) fail_msg("open_memstream failed");
  size_t nc = 0;
  sinew_foreach_connection(g, (sinew_node_t){0, 0}, false, count_conn, &nc);
  fprintf(f, "nodes %zu connections %zu\n", sinew_node_count(g), nc);
  if (sinew_session_write_ma(s, f, "snapshot") != SINEW_OK) fail_msg("save: %s", sinew_session_errmsg(s));
  fclose(f);
  return buf;
}

void test_expect_nums(sinew_session_t *s, const char *text, size_t n, ...) {
  sinew_value_t v = {0};
  int rc = sinew_session_run(s, text, strlen(text), "test.mel", &v);
  if (rc) fail_msg("%s\n  failed: %s", text, sinew_session_errmsg(s));
  size_t got = sinew_value_count(&v);
  if (got != n) fail_msg("%s\n  gave %zu numbers, want %zu", text, got, n);
  va_list ap;
  va_start(ap, n);
  for (size_t i = 0; i < n; i++) {
    double want = va_arg(ap, double), x = sinew_value_double_at(&v, i);
    if (fabs(x - want) > 1e-9) fail_msg("%s\n  number %zu is %.12g, want %.12g", text, i, x, want);
  }
  va_end(ap);
  sinew_value_clear(&v);
}

void test_ok(sinew_session_t *s, const char *text) {
  if (sinew_session_run(s, text, strlen(text), "test.mel", NULL)) fail_msg("%s\n  failed: %s", text, sinew_session_errmsg(s));
}

static char resbuf[1 << 14];

const char *test_value_text(const sinew_value_t *v) {
  sinew_value_format(v, resbuf, sizeof resbuf);
  size_t n = strlen(resbuf);
  for (size_t i = 0; i < n; i++)
    if (resbuf[i] == '\n') resbuf[i] = ' ';
  while (n && resbuf[n - 1] == ' ') resbuf[--n] = 0;
  return resbuf;
}

const char *test_res(sinew_session_t *s, const char *text) {
  sinew_value_t v = {0};
  if (sinew_session_run(s, text, strlen(text), "test.mel", &v)) fail_msg("%s\n  failed: %s", text, sinew_session_errmsg(s));
  test_value_text(&v);
  sinew_value_clear(&v);
  return resbuf;
}

void test_expect_res(sinew_session_t *s, const char *text, const char *want) {
  const char *got = test_res(s, text);
  if (strcmp(got, want) != 0) fail_msg("%s\n  gave '%s'\n  want '%s'", text, got, want);
}

double test_num(sinew_session_t *s, const char *text) {
  sinew_value_t v = {0};
  if (sinew_session_run(s, text, strlen(text), "test.mel", &v)) fail_msg("%s\n  failed: %s", text, sinew_session_errmsg(s));
  double d = sinew_value_to_double(&v);
  sinew_value_clear(&v);
  return d;
}

void test_bad(sinew_session_t *s, const char *text, ...) {
  char *before = test_snapshot(s);
  char *sel_before = strdup(test_res(s, "ls -sl"));
  if (!sel_before) fail_msg("out of memory");
  char script[4096];
  snprintf(script, sizeof script, "\n\n%s", text);
  if (sinew_session_run(s, script, strlen(script), "test.mel", NULL) == 0) fail_msg("%s\n  succeeded; it should fail", text);
  const char *msg = sinew_session_errmsg(s);
  if (!strstr(msg, "test.mel:3:")) fail_msg("%s\n  message '%s' does not say test.mel:3:", text, msg);
  char cmdname[64];
  snprintf(cmdname, sizeof cmdname, "%.*s:", (int)strcspn(text, " ;"), text);
  if (!strstr(msg, cmdname)) fail_msg("%s\n  message '%s' does not name the command", text, msg);
  va_list ap;
  va_start(ap, text);
  for (const char *needle; (needle = va_arg(ap, const char *));)
    if (!strstr(msg, needle)) fail_msg("%s\n  message '%s' does not name '%s'", text, msg, needle);
  va_end(ap);
  const char *sel_after = test_res(s, "ls -sl");
  if (strcmp(sel_after, sel_before) != 0) fail_msg("%s\n  changed the selection from '%s' to '%s'", text, sel_before, sel_after);
  char *after = test_snapshot(s);
  if (strcmp(before, after) != 0) {
    test_print_diff(before, after);
    fail_msg("%s\n  changed the scene", text);
  }
  free(sel_before);
  free(before);
  free(after);
}

void test_print_diff(const char *before, const char *after) {
  const char *a = before, *b = after;
  int shown = 0;
  while (*a && *b && shown < 30) {
    const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
    size_t la = ea ? (size_t)(ea - a) : strlen(a), lb = eb ? (size_t)(eb - b) : strlen(b);
    if (la != lb || memcmp(a, b, la) != 0) {
      print_error("- %.*s\n+ %.*s\n", (int)la, a, (int)lb, b);
      shown++;
    }
    a += la + (ea != NULL);
    b += lb + (eb != NULL);
  }
  if (*a || *b) print_error("(and %s)\n", *a ? "lines removed" : "lines added");
}

static int run_text(sinew_session_t *s, const char *text) {
  return sinew_session_run(s, text, strlen(text), "fault.mel", NULL);
}

/* One run with allocation n of the command failing (0: none). *reached: the command made at
 * least n allocations. Returns the command's status. */
static int fault_run(const test_fault_desc_t *d, long n, long *allocs) {
  test_alloc_install();
  sinew_session_desc_t sd = {.strict = d->strict};
  sinew_session_t *s = NULL;
  assert_int_equal(sinew_session_create(&sd, &s), SINEW_OK);
  if (d->setup && run_text(s, d->setup)) fail_msg("setup '%s' failed: %s", d->setup, sinew_session_errmsg(s));
  char *before = test_scene_text(s);
  char *probe_before = d->probe ? d->probe(s) : NULL;
  test_alloc_reset();
  test_alloc_fail_at(n);
  int rc = run_text(s, d->command);
  test_alloc_fail_at(0);
  *allocs = test_alloc_count();
  if (rc != SINEW_OK) {
    char *after = test_scene_text(s);
    if (strcmp(before, after) != 0) {
      const char *dump = getenv("SINEW_FAULT_DUMP"); /* a folder: the two saves are written there */
      for (int k = 0; dump && k < 2; k++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.ma", dump, k ? "after" : "before");
        FILE *f = fopen(path, "w");
        if (f) fputs(k ? after : before, f), fclose(f);
      }
      test_print_diff(before, after);
      fail_msg("'%s' failing at allocation %ld (%s) changed the scene", d->command, n, sinew_session_errmsg(s));
    }
    free(after);
    if (d->probe) {
      char *probe_after = d->probe(s);
      if (strcmp(probe_before, probe_after) != 0) {
        test_print_diff(probe_before, probe_after);
        fail_msg("'%s' failing at allocation %ld: the scene evaluates differently", d->command, n);
      }
      free(probe_after);
    }
  }
  free(probe_before);
  free(before);
  sinew_session_destroy(s);
  if (test_alloc_live() != 0)
    fail_msg("'%s' failing at allocation %ld: %ld blocks leaked", d->command, n, test_alloc_live());
  test_alloc_uninstall();
  return rc;
}

long test_fault_command(const test_fault_desc_t *d) {
  long total = 0, failed = 0;
  if (fault_run(d, 0, &total) != SINEW_OK) fail_msg("'%s' fails without a fault", d->command);
  long step = d->points > 0 && total > d->points ? total / d->points : 1;
  for (long n = 1; n <= total; n += step) {
    long allocs = 0;
    if (fault_run(d, n, &allocs) != SINEW_OK) failed++;
    else if (allocs < n) break; /* the failure point was not reached: fewer allocations this time */
  }
  return failed;
}

long test_fault(const char *setup, const char *command) {
  test_fault_desc_t d = {.setup = setup, .command = command};
  return test_fault_command(&d);
}

void test_remove_tree(const char *path) {
  struct stat st;
  if (lstat(path, &st)) return;
  if (!S_ISDIR(st.st_mode)) {
    unlink(path);
    return;
  }
  DIR *d = opendir(path);
  for (struct dirent *e; d && (e = readdir(d));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char child[1024];
    snprintf(child, sizeof child, "%s/%s", path, e->d_name);
    test_remove_tree(child);
  }
  if (d) closedir(d);
  rmdir(path);
}
