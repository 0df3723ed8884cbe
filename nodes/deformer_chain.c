/* nodes/deformer_chain.c: the nodes Maya puts around every deformer (spec 4.1, "the deformer
 * chain as written by Maya"): groupId, groupParts and tweak.
 *
 *   Orig.w -> groupParts2.ig ; groupParts2.og -> tweak1.ip[0].ig ; tweak1.og[0] ->
 *   skinCluster1GroupParts.ig ; skinCluster1GroupParts.og -> skinCluster1.ip[0].ig
 *   groupId.id -> groupParts.gi, deformer.ip[0].gi, shape.iog.og[n].gid
 *
 * Deformer set membership (docs/deformers.md#membership): the groupParts that feeds a
 * deformer's input[k] names, in inputComponents, the points that deformer may move (Maya tags
 * the geometry with the group; sinew reads the list where the deformer needs it):
 *   groupId     holds an id and computes nothing;
 *   groupParts  passes its input block through as its output (the same block, no copy);
 *               sinew__deformer_members reads its inputComponents for the deformer it feeds;
 *   tweak       a geometryFilter: outputGeometry[k] = input[k].inputGeometry points +
 *               envelope * (vlist[k].vertex[i] + plist[k].controlPoints[i]) for the points i of
 *               its set; with no offset (or
 *               envelope 0, or nodeState HasNoEffect) the input block itself. When it must
 *               write, it writes into one of two blocks it keeps (the one nobody else holds),
 *               so re-evaluating allocates nothing in steady state. */
#include <string.h>

#include "nodes/mesh_internal.h"
#include "nodes/nodes_internal.h"
#include "sinew/curve.h"
#include "sinew/deform.h"

#define F_IN SINEW_ATTR_INPUT
#define F_ARR (SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY)
#define F_KEY (SINEW_ATTR_INPUT | SINEW_ATTR_KEYABLE)
/* Geometry inputs are connected, not written to files. */
#define F_GEOM_IN (SINEW_ATTR_READABLE | SINEW_ATTR_WRITABLE | SINEW_ATTR_CONNECTABLE | SINEW_ATTR_INDEX_MATTERS)

/* ---- groupId ---------------------------------------------------------------------------------- */

/* Maya assigns the id itself when a scene loads (readable, connectable, not storable); files
 * never set it. A host may. */
static const sinew_attr_desc_t group_id_attrs[] = {
    {.name = "groupId", .short_name = "id", .type = SINEW_ATTR_INT,
     .flags = SINEW_ATTR_READABLE | SINEW_ATTR_WRITABLE | SINEW_ATTR_CONNECTABLE | SINEW_ATTR_INDEX_MATTERS},
};

/* ---- groupParts ------------------------------------------------------------------------------- */

static const sinew_attr_desc_t group_parts_attrs[] = {
    {.name = "inputGeometry", .short_name = "ig", .type = SINEW_ATTR_DATA, .flags = F_GEOM_IN},
    {.name = "outputGeometry", .short_name = "og", .type = SINEW_ATTR_DATA, .flags = SINEW_ATTR_OUTPUT},
    {.name = "inputComponents", .short_name = "ic", .type = SINEW_ATTR_DATA,
     .data_type = &sinew_component_list_data_type},
    {.name = "inputRemoveComponent", .short_name = "irc", .type = SINEW_ATTR_DATA,
     .data_type = &sinew_component_list_data_type},
    {.name = "groupId", .short_name = "gi", .type = SINEW_ATTR_INT, .default_value = -1},
};
static const sinew_affects_t group_parts_affects[] = {
    {"inputGeometry", "outputGeometry"}, {"inputComponents", "outputGeometry"},
    {"inputRemoveComponent", "outputGeometry"}, {"groupId", "outputGeometry"}};

/* ---- tweak ------------------------------------------------------------------------------------ */

/* plist holds double offsets (NURBS, curves, lattices: ".pl[0].cp[22]" -type "double3"), vlist
 * float ones (meshes: ".vl[0].vt[483]" -type "float3"); element k goes with input[k]. */
static const sinew_attr_desc_t tweak_attrs[] = {
    {.name = "relativeTweak", .short_name = "rtw", .type = SINEW_ATTR_BOOL, .default_value = 1},
    {.name = "plist", .short_name = "pl", .type = SINEW_ATTR_COMPOUND, .flags = F_ARR},
    {.name = "controlPoints", .short_name = "cp", .type = SINEW_ATTR_COMPOUND, .parent = "plist", .flags = F_ARR},
    {.name = "xValue", .short_name = "xv", .type = SINEW_ATTR_DISTANCE, .parent = "controlPoints", .flags = F_KEY},
    {.name = "yValue", .short_name = "yv", .type = SINEW_ATTR_DISTANCE, .parent = "controlPoints", .flags = F_KEY},
    {.name = "zValue", .short_name = "zv", .type = SINEW_ATTR_DISTANCE, .parent = "controlPoints", .flags = F_KEY},
    {.name = "vlist", .short_name = "vl", .type = SINEW_ATTR_COMPOUND, .flags = F_ARR},
    {.name = "vertex", .short_name = "vt", .type = SINEW_ATTR_COMPOUND, .parent = "vlist", .flags = F_ARR},
    {.name = "xVertex", .short_name = "vx", .type = SINEW_ATTR_FLOAT, .parent = "vertex"},
    {.name = "yVertex", .short_name = "vy", .type = SINEW_ATTR_FLOAT, .parent = "vertex"},
    {.name = "zVertex", .short_name = "vz", .type = SINEW_ATTR_FLOAT, .parent = "vertex"},
};
static const sinew_affects_t tweak_affects[] = {
    {"plist", "outputGeometry"}, {"vlist", "outputGeometry"}, {"relativeTweak", "outputGeometry"}};

static struct {
  uint32_t gp_input, gp_output;
  uint32_t envelope, input_geometry, output_geometry, node_state, relative, control_points, vertex;
} A;

typedef struct tweak_state {
  sinew_data_t *out[2];  /* reusable output blocks */
  sinew_data_t *scratch; /* the offsets' logical indices */
  sinew_data_t *members; /* the set's membership mask */
  bool warned_absolute;  /* relativeTweak off was reported once */
  bool warned_not_mesh;  /* sinew__deformer_check_mesh */
} tweak_state;

/* The geometry at a deformer's input as it flows along the chain (a mesh or a curve block). */
static int geometry_raw(sinew_graph_t *g, const sinew_plug_t *dst, sinew_data_t **out) {
  sinew_data_t *d = NULL;
  int rc = sinew_get_data(g, dst, &d); /* pulled either way: dirt stops at plugs already dirty */
  sinew_plug_t src;
  if (rc || !sinew_plug_source(g, dst, &src)) {
    *out = d;
    return rc;
  }
  /* Maya's worldMesh (worldSpace) value is the shape's local geometry tagged with its world
   * matrix, and deformers work on the local points; sinew's holds world points, so take outMesh
   * (local), already brought up to date by the pull above. */
  const char *local_name = NULL;
  const sinew_node_type_t *t = sinew_node_type(g, src.node);
  if (sinew_node_type_is_a(t, "mesh") && src.attr == sinew_node_attr(g, src.node, "worldMesh")) local_name = "outMesh";
  else if (sinew_node_type_is_a(t, "nurbsCurve") && src.attr == sinew_node_attr(g, src.node, "worldSpace"))
    local_name = "local";
  if (!local_name) {
    *out = d;
    return rc;
  }
  sinew_plug_t local = sinew_plug_make(src.node, sinew_node_attr(g, src.node, local_name), 0, NULL);
  sinew_data_t *o = NULL;
  if ((rc = sinew_get_data(g, &local, &o))) {
    sinew_data_unref(d);
    return rc;
  }
  sinew_data_unref(d);
  *out = o;
  return SINEW_OK;
}

/* The points a deformer sees of a curve: its CVs, a periodic curve's repeated ones left out (they
 * are the first `degree` again, and Maya's cv[] components number the distinct CVs). */
static uint32_t curve_points(const sinew_curve_t *c) {
  return c->form == SINEW_CURVE_PERIODIC ? c->ncvs - c->degree : c->ncvs;
}

/* A curve block as a point cloud (a mesh with no faces) of its CVs, in float as mesh points. */
static int curve_as_points(const sinew_data_t *curve, sinew_data_t **out) {
  sinew_curve_t c;
  if (sinew_curve_get(curve, &c)) return SINEW_EINVAL;
  uint32_t np = curve_points(&c);
  sinew_data_t *m = NULL;
  int rc = sinew_mesh_create(np, 0, NULL, NULL, &m);
  if (rc) return rc;
  float *p = sinew_mesh_points_mutable(&m);
  if (!p) {
    sinew_data_unref(m);
    return SINEW_ENOMEM;
  }
  for (uint32_t i = 0; i < np; i++)
    for (int a = 0; a < 3; a++) p[3 * (size_t)i + a] = (float)c.cvs[4 * (size_t)i + a];
  *out = m;
  return SINEW_OK;
}

int sinew__geometry_input(sinew_graph_t *g, const sinew_plug_t *dst, sinew_data_t **out) {
  sinew_data_t *d = NULL;
  int rc = geometry_raw(g, dst, &d);
  if (rc || !d || sinew_data_type(d) != &sinew_curve_data_type) {
    *out = d;
    return rc;
  }
  sinew_data_t *pts = NULL;
  rc = curve_as_points(d, &pts);
  sinew_data_unref(d);
  *out = rc ? NULL : pts;
  return rc;
}

int sinew__deformer_set_output(sinew_compute_t *ctx, const sinew_plug_t *plug, const sinew_plug_t *input,
                               sinew_data_t *out) {
  const sinew_mesh_t *m = out ? sinew_mesh_get(out) : NULL;
  if (!m || m->topology->nfaces) return sinew_compute_set_data(ctx, plug, out);
  /* a point cloud: the deformed points of a curve when the input is one */
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_data_t *raw = NULL;
  int rc = geometry_raw(g, input, &raw); /* clean: the deformer pulled it */
  sinew_curve_t c;
  if (rc || !raw || sinew_curve_get(raw, &c) || curve_points(&c) != m->npoints) {
    sinew_data_unref(raw);
    return rc ? rc : sinew_compute_set_data(ctx, plug, out);
  }
  /* CV + (deformed - CV as a float): a CV the deformer did not move keeps its exact value, and
   * a curve nothing moved passes on as the input block itself */
  sinew_data_t *buf = NULL;
  double *cvs = sinew__mesh_scratch(&buf, 4 * sizeof(double) * c.ncvs);
  if (!cvs) {
    sinew_data_unref(raw);
    return SINEW_ENOMEM;
  }
  memcpy(cvs, c.cvs, 4 * sizeof(double) * c.ncvs);
  bool moved = false;
  for (uint32_t i = 0; i < m->npoints; i++)
    for (int a = 0; a < 3; a++) {
      float d = m->points[3 * (size_t)i + a] - (float)c.cvs[4 * (size_t)i + a];
      if (d != 0) moved = true;
      cvs[4 * (size_t)i + a] += d;
    }
  for (uint32_t i = m->npoints; i < c.ncvs; i++) /* a periodic curve's repeated CVs */
    memcpy(cvs + 4 * (size_t)i, cvs + 4 * (size_t)(i - m->npoints), 4 * sizeof(double));
  sinew_data_t *curve = NULL;
  if (moved) {
    sinew_curve_t dc = c;
    dc.cvs = cvs;
    rc = sinew_curve_create(&dc, &curve); /* EINVAL for a CV made not finite */
  }
  if (!rc) rc = sinew_compute_set_data(ctx, plug, moved ? curve : raw);
  sinew_data_unref(curve);
  sinew_data_unref(buf);
  sinew_data_unref(raw);
  return rc;
}

int sinew__deformer_members(sinew_graph_t *g, sinew_node_t deformer, int32_t k, uint32_t npoints,
                             sinew_data_t **holder, const uint8_t **mask) {
  *mask = NULL;
  uint32_t ig = sinew_node_attr(g, deformer, "inputGeometry");
  int32_t path[2] = {k, 0};
  sinew_plug_t dst = sinew_plug_make(deformer, ig, 1, path), src;
  if (ig == UINT32_MAX || !sinew_plug_source(g, &dst, &src) ||
      sinew_node_type(g, src.node) != sinew_find_node_type(g, "groupParts"))
    return SINEW_OK;
  sinew_plug_t ic = sinew_plug_make(src.node, sinew_node_attr(g, src.node, "inputComponents"), 0, NULL);
  sinew_data_t *list = NULL;
  if (sinew_get_data(g, &ic, &list) || !list) return SINEW_OK; /* no list: every point */
  const int32_t *r;
  bool other;
  size_t nr = sinew_component_list_vertices(list, &r, &other);
  bool all = other; /* components sinew does not map to points (faces, edges): every point */
  for (size_t i = 0; i < nr && !all; i++) all = r[2 * i] == 0 && (uint32_t)r[2 * i + 1] >= npoints - 1;
  if (all || !npoints) {
    sinew_data_unref(list);
    return SINEW_OK;
  }
  uint8_t *m = sinew__mesh_scratch(holder, npoints);
  if (!m) {
    sinew_data_unref(list);
    return SINEW_ENOMEM;
  }
  memset(m, 0, npoints);
  for (size_t i = 0; i < nr; i++)
    for (int64_t v = r[2 * i]; v <= r[2 * i + 1] && v < (int64_t)npoints; v++) m[v] = 1;
  sinew_data_unref(list);
  *mask = m;
  return SINEW_OK;
}

int sinew__deformer_restore_nonmembers(sinew_graph_t *g, sinew_node_t deformer, int32_t k, const sinew_mesh_t *in,
                                       float *points, float *normals, sinew_data_t **holder) {
  const uint8_t *mask = NULL;
  int rc = sinew__deformer_members(g, deformer, k, in->npoints, holder, &mask);
  if (rc || !mask) return rc;
  for (uint32_t v = 0; v < in->npoints; v++) {
    if (mask[v]) continue;
    memcpy(points + 3 * (size_t)v, in->points + 3 * (size_t)v, 3 * sizeof(float));
    if (normals && in->normals) memcpy(normals + 3 * (size_t)v, in->normals + 3 * (size_t)v, 3 * sizeof(float));
  }
  return SINEW_OK;
}

void sinew__deformer_check_mesh(sinew_graph_t *g, sinew_node_t n, int32_t k, const sinew_data_t *in, bool *warned) {
  if (!in || sinew_mesh_get(in) || *warned) return;
  *warned = true;
  sinew_log(g, SINEW_LOG_WARNING, SINEW_LOG_GENERIC,
            "%s.input[%d] is a %s: sinew's deformers deform meshes and curves only, so it passes through "
            "undeformed",
            sinew_node_name(g, n), (int)k, sinew_data_type(in)->name);
}

static int group_parts_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != A.gp_output) return SINEW_EUNKNOWN_PLUG;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_plug_t in = sinew_plug_make(sinew_compute_node(ctx), A.gp_input, 0, NULL);
  sinew_data_t *d = NULL;
  int rc = geometry_raw(g, &in, &d);
  if (!rc) rc = sinew_compute_set_data(ctx, plug, d); /* the block itself, a new reference */
  sinew_data_unref(d);
  return rc;
}

/* Adds scale * every non-zero element of the offset array `arr` (vl[k].vt or pl[k].cp) to the
 * points of *out, making *out (from `in`) on the first such offset. */
static int add_offsets(sinew_graph_t *g, tweak_state *st, const sinew_plug_t *arr, double scale,
                       const uint8_t *mask, const sinew_data_t *in, sinew_data_t **out) {
  size_t count = sinew_plug_indices(g, arr, NULL, 0);
  if (!count) return SINEW_OK;
  int32_t *idx = sinew__mesh_scratch(&st->scratch, count * sizeof *idx);
  if (!idx) return SINEW_ENOMEM;
  count = sinew_plug_indices(g, arr, idx, count);
  uint32_t np = sinew_mesh_get(in)->npoints;
  int32_t path[2] = {arr->idx[0], 0};
  for (size_t k = 0; k < count; k++) {
    if (idx[k] < 0 || (uint32_t)idx[k] >= np) continue; /* beyond the geometry: ignored */
    if (mask && !mask[idx[k]]) continue;                 /* outside the tweak's set */
    path[1] = idx[k];
    sinew_plug_t e = sinew_plug_make(arr->node, arr->attr, 2, path);
    double v[3] = {0, 0, 0};
    int rc = sinew_get_doubles(g, &e, v, 3, NULL);
    if (rc) return rc;
    if (v[0] == 0 && v[1] == 0 && v[2] == 0) continue;
    if (!*out && !(*out = sinew__mesh_reuse_block(st->out, in))) return SINEW_ENOMEM;
    float *p = (float *)sinew_mesh_get(*out)->points + 3 * (size_t)idx[k];
    for (int c = 0; c < 3; c++) p[c] = (float)(p[c] + scale * v[c]);
  }
  return SINEW_OK;
}

static int tweak_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != A.output_geometry) return SINEW_EUNKNOWN_PLUG;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  tweak_state *st = sinew_compute_state(ctx);
  int32_t k = plug->idx[0];
  int32_t ig_idx[2] = {k, 0};
  sinew_plug_t ig = sinew_plug_make(n, A.input_geometry, 1, ig_idx);
  sinew_data_t *in = NULL;
  int rc = sinew__geometry_input(g, &ig, &in);
  if (rc) return rc;
  sinew__deformer_check_mesh(g, n, k, in, &st->warned_not_mesh);
  double en = 1, state = 0;
  bool relative = true;
  sinew_plug_t pen = sinew_plug_make(n, A.envelope, 0, NULL), pns = sinew_plug_make(n, A.node_state, 0, NULL);
  sinew_plug_t prt = sinew_plug_make(n, A.relative, 0, NULL);
  sinew_get_double(g, &pen, &en);
  sinew_get_double(g, &pns, &state);
  sinew_get_bool(g, &prt, &relative);
  sinew_data_t *out = NULL;
  if (in && sinew_mesh_get(in) && en != 0 && state != 1 && state != 4) {
    if (!relative && !st->warned_absolute) {
      st->warned_absolute = true;
      sinew_log(g, SINEW_LOG_WARNING, SINEW_LOG_GENERIC,
                "%s.relativeTweak is off: absolute tweaks are not supported, the offsets are added",
                sinew_node_name(g, n));
    }
    sinew_plug_t vt = sinew_plug_make(n, A.vertex, 1, &k), cp = sinew_plug_make(n, A.control_points, 1, &k);
    const uint8_t *mask = NULL;
    rc = sinew__deformer_members(g, n, k, sinew_mesh_get(in)->npoints, &st->members, &mask);
    if (!rc) rc = add_offsets(g, st, &vt, en, mask, in, &out);
    if (!rc) rc = add_offsets(g, st, &cp, en, mask, in, &out);
    /* normals, when the mesh carries them, follow the moved points (in place: out is exclusive) */
    if (!rc && out && sinew_mesh_get(out)->normals) {
      int slot = st->out[0] == out ? 0 : 1;
      rc = sinew_mesh_compute_normals(&st->out[slot]);
      out = st->out[slot];
    }
  }
  if (!rc) rc = sinew__deformer_set_output(ctx, plug, &ig, out ? out : in); /* no offset: the input */
  sinew_data_unref(in);
  return rc;
}

static void tweak_destroy(sinew_graph_t *g, sinew_node_t n, void *state) {
  (void)g;
  (void)n;
  tweak_state *st = state;
  sinew_data_unref(st->out[0]);
  sinew_data_unref(st->out[1]);
  sinew_data_unref(st->scratch);
  sinew_data_unref(st->members);
}

/* ---- registration ------------------------------------------------------------------------------ */

int sinew__register_deformer_chain_types(sinew_graph_t *g) {
  if (sinew_find_node_type(g, "tweak")) return SINEW_OK;
  if (!sinew_find_node_type(g, "geometryFilter")) {
    return sinew_graph_set_error(g, SINEW_EINVAL, "tweak needs the geometryFilter type registered first");
  }
  const sinew_node_type_t *gid, *gp, *tw;
  sinew_node_type_desc_t d = {.name = "groupId", .attrs = group_id_attrs,
                              .attr_count = sizeof group_id_attrs / sizeof *group_id_attrs};
  int rc = sinew_register_node_type(g, &d, &gid);
  if (rc) return rc;
  d = (sinew_node_type_desc_t){.name = "groupParts", .attrs = group_parts_attrs,
                               .attr_count = sizeof group_parts_attrs / sizeof *group_parts_attrs,
                               .affects = group_parts_affects,
                               .affects_count = sizeof group_parts_affects / sizeof *group_parts_affects,
                               .compute = group_parts_compute};
  if ((rc = sinew_register_node_type(g, &d, &gp))) return rc;
  d = (sinew_node_type_desc_t){.name = "tweak", .parent_type = "geometryFilter", .attrs = tweak_attrs,
                               .attr_count = sizeof tweak_attrs / sizeof *tweak_attrs, .affects = tweak_affects,
                               .affects_count = sizeof tweak_affects / sizeof *tweak_affects,
                               .compute = tweak_compute, .state_size = sizeof(tweak_state),
                               .destroy = tweak_destroy};
  if ((rc = sinew_register_node_type(g, &d, &tw))) return rc;
  (void)gid;
  A.gp_input = sinew_node_type_attr(gp, "ig");
  A.gp_output = sinew_node_type_attr(gp, "og");
  A.envelope = sinew_node_type_attr(tw, "en");
  A.input_geometry = sinew_node_type_attr(tw, "ig");
  A.output_geometry = sinew_node_type_attr(tw, "og");
  A.node_state = sinew_node_type_attr(tw, "nds");
  A.relative = sinew_node_type_attr(tw, "rtw");
  A.control_points = sinew_node_type_attr(tw, "cp");
  A.vertex = sinew_node_type_attr(tw, "vt");
  return SINEW_OK;
}
