/* nodes/skin_kernels_avx2.c: the skinning kernel for AVX2 with FMA, 8 points a step (CMake
 * compiles this file alone with -mavx2 -mfma; it runs only when the CPU has them). Influence
 * data is gathered. */
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

#define KERNEL sinew__skin_blocks_avx2
#include "nodes/skin_kernel_body.h"

#else /* not built for AVX2: never chosen (sinew__skin_isa_available) */
void sinew__skin_blocks_avx2(const sinew__skin_job *job, size_t first_block, size_t end_block,
                             const sinew__skin_io *io) {
  (void)job, (void)first_block, (void)end_block, (void)io;
}
#endif
