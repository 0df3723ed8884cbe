/* Shared test helpers: a counting allocator with fault injection, and small assertions. */
#ifndef SINEW_TESTS_SUPPORT_H
#define SINEW_TESTS_SUPPORT_H
#include <stdbool.h>
#include <stddef.h>

#include "sinew/cmds.h"

/* Installs a counting allocator through sinew_set_allocator(). */
void test_alloc_install(void);
/* Restores the default allocator. */
void test_alloc_uninstall(void);
/* The allocation number (1-based, counted since install/reset) that fails; 0 = never. */
void test_alloc_fail_at(long n);
long test_alloc_count(void);   /* allocations made since the last reset */
long test_alloc_live(void);    /* blocks currently allocated through the hook */
size_t test_alloc_live_bytes(void); /* bytes in those blocks */
void test_alloc_reset(void);

/* The scene saved as Maya ASCII text (malloc'd; the caller frees it). Fails the test when the
 * save fails. */
char *test_scene_text(sinew_session_t *s);
/* The scene as a test compares it before and after a command: the node and connection counts,
 * then the .ma text (malloc'd; the caller frees it). */
char *test_snapshot(sinew_session_t *s);
/* Runs `text` (as test.mel) and requires a result of n numbers equal to the double arguments
 * that follow, within 1e-9. */
void test_expect_nums(sinew_session_t *s, const char *text, size_t n, ...);
/* Running commands as test.mel in a session. test_ok: the text must succeed. test_res: its result
 * formatted as MEL prints it, newlines made spaces, trailing spaces cut (a static buffer, valid
 * until the next call). test_expect_res: that result must be `want`. test_num: the result as a
 * number. */
void test_ok(sinew_session_t *s, const char *text);
/* A value formatted as test_res formats a result (the same static buffer). */
const char *test_value_text(const sinew_value_t *v);
const char *test_res(sinew_session_t *s, const char *text);
void test_expect_res(sinew_session_t *s, const char *text, const char *want);
double test_num(sinew_session_t *s, const char *text);
/* A command that must fail on line 3 of test.mel with a message naming the command and each
 * needle that follows (NULL ends the list), leaving the scene (test_snapshot) and the selection
 * exactly as they were. */
void test_bad(sinew_session_t *s, const char *text, ...);
/* Removes a file, or a folder with everything in it (symbolic links are removed, not followed). */
void test_remove_tree(const char *path);
/* Prints the lines where two texts differ (at most 30) through cmocka's print_error. */
void test_print_diff(const char *before, const char *after);

/* The fault-injection harness over commands. A fresh session (strict reading when asked) runs
 * `setup` (which must succeed), then `command` with allocation n failing: a failing command
 * must leave the scene saved as .ma byte-identical to the save before it, and every run must
 * leak nothing (the session is destroyed and every block given back). n runs 1, 2, 3 ... until
 * the command no longer reaches allocation n; with `points` > 0 only about that many
 * allocations spread over the command's whole count are tried (for long commands, such as
 * reading a big file). Returns how many runs made the command fail. */
typedef struct test_fault_desc {
  const char *setup;   /* MEL, or NULL */
  const char *command; /* MEL */
  bool strict;         /* the session reads files strictly (a failing line fails the read) */
  long points;         /* 0: every allocation */
  /* What the scene evaluates to, as text (malloc'd), compared too: state a node derives from
   * its attributes (compiled weights, a compiled expression) must be rebuilt after a rollback.
   * NULL: the saved scene only. */
  char *(*probe)(sinew_session_t *s);
} test_fault_desc_t;
long test_fault_command(const test_fault_desc_t *d);
/* The common case: every allocation of `command` after `setup`. */
long test_fault(const char *setup, const char *command);

#endif
