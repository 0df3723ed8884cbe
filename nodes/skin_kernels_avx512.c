/* nodes/skin_kernels_avx512.c: the skinning kernel for AVX-512F, 16 points a step (CMake
 * compiles this file alone with -mavx512f -mfma; it runs only when the CPU has them).
 * Influence data is looked up with in-register permutes while there are at most 64
 * influences (one to four table rows), with gathers beyond; many rows, and points without
 * normals, blend each point's matrix whole instead (blend_by_point, points_by_point). */
#include "nodes/skin_kernels.h"

#if defined(__AVX512F__) && defined(__FMA__)
#include <immintrin.h>
#include <stdbool.h>

#define W 16
typedef __m512 V;
typedef __mmask16 M;
typedef struct {
  __m512i idx;
  __mmask16 hi; /* slot >= 32 */
} K;

#define V_SET1(x) _mm512_set1_ps(x)
#define V_LOAD(p) _mm512_loadu_ps(p)
#define V_ADD _mm512_add_ps
#define V_SUB _mm512_sub_ps
#define V_MUL _mm512_mul_ps
#define V_DIV _mm512_div_ps
#define V_SQRT _mm512_sqrt_ps
#define V_ABS _mm512_abs_ps
#define V_FMA _mm512_fmadd_ps
#define V_LT(a, b) _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ)
#define V_GT(a, b) _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ)
#define V_LE(a, b) _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ)
#define V_GE(a, b) _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ)
#define M_AND(a, b) ((__mmask16)((a) & (b)))
#define V_SEL(m, t, f) _mm512_mask_blend_ps(m, f, t)

static inline __attribute__((always_inline)) K K_LOAD(const uint16_t *p) {
  __m512i i = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p));
  return (K){i, _mm512_test_epi32_mask(i, _mm512_set1_epi32(32))};
}

/* mode 0: gather; 1: at most 16 influences; 2: at most 32; 3: at most 64 */
static inline __attribute__((always_inline)) V lookup(const float *row, K k, const int mode) {
  switch (mode) {
  case 1: return _mm512_permutexvar_ps(k.idx, _mm512_loadu_ps(row));
  case 2: return _mm512_permutex2var_ps(_mm512_loadu_ps(row), k.idx, _mm512_loadu_ps(row + 16));
  case 3: {
    /* two merge-masked permutes, no blend: the first writes the lanes of slots 0..31 and leaves
     * the others holding their index, which the second reads as its index (its low five bits
     * pick among slots 32..63) for exactly those lanes */
    V r = _mm512_mask2_permutex2var_ps(_mm512_loadu_ps(row), k.idx, (__mmask16)~k.hi, _mm512_loadu_ps(row + 16));
    return _mm512_mask2_permutex2var_ps(_mm512_loadu_ps(row + 32), _mm512_castps_si512(r), k.hi,
                                        _mm512_loadu_ps(row + 48));
  }
  default: return _mm512_i32gather_ps(k.idx, row, 4);
  }
}
#define V_LOOKUP(row, k) lookup(row, k, mode)
#define LOOKUP_MODES 4
#define LOOKUP_MODE(j) ((j)->w->ninfluences <= 16 ? 1 : (j)->w->ninfluences <= 32 ? 2 : (j)->w->ninfluences <= 64 ? 3 : 0)

static inline __attribute__((always_inline)) M M_ACTIVE(const uint16_t *p) {
  __m512i c = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p));
  return _mm512_test_epi32_mask(c, c);
}

/* 16 interleaved xyz points (3 vectors) <-> x, y, z: two two-source permutes per vector */
static const int32_t ld1[3][16] = {{0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 0, 0, 0, 0, 0},
                                   {1, 4, 7, 10, 13, 16, 19, 22, 25, 28, 31, 0, 0, 0, 0, 0},
                                   {2, 5, 8, 11, 14, 17, 20, 23, 26, 29, 0, 0, 0, 0, 0, 0}};
static const int32_t ld2[3][16] = {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 17, 20, 23, 26, 29},
                                   {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 18, 21, 24, 27, 30},
                                   {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 19, 22, 25, 28, 31}};
static const int32_t st1[3][16] = {{0, 16, 0, 1, 17, 0, 2, 18, 0, 3, 19, 0, 4, 20, 0, 5},
                                   {21, 0, 6, 22, 0, 7, 23, 0, 8, 24, 0, 9, 25, 0, 10, 26},
                                   {0, 11, 27, 0, 12, 28, 0, 13, 29, 0, 14, 30, 0, 15, 31, 0}};
static const int32_t st2[3][16] = {{0, 1, 16, 3, 4, 17, 6, 7, 18, 9, 10, 19, 12, 13, 20, 15},
                                   {0, 21, 2, 3, 22, 5, 6, 23, 8, 9, 24, 11, 12, 25, 14, 15},
                                   {26, 1, 2, 27, 4, 5, 28, 7, 8, 29, 10, 11, 30, 13, 14, 31}};
#define IDX(t, c) _mm512_loadu_si512((const void *)(t)[c])

static inline __attribute__((always_inline)) void LOAD3(const float *p, V *x, V *y, V *z) {
  V a = _mm512_loadu_ps(p), b = _mm512_loadu_ps(p + 16), c = _mm512_loadu_ps(p + 32);
  *x = _mm512_permutex2var_ps(_mm512_permutex2var_ps(a, IDX(ld1, 0), b), IDX(ld2, 0), c);
  *y = _mm512_permutex2var_ps(_mm512_permutex2var_ps(a, IDX(ld1, 1), b), IDX(ld2, 1), c);
  *z = _mm512_permutex2var_ps(_mm512_permutex2var_ps(a, IDX(ld1, 2), b), IDX(ld2, 2), c);
}

static inline __attribute__((always_inline)) void STORE3(float *p, V x, V y, V z) {
  for (int c = 0; c < 3; c++)
    _mm512_storeu_ps(p + 16 * c,
                     _mm512_permutex2var_ps(_mm512_permutex2var_ps(x, IDX(st1, c), y), IDX(st2, c), z));
}

/* With many influences, a permute lookup per element costs more than blending each point's
 * matrices whole (one 16-float load and one multiply-add per influence) and transposing the
 * 16 results. The lines come from four copies of the table's lines, so that two stages of
 * the transpose are blends (two ports) where they were shuffles (the one shuffle port): odd
 * lanes take the copies whose columns hold (row 2, 0, row 0, row 1) where the first holds
 * (row 0, row 1, row 2, 0), so two blends of a pair of points give what two unpacks would
 * (rows 0 and 1 of both in one vector, row 2 in the other); lanes 4-7 and 12-15 take the
 * copies with the line's halves swapped (columns 2, 3, 0, 1), so two blends of two groups of
 * four points give columns 0-1 of both in one vector and columns 2-3 in the other. 28 blends
 * and 24 shuffles a block (against 52 shuffles; in cache 2-3% faster for each of the two).
 * Same multiply-adds in the same order as the lookups, so the choice (per block, by its row
 * count) does not change a bit. */
static inline __attribute__((always_inline)) bool blend_by_point(const sinew__skin_job *j, uint32_t r0,
                                                                 uint32_t r1, const int mode, V m[12]) {
  uint32_t rows = r1 - r0;
  if (!(rows >= 8 || (mode == 3 && rows >= 4) || (mode == 0 && rows >= 2))) return false;
  const float *aos = j->table + SINEW__SKIN_ELEMENTS * j->stride;
  const float *lines[4] = {aos, aos + 16 * j->stride, aos + 32 * j->stride, aos + 48 * j->stride};
  const uint16_t *slots = j->w->slots;
  const float *wts = j->w->weights;
  V r[16];
  for (int l = 0; l < 16; l++) r[l] = _mm512_setzero_ps();
  for (uint32_t row = r0; row < r1; row++) {
    const uint16_t *s = slots + (size_t)row * SINEW__SKIN_BLOCK;
    const float *wt = wts + (size_t)row * SINEW__SKIN_BLOCK;
    for (int l = 0; l < 16; l++) {
      const float *line = lines[(l & 1) + (l & 4 ? 2 : 0)] + 16 * (size_t)s[l];
      r[l] = _mm512_fmadd_ps(_mm512_set1_ps(wt[l]), _mm512_loadu_ps(line), r[l]);
    }
  }
  /* 16x16 transpose, keeping columns 0..11. Per column (128-bit lane) of a pair of points a, b:
   * t[2i] = (a0 a1 b0 b1), t[2i + 1] = (b2 0 a2 0), then rows 0, 1 and 2 of four points */
  V t[16], u[12];
  for (int i = 0; i < 8; i++) {
    t[2 * i] = _mm512_mask_blend_ps((__mmask16)0xCCCC, r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_mask_blend_ps((__mmask16)0x3333, r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 4; i++) {
    u[3 * i] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0x88);
    u[3 * i + 1] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0xDD);
    u[3 * i + 2] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x22);
  }
  /* u[3g + e]: row e of the points of group g (lanes 4g..4g+3), one column a 128-bit lane, in
   * the order (0, 1, 2, 3) for groups 0 and 2 and (2, 3, 0, 1) for groups 1 and 3; so v0 holds
   * columns 0 and 1 of groups 0 and 1, v1 columns 2 and 3 of groups 1 and 0 */
  const __mmask16 hi = 0xFF00, lo = 0x00FF;
  for (int e = 0; e < 3; e++) { /* row e of the 3x4 */
    V v0 = _mm512_mask_blend_ps(hi, u[e], u[3 + e]), v1 = _mm512_mask_blend_ps(lo, u[e], u[3 + e]);
    V v2 = _mm512_mask_blend_ps(hi, u[6 + e], u[9 + e]), v3 = _mm512_mask_blend_ps(lo, u[6 + e], u[9 + e]);
    m[4 * e] = _mm512_shuffle_f32x4(v0, v2, 0x88);
    m[4 * e + 1] = _mm512_shuffle_f32x4(v0, v2, 0xDD);
    m[4 * e + 2] = _mm512_shuffle_f32x4(v1, v3, 0x22);
    m[4 * e + 3] = _mm512_shuffle_f32x4(v1, v3, 0x77);
  }
  return true;
}

/* Points without normals, linear, a block whose 16 points all have weights summing to 1 and
 * the envelope 1 (else false, nothing written, and the general path runs): each point's
 * matrix is blended whole, as above, and applied where it stands, four points at a time: the
 * four lines' 128-bit columns gathered into four vectors (eight lane shuffles), each point's
 * x, y and z spread over its lane (three permutes), and the result packed to interleaved xyz
 * (three permutes for 16 points). No transpose of the matrices and none of the points: 47
 * shuffles a block against 36 + 24 a row for the lookups. The same multiply-adds in the same
 * order as the general path, so the same bits. */
static const int32_t spread[3][16] = {{0, 0, 0, 0, 3, 3, 3, 3, 6, 6, 6, 6, 9, 9, 9, 9},
                                      {1, 1, 1, 1, 4, 4, 4, 4, 7, 7, 7, 7, 10, 10, 10, 10},
                                      {2, 2, 2, 2, 5, 5, 5, 5, 8, 8, 8, 8, 11, 11, 11, 11}};
static const int32_t pack[3][16] = {{0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 16, 17, 18, 20},
                                    {5, 6, 8, 9, 10, 12, 13, 14, 16, 17, 18, 20, 21, 22, 24, 25},
                                    {10, 12, 13, 14, 16, 17, 18, 20, 21, 22, 24, 25, 26, 28, 29, 30}};

static inline __attribute__((always_inline)) bool points_by_point(const sinew__skin_job *j, uint32_t r0,
                                                                  uint32_t r1, size_t h, const float *in,
                                                                  float *out, const uint16_t *count) {
  (void)h; /* 16 lanes: the whole block */
  const uint16_t *slots = j->w->slots;
  const float *wts = j->w->weights;
  __m512i c = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)count));
  if (_mm512_test_epi32_mask(c, c) != 0xFFFF) return false;
  V ws = _mm512_setzero_ps();
  for (uint32_t row = r0; row < r1; row++) ws = _mm512_add_ps(ws, _mm512_loadu_ps(wts + (size_t)row * SINEW__SKIN_BLOCK));
  if (_mm512_cmp_ps_mask(_mm512_abs_ps(_mm512_sub_ps(_mm512_set1_ps(1.0f), ws)), _mm512_set1_ps(1e-6f), _CMP_GT_OQ))
    return false;
  const float *aos = j->table + SINEW__SKIN_ELEMENTS * j->stride;
  V r[16];
  for (int l = 0; l < 16; l++) r[l] = _mm512_setzero_ps();
  for (uint32_t row = r0; row < r1; row++) {
    const uint16_t *s = slots + (size_t)row * SINEW__SKIN_BLOCK;
    const float *wt = wts + (size_t)row * SINEW__SKIN_BLOCK;
    for (int l = 0; l < 16; l++) r[l] = _mm512_fmadd_ps(_mm512_set1_ps(wt[l]), _mm512_loadu_ps(aos + 16 * (size_t)s[l]), r[l]);
  }
  V o[4];
  for (int g = 0; g < 4; g++) {
    V s0 = _mm512_shuffle_f32x4(r[4 * g], r[4 * g + 1], 0x44), s1 = _mm512_shuffle_f32x4(r[4 * g], r[4 * g + 1], 0xEE);
    V s2 = _mm512_shuffle_f32x4(r[4 * g + 2], r[4 * g + 3], 0x44), s3 = _mm512_shuffle_f32x4(r[4 * g + 2], r[4 * g + 3], 0xEE);
    V c0 = _mm512_shuffle_f32x4(s0, s2, 0x88), c1 = _mm512_shuffle_f32x4(s0, s2, 0xDD);
    V c2 = _mm512_shuffle_f32x4(s1, s3, 0x88), c3 = _mm512_shuffle_f32x4(s1, s3, 0xDD);
    /* the four points' 12 floats (the last group's load stops at the block's end) */
    V p = g < 3 ? _mm512_loadu_ps(in + 12 * g) : _mm512_maskz_loadu_ps(0x0FFF, in + 12 * g);
    V x = _mm512_permutexvar_ps(IDX(spread, 0), p), y = _mm512_permutexvar_ps(IDX(spread, 1), p),
      z = _mm512_permutexvar_ps(IDX(spread, 2), p);
    o[g] = _mm512_fmadd_ps(x, c0, _mm512_fmadd_ps(y, c1, _mm512_fmadd_ps(z, c2, c3)));
  }
  for (int q = 0; q < 3; q++) _mm512_storeu_ps(out + 16 * q, _mm512_permutex2var_ps(o[q], IDX(pack, q), o[q + 1]));
  return true;
}
#define POINTS_BY_POINT(j, r0, r1, h, in, out, count) points_by_point(j, r0, r1, h, in, out, count)
#define BLEND_BY_POINT(j, r0, r1, mode, m) blend_by_point(j, r0, r1, mode, m)

#define KERNEL sinew__skin_blocks_avx512
#include "nodes/skin_kernel_body.h"

#else /* not built for AVX-512: never chosen (sinew__skin_isa_available) */
void sinew__skin_blocks_avx512(const sinew__skin_job *job, size_t first_block, size_t end_block,
                               const sinew__skin_io *io) {
  (void)job, (void)first_block, (void)end_block, (void)io;
}
#endif
