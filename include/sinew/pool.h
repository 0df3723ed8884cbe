/* sinew/pool.h: the worker pool that data-parallel node kernels (the skinCluster's vertex
 * chunks) run on. One pool per process, on libuv threads, started on first use.
 *
 * Thread safety: sinew_pool_run may be called from any thread; jobs run one at a time. A job
 * started from inside a job (a kernel in a node computed on a worker by
 * sinew_evaluate_parallel) runs on the thread that starts it. */
#ifndef SINEW_POOL_H
#define SINEW_POOL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef SINEW_API
/* Marks the public API: the only symbols a shared libsinew exports (the library is compiled
 * with hidden visibility, so its internal sinew__ functions stay inside it). */
#if defined(__GNUC__) && __GNUC__ >= 4
#define SINEW_API extern __attribute__((visibility("default")))
#else
#define SINEW_API extern
#endif
#endif

/* Processes items [begin, end). Must compute each item independently of how items are split,
 * so results are identical for any thread count. */
typedef void (*sinew_pool_fn)(void *user_data, size_t begin, size_t end);

/* Total threads used, the calling thread included: 1 = serial. 0 = the CPU count (or the
 * SINEW_THREADS environment variable). Takes effect for the next job. */
SINEW_API int sinew_pool_set_threads(int threads);
SINEW_API int sinew_pool_threads(void);
/* Runs fn over [0, n) in chunks of at least min_chunk items and returns when all are done.
 * Jobs no larger than min_chunk run on the calling thread only. A job is cut in about 16
 * chunks per thread, taken in order by whichever thread is free (the calling thread starts
 * at once; a worker that wakes late takes fewer), so the threads finish close together. */
SINEW_API void sinew_pool_run(size_t n, size_t min_chunk, sinew_pool_fn fn, void *user_data);
/* Stops the worker threads (they start again on the next job). */
SINEW_API void sinew_pool_shutdown(void);

#ifdef __cplusplus
}
#endif
#endif
