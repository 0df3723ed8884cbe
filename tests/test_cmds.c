/* tests/test_cmds.c: the scene and attribute commands through sinew_session_run: each command
 * with its Maya flags and results (createNode, rename, delete, parent, select, lockNode, ls and
 * its wildcards, objExists, nodeType, listRelatives, listConnections, requires, fileInfo,
 * currentUnit, currentTime, relationship, setAttr in every form of spec 8.3, getAttr,
 * connectAttr, disconnectAttr, addAttr, deleteAttr, listAttr, file -i with its names, namespaces
 * and prefixes), and bad input for each: the message names the file, line, command, node and
 * plug, and the scene is exactly as it was (compared as the whole .ma text the writer makes of
 * it, plus node and connection counts); a failing import (also at every allocation) undoes itself. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sinew/cmds.h"
#include "sinew/mesh.h"
#include "sinew/sinew.h"
#include "tests/support.h"

#define PI 3.14159265358979323846

/* ---- helpers ------------------------------------------------------------------------------- */

static sinew_session_t *S;

#define ok(text) test_ok(S, text)
#define res(text) test_res(S, text)
#define expect_res(text, want) test_expect_res(S, text, want)
#define num(text) test_num(S, text)
/* A command that must fail on line 3, naming the command and each needle (NULL ends the list),
 * with the scene and the selection as they were (tests/support.c). */
#define bad(...) test_bad(S, __VA_ARGS__)
/* The scene as a test compares it before and after a command (tests/support.c). */
static char *snapshot(void) { return test_snapshot(S); }
static char logtext[1 << 16];
static size_t loglen;
static int nwarnings;

static void logger(void *ud, sinew_log_level_t level, sinew_log_id_t id, const char *msg) {
  (void)ud;
  (void)id;
  if (level >= SINEW_LOG_WARNING) nwarnings++;
  int n = snprintf(logtext + loglen, sizeof logtext - loglen, "%s\n", msg);
  if (n > 0 && (size_t)n < sizeof logtext - loglen) loglen += (size_t)n;
}

/* Files a test writes (in a directory of its own, removed by teardown). */
static char tmpdir[64];
static char tmpfiles[16][128];
static int ntmpfiles;

static int setup(void **state) {
  (void)state;
  sinew_session_desc_t d = {.logger = logger};
  assert_int_equal(sinew_session_create(&d, &S), 0);
  loglen = 0;
  logtext[0] = 0;
  nwarnings = 0;
  tmpdir[0] = 0;
  ntmpfiles = 0;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  sinew_session_destroy(S);
  S = NULL;
  for (int i = 0; i < ntmpfiles; i++) remove(tmpfiles[i]);
  if (tmpdir[0]) rmdir(tmpdir);
  return 0;
}

/* Writes text to a file `name` in the test's directory; the path is returned (static). */
static const char *write_file(const char *name, const char *text) {
  if (!tmpdir[0]) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/sinew-test-cmds-XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
  }
  assert_true(ntmpfiles < 16);
  char *path = tmpfiles[ntmpfiles];
  snprintf(path, sizeof tmpfiles[0], "%s/%s", tmpdir, name);
  bool known = false;
  for (int i = 0; i < ntmpfiles; i++) known |= strcmp(tmpfiles[i], path) == 0;
  if (!known) ntmpfiles++;
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  return known ? path : tmpfiles[ntmpfiles - 1];
}

static sinew_graph_t *G(void) { return sinew_session_graph(S); }

static int run(const char *text) { return sinew_session_run(S, text, strlen(text), "test.mel", NULL); }

/* The result of a command, formatted as MEL prints it with newlines made spaces. */

/* The numbers of a result (getAttr of a compound or matrix). */
static size_t nums(const char *text, double *out, size_t cap) {
  sinew_value_t v = {0};
  int rc = sinew_session_run(S, text, strlen(text), "test.mel", &v);
  if (rc) fail_msg("%s\n  failed: %s", text, sinew_session_errmsg(S));
  size_t n = sinew_value_count(&v);
  for (size_t i = 0; i < n && i < cap; i++) out[i] = sinew_value_double_at(&v, i);
  sinew_value_clear(&v);
  return n;
}

static void assert_near(double a, double b, double tol) {
  if (fabs(a - b) > tol) fail_msg("%.12g != %.12g (tolerance %g)", a, b, tol);
}

static double internal(const char *plug) {
  sinew_plug_t p;
  assert_int_equal(sinew_plug_parse(G(), plug, (sinew_node_t){0, 0}, &p), 0);
  double v = 0;
  assert_int_equal(sinew_get_double(G(), &p, &v), 0);
  return v;
}

static bool exists(const char *name) {
  sinew_node_t n;
  return sinew_node_find(G(), name, &n) == SINEW_OK;
}

/* ---- createNode, rename, delete ------------------------------------------------------------ */

static void test_create_node(void **state) {
  (void)state;
  expect_res("createNode transform -n \"arm\"", "arm");
  expect_res("createNode joint -n \"elbow\" -p \"arm\"", "elbow");
  expect_res("listRelatives -p elbow", "arm");
  expect_res("createNode joint", "joint1");         /* Maya's automatic name */
  expect_res("createNode transform -n arm", "arm1"); /* a taken name gets a number */
  /* -s (shared): an existing node of that name is made current, nothing is created */
  size_t before = sinew_node_count(G());
  expect_res("createNode transform -s -n \"arm\"", "arm");
  assert_int_equal(sinew_node_count(G()), before);
  ok("setAttr \".tx\" 4");
  assert_near(num("getAttr arm.tx"), 4, 0);
  /* the created node is current: .attr lines apply to it */
  ok("createNode transform -n \"hand\" -p \"|arm|elbow\"; setAttr \".ty\" 2;");
  assert_near(num("getAttr hand.ty"), 2, 0);
  expect_res("ls -l hand", "|arm|elbow|hand");
  expect_res("createNode transform -ss -n \"quiet\"", "quiet");
  /* a type sinew does not know: a script fails as Maya does, and nothing is made */
  bad("createNode someTool -n \"t1\"", "createNode: Unknown object type: someTool", NULL);
  bad("createNode nosuchtype", "createNode: Unknown object type: nosuchtype", NULL);
  assert_false(exists("t1"));
  assert_null(sinew_find_node_type(G(), "someTool"));
  /* a file read makes a placeholder that keeps what is set on it, warned once */
  nwarnings = 0;
  char cmd[512];
  snprintf(cmd, sizeof cmd, "file -i \"%s\"",
           write_file("tool.ma", "createNode someTool -n \"t1\";\ncreateNode someTool -n \"t2\";\n"));
  ok(cmd);
  assert_int_equal(nwarnings, 1);
  assert_non_null(strstr(logtext, "someTool is not implemented"));
  expect_res("nodeType t2", "someTool");
  /* once a file has brought the type in, a script may make more of it */
  expect_res("createNode someTool -n \"t3\"", "t3");
  expect_res("nodeType t3", "someTool");
  assert_int_equal(nwarnings, 1);
  ok("setAttr t1.anything -type \"string\" \"kept\"");
  expect_res("getAttr t1.anything", "kept");

  bad("createNode transform -n x -p nowhere", "no node named 'nowhere'", NULL);
  bad("createNode skinCluster -n x -p arm", "skinCluster", "not DAG", NULL);
  bad("createNode dagNode -n x", "abstract", NULL);
  bad("createNode \"bad type!\"", "Unknown object type: bad type!", NULL);
  bad("createNode", "one node type", NULL);
}

static void test_rename_delete(void **state) {
  (void)state;
  ok("createNode transform -n a; createNode transform -n b -p a; createNode transform -n c;");
  expect_res("rename a top", "top");
  assert_false(exists("a"));
  expect_res("listRelatives -p b", "top");
  ok("select -r c; rename \"cc\"");
  assert_true(exists("cc"));
  ok("rename -uid \"1234-ABCD\" cc");
  char *snap = snapshot();
  assert_non_null(strstr(snap, "createNode transform -n \"cc\";\n\trename -uid \"1234-ABCD\";"));
  free(snap);
  /* delete takes the DAG children with it */
  size_t n = sinew_node_count(G());
  ok("delete top");
  assert_int_equal(sinew_node_count(G()), n - 2);
  assert_false(exists("b"));
  /* several at once, or the selection */
  ok("createNode transform -n d; createNode transform -n e; createNode transform -n f;");
  ok("delete d e");
  assert_false(exists("d") || exists("e"));
  ok("select f; delete");
  assert_false(exists("f"));

  /* locked nodes: refused, and a locked descendant keeps its ancestors too */
  ok("createNode transform -n p; createNode transform -n q -p p; createNode transform -n r; lockNode -l 1 q;");
  expect_res("lockNode -q q", "1");
  bad("delete r p", "node p: its descendant q is locked", NULL);
  bad("delete q", "q is locked", NULL);
  bad("rename q q2", "q", "locked", NULL);
  bad("delete r nothing", "no node named 'nothing'", NULL);
  bad("lockNode -l 0 q nothing", "no node named 'nothing'", NULL);
  ok("lockNode -l 0 q; delete p;");
  assert_false(exists("q"));
  bad("rename nothing x", "no node named 'nothing'", NULL);
  ok("select -cl");
  bad("rename r", "usage", NULL);
}

/* delete on a 60,000-deep chain: the locked-node check and the deletion walk it without
 * recursion (it once recursed per level and overflowed the stack). */
static void test_delete_deep_chain(void **state) {
  (void)state;
  size_t before = sinew_node_count(G());
  ok("createNode transform -n t0;"
     "for ($i = 1; $i < 60000; $i++) createNode transform -n (\"t\" + $i) -p (\"t\" + ($i - 1));");
  expect_res("listRelatives -p t59999", "t59998");
  ok("createNode transform -n other;");
  ok("lockNode -l 1 t59999;");
  /* refused, naming the locked node, and nothing goes (counted: a snapshot of this scene is slow) */
  assert_int_not_equal(run("delete t0"), 0);
  assert_non_null(strstr(sinew_session_errmsg(S), "t0: its descendant t59999 is locked"));
  assert_int_equal(sinew_node_count(G()), before + 60001);
  ok("lockNode -l 0 t59999; delete t0;");
  assert_false(exists("t0") || exists("t30000") || exists("t59999"));
  assert_true(exists("other"));
  assert_int_equal(sinew_node_count(G()), before + 1);
}

/* delete a b is all or nothing: with each allocation failing in turn (on a fresh scene each
 * time, so that what an earlier attempt left cached does not hide a later allocation), the
 * scene is exactly as it was, or everything listed went; then both go. */
static const char delete_scene[] =
    "createNode transform -n a; createNode transform -n a2 -p a; createNode transform -n b;"
    "createNode transform -n keep; connectAttr a.tx keep.ty; connectAttr b.ty keep.tz; setAttr a.tx 3;"
    "setAttr b.ty 4;";

static void test_delete_out_of_memory(void **state) {
  (void)state;
  sinew_session_destroy(S);
  S = NULL;
  test_alloc_install();
  long failures = 0;
  for (long n = 1;; n++) {
    sinew_session_desc_t d = {.logger = logger};
    assert_int_equal(sinew_session_create(&d, &S), 0);
    ok(delete_scene);
    char *before = snapshot();
    test_alloc_reset();
    test_alloc_fail_at(n);
    int rc = run("delete a b");
    bool reached = test_alloc_count() >= n;
    test_alloc_fail_at(0);
    if (rc) {
      failures++;
      char *after = snapshot();
      if (strcmp(before, after) != 0)
        fail_msg("allocation %ld failed; the scene changed:\n--- before\n%s--- after\n%s", n, before, after);
      free(after);
    } else {
      assert_false(exists("a") || exists("a2") || exists("b"));
      assert_near(num("getAttr keep.ty"), 3, 0);
      assert_near(num("getAttr keep.tz"), 4, 0);
    }
    free(before);
    sinew_session_destroy(S);
    S = NULL;
    assert_int_equal(test_alloc_live(), 0);
    if (!reached) break;
    if (n > 10000) fail_msg("delete never succeeded");
  }
  assert_true(failures >= 2);
  test_alloc_uninstall();
}

/* ---- parent and listRelatives ---------------------------------------------------------------- */

static void test_parent(void **state) {
  (void)state;
  ok("createNode transform -n g; setAttr g.t -type double3 10 0 0; setAttr g.sx 2;"
     "createNode transform -n k; setAttr k.t -type double3 1 2 3;"
     "createNode transform -n m; setAttr m.t -type double3 1 2 3;");
  /* default (absolute): the world position stays, the local values change */
  expect_res("parent k g", "k");
  double v[16];
  assert_int_equal(nums("getAttr k.t", v, 16), 3);
  assert_near(v[0], -4.5, 1e-12);
  assert_near(v[1], 2, 1e-12);
  assert_near(v[2], 3, 1e-12);
  assert_int_equal(nums("getAttr k.wm", v, 16), 16);
  assert_near(v[12], 1, 1e-12);
  assert_near(v[13], 2, 1e-12);
  assert_near(v[14], 3, 1e-12);
  /* -r: the local values stay */
  expect_res("parent -r m g", "m");
  assert_int_equal(nums("getAttr m.t", v, 16), 3);
  assert_near(v[0], 1, 0);
  assert_int_equal(nums("getAttr m.wm", v, 16), 16);
  assert_near(v[12], 12, 1e-12);
  /* -w: back under the world, keeping the world position */
  expect_res("parent -w m", "m");
  expect_res("listRelatives -p m", "");
  assert_int_equal(nums("getAttr m.t", v, 16), 3);
  assert_near(v[0], 12, 1e-12);
  expect_res("parent -a m g", "m");
  assert_near(num("getAttr m.tx"), 1, 1e-12);
  ok("createNode transform -n leaf -p k; createNode joint -n j1 -p k;");
  expect_res("listRelatives g", "k m");
  expect_res("listRelatives -c k", "leaf j1");
  expect_res("listRelatives -ad g", "m j1 leaf k"); /* Maya: the reverse of a pre-order walk */
  expect_res("listRelatives -ad -type joint g", "j1");
  expect_res("listRelatives -f -p leaf", "|g|k");

  bad("parent g leaf", "g cannot go under leaf", NULL);
  bad("parent g g", "own parent", NULL);
  bad("parent m nothing", "no node named 'nothing'", NULL);
  bad("parent nothing g", "no node named 'nothing'", NULL);
  /* a second child that cannot move: the first does not move either */
  bad("parent m g leaf", "g cannot go under leaf", NULL);
  ok("createNode skinCluster -n sc");
  bad("parent sc g", "sc is not a DAG node", NULL);
  bad("parent m sc", "sc is not a DAG node", NULL);
}

/* ---- setAttr --------------------------------------------------------------------------------- */

static void test_setattr_scalars(void **state) {
  (void)state;
  ok("createNode transform -n t");
  ok("setAttr t.tx 1.5; setAttr \"t.v\" no;");
  assert_near(num("getAttr t.tx"), 1.5, 0);
  expect_res("getAttr t.v", "0");
  ok("setAttr t.v on");
  expect_res("getAttr t.v", "1");
  ok("setAttr t.v off; setAttr t.v yes; setAttr t.v false");
  expect_res("getAttr t.v", "0");
  ok("setAttr t.tz 1.5e-005");
  assert_near(num("getAttr t.tz"), 1.5e-5, 0);
  ok("setAttr t.t -type double3 1 2 3");
  double v[16];
  assert_int_equal(nums("getAttr t.t", v, 16), 3);
  assert_near(v[0] + 10 * v[1] + 100 * v[2], 321, 0);
  ok("setAttr t.s -type float3 2 3 4");
  assert_near(num("getAttr t.sz"), 4, 0);
  ok("setAttr t.t 7 8 9"); /* without -type */
  assert_near(num("getAttr t.ty"), 8, 0);
  ok("setAttr -type double3 t.r 90 0 0"); /* -type before the plug */
  assert_near(internal("t.rx"), PI / 2, 1e-15);
  ok("setAttr t.ro 2");
  expect_res("getAttr -as t.ro", "zxy");

  bad("setAttr t.t -type double3 1 2", "t.translate", "expected 3 values", NULL);
  bad("setAttr t.t -type \"string\" \"x\"", "t.translate is a double3, not string", NULL);
  bad("setAttr t.t -type double2 1 2", "not double2", NULL);
  bad("setAttr t.tx abc", "'abc' is not a number", NULL);
}

static void test_setattr_bare_plug_is_fine(void **state) {
  (void)state;
  ok("createNode transform -n t; setAttr t.tx; setAttr -s 2 t.t;");
}

static void test_setattr_ranges_and_data(void **state) {
  (void)state;
  double v[64];
  /* mesh: vt range of float3, pt single and range, ed and fc (polyFaces) in one script */
  ok("createNode mesh -n m;\n"
     "setAttr -s 4 \".vt[0:3]\" 0 0 0 1 0 0 1 1 0 0 1 0;\n"
     "setAttr -s 4 \".ed[0:3]\" 0 1 0 1 2 0 2 3 0 3 0 0;\n"
     "setAttr -s 1 -ch 4 \".fc[0]\" -type \"polyFaces\" f 4 0 1 2 3 mu 0 4 0 1 2 3;\n"
     "setAttr \".pt[2]\" -type \"float3\" 0 0 1;\n"
     "setAttr -s 2 \".pt[0:1]\" 0.5 0 0 0 0.5 0;\n");
  assert_int_equal(nums("getAttr m.vt[1]", v, 64), 3);
  assert_near(v[0], 1, 0);
  assert_int_equal(nums("getAttr m.pt[2]", v, 64), 3);
  assert_near(v[2], 1, 0);
  assert_near(num("getAttr m.pt[1].py"), 0.5, 0);
  sinew_plug_t out;
  assert_int_equal(sinew_plug_parse(G(), "m.outMesh", (sinew_node_t){0, 0}, &out), 0);
  sinew_data_t *d = NULL;
  assert_int_equal(sinew_get_data(G(), &out, &d), 0);
  assert_non_null(d);
  const sinew_mesh_t *mesh = sinew_mesh_get(d);
  assert_int_equal(mesh->npoints, 4);
  assert_int_equal(mesh->topology->nfaces, 1);
  assert_near(mesh->points[3 * 2 + 2], 1, 0);     /* vt + pt */
  assert_near(mesh->points[3 * 0 + 0], 0.5, 0);
  sinew_data_unref(d);

  /* matrices: one, and a range */
  ok("createNode skinCluster -n sk");
  ok("setAttr sk.pm[0] -type \"matrix\" 1 0 0 0 0 1 0 0 0 0 1 0 5 6 7 1");
  assert_int_equal(nums("getAttr sk.pm[0]", v, 64), 16);
  assert_near(v[12] + v[13] + v[14], 18, 0);
  ok("setAttr \"sk.pm[1:2]\" -type \"matrix\" 1 0 0 0 0 1 0 0 0 0 1 0 1 0 0 1 1 0 0 0 0 1 0 0 0 0 1 0 2 0 0 1");
  assert_int_equal(nums("getAttr sk.pm[2]", v, 64), 16);
  assert_near(v[12], 2, 0);
  expect_res("getAttr -mi sk.pm", "0 1 2");
  /* the xform form (37 values) on a dagPose */
  ok("createNode dagPose -n pose;"
     "setAttr \".xm[0]\" -type \"matrix\" \"xform\" 1 1 1 0 0 0 0 4 5 6 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 0 0 0 1 1 1 1 yes;");
  char *snap = snapshot();
  assert_non_null(strstr(snap, "setAttr \".xm[0]\" -type \"matrix\" \"xform\" 1 1 1 0 0 0 0 4 5 6"));
  free(snap);
  bad("setAttr pose.xm[1] -type \"matrix\" \"xform\" 1 1 1 0 0 0 0 4 5 6", "pose.xformMatrix[1]", "37 values", NULL);
  bad("setAttr pose.xm[1] -type \"matrix\" \"xform\" 1 1 1 0 0 0 9 4 5 6 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 0 0 0 1 1 1 1 yes",
      "rotate order", NULL);
  bad("setAttr sk.pm[3] -type \"matrix\" 1 0 0", "sk.bindPreMatrix[3]", "16 values", NULL);
  bad("setAttr \"sk.pm[3:4]\" -type \"matrix\" 1 0 0 0 0 1 0 0 0 0 1 0 1 0 0 1 1 0 0 0 0 1 0 0 0 0 1 0 2 0 0 oops",
      "'oops' is not a number", NULL);

  /* strings, string arrays, number arrays, component lists */
  ok("createNode transform -n t;"
     "addAttr -ln \"note\" -dt \"string\"; addAttr -ln \"names\" -dt \"stringArray\";"
     "addAttr -ln \"vals\" -dt \"doubleArray\"; addAttr -ln \"ids\" -dt \"Int32Array\";");
  ok("setAttr t.note -type \"string\" \"say \\\"hi\\\"\\n\"");
  expect_res("getAttr t.note", "say \"hi\"");
  ok("setAttr t.note -type \"string\" (\"split \" + \"string\")");
  expect_res("getAttr t.note", "split string");
  ok("setAttr t.names -type \"stringArray\" 3 \"a\" \"b c\" \"d\"");
  expect_res("getAttr t.names", "a b c d");
  ok("setAttr t.vals -type \"doubleArray\" 3 1 2.5 -3e-002");
  assert_int_equal(nums("getAttr t.vals", v, 64), 3);
  assert_near(v[1] + v[2], 2.47, 1e-12);
  ok("setAttr t.ids -type \"Int32Array\" 2 7 9");
  assert_int_equal(nums("getAttr t.ids", v, 64), 2);
  assert_near(v[1], 9, 0);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "file -i \"%s\"",
           write_file("set.ma", "createNode objectSet -n set1;\n"
                                "\tsetAttr \".ic\" -type \"componentList\" 2 \"vtx[*]\" \"f[0:5]\";\n"));
  ok(cmd);
  expect_res("getAttr set1.ic", "vtx[*] f[0:5]");
  snap = snapshot();
  assert_non_null(strstr(snap, "setAttr \".names\" -type \"stringArray\" 3 \"a\" \"b c\" \"d\";"));
  assert_non_null(strstr(snap, "setAttr \".ic\" -type \"componentList\" 2 \"vtx[*]\" \"f[0:5]\";"));
  free(snap);
  bad("setAttr t.note -type \"string\" \"a\" \"b\"", "t.note", "expected 1 string", NULL);
  bad("setAttr t.note -type \"matrix\" 1 2", "t.note is a string, not matrix", NULL);
  bad("setAttr t.tx -type \"stringArray\" 1 \"a\"", "t.translateX is a doubleLinear, not stringArray", NULL);
  bad("setAttr t.t -type \"doubleArray\" 1 2", "not doubleArray", NULL);
}

static void test_setattr_flags(void **state) {
  (void)state;
  ok("createNode transform -n t; createNode skinCluster -n sk;");
  /* -s alone is a size hint: nothing changes, nothing fails */
  char *before = snapshot();
  ok("setAttr -s 2 \"sk.ma\"; select sk; setAttr -size 4 \".wl\";");
  char *after = snapshot();
  assert_string_equal(before, after);
  free(before);
  free(after);
  ok("setAttr -k off t.v; setAttr -cb on t.tx; setAttr -k on -cb off t.ty;");
  expect_res("getAttr -k t.v", "0");
  expect_res("getAttr -cb t.tx", "1");
  expect_res("getAttr -k t.ty", "1");
  expect_res("getAttr -cb t.ty", "0");
  expect_res("getAttr -k t.tz", "1"); /* the attribute's own flag */
  ok("setAttr -l on t.tx 3");          /* value then lock, in one line */
  assert_near(num("getAttr t.tx"), 3, 0);
  expect_res("getAttr -l t.tx", "1");
  expect_res("getAttr -se t.tx", "0");
  expect_res("getAttr -se t.ty", "1");
  ok("setAttr -av t.ty 2; setAttr -ca on t.tz 1; setAttr -c t.sx 2;");
  assert_near(num("getAttr t.ty"), 2, 0);
  ok("createNode mesh -n shape; setAttr -s 3 -ch 12 \".fc\"; setAttr -s 4 \".ed\";");
  /* the writer keeps -k / -cb / -l */
  char *snap = snapshot();
  assert_non_null(strstr(snap, "setAttr -k off \".v\";"));
  assert_non_null(strstr(snap, "setAttr -cb on \".tx\";"));
  assert_non_null(strstr(snap, "setAttr -l on \".tx\";"));
  assert_null(strstr(snap, ".fc\""));
  assert_null(strstr(snap, ".ed\""));
  free(snap);
  bad("setAttr t.tx 5", "t.translateX is locked", NULL);
  bad("setAttr t.t -type double3 5 5 5", "t.translateX is locked", NULL);
  ok("setAttr -l off t.tx; setAttr t.tx 5;");
  assert_near(num("getAttr t.tx"), 5, 0);
}

/* The three weightList forms of spec 8.3, and a range on an inner index. */
static void test_setattr_weights(void **state) {
  (void)state;
  double v[16];
  ok("createNode skinCluster -n sk;\n"
     "setAttr -s 4 \".wl\";\n"
     "setAttr \".wl[0:2].w\"\n"
     "\t\t2 0 0.9985 1 0.0015\n"
     "\t\t1 0 1\n"
     "\t\t3 0 0.25 2 0.5 5 0.25;\n"
     "setAttr -s 2 \".wl[3].w[11:12]\" 1 0.9979;\n"
     "setAttr -s 2 \".wl[16].w\";\n"
     "setAttr \".wl[16].w[2]\" 0.99;\n"
     "setAttr \".wl[16].w[4]\" 0.01;\n");
  expect_res("getAttr -mi sk.wl", "0 1 2 3 16");
  expect_res("getAttr -mi sk.wl[0].w", "0 1");
  assert_int_equal(nums("getAttr sk.wl[0].w", v, 16), 2);
  assert_near(v[0], 0.9985, 0);
  assert_near(v[1], 0.0015, 0);
  expect_res("getAttr -mi sk.wl[2].w", "0 2 5");
  assert_near(num("getAttr sk.wl[2].w[5]"), 0.25, 0);
  expect_res("getAttr -mi sk.wl[3].w", "11 12");
  assert_near(num("getAttr sk.wl[3].w[12]"), 0.9979, 0);
  assert_near(num("getAttr sk.wl[16].w[4]"), 0.01, 0);
  expect_res("getAttr -s sk.wl", "5");
  /* one inner index over a range of outer elements */
  ok("setAttr \"sk.wl[0:2].w[7]\" 0.1 0.2 0.3");
  assert_near(num("getAttr sk.wl[2].w[7]"), 0.3, 0);
  /* the writer uses the compact form */
  char *snap = snapshot();
  assert_non_null(strstr(snap, "setAttr \".wl[0:3].w\"\n\t\t3 0 0.9985 1 0.0015 7 0.1\n\t\t2 0 1 7 0.2\n"));
  free(snap);

  bad("setAttr \"sk.wl[20:21].w\" 1 0 1 1 0", "element 21", "bad count", NULL);
  bad("setAttr \"sk.wl[20:21].w\" 1 0 1 1 0 1 9", "left over", NULL);
  bad("setAttr \"sk.wl[20:21].w\" 1 0 1 1 -2 1", "bad index -2", NULL);
  bad("setAttr \"sk.wl[20:21].w\" 1 0 1 1 0 x", "'x' is not a number", NULL);
  bad("setAttr \"sk.wl[0:2000000000].w\" 1 0 1", "records expected", NULL);
  ok("createNode dagPose -n pose");
  bad("setAttr \"pose.xm[0:2000000000]\" -type \"matrix\" 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1", "pose.xformMatrix",
      "at least one value per element", NULL);
  bad("setAttr \"pose.xm[0:2]\" -type \"matrix\" 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1", "pose.xformMatrix[1]",
      "37 values", NULL);
  bad("setAttr \"sk.pm[0:2000000000]\" -type \"matrix\" 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1", "at least one value", NULL);
  bad("setAttr -s 3 \"sk.wl[0:2000000000].w[0]\" 1 1 1", "at least one value per element", NULL);
  bad("setAttr -s 2 \"sk.wl[3].w[11:12]\" 1", "sk.weightList[3].weights[11]", "at least one value per element", NULL);
  bad("setAttr -s 2 \"sk.wl[3].w[11:12]\" 1 2 3", "sk.weightList[3].weights[11]", "expected 2 values", NULL);
  ok("setAttr -l on sk.wl[1].w");
  bad("setAttr \"sk.wl[0:1].w\" 1 0 1 1 0 1", "sk.weightList[1].weights is locked", NULL);
}

/* ---- getAttr ---------------------------------------------------------------------------------- */

static void test_getattr(void **state) {
  (void)state;
  ok("createNode transform -n t; createNode skinCluster -n sk; setAttr \"sk.ma[3]\" -type matrix 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1;");
  expect_res("getAttr -type t.t", "double3");
  expect_res("getAttr -type t.tx", "doubleLinear");
  expect_res("getAttr -type t.rx", "doubleAngle");
  expect_res("getAttr -type t.v", "bool");
  expect_res("getAttr -type t.wm[0]", "matrix");
  expect_res("getAttr -s sk.ma", "1");
  expect_res("getAttr -s t.tx", "1");
  expect_res("getAttr -mi sk.ma", "3");
  expect_res("getAttr t.v", "1");
  double v[16];
  /* an output array not computed yet reads its first element, as Maya */
  assert_int_equal(nums("getAttr t.wm", v, 16), 16);
  assert_near(v[0] + v[5] + v[10] + v[15], 4, 0);
  /* -t: the value at another time, leaving the time as it was */
  ok("currentTime 5");
  ok("createNode transform -n u; connectAttr time1.o u.tx;");
  expect_res("getAttr u.tx", "5");
  assert_near(num("getAttr -t 12 u.tx"), 12, 1e-9);
  assert_near(num("currentTime -q"), 5, 0);
  bad("getAttr t.nothing", "t", "nothing", NULL);
  bad("getAttr nobody.tx", "no node named 'nobody'", NULL);
  bad("getAttr t.tx t.ty", "one attribute", NULL);
}

/* ---- units and time ------------------------------------------------------------------------------ */

static void test_units(void **state) {
  (void)state;
  ok("createNode transform -n t");
  expect_res("currentUnit -q -l", "cm");
  expect_res("currentUnit -q -a", "deg");
  expect_res("currentUnit -q -t", "film");
  ok("setAttr t.rx 90");
  assert_near(internal("t.rx"), PI / 2, 1e-15);
  ok("currentUnit -l m -a rad");
  expect_res("currentUnit -q -l -f", "meter");
  expect_res("currentUnit -q -a -f", "radian");
  ok("setAttr t.tx 1.5; setAttr t.ry 1;");
  assert_near(internal("t.tx"), 150, 1e-12);
  assert_near(internal("t.ry"), 1, 0);
  assert_near(num("getAttr t.tx"), 1.5, 1e-15);
  assert_near(num("getAttr t.rx"), PI / 2, 1e-15);
  ok("setAttr t.t -type double3 1 2 3");
  assert_near(internal("t.tz"), 300, 1e-12);
  ok("currentUnit -l mm");
  assert_near(num("getAttr t.tz"), 3000, 1e-9);
  ok("currentUnit -l cm -a deg");
  /* time: frames in the scene's time unit */
  ok("currentTime 12");
  sinew_plug_t o;
  assert_int_equal(sinew_plug_parse(G(), "time1.o", (sinew_node_t){0, 0}, &o), 0);
  double sec = 0;
  assert_int_equal(sinew_get_double(G(), &o, &sec), 0);
  assert_near(sec, 0.5, 1e-15);
  expect_res("getAttr time1.o", "12");
  ok("currentUnit -t ntsc");
  expect_res("currentTime -q", "15");
  ok("currentTime 30");
  assert_int_equal(sinew_get_double(G(), &o, &sec), 0);
  assert_near(sec, 1, 1e-15);
  ok("select -ne :time1; setAttr \".o\" 45;");
  assert_near(num("currentTime -q"), 45, 1e-12);
  /* every rate Maya writes is a time unit, the NTSC ones included */
  ok("currentUnit -t 23.976fps");
  expect_res("currentUnit -q -t", "23.976fps");
  ok("currentUnit -t ntsc");
  /* a unit sinew does not know for time warns and keeps the old one */
  nwarnings = 0;
  ok("currentUnit -t 33fps");
  assert_int_equal(nwarnings, 1);
  expect_res("currentUnit -q -t", "ntsc");
  bad("currentUnit -l parsec", "-linear: unknown unit 'parsec'", NULL);
  bad("currentUnit -a grad", "unknown unit 'grad'", NULL);
  bad("currentTime soon", "'soon' is not a frame number", NULL);
}

/* ---- connectAttr, disconnectAttr, listConnections ------------------------------------------------ */

static void test_connect(void **state) {
  (void)state;
  ok("createNode transform -n a; createNode transform -n b; createNode transform -n c;"
     "createNode skinCluster -n sk; addAttr -ln \"amount\" -at double a;");
  expect_res("connectAttr a.tx b.tx", "Connected a.translateX to b.translateX.");
  ok("setAttr a.tx 3");
  assert_near(num("getAttr b.tx"), 3, 0);
  bad("connectAttr c.tx b.tx", "b.translateX", "already connected", NULL);
  expect_res("connectAttr -f c.tx b.tx", "Connected c.translateX to b.translateX.");
  ok("setAttr c.tx 9");
  assert_near(num("getAttr b.tx"), 9, 0);
  /* -na: the next free element */
  expect_res("connectAttr -na a.wm[0] sk.ma", "Connected a.worldMatrix[0] to sk.matrix[0].");
  expect_res("connectAttr -na b.wm[0] sk.ma", "Connected b.worldMatrix[0] to sk.matrix[1].");
  expect_res("getAttr -mi sk.ma", "0 1");
  /* -l on locks the destination */
  ok("connectAttr -l on a.ty c.ty");
  expect_res("getAttr -l c.ty", "1");
  /* angle -> plain number: a unitConversion node between them, as Maya makes */
  size_t n = sinew_node_count(G());
  ok("connectAttr a.rx a.amount");
  assert_int_equal(sinew_node_count(G()), n + 1);
  ok("setAttr a.rx 90");
  assert_near(num("getAttr a.amount"), 90, 1e-9);
  expect_res("listConnections -s 1 -d 0 a.amount", "unitConversion1");
  expect_res("listConnections -t unitConversion a", "unitConversion1 unitConversion1");
  /* disconnectAttr names the ends the user connected; the conversion node goes too */
  ok("disconnectAttr a.rx a.amount");
  assert_int_equal(sinew_node_count(G()), n);
  assert_near(num("getAttr a.amount"), 90, 1e-9); /* keeps its last value */
  ok("disconnectAttr c.tx b.tx");
  expect_res("listConnections b", "sk");
  expect_res("listConnections a", "sk c"); /* in the order the connections were made */
  expect_res("listConnections -d 0 c", "a");
  expect_res("listConnections -s 0 a", "sk c");
  expect_res("listConnections -p 1 a.ty", "c.translateY");
  expect_res("listConnections -c 1 -p 1 sk", "sk.matrix[0] a.worldMatrix[0] sk.matrix[1] b.worldMatrix[0]");

  bad("connectAttr nobody.tx b.tx", "no node named 'nobody'", NULL);
  bad("connectAttr a.tx nobody.tx", "no node named 'nobody'", NULL);
  bad("connectAttr a.nothing b.ty", "a", "nothing", NULL);
  bad("connectAttr a.tx b.nothing", "b", "nothing", NULL);
  bad("connectAttr a.wm[0] b.tx", "a.worldMatrix[0]", "b.translateX", NULL);
  bad("connectAttr b.tz c.ty", "c.translateY", NULL);
  /* a cycle: b.tz -> a.tz while a.tz -> b.tz */
  ok("connectAttr a.tz b.tz");
  bad("connectAttr b.tz a.tz", "a.translateZ", "cycle", NULL);
  bad("connectAttr \"a.t[0:1]\" b.t", "range", NULL);
  /* a placeholder gets the attribute a connection needs; a connection that fails takes it back */
  char cmd[512];
  snprintf(cmd, sizeof cmd, "file -i \"%s\"", write_file("rig.ma", "createNode someRig -n rig;\n"));
  ok(cmd);
  sinew_node_t rig;
  assert_int_equal(sinew_node_find(G(), "rig", &rig), 0);
  bad("connectAttr rig.drive c.ty", "c.translateY", NULL);
  assert_int_equal(sinew_node_attr(G(), rig, "drive"), UINT32_MAX);
  expect_res("connectAttr a.tx rig.follow", "Connected a.translateX to rig.follow.");
  assert_true(sinew_node_attr(G(), rig, "follow") != UINT32_MAX);
  expect_res("listConnections -p 1 rig", "a.translateX");
  bad("disconnectAttr a.tx b.tx", "a.translateX", "b.translateX", NULL);
  bad("disconnectAttr a.tx", "usage", NULL);
  bad("connectAttr a.tx", "usage", NULL);
}

/* ---- addAttr, deleteAttr, listAttr ------------------------------------------------------------------ */

static void test_add_attr(void **state) {
  (void)state;
  ok("createNode transform -n t");
  ok("addAttr -ln \"weight\" -sn \"wt\" -at double -dv 0.5 -min 0 -max 1 -k true t");
  assert_near(num("getAttr t.wt"), 0.5, 0);
  expect_res("getAttr -k t.weight", "1");
  ok("setAttr t.wt 0.75");
  bad("setAttr t.wt 2", "t.weight", NULL);
  ok("addAttr -ln \"twist\" -at doubleAngle t; setAttr t.twist 45;");
  assert_near(internal("t.twist"), PI / 4, 1e-15);
  ok("addAttr -ln \"mode\" -at \"enum\" -en \"off:on:auto\" t; setAttr t.mode 2;");
  expect_res("getAttr -as t.mode", "auto");
  ok("addAttr -ln \"flag\" -at bool t; addAttr -ln \"count\" -at long -h true t; addAttr -ln \"label\" -dt \"string\" t;");
  ok("addAttr -ln \"targets\" -at message -m t");
  ok("connectAttr t.msg t.targets[2]");
  /* compounds: -nc, then the children naming their parent */
  ok("select t; addAttr -ln \"offset\" -at double3; addAttr -ln \"offsetX\" -at double -p offset;"
     "addAttr -ln \"offsetY\" -at double -p offset; addAttr -ln \"offsetZ\" -at double -p offset;");
  ok("setAttr t.offset -type double3 1 2 3");
  assert_near(num("getAttr t.offsetZ"), 3, 0);
  ok("addAttr -ln \"pair\" -at compound -nc 2 t; addAttr -ln \"left\" -sn \"lf\" -at float -p pair t;"
     "addAttr -ln \"right\" -at doubleLinear -p pair t;");
  ok("setAttr t.pair 1 2");
  double v[4];
  assert_int_equal(nums("getAttr t.pair", v, 4), 2);
  assert_near(v[1], 2, 0);
  expect_res("addAttr -q -ex -ln offsetY t", "1");
  expect_res("addAttr -q -ex -ln nothing t", "0");
  expect_res("listAttr -ud t",
             "weight twist mode flag count label targets offset offsetX offsetY offsetZ pair left right");
  /* the writer writes them back with their flags */
  char *snap = snapshot();
  assert_non_null(strstr(snap, "addAttr -ci true -sn \"wt\" -ln \"weight\" -k true -dv 0.5 -min 0 -max 1 -at \"double\";"));
  assert_non_null(strstr(snap, "addAttr -ci true -ln \"offset\" -nc 3 -at \"compound\";"));
  assert_non_null(strstr(snap, "addAttr -ci true -sn \"lf\" -ln \"left\" -p \"pair\" -at \"float\";"));
  assert_non_null(strstr(snap, "addAttr -ci true -ln \"mode\" -en \"off:on:auto\" -at \"enum\";") ||
                  strstr(snap, "-ln \"mode\""));
  free(snap);
  ok("deleteAttr t.label");
  expect_res("addAttr -q -ex -ln label t", "0");
  ok("deleteAttr -at flag t");
  expect_res("listAttr -ud t", "weight twist mode count targets offset offsetX offsetY offsetZ pair left right");
  /* -st: Maya's wildcards on the long or the short name, several -st for any of them */
  expect_res("listAttr -ud -st \"offset*\" t", "offset offsetX offsetY offsetZ");
  expect_res("listAttr -st \"translate?\" -st \"sx\" t", "translateX translateY translateZ scaleX");
  expect_res("listAttr -ud -st \"nothing*\" t", "");

  bad("addAttr -ln \"weight\" -at double t", "t already has an attribute named weight", NULL);
  bad("addAttr -ln \"x\" -at \"quaternion\" t", "unknown type 'quaternion'", NULL);
  bad("addAttr -ln \"x\" -at double nobody", "no node named 'nobody'", NULL);
  bad("addAttr -at double t", "give a name", NULL);
  bad("addAttr -ln \"kid\" -at double -p offset t", "kid", "offset", NULL);
  bad("addAttr -ln \"c2\" -at compound t", "c2", "-numberOfChildren", NULL);
  bad("deleteAttr t.nothing", "t", "nothing", NULL);
  bad("deleteAttr t.tx", "t", NULL);
  bad("listAttr nobody", "no node named 'nobody'", NULL);
}

/* ---- queries and selection ------------------------------------------------------------------------ */

static void test_queries(void **state) {
  (void)state;
  ok("createNode transform -n root; createNode joint -n j1 -p root; createNode joint -n j2 -p j1;"
     "createNode mesh -n shape -p root; createNode skinCluster -n sk;");
  expect_res("ls -type joint", "j1 j2");
  expect_res("ls -type transform", "root j1 j2");
  expect_res("ls -et transform", "root");
  expect_res("ls -type joint -type mesh", "j1 j2 shape");
  expect_res("ls -type skinCluster", "sk");
  expect_res("ls -dag -l j*", "|root|j1 |root|j1|j2");
  expect_res("ls -st sk", "sk skinCluster");
  expect_res("ls -s", "shape");
  expect_res("ls \"j?\"", "j1 j2");
  expect_res("ls -type nothing", "");
  expect_res("objExists j2", "1");
  expect_res("objExists j3", "0");
  expect_res("objExists j2.rx", "1");
  expect_res("objExists j2.nothing", "0");
  expect_res("objExists \"|root|j1\"", "1");
  expect_res("nodeType j2", "joint");
  expect_res("nodeType j2.tx", "joint");
  expect_res("nodeType -i j2", "containerBase entity dagNode transform joint");
  expect_res("nodeType time1", "time");
  /* selection */
  ok("select j1 j2");
  expect_res("ls -sl", "j1 j2");
  ok("select -d j1");
  expect_res("ls -sl", "j2");
  ok("select -add sk");
  expect_res("ls -sl", "j2 sk");
  ok("select -cl");
  expect_res("ls -sl", "");
  /* -ne makes a node current without selecting it */
  ok("select -ne :time1; setAttr \".o\" 2;");
  expect_res("ls -sl", "time1");
  assert_near(num("currentTime -q"), 2, 1e-12);
  bad("nodeType nobody", "no node named 'nobody'", NULL);
  bad("select nobody", "no node named 'nobody'", NULL);
  bad("listRelatives nobody", "no node named 'nobody'", NULL);
  bad("listConnections nobody", "no node named 'nobody'", NULL);
  bad("listConnections j1.nothing", "j1", "nothing", NULL);
  bad("objExists", "give one name", NULL);
}

/* ls patterns as Maya reads them: '*' and '?' stay within one namespace level and one DAG level. */
static void test_ls_wildcards(void **state) {
  (void)state;
  ok("createNode transform -n \"model_GRP\"; createNode transform -n \"Bruce01_:model_GRP\";"
     "createNode transform -n \"Bruce01_:Bruce01_:model_GRP\"; createNode transform -n \"Bruce01_:rig_GRP\";"
     "createNode transform -n \"Bruce01_:arm\" -p \"Bruce01_:rig_GRP\"; createNode transform -n \"hand\" -p \"Bruce01_:arm\";");
  expect_res("ls \"Bruce01_:*GRP\"", "Bruce01_:model_GRP Bruce01_:rig_GRP");
  expect_res("ls \"*GRP\"", "model_GRP");
  expect_res("ls \":*GRP\"", "model_GRP");
  expect_res("ls \"*:*GRP\"", "Bruce01_:model_GRP Bruce01_:rig_GRP");
  expect_res("ls \"*:*:*GRP\"", "Bruce01_:Bruce01_:model_GRP");
  expect_res("ls \"Bruce01_:*\"", "Bruce01_:model_GRP Bruce01_:rig_GRP Bruce01_:arm");
  expect_res("ls \"Bruce01?model_GRP\"", "");
  expect_res("ls \"Bruce01_:?odel_GRP\"", "Bruce01_:model_GRP");
  /* -r: a pattern without a namespace matches in every namespace */
  expect_res("ls -r 1 \"model_GRP\"", "model_GRP Bruce01_:model_GRP Bruce01_:Bruce01_:model_GRP");
  /* DAG paths, level by level */
  expect_res("ls \"|Bruce01_:rig_GRP|*\"", "");
  expect_res("ls \"|Bruce01_:rig_GRP|*:*\"", "Bruce01_:arm");
  expect_res("ls \"*:arm|*\"", "hand");
  expect_res("ls \"|*:rig_GRP|*:arm|hand\"", "hand");
  expect_res("ls \"|*:arm|hand\"", "");
  expect_res("ls \"*|hand\"", "");
  expect_res("ls \"*:*|hand\"", "hand");
  expect_res("ls \"|*\"", "model_GRP");
}

/* Wildcards in linear time: a pattern with many '*' against long names that almost match
 * (it once backtracked on every '*' and never finished); the level rules still hold. */
static void test_ls_wildcards_linear(void **state) {
  (void)state;
  char cmd[512], name[64];
  memset(name, 'a', 60);
  name[60] = 0;
  snprintf(cmd, sizeof cmd, "createNode transform -n \"%s\";", name);
  ok(cmd);
  name[59] = 'c';
  snprintf(cmd, sizeof cmd, "createNode transform -n \"%s\";", name);
  ok(cmd);
  snprintf(cmd, sizeof cmd, "createNode transform -n \"x:%s\";", name);
  ok(cmd);
  snprintf(cmd, sizeof cmd, "ls \"*a*a*a*a*a*a*a*a*a*a*a*a*c\"");
  expect_res(cmd, name);
  char want[160];
  snprintf(want, sizeof want, "%s x:%s", name, name);
  expect_res("ls -r 1 \"*a*a*a*a*a*a*a*a*a*a*a*a*c\"", want);
  ok("createNode transform -n abcbd; createNode transform -n \"ab:cd\"; createNode transform -n abd -p abcbd;");
  expect_res("ls \"a*b*d\"", "abcbd abd");
  expect_res("ls \"a*?d\"", "abcbd abd");
  expect_res("ls \"a*bd\"", "abcbd abd");
  expect_res("ls \"a*c*d\"", "abcbd");
  expect_res("ls \"*:*d\"", "ab:cd");
  expect_res("ls \"a*d*\"", "abcbd abd");
  expect_res("ls \"ab**?\"", "abcbd abd");
  expect_res("ls \"ab?d\"", "");
  expect_res("ls \"*|abd\"", "abd");
  expect_res("ls \"a*|a*\"", "abd");
  expect_res("ls \"|a*d|*\"", "abd");
}

/* ---- header commands ------------------------------------------------------------------------------ */

static void test_header_commands(void **state) {
  (void)state;
  ok("requires maya \"2020\"; requires \"mtoa\" \"4.0.0\"; requires -nodeType \"aiStandardSurface\" \"mtoa\" \"4.0.3\";");
  ok("requires \"mtoa\" \"4.0.0\""); /* said twice, kept once */
  ok("fileInfo \"application\" \"maya\"; fileInfo \"product\" \"Maya 2020\"; fileInfo \"application\" \"sinew\";");
  expect_res("fileInfo -q \"application\"", "sinew");
  expect_res("fileInfo -q", "application sinew product Maya 2020");
  ok("fileInfo -rm \"product\"");
  expect_res("fileInfo -q", "application sinew");
  ok("relationship \"link\" \":lightLinker1\" \":initialShadingGroup.message\" \":defaultLightSet.message\";");
  char *snap = snapshot();
  const char *req = strstr(snap, "requires \"mtoa\" \"4.0.0\";");
  assert_non_null(req);
  assert_null(strstr(req + 1, "requires \"mtoa\" \"4.0.0\";"));
  assert_non_null(strstr(snap, "requires -nt \"aiStandardSurface\" \"mtoa\" \"4.0.3\";"));
  assert_non_null(strstr(snap, "fileInfo \"application\" \"sinew\";"));
  assert_non_null(strstr(snap, "relationship \"link\" \":lightLinker1\" \":initialShadingGroup.message\" \":defaultLightSet.message\";"));
  /* requires maya is the writer's own line, written once */
  const char *maya = strstr(snap, "requires maya");
  assert_non_null(maya);
  assert_null(strstr(maya + 1, "requires maya"));
  free(snap);
  expect_res("file -q -sn", "");
  bad("fileInfo \"only\"", "usage", NULL);
  bad("requires", "usage", NULL);
  /* commands sinew does not know fail in scripts (a .ma file skips them with a warning) */
  bad("sceneConfigurationThing -x 1", "unknown command", NULL);
}

/* ---- file -------------------------------------------------------------------------------------------- */

static void test_file_command(void **state) {
  (void)state;
  char dir[] = "/tmp/sinew-test-cmds-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[256], cmd[512];
  snprintf(path, sizeof path, "%s/scene.ma", dir);
  ok("createNode transform -n keep; setAttr keep.tx 4;");
  snprintf(cmd, sizeof cmd, "file -rename \"%s\"; file -save;", path);
  ok(cmd);
  expect_res("file -q -sn -shn", "scene.ma");
  ok("file -new");
  assert_false(exists("keep"));
  assert_true(exists("time1"));
  snprintf(cmd, sizeof cmd, "file -open \"%s\"", path);
  ok(cmd);
  assert_near(num("getAttr keep.tx"), 4, 0);
  snprintf(cmd, sizeof cmd, "file -import \"%s\"", path);
  ok(cmd);
  expect_res("ls -type transform", "keep keep1");
  ok("file -new");
  bad("file -save", "no file name", NULL);
  bad("file -save -type \"mayaBinary\" \"/tmp/x.mb\"", "only mayaAscii", NULL);
  snprintf(cmd, sizeof cmd, "file -open \"%s/missing.ma\"", dir);
  bad(cmd, "missing.ma", NULL);
  remove(path);
  rmdir(dir);
}

/* ---- file -i: the imported file's names mean the nodes it made ------------------------------------- */

static const char *imp_ma =
    "createNode transform -n \"a\";\n"
    "\tsetAttr \".tx\" 5;\n"
    "createNode transform -n \"b\";\n"
    "createNode transform -n \"c\" -p \"a\";\n"
    "\tsetAttr \".ty\" 3;\n"
    "setAttr \"|a|c.tx\" 9;\n"
    "connectAttr \"a.tx\" \"b.tx\";\n"
    "parent -r \"b\" \"a\";\n"
    "select -ne a;\n"
    "\tsetAttr \".tz\" 2;\n"
    "select -r \"a|b\";\n"
    "relationship \"link\" \":lightLinker1\" \"a.message\" \":initialShadingGroup.message\";\n";

static void import_file(const char *flags, const char *path) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "file -i %s \"%s\"", flags, path);
  ok(cmd);
}

static void test_import_names(void **state) {
  (void)state;
  const char *imp = write_file("imp.ma", imp_ma);
  ok("createNode transform -n a; setAttr a.tx 7; createNode transform -n keep; connectAttr keep.ty a.ty;");
  import_file("", imp);
  /* the file's a was renamed a1; everything the file said about "a" went to a1 */
  expect_res("ls -type transform", "a keep a1 b c");
  expect_res("listConnections -s 0 -p 1 a1.tx", "b.translateX");
  expect_res("listRelatives -c a1", "c b");
  expect_res("ls -l c", "|a1|c");
  assert_near(num("getAttr a1.tx"), 5, 0);
  assert_near(num("getAttr a1.tz"), 2, 0);
  assert_near(num("getAttr c.tx"), 9, 0);
  assert_near(num("getAttr c.ty"), 3, 0);
  expect_res("ls -sl", "b");
  /* the user's a is untouched: value, connections, children */
  assert_near(num("getAttr a.tx"), 7, 0);
  assert_near(num("getAttr a.tz"), 0, 0);
  expect_res("listConnections -p 1 a", "keep.translateY");
  expect_res("listRelatives -c a", "");
  /* the relationship line names the node as it is now */
  char *snap = snapshot();
  assert_non_null(strstr(snap, "relationship \"link\" \":lightLinker1\" \"a1.message\" \":initialShadingGroup.message\";"));
  free(snap);

  /* the same file again: a new set of nodes, wired among themselves */
  import_file("", imp);
  /* (b and c are DAG children: their names need only be unique among their siblings) */
  expect_res("ls -type transform", "a keep a1 a1|b a1|c a2 a2|b a2|c");
  expect_res("listConnections -s 0 -p 1 a2.tx", "a2|b.translateX");
  expect_res("listConnections -s 0 -p 1 a1.tx", "a1|b.translateX");
  expect_res("ls -sl", "a2|b");
  assert_near(num("getAttr |a2|c.tx"), 9, 0);
  assert_near(num("getAttr a.tx"), 7, 0);
  expect_res("listConnections -p 1 a", "keep.translateY");
  /* after the import, names mean the scene's nodes again */
  expect_res("nodeType a", "transform");
  ok("setAttr a.tx 8");
  assert_near(num("getAttr a1.tx"), 5, 0);
}

/* getAttr inside an imported file reads the file's node, also a placeholder whose value is kept
 * as text while the scene's node of that name has a real attribute of the same name. */
static void test_import_get_attr(void **state) {
  (void)state;
  ok("createNode transform -n a; setAttr a.tx 7;");
  const char *imp = write_file("get.ma",
                               "createNode someImportedType -n \"a\";\n"
                               "\tsetAttr \".tx\" 3;\n"
                               "createNode transform -n \"b\";\n"
                               "setAttr \"b.ty\" (`getAttr \"a.tx\"` + 1);\n");
  import_file("", imp);
  assert_near(num("getAttr b.ty"), 4, 0);
  assert_near(num("getAttr a.tx"), 7, 0);
  /* a kept plain value reads back as a number, a kept data array as its items */
  assert_near(num("getAttr a1.tx"), 3, 0);
  ok("setAttr a1.dv -type \"doubleArray\" 3 1.5 2.5 3.5;");
  expect_res("getAttr a1.dv", "1.5 2.5 3.5");
}

static void test_import_rename_and_lookups(void **state) {
  (void)state;
  ok("createNode transform -n a; createNode transform -n z;");
  const char *imp = write_file("ren.ma",
                               "createNode transform -n \"a\";\n"
                               "createNode transform -n \"z\";\n"
                               "rename \"a\" \"z2\";\n"
                               "setAttr \"z2.tx\" 4;\n"
                               "rename \"z\" \"q\";\n"
                               "setAttr \"q.ty\" 6;\n"
                               "if (`objExists \"z2.tx\"`) setAttr \"q.tz\" 1;\n"
                               "if (`nodeType \"q\"` == \"transform\") setAttr \"q.sx\" 2;\n"
                               "createNode transform -n \"kid\" -p \"q\";\n"
                               "delete \"q\";\n"
                               "setAttr \"q.tx\" 3;\n");
  import_file("", imp);
  /* renames inside the file follow the file's node; after its delete, "q" is not the scene's */
  assert_near(num("getAttr z2.tx"), 4, 0);
  expect_res("ls -type transform", "a z z2");
  sinew_session_stats_t st;
  sinew_session_stats(S, &st);
  assert_int_equal(st.failed_commands, 1); /* setAttr q.tx: the file's q is gone */
  assert_near(num("getAttr a.tx"), 0, 0);
  assert_near(num("getAttr z.ty"), 0, 0);
}

static void test_import_namespace_and_prefix(void **state) {
  (void)state;
  const char *imp = write_file("imp.ma", imp_ma);
  ok("createNode transform -n a; setAttr a.tx 7;");
  import_file("-ns \"imp\"", imp);
  expect_res("ls \"imp:*\"", "imp:a imp:b imp:c");
  expect_res("listConnections -s 0 -p 1 imp:a.tx", "imp:b.translateX");
  expect_res("ls -l imp:c", "|imp:a|imp:c");
  expect_res("ls -sl", "imp:b");
  /* the namespace is taken: the next import gets imp1, as Maya */
  import_file("-namespace \"imp\"", imp);
  expect_res("ls \"imp1:*\"", "imp1:a imp1:b imp1:c");
  expect_res("listConnections -s 0 -p 1 imp1:a.tx", "imp1:b.translateX");
  /* merged into the existing namespace: clashing names get numbers there */
  import_file("-ns \"imp\" -mnc 1", imp);
  expect_res("ls \"imp:*\"", "imp:a imp:a|imp:b imp:a|imp:c imp:a1 imp:a1|imp:b imp:a1|imp:c");
  expect_res("listConnections -s 0 -p 1 imp:a1.tx", "imp:a1|imp:b.translateX");
  expect_res("listConnections -s 0 -p 1 imp:a.tx", "imp:a|imp:b.translateX");
  assert_near(num("getAttr a.tx"), 7, 0);
  expect_res("listConnections a", "");

  /* -rpr: a clashing name gets the prefix; -ra: every name */
  ok("file -new; createNode transform -n a;");
  import_file("-rpr \"pfx\"", imp);
  expect_res("ls -type transform", "a pfx_a b c");
  expect_res("listConnections -s 0 -p 1 pfx_a.tx", "b.translateX");
  import_file("-rpr \"pfx\" -ra 1", imp);
  expect_res("ls -type transform", "a pfx_a b c pfx_a1 pfx_b pfx_c");
  expect_res("listConnections -s 0 -p 1 pfx_a1.tx", "pfx_b.translateX");
  char cmd[600];
  snprintf(cmd, sizeof cmd, "file -i -ra 1 \"%s\"", imp);
  bad(cmd, "-renameAll needs -renamingPrefix", NULL);
  snprintf(cmd, sizeof cmd, "file -i -ns x -rpr y \"%s\"", imp);
  bad(cmd, "not both", NULL);
  snprintf(cmd, sizeof cmd, "file -i -ns \"1x\" \"%s\"", imp);
  bad(cmd, "not a namespace name", NULL);
}

static void test_import_nested(void **state) {
  (void)state;
  const char *inner = write_file("inner.ma",
                                 "createNode transform -n \"a\";\n"
                                 "createNode transform -n \"b\";\n"
                                 "connectAttr \"a.tx\" \"b.tx\";\n");
  char outer[1024];
  snprintf(outer, sizeof outer,
           "createNode transform -n \"a\";\n"
           "createNode transform -n \"c\";\n"
           "file -i \"%s\";\n"
           "connectAttr \"a.ty\" \"c.ty\";\n"
           "setAttr \"a.sx\" 3;\n", inner);
  ok("createNode transform -n a; createNode transform -n b;");
  import_file("", write_file("outer.ma", outer));
  /* outer's a is a1, inner's a is a2 and its b is b1: each file's names meant its own nodes */
  expect_res("listConnections -s 0 -p 1 a2.tx", "b1.translateX");
  expect_res("listConnections -s 0 -p 1 a1.ty", "c.translateY");
  assert_near(num("getAttr a1.sx"), 3, 0);
  assert_near(num("getAttr a.sx"), 1, 0);
  assert_near(num("getAttr a2.sx"), 1, 0);
  expect_res("listConnections a", "");
  expect_res("listConnections b", "");
}

static void test_import_failure_puts_back(void **state) {
  (void)state;
  /* a strict session: a failing command fails the import, which then undoes itself */
  sinew_session_destroy(S);
  sinew_session_desc_t d = {.logger = logger, .strict = true};
  assert_int_equal(sinew_session_create(&d, &S), 0);
  ok("createNode transform -n a; createNode transform -n b; createNode transform -n p;"
     "createNode transform -n q -p p; setAttr q.tx 2; connectAttr a.tz b.tz; lockNode -l 1 b;"
     /* b.tx and b.ty set (to what the import feeds them) so that the .ma texts compare: a
      * destination the import fed keeps the value it last had, as after disconnectAttr */
     "setAttr b.tx 0; setAttr b.ty 0;"
     "fileInfo \"k\" \"v\";");
  const char *failing = write_file("fail.ma",
                                   "requires \"foo\" \"1.0\";\n"
                                   "fileInfo \"k\" \"changed\";\n"
                                   "currentUnit -l m -a rad;\n"
                                   "createNode transform -n \"n1\";\n"
                                   "createNode transform -n \"n2\" -p \"n1\";\n"
                                   "connectAttr \"n1.tx\" \"b.tx\";\n"
                                   "connectAttr \"p.ty\" \"b.ty\";\n"
                                   "disconnectAttr \"|a.tz\" \"b.tz\";\n"
                                   "createNode transform -n \"a\";\n"
                                   "parent -r \"q\" \"n2\";\n"
                                   "lockNode -l 0 b;\n"
                                   "rename \"b\" \"renamed\";\n"
                                   "lockNode -l 1 n1;\n"
                                   "relationship \"link\" \":lightLinker1\" \"n1.message\";\n"
                                   "connectAttr \"n1.tx\" \"nowhere.tx\";\n"
                                   "createNode transform -n \"late\";\n");
  char *before = snapshot();
  char cmd[600];
  snprintf(cmd, sizeof cmd, "file -i \"%s\"", failing);
  int rc = run(cmd);
  assert_int_not_equal(rc, 0);
  if (!strstr(sinew_session_errmsg(S), "fail.ma:15: connectAttr") ||
      !strstr(sinew_session_errmsg(S), "nowhere"))
    fail_msg("message: %s", sinew_session_errmsg(S));
  char *after = snapshot();
  if (strcmp(before, after) != 0) fail_msg("the failed import changed the scene:\n--- before\n%s--- after\n%s", before, after);
  free(after);
  assert_false(exists("n1"));
  assert_false(exists("late"));
  expect_res("listConnections -s 0 -p 1 a.tz", "b.translateZ");
  expect_res("ls -l q", "|p|q");
  assert_near(num("getAttr q.tx"), 2, 0);
  expect_res("lockNode -q b", "1");
  expect_res("currentUnit -q -l", "cm");
  /* a file that cannot be read, or is cut short, changes nothing either */
  snprintf(cmd, sizeof cmd, "file -i \"%s/missing.ma\"", tmpdir);
  assert_int_not_equal(run(cmd), 0);
  snprintf(cmd, sizeof cmd, "file -i \"%s\"", write_file("cut.ma", "createNode transform -n \"x\";\nsetAttr \"x.tx\""));
  assert_int_not_equal(run(cmd), 0);
  assert_non_null(strstr(sinew_session_errmsg(S), "cut short"));
  after = snapshot();
  assert_string_equal(before, after);
  free(after);
  free(before);
  /* the names of the failed import are gone with it: a later script means the scene's nodes */
  ok("setAttr a.tx 1");
  assert_near(num("getAttr a.tx"), 1, 0);
  /* a file being imported cannot replace the scene under the import */
  snprintf(cmd, sizeof cmd, "file -i \"%s\"", write_file("new.ma", "createNode transform -n \"t\";\nfile -new;\n"));
  assert_int_not_equal(run(cmd), 0);
  assert_non_null(strstr(sinew_session_errmsg(S), "not while a file is being imported"));
  assert_false(exists("t"));
  assert_true(exists("a"));
}

/* Every allocation of an import failing in turn: the import fails and the scene is as it was, or
 * it succeeds whole. */
static void test_import_out_of_memory(void **state) {
  (void)state;
  const char *imp = write_file("imp.ma", imp_ma);
  sinew_session_destroy(S);
  S = NULL;
  test_alloc_install();
  sinew_session_desc_t d = {.logger = logger, .strict = true};
  assert_int_equal(sinew_session_create(&d, &S), 0);
  ok("createNode transform -n a; setAttr a.tx 7; createNode transform -n keep; connectAttr keep.ty a.ty;");
  char *before = snapshot();
  long failures = 0;
  for (long n = 1;; n++) {
    test_alloc_reset();
    test_alloc_fail_at(n);
    int rc = sinew_session_run_file(S, imp, NULL);
    test_alloc_fail_at(0);
    if (rc == 0) break;
    failures++;
    char *after = snapshot();
    if (strcmp(before, after) != 0)
      fail_msg("allocation %ld failed; the scene changed:\n--- before\n%s--- after\n%s", n, before, after);
    free(after);
  }
  free(before);
  assert_true(failures > 10);
  expect_res("listConnections -s 0 -p 1 a1.tx", "b.translateX");
  expect_res("listConnections -p 1 a", "keep.translateY");
  assert_near(num("getAttr a.tx"), 7, 0);
  sinew_session_destroy(S);
  S = NULL;
  assert_int_equal(test_alloc_live(), 0);
  test_alloc_uninstall();
}

/* setAttr -k / -cb / -l over a range: each plug's state is found in a hash (40,001 elements in
 * well under a second, where a linear search took seconds); a flag-only range touches only the
 * elements that exist, so a range to 2147483646 is quick and makes nothing; states go with
 * their attribute (deleteAttr) and their node (delete), so saving does not bring them back. */
static void test_setattr_flag_ranges(void **state) {
  (void)state;
  ok("createNode transform -n a; addAttr -ln arr -at double -m a;");
  sinew_plug_t arr;
  assert_int_equal(sinew_plug_parse(G(), "a.arr", (sinew_node_t){0, 0}, &arr), 0);
  enum { N = 40001 };
  int32_t *idx = malloc(N * sizeof *idx);
  double *val = malloc(N * sizeof *val);
  assert_true(idx && val);
  for (int32_t i = 0; i < N; i++) {
    idx[i] = i;
    val[i] = i;
  }
  assert_int_equal(sinew_set_double_elements(G(), &arr, idx, val, N), 0);
  free(idx);
  free(val);
  /* (no timing here: speed is for benchmarks; a per-element cost that grew with the range
   * would show as ctest's timeout) */
  ok("setAttr -k on \"a.arr[0:40000]\"; setAttr -cb on \"a.arr[0:40000]\";");
  expect_res("getAttr -k a.arr[0]", "1");
  expect_res("getAttr -k a.arr[40000]", "1");
  expect_res("getAttr -cb a.arr[12345]", "1");
  /* flags alone over a huge range: only the elements that exist */
  ok("createNode transform -n b; addAttr -ln arr -at double -m b; setAttr b.arr[3] 1; setAttr b.arr[70000] 2;");
  ok("setAttr -k on \"b.arr[0:2147483646]\"; setAttr -l on \"b.arr[0:2147483646]\";");
  expect_res("getAttr -mi b.arr", "3 70000");
  expect_res("getAttr -k b.arr[3]", "1");
  expect_res("getAttr -k b.arr[70000]", "1");
  expect_res("getAttr -l b.arr[70000]", "1");
  expect_res("getAttr -l b.arr[4]", "0");
  char *snap = snapshot();
  assert_non_null(strstr(snap, "setAttr -k on \".arr[70000]\";"));
  assert_non_null(strstr(snap, "setAttr -l on \".arr[3]\";"));
  assert_null(strstr(snap, "-l on \".arr[4]\""));
  free(snap);
  /* a range with no element in it changes nothing */
  char *before = snapshot();
  ok("setAttr -k on \"b.arr[10:20]\"");
  char *after = snapshot();
  assert_string_equal(before, after);
  free(before);
  free(after);
  /* the state goes with its attribute ... */
  ok("createNode transform -n c; addAttr -ln foo -at double c; setAttr -k on c.foo; setAttr -cb on c.foo;");
  expect_res("getAttr -k c.foo", "1");
  ok("deleteAttr c.foo;");
  snap = snapshot();
  assert_null(strstr(snap, "\".foo\""));
  free(snap);
  /* ... and an attribute added again under the name starts afresh */
  ok("addAttr -ln foo -at double c;");
  expect_res("getAttr -k c.foo", "0");
  expect_res("getAttr -cb c.foo", "0");
  snap = snapshot();
  assert_null(strstr(snap, "\".foo\""));
  free(snap);
  /* ... and with its node */
  ok("setAttr -k on c.foo; delete c; createNode transform -n c; addAttr -ln foo -at double c;");
  expect_res("getAttr -k c.foo", "0");
  snap = snapshot();
  assert_null(strstr(snap, "\".foo\""));
  free(snap);
}

/* setAttr -k -cb -l over a range is all or nothing: with each allocation failing in turn, the
 * scene is exactly as it was (no element flagged, no state recorded), or every element is. */
static void test_setattr_flag_range_out_of_memory(void **state) {
  (void)state;
  sinew_session_destroy(S);
  S = NULL;
  test_alloc_install();
  sinew_session_desc_t d = {.logger = logger};
  assert_int_equal(sinew_session_create(&d, &S), 0);
  ok("createNode transform -n a; addAttr -ln arr -at double -m a; addAttr -ln cc -at double3 -m a;"
     "addAttr -ln ccx -at double -p cc a; addAttr -ln ccy -at double -p cc a; addAttr -ln ccz -at double -p cc a;"
     "setAttr a.arr[0:5] 0 1 2 3 4 5; setAttr -k off a.arr[2]; setAttr -l on a.arr[4];"
     "setAttr a.cc[0:3] -type double3 1 2 3 4 5 6 7 8 9 10 11 12;");
  char *before = snapshot();
  long failures = 0;
  for (long n = 1;; n++) {
    test_alloc_reset();
    test_alloc_fail_at(n);
    int rc = run("setAttr -k on -cb off -l on \"a.arr[0:5]\"");
    test_alloc_fail_at(0);
    if (rc == 0) break;
    failures++;
    char *after = snapshot();
    if (strcmp(before, after) != 0)
      fail_msg("allocation %ld failed; the scene changed:\n--- before\n%s--- after\n%s", n, before, after);
    free(after);
  }
  assert_true(failures > 3);
  for (int i = 0; i <= 5; i++) {
    char q[64];
    snprintf(q, sizeof q, "getAttr -k a.arr[%d]", i);
    expect_res(q, "1");
    snprintf(q, sizeof q, "getAttr -l a.arr[%d]", i);
    expect_res(q, "1");
  }
  /* a range on an inner index: the children of existing elements */
  free(before);
  before = snapshot();
  failures = 0;
  for (long n = 1;; n++) {
    test_alloc_reset();
    test_alloc_fail_at(n);
    int rc = run("setAttr -k on \"a.cc[0:9].ccy\"");
    test_alloc_fail_at(0);
    if (rc == 0) break;
    failures++;
    char *after = snapshot();
    if (strcmp(before, after) != 0)
      fail_msg("allocation %ld failed; the scene changed:\n--- before\n%s--- after\n%s", n, before, after);
    free(after);
  }
  free(before);
  assert_true(failures > 3);
  expect_res("getAttr -k a.cc[3].ccy", "1");
  expect_res("getAttr -mi a.cc", "0 1 2 3");
  sinew_session_destroy(S);
  S = NULL;
  assert_int_equal(test_alloc_live(), 0);
  test_alloc_uninstall();
}

static void test_file_query_alone(void **state) {
  (void)state;
  expect_res("file -q -sn", "");
  bad("file", "give -open", NULL);
}

int main(void) {
  /* TEST_FILTER=test_ls_* runs some tests (a cmocka glob pattern). */
  if (getenv("TEST_FILTER")) cmocka_set_test_filter(getenv("TEST_FILTER"));
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_create_node, setup, teardown),
      cmocka_unit_test_setup_teardown(test_rename_delete, setup, teardown),
      cmocka_unit_test_setup_teardown(test_delete_deep_chain, setup, teardown),
      cmocka_unit_test_setup_teardown(test_delete_out_of_memory, setup, teardown),
      cmocka_unit_test_setup_teardown(test_parent, setup, teardown),
      cmocka_unit_test_setup_teardown(test_setattr_scalars, setup, teardown),
      cmocka_unit_test_setup_teardown(test_setattr_bare_plug_is_fine, setup, teardown),
      cmocka_unit_test_setup_teardown(test_setattr_ranges_and_data, setup, teardown),
      cmocka_unit_test_setup_teardown(test_setattr_flags, setup, teardown),
      cmocka_unit_test_setup_teardown(test_setattr_weights, setup, teardown),
      cmocka_unit_test_setup_teardown(test_getattr, setup, teardown),
      cmocka_unit_test_setup_teardown(test_units, setup, teardown),
      cmocka_unit_test_setup_teardown(test_connect, setup, teardown),
      cmocka_unit_test_setup_teardown(test_add_attr, setup, teardown),
      cmocka_unit_test_setup_teardown(test_queries, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ls_wildcards, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ls_wildcards_linear, setup, teardown),
      cmocka_unit_test_setup_teardown(test_header_commands, setup, teardown),
      cmocka_unit_test_setup_teardown(test_file_command, setup, teardown),
      cmocka_unit_test_setup_teardown(test_import_names, setup, teardown),
      cmocka_unit_test_setup_teardown(test_import_get_attr, setup, teardown),
      cmocka_unit_test_setup_teardown(test_import_rename_and_lookups, setup, teardown),
      cmocka_unit_test_setup_teardown(test_import_namespace_and_prefix, setup, teardown),
      cmocka_unit_test_setup_teardown(test_import_nested, setup, teardown),
      cmocka_unit_test_setup_teardown(test_import_failure_puts_back, setup, teardown),
      cmocka_unit_test_setup_teardown(test_import_out_of_memory, setup, teardown),
      cmocka_unit_test_setup_teardown(test_file_query_alone, setup, teardown),
      cmocka_unit_test_setup_teardown(test_setattr_flag_ranges, setup, teardown),
      cmocka_unit_test_setup_teardown(test_setattr_flag_range_out_of_memory, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
