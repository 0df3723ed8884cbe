/* tests/fuzz/fuzz_common.h: what the libFuzzer targets share (docs/ARCHITECTURE.md, Fuzzing).
 *
 * The targets use only sinew's public API. What this file adds is harness:
 * - a sandbox for the files a script may read or write (file -open, -import, -save, -rename):
 *   the targets link a copy of libsinew whose calls to the C library's file functions objcopy
 *   renamed to fuzz_sandbox_* (tests/fuzz/CMakeLists.txt). A path is allowed only when it is a
 *   plain file name (no '/' after any leading "./", not "." or ".."), and is then taken inside
 *   a private temporary folder; anything else fails with EACCES, so no input can read or
 *   write outside it. The folder holds other.ma (one transform "b"), so `file -o "other.ma"`
 *   inside a file works; what a run writes there is removed when the run ends
 *   (fuzz_sandbox_leave). libFuzzer's own files (corpus, crash reports) are not affected.
 * - helpers to pull every output of a scene and to write it as Maya ASCII, so an input that
 *   loads also exercises evaluation and the writer. */
#ifndef SINEW_FUZZ_COMMON_H
#define SINEW_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "sinew/sinew.h"

/* Once per process (from LLVMFuzzerInitialize): makes the sandbox folder and runs the worker
 * pool on the calling thread only (fuzzing wants deterministic runs; the pool has its own
 * ThreadSanitizer tests). */
void fuzz_init(void);

/* Around each run: when sinew wrote anything in between, leave empties the folder again (and
 * puts other.ma back), so runs do not see each other's files. */
void fuzz_sandbox_enter(void);
void fuzz_sandbox_leave(void);
/* Writes data to name inside the sandbox folder (for targets that read a file). */
void fuzz_sandbox_put(const char *name, const uint8_t *data, size_t size);

/* Loop iterations + procedure calls a script may take (sinew_lang_set_limits) and one
 * expression evaluation (sinew_expr_io_t.max_steps): far below the library's defaults, so an
 * endless loop ends in milliseconds instead of using the run's time. Counted, not timed, so a
 * run does the same on every machine. */
#define FUZZ_MAX_STEPS 10000u
/* Points a primitive may make (sinew_graph_set_limit): bigger meshes take seconds to build
 * and bake under the sanitizers without finding anything new. */
#define FUZZ_MAX_GENERATED_POINTS 1000000u

/* A new session that logs nothing, with scripts limited to FUZZ_MAX_STEPS. Aborts on failure
 * (out of memory at start). */
sinew_session_t *fuzz_session(bool strict);

/* Pulls the outputs of every node of the scene (computed top-level attributes, the first
 * elements of computed arrays, every connection's destination), at most `budget` plugs, then
 * moves time on one frame and pulls again. Errors are expected and ignored: what matters is
 * that nothing crashes, leaks or hangs. */
void fuzz_evaluate(sinew_graph_t *graph, size_t budget);

/* The OBJ writer and reader agree: a mesh block sinew_mesh_write_obj accepts reads back with
 * sinew_mesh_read_obj, with the same topology and bit-identical points. Aborts (a finding)
 * otherwise. */
void fuzz_check_obj_roundtrip(const sinew_data_t *mesh, const char *what);
/* fuzz_check_obj_roundtrip on the world-space points (worldMesh[0]) of the first meshes of the
 * scene, what `sinew run` writes. */
void fuzz_check_meshes(sinew_graph_t *graph);

/* Writes the session's scene as Maya ASCII to a sink. */
void fuzz_write_ma(sinew_session_t *session);

#endif
