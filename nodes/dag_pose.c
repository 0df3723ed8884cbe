/* nodes/dag_pose.c: the dagPose node type (spec 6.1), the decomposed "xform" transformation
 * data that its xformMatrix elements hold (spec 8.4), and the pose operations of the dagPose
 * command (spec 6.2): save, restore, reset, add, remove, members, atPose. Each operation that
 * changes the graph runs in a transaction (sinew_graph_begin / sinew_graph_end), so a step that
 * fails leaves the graph as it was.
 *
 * A dagPose performs no computation. Member j is the node connected to m[j]; p[j] comes from
 * m[k] of the member's DAG parent when that parent is a member, else from w; wm[j] is the
 * world matrix at save time (connected from joint.bps in a bind pose); xm[j] is the local
 * transformation as an xform block; g[j] asks for a global restore. Indices may be sparse. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodes/nodes_internal.h"
#include "sinew/skin.h"

/* ---- scratch memory ----------------------------------------------------------------------- */

static const sinew_data_type_t scratch_type = {.name = "sinewScratch"};

void *sinew__scratch(size_t bytes, sinew_data_t **holder) {
  *holder = NULL;
  if (sinew_data_create(&scratch_type, bytes ? bytes : 1, holder)) return NULL;
  return sinew_data_mutable(holder);
}

static int oom(sinew_graph_t *g, const char *what) {
  return sinew_graph_fail(g, SINEW_ENOMEM, what, "out of memory");
}

int sinew__connect_replacing(sinew_graph_t *g, const sinew_plug_t *src, const sinew_plug_t *dst) {
  sinew_plug_t old;
  bool had = sinew_plug_source(g, dst, &old);
  if (had && sinew_plug_equal(&old, src)) return SINEW_OK;
  int rc;
  if (had && (rc = sinew_disconnect(g, &old, dst))) return rc;
  return sinew_connect(g, src, dst, 0, NULL);
}

/* ---- xform data -------------------------------------------------------------------------------- */

const sinew_data_type_t sinew_xform_data_type = {.name = "xform"};

void sinew_xform_identity(sinew_xform_t *x) {
  memset(x, 0, sizeof *x);
  for (int k = 0; k < 3; k++) x->scale[k] = x->inverse_scale[k] = 1;
  x->rotate_axis[3] = x->joint_orient[3] = 1;
  x->segment_scale_compensate = true;
}

void sinew_xform_to_values(const sinew_xform_t *x, double v[SINEW_XFORM_VALUES]) {
  size_t n = 0;
#define PUT(arr, cnt) for (int k = 0; k < (cnt); k++) v[n++] = (arr)[k]
  PUT(x->scale, 3);
  PUT(x->rotate, 3);
  v[n++] = x->rotate_order;
  PUT(x->translate, 3);
  PUT(x->shear, 3);
  PUT(x->scale_pivot, 3);
  PUT(x->scale_pivot_translate, 3);
  PUT(x->rotate_pivot, 3);
  PUT(x->rotate_pivot_translate, 3);
  PUT(x->rotate_axis, 4);
  PUT(x->joint_orient, 4);
  PUT(x->inverse_scale, 3);
#undef PUT
  v[n++] = x->segment_scale_compensate ? 1 : 0;
}

static bool quat_ok(const double q[4]) {
  double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  return len > 0 && isfinite(len);
}

int sinew_xform_from_values(const double v[SINEW_XFORM_VALUES], sinew_xform_t *out) {
  if (!v || !out) return SINEW_EINVAL;
  for (int i = 0; i < SINEW_XFORM_VALUES; i++)
    if (!isfinite(v[i])) return SINEW_EINVAL;
  if (v[6] < 0 || v[6] > 5 || v[6] != floor(v[6])) return SINEW_EINVAL;
  sinew_xform_t x;
  memset(&x, 0, sizeof x); /* padding too: blocks are compared and copied as bytes */
  size_t n = 0;
#define GET(arr, cnt) for (int k = 0; k < (cnt); k++) (arr)[k] = v[n++]
  GET(x.scale, 3);
  GET(x.rotate, 3);
  x.rotate_order = (int)v[n++];
  GET(x.translate, 3);
  GET(x.shear, 3);
  GET(x.scale_pivot, 3);
  GET(x.scale_pivot_translate, 3);
  GET(x.rotate_pivot, 3);
  GET(x.rotate_pivot_translate, 3);
  GET(x.rotate_axis, 4);
  GET(x.joint_orient, 4);
  GET(x.inverse_scale, 3);
#undef GET
  x.segment_scale_compensate = v[n] != 0;
  if (!quat_ok(x.rotate_axis) || !quat_ok(x.joint_orient)) return SINEW_EINVAL;
  *out = x;
  return SINEW_OK;
}

/* One white-space separated token (a ';' also ends it). */
static const char *token(const char *s, const char **tok_end) {
  while (*s && isspace((unsigned char)*s)) s++;
  const char *e = s;
  while (*e && !isspace((unsigned char)*e) && *e != ';') e++;
  *tok_end = e;
  return s;
}

static bool token_is(const char *s, const char *e, const char *word) {
  size_t n = strlen(word);
  return (size_t)(e - s) == n && strncmp(s, word, n) == 0;
}

int sinew_xform_parse(const char *text, sinew_xform_t *out, const char **end) {
  if (!text || !out) return SINEW_EINVAL;
  const char *e, *s = token(text, &e);
  if (token_is(s, e, "\"xform\"") || token_is(s, e, "xform")) s = token(e, &e);
  double v[SINEW_XFORM_VALUES];
  for (int i = 0; i < SINEW_XFORM_VALUES - 1; i++) {
    if (s == e) return SINEW_ESYNTAX;
    char buf[64], *stop;
    size_t len = (size_t)(e - s);
    if (len >= sizeof buf) return SINEW_ESYNTAX;
    memcpy(buf, s, len);
    buf[len] = 0;
    v[i] = strtod(buf, &stop);
    if (stop != buf + len) return SINEW_ESYNTAX;
    s = token(e, &e);
  }
  if (token_is(s, e, "yes") || token_is(s, e, "on") || token_is(s, e, "true") || token_is(s, e, "1"))
    v[SINEW_XFORM_VALUES - 1] = 1;
  else if (token_is(s, e, "no") || token_is(s, e, "off") || token_is(s, e, "false") || token_is(s, e, "0"))
    v[SINEW_XFORM_VALUES - 1] = 0;
  else
    return SINEW_ESYNTAX;
  sinew_xform_t x;
  if (sinew_xform_from_values(v, &x)) return SINEW_ESYNTAX;
  *out = x;
  if (end) *end = e;
  return SINEW_OK;
}

/* The shortest %g form that reads back to the same double; -0 is written as 0. */
static void shortest(double d, char *buf, size_t size) {
  if (d == 0) {
    snprintf(buf, size, "0");
    return;
  }
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, size, "%.*g", prec, d);
    if (strtod(buf, NULL) == d) return;
  }
}

size_t sinew_xform_format(const sinew_xform_t *x, char *buf, size_t size) {
  double v[SINEW_XFORM_VALUES];
  sinew_xform_to_values(x, v);
  size_t need = 0;
  char num[40];
  const char *head = "\"xform\"";
  for (int i = -1; i < SINEW_XFORM_VALUES; i++) {
    const char *piece = num;
    if (i < 0) piece = head;
    else if (i == SINEW_XFORM_VALUES - 1) piece = v[i] != 0 ? "yes" : "no";
    else shortest(v[i], num, sizeof num);
    size_t len = strlen(piece) + (i >= 0 ? 1 : 0);
    if (buf && need + len < size) {
      if (i >= 0) buf[need] = ' ';
      memcpy(buf + need + (i >= 0 ? 1 : 0), piece, strlen(piece));
    }
    need += len;
  }
  if (buf && size) buf[need < size ? need : size - 1] = 0;
  return need;
}

static sinew_vec3_t v3(const double a[3]) { return (sinew_vec3_t){a[0], a[1], a[2]}; }
/* The unit quaternion of stored values (files hold them rounded, so they are normalised on use). */
static sinew_quat_t q4(const double a[4]) {
  sinew_quat_t q = {a[0], a[1], a[2], a[3]};
  sinew_quat_normalize(q, &q);
  return q;
}

void sinew_xform_matrix(const sinew_xform_t *x, bool joint, sinew_mat4_t *out) {
  sinew__local_inputs in;
  memset(&in, 0, sizeof in);
  in.t = v3(x->translate);
  in.r = v3(x->rotate);
  in.s = v3(x->scale);
  in.sh = v3(x->shear);
  in.rp = v3(x->rotate_pivot);
  in.sp = v3(x->scale_pivot);
  in.rpt = v3(x->rotate_pivot_translate);
  in.spt = v3(x->scale_pivot_translate);
  sinew_quat_to_euler(q4(x->rotate_axis), SINEW_ROTATE_XYZ, &in.ra);
  sinew_quat_to_euler(q4(x->joint_orient), SINEW_ROTATE_XYZ, &in.jo);
  in.is = v3(x->inverse_scale);
  in.order = (x->rotate_order >= 0 && x->rotate_order < SINEW_ROTATE_ORDER_MAX) ? (sinew_rotate_order_t)x->rotate_order
                                                                               : SINEW_ROTATE_XYZ;
  in.ssc = x->segment_scale_compensate;
  if (joint) sinew__joint_local(&in, out);
  else sinew__transform_local(&in, out);
}

int sinew_xform_data_create(const sinew_xform_t *x, sinew_data_t **out) {
  if (!x || !out) return SINEW_EINVAL;
  sinew_data_t *d;
  int rc = sinew_data_create(&sinew_xform_data_type, sizeof *x, &d);
  if (rc) return rc;
  memcpy(sinew_data_mutable(&d), x, sizeof *x);
  *out = d;
  return SINEW_OK;
}

const sinew_xform_t *sinew_xform_get(const sinew_data_t *data) {
  if (!data || sinew_data_type(data) != &sinew_xform_data_type || sinew_data_size(data) < sizeof(sinew_xform_t))
    return NULL;
  return sinew_data_get(data);
}

/* ---- a node's raw local values ------------------------------------------------------------------ */

enum { L_T, L_R, L_S, L_SH, L_RP, L_SP, L_RPT, L_SPT, L_RA, L_JO, L_VEC_COUNT };

/* The values dagPose saves and restores, as the attributes hold them (angles as Euler angles). */
typedef struct raw_local {
  double v[L_VEC_COUNT][3];
  double ro;
} raw_local;

static uint32_t vec_attr(int k) {
  switch (k) {
    case L_T: return sinew__dag.translate;
    case L_R: return sinew__dag.rotate;
    case L_S: return sinew__dag.scale;
    case L_SH: return sinew__dag.shear;
    case L_RP: return sinew__dag.rotate_pivot;
    case L_SP: return sinew__dag.scale_pivot;
    case L_RPT: return sinew__dag.rotate_pivot_translate;
    case L_SPT: return sinew__dag.scale_pivot_translate;
    case L_RA: return sinew__dag.rotate_axis;
    default: return sinew__dag.joint_orient;
  }
}

static bool is_a(const sinew_graph_t *g, sinew_node_t n, const char *type) {
  return sinew_node_type_is_a(sinew_node_type(g, n), type);
}

static void read3(sinew_graph_t *g, sinew_node_t n, uint32_t attr, double out[3]) {
  sinew_plug_t p = sinew_plug_make(n, attr, 0, NULL);
  out[0] = out[1] = out[2] = 0;
  sinew_get_doubles(g, &p, out, 3, NULL);
}

static void raw_read(sinew_graph_t *g, sinew_node_t n, bool joint, raw_local *r) {
  memset(r, 0, sizeof *r);
  for (int k = 0; k < L_VEC_COUNT; k++) {
    if (k == L_JO && !joint) continue;
    read3(g, n, vec_attr(k), r->v[k]);
  }
  sinew_plug_t ro = sinew_plug_make(n, sinew__dag.rotate_order, 0, NULL);
  sinew_get_double(g, &ro, &r->ro);
}

/* True when the Euler angles (xyz) describe the same rotation as q, to about 1e-12. */
static bool same_rotation(const double euler[3], const double q[4]) {
  sinew_mat4_t a, b;
  sinew_mat4_euler(v3(euler), SINEW_ROTATE_XYZ, &a);
  sinew_quat_to_mat4(q4(q), &b);
  return sinew_mat4_equal(&a, &b, 1e-12);
}

/* The raw values an xform asks for, keeping the current rotateAxis / jointOrient angles when
 * they already are the stored rotation. */
static void raw_from_xform(const sinew_xform_t *x, const raw_local *cur, bool joint, raw_local *r) {
  *r = *cur;
  memcpy(r->v[L_T], x->translate, sizeof r->v[L_T]);
  memcpy(r->v[L_R], x->rotate, sizeof r->v[L_R]);
  memcpy(r->v[L_S], x->scale, sizeof r->v[L_S]);
  memcpy(r->v[L_SH], x->shear, sizeof r->v[L_SH]);
  memcpy(r->v[L_RP], x->rotate_pivot, sizeof r->v[L_RP]);
  memcpy(r->v[L_SP], x->scale_pivot, sizeof r->v[L_SP]);
  memcpy(r->v[L_RPT], x->rotate_pivot_translate, sizeof r->v[L_RPT]);
  memcpy(r->v[L_SPT], x->scale_pivot_translate, sizeof r->v[L_SPT]);
  r->ro = x->rotate_order;
  sinew_vec3_t e;
  if (!same_rotation(cur->v[L_RA], x->rotate_axis)) {
    sinew_quat_to_euler(q4(x->rotate_axis), SINEW_ROTATE_XYZ, &e);
    r->v[L_RA][0] = e.x, r->v[L_RA][1] = e.y, r->v[L_RA][2] = e.z;
  }
  if (joint && !same_rotation(cur->v[L_JO], x->joint_orient)) {
    sinew_quat_to_euler(q4(x->joint_orient), SINEW_ROTATE_XYZ, &e);
    r->v[L_JO][0] = e.x, r->v[L_JO][1] = e.y, r->v[L_JO][2] = e.z;
  }
}

typedef struct write_item {
  sinew_plug_t plug;
  double value;
} write_item;

/* Writes the values of `want` that differ from `cur`, child by child. All or nothing: every
 * write is checked first (locked, connected), and the writes run in a transaction. */
static int raw_write(sinew_graph_t *g, sinew_node_t n, bool joint, const raw_local *want, const raw_local *cur,
                     const char *what) {
  write_item items[L_VEC_COUNT * 3 + 1];
  size_t count = 0;
  for (int k = 0; k < L_VEC_COUNT; k++) {
    if (k == L_JO && !joint) continue;
    sinew_attr_info_t info;
    if (sinew_node_attr_info(g, n, vec_attr(k), &info) || info.child_count < 3) continue;
    for (int c = 0; c < 3; c++) {
      if (want->v[k][c] == cur->v[k][c]) continue;
      sinew_plug_t child = sinew_plug_make(n, info.children[c], 0, NULL);
      items[count++] = (write_item){child, want->v[k][c]};
    }
  }
  if (want->ro != cur->ro)
    items[count++] = (write_item){sinew_plug_make(n, sinew__dag.rotate_order, 0, NULL), want->ro};
  for (size_t i = 0; i < count; i++) {
    sinew_plug_t parent, src;
    char buf[256];
    bool has_parent = sinew_plug_parent(g, &items[i].plug, &parent);
    if (sinew_plug_locked(g, &items[i].plug)) {
      sinew_plug_format(g, &items[i].plug, false, buf, sizeof buf);
      return sinew_graph_fail(g, SINEW_ELOCKED, what, "%s is locked", buf);
    }
    if (sinew_plug_source(g, &items[i].plug, &src) || (has_parent && sinew_plug_source(g, &parent, &src))) {
      sinew_plug_format(g, &items[i].plug, false, buf, sizeof buf);
      return sinew_graph_fail(g, SINEW_ECONNECTED, what, "%s is connected and differs from the pose", buf);
    }
  }
  int rc = sinew_graph_begin(g);
  if (rc) return rc;
  for (size_t i = 0; i < count && !rc; i++) rc = sinew_set_double(g, &items[i].plug, items[i].value);
  return sinew_graph_end(g, rc);
}

int sinew_xform_from_node(sinew_graph_t *g, sinew_node_t n, sinew_xform_t *out) {
  if (!g || !out) return SINEW_EINVAL;
  if (!is_a(g, n, "transform"))
    return sinew_graph_fail(g, SINEW_ETYPE, "xform", "%s is not a transform",
                            sinew_node_name(g, n) ? sinew_node_name(g, n) : "(invalid node)");
  bool joint = is_a(g, n, "joint");
  raw_local r;
  raw_read(g, n, joint, &r);
  sinew_xform_t x;
  sinew_xform_identity(&x);
  memcpy(x.translate, r.v[L_T], sizeof x.translate);
  memcpy(x.rotate, r.v[L_R], sizeof x.rotate);
  memcpy(x.scale, r.v[L_S], sizeof x.scale);
  memcpy(x.shear, r.v[L_SH], sizeof x.shear);
  memcpy(x.rotate_pivot, r.v[L_RP], sizeof x.rotate_pivot);
  memcpy(x.scale_pivot, r.v[L_SP], sizeof x.scale_pivot);
  memcpy(x.rotate_pivot_translate, r.v[L_RPT], sizeof x.rotate_pivot_translate);
  memcpy(x.scale_pivot_translate, r.v[L_SPT], sizeof x.scale_pivot_translate);
  x.rotate_order = (r.ro >= 0 && r.ro <= 5) ? (int)r.ro : 0;
  sinew_quat_t q;
  sinew_quat_from_euler(v3(r.v[L_RA]), SINEW_ROTATE_XYZ, &q);
  x.rotate_axis[0] = q.x, x.rotate_axis[1] = q.y, x.rotate_axis[2] = q.z, x.rotate_axis[3] = q.w;
  if (joint) {
    sinew_quat_from_euler(v3(r.v[L_JO]), SINEW_ROTATE_XYZ, &q);
    x.joint_orient[0] = q.x, x.joint_orient[1] = q.y, x.joint_orient[2] = q.z, x.joint_orient[3] = q.w;
    read3(g, n, sinew__dag.inverse_scale, x.inverse_scale);
    sinew_plug_t ssc = sinew_plug_make(n, sinew__dag.ssc, 0, NULL);
    bool on = true;
    sinew_get_bool(g, &ssc, &on);
    x.segment_scale_compensate = on;
  }
  *out = x;
  return SINEW_OK;
}

int sinew_xform_to_node(sinew_graph_t *g, sinew_node_t n, const sinew_xform_t *x) {
  if (!g || !x) return SINEW_EINVAL;
  if (!is_a(g, n, "transform"))
    return sinew_graph_fail(g, SINEW_ETYPE, "xform", "%s is not a transform",
                            sinew_node_name(g, n) ? sinew_node_name(g, n) : "(invalid node)");
  bool joint = is_a(g, n, "joint");
  raw_local cur, want;
  raw_read(g, n, joint, &cur);
  raw_from_xform(x, &cur, joint, &want);
  return raw_write(g, n, joint, &want, &cur, "xform");
}

/* ---- the dagPose node type ----------------------------------------------------------------- */

typedef struct pose_ids {
  uint32_t members, parents, world, world_matrix, xform_matrix, global, bind_pose;
} pose_ids;
static pose_ids P;

#define F_ARR (SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY)

static const sinew_attr_desc_t pose_attrs[] = {
    {.name = "members", .short_name = "m", .type = SINEW_ATTR_MESSAGE, .flags = F_ARR},
    {.name = "parents", .short_name = "p", .type = SINEW_ATTR_MESSAGE, .flags = F_ARR},
    {.name = "world", .short_name = "w", .type = SINEW_ATTR_MESSAGE},
    {.name = "worldMatrix", .short_name = "wm", .type = SINEW_ATTR_MATRIX, .flags = F_ARR},
    {.name = "xformMatrix", .short_name = "xm", .type = SINEW_ATTR_DATA, .flags = F_ARR,
     .data_type = &sinew_xform_data_type},
    {.name = "global", .short_name = "g", .type = SINEW_ATTR_BOOL, .flags = F_ARR},
    {.name = "bindPose", .short_name = "bp", .type = SINEW_ATTR_BOOL},
};

int sinew__register_pose_types(sinew_graph_t *g) {
  if (sinew_find_node_type(g, "dagPose")) return SINEW_OK;
  const sinew_node_type_t *t;
  sinew_node_type_desc_t d = {.name = "dagPose", .attrs = pose_attrs,
                              .attr_count = sizeof pose_attrs / sizeof *pose_attrs};
  int rc = sinew_register_node_type(g, &d, &t);
  if (rc) return rc;
  P = (pose_ids){.members = sinew_node_type_attr(t, "m"), .parents = sinew_node_type_attr(t, "p"),
                 .world = sinew_node_type_attr(t, "w"), .world_matrix = sinew_node_type_attr(t, "wm"),
                 .xform_matrix = sinew_node_type_attr(t, "xm"), .global = sinew_node_type_attr(t, "g"),
                 .bind_pose = sinew_node_type_attr(t, "bp")};
  return SINEW_OK;
}

/* ---- members -------------------------------------------------------------------------------- */

typedef struct member {
  int32_t index;
  sinew_node_t node;
  uint32_t depth;
  uint32_t order; /* position in the caller's list, for stable sorting */
} member;

static sinew_plug_t elem(sinew_node_t pose, uint32_t attr, int32_t j) { return sinew_plug_make(pose, attr, 1, &j); }

static uint32_t depth_of(const sinew_graph_t *g, sinew_node_t n) {
  uint32_t d = 0;
  for (sinew_node_t p = sinew_node_parent(g, n); p.gen; p = sinew_node_parent(g, p)) d++;
  return d;
}

static bool node_eq(sinew_node_t a, sinew_node_t b) { return a.index == b.index && a.gen == b.gen; }

/* The members (index ascending) in scratch memory; *count their number. NULL only on
 * out-of-memory (a pose without members gives a valid empty array). */
static member *members_get(const sinew_graph_t *g, sinew_node_t pose, size_t *count, sinew_data_t **holder) {
  sinew_plug_t m = sinew_plug_make(pose, P.members, 0, NULL);
  size_t n = sinew_plug_indices(g, &m, NULL, 0);
  member *out = sinew__scratch((n + 1) * (sizeof(member) + sizeof(int32_t)), holder);
  if (!out) return NULL;
  int32_t *idx = (int32_t *)(out + n + 1);
  sinew_plug_indices(g, &m, idx, n);
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    sinew_plug_t e = elem(pose, P.members, idx[i]), src;
    if (!sinew_plug_source(g, &e, &src) || !sinew_node_valid(g, src.node)) continue;
    out[k++] = (member){.index = idx[i], .node = src.node, .depth = depth_of(g, src.node), .order = (uint32_t)i};
  }
  *count = k;
  return out;
}

static int32_t member_index(const member *ms, size_t n, sinew_node_t node) {
  for (size_t i = 0; i < n; i++)
    if (node_eq(ms[i].node, node)) return ms[i].index;
  return -1;
}

static int by_depth(const void *a, const void *b) {
  const member *x = a, *y = b;
  if (x->depth != y->depth) return x->depth < y->depth ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

static bool is_pose(const sinew_graph_t *g, sinew_node_t n) { return is_a(g, n, "dagPose"); }

static int not_pose(sinew_graph_t *g, sinew_node_t n, const char *what) {
  return sinew_graph_fail(g, sinew_node_valid(g, n) ? SINEW_ETYPE : SINEW_ESTALE, what, "%s is not a dagPose",
                          sinew_node_name(g, n) ? sinew_node_name(g, n) : "(invalid node)");
}

size_t sinew_pose_members(const sinew_graph_t *g, sinew_node_t pose, sinew_node_t *out_nodes, int32_t *out_index,
                          size_t cap) {
  if (!g || !is_pose(g, pose)) return 0;
  sinew_data_t *h;
  size_t n = 0;
  member *ms = members_get(g, pose, &n, &h);
  if (!ms) return 0;
  for (size_t i = 0; i < n && i < cap; i++) {
    if (out_nodes) out_nodes[i] = ms[i].node;
    if (out_index) out_index[i] = ms[i].index;
  }
  sinew_data_unref(h);
  return n;
}

int sinew_pose_member_index(const sinew_graph_t *g, sinew_node_t pose, sinew_node_t node, int32_t *out) {
  if (!g || !is_pose(g, pose)) return SINEW_ETYPE;
  sinew_data_t *h;
  size_t n = 0;
  member *ms = members_get(g, pose, &n, &h);
  if (!ms) return SINEW_ENOMEM;
  int32_t j = member_index(ms, n, node);
  sinew_data_unref(h);
  if (j < 0) return SINEW_ENOTFOUND;
  if (out) *out = j;
  return SINEW_OK;
}

static bool pose_is_bind(sinew_graph_t *g, sinew_node_t pose) {
  bool bp = false;
  sinew_plug_t p = sinew_plug_make(pose, P.bind_pose, 0, NULL);
  sinew_get_bool(g, &p, &bp);
  return bp;
}

int sinew_pose_find_bind_pose(sinew_graph_t *g, sinew_node_t node, sinew_node_t *out) {
  if (!g || !sinew_node_valid(g, node)) return SINEW_EINVAL;
  if (!sinew_find_node_type(g, "dagPose")) return SINEW_ENOTFOUND;
  sinew_plug_t msg = sinew_plug_make(node, sinew_node_attr(g, node, "message"), 0, NULL);
  size_t n = sinew_plug_destinations(g, &msg, NULL, 0);
  if (!n) return SINEW_ENOTFOUND;
  sinew_data_t *h;
  sinew_plug_t *dst = sinew__scratch(n * sizeof *dst, &h);
  if (!dst) return SINEW_ENOMEM;
  sinew_plug_destinations(g, &msg, dst, n);
  int rc = SINEW_ENOTFOUND;
  for (size_t i = 0; i < n && rc; i++) {
    if (dst[i].attr != P.members || !is_pose(g, dst[i].node) || !pose_is_bind(g, dst[i].node)) continue;
    if (out) *out = dst[i].node;
    rc = SINEW_OK;
  }
  sinew_data_unref(h);
  return rc;
}

/* p[j] <- m[k] of the DAG parent when it is a member, else <- w. */
static int link_parent(sinew_graph_t *g, sinew_node_t pose, const member *ms, size_t n,
                       const member *m) {
  sinew_node_t parent = sinew_node_parent(g, m->node);
  int32_t k = parent.gen ? member_index(ms, n, parent) : -1;
  sinew_plug_t src = k >= 0 ? elem(pose, P.members, k) : sinew_plug_make(pose, P.world, 0, NULL);
  sinew_plug_t dst = elem(pose, P.parents, m->index);
  return sinew__connect_replacing(g, &src, &dst);
}

/* Stores the node's current state into xm[j] and wm[j] (or the joint's bps in a bind pose). */
static int store_member(sinew_graph_t *g, sinew_node_t pose, const member *m, bool bind) {
  sinew_xform_t x;
  sinew_mat4_t world;
  int rc = sinew_xform_from_node(g, m->node, &x);
  if (!rc) rc = sinew_dag_world_matrix(g, m->node, &world);
  if (rc) return rc;
  sinew_data_t *xd;
  if ((rc = sinew_xform_data_create(&x, &xd))) return oom(g, "dagPose");
  sinew_plug_t xm = elem(pose, P.xform_matrix, m->index);
  rc = sinew_set_data(g, &xm, xd);
  sinew_data_unref(xd);
  if (rc) return rc;
  sinew_plug_t wm = elem(pose, P.world_matrix, m->index), src;
  bool joint = is_a(g, m->node, "joint");
  if (bind && joint) {
    sinew_plug_t bps = sinew_plug_make(m->node, sinew__dag.bind_pose, 0, NULL);
    if ((rc = sinew_set_matrix(g, &bps, &world))) return rc;
    return sinew__connect_replacing(g, &bps, &wm);
  }
  if (sinew_plug_source(g, &wm, &src) && (rc = sinew_disconnect(g, &src, &wm))) return rc;
  return sinew_set_matrix(g, &wm, &world);
}

/* Adds the nodes that are not members (and, in a bind pose, in no other bind pose). */
static int add_members(sinew_graph_t *g, sinew_node_t pose, const sinew_node_t *nodes,
                       const bool *global, size_t count, bool bind) {
  sinew_data_t *h = NULL, *h2 = NULL;
  size_t n = 0;
  member *ms = members_get(g, pose, &n, &h);
  member *all = ms ? sinew__scratch((n + count + 1) * sizeof *all, &h2) : NULL;
  if (!all) {
    sinew_data_unref(h);
    return oom(g, "dagPose");
  }
  memcpy(all, ms, n * sizeof *all);
  sinew_data_unref(h);
  size_t first_new = n, total = n;
  for (size_t i = 0; i < count; i++) {
    if (member_index(all, total, nodes[i]) >= 0) continue;
    sinew_node_t other;
    if (bind && sinew_pose_find_bind_pose(g, nodes[i], &other) == SINEW_OK && !node_eq(other, pose)) continue;
    all[total++] = (member){.index = -1, .node = nodes[i], .depth = depth_of(g, nodes[i]), .order = (uint32_t)i};
  }
  qsort(all + first_new, total - first_new, sizeof *all, by_depth);
  int rc = SINEW_OK;
  sinew_plug_t marr = sinew_plug_make(pose, P.members, 0, NULL);
  for (size_t i = first_new; i < total && !rc; i++) {
    member *m = &all[i];
    m->index = sinew_plug_next_index(g, &marr);
    sinew_plug_t msg = sinew_plug_make(m->node, sinew_node_attr(g, m->node, "message"), 0, NULL);
    sinew_plug_t dst = elem(pose, P.members, m->index);
    if (m->index < 0) rc = sinew_graph_fail(g, SINEW_ERANGE, "dagPose", "no free member index");
    if (!rc) rc = sinew__connect_replacing(g, &msg, &dst);
    if (!rc) rc = store_member(g, pose, m, bind);
    bool gl = global && global[m->order];
    sinew_plug_t gp = elem(pose, P.global, m->index);
    if (!rc && (gl || sinew_plug_has_value(g, &gp))) rc = sinew_set_double(g, &gp, gl ? 1 : 0);
  }
  /* parents: the new members, and old members whose DAG parent just became a member */
  for (size_t i = 0; i < total && !rc; i++) {
    bool relink = i >= first_new;
    sinew_node_t parent = sinew_node_parent(g, all[i].node);
    for (size_t k = first_new; !relink && parent.gen && k < total; k++) relink = node_eq(all[k].node, parent);
    if (relink) rc = link_parent(g, pose, all, total, &all[i]);
  }
  sinew_data_unref(h2);
  return rc;
}

static int check_nodes(sinew_graph_t *g, const sinew_node_t *nodes, size_t count, const char *what) {
  if (!nodes && count) return sinew_graph_fail(g, SINEW_EINVAL, what, "no node list");
  for (size_t i = 0; i < count; i++)
    if (!is_a(g, nodes[i], "transform"))
      return sinew_graph_fail(g, sinew_node_valid(g, nodes[i]) ? SINEW_ETYPE : SINEW_ESTALE, what,
                              "%s is not a transform or joint",
                              sinew_node_name(g, nodes[i]) ? sinew_node_name(g, nodes[i]) : "(invalid node)");
  return SINEW_OK;
}

static int need_pose_type(sinew_graph_t *g, const char *what) {
  if (sinew_find_node_type(g, "dagPose")) return SINEW_OK;
  return sinew_graph_fail(g, SINEW_ENOTFOUND, what, "the dagPose type is not registered");
}

int sinew__bind_pose_add(sinew_graph_t *g, const sinew_node_t *nodes, size_t count,
                         sinew_node_t *out_pose) {
  int rc = need_pose_type(g, "bindPose");
  if (rc) return rc;
  sinew_node_t pose = {0, 0};
  for (size_t i = 0; i < count && !pose.gen; i++) sinew_pose_find_bind_pose(g, nodes[i], &pose);
  if (!pose.gen) {
    if ((rc = sinew_node_create(g, "dagPose", "bindPose#", &pose))) return rc;
    sinew_plug_t bp = sinew_plug_make(pose, P.bind_pose, 0, NULL);
    if ((rc = sinew_set_double(g, &bp, 1))) return rc;
  }
  if ((rc = add_members(g, pose, nodes, NULL, count, true))) return rc;
  if (out_pose) *out_pose = pose;
  return SINEW_OK;
}

/* ---- the pose operations ------------------------------------------------------------------ */

int sinew_pose_save(sinew_graph_t *g, const sinew_pose_save_desc_t *d, sinew_node_t *out) {
  if (!g || !d) return SINEW_EINVAL;
  int rc = need_pose_type(g, "dagPose -save");
  if (rc || (rc = check_nodes(g, d->nodes, d->count, "dagPose -save"))) return rc;
  if (!d->count) return sinew_graph_fail(g, SINEW_EINVAL, "dagPose", "-save: no nodes");
  if ((rc = sinew_graph_begin(g))) return rc;
  sinew_node_t pose = {0, 0};
  if (d->bind_pose)
    for (size_t i = 0; i < d->count && !pose.gen; i++) sinew_pose_find_bind_pose(g, d->nodes[i], &pose);
  if (!pose.gen) {
    rc = sinew_node_create(g, "dagPose", d->name ? d->name : d->bind_pose ? "bindPose#" : "dagPose#", &pose);
    sinew_plug_t bp = sinew_plug_make(pose, P.bind_pose, 0, NULL);
    if (!rc && d->bind_pose) rc = sinew_set_double(g, &bp, 1);
  }
  if (!rc) rc = add_members(g, pose, d->nodes, d->global, d->count, d->bind_pose);
  if ((rc = sinew_graph_end(g, rc))) return rc;
  if (out) *out = pose;
  return SINEW_OK;
}

int sinew_pose_add(sinew_graph_t *g, sinew_node_t pose, const sinew_node_t *nodes, size_t count) {
  if (!g) return SINEW_EINVAL;
  if (!is_pose(g, pose)) return not_pose(g, pose, "dagPose -addToPose");
  int rc = check_nodes(g, nodes, count, "dagPose -addToPose");
  if (rc) return rc;
  if ((rc = sinew_graph_begin(g))) return rc;
  rc = add_members(g, pose, nodes, NULL, count, pose_is_bind(g, pose));
  return sinew_graph_end(g, rc);
}

static bool element_exists(const sinew_graph_t *g, const sinew_plug_t *arr, int32_t j) {
  size_t n = sinew_plug_indices(g, arr, NULL, 0);
  if (!n) return false;
  sinew_data_t *h;
  int32_t *idx = sinew__scratch(n * sizeof *idx, &h);
  if (!idx) return false;
  sinew_plug_indices(g, arr, idx, n);
  bool found = false;
  for (size_t i = 0; i < n && !found; i++) found = idx[i] == j;
  sinew_data_unref(h);
  return found;
}

int sinew_pose_remove(sinew_graph_t *g, sinew_node_t pose, const sinew_node_t *nodes, size_t count) {
  if (!g) return SINEW_EINVAL;
  if (!is_pose(g, pose)) return not_pose(g, pose, "dagPose -remove");
  if (!nodes && count) return SINEW_EINVAL;
  sinew_data_t *h, *h2;
  size_t n = 0;
  member *ms = members_get(g, pose, &n, &h);
  int32_t *gone = ms ? sinew__scratch((n + 1) * sizeof *gone, &h2) : NULL;
  if (!gone) {
    sinew_data_unref(h);
    return oom(g, "dagPose -remove");
  }
  size_t ngone = 0, kept = 0;
  for (size_t i = 0; i < n; i++) {
    bool drop = false;
    for (size_t k = 0; k < count && !drop; k++) drop = node_eq(ms[i].node, nodes[k]);
    if (drop) gone[ngone++] = ms[i].index;
    else ms[kept++] = ms[i];
  }
  /* Break the removed members' connections, re-link the remaining members, then remove the
   * elements and their values. */
  int rc = sinew_graph_begin(g);
  if (!rc) {
    for (size_t i = 0; i < ngone && !rc; i++) {
      const uint32_t attrs[] = {P.members, P.parents, P.world_matrix};
      for (size_t a = 0; a < 3 && !rc; a++) {
        sinew_plug_t e = elem(pose, attrs[a], gone[i]), src;
        if (sinew_plug_source(g, &e, &src)) rc = sinew_disconnect(g, &src, &e);
      }
    }
    for (size_t i = 0; i < kept && !rc && ngone; i++) rc = link_parent(g, pose, ms, kept, &ms[i]);
    for (size_t i = 0; i < ngone && !rc; i++) {
      const uint32_t attrs[] = {P.members, P.parents, P.world_matrix, P.xform_matrix, P.global};
      for (size_t a = 0; a < 5 && !rc; a++) {
        sinew_plug_t e = elem(pose, attrs[a], gone[i]), arr = sinew_plug_make(pose, attrs[a], 0, NULL);
        if (element_exists(g, &arr, gone[i])) rc = sinew_plug_remove_element(g, &e);
      }
    }
    rc = sinew_graph_end(g, rc);
  }
  sinew_data_unref(h);
  sinew_data_unref(h2);
  return rc;
}

int sinew_pose_reset(sinew_graph_t *g, sinew_node_t pose) {
  if (!g) return SINEW_EINVAL;
  if (!is_pose(g, pose)) return not_pose(g, pose, "dagPose -reset");
  sinew_data_t *h;
  size_t n = 0;
  member *ms = members_get(g, pose, &n, &h);
  if (!ms) return oom(g, "dagPose -reset");
  bool bind = pose_is_bind(g, pose);
  int rc = sinew_graph_begin(g);
  if (!rc) {
    for (size_t i = 0; i < n && !rc; i++)
      if (is_a(g, ms[i].node, "transform")) rc = store_member(g, pose, &ms[i], bind);
    for (size_t i = 0; i < n && !rc; i++) rc = link_parent(g, pose, ms, n, &ms[i]);
    rc = sinew_graph_end(g, rc);
  }
  sinew_data_unref(h);
  return rc;
}

static bool member_global(sinew_graph_t *g, sinew_node_t pose, int32_t j, uint32_t flags) {
  if (flags & SINEW_POSE_GLOBAL) return true;
  bool on = false;
  sinew_plug_t p = elem(pose, P.global, j);
  sinew_get_bool(g, &p, &on);
  return on;
}

/* The saved xform of member j (a new reference) or NULL. */
static sinew_data_t *saved_xform(sinew_graph_t *g, sinew_node_t pose, int32_t j) {
  sinew_data_t *d = NULL;
  sinew_plug_t p = elem(pose, P.xform_matrix, j);
  if (sinew_get_data(g, &p, &d)) return NULL;
  if (d && !sinew_xform_get(d)) {
    sinew_data_unref(d);
    return NULL;
  }
  return d;
}

static void saved_world(sinew_graph_t *g, sinew_node_t pose, int32_t j, sinew_mat4_t *out) {
  sinew_plug_t p = elem(pose, P.world_matrix, j);
  if (sinew_get_matrix(g, &p, out)) sinew_mat4_identity(out);
}

/* The matrix between the local matrix and the world: offsetParentMatrix * parentMatrix. */
static void above_local(sinew_graph_t *g, sinew_node_t n, sinew_mat4_t *out) {
  sinew_mat4_t opm, pm;
  sinew_plug_t po = sinew_plug_make(n, sinew__dag.offset_parent_matrix, 0, NULL);
  sinew_plug_t pp = sinew_plug_make(n, sinew__dag.parent_matrix, 1, (int32_t[]){0});
  if (sinew_get_matrix(g, &po, &opm)) sinew_mat4_identity(&opm);
  if (sinew_get_matrix(g, &pp, &pm)) sinew_mat4_identity(&pm);
  sinew_mat4_mul(&opm, &pm, out);
}

static int restore_member(sinew_graph_t *g, sinew_node_t pose, const member *m, uint32_t flags) {
  const char *what = "dagPose -restore";
  if (!is_a(g, m->node, "transform")) return SINEW_OK; /* only transforms carry a pose */
  bool joint = is_a(g, m->node, "joint");
  sinew_data_t *xd = saved_xform(g, pose, m->index);
  const sinew_xform_t *x = sinew_xform_get(xd);
  bool global = member_global(g, pose, m->index, flags);
  raw_local cur, want;
  raw_read(g, m->node, joint, &cur);
  int rc = SINEW_OK;
  if (x) {
    raw_from_xform(x, &cur, joint, &want);
    rc = raw_write(g, m->node, joint, &want, &cur, what);
  }
  sinew_data_unref(xd);
  if (rc || !global) return rc;
  /* Global: the saved world matrix wins. When the local values already give it (the
   * hierarchy did not change), they are kept as they are. */
  sinew_mat4_t wm, world, above, inv, local;
  saved_world(g, pose, m->index, &wm);
  if ((rc = sinew_dag_world_matrix(g, m->node, &world))) return rc;
  if (x && sinew_mat4_equal(&world, &wm, 1e-10)) return SINEW_OK;
  above_local(g, m->node, &above);
  if (!sinew_mat4_inverse(&above, &inv))
    return sinew_graph_fail(g, SINEW_ERANGE, what, "%s: the parent's world matrix is singular",
                            sinew_node_name(g, m->node));
  sinew_mat4_mul(&wm, &inv, &local);
  return sinew_dag_set_local_matrix(g, m->node, &local);
}

int sinew_pose_restore(sinew_graph_t *g, sinew_node_t pose, uint32_t flags) {
  if (!g) return SINEW_EINVAL;
  if (!is_pose(g, pose)) return not_pose(g, pose, "dagPose -restore");
  sinew_data_t *h;
  size_t n = 0;
  member *ms = members_get(g, pose, &n, &h);
  if (!ms) return oom(g, "dagPose -restore");
  qsort(ms, n, sizeof *ms, by_depth);
  int rc = sinew_graph_begin(g);
  if (!rc) {
    for (size_t i = 0; i < n && !rc; i++) rc = restore_member(g, pose, &ms[i], flags);
    rc = sinew_graph_end(g, rc);
  }
  sinew_data_unref(h);
  return rc;
}

static bool near3(const double *a, const double *b, int n, double tol) {
  for (int k = 0; k < n; k++)
    if (!(fabs(a[k] - b[k]) <= tol)) return false;
  return true;
}

/* Local values compared with rotations compared as rotations. */
static bool xform_near(const sinew_xform_t *a, const sinew_xform_t *b, bool joint, double tol) {
  if (!near3(a->scale, b->scale, 3, tol) || !near3(a->translate, b->translate, 3, tol) ||
      !near3(a->shear, b->shear, 3, tol) || !near3(a->scale_pivot, b->scale_pivot, 3, tol) ||
      !near3(a->scale_pivot_translate, b->scale_pivot_translate, 3, tol) ||
      !near3(a->rotate_pivot, b->rotate_pivot, 3, tol) ||
      !near3(a->rotate_pivot_translate, b->rotate_pivot_translate, 3, tol) || a->rotate_order != b->rotate_order)
    return false;
  sinew_mat4_t ma, mb;
  sinew_rotate_order_t ro = (a->rotate_order >= 0 && a->rotate_order <= 5) ? (sinew_rotate_order_t)a->rotate_order
                                                                          : SINEW_ROTATE_XYZ;
  sinew_mat4_euler(v3(a->rotate), ro, &ma);
  sinew_mat4_euler(v3(b->rotate), ro, &mb);
  if (!sinew_mat4_equal(&ma, &mb, tol)) return false;
  sinew_quat_to_mat4(q4(a->rotate_axis), &ma);
  sinew_quat_to_mat4(q4(b->rotate_axis), &mb);
  if (!sinew_mat4_equal(&ma, &mb, tol)) return false;
  if (!joint) return true;
  sinew_quat_to_mat4(q4(a->joint_orient), &ma);
  sinew_quat_to_mat4(q4(b->joint_orient), &mb);
  return sinew_mat4_equal(&ma, &mb, tol);
}

int sinew_pose_not_at_pose(sinew_graph_t *g, sinew_node_t pose, uint32_t flags, double tol, sinew_node_t *out,
                           size_t cap, size_t *out_count) {
  if (!g) return SINEW_EINVAL;
  if (!is_pose(g, pose)) return not_pose(g, pose, "dagPose -atPose");
  if (!(tol > 0)) tol = SINEW_POSE_TOLERANCE;
  sinew_data_t *h;
  size_t n = 0, k = 0;
  member *ms = members_get(g, pose, &n, &h);
  if (!ms) return oom(g, "dagPose -atPose");
  int rc = SINEW_OK;
  for (size_t i = 0; i < n && !rc; i++) {
    bool at = true;
    if (!is_a(g, ms[i].node, "transform")) continue;
    if (member_global(g, pose, ms[i].index, flags)) {
      sinew_mat4_t wm, world;
      saved_world(g, pose, ms[i].index, &wm);
      rc = sinew_dag_world_matrix(g, ms[i].node, &world);
      at = sinew_mat4_equal(&wm, &world, tol);
    } else {
      sinew_data_t *xd = saved_xform(g, pose, ms[i].index);
      sinew_xform_t cur;
      if (xd && !(rc = sinew_xform_from_node(g, ms[i].node, &cur)))
        at = xform_near(sinew_xform_get(xd), &cur, is_a(g, ms[i].node, "joint"), tol);
      sinew_data_unref(xd);
    }
    if (!at) {
      if (out && k < cap) out[k] = ms[i].node;
      k++;
    }
  }
  sinew_data_unref(h);
  if (!rc && out_count) *out_count = k;
  return rc;
}
