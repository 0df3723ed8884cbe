/* cmds/cmd_everyday.c: the transform commands rig scripts use on every other line: xform,
 * move, rotate, scale and group (issue 12, "The everyday commands").
 *
 * World-space queries read the world matrix; world-space edits solve the local values that
 * give the wanted world value under the node's parent (offsetParentMatrix and the parent's
 * world matrix). Each command checks its nodes and flags before changing anything, and a late
 * failure puts back every value it set (a group it made is deleted), so a failed command leaves
 * the scene as it was. Reaches the graph only through the public API. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds_internal.h"
#include "sinew/curve.h"
#include "sinew/mesh.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static bool is_type(sinew_graph_t *g, sinew_node_t n, const char *type) {
  const sinew_node_type_t *t = sinew_node_type(g, n);
  return t && sinew_node_type_is_a(t, type);
}

static sinew_vec3_t v3(const double a[3]) { return (sinew_vec3_t){a[0], a[1], a[2]}; }

/* ---- matrices ------------------------------------------------------------------------------------ */

static int get3(sinew_graph_t *g, sinew_node_t n, const char *attr, double out[3]) {
  sinew_plug_t p = sinew__attr_plug(g, n, attr);
  return sinew_get_doubles(g, &p, out, 3, NULL);
}

static int set3(sinew_graph_t *g, sinew_node_t n, const char *attr, const double v[3]) {
  sinew_plug_t p = sinew__attr_plug(g, n, attr);
  return sinew_set_doubles(g, &p, v, 3);
}

static int above_inverse(sinew_graph_t *g, sinew_node_t n, sinew_mat4_t *inv) {
  sinew_mat4_t above;
  int rc = sinew__above_local(g, n, &above);
  if (rc) return rc;
  if (!sinew_mat4_inverse(&above, inv))
    return sinew_graph_set_error(g, SINEW_ERANGE, "%s: the parent's world matrix is singular; no local value "
                                 "gives that world value", sinew_node_name(g, n));
  return SINEW_OK;
}

/* Moves the node by d in world space: translate changes by d carried into the parent's space
 * (translate is the last, purely additive factor of the local matrix). */
static int move_world_by(sinew_graph_t *g, sinew_node_t n, const double d[3]) {
  sinew_mat4_t inv;
  double t[3];
  int rc = above_inverse(g, n, &inv);
  if (!rc) rc = get3(g, n, "translate", t);
  if (rc) return rc;
  sinew_vec3_t r;
  sinew_mat4_transform_vector(v3(d), &inv, &r);
  t[0] += r.x, t[1] += r.y, t[2] += r.z;
  return set3(g, n, "translate", t);
}

/* Puts the node's world translation (the world matrix's last row) at p. */
static int move_world_to(sinew_graph_t *g, sinew_node_t n, const double p[3]) {
  sinew_mat4_t w;
  int rc = sinew_dag_world_matrix(g, n, &w);
  if (rc) return rc;
  double d[3] = {p[0] - w.m[3][0], p[1] - w.m[3][1], p[2] - w.m[3][2]};
  return move_world_by(g, n, d);
}

/* Gives the node the world matrix `want` (its translation kept exactly through the translate
 * row): the local matrix is solved under the parent and decomposed into translate, rotate,
 * scale and shear (pivots, rotateAxis and jointOrient kept). */
static int set_world_matrix(sinew_graph_t *g, sinew_node_t n, const sinew_mat4_t *want) {
  sinew_mat4_t inv, local;
  int rc = above_inverse(g, n, &inv);
  if (rc) return rc;
  sinew_mat4_mul(want, &inv, &local);
  if ((rc = sinew_dag_set_local_matrix(g, n, &local))) return rc;
  double p[3] = {want->m[3][0], want->m[3][1], want->m[3][2]};
  return move_world_to(g, n, p);
}

static int node_roo(sinew_graph_t *g, sinew_node_t n) {
  double r = 0;
  sinew_plug_t p = sinew__attr_plug(g, n, "rotateOrder");
  if (sinew_get_double(g, &p, &r) || r < 0 || r > 5) return 0;
  return (int)r;
}

/* The world matrix with its rotation replaced by Euler angles r (radians, the node's order),
 * scale and shear kept. */
static int world_with_rotation(sinew_graph_t *g, sinew_node_t n, const double r[3], sinew_mat4_t *out) {
  sinew_mat4_t w;
  sinew_vec3_t t, rot, s, sh;
  int rc = sinew_dag_world_matrix(g, n, &w);
  if (rc) return rc;
  sinew_rotate_order_t o = (sinew_rotate_order_t)node_roo(g, n);
  if (!sinew_mat4_decompose(&w, o, &t, &rot, &s, &sh))
    return sinew_graph_set_error(g, SINEW_ERANGE, "%s: the world matrix is singular", sinew_node_name(g, n));
  sinew_mat4_compose(t, v3(r), o, s, sh, out);
  return SINEW_OK;
}

/* Moves a pivot (rotatePivot or scalePivot) to object-space point p without moving the object,
 * as Maya does: rotatePivotTranslate / scalePivotTranslate take up the difference. */
static int set_pivot(sinew_graph_t *g, sinew_node_t n, bool rotate_pivot, const double p[3]) {
  double old[3], comp[3], r[3], ra[3], s[3], sh[3];
  const char *pv = rotate_pivot ? "rotatePivot" : "scalePivot";
  const char *pt = rotate_pivot ? "rotatePivotTranslate" : "scalePivotTranslate";
  int rc = get3(g, n, pv, old);
  if (!rc) rc = get3(g, n, pt, comp);
  if (!rc) rc = get3(g, n, "rotate", r);
  if (!rc) rc = get3(g, n, "rotateAxis", ra);
  if (!rc) rc = get3(g, n, "scale", s);
  if (!rc) rc = get3(g, n, "shear", sh);
  if (rc) return rc;
  sinew_mat4_t m, a, b;
  if (rotate_pivot) {
    sinew_mat4_euler(v3(ra), SINEW_ROTATE_XYZ, &a);
    sinew_mat4_euler(v3(r), (sinew_rotate_order_t)node_roo(g, n), &b);
  } else {
    sinew_mat4_scale(v3(s), &a);
    sinew_mat4_shear(sh[0], sh[1], sh[2], &b);
  }
  sinew_mat4_mul(&a, &b, &m);
  /* -p M p + pt stays: pt' = pt + d M - d for d = p' - p */
  double d[3] = {p[0] - old[0], p[1] - old[1], p[2] - old[2]};
  sinew_vec3_t dm;
  sinew_mat4_transform_vector(v3(d), &m, &dm);
  comp[0] += dm.x - d[0], comp[1] += dm.y - d[1], comp[2] += dm.z - d[2];
  if ((rc = set3(g, n, pv, p))) return rc;
  return set3(g, n, pt, comp);
}

/* The nodes a command works on: its positional arguments from `first`, else the selection.
 * Each must be a transform. *out is sinew_malloc'd. */
static int gather_transforms(sinew_cmd_t *cmd, size_t first, sinew_node_t **out, size_t *count) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  size_t argc = sinew_cmd_argc(cmd);
  size_t n = argc > first ? argc - first : s->scene->nsel;
  if (n == 0) return sinew_cmd_error(cmd, SINEW_EINVAL, "no object given and nothing selected");
  sinew_node_t *nodes = sinew_malloc(n * sizeof *nodes);
  if (!nodes) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  int rc = SINEW_OK;
  for (size_t i = 0; i < n && !rc; i++) {
    if (argc > first) rc = sinew__cmd_node(cmd, sinew_cmd_arg_string(cmd, first + i), &nodes[i]);
    else nodes[i] = s->scene->selection[i];
    if (!rc && !sinew_node_valid(g, nodes[i])) rc = sinew_cmd_error(cmd, SINEW_ESTALE, "a selected node was deleted");
    if (!rc && !is_type(g, nodes[i], "transform"))
      rc = sinew_cmd_error(cmd, SINEW_ETYPE, "%s is a %s, not a transform", sinew_node_name(g, nodes[i]),
                           sinew_node_type_name(sinew_node_type(g, nodes[i])));
  }
  if (rc) {
    sinew_free(nodes);
    return rc;
  }
  *out = nodes;
  *count = n;
  return SINEW_OK;
}

static int result_triple(sinew_cmd_t *cmd, const double v[3], double unit) {
  int rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_FLOAT_ARRAY);
  for (int k = 0; k < 3 && !rc; k++) rc = sinew_cmd_result_append_double(cmd, v[k] / unit);
  return rc;
}

/* Whether the command can set attribute `attr` (and each of its children) of n: not locked and
 * not fed by a connection. Checked before anything changes, because a value set and then set
 * back still counts as set (it is saved). */
static int check_settable(sinew_cmd_t *cmd, sinew_graph_t *g, sinew_node_t n, const char *attr) {
  uint32_t id = sinew_node_attr(g, n, attr);
  sinew_attr_info_t info;
  if (id == UINT32_MAX || sinew_node_attr_info(g, n, id, &info))
    return sinew_cmd_error(cmd, SINEW_ENOTFOUND, "%s has no attribute '%s'", sinew_node_name(g, n), attr);
  for (uint32_t k = 0; k <= info.child_count; k++) {
    uint32_t a = k == 0 ? id : info.children[k - 1];
    sinew_attr_info_t ai;
    if (sinew_node_attr_info(g, n, a, &ai)) continue;
    sinew_plug_t p = sinew_plug_make(n, a, 0, NULL), src;
    if (sinew_plug_locked(g, &p))
      return sinew_cmd_error(cmd, SINEW_ELOCKED, "%s.%s is locked", sinew_node_name(g, n), ai.name);
    if (sinew_plug_source(g, &p, &src))
      return sinew_cmd_error(cmd, SINEW_ECONNECTED, "%s.%s is connected from %s", sinew_node_name(g, n), ai.name,
                             sinew_node_name(g, src.node));
  }
  return SINEW_OK;
}

/* The same for a list of attributes (NULL-terminated) on each node. */
static int check_all_settable(sinew_cmd_t *cmd, const sinew_node_t *nodes, size_t count, const char *const *attrs) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  for (size_t i = 0; i < count; i++)
    for (size_t k = 0; attrs[k]; k++) {
      int rc = check_settable(cmd, g, nodes[i], attrs[k]);
      if (rc) return rc;
    }
  return SINEW_OK;
}

/* Runs edit(g, node, ud) on each node (a failure part-way is taken back by the command's
 * transaction). */
typedef int (*edit_fn)(sinew_cmd_t *cmd, sinew_graph_t *g, sinew_node_t n, void *ud);

static int edit_all(sinew_cmd_t *cmd, const sinew_node_t *nodes, size_t count, edit_fn fn, void *ud) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  int rc = SINEW_OK;
  for (size_t i = 0; i < count && !rc; i++) rc = fn(cmd, g, nodes[i], ud);
  return rc ? sinew__graph_error(cmd, rc) : SINEW_OK;
}

/* ---- xform --------------------------------------------------------------------------------------- */

static const sinew_cmd_flag_t xform_flags[] = {
    {"translation", "t", "lll", 0},         {"rotation", "ro", "aaa", 0},
    {"scale", "s", "fff", 0},               {"shear", "sh", "fff", 0},
    {"matrix", "m", "ffffffffffffffff", 0}, {"pivots", "piv", "lll", 0},
    {"rotatePivot", "rp", "lll", 0},        {"scalePivot", "sp", "lll", 0},
    {"rotateAxis", "ra", "aaa", 0},         {"rotateOrder", "roo", "s", 0},
    {"worldSpace", "ws", "", 0},            {"objectSpace", "os", "", 0},
    {"absolute", "a", "", 0},               {"relative", "r", "", 0},
    {"preserve", "p", "b", 0},              {"boundingBox", "bb", "", 0},
    {"query", "q", "", SINEW_CMD_QUERY},    {"edit", "e", "", SINEW_CMD_EDIT}};

/* The bounding box of the meshes at and below n (intermediate objects left out), in world space
 * or in n's object space: lo/hi stay at +-HUGE_VAL when there are none. */
static int bbox_walk(sinew_graph_t *g, sinew_node_t n, const sinew_mat4_t *to_space, double lo[3], double hi[3]) {
  int rc = SINEW_OK;
  if (is_type(g, n, "mesh")) {
    bool io = false;
    sinew_plug_t pio = sinew__attr_plug(g, n, "intermediateObject");
    if ((rc = sinew_get_bool(g, &pio, &io))) return rc;
    if (!io) {
      sinew_mat4_t w, m;
      sinew_data_t *d = NULL;
      sinew_plug_t po = sinew__attr_plug(g, n, "outMesh");
      if ((rc = sinew_dag_world_matrix(g, n, &w)) || (rc = sinew_get_data(g, &po, &d))) return rc;
      sinew_mat4_mul(&w, to_space, &m);
      const sinew_mesh_t *mesh = d ? sinew_mesh_get(d) : NULL;
      for (uint32_t i = 0; mesh && i < mesh->npoints; i++) {
        sinew_vec3_t p;
        sinew_mat4_transform_point((sinew_vec3_t){mesh->points[3 * i], mesh->points[3 * i + 1], mesh->points[3 * i + 2]},
                                   &m, &p);
        double q[3] = {p.x, p.y, p.z};
        for (int k = 0; k < 3; k++) {
          if (q[k] < lo[k]) lo[k] = q[k];
          if (q[k] > hi[k]) hi[k] = q[k];
        }
      }
      if (d) sinew_data_unref(d);
    }
  }
  size_t nk = sinew_node_children(g, n, NULL, 0);
  if (!nk) return SINEW_OK;
  sinew_node_t *kids = sinew_malloc(nk * sizeof *kids);
  if (!kids) return sinew_graph_set_error(g, SINEW_ENOMEM, "out of memory");
  sinew_node_children(g, n, kids, nk);
  for (size_t i = 0; i < nk && !rc; i++) rc = bbox_walk(g, kids[i], to_space, lo, hi);
  sinew_free(kids);
  return rc;
}

static int xform_query(sinew_cmd_t *cmd, sinew_graph_t *g, sinew_node_t n, bool ws) {
  static const char *const queryable[] = {"translation", "rotation", "scale", "shear", "matrix", "pivots",
                                          "rotatePivot", "scalePivot", "rotateAxis", "rotateOrder", "boundingBox"};
  const char *what = NULL;
  for (size_t i = 0; i < COUNT(queryable); i++)
    if (sinew_cmd_flag_count(cmd, queryable[i])) {
      if (what) return sinew_cmd_error(cmd, SINEW_EINVAL, "query one flag at a time (-%s and -%s)", what, queryable[i]);
      what = queryable[i];
    }
  if (!what) return sinew_cmd_error(cmd, SINEW_EINVAL, "-query: give the flag to query (-translation, -rotation, ...)");
  double lin = sinew__unit_in(g, SINEW_ATTR_DISTANCE), ang = sinew__unit_in(g, SINEW_ATTR_ANGLE);
  double v[3];
  sinew_mat4_t w;
  int rc = SINEW_OK;
  if (strcmp(what, "rotateOrder") == 0) return sinew_cmd_result_string(cmd, sinew__rotate_orders[node_roo(g, n)]);
  if (strcmp(what, "boundingBox") == 0) {
    sinew_mat4_t to_space;
    sinew_mat4_identity(&to_space);
    if (!ws) {
      if ((rc = sinew_dag_world_matrix(g, n, &w))) return sinew__graph_error(cmd, rc);
      if (!sinew_mat4_inverse(&w, &to_space))
        return sinew_cmd_error(cmd, SINEW_ERANGE, "%s: the world matrix is singular", sinew_node_name(g, n));
    }
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    if ((rc = bbox_walk(g, n, &to_space, lo, hi))) return sinew__graph_error(cmd, rc);
    if (lo[0] > hi[0]) lo[0] = lo[1] = lo[2] = hi[0] = hi[1] = hi[2] = 0; /* nothing below */
    if ((rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_FLOAT_ARRAY))) return rc;
    for (int k = 0; k < 6 && !rc; k++) rc = sinew_cmd_result_append_double(cmd, (k < 3 ? lo[k] : hi[k - 3]) / lin);
    return rc;
  }
  if (strcmp(what, "matrix") == 0) {
    if (ws) rc = sinew_dag_world_matrix(g, n, &w);
    else {
      sinew_plug_t p = sinew__attr_plug(g, n, "matrix");
      rc = sinew_get_matrix(g, &p, &w);
    }
    if (rc) return sinew__graph_error(cmd, rc);
    if ((rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_FLOAT_ARRAY))) return rc;
    for (int r = 0; r < 4; r++)
      for (int c = 0; c < 4; c++)
        if ((rc = sinew_cmd_result_append_double(cmd, c == 3 || r < 3 ? w.m[r][c] : w.m[r][c] / lin))) return rc;
    return SINEW_OK;
  }
  if (strcmp(what, "pivots") == 0 || strcmp(what, "rotatePivot") == 0 || strcmp(what, "scalePivot") == 0) {
    bool both = strcmp(what, "pivots") == 0;
    double p[2][3];
    if ((rc = get3(g, n, "rotatePivot", p[0])) || (rc = get3(g, n, "scalePivot", p[1])))
      return sinew__graph_error(cmd, rc);
    if (ws) {
      if ((rc = sinew_dag_world_matrix(g, n, &w))) return sinew__graph_error(cmd, rc);
      for (int k = 0; k < 2; k++) {
        sinew_vec3_t r;
        sinew_mat4_transform_point(v3(p[k]), &w, &r);
        p[k][0] = r.x, p[k][1] = r.y, p[k][2] = r.z;
      }
    }
    if ((rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_FLOAT_ARRAY))) return rc;
    int from = strcmp(what, "scalePivot") == 0, to = both ? 2 : from + 1;
    for (int k = from; k < to; k++)
      for (int c = 0; c < 3; c++)
        if ((rc = sinew_cmd_result_append_double(cmd, p[k][c] / lin))) return rc;
    return SINEW_OK;
  }
  if (strcmp(what, "translation") == 0) {
    if (ws) {
      if ((rc = sinew_dag_world_matrix(g, n, &w))) return sinew__graph_error(cmd, rc);
      for (int k = 0; k < 3; k++) v[k] = w.m[3][k];
    } else if ((rc = get3(g, n, "translate", v))) return sinew__graph_error(cmd, rc);
    return result_triple(cmd, v, lin);
  }
  if (ws && (strcmp(what, "rotation") == 0 || strcmp(what, "scale") == 0 || strcmp(what, "shear") == 0)) {
    sinew_vec3_t t, r, s, sh;
    if ((rc = sinew_dag_world_matrix(g, n, &w))) return sinew__graph_error(cmd, rc);
    if (!sinew_mat4_decompose(&w, (sinew_rotate_order_t)node_roo(g, n), &t, &r, &s, &sh))
      return sinew_cmd_error(cmd, SINEW_ERANGE, "%s: the world matrix is singular", sinew_node_name(g, n));
    sinew_vec3_t x = what[1] == 'o' ? r : what[1] == 'c' ? s : sh;
    double xv[3] = {x.x, x.y, x.z};
    return result_triple(cmd, xv, what[1] == 'o' ? ang : 1);
  }
  const char *attr = strcmp(what, "rotation") == 0 ? "rotate" : what;
  if ((rc = get3(g, n, attr, v))) return sinew__graph_error(cmd, rc);
  bool angle = strcmp(what, "rotation") == 0 || strcmp(what, "rotateAxis") == 0;
  return result_triple(cmd, v, angle ? ang : 1);
}

typedef struct xform_args {
  bool ws, rel, preserve;
  int roo;
} xform_args;

static int flag3(sinew_cmd_t *cmd, const char *flag, double out[3]) {
  for (size_t k = 0; k < 3; k++) out[k] = sinew_cmd_flag_double(cmd, flag, k, 0);
  return (int)sinew_cmd_flag_count(cmd, flag);
}

/* The edits in Maya's order: rotate order, scale, shear, rotation, translation, pivots, matrix. */
static int xform_edit_one(sinew_cmd_t *cmd, sinew_graph_t *g, sinew_node_t n, void *ud) {
  const xform_args *a = ud;
  double v[3], cur[3];
  int rc = SINEW_OK;
  if (a->roo >= 0) {
    sinew_plug_t p = sinew__attr_plug(g, n, "rotateOrder");
    if (a->preserve) {
      /* -p: the same orientation in the new order */
      sinew_mat4_t m;
      sinew_vec3_t e;
      if ((rc = get3(g, n, "rotate", cur))) return rc;
      sinew_mat4_euler(v3(cur), (sinew_rotate_order_t)node_roo(g, n), &m);
      sinew_euler_from_mat4(&m, (sinew_rotate_order_t)a->roo, &e);
      if ((rc = set3(g, n, "rotate", (double[3]){e.x, e.y, e.z}))) return rc;
    }
    if ((rc = sinew_set_double(g, &p, a->roo))) return rc;
  }
  if (flag3(cmd, "scale", v)) {
    if ((rc = get3(g, n, "scale", cur))) return rc;
    for (int k = 0; k < 3; k++) cur[k] = a->rel ? cur[k] * v[k] : v[k];
    if ((rc = set3(g, n, "scale", cur))) return rc;
  }
  if (flag3(cmd, "shear", v)) {
    if ((rc = get3(g, n, "shear", cur))) return rc;
    for (int k = 0; k < 3; k++) cur[k] = a->rel ? cur[k] + v[k] : v[k];
    if ((rc = set3(g, n, "shear", cur))) return rc;
  }
  if (flag3(cmd, "rotateAxis", v)) {
    if ((rc = get3(g, n, "rotateAxis", cur))) return rc;
    for (int k = 0; k < 3; k++) cur[k] = a->rel ? cur[k] + v[k] : v[k];
    if ((rc = set3(g, n, "rotateAxis", cur))) return rc;
  }
  if (flag3(cmd, "rotation", v)) {
    if (a->ws) {
      sinew_mat4_t w;
      if (a->rel) {
        /* about the world axes: the world rotation is followed by the given one */
        sinew_mat4_t d, cw;
        if ((rc = sinew_dag_world_matrix(g, n, &cw))) return rc;
        sinew_mat4_euler(v3(v), SINEW_ROTATE_XYZ, &d);
        sinew_mat4_mul(&cw, &d, &w);
        for (int k = 0; k < 3; k++) w.m[3][k] = cw.m[3][k];
      } else if ((rc = world_with_rotation(g, n, v, &w))) return rc;
      if ((rc = set_world_matrix(g, n, &w))) return rc;
    } else {
      if ((rc = get3(g, n, "rotate", cur))) return rc;
      for (int k = 0; k < 3; k++) cur[k] = a->rel ? cur[k] + v[k] : v[k];
      if ((rc = set3(g, n, "rotate", cur))) return rc;
    }
  }
  if (flag3(cmd, "translation", v)) {
    if (a->ws) rc = a->rel ? move_world_by(g, n, v) : move_world_to(g, n, v);
    else {
      if ((rc = get3(g, n, "translate", cur))) return rc;
      for (int k = 0; k < 3; k++) cur[k] = a->rel ? cur[k] + v[k] : v[k];
      rc = set3(g, n, "translate", cur);
    }
    if (rc) return rc;
  }
  const char *piv[3] = {"pivots", "rotatePivot", "scalePivot"};
  for (int i = 0; i < 3; i++) {
    if (!flag3(cmd, piv[i], v)) continue;
    if (a->ws) {
      sinew_mat4_t w, inv;
      if ((rc = sinew_dag_world_matrix(g, n, &w))) return rc;
      if (!sinew_mat4_inverse(&w, &inv))
        return sinew_graph_set_error(g, SINEW_ERANGE, "%s: the world matrix is singular", sinew_node_name(g, n));
      sinew_vec3_t r;
      sinew_mat4_transform_point(v3(v), &inv, &r);
      v[0] = r.x, v[1] = r.y, v[2] = r.z;
    }
    if (i != 2 && (rc = set_pivot(g, n, true, v))) return rc;
    if (i != 1 && (rc = set_pivot(g, n, false, v))) return rc;
  }
  if (sinew_cmd_flag_count(cmd, "matrix")) {
    sinew_mat4_t m;
    double lin = sinew__unit_in(g, SINEW_ATTR_DISTANCE);
    for (int r = 0; r < 4; r++)
      for (int c = 0; c < 4; c++) {
        double x = sinew_cmd_flag_double(cmd, "matrix", (size_t)(r * 4 + c), 0);
        m.m[r][c] = r == 3 && c < 3 ? x * lin : x;
      }
    if (a->ws) rc = set_world_matrix(g, n, &m);
    else rc = sinew_dag_set_local_matrix(g, n, &m);
    if (rc == SINEW_ERANGE && !sinew_graph_errmsg(g)[0])
      sinew_graph_set_error(g, rc, "%s: -matrix: the matrix has no translate, rotate and scale", sinew_node_name(g, n));
    if (rc) return rc;
  }
  return SINEW_OK;
}

static int cmd_xform(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  bool ws = sinew_cmd_flag_count(cmd, "worldSpace"), os = sinew_cmd_flag_count(cmd, "objectSpace");
  bool rel = sinew_cmd_flag_count(cmd, "relative"), abs_ = sinew_cmd_flag_count(cmd, "absolute");
  if (ws && os) return sinew_cmd_error(cmd, SINEW_EINVAL, "give -worldSpace or -objectSpace, not both");
  if (rel && abs_) return sinew_cmd_error(cmd, SINEW_EINVAL, "give -relative or -absolute, not both");
  sinew_node_t *nodes;
  size_t count;
  int rc = gather_transforms(cmd, 0, &nodes, &count);
  if (rc) return rc;
  if (sinew_cmd_query(cmd)) {
    rc = xform_query(cmd, g, nodes[0], ws);
    sinew_free(nodes);
    return rc;
  }
  xform_args a = {.ws = ws, .rel = rel, .roo = -1, .preserve = sinew_cmd_flag_bool(cmd, "preserve", false)};
  const char *roo = sinew_cmd_flag_string(cmd, "rotateOrder", NULL);
  if (roo && (a.roo = sinew__rotate_order_from(roo)) < 0)
    rc = sinew_cmd_error(cmd, SINEW_EINVAL, "-rotateOrder: '%s' is not xyz, yzx, zxy, xzy, yxz or zyx", roo);
  if (!rc && rel && sinew_cmd_flag_count(cmd, "matrix"))
    rc = sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "-matrix with -relative is not supported");
  for (size_t i = 0; i < count && !rc; i++)
    if (is_type(g, nodes[i], "joint") && (sinew_cmd_flag_count(cmd, "pivots") || sinew_cmd_flag_count(cmd, "rotatePivot") ||
                                          sinew_cmd_flag_count(cmd, "scalePivot") || sinew_cmd_flag_count(cmd, "shear")))
      rc = sinew_cmd_error(cmd, SINEW_EINVAL, "%s is a joint: its matrix has no pivots or shear", sinew_node_name(g, nodes[i]));
  const char *attrs[16];
  size_t na = 0;
  bool solve = sinew_cmd_flag_count(cmd, "matrix") || (ws && sinew_cmd_flag_count(cmd, "rotation"));
  if (a.roo >= 0) attrs[na++] = "rotateOrder";
  if (a.roo >= 0 && a.preserve && !solve && !sinew_cmd_flag_count(cmd, "rotation")) attrs[na++] = "rotate";
  if (solve || sinew_cmd_flag_count(cmd, "translation")) attrs[na++] = "translate";
  if (solve || sinew_cmd_flag_count(cmd, "rotation")) attrs[na++] = "rotate";
  if (solve || sinew_cmd_flag_count(cmd, "scale")) attrs[na++] = "scale";
  if (solve || sinew_cmd_flag_count(cmd, "shear")) attrs[na++] = "shear";
  if (sinew_cmd_flag_count(cmd, "rotateAxis")) attrs[na++] = "rotateAxis";
  if (sinew_cmd_flag_count(cmd, "pivots") || sinew_cmd_flag_count(cmd, "rotatePivot"))
    attrs[na++] = "rotatePivot", attrs[na++] = "rotatePivotTranslate";
  if (sinew_cmd_flag_count(cmd, "pivots") || sinew_cmd_flag_count(cmd, "scalePivot"))
    attrs[na++] = "scalePivot", attrs[na++] = "scalePivotTranslate";
  attrs[na] = NULL;
  if (!rc) rc = check_all_settable(cmd, nodes, count, attrs);
  if (!rc) rc = edit_all(cmd, nodes, count, xform_edit_one, &a);
  sinew_free(nodes);
  return rc;
}

/* ---- move / rotate / scale ------------------------------------------------------------------------ */

static const sinew_cmd_flag_t move_flags[] = {
    {"relative", "r", "", 0},    {"absolute", "a", "", 0},   {"worldSpace", "ws", "", 0},
    {"objectSpace", "os", "", 0}, {"localSpace", "ls", "", 0}, {"rotatePivotRelative", "rpr", "", 0},
    {"scalePivotRelative", "spr", "", 0}};

static const sinew_cmd_flag_t rotate_flags[] = {
    {"relative", "r", "", 0},    {"absolute", "a", "", 0},   {"worldSpace", "ws", "", 0},
    {"objectSpace", "os", "", 0}};

static const sinew_cmd_flag_t scale_flags[] = {
    {"relative", "r", "", 0}, {"absolute", "a", "", 0}, {"objectSpace", "os", "", 0}};

typedef struct mrs_args {
  char which; /* 'm', 'r', 's' */
  int pivot;  /* move -a -rpr (1) / -spr (2): the pivot is put at the position */
  bool rel;
  int space;  /* 0 world, 1 object, 2 local (parent) */
  double v[3];
} mrs_args;

static int mrs_one(sinew_cmd_t *cmd, sinew_graph_t *g, sinew_node_t n, void *ud) {
  (void)cmd;
  const mrs_args *a = ud;
  double cur[3];
  int rc;
  if (a->which == 'm') {
    if (a->pivot) {
      sinew_mat4_t w;
      double pv[3];
      if ((rc = sinew_dag_world_matrix(g, n, &w)) || (rc = get3(g, n, a->pivot == 1 ? "rotatePivot" : "scalePivot", pv)))
        return rc;
      sinew_vec3_t wp;
      sinew_mat4_transform_point(v3(pv), &w, &wp);
      return move_world_by(g, n, (double[3]){a->v[0] - wp.x, a->v[1] - wp.y, a->v[2] - wp.z});
    }
    if (a->space == 0) return a->rel ? move_world_by(g, n, a->v) : move_world_to(g, n, a->v);
    if (a->space == 1 && a->rel) {
      /* along the object's own axes, in its units */
      sinew_mat4_t w;
      if ((rc = sinew_dag_world_matrix(g, n, &w))) return rc;
      sinew_vec3_t d;
      sinew_mat4_transform_vector(v3(a->v), &w, &d);
      return move_world_by(g, n, (double[3]){d.x, d.y, d.z});
    }
    if ((rc = get3(g, n, "translate", cur))) return rc;
    for (int k = 0; k < 3; k++) cur[k] = a->rel ? cur[k] + a->v[k] : a->v[k];
    return set3(g, n, "translate", cur);
  }
  if (a->which == 's') {
    if ((rc = get3(g, n, "scale", cur))) return rc;
    for (int k = 0; k < 3; k++) cur[k] = a->rel ? cur[k] * a->v[k] : a->v[k];
    return set3(g, n, "scale", cur);
  }
  /* rotate */
  if (a->space == 0) {
    sinew_mat4_t w;
    if (a->rel) {
      sinew_mat4_t d, cw;
      if ((rc = sinew_dag_world_matrix(g, n, &cw))) return rc;
      sinew_mat4_euler(v3(a->v), SINEW_ROTATE_XYZ, &d);
      sinew_mat4_mul(&cw, &d, &w);
      for (int k = 0; k < 3; k++) w.m[3][k] = cw.m[3][k];
    } else if ((rc = world_with_rotation(g, n, a->v, &w))) return rc;
    return set_world_matrix(g, n, &w);
  }
  if ((rc = get3(g, n, "rotate", cur))) return rc;
  if (!a->rel) return set3(g, n, "rotate", a->v);
  /* about the object's own axes: the given rotation acts first */
  sinew_rotate_order_t o = (sinew_rotate_order_t)node_roo(g, n);
  sinew_mat4_t d, r, m;
  sinew_mat4_euler(v3(a->v), SINEW_ROTATE_XYZ, &d);
  sinew_mat4_euler(v3(cur), o, &r);
  sinew_mat4_mul(&d, &r, &m);
  sinew_vec3_t e;
  sinew_euler_from_mat4(&m, o, &e);
  return set3(g, n, "rotate", (double[3]){e.x, e.y, e.z});
}

static int cmd_mrs(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  const char *name = sinew_cmd_name(cmd);
  mrs_args a = {.which = name[0] == 'm' ? 'm' : name[0] == 'r' ? 'r' : 's'};
  bool rel = sinew_cmd_flag_count(cmd, "relative"), abs_ = sinew_cmd_flag_count(cmd, "absolute");
  if (rel && abs_) return sinew_cmd_error(cmd, SINEW_EINVAL, "give -relative or -absolute, not both");
  a.rel = rel;
  int spaces = 0;
  if (sinew_cmd_flag_count(cmd, "worldSpace")) spaces++, a.space = 0;
  if (sinew_cmd_flag_count(cmd, "objectSpace")) spaces++, a.space = 1;
  if (sinew_cmd_flag_count(cmd, "localSpace")) spaces++, a.space = 2;
  if (spaces > 1) return sinew_cmd_error(cmd, SINEW_EINVAL, "give one of -worldSpace, -objectSpace, -localSpace");
  if (a.which == 's') a.space = 1;
  if (a.which == 'm') {
    bool rpr = sinew_cmd_flag_count(cmd, "rotatePivotRelative"), spr = sinew_cmd_flag_count(cmd, "scalePivotRelative");
    if (rpr && spr) return sinew_cmd_error(cmd, SINEW_EINVAL, "give -rotatePivotRelative or -scalePivotRelative, not both");
    if ((rpr || spr) && (rel || spaces))
      return sinew_cmd_error(cmd, SINEW_EINVAL, "-%s goes with an absolute world-space move only",
                             rpr ? "rotatePivotRelative" : "scalePivotRelative");
    a.pivot = rpr ? 1 : spr ? 2 : 0;
  }
  size_t argc = sinew_cmd_argc(cmd);
  if (argc < 3) return sinew_cmd_error(cmd, SINEW_EINVAL, "usage: %s [flags] x y z [objects]", name);
  sinew_attr_type_t unit = a.which == 'm' ? SINEW_ATTR_DISTANCE : a.which == 'r' ? SINEW_ATTR_ANGLE : SINEW_ATTR_DOUBLE;
  for (size_t k = 0; k < 3; k++) {
    const sinew_value_t *v = sinew_cmd_arg(cmd, k);
    const char *text = sinew_cmd_arg_string(cmd, k);
    char *end = NULL;
    double x = v && v->kind == SINEW_VALUE_INT ? (double)v->as.i
             : v && v->kind == SINEW_VALUE_FLOAT ? v->as.f : (text ? strtod(text, &end) : 0);
    if (v && v->kind != SINEW_VALUE_INT && v->kind != SINEW_VALUE_FLOAT && (!text || !text[0] || !end || *end))
      return sinew_cmd_error(cmd, SINEW_ETYPE, "argument %zu: '%s' is not a number (give x y z, then the objects)",
                             k + 1, text ? text : "");
    a.v[k] = unit == SINEW_ATTR_DOUBLE ? x : sinew__unit_to_internal(g, unit, x);
  }
  sinew_node_t *nodes;
  size_t count;
  int rc = gather_transforms(cmd, 3, &nodes, &count);
  if (rc) return rc;
  static const char *const move_attrs[] = {"translate", NULL}, *const scale_attrs[] = {"scale", NULL};
  static const char *const rot_attrs[] = {"rotate", NULL};
  static const char *const solve_attrs[] = {"translate", "rotate", "scale", "shear", NULL};
  const char *const *attrs = a.which == 'm' ? move_attrs : a.which == 's' ? scale_attrs
                           : a.space == 0 ? solve_attrs : rot_attrs;
  rc = check_all_settable(cmd, nodes, count, attrs);
  if (!rc) rc = edit_all(cmd, nodes, count, mrs_one, &a);
  sinew_free(nodes);
  return rc;
}

/* ---- group --------------------------------------------------------------------------------------- */

static const sinew_cmd_flag_t group_flags[] = {
    {"empty", "em", "", 0}, {"name", "n", "s", 0}, {"world", "w", "", 0}, {"parent", "p", "s", 0},
    {"absolute", "a", "", 0}, {"relative", "r", "", 0}};

static int cmd_group(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  bool empty = sinew_cmd_flag_count(cmd, "empty"), world = sinew_cmd_flag_count(cmd, "world");
  const char *pname = sinew_cmd_flag_string(cmd, "parent", NULL), *name = sinew_cmd_flag_string(cmd, "name", NULL);
  if (world && pname) return sinew_cmd_error(cmd, SINEW_EINVAL, "give -world or -parent, not both");
  if (sinew_cmd_flag_count(cmd, "relative"))
    return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "-relative (keeping local values) is not supported");
  if (empty && sinew_cmd_argc(cmd)) return sinew_cmd_error(cmd, SINEW_EINVAL, "-empty takes no objects");
  sinew_node_t parent = {0, 0}, *kids = NULL;
  size_t nkids = 0;
  int rc = SINEW_OK;
  if (pname) {
    if ((rc = sinew__cmd_node(cmd, pname, &parent))) return rc;
    if (!is_type(g, parent, "transform"))
      return sinew_cmd_error(cmd, SINEW_ETYPE, "-parent: %s is not a transform", sinew_node_name(g, parent));
  }
  if (!empty && (sinew_cmd_argc(cmd) || s->scene->nsel)) {
    if ((rc = gather_transforms(cmd, 0, &kids, &nkids))) return rc;
    for (size_t i = 0; i < nkids && !rc; i++)
      for (size_t j = 0; j < i && !rc; j++)
        if (kids[i].index == kids[j].index && kids[i].gen == kids[j].gen)
          rc = sinew_cmd_error(cmd, SINEW_EINVAL, "%s is given twice", sinew_node_name(g, kids[i]));
    /* a new parent inside a grouped object's subtree would make a cycle */
    for (sinew_node_t a = parent; !rc && (a.index || a.gen); a = sinew_node_parent(g, a))
      for (size_t i = 0; i < nkids && !rc; i++)
        if (a.index == kids[i].index && a.gen == kids[i].gen)
          rc = sinew_cmd_error(cmd, SINEW_EINVAL, "-parent %s is %s or below it", pname, sinew_node_name(g, kids[i]));
    if (!rc && !pname && !world && nkids) {
      /* the objects' common parent, as Maya; the world when they differ */
      parent = sinew_node_parent(g, kids[0]);
      for (size_t i = 1; i < nkids; i++) {
        sinew_node_t p = sinew_node_parent(g, kids[i]);
        if (p.index != parent.index || p.gen != parent.gen) parent = (sinew_node_t){0, 0};
      }
    }
  }
  static const char *const solve_attrs[] = {"translate", "rotate", "scale", "shear", NULL};
  if (!rc && nkids) rc = check_all_settable(cmd, kids, nkids, solve_attrs);
  if (!rc && s->scene->csel == 0) {
    sinew_node_t *p = sinew_realloc(s->scene->selection, 8 * sizeof *p);
    if (!p) rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    else s->scene->selection = p, s->scene->csel = 8;
  }
  sinew_node_t grp = {0, 0};
  if (!rc) {
    const char *want = name && name[0] ? name : "group#";
    rc = (parent.index || parent.gen) ? sinew_node_create_under(g, "transform", want, parent, &grp)
                                      : sinew_node_create(g, "transform", want, &grp);
    if (rc) rc = sinew__graph_error(cmd, rc);
    else {
      char buf[512];
      if (sinew_cmd_result_string(cmd, sinew__node_label(g, grp, buf, sizeof buf)))
        rc = sinew_graph_set_error(g, SINEW_ENOMEM, "out of memory");
    }
  }
  /* a failure part-way is taken back by the command's transaction, the group included */
  for (size_t i = 0; i < nkids && !rc; i++)
    if ((rc = sinew_dag_parent(g, kids[i], grp, SINEW_PARENT_KEEP_WORLD))) rc = sinew__graph_error(cmd, rc);
  if (!rc) {
    s->scene->selection[0] = grp;
    s->scene->nsel = 1;
  }
  sinew_free(kids);
  return rc;
}

/* ---- objectType, attributeExists, attributeQuery ---------------------------------------------- */

static const sinew_cmd_flag_t objtype_flags[] = {{"isType", "i", "s", 0}, {"isAType", "isa", "s", 0}};

static int cmd_object_type(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  if (sinew_cmd_argc(cmd) != 1) return sinew_cmd_error(cmd, SINEW_EINVAL, "give one object");
  bool is = sinew_cmd_flag_count(cmd, "isType") > 0, isa = sinew_cmd_flag_count(cmd, "isAType") > 0;
  if (is && isa) return sinew_cmd_error(cmd, SINEW_EINVAL, "give -isType or -isAType, not both");
  sinew_node_t n;
  int rc = sinew__cmd_node(cmd, sinew_cmd_arg_string(cmd, 0), &n);
  if (rc) return rc;
  const sinew_node_type_t *t = sinew_node_type(g, n);
  if (is) return sinew_cmd_result_int(cmd, strcmp(sinew_node_type_name(t), sinew_cmd_flag_string(cmd, "isType", "")) == 0);
  if (isa) return sinew_cmd_result_int(cmd, sinew_node_type_is_a(t, sinew_cmd_flag_string(cmd, "isAType", "")));
  return sinew_cmd_result_string(cmd, sinew_node_type_name(t));
}

/* attributeExists attr node: Maya's script procedure; 0 for a node that does not exist. */
static int cmd_attribute_exists(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  if (sinew_cmd_argc(cmd) != 2) return sinew_cmd_error(cmd, SINEW_EINVAL, "usage: attributeExists attribute node");
  const char *attr = sinew_cmd_arg_string(cmd, 0), *name = sinew_cmd_arg_string(cmd, 1);
  sinew_node_t n;
  if (!attr || !attr[0] || !name || !name[0] || sinew__find_node(s, name, &n)) return sinew_cmd_result_int(cmd, 0);
  return sinew_cmd_result_int(cmd, sinew_node_attr(g, n, attr) != UINT32_MAX);
}

static const sinew_cmd_flag_t attrq_flags[] = {
    {"node", "n", "s", 0},           {"type", "typ", "s", 0},        {"exists", "ex", "", 0},
    {"listChildren", "lc", "", 0},   {"listParent", "lp", "", 0},    {"attributeType", "at", "", 0},
    {"minExists", "mne", "", 0},     {"maxExists", "mxe", "", 0},    {"minimum", "min", "", 0},
    {"maximum", "max", "", 0},       {"keyable", "k", "", 0},        {"niceName", "nn", "", 0},
    {"longName", "ln", "", 0},       {"shortName", "sn", "", 0},     {"multi", "m", "", 0},
    {"hidden", "h", "", 0},          {"writable", "w", "", 0},       {"readable", "r", "", 0},
    {"numberOfChildren", "nc", "", 0}, {"listEnum", "le", "", 0}};

const char *sinew__maya_attr_type(const sinew_attr_info_t *info) {
  switch (info->type) {
    case SINEW_ATTR_BOOL: return "bool";
    case SINEW_ATTR_INT: return "long";
    case SINEW_ATTR_ENUM: return "enum";
    case SINEW_ATTR_FLOAT: return "float";
    case SINEW_ATTR_DOUBLE: return "double";
    case SINEW_ATTR_DISTANCE: return "doubleLinear";
    case SINEW_ATTR_ANGLE: return "doubleAngle";
    case SINEW_ATTR_TIME: return "time";
    case SINEW_ATTR_MATRIX: return "matrix";
    case SINEW_ATTR_STRING: return "typed";
    case SINEW_ATTR_MESSAGE: return "message";
    case SINEW_ATTR_COMPOUND: return info->child_count == 3 ? "double3" : info->child_count == 2 ? "double2" : "compound";
    case SINEW_ATTR_DATA: return "typed";
    default: return "unknown";
  }
}

/* Maya's nice name of an attribute name: "translateX" -> "Translate X". */
void sinew__attr_nice_name(const char *name, char *out, size_t size) {
  size_t k = 0;
  for (size_t i = 0; name[i] && k + 2 < size; i++) {
    char c = name[i];
    bool upper = c >= 'A' && c <= 'Z', digit = c >= '0' && c <= '9';
    char prev = i ? name[i - 1] : 0;
    bool prev_lower = prev >= 'a' && prev <= 'z', prev_digit = prev >= '0' && prev <= '9';
    if (i && ((upper && (prev_lower || prev_digit)) || (digit && !prev_digit))) out[k++] = ' ';
    out[k++] = i == 0 && c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
  }
  out[k] = 0;
}

static int cmd_attribute_query(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  static const char *const what_flags[] = {"exists", "listChildren", "listParent", "attributeType", "minExists",
                                           "maxExists", "minimum", "maximum", "keyable", "niceName", "longName",
                                           "shortName", "multi", "hidden", "writable", "readable",
                                           "numberOfChildren", "listEnum"};
  const char *what = NULL;
  for (size_t i = 0; i < COUNT(what_flags); i++)
    if (sinew_cmd_flag_count(cmd, what_flags[i])) {
      if (what) return sinew_cmd_error(cmd, SINEW_EINVAL, "query one flag at a time (-%s and -%s)", what, what_flags[i]);
      what = what_flags[i];
    }
  if (!what) return sinew_cmd_error(cmd, SINEW_EINVAL, "give what to query (-exists, -attributeType, ...)");
  if (sinew_cmd_argc(cmd) != 1) return sinew_cmd_error(cmd, SINEW_EINVAL, "give one attribute name");
  const char *node = sinew_cmd_flag_string(cmd, "node", NULL), *attr = sinew_cmd_arg_string(cmd, 0);
  if (!node) return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "-node is required (-type queries are not supported)");
  sinew_node_t n;
  int rc = sinew__cmd_node(cmd, node, &n);
  if (rc) return rc;
  (void)s;
  uint32_t id = attr && attr[0] ? sinew_node_attr(g, n, attr) : UINT32_MAX;
  sinew_plug_t aliased; /* an alias answers for its attribute, as in Maya */
  if (id == UINT32_MAX && attr && sinew_alias_find(g, n, attr, &aliased) == SINEW_OK) id = aliased.attr;
  if (strcmp(what, "exists") == 0) return sinew_cmd_result_int(cmd, id != UINT32_MAX);
  sinew_attr_info_t info;
  if (id == UINT32_MAX || sinew_node_attr_info(g, n, id, &info))
    return sinew_cmd_error(cmd, SINEW_ENOTFOUND, "%s has no attribute '%s'", sinew_node_name(g, n), attr ? attr : "");
  if (strcmp(what, "listChildren") == 0 || strcmp(what, "listParent") == 0) {
    bool kids = what[4] == 'C';
    if ((rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY))) return rc;
    uint32_t m = kids ? info.child_count : info.parent != UINT32_MAX;
    for (uint32_t k = 0; k < m && !rc; k++) {
      sinew_attr_info_t ci;
      if (sinew_node_attr_info(g, n, kids ? info.children[k] : info.parent, &ci)) continue;
      rc = sinew_cmd_result_append_string(cmd, ci.name);
    }
    return rc;
  }
  if (strcmp(what, "attributeType") == 0) return sinew_cmd_result_string(cmd, sinew__maya_attr_type(&info));
  if (strcmp(what, "minExists") == 0) return sinew_cmd_result_int(cmd, info.has_min);
  if (strcmp(what, "maxExists") == 0) return sinew_cmd_result_int(cmd, info.has_max);
  if (strcmp(what, "minimum") == 0 || strcmp(what, "maximum") == 0) {
    bool mn = what[1] == 'i';
    if (!(mn ? info.has_min : info.has_max))
      return sinew_cmd_error(cmd, SINEW_EINVAL, "%s.%s has no %s", sinew_node_name(g, n), info.name, what);
    if ((rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_FLOAT_ARRAY))) return rc;
    return sinew_cmd_result_append_double(cmd, sinew__unit_to_ui(g, info.type, mn ? info.min_value : info.max_value));
  }
  if (strcmp(what, "keyable") == 0) return sinew_cmd_result_int(cmd, (info.flags & SINEW_ATTR_KEYABLE) != 0);
  if (strcmp(what, "multi") == 0) return sinew_cmd_result_int(cmd, (info.flags & SINEW_ATTR_ARRAY) != 0);
  if (strcmp(what, "hidden") == 0) return sinew_cmd_result_int(cmd, (info.flags & SINEW_ATTR_HIDDEN) != 0);
  if (strcmp(what, "writable") == 0) return sinew_cmd_result_int(cmd, (info.flags & SINEW_ATTR_WRITABLE) != 0);
  if (strcmp(what, "readable") == 0) return sinew_cmd_result_int(cmd, (info.flags & SINEW_ATTR_READABLE) != 0);
  if (strcmp(what, "numberOfChildren") == 0) return sinew_cmd_result_int(cmd, info.child_count);
  if (strcmp(what, "longName") == 0) return sinew_cmd_result_string(cmd, info.name);
  if (strcmp(what, "shortName") == 0) return sinew_cmd_result_string(cmd, info.short_name ? info.short_name : info.name);
  if (strcmp(what, "listEnum") == 0) {
    if (info.type != SINEW_ATTR_ENUM || !info.enum_fields)
      return sinew_cmd_error(cmd, SINEW_ETYPE, "%s.%s is not an enum", sinew_node_name(g, n), info.name);
    /* "a=0:b=1:c=5" -> "a:b:c=5", as Maya lists them (a value given only where it skips) */
    sinew__buf b = {0};
    long next = 0;
    for (const char *f = info.enum_fields; *f;) {
      size_t len = strcspn(f, ":");
      const char *eq = memchr(f, '=', len);
      long v = eq ? strtol(eq + 1, NULL, 10) : next;
      if (b.n) sinew__buf_puts(&b, ":");
      sinew__buf_put(&b, f, eq && v == next ? (size_t)(eq - f) : len);
      next = v + 1;
      f += len + (f[len] == ':');
    }
    if (b.oom) rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    if (!rc) rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY);
    if (!rc) rc = sinew_cmd_result_append_string(cmd, b.p ? b.p : "");
    sinew__buf_free(&b);
    return rc;
  }
  char buf[512];
  sinew__attr_nice_name(info.name, buf, sizeof buf);
  return sinew_cmd_result_string(cmd, buf);
}

/* ---- makeIdentity ---------------------------------------------------------------------------- */

static const sinew_cmd_flag_t mi_flags[] = {
    {"apply", "a", "b", 0},  {"translate", "t", "b", 0},       {"rotate", "r", "b", 0},
    {"scale", "s", "b", 0},  {"jointOrient", "jo", "", 0},     {"normal", "n", "i", 0},
    {"preserveNormals", "pn", "b", 0}};

/* The shapes whose geometry takes what a freeze takes from their transforms: nurbsCurves
 * holding their own CVs (a curve made by history, its create input connected, would be
 * recomputed from it, so it is refused like the other shapes). */
typedef struct mi_shapes {
  sinew_node_t *v;
  sinew_mat4_t *world; /* the parent transform's world matrix before the freeze */
  uint32_t count, cap, wcap;
} mi_shapes;

static int mi_add_shape(sinew_cmd_t *cmd, sinew_graph_t *g, sinew_node_t n, mi_shapes *sh) {
  if (is_type(g, n, "nurbsCurve")) {
    sinew_plug_t cr = sinew__attr_plug(g, n, "create");
    if (!sinew_plug_source(g, &cr, NULL)) {
      if (sinew__grow((void **)&sh->v, &sh->cap, sh->count + 1, sizeof *sh->v) ||
          sinew__grow((void **)&sh->world, &sh->wcap, sh->count + 1, sizeof *sh->world))
        return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
      sh->v[sh->count++] = n;
      return SINEW_OK;
    }
    return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED,
                           "%s is a nurbsCurve made by construction history (its create input is "
                           "connected): freezing into it is not supported",
                           sinew_node_name(g, n));
  }
  return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "%s is a %s: freezing into shapes is not supported",
                         sinew_node_name(g, n), sinew_node_type_name(sinew_node_type(g, n)));
}

/* Appends n and its DAG descendants (pre-order) to *list, and the shapes among them to *sh;
 * shapes other than nurbsCurves with their own CVs are refused (sinew cannot carry the
 * accumulated transform into their geometry). */
static int mi_collect(sinew_cmd_t *cmd, sinew_graph_t *g, sinew_node_t n, sinew_node_t **list, uint32_t *count,
                      uint32_t *cap, mi_shapes *sh) {
  if (!is_type(g, n, "transform")) return mi_add_shape(cmd, g, n, sh);
  for (uint32_t i = 0; i < *count; i++)
    if ((*list)[i].index == n.index && (*list)[i].gen == n.gen) return SINEW_OK; /* given twice or nested */
  if (sinew__grow((void **)list, cap, *count + 1, sizeof **list))
    return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  (*list)[(*count)++] = n;
  size_t nk = sinew_node_children(g, n, NULL, 0);
  if (!nk) return SINEW_OK;
  sinew_node_t *kids = sinew_malloc(nk * sizeof *kids);
  if (!kids) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  sinew_node_children(g, n, kids, nk);
  int rc = SINEW_OK;
  for (size_t i = 0; i < nk && !rc; i++) rc = mi_collect(cmd, g, kids[i], list, count, cap, sh);
  sinew_free(kids);
  return rc;
}

typedef struct mi_args {
  bool apply, t, r, s, jo;
  const sinew_node_t *nodes;
  double (*world_t)[3], (*world_rp)[3], (*world_sp)[3]; /* before, per node */
  uint32_t count;
} mi_args;

static uint32_t mi_index(const mi_args *a, sinew_node_t n) {
  for (uint32_t i = 0; i < a->count; i++)
    if (a->nodes[i].index == n.index && a->nodes[i].gen == n.gen) return i;
  return 0;
}

static int mi_one(sinew_cmd_t *cmd, sinew_graph_t *g, sinew_node_t n, void *ud) {
  (void)cmd;
  const mi_args *a = ud;
  uint32_t i = mi_index(a, n);
  bool joint = is_type(g, n, "joint");
  static const double zero[3] = {0, 0, 0}, one[3] = {1, 1, 1};
  int rc = SINEW_OK;
  if (joint && !a->apply) {
    /* without -apply the values are only reset */
    if (a->r && ((rc = set3(g, n, "rotate", zero)) || (rc = set3(g, n, "rotateAxis", zero)))) return rc;
    if (a->jo && (rc = set3(g, n, "jointOrient", zero))) return rc;
  } else if (joint && (a->r || a->jo)) {
    /* the rotation goes into jointOrient: S * RA * R * JO is kept as JO' */
    double r[3], ra[3], jo[3];
    if ((rc = get3(g, n, "rotate", r)) || (rc = get3(g, n, "rotateAxis", ra)) || (rc = get3(g, n, "jointOrient", jo)))
      return rc;
    sinew_mat4_t mra, mr, mjo, t1, t2;
    sinew_mat4_euler(v3(ra), SINEW_ROTATE_XYZ, &mra);
    sinew_mat4_euler(v3(r), (sinew_rotate_order_t)node_roo(g, n), &mr);
    sinew_mat4_euler(v3(jo), SINEW_ROTATE_XYZ, &mjo);
    sinew_mat4_mul(&mra, &mr, &t1);
    sinew_mat4_mul(&t1, &mjo, &t2);
    if (a->jo) {
      /* -jointOrient: aligned with the world, the parent's rotation undone */
      sinew_mat4_t above, inv;
      if ((rc = sinew__above_local(g, n, &above))) return rc;
      sinew_vec3_t t, rot, sc, sh;
      if (!sinew_mat4_decompose(&above, SINEW_ROTATE_XYZ, &t, &rot, &sc, &sh))
        return sinew_graph_set_error(g, SINEW_ERANGE, "%s: the parent's world matrix is singular", sinew_node_name(g, n));
      sinew_mat4_euler(rot, SINEW_ROTATE_XYZ, &mr);
      if (!sinew_mat4_inverse(&mr, &inv)) return sinew_graph_set_error(g, SINEW_ERANGE, "singular rotation");
      t2 = inv;
    }
    sinew_vec3_t e;
    sinew_euler_from_mat4(&t2, SINEW_ROTATE_XYZ, &e);
    if ((rc = set3(g, n, "rotate", zero)) || (rc = set3(g, n, "rotateAxis", zero)) ||
        (rc = set3(g, n, "jointOrient", (double[3]){e.x, e.y, e.z})))
      return rc;
  } else if (!joint && a->r) {
    if ((rc = set3(g, n, "rotate", zero)) || (rc = set3(g, n, "rotateAxis", zero))) return rc;
  }
  if (a->s && ((rc = set3(g, n, "scale", one)) || (!joint && (rc = set3(g, n, "shear", zero))))) return rc;
  bool keep_t = joint || !a->t;
  if (!keep_t && (rc = set3(g, n, "translate", zero))) return rc;
  if (!a->apply) return SINEW_OK;
  /* a translate that is not frozen keeps the node's world position; the pivots stay where they
   * were in the world */
  if (keep_t && (rc = move_world_to(g, n, a->world_t[i]))) return rc;
  if (joint) return SINEW_OK;
  sinew_mat4_t w, inv;
  if ((rc = sinew_dag_world_matrix(g, n, &w))) return rc;
  if (!sinew_mat4_inverse(&w, &inv))
    return sinew_graph_set_error(g, SINEW_ERANGE, "%s: the world matrix is singular", sinew_node_name(g, n));
  sinew_vec3_t prp, psp;
  sinew_mat4_transform_point(v3(a->world_rp[i]), &inv, &prp);
  sinew_mat4_transform_point(v3(a->world_sp[i]), &inv, &psp);
  if ((rc = set_pivot(g, n, true, (double[3]){prp.x, prp.y, prp.z}))) return rc;
  return set_pivot(g, n, false, (double[3]){psp.x, psp.y, psp.z});
}

static int cmd_make_identity(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  mi_args a = {.apply = sinew_cmd_flag_bool(cmd, "apply", false), .jo = sinew_cmd_flag_count(cmd, "jointOrient") > 0};
  bool any = sinew_cmd_flag_count(cmd, "translate") || sinew_cmd_flag_count(cmd, "rotate") || sinew_cmd_flag_count(cmd, "scale");
  a.t = any ? sinew_cmd_flag_bool(cmd, "translate", false) : true;
  a.r = any ? sinew_cmd_flag_bool(cmd, "rotate", false) : true;
  a.s = any ? sinew_cmd_flag_bool(cmd, "scale", false) : true;
  if (sinew_cmd_flag_count(cmd, "normal") && sinew_cmd_flag_int(cmd, "normal", 0) != 0)
    return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "-normal applies to polygon shapes, which makeIdentity does not freeze");
  sinew_node_t *given, *list = NULL;
  size_t ngiven;
  uint32_t count = 0, cap = 0;
  int rc = gather_transforms(cmd, 0, &given, &ngiven);
  if (rc) return rc;
  mi_shapes sh = {0};
  for (size_t i = 0; i < ngiven && !rc; i++) rc = mi_collect(cmd, g, given[i], &list, &count, &cap, &sh);
  if (!rc && sh.count && !a.apply) /* a reset without -apply moves the geometry with its transform */
    sh.count = 0;
  for (uint32_t i = 0; i < sh.count && !rc; i++) {
    static const char *const cattrs[] = {"cached", NULL};
    if (!(rc = check_all_settable(cmd, &sh.v[i], 1, cattrs)) &&
        (rc = sinew_dag_world_matrix(g, sinew_node_parent(g, sh.v[i]), &sh.world[i])))
      rc = sinew__graph_error(cmd, rc);
  }
  sinew_free(given);
  static const char *const attrs[] = {"translate", "rotate", "scale", "shear", "rotateAxis", "rotatePivot",
                                      "scalePivot", "rotatePivotTranslate", "scalePivotTranslate", NULL};
  static const char *const jattrs[] = {"jointOrient", NULL};
  for (uint32_t i = 0; i < count && !rc; i++) {
    rc = check_all_settable(cmd, &list[i], 1, attrs);
    if (!rc && is_type(g, list[i], "joint")) rc = check_all_settable(cmd, &list[i], 1, jattrs);
  }
  if (!rc) {
    a.nodes = list;
    a.count = count;
    a.world_t = sinew_malloc(count * sizeof *a.world_t);
    a.world_rp = sinew_malloc(count * sizeof *a.world_rp);
    a.world_sp = sinew_malloc(count * sizeof *a.world_sp);
    if (!a.world_t || !a.world_rp || !a.world_sp) rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  }
  for (uint32_t i = 0; i < count && !rc; i++) {
    sinew_mat4_t w;
    double rp[3], sp[3];
    if ((rc = sinew_dag_world_matrix(g, list[i], &w)) || (rc = get3(g, list[i], "rotatePivot", rp)) ||
        (rc = get3(g, list[i], "scalePivot", sp))) {
      rc = sinew__graph_error(cmd, rc);
      break;
    }
    sinew_vec3_t r;
    for (int k = 0; k < 3; k++) a.world_t[i][k] = w.m[3][k];
    sinew_mat4_transform_point(v3(rp), &w, &r);
    a.world_rp[i][0] = r.x, a.world_rp[i][1] = r.y, a.world_rp[i][2] = r.z;
    sinew_mat4_transform_point(v3(sp), &w, &r);
    a.world_sp[i][0] = r.x, a.world_sp[i][1] = r.y, a.world_sp[i][2] = r.z;
  }
  if (!rc) rc = edit_all(cmd, list, count, mi_one, &a);
  /* each curve's CVs keep their world positions: p' = p W0 W1^-1, W0 and W1 its transform's
   * world matrix before and after the freeze (Maya applies what the transform loses to the
   * geometry) */
  for (uint32_t i = 0; i < sh.count && !rc; i++) {
    sinew_mat4_t w1, inv, m;
    sinew_data_t *cv = NULL, *moved = NULL;
    sinew_plug_t cc = sinew__attr_plug(g, sh.v[i], "cached");
    if ((rc = sinew_dag_world_matrix(g, sinew_node_parent(g, sh.v[i]), &w1))) {
      rc = sinew__graph_error(cmd, rc);
      break;
    }
    if (!sinew_mat4_inverse(&w1, &inv)) {
      rc = sinew_cmd_error(cmd, SINEW_ERANGE, "%s: its transform's world matrix is singular after the freeze",
                           sinew_node_name(g, sh.v[i]));
      break;
    }
    sinew_mat4_mul(&sh.world[i], &inv, &m);
    if ((rc = sinew_get_data(g, &cc, &cv))) {
      rc = sinew__graph_error(cmd, rc);
      break;
    }
    if (!cv) continue; /* no CVs: nothing to move */
    rc = sinew_curve_transform(cv, &m, &moved);
    sinew_data_unref(cv);
    if (!rc) rc = sinew_set_data(g, &cc, moved);
    sinew_data_unref(moved);
    if (rc) rc = sinew__graph_error(cmd, rc);
  }
  sinew_free(sh.v);
  sinew_free(sh.world);
  sinew_free(a.world_t);
  sinew_free(a.world_rp);
  sinew_free(a.world_sp);
  sinew_free(list);
  return rc;
}

/* ---- renameAttr ------------------------------------------------------------------------------ */

/* renameAttr node.attr newName: the long name when attr is the long name, else the short one.
 * Returns the new name. */
static int cmd_rename_attr(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  if (sinew_cmd_argc(cmd) != 2) return sinew_cmd_error(cmd, SINEW_EINVAL, "usage: renameAttr node.attribute newName");
  const char *text = sinew_cmd_arg_string(cmd, 0), *name = sinew_cmd_arg_string(cmd, 1);
  const char *dot = text ? strchr(text, '.') : NULL;
  if (!dot || !dot[1] || strpbrk(dot + 1, ".[]"))
    return sinew_cmd_error(cmd, SINEW_EINVAL, "'%s' is not node.attribute", text ? text : "");
  char nodename[512];
  if ((size_t)(dot - text) >= sizeof nodename) return sinew_cmd_error(cmd, SINEW_EINVAL, "node name too long");
  memcpy(nodename, text, (size_t)(dot - text));
  nodename[dot - text] = 0;
  sinew_node_t n;
  int rc = sinew__cmd_node(cmd, nodename, &n);
  if (rc) return rc;
  uint32_t id = sinew_node_attr(g, n, dot + 1);
  sinew_attr_info_t info;
  if (id == UINT32_MAX || sinew_node_attr_info(g, n, id, &info))
    return sinew_cmd_error(cmd, SINEW_ENOTFOUND, "%s has no attribute '%s'", sinew_node_name(g, n), dot + 1);
  if (!(info.flags & SINEW_ATTR_DYNAMIC))
    return sinew_cmd_error(cmd, SINEW_EINVAL, "%s.%s is not a user-defined attribute", sinew_node_name(g, n), info.name);
  bool short_name = strcmp(info.name, dot + 1) != 0;
  /* the session's records keyed by the attribute's names: the -k / -cb records cannot follow a
   * rename, so such an attribute is refused; the saved -dataType follows the long name */
  sinew__extra *e = sinew__extra_get(s->scene, n, false);
  if (e)
    for (struct sinew__plug_state *st = e->states; st; st = st->hh.next) {
      if (!sinew__plug_state_live(g, n, st)) continue;
      for (uint32_t a = st->attr_id; a != UINT32_MAX;) {
        sinew_attr_info_t ai;
        if (a == id)
          return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "%s.%s has setAttr -k / -cb settings; renaming it is not supported",
                                 sinew_node_name(g, n), info.name);
        if (sinew_node_attr_info(g, n, a, &ai)) break;
        a = ai.parent;
      }
    }
  char *old_long = sinew__cmds_strdup(info.name), *new_copy = sinew__cmds_strdup(name ? name : "");
  if (!old_long || !new_copy) {
    sinew_free(old_long);
    sinew_free(new_copy);
    return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  }
  if ((rc = sinew_node_rename_attr(g, n, id, name, short_name))) {
    sinew_free(old_long);
    sinew_free(new_copy);
    return sinew__graph_error(cmd, rc);
  }
  bool used = false;
  for (uint32_t i = 0; e && !short_name && i + 1 < e->ndyn; i += 2)
    if (strcmp(e->dyn_types[i], old_long) == 0) {
      sinew_free(e->dyn_types[i]);
      e->dyn_types[i] = new_copy;
      used = true;
      sinew__side_changed(s->scene);
      break;
    }
  if (!used) sinew_free(new_copy);
  rc = sinew_cmd_result_string(cmd, name);
  if (rc) {
    /* put the old name back (the record of a -dataType follows it) */
    sinew_node_rename_attr(g, n, id, short_name ? dot + 1 : old_long, short_name);
    for (uint32_t i = 0; e && used && i + 1 < e->ndyn; i += 2)
      if (e->dyn_types[i] == new_copy) {
        e->dyn_types[i] = old_long;
        old_long = new_copy;
        break;
      }
    rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  }
  sinew_free(old_long);
  return rc;
}

/* ---- spaceLocator --------------------------------------------------------------------------------- */

/* spaceLocator [-n name] [-p x y z]: a transform with a locator shape under it ("locator1" and
 * "locatorShape1", or "name" and "nameShape"). As in Maya, -p goes into the shape's
 * localPosition, not the transform's translate (-a and -r read it the same way: the shape is
 * new). Returns the transform's name in a string array and selects it. */
static const sinew_cmd_flag_t locator_flags[] = {
    {"name", "n", "s", 0}, {"position", "p", "lll", 0}, {"absolute", "a", "", 0}, {"relative", "r", "", 0}};

static int cmd_space_locator(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  sinew__scene *sc = s->scene;
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  if (sinew_cmd_argc(cmd)) return sinew_cmd_error(cmd, SINEW_EINVAL, "takes no objects");
  if (!sinew_find_node_type(g, "locator")) return sinew_cmd_error(cmd, SINEW_ENOTFOUND, "no locator node type");
  int rc = sinew__finish_current(s);
  if (rc) return sinew__graph_error(cmd, rc);
  const char *name = sinew_cmd_flag_string(cmd, "name", NULL);
  uint32_t cap = sc->csel;
  if (sinew__grow((void **)&sc->selection, &cap, 1, sizeof *sc->selection))
    return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  sc->csel = cap;
  sinew_node_t xf, shape = {0, 0};
  if ((rc = sinew_node_create(g, "transform", name && name[0] ? name : "locator#", &xf))) return sinew__graph_error(cmd, rc);
  /* the shape: "<transform>Shape", or for an automatic "locatorN", "locatorShapeN" */
  char sname[600];
  const char *xn = sinew_node_name(g, xf);
  size_t len = strlen(xn), digits = len;
  while (digits > 0 && xn[digits - 1] >= '0' && xn[digits - 1] <= '9') digits--;
  if (!(name && name[0]) && digits < len) snprintf(sname, sizeof sname, "%.*sShape%s", (int)digits, xn, xn + digits);
  else snprintf(sname, sizeof sname, "%sShape", xn);
  rc = sinew_node_create_under(g, "locator", sname, xf, &shape);
  if (!rc && sinew_cmd_flag_count(cmd, "position")) {
    double p[3];
    for (int k = 0; k < 3; k++) p[k] = sinew_cmd_flag_double(cmd, "position", (size_t)k, 0);
    rc = set3(g, shape, "localPosition", p);
  }
  char buf[512];
  if (rc) rc = sinew__graph_error(cmd, rc);
  else if ((rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY)) ||
           (rc = sinew_cmd_result_append_string(cmd, sinew__node_label(g, xf, buf, sizeof buf))))
    rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  if (rc) return rc;
  sc->selection[0] = xf;
  sc->nsel = 1;
  sc->current = xf;
  return SINEW_OK;
}

/* ---- registration ------------------------------------------------------------------------------ */

int sinew__register_everyday_cmds(sinew_lang_t *L, sinew_session_t *s) {
  const sinew_cmd_desc_t cmds[] = {
      {"xform", cmd_xform, xform_flags, COUNT(xform_flags), false, s},
      {"move", cmd_mrs, move_flags, COUNT(move_flags), false, s},
      {"rotate", cmd_mrs, rotate_flags, COUNT(rotate_flags), false, s},
      {"scale", cmd_mrs, scale_flags, COUNT(scale_flags), false, s},
      {"group", cmd_group, group_flags, COUNT(group_flags), false, s},
      {"spaceLocator", cmd_space_locator, locator_flags, COUNT(locator_flags), false, s},
      {"makeIdentity", cmd_make_identity, mi_flags, COUNT(mi_flags), false, s},
      {"renameAttr", cmd_rename_attr, NULL, 0, false, s},
      {"objectType", cmd_object_type, objtype_flags, COUNT(objtype_flags), false, s},
      {"attributeExists", cmd_attribute_exists, NULL, 0, false, s},
      {"attributeQuery", cmd_attribute_query, attrq_flags, COUNT(attrq_flags), false, s},
  };
  for (size_t i = 0; i < COUNT(cmds); i++) {
    int rc = sinew_lang_register_command(L, &cmds[i]);
    if (rc) return rc;
  }
  return SINEW_OK;
}
