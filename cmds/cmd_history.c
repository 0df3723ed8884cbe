/* cmds/cmd_history.c: `delete -ch`, the construction history of shapes deleted and their
 * geometry kept as it evaluates now (Maya's "Delete by type > History").
 *
 * The history of a shape is what feeds its geometry input (a mesh's inMesh, a nurbsCurve's
 * create), walked upstream through nodes outside the DAG and through intermediate shapes (a
 * deformer's ShapeOrig), stopping at other DAG nodes (joints, transforms, visible shapes) and
 * at the scene's default nodes (time1). A node of it that also feeds something else (a
 * polyCube whose output feeds two meshes, a bind pose another skinCluster uses) stays, and so
 * does what feeds it. A relationship through `message` into an objectSet (a deformer set's
 * usedBy, a groupId's groupNodes) does not keep a node; a deformer set whose deformer goes,
 * goes with it. */
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds_internal.h"
#include "sinew/mesh.h"

typedef struct hist {
  sinew_graph_t *g;
  sinew_node_t *v; /* the history found so far; v[0..nshapes) are the shapes */
  bool *gone;      /* per entry: pruned (it feeds something outside) */
  uint32_t n, cap, cap_gone, nshapes;
  sinew_node_t at;
  uint32_t geom_attr; /* while starting at a shape: its geometry input */
  bool oom, changed;
} hist;

static bool same(sinew_node_t a, sinew_node_t b) { return a.index == b.index && a.gen == b.gen; }

/* The name of the top-level attribute a plug is in ("message", "usedBy"). */
static bool top_attr_is(sinew_graph_t *g, const sinew_plug_t *p, const char *name) {
  sinew_plug_t top = *p, up;
  while (sinew_plug_parent(g, &top, &up)) top = up;
  sinew_attr_info_t info;
  return sinew_node_attr_info(g, top.node, top.attr, &info) == SINEW_OK && strcmp(info.name, name) == 0;
}

static int64_t hist_find(const hist *h, sinew_node_t n) {
  for (uint32_t i = 0; i < h->n; i++)
    if (same(h->v[i], n)) return i;
  return -1;
}

static void hist_push(hist *h, sinew_node_t n) {
  if (h->oom || hist_find(h, n) >= 0) return;
  if (sinew__grow((void **)&h->v, &h->cap, h->n + 1, sizeof *h->v) ||
      sinew__grow((void **)&h->gone, &h->cap_gone, h->n + 1, sizeof *h->gone)) {
    h->oom = true;
    return;
  }
  h->gone[h->n] = false;
  h->v[h->n++] = n;
}

static bool is_dag(sinew_graph_t *g, sinew_node_t n) {
  return (sinew_node_type_flags(sinew_node_type(g, n)) & SINEW_NODE_TYPE_DAG) != 0;
}

static bool intermediate_shape(sinew_graph_t *g, sinew_node_t n) {
  sinew_plug_t p = sinew__attr_plug(g, n, "intermediateObject");
  bool io = false;
  return p.attr != UINT32_MAX && !sinew_get_bool(g, &p, &io) && io;
}

/* The attribute that holds a shape's geometry input, UINT32_MAX for a shape without one. */
static uint32_t geometry_input(sinew_graph_t *g, sinew_node_t shape) {
  const sinew_node_type_t *t = sinew_node_type(g, shape);
  if (sinew_node_type_is_a(t, "mesh")) return sinew_node_attr(g, shape, "inMesh");
  if (sinew_node_type_is_a(t, "nurbsCurve")) return sinew_node_attr(g, shape, "create");
  return UINT32_MAX;
}

/* Whether a node may be history: outside the DAG (and no default node), or an intermediate shape. */
static bool history_kind(sinew_session_t *s, sinew_node_t n) {
  sinew_graph_t *g = s->scene->graph;
  sinew__extra *e = sinew__extra_get(s->scene, n, false);
  /* the scene's time node is never history (looked at by type: finding it by name would
   * make one where there is none) */
  if ((e && e->is_default) || sinew_node_type_is_a(sinew_node_type(g, n), "time")) return false;
  return is_dag(g, n) ? intermediate_shape(g, n) : true;
}

typedef struct walk {
  hist *h;
  sinew_session_t *s;
} walk;

/* One connection of the node walked: its source, when it feeds that node (at a shape: its
 * geometry input, or an element or child of it). */
static bool walk_visit(void *ud, const sinew_connection_t *c) {
  walk *w = ud;
  hist *h = w->h;
  if (!same(c->dst.node, h->at) || same(c->src.node, h->at)) return true;
  if (h->geom_attr != UINT32_MAX) {
    sinew_plug_t q = c->dst, up;
    while (q.attr != h->geom_attr && sinew_plug_parent(h->g, &q, &up)) q = up;
    if (q.attr != h->geom_attr) return true;
  }
  if (history_kind(w->s, c->src.node)) hist_push(h, c->src.node);
  return !h->oom;
}

/* One connection of a history node: it stays when it feeds a node that is neither history
 * nor one of the shapes (a message into an objectSet excepted). */
static bool prune_visit(void *ud, const sinew_connection_t *c) {
  hist *h = ud;
  if (!same(c->src.node, h->at) || same(c->dst.node, h->at)) return true;
  int64_t k = hist_find(h, c->dst.node);
  if (k >= 0 && !h->gone[k]) return true;
  if (top_attr_is(h->g, &c->src, "message") && sinew_node_type_is_a(sinew_node_type(h->g, c->dst.node), "objectSet"))
    return true;
  int64_t me = hist_find(h, h->at);
  h->gone[me] = true;
  h->changed = true;
  return false;
}

/* A deformer set of a deleted deformer: an objectSet whose usedBy a history node's message feeds. */
typedef struct sets_ctx {
  hist *h;
  sinew_node_t *out;
  uint32_t n, cap;
  bool oom;
} sets_ctx;

static bool sets_visit(void *ud, const sinew_connection_t *c) {
  sets_ctx *x = ud;
  hist *h = x->h;
  if (!same(c->src.node, h->at) || !sinew_node_type_is_a(sinew_node_type(h->g, c->dst.node), "objectSet")) return true;
  if (!top_attr_is(h->g, &c->dst, "usedBy")) return true;
  for (uint32_t i = 0; i < x->n; i++)
    if (same(x->out[i], c->dst.node)) return true;
  if (sinew__grow((void **)&x->out, &x->cap, x->n + 1, sizeof *x->out)) {
    x->oom = true;
    return false;
  }
  x->out[x->n++] = c->dst.node;
  return true;
}

/* The shape keeps the geometry it evaluates to now: a mesh's outMesh becomes its stored mesh
 * (its vrts and pnts tweaks are in it, so they go), a curve's local curve its cached one. */
static int bake(sinew_cmd_t *cmd, sinew_node_t shape) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  bool mesh = sinew_node_type_is_a(sinew_node_type(g, shape), "mesh");
  sinew_plug_t out = sinew__attr_plug(g, shape, mesh ? "outMesh" : "local");
  sinew_data_t *d = NULL;
  int rc = sinew_get_data(g, &out, &d);
  if (!rc && !d) return SINEW_OK; /* nothing to keep */
  if (!rc && mesh) rc = sinew_mesh_node_set(g, shape, d);
  if (!rc && !mesh) {
    sinew_plug_t cc = sinew__attr_plug(g, shape, "cached");
    rc = sinew_set_data(g, &cc, d);
  }
  sinew_data_unref(d);
  const char *tweaks[] = {"vrts", "pnts"};
  for (int k = 0; k < 2 && mesh && !rc; k++) {
    sinew_plug_t arr = sinew__attr_plug(g, shape, tweaks[k]);
    size_t n = arr.attr == UINT32_MAX ? 0 : sinew_plug_indices(g, &arr, NULL, 0);
    int32_t *idx = n ? sinew_malloc(n * sizeof *idx) : NULL;
    if (n && !idx) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    n = n ? sinew_plug_indices(g, &arr, idx, n) : 0;
    for (size_t i = 0; i < n && !rc; i++) {
      sinew_plug_t e;
      rc = sinew_plug_element(g, &arr, idx[i], &e);
      if (!rc) rc = sinew_plug_remove_element(g, &e);
    }
    sinew_free(idx);
  }
  return rc ? sinew__graph_error(cmd, rc) : SINEW_OK;
}

int sinew__delete_history(sinew_cmd_t *cmd, const sinew_node_t *nodes, size_t count) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  hist h = {.g = g};
  /* the shapes: each shape named, a transform's shapes that are not intermediate objects */
  for (size_t i = 0; i < count && !h.oom; i++) {
    if (geometry_input(g, nodes[i]) != UINT32_MAX) {
      hist_push(&h, nodes[i]);
      continue;
    }
    size_t nk = sinew_node_children(g, nodes[i], NULL, 0);
    sinew_node_t *kids = nk ? sinew_malloc(nk * sizeof *kids) : NULL;
    if (nk && !kids) h.oom = true;
    nk = kids ? sinew_node_children(g, nodes[i], kids, nk) : 0;
    for (size_t k = 0; k < nk; k++)
      if (geometry_input(g, kids[k]) != UINT32_MAX && !intermediate_shape(g, kids[k])) hist_push(&h, kids[k]);
    sinew_free(kids);
  }
  h.nshapes = h.n;
  /* upstream, breadth-first: the list is the queue */
  walk w = {&h, s};
  for (uint32_t i = 0; i < h.n && !h.oom; i++) {
    h.at = h.v[i];
    h.geom_attr = i < h.nshapes ? geometry_input(g, h.at) : UINT32_MAX;
    sinew_foreach_connection(g, h.at, false, walk_visit, &w);
  }
  /* what also feeds something else stays, and so does what feeds it: until nothing changes */
  h.changed = !h.oom;
  while (h.changed) {
    h.changed = false;
    for (uint32_t i = h.nshapes; i < h.n; i++) {
      if (h.gone[i]) continue;
      h.at = h.v[i];
      sinew_foreach_connection(g, h.at, false, prune_visit, &h);
    }
  }
  sets_ctx sets = {.h = &h};
  for (uint32_t i = h.nshapes; i < h.n && !h.oom && !sets.oom; i++) {
    if (h.gone[i]) continue;
    h.at = h.v[i];
    sinew_foreach_connection(g, h.at, false, sets_visit, &sets);
  }
  int rc = h.oom || sets.oom ? sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory") : SINEW_OK;
  /* the shapes whose input comes from history that goes keep what they evaluate to now (a
   * shape whose input stays, shared, keeps its input and its tweaks) */
  uint32_t ndel = 0;
  for (uint32_t i = h.nshapes; i < h.n; i++)
    if (!h.gone[i]) h.v[h.nshapes + ndel++] = h.v[i];
  for (uint32_t i = 0; i < h.nshapes && !rc && ndel; i++) {
    sinew_plug_t in = sinew_plug_make(h.v[i], geometry_input(g, h.v[i]), 0, NULL), src;
    bool goes = false;
    for (uint32_t k = 0; k < ndel && sinew_plug_source(g, &in, &src) && !goes; k++)
      goes = same(src.node, h.v[h.nshapes + k]);
    if (goes) rc = bake(cmd, h.v[i]);
  }
  /* one call, all or nothing: a locked history node fails the command (the bakes go back
   * with its transaction) */
  if (!rc && ndel) {
    for (uint32_t i = 0; i < sets.n && !rc; i++) {
      if (sinew__grow((void **)&h.v, &h.cap, h.nshapes + ndel + 1, sizeof *h.v)) {
        rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
        break;
      }
      h.v[h.nshapes + ndel++] = sets.out[i];
    }
    if (!rc && (rc = sinew_node_delete_many(g, h.v + h.nshapes, ndel))) rc = sinew__graph_error(cmd, rc);
  }
  /* an input that kept the value its deleted source gave it would stand for the geometry */
  for (uint32_t i = 0; i < h.nshapes && !rc && ndel; i++) {
    sinew_plug_t in = sinew_plug_make(h.v[i], geometry_input(g, h.v[i]), 0, NULL);
    sinew_plug_t src;
    if (!sinew_plug_source(g, &in, &src) && (rc = sinew_set_data(g, &in, NULL))) rc = sinew__graph_error(cmd, rc);
  }
  sinew_free(sets.out);
  sinew_free(h.v);
  sinew_free(h.gone);
  return rc;
}
