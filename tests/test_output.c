/* tests/test_output.c: output files are written whole or not at all (sinew/io.h): a save keeps
 * the target's mode and owner, writes through a symbolic link, never follows a name planted
 * beside the target, and a failed write (a missing directory, a file size limit, a full disk)
 * leaves the old file and no temporary file; `sinew run` stopped by SIGINT or SIGTERM leaves only
 * complete OBJ files and names the frame it stopped at; a full disk stops it with the file's
 * name and the reason; `sinew info` reads a named pipe (it used to open its FILE twice and wait
 * for ever on the second open). */
#define _XOPEN_SOURCE 700
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <math.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sinew/sinew.h"
#include "tests/support.h"

#ifndef SINEW_CLI_PATH
#error "SINEW_CLI_PATH must name the built sinew command"
#endif

extern char **environ;

/* ---- the temporary directory ---------------------------------------------------------------- */

static char tmp_dir[64];
static char mounted[600]; /* a tmpfs mounted by a test, unmounted by teardown if the test failed */

static const char *path_of(const char *name) {
  static char bufs[16][600];
  static int next;
  char *b = bufs[next++ % 16];
  snprintf(b, sizeof bufs[0], "%s/%s", tmp_dir, name);
  return b;
}

static void spill(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) fail_msg("cannot create %s: %s", path, strerror(errno));
  fputs(text, f);
  assert_int_equal(fclose(f), 0);
}

/* The whole file (caller frees); NULL when it cannot be read. */
static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, len = 0, n;
  char *buf = malloc(cap);
  while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
    len += n;
    if (cap - len < 2) buf = realloc(buf, cap *= 2);
  }
  fclose(f);
  if (buf) buf[len] = 0;
  return buf;
}


/* Fails when dir holds an entry whose name starts with '.' (a temporary file left behind) or
 * contains "sinew-tmp"; returns the number of entries. */
static int assert_no_temp(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) fail_msg("cannot open %s: %s", dir, strerror(errno));
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    if (e->d_name[0] == '.' || strstr(e->d_name, "sinew-tmp"))
      fail_msg("a temporary file is left in %s: %s", dir, e->d_name);
    n++;
  }
  closedir(d);
  return n;
}

static void assert_contains(const char *text, const char *part) {
  if (!text || !strstr(text, part)) fail_msg("expected \"%s\" in:\n%s", part, text ? text : "(null)");
}

static int setup(void **state) {
  snprintf(tmp_dir, sizeof tmp_dir, "/tmp/sinew_test_output_XXXXXX");
  return mkdtemp(tmp_dir) ? 0 : -1;
}

static int teardown(void **state) {
  if (mounted[0]) umount2(mounted, MNT_DETACH);
  mounted[0] = 0;
  test_remove_tree(tmp_dir);
  return 0;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Waits for a child process: its exit status, 128 + the signal when one ended it, or -1 when it
 * was still running after seconds (it is then killed). */
static int wait_pid(pid_t pid, double seconds) {
  double until = now_s() + seconds;
  int ws;
  for (;;) {
    pid_t r = waitpid(pid, &ws, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) fail_msg("waitpid: %s", strerror(errno));
    if (now_s() > until) {
      kill(pid, SIGKILL);
      waitpid(pid, &ws, 0);
      return -1;
    }
    struct timespec ts = {0, 5 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

/* A session holding n transforms: a scene of some size to save. */
static sinew_session_t *scene_of(int n) {
  sinew_session_t *s;
  assert_int_equal(sinew_session_create(NULL, &s), 0);
  char line[128];
  for (int k = 0; k < n; k++) {
    int len = snprintf(line, sizeof line, "createNode transform -n \"node%d\"; setAttr node%d.tx %d;", k, k, k);
    assert_int_equal(sinew_session_run(s, line, (size_t)len, "scene.mel", NULL), 0);
  }
  return s;
}

static void assert_saved_scene(const char *path, int n) {
  char *text = slurp(path);
  assert_non_null(text);
  assert_contains(text, "//Maya ASCII");
  char last[64];
  snprintf(last, sizeof last, "createNode transform -n \"node%d\";", n - 1);
  assert_contains(text, last);
  free(text);
}

/* ---- the library: sinew_session_save through sinew/io.h ------------------------------------- */

/* ---- numbers as text ------------------------------------------------------------------------------ */

/* The fewest significant digits printf's %g needs for v to read back (the reference). */
static int shortest_digits(float v) {
  char t[64];
  for (int p = 1; p <= 9; p++) {
    snprintf(t, sizeof t, "%.*g", p, (double)v);
    if (strtof(t, NULL) == v) return p;
  }
  return 99;
}

/* Significant digits of a text written by sinew_format_float. */
static int digits_of(const char *t) {
  int n = 0, lead = 1, trailing = 0;
  for (const char *c = t; *c && *c != 'e'; c++) {
    if (*c < '0' || *c > '9') continue;
    if (lead && *c == '0') continue;
    lead = 0;
    n++;
    trailing = *c == '0' ? trailing + 1 : 0;
  }
  /* zeros after the last non-zero digit of an integer are place holders, not digits */
  if (!strchr(t, '.') && !strchr(t, 'e')) n -= trailing;
  return n;
}

static void check_float(float v, const char *want) {
  char t[SINEW_FLOAT_CHARS];
  size_t n = sinew_format_float(v, t);
  assert_int_equal(n, strlen(t));
  assert_true(n < SINEW_FLOAT_CHARS);
  if (want && strcmp(t, want) != 0) fail_msg("%.9g: '%s', want '%s'", (double)v, t, want);
  if (isfinite(v) && strtof(t, NULL) != v) fail_msg("%.9g: '%s' reads back as %.9g", (double)v, t, (double)strtof(t, NULL));
  if (isfinite(v) && v != 0 && digits_of(t) != shortest_digits(v))
    fail_msg("%.9g: '%s' has %d digits, the shortest has %d", (double)v, t, digits_of(t), shortest_digits(v));
}

static void test_format_float(void **state) {
  (void)state;
  check_float(0.0f, "0");
  check_float(-0.0f, "-0");
  check_float(1.0f, "1");
  check_float(-12.25f, "-12.25");
  check_float(0.1f, "0.1");
  check_float(0.5f, "0.5");
  check_float(100000.0f, "100000");
  check_float(123456792.0f, "123456790"); /* the float nearest 123456789 */
  check_float(1e9f, "1e+09");
  check_float(1e-5f, "0.00001");
  check_float(1.5e-7f, "1.5e-07");
  check_float(3e12f, "3e+12");
  check_float(FLT_MAX, "3.4028235e+38");
  check_float(FLT_MIN, "1.1754944e-38");
  check_float(1.4e-45f, "1e-45"); /* the smallest subnormal */
  check_float(16777216.0f, "16777216");
  check_float(9.99999944e-1f, "0.99999994");
  check_float(NAN, "nan");
  check_float(INFINITY, "inf");
  check_float(-INFINITY, "-inf");
  /* every power of ten and its neighbours, then random bit patterns: the text reads back and is
   * as short as printf's shortest */
  for (int e = -45; e <= 38; e++) {
    float v = strtof("1", NULL) * (float)pow(10, e);
    if (!isfinite(v) || v == 0) continue;
    check_float(v, NULL);
    check_float(nextafterf(v, 0), NULL);
    check_float(nextafterf(v, INFINITY), NULL);
  }
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 300000; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    uint32_t bits = (uint32_t)x;
    float v;
    memcpy(&v, &bits, sizeof v);
    if (!isfinite(v)) continue;
    check_float(v, NULL);
    if (i % 4 == 0) check_float((float)((double)(x >> 40) / 1000.0), NULL); /* values with few digits */
  }
}

static void test_save_keeps_mode_and_owner(void **state) {
  sinew_session_t *s = scene_of(3);
  const char *path = path_of("mode.ma");
  spill(path, "old\n");
  assert_int_equal(chmod(path, 0640), 0);
  bool chowned = chown(path, 1234, 4321) == 0; /* tests run as root in CI */
  if (!chowned) print_message("chown not permitted (%s): the owner is not checked\n", strerror(errno));
  assert_int_equal(sinew_session_save(s, path), 0);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0640);
  if (chowned) {
    assert_int_equal(st.st_uid, 1234);
    assert_int_equal(st.st_gid, 4321);
  }
  assert_saved_scene(path, 3);

  /* a new file gets what fopen would give: 0666 less the umask */
  mode_t old_mask = umask(027);
  const char *fresh = path_of("fresh.ma");
  int rc = sinew_session_save(s, fresh);
  umask(077);
  const char *fresh2 = path_of("fresh2.ma");
  int rc2 = sinew_session_save(s, fresh2);
  umask(old_mask);
  assert_int_equal(rc, 0);
  assert_int_equal(rc2, 0);
  assert_int_equal(stat(fresh, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0640);
  assert_int_equal(stat(fresh2, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0600);
  assert_no_temp(tmp_dir);
  sinew_session_destroy(s);
}

static void assert_link(const char *link, const char *expected_target) {
  struct stat st;
  assert_int_equal(lstat(link, &st), 0);
  if (!S_ISLNK(st.st_mode)) fail_msg("%s is no longer a symbolic link", link);
  char buf[700];
  ssize_t n = readlink(link, buf, sizeof buf - 1);
  assert_true(n > 0);
  buf[n] = 0;
  assert_string_equal(buf, expected_target);
}

static void test_save_through_symlink(void **state) {
  sinew_session_t *s = scene_of(2);
  assert_int_equal(mkdir(path_of("real"), 0755), 0);
  /* a relative link beside its file */
  spill(path_of("real/a.ma"), "old a\n");
  assert_int_equal(chmod(path_of("real/a.ma"), 0604), 0);
  assert_int_equal(symlink("a.ma", path_of("real/link_a.ma")), 0);
  assert_int_equal(sinew_session_save(s, path_of("real/link_a.ma")), 0);
  assert_link(path_of("real/link_a.ma"), "a.ma");
  assert_saved_scene(path_of("real/a.ma"), 2);
  struct stat st;
  assert_int_equal(stat(path_of("real/a.ma"), &st), 0);
  assert_int_equal(st.st_mode & 07777, 0604);
  /* a chain: a link in another directory to a relative link to an absolute one */
  spill(path_of("real/b.ma"), "old b\n");
  char abs_b[600];
  snprintf(abs_b, sizeof abs_b, "%s", path_of("real/b.ma"));
  assert_int_equal(symlink(abs_b, path_of("real/abs_b.ma")), 0);
  assert_int_equal(symlink("real/abs_b.ma", path_of("top_b.ma")), 0);
  assert_int_equal(sinew_session_save(s, path_of("top_b.ma")), 0);
  assert_link(path_of("top_b.ma"), "real/abs_b.ma");
  assert_link(path_of("real/abs_b.ma"), abs_b);
  assert_saved_scene(abs_b, 2);
  /* a dangling link: the file it names is created */
  assert_int_equal(symlink("real/c.ma", path_of("dangling.ma")), 0);
  assert_int_equal(sinew_session_save(s, path_of("dangling.ma")), 0);
  assert_link(path_of("dangling.ma"), "real/c.ma");
  assert_saved_scene(path_of("real/c.ma"), 2);
  /* a loop is refused, and leaves nothing */
  assert_int_equal(symlink("loop2.ma", path_of("loop1.ma")), 0);
  assert_int_equal(symlink("loop1.ma", path_of("loop2.ma")), 0);
  assert_int_not_equal(sinew_session_save(s, path_of("loop1.ma")), 0);
  assert_contains(sinew_session_errmsg(s), "loop1.ma");
  assert_contains(sinew_session_errmsg(s), "symbolic links");
  assert_no_temp(tmp_dir);
  assert_no_temp(path_of("real"));
  sinew_session_destroy(s);
}

/* The temporary file's name cannot be guessed and is created exclusively: a symbolic link
 * planted under the name sinew used to use (PATH.sinew-tmp-PID) is neither followed nor
 * removed, and two files written at once get different names. */
static void test_temp_not_predictable(void **state) {
  sinew_session_t *s = scene_of(2);
  const char *path = path_of("scene.ma");
  spill(path, "old\n");
  spill(path_of("victim.txt"), "victim\n");
  char planted[700];
  snprintf(planted, sizeof planted, "%s.sinew-tmp-%ld", path, (long)getpid());
  assert_int_equal(symlink(path_of("victim.txt"), planted), 0);
  assert_int_equal(sinew_session_save(s, path), 0);
  assert_saved_scene(path, 2);
  char *victim = slurp(path_of("victim.txt"));
  assert_string_equal(victim, "victim\n");
  free(victim);
  assert_link(planted, path_of("victim.txt"));
  assert_int_equal(unlink(planted), 0);

  /* two at once: two hidden temporary files with different random names, mode 0600 */
  sinew_afile_t *a, *b;
  char why[512];
  assert_int_equal(sinew_afile_open(path, &a, why, sizeof why), 0);
  assert_int_equal(sinew_afile_open(path, &b, why, sizeof why), 0);
  assert_string_equal(sinew_afile_path(a), path);
  fputs("from a\n", sinew_afile_stream(a));
  char names[2][300];
  int n = 0;
  DIR *d = opendir(tmp_dir);
  for (struct dirent *e; (e = readdir(d));) {
    if (strncmp(e->d_name, ".scene.ma.sinew-tmp-", 20)) continue;
    assert_true(n < 2);
    assert_int_equal(strlen(e->d_name), 26); /* 6 random characters */
    struct stat st;
    assert_int_equal(lstat(path_of(e->d_name), &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(st.st_mode & 07777, 0600);
    snprintf(names[n++], sizeof names[0], "%s", e->d_name);
  }
  closedir(d);
  assert_int_equal(n, 2);
  assert_string_not_equal(names[0], names[1]);
  /* the target is untouched until a commit; an abort leaves it as it was */
  char *now = slurp(path);
  assert_contains(now, "createNode transform -n \"node1\";");
  free(now);
  assert_int_equal(sinew_afile_abort(b, why, sizeof why), 0);
  assert_int_equal(sinew_afile_commit(a, why, sizeof why), 0);
  now = slurp(path);
  assert_string_equal(now, "from a\n");
  free(now);
  assert_int_equal(assert_no_temp(tmp_dir), 2); /* scene.ma, victim.txt */
  sinew_session_destroy(s);
}

/* Hidden temporary files of sinew in dir (names starting ".<x>.sinew-tmp-"). */
static int count_temp(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) fail_msg("cannot open %s: %s", dir, strerror(errno));
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) n += strstr(e->d_name, ".sinew-tmp-") != NULL;
  closedir(d);
  return n;
}

static void write_later(sinew_afile_batch_t *b, const char *path, const char *text) {
  sinew_afile_t *af;
  char why[512];
  if (sinew_afile_open(path, &af, why, sizeof why)) fail_msg("%s", why);
  fputs(text, sinew_afile_stream(af));
  if (sinew_afile_commit_later(af, b, why, sizeof why)) fail_msg("%s", why);
}

/* A batch: its files are checked and closed one by one but replace nothing until the batch is
 * committed, then all at once with the target's mode kept; destroying a batch removes what it
 * holds; a rename that fails leaves the files before it in place, removes the rest and names
 * the file. */
static void test_batch(void **state) {
  (void)state;
  sinew_afile_batch_t *b;
  char why[512];
  assert_int_equal(sinew_afile_batch_create(&b), 0);
  assert_int_equal(sinew_afile_batch_commit(b, why, sizeof why), 0); /* empty: nothing to do */
  assert_int_equal(mkdir(path_of("sub"), 0755), 0);
  spill(path_of("a.obj"), "old a\n");
  assert_int_equal(chmod(path_of("a.obj"), 0640), 0);
  write_later(b, path_of("a.obj"), "new a\n");
  write_later(b, path_of("b.obj"), "new b\n");
  write_later(b, path_of("sub/c.obj"), "new c\n");
  assert_int_equal(sinew_afile_batch_count(b), 3);
  /* nothing replaced yet: the old file, no new ones, the temporary files hidden */
  char *now = slurp(path_of("a.obj"));
  assert_string_equal(now, "old a\n");
  free(now);
  assert_null(slurp(path_of("b.obj")));
  assert_int_equal(count_temp(tmp_dir), 2);
  assert_int_equal(count_temp(path_of("sub")), 1);
  assert_int_equal(sinew_afile_batch_commit(b, why, sizeof why), 0);
  assert_int_equal(sinew_afile_batch_count(b), 0);
  now = slurp(path_of("a.obj"));
  assert_string_equal(now, "new a\n");
  free(now);
  now = slurp(path_of("sub/c.obj"));
  assert_string_equal(now, "new c\n");
  free(now);
  struct stat st;
  assert_int_equal(stat(path_of("a.obj"), &st), 0);
  assert_int_equal(st.st_mode & 07777, 0640);
  assert_int_equal(count_temp(tmp_dir) + count_temp(path_of("sub")), 0);

  /* used again, then destroyed with files waiting: nothing replaced, nothing left */
  write_later(b, path_of("a.obj"), "newer a\n");
  sinew_afile_batch_destroy(b);
  now = slurp(path_of("a.obj"));
  assert_string_equal(now, "new a\n");
  free(now);
  assert_int_equal(count_temp(tmp_dir), 0);

  /* the second of three renames fails (its target became a directory with a file in it) */
  assert_int_equal(sinew_afile_batch_create(&b), 0);
  write_later(b, path_of("a.obj"), "third a\n");
  write_later(b, path_of("d.obj"), "d\n");
  write_later(b, path_of("b.obj"), "third b\n");
  assert_int_equal(mkdir(path_of("d.obj"), 0755), 0);
  spill(path_of("d.obj/keep"), "x\n");
  assert_int_not_equal(sinew_afile_batch_commit(b, why, sizeof why), 0);
  assert_contains(why, path_of("d.obj"));
  assert_contains(why, "cannot replace the file");
  now = slurp(path_of("a.obj"));
  assert_string_equal(now, "third a\n"); /* before the failure: in place */
  free(now);
  now = slurp(path_of("b.obj"));
  assert_string_equal(now, "new b\n"); /* after it: untouched */
  free(now);
  assert_int_equal(count_temp(tmp_dir), 0);
  assert_int_equal(sinew_afile_batch_count(b), 0);
  sinew_afile_batch_destroy(b);
  sinew_afile_batch_destroy(NULL);
}

/* In a child: saves a scene of n nodes to path under a file size limit of limit bytes (SIGXFSZ
 * ignored, so the write fails with EFBIG), and exits 0 when the save failed with a message
 * that names path and the reason, 1 when it succeeded, 2 when the message is wrong. */
static int save_with_limit(const char *path, int nodes, rlim_t limit, const char *reason) {
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    sinew_session_t *s = scene_of(nodes);
    struct rlimit rl = {limit, limit};
    if (setrlimit(RLIMIT_FSIZE, &rl)) _exit(3);
    int rc = sinew_session_save(s, path);
    const char *msg = sinew_session_errmsg(s);
    int status = rc == 0 ? 1 : (strstr(msg, path) && strstr(msg, reason)) ? 0 : 2;
    if (status == 2) fprintf(stderr, "unexpected message: %s\n", msg);
    sinew_session_destroy(s);
    _exit(status);
  }
  int ws;
  while (waitpid(pid, &ws, 0) < 0) assert_int_equal(errno, EINTR);
  assert_true(WIFEXITED(ws));
  return WEXITSTATUS(ws);
}

static void test_failed_write_leaves_old_file(void **state) {
  sinew_session_t *s = scene_of(2);
  /* a directory that does not exist: nothing is created */
  const char *missing = path_of("no/such/dir/scene.ma");
  assert_int_equal(sinew_session_save(s, missing), SINEW_EIO);
  assert_contains(sinew_session_errmsg(s), missing);
  assert_contains(sinew_session_errmsg(s), "No such file or directory");
  /* a directory as the target stays a directory */
  assert_int_equal(mkdir(path_of("adir"), 0755), 0);
  assert_int_equal(sinew_session_save(s, path_of("adir")), SINEW_EIO);
  assert_contains(sinew_session_errmsg(s), "Is a directory");
  assert_int_equal(assert_no_temp(path_of("adir")), 0);
  sinew_session_destroy(s);

  /* a file size limit hit half way: EFBIG, the old file as it was, no temporary file */
  const char *path = path_of("limited.ma");
  spill(path, "old contents\n");
  assert_int_equal(save_with_limit(path, 200, 2048, "File too large"), 0);
  char *now = slurp(path);
  assert_string_equal(now, "old contents\n");
  free(now);
  /* the same scene without the limit is well over it (so the limit was what failed) */
  assert_int_equal(save_with_limit(path, 200, RLIM_INFINITY, "-"), 1);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_true(st.st_size > 2048);
  assert_int_equal(assert_no_temp(tmp_dir), 2); /* adir, limited.ma */
}

/* A full disk: a 64 KiB tmpfs when this process may mount one (tests run as root in CI), else
 * a file size limit of fallback bytes, which fails the same write path with EFBIG. Returns the
 * reason expected in messages; *limit is the size limit to apply in children (RLIM_INFINITY
 * with the tmpfs). */
static const char *full_disk(const char *dir, rlim_t fallback, rlim_t *limit) {
  assert_int_equal(mkdir(dir, 0755), 0);
  if (mount("tmpfs", dir, "tmpfs", 0, "size=64k,mode=0755") == 0) {
    snprintf(mounted, sizeof mounted, "%s", dir);
    *limit = RLIM_INFINITY;
    return "No space left on device";
  }
  print_message("cannot mount a tmpfs (%s): a file size limit of %lu bytes stands in for a full disk\n",
                strerror(errno), (unsigned long)fallback);
  *limit = fallback;
  return "File too large";
}

static void test_save_full_disk(void **state) {
  rlim_t limit;
  const char *dir = path_of("full");
  const char *reason = full_disk(dir, 64 * 1024, &limit);
  char path[700];
  snprintf(path, sizeof path, "%s/scene.ma", dir);
  spill(path, "old contents\n");
  assert_int_equal(save_with_limit(path, 3000, limit, reason), 0);
  char *now = slurp(path);
  assert_string_equal(now, "old contents\n");
  free(now);
  assert_int_equal(assert_no_temp(dir), 1);
  if (mounted[0]) {
    assert_int_equal(umount2(mounted, MNT_DETACH), 0);
    mounted[0] = 0;
  }
}

/* A target that is not a regular file is written in place: a named pipe stays a pipe, and the
 * reader at its other end gets the scene. */
static void test_save_to_pipe(void **state) {
  const char *fifo = path_of("pipe.ma");
  assert_int_equal(mkfifo(fifo, 0644), 0);
  const char *got = path_of("from_pipe.txt");
  fflush(NULL);
  pid_t reader = fork();
  assert_true(reader >= 0);
  if (reader == 0) {
    FILE *in = fopen(fifo, "rb"), *out = fopen(got, "wb");
    if (!in || !out) _exit(1);
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, in)) > 0;) fwrite(buf, 1, n, out);
    _exit(fclose(out) != 0);
  }
  sinew_session_t *s = scene_of(4);
  assert_int_equal(sinew_session_save(s, fifo), 0);
  sinew_session_destroy(s);
  struct stat st;
  assert_int_equal(lstat(fifo, &st), 0);
  if (!S_ISFIFO(st.st_mode)) {
    kill(reader, SIGKILL);
    fail_msg("%s was replaced: it is no longer a named pipe", fifo);
  }
  int status = wait_pid(reader, 20);
  if (status) fail_msg("the reader of %s: %s (status %d)", fifo, status < 0 ? "still waiting" : "failed", status);
  assert_saved_scene(got, 4);
}

/* ---- the command ---------------------------------------------------------------------------- */

typedef struct child {
  pid_t pid;
  char out[600], err[600];
} child_t;

/* Starts `sinew ARGV...` with stdout and stderr in files; limit (unless RLIM_INFINITY) is a
 * file size limit for the child, with SIGXFSZ ignored. */
static child_t start_cli(const char *const *args, rlim_t limit) {
  static int runs;
  child_t c;
  snprintf(c.out, sizeof c.out, "%s/cli%d.out", tmp_dir, runs);
  snprintf(c.err, sizeof c.err, "%s/cli%d.err", tmp_dir, runs++);
  const char *argv[32] = {SINEW_CLI_PATH};
  int argc = 1;
  while (args[argc - 1] && argc < 31) argv[argc] = args[argc - 1], argc++;
  argv[argc] = NULL;
  fflush(NULL);
  c.pid = fork();
  assert_true(c.pid >= 0);
  if (c.pid == 0) {
    int o = open(c.out, O_WRONLY | O_CREAT | O_TRUNC, 0644), e = open(c.err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0) _exit(120);
    if (limit != RLIM_INFINITY) {
      signal(SIGXFSZ, SIG_IGN); /* stays ignored across exec */
      struct rlimit rl = {limit, limit};
      if (setrlimit(RLIMIT_FSIZE, &rl)) _exit(121);
    }
    execve(SINEW_CLI_PATH, (char *const *)argv, environ);
    _exit(122);
  }
  return c;
}

/* Waits for the child; fails (killing it) after seconds. Returns its exit status, 128 + the
 * signal when one ended it. */
static int wait_cli(child_t *c, double seconds) {
  int status = wait_pid(c->pid, seconds);
  if (status < 0) {
    char *err = slurp(c->err);
    fail_msg("sinew did not finish within %.0f s; stderr:\n%s", seconds, err ? err : "");
  }
  return status;
}

/* The vertex count of an OBJ file read completely by sinew's reader; fails on any error. */
static uint32_t obj_points(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) fail_msg("cannot open %s: %s", path, strerror(errno));
  sinew_data_t *mesh = NULL;
  char err[256] = "";
  int rc = sinew_mesh_read_obj(f, path, &mesh, err, sizeof err);
  fclose(f);
  if (rc) fail_msg("%s does not read back: %s", path, err);
  const sinew_mesh_t *m = sinew_mesh_get(mesh);
  assert_non_null(m);
  assert_true(m->topology->nfaces > 0);
  uint32_t n = m->npoints;
  sinew_data_unref(mesh);
  return n;
}

/* Number of entries in dir that end in .obj. */
static int count_obj(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    n += len > 4 && !strcmp(e->d_name + len - 4, ".obj");
  }
  closedir(d);
  return n;
}

/* A sphere of 39,802 points turning with time, and a cube: each frame writes about 2.5 MB. */
static const char heavy_mel[] =
    "polySphere -sx 200 -sy 200 -n \"ball\";\n"
    "createNode unitConversion -n \"tc\";\n"
    "setAttr \"tc.conversionFactor\" 0.5;\n"
    "connectAttr \"time1.outTime\" \"tc.input\";\n"
    "connectAttr \"tc.output\" \"ball.rotateY\";\n"
    "polyCube -n \"box\";\n";

static void check_stopped_bake(const char *out, int sig, const char *sig_name, long last_frame) {
  char script[600], errtext[64];
  snprintf(script, sizeof script, "%s", path_of("heavy.mel"));
  spill(script, heavy_mel);
  char frames[32];
  snprintf(frames, sizeof frames, "1:%ld", last_frame);
  const char *args[] = {"run", script, "--frames", frames, "--out", out, NULL};
  child_t c = start_cli(args, RLIM_INFINITY);
  /* stop it once a few files are written, while it is busy with the next ones */
  double until = now_s() + 60;
  while (count_obj(out) < 5 && now_s() < until) {
    struct timespec ts = {0, 2 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  assert_int_equal(kill(c.pid, sig), 0);
  int status = wait_cli(&c, 60);
  char *err = slurp(c.err);
  if (status != 128 + sig) fail_msg("exit status %d, expected %d; stderr:\n%s", status, 128 + sig, err);
  snprintf(errtext, sizeof errtext, "sinew run: stopped by %s at frame ", sig_name);
  assert_contains(err, errtext);
  long stopped = strtol(strstr(err, errtext) + strlen(errtext), NULL, 10);
  free(err);
  assert_true(stopped >= 2 && stopped < last_frame);
  /* every frame before it complete, nothing after it, every file read whole, no temporary */
  assert_no_temp(out);
  uint32_t ball = 0, box = 0;
  char file[700];
  for (long f = 1; f <= last_frame; f++) {
    for (int k = 0; k < 2; k++) {
      snprintf(file, sizeof file, "%s/%s.%04ld.obj", out, k ? "boxShape" : "ballShape", f);
      struct stat st;
      bool there = stat(file, &st) == 0;
      if (f < stopped && !there) fail_msg("frame %ld was reported complete but %s is missing", f, file);
      if (f > stopped && there) fail_msg("%s is written after the frame it stopped at (%ld)", file, stopped);
      if (!there) continue;
      uint32_t n = obj_points(file);
      uint32_t *expected = k ? &box : &ball;
      if (!*expected) *expected = n;
      assert_int_equal(n, *expected);
    }
  }
  assert_int_equal(ball, 39802);
  assert_int_equal(box, 8);
}

static void test_run_stopped_by_signal(void **state) {
  check_stopped_bake(path_of("bake_int"), SIGINT, "SIGINT", 100000);
  check_stopped_bake(path_of("bake_term"), SIGTERM, "SIGTERM", 100000);
}

static void test_run_full_disk(void **state) {
  rlim_t limit;
  const char *dir = path_of("full_run");
  const char *reason = full_disk(dir, 4096, &limit);
  char script[600];
  snprintf(script, sizeof script, "%s", path_of("small.mel"));
  /* a frame is a cube (about 700 bytes) and a sphere (about 22 KB): the tmpfs fills on the third
   * frame; a 4 KiB size limit fails the first sphere */
  spill(script,
        "polyCube -n \"box\";\n"
        "polySphere -sx 20 -sy 20 -n \"ball\";\n"
        "createNode unitConversion -n \"tc\";\n"
        "connectAttr \"time1.outTime\" \"tc.input\";\n"
        "connectAttr \"tc.output\" \"ball.rotateY\";\n");
  const char *args[] = {"run", script, "--frames", "1:1000", "--out", dir, NULL};
  child_t c = start_cli(args, limit);
  int status = wait_cli(&c, 60);
  char *err = slurp(c.err);
  if (status != 1) fail_msg("exit status %d, expected 1; stderr:\n%s", status, err);
  assert_contains(err, "sinew run: ");
  assert_contains(err, dir);
  assert_contains(err, ".obj: ");
  assert_contains(err, reason);
  free(err);
  /* what is there reads whole, and no temporary file is left */
  int files = assert_no_temp(dir);
  assert_true(files >= 1);
  DIR *d = opendir(dir);
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    char file[700];
    snprintf(file, sizeof file, "%s/%s", dir, e->d_name);
    obj_points(file);
  }
  closedir(d);
  if (mounted[0]) {
    assert_int_equal(umount2(mounted, MNT_DETACH), 0);
    mounted[0] = 0;
  }
}

/* `sinew info` on a named pipe: a writer puts a script in it once; sinew reads it once. */
static void info_from_pipe(const char *name, const char *text, const char *expect) {
  const char *fifo = path_of(name);
  assert_int_equal(mkfifo(fifo, 0644), 0);
  fflush(NULL);
  pid_t writer = fork();
  assert_true(writer >= 0);
  if (writer == 0) {
    int fd = open(fifo, O_WRONLY); /* waits for sinew to open it */
    size_t n = strlen(text);
    _exit(fd < 0 || write(fd, text, n) != (ssize_t)n || close(fd) != 0);
  }
  const char *args[] = {"info", fifo, NULL};
  child_t c = start_cli(args, RLIM_INFINITY);
  int status = wait_pid(c.pid, 20);
  int wstatus = wait_pid(writer, status < 0 ? 0 : 20);
  if (status < 0) fail_msg("sinew info %s did not finish within 20 s (it waits on the pipe)", name);
  char *out = slurp(c.out), *err = slurp(c.err);
  if (status != 0) fail_msg("sinew info %s: exit status %d; stderr:\n%s", name, status, err);
  assert_int_equal(wstatus, 0);
  assert_contains(out, "file: ");
  assert_contains(out, expect);
  free(out);
  free(err);
}

static void test_info_reads_a_pipe(void **state) {
  info_from_pipe("fifo.mel", "createNode transform -n \"a\";\npolyCube -n \"box\";\n",
                 "meshes: 1\n  boxShape: 8 vertices, 6 faces");
  info_from_pipe("fifo.ma", "//Maya ASCII 2020 scene\ncreateNode transform -n \"a\";\n"
                 "createNode transform -n \"b\" -p \"a\";\n",
                 "\n  transform                     2\n");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_format_float),
      cmocka_unit_test_setup_teardown(test_save_keeps_mode_and_owner, setup, teardown),
      cmocka_unit_test_setup_teardown(test_save_through_symlink, setup, teardown),
      cmocka_unit_test_setup_teardown(test_temp_not_predictable, setup, teardown),
      cmocka_unit_test_setup_teardown(test_batch, setup, teardown),
      cmocka_unit_test_setup_teardown(test_failed_write_leaves_old_file, setup, teardown),
      cmocka_unit_test_setup_teardown(test_save_full_disk, setup, teardown),
      cmocka_unit_test_setup_teardown(test_save_to_pipe, setup, teardown),
      cmocka_unit_test_setup_teardown(test_run_stopped_by_signal, setup, teardown),
      cmocka_unit_test_setup_teardown(test_run_full_disk, setup, teardown),
      cmocka_unit_test_setup_teardown(test_info_reads_a_pipe, setup, teardown),
  };
  return cmocka_run_group_tests_name("output", tests, NULL, NULL);
}
