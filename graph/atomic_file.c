/* graph/atomic_file.c: output files written whole or not at all (sinew/io.h): a temporary file
 * made beside the target (a random name opened exclusively, as mkstemp does), checked, fsynced,
 * given the target's mode and renamed over it. A file utility, not graph code; it lives here because every layer above may use it. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* fopencookie */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#ifdef __linux__
#include <stdatomic.h>
#include <sys/random.h>
#include <time.h>
#endif

#include "graph/internal.h"
#include "sinew/io.h"

#if defined(__GLIBC__) || defined(__linux__)
#define AFILE_COOKIE 1 /* the stream records the errno of a failed write */
#endif

#define AFILE_MAX_LINKS 40      /* symbolic links followed, as the kernel's ELOOP limit */
#define AFILE_TMP_STEM_MAX 200  /* bytes of the target's name kept in the temporary name */
#define AFILE_BUFFER (1 << 16)  /* the stream's buffer */

struct sinew_afile {
  char *path;      /* the target as given */
  char *target;    /* the file replaced: path with symbolic links resolved */
  char *tmp;       /* the temporary file; NULL when writing in place */
  FILE *stream;
  char *buf;       /* the stream's buffer (AFILE_BUFFER bytes), freed after the stream is closed */
  int fd;          /* the stream's descriptor, closed by fclose */
  int err;         /* errno of the first failed write (0: none) */
  bool existed;    /* the target exists (its mode, owner and group are below) */
  bool set_mode;   /* the temporary file needs `mode` (else it was created with it) */
  mode_t mode;
  uid_t uid;
  gid_t gid;
};

static void set_msg(char *errbuf, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void set_msg(char *errbuf, size_t errlen, const char *fmt, ...) {
  if (!errbuf || !errlen) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(errbuf, errlen, fmt, ap);
  va_end(ap);
}

/* A status for an errno, with the message "path: what: reason" (what may be NULL). */
static int sys_fail(const char *path, const char *what, int err, char *errbuf, size_t errlen) {
  if (what)
    set_msg(errbuf, errlen, "%s: %s: %s", path, what, strerror(err));
  else
    set_msg(errbuf, errlen, "%s: %s", path, strerror(err));
  return err == ENOMEM ? SINEW_ENOMEM : SINEW_EIO;
}

static int oom(const char *path, char *errbuf, size_t errlen) {
  set_msg(errbuf, errlen, "%s: out of memory", path);
  return SINEW_ENOMEM;
}

/* ---- the stream ------------------------------------------------------------------------------ */

#ifdef AFILE_COOKIE
static ssize_t cookie_write(void *cookie, const char *buf, size_t n) {
  sinew_afile_t *af = cookie;
  if (af->err) return 0; /* the stream has failed already: nothing more reaches the file */
  size_t done = 0;
  while (done < n) {
    ssize_t w = write(af->fd, buf + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      af->err = w < 0 ? errno : EIO;
      return 0; /* fewer bytes than asked: the stream's error flag is set */
    }
    done += (size_t)w;
  }
  return (ssize_t)n;
}

static int cookie_close(void *cookie) {
  sinew_afile_t *af = cookie;
  int rc = close(af->fd);
  af->fd = -1;
  return rc;
}
#endif

static FILE *open_stream(sinew_afile_t *af) {
  /* a buffer of our own: glibc takes setvbuf's size only with one (else 8 KiB, and an OBJ
   * frame of 20-50 KB would go out in three to six writes instead of one). Not having it is
   * out of memory like any other allocation here. */
  if (!(af->buf = sinew__malloc(AFILE_BUFFER))) {
    errno = ENOMEM;
    return NULL;
  }
  FILE *f;
#ifdef AFILE_COOKIE
  f = fopencookie(af, "wb", (cookie_io_functions_t){.write = cookie_write, .close = cookie_close});
#else
  f = fdopen(af->fd, "wb");
#endif
  if (f) setvbuf(f, af->buf, _IOFBF, AFILE_BUFFER);
  return f;
}

/* Closes the stream and its descriptor; the errno of a failure, 0 when none. */
static int close_stream(sinew_afile_t *af) {
  int err = 0;
  if (af->stream) {
    if (fclose(af->stream) != 0) err = errno ? errno : EIO;
    af->stream = NULL;
    sinew__free(af->buf); /* the stream no longer uses it: a batch keeps closed files */
    af->buf = NULL;
    af->fd = -1;
  } else if (af->fd >= 0) {
    if (close(af->fd) != 0) err = errno;
    af->fd = -1;
  }
  return err;
}

/* Why the stream failed: the recorded errno, else what errno says now. */
static int stream_errno(const sinew_afile_t *af) {
  if (af->err) return af->err;
  return errno ? errno : EIO;
}

static void afile_free(sinew_afile_t *af) {
  sinew__free(af->buf);
  sinew__free(af->path);
  sinew__free(af->target);
  sinew__free(af->tmp);
  sinew__free(af);
}

/* Closes everything, removes the temporary file and frees af. */
static void discard(sinew_afile_t *af) {
  int saved = errno;
  close_stream(af);
  if (af->tmp) unlink(af->tmp);
  afile_free(af);
  errno = saved;
}

/* ---- paths ----------------------------------------------------------------------------------- */

/* The length of path's directory part including its last '/' (0 when it has none). */
static size_t dir_len(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? (size_t)(slash - path) + 1 : 0;
}

/* The target's contents of a symbolic link (sinew__malloc'd, NUL-terminated) or NULL with
 * errno set. */
static char *read_link(const char *path, size_t hint) {
  size_t cap = hint + 2 > 64 ? hint + 2 : 64;
  for (;;) {
    char *buf = sinew__malloc(cap);
    if (!buf) {
      errno = ENOMEM;
      return NULL;
    }
    ssize_t n = readlink(path, buf, cap);
    if (n < 0) {
      int e = errno;
      sinew__free(buf);
      errno = e;
      return NULL;
    }
    if ((size_t)n < cap) {
      buf[n] = 0;
      return buf;
    }
    sinew__free(buf);
    if (cap > ((size_t)1 << 20)) {
      errno = ENAMETOOLONG;
      return NULL;
    }
    cap *= 2;
  }
}

/* Follows symbolic links from path to the file they name (which need not exist): af->target,
 * and what lstat says about it (af->existed, mode, owner). */
static int resolve(sinew_afile_t *af, struct stat *st, char *errbuf, size_t errlen) {
  char *cur = sinew__strdup(af->path);
  if (!cur) return oom(af->path, errbuf, errlen);
  for (int hops = 0;; hops++) {
    if (lstat(cur, st) != 0) {
      int e = errno;
      if (e == ENOENT) { /* a new file (or a missing directory, which creating the file names) */
        af->existed = false;
        break;
      }
      sinew__free(cur);
      return sys_fail(af->path, NULL, e, errbuf, errlen);
    }
    if (!S_ISLNK(st->st_mode)) {
      af->existed = true;
      break;
    }
    if (hops >= AFILE_MAX_LINKS) {
      sinew__free(cur);
      return sys_fail(af->path, NULL, ELOOP, errbuf, errlen);
    }
    char *link = read_link(cur, (size_t)st->st_size);
    if (!link) {
      int e = errno;
      sinew__free(cur);
      return sys_fail(af->path, NULL, e, errbuf, errlen);
    }
    if (link[0] != '/' && dir_len(cur)) { /* relative to the link's own directory */
      size_t d = dir_len(cur), n = strlen(link);
      char *joined = sinew__malloc(d + n + 1);
      if (!joined) {
        sinew__free(link);
        sinew__free(cur);
        return oom(af->path, errbuf, errlen);
      }
      memcpy(joined, cur, d);
      memcpy(joined + d, link, n + 1);
      sinew__free(link);
      link = joined;
    }
    sinew__free(cur);
    cur = link;
  }
  af->target = cur;
  return SINEW_OK;
}

#ifndef __linux__
/* The mode fopen gives a new file: 0666 less the umask (Linux creates the temporary file with
 * 0666 and lets the system apply it: create_tmp). */
static mode_t new_file_mode(void) {
  mode_t mask = umask(022);
  umask(mask);
  return 0666 & ~mask & 07777;
}
#endif

#ifdef __linux__
/* Creates the temporary file: its name's last six characters (XXXXXX) made random, opened with
 * O_CREAT | O_EXCL (never an existing file, never through a link planted under that name), as
 * mkstemp does, but with the given mode: 0666 for a new target, so that the system applies the
 * umask (and a directory's default ACL) at creation as it does for fopen, with no chmod after. The
 * random source is getrandom once, then a counter mixed by splitmix64. */
static int create_tmp(char *name, mode_t mode) {
  static atomic_uint_fast64_t state;
  static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  if (atomic_load(&state) == 0) {
    uint64_t seed = 0;
    if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) != (ssize_t)sizeof seed) {
      struct timespec ts;
      clock_gettime(CLOCK_REALTIME, &ts);
      seed = ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 17);
    }
    uint_fast64_t zero = 0;
    atomic_compare_exchange_strong(&state, &zero, seed | 1);
  }
  char *x = name + strlen(name) - 6;
  for (int tries = 0; tries < 1000; tries++) {
    uint64_t z = atomic_fetch_add(&state, 0x9e3779b97f4a7c15u) + 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    for (int i = 0; i < 6; i++, z >>= 8) x[i] = chars[(z & 0xff) % (sizeof chars - 1)];
    int fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}
#endif

/* ---- the API --------------------------------------------------------------------------------- */

int sinew_afile_open(const char *path, sinew_afile_t **out, char *errbuf, size_t errlen) {
  if (!path || !path[0] || !out) {
    set_msg(errbuf, errlen, "%s: no file name", path ? path : "(null)");
    return SINEW_EINVAL;
  }
  sinew_afile_t *af = sinew__calloc(1, sizeof *af);
  if (!af) return oom(path, errbuf, errlen);
  af->fd = -1;
  if (!(af->path = sinew__strdup(path))) {
    afile_free(af);
    return oom(path, errbuf, errlen);
  }
  struct stat st;
  int rc = resolve(af, &st, errbuf, errlen);
  if (rc) {
    afile_free(af);
    return rc;
  }
  if (af->existed && S_ISDIR(st.st_mode)) {
    afile_free(af);
    return sys_fail(path, NULL, EISDIR, errbuf, errlen);
  }
  if (af->existed && !S_ISREG(st.st_mode)) {
    /* a pipe or a device: written in place, as fopen(path, "w") would */
    af->fd = open(af->target, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (af->fd < 0) {
      int e = errno;
      afile_free(af);
      return sys_fail(path, NULL, e, errbuf, errlen);
    }
  } else {
    if (af->existed) {
      af->mode = st.st_mode & 07777;
      af->uid = st.st_uid;
      af->gid = st.st_gid;
    }
    const char *base = af->target + dir_len(af->target);
    size_t d = dir_len(af->target), b = strlen(base);
    if (b > AFILE_TMP_STEM_MAX) b = AFILE_TMP_STEM_MAX;
    static const char suffix[] = ".sinew-tmp-XXXXXX";
    if (!(af->tmp = sinew__malloc(d + 1 + b + sizeof suffix))) {
      afile_free(af);
      return oom(path, errbuf, errlen);
    }
    memcpy(af->tmp, af->target, d);
    af->tmp[d] = '.';
    memcpy(af->tmp + d + 1, base, b);
    memcpy(af->tmp + d + 1 + b, suffix, sizeof suffix);
#ifdef __linux__
    af->fd = create_tmp(af->tmp, af->existed ? 0600 : 0666);
    af->set_mode = af->existed;
#else
    af->mode = af->existed ? af->mode : new_file_mode();
    af->set_mode = true;
    af->fd = mkstemp(af->tmp);
    if (af->fd >= 0) fcntl(af->fd, F_SETFD, FD_CLOEXEC);
#endif
    if (af->fd < 0) {
      int e = errno;
      /* the directory without its last '/' ("/" stays), "." when the name has none */
      int dn = d == 0 ? 1 : d == 1 ? 1 : (int)(d - 1);
      set_msg(errbuf, errlen, "%s: cannot create a temporary file in %.*s: %s", path, dn,
              d ? af->target : ".", strerror(e));
      sinew__free(af->tmp);
      af->tmp = NULL; /* nothing was created */
      afile_free(af);
      return e == ENOMEM ? SINEW_ENOMEM : SINEW_EIO;
    }
  }
  if (!(af->stream = open_stream(af))) {
    int e = errno;
    discard(af);
    return e == ENOMEM ? oom(path, errbuf, errlen) : sys_fail(path, NULL, e, errbuf, errlen);
  }
  *out = af;
  return SINEW_OK;
}

FILE *sinew_afile_stream(const sinew_afile_t *af) { return af ? af->stream : NULL; }

const char *sinew_afile_path(const sinew_afile_t *af) { return af ? af->path : NULL; }

/* Flushes and checks the stream, then (for a temporary file) fsyncs it when sync is set and gives
 * it the target's owner and mode; closes it. On failure af is discarded (the temporary file
 * removed) and the status returned. */
static int finish(sinew_afile_t *af, bool sync, char *errbuf, size_t errlen) {
  const char *path = af->path;
  int rc = SINEW_OK;
  errno = 0;
  if (fflush(af->stream) != 0 || ferror(af->stream)) {
    rc = sys_fail(path, NULL, stream_errno(af), errbuf, errlen);
  } else if (af->tmp) {
    struct stat now;
    if (sync && fsync(af->fd) != 0) rc = sys_fail(path, NULL, errno, errbuf, errlen);
    /* the old file's owner and group, where allowed (a user who may not give a file away keeps
     * it, and may still set a group of theirs); then its mode, which chown may have cleared */
    if (!rc && af->existed && fstat(af->fd, &now) == 0 &&
        (now.st_uid != af->uid || now.st_gid != af->gid) && fchown(af->fd, af->uid, af->gid) != 0)
      (void)!fchown(af->fd, (uid_t)-1, af->gid);
    if (!rc && af->set_mode && fchmod(af->fd, af->mode) != 0)
      rc = sys_fail(path, "cannot set its mode", errno, errbuf, errlen);
  }
  if (!rc) {
    int e = close_stream(af); /* a network file system may report a failed write only here */
    if (e) rc = sys_fail(path, NULL, af->err ? af->err : e, errbuf, errlen);
  }
  if (rc) discard(af);
  return rc;
}

/* A descriptor of the directory holding path ("dir/name" or "name"), or -1. */
static int open_dir_of(char *path) {
  size_t d = dir_len(path);
  char first = path[d];
  path[d] = 0; /* "dir/", without allocating */
  int dfd = open(d ? path : ".", O_RDONLY | O_CLOEXEC);
  path[d] = first;
  return dfd;
}

/* The new name on disk too (best effort: not every file system can). */
static void sync_dir_of(char *path) {
  int dfd = open_dir_of(path);
  if (dfd >= 0) {
    (void)fsync(dfd);
    close(dfd);
  }
}

int sinew_afile_commit(sinew_afile_t *af, char *errbuf, size_t errlen) {
  if (!af) return SINEW_EINVAL;
  int rc = finish(af, true, errbuf, errlen);
  if (rc) return rc;
  if (af->tmp && rename(af->tmp, af->target) != 0) {
    rc = sys_fail(af->path, "cannot replace the file", errno, errbuf, errlen);
    discard(af);
    return rc;
  }
  if (af->tmp) sync_dir_of(af->target);
  afile_free(af);
  return SINEW_OK;
}

/* ---- batches --------------------------------------------------------------------------------- */

struct sinew_afile_batch {
  sinew_afile_t **files; /* finished, closed, waiting for their rename */
  size_t n, cap;
};

int sinew_afile_batch_create(sinew_afile_batch_t **out) {
  if (!out) return SINEW_EINVAL;
  if (!(*out = sinew__calloc(1, sizeof **out))) return SINEW_ENOMEM;
  return SINEW_OK;
}

size_t sinew_afile_batch_count(const sinew_afile_batch_t *b) { return b ? b->n : 0; }

int sinew_afile_commit_later(sinew_afile_t *af, sinew_afile_batch_t *b, char *errbuf, size_t errlen) {
  if (!af) return SINEW_EINVAL;
  if (!b || !af->tmp) return sinew_afile_commit(af, errbuf, errlen); /* written in place: nothing to defer */
  if (b->n == b->cap) {
    size_t cap = b->cap ? 2 * b->cap : 16;
    sinew_afile_t **files = sinew__realloc(b->files, cap * sizeof *files);
    if (!files) return sinew_afile_commit(af, errbuf, errlen); /* no room to defer: done now */
    b->files = files;
    b->cap = cap;
  }
  int rc = finish(af, false, errbuf, errlen);
  if (rc) return rc;
  b->files[b->n++] = af;
  return SINEW_OK;
}

/* Makes the contents of the batch's files durable: one syncfs per file system on Linux (the
 * files' data and their inodes in one flush), an fsync per file elsewhere. */
static int sync_batch(sinew_afile_batch_t *b, char *errbuf, size_t errlen) {
#ifdef __linux__
  dev_t done[8];
  size_t ndone = 0;
  for (size_t i = 0; i < b->n; i++) {
    /* files in the directory of the one before share its file system: one stat per run of them */
    size_t d = dir_len(b->files[i]->tmp);
    if (i > 0 && dir_len(b->files[i - 1]->tmp) == d && !memcmp(b->files[i - 1]->tmp, b->files[i]->tmp, d))
      continue;
    struct stat st;
    if (stat(b->files[i]->tmp, &st) != 0) return sys_fail(b->files[i]->path, NULL, errno, errbuf, errlen);
    bool seen = false;
    for (size_t k = 0; k < ndone && !seen; k++) seen = done[k] == st.st_dev;
    if (seen) continue;
    int fd = open(b->files[i]->tmp, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return sys_fail(b->files[i]->path, NULL, errno, errbuf, errlen);
    int rc = syncfs(fd);
    int e = errno;
    close(fd);
    if (rc != 0) return sys_fail(b->files[i]->path, NULL, e, errbuf, errlen);
    if (ndone < sizeof done / sizeof *done) done[ndone++] = st.st_dev;
  }
#else
  for (size_t i = 0; i < b->n; i++) {
    int fd = open(b->files[i]->tmp, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return sys_fail(b->files[i]->path, NULL, errno, errbuf, errlen);
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    if (rc != 0) return sys_fail(b->files[i]->path, NULL, e, errbuf, errlen);
  }
#endif
  return SINEW_OK;
}

/* Removes the temporary files of the batch from index `from` on and empties it. */
static void drop_from(sinew_afile_batch_t *b, size_t from) {
  for (size_t i = from; i < b->n; i++) discard(b->files[i]);
  b->n = 0;
}

int sinew_afile_batch_commit(sinew_afile_batch_t *b, char *errbuf, size_t errlen) {
  if (!b || !b->n) return SINEW_OK;
  int rc = sync_batch(b, errbuf, errlen);
  if (rc) {
    drop_from(b, 0);
    return rc;
  }
  for (size_t i = 0; i < b->n; i++) {
    sinew_afile_t *af = b->files[i];
    if (rename(af->tmp, af->target) != 0) {
      rc = sys_fail(af->path, "cannot replace the file", errno, errbuf, errlen);
      for (size_t k = 0; k < i; k++) afile_free(b->files[k]); /* in place already */
      drop_from(b, i);
      return rc;
    }
  }
  /* each directory once: the files of a batch mostly share one */
  for (size_t i = 0; i < b->n; i++) {
    size_t d = dir_len(b->files[i]->target);
    bool seen = false;
    for (size_t k = 0; k < i && !seen; k++)
      seen = dir_len(b->files[k]->target) == d && !memcmp(b->files[k]->target, b->files[i]->target, d);
    if (!seen) sync_dir_of(b->files[i]->target);
  }
  for (size_t i = 0; i < b->n; i++) afile_free(b->files[i]);
  b->n = 0;
  return SINEW_OK;
}

void sinew_afile_batch_destroy(sinew_afile_batch_t *b) {
  if (!b) return;
  drop_from(b, 0);
  sinew__free(b->files);
  sinew__free(b);
}

int sinew_afile_abort(sinew_afile_t *af, char *errbuf, size_t errlen) {
  if (!af) return SINEW_OK;
  int rc = SINEW_OK;
  if (af->err || ferror(af->stream)) {
    set_msg(errbuf, errlen, "%s: %s", af->path, strerror(af->err ? af->err : EIO));
    rc = SINEW_EIO;
  }
  discard(af);
  return rc;
}
