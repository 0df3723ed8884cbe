/* tests/test_pool.c: the worker pool (graph/pool.c, sinew/pool.h).
 *
 * Every item of a job is processed exactly once, and sinew_pool_run returns only when all of
 * them are done, whatever the thread count and however often the pool is restarted between
 * jobs (sinew_pool_set_threads stops the workers; the next job starts new ones). scripts/test
 * also runs this program under ThreadSanitizer, which checks the hand-off of each job to the
 * workers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "sinew/sinew.h"
#include "tests/support.h"

typedef struct job {
  size_t n;
  atomic_uint *hits;     /* per item */
  atomic_size_t done;    /* items finished */
  unsigned spin;         /* busy work per item, so workers overlap the caller */
  double *out;           /* per item: a value that does not depend on the chunking */
} job;

static void run_items(void *ud, size_t begin, size_t end) {
  job *j = ud;
  for (size_t i = begin; i < end; i++) {
    volatile double x = (double)i;
    for (unsigned k = 0; k < j->spin; k++) x = x * 1.0000001 + 0.5;
    j->out[i] = x;
    atomic_fetch_add(&j->hits[i], 1);
    atomic_fetch_add(&j->done, 1);
  }
}

static void run_job(size_t n, size_t min_chunk, unsigned spin, double *expect) {
  job j = {.n = n, .spin = spin};
  j.hits = calloc(n, sizeof *j.hits);
  j.out = calloc(n, sizeof *j.out);
  assert_non_null(j.hits);
  assert_non_null(j.out);
  sinew_pool_run(n, min_chunk, run_items, &j);
  /* everything finished before sinew_pool_run returned */
  assert_int_equal(atomic_load(&j.done), n);
  for (size_t i = 0; i < n; i++) {
    if (atomic_load(&j.hits[i]) != 1) fail_msg("item %zu processed %u times", i, atomic_load(&j.hits[i]));
  }
  if (expect) assert_memory_equal(j.out, expect, n * sizeof *expect);
  free(j.hits);
  free(j.out);
}

/* Jobs of every size around the chunking thresholds, for 1 to 4 threads. */
static void test_every_item_once(void **state) {
  (void)state;
  for (int threads = 1; threads <= 4; threads++) {
    assert_int_equal(sinew_pool_set_threads(threads), SINEW_OK);
    assert_int_equal(sinew_pool_threads(), threads);
    const size_t sizes[] = {1, 2, 3, 7, 16, 17, 63, 64, 65, 1000, 4097};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
      run_job(sizes[k], 1, 10, NULL);
      run_job(sizes[k], 16, 10, NULL);
    }
  }
  assert_int_equal(sinew_pool_set_threads(0), SINEW_OK);
}

/* The pool restarted between jobs, again and again: new workers must not take the previous job
 * for a new one (they used to, running it again while the next job's fields were being written
 * and counting themselves out of the next job twice). */
static void test_restart_between_jobs(void **state) {
  (void)state;
  enum { N = 3000 };
  double *expect = calloc(N, sizeof *expect);
  assert_non_null(expect);
  assert_int_equal(sinew_pool_set_threads(1), SINEW_OK);
  job j = {.n = N, .spin = 50, .out = expect};
  j.hits = calloc(N, sizeof *j.hits);
  assert_non_null(j.hits);
  sinew_pool_run(N, 1, run_items, &j);
  free(j.hits);
  for (int round = 0; round < 20; round++) {
    int threads = 2 + round % 3;
    assert_int_equal(sinew_pool_set_threads(threads), SINEW_OK);
    for (int k = 0; k < 3; k++) run_job(N, 8, 50, expect);
  }
  sinew_pool_shutdown();
  run_job(N, 8, 50, expect); /* starts again after a shutdown */
  assert_int_equal(sinew_pool_set_threads(0), SINEW_OK);
  free(expect);
}

/* Many small jobs back to back: the hand-off of each job while the workers of the previous one
 * are still on their way out. */
static void test_back_to_back(void **state) {
  (void)state;
  assert_int_equal(sinew_pool_set_threads(3), SINEW_OK);
  for (int k = 0; k < 500; k++) run_job(64 + (size_t)(k % 50), 1, 0, NULL);
  assert_int_equal(sinew_pool_set_threads(0), SINEW_OK);
}

/* Misuse and trivial jobs. */
static void test_arguments(void **state) {
  (void)state;
  assert_int_equal(sinew_pool_set_threads(-1), SINEW_EINVAL);
  assert_int_equal(sinew_pool_set_threads(100000), SINEW_EINVAL);
  sinew_pool_run(0, 1, run_items, NULL); /* nothing to do: fn not called */
  sinew_pool_run(10, 1, NULL, NULL);
  run_job(5, 0, 0, NULL); /* min_chunk 0 means 1 */
}

/* A job started from inside a job (a kernel inside a node computed on a worker) runs on the
 * thread that started it, over all its items, instead of waiting for the busy pool. */
typedef struct nested_job {
  atomic_int inner_items[4];
  atomic_int outer_items;
} nested_job;

static void inner_items(void *ud, size_t begin, size_t end) {
  atomic_int *counts = ud;
  for (size_t i = begin; i < end; i++) atomic_fetch_add(&counts[i % 4], 1);
}

static void outer_items(void *ud, size_t begin, size_t end) {
  nested_job *j = ud;
  for (size_t i = begin; i < end; i++) {
    atomic_fetch_add(&j->outer_items, 1);
    sinew_pool_run(4000, 10, inner_items, j->inner_items);
  }
}

static void test_nested_job(void **state) {
  (void)state;
  assert_int_equal(sinew_pool_set_threads(3), 0);
  nested_job j;
  atomic_init(&j.outer_items, 0);
  for (int i = 0; i < 4; i++) atomic_init(&j.inner_items[i], 0);
  sinew_pool_run(6, 1, outer_items, &j);
  assert_int_equal(atomic_load(&j.outer_items), 6);
  for (int i = 0; i < 4; i++) assert_int_equal(atomic_load(&j.inner_items[i]), 6 * 1000);
  assert_int_equal(sinew_pool_set_threads(0), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_item_once),
      cmocka_unit_test(test_restart_between_jobs),
      cmocka_unit_test(test_back_to_back),
      cmocka_unit_test(test_arguments),
      cmocka_unit_test(test_nested_job),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  sinew_pool_shutdown();
  return rc;
}
