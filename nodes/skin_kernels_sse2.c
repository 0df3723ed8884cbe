/* nodes/skin_kernels_sse2.c: the skinning kernel for SSE2 (every x86-64), 4 points a step,
 * without FMA (a multiply then an add) and with scalar table loads in place of gathers. */
#include "nodes/skin_kernels.h"

#if defined(__SSE2__)
#include <emmintrin.h>

#define W 4
typedef __m128 V;
typedef __m128 M;
typedef struct {
  int32_t i[4];
} K;

#define V_SET1(x) _mm_set1_ps(x)
#define V_LOAD(p) _mm_loadu_ps(p)
#define V_ADD _mm_add_ps
#define V_SUB _mm_sub_ps
#define V_MUL _mm_mul_ps
#define V_DIV _mm_div_ps
#define V_SQRT _mm_sqrt_ps
#define V_ABS(x) _mm_andnot_ps(_mm_set1_ps(-0.0f), x)
#define V_FMA(a, b, c) _mm_add_ps(_mm_mul_ps(a, b), c)
#define V_LT _mm_cmplt_ps
#define V_GT _mm_cmpgt_ps
#define V_LE _mm_cmple_ps
#define V_GE _mm_cmpge_ps
#define M_AND _mm_and_ps
#define V_SEL(m, t, f) _mm_or_ps(_mm_and_ps(m, t), _mm_andnot_ps(m, f))
#define K_LOAD(p) ((K){{(p)[0], (p)[1], (p)[2], (p)[3]}})
#define V_LOOKUP(row, k) _mm_setr_ps((row)[(k).i[0]], (row)[(k).i[1]], (row)[(k).i[2]], (row)[(k).i[3]])
#define LOOKUP_MODES 1
#define LOOKUP_MODE(j) 0
#define M_ACTIVE(p) \
  _mm_castsi128_ps(_mm_cmpgt_epi32(_mm_setr_epi32((p)[0], (p)[1], (p)[2], (p)[3]), _mm_setzero_si128()))

static inline __attribute__((always_inline)) void LOAD3(const float *p, V *x, V *y, V *z) {
  *x = _mm_setr_ps(p[0], p[3], p[6], p[9]);
  *y = _mm_setr_ps(p[1], p[4], p[7], p[10]);
  *z = _mm_setr_ps(p[2], p[5], p[8], p[11]);
}

static inline __attribute__((always_inline)) void STORE3(float *p, V x, V y, V z) {
  float a[4], b[4], c[4];
  _mm_storeu_ps(a, x);
  _mm_storeu_ps(b, y);
  _mm_storeu_ps(c, z);
  for (int l = 0; l < 4; l++) p[3 * l] = a[l], p[3 * l + 1] = b[l], p[3 * l + 2] = c[l];
}

#define KERNEL sinew__skin_blocks_sse2
#include "nodes/skin_kernel_body.h"

#else /* not an SSE2 target: never chosen (sinew__skin_isa_available) */
void sinew__skin_blocks_sse2(const sinew__skin_job *job, size_t first_block, size_t end_block,
                             const sinew__skin_io *io) {
  (void)job, (void)first_block, (void)end_block, (void)io;
}
#endif
