/* nodes/skin_cluster.c: geometryFilter (the abstract deformer base) and skinCluster, Maya's
 * smooth-skinning deformer (spec section 4), built for speed.
 *
 * Per geometry k and point p (row vectors), with G = geomMatrix, M_i = bindPreMatrix[i] *
 * matrix[i] over the logical indices present in matrix[]:
 *   linear:          p' = sum_i w_i * (p * G * M_i * G^-1)
 *   dual quaternion: M_i (the world-space motion, which acts on the world point p * G) split
 *                    into S_i * R_i (Gram-Schmidt of the rows); the S_i are blended linearly and
 *                    applied to p * G, then the rigid parts (R_i, translation of M_i) are blended
 *                    as dual quaternions (pivot: the heaviest influence; the others flipped into
 *                    its hemisphere; normalised), then G^-1
 *   weight blended:  (1 - bw_v) * linear + bw_v * dual quaternion
 *   envelope:        p_out = p + envelope * (p' - p); a point whose weights sum to 0 stays put
 * Linear sums points (w = 1 each) in world space, then applies G^-1: with weights that do not
 * sum to 1 (normalizeWeights none) the point scales about the world origin, not the object's.
 * Normals go through the inverse transpose of the point's linear map (linear: of the blended
 * matrix; DQ: of G * S * R * G^-1).
 * This reproduces Maya's own output in corpus/maya-skin-truth (see tests/test_skin.c).
 *
 * The hot path: weightList is compiled into packed per-vertex arrays (offsets, dense influence
 * slots, float weights) only when weights, normalizeWeights or the set of influences change;
 * each evaluation recomputes only the per-influence matrices, then runs one vertex-major pass
 * over chunks on the worker pool. Output blocks are double-buffered, so a steady state
 * allocates nothing while no one else holds the previous frame's block. */
#include <math.h>
#include <string.h>

#include "nodes/nodes_internal.h"
#include "sinew/mesh.h"
#include "sinew/pool.h"
#include "sinew/skin.h"

#define F_IN SINEW_ATTR_INPUT
#define F_ARR (SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY)
#define F_ARR_FREE (SINEW_ATTR_READABLE | SINEW_ATTR_WRITABLE | SINEW_ATTR_STORABLE | SINEW_ATTR_CONNECTABLE | SINEW_ATTR_ARRAY)

static const sinew_attr_desc_t gf_attrs[] = {
    {.name = "envelope", .short_name = "en", .type = SINEW_ATTR_FLOAT, .default_value = 1,
     .flags = SINEW_ATTR_INPUT | SINEW_ATTR_KEYABLE, .has_min = true, .min_value = -2, .has_max = true, .max_value = 2},
    {.name = "input", .short_name = "ip", .type = SINEW_ATTR_COMPOUND, .flags = F_ARR},
    {.name = "inputGeometry", .short_name = "ig", .type = SINEW_ATTR_DATA, .parent = "input"},
    {.name = "groupId", .short_name = "gi", .type = SINEW_ATTR_INT, .parent = "input"},
    {.name = "originalGeometry", .short_name = "orggeom", .type = SINEW_ATTR_DATA, .flags = F_ARR},
    {.name = "outputGeometry", .short_name = "og", .type = SINEW_ATTR_DATA,
     .flags = SINEW_ATTR_OUTPUT | SINEW_ATTR_ARRAY},
    {.name = "blockGPU", .short_name = "bgp", .type = SINEW_ATTR_BOOL},
};
static const sinew_affects_t gf_affects[] = {
    {"envelope", "outputGeometry"}, {"input", "outputGeometry"}, {"nodeState", "outputGeometry"}};

static const sinew_attr_desc_t skin_attrs[] = {
    {.name = "weightList", .short_name = "wl", .type = SINEW_ATTR_COMPOUND, .flags = F_ARR},
    {.name = "weights", .short_name = "w", .type = SINEW_ATTR_DOUBLE, .parent = "weightList", .flags = F_ARR},
    {.name = "matrix", .short_name = "ma", .type = SINEW_ATTR_MATRIX, .flags = F_ARR},
    {.name = "bindPreMatrix", .short_name = "pm", .type = SINEW_ATTR_MATRIX, .flags = F_ARR},
    {.name = "geomMatrix", .short_name = "gm", .type = SINEW_ATTR_MATRIX, .flags = F_IN | SINEW_ATTR_HIDDEN},
    {.name = "normalizeWeights", .short_name = "nw", .type = SINEW_ATTR_ENUM, .default_value = 1,
     .enum_fields = "None:Interactive:Post"},
    {.name = "maxInfluences", .short_name = "mi", .type = SINEW_ATTR_INT, .default_value = 2},
    {.name = "maintainMaxInfluences", .short_name = "mmi", .type = SINEW_ATTR_BOOL},
    {.name = "skinningMethod", .short_name = "skm", .type = SINEW_ATTR_ENUM,
     .enum_fields = "Classic Linear:Dual Quaternion:Weight Blended"},
    {.name = "blendWeights", .short_name = "bw", .type = SINEW_ATTR_DOUBLE, .flags = F_ARR},
    {.name = "dropoffRate", .short_name = "dr", .type = SINEW_ATTR_DOUBLE, .default_value = 4},
    {.name = "dropoff", .short_name = "dpf", .type = SINEW_ATTR_DOUBLE, .default_value = 4, .flags = F_ARR},
    {.name = "smoothness", .short_name = "smt", .type = SINEW_ATTR_DOUBLE, .flags = F_ARR},
    {.name = "lockWeights", .short_name = "lw", .type = SINEW_ATTR_BOOL, .flags = F_ARR},
    {.name = "bindMethod", .short_name = "bm", .type = SINEW_ATTR_INT, .default_value = 1},
    {.name = "useComponents", .short_name = "ucm", .type = SINEW_ATTR_BOOL},
    {.name = "deformUserNormals", .short_name = "dun", .type = SINEW_ATTR_BOOL, .default_value = 1},
    {.name = "dqsSupportNonRigid", .short_name = "dqsnr", .type = SINEW_ATTR_BOOL},
    {.name = "dqsScale", .short_name = "dqss", .type = SINEW_ATTR_COMPOUND},
    {.name = "dqsScaleX", .short_name = "dqsx", .type = SINEW_ATTR_DOUBLE, .parent = "dqsScale", .default_value = 1},
    {.name = "dqsScaleY", .short_name = "dqsy", .type = SINEW_ATTR_DOUBLE, .parent = "dqsScale", .default_value = 1},
    {.name = "dqsScaleZ", .short_name = "dqsz", .type = SINEW_ATTR_DOUBLE, .parent = "dqsScale", .default_value = 1},
    {.name = "weightDistribution", .short_name = "wd", .type = SINEW_ATTR_ENUM, .enum_fields = "Distance:Neighbors"},
    {.name = "heatmapFalloff", .short_name = "hmf", .type = SINEW_ATTR_DOUBLE},
    {.name = "influenceColor", .short_name = "ifcl", .type = SINEW_ATTR_COMPOUND, .flags = F_ARR},
    {.name = "influenceColorR", .short_name = "ifcr", .type = SINEW_ATTR_FLOAT, .parent = "influenceColor"},
    {.name = "influenceColorG", .short_name = "ifcg", .type = SINEW_ATTR_FLOAT, .parent = "influenceColor"},
    {.name = "influenceColorB", .short_name = "ifcb", .type = SINEW_ATTR_FLOAT, .parent = "influenceColor"},
    {.name = "driverPoints", .short_name = "drp", .type = SINEW_ATTR_DATA, .flags = F_ARR},
    {.name = "basePoints", .short_name = "bsp", .type = SINEW_ATTR_DATA, .flags = F_ARR},
    {.name = "nurbsSamples", .short_name = "ns", .type = SINEW_ATTR_INT, .default_value = 10, .flags = F_ARR},
    {.name = "paintWeights", .short_name = "ptw", .type = SINEW_ATTR_DATA},
    {.name = "bindPose", .short_name = "bp", .type = SINEW_ATTR_MESSAGE},
    {.name = "paintTrans", .short_name = "ptt", .type = SINEW_ATTR_MESSAGE},
};

static const char *const skin_inputs[] = {"weightList", "matrix", "bindPreMatrix", "geomMatrix",
                                          "normalizeWeights", "skinningMethod", "blendWeights",
                                          "deformUserNormals", "dqsSupportNonRigid", "dqsScale"};

typedef struct ids {
  uint32_t envelope, input, input_geometry, output_geometry, node_state;
  uint32_t weight_list, weights, matrix, bind_pre_matrix, geom_matrix, normalize, method,
      blend_weights, deform_normals;
} ids;
static ids A;

/* ---- compiled weights ----------------------------------------------------------------------- */

typedef struct compiled {
  uint32_t npoints;          /* points with a weightList element or not: the highest index + 1,
                                at most limit */
  uint32_t limit;            /* the input mesh's point count the weights were compiled for */
  uint32_t *offsets;         /* npoints + 1 */
  uint16_t *slots;           /* dense influence slot per entry */
  float *weights;            /* per entry, post-normalised when nw = post */
  uint32_t nentries;
  int32_t *influences;       /* logical matrix[] index of each slot, ascending */
  uint32_t ninfluences;
  int normalize;             /* the nw the weights were compiled with */
  sinew_data_t *storage;     /* one block holding every array above */
} compiled;

typedef struct skin_state {
  bool weights_dirty;
  bool blend_dirty;
  compiled cw;
  sinew_data_t *blend;       /* dense blendWeights (doubles), nblend points */
  sinew_data_t *inf_block;   /* per-influence matrices when there are more than 64 */
  uint32_t nblend;
  uint32_t blend_limit;      /* the point count the blend weights were compiled for */
  sinew_data_t *out[2];      /* double-buffered outputs (one geometry) */
  uint64_t compiles;         /* for tests: how often weights were compiled */
  uint64_t evaluations;
} skin_state;

static const sinew_data_type_t scratch_type = {.name = "skinClusterScratch"};

static void compiled_free(compiled *c) {
  sinew_data_unref(c->storage);
  memset(c, 0, sizeof *c);
}

/* Lists matrix[] logical indices (the influences), ascending; count returned (out may be NULL). */
static size_t influence_indices(sinew_graph_t *g, sinew_node_t n, int32_t *out, size_t cap) {
  sinew_plug_t ma = sinew_plug_make(n, A.matrix, 0, NULL);
  return sinew_plug_indices(g, &ma, out, cap);
}

static int slot_of(const compiled *c, int32_t logical) {
  uint32_t lo = 0, hi = c->ninfluences;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (c->influences[mid] < logical) lo = mid + 1;
    else hi = mid;
  }
  return (lo < c->ninfluences && c->influences[lo] == logical) ? (int)lo : -1;
}

/* Scratch space from a data block (so every allocation goes through the library's funnel). */
static void *scratch_get(sinew_data_t **block, size_t bytes) {
  if (*block && sinew_data_size(*block) >= bytes) return sinew_data_mutable(block);
  sinew_data_unref(*block);
  *block = NULL;
  if (sinew_data_create(&scratch_type, bytes + bytes / 2 + 64, block)) return NULL;
  return sinew_data_mutable(block);
}

/* Builds the packed arrays from weightList for a mesh of `limit` points. Weights of indices that
 * are not influences, zero weights and weightList elements past the last point are dropped (Maya
 * deforms over matrix[] and the mesh's points only), so a stray weightList[999999999] costs
 * nothing. */
static int compile_weights(sinew_graph_t *g, sinew_node_t n, skin_state *st, uint32_t limit) {
  int rc = SINEW_OK;
  size_t ninf = influence_indices(g, n, NULL, 0);
  if (ninf > 65535)
    return sinew_graph_set_error(g, SINEW_ERANGE, "skinCluster %s: more than 65535 influences",
                                 sinew_node_name(g, n));
  sinew_plug_t wl = sinew_plug_make(n, A.weight_list, 0, NULL);
  size_t nverts = sinew_plug_indices(g, &wl, NULL, 0);
  sinew_data_t *vblock = NULL, *wblock = NULL;
  int32_t *verts = scratch_get(&vblock, (nverts + 1) * sizeof(int32_t));
  if (!verts) return SINEW_ENOMEM;
  sinew_plug_indices(g, &wl, verts, nverts);
  uint32_t npoints = nverts ? (uint32_t)verts[nverts - 1] + 1 : 0;
  if (npoints > limit) npoints = limit;
  /* Count the entries per vertex (an upper bound: non-influence indices are dropped later). */
  size_t entries = 0, widest = 0;
  for (size_t v = 0; v < nverts && (uint32_t)verts[v] < npoints; v++) {
    sinew_plug_t w = sinew_plug_make(n, A.weights, 1, &verts[v]);
    size_t k = sinew_plug_indices(g, &w, NULL, 0);
    entries += k;
    if (k > widest) widest = k;
  }
  double nw = 1;
  sinew_plug_t pnw = sinew_plug_make(n, A.normalize, 0, NULL);
  sinew_get_double(g, &pnw, &nw);
  size_t bytes = (npoints + 1) * sizeof(uint32_t) + entries * sizeof(float) + (ninf + 1) * sizeof(int32_t) +
                 entries * sizeof(uint16_t) + 64;
  sinew_data_t *storage = NULL;
  unsigned char *wbuf = scratch_get(&wblock, (widest + 1) * (sizeof(int32_t) + sizeof(double)));
  if (!wbuf || (rc = sinew_data_create(&scratch_type, bytes, &storage))) {
    sinew_data_unref(vblock);
    sinew_data_unref(wblock);
    return rc ? rc : SINEW_ENOMEM;
  }
  double *wval = (double *)wbuf;
  int32_t *widx = (int32_t *)(wval + widest + 1);
  compiled c = {.npoints = npoints, .limit = limit, .ninfluences = (uint32_t)ninf, .normalize = (int)nw,
                .storage = storage};
  unsigned char *base = sinew_data_mutable(&storage);
  c.offsets = (uint32_t *)base;
  c.weights = (float *)(c.offsets + npoints + 1);
  c.influences = (int32_t *)(c.weights + entries);
  c.slots = (uint16_t *)(c.influences + ninf + 1);
  influence_indices(g, n, c.influences, ninf);
  uint32_t e = 0;
  size_t vi = 0;
  for (uint32_t v = 0; v < npoints; v++) {
    c.offsets[v] = e;
    if (vi >= nverts || (uint32_t)verts[vi] != v) continue;
    sinew_plug_t w = sinew_plug_make(n, A.weights, 1, &verts[vi++]);
    size_t k = 0;
    sinew_get_double_elements(g, &w, widx, wval, widest + 1, &k);
    uint32_t first = e;
    double sum = 0, abs_sum = 0;
    for (size_t q = 0; q < k; q++) {
      int s = slot_of(&c, widx[q]);
      if (s < 0 || wval[q] == 0) continue;
      c.slots[e] = (uint16_t)s;
      c.weights[e] = (float)wval[q];
      sum += wval[q];
      abs_sum += fabs(wval[q]);
      e++;
    }
    if (fabs(sum) <= 1e-9 * abs_sum) { /* weights that cancel out (sum 0): the point stays put */
      e = first;
      continue;
    }
    if (c.normalize == 2) /* post: normalised at deform time, stored data untouched */
      for (uint32_t q = first; q < e; q++) c.weights[q] = (float)(c.weights[q] / sum);
  }
  c.offsets[npoints] = e;
  c.nentries = e;
  sinew_data_unref(vblock);
  sinew_data_unref(wblock);
  compiled_free(&st->cw);
  st->cw = c;
  st->weights_dirty = false;
  st->compiles++;
  return SINEW_OK;
}

/* Dense per-point blend weights for the weight-blended method (for a mesh of `limit` points:
 * elements past the last point are ignored), rebuilt when blendWeights changes. */
static int compile_blend(sinew_graph_t *g, sinew_node_t n, skin_state *st, uint32_t limit) {
  sinew_plug_t bw = sinew_plug_make(n, A.blend_weights, 0, NULL);
  size_t nb = sinew_plug_indices(g, &bw, NULL, 0);
  sinew_data_t *tmp = NULL;
  unsigned char *t = scratch_get(&tmp, (nb + 1) * (sizeof(int32_t) + sizeof(double)));
  if (!t) return SINEW_ENOMEM;
  double *vals = (double *)t;
  int32_t *idx = (int32_t *)(vals + nb + 1);
  size_t count = 0;
  sinew_get_double_elements(g, &bw, idx, vals, nb, &count);
  uint32_t npoints = count ? (uint32_t)idx[count - 1] + 1 : 0;
  if (npoints > limit) npoints = limit;
  double *dense = scratch_get(&st->blend, (npoints + 1) * sizeof(double));
  if (!dense) {
    sinew_data_unref(tmp);
    return SINEW_ENOMEM;
  }
  memset(dense, 0, (npoints + 1) * sizeof(double));
  for (size_t q = 0; q < count && (uint32_t)idx[q] < npoints; q++) dense[idx[q]] = vals[q];
  st->nblend = npoints;
  st->blend_dirty = false;
  sinew_data_unref(tmp);
  return SINEW_OK;
}

/* ---- per-evaluation matrices ----------------------------------------------------------------- */

typedef struct influence {
  float rows[16];       /* G * M_i * G^-1, rows 0..3 as 4 floats (x', y', z', 0): the linear fast path */
  float lin[12];        /* the same as float 3x4 (linear skinning in object space) */
  double scale[9];      /* S_i of the world motion M_i (row-major 3x3) */
  sinew_dquat_t dq;     /* the rigid part of M_i */
} influence;

typedef struct job {
  const compiled *cw;
  const influence *inf;
  const float *in_points, *in_normals;
  float *out_points, *out_normals;
  const double *blend;   /* per point, or NULL */
  uint32_t nblend;
  int method;
  float envelope;
  sinew_mat4_t g, ginv;
  sinew_mat4_t g_t, ginv_t; /* transposes, for normals through DQ */
  float ginv_trans[3];      /* translation row of G^-1 */
} job;

static void skin_linear_point(const job *j, uint32_t v, const float *p, float *out, float *nout,
                              const float *nin) {
  const compiled *c = j->cw;
  float m[12] = {0}, wsum = 0;
  for (uint32_t e = c->offsets[v]; e < c->offsets[v + 1]; e++) {
    const float *k = j->inf[c->slots[e]].lin;
    float w = c->weights[e];
    for (int q = 0; q < 12; q++) m[q] += w * k[q];
    wsum += w;
  }
  /* Each lin_i is G * M_i * G^-1, so the blend counts G^-1's translation wsum times; spec 4.3
   * sums the world points and applies G^-1 once. The same when the weights sum to 1. */
  float missing = 1.0f - wsum;
  if (fabsf(missing) > 1e-6f) {
    m[3] += missing * j->ginv_trans[0];
    m[7] += missing * j->ginv_trans[1];
    m[11] += missing * j->ginv_trans[2];
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

static void skin_dq_point(const job *j, uint32_t v, const float *p, double out[3], double nout[3],
                          const float *nin) {
  const compiled *c = j->cw;
  uint32_t b = c->offsets[v], e_end = c->offsets[v + 1];
  /* pivot: the heaviest influence */
  uint32_t pivot = b;
  for (uint32_t e = b + 1; e < e_end; e++)
    if (c->weights[e] > c->weights[pivot]) pivot = e;
  sinew_quat_t rp = j->inf[c->slots[pivot]].dq.real;
  sinew_dquat_t acc = {{0, 0, 0, 0}, {0, 0, 0, 0}};
  double S[9] = {0};
  for (uint32_t e = b; e < e_end; e++) {
    const influence *in = &j->inf[c->slots[e]];
    double w = c->weights[e];
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

static void skin_chunk(void *ud, size_t begin, size_t end) {
  const job *j = ud;
  const compiled *c = j->cw;
  for (size_t v = begin; v < end; v++) {
    const float *p = &j->in_points[3 * v];
    float *o = &j->out_points[3 * v];
    const float *nin = j->in_normals ? &j->in_normals[3 * v] : NULL;
    float *no = j->out_normals ? &j->out_normals[3 * v] : NULL;
    if (v >= c->npoints || c->offsets[v] == c->offsets[v + 1]) { /* no weights: stays put */
      memcpy(o, p, 3 * sizeof *o);
      if (no) memcpy(no, nin, 3 * sizeof *no);
      continue;
    }
    float lin[3] = {0, 0, 0}, lin_n[3] = {0, 0, 0};
    double dq[3] = {0, 0, 0}, dq_n[3] = {0, 0, 0};
    double bw = j->method == 1 ? 1.0 : 0.0;
    if (j->method == 2) bw = (j->blend && v < j->nblend) ? j->blend[v] : 0.0;
    if (bw < 1.0) skin_linear_point(j, (uint32_t)v, p, lin, no ? lin_n : NULL, nin);
    if (bw > 0.0) skin_dq_point(j, (uint32_t)v, p, dq, no ? dq_n : NULL, nin);
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

/* The common case, linear skinning of points without normals, in its own tight loop: blend the
 * influences' rows with 4-lane multiply-adds (the compiler vectorises these), then
 * p' = x*row0 + y*row1 + z*row2 + row3. Same arithmetic per point whatever the chunking. */
static void skin_chunk_linear(void *ud, size_t begin, size_t end) {
  const job *j = ud;
  const compiled *c = j->cw;
  const influence *inf = j->inf;
  const uint32_t *off = c->offsets;
  const uint16_t *slots = c->slots;
  const float *wts = c->weights;
  const float en = j->envelope;
  size_t weighted_end = end < c->npoints ? end : c->npoints;
  for (size_t v = begin; v < weighted_end; v++) {
    const float *p = &j->in_points[3 * v];
    float *o = &j->out_points[3 * v];
    uint32_t e0 = off[v], e1 = off[v + 1];
    if (e0 == e1) {
      o[0] = p[0], o[1] = p[1], o[2] = p[2];
      continue;
    }
    float r0[4] = {0}, r1[4] = {0}, r2[4] = {0}, r3[4] = {0}, wsum = 0;
    for (uint32_t e = e0; e < e1; e++) {
      const float *k = inf[slots[e]].rows;
      float w = wts[e];
      for (int q = 0; q < 4; q++) {
        r0[q] += w * k[q];
        r1[q] += w * k[4 + q];
        r2[q] += w * k[8 + q];
        r3[q] += w * k[12 + q];
      }
      wsum += w;
    }
    float missing = 1.0f - wsum; /* see skin_linear_point */
    if (fabsf(missing) > 1e-6f)
      for (int q = 0; q < 3; q++) r3[q] += missing * j->ginv_trans[q];
    float d[4];
    for (int q = 0; q < 4; q++) d[q] = p[0] * r0[q] + p[1] * r1[q] + p[2] * r2[q] + r3[q];
    if (en == 1.0f) {
      o[0] = d[0], o[1] = d[1], o[2] = d[2];
    } else {
      for (int q = 0; q < 3; q++) o[q] = p[q] + en * (d[q] - p[q]);
    }
  }
  for (size_t v = weighted_end > begin ? weighted_end : begin; v < end; v++) {
    const float *p = &j->in_points[3 * v];
    float *o = &j->out_points[3 * v];
    o[0] = p[0], o[1] = p[1], o[2] = p[2];
  }
}

/* ---- compute ------------------------------------------------------------------------------- */

static void get_mat(sinew_graph_t *g, sinew_node_t n, uint32_t attr, int32_t index, bool elem, sinew_mat4_t *m) {
  sinew_plug_t p = sinew_plug_make(n, attr, elem ? 1 : 0, &index);
  if (sinew_get_matrix(g, &p, m)) sinew_mat4_identity(m);
}

static int build_influences(sinew_graph_t *g, sinew_node_t n, const compiled *cw, const sinew_mat4_t *G,
                            const sinew_mat4_t *Ginv, influence *out) {
  for (uint32_t s = 0; s < cw->ninfluences; s++) {
    sinew_mat4_t ma, pm, M, W, L;
    get_mat(g, n, A.matrix, cw->influences[s], true, &ma);
    get_mat(g, n, A.bind_pre_matrix, cw->influences[s], true, &pm);
    sinew_mat4_mul(&pm, &ma, &M); /* world-space motion since bind */
    sinew_mat4_mul(G, &M, &W);
    sinew_mat4_mul(&W, Ginv, &L);  /* the same motion in the shape's object space */
    sinew_mat4_to_float34(&L, out[s].lin);
    for (int r = 0; r < 4; r++) {
      for (int c = 0; c < 3; c++) out[s].rows[4 * r + c] = (float)L.m[r][c];
      out[s].rows[4 * r + 3] = 0.0f;
    }
    /* DQ acts on the world point p * G, so it splits M itself (not G * M, which would apply G
     * twice: wrong whenever geomMatrix is not the identity) */
    sinew_mat4_t R, Sm;
    if (!sinew_mat4_orthonormalize_rows(&M, &R, &Sm)) {
      sinew_mat4_identity(&R);
      sinew_mat4_identity(&Sm);
    }
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) out[s].scale[3 * r + c] = Sm.m[r][c];
    sinew_quat_t q;
    sinew_quat_from_mat4(&R, &q);
    sinew_dquat_from_rigid(q, (sinew_vec3_t){M.m[3][0], M.m[3][1], M.m[3][2]}, &out[s].dq);
  }
  return SINEW_OK;
}

/* An output block for this evaluation: one of the two buffers when nobody else holds it and it
 * matches the input's topology, else a fresh clone. */
static int output_block(skin_state *st, const sinew_data_t *in, bool normals, sinew_data_t **out) {
  const sinew_mesh_t *mi = sinew_mesh_get(in);
  for (int b = 0; b < 2; b++) {
    sinew_data_t *d = st->out[b];
    if (!d || sinew_data_refcount(d) != 1) continue;
    const sinew_mesh_t *mo = sinew_mesh_get(d);
    if (mo->topology == mi->topology && mo->npoints == mi->npoints && (mo->normals != NULL) == normals) {
      *out = d;
      return SINEW_OK;
    }
  }
  sinew_data_t *fresh;
  int rc = sinew_mesh_clone_shared(in, normals, &fresh);
  if (rc) return rc;
  int slot = (st->out[0] && sinew_data_refcount(st->out[0]) != 1) ? 1 : 0;
  if (st->out[slot] && sinew_data_refcount(st->out[slot]) != 1) slot = st->out[0] ? 1 : 0;
  sinew_data_unref(st->out[slot]);
  st->out[slot] = fresh;
  *out = fresh;
  return SINEW_OK;
}

static int skin_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != A.output_geometry) return SINEW_EUNKNOWN_PLUG;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  skin_state *st = sinew_compute_state(ctx);
  int32_t k = plug->idx[0];
  int32_t idx2[2] = {k, 0};
  sinew_plug_t ig = sinew_plug_make(n, A.input_geometry, 1, idx2);
  sinew_data_t *in = NULL;
  /* a worldMesh source gives its local points, as in Maya; out of memory fails the read */
  if (sinew__geometry_input(g, &ig, &in) == SINEW_ENOMEM) return SINEW_ENOMEM;
  const sinew_mesh_t *mesh = in ? sinew_mesh_get(in) : NULL;
  double en = 1, state = 0, method = 0;
  sinew_plug_t pen = sinew_plug_make(n, A.envelope, 0, NULL), pns = sinew_plug_make(n, A.node_state, 0, NULL);
  sinew_plug_t pskm = sinew_plug_make(n, A.method, 0, NULL);
  sinew_get_double(g, &pen, &en);
  sinew_get_double(g, &pns, &state);
  sinew_get_double(g, &pskm, &method);
  if (!mesh || en == 0 || state == 1 || state == 4) { /* pass the input through, copying nothing */
    int rc = sinew_compute_set_data(ctx, plug, in);
    sinew_data_unref(in);
    return rc;
  }
  int rc = SINEW_OK;
  size_t ninf = influence_indices(g, n, NULL, 0);
  double nw = 1;
  sinew_plug_t pnw = sinew_plug_make(n, A.normalize, 0, NULL);
  sinew_get_double(g, &pnw, &nw);
  /* Recompile only when weights, nw or the influence set changed (input_changed notes
   * weights and new influence indices; the count catches removals). */
  if (st->weights_dirty || !st->cw.storage || ninf != st->cw.ninfluences || (int)nw != st->cw.normalize ||
      st->cw.limit != mesh->npoints)
    rc = compile_weights(g, n, st, mesh->npoints);
  if (!rc && method == 2 && (st->blend_dirty || !st->blend || st->blend_limit != mesh->npoints)) {
    rc = compile_blend(g, n, st, mesh->npoints);
    if (!rc) st->blend_limit = mesh->npoints;
  }
  if (rc) {
    sinew_data_unref(in);
    return rc;
  }
  st->evaluations++;
  /* per-influence matrices (small: on the stack up to 256 influences) */
  influence stack_inf[64];
  influence *inf = stack_inf;
  if (st->cw.ninfluences > 64 && !(inf = scratch_get(&st->inf_block, st->cw.ninfluences * sizeof *inf))) {
    sinew_data_unref(in);
    return SINEW_ENOMEM;
  }
  job j = {.cw = &st->cw, .inf = inf, .method = (int)method, .envelope = (float)en};
  get_mat(g, n, A.geom_matrix, 0, false, &j.g);
  if (!sinew_mat4_inverse(&j.g, &j.ginv)) {
    sinew_log(g, SINEW_LOG_WARNING, SINEW_LOG_GENERIC, "%s.geomMatrix is singular; identity used",
              sinew_node_name(g, n));
    sinew_mat4_identity(&j.g);
    sinew_mat4_identity(&j.ginv);
  }
  for (int q = 0; q < 3; q++) j.ginv_trans[q] = (float)j.ginv.m[3][q];
  sinew_mat4_transpose(&j.g, &j.g_t);
  sinew_mat4_transpose(&j.ginv, &j.ginv_t);
  build_influences(g, n, &st->cw, &j.g, &j.ginv, inf);
  if (j.method == 2) {
    j.blend = st->blend ? sinew_data_get(st->blend) : NULL;
    j.nblend = st->nblend;
  }
  bool normals = mesh->normals != NULL;
  sinew_plug_t pdn = sinew_plug_make(n, A.deform_normals, 0, NULL);
  bool deform_normals = true;
  sinew_get_bool(g, &pdn, &deform_normals);
  sinew_data_t *out = NULL;
  if (!rc) rc = output_block(st, in, normals, &out);
  if (!rc) {
    j.in_points = mesh->points;
    j.in_normals = normals ? mesh->normals : NULL;
    float *op = sinew_mesh_points_mutable(&out); /* exclusive: refcount 1 checked above */
    j.out_points = op;
    j.out_normals = (normals && deform_normals) ? sinew_mesh_normals_mutable(&out) : NULL;
    if (normals && !deform_normals) {
      float *on = sinew_mesh_normals_mutable(&out);
      if (on) memcpy(on, mesh->normals, 3 * sizeof(float) * mesh->npoints);
    }
    if (!op) rc = SINEW_ENOMEM;
    else
      sinew_pool_run(mesh->npoints, 4096, (j.method == 0 && !j.out_normals) ? skin_chunk_linear : skin_chunk, &j);
  }
  if (!rc) rc = sinew_compute_set_data(ctx, plug, out);
  sinew_data_unref(in);
  return rc;
}

static void skin_input_changed(sinew_graph_t *g, sinew_node_t n, void *state, const sinew_plug_t *p) {
  skin_state *st = state;
  if (p->attr == A.weight_list || p->attr == A.weights || p->attr == A.normalize) st->weights_dirty = true;
  else if (p->attr == A.blend_weights) st->blend_dirty = true;
  else if (p->attr == A.matrix && (p->nidx == 0 || slot_of(&st->cw, p->idx[0]) < 0))
    st->weights_dirty = true; /* a new influence (moving an existing one changes nothing here) */
}

static void skin_destroy(sinew_graph_t *g, sinew_node_t n, void *state) {
  skin_state *st = state;
  compiled_free(&st->cw);
  sinew_data_unref(st->blend);
  sinew_data_unref(st->inf_block);
  sinew_data_unref(st->out[0]);
  sinew_data_unref(st->out[1]);
}

static int skin_init(sinew_graph_t *g, sinew_node_t n, void *state) {
  ((skin_state *)state)->weights_dirty = true;
  return SINEW_OK;
}

int sinew__register_skin_types(sinew_graph_t *g) {
  const sinew_node_type_t *gf, *sk;
  sinew_node_type_desc_t d = {.name = "geometryFilter", .flags = SINEW_NODE_TYPE_ABSTRACT,
                              .attrs = gf_attrs, .attr_count = sizeof gf_attrs / sizeof *gf_attrs,
                              .affects = gf_affects, .affects_count = sizeof gf_affects / sizeof *gf_affects};
  int rc = sinew_register_node_type(g, &d, &gf);
  if (rc) return rc;
  sinew_affects_t aff[16];
  size_t na = 0;
  for (size_t i = 0; i < sizeof skin_inputs / sizeof *skin_inputs; i++)
    aff[na++] = (sinew_affects_t){skin_inputs[i], "outputGeometry"};
  /* parallel: reads its own inputs, and through sinew__geometry_input the (clean) outMesh of
   * the shape that feeds it; its compiled weights and buffers are per node */
  sinew_node_type_desc_t s = {.name = "skinCluster", .parent_type = "geometryFilter",
                              .flags = SINEW_NODE_TYPE_PARALLEL, .attrs = skin_attrs,
                              .attr_count = sizeof skin_attrs / sizeof *skin_attrs, .affects = aff,
                              .affects_count = na, .compute = skin_compute,
                              .input_changed = skin_input_changed, .state_size = sizeof(skin_state),
                              .init = skin_init, .destroy = skin_destroy};
  if ((rc = sinew_register_node_type(g, &s, &sk))) return rc;
  A = (ids){.envelope = sinew_node_type_attr(sk, "en"), .input = sinew_node_type_attr(sk, "ip"),
            .input_geometry = sinew_node_type_attr(sk, "ig"), .output_geometry = sinew_node_type_attr(sk, "og"),
            .node_state = sinew_node_type_attr(sk, "nds"), .weight_list = sinew_node_type_attr(sk, "wl"),
            .weights = sinew_node_type_attr(sk, "w"), .matrix = sinew_node_type_attr(sk, "ma"),
            .bind_pre_matrix = sinew_node_type_attr(sk, "pm"), .geom_matrix = sinew_node_type_attr(sk, "gm"),
            .normalize = sinew_node_type_attr(sk, "nw"), .method = sinew_node_type_attr(sk, "skm"),
            .blend_weights = sinew_node_type_attr(sk, "bw"), .deform_normals = sinew_node_type_attr(sk, "dun")};
  return SINEW_OK;
}

/* For tests and tools: how often the node compiled its weights and evaluated. */
int sinew_skin_cluster_stats(sinew_graph_t *g, sinew_node_t n, uint64_t *compiles, uint64_t *evaluations) {
  if (!sinew_node_type_is_a(sinew_node_type(g, n), "skinCluster")) return SINEW_ETYPE;
  skin_state *st = sinew_node_state(g, n);
  if (compiles) *compiles = st->compiles;
  if (evaluations) *evaluations = st->evaluations;
  return SINEW_OK;
}
