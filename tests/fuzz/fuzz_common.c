/* tests/fuzz/fuzz_common.c: the fuzz targets' sandbox and shared helpers (fuzz_common.h). */
#define _GNU_SOURCE /* O_TMPFILE, mkostemp */
#include "tests/fuzz/fuzz_common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the sandbox ------------------------------------------------------------------------------
 * The fuzz targets link a copy of libsinew in which objcopy renamed every reference to the C
 * library's file calls below (tests/fuzz/CMakeLists.txt keeps the list) to fuzz_sandbox_<name>.
 * So only the library's own calls come here; libFuzzer (reading the corpus, writing crash
 * files) and the sanitizers are untouched. Each function maps the path and calls the real
 * one. */

static char sandbox_dir[256];
static bool written; /* sinew created, wrote, renamed or removed a file since the last leave */
static FILE *sink;   /* /dev/null, for the writers */

static const char other_ma[] = "//Maya ASCII 2020 scene\ncreateNode transform -n \"b\";\n";

/* Maps a path sinew was given to one inside the sandbox. false (errno EACCES) when it is not a
 * plain file name (after any leading "./"). */
static bool map_path(const char *path, char *out, size_t size) {
  if (!path) {
    errno = EFAULT;
    return false;
  }
  while (path[0] == '.' && path[1] == '/') path += 2; /* "./x.ma" is x.ma */
  size_t n = strlen(path);
  if (n == 0 || n > 200 || strchr(path, '/') || strcmp(path, ".") == 0 || strcmp(path, "..") == 0) {
    errno = EACCES;
    return false;
  }
  snprintf(out, size, "%s/%s", sandbox_dir, path);
  return true;
}

#define MAPPED(path, buf)                                          \
  char buf[512];                                                   \
  if (!map_path(path, buf, sizeof buf)) return -1;                 \
  path = buf

#define MAPPED_PTR(path, buf)                                      \
  char buf[512];                                                   \
  if (!map_path(path, buf, sizeof buf)) return NULL;               \
  path = buf

static bool writes(const char *mode) {
  return strchr(mode, 'w') || strchr(mode, 'a') || strchr(mode, '+');
}
static bool open_writes(int flags) {
  return (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)) != 0;
}

/* Each is declared here because the library's objects call them under these names. */
#define WRAP_FOPEN(name)                                                        \
  FILE *fuzz_sandbox_##name(const char *path, const char *mode);                \
  FILE *fuzz_sandbox_##name(const char *path, const char *mode) {               \
    MAPPED_PTR(path, mapped);                                                   \
    if (mode && writes(mode)) written = true;                                   \
    return name(path, mode);                                                    \
  }
WRAP_FOPEN(fopen)
WRAP_FOPEN(fopen64)

#define WRAP_FREOPEN(name)                                                      \
  FILE *fuzz_sandbox_##name(const char *path, const char *mode, FILE *f);       \
  FILE *fuzz_sandbox_##name(const char *path, const char *mode, FILE *f) {      \
    if (path) {                                                                 \
      MAPPED_PTR(path, mapped);                                                 \
      if (mode && writes(mode)) written = true;                                 \
      return name(path, mode, f);                                               \
    }                                                                           \
    return name(path, mode, f);                                                 \
  }
WRAP_FREOPEN(freopen)
WRAP_FREOPEN(freopen64)

#define WRAP_OPEN(name)                                                         \
  int fuzz_sandbox_##name(const char *path, int flags, ...);                    \
  int fuzz_sandbox_##name(const char *path, int flags, ...) {                   \
    mode_t mode = 0;                                                            \
    if (flags & (O_CREAT | O_TMPFILE)) {                                        \
      va_list ap;                                                               \
      va_start(ap, flags);                                                      \
      mode = (mode_t)va_arg(ap, int);                                           \
      va_end(ap);                                                               \
    }                                                                           \
    MAPPED(path, mapped);                                                       \
    if (open_writes(flags)) written = true;                                     \
    return name(path, flags, mode);                                             \
  }
WRAP_OPEN(open)
WRAP_OPEN(open64)

#define WRAP_OPENAT(name)                                                       \
  int fuzz_sandbox_##name(int dirfd, const char *path, int flags, ...);         \
  int fuzz_sandbox_##name(int dirfd, const char *path, int flags, ...) {        \
    mode_t mode = 0;                                                            \
    (void)dirfd;                                                                \
    if (flags & (O_CREAT | O_TMPFILE)) {                                        \
      va_list ap;                                                               \
      va_start(ap, flags);                                                      \
      mode = (mode_t)va_arg(ap, int);                                           \
      va_end(ap);                                                               \
    }                                                                           \
    MAPPED(path, mapped);                                                       \
    if (open_writes(flags)) written = true;                                     \
    return name(AT_FDCWD, path, flags, mode);                                   \
  }
WRAP_OPENAT(openat)
WRAP_OPENAT(openat64)

#define WRAP_PATH1(ret, name, writes_, params, args)                            \
  ret fuzz_sandbox_##name params;                                               \
  ret fuzz_sandbox_##name params {                                              \
    MAPPED(path, mapped);                                                       \
    if (writes_) written = true;                                                \
    return name args;                                                           \
  }
WRAP_PATH1(int, creat, true, (const char *path, mode_t mode), (path, mode))
WRAP_PATH1(int, creat64, true, (const char *path, mode_t mode), (path, mode))
WRAP_PATH1(int, remove, true, (const char *path), (path))
WRAP_PATH1(int, unlink, true, (const char *path), (path))
WRAP_PATH1(int, chmod, true, (const char *path, mode_t mode), (path, mode))
WRAP_PATH1(int, truncate, true, (const char *path, off_t len), (path, len))
WRAP_PATH1(int, access, false, (const char *path, int how), (path, how))
WRAP_PATH1(int, stat, false, (const char *path, struct stat *st), (path, st))
WRAP_PATH1(int, lstat, false, (const char *path, struct stat *st), (path, st))
WRAP_PATH1(ssize_t, readlink, false, (const char *path, char *buf, size_t size), (path, buf, size))

/* realpath: the answer names the sandbox folder; it only tells sinew whether the file is there. */
char *fuzz_sandbox_realpath(const char *path, char *resolved);
char *fuzz_sandbox_realpath(const char *path, char *resolved) {
  MAPPED_PTR(path, mapped);
  return realpath(path, resolved);
}

int fuzz_sandbox_rename(const char *from, const char *to);
int fuzz_sandbox_rename(const char *from, const char *to) {
  char a[512], b[512];
  if (!map_path(from, a, sizeof a) || !map_path(to, b, sizeof b)) return -1;
  written = true;
  return rename(a, b);
}

int fuzz_sandbox_renameat(int fd1, const char *from, int fd2, const char *to);
int fuzz_sandbox_renameat(int fd1, const char *from, int fd2, const char *to) {
  char a[512], b[512];
  (void)fd1;
  (void)fd2;
  if (!map_path(from, a, sizeof a) || !map_path(to, b, sizeof b)) return -1;
  written = true;
  return renameat(AT_FDCWD, a, AT_FDCWD, b);
}

/* mkstemp family: the template is a path ending in XXXXXX, filled in place. */
#define WRAP_MKSTEMP(name, params, args)                                        \
  int fuzz_sandbox_##name params;                                               \
  int fuzz_sandbox_##name params {                                              \
    char mapped[512];                                                           \
    char *orig = tmpl;                                                          \
    if (!map_path(orig, mapped, sizeof mapped)) return -1;                      \
    tmpl = mapped;                                                              \
    written = true;                                                             \
    int fd = name args;                                                         \
    if (fd >= 0) memcpy(orig + strlen(orig) - 6, mapped + strlen(mapped) - 6, 6);  \
    return fd;                                                                  \
  }
WRAP_MKSTEMP(mkstemp, (char *tmpl), (tmpl))
WRAP_MKSTEMP(mkstemp64, (char *tmpl), (tmpl))
WRAP_MKSTEMP(mkostemp, (char *tmpl, int flags), (tmpl, flags))
WRAP_MKSTEMP(mkostemp64, (char *tmpl, int flags), (tmpl, flags))

void fuzz_sandbox_put(const char *name, const uint8_t *data, size_t size) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", sandbox_dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
    fprintf(stderr, "fuzz: cannot write %s\n", path);
    abort();
  }
}

static void empty_sandbox(void) {
  DIR *d = opendir(sandbox_dir);
  if (!d) return;
  struct dirent *e;
  char path[512];
  while ((e = readdir(d))) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    snprintf(path, sizeof path, "%s/%s", sandbox_dir, e->d_name);
    unlink(path);
  }
  closedir(d);
}

static void remove_sandbox(void) {
  empty_sandbox();
  rmdir(sandbox_dir);
}

void fuzz_sandbox_enter(void) { written = false; }

void fuzz_sandbox_leave(void) {
  if (written) {
    empty_sandbox();
    fuzz_sandbox_put("other.ma", (const uint8_t *)other_ma, sizeof other_ma - 1);
  }
}

void fuzz_init(void) {
  static bool done;
  if (done) return;
  done = true;
  const char *tmp = getenv("TMPDIR");
  snprintf(sandbox_dir, sizeof sandbox_dir, "%s/sinew-fuzz-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
  if (!mkdtemp(sandbox_dir)) {
    perror("fuzz: mkdtemp");
    abort();
  }
  atexit(remove_sandbox);
  fuzz_sandbox_put("other.ma", (const uint8_t *)other_ma, sizeof other_ma - 1);
  sink = fopen("/dev/null", "w");
  if (!sink) abort();
  sinew_pool_set_threads(1);
}

/* ---- sessions, evaluation, writing ------------------------------------------------------------ */

sinew_session_t *fuzz_session(bool strict) {
  sinew_session_desc_t desc = {.strict = strict};
  sinew_session_t *s = NULL;
  if (sinew_session_create(&desc, &s) != SINEW_OK || !s) {
    fprintf(stderr, "fuzz: cannot create a session\n");
    abort();
  }
  sinew_lang_set_limits(sinew_session_lang(s), &(sinew_lang_limits_t){.max_steps = FUZZ_MAX_STEPS});
  sinew_graph_set_limit(sinew_session_graph(s), SINEW_LIMIT_GENERATED_POINTS, FUZZ_MAX_GENERATED_POINTS);
  return s;
}

typedef struct dst_list {
  sinew_plug_t *plugs;
  size_t n, cap;
} dst_list;

static bool collect_dst(void *ud, const sinew_connection_t *c) {
  dst_list *l = ud;
  if (l->n == l->cap) return false;
  l->plugs[l->n++] = c->dst;
  return true;
}

/* Expression nodes run with the library's default budget (SINEW_EXPR_DEFAULT_MAX_STEPS, about
 * two seconds under the sanitizers), which an input with a few looping expressions would turn
 * into a libFuzzer timeout. So each pull starts with an interrupt request: the first compute
 * that polls (an expression's loop, after at most a batch of steps) takes it and stops, keeping
 * its last outputs; computes that never loop never poll and run in full. Deterministic: a
 * request, not a timer. */
static void pull(sinew_graph_t *g, const sinew_plug_t *p) {
  sinew_graph_interrupt(g);
  sinew_evaluate(g, p);
}

static void pull_all(sinew_graph_t *g, size_t budget) {
  size_t left = budget;
  sinew_node_t n = {0, 0};
  while (left && sinew_node_next(g, &n)) {
    uint32_t na = sinew_node_attr_count(g, n);
    for (uint32_t a = 0; a < na && left; a++) {
      sinew_attr_info_t info;
      if (sinew_node_attr_info(g, n, a, &info) != SINEW_OK) continue;
      if (info.parent != UINT32_MAX || !info.computed || !(info.flags & SINEW_ATTR_READABLE)) continue;
      if (info.flags & SINEW_ATTR_ARRAY) {
        sinew_plug_t whole = sinew_plug_make(n, a, 0, NULL);
        int32_t idx[4];
        size_t k = sinew_plug_indices(g, &whole, idx, 4);
        if (k == 0) idx[k++] = 0;
        if (k > 4) k = 4;
        for (size_t i = 0; i < k && left; i++, left--) {
          sinew_plug_t e = sinew_plug_make(n, a, 1, &idx[i]);
          pull(g, &e);
        }
      } else {
        sinew_plug_t p = sinew_plug_make(n, a, 0, NULL);
        pull(g, &p);
        left--;
      }
    }
  }
  /* what connections deliver (expression outputs, skinned meshes ...) */
  dst_list l = {.cap = left};
  if (l.cap) l.plugs = malloc(l.cap * sizeof *l.plugs);
  if (l.plugs) {
    sinew_foreach_connection(g, (sinew_node_t){0, 0}, false, collect_dst, &l);
    for (size_t i = 0; i < l.n; i++) pull(g, &l.plugs[i]);
    free(l.plugs);
  }
}

void fuzz_evaluate(sinew_graph_t *g, size_t budget) {
  if (!g) return;
  pull_all(g, budget);
  double frame = 0;
  if (sinew_time_get_frame(g, &frame) == SINEW_OK && sinew_time_set_frame(g, frame + 1) == SINEW_OK)
    pull_all(g, budget);
}

void fuzz_check_obj_roundtrip(const sinew_data_t *mesh, const char *what) {
  const sinew_mesh_t *m = sinew_mesh_get(mesh);
  if (!m || m->npoints > 200000) return;
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  if (!out) return;
  int wrc = sinew_mesh_write_obj(mesh, out);
  if (fclose(out) != 0 || !text) wrc = SINEW_EIO;
  if (wrc != SINEW_OK) { /* refusing to write is fine */
    free(text);
    return;
  }
  FILE *in = fmemopen(text, len, "r");
  if (!in) {
    free(text);
    return;
  }
  sinew_data_t *back = NULL;
  char err[256] = "";
  int rrc = sinew_mesh_read_obj(in, "written.obj", &back, err, sizeof err);
  fclose(in);
  if (rrc == SINEW_ENOMEM) {
    free(text);
    return;
  }
  const sinew_mesh_t *b = back ? sinew_mesh_get(back) : NULL;
  const char *why = NULL;
  if (rrc != SINEW_OK || !b) why = err[0] ? err : "the reader refused it";
  else if (b->npoints != m->npoints) why = "a different number of points";
  else if (b->topology->nfaces != m->topology->nfaces ||
           b->topology->nface_verts != m->topology->nface_verts ||
           memcmp(b->topology->face_counts, m->topology->face_counts,
                  m->topology->nfaces * sizeof *m->topology->face_counts) != 0 ||
           memcmp(b->topology->face_verts, m->topology->face_verts,
                  m->topology->nface_verts * sizeof *m->topology->face_verts) != 0)
    why = "different faces";
  else if (memcmp(b->points, m->points, 3 * (size_t)m->npoints * sizeof(float)) != 0)
    why = "different points";
  if (why) {
    fprintf(stderr, "fuzz: %s: an OBJ written by sinew_mesh_write_obj does not read back (%s); "
                    "the first 300 bytes:\n%.300s\n", what, why, text);
    abort();
  }
  sinew_data_unref(back);
  free(text);
}

void fuzz_check_meshes(sinew_graph_t *g) {
  if (!g) return;
  sinew_node_t meshes[8];
  size_t n = sinew_node_list_type(g, "mesh", false, meshes, 8);
  if (n > 8) n = 8;
  for (size_t i = 0; i < n; i++) {
    uint32_t w = sinew_node_attr(g, meshes[i], "worldMesh");
    if (w == UINT32_MAX) continue;
    int32_t zero = 0;
    sinew_plug_t p = sinew_plug_make(meshes[i], w, 1, &zero);
    sinew_data_t *d = NULL;
    if (sinew_get_data(g, &p, &d) != SINEW_OK || !d) continue;
    fuzz_check_obj_roundtrip(d, sinew_node_name(g, meshes[i]));
    sinew_data_unref(d);
  }
}

void fuzz_write_ma(sinew_session_t *s) {
  sinew_session_write_ma(s, sink, "fuzz.ma");
  clearerr(sink);
}
