/* sinew/skin.h: smooth skinning: the skinCluster node's helpers, the decomposed "xform"
 * transformation, dagPose bind poses, binding and weight editing (see docs/skinning.md). */
#ifndef SINEW_SKIN_H
#define SINEW_SKIN_H

#include "sinew/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How often a skinCluster compiled its weights into packed arrays (all of them, or only the
 * points an edit named, in place) and how often it deformed: moving a joint must not
 * recompile, editing weights must. */
SINEW_API int sinew_skin_cluster_stats(sinew_graph_t *graph, sinew_node_t skin_cluster,
                                       uint64_t *compiles, uint64_t *evaluations);

/* Which instruction set the skinCluster's kernels use (docs/skinning.md, "Kernels"). The
 * default, AUTO, takes the widest the CPU has, capped by the SINEW_SKIN_ISA environment variable
 * (scalar, sse2, avx2, avx512) when it is set. SCALAR is the double-precision reference, one
 * point at a time. The choice is process-wide; set it while no evaluation runs. */
typedef enum sinew_skin_isa {
  SINEW_SKIN_ISA_AUTO = 0,
  SINEW_SKIN_ISA_SCALAR,
  SINEW_SKIN_ISA_SSE2,
  SINEW_SKIN_ISA_AVX2,   /* AVX2 and FMA */
  SINEW_SKIN_ISA_AVX512, /* AVX-512F */
  SINEW_SKIN_ISA_MAX
} sinew_skin_isa_t;

/* Forces a path (AUTO: back to the default). SINEW_EUNSUPPORTED when the CPU lacks it,
 * SINEW_EINVAL for a value out of the enum; the setting is then unchanged. */
SINEW_API int sinew_skin_set_isa(sinew_skin_isa_t isa);
/* The path evaluations use now (never AUTO). */
SINEW_API sinew_skin_isa_t sinew_skin_isa(void);
/* Whether the CPU (and this build) can run a path. */
SINEW_API bool sinew_skin_isa_supported(sinew_skin_isa_t isa);
/* "auto", "scalar", "sse2", "avx2", "avx512"; "?" out of range. */
SINEW_API const char *sinew_skin_isa_name(sinew_skin_isa_t isa);

/* =============================================================================================
 * Bind poses, skin binding and weight editing (nodes/dag_pose.c, nodes/skin_bind.c;
 * docs/skinning.md). Every function returns SINEW_OK or a negative SINEW_E* code with the
 * graph's last error naming the node; a failed call leaves the graph as it was.
 * ============================================================================================ */

/* ---- the decomposed transformation ("xform", spec 8.4) ------------------------------------- */

/* The 37 values of Maya's `-type "matrix" "xform"` form, in file order. Angles in radians,
 * distances in centimetres. rotateAxis and jointOrient are unit quaternions (x y z w); a plain
 * transform has joint_orient (0 0 0 1), inverse_scale (1 1 1) and segment_scale_compensate on. */
typedef struct sinew_xform {
  double scale[3];
  double rotate[3];                 /* radians, in rotate_order */
  int rotate_order;                 /* 0..5 as the ro attribute (xyz yzx zxy xzy yxz zyx) */
  double translate[3];
  double shear[3];                  /* xy xz yz */
  double scale_pivot[3];
  double scale_pivot_translate[3];
  double rotate_pivot[3];
  double rotate_pivot_translate[3];
  double rotate_axis[4];            /* quaternion x y z w */
  double joint_orient[4];           /* quaternion x y z w */
  double inverse_scale[3];          /* a joint's is (the parent's scale) */
  bool segment_scale_compensate;
} sinew_xform_t;

#define SINEW_XFORM_VALUES 37

/* The data type of dagPose.xformMatrix elements: a block whose payload is one sinew_xform_t. */
SINEW_API const sinew_data_type_t sinew_xform_data_type;

/* The identity transformation (scale 1, everything else 0, identity quaternions, ssc on). */
SINEW_API void sinew_xform_identity(sinew_xform_t *out);
/* The 37 numbers in file order; the last is 1 or 0 (yes/no). */
SINEW_API void sinew_xform_to_values(const sinew_xform_t *x, double out[SINEW_XFORM_VALUES]);
/* From the 37 numbers. SINEW_EINVAL for a non-finite value, a rotate order outside 0..5 or a
 * zero quaternion. The quaternions are kept as written (so formatting gives the same text) and
 * normalised where they are used. */
SINEW_API int sinew_xform_from_values(const double values[SINEW_XFORM_VALUES], sinew_xform_t *out);
/* Parses the text after `-type "matrix"`: an optional `"xform"` (or xform) word, then 36
 * numbers and a boolean (yes/no, on/off, true/false, 1/0), separated by any white space
 * (tabs and newlines included). *end (may be NULL) is set past the last value consumed.
 * SINEW_ESYNTAX when a value is missing or malformed. */
SINEW_API int sinew_xform_parse(const char *text, sinew_xform_t *out, const char **end);
/* Writes `"xform" v0 v1 ... v35 yes|no` into buf, each number in the shortest form that reads
 * back to the same double (so parse -> format -> parse is exact). snprintf semantics: returns
 * the length needed, excluding the terminating NUL. */
SINEW_API size_t sinew_xform_format(const sinew_xform_t *x, char *buf, size_t size);
/* The local matrix the values describe (a transform's or, when joint, a joint's formula). */
SINEW_API void sinew_xform_matrix(const sinew_xform_t *x, bool joint, sinew_mat4_t *out);
/* The current local transformation of a transform or joint (its s, r, ro, t, sh, sp, spt, rp,
 * rpt, ra, and for joints jo, is, ssc). */
SINEW_API int sinew_xform_from_node(sinew_graph_t *graph, sinew_node_t node, sinew_xform_t *out);
/* Writes the values back: scale, rotate, rotateOrder, translate, shear, the pivots and their
 * translates, rotateAxis and (joints) jointOrient. inverseScale and segmentScaleCompensate are
 * not written (is follows the parent's scale through its connection). Only values that differ
 * are set, so connected or locked attributes already at the value are fine; a quaternion that
 * equals the current angles' rotation keeps those angles. All or nothing. */
SINEW_API int sinew_xform_to_node(sinew_graph_t *graph, sinew_node_t node, const sinew_xform_t *x);
/* A new xform data block (one reference) for sinew_set_data on dagPose.xm[j]. */
SINEW_API int sinew_xform_data_create(const sinew_xform_t *x, sinew_data_t **out);
/* The payload of an xform block; NULL when data is not one. */
SINEW_API const sinew_xform_t *sinew_xform_get(const sinew_data_t *data);

/* ---- dagPose (spec 6) ---------------------------------------------------------------------- */

enum sinew_pose_flags {
  /* restore / at-pose: use the saved world matrices (wm) for every member. Members whose g[j]
   * is on use them anyway. */
  SINEW_POSE_GLOBAL = 1u << 0
};

#define SINEW_POSE_TOLERANCE 1e-4 /* the default at-pose tolerance */

typedef struct sinew_pose_save_desc {
  const sinew_node_t *nodes;   /* transforms or joints; duplicates are ignored */
  size_t count;
  const bool *global;          /* per node: the member's g[j]; NULL = all off */
  const char *name;            /* NULL: "bindPose#" for a bind pose, else "dagPose#" */
  /* A bind pose (bp = on): each joint's bindPose (bps) is set to its world matrix and
   * connected to wm[j]. A node may belong to one bind pose only: when some of the nodes are
   * already in one, that pose is extended with the others (and returned) instead. */
  bool bind_pose;
} sinew_pose_save_desc_t;

/* dagPose -save: creates a pose whose members are the nodes, in parent-before-child order
 * (m[j] <- node.message, p[j] <- m[k] of the node's parent when it is a member, else <- w;
 * wm[j] = world matrix; xm[j] = local transformation). */
SINEW_API int sinew_pose_save(sinew_graph_t *graph, const sinew_pose_save_desc_t *desc,
                              sinew_node_t *out_pose);
/* dagPose -restore: members in parent-before-child order get their local values from xm[j];
 * with SINEW_POSE_GLOBAL (or g[j]) the local matrix is solved so the world matrix becomes
 * wm[j] again (local = wm[j] * inverse(offsetParentMatrix * parentMatrix)). */
SINEW_API int sinew_pose_restore(sinew_graph_t *graph, sinew_node_t pose, uint32_t flags);
/* dagPose -reset: stores every member's current state (xm, wm or the joint's bps, parents). */
SINEW_API int sinew_pose_reset(sinew_graph_t *graph, sinew_node_t pose);
/* dagPose -addToPose: adds the nodes that are not members yet (in a bind pose, not those
 * that belong to another bind pose), at the next free indices. */
SINEW_API int sinew_pose_add(sinew_graph_t *graph, sinew_node_t pose, const sinew_node_t *nodes,
                             size_t count);
/* dagPose -remove: removes the members' m, p, wm, xm and g elements; their member children
 * are re-linked to w. Nodes that are not members are ignored. */
SINEW_API int sinew_pose_remove(sinew_graph_t *graph, sinew_node_t pose, const sinew_node_t *nodes,
                                size_t count);
/* dagPose -q -members: fills up to cap nodes and their logical indices (either may be NULL),
 * ascending by index; returns the member count (0 for a node that is not a dagPose). */
SINEW_API size_t sinew_pose_members(const sinew_graph_t *graph, sinew_node_t pose,
                                    sinew_node_t *out_nodes, int32_t *out_index, size_t cap);
/* The logical index j of node in the pose; SINEW_ENOTFOUND when it is not a member. */
SINEW_API int sinew_pose_member_index(const sinew_graph_t *graph, sinew_node_t pose,
                                      sinew_node_t node, int32_t *out_index);
/* dagPose -atPose: the members that are not at the pose, ascending by index (up to cap);
 * *out_count is the total (0: at the pose). Local mode compares the xm values (rotations as
 * rotations, so 0 and 360 degrees agree); SINEW_POSE_GLOBAL (or g[j]) compares world matrices
 * with wm[j]. tolerance <= 0 means SINEW_POSE_TOLERANCE. */
SINEW_API int sinew_pose_not_at_pose(sinew_graph_t *graph, sinew_node_t pose, uint32_t flags,
                                     double tolerance, sinew_node_t *out, size_t cap,
                                     size_t *out_count);
/* The bind pose (bp on) that has node as a member; SINEW_ENOTFOUND when none. */
SINEW_API int sinew_pose_find_bind_pose(sinew_graph_t *graph, sinew_node_t node,
                                        sinew_node_t *out_pose);

/* ---- binding (skinCluster creation, spec 4.4 and 4.5) -------------------------------------- */

enum sinew_bind_method {
  SINEW_BIND_CLOSEST_DISTANCE = 0,
  SINEW_BIND_CLOSEST_IN_HIERARCHY = 1
};

typedef struct sinew_skin_bind_desc {
  sinew_node_t geometry;            /* a mesh shape, or its transform (first non-intermediate mesh) */
  const sinew_node_t *influences;   /* transforms or joints, at least one, no duplicates */
  size_t influence_count;
  const char *name;                 /* -n; NULL = "skinCluster#" */
  int max_influences;               /* -mi; <= 0 means 5 */
  double dropoff_rate;              /* -dr; <= 0 means 4 */
  int bind_method;                  /* -bm: SINEW_BIND_*; heat map / geodesic are unsupported */
  int skin_method;                  /* -sm: 0 linear, 1 dual quaternion, 2 weight blended */
  int normalize_weights;            /* -nw: 0 none, 1 interactive, 2 post */
  int weight_distribution;          /* -wd: 0 distance, 1 neighbours */
  bool obey_max_influences;         /* -omi: writes maintainMaxInfluences */
} sinew_skin_bind_desc_t;

/* Maya's defaults: mi 5, dr 4, closest in hierarchy, linear, interactive, distance, omi off.
 * Start from this: a zeroed descriptor means closest distance and normalisation off. */
SINEW_API void sinew_skin_bind_desc_init(sinew_skin_bind_desc_t *desc);
/* skinCluster creation. Creates "<shape>Orig" (an intermediate mesh under the same transform)
 * that takes over the shape's geometry (its inMesh connection, or its stored points), the
 * skinCluster with Orig.outMesh -> input[0].inputGeometry and -> originalGeometry[0] and
 * outputGeometry[0] -> shape.inMesh; per influence i: wm[0] -> matrix[i], bindPreMatrix[i] =
 * inverse(world), liw (added if missing) -> lockWeights[i], objectColorRGB -> influenceColor[i],
 * dropoff[i] = dr; geomMatrix = the shape's world matrix; the bind pose (found, extended or
 * created with the influences and their ancestors) -> bindPose; default weights (spec 4.5).
 * Everything is validated first; on failure what was made is undone. */
SINEW_API int sinew_skin_bind(sinew_graph_t *graph, const sinew_skin_bind_desc_t *desc,
                              sinew_node_t *out_skin);

/* ---- influences ----------------------------------------------------------------------------- */

/* The logical index i of an influence (the node whose matrix feeds matrix[i]). */
SINEW_API int sinew_skin_influence_index(const sinew_graph_t *graph, sinew_node_t skin,
                                         sinew_node_t influence, int32_t *out_index);
/* The node feeding matrix[index]; SINEW_ENOTFOUND when none. */
SINEW_API int sinew_skin_influence_node(const sinew_graph_t *graph, sinew_node_t skin,
                                        int32_t index, sinew_node_t *out_node);
/* skinCluster -q -inf: the influences in logical-index order (nodes and/or indices may be
 * NULL); returns the count. Indices of matrix[] without a connected node are skipped. */
SINEW_API size_t sinew_skin_influences(const sinew_graph_t *graph, sinew_node_t skin,
                                       sinew_node_t *out_nodes, int32_t *out_index, size_t cap);
/* The shape deformed through outputGeometry[0]; SINEW_ENOTFOUND when none. */
SINEW_API int sinew_skin_geometry(const sinew_graph_t *graph, sinew_node_t skin,
                                  sinew_node_t *out_shape);

/* ---- weights (skinPercent, spec 5.2) -------------------------------------------------------- */

typedef struct sinew_skin_percent_desc {
  const int32_t *vertices;          /* the components; NULL (and 0) = every vertex */
  size_t vertex_count;
  const sinew_node_t *influences;   /* -tv pairs: influence and value */
  const double *values;
  size_t count;
  bool normalize;                   /* -nrm, default on (only when skin.nw is Interactive) */
  bool relative;                    /* -r: values are added to the current weights */
  bool zero_remaining;              /* -zri: unlisted, unlocked influences become 0 */
  bool prune;                       /* -prw: weights below prune_below become 0 */
  double prune_below;
} sinew_skin_percent_desc_t;

/* normalize on, everything else off. */
SINEW_API void sinew_skin_percent_desc_init(sinew_skin_percent_desc_t *desc);
/* skinPercent edit. Listed values are clamped to 0..1 and written; with normalisation the
 * unlisted unlocked weights are scaled so the vertex sums to 1 (locked ones are kept); see
 * docs/skinning.md for the exact rules, including maintainMaxInfluences. Setting a locked
 * influence is refused (SINEW_ELOCKED). */
SINEW_API int sinew_skin_percent(sinew_graph_t *graph, sinew_node_t skin,
                                 const sinew_skin_percent_desc_t *desc);
/* skinPercent -q -v: the weight of every influence (logical-index order) on a vertex, missing
 * entries as 0; only weights > ignore_below are reported (negative: all). Fills up to cap;
 * *out_count is the total. Either output array may be NULL. */
SINEW_API int sinew_skin_get_weights(sinew_graph_t *graph, sinew_node_t skin, int32_t vertex,
                                     double ignore_below, sinew_node_t *out_nodes,
                                     double *out_weights, size_t cap, size_t *out_count);
/* skinPercent -q -t inf -v: one influence's weight on a vertex. */
SINEW_API int sinew_skin_get_weight(sinew_graph_t *graph, sinew_node_t skin, int32_t vertex,
                                    sinew_node_t influence, double *out);
/* skinCluster -e -fnw: rescales every vertex so its weights sum to 1 (locked weights kept). */
SINEW_API int sinew_skin_force_normalize(sinew_graph_t *graph, sinew_node_t skin);
/* skinPercent -rtd: recomputes the default (bind-method) weights of the vertices (NULL = all)
 * from the bind-time positions (inverse bindPreMatrix) and the original geometry. */
SINEW_API int sinew_skin_reset_weights(sinew_graph_t *graph, sinew_node_t skin,
                                       const int32_t *vertices, size_t vertex_count);

/* ---- skinCluster edits (spec 5.1) ---------------------------------------------------------- */

typedef struct sinew_skin_add_influence_desc {
  double weight;        /* -wt: given to the influence on every vertex (skinPercent rules); 0 */
  bool lock_weights;    /* -lw: lock the new influence afterwards */
  double dropoff;       /* dropoff[i]; <= 0 means the node's dropoffRate */
} sinew_skin_add_influence_desc_t;

/* skinCluster -e -ai: connects the node at the next free logical index (bindPreMatrix =
 * inverse of its current world matrix, liw -> lockWeights), adds it to the skin's bind pose
 * when it is in no bind pose, and with weight > 0 sets that weight everywhere. desc may be
 * NULL (weight 0). SINEW_EEXISTS when it already is an influence. */
SINEW_API int sinew_skin_add_influence(sinew_graph_t *graph, sinew_node_t skin,
                                       sinew_node_t influence,
                                       const sinew_skin_add_influence_desc_t *desc,
                                       int32_t *out_index);
/* skinCluster -e -ri: the influence's weight on each vertex is shared among the vertex's
 * other unlocked influences in proportion to their weights (see docs/skinning.md for the
 * fall-backs), then its weights, matrix, bindPreMatrix, lockWeights, dropoff and
 * influenceColor elements are removed. */
SINEW_API int sinew_skin_remove_influence(sinew_graph_t *graph, sinew_node_t skin,
                                          sinew_node_t influence);
/* skinCluster -e -rbm: bindPreMatrix[i] = inverse of the influence's current world matrix. */
SINEW_API int sinew_skin_recache_bind_matrices(sinew_graph_t *graph, sinew_node_t skin);
/* skinCluster -e -ub: deletes the skinCluster, gives the shape its original geometry (the
 * Orig's inMesh connection, or its points) and deletes the Orig shape. */
SINEW_API int sinew_skin_unbind(sinew_graph_t *graph, sinew_node_t skin);

#ifdef __cplusplus
}
#endif
#endif
