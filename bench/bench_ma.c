/* bench/bench_ma.c: reading and writing Maya ASCII. Generates a ~1 MB .ma of a realistic rig (a
 * joint chain with lockInfluenceWeights, a cylinder mesh given as vt / ed / fc polyFaces lines,
 * an Orig shape, a skinCluster with 4 influences per vertex in the compact .wl[a:b].w form,
 * bindPreMatrix, a bind pose dagPose), writes it to a temporary file and times, in the same run:
 * a plain read of the file's bytes, sinew_session_open, and sinew_session_save. Prints MB/s
 * and the ratios to the plain read. Best of several runs; these machines are noisy, so this is
 * a measurement, never a test.
 *
 *   bench_ma [rings] [segments] [joints]     (defaults 150 40 24: about 1 MB) */
#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sinew/cmds.h"
#include "sinew/sinew.h"
#include "bench/bench_util.h"

typedef struct text {
  char *p;
  size_t n, cap;
} text;

static void put(text *t, const char *fmt, ...) {
  va_list ap;
  for (;;) {
    va_start(ap, fmt);
    int k = vsnprintf(t->p ? t->p + t->n : NULL, t->p ? t->cap - t->n : 0, fmt, ap);
    va_end(ap);
    if (k < 0) abort();
    if (t->p && t->n + (size_t)k < t->cap) {
      t->n += (size_t)k;
      return;
    }
    t->cap = t->cap ? t->cap * 2 : 1 << 16;
    while (t->cap < t->n + (size_t)k + 1) t->cap *= 2;
    t->p = realloc(t->p, t->cap);
    if (!t->p) abort();
  }
}

static void matrix(text *t, double tx, double ty, double tz) {
  put(t, " 1 0 0 0 0 1 0 0 0 0 1 0 %.17g %.17g %.17g 1", tx, ty, tz);
}

static void generate(text *t, int rings, int segs, int joints) {
  const double height = 40, radius = 3, pi = 3.14159265358979323846;
  int nv = rings * segs, nh = rings * segs, nvert = (rings - 1) * segs, nf = (rings - 1) * segs;
  put(t, "//Maya ASCII 2020 scene\n//Name: bench.ma\n//Codeset: UTF-8\nrequires maya \"2020\";\n"
         "currentUnit -l centimeter -a degree -t film;\nfileInfo \"application\" \"maya\";\n");
  /* joints up the cylinder */
  double step = height / (joints - 1);
  for (int j = 0; j < joints; j++) {
    if (j == 0) put(t, "createNode joint -n \"spine%d\";\n", j);
    else put(t, "createNode joint -n \"spine%d\" -p \"spine%d\";\n", j, j - 1);
    put(t, "\trename -uid \"%08X-0000-4000-8000-%012X\";\n", 0x1000 + j, j);
    put(t, "\taddAttr -ci true -sn \"liw\" -ln \"lockInfluenceWeights\" -min 0 -max 1 -at \"bool\";\n");
    put(t, "\tsetAttr \".t\" -type \"double3\" 0 %.17g 0 ;\n", j ? step : 0.0);
    put(t, "\tsetAttr \".jo\" -type \"double3\" 0 0 %.17g ;\n", j % 3 == 1 ? 0.5 : 0.0);
    put(t, "\tsetAttr \".bps\" -type \"matrix\"");
    matrix(t, 0, j * step, 0);
    put(t, ";\n\tsetAttr \".radi\" 0.5;\n");
  }
  /* the mesh: a transform, the deformed shape and the Orig shape with the geometry */
  put(t, "createNode transform -n \"body\";\ncreateNode mesh -n \"bodyShape\" -p \"body\";\n"
         "\tsetAttr -k off \".v\";\n\tsetAttr \".vir\" yes;\n\tsetAttr \".vif\" yes;\n"
         "createNode mesh -n \"bodyShapeOrig\" -p \"body\";\n\tsetAttr -k off \".v\";\n\tsetAttr \".io\" yes;\n");
  put(t, "\tsetAttr -s %d \".vt[0:%d]\"", nv, nv - 1);
  for (int r = 0; r < rings; r++)
    for (int s = 0; s < segs; s++) {
      double a = 2 * pi * s / segs;
      put(t, "%s %.8g %.8g %.8g", (r * segs + s) % 3 == 0 ? "\n\t\t" : "", (float)(radius * cos(a)),
          (float)(height * r / (rings - 1)), (float)(radius * sin(a)));
    }
  put(t, ";\n\tsetAttr -s %d \".ed[0:%d]\"", nh + nvert, nh + nvert - 1);
  for (int r = 0; r < rings; r++)
    for (int s = 0; s < segs; s++)
      put(t, "%s %d %d 0", s % 8 == 0 ? "\n\t\t" : "", r * segs + s, r * segs + (s + 1) % segs);
  for (int r = 0; r + 1 < rings; r++)
    for (int s = 0; s < segs; s++) put(t, "%s %d %d 1", s % 8 == 0 ? "\n\t\t" : "", r * segs + s, (r + 1) * segs + s);
  put(t, ";\n\tsetAttr -s %d -ch %d \".fc[0:%d]\" -type \"polyFaces\"", nf, 4 * nf, nf - 1);
  for (int r = 0; r + 1 < rings; r++)
    for (int s = 0; s < segs; s++) {
      int s1 = (s + 1) % segs;
      int e0 = r * segs + s, e1 = nh + r * segs + s1, e2 = (r + 1) * segs + s, e3 = nh + r * segs + s;
      put(t, "\n\t\tf 4 %d %d %d %d", e0, e1, -e2 - 1, -e3 - 1);
    }
  put(t, ";\n");
  /* the skinCluster: 4 influences per vertex, compact weights */
  put(t, "createNode skinCluster -n \"skinCluster1\";\n\tsetAttr -s %d \".wl\";\n\tsetAttr \".wl[0:%d].w\"", nv, nv - 1);
  for (int r = 0; r < rings; r++) {
    double y = height * r / (rings - 1), fj = y / step;
    int j0 = (int)fj - 1;
    if (j0 < 0) j0 = 0;
    if (j0 > joints - 4) j0 = joints - 4;
    double w[4], sum = 0;
    for (int k = 0; k < 4; k++) sum += w[k] = 1.0 / (1.0 + fabs(fj - (j0 + k)) * fabs(fj - (j0 + k)) * 4);
    for (int s = 0; s < segs; s++) {
      put(t, "\n\t\t4");
      for (int k = 0; k < 4; k++) put(t, " %d %.17g", j0 + k, w[k] / sum);
    }
  }
  put(t, ";\n\tsetAttr -s %d \".pm\";\n", joints);
  for (int j = 0; j < joints; j++) {
    put(t, "\tsetAttr \".pm[%d]\" -type \"matrix\"", j);
    matrix(t, 0, -j * step, 0);
    put(t, ";\n");
  }
  put(t, "\tsetAttr \".gm\" -type \"matrix\" 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1;\n\tsetAttr -s %d \".ma\";\n"
         "\tsetAttr -s %d \".dpf[0:%d]\"", joints, joints, joints - 1);
  for (int j = 0; j < joints; j++) put(t, " 4");
  put(t, ";\n\tsetAttr \".mi\" 4;\n\tsetAttr \".ucm\" yes;\n");
  /* the bind pose */
  put(t, "createNode dagPose -n \"bindPose1\";\n\tsetAttr -s %d \".wm\";\n\tsetAttr -s %d \".xm\";\n", joints, joints);
  for (int j = 0; j < joints; j++)
    /* scale, rotate, rotate order, translate, shear, 4 pivots, rotateAxis and jointOrient
     * quaternions, inverse parent scale, segment scale compensate: 37 values */
    put(t, "\tsetAttr \".xm[%d]\" -type \"matrix\" \"xform\" 1 1 1 0 0 0 0 0 %.17g 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
           "0 0 0 1 0 0 0 1 1 1 1 yes;\n", j, j ? step : 0.0);
  put(t, "\tsetAttr -s %d \".m\";\n\tsetAttr -s %d \".p\";\n\tsetAttr \".bp\" yes;\n", joints, joints);
  /* connections */
  for (int j = 0; j < joints; j++) {
    put(t, "connectAttr \"spine%d.wm\" \"skinCluster1.ma[%d]\";\n", j, j);
    put(t, "connectAttr \"spine%d.liw\" \"skinCluster1.lw[%d]\";\n", j, j);
    put(t, "connectAttr \"spine%d.msg\" \"bindPose1.m[%d]\";\n", j, j);
    if (j) put(t, "connectAttr \"bindPose1.m[%d]\" \"bindPose1.p[%d]\";\n", j - 1, j);
    else put(t, "connectAttr \"bindPose1.w\" \"bindPose1.p[0]\";\n");
    put(t, "connectAttr \"spine%d.bps\" \"bindPose1.wm[%d]\";\n", j, j);
    if (j) put(t, "connectAttr \"spine%d.s\" \"spine%d.is\";\n", j - 1, j);
  }
  put(t, "connectAttr \"bindPose1.msg\" \"skinCluster1.bp\";\n"
         "connectAttr \"bodyShapeOrig.w\" \"skinCluster1.ip[0].ig\";\n"
         "connectAttr \"bodyShapeOrig.o\" \"skinCluster1.orggeom[0]\";\n"
         "connectAttr \"skinCluster1.og[0]\" \"bodyShape.i\";\n// End of bench.ma\n");
}

static void quiet(void *ud, sinew_log_level_t level, sinew_log_id_t id, const char *msg) {
  (void)ud;
  (void)id;
  if (level >= SINEW_LOG_ERROR) fprintf(stderr, "%s\n", msg);
}

int main(int argc, char **argv) {
  int rings = argc > 1 ? atoi(argv[1]) : 150, segs = argc > 2 ? atoi(argv[2]) : 40,
      joints = argc > 3 ? atoi(argv[3]) : 24;
  if (rings < 2 || segs < 3 || joints < 4) {
    fprintf(stderr, "usage: bench_ma [rings >= 2] [segments >= 3] [joints >= 4]\n");
    return 2;
  }
  text t = {0};
  generate(&t, rings, segs, joints);
  char dir[] = "/tmp/bench-ma-XXXXXX";
  if (!mkdtemp(dir)) return perror("mkdtemp"), 1;
  char in[64], out[64];
  snprintf(in, sizeof in, "%s/bench.ma", dir);
  snprintf(out, sizeof out, "%s/saved.ma", dir);
  FILE *f = fopen(in, "wb");
  if (!f || fwrite(t.p, 1, t.n, f) != t.n || fclose(f)) return perror(in), 1;
  double mb = (double)t.n / 1e6;
  printf("bench_ma: %.2f MB: %d joints, %d vertices, %d faces, %d weights\n", mb, joints, rings * segs,
         (rings - 1) * segs, rings * segs * 4);

  const int reps = 5;
  double best_read = 1e30, best_load = 1e30, best_save = 1e30;
  char *buf = malloc(t.n + 1);
  size_t saved_bytes = 0;
  sinew_session_desc_t desc = {.logger = quiet};
  long open_peak = -1, open_kept = -1; /* the first run's: growth of the peak and of what stays */
  for (int r = 0; r < reps; r++) {
    /* a plain read of the same bytes */
    double t0 = now();
    f = fopen(in, "rb");
    size_t got = f ? fread(buf, 1, t.n + 1, f) : 0;
    if (f) fclose(f);
    double t1 = now();
    if (got != t.n) return fprintf(stderr, "short read\n"), 1;
    if (t1 - t0 < best_read) best_read = t1 - t0;
    /* load */
    sinew_session_t *s = NULL;
    if (sinew_session_create(&desc, &s)) return 1;
    long rss0 = r ? -1 : proc_status_kb("VmRSS:");
    bool peak_reset = !r && reset_peak_rss();
    t0 = now();
    int rc = sinew_session_open(s, in);
    t1 = now();
    if (peak_reset && rss0 > 0) {
      open_peak = proc_status_kb("VmHWM:") - rss0;
      open_kept = proc_status_kb("VmRSS:") - rss0;
    }
    if (rc) return fprintf(stderr, "open: %s\n", sinew_session_errmsg(s)), 1;
    sinew_session_stats_t st;
    sinew_session_stats(s, &st);
    if (st.failed_commands) return fprintf(stderr, "%zu commands failed\n", st.failed_commands), 1;
    if (t1 - t0 < best_load) best_load = t1 - t0;
    /* save */
    t0 = now();
    rc = sinew_session_save(s, out);
    t1 = now();
    if (rc) return fprintf(stderr, "save: %s\n", sinew_session_errmsg(s)), 1;
    if (t1 - t0 < best_save) best_save = t1 - t0;
    sinew_session_destroy(s);
  }
  f = fopen(out, "rb");
  if (f) {
    fseek(f, 0, SEEK_END);
    saved_bytes = (size_t)ftell(f);
    fclose(f);
  }
  printf("plain read  %8.3f ms  %9.1f MB/s\n", best_read * 1e3, mb / best_read);
  printf("load (open) %8.3f ms  %9.1f MB/s  %7.1fx the plain read\n", best_load * 1e3, mb / best_load,
         best_load / best_read);
  printf("save        %8.3f ms  %9.1f MB/s  %7.1fx the plain read (%.2f MB written)\n", best_save * 1e3,
         (double)saved_bytes / 1e6 / best_save, best_save / best_read, (double)saved_bytes / 1e6);
  if (open_peak >= 0)
    printf("memory of the open: peak resident growth %.1f MB, %.1f MB still resident after it (first run)\n",
           open_peak / 1e3, open_kept / 1e3);
  printf("(best of %d runs each; the machine is shared, so figures vary from run to run)\n", reps);
  remove(in);
  remove(out);
  rmdir(dir);
  free(buf);
  free(t.p);
  return 0;
}
