/* cmds/cmd_anim.c: the animation commands: setKeyframe, keyframe, cutKey, copyKey, pasteKey,
 * keyTangent, setInfinity, setDrivenKeyframe, bakeResults and playbackOptions, and running
 * the sceneConfigurationScriptNode of a file that is opened (the scene's playback range).
 *
 * Keys live in the curve nodes' attributes (nodes/anim_curve.c): a command reads a curve's keys
 * into a list (sorted by time, one key per time, as the node compiles them), changes the list,
 * and writes the list back as elements 0..n-1. Every command checks all its arguments first,
 * then changes the scene; a failure after the first change is taken back by the command's
 * transaction. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds_internal.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_RANGES 64
#define PI 3.14159265358979323846

/* ---- tangent and infinity names ------------------------------------------------------------ */

enum { TAN_FIXED = 1, TAN_LINEAR = 2, TAN_FLAT = 3, TAN_STEP = 5, TAN_AUTO = 18 };

static const struct {
  const char *name;
  int code;
} tangent_names[] = {{"fixed", 1},   {"linear", 2},   {"flat", 3},      {"step", 5},
                     {"slow", 6},    {"fast", 7},     {"spline", 9},    {"clamped", 10},
                     {"plateau", 16}, {"stepnext", 17}, {"auto", 18},     {"automix", 27},
                     {"autoease", 28}, {"autocustom", 29}};

static int tangent_code(const char *name) {
  for (size_t i = 0; i < COUNT(tangent_names); i++)
    if (!strcmp(tangent_names[i].name, name)) return tangent_names[i].code;
  return -1;
}

static const char *tangent_name(int code) {
  for (size_t i = 0; i < COUNT(tangent_names); i++)
    if (tangent_names[i].code == code) return tangent_names[i].name;
  return "unknown";
}

static const struct {
  const char *name;
  int code;
} infinity_names[] = {{"constant", 0}, {"linear", 1}, {"cycle", 3}, {"cycleRelative", 4}, {"oscillate", 5}};

static int infinity_code(const char *name) {
  for (size_t i = 0; i < COUNT(infinity_names); i++)
    if (!strcmp(infinity_names[i].name, name)) return infinity_names[i].code;
  return -1;
}

static const char *infinity_name(int code) {
  for (size_t i = 0; i < COUNT(infinity_names); i++)
    if (infinity_names[i].code == code) return infinity_names[i].name;
  return "constant";
}

/* Reads a tangent type flag (-itt / -ott): -1 when absent. */
static int tangent_flag(sinew_cmd_t *cmd, const char *flag, int *out) {
  *out = -1;
  if (!sinew_cmd_flag_count(cmd, flag)) return SINEW_OK;
  const char *name = sinew_cmd_flag_string(cmd, flag, "");
  if ((*out = tangent_code(name)) < 0)
    return sinew_cmd_error(cmd, SINEW_EINVAL,
                           "-%s '%s': not a tangent type (spline, linear, fast, slow, flat, step, stepnext, "
                           "fixed, clamped, plateau, auto, automix, autoease, autocustom)",
                           flag, name);
  return SINEW_OK;
}

/* ---- curves as key lists ------------------------------------------------------------------- */

typedef struct akey {
  double t, v;            /* seconds (time curves) or input units; the output's internal unit */
  double ix, iy, ox, oy;  /* stored tangents (used by fixed keys) */
  int itt, ott;
  bool tl, wl, bd;
  int32_t order;          /* the .ktv index it came from: the last of equal times wins */
} akey;

typedef struct acurve {
  sinew_node_t node;
  bool time_input;
  sinew_attr_type_t out_type;
  akey *k;
  uint32_t n, cap;
  int tan, pre, pst;
  bool wgt;
} acurve;

static const char *const key_multis[] = {"ktv", "kit", "kot", "kix", "kiy", "kox", "koy", "ktl", "kwl", "kbd"};

static bool is_curve(sinew_graph_t *g, sinew_node_t n) {
  return sinew_node_valid(g, n) && sinew_node_type_is_a(sinew_node_type(g, n), "animCurve");
}

static void curve_free(acurve *c) {
  sinew_free(c->k);
  c->k = NULL;
  c->n = c->cap = 0;
}

static int curve_reserve(acurve *c, uint32_t need) {
  if (need <= c->cap) return SINEW_OK;
  return sinew__grow((void **)&c->k, &c->cap, need, sizeof *c->k);
}

static double get_attr(sinew_graph_t *g, sinew_node_t n, const char *attr, double dflt) {
  sinew_plug_t p;
  double v = dflt;
  if (sinew_plug_parse_attr(g, n, attr, &p) || sinew_get_double(g, &p, &v)) return dflt;
  return v;
}

static int set_attr(sinew_graph_t *g, sinew_node_t n, const char *attr, double v) {
  sinew_plug_t p;
  int rc = sinew_plug_parse_attr(g, n, attr, &p);
  return rc ? rc : sinew_set_double(g, &p, v);
}

/* Element `idx` of a per-key multi, when it holds a value. */
static bool key_elem(sinew_graph_t *g, sinew_node_t n, const char *multi, int32_t idx, double *out) {
  char a[64];
  snprintf(a, sizeof a, "%s[%d]", multi, (int)idx);
  sinew_plug_t p;
  if (sinew_plug_parse_attr(g, n, a, &p) || !sinew_plug_has_value(g, &p)) return false;
  return sinew_get_double(g, &p, out) == SINEW_OK;
}

static int cmp_akey(const void *a, const void *b) {
  const akey *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  return (x->order > y->order) - (x->order < y->order);
}

/* Sorts by time and keeps the last key of equal times (highest order). */
static void curve_normalise(acurve *c) {
  qsort(c->k, c->n, sizeof *c->k, cmp_akey);
  uint32_t w = 0;
  for (uint32_t i = 0; i < c->n; i++) {
    if (w && fabs(c->k[w - 1].t - c->k[i].t) <= 1e-9 * fmax(1.0, fabs(c->k[i].t))) c->k[w - 1] = c->k[i];
    else c->k[w++] = c->k[i];
  }
  c->n = w;
  for (uint32_t i = 0; i < c->n; i++) c->k[i].order = (int32_t)i;
}

static int curve_read(sinew_graph_t *g, sinew_node_t n, acurve *c) {
  memset(c, 0, sizeof *c);
  c->node = n;
  const char *tn = sinew_node_type_name(sinew_node_type(g, n));
  c->time_input = strlen(tn) >= 11 && tn[9] == 'T';
  char o = strlen(tn) >= 11 ? tn[10] : 'U';
  c->out_type = o == 'L' ? SINEW_ATTR_DISTANCE : o == 'A' ? SINEW_ATTR_ANGLE : o == 'T' ? SINEW_ATTR_TIME : SINEW_ATTR_DOUBLE;
  c->tan = (int)get_attr(g, n, "tan", TAN_AUTO);
  c->wgt = get_attr(g, n, "wgt", 1) != 0;
  c->pre = (int)get_attr(g, n, "pre", 0);
  c->pst = (int)get_attr(g, n, "pst", 0);
  sinew_plug_t ktv;
  if (sinew_plug_parse_attr(g, n, "ktv", &ktv)) return SINEW_ETYPE;
  size_t cnt = sinew_plug_indices(g, &ktv, NULL, 0);
  if (!cnt) return SINEW_OK;
  int32_t *idx = sinew_malloc(cnt * sizeof *idx);
  if (!idx || curve_reserve(c, (uint32_t)cnt)) {
    sinew_free(idx);
    curve_free(c);
    return SINEW_ENOMEM;
  }
  cnt = sinew_plug_indices(g, &ktv, idx, cnt);
  for (size_t i = 0; i < cnt; i++) {
    akey *k = &c->k[c->n];
    memset(k, 0, sizeof *k);
    char a[64];
    snprintf(a, sizeof a, "ktv[%d].kt", (int)idx[i]);
    k->t = get_attr(g, n, a, NAN);
    snprintf(a, sizeof a, "ktv[%d].kv", (int)idx[i]);
    k->v = get_attr(g, n, a, NAN);
    if (!isfinite(k->t) || !isfinite(k->v)) continue;
    double d;
    k->itt = key_elem(g, n, "kit", idx[i], &d) && d >= 0 && d < 1000 ? (int)d : c->tan;
    k->ott = key_elem(g, n, "kot", idx[i], &d) && d >= 0 && d < 1000 ? (int)d : c->tan;
    if (key_elem(g, n, "kix", idx[i], &d)) k->ix = d;
    if (key_elem(g, n, "kiy", idx[i], &d)) k->iy = d;
    if (key_elem(g, n, "kox", idx[i], &d)) k->ox = d;
    if (key_elem(g, n, "koy", idx[i], &d)) k->oy = d;
    k->tl = key_elem(g, n, "ktl", idx[i], &d) ? d != 0 : true;
    k->wl = key_elem(g, n, "kwl", idx[i], &d) ? d != 0 : true;
    k->bd = key_elem(g, n, "kbd", idx[i], &d) ? d != 0 : false;
    k->order = idx[i];
    c->n++;
  }
  sinew_free(idx);
  curve_normalise(c);
  return SINEW_OK;
}

static int curve_copy(const acurve *from, acurve *to) {
  *to = *from;
  to->k = NULL;
  to->cap = 0;
  if (!from->n) return SINEW_OK;
  if (curve_reserve(to, from->n)) return SINEW_ENOMEM;
  memcpy(to->k, from->k, from->n * sizeof *to->k);
  return SINEW_OK;
}

/* Writes the list back: every key element goes, then keys 0..n-1 are set. kit / kot are written
 * only when some key's type differs from the curve's tangentType, tangents only for fixed sides,
 * ktl / kwl only when off, kbd only when on (what Maya writes, in the same spirit). */
static int curve_write(sinew_graph_t *g, const acurve *c) {
  int rc = SINEW_OK;
  for (size_t m = 0; m < COUNT(key_multis) && !rc; m++) {
    sinew_plug_t arr;
    if ((rc = sinew_plug_parse_attr(g, c->node, key_multis[m], &arr))) break;
    size_t cnt = sinew_plug_indices(g, &arr, NULL, 0);
    if (!cnt) continue;
    int32_t *idx = sinew_malloc(cnt * sizeof *idx);
    if (!idx) return SINEW_ENOMEM;
    cnt = sinew_plug_indices(g, &arr, idx, cnt);
    /* from the last, so no element moves */
    for (size_t i = cnt; i-- > 0 && !rc;) {
      sinew_plug_t e;
      if (!(rc = sinew_plug_element(g, &arr, idx[i], &e))) rc = sinew_plug_remove_element(g, &e);
    }
    sinew_free(idx);
  }
  bool types = false;
  for (uint32_t i = 0; i < c->n; i++) types |= c->k[i].itt != c->tan || c->k[i].ott != c->tan;
  char a[64];
  for (uint32_t i = 0; i < c->n && !rc; i++) {
    const akey *k = &c->k[i];
    snprintf(a, sizeof a, "ktv[%u].kt", i);
    rc = set_attr(g, c->node, a, k->t);
    snprintf(a, sizeof a, "ktv[%u].kv", i);
    if (!rc) rc = set_attr(g, c->node, a, k->v);
    if (!rc && types) {
      snprintf(a, sizeof a, "kit[%u]", i);
      if (!(rc = set_attr(g, c->node, a, k->itt))) {
        snprintf(a, sizeof a, "kot[%u]", i);
        rc = set_attr(g, c->node, a, k->ott);
      }
    }
    if (!rc && k->itt == TAN_FIXED) {
      snprintf(a, sizeof a, "kix[%u]", i);
      if (!(rc = set_attr(g, c->node, a, k->ix))) {
        snprintf(a, sizeof a, "kiy[%u]", i);
        rc = set_attr(g, c->node, a, k->iy);
      }
    }
    if (!rc && k->ott == TAN_FIXED) {
      snprintf(a, sizeof a, "kox[%u]", i);
      if (!(rc = set_attr(g, c->node, a, k->ox))) {
        snprintf(a, sizeof a, "koy[%u]", i);
        rc = set_attr(g, c->node, a, k->oy);
      }
    }
    if (!rc && !k->tl) {
      snprintf(a, sizeof a, "ktl[%u]", i);
      rc = set_attr(g, c->node, a, 0);
    }
    if (!rc && !k->wl) {
      snprintf(a, sizeof a, "kwl[%u]", i);
      rc = set_attr(g, c->node, a, 0);
    }
    if (!rc && k->bd) {
      snprintf(a, sizeof a, "kbd[%u]", i);
      rc = set_attr(g, c->node, a, 1);
    }
  }
  if (!rc && get_attr(g, c->node, "wgt", 1) != (c->wgt ? 1 : 0)) rc = set_attr(g, c->node, "wgt", c->wgt);
  if (!rc && (int)get_attr(g, c->node, "pre", 0) != c->pre) rc = set_attr(g, c->node, "pre", c->pre);
  if (!rc && (int)get_attr(g, c->node, "pst", 0) != c->pst) rc = set_attr(g, c->node, "pst", c->pst);
  return rc;
}

/* Adds or replaces the key at time t (the same time within a tick's precision). */
static int curve_set_key(acurve *c, double t, double v, int itt, int ott, int bd, uint32_t *at) {
  for (uint32_t i = 0; i < c->n; i++) {
    if (fabs(c->k[i].t - t) <= 1e-9 * fmax(1.0, fabs(t))) {
      c->k[i].v = v;
      if (itt >= 0) c->k[i].itt = itt;
      if (ott >= 0) c->k[i].ott = ott;
      if (bd >= 0) c->k[i].bd = bd != 0;
      if (at) *at = i;
      return SINEW_OK;
    }
  }
  if (curve_reserve(c, c->n + 1)) return SINEW_ENOMEM;
  uint32_t pos = 0;
  while (pos < c->n && c->k[pos].t < t) pos++;
  memmove(&c->k[pos + 1], &c->k[pos], (c->n - pos) * sizeof *c->k);
  akey *k = &c->k[pos];
  memset(k, 0, sizeof *k);
  k->t = t, k->v = v;
  k->itt = itt >= 0 ? itt : c->tan;
  k->ott = ott >= 0 ? ott : c->tan;
  k->tl = k->wl = true;
  k->bd = bd > 0;
  c->n++;
  for (uint32_t i = 0; i < c->n; i++) c->k[i].order = (int32_t)i;
  if (at) *at = pos;
  return SINEW_OK;
}

/* Frame rate of the scene's time unit. */
static double scene_fps(sinew_graph_t *g) { return sinew_time_unit_fps(sinew_time_get_unit(g)); }

/* A key's time as the user writes it: frames for time curves, the input value for U curves. */
static double key_ui_time(sinew_graph_t *g, const acurve *c, double t) {
  return c->time_input ? t * scene_fps(g) : t;
}
static double ui_to_key_time(sinew_graph_t *g, const acurve *c, double t) {
  if (!c->time_input) return t;
  /* whole ticks (141,120,000 per second), as Maya keeps time */
  return nearbyint(t / scene_fps(g) * 141120000.0) / 141120000.0;
}

/* ---- failing ------------------------------------------------------------------------------ */

/* Fails the command after a change (the command's transaction takes the changes back) with the
 * graph's message. */
static int fail_graph(sinew_cmd_t *cmd, int rc, const char *what) {
  const char *msg = rc == SINEW_ENOMEM ? "out of memory" : sinew_graph_errmsg(sinew_cmd_graph(cmd));
  return sinew_cmd_error(cmd, rc, "%s%s%s", what ? what : "", what ? ": " : "", msg);
}

/* ---- targets --------------------------------------------------------------------------------- */

typedef struct plug_list {
  sinew_plug_t *v;
  uint32_t n, cap;
} plug_list;

static int plug_list_add(plug_list *l, const sinew_plug_t *p) {
  for (uint32_t i = 0; i < l->n; i++)
    if (sinew_plug_equal(&l->v[i], p)) return SINEW_OK;
  if (sinew__grow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v)) return SINEW_ENOMEM;
  l->v[l->n++] = *p;
  return SINEW_OK;
}

static bool numeric_compound(sinew_graph_t *g, const sinew_plug_t *p, sinew_attr_info_t *info) {
  return !sinew_node_attr_info(g, p->node, p->attr, info) && info->child_count > 0 &&
         !sinew_plug_is_array(g, p);
}

/* A plug, or the children of a numeric compound (translate -> tx ty tz). */
static int add_plug_expanded(sinew_cmd_t *cmd, plug_list *l, const sinew_plug_t *p) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  sinew_attr_info_t info;
  if (numeric_compound(g, p, &info)) {
    for (uint32_t i = 0; i < info.child_count; i++) {
      sinew_plug_t c;
      if (sinew_plug_child(g, p, info.children[i], &c)) continue;
      if (plug_list_add(l, &c)) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    }
    return SINEW_OK;
  }
  return plug_list_add(l, p) ? sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory") : SINEW_OK;
}

static char *plug_text(sinew_graph_t *g, const sinew_plug_t *p, char *buf, size_t size) {
  sinew_plug_format(g, p, false, buf, size);
  return buf;
}

/* The object arguments: the positional ones, else the selection. */
static size_t object_count(sinew_cmd_t *cmd) {
  size_t n = sinew_cmd_argc(cmd);
  return n ? n : sinew__session(cmd)->scene->nsel;
}

static int object_at(sinew_cmd_t *cmd, size_t i, const char **text, sinew_node_t *node, sinew_plug_t *plug,
                     bool *is_plug, char *buf, size_t size) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  *is_plug = false;
  if (sinew_cmd_argc(cmd)) {
    *text = sinew_cmd_arg_string(cmd, i);
    if (strchr(*text, '.')) {
      *is_plug = true;
      int rc = sinew__cmd_plug(cmd, *text, plug);
      if (rc) return rc;
      *node = plug->node;
      return SINEW_OK;
    }
    return sinew__cmd_node(cmd, *text, node);
  }
  *node = sinew__session(cmd)->scene->selection[i];
  if (!sinew_node_valid(g, *node)) return sinew_cmd_error(cmd, SINEW_ESTALE, "a selected node no longer exists");
  *text = sinew__node_label(g, *node, buf, size);
  return SINEW_OK;
}

/* Attributes named by -at on a node (each long or short name; compounds expanded). */
static int add_at_plugs(sinew_cmd_t *cmd, sinew_node_t node, const char *node_text, plug_list *l) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  for (size_t j = 0; j < sinew_cmd_flag_count(cmd, "attribute"); j++) {
    const sinew_value_t *v = sinew_cmd_flag_arg(cmd, "attribute", j, 0);
    const char *at = v ? sinew_value_string(v) : "";
    sinew_plug_t p;
    if (sinew_plug_parse_attr(g, node, at, &p))
      return sinew_cmd_error(cmd, SINEW_ENOTFOUND, "%s.%s: %s has no attribute '%s'", node_text, at, node_text, at);
    int rc = add_plug_expanded(cmd, l, &p);
    if (rc) return rc;
  }
  return SINEW_OK;
}

/* Whether a plug may be keyed: a numeric, writable, keyable attribute. */
static bool plug_keyable(sinew_session_t *s, sinew_graph_t *g, const sinew_plug_t *p) {
  sinew_attr_info_t info;
  if (sinew_node_attr_info(g, p->node, p->attr, &info)) return false;
  struct sinew__plug_state *st = sinew__plug_state(s->scene, p, false, NULL);
  if (st && st->keyable >= 0) return st->keyable == 1;
  return (info.flags & SINEW_ATTR_KEYABLE) != 0;
}

/* The keyable scalar attributes of a node (what setKeyframe keys when given only the node). */
static int add_keyable_plugs(sinew_cmd_t *cmd, sinew_node_t node, plug_list *l) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  uint32_t na = sinew_node_attr_count(g, node);
  for (uint32_t a = 0; a < na; a++) {
    sinew_attr_info_t info;
    if (sinew_node_attr_info(g, node, a, &info) || info.child_count || (info.flags & SINEW_ATTR_ARRAY) ||
        !sinew_attr_type_is_numeric(info.type) || !(info.flags & SINEW_ATTR_WRITABLE))
      continue;
    /* a child of an array of compounds has no single plug */
    bool in_array = false;
    for (uint32_t pa = info.parent; pa != UINT32_MAX;) {
      sinew_attr_info_t pi;
      if (sinew_node_attr_info(g, node, pa, &pi)) break;
      if (pi.flags & SINEW_ATTR_ARRAY) in_array = true;
      pa = pi.parent;
    }
    if (in_array) continue;
    sinew_plug_t p = sinew_plug_make(node, a, 0, NULL);
    if (!plug_keyable(s, g, &p)) continue;
    if (plug_list_add(l, &p)) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  }
  return SINEW_OK;
}

/* The curve feeding a plug directly (its .o), if any. */
static bool plug_curve(sinew_graph_t *g, const sinew_plug_t *p, sinew_node_t *curve) {
  sinew_plug_t src;
  if (!sinew_plug_source(g, p, &src) || !is_curve(g, src.node)) return false;
  *curve = src.node;
  return true;
}

typedef struct node_list {
  sinew_node_t *v;
  uint32_t n, cap;
} node_list;

static int node_list_add(node_list *l, sinew_node_t n) {
  for (uint32_t i = 0; i < l->n; i++)
    if (l->v[i].index == n.index && l->v[i].gen == n.gen) return SINEW_OK;
  if (sinew__grow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v)) return SINEW_ENOMEM;
  l->v[l->n++] = n;
  return SINEW_OK;
}

typedef struct conn_collect {
  sinew_graph_t *g;
  sinew_node_t node;
  node_list *out;
  int rc;
} conn_collect;

static bool collect_curve_conn(void *ud, const sinew_connection_t *c) {
  conn_collect *cc = ud;
  if (c->dst.node.index == cc->node.index && c->dst.node.gen == cc->node.gen && is_curve(cc->g, c->src.node))
    if (node_list_add(cc->out, c->src.node)) cc->rc = SINEW_ENOMEM;
  return !cc->rc;
}

/* The curves the command's objects name: a curve node itself, the curve feeding a plug, the
 * curves feeding the -at attributes of a node, or every curve feeding the node. */
static int collect_curves(sinew_cmd_t *cmd, node_list *out) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  size_t n = object_count(cmd);
  if (!n) return sinew_cmd_error(cmd, SINEW_EINVAL, "no object given and nothing is selected");
  for (size_t i = 0; i < n; i++) {
    const char *text;
    sinew_node_t node;
    sinew_plug_t plug;
    bool is_plug;
    char buf[512];
    int rc = object_at(cmd, i, &text, &node, &plug, &is_plug, buf, sizeof buf);
    if (rc) return rc;
    plug_list pl = {0};
    if (is_plug) {
      rc = add_plug_expanded(cmd, &pl, &plug);
    } else if (is_curve(g, node)) {
      if (node_list_add(out, node)) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
      continue;
    } else if (sinew_cmd_flag_count(cmd, "attribute")) {
      rc = add_at_plugs(cmd, node, text, &pl);
    } else {
      conn_collect cc = {g, node, out, SINEW_OK};
      sinew_foreach_connection(g, node, false, collect_curve_conn, &cc);
      if (cc.rc) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
      continue;
    }
    for (uint32_t j = 0; j < pl.n && !rc; j++) {
      sinew_node_t c;
      if (plug_curve(g, &pl.v[j], &c) && node_list_add(out, c)) rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    }
    sinew_free(pl.v);
    if (rc) return rc;
  }
  return SINEW_OK;
}

/* ---- key selection: -t / -f ranges and -index ---------------------------------------------- */

typedef struct keysel {
  double t0[MAX_RANGES], t1[MAX_RANGES]; /* -time ranges (frames) */
  uint32_t nt;
  double f0[MAX_RANGES], f1[MAX_RANGES]; /* -float ranges (U curve inputs) */
  uint32_t nf;
  int64_t i0[MAX_RANGES], i1[MAX_RANGES];
  uint32_t ni;
} keysel;

static bool parse_number(const char *s, size_t len, double *out) {
  char buf[64];
  while (len && isspace((unsigned char)*s)) s++, len--;
  while (len && isspace((unsigned char)s[len - 1])) len--;
  if (!len || len >= sizeof buf) return false;
  memcpy(buf, s, len);
  buf[len] = 0;
  char *end;
  double v = strtod(buf, &end);
  if (*end || !isfinite(v)) return false;
  *out = v;
  return true;
}

/* "a", "a:b", "a:", ":b" or ":" (everything). */
static bool parse_range(const char *text, double *a, double *b) {
  const char *colon = strchr(text, ':');
  if (!colon) {
    if (!parse_number(text, strlen(text), a)) return false;
    *b = *a;
    return true;
  }
  if (strchr(colon + 1, ':')) return false;
  *a = -INFINITY, *b = INFINITY;
  size_t la = (size_t)(colon - text), lb = strlen(colon + 1);
  bool blank_a = strspn(text, " \t") >= la, blank_b = strspn(colon + 1, " \t") >= lb;
  if (!blank_a && !parse_number(text, la, a)) return false;
  if (!blank_b && !parse_number(colon + 1, lb, b)) return false;
  return *a <= *b;
}

static int read_ranges(sinew_cmd_t *cmd, const char *flag, double *r0, double *r1, uint32_t *n, bool whole) {
  *n = 0;
  size_t cnt = sinew_cmd_flag_count(cmd, flag);
  if (cnt > MAX_RANGES) return sinew_cmd_error(cmd, SINEW_EINVAL, "-%s: at most %d ranges", flag, MAX_RANGES);
  for (size_t i = 0; i < cnt; i++) {
    const sinew_value_t *v = sinew_cmd_flag_arg(cmd, flag, i, 0);
    if (!v) continue; /* query mode without an argument */
    const char *text = sinew_value_string(v);
    double a, b;
    if (!parse_range(text, &a, &b) ||
        (whole && ((isfinite(a) && (a != floor(a) || a < 0 || a > INT32_MAX)) ||
                   (isfinite(b) && (b != floor(b) || b < 0 || b > INT32_MAX)))))
      return sinew_cmd_error(cmd, SINEW_EINVAL, "-%s '%s': not a %s or a range (5, 1:10, 5:, :20, :)", flag, text,
                             whole ? "key index" : flag[0] == 't' ? "time" : "value");
    r0[*n] = a, r1[*n] = b;
    (*n)++;
  }
  return SINEW_OK;
}

static int read_keysel(sinew_cmd_t *cmd, keysel *ks) {
  memset(ks, 0, sizeof *ks);
  int rc = read_ranges(cmd, "time", ks->t0, ks->t1, &ks->nt, false);
  if (!rc) rc = read_ranges(cmd, "float", ks->f0, ks->f1, &ks->nf, false);
  double a[MAX_RANGES], b[MAX_RANGES];
  if (!rc) rc = read_ranges(cmd, "index", a, b, &ks->ni, true);
  for (uint32_t i = 0; i < ks->ni; i++) { /* whole numbers in [0, 2^31) when finite (read_ranges) */
    ks->i0[i] = isfinite(a[i]) ? (int64_t)a[i] : 0;
    ks->i1[i] = isfinite(b[i]) ? (int64_t)b[i] : INT64_MAX;
  }
  return rc;
}

static bool in_ranges(double v, const double *r0, const double *r1, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    double eps = 1e-6 * fmax(1.0, fabs(v));
    if (v >= r0[i] - eps && v <= r1[i] + eps) return true;
  }
  return false;
}

/* Whether key i of curve c is selected. -time applies to time curves, -float to U curves; a
 * curve of the other kind selects nothing when only the other flag was given. */
static bool key_selected(sinew_graph_t *g, const acurve *c, uint32_t i, const keysel *ks) {
  double t = key_ui_time(g, c, c->k[i].t);
  if (c->time_input) {
    if (ks->nt && !in_ranges(t, ks->t0, ks->t1, ks->nt)) return false;
    if (!ks->nt && ks->nf) return false;
  } else {
    if (ks->nf && !in_ranges(t, ks->f0, ks->f1, ks->nf)) return false;
    if (!ks->nf && ks->nt) return false;
  }
  if (ks->ni) {
    bool hit = false;
    for (uint32_t r = 0; r < ks->ni && !hit; r++) hit = (int64_t)i >= ks->i0[r] && (int64_t)i <= ks->i1[r];
    if (!hit) return false;
  }
  return true;
}

/* -index names keys that exist: one past the end is an error, not an empty selection. */
static int check_indices(sinew_cmd_t *cmd, const acurve *c, const keysel *ks) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  for (uint32_t r = 0; r < ks->ni; r++) {
    int64_t top = ks->i1[r] == INT64_MAX ? ks->i0[r] : ks->i1[r];
    if (top >= (int64_t)c->n) {
      if (c->n)
        return sinew_cmd_error(cmd, SINEW_ERANGE, "-index %lld: %s has %u key%s (indices 0 to %u)", (long long)top,
                               sinew_node_name(g, c->node), c->n, c->n == 1 ? "" : "s", c->n - 1);
      return sinew_cmd_error(cmd, SINEW_ERANGE, "-index %lld: %s has no keys", (long long)top,
                             sinew_node_name(g, c->node));
    }
  }
  return SINEW_OK;
}

/* Reads every curve of the list (freed with curves_free). */
static int read_curves(sinew_cmd_t *cmd, const node_list *nodes, acurve **out) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  *out = nodes->n ? sinew_calloc(nodes->n, sizeof **out) : NULL;
  if (nodes->n && !*out) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  for (uint32_t i = 0; i < nodes->n; i++) {
    int rc = curve_read(g, nodes->v[i], &(*out)[i]);
    if (rc) {
      for (uint32_t j = 0; j <= i; j++) curve_free(&(*out)[j]);
      sinew_free(*out);
      *out = NULL;
      return sinew_cmd_error(cmd, rc, "%s: cannot read its keys", sinew_node_name(g, nodes->v[i]));
    }
  }
  return SINEW_OK;
}

static void curves_free(acurve *c, uint32_t n) {
  for (uint32_t i = 0; c && i < n; i++) curve_free(&c[i]);
  sinew_free(c);
}

/* ---- creating curves --------------------------------------------------------------------- */

static const char *curve_type_for(sinew_attr_type_t t, bool time_input) {
  switch (t) {
  case SINEW_ATTR_DISTANCE: return time_input ? "animCurveTL" : "animCurveUL";
  case SINEW_ATTR_ANGLE: return time_input ? "animCurveTA" : "animCurveUA";
  case SINEW_ATTR_TIME: return time_input ? "animCurveTT" : "animCurveUT";
  default: return time_input ? "animCurveTU" : "animCurveUU";
  }
}

/* Maya's name for a curve driving node.attr: "pCube1_translateX" (namespace and path marks
 * replaced, an element index appended). */
static void curve_name_for(sinew_graph_t *g, const sinew_plug_t *p, char *buf, size_t size) {
  sinew_attr_info_t info;
  const char *an = sinew_node_attr_info(g, p->node, p->attr, &info) ? "attr" : info.name;
  int n = snprintf(buf, size, "%s_%s", sinew_node_name(g, p->node), an);
  for (uint32_t i = 0; i < p->nidx && n > 0 && (size_t)n < size; i++)
    n += snprintf(buf + n, size - (size_t)n, "_%d", (int)p->idx[i]);
  for (char *c = buf; *c; c++)
    if (!isalnum((unsigned char)*c) && *c != '_') *c = '_';
  if (!isalpha((unsigned char)buf[0]) && buf[0] != '_') buf[0] = '_';
}

static sinew_attr_type_t plug_type(sinew_graph_t *g, const sinew_plug_t *p) {
  sinew_attr_info_t info;
  return sinew_node_attr_info(g, p->node, p->attr, &info) ? SINEW_ATTR_DOUBLE : info.type;
}

/* A new curve for plug p (created non-weighted, as Maya's setKeyframe makes them), connected to
 * it when asked. */
static int new_curve_for(sinew_cmd_t *cmd, const sinew_plug_t *p, bool time_input, bool connect,
                         sinew_node_t *out) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  char name[600];
  curve_name_for(g, p, name, sizeof name);
  int rc = sinew_node_create(g, curve_type_for(plug_type(g, p), time_input), name, out);
  if (!rc) rc = set_attr(g, *out, "wgt", 0);
  if (!rc && connect) {
    sinew_plug_t o;
    if (!(rc = sinew_plug_parse_attr(g, *out, "o", &o)))
      rc = sinew_connect(g, &o, p, 0, NULL);
  }
  return rc;
}

/* Connects a curve made by this command to the plug it keys. */
static int connect_new_curve(sinew_graph_t *g, sinew_node_t curve, const sinew_plug_t *p,
                             uint32_t flags) {
  sinew_plug_t o;
  int rc = sinew_plug_parse_attr(g, curve, "o", &o);
  return rc ? rc : sinew_connect(g, &o, p, flags, NULL);
}

/* Checks that a plug can take keys: it exists as a number, is writable, keyable and not locked.
 * The source feeding it is the caller's business. */
static int check_key_plug(sinew_cmd_t *cmd, const sinew_plug_t *p) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  char pt[600];
  sinew_attr_info_t info;
  plug_text(g, p, pt, sizeof pt);
  if (sinew_node_attr_info(g, p->node, p->attr, &info) || !sinew_attr_type_is_numeric(info.type) ||
      sinew_plug_is_array(g, p))
    return sinew_cmd_error(cmd, SINEW_ETYPE, "%s: not a number that can be keyed", pt);
  if (!(info.flags & SINEW_ATTR_WRITABLE)) return sinew_cmd_error(cmd, SINEW_EREADONLY, "%s: an output cannot be keyed", pt);
  if (!plug_keyable(s, g, p)) return sinew_cmd_error(cmd, SINEW_EINVAL, "%s: the attribute is not keyable", pt);
  if (sinew_plug_locked(g, p)) return sinew_cmd_error(cmd, SINEW_ELOCKED, "%s: the attribute is locked", pt);
  return SINEW_OK;
}

/* ---- setKeyframe -------------------------------------------------------------------------- */

static const sinew_cmd_flag_t setkey_flags[] = {
    {"attribute", "at", "s", SINEW_CMD_MULTI}, {"time", "t", "s", SINEW_CMD_MULTI},
    {"value", "v", "f", 0},                    {"inTangentType", "itt", "s", 0},
    {"outTangentType", "ott", "s", 0},         {"breakdown", "bd", "b", 0},
    {"insert", "i", "", 0},                    {"controlPoints", "cp", "b", 0},
    {"shape", "s", "b", 0}};

/* Times given with -t (frames), or the current frame. */
static int key_times(sinew_cmd_t *cmd, double *frames, uint32_t *n) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  size_t cnt = sinew_cmd_flag_count(cmd, "time");
  *n = 0;
  if (cnt > MAX_RANGES) return sinew_cmd_error(cmd, SINEW_EINVAL, "-time: at most %d times", MAX_RANGES);
  for (size_t i = 0; i < cnt; i++) {
    const sinew_value_t *v = sinew_cmd_flag_arg(cmd, "time", i, 0);
    const char *text = v ? sinew_value_string(v) : "";
    double a, b;
    if (!parse_range(text, &a, &b) || a != b)
      return sinew_cmd_error(cmd, SINEW_EINVAL, "-time '%s': not a time (a frame number)", text);
    frames[(*n)++] = a;
  }
  if (!*n) {
    double f = 0;
    int rc = sinew_time_get_frame(g, &f);
    if (rc) return sinew__graph_error(cmd, rc);
    frames[(*n)++] = f;
  }
  return SINEW_OK;
}

/* The value plug p has at a frame (internal units): its value now at the current frame, else
 * the value the curve feeding it has then (the time is moved and put back). */
static int value_at(sinew_graph_t *g, const sinew_plug_t *p, bool has_curve, double frame, double *out) {
  double now = 0;
  int rc = sinew_time_get_frame(g, &now);
  if (rc) return rc;
  if (!has_curve || frame == now) return sinew_get_double(g, p, out);
  if ((rc = sinew_time_set_frame(g, frame))) return rc;
  rc = sinew_get_double(g, p, out);
  sinew_time_set_frame(g, now);
  return rc;
}

/* The plugs a key command works on: the plugs named, the -at attributes of the nodes named, or
 * the keyable attributes of the nodes named (or selected). */
static int collect_key_plugs(sinew_cmd_t *cmd, plug_list *pl) {
  size_t n = object_count(cmd);
  if (!n) return sinew_cmd_error(cmd, SINEW_EINVAL, "no object given and nothing is selected");
  for (size_t i = 0; i < n; i++) {
    const char *text;
    sinew_node_t node;
    sinew_plug_t plug;
    bool is_plug;
    char buf[512];
    int rc = object_at(cmd, i, &text, &node, &plug, &is_plug, buf, sizeof buf);
    if (!rc) {
      if (is_plug) rc = add_plug_expanded(cmd, pl, &plug);
      else if (sinew_cmd_flag_count(cmd, "attribute")) rc = add_at_plugs(cmd, node, text, pl);
      else rc = add_keyable_plugs(cmd, node, pl);
    }
    if (rc) return rc;
  }
  return SINEW_OK;
}

/* What feeds a plug to be keyed by time: nothing (a curve will be made) or a time curve with
 * its input free; anything else is refused. */
static int keyed_source(sinew_cmd_t *cmd, const sinew_plug_t *p, sinew_node_t *curve, bool *has) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  sinew_plug_t src;
  *has = false;
  if (!sinew_plug_source(g, p, &src)) return SINEW_OK;
  char a[600], b[600];
  plug_text(g, p, a, sizeof a);
  plug_text(g, &src, b, sizeof b);
  if (!is_curve(g, src.node))
    return sinew_cmd_error(cmd, SINEW_ECONNECTED, "%s: fed by %s; only an attribute that is free or fed by an animation curve can be keyed", a, b);
  const char *tn = sinew_node_type_name(sinew_node_type(g, src.node));
  if (tn[9] != 'T')
    return sinew_cmd_error(cmd, SINEW_ECONNECTED, "%s: fed by the set-driven key curve %s; use setDrivenKeyframe", a,
                           sinew_node_name(g, src.node));
  *curve = src.node;
  *has = true;
  return SINEW_OK;
}

static int cmd_set_keyframe(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  int itt, ott, rc;
  if ((rc = tangent_flag(cmd, "inTangentType", &itt)) || (rc = tangent_flag(cmd, "outTangentType", &ott))) return rc;
  double frames[MAX_RANGES];
  uint32_t nt;
  if ((rc = key_times(cmd, frames, &nt))) return rc;
  bool insert = sinew_cmd_flag_count(cmd, "insert") > 0, has_v = sinew_cmd_flag_count(cmd, "value") > 0;
  int bd = sinew_cmd_flag_count(cmd, "breakdown") ? sinew_cmd_flag_bool(cmd, "breakdown", false) : -1;
  plug_list pl = {0};
  if ((rc = collect_key_plugs(cmd, &pl))) goto out;
  if (!pl.n) {
    rc = sinew_cmd_error(cmd, SINEW_EINVAL, "nothing to key: no keyable attribute");
    goto out;
  }
  /* check everything first */
  sinew_node_t *curves = sinew_calloc(pl.n, sizeof *curves);
  bool *has = sinew_calloc(pl.n, sizeof *has);
  double *vals = sinew_calloc((size_t)pl.n * nt, sizeof *vals);
  if (!curves || !has || !vals) {
    rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    goto out2;
  }
  for (uint32_t i = 0; i < pl.n; i++) {
    if ((rc = check_key_plug(cmd, &pl.v[i])) || (rc = keyed_source(cmd, &pl.v[i], &curves[i], &has[i]))) goto out2;
    if (insert && !has[i]) {
      char a[600];
      rc = sinew_cmd_error(cmd, SINEW_EINVAL, "%s: -insert needs a curve to insert into", plug_text(g, &pl.v[i], a, sizeof a));
      goto out2;
    }
    for (uint32_t t = 0; t < nt; t++) {
      if (has_v && !insert) {
        vals[(size_t)i * nt + t] = sinew__unit_to_internal(g, plug_type(g, &pl.v[i]), sinew_cmd_flag_double(cmd, "value", 0, 0));
      } else if ((rc = value_at(g, &pl.v[i], has[i], frames[t], &vals[(size_t)i * nt + t]))) {
        rc = sinew__graph_error(cmd, rc);
        goto out2;
      }
    }
  }
  /* then change: keys first, connections of new curves last */
  if ((rc = sinew_cmd_result_int(cmd, (int64_t)pl.n * nt))) goto out2;
  for (uint32_t i = 0; i < pl.n && !rc; i++) {
    acurve c = {0};
    if (!has[i]) rc = new_curve_for(cmd, &pl.v[i], true, false, &curves[i]);
    if (!rc) rc = curve_read(g, curves[i], &c);
    for (uint32_t t = 0; t < nt && !rc; t++)
      rc = curve_set_key(&c, ui_to_key_time(g, &c, frames[t]), vals[(size_t)i * nt + t], itt, ott, bd, NULL);
    if (!rc) rc = curve_write(g, &c);
    curve_free(&c);
  }
  for (uint32_t i = 0; i < pl.n && !rc; i++)
    if (!has[i]) rc = connect_new_curve(g, curves[i], &pl.v[i], 0);
  if (rc) {
    rc = fail_graph(cmd, rc, NULL);
    goto out2;
  }
out2:
  sinew_free(curves);
  sinew_free(has);
  sinew_free(vals);
out:
  sinew_free(pl.v);
  return rc;
}

/* ---- keyframe ------------------------------------------------------------------------------- */

static const sinew_cmd_flag_t keyframe_flags[] = {
    {"query", "q", "", SINEW_CMD_QUERY},       {"edit", "e", "", SINEW_CMD_EDIT},
    {"attribute", "at", "s", SINEW_CMD_MULTI}, {"time", "t", "s", SINEW_CMD_MULTI | SINEW_CMD_QUERY_ARGS},
    {"float", "f", "s", SINEW_CMD_MULTI | SINEW_CMD_QUERY_ARGS},
    {"index", "in", "s", SINEW_CMD_MULTI | SINEW_CMD_QUERY_ARGS},
    {"valueChange", "vc", "f", 0},            {"timeChange", "tc", "f", 0},
    {"floatChange", "fc", "f", 0},            {"keyframeCount", "kc", "", 0},
    {"indexValue", "iv", "", 0},              {"name", "n", "", 0},
    {"absolute", "a", "", 0},                 {"relative", "r", "", 0},
    {"option", "o", "s", 0},                  {"includeUpperBound", "iub", "b", 0}};

static int cmd_keyframe(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  keysel ks;
  int rc = read_keysel(cmd, &ks);
  if (rc) return rc;
  node_list nl = {0};
  acurve *cs = NULL;
  if ((rc = collect_curves(cmd, &nl)) || (rc = read_curves(cmd, &nl, &cs))) goto out;
  for (uint32_t i = 0; i < nl.n && !rc; i++) rc = check_indices(cmd, &cs[i], &ks);
  if (rc) goto out;
  bool q_vc = sinew_cmd_flag_count(cmd, "valueChange") > 0, q_tc = sinew_cmd_flag_count(cmd, "timeChange") > 0;
  bool q_fc = sinew_cmd_flag_count(cmd, "floatChange") > 0;
  if (sinew_cmd_query(cmd)) {
    bool kc = sinew_cmd_flag_count(cmd, "keyframeCount") > 0, iv = sinew_cmd_flag_count(cmd, "indexValue") > 0;
    bool nm = sinew_cmd_flag_count(cmd, "name") > 0;
    if (!kc && !iv && !nm && !q_vc && !q_tc && !q_fc) {
      rc = sinew_cmd_error(cmd, SINEW_EINVAL, "-query: give -valueChange, -timeChange, -floatChange, -keyframeCount, -indexValue or -name");
      goto out;
    }
    if (kc) {
      int64_t total = 0;
      for (uint32_t i = 0; i < nl.n; i++)
        for (uint32_t k = 0; k < cs[i].n; k++) total += key_selected(g, &cs[i], k, &ks);
      rc = sinew_cmd_result_int(cmd, total);
      goto out;
    }
    if (nm) {
      rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY);
      for (uint32_t i = 0; i < nl.n && !rc; i++) rc = sinew_cmd_result_append_string(cmd, sinew_node_name(g, nl.v[i]));
      goto out;
    }
    rc = iv ? sinew_cmd_result_empty_array(cmd, SINEW_VALUE_INT_ARRAY)
            : sinew_cmd_result_empty_array(cmd, SINEW_VALUE_FLOAT_ARRAY);
    for (uint32_t i = 0; i < nl.n && !rc; i++) {
      const acurve *c = &cs[i];
      for (uint32_t k = 0; k < c->n && !rc; k++) {
        if (!key_selected(g, c, k, &ks)) continue;
        if (iv) {
          rc = sinew_cmd_result_append_int(cmd, k);
          continue;
        }
        if ((q_tc || q_fc) && !rc) rc = sinew_cmd_result_append_double(cmd, key_ui_time(g, c, c->k[k].t));
        if (q_vc && !rc) rc = sinew_cmd_result_append_double(cmd, sinew__unit_to_ui(g, c->out_type, c->k[k].v));
      }
    }
    goto out;
  }
  /* edit */
  if (!q_vc && !q_tc && !q_fc) {
    rc = sinew_cmd_error(cmd, SINEW_EINVAL, "give -query, or -valueChange / -timeChange / -floatChange to edit keys");
    goto out;
  }
  const char *opt = sinew_cmd_flag_string(cmd, "option", "over");
  if (strcmp(opt, "over")) {
    rc = sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "-option '%s': only 'over' is supported", opt);
    goto out;
  }
  bool rel = sinew_cmd_flag_count(cmd, "relative") > 0;
  if (rel && sinew_cmd_flag_count(cmd, "absolute")) {
    rc = sinew_cmd_error(cmd, SINEW_EINVAL, "-absolute and -relative do not go together");
    goto out;
  }
  double vc = sinew_cmd_flag_double(cmd, "valueChange", 0, 0);
  double tc = q_tc ? sinew_cmd_flag_double(cmd, "timeChange", 0, 0) : sinew_cmd_flag_double(cmd, "floatChange", 0, 0);
  bool move = q_tc || q_fc;
  if (move && !rel) {
    for (uint32_t i = 0; i < nl.n; i++) {
      uint32_t sel = 0;
      for (uint32_t k = 0; k < cs[i].n; k++) sel += key_selected(g, &cs[i], k, &ks);
      if (sel > 1) {
        rc = sinew_cmd_error(cmd, SINEW_EINVAL, "-%s %g: one absolute time for %u keys of %s; select one key or use -relative",
                             q_tc ? "timeChange" : "floatChange", tc, sel, sinew_node_name(g, nl.v[i]));
        goto out;
      }
    }
  }
  int64_t changed = 0;
  for (uint32_t i = 0; i < nl.n && !rc; i++) {
    acurve *c = &cs[i];
    if (move && (c->time_input ? !q_tc : !q_fc)) continue; /* -tc moves time curves, -fc U curves */
    acurve before = {0};
    if ((rc = curve_copy(c, &before))) break;
    uint32_t hits = 0;
    for (uint32_t k = 0; k < c->n; k++) {
      if (!key_selected(g, &before, k, &ks)) continue;
      akey *key = &c->k[k];
      hits++;
      if (q_vc) {
        double v = sinew__unit_to_internal(g, c->out_type, vc);
        key->v = rel ? key->v + v : v;
      }
      if (move) {
        double t = rel ? key_ui_time(g, c, key->t) + tc : tc;
        key->t = ui_to_key_time(g, c, t);
        key->order = INT32_MAX; /* a moved key wins over one already at its new time */
      }
    }
    changed += hits != 0; /* Maya returns the number of curves changed */
    if (hits) {
      curve_normalise(c);
      rc = curve_write(g, c);
    }
    curve_free(&before);
  }
  if (rc) {
    rc = fail_graph(cmd, rc, NULL);
    goto out;
  }
  rc = sinew_cmd_result_int(cmd, changed);
out:
  curves_free(cs, nl.n);
  sinew_free(nl.v);
  return rc;
}

/* ---- the clipboard: copyKey, cutKey, pasteKey ----------------------------------------------- */

struct sinew__anim_clipboard {
  acurve *curves;
  uint32_t n;
};

void sinew__anim_clipboard_free(sinew_session_t *s) {
  if (!s->clipboard) return;
  curves_free(s->clipboard->curves, s->clipboard->n);
  sinew_free(s->clipboard);
  s->clipboard = NULL;
}

/* The selected keys of each curve, as a clipboard (times kept). */
static int make_clipboard(sinew_graph_t *g, const acurve *cs, uint32_t n, const keysel *ks,
                          struct sinew__anim_clipboard **out) {
  struct sinew__anim_clipboard *cb = sinew_calloc(1, sizeof *cb);
  if (!cb || (n && !(cb->curves = sinew_calloc(n, sizeof *cb->curves)))) {
    sinew_free(cb);
    return SINEW_ENOMEM;
  }
  for (uint32_t i = 0; i < n; i++) {
    acurve *c = &cb->curves[cb->n];
    *c = cs[i];
    c->k = NULL, c->n = c->cap = 0;
    for (uint32_t k = 0; k < cs[i].n; k++) {
      if (!key_selected(g, &cs[i], k, ks)) continue;
      if (curve_reserve(c, c->n + 1)) {
        curves_free(cb->curves, cb->n + 1);
        sinew_free(cb);
        return SINEW_ENOMEM;
      }
      c->k[c->n++] = cs[i].k[k];
    }
    if (c->n) cb->n++;
    else curve_free(c);
  }
  *out = cb;
  return SINEW_OK;
}

static void set_clipboard(sinew_session_t *s, struct sinew__anim_clipboard *cb) {
  sinew__anim_clipboard_free(s);
  s->clipboard = cb;
}

static const sinew_cmd_flag_t copykey_flags[] = {
    {"attribute", "at", "s", SINEW_CMD_MULTI}, {"time", "t", "s", SINEW_CMD_MULTI},
    {"float", "f", "s", SINEW_CMD_MULTI},      {"index", "in", "s", SINEW_CMD_MULTI},
    {"option", "o", "s", 0},                   {"clear", "cl", "", 0}};

static int cmd_copy_key(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  keysel ks;
  int rc = read_keysel(cmd, &ks);
  if (rc) return rc;
  const char *opt = sinew_cmd_flag_string(cmd, "option", "keys");
  if (strcmp(opt, "keys")) return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "-option '%s': only 'keys' is supported", opt);
  node_list nl = {0};
  acurve *cs = NULL;
  struct sinew__anim_clipboard *cb = NULL;
  if ((rc = collect_curves(cmd, &nl)) || (rc = read_curves(cmd, &nl, &cs))) goto out;
  for (uint32_t i = 0; i < nl.n && !rc; i++) rc = check_indices(cmd, &cs[i], &ks);
  if (rc) goto out;
  if ((rc = make_clipboard(g, cs, nl.n, &ks, &cb))) {
    rc = sinew_cmd_error(cmd, rc, "out of memory");
    goto out;
  }
  rc = sinew_cmd_result_int(cmd, cb->n);
  if (rc) {
    curves_free(cb->curves, cb->n);
    sinew_free(cb);
    goto out;
  }
  set_clipboard(sinew__session(cmd), cb);
out:
  curves_free(cs, nl.n);
  sinew_free(nl.v);
  return rc;
}

static int cmd_cut_key(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  keysel ks;
  int rc = read_keysel(cmd, &ks);
  if (rc) return rc;
  const char *opt = sinew_cmd_flag_string(cmd, "option", "keys");
  if (strcmp(opt, "keys")) return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "-option '%s': only 'keys' is supported", opt);
  bool clear = sinew_cmd_flag_count(cmd, "clear") > 0;
  node_list nl = {0}, gone = {0};
  acurve *cs = NULL;
  struct sinew__anim_clipboard *cb = NULL;
  if ((rc = collect_curves(cmd, &nl)) || (rc = read_curves(cmd, &nl, &cs))) goto out;
  for (uint32_t i = 0; i < nl.n && !rc; i++) rc = check_indices(cmd, &cs[i], &ks);
  if (rc) goto out;
  for (uint32_t i = 0; i < nl.n; i++)
    if (sinew_node_locked(g, nl.v[i])) {
      rc = sinew_cmd_error(cmd, SINEW_ELOCKED, "%s: the curve is locked", sinew_node_name(g, nl.v[i]));
      goto out;
    }
  if (!clear && (rc = make_clipboard(g, cs, nl.n, &ks, &cb))) {
    rc = sinew_cmd_error(cmd, rc, "out of memory");
    goto out;
  }
  int64_t changed = 0;
  for (uint32_t i = 0; i < nl.n && !rc; i++) {
    acurve *c = &cs[i];
    acurve before = {0};
    if ((rc = curve_copy(c, &before))) break;
    uint32_t w = 0;
    for (uint32_t k = 0; k < c->n; k++)
      if (!key_selected(g, &before, k, &ks)) c->k[w++] = c->k[k];
    if (w != c->n) {
      changed++;
      c->n = w;
      /* a curve left without keys is deleted, as Maya does; the attribute keeps its value */
      if (!w) rc = node_list_add(&gone, c->node);
      else rc = curve_write(g, c);
    }
    curve_free(&before);
  }
  if (!rc && gone.n) rc = sinew_node_delete_many(g, gone.v, gone.n);
  if (rc) {
    if (cb) {
      curves_free(cb->curves, cb->n);
      sinew_free(cb);
    }
    rc = fail_graph(cmd, rc, NULL);
    goto out;
  }
  if (cb) set_clipboard(sinew__session(cmd), cb);
  rc = sinew_cmd_result_int(cmd, changed);
out:
  curves_free(cs, nl.n);
  sinew_free(nl.v);
  sinew_free(gone.v);
  return rc;
}

static const sinew_cmd_flag_t pastekey_flags[] = {
    {"attribute", "at", "s", SINEW_CMD_MULTI}, {"time", "t", "s", 0},
    {"option", "o", "s", 0},                   {"timeOffset", "to", "f", 0},
    {"valueOffset", "vo", "f", 0}};

static int cmd_paste_key(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  struct sinew__anim_clipboard *cb = s->clipboard;
  if (!cb || !cb->n) return sinew_cmd_error(cmd, SINEW_EINVAL, "the clipboard is empty (copyKey or cutKey first)");
  const char *opt = sinew_cmd_flag_string(cmd, "option", "merge");
  bool replace = !strcmp(opt, "replace");
  if (!replace && strcmp(opt, "merge") && strcmp(opt, "insert"))
    return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "-option '%s': only 'merge', 'insert' and 'replace' are supported", opt);
  double at = NAN;
  if (sinew_cmd_flag_count(cmd, "time")) {
    const char *text = sinew_cmd_flag_string(cmd, "time", "");
    double b;
    if (!parse_range(text, &at, &b) || at != b)
      return sinew_cmd_error(cmd, SINEW_EINVAL, "-time '%s': not a time (a frame number)", text);
  }
  double toff = sinew_cmd_flag_double(cmd, "timeOffset", 0, 0), voff = sinew_cmd_flag_double(cmd, "valueOffset", 0, 0);
  plug_list pl = {0};
  int rc = collect_key_plugs(cmd, &pl);
  if (!rc && !pl.n) rc = sinew_cmd_error(cmd, SINEW_EINVAL, "nothing to paste onto");
  sinew_node_t *curves = rc ? NULL : sinew_calloc(pl.n, sizeof *curves);
  bool *has = rc ? NULL : sinew_calloc(pl.n, sizeof *has);
  if (!rc && (!curves || !has)) rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  for (uint32_t i = 0; i < pl.n && !rc; i++) {
    if ((rc = check_key_plug(cmd, &pl.v[i])) || (rc = keyed_source(cmd, &pl.v[i], &curves[i], &has[i]))) break;
    const acurve *src = &cb->curves[i % cb->n];
    if (!src->time_input) {
      rc = sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "pasting keys of set-driven curves is not supported");
      break;
    }
  }
  bool changing = !rc; /* from here a failure is the graph's */
  for (uint32_t i = 0; i < pl.n && !rc; i++) {
    const acurve *src = &cb->curves[i % cb->n];
    acurve c = {0};
    if (!has[i]) rc = new_curve_for(cmd, &pl.v[i], true, false, &curves[i]);
    if (!rc) rc = curve_read(g, curves[i], &c);
    double first = key_ui_time(g, src, src->k[0].t), last = key_ui_time(g, src, src->k[src->n - 1].t);
    double shift = (isnan(at) ? 0 : at - first) + toff;
    if (!rc && replace) {
      uint32_t w = 0;
      for (uint32_t k = 0; k < c.n; k++) {
        double t = key_ui_time(g, &c, c.k[k].t);
        if (t < first + shift - 1e-9 || t > last + shift + 1e-9) c.k[w++] = c.k[k];
      }
      c.n = w;
    }
    for (uint32_t k = 0; k < src->n && !rc; k++) {
      uint32_t pos;
      const akey *sk = &src->k[k];
      double v = sk->v + sinew__unit_to_internal(g, c.out_type, voff);
      rc = curve_set_key(&c, ui_to_key_time(g, &c, key_ui_time(g, src, sk->t) + shift), v, sk->itt, sk->ott, sk->bd, &pos);
      if (!rc) {
        c.k[pos].ix = sk->ix, c.k[pos].iy = sk->iy, c.k[pos].ox = sk->ox, c.k[pos].oy = sk->oy;
        c.k[pos].tl = sk->tl, c.k[pos].wl = sk->wl;
      }
    }
    if (!rc) rc = curve_write(g, &c);
    curve_free(&c);
  }
  for (uint32_t i = 0; i < pl.n && !rc; i++)
    if (!has[i]) rc = connect_new_curve(g, curves[i], &pl.v[i], 0);
  if (rc && changing) rc = fail_graph(cmd, rc, NULL);
  else if (!rc) rc = sinew_cmd_result_int(cmd, pl.n);
  sinew_free(curves);
  sinew_free(has);
  sinew_free(pl.v);
  return rc;
}

/* ---- keyTangent ------------------------------------------------------------------------------ */

static const sinew_cmd_flag_t tangent_flags[] = {
    {"query", "q", "", SINEW_CMD_QUERY},       {"edit", "e", "", SINEW_CMD_EDIT},
    {"attribute", "at", "s", SINEW_CMD_MULTI}, {"time", "t", "s", SINEW_CMD_MULTI | SINEW_CMD_QUERY_ARGS},
    {"float", "f", "s", SINEW_CMD_MULTI | SINEW_CMD_QUERY_ARGS},
    {"index", "in", "s", SINEW_CMD_MULTI | SINEW_CMD_QUERY_ARGS},
    {"inTangentType", "itt", "s", 0},         {"outTangentType", "ott", "s", 0},
    {"inAngle", "ia", "f", 0},                {"outAngle", "oa", "f", 0},
    {"inWeight", "iw", "f", 0},               {"outWeight", "ow", "f", 0},
    {"ix", "ix", "f", 0},                     {"iy", "iy", "f", 0},
    {"ox", "ox", "f", 0},                     {"oy", "oy", "f", 0},
    {"lock", "l", "b", 0},                    {"weightLock", "wl", "b", 0},
    {"weightedTangents", "wt", "b", 0},       {"absolute", "a", "", 0},
    {"relative", "r", "", 0}};

/* The tangents a curve's evaluation uses, per key of the list (same order): {in x, in y, out x,
 * out y}, x in seconds or input units, y internal. */
static int used_tangents(sinew_graph_t *g, const acurve *c, double (**out)[5]) {
  *out = NULL;
  if (!c->n) return SINEW_OK;
  double(*t)[5] = sinew_malloc(c->n * sizeof *t);
  if (!t) return SINEW_ENOMEM;
  size_t n = 0;
  int rc = sinew_anim_curve_tangents(g, c->node, t, c->n, &n);
  if (!rc && n != c->n) rc = SINEW_EINVAL;
  if (rc) {
    sinew_free(t);
    return rc;
  }
  *out = t;
  return SINEW_OK;
}

/* Angle (degrees) and weight of a tangent: y in the output's UI unit against x in seconds (time
 * curves) or input units. */
static void tangent_polar(sinew_graph_t *g, const acurve *c, double x, double y, double *angle, double *weight) {
  double yu = sinew__unit_to_ui(g, c->out_type, y);
  *angle = atan2(yu, x) * 180.0 / PI;
  *weight = hypot(x, yu);
}

static void tangent_from_polar(sinew_graph_t *g, const acurve *c, double angle, double weight, double *x, double *y) {
  double a = angle * PI / 180.0;
  *x = weight * cos(a);
  *y = sinew__unit_to_internal(g, c->out_type, weight * sin(a));
}

static int cmd_key_tangent(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  keysel ks;
  int rc = read_keysel(cmd, &ks);
  if (rc) return rc;
  int itt = -1, ott = -1;
  if (!sinew_cmd_query(cmd) &&
      ((rc = tangent_flag(cmd, "inTangentType", &itt)) || (rc = tangent_flag(cmd, "outTangentType", &ott))))
    return rc;
  static const char *const qflags[] = {"inTangentType", "outTangentType", "inAngle", "outAngle", "inWeight",
                                       "outWeight", "lock", "weightLock", "weightedTangents", "ix", "iy", "ox", "oy"};
  node_list nl = {0};
  acurve *cs = NULL;
  double(*tan)[5] = NULL;
  if ((rc = collect_curves(cmd, &nl)) || (rc = read_curves(cmd, &nl, &cs))) goto out;
  for (uint32_t i = 0; i < nl.n && !rc; i++) rc = check_indices(cmd, &cs[i], &ks);
  if (rc) goto out;
  if (sinew_cmd_query(cmd)) {
    int which = -1;
    for (int f = 0; f < (int)COUNT(qflags); f++)
      if (sinew_cmd_flag_count(cmd, qflags[f])) {
        if (which >= 0) {
          rc = sinew_cmd_error(cmd, SINEW_EINVAL, "-query takes one flag at a time (-%s and -%s)", qflags[which], qflags[f]);
          goto out;
        }
        which = f;
      }
    if (which < 0) {
      rc = sinew_cmd_error(cmd, SINEW_EINVAL, "-query: give -itt, -ott, -ia, -oa, -iw, -ow, -ix, -iy, -ox, -oy, -l, -wl or -wt");
      goto out;
    }
    bool strings = which <= 1, bools = which >= 6 && which <= 8;
    rc = sinew_cmd_result_empty_array(cmd, strings ? SINEW_VALUE_STRING_ARRAY : bools ? SINEW_VALUE_INT_ARRAY : SINEW_VALUE_FLOAT_ARRAY);
    for (uint32_t i = 0; i < nl.n && !rc; i++) {
      const acurve *c = &cs[i];
      if (which == 8) {
        rc = sinew_cmd_result_append_int(cmd, c->wgt);
        continue;
      }
      if (((which >= 2 && which <= 5) || which >= 9) && (rc = used_tangents(g, c, &tan))) {
        rc = rc == SINEW_ENOMEM ? sinew_cmd_error(cmd, rc, "out of memory")
                                : sinew_cmd_error(cmd, rc, "%s: its keys do not match the keys it evaluates (two keys at nearly the same time?)",
                                                  sinew_node_name(g, c->node));
        goto out;
      }
      for (uint32_t k = 0; k < c->n && !rc; k++) {
        if (!key_selected(g, c, k, &ks)) continue;
        const akey *key = &c->k[k];
        double ang, w;
        switch (which) {
        case 0: rc = sinew_cmd_result_append_string(cmd, tangent_name(key->itt)); break;
        case 1: rc = sinew_cmd_result_append_string(cmd, tangent_name(key->ott)); break;
        case 2: case 4:
          tangent_polar(g, c, tan[k][1], tan[k][2], &ang, &w);
          rc = sinew_cmd_result_append_double(cmd, which == 2 ? ang : w);
          break;
        case 3: case 5:
          tangent_polar(g, c, tan[k][3], tan[k][4], &ang, &w);
          rc = sinew_cmd_result_append_double(cmd, which == 3 ? ang : w);
          break;
        case 6: rc = sinew_cmd_result_append_int(cmd, key->tl); break;
        case 7: rc = sinew_cmd_result_append_int(cmd, key->wl); break;
        default: { /* 9..12: ix, iy, ox, oy */
          int side = which <= 10 ? 1 : 3;
          tangent_polar(g, c, tan[k][side], tan[k][side + 1], &ang, &w);
          ang *= PI / 180.0;
          rc = sinew_cmd_result_append_double(cmd, (which - 9) % 2 ? w * sin(ang) : w * cos(ang));
          break;
        }
        }
      }
      sinew_free(tan);
      tan = NULL;
    }
    goto out;
  }
  bool any = false;
  for (size_t f = 0; f < COUNT(qflags); f++) any |= sinew_cmd_flag_count(cmd, qflags[f]) > 0;
  if (!any) {
    rc = sinew_cmd_error(cmd, SINEW_EINVAL, "nothing to change: give -itt, -ott, -ia, -oa, -iw, -ow, -ix, -iy, -ox, -oy, -l, -wl or -wt");
    goto out;
  }
  bool has_ia = sinew_cmd_flag_count(cmd, "inAngle"), has_oa = sinew_cmd_flag_count(cmd, "outAngle");
  bool has_iw = sinew_cmd_flag_count(cmd, "inWeight"), has_ow = sinew_cmd_flag_count(cmd, "outWeight");
  double ia = sinew_cmd_flag_double(cmd, "inAngle", 0, 0), oa = sinew_cmd_flag_double(cmd, "outAngle", 0, 0);
  double iw = sinew_cmd_flag_double(cmd, "inWeight", 0, 0), ow = sinew_cmd_flag_double(cmd, "outWeight", 0, 0);
  if ((has_iw && !(iw >= 0)) || (has_ow && !(ow >= 0))) {
    rc = sinew_cmd_error(cmd, SINEW_ERANGE, "-%s %g: a weight is at least 0", has_iw && !(iw >= 0) ? "inWeight" : "outWeight",
                         has_iw && !(iw >= 0) ? iw : ow);
    goto out;
  }
  int lock = sinew_cmd_flag_count(cmd, "lock") ? sinew_cmd_flag_bool(cmd, "lock", true) : -1;
  int wlock = sinew_cmd_flag_count(cmd, "weightLock") ? sinew_cmd_flag_bool(cmd, "weightLock", true) : -1;
  int wt = sinew_cmd_flag_count(cmd, "weightedTangents") ? sinew_cmd_flag_bool(cmd, "weightedTangents", true) : -1;
  /* -ix/-iy/-ox/-oy: the same tangent in Cartesian form (x in seconds or input units, y in the
   * output's UI unit), so (x, y) = weight * (cos angle, sin angle) */
  bool has_cart[4];
  double cart[4];
  static const char *const cart_flags[] = {"ix", "iy", "ox", "oy"};
  for (int f = 0; f < 4; f++) {
    has_cart[f] = sinew_cmd_flag_count(cmd, cart_flags[f]) > 0;
    cart[f] = sinew_cmd_flag_double(cmd, cart_flags[f], 0, 0);
  }
  if ((has_cart[0] || has_cart[1]) && (has_ia || has_iw)) {
    rc = sinew_cmd_error(cmd, SINEW_EINVAL, "-ix/-iy and -ia/-iw both give the in tangent: use one form");
    goto out;
  }
  if ((has_cart[2] || has_cart[3]) && (has_oa || has_ow)) {
    rc = sinew_cmd_error(cmd, SINEW_EINVAL, "-ox/-oy and -oa/-ow both give the out tangent: use one form");
    goto out;
  }
  bool has_in_xy = has_cart[0] || has_cart[1], has_out_xy = has_cart[2] || has_cart[3];
  bool polar = has_ia || has_oa || has_iw || has_ow || has_in_xy || has_out_xy;
  int64_t changed = 0;
  for (uint32_t i = 0; i < nl.n && !rc; i++) {
    acurve *c = &cs[i];
    acurve before = {0};
    bool fixing = polar || itt == TAN_FIXED || ott == TAN_FIXED;
    if ((rc = curve_copy(c, &before)) || (fixing && (rc = used_tangents(g, c, &tan)))) {
      curve_free(&before);
      break;
    }
    uint32_t hits = 0;
    for (uint32_t k = 0; k < c->n; k++) {
      if (!key_selected(g, c, k, &ks)) continue;
      akey *key = &c->k[k];
      hits++;
      if (itt >= 0) key->itt = itt;
      if (ott >= 0) key->ott = ott;
      /* fixing a tangent keeps the one in use; an angle or weight changes it */
      if (fixing) {
        double ai, wi, ao, wo;
        tangent_polar(g, c, tan[k][1], tan[k][2], &ai, &wi);
        tangent_polar(g, c, tan[k][3], tan[k][4], &ao, &wo);
        bool in_ch = has_ia || has_iw || has_in_xy || itt == TAN_FIXED;
        bool out_ch = has_oa || has_ow || has_out_xy || ott == TAN_FIXED;
        bool locked = lock >= 0 ? lock : key->tl;
        if (has_ia) ai = ia;
        if (has_oa) ao = oa;
        if (has_iw) wi = iw;
        if (has_ow) wo = ow;
        if (has_in_xy) {
          double x = has_cart[0] ? cart[0] : wi * cos(ai * PI / 180.0);
          double y = has_cart[1] ? cart[1] : wi * sin(ai * PI / 180.0);
          ai = atan2(y, x) * 180.0 / PI, wi = hypot(x, y);
        }
        if (has_out_xy) {
          double x = has_cart[2] ? cart[2] : wo * cos(ao * PI / 180.0);
          double y = has_cart[3] ? cart[3] : wo * sin(ao * PI / 180.0);
          ao = atan2(y, x) * 180.0 / PI, wo = hypot(x, y);
        }
        bool in_dir = has_ia || has_in_xy, out_dir = has_oa || has_out_xy;
        if (locked && in_dir && !out_dir) ao = ai, out_ch = true; /* locked tangents stay in line */
        if (locked && out_dir && !in_dir) ai = ao, in_ch = true;
        if (in_ch) {
          tangent_from_polar(g, c, ai, wi, &key->ix, &key->iy);
          key->itt = TAN_FIXED;
        }
        if (out_ch) {
          tangent_from_polar(g, c, ao, wo, &key->ox, &key->oy);
          key->ott = TAN_FIXED;
        }
      }
      if (lock >= 0) key->tl = lock;
      if (wlock >= 0) key->wl = wlock;
    }
    sinew_free(tan);
    tan = NULL;
    if (wt >= 0 && c->wgt != (wt != 0)) {
      c->wgt = wt != 0;
      hits += hits == 0;
    }
    changed += hits != 0; /* Maya returns the number of curves changed */
    if (hits) rc = curve_write(g, c);
    curve_free(&before);
  }
  if (rc) {
    rc = fail_graph(cmd, rc, NULL);
    goto out;
  }
  rc = sinew_cmd_result_int(cmd, changed);
out:
  sinew_free(tan);
  curves_free(cs, nl.n);
  sinew_free(nl.v);
  return rc;
}

/* ---- setInfinity ----------------------------------------------------------------------------- */

static const sinew_cmd_flag_t infinity_flags[] = {
    {"query", "q", "", SINEW_CMD_QUERY},       {"edit", "e", "", SINEW_CMD_EDIT},
    {"attribute", "at", "s", SINEW_CMD_MULTI}, {"preInfinite", "pri", "s", 0},
    {"postInfinite", "poi", "s", 0}};

static int cmd_set_infinity(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  bool q = sinew_cmd_query(cmd);
  bool has_pre = sinew_cmd_flag_count(cmd, "preInfinite") > 0, has_post = sinew_cmd_flag_count(cmd, "postInfinite") > 0;
  int pre = -1, post = -1;
  if (q && has_pre == has_post)
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-query takes one flag: -preInfinite or -postInfinite");
  if (!q) {
    if (!has_pre && !has_post) return sinew_cmd_error(cmd, SINEW_EINVAL, "nothing to change: give -preInfinite or -postInfinite");
    const char *np = has_pre ? sinew_cmd_flag_string(cmd, "preInfinite", "") : NULL;
    const char *no = has_post ? sinew_cmd_flag_string(cmd, "postInfinite", "") : NULL;
    if (np && (pre = infinity_code(np)) < 0)
      return sinew_cmd_error(cmd, SINEW_EINVAL, "-preInfinite '%s': not constant, linear, cycle, cycleRelative or oscillate", np);
    if (no && (post = infinity_code(no)) < 0)
      return sinew_cmd_error(cmd, SINEW_EINVAL, "-postInfinite '%s': not constant, linear, cycle, cycleRelative or oscillate", no);
  }
  node_list nl = {0};
  int rc = collect_curves(cmd, &nl);
  if (rc) goto out;
  if (q) {
    rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY);
    for (uint32_t i = 0; i < nl.n && !rc; i++)
      rc = sinew_cmd_result_append_string(cmd, infinity_name((int)get_attr(g, nl.v[i], has_pre ? "pre" : "pst", 0)));
    goto out;
  }
  for (uint32_t i = 0; i < nl.n && !rc; i++) {
    sinew_plug_t p;
    if (pre >= 0 && !(rc = sinew_plug_parse_attr(g, nl.v[i], "pre", &p))) rc = sinew_set_double(g, &p, pre);
    if (!rc && post >= 0 && !(rc = sinew_plug_parse_attr(g, nl.v[i], "pst", &p))) rc = sinew_set_double(g, &p, post);
  }
  if (rc) rc = fail_graph(cmd, rc, NULL);
out:
  sinew_free(nl.v);
  return rc;
}

/* ---- setDrivenKeyframe ------------------------------------------------------------------------ */

static const sinew_cmd_flag_t sdk_flags[] = {
    {"currentDriver", "cd", "s", 0},           {"driverValue", "dv", "f", 0},
    {"value", "v", "f", 0},                    {"inTangentType", "itt", "s", 0},
    {"outTangentType", "ott", "s", 0},         {"attribute", "at", "s", SINEW_CMD_MULTI},
    {"driver", "dr", "", 0},                   {"query", "q", "", SINEW_CMD_QUERY}};

static bool is_type(sinew_graph_t *g, sinew_node_t n, const char *t) {
  return sinew_node_valid(g, n) && sinew_node_type_is_a(sinew_node_type(g, n), t);
}

static sinew_plug_t attr_plug(sinew_graph_t *g, sinew_node_t n, const char *attr) {
  sinew_plug_t p = {0};
  sinew_plug_parse_attr(g, n, attr, &p);
  return p;
}

/* The plug feeding p, looking through one unitConversion node. */
static bool source_through_conversion(sinew_graph_t *g, const sinew_plug_t *p, sinew_plug_t *out) {
  if (!sinew_plug_source(g, p, out)) return false;
  if (is_type(g, out->node, "unitConversion")) {
    sinew_plug_t in = attr_plug(g, out->node, "input");
    return sinew_plug_source(g, &in, out);
  }
  return true;
}

/* The driver of a U curve (its input's source, through a unitConversion). */
static bool curve_driver(sinew_graph_t *g, sinew_node_t curve, sinew_plug_t *out) {
  sinew_plug_t in = attr_plug(g, curve, "input");
  return source_through_conversion(g, &in, out);
}

/* Connects src -> dst with a unitConversion of factor cf between them (none when cf is 0). */
static int connect_converted(sinew_graph_t *g, const sinew_plug_t *src, const sinew_plug_t *dst,
                             double cf, uint32_t flags, sinew_plug_t *out_dst) {
  if (cf == 0) return sinew_connect(g, src, dst, flags, out_dst);
  sinew_node_t uc;
  int rc = sinew_node_create(g, "unitConversion", NULL, &uc);
  if (rc) return rc;
  sinew_plug_t cfp = attr_plug(g, uc, "conversionFactor"), in = attr_plug(g, uc, "input"), o = attr_plug(g, uc, "output");
  if ((rc = sinew_set_double(g, &cfp, cf)) || (rc = sinew_connect(g, src, &in, 0, NULL))) return rc;
  return sinew_connect(g, &o, dst, flags, out_dst);
}

/* The factor Maya's unitConversion applies from an attribute of type t to a plain number (0: no
 * conversion needed): radians to the scene's angle unit, seconds to frames. */
static double to_number_factor(sinew_graph_t *g, sinew_attr_type_t t) {
  if (t == SINEW_ATTR_ANGLE) return 1.0 / sinew_angle_unit_radians(sinew_scene_angle_unit(g));
  if (t == SINEW_ATTR_TIME) return scene_fps(g);
  return 0;
}

static int cmd_set_driven_keyframe(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  int itt, ott, rc;
  if ((rc = tangent_flag(cmd, "inTangentType", &itt)) || (rc = tangent_flag(cmd, "outTangentType", &ott))) return rc;
  plug_list pl = {0};
  if ((rc = collect_key_plugs(cmd, &pl))) goto out;
  if (!pl.n) {
    rc = sinew_cmd_error(cmd, SINEW_EINVAL, "nothing to key: no keyable attribute");
    goto out;
  }
  if (sinew_cmd_query(cmd)) {
    /* -q -dr: the drivers of the driven attribute */
    rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY);
    for (uint32_t i = 0; i < pl.n && !rc; i++) {
      sinew_plug_t src;
      if (!source_through_conversion(g, &pl.v[i], &src)) continue;
      sinew_node_t curves[64];
      uint32_t nc = 0;
      if (is_curve(g, src.node)) curves[nc++] = src.node;
      else if (is_type(g, src.node, "blendWeighted")) {
        sinew_plug_t arr = attr_plug(g, src.node, "input");
        int32_t idx[64];
        size_t n = sinew_plug_indices(g, &arr, idx, 64);
        for (size_t k = 0; k < n && k < 64; k++) {
          sinew_plug_t e, cs;
          if (!sinew_plug_element(g, &arr, idx[k], &e) && source_through_conversion(g, &e, &cs) && is_curve(g, cs.node))
            curves[nc++] = cs.node;
        }
      }
      for (uint32_t k = 0; k < nc && !rc; k++) {
        sinew_plug_t d;
        char t[600];
        if (curve_driver(g, curves[k], &d)) rc = sinew_cmd_result_append_string(cmd, plug_text(g, &d, t, sizeof t));
      }
    }
    goto out;
  }
  /* the driver */
  sinew_plug_t driver = {0};
  bool has_driver = sinew_cmd_flag_count(cmd, "currentDriver") > 0;
  if (has_driver && (rc = sinew__cmd_plug(cmd, sinew_cmd_flag_string(cmd, "currentDriver", ""), &driver))) goto out;
  /* check each driven plug and find what to key */
  typedef struct sdk_plan {
    sinew_node_t curve;  /* the curve with this driver, or zero: a new one */
    sinew_node_t single; /* a curve of another driver feeding the plug directly (becomes blended) */
    sinew_node_t bw;     /* the blendWeighted feeding it, or zero */
    double dv, v;
  } sdk_plan;
  sdk_plan *plan = sinew_calloc(pl.n, sizeof *plan);
  if (!plan) {
    rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    goto out;
  }
  for (uint32_t i = 0; i < pl.n && !rc; i++) {
    const sinew_plug_t *p = &pl.v[i];
    sdk_plan *pp = &plan[i];
    char pt[600], st[600];
    if ((rc = check_key_plug(cmd, p))) break;
    plug_text(g, p, pt, sizeof pt);
    sinew_plug_t src;
    if (source_through_conversion(g, p, &src)) {
      if (is_curve(g, src.node) && sinew_node_type_name(sinew_node_type(g, src.node))[9] == 'U') {
        sinew_plug_t d;
        sinew_plug_t direct;
        sinew_plug_source(g, p, &direct);
        if (!is_curve(g, direct.node)) {
          rc = sinew_cmd_error(cmd, SINEW_ECONNECTED, "%s: fed through %s; a set-driven key needs it free or fed by its curves", pt,
                               sinew_node_name(g, direct.node));
          break;
        }
        if (curve_driver(g, src.node, &d) && (!has_driver || sinew_plug_equal(&d, &driver))) {
          pp->curve = src.node;
          driver = d, has_driver = true;
        } else {
          pp->single = src.node;
        }
      } else if (is_type(g, src.node, "blendWeighted")) {
        pp->bw = src.node;
        sinew_plug_t arr = attr_plug(g, src.node, "input");
        int32_t idx[256];
        size_t n = sinew_plug_indices(g, &arr, idx, 256);
        for (size_t k = 0; k < n && k < 256; k++) {
          sinew_plug_t e, cs, d;
          if (!sinew_plug_element(g, &arr, idx[k], &e) && source_through_conversion(g, &e, &cs) && is_curve(g, cs.node) &&
              curve_driver(g, cs.node, &d) && has_driver && sinew_plug_equal(&d, &driver))
            pp->curve = cs.node;
        }
      } else {
        rc = sinew_cmd_error(cmd, SINEW_ECONNECTED, "%s: fed by %s; a set-driven key needs it free or fed by its curves", pt,
                             plug_text(g, &src, st, sizeof st));
        break;
      }
    }
    if (!has_driver) {
      rc = sinew_cmd_error(cmd, SINEW_EINVAL, "%s: no driver: give -currentDriver node.attribute", pt);
      break;
    }
    sinew_attr_info_t di;
    if (sinew_node_attr_info(g, driver.node, driver.attr, &di) || !sinew_attr_type_is_numeric(di.type) ||
        sinew_plug_is_array(g, &driver)) {
      rc = sinew_cmd_error(cmd, SINEW_ETYPE, "-currentDriver %s: not a number", plug_text(g, &driver, st, sizeof st));
      break;
    }
    if (driver.node.index == p->node.index && driver.node.gen == p->node.gen && driver.attr == p->attr) {
      rc = sinew_cmd_error(cmd, SINEW_EINVAL, "%s: an attribute cannot drive itself", pt);
      break;
    }
    double dv;
    if (sinew_cmd_flag_count(cmd, "driverValue")) dv = sinew_cmd_flag_double(cmd, "driverValue", 0, 0);
    else if ((rc = sinew_get_double(g, &driver, &dv))) {
      rc = sinew__graph_error(cmd, rc);
      break;
    } else dv = sinew__unit_to_ui(g, di.type, dv);
    pp->dv = dv;
    if (sinew_cmd_flag_count(cmd, "value"))
      pp->v = sinew__unit_to_internal(g, plug_type(g, p), sinew_cmd_flag_double(cmd, "value", 0, 0));
    else if ((rc = sinew_get_double(g, p, &pp->v))) {
      rc = sinew__graph_error(cmd, rc);
      break;
    }
  }
  if (rc || (rc = sinew_cmd_result_int(cmd, pl.n))) goto out2;
  /* change */
  for (uint32_t i = 0; i < pl.n && !rc; i++) {
    const sinew_plug_t *p = &pl.v[i];
    sdk_plan *pp = &plan[i];
    sinew_attr_type_t pty = plug_type(g, p), dty = plug_type(g, &driver);
    bool fresh = !sinew_node_valid(g, pp->curve);
    sinew_plug_t ci, co;
    if (fresh) {
      if ((rc = new_curve_for(cmd, p, false, false, &pp->curve))) break;
      ci = attr_plug(g, pp->curve, "input");
      if ((rc = connect_converted(g, &driver, &ci, to_number_factor(g, dty), 0, NULL))) break;
    }
    co = attr_plug(g, pp->curve, "output");
    acurve c = {0};
    rc = curve_read(g, pp->curve, &c);
    if (!rc) rc = curve_set_key(&c, pp->dv, pp->v, itt, ott, -1, NULL);
    if (!rc) rc = curve_write(g, &c);
    curve_free(&c);
    if (rc || !fresh) continue;
    /* a new curve is wired to the driven attribute last */
    double to_num = pty == SINEW_ATTR_ANGLE ? to_number_factor(g, pty) : 0; /* into a blendWeighted's double */
    if (sinew_node_valid(g, pp->single) || sinew_node_valid(g, pp->bw)) {
      sinew_node_t bw = pp->bw;
      if (!sinew_node_valid(g, bw)) {
        /* a second driver: both curves go through a new blendWeighted, as Maya wires it */
        sinew_plug_t so = attr_plug(g, pp->single, "output"), bo, e0;
        if ((rc = sinew_node_create(g, "blendWeighted", NULL, &bw))) break;
        bo = attr_plug(g, bw, "output");
        sinew_plug_t arr = attr_plug(g, bw, "input");
        if ((rc = sinew_plug_element(g, &arr, 0, &e0)) || (rc = connect_converted(g, &so, &e0, to_num, 0, NULL)))
          break;
        sinew_plug_t arr1 = attr_plug(g, bw, "input"), e1;
        if ((rc = sinew_plug_element(g, &arr1, 1, &e1)) || (rc = connect_converted(g, &co, &e1, to_num, 0, NULL)))
          break;
        /* forced: the old curve's connection breaks as the new one is made, in one step */
        if ((rc = connect_converted(g, &bo, p, to_num ? 1.0 / to_num : 0, SINEW_CONNECT_FORCE, NULL))) break;
        continue;
      }
      sinew_plug_t arr = attr_plug(g, bw, "input"), e;
      int32_t next = sinew_plug_next_index(g, &arr);
      if ((rc = sinew_plug_element(g, &arr, next, &e)) || (rc = connect_converted(g, &co, &e, to_num, 0, NULL))) break;
    } else if ((rc = sinew_connect(g, &co, p, 0, NULL))) {
      break;
    }
  }
  if (rc) {
    rc = fail_graph(cmd, rc, NULL);
    goto out2;
  }
out2:
  sinew_free(plan);
out:
  sinew_free(pl.v);
  return rc;
}

/* ---- bakeResults ------------------------------------------------------------------------------- */

static const sinew_cmd_flag_t bake_flags[] = {
    {"time", "t", "s", 0},         {"simulation", "sm", "b", 0},
    {"sampleBy", "sb", "f", 0},    {"attribute", "at", "s", SINEW_CMD_MULTI},
    {"disableImplicitControl", "dic", "b", 0}, {"preserveOutsideKeys", "pok", "b", 0}};

static int cmd_bake_results(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  double a, b;
  if (sinew_cmd_flag_count(cmd, "time")) {
    const char *text = sinew_cmd_flag_string(cmd, "time", "");
    if (!parse_range(text, &a, &b) || !isfinite(a) || !isfinite(b))
      return sinew_cmd_error(cmd, SINEW_EINVAL, "-time '%s': not a time range (1:48)", text);
  } else if (s->scene->has_playback) {
    a = s->scene->pb_min, b = s->scene->pb_max;
  } else {
    int rc = sinew_time_get_frame(g, &a);
    if (rc) return sinew__graph_error(cmd, rc);
    b = a;
  }
  double by = sinew_cmd_flag_double(cmd, "sampleBy", 0, 1);
  if (!(by > 0)) return sinew_cmd_error(cmd, SINEW_ERANGE, "-sampleBy %g: the step is more than 0", by);
  double steps = floor((b - a) / by + 1e-9) + 1;
  if (steps > 1e6) return sinew_cmd_error(cmd, SINEW_ERANGE, "-time %g:%g by %g: more than 1,000,000 samples", a, b, by);
  uint32_t ns = (uint32_t)steps;
  bool keep_outside = sinew_cmd_flag_bool(cmd, "preserveOutsideKeys", false);
  plug_list pl = {0};
  int rc = collect_key_plugs(cmd, &pl);
  double *vals = NULL;
  sinew_node_t *curves = NULL;
  bool *own = NULL; /* the plug is fed by a time curve whose keys are replaced */
  if (rc) goto out;
  if (!pl.n) {
    rc = sinew_cmd_error(cmd, SINEW_EINVAL, "nothing to bake: no keyable attribute");
    goto out;
  }
  vals = sinew_malloc((size_t)pl.n * ns * sizeof *vals);
  curves = sinew_calloc(pl.n, sizeof *curves);
  own = sinew_calloc(pl.n, sizeof *own);
  if (!vals || !curves || !own) {
    rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    goto out;
  }
  for (uint32_t i = 0; i < pl.n && !rc; i++) {
    char pt[600];
    sinew_attr_info_t info;
    plug_text(g, &pl.v[i], pt, sizeof pt);
    if (sinew_node_attr_info(g, pl.v[i].node, pl.v[i].attr, &info) || !sinew_attr_type_is_numeric(info.type))
      rc = sinew_cmd_error(cmd, SINEW_ETYPE, "%s: not a number that can be keyed", pt);
    else if (sinew_plug_locked(g, &pl.v[i]))
      rc = sinew_cmd_error(cmd, SINEW_ELOCKED, "%s: the attribute is locked", pt);
    else if (!(info.flags & SINEW_ATTR_WRITABLE))
      rc = sinew_cmd_error(cmd, SINEW_EREADONLY, "%s: an output cannot be keyed", pt);
    sinew_plug_t src;
    if (!rc && sinew_plug_source(g, &pl.v[i], &src) && is_curve(g, src.node) &&
        sinew_node_type_name(sinew_node_type(g, src.node))[9] == 'T') {
      sinew_plug_t in = attr_plug(g, src.node, "input");
      if (!sinew_plug_source(g, &in, NULL)) curves[i] = src.node, own[i] = true;
    }
  }
  if (rc) goto out;
  /* sample every frame (the time is put back afterwards) */
  double now = 0;
  if ((rc = sinew_time_get_frame(g, &now))) {
    rc = sinew__graph_error(cmd, rc);
    goto out;
  }
  for (uint32_t f = 0; f < ns && !rc; f++) {
    if ((rc = sinew_time_set_frame(g, a + f * by))) break;
    for (uint32_t i = 0; i < pl.n && !rc; i++) rc = sinew_get_double(g, &pl.v[i], &vals[(size_t)i * ns + f]);
  }
  int trc = sinew_time_set_frame(g, now);
  if (rc || trc) {
    rc = sinew__graph_error(cmd, rc ? rc : trc);
    goto out;
  }
  if ((rc = sinew_cmd_result_int(cmd, pl.n))) goto out;
  for (uint32_t i = 0; i < pl.n && !rc; i++) {
    sinew_plug_t *p = &pl.v[i];
    acurve c = {0};
    if (!own[i] && (rc = new_curve_for(cmd, p, true, false, &curves[i]))) break;
    rc = curve_read(g, curves[i], &c);
    if (!rc) {
      if (keep_outside) {
        uint32_t w = 0;
        for (uint32_t k = 0; k < c.n; k++) {
          double t = key_ui_time(g, &c, c.k[k].t);
          if (t < a - 1e-9 || t > b + 1e-9) c.k[w++] = c.k[k];
        }
        c.n = w;
      } else {
        c.n = 0;
      }
    }
    for (uint32_t f = 0; f < ns && !rc; f++)
      rc = curve_set_key(&c, ui_to_key_time(g, &c, a + f * by), vals[(size_t)i * ns + f], -1, -1, -1, NULL);
    if (!rc) rc = curve_write(g, &c);
    curve_free(&c);
  }
  /* the baked curves replace what fed the attributes */
  for (uint32_t i = 0; i < pl.n && !rc; i++)
    if (!own[i]) rc = connect_new_curve(g, curves[i], &pl.v[i], SINEW_CONNECT_FORCE);
  if (rc) {
    rc = fail_graph(cmd, rc, NULL);
    goto out;
  }
out:
  sinew_free(vals);
  sinew_free(curves);
  sinew_free(own);
  sinew_free(pl.v);
  return rc;
}

/* ---- playbackOptions and the scene configuration script --------------------------------------- */

static const sinew_cmd_flag_t playback_flags[] = {
    {"query", "q", "", SINEW_CMD_QUERY},         {"edit", "e", "", SINEW_CMD_EDIT},
    {"minTime", "min", "f", 0},                  {"maxTime", "max", "f", 0},
    {"animationStartTime", "ast", "f", 0},       {"animationEndTime", "aet", "f", 0},
    {"by", "by", "f", 0},                        {"framesPerSecond", "fps", "f", 0}};

static void playback_values(const sinew__scene *sc, double v[5]) {
  if (sc->has_playback) {
    v[0] = sc->pb_min, v[1] = sc->pb_max, v[2] = sc->pb_ast, v[3] = sc->pb_aet, v[4] = sc->pb_by;
  } else {
    /* Maya's defaults for a new scene */
    v[0] = 1, v[1] = 120, v[2] = 1, v[3] = 200, v[4] = 1;
  }
}

char *sinew__playback_script(const sinew__scene *sc) {
  double v[5];
  playback_values(sc, v);
  sinew__buf b = {0};
  sinew__buf_puts(&b, "playbackOptions -min ");
  sinew__buf_num(&b, v[0]);
  sinew__buf_puts(&b, " -max ");
  sinew__buf_num(&b, v[1]);
  sinew__buf_puts(&b, " -ast ");
  sinew__buf_num(&b, v[2]);
  sinew__buf_puts(&b, " -aet ");
  sinew__buf_num(&b, v[3]);
  if (v[4] != 1) {
    sinew__buf_puts(&b, " -by ");
    sinew__buf_num(&b, v[4]);
  }
  sinew__buf_puts(&b, " ");
  if (b.oom) {
    sinew__buf_free(&b);
    return NULL;
  }
  return b.p;
}

#define CONFIG_NODE "sceneConfigurationScriptNode"

static bool only_playback_options(const char *text);

/* The scene's configuration script node, when it is a script node (placeholder or not). */
static bool config_node(sinew_session_t *s, sinew_node_t *out) {
  sinew_graph_t *g = s->scene->graph;
  if (sinew_node_find(g, CONFIG_NODE, out)) return false;
  return !strcmp(sinew_node_type_name(sinew_node_type(g, *out)), "script");
}

/* A value a placeholder node keeps as text (the words after the plug of its setAttr line), by
 * the attribute's short name "b" / "st" or its long name "before" / "scriptType" (files write
 * either). */
static sinew__raw *config_raw(sinew_session_t *s, sinew_node_t n, const char *attr) {
  const char *other = !strcmp(attr, "b") ? "before" : !strcmp(attr, "st") ? "scriptType" : attr;
  sinew__extra *e = sinew__extra_get(s->scene, n, false);
  for (uint32_t i = e ? e->nraws : 0; i-- > 0;)
    if (!strcmp(e->raws[i].attr, attr) || !strcmp(e->raws[i].attr, other)) return &e->raws[i];
  return NULL;
}

/* The string of a kept `".b" -type "string" "text"` line, unescaped into out; false when it
 * is not one. */
static bool raw_string(const char *text, sinew__buf *out) {
  /* the text is the setAttr line after the command: flags, ".b" -type "string" "..." */
  const char *p = strstr(text, "-type \"string\"");
  if (!p) return false;
  p += 14;
  while (isspace((unsigned char)*p)) p++;
  if (*p != '"') return false;
  for (p++; *p && *p != '"'; p++) {
    char c = *p;
    if (c == '\\' && p[1]) {
      c = *++p;
      c = c == 'n' ? '\n' : c == 't' ? '\t' : c;
    }
    sinew__buf_put(out, &c, 1);
  }
  sinew__buf_put(out, "", 1);
  return *p == '"' && !out->oom;
}

/* The configuration node's text (a string attribute, or the kept text of a placeholder's setAttr
 * line) into out; false when it has none. */
static bool config_text(sinew_session_t *s, sinew_node_t n, sinew__buf *out) {
  sinew_graph_t *g = s->scene->graph;
  sinew_plug_t b;
  const char *str = NULL;
  if (!sinew_plug_parse_attr(g, n, "b", &b) && !sinew_get_string(g, &b, &str) && str) {
    sinew__buf_puts(out, str);
    sinew__buf_put(out, "", 1);
    return !out->oom;
  }
  sinew__raw *r = config_raw(s, n, "b");
  return r && raw_string(r->text, out);
}

/* Keeps the configuration node's text in step with the scene's range, so that a save writes the
 * range where Maya keeps it. A node whose text holds more than playbackOptions is left as it is
 * (its other lines would be lost); without a node, the writer adds one. */
int sinew__sync_playback_node(sinew_session_t *s) {
  sinew_node_t n;
  if (!s->scene->has_playback || !config_node(s, &n)) return SINEW_OK;
  sinew_graph_t *g = s->scene->graph;
  sinew__buf old = {0};
  bool has = config_text(s, n, &old);
  if (old.oom) {
    sinew__buf_free(&old);
    return SINEW_ENOMEM;
  }
  char *text = NULL;
  int rc = SINEW_OK;
  if (has && old.p[0] && !only_playback_options(old.p)) goto out;
  if (!(text = sinew__playback_script(s->scene))) {
    rc = SINEW_ENOMEM;
    goto out;
  }
  if (has && !strcmp(old.p, text)) goto out;
  sinew_plug_t b;
  if (!sinew_plug_parse_attr(g, n, "b", &b)) {
    rc = sinew_set_string(g, &b, text);
  } else {
    /* a placeholder keeps the value as the text of its setAttr line */
    sinew__buf line = {0};
    sinew__raw *r = config_raw(s, n, "b");
    sinew__buf_printf(&line, "\".%s\" -type \"string\" ", r ? r->attr : "b");
    sinew__buf_quoted(&line, text);
    if (line.oom) rc = SINEW_ENOMEM;
    else if (r) {
      sinew_free(r->text);
      r->text = line.p;
      line.p = NULL;
    } else {
      rc = sinew__extra_add_raw(s->scene, n, "b", line.p);
    }
    sinew__buf_free(&line);
  }
out:
  sinew_free(text);
  sinew__buf_free(&old);
  return rc;
}

static int cmd_playback_options(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  sinew__scene *sc = s->scene;
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  static const char *const names[] = {"minTime", "maxTime", "animationStartTime", "animationEndTime", "by"};
  double v[5];
  playback_values(sc, v);
  if (sinew_cmd_query(cmd)) {
    int which = -1;
    for (int i = 0; i < 5; i++)
      if (sinew_cmd_flag_count(cmd, names[i])) {
        if (which >= 0) return sinew_cmd_error(cmd, SINEW_EINVAL, "-query takes one flag at a time (-%s and -%s)", names[which], names[i]);
        which = i;
      }
    if (sinew_cmd_flag_count(cmd, "framesPerSecond")) {
      if (which >= 0) return sinew_cmd_error(cmd, SINEW_EINVAL, "-query takes one flag at a time");
      return sinew_cmd_result_double(cmd, scene_fps(g));
    }
    if (which < 0) return sinew_cmd_error(cmd, SINEW_EINVAL, "-query: give -min, -max, -ast, -aet, -by or -fps");
    return sinew_cmd_result_double(cmd, v[which]);
  }
  if (sinew_cmd_flag_count(cmd, "framesPerSecond"))
    return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "-framesPerSecond: the playback rate is the scene's time unit (currentUnit -t)");
  bool given[5];
  double nv[5];
  memcpy(nv, v, sizeof nv);
  for (int i = 0; i < 5; i++) {
    given[i] = sinew_cmd_flag_count(cmd, names[i]) > 0;
    if (given[i]) nv[i] = sinew_cmd_flag_double(cmd, names[i], 0, 0);
    if (given[i] && !isfinite(nv[i])) return sinew_cmd_error(cmd, SINEW_ERANGE, "-%s: not a finite number", names[i]);
  }
  if (nv[4] <= 0) return sinew_cmd_error(cmd, SINEW_ERANGE, "-by %g: the step is more than 0", nv[4]);
  if (nv[0] > nv[1])
    return sinew_cmd_error(cmd, SINEW_ERANGE, "-min %g is after -max %g", nv[0], nv[1]);
  if (nv[2] > nv[3])
    return sinew_cmd_error(cmd, SINEW_ERANGE, "-animationStartTime %g is after -animationEndTime %g", nv[2], nv[3]);
  /* the animation range holds the playback range: the one not given follows the one given */
  if (nv[0] < nv[2]) {
    if (given[2] && !given[0]) nv[0] = nv[2];
    else nv[2] = nv[0];
  }
  if (nv[1] > nv[3]) {
    if (given[3] && !given[1]) nv[1] = nv[3];
    else nv[3] = nv[1];
  }
  if (nv[0] > nv[1]) nv[1] = nv[0];
  bool had = sc->has_playback;
  double old[5] = {sc->pb_min, sc->pb_max, sc->pb_ast, sc->pb_aet, sc->pb_by};
  sc->pb_min = nv[0], sc->pb_max = nv[1], sc->pb_ast = nv[2], sc->pb_aet = nv[3], sc->pb_by = nv[4];
  sc->has_playback = true;
  int rc = s->opening ? SINEW_OK : sinew__sync_playback_node(s); /* an opened file's node is the source */
  if (rc) {
    sc->has_playback = had;
    sc->pb_min = old[0], sc->pb_max = old[1], sc->pb_ast = old[2], sc->pb_aet = old[3], sc->pb_by = old[4];
    return sinew_cmd_error(cmd, rc, "%s", rc == SINEW_ENOMEM ? "out of memory" : sinew_graph_errmsg(g));
  }
  return SINEW_OK;
}

/* Whether a script holds only playbackOptions statements (the words and numbers of its flags):
 * that is all the configuration script of a Maya file holds, and all sinew runs of it. */
static bool only_playback_options(const char *text) {
  const char *p = text;
  for (;;) {
    while (*p && (isspace((unsigned char)*p) || *p == ';')) p++;
    if (!*p) return true;
    if (strncmp(p, "playbackOptions", 15) || (p[15] && !isspace((unsigned char)p[15]) && p[15] != ';')) return false;
    p += 15;
    while (*p && *p != ';') {
      unsigned char c = (unsigned char)*p;
      if (!isalnum(c) && !isspace(c) && c != '-' && c != '+' && c != '.') return false;
      p++;
    }
  }
}

int sinew__run_scene_config(sinew_session_t *s) {
  sinew_node_t n;
  if (!config_node(s, &n)) return SINEW_OK;
  sinew_graph_t *g = s->scene->graph;
  sinew__buf text = {0};
  double type = 0;
  sinew_plug_t st;
  if (!config_text(s, n, &text)) {
    bool oom = text.oom;
    sinew__buf_free(&text);
    return oom ? SINEW_ENOMEM : SINEW_OK;
  }
  if (!sinew_plug_parse_attr(g, n, "st", &st)) {
    sinew_get_double(g, &st, &type);
  } else {
    sinew__raw *r = config_raw(s, n, "st");
    const char *last = r ? strrchr(r->text, ' ') : NULL;
    if (last) type = strtod(last + 1, NULL);
  }
  /* scriptType: 1 runs on open, 6 is what Maya writes for this node (internal, on open) */
  int rc = SINEW_OK;
  if ((type != 1 && type != 6) || !text.p || !text.p[0]) {
    /* not run on open */
  } else if (!only_playback_options(text.p)) {
    sinew_log(g, SINEW_LOG_WARNING, SINEW_LOG_FILE_WARNING,
              CONFIG_NODE ": the script holds more than playbackOptions; it is kept but not run");
  } else if ((rc = sinew_lang_run(s->lang, text.p, strlen(text.p), CONFIG_NODE, NULL))) {
    if (rc == SINEW_ENOMEM) {
      snprintf(s->errmsg, sizeof s->errmsg, "%s", sinew_lang_errmsg(s->lang));
    } else {
      sinew_log(g, SINEW_LOG_WARNING, SINEW_LOG_FILE_WARNING, "%s; the playback range is not set",
                sinew_lang_errmsg(s->lang));
      rc = SINEW_OK;
    }
  }
  sinew__buf_free(&text);
  return rc;
}

/* ---- registration ------------------------------------------------------------------------------ */

int sinew__register_anim_cmds(sinew_lang_t *L, sinew_session_t *s) {
  const sinew_cmd_desc_t cmds[] = {
      {"setKeyframe", cmd_set_keyframe, setkey_flags, COUNT(setkey_flags), false, s},
      {"keyframe", cmd_keyframe, keyframe_flags, COUNT(keyframe_flags), false, s},
      {"cutKey", cmd_cut_key, copykey_flags, COUNT(copykey_flags), false, s},
      {"copyKey", cmd_copy_key, copykey_flags, COUNT(copykey_flags), false, s},
      {"pasteKey", cmd_paste_key, pastekey_flags, COUNT(pastekey_flags), false, s},
      {"keyTangent", cmd_key_tangent, tangent_flags, COUNT(tangent_flags), false, s},
      {"setInfinity", cmd_set_infinity, infinity_flags, COUNT(infinity_flags), false, s},
      {"setDrivenKeyframe", cmd_set_driven_keyframe, sdk_flags, COUNT(sdk_flags), false, s},
      {"bakeResults", cmd_bake_results, bake_flags, COUNT(bake_flags), false, s},
      {"playbackOptions", cmd_playback_options, playback_flags, COUNT(playback_flags), false, s},
  };
  for (size_t i = 0; i < COUNT(cmds); i++) {
    int rc = sinew_lang_register_command(L, &cmds[i]);
    if (rc) return rc;
  }
  return SINEW_OK;
}
