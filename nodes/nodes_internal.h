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

void sinew__read_local_inputs(sinew_graph_t *g, sinew_node_t n, bool joint, sinew__local_inputs *in);
void sinew__transform_local(const sinew__local_inputs *in, sinew_mat4_t *out);
void sinew__joint_local(const sinew__local_inputs *in, sinew_mat4_t *out);

int sinew__register_dag_types(sinew_graph_t *g);
int sinew__register_time_types(sinew_graph_t *g);

#endif
