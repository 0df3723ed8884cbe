/* bench/bench_run.c: `sinew run` of the example rig (scripts/example_rig.mel, 480 frames, two
 * skinned meshes: 960 OBJ files), issue 16's goal: at least 4x faster than when the issue was
 * filed (commit e5a48b4^: OBJ lines by fprintf, two fsyncs a file, the meshes evaluated on the
 * pool every frame).
 *
 * The command itself is run as a child process, each run into a new directory, and timed by
 * what it prints ("...; 0.123 s (load ...") and by the wall clock around the process. With
 * SINEW_RUN_OLD naming a `sinew` built from e5a48b4^ (docs/cli.md says how), the old command
 * runs interleaved with the new one (the order alternating), and the ratio of the medians is
 * measured here, in this run. Without it the old figure is the one recorded in docs/cli.md
 * (quiet machine; the old command waits for two disk flushes a file, so a busy disk slows it
 * far more than the new one: measure both together when you can).
 *
 *   bench_run [frames [runs]]      (default 480 frames, 7 runs; files go under $TMPDIR or /tmp)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench_util.h"

#ifndef SINEW_CLI_PATH
#error "CMake passes the sinew command's path as SINEW_CLI_PATH"
#endif
#ifndef SINEW_SOURCE_DIR
#error "CMake passes the source directory as SINEW_SOURCE_DIR"
#endif

/* The old command's run time for 480 frames, recorded in docs/cli.md (e5a48b4^, quiet machine,
 * the median of 5 runs interleaved with the new command). */
#define RECORDED_OLD_SECONDS 0.93

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

typedef struct result {
  double seconds;  /* what the command printed: evaluating and writing */
  double wall;     /* the whole process */
  double writing;  /* the share it printed (percent), or -1 when it prints none */
} result;

/* Runs `cli run RIG --frames 1:F --out dir` and reads its summary line; false on failure. */
static bool run_once(const char *cli, int frames, const char *dir, result *r) {
  char range[32];
  snprintf(range, sizeof range, "1:%d", frames);
  int fds[2];
  if (pipe(fds)) return false;
  double t0 = now();
  pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    execl(cli, cli, "run", SINEW_SOURCE_DIR "/scripts/example_rig.mel", "--frames", range, "--out", dir,
          (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  char out[4096];
  size_t n = 0;
  ssize_t k;
  while ((k = read(fds[0], out + n, sizeof out - 1 - n)) > 0) n += (size_t)k;
  out[n] = 0;
  close(fds[0]);
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r->wall = now() - t0;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "bench_run: %s failed (status %d): %s\n", cli, status, out);
    return false;
  }
  const char *semi = strstr(out, "; ");
  if (!semi || sscanf(semi, "; %lf s", &r->seconds) != 1) {
    fprintf(stderr, "bench_run: no summary from %s: %s\n", cli, out);
    return false;
  }
  const char *w = strstr(semi, "writing ");
  r->writing = w && sscanf(w, "writing %lf%%", &r->writing) == 1 ? r->writing : -1;
  return true;
}

/* Removes dir's files and dir (one level: what sinew run writes). */
static void remove_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  char path[4096];
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      unlink(path);
    }
  closedir(d);
  rmdir(dir);
}

int main(int argc, char **argv) {
  int frames = argc > 1 ? atoi(argv[1]) : 480;
  int runs = argc > 2 ? atoi(argv[2]) : 7;
  if (frames < 1 || runs < 1 || runs > 64) {
    fprintf(stderr, "usage: bench_run [frames [runs (1..64)]]\n");
    return 2;
  }
  const char *old = getenv("SINEW_RUN_OLD");
  if (old && !old[0]) old = NULL;
  const char *tmp = getenv("TMPDIR");
  char base[4096];
  snprintf(base, sizeof base, "%s/sinew-bench-run-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
  if (!mkdtemp(base)) {
    perror("bench_run: mkdtemp");
    return 1;
  }
  /* every run writes into a new directory, all removed at the end: removing one between runs
   * would make the next run's file creation pay for the freed inodes */
  result nr[64], orr[64];
  bool ok = true;
  for (int i = 0; i < runs && ok; i++)
    for (int q = 0; q < 2 && ok; q++) {
      bool is_old = (q == 0) == (i % 2 == 1); /* new first on even rounds, old first on odd ones */
      if (is_old && !old) continue;
      char dir[4200];
      snprintf(dir, sizeof dir, "%s/%s%d", base, is_old ? "old" : "new", i);
      ok = run_once(is_old ? old : SINEW_CLI_PATH, frames, dir, is_old ? &orr[i] : &nr[i]);
    }
  for (int i = 0; i < runs; i++)
    for (int q = 0; q < 2; q++) {
      char dir[4200];
      snprintf(dir, sizeof dir, "%s/%s%d", base, q ? "old" : "new", i);
      remove_dir(dir);
    }
  rmdir(base);
  if (!ok) return 1;
  double ns[64], nw[64], nwr[64], os[64], ow[64];
  for (int i = 0; i < runs; i++) {
    ns[i] = nr[i].seconds, nw[i] = nr[i].wall, nwr[i] = nr[i].writing;
    if (old) os[i] = orr[i].seconds, ow[i] = orr[i].wall;
  }
  double n_lo = ns[0], n_hi = ns[0];
  for (int i = 1; i < runs; i++) n_lo = ns[i] < n_lo ? ns[i] : n_lo, n_hi = ns[i] > n_hi ? ns[i] : n_hi;
  double new_s = median(ns, runs), new_w = median(nw, runs), share = median(nwr, runs);
  printf("bench_run: sinew run scripts/example_rig.mel --frames 1:%d, %d runs, medians\n", frames, runs);
  printf("  now:            %.3f s printed (%.3f-%.3f), %.3f s process, writing %.0f%%\n", new_s, n_lo, n_hi, new_w,
         share);
  double ratio;
  if (old) {
    double o_lo = os[0], o_hi = os[0];
    for (int i = 1; i < runs; i++) o_lo = os[i] < o_lo ? os[i] : o_lo, o_hi = os[i] > o_hi ? os[i] : o_hi;
    double old_s = median(os, runs), old_w = median(ow, runs);
    ratio = old_s / new_s;
    printf("  then (%s, interleaved): %.3f s printed (%.3f-%.3f), %.3f s process\n", old, old_s, o_lo, o_hi,
           old_w);
    printf("  ratio %.1fx printed, %.1fx process (goal >= 4: %s)\n", ratio, old_w / new_w,
           ratio >= 4 ? "met" : "NOT met");
  } else {
    ratio = RECORDED_OLD_SECONDS / new_s;
    printf("  then: %.2f s as recorded in docs/cli.md (not measured here: set SINEW_RUN_OLD to a sinew built"
           " from e5a48b4^)\n",
           RECORDED_OLD_SECONDS);
    printf("  ratio %.1fx against the recorded figure (goal >= 4: %s)\n", ratio, ratio >= 4 ? "met" : "NOT met");
  }
  return 0;
}
