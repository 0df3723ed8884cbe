/* graph/pool.c: the worker pool for data-parallel kernels (vertex chunks), on libuv threads.
 *
 * One process-wide pool, started on first use. A job is split into chunks taken from an atomic
 * counter; the calling thread works too, so a 1-thread pool is plain serial code and small jobs
 * never wake anyone. Workers spin for a short while after a job before sleeping on a condition
 * variable, because waking a sleeping thread here costs milliseconds (DESIGN.md), more than a
 * whole frame of skinning. Results do not depend on the thread count as long as each item is
 * computed independently of the chunking, which is the contract for callers. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "graph/internal.h"
#include "sinew/pool.h"

#define MAX_THREADS 64
#define SPIN_ROUNDS 20000

typedef struct pool {
  uv_thread_t threads[MAX_THREADS];
  int nthreads;   /* worker threads (the caller is one more) */
  int wanted;     /* requested total, 0 = not set (use the CPU count) */
  bool started;
  uv_mutex_t lock;
  uv_cond_t wake, done;
  atomic_uint_fast64_t generation; /* bumped for each job */
  atomic_size_t next;              /* next chunk start */
  atomic_int active;               /* workers still inside the job */
  atomic_bool quit;
  atomic_uint nudges; /* bumped by sinew__pool_nudge: sleeping workers wake and spin again */
  int sleepers;
  /* the generation when the workers were started: a worker has seen every job up to it. Written
   * before the threads are created, read by each at its start. */
  uint_fast64_t start_generation;
  /* the job */
  size_t n, chunk;
  sinew_pool_fn fn;
  void *ud;
} pool;

static pool P;
static uv_once_t once = UV_ONCE_INIT;
static uv_mutex_t run_lock; /* one job at a time from any number of graphs */

/* Set while this thread runs chunks of a job: a job started from inside one (a kernel in a
 * node computed on a worker by sinew_evaluate_parallel) runs on this thread alone, instead of
 * waiting for the pool that is running it. */
static _Thread_local bool in_job;

static void run_chunks(void) {
  in_job = true;
  for (;;) {
    size_t begin = atomic_fetch_add(&P.next, P.chunk);
    if (begin >= P.n) break;
    size_t end = begin + P.chunk < P.n ? begin + P.chunk : P.n;
    P.fn(P.ud, begin, end);
  }
  in_job = false;
}

static void worker(void *arg) {
  (void)arg;
  /* Not 0 and not the generation at the time this thread first runs: a pool restarted by
   * sinew_pool_set_threads has run jobs before (generation > 0), and a worker starting from 0
   * would run the last one again, reading the job fields while the next sinew_pool_run writes
   * them and counting itself out of that next job twice (so the caller could return while a
   * worker is still inside fn). Reading the generation here instead could miss a job
   * published before this thread got scheduled, which then would wait for it forever. */
  uint_fast64_t seen = P.start_generation;
  while (!atomic_load(&P.quit)) {
    uint_fast64_t gen = atomic_load(&P.generation);
    int spins = 0;
    while (gen == seen && spins < SPIN_ROUNDS && !atomic_load(&P.quit)) {
      gen = atomic_load(&P.generation);
      spins++;
    }
    if (gen == seen) {
      uv_mutex_lock(&P.lock);
      P.sleepers++;
      unsigned nudged = atomic_load(&P.nudges);
      while ((gen = atomic_load(&P.generation)) == seen && !atomic_load(&P.quit) &&
             atomic_load(&P.nudges) == nudged)
        uv_cond_wait(&P.wake, &P.lock);
      P.sleepers--;
      uv_mutex_unlock(&P.lock);
      if (gen == seen) continue; /* nudged: spin again, a job is on its way */
    }
    if (atomic_load(&P.quit)) break;
    seen = gen;
    run_chunks();
    if (atomic_fetch_sub(&P.active, 1) == 1) {
      uv_mutex_lock(&P.lock);
      uv_cond_signal(&P.done);
      uv_mutex_unlock(&P.lock);
    }
  }
}

static void init_once(void) {
  uv_mutex_init(&run_lock);
  uv_mutex_init(&P.lock);
  uv_cond_init(&P.wake);
  uv_cond_init(&P.done);
}

static int cpu_count(void) {
  const char *env = getenv("SINEW_THREADS");
  if (env && atoi(env) > 0) return atoi(env);
  unsigned int n = uv_available_parallelism();
  return n > 0 ? (int)n : 1;
}

static void stop_workers(void) {
  if (!P.started) return;
  atomic_store(&P.quit, true);
  uv_mutex_lock(&P.lock);
  uv_cond_broadcast(&P.wake);
  uv_mutex_unlock(&P.lock);
  for (int i = 0; i < P.nthreads; i++) uv_thread_join(&P.threads[i]);
  P.nthreads = 0;
  P.started = false;
  atomic_store(&P.quit, false);
}

static void start_workers(void) {
  int total = P.wanted > 0 ? P.wanted : cpu_count();
  if (total > MAX_THREADS + 1) total = MAX_THREADS + 1;
  P.nthreads = 0;
  P.start_generation = atomic_load(&P.generation); /* no job runs: run_lock is held */
  for (int i = 0; i < total - 1; i++) {
    if (uv_thread_create(&P.threads[i], worker, NULL) != 0) break; /* run with fewer */
    P.nthreads++;
  }
  P.started = true;
}

int sinew_pool_set_threads(int threads) {
  if (threads < 0 || threads > MAX_THREADS + 1) return SINEW_EINVAL;
  uv_once(&once, init_once);
  uv_mutex_lock(&run_lock);
  if (P.wanted == threads && threads > 0) { /* the same count: the running workers stay */
    uv_mutex_unlock(&run_lock);
    return SINEW_OK;
  }
  stop_workers();
  P.wanted = threads;
  uv_mutex_unlock(&run_lock);
  return SINEW_OK;
}

int sinew_pool_threads(void) {
  uv_once(&once, init_once);
  uv_mutex_lock(&run_lock);
  if (!P.started) start_workers();
  int n = P.nthreads + 1;
  uv_mutex_unlock(&run_lock);
  return n;
}

void sinew_pool_shutdown(void) {
  uv_once(&once, init_once);
  uv_mutex_lock(&run_lock);
  stop_workers();
  uv_mutex_unlock(&run_lock);
}

void sinew__pool_nudge(void) {
  uv_once(&once, init_once);
  if (in_job || uv_mutex_trylock(&run_lock)) return; /* a job is running: nothing sleeps */
  if (P.started) {
    uv_mutex_lock(&P.lock);
    atomic_fetch_add(&P.nudges, 1);
    if (P.sleepers) uv_cond_broadcast(&P.wake);
    uv_mutex_unlock(&P.lock);
  }
  uv_mutex_unlock(&run_lock);
}

void sinew_pool_run(size_t n, size_t min_chunk, sinew_pool_fn fn, void *ud) {
  if (!n || !fn) return;
  if (in_job) {
    fn(ud, 0, n);
    return;
  }
  if (min_chunk == 0) min_chunk = 1;
  uv_once(&once, init_once);
  uv_mutex_lock(&run_lock);
  if (!P.started) start_workers();
  int total = P.nthreads + 1;
  if (n <= min_chunk || total == 1) { /* small jobs stay on the calling thread */
    uv_mutex_unlock(&run_lock);
    fn(ud, 0, n);
    return;
  }
  size_t chunk = n / ((size_t)total * 16);
  if (chunk < min_chunk) chunk = min_chunk;
  P.n = n;
  P.chunk = chunk;
  P.fn = fn;
  P.ud = ud;
  atomic_store(&P.next, 0);
  atomic_store(&P.active, P.nthreads);
  atomic_fetch_add(&P.generation, 1);
  uv_mutex_lock(&P.lock);
  if (P.sleepers) uv_cond_broadcast(&P.wake);
  uv_mutex_unlock(&P.lock);
  run_chunks();
  /* wait for the workers: spin first, then sleep */
  for (int spins = 0; atomic_load(&P.active) > 0 && spins < SPIN_ROUNDS * 10; spins++) {
  }
  if (atomic_load(&P.active) > 0) {
    uv_mutex_lock(&P.lock);
    while (atomic_load(&P.active) > 0) uv_cond_wait(&P.done, &P.lock);
    uv_mutex_unlock(&P.lock);
  }
  uv_mutex_unlock(&run_lock);
}
