/* nodes/skin_kernels.c: the skinCluster kernels' common part: packing weights into blocks,
 * the per-influence element tables, the scalar (double) reference path, and the choice of
 * instruction set. The SIMD paths are nodes/skin_kernels_{sse2,avx2,avx512}.c, one source
 * (nodes/skin_kernel_body.h) compiled for each. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "nodes/skin_kernels.h"
#include "sinew/graph.h"
#include "sinew/skin.h"

/* ---- packing --------------------------------------------------------------------------------- */

typedef struct ranked {
  float w;
  uint32_t pos;
} ranked;

/* heaviest first; equal weights keep their order (the scalar pivot is the first maximum) */
static int ranked_cmp(const void *a, const void *b) {
  const ranked *x = a, *y = b;
  if (x->w != y->w) return x->w > y->w ? -1 : 1;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Writes point v's k entries (slots / weights, any order) down its lane of the block whose
 * rows start at `row`, heaviest first, and zeroes the lane's cells from k to `rows`. order:
 * room for k. */
static void place_point(sinew__skin_weights *w, uint32_t v, uint32_t row, uint32_t rows, uint32_t k,
                        const uint16_t *ps, const float *pw, ranked *order) {
  uint32_t l = v % SINEW__SKIN_BLOCK;
  for (uint32_t q = 0; q < k; q++) order[q] = (ranked){pw[q], q};
  if (k > 1) qsort(order, k, sizeof *order, ranked_cmp);
  for (uint32_t q = 0; q < rows; q++) {
    size_t cell = (size_t)(row + q) * SINEW__SKIN_BLOCK + l;
    w->weights[cell] = q < k ? order[q].w : 0.0f;
    w->slots[cell] = q < k ? ps[order[q].pos] : 0;
  }
  w->count[v] = (uint16_t)k;
}

int sinew__skin_weights_set_point(sinew__skin_weights *w, uint32_t v, const uint16_t *slots,
                                  const float *weights, uint32_t k) {
  if (v >= w->npoints) return k ? 1 : 0; /* past the packed points: not deformed before either */
  uint32_t b = v / SINEW__SKIN_BLOCK, row = w->block_row[b], rows = w->block_row[b + 1] - row;
  ranked order[64];
  if (k > rows || k > sizeof order / sizeof *order) return 1;
  w->nentries = w->nentries - w->count[v] + k;
  place_point(w, v, row, rows, k, slots, weights, order);
  return 0;
}

int sinew__skin_weights_build_from(uint32_t npoints, uint32_t cap, sinew__skin_point_fn point, void *ud,
                                   uint32_t ninfluences, sinew__skin_weights *out) {
  if (cap > 65535) return SINEW_ERANGE;
  uint32_t nblocks = (npoints + SINEW__SKIN_BLOCK - 1) / SINEW__SKIN_BLOCK;
  /* the point's entries, then the same ranked; one allocation, freed before the result's */
  unsigned char *tmp = sinew_malloc((size_t)(cap + 1) * (sizeof(uint16_t) + sizeof(float) + sizeof(ranked)));
  if (!tmp) return SINEW_ENOMEM;
  ranked *order = (ranked *)tmp;
  float *pw = (float *)(order + cap + 1);
  uint16_t *ps = (uint16_t *)(pw + cap + 1);
  /* first pass: the rows of each block (its widest point) */
  size_t rows = 0, entries = 0;
  for (uint32_t b = 0; b < nblocks; b++) {
    uint32_t most = 0;
    for (uint32_t v = b * SINEW__SKIN_BLOCK; v < npoints && v < (b + 1) * SINEW__SKIN_BLOCK; v++) {
      uint32_t k = point(ud, v, ps, pw);
      if (k > cap) {
        sinew_free(tmp);
        return SINEW_EINVAL;
      }
      entries += k;
      if (k > most) most = k;
    }
    rows += most;
  }
  size_t cells = rows * SINEW__SKIN_BLOCK, points = (size_t)nblocks * SINEW__SKIN_BLOCK;
  size_t bytes = (nblocks + 1) * sizeof(uint32_t) + cells * (sizeof(float) + sizeof(uint16_t)) +
                 points * sizeof(uint16_t) + 64;
  unsigned char *base = sinew_malloc(bytes);
  if (!base) {
    sinew_free(tmp);
    return SINEW_ENOMEM;
  }
  sinew__skin_weights w = {.npoints = npoints, .nblocks = nblocks, .nrows = (uint32_t)rows,
                           .nentries = (uint32_t)entries, .ninfluences = ninfluences, .storage = base,
                           .storage_bytes = bytes};
  w.weights = (float *)base;
  w.block_row = (uint32_t *)(w.weights + cells);
  w.slots = (uint16_t *)(w.block_row + nblocks + 1);
  w.count = w.slots + cells;
  memset(w.weights, 0, cells * sizeof(float));
  memset(w.slots, 0, cells * sizeof(uint16_t));
  memset(w.count, 0, points * sizeof(uint16_t));
  /* second pass: each point's entries, heaviest first, down its lane of the block */
  uint32_t row = 0;
  for (uint32_t b = 0; b < nblocks; b++) {
    w.block_row[b] = row;
    uint32_t most = 0;
    for (uint32_t l = 0; l < SINEW__SKIN_BLOCK; l++) {
      uint32_t v = b * SINEW__SKIN_BLOCK + l;
      if (v >= npoints) break;
      uint32_t k = point(ud, v, ps, pw);
      if (k > cap || row + k > rows) { /* not what the first pass counted: write nothing past */
        sinew_free(base);
        sinew_free(tmp);
        return SINEW_EINVAL;
      }
      place_point(&w, v, row, k, k, ps, pw, order);
      if (k > most) most = k;
    }
    row += most;
  }
  w.block_row[nblocks] = row;
  sinew_free(tmp);
  sinew__skin_weights_free(out);
  *out = w;
  return SINEW_OK;
}

typedef struct csr_points {
  const uint32_t *offsets;
  const uint16_t *slots;
  const float *weights;
} csr_points;

static uint32_t csr_point(void *ud, uint32_t v, uint16_t *slots, float *weights) {
  const csr_points *c = ud;
  uint32_t b = c->offsets[v], k = c->offsets[v + 1] - b;
  memcpy(slots, c->slots + b, k * sizeof *slots);
  memcpy(weights, c->weights + b, k * sizeof *weights);
  return k;
}

int sinew__skin_weights_build(uint32_t npoints, const uint32_t *offsets, const uint16_t *slots,
                              const float *weights, uint32_t ninfluences, sinew__skin_weights *out) {
  uint32_t widest = 0;
  for (uint32_t v = 0; v < npoints; v++)
    if (offsets[v + 1] - offsets[v] > widest) widest = offsets[v + 1] - offsets[v];
  if (widest > 65535) return SINEW_ERANGE;
  csr_points c = {offsets, slots, weights};
  return sinew__skin_weights_build_from(npoints, widest, csr_point, &c, ninfluences, out);
}

void sinew__skin_weights_free(sinew__skin_weights *w) {
  sinew_free(w->storage);
  memset(w, 0, sizeof *w);
}

/* ---- element tables -------------------------------------------------------------------------- */

size_t sinew__skin_table_stride(uint32_t ninfluences) {
  return ((size_t)ninfluences + 63) / 64 * 64 + (ninfluences ? 0 : 64);
}

size_t sinew__skin_table_floats(uint32_t ninfluences) {
  return (SINEW__SKIN_ELEMENTS + 48) * sinew__skin_table_stride(ninfluences) + 16 * (size_t)ninfluences;
}

bool sinew__skin_tables_fill(const sinew__skin_influence *inf, uint32_t ninfluences, float *table) {
  bool rigid = true;
  size_t st = sinew__skin_table_stride(ninfluences);
  memset(table, 0, sinew__skin_table_floats(ninfluences) * sizeof *table);
  float *aos = table + SINEW__SKIN_ELEMENTS * st;
  /* column by column: float 4c + r is lin[4r + c] (rows r 0..2 and a zero, for columns c 0..3) */
  for (uint32_t s = 0; s < ninfluences; s++)
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 4; c++) aos[16 * (size_t)s + 4 * c + r] = inf[s].lin[4 * r + c];
  /* the same lines for odd lanes: column c's floats ordered (row 2, 0, row 0, row 1) */
  float *odd = aos + 16 * st;
  for (uint32_t s = 0; s < ninfluences; s++)
    for (int c = 0; c < 4; c++) {
      odd[16 * (size_t)s + 4 * c] = inf[s].lin[8 + c];
      odd[16 * (size_t)s + 4 * c + 2] = inf[s].lin[c];
      odd[16 * (size_t)s + 4 * c + 3] = inf[s].lin[4 + c];
    }
  /* both again with the line's halves swapped (columns 2, 3, 0, 1) */
  for (int k = 0; k < 2; k++)
    for (uint32_t s = 0; s < ninfluences; s++) {
      const float *from = aos + k * 16 * st + 16 * (size_t)s;
      float *to = aos + (2 + k) * 16 * st + 16 * (size_t)s;
      for (int f = 0; f < 16; f++) to[f] = from[(f + 8) % 16];
    }
  for (uint32_t s = 0; s < ninfluences; s++) {
    const sinew__skin_influence *in = &inf[s];
    for (int e = 0; e < 12; e++) table[e * st + s] = in->lin[e];
    const double q[8] = {in->dq.real.x, in->dq.real.y, in->dq.real.z, in->dq.real.w,
                         in->dq.dual.x, in->dq.dual.y, in->dq.dual.z, in->dq.dual.w};
    for (int e = 0; e < 8; e++) table[(12 + e) * st + s] = (float)q[e];
    for (int e = 0; e < 9; e++) {
      table[(20 + e) * st + s] = (float)in->scale[e];
      rigid = rigid && fabs(in->scale[e] - (e % 4 == 0 ? 1.0 : 0.0)) <= 1e-7;
    }
  }
  return rigid;
}

/* ---- the scalar reference -------------------------------------------------------------------- */

/* point v's e-th entry (heaviest first) */
#define CELL(w, v, e) ((size_t)((w)->block_row[(v) / SINEW__SKIN_BLOCK] + (e)) * SINEW__SKIN_BLOCK + (v) % SINEW__SKIN_BLOCK)

static void linear_point(const sinew__skin_job *j, uint32_t v, const float *p, float *out, float *nout,
                         const float *nin) {
  const sinew__skin_weights *c = j->w;
  float m[12] = {0}, wsum = 0;
  for (uint32_t e = 0; e < c->count[v]; e++) {
    size_t cell = CELL(c, v, e);
    const float *k = j->inf[c->slots[cell]].lin;
    float w = c->weights[cell];
    for (int q = 0; q < 12; q++) m[q] += w * k[q];
    wsum += w;
  }
  /* Each lin_i is G * M_i * G^-1, so the blend counts G^-1's translation wsum times; spec 4.3
   * sums the world points and applies G^-1 once. The same when the weights sum to 1. */
  float missing = 1.0f - wsum;
  if (fabsf(missing) > 1e-6f) {
    m[3] += missing * (float)j->ginv.m[3][0];
    m[7] += missing * (float)j->ginv.m[3][1];
    m[11] += missing * (float)j->ginv.m[3][2];
  }
  out[0] = p[0] * m[0] + p[1] * m[1] + p[2] * m[2] + m[3];
  out[1] = p[0] * m[4] + p[1] * m[5] + p[2] * m[6] + m[7];
  out[2] = p[0] * m[8] + p[1] * m[9] + p[2] * m[10] + m[11];
  if (nout) {
    /* normals through the inverse transpose of the blended linear part */
    double a[3][3] = {{m[0], m[4], m[8]}, {m[1], m[5], m[9]}, {m[2], m[6], m[10]}}; /* rows of A */
    double cof[3][3];
    for (int r = 0; r < 3; r++)
      for (int cidx = 0; cidx < 3; cidx++) {
        int r1 = (r + 1) % 3, r2 = (r + 2) % 3, c1 = (cidx + 1) % 3, c2 = (cidx + 2) % 3;
        cof[r][cidx] = a[r1][c1] * a[r2][c2] - a[r1][c2] * a[r2][c1];
      }
    /* n' = n * cof(A) (the inverse transpose up to a positive-or-negative scale) */
    double nx = nin[0] * cof[0][0] + nin[1] * cof[1][0] + nin[2] * cof[2][0];
    double ny = nin[0] * cof[0][1] + nin[1] * cof[1][1] + nin[2] * cof[2][1];
    double nz = nin[0] * cof[0][2] + nin[1] * cof[1][2] + nin[2] * cof[2][2];
    double det = a[0][0] * cof[0][0] + a[0][1] * cof[0][1] + a[0][2] * cof[0][2];
    double len = sqrt(nx * nx + ny * ny + nz * nz);
    if (len > 0) {
      double s = (det < 0 ? -1.0 : 1.0) / len;
      nout[0] = (float)(nx * s);
      nout[1] = (float)(ny * s);
      nout[2] = (float)(nz * s);
    } else {
      memcpy(nout, nin, 3 * sizeof *nout);
    }
  }
}

static void dq_point(const sinew__skin_job *j, uint32_t v, const float *p, double out[3], double nout[3],
                     const float *nin) {
  const sinew__skin_weights *c = j->w;
  /* pivot: the heaviest influence */
  uint32_t pivot = 0;
  for (uint32_t e = 1; e < c->count[v]; e++)
    if (c->weights[CELL(c, v, e)] > c->weights[CELL(c, v, pivot)]) pivot = e;
  sinew_quat_t rp = j->inf[c->slots[CELL(c, v, pivot)]].dq.real;
  sinew_dquat_t acc = {{0, 0, 0, 0}, {0, 0, 0, 0}};
  double S[9] = {0};
  for (uint32_t e = 0; e < c->count[v]; e++) {
    size_t cell = CELL(c, v, e);
    const sinew__skin_influence *in = &j->inf[c->slots[cell]];
    double w = c->weights[cell];
    if (sinew_quat_dot(in->dq.real, rp) < 0) w = -w;
    sinew_dquat_add_scaled(&acc, &in->dq, w);
    double aw = fabs(w);
    for (int q = 0; q < 9; q++) S[q] += aw * in->scale[q];
  }
  /* world-space point at bind, through the blended scale/shear, then the rigid blend */
  sinew_vec3_t q = {p[0], p[1], p[2]}, r;
  sinew_mat4_transform_point(q, &j->g, &q);
  sinew_vec3_t qs = {q.x * S[0] + q.y * S[3] + q.z * S[6], q.x * S[1] + q.y * S[4] + q.z * S[7],
                     q.x * S[2] + q.y * S[5] + q.z * S[8]};
  sinew_dquat_t unit;
  if (!sinew_dquat_normalize(&acc, &unit)) { /* degenerate blend: leave the point */
    out[0] = p[0];
    out[1] = p[1];
    out[2] = p[2];
    if (nout) nout[0] = nin[0], nout[1] = nin[1], nout[2] = nin[2];
    return;
  }
  sinew_dquat_transform_point(&unit, qs, &r);
  sinew_mat4_transform_point(r, &j->ginv, &r);
  out[0] = r.x;
  out[1] = r.y;
  out[2] = r.z;
  if (nout) {
    /* normal: the inverse transpose of the point's map G * S * R * G^-1, i.e.
     * n * G^-T * S^-T * R * G^T (S^-T from the cofactors, with det(S)'s sign so that a mirroring
     * S does not turn normals inward) */
    double cof[9];
    cof[0] = S[4] * S[8] - S[5] * S[7]; cof[1] = S[5] * S[6] - S[3] * S[8]; cof[2] = S[3] * S[7] - S[4] * S[6];
    cof[3] = S[2] * S[7] - S[1] * S[8]; cof[4] = S[0] * S[8] - S[2] * S[6]; cof[5] = S[1] * S[6] - S[0] * S[7];
    cof[6] = S[1] * S[5] - S[2] * S[4]; cof[7] = S[2] * S[3] - S[0] * S[5]; cof[8] = S[0] * S[4] - S[1] * S[3];
    double sdet = S[0] * cof[0] + S[1] * cof[1] + S[2] * cof[2];
    double sg = sdet < 0 ? -1.0 : 1.0;
    sinew_vec3_t n0 = {nin[0], nin[1], nin[2]}, n1;
    sinew_mat4_transform_vector(n0, &j->ginv_t, &n0);
    n1 = (sinew_vec3_t){sg * (n0.x * cof[0] + n0.y * cof[3] + n0.z * cof[6]),
                        sg * (n0.x * cof[1] + n0.y * cof[4] + n0.z * cof[7]),
                        sg * (n0.x * cof[2] + n0.y * cof[5] + n0.z * cof[8])};
    sinew_quat_rotate(unit.real, n1, &n1);
    sinew_mat4_transform_vector(n1, &j->g_t, &n1);
    sinew_vec3_normalize(n1, &n1);
    nout[0] = n1.x;
    nout[1] = n1.y;
    nout[2] = n1.z;
  }
}

/* Linear skinning of points without normals, the scalar path's tight loop: blend the
 * influences' 3x4 matrices, then p' = p * m. */
static void scalar_linear_points(const sinew__skin_job *j, size_t begin, size_t end) {
  const sinew__skin_weights *c = j->w;
  const float en = j->envelope;
  const float gt[3] = {(float)j->ginv.m[3][0], (float)j->ginv.m[3][1], (float)j->ginv.m[3][2]};
  for (size_t v = begin; v < end; v++) {
    const float *p = &j->in_points[3 * v];
    float *o = &j->out_points[3 * v];
    uint32_t k = v < c->npoints ? c->count[v] : 0;
    if (k == 0) {
      o[0] = p[0], o[1] = p[1], o[2] = p[2];
      continue;
    }
    float m[12] = {0}, wsum = 0;
    for (uint32_t e = 0; e < k; e++) {
      size_t cell = CELL(c, v, e);
      const float *km = j->inf[c->slots[cell]].lin;
      float w = c->weights[cell];
      for (int q = 0; q < 12; q++) m[q] += w * km[q];
      wsum += w;
    }
    float missing = 1.0f - wsum; /* see linear_point */
    if (fabsf(missing) > 1e-6f) m[3] += missing * gt[0], m[7] += missing * gt[1], m[11] += missing * gt[2];
    for (int q = 0; q < 3; q++) {
      float d = p[0] * m[4 * q] + p[1] * m[4 * q + 1] + p[2] * m[4 * q + 2] + m[4 * q + 3];
      o[q] = en == 1.0f ? d : p[q] + en * (d - p[q]);
    }
  }
}

static void scalar_points(const sinew__skin_job *j, size_t begin, size_t end) {
  const sinew__skin_weights *c = j->w;
  if (j->method == SINEW__SKIN_LINEAR && !j->out_normals) {
    scalar_linear_points(j, begin, end);
    return;
  }
  for (size_t v = begin; v < end; v++) {
    const float *p = &j->in_points[3 * v];
    float *o = &j->out_points[3 * v];
    const float *nin = j->out_normals ? &j->in_normals[3 * v] : NULL;
    float *no = j->out_normals ? &j->out_normals[3 * v] : NULL;
    if (v >= c->npoints || c->count[v] == 0) { /* no weights: stays put */
      memcpy(o, p, 3 * sizeof *o);
      if (no) memcpy(no, nin, 3 * sizeof *no);
      continue;
    }
    float lin[3] = {0, 0, 0}, lin_n[3] = {0, 0, 0};
    double dq[3] = {0, 0, 0}, dq_n[3] = {0, 0, 0};
    double bw = j->method == SINEW__SKIN_DQ ? 1.0 : 0.0;
    if (j->method == SINEW__SKIN_BLENDED) bw = j->blend ? j->blend[v] : 0.0;
    if (bw < 1.0) linear_point(j, (uint32_t)v, p, lin, no ? lin_n : NULL, nin);
    if (bw > 0.0) dq_point(j, (uint32_t)v, p, dq, no ? dq_n : NULL, nin);
    for (int k = 0; k < 3; k++) {
      double d = bw >= 1.0 ? dq[k] : bw <= 0.0 ? lin[k] : (1.0 - bw) * lin[k] + bw * dq[k];
      o[k] = (float)(p[k] + j->envelope * (d - p[k]));
    }
    if (no) {
      double n3[3], len = 0;
      for (int k = 0; k < 3; k++) {
        n3[k] = bw >= 1.0 ? dq_n[k] : bw <= 0.0 ? lin_n[k] : (1.0 - bw) * lin_n[k] + bw * dq_n[k];
        n3[k] = nin[k] + j->envelope * (n3[k] - nin[k]);
        len += n3[k] * n3[k];
      }
      len = sqrt(len);
      for (int k = 0; k < 3; k++) no[k] = (float)(len > 0 ? n3[k] / len : nin[k]);
    }
  }
}

/* ---- dispatch -------------------------------------------------------------------------------- */

static void copy_points(const sinew__skin_job *j, size_t begin, size_t end) {
  if (end <= begin) return;
  memcpy(&j->out_points[3 * begin], &j->in_points[3 * begin], 3 * sizeof(float) * (end - begin));
  if (j->out_normals)
    memcpy(&j->out_normals[3 * begin], &j->in_normals[3 * begin], 3 * sizeof(float) * (end - begin));
}

size_t sinew__skin_job_blocks(const sinew__skin_job *job) {
  return ((size_t)job->npoints_total + SINEW__SKIN_BLOCK - 1) / SINEW__SKIN_BLOCK;
}

typedef void (*blocks_fn)(const sinew__skin_job *, size_t, size_t, const sinew__skin_io *);

static blocks_fn blocks_for(int isa) {
  switch (isa) {
  case SINEW_SKIN_ISA_AVX512: return sinew__skin_blocks_avx512;
  case SINEW_SKIN_ISA_AVX2: return sinew__skin_blocks_avx2;
  case SINEW_SKIN_ISA_SSE2: return sinew__skin_blocks_sse2;
  default: return NULL;
  }
}

void sinew__skin_run(const sinew__skin_job *j, int isa, size_t first_block, size_t end_block) {
  const size_t B = SINEW__SKIN_BLOCK;
  size_t total = j->npoints_total, begin = first_block * B, end = end_block * B;
  if (end > total) end = total;
  if (begin >= end) return;
  blocks_fn fn = blocks_for(isa);
  if (!fn) {
    scalar_points(j, begin, end);
    return;
  }
  /* full weighted blocks in place; a partial last one through a padded copy; the rest copied */
  size_t weighted_end = (size_t)j->w->nblocks * B < end ? (size_t)j->w->nblocks * B : end;
  size_t full_end = begin + (weighted_end > begin ? (weighted_end - begin) / B * B : 0);
  bool normals = j->out_normals != NULL;
  if (full_end > begin) {
    sinew__skin_io io = {&j->in_points[3 * begin], normals ? &j->in_normals[3 * begin] : NULL,
                         &j->out_points[3 * begin], normals ? &j->out_normals[3 * begin] : NULL};
    fn(j, begin / B, full_end / B, &io);
  }
  if (full_end < weighted_end) {
    float ip[3 * SINEW__SKIN_BLOCK] = {0}, in[3 * SINEW__SKIN_BLOCK] = {0};
    float op[3 * SINEW__SKIN_BLOCK], on[3 * SINEW__SKIN_BLOCK];
    size_t n = weighted_end - full_end;
    memcpy(ip, &j->in_points[3 * full_end], 3 * sizeof(float) * n);
    if (normals) memcpy(in, &j->in_normals[3 * full_end], 3 * sizeof(float) * n);
    sinew__skin_io io = {ip, normals ? in : NULL, op, normals ? on : NULL};
    fn(j, full_end / B, full_end / B + 1, &io);
    memcpy(&j->out_points[3 * full_end], op, 3 * sizeof(float) * n);
    if (normals) memcpy(&j->out_normals[3 * full_end], on, 3 * sizeof(float) * n);
  }
  copy_points(j, weighted_end > begin ? weighted_end : begin, end);
}

/* ---- instruction set ------------------------------------------------------------------------- */

#if defined(__x86_64__) || defined(__i386__)
#define SKIN_X86 1
#endif

bool sinew__skin_isa_available(int isa) {
  switch (isa) {
  case SINEW_SKIN_ISA_SCALAR: return true;
#ifdef SKIN_X86
  case SINEW_SKIN_ISA_SSE2: __builtin_cpu_init(); return __builtin_cpu_supports("sse2");
  case SINEW_SKIN_ISA_AVX2:
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  case SINEW_SKIN_ISA_AVX512: __builtin_cpu_init(); return __builtin_cpu_supports("avx512f");
#endif
  default: return false;
  }
}

static const char *const isa_names[SINEW_SKIN_ISA_MAX] = {"auto", "scalar", "sse2", "avx2", "avx512"};

const char *sinew_skin_isa_name(sinew_skin_isa_t isa) {
  return (unsigned)isa < SINEW_SKIN_ISA_MAX ? isa_names[isa] : "?";
}

bool sinew_skin_isa_supported(sinew_skin_isa_t isa) {
  return isa == SINEW_SKIN_ISA_AUTO || sinew__skin_isa_available(isa);
}

static atomic_int forced_isa; /* SINEW_SKIN_ISA_AUTO: not forced */

/* The widest path the CPU has, no wider than SINEW_SKIN_ISA names (an unknown name is ignored). */
static int default_isa(void) {
  int cap = SINEW_SKIN_ISA_MAX - 1;
  const char *env = getenv("SINEW_SKIN_ISA");
  for (int i = SINEW_SKIN_ISA_SCALAR; env && i < SINEW_SKIN_ISA_MAX; i++)
    if (strcmp(env, isa_names[i]) == 0) cap = i;
  for (int i = cap; i > SINEW_SKIN_ISA_SCALAR; i--)
    if (sinew__skin_isa_available(i)) return i;
  return SINEW_SKIN_ISA_SCALAR;
}

int sinew_skin_set_isa(sinew_skin_isa_t isa) {
  if ((unsigned)isa >= SINEW_SKIN_ISA_MAX) return SINEW_EINVAL;
  if (!sinew_skin_isa_supported(isa)) return SINEW_EUNSUPPORTED;
  atomic_store(&forced_isa, (int)isa);
  return SINEW_OK;
}

sinew_skin_isa_t sinew_skin_isa(void) {
  int f = atomic_load(&forced_isa);
  return (sinew_skin_isa_t)(f != SINEW_SKIN_ISA_AUTO ? f : default_isa());
}
