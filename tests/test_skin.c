/* tests/test_skin.c: the skinCluster deformer (nodes/skin_cluster.c, spec section 4.3).
 *
 * A. Maya's own output: tests/data/maya-skin-truth (Maya 2020 scenes and the points Maya
 *    computed for them): linear with a moved mesh, dual quaternion, DQ with scale, weight blended.
 * B. UsdSkel's baked results: tests/data/openusd-usdskel (lbs.usda, dqs.usda and
 *    baseline/STEM.baked.usda): every frame 1..30, points and (vertex) normals.
 * C. Behaviour by hand on small meshes: bind pose, pivots, envelope, nodeState, zero weights,
 *    normalizeWeights, sparse influences, geomMatrix, DQ volume, weight blending, normals.
 * D. Granularity: what is recompiled and re-evaluated when, and thread-count independence.
 *
 * The two file readers below (.ma and .usda) are test scaffolding: strict readers for exactly
 * what these reference files contain, to be replaced by the real loaders. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinew/sinew.h"
#include "tests/support.h"

#define DATA_DIR SINEW_SOURCE_DIR "/tests/data"
#define PI 3.14159265358979323846

/* ---- small helpers ------------------------------------------------------------------------- */

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)size + 1);
  assert_non_null(buf);
  assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
  buf[size] = '\0';
  fclose(f);
  return buf;
}

static void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size);
  assert_non_null(p);
  return p;
}

static void *xrealloc(void *p, size_t size) {
  p = realloc(p, size ? size : 1);
  assert_non_null(p);
  return p;
}

static sinew_mat4_t mat_translate(double x, double y, double z) {
  sinew_mat4_t m;
  sinew_mat4_translate((sinew_vec3_t){x, y, z}, &m);
  return m;
}

static sinew_mat4_t mat_scale(double x, double y, double z) {
  sinew_mat4_t m;
  sinew_mat4_scale((sinew_vec3_t){x, y, z}, &m);
  return m;
}

static sinew_mat4_t mat_rot_x(double deg) {
  sinew_mat4_t m;
  sinew_mat4_rotate_x(deg * PI / 180, &m);
  return m;
}

static sinew_mat4_t mat_rot_y(double deg) {
  sinew_mat4_t m;
  sinew_mat4_rotate_y(deg * PI / 180, &m);
  return m;
}

static sinew_mat4_t mat_rot_z(double deg) {
  sinew_mat4_t m;
  sinew_mat4_rotate_z(deg * PI / 180, &m);
  return m;
}

/* a * b ("a then b"). */
static sinew_mat4_t mul(sinew_mat4_t a, sinew_mat4_t b) {
  sinew_mat4_t m;
  sinew_mat4_mul(&a, &b, &m);
  return m;
}

static sinew_mat4_t inv(sinew_mat4_t a) {
  sinew_mat4_t m;
  assert_true(sinew_mat4_inverse(&a, &m));
  return m;
}

static sinew_mat4_t transposed(sinew_mat4_t a) {
  sinew_mat4_t m;
  sinew_mat4_transpose(&a, &m);
  return m;
}

static double dist3(const float *a, const double *b) {
  double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
  return sqrt(dx * dx + dy * dy + dz * dz);
}

static void assert_point(const float *got, double x, double y, double z, double tol) {
  double want[3] = {x, y, z};
  if (!(dist3(got, want) <= tol))
    fail_msg("point (%.9g %.9g %.9g), expected (%.9g %.9g %.9g) within %g", got[0], got[1], got[2], x, y, z,
             tol);
}

/* Deterministic pseudo-random numbers in [0, 1). */
static double rnd(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(*s >> 11) / 9007199254740992.0;
}

/* ---- a skinCluster driven through the public API -------------------------------------------- */

typedef struct rig {
  sinew_graph_t *g;
  sinew_node_t skin;
  uint32_t ig, og, w, ma, pm, gm, skm, nw, bw, en, nds, dun;
} rig;

static uint32_t skin_attr(rig *r, const char *name) {
  uint32_t a = sinew_node_attr(r->g, r->skin, name);
  if (a == UINT32_MAX) fail_msg("skinCluster has no attribute %s", name);
  return a;
}

static void rig_init(rig *r) {
  memset(r, 0, sizeof *r);
  assert_int_equal(sinew_scene_create(NULL, &r->g), SINEW_OK);
  assert_int_equal(sinew_node_create(r->g, "skinCluster", "skinCluster1", &r->skin), SINEW_OK);
  r->ig = skin_attr(r, "ig");
  r->og = skin_attr(r, "og");
  r->w = skin_attr(r, "w");
  r->ma = skin_attr(r, "ma");
  r->pm = skin_attr(r, "pm");
  r->gm = skin_attr(r, "gm");
  r->skm = skin_attr(r, "skm");
  r->nw = skin_attr(r, "nw");
  r->bw = skin_attr(r, "bw");
  r->en = skin_attr(r, "en");
  r->nds = skin_attr(r, "nds");
  r->dun = skin_attr(r, "dun");
}

static void rig_free(rig *r) { sinew_graph_destroy(r->g); }

/* A point-cloud mesh (no faces); normals optional. xyz are doubles, stored as floats. */
static sinew_data_t *make_mesh(uint32_t n, const double *xyz, const double *normals) {
  sinew_data_t *m = NULL;
  assert_int_equal(sinew_mesh_create(n, 0, NULL, NULL, &m), SINEW_OK);
  float *p = sinew_mesh_points_mutable(&m);
  assert_non_null(p);
  for (uint32_t i = 0; i < 3 * n; i++) p[i] = (float)xyz[i];
  if (normals) {
    float *q = sinew_mesh_normals_mutable(&m);
    assert_non_null(q);
    for (uint32_t i = 0; i < 3 * n; i++) q[i] = (float)normals[i];
  }
  return m;
}

static void set_input(rig *r, sinew_data_t *mesh) {
  sinew_plug_t p = sinew_plug_make(r->skin, r->ig, 1, (int32_t[]){0});
  assert_int_equal(sinew_set_data(r->g, &p, mesh), SINEW_OK);
}

static void set_weights(rig *r, int32_t v, size_t n, const int32_t *idx, const double *w) {
  sinew_plug_t p = sinew_plug_make(r->skin, r->w, 1, &v);
  assert_int_equal(sinew_set_double_elements(r->g, &p, idx, w, n), SINEW_OK);
}

static void set_weight1(rig *r, int32_t v, int32_t idx, double w) { set_weights(r, v, 1, &idx, &w); }

static void set_mat_elem(rig *r, uint32_t attr, int32_t i, sinew_mat4_t m) {
  sinew_plug_t p = sinew_plug_make(r->skin, attr, 1, &i);
  assert_int_equal(sinew_set_matrix(r->g, &p, &m), SINEW_OK);
}

/* Influence i: bind world matrix `bind` (pm = its inverse) and current world matrix `now`. */
static void set_influence(rig *r, int32_t i, sinew_mat4_t bind, sinew_mat4_t now) {
  set_mat_elem(r, r->pm, i, inv(bind));
  set_mat_elem(r, r->ma, i, now);
}

static void set_gm(rig *r, sinew_mat4_t m) {
  sinew_plug_t p = sinew_plug_make(r->skin, r->gm, 0, NULL);
  assert_int_equal(sinew_set_matrix(r->g, &p, &m), SINEW_OK);
}

static void set_num(rig *r, uint32_t attr, double v) {
  sinew_plug_t p = sinew_plug_make(r->skin, attr, 0, NULL);
  assert_int_equal(sinew_set_double(r->g, &p, v), SINEW_OK);
}

/* outputGeometry[0] (a new reference: sinew_data_unref it). */
static sinew_data_t *get_out(rig *r) {
  sinew_plug_t p = sinew_plug_make(r->skin, r->og, 1, (int32_t[]){0});
  sinew_data_t *d = NULL;
  assert_int_equal(sinew_get_data(r->g, &p, &d), SINEW_OK);
  assert_non_null(d);
  assert_non_null(sinew_mesh_get(d));
  return d;
}

static void get_stats(rig *r, uint64_t *compiles, uint64_t *evals) {
  assert_int_equal(sinew_skin_cluster_stats(r->g, r->skin, compiles, evals), SINEW_OK);
}

/* =============================================================================================
 * Test scaffolding: a strict reader for the maya-skin-truth .ma files. It knows exactly the
 * statements those files contain (createNode transform/mesh/skinCluster, the setAttr forms
 * listed in the corpus README, connectAttr, requires, currentUnit) and fails on anything else.
 * To be replaced by the real .ma loader (spec section 8) once it exists.
 * ============================================================================================= */

typedef struct ma_tok {
  const char *s;
  bool quoted;
} ma_tok;

typedef struct ma_stmt {
  ma_tok *t;
  size_t n, cap;
  int line;
} ma_stmt;

#define MA_MAX_MESHES 4
#define MA_MAX_INF 64

typedef struct ma_case {
  const char *file;
  /* meshes, by name */
  int nmeshes;
  char mesh_name[MA_MAX_MESHES][64];
  double *mesh_points[MA_MAX_MESHES];
  long mesh_npoints[MA_MAX_MESHES];
  char ig_source[64]; /* the mesh node feeding skinCluster1.ip[0].ig */
  /* skinCluster */
  int nskins;
  long wl_size;                  /* setAttr -s N ".wl" */
  long nwl;                      /* weightList elements read: 0 .. nwl-1 */
  uint32_t *wl_off;              /* nwl + 1 */
  int32_t *wl_idx;
  double *wl_w;
  size_t wl_entries;
  long pm_size, ma_size;         /* -s N ".pm" / ".ma" */
  int npm, nma;
  int32_t pm_idx[MA_MAX_INF], ma_idx[MA_MAX_INF];
  sinew_mat4_t pm[MA_MAX_INF], ma[MA_MAX_INF];
  sinew_mat4_t gm;
  bool has_gm, has_skm, has_nw, has_en;
  int skm, nw;
  double en;
  double *bw;
  long nbw;
} ma_case;

static void ma_push(ma_stmt *st, ma_tok t) {
  if (st->n == st->cap) {
    st->cap = st->cap ? 2 * st->cap : 64;
    st->t = xrealloc(st->t, st->cap * sizeof *st->t);
  }
  st->t[st->n++] = t;
}

/* Cuts the next statement (up to ';', outside quotes) into tokens, in place. false at the end
 * of the text. "//" starts a comment up to the end of the line. */
static bool ma_next(const char *file, char **cur, int *line, ma_stmt *st) {
  char *p = *cur;
  st->n = 0;
  for (;;) {
    while (*p && isspace((unsigned char)*p)) {
      if (*p == '\n') (*line)++;
      p++;
    }
    if (!*p) {
      if (st->n) fail_msg("%s:%d: statement not terminated by ';'", file, st->line);
      *cur = p;
      return false;
    }
    if (p[0] == '/' && p[1] == '/') {
      while (*p && *p != '\n') p++;
      continue;
    }
    if (*p == ';') {
      if (!st->n) fail_msg("%s:%d: empty statement", file, *line);
      *cur = p + 1;
      return true;
    }
    if (!st->n) st->line = *line;
    ma_tok t = {.s = p, .quoted = false};
    if (*p == '"') {
      t.s = ++p;
      t.quoted = true;
      while (*p && *p != '"') {
        if (*p == '\n' || *p == '\\') fail_msg("%s:%d: unsupported string form", file, *line);
        p++;
      }
      if (!*p) fail_msg("%s:%d: unterminated string", file, *line);
      *p++ = '\0';
      ma_push(st, t);
      continue;
    }
    while (*p && !isspace((unsigned char)*p) && *p != ';' && *p != '"') p++;
    if (*p == '"') fail_msg("%s:%d: quote inside a word", file, *line);
    bool end = *p == ';';
    if (*p == '\n') (*line)++;
    if (*p) *p++ = '\0';
    ma_push(st, t);
    if (end) {
      *cur = p;
      return true;
    }
  }
}

static double ma_num(const ma_case *c, const ma_stmt *st, const ma_tok *t) {
  char *end;
  if (t->quoted) fail_msg("%s:%d: expected a number, got \"%s\"", c->file, st->line, t->s);
  double v = strtod(t->s, &end);
  if (end == t->s || *end || !isfinite(v)) fail_msg("%s:%d: bad number '%s'", c->file, st->line, t->s);
  return v;
}

static long ma_int(const ma_case *c, const ma_stmt *st, const ma_tok *t) {
  char *end;
  if (t->quoted) fail_msg("%s:%d: expected an integer, got \"%s\"", c->file, st->line, t->s);
  long v = strtol(t->s, &end, 10);
  if (end == t->s || *end) fail_msg("%s:%d: bad integer '%s'", c->file, st->line, t->s);
  return v;
}

static bool ma_bool(const ma_case *c, const ma_stmt *st, const ma_tok *t) {
  if (!t->quoted && (!strcmp(t->s, "yes") || !strcmp(t->s, "true") || !strcmp(t->s, "on") || !strcmp(t->s, "1")))
    return true;
  if (!t->quoted && (!strcmp(t->s, "no") || !strcmp(t->s, "false") || !strcmp(t->s, "off") || !strcmp(t->s, "0")))
    return false;
  fail_msg("%s:%d: bad boolean '%s'", c->file, st->line, t->s);
  return false;
}

/* attr == prefix "[a:b]" or "[a]" suffix exactly. */
static bool ma_range(const char *attr, const char *prefix, const char *suffix, long *a, long *b) {
  size_t lp = strlen(prefix);
  if (strncmp(attr, prefix, lp) || attr[lp] != '[') return false;
  char *end;
  const char *p = attr + lp + 1;
  *a = strtol(p, &end, 10);
  if (end == p) return false;
  *b = *a;
  if (*end == ':') {
    p = end + 1;
    *b = strtol(p, &end, 10);
    if (end == p) return false;
  }
  if (*end != ']' || strcmp(end + 1, suffix) || *a < 0 || *b < *a) return false;
  return true;
}

static int ma_mesh(ma_case *c, const char *name) {
  for (int i = 0; i < c->nmeshes; i++)
    if (!strcmp(c->mesh_name[i], name)) return i;
  return -1;
}

static void ma_matrix(const ma_case *c, const ma_stmt *st, const char *type, const ma_tok *v, size_t nv,
                      sinew_mat4_t *out) {
  if (!type || strcmp(type, "matrix") || nv != 16)
    fail_msg("%s:%d: expected -type \"matrix\" and 16 numbers", c->file, st->line);
  double a[16];
  for (int i = 0; i < 16; i++) a[i] = ma_num(c, st, &v[i]);
  sinew_mat4_from_array(a, out);
}

static void ma_setattr(ma_case *c, const ma_stmt *st, const char *node_type, const char *node_name) {
  long size = -1;
  const char *type = NULL;
  size_t i = 1;
  while (i < st->n && !st->t[i].quoted && st->t[i].s[0] == '-') {
    const char *f = st->t[i].s;
    if (i + 1 >= st->n) fail_msg("%s:%d: flag %s without a value", c->file, st->line, f);
    if (!strcmp(f, "-s")) size = ma_int(c, st, &st->t[i + 1]);
    else if (!strcmp(f, "-ch")) (void)ma_int(c, st, &st->t[i + 1]);
    else if (!strcmp(f, "-type") && st->t[i + 1].quoted) type = st->t[i + 1].s;
    else fail_msg("%s:%d: unsupported setAttr flag %s", c->file, st->line, f);
    i += 2;
  }
  if (i >= st->n || !st->t[i].quoted) fail_msg("%s:%d: setAttr without an attribute", c->file, st->line);
  const char *attr = st->t[i++].s;
  if (i + 1 < st->n && !st->t[i].quoted && !strcmp(st->t[i].s, "-type") && st->t[i + 1].quoted && !type) {
    type = st->t[i + 1].s; /* -type may also follow the attribute */
    i += 2;
  }
  const ma_tok *v = &st->t[i];
  size_t nv = st->n - i;
  long a, b;
  if (!node_type) fail_msg("%s:%d: setAttr before any createNode", c->file, st->line);

  if (!strcmp(node_type, "transform")) {
    if (!strcmp(attr, ".it") && nv == 1 && !type) {
      (void)ma_bool(c, st, v);
      return;
    }
  } else if (!strcmp(node_type, "mesh")) {
    int m = ma_mesh(c, node_name);
    if (!strcmp(attr, ".io") && nv == 1 && !type) {
      (void)ma_bool(c, st, v);
      return;
    }
    if (ma_range(attr, ".vt", "", &a, &b) && !type) {
      if (nv != (size_t)(3 * (b - a + 1)) || size < b + 1)
        fail_msg("%s:%d: .vt[%ld:%ld] with %zu values and -s %ld", c->file, st->line, a, b, nv, size);
      if (c->mesh_points[m]) fail_msg("%s:%d: .vt set twice (only one block supported)", c->file, st->line);
      c->mesh_npoints[m] = size;
      c->mesh_points[m] = xcalloc((size_t)size * 3, sizeof(double));
      for (size_t k = 0; k < nv; k++) c->mesh_points[m][3 * a + (long)k] = ma_num(c, st, &v[k]);
      return;
    }
    /* faces are not needed by the deformer: checked for form only */
    if (ma_range(attr, ".ed", "", &a, &b) && !type && nv == (size_t)(3 * (b - a + 1))) return;
    if (ma_range(attr, ".fc", "", &a, &b) && type && !strcmp(type, "polyFaces")) return;
  } else if (!strcmp(node_type, "skinCluster")) {
    if (!strcmp(attr, ".wl") && nv == 0 && size >= 0) {
      c->wl_size = size;
      return;
    }
    if (ma_range(attr, ".wl", ".w", &a, &b) && !type) {
      /* compact form: per vertex a count, then index/weight pairs */
      if (a != c->nwl) fail_msg("%s:%d: .wl blocks must follow each other", c->file, st->line);
      c->wl_off = xrealloc(c->wl_off, (size_t)(b + 2) * sizeof *c->wl_off);
      if (a == 0) c->wl_off[0] = 0;
      size_t k = 0;
      for (long vtx = a; vtx <= b; vtx++) {
        if (k >= nv) fail_msg("%s:%d: .wl record for vertex %ld missing", c->file, st->line, vtx);
        long cnt = ma_int(c, st, &v[k++]);
        if (cnt < 0 || k + 2 * (size_t)cnt > nv)
          fail_msg("%s:%d: .wl record for vertex %ld truncated", c->file, st->line, vtx);
        c->wl_idx = xrealloc(c->wl_idx, (c->wl_entries + (size_t)cnt) * sizeof *c->wl_idx);
        c->wl_w = xrealloc(c->wl_w, (c->wl_entries + (size_t)cnt) * sizeof *c->wl_w);
        for (long q = 0; q < cnt; q++) {
          long idx = ma_int(c, st, &v[k++]);
          if (idx < 0) fail_msg("%s:%d: negative influence index", c->file, st->line);
          c->wl_idx[c->wl_entries] = (int32_t)idx;
          c->wl_w[c->wl_entries++] = ma_num(c, st, &v[k++]);
        }
        c->wl_off[vtx + 1] = (uint32_t)c->wl_entries;
      }
      if (k != nv) fail_msg("%s:%d: %zu values left over after .wl[%ld:%ld]", c->file, st->line, nv - k, a, b);
      c->nwl = b + 1;
      return;
    }
    if ((!strcmp(attr, ".pm") || !strcmp(attr, ".ma")) && nv == 0 && size >= 0) {
      *(attr[1] == 'p' ? &c->pm_size : &c->ma_size) = size;
      return;
    }
    if (ma_range(attr, ".pm", "", &a, &b) && a == b) {
      if (c->npm == MA_MAX_INF) fail_msg("%s:%d: too many .pm", c->file, st->line);
      c->pm_idx[c->npm] = (int32_t)a;
      ma_matrix(c, st, type, v, nv, &c->pm[c->npm++]);
      return;
    }
    if (ma_range(attr, ".ma", "", &a, &b) && a == b) {
      if (c->nma == MA_MAX_INF) fail_msg("%s:%d: too many .ma", c->file, st->line);
      c->ma_idx[c->nma] = (int32_t)a;
      ma_matrix(c, st, type, v, nv, &c->ma[c->nma++]);
      return;
    }
    if (!strcmp(attr, ".gm")) {
      ma_matrix(c, st, type, v, nv, &c->gm);
      c->has_gm = true;
      return;
    }
    if (!strcmp(attr, ".skm") && nv == 1 && !type) {
      c->skm = (int)ma_int(c, st, v);
      c->has_skm = true;
      return;
    }
    if (!strcmp(attr, ".nw") && nv == 1 && !type) {
      c->nw = (int)ma_int(c, st, v);
      c->has_nw = true;
      return;
    }
    if (!strcmp(attr, ".mi") && nv == 1 && !type) {
      (void)ma_int(c, st, v); /* a bind/editing setting: no effect on the deformation */
      return;
    }
    if (!strcmp(attr, ".en") && nv == 1 && !type) {
      c->en = ma_num(c, st, v);
      c->has_en = true;
      return;
    }
    if (ma_range(attr, ".bw", "", &a, &b) && !type) {
      if (nv != (size_t)(b - a + 1)) fail_msg("%s:%d: .bw[%ld:%ld] with %zu values", c->file, st->line, a, b, nv);
      if (b + 1 > c->nbw) {
        c->bw = xrealloc(c->bw, (size_t)(b + 1) * sizeof *c->bw);
        for (long k = c->nbw; k <= b; k++) c->bw[k] = 0;
        c->nbw = b + 1;
      }
      for (size_t k = 0; k < nv; k++) c->bw[a + (long)k] = ma_num(c, st, &v[k]);
      return;
    }
  }
  fail_msg("%s:%d: unsupported setAttr %s on %s %s (%zu values)", c->file, st->line, attr, node_type, node_name, nv);
}

static void ma_load(const char *path, ma_case *c) {
  memset(c, 0, sizeof *c);
  c->file = path;
  char *text = read_text(path), *cur = text;
  int line = 1;
  ma_stmt st = {0};
  char node_type[32] = "", node_name[64] = "";
  while (ma_next(path, &cur, &line, &st)) {
    const char *cmd = st.t[0].s;
    if (st.t[0].quoted) fail_msg("%s:%d: statement starts with a string", path, st.line);
    if (!strcmp(cmd, "requires")) continue;
    if (!strcmp(cmd, "currentUnit")) {
      /* centimetres and degrees only: the values are then in internal units as they stand */
      for (size_t i = 1; i + 1 < st.n; i += 2) {
        const char *f = st.t[i].s, *val = st.t[i + 1].s;
        if ((!strcmp(f, "-l") && strcmp(val, "centimeter")) || (!strcmp(f, "-a") && strcmp(val, "degree")))
          fail_msg("%s:%d: unsupported unit %s %s", path, st.line, f, val);
      }
      continue;
    }
    if (!strcmp(cmd, "createNode")) {
      if (st.n < 4 || strcmp(st.t[2].s, "-n") || !st.t[3].quoted)
        fail_msg("%s:%d: expected createNode TYPE -n \"NAME\"", path, st.line);
      for (size_t i = 4; i < st.n; i += 2)
        if (strcmp(st.t[i].s, "-p") || i + 1 >= st.n || !st.t[i + 1].quoted)
          fail_msg("%s:%d: unsupported createNode flag %s", path, st.line, st.t[i].s);
      const char *type = st.t[1].s;
      if (strcmp(type, "transform") && strcmp(type, "mesh") && strcmp(type, "skinCluster"))
        fail_msg("%s:%d: unsupported node type %s", path, st.line, type);
      snprintf(node_type, sizeof node_type, "%s", type);
      snprintf(node_name, sizeof node_name, "%s", st.t[3].s);
      if (!strcmp(type, "mesh")) {
        if (c->nmeshes == MA_MAX_MESHES) fail_msg("%s:%d: too many meshes", path, st.line);
        snprintf(c->mesh_name[c->nmeshes++], sizeof c->mesh_name[0], "%s", node_name);
      }
      if (!strcmp(type, "skinCluster") && (c->nskins++ || strcmp(node_name, "skinCluster1")))
        fail_msg("%s:%d: expected exactly one skinCluster, skinCluster1", path, st.line);
      continue;
    }
    if (!strcmp(cmd, "setAttr")) {
      ma_setattr(c, &st, node_type[0] ? node_type : NULL, node_name);
      continue;
    }
    if (!strcmp(cmd, "connectAttr")) {
      if (st.n != 3 || !st.t[1].quoted || !st.t[2].quoted) fail_msg("%s:%d: unsupported connectAttr", path, st.line);
      if (!strcmp(st.t[2].s, "skinCluster1.ip[0].ig")) {
        const char *src = st.t[1].s, *dot = strrchr(src, '.');
        if (!dot || (strcmp(dot, ".w") && strcmp(dot, ".o") && strcmp(dot, ".wm[0]")))
          fail_msg("%s:%d: unexpected input geometry source %s", path, st.line, src);
        snprintf(c->ig_source, sizeof c->ig_source, "%.*s", (int)(dot - src), src);
      }
      continue;
    }
    fail_msg("%s:%d: unsupported statement %s", path, st.line, cmd);
  }
  free(st.t);
  free(text);
  /* consistency */
  if (c->nskins != 1) fail_msg("%s: no skinCluster", path);
  if (!c->ig_source[0]) fail_msg("%s: nothing feeds skinCluster1.ip[0].ig", path);
  int m = ma_mesh(c, c->ig_source);
  if (m < 0 || !c->mesh_points[m]) fail_msg("%s: the input mesh %s has no points", path, c->ig_source);
  if (c->wl_size != c->nwl) fail_msg("%s: -s %ld \".wl\" but %ld records", path, c->wl_size, c->nwl);
  if (c->pm_size != c->npm || c->ma_size != c->nma)
    fail_msg("%s: -s sizes of .pm/.ma do not match the elements set", path);
}

static void ma_free(ma_case *c) {
  for (int i = 0; i < c->nmeshes; i++) free(c->mesh_points[i]);
  free(c->wl_off);
  free(c->wl_idx);
  free(c->wl_w);
  free(c->bw);
}

/* CASE.expected.txt: "x y z" per line; '#' lines are comments. */
static double *read_expected(const char *path, long *n) {
  char *text = read_text(path), *p = text;
  double *v = NULL;
  long count = 0, cap = 0;
  int line = 0;
  while (*p) {
    char *eol = strchr(p, '\n');
    if (eol) *eol = '\0';
    line++;
    while (isspace((unsigned char)*p)) p++;
    if (*p && *p != '#') {
      if (count == cap) {
        cap = cap ? 2 * cap : 256;
        v = xrealloc(v, (size_t)cap * 3 * sizeof *v);
      }
      char *end;
      for (int k = 0; k < 3; k++) {
        v[3 * count + k] = strtod(p, &end);
        if (end == p) fail_msg("%s:%d: expected 3 numbers", path, line);
        p = end;
      }
      while (isspace((unsigned char)*p)) p++;
      if (*p) fail_msg("%s:%d: trailing text", path, line);
      count++;
    }
    if (!eol) break;
    p = eol + 1;
  }
  free(text);
  *n = count;
  return v;
}

/* ---- A. Maya's own output ------------------------------------------------------------------- */

static void test_maya_truth(void **state) {
  const char *name = *state;
  char path[512];
  ma_case c;
  snprintf(path, sizeof path, "%s/maya-skin-truth/%s.ma", DATA_DIR, name);
  ma_load(path, &c);
  snprintf(path, sizeof path, "%s/maya-skin-truth/%s.expected.txt", DATA_DIR, name);
  long nexp = 0;
  double *expected = read_expected(path, &nexp);
  int m = ma_mesh(&c, c.ig_source);
  long npoints = c.mesh_npoints[m];
  assert_int_equal(nexp, npoints);

  rig r;
  rig_init(&r);
  sinew_data_t *mesh = make_mesh((uint32_t)npoints, c.mesh_points[m], NULL);
  set_input(&r, mesh);
  for (long v = 0; v < c.nwl; v++)
    if (c.wl_off[v + 1] > c.wl_off[v])
      set_weights(&r, (int32_t)v, c.wl_off[v + 1] - c.wl_off[v], &c.wl_idx[c.wl_off[v]], &c.wl_w[c.wl_off[v]]);
  for (int i = 0; i < c.npm; i++) set_mat_elem(&r, r.pm, c.pm_idx[i], c.pm[i]);
  for (int i = 0; i < c.nma; i++) set_mat_elem(&r, r.ma, c.ma_idx[i], c.ma[i]);
  if (c.has_gm) set_gm(&r, c.gm);
  if (c.has_skm) set_num(&r, r.skm, c.skm);
  if (c.has_nw) set_num(&r, r.nw, c.nw);
  if (c.has_en) set_num(&r, r.en, c.en);
  if (c.nbw) {
    int32_t *idx = xcalloc((size_t)c.nbw, sizeof *idx);
    for (long i = 0; i < c.nbw; i++) idx[i] = (int32_t)i;
    sinew_plug_t bw = sinew_plug_make(r.skin, r.bw, 0, NULL);
    assert_int_equal(sinew_set_double_elements(r.g, &bw, idx, c.bw, (size_t)c.nbw), SINEW_OK);
    free(idx);
  }

  sinew_data_t *out = get_out(&r);
  const sinew_mesh_t *mo = sinew_mesh_get(out);
  assert_int_equal(mo->npoints, (uint32_t)npoints);
  double max_err = 0;
  long worst = 0;
  for (long v = 0; v < npoints; v++) {
    double e = dist3(&mo->points[3 * v], &expected[3 * v]);
    if (!(e <= max_err)) max_err = e, worst = v;
  }
  print_message("maya-skin-truth %-22s skm %d, %4ld points: max error %.3g (vertex %ld)\n", name, c.skm, npoints,
                max_err, worst);
  if (!(max_err < 1e-4))
    fail_msg("%s: vertex %ld is (%.7g %.7g %.7g), Maya has (%.7g %.7g %.7g)", name, worst, mo->points[3 * worst],
             mo->points[3 * worst + 1], mo->points[3 * worst + 2], expected[3 * worst], expected[3 * worst + 1],
             expected[3 * worst + 2]);
  sinew_data_unref(out);
  sinew_data_unref(mesh);
  rig_free(&r);
  free(expected);
  ma_free(&c);
}

/* =============================================================================================
 * Test scaffolding: a strict reader for the UsdSkel test files (usda text). It reads prims by
 * their exact "def Type \"name\"" header and, inside one prim (not its children), the properties
 * these files hold: number arrays with their ( elementSize / interpolation ) metadata, matrix4d
 * values, token arrays and timeSamples dictionaries. To be replaced by a real USD reader.
 * ============================================================================================= */

typedef struct span {
  const char *b, *e;
} span;

/* Skips whitespace and '#' comments. */
static const char *usd_ws(const char *p, const char *e) {
  while (p < e) {
    if (isspace((unsigned char)*p)) p++;
    else if (*p == '#') {
      while (p < e && *p != '\n') p++;
    } else break;
  }
  return p;
}

/* p at an opening bracket (one of "({["): returns the position of its matching closer. */
static const char *usd_match(const char *p, const char *e) {
  int depth = 0;
  for (; p < e; p++) {
    char ch = *p;
    if (ch == '"') {
      for (p++; p < e && *p != '"'; p++) {}
      continue;
    }
    if (ch == '#') {
      while (p < e && *p != '\n') p++;
      continue;
    }
    if (ch == '(' || ch == '{' || ch == '[') depth++;
    else if (ch == ')' || ch == '}' || ch == ']') {
      if (--depth == 0) return p;
    }
  }
  fail_msg("usda: unbalanced brackets");
  return NULL;
}

/* The body (inside the braces) of the only prim whose header is exactly `header`. */
static span usd_prim(const char *text, const char *header) {
  const char *e = text + strlen(text), *found = NULL;
  size_t lh = strlen(header);
  for (const char *p = strstr(text, header); p; p = strstr(p + 1, header)) {
    char next = p[lh];
    if (!isspace((unsigned char)next) && next != '(' && next != '{') continue;
    if (found) fail_msg("usda: two prims '%s'", header);
    found = p;
  }
  if (!found) fail_msg("usda: no prim '%s'", header);
  const char *p = usd_ws(found + lh, e);
  if (*p == '(') p = usd_ws(usd_match(p, e) + 1, e);
  if (*p != '{') fail_msg("usda: '%s' has no body", header);
  return (span){p + 1, usd_match(p, e)};
}

/* The text right after the last declaration `decl` (e.g. "point3f[] points =") made directly
 * in the prim body (not in a child prim); NULL when there is none. A later declaration of the
 * same property wins, as the composed (baked) files show. */
static const char *usd_prop(span body, const char *decl) {
  size_t ld = strlen(decl);
  const char *last = NULL;
  int depth = 0;
  for (const char *p = body.b; p < body.e; p++) {
    char ch = *p;
    if (ch == '"') {
      for (p++; p < body.e && *p != '"'; p++) {}
      continue;
    }
    if (ch == '#') {
      while (p < body.e && *p != '\n') p++;
      continue;
    }
    if (ch == '{') depth++;
    else if (ch == '}') depth--;
    else if (depth == 0 && (p == body.b || isspace((unsigned char)p[-1])) && (size_t)(body.e - p) > ld &&
             !strncmp(p, decl, ld))
      last = p + ld;
  }
  return last;
}

typedef struct usd_array {
  double *v;
  size_t n;
  int element_size;       /* from the metadata, 1 when absent */
  char interpolation[32]; /* "" when absent */
  const char *end;        /* after the value and its metadata */
} usd_array;

/* "[ numbers, tuples of numbers ]" and optional "( elementSize = N interpolation = "x" )". */
static usd_array usd_numbers(const char *p, const char *e) {
  usd_array a = {.element_size = 1};
  size_t cap = 0;
  p = usd_ws(p, e);
  if (*p != '[') fail_msg("usda: expected '[' at '%.20s'", p);
  const char *close = usd_match(p, e);
  for (p++; p < close;) {
    char ch = *p;
    if (isspace((unsigned char)ch) || ch == ',' || ch == '(' || ch == ')') {
      p++;
      continue;
    }
    char *end;
    double v = strtod(p, &end);
    if (end == p || end > close) fail_msg("usda: unexpected '%.20s' in a number array", p);
    if (a.n == cap) {
      cap = cap ? 2 * cap : 64;
      a.v = xrealloc(a.v, cap * sizeof *a.v);
    }
    a.v[a.n++] = v;
    p = end;
  }
  p = usd_ws(close + 1, e);
  if (*p == '(') {
    const char *mclose = usd_match(p, e);
    for (const char *q = usd_ws(p + 1, mclose); q < mclose; q = usd_ws(q, mclose)) {
      if (!strncmp(q, "elementSize", 11)) {
        q = usd_ws(q + 11, mclose);
        if (*q != '=') fail_msg("usda: bad elementSize");
        char *end;
        a.element_size = (int)strtol(q + 1, &end, 10);
        if (end == q + 1 || a.element_size < 1) fail_msg("usda: bad elementSize");
        q = end;
      } else if (!strncmp(q, "interpolation", 13)) {
        q = usd_ws(q + 13, mclose);
        if (*q != '=') fail_msg("usda: bad interpolation");
        q = usd_ws(q + 1, mclose);
        const char *qe = *q == '"' ? strchr(q + 1, '"') : NULL;
        if (!qe || qe > mclose || (size_t)(qe - q - 1) >= sizeof a.interpolation) fail_msg("usda: bad interpolation");
        snprintf(a.interpolation, sizeof a.interpolation, "%.*s", (int)(qe - q - 1), q + 1);
        q = qe + 1;
      } else {
        fail_msg("usda: unsupported metadata '%.20s'", q);
      }
    }
    p = mclose + 1;
  }
  a.end = p;
  return a;
}

/* A matrix4d value "( (a, b, c, d), ... )": 16 numbers, row by row. */
static sinew_mat4_t usd_matrix(const char *p, const char *e) {
  p = usd_ws(p, e);
  if (*p != '(') fail_msg("usda: expected a matrix4d");
  const char *close = usd_match(p, e);
  double v[16];
  int n = 0;
  for (p++; p < close;) {
    if (isspace((unsigned char)*p) || *p == ',' || *p == '(' || *p == ')') {
      p++;
      continue;
    }
    char *end;
    double x = strtod(p, &end);
    if (end == p || n == 16) fail_msg("usda: bad matrix4d");
    v[n++] = x;
    p = end;
  }
  if (n != 16) fail_msg("usda: matrix4d with %d values", n);
  sinew_mat4_t m;
  sinew_mat4_from_array(v, &m);
  return m;
}

/* An array of matrix4d: "[ ( (..), (..), (..), (..) ), ... ]". */
static sinew_mat4_t *usd_matrices(const char *p, const char *e, size_t *count) {
  usd_array a = usd_numbers(p, e);
  if (a.n % 16) fail_msg("usda: matrix4d[] with %zu numbers", a.n);
  *count = a.n / 16;
  sinew_mat4_t *m = xcalloc(*count, sizeof *m);
  for (size_t i = 0; i < *count; i++) sinew_mat4_from_array(&a.v[16 * i], &m[i]);
  free(a.v);
  return m;
}

/* A token array "[\"a\", \"b/c\"]": count, and the strings in out (each up to 63 chars). */
static size_t usd_tokens(const char *p, const char *e, char out[][64], size_t cap) {
  p = usd_ws(p, e);
  if (*p != '[') fail_msg("usda: expected a token array");
  const char *close = usd_match(p, e);
  size_t n = 0;
  for (p++; p < close; p++) {
    if (*p == '"') {
      const char *q = strchr(p + 1, '"');
      if (!q || q > close || n == cap || q - p - 1 >= 64) fail_msg("usda: bad token array");
      snprintf(out[n++], 64, "%.*s", (int)(q - p - 1), p + 1);
      p = q;
    } else if (!isspace((unsigned char)*p) && *p != ',') {
      fail_msg("usda: unexpected '%c' in a token array", *p);
    }
  }
  return n;
}

#define USD_MAX_SAMPLES 64

typedef struct usd_samples {
  int n;
  double frame[USD_MAX_SAMPLES];
  usd_array a[USD_MAX_SAMPLES];
} usd_samples;

/* "{ frame: [ ... ], ... }" */
static void usd_time_samples(const char *p, const char *e, usd_samples *s) {
  memset(s, 0, sizeof *s);
  p = usd_ws(p, e);
  if (*p != '{') fail_msg("usda: expected timeSamples");
  const char *close = usd_match(p, e);
  for (p = usd_ws(p + 1, close); p < close; p = usd_ws(p, close)) {
    char *end;
    double f = strtod(p, &end);
    if (end == p || s->n == USD_MAX_SAMPLES) fail_msg("usda: bad time sample at '%.20s'", p);
    p = usd_ws(end, close);
    if (*p != ':') fail_msg("usda: expected ':' after time %g", f);
    s->frame[s->n] = f;
    s->a[s->n] = usd_numbers(p + 1, close);
    p = usd_ws(s->a[s->n].end, close);
    s->n++;
    if (*p == ',') p++;
  }
}

/* The sample at exactly `frame`, with `count` numbers. */
static const double *usd_sample_at(const usd_samples *s, double frame, size_t count, const char *what) {
  for (int i = 0; i < s->n; i++)
    if (s->frame[i] == frame) {
      if (s->a[i].n != count)
        fail_msg("usda: %s at frame %g has %zu numbers, expected %zu", what, frame, s->a[i].n, count);
      return s->a[i].v;
    }
  fail_msg("usda: %s has no sample at frame %g", what, frame);
  return NULL;
}

static void usd_samples_free(usd_samples *s) {
  for (int i = 0; i < s->n; i++) free(s->a[i].v);
}

static const char *usd_need(span body, const char *decl, const char *where) {
  const char *p = usd_prop(body, decl);
  if (!p) fail_msg("usda: %s has no '%s'", where, decl);
  return p;
}

/* ---- B. UsdSkel ------------------------------------------------------------------------------ */

#define USD_MAX_JOINTS 16

typedef struct usd_result {
  double max_points;       /* over every point and frame */
  double max_normals_rigid; /* normals of points bound to one joint */
  double max_normals_blend; /* normals of points blended between joints */
  double max_normals_usd;   /* UsdSkel's own linear normal formula, evaluated here */
  bool normals;
} usd_result;

/* Skins prim `mesh_prim` of openusd-usdskel/STEM.usda with a skinCluster for frames 1..30 and
 * compares with baseline/STEM.baked.usda. */
static usd_result run_usdskel(const char *stem, const char *mesh_prim) {
  char path[512], header[128];
  snprintf(path, sizeof path, "%s/openusd-usdskel/%s.usda", DATA_DIR, stem);
  char *text = read_text(path);
  snprintf(path, sizeof path, "%s/openusd-usdskel/baseline/%s.baked.usda", DATA_DIR, stem);
  char *baked = read_text(path);
  const char *te = text + strlen(text), *be = baked + strlen(baked);
  usd_result res = {0};

  /* Skeleton space is world space here: no prim in the input has a transform (no xformOp at
   * all), and in the baked file neither the root, the skeleton nor the mesh has one (only the
   * rigidly bound Sphere/Cube/Cylinder prims, which are not compared, get xformOps). */
  if (strstr(text, "xformOp")) fail_msg("%s.usda: prim transforms are not handled here", stem);
  span broot = usd_prim(baked, "def Xform \"Root\"");
  snprintf(header, sizeof header, "def Mesh \"%s\"", mesh_prim);
  span bmesh = usd_prim(baked, header);
  span bskel = usd_prim(baked, "def Skeleton \"Skeleton\"");
  if (usd_prop(broot, "xformOp") || usd_prop(bmesh, "xformOp") || usd_prop(bskel, "xformOp") ||
      usd_prop(broot, "uniform token[] xformOpOrder") || usd_prop(bmesh, "uniform token[] xformOpOrder"))
    fail_msg("%s.baked.usda: unexpected prim transform", stem);

  /* skinning method: the inherited primvar on the SkelRoot, or on the mesh */
  span root = usd_prim(text, "def SkelRoot \"Root\"");
  span mesh = usd_prim(text, header);
  int method = 0;
  const char *sm = usd_prop(mesh, "uniform token primvars:skel:skinningMethod =");
  if (!sm) sm = usd_prop(root, "uniform token primvars:skel:skinningMethod =");
  if (sm) {
    sm = usd_ws(sm, te);
    if (!strncmp(sm, "\"dualQuaternion\"", 16)) method = 1;
    else if (strncmp(sm, "\"classicLinear\"", 15)) fail_msg("%s.usda: unknown skinningMethod", stem);
  }

  /* skeleton: joints (paths give the hierarchy) and bind transforms */
  span skel = usd_prim(text, "def Skeleton \"Skeleton\"");
  char joints[USD_MAX_JOINTS][64], anim_joints[USD_MAX_JOINTS][64];
  size_t nj = usd_tokens(usd_need(skel, "uniform token[] joints =", "Skeleton"), te, joints, USD_MAX_JOINTS);
  size_t nbind = 0;
  sinew_mat4_t *bind = usd_matrices(usd_need(skel, "uniform matrix4d[] bindTransforms =", "Skeleton"), te, &nbind);
  assert_int_equal(nbind, nj);
  int parent[USD_MAX_JOINTS];
  for (size_t j = 0; j < nj; j++) {
    parent[j] = -1;
    const char *slash = strrchr(joints[j], '/');
    if (!slash) continue;
    size_t lp = (size_t)(slash - joints[j]);
    for (size_t k = 0; k < j; k++)
      if (strlen(joints[k]) == lp && !strncmp(joints[k], joints[j], lp)) parent[j] = (int)k;
    if (parent[j] < 0) fail_msg("%s.usda: joint %s listed before its parent", stem, joints[j]);
  }
  /* animation: translations, rotations (quatf written w x y z), scales */
  span anim = usd_prim(text, "def SkelAnimation \"Animation\"");
  size_t naj = usd_tokens(usd_need(anim, "uniform token[] joints =", "Animation"), te, anim_joints, USD_MAX_JOINTS);
  assert_int_equal(naj, nj);
  for (size_t j = 0; j < nj; j++)
    if (strcmp(joints[j], anim_joints[j])) fail_msg("%s.usda: animation joint order differs", stem);
  usd_samples tr, rot, sc;
  usd_time_samples(usd_need(anim, "float3[] translations.timeSamples =", "Animation"), te, &tr);
  usd_time_samples(usd_need(anim, "quatf[] rotations.timeSamples =", "Animation"), te, &rot);
  usd_time_samples(usd_need(anim, "half3[] scales.timeSamples =", "Animation"), te, &sc);

  /* the mesh: points, optional vertex normals, influences, geomBindTransform */
  usd_array pts = usd_numbers(usd_need(mesh, "point3f[] points =", header), te);
  assert_int_equal(pts.n % 3, 0);
  uint32_t np = (uint32_t)(pts.n / 3);
  usd_array nrm = {0};
  const char *pn = usd_prop(mesh, "normal3f[] normals =");
  if (pn) {
    nrm = usd_numbers(pn, te);
    if (strcmp(nrm.interpolation, "vertex") || nrm.n != pts.n)
      fail_msg("%s.usda %s: only vertex-interpolated normals are handled", stem, mesh_prim);
    res.normals = true;
  }
  usd_array ji = usd_numbers(usd_need(mesh, "int[] primvars:skel:jointIndices =", header), te);
  usd_array jw = usd_numbers(usd_need(mesh, "float[] primvars:skel:jointWeights =", header), te);
  if (strcmp(ji.interpolation, "vertex") || strcmp(jw.interpolation, "vertex") || ji.element_size != jw.element_size ||
      ji.n != jw.n || ji.n != (size_t)np * (size_t)ji.element_size)
    fail_msg("%s.usda %s: influences do not match the points", stem, mesh_prim);
  if (usd_prop(mesh, "uniform token[] skel:joints ="))
    fail_msg("%s.usda %s: a per-mesh joint order is not handled", stem, mesh_prim);
  sinew_mat4_t gbt = usd_matrix(usd_need(mesh, "matrix4d primvars:skel:geomBindTransform =", header), te);
  sinew_mat4_t gbt_it = transposed(inv(gbt)); /* normals: the inverse transpose */

  /* baked results */
  usd_samples bp, bn;
  usd_time_samples(usd_need(bmesh, "point3f[] points.timeSamples =", "baked mesh"), be, &bp);
  if (res.normals) usd_time_samples(usd_need(bmesh, "normal3f[] normals.timeSamples =", "baked mesh"), be, &bn);

  /* the skinCluster: matrix[j] = joint world, bindPreMatrix[j] = bindTransform^-1,
   * geomMatrix = geomBindTransform, weights as they stand (UsdSkel does not renormalise) */
  rig r;
  rig_init(&r);
  sinew_data_t *in = make_mesh(np, pts.v, res.normals ? nrm.v : NULL);
  set_input(&r, in);
  set_gm(&r, gbt);
  set_num(&r, r.skm, method);
  set_num(&r, r.nw, 0);
  bool *blended = xcalloc(np, sizeof *blended);
  for (uint32_t v = 0; v < np; v++) {
    int32_t idx[16];
    double w[16];
    size_t n = 0;
    for (int k = 0; k < ji.element_size; k++) {
      double jidx = ji.v[(size_t)v * (size_t)ji.element_size + (size_t)k];
      double wk = jw.v[(size_t)v * (size_t)ji.element_size + (size_t)k];
      if (jidx < 0 || jidx >= (double)nj) fail_msg("%s.usda: joint index out of range", stem);
      if (wk == 0) continue;
      size_t q = 0;
      while (q < n && idx[q] != (int32_t)jidx) q++;
      if (q == n) idx[n] = (int32_t)jidx, w[n++] = 0; /* the same joint twice: weights add up */
      w[q] += wk;
    }
    blended[v] = n > 1;
    set_weights(&r, (int32_t)v, n, idx, w);
  }
  for (size_t j = 0; j < nj; j++) set_mat_elem(&r, r.pm, (int32_t)j, inv(bind[j]));

  for (int frame = 1; frame <= 30; frame++) {
    const double *t = usd_sample_at(&tr, frame, 3 * nj, "translations");
    const double *q = usd_sample_at(&rot, frame, 4 * nj, "rotations");
    const double *s = usd_sample_at(&sc, frame, 3 * nj, "scales");
    sinew_mat4_t world[USD_MAX_JOINTS];
    for (size_t j = 0; j < nj; j++) {
      sinew_mat4_t R;
      sinew_quat_to_mat4((sinew_quat_t){q[4 * j + 1], q[4 * j + 2], q[4 * j + 3], q[4 * j]}, &R);
      sinew_mat4_t local = mul(mul(mat_scale(s[3 * j], s[3 * j + 1], s[3 * j + 2]), R),
                               mat_translate(t[3 * j], t[3 * j + 1], t[3 * j + 2]));
      world[j] = parent[j] < 0 ? local : mul(local, world[parent[j]]);
      set_mat_elem(&r, r.ma, (int32_t)j, world[j]);
    }
    sinew_data_t *out = get_out(&r);
    const sinew_mesh_t *mo = sinew_mesh_get(out);
    assert_int_equal(mo->npoints, np);
    const double *want = usd_sample_at(&bp, frame, 3 * (size_t)np, "baked points");
    for (uint32_t v = 0; v < np; v++) {
      /* the skinCluster's output is in the shape's object space; UsdSkel's in skeleton space */
      sinew_vec3_t o = {mo->points[3 * v], mo->points[3 * v + 1], mo->points[3 * v + 2]}, w;
      sinew_mat4_transform_point(o, &gbt, &w);
      double d = sqrt((w.x - want[3 * v]) * (w.x - want[3 * v]) + (w.y - want[3 * v + 1]) * (w.y - want[3 * v + 1]) +
                      (w.z - want[3 * v + 2]) * (w.z - want[3 * v + 2]));
      if (!(d <= res.max_points)) res.max_points = d;
    }
    if (res.normals) {
      assert_non_null(mo->normals);
      const double *wantn = usd_sample_at(&bn, frame, 3 * (size_t)np, "baked normals");
      for (uint32_t v = 0; v < np; v++) {
        sinew_vec3_t o = {mo->normals[3 * v], mo->normals[3 * v + 1], mo->normals[3 * v + 2]}, w;
        sinew_mat4_transform_vector(o, &gbt_it, &w);
        sinew_vec3_normalize(w, &w);
        double d = sqrt((w.x - wantn[3 * v]) * (w.x - wantn[3 * v]) +
                        (w.y - wantn[3 * v + 1]) * (w.y - wantn[3 * v + 1]) +
                        (w.z - wantn[3 * v + 2]) * (w.z - wantn[3 * v + 2]));
        double *m = blended[v] ? &res.max_normals_blend : &res.max_normals_rigid;
        if (!(d <= *m)) *m = d;
        /* UsdSkel's linear formula, normalize(sum w_j (n G^-T) J_j^-T) with the skinning
         * transform J_j = bindTransform_j^-1 * world_j: shows that the baked normals are that,
         * which is why blended normals differ from the inverse transpose of the blended map */
        sinew_vec3_t n0 = {nrm.v[3 * v], nrm.v[3 * v + 1], nrm.v[3 * v + 2]}, acc = {0, 0, 0}, nj_;
        sinew_mat4_transform_vector(n0, &gbt_it, &n0);
        for (int k = 0; k < ji.element_size; k++) {
          size_t e = (size_t)v * (size_t)ji.element_size + (size_t)k;
          sinew_mat4_t jit = transposed(inv(mul(inv(bind[(int)ji.v[e]]), world[(int)ji.v[e]])));
          sinew_mat4_transform_vector(n0, &jit, &nj_);
          acc.x += jw.v[e] * nj_.x, acc.y += jw.v[e] * nj_.y, acc.z += jw.v[e] * nj_.z;
        }
        sinew_vec3_normalize(acc, &acc);
        d = sqrt((acc.x - wantn[3 * v]) * (acc.x - wantn[3 * v]) +
                 (acc.y - wantn[3 * v + 1]) * (acc.y - wantn[3 * v + 1]) +
                 (acc.z - wantn[3 * v + 2]) * (acc.z - wantn[3 * v + 2]));
        if (!(d <= res.max_normals_usd)) res.max_normals_usd = d;
      }
    }
    sinew_data_unref(out);
  }
  sinew_data_unref(in);
  rig_free(&r);
  free(blended);
  usd_samples_free(&tr);
  usd_samples_free(&rot);
  usd_samples_free(&sc);
  usd_samples_free(&bp);
  if (res.normals) usd_samples_free(&bn);
  free(pts.v);
  free(nrm.v);
  free(ji.v);
  free(jw.v);
  free(bind);
  free(text);
  free(baked);
  return res;
}

static void test_usdskel(void **state) {
  const char *stem = *state;
  usd_result a = run_usdskel(stem, "Mesh");
  print_message("usdskel %s Mesh: frames 1-30, max point error %.3g\n", stem, a.max_points);
  assert_true(a.max_points < 1e-4);
  /* The baked files hold normals for MeshWithNormals (vertex normals) and
   * MeshWithFaceVaryingNormals (face-varying: not representable in our per-point normals). */
  usd_result b = run_usdskel(stem, "MeshWithNormals");
  assert_true(b.normals);
  print_message("usdskel %s MeshWithNormals: max point error %.3g, max normal error %.3g (one joint), "
                "%.3g (blended)\n",
                stem, b.max_points, b.max_normals_rigid, b.max_normals_blend);
  assert_true(b.max_points < 1e-4);
  assert_true(b.max_normals_rigid < 1e-4);
  if (!strcmp(stem, "dqs")) {
    /* DQ: both rotate the normal by the blended (unit) rotation */
    assert_true(b.max_normals_blend < 1e-4);
  } else {
    /* Linear: UsdSkel blends the normal's per-joint images (sum w_j n J_j^-T; its own comment
     * calls this "flawed"), which reproduces the baked normals; the skinCluster uses the inverse
     * transpose of the blended matrix (spec 4.3), which differs where the joints disagree. Only a
     * sanity bound on that difference here. */
    print_message("usdskel lbs MeshWithNormals: UsdSkel's blended-normal formula vs baked: %.3g\n",
                  b.max_normals_usd);
    assert_true(b.max_normals_usd < 1e-4);
    assert_true(b.max_normals_blend < 0.2);
  }
}

/* ---- C. behaviour by hand -------------------------------------------------------------------- */

/* At the bind pose (matrix = inverse(bindPreMatrix)) the output is the input, for every method,
 * with a non-identity geomMatrix and scaled, rotated influences. */
static void test_bind_pose_identity(void **state) {
  rig r;
  rig_init(&r);
  const double p[] = {0, 0, 0, 1, 2, 3, -4, 0.5, 2, 10, -7, 0.25, 0.1, 0.2, -0.3};
  sinew_data_t *in = make_mesh(5, p, NULL);
  set_input(&r, in);
  set_gm(&r, mul(mul(mat_scale(1.5, 1.5, 1.5), mat_rot_y(30)), mat_translate(1, -2, 3)));
  sinew_mat4_t b0 = mul(mat_rot_x(20), mat_translate(0, 1, 0));
  sinew_mat4_t b1 = mul(mul(mat_scale(1, 2, 0.5), mat_rot_z(-70)), mat_translate(3, 1, -1));
  sinew_mat4_t b2 = mul(mat_rot_y(120), mat_translate(-2, 0, 5));
  set_influence(&r, 0, b0, b0);
  set_influence(&r, 1, b1, b1);
  set_influence(&r, 2, b2, b2);
  for (int32_t v = 0; v < 5; v++) {
    const int32_t idx[] = {0, 1, 2};
    const double w[] = {0.2 + 0.1 * v, 0.5 - 0.1 * v, 0.3};
    set_weights(&r, v, 3, idx, w);
  }
  sinew_plug_t bw = sinew_plug_make(r.skin, r.bw, 0, NULL);
  assert_int_equal(sinew_set_double_elements(r.g, &bw, (int32_t[]){0, 1, 2, 3, 4},
                                             (double[]){0, 0.25, 0.5, 0.75, 1}, 5),
                   SINEW_OK);
  for (int method = 0; method <= 2; method++) {
    set_num(&r, r.skm, method);
    sinew_data_t *out = get_out(&r);
    const float *o = sinew_mesh_get(out)->points;
    for (int v = 0; v < 5; v++) {
      double tol = 1e-6 * (1 + fabs(p[3 * v]) + fabs(p[3 * v + 1]) + fabs(p[3 * v + 2])); /* float rounding */
      assert_point(&o[3 * v], p[3 * v], p[3 * v + 1], p[3 * v + 2], tol);
    }
    sinew_data_unref(out);
  }
  sinew_data_unref(in);
  rig_free(&r);
}

/* Rotating a joint 90 degrees about Z moves a fully weighted point (1,0,0) from the joint to
 * (0,1,0) from the joint (row vectors: the joint's world matrix is R * T). */
static void test_rotation_about_pivot(void **state) {
  rig r;
  rig_init(&r);
  const double p[] = {1, 0, 0, 3, 0, 0, 2, 1, 0};
  sinew_data_t *in = make_mesh(3, p, NULL);
  set_input(&r, in);
  set_influence(&r, 0, mat_translate(0, 0, 0), mat_rot_z(90));
  set_influence(&r, 1, mat_translate(2, 0, 0), mul(mat_rot_z(90), mat_translate(2, 0, 0)));
  set_weight1(&r, 0, 0, 1);
  set_weight1(&r, 1, 1, 1);
  set_weight1(&r, 2, 1, 1);
  for (int method = 0; method <= 1; method++) {
    set_num(&r, r.skm, method);
    sinew_data_t *out = get_out(&r);
    const float *o = sinew_mesh_get(out)->points;
    assert_point(&o[0], 0, 1, 0, 1e-6);
    assert_point(&o[3], 2, 1, 0, 1e-6);
    assert_point(&o[6], 1, 0, 0, 1e-6);
    sinew_data_unref(out);
  }
  sinew_data_unref(in);
  rig_free(&r);
}

static void test_envelope(void **state) {
  rig r;
  rig_init(&r);
  const double p[] = {1, 1, 1};
  sinew_data_t *in = make_mesh(1, p, NULL);
  set_input(&r, in);
  set_influence(&r, 0, mat_translate(0, 0, 0), mat_translate(0, 2, 0));
  set_weight1(&r, 0, 0, 1);
  const double en[] = {0, 0.5, 1, 2, -1};
  for (int method = 0; method <= 1; method++) {
    set_num(&r, r.skm, method);
    for (size_t i = 0; i < sizeof en / sizeof *en; i++) {
      set_num(&r, r.en, en[i]);
      sinew_data_t *out = get_out(&r);
      assert_point(sinew_mesh_get(out)->points, 1, 1 + 2 * en[i], 1, 1e-6);
      sinew_data_unref(out);
    }
  }
  sinew_data_unref(in);
  rig_free(&r);
}

/* nodeState 1 (HasNoEffect) passes the input block itself through. */
static void test_node_state_passthrough(void **state) {
  rig r;
  rig_init(&r);
  const double p[] = {1, 1, 1, 2, 2, 2};
  sinew_data_t *in = make_mesh(2, p, NULL);
  set_input(&r, in);
  set_influence(&r, 0, mat_translate(0, 0, 0), mat_translate(5, 0, 0));
  set_weight1(&r, 0, 0, 1);
  set_weight1(&r, 1, 0, 1);
  sinew_data_t *out = get_out(&r);
  assert_ptr_not_equal(sinew_data_get(out), sinew_data_get(in));
  assert_point(sinew_mesh_get(out)->points, 6, 1, 1, 1e-6);
  sinew_data_unref(out);
  set_num(&r, r.nds, 1);
  out = get_out(&r);
  assert_ptr_equal(sinew_data_get(out), sinew_data_get(in));
  sinew_data_unref(out);
  set_num(&r, r.nds, 0);
  out = get_out(&r);
  assert_point(sinew_mesh_get(out)->points, 6, 1, 1, 1e-6);
  sinew_data_unref(out);
  sinew_data_unref(in);
  rig_free(&r);
}

/* Points with no weights, with only zero weights, or with weights summing to 0 stay put. */
static void test_zero_weights(void **state) {
  rig r;
  rig_init(&r);
  const double p[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, -1, -2, -3};
  sinew_data_t *in = make_mesh(4, p, NULL);
  set_input(&r, in);
  set_influence(&r, 0, mat_translate(0, 0, 0), mul(mat_rot_x(40), mat_translate(1, 2, 3)));
  set_influence(&r, 1, mat_translate(1, 0, 0), mat_translate(0, 0, 5));
  /* vertex 0: no weightList element; 1: explicit zeros; 2: +1 and -1; 3: weighted normally */
  set_weights(&r, 1, 2, (int32_t[]){0, 1}, (double[]){0, 0});
  set_weights(&r, 2, 2, (int32_t[]){0, 1}, (double[]){1, -1});
  set_weight1(&r, 3, 1, 1);
  for (int nw = 0; nw <= 2; nw++)
    for (int method = 0; method <= 2; method++) {
      set_num(&r, r.nw, nw);
      set_num(&r, r.skm, method);
      sinew_data_t *out = get_out(&r);
      const float *o = sinew_mesh_get(out)->points;
      for (int v = 0; v < 3; v++) assert_point(&o[3 * v], p[3 * v], p[3 * v + 1], p[3 * v + 2], 0);
      assert_point(&o[9], -2, -2, 2, 1e-6);
      sinew_data_unref(out);
    }
  sinew_data_unref(in);
  rig_free(&r);
}

/* Weights 1 and 1 on two identical influences: post normalises them to 0.5 each; none and
 * interactive use them as stored, so the point is counted twice and moves away from the world
 * origin (spec 4.3: the blended point q_world is a sum of points taken with w = 1, then G^-1). */
static void test_normalize_weights(void **state) {
  rig r;
  rig_init(&r);
  const double p[] = {1, 1, 0};
  sinew_data_t *in = make_mesh(1, p, NULL);
  set_input(&r, in);
  set_influence(&r, 0, mat_translate(0, 0, 0), mat_translate(1, 0, 0));
  set_influence(&r, 1, mat_translate(0, 0, 0), mat_translate(1, 0, 0));
  set_weights(&r, 0, 2, (int32_t[]){0, 1}, (double[]){1, 1});
  struct {
    int nw;
    double x, y;
  } cases[] = {{2, 2, 1}, {0, 4, 2}, {1, 4, 2}};
  for (size_t i = 0; i < 3; i++) {
    set_num(&r, r.nw, cases[i].nw);
    sinew_data_t *out = get_out(&r);
    assert_point(sinew_mesh_get(out)->points, cases[i].x, cases[i].y, 0, 1e-6);
    sinew_data_unref(out);
  }
  /* The same with the mesh bound 4 units along x (geomMatrix): world point (5,1,0) moves to
   * (6,1,0); counted twice (12,2,0); back to object space (8,2,0). Post: (2,1,0). */
  set_gm(&r, mat_translate(4, 0, 0));
  const double want[3][2] = {{2, 1}, {8, 2}, {8, 2}};
  for (size_t i = 0; i < 3; i++) {
    set_num(&r, r.nw, cases[i].nw);
    sinew_data_t *out = get_out(&r);
    assert_point(sinew_mesh_get(out)->points, want[i][0], want[i][1], 0, 1e-5);
    sinew_data_unref(out);
  }
  /* post leaves the stored weights alone */
  sinew_plug_t w = sinew_plug_make(r.skin, r.w, 2, (int32_t[]){0, 1});
  double stored = 0;
  assert_int_equal(sinew_get_double(r.g, &w, &stored), SINEW_OK);
  assert_true(stored == 1.0);
  sinew_data_unref(in);
  rig_free(&r);
}

/* Sparse influence indices (matrix[0], matrix[3], matrix[7]); a weight on an index without a
 * matrix[] element is ignored until that influence appears. */
static void test_sparse_influences(void **state) {
  rig r;
  rig_init(&r);
  const double p[] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  sinew_data_t *in = make_mesh(3, p, NULL);
  set_input(&r, in);
  set_influence(&r, 0, mat_translate(0, 0, 0), mat_translate(1, 0, 0));
  set_influence(&r, 3, mat_translate(0, 0, 0), mat_translate(0, 10, 0));
  set_influence(&r, 7, mat_translate(0, 0, 0), mat_translate(0, 0, 100));
  set_weights(&r, 0, 3, (int32_t[]){0, 3, 7}, (double[]){0.5, 0.25, 0.25});
  set_weights(&r, 1, 2, (int32_t[]){3, 7}, (double[]){0.5, 0.5});
  set_weights(&r, 2, 2, (int32_t[]){7, 5}, (double[]){1, 1}); /* there is no matrix[5] */
  set_num(&r, r.nw, 1);
  sinew_data_t *out = get_out(&r);
  const float *o = sinew_mesh_get(out)->points;
  assert_point(&o[0], 1.5, 2.5, 25, 1e-5);
  assert_point(&o[3], 0, 6, 50, 1e-5);
  assert_point(&o[6], 0, 0, 101, 1e-5);
  sinew_data_unref(out);
  set_num(&r, r.nw, 2); /* post: the normalisation runs over existing influences only */
  out = get_out(&r);
  assert_point(&sinew_mesh_get(out)->points[6], 0, 0, 101, 1e-5);
  sinew_data_unref(out);
  /* matrix[5] appears: now it counts */
  set_influence(&r, 5, mat_translate(0, 0, 0), mat_translate(2, 0, 0));
  out = get_out(&r);
  assert_point(&sinew_mesh_get(out)->points[6], 1, 0, 51, 1e-5);
  sinew_data_unref(out);
  sinew_data_unref(in);
  rig_free(&r);
}

/* geomMatrix: the mesh was bound 10 units along x; its point (1,0,0) is (11,0,0) in the world;
 * the joint at the origin turns 90 degrees about Z: (0,11,0); back to object space (-10,11,0). */
static void test_geom_matrix(void **state) {
  rig r;
  rig_init(&r);
  const double p[] = {1, 0, 0, 0, 0, 2};
  sinew_data_t *in = make_mesh(2, p, NULL);
  set_input(&r, in);
  set_gm(&r, mat_translate(10, 0, 0));
  set_influence(&r, 0, mat_translate(0, 0, 0), mat_rot_z(90));
  set_weight1(&r, 0, 0, 1);
  set_weight1(&r, 1, 0, 1);
  for (int method = 0; method <= 2; method++) {
    set_num(&r, r.skm, method);
    sinew_data_t *out = get_out(&r);
    const float *o = sinew_mesh_get(out)->points;
    assert_point(&o[0], -10, 11, 0, 1e-5);
    assert_point(&o[3], -10, 10, 2, 1e-5);
    sinew_data_unref(out);
  }
  /* a scaled and rotated geomMatrix, two influences, against the formula of spec 4.3 */
  sinew_mat4_t G = mul(mul(mat_scale(2, 2, 2), mat_rot_x(90)), mat_translate(0, 3, 0));
  set_gm(&r, G);
  sinew_mat4_t M1 = mul(mat_rot_y(45), mat_translate(1, 1, 1));
  set_influence(&r, 1, mat_translate(0, 0, 0), M1);
  set_weights(&r, 0, 2, (int32_t[]){0, 1}, (double[]){0.25, 0.75});
  set_num(&r, r.skm, 0);
  sinew_data_t *out = get_out(&r);
  sinew_vec3_t q, a, b;
  sinew_mat4_transform_point((sinew_vec3_t){1, 0, 0}, &G, &q);
  sinew_mat4_t M0 = mat_rot_z(90), Gi = inv(G);
  sinew_mat4_transform_point(q, &M0, &a);
  sinew_mat4_transform_point(q, &M1, &b);
  sinew_vec3_t sum = {0.25 * a.x + 0.75 * b.x, 0.25 * a.y + 0.75 * b.y, 0.25 * a.z + 0.75 * b.z};
  sinew_mat4_transform_point(sum, &Gi, &sum);
  assert_point(sinew_mesh_get(out)->points, sum.x, sum.y, sum.z, 1e-5);
  sinew_data_unref(out);
  sinew_data_unref(in);
  rig_free(&r);
}

/* A cylinder along Y twisted 90 degrees about its axis at the top joint, half weights in the
 * middle: linear collapses the middle ring toward the axis (candy wrapper), DQ keeps the radius.
 * Weight blended with bw 0 is linear, with bw 1 is DQ. */
typedef struct twist {
  rig r;
  sinew_data_t *in;
  uint32_t n;
  const float *p;
} twist;

static void twist_init(twist *t) {
  rig_init(&t->r);
  assert_int_equal(sinew_mesh_cylinder(1, 4, 16, 8, 1, &t->in), SINEW_OK);
  const sinew_mesh_t *m = sinew_mesh_get(t->in);
  t->n = m->npoints;
  t->p = m->points;
  assert_true(t->n > 16 * 8);
  set_input(&t->r, t->in);
  set_influence(&t->r, 0, mat_translate(0, -2, 0), mat_translate(0, -2, 0));
  set_influence(&t->r, 1, mat_translate(0, 0, 0), mat_rot_y(90));
  for (uint32_t v = 0; v < t->n; v++) {
    double y = t->p[3 * v + 1];
    double w1 = y <= -1 ? 0 : y >= 1 ? 1 : (y + 1) / 2; /* 0.5 on the middle ring (y = 0) */
    set_weights(&t->r, (int32_t)v, 2, (int32_t[]){0, 1}, (double[]){1 - w1, w1});
  }
}

static void test_dq_twist_volume(void **state) {
  twist t;
  twist_init(&t);
  rig *r = &t.r;
  double lin_min = 1e9, dq_err = 0;
  int middle = 0;
  for (int method = 0; method <= 1; method++) {
    set_num(r, r->skm, method);
    sinew_data_t *out = get_out(r);
    const float *o = sinew_mesh_get(out)->points;
    for (uint32_t v = 0; v < t.n; v++) {
      double r0 = hypot(t.p[3 * v], t.p[3 * v + 2]), r1 = hypot(o[3 * v], o[3 * v + 2]);
      if (method == 1) {
        dq_err = fmax(dq_err, fabs(r1 - r0));
        assert_true(fabs(o[3 * v + 1] - t.p[3 * v + 1]) < 1e-4); /* a pure twist: y stays */
      } else if (fabs(t.p[3 * v + 1]) < 1e-6 && r0 > 0.5) {
        lin_min = fmin(lin_min, r1);
        middle++;
      }
    }
    sinew_data_unref(out);
  }
  print_message("twisted cylinder: linear middle ring radius %.4f (cos 45 = 0.7071), DQ radius error %.2g\n",
                lin_min, dq_err);
  assert_true(middle >= 16);
  assert_true(fabs(lin_min - sqrt(0.5)) < 1e-4);
  assert_true(dq_err < 1e-3);
  sinew_data_unref(t.in);
  rig_free(r);
}

static void test_weight_blended(void **state) {
  twist t;
  twist_init(&t);
  rig *r = &t.r;
  float *res[2];
  for (int method = 0; method <= 1; method++) {
    set_num(r, r->skm, method);
    sinew_data_t *out = get_out(r);
    res[method] = xcalloc(3 * t.n, sizeof(float));
    memcpy(res[method], sinew_mesh_get(out)->points, 3 * t.n * sizeof(float));
    sinew_data_unref(out);
  }
  set_num(r, r->skm, 2);
  sinew_plug_t bw = sinew_plug_make(r->skin, r->bw, 0, NULL);
  int32_t *idx = xcalloc(t.n, sizeof *idx);
  double *val = xcalloc(t.n, sizeof *val);
  for (uint32_t v = 0; v < t.n; v++) idx[v] = (int32_t)v;
  const double blends[] = {0, 1, 0.5};
  for (int k = 0; k < 3; k++) {
    for (uint32_t v = 0; v < t.n; v++) val[v] = blends[k];
    if (k == 0) {
      /* bw never set reads as 0: fully linear */
      sinew_data_t *out = get_out(r);
      for (uint32_t v = 0; v < 3 * t.n; v++) assert_true(fabs(sinew_mesh_get(out)->points[v] - res[0][v]) < 1e-6);
      sinew_data_unref(out);
    }
    assert_int_equal(sinew_set_double_elements(r->g, &bw, idx, val, t.n), SINEW_OK);
    sinew_data_t *out = get_out(r);
    const float *o = sinew_mesh_get(out)->points;
    for (uint32_t v = 0; v < 3 * t.n; v++) {
      double want = (1 - blends[k]) * res[0][v] + blends[k] * res[1][v];
      if (!(fabs(o[v] - want) < 1e-6))
        fail_msg("bw %g: coordinate %u is %.9g, expected %.9g", blends[k], v, o[v], want);
    }
    sinew_data_unref(out);
  }
  free(idx);
  free(val);
  free(res[0]);
  free(res[1]);
  sinew_data_unref(t.in);
  rig_free(r);
}

static void assert_normal(const float *got, double x, double y, double z, double tol) {
  double l = sqrt(x * x + y * y + z * z);
  assert_point(got, x / l, y / l, z / l, tol);
}

/* Normals: a rotation rotates them; a non-uniform scale uses the inverse transpose; the same
 * through a non-uniform geomMatrix, for every method; deformUserNormals off leaves them. */
static void test_normals(void **state) {
  rig r;
  rig_init(&r);
  const double p[] = {1, 0, 0, 1, 1, 0, 0, 0, 1};
  const double s = sqrt(0.5);
  const double n[] = {1, 0, 0, s, s, 0, 0, 0, 1};
  sinew_data_t *in = make_mesh(3, p, n);
  set_input(&r, in);
  set_influence(&r, 0, mat_translate(0, 0, 0), mat_rot_z(90));
  for (int32_t v = 0; v < 3; v++) set_weight1(&r, v, 0, 1);
  sinew_plug_t bw = sinew_plug_make(r.skin, r.bw, 0, NULL); /* weight blended: half and half */
  assert_int_equal(sinew_set_double_elements(r.g, &bw, (int32_t[]){0, 1, 2}, (double[]){0.5, 0.5, 0.5}, 3), SINEW_OK);
  for (int method = 0; method <= 2; method++) {
    set_num(&r, r.skm, method);
    sinew_data_t *out = get_out(&r);
    const sinew_mesh_t *mo = sinew_mesh_get(out);
    assert_non_null(mo->normals);
    assert_normal(&mo->normals[0], 0, 1, 0, 1e-6);
    assert_normal(&mo->normals[3], -1, 1, 0, 1e-6);
    assert_normal(&mo->normals[6], 0, 0, 1, 1e-6);
    sinew_data_unref(out);
  }
  /* scale x by 2: the plane x + y = 1 (normal (1,1,0)) becomes x/2 + y = 1, normal (0.5, 1, 0) */
  set_mat_elem(&r, r.ma, 0, mat_scale(2, 1, 1));
  for (int method = 0; method <= 2; method++) {
    set_num(&r, r.skm, method);
    sinew_data_t *out = get_out(&r);
    const sinew_mesh_t *mo = sinew_mesh_get(out);
    assert_point(&mo->points[3], 2, 1, 0, 1e-6);
    assert_normal(&mo->normals[0], 1, 0, 0, 1e-6);
    assert_normal(&mo->normals[3], 0.5, 1, 0, 1e-6);
    assert_normal(&mo->normals[6], 0, 0, 1, 1e-6);
    sinew_data_unref(out);
  }
  /* a non-uniform geomMatrix scale(2,1,1) and a 90 degree turn about Z: the object-space map
   * is L = G R G^-1 (x -> 2y, y -> -x/2); normals go through L^-T: (1,1,0) -> (-2, 0.5, 0) */
  set_gm(&r, mat_scale(2, 1, 1));
  set_mat_elem(&r, r.ma, 0, mat_rot_z(90));
  for (int method = 0; method <= 2; method++) {
    set_num(&r, r.skm, method);
    sinew_data_t *out = get_out(&r);
    const sinew_mesh_t *mo = sinew_mesh_get(out);
    assert_point(&mo->points[0], 0, 2, 0, 1e-6);
    assert_point(&mo->points[3], -0.5, 2, 0, 1e-6);
    assert_normal(&mo->normals[0], 0, 1, 0, 1e-6);
    assert_normal(&mo->normals[3], -2, 0.5, 0, 1e-6);
    assert_normal(&mo->normals[6], 0, 0, 1, 1e-6);
    sinew_data_unref(out);
  }
  /* a mirroring influence (negative determinant) still gives outward normals: scale(-1,1,1) */
  set_gm(&r, mat_translate(0, 0, 0));
  set_mat_elem(&r, r.ma, 0, mat_scale(-1, 1, 1));
  for (int method = 0; method <= 2; method++) {
    set_num(&r, r.skm, method);
    sinew_data_t *out = get_out(&r);
    const sinew_mesh_t *mo = sinew_mesh_get(out);
    assert_point(&mo->points[0], -1, 0, 0, 1e-6);
    assert_normal(&mo->normals[0], -1, 0, 0, 1e-6);
    assert_normal(&mo->normals[3], -1, 1, 0, 1e-6);
    sinew_data_unref(out);
  }
  /* deformUserNormals off: normals are passed along unchanged */
  set_num(&r, r.skm, 0);
  set_num(&r, r.dun, 0);
  sinew_data_t *out = get_out(&r);
  const sinew_mesh_t *mo = sinew_mesh_get(out);
  assert_point(&mo->points[0], -1, 0, 0, 1e-6);
  for (int k = 0; k < 9; k++) assert_true(mo->normals[k] == (float)n[k]);
  sinew_data_unref(out);
  sinew_data_unref(in);
  rig_free(&r);
}

/* ---- D. granularity ------------------------------------------------------------------------- */

static void set3(sinew_graph_t *g, sinew_node_t n, const char *attr, double x, double y, double z) {
  sinew_plug_t p = sinew_plug_make(n, sinew_node_attr(g, n, attr), 0, NULL);
  double v[3] = {x, y, z};
  assert_int_equal(sinew_set_doubles(g, &p, v, 3), SINEW_OK);
}

static void test_granularity(void **state) {
  rig r;
  rig_init(&r);
  sinew_graph_t *g = r.g;
  sinew_node_t j0, j1;
  assert_int_equal(sinew_node_create(g, "joint", "joint1", &j0), SINEW_OK);
  assert_int_equal(sinew_node_create(g, "joint", "joint2", &j1), SINEW_OK);
  assert_int_equal(sinew_dag_parent(g, j1, j0, 0), SINEW_OK);
  set3(g, j1, "t", 0, 2, 0);
  sinew_node_t joints[2] = {j0, j1};
  for (int32_t i = 0; i < 2; i++) {
    sinew_plug_t wm = sinew_plug_make(joints[i], sinew_node_attr(g, joints[i], "wm"), 1, (int32_t[]){0});
    sinew_plug_t ma = sinew_plug_make(r.skin, r.ma, 1, &i);
    assert_int_equal(sinew_connect(g, &wm, &ma, 0, NULL), SINEW_OK);
    sinew_mat4_t w;
    assert_int_equal(sinew_dag_world_matrix(g, joints[i], &w), SINEW_OK);
    set_mat_elem(&r, r.pm, i, inv(w));
  }
  enum { N = 100 };
  double p[3 * N];
  for (int v = 0; v < N; v++) p[3 * v] = 1, p[3 * v + 1] = 4.0 * v / (N - 1), p[3 * v + 2] = 0;
  sinew_data_t *in = make_mesh(N, p, NULL);
  set_input(&r, in);
  for (int32_t v = 0; v < N; v++) set_weight1(&r, v, p[3 * v + 1] < 2 ? 0 : 1, 1);

  uint64_t c0, e0, c, e;
  sinew_data_t *out = get_out(&r);
  get_stats(&r, &c0, &e0);
  assert_int_equal(c0, 1);
  assert_int_equal(e0, 1);
  assert_point(&sinew_mesh_get(out)->points[3 * (N - 1)], 1, 4, 0, 1e-6); /* the bind pose */
  sinew_data_unref(out);
  /* reading again evaluates nothing */
  out = get_out(&r);
  sinew_data_unref(out);
  get_stats(&r, &c, &e);
  assert_int_equal(c, c0);
  assert_int_equal(e, e0);
  /* moving a joint: one evaluation, no recompile; point (1,4,0) is (1,2,0) from joint2 */
  set3(g, j1, "r", 0, 0, PI / 2);
  out = get_out(&r);
  get_stats(&r, &c, &e);
  assert_int_equal(c, c0);
  assert_int_equal(e, e0 + 1);
  assert_point(&sinew_mesh_get(out)->points[3 * (N - 1)], -2, 3, 0, 1e-5);
  sinew_data_unref(out);
  /* one weight: one recompile, and in the whole graph nothing is computed but the skin output
   * (the joints' matrices stay clean) */
  sinew_graph_stats_t ws;
  sinew_graph_reset_stats(g);
  set_weight1(&r, 0, 1, 1);
  set_weight1(&r, 0, 0, 0);
  out = get_out(&r);
  sinew_graph_stats(g, &ws);
  assert_int_equal(ws.computes, 1);
  get_stats(&r, &c, &e);
  assert_int_equal(c, c0 + 1);
  assert_int_equal(e, e0 + 2);
  assert_point(&sinew_mesh_get(out)->points[0], 2, 3, 0, 1e-5); /* (1,0,0) is (1,-2,0) from joint2 */
  sinew_data_unref(out);
  out = get_out(&r);
  sinew_data_unref(out);
  get_stats(&r, &c, &e);
  assert_int_equal(c, c0 + 1);
  assert_int_equal(e, e0 + 2);
  /* time changes in a static rig: nothing is computed */
  sinew_graph_reset_stats(g);
  assert_int_equal(sinew_time_set_frame(g, 12), SINEW_OK);
  out = get_out(&r);
  sinew_data_unref(out);
  assert_int_equal(sinew_time_set_frame(g, 13), SINEW_OK);
  out = get_out(&r);
  sinew_data_unref(out);
  sinew_graph_stats_t gs;
  sinew_graph_stats(g, &gs);
  assert_int_equal(gs.computes, 0);
  get_stats(&r, &c, &e);
  assert_int_equal(c, c0 + 1);
  assert_int_equal(e, e0 + 2);
  sinew_data_unref(in);
  rig_free(&r);
}

/* The output does not depend on the number of threads: 1, 2 and 3 give the same bits. */
static void test_thread_independence(void **state) {
  rig r;
  rig_init(&r);
  enum { N = 20000, NINF = 5 };
  uint64_t seed = 12345;
  double *p = xcalloc(3 * N, sizeof *p), *n = xcalloc(3 * N, sizeof *n);
  for (int k = 0; k < 3 * N; k++) p[k] = 10 * rnd(&seed) - 5, n[k] = rnd(&seed) - 0.5;
  sinew_data_t *in = make_mesh(N, p, n);
  set_input(&r, in);
  for (int32_t i = 0; i < NINF; i++) {
    sinew_mat4_t bind = mat_translate(i - 2, 0, 0);
    sinew_mat4_t now = mul(mul(mat_scale(1 + 0.1 * i, 1, 1 - 0.05 * i), mat_rot_x(17.0 * i)),
                           mul(mat_rot_z(-11.0 * i), mat_translate(i - 2, 0.3 * i, 0)));
    set_influence(&r, i * 2, bind, now); /* sparse: 0, 2, 4, 6, 8 */
  }
  int32_t *bidx = xcalloc(N, sizeof *bidx);
  double *bval = xcalloc(N, sizeof *bval);
  for (int32_t v = 0; v < N; v++) {
    int32_t idx[3];
    double w[3];
    for (int k = 0; k < 3; k++) idx[k] = 2 * ((v + k) % NINF), w[k] = rnd(&seed);
    set_weights(&r, v, 3, idx, w);
    bidx[v] = v;
    bval[v] = rnd(&seed);
  }
  sinew_plug_t bw = sinew_plug_make(r.skin, r.bw, 0, NULL);
  assert_int_equal(sinew_set_double_elements(r.g, &bw, bidx, bval, N), SINEW_OK);
  set_num(&r, r.skm, 2);
  set_num(&r, r.nw, 2);
  float *first = xcalloc(6 * N, sizeof(float));
  uint64_t c, e, e_prev = 0;
  for (int threads = 1; threads <= 3; threads++) {
    assert_int_equal(sinew_pool_set_threads(threads), 0);
    sinew_plug_t ma0 = sinew_plug_make(r.skin, r.ma, 1, (int32_t[]){0});
    if (threads > 1) assert_int_equal(sinew_dirty(r.g, &ma0), SINEW_OK);
    sinew_data_t *out = get_out(&r);
    const sinew_mesh_t *mo = sinew_mesh_get(out);
    get_stats(&r, &c, &e);
    assert_int_equal(e, e_prev + 1);
    e_prev = e;
    assert_non_null(mo->normals);
    if (threads == 1) {
      memcpy(first, mo->points, 3 * N * sizeof(float));
      memcpy(first + 3 * N, mo->normals, 3 * N * sizeof(float));
    } else {
      assert_memory_equal(first, mo->points, 3 * N * sizeof(float));
      assert_memory_equal(first + 3 * N, mo->normals, 3 * N * sizeof(float));
    }
    sinew_data_unref(out);
  }
  assert_int_equal(c, 1);
  sinew_pool_set_threads(0);
  free(first);
  free(bidx);
  free(bval);
  free(p);
  free(n);
  sinew_data_unref(in);
  rig_free(&r);
}

/* Steady state: once a skinCluster has evaluated, moving an influence and pulling the output
 * allocates nothing, for every skinning method and thread count (the output block is reused
 * when the reader released it). An allocation that fails while the weights are being compiled
 * fails the read with SINEW_ENOMEM and leaves the plug dirty; the next read succeeds. */
static void test_steady_state_no_alloc(void **state) {
  (void)state;
  enum { N = 6000, NINF = 4 };
  for (int threads = 1; threads <= 2; threads++) {
    assert_int_equal(sinew_pool_set_threads(threads), 0);
    test_alloc_install();
    rig r;
    rig_init(&r);
    uint64_t seed = 99;
    double *p = xcalloc(3 * N, sizeof *p), *n = xcalloc(3 * N, sizeof *n);
    for (int k = 0; k < 3 * N; k++) p[k] = 10 * rnd(&seed) - 5, n[k] = rnd(&seed) - 0.5;
    sinew_data_t *in = make_mesh(N, p, n);
    set_input(&r, in);
    for (int32_t i = 0; i < NINF; i++) set_influence(&r, i, mat_translate(i, 0, 0), mat_translate(i, 0, 0));
    for (int32_t v = 0; v < N; v++) {
      int32_t idx[2] = {v % NINF, (v + 1) % NINF};
      double w[2] = {0.7, 0.3};
      set_weights(&r, v, 2, idx, w);
    }
    for (int method = 0; method < 3; method++) {
      set_num(&r, r.skm, method);
      long before = 0;
      for (int frame = 0; frame < 8; frame++) {
        if (frame == 3) before = test_alloc_count();
        set_mat_elem(&r, r.ma, 1, mul(mat_rot_z(5.0 * frame), mat_translate(1, 0.1 * frame, 0)));
        sinew_data_t *out = get_out(&r);
        sinew_data_unref(out);
      }
      long used = test_alloc_count() - before;
      if (used) fail_msg("method %d, %d threads: %ld allocations in 5 frames", method, threads, used);
    }
    /* out of memory while recompiling the weights: the read fails, then recovers */
    uint64_t c0, e0, c1, e1;
    get_stats(&r, &c0, &e0);
    set_weight1(&r, 0, 2, 0.5);
    test_alloc_fail_at(test_alloc_count() + 1);
    sinew_plug_t og = sinew_plug_make(r.skin, r.og, 1, (int32_t[]){0});
    sinew_data_t *d = NULL;
    int rc = sinew_get_data(r.g, &og, &d);
    test_alloc_fail_at(0);
    assert_int_equal(rc, SINEW_ENOMEM);
    assert_null(d);
    sinew_data_t *out = get_out(&r);
    get_stats(&r, &c1, &e1);
    assert_true(c1 > c0);
    sinew_data_unref(out);
    sinew_data_unref(in);
    free(p);
    free(n);
    rig_free(&r);
    assert_int_equal(test_alloc_live(), 0);
    test_alloc_uninstall();
  }
  assert_int_equal(sinew_pool_set_threads(1), 0);
}

int main(void) {
  static const char *const maya_cases[] = {"transformed_skin_f0", "transformed_skin_f4",   "transformed_skin_f8",
                                           "dual_quaternion",     "dual_quaternion_scale", "dq_weight_blended_f10",
                                           "dq_weight_blended_f18"};
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_prestate(test_maya_truth, (void *)maya_cases[0]),
      cmocka_unit_test_prestate(test_maya_truth, (void *)maya_cases[1]),
      cmocka_unit_test_prestate(test_maya_truth, (void *)maya_cases[2]),
      cmocka_unit_test_prestate(test_maya_truth, (void *)maya_cases[3]),
      cmocka_unit_test_prestate(test_maya_truth, (void *)maya_cases[4]),
      cmocka_unit_test_prestate(test_maya_truth, (void *)maya_cases[5]),
      cmocka_unit_test_prestate(test_maya_truth, (void *)maya_cases[6]),
      cmocka_unit_test_prestate(test_usdskel, (void *)"lbs"),
      cmocka_unit_test_prestate(test_usdskel, (void *)"dqs"),
      cmocka_unit_test(test_bind_pose_identity),
      cmocka_unit_test(test_rotation_about_pivot),
      cmocka_unit_test(test_envelope),
      cmocka_unit_test(test_node_state_passthrough),
      cmocka_unit_test(test_zero_weights),
      cmocka_unit_test(test_normalize_weights),
      cmocka_unit_test(test_sparse_influences),
      cmocka_unit_test(test_geom_matrix),
      cmocka_unit_test(test_dq_twist_volume),
      cmocka_unit_test(test_weight_blended),
      cmocka_unit_test(test_normals),
      cmocka_unit_test(test_granularity),
      cmocka_unit_test(test_thread_independence),
      cmocka_unit_test(test_steady_state_no_alloc),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
