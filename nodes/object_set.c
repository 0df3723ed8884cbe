/* nodes/object_set.c: objectSet, Maya's named collection of nodes (`sets -n ctrls -em`; the
 * control sets, joint sets and export sets rig scripts make; the "Set" nodes of deformers in
 * files). A set computes nothing: its members are connections, a DAG member's
 * instObjGroups[0] -> dagSetMembers[i] and any other node's message -> dnSetMembers[i], and
 * deformers and partitions link to it through groupNodes, usedBy and partition. These accept
 * any plug (SINEW_ATTR_GENERIC), as Maya's do, and carry no value. */
#include "nodes/nodes_internal.h"

#define F_LINKS (SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY | SINEW_ATTR_GENERIC)

static const sinew_attr_desc_t object_set_attrs[] = {
    {.name = "dagSetMembers", .short_name = "dsm", .type = SINEW_ATTR_MESSAGE, .flags = F_LINKS & ~SINEW_ATTR_INDEX_MATTERS},
    {.name = "dnSetMembers", .short_name = "dnsm", .type = SINEW_ATTR_MESSAGE, .flags = F_LINKS & ~SINEW_ATTR_INDEX_MATTERS},
    {.name = "groupNodes", .short_name = "gn", .type = SINEW_ATTR_MESSAGE, .flags = F_LINKS & ~SINEW_ATTR_INDEX_MATTERS},
    {.name = "usedBy", .short_name = "ub", .type = SINEW_ATTR_MESSAGE, .flags = F_LINKS & ~SINEW_ATTR_INDEX_MATTERS},
    {.name = "partition", .short_name = "pa", .type = SINEW_ATTR_MESSAGE,
     .flags = SINEW_ATTR_OUTPUT | SINEW_ATTR_ARRAY | SINEW_ATTR_GENERIC},
    {.name = "memberWireframeColor", .short_name = "mwc", .type = SINEW_ATTR_INT, .default_value = -1,
     .has_min = true, .min_value = -1, .has_max = true, .max_value = 31},
    {.name = "annotation", .short_name = "an", .type = SINEW_ATTR_STRING},
    {.name = "isLayer", .short_name = "il", .type = SINEW_ATTR_BOOL},
    {.name = "verticesOnlySet", .short_name = "vo", .type = SINEW_ATTR_BOOL},
    {.name = "edgesOnlySet", .short_name = "eo", .type = SINEW_ATTR_BOOL},
    {.name = "facetsOnlySet", .short_name = "fo", .type = SINEW_ATTR_BOOL},
    {.name = "editPointsOnlySet", .short_name = "ep", .type = SINEW_ATTR_BOOL},
    {.name = "renderableOnlySet", .short_name = "ro", .type = SINEW_ATTR_BOOL},
    {.name = "hiddenInOutliner", .short_name = "hio", .type = SINEW_ATTR_BOOL},
};

#define COUNT(a) (sizeof(a) / sizeof *(a))

int sinew__register_object_set_types(sinew_graph_t *g) {
  if (sinew_find_node_type(g, "objectSet")) return SINEW_OK;
  sinew_node_type_desc_t d = {.name = "objectSet", .attrs = object_set_attrs, .attr_count = COUNT(object_set_attrs)};
  return sinew_register_node_type(g, &d, NULL);
}
