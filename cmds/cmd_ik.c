/* cmds/cmd_ik.c: the ikHandle command (spec maya-reference-rigging.md 4.6), and joining every
 * ikHandle of the scene to its chain after a script or file has run (sinew_ik_wire, see
 * docs/rigging.md#ik). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmds/cmds_internal.h"
#include "sinew/curve.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* After a run: every ikHandle not yet joined to its chain is joined; one that cannot be (an
 * unsupported solver, a chain too long) warns once and its joints keep the rotations the file
 * stored. */
bool sinew__ik_any(sinew_session_t *s) {
  return sinew_node_list_type(s->scene->graph, "ikHandle", false, NULL, 0) > 0;
}

void sinew__ik_wire_all(sinew_session_t *s) {
  sinew_graph_t *g = s->scene->graph;
  size_t n = sinew_node_list_type(g, "ikHandle", false, NULL, 0);
  if (!n) return;
  sinew_node_t *hs = sinew_malloc(n * sizeof *hs);
  if (!hs) return;
  sinew_node_list_type(g, "ikHandle", false, hs, n);
  for (size_t i = 0; i < n; i++) {
    if (sinew_ik_wired(g, hs[i])) continue;
    if (sinew_ik_wire(g, hs[i]) == SINEW_OK) continue;
    char key[300];
    snprintf(key, sizeof key, "ikHandle:%s", sinew_node_name(g, hs[i]));
    sinew__warn_once(s, NULL, SINEW_LOG_FILE_WARNING, key, "%s; its joints keep their stored rotations",
                     sinew_graph_errmsg(g));
  }
  sinew_free(hs);
}

static const sinew_cmd_flag_t ik_flags[] = {
    {"startJoint", "sj", "s", 0},      {"endEffector", "ee", "s", 0},     {"solver", "sol", "s", 0},
    {"name", "n", "s", 0},             {"priority", "p", "i", 0},          {"weight", "w", "f", 0},
    {"positionWeight", "pw", "f", 0},  {"setupForRPsolver", "srp", "b", 0}, {"jointList", "jl", "", 0},
    {"forceSolver", "fs", "b", 0},     {"snapHandleFlagToggle", "shf", "b", 0},
    {"sticky", "s", "s", 0},           {"query", "q", "", SINEW_CMD_QUERY}, {"edit", "e", "", SINEW_CMD_EDIT},
    /* spline IK */
    {"curve", "c", "s", 0},            {"createCurve", "ccv", "b", 0},     {"parentCurve", "pcv", "b", 0},
    {"rootOnCurve", "roc", "b", 0},    {"twistType", "tws", "s", 0},       {"simplifyCurve", "scv", "b", 0},
    {"numSpans", "ns", "i", 0},        {"rootTwistMode", "rtm", "b", 0}};

static sinew_plug_t plug_of(sinew_graph_t *g, sinew_node_t n, const char *attr) {
  return sinew__attr_plug(g, n, attr);
}

static bool source_node(sinew_graph_t *g, sinew_node_t n, const char *attr, sinew_node_t *out) {
  sinew_plug_t p = plug_of(g, n, attr), src;
  if (p.node.gen == 0 || !sinew_plug_source(g, &p, &src)) return false;
  *out = src.node;
  return true;
}

static int result_node(sinew_cmd_t *cmd, sinew_node_t n, bool append) {
  char buf[512];
  const char *label = sinew__node_label(sinew_cmd_graph(cmd), n, buf, sizeof buf);
  return append ? sinew_cmd_result_append_string(cmd, label) : sinew_cmd_result_string(cmd, label);
}

static sinew_vec3_t world_pos(sinew_graph_t *g, sinew_node_t n) {
  sinew_mat4_t w;
  if (sinew_dag_world_matrix(g, n, &w)) sinew_mat4_identity(&w);
  return (sinew_vec3_t){w.m[3][0], w.m[3][1], w.m[3][2]};
}

/* The pole vector Maya's -setupForRPsolver gives: the middle joint's offset from the line
 * start -> end, as a unit vector in the handle's parent space (the handle is made under the
 * world, so world space); zero for a straight chain or a single bone. */
static sinew_vec3_t rp_pole(sinew_graph_t *g, const sinew_node_t *jl, size_t nj) {
  if (nj < 3) return (sinew_vec3_t){0, 0, 0};
  sinew_vec3_t p0 = world_pos(g, jl[0]), p1 = world_pos(g, jl[1]), p2 = world_pos(g, jl[nj - 1]), h, u, r;
  sinew_vec3_sub(p2, p0, &h);
  sinew_vec3_sub(p1, p0, &u);
  double hh = sinew_vec3_dot(h, h);
  if (hh <= 0) return (sinew_vec3_t){0, 0, 0};
  sinew_vec3_scale(h, sinew_vec3_dot(u, h) / hh, &r);
  sinew_vec3_sub(u, r, &r);
  if (sinew_vec3_length(r) <= 1e-9 * sqrt(hh)) return (sinew_vec3_t){0, 0, 0};
  sinew_vec3_normalize(r, &r);
  return r;
}

static int set3(sinew_graph_t *g, sinew_node_t n, const char *attr, sinew_vec3_t v) {
  sinew_plug_t p = plug_of(g, n, attr);
  const double d[3] = {v.x, v.y, v.z};
  return sinew_set_doubles(g, &p, d, 3);
}

static int set1(sinew_graph_t *g, sinew_node_t n, const char *attr, double v) {
  sinew_plug_t p = plug_of(g, n, attr);
  return sinew_set_double(g, &p, v);
}

static int connect(sinew_graph_t *g, sinew_node_t a, const char *sa, sinew_node_t b, const char *sb) {
  sinew_plug_t s, d;
  int rc = sinew_plug_parse_attr(g, a, sa, &s);
  if (!rc) rc = sinew_plug_parse_attr(g, b, sb, &d);
  if (!rc) rc = sinew_connect(g, &s, &d, 0, NULL);
  return rc;
}

static bool joint_node(sinew_graph_t *g, sinew_node_t n) {
  return sinew_node_type_is_a(sinew_node_type(g, n), "joint");
}

/* The handle named by the command's object, or the first selected ikHandle. */
static int target_handle(sinew_cmd_t *cmd, sinew_node_t *out) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  sinew_session_t *s = sinew__session(cmd);
  if (sinew_cmd_argc(cmd) > 0) {
    int rc = sinew__cmd_node(cmd, sinew_cmd_arg_string(cmd, 0), out);
    if (rc) return rc;
  } else if (s->scene->nsel > 0) {
    *out = s->scene->selection[0];
  } else {
    return sinew_cmd_error(cmd, SINEW_EINVAL, "no ikHandle named or selected");
  }
  if (!sinew_node_type_is_a(sinew_node_type(g, *out), "ikHandle"))
    return sinew_cmd_error(cmd, SINEW_ETYPE, "%s is not an ikHandle", sinew_node_name(g, *out));
  return SINEW_OK;
}

static int ik_query(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  sinew_node_t h, n;
  int rc = target_handle(cmd, &h);
  if (rc) return rc;
  if (sinew_cmd_flag_count(cmd, "sj")) {
    if (!source_node(g, h, "hsj", &n)) return sinew_cmd_result_string(cmd, "");
    return result_node(cmd, n, false);
  }
  if (sinew_cmd_flag_count(cmd, "ee")) {
    if (!source_node(g, h, "hee", &n)) return sinew_cmd_result_string(cmd, "");
    return result_node(cmd, n, false);
  }
  if (sinew_cmd_flag_count(cmd, "sol")) {
    if (!source_node(g, h, "hsv", &n)) return sinew_cmd_result_string(cmd, "");
    return result_node(cmd, n, false);
  }
  if (sinew_cmd_flag_count(cmd, "jl")) {
    /* the joints the handle rotates: start joint to the joint before the end */
    sinew_node_t jl[256];
    size_t nj = 0;
    if ((rc = sinew_ik_chain(g, h, jl, 256, &nj))) return sinew__graph_error(cmd, rc);
    if ((rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING))) return rc;
    for (size_t i = 0; i + 1 < nj && i < 256 && !rc; i++) rc = result_node(cmd, jl[i], true);
    return rc;
  }
  const char *num[][2] = {{"p", "pri"}, {"w", "w"}, {"pw", "pow"}};
  for (size_t i = 0; i < COUNT(num); i++)
    if (sinew_cmd_flag_count(cmd, num[i][0])) {
      double v = 0;
      sinew_plug_t p = plug_of(g, h, num[i][1]);
      if ((rc = sinew_get_double(g, &p, &v))) return sinew__graph_error(cmd, rc);
      return i == 0 ? sinew_cmd_result_int(cmd, (int64_t)v) : sinew_cmd_result_double(cmd, v);
    }
  return sinew_cmd_error(cmd, SINEW_EINVAL, "-query needs one of -sj -ee -sol -jl -p -w -pw");
}

/* The shared solver node of a type: the first one of exactly that type, or a new one named after
 * the type (*made says so). */
static int shared_solver(sinew_graph_t *g, const char *type, sinew_node_t *out, bool *made) {
  *made = false;
  if (sinew_node_list_type(g, type, true, out, 1) > 0) return SINEW_OK;
  int rc = sinew_node_create(g, type, type, out);
  if (!rc) *made = true;
  return rc;
}

static int ik_edit(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  sinew_node_t h;
  int rc = target_handle(cmd, &h);
  if (rc) return rc;
  if (sinew_cmd_flag_count(cmd, "sj") || sinew_cmd_flag_count(cmd, "ee"))
    return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "-edit of -sj or -ee is not supported yet");
  const char *sol = sinew_cmd_flag_string(cmd, "sol", NULL);
  if (sol && strcmp(sol, "ikRPsolver") != 0 && strcmp(sol, "ikSCsolver") != 0)
    return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "-solver %s: only ikRPsolver and ikSCsolver are supported", sol);
  /* every value checked and computed before anything is set */
  double pri = (double)sinew_cmd_flag_int(cmd, "p", 0), w = sinew_cmd_flag_double(cmd, "w", 0, 0),
         pw = sinew_cmd_flag_double(cmd, "pw", 0, 0);
  if (sinew_cmd_flag_count(cmd, "p") && pri < 1) return sinew_cmd_error(cmd, SINEW_ERANGE, "-priority must be 1 or more");
  if ((sinew_cmd_flag_count(cmd, "w") && !(w >= 0)) || (sinew_cmd_flag_count(cmd, "pw") && !(pw >= 0 && pw <= 1)))
    return sinew_cmd_error(cmd, SINEW_ERANGE, "-weight must be 0 or more and -positionWeight within 0..1");
  sinew_vec3_t pv = {0, 0, 0};
  bool setup = sinew_cmd_flag_bool(cmd, "srp", false);
  if (setup) {
    sinew_node_t jl[256];
    size_t nj = 0;
    if ((rc = sinew_ik_chain(g, h, jl, 256, &nj))) return sinew__graph_error(cmd, rc);
    if (nj > 256) return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "a chain of %zu joints", nj);
    pv = rp_pole(g, jl, nj);
  }
  /* the plugs it sets must be settable, so that nothing fails once the solver is switched */
  const char *const flag_attr[][2] = {{"p", "pri"}, {"w", "w"}, {"pw", "pow"}, {"srp", "pv"}};
  for (size_t i = 0; i < COUNT(flag_attr); i++) {
    if (!sinew_cmd_flag_count(cmd, flag_attr[i][0]) || (i == 3 && !setup)) continue;
    sinew_plug_t p = plug_of(g, h, flag_attr[i][1]);
    if (sinew_plug_locked(g, &p) || sinew_plug_source(g, &p, NULL))
      return sinew_cmd_error(cmd, SINEW_ELOCKED, "%s.%s is locked or connected", sinew_node_name(g, h), flag_attr[i][1]);
  }
  sinew_node_t solver = {0, 0};
  bool new_solver = false;
  if (sol) {
    /* the shared solver of that type (made, and listed in :ikSystem, when there is none) */
    if ((rc = shared_solver(g, sol, &solver, &new_solver))) return sinew__graph_error(cmd, rc);
    sinew_node_t sys;
    if (new_solver && sinew_node_list_type(g, "ikSystem", true, &sys, 1) > 0) {
      sinew_plug_t src = plug_of(g, solver, "msg"), dst = plug_of(g, sys, "sol");
      rc = sinew_connect(g, &src, &dst, SINEW_CONNECT_NEXT_AVAILABLE, NULL);
    }
    if (!rc) {
      sinew_plug_t src = plug_of(g, solver, "msg"), dst = plug_of(g, h, "hsv");
      rc = sinew_connect(g, &src, &dst, SINEW_CONNECT_FORCE, NULL);
    }
    if (rc) return sinew_cmd_error(cmd, rc, "%s", sinew_graph_errmsg(g));
  }
  if (!rc && sinew_cmd_flag_count(cmd, "p")) rc = set1(g, h, "pri", pri);
  if (!rc && sinew_cmd_flag_count(cmd, "w")) rc = set1(g, h, "w", w);
  if (!rc && sinew_cmd_flag_count(cmd, "pw")) rc = set1(g, h, "pow", pw);
  if (!rc && setup) rc = set3(g, h, "pv", pv);
  return rc ? sinew__graph_error(cmd, rc) : SINEW_OK;
}

/* -createCurve: a curve through the chain's joints (degree 3, or less for short chains; the
 * joints interpolated, so making the handle does not move the chain), under the world or, with
 * -parentCurve, under the start joint's parent. Maya fits a simplified curve instead
 * (-simplifyCurve, -numSpans), whose exact fit is not documented: see docs/rigging.md#spline-ik. */
static int make_chain_curve(sinew_cmd_t *cmd, const sinew_node_t *jl, size_t nj, bool parent_curve,
                            sinew_node_t *xf_out, sinew_node_t *shape_out) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  sinew_vec3_t pts[257];
  sinew_mat4_t to_local;
  sinew_mat4_identity(&to_local);
  sinew_node_t parent = sinew_node_parent(g, jl[0]);
  if (parent_curve && parent.gen) {
    sinew_mat4_t pw;
    if (!sinew_dag_world_matrix(g, parent, &pw) && !sinew_mat4_inverse(&pw, &to_local)) sinew_mat4_identity(&to_local);
  }
  for (size_t i = 0; i < nj && i < 257; i++) sinew_mat4_transform_point(world_pos(g, jl[i]), &to_local, &pts[i]);
  sinew_data_t *d = NULL;
  int rc = sinew_curve_interpolate(pts, (uint32_t)nj, nj > 3 ? 3 : (uint32_t)nj - 1, &d);
  if (rc == SINEW_ENOMEM) return sinew_graph_set_error(g, rc, "out of memory");
  if (rc) return sinew_graph_set_error(g, rc, "the chain's curve cannot be built: two joints at one place");
  rc = sinew__make_curve_shape(cmd, NULL, "curve", parent_curve ? parent : (sinew_node_t){0, 0}, xf_out, shape_out);
  if (!rc) {
    sinew_plug_t cc = plug_of(g, *shape_out, "cc");
    if ((rc = sinew_set_data(g, &cc, d))) sinew_node_delete(g, *xf_out);
  }
  sinew_data_unref(d);
  return rc;
}

static int ik_create(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  const char *sjn = sinew_cmd_flag_string(cmd, "sj", NULL), *een = sinew_cmd_flag_string(cmd, "ee", NULL);
  if (!sjn || !een) return sinew_cmd_error(cmd, SINEW_EINVAL, "needs -startJoint and -endEffector");
  const char *sol = sinew_cmd_flag_string(cmd, "sol", "ikRPsolver");
  bool spline = strcmp(sol, "ikSplineSolver") == 0;
  if (strcmp(sol, "ikRPsolver") != 0 && strcmp(sol, "ikSCsolver") != 0 && !spline)
    return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED,
                           "-solver %s: only ikRPsolver, ikSCsolver and ikSplineSolver are supported", sol);
  static const char *const spline_flags[] = {"c", "ccv", "pcv", "roc", "tws", "scv", "ns", "rtm"};
  const char *spline_only = spline ? NULL : sinew__cmd_given_flag(cmd, spline_flags, COUNT(spline_flags));
  if (spline_only)
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-%s is a spline IK flag (-solver ikSplineSolver)", spline_only);
  static const char *const tws_names[] = {"linear", "easeIn", "easeOut", "easeInOut"};
  int tws = 0;
  const char *tw = sinew_cmd_flag_string(cmd, "tws", NULL);
  if (tw) {
    tws = -1;
    for (int i = 0; i < 4; i++)
      if (strcmp(tw, tws_names[i]) == 0) tws = i;
    if (tws < 0) return sinew_cmd_error(cmd, SINEW_EINVAL, "-twistType %s: linear, easeIn, easeOut or easeInOut", tw);
  }
  sinew_node_t in_curve = {0, 0};
  const char *cname = sinew_cmd_flag_string(cmd, "c", NULL);
  bool create_curve = spline && sinew_cmd_flag_bool(cmd, "ccv", !cname);
  if (cname && sinew_cmd_flag_bool(cmd, "ccv", false))
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-curve and -createCurve on cannot be used together");
  if (spline && !cname && !create_curve) return sinew_cmd_error(cmd, SINEW_EINVAL, "spline IK needs -curve or -createCurve on");
  if (cname) {
    int crc = sinew__curve_shape_of(cmd, cname, &in_curve);
    if (crc) return crc;
  }
  sinew_node_t sj, ee;
  int rc = sinew__cmd_node(cmd, sjn, &sj);
  if (!rc) rc = sinew__cmd_node(cmd, een, &ee);
  if (rc) return rc;
  if (!joint_node(g, sj) || !joint_node(g, ee))
    return sinew_cmd_error(cmd, SINEW_ETYPE, "-startJoint and -endEffector must be joints");
  /* the chain, end first; the end must lie below the start */
  sinew_node_t chain[257];
  size_t nj = 0, cap = spline ? 257 : 4;
  for (sinew_node_t x = ee;; x = sinew_node_parent(g, x)) {
    if (!x.gen || !joint_node(g, x))
      return sinew_cmd_error(cmd, SINEW_EINVAL, "%s is not below %s in a joint chain", een, sjn);
    if (nj == cap && spline)
      return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "%s to %s: spline IK chains of more than 256 bones", sjn, een);
    if (nj == cap)
      return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED,
                             "%s to %s: chains of more than two bones are not supported by the RP/SC solvers here", sjn, een);
    chain[nj++] = x;
    if (x.index == sj.index && x.gen == sj.gen) break;
  }
  if (nj < 2) return sinew_cmd_error(cmd, SINEW_EINVAL, "-startJoint and -endEffector are the same joint");
  if (nj > 3 && !spline)
    return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED,
                           "%s to %s: chains of more than two bones are not supported by the RP/SC solvers here", sjn, een);
  sinew_node_t jl[257];
  for (size_t i = 0; i < nj; i++) jl[i] = chain[nj - 1 - i];
  for (size_t i = 0; i + 1 < nj; i++) {
    sinew_plug_t r = plug_of(g, jl[i], "r");
    if (sinew_plug_source(g, &r, NULL))
      return sinew_cmd_error(cmd, SINEW_ECONNECTED, "%s.rotate is connected; an IK joint's rotate belongs to its handle",
                             sinew_node_name(g, jl[i]));
  }
  double pri = (double)sinew_cmd_flag_int(cmd, "p", 1), w = sinew_cmd_flag_double(cmd, "w", 0, 1),
         pw = sinew_cmd_flag_double(cmd, "pw", 0, 1);
  if (pri < 1) return sinew_cmd_error(cmd, SINEW_ERANGE, "-priority must be 1 or more");
  if (!(w >= 0) || !(pw >= 0 && pw <= 1))
    return sinew_cmd_error(cmd, SINEW_ERANGE, "-weight must be 0 or more and -positionWeight within 0..1");
  const char *name = sinew_cmd_flag_string(cmd, "n", "ikHandle#");
  bool rp = strcmp(sol, "ikRPsolver") == 0;
  sinew_vec3_t pv = rp ? rp_pole(g, jl, nj) : (sinew_vec3_t){0, 0, 0};
  sinew_vec3_t at = world_pos(g, ee);
  sinew_mat4_t ew, er, rest;
  if (sinew_dag_world_matrix(g, jl[nj - 2], &ew) || !sinew_mat4_orthonormalize_rows(&ew, &er, &rest))
    sinew_mat4_identity(&er);
  sinew_vec3_t hr = {0, 0, 0};
  if (!rp) sinew_euler_from_mat4(&er, SINEW_ROTATE_XYZ, &hr); /* SC: the handle starts at the effector's orientation */

  /* make: solver (if none), effector, handle (a failure is taken back by the transaction) */
  sinew_node_t solver, eff = {0, 0}, h = {0, 0};
  bool new_solver = false;
  rc = shared_solver(g, sol, &solver, &new_solver);
  if (!rc && new_solver) {
    /* a new solver is listed in the scene's ikSystem, when it has one (files reference :ikSystem) */
    sinew_node_t sys;
    if (sinew_node_list_type(g, "ikSystem", true, &sys, 1) > 0) {
      sinew_plug_t src = plug_of(g, solver, "msg"), dst = plug_of(g, sys, "sol");
      rc = sinew_connect(g, &src, &dst, SINEW_CONNECT_NEXT_AVAILABLE, NULL);
    }
  }
  sinew_node_t curve_xf = {0, 0};
  if (!rc && create_curve)
    rc = make_chain_curve(cmd, jl, nj, sinew_cmd_flag_bool(cmd, "pcv", true), &curve_xf, &in_curve);
  if (!rc) rc = sinew_node_create_under(g, "ikEffector", "effector#", jl[nj - 2], &eff);
  if (!rc) rc = sinew_node_create(g, "ikHandle", name, &h);
  if (!rc) rc = connect(g, ee, "tx", eff, "tx");
  if (!rc) rc = connect(g, ee, "ty", eff, "ty");
  if (!rc) rc = connect(g, ee, "tz", eff, "tz");
  if (!rc) rc = connect(g, ee, "opm", eff, "opm");
  if (!rc) rc = set1(g, eff, "v", 0);
  if (!rc) rc = set1(g, eff, "hd", 1);
  if (!rc) rc = set3(g, h, "t", at);
  if (!rc) rc = set3(g, h, "r", hr);
  if (!rc) rc = set3(g, h, "pv", pv);
  if (!rc) rc = set1(g, h, "pri", pri);
  if (!rc) rc = set1(g, h, "w", w);
  if (!rc) rc = set1(g, h, "pow", pw);
  if (!rc) rc = set1(g, h, "roc", sinew_cmd_flag_bool(cmd, "roc", true));
  if (!rc && spline) rc = set1(g, h, "twt", tws);
  if (!rc && spline) rc = set1(g, h, "rtm", sinew_cmd_flag_bool(cmd, "rtm", false));
  if (!rc && spline) {
    sinew_plug_t ws = plug_of(g, in_curve, "ws"), ic = plug_of(g, h, "ic");
    ws = sinew_plug_make(in_curve, ws.attr, 1, (int32_t[]){0});
    rc = sinew_connect(g, &ws, &ic, 0, NULL);
  }
  if (!rc) rc = connect(g, sj, "msg", h, "hsj");
  if (!rc) rc = connect(g, eff, "hp", h, "hee");
  if (!rc) rc = connect(g, solver, "msg", h, "hsv");
  if (!rc) rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING);
  if (!rc) rc = result_node(cmd, h, true);
  if (!rc) rc = result_node(cmd, eff, true);
  if (!rc && curve_xf.gen) rc = result_node(cmd, curve_xf, true);
  if (!rc) rc = sinew_ik_wire(g, h); /* last: all or nothing itself */
  /* a failure is taken back by the command's transaction, the nodes made included */
  if (rc) return sinew_cmd_error(cmd, rc, "%s", sinew_graph_errmsg(g));
  return SINEW_OK;
}

static int cmd_ik_handle(sinew_cmd_t *cmd) {
  if (sinew_cmd_query(cmd)) return ik_query(cmd);
  if (sinew_cmd_edit(cmd)) return ik_edit(cmd);
  return ik_create(cmd);
}

int sinew__register_ik_cmds(sinew_lang_t *L, sinew_session_t *s) {
  const sinew_cmd_desc_t d = {"ikHandle", cmd_ik_handle, ik_flags, COUNT(ik_flags), false, s};
  return sinew_lang_register_command(L, &d);
}
