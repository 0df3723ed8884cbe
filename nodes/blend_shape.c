/* nodes/blend_shape.c: Maya's blendShape deformer (spec 5, docs/deformers.md).
 *
 * For geometry k and point v (object space):
 *   p' = p + envelope * bw[v] * sum_t tw_t[v] * c_t(w[t])
 * where c_t is target t's delta at weight w: its items sit at weights W = (index - 5000) / 1000
 * (6000 is weight 1, 5500 an in-between at 0.5) with an implicit zero delta at W = 0, and c_t is
 * piecewise linear between neighbouring items, the outer segments extended beyond the last item.
 * An item's delta is stored (ipt pointArray matched in order with the ict componentList) or
 * derived from a live target mesh connected to igt: target minus the base (originalGeometry[k]
 * when connected, else the deformer's input), both local points with origin local (1); with
 * origin world (0) the target's points go through its world matrix and back through the base's
 * inverse world matrix first, so the base takes the target's place in the world. The world
 * matrices come through hidden inputs that sinew_blend_shape_wire_world() connects (the commands
 * and the session after each script or file do): sinewBaseMatrix[k] from the deformed shape's
 * transform, inputTargetItem's sinewTargetMatrix from the target's.
 * Only the points of the deformer's set change (nodes/deformer_chain.c, sinew__deformer_members).
 *
 * The hot path: each target is compiled (sorted sparse point indices and float deltas per item,
 * dense targetWeights when painted) when its inputs change, never when a weight moves; a target
 * whose weight is 0 is skipped whole, so with every weight at 0 the input block passes through.
 * Evaluation copies the input points into one of two output blocks and adds the active items
 * over vertex chunks on the worker pool (each point's sum in the same order whatever the number
 * of threads). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nodes/mesh_internal.h"
#include "nodes/nodes_internal.h"
#include "sinew/deform.h"
#include "sinew/mesh.h"
#include "sinew/pool.h"

#define F_IN SINEW_ATTR_INPUT
#define F_ARR (SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY)
#define F_GEOM_IN (SINEW_ATTR_READABLE | SINEW_ATTR_WRITABLE | SINEW_ATTR_CONNECTABLE | SINEW_ATTR_INDEX_MATTERS)
/* sinew's own wiring: hidden, not stored (made again when a scene is read) */
#define F_HID (SINEW_ATTR_READABLE | SINEW_ATTR_WRITABLE | SINEW_ATTR_CONNECTABLE | SINEW_ATTR_HIDDEN)
#define F_HID_ARR (F_HID | SINEW_ATTR_ARRAY | SINEW_ATTR_INDEX_MATTERS)

static const sinew_attr_desc_t bs_attrs[] = {
    {.name = "weight", .short_name = "w", .type = SINEW_ATTR_FLOAT, .flags = F_ARR | SINEW_ATTR_KEYABLE},
    {.name = "inputTarget", .short_name = "it", .type = SINEW_ATTR_COMPOUND, .flags = F_ARR},
    {.name = "inputTargetGroup", .short_name = "itg", .type = SINEW_ATTR_COMPOUND, .parent = "inputTarget",
     .flags = F_ARR},
    {.name = "inputTargetItem", .short_name = "iti", .type = SINEW_ATTR_COMPOUND, .parent = "inputTargetGroup",
     .flags = F_ARR},
    {.name = "inputGeomTarget", .short_name = "igt", .type = SINEW_ATTR_DATA, .parent = "inputTargetItem",
     .flags = F_GEOM_IN}, /* a mesh or a curve (any geometry a deformer takes) */
    {.name = "inputPointsTarget", .short_name = "ipt", .type = SINEW_ATTR_DATA, .parent = "inputTargetItem",
     .data_type = &sinew_point_array_data_type},
    {.name = "inputComponentsTarget", .short_name = "ict", .type = SINEW_ATTR_DATA, .parent = "inputTargetItem",
     .data_type = &sinew_component_list_data_type},
    {.name = "sinewTargetMatrix", .short_name = "sntm", .type = SINEW_ATTR_MATRIX, .parent = "inputTargetItem",
     .flags = F_HID},
    {.name = "targetWeights", .short_name = "tw", .type = SINEW_ATTR_FLOAT, .parent = "inputTargetGroup",
     .flags = F_ARR, .default_value = 1},
    {.name = "normalizationId", .short_name = "nid", .type = SINEW_ATTR_INT, .parent = "inputTargetGroup"},
    {.name = "baseWeights", .short_name = "bw", .type = SINEW_ATTR_FLOAT, .parent = "inputTarget",
     .flags = F_ARR, .default_value = 1},
    {.name = "inbetweenInfoGroup", .short_name = "ibig", .type = SINEW_ATTR_COMPOUND, .flags = F_ARR},
    {.name = "inbetweenInfo", .short_name = "ibi", .type = SINEW_ATTR_COMPOUND, .parent = "inbetweenInfoGroup",
     .flags = F_ARR},
    {.name = "inbetweenTargetName", .short_name = "ibtn", .type = SINEW_ATTR_STRING, .parent = "inbetweenInfo"},
    /* Maya's order (World, Local, User); files leave the default, local */
    {.name = "origin", .short_name = "or", .type = SINEW_ATTR_ENUM, .default_value = 1,
     .enum_fields = "World:Local:User"},
    {.name = "topologyCheck", .short_name = "tc", .type = SINEW_ATTR_BOOL, .default_value = 1},
    {.name = "supportNegativeWeights", .short_name = "snw", .type = SINEW_ATTR_BOOL},
    /* Shape Editor bookkeeping: kept for files, no effect on evaluation */
    {.name = "midLayerId", .short_name = "mlid", .type = SINEW_ATTR_INT},
    {.name = "midLayerParent", .short_name = "mlpr", .type = SINEW_ATTR_INT},
    {.name = "sinewBaseMatrix", .short_name = "snbm", .type = SINEW_ATTR_MATRIX, .flags = F_HID_ARR},
};
static const sinew_affects_t bs_affects[] = {
    {"weight", "outputGeometry"}, {"inputTarget", "outputGeometry"}, {"origin", "outputGeometry"},
    {"topologyCheck", "outputGeometry"}, {"originalGeometry", "outputGeometry"},
    {"sinewBaseMatrix", "outputGeometry"}};

static struct {
  uint32_t envelope, input, input_geometry, output_geometry, node_state, orig_geometry;
  uint32_t weight, input_target, itg, iti, igt, ipt, ict, tw, bw, origin, tmat, bmat;
} A;

/* One item of a target: the delta at weight w, sparse (idx ascending) or dense (idx NULL). */
typedef struct bs_item {
  double w;
  uint32_t n;
  uint32_t *idx;
  float *d; /* 3 * n */
  sinew_data_t *block;
} bs_item;

typedef struct bs_target {
  int32_t t;       /* the itg index, which is also the weight index */
  bool dirty;
  bool live;       /* an item is a live mesh: its deltas depend on the base */
  uint32_t nitems; /* ascending weight */
  bs_item *items;
  sinew_data_t *items_block;
  float *tw;       /* dense targetWeights, NULL when none is painted */
  sinew_data_t *tw_block;
} bs_target;

typedef struct bs_state {
  int32_t k;           /* the geometry compiled for */
  uint32_t np;         /* its point count */
  bool all_dirty;      /* the set of targets (or the geometry) changed */
  bool warned_not_mesh; /* sinew__deformer_check_mesh */
  bool bw_dirty;
  bool orig_changed;   /* originalGeometry changed: live targets are measured again */
  bool input_changed;  /* the input changed: the same when originalGeometry is not connected */
  bs_target *targets;  /* ascending t */
  uint32_t ntargets;
  sinew_data_t *targets_block;
  float *bw;           /* dense baseWeights, NULL when none is painted */
  sinew_data_t *bw_block;
  sinew_data_t *out[2];
  sinew_data_t *mask_block;
  bool world;          /* origin world: live targets measured through the world matrices */
  bool warned_origin, warned_topology, warned_unwired;
  uint64_t evaluations, applied, compiles;
} bs_state;

/* ---- compiling ----------------------------------------------------------------------------- */

static void target_free(bs_target *t) {
  for (uint32_t i = 0; i < t->nitems; i++) sinew_data_unref(t->items[i].block);
  sinew_data_unref(t->items_block);
  sinew_data_unref(t->tw_block);
  t->items_block = t->tw_block = NULL;
  t->items = NULL;
  t->tw = NULL;
  t->nitems = 0;
}

static void targets_free(bs_state *st) {
  for (uint32_t i = 0; i < st->ntargets; i++) target_free(&st->targets[i]);
  sinew_data_unref(st->targets_block);
  st->targets_block = NULL;
  st->targets = NULL;
  st->ntargets = 0;
}

/* A dense float array of np values (default 1) from the sparse array plug arr; NULL block when
 * no element exists. */
static int dense_weights(sinew_graph_t *g, const sinew_plug_t *arr, uint32_t np, sinew_data_t **block,
                         float **out) {
  *out = NULL;
  *block = NULL;
  size_t cnt = sinew_plug_indices(g, arr, NULL, 0);
  if (!cnt) return SINEW_OK;
  sinew_data_t *ib = NULL;
  int32_t *idx = sinew__scratch(cnt * sizeof *idx, &ib);
  float *w = idx ? sinew__scratch((size_t)np * sizeof *w + 1, block) : NULL;
  if (!w) {
    sinew_data_unref(ib);
    return SINEW_ENOMEM;
  }
  for (uint32_t v = 0; v < np; v++) w[v] = 1;
  cnt = sinew_plug_indices(g, arr, idx, cnt);
  for (size_t i = 0; i < cnt; i++) {
    if (idx[i] < 0 || (uint32_t)idx[i] >= np) continue;
    sinew_plug_t e;
    double v = 1;
    if (sinew_plug_element(g, arr, idx[i], &e) == SINEW_OK) sinew_get_double(g, &e, &v);
    w[idx[i]] = (float)v;
  }
  sinew_data_unref(ib);
  *out = w;
  return SINEW_OK;
}

typedef struct pair {
  uint32_t v;
  float d[3];
} pair;

static int cmp_pair(const void *a, const void *b) {
  uint32_t x = ((const pair *)a)->v, y = ((const pair *)b)->v;
  return x < y ? -1 : x > y;
}

/* Fills item from n (vertex, delta) pairs: sorted, duplicates keep the last, zero deltas
 * dropped; dense (no index array) when every point has a delta. */
static int item_from_pairs(pair *p, size_t n, uint32_t np, bs_item *item) {
  qsort(p, n, sizeof *p, cmp_pair);
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (m && p[m - 1].v == p[i].v) m--;
    p[m++] = p[i];
  }
  size_t keep = 0;
  for (size_t i = 0; i < m; i++)
    if (p[i].d[0] != 0 || p[i].d[1] != 0 || p[i].d[2] != 0) p[keep++] = p[i];
  bool dense = keep == np && np > 0;
  size_t bytes = keep * 3 * sizeof(float) + (dense ? 0 : keep * sizeof(uint32_t));
  unsigned char *mem = sinew__scratch(bytes + 1, &item->block);
  if (!mem) return SINEW_ENOMEM;
  item->n = (uint32_t)keep;
  item->d = (float *)mem;
  item->idx = dense ? NULL : (uint32_t *)(mem + keep * 3 * sizeof(float));
  for (size_t i = 0; i < keep; i++) {
    memcpy(item->d + 3 * i, p[i].d, sizeof p[i].d);
    if (!dense) item->idx[i] = p[i].v;
  }
  return SINEW_OK;
}

/* A matrix input of the node: identity when it is not connected (false). */
static bool matrix_in(sinew_graph_t *g, const sinew_plug_t *p, sinew_mat4_t *out) {
  sinew_mat4_identity(out);
  if (!sinew_plug_source(g, p, NULL)) return false;
  return sinew_get_matrix(g, p, out) == SINEW_OK;
}

/* Origin world: the matrix taking the target of igt from its local space to the base's,
 * Mt * Mb^-1 (row vectors). false (local) when a base matrix cannot be inverted. An input the
 * wiring has not connected reads identity, warned once. */
static bool target_to_base(sinew_graph_t *g, sinew_node_t n, bs_state *st, const sinew_plug_t *igt,
                           sinew_mat4_t *out) {
  sinew_plug_t tp = sinew_plug_make(n, A.tmat, igt->nidx, igt->idx), bp = sinew_plug_make(n, A.bmat, 1, igt->idx);
  sinew_mat4_t mt, mb, ib;
  bool wired = matrix_in(g, &tp, &mt);
  wired = matrix_in(g, &bp, &mb) && wired;
  if (!wired && !st->warned_unwired) {
    st->warned_unwired = true;
    sinew_log(g, SINEW_LOG_WARNING, SINEW_LOG_GENERIC,
              "%s: origin world, but the world matrices of its base or targets are not connected "
              "(sinew_blend_shape_wire_world): those are taken as identity", sinew_node_name(g, n));
  }
  if (!sinew_mat4_inverse(&mb, &ib)) return false;
  sinew_mat4_mul(&mt, &ib, out);
  return true;
}

/* The delta of item `it` from a live target mesh: target - base, point by point. */
static int item_from_mesh(sinew_graph_t *g, sinew_node_t n, bs_state *st, const sinew_plug_t *igt,
                          const sinew_mesh_t *base, bs_item *item, sinew_data_t **scratch) {
  sinew_data_t *td = NULL;
  int rc = sinew__geometry_input(g, igt, &td);
  const sinew_mesh_t *tm = td ? sinew_mesh_get(td) : NULL;
  if (rc || !tm) {
    sinew_data_unref(td);
    return rc == SINEW_ENOMEM ? rc : SINEW_OK; /* no geometry: no delta */
  }
  if (tm->npoints != base->npoints) {
    if (!st->warned_topology) {
      st->warned_topology = true;
      char buf[256];
      sinew_plug_format(g, igt, false, buf, sizeof buf);
      sinew_log(g, SINEW_LOG_WARNING, SINEW_LOG_GENERIC,
                "%s: the target has %u points, the base %u: the target is ignored", buf, tm->npoints,
                base->npoints);
    }
    sinew_data_unref(td);
    return SINEW_OK;
  }
  pair *p = sinew__mesh_scratch(scratch, (size_t)base->npoints * sizeof *p + 1);
  if (!p) {
    sinew_data_unref(td);
    return SINEW_ENOMEM;
  }
  sinew_mat4_t to_base; /* origin world: target local -> world -> base local */
  bool world = st->world && target_to_base(g, n, st, igt, &to_base);
  for (uint32_t v = 0; v < base->npoints; v++) {
    p[v].v = v;
    sinew_vec3_t q = {tm->points[3 * v], tm->points[3 * v + 1], tm->points[3 * v + 2]};
    if (world) sinew_mat4_transform_point(q, &to_base, &q);
    p[v].d[0] = (float)(q.x - base->points[3 * v]);
    p[v].d[1] = (float)(q.y - base->points[3 * v + 1]);
    p[v].d[2] = (float)(q.z - base->points[3 * v + 2]);
  }
  rc = item_from_pairs(p, base->npoints, base->npoints, item);
  sinew_data_unref(td);
  return rc;
}

/* The delta of a stored item: ipt's points in the order of ict's vertices. */
static int item_from_stored(sinew_graph_t *g, const sinew_plug_t *ipt, const sinew_plug_t *ict, uint32_t np,
                            bs_item *item, sinew_data_t **scratch) {
  sinew_data_t *pd = NULL, *cd = NULL;
  sinew_get_data(g, ipt, &pd);
  sinew_get_data(g, ict, &cd);
  size_t npts = 0;
  const double *pts = sinew_point_array_get(pd, &npts);
  const int32_t *r = NULL;
  size_t nr = sinew_component_list_vertices(cd, &r, NULL);
  int rc = SINEW_OK;
  pair *p = npts ? sinew__mesh_scratch(scratch, npts * sizeof *p) : NULL;
  size_t m = 0;
  if (npts && !p) rc = SINEW_ENOMEM;
  for (size_t j = 0; !rc && j < nr && m < npts; j++) {
    int64_t hi = r[2 * j + 1] == INT32_MAX ? (int64_t)np - 1 : r[2 * j + 1];
    for (int64_t v = r[2 * j]; v <= hi && m < npts; v++, m++) {
      p[m].v = (uint32_t)v;
      for (int c = 0; c < 3; c++) p[m].d[c] = (float)pts[4 * m + c];
    }
  }
  size_t keep = 0; /* vertices beyond the geometry are ignored */
  for (size_t i = 0; !rc && i < m; i++)
    if (p[i].v < np) p[keep++] = p[i];
  if (!rc) rc = item_from_pairs(p, keep, np, item);
  sinew_data_unref(pd);
  sinew_data_unref(cd);
  return rc;
}

static int compile_target(sinew_graph_t *g, sinew_node_t n, bs_state *st, const sinew_mesh_t *base,
                          bs_target *t, sinew_data_t **scratch) {
  target_free(t);
  t->live = false;
  int32_t path[3] = {st->k, t->t, 0};
  sinew_plug_t iti = sinew_plug_make(n, A.iti, 2, path);
  size_t cnt = sinew_plug_indices(g, &iti, NULL, 0);
  int rc = SINEW_OK;
  sinew_data_t *ib = NULL;
  int32_t *idx = cnt ? sinew__scratch(cnt * sizeof *idx, &ib) : NULL;
  if (cnt && (!idx || !(t->items = sinew__scratch(cnt * sizeof *t->items, &t->items_block)))) rc = SINEW_ENOMEM;
  if (!rc) cnt = sinew_plug_indices(g, &iti, idx, cnt);
  for (size_t i = 0; !rc && i < cnt; i++) {
    path[2] = idx[i];
    sinew_plug_t igt = sinew_plug_make(n, A.igt, 3, path), ipt = sinew_plug_make(n, A.ipt, 3, path),
                 ict = sinew_plug_make(n, A.ict, 3, path);
    bs_item *item = &t->items[t->nitems];
    *item = (bs_item){.w = (idx[i] - 5000) / 1000.0};
    if (sinew_plug_source(g, &igt, NULL)) {
      t->live = true;
      rc = item_from_mesh(g, n, st, &igt, base, item, scratch);
    }
    else if (sinew_plug_has_value(g, &ipt)) rc = item_from_stored(g, &ipt, &ict, base->npoints, item, scratch);
    else continue; /* an item with no delta (Maya writes such while editing) */
    if (!rc) t->nitems++;
    else sinew_data_unref(item->block);
  }
  sinew_data_unref(ib);
  if (!rc) {
    sinew_plug_t tw = sinew_plug_make(n, A.tw, 2, path);
    rc = dense_weights(g, &tw, base->npoints, &t->tw_block, &t->tw);
  }
  if (rc) target_free(t);
  else t->dirty = false, st->compiles++;
  return rc;
}

/* Brings the list of targets of geometry k and the base weights up to date (each target's items
 * are compiled when its weight is first not 0, compile_target). */
static int compile(sinew_graph_t *g, sinew_node_t n, bs_state *st, int32_t k, const sinew_mesh_t *base) {
  sinew_data_t *scratch = NULL;
  int rc = SINEW_OK;
  if (st->all_dirty || st->k != k || st->np != base->npoints || !st->targets_block) {
    targets_free(st);
    sinew_plug_t itg = sinew_plug_make(n, A.itg, 1, &k);
    size_t cnt = sinew_plug_indices(g, &itg, NULL, 0);
    if (!(st->targets = sinew__scratch(cnt * sizeof *st->targets + 1, &st->targets_block))) return SINEW_ENOMEM;
    int32_t *idx = cnt ? sinew__mesh_scratch(&scratch, cnt * sizeof *idx) : NULL;
    if (cnt && !idx) rc = SINEW_ENOMEM;
    if (!rc) cnt = sinew_plug_indices(g, &itg, idx, cnt);
    for (size_t i = 0; !rc && i < cnt; i++) st->targets[i] = (bs_target){.t = idx[i], .dirty = true};
    if (!rc) st->ntargets = (uint32_t)cnt;
    st->k = k;
    st->np = base->npoints;
    st->bw_dirty = true;
    sinew_data_unref(scratch);
    scratch = NULL;
  }
  if (!rc && st->bw_dirty) {
    sinew_data_unref(st->bw_block);
    sinew_plug_t bw = sinew_plug_make(n, A.bw, 1, &k);
    if (!(rc = dense_weights(g, &bw, base->npoints, &st->bw_block, &st->bw))) st->bw_dirty = false;
  }
  sinew_data_unref(scratch);
  if (rc) st->all_dirty = true;
  else st->all_dirty = false;
  return rc;
}

/* ---- evaluation ------------------------------------------------------------------------------ */

/* An item in use this evaluation: its delta times scale, times the target's painted weights. */
typedef struct active {
  const bs_item *item;
  const float *tw;
  float scale;
} active;

typedef struct job {
  const active *act;
  size_t nact;
  const float *bw;
  const uint8_t *mask;
  float *out;
} job;

static size_t lower_bound(const uint32_t *a, size_t n, uint32_t v) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (a[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static void blend_chunk(void *ud, size_t begin, size_t end) {
  const job *j = ud;
  float *o = j->out;
  for (size_t a = 0; a < j->nact; a++) {
    const bs_item *it = j->act[a].item;
    const float s = j->act[a].scale, *tw = j->act[a].tw, *bw = j->bw;
    const uint8_t *mask = j->mask;
    if (!it->idx && !tw && !bw && !mask) { /* dense and unpainted: the plain loop */
      const float *d = it->d;
      for (size_t v = begin; v < end; v++) {
        o[3 * v] += s * d[3 * v];
        o[3 * v + 1] += s * d[3 * v + 1];
        o[3 * v + 2] += s * d[3 * v + 2];
      }
      continue;
    }
    size_t i = it->idx ? lower_bound(it->idx, it->n, (uint32_t)begin) : begin;
    size_t stop = it->idx ? it->n : (end < it->n ? end : it->n);
    for (; i < stop; i++) {
      size_t v = it->idx ? it->idx[i] : i;
      if (v >= end) break;
      if (mask && !mask[v]) continue;
      float f = s;
      if (tw) f *= tw[v];
      if (bw) f *= bw[v];
      o[3 * v] += f * it->d[3 * i];
      o[3 * v + 1] += f * it->d[3 * i + 1];
      o[3 * v + 2] += f * it->d[3 * i + 2];
    }
  }
}

/* Knot j of target t's curve: the items in ascending weight with the implicit zero delta at
 * W = 0 among them (unless an item sits there; z is the number of items below 0). */
static const bs_item *knot(const bs_target *t, bool has_zero, uint32_t z, size_t j, double *w) {
  if (!has_zero && j >= z) {
    if (j == z) {
      *w = 0;
      return NULL;
    }
    j--;
  }
  *w = t->items[j].w;
  return &t->items[j];
}

/* The items of target t at weight w and their factors: piecewise linear through the knots, the
 * outer segments extended. Returns how many (0 to 2) were written. */
static int items_at(const bs_target *t, double w, const bs_item **it, double *f) {
  if (!t->nitems) return 0;
  bool has_zero = false;
  uint32_t z = 0;
  for (uint32_t i = 0; i < t->nitems; i++) {
    if (t->items[i].w == 0) has_zero = true;
    if (t->items[i].w < 0) z++;
  }
  size_t nk = t->nitems + (has_zero ? 0 : 1);
  double w0, w1;
  if (nk == 1) { /* one item, at W = 0: constant */
    it[0] = knot(t, has_zero, z, 0, &w0);
    f[0] = 1;
    return 1;
  }
  size_t j = 1;
  while (j < nk - 1) {
    knot(t, has_zero, z, j, &w1);
    if (w <= w1) break;
    j++;
  }
  const bs_item *a = knot(t, has_zero, z, j - 1, &w0), *b = knot(t, has_zero, z, j, &w1);
  double u = (w - w0) / (w1 - w0);
  int m = 0;
  if (a && u != 1) it[m] = a, f[m++] = 1 - u;
  if (b && u != 0) it[m] = b, f[m++] = u;
  return m;
}

/* Blends geometry k: *out is one of the node's output blocks, or stays NULL when no target is
 * in use (the input passes through). */
static int deform(sinew_graph_t *g, sinew_node_t n, bs_state *st, int32_t k, const sinew_data_t *in, double en,
                  sinew_data_t **out) {
  const sinew_mesh_t *mesh = sinew_mesh_get(in);
  /* the base live targets are measured from */
  sinew_plug_t og = sinew_plug_make(n, A.orig_geometry, 1, &k);
  sinew_data_t *based = NULL, *act_block = NULL, *scratch = NULL;
  const sinew_mesh_t *base = mesh;
  int rc = SINEW_OK;
  if (sinew_plug_source(g, &og, NULL)) {
    if ((rc = sinew__geometry_input(g, &og, &based)) == SINEW_ENOMEM) return rc;
    rc = SINEW_OK;
    const sinew_mesh_t *bm = based ? sinew_mesh_get(based) : NULL;
    if (bm && bm->npoints == mesh->npoints) base = bm;
  }
  /* a new base: the live targets' deltas are measured again (stored ones do not change) */
  if (st->orig_changed || (st->input_changed && base == mesh))
    for (uint32_t i = 0; i < st->ntargets; i++)
      if (st->targets[i].live) st->targets[i].dirty = true;
  st->orig_changed = st->input_changed = false;
  rc = compile(g, n, st, k, base);
  /* the items in use; a target is compiled only when its weight is not 0 */
  active stack_act[64];
  active *act = stack_act;
  size_t nact = 0;
  if (!rc && 2 * (size_t)st->ntargets > 64 && !(act = sinew__scratch(2 * (size_t)st->ntargets * sizeof *act, &act_block)))
    rc = SINEW_ENOMEM;
  for (uint32_t i = 0; !rc && i < st->ntargets; i++) {
    bs_target *t = &st->targets[i];
    int32_t wi = t->t;
    sinew_plug_t pw = sinew_plug_make(n, A.weight, 1, &wi);
    double w = 0;
    sinew_get_double(g, &pw, &w);
    if (w == 0) continue; /* costs nothing */
    if (t->dirty && (rc = compile_target(g, n, st, base, t, &scratch))) break;
    const bs_item *its[2];
    double f[2];
    int m = items_at(t, w, its, f);
    for (int q = 0; q < m; q++)
      if (its[q]->n) act[nact++] = (active){.item = its[q], .tw = t->tw, .scale = (float)(en * f[q])};
  }
  const uint8_t *mask = NULL;
  if (!rc && nact) rc = sinew__deformer_members(g, n, k, mesh->npoints, &st->mask_block, &mask);
  if (!rc && nact) {
    float *op = NULL;
    if (!(*out = sinew__mesh_reuse_block(st->out, in)) || !(op = sinew_mesh_points_mutable(out))) {
      *out = NULL;
      rc = SINEW_ENOMEM;
    } else {
      job j = {.act = act, .nact = nact, .bw = st->bw, .mask = mask, .out = op};
      sinew_pool_run(mesh->npoints, 8192, blend_chunk, &j);
      st->applied += nact;
      if (sinew_mesh_get(*out)->normals) {
        int slot = st->out[0] == *out ? 0 : 1;
        rc = sinew_mesh_compute_normals(&st->out[slot]);
        *out = rc ? NULL : st->out[slot];
      }
    }
  }
  if (!rc) st->evaluations++;
  sinew_data_unref(act_block);
  sinew_data_unref(scratch);
  sinew_data_unref(based);
  return rc;
}

static int bs_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != A.output_geometry) return SINEW_EUNKNOWN_PLUG;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  bs_state *st = sinew_compute_state(ctx);
  int32_t k = plug->idx[0];
  int32_t ig_idx[2] = {k, 0};
  sinew_plug_t ig = sinew_plug_make(n, A.input_geometry, 1, ig_idx);
  sinew_data_t *in = NULL;
  if (sinew__geometry_input(g, &ig, &in) == SINEW_ENOMEM) return SINEW_ENOMEM;
  sinew__deformer_check_mesh(g, n, k, in, &st->warned_not_mesh);
  const sinew_mesh_t *mesh = in ? sinew_mesh_get(in) : NULL;
  int rc = SINEW_OK;
  double en = 1, state = 0, origin = 1;
  sinew_plug_t pen = sinew_plug_make(n, A.envelope, 0, NULL), pns = sinew_plug_make(n, A.node_state, 0, NULL);
  sinew_get_double(g, &pen, &en);
  sinew_get_double(g, &pns, &state);
  sinew_plug_t por = sinew_plug_make(n, A.origin, 0, NULL);
  sinew_get_double(g, &por, &origin);
  if (origin != 1 && origin != 0 && !st->warned_origin) {
    st->warned_origin = true;
    sinew_log(g, SINEW_LOG_WARNING, SINEW_LOG_GENERIC,
              "%s.origin is user: targets are blended in local space (origin user is not supported)",
              sinew_node_name(g, n));
  }
  if (st->world != (origin == 0)) { /* the live targets are measured again */
    st->world = origin == 0;
    st->orig_changed = true;
  }
  sinew_data_t *out = NULL;
  if (mesh && en != 0 && state != 1 && state != 4) rc = deform(g, n, st, k, in, en, &out);
  if (!rc) rc = sinew__deformer_set_output(ctx, plug, &ig, out ? out : in);
  sinew_data_unref(in);
  return rc;
}

/* Which compiled data a changed input makes stale: a target's items or painted weights mark
 * that target; anything else under inputTarget (a new target, baseWeights) more. Weights mark
 * nothing: they are read every evaluation. */
static void bs_input_changed(sinew_graph_t *g, sinew_node_t n, void *state, const sinew_plug_t *p) {
  (void)g;
  (void)n;
  bs_state *st = state;
  if (p->attr == A.orig_geometry || p->attr == A.bmat) st->orig_changed = true;
  if (p->attr == A.input_geometry || p->attr == A.input) st->input_changed = true;
  if (p->attr == A.bw) {
    st->bw_dirty = true;
    return;
  }
  bool under_target = p->attr == A.igt || p->attr == A.ipt || p->attr == A.ict || p->attr == A.tw ||
                      p->attr == A.iti || p->attr == A.tmat;
  if (under_target && p->nidx >= 2 && p->idx[0] == st->k) {
    for (uint32_t i = 0; i < st->ntargets; i++)
      if (st->targets[i].t == p->idx[1]) {
        st->targets[i].dirty = true;
        return;
      }
    st->all_dirty = true; /* a target not compiled yet */
    return;
  }
  if (under_target || p->attr == A.input_target || p->attr == A.itg) st->all_dirty = true;
  if (p->attr == A.input_target || (p->attr == A.itg && p->nidx < 2)) st->bw_dirty = true;
}

static int bs_init(sinew_graph_t *g, sinew_node_t n, void *state) {
  (void)g;
  (void)n;
  ((bs_state *)state)->all_dirty = true;
  return SINEW_OK;
}

static void bs_destroy(sinew_graph_t *g, sinew_node_t n, void *state) {
  (void)g;
  (void)n;
  bs_state *st = state;
  targets_free(st);
  sinew_data_unref(st->bw_block);
  sinew_data_unref(st->out[0]);
  sinew_data_unref(st->out[1]);
  sinew_data_unref(st->mask_block);
}

int sinew__register_blend_shape_types(sinew_graph_t *g) {
  if (sinew_find_node_type(g, "blendShape")) return SINEW_OK;
  const sinew_node_type_t *bs;
  sinew_node_type_desc_t d = {.name = "blendShape", .parent_type = "geometryFilter", .flags = SINEW_NODE_TYPE_PARALLEL,
                              .attrs = bs_attrs,
                              .attr_count = sizeof bs_attrs / sizeof *bs_attrs, .affects = bs_affects,
                              .affects_count = sizeof bs_affects / sizeof *bs_affects, .compute = bs_compute,
                              .input_changed = bs_input_changed, .state_size = sizeof(bs_state),
                              .init = bs_init, .destroy = bs_destroy};
  int rc = sinew_register_node_type(g, &d, &bs);
  if (rc) return rc;
  A.envelope = sinew_node_type_attr(bs, "en");
  A.input = sinew_node_type_attr(bs, "ip");
  A.input_geometry = sinew_node_type_attr(bs, "ig");
  A.output_geometry = sinew_node_type_attr(bs, "og");
  A.node_state = sinew_node_type_attr(bs, "nds");
  A.orig_geometry = sinew_node_type_attr(bs, "orggeom");
  A.weight = sinew_node_type_attr(bs, "w");
  A.input_target = sinew_node_type_attr(bs, "it");
  A.itg = sinew_node_type_attr(bs, "itg");
  A.iti = sinew_node_type_attr(bs, "iti");
  A.igt = sinew_node_type_attr(bs, "igt");
  A.ipt = sinew_node_type_attr(bs, "ipt");
  A.ict = sinew_node_type_attr(bs, "ict");
  A.tw = sinew_node_type_attr(bs, "tw");
  A.bw = sinew_node_type_attr(bs, "bw");
  A.origin = sinew_node_type_attr(bs, "or");
  A.tmat = sinew_node_type_attr(bs, "sntm");
  A.bmat = sinew_node_type_attr(bs, "snbm");
  return SINEW_OK;
}

/* ---- origin world: the wiring ---------------------------------------------------------------- */

static bool is_type(sinew_graph_t *g, sinew_node_t n, const char *type) {
  return sinew_node_type_is_a(sinew_node_type(g, n), type);
}

/* The mesh shape geometry k of a deformer ends in: down its outputGeometry[k] through
 * groupParts and other deformers. */
static bool shape_below(sinew_graph_t *g, sinew_node_t def, int32_t k, sinew_node_t *out) {
  uint32_t og = sinew_node_attr(g, def, "outputGeometry");
  sinew_plug_t p = sinew_plug_make(def, og, 1, &k);
  for (int guard = 0; guard < 1000; guard++) {
    sinew_plug_t d;
    if (!sinew_plug_destinations(g, &p, &d, 1)) return false;
    if (is_type(g, d.node, "mesh")) {
      *out = d.node;
      return true;
    }
    uint32_t a = sinew_node_attr(g, d.node, "outputGeometry");
    if (a == UINT32_MAX) return false;
    int32_t dk = d.nidx ? d.idx[0] : 0;
    p = is_type(g, d.node, "geometryFilter") ? sinew_plug_make(d.node, a, 1, &dk) : sinew_plug_make(d.node, a, 0, NULL);
  }
  return false;
}

/* Makes dst's source the world matrix of shape's transform (want), or nothing (no shape, or
 * origin local): connects, reconnects or disconnects as needed. */
static int wire_one(sinew_graph_t *g, const sinew_plug_t *dst, bool want, sinew_node_t shape) {
  sinew_plug_t have, src = {0};
  bool connected = sinew_plug_source(g, dst, &have);
  sinew_node_t x = want ? sinew_node_parent(g, shape) : (sinew_node_t){0};
  if (x.gen) sinew_plug_parse_attr(g, x, "worldMatrix[0]", &src);
  if (!x.gen || !src.node.gen) return connected ? sinew_disconnect(g, &have, dst) : SINEW_OK;
  if (connected && sinew_plug_equal(&have, &src)) return SINEW_OK;
  return sinew_connect(g, &src, dst, SINEW_CONNECT_FORCE, NULL);
}

static int wire(sinew_graph_t *g, sinew_node_t n, bool world) {
  int rc = SINEW_OK;
  /* the base: each geometry's deformed shape */
  sinew_plug_t og = sinew_plug_make(n, A.output_geometry, 0, NULL), bm = sinew_plug_make(n, A.bmat, 0, NULL);
  size_t nk = sinew_plug_indices(g, &og, NULL, 0), nb = sinew_plug_indices(g, &bm, NULL, 0);
  size_t cap = nk + nb + 1;
  int32_t *ks = sinew_malloc(cap * sizeof *ks);
  if (!ks) return SINEW_ENOMEM;
  nk = sinew_plug_indices(g, &og, ks, nk);
  nb = sinew_plug_indices(g, &bm, ks + nk, nb);
  for (size_t i = 0; i < nk + nb && !rc; i++) {
    bool seen = false; /* a wired geometry that is still there: done with the first list */
    for (size_t j = 0; i >= nk && j < nk && !seen; j++) seen = ks[j] == ks[i];
    if (seen) continue;
    sinew_node_t shape = {0};
    bool found = i < nk && shape_below(g, n, ks[i], &shape);
    sinew_plug_t dst = sinew_plug_make(n, A.bmat, 1, &ks[i]);
    if (!found && !sinew_plug_source(g, &dst, NULL)) continue;
    rc = wire_one(g, &dst, world && found, shape);
  }
  sinew_free(ks);
  /* the live targets: it[k].itg[t].iti[i] */
  int32_t path[3];
  sinew_plug_t arr[3] = {sinew_plug_make(n, A.input_target, 0, NULL)};
  int32_t *idx[3] = {NULL, NULL, NULL};
  size_t cnt[3] = {0, 0, 0}, pos[3] = {0, 0, 0};
  int level = 0; /* walks the three levels of indices depth first */
  for (;;) {
    if (pos[level] == 0 && !idx[level]) {
      cnt[level] = sinew_plug_indices(g, &arr[level], NULL, 0);
      if (!(idx[level] = sinew_malloc((cnt[level] + 1) * sizeof *idx[level]))) {
        rc = SINEW_ENOMEM;
        break;
      }
      cnt[level] = sinew_plug_indices(g, &arr[level], idx[level], cnt[level]);
    }
    if (rc || pos[level] == cnt[level]) {
      sinew_free(idx[level]);
      idx[level] = NULL;
      pos[level] = 0;
      if (level-- == 0) break;
      pos[level]++;
      continue;
    }
    path[level] = idx[level][pos[level]];
    if (level < 2) {
      arr[level + 1] = sinew_plug_make(n, level == 0 ? A.itg : A.iti, (uint32_t)level + 1, path);
      level++;
      continue;
    }
    sinew_plug_t igt = sinew_plug_make(n, A.igt, 3, path), tm = sinew_plug_make(n, A.tmat, 3, path), src;
    bool live = sinew_plug_source(g, &igt, &src);
    if (live || sinew_plug_source(g, &tm, NULL)) rc = wire_one(g, &tm, world && live, live ? src.node : (sinew_node_t){0});
    pos[level]++;
  }
  for (int i = 0; i < 3; i++) sinew_free(idx[i]);
  return rc;
}

int sinew_blend_shape_wire_world(sinew_graph_t *g, sinew_node_t n) {
  if (!is_type(g, n, "blendShape"))
    return sinew_graph_set_error(g, SINEW_ETYPE, "blendShape wiring: %s is not a blendShape",
                                 sinew_node_valid(g, n) ? sinew_node_name(g, n) : "(no node)");
  double origin = 1;
  sinew_plug_t por = sinew_plug_make(n, A.origin, 0, NULL);
  sinew_get_double(g, &por, &origin);
  int rc = sinew_graph_begin(g);
  if (rc) return rc;
  rc = wire(g, n, origin == 0);
  if (rc == SINEW_ENOMEM) sinew_graph_set_error(g, rc, "blendShape wiring of %s: out of memory", sinew_node_name(g, n));
  return sinew_graph_end(g, rc);
}

int sinew_blend_shape_stats(sinew_graph_t *g, sinew_node_t n, uint64_t *evaluations, uint64_t *targets_applied,
                            uint64_t *target_compiles) {
  if (!sinew_node_type_is_a(sinew_node_type(g, n), "blendShape")) return SINEW_ETYPE;
  bs_state *st = sinew_node_state(g, n);
  if (evaluations) *evaluations = st->evaluations;
  if (targets_applied) *targets_applied = st->applied;
  if (target_compiles) *target_compiles = st->compiles;
  return SINEW_OK;
}
