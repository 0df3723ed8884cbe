/* nodes/skin_bind.c: binding a mesh to influences (what skinCluster creation writes, spec 4.4),
 * the default weight heuristic (spec 4.5, our [Impl] algorithm), weight editing with
 * skinPercent semantics (spec 5.2) and the skinCluster edits (-ai, -ri, -rbm, -ub, -fnw).
 *
 * Everything goes through the public graph API. Multi-step operations validate first and make
 * their changes in a transaction (sinew_graph_begin / sinew_graph_end), so a failure leaves the
 * graph as it was; weight edits are computed into a list of edits first and then written per
 * vertex with sinew_set_double_elements.
 *
 * Weights live in weightList[v].weights[i] (sparse; i = the influence's logical index, the
 * index of its matrix[] element). Zero weights are removed rather than stored. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodes/nodes_internal.h"
#include "sinew/mesh.h"
#include "sinew/pool.h"
#include "sinew/skin.h"

#define EPS_DROP 1e-5 /* default weights below this are dropped (spec 4.5) */
#define WEIGHT_GRID 16777216.0 /* 2^24: default weights are multiples of its inverse */

/* ---- attribute ids ------------------------------------------------------------------------ */

typedef struct sk_ids {
  uint32_t input, input_geometry, original_geometry, output_geometry, weight_list, weights, matrix,
      bind_pre_matrix, geom_matrix, normalize, max_influences, mmi, method, dropoff_rate, dropoff, lock_weights,
      bind_method, bind_pose, influence_color, weight_distribution, smoothness;
} sk_ids;

typedef struct mesh_ids {
  uint32_t in_mesh, out_mesh, io, pnts, vrts;
} mesh_ids;

static bool sk_ids_of(const sinew_graph_t *g, sk_ids *o) {
  const sinew_node_type_t *t = sinew_find_node_type(g, "skinCluster");
  if (!t) return false;
#define ID(f, n) o->f = sinew_node_type_attr(t, n)
  ID(input, "ip");
  ID(input_geometry, "ig");
  ID(original_geometry, "orggeom");
  ID(output_geometry, "og");
  ID(weight_list, "wl");
  ID(weights, "w");
  ID(matrix, "ma");
  ID(bind_pre_matrix, "pm");
  ID(geom_matrix, "gm");
  ID(normalize, "nw");
  ID(max_influences, "mi");
  ID(mmi, "mmi");
  ID(method, "skm");
  ID(dropoff_rate, "dr");
  ID(dropoff, "dpf");
  ID(lock_weights, "lw");
  ID(bind_method, "bm");
  ID(bind_pose, "bp");
  ID(influence_color, "ifcl");
  ID(weight_distribution, "wd");
  ID(smoothness, "smt");
#undef ID
  return true;
}

static bool mesh_ids_of(const sinew_graph_t *g, mesh_ids *o) {
  const sinew_node_type_t *t = sinew_find_node_type(g, "mesh");
  if (!t) return false;
  o->in_mesh = sinew_node_type_attr(t, "inMesh");
  o->out_mesh = sinew_node_type_attr(t, "outMesh");
  o->io = sinew_node_type_attr(t, "intermediateObject");
  o->pnts = sinew_node_type_attr(t, "pnts");
  o->vrts = sinew_node_type_attr(t, "vrts");
  return o->in_mesh != UINT32_MAX && o->pnts != UINT32_MAX && o->vrts != UINT32_MAX;
}

/* ---- small helpers -------------------------------------------------------------------------- */

static bool is_a(const sinew_graph_t *g, sinew_node_t n, const char *type) {
  return sinew_node_type_is_a(sinew_node_type(g, n), type);
}

static const char *name_of(const sinew_graph_t *g, sinew_node_t n) {
  const char *s = sinew_node_name(g, n);
  return s ? s : "(invalid node)";
}

static bool node_eq(sinew_node_t a, sinew_node_t b) { return a.index == b.index && a.gen == b.gen; }

static sinew_plug_t plug0(sinew_node_t n, uint32_t attr) { return sinew_plug_make(n, attr, 0, NULL); }
static sinew_plug_t plug1(sinew_node_t n, uint32_t attr, int32_t i) { return sinew_plug_make(n, attr, 1, &i); }

static sinew_plug_t weights_of(sinew_node_t skin, const sk_ids *ids, int32_t v) {
  return sinew_plug_make(skin, ids->weights, 1, &v);
}

static sinew_plug_t weight_of(sinew_node_t skin, const sk_ids *ids, int32_t v, int32_t i) {
  return sinew_plug_make(skin, ids->weights, 2, (int32_t[]){v, i});
}

static sinew_plug_t attr_plug(const sinew_graph_t *g, sinew_node_t n, const char *name) {
  return plug0(n, sinew_node_attr(g, n, name));
}

static int oom(sinew_graph_t *g, const char *what) {
  return sinew_graph_fail(g, SINEW_ENOMEM, what, "out of memory");
}

static double get_num(sinew_graph_t *g, sinew_node_t n, uint32_t attr, double dflt) {
  double v = dflt;
  sinew_plug_t p = plug0(n, attr);
  if (sinew_get_double(g, &p, &v)) return dflt;
  return v;
}

static int skin_check(sinew_graph_t *g, sinew_node_t skin, const char *what, sk_ids *ids) {
  if (!g) return SINEW_EINVAL;
  if (!sk_ids_of(g, ids)) return sinew_graph_fail(g, SINEW_ENOTFOUND, what, "no skinCluster type");
  if (!is_a(g, skin, "skinCluster"))
    return sinew_graph_fail(g, sinew_node_valid(g, skin) ? SINEW_ETYPE : SINEW_ESTALE, what,
                            "%s is not a skinCluster", name_of(g, skin));
  return SINEW_OK;
}

/* ---- influences ----------------------------------------------------------------------------- */

typedef struct infl {
  int32_t index;       /* logical index (matrix[index]) */
  sinew_node_t node;   /* the node feeding it, or the zero handle */
} infl;

/* matrix[] elements in index order with their source nodes; NULL only on out-of-memory. */
static infl *influences_get(const sinew_graph_t *g, sinew_node_t skin, const sk_ids *ids, size_t *count,
                            sinew_data_t **h) {
  sinew_plug_t ma = plug0(skin, ids->matrix);
  size_t n = sinew_plug_indices(g, &ma, NULL, 0);
  infl *out = sinew__scratch((n + 1) * (sizeof(infl) + sizeof(int32_t)), h);
  if (!out) return NULL;
  int32_t *idx = (int32_t *)(out + n + 1);
  sinew_plug_indices(g, &ma, idx, n);
  for (size_t i = 0; i < n; i++) {
    sinew_plug_t e = plug1(skin, ids->matrix, idx[i]), src;
    out[i].index = idx[i];
    out[i].node = sinew_plug_source(g, &e, &src) ? src.node : (sinew_node_t){0, 0};
  }
  *count = n;
  return out;
}

static int slot_of(const infl *inf, size_t n, int32_t index) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (inf[mid].index < index) lo = mid + 1;
    else hi = mid;
  }
  return (lo < n && inf[lo].index == index) ? (int)lo : -1;
}

int sinew_skin_influence_index(const sinew_graph_t *g, sinew_node_t skin, sinew_node_t node, int32_t *out) {
  sk_ids ids;
  if (!g || !sk_ids_of(g, &ids) || !is_a(g, skin, "skinCluster")) return SINEW_ETYPE;
  sinew_data_t *h;
  size_t n = 0;
  infl *inf = influences_get(g, skin, &ids, &n, &h);
  if (!inf) return SINEW_ENOMEM;
  int rc = SINEW_ENOTFOUND;
  for (size_t i = 0; i < n && rc; i++)
    if (node_eq(inf[i].node, node)) {
      if (out) *out = inf[i].index;
      rc = SINEW_OK;
    }
  sinew_data_unref(h);
  return rc;
}

int sinew_skin_influence_node(const sinew_graph_t *g, sinew_node_t skin, int32_t index, sinew_node_t *out) {
  sk_ids ids;
  if (!g || !sk_ids_of(g, &ids) || !is_a(g, skin, "skinCluster")) return SINEW_ETYPE;
  if (index < 0) return SINEW_ENOTFOUND;
  sinew_plug_t e = plug1(skin, ids.matrix, index), src;
  if (!sinew_plug_source(g, &e, &src)) return SINEW_ENOTFOUND;
  if (out) *out = src.node;
  return SINEW_OK;
}

size_t sinew_skin_influences(const sinew_graph_t *g, sinew_node_t skin, sinew_node_t *out_nodes, int32_t *out_index,
                             size_t cap) {
  sk_ids ids;
  if (!g || !sk_ids_of(g, &ids) || !is_a(g, skin, "skinCluster")) return 0;
  sinew_data_t *h;
  size_t n = 0, k = 0;
  infl *inf = influences_get(g, skin, &ids, &n, &h);
  if (!inf) return 0;
  for (size_t i = 0; i < n; i++) {
    if (!inf[i].node.gen) continue;
    if (k < cap) {
      if (out_nodes) out_nodes[k] = inf[i].node;
      if (out_index) out_index[k] = inf[i].index;
    }
    k++;
  }
  sinew_data_unref(h);
  return k;
}

int sinew_skin_geometry(const sinew_graph_t *g, sinew_node_t skin, sinew_node_t *out) {
  sk_ids ids;
  if (!g || !sk_ids_of(g, &ids) || !is_a(g, skin, "skinCluster")) return SINEW_ETYPE;
  sinew_plug_t og = plug1(skin, ids.output_geometry, 0), dst;
  if (!sinew_plug_destinations(g, &og, &dst, 1)) return SINEW_ENOTFOUND;
  if (out) *out = dst.node;
  return SINEW_OK;
}

/* ---- the default weight heuristic (spec 4.5) ------------------------------------------------- */

/* Influence positions in the bind pose and their place in the influence hierarchy. */
typedef struct heur {
  size_t ninf;
  sinew_vec3_t *pivot;    /* ninf */
  uint32_t *seg_off;      /* ninf + 1: segments pivot -> seg_end[k] for k in [seg_off[s], seg_off[s+1]) */
  sinew_vec3_t *seg_end;
  int32_t *parent;        /* nearest influence ancestor, -1 */
  uint32_t *adj_off;      /* ninf + 1: hierarchy neighbours (parent, children) of s are */
  uint32_t *adj;          /*   adj[adj_off[s] .. adj_off[s+1]) */
  int max_inf;
  double dropoff;
  int method;
  double eps;
  sinew_data_t *block;
} heur;

/* Per-thread scratch for heur_vertex: ninf entries each; mark starts zeroed. */
typedef struct heur_scratch {
  double *dist, *tw;
  uint32_t *ts, *queue, *mark;
  uint32_t stamp;
} heur_scratch;

static void heur_free(heur *h) {
  sinew_data_unref(h->block);
  memset(h, 0, sizeof *h);
}

static sinew_vec3_t row3(const sinew_mat4_t *m) { return (sinew_vec3_t){m->m[3][0], m->m[3][1], m->m[3][2]}; }

static void local_with_offset(sinew_graph_t *g, sinew_node_t n, sinew_mat4_t *out) {
  sinew_mat4_t local, opm;
  sinew_plug_t pl = plug0(n, sinew__dag.matrix), po = plug0(n, sinew__dag.offset_parent_matrix);
  if (sinew_get_matrix(g, &pl, &local)) sinew_mat4_identity(&local);
  if (sinew_get_matrix(g, &po, &opm)) sinew_mat4_identity(&opm);
  sinew_mat4_mul(&local, &opm, out);
}

/* The pivot of an influence in world space for the given world matrix: the joint's origin, a
 * transform's rotatePivot. */
static sinew_vec3_t pivot_of(sinew_graph_t *g, sinew_node_t n, const sinew_mat4_t *world) {
  sinew_vec3_t p = {0, 0, 0};
  if (!is_a(g, n, "joint") && is_a(g, n, "transform")) {
    double rp[3] = {0, 0, 0};
    sinew_plug_t prp = plug0(n, sinew__dag.rotate_pivot);
    sinew_get_doubles(g, &prp, rp, 3, NULL);
    p = (sinew_vec3_t){rp[0], rp[1], rp[2]};
  }
  sinew_mat4_transform_point(p, world, &p);
  return p;
}

/* Builds the influence geometry from the nodes and their bind-time world matrices. A node's
 * child joints give its bone segments (their world positions are their local matrices under
 * the parent's bind world, or their own bind world when they are influences). */
static int heur_build(sinew_graph_t *g, const sinew_node_t *nodes, const sinew_mat4_t *bind_world, size_t ninf,
                      int max_inf, double dropoff, int method, heur *h) {
  memset(h, 0, sizeof *h);
  size_t nseg = 0;
  for (size_t s = 0; s < ninf; s++)
    if (nodes[s].gen && is_a(g, nodes[s], "joint")) nseg += sinew_node_children(g, nodes[s], NULL, 0);
  size_t children_cap = 0;
  for (size_t s = 0; s < ninf; s++)
    if (nodes[s].gen) {
      size_t c = sinew_node_children(g, nodes[s], NULL, 0);
      if (c > children_cap) children_cap = c;
    }
  size_t bytes = ninf * sizeof(sinew_vec3_t) + (nseg + 1) * sizeof(sinew_vec3_t) +
                 (children_cap + 1) * sizeof(sinew_node_t) + (ninf + 1) * sizeof(uint32_t) +
                 ninf * sizeof(int32_t) + (ninf + 1) * sizeof(uint32_t) + 2 * (ninf + 1) * sizeof(uint32_t) +
                 ninf * sizeof(uint32_t) + 64;
  unsigned char *b = sinew__scratch(bytes, &h->block);
  if (!b) return SINEW_ENOMEM;
  h->ninf = ninf;
  h->pivot = (sinew_vec3_t *)b;
  h->seg_end = h->pivot + ninf;
  sinew_node_t *kids = (sinew_node_t *)(h->seg_end + nseg + 1);
  h->seg_off = (uint32_t *)(kids + children_cap + 1);
  h->parent = (int32_t *)(h->seg_off + ninf + 1);
  h->adj_off = (uint32_t *)(h->parent + ninf);
  h->adj = h->adj_off + ninf + 1;
  uint32_t *fill = h->adj + 2 * (ninf + 1);
  h->max_inf = max_inf;
  h->dropoff = dropoff;
  h->method = method;
  uint32_t k = 0;
  for (size_t s = 0; s < ninf; s++) {
    h->seg_off[s] = k;
    if (!nodes[s].gen) continue;
    h->pivot[s] = pivot_of(g, nodes[s], &bind_world[s]);
    if (!is_a(g, nodes[s], "joint")) continue;
    size_t nk = sinew_node_children(g, nodes[s], kids, children_cap);
    for (size_t c = 0; c < nk; c++) {
      if (!is_a(g, kids[c], "joint")) continue;
      sinew_mat4_t cw;
      size_t t = 0;
      while (t < ninf && !node_eq(nodes[t], kids[c])) t++;
      if (t < ninf) cw = bind_world[t];
      else {
        sinew_mat4_t local;
        local_with_offset(g, kids[c], &local);
        sinew_mat4_mul(&local, &bind_world[s], &cw);
      }
      h->seg_end[k++] = row3(&cw);
    }
  }
  h->seg_off[ninf] = k;
  /* the influence hierarchy: the nearest ancestor that is an influence */
  for (size_t s = 0; s < ninf; s++) {
    h->parent[s] = -1;
    if (!nodes[s].gen) continue;
    for (sinew_node_t p = sinew_node_parent(g, nodes[s]); p.gen && h->parent[s] < 0; p = sinew_node_parent(g, p))
      for (size_t t = 0; t < ninf; t++)
        if (node_eq(nodes[t], p)) h->parent[s] = (int32_t)t;
  }
  /* the hierarchy's links as adjacency lists (parent first, then children) */
  for (size_t s2 = 0; s2 < ninf; s2++)
    if (h->parent[s2] >= 0) {
      fill[s2]++;
      fill[h->parent[s2]]++;
    }
  h->adj_off[0] = 0;
  for (size_t s2 = 0; s2 < ninf; s2++) {
    h->adj_off[s2 + 1] = h->adj_off[s2] + fill[s2];
    fill[s2] = h->adj_off[s2];
  }
  for (size_t s2 = 0; s2 < ninf; s2++)
    if (h->parent[s2] >= 0) h->adj[fill[s2]++] = (uint32_t)h->parent[s2];
  for (size_t s2 = 0; s2 < ninf; s2++)
    if (h->parent[s2] >= 0) h->adj[fill[h->parent[s2]]++] = (uint32_t)s2;
  return SINEW_OK;
}

static double seg_dist2(sinew_vec3_t p, sinew_vec3_t a, sinew_vec3_t b) {
  double abx = b.x - a.x, aby = b.y - a.y, abz = b.z - a.z;
  double apx = p.x - a.x, apy = p.y - a.y, apz = p.z - a.z;
  double len2 = abx * abx + aby * aby + abz * abz, t = 0;
  if (len2 > 0) {
    t = (apx * abx + apy * aby + apz * abz) / len2;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
  }
  double dx = apx - t * abx, dy = apy - t * aby, dz = apz - t * abz;
  return dx * dx + dy * dy + dz * dz;
}

/* Inserts (slot, d) into the ascending list of at most cap entries. */
static void keep_smallest(uint32_t *slots, double *ds, size_t *n, size_t cap, uint32_t slot, double d) {
  if (*n == cap && !(d < ds[cap - 1])) return;
  size_t i = *n < cap ? (*n)++ : cap - 1;
  while (i > 0 && ds[i - 1] > d) {
    slots[i] = slots[i - 1];
    ds[i] = ds[i - 1];
    i--;
  }
  slots[i] = slot;
  ds[i] = d;
}

/* Default weights of one world-space point over the allowed influences (NULL = all): up to
 * max_inf (slot, weight) pairs in sc->ts / sc->tw, ascending by slot; returns their count. */
static size_t heur_vertex(const heur *h, sinew_vec3_t p, const bool *allowed, heur_scratch *sc) {
  size_t ninf = h->ninf, best = SIZE_MAX;
  double *dist = sc->dist, *out_w = sc->tw;
  uint32_t *out_slot = sc->ts;
  for (size_t s = 0; s < ninf; s++) {
    if (allowed && !allowed[s]) {
      dist[s] = INFINITY;
      continue;
    }
    double d2;
    uint32_t b = h->seg_off[s], e = h->seg_off[s + 1];
    if (b == e) {
      double dx = p.x - h->pivot[s].x, dy = p.y - h->pivot[s].y, dz = p.z - h->pivot[s].z;
      d2 = dx * dx + dy * dy + dz * dz;
    } else {
      d2 = INFINITY;
      for (uint32_t k = b; k < e; k++) {
        double x = seg_dist2(p, h->pivot[s], h->seg_end[k]);
        if (x < d2) d2 = x;
      }
    }
    dist[s] = sqrt(d2);
    if (best == SIZE_MAX || dist[s] < dist[best]) best = s;
  }
  if (best == SIZE_MAX) return 0;
  if (dist[best] < h->eps) {
    out_slot[0] = (uint32_t)best;
    out_w[0] = 1;
    return 1;
  }
  size_t cap = h->max_inf > 0 ? (size_t)h->max_inf : 1, n = 0;
  if (cap > ninf) cap = ninf;
  double ds[64], *dsel = ds;
  if (cap > 64) dsel = out_w; /* a huge maxInfluences: out_w (ninf long) holds the distances */
  if (h->method == SINEW_BIND_CLOSEST_IN_HIERARCHY) {
    /* breadth-first from the closest, level by level: a level is taken whole when it fits,
     * else its closest members fill the remaining places */
    if (++sc->stamp == 0) {
      memset(sc->mark, 0, ninf * sizeof *sc->mark);
      sc->stamp = 1;
    }
    uint32_t *q = sc->queue;
    size_t qn = 0, head = 0;
    q[qn++] = (uint32_t)best;
    sc->mark[best] = sc->stamp;
    while (head < qn && n < cap) {
      size_t end = qn, room = cap - n, ln = 0, lcap = room < 64 ? room : 64;
      uint32_t lslots[64];
      double lds[64];
      for (size_t k = head; k < end; k++)
        if (!allowed || allowed[q[k]]) keep_smallest(lslots, lds, &ln, lcap, q[k], dist[q[k]]);
      for (size_t k = 0; k < ln; k++) {
        out_slot[n] = lslots[k];
        dsel[n++] = lds[k];
      }
      for (size_t k = head; k < end && n < cap; k++)
        for (uint32_t a2 = h->adj_off[q[k]]; a2 < h->adj_off[q[k] + 1]; a2++) {
          uint32_t y = h->adj[a2];
          if (sc->mark[y] == sc->stamp) continue;
          sc->mark[y] = sc->stamp;
          q[qn++] = y;
        }
      head = end;
    }
  } else {
    for (size_t s = 0; s < ninf; s++)
      if (!allowed || allowed[s]) keep_smallest(out_slot, dsel, &n, cap, (uint32_t)s, dist[s]);
  }
  /* u = 1 / max(d, eps)^dropoff, normalised, small ones dropped, normalised again */
  double sum = 0;
  for (size_t k = 0; k < n; k++) {
    double d = dsel[k] > h->eps ? dsel[k] : h->eps;
    out_w[k] = 1.0 / pow(d, h->dropoff);
    sum += out_w[k];
  }
  size_t kept = 0;
  double sum2 = 0;
  for (size_t k = 0; k < n; k++) {
    double w = out_w[k] / sum;
    if (w < EPS_DROP) continue;
    out_slot[kept] = out_slot[k];
    out_w[kept++] = w;
    sum2 += w;
  }
  for (size_t k = 0; k < kept; k++) out_w[k] /= sum2;
  /* On a 2^-24 grid, the largest taking what the others leave: the weights then sum to exactly
   * 1 in double and in the deformer's float arithmetic (so the bind pose reproduces the input
   * bit for bit); each moves by at most 3e-8. */
  size_t big = 0;
  for (size_t k = 1; k < kept; k++)
    if (out_w[k] > out_w[big]) big = k;
  double rest = 0;
  for (size_t k = 0; k < kept; k++) {
    if (k == big) continue;
    out_w[k] = nearbyint(out_w[k] * WEIGHT_GRID) / WEIGHT_GRID;
    rest += out_w[k];
  }
  if (kept) out_w[big] = 1 - rest;
  /* ascending by slot (logical index order) */
  for (size_t a = 1; a < kept; a++)
    for (size_t b = a; b > 0 && out_slot[b - 1] > out_slot[b]; b--) {
      uint32_t ts = out_slot[b];
      out_slot[b] = out_slot[b - 1];
      out_slot[b - 1] = ts;
      double tw = out_w[b];
      out_w[b] = out_w[b - 1];
      out_w[b - 1] = tw;
    }
  return kept;
}

/* eps = 1e-6 * the bounding-box diagonal of the world points (1e-6 for a single point). */
static double scene_eps(const float *pts, uint32_t npoints, const sinew_mat4_t *G) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (uint32_t v = 0; v < npoints; v++) {
    sinew_vec3_t p = {pts[3 * (size_t)v], pts[3 * (size_t)v + 1], pts[3 * (size_t)v + 2]};
    sinew_mat4_transform_point(p, G, &p);
    double c[3] = {p.x, p.y, p.z};
    for (int k = 0; k < 3; k++) {
      if (c[k] < lo[k]) lo[k] = c[k];
      if (c[k] > hi[k]) hi[k] = c[k];
    }
  }
  double d2 = 0;
  for (int k = 0; k < 3 && npoints; k++) d2 += (hi[k] - lo[k]) * (hi[k] - lo[k]);
  double diag = sqrt(d2);
  return 1e-6 * (diag > 0 && isfinite(diag) ? diag : 1.0);
}

/* ---- binding ---------------------------------------------------------------------------------- */

void sinew_skin_bind_desc_init(sinew_skin_bind_desc_t *d) {
  if (!d) return;
  memset(d, 0, sizeof *d);
  d->max_influences = 5;
  d->dropoff_rate = 4;
  d->bind_method = SINEW_BIND_CLOSEST_IN_HIERARCHY;
  d->skin_method = 0;
  d->normalize_weights = 1;
  d->weight_distribution = 0;
}

/* The mesh shape to bind: the node itself, or a transform's first non-intermediate mesh. */
static int resolve_shape(sinew_graph_t *g, sinew_node_t n, const mesh_ids *mi, sinew_node_t *out) {
  if (is_a(g, n, "mesh")) {
    *out = n;
    return SINEW_OK;
  }
  if (is_a(g, n, "transform")) {
    size_t nk = sinew_node_children(g, n, NULL, 0);
    sinew_data_t *h;
    sinew_node_t *kids = sinew__scratch((nk + 1) * sizeof *kids, &h);
    if (!kids) return oom(g, "skinCluster");
    sinew_node_children(g, n, kids, nk);
    bool found = false;
    for (size_t i = 0; i < nk && !found; i++) {
      bool io = false;
      sinew_plug_t pio = plug0(kids[i], mi->io);
      if (!is_a(g, kids[i], "mesh") || (sinew_get_bool(g, &pio, &io), io)) continue;
      *out = kids[i];
      found = true;
    }
    sinew_data_unref(h);
    if (found) return SINEW_OK;
  }
  return sinew_graph_fail(g, sinew_node_valid(g, n) ? SINEW_ETYPE : SINEW_ESTALE, "skinCluster",
                          "%s is not a mesh (or a transform with one)", name_of(g, n));
}

/* The elements of an array of numeric triples (pnts, vrts): indices and 3 values each, in
 * scratch. SIZE_MAX on out-of-memory. */
typedef struct vec3s {
  size_t n;
  int32_t *idx;
  double *val;
  sinew_data_t *block;
} vec3s;

static int read_vec3s(sinew_graph_t *g, sinew_node_t node, uint32_t attr, vec3s *out) {
  memset(out, 0, sizeof *out);
  sinew_plug_t arr = plug0(node, attr);
  size_t n = sinew_plug_indices(g, &arr, NULL, 0);
  if (!n) return SINEW_OK;
  double *v = sinew__scratch(n * (3 * sizeof(double) + sizeof(int32_t)), &out->block);
  if (!v) return SINEW_ENOMEM;
  out->val = v;
  out->idx = (int32_t *)(v + 3 * n);
  out->n = sinew_plug_indices(g, &arr, out->idx, n);
  for (size_t k = 0; k < out->n; k++) {
    sinew_plug_t e = plug1(node, attr, out->idx[k]);
    double *x = &out->val[3 * k];
    x[0] = x[1] = x[2] = 0;
    sinew_get_doubles(g, &e, x, 3, NULL);
  }
  return SINEW_OK;
}

static bool vec3_zero(const double *x) { return x[0] == 0 && x[1] == 0 && x[2] == 0; }

/* Sets element idx of a triple array, child by child. */
static int set_vec3(sinew_graph_t *g, sinew_node_t node, uint32_t attr, int32_t idx,
                         const double *x) {
  sinew_attr_info_t info;
  int rc = sinew_node_attr_info(g, node, attr, &info);
  for (uint32_t c = 0; c < 3 && c < info.child_count && !rc; c++) {
    sinew_plug_t child = sinew_plug_make(node, info.children[c], 1, &idx);
    rc = sinew_set_double(g, &child, x[c]);
  }
  return rc;
}

/* Default weights of every point: vertex v has count[v] entries at idx/w[v * stride]. */
typedef struct bind_weights {
  uint32_t npoints;
  size_t stride;
  uint32_t *count;
  int32_t *idx;    /* logical indices */
  double *w;
  sinew_data_t *block;
} bind_weights;

#define HEUR_STACK 512 /* influences a worker handles with stack scratch */

typedef struct heur_job {
  const heur *h;
  const float *pts;
  const sinew_mat4_t *G;
  const int32_t *logical;
  bind_weights *out;
} heur_job;

static void heur_range(const heur_job *j, size_t begin, size_t end, heur_scratch *sc) {
  bind_weights *o = j->out;
  for (size_t v = begin; v < end; v++) {
    sinew_vec3_t p = {j->pts[3 * v], j->pts[3 * v + 1], j->pts[3 * v + 2]};
    sinew_mat4_transform_point(p, j->G, &p);
    size_t k = heur_vertex(j->h, p, NULL, sc);
    for (size_t q = 0; q < k; q++) {
      o->idx[v * o->stride + q] = j->logical[sc->ts[q]];
      o->w[v * o->stride + q] = sc->tw[q];
    }
    o->count[v] = (uint32_t)k;
  }
}

static void heur_chunk(void *ud, size_t begin, size_t end) {
  double dist[HEUR_STACK], tw[HEUR_STACK];
  uint32_t ts[HEUR_STACK], queue[HEUR_STACK], mark[HEUR_STACK];
  memset(mark, 0, sizeof mark);
  heur_scratch sc = {.dist = dist, .tw = tw, .ts = ts, .queue = queue, .mark = mark};
  heur_range(ud, begin, end, &sc);
}

/* Default weights for every point (object-space points, G the shape's world matrix); each
 * point is independent, so they are computed on the worker pool (the same result whatever
 * the thread count). */
static int compute_default_weights(const heur *h, const float *pts, uint32_t npoints, const sinew_mat4_t *G,
                                   const int32_t *logical, bind_weights *out) {
  size_t cap = (size_t)(h->max_inf > 0 ? h->max_inf : 1);
  if (cap > h->ninf) cap = h->ninf;
  bool heap = h->ninf > HEUR_STACK;
  size_t nheap = heap ? h->ninf : 0;
  size_t bytes = (size_t)npoints * cap * (sizeof(int32_t) + sizeof(double)) + ((size_t)npoints + 1) * sizeof(uint32_t) +
                 nheap * (2 * sizeof(double) + 3 * sizeof(uint32_t)) + 64;
  unsigned char *b = sinew__scratch(bytes, &out->block);
  if (!b) return SINEW_ENOMEM;
  out->npoints = npoints;
  out->stride = cap;
  out->w = (double *)b;
  heur_scratch sc = {.dist = out->w + (size_t)npoints * cap};
  sc.tw = sc.dist + nheap;
  out->idx = (int32_t *)(sc.tw + nheap);
  out->count = (uint32_t *)(out->idx + (size_t)npoints * cap);
  sc.ts = out->count + npoints + 1;
  sc.queue = sc.ts + nheap;
  sc.mark = sc.queue + nheap;
  heur_job j = {.h = h, .pts = pts, .G = G, .logical = logical, .out = out};
  if (heap) heur_range(&j, 0, npoints, &sc);
  else sinew_pool_run(npoints, 2048, heur_chunk, &j);
  return SINEW_OK;
}

static int write_weights(sinew_graph_t *g, sinew_node_t skin, const sk_ids *ids, const bind_weights *bw) {
  for (uint32_t v = 0; v < bw->npoints; v++) {
    if (!bw->count[v]) continue;
    sinew_plug_t arr = weights_of(skin, ids, (int32_t)v);
    int rc = sinew_set_double_elements(g, &arr, &bw->idx[v * bw->stride], &bw->w[v * bw->stride], bw->count[v]);
    if (rc) return rc;
  }
  return SINEW_OK;
}

static const sinew_attr_desc_t liw_desc = {.name = "lockInfluenceWeights", .short_name = "liw",
                                           .type = SINEW_ATTR_BOOL, .has_min = true, .min_value = 0,
                                           .has_max = true, .max_value = 1};

/* Connects one influence at logical index i (matrix, bindPreMatrix, lockWeights, influence
 * colour, dropoff). */
static int connect_influence(sinew_graph_t *g, sinew_node_t skin, const sk_ids *ids,
                             sinew_node_t node, int32_t i, const sinew_mat4_t *world, double dropoff) {
  sinew_mat4_t inv;
  if (!sinew_mat4_inverse(world, &inv))
    return sinew_graph_fail(g, SINEW_ERANGE, "skinCluster", "%s: its world matrix is singular",
                            name_of(g, node));
  sinew_plug_t wm = sinew_plug_make(node, sinew__dag.world_matrix, 1, (int32_t[]){0});
  sinew_plug_t ma = plug1(skin, ids->matrix, i), pm = plug1(skin, ids->bind_pre_matrix, i);
  sinew_plug_t lw = plug1(skin, ids->lock_weights, i), dpf = plug1(skin, ids->dropoff, i);
  sinew_plug_t ifcl = plug1(skin, ids->influence_color, i);
  int rc = sinew__connect_replacing(g, &wm, &ma);
  if (!rc) rc = sinew_set_matrix(g, &pm, &inv);
  if (!rc && sinew_node_attr(g, node, "liw") == UINT32_MAX) rc = sinew_node_add_attr(g, node, &liw_desc, 1);
  if (rc) return rc;
  sinew_plug_t liw = attr_plug(g, node, "liw");
  if ((rc = sinew__connect_replacing(g, &liw, &lw))) return rc;
  uint32_t obcc = sinew_node_attr(g, node, "obcc");
  if (obcc != UINT32_MAX) {
    sinew_plug_t src = plug0(node, obcc);
    if ((rc = sinew__connect_replacing(g, &src, &ifcl)) && rc != SINEW_ETYPE) return rc;
  }
  return sinew_set_double(g, &dpf, dropoff);
}

/* The influences and every transform above them (the bind pose holds whole hierarchies). */
static sinew_node_t *pose_nodes(sinew_graph_t *g, const sinew_node_t *inf, size_t n, size_t *count, sinew_data_t **h) {
  size_t cap = n;
  for (size_t i = 0; i < n; i++)
    for (sinew_node_t p = sinew_node_parent(g, inf[i]); p.gen; p = sinew_node_parent(g, p)) cap++;
  sinew_node_t *out = sinew__scratch((cap + 1) * sizeof *out, h);
  if (!out) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) out[k++] = inf[i];
  for (size_t i = 0; i < n; i++)
    for (sinew_node_t p = sinew_node_parent(g, inf[i]); p.gen; p = sinew_node_parent(g, p)) {
      if (!is_a(g, p, "transform")) continue;
      bool seen = false;
      for (size_t j = 0; j < k && !seen; j++) seen = node_eq(out[j], p);
      if (!seen) out[k++] = p;
    }
  *count = k;
  return out;
}

int sinew_skin_bind(sinew_graph_t *g, const sinew_skin_bind_desc_t *d, sinew_node_t *out) {
  const char *what = "skinCluster";
  if (!g || !d) return SINEW_EINVAL;
  sk_ids ids;
  mesh_ids mi;
  if (!sk_ids_of(g, &ids) || !mesh_ids_of(g, &mi) || !sinew_find_node_type(g, "dagPose"))
    return sinew_graph_fail(g, SINEW_ENOTFOUND, what, "the skinCluster, mesh or dagPose type is missing");
  /* ---- validate everything first ---- */
  sinew_node_t shape;
  int rc = resolve_shape(g, d->geometry, &mi, &shape);
  if (rc) return rc;
  sinew_node_t xform = sinew_node_parent(g, shape);
  if (!xform.gen)
    return sinew_graph_fail(g, SINEW_EINVAL, what, "%s is not under a transform", name_of(g, shape));
  sinew_plug_t in_mesh = plug0(shape, mi.in_mesh), src_in;
  bool has_src = sinew_plug_source(g, &in_mesh, &src_in);
  if (has_src && is_a(g, src_in.node, "skinCluster"))
    return sinew_graph_fail(g, SINEW_EEXISTS, what, "%s is already bound by %s", name_of(g, shape),
                            name_of(g, src_in.node));
  if (!d->influence_count || !d->influences) return sinew_graph_fail(g, SINEW_EINVAL, what, "no influences");
  if (d->influence_count > 65535) return sinew_graph_fail(g, SINEW_ERANGE, what, "too many influences");
  int max_inf = d->max_influences > 0 ? d->max_influences : 5;
  double dr = d->dropoff_rate > 0 ? d->dropoff_rate : 4;
  if (!isfinite(dr)) return sinew_graph_fail(g, SINEW_EINVAL, what, "dropoffRate is not finite");
  if (d->bind_method != SINEW_BIND_CLOSEST_DISTANCE && d->bind_method != SINEW_BIND_CLOSEST_IN_HIERARCHY)
    return sinew_graph_set_error(g, SINEW_EUNSUPPORTED, "%s: bindMethod %d (only 0 closest distance and 1 closest in "
                                 "hierarchy are supported)", what, d->bind_method);
  if (d->skin_method < 0 || d->skin_method > 2 || d->normalize_weights < 0 || d->normalize_weights > 2 ||
      d->weight_distribution < 0 || d->weight_distribution > 1)
    return sinew_graph_fail(g, SINEW_EINVAL, what,
                            "skinMethod, normalizeWeights or weightDistribution out of range");
  size_t ninf = d->influence_count;
  for (size_t i = 0; i < ninf; i++) {
    if (!is_a(g, d->influences[i], "transform"))
      return sinew_graph_fail(g, sinew_node_valid(g, d->influences[i]) ? SINEW_ETYPE : SINEW_ESTALE, what,
                              "influence %s is not a transform or joint", name_of(g, d->influences[i]));
    for (size_t k = 0; k < i; k++)
      if (node_eq(d->influences[k], d->influences[i]))
        return sinew_graph_fail(g, SINEW_EINVAL, what, "%s is listed twice", name_of(g, d->influences[i]));
  }
  sinew_data_t *mesh = NULL;
  sinew_plug_t out_mesh = plug0(shape, mi.out_mesh);
  if ((rc = sinew_get_data(g, &out_mesh, &mesh))) return rc;
  const sinew_mesh_t *m = sinew_mesh_get(mesh);
  if (!m) {
    sinew_data_unref(mesh);
    return sinew_graph_fail(g, SINEW_EINVAL, what, "%s has no geometry", name_of(g, shape));
  }
  sinew_mat4_t G;
  sinew_data_t *wblock = NULL;
  sinew_mat4_t *worlds = sinew__scratch(ninf * sizeof *worlds + ninf * sizeof(int32_t), &wblock);
  if (!worlds) {
    sinew_data_unref(mesh);
    return oom(g, what);
  }
  int32_t *logical = (int32_t *)(worlds + ninf);
  rc = sinew_dag_world_matrix(g, shape, &G);
  for (size_t i = 0; i < ninf && !rc; i++) {
    sinew_mat4_t inv;
    logical[i] = (int32_t)i;
    rc = sinew_dag_world_matrix(g, d->influences[i], &worlds[i]);
    if (!rc && !sinew_mat4_inverse(&worlds[i], &inv))
      rc = sinew_graph_fail(g, SINEW_ERANGE, what, "%s: its world matrix is singular",
                            name_of(g, d->influences[i]));
  }
  sinew_mat4_t Ginv;
  if (!rc && !sinew_mat4_inverse(&G, &Ginv))
    rc = sinew_graph_fail(g, SINEW_ERANGE, what, "%s: the shape's world matrix is singular",
                          name_of(g, shape));
  /* default weights, before anything changes */
  heur h = {0};
  bind_weights bw = {0};
  if (!rc && (rc = heur_build(g, d->influences, worlds, ninf, max_inf, dr, d->bind_method, &h))) rc = oom(g, what);
  if (!rc) {
    h.eps = scene_eps(m->points, m->npoints, &G);
    if ((rc = compute_default_weights(&h, m->points, m->npoints, &G, logical, &bw))) rc = oom(g, what);
  }
  heur_free(&h);
  /* the shape's tweaks move to the Orig (read before anything changes) */
  vec3s tw = {0};
  if (!rc && read_vec3s(g, shape, mi.pnts, &tw)) rc = oom(g, what);
  sinew_data_t *pblock = NULL;
  size_t npose = 0;
  sinew_node_t *pnodes = rc ? NULL : pose_nodes(g, d->influences, ninf, &npose, &pblock);
  if (!rc && !pnodes) rc = oom(g, what);

  /* ---- make the changes, in a transaction ---- */
  bool tx = !rc && !(rc = sinew_graph_begin(g));
  sinew_node_t orig = {0, 0}, skin = {0, 0}, pose = {0, 0};
  char oname[300];
  snprintf(oname, sizeof oname, "%sOrig", name_of(g, shape));
  if (!rc) rc = sinew_node_create_under(g, "mesh", oname, xform, &orig);
  if (!rc) {
    sinew_plug_t io = plug0(orig, mi.io);
    rc = sinew_set_bool(g, &io, true);
  }
  /* the shape's tweaks go to the Orig: zero them on the shape */
  for (size_t k = 0; k < tw.n && !rc; k++) {
    const double zero[3] = {0, 0, 0};
    if (vec3_zero(&tw.val[3 * k])) continue;
    sinew_plug_t oe = plug1(orig, mi.pnts, tw.idx[k]);
    rc = set_vec3(g, shape, mi.pnts, tw.idx[k], zero);
    if (!rc) rc = sinew_set_doubles(g, &oe, &tw.val[3 * k], 3);
  }
  sinew_plug_t orig_in = plug0(orig, mi.in_mesh), orig_out = plug0(orig, mi.out_mesh);
  if (!rc && has_src) rc = sinew__connect_replacing(g, &src_in, &orig_in);
  if (!rc && !has_src) { /* the stored geometry without tweaks */
    sinew_data_t *base = NULL;
    rc = sinew_get_data(g, &out_mesh, &base);
    if (!rc) rc = sinew_mesh_node_set(g, orig, base);
    sinew_data_unref(base);
  }
  if (!rc) rc = sinew_node_create(g, "skinCluster", d->name && *d->name ? d->name : "skinCluster#", &skin);
  if (!rc) {
    sinew_plug_t ig = sinew_plug_make(skin, ids.input_geometry, 1, (int32_t[]){0});
    sinew_plug_t og = plug1(skin, ids.output_geometry, 0), org = plug1(skin, ids.original_geometry, 0);
    rc = sinew_connect(g, &orig_out, &ig, 0, NULL);
    if (!rc) rc = sinew_connect(g, &orig_out, &org, 0, NULL);
    /* a rollback takes this back after the connection below: a disconnected inMesh would
     * keep the last skinned mesh as a value, and a mesh node uses a held inMesh over its
     * stored points */
    if (!rc && !has_src) rc = sinew_set_data(g, &in_mesh, NULL);
    if (!rc) rc = sinew__connect_replacing(g, &og, &in_mesh);
  }
  for (size_t i = 0; i < ninf && !rc; i++)
    rc = connect_influence(g, skin, &ids, d->influences[i], (int32_t)i, &worlds[i], dr);
  if (!rc) {
    sinew_plug_t p;
    p = plug0(skin, ids.geom_matrix);
    rc = sinew_set_matrix(g, &p, &G);
    struct {
      uint32_t attr;
      double v;
    } sets[] = {{ids.max_influences, max_inf},
                {ids.mmi, d->obey_max_influences ? 1 : 0},
                {ids.normalize, d->normalize_weights},
                {ids.method, d->skin_method},
                {ids.dropoff_rate, dr},
                {ids.bind_method, d->bind_method},
                {ids.weight_distribution, d->weight_distribution}};
    for (size_t k = 0; k < sizeof sets / sizeof *sets && !rc; k++) {
      p = plug0(skin, sets[k].attr);
      rc = sinew_set_double(g, &p, sets[k].v);
    }
  }
  if (!rc) rc = sinew__bind_pose_add(g, pnodes, npose, &pose);
  if (!rc) {
    sinew_plug_t msg = attr_plug(g, pose, "message"), bp = plug0(skin, ids.bind_pose);
    rc = sinew_connect(g, &msg, &bp, 0, NULL);
  }
  if (!rc) rc = write_weights(g, skin, &ids, &bw);
  if (rc == SINEW_ENOMEM && sinew_graph_errcode(g) != SINEW_ENOMEM) oom(g, what);
  if (tx) rc = sinew_graph_end(g, rc);
  sinew_data_unref(tw.block);
  sinew_data_unref(pblock);
  sinew_data_unref(bw.block);
  sinew_data_unref(wblock);
  sinew_data_unref(mesh);
  if (!rc && out) *out = skin;
  return rc;
}

/* ---- weight editing: the per-vertex working set and the edits ------------------------ */

typedef struct jentry {
  int32_t v, index;
  double now;
  bool existed;
} jentry;

typedef struct edit {
  sinew_graph_t *g;
  sinew_node_t skin;
  sk_ids ids;
  const char *what;
  infl *inf;
  size_t ninf;
  bool *locked;
  int nw, mi, wd, bm;
  bool mmi;
  double dr;
  /* per-vertex scratch, ninf each */
  double *cur, *now, *sval;
  bool *exists, *spec, *recv;
  int32_t *sidx;
  heur_scratch hs;
  /* weights read from a vertex */
  int32_t *ridx;
  double *rval;
  size_t rcap;
  /* geometry for the distance rules, made on first use */
  int geo_state; /* 0 not tried, 1 ready, -1 unavailable */
  int geo_rc;    /* why it is unavailable: SINEW_ENOMEM, or SINEW_ENOTFOUND (no geometry) */
  sinew_data_t *orig;
  const sinew_mesh_t *mesh;
  sinew_mat4_t gm;
  heur h;
  /* the weight changes to write */
  jentry *j;
  size_t jn, jcap;
  sinew_data_t *blocks[4]; /* influences, per-vertex scratch, read buffer, edits */
} edit;

static void edit_close(edit *e) {
  for (int i = 0; i < 4; i++) sinew_data_unref(e->blocks[i]);
  sinew_data_unref(e->orig);
  heur_free(&e->h);
  memset(e, 0, sizeof *e);
}

static int edit_open(sinew_graph_t *g, sinew_node_t skin, const char *what, edit *e) {
  memset(e, 0, sizeof *e);
  int rc = skin_check(g, skin, what, &e->ids);
  if (rc) return rc;
  e->g = g;
  e->skin = skin;
  e->what = what;
  if (!(e->inf = influences_get(g, skin, &e->ids, &e->ninf, &e->blocks[0]))) return oom(g, what);
  size_t n = e->ninf + 1;
  unsigned char *b = sinew__scratch(n * (5 * sizeof(double) + 3 * sizeof(uint32_t) + sizeof(int32_t) + 4 * sizeof(bool)) + 64,
                                    &e->blocks[1]);
  if (!b) {
    edit_close(e);
    return oom(g, what);
  }
  e->cur = (double *)b;
  e->now = e->cur + n;
  e->hs.dist = e->now + n;
  e->hs.tw = e->hs.dist + n;
  e->sval = e->hs.tw + n;
  e->hs.ts = (uint32_t *)(e->sval + n);
  e->hs.queue = e->hs.ts + n;
  e->hs.mark = e->hs.queue + n;
  e->sidx = (int32_t *)(e->hs.mark + n);
  e->exists = (bool *)(e->sidx + n);
  e->spec = e->exists + n;
  e->recv = e->spec + n;
  e->locked = e->recv + n;
  for (size_t s = 0; s < e->ninf; s++) {
    bool on = false;
    sinew_plug_t lw = plug1(skin, e->ids.lock_weights, e->inf[s].index);
    sinew_get_bool(g, &lw, &on);
    e->locked[s] = on;
  }
  e->nw = (int)get_num(g, skin, e->ids.normalize, 1);
  e->mi = (int)get_num(g, skin, e->ids.max_influences, 2);
  if (e->mi < 1) e->mi = 1;
  e->mmi = get_num(g, skin, e->ids.mmi, 0) != 0;
  e->wd = (int)get_num(g, skin, e->ids.weight_distribution, 0);
  e->bm = (int)get_num(g, skin, e->ids.bind_method, 1);
  e->dr = get_num(g, skin, e->ids.dropoff_rate, 4);
  if (!(e->dr > 0)) e->dr = 4;
  return SINEW_OK;
}

/* Reads vertex v's weights into cur/exists (influences only; other indices are left alone). */
static int edit_read(edit *e, int32_t v) {
  for (size_t s = 0; s < e->ninf; s++) {
    e->cur[s] = 0;
    e->exists[s] = false;
  }
  sinew_plug_t arr = weights_of(e->skin, &e->ids, v);
  size_t count = 0;
  int rc = sinew_get_double_elements(e->g, &arr, e->ridx, e->rval, e->rcap, &count);
  if (rc) return rc;
  if (count > e->rcap) {
    sinew_data_unref(e->blocks[2]);
    size_t cap = count + 16;
    double *b = sinew__scratch(cap * (sizeof(double) + sizeof(int32_t)), &e->blocks[2]);
    if (!b) {
      e->rcap = 0;
      return oom(e->g, e->what);
    }
    e->rval = b;
    e->ridx = (int32_t *)(b + cap);
    e->rcap = cap;
    if ((rc = sinew_get_double_elements(e->g, &arr, e->ridx, e->rval, e->rcap, &count))) return rc;
  }
  for (size_t k = 0; k < count; k++) {
    int s = slot_of(e->inf, e->ninf, e->ridx[k]);
    if (s < 0) continue;
    e->cur[s] = e->rval[k];
    e->exists[s] = true;
  }
  return SINEW_OK;
}

/* The original geometry and the influences' bind-time positions, for the distance rules. */
static bool edit_geometry(edit *e, int method) {
  if (e->geo_state) return e->geo_state > 0;
  e->geo_state = -1;
  e->geo_rc = SINEW_ENOTFOUND;
  sinew_graph_t *g = e->g;
  sinew_plug_t org = plug1(e->skin, e->ids.original_geometry, 0);
  sinew_plug_t ig = sinew_plug_make(e->skin, e->ids.input_geometry, 1, (int32_t[]){0});
  int rc = sinew_get_data(g, &org, &e->orig);
  if (rc || !e->orig) {
    sinew_data_unref(e->orig);
    e->orig = NULL;
    int rc2 = sinew_get_data(g, &ig, &e->orig);
    if (rc2) e->orig = NULL;
    if (rc == SINEW_ENOMEM || rc2 == SINEW_ENOMEM) e->geo_rc = SINEW_ENOMEM;
  }
  if (!e->orig || !(e->mesh = sinew_mesh_get(e->orig))) return false;
  e->geo_rc = SINEW_ENOMEM; /* from here on only memory can be missing */
  sinew_plug_t gm = plug0(e->skin, e->ids.geom_matrix);
  if (sinew_get_matrix(g, &gm, &e->gm)) sinew_mat4_identity(&e->gm);
  sinew_data_t *wb;
  sinew_mat4_t *worlds = sinew__scratch((e->ninf + 1) * (sizeof(sinew_mat4_t) + sizeof(sinew_node_t)), &wb);
  if (!worlds) return false;
  sinew_node_t *nodes = (sinew_node_t *)(worlds + e->ninf + 1);
  for (size_t s = 0; s < e->ninf; s++) {
    sinew_mat4_t pm;
    sinew_plug_t ppm = plug1(e->skin, e->ids.bind_pre_matrix, e->inf[s].index);
    sinew_plug_t pma = plug1(e->skin, e->ids.matrix, e->inf[s].index);
    if (sinew_get_matrix(g, &ppm, &pm) || !sinew_mat4_inverse(&pm, &worlds[s]))
      if (sinew_get_matrix(g, &pma, &worlds[s])) sinew_mat4_identity(&worlds[s]);
    nodes[s] = e->inf[s].node;
  }
  rc = heur_build(g, nodes, worlds, e->ninf, e->mi, e->dr, method, &e->h);
  sinew_data_unref(wb);
  if (rc) {
    e->geo_rc = rc;
    return false;
  }
  e->h.eps = scene_eps(e->mesh->points, e->mesh->npoints, &e->gm);
  e->geo_state = 1;
  return true;
}

static bool edit_position(edit *e, int32_t v, sinew_vec3_t *p) {
  if (!edit_geometry(e, SINEW_BIND_CLOSEST_DISTANCE) || v < 0 || (uint32_t)v >= e->mesh->npoints) return false;
  const float *q = &e->mesh->points[3 * (size_t)v];
  sinew_mat4_transform_point((sinew_vec3_t){q[0], q[1], q[2]}, &e->gm, p);
  return true;
}

/* Gives `amount` to the receivers: by the distance rule (weightDistribution; Neighbors uses it
 * too), or evenly when the geometry is unknown. false when there is no receiver. */
static bool distribute(edit *e, int32_t v, double amount, const bool *recv) {
  size_t nrecv = 0;
  for (size_t s = 0; s < e->ninf; s++) nrecv += recv[s];
  if (!nrecv) return false;
  sinew_vec3_t p;
  if (edit_position(e, v, &p)) {
    size_t k = heur_vertex(&e->h, p, recv, &e->hs);
    for (size_t q = 0; q < k; q++) e->now[e->hs.ts[q]] += amount * e->hs.tw[q];
    if (k) return true;
  }
  for (size_t s = 0; s < e->ninf; s++)
    if (recv[s]) e->now[s] += amount / (double)nrecv;
  return true;
}

/* Makes now[] sum to 1: locked, unspecified weights are kept; the receivers are scaled to the
 * remainder (or, all zero, given it by distance when allowed); when that is impossible the
 * specified weights are scaled to what the locked ones leave. */
static void normalize_vertex(edit *e, int32_t v, bool allow_distance) {
  double L = 0, S = 0, O = 0;
  for (size_t s = 0; s < e->ninf; s++) {
    if (e->spec[s]) S += e->now[s];
    else if (e->recv[s]) O += e->now[s];
    else if (e->locked[s]) L += e->now[s];
  }
  double R = 1 - L - S, avail = 1 - L > 0 ? 1 - L : 0;
  if (R < -1e-12) { /* the specified and locked weights already exceed 1 */
    for (size_t s = 0; s < e->ninf; s++) {
      if (e->recv[s]) e->now[s] = 0;
      if (e->spec[s] && S > 0) e->now[s] *= avail / S;
    }
    return;
  }
  if (O > 0) {
    for (size_t s = 0; s < e->ninf; s++)
      if (e->recv[s]) e->now[s] *= R / O;
    return;
  }
  if (R <= 1e-12) return;
  if (allow_distance && distribute(e, v, R, e->recv)) return;
  if (S > 0)
    for (size_t s = 0; s < e->ninf; s++)
      if (e->spec[s]) e->now[s] *= avail / S;
}

/* maintainMaxInfluences: only the mi largest weights stay (the smallest unlocked, unspecified
 * ones go first); what they held goes to the remaining unlocked ones when normalising. */
static void enforce_max(edit *e, int32_t v, bool normalizing) {
  if (!e->mmi) return;
  size_t count = 0;
  for (size_t s = 0; s < e->ninf; s++) count += e->now[s] != 0;
  if (count <= (size_t)e->mi) return;
  while (count > (size_t)e->mi) {
    size_t best = SIZE_MAX;
    for (size_t s = 0; s < e->ninf; s++)
      if (e->now[s] != 0 && !e->locked[s] && !e->spec[s] && (best == SIZE_MAX || e->now[s] < e->now[best])) best = s;
    if (best == SIZE_MAX) break;
    e->now[best] = 0;
    count--;
  }
  if (!normalizing) return;
  for (size_t s = 0; s < e->ninf; s++) e->recv[s] = !e->locked[s] && !e->spec[s] && e->now[s] != 0;
  normalize_vertex(e, v, false);
}

static int edits_push(edit *e, jentry x) {
  if (e->jn == e->jcap) {
    size_t cap = e->jcap ? e->jcap * 2 : 1024;
    sinew_data_t *nb;
    jentry *j = sinew__scratch(cap * sizeof *j, &nb);
    if (!j) return oom(e->g, e->what);
    if (e->jn) memcpy(j, e->j, e->jn * sizeof *j);
    sinew_data_unref(e->blocks[3]);
    e->blocks[3] = nb;
    e->j = j;
    e->jcap = cap;
  }
  e->j[e->jn++] = x;
  return SINEW_OK;
}

/* Records the differences between cur and now for vertex v. Stored zeros are removed when
 * prune is set, and always for drop_slot. */
static int edits_vertex(edit *e, int32_t v, bool prune, int drop_slot) {
  for (size_t s = 0; s < e->ninf; s++) {
    bool changed = e->now[s] != e->cur[s];
    bool drop_zero = e->exists[s] && e->now[s] == 0 && (prune || (int)s == drop_slot);
    if (!changed && !drop_zero) continue;
    if (!changed && !e->exists[s]) continue;
    int rc = edits_push(e, (jentry){.v = v, .index = e->inf[s].index, .now = e->now[s],
                                      .existed = e->exists[s]});
    if (rc) return rc;
  }
  return SINEW_OK;
}

/* Writes the edits [b, end) of one vertex. */
static int edits_write_vertex(edit *e, size_t b, size_t end) {
  int32_t v = e->j[b].v;
  size_t n = 0;
  for (size_t i = b; i < end; i++) {
    const jentry *x = &e->j[i];
    if (x->now == 0) continue;
    e->sidx[n] = x->index;
    e->sval[n++] = x->now;
  }
  int rc = SINEW_OK;
  if (n) {
    sinew_plug_t arr = weights_of(e->skin, &e->ids, v);
    rc = sinew_set_double_elements(e->g, &arr, e->sidx, e->sval, n);
  }
  for (size_t i = b; i < end && !rc; i++) {
    const jentry *x = &e->j[i];
    if (x->now != 0 || !x->existed) continue;
    sinew_plug_t w = weight_of(e->skin, &e->ids, v, x->index);
    rc = sinew_plug_remove_element(e->g, &w);
  }
  return rc;
}

/* Writes every edit, all or nothing (a transaction). */
static int edits_apply(edit *e) {
  int rc = sinew_graph_begin(e->g);
  if (rc) return rc;
  for (size_t b = 0; b < e->jn && !rc;) {
    size_t end = b;
    while (end < e->jn && e->j[end].v == e->j[b].v) end++;
    rc = edits_write_vertex(e, b, end);
    b = end;
  }
  return sinew_graph_end(e->g, rc);
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return x < y ? -1 : x > y;
}

/* The vertices to edit: the caller's list (sorted, without duplicates) or every vertex (the
 * original geometry's points, else every weightList element). */
static int32_t *edit_vertices(edit *e, const int32_t *list, size_t count, size_t *n, sinew_data_t **h) {
  *h = NULL;
  if (list) {
    int32_t *out = sinew__scratch((count + 1) * sizeof *out, h);
    if (!out) return NULL;
    memcpy(out, list, count * sizeof *out);
    qsort(out, count, sizeof *out, cmp_i32);
    size_t k = 0;
    for (size_t i = 0; i < count; i++)
      if (!k || out[k - 1] != out[i]) out[k++] = out[i];
    *n = k;
    return out;
  }
  if (edit_geometry(e, SINEW_BIND_CLOSEST_DISTANCE)) {
    uint32_t np = e->mesh->npoints;
    int32_t *out = sinew__scratch(((size_t)np + 1) * sizeof *out, h);
    if (!out) return NULL;
    for (uint32_t v = 0; v < np; v++) out[v] = (int32_t)v;
    *n = np;
    return out;
  }
  sinew_plug_t wl = plug0(e->skin, e->ids.weight_list);
  size_t nv = sinew_plug_indices(e->g, &wl, NULL, 0);
  int32_t *out = sinew__scratch((nv + 1) * sizeof *out, h);
  if (!out) return NULL;
  sinew_plug_indices(e->g, &wl, out, nv);
  *n = nv;
  return out;
}

static int check_vertices(edit *e, const int32_t *v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (v[i] < 0) return sinew_graph_fail(e->g, SINEW_ERANGE, e->what, "vertex %d is negative", v[i]);
    if (edit_geometry(e, SINEW_BIND_CLOSEST_DISTANCE) && (uint32_t)v[i] >= e->mesh->npoints)
      return sinew_graph_fail(e->g, SINEW_ERANGE, e->what, "vertex %d is beyond the %u points of %s", v[i],
                              e->mesh->npoints, name_of(e->g, e->skin));
  }
  return SINEW_OK;
}

static int influence_slot(edit *e, sinew_node_t node) {
  for (size_t s = 0; s < e->ninf; s++)
    if (node_eq(e->inf[s].node, node)) return (int)s;
  return sinew_graph_fail(e->g, SINEW_ENOTFOUND, e->what, "%s is not an influence of %s", name_of(e->g, node),
                          name_of(e->g, e->skin));
}

/* ---- skinPercent ---------------------------------------------------------------------------- */

void sinew_skin_percent_desc_init(sinew_skin_percent_desc_t *d) {
  if (!d) return;
  memset(d, 0, sizeof *d);
  d->normalize = true;
}

typedef struct tv {
  int slot;
  double value;
} tv;

/* The skinPercent rules for the vertex list, into the edits. */
static int percent_pass(edit *e, const int32_t *verts, size_t nverts, const tv *tvs, size_t ntv,
                        const sinew_skin_percent_desc_t *d) {
  bool normalizing = d->normalize && e->nw == 1;
  for (size_t i = 0; i < nverts; i++) {
    int32_t v = verts[i];
    int rc = edit_read(e, v);
    if (rc) return rc;
    for (size_t s = 0; s < e->ninf; s++) {
      e->now[s] = e->cur[s];
      e->spec[s] = false;
    }
    for (size_t k = 0; k < ntv; k++) {
      int s = tvs[k].slot;
      double x = (d->relative ? e->now[s] : 0) + tvs[k].value;
      e->now[s] = x < 0 ? 0 : x > 1 ? 1 : x;
      e->spec[s] = true;
    }
    if (d->zero_remaining && ntv)
      for (size_t s = 0; s < e->ninf; s++)
        if (!e->spec[s] && !e->locked[s]) e->now[s] = 0;
    if (d->prune)
      for (size_t s = 0; s < e->ninf; s++)
        if (!e->locked[s] && e->now[s] < d->prune_below) e->now[s] = 0;
    if (normalizing && ntv) {
      for (size_t s = 0; s < e->ninf; s++) e->recv[s] = !e->locked[s] && !e->spec[s] && !d->zero_remaining;
      normalize_vertex(e, v, true);
    } else if (normalizing && d->prune) {
      for (size_t s = 0; s < e->ninf; s++) e->recv[s] = !e->locked[s] && e->now[s] != 0;
      normalize_vertex(e, v, false);
    }
    enforce_max(e, v, normalizing);
    if ((rc = edits_vertex(e, v, d->prune, -1))) return rc;
  }
  return SINEW_OK;
}

int sinew_skin_percent(sinew_graph_t *g, sinew_node_t skin, const sinew_skin_percent_desc_t *d) {
  const char *what = "skinPercent";
  if (!g || !d) return SINEW_EINVAL;
  edit e;
  int rc = edit_open(g, skin, what, &e);
  if (rc) return rc;
  sinew_data_t *tb = NULL, *vb = NULL;
  tv *tvs = sinew__scratch((d->count + 1) * sizeof *tvs, &tb);
  if (!tvs) rc = oom(g, what);
  if (!rc && d->count && (!d->influences || !d->values))
    rc = sinew_graph_fail(g, SINEW_EINVAL, what, "-transformValue needs influences and values");
  for (size_t k = 0; k < d->count && !rc; k++) {
    int s = influence_slot(&e, d->influences[k]);
    if (s < 0) rc = s;
    else if (!isfinite(d->values[k]))
      rc = sinew_graph_fail(g, SINEW_EINVAL, what, "the value for %s is not finite",
                            name_of(g, d->influences[k]));
    else if (e.locked[s])
      rc = sinew_graph_fail(g, SINEW_ELOCKED, what, "the weights of %s are locked",
                            name_of(g, d->influences[k]));
    else tvs[k] = (tv){s, d->values[k]};
  }
  if (!rc && d->prune && !isfinite(d->prune_below))
    rc = sinew_graph_fail(g, SINEW_EINVAL, what, "the prune value is not finite");
  if (!rc && !d->vertices && d->vertex_count)
    rc = sinew_graph_fail(g, SINEW_EINVAL, what, "vertex_count without vertices");
  size_t nverts = 0;
  int32_t *verts = NULL;
  if (!rc && !(verts = edit_vertices(&e, d->vertices, d->vertex_count, &nverts, &vb))) rc = oom(g, what);
  if (!rc) rc = check_vertices(&e, verts, nverts);
  if (!rc && (d->count || d->prune)) rc = percent_pass(&e, verts, nverts, tvs, d->count, d);
  if (!rc) rc = edits_apply(&e);
  sinew_data_unref(tb);
  sinew_data_unref(vb);
  edit_close(&e);
  return rc;
}

int sinew_skin_get_weights(sinew_graph_t *g, sinew_node_t skin, int32_t v, double ignore_below, sinew_node_t *out_nodes,
                           double *out_w, size_t cap, size_t *out_count) {
  edit e;
  int rc = edit_open(g, skin, "skinPercent -q", &e);
  if (rc) return rc;
  if (v < 0) rc = sinew_graph_fail(g, SINEW_ERANGE, "skinPercent", "-q: vertex %d is negative", v);
  if (!rc) rc = edit_read(&e, v);
  size_t k = 0;
  for (size_t s = 0; s < e.ninf && !rc; s++) {
    if (ignore_below >= 0 && !(e.cur[s] > ignore_below)) continue;
    if (k < cap) {
      if (out_nodes) out_nodes[k] = e.inf[s].node;
      if (out_w) out_w[k] = e.cur[s];
    }
    k++;
  }
  if (!rc && out_count) *out_count = k;
  edit_close(&e);
  return rc;
}

int sinew_skin_get_weight(sinew_graph_t *g, sinew_node_t skin, int32_t v, sinew_node_t node, double *out) {
  edit e;
  int rc = edit_open(g, skin, "skinPercent -q", &e);
  if (rc) return rc;
  int s = influence_slot(&e, node);
  if (s < 0) rc = s;
  if (!rc && v < 0) rc = sinew_graph_fail(g, SINEW_ERANGE, "skinPercent", "-q: vertex %d is negative", v);
  if (!rc) rc = edit_read(&e, v);
  if (!rc && out) *out = e.cur[s];
  edit_close(&e);
  return rc;
}

int sinew_skin_force_normalize(sinew_graph_t *g, sinew_node_t skin) {
  edit e;
  int rc = edit_open(g, skin, "skinCluster -forceNormalizeWeights", &e);
  if (rc) return rc;
  sinew_data_t *vb;
  sinew_plug_t wl = plug0(skin, e.ids.weight_list);
  size_t nv = sinew_plug_indices(g, &wl, NULL, 0);
  int32_t *verts = sinew__scratch((nv + 1) * sizeof *verts, &vb);
  if (!verts) rc = oom(g, e.what);
  if (!rc) sinew_plug_indices(g, &wl, verts, nv);
  for (size_t i = 0; i < nv && !rc; i++) {
    if ((rc = edit_read(&e, verts[i]))) break;
    for (size_t s = 0; s < e.ninf; s++) {
      e.now[s] = e.cur[s];
      e.spec[s] = false;
      e.recv[s] = !e.locked[s] && e.now[s] != 0;
    }
    normalize_vertex(&e, verts[i], false);
    rc = edits_vertex(&e, verts[i], false, -1);
  }
  if (!rc) rc = edits_apply(&e);
  sinew_data_unref(vb);
  edit_close(&e);
  return rc;
}

int sinew_skin_reset_weights(sinew_graph_t *g, sinew_node_t skin, const int32_t *vertices, size_t vertex_count) {
  edit e;
  int rc = edit_open(g, skin, "skinPercent -resetToDefault", &e);
  if (rc) return rc;
  int method = e.bm == SINEW_BIND_CLOSEST_DISTANCE ? SINEW_BIND_CLOSEST_DISTANCE : SINEW_BIND_CLOSEST_IN_HIERARCHY;
  if (!edit_geometry(&e, method)) {
    rc = e.geo_rc == SINEW_ENOTFOUND
             ? sinew_graph_fail(g, SINEW_ENOTFOUND, e.what, "%s has no original geometry", name_of(g, skin))
         : e.geo_rc == SINEW_ENOMEM ? oom(g, e.what)
                                    : e.geo_rc;
    edit_close(&e);
    return rc;
  }
  sinew_data_t *vb = NULL;
  size_t nverts = 0;
  int32_t *verts = NULL;
  if (!vertices && vertex_count)
    rc = sinew_graph_fail(g, SINEW_EINVAL, e.what, "vertex_count without vertices");
  if (!rc && !(verts = edit_vertices(&e, vertices, vertex_count, &nverts, &vb))) rc = oom(g, e.what);
  if (!rc) rc = check_vertices(&e, verts, nverts);
  for (size_t i = 0; i < nverts && !rc; i++) {
    int32_t v = verts[i];
    if ((rc = edit_read(&e, v))) break;
    double L = 0;
    for (size_t s = 0; s < e.ninf; s++) {
      e.now[s] = e.locked[s] ? e.cur[s] : 0;
      e.recv[s] = !e.locked[s] && e.inf[s].node.gen;
      e.spec[s] = false;
      if (e.locked[s]) L += e.cur[s];
    }
    sinew_vec3_t p;
    edit_position(&e, v, &p);
    size_t k = heur_vertex(&e.h, p, e.recv, &e.hs);
    for (size_t q = 0; q < k; q++) e.now[e.hs.ts[q]] = (1 - L > 0 ? 1 - L : 0) * e.hs.tw[q];
    rc = edits_vertex(&e, v, false, -1);
  }
  if (!rc) rc = edits_apply(&e);
  sinew_data_unref(vb);
  edit_close(&e);
  return rc;
}

/* ---- skinCluster edits ---------------------------------------------------------------------- */

int sinew_skin_add_influence(sinew_graph_t *g, sinew_node_t skin, sinew_node_t node,
                             const sinew_skin_add_influence_desc_t *desc, int32_t *out_index) {
  const char *what = "skinCluster -addInfluence";
  sk_ids ids;
  int rc = skin_check(g, skin, what, &ids);
  if (rc) return rc;
  sinew_skin_add_influence_desc_t d = {0};
  if (desc) d = *desc;
  if (!is_a(g, node, "transform"))
    return sinew_graph_fail(g, sinew_node_valid(g, node) ? SINEW_ETYPE : SINEW_ESTALE, what,
                            "%s is not a transform or joint", name_of(g, node));
  if (sinew_skin_influence_index(g, skin, node, NULL) == SINEW_OK)
    return sinew_graph_fail(g, SINEW_EEXISTS, what, "%s already is an influence of %s", name_of(g, node),
                            name_of(g, skin));
  if (!isfinite(d.weight) || d.weight < 0 || d.weight > 1)
    return sinew_graph_fail(g, SINEW_EINVAL, what, "the weight must be within 0..1");
  sinew_mat4_t world;
  if ((rc = sinew_dag_world_matrix(g, node, &world))) return rc;
  double dropoff = d.dropoff > 0 ? d.dropoff : get_num(g, skin, ids.dropoff_rate, 4);
  sinew_plug_t ma = plug0(skin, ids.matrix);
  int32_t i = sinew_plug_next_index(g, &ma);
  if (i < 0) return sinew_graph_fail(g, SINEW_ERANGE, what, "no free influence index");
  if ((rc = sinew_graph_begin(g))) return rc;
  rc = connect_influence(g, skin, &ids, node, i, &world, dropoff);
  /* the new influence starts at weight 0 (stale weights at its index are dropped), or at
   * d.weight on every vertex with the skinPercent rules */
  edit e;
  bool opened = false;
  if (!rc && !(rc = edit_open(g, skin, what, &e))) opened = true;
  if (!rc) {
    int s = influence_slot(&e, node);
    sinew_data_t *vb = NULL;
    size_t nverts = 0;
    int32_t *verts = s < 0 ? NULL : edit_vertices(&e, NULL, 0, &nverts, &vb);
    if (s < 0) rc = s;
    else if (!verts) rc = oom(g, what);
    else if (d.weight > 0) {
      sinew_skin_percent_desc_t pd;
      sinew_skin_percent_desc_init(&pd);
      tv one = {s, d.weight};
      e.locked[s] = false;
      rc = percent_pass(&e, verts, nverts, &one, 1, &pd);
    } else {
      sinew_plug_t wl = plug0(skin, ids.weight_list);
      size_t nv = sinew_plug_indices(g, &wl, NULL, 0);
      sinew_data_unref(vb);
      verts = sinew__scratch((nv + 1) * sizeof *verts, &vb);
      if (!verts) rc = oom(g, what);
      else sinew_plug_indices(g, &wl, verts, nv);
      for (size_t k = 0; k < nv && !rc; k++) {
        sinew_plug_t w = weight_of(skin, &ids, verts[k], i);
        if (!sinew_plug_has_value(g, &w)) continue;
        if (!(rc = edit_read(&e, verts[k]))) {
          memcpy(e.now, e.cur, e.ninf * sizeof *e.now);
          e.now[s] = 0;
          rc = edits_vertex(&e, verts[k], false, s);
        }
      }
    }
    sinew_data_unref(vb);
    if (!rc) rc = edits_apply(&e);
  }
  if (!rc && d.lock_weights) {
    sinew_plug_t liw = attr_plug(g, node, "liw");
    rc = sinew_set_double(g, &liw, 1);
  }
  /* the skin's bind pose learns the new influence (and its ancestors) unless it has one */
  sinew_plug_t bp = plug0(skin, ids.bind_pose), src;
  sinew_node_t other;
  if (!rc && sinew_plug_source(g, &bp, &src) && sinew_pose_find_bind_pose(g, node, &other) == SINEW_ENOTFOUND) {
    sinew_data_t *pb;
    size_t np = 0;
    sinew_node_t *pn = pose_nodes(g, &node, 1, &np, &pb);
    rc = pn ? sinew_pose_add(g, src.node, pn, np) : oom(g, what);
    sinew_data_unref(pb);
  }
  rc = sinew_graph_end(g, rc);
  if (opened) edit_close(&e);
  if (!rc && out_index) *out_index = i;
  return rc;
}

int sinew_skin_remove_influence(sinew_graph_t *g, sinew_node_t skin, sinew_node_t node) {
  edit e;
  int rc = edit_open(g, skin, "skinCluster -removeInfluence", &e);
  if (rc) return rc;
  int r = influence_slot(&e, node);
  if (r < 0) {
    edit_close(&e);
    return r;
  }
  int32_t index = e.inf[r].index;
  sinew_data_t *vb;
  sinew_plug_t wl = plug0(skin, e.ids.weight_list);
  size_t nv = sinew_plug_indices(g, &wl, NULL, 0);
  int32_t *verts = sinew__scratch((nv + 1) * sizeof *verts, &vb);
  if (!verts) rc = oom(g, e.what);
  else sinew_plug_indices(g, &wl, verts, nv);
  for (size_t k = 0; k < nv && !rc; k++) {
    int32_t v = verts[k];
    sinew_plug_t w = weight_of(skin, &e.ids, v, index);
    if (!sinew_plug_has_value(g, &w) || (rc = edit_read(&e, v))) continue;
    double wi = e.cur[r], O = 0;
    memcpy(e.now, e.cur, e.ninf * sizeof *e.now);
    e.now[r] = 0;
    if (wi > 0) {
      /* to the other unlocked weights in proportion; all zero: by distance over the unlocked
       * ones; none unlocked: in proportion over the locked ones */
      for (size_t s = 0; s < e.ninf; s++) {
        e.recv[s] = (int)s != r && !e.locked[s] && e.now[s] != 0;
        O += e.recv[s] ? e.now[s] : 0;
      }
      if (O > 0) {
        for (size_t s = 0; s < e.ninf; s++)
          if (e.recv[s]) e.now[s] += wi * e.now[s] / O;
      } else {
        for (size_t s = 0; s < e.ninf; s++) e.recv[s] = (int)s != r && !e.locked[s] && e.inf[s].node.gen;
        if (!distribute(&e, v, wi, e.recv)) {
          double T = 0;
          for (size_t s = 0; s < e.ninf; s++) T += (int)s != r ? e.now[s] : 0;
          for (size_t s = 0; s < e.ninf && T > 0; s++)
            if ((int)s != r) e.now[s] += wi * e.now[s] / T;
        }
      }
    }
    rc = edits_vertex(&e, v, false, r);
  }
  bool tx = !rc && !(rc = sinew_graph_begin(g));
  if (!rc) rc = edits_apply(&e);
  if (!rc) { /* the influence's elements */
    const uint32_t attrs[] = {e.ids.matrix, e.ids.bind_pre_matrix, e.ids.lock_weights, e.ids.dropoff,
                              e.ids.influence_color, e.ids.smoothness};
    for (size_t a = 0; a < sizeof attrs / sizeof *attrs && !rc; a++) {
      sinew_plug_t el = plug1(skin, attrs[a], index), arr = plug0(skin, attrs[a]);
      size_t n = sinew_plug_indices(g, &arr, NULL, 0);
      sinew_data_t *ib;
      int32_t *idx = sinew__scratch((n + 1) * sizeof *idx, &ib);
      bool present = false;
      if (idx) {
        sinew_plug_indices(g, &arr, idx, n);
        for (size_t q = 0; q < n && !present; q++) present = idx[q] == index;
      } else {
        rc = oom(g, e.what);
      }
      sinew_data_unref(ib);
      if (present) rc = sinew_plug_remove_element(g, &el);
    }
  }
  if (tx) rc = sinew_graph_end(g, rc);
  sinew_data_unref(vb);
  edit_close(&e);
  return rc;
}

int sinew_skin_recache_bind_matrices(sinew_graph_t *g, sinew_node_t skin) {
  const char *what = "skinCluster -recacheBindMatrices";
  sk_ids ids;
  int rc = skin_check(g, skin, what, &ids);
  if (rc) return rc;
  sinew_data_t *h, *mb;
  size_t n = 0;
  infl *inf = influences_get(g, skin, &ids, &n, &h);
  sinew_mat4_t *inv = inf ? sinew__scratch((n + 1) * sizeof *inv, &mb) : NULL;
  if (!inv) {
    sinew_data_unref(h);
    return oom(g, what);
  }
  for (size_t s = 0; s < n && !rc; s++) {
    sinew_mat4_t world;
    sinew_plug_t ma = plug1(skin, ids.matrix, inf[s].index);
    if (!(rc = sinew_get_matrix(g, &ma, &world)) && !sinew_mat4_inverse(&world, &inv[s]))
      rc = sinew_graph_fail(g, SINEW_ERANGE, what, "matrix[%d] is singular", inf[s].index);
  }
  bool tx = !rc && !(rc = sinew_graph_begin(g));
  for (size_t s = 0; s < n && !rc; s++) {
    sinew_plug_t pm = plug1(skin, ids.bind_pre_matrix, inf[s].index);
    rc = sinew_set_matrix(g, &pm, &inv[s]);
  }
  if (tx) rc = sinew_graph_end(g, rc);
  sinew_data_unref(h);
  sinew_data_unref(mb);
  return rc;
}

int sinew_skin_unbind(sinew_graph_t *g, sinew_node_t skin) {
  const char *what = "skinCluster -unbind";
  sk_ids ids;
  mesh_ids mi;
  int rc = skin_check(g, skin, what, &ids);
  if (rc) return rc;
  if (!mesh_ids_of(g, &mi)) return sinew_graph_fail(g, SINEW_ENOTFOUND, what, "no mesh type");
  sinew_node_t shape = {0, 0}, orig = {0, 0};
  sinew_plug_t og = plug1(skin, ids.output_geometry, 0), dst, src;
  sinew_plug_t ig = sinew_plug_make(skin, ids.input_geometry, 1, (int32_t[]){0});
  if (sinew_plug_destinations(g, &og, &dst, 1) && dst.attr == mi.in_mesh && is_a(g, dst.node, "mesh")) shape = dst.node;
  if (sinew_plug_source(g, &ig, &src) && is_a(g, src.node, "mesh")) orig = src.node;
  /* everything the shape gets back is read before anything changes */
  bool orig_has_src = false;
  sinew_plug_t orig_in = orig.gen ? plug0(orig, mi.in_mesh) : (sinew_plug_t){0}, upstream;
  if (orig.gen) orig_has_src = sinew_plug_source(g, &orig_in, &upstream);
  sinew_data_t *orig_out = NULL;
  if (orig.gen && shape.gen && !orig_has_src) {
    sinew_plug_t oo = plug0(orig, mi.out_mesh);
    if ((rc = sinew_get_data(g, &oo, &orig_out))) return rc;
    if (!sinew_mesh_get(orig_out)) {
      sinew_data_unref(orig_out);
      return sinew_graph_fail(g, SINEW_EINVAL, what, "%s has no geometry", name_of(g, orig));
    }
  }
  vec3s otw = {0}, stw = {0}, svt = {0};
  if (shape.gen && (read_vec3s(g, shape, mi.pnts, &stw) || (orig_has_src && read_vec3s(g, orig, mi.pnts, &otw)) ||
                    (orig_out && read_vec3s(g, shape, mi.vrts, &svt))))
    rc = oom(g, what);
  /* The shape gets its geometry back first, then the skinCluster and the Orig go together,
   * all in one transaction. */
  bool orig_goes = false;
  if (!rc && orig.gen) {
    sinew_plug_t oo = plug0(orig, mi.out_mesh);
    sinew_plug_t d2[3];
    size_t nd = sinew_plug_destinations(g, &oo, d2, 3);
    orig_goes = true; /* when only this skinCluster reads it */
    for (size_t k = 0; k < nd && k < 3; k++) orig_goes = orig_goes && node_eq(d2[k].node, skin);
    orig_goes = orig_goes && nd <= 3;
  }
  if (!rc && (sinew_node_locked(g, skin) || (orig_goes && sinew_node_locked(g, orig))))
    rc = sinew_graph_fail(g, SINEW_ELOCKED, what, "%s is locked",
                          name_of(g, sinew_node_locked(g, skin) ? skin : orig));
  bool tx = !rc && !(rc = sinew_graph_begin(g));
  if (!rc && shape.gen) {
    sinew_plug_t in_mesh = plug0(shape, mi.in_mesh);
    const double zero[3] = {0, 0, 0};
    for (size_t k = 0; k < stw.n && !rc; k++) { /* the shape's tweaks went to the Orig at bind */
      if (vec3_zero(&stw.val[3 * k])) continue;
      rc = set_vec3(g, shape, mi.pnts, stw.idx[k], zero);
    }
    if (!rc && orig_has_src) {
      rc = sinew__connect_replacing(g, &upstream, &in_mesh); /* replaces outputGeometry -> inMesh */
      for (size_t k = 0; k < otw.n && !rc; k++) /* and the tweaks come back */
        rc = set_vec3(g, shape, mi.pnts, otw.idx[k], &otw.val[3 * k]);
    } else if (!rc && orig_out) {
      /* the Orig's final points become the shape's stored points (its vrts follow them) */
      const sinew_mesh_t *m = sinew_mesh_get(orig_out);
      sinew_plug_t stored = plug0(shape, sinew_node_attr(g, shape, "sinewStoredMesh"));
      rc = sinew_disconnect(g, &og, &in_mesh);
      if (!rc) rc = sinew_set_data(g, &in_mesh, NULL);
      if (!rc) rc = sinew_set_data(g, &stored, orig_out);
      for (size_t k = 0; k < svt.n && !rc; k++) {
        if (svt.idx[k] < 0 || (uint32_t)svt.idx[k] >= m->npoints) continue;
        const float *q = &m->points[3 * (size_t)svt.idx[k]];
        double x[3] = {q[0], q[1], q[2]};
        rc = set_vec3(g, shape, mi.vrts, svt.idx[k], x);
      }
    }
  }
  if (!rc) rc = sinew_node_delete_many(g, (sinew_node_t[]){skin, orig}, orig_goes ? 2 : 1);
  if (tx) rc = sinew_graph_end(g, rc);
  sinew_data_unref(otw.block);
  sinew_data_unref(stw.block);
  sinew_data_unref(svt.block);
  sinew_data_unref(orig_out);
  return rc;
}
