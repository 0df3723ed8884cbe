/* bench/bench_obj.c: writing a mesh as OBJ (issue 16, "fast output"): sinew_mesh_write_obj
 * (shortest round-trip floats formatted without printf, one write per 64 KiB) next to the
 * writer it replaced (fprintf "%.9g" per number), in the same process (machines here are shared
 * and noisy: compare ratios). Both write to a temporary file; the new file is read back and
 * checked bit for bit.
 *
 *   bench_obj [points_per_side [rounds]]   (a plane of side x side quads; default 1000: 1M points)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sinew/sinew.h"
#include "bench/bench_util.h"

/* The writer before this one, kept as the reference. */
static void write_printf(const sinew_mesh_t *m, FILE *out) {
  const sinew_topology_t *t = m->topology;
  fprintf(out, "# sinew mesh: %u points, %u faces\n", m->npoints, t->nfaces);
  for (uint32_t i = 0; i < m->npoints; i++) {
    const float *p = &m->points[3 * (size_t)i];
    fprintf(out, "v %.9g %.9g %.9g\n", p[0], p[1], p[2]);
  }
  if (m->normals)
    for (uint32_t i = 0; i < m->npoints; i++) {
      const float *n = &m->normals[3 * (size_t)i];
      fprintf(out, "vn %.9g %.9g %.9g\n", n[0], n[1], n[2]);
    }
  for (uint32_t f = 0; f < t->nfaces; f++) {
    const uint32_t *fv = &t->face_verts[t->face_offsets[f]];
    fputc('f', out);
    for (uint32_t k = 0; k < t->face_counts[f]; k++) {
      if (m->normals) fprintf(out, " %u//%u", fv[k] + 1, fv[k] + 1);
      else fprintf(out, " %u", fv[k] + 1);
    }
    fputc('\n', out);
  }
}

int main(int argc, char **argv) {
  long side = argc > 1 ? atol(argv[1]) : 1000;
  int rounds = argc > 2 ? atoi(argv[2]) : 3;
  if (side < 2) side = 2;
  if (rounds < 1) rounds = 1;
  sinew_data_t *mesh = NULL;
  if (sinew_mesh_plane(7.3, 3.1, (uint32_t)side, (uint32_t)side, &mesh) || sinew_mesh_compute_normals(&mesh)) {
    fprintf(stderr, "bench_obj: no mesh\n");
    return 1;
  }
  /* points with many digits, as a deformed mesh has */
  float *p = sinew_mesh_points_mutable(&mesh);
  const sinew_mesh_t *m = sinew_mesh_get(mesh);
  for (uint32_t i = 0; i < m->npoints; i++) p[3 * (size_t)i + 1] = (float)sin(0.001 * i) * 1.7f;
  m = sinew_mesh_get(mesh);
  double best_new = 1e30, best_old = 1e30;
  long bytes_new = 0, bytes_old = 0;
  for (int r = 0; r < rounds; r++) {
    FILE *f = tmpfile();
    double t0 = now();
    if (sinew_mesh_write_obj(mesh, f)) return 1;
    fflush(f);
    double t1 = now();
    bytes_new = ftell(f);
    if (r == 0) { /* read back: the same floats */
      rewind(f);
      sinew_data_t *back = NULL;
      char err[256];
      if (sinew_mesh_read_obj(f, "bench.obj", &back, err, sizeof err)) {
        fprintf(stderr, "bench_obj: %s\n", err);
        return 1;
      }
      const sinew_mesh_t *b = sinew_mesh_get(back);
      if (b->npoints != m->npoints || memcmp(b->points, m->points, sizeof(float) * 3 * m->npoints)) {
        fprintf(stderr, "bench_obj: the points did not read back bit for bit\n");
        return 1;
      }
      sinew_data_unref(back);
    }
    fclose(f);
    f = tmpfile();
    double t2 = now();
    write_printf(m, f);
    fflush(f);
    double t3 = now();
    bytes_old = ftell(f);
    fclose(f);
    best_new = fmin(best_new, t1 - t0);
    best_old = fmin(best_old, t3 - t2);
  }
  printf("%u points with normals, %u faces (best of %d)\n", m->npoints, m->topology->nfaces, rounds);
  printf("sinew_mesh_write_obj:     %8.1f ms  %6.1f MB  %7.1f MB/s\n", best_new * 1e3, bytes_new / 1e6,
         bytes_new / 1e6 / best_new);
  printf("fprintf %%.9g (the old):  %8.1f ms  %6.1f MB  %7.1f MB/s\n", best_old * 1e3, bytes_old / 1e6,
         bytes_old / 1e6 / best_old);
  printf("speed-up %.1fx; file %.0f%% of the old size; points read back bit for bit\n", best_old / best_new,
         100.0 * (double)bytes_new / (double)bytes_old);
  sinew_data_unref(mesh);
  return 0;
}
