/* nodes/poly_modifier.c: Maya's polyModifier base and the modifiers that leave the points and
 * the topology as they are, so sinew passes the mesh through unchanged.
 *
 *   polyModifier        inputPolymesh (ip) -> output (out); abstract, as in Maya.
 *   polyColorPerVertex  vertex colours (per vertex and per vertex-face, as files store them) are
 *                       kept and written back; the geometry passes through as the same block (no
 *                       copy). sinew's mesh carries no colour sets, so the colours do not reach the
 *                       output; what a deformation chain computes is the same as in Maya.
 *
 * Real rigs put polyColorPerVertex between a skinCluster and the next deformer (omtk's
 * rig_example_02_built.ma: skinCluster2.og[0] -> polyColorPerVertex1.ip, .out ->
 * groupParts5.ig); as a placeholder it froze every mesh downstream. */
#include "nodes/nodes_internal.h"
#include "sinew/deform.h"

#define F_IN SINEW_ATTR_INPUT
#define F_ARR (SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY)
/* Geometry inputs are connected, not written to files. */
#define F_GEOM_IN (SINEW_ATTR_READABLE | SINEW_ATTR_WRITABLE | SINEW_ATTR_CONNECTABLE | SINEW_ATTR_INDEX_MATTERS)

#define COUNTOF(a) (sizeof(a) / sizeof *(a))

/* Attribute names of Autodesk's node reference (polyModifier, polyColorPerVertex). */
static const sinew_attr_desc_t modifier_attrs[] = {
    {.name = "inputPolymesh", .short_name = "ip", .type = SINEW_ATTR_DATA, .flags = F_GEOM_IN},
    {.name = "output", .short_name = "out", .type = SINEW_ATTR_DATA, .flags = SINEW_ATTR_OUTPUT},
    {.name = "cachedInMesh", .short_name = "cim", .type = SINEW_ATTR_DATA, .flags = F_GEOM_IN},
    {.name = "inputComponents", .short_name = "ics", .type = SINEW_ATTR_DATA,
     .data_type = &sinew_component_list_data_type},
    {.name = "useOldPolyArchitecture", .short_name = "uopa", .type = SINEW_ATTR_BOOL},
};
static const sinew_affects_t modifier_affects[] = {{"inputPolymesh", "output"}, {"inputComponents", "output"}};

#define RGB(lname, sname, parent_name, lr, sr, lg, sg, lb, sb)                                           \
  {.name = lname, .short_name = sname, .type = SINEW_ATTR_COMPOUND, .parent = parent_name, .flags = F_IN}, \
      {.name = lr, .short_name = sr, .type = SINEW_ATTR_FLOAT, .parent = lname, .flags = F_IN},           \
      {.name = lg, .short_name = sg, .type = SINEW_ATTR_FLOAT, .parent = lname, .flags = F_IN},           \
      {.name = lb, .short_name = sb, .type = SINEW_ATTR_FLOAT, .parent = lname, .flags = F_IN}

static const sinew_attr_desc_t color_per_vertex_attrs[] = {
    {.name = "clamped", .short_name = "clam", .type = SINEW_ATTR_BOOL, .default_value = 1},
    {.name = "colorSetName", .short_name = "cn", .type = SINEW_ATTR_STRING},
    {.name = "representation", .short_name = "rpr", .type = SINEW_ATTR_INT, .default_value = 4},
    {.name = "colorPerVertex", .short_name = "cpvx", .type = SINEW_ATTR_COMPOUND, .flags = F_IN},
    {.name = "vertexColor", .short_name = "vclr", .type = SINEW_ATTR_COMPOUND, .parent = "colorPerVertex",
     .flags = F_ARR},
    RGB("vertexColorRGB", "vrgb", "vertexColor", "vertexColorR", "vxcr", "vertexColorG", "vxcg", "vertexColorB",
        "vxcb"),
    {.name = "vertexAlpha", .short_name = "vxal", .type = SINEW_ATTR_FLOAT, .parent = "vertexColor", .flags = F_IN},
    {.name = "vertexFaceColor", .short_name = "vfcl", .type = SINEW_ATTR_COMPOUND, .parent = "vertexColor",
     .flags = F_ARR},
    RGB("vertexFaceColorRGB", "frgb", "vertexFaceColor", "vertexFaceColorR", "vfcr", "vertexFaceColorG", "vfcg",
        "vertexFaceColorB", "vfcb"),
    {.name = "vertexFaceAlpha", .short_name = "vfal", .type = SINEW_ATTR_FLOAT, .parent = "vertexFaceColor",
     .flags = F_IN},
};

static struct {
  uint32_t input, output;
} P;

/* The input geometry, as the same block (a new reference). */
static int pass_through_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != P.output) return SINEW_EUNKNOWN_PLUG;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_plug_t in = sinew_plug_make(sinew_compute_node(ctx), P.input, 0, NULL);
  sinew_data_t *d = NULL;
  int rc = sinew__geometry_input(g, &in, &d);
  if (!rc) rc = sinew_compute_set_data(ctx, plug, d);
  sinew_data_unref(d);
  return rc;
}

int sinew__register_poly_modifier_types(sinew_graph_t *g) {
  if (!g) return SINEW_EINVAL;
  if (sinew_find_node_type(g, "polyModifier")) return SINEW_OK;
  const sinew_node_type_desc_t types[] = {
      {.name = "polyModifier", .flags = SINEW_NODE_TYPE_ABSTRACT, .attrs = modifier_attrs,
       .attr_count = COUNTOF(modifier_attrs), .affects = modifier_affects,
       .affects_count = COUNTOF(modifier_affects), .compute = pass_through_compute},
      {.name = "polyColorPerVertex", .parent_type = "polyModifier", .attrs = color_per_vertex_attrs,
       .attr_count = COUNTOF(color_per_vertex_attrs)},
  };
  for (size_t i = 0; i < COUNTOF(types); i++) {
    int rc = sinew_register_node_type(g, &types[i], NULL);
    if (rc) return rc;
  }
  const sinew_node_type_t *t = sinew_find_node_type(g, "polyModifier");
  P.input = sinew_node_type_attr(t, "inputPolymesh");
  P.output = sinew_node_type_attr(t, "output");
  return SINEW_OK;
}
