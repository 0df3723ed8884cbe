/* cmds/cmd_deform.c: the blendShape and cluster commands (docs/deformers.md), and how a new
 * deformer joins a mesh's deformer chain as Maya builds it:
 *
 *   a mesh with no deformer yet gets an intermediate "<shape>Orig" mesh holding its input (the
 *   creation node's output, or its stored points with its pnts tweaks), as skinCluster does;
 *   the deformer then sits behind a groupParts (inputComponents: the points it deforms) and a
 *   groupId, with an objectSet "<deformer>Set" that records it (usedBy, groupNodes):
 *     upstream -> <def>GroupParts.ig ; <def>GroupParts.og -> <def>.ip[0].ig ;
 *     <def>GroupId.id -> <def>GroupParts.gi, <def>.ip[0].gi ; <def>.og[0] -> downstream
 *   By default the deformer goes last (upstream: what fed the shape; downstream: the shape's
 *   inMesh); -frontOfChain puts it first (upstream: the Orig; downstream: what the Orig fed).
 *   The Orig's output also feeds <def>.originalGeometry[0] (as skinCluster's): a live
 *   blendShape target is measured from the undeformed shape wherever the blendShape sits.
 *
 * Commands run inside the session's journal transaction: a command that fails part way is
 * rolled back whole, so these functions check their arguments first and then simply make the
 * changes. Maya's tweak node is not created (no offsets: it would change nothing). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds_internal.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static bool is_a(sinew_graph_t *g, sinew_node_t n, const char *type) {
  const sinew_node_type_t *t = sinew_node_type(g, n);
  return t && sinew_node_type_is_a(t, type);
}

static int graph_fail(sinew_cmd_t *cmd, int rc) { return sinew__graph_error(cmd, rc); }

bool sinew__mesh_shape(sinew_graph_t *g, sinew_node_t n, sinew_node_t *out) {
  if (is_a(g, n, "mesh")) {
    *out = n;
    return true;
  }
  if (!is_a(g, n, "transform")) return false;
  size_t nk = sinew_node_children(g, n, NULL, 0);
  sinew_node_t kids[64];
  if (nk > COUNT(kids)) nk = COUNT(kids);
  nk = sinew_node_children(g, n, kids, nk);
  for (size_t i = 0; i < nk && i < COUNT(kids); i++) {
    if (!is_a(g, kids[i], "mesh")) continue;
    sinew_plug_t io = sinew__attr_plug(g, kids[i], "intermediateObject");
    bool b = false;
    if (io.node.gen) sinew_get_bool(g, &io, &b);
    if (!b) {
      *out = kids[i];
      return true;
    }
  }
  return false;
}

static sinew_plug_t at(sinew_graph_t *g, sinew_node_t n, const char *path) {
  sinew_plug_t p = {0};
  sinew_plug_parse_attr(g, n, path, &p);
  return p;
}

static int conn(sinew_graph_t *g, sinew_node_t a, const char *pa, sinew_node_t b, const char *pb, uint32_t flags) {
  sinew_plug_t s, d;
  int rc = sinew_plug_parse_attr(g, a, pa, &s);
  if (!rc) rc = sinew_plug_parse_attr(g, b, pb, &d);
  if (!rc) rc = sinew_connect(g, &s, &d, flags, NULL);
  return rc;
}

static uint32_t point_count(sinew_graph_t *g, sinew_node_t shape) {
  sinew_plug_t o = at(g, shape, "outMesh");
  sinew_data_t *d = NULL;
  uint32_t n = 0;
  if (sinew_get_data(g, &o, &d) == SINEW_OK && d && sinew_mesh_get(d)) n = sinew_mesh_get(d)->npoints;
  sinew_data_unref(d);
  return n;
}

/* The plug that feeds the input of a deformer-chain node (a geometryFilter's input[k]
 * .inputGeometry for its outputGeometry[k], a groupParts' inputGeometry); false for any other
 * node (the chain's start). */
static bool chain_input(sinew_graph_t *g, const sinew_plug_t *out, sinew_plug_t *in) {
  if (is_a(g, out->node, "geometryFilter")) {
    char path[64];
    snprintf(path, sizeof path, "input[%d].inputGeometry", out->nidx ? out->idx[0] : 0);
    return sinew_plug_parse_attr(g, out->node, path, in) == SINEW_OK;
  }
  if (is_a(g, out->node, "groupParts")) return sinew_plug_parse_attr(g, out->node, "inputGeometry", in) == SINEW_OK;
  return false;
}

/* Where a deformer goes on shape: *up is the plug that will feed it, *down the plug it will
 * feed, *start the chain's first plug (the Orig's output; invalid when none); *needs_orig when
 * the shape has no deformer yet (an Orig must be made first). */
static void chain_ends(sinew_graph_t *g, sinew_node_t shape, bool front, sinew_plug_t *up, sinew_plug_t *down,
                       sinew_plug_t *start, bool *needs_orig, bool *has_up) {
  sinew_plug_t in = at(g, shape, "inMesh"), src, next;
  *down = in;
  *start = (sinew_plug_t){0};
  *has_up = sinew_plug_source(g, &in, &src);
  *needs_orig = !*has_up || !chain_input(g, &src, &next);
  if (*has_up) *up = src;
  if (*needs_orig) return;
  /* walk up to the first node of the chain */
  sinew_plug_t dst = in;
  for (int guard = 0; guard < 10000; guard++) {
    if (!sinew_plug_source(g, &dst, &src)) break; /* a chain node with nothing upstream */
    if (!chain_input(g, &src, &next)) {
      *start = src;
      if (front) *up = src, *down = dst;
      return;
    }
    dst = next;
  }
  if (front) *has_up = sinew_plug_source(g, &dst, up), *down = dst;
}

/* Makes "<shape>Orig" under the shape's transform, holding the shape's input: the creation
 * node's output (the shape's pnts tweaks move onto the Orig) or the shape's points. */
static int make_orig(sinew_cmd_t *cmd, sinew_node_t shape, bool has_src, const sinew_plug_t *src, sinew_node_t *out) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  char name[300], buf[300];
  snprintf(name, sizeof name, "%sOrig", sinew_node_name(g, shape));
  int rc = sinew_node_create_under(g, "mesh", sinew__unique_name(g, name, buf, sizeof buf), sinew_node_parent(g, shape), out);
  sinew_plug_t io = at(g, *out, "intermediateObject");
  if (!rc) rc = sinew_set_bool(g, &io, true);
  sinew_plug_t pnts = at(g, shape, "pnts");
  size_t n = rc ? 0 : sinew_plug_indices(g, &pnts, NULL, 0);
  if (has_src) {
    sinew_plug_t in = at(g, *out, "inMesh");
    if (!rc) rc = sinew_connect(g, src, &in, 0, NULL);
    /* the tweaks go to the Orig (under it, the deformers see them) */
    int32_t *idx = n ? sinew_malloc(n * sizeof *idx) : NULL;
    if (n && !idx) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    if (n) n = sinew_plug_indices(g, &pnts, idx, n);
    sinew_plug_t opnts = at(g, *out, "pnts");
    for (size_t i = 0; i < n && !rc; i++) {
      sinew_plug_t e, oe;
      double v[3] = {0, 0, 0};
      const double zero[3] = {0, 0, 0};
      sinew_plug_element(g, &pnts, idx[i], &e);
      sinew_plug_element(g, &opnts, idx[i], &oe);
      rc = sinew_get_doubles(g, &e, v, 3, NULL);
      if (!rc) rc = sinew_set_doubles(g, &oe, v, 3);
      if (!rc) rc = sinew_set_doubles(g, &e, zero, 3);
    }
    sinew_free(idx);
  } else if (!rc) {
    /* the stored geometry with its tweaks, which then leave the shape */
    sinew_plug_t o = at(g, shape, "outMesh");
    sinew_data_t *d = NULL;
    rc = sinew_get_data(g, &o, &d);
    if (!rc) rc = sinew_mesh_node_set(g, *out, d);
    sinew_data_unref(d);
    int32_t *idx = n ? sinew_malloc(n * sizeof *idx) : NULL;
    if (n && !idx) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    if (n) n = sinew_plug_indices(g, &pnts, idx, n);
    for (size_t i = 0; i < n && !rc; i++) {
      sinew_plug_t e;
      const double zero[3] = {0, 0, 0};
      sinew_plug_element(g, &pnts, idx[i], &e);
      rc = sinew_set_doubles(g, &e, zero, 3);
    }
    sinew_free(idx);
  }
  return rc ? graph_fail(cmd, rc) : SINEW_OK;
}

int sinew__deformer_insert(sinew_cmd_t *cmd, sinew_node_t def, sinew_node_t shape, bool front,
                           const sinew_data_t *components) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  sinew_plug_t up = {0}, down, start;
  bool needs_orig, has_up;
  chain_ends(g, shape, front, &up, &down, &start, &needs_orig, &has_up);
  int rc = SINEW_OK;
  if (needs_orig) {
    sinew_node_t orig;
    if ((rc = make_orig(cmd, shape, has_up, &up, &orig))) return rc;
    up = at(g, orig, "worldMesh[0]");
    start = at(g, orig, "outMesh");
    down = at(g, shape, "inMesh");
  } else if (!has_up) {
    return sinew_cmd_error(cmd, SINEW_EINVAL, "%s: its deformer chain has no input", sinew_node_name(g, shape));
  }
  const char *dn = sinew_node_name(g, def);
  char name[300], buf[300];
  sinew_node_t gid, gp, set;
  snprintf(name, sizeof name, "%sGroupId", dn);
  rc = sinew_node_create(g, "groupId", sinew__unique_name(g, name, buf, sizeof buf), &gid);
  snprintf(name, sizeof name, "%sGroupParts", dn);
  if (!rc) rc = sinew_node_create(g, "groupParts", sinew__unique_name(g, name, buf, sizeof buf), &gp);
  snprintf(name, sizeof name, "%sSet", dn);
  if (!rc) rc = sinew_node_create(g, "objectSet", sinew__unique_name(g, name, buf, sizeof buf), &set);
  if (rc) return graph_fail(cmd, rc);
  sinew_data_t *all = NULL;
  if (!components) {
    const char *star = "vtx[*]";
    if ((rc = sinew_component_list_create(&star, 1, &all))) return sinew_cmd_error(cmd, rc, "out of memory");
    components = all;
  }
  sinew_plug_t ic = at(g, gp, "inputComponents"), gpi = at(g, gp, "inputGeometry");
  rc = sinew_set_data(g, &ic, (sinew_data_t *)components);
  sinew_data_unref(all);
  /* the new links first, then the deformer's output replaces what fed `down` */
  if (!rc) rc = sinew_connect(g, &up, &gpi, 0, NULL);
  if (!rc) rc = conn(g, gid, "groupId", gp, "groupId", 0);
  if (!rc) rc = conn(g, gid, "groupId", def, "input[0].groupId", 0);
  if (!rc) rc = conn(g, gp, "outputGeometry", def, "input[0].inputGeometry", 0);
  sinew_plug_t og = at(g, def, "outputGeometry[0]");
  if (!rc) rc = sinew_connect(g, &og, &down, SINEW_CONNECT_FORCE, NULL);
  /* the geometry before any deformer: what live blendShape targets are measured from */
  sinew_plug_t org = at(g, def, "originalGeometry[0]");
  if (!rc && start.node.gen) rc = sinew_connect(g, &start, &org, 0, NULL);
  if (!rc) rc = conn(g, def, "message", set, "usedBy[0]", 0);
  if (!rc) rc = conn(g, gid, "message", set, "groupNodes[0]", 0);
  return rc ? graph_fail(cmd, rc) : SINEW_OK;
}

/* The shape a deformer's output geometry[k] reaches: follows outputGeometry downstream through
 * groupParts and deformers to a mesh's inMesh. */
static bool deformed_shape(sinew_graph_t *g, sinew_node_t def, int32_t k, sinew_node_t *out) {
  char path[64];
  snprintf(path, sizeof path, "outputGeometry[%d]", k);
  sinew_plug_t p = at(g, def, path);
  for (int guard = 0; guard < 10000 && p.node.gen; guard++) {
    sinew_plug_t d[4];
    size_t n = sinew_plug_destinations(g, &p, d, 4);
    if (!n) return false;
    if (is_a(g, d[0].node, "mesh")) {
      *out = d[0].node;
      return true;
    }
    if (is_a(g, d[0].node, "groupParts")) p = at(g, d[0].node, "outputGeometry");
    else if (is_a(g, d[0].node, "geometryFilter")) {
      snprintf(path, sizeof path, "outputGeometry[%d]", d[0].nidx ? d[0].idx[0] : 0);
      p = at(g, d[0].node, path);
    } else return false;
  }
  return false;
}

/* ---- blendShape --------------------------------------------------------------------------------- */

static const sinew_cmd_flag_t bs_flags[] = {
    {"query", "q", "", SINEW_CMD_QUERY},
    {"edit", "e", "", SINEW_CMD_EDIT},
    {"name", "n", "s", 0},
    {"frontOfChain", "foc", "", 0},
    {"origin", "o", "s", 0},
    {"topologyCheck", "tc", "b", 0},
    {"weight", "w", "if", SINEW_CMD_MULTI},
    {"target", "t", "sisf", SINEW_CMD_MULTI},
    {"inBetween", "ib", "", 0},
    {"envelope", "en", "f", 0},
    {"geometry", "g", "s", 0},
    {"weightCount", "wc", "i", 0},
    /* recognised so that they fail with a clear message */
    {"before", "bf", "", 0},
    {"after", "af", "", 0},
    {"parallel", "par", "", 0},
    {"remove", "rm", "", 0},
    {"split", "sp", "", 0},
    {"inBetweenType", "ibt", "s", 0},
};

/* One target item to connect: shape -> it[0].itg[index].iti[item].igt. */
typedef struct bs_tgt {
  sinew_node_t shape;
  int32_t index, item;
} bs_tgt;

static int item_of(sinew_cmd_t *cmd, double w, int32_t *out) {
  double i = 5000 + 1000 * w;
  if (!(w != 0 && fabs(w) <= 4.999 && isfinite(w)))
    return sinew_cmd_error(cmd, SINEW_ERANGE, "-target weight %g: must be non-zero and within -4.999..4.999", w);
  *out = (int32_t)lround(i);
  if (*out == 5000) return sinew_cmd_error(cmd, SINEW_ERANGE, "-target weight %g rounds to 0", w);
  return SINEW_OK;
}

/* A target mesh, checked against the base's point count when topologyCheck is on. */
static int target_shape(sinew_cmd_t *cmd, const char *name, uint32_t npoints, bool tc, sinew_node_t *out) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  sinew_node_t n;
  int rc = sinew__cmd_node(cmd, name, &n);
  if (rc) return rc;
  if (!sinew__mesh_shape(g, n, out)) return sinew_cmd_error(cmd, SINEW_ETYPE, "target %s is not a mesh", name);
  uint32_t tn = point_count(g, *out);
  if (tc && tn != npoints)
    return sinew_cmd_error(cmd, SINEW_EINVAL, "target %s has %u points, the base %u (topologyCheck is on)", name, tn,
                           npoints);
  return SINEW_OK;
}

/* As Maya, a target's weight is aliased to the target's name (its transform's, without its
 * namespace): bs.smile is bs.weight[0]. The full target (item 6000) names it, else the first item given; a name the
 * node already uses (an attribute, or another weight's alias: two targets called alike) is
 * left out, and the weight keeps only its own name (**choice**: Maya's renaming is not
 * documented). */
static int bs_alias_weight(sinew_graph_t *g, const sinew_plug_t *w, const bs_tgt *t) {
  const char *have = sinew_plug_alias(g, w);
  if (have && t->item != 6000) return SINEW_OK;
  sinew_node_t x = sinew_node_parent(g, t->shape);
  const char *name = sinew_node_name(g, x.gen ? x : t->shape);
  const char *colon = name ? strrchr(name, ':') : NULL;
  if (colon) name = colon + 1; /* "ns:smile" names the weight "smile" */
  sinew_plug_t other;
  if (!name || sinew_node_attr(g, w->node, name) != UINT32_MAX ||
      (sinew_alias_find(g, w->node, name, &other) == SINEW_OK && !sinew_plug_equal(&other, w)))
    return SINEW_OK;
  int rc = sinew_alias_set(g, w, name);
  return rc == SINEW_EINVAL ? SINEW_OK : rc; /* a name that is no attribute name (a namespace) */
}

static int bs_connect_targets(sinew_cmd_t *cmd, sinew_node_t bs, const bs_tgt *t, size_t n) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  int rc = SINEW_OK;
  for (size_t i = 0; i < n && !rc; i++) {
    char path[128];
    snprintf(path, sizeof path, "inputTarget[0].inputTargetGroup[%d].inputTargetItem[%d].inputGeomTarget",
             t[i].index, t[i].item);
    rc = conn(g, t[i].shape, "worldMesh[0]", bs, path, SINEW_CONNECT_FORCE);
    /* the weight element exists (0) so that queries and files list it */
    snprintf(path, sizeof path, "weight[%d]", t[i].index);
    sinew_plug_t w = at(g, bs, path);
    if (!rc && !sinew_plug_has_value(g, &w) && !sinew_plug_source(g, &w, NULL)) rc = sinew_set_double(g, &w, 0);
    if (!rc) rc = bs_alias_weight(g, &w, &t[i]);
  }
  return rc ? graph_fail(cmd, rc) : SINEW_OK;
}

/* Reads every -target flag (base index target weight) into t (n of them), checked. */
static int bs_target_flags(sinew_cmd_t *cmd, sinew_node_t base_shape, uint32_t npoints, bool tc, bs_tgt *t) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  size_t n = sinew_cmd_flag_count(cmd, "target");
  for (size_t i = 0; i < n; i++) {
    const char *b = sinew_value_string(sinew_cmd_flag_arg(cmd, "target", i, 0));
    const char *tn = sinew_value_string(sinew_cmd_flag_arg(cmd, "target", i, 2));
    double idx = sinew_value_to_double(sinew_cmd_flag_arg(cmd, "target", i, 1));
    double w = sinew_value_to_double(sinew_cmd_flag_arg(cmd, "target", i, 3));
    sinew_node_t bn, bsh;
    int rc = sinew__cmd_node(cmd, b ? b : "", &bn);
    if (rc) return rc;
    if (!sinew__mesh_shape(g, bn, &bsh) || bsh.index != base_shape.index || bsh.gen != base_shape.gen)
      return sinew_cmd_error(cmd, SINEW_EINVAL, "-target %s: not the deformed geometry %s", b,
                             sinew_node_name(g, base_shape));
    if (!(idx >= 0 && idx < 1e6)) return sinew_cmd_error(cmd, SINEW_ERANGE, "-target index %g: must be 0 or more", idx);
    t[i].index = (int32_t)idx;
    if ((rc = item_of(cmd, w, &t[i].item))) return rc;
    if ((rc = target_shape(cmd, tn ? tn : "", npoints, tc, &t[i].shape))) return rc;
  }
  return SINEW_OK;
}

static int bs_set_weights(sinew_cmd_t *cmd, sinew_node_t bs) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  size_t n = sinew_cmd_flag_count(cmd, "weight");
  for (size_t i = 0; i < n; i++) {
    double idx = sinew_value_to_double(sinew_cmd_flag_arg(cmd, "weight", i, 0));
    double w = sinew_value_to_double(sinew_cmd_flag_arg(cmd, "weight", i, 1));
    if (!(idx >= 0 && idx < 1e6)) return sinew_cmd_error(cmd, SINEW_ERANGE, "-weight index %g: must be 0 or more", idx);
    char path[64];
    snprintf(path, sizeof path, "weight[%d]", (int)idx);
    sinew_plug_t p = at(g, bs, path);
    int rc = sinew_set_double(g, &p, w);
    if (rc) return graph_fail(cmd, rc);
  }
  if (sinew_cmd_flag_count(cmd, "envelope")) {
    sinew_plug_t p = at(g, bs, "envelope");
    int rc = sinew_set_double(g, &p, sinew_cmd_flag_double(cmd, "envelope", 0, 1));
    if (rc) return graph_fail(cmd, rc);
  }
  return SINEW_OK;
}

static int bs_node(sinew_cmd_t *cmd, sinew_node_t *out) {
  sinew_session_t *s = sinew__session(cmd);
  if (sinew_cmd_argc(cmd) > 0) {
    int rc = sinew__cmd_node(cmd, sinew_cmd_arg_string(cmd, 0), out);
    if (rc) return rc;
  } else if (s->scene->nsel > 0) {
    *out = s->scene->selection[0];
  } else {
    return sinew_cmd_error(cmd, SINEW_EINVAL, "no blendShape named or selected");
  }
  if (!is_a(sinew_cmd_graph(cmd), *out, "blendShape"))
    return sinew_cmd_error(cmd, SINEW_ETYPE, "%s is not a blendShape", sinew_node_name(sinew_cmd_graph(cmd), *out));
  return SINEW_OK;
}

static int bs_query(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  sinew_node_t bs;
  int rc = bs_node(cmd, &bs);
  if (rc) return rc;
  char buf[512];
  if (sinew_cmd_flag_count(cmd, "target") || sinew_cmd_flag_count(cmd, "geometry")) {
    bool geo = sinew_cmd_flag_count(cmd, "geometry") > 0;
    if ((rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY))) return rc;
    if (geo) {
      sinew_node_t sh;
      if (deformed_shape(g, bs, 0, &sh)) rc = sinew_cmd_result_append_string(cmd, sinew__node_label(g, sh, buf, sizeof buf));
      return rc;
    }
    /* the live target meshes, by target index, then item (in-betweens before the full one) */
    sinew_plug_t itg = at(g, bs, "inputTarget[0].inputTargetGroup");
    size_t nt = itg.node.gen ? sinew_plug_indices(g, &itg, NULL, 0) : 0;
    int32_t *ti = nt ? sinew_malloc(nt * sizeof *ti) : NULL;
    if (nt && !ti) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    if (nt) nt = sinew_plug_indices(g, &itg, ti, nt);
    for (size_t i = 0; i < nt && !rc; i++) {
      char path[128];
      snprintf(path, sizeof path, "inputTarget[0].inputTargetGroup[%d].inputTargetItem", ti[i]);
      sinew_plug_t iti = at(g, bs, path);
      int32_t items[64];
      size_t ni = sinew_plug_indices(g, &iti, items, 64);
      for (size_t j = 0; j < ni && j < 64 && !rc; j++) {
        snprintf(path, sizeof path, "inputTarget[0].inputTargetGroup[%d].inputTargetItem[%d].inputGeomTarget", ti[i],
                 items[j]);
        sinew_plug_t igt = at(g, bs, path), src;
        if (!sinew_plug_source(g, &igt, &src)) continue;
        sinew_node_t x = sinew_node_parent(g, src.node);
        rc = sinew_cmd_result_append_string(cmd, sinew__node_label(g, x.gen ? x : src.node, buf, sizeof buf));
      }
    }
    sinew_free(ti);
    return rc;
  }
  if (sinew_cmd_flag_count(cmd, "weight")) {
    sinew_plug_t w = at(g, bs, "weight");
    size_t n = sinew_plug_indices(g, &w, NULL, 0);
    int32_t *ix = n ? sinew_malloc(n * sizeof *ix) : NULL;
    if (n && !ix) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    if (n) n = sinew_plug_indices(g, &w, ix, n);
    rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_FLOAT_ARRAY);
    for (size_t i = 0; i < n && !rc; i++) {
      sinew_plug_t e;
      double v = 0;
      sinew_plug_element(g, &w, ix[i], &e);
      if ((rc = sinew_get_double(g, &e, &v))) rc = graph_fail(cmd, rc);
      else rc = sinew_cmd_result_append_double(cmd, v);
    }
    sinew_free(ix);
    return rc;
  }
  if (sinew_cmd_flag_count(cmd, "envelope") || sinew_cmd_flag_count(cmd, "weightCount") ||
      sinew_cmd_flag_count(cmd, "topologyCheck")) {
    const char *attr = sinew_cmd_flag_count(cmd, "envelope") ? "envelope" : sinew_cmd_flag_count(cmd, "topologyCheck") ? "topologyCheck" : NULL;
    if (!attr) {
      sinew_plug_t w = at(g, bs, "weight");
      return sinew_cmd_result_int(cmd, (int64_t)sinew_plug_indices(g, &w, NULL, 0));
    }
    sinew_plug_t p = at(g, bs, attr);
    double v = 0;
    if ((rc = sinew_get_double(g, &p, &v))) return graph_fail(cmd, rc);
    return attr[0] == 't' ? sinew_cmd_result_int(cmd, (int64_t)v) : sinew_cmd_result_double(cmd, v);
  }
  return sinew_cmd_error(cmd, SINEW_EINVAL, "-query needs one of -t -w -g -en -wc -tc");
}

static int bs_edit(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  sinew_node_t bs, shape;
  int rc = bs_node(cmd, &bs);
  if (rc) return rc;
  if (sinew_cmd_flag_count(cmd, "name") || sinew_cmd_flag_count(cmd, "frontOfChain") || sinew_cmd_flag_count(cmd, "inBetween"))
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-name, -frontOfChain and -inBetween are create flags");
  size_t nt = sinew_cmd_flag_count(cmd, "target");
  bs_tgt *t = NULL;
  if (nt) {
    if (!deformed_shape(g, bs, 0, &shape))
      return sinew_cmd_error(cmd, SINEW_EINVAL, "%s deforms no mesh: -target needs its geometry", sinew_node_name(g, bs));
    if (!(t = sinew_malloc(nt * sizeof *t))) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    sinew_plug_t tcp = at(g, bs, "topologyCheck");
    bool tc = true;
    sinew_get_bool(g, &tcp, &tc);
    rc = bs_target_flags(cmd, shape, point_count(g, shape), tc, t);
  }
  if (!rc && nt) rc = bs_connect_targets(cmd, bs, t, nt);
  sinew_free(t);
  if (!rc) rc = bs_set_weights(cmd, bs);
  if (!rc && nt && (rc = sinew_blend_shape_wire_world(g, bs))) rc = graph_fail(cmd, rc);
  return rc;
}

static int bs_create(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  sinew_session_t *s = sinew__session(cmd);
  /* the objects: targets..., base (or the selection) */
  size_t argc = sinew_cmd_argc(cmd), nobj = argc ? argc : s->scene->nsel;
  if (!nobj) return sinew_cmd_error(cmd, SINEW_EINVAL, "usage: blendShape [flags] [targets...] base (or select them)");
  sinew_node_t *obj = sinew_malloc(nobj * sizeof *obj);
  size_t nt = sinew_cmd_flag_count(cmd, "target");
  bs_tgt *t = sinew_malloc((nobj + nt) * sizeof *t);
  int rc = obj && t ? SINEW_OK : sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  for (size_t i = 0; i < nobj && !rc; i++) {
    if (argc) rc = sinew__cmd_node(cmd, sinew_cmd_arg_string(cmd, i), &obj[i]);
    else obj[i] = s->scene->selection[i];
  }
  sinew_node_t shape = {0};
  char buf[512];
  if (!rc && !sinew__mesh_shape(g, obj[nobj - 1], &shape))
    rc = sinew_cmd_error(cmd, SINEW_ETYPE, "the base %s is not a mesh (give it last)",
                         sinew__node_label(g, obj[nobj - 1], buf, sizeof buf));
  bool tc = sinew_cmd_flag_bool(cmd, "topologyCheck", true), ib = sinew_cmd_flag_count(cmd, "inBetween") > 0;
  const char *origin = sinew_cmd_flag_string(cmd, "origin", "local");
  if (!rc && strcmp(origin, "local") != 0 && strcmp(origin, "world") != 0)
    rc = sinew_cmd_error(cmd, SINEW_EINVAL, "-origin %s: must be local or world", origin);
  uint32_t np = rc ? 0 : point_count(g, shape);
  size_t n = 0, npos = nobj - 1;
  for (size_t i = 0; i < npos && !rc; i++, n++) {
    if ((rc = target_shape(cmd, sinew__node_label(g, obj[i], buf, sizeof buf), np, tc, &t[n].shape))) break;
    t[n].index = ib ? 0 : (int32_t)i;
    t[n].item = ib ? 5000 + (int32_t)lround(1000.0 * (double)(i + 1) / (double)npos) : 6000;
  }
  if (!rc && nt) rc = bs_target_flags(cmd, shape, np, tc, t + n);
  n += nt;
  /* every argument checked: make the node and wire it */
  sinew_node_t bs = {0};
  const char *want = sinew_cmd_flag_string(cmd, "name", NULL);
  if (!rc && (rc = sinew_node_create(g, "blendShape", want && *want ? sinew__unique_name(g, want, buf, sizeof buf) : "blendShape#", &bs)))
    rc = graph_fail(cmd, rc);
  if (!rc) rc = sinew__deformer_insert(cmd, bs, shape, sinew_cmd_flag_count(cmd, "frontOfChain") > 0, NULL);
  if (!rc && n) rc = bs_connect_targets(cmd, bs, t, n);
  if (!rc && (strcmp(origin, "world") == 0 || !tc)) {
    sinew_plug_t o = at(g, bs, "origin"), tcp = at(g, bs, "topologyCheck");
    if ((rc = sinew_set_double(g, &o, strcmp(origin, "world") == 0 ? 0 : 1)) || (rc = sinew_set_bool(g, &tcp, tc)))
      rc = graph_fail(cmd, rc);
  }
  if (!rc) rc = bs_set_weights(cmd, bs);
  if (!rc && (rc = sinew_blend_shape_wire_world(g, bs))) rc = graph_fail(cmd, rc);
  if (!rc && !(rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY)))
    rc = sinew_cmd_result_append_string(cmd, sinew__node_label(g, bs, buf, sizeof buf));
  sinew_free(obj);
  sinew_free(t);
  return rc;
}

bool sinew__blend_shape_any(sinew_session_t *s) {
  return sinew_node_list_type(s->scene->graph, "blendShape", false, NULL, 0) > 0;
}

void sinew__blend_shape_wire_all(sinew_session_t *s) {
  sinew_graph_t *g = s->scene->graph;
  size_t n = sinew_node_list_type(g, "blendShape", false, NULL, 0);
  sinew_node_t *bs = n ? sinew_malloc(n * sizeof *bs) : NULL;
  if (!bs) return;
  n = sinew_node_list_type(g, "blendShape", false, bs, n);
  for (size_t i = 0; i < n; i++) {
    if (sinew_blend_shape_wire_world(g, bs[i]) == SINEW_OK) continue;
    char key[300];
    snprintf(key, sizeof key, "blendShape:%s", sinew_node_name(g, bs[i]));
    sinew__warn_once(s, NULL, SINEW_LOG_FILE_WARNING, key, "%s; its targets are blended as origin local",
                     sinew_graph_errmsg(g));
  }
  sinew_free(bs);
}

static int cmd_blend_shape(sinew_cmd_t *cmd) {
  static const char *const unsupported[] = {"before", "after", "parallel", "remove", "split", "inBetweenType"};
  const char *refused = sinew__cmd_given_flag(cmd, unsupported, COUNT(unsupported));
  if (refused) return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "-%s is not supported", refused);
  if (sinew_cmd_query(cmd)) return bs_query(cmd);
  if (sinew_cmd_edit(cmd)) return bs_edit(cmd);
  return bs_create(cmd);
}


/* ---- cluster ------------------------------------------------------------------------------------- */

static const sinew_cmd_flag_t cluster_flags[] = {
    {"name", "n", "s", 0},
    {"relative", "rel", "", 0},
    {"envelope", "en", "f", 0},
    {"frontOfChain", "foc", "", 0},
    {"weightedNode", "wn", "ss", 0},
    {"bindState", "bs", "b", 0},
    {"geometry", "g", "", 0},
    {"edit", "e", "", SINEW_CMD_EDIT},
    {"query", "q", "", SINEW_CMD_QUERY},
    /* recognised so that they fail with a clear message */
    {"after", "af", "", 0},
    {"afterReference", "ar", "", 0},
    {"before", "bf", "", 0},
    {"parallel", "par", "", 0},
    {"split", "sp", "", 0},
    {"exclusive", "ex", "s", 0},
    {"remove", "rm", "", 0},
    {"prune", "pr", "", 0},
    {"resetGeometry", "rg", "", 0},
    {"geometryIndices", "gi", "", 0},
    {"ignoreSelected", "is", "", 0},
    {"includeHiddenSelections", "ihs", "b", 0},
    {"deformerTools", "dt", "", 0},
};

/* One object of the cluster command: "mesh", "meshShape", "mesh.vtx[3]", "mesh.vtx[0:5]",
 * "mesh.vtx[*]": its shape, and its vertex item ("vtx[...]") or NULL for the whole mesh. */
static int cluster_object(sinew_cmd_t *cmd, const char *text, sinew_node_t *shape, const char **item) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  char name[512];
  const char *dot = strrchr(text, '.');
  *item = NULL;
  size_t len = strlen(text);
  if (dot && strncmp(dot + 1, "vtx[", 4) == 0) {
    len = (size_t)(dot - text);
    *item = dot + 1;
  } else if (dot && strchr(dot, '[')) {
    return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "%s: only vertices (.vtx[]) can be clustered", text);
  }
  if (len >= sizeof name) return sinew_cmd_error(cmd, SINEW_EINVAL, "a name too long");
  memcpy(name, text, len);
  name[len] = 0;
  sinew_node_t n;
  int rc = sinew__cmd_node(cmd, name, &n);
  if (rc) return rc;
  if (!sinew__mesh_shape(g, n, shape)) return sinew_cmd_error(cmd, SINEW_ETYPE, "%s is not a mesh", name);
  if (*item) {
    sinew_data_t *d = NULL;
    if (sinew_component_list_create(item, 1, &d)) return sinew_cmd_error(cmd, SINEW_EINVAL, "%s: a malformed component", text);
    sinew_data_unref(d);
  }
  return SINEW_OK;
}

/* The cluster named (or selected) for -edit and -query. */
static int cluster_node(sinew_cmd_t *cmd, sinew_node_t *out) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  int rc = SINEW_OK;
  if (sinew_cmd_argc(cmd) > 0) rc = sinew__cmd_node(cmd, sinew_cmd_arg_string(cmd, 0), out);
  else if (s->scene->nsel > 0) *out = s->scene->selection[0];
  else return sinew_cmd_error(cmd, SINEW_EINVAL, "no cluster named or selected");
  if (!rc && !is_a(g, *out, "cluster"))
    rc = sinew_cmd_error(cmd, SINEW_ETYPE, "%s is not a cluster", sinew_node_name(g, *out));
  return rc;
}

/* cluster -q -en | -rel | -wn | -g | -bs cluster1 */
static int cluster_query(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  sinew_node_t cl;
  int rc = cluster_node(cmd, &cl);
  if (rc) return rc;
  char buf[512];
  if (sinew_cmd_flag_count(cmd, "envelope") || sinew_cmd_flag_count(cmd, "relative")) {
    bool en = sinew_cmd_flag_count(cmd, "envelope") > 0;
    sinew_plug_t p = at(g, cl, en ? "envelope" : "relative");
    double v = 0;
    if ((rc = sinew_get_double(g, &p, &v))) return graph_fail(cmd, rc);
    return en ? sinew_cmd_result_double(cmd, v) : sinew_cmd_result_int(cmd, v != 0);
  }
  if (sinew_cmd_flag_count(cmd, "weightedNode")) {
    /* the transform whose world matrix drives it: its handle's, or the -wn node's */
    sinew_plug_t m = at(g, cl, "matrix"), src;
    if ((rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY))) return rc;
    if (!sinew_plug_source(g, &m, &src)) return SINEW_OK;
    sinew__node_label(g, src.node, buf, sizeof buf);
    if (!(rc = sinew_cmd_result_append_string(cmd, buf))) rc = sinew_cmd_result_append_string(cmd, buf);
    return rc;
  }
  if (sinew_cmd_flag_count(cmd, "geometry")) {
    if ((rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY))) return rc;
    sinew_node_t sh;
    if (deformed_shape(g, cl, 0, &sh)) rc = sinew_cmd_result_append_string(cmd, sinew__node_label(g, sh, buf, sizeof buf));
    return rc;
  }
  return sinew_cmd_error(cmd, SINEW_EINVAL, "-query needs one of -en -rel -wn -g");
}

/* cluster -e [-en e] [-rel] cluster1 */
static int cluster_edit(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  sinew_node_t cl;
  int rc = cluster_node(cmd, &cl);
  if (rc) return rc;
  if (sinew_cmd_flag_count(cmd, "weightedNode") || sinew_cmd_flag_count(cmd, "bindState") ||
      sinew_cmd_flag_count(cmd, "name") || sinew_cmd_flag_count(cmd, "frontOfChain"))
    return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "-edit takes -envelope and -relative (-name, -frontOfChain, -weightedNode and -bindState are create flags here)");
  if (sinew_cmd_flag_count(cmd, "envelope")) {
    sinew_plug_t en = at(g, cl, "envelope");
    if ((rc = sinew_set_double(g, &en, sinew_cmd_flag_double(cmd, "envelope", 0, 1)))) return graph_fail(cmd, rc);
  }
  if (sinew_cmd_flag_count(cmd, "relative")) {
    sinew_plug_t rel = at(g, cl, "relative");
    if ((rc = sinew_set_bool(g, &rel, true))) return graph_fail(cmd, rc);
  }
  return SINEW_OK;
}

/* -wn A B: A is the weighted node (a transform whose own transformation the weights scale in
 * relative mode), B the transform, A itself or below it, whose world matrix drives the cluster
 * (Maya: "from where the transformation matrix is evaluated"). No handle is made. */
static int weighted_nodes(sinew_cmd_t *cmd, sinew_node_t *a, sinew_node_t *b) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  const char *an = sinew_value_string(sinew_cmd_flag_arg(cmd, "weightedNode", 0, 0));
  const char *bn = sinew_value_string(sinew_cmd_flag_arg(cmd, "weightedNode", 0, 1));
  int rc = sinew__cmd_node(cmd, an ? an : "", a);
  if (!rc) rc = sinew__cmd_node(cmd, bn ? bn : "", b);
  if (rc) return rc;
  char buf[512];
  for (int i = 0; i < 2; i++) {
    sinew_node_t x = i ? *b : *a;
    if (!is_a(g, x, "transform"))
      return sinew_cmd_error(cmd, SINEW_ETYPE, "-weightedNode: %s is not a transform", sinew__node_label(g, x, buf, sizeof buf));
  }
  for (sinew_node_t x = *b; x.gen; x = sinew_node_parent(g, x))
    if (x.index == a->index && x.gen == a->gen) return SINEW_OK;
  return sinew_cmd_error(cmd, SINEW_EINVAL, "-weightedNode %s %s: the second must be the first or below it", an, bn);
}

static int cmd_cluster(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  sinew_session_t *s = sinew__session(cmd);
  static const char *const unsupported[] = {"after", "afterReference", "before", "parallel", "split", "exclusive",
                                            "remove", "prune", "resetGeometry", "geometryIndices", "ignoreSelected",
                                            "includeHiddenSelections", "deformerTools"};
  const char *refused = sinew__cmd_given_flag(cmd, unsupported, COUNT(unsupported));
  if (refused) return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "-%s is not supported", refused);
  if (sinew_cmd_query(cmd)) return cluster_query(cmd);
  if (sinew_cmd_edit(cmd)) return cluster_edit(cmd);
  if (sinew_cmd_flag_count(cmd, "geometry")) return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "-geometry is a query flag here");
  bool wn = sinew_cmd_flag_count(cmd, "weightedNode") > 0, bind = sinew_cmd_flag_bool(cmd, "bindState", false);
  bool rel = sinew_cmd_flag_count(cmd, "relative") > 0;
  if (bind && rel)
    return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "-bindState with -relative is not supported (Maya's compensation matrices are not modelled)");
  sinew_node_t wa = {0}, wb = {0};
  if (wn) {
    int rc = weighted_nodes(cmd, &wa, &wb);
    if (rc) return rc;
  }
  size_t argc = sinew_cmd_argc(cmd), nobj = argc ? argc : s->scene->nsel;
  if (!nobj) return sinew_cmd_error(cmd, SINEW_EINVAL, "usage: cluster [flags] objects or vertices (or select them)");
  const char **items = sinew_malloc(nobj * sizeof *items);
  if (!items) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  sinew_node_t shape = {0};
  bool whole = false;
  size_t nitems = 0;
  int rc = SINEW_OK;
  char buf[512];
  for (size_t i = 0; i < nobj && !rc; i++) {
    sinew_node_t sh;
    const char *item;
    const char *text = argc ? sinew_cmd_arg_string(cmd, i) : sinew__node_label(g, s->scene->selection[i], buf, sizeof buf);
    if ((rc = cluster_object(cmd, text, &sh, &item))) break;
    if (shape.gen && (sh.index != shape.index || sh.gen != shape.gen))
      rc = sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "%s: a cluster over several meshes is not supported", text);
    shape = sh;
    if (item) items[nitems++] = item;
    else whole = true;
  }
  sinew_data_t *comps = NULL;
  if (!rc && !whole && (rc = sinew_component_list_create(items, nitems, &comps)))
    rc = sinew_cmd_error(cmd, rc, "out of memory");
  /* the centre of the points it deforms, in world space: the handle's pivot */
  sinew_mat4_t W;
  double c[3] = {0, 0, 0};
  if (!rc && (rc = sinew_dag_world_matrix(g, shape, &W))) rc = graph_fail(cmd, rc);
  if (!rc) {
    sinew_plug_t o = at(g, shape, "outMesh");
    sinew_data_t *d = NULL;
    sinew_get_data(g, &o, &d);
    const sinew_mesh_t *m = d ? sinew_mesh_get(d) : NULL;
    const int32_t *r = NULL;
    size_t nr = comps ? sinew_component_list_vertices(comps, &r, NULL) : 0;
    size_t cnt = 0;
    for (uint32_t v = 0; m && v < m->npoints; v++) {
      bool in = !comps;
      for (size_t j = 0; j < nr && !in; j++) in = (int32_t)v >= r[2 * j] && (int32_t)v <= r[2 * j + 1];
      if (!in) continue;
      sinew_vec3_t p = {m->points[3 * v], m->points[3 * v + 1], m->points[3 * v + 2]}, q;
      sinew_mat4_transform_point(p, &W, &q);
      c[0] += q.x, c[1] += q.y, c[2] += q.z;
      cnt++;
    }
    sinew_data_unref(d);
    if (!cnt) rc = sinew_cmd_error(cmd, SINEW_EINVAL, "no points of %s to cluster", sinew_node_name(g, shape));
    for (int k = 0; k < 3 && cnt; k++) c[k] /= (double)cnt;
  }
  /* every argument checked: the nodes */
  sinew_node_t cl = {0}, hx = {0}, hs = {0};
  const char *want = sinew_cmd_flag_string(cmd, "name", NULL);
  if (!rc && (rc = sinew_node_create(g, "cluster", want && *want ? sinew__unique_name(g, want, buf, sizeof buf) : "cluster#", &cl)))
    rc = graph_fail(cmd, rc);
  char name[300];
  if (!rc && wn) {
    /* the weighted node drives it: B's world matrix; in relative mode A's own transformation
     * in the frame above A. -bindState on: bindPreMatrix undoes B's world matrix of now, so
     * the points stay where they are (off, Maya's default: they take B's transformation). */
    sinew_plug_t gm = at(g, cl, "geomMatrix[0]"), relp = at(g, cl, "relative"), bpm = at(g, cl, "bindPreMatrix");
    sinew_mat4_t B, Binv;
    if ((rc = sinew_set_matrix(g, &gm, &W)) || (rc = conn(g, wb, "worldMatrix[0]", cl, "matrix", 0)) ||
        (rc = conn(g, wa, "parentMatrix[0]", cl, "preMatrix", 0)) || (rc = conn(g, wa, "matrix", cl, "weightedMatrix", 0)) ||
        (rel && (rc = sinew_set_bool(g, &relp, true))))
      rc = graph_fail(cmd, rc);
    if (!rc && bind) {
      if ((rc = sinew_dag_world_matrix(g, wb, &B))) rc = graph_fail(cmd, rc);
      else if (!sinew_mat4_inverse(&B, &Binv))
        rc = sinew_cmd_error(cmd, SINEW_EINVAL, "-bindState: the world matrix of %s cannot be inverted", sinew_node_name(g, wb));
      else if ((rc = sinew_set_matrix(g, &bpm, &Binv))) rc = graph_fail(cmd, rc);
    }
    hx = wa;
  }
  if (!rc && !wn) {
    snprintf(name, sizeof name, "%sHandle", sinew_node_name(g, cl));
    if ((rc = sinew_node_create(g, "transform", sinew__unique_name(g, name, buf, sizeof buf), &hx))) rc = graph_fail(cmd, rc);
  }
  if (!rc && !wn) {
    snprintf(name, sizeof name, "%sShape", sinew_node_name(g, hx));
    if ((rc = sinew_node_create_under(g, "clusterHandle", sinew__unique_name(g, name, buf, sizeof buf), hx, &hs)))
      rc = graph_fail(cmd, rc);
  }
  if (!rc && !wn) {
    sinew_plug_t rp = at(g, hx, "rotatePivot"), sp = at(g, hx, "scalePivot"), org = at(g, hs, "origin");
    sinew_plug_t gm = at(g, cl, "geomMatrix[0]"), relp = at(g, cl, "relative");
    if ((rc = sinew_set_doubles(g, &rp, c, 3)) || (rc = sinew_set_doubles(g, &sp, c, 3)) ||
        (rc = sinew_set_doubles(g, &org, c, 3)) || (rc = sinew_set_matrix(g, &gm, &W)) ||
        (rc = conn(g, hx, "worldMatrix[0]", cl, "matrix", 0)) ||
        (rc = conn(g, hs, "clusterTransforms", cl, "clusterXforms", 0)) ||
        (rel && (rc = sinew_set_bool(g, &relp, true))))
      rc = graph_fail(cmd, rc);
  }
  if (!rc && sinew_cmd_flag_count(cmd, "envelope")) {
    sinew_plug_t en = at(g, cl, "envelope");
    if ((rc = sinew_set_double(g, &en, sinew_cmd_flag_double(cmd, "envelope", 0, 1)))) rc = graph_fail(cmd, rc);
  }
  if (!rc) rc = sinew__deformer_insert(cmd, cl, shape, sinew_cmd_flag_count(cmd, "frontOfChain") > 0, comps);
  if (!rc && !(rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY)) &&
      !(rc = sinew_cmd_result_append_string(cmd, sinew__node_label(g, cl, buf, sizeof buf))))
    rc = sinew_cmd_result_append_string(cmd, sinew__node_label(g, hx, buf, sizeof buf));
  sinew_data_unref(comps);
  sinew_free(items);
  return rc;
}

/* ---- registration ------------------------------------------------------------------------------- */

int sinew__register_deform_cmds(sinew_lang_t *L, sinew_session_t *s) {
  const sinew_cmd_desc_t cmds[] = {
      {"blendShape", cmd_blend_shape, bs_flags, COUNT(bs_flags), false, s},
      {"cluster", cmd_cluster, cluster_flags, COUNT(cluster_flags), false, s},
  };
  for (size_t i = 0; i < COUNT(cmds); i++) {
    int rc = sinew_lang_register_command(L, &cmds[i]);
    if (rc) return rc;
  }
  return SINEW_OK;
}
