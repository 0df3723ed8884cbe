/* bench/bench_files.c: putting many small output files in place (issue 16, `sinew run`'s
 * frames): sinew_afile_commit for each file (an fsync of the file and of its directory, what
 * `sinew run` did) next to sinew_afile_commit_later + one sinew_afile_batch_commit (one syncfs,
 * what it does now), interleaved in the same process, the median of several rounds (machines
 * here are shared and noisy, and a flush waits for everything else the disk is writing: compare
 * the ratio). Each file is the OBJ of a 330-point mesh, the size of the example rig's frames;
 * the files are read back and compared after every round.
 *
 *   bench_files [files [rounds]]   (default 200 files, 5 rounds; in $TMPDIR or /tmp)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sinew/sinew.h"
#include "bench/bench_util.h"

/* Writes `files` OBJ files into dir, each committed at once or into a batch committed at the
 * end; seconds taken, or a negative number on failure. */
static double write_all(const char *dir, const sinew_data_t *mesh, int files, bool batched) {
  char path[4096], why[1024];
  sinew_afile_batch_t *b = NULL;
  if (batched && sinew_afile_batch_create(&b)) return -1;
  double t0 = now();
  for (int i = 0; i < files; i++) {
    snprintf(path, sizeof path, "%s/mesh.%04d.obj", dir, i);
    sinew_afile_t *af;
    if (sinew_afile_open(path, &af, why, sizeof why) || sinew_mesh_write_obj(mesh, sinew_afile_stream(af))) {
      fprintf(stderr, "bench_files: %s\n", why);
      return -1;
    }
    int rc = batched ? sinew_afile_commit_later(af, b, why, sizeof why) : sinew_afile_commit(af, why, sizeof why);
    if (rc) {
      fprintf(stderr, "bench_files: %s\n", why);
      return -1;
    }
  }
  if (batched && sinew_afile_batch_commit(b, why, sizeof why)) {
    fprintf(stderr, "bench_files: %s\n", why);
    return -1;
  }
  double t = now() - t0;
  sinew_afile_batch_destroy(b);
  return t;
}

/* Every file holds the mesh's points (read back). */
static int check_all(const char *dir, const sinew_data_t *mesh, int files) {
  char path[4096], err[256];
  const sinew_mesh_t *m = sinew_mesh_get(mesh);
  for (int i = 0; i < files; i++) {
    snprintf(path, sizeof path, "%s/mesh.%04d.obj", dir, i);
    FILE *f = fopen(path, "rb");
    sinew_data_t *back = NULL;
    if (!f || sinew_mesh_read_obj(f, path, &back, err, sizeof err)) {
      fprintf(stderr, "bench_files: %s does not read back\n", path);
      if (f) fclose(f);
      return 1;
    }
    fclose(f);
    const sinew_mesh_t *r = sinew_mesh_get(back);
    int same = r->npoints == m->npoints && !memcmp(r->points, m->points, sizeof(float) * 3 * m->npoints);
    sinew_data_unref(back);
    if (!same) {
      fprintf(stderr, "bench_files: %s is not the mesh written\n", path);
      return 1;
    }
    unlink(path);
  }
  return 0;
}

int main(int argc, char **argv) {
  int files = argc > 1 ? atoi(argv[1]) : 200, rounds = argc > 2 ? atoi(argv[2]) : 5;
  if (files < 1) files = 1;
  if (rounds < 1) rounds = 1;
  if (rounds > 64) rounds = 64;
  const char *tmp = getenv("TMPDIR");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/sinew-bench-files-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    perror("bench_files: mkdtemp");
    return 1;
  }
  sinew_data_t *mesh = NULL;
  if (sinew_mesh_cylinder(1, 4, 20, 15, 1, &mesh)) return 1; /* 20 x 16 + 2 = 322 points */
  double one[64], batch[64];
  for (int r = 0; r < rounds; r++) {
    /* alternate which goes first, so neither always meets the other's unflushed data */
    bool batch_first = r % 2;
    for (int k = 0; k < 2; k++) {
      bool batched = (k == 0) == batch_first;
      double t = write_all(dir, mesh, files, batched);
      if (t < 0 || check_all(dir, mesh, files)) return 1;
      (batched ? batch : one)[r] = t;
    }
  }
  qsort(one, (size_t)rounds, sizeof *one, cmp_double);
  qsort(batch, (size_t)rounds, sizeof *batch, cmp_double);
  double a = one[rounds / 2], b = batch[rounds / 2];
  printf("%d files of a %u-point mesh, median of %d rounds (in %s)\n", files, sinew_mesh_get(mesh)->npoints, rounds,
         dir);
  printf("  each file committed (fsync file + directory): %8.3f ms per file\n", 1e3 * a / files);
  printf("  one batch, one syncfs:                        %8.3f ms per file\n", 1e3 * b / files);
  printf("  ratio %.1fx\n", a / b);
  sinew_data_unref(mesh);
  rmdir(dir);
  return 0;
}
