/* nodes/locator.c: the locator shape and the distance dimension shape (docs/rigging.md "Matrix and
 * quaternion nodes"). Both are DAG shapes: their worldMatrix is their parent transform's (dagNode's
 * compute, reached through the implicit parent link).
 *
 *   locator           worldPosition[i] = localPosition * (the parent's world matrix)
 *   distanceDimShape  distance = |endPoint - startPoint| (world-space points, usually fed from
 *                     locators' worldPosition) */
#include <math.h>

#include "nodes/nodes_internal.h"

#define F_OUT SINEW_ATTR_OUTPUT
#define COUNT(a) (sizeof(a) / sizeof *(a))

#define VEC3(lname, sname, ctype, dflt, fl, lx, sx, ly, sy, lz, sz)                                         \
  {.name = lname, .short_name = sname, .type = SINEW_ATTR_COMPOUND, .flags = fl},                          \
      {.name = lx, .short_name = sx, .type = ctype, .parent = lname, .default_value = dflt, .flags = fl},   \
      {.name = ly, .short_name = sy, .type = ctype, .parent = lname, .default_value = dflt, .flags = fl},   \
      {.name = lz, .short_name = sz, .type = ctype, .parent = lname, .default_value = dflt, .flags = fl}

static const sinew_attr_desc_t locator_attrs[] = {
    VEC3("localPosition", "lp", SINEW_ATTR_DISTANCE, 0, SINEW_ATTR_INPUT, "localPositionX", "lpx", "localPositionY",
         "lpy", "localPositionZ", "lpz"),
    VEC3("localScale", "los", SINEW_ATTR_DISTANCE, 1, SINEW_ATTR_INPUT, "localScaleX", "lsx", "localScaleY", "lsy",
         "localScaleZ", "lsz"),
    {.name = "worldPosition", .short_name = "wp", .type = SINEW_ATTR_COMPOUND, .flags = F_OUT | SINEW_ATTR_ARRAY},
    {.name = "worldPositionX", .short_name = "wpx", .type = SINEW_ATTR_DISTANCE, .parent = "worldPosition", .flags = F_OUT},
    {.name = "worldPositionY", .short_name = "wpy", .type = SINEW_ATTR_DISTANCE, .parent = "worldPosition", .flags = F_OUT},
    {.name = "worldPositionZ", .short_name = "wpz", .type = SINEW_ATTR_DISTANCE, .parent = "worldPosition", .flags = F_OUT},
};
/* localScale only sizes the drawing: it affects nothing. */
static const sinew_affects_t locator_affects[] = {{"localPosition", "worldPosition"},
                                                  {"sinewParentMatrix", "worldPosition"}};

static const sinew_attr_desc_t dist_attrs[] = {
    VEC3("startPoint", "sp", SINEW_ATTR_DISTANCE, 0, SINEW_ATTR_INPUT, "startPointX", "spx", "startPointY", "spy",
         "startPointZ", "spz"),
    VEC3("endPoint", "ep", SINEW_ATTR_DISTANCE, 0, SINEW_ATTR_INPUT, "endPointX", "epx", "endPointY", "epy",
         "endPointZ", "epz"),
    {.name = "distance", .short_name = "dist", .type = SINEW_ATTR_DISTANCE, .flags = F_OUT},
    {.name = "precision", .short_name = "pre", .type = SINEW_ATTR_INT, .default_value = 3},
};
static const sinew_affects_t dist_affects[] = {{"startPoint", "distance"}, {"endPoint", "distance"}};

static struct {
  uint32_t lp, wp, sp, ep, dist;
} L;

static sinew_vec3_t get3(sinew_graph_t *g, sinew_node_t n, uint32_t attr) {
  sinew_plug_t p = sinew_plug_make(n, attr, 0, NULL);
  double v[3] = {0, 0, 0};
  sinew_get_doubles(g, &p, v, 3, NULL);
  return (sinew_vec3_t){v[0], v[1], v[2]};
}

/* Every instance index gives the one path sinew supports (no instancing, as worldMatrix). */
static int locator_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  sinew_plug_t e = *plug, up;
  while (e.attr != L.wp && sinew_plug_parent(g, &e, &up)) e = up; /* wp[i].wpx -> wp[i] */
  if (e.attr != L.wp || e.nidx != 1) return SINEW_EUNKNOWN_PLUG;
  sinew_mat4_t world;
  sinew_plug_t pm = sinew_plug_make(n, sinew__dag.parent_in, 0, NULL);
  if (!sinew_node_parent(g, n).gen || sinew_get_matrix(g, &pm, &world)) sinew_mat4_identity(&world);
  sinew_vec3_t p;
  sinew_mat4_transform_point(get3(g, n, L.lp), &world, &p);
  double v[3] = {p.x, p.y, p.z};
  return sinew_compute_set_doubles(ctx, &e, v, 3);
}

static int dist_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  if (plug->attr != L.dist) return SINEW_EUNKNOWN_PLUG;
  sinew_vec3_t d;
  sinew_vec3_sub(get3(g, n, L.ep), get3(g, n, L.sp), &d);
  return sinew_compute_set_double(ctx, plug, sinew_vec3_length(d));
}

int sinew__register_locator_types(sinew_graph_t *g) {
  if (sinew_find_node_type(g, "locator")) return SINEW_OK;
  const sinew_node_type_t *t;
  sinew_node_type_desc_t d = {.name = "locator", .parent_type = "dagNode", .attrs = locator_attrs,
                              .attr_count = COUNT(locator_attrs), .affects = locator_affects,
                              .affects_count = COUNT(locator_affects), .compute = locator_compute};
  int rc = sinew_register_node_type(g, &d, &t);
  if (rc) return rc;
  L.lp = sinew_node_type_attr(t, "lp");
  L.wp = sinew_node_type_attr(t, "wp");
  d = (sinew_node_type_desc_t){.name = "distanceDimShape", .parent_type = "dagNode", .attrs = dist_attrs,
                               .attr_count = COUNT(dist_attrs), .affects = dist_affects,
                               .affects_count = COUNT(dist_affects), .compute = dist_compute};
  if ((rc = sinew_register_node_type(g, &d, &t))) return rc;
  L.sp = sinew_node_type_attr(t, "sp");
  L.ep = sinew_node_type_attr(t, "ep");
  L.dist = sinew_node_type_attr(t, "dist");
  return SINEW_OK;
}
