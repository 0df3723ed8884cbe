/* nodes/skin_kernels.h: the skinCluster's deformation kernels (sinew__ tier), apart from the
 * node so that tests and bench/bench_skin can run each instruction-set path on the same inputs.
 *
 * Data layout (docs/skinning.md, "Kernels"): points go in blocks of SINEW__SKIN_BLOCK. A block
 * stores `rows` rows of SINEW__SKIN_BLOCK (slot, weight) pairs, row k holding each point's k-th
 * heaviest influence; a point with fewer influences than the block's widest is padded with
 * (slot 0, weight 0), which adds nothing. So a SIMD step of 4, 8 or 16 points runs one counted
 * loop over the rows with no per-point branch. Entry 0 of a weighted point is its heaviest
 * influence: the dual-quaternion pivot.
 *
 * Thread safety: a job is read-only; blocks are independent, so any split of [0, nblocks) over
 * threads writes the same bytes. */
#ifndef SINEW_NODES_SKIN_KERNELS_H
#define SINEW_NODES_SKIN_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sinew/math.h"

#define SINEW__SKIN_BLOCK 16

/* Compiled weights. One allocation (`storage`, owned by whoever built it); every array below
 * points into it. */
typedef struct sinew__skin_weights {
  uint32_t npoints;      /* points covered: the highest weighted point + 1 */
  uint32_t nblocks;      /* ceil(npoints / SINEW__SKIN_BLOCK) */
  uint32_t *block_row;   /* nblocks + 1: block b's rows are [block_row[b], block_row[b + 1]) */
  uint16_t *slots;       /* rows * SINEW__SKIN_BLOCK dense influence slots */
  float *weights;        /* rows * SINEW__SKIN_BLOCK */
  uint16_t *count;       /* nblocks * SINEW__SKIN_BLOCK: influences of each point, 0 = not deformed */
  uint32_t nrows;
  uint32_t nentries;     /* real (unpadded) weights */
  uint32_t ninfluences;
  void *storage;
  size_t storage_bytes;
} sinew__skin_weights;

/* Packs per-point weights given as CSR (point v's entries are [offsets[v], offsets[v + 1]) of
 * slots / weights; a point with no entry is not deformed) into `out`. Entries of one point are
 * ordered heaviest first (ties keep their order). SINEW_ENOMEM leaves `out` untouched. */
int sinew__skin_weights_build(uint32_t npoints, const uint32_t *offsets, const uint16_t *slots,
                              const float *weights, uint32_t ninfluences, sinew__skin_weights *out);
/* The same from a function giving point v's entries (at most cap, written into slots /
 * weights; returns how many), called twice per point in ascending order (the rows, then the
 * cells) and giving the same both times: no copy of every point's weights is held besides
 * the result. SINEW_ERANGE when cap > 65535; SINEW_EINVAL (out untouched, nothing written
 * past what the first pass counted) when a point gives more than cap entries or the second
 * pass gives more rows than the first. */
typedef uint32_t (*sinew__skin_point_fn)(void *ud, uint32_t v, uint16_t *slots, float *weights);
int sinew__skin_weights_build_from(uint32_t npoints, uint32_t cap, sinew__skin_point_fn point, void *ud,
                                   uint32_t ninfluences, sinew__skin_weights *out);
/* Replaces point v's entries (k of them, any order) in place, in its lane of its block: 0, or
 * 1 when they do not fit (more than the block's rows or than 64, or v past the packed points
 * with k > 0), nothing changed: the caller packs again. */
int sinew__skin_weights_set_point(sinew__skin_weights *w, uint32_t v, const uint16_t *slots,
                                  const float *weights, uint32_t k);
void sinew__skin_weights_free(sinew__skin_weights *w);

/* One influence's per-evaluation data, in double for the scalar path. */
typedef struct sinew__skin_influence {
  float lin[12];        /* G * M_i * G^-1 as float 3x4: x' = x*lin[0] + y*lin[1] + z*lin[2] + lin[3] */
  double scale[9];      /* S_i of the world motion M_i (row-major 3x3) */
  sinew_dquat_t dq;     /* the rigid part of M_i */
} sinew__skin_influence;

/* Element tables for the SIMD paths: element e of slot s at table[e * stride + s], stride a
 * multiple of 64 (so a 16-lane lookup can load whole table rows). Elements: 0..11 lin, 12..15
 * dq.real xyzw, 16..19 dq.dual xyzw, 20..28 scale. Then, at table + ELEMENTS * stride, each
 * slot's lin again as 16 floats, column by column (float 4c + r is lin[4r + c], float 4c + 3
 * is 0: one cache line when the table is 64-byte aligned), which the AVX-512 path blends point
 * by point when there are many influences, or to move points without normals; then, at
 * table + (ELEMENTS + 16) * stride, every slot's line again with each column's floats in the
 * order (lin[8 + c], 0, lin[c], lin[4 + c]); then, at + 32 and + 48 strides, both of those
 * with the line's halves swapped (columns 2, 3, 0, 1). The AVX-512 path blends lanes from these
 * copies so that two stages of its transpose are blends, not shuffles (skin_kernels_avx512.c). */
#define SINEW__SKIN_ELEMENTS 29
size_t sinew__skin_table_stride(uint32_t ninfluences);
size_t sinew__skin_table_floats(uint32_t ninfluences);
/* Fills the tables; returns whether every influence is rigid (each S_i the identity to within
 * 1e-7), which lets the SIMD paths skip the scale/shear blend (sinew__skin_job.rigid). */
bool sinew__skin_tables_fill(const sinew__skin_influence *inf, uint32_t ninfluences, float *table);

enum { SINEW__SKIN_LINEAR = 0, SINEW__SKIN_DQ = 1, SINEW__SKIN_BLENDED = 2 };

typedef struct sinew__skin_job {
  const sinew__skin_weights *w;
  const sinew__skin_influence *inf; /* ninfluences, for the scalar path */
  const float *table;               /* sinew__skin_tables_fill, for the SIMD paths */
  size_t stride;
  const float *in_points;           /* npoints_total * 3 */
  const float *in_normals;          /* NULL: no normals */
  float *out_points;
  float *out_normals;               /* NULL: normals not written */
  const float *blend;               /* weight blended: per point, w->nblocks * BLOCK of them */
  uint32_t npoints_total;           /* the mesh's points (>= w->npoints); the rest are copied */
  int method;                       /* SINEW__SKIN_* */
  bool rigid;                       /* what sinew__skin_tables_fill returned */
  float envelope;
  sinew_mat4_t g, ginv, g_t, ginv_t;
} sinew__skin_job;

/* Deforms points [first_block * BLOCK, end_block * BLOCK) ∩ [0, npoints_total) with the path
 * `isa` (a SINEW_SKIN_ISA_* the CPU supports: sinew__skin_isa_available); the block range may
 * extend past w->nblocks to cover unweighted points. */
void sinew__skin_run(const sinew__skin_job *job, int isa, size_t first_block, size_t end_block);
size_t sinew__skin_job_blocks(const sinew__skin_job *job);
bool sinew__skin_isa_available(int isa);

/* The per-ISA block kernels (nodes/skin_kernels_*.c) for full blocks of weighted points
 * (end_block <= w->nblocks): io's arrays start at point first_block * BLOCK and hold
 * (end_block - first_block) * BLOCK points. */
typedef struct sinew__skin_io {
  const float *in_points, *in_normals;
  float *out_points, *out_normals;
} sinew__skin_io;
void sinew__skin_blocks_sse2(const sinew__skin_job *job, size_t first_block, size_t end_block,
                             const sinew__skin_io *io);
void sinew__skin_blocks_avx2(const sinew__skin_job *job, size_t first_block, size_t end_block,
                             const sinew__skin_io *io);
void sinew__skin_blocks_avx512(const sinew__skin_job *job, size_t first_block, size_t end_block,
                               const sinew__skin_io *io);

#endif
