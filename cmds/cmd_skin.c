/* cmds/cmd_skin.c: the skinning commands (skinCluster, skinPercent, dagPose), on top of the
 * binding, weight and bind-pose API of sinew/skin.h.
 *
 * Each command resolves and checks all of its arguments before it changes anything. A command
 * that makes several changes (skinCluster -e with several flags) records what it changed and
 * puts it back when a later step fails; see docs/commands.md for the one case that cannot. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds_internal.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- small helpers ---------------------------------------------------------------------------- */

static bool same(sinew_node_t a, sinew_node_t b) { return a.index == b.index && a.gen == b.gen; }

static bool is_a(sinew_graph_t *g, sinew_node_t n, const char *type) {
  const sinew_node_type_t *t = sinew_node_type(g, n);
  return t && sinew_node_type_is_a(t, type);
}

static const char *label(sinew_graph_t *g, sinew_node_t n, char *buf, size_t size) {
  return sinew__node_label(g, n, buf, size);
}

/* The graph's error as the command's ("skinCluster -addInfluence" of the graph reads
 * "skinCluster: -addInfluence: ..."). */
static int graph_fail(sinew_cmd_t *cmd, int rc) { return sinew_cmd_graph_error(cmd, rc); }

static int oom(sinew_cmd_t *cmd) { return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory"); }

/* The name a new DG node will get (docs/graph.md, Naming): a free explicit name as it is, a
 * taken one with its trailing number increased, none: base plus the first free number. The
 * command sets its result to it before it changes anything, so that no allocation is left to
 * fail once the change is made. */
static void predict_name(sinew_graph_t *g, const char *wanted, const char *base, char *out, size_t size) {
  sinew_node_t n;
  if (wanted && wanted[0] && wanted[strlen(wanted) - 1] != '#' && sinew_node_find(g, wanted, &n) == SINEW_ENOTFOUND) {
    snprintf(out, size, "%s", wanted);
    return;
  }
  char stem[256];
  long num = 1;
  if (wanted && wanted[0]) {
    size_t len = strlen(wanted);
    bool automatic = wanted[len - 1] == '#';
    if (automatic) len--;
    size_t d = len;
    while (!automatic && d > 0 && wanted[d - 1] >= '0' && wanted[d - 1] <= '9') d--;
    if (len - d > 18) d = len; /* a number too long to count on is part of the stem */
    snprintf(stem, sizeof stem, "%.*s", (int)d, wanted);
    if (!automatic && d < len) num = strtol(wanted + d, NULL, 10) + 1;
  } else {
    snprintf(stem, sizeof stem, "%s", base);
  }
  for (;; num++) {
    snprintf(out, size, "%s%ld", stem, num);
    if (sinew_node_find(g, out, &n) == SINEW_ENOTFOUND) return;
  }
}

/* The command's result: a name, or (array) a string array of that one name, as skinCluster
 * returns in Maya. */
static int result_name(sinew_cmd_t *cmd, const char *name, bool array) {
  if (!array) return sinew_cmd_result_string(cmd, name);
  int rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY);
  return rc ? rc : sinew_cmd_result_append_string(cmd, name);
}

/* After a change: makes sure the result (set beforehand to a predicted name) names node.
 * Nothing to do when the prediction was right; otherwise the result is set again. */
static int result_is(sinew_cmd_t *cmd, sinew_node_t node, const char *predicted, bool array) {
  char buf[512];
  const char *actual = label(sinew_cmd_graph(cmd), node, buf, sizeof buf);
  if (strcmp(actual, predicted) == 0) return SINEW_OK;
  return result_name(cmd, actual, array);
}

/* A growable list of nodes. */
typedef struct nodes {
  sinew_node_t *v;
  size_t n, cap;
} nodes;

static bool nodes_has(const nodes *l, sinew_node_t x) {
  for (size_t i = 0; i < l->n; i++)
    if (same(l->v[i], x)) return true;
  return false;
}

static int nodes_push(nodes *l, sinew_node_t x, bool unique) {
  if (unique && nodes_has(l, x)) return SINEW_OK;
  if (l->n == l->cap) {
    size_t nc = l->cap ? l->cap * 2 : 16;
    sinew_node_t *p = sinew_realloc(l->v, nc * sizeof *p);
    if (!p) return SINEW_ENOMEM;
    l->v = p;
    l->cap = nc;
  }
  l->v[l->n++] = x;
  return SINEW_OK;
}

static void nodes_free(nodes *l) {
  sinew_free(l->v);
  memset(l, 0, sizeof *l);
}

/* The plug of an attribute path on a node ("weightList[3].weights"); false when it has none. */
static bool plug_at(sinew_graph_t *g, sinew_node_t n, const char *path, sinew_plug_t *out) {
  return sinew_plug_parse_attr(g, n, path, out) == SINEW_OK;
}

static bool mesh_shape(sinew_graph_t *g, sinew_node_t n, sinew_node_t *out) { return sinew__mesh_shape(g, n, out); }

/* The skinCluster deforming a mesh (the source of its inMesh). */
static bool skin_of_shape(sinew_graph_t *g, sinew_node_t shape, sinew_node_t *out) {
  sinew_plug_t in, src;
  if (!plug_at(g, shape, "inMesh", &in) || !sinew_plug_source(g, &in, &src)) return false;
  if (!is_a(g, src.node, "skinCluster")) return false;
  *out = src.node;
  return true;
}

/* A skinCluster by its name, or by the name of the geometry it deforms. */
static int resolve_skin(sinew_cmd_t *cmd, const char *name, sinew_node_t *out) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  sinew_node_t n, shape;
  int rc = sinew__cmd_node(cmd, name, &n);
  if (rc) return rc;
  if (is_a(g, n, "skinCluster")) {
    *out = n;
    return SINEW_OK;
  }
  if (mesh_shape(g, n, &shape) && skin_of_shape(g, shape, out)) return SINEW_OK;
  return sinew_cmd_error(cmd, SINEW_ETYPE, "%s is not a skinCluster or a mesh deformed by one", name);
}

/* Whether n is an influence of skin (fails the command only when out of memory). */
static int influence_of(sinew_cmd_t *cmd, sinew_node_t skin, sinew_node_t n, bool *out) {
  int rc = sinew_skin_influence_index(sinew_cmd_graph(cmd), skin, n, NULL);
  if (rc == SINEW_ENOMEM) return oom(cmd);
  *out = rc == SINEW_OK;
  return SINEW_OK;
}

/* The bind pose holding n: SINEW_OK, SINEW_ENOTFOUND, or the command failed (out of memory). */
static int bind_pose_of(sinew_cmd_t *cmd, sinew_node_t n, sinew_node_t *out) {
  int rc = sinew_pose_find_bind_pose(sinew_cmd_graph(cmd), n, out);
  if (rc == SINEW_OK || rc == SINEW_ENOTFOUND) return rc;
  return rc == SINEW_ENOMEM ? oom(cmd) : graph_fail(cmd, rc);
}

/* The number of points of a skinCluster's original geometry (0 when it has none). */
static int skin_points(sinew_cmd_t *cmd, sinew_node_t skin, uint32_t *out) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  sinew_plug_t p;
  sinew_data_t *d = NULL;
  *out = 0;
  if (!plug_at(g, skin, "originalGeometry[0]", &p)) return SINEW_OK;
  int rc = sinew_get_data(g, &p, &d);
  if (rc) return sinew_cmd_graph_error(cmd, rc);
  const sinew_mesh_t *m = d ? sinew_mesh_get(d) : NULL;
  if (m) *out = m->npoints;
  sinew_data_unref(d);
  return SINEW_OK;
}

/* The command's objects: the positional arguments from `from` on, or the selection. */
static int objects(sinew_cmd_t *cmd, size_t from, nodes *out) {
  sinew_session_t *s = sinew__session(cmd);
  size_t argc = sinew_cmd_argc(cmd);
  int rc;
  if (argc > from) {
    for (size_t i = from; i < argc; i++) {
      sinew_node_t n;
      if ((rc = sinew__cmd_node(cmd, sinew_cmd_arg_string(cmd, i), &n))) return rc;
      if (nodes_push(out, n, true)) return oom(cmd);
    }
    return SINEW_OK;
  }
  for (uint32_t i = 0; i < s->scene->nsel; i++)
    if (nodes_push(out, s->scene->selection[i], true)) return oom(cmd);
  return SINEW_OK;
}

/* ---- reading every weight ------------------------------------------------------------------------ */

/* Every weight of a skinCluster: the weightList elements and their (index, value) pairs. */
typedef struct wsnap {
  int32_t *verts;  /* weightList indices */
  size_t *start;   /* per vertex: first entry (nverts + 1 values) */
  size_t nverts;
  int32_t *idx;
  double *val;
  size_t total;
  bool taken;
} wsnap;

static void wsnap_free(wsnap *w) {
  sinew_free(w->verts);
  sinew_free(w->start);
  sinew_free(w->idx);
  sinew_free(w->val);
  memset(w, 0, sizeof *w);
}

static bool weights_plug(sinew_graph_t *g, sinew_node_t skin, int32_t v, sinew_plug_t *out) {
  char path[64];
  snprintf(path, sizeof path, "weightList[%d].weights", (int)v);
  return plug_at(g, skin, path, out);
}

static int wsnap_take(sinew_graph_t *g, sinew_node_t skin, wsnap *w) {
  sinew_plug_t wl;
  if (!plug_at(g, skin, "weightList", &wl)) return SINEW_EINVAL;
  size_t nv = sinew_plug_indices(g, &wl, NULL, 0);
  w->verts = sinew_malloc((nv + 1) * sizeof *w->verts);
  w->start = sinew_malloc((nv + 1) * sizeof *w->start);
  if (!w->verts || !w->start) return SINEW_ENOMEM;
  sinew_plug_indices(g, &wl, w->verts, nv);
  w->nverts = nv;
  size_t cap = 0;
  for (size_t k = 0; k < nv; k++) {
    sinew_plug_t wp;
    size_t cnt = 0;
    w->start[k] = w->total;
    if (!weights_plug(g, skin, w->verts[k], &wp)) continue;
    int rc = sinew_get_double_elements(g, &wp, NULL, NULL, 0, &cnt);
    if (rc) return rc;
    if (w->total + cnt > cap) {
      size_t nc = cap ? cap * 2 : 256;
      while (nc < w->total + cnt) nc *= 2;
      int32_t *pi = sinew_realloc(w->idx, nc * sizeof *pi);
      if (pi) w->idx = pi;
      double *pv = sinew_realloc(w->val, nc * sizeof *pv);
      if (pv) w->val = pv;
      if (!pi || !pv) return SINEW_ENOMEM;
      cap = nc;
    }
    if ((rc = sinew_get_double_elements(g, &wp, w->idx + w->total, w->val + w->total, cnt, &cnt))) return rc;
    w->total += cnt;
  }
  w->start[nv] = w->total;
  w->taken = true;
  return SINEW_OK;
}

/* ---- skinCluster --------------------------------------------------------------------------------- */

static const sinew_cmd_flag_t skin_flags[] = {
    {"query", "q", "", SINEW_CMD_QUERY},
    {"edit", "e", "", SINEW_CMD_EDIT},
    {"name", "n", "s", 0},
    {"toSelectedBones", "tsb", "", 0},
    {"toSkeletonAndTransforms", "tst", "", 0},
    {"maximumInfluences", "mi", "i", 0},
    {"obeyMaxInfluences", "omi", "b", 0},
    {"dropoffRate", "dr", "f", 0},
    {"bindMethod", "bm", "i", 0},
    {"skinMethod", "sm", "i", 0},
    {"normalizeWeights", "nw", "i", 0},
    {"weightDistribution", "wd", "i", 0},
    {"envelope", "en", "f", 0},
    {"geometry", "g", "s", 0},
    {"addInfluence", "ai", "s", SINEW_CMD_MULTI},
    {"removeInfluence", "ri", "s", SINEW_CMD_MULTI},
    {"weight", "wt", "f", 0},
    {"lockWeights", "lw", "b", 0},
    {"influence", "inf", "s", 0},
    {"weightedInfluence", "wi", "", 0},
    {"unbind", "ub", "", 0},
    {"recacheBindMatrices", "rbm", "", 0},
    {"forceNormalizeWeights", "fnw", "", 0},
    /* recognised so that they fail with a clear message */
    {"ignoreBindPose", "ibp", "", 0},
    {"unbindKeepHistory", "ubk", "", 0},
    {"moveJointsMode", "mjm", "b", 0},
    {"useGeometry", "ug", "", 0},
    {"heatmapFalloff", "hmf", "f", 0},
    {"smoothWeights", "sw", "f", 0},
    {"removeUnusedInfluence", "rui", "b", 0},
};

static const char *const unsupported_skin_flags[] = {"ignoreBindPose", "unbindKeepHistory", "moveJointsMode",
                                                      "useGeometry", "heatmapFalloff", "smoothWeights",
                                                      "removeUnusedInfluence"};

/* An integer flag's value within lo..hi; *set says whether it was given. */
static int int_flag(sinew_cmd_t *cmd, const char *flag, int lo, int hi, int *out, bool *set) {
  *set = sinew_cmd_flag_count(cmd, flag) > 0;
  if (!*set) return SINEW_OK;
  int64_t v = sinew_cmd_flag_int(cmd, flag, 0);
  if (v < lo || v > hi) return sinew_cmd_error(cmd, SINEW_ERANGE, "-%s %lld: must be within %d..%d", flag, (long long)v, lo, hi);
  *out = (int)v;
  return SINEW_OK;
}

static int dropoff_flag(sinew_cmd_t *cmd, double *out, bool *set) {
  *set = sinew_cmd_flag_count(cmd, "dropoffRate") > 0;
  if (!*set) return SINEW_OK;
  double v = sinew_cmd_flag_double(cmd, "dropoffRate", 0, 4);
  if (!(v >= 0.1 && v <= 10)) return sinew_cmd_error(cmd, SINEW_ERANGE, "-dropoffRate %g: must be within 0.1..10", v);
  *out = v;
  return SINEW_OK;
}

/* Joints (and with transforms also plain transforms) below root, parents first. */
static int collect_skeleton(sinew_graph_t *g, sinew_node_t root, bool transforms, sinew_node_t skip, nodes *out) {
  if (same(root, skip)) return SINEW_OK;
  if (!(is_a(g, root, "joint") || (transforms && is_a(g, root, "transform")))) return SINEW_OK;
  if (nodes_push(out, root, true)) return SINEW_ENOMEM;
  size_t nk = sinew_node_children(g, root, NULL, 0);
  if (!nk) return SINEW_OK;
  sinew_node_t *kids = sinew_malloc(nk * sizeof *kids);
  if (!kids) return SINEW_ENOMEM;
  sinew_node_children(g, root, kids, nk);
  int rc = SINEW_OK;
  for (size_t i = 0; i < nk && !rc; i++) rc = collect_skeleton(g, kids[i], transforms, skip, out);
  sinew_free(kids);
  return rc;
}

static int skin_create(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  char buf[512];
  int rc;
  const char *given = sinew__cmd_given_flag(cmd, unsupported_skin_flags, COUNT(unsupported_skin_flags));
  if (given) return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "-%s is not supported", given);
  static const char *const edit_only[] = {"addInfluence", "removeInfluence", "weight", "lockWeights", "influence",
                                          "weightedInfluence", "unbind", "recacheBindMatrices",
                                          "forceNormalizeWeights", "envelope"};
  if ((given = sinew__cmd_given_flag(cmd, edit_only, COUNT(edit_only))))
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-%s needs -edit (or -query)", given);
  sinew_skin_bind_desc_t d;
  sinew_skin_bind_desc_init(&d);
  bool set;
  if ((rc = int_flag(cmd, "maximumInfluences", 1, 65535, &d.max_influences, &set)) ||
      (rc = dropoff_flag(cmd, &d.dropoff_rate, &set)) ||
      (rc = int_flag(cmd, "bindMethod", 0, 3, &d.bind_method, &set)) ||
      (rc = int_flag(cmd, "skinMethod", 0, 2, &d.skin_method, &set)) ||
      (rc = int_flag(cmd, "normalizeWeights", 0, 2, &d.normalize_weights, &set)) ||
      (rc = int_flag(cmd, "weightDistribution", 0, 1, &d.weight_distribution, &set)))
    return rc;
  d.obey_max_influences = sinew_cmd_flag_bool(cmd, "obeyMaxInfluences", false);
  d.name = sinew_cmd_flag_string(cmd, "name", NULL);

  nodes items = {0}, infl = {0};
  if ((rc = objects(cmd, 0, &items))) goto done;
  sinew_node_t geo = {0, 0}, shape;
  const char *geo_name = sinew_cmd_flag_string(cmd, "geometry", NULL);
  if (geo_name) {
    if ((rc = sinew__cmd_node(cmd, geo_name, &geo))) goto done;
  } else if (items.n) {
    /* the last object, or else the one object that is a mesh (selected first, say) */
    size_t at = items.n - 1, found = SIZE_MAX, nfound = 0;
    sinew_node_t sh;
    if (!mesh_shape(g, items.v[at], &sh) || is_a(g, items.v[at], "joint")) {
      for (size_t i = 0; i < items.n; i++)
        if (!is_a(g, items.v[i], "joint") && mesh_shape(g, items.v[i], &sh)) found = i, nfound++;
      if (nfound == 1) at = found;
    }
    geo = items.v[at];
    memmove(&items.v[at], &items.v[at + 1], (items.n - at - 1) * sizeof *items.v);
    items.n--;
  }
  if (!geo.gen) {
    rc = sinew_cmd_error(cmd, SINEW_EINVAL, "usage: skinCluster [flags] influences... geometry (or select them)");
    goto done;
  }
  if (!mesh_shape(g, geo, &shape)) {
    rc = sinew_cmd_error(cmd, SINEW_ETYPE, "%s is not a mesh or a transform with a mesh shape (give the geometry last)",
                         label(g, geo, buf, sizeof buf));
    goto done;
  }
  if (!items.n) {
    rc = sinew_cmd_error(cmd, SINEW_EINVAL, "no influences given (list the joints before the geometry)");
    goto done;
  }
  for (size_t i = 0; i < items.n; i++)
    if (!is_a(g, items.v[i], "transform")) {
      rc = sinew_cmd_error(cmd, SINEW_ETYPE, "%s is not a joint or transform", label(g, items.v[i], buf, sizeof buf));
      goto done;
    }
  sinew_node_t geo_xform = is_a(g, geo, "transform") ? geo : sinew_node_parent(g, shape);
  if (sinew_cmd_flag_count(cmd, "toSelectedBones")) {
    for (size_t i = 0; i < items.n && !rc; i++)
      if (nodes_push(&infl, items.v[i], true)) rc = oom(cmd);
  } else {
    /* the whole skeleton of each listed joint, from its top joint down (Maya's default) */
    bool tst = sinew_cmd_flag_count(cmd, "toSkeletonAndTransforms") > 0;
    for (size_t i = 0; i < items.n && !rc; i++) {
      sinew_node_t root = items.v[i];
      if (!is_a(g, root, "joint") && !tst) {
        if (nodes_push(&infl, root, true)) rc = oom(cmd);
        continue;
      }
      for (;;) {
        sinew_node_t p = sinew_node_parent(g, root);
        if (!sinew_node_valid(g, p) || !(is_a(g, p, "joint") || (tst && is_a(g, p, "transform")))) break;
        root = p;
      }
      if (collect_skeleton(g, root, tst, geo_xform, &infl)) rc = oom(cmd);
    }
  }
  if (rc) goto done;
  d.geometry = shape;
  d.influences = infl.v;
  d.influence_count = infl.n;
  sinew_node_t skin;
  char predicted[512];
  predict_name(g, d.name, "skinCluster", predicted, sizeof predicted);
  /* the result is reserved first, so that a bind never has to be taken back for lack of room */
  if ((rc = result_name(cmd, predicted, true))) goto done;
  if ((rc = sinew_skin_bind(g, &d, &skin))) {
    rc = graph_fail(cmd, rc);
    goto done;
  }
  if ((rc = result_is(cmd, skin, predicted, true))) sinew_skin_unbind(g, skin); /* best effort */
done:
  nodes_free(&items);
  nodes_free(&infl);
  return rc;
}

static int query_attr(sinew_cmd_t *cmd, sinew_node_t skin, const char *attr, bool integral) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  sinew_plug_t p;
  double v = 0;
  int rc;
  if (!plug_at(g, skin, attr, &p)) return sinew_cmd_error(cmd, SINEW_ENOTFOUND, "no attribute %s", attr);
  if ((rc = sinew_get_double(g, &p, &v))) return sinew_cmd_graph_error(cmd, rc);
  return integral ? sinew_cmd_result_int(cmd, (int64_t)v) : sinew_cmd_result_double(cmd, v);
}

/* skinCluster -q -inf / -wi: influences in logical-index order (-wi: those with a weight). */
static int query_influences(sinew_cmd_t *cmd, sinew_node_t skin, bool weighted) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  size_t n = sinew_skin_influences(g, skin, NULL, NULL, 0);
  sinew_node_t *inf = sinew_malloc((n + 1) * sizeof *inf);
  int32_t *idx = sinew_malloc((n + 1) * sizeof *idx);
  bool *used = sinew_calloc(n + 1, sizeof *used);
  int rc = SINEW_OK;
  if (!inf || !idx || !used) rc = oom(cmd);
  if (!rc) sinew_skin_influences(g, skin, inf, idx, n);
  if (!rc && weighted) {
    wsnap w = {0};
    if ((rc = wsnap_take(g, skin, &w))) rc = rc == SINEW_ENOMEM ? oom(cmd) : sinew_cmd_graph_error(cmd, rc);
    for (size_t q = 0; q < w.total && !rc; q++) {
      if (!(w.val[q] > 0)) continue;
      for (size_t k = 0; k < n; k++)
        if (idx[k] == w.idx[q]) used[k] = true;
    }
    wsnap_free(&w);
  }
  if (!rc) rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY);
  char buf[512];
  for (size_t k = 0; k < n && !rc; k++)
    if (!weighted || used[k]) rc = sinew_cmd_result_append_string(cmd, label(g, inf[k], buf, sizeof buf));
  sinew_free(inf);
  sinew_free(idx);
  sinew_free(used);
  return rc;
}

static int skin_target(sinew_cmd_t *cmd, sinew_node_t *skin) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  size_t argc = sinew_cmd_argc(cmd);
  if (argc > 1) return sinew_cmd_error(cmd, SINEW_EINVAL, "give one skinCluster (or its geometry)");
  if (argc == 1) return resolve_skin(cmd, sinew_cmd_arg_string(cmd, 0), skin);
  for (uint32_t i = 0; i < s->scene->nsel; i++) {
    sinew_node_t n = s->scene->selection[i], shape;
    if (is_a(g, n, "skinCluster")) {
      *skin = n;
      return SINEW_OK;
    }
    if (mesh_shape(g, n, &shape) && skin_of_shape(g, shape, skin)) return SINEW_OK;
  }
  return sinew_cmd_error(cmd, SINEW_EINVAL, "give the skinCluster (or its geometry), or select it");
}

static int skin_query(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  sinew_node_t skin;
  int rc = skin_target(cmd, &skin);
  if (rc) return rc;
  char buf[512];
  if (sinew_cmd_flag_count(cmd, "influence")) return query_influences(cmd, skin, false);
  if (sinew_cmd_flag_count(cmd, "weightedInfluence")) return query_influences(cmd, skin, true);
  if (sinew_cmd_flag_count(cmd, "geometry")) {
    sinew_node_t shape;
    rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY);
    if (!rc && sinew_skin_geometry(g, skin, &shape) == SINEW_OK)
      rc = sinew_cmd_result_append_string(cmd, label(g, shape, buf, sizeof buf));
    return rc;
  }
  static const struct {
    const char *flag, *attr;
    bool integral;
  } q[] = {{"maximumInfluences", "maxInfluences", true},   {"obeyMaxInfluences", "maintainMaxInfluences", true},
           {"dropoffRate", "dropoffRate", false},          {"bindMethod", "bindMethod", true},
           {"skinMethod", "skinningMethod", true},         {"normalizeWeights", "normalizeWeights", true},
           {"weightDistribution", "weightDistribution", true}, {"envelope", "envelope", false}};
  for (size_t i = 0; i < COUNT(q); i++)
    if (sinew_cmd_flag_count(cmd, q[i].flag)) return query_attr(cmd, skin, q[i].attr, q[i].integral);
  return sinew_cmd_error(cmd, SINEW_EINVAL,
                         "-query needs one of -influence, -weightedInfluence, -geometry, -maximumInfluences, "
                         "-obeyMaxInfluences, -dropoffRate, -bindMethod, -skinMethod, -normalizeWeights, "
                         "-weightDistribution, -envelope");
}

/* What one -ai did, to take it back. */
static int skin_edit(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  char buf[512];
  int rc;
  const char *given = sinew__cmd_given_flag(cmd, unsupported_skin_flags, COUNT(unsupported_skin_flags));
  if (given) return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "-%s is not supported", given);
  static const char *const create_only[] = {"name", "toSelectedBones", "toSkeletonAndTransforms", "bindMethod", "geometry",
                               "weightedInfluence"};
  if ((given = sinew__cmd_given_flag(cmd, create_only, COUNT(create_only))))
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-%s cannot be edited", given);
  sinew_node_t skin;
  if ((rc = skin_target(cmd, &skin))) return rc;
  if (!sinew_cmd_flag_count(cmd, "unbind") && (rc = sinew_cmd_result_string(cmd, label(g, skin, buf, sizeof buf))))
    return rc;
  size_t nai = sinew_cmd_flag_count(cmd, "addInfluence"), nri = sinew_cmd_flag_count(cmd, "removeInfluence");
  bool ub = sinew_cmd_flag_count(cmd, "unbind"), rbm = sinew_cmd_flag_count(cmd, "recacheBindMatrices"),
       fnw = sinew_cmd_flag_count(cmd, "forceNormalizeWeights");
  bool has_lw = sinew_cmd_flag_count(cmd, "lockWeights") > 0;
  bool lw = sinew_cmd_flag_bool(cmd, "lockWeights", true);
  const char *inf_name = sinew_cmd_flag_string(cmd, "influence", NULL);

  /* attribute writes: flag, attribute, value */
  struct {
    const char *flag, *attr;
    double value;
    bool set;
  } attrs[] = {{"maximumInfluences", "maxInfluences", 0, false},
               {"obeyMaxInfluences", "maintainMaxInfluences", 0, false},
               {"dropoffRate", "dropoffRate", 0, false},
               {"skinMethod", "skinningMethod", 0, false},
               {"normalizeWeights", "normalizeWeights", 0, false},
               {"weightDistribution", "weightDistribution", 0, false},
               {"envelope", "envelope", 0, false}};
  int iv = 0;
  bool set;
  if ((rc = int_flag(cmd, "maximumInfluences", 1, 65535, &iv, &set))) return rc;
  attrs[0].value = iv, attrs[0].set = set;
  attrs[1].set = sinew_cmd_flag_count(cmd, "obeyMaxInfluences") > 0;
  attrs[1].value = sinew_cmd_flag_bool(cmd, "obeyMaxInfluences", false);
  if ((rc = dropoff_flag(cmd, &attrs[2].value, &attrs[2].set))) return rc;
  if ((rc = int_flag(cmd, "skinMethod", 0, 2, &iv, &set))) return rc;
  attrs[3].value = iv, attrs[3].set = set;
  if ((rc = int_flag(cmd, "normalizeWeights", 0, 2, &iv, &set))) return rc;
  attrs[4].value = iv, attrs[4].set = set;
  if ((rc = int_flag(cmd, "weightDistribution", 0, 1, &iv, &set))) return rc;
  attrs[5].value = iv, attrs[5].set = set;
  attrs[6].set = sinew_cmd_flag_count(cmd, "envelope") > 0;
  attrs[6].value = sinew_cmd_flag_double(cmd, "envelope", 0, 1);
  size_t nattrs = 0;
  for (size_t i = 0; i < COUNT(attrs); i++) nattrs += attrs[i].set;

  if (ub) {
    if (nai || nri || rbm || fnw || has_lw || inf_name || nattrs)
      return sinew_cmd_error(cmd, SINEW_EINVAL, "-unbind cannot be combined with other edits");
    if ((rc = sinew_skin_unbind(g, skin))) return graph_fail(cmd, rc);
    return SINEW_OK;
  }
  double wt = sinew_cmd_flag_double(cmd, "weight", 0, 0);
  if (sinew_cmd_flag_count(cmd, "weight") && !nai)
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-weight goes with -addInfluence");
  if (!(wt >= 0 && wt <= 1)) return sinew_cmd_error(cmd, SINEW_ERANGE, "-weight %g: must be within 0..1", wt);
  if (inf_name && !has_lw)
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-influence in edit mode goes with -lockWeights");
  if (has_lw && !inf_name && !nai)
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-lockWeights needs -influence or -addInfluence");
  if (!nai && !nri && !rbm && !fnw && !has_lw && !nattrs)
    return sinew_cmd_error(cmd, SINEW_EINVAL, "nothing to edit");

  /* resolve and check every node first */
  nodes ai = {0}, ri = {0};
  sinew_plug_t lw_plug = {0};
  sinew_node_t inf_node = {0, 0};
  bool is = false;
  for (size_t k = 0; k < nai && !rc; k++) {
    sinew_node_t n;
    const char *nm = sinew_value_string(sinew_cmd_flag_arg(cmd, "addInfluence", k, 0));
    if ((rc = sinew__cmd_node(cmd, nm, &n)) || (rc = influence_of(cmd, skin, n, &is))) break;
    if (!is_a(g, n, "transform")) rc = sinew_cmd_error(cmd, SINEW_ETYPE, "-addInfluence %s: not a joint or transform", nm);
    else if (is)
      rc = sinew_cmd_error(cmd, SINEW_EEXISTS, "-addInfluence %s: already an influence of %s", nm,
                           label(g, skin, buf, sizeof buf));
    else if (nodes_has(&ai, n)) rc = sinew_cmd_error(cmd, SINEW_EINVAL, "-addInfluence %s: given twice", nm);
    else if (nodes_push(&ai, n, false)) rc = oom(cmd);
  }
  for (size_t k = 0; k < nri && !rc; k++) {
    sinew_node_t n;
    const char *nm = sinew_value_string(sinew_cmd_flag_arg(cmd, "removeInfluence", k, 0));
    if ((rc = sinew__cmd_node(cmd, nm, &n)) || (rc = influence_of(cmd, skin, n, &is))) break;
    if (!is)
      rc = sinew_cmd_error(cmd, SINEW_ENOTFOUND, "-removeInfluence %s: not an influence of %s", nm,
                           label(g, skin, buf, sizeof buf));
    else if (nodes_has(&ai, n)) rc = sinew_cmd_error(cmd, SINEW_EINVAL, "-removeInfluence %s: also added", nm);
    else if (nodes_push(&ri, n, true)) rc = oom(cmd);
  }
  if (!rc && inf_name) {
    if (!(rc = sinew__cmd_node(cmd, inf_name, &inf_node)) && !(rc = influence_of(cmd, skin, inf_node, &is))) {
      if (!is)
        rc = sinew_cmd_error(cmd, SINEW_ENOTFOUND, "-influence %s: not an influence of %s", inf_name,
                             label(g, skin, buf, sizeof buf));
      else if (nodes_has(&ri, inf_node))
        rc = sinew_cmd_error(cmd, SINEW_EINVAL, "-influence %s: also removed", inf_name);
      else if (!plug_at(g, inf_node, "lockInfluenceWeights", &lw_plug))
        rc = sinew_cmd_error(cmd, SINEW_ENOTFOUND, "%s has no lockInfluenceWeights attribute", inf_name);
    }
  }
  if (!rc && nri > 1 && (nai || rbm || fnw || has_lw || nattrs))
    rc = sinew_cmd_error(cmd, SINEW_EINVAL, "several -removeInfluence flags cannot be combined with other edits");
  if (rc) goto out;

  /* the edits in order; a failing one is taken back with the others by the command's
   * transaction */
  /* 1. attribute writes */
  for (size_t i = 0; i < COUNT(attrs) && !rc; i++) {
    if (!attrs[i].set) continue;
    sinew_plug_t p;
    if (!plug_at(g, skin, attrs[i].attr, &p)) {
      rc = sinew_cmd_graph_error(cmd, SINEW_ENOTFOUND);
      break;
    }
    if ((rc = sinew_set_double(g, &p, attrs[i].value))) rc = graph_fail(cmd, rc);
  }
  /* 2. -addInfluence */
  for (size_t k = 0; k < ai.n && !rc; k++) {
    sinew_skin_add_influence_desc_t d = {.weight = wt, .lock_weights = has_lw && lw && !inf_name};
    if ((rc = sinew_skin_add_influence(g, skin, ai.v[k], &d, NULL))) rc = graph_fail(cmd, rc);
  }
  /* 3. -influence X -lockWeights b */
  if (!rc && inf_name && (rc = sinew_set_double(g, &lw_plug, lw ? 1 : 0))) rc = graph_fail(cmd, rc);
  /* 4. -recacheBindMatrices */
  if (!rc && rbm && (rc = sinew_skin_recache_bind_matrices(g, skin))) rc = graph_fail(cmd, rc);
  /* 5. -forceNormalizeWeights */
  if (!rc && fnw && (rc = sinew_skin_force_normalize(g, skin))) rc = graph_fail(cmd, rc);
  /* 6. -removeInfluence */
  for (size_t k = 0; k < ri.n && !rc; k++)
    if ((rc = sinew_skin_remove_influence(g, skin, ri.v[k]))) rc = graph_fail(cmd, rc);
out:
  nodes_free(&ai);
  nodes_free(&ri);
  return rc;
}

static int cmd_skin_cluster(sinew_cmd_t *cmd) {
  if (sinew_cmd_query(cmd)) return skin_query(cmd);
  if (sinew_cmd_edit(cmd)) return skin_edit(cmd);
  return skin_create(cmd);
}

/* ---- skinPercent --------------------------------------------------------------------------------- */

static const sinew_cmd_flag_t percent_flags[] = {
    {"query", "q", "", SINEW_CMD_QUERY},
    {"transformValue", "tv", "sf", SINEW_CMD_MULTI},
    {"relative", "r", "b", 0},
    {"normalize", "nrm", "b", 0},
    {"zeroRemainingInfluences", "zri", "b", 0},
    {"pruneWeights", "prw", "f", 0},
    {"resetToDefault", "rtd", "", 0},
    {"value", "v", "", 0},
    {"transform", "t", "s", SINEW_CMD_QUERY_ARGS},
    {"ignoreBelow", "ib", "f", SINEW_CMD_QUERY_ARGS},
    {"transformMoveWeights", "tmw", "s", SINEW_CMD_MULTI},
};

/* The vertices named by the components: every vertex (all) or a list. */
typedef struct comps {
  int32_t *v;
  size_t n, cap;
  bool all;
} comps;

static int comps_push(comps *c, int32_t v) {
  if (c->n == c->cap) {
    size_t nc = c->cap ? c->cap * 2 : 64;
    int32_t *p = sinew_realloc(c->v, nc * sizeof *p);
    if (!p) return SINEW_ENOMEM;
    c->v = p;
    c->cap = nc;
  }
  c->v[c->n++] = v;
  return SINEW_OK;
}

/* One component argument: "mesh.vtx[3]", "mesh.vtx[2:7]", "mesh.vtx[*]", or a mesh / its
 * transform (every vertex). The mesh must be the skinCluster's geometry. */
static int parse_component(sinew_cmd_t *cmd, sinew_node_t shape, uint32_t npoints, const char *text, comps *out) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  char name[512], buf[512];
  const char *dot = strchr(text, '.');
  size_t len = dot ? (size_t)(dot - text) : strlen(text);
  if (len >= sizeof name) return sinew_cmd_error(cmd, SINEW_EINVAL, "%s: name too long", text);
  memcpy(name, text, len);
  name[len] = 0;
  sinew_node_t n, s;
  int rc = sinew__cmd_node(cmd, name, &n);
  if (rc) return rc;
  if (!mesh_shape(g, n, &s) || !same(s, shape))
    return sinew_cmd_error(cmd, SINEW_EINVAL, "%s: not the geometry of this skinCluster (%s)", text,
                           label(g, shape, buf, sizeof buf));
  if (!dot) {
    out->all = true;
    return SINEW_OK;
  }
  const char *c = dot + 1;
  if (strncmp(c, "vtx", 3) != 0 || (c[3] && c[3] != '['))
    return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "%s: only vertex components (.vtx[...]) are supported", text);
  c += 3;
  if (!*c || strcmp(c, "[*]") == 0) {
    out->all = true;
    return SINEW_OK;
  }
  char *end;
  long a = strtol(c + 1, &end, 10), b = a;
  if (end == c + 1 || a < 0) return sinew_cmd_error(cmd, SINEW_EINVAL, "%s: bad vertex index", text);
  if (*end == ':') {
    const char *q = end + 1;
    b = strtol(q, &end, 10);
    if (end == q || b < a) return sinew_cmd_error(cmd, SINEW_EINVAL, "%s: bad vertex range", text);
  }
  if (strcmp(end, "]") != 0) return sinew_cmd_error(cmd, SINEW_EINVAL, "%s: bad vertex component", text);
  if ((unsigned long)b >= npoints)
    return sinew_cmd_error(cmd, SINEW_ERANGE, "%s: vertex %ld is out of range (%s has %u vertices)", text, b,
                           label(g, shape, buf, sizeof buf), npoints);
  for (long v = a; v <= b; v++)
    if (comps_push(out, (int32_t)v)) return oom(cmd);
  return SINEW_OK;
}

/* The components of a skinPercent call: its arguments after the skinCluster, or the selected
 * geometry. */
static int percent_components(sinew_cmd_t *cmd, sinew_node_t skin, size_t first, comps *out, uint32_t *npoints) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  char buf[512];
  sinew_node_t shape;
  if (sinew_skin_geometry(g, skin, &shape) != SINEW_OK)
    return sinew_cmd_error(cmd, SINEW_EINVAL, "%s deforms no geometry", label(g, skin, buf, sizeof buf));
  int rc = skin_points(cmd, skin, npoints);
  if (rc) return rc;
  size_t argc = sinew_cmd_argc(cmd);
  if (argc > first) {
    for (size_t i = first; i < argc; i++)
      if ((rc = parse_component(cmd, shape, *npoints, sinew_cmd_arg_string(cmd, i), out))) return rc;
    return SINEW_OK;
  }
  for (uint32_t i = 0; i < s->scene->nsel; i++) {
    sinew_node_t sh;
    if (mesh_shape(g, s->scene->selection[i], &sh) && same(sh, shape)) {
      out->all = true;
      return SINEW_OK;
    }
  }
  return sinew_cmd_error(cmd, SINEW_EINVAL, "give the components (%s.vtx[...]) or select the geometry",
                         label(g, shape, buf, sizeof buf));
}

/* skinPercent -q: -v (every influence's weight), -t inf -v (one influence), -t (names). Over
 * several vertices the weights are averaged. */
static int percent_query(sinew_cmd_t *cmd, sinew_node_t skin, const comps *c, uint32_t npoints,
                         sinew_node_t one) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  bool names = !sinew_cmd_flag_count(cmd, "value");
  double ib = sinew_cmd_flag_count(cmd, "ignoreBelow") ? sinew_cmd_flag_double(cmd, "ignoreBelow", 0, 0) : -1;
  size_t nverts = c->all ? npoints : c->n;
  if (!nverts) return sinew_cmd_error(cmd, SINEW_EINVAL, "no vertices given");
  size_t ninf = sinew_skin_influences(g, skin, NULL, NULL, 0);
  sinew_node_t *inf = sinew_malloc((ninf + 1) * sizeof *inf), *tmpn = sinew_malloc((ninf + 1) * sizeof *tmpn);
  double *sum = sinew_calloc(ninf + 1, sizeof *sum), *tmpw = sinew_malloc((ninf + 1) * sizeof *tmpw);
  int rc = SINEW_OK;
  char buf[512];
  if (!inf || !tmpn || !sum || !tmpw) rc = oom(cmd);
  if (!rc) sinew_skin_influences(g, skin, inf, NULL, ninf);
  for (size_t k = 0; k < nverts && !rc; k++) {
    int32_t v = c->all ? (int32_t)k : c->v[k];
    size_t cnt = 0;
    if ((rc = sinew_skin_get_weights(g, skin, v, -1, tmpn, tmpw, ninf, &cnt))) {
      rc = graph_fail(cmd, rc);
      break;
    }
    for (size_t i = 0; i < cnt && i < ninf; i++) sum[i] += tmpw[i];
  }
  if (!rc && one.gen) {
    double w = 0;
    for (size_t i = 0; i < ninf; i++)
      if (same(inf[i], one)) w = sum[i] / (double)nverts;
    rc = sinew_cmd_result_double(cmd, w > ib ? w : 0);
  } else if (!rc) {
    rc = sinew_cmd_result_empty_array(cmd, names ? SINEW_VALUE_STRING_ARRAY : SINEW_VALUE_FLOAT_ARRAY);
    for (size_t i = 0; i < ninf && !rc; i++) {
      double w = sum[i] / (double)nverts;
      if (!(w > ib)) continue;
      rc = names ? sinew_cmd_result_append_string(cmd, label(g, inf[i], buf, sizeof buf))
                 : sinew_cmd_result_append_double(cmd, w);
    }
  }
  sinew_free(inf);
  sinew_free(tmpn);
  sinew_free(sum);
  sinew_free(tmpw);
  return rc;
}

static int cmd_skin_percent(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  char buf[512];
  int rc;
  if (sinew_cmd_flag_count(cmd, "transformMoveWeights"))
    return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "-transformMoveWeights is not supported");
  bool query = sinew_cmd_query(cmd);
  size_t argc = sinew_cmd_argc(cmd);
  sinew_node_t skin = {0, 0}, one = {0, 0};
  const char *t = query ? sinew_cmd_flag_string(cmd, "transform", NULL) : NULL;
  size_t first = 1;
  if (t) {
    /* "-q -t skinCluster1 ..." (Maya's flag-order form: list the influences): the skinCluster
     * was read as -t's argument */
    sinew_node_t tn;
    if ((rc = sinew__cmd_node(cmd, t, &tn))) return rc;
    if (is_a(g, tn, "skinCluster") && !sinew_cmd_flag_count(cmd, "value")) {
      skin = tn;
      first = 0;
    } else {
      one = tn;
    }
  }
  if (!skin.gen) {
    if (!argc) return sinew_cmd_error(cmd, SINEW_EINVAL, "usage: skinPercent [flags] skinCluster [components...]");
    if ((rc = resolve_skin(cmd, sinew_cmd_arg_string(cmd, 0), &skin))) return rc;
  }
  bool is = true;
  if (one.gen && (rc = influence_of(cmd, skin, one, &is))) return rc;
  if (!is)
    return sinew_cmd_error(cmd, SINEW_ENOTFOUND, "-transform %s: not an influence of %s", t,
                           label(g, skin, buf, sizeof buf));
  comps c = {0};
  uint32_t npoints = 0;
  if ((rc = percent_components(cmd, skin, first, &c, &npoints))) goto done;
  if (query) {
    if (!sinew_cmd_flag_count(cmd, "value") && !t) {
      rc = sinew_cmd_error(cmd, SINEW_EINVAL, "-query needs -value or -transform");
      goto done;
    }
    rc = percent_query(cmd, skin, &c, npoints, one);
    goto done;
  }
  size_t ntv = sinew_cmd_flag_count(cmd, "transformValue");
  bool rtd = sinew_cmd_flag_count(cmd, "resetToDefault") > 0;
  bool prw = sinew_cmd_flag_count(cmd, "pruneWeights") > 0;
  bool nrm_given = sinew_cmd_flag_count(cmd, "normalize") > 0;
  if (sinew_cmd_flag_count(cmd, "value") || sinew_cmd_flag_count(cmd, "transform") ||
      sinew_cmd_flag_count(cmd, "ignoreBelow")) {
    rc = sinew_cmd_error(cmd, SINEW_EINVAL, "-value, -transform and -ignoreBelow go with -query");
    goto done;
  }
  const int32_t *verts = c.all ? NULL : c.v;
  size_t nverts = c.all ? 0 : c.n;
  if (rtd) {
    if (ntv || prw || sinew_cmd_flag_count(cmd, "zeroRemainingInfluences") || sinew_cmd_flag_count(cmd, "relative")) {
      rc = sinew_cmd_error(cmd, SINEW_EINVAL, "-resetToDefault cannot be combined with other edits");
      goto done;
    }
    if ((rc = sinew_skin_reset_weights(g, skin, verts, nverts))) rc = graph_fail(cmd, rc);
    goto done;
  }
  if (!ntv && !prw && !nrm_given) {
    rc = sinew_cmd_error(cmd, SINEW_EINVAL, "nothing to do: give -transformValue, -pruneWeights, -normalize, "
                                            "-resetToDefault or -query");
    goto done;
  }
  sinew_node_t *infl = sinew_malloc((ntv + 1) * sizeof *infl);
  double *vals = sinew_malloc((ntv + 1) * sizeof *vals);
  if (!infl || !vals) rc = oom(cmd);
  for (size_t k = 0; k < ntv && !rc; k++) {
    const char *nm = sinew_value_string(sinew_cmd_flag_arg(cmd, "transformValue", k, 0));
    vals[k] = sinew_value_to_double(sinew_cmd_flag_arg(cmd, "transformValue", k, 1));
    if ((rc = sinew__cmd_node(cmd, nm, &infl[k])) || (rc = influence_of(cmd, skin, infl[k], &is))) break;
    if (!is)
      rc = sinew_cmd_error(cmd, SINEW_ENOTFOUND, "-transformValue %s: not an influence of %s", nm,
                           label(g, skin, buf, sizeof buf));
  }
  if (!rc) {
    sinew_skin_percent_desc_t d;
    sinew_skin_percent_desc_init(&d);
    d.vertices = verts;
    d.vertex_count = nverts;
    d.influences = infl;
    d.values = vals;
    d.count = ntv;
    d.normalize = sinew_cmd_flag_bool(cmd, "normalize", true);
    d.relative = sinew_cmd_flag_bool(cmd, "relative", false);
    d.zero_remaining = sinew_cmd_flag_bool(cmd, "zeroRemainingInfluences", false);
    d.prune = prw;
    d.prune_below = sinew_cmd_flag_double(cmd, "pruneWeights", 0, 0);
    if (!ntv && !prw) { /* -normalize on its own: normalise the vertices */
      d.prune = true;
      d.prune_below = 0;
    }
    if ((rc = sinew_skin_percent(g, skin, &d))) rc = graph_fail(cmd, rc);
  }
  sinew_free(infl);
  sinew_free(vals);
done:
  sinew_free(c.v);
  return rc;
}

/* ---- dagPose ------------------------------------------------------------------------------------- */

static const sinew_cmd_flag_t pose_flags[] = {
    {"query", "q", "", SINEW_CMD_QUERY},
    {"edit", "e", "", SINEW_CMD_EDIT},
    {"save", "s", "", 0},
    {"restore", "r", "", 0},
    {"reset", "rs", "", 0},
    {"addToPose", "a", "", 0},
    {"remove", "rm", "", 0},
    {"bindPose", "bp", "", 0},
    {"name", "n", "s", 0},
    {"members", "m", "", 0},
    {"atPose", "ap", "", 0},
    {"global", "g", "", 0},
    {"selection", "sl", "", 0},
    {"worldParent", "wp", "", 0},
};

/* Transforms and joints below n (n included), parents first. */
static int collect_hierarchy(sinew_graph_t *g, sinew_node_t n, nodes *out) {
  if (!is_a(g, n, "transform")) return SINEW_OK;
  if (nodes_push(out, n, true)) return SINEW_ENOMEM;
  size_t nk = sinew_node_children(g, n, NULL, 0);
  if (!nk) return SINEW_OK;
  sinew_node_t *kids = sinew_malloc(nk * sizeof *kids);
  if (!kids) return SINEW_ENOMEM;
  sinew_node_children(g, n, kids, nk);
  int rc = SINEW_OK;
  for (size_t i = 0; i < nk && !rc; i++) rc = collect_hierarchy(g, kids[i], out);
  sinew_free(kids);
  return rc;
}

static int result_names(sinew_cmd_t *cmd, const sinew_node_t *v, size_t n) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  char buf[512];
  int rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY);
  for (size_t i = 0; i < n && !rc; i++) rc = sinew_cmd_result_append_string(cmd, label(g, v[i], buf, sizeof buf));
  return rc;
}

/* The pose a call acts on: -n, a dagPose among the objects, or (-bp) the bind pose of the
 * objects. */
static int find_pose(sinew_cmd_t *cmd, const nodes *poses, const nodes *objs, sinew_node_t *out) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  char buf[512];
  const char *name = sinew_cmd_flag_string(cmd, "name", NULL);
  int rc;
  if (name) {
    if ((rc = sinew__cmd_node(cmd, name, out))) return rc;
    if (!is_a(g, *out, "dagPose")) return sinew_cmd_error(cmd, SINEW_ETYPE, "-name %s: not a dagPose", name);
    return SINEW_OK;
  }
  if (poses->n > 1) return sinew_cmd_error(cmd, SINEW_EINVAL, "give one pose");
  if (poses->n == 1) {
    *out = poses->v[0];
    return SINEW_OK;
  }
  if (sinew_cmd_flag_count(cmd, "bindPose")) {
    for (size_t i = 0; i < objs->n; i++) {
      rc = bind_pose_of(cmd, objs->v[i], out);
      if (rc != SINEW_ENOTFOUND) return rc;
    }
    if (objs->n)
      return sinew_cmd_error(cmd, SINEW_ENOTFOUND, "%s is in no bind pose", label(g, objs->v[0], buf, sizeof buf));
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-bindPose: give or select a member of the bind pose");
  }
  if (objs->n)
    return sinew_cmd_error(cmd, SINEW_ETYPE, "%s is not a dagPose (give the pose with -name or -bindPose)",
                           label(g, objs->v[0], buf, sizeof buf));
  return sinew_cmd_error(cmd, SINEW_EINVAL, "give the pose (its name, -name or -bindPose)");
}

static int pose_query(sinew_cmd_t *cmd, const nodes *poses, const nodes *objs) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  char buf[512];
  sinew_node_t pose;
  int rc;
  bool bp = sinew_cmd_flag_count(cmd, "bindPose") > 0;
  bool members = sinew_cmd_flag_count(cmd, "members") > 0, at = sinew_cmd_flag_count(cmd, "atPose") > 0;
  if (bp && !members && !at && !sinew_cmd_flag_count(cmd, "name")) {
    if (poses->n == 1 && !objs->n) { /* is this pose a bind pose? */
      sinew_plug_t p;
      bool b = false;
      if (plug_at(g, poses->v[0], "bindPose", &p)) sinew_get_bool(g, &p, &b);
      return sinew_cmd_result_int(cmd, b);
    }
    /* the bind poses of the objects */
    nodes found = {0};
    rc = SINEW_OK;
    for (size_t i = 0; i < objs->n && !rc; i++) {
      int f = bind_pose_of(cmd, objs->v[i], &pose);
      if (f == SINEW_OK && nodes_push(&found, pose, true)) rc = oom(cmd);
      else if (f != SINEW_OK && f != SINEW_ENOTFOUND) rc = f;
    }
    if (!rc) rc = result_names(cmd, found.v, found.n);
    nodes_free(&found);
    return rc;
  }
  /* in query mode -name takes no argument: the pose comes from the objects or -bp */
  if (poses->n == 1) pose = poses->v[0];
  else if (poses->n > 1) return sinew_cmd_error(cmd, SINEW_EINVAL, "give one pose");
  else if ((rc = find_pose(cmd, poses, objs, &pose))) return rc;
  if (members) {
    size_t n = sinew_pose_members(g, pose, NULL, NULL, 0);
    sinew_node_t *v = sinew_malloc((n + 1) * sizeof *v);
    if (!v) return oom(cmd);
    sinew_pose_members(g, pose, v, NULL, n);
    rc = result_names(cmd, v, n);
    sinew_free(v);
    return rc;
  }
  if (at) {
    size_t n = sinew_pose_members(g, pose, NULL, NULL, 0), cnt = 0;
    sinew_node_t *v = sinew_malloc((n + 1) * sizeof *v);
    if (!v) return oom(cmd);
    uint32_t flags = sinew_cmd_flag_count(cmd, "global") ? SINEW_POSE_GLOBAL : 0;
    if ((rc = sinew_pose_not_at_pose(g, pose, flags, 0, v, n, &cnt))) rc = graph_fail(cmd, rc);
    else rc = result_names(cmd, v, cnt < n ? cnt : n);
    sinew_free(v);
    return rc;
  }
  if (sinew_cmd_flag_count(cmd, "name")) return sinew_cmd_result_string(cmd, label(g, pose, buf, sizeof buf));
  return sinew_cmd_error(cmd, SINEW_EINVAL, "-query needs -members, -atPose, -bindPose or -name");
}

static int cmd_dag_pose(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  char buf[512];
  int rc;
  if (sinew_cmd_flag_count(cmd, "worldParent"))
    return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "-worldParent is not supported");
  nodes all = {0}, poses = {0}, objs = {0};
  if ((rc = objects(cmd, 0, &all))) goto done;
  for (size_t i = 0; i < all.n && !rc; i++)
    if (nodes_push(is_a(g, all.v[i], "dagPose") ? &poses : &objs, all.v[i], true)) rc = oom(cmd);
  if (rc) goto done;
  if (sinew_cmd_query(cmd)) {
    rc = pose_query(cmd, &poses, &objs);
    goto done;
  }
  const char *ops[] = {"save", "restore", "reset", "addToPose", "remove"};
  int op = -1;
  for (int i = 0; i < 5; i++)
    if (sinew_cmd_flag_count(cmd, ops[i])) {
      if (op >= 0) {
        rc = sinew_cmd_error(cmd, SINEW_EINVAL, "-%s and -%s cannot be combined", ops[op], ops[i]);
        goto done;
      }
      op = i;
    }
  if (op < 0) {
    rc = sinew_cmd_error(cmd, SINEW_EINVAL, "give -save, -restore, -reset, -addToPose, -remove or -query");
    goto done;
  }
  if (sinew_cmd_flag_count(cmd, "members") || sinew_cmd_flag_count(cmd, "atPose")) {
    rc = sinew_cmd_error(cmd, SINEW_EINVAL, "-members and -atPose go with -query");
    goto done;
  }
  if (sinew_cmd_flag_count(cmd, "global") && op != 1) {
    rc = sinew_cmd_error(cmd, SINEW_EINVAL, "-global goes with -restore");
    goto done;
  }
  for (size_t i = 0; i < objs.n; i++)
    if (!is_a(g, objs.v[i], "transform")) {
      rc = sinew_cmd_error(cmd, SINEW_ETYPE, "%s is not a transform or joint", label(g, objs.v[i], buf, sizeof buf));
      goto done;
    }
  sinew_node_t pose;
  if (op == 0) { /* -save */
    if (poses.n) {
      rc = sinew_cmd_error(cmd, SINEW_EINVAL, "%s already is a dagPose; -save makes a new one from transforms",
                           label(g, poses.v[0], buf, sizeof buf));
      goto done;
    }
    if (!objs.n) {
      rc = sinew_cmd_error(cmd, SINEW_EINVAL, "-save: give or select the transforms or joints to save");
      goto done;
    }
    nodes members = {0};
    bool *global = NULL;
    bool sel = sinew_cmd_flag_count(cmd, "selection") > 0;
    for (size_t i = 0; i < objs.n && !rc; i++) {
      if (sel) {
        if (nodes_push(&members, objs.v[i], true)) rc = oom(cmd);
      } else if (collect_hierarchy(g, objs.v[i], &members)) {
        rc = oom(cmd);
      }
    }
    size_t nsel = members.n;
    /* -selection: the parents of the items are saved too, restored only in global mode */
    for (size_t i = 0; sel && i < nsel && !rc; i++)
      for (sinew_node_t p = sinew_node_parent(g, members.v[i]); sinew_node_valid(g, p) && is_a(g, p, "transform");
           p = sinew_node_parent(g, p))
        if (nodes_push(&members, p, true)) rc = oom(cmd);
    if (!rc && !(global = sinew_calloc(members.n + 1, sizeof *global))) rc = oom(cmd);
    for (size_t i = nsel; i < members.n && !rc; i++) global[i] = true;
    if (!rc) {
      sinew_pose_save_desc_t d = {.nodes = members.v,
                                  .count = members.n,
                                  .global = sel ? global : NULL,
                                  .name = sinew_cmd_flag_string(cmd, "name", NULL),
                                  .bind_pose = sinew_cmd_flag_count(cmd, "bindPose") > 0};
      /* the pose it will be: a bind pose that holds one of the nodes is extended */
      char predicted[512];
      sinew_node_t existing = {0, 0};
      for (size_t i = 0; d.bind_pose && i < members.n && !existing.gen && !rc; i++) {
        int f = bind_pose_of(cmd, members.v[i], &existing);
        if (f != SINEW_OK && f != SINEW_ENOTFOUND) rc = f;
      }
      if (existing.gen) label(g, existing, predicted, sizeof predicted);
      else predict_name(g, d.name, d.bind_pose ? "bindPose" : "dagPose", predicted, sizeof predicted);
      if (!rc) rc = sinew_cmd_result_string(cmd, predicted);
      /* an existing bind pose's members, to take back the ones that join if the command fails
       * after the save */
      sinew_node_t *before = NULL;
      size_t nbefore = 0;
      if (!rc && existing.gen) {
        nbefore = sinew_pose_members(g, existing, NULL, NULL, 0);
        if (!(before = sinew_calloc(nbefore + 1, sizeof *before))) rc = oom(cmd);
        else sinew_pose_members(g, existing, before, NULL, nbefore);
      }
      if (!rc && (rc = sinew_pose_save(g, &d, &pose))) {
        rc = graph_fail(cmd, rc);
      } else if (!rc && (rc = result_is(cmd, pose, predicted, false))) { /* out of memory: undo, best effort */
        if (!existing.gen) {
          sinew_node_delete(g, pose);
        } else {
          for (size_t i = 0; i < members.n; i++) {
            bool was = false;
            for (size_t k = 0; k < nbefore && !was; k++) was = same(before[k], members.v[i]);
            if (!was) sinew_pose_remove(g, pose, &members.v[i], 1);
          }
        }
      }
      sinew_free(before);
    }
    sinew_free(global);
    nodes_free(&members);
    goto done;
  }
  if ((rc = find_pose(cmd, &poses, &objs, &pose)) ||
      (rc = sinew_cmd_result_string(cmd, label(g, pose, buf, sizeof buf))))
    goto done;
  switch (op) {
    case 1:
      rc = sinew_pose_restore(g, pose, sinew_cmd_flag_count(cmd, "global") ? SINEW_POSE_GLOBAL : 0);
      break;
    case 2: rc = sinew_pose_reset(g, pose); break;
    case 3:
    case 4:
      if (!objs.n) {
        rc = sinew_cmd_error(cmd, SINEW_EINVAL, "-%s: give or select the transforms or joints", ops[op]);
        goto done;
      }
      rc = op == 3 ? sinew_pose_add(g, pose, objs.v, objs.n) : sinew_pose_remove(g, pose, objs.v, objs.n);
      break;
  }
  if (rc) rc = graph_fail(cmd, rc);
done:
  nodes_free(&all);
  nodes_free(&poses);
  nodes_free(&objs);
  return rc;
}

/* ---- registration ------------------------------------------------------------------------------- */

int sinew__register_skin_cmds(sinew_lang_t *L, sinew_session_t *s) {
  const sinew_cmd_desc_t cmds[] = {
      {"skinCluster", cmd_skin_cluster, skin_flags, COUNT(skin_flags), false, s},
      {"skinPercent", cmd_skin_percent, percent_flags, COUNT(percent_flags), false, s},
      {"dagPose", cmd_dag_pose, pose_flags, COUNT(pose_flags), false, s},
  };
  for (size_t i = 0; i < COUNT(cmds); i++) {
    int rc = sinew_lang_register_command(L, &cmds[i]);
    if (rc) return rc;
  }
  return SINEW_OK;
}
