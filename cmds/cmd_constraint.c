/* cmds/cmd_constraint.c: Maya's constraint commands: parentConstraint, pointConstraint,
 * orientConstraint, aimConstraint, scaleConstraint and poleVectorConstraint (spec
 * maya-reference-rigging.md 3.1, 3.4, 3.5; docs/commands.md).
 *
 *   create  [-mo] [-w f] [-n name] [-skip* x|y|z|none] [-o x y z] [aim flags] targets... object
 *           makes "<object>_<type>1" under the object (or adds the targets to the constraint of
 *           that type the object already has), wires it as Maya does and returns its name
 *   edit    -e [-w f] [-rm] [-o ...] [aim flags] targets... object|constraint
 *   query   -q -tl | -wal | -w | -o  object|constraint
 *
 * Every check comes first; a late failure (out of memory) is taken back by the command's
 * transaction, leaving the scene as it was. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds_internal.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

typedef enum ckind { K_POINT, K_ORIENT, K_PARENT, K_AIM, K_SCALE, K_POLE, K_MAX } ckind;
static const char *const kind_type[K_MAX] = {"pointConstraint", "orientConstraint", "parentConstraint",
                                             "aimConstraint", "scaleConstraint", "poleVectorConstraint"};

static ckind kind_of_cmd(sinew_cmd_t *cmd) {
  const char *name = sinew_cmd_name(cmd);
  for (int k = 0; k < K_MAX; k++)
    if (strcmp(name, kind_type[k]) == 0) return (ckind)k;
  return K_PARENT;
}

static bool is_type(sinew_graph_t *g, sinew_node_t n, const char *type) {
  const sinew_node_type_t *t = sinew_node_type(g, n);
  return t && sinew_node_type_is_a(t, type);
}

static bool same(sinew_node_t a, sinew_node_t b) { return a.index == b.index && a.gen == b.gen; }

/* ---- changing the graph -------------------------------------------------------------------- */

/* What the wiring functions share. A command that fails part-way is taken back whole by its
 * transaction (every command runs in one), so nothing here records what it changed. */
typedef struct cctx {
  sinew_graph_t *g;
} cctx;

/* Sets 1 or 3 values. */
static int set_vals(cctx *l, const sinew_plug_t *p, const double *v, uint32_t n) {
  return n == 1 ? sinew_set_double(l->g, p, v[0]) : sinew_set_doubles(l->g, p, v, n);
}

static int connect_plugs(cctx *l, const sinew_plug_t *src, const sinew_plug_t *dst) {
  return sinew_connect(l->g, src, dst, 0, NULL);
}

/* ---- plugs -------------------------------------------------------------------------------- */

static sinew_plug_t top(sinew_graph_t *g, sinew_node_t n, const char *name) {
  return sinew_plug_make(n, sinew_node_attr(g, n, name), 0, NULL);
}

static bool has_attr(sinew_graph_t *g, sinew_node_t n, const char *name) {
  return sinew_node_attr(g, n, name) != UINT32_MAX;
}

/* tg[i].<child> of a constraint */
static sinew_plug_t tchild(sinew_graph_t *g, sinew_node_t c, int32_t i, const char *child) {
  return sinew_plug_make(c, sinew_node_attr(g, c, child), 1, &i);
}

/* The target node of element i: the source of its parent matrix, translate, rotate or scale. */
static bool target_of(sinew_graph_t *g, sinew_node_t c, int32_t i, sinew_node_t *out) {
  static const char *const kids[] = {"tpm", "tt", "tr", "ts"};
  for (size_t k = 0; k < COUNT(kids); k++) {
    if (!has_attr(g, c, kids[k])) continue;
    sinew_plug_t p = tchild(g, c, i, kids[k]), src;
    if (sinew_plug_source(g, &p, &src)) {
      *out = src.node;
      return true;
    }
  }
  return false;
}

/* The element indices of tg (up to cap); returns the count. */
static size_t target_indices(sinew_graph_t *g, sinew_node_t c, int32_t *idx, size_t cap) {
  sinew_plug_t tg = top(g, c, "tg");
  return sinew_plug_indices(g, &tg, idx, cap);
}

/* The element of tg whose target is node t, or -1. */
static int32_t find_target(sinew_graph_t *g, sinew_node_t c, sinew_node_t t) {
  int32_t idx[256];
  size_t n = target_indices(g, c, idx, COUNT(idx));
  for (size_t k = 0; k < n && k < COUNT(idx); k++) {
    sinew_node_t x;
    if (target_of(g, c, idx[k], &x) && same(x, t)) return idx[k];
  }
  return -1;
}

/* The weight alias feeding tg[i].tw (the w<i> attribute the command adds), if any. */
static bool weight_alias(sinew_graph_t *g, sinew_node_t c, int32_t i, sinew_plug_t *out) {
  sinew_plug_t tw = tchild(g, c, i, "tw"), src;
  if (!sinew_plug_source(g, &tw, &src) || !same(src.node, c)) return false;
  *out = src;
  return true;
}

/* ---- finding the constraint ------------------------------------------------------------------ */

/* The constraint of type k that drives object o: a child of o of that type. */
static bool constraint_under(sinew_graph_t *g, sinew_node_t o, ckind k, sinew_node_t *out) {
  sinew_node_t kids[64];
  size_t n = sinew_node_children(g, o, kids, COUNT(kids));
  for (size_t i = 0; i < n && i < COUNT(kids); i++)
    if (is_type(g, kids[i], kind_type[k])) {
      *out = kids[i];
      return true;
    }
  return false;
}

/* The node named (a constraint of this kind, or an object that has one). */
static int resolve_constraint(sinew_cmd_t *cmd, ckind k, const char *name, sinew_node_t *out) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  sinew_node_t n;
  int rc = sinew__cmd_node(cmd, name, &n);
  if (rc) return rc;
  if (is_type(g, n, kind_type[k])) {
    *out = n;
    return SINEW_OK;
  }
  if (is_type(g, n, "transform") && constraint_under(g, n, k, out)) return SINEW_OK;
  return sinew_cmd_error(cmd, SINEW_ETYPE, "%s is not a %s and has none", sinew_node_name(g, n), kind_type[k]);
}

/* ---- flags --------------------------------------------------------------------------------- */

/* -skip / -skipTranslate / -skipRotate: every occurrence x, y, z or none; out[a] true = skip. */
static int parse_skip(sinew_cmd_t *cmd, const char *flag, bool out[3]) {
  out[0] = out[1] = out[2] = false;
  size_t n = sinew_cmd_flag_count(cmd, flag);
  for (size_t i = 0; i < n; i++) {
    const sinew_value_t *v = sinew_cmd_flag_arg(cmd, flag, i, 0);
    const char *s = v ? sinew_value_string(v) : NULL;
    if (!s) return sinew_cmd_error(cmd, SINEW_EINVAL, "-%s needs x, y, z or none", flag);
    if (strcmp(s, "none") == 0) continue;
    if (strlen(s) != 1 || s[0] < 'x' || s[0] > 'z')
      return sinew_cmd_error(cmd, SINEW_EINVAL, "-%s: '%s' is not x, y, z or none", flag, s);
    out[s[0] - 'x'] = true;
  }
  return SINEW_OK;
}

static const char *const wut_names[] = {"scene", "object", "objectrotation", "vector", "none"};

typedef struct opts {
  bool mo, has_w, has_o, skip_t[3], skip_r[3], skip_s[3];
  double w, o[3];
  bool has_aim, has_u, has_wu;
  double aim[3], u[3], wu[3];
  int wut; /* -1: not given */
  sinew_node_t wuo;
  bool has_sc, sc;
} opts;

static void triple(sinew_cmd_t *cmd, const char *flag, double out[3]) {
  for (int i = 0; i < 3; i++) out[i] = sinew_cmd_flag_double(cmd, flag, (size_t)i, 0);
}

static int read_opts(sinew_cmd_t *cmd, ckind k, opts *o) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  memset(o, 0, sizeof *o);
  o->wut = -1;
  int rc;
  o->mo = sinew_cmd_flag_count(cmd, "maintainOffset") > 0;
  if ((o->has_w = sinew_cmd_flag_count(cmd, "weight") > 0)) {
    o->w = sinew_cmd_flag_double(cmd, "weight", 0, 1);
    if (!(o->w >= 0) || !isfinite(o->w))
      return sinew_cmd_error(cmd, SINEW_ERANGE, "-weight %g: a weight is a number >= 0", o->w);
  }
  if (k == K_PARENT) {
    if ((rc = parse_skip(cmd, "skipTranslate", o->skip_t)) || (rc = parse_skip(cmd, "skipRotate", o->skip_r))) return rc;
  } else if (k != K_POLE) {
    bool *sk = k == K_POINT ? o->skip_t : k == K_SCALE ? o->skip_s : o->skip_r;
    if ((rc = parse_skip(cmd, "skip", sk))) return rc;
  }
  if (k != K_PARENT && k != K_POLE && (o->has_o = sinew_cmd_flag_count(cmd, "offset") > 0)) {
    triple(cmd, "offset", o->o);
    for (int i = 0; i < 3; i++)
      if (!isfinite(o->o[i])) return sinew_cmd_error(cmd, SINEW_ERANGE, "-offset: not a finite number");
  }
  if (k == K_AIM) {
    if ((o->has_aim = sinew_cmd_flag_count(cmd, "aimVector") > 0)) triple(cmd, "aimVector", o->aim);
    if ((o->has_u = sinew_cmd_flag_count(cmd, "upVector") > 0)) triple(cmd, "upVector", o->u);
    if ((o->has_wu = sinew_cmd_flag_count(cmd, "worldUpVector") > 0)) triple(cmd, "worldUpVector", o->wu);
    if (o->has_aim && o->aim[0] == 0 && o->aim[1] == 0 && o->aim[2] == 0)
      return sinew_cmd_error(cmd, SINEW_ERANGE, "-aimVector 0 0 0: the aim vector needs a direction");
    const char *wut = sinew_cmd_flag_string(cmd, "worldUpType", NULL);
    if (wut) {
      for (int i = 0; i < (int)COUNT(wut_names); i++)
        if (strcmp(wut, wut_names[i]) == 0) o->wut = i;
      if (o->wut < 0)
        return sinew_cmd_error(cmd, SINEW_EINVAL,
                               "-worldUpType '%s': use scene, object, objectrotation, vector or none", wut);
    }
    const char *wuo = sinew_cmd_flag_string(cmd, "worldUpObject", NULL);
    if (wuo) {
      if ((rc = sinew__cmd_node(cmd, wuo, &o->wuo))) return rc;
      if (!is_type(g, o->wuo, "dagNode"))
        return sinew_cmd_error(cmd, SINEW_ETYPE, "-worldUpObject %s is not a DAG object", wuo);
    }
  }
  if (k == K_SCALE && (o->has_sc = sinew_cmd_flag_count(cmd, "scaleCompensate") > 0))
    o->sc = sinew_cmd_flag_bool(cmd, "scaleCompensate", true);
  return SINEW_OK;
}

/* -worldUpType object / objectrotation need an up object: -worldUpObject, or one the
 * constraint c (zero handle: none yet) already has. */
static int check_up_object(sinew_cmd_t *cmd, ckind k, sinew_node_t c, const opts *o) {
  if (k != K_AIM || !(o->wut == 1 || o->wut == 2) || o->wuo.gen) return SINEW_OK;
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  if (c.gen) {
    sinew_plug_t wum = top(g, c, "wum");
    if (sinew_plug_source(g, &wum, NULL)) return SINEW_OK;
  }
  return sinew_cmd_error(cmd, SINEW_EINVAL, "-worldUpType %s needs -worldUpObject", wut_names[o->wut]);
}

/* ---- wiring -------------------------------------------------------------------------------- */

static int connect_if(cctx *l, sinew_node_t sn, const char *sattr, sinew_node_t dn, const char *dattr) {
  sinew_graph_t *g = l->g;
  if (!has_attr(g, sn, sattr) || !has_attr(g, dn, dattr)) return SINEW_OK;
  sinew_plug_t s = top(g, sn, sattr), d = top(g, dn, dattr);
  if (sinew_plug_source(g, &d, NULL)) return SINEW_OK;
  return connect_plugs(l, &s, &d);
}

/* The object's channels feeding the constraint (spec 3.1). */
static int wire_object(cctx *l, ckind k, sinew_node_t c, sinew_node_t obj) {
  sinew_graph_t *g = l->g;
  bool joint = is_type(g, obj, "joint");
  int32_t zero = 0;
  sinew_plug_t pim = sinew_plug_make(obj, sinew_node_attr(g, obj, "pim"), 1, &zero), cpim = top(g, c, "cpim");
  int rc = connect_plugs(l, &pim, &cpim);
  if (!rc && k != K_POLE) rc = connect_if(l, obj, "rp", c, "crp");
  if (!rc) rc = connect_if(l, obj, "rpt", c, "crt");
  if (!rc) rc = connect_if(l, obj, "ro", c, "cro");
  if (!rc && joint) rc = connect_if(l, obj, "jo", c, "cjo");
  if (!rc && joint && (k == K_ORIENT || k == K_AIM)) rc = connect_if(l, obj, "is", c, "is");
  if (!rc && joint && k == K_SCALE) rc = connect_if(l, obj, "ssc", c, "tsc");
  if (!rc && k == K_AIM) rc = connect_if(l, obj, "t", c, "ct");
  if (!rc && k == K_POLE) {
    /* the chain's start joint: the handle's startJoint source */
    if (has_attr(g, obj, "hsj")) {
      sinew_plug_t hsj = top(g, obj, "hsj"), src;
      if (sinew_plug_source(g, &hsj, &src)) {
        sinew_plug_t pm = sinew_plug_make(src.node, sinew_node_attr(g, src.node, "pm"), 1, &zero), ps = top(g, c, "ps");
        rc = connect_plugs(l, &pm, &ps);
        if (!rc) rc = connect_if(l, src.node, "t", c, "crp");
      }
    }
  }
  return rc;
}

/* One target in element i: its channels, and the weight alias <target>W<i> (short w<i>). */
static int wire_target(cctx *l, sinew_node_t c, sinew_node_t t, int32_t i, double w) {
  sinew_graph_t *g = l->g;
  static const char *const pairs[][2] = {{"t", "tt"}, {"rp", "trp"}, {"rpt", "trt"}, {"r", "tr"}, {"ro", "tro"},
                                         {"s", "ts"}, {"jo", "tjo"}, {"ssc", "tsc"}, {"is", "tis"}};
  int rc = SINEW_OK;
  bool joint = is_type(g, t, "joint");
  for (size_t k = 0; k < COUNT(pairs) && !rc; k++) {
    if (!joint && k >= 6) break;
    if (!has_attr(g, c, pairs[k][1])) continue;
    sinew_plug_t s = top(g, t, pairs[k][0]), d = tchild(g, c, i, pairs[k][1]);
    rc = connect_plugs(l, &s, &d);
  }
  int32_t zero = 0;
  sinew_plug_t pm = sinew_plug_make(t, sinew_node_attr(g, t, "pm"), 1, &zero), tpm = tchild(g, c, i, "tpm");
  if (!rc) rc = connect_plugs(l, &pm, &tpm);
  if (rc) return rc;
  /* the alias */
  char lname[600], sname[32];
  const char *tn = sinew_node_name(g, t), *colon = strrchr(tn, ':');
  snprintf(lname, sizeof lname, "%sW%d", colon ? colon + 1 : tn, (int)i);
  snprintf(sname, sizeof sname, "w%d", (int)i);
  sinew_attr_desc_t d = {.name = lname, .short_name = sname, .type = SINEW_ATTR_DOUBLE,
                         .flags = SINEW_ATTR_INPUT | SINEW_ATTR_KEYABLE, .default_value = 1, .has_min = true,
                         .min_value = 0};
  if (has_attr(g, c, sname) || has_attr(g, c, lname))
    return sinew_graph_set_error(g, SINEW_EEXISTS, "%s already has an attribute %s", sinew_node_name(g, c), sname);
  if ((rc = sinew_node_add_attr(g, c, &d, 1))) return rc;
  sinew_plug_t alias = top(g, c, sname), tw = tchild(g, c, i, "tw");
  rc = sinew_set_double(g, &alias, w);
  if (!rc) rc = connect_plugs(l, &alias, &tw);
  return rc;
}

/* Outputs to the object's channels, per axis, leaving skipped axes unconnected. */
static const char *const out_names[3][2][3] = {
    {{"ctx", "cty", "ctz"}, {"tx", "ty", "tz"}},
    {{"crx", "cry", "crz"}, {"rx", "ry", "rz"}},
    {{"csx", "csy", "csz"}, {"sx", "sy", "sz"}}};

static void outputs_of(ckind k, const opts *o, bool use[3][3]) {
  memset(use, 0, sizeof(bool) * 9);
  bool t = k == K_POINT || k == K_PARENT, r = k == K_ORIENT || k == K_PARENT || k == K_AIM, s = k == K_SCALE;
  for (int a = 0; a < 3; a++) {
    use[0][a] = t && !o->skip_t[a];
    use[1][a] = r && !o->skip_r[a];
    use[2][a] = s && !o->skip_s[a];
  }
}

/* An object channel the constraint would drive must be free: not locked, not fed. */
static int check_channels(sinew_cmd_t *cmd, sinew_node_t obj, ckind k, bool use[3][3]) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  if (k == K_POLE) {
    static const char *const pv[] = {"pvx", "pvy", "pvz"};
    for (int a = 0; a < 3; a++)
      if (!has_attr(g, obj, pv[a]))
        return sinew_cmd_error(cmd, SINEW_ETYPE, "%s has no poleVector: the object must be an ikHandle",
                               sinew_node_name(g, obj));
    return SINEW_OK;
  }
  for (int ch = 0; ch < 3; ch++)
    for (int a = 0; a < 3; a++) {
      if (!use[ch][a]) continue;
      sinew_plug_t p = top(g, obj, out_names[ch][1][a]), parent = top(g, obj, ch == 0 ? "t" : ch == 1 ? "r" : "s");
      if (sinew_plug_locked(g, &p) || sinew_plug_locked(g, &parent))
        return sinew_cmd_error(cmd, SINEW_ELOCKED, "%s.%s is locked", sinew_node_name(g, obj), out_names[ch][1][a]);
      if (sinew_plug_source(g, &p, NULL) || sinew_plug_source(g, &parent, NULL))
        return sinew_cmd_error(cmd, SINEW_ECONNECTED, "%s.%s is already connected", sinew_node_name(g, obj),
                               out_names[ch][1][a]);
    }
  return SINEW_OK;
}

static int wire_outputs(cctx *l, ckind k, sinew_node_t c, sinew_node_t obj, bool use[3][3]) {
  sinew_graph_t *g = l->g;
  int rc = SINEW_OK;
  if (k == K_POLE) {
    static const char *const pv[] = {"pvx", "pvy", "pvz"};
    for (int a = 0; a < 3 && !rc; a++) {
      sinew_plug_t s = top(g, c, out_names[0][0][a]), d = top(g, obj, pv[a]);
      if (!sinew_plug_source(g, &d, NULL)) rc = connect_plugs(l, &s, &d);
    }
    return rc;
  }
  for (int ch = 0; ch < 3; ch++)
    for (int a = 0; a < 3 && !rc; a++) {
      if (!use[ch][a]) continue;
      sinew_plug_t s = top(g, c, out_names[ch][0][a]), d = top(g, obj, out_names[ch][1][a]);
      rc = connect_plugs(l, &s, &d);
    }
  return rc;
}

static int set3(cctx *l, sinew_node_t n, const char *attr, const double v[3]) {
  sinew_plug_t p = top(l->g, n, attr);
  return set_vals(l, &p, v, 3);
}

static int set1(cctx *l, sinew_node_t n, const char *attr, double v) {
  sinew_plug_t p = top(l->g, n, attr);
  return set_vals(l, &p, &v, 1);
}

/* The aim flags and -o, in create and edit. */
static int apply_settings(cctx *l, ckind k, sinew_node_t c, const opts *o, bool create) {
  sinew_graph_t *g = l->g;
  int rc = SINEW_OK;
  if (o->has_o) rc = set3(l, c, "o", o->o);
  if (k == K_AIM) {
    if (!rc && o->has_aim) rc = set3(l, c, "a", o->aim);
    if (!rc && o->has_u) rc = set3(l, c, "u", o->u);
    if (!rc && o->has_wu) rc = set3(l, c, "wu", o->wu);
    /* the command's default world up type is vector */
    if (!rc && (o->wut >= 0 || create)) rc = set1(l, c, "wut", o->wut >= 0 ? o->wut : 3);
    if (!rc && o->wuo.gen) {
      int32_t zero = 0;
      sinew_plug_t wm = sinew_plug_make(o->wuo, sinew_node_attr(g, o->wuo, "wm"), 1, &zero), wum = top(g, c, "wum"),
                   old;
      if (sinew_plug_source(g, &wum, &old)) {
        if (!sinew_plug_equal(&old, &wm)) {
          /* replace the old up object */
          if ((rc = sinew_disconnect(g, &old, &wum))) return rc;
          rc = connect_plugs(l, &wm, &wum);
        }
      } else {
        rc = connect_plugs(l, &wm, &wum);
      }
    }
  }
  if (!rc && k == K_SCALE && o->has_sc && has_attr(g, c, "tsc")) {
    sinew_plug_t p = top(g, c, "tsc");
    if (!sinew_plug_source(g, &p, NULL)) rc = set1(l, c, "tsc", o->sc);
  }
  return rc;
}

/* -mo: the offsets that keep the object where it is (nodes/constraint.c does the maths). */
/* values: the object's translate, rotate, scale before the command (NULL: read them now);
 * fresh[i]: target element i is new (parentConstraint keeps the offsets of the old ones). */
static int maintain_offset(cctx *l, ckind k, sinew_node_t c, sinew_node_t obj, const sinew_vec3_t *values,
                           const int32_t *fresh, size_t nfresh) {
  sinew_graph_t *g = l->g;
  sinew_vec3_t v[2];
  int rc;
  if (k == K_PARENT) {
    for (size_t i = 0; i < nfresh; i++) {
      int32_t idx = fresh[i];
      if ((rc = sinew_constraint_offset(g, c, obj, idx, values, v))) return rc;
      double t[3] = {v[0].x, v[0].y, v[0].z}, r[3] = {v[1].x, v[1].y, v[1].z};
      sinew_plug_t tot = tchild(g, c, idx, "tot"), tor = tchild(g, c, idx, "tor");
      if ((rc = set_vals(l, &tot, t, 3)) || (rc = set_vals(l, &tor, r, 3))) return rc;
    }
    return SINEW_OK;
  }
  if (k == K_POLE) return SINEW_OK;
  if ((rc = sinew_constraint_offset(g, c, obj, -1, values, v))) return rc;
  double o[3] = {v[0].x, v[0].y, v[0].z};
  return set3(l, c, "o", o);
}

/* ---- create / add targets ------------------------------------------------------------------- */

static int result_name(sinew_cmd_t *cmd, sinew_node_t c) {
  char buf[512];
  int rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY);
  if (!rc) rc = sinew_cmd_result_append_string(cmd, sinew__node_label(sinew_cmd_graph(cmd), c, buf, sizeof buf));
  return rc ? sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory") : SINEW_OK;
}

/* The nodes named by the positional arguments, or the selection when none are given. */
static int gather(sinew_cmd_t *cmd, sinew_node_t *nodes, size_t cap, size_t *count) {
  sinew_session_t *s = sinew__session(cmd);
  size_t argc = sinew_cmd_argc(cmd);
  *count = 0;
  if (argc == 0) {
    for (uint32_t i = 0; i < s->scene->nsel && *count < cap; i++)
      if (sinew_node_valid(sinew_cmd_graph(cmd), s->scene->selection[i])) nodes[(*count)++] = s->scene->selection[i];
    return SINEW_OK;
  }
  if (argc > cap) return sinew_cmd_error(cmd, SINEW_ERANGE, "at most %zu objects", cap);
  for (size_t i = 0; i < argc; i++) {
    int rc = sinew__cmd_node(cmd, sinew_cmd_arg_string(cmd, i), &nodes[i]);
    if (rc) return rc;
  }
  *count = argc;
  return SINEW_OK;
}

#define MAX_NODES 256

static int constraint_create(sinew_cmd_t *cmd, ckind k) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  sinew_node_t nodes[MAX_NODES];
  size_t n;
  int rc = gather(cmd, nodes, MAX_NODES, &n);
  if (rc) return rc;
  if (n < 2) return sinew_cmd_error(cmd, SINEW_EINVAL, "give one or more targets and then the object to constrain");
  if (sinew_cmd_flag_count(cmd, "remove")) return sinew_cmd_error(cmd, SINEW_EINVAL, "-remove is an edit flag (-e -rm)");
  if (sinew_cmd_flag_count(cmd, "targetList") || sinew_cmd_flag_count(cmd, "weightAliasList"))
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-targetList and -weightAliasList are query flags (-q)");
  opts o;
  if ((rc = read_opts(cmd, k, &o))) return rc;
  sinew_node_t obj = nodes[n - 1];
  size_t nt = n - 1;
  if (!is_type(g, obj, "transform") && !(k == K_POLE && is_type(g, obj, "dagNode")))
    return sinew_cmd_error(cmd, SINEW_ETYPE, "%s is not a transform", sinew_node_name(g, obj));
  for (size_t i = 0; i < nt; i++) {
    if (!is_type(g, nodes[i], "transform"))
      return sinew_cmd_error(cmd, SINEW_ETYPE, "target %s is not a transform", sinew_node_name(g, nodes[i]));
    if (same(nodes[i], obj))
      return sinew_cmd_error(cmd, SINEW_EINVAL, "%s cannot be constrained to itself", sinew_node_name(g, obj));
    for (size_t j = 0; j < i; j++)
      if (same(nodes[i], nodes[j]))
        return sinew_cmd_error(cmd, SINEW_EINVAL, "target %s is given twice", sinew_node_name(g, nodes[i]));
  }
  sinew_node_t c = {0, 0};
  bool existing = constraint_under(g, obj, k, &c);
  if ((rc = check_up_object(cmd, k, existing ? c : (sinew_node_t){0, 0}, &o))) return rc;
  bool use[3][3];
  outputs_of(k, &o, use);
  if (!existing && (rc = check_channels(cmd, obj, k, use))) return rc;
  /* A target below the object would close a loop: the graph refuses that connection and the
   * command's transaction takes everything back. */
  cctx l = {.g = g};
  double w = o.has_w ? o.w : 1;
  if (!existing) {
    char want[600], buf[640];
    const char *name = sinew_cmd_flag_string(cmd, "name", NULL);
    if (!name || !name[0]) {
      snprintf(want, sizeof want, "%s_%s1", sinew_node_name(g, obj), kind_type[k]);
      name = want;
    }
    name = sinew__unique_name(g, name, buf, sizeof buf);
    if ((rc = sinew_node_create_under(g, kind_type[k], name, obj, &c))) return sinew__graph_error(cmd, rc);
    /* Maya's command: rest position on, at the object's present values */
    rc = set1(&l, c, "erp", 1);
    if (!rc && has_attr(g, c, "rst")) {
      double t[3];
      sinew_plug_t p = top(g, obj, "t");
      if (!(rc = sinew_get_doubles(g, &p, t, 3, NULL))) rc = set3(&l, c, "rst", t);
    }
    if (!rc && has_attr(g, c, "rsrr")) {
      double r[3];
      sinew_plug_t p = top(g, obj, "r");
      if (!(rc = sinew_get_doubles(g, &p, r, 3, NULL))) rc = set3(&l, c, "rsrr", r);
    }
    if (!rc) rc = wire_object(&l, k, c, obj);
  }
  /* the object's pose before anything changes (an existing constraint drives it: adding
   * targets changes it) */
  sinew_vec3_t before[3];
  static const char *const trs[3] = {"t", "r", "s"};
  for (int i = 0; i < 3 && !rc; i++) {
    double v[3];
    sinew_plug_t p = top(g, obj, trs[i]);
    rc = sinew_get_doubles(g, &p, v, 3, NULL);
    before[i] = (sinew_vec3_t){v[0], v[1], v[2]};
  }
  int32_t fresh[MAX_NODES];
  size_t nfresh = 0;
  for (size_t i = 0; i < nt && !rc; i++) {
    int32_t at = existing ? find_target(g, c, nodes[i]) : -1;
    if (at >= 0) {
      /* already a target: the weight given is its new weight */
      sinew_plug_t alias;
      if (o.has_w && weight_alias(g, c, at, &alias)) rc = set_vals(&l, &alias, &w, 1);
      continue;
    }
    sinew_plug_t tg = top(g, c, "tg");
    at = sinew_plug_next_index(g, &tg);
    rc = wire_target(&l, c, nodes[i], at, w);
    fresh[nfresh++] = at;
  }
  if (!rc) rc = apply_settings(&l, k, c, &o, !existing);
  if (!rc && o.mo) rc = maintain_offset(&l, k, c, obj, before, fresh, nfresh);
  if (!rc && !existing) rc = wire_outputs(&l, k, c, obj, use);
  if (!rc) rc = result_name(cmd, c);
  return rc ? sinew__graph_error(cmd, rc) : SINEW_OK;
}

/* ---- edit ----------------------------------------------------------------------------------- */

static int constraint_edit(sinew_cmd_t *cmd, ckind k) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  size_t argc = sinew_cmd_argc(cmd);
  if (argc < 1) return sinew_cmd_error(cmd, SINEW_EINVAL, "-e needs the constraint or the constrained object");
  sinew_node_t c;
  int rc = resolve_constraint(cmd, k, sinew_cmd_arg_string(cmd, argc - 1), &c);
  if (rc) return rc;
  opts o;
  if ((rc = read_opts(cmd, k, &o))) return rc;
  if (o.mo) return sinew_cmd_error(cmd, SINEW_EINVAL, "-maintainOffset is a create flag");
  if ((rc = check_up_object(cmd, k, c, &o))) return rc;
  bool rm = sinew_cmd_flag_count(cmd, "remove") > 0;
  int32_t at[MAX_NODES];
  size_t nt = argc - 1;
  if (nt > MAX_NODES) return sinew_cmd_error(cmd, SINEW_ERANGE, "at most %d targets", MAX_NODES);
  for (size_t i = 0; i < nt; i++) {
    sinew_node_t t;
    if ((rc = sinew__cmd_node(cmd, sinew_cmd_arg_string(cmd, i), &t))) return rc;
    if ((at[i] = find_target(g, c, t)) < 0)
      return sinew_cmd_error(cmd, SINEW_ENOTFOUND, "%s is not a target of %s", sinew_node_name(g, t),
                             sinew_node_name(g, c));
  }
  if ((rm || o.has_w) && nt == 0) return sinew_cmd_error(cmd, SINEW_EINVAL, "name the targets before the constraint");
  cctx l = {.g = g};
  if (rm) {
    /* removing every target deletes the constraint, as Maya does */
    int32_t all[MAX_NODES];
    size_t total = target_indices(g, c, all, MAX_NODES);
    if (total <= nt) {
      if ((rc = sinew_node_delete(g, c))) return sinew__graph_error(cmd, rc);
      return sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY);
    }
    /* each target's element and its weight alias (a failure takes them all back) */
    for (size_t i = 0; i < nt; i++) {
      sinew_plug_t alias, el = sinew_plug_make(c, sinew_node_attr(g, c, "tg"), 1, &at[i]);
      bool has_alias = weight_alias(g, c, at[i], &alias);
      if ((rc = sinew_plug_remove_element(g, &el))) return sinew__graph_error(cmd, rc);
      if (has_alias && (rc = sinew_node_remove_attr(g, c, alias.attr))) return sinew__graph_error(cmd, rc);
    }
    return result_name(cmd, c);
  }
  for (size_t i = 0; i < nt && !rc && o.has_w; i++) {
    sinew_plug_t alias;
    if (weight_alias(g, c, at[i], &alias)) {
      rc = set_vals(&l, &alias, &o.w, 1);
    } else {
      sinew_plug_t tw = tchild(g, c, at[i], "tw");
      rc = set_vals(&l, &tw, &o.w, 1);
    }
  }
  if (!rc) rc = apply_settings(&l, k, c, &o, false);
  if (!rc) rc = result_name(cmd, c);
  return rc ? sinew__graph_error(cmd, rc) : SINEW_OK;
}

/* ---- query ----------------------------------------------------------------------------------- */

static int constraint_query(sinew_cmd_t *cmd, ckind k) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  size_t argc = sinew_cmd_argc(cmd);
  if (argc < 1) return sinew_cmd_error(cmd, SINEW_EINVAL, "-q needs the constraint or the constrained object");
  sinew_node_t c;
  int rc = resolve_constraint(cmd, k, sinew_cmd_arg_string(cmd, argc - 1), &c);
  if (rc) return rc;
  int32_t idx[MAX_NODES];
  size_t n = target_indices(g, c, idx, MAX_NODES);
  if (n > MAX_NODES) n = MAX_NODES;
  char buf[512];
  if (sinew_cmd_flag_count(cmd, "targetList") || sinew_cmd_flag_count(cmd, "weightAliasList")) {
    bool tl = sinew_cmd_flag_count(cmd, "targetList") > 0;
    rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY);
    for (size_t i = 0; i < n && !rc; i++) {
      sinew_node_t t;
      if (!target_of(g, c, idx[i], &t)) continue;
      if (tl) {
        rc = sinew_cmd_result_append_string(cmd, sinew__node_label(g, t, buf, sizeof buf));
      } else {
        sinew_plug_t alias;
        sinew_attr_info_t info;
        if (weight_alias(g, c, idx[i], &alias) && !sinew_node_attr_info(g, c, alias.attr, &info)) {
          rc = sinew_cmd_result_append_string(cmd, info.name);
        } else {
          sinew_plug_t tw = tchild(g, c, idx[i], "tw");
          sinew_plug_format_attr(g, &tw, false, buf, sizeof buf);
          rc = sinew_cmd_result_append_string(cmd, buf);
        }
      }
    }
    return rc ? sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory") : SINEW_OK;
  }
  if (sinew_cmd_flag_count(cmd, "weight")) {
    /* -q -w target... constraint: the weights of the targets named (all when none) */
    rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_FLOAT_ARRAY);
    for (size_t i = 0; i + 1 < argc || (argc == 1 && i < n); i++) {
      int32_t at;
      if (argc > 1) {
        sinew_node_t t;
        if ((rc = sinew__cmd_node(cmd, sinew_cmd_arg_string(cmd, i), &t))) return rc;
        if ((at = find_target(g, c, t)) < 0)
          return sinew_cmd_error(cmd, SINEW_ENOTFOUND, "%s is not a target of %s", sinew_node_name(g, t),
                                 sinew_node_name(g, c));
      } else {
        at = idx[i];
      }
      sinew_plug_t tw = tchild(g, c, at, "tw");
      double v = 0;
      if ((rc = sinew_get_double(g, &tw, &v))) return sinew__graph_error(cmd, rc);
      if ((rc = sinew_cmd_result_append_double(cmd, v))) return sinew_cmd_error(cmd, rc, "out of memory");
    }
    return SINEW_OK;
  }
  if (sinew_cmd_flag_count(cmd, "offset") && has_attr(g, c, "o")) {
    sinew_plug_t p = top(g, c, "o");
    double v[3];
    sinew_attr_info_t info;
    if ((rc = sinew_get_doubles(g, &p, v, 3, NULL))) return sinew__graph_error(cmd, rc);
    sinew_node_attr_info(g, c, sinew_node_attr(g, c, "ox"), &info);
    rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_FLOAT_ARRAY);
    for (int i = 0; i < 3 && !rc; i++) rc = sinew_cmd_result_append_double(cmd, v[i] / sinew__unit_in(g, info.type));
    return rc ? sinew_cmd_error(cmd, rc, "out of memory") : SINEW_OK;
  }
  if (sinew_cmd_flag_count(cmd, "name")) return result_name(cmd, c);
  return sinew_cmd_error(cmd, SINEW_EINVAL, "nothing to query: use -targetList, -weightAliasList, -weight or -offset");
}

static int cmd_constraint(sinew_cmd_t *cmd) {
  ckind k = kind_of_cmd(cmd);
  if (sinew_cmd_query(cmd)) return constraint_query(cmd, k);
  if (sinew_cmd_edit(cmd)) return constraint_edit(cmd, k);
  return constraint_create(cmd, k);
}

/* ---- registration ------------------------------------------------------------------------------ */

#define COMMON_FLAGS                                                                                      \
  {"maintainOffset", "mo", "", 0}, {"weight", "w", "f", 0}, {"name", "n", "s", 0},     \
      {"remove", "rm", "", 0}, {"targetList", "tl", "", 0}, {"weightAliasList", "wal", "", 0},            \
      {"layer", "l", "s", 0}, {"query", "q", "", SINEW_CMD_QUERY}, {"edit", "e", "", SINEW_CMD_EDIT}

static const sinew_cmd_flag_t parent_flags[] = {
    COMMON_FLAGS, {"skipTranslate", "st", "s", SINEW_CMD_MULTI}, {"skipRotate", "sr", "s", SINEW_CMD_MULTI},
    {"decompRotationToChild", "dr", "", 0}};
static const sinew_cmd_flag_t point_flags[] = {COMMON_FLAGS, {"skip", "sk", "s", SINEW_CMD_MULTI},
                                               {"offset", "o", "lll", 0}};
static const sinew_cmd_flag_t orient_flags[] = {COMMON_FLAGS, {"skip", "sk", "s", SINEW_CMD_MULTI},
                                                {"offset", "o", "aaa", 0}};
static const sinew_cmd_flag_t scale_flags[] = {COMMON_FLAGS, {"skip", "sk", "s", SINEW_CMD_MULTI},
                                               {"offset", "o", "fff", 0}, {"scaleCompensate", "sc", "b", 0}};
static const sinew_cmd_flag_t aim_flags[] = {
    COMMON_FLAGS,
    {"skip", "sk", "s", SINEW_CMD_MULTI},
    {"offset", "o", "aaa", 0},
    {"aimVector", "aim", "fff", 0},
    {"upVector", "u", "fff", 0},
    {"worldUpVector", "wu", "fff", 0},
    {"worldUpType", "wut", "s", 0},
    {"worldUpObject", "wuo", "s", 0}};
static const sinew_cmd_flag_t pole_flags[] = {COMMON_FLAGS};

int sinew__register_constraint_cmds(sinew_lang_t *L, sinew_session_t *s) {
  const sinew_cmd_desc_t cmds[] = {
      {"parentConstraint", cmd_constraint, parent_flags, COUNT(parent_flags), false, s},
      {"pointConstraint", cmd_constraint, point_flags, COUNT(point_flags), false, s},
      {"orientConstraint", cmd_constraint, orient_flags, COUNT(orient_flags), false, s},
      {"aimConstraint", cmd_constraint, aim_flags, COUNT(aim_flags), false, s},
      {"scaleConstraint", cmd_constraint, scale_flags, COUNT(scale_flags), false, s},
      {"poleVectorConstraint", cmd_constraint, pole_flags, COUNT(pole_flags), false, s},
  };
  for (size_t i = 0; i < COUNT(cmds); i++) {
    int rc = sinew_lang_register_command(L, &cmds[i]);
    if (rc) return rc;
  }
  return SINEW_OK;
}
