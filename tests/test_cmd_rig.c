/* tests/test_cmd_rig.c: the rigging commands (joint, polyCube, polyPlane, polyCylinder,
 * polySphere, expression) run through a session, as a rig script runs them.
 *
 * Expected positions and values are worked out by hand here (the comments show how); the
 * library's math is never used to produce an expected value. Every bad input is checked to
 * leave the scene exactly as it was: same nodes, same stored values, same connections. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinew/sinew.h"
#include "sinew/cmds.h"
#include "tests/support.h"

#define TOL 1e-9
static const double PI = 3.14159265358979323846;

/* ---- helpers ------------------------------------------------------------------------------- */

static sinew_session_t *new_session(void) {
  sinew_session_t *s = NULL;
  assert_int_equal(sinew_session_create(NULL, &s), SINEW_OK);
  return s;
}

static int run(sinew_session_t *s, const char *text, sinew_value_t *res) {
  return sinew_session_run(s, text, strlen(text), "rig.mel", res);
}

static void run_ok(sinew_session_t *s, const char *text) {
  int rc = run(s, text, NULL);
  if (rc) fail_msg("'%s' failed: %s", text, sinew_session_errmsg(s));
}

/* Runs a command and returns its single string result (or element i of a string array). */
static void run_str(sinew_session_t *s, const char *text, size_t i, const char *want) {
  sinew_value_t r = {0};
  int rc = run(s, text, &r);
  if (rc) fail_msg("'%s' failed: %s", text, sinew_session_errmsg(s));
  const char *got = r.kind == SINEW_VALUE_STRING ? sinew_value_string(&r) : sinew_value_string_at(&r, i);
  if (!got || strcmp(got, want) != 0) fail_msg("'%s': got '%s', want '%s'", text, got ? got : "(none)", want);
  sinew_value_clear(&r);
}

/* Runs a query returning numbers and compares them. */
static void run_nums(sinew_session_t *s, const char *text, size_t n, const double *want, double tol) {
  sinew_value_t r = {0};
  int rc = run(s, text, &r);
  if (rc) fail_msg("'%s' failed: %s", text, sinew_session_errmsg(s));
  if (sinew_value_count(&r) != n) fail_msg("'%s': %zu values, want %zu", text, sinew_value_count(&r), n);
  for (size_t i = 0; i < n; i++) {
    double got = sinew_value_double_at(&r, i);
    if (fabs(got - want[i]) > tol) fail_msg("'%s'[%zu]: got %.12g, want %.12g", text, i, got, want[i]);
  }
  sinew_value_clear(&r);
}

static sinew_node_t node(sinew_session_t *s, const char *name) {
  sinew_node_t n = {0, 0};
  if (sinew_node_find(sinew_session_graph(s), name, &n)) fail_msg("no node %s", name);
  return n;
}

static double getd(sinew_session_t *s, const char *plug) {
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_plug_t p;
  double v = 0;
  if (sinew_plug_parse(g, plug, (sinew_node_t){0, 0}, &p)) fail_msg("no plug %s", plug);
  assert_int_equal(sinew_get_double(g, &p, &v), SINEW_OK);
  return v;
}

static void check_world(sinew_session_t *s, const char *name, const double want[4][4]) {
  sinew_mat4_t w;
  assert_int_equal(sinew_dag_world_matrix(sinew_session_graph(s), node(s, name), &w), SINEW_OK);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      if (fabs(w.m[i][j] - want[i][j]) > 1e-9)
        fail_msg("%s.worldMatrix[%d][%d] = %.12g, want %.12g", name, i, j, w.m[i][j], want[i][j]);
}

static void check_world_pos(sinew_session_t *s, const char *name, double x, double y, double z) {
  sinew_mat4_t w;
  assert_int_equal(sinew_dag_world_matrix(sinew_session_graph(s), node(s, name), &w), SINEW_OK);
  if (fabs(w.m[3][0] - x) > 1e-9 || fabs(w.m[3][1] - y) > 1e-9 || fabs(w.m[3][2] - z) > 1e-9)
    fail_msg("%s at (%.12g %.12g %.12g), want (%g %g %g)", name, w.m[3][0], w.m[3][1], w.m[3][2], x, y, z);
}

static bool is_parent(sinew_session_t *s, const char *child, const char *parent) {
  sinew_node_t p = sinew_node_parent(sinew_session_graph(s), node(s, child));
  if (!parent) return p.gen == 0;
  sinew_node_t want = node(s, parent);
  return p.index == want.index && p.gen == want.gen;
}

static bool source_is(sinew_session_t *s, const char *dst, const char *src_text) {
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_plug_t d, src;
  if (sinew_plug_parse(g, dst, (sinew_node_t){0, 0}, &d)) fail_msg("no plug %s", dst);
  if (!sinew_plug_source(g, &d, &src)) return src_text == NULL;
  char buf[256];
  sinew_plug_format(g, &src, false, buf, sizeof buf);
  return src_text && strcmp(buf, src_text) == 0;
}

/* A mesh output: point count, face count and the points. The caller releases *data. */
static const sinew_mesh_t *mesh_of(sinew_session_t *s, const char *plug, sinew_data_t **data) {
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_plug_t p;
  if (sinew_plug_parse(g, plug, (sinew_node_t){0, 0}, &p)) fail_msg("no plug %s", plug);
  assert_int_equal(sinew_get_data(g, &p, data), SINEW_OK);
  assert_non_null(*data);
  const sinew_mesh_t *m = sinew_mesh_get(*data);
  assert_non_null(m);
  return m;
}

static void check_point(const sinew_mesh_t *m, uint32_t i, double x, double y, double z) {
  assert_true(i < m->npoints);
  const float *p = m->points + 3 * i;
  if (fabs(p[0] - x) > 1e-5 || fabs(p[1] - y) > 1e-5 || fabs(p[2] - z) > 1e-5)
    fail_msg("point %u = (%g %g %g), want (%g %g %g)", i, p[0], p[1], p[2], x, y, z);
}

/* ---- scene snapshots: every node, every stored value, every connection ---------------------- */

typedef struct snap {
  char *p;
  size_t n, cap;
} snap;

static void snap_put(snap *b, const char *fmt, ...) {
  char tmp[1024];
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  size_t len = (size_t)k < sizeof tmp ? (size_t)k : sizeof tmp - 1;
  if (b->n + len + 1 > b->cap) {
    b->cap = (b->n + len + 1) * 2;
    b->p = realloc(b->p, b->cap);
    assert_non_null(b->p);
  }
  memcpy(b->p + b->n, tmp, len + 1);
  b->n += len;
}

/* Connections are listed sorted: a command that breaks and remakes a connection changes the
 * order they were made in, not the scene. */
typedef struct conn_list {
  char **line;
  size_t n, cap;
  sinew_graph_t *g;
} conn_list;

static bool snap_conn(void *ud, const sinew_connection_t *c) {
  conn_list *l = ud;
  char s1[256], s2[256];
  sinew_plug_format(l->g, &c->src, false, s1, sizeof s1);
  sinew_plug_format(l->g, &c->dst, false, s2, sizeof s2);
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 64;
    l->line = realloc(l->line, l->cap * sizeof *l->line);
    assert_non_null(l->line);
  }
  l->line[l->n] = malloc(strlen(s1) + strlen(s2) + 16);
  assert_non_null(l->line[l->n]);
  sprintf(l->line[l->n++], "%s -> %s%s", s1, s2, c->implicit ? " (dag)" : "");
  return true;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* True when the attribute or one above it is an array (its values need indices). */
static bool under_array(sinew_graph_t *g, sinew_node_t n, uint32_t attr) {
  for (uint32_t a = attr; a != UINT32_MAX;) {
    sinew_attr_info_t info;
    if (sinew_node_attr_info(g, n, a, &info)) return true;
    if (info.flags & SINEW_ATTR_ARRAY) return true;
    a = info.parent;
  }
  return false;
}

static char *snapshot(sinew_session_t *s) {
  sinew_graph_t *g = sinew_session_graph(s);
  snap b = {0};
  snap_put(&b, "%zu nodes\n", sinew_node_count(g));
  sinew_node_t it = {0, 0};
  while (sinew_node_next(g, &it)) {
    char *path = sinew_node_path(g, it);
    snap_put(&b, "%s %s\n", path, sinew_node_type_name(sinew_node_type(g, it)));
    sinew_free(path);
    uint32_t na = sinew_node_attr_count(g, it);
    for (uint32_t a = 0; a < na; a++) {
      sinew_attr_info_t info;
      if (sinew_node_attr_info(g, it, a, &info) || info.computed || under_array(g, it, a)) continue;
      sinew_plug_t p = sinew_plug_make(it, a, 0, NULL);
      if (sinew_attr_type_is_numeric(info.type)) {
        double v = 0;
        assert_int_equal(sinew_get_double(g, &p, &v), SINEW_OK);
        snap_put(&b, "  %s=%.17g\n", info.name, v);
      } else if (info.type == SINEW_ATTR_STRING) {
        const char *v = "";
        assert_int_equal(sinew_get_string(g, &p, &v), SINEW_OK);
        snap_put(&b, "  %s='%s'\n", info.name, v);
      }
    }
  }
  conn_list l = {.g = g};
  sinew_foreach_connection(g, (sinew_node_t){0, 0}, true, snap_conn, &l);
  if (l.n) qsort(l.line, l.n, sizeof *l.line, cmp_str);
  for (size_t i = 0; i < l.n; i++) {
    snap_put(&b, "%s\n", l.line[i]);
    free(l.line[i]);
  }
  free(l.line);
  return b.p;
}

/* Prints the lines that differ between two snapshots (the first 30), for a failure message. */
static void print_diff(const char *before, const char *after) {
  const char *a = before, *b = after;
  int shown = 0;
  while (*a && *b && shown < 30) {
    const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
    size_t la = ea ? (size_t)(ea - a) : strlen(a), lb = eb ? (size_t)(eb - b) : strlen(b);
    if (la != lb || memcmp(a, b, la) != 0) {
      print_error("- %.*s\n+ %.*s\n", (int)la, a, (int)lb, b);
      shown++;
    }
    a += la + (ea != NULL);
    b += lb + (eb != NULL);
  }
  if (*a || *b) print_error("(and %s)\n", *a ? "lines removed" : "lines added");
}

/* Runs a command that must fail; its message must hold each of the given pieces, and the scene
 * must be as it was. */
static void expect_fail(sinew_session_t *s, const char *text, const char *piece1, const char *piece2) {
  char *before = snapshot(s);
  sinew_value_t r = {0};
  int rc = run(s, text, &r);
  sinew_value_clear(&r);
  if (rc == SINEW_OK) fail_msg("'%s' succeeded; it should fail", text);
  const char *msg = sinew_session_errmsg(s);
  if (piece1 && !strstr(msg, piece1)) fail_msg("'%s': message '%s' lacks '%s'", text, msg, piece1);
  if (piece2 && !strstr(msg, piece2)) fail_msg("'%s': message '%s' lacks '%s'", text, msg, piece2);
  char *after = snapshot(s);
  if (strcmp(before, after) != 0) {
    print_diff(before, after);
    fail_msg("'%s' changed the scene", text);
  }
  free(before);
  free(after);
}

/* ---- joint ----------------------------------------------------------------------------------- */

/* Consecutive joint calls make a chain: each new joint goes under the selected one and becomes
 * the selection; select -cl starts a new root. */
static void test_joint_chain_follows_selection(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s, "select -cl;");
  run_str(s, "joint -p 0 0 0;", 0, "joint1");
  run_str(s, "joint -p 1 0 0;", 0, "joint2");
  run_str(s, "joint -p 1 2 0;", 0, "joint3");
  run_str(s, "ls -sl;", 0, "joint3");
  assert_true(is_parent(s, "joint1", NULL));
  assert_true(is_parent(s, "joint2", "joint1"));
  assert_true(is_parent(s, "joint3", "joint2"));
  /* Maya's joint parenting: parent.scale -> child.inverseScale */
  assert_true(source_is(s, "joint2.inverseScale", "joint1.scale"));
  assert_true(source_is(s, "joint3.inverseScale", "joint2.scale"));
  assert_true(source_is(s, "joint1.inverseScale", NULL));
  /* no rotations: translate is the offset from the parent's position */
  assert_true(fabs(getd(s, "joint2.translateX") - 1) < TOL);
  assert_true(fabs(getd(s, "joint3.translateX")) < TOL);
  assert_true(fabs(getd(s, "joint3.translateY") - 2) < TOL);
  check_world_pos(s, "joint3", 1, 2, 0);
  run_ok(s, "select -cl;");
  run_str(s, "joint -n \"tip\" -p 5 5 5;", 0, "tip");
  assert_true(is_parent(s, "tip", NULL));
  /* a named parent instead of the selection, and a name that is taken gets a number */
  run_str(s, "joint -n \"tip\" -p 6 5 5 joint1;", 0, "tip1");
  assert_true(is_parent(s, "tip1", "joint1"));
  check_world_pos(s, "tip1", 6, 5, 5);
  sinew_session_destroy(s);
}

/* Under a rotated and scaled parent the new joint still lands at the world position given. */
static void test_joint_world_position_under_rotated_parent(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  /* a: jointOrient 90 degrees about Z. Row vectors: x -> y, y -> -x. Its world matrix is
   * [[0 1 0 0] [-1 0 0 0] [0 0 1 0] [2 0 0 1]]. */
  run_ok(s, "select -cl; joint -n a -p 2 0 0 -o 0 0 90;");
  double wa[4][4] = {{0, 1, 0, 0}, {-1, 0, 0, 0}, {0, 0, 1, 0}, {2, 0, 0, 1}};
  check_world(s, "a", wa);
  assert_true(fabs(getd(s, "a.jointOrientZ") - PI / 2) < TOL);
  /* b at world (2, 5, 0): 5 along world y is 5 along a's x, so translate = (5, 0, 0) */
  run_ok(s, "joint -n b -p 2 5 0;");
  assert_true(fabs(getd(s, "b.translateX") - 5) < TOL);
  assert_true(fabs(getd(s, "b.translateY")) < TOL);
  double wb[4][4] = {{0, 1, 0, 0}, {-1, 0, 0, 0}, {0, 0, 1, 0}, {2, 5, 0, 1}};
  check_world(s, "b", wb);
  /* -r: translate is the position given, in the parent's space: (0, 3, 0) in b's space is
   * -3 along world x, from (2, 5, 0) */
  run_ok(s, "joint -n c -r -p 0 3 0;");
  assert_true(fabs(getd(s, "c.translateY") - 3) < TOL);
  check_world_pos(s, "c", -1, 5, 0);
  /* a scaled parent (scale 2 on b): the child's translate is halved to reach the same point.
   * Scaling b moves c (its translate goes through b's scale): c is now at 2 + (-6) = -4. */
  run_ok(s, "setAttr b.scale 2 2 2;");
  check_world_pos(s, "c", -4, 5, 0);
  run_ok(s, "select -cl; select b; joint -n d -p 2 9 0;");
  /* (2, 9, 0) - b's (2, 5, 0) = 4 along world y = a's x; b's scale 2: translate (2, 0, 0) */
  assert_true(fabs(getd(s, "d.translateX") - 2) < TOL);
  assert_true(fabs(getd(s, "d.translateY")) < TOL);
  check_world_pos(s, "d", 2, 9, 0);
  /* segmentScaleCompensate: d does not inherit b's scale, only its rotation */
  double wd[4][4] = {{0, 1, 0, 0}, {-1, 0, 0, 0}, {0, 0, 1, 0}, {2, 9, 0, 1}};
  check_world(s, "d", wd);
  sinew_session_destroy(s);
}

/* -o sets jointOrient; -rad, -roo, -s, -so, -sc, -ax/-ay/-az, -dof the other attributes. */
static void test_joint_creation_flags(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s, "joint -n j -o 10 20 30 -rad 2.5 -roo zxy -s 1 2 3 -so 0 45 0 -sc off -ax 5 -ay 6 -az 7 -dof xz;");
  double d = PI / 180;
  assert_true(fabs(getd(s, "j.jointOrientX") - 10 * d) < TOL);
  assert_true(fabs(getd(s, "j.jointOrientY") - 20 * d) < TOL);
  assert_true(fabs(getd(s, "j.jointOrientZ") - 30 * d) < TOL);
  assert_true(fabs(getd(s, "j.radius") - 2.5) < TOL);
  assert_true(fabs(getd(s, "j.rotateOrder") - 2) < TOL); /* xyz yzx zxy */
  assert_true(fabs(getd(s, "j.scaleZ") - 3) < TOL);
  assert_true(fabs(getd(s, "j.rotateAxisY") - 45 * d) < TOL);
  assert_true(getd(s, "j.segmentScaleCompensate") == 0);
  assert_true(fabs(getd(s, "j.rotateX") - 5 * d) < TOL);
  assert_true(fabs(getd(s, "j.rotateZ") - 7 * d) < TOL);
  assert_true(getd(s, "j.jointTypeX") == 1 && getd(s, "j.jointTypeY") == 0 && getd(s, "j.jointTypeZ") == 1);
  run_str(s, "joint -q -dof j;", 0, "xz");
  run_str(s, "joint -q -roo j;", 0, "zxy");
  /* -spa copies rotate to preferredAngle */
  run_ok(s, "joint -e -spa j;");
  assert_true(fabs(getd(s, "j.preferredAngleY") - 6 * d) < TOL);
  run_ok(s, "setAttr j.rotate 0 0 0; joint -e -apa j;");
  assert_true(fabs(getd(s, "j.rotateY") - 6 * d) < TOL);
  sinew_session_destroy(s);
}

static void test_joint_edit_and_query(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s, "select -cl; joint -n a -p 0 0 0 -o 0 0 90; joint -n b -p 0 4 0; joint -n c -p 0 4 3;");
  /* queries: world position by default, translate with -r, orientation in degrees */
  run_nums(s, "joint -q -p b;", 3, (double[]){0, 4, 0}, 1e-9);
  run_nums(s, "joint -q -r -p b;", 3, (double[]){4, 0, 0}, 1e-9);
  run_nums(s, "joint -q -o a;", 3, (double[]){0, 0, 90}, 1e-9);
  run_str(s, "joint -q -n b;", 0, "b");
  run_nums(s, "joint -q -rad b;", 1, (double[]){1}, 0);
  run_nums(s, "joint -q -ex b;", 1, (double[]){1}, 0);
  run_nums(s, "joint -q -ex nosuch;", 1, (double[]){0}, 0);
  /* -e -p moves the joint to a world position; its child moves with it */
  run_ok(s, "joint -e -p 3 0 0 b;");
  run_nums(s, "joint -q -p b;", 3, (double[]){3, 0, 0}, 1e-9);
  /* world (3, 0, 0) under a (x -> y): a's -y, translate (0, -3, 0) */
  assert_true(fabs(getd(s, "b.translateY") + 3) < TOL);
  check_world_pos(s, "c", 3, 0, 3);
  /* -co: the children stay where they are */
  run_ok(s, "joint -e -co -p 0 4 0 b;");
  check_world_pos(s, "b", 0, 4, 0);
  check_world_pos(s, "c", 3, 0, 3);
  /* -r -p in edit mode sets translate */
  run_ok(s, "joint -e -r -p 1 0 0 b;");
  check_world_pos(s, "b", 0, 1, 0);
  /* -o on a changes jointOrient; b turns with it: b's translate (1, 0, 0) along a's new x.
   * With jointOrient 0 the x axis is the world's: b at (1, 0, 0). */
  run_ok(s, "joint -e -o 0 0 0 a;");
  run_nums(s, "joint -q -o a;", 3, (double[]){0, 0, 0}, 1e-12);
  check_world_pos(s, "b", 1, 0, 0);
  /* edit through the selection, several joints at once, and renaming */
  run_ok(s, "select b; joint -e -rad 3;");
  run_nums(s, "joint -q -rad b;", 1, (double[]){3}, 0);
  run_ok(s, "joint -e -rad 4 a c;");
  assert_true(getd(s, "a.radius") == 4 && getd(s, "c.radius") == 4 && getd(s, "b.radius") == 3);
  run_str(s, "joint -e -n elbow b;", 0, "elbow");
  run_nums(s, "joint -q -ex elbow;", 1, (double[]){1}, 0);
  sinew_session_destroy(s);
}

/* Positions and orientations are read and written in the scene's units. */
static void test_joint_units(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s, "currentUnit -l mm; select -cl; joint -n a -p 10 20 0;");
  /* stored in centimetres */
  assert_true(fabs(getd(s, "a.translateX") - 1) < TOL);
  assert_true(fabs(getd(s, "a.translateY") - 2) < TOL);
  check_world_pos(s, "a", 1, 2, 0);
  run_nums(s, "joint -q -p a;", 3, (double[]){10, 20, 0}, 1e-9);
  run_ok(s, "currentUnit -l cm;");
  run_nums(s, "joint -q -p a;", 3, (double[]){1, 2, 0}, 1e-9);
  run_ok(s, "currentUnit -a rad; joint -e -o 0 0 1.25 a;");
  assert_true(fabs(getd(s, "a.jointOrientZ") - 1.25) < TOL);
  run_nums(s, "joint -q -o a;", 3, (double[]){0, 0, 1.25}, 1e-12);
  run_ok(s, "currentUnit -a deg;");
  run_nums(s, "joint -q -o a;", 3, (double[]){0, 0, 1.25 * 180 / PI}, 1e-9);
  /* a child placed in metres under a turned parent: (1 m, 0, 0) from a at (1, 2, 0) cm */
  run_ok(s, "currentUnit -l m; joint -n b -p 1 0 0;");
  check_world_pos(s, "b", 100, 0, 0);
  sinew_session_destroy(s);
}

/* Maya: with a transform selected (a polygon object just made) the joint goes under it. */
static void test_joint_under_selected_transform(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s, "polyCube; setAttr pCube1.translate 1 2 3; joint -n j -p 1 2 4;");
  assert_true(is_parent(s, "j", "pCube1"));
  assert_true(source_is(s, "j.inverseScale", NULL)); /* not under a joint */
  assert_true(fabs(getd(s, "j.translateZ") - 1) < TOL);
  check_world_pos(s, "j", 1, 2, 4);
  sinew_session_destroy(s);
}

static void test_joint_bad_input(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s, "select -cl; joint -n a -p 1 0 0; joint -n b -p 2 0 0; polyCube -n box; select -cl;");
  expect_fail(s, "joint -bogus 1;", "unknown flag", "-bogus");
  expect_fail(s, "joint -p 1 2;", "-position", "3 arguments");
  expect_fail(s, "joint -p 1 two 3;", "-position", "'two' is not a number");
  expect_fail(s, "joint -rad -1;", "-radius", "negative");
  expect_fail(s, "joint -roo abc;", "-rotationOrder", "'abc'");
  expect_fail(s, "joint -dof xxw;", "-degreeOfFreedom", NULL);
  expect_fail(s, "joint -r -a -p 1 1 1;", "-relative or -absolute", NULL);
  expect_fail(s, "joint -n \"bad name\";", "joint", NULL);
  expect_fail(s, "joint -p 0 0 0 nosuch;", "no node named 'nosuch'", NULL);
  expect_fail(s, "joint -p 0 0 0 a b;", "one parent", NULL);
  expect_fail(s, "joint -p 0 0 0 boxShape;", "not a transform", NULL);
  expect_fail(s, "joint -e -p 1 2 3 nosuch;", "rig.mel:1", "no node named 'nosuch'");
  expect_fail(s, "joint -e -rad 2 a box;", "box is not a joint", NULL);
  expect_fail(s, "joint -e -p 1 2 3 a b;", "one joint", NULL);
  expect_fail(s, "joint -e -rad 2;", "nothing selected", NULL);
  expect_fail(s, "joint -q -p nosuch;", "no node named 'nosuch'", NULL);
  expect_fail(s, "joint -q a;", "give the flag to query", NULL);
  expect_fail(s, "joint -q -p -o a;", "one flag at a time", NULL);
  /* a late failure: the third joint's radius is locked; the first two are set back */
  run_ok(s, "joint -n c -p 3 0 0; setAttr -lock true c.radius; select -cl;");
  expect_fail(s, "joint -e -rad 7 a b c;", "c.radius", "locked");
  assert_true(getd(s, "a.radius") == 1 && getd(s, "b.radius") == 1);
  /* a driven translate cannot be placed: the jointOrient set before it is set back */
  run_ok(s, "connectAttr a.translateX b.translateX;");
  expect_fail(s, "joint -e -o 0 0 30 -p 5 5 5 b;", "b.translateX", NULL);
  assert_true(getd(s, "b.jointOrientZ") == 0);
  /* a new joint whose place cannot be reached is not kept: a singular parent */
  run_ok(s, "setAttr a.scale 0 0 0;");
  expect_fail(s, "joint -p 1 1 1 a;", "singular", NULL);
  sinew_session_destroy(s);
}

/* ---- polygon primitives ------------------------------------------------------------------------ */

/* joint -e -oj: a, b, c in the XY plane (b at 0 5 0, c at 3 9 0, so the bone b -> c is
 * (0.6, 0.8, 0) * 5). Expected frames worked out by hand: see each comment. */
static void test_joint_orient(void **state) {
  (void)state;
  const double d = 180 / PI, b_angle = asin(0.6) * d; /* 36.8698976458 degrees */
  sinew_session_t *s = new_session();
  run_ok(s, "select -cl; joint -n a -p 0 0 0; joint -n b -p 0 5 0; joint -n c -p 3 9 0; select -cl;"
            "createNode transform -n tip -p c; setAttr tip.t 1 0 0; setAttr tip.ry 30;");
  sinew_mat4_t tip_before;
  assert_int_equal(sinew_dag_world_matrix(sinew_session_graph(s), node(s, "tip"), &tip_before), SINEW_OK);
  run_ok(s, "joint -e -oj xyz -sao zup -ch -zso a;");
  /* a: x along the bone (+Y), y toward +Z, z = x cross y = +X: rows (0 1 0) (0 0 1) (1 0 0) =
   * Rx(90) Rz(90) */
  run_nums(s, "joint -q -o a", 3, (const double[]){90, 0, 90}, 1e-9);
  run_nums(s, "getAttr a.ra", 3, (const double[]){0, 0, 0}, 1e-9);
  check_world(s, "a", (const double[4][4]){{0, 1, 0, 0}, {0, 0, 1, 0}, {1, 0, 0, 0}, {0, 0, 0, 1}});
  /* b: x = (0.6 0.8 0), y = +Z, z = (0.8 -0.6 0); in a's frame that is Ry(-36.87 degrees) */
  run_nums(s, "joint -q -o b", 3, (const double[]){0, -b_angle, 0}, 1e-9);
  check_world(s, "b", (const double[4][4]){{0.6, 0.8, 0, 0}, {0, 0, 1, 0}, {0.8, -0.6, 0, 0}, {0, 5, 0, 1}});
  /* the children sit on the bones (-zso: no rotateAxis, translate along x) and do not move */
  run_nums(s, "getAttr b.t", 3, (const double[]){5, 0, 0}, 1e-9);
  run_nums(s, "getAttr c.t", 3, (const double[]){5, 0, 0}, 1e-9);
  /* c is an end joint: its orientation is left, so it keeps its world frame (identity) */
  check_world(s, "c", (const double[4][4]){{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {3, 9, 0, 1}});
  sinew_mat4_t tip_after;
  assert_int_equal(sinew_dag_world_matrix(sinew_session_graph(s), node(s, "tip"), &tip_after), SINEW_OK);
  assert_true(sinew_mat4_equal(&tip_before, &tip_after, 1e-9));
  sinew_session_destroy(s);

  /* no -sao: y along the normal of the plane of the bones; no -zso: rotateAxis takes back the
   * change, so the children keep their translate */
  s = new_session();
  run_ok(s, "select -cl; joint -n a -p 0 0 0; joint -n b -p 0 5 0; joint -n c -p 3 9 0; select -cl;"
            "joint -e -oj xyz -ch a;");
  /* a (a root): normal of a->b, b->c = (0 1 0) x (3 4 0) = (0 0 -3): y = -Z, z = x cross y = -X:
   * rows (0 1 0) (0 0 -1) (-1 0 0) = Rx(-90) Rz(90) */
  run_nums(s, "joint -q -o a", 3, (const double[]){-90, 0, 90}, 1e-9);
  /* b: normal of a->b, b->c, again -Z; z = (0.6 0.8 0) x (0 0 -1) = (-0.8 0.6 0):
   * rows (0.6 0.8 0) (0 0 -1) (-0.8 0.6 0) = Rx(-90) Rz(53.13); a's frame is unchanged */
  run_nums(s, "joint -q -o b", 3, (const double[]){-90, 0, 90 - b_angle}, 1e-9);
  run_nums(s, "getAttr b.t", 3, (const double[]){0, 5, 0}, 1e-9);
  check_world_pos(s, "c", 3, 9, 0);
  check_world(s, "a", (const double[4][4]){{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}});
  /* -zso afterwards: rotateAxis goes, the children move back through translate and jointOrient */
  run_ok(s, "joint -e -zso a;");
  run_nums(s, "getAttr a.ra", 3, (const double[]){0, 0, 0}, 1e-9);
  run_nums(s, "getAttr b.t", 3, (const double[]){5, 0, 0}, 1e-9);
  check_world_pos(s, "b", 0, 5, 0);
  check_world_pos(s, "c", 3, 9, 0);
  /* -oj none: jointOrient zero, rotateAxis keeps the frame */
  run_ok(s, "joint -e -oj none b;");
  run_nums(s, "joint -q -o b", 3, (const double[]){0, 0, 0}, 1e-9);
  check_world_pos(s, "c", 3, 9, 0);
  /* a rotated joint and an end joint are left as they are (Maya ignores the flag on them) */
  run_ok(s, "setAttr a.rz 10; joint -e -oj yzx a; joint -e -oj xyz c;");
  run_nums(s, "joint -q -o a", 3, (const double[]){-90, 0, 90}, 1e-9);
  run_nums(s, "joint -q -o c", 3, (const double[]){0, 0, 0}, 1e-9);
  /* bad flags leave the scene as it was */
  expect_fail(s, "joint -e -oj xzz a", "-orientJoint", "xzz");
  expect_fail(s, "joint -e -oj xyz -sao wup a", "-secondaryAxisOrient", "wup");
  expect_fail(s, "joint -e -sao yup a", "-secondaryAxisOrient goes with -orientJoint", NULL);
  expect_fail(s, "joint -oj xyz -n j9", "-orientJoint is an edit flag", NULL);
  sinew_session_destroy(s);
}

static void test_poly_cylinder_names_and_history(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  sinew_graph_t *g = sinew_session_graph(s);
  size_t before = sinew_node_count(g);
  run_str(s, "polyCylinder;", 0, "pCylinder1");
  run_str(s, "polyCylinder;", 1, "polyCylinder2");
  assert_int_equal(sinew_node_count(g), before + 6);
  assert_true(is_parent(s, "pCylinderShape1", "pCylinder1"));
  assert_true(source_is(s, "pCylinderShape1.inMesh", "polyCylinder1.output"));
  run_str(s, "ls -sl;", 0, "pCylinder2");
  /* Maya's defaults: r 1, h 2, 20 around, 1 up, 1 cap ring: 42 points, 60 faces */
  sinew_data_t *d;
  const sinew_mesh_t *m = mesh_of(s, "pCylinderShape1.outMesh", &d);
  assert_int_equal(m->npoints, 42);
  assert_int_equal(m->topology->nfaces, 60);
  sinew_data_unref(d);
  /* -n names the transform; the shape follows it */
  run_str(s, "polyCylinder -n arm;", 0, "arm");
  assert_true(is_parent(s, "armShape", "arm"));
  run_str(s, "polyCylinder -n arm;", 0, "arm1");
  assert_true(is_parent(s, "armShape1", "arm1"));
  sinew_session_destroy(s);
}

static void test_poly_cylinder_shape(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s, "polyCylinder -r 2 -h 4 -sx 8 -sy 3 -sz 1;");
  sinew_data_t *d;
  const sinew_mesh_t *m = mesh_of(s, "pCylinderShape1.outMesh", &d);
  /* 4 rings of 8 points and the two cap centres; 8 * 3 side quads and 2 * 8 cap triangles */
  assert_int_equal(m->npoints, 8 * 4 + 2);
  assert_int_equal(m->topology->nfaces, 8 * 3 + 16);
  /* point 0: the bottom ring (y = -2) at 360/8 = 45 degrees: x = 2 cos 45, z = -2 sin 45 */
  double r45 = 2 * sqrt(0.5);
  check_point(m, 0, r45, -2, -r45);
  check_point(m, 7, 2, -2, 0);           /* the ring ends on +X */
  check_point(m, 8 + 7, 2, -2 + 4.0 / 3, 0); /* the second ring, a third of the way up */
  check_point(m, 32, 0, -2, 0);
  check_point(m, 33, 0, 2, 0);
  sinew_data_unref(d);
  /* -ax 1 0 0 lays it along X: the cap centres at x = -2 and 2 */
  run_ok(s, "polyCylinder -r 1 -h 4 -sx 4 -sy 1 -sz 1 -ax 1 0 0;");
  m = mesh_of(s, "pCylinderShape2.outMesh", &d);
  double lo = 1e9, hi = -1e9;
  for (uint32_t i = 0; i < m->npoints; i++) {
    lo = fmin(lo, m->points[3 * i]);
    hi = fmax(hi, m->points[3 * i]);
    assert_true(fabs(hypot(m->points[3 * i + 1], m->points[3 * i + 2])) <= 1 + 1e-6);
  }
  assert_true(fabs(lo + 2) < 1e-6 && fabs(hi - 2) < 1e-6);
  sinew_data_unref(d);
  /* query and edit through the transform */
  run_nums(s, "polyCylinder -q -r pCylinder1;", 1, (double[]){2}, 1e-12);
  run_nums(s, "polyCylinder -q -sx pCylinder1;", 1, (double[]){8}, 0);
  run_ok(s, "polyCylinder -e -sx 5 -h 10 pCylinder1;");
  m = mesh_of(s, "pCylinderShape1.outMesh", &d);
  assert_int_equal(m->npoints, 5 * 4 + 2);
  check_point(m, 21, 0, 5, 0);
  sinew_data_unref(d);
  sinew_session_destroy(s);
}

static void test_poly_cube_plane_sphere(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  sinew_data_t *d;
  run_str(s, "polyCube;", 1, "polyCube1");
  const sinew_mesh_t *m = mesh_of(s, "pCubeShape1.outMesh", &d);
  assert_int_equal(m->npoints, 8);
  assert_int_equal(m->topology->nfaces, 6);
  check_point(m, 0, -0.5, -0.5, 0.5); /* Maya's first cube point */
  sinew_data_unref(d);
  /* a subdivided box: (sx+1)(sy+1)(sz+1) grid points less the (sx-1)(sy-1)(sz-1) inside;
   * 2 (sx sy + sx sz + sy sz) faces */
  run_ok(s, "polyCube -w 2 -h 4 -d 6 -sx 2 -sy 3 -sz 4;");
  m = mesh_of(s, "pCubeShape2.outMesh", &d);
  assert_int_equal(m->npoints, 3 * 4 * 5 - 1 * 2 * 3);
  assert_int_equal(m->topology->nfaces, 2 * (2 * 3 + 2 * 4 + 3 * 4));
  double lo[3] = {1e9, 1e9, 1e9}, hi[3] = {-1e9, -1e9, -1e9};
  for (uint32_t i = 0; i < m->npoints; i++)
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(lo[k], m->points[3 * i + k]);
      hi[k] = fmax(hi[k], m->points[3 * i + k]);
    }
  assert_true(fabs(lo[0] + 1) < 1e-6 && fabs(hi[1] - 2) < 1e-6 && fabs(lo[2] + 3) < 1e-6);
  sinew_data_unref(d);
  /* plane: rows of sx + 1 points along +X, from z = +h/2 */
  run_str(s, "polyPlane;", 0, "pPlane1");
  m = mesh_of(s, "pPlaneShape1.outMesh", &d);
  assert_int_equal(m->npoints, 121);
  assert_int_equal(m->topology->nfaces, 100);
  sinew_data_unref(d);
  run_ok(s, "polyPlane -w 4 -h 2 -sx 2 -sy 1;");
  m = mesh_of(s, "pPlaneShape2.outMesh", &d);
  assert_int_equal(m->npoints, 6);
  assert_int_equal(m->topology->nfaces, 2);
  check_point(m, 0, -2, 0, 1);
  check_point(m, 2, 2, 0, 1);
  check_point(m, 5, 2, 0, -1);
  sinew_data_unref(d);
  /* sphere: sy - 1 rings of sx points and two poles; every point at the radius */
  run_ok(s, "polySphere -r 3 -sx 6 -sy 4;");
  m = mesh_of(s, "pSphereShape1.outMesh", &d);
  assert_int_equal(m->npoints, 6 * 3 + 2);
  assert_int_equal(m->topology->nfaces, 6 * 2 + 2 * 6);
  check_point(m, 18, 0, -3, 0);
  check_point(m, 19, 0, 3, 0);
  /* ring 1 is the equator (-90 + 180 * 2 / 4 = 0); its last point on +X */
  check_point(m, 11, 3, 0, 0);
  for (uint32_t i = 0; i < m->npoints; i++) {
    const float *p = m->points + 3 * i;
    assert_true(fabs(sqrt((double)p[0] * p[0] + (double)p[1] * p[1] + (double)p[2] * p[2]) - 3) < 1e-5);
  }
  sinew_data_unref(d);
  sinew_session_destroy(s);
}

/* -ch off: no creation node; the points are stored on the shape. -o off: only the node. */
static void test_poly_no_history(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  sinew_graph_t *g = sinew_session_graph(s);
  size_t before = sinew_node_count(g);
  sinew_value_t r = {0};
  assert_int_equal(run(s, "polyCylinder -ch off -r 2 -h 4 -sx 8 -sy 3;", &r), SINEW_OK);
  assert_int_equal(sinew_value_count(&r), 1);
  assert_string_equal(sinew_value_string_at(&r, 0), "pCylinder1");
  sinew_value_clear(&r);
  assert_int_equal(sinew_node_count(g), before + 2);
  assert_int_equal(sinew_node_list_type(g, "polyCylinder", false, NULL, 0), 0);
  assert_true(source_is(s, "pCylinderShape1.inMesh", NULL));
  sinew_data_t *d;
  const sinew_mesh_t *m = mesh_of(s, "pCylinderShape1.outMesh", &d);
  assert_int_equal(m->npoints, 34);
  check_point(m, 0, 2 * sqrt(0.5), -2, -2 * sqrt(0.5));
  sinew_data_unref(d);
  /* the stored points still move with the transform */
  run_ok(s, "setAttr pCylinder1.translateY 10;");
  m = mesh_of(s, "pCylinderShape1.worldMesh[0]", &d);
  check_point(m, 33, 0, 12, 0);
  sinew_data_unref(d);
  run_str(s, "polySphere -o off;", 0, "polySphere1");
  assert_int_equal(sinew_node_count(g), before + 3);
  sinew_session_destroy(s);
}

static void test_poly_units(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s, "currentUnit -l mm; polyCube -w 10 -h 20 -d 30;");
  assert_true(fabs(getd(s, "polyCube1.width") - 1) < TOL); /* centimetres */
  sinew_data_t *d;
  const sinew_mesh_t *m = mesh_of(s, "pCubeShape1.outMesh", &d);
  check_point(m, 0, -0.5, -1, 1.5);
  sinew_data_unref(d);
  run_nums(s, "polyCube -q -h polyCube1;", 1, (double[]){20}, 1e-9);
  sinew_session_destroy(s);
}

static void test_poly_bad_input(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s, "polyCylinder; joint -n j;");
  expect_fail(s, "polyCylinder -sx 2;", "-subdivisionsX", "3 to");
  expect_fail(s, "polySphere -sy 1;", "-subdivisionsY", "2 to");
  expect_fail(s, "polyCube -sz 0;", "-subdivisionsZ", NULL);
  expect_fail(s, "polyPlane -sx 2000000;", "-subdivisionsX", NULL);
  expect_fail(s, "polyCylinder -r -1;", "-radius", "negative");
  expect_fail(s, "polyCylinder -r big;", "-radius", "not a number");
  expect_fail(s, "polyCylinder -sx;", "-subdivisionsX", "argument");
  /* a word that is not a boolean after a boolean flag is an argument, as in MEL */
  expect_fail(s, "polyCylinder -ch maybe;", "unexpected argument 'maybe'", NULL);
  expect_fail(s, "polyCylinder -w 1;", "unknown flag -w", NULL);
  expect_fail(s, "polyCylinder -ax 0 0 0;", "-axis", NULL);
  expect_fail(s, "polyCylinder -cuv 7;", "-createUVs", NULL);
  expect_fail(s, "polyCylinder -n \"1bad\";", "polyCylinder", NULL);
  expect_fail(s, "polyCylinder extra;", "unexpected argument", NULL);
  /* 1e6 around and 1e6 up is more points than a mesh holds: refused, nothing kept */
  expect_fail(s, "polyPlane -sx 1000000 -sy 1000000;", "polyPlane", "at most 2^28");
  /* the same through an edit: the old mesh stays and so do the counts */
  run_ok(s, "polySphere -sx 4 -sy 4;");
  expect_fail(s, "polySphere -e -sx 100000 -sy 100000 pSphere1;", "at most 2^28", NULL);
  sinew_data_t *d;
  const sinew_mesh_t *m = mesh_of(s, "pSphereShape1.outMesh", &d);
  assert_int_equal(m->npoints, 4 * 3 + 2);
  sinew_data_unref(d);
  expect_fail(s, "polyCylinder -q -r j;", "no polyCylinder creation node", NULL);
  expect_fail(s, "polyCube -q -w pCylinder1;", "no polyCube creation node", NULL);
  expect_fail(s, "polyCylinder -e -sx 2 pCylinder1;", "-subdivisionsX", NULL);
  expect_fail(s, "polyCylinder -e -r 3 nosuch;", "no node named 'nosuch'", NULL);
  /* a late failure in edit mode: the height is connected; the radius set first is put back */
  run_ok(s, "connectAttr j.translateX polyCylinder1.height;");
  expect_fail(s, "polyCylinder -e -r 5 -h 3 polyCylinder1;", "polyCylinder1.height", NULL);
  assert_true(getd(s, "polyCylinder1.radius") == 1);
  sinew_session_destroy(s);
}

/* ---- expression ------------------------------------------------------------------------------------ */

static void test_expression_create_query_edit(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s, "select -cl; joint -n a; joint -n b -p 1 0 0; select -cl;");
  run_str(s, "expression -n \"drive\" -s \"b.rotateZ = a.rotateX * 2;\";", 0, "drive");
  run_str(s, "expression -q -s drive;", 0, "b.rotateZ = a.rotateX * 2;");
  run_str(s, "expression -q -o drive;", 0, "");
  run_str(s, "expression -q -uc drive;", 0, "all");
  run_nums(s, "expression -q -ae drive;", 1, (double[]){1}, 0);
  run_nums(s, "expression -q -an drive;", 1, (double[]){1}, 0);
  run_nums(s, "expression -q -td drive;", 1, (double[]){0}, 0);
  run_ok(s, "setAttr a.rotateX 10;");
  assert_true(fabs(getd(s, "b.rotateZ") - 20 * PI / 180) < TOL);
  /* edit: new text, new connections */
  run_ok(s, "expression -e -s \"b.rotateY = a.rotateX + 1;\" drive;");
  run_str(s, "expression -q -s drive;", 0, "b.rotateY = a.rotateX + 1;");
  assert_true(fabs(getd(s, "b.rotateY") - 11 * PI / 180) < TOL);
  assert_true(source_is(s, "b.rotateY", "drive.output[0]"));
  assert_true(source_is(s, "b.rotateZ", NULL));
  /* a default object, the unit option and alwaysEvaluate */
  run_str(s, "expression -o b -uc none -ae 0 -an 2 -s \"translateZ = 3;\";", 0, "expression1");
  run_str(s, "expression -q -o expression1;", 0, "b");
  run_str(s, "expression -q -uc expression1;", 0, "none");
  run_nums(s, "expression -q -ae expression1;", 1, (double[]){0}, 0);
  run_nums(s, "expression -q -an expression1;", 1, (double[]){2}, 0);
  assert_true(fabs(getd(s, "b.translateZ") - 3) < TOL);
  /* alwaysEvaluate off and no time in the text: not connected to the time; turned on: connected */
  assert_true(source_is(s, "expression1.time", NULL));
  run_ok(s, "expression -e -ae 1 expression1;");
  assert_true(source_is(s, "expression1.time", "time1.outTime"));
  run_nums(s, "expression -q -ae expression1;", 1, (double[]){1}, 0);
  /* -uc none: 1 means one radian */
  run_ok(s, "expression -o b -uc none -s \"rotateX = 1;\";");
  assert_true(fabs(getd(s, "b.rotateX") - 1) < TOL);
  run_ok(s, "expression -e -uc angularOnly -ae 1 expression2;");
  run_str(s, "expression -q -uc expression2;", 0, "angularOnly");
  assert_true(fabs(getd(s, "b.rotateX") - PI / 180) < TOL);
  /* -e -o: a new default object for the text */
  run_ok(s, "expression -e -o a -s \"rotateX = 5;\" expression2;");
  run_str(s, "expression -q -o expression2;", 0, "a");
  assert_true(source_is(s, "expression2.objectMsg", "a.message"));
  assert_true(fabs(getd(s, "a.rotateX") - 5 * PI / 180) < TOL);
  run_str(s, "expression -e -n \"spin\" expression2;", 0, "spin");
  sinew_session_destroy(s);
}

/* An expression driving a joint: its value follows the input and the time, and the joint's
 * world matrix follows its value. */
static void test_expression_drives_joint(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s,
         "select -cl; joint -n root -p 0 0 0; joint -n tip -p 2 0 0; select -cl; joint -n ctl;\n"
         "expression -n \"bend\" -s (\"float $a = ctl.translateX * 10;\\n\"\n"
         "  + \"root.rotateZ = $a + frame;\\n\");\n");
  run_nums(s, "expression -q -td bend;", 1, (double[]){1}, 0);
  run_ok(s, "currentTime 0; setAttr ctl.translateX 3;");
  assert_true(fabs(getd(s, "root.rotateZ") - 30 * PI / 180) < TOL);
  /* tip at 2 along root's x turned 30 degrees: (2 cos 30, 2 sin 30) = (sqrt 3, 1) */
  check_world_pos(s, "tip", sqrt(3), 1, 0);
  /* 60 degrees at frame 30: (1, sqrt 3) */
  run_ok(s, "currentTime 30;");
  check_world_pos(s, "tip", 1, sqrt(3), 0);
  run_ok(s, "setAttr ctl.translateX 6;");
  /* 90 degrees: (0, 2); the world matrix's x row is world y */
  double w[4][4] = {{0, 1, 0, 0}, {-1, 0, 0, 0}, {0, 0, 1, 0}, {0, 2, 0, 1}};
  check_world(s, "tip", w);
  sinew_session_destroy(s);
}

static void test_expression_bad_input(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s, "select -cl; joint -n a; joint -n b -p 1 0 0; select -cl;"
            "expression -n drive -s \"b.rotateZ = a.rotateX * 2;\";");
  expect_fail(s, "expression -s \"a.translateX = ;\";", "line 1, column", NULL);
  expect_fail(s, "expression -s \"a.translateX = 1;\\nb.translateY = (2;\";", "line 2, column", NULL);
  expect_fail(s, "expression -s \"a.nope = 1;\";", "line 1, column 1", "no such attribute: a.nope");
  expect_fail(s, "expression -s \"a.tx = 1;\\n  nosuch.tx = 2;\";", "line 2, column 3", "nosuch.tx");
  expect_fail(s, "expression -s \"translateX = 1;\";", "names no object", NULL);
  /* a cycle through two expressions: drive reads a.rotateX; this one would write it from b */
  expect_fail(s, "expression -s \"a.rotateX = b.rotateZ;\";", "cycle", NULL);
  expect_fail(s, "expression -uc some -s \"a.tx = 1;\";", "-unitConversion", "'some'");
  expect_fail(s, "expression -an 5 -s \"a.tx = 1;\";", "-animated", NULL);
  expect_fail(s, "expression -ae -s \"a.tx = 1;\";", "-alwaysEvaluate", NULL);
  expect_fail(s, "expression -o nosuch -s \"tx = 1;\";", "no node named 'nosuch'", NULL);
  expect_fail(s, "expression -n e2;", "-string", NULL);
  expect_fail(s, "expression -bogus -s \"a.tx = 1;\";", "unknown flag -bogus", NULL);
  expect_fail(s, "expression -q -s nosuch;", "no node named 'nosuch'", NULL);
  expect_fail(s, "expression -q -s a;", "not an expression", NULL);
  expect_fail(s, "expression -q drive;", "give the flag", NULL);
  /* a failed edit keeps the old text and connections */
  expect_fail(s, "expression -e -s \"b.rotateZ = (;\" drive;", "line 1, column", NULL);
  expect_fail(s, "expression -e -s \"b.rotateZ = a.nope;\" drive;", "no such attribute", NULL);
  expect_fail(s, "expression -e -uc none -s \"b.rotateZ = a.nope;\" drive;", "no such attribute", NULL);
  expect_fail(s, "expression -e -o b -s \"b.rotateZ = a.nope;\" drive;", "no such attribute", NULL);
  expect_fail(s, "expression -e -n \"9x\" -s \"b.rotateZ = 1;\" drive;", NULL, NULL);
  run_str(s, "expression -q -s drive;", 0, "b.rotateZ = a.rotateX * 2;");
  run_ok(s, "setAttr a.rotateX 4;");
  assert_true(fabs(getd(s, "b.rotateZ") - 8 * PI / 180) < TOL);
  sinew_session_destroy(s);
}

/* ---- a rig script ---------------------------------------------------------------------------- */

/* The skeleton-and-geometry part of a rig script: chains built from the selection, an
 * auxiliary joint under the shoulder, a world-space joint, expressions and cylinders. */
static void test_rig_script(void **state) {
  (void)state;
  sinew_session_t *s = new_session();
  run_ok(s,
         "currentUnit -l centimeter -a degree -t film;\n"
         "select -cl;\n"
         "joint -n \"hip\" -p 0 90 0;\n"
         "joint -n \"chest\" -p 0 130 0;\n"
         "select -cl; select chest;\n"
         "joint -n \"shoulder\" -p 12 140 0;\n"
         "joint -n \"elbow\" -p 40 140 0;\n"
         "joint -n \"wrist\" -p 66 140 0;\n"
         "select -cl; select shoulder;\n"
         "joint -n \"bicep\" -p 26 143 0;\n"
         "select -cl;\n"
         "joint -n \"muscle\" -p 12 136 5;\n"
         "setAttr \"muscle.rotateOrder\" 5;\n"
         "addAttr -ln \"bulge\" -at \"double\" -dv 0.5 -k true bicep;\n"
         "expression -n \"bulger\" -s (\"float $a = smoothstep(0, 90, elbow.rotateZ);\\n\"\n"
         "  + \"bicep.scaleY = 1 + bicep.bulge * $a;\\n\");\n"
         "expression -n \"anim\" -s \"shoulder.rotateY = 3 * frame;\";\n"
         "polyCylinder -n \"armGeo\" -r 4 -h 54 -sx 16 -sy 27 -sz 1 -ax 1 0 0;\n"
         "setAttr \"armGeo.translateX\" 39;\n"
         "currentTime 0;\n");
  assert_true(is_parent(s, "shoulder", "chest"));
  assert_true(is_parent(s, "bicep", "shoulder"));
  assert_true(is_parent(s, "muscle", NULL));
  check_world_pos(s, "wrist", 66, 140, 0);
  check_world_pos(s, "bicep", 26, 143, 0);
  /* elbow's translate is its offset from the shoulder */
  assert_true(fabs(getd(s, "elbow.translateX") - 28) < TOL);
  run_ok(s, "setAttr elbow.rotateZ 45;");
  /* smoothstep(0, 90, 45) = 0.5: 1 + 0.5 * 0.5 */
  assert_true(fabs(getd(s, "bicep.scaleY") - 1.25) < TOL);
  /* frame 30: the shoulder turns 90 degrees about Y: x -> -z. The wrist, 54 along x from the
   * shoulder, is then at (12, 140, -54). */
  run_ok(s, "setAttr elbow.rotateZ 0; currentTime 30;");
  check_world_pos(s, "wrist", 12, 140, -54);
  sinew_data_t *d;
  const sinew_mesh_t *m = mesh_of(s, "armGeoShape.worldMesh[0]", &d);
  assert_int_equal(m->npoints, 16 * 28 + 2);
  check_point(m, m->npoints - 1, 39 + 27, 0, 0);
  sinew_data_unref(d);
  sinew_session_destroy(s);
}

/* ---- out of memory: a command that fails for want of memory changes nothing ------------------------ */

static void oom_case(const char *setup, const char *command) {
  if (test_fault(setup, command) == 0) fail_msg("%s: no failing allocation made it fail", command);
}

static void test_out_of_memory(void **state) {
  (void)state;
  oom_case("select -cl; joint -n a -o 0 0 90; select -cl; polyCube -n box; select a;",
           "joint -n b -p 1 2 3 -rad 2;");
  oom_case("select -cl; joint -n a; joint -n b -p 0 1 0; joint -n c -p 0 2 0;", "joint -e -co -p 5 0 0 -rad 2 b;");
  oom_case("select -cl; joint -n a; joint -n b -p 0 5 0; joint -n c -p 3 9 0; createNode transform -p c;",
           "joint -e -oj xyz -sao yup -ch -zso a;");
  oom_case("select -cl;", "polyCylinder -r 2 -sx 6 -sy 2;");
  oom_case("select -cl;", "polySphere -ch off -sx 4 -sy 3;");
  oom_case("select -cl; joint -n a; joint -n b;",
           "expression -n e -s \"b.rotateZ = a.rotateX * 2 + frame;\\na.translateY = 1;\";");
  oom_case("select -cl; joint -n a; joint -n b; expression -n e -s \"b.rotateZ = a.rotateX;\";",
           "expression -e -o a -uc none -s \"rotateY = b.rotateX;\" e;");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_joint_chain_follows_selection),
      cmocka_unit_test(test_joint_world_position_under_rotated_parent),
      cmocka_unit_test(test_joint_creation_flags),
      cmocka_unit_test(test_joint_edit_and_query),
      cmocka_unit_test(test_joint_units),
      cmocka_unit_test(test_joint_under_selected_transform),
      cmocka_unit_test(test_joint_bad_input),
      cmocka_unit_test(test_joint_orient),
      cmocka_unit_test(test_poly_cylinder_names_and_history),
      cmocka_unit_test(test_poly_cylinder_shape),
      cmocka_unit_test(test_poly_cube_plane_sphere),
      cmocka_unit_test(test_poly_no_history),
      cmocka_unit_test(test_poly_units),
      cmocka_unit_test(test_poly_bad_input),
      cmocka_unit_test(test_expression_create_query_edit),
      cmocka_unit_test(test_expression_drives_joint),
      cmocka_unit_test(test_expression_bad_input),
      cmocka_unit_test(test_rig_script),
      cmocka_unit_test(test_out_of_memory),
  };
  return cmocka_run_group_tests_name("cmd_rig", tests, NULL, NULL);
}
