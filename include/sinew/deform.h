/* sinew/deform.h: the deformers besides the skinCluster (blendShape, cluster) and the data
 * they read from files: component lists (Maya's componentList, "vtx[0:7]") and point arrays
 * (Maya's pointArray, x y z w per point). See docs/deformers.md. */
#ifndef SINEW_DEFORM_H
#define SINEW_DEFORM_H

#include "sinew/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- componentList ---------------------------------------------------------------------------
 * A block holding the items as written ("vtx[*]", "vtx[6:7]", "f[0:5]"), so a file reads back
 * byte for byte, and the vertex ranges they name, so deformers can use them. */
SINEW_API const sinew_data_type_t sinew_component_list_data_type;

/* Items may be any component ("f[2]", "e[0:3]", a surface's "cv[1][2]"); points are parsed
 * into ranges: a mesh's vertices ("vtx[i]", "vtx[a:b]", "vtx[*]") and a curve's CVs ("cv[i]",
 * "cv[a:b]", "cv[*]", one index). SINEW_EINVAL for an empty item, a malformed point item (a
 * bad number, b < a, a negative index) or a name without a bracket. */
SINEW_API int sinew_component_list_create(const char *const *items, size_t count, sinew_data_t **out);
/* The number of items and item i (borrowed from the block), NULL past the end or for a block
 * of another type. */
SINEW_API size_t sinew_component_list_count(const sinew_data_t *list);
SINEW_API const char *sinew_component_list_item(const sinew_data_t *list, size_t i);
/* The point ranges (vtx[] and curve cv[] items; inclusive pairs, ascending as written; "vtx[*]"
 * is 0..INT32_MAX) and whether items other than points are present. Returns the number of ranges; *ranges (may be
 * NULL) is borrowed from the block. */
SINEW_API size_t sinew_component_list_vertices(const sinew_data_t *list, const int32_t **ranges,
                                               bool *has_other);

/* ---- pointArray ------------------------------------------------------------------------------
 * count points of four doubles (x y z w), as Maya's files write them. */
SINEW_API const sinew_data_type_t sinew_point_array_data_type;
/* A block of count points copied from xyzw (4 * count doubles; NULL gives zeros). */
SINEW_API int sinew_point_array_create(const double *xyzw, size_t count, sinew_data_t **out);
/* The points (borrowed) and their count; NULL for a block of another type. */
SINEW_API const double *sinew_point_array_get(const sinew_data_t *array, size_t *count);

/* ---- blendShape origin world -----------------------------------------------------------------
 * With origin world (blendShape.origin 0) a live target's points go through the target's world
 * matrix and back through the inverse of the base's, so at weight 1 the base takes the target's
 * place in the world (origin local, the default, blends object-space points). The node reads
 * those matrices through hidden inputs: sinewBaseMatrix[k] (the world matrix of the transform of
 * the mesh geometry k ends in, down its outputGeometry[k] through groupParts and deformers) and
 * inputTarget[k].inputTargetGroup[t].inputTargetItem[i].sinewTargetMatrix (the world matrix of
 * the transform of the mesh feeding that item's inputGeomTarget). This makes those connections
 * match the node: made or corrected in origin world, removed in origin local. All or nothing (a transaction); SINEW_ETYPE
 * when the node is not a blendShape, or the failure of a connection (a cycle: a base whose
 * transform depends on the deformed mesh). The blendShape command and the session (after each
 * script or file it runs) call it; a host building blendShapes itself calls it after wiring
 * targets. Unconnected matrices read as identity (warned once per node). */
SINEW_API int sinew_blend_shape_wire_world(sinew_graph_t *graph, sinew_node_t blend_shape);

/* ---- counters for tests and tools ------------------------------------------------------------ */

/* How often a blendShape deformed its geometry, how many target items (one target at one
 * weight) it applied in total, and how often it compiled a target (its items' deltas): a target
 * whose weight is 0 is skipped whole and not compiled; moving a weight compiles nothing. Any
 * pointer may be NULL. SINEW_ETYPE when the node is not a blendShape. */
SINEW_API int sinew_blend_shape_stats(sinew_graph_t *graph, sinew_node_t blend_shape,
                                      uint64_t *evaluations, uint64_t *targets_applied,
                                      uint64_t *target_compiles);

#ifdef __cplusplus
}
#endif
#endif /* SINEW_DEFORM_H */
