/* Tests of the skinCluster kernels (nodes/skin_kernels.h): every SIMD path against the scalar
 * reference on the same inputs (each method, influence counts 1..8 and mixed, sparse slots and
 * each lookup variant, rigid and scaled influences, normals on and off, envelope, weights not
 * summing to 1, a geomMatrix that is the identity or not, unweighted points, a partial last block), results that do not
 * depend on how the blocks are split or on the thread count, the instruction-set API, and the
 * same through a skinCluster in a graph with no allocation per frame on any path. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nodes/skin_kernels.h"
#include "sinew/sinew.h"
#include "tests/support.h"

static double rnd(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(*s >> 11) / 9007199254740992.0;
}

static void *xmalloc(size_t n) {
  void *p = calloc(1, n ? n : 1);
  assert_non_null(p);
  return p;
}

/* A rotation of at most 1 radian about a random axis (so quaternion hemispheres are clear),
 * a translation, and for some influences a scale and shear. */
static sinew_mat4_t random_motion(uint64_t *s, bool nonrigid) {
  sinew_vec3_t axis = {rnd(s) - 0.5, rnd(s) - 0.5, rnd(s) - 0.5 + 1e-3};
  double len = sqrt(axis.x * axis.x + axis.y * axis.y + axis.z * axis.z), ang = 2 * rnd(s) - 1;
  sinew_quat_t q = {sin(ang / 2) * axis.x / len, sin(ang / 2) * axis.y / len, sin(ang / 2) * axis.z / len,
                    cos(ang / 2)};
  sinew_mat4_t r, m, sc;
  sinew_quat_to_mat4(q, &r);
  r.m[3][0] = 4 * rnd(s) - 2, r.m[3][1] = 4 * rnd(s) - 2, r.m[3][2] = 4 * rnd(s) - 2;
  sinew_mat4_identity(&sc);
  if (nonrigid) sc.m[0][0] = 0.6 + rnd(s), sc.m[1][1] = 0.8 + 0.5 * rnd(s), sc.m[1][0] = 0.2 * rnd(s);
  sinew_mat4_mul(&sc, &r, &m);
  return m;
}

/* What the skinCluster builds from M_i = bindPreMatrix * matrix and G (nodes/skin_cluster.c). */
static void make_influence(const sinew_mat4_t *M, const sinew_mat4_t *G, const sinew_mat4_t *Ginv,
                           sinew__skin_influence *out) {
  sinew_mat4_t W, L, R, S;
  sinew_mat4_mul(G, M, &W);
  sinew_mat4_mul(&W, Ginv, &L);
  sinew_mat4_to_float34(&L, out->lin);
  assert_true(sinew_mat4_orthonormalize_rows(M, &R, &S));
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) out->scale[3 * r + c] = S.m[r][c];
  sinew_quat_t q;
  sinew_quat_from_mat4(&R, &q);
  sinew_dquat_from_rigid(q, (sinew_vec3_t){M->m[3][0], M->m[3][1], M->m[3][2]}, &out->dq);
}

typedef struct fixture {
  uint32_t total, weighted, ninf;
  sinew__skin_weights w;
  sinew__skin_influence *inf;
  float *table, *in_p, *in_n, *blend;
  sinew__skin_job job;
} fixture;

enum { MIXED = 0 };

/* `per_point` influences per point (MIXED: 0..8, some points unweighted); `unit`: weights sum
 * to 1, else they are scaled and some are negative. */
static void fixture_make(fixture *f, uint32_t ninf, int per_point, bool unit, bool rigid, uint64_t seed) {
  memset(f, 0, sizeof *f);
  f->total = 16 * 37 + 5;       /* a partial last block */
  f->weighted = f->total - 3;   /* the last points have no weightList element */
  f->ninf = ninf;
  uint64_t s = seed;
  uint32_t n = f->weighted;
  uint32_t *off = xmalloc(sizeof *off * (n + 1));
  uint16_t *slots = xmalloc(sizeof *slots * 8 * n);
  float *wts = xmalloc(sizeof *wts * 8 * n);
  uint32_t e = 0;
  for (uint32_t v = 0; v < n; v++) {
    off[v] = e;
    int k = per_point == MIXED ? (int)(rnd(&s) * 9) : per_point;
    if (k > (int)ninf) k = (int)ninf;
    double sum = 0;
    for (int q = 0; q < k; q++) {
      uint16_t cand;
      bool dup;
      do {
        cand = (uint16_t)(rnd(&s) * ninf);
        dup = false;
        for (uint32_t p = off[v]; p < e; p++) dup |= slots[p] == cand;
      } while (dup);
      slots[e] = cand;
      wts[e] = (float)(0.05 + rnd(&s));
      if (q == 2 && (v % 3) == 0) wts[e] = wts[e - 1]; /* ties: the first is the pivot */
      sum += wts[e];
      e++;
    }
    for (uint32_t p = off[v]; p < e; p++) {
      if (unit) wts[p] = (float)(wts[p] / sum);
      else if ((p % 5) == 4 && e - off[v] > 2) wts[p] = -0.1f * wts[p];
      else wts[p] = (float)(1.3 * wts[p] / sum);
    }
  }
  off[n] = e;
  assert_int_equal(sinew__skin_weights_build(n, off, slots, wts, ninf, &f->w), SINEW_OK);
  free(off);
  free(slots);
  free(wts);
  /* a geomMatrix that moves, or (every other influence count) the identity, which the SIMD
   * paths skip */
  sinew_mat4_t G = random_motion(&s, true), Ginv;
  if ((seed / 10) % 2 == 1) sinew_mat4_identity(&G);
  assert_true(sinew_mat4_inverse(&G, &Ginv));
  f->inf = xmalloc(sizeof *f->inf * ninf);
  for (uint32_t i = 0; i < ninf; i++) {
    sinew_mat4_t M = random_motion(&s, !rigid && i % 4 == 1);
    make_influence(&M, &G, &Ginv, &f->inf[i]);
  }
  size_t stride = sinew__skin_table_stride(ninf);
  f->table = xmalloc(sizeof(float) * sinew__skin_table_floats(ninf));
  bool all_rigid = sinew__skin_tables_fill(f->inf, ninf, f->table);
  assert_int_equal(all_rigid, rigid || ninf < 2);
  f->in_p = xmalloc(sizeof(float) * 3 * f->total);
  f->in_n = xmalloc(sizeof(float) * 3 * f->total);
  f->blend = xmalloc(sizeof(float) * f->w.nblocks * SINEW__SKIN_BLOCK);
  for (uint32_t i = 0; i < 3 * f->total; i++) {
    f->in_p[i] = (float)(6 * rnd(&s) - 3);
    f->in_n[i] = (float)(2 * rnd(&s) - 1);
  }
  for (uint32_t i = 0; i < f->w.nblocks * SINEW__SKIN_BLOCK; i++) {
    double b = rnd(&s);
    f->blend[i] = (float)(i % 7 == 0 ? 0.0 : i % 7 == 1 ? 1.0 : b);
  }
  sinew__skin_job j = {.w = &f->w, .inf = f->inf, .table = f->table, .stride = stride,
                       .in_points = f->in_p, .blend = f->blend, .npoints_total = f->total,
                       .envelope = 1.0f, .rigid = all_rigid, .g = G, .ginv = Ginv};
  sinew_mat4_transpose(&G, &j.g_t);
  sinew_mat4_transpose(&Ginv, &j.ginv_t);
  f->job = j;
}

static void fixture_free(fixture *f) {
  sinew__skin_weights_free(&f->w);
  free(f->inf);
  free(f->table);
  free(f->in_p);
  free(f->in_n);
  free(f->blend);
}

/* Runs `isa` over the whole mesh into fresh outputs (normals NULL when not asked for). */
static void run_all(fixture *f, int isa, bool normals, float **pts, float **nrm) {
  *pts = xmalloc(sizeof(float) * 3 * f->total);
  *nrm = normals ? xmalloc(sizeof(float) * 3 * f->total) : NULL;
  f->job.in_normals = normals ? f->in_n : NULL;
  f->job.out_points = *pts;
  f->job.out_normals = *nrm;
  sinew__skin_run(&f->job, isa, 0, sinew__skin_job_blocks(&f->job));
}

static double worst_points = 0, worst_normals = 0;

static void compare(const fixture *f, const float *ref, const float *got, bool normal, double tol,
                    const char *what) {
  for (uint32_t i = 0; i < 3 * f->total; i++) {
    double d = fabs((double)ref[i] - got[i]) / (1.0 + fabs(ref[i]));
    if (normal) worst_normals = fmax(worst_normals, d);
    else worst_points = fmax(worst_points, d);
    if (!(d <= tol))
      fail_msg("%s: point %u coordinate %u: scalar %.9g, got %.9g (tolerance %g)", what, i / 3, i % 3, ref[i],
               got[i], tol);
    if (i / 3 >= f->weighted && ref[i] != got[i]) fail_msg("%s: unweighted point %u moved", what, i / 3);
  }
}

static void test_paths_match_scalar(void **state) {
  (void)state;
  static const uint32_t ninfs[] = {5, 20, 40, 100}; /* each lookup variant of the AVX-512 path */
  static const int counts[] = {1, 2, 3, 4, 8, MIXED};
  int checked = 0;
  for (size_t a = 0; a < sizeof ninfs / sizeof *ninfs; a++)
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
      for (int variant = 0; variant < 4; variant++) {
        bool unit = variant & 1, rigid = variant & 2;
        fixture f;
        fixture_make(&f, ninfs[a], counts[c], unit, rigid, 1000 * a + 10 * c + (uint64_t)variant);
        for (int method = 0; method < 3; method++)
          for (int en = 0; en < 2; en++)
            for (int normals = 0; normals < 2; normals++) {
              f.job.method = method;
              f.job.envelope = en ? 0.6f : 1.0f;
              float *rp, *rn, *fp = NULL, *fn = NULL; /* scalar; the first FMA path */
              run_all(&f, SINEW_SKIN_ISA_SCALAR, normals, &rp, &rn);
              for (int isa = SINEW_SKIN_ISA_SSE2; isa < SINEW_SKIN_ISA_MAX; isa++) {
                if (!sinew__skin_isa_available(isa)) continue;
                char what[160];
                snprintf(what, sizeof what, "%s, %u %s influences, %d per point, %s weights, method %d, envelope %g%s",
                         sinew_skin_isa_name((sinew_skin_isa_t)isa), ninfs[a], rigid ? "rigid" : "scaled", counts[c],
                         unit ? "unit" : "free", method, f.job.envelope, normals ? ", normals" : "");
                float *gp, *gn;
                run_all(&f, isa, normals, &gp, &gn);
                compare(&f, rp, gp, false, 1e-5, what);
                if (normals) compare(&f, rn, gn, true, 2e-5, what);
                /* AVX2 and AVX-512 make the same fused multiply-adds in the same order (gathers,
                 * permutes or whole-matrix blends fetch the same numbers): the same bits */
                size_t bytes = sizeof(float) * 3 * f.total;
                if (isa >= SINEW_SKIN_ISA_AVX2 && fp) {
                  if (memcmp(fp, gp, bytes) || (normals && memcmp(fn, gn, bytes)))
                    fail_msg("%s: differs from the AVX2 path", what);
                  free(gp);
                  free(gn);
                } else if (isa >= SINEW_SKIN_ISA_AVX2) {
                  fp = gp, fn = gn;
                } else {
                  free(gp);
                  free(gn);
                }
                checked++;
              }
              free(fp);
              free(fn);
              free(rp);
              free(rn);
            }
        fixture_free(&f);
      }
  printf("%d path/case pairs against the scalar path: worst relative difference points %.2e, normals %.2e\n",
         checked, worst_points, worst_normals);
  assert_true(checked > 0);
}

/* Weights so small (1e-21) that |real|^2 of the blended dual quaternion underflows in float:
 * no path writes an infinity or a NaN (the SIMD paths once took 2 / |real|^2 = inf). */
static void test_tiny_weights_stay_finite(void **state) {
  (void)state;
  fixture f;
  fixture_make(&f, 20, 4, true, true, 77);
  for (size_t c = 0; c < (size_t)f.w.nrows * SINEW__SKIN_BLOCK; c++) f.w.weights[c] *= 1e-21f;
  int checked = 0;
  for (int method = SINEW__SKIN_LINEAR; method <= SINEW__SKIN_BLENDED; method++)
    for (int isa = SINEW_SKIN_ISA_SCALAR; isa < SINEW_SKIN_ISA_MAX; isa++) {
      if (!sinew__skin_isa_available(isa)) continue;
      f.job.method = method;
      float *p, *n;
      run_all(&f, isa, true, &p, &n);
      for (uint32_t i = 0; i < 3 * f.total; i++)
        if (!isfinite(p[i]) || !isfinite(n[i]))
          fail_msg("%s, method %d: point %u coordinate %u: %g, normal %g", sinew_skin_isa_name((sinew_skin_isa_t)isa),
                   method, i / 3, i % 3, p[i], n[i]);
      free(p);
      free(n);
      checked++;
    }
  fixture_free(&f);
  assert_true(checked >= 3);
}

typedef struct split_run {
  const sinew__skin_job *job;
  int isa;
} split_run;

static void split_chunk(void *ud, size_t begin, size_t end) {
  const split_run *r = ud;
  sinew__skin_run(r->job, r->isa, begin, end);
}

/* Any split of the blocks, over any number of threads, writes the same bytes. */
static void test_split_independence(void **state) {
  (void)state;
  fixture f;
  fixture_make(&f, 40, MIXED, false, false, 77);
  for (int isa = SINEW_SKIN_ISA_SCALAR; isa < SINEW_SKIN_ISA_MAX; isa++) {
    if (!sinew__skin_isa_available(isa)) continue;
    for (int method = 0; method < 3; method++) {
      f.job.method = method;
      float *rp, *rn;
      run_all(&f, isa, true, &rp, &rn);
      size_t nb = sinew__skin_job_blocks(&f.job), bytes = sizeof(float) * 3 * f.total;
      float *sp = xmalloc(bytes), *sn = xmalloc(bytes);
      f.job.out_points = sp, f.job.out_normals = sn;
      for (size_t b = nb; b-- > 0;) sinew__skin_run(&f.job, isa, b, b + 1); /* one block at a time, backwards */
      assert_memory_equal(rp, sp, bytes);
      assert_memory_equal(rn, sn, bytes);
      for (int threads = 1; threads <= 3; threads++) {
        memset(sp, 0, bytes), memset(sn, 0, bytes);
        assert_int_equal(sinew_pool_set_threads(threads), SINEW_OK);
        split_run r = {&f.job, isa};
        sinew_pool_run(nb, 1, split_chunk, &r);
        assert_memory_equal(rp, sp, bytes);
        assert_memory_equal(rn, sn, bytes);
      }
      free(rp), free(rn), free(sp), free(sn);
    }
  }
  assert_int_equal(sinew_pool_set_threads(1), SINEW_OK);
  fixture_free(&f);
}

/* Packing: heaviest first, counts, padding rows of zero weight, blocks as wide as their widest
 * point. */
static void test_packing(void **state) {
  (void)state;
  /* point 0: 3 weights, point 1: none, point 2: 1, point 17 (second block): 2 */
  uint32_t off[19] = {0, 3, 3, 4};
  for (int v = 4; v <= 17; v++) off[v] = 4;
  off[18] = 6;
  uint16_t slots[6] = {4, 2, 9, 7, 1, 3};
  float w[6] = {0.2f, 0.5f, 0.3f, 1.0f, 0.25f, 0.75f};
  sinew__skin_weights p = {0};
  assert_int_equal(sinew__skin_weights_build(18, off, slots, w, 10, &p), SINEW_OK);
  assert_int_equal(p.nblocks, 2);
  assert_int_equal(p.block_row[1] - p.block_row[0], 3);
  assert_int_equal(p.block_row[2] - p.block_row[1], 2);
  assert_int_equal(p.nentries, 6);
  assert_int_equal(p.count[0], 3);
  assert_int_equal(p.count[1], 0);
  assert_int_equal(p.count[17], 2);
  /* point 0, rows 0..2: 0.5 (slot 2), 0.3 (9), 0.2 (4) */
  assert_int_equal(p.slots[0 * 16], 2);
  assert_int_equal(p.slots[1 * 16], 9);
  assert_int_equal(p.slots[2 * 16], 4);
  assert_true(p.weights[0] == 0.5f && p.weights[16] == 0.3f && p.weights[32] == 0.2f);
  /* point 2: one weight, then padding */
  assert_true(p.weights[2] == 1.0f && p.weights[16 + 2] == 0.0f && p.weights[32 + 2] == 0.0f);
  /* point 17 is lane 1 of block 1: 0.75 (slot 3) first */
  size_t r = p.block_row[1];
  assert_int_equal(p.slots[r * 16 + 1], 3);
  assert_true(p.weights[r * 16 + 1] == 0.75f && p.weights[(r + 1) * 16 + 1] == 0.25f);
  sinew__skin_weights_free(&p);
  assert_null(p.storage);
  /* no weighted point at all */
  uint32_t none[1] = {0};
  assert_int_equal(sinew__skin_weights_build(0, none, NULL, NULL, 0, &p), SINEW_OK);
  assert_int_equal(p.nblocks, 0);
  sinew__skin_weights_free(&p);
}

/* A point function that gives more entries the second time it is asked (a graph changed under
 * the compile, or a defect in it): the build fails and writes nothing past what it counted. */
typedef struct growing {
  uint32_t calls, extra_from; /* calls made; from this call on, one entry more */
} growing;
static uint32_t growing_point(void *ud, uint32_t v, uint16_t *slots, float *weights) {
  growing *g = ud;
  uint32_t k = 1 + (g->calls++ >= g->extra_from);
  for (uint32_t q = 0; q < k; q++) slots[q] = (uint16_t)(v % 4 + q), weights[q] = 1.0f / (float)k;
  return k;
}
static uint32_t too_many_point(void *ud, uint32_t v, uint16_t *slots, float *weights) {
  (void)ud, (void)v;
  for (uint32_t q = 0; q < 3; q++) slots[q] = (uint16_t)q, weights[q] = 0.25f;
  return 3; /* more than the cap of 2 it was given room for (the buffers have one spare) */
}

static void test_packing_trusts_nothing(void **state) {
  (void)state;
  sinew__skin_weights p = {0}, keep = {0};
  assert_int_equal(sinew__skin_weights_build_from(40, 2, growing_point, &(growing){0, UINT32_MAX}, 8, &keep),
                   SINEW_OK);
  assert_int_equal(keep.nrows, 3); /* 3 blocks of one row */
  /* every point of the second pass asks for a second row: the first block already overflows */
  p = keep;
  assert_int_equal(sinew__skin_weights_build_from(40, 2, growing_point, &(growing){0, 40}, 8, &p), SINEW_EINVAL);
  assert_ptr_equal(p.storage, keep.storage); /* untouched */
  /* only the last point grows: the rows counted for the earlier blocks leave no room either */
  assert_int_equal(sinew__skin_weights_build_from(40, 2, growing_point, &(growing){0, 79}, 8, &p), SINEW_EINVAL);
  assert_int_equal(sinew__skin_weights_build_from(40, 2, too_many_point, NULL, 8, &p), SINEW_EINVAL);
  assert_ptr_equal(p.storage, keep.storage);
  sinew__skin_weights_free(&keep);
}

static void test_isa_api(void **state) {
  (void)state;
  assert_int_equal(sinew_skin_set_isa((sinew_skin_isa_t)99), SINEW_EINVAL);
  assert_int_equal(sinew_skin_set_isa((sinew_skin_isa_t)-1), SINEW_EINVAL);
  assert_string_equal(sinew_skin_isa_name(SINEW_SKIN_ISA_AVX512), "avx512");
  assert_string_equal(sinew_skin_isa_name((sinew_skin_isa_t)42), "?");
  assert_true(sinew_skin_isa_supported(SINEW_SKIN_ISA_SCALAR));
  int widest = SINEW_SKIN_ISA_SCALAR;
  for (int i = SINEW_SKIN_ISA_SCALAR; i < SINEW_SKIN_ISA_MAX; i++) {
    if (!sinew_skin_isa_supported((sinew_skin_isa_t)i)) {
      assert_int_equal(sinew_skin_set_isa((sinew_skin_isa_t)i), SINEW_EUNSUPPORTED);
      continue;
    }
    widest = i;
    assert_int_equal(sinew_skin_set_isa((sinew_skin_isa_t)i), SINEW_OK);
    assert_int_equal(sinew_skin_isa(), i);
  }
  assert_int_equal(sinew_skin_set_isa(SINEW_SKIN_ISA_AUTO), SINEW_OK);
  const char *env = getenv("SINEW_SKIN_ISA");
  if (!env) assert_int_equal(sinew_skin_isa(), widest); /* the default is the widest the CPU has */
  printf("default skinning path: %s\n", sinew_skin_isa_name(sinew_skin_isa()));
}

/* ---- through a graph ------------------------------------------------------------------------ */

static void set_matrix(sinew_graph_t *g, sinew_node_t n, const char *plug, const sinew_mat4_t *m) {
  sinew_plug_t p;
  assert_int_equal(sinew_plug_parse_attr(g, n, plug, &p), SINEW_OK);
  assert_int_equal(sinew_set_matrix(g, &p, m), SINEW_OK);
}

static sinew_data_t *pull(sinew_graph_t *g, sinew_node_t skin) {
  sinew_plug_t og;
  assert_int_equal(sinew_plug_parse_attr(g, skin, "og[0]", &og), SINEW_OK);
  sinew_data_t *d = NULL;
  assert_int_equal(sinew_get_data(g, &og, &d), SINEW_OK);
  return d;
}

/* A skinCluster on a 1000-point mesh with normals, 12 influences (sparse logical indices),
 * up to 5 weights a point, blend weights and a geomMatrix: every path forced in turn gives
 * the scalar path's result, and no path allocates per frame. */
static void test_graph_each_path(void **state) {
  (void)state;
  enum { N = 1000, NINF = 12 };
  test_alloc_install();
  sinew_graph_t *g;
  sinew_node_t skin;
  assert_int_equal(sinew_scene_create(NULL, &g), SINEW_OK);
  assert_int_equal(sinew_node_create(g, "skinCluster", "skinCluster1", &skin), SINEW_OK);
  uint64_t s = 5;
  sinew_data_t *mesh = NULL;
  assert_int_equal(sinew_mesh_create(N, 0, NULL, NULL, &mesh), SINEW_OK);
  float *n = sinew_mesh_normals_mutable(&mesh); /* adding normals may move the block: first */
  float *p = sinew_mesh_points_mutable(&mesh);
  assert_non_null(p);
  assert_non_null(n);
  for (int i = 0; i < 3 * N; i++) p[i] = (float)(4 * rnd(&s) - 2), n[i] = (float)(2 * rnd(&s) - 1);
  sinew_plug_t ig;
  assert_int_equal(sinew_plug_parse_attr(g, skin, "ip[0].ig", &ig), SINEW_OK);
  assert_int_equal(sinew_set_data(g, &ig, mesh), SINEW_OK);
  sinew_data_unref(mesh);
  sinew_mat4_t G = random_motion(&s, false);
  set_matrix(g, skin, "gm", &G);
  char buf[64];
  for (int i = 0; i < NINF; i++) {
    sinew_mat4_t bind = random_motion(&s, false), binv;
    assert_true(sinew_mat4_inverse(&bind, &binv));
    snprintf(buf, sizeof buf, "pm[%d]", 3 * i + 1);
    set_matrix(g, skin, buf, &binv);
    snprintf(buf, sizeof buf, "ma[%d]", 3 * i + 1);
    set_matrix(g, skin, buf, &bind);
  }
  for (int v = 0; v < N; v++) {
    int k = 1 + v % 5;
    int32_t idx[5];
    double w[5];
    for (int q = 0; q < k; q++) idx[q] = 3 * ((v + 2 * q) % NINF) + 1, w[q] = 0.1 + rnd(&s);
    for (int a = 0; a < k; a++) /* ascending indices */
      for (int b = a + 1; b < k; b++)
        if (idx[b] < idx[a]) {
          int32_t t = idx[a]; idx[a] = idx[b]; idx[b] = t;
          double tw = w[a]; w[a] = w[b]; w[b] = tw;
        }
    snprintf(buf, sizeof buf, "wl[%d].w", v);
    sinew_plug_t wp;
    assert_int_equal(sinew_plug_parse_attr(g, skin, buf, &wp), SINEW_OK);
    assert_int_equal(sinew_set_double_elements(g, &wp, idx, w, (size_t)k), SINEW_OK);
    snprintf(buf, sizeof buf, "bw[%d]", v);
    sinew_plug_t bp;
    assert_int_equal(sinew_plug_parse_attr(g, skin, buf, &bp), SINEW_OK);
    assert_int_equal(sinew_set_double(g, &bp, rnd(&s)), SINEW_OK);
  }
  sinew_plug_t skm, en;
  assert_int_equal(sinew_plug_parse_attr(g, skin, "skm", &skm), SINEW_OK);
  assert_int_equal(sinew_plug_parse_attr(g, skin, "en", &en), SINEW_OK);
  for (int method = 0; method < 3; method++) {
    assert_int_equal(sinew_set_double(g, &skm, method), SINEW_OK);
    float ref_p[3 * N], ref_n[3 * N];
    for (int isa = SINEW_SKIN_ISA_SCALAR; isa < SINEW_SKIN_ISA_MAX; isa++) {
      if (!sinew_skin_isa_supported((sinew_skin_isa_t)isa)) continue;
      assert_int_equal(sinew_skin_set_isa((sinew_skin_isa_t)isa), SINEW_OK);
      long before = 0;
      for (int frame = 0; frame < 6; frame++) {
        if (frame == 2) before = test_alloc_count();
        sinew_mat4_t now = random_motion(&s, false);
        if (frame == 5) now = G; /* the frame compared: the same pose for every path */
        set_matrix(g, skin, "ma[4]", &now);
        assert_int_equal(sinew_set_double(g, &en, frame == 5 ? 0.8 : 1.0), SINEW_OK);
        sinew_data_t *out = pull(g, skin);
        const sinew_mesh_t *m = sinew_mesh_get(out);
        assert_non_null(m->normals);
        if (frame == 5 && isa == SINEW_SKIN_ISA_SCALAR) {
          memcpy(ref_p, m->points, sizeof ref_p);
          memcpy(ref_n, m->normals, sizeof ref_n);
        } else if (frame == 5) {
          for (int i = 0; i < 3 * N; i++) {
            if (!(fabs(m->points[i] - ref_p[i]) <= 1e-5 * (1 + fabs(ref_p[i]))) ||
                !(fabs(m->normals[i] - ref_n[i]) <= 2e-5))
              fail_msg("%s, method %d: point %d: (%g, normal %g) against scalar (%g, %g)",
                       sinew_skin_isa_name((sinew_skin_isa_t)isa), method, i / 3, m->points[i], m->normals[i],
                       ref_p[i], ref_n[i]);
          }
        }
        sinew_data_unref(out);
      }
      long used = test_alloc_count() - before;
      if (used) fail_msg("%s, method %d: %ld allocations in 4 frames", sinew_skin_isa_name((sinew_skin_isa_t)isa),
                         method, used);
    }
  }
  assert_int_equal(sinew_skin_set_isa(SINEW_SKIN_ISA_AUTO), SINEW_OK);
  sinew_graph_destroy(g);
  assert_int_equal(test_alloc_live(), 0);
  test_alloc_uninstall();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_packing),
      cmocka_unit_test(test_packing_trusts_nothing),
      cmocka_unit_test(test_isa_api),
      cmocka_unit_test(test_paths_match_scalar),
      cmocka_unit_test(test_tiny_weights_stay_finite),
      cmocka_unit_test(test_split_independence),
      cmocka_unit_test(test_graph_each_path),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
