/* nodes/cluster.c: weightGeometryFilter (the abstract deformer with per-point weights), Maya's
 * cluster deformer and its clusterHandle shape (docs/deformers.md#cluster).
 *
 * Wiring as Maya writes it: handle.worldMatrix[0] -> cluster.matrix, handleShape.clusterTransforms
 * -> cluster.clusterXforms; cluster.geomMatrix[k] holds the deformed shape's world matrix at
 * creation. For geometry k with G = geomMatrix[k] and point p (object space, row vectors):
 *   T  = bindPreMatrix * matrix                            (relative off)
 *   T  = preMatrix^-1 * weightedMatrix * preMatrix         (relative on: the handle's own
 *        transformation in its parent's current frame, so what moves the handle's parents
 *        does not move the points)
 *   p' = p + envelope * weightList[k].weights[v] * (p * G * T * G^-1 - p)
 * Weights default to 1; only the points of the cluster's set move (sinew__deformer_members).
 *
 * The handle shape computes clusterTransforms from its transform: preWeightedMatrixTransform =
 * offsetParentMatrix * parentMatrix (the DAG above the weighted node), weightedMatrixTransform
 * = its matrix, postWeightedMatrixTransform = identity (the weighted node is the handle's own
 * transform; with the command's -wn no handle is made and the weighted node's parentMatrix and
 * matrix feed preMatrix and weightedMatrix directly). It reads those through the parent link, whose dirt reaches
 * it whenever either changes. */
#include <math.h>
#include <string.h>

#include "nodes/mesh_internal.h"
#include "nodes/nodes_internal.h"
#include "sinew/deform.h"
#include "sinew/mesh.h"
#include "sinew/pool.h"

#define F_IN SINEW_ATTR_INPUT
#define F_ARR (SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY)
#define F_OUT SINEW_ATTR_OUTPUT
#define COUNT(a) (sizeof(a) / sizeof *(a))

/* ---- weightGeometryFilter ------------------------------------------------------------------- */

static const sinew_attr_desc_t wgf_attrs[] = {
    {.name = "weightList", .short_name = "wl", .type = SINEW_ATTR_COMPOUND, .flags = F_ARR},
    {.name = "weights", .short_name = "w", .type = SINEW_ATTR_FLOAT, .parent = "weightList", .flags = F_ARR,
     .default_value = 1},
};
static const sinew_affects_t wgf_affects[] = {{"weightList", "outputGeometry"}};

/* ---- clusterHandle -------------------------------------------------------------------------- */

static const sinew_attr_desc_t handle_attrs[] = {
    {.name = "origin", .short_name = "or", .type = SINEW_ATTR_COMPOUND, .flags = F_IN},
    {.name = "originX", .short_name = "ox", .type = SINEW_ATTR_DISTANCE, .parent = "origin", .flags = F_IN},
    {.name = "originY", .short_name = "oy", .type = SINEW_ATTR_DISTANCE, .parent = "origin", .flags = F_IN},
    {.name = "originZ", .short_name = "oz", .type = SINEW_ATTR_DISTANCE, .parent = "origin", .flags = F_IN},
    {.name = "weightedNode", .short_name = "wn", .type = SINEW_ATTR_MESSAGE},
    /* Maya's is an array; files connect it whole ("HandleShape.x" -> "cluster1.x"), which is
     * element 0, so sinew keeps the one element as a plain compound */
    {.name = "clusterTransforms", .short_name = "x", .type = SINEW_ATTR_COMPOUND, .flags = F_OUT},
    {.name = "preWeightedMatrixTransform", .short_name = "pre", .type = SINEW_ATTR_MATRIX,
     .parent = "clusterTransforms", .flags = F_OUT},
    {.name = "weightedMatrixTransform", .short_name = "wt", .type = SINEW_ATTR_MATRIX, .parent = "clusterTransforms",
     .flags = F_OUT},
    {.name = "postWeightedMatrixTransform", .short_name = "post", .type = SINEW_ATTR_MATRIX,
     .parent = "clusterTransforms", .flags = F_OUT},
};
static const sinew_affects_t handle_affects[] = {{"sinewParentMatrix", "clusterTransforms"}};

/* ---- cluster ---------------------------------------------------------------------------------- */

static const sinew_attr_desc_t cluster_attrs[] = {
    {.name = "matrix", .short_name = "ma", .type = SINEW_ATTR_MATRIX, .flags = F_IN},
    {.name = "bindPreMatrix", .short_name = "pm", .type = SINEW_ATTR_MATRIX, .flags = F_IN},
    {.name = "geomMatrix", .short_name = "gm", .type = SINEW_ATTR_MATRIX, .flags = F_ARR},
    {.name = "relative", .short_name = "rel", .type = SINEW_ATTR_BOOL},
    {.name = "angleInterpolation", .short_name = "ai", .type = SINEW_ATTR_BOOL},
    {.name = "clusterXforms", .short_name = "x", .type = SINEW_ATTR_COMPOUND, .flags = F_IN},
    {.name = "preMatrix", .short_name = "pre", .type = SINEW_ATTR_MATRIX, .parent = "clusterXforms", .flags = F_IN},
    {.name = "weightedMatrix", .short_name = "wt", .type = SINEW_ATTR_MATRIX, .parent = "clusterXforms", .flags = F_IN},
    {.name = "postMatrix", .short_name = "post", .type = SINEW_ATTR_MATRIX, .parent = "clusterXforms", .flags = F_IN},
};
static const sinew_affects_t cluster_affects[] = {{"matrix", "outputGeometry"},
                                                  {"bindPreMatrix", "outputGeometry"},
                                                  {"geomMatrix", "outputGeometry"},
                                                  {"relative", "outputGeometry"},
                                                  {"clusterXforms", "outputGeometry"}};

static struct {
  uint32_t envelope, input_geometry, output_geometry, node_state, weight_list, weights;
  uint32_t matrix, bind_pre, geom, relative, pre, wt, post;
  uint32_t h_x, h_pre, h_wt, h_post;
} C;

typedef struct cluster_state {
  bool weights_dirty;
  int32_t k;               /* the geometry the weights were compiled for */
  uint32_t np;
  float *w;                /* dense weights, NULL when none is set (all 1) */
  sinew_data_t *w_block;
  sinew_data_t *out[2];
  sinew_data_t *mask_block;
  uint64_t evaluations;
  bool warned_not_mesh; /* sinew__deformer_check_mesh */
} cluster_state;

static void get_mat(sinew_graph_t *g, sinew_node_t n, uint32_t attr, int nidx, int32_t idx, sinew_mat4_t *m) {
  sinew_plug_t p = sinew_plug_make(n, attr, nidx, &idx);
  if (sinew_get_matrix(g, &p, m)) sinew_mat4_identity(m);
}

/* ---- the handle -------------------------------------------------------------------------------- */

static int handle_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != C.h_x && plug->attr != C.h_pre && plug->attr != C.h_wt && plug->attr != C.h_post)
    return SINEW_EUNKNOWN_PLUG;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx), xf = sinew_node_parent(g, n);
  sinew_mat4_t pre, wt, post, opm, pm;
  sinew_mat4_identity(&pre);
  sinew_mat4_identity(&wt);
  sinew_mat4_identity(&post);
  if (xf.gen && sinew_node_type_is_a(sinew_node_type(g, xf), "transform")) {
    /* the pull of sinewParentMatrix (declared) brought the transform up to date */
    get_mat(g, xf, sinew__dag.matrix, 0, 0, &wt);
    get_mat(g, xf, sinew__dag.offset_parent_matrix, 0, 0, &opm);
    get_mat(g, xf, sinew__dag.parent_matrix, 1, 0, &pm);
    sinew_mat4_mul(&opm, &pm, &pre);
  }
  sinew_plug_t p;
  int rc = SINEW_OK;
  const struct {
    uint32_t attr;
    const sinew_mat4_t *m;
  } outs[] = {{C.h_pre, &pre}, {C.h_wt, &wt}, {C.h_post, &post}};
  for (size_t i = 0; i < COUNT(outs) && !rc; i++) {
    p = sinew_plug_make(n, outs[i].attr, 0, NULL);
    rc = sinew_compute_set_matrix(ctx, &p, outs[i].m);
  }
  return rc;
}

/* ---- the deformer ------------------------------------------------------------------------------ */

typedef struct job {
  const float *in;
  float *out;
  const float *w;
  const uint8_t *mask;
  double m[4][3]; /* G * T * G^-1, rows 0..2 linear, row 3 translation */
  float en;
} job;

static void cluster_chunk(void *ud, size_t begin, size_t end) {
  const job *j = ud;
  for (size_t v = begin; v < end; v++) {
    const float *p = j->in + 3 * v;
    float *o = j->out + 3 * v;
    if (j->mask && !j->mask[v]) continue; /* the copy of the input stays */
    double s = j->en * (j->w ? j->w[v] : 1.0);
    if (s == 0) continue;
    for (int c = 0; c < 3; c++) {
      double q = p[0] * j->m[0][c] + p[1] * j->m[1][c] + p[2] * j->m[2][c] + j->m[3][c];
      o[c] = (float)(p[c] + s * (q - p[c]));
    }
  }
}

static int compile_weights(sinew_graph_t *g, sinew_node_t n, cluster_state *st, int32_t k, uint32_t np) {
  sinew_data_unref(st->w_block);
  st->w_block = NULL;
  st->w = NULL;
  int32_t path[2] = {k, 0};
  sinew_plug_t arr = sinew_plug_make(n, C.weights, 1, path);
  size_t cnt = sinew_plug_indices(g, &arr, NULL, 0);
  if (cnt) {
    sinew_data_t *ib = NULL;
    int32_t *idx = sinew__scratch(cnt * sizeof *idx, &ib);
    float *w = idx ? sinew__scratch((size_t)np * sizeof *w + 1, &st->w_block) : NULL;
    if (!w) {
      sinew_data_unref(ib);
      return SINEW_ENOMEM;
    }
    for (uint32_t v = 0; v < np; v++) w[v] = 1;
    cnt = sinew_plug_indices(g, &arr, idx, cnt);
    for (size_t i = 0; i < cnt; i++) {
      if (idx[i] < 0 || (uint32_t)idx[i] >= np) continue;
      path[1] = idx[i];
      sinew_plug_t e = sinew_plug_make(n, C.weights, 2, path);
      double v = 1;
      sinew_get_double(g, &e, &v);
      w[idx[i]] = (float)v;
    }
    sinew_data_unref(ib);
    st->w = w;
  }
  st->k = k;
  st->np = np;
  st->weights_dirty = false;
  return SINEW_OK;
}

static int cluster_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != C.output_geometry) return SINEW_EUNKNOWN_PLUG;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  cluster_state *st = sinew_compute_state(ctx);
  int32_t k = plug->idx[0];
  int32_t ig_idx[2] = {k, 0};
  sinew_plug_t ig = sinew_plug_make(n, C.input_geometry, 1, ig_idx);
  sinew_data_t *in = NULL;
  int rc = sinew__geometry_input(g, &ig, &in);
  if (rc == SINEW_ENOMEM) return rc;
  sinew__deformer_check_mesh(g, n, k, in, &st->warned_not_mesh);
  const sinew_mesh_t *mesh = in ? sinew_mesh_get(in) : NULL;
  double en = 1, state = 0;
  bool rel = false;
  sinew_plug_t pen = sinew_plug_make(n, C.envelope, 0, NULL), pns = sinew_plug_make(n, C.node_state, 0, NULL),
               prel = sinew_plug_make(n, C.relative, 0, NULL);
  sinew_get_double(g, &pen, &en);
  sinew_get_double(g, &pns, &state);
  sinew_get_bool(g, &prel, &rel);
  sinew_data_t *out = NULL;
  if (mesh && en != 0 && state != 1 && state != 4) {
    if (st->weights_dirty || st->k != k || st->np != mesh->npoints) rc = compile_weights(g, n, st, k, mesh->npoints);
    const uint8_t *mask = NULL;
    if (!rc) rc = sinew__deformer_members(g, n, k, mesh->npoints, &st->mask_block, &mask);
    if (rc) goto done;
    sinew_mat4_t G, Ginv, T, a, b;
    sinew_plug_t gm = sinew_plug_make(n, C.geom, 1, &k);
    if (!sinew_plug_has_value(g, &gm) && !sinew_plug_source(g, &gm, NULL)) sinew_mat4_identity(&G);
    else get_mat(g, n, C.geom, 1, k, &G);
    if (!sinew_mat4_inverse(&G, &Ginv)) {
      sinew_log(g, SINEW_LOG_WARNING, SINEW_LOG_GENERIC, "%s.geomMatrix[%d] is singular; identity used",
                sinew_node_name(g, n), k);
      sinew_mat4_identity(&G);
      sinew_mat4_identity(&Ginv);
    }
    if (rel) {
      sinew_mat4_t pre, wt, pre_inv;
      get_mat(g, n, C.pre, 0, 0, &pre);
      get_mat(g, n, C.wt, 0, 0, &wt);
      if (!sinew_mat4_inverse(&pre, &pre_inv)) sinew_mat4_identity(&pre_inv);
      sinew_mat4_mul(&pre_inv, &wt, &a);
      sinew_mat4_mul(&a, &pre, &T);
    } else {
      sinew_mat4_t pm, ma;
      get_mat(g, n, C.bind_pre, 0, 0, &pm);
      get_mat(g, n, C.matrix, 0, 0, &ma);
      sinew_mat4_mul(&pm, &ma, &T);
    }
    sinew_mat4_mul(&G, &T, &a);
    sinew_mat4_mul(&a, &Ginv, &b);
    if (!(out = sinew__mesh_reuse_block(st->out, in))) {
      rc = SINEW_ENOMEM;
      goto done;
    }
    float *op = sinew_mesh_points_mutable(&out);
    if (!op) {
      rc = SINEW_ENOMEM;
      goto done;
    }
    job j = {.in = mesh->points, .out = op, .w = st->w, .mask = mask, .en = (float)en};
    for (int r = 0; r < 4; r++)
      for (int c = 0; c < 3; c++) j.m[r][c] = b.m[r][c];
    sinew_pool_run(mesh->npoints, 8192, cluster_chunk, &j);
    if (sinew_mesh_get(out)->normals) {
      int slot = st->out[0] == out ? 0 : 1;
      rc = sinew_mesh_compute_normals(&st->out[slot]);
      out = st->out[slot];
    }
    st->evaluations++;
  }
  if (!rc) rc = sinew__deformer_set_output(ctx, plug, &ig, out ? out : in);
done:
  sinew_data_unref(in);
  return rc;
}

static void cluster_input_changed(sinew_graph_t *g, sinew_node_t n, void *state, const sinew_plug_t *p) {
  (void)g;
  (void)n;
  if (p->attr == C.weight_list || p->attr == C.weights) ((cluster_state *)state)->weights_dirty = true;
}

static int cluster_init(sinew_graph_t *g, sinew_node_t n, void *state) {
  (void)g;
  (void)n;
  ((cluster_state *)state)->weights_dirty = true;
  return SINEW_OK;
}

static void cluster_destroy(sinew_graph_t *g, sinew_node_t n, void *state) {
  (void)g;
  (void)n;
  cluster_state *st = state;
  sinew_data_unref(st->w_block);
  sinew_data_unref(st->out[0]);
  sinew_data_unref(st->out[1]);
  sinew_data_unref(st->mask_block);
}

int sinew__register_cluster_types(sinew_graph_t *g) {
  if (sinew_find_node_type(g, "cluster")) return SINEW_OK;
  const sinew_node_type_t *w, *c, *h;
  sinew_node_type_desc_t d = {.name = "weightGeometryFilter", .parent_type = "geometryFilter",
                              .flags = SINEW_NODE_TYPE_ABSTRACT, .attrs = wgf_attrs, .attr_count = COUNT(wgf_attrs),
                              .affects = wgf_affects, .affects_count = COUNT(wgf_affects)};
  int rc = sinew_register_node_type(g, &d, &w);
  if (rc) return rc;
  d = (sinew_node_type_desc_t){.name = "cluster", .parent_type = "weightGeometryFilter", .flags = SINEW_NODE_TYPE_PARALLEL,
                               .attrs = cluster_attrs,
                               .attr_count = COUNT(cluster_attrs), .affects = cluster_affects,
                               .affects_count = COUNT(cluster_affects), .compute = cluster_compute,
                               .input_changed = cluster_input_changed, .state_size = sizeof(cluster_state),
                               .init = cluster_init, .destroy = cluster_destroy};
  if ((rc = sinew_register_node_type(g, &d, &c))) return rc;
  d = (sinew_node_type_desc_t){.name = "clusterHandle", .parent_type = "dagNode", .attrs = handle_attrs,
                               .attr_count = COUNT(handle_attrs), .affects = handle_affects,
                               .affects_count = COUNT(handle_affects), .compute = handle_compute};
  if ((rc = sinew_register_node_type(g, &d, &h))) return rc;
  (void)w;
  C.envelope = sinew_node_type_attr(c, "en");
  C.input_geometry = sinew_node_type_attr(c, "ig");
  C.output_geometry = sinew_node_type_attr(c, "og");
  C.node_state = sinew_node_type_attr(c, "nds");
  C.weight_list = sinew_node_type_attr(c, "wl");
  C.weights = sinew_node_type_attr(c, "w");
  C.matrix = sinew_node_type_attr(c, "ma");
  C.bind_pre = sinew_node_type_attr(c, "pm");
  C.geom = sinew_node_type_attr(c, "gm");
  C.relative = sinew_node_type_attr(c, "rel");
  C.pre = sinew_node_type_attr(c, "pre");
  C.wt = sinew_node_type_attr(c, "wt");
  C.post = sinew_node_type_attr(c, "post");
  C.h_x = sinew_node_type_attr(h, "x");
  C.h_pre = sinew_node_type_attr(h, "pre");
  C.h_wt = sinew_node_type_attr(h, "wt");
  C.h_post = sinew_node_type_attr(h, "post");
  return SINEW_OK;
}
