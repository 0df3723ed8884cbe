/* sinew/io.h: writing output files whole or not at all.
 *
 * Every file sinew writes (a .ma save, the OBJ frames of `sinew run`) goes through this one
 * helper, and a host can use it for its own files:
 *
 *   sinew_afile_t *af;
 *   char why[512];
 *   if (sinew_afile_open("out/arm.0001.obj", &af, why, sizeof why)) return report(why);
 *   int rc = sinew_mesh_write_obj(mesh, sinew_afile_stream(af));
 *   if (rc) { sinew_afile_abort(af, why, sizeof why); return report(why); }
 *   if (sinew_afile_commit(af, why, sizeof why)) return report(why);
 *
 * What it does:
 * - The text goes to a new temporary file in the target's directory, created with mkstemp
 *   (O_EXCL, a random name: a file or symbolic link planted under some name is never opened or
 *   followed). The name is ".<target name>.sinew-tmp-XXXXXX", hidden from `ls` and `*.obj`.
 * - sinew_afile_commit flushes the stream and checks every write (a full disk, a file size
 *   limit, an I/O error), fsyncs the file, gives it the target's mode (its owner and group
 *   too, where allowed) or, for a new file, 0666 & ~umask as fopen would, then renames it over
 *   the target and fsyncs the directory (best effort). A reader of the target sees the old file
 *   or the new one, never part of one.
 * - A target that is a symbolic link is written through: the link is resolved (a chain of
 *   links, relative or absolute, a dangling one too), the temporary file goes beside the file
 *   the link names and replaces that file, and the link stays a link.
 * - A target that exists and is not a regular file (a named pipe, /dev/null, a terminal) is
 *   written in place: there is nothing to rename over, and such a target is not replaced by a
 *   regular file. A directory is refused.
 * - On any failure (and on sinew_afile_abort) the temporary file is removed and the target is
 *   left as it was.
 *
 * Errors: functions return 0 or a negative status: SINEW_EINVAL (a NULL or empty argument),
 * SINEW_ENOMEM, SINEW_EIO (anything the system refused). The message goes to errbuf (which may
 * be NULL; it is cut to errlen) and names the target as given and the system's reason:
 * "out/arm.0001.obj: No space left on device".
 *
 * Thread safety: separate files may be written from separate threads; one file is used by one
 * thread at a time. Nothing here is async-signal-safe: a signal handler sets a flag, and the
 * writer aborts the file when it sees the flag.
 */
#ifndef SINEW_IO_H
#define SINEW_IO_H

#include <stddef.h>
#include <stdio.h>

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

/* A file being written. Owned by the caller from sinew_afile_open until sinew_afile_commit or
 * sinew_afile_abort, which both free it. */
typedef struct sinew_afile sinew_afile_t;

/* Starts writing path: resolves a symbolic link, refuses a directory and creates the temporary
 * file. Nothing is created when it fails; *out is set only on success. */
SINEW_API int sinew_afile_open(const char *path, sinew_afile_t **out, char *errbuf,
                               size_t errlen);
/* The stream to write to (binary, fully buffered). Borrowed: do not fclose it; it is valid
 * until sinew_afile_commit or sinew_afile_abort. */
SINEW_API FILE *sinew_afile_stream(const sinew_afile_t *file);
/* The target as given to sinew_afile_open (borrowed, valid as long as file). */
SINEW_API const char *sinew_afile_path(const sinew_afile_t *file);
/* Finishes the file: checks, fsyncs, sets the mode and renames it over the target. On failure
 * the temporary file is removed, the target is untouched and errbuf says why. file is freed
 * either way. */
SINEW_API int sinew_afile_commit(sinew_afile_t *file, char *errbuf, size_t errlen);
/* Discards the file: the temporary file is removed, the target is left as it was, and file is
 * freed. When a write to the stream had already failed, errbuf gets the reason ("out/a.obj: No
 * space left on device") and SINEW_EIO is returned, so a caller whose writer stopped with
 * SINEW_EIO can say why; otherwise SINEW_OK and errbuf is not touched. A NULL file is a no-op. */
SINEW_API int sinew_afile_abort(sinew_afile_t *file, char *errbuf, size_t errlen);

/* ---- many files, one sync ----------------------------------------------------------------------
 *
 * sinew_afile_commit makes each file durable before it replaces its target: an fsync of the
 * file and one of its directory, which on most disks cost milliseconds each and dominate the
 * writing of many small files (`sinew run`'s OBJ frames). A batch keeps the same promise for a
 * set of files with one flush:
 *
 *   sinew_afile_batch_t *b;
 *   sinew_afile_batch_create(&b);
 *   for each file: sinew_afile_open, write, sinew_afile_commit_later(af, b, why, sizeof why);
 *   sinew_afile_batch_commit(b, why, sizeof why);
 *   sinew_afile_batch_destroy(b);
 *
 * sinew_afile_commit_later checks the file as sinew_afile_commit does (every write, the mode,
 * the owner), closes it and keeps it as its temporary file: its target is untouched until the
 * batch is committed. It frees the file either way; on failure the temporary file is removed.
 * A target written in place (a pipe, a device), or a batch with no room left to grow, is
 * committed at once instead.
 * sinew_afile_batch_commit flushes the files' file system once (syncfs on Linux; an fsync per
 * file elsewhere), then renames every file over its target in the order they were added, then
 * fsyncs each directory once. If the flush fails, no target is replaced and every temporary file
 * is removed; if a rename fails, the files before it are in place, the rest are removed, and
 * errbuf names the one that failed. The batch is empty afterwards either way, and can be used
 * again. sinew_afile_batch_destroy removes the temporary files of files not committed (a NULL
 * batch is a no-op). One batch is used by one thread at a time. */
typedef struct sinew_afile_batch sinew_afile_batch_t;
SINEW_API int sinew_afile_batch_create(sinew_afile_batch_t **out);
SINEW_API int sinew_afile_commit_later(sinew_afile_t *file, sinew_afile_batch_t *batch, char *errbuf,
                                       size_t errlen);
SINEW_API int sinew_afile_batch_commit(sinew_afile_batch_t *batch, char *errbuf, size_t errlen);
/* Files waiting in the batch. */
SINEW_API size_t sinew_afile_batch_count(const sinew_afile_batch_t *batch);
SINEW_API void sinew_afile_batch_destroy(sinew_afile_batch_t *batch);

/* ---- numbers as text ---------------------------------------------------------------------------- */

/* Room for any text sinew_format_float writes, with its terminating NUL. */
#define SINEW_FLOAT_CHARS 24

/* Writes v as the shortest decimal text that reads back (strtof) to exactly v, with a
 * terminating NUL, and returns its length. Plain notation for magnitudes from 1e-5 up to 1e9
 * ("0.5", "-12.25", "100000"), else "1.5e-07" / "3e+12". -0 is "-0" (its bits read back); NaN is
 * "nan" and the infinities "inf" / "-inf". No printf and no locale: the OBJ writer formats millions of points
 * with it. */
SINEW_API size_t sinew_format_float(float v, char out[SINEW_FLOAT_CHARS]);

/* Room for any text sinew_format_double writes, with its terminating NUL. */
#define SINEW_DOUBLE_CHARS 32

/* Writes d as the shortest of printf's %.15g, %.16g and %.17g that reads back (strtod) to
 * exactly d: whole numbers below 1e15 as integers ("100"), others as %g writes them ("0.1",
 * "1e-07", "1.2345678901234567e+20"); 0 and -0 are "0", NaN "nan", the infinities "inf" / "-inf".
 * The one double formatter of the library: .ma files, MEL's number to text, the CLI. Writes at
 * most size bytes (NUL-terminated when size > 0) and returns the length of the whole text. */
SINEW_API size_t sinew_format_double(double d, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
