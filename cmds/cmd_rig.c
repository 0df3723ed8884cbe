/* cmds/cmd_rig.c: the rigging commands: joint, the polygon primitives (polyCube, polyPlane,
 * polyCylinder, polySphere) and expression. The skinning commands are in cmd_skin.c.
 *
 * Every command checks what it can first, then changes the graph; a late failure is taken back
 * by the command's transaction, so a failed command leaves the scene as it was. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds_internal.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- shared helpers --------------------------------------------------------------------------- */

static bool same_node(sinew_node_t a, sinew_node_t b) { return a.index == b.index && a.gen == b.gen; }

static bool is_type(sinew_graph_t *g, sinew_node_t n, const char *type) {
  const sinew_node_type_t *t = sinew_node_type(g, n);
  return t && sinew_node_type_is_a(t, type);
}

sinew_plug_t sinew__attr_plug(sinew_graph_t *g, sinew_node_t n, const char *name) {
  return sinew_plug_make(n, sinew_node_attr(g, n, name), 0, NULL);
}

/* The scene's size of a unit-bearing number: internal value / factor = value in scene units. */
static double unit_out(sinew_graph_t *g, sinew_attr_type_t type) { return sinew__unit_in(g, type); }

/* Sets n values (n == 1: a simple numeric plug; else the first n children of a compound). A
 * command that fails part-way is taken back by its transaction. The graph's message says why
 * when it fails. */
static int set_n(sinew_graph_t *g, const sinew_plug_t *p, const double *v, uint32_t n) {
  return n == 1 ? sinew_set_double(g, p, v[0]) : sinew_set_doubles(g, p, v, n);
}

static int set1(sinew_graph_t *g, sinew_node_t node, const char *attr, double v) {
  sinew_plug_t p = sinew__attr_plug(g, node, attr);
  return set_n(g, &p, &v, 1);
}

/* Makes room for one selected node, so that selecting after a change cannot fail. */
static int reserve_selection(sinew__scene *sc) {
  if (sc->csel > 0) return SINEW_OK;
  sinew_node_t *p = sinew_realloc(sc->selection, 8 * sizeof *p);
  if (!p) return SINEW_ENOMEM;
  sc->selection = p;
  sc->csel = 8;
  return SINEW_OK;
}

static void select_only(sinew__scene *sc, sinew_node_t n) {
  sc->selection[0] = n;
  sc->nsel = 1;
}

/* A name no node has (create commands give every object a unique name, as Maya does): the
 * wanted name when it is free, else its trailing number increased. NULL or '#' names are left
 * to the graph's automatic naming. */
const char *sinew__unique_name(sinew_graph_t *g, const char *want, char *buf, size_t size) {
  sinew_node_t found;
  if (!want || !want[0] || strchr(want, '#') || strlen(want) + 22 > size) return want;
  if (sinew_node_find(g, want, &found) == SINEW_ENOTFOUND) return want;
  /* as the graph names things (docs/graph.md, Naming): joint3 taken gives joint4; a trailing
   * number too long to count on is part of the stem */
  size_t len = strlen(want), base = len;
  while (base > 0 && want[base - 1] >= '0' && want[base - 1] <= '9') base--;
  unsigned long k = 1;
  if (base < len && len - base <= 18) k = strtoul(want + base, NULL, 10) + 1;
  else base = len;
  for (;; k++) {
    snprintf(buf, size, "%.*s%lu", (int)base, want, k);
    if (sinew_node_find(g, buf, &found) == SINEW_ENOTFOUND) return buf;
  }
}

/* The node a query or edit works on: the positional argument i, else the first selected. */
static int target_node(sinew_cmd_t *cmd, size_t i, sinew_node_t *out) {
  sinew_session_t *s = sinew__session(cmd);
  if (i < sinew_cmd_argc(cmd)) return sinew__cmd_node(cmd, sinew_cmd_arg_string(cmd, i), out);
  if (i == 0 && s->scene->nsel > 0 && sinew_node_valid(sinew_cmd_graph(cmd), s->scene->selection[0])) {
    *out = s->scene->selection[0];
    return SINEW_OK;
  }
  return sinew_cmd_error(cmd, SINEW_EINVAL, "no object given and nothing selected");
}

static int result_triple(sinew_cmd_t *cmd, const double v[3], double scale) {
  int rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_FLOAT_ARRAY);
  for (int k = 0; k < 3 && !rc; k++) rc = sinew_cmd_result_append_double(cmd, v[k] / scale);
  return rc;
}

/* ---- joint --------------------------------------------------------------------------------- */

static const sinew_cmd_flag_t joint_flags[] = {
    {"position", "p", "lll", 0},          {"relative", "r", "", 0},
    {"absolute", "a", "", 0},             {"orientation", "o", "aaa", 0},
    {"name", "n", "s", 0},                {"radius", "rad", "f", 0},
    {"rotationOrder", "roo", "s", 0},     {"scale", "s", "fff", 0},
    {"scaleOrientation", "so", "aaa", 0}, {"scaleCompensate", "sc", "b", 0},
    {"angleX", "ax", "a", 0},             {"angleY", "ay", "a", 0},
    {"angleZ", "az", "a", 0},             {"degreeOfFreedom", "dof", "s", 0},
    {"component", "co", "", 0},           {"setPreferredAngles", "spa", "", 0},
    {"assumePreferredAngles", "apa", "", 0}, {"exists", "ex", "s", SINEW_CMD_QUERY_ARGS},
    {"orientJoint", "oj", "s", 0},        {"secondaryAxisOrient", "sao", "s", 0},
    {"zeroScaleOrient", "zso", "", 0},    {"children", "ch", "", 0},
    {"query", "q", "", SINEW_CMD_QUERY},  {"edit", "e", "", SINEW_CMD_EDIT}};

const char *const sinew__rotate_orders[6] = {"xyz", "yzx", "zxy", "xzy", "yxz", "zyx"};

int sinew__rotate_order_from(const char *s) {
  for (int i = 0; i < 6; i++)
    if (strcmp(s, sinew__rotate_orders[i]) == 0) return i;
  return -1;
}

/* -dof: a subset of "xyz" (each letter at most once), or "none". */
static bool parse_dof(const char *s, bool out[3]) {
  out[0] = out[1] = out[2] = false;
  if (strcmp(s, "none") == 0) return true;
  if (!s[0]) return false;
  for (const char *c = s; *c; c++) {
    if (*c < 'x' || *c > 'z' || out[*c - 'x']) return false;
    out[*c - 'x'] = true;
  }
  return true;
}

/* -secondaryAxisOrient: the world direction the secondary axis leans toward ("none": the plane
 * of the bones, out = the zero vector). false for an unknown name. */
static bool up_axis(const char *s, sinew_vec3_t *out) {
  static const char *const names[] = {"xup", "xdown", "yup", "ydown", "zup", "zdown"};
  sinew_vec3_t v = {0, 0, 0};
  bool known = strcmp(s, "none") == 0;
  for (int i = 0; i < 6 && !known; i++)
    if (strcmp(s, names[i]) == 0) {
      double d = i % 2 ? -1 : 1;
      v = (sinew_vec3_t){i / 2 == 0 ? d : 0, i / 2 == 1 ? d : 0, i / 2 == 2 ? d : 0};
      known = true;
    }
  if (out) *out = v;
  return known;
}

/* Everything in the flags that can be wrong before anything changes. */
static int joint_check_flags(sinew_cmd_t *cmd) {
  const char *roo = sinew_cmd_flag_string(cmd, "rotationOrder", NULL);
  const char *dof = sinew_cmd_flag_string(cmd, "degreeOfFreedom", NULL);
  bool d[3];
  if (roo && sinew__rotate_order_from(roo) < 0)
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-rotationOrder: '%s' is not xyz, yzx, zxy, xzy, yxz or zyx", roo);
  if (dof && !parse_dof(dof, d))
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-degreeOfFreedom: '%s' is not a combination of x, y and z", dof);
  if (sinew_cmd_flag_count(cmd, "relative") && sinew_cmd_flag_count(cmd, "absolute"))
    return sinew_cmd_error(cmd, SINEW_EINVAL, "give -relative or -absolute, not both");
  const char *oj = sinew_cmd_flag_string(cmd, "orientJoint", NULL), *sao = sinew_cmd_flag_string(cmd, "secondaryAxisOrient", NULL);
  if (oj && strcmp(oj, "none") != 0 && sinew__rotate_order_from(oj) < 0)
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-orientJoint: '%s' is not xyz, yzx, zxy, xzy, yxz, zyx or none", oj);
  if (sao && !up_axis(sao, NULL))
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-secondaryAxisOrient: '%s' is not xup, xdown, yup, ydown, zup, zdown or none",
                           sao);
  if (sao && !oj) return sinew_cmd_error(cmd, SINEW_EINVAL, "-secondaryAxisOrient goes with -orientJoint");
  bool edit = sinew_cmd_edit(cmd);
  static const char *const edit_only[] = {"orientJoint", "zeroScaleOrient", "children"};
  const char *needs_edit = edit ? NULL : sinew__cmd_given_flag(cmd, edit_only, COUNT(edit_only));
  if (needs_edit)
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-%s is an edit flag (joint -e -%s ...)", needs_edit, needs_edit);
  if (sinew_cmd_flag_count(cmd, "radius") && !(sinew_cmd_flag_double(cmd, "radius", 0, 1) >= 0))
    return sinew_cmd_error(cmd, SINEW_ERANGE, "-radius: %g is negative", sinew_cmd_flag_double(cmd, "radius", 0, 1));
  return SINEW_OK;
}

static int flag_triple(sinew_cmd_t *cmd, const char *flag, double out[3]) {
  for (size_t k = 0; k < 3; k++) out[k] = sinew_cmd_flag_double(cmd, flag, k, 0);
  return (int)sinew_cmd_flag_count(cmd, flag);
}

static int set_triple(sinew_graph_t *g, sinew_node_t n, const char *attr, const double v[3]) {
  sinew_plug_t p = sinew__attr_plug(g, n, attr);
  return set_n(g, &p, v, 3);
}

/* The attributes the flags set directly (everything but -position). */
static int joint_apply(sinew_cmd_t *cmd, sinew_graph_t *g, sinew_node_t n) {
  double v[3];
  int rc = SINEW_OK;
  if (flag_triple(cmd, "orientation", v)) rc = set_triple(g, n, "jointOrient", v);
  if (!rc && flag_triple(cmd, "scale", v)) rc = set_triple(g, n, "scale", v);
  if (!rc && flag_triple(cmd, "scaleOrientation", v)) rc = set_triple(g, n, "rotateAxis", v);
  if (!rc && sinew_cmd_flag_count(cmd, "radius"))
    rc = set1(g, n, "radius", sinew_cmd_flag_double(cmd, "radius", 0, 1));
  if (!rc && sinew_cmd_flag_count(cmd, "rotationOrder"))
    rc = set1(g, n, "rotateOrder", sinew__rotate_order_from(sinew_cmd_flag_string(cmd, "rotationOrder", "xyz")));
  if (!rc && sinew_cmd_flag_count(cmd, "scaleCompensate"))
    rc = set1(g, n, "segmentScaleCompensate", sinew_cmd_flag_bool(cmd, "scaleCompensate", true));
  const char *angles[3][2] = {{"angleX", "rotateX"}, {"angleY", "rotateY"}, {"angleZ", "rotateZ"}};
  for (int k = 0; k < 3 && !rc; k++)
    if (sinew_cmd_flag_count(cmd, angles[k][0]))
      rc = set1(g, n, angles[k][1], sinew_cmd_flag_double(cmd, angles[k][0], 0, 0));
  const char *dof = sinew_cmd_flag_string(cmd, "degreeOfFreedom", NULL);
  bool d[3];
  if (!rc && dof && parse_dof(dof, d)) {
    const char *jt[3] = {"jointTypeX", "jointTypeY", "jointTypeZ"};
    for (int k = 0; k < 3 && !rc; k++) rc = set1(g, n, jt[k], d[k]);
  }
  if (!rc && (sinew_cmd_flag_count(cmd, "setPreferredAngles") || sinew_cmd_flag_count(cmd, "assumePreferredAngles"))) {
    bool set = sinew_cmd_flag_count(cmd, "setPreferredAngles");
    sinew_plug_t from = sinew__attr_plug(g, n, set ? "rotate" : "preferredAngle");
    if (!(rc = sinew_get_doubles(g, &from, v, 3, NULL))) rc = set_triple(g, n, set ? "preferredAngle" : "rotate", v);
  }
  return rc;
}

int sinew__above_local(sinew_graph_t *g, sinew_node_t n, sinew_mat4_t *out) {
  sinew_mat4_t opm, pm;
  sinew_plug_t popm = sinew__attr_plug(g, n, "offsetParentMatrix"), pit = sinew__attr_plug(g, n, "inheritsTransform");
  sinew_plug_t ppm = sinew_plug_make(n, sinew_node_attr(g, n, "parentMatrix"), 1, (const int32_t[]){0});
  bool inherits = true;
  int rc = sinew_get_matrix(g, &popm, &opm);
  if (!rc) rc = sinew_get_bool(g, &pit, &inherits);
  if (!rc) rc = sinew_get_matrix(g, &ppm, &pm);
  if (rc) return rc;
  if (!inherits) sinew_mat4_identity(&pm);
  sinew_mat4_mul(&opm, &pm, out);
  return SINEW_OK;
}

static int world_position(sinew_graph_t *g, sinew_node_t n, double out[3]) {
  sinew_mat4_t w;
  int rc = sinew_dag_world_matrix(g, n, &w);
  if (rc) return rc;
  for (int k = 0; k < 3; k++) out[k] = w.m[3][k];
  return SINEW_OK;
}

/* Moves the joint's centre to p: its translate (relative) or its world position. A joint has
 * no pivots, so its centre is translate carried through what is above its local matrix. */
static int joint_place(sinew_graph_t *g, sinew_node_t n, const double p[3], bool relative) {
  double t[3] = {p[0], p[1], p[2]};
  if (!relative) {
    sinew_mat4_t above, inv;
    int rc = sinew__above_local(g, n, &above);
    if (rc) return rc;
    if (!sinew_mat4_inverse(&above, &inv))
      return sinew_graph_set_error(g, SINEW_ERANGE, "%s: the parent's world matrix is singular; "
                                   "no translate reaches that position", sinew_node_name(g, n));
    sinew_vec3_t r;
    sinew_mat4_transform_point((sinew_vec3_t){p[0], p[1], p[2]}, &inv, &r);
    t[0] = r.x, t[1] = r.y, t[2] = r.z;
  }
  return set_triple(g, n, "translate", t);
}

/* -component: the children of a moved joint keep their world positions (only their translate
 * changes: the parent moved without turning). before[] holds their world positions. */
static int joint_keep_children(sinew_graph_t *g, const sinew_node_t *kids, const double (*before)[3], size_t nkids) {
  for (size_t i = 0; i < nkids; i++) {
    double now[3], t[3];
    sinew_mat4_t above, inv;
    int rc = world_position(g, kids[i], now);
    if (!rc) rc = sinew__above_local(g, kids[i], &above);
    if (rc) return rc;
    if (!sinew_mat4_inverse(&above, &inv))
      return sinew_graph_set_error(g, SINEW_ERANGE, "%s: singular parent matrix", sinew_node_name(g, kids[i]));
    sinew_vec3_t d;
    sinew_mat4_transform_vector((sinew_vec3_t){before[i][0] - now[0], before[i][1] - now[1], before[i][2] - now[2]},
                                &inv, &d);
    sinew_plug_t pt = sinew__attr_plug(g, kids[i], "translate");
    if ((rc = sinew_get_doubles(g, &pt, t, 3, NULL))) return rc;
    t[0] += d.x, t[1] += d.y, t[2] += d.z;
    if ((rc = set_n(g, &pt, t, 3))) return rc;
  }
  return SINEW_OK;
}

static int joint_query(sinew_cmd_t *cmd, sinew_graph_t *g) {
  const char *ex = sinew_cmd_flag_string(cmd, "exists", NULL);
  if (ex) {
    sinew_node_t f;
    return sinew_cmd_result_int(cmd, sinew_node_find(g, ex, &f) == SINEW_OK && is_type(g, f, "joint"));
  }
  sinew_node_t n;
  int rc = target_node(cmd, 0, &n);
  if (rc) return rc;
  if (!is_type(g, n, "joint")) return sinew_cmd_error(cmd, SINEW_ETYPE, "%s is not a joint", sinew_node_name(g, n));
  static const char *const queryable[] = {"position", "orientation", "name", "radius", "rotationOrder", "scale",
                                          "scaleOrientation", "scaleCompensate", "angleX", "angleY", "angleZ",
                                          "degreeOfFreedom"};
  const char *what = NULL;
  for (size_t i = 0; i < COUNT(queryable); i++)
    if (sinew_cmd_flag_count(cmd, queryable[i])) {
      if (what) return sinew_cmd_error(cmd, SINEW_EINVAL, "query one flag at a time (-%s and -%s)", what, queryable[i]);
      what = queryable[i];
    }
  if (!what) return sinew_cmd_error(cmd, SINEW_EINVAL, "-query: give the flag to query (-position, -orientation, ...)");
  double v[3] = {0, 0, 0}, ang = unit_out(g, SINEW_ATTR_ANGLE), lin = unit_out(g, SINEW_ATTR_DISTANCE);
  sinew_plug_t p;
  if (strcmp(what, "name") == 0) {
    char buf[512];
    return sinew_cmd_result_string(cmd, sinew__node_label(g, n, buf, sizeof buf));
  }
  if (strcmp(what, "position") == 0) {
    if (sinew_cmd_flag_count(cmd, "relative")) {
      p = sinew__attr_plug(g, n, "translate");
      rc = sinew_get_doubles(g, &p, v, 3, NULL);
    } else {
      rc = world_position(g, n, v);
    }
    return rc ? sinew_cmd_graph_error(cmd, rc) : result_triple(cmd, v, lin);
  }
  if (strcmp(what, "degreeOfFreedom") == 0) {
    char dof[4] = {0};
    size_t k = 0;
    const char *jt[3] = {"jointTypeX", "jointTypeY", "jointTypeZ"};
    for (int i = 0; i < 3; i++) {
      bool b = true;
      p = sinew__attr_plug(g, n, jt[i]);
      if ((rc = sinew_get_bool(g, &p, &b))) return sinew_cmd_graph_error(cmd, rc);
      if (b) dof[k++] = (char)('x' + i);
    }
    return sinew_cmd_result_string(cmd, k ? dof : "none");
  }
  static const struct {
    const char *flag, *attr;
    int kind; /* 3 angle triple, 4 plain triple, 1 angle, 0 number, 2 rotate order, 5 bool */
  } simple[] = {{"orientation", "jointOrient", 3}, {"scaleOrientation", "rotateAxis", 3}, {"scale", "scale", 4},
                {"radius", "radius", 0},          {"rotationOrder", "rotateOrder", 2},  {"angleX", "rotateX", 1},
                {"angleY", "rotateY", 1},         {"angleZ", "rotateZ", 1},             {"scaleCompensate", "segmentScaleCompensate", 5}};
  for (size_t i = 0; i < COUNT(simple); i++) {
    if (strcmp(what, simple[i].flag) != 0) continue;
    p = sinew__attr_plug(g, n, simple[i].attr);
    int kind = simple[i].kind;
    rc = kind >= 3 ? sinew_get_doubles(g, &p, v, 3, NULL) : sinew_get_double(g, &p, &v[0]);
    if (rc) return sinew_cmd_graph_error(cmd, rc);
    switch (kind) {
      case 3: return result_triple(cmd, v, ang);
      case 4: return result_triple(cmd, v, 1);
      case 1: return sinew_cmd_result_double(cmd, v[0] / ang);
      case 2: return sinew_cmd_result_string(cmd, sinew__rotate_orders[(int)v[0] >= 0 && (int)v[0] < 6 ? (int)v[0] : 0]);
      case 5: return sinew_cmd_result_int(cmd, v[0] != 0);
      default: return sinew_cmd_result_double(cmd, v[0]);
    }
  }
  return sinew_cmd_error(cmd, SINEW_EINVAL, "-%s cannot be queried", what);
}

/* -position on one joint in edit mode: with -component its children stay where they are. */
static int joint_edit_position(sinew_cmd_t *cmd, sinew_graph_t *g, sinew_node_t n) {
  double p[3];
  flag_triple(cmd, "position", p);
  bool relative = sinew_cmd_flag_count(cmd, "relative");
  if (!sinew_cmd_flag_count(cmd, "component")) return joint_place(g, n, p, relative);
  size_t nkids = sinew_node_children(g, n, NULL, 0);
  sinew_node_t *kids = sinew_malloc((nkids ? nkids : 1) * sizeof *kids);
  double(*before)[3] = sinew_malloc((nkids ? nkids : 1) * sizeof *before);
  int rc = kids && before ? SINEW_OK : sinew_graph_set_error(g, SINEW_ENOMEM, "out of memory");
  size_t nt = 0; /* the children that are transforms */
  if (!rc) {
    sinew_node_children(g, n, kids, nkids);
    for (size_t k = 0; k < nkids; k++)
      if (is_type(g, kids[k], "transform")) kids[nt++] = kids[k];
  }
  for (size_t k = 0; k < nt && !rc; k++) rc = world_position(g, kids[k], before[k]);
  if (!rc) rc = joint_place(g, n, p, relative);
  if (!rc) rc = joint_keep_children(g, kids, (const double(*)[3])before, nt);
  sinew_free(kids);
  sinew_free(before);
  return rc;
}

/* ---- joint -e -oj / -zso: orientation from the skeleton's shape ------------------------------------ */

static sinew_vec3_t mat_row(const sinew_mat4_t *m, int r) { return (sinew_vec3_t){m->m[r][0], m->m[r][1], m->m[r][2]}; }

/* The rotation (rows orthonormal, no translation) of a matrix; identity when it is singular. */
static sinew_mat4_t rotation_of(const sinew_mat4_t *m) {
  sinew_mat4_t r, ss;
  if (!sinew_mat4_orthonormalize_rows(m, &r, &ss)) sinew_mat4_identity(&r);
  r.m[3][0] = r.m[3][1] = r.m[3][2] = 0;
  return r;
}

static int get_triple(sinew_graph_t *g, sinew_node_t n, const char *attr, double v[3]) {
  sinew_plug_t p = sinew__attr_plug(g, n, attr);
  return sinew_get_doubles(g, &p, v, 3, NULL);
}

static sinew_mat4_t euler_xyz(const double v[3]) {
  sinew_mat4_t m;
  sinew_mat4_euler((sinew_vec3_t){v[0], v[1], v[2]}, SINEW_ROTATE_XYZ, &m);
  return m;
}

static void to_euler_xyz(const sinew_mat4_t *m, double out[3]) {
  sinew_vec3_t e;
  sinew_euler_from_mat4(m, SINEW_ROTATE_XYZ, &e);
  out[0] = e.x, out[1] = e.y, out[2] = e.z;
}

/* The first child of n that is a joint (the zero handle when none). */
static int first_child_joint(sinew_graph_t *g, sinew_node_t n, sinew_node_t *out) {
  *out = (sinew_node_t){0, 0};
  size_t nk = sinew_node_children(g, n, NULL, 0);
  sinew_node_t small[16], *kids = nk <= 16 ? small : sinew_malloc(nk * sizeof *kids);
  if (!kids) return sinew_graph_set_error(g, SINEW_ENOMEM, "out of memory");
  sinew_node_children(g, n, kids, nk);
  for (size_t k = 0; k < nk && !out->gen; k++)
    if (is_type(g, kids[k], "joint")) *out = kids[k];
  if (kids != small) sinew_free(kids);
  return SINEW_OK;
}

/* The world rotation the joint's axes should have: the axis of the first letter of `order`
 * along the bone to its first child joint, the second toward `up` (or, with no up, along the
 * normal of the plane of the bones into and out of the joint), the third by the right-hand
 * rule. *found is false when the joint has no child joint to aim at (or one at its centre). */
static int orient_target(sinew_graph_t *g, sinew_node_t n, const char *order, sinew_vec3_t up, const sinew_mat4_t *world,
                         sinew_mat4_t *out, bool *found) {
  sinew_node_t child, grand = {0, 0};
  sinew_mat4_t cw;
  *found = false;
  int rc = first_child_joint(g, n, &child);
  if (rc || !child.gen) return rc;
  if ((rc = sinew_dag_world_matrix(g, child, &cw)) || (rc = first_child_joint(g, child, &grand))) return rc;
  sinew_vec3_t here = mat_row(world, 3), aim, sec = {0, 0, 0}, third;
  sinew_vec3_sub(mat_row(&cw, 3), here, &aim);
  if (sinew_vec3_length(aim) < 1e-9) return SINEW_OK;
  *found = true;
  sinew_vec3_normalize(aim, &aim);
  int a = order[0] - 'x', b = order[1] - 'x', c = order[2] - 'x';
  if (sinew_vec3_length(up) > 0) {
    sinew_vec3_t along;
    sinew_vec3_scale(aim, sinew_vec3_dot(up, aim), &along);
    sinew_vec3_sub(up, along, &sec);
  } else {
    /* the normal of the plane the bones make: parent joint -> joint -> child, or, at a root,
     * joint -> child -> grandchild */
    sinew_node_t parent = sinew_node_parent(g, n);
    sinew_mat4_t pw, gw;
    sinew_vec3_t in, out2;
    if (sinew_node_valid(g, parent) && is_type(g, parent, "joint") && !sinew_dag_world_matrix(g, parent, &pw)) {
      sinew_vec3_sub(here, mat_row(&pw, 3), &in);
      sinew_vec3_cross(in, aim, &sec);
    }
    if (sinew_vec3_length(sec) < 1e-9 && grand.gen && !sinew_dag_world_matrix(g, grand, &gw)) {
      sinew_vec3_sub(mat_row(&gw, 3), mat_row(&cw, 3), &out2);
      sinew_vec3_cross(aim, out2, &sec);
    }
  }
  if (sinew_vec3_length(sec) < 1e-9 * (1 + sinew_vec3_length(up))) {
    /* no plane, or up along the bone: the secondary axis the joint has now, made square to the
     * bone (then the third one, then any) */
    sinew_mat4_t r = rotation_of(world);
    int tries[3] = {b, c, a == 0 ? 1 : 0};
    for (int i = 0; i < 3 && sinew_vec3_length(sec) < 1e-6; i++) {
      sinew_vec3_t cand = mat_row(&r, tries[i]), along;
      if (i == 2) cand = (sinew_vec3_t){tries[i] == 0, tries[i] == 1, tries[i] == 2};
      sinew_vec3_scale(aim, sinew_vec3_dot(cand, aim), &along);
      sinew_vec3_sub(cand, along, &sec);
      if (i == 1 && sinew_vec3_length(sec) >= 1e-6) { /* the third axis stands in: turn it to the second */
        sinew_vec3_t t;
        sinew_vec3_normalize(sec, &sec);
        sinew_vec3_cross(sec, aim, &t); /* b = c x a for a right-handed (a, b, c) */
        bool cyclic = (b - a + 3) % 3 == 1;
        if (!cyclic) sinew_vec3_scale(t, -1, &t);
        sec = t;
      }
    }
  }
  sinew_vec3_normalize(sec, &sec);
  /* (a, b, c) cyclic (xyz, yzx, zxy): c = a x b; otherwise c = b x a */
  bool cyclic = (b - a + 3) % 3 == 1;
  if (cyclic) sinew_vec3_cross(aim, sec, &third);
  else sinew_vec3_cross(sec, aim, &third);
  sinew_mat4_identity(out);
  const sinew_vec3_t rows[3] = {aim, sec, third};
  const int idx[3] = {a, b, c};
  for (int i = 0; i < 3; i++) {
    out->m[idx[i]][0] = rows[i].x;
    out->m[idx[i]][1] = rows[i].y;
    out->m[idx[i]][2] = rows[i].z;
  }
  return SINEW_OK;
}

/* Keeps each DAG child of n where it is in the world after n's frame changed (before[] are
 * their world matrices from before): a joint child through its translate and jointOrient (its
 * rotate, rotateAxis and scale stay), another transform through its local values. */
static int keep_children_world(sinew_graph_t *g, const sinew_node_t *kids, const sinew_mat4_t *before, size_t nkids) {
  for (size_t i = 0; i < nkids; i++) {
    sinew_mat4_t above, inv, local;
    int rc = sinew__above_local(g, kids[i], &above);
    if (rc) return rc;
    if (!sinew_mat4_inverse(&above, &inv))
      return sinew_graph_set_error(g, SINEW_ERANGE, "%s: singular parent matrix", sinew_node_name(g, kids[i]));
    sinew_mat4_mul(&before[i], &inv, &local);
    double t[3] = {local.m[3][0], local.m[3][1], local.m[3][2]};
    if (is_type(g, kids[i], "joint")) {
      /* local rotation = RA * R * JO (IS is the identity under a unit scale) */
      double ra[3], r[3], roo = 0;
      sinew_plug_t proo = sinew__attr_plug(g, kids[i], "rotateOrder");
      if ((rc = get_triple(g, kids[i], "rotateAxis", ra)) || (rc = get_triple(g, kids[i], "rotate", r)) ||
          (rc = sinew_get_double(g, &proo, &roo)))
        return rc;
      sinew_mat4_t rr, rar = euler_xyz(ra), pre, pre_inv, jo, lrot = rotation_of(&local);
      sinew_mat4_euler((sinew_vec3_t){r[0], r[1], r[2]}, (sinew_rotate_order_t)(roo >= 0 && roo <= 5 ? (int)roo : 0), &rr);
      sinew_mat4_mul(&rar, &rr, &pre);
      sinew_mat4_transpose(&pre, &pre_inv);
      sinew_mat4_mul(&pre_inv, &lrot, &jo);
      double jv[3];
      to_euler_xyz(&jo, jv);
      if ((rc = set_triple(g, kids[i], "jointOrient", jv))) return rc;
    } else if (is_type(g, kids[i], "transform")) {
      /* through the logged setters: rotate and scale from the solved local matrix */
      double roo = 0;
      sinew_plug_t proo = sinew__attr_plug(g, kids[i], "rotateOrder");
      if ((rc = sinew_get_double(g, &proo, &roo))) return rc;
      sinew_vec3_t tt, rr, ss, sh;
      if (!sinew_mat4_decompose(&local, (sinew_rotate_order_t)(roo >= 0 && roo <= 5 ? (int)roo : 0), &tt, &rr, &ss, &sh))
        return sinew_graph_set_error(g, SINEW_ERANGE, "%s: singular matrix", sinew_node_name(g, kids[i]));
      double rv[3] = {rr.x, rr.y, rr.z}, sv[3] = {ss.x, ss.y, ss.z};
      if ((rc = set_triple(g, kids[i], "rotate", rv)) || (rc = set_triple(g, kids[i], "scale", sv))) return rc;
    } else {
      continue; /* shapes have no transform of their own */
    }
    if ((rc = set_triple(g, kids[i], "translate", t))) return rc;
  }
  return SINEW_OK;
}

/* -orientJoint and -zeroScaleOrient on one joint. -oj: jointOrient takes the target rotation
 * (rotate must be zero, as Maya ignores the flag on a rotated joint) and rotateAxis takes back
 * the difference, so the frame the children live in, and so the children, do not move ("none":
 * jointOrient becomes zero the same way). -zso: rotateAxis becomes zero and the children are
 * moved back into place through their translate and jointOrient. */
static int joint_orient(sinew_cmd_t *cmd, sinew_graph_t *g, sinew_node_t n) {
  const char *oj = sinew_cmd_flag_string(cmd, "orientJoint", NULL);
  bool zso = sinew_cmd_flag_count(cmd, "zeroScaleOrient") > 0;
  double jo[3], ra[3], r[3];
  int rc;
  if ((rc = get_triple(g, n, "jointOrient", jo)) || (rc = get_triple(g, n, "rotateAxis", ra)) ||
      (rc = get_triple(g, n, "rotate", r)))
    return rc;
  sinew_mat4_t jo_m = euler_xyz(jo), ra_m = euler_xyz(ra);
  if (oj) {
    sinew_mat4_t target, world, above, jo_new;
    bool none = strcmp(oj, "none") == 0;
    if ((rc = sinew_dag_world_matrix(g, n, &world)) || (rc = sinew__above_local(g, n, &above))) return rc;
    if (none) {
      sinew_mat4_identity(&jo_new);
    } else if (r[0] != 0 || r[1] != 0 || r[2] != 0) {
      sinew_cmd_warning(cmd, SINEW_LOG_GENERIC, "-orientJoint: %s has rotations; its orientation is left as it is (as Maya)",
                        sinew_node_name(g, n));
      oj = NULL;
    } else {
      sinew_vec3_t up;
      up_axis(sinew_cmd_flag_string(cmd, "secondaryAxisOrient", "none"), &up);
      bool found;
      if ((rc = orient_target(g, n, oj, up, &world, &target, &found))) return rc;
      if (!found) {
        oj = NULL; /* an end joint keeps its orientation, as with Maya's command */
      } else {
        sinew_mat4_t prot = rotation_of(&above), prot_t;
        sinew_mat4_transpose(&prot, &prot_t);
        sinew_mat4_mul(&target, &prot_t, &jo_new);
      }
    }
    if (oj) {
      /* RA' * JO' = RA * JO: the children's frame stays */
      sinew_mat4_t keep, jo_new_t, ra_new;
      sinew_mat4_mul(&ra_m, &jo_m, &keep);
      sinew_mat4_transpose(&jo_new, &jo_new_t);
      sinew_mat4_mul(&keep, &jo_new_t, &ra_new);
      double jv[3], rv[3];
      to_euler_xyz(&jo_new, jv);
      to_euler_xyz(&ra_new, rv);
      if ((rc = set_triple(g, n, "jointOrient", jv)) || (rc = set_triple(g, n, "rotateAxis", rv))) return rc;
    }
  }
  if (!zso) return SINEW_OK;
  if ((rc = get_triple(g, n, "rotateAxis", ra))) return rc;
  if (ra[0] == 0 && ra[1] == 0 && ra[2] == 0) return SINEW_OK;
  size_t nk = sinew_node_children(g, n, NULL, 0);
  sinew_node_t *kids = sinew_malloc((nk ? nk : 1) * sizeof *kids);
  sinew_mat4_t *before = sinew_malloc((nk ? nk : 1) * sizeof *before);
  rc = kids && before ? SINEW_OK : sinew_graph_set_error(g, SINEW_ENOMEM, "out of memory");
  if (!rc) sinew_node_children(g, n, kids, nk);
  for (size_t k = 0; k < nk && !rc; k++) rc = sinew_dag_world_matrix(g, kids[k], &before[k]);
  const double zero[3] = {0, 0, 0};
  if (!rc) rc = set_triple(g, n, "rotateAxis", zero);
  if (!rc) rc = keep_children_world(g, kids, before, nk);
  sinew_free(kids);
  sinew_free(before);
  return rc;
}

/* -children: the joints below the named ones, parents before children (each once). */
static int add_joint_children(sinew_graph_t *g, sinew_node_t **nodes, size_t *count) {
  size_t cap = *count;
  for (size_t i = 0; i < *count; i++) {
    size_t nk = sinew_node_children(g, (*nodes)[i], NULL, 0);
    if (!nk) continue;
    sinew_node_t *kids = sinew_malloc(nk * sizeof *kids);
    if (!kids) return SINEW_ENOMEM;
    sinew_node_children(g, (*nodes)[i], kids, nk);
    for (size_t k = 0; k < nk; k++) {
      if (!is_type(g, kids[k], "joint")) continue;
      bool seen = false;
      for (size_t j = 0; j < *count && !seen; j++) seen = (*nodes)[j].index == kids[k].index && (*nodes)[j].gen == kids[k].gen;
      if (seen) continue;
      if (*count == cap) {
        size_t nc = cap * 2 + 8;
        sinew_node_t *m = sinew_realloc(*nodes, nc * sizeof *m);
        if (!m) {
          sinew_free(kids);
          return SINEW_ENOMEM;
        }
        *nodes = m;
        cap = nc;
      }
      (*nodes)[(*count)++] = kids[k];
    }
    sinew_free(kids);
  }
  return SINEW_OK;
}

/* joint -e: the same flags on each named (or the first selected) joint. */
static int joint_edit(sinew_cmd_t *cmd, sinew_graph_t *g) {
  size_t argc = sinew_cmd_argc(cmd), count = argc ? argc : 1;
  bool has_p = sinew_cmd_flag_count(cmd, "position");
  if (has_p && !sinew_cmd_flag_count(cmd, "relative") && count > 1)
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-position without -relative places one joint; %zu given", count);
  if (sinew_cmd_flag_count(cmd, "name") && count > 1)
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-name renames one joint; %zu given", count);
  sinew_node_t *nodes = sinew_malloc(count * sizeof *nodes);
  if (!nodes) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  int rc = SINEW_OK;
  for (size_t i = 0; i < count && !rc; i++) {
    if ((rc = target_node(cmd, i, &nodes[i]))) break;
    if (!is_type(g, nodes[i], "joint"))
      rc = sinew_cmd_error(cmd, SINEW_ETYPE, "%s is not a joint", sinew_node_name(g, nodes[i]));
  }
  if (!rc && sinew_cmd_flag_count(cmd, "children") && add_joint_children(g, &nodes, &count))
    rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  if (rc) {
    sinew_free(nodes);
    return rc;
  }
  /* from here failures come from the graph; the command's transaction takes them back */
  bool orient = sinew_cmd_flag_count(cmd, "orientJoint") || sinew_cmd_flag_count(cmd, "zeroScaleOrient");
  for (size_t i = 0; i < count && !rc; i++) {
    rc = joint_apply(cmd, g, nodes[i]);
    if (!rc && has_p) rc = joint_edit_position(cmd, g, nodes[i]);
    if (!rc && orient) rc = joint_orient(cmd, g, nodes[i]);
  }
  const char *newname = sinew_cmd_flag_string(cmd, "name", NULL);
  char buf[512];
  if (!rc && newname) rc = sinew_node_rename(g, nodes[0], newname);
  if (rc) {
    rc = sinew_cmd_graph_error(cmd, rc);
  } else if ((rc = sinew_cmd_result_string(cmd, sinew__node_label(g, nodes[0], buf, sizeof buf)))) {
    sinew_cmd_error(cmd, rc, "out of memory");
  }
  sinew_free(nodes);
  return rc;
}

/* The transform a new joint goes under: the one named, else the first selected transform. */
static int joint_parent(sinew_cmd_t *cmd, sinew_graph_t *g, sinew_node_t *out) {
  sinew__scene *sc = sinew__session(cmd)->scene;
  *out = (sinew_node_t){0, 0};
  size_t argc = sinew_cmd_argc(cmd);
  if (argc > 1) return sinew_cmd_error(cmd, SINEW_EINVAL, "a new joint has one parent; %zu objects given", argc);
  if (argc == 1) {
    int rc = sinew__cmd_node(cmd, sinew_cmd_arg_string(cmd, 0), out);
    if (rc) return rc;
    if (!is_type(g, *out, "transform"))
      return sinew_cmd_error(cmd, SINEW_ETYPE, "%s is not a transform; a joint cannot go under it",
                             sinew_node_name(g, *out));
    return SINEW_OK;
  }
  for (uint32_t i = 0; i < sc->nsel; i++)
    if (sinew_node_valid(g, sc->selection[i]) && is_type(g, sc->selection[i], "transform")) {
      *out = sc->selection[i];
      break;
    }
  return SINEW_OK;
}

static int cmd_joint(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  if (sinew_cmd_query(cmd)) return joint_query(cmd, g);
  int rc = joint_check_flags(cmd);
  if (rc) return rc;
  if (sinew_cmd_flag_count(cmd, "exists"))
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-exists is a query flag (joint -q -ex name)");
  if (sinew_cmd_edit(cmd)) return joint_edit(cmd, g);
  if (sinew_cmd_flag_count(cmd, "component"))
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-component is an edit flag (joint -e -co -p ...)");
  sinew_node_t parent, n = {0, 0};
  if ((rc = joint_parent(cmd, g, &parent))) return rc;
  if (reserve_selection(s->scene)) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  char nbuf[512];
  const char *name = sinew__unique_name(g, sinew_cmd_flag_string(cmd, "name", NULL), nbuf, sizeof nbuf);
  rc = parent.gen ? sinew_node_create_under(g, "joint", name, parent, &n) : sinew_node_create(g, "joint", name, &n);
  if (rc) return sinew_cmd_graph_error(cmd, rc);
  /* under a joint: parent.scale -> inverseScale, as Maya's parenting of joints does (and
   * sinew_dag_parent, which would also walk the ancestors again: a deep chain is quadratic) */
  if (parent.gen && is_type(g, parent, "joint")) {
    sinew_plug_t ps = sinew__attr_plug(g, parent, "scale"), is = sinew__attr_plug(g, n, "inverseScale");
    rc = sinew_connect(g, &ps, &is, 0, NULL);
  }
  if (!rc) rc = joint_apply(cmd, g, n);
  if (!rc && sinew_cmd_flag_count(cmd, "position")) {
    double p[3];
    flag_triple(cmd, "position", p);
    rc = joint_place(g, n, p, sinew_cmd_flag_count(cmd, "relative"));
  }
  if (rc) return sinew_cmd_graph_error(cmd, rc);
  if ((rc = sinew_cmd_result_string(cmd, sinew__node_label(g, n, nbuf, sizeof nbuf))))
    return sinew_cmd_error(cmd, rc, "out of memory");
  select_only(s->scene, n);
  return SINEW_OK;
}

/* ---- polygon primitives ---------------------------------------------------------------------- */

/* One flag of a primitive command and the creation node's attribute it sets. */
typedef struct prim_param {
  const char *flag;  /* long flag name */
  const char *attr;  /* attribute on the creation node */
  char kind;         /* 'l' size (>= 0), 'i' subdivision count, 'b' bool, 'v' axis, 'u' createUVs */
  int32_t min;       /* smallest count */
} prim_param;

typedef struct prim_kind {
  const char *type;   /* polyCylinder */
  const char *object; /* pCylinder: the default name of the transform */
  const prim_param *params;
  size_t nparams;
} prim_kind;

#define PRIM_COMMON_FLAGS                                                                        \
  {"axis", "ax", "fff", 0}, {"createUVs", "cuv", "i", 0}, {"constructionHistory", "ch", "b", 0}, \
      {"name", "n", "s", 0}, {"object", "o", "b", 0}, {"query", "q", "", SINEW_CMD_QUERY},         \
      {"edit", "e", "", SINEW_CMD_EDIT}
#define PRIM_COMMON_PARAMS {"axis", "axis", 'v', 0}, {"createUVs", "createUVs", 'u', 0}

/* Maya's command flags -sx -sy -sz name different attributes on each type. */
static const sinew_cmd_flag_t cylinder_flags[] = {
    {"radius", "r", "l", 0},           {"height", "h", "l", 0},           {"subdivisionsX", "sx", "i", 0},
    {"subdivisionsY", "sy", "i", 0},   {"subdivisionsZ", "sz", "i", 0},   {"subdivisionsAxis", "sa", "i", 0},
    {"subdivisionsHeight", "sh", "i", 0}, {"subdivisionsCaps", "sc", "i", 0}, {"roundCap", "rcp", "b", 0},
    PRIM_COMMON_FLAGS};
static const prim_param cylinder_params[] = {
    {"radius", "radius", 'l', 0},  {"height", "height", 'l', 0},
    {"subdivisionsX", "subdivisionsAxis", 'i', 3}, {"subdivisionsAxis", "subdivisionsAxis", 'i', 3},
    {"subdivisionsY", "subdivisionsHeight", 'i', 1}, {"subdivisionsHeight", "subdivisionsHeight", 'i', 1},
    {"subdivisionsZ", "subdivisionsCaps", 'i', 0}, {"subdivisionsCaps", "subdivisionsCaps", 'i', 0},
    {"roundCap", "roundCap", 'b', 0}, PRIM_COMMON_PARAMS};

static const sinew_cmd_flag_t cube_flags[] = {
    {"width", "w", "l", 0},           {"height", "h", "l", 0},           {"depth", "d", "l", 0},
    {"subdivisionsX", "sx", "i", 0},  {"subdivisionsY", "sy", "i", 0},   {"subdivisionsZ", "sz", "i", 0},
    {"subdivisionsWidth", "sw", "i", 0}, {"subdivisionsHeight", "sh", "i", 0}, {"subdivisionsDepth", "sd", "i", 0},
    PRIM_COMMON_FLAGS};
static const prim_param cube_params[] = {
    {"width", "width", 'l', 0}, {"height", "height", 'l', 0}, {"depth", "depth", 'l', 0},
    {"subdivisionsX", "subdivisionsWidth", 'i', 1}, {"subdivisionsWidth", "subdivisionsWidth", 'i', 1},
    {"subdivisionsY", "subdivisionsHeight", 'i', 1}, {"subdivisionsHeight", "subdivisionsHeight", 'i', 1},
    {"subdivisionsZ", "subdivisionsDepth", 'i', 1}, {"subdivisionsDepth", "subdivisionsDepth", 'i', 1},
    PRIM_COMMON_PARAMS};

static const sinew_cmd_flag_t plane_flags[] = {
    {"width", "w", "l", 0},          {"height", "h", "l", 0},
    {"subdivisionsX", "sx", "i", 0}, {"subdivisionsY", "sy", "i", 0},
    {"subdivisionsWidth", "sw", "i", 0}, {"subdivisionsHeight", "sh", "i", 0},
    PRIM_COMMON_FLAGS};
static const prim_param plane_params[] = {
    {"width", "width", 'l', 0}, {"height", "height", 'l', 0},
    {"subdivisionsX", "subdivisionsWidth", 'i', 1}, {"subdivisionsWidth", "subdivisionsWidth", 'i', 1},
    {"subdivisionsY", "subdivisionsHeight", 'i', 1}, {"subdivisionsHeight", "subdivisionsHeight", 'i', 1},
    PRIM_COMMON_PARAMS};

static const sinew_cmd_flag_t sphere_flags[] = {
    {"radius", "r", "l", 0},         {"subdivisionsX", "sx", "i", 0},      {"subdivisionsY", "sy", "i", 0},
    {"subdivisionsAxis", "sa", "i", 0}, {"subdivisionsHeight", "sh", "i", 0}, PRIM_COMMON_FLAGS};
static const prim_param sphere_params[] = {
    {"radius", "radius", 'l', 0},
    {"subdivisionsX", "subdivisionsAxis", 'i', 3}, {"subdivisionsAxis", "subdivisionsAxis", 'i', 3},
    {"subdivisionsY", "subdivisionsHeight", 'i', 2}, {"subdivisionsHeight", "subdivisionsHeight", 'i', 2},
    PRIM_COMMON_PARAMS};

static const prim_kind prim_kinds[] = {
    {"polyCylinder", "pCylinder", cylinder_params, COUNT(cylinder_params)},
    {"polyCube", "pCube", cube_params, COUNT(cube_params)},
    {"polyPlane", "pPlane", plane_params, COUNT(plane_params)},
    {"polySphere", "pSphere", sphere_params, COUNT(sphere_params)}};

/* Subdivision counts above this are refused (the node clamps to it). */
#define PRIM_MAX_COUNT 1000000

static const prim_kind *prim_kind_of(sinew_cmd_t *cmd) {
  for (size_t i = 0; i < COUNT(prim_kinds); i++)
    if (strcmp(sinew_cmd_name(cmd), prim_kinds[i].type) == 0) return &prim_kinds[i];
  return NULL;
}

static int prim_check(sinew_cmd_t *cmd, const prim_kind *k) {
  for (size_t i = 0; i < k->nparams; i++) {
    const prim_param *pp = &k->params[i];
    if (!sinew_cmd_flag_count(cmd, pp->flag)) continue;
    double v = sinew_cmd_flag_double(cmd, pp->flag, 0, 0);
    if (pp->kind == 'l' && v < 0) {
      double shown = v / sinew__unit_in(sinew_cmd_graph(cmd), SINEW_ATTR_DISTANCE);
      return sinew_cmd_error(cmd, SINEW_ERANGE, "-%s: %g is negative", pp->flag, shown);
    }
    if (pp->kind == 'i' && (v < pp->min || v > PRIM_MAX_COUNT))
      return sinew_cmd_error(cmd, SINEW_ERANGE, "-%s: %g subdivisions (%s needs %d to %d)", pp->flag, v, k->type,
                             pp->min, PRIM_MAX_COUNT);
    if (pp->kind == 'u' && (v < 0 || v > 3))
      return sinew_cmd_error(cmd, SINEW_ERANGE, "-createUVs: %g is not 0, 1, 2 or 3", v);
    if (pp->kind == 'v') {
      double a[3];
      flag_triple(cmd, pp->flag, a);
      if (a[0] == 0 && a[1] == 0 && a[2] == 0) return sinew_cmd_error(cmd, SINEW_EINVAL, "-axis: 0 0 0 is no direction");
    }
  }
  return SINEW_OK;
}

/* Sets the flags given on the creation node. */
static int prim_apply(sinew_cmd_t *cmd, sinew_graph_t *g, const prim_kind *k, sinew_node_t node) {
  int rc = SINEW_OK;
  for (size_t i = 0; i < k->nparams && !rc; i++) {
    const prim_param *pp = &k->params[i];
    if (!sinew_cmd_flag_count(cmd, pp->flag)) continue;
    if (pp->kind == 'v') {
      double a[3];
      flag_triple(cmd, pp->flag, a);
      rc = set_triple(g, node, pp->attr, a);
    } else if (pp->kind == 'b') {
      rc = set1(g, node, pp->attr, sinew_cmd_flag_bool(cmd, pp->flag, true));
    } else {
      rc = set1(g, node, pp->attr, sinew_cmd_flag_double(cmd, pp->flag, 0, 0));
    }
  }
  return rc;
}

/* The largest primitive the creation nodes build (points and faces), as nodes/mesh_prim.c. */
#define PRIM_MAX_ELEMENTS 268435456.0

static double count_of(sinew_graph_t *g, sinew_node_t n, const char *attr) {
  sinew_plug_t p = sinew__attr_plug(g, n, attr);
  double v = 0;
  sinew_get_double(g, &p, &v);
  return v;
}

/* Refuses counts whose mesh would be larger than a primitive can be (the compute would fail
 * and keep the old mesh). The sizes follow the builders of nodes/mesh_prim.c. */
static int prim_check_size(sinew_graph_t *g, const prim_kind *k, sinew_node_t node) {
  double points, faces;
  if (strcmp(k->type, "polyCube") == 0) {
    double x = count_of(g, node, "subdivisionsWidth"), y = count_of(g, node, "subdivisionsHeight"),
           z = count_of(g, node, "subdivisionsDepth");
    points = 2 * (y + z) * (x + 1) + 2 * (y - 1) * (z - 1);
    faces = 2 * (y + z) * x + 2 * y * z;
  } else if (strcmp(k->type, "polyPlane") == 0) {
    double x = count_of(g, node, "subdivisionsWidth"), y = count_of(g, node, "subdivisionsHeight");
    points = (x + 1) * (y + 1);
    faces = x * y;
  } else if (strcmp(k->type, "polyCylinder") == 0) {
    double a = count_of(g, node, "subdivisionsAxis"), h = count_of(g, node, "subdivisionsHeight"),
           c = count_of(g, node, "subdivisionsCaps"), inner = c > 1 ? a * (c - 1) : 0;
    points = a * (h + 1) + 2 * inner + (c > 0 ? 2 : 0);
    faces = a * h + 2 * inner + (c > 0 ? 2 * a : 0);
  } else {
    double a = count_of(g, node, "subdivisionsAxis"), h = count_of(g, node, "subdivisionsHeight");
    points = a * (h - 1) + 2;
    faces = a * h;
  }
  if (points > PRIM_MAX_ELEMENTS || faces > PRIM_MAX_ELEMENTS)
    return sinew_graph_set_error(g, SINEW_ERANGE, "%s: %.0f points and %.0f faces; a primitive has at most 2^28",
                                 sinew_node_name(g, node), points, faces);
  return SINEW_OK;
}

/* Builds the creation node's mesh now, so that sizes no mesh can have fail the command rather
 * than only logging a compute failure when the mesh is first read. The caller releases *out. */
static int prim_build(sinew_graph_t *g, sinew_node_t node, sinew_data_t **out) {
  sinew_plug_t po = sinew__attr_plug(g, node, "output");
  int rc = sinew_get_data(g, &po, out);
  if (rc) return rc;
  if (!*out || !sinew_mesh_get(*out))
    return sinew_graph_set_error(g, SINEW_ERANGE, "%s: the mesh could not be built", sinew_node_name(g, node));
  return SINEW_OK;
}

/* "pCylinder1" -> "pCylinderShape1", "torsoGeo" -> "torsoGeoShape", as Maya names shapes. */
static void shape_name(const char *xf, char *buf, size_t size) {
  size_t base = strlen(xf);
  while (base > 0 && xf[base - 1] >= '0' && xf[base - 1] <= '9') base--;
  snprintf(buf, size, "%.*sShape%s", (int)base, xf, xf + base);
}

/* The creation node behind a name: the node itself, or the one feeding a mesh (or a
 * transform's mesh) through inMesh. */
static int prim_node_of(sinew_cmd_t *cmd, sinew_graph_t *g, const prim_kind *k, sinew_node_t *io) {
  sinew_node_t n = *io;
  if (is_type(g, n, "transform")) {
    sinew_node_t kids[8];
    size_t nk = sinew_node_children(g, n, kids, 8);
    for (size_t i = 0; i < nk && i < 8; i++)
      if (is_type(g, kids[i], "mesh")) {
        n = kids[i];
        break;
      }
  }
  if (is_type(g, n, "mesh")) {
    sinew_plug_t in = sinew__attr_plug(g, n, "inMesh"), src;
    if (sinew_plug_source(g, &in, &src)) n = src.node;
  }
  if (!is_type(g, n, k->type))
    return sinew_cmd_error(cmd, SINEW_ETYPE, "%s has no %s creation node", sinew_node_name(g, *io), k->type);
  *io = n;
  return SINEW_OK;
}

static int prim_query(sinew_cmd_t *cmd, sinew_graph_t *g, const prim_kind *k, sinew_node_t node) {
  const prim_param *pp = NULL;
  for (size_t i = 0; i < k->nparams; i++)
    if (sinew_cmd_flag_count(cmd, k->params[i].flag)) {
      if (pp) return sinew_cmd_error(cmd, SINEW_EINVAL, "query one flag at a time (-%s and -%s)", pp->flag, k->params[i].flag);
      pp = &k->params[i];
    }
  if (sinew_cmd_flag_count(cmd, "name")) {
    char buf[512];
    return pp ? sinew_cmd_error(cmd, SINEW_EINVAL, "query one flag at a time")
              : sinew_cmd_result_string(cmd, sinew__node_label(g, node, buf, sizeof buf));
  }
  if (!pp) return sinew_cmd_error(cmd, SINEW_EINVAL, "-query: give the flag to query");
  sinew_plug_t p = sinew__attr_plug(g, node, pp->attr);
  double v[3];
  int rc = pp->kind == 'v' ? sinew_get_doubles(g, &p, v, 3, NULL) : sinew_get_double(g, &p, &v[0]);
  if (rc) return sinew_cmd_graph_error(cmd, rc);
  if (pp->kind == 'v') return result_triple(cmd, v, 1);
  if (pp->kind == 'l') return sinew_cmd_result_double(cmd, v[0] / unit_out(g, SINEW_ATTR_DISTANCE));
  return sinew_cmd_result_int(cmd, (int64_t)v[0]);
}

static int prim_edit(sinew_cmd_t *cmd, sinew_graph_t *g, const prim_kind *k, sinew_node_t node) {
  if (sinew_cmd_flag_count(cmd, "constructionHistory") || sinew_cmd_flag_count(cmd, "object"))
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-constructionHistory and -object are creation flags");
  int rc = prim_apply(cmd, g, k, node);
  sinew_data_t *mesh = NULL;
  if (!rc) rc = prim_check_size(g, k, node);
  if (!rc) rc = prim_build(g, node, &mesh);
  sinew_data_unref(mesh);
  const char *newname = sinew_cmd_flag_string(cmd, "name", NULL);
  char buf[512];
  if (!rc && newname) rc = sinew_node_rename(g, node, newname);
  if (rc) {
    rc = sinew_cmd_graph_error(cmd, rc);
  } else if ((rc = sinew_cmd_result_string(cmd, sinew__node_label(g, node, buf, sizeof buf)))) {
    sinew_cmd_error(cmd, rc, "out of memory");
  }
  return rc;
}

/* What a primitive command makes. */
typedef struct prim_made {
  sinew_node_t xf, shape, node;
} prim_made;

static int prim_create(sinew_cmd_t *cmd, sinew_graph_t *g, const prim_kind *k) {
  sinew_session_t *s = sinew__session(cmd);
  if (sinew_cmd_argc(cmd))
    return sinew_cmd_error(cmd, SINEW_EINVAL, "unexpected argument '%s'", sinew_cmd_arg_string(cmd, 0));
  bool history = sinew_cmd_flag_bool(cmd, "constructionHistory", true);
  bool object = sinew_cmd_flag_bool(cmd, "object", true);
  if (!object && !history)
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-object off needs construction history (it makes only the node)");
  if (reserve_selection(s->scene)) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  prim_made m = {{0, 0}, {0, 0}, {0, 0}};
  sinew_data_t *mesh = NULL;
  char xbuf[512], sbuf[512], ubuf[512];
  const char *want = sinew_cmd_flag_string(cmd, "name", NULL);
  if (!want) {
    snprintf(xbuf, sizeof xbuf, "%s#", k->object);
    want = xbuf;
  }
  /* the creation node first: it checks the sizes by building the mesh */
  int rc = sinew_node_create(g, k->type, NULL, &m.node);
  if (!rc) rc = prim_apply(cmd, g, k, m.node);
  if (!rc) rc = prim_check_size(g, k, m.node);
  if (!rc) rc = prim_build(g, m.node, &mesh);
  if (!rc && object) {
    const char *xname = sinew__unique_name(g, want, ubuf, sizeof ubuf);
    if (!(rc = sinew_node_create(g, "transform", xname, &m.xf))) {
      shape_name(sinew_node_name(g, m.xf), sbuf, sizeof sbuf);
      const char *sname = sinew__unique_name(g, sbuf, ubuf, sizeof ubuf);
      rc = sinew_node_create_under(g, "mesh", sname, m.xf, &m.shape);
    }
    if (!rc && history) {
      sinew_plug_t out = sinew__attr_plug(g, m.node, "output"), in = sinew__attr_plug(g, m.shape, "inMesh");
      rc = sinew_connect(g, &out, &in, 0, NULL);
    } else if (!rc) {
      rc = sinew_mesh_node_set(g, m.shape, mesh);
    }
  }
  sinew_data_unref(mesh);
  if (!rc && !history) rc = sinew_node_delete(g, m.node);
  if (rc) return sinew_cmd_graph_error(cmd, rc);
  rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY);
  if (!rc && object) rc = sinew_cmd_result_append_string(cmd, sinew__node_label(g, m.xf, xbuf, sizeof xbuf));
  if (!rc && history) rc = sinew_cmd_result_append_string(cmd, sinew__node_label(g, m.node, sbuf, sizeof sbuf));
  if (rc) return sinew_cmd_error(cmd, rc, "out of memory");
  select_only(s->scene, object ? m.xf : m.node);
  return SINEW_OK;
}

static int cmd_prim(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  const prim_kind *k = prim_kind_of(cmd);
  if (!k) return sinew_cmd_error(cmd, SINEW_EINVAL, "not a primitive command");
  if (!sinew_cmd_query(cmd)) {
    int rc = prim_check(cmd, k);
    if (rc) return rc;
  }
  if (!sinew_cmd_query(cmd) && !sinew_cmd_edit(cmd)) return prim_create(cmd, g, k);
  sinew_node_t node;
  int rc = target_node(cmd, 0, &node);
  if (!rc) rc = prim_node_of(cmd, g, k, &node);
  if (rc) return rc;
  return sinew_cmd_query(cmd) ? prim_query(cmd, g, k, node) : prim_edit(cmd, g, k, node);
}

/* ---- expression ------------------------------------------------------------------------------ */

static const sinew_cmd_flag_t expr_flags[] = {
    {"string", "s", "s", 0},          {"name", "n", "s", 0},           {"object", "o", "s", 0},
    {"alwaysEvaluate", "ae", "i", 0}, {"unitConversion", "uc", "s", 0}, {"animated", "an", "i", 0},
    {"timeDependent", "td", "", 0},   {"query", "q", "", SINEW_CMD_QUERY}, {"edit", "e", "", SINEW_CMD_EDIT}};

static const char *const unit_options[] = {"all", "none", "angularOnly"};

static int expr_error(sinew_cmd_t *cmd, int rc) { return sinew_cmd_graph_error(cmd, rc); }

/* The values of -uc, -an and -ae, checked. */
static int expr_options(sinew_cmd_t *cmd, int *uc, int *an, int *ae) {
  const char *s = sinew_cmd_flag_string(cmd, "unitConversion", NULL);
  *uc = *an = *ae = -1;
  if (s) {
    for (int i = 0; i < 3; i++)
      if (strcmp(s, unit_options[i]) == 0) *uc = i;
    if (*uc < 0) return sinew_cmd_error(cmd, SINEW_EINVAL, "-unitConversion: '%s' is not all, none or angularOnly", s);
  }
  *an = sinew_cmd_flag_count(cmd, "animated") ? (int)sinew_cmd_flag_int(cmd, "animated", 1) : -1;
  if (sinew_cmd_flag_count(cmd, "animated") && (*an < 0 || *an > 2))
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-animated: %d is not 0, 1 or 2", *an);
  *ae = sinew_cmd_flag_count(cmd, "alwaysEvaluate") ? sinew_cmd_flag_int(cmd, "alwaysEvaluate", 1) != 0 : -1;
  return SINEW_OK;
}

/* The expression's default object: the source of objectMsg, zero when none. */
static sinew_node_t expr_object(sinew_graph_t *g, sinew_node_t n) {
  sinew_plug_t obm = sinew__attr_plug(g, n, "objectMsg"), src;
  return sinew_plug_source(g, &obm, &src) ? src.node : (sinew_node_t){0, 0};
}

static int expr_query(sinew_cmd_t *cmd, sinew_graph_t *g, sinew_node_t n) {
  static const char *const queryable[] = {"string", "object", "name", "alwaysEvaluate", "unitConversion",
                                          "animated", "timeDependent"};
  const char *what = NULL;
  for (size_t i = 0; i < COUNT(queryable); i++)
    if (sinew_cmd_flag_count(cmd, queryable[i])) {
      if (what) return sinew_cmd_error(cmd, SINEW_EINVAL, "query one flag at a time (-%s and -%s)", what, queryable[i]);
      what = queryable[i];
    }
  if (!what) return sinew_cmd_error(cmd, SINEW_EINVAL, "-query: give the flag to query (-string, -object, ...)");
  char buf[512];
  int rc;
  if (strcmp(what, "name") == 0) return sinew_cmd_result_string(cmd, sinew__node_label(g, n, buf, sizeof buf));
  if (strcmp(what, "object") == 0) {
    sinew_node_t o = expr_object(g, n);
    return sinew_cmd_result_string(cmd, o.gen ? sinew__node_label(g, o, buf, sizeof buf) : "");
  }
  if (strcmp(what, "string") == 0) {
    sinew_plug_t p = sinew__attr_plug(g, n, "expression");
    const char *text = "";
    if ((rc = sinew_get_string(g, &p, &text))) return sinew_cmd_graph_error(cmd, rc);
    return sinew_cmd_result_string(cmd, text);
  }
  if (strcmp(what, "timeDependent") == 0) {
    sinew_plug_t p = sinew__attr_plug(g, n, "internalExpression");
    const char *text = "";
    if ((rc = sinew_get_string(g, &p, &text))) return sinew_cmd_graph_error(cmd, rc);
    sinew_expr_t *e;
    char err[256];
    if ((rc = sinew_expr_compile(text, &e, err, sizeof err))) return sinew_cmd_error(cmd, rc, "%s", err);
    bool td = sinew_expr_uses_time(e);
    sinew_expr_destroy(e);
    return sinew_cmd_result_int(cmd, td);
  }
  const char *attr = strcmp(what, "alwaysEvaluate") == 0 ? "alwaysEvaluate"
                     : strcmp(what, "animated") == 0     ? "animated"
                                                         : "unitOption";
  sinew_plug_t p = sinew__attr_plug(g, n, attr);
  double v = 0;
  if ((rc = sinew_get_double(g, &p, &v))) return sinew_cmd_graph_error(cmd, rc);
  if (strcmp(attr, "unitOption") == 0) return sinew_cmd_result_string(cmd, unit_options[v >= 0 && v < 3 ? (int)v : 0]);
  return sinew_cmd_result_int(cmd, (int64_t)v);
}

/* Connects time1.outTime -> time if nothing feeds it (alwaysEvaluate turned on). */
static int expr_link_time(sinew_graph_t *g, sinew_node_t n) {
  sinew_node_t t1;
  sinew_plug_t dst = sinew__attr_plug(g, n, "time");
  if (sinew_plug_source(g, &dst, NULL)) return SINEW_OK;
  int rc = sinew_time_node(g, &t1);
  if (rc) return rc;
  sinew_plug_t src = sinew__attr_plug(g, t1, "outTime");
  return sinew_connect(g, &src, &dst, 0, NULL);
}

/* -uc, -an, -ae: turning alwaysEvaluate on connects the time. */
static int expr_edit_options(sinew_graph_t *g, sinew_node_t n, int uc, int an, int ae) {
  int rc = SINEW_OK;
  if (uc >= 0) rc = set1(g, n, "unitOption", uc);
  if (!rc && an >= 0) rc = set1(g, n, "animated", an);
  if (!rc && ae >= 0) rc = set1(g, n, "alwaysEvaluate", ae);
  if (!rc && ae == 1) rc = expr_link_time(g, n);
  return rc;
}

/* -o: the new default object's name, and its message instead of the old one's (the text's
 * rebinding connects the new one). */
static int expr_edit_object(sinew_graph_t *g, sinew_node_t n, sinew_node_t object) {
  sinew_node_t old = expr_object(g, n);
  sinew_plug_t obm = sinew__attr_plug(g, n, "objectMsg"), pob = sinew__attr_plug(g, n, "object"), src;
  int rc;
  if (old.gen && !same_node(old, object) && sinew_plug_source(g, &obm, &src) &&
      (rc = sinew_disconnect(g, &src, &obm)))
    return rc;
  return sinew_set_string(g, &pob, object.gen ? sinew_node_name(g, object) : "");
}

/* The text with attribute names (what -q -s gives), copied. NULL on out-of-memory. */
static char *expr_text_copy(sinew_graph_t *g, sinew_node_t n) {
  sinew_plug_t pe = sinew__attr_plug(g, n, "expression");
  const char *t = "";
  if (sinew_get_string(g, &pe, &t)) return NULL;
  size_t len = strlen(t) + 1;
  char *c = sinew_malloc(len);
  if (c) memcpy(c, t, len);
  return c;
}

static int expr_edit(sinew_cmd_t *cmd, sinew_graph_t *g, sinew_node_t n, int uc, int an, int ae) {
  const char *text = sinew_cmd_flag_string(cmd, "string", NULL);
  const char *oname = sinew_cmd_flag_string(cmd, "object", NULL);
  const char *newname = sinew_cmd_flag_string(cmd, "name", NULL);
  sinew_node_t object = expr_object(g, n);
  int rc;
  if (oname) {
    object = (sinew_node_t){0, 0};
    if (oname[0] && (rc = sinew__cmd_node(cmd, oname, &object))) return rc;
  }
  /* -o alone binds the current text again with the new default object */
  char *current = NULL;
  if (oname && !text && !(text = current = expr_text_copy(g, n)))
    return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  /* a failing step is taken back with the others by the command's transaction */
  rc = expr_edit_options(g, n, uc, an, ae);
  if (!rc && oname) rc = expr_edit_object(g, n, object);
  if (!rc && newname) rc = sinew_node_rename(g, n, newname);
  char buf[512];
  if (!rc && sinew_cmd_result_string(cmd, sinew__node_label(g, n, buf, sizeof buf)))
    rc = sinew_graph_set_error(g, SINEW_ENOMEM, "out of memory");
  if (!rc && text) rc = sinew_expression_set_text(g, n, text, object);
  sinew_free(current);
  return rc ? expr_error(cmd, rc) : SINEW_OK;
}

static int cmd_expression(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  int rc;
  if (sinew_cmd_query(cmd) || sinew_cmd_edit(cmd)) {
    if (sinew_cmd_argc(cmd) != 1)
      return sinew_cmd_error(cmd, SINEW_EINVAL, "give the expression node (expression -%s ... name)",
                             sinew_cmd_query(cmd) ? "q" : "e");
    sinew_node_t n;
    if ((rc = sinew__cmd_node(cmd, sinew_cmd_arg_string(cmd, 0), &n))) return rc;
    if (!is_type(g, n, "expression"))
      return sinew_cmd_error(cmd, SINEW_ETYPE, "%s is not an expression node", sinew_node_name(g, n));
    if (sinew_cmd_query(cmd)) return expr_query(cmd, g, n);
  }
  int uc = -1, an = -1, ae = -1;
  if ((rc = expr_options(cmd, &uc, &an, &ae))) return rc;
  if (sinew_cmd_flag_count(cmd, "timeDependent"))
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-timeDependent is a query flag");
  if (sinew_cmd_edit(cmd)) {
    sinew_node_t n;
    if ((rc = sinew__cmd_node(cmd, sinew_cmd_arg_string(cmd, 0), &n))) return rc;
    return expr_edit(cmd, g, n, uc, an, ae);
  }
  if (sinew_cmd_argc(cmd))
    return sinew_cmd_error(cmd, SINEW_EINVAL, "unexpected argument '%s'", sinew_cmd_arg_string(cmd, 0));
  const char *text = sinew_cmd_flag_string(cmd, "string", NULL);
  if (!text) return sinew_cmd_error(cmd, SINEW_EINVAL, "give the expression's text with -string");
  sinew_expression_desc_t d = {.text = text, .name = sinew_cmd_flag_string(cmd, "name", NULL)};
  const char *oname = sinew_cmd_flag_string(cmd, "object", NULL);
  if (oname && oname[0] && (rc = sinew__cmd_node(cmd, oname, &d.object))) return rc;
  d.unit_option = uc >= 0 ? uc : SINEW_EXPR_UNITS_ALL;
  d.not_always_evaluate = ae == 0;
  d.animated_set = an >= 0;
  d.animated = an >= 0 ? an : 1;
  sinew_node_t n;
  if ((rc = sinew_expression_create(g, &d, &n))) return expr_error(cmd, rc);
  char buf[512];
  if ((rc = sinew_cmd_result_string(cmd, sinew__node_label(g, n, buf, sizeof buf))))
    return sinew_cmd_error(cmd, rc, "out of memory");
  return SINEW_OK;
}

/* ---- registration ------------------------------------------------------------------------------ */

int sinew__register_rig_cmds(sinew_lang_t *L, sinew_session_t *s) {
  const sinew_cmd_desc_t cmds[] = {
      {"joint", cmd_joint, joint_flags, COUNT(joint_flags), false, s},
      {"polyCylinder", cmd_prim, cylinder_flags, COUNT(cylinder_flags), false, s},
      {"polyCube", cmd_prim, cube_flags, COUNT(cube_flags), false, s},
      {"polyPlane", cmd_prim, plane_flags, COUNT(plane_flags), false, s},
      {"polySphere", cmd_prim, sphere_flags, COUNT(sphere_flags), false, s},
      {"expression", cmd_expression, expr_flags, COUNT(expr_flags), false, s},
  };
  for (size_t i = 0; i < COUNT(cmds); i++) {
    int rc = sinew_lang_register_command(L, &cmds[i]);
    if (rc) return rc;
  }
  return SINEW_OK;
}
