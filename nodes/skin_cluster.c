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
 * The hot path: weightList is compiled into blocks of points (nodes/skin_kernels.h) only when
 * weights, normalizeWeights or the set of influences change; each evaluation recomputes only the
 * per-influence matrices and tables, then runs the kernels (scalar, SSE2, AVX2 or AVX-512,
 * sinew_skin_isa()) over blocks on the worker pool. Output blocks are double-buffered, so a
 * steady state allocates nothing while no one else holds the previous frame's block. */
#include <math.h>
#include <string.h>

#include "nodes/nodes_internal.h"
#include "nodes/skin_kernels.h"
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
  sinew__skin_weights w;     /* packed per block (nodes/skin_kernels.h) */
  uint32_t limit;            /* the input mesh's point count the weights were compiled for */
  int32_t *influences;       /* logical matrix[] index of each slot, ascending */
  uint32_t ninfluences;
  int normalize;             /* the nw the weights were compiled with */
  sinew_data_t *storage;     /* holds influences */
} compiled;

enum { DIRTY_POINTS = 32 };

typedef struct skin_state {
  bool weights_dirty;        /* pack every point again */
  uint32_t ndirty;           /* else these points' weights changed (input_changed), up to DIRTY_POINTS */
  int32_t dirty[DIRTY_POINTS];
  bool blend_dirty;
  compiled cw;
  sinew_data_t *blend;       /* dense blendWeights (floats), the mesh's points rounded up to a block */
  sinew_data_t *inf_block;   /* per-influence matrices when there are more than 64 */
  sinew_data_t *table_block; /* the kernels' element tables */
  uint32_t blend_limit;      /* the point count the blend weights were compiled for */
  sinew_data_t *out[2];      /* double-buffered outputs (one geometry) */
  sinew_data_t *members;     /* the set's membership mask (sinew__deformer_restore_nonmembers) */
  uint64_t compiles;         /* for tests: how often weights were compiled (whole or point by point) */
  uint64_t point_updates;    /* of those, updates of single points in place */
  bool warned_not_mesh;      /* sinew__deformer_check_mesh */
  uint64_t evaluations;
} skin_state;

static const sinew_data_type_t scratch_type = {.name = "skinClusterScratch"};

static void compiled_free(compiled *c) {
  sinew__skin_weights_free(&c->w);
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

/* What compile_weights reads point by point (the packing calls back twice per point). */
typedef struct weight_reader {
  sinew_graph_t *g;
  sinew_node_t n;
  const compiled *c;
  const int32_t *verts; /* weightList's indices, ascending */
  size_t nverts, vi;    /* vi: the next of them, as points come in ascending order */
  int32_t *widx;
  double *wval;
  size_t cap;
} weight_reader;

/* Point v's weights as the kernels take them: indices that are not influences and zero weights
 * dropped, none when they cancel out (sum 0: the point stays put), divided by their sum for
 * post normalisation (the stored data untouched). */
static uint32_t vertex_weights(weight_reader *r, int32_t v, uint16_t *slots, float *weights) {
  sinew_plug_t w = sinew_plug_make(r->n, A.weights, 1, &v);
  size_t k = 0;
  sinew_get_double_elements(r->g, &w, r->widx, r->wval, r->cap, &k);
  if (k > r->cap) k = r->cap;
  uint32_t e = 0;
  double sum = 0, abs_sum = 0;
  for (size_t q = 0; q < k; q++) {
    int s = slot_of(r->c, r->widx[q]);
    if (s < 0 || r->wval[q] == 0) continue;
    slots[e] = (uint16_t)s;
    weights[e] = (float)r->wval[q];
    sum += r->wval[q];
    abs_sum += fabs(r->wval[q]);
    e++;
  }
  if (fabs(sum) <= 1e-9 * abs_sum) return 0;
  if (r->c->normalize == 2)
    for (uint32_t q = 0; q < e; q++) weights[q] = (float)(weights[q] / sum);
  return e;
}

static uint32_t read_point(void *ud, uint32_t v, uint16_t *slots, float *weights) {
  weight_reader *r = ud;
  if (!v) r->vi = 0; /* the second pass starts again */
  while (r->vi < r->nverts && (uint32_t)r->verts[r->vi] < v) r->vi++;
  if (r->vi >= r->nverts || (uint32_t)r->verts[r->vi] != v) return 0;
  return vertex_weights(r, r->verts[r->vi], slots, weights);
}

/* Builds the packed arrays from weightList for a mesh of `limit` points. Weights of indices that
 * are not influences, zero weights and weightList elements past the last point are dropped (Maya
 * deforms over matrix[] and the mesh's points only), so a stray weightList[999999999] costs
 * nothing. The packing reads the weights from the graph point by point (read_point), so no
 * second copy of them is held while the packed one is made. */
static int compile_weights(sinew_graph_t *g, sinew_node_t n, skin_state *st, uint32_t limit) {
  int rc = SINEW_OK;
  size_t ninf = influence_indices(g, n, NULL, 0);
  if (ninf > 65535)
    return sinew_graph_fail(g, SINEW_ERANGE, "skinCluster", "%s: more than 65535 influences",
                            sinew_node_name(g, n));
  sinew_plug_t wl = sinew_plug_make(n, A.weight_list, 0, NULL);
  size_t nverts = sinew_plug_indices(g, &wl, NULL, 0);
  sinew_data_t *vblock = NULL, *wblock = NULL, *storage = NULL;
  int32_t *verts = scratch_get(&vblock, (nverts + 1) * sizeof(int32_t));
  if (!verts) return SINEW_ENOMEM;
  sinew_plug_indices(g, &wl, verts, nverts);
  uint32_t npoints = nverts ? (uint32_t)verts[nverts - 1] + 1 : 0;
  if (npoints > limit) npoints = limit;
  /* the widest point (an upper bound: non-influence indices are dropped later) */
  size_t widest = 0;
  for (size_t v = 0; v < nverts && (uint32_t)verts[v] < npoints; v++) {
    sinew_plug_t w = sinew_plug_make(n, A.weights, 1, &verts[v]);
    size_t k = sinew_plug_indices(g, &w, NULL, 0);
    if (k > widest) widest = k;
  }
  double nw = 1;
  sinew_plug_t pnw = sinew_plug_make(n, A.normalize, 0, NULL);
  sinew_get_double(g, &pnw, &nw);
  unsigned char *wbuf = scratch_get(&wblock, (widest + 1) * (sizeof(int32_t) + sizeof(double)));
  if (!wbuf || (rc = sinew_data_create(&scratch_type, (ninf + 1) * sizeof(int32_t), &storage))) {
    sinew_data_unref(vblock);
    sinew_data_unref(wblock);
    return rc ? rc : SINEW_ENOMEM;
  }
  compiled c = {.limit = limit, .ninfluences = (uint32_t)ninf, .normalize = (int)nw, .storage = storage};
  c.influences = sinew_data_mutable(&c.storage);
  influence_indices(g, n, c.influences, ninf);
  weight_reader r = {.g = g, .n = n, .c = &c, .verts = verts, .nverts = nverts, .wval = (double *)wbuf,
                     .cap = widest + 1};
  r.widx = (int32_t *)(r.wval + widest + 1);
  /* a point keeps at most one weight per influence (its indices are distinct) */
  rc = sinew__skin_weights_build_from(npoints, (uint32_t)(widest < ninf ? widest : ninf), read_point, &r,
                                      (uint32_t)ninf, &c.w);
  sinew_data_unref(vblock);
  sinew_data_unref(wblock);
  if (rc) {
    sinew_data_unref(c.storage);
    return rc;
  }
  compiled_free(&st->cw);
  st->cw = c;
  st->weights_dirty = false;
  st->ndirty = 0;
  st->compiles++;
  return SINEW_OK;
}

/* The points input_changed noted, packed again in place (sinew__skin_weights_set_point): a
 * skinPercent of one vertex costs that vertex, not the mesh. 1 when one does not fit its
 * block (more influences than the block's widest point) or lies past the packed points: the
 * caller packs every point again. */
static int update_points(sinew_graph_t *g, sinew_node_t n, skin_state *st) {
  compiled *c = &st->cw;
  uint16_t slots[64];
  float weights[64];
  int32_t widx[65];
  double wval[65];
  weight_reader r = {.g = g, .n = n, .c = c, .widx = widx, .wval = wval, .cap = 65};
  for (uint32_t i = 0; i < st->ndirty; i++) {
    int32_t v = st->dirty[i];
    if ((uint32_t)v >= c->limit) continue; /* past the mesh: never deformed */
    sinew_plug_t w = sinew_plug_make(n, A.weights, 1, &v);
    if (sinew_plug_indices(g, &w, NULL, 0) > 64) return 1;
    uint32_t k = vertex_weights(&r, v, slots, weights);
    if (sinew__skin_weights_set_point(&c->w, (uint32_t)v, slots, weights, k)) return 1;
  }
  st->compiles++;
  st->point_updates++;
  st->ndirty = 0;
  return 0;
}

/* Dense per-point blend weights for the weight-blended method (for a mesh of `limit` points:
 * elements past the last point are ignored; 0 up to a whole block), rebuilt when blendWeights
 * changes. */
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
  size_t padded = ((size_t)limit + SINEW__SKIN_BLOCK - 1) / SINEW__SKIN_BLOCK * SINEW__SKIN_BLOCK;
  float *dense = scratch_get(&st->blend, (padded + 1) * sizeof(float));
  if (!dense) {
    sinew_data_unref(tmp);
    return SINEW_ENOMEM;
  }
  memset(dense, 0, (padded + 1) * sizeof(float));
  for (size_t q = 0; q < count && (uint32_t)idx[q] < limit; q++) dense[idx[q]] = (float)vals[q];
  st->blend_dirty = false;
  sinew_data_unref(tmp);
  return SINEW_OK;
}

/* ---- per-evaluation matrices ----------------------------------------------------------------- */

/* The kernels run over blocks of points on the worker pool; blocks are independent, so the
 * result does not depend on how the pool splits them. */
typedef struct run {
  const sinew__skin_job *job;
  int isa;
} run;

static void run_blocks(void *ud, size_t begin, size_t end) {
  const run *r = ud;
  sinew__skin_run(r->job, r->isa, begin, end);
}

/* ---- compute ------------------------------------------------------------------------------- */

static void get_mat(sinew_graph_t *g, sinew_node_t n, uint32_t attr, int32_t index, bool elem, sinew_mat4_t *m) {
  sinew_plug_t p = sinew_plug_make(n, attr, elem ? 1 : 0, &index);
  if (sinew_get_matrix(g, &p, m)) sinew_mat4_identity(m);
}

static int build_influences(sinew_graph_t *g, sinew_node_t n, const compiled *cw, const sinew_mat4_t *G,
                            const sinew_mat4_t *Ginv, sinew__skin_influence *out) {
  for (uint32_t s = 0; s < cw->ninfluences; s++) {
    sinew_mat4_t ma, pm, M, W, L;
    get_mat(g, n, A.matrix, cw->influences[s], true, &ma);
    get_mat(g, n, A.bind_pre_matrix, cw->influences[s], true, &pm);
    sinew_mat4_mul(&pm, &ma, &M); /* world-space motion since bind */
    sinew_mat4_mul(G, &M, &W);
    sinew_mat4_mul(&W, Ginv, &L);  /* the same motion in the shape's object space */
    sinew_mat4_to_float34(&L, out[s].lin);
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
  sinew__deformer_check_mesh(g, n, k, in, &st->warned_not_mesh);
  const sinew_mesh_t *mesh = in ? sinew_mesh_get(in) : NULL;
  double en = 1, state = 0, method = 0;
  sinew_plug_t pen = sinew_plug_make(n, A.envelope, 0, NULL), pns = sinew_plug_make(n, A.node_state, 0, NULL);
  sinew_plug_t pskm = sinew_plug_make(n, A.method, 0, NULL);
  sinew_get_double(g, &pen, &en);
  sinew_get_double(g, &pns, &state);
  sinew_get_double(g, &pskm, &method);
  if (!mesh || en == 0 || state == 1 || state == 4) { /* pass the input through, copying nothing */
    int rc = sinew__deformer_set_output(ctx, plug, &ig, in);
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
      st->cw.limit != mesh->npoints || (st->ndirty && update_points(g, n, st)))
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
  /* per-influence matrices (on the stack up to 64 influences) and the kernels' tables */
  sinew__skin_influence stack_inf[64];
  sinew__skin_influence *inf = stack_inf;
  size_t stride = sinew__skin_table_stride(st->cw.ninfluences);
  unsigned char *tb = scratch_get(&st->table_block, sinew__skin_table_floats(st->cw.ninfluences) * sizeof(float) + 64);
  float *table = tb ? (float *)(tb + (64 - (uintptr_t)tb % 64) % 64) : NULL; /* cache-line aligned */
  if (!table ||
      (st->cw.ninfluences > 64 && !(inf = scratch_get(&st->inf_block, st->cw.ninfluences * sizeof *inf)))) {
    sinew_data_unref(in);
    return SINEW_ENOMEM;
  }
  sinew__skin_job j = {.w = &st->cw.w, .inf = inf, .table = table, .stride = stride,
                       .npoints_total = mesh->npoints, .method = (int)method, .envelope = (float)en};
  if (j.method < SINEW__SKIN_LINEAR || j.method > SINEW__SKIN_BLENDED) j.method = SINEW__SKIN_LINEAR;
  get_mat(g, n, A.geom_matrix, 0, false, &j.g);
  if (!sinew_mat4_inverse(&j.g, &j.ginv)) {
    sinew_log(g, SINEW_LOG_WARNING, SINEW_LOG_GENERIC, "%s.geomMatrix is singular; identity used",
              sinew_node_name(g, n));
    sinew_mat4_identity(&j.g);
    sinew_mat4_identity(&j.ginv);
  }
  sinew_mat4_transpose(&j.g, &j.g_t);
  sinew_mat4_transpose(&j.ginv, &j.ginv_t);
  build_influences(g, n, &st->cw, &j.g, &j.ginv, inf);
  j.rigid = sinew__skin_tables_fill(inf, st->cw.ninfluences, table);
  if (j.method == SINEW__SKIN_BLENDED) j.blend = sinew_data_get(st->blend);
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
    else {
      run r = {&j, (int)sinew_skin_isa()};
      sinew_pool_run(sinew__skin_job_blocks(&j), 256, run_blocks, &r);
    }
    /* deformer set membership: a post-pass, so the kernels stay whole-mesh */
    if (op) rc = sinew__deformer_restore_nonmembers(g, n, k, mesh, op, j.out_normals, &st->members);
  }
  if (!rc) rc = sinew__deformer_set_output(ctx, plug, &ig, out);
  sinew_data_unref(in);
  return rc;
}

static void skin_input_changed(sinew_graph_t *g, sinew_node_t n, void *state, const sinew_plug_t *p) {
  skin_state *st = state;
  if ((p->attr == A.weight_list || p->attr == A.weights) && p->nidx >= 1 && !st->weights_dirty) {
    /* one vertex's weights (wl[v], wl[v].w, wl[v].w[i]): noted, packed again alone */
    uint32_t i = 0;
    while (i < st->ndirty && st->dirty[i] != p->idx[0]) i++;
    if (i == st->ndirty && st->ndirty < DIRTY_POINTS) st->dirty[st->ndirty++] = p->idx[0];
    else if (i == st->ndirty) st->weights_dirty = true; /* many: every point again */
  } else if (p->attr == A.weight_list || p->attr == A.weights || p->attr == A.normalize) {
    st->weights_dirty = true;
  } else if (p->attr == A.blend_weights) {
    st->blend_dirty = true;
  } else if (p->attr == A.matrix && (p->nidx == 0 || slot_of(&st->cw, p->idx[0]) < 0)) {
    st->weights_dirty = true; /* a new influence (moving an existing one changes nothing here) */
  }
}

static void skin_destroy(sinew_graph_t *g, sinew_node_t n, void *state) {
  skin_state *st = state;
  compiled_free(&st->cw);
  sinew_data_unref(st->blend);
  sinew_data_unref(st->inf_block);
  sinew_data_unref(st->table_block);
  sinew_data_unref(st->out[0]);
  sinew_data_unref(st->out[1]);
  sinew_data_unref(st->members);
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

/* For tests: how many compiles packed only the points an edit named. */
uint64_t sinew__skin_cluster_point_updates(sinew_graph_t *g, sinew_node_t n) {
  if (!sinew_node_type_is_a(sinew_node_type(g, n), "skinCluster")) return 0;
  return ((skin_state *)sinew_node_state(g, n))->point_updates;
}

/* For tests and tools: how often the node compiled its weights and evaluated. */
int sinew_skin_cluster_stats(sinew_graph_t *g, sinew_node_t n, uint64_t *compiles, uint64_t *evaluations) {
  if (!sinew_node_type_is_a(sinew_node_type(g, n), "skinCluster")) return SINEW_ETYPE;
  skin_state *st = sinew_node_state(g, n);
  if (compiles) *compiles = st->compiles;
  if (evaluations) *evaluations = st->evaluations;
  return SINEW_OK;
}
