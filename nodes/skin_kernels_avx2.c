/* nodes/skin_kernels_avx2.c: the skinning kernel for AVX2 with FMA, 8 points a step (CMake
 * compiles this file alone with -mavx2 -mfma; it runs only when the CPU has them). Influence
 * data is gathered, but for points without normals, which blend each point's matrix whole
 * (points_by_point). */
#include "nodes/skin_kernels.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

#define W 8
typedef __m256 V;
typedef __m256 M;
typedef __m256i K;

#define V_SET1(x) _mm256_set1_ps(x)
#define V_LOAD(p) _mm256_loadu_ps(p)
#define V_ADD _mm256_add_ps
#define V_SUB _mm256_sub_ps
#define V_MUL _mm256_mul_ps
#define V_DIV _mm256_div_ps
#define V_SQRT _mm256_sqrt_ps
#define V_ABS(x) _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x)
#define V_FMA _mm256_fmadd_ps
#define V_LT(a, b) _mm256_cmp_ps(a, b, _CMP_LT_OQ)
#define V_GT(a, b) _mm256_cmp_ps(a, b, _CMP_GT_OQ)
#define V_LE(a, b) _mm256_cmp_ps(a, b, _CMP_LE_OQ)
#define V_GE(a, b) _mm256_cmp_ps(a, b, _CMP_GE_OQ)
#define M_AND _mm256_and_ps
#define V_SEL(m, t, f) _mm256_blendv_ps(f, t, m)
#define K_LOAD(p) _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p)))
#define V_LOOKUP(row, k) _mm256_i32gather_ps(row, k, 4)
#define LOOKUP_MODES 1
#define LOOKUP_MODE(j) 0

static inline __attribute__((always_inline)) M M_ACTIVE(const uint16_t *p) {
  __m256i c = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p));
  return _mm256_castsi256_ps(_mm256_cmpgt_epi32(c, _mm256_setzero_si256()));
}

/* 8 interleaved xyz points: a = x0 y0 z0 x1 y1 z1 x2 y2, b = z2 x3 .. x5, c = y5 z5 .. z7.
 * Two blends put one coordinate's 8 values in one vector (out of order), a permute sorts them;
 * the three permutes are their own inverses, so storing runs the same steps backwards. */
#define PX _mm256_setr_epi32(0, 3, 6, 1, 4, 7, 2, 5)
#define PY _mm256_setr_epi32(1, 4, 7, 2, 5, 0, 3, 6)
#define PZ _mm256_setr_epi32(2, 5, 0, 3, 6, 1, 4, 7)
#define QY _mm256_setr_epi32(5, 0, 3, 6, 1, 4, 7, 2)

static inline __attribute__((always_inline)) void LOAD3(const float *p, V *x, V *y, V *z) {
  V a = _mm256_loadu_ps(p), b = _mm256_loadu_ps(p + 8), c = _mm256_loadu_ps(p + 16);
  *x = _mm256_permutevar8x32_ps(_mm256_blend_ps(_mm256_blend_ps(a, b, 0x92), c, 0x24), PX);
  *y = _mm256_permutevar8x32_ps(_mm256_blend_ps(_mm256_blend_ps(a, b, 0x24), c, 0x49), PY);
  *z = _mm256_permutevar8x32_ps(_mm256_blend_ps(_mm256_blend_ps(a, b, 0x49), c, 0x92), PZ);
}

static inline __attribute__((always_inline)) void STORE3(float *p, V x, V y, V z) {
  V tx = _mm256_permutevar8x32_ps(x, PX), ty = _mm256_permutevar8x32_ps(y, QY),
    tz = _mm256_permutevar8x32_ps(z, PZ);
  _mm256_storeu_ps(p, _mm256_blend_ps(_mm256_blend_ps(tx, ty, 0x92), tz, 0x24));
  _mm256_storeu_ps(p + 8, _mm256_blend_ps(_mm256_blend_ps(tx, ty, 0x24), tz, 0x49));
  _mm256_storeu_ps(p + 16, _mm256_blend_ps(_mm256_blend_ps(tx, ty, 0x49), tz, 0x92));
}

/* Points without normals, linear, 8 points whose weights all sum to 1, envelope 1 (else
 * false, nothing written: the general path runs): each point's matrix is blended whole from
 * its column-by-column line (two vectors), then applied two points a vector: the two lines'
 * 128-bit columns paired (four lane permutes), each point's x, y, z spread over its half (three
 * permutes) and the results packed to interleaved xyz (six permutes for 8 points). It replaces
 * 12 gathers a row, slow on many CPUs. The same multiply-adds in the same order as the general
 * path (and the AVX-512 path), so the same bits. */
static inline __attribute__((always_inline)) bool points_by_point(const sinew__skin_job *j, uint32_t r0,
                                                                  uint32_t r1, size_t h, const float *in,
                                                                  float *out, const uint16_t *count) {
  const uint16_t *slots = j->w->slots;
  const float *wts = j->w->weights;
  __m256i c = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)count));
  if (_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(c, _mm256_setzero_si256()))) != 0xFF) return false;
  V ws = _mm256_setzero_ps();
  for (uint32_t row = r0; row < r1; row++) ws = _mm256_add_ps(ws, _mm256_loadu_ps(wts + (size_t)row * SINEW__SKIN_BLOCK + h));
  if (_mm256_movemask_ps(V_GT(V_ABS(_mm256_sub_ps(_mm256_set1_ps(1.0f), ws)), _mm256_set1_ps(1e-6f)))) return false;
  const float *aos = j->table + SINEW__SKIN_ELEMENTS * j->stride;
  V lo[8], hi[8]; /* columns 0-1 and 2-3 of each point's blended line */
  for (int l = 0; l < 8; l++) lo[l] = hi[l] = _mm256_setzero_ps();
  for (uint32_t row = r0; row < r1; row++) {
    const uint16_t *s = slots + (size_t)row * SINEW__SKIN_BLOCK + h;
    const float *wt = wts + (size_t)row * SINEW__SKIN_BLOCK + h;
    for (int l = 0; l < 8; l++) {
      const V wl = _mm256_broadcast_ss(wt + l);
      const float *line = aos + 16 * (size_t)s[l];
      lo[l] = _mm256_fmadd_ps(wl, _mm256_loadu_ps(line), lo[l]);
      hi[l] = _mm256_fmadd_ps(wl, _mm256_loadu_ps(line + 8), hi[l]);
    }
  }
  static const int32_t spread[3][8] = {{0, 0, 0, 0, 3, 3, 3, 3}, {1, 1, 1, 1, 4, 4, 4, 4}, {2, 2, 2, 2, 5, 5, 5, 5}};
  V o[4];
  for (int q = 0; q < 4; q++) {
    const V c0 = _mm256_permute2f128_ps(lo[2 * q], lo[2 * q + 1], 0x20), c1 = _mm256_permute2f128_ps(lo[2 * q], lo[2 * q + 1], 0x31);
    const V c2 = _mm256_permute2f128_ps(hi[2 * q], hi[2 * q + 1], 0x20), c3 = _mm256_permute2f128_ps(hi[2 * q], hi[2 * q + 1], 0x31);
    /* the two points' 6 floats (the last pair's load stops at the step's end) */
    const V p = q < 3 ? _mm256_loadu_ps(in + 6 * q)
                      : _mm256_maskload_ps(in + 6 * q, _mm256_setr_epi32(-1, -1, -1, -1, -1, -1, 0, 0));
    const V x = _mm256_permutevar8x32_ps(p, _mm256_loadu_si256((const __m256i *)spread[0]));
    const V y = _mm256_permutevar8x32_ps(p, _mm256_loadu_si256((const __m256i *)spread[1]));
    const V z = _mm256_permutevar8x32_ps(p, _mm256_loadu_si256((const __m256i *)spread[2]));
    o[q] = _mm256_fmadd_ps(x, c0, _mm256_fmadd_ps(y, c1, _mm256_fmadd_ps(z, c2, c3)));
  }
  /* o[q] = x y z _ x y z _ (points 2q, 2q + 1) -> 24 floats: each output vector takes from two
   * of them, each permuted into place, then one blend */
  static const int32_t pk[6][8] = {{0, 1, 2, 4, 5, 6, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 1},  /* o0 | o1 */
                                   {2, 4, 5, 6, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 1, 2, 4},  /* o1 | o2 */
                                   {5, 6, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 1, 2, 4, 5, 6}}; /* o2 | o3 */
  static const int blend[3] = {0xC0, 0xF0, 0xFC};
  for (int q = 0; q < 3; q++) {
    const V a = _mm256_permutevar8x32_ps(o[q], _mm256_loadu_si256((const __m256i *)pk[2 * q]));
    const V b = _mm256_permutevar8x32_ps(o[q + 1], _mm256_loadu_si256((const __m256i *)pk[2 * q + 1]));
    V v;
    switch (blend[q]) { /* the blend mask must be a constant */
    case 0xC0: v = _mm256_blend_ps(a, b, 0xC0); break;
    case 0xF0: v = _mm256_blend_ps(a, b, 0xF0); break;
    default: v = _mm256_blend_ps(a, b, 0xFC); break;
    }
    _mm256_storeu_ps(out + 8 * q, v);
  }
  return true;
}
#define POINTS_BY_POINT(j, r0, r1, h, in, out, count) points_by_point(j, r0, r1, h, in, out, count)

#define KERNEL sinew__skin_blocks_avx2
#include "nodes/skin_kernel_body.h"

#else /* not built for AVX2: never chosen (sinew__skin_isa_available) */
void sinew__skin_blocks_avx2(const sinew__skin_job *job, size_t first_block, size_t end_block,
                             const sinew__skin_io *io) {
  (void)job, (void)first_block, (void)end_block, (void)io;
}
#endif
