/* nodes/nodes.c: registration of the built-in types, scene creation, and DAG operations that
 * follow Maya's parent command (joint inverseScale links, keeping the world position). */
#include <math.h>
#include <string.h>

#include "nodes/nodes_internal.h"

int sinew_nodes_register(sinew_graph_t *g) {
  if (!g) return SINEW_EINVAL;
  if (sinew_find_node_type(g, "transform")) return SINEW_OK;
  int rc = sinew__register_dag_types(g);
  if (!rc) rc = sinew__register_time_types(g);
  if (!rc) rc = sinew__register_mesh_types(g);
  if (!rc) rc = sinew__register_skin_types(g);
  if (!rc) rc = sinew__register_deformer_chain_types(g);
  if (!rc) rc = sinew__register_poly_modifier_types(g);
  if (!rc) rc = sinew__register_blend_shape_types(g);
  if (!rc) rc = sinew__register_cluster_types(g);
  if (!rc) rc = sinew__register_pose_types(g);
  if (!rc) rc = sinew__register_anim_curve_types(g);
  if (!rc) rc = sinew__register_anim_blend_types(g);
  if (!rc) rc = sinew__register_object_set_types(g);
  if (!rc) rc = sinew__register_utility_types(g);
  if (!rc) rc = sinew__register_matrix_types(g);
  if (!rc) rc = sinew__register_locator_types(g);
  if (!rc) rc = sinew__register_constraint_types(g);
  if (!rc) rc = sinew__register_ik_types(g);
  if (!rc) rc = sinew__register_curve_types(g);
  if (!rc) rc = sinew__register_follicle_types(g);
  return rc;
}

int sinew_scene_create(const sinew_graph_desc_t *desc, sinew_graph_t **out) {
  if (!out) return SINEW_EINVAL;
  sinew_graph_t *g;
  int rc = sinew_graph_create(desc, &g);
  if (rc) return rc;
  sinew_node_t t;
  if ((rc = sinew_nodes_register(g)) || (rc = sinew_time_node(g, &t))) {
    sinew_graph_destroy(g);
    return rc;
  }
  *out = g;
  return SINEW_OK;
}

static bool is_type(sinew_graph_t *g, sinew_node_t n, const char *type) {
  return sinew_node_type_is_a(sinew_node_type(g, n), type);
}

int sinew_dag_world_matrix(sinew_graph_t *g, sinew_node_t n, sinew_mat4_t *out) {
  if (!is_type(g, n, "dagNode"))
    return sinew_graph_set_error(g, SINEW_ETYPE, "%s is not a DAG node",
                                 sinew_node_name(g, n) ? sinew_node_name(g, n) : "(invalid node)");
  sinew_plug_t p = sinew_plug_make(n, sinew__dag.world_matrix, 1, (int32_t[]){0});
  return sinew_get_matrix(g, &p, out);
}

/* Refuses (with the plug's name) when attr on n, or one of its children, is locked or connected:
 * writing it would fail. */
static int check_settable(sinew_graph_t *g, sinew_node_t n, uint32_t attr, const char *what) {
  sinew_plug_t p = sinew_plug_make(n, attr, 0, NULL);
  sinew_attr_info_t info;
  if (sinew_node_attr_info(g, n, attr, &info)) return sinew_graph_errcode(g);
  char buf[256];
  for (uint32_t i = 0; i <= info.child_count; i++) {
    sinew_plug_t q = p;
    if (i > 0) sinew_plug_child(g, &p, info.children[i - 1], &q);
    if (sinew_plug_locked(g, &q)) {
      sinew_plug_format(g, &q, false, buf, sizeof buf);
      return sinew_graph_fail(g, SINEW_ELOCKED, what, "%s is locked", buf);
    }
    if (sinew_plug_source(g, &q, NULL)) {
      sinew_plug_format(g, &q, false, buf, sizeof buf);
      return sinew_graph_fail(g, SINEW_ECONNECTED, what, "%s is connected", buf);
    }
  }
  return SINEW_OK;
}

static int check_local_settable(sinew_graph_t *g, sinew_node_t n, bool joint, const char *what) {
  int rc = check_settable(g, n, sinew__dag.translate, what);
  if (!rc) rc = check_settable(g, n, sinew__dag.rotate, what);
  if (!rc) rc = check_settable(g, n, sinew__dag.scale, what);
  if (!rc && !joint) rc = check_settable(g, n, sinew__dag.shear, what);
  return rc;
}

static int set3(sinew_graph_t *g, sinew_node_t n, uint32_t attr, sinew_vec3_t v) {
  sinew_plug_t p = sinew_plug_make(n, attr, 0, NULL);
  double d[3] = {v.x, v.y, v.z};
  return sinew_set_doubles(g, &p, d, 3);
}

static sinew_vec3_t mul3(sinew_vec3_t a, sinew_vec3_t b) { return (sinew_vec3_t){a.x * b.x, a.y * b.y, a.z * b.z}; }

/* The translate/rotate/scale/shear that give local matrix L with the other inputs as in `in`. */
typedef struct local_solution {
  sinew_vec3_t t, r, s, sh;
} local_solution;

static int solve_local(sinew_graph_t *g, bool joint, const sinew__local_inputs *in, const sinew_mat4_t *L,
                       const char *what, local_solution *out) {
  if (!sinew_mat4_is_finite(L)) return sinew_graph_fail(g, SINEW_ERANGE, what, "matrix is not finite");
  sinew_vec3_t t, r, s, sh = {0, 0, 0};
  sinew_mat4_t ra, rai, linear = *L, tmp;
  linear.m[3][0] = linear.m[3][1] = linear.m[3][2] = 0;
  sinew_mat4_euler(in->ra, SINEW_ROTATE_XYZ, &ra);
  sinew_mat4_transpose(&ra, &rai); /* a rotation's inverse */
  if (joint) {
    /* linear = S * RA * R * JO * IS: keep S, RA, JO, IS; solve R (and any leftover scale). */
    sinew_mat4_t si, post_inv, jo_is;
    sinew_vec3_t inv_s = {in->s.x ? 1 / in->s.x : 1, in->s.y ? 1 / in->s.y : 1, in->s.z ? 1 / in->s.z : 1};
    sinew_mat4_scale(inv_s, &si);
    sinew_mat4_euler(in->jo, SINEW_ROTATE_XYZ, &jo_is);
    if (in->ssc) {
      sinew_vec3_t isv = {in->is.x ? 1 / in->is.x : 1, in->is.y ? 1 / in->is.y : 1,
                          in->is.z ? 1 / in->is.z : 1};
      sinew_mat4_scale(isv, &tmp);
      sinew_mat4_mul(&jo_is, &tmp, &jo_is);
    }
    if (!sinew_mat4_inverse(&jo_is, &post_inv))
      return sinew_graph_fail(g, SINEW_ERANGE, what, "singular inverseScale");
    sinew_mat4_mul(&si, &linear, &tmp);
    sinew_mat4_mul(&rai, &tmp, &tmp);
    sinew_mat4_mul(&tmp, &post_inv, &tmp);
    sinew_vec3_t s2;
    if (!sinew_mat4_decompose(&tmp, in->order, NULL, &r, &s2, NULL))
      return sinew_graph_fail(g, SINEW_ERANGE, what, "matrix cannot be decomposed");
    s = mul3(in->s, s2);
    t = (sinew_vec3_t){L->m[3][0], L->m[3][1], L->m[3][2]};
  } else {
    /* linear = S * SH * RA * R: decompose into S, SH and a rotation, then take RA out. */
    sinew_mat4_t rot;
    sinew_vec3_t rtot;
    if (!sinew_mat4_decompose(&linear, in->order, NULL, &rtot, &s, &sh))
      return sinew_graph_fail(g, SINEW_ERANGE, what, "matrix cannot be decomposed");
    sinew_mat4_euler(rtot, in->order, &rot);
    sinew_mat4_mul(&rai, &rot, &tmp);
    sinew_euler_from_mat4(&tmp, in->order, &r);
    /* translate: what is left once the pivots' contribution is known */
    sinew__local_inputs z = *in;
    z.t = (sinew_vec3_t){0, 0, 0};
    z.r = r;
    z.s = s;
    z.sh = sh;
    sinew_mat4_t m0;
    sinew__transform_local(&z, &m0);
    t = (sinew_vec3_t){L->m[3][0] - m0.m[3][0], L->m[3][1] - m0.m[3][1], L->m[3][2] - m0.m[3][2]};
  }
  *out = (local_solution){t, r, s, sh};
  return SINEW_OK;
}

/* Writes a solution checked settable beforehand (so this does not fail half way). */
static int write_local(sinew_graph_t *g, sinew_node_t n, bool joint, const local_solution *sol) {
  int rc;
  if ((rc = set3(g, n, sinew__dag.translate, sol->t)) || (rc = set3(g, n, sinew__dag.rotate, sol->r)) ||
      (rc = set3(g, n, sinew__dag.scale, sol->s)))
    return rc;
  if (!joint) rc = set3(g, n, sinew__dag.shear, sol->sh);
  return rc;
}

int sinew_dag_set_local_matrix(sinew_graph_t *g, sinew_node_t n, const sinew_mat4_t *L) {
  const char *what = "set local matrix";
  if (!L) return sinew_graph_fail(g, SINEW_EINVAL, what, "no matrix");
  if (!is_type(g, n, "transform"))
    return sinew_graph_fail(g, SINEW_ETYPE, what, "%s is not a transform",
                            sinew_node_name(g, n) ? sinew_node_name(g, n) : "(invalid node)");
  bool joint = is_type(g, n, "joint");
  sinew__local_inputs in;
  int rc = sinew__read_local_inputs(g, n, joint, &in);
  local_solution sol;
  if (!rc) rc = solve_local(g, joint, &in, L, what, &sol);
  if (!rc) rc = check_local_settable(g, n, joint, what);
  if (!rc) rc = write_local(g, n, joint, &sol);
  return rc;
}

/* The connection parent.scale -> joint.inverseScale, if any: its source node. */
static bool inverse_scale_source(sinew_graph_t *g, sinew_node_t n, sinew_plug_t *src) {
  sinew_plug_t is = sinew_plug_make(n, sinew__dag.inverse_scale, 0, NULL);
  return sinew_plug_source(g, &is, src);
}

/* Maya's joint rule: under a joint, parent.scale -> node.inverseScale (replacing any other
 * source); anywhere else no source and inverseScale (1, 1, 1). */
static int relink_inverse_scale(sinew_graph_t *g, sinew_node_t n, sinew_node_t parent, bool parent_joint) {
  sinew_plug_t is = sinew_plug_make(n, sinew__dag.inverse_scale, 0, NULL), src;
  bool had_src = inverse_scale_source(g, n, &src);
  int rc;
  if (parent_joint) {
    sinew_plug_t ps = sinew_plug_make(parent, sinew__dag.scale, 0, NULL);
    if (had_src && sinew_plug_equal(&src, &ps)) return SINEW_OK;
    return sinew_connect(g, &ps, &is, SINEW_CONNECT_FORCE, NULL);
  }
  if (had_src && (rc = sinew_disconnect(g, &src, &is))) return rc;
  return set3(g, n, sinew__dag.inverse_scale, (sinew_vec3_t){1, 1, 1});
}

int sinew_dag_parent(sinew_graph_t *g, sinew_node_t n, sinew_node_t parent, uint32_t flags) {
  if (!is_type(g, n, "dagNode")) return sinew_graph_fail(g, SINEW_ETYPE, "parent", "not a DAG node");
  if (parent.gen && !is_type(g, parent, "dagNode"))
    return sinew_graph_fail(g, SINEW_ETYPE, "parent", "%s is not a DAG node",
                            sinew_node_name(g, parent) ? sinew_node_name(g, parent) : "(invalid node)");
  bool keep = (flags & SINEW_PARENT_KEEP_WORLD) && is_type(g, n, "transform");
  bool joint = is_type(g, n, "joint");
  bool parent_joint = parent.gen && is_type(g, parent, "joint");
  sinew_plug_t is = sinew_plug_make(n, sinew__dag.inverse_scale, 0, NULL);
  local_solution sol;
  int rc;
  /* Everything that can be refused is worked out before anything changes. */
  if (joint) {
    sinew_attr_info_t info;
    sinew_node_attr_info(g, n, sinew__dag.inverse_scale, &info);
    for (uint32_t i = 0; i <= info.child_count; i++) {
      sinew_plug_t q = is;
      if (i > 0) sinew_plug_child(g, &is, info.children[i - 1], &q);
      if (sinew_plug_locked(g, &q)) {
        char buf[256];
        sinew_plug_format(g, &q, false, buf, sizeof buf);
        return sinew_graph_fail(g, SINEW_ELOCKED, "parent", "%s is locked", buf);
      }
    }
  }
  if (keep) {
    sinew_mat4_t world, pworld, opm, target, inv;
    if ((rc = sinew_dag_world_matrix(g, n, &world))) return rc;
    sinew_mat4_identity(&pworld);
    if (parent.gen && (rc = sinew_dag_world_matrix(g, parent, &pworld))) return rc;
    sinew_plug_t po = sinew_plug_make(n, sinew__dag.offset_parent_matrix, 0, NULL);
    sinew_plug_t pit = sinew_plug_make(n, sinew__dag.inherits_transform, 0, NULL);
    bool inherits = true;
    if ((rc = sinew_get_matrix(g, &po, &opm)) || (rc = sinew_get_bool(g, &pit, &inherits))) return rc;
    if (!inherits) sinew_mat4_identity(&pworld);
    sinew_mat4_mul(&opm, &pworld, &pworld);
    if (!sinew_mat4_inverse(&pworld, &inv))
      return sinew_graph_fail(g, SINEW_ERANGE, "parent", "%s: the new parent's world matrix is singular",
                              sinew_node_name(g, n));
    sinew_mat4_mul(&world, &inv, &target);
    /* solved with the inverseScale the joint will have under its new parent */
    sinew__local_inputs in;
    if ((rc = sinew__read_local_inputs(g, n, joint, &in))) return rc;
    if (joint) {
      in.is = (sinew_vec3_t){1, 1, 1};
      if (parent_joint) {
        double v[3] = {1, 1, 1};
        sinew_plug_t ps = sinew_plug_make(parent, sinew__dag.scale, 0, NULL);
        if ((rc = sinew_get_doubles(g, &ps, v, 3, NULL))) return rc;
        in.is = (sinew_vec3_t){v[0], v[1], v[2]};
      }
    }
    if ((rc = solve_local(g, joint, &in, &target, "parent", &sol))) return rc;
    if ((rc = check_local_settable(g, n, joint, "parent"))) return rc;
  }
  /* A cycle refusal is found by the hierarchy change itself; a joint's link is made first only
   * when the hierarchy is sure to accept the move. */
  if (parent.gen)
    for (sinew_node_t x = parent; x.gen; x = sinew_node_parent(g, x))
      if (x.index == n.index && x.gen == n.gen) return sinew_node_set_parent(g, n, parent);
  /* Then the changes, in a transaction: a failure (out of memory) takes them all back. */
  if ((rc = sinew_graph_begin(g))) return rc;
  rc = joint ? relink_inverse_scale(g, n, parent, parent_joint) : SINEW_OK;
  if (!rc) rc = sinew_node_set_parent(g, n, parent);
  if (!rc && keep) rc = write_local(g, n, joint, &sol);
  return sinew_graph_end(g, rc);
}
