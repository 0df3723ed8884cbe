/* nodes/nodes_internal.h: what the built-in node files share (sinew__ tier). Node code uses
 * only the public API of include/sinew; this header holds attribute ids and helpers. */
#ifndef SINEW_NODES_INTERNAL_H
#define SINEW_NODES_INTERNAL_H

#include "sinew/graph.h"
#include "sinew/nodes.h"

/* Attribute ids of the DAG types, identical in every graph (types are registered from the
 * same descriptors in the same order). */
typedef struct sinew__dag_ids {
  uint32_t translate, rotate, scale, shear, rotate_pivot, scale_pivot, rotate_pivot_translate,
      scale_pivot_translate, rotate_axis, rotate_order, inherits_transform, offset_parent_matrix,
      matrix, inverse_matrix, xform_matrix, world_matrix, world_inverse_matrix, parent_matrix,
      parent_inverse_matrix, parent_in, joint_orient, inverse_scale, ssc, bind_pose;
} sinew__dag_ids;
extern sinew__dag_ids sinew__dag;

/* The inputs of a local matrix (internal units: cm, radians). */
typedef struct sinew__local_inputs {
  sinew_vec3_t t, r, s, sh, rp, sp, rpt, spt, ra, jo, is;
  sinew_rotate_order_t order;
  bool ssc;
} sinew__local_inputs;

/* Reads the node's local inputs (pulling them); returns the first failure (the value read is
 * then the default). */
int sinew__read_local_inputs(sinew_graph_t *g, sinew_node_t n, bool joint, sinew__local_inputs *in);
void sinew__transform_local(const sinew__local_inputs *in, sinew_mat4_t *out);
void sinew__joint_local(const sinew__local_inputs *in, sinew_mat4_t *out);

int sinew__register_dag_types(sinew_graph_t *g);
int sinew__register_time_types(sinew_graph_t *g);
int sinew__register_skin_types(sinew_graph_t *g);
/* groupId, groupParts and tweak (nodes/deformer_chain.c); after the skin types (tweak is a
 * geometryFilter); registers nothing when tweak is already known. */
int sinew__register_deformer_chain_types(sinew_graph_t *g);
/* polyModifier and the modifiers that pass the mesh through (polyColorPerVertex), after the mesh
 * types; registers nothing when polyModifier is already known. */
int sinew__register_poly_modifier_types(sinew_graph_t *g);
/* Reads a deformer's geometry input (a new reference or NULL). Fed from a mesh's worldMesh
 * (a curve's worldSpace), it gives that shape's outMesh (local) instead: Maya's value is the
 * local geometry tagged with its world matrix, and deformers work on the local points (sinew's
 * holds world points). A curve comes as a point cloud of its CVs (a mesh with no faces; a
 * periodic curve's repeated CVs left out), which the deformer deforms as a mesh's points; it
 * then sets its output with sinew__deformer_set_output, which makes the curve again. */
int sinew__geometry_input(sinew_graph_t *g, const sinew_plug_t *dst, sinew_data_t **out);
/* Sets a deformer's outputGeometry element `plug` to `out`, the block it computed (or passed
 * through) from the geometry at `input` (its input[k].inputGeometry): a mesh as it is; for a
 * curve, the input curve with out's points as its CVs (CVs that did not move keep their exact
 * double values; when none moved, the input curve block itself). */
/* How many of a skinCluster's weight compiles (sinew_skin_cluster_stats) packed only the points
 * whose weights changed, in place (for tests). */
uint64_t sinew__skin_cluster_point_updates(sinew_graph_t *g, sinew_node_t n);
int sinew__deformer_set_output(sinew_compute_t *ctx, const sinew_plug_t *plug, const sinew_plug_t *input,
                               sinew_data_t *out);
/* Deformers deform meshes and curves: given input geometry `in` of another kind (a surface, a
 * lattice), the caller passes it through undeformed, and this says so once per node (*warned
 * remembers it): a warning naming the node, the input and the data's type. Nothing for a mesh
 * or no data. */
void sinew__deformer_check_mesh(sinew_graph_t *g, sinew_node_t n, int32_t k, const sinew_data_t *in, bool *warned);
/* The points deformer may change in geometry k: *mask (npoints bytes, 1 = a member, kept in
 * *holder for the next call) from the inputComponents of the groupParts feeding its
 * input[k].inputGeometry, as Maya builds every deformer's chain; *mask NULL means every point
 * (no groupParts, no list, "vtx[*]", or components that are not vertices). */
int sinew__deformer_members(sinew_graph_t *g, sinew_node_t deformer, int32_t k, uint32_t npoints,
                            sinew_data_t **holder, const uint8_t **mask);
/* For a deformer that computes every point (skinCluster): puts the input's points (and normals,
 * when both have them) back for the points outside its set; nothing to do (and no memory used)
 * when every point is a member. */
struct sinew_mesh;
int sinew__deformer_restore_nonmembers(sinew_graph_t *g, sinew_node_t deformer, int32_t k, const struct sinew_mesh *in,
                                       float *points, float *normals, sinew_data_t **holder);
/* blendShape (nodes/blend_shape.c); cluster and clusterHandle (nodes/cluster.c); after the
 * deformer chain types; each registers nothing when its type is already known. */
int sinew__register_blend_shape_types(sinew_graph_t *g);
int sinew__register_cluster_types(sinew_graph_t *g);
/* mesh, polyPrimitive, polyCube, polyPlane, polyCylinder, polySphere (nodes/mesh_node.c);
 * registers only the types not yet present, so calling it twice is harmless. */
int sinew__register_mesh_types(sinew_graph_t *g);

/* Matrix and quaternion utility nodes (nodes/matrix_nodes.c); locator and distanceDimShape
 * (nodes/locator.c). Each registers nothing when its first type is already known. */
int sinew__register_matrix_types(sinew_graph_t *g);
int sinew__register_locator_types(sinew_graph_t *g);

/* ---- dagPose and skin binding (nodes/dag_pose.c, nodes/skin_bind.c) ---------------------- */

int sinew__register_pose_types(sinew_graph_t *g);

/* ---- IK (nodes/ik.c) ------------------------------------------------------------------------ */

/* ikHandle, ikEffector, ikSCsolver, ikRPsolver, ikSystem; after the DAG types; registers nothing
 * when ikHandle is already known. */
int sinew__register_ik_types(sinew_graph_t *g);

/* ---- curves (nodes/curve.c, nodes/curve_node.c) --------------------------------------------- */

/* nurbsCurve, makeNurbCircle, curveInfo, pointOnCurveInfo; registers nothing when nurbsCurve
 * is already known. */
int sinew__register_curve_types(sinew_graph_t *g);
/* follicle (nodes/follicle.c), after the curve types; registers nothing when it is known. */
int sinew__register_follicle_types(sinew_graph_t *g);

/* ---- animation (nodes/anim_curve.c, nodes/anim_blend.c) ------------------------------------ */

/* The animCurve family; registers nothing when animCurve is already known. */
int sinew__register_anim_curve_types(sinew_graph_t *g);
/* pairBlend, blendWeighted, blendTwoAttr. */
int sinew__register_anim_blend_types(sinew_graph_t *g);
/* objectSet (nodes/object_set.c). */
int sinew__register_object_set_types(sinew_graph_t *g);
/* constraint (abstract) and the six constraint types (nodes/constraint.c). */
int sinew__register_constraint_types(sinew_graph_t *g);
/* The scene's time changed: every time curve whose input is not connected evaluates at the
 * new time (stored, or dirtied when its keys changed), as Maya updates its time-dependent
 * nodes. *list is the curves' list kept between calls (NULL at first; its owner, the time
 * node, frees it with sinew__anim_time_list_free), made again when the graph's structure
 * changed (sinew_graph_structure_serial). */
typedef struct sinew__anim_time_list sinew__anim_time_list;
int sinew__anim_time_changed(sinew_graph_t *g, sinew__anim_time_list **list);
void sinew__anim_time_list_free(sinew__anim_time_list *list);

/* ---- utility nodes (nodes/utility.c) ------------------------------------------------------- */

/* multiplyDivide, condition, plusMinusAverage, reverse, blendColors, clamp, setRange,
 * multDoubleLinear, addDoubleLinear, distanceBetween, vectorProduct, angleBetween, remapValue,
 * choice, floatConstant, multiply, sum, subtract, divide; registers nothing when multiplyDivide is already known. */
int sinew__register_utility_types(sinew_graph_t *g);

/* Scratch memory from a zeroed data block, so every allocation goes through the library's
 * allocator. Release with sinew_data_unref(*holder). NULL on out-of-memory. */
void *sinew__scratch(size_t bytes, sinew_data_t **holder);

/* Connects src to dst, replacing the connection into dst from another source (nothing to do
 * when src already feeds it). */
int sinew__connect_replacing(sinew_graph_t *g, const sinew_plug_t *src, const sinew_plug_t *dst);

/* Adds nodes to a bind pose, or creates one ("bindPose#") when none of them is in one (inside
 * the caller's transaction). *out_pose is the pose used. */
int sinew__bind_pose_add(sinew_graph_t *g, const sinew_node_t *nodes, size_t count, sinew_node_t *out_pose);

#endif
