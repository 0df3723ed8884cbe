/* cmds/cmd_duplicate.c: duplicate, the command rig scripts use to make an IK or FK chain from a
 * bind chain (`duplicate -rr -n ik_shoulder shoulder`) and to copy control shapes.
 *
 * Each named node is copied with its DAG subtree (-parentOnly: the node alone) under the same
 * parent: its type, its dynamic attributes, every value that was set, the values and
 * connections a file gave it that sinew keeps as text, plug locks and -k / -cb states, node
 * locks, and the connections between the copied nodes (Maya's duplicate keeps a joint chain's
 * scale -> inverseScale links). Inputs from other nodes are copied with -inputConnections, and
 * a root's inputs from its DAG parent (which the copy shares) always, as parenting a joint under
 * a joint connects parent.scale -> inverseScale. Outputs to other nodes are not copied, as in
 * Maya.
 *
 * Names, as Maya: the copy of a root gets the first name free in the whole scene counting up
 * from the original's trailing number (joint1 -> joint2, or joint4 when joint2 and joint3 are
 * taken; ctrl -> ctrl1), or -name; the nodes below keep their names (they are under a new
 * parent), or with -renameChildren get scene-unique names the same way. The result lists the
 * roots and then the nodes below (-returnRootsOnly: the roots), each as its shortest unique
 * name; the roots end up selected.
 *
 * All or nothing: everything is checked first, and when a later step fails (out of memory,
 * a connection the graph refuses) the nodes made so far are deleted, which takes their values,
 * connections and kept text with them. Reaches the graph only through the public API. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds_internal.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

typedef struct dup_ctx {
  sinew_session_t *s;
  sinew__scene *sc;
  sinew_graph_t *g;
  sinew_cmd_t *cmd;
  sinew_node_t *src, *dst; /* source -> copy, roots first in each subtree, parents before children */
  bool *root;
  uint32_t n, cap_src, cap_dst, cap_root;
  uint32_t raw_conns_before;
} dup_ctx;

static bool same_node(sinew_node_t a, sinew_node_t b) { return a.index == b.index && a.gen == b.gen; }

/* The copy of node n, or the zero handle when n is not copied. */
static sinew_node_t copy_of(const dup_ctx *d, sinew_node_t n) {
  for (uint32_t i = 0; i < d->n; i++)
    if (same_node(d->src[i], n)) return d->dst[i];
  return (sinew_node_t){0, 0};
}

static bool is_root(const dup_ctx *d, sinew_node_t n) {
  for (uint32_t i = 0; i < d->n; i++)
    if (same_node(d->src[i], n)) return d->root[i];
  return false;
}

static int add_source(dup_ctx *d, sinew_node_t n, bool is_root) {
  for (uint32_t i = 0; i < d->n; i++)
    if (same_node(d->src[i], n)) return SINEW_OK; /* listed twice, or below another root */
  if (sinew__grow((void **)&d->src, &d->cap_src, d->n + 1, sizeof *d->src) ||
      sinew__grow((void **)&d->dst, &d->cap_dst, d->n + 1, sizeof *d->dst) ||
      sinew__grow((void **)&d->root, &d->cap_root, d->n + 1, sizeof *d->root))
    return SINEW_ENOMEM;
  d->src[d->n] = n;
  d->dst[d->n] = (sinew_node_t){0, 0};
  d->root[d->n] = is_root;
  d->n++;
  return SINEW_OK;
}

/* ---- what is copied ---------------------------------------------------------------------------- */

/* Adds a dynamic attribute (top level) with its children, described as the source has them. */
static int copy_dyn_attr(dup_ctx *d, sinew_node_t from, sinew_node_t to, uint32_t top) {
  sinew_attr_desc_t descs[64];
  uint32_t ids[64], n = 0;
  ids[n++] = top;
  for (uint32_t i = 0; i < n; i++) { /* breadth-first: each compound before its children */
    sinew_attr_info_t info;
    if (sinew_node_attr_info(d->g, from, ids[i], &info)) return SINEW_EINVAL;
    for (uint32_t c = 0; c < info.child_count; c++) {
      if (n == COUNT(ids)) return sinew_cmd_error(d->cmd, SINEW_ERANGE, "%s.%s: more than %zu attributes in one compound",
                                                  sinew_node_name(d->g, from), info.name, COUNT(ids));
      ids[n++] = info.children[c];
    }
  }
  for (uint32_t i = 0; i < n; i++) {
    sinew_attr_info_t info, pinfo;
    sinew_node_attr_info(d->g, from, ids[i], &info);
    descs[i] = (sinew_attr_desc_t){.name = info.name,
                                   .short_name = info.short_name,
                                   .type = info.type,
                                   .flags = info.flags & ~(uint32_t)SINEW_ATTR_DYNAMIC,
                                   .default_value = info.default_value,
                                   .enum_fields = info.enum_fields,
                                   .has_min = info.has_min,
                                   .has_max = info.has_max,
                                   .min_value = info.min_value,
                                   .max_value = info.max_value,
                                   .data_type = info.data_type};
    if (!descs[i].flags) descs[i].flags = SINEW_ATTR_READABLE; /* 0 would mean "input" */
    if (info.parent != UINT32_MAX && !sinew_node_attr_info(d->g, from, info.parent, &pinfo))
      descs[i].parent = pinfo.name;
  }
  int rc = sinew_node_add_attr(d->g, to, descs, n);
  return rc ? sinew__graph_error(d->cmd, rc) : SINEW_OK;
}

/* Plug p of a copied node, on its copy `to`. Dynamic attributes are found by name: a source
 * that lost a dynamic attribute keeps its number unused, so the numbers can differ. */
static bool plug_in_copy(sinew_graph_t *g, const sinew_plug_t *p, sinew_node_t to, sinew_plug_t *out) {
  sinew_attr_info_t info;
  if (sinew_node_attr_info(g, p->node, p->attr, &info)) return false;
  *out = *p;
  out->node = to;
  if (info.flags & SINEW_ATTR_DYNAMIC) out->attr = sinew_node_attr(g, to, info.name);
  return out->attr != UINT32_MAX;
}

/* Copies one plug's own state to dp: its value (a leaf that was set) or its lock. */
typedef int (*copy_fn)(dup_ctx *d, const sinew_plug_t *sp, const sinew_attr_info_t *info, const sinew_plug_t *dp);

static int copy_value(dup_ctx *d, const sinew_plug_t *sp, const sinew_attr_info_t *info, const sinew_plug_t *dp) {
  sinew_graph_t *g = d->g;
  int rc = SINEW_OK;
  if (sinew_plug_is_array(g, sp) || info->type == SINEW_ATTR_COMPOUND || !(info->flags & SINEW_ATTR_WRITABLE) ||
      !sinew_plug_has_value(g, sp))
    return SINEW_OK;
  switch (info->type) {
  case SINEW_ATTR_MATRIX: {
    sinew_mat4_t m;
    if (!(rc = sinew_get_matrix(g, sp, &m))) rc = sinew_set_matrix(g, dp, &m);
    break;
  }
  case SINEW_ATTR_STRING: {
    const char *v;
    if (!(rc = sinew_get_string(g, sp, &v))) {
      char *copy = sinew__cmds_strdup(v ? v : ""); /* v is the graph's until the next change */
      rc = copy ? sinew_set_string(g, dp, copy) : SINEW_ENOMEM;
      sinew_free(copy);
    }
    break;
  }
  case SINEW_ATTR_DATA: {
    sinew_data_t *v = NULL;
    if (!(rc = sinew_get_data(g, sp, &v))) rc = sinew_set_data(g, dp, v); /* shared, copy-on-write */
    sinew_data_unref(v);
    break;
  }
  case SINEW_ATTR_MESSAGE:
  case SINEW_ATTR_INVALID:
  case SINEW_ATTR_TYPE_MAX:
    break;
  default: {
    double v;
    if (!(rc = sinew_get_double(g, sp, &v))) rc = sinew_set_double(g, dp, v);
    break;
  }
  }
  if (rc == SINEW_ENOMEM) return sinew_cmd_error(d->cmd, rc, "out of memory");
  return rc ? sinew__graph_error(d->cmd, rc) : SINEW_OK;
}

/* Plug locks, set after the connections (a locked plug refuses a connection). */
static int copy_lock(dup_ctx *d, const sinew_plug_t *sp, const sinew_attr_info_t *info, const sinew_plug_t *dp) {
  (void)info;
  int rc = SINEW_OK;
  if (sinew_plug_locked(d->g, sp) && (rc = sinew_plug_set_locked(d->g, dp, true))) rc = sinew__graph_error(d->cmd, rc);
  return rc;
}

/* Applies fn to plug sp and everything inside it (array elements, compound children), children
 * first, each with the same plug of the copy `to`. values: skip plugs with no value set below. */
static int copy_plugs(dup_ctx *d, const sinew_plug_t *sp, sinew_node_t to, copy_fn fn, bool values) {
  sinew_graph_t *g = d->g;
  if (values && !sinew_plug_has_value(g, sp)) return SINEW_OK;
  sinew_attr_info_t info;
  sinew_plug_t dp;
  if (sinew_node_attr_info(g, sp->node, sp->attr, &info) || !plug_in_copy(g, sp, to, &dp)) return SINEW_OK;
  int rc = SINEW_OK;
  if (sinew_plug_is_array(g, sp)) {
    size_t n = sinew_plug_indices(g, sp, NULL, 0);
    int32_t *idx = n ? sinew_malloc(n * sizeof *idx) : NULL;
    if (n && !idx) return sinew_cmd_error(d->cmd, SINEW_ENOMEM, "out of memory");
    sinew_plug_indices(g, sp, idx, n);
    for (size_t i = 0; i < n && !rc; i++) {
      sinew_plug_t e;
      if (!sinew_plug_element(g, sp, idx[i], &e)) rc = copy_plugs(d, &e, to, fn, values);
    }
    sinew_free(idx);
  } else {
    for (uint32_t c = 0; c < info.child_count && !rc; c++) {
      sinew_plug_t k;
      if (!sinew_plug_child(g, sp, info.children[c], &k)) rc = copy_plugs(d, &k, to, fn, values);
    }
  }
  return rc ? rc : fn(d, sp, &info, &dp);
}

/* What the session keeps for the node beyond the graph: values and -k / -cb states kept as
 * text, addAttr -dataType names, attributes made to hold a file's connections, geometry lines. */
static int copy_extra_records(dup_ctx *d, sinew__extra *e, sinew_node_t from, sinew_node_t to);
static int copy_extra(dup_ctx *d, sinew_node_t from, sinew_node_t to) {
  sinew__extra *e = sinew__extra_get(d->sc, from, false);
  if (!e) return SINEW_OK;
  /* everything below is the new node's own record: undoing the duplicate detaches the node, and
   * the record waits with it (cmds/undo.c), so it is no change the undo queue must refuse */
  uint64_t gen = d->sc->side_gen;
  int rc = copy_extra_records(d, e, from, to);
  d->sc->side_gen = gen;
  return rc;
}

static int copy_extra_records(dup_ctx *d, sinew__extra *e, sinew_node_t from, sinew_node_t to) {
  sinew__extra *x = sinew__extra_get(d->sc, to, true);
  if (!x) return SINEW_ENOMEM;
  for (uint32_t i = 0; i < e->nraws; i++)
    if (sinew__extra_add_raw(d->sc, to, e->raws[i].attr, e->raws[i].text)) return SINEW_ENOMEM;
  for (uint32_t i = 0; i < e->nimplicit; i++)
    if (sinew__extra_mark_implicit(d->sc, to, e->implicit[i])) return SINEW_ENOMEM;
  for (uint32_t i = 0; i < e->ndyn; i++) {
    if (sinew__grow((void **)&x->dyn_types, &x->cdyn, x->ndyn + 1, sizeof *x->dyn_types)) return SINEW_ENOMEM;
    if (!(x->dyn_types[x->ndyn] = sinew__cmds_strdup(e->dyn_types[i]))) return SINEW_ENOMEM;
    x->ndyn++;
  }
  for (uint32_t i = 0; i < e->ngeom; i++) {
    if (sinew__grow((void **)&x->geom, &x->cgeom, x->ngeom + 1, sizeof *x->geom)) return SINEW_ENOMEM;
    sinew__raw r = {sinew__cmds_strdup(e->geom[i].attr), sinew__cmds_strdup(e->geom[i].text)};
    if (!r.attr || !r.text) {
      sinew_free(r.attr);
      sinew_free(r.text);
      return SINEW_ENOMEM;
    }
    x->geom[x->ngeom++] = r;
  }
  x->geom_topology = e->geom_topology; /* the copy shares the topology block, so the lines still describe it */
  for (const struct sinew__plug_state *st = e->states; st; st = st->hh.next) {
    if (!sinew__plug_state_live(d->g, from, st)) continue;
    sinew_plug_t p;
    if (sinew_plug_parse_attr(d->g, to, st->attr, &p)) continue;
    struct sinew__plug_state *ns = sinew__plug_state(d->sc, &p, true, NULL);
    if (!ns) return SINEW_ENOMEM;
    ns->keyable = st->keyable;
    ns->channel_box = st->channel_box;
    if (st->keyable >= 0) sinew_plug_set_keyable(d->g, &p, st->keyable != 0);
    if (st->channel_box >= 0) sinew_plug_set_channel_box(d->g, &p, st->channel_box != 0);
  }
  return SINEW_OK;
}

typedef struct conn_list {
  sinew_connection_t *v;
  uint32_t n, cap;
  bool oom;
} conn_list;

static bool collect_conn(void *ud, const sinew_connection_t *c) {
  conn_list *l = ud;
  if (sinew__grow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v)) {
    l->oom = true;
    return false;
  }
  l->v[l->n++] = *c;
  return true;
}

/* The connections into the copied nodes: from another copied node (always) or from outside
 * (-inputConnections), each made again between the copies. */
static int copy_connections(dup_ctx *d, bool inputs) {
  conn_list l = {0};
  for (uint32_t i = 0; i < d->n && !l.oom; i++) sinew_foreach_connection(d->g, d->src[i], false, collect_conn, &l);
  int rc = l.oom ? sinew_cmd_error(d->cmd, SINEW_ENOMEM, "out of memory") : SINEW_OK;
  for (uint32_t i = 0; i < l.n && !rc; i++) {
    sinew_connection_t c = l.v[i];
    sinew_node_t dst = copy_of(d, c.dst.node), src = copy_of(d, c.src.node);
    if (!dst.gen) continue; /* an output to a node not copied */
    /* sinew's own wiring (an IK handle's): a copied handle is joined to its chain afresh */
    if (sinew__own_plug(d->g, &c.src) || sinew__own_plug(d->g, &c.dst)) continue;
    /* an input from outside: with -ic, or from the DAG parent the copy shares (a joint's
     * parent.scale -> inverseScale, made again as parenting a joint makes it) */
    if (!src.gen && !inputs && !(is_root(d, c.dst.node) && same_node(sinew_node_parent(d->g, c.dst.node), c.src.node)))
      continue;
    bool twice = false; /* a connection between two copied nodes is listed by both */
    for (uint32_t k = 0; k < i && !twice; k++)
      twice = sinew_plug_equal(&l.v[k].src, &c.src) && sinew_plug_equal(&l.v[k].dst, &c.dst);
    if (twice) continue;
    sinew_plug_t s = c.src, t;
    if ((src.gen && !plug_in_copy(d->g, &c.src, src, &s)) || !plug_in_copy(d->g, &c.dst, dst, &t)) continue;
    if ((rc = sinew_connect(d->g, &s, &t, 0, NULL))) rc = sinew__graph_error(d->cmd, rc);
  }
  sinew_free(l.v);
  /* connections a file made that sinew keeps as text */
  uint32_t nraw = d->sc->nraw_conns;
  for (uint32_t i = 0; i < nraw && !rc; i++) {
    sinew__raw_conn c = d->sc->raw_conns[i];
    sinew_node_t dst = copy_of(d, c.dst), src = copy_of(d, c.src);
    if (!dst.gen || (!src.gen && !inputs)) continue;
    sinew__raw_conn r = {src.gen ? src : c.src, dst, sinew__cmds_strdup(c.src_attr), sinew__cmds_strdup(c.dst_attr)};
    if (!r.src_attr || !r.dst_attr ||
        sinew__grow((void **)&d->sc->raw_conns, &d->sc->craw_conns, d->sc->nraw_conns + 1, sizeof *d->sc->raw_conns)) {
      sinew_free(r.src_attr);
      sinew_free(r.dst_attr);
      rc = sinew_cmd_error(d->cmd, SINEW_ENOMEM, "out of memory");
      break;
    }
    d->sc->raw_conns[d->sc->nraw_conns++] = r;
    sinew__side_changed(d->sc);
  }
  return rc;
}

/* ---- the command ------------------------------------------------------------------------------- */

static const sinew_cmd_flag_t dup_flags[] = {
    {"name", "n", "s", 0},           {"parentOnly", "po", "", 0},     {"returnRootsOnly", "rr", "", 0},
    {"renameChildren", "rc", "", 0}, {"inputConnections", "ic", "", 0}, {"upstreamNodes", "un", "", 0},
    {"instanceLeaf", "ilf", "", 0},  {"smartTransform", "st", "", 0},  {"transformsOnly", "to", "", 0},
    {"fullPath", "f", "", 0}};

/* Takes back what a failed duplicate added beside the graph: the raw connections made for the
 * copies (the copies themselves go with the command's transaction). */
static void undo_dup(dup_ctx *d) {
  for (uint32_t i = d->raw_conns_before; i < d->sc->nraw_conns; i++) {
    sinew_free(d->sc->raw_conns[i].src_attr);
    sinew_free(d->sc->raw_conns[i].dst_attr);
  }
  d->sc->nraw_conns = d->raw_conns_before;
}

static int cmd_duplicate(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  dup_ctx d = {.s = s, .sc = s->scene, .g = sinew_cmd_graph(cmd), .cmd = cmd};
  sinew_graph_t *g = d.g;
  static const char *const refused[][2] = {
      {"upstreamNodes", "copies the nodes upstream of the objects; sinew copies the objects and, with -ic, their input connections"},
      {"instanceLeaf", "makes instances; sinew has no instancing"},
      {"smartTransform", "repeats the previous duplicate's move; sinew keeps no such history"}};
  for (size_t i = 0; i < COUNT(refused); i++)
    if (sinew_cmd_flag_count(cmd, refused[i][0]))
      return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "-%s is not supported (it %s)", refused[i][0], refused[i][1]);
  int rc = sinew__finish_current(s);
  if (rc) return sinew__graph_error(cmd, rc);
  bool parent_only = sinew_cmd_flag_count(cmd, "parentOnly") > 0;
  bool transforms_only = sinew_cmd_flag_count(cmd, "transformsOnly") > 0;
  bool rename_children = sinew_cmd_flag_count(cmd, "renameChildren") > 0;
  bool full_path = sinew_cmd_flag_count(cmd, "fullPath") > 0;
  const char *want_name = sinew_cmd_flag_string(cmd, "name", NULL);
  size_t argc = sinew_cmd_argc(cmd), count = argc ? argc : d.sc->nsel;
  if (!count) return sinew_cmd_error(cmd, SINEW_EINVAL, "nothing to duplicate (no names and nothing selected)");
  /* the roots, then (breadth-first) what is below each */
  for (size_t i = 0; i < count && !rc; i++) {
    sinew_node_t n;
    if (argc) rc = sinew__cmd_node(cmd, sinew_cmd_arg_string(cmd, i), &n);
    else if (!sinew_node_valid(g, (n = d.sc->selection[i]))) continue;
    if (rc) break;
    sinew__extra *e = sinew__extra_get(d.sc, n, false);
    sinew_node_t t;
    if ((e && e->is_default) || (!sinew_time_node(g, &t) && same_node(t, n)))
      rc = sinew_cmd_error(cmd, SINEW_EINVAL, "%s is a default node and cannot be duplicated", sinew_node_name(g, n));
    else if (add_source(&d, n, true))
      rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  }
  if (!rc && !d.n) rc = sinew_cmd_error(cmd, SINEW_EINVAL, "nothing to duplicate (the selected nodes are gone)");
  /* a root below another root is copied with that one's subtree, not twice */
  for (uint32_t i = 0; i < d.n && !rc; i++) {
    for (sinew_node_t p = sinew_node_parent(g, d.src[i]); sinew_node_valid(g, p); p = sinew_node_parent(g, p))
      for (uint32_t k = 0; k < d.n; k++)
        if (k != i && d.root[k] && same_node(d.src[k], p) && !parent_only) d.root[i] = false;
  }
  uint32_t nroots = 0;
  for (uint32_t i = 0; i < d.n; i++) {
    if (!d.root[i]) continue;
    d.src[nroots] = d.src[i];
    d.root[nroots++] = true;
  }
  d.n = nroots;
  for (uint32_t i = 0; i < d.n && !rc && !parent_only; i++) {
    size_t nk = sinew_node_children(g, d.src[i], NULL, 0);
    sinew_node_t *kids = nk ? sinew_malloc(nk * sizeof *kids) : NULL;
    if (nk && !kids) rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    sinew_node_children(g, d.src[i], kids, nk);
    for (size_t k = 0; k < nk && !rc; k++) {
      if (transforms_only && !sinew_node_type_is_a(sinew_node_type(g, kids[k]), "transform")) continue;
      if (add_source(&d, kids[k], false)) rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    }
    sinew_free(kids);
  }
  d.raw_conns_before = d.sc->nraw_conns;
  /* the nodes, parents before children */
  for (uint32_t i = 0; i < d.n && !rc; i++) {
    sinew_node_t n = d.src[i], parent = d.root[i] ? sinew_node_parent(g, n) : copy_of(&d, sinew_node_parent(g, n));
    const char *type = sinew_node_type_name(sinew_node_type(g, n));
    /* a root copy (and with -rc every copy) gets the first name free in the scene counting up
     * from the original's trailing number, as every create command names things */
    char buf[600];
    const char *name = sinew_node_name(g, n);
    if (d.root[i] && want_name) name = want_name;
    else if (d.root[i] || rename_children) name = sinew__unique_name(g, name, buf, sizeof buf);
    if (sinew_node_valid(g, parent)) rc = sinew_node_create_under(g, type, name, parent, &d.dst[i]);
    else rc = sinew_node_create(g, type, name, &d.dst[i]);
    if (rc) {
      rc = sinew__graph_error(cmd, rc);
      break;
    }
    if (sinew_node_type_flags(sinew_node_type(g, n)) & SINEW_NODE_TYPE_PLACEHOLDER) d.sc->stats.placeholder_nodes++;
  }
  /* dynamic attributes (in the source's order, so attribute ids match), values, kept text */
  for (uint32_t i = 0; i < d.n && !rc; i++) {
    uint32_t na = sinew_node_attr_count(g, d.src[i]);
    for (uint32_t a = 0; a < na && !rc; a++) {
      sinew_attr_info_t info;
      if (sinew_node_attr_info(g, d.src[i], a, &info) || !(info.flags & SINEW_ATTR_DYNAMIC)) continue;
      if (info.parent != UINT32_MAX) continue;
      rc = copy_dyn_attr(&d, d.src[i], d.dst[i], a);
    }
    for (uint32_t a = 0; a < na && !rc; a++) {
      sinew_attr_info_t info;
      if (sinew_node_attr_info(g, d.src[i], a, &info) || info.parent != UINT32_MAX) continue;
      sinew_plug_t p = sinew_plug_make(d.src[i], a, 0, NULL);
      rc = copy_plugs(&d, &p, d.dst[i], copy_value, true);
    }
    if (!rc && copy_extra(&d, d.src[i], d.dst[i])) rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  }
  if (!rc) rc = copy_connections(&d, sinew_cmd_flag_count(cmd, "inputConnections") > 0);
  for (uint32_t i = 0; i < d.n && !rc; i++) {
    uint32_t na = sinew_node_attr_count(g, d.src[i]);
    for (uint32_t a = 0; a < na && !rc; a++) {
      sinew_attr_info_t info;
      if (sinew_node_attr_info(g, d.src[i], a, &info) || info.parent != UINT32_MAX) continue;
      sinew_plug_t p = sinew_plug_make(d.src[i], a, 0, NULL);
      rc = copy_plugs(&d, &p, d.dst[i], copy_lock, false);
    }
    if (!rc && sinew_node_locked(g, d.src[i])) rc = sinew_node_set_locked(g, d.dst[i], true);
  }
  /* the result and the selection */
  bool roots_only = sinew_cmd_flag_count(cmd, "returnRootsOnly") > 0;
  for (int pass = 0; pass < 2 && !rc; pass++)
    for (uint32_t i = 0; i < d.n && !rc; i++) {
      if (d.root[i] != (pass == 0) || (pass == 1 && roots_only)) continue;
      char buf[1024];
      char *path = full_path ? sinew_node_path(g, d.dst[i]) : NULL;
      if (full_path && !path) rc = SINEW_ENOMEM;
      else rc = sinew_cmd_result_append_string(cmd, path ? path : sinew__node_label(g, d.dst[i], buf, sizeof buf));
      sinew_free(path);
      if (rc) rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    }
  if (!rc) {
    uint32_t cap = d.sc->csel;
    if (sinew__grow((void **)&d.sc->selection, &cap, nroots, sizeof *d.sc->selection)) {
      rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    } else {
      d.sc->csel = cap;
      d.sc->nsel = 0;
      for (uint32_t i = 0; i < d.n; i++)
        if (d.root[i]) d.sc->selection[d.sc->nsel++] = d.dst[i];
      d.sc->current = d.dst[0];
    }
  }
  if (rc) undo_dup(&d);
  sinew_free(d.src);
  sinew_free(d.dst);
  sinew_free(d.root);
  return rc;
}

int sinew__register_duplicate_cmds(sinew_lang_t *L, sinew_session_t *s) {
  const sinew_cmd_desc_t desc = {"duplicate", cmd_duplicate, dup_flags, COUNT(dup_flags), false, s};
  return sinew_lang_register_command(L, &desc);
}
