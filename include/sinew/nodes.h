/* sinew/nodes.h: the built-in node types (transform, joint, time, unitConversion, ...) and the
 * operations on them that are more than a setAttr: DAG parenting with Maya's joint rules,
 * scene time.
 *
 * Every built-in type is registered through the same public API (sinew_register_node_type)
 * that a host uses for its own nodes. */
#ifndef SINEW_NODES_H
#define SINEW_NODES_H

#include "sinew/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers every built-in node type in the graph. Idempotent per graph. */
SINEW_API int sinew_nodes_register(sinew_graph_t *graph);

/* Creates a graph with the built-in types registered and Maya's default nodes present
 * (time1, of type time). The desc may be NULL. */
SINEW_API int sinew_scene_create(const sinew_graph_desc_t *desc, sinew_graph_t **out_graph);

/* ---- time ------------------------------------------------------------------------------------ */

/* Maya's time units (currentUnit -t) and their frames per second. */
typedef enum sinew_time_unit {
  SINEW_TIME_INVALID = 0,
  SINEW_TIME_GAME,  /* 15 fps */
  SINEW_TIME_FILM,  /* 24 fps, the default */
  SINEW_TIME_PAL,   /* 25 fps */
  SINEW_TIME_NTSC,  /* 30 fps */
  SINEW_TIME_SHOW,  /* 48 fps */
  SINEW_TIME_PALF,  /* 50 fps */
  SINEW_TIME_NTSCF, /* 60 fps */
  /* the other rates Maya writes in currentUnit -t (names as Maya spells them) */
  SINEW_TIME_23_976FPS, /* "23.976fps": 24000/1001 */
  SINEW_TIME_29_97FPS,  /* "29.97fps": 30000/1001 */
  SINEW_TIME_29_97DF,   /* "29.97df": 30000/1001, drop-frame display */
  SINEW_TIME_47_952FPS, /* "47.952fps": 48000/1001 */
  SINEW_TIME_59_94FPS,  /* "59.94fps": 60000/1001 */
  SINEW_TIME_HOUR,      /* "hour": 1/3600 */
  SINEW_TIME_MIN,       /* "min": 1/60 */
  SINEW_TIME_SEC,       /* "sec": 1 */
  SINEW_TIME_MILLISEC,  /* "millisec": 1000 */
  SINEW_TIME_2FPS, SINEW_TIME_3FPS, SINEW_TIME_4FPS, SINEW_TIME_5FPS, SINEW_TIME_6FPS, SINEW_TIME_8FPS,
  SINEW_TIME_10FPS, SINEW_TIME_12FPS, SINEW_TIME_16FPS, SINEW_TIME_20FPS, SINEW_TIME_40FPS, SINEW_TIME_75FPS,
  SINEW_TIME_80FPS, SINEW_TIME_100FPS, SINEW_TIME_120FPS, SINEW_TIME_125FPS, SINEW_TIME_150FPS,
  SINEW_TIME_200FPS, SINEW_TIME_240FPS, SINEW_TIME_250FPS, SINEW_TIME_300FPS, SINEW_TIME_375FPS,
  SINEW_TIME_400FPS, SINEW_TIME_500FPS, SINEW_TIME_600FPS, SINEW_TIME_750FPS, SINEW_TIME_1200FPS,
  SINEW_TIME_1500FPS, SINEW_TIME_2000FPS, SINEW_TIME_3000FPS, SINEW_TIME_6000FPS, SINEW_TIME_44100FPS,
  SINEW_TIME_48000FPS,
  SINEW_TIME_UNIT_MAX
} sinew_time_unit_t;

/* "film" -> SINEW_TIME_FILM, "59.94fps" -> SINEW_TIME_59_94FPS; a whole rate written "<n>fps"
 * is the unit of that rate ("24fps" is film); SINEW_TIME_INVALID for unknown names. */
SINEW_API sinew_time_unit_t sinew_time_unit_from_name(const char *name);
SINEW_API const char *sinew_time_unit_name(sinew_time_unit_t unit);
SINEW_API double sinew_time_unit_fps(sinew_time_unit_t unit);

/* The graph's time node: time1, or the first node of type time when none is named time1 (a
 * renamed time1); created as time1 when the graph has no time node. */
SINEW_API int sinew_time_node(sinew_graph_t *graph, sinew_node_t *out);
/* The scene's frame rate, kept on time1 (film by default). */
SINEW_API int sinew_time_set_unit(sinew_graph_t *graph, sinew_time_unit_t unit);
SINEW_API sinew_time_unit_t sinew_time_get_unit(sinew_graph_t *graph);
/* Current time in seconds (time1.outTime) and in frames at the scene's rate. Setting it
 * dirties only what depends on time. */
SINEW_API int sinew_time_set_seconds(sinew_graph_t *graph, double seconds);
SINEW_API int sinew_time_get_seconds(sinew_graph_t *graph, double *out);
SINEW_API int sinew_time_set_frame(sinew_graph_t *graph, double frame);
SINEW_API int sinew_time_get_frame(sinew_graph_t *graph, double *out);

/* ---- linear and angle units (currentUnit -l / -a) ------------------------------------------
 * Values are always stored in centimetres and radians; the scene's units say how commands,
 * files and expressions read and write numbers (degrees and centimetres by default). Kept on
 * time1 with the time unit. */
typedef enum sinew_linear_unit {
  SINEW_LINEAR_INVALID = 0,
  SINEW_LINEAR_MM,
  SINEW_LINEAR_CM, /* the default */
  SINEW_LINEAR_M,
  SINEW_LINEAR_KM,
  SINEW_LINEAR_IN,
  SINEW_LINEAR_FT,
  SINEW_LINEAR_YD,
  SINEW_LINEAR_MI,
  SINEW_LINEAR_UNIT_MAX
} sinew_linear_unit_t;

typedef enum sinew_angle_unit {
  SINEW_ANGLE_INVALID = 0,
  SINEW_ANGLE_DEG, /* the default */
  SINEW_ANGLE_RAD,
  SINEW_ANGLE_MIN, /* minutes of arc */
  SINEW_ANGLE_SEC, /* seconds of arc */
  SINEW_ANGLE_UNIT_MAX
} sinew_angle_unit_t;

/* "centimeter" or "cm" -> SINEW_LINEAR_CM; INVALID for unknown names. */
SINEW_API sinew_linear_unit_t sinew_linear_unit_from_name(const char *name);
SINEW_API const char *sinew_linear_unit_name(sinew_linear_unit_t unit); /* "centimeter" */
SINEW_API double sinew_linear_unit_cm(sinew_linear_unit_t unit);      /* centimetres per unit */
/* "degree" or "deg" -> SINEW_ANGLE_DEG. */
SINEW_API sinew_angle_unit_t sinew_angle_unit_from_name(const char *name);
SINEW_API const char *sinew_angle_unit_name(sinew_angle_unit_t unit); /* "degree" */
SINEW_API double sinew_angle_unit_radians(sinew_angle_unit_t unit);   /* radians per unit */
SINEW_API int sinew_scene_set_linear_unit(sinew_graph_t *graph, sinew_linear_unit_t unit);
SINEW_API sinew_linear_unit_t sinew_scene_linear_unit(sinew_graph_t *graph);
SINEW_API int sinew_scene_set_angle_unit(sinew_graph_t *graph, sinew_angle_unit_t unit);
SINEW_API sinew_angle_unit_t sinew_scene_angle_unit(sinew_graph_t *graph);
/* A number that changes whenever the units of some scene (any graph's time node: time, linear,
 * angle) may have changed, so that a cache of unit factors can tell it is still good with one
 * load instead of asking each graph (thread-safe, never the same twice in a process). */
SINEW_API uint64_t sinew_scene_units_serial(void);

/* ---- animation curves ---------------------------------------------------------------------- */

/* The keys of an animation curve (animCurveTL ... UU) as its evaluation uses them: sorted by
 * time, one per time, and for each {time, in x, in y, out x, out y}, the tangents computed for
 * the key's tangent type (stored ones for fixed keys). Times and tangent x are in seconds on
 * time curves and in input units on U curves; values and tangent y in the output's internal
 * unit. Fills up to cap keys; *out_count is the number of keys. SINEW_ETYPE for another node. */
SINEW_API int sinew_anim_curve_tangents(sinew_graph_t *graph, sinew_node_t curve, double (*out)[5],
                                        size_t cap, size_t *out_count);

/* ---- DAG --------------------------------------------------------------------------------- */

enum sinew_parent_flags {
  /* Keep the node's world position (parent -a, the default of Maya's parent command): its
   * local values are solved again under the new parent. Without it the local values are kept
   * (parent -r) and the node moves with its new parent. */
  SINEW_PARENT_KEEP_WORLD = 1u << 0
};

/* Parents node under parent (the zero handle: under the world), as Maya's parent command:
 * a joint parented under a joint gets parent.scale -> child.inverseScale connected (and the
 * old one broken). With KEEP_WORLD, translate/rotate/scale/shear are solved so the world
 * matrix stays; for a joint, scale, rotateAxis and jointOrient are kept and the rotation goes
 * into rotate. Fails, leaving everything as it was, when the world matrix cannot be kept
 * (a singular parent). */
SINEW_API int sinew_dag_parent(sinew_graph_t *graph, sinew_node_t node, sinew_node_t parent,
                               uint32_t flags);

/* Reads a transform's world matrix (worldMatrix[0]), evaluating as needed. */
SINEW_API int sinew_dag_world_matrix(sinew_graph_t *graph, sinew_node_t node, sinew_mat4_t *out);

/* Writes translate/rotate/scale/shear of a transform or joint so that its local matrix becomes
 * `local` (pivots, rotateAxis, jointOrient and inverseScale are kept). SINEW_ERANGE when the
 * matrix cannot be decomposed. */
SINEW_API int sinew_dag_set_local_matrix(sinew_graph_t *graph, sinew_node_t node,
                                         const sinew_mat4_t *local);

/* ---- constraints (nodes/constraint.c, docs/rigging.md) -------------------------------------- */

/* True when node is a pointConstraint, orientConstraint, parentConstraint, aimConstraint,
 * scaleConstraint or poleVectorConstraint. */
SINEW_API bool sinew_constraint_is(sinew_graph_t *graph, sinew_node_t node);
/* Maintain offset (the commands' -mo): the offset that makes the constraint's outputs reproduce
 * the constrained object's translate / rotate / scale, computed from the constraint's present
 * inputs and the object's channels: object_values (translate, rotate in radians, scale: 3
 * vectors) when given, else the object's own values now (which must then not be fed by the
 * constraint: read them before connecting its outputs, or before adding targets).
 * parentConstraint: target_index names the target; out[0] is its targetOffsetTranslate and
 * out[1] its targetOffsetRotate (radians, in the target's rotate order). The others:
 * target_index is ignored and out[0] is the offset attribute's value (a distance for point,
 * Euler angles in radians (xyz) for orient and aim, scale factors for scale, zero for
 * poleVector). Nothing is changed. SINEW_EINVAL without out; SINEW_ETYPE for a node that is
 * not a constraint or an object that is not a transform; SINEW_ERANGE when every weight is 0 or
 * a target's matrix is singular; SINEW_ENOTFOUND for a parentConstraint target index it lacks. */
SINEW_API int sinew_constraint_offset(sinew_graph_t *graph, sinew_node_t constraint, sinew_node_t object,
                                      int32_t target_index, const sinew_vec3_t *object_values,
                                      sinew_vec3_t *out);

/* ---- IK ------------------------------------------------------------------------------------ */

/* The joints an ikHandle's chain spans, start joint first and end joint last, found from its
 * startJoint and endEffector connections (the end joint is the joint beside the effector whose
 * translate feeds the effector's). Fills up to cap handles; *count is the total. */
SINEW_API int sinew_ik_chain(sinew_graph_t *graph, sinew_node_t handle, sinew_node_t *out, size_t cap,
                             size_t *count);
/* Joins an ikHandle to its chain so that it drives the chain's rotations (docs/rigging.md#ik):
 * each rotating joint's rotate value moves to its hidden sinewFkRotate (the FK rotation ikBlend
 * blends with), the chain joints' inputs are connected to the handle's hidden inputs, and the
 * handle's sinewIkRotate[k] to joint k's rotate; a spline handle also takes its start joint's
 * translate when it is free (its value moves to sinewFkTranslate, the handle's
 * sinewIkRootTranslate feeds it: rootOnCurve). These connections are sinew's own and are not
 * written to files. Already joined: nothing to do. All or nothing; fails with SINEW_ENOTFOUND
 * (no start joint, effector or solver), SINEW_EINVAL (effector not below the start joint),
 * SINEW_EUNSUPPORTED (a solver other than ikRPsolver / ikSCsolver, more than two bones) or
 * SINEW_ECONNECTED (a chain joint's rotate is driven or locked). */
SINEW_API int sinew_ik_wire(sinew_graph_t *graph, sinew_node_t handle);
/* Whether sinew_ik_wire() has joined the handle to its chain. */
SINEW_API bool sinew_ik_wired(sinew_graph_t *graph, sinew_node_t handle);

#ifdef __cplusplus
}
#endif
#endif
