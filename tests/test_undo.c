/* tests/test_undo.c: the session's undo queue (cmds/undo.c): each command kind undone and redone
 * gives back the saved .ma text byte for byte (the scene written to memory, with the node and
 * connection counts); a seeded random run of thousands of commands over the whole command set
 * undone whole gives the save before it and redone whole the save after it, also after random
 * interleavings of undo and redo; chunks, -length trimming, the queue off, file -new
 * flushing, failing commands adding no step, the commands' names (undoInfo -q -undoName), the
 * observer, session state that is not undone flushing the queue, and every allocation of a
 * command, an undo and a redo failing in turn. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sinew/cmds.h"
#include "sinew/sinew.h"
#include "tests/support.h"

static sinew_session_t *S;

#define ok(text) test_ok(S, text)
#define res(text) test_res(S, text)
#define expect_res(text, want) test_expect_res(S, text, want)
/* The scene as the writer saves it, with the node and connection counts in front (tests/support.c). */
static char *snapshot(void) { return test_snapshot(S); }

static int setup(void **state) {
  (void)state;
  assert_int_equal(sinew_session_create(NULL, &S), 0);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  sinew_session_destroy(S);
  S = NULL;
  return 0;
}

static sinew_graph_t *G(void) { return sinew_session_graph(S); }
static int run(const char *text) { return sinew_session_run(S, text, strlen(text), "test.mel", NULL); }

static void same(const char *what, const char *want, const char *got) {
  if (strcmp(want, got) == 0) return;
  test_print_diff(want, got);
  fail_msg("%s: the scene differs (- want, + got)", what);
}

/* Runs one command as one step: undo gives the save before, redo the save after, twice over,
 * once through the C API and once through the MEL commands. */
static void step(const char *text) {
  char *before = snapshot();
  size_t n = sinew_session_undo_count(S);
  ok(text);
  char *after = snapshot();
  if (strcmp(before, after) == 0) fail_msg("%s: changed nothing (a test of nothing)", text);
  if (sinew_session_undo_count(S) != n + 1)
    fail_msg("%s: %zu steps, want %zu", text, sinew_session_undo_count(S), n + 1);
  for (int round = 0; round < 2; round++) {
    char *s;
    if (round == 0) assert_int_equal(sinew_session_undo(S), 0);
    else ok("undo");
    s = snapshot();
    same(text, before, s);
    free(s);
    if (round == 0) assert_int_equal(sinew_session_redo(S), 0);
    else ok("redo");
    s = snapshot();
    same(text, after, s);
    free(s);
  }
  free(before);
  free(after);
}

/* ---- each command kind ------------------------------------------------------------------------ */

static void test_each_command(void **state) {
  (void)state;
  ok("undoInfo -infinity on");
  step("createNode transform -n a");
  step("createNode transform -n b -p a");
  step("setAttr a.tx 5");                                   /* double */
  step("setAttr a.t 1 2 3");                                /* compound */
  step("setAttr a.v 0");                                    /* bool */
  step("setAttr a.ro 3");                                   /* enum */
  step("setAttr a.rx 45");                                  /* angle */
  step("addAttr -ln note -dt \"string\" b");
  step("setAttr b.note -type \"string\" \"hello\"");       /* string */
  step("setAttr b.opm -type \"matrix\" 1 0 0 0 0 1 0 0 0 0 1 0 4 5 6 1"); /* matrix */
  step("addAttr -ln amount -at double -min 0 -max 10 -dv 2 a");
  step("setAttr a.amount 7");
  step("setAttr -l on a.amount");                           /* lock */
  step("setAttr -l off a.amount");
  step("setAttr -k off a.tx");                              /* the plug's -k / -cb record */
  step("setAttr -cb on a.sx");
  step("setAttr -k on -cb off a.tx");
  step("setAttr -k off b.ty");
  step("deleteAttr a.amount");
  step("createNode multiplyDivide -n md");
  step("connectAttr a.tx md.i1x");
  step("connectAttr -f a.ty md.i1x");
  step("disconnectAttr a.ty md.i1x");
  step("createNode transform -n c");
  step("parent c a");
  step("parent -w c");
  step("rename c cee");
  step("delete b");
  ok("select a md"); /* the selection is not in the file: test_selection checks its undo */
  step("duplicate -n a2 a");
  step("sets -n grpSet a md");
  step("lockNode -l on md");
  step("lockNode -l off md");
  step("setKeyframe -t 1 -v 3 -at tx a");
  step("setKeyframe -t 10 -v 8 -at tx a");
  step("parentConstraint a cee");
  step("polyCube -n box");
  ok("select -cl; joint -n j0 -p 0 0 0; joint -n j1 -p 1 0 0; joint -n j2 -p 2 0 0"); /* 4 steps */
  assert_int_equal(sinew_session_undo(S), 0);
  assert_int_equal(sinew_session_undo(S), 0);
  assert_int_equal(sinew_session_undo(S), 0);
  assert_int_equal(sinew_session_redo(S), 0);
  assert_int_equal(sinew_session_redo(S), 0);
  assert_int_equal(sinew_session_redo(S), 0);
  step("ikHandle -sj j0 -ee j2");
  step("skinCluster -n boxSkin -tsb j0 j1 j2 box");
  step("skinPercent -tv j0 0.25 boxSkin box.vtx[0]");
  step("dagPose -s -n pose1 j0");
  step("expression -n ex -s \"md.i2x = a.tx * 2;\"");
  /* eval is a function, not a command: each command it runs is a step (docs/commands.md) */
  ok("eval \"setAttr a.ty 9; setAttr a.tz 4\"");
  expect_res("undoInfo -q -undoName", "setAttr a.tz 4");
  step("delete box");                                       /* a node with history, one step */
  step("curve -d 1 -n line -p 0 0 0 -p 4 0 0");
  step("curve -r -d 1 -p 0 0 0 -p 4 1 0 line");
  step("circle -n ring -nr 0 1 0");
  step("circle -ch off -n ring2");
  ok("select -cl; joint -n k0 -p 0 0 0; joint -n k1 -p 1 0 0; joint -n k2 -p 2 0 0");
  step("ikHandle -sol ikSplineSolver -sj k0 -ee k2 -c line");
}

/* ---- names, warnings, failing commands --------------------------------------------------------------- */

static void test_names_and_warnings(void **state) {
  (void)state;
  expect_res("undoInfo -q -undoName", "");
  expect_res("undoInfo -q -uqe", "1");
  ok("undo"); /* nothing to undo: a warning, as Maya, not an error */
  ok("redo");
  ok("createNode transform -n a; setAttr a.tx 5");
  expect_res("undoInfo -q -undoName", "setAttr a.tx 5");
  expect_res("undoInfo -q", "2");
  ok("undo");
  expect_res("undoInfo -q -undoName", "createNode transform -n a");
  expect_res("undoInfo -q -redoName", "setAttr a.tx 5");
  expect_res("getAttr a.tx", "0");
  ok("redo");
  expect_res("getAttr a.tx", "5");
  /* a failing command adds no step and changes nothing */
  char *before = snapshot();
  assert_int_not_equal(run("setAttr a.nosuch 1"), 0);
  assert_int_not_equal(run("connectAttr a.tx nosuch.tx"), 0);
  assert_int_not_equal(run("parent a a"), 0);
  char *after = snapshot();
  same("failing commands", before, after);
  free(before);
  free(after);
  expect_res("undoInfo -q", "2");
  expect_res("undoInfo -q -undoName", "setAttr a.tx 5");
  /* queries make no step */
  ok("getAttr a.tx; ls; listConnections a; undoInfo -q -st");
  expect_res("undoInfo -q", "2");
  /* a new command drops what could be redone */
  ok("undo");
  assert_true(sinew_session_can_redo(S));
  ok("setAttr a.ty 2");
  assert_false(sinew_session_can_redo(S));
  expect_res("undoInfo -q -rqe", "1");
  /* bad undoInfo input */
  assert_int_not_equal(run("undoInfo -length -3"), 0);
  assert_int_not_equal(run("undoInfo -openChunk -closeChunk"), 0);
  assert_int_not_equal(run("undoInfo -closeChunk"), 0);
  assert_int_not_equal(run("undoInfo -chunkName x"), 0);
  assert_int_not_equal(run("undoInfo -state maybe"), 0);
  assert_int_not_equal(run("undoInfo -q -state -length"), 0);
}

/* ---- the selection ------------------------------------------------------------------------------------ */

static void test_selection(void **state) {
  (void)state;
  ok("createNode transform -n a; createNode transform -n b; select a");
  ok("select b");
  expect_res("ls -sl", "b");
  ok("undo");
  expect_res("ls -sl", "a");
  ok("redo");
  expect_res("ls -sl", "b");
  /* deleting a selected node takes it out of the selection; undo puts both back */
  ok("select a b; delete a");
  expect_res("ls -sl", "b");
  ok("undo");
  expect_res("ls -sl", "a b");
  ok("redo");
  expect_res("ls -sl", "b");
  ok("undo");
  expect_res("ls -sl", "a b");
  /* createNode selects what it made; undo gives the selection before */
  ok("createNode transform -n c");
  expect_res("ls -sl", "c");
  ok("undo");
  expect_res("ls -sl", "a b");
}

/* ---- chunks ---------------------------------------------------------------------------------------------- */

static void test_chunks(void **state) {
  (void)state;
  ok("createNode transform -n a");
  char *before = snapshot();
  ok("undoInfo -openChunk -chunkName \"make rig\"");
  ok("createNode transform -n b; setAttr b.tx 3; parent b a");
  assert_false(sinew_session_can_undo(S) && 0);
  /* a failing command inside the chunk is taken back alone */
  assert_int_not_equal(run("setAttr b.nosuch 1"), 0);
  ok("undoInfo -openChunk; setAttr a.ry 10; undoInfo -closeChunk"); /* nested: one chunk */
  assert_int_not_equal(sinew_session_undo(S), 0); /* refused while the chunk is open */
  ok("undoInfo -closeChunk");
  char *after = snapshot();
  expect_res("undoInfo -q", "2");
  expect_res("undoInfo -q -undoName", "make rig");
  ok("undo");
  char *s = snapshot();
  same("chunk undone", before, s);
  free(s);
  ok("redo");
  s = snapshot();
  same("chunk redone", after, s);
  free(s);
  /* the C API */
  assert_int_equal(sinew_session_chunk_open(S, NULL), 0);
  ok("setAttr a.tx 1; setAttr a.ty 2");
  assert_int_equal(sinew_session_chunk_close(S), 0);
  expect_res("undoInfo -q", "3");
  expect_res("undoInfo -q -undoName", "chunk");
  assert_int_equal(sinew_session_undo(S), 0);
  s = snapshot();
  same("C chunk undone", after, s);
  free(s);
  /* an empty chunk adds no step */
  ok("undoInfo -ock; undoInfo -cck");
  expect_res("undoInfo -q", "2");
  free(before);
  free(after);
}

/* ---- length, state, flushing --------------------------------------------------------------------------- */

static void test_length_state_flush(void **state) {
  (void)state;
  expect_res("undoInfo -q -infinity", "0"); /* Maya's finite queue of 50 */
  expect_res("undoInfo -q -length", "50");
  ok("undoInfo -infinity on");
  expect_res("undoInfo -q -infinity", "1");
  ok("undoInfo -length 3");
  expect_res("undoInfo -q -infinity", "0");
  ok("createNode transform -n a");
  for (int i = 1; i <= 5; i++) {
    char t[64];
    snprintf(t, sizeof t, "setAttr a.tx %d", i);
    ok(t);
  }
  expect_res("undoInfo -q", "3");
  ok("undo; undo; undo");
  expect_res("getAttr a.tx", "2"); /* 5 -> 4 -> 3 -> 2: the three newest steps */
  assert_false(sinew_session_can_undo(S));
  ok("undo"); /* a warning */
  expect_res("getAttr a.tx", "2");
  ok("redo; redo; redo");
  ok("undoInfo -length 1");
  expect_res("undoInfo -q", "1");
  ok("undoInfo -infinity on");
  expect_res("undoInfo -q -infinity", "1");
  /* off: no steps, the queue flushed */
  ok("undoInfo -state off");
  expect_res("undoInfo -q -state", "0");
  expect_res("undoInfo -q", "0");
  ok("setAttr a.tx 9");
  expect_res("undoInfo -q", "0");
  ok("undoInfo -state on; setAttr a.tx 10");
  expect_res("undoInfo -q", "1");
  /* -stateWithoutFlush keeps the steps */
  ok("undoInfo -stateWithoutFlush off");
  expect_res("undoInfo -q", "1");
  ok("undoInfo -swf on");
  /* flushUndo, file -new */
  ok("flushUndo");
  assert_false(sinew_session_can_undo(S));
  ok("setAttr a.tx 11");
  assert_true(sinew_session_can_undo(S));
  ok("file -f -new");
  assert_false(sinew_session_can_undo(S));
  ok("createNode transform -n z");
  assert_true(sinew_session_can_undo(S));
  assert_int_equal(sinew_session_new_scene(S), 0);
  assert_false(sinew_session_can_undo(S));
  /* file -i reads with the queue off and flushes it; the import itself is not undoable */
  ok("createNode transform -n y; setAttr y.tx 2");
  assert_true(sinew_session_can_undo(S));
  char t[1024];
  snprintf(t, sizeof t, "file -i \"%s/maya-usd/UsdExportSkeletonNoDagPose.ma\"", SINEW_TEST_DATA_DIR);
  char *before = snapshot();
  ok(t);
  char *after = snapshot();
  assert_true(strcmp(before, after) != 0);
  assert_false(sinew_session_can_undo(S));
  ok("undo"); /* a warning: nothing to undo */
  char *s = snapshot();
  same("undo after file -i", after, s);
  free(s);
  free(before);
  free(after);
}

/* The README's examples. */
/* A file -i that succeeds inside a larger transaction which then rolls back: the session's
 * per-node records it changed (-k, an attribute sinew lacks kept as text, an addAttr data type)
 * go back with the graph: the save and the values read back are as before. */
static void test_import_in_rolled_back_transaction(void **state) {
  (void)state;
  char dir[] = "/tmp/sinew-undo-XXXXXX", path[600], cmd[700];
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/imp.ma", dir);
  FILE *fp = fopen(path, "w");
  assert_non_null(fp);
  fputs("//Maya ASCII 2020 scene\nrequires maya \"2020\";\nsetAttr -k on \"a.tx\";\n"
        "setAttr \"a.nosuch\" 3;\naddAttr -ci true -sn \"blob\" -ln \"blob\" -dt \"string\" \"a\";\n"
        "createNode transform -n \"b\";\n\tsetAttr -k on \".ty\";\n",
        fp);
  fclose(fp);
  snprintf(cmd, sizeof cmd, "file -i \"%s\"", path);
  ok("createNode transform -n a; setAttr -k off a.tx");
  expect_res("getAttr -k a.tx", "0");
  char *before = snapshot();
  /* rolled back */
  assert_int_equal(sinew_graph_begin(G()), SINEW_OK);
  ok(cmd);
  expect_res("getAttr -k a.tx", "1");
  char *during = snapshot();
  assert_true(strcmp(before, during) != 0);
  assert_int_equal(sinew_graph_rollback(G()), SINEW_OK);
  char *got = snapshot();
  same("rolled back file -i", before, got);
  expect_res("getAttr -k a.tx", "0");
  free(got);
  /* rolled back with an outer transaction, after the one around it committed */
  assert_int_equal(sinew_graph_begin(G()), SINEW_OK);
  assert_int_equal(sinew_graph_begin(G()), SINEW_OK);
  ok(cmd);
  char *after = snapshot();
  same("file -i again", during, after);
  assert_int_equal(sinew_graph_commit(G()), SINEW_OK);
  assert_int_equal(sinew_graph_rollback(G()), SINEW_OK);
  got = snapshot();
  same("file -i rolled back with the outer transaction", before, got);
  free(got);
  expect_res("getAttr -k a.tx", "0");
  /* and kept when the outer transaction commits */
  assert_int_equal(sinew_graph_begin(G()), SINEW_OK);
  ok(cmd);
  assert_int_equal(sinew_graph_commit(G()), SINEW_OK);
  got = snapshot();
  same("file -i committed", after, got);
  free(got);
  expect_res("getAttr -k a.tx", "1");
  free(before);
  free(during);
  free(after);
  remove(path);
  rmdir(dir);
}

static void test_readme(void **state) {
  (void)state;
  char *before = snapshot();
  ok("undoInfo -openChunk -chunkName \"rig arm\";\n"
     "joint -n shoulder; joint -n elbow -p 10 0 0;\n"
     "undoInfo -closeChunk;\n"
     "undo;");
  char *s = snapshot();
  same("README chunk undone", before, s);
  free(s);
  ok("redo");
  expect_res("ls -type joint", "shoulder elbow");
  ok("createNode transform -n arm");
  assert_int_equal(sinew_session_run(S, "setAttr arm.tx 5", 16, "host", NULL), 0);
  assert_true(sinew_session_can_undo(S));
  assert_string_equal(sinew_session_undo_name(S), "setAttr arm.tx 5");
  assert_int_equal(sinew_session_undo(S), 0);
  expect_res("getAttr arm.tx", "0");
  assert_string_equal(sinew_session_redo_name(S), "setAttr arm.tx 5");
  assert_int_equal(sinew_session_redo(S), 0);
  expect_res("getAttr arm.tx", "5");
  free(before);
}

/* State the queue does not restore: the command that changes it flushes the queue. */
static void test_side_state_flushes(void **state) {
  (void)state;
  ok("createNode transform -n a; setAttr a.tx 1");
  assert_true(sinew_session_can_undo(S));
  ok("fileInfo \"note\" \"x\"");
  assert_false(sinew_session_can_undo(S));
  ok("setAttr a.tx 2");
  /* a host deleting a node with a -k record outside the commands: the steps cannot be trusted */
  ok("createNode transform -n k; setAttr -k off k.tx");
  assert_true(sinew_session_can_undo(S));
  sinew_node_t kn;
  assert_int_equal(sinew_node_find(G(), "k", &kn), 0);
  assert_int_equal(sinew_node_delete(G(), kn), 0);
  assert_false(sinew_session_can_undo(S));
  ok("undo"); /* a warning */
  ok("setAttr a.tx 3");
  ok("currentUnit -l mm");
  assert_false(sinew_session_can_undo(S));
  ok("setAttr a.tx 4; requires \"someplugin\" \"1.0\"");
  assert_false(sinew_session_can_undo(S));
}

/* ---- observer ----------------------------------------------------------------------------------------------- */

static int notified;
static void on_queue(void *ud, sinew_session_t *s) {
  (void)s;
  (*(int *)ud)++;
}

static void test_observer(void **state) {
  (void)state;
  notified = 0;
  sinew_session_set_undo_observer(S, on_queue, &notified);
  ok("createNode transform -n a"); /* +1 */
  ok("getAttr a.tx");              /* no step: 0 */
  assert_int_equal(notified, 1);
  ok("undo; redo");                /* +2 */
  assert_int_equal(notified, 3);
  ok("flushUndo");                 /* +1 */
  assert_int_equal(notified, 4);
  ok("flushUndo");                 /* empty already: 0 */
  assert_int_equal(notified, 4);
  sinew_session_set_undo_observer(S, NULL, NULL);
  ok("setAttr a.tx 1");
  assert_int_equal(notified, 4);
}

/* ---- a random run ------------------------------------------------------------------------------------------ */

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(uint32_t n) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng % n);
}

/* A name from a pool (prefix0 .. prefix{n-1}): one that names exactly one node when `exists`,
 * else one no node has; a few draws, then any (the command may then fail, which is tested
 * too). */
static int pick(const char *prefix, uint32_t n, bool exists) {
  int k = (int)rnd(n);
  for (int tries = 0; tries < 8; tries++, k = (int)rnd(n)) {
    char name[32];
    snprintf(name, sizeof name, "%s%d", prefix, k);
    sinew_node_t node;
    int rc = sinew_node_find(G(), name, &node);
    if (exists ? rc == SINEW_OK : rc == SINEW_ENOTFOUND) return k;
  }
  return k;
}

/* One random command over the whole command set. Names come from small pools (n0..n11
 * transforms or meshes, m0..m2 meshes, c0..c5 children, j0..j5 joints, sk0..sk2 skinClusters, p0..p2 poses,
 * e0..e2 expressions), drawn so that most commands find what they name; many still fail (a
 * cycle, a lock, a wrong type ...), and a failing command must change nothing. */
static void random_command(char *cmd, size_t cap) {
  int a = pick("n", 12, true), b = pick("n", 12, true), f = pick("n", 12, false);
  int j = pick("j", 6, true), k = pick("j", 6, true), jf = pick("j", 6, false);
  int q = (int)rnd(3), sk = pick("sk", 3, true), m = pick("m", 3, true);
  switch (rnd(46)) {
    case 0:
    case 1: snprintf(cmd, cap, "createNode transform -n n%d", f); break;
    case 2: snprintf(cmd, cap, "createNode transform -n c%d -p n%d", pick("c", 6, false), b); break;
    case 3: snprintf(cmd, cap, "setAttr n%d.tx %d", a, (int)rnd(100) - 50); break;
    case 4: snprintf(cmd, cap, "setAttr n%d.r %d %d 7", a, (int)rnd(90), (int)rnd(90)); break;
    case 5: snprintf(cmd, cap, "connectAttr -f n%d.tx n%d.ty", a, b); break;
    case 6: snprintf(cmd, cap, "disconnectAttr n%d.tx %s", a, rnd(2) ? "m0.i1x" : "m0.i2y"); break;
    case 7: snprintf(cmd, cap, "parent n%d n%d", a, b); break;
    case 8: snprintf(cmd, cap, "delete n%d", a); break;
    case 9: snprintf(cmd, cap, "select n%d n%d", a, b); break;
    case 10: snprintf(cmd, cap, "addAttr -ln w%d -at double n%d", q, a); break;
    case 11: snprintf(cmd, cap, "setAttr -l %s n%d.sx", rnd(2) ? "on" : "off", a); break;
    case 12: snprintf(cmd, cap, "connectAttr -f n%d.tx m0.i1x", a); break;
    case 13: snprintf(cmd, cap, "duplicate -n n%d n%d", f, a); break;
    case 14: snprintf(cmd, cap, "setAttr -k %s -cb %s n%d.t%c", rnd(2) ? "on" : "off", rnd(2) ? "on" : "off", a, "xyz"[rnd(3)]); break;
    case 15: snprintf(cmd, cap, "rename n%d n%d", a, f); break;
    case 16: snprintf(cmd, cap, "parentConstraint n%d n%d", a, b); break;
    case 17:
    case 18: snprintf(cmd, cap, "polyCube -n %c%d -sx %d", rnd(2) ? 'n' : 'm', rnd(2) ? f : pick("m", 3, false), 1 + (int)rnd(3)); break;
    case 19: snprintf(cmd, cap, "sets -n s%d n%d n%d", q, a, b); break;
    case 20: snprintf(cmd, cap, "setKeyframe -t %d -v %d -at tx n%d", (int)rnd(20), (int)rnd(9), a); break;
    case 21: snprintf(cmd, cap, "select -cl; joint -n j%d -p %d %d 0", jf, (int)rnd(5), (int)rnd(5)); break;
    case 22:
    case 23: snprintf(cmd, cap, "select j%d; joint -n j%d -p %d 1 0", j, jf, (int)rnd(5)); break;
    case 24: snprintf(cmd, cap, "parent j%d j%d", j, k); break;
    case 25:
    case 26: snprintf(cmd, cap, "skinCluster -n sk%d -tsb j%d j%d m%d", m, j, k, m); break; /* sk<i> binds m<i> */
    case 27:
    case 28: snprintf(cmd, cap, "skinPercent -tv j%d 0.%d sk%d m%d.vtx[%d]", j, 1 + (int)rnd(9), sk, sk, (int)rnd(8)); break;
    case 29: snprintf(cmd, cap, "skinCluster -e -ai j%d sk%d", j, sk); break;
    case 30: snprintf(cmd, cap, "skinCluster -e -ri j%d sk%d", j, sk); break;
    case 31: snprintf(cmd, cap, "dagPose -s -n p%d j%d j%d", q, j, k); break;
    case 32: snprintf(cmd, cap, "dagPose -r p%d", q); break;
    case 33: snprintf(cmd, cap, "expression -n e%d -s \"n%d.sy = n%d.tx * 2 + %d;\"", q, a, b, (int)rnd(9)); break;
    case 34: snprintf(cmd, cap, "expression -e -s \"n%d.sz = time;\" e%d", a, pick("e", 3, true)); break;
    case 35: snprintf(cmd, cap, "ikHandle -sj j%d -ee j%d", j, k); break;
    case 36: snprintf(cmd, cap, "lockNode -l %s n%d", rnd(2) ? "on" : "off", a); break;
    case 37: snprintf(cmd, cap, "deleteAttr n%d.w%d", a, q); break;
    case 38: snprintf(cmd, cap, "addAttr -ln t%d -dt \"string\" n%d", q, a); break;
    case 39: snprintf(cmd, cap, "setAttr n%d.t%d -type \"string\" \"text %d\"", a, q, (int)rnd(99)); break;
    case 40: snprintf(cmd, cap, "setAttr n%d.opm -type \"matrix\" 1 0 0 0 0 1 0 0 0 0 1 0 %d 0 0 1", a, (int)rnd(9)); break;
    case 41: snprintf(cmd, cap, "group -n n%d n%d", f, a); break;
    case 42: snprintf(cmd, cap, "duplicate -rc j%d", j); break;
    case 43: snprintf(cmd, cap, "pointConstraint -mo n%d n%d", a, b); break;
    case 44: snprintf(cmd, cap, "setAttr m%dShape.pnts[%d] 0.%d 0 0", m, (int)rnd(8), (int)rnd(9)); break;
    default: snprintf(cmd, cap, "delete %s%d", rnd(2) ? "j" : "sk", rnd(2) ? j : sk); break;
  }
}

/* The property test: a seeded random run over the whole command set (2000 commands here;
 * SINEW_UNDO_COMMANDS=n runs n, SINEW_UNDO_SEED=s another seed; the seed is printed on a
 * failure). Each failing command changes nothing and adds no step; undoing everything gives
 * back the save before the run byte for byte, redoing everything the save after it, and random
 * interleavings of undo and redo end where they should. File reads are left out: Maya's file
 * command is not undoable, and reading flushes the queue. */
static void test_random_run(void **state) {
  (void)state;
  const char *env = getenv("SINEW_UNDO_COMMANDS"), *seed_env = getenv("SINEW_UNDO_SEED");
  long count = env && atol(env) > 0 ? atol(env) : 2000;
  uint64_t seed = seed_env ? strtoull(seed_env, NULL, 0) : 0x9E3779B97F4A7C15ull;
  rng = seed ? seed : 1;
  ok("undoInfo -infinity on -state off; createNode transform -n n0; createNode transform -n n1; createNode multiplyDivide -n m0;"
     "undoInfo -state on");
  char *start = snapshot();
  long steps = 0;
  char cmd[256], what[320];
  char *pre = snapshot();
  for (long i = 0; i < count; i++) {
    random_command(cmd, sizeof cmd);
    snprintf(what, sizeof what, "seed %#llx, command %ld: %s", (unsigned long long)seed, i, cmd);
    size_t n = sinew_session_undo_count(S);
    int rc = run(cmd);
    char *post = snapshot();
    if (getenv("UNDO_TRACE")) fprintf(stderr, "%s -> %d %s (%zu)\n", cmd, rc, rc ? sinew_session_errmsg(S) : "", sinew_session_undo_count(S));
    if (rc) { /* a failing command (a missing node, a cycle ...): no step, no change */
      same(what, pre, post);
      assert_int_equal(sinew_session_undo_count(S), n);
    } else if (strcmp(pre, post) != 0) {
      steps++;
    }
    free(pre);
    pre = post;
  }
  free(pre);
  assert_true(steps > count / 5);
  char *end = snapshot();
  while (sinew_session_can_undo(S)) assert_int_equal(sinew_session_undo(S), 0);
  char *s = snapshot();
  snprintf(what, sizeof what, "seed %#llx: undo all", (unsigned long long)seed);
  same(what, start, s);
  free(s);
  while (sinew_session_can_redo(S)) assert_int_equal(sinew_session_redo(S), 0);
  s = snapshot();
  snprintf(what, sizeof what, "seed %#llx: redo all", (unsigned long long)seed);
  same(what, end, s);
  free(s);
  /* random interleavings of undo and redo end where the count says */
  size_t total = sinew_session_undo_count(S), at = total;
  for (long i = 0; i < count; i++) {
    if (rnd(2) && at > 0) assert_int_equal(sinew_session_undo(S), 0), at--;
    else if (at < total) assert_int_equal(sinew_session_redo(S), 0), at++;
  }
  while (at > 0) assert_int_equal(sinew_session_undo(S), 0), at--;
  s = snapshot();
  snprintf(what, sizeof what, "seed %#llx: undo all after interleaving", (unsigned long long)seed);
  same(what, start, s);
  free(s);
  while (at < total) assert_int_equal(sinew_session_redo(S), 0), at++;
  s = snapshot();
  snprintf(what, sizeof what, "seed %#llx: after interleaving", (unsigned long long)seed);
  same(what, end, s);
  free(s);
  free(start);
  free(end);
}

/* ---- fault injection ----------------------------------------------------------------------------------------- */

/* Every allocation of the command, then of its undo and its redo, failing in turn: the command
 * fails with the scene as it was or succeeds whole; an undo or redo fails with the scene as it
 * was or succeeds. */
static void faults(const char *prep, const char *text) {
  for (long k = 1;; k++) {
    sinew_session_destroy(S);
    assert_int_equal(sinew_session_create(NULL, &S), 0);
    ok(prep);
    char *before = snapshot();
    size_t n = sinew_session_undo_count(S);
    test_alloc_reset();
    test_alloc_fail_at(k);
    int rc = run(text);
    long used = test_alloc_count();
    test_alloc_fail_at(0);
    char *after = snapshot();
    if (rc) {
      same(text, before, after);
      assert_int_equal(sinew_session_undo_count(S), n);
    } else {
      assert_int_equal(sinew_session_undo_count(S), n + 1);
      /* undo and redo with allocation k failing */
      test_alloc_reset();
      test_alloc_fail_at(k);
      int u = sinew_session_undo(S);
      test_alloc_fail_at(0);
      char *s = snapshot();
      same("undo under faults", u ? after : before, s);
      free(s);
      if (u) assert_int_equal(sinew_session_undo(S), 0);
      test_alloc_reset();
      test_alloc_fail_at(k);
      int r = sinew_session_redo(S);
      test_alloc_fail_at(0);
      s = snapshot();
      same("redo under faults", r ? before : after, s);
      free(s);
    }
    free(before);
    free(after);
    if (k > used) break; /* the run did not reach allocation k: every one was tried */
  }
}

static void test_faults(void **state) {
  (void)state;
  sinew_session_destroy(S);
  test_alloc_install();
  assert_int_equal(sinew_session_create(NULL, &S), 0);
  faults("createNode transform -n a; createNode transform -n b; select a", "setAttr a.tx 5");
  faults("createNode transform -n a; createNode transform -n b; select a", "createNode transform -n c -p a");
  faults("createNode transform -n a; createNode transform -n b; select a", "connectAttr a.tx b.ty");
  faults("createNode transform -n a; createNode transform -n b; select a", "select b");
  faults("createNode transform -n a; createNode transform -n b -p a; select a", "delete a");
  faults("createNode transform -n a; createNode transform -n b; select a", "parent b a");
  faults("createNode transform -n a; createNode transform -n b; select a", "setAttr -k off -cb on a.t");
  faults("createNode transform -n a; setAttr -k off a.tx; createNode transform -n b -p a", "delete a");
  faults("createNode transform -n a; setAttr -k off a.tx", "duplicate a");
  faults("createNode transform -n a; createNode transform -n b; select a", "rename a q");
  faults("createNode transform -n a; createNode transform -n b; select a", "addAttr -ln w -at double a");
  faults("createNode transform -n a; createNode transform -n b; select a", "duplicate a");
  faults("createNode transform -n a; createNode transform -n b; select a", "polyCube -n box");
  faults("createNode transform -n a", "curve -d 3 -p 0 0 0 -p 1 1 0 -p 2 0 0 -p 3 1 0");
  faults("curve -d 1 -n line -p 0 0 0 -p 4 0 0", "curve -r -d 1 -p 0 0 0 -p 4 1 0 line");
  faults("createNode transform -n a", "circle -nr 0 1 0");
  faults("curve -d 1 -n line -p 0 0 0 -p 4 0 0; select -cl; joint -n k0 -p 0 0 0; joint -n k1 -p 1 0 0;"
         "joint -n k2 -p 2 0 0", "ikHandle -sol ikSplineSolver -sj k0 -ee k2 -c line");
  sinew_session_destroy(S);
  assert_int_equal(test_alloc_live(), 0); /* every step, record and snapshot freed */
  test_alloc_uninstall();
  assert_int_equal(sinew_session_create(NULL, &S), 0);
}

/* A whole array connected into an array that had elements of its own: the pull after the
 * connection gives the destination the source's elements and drops its own; undo gives them
 * back (the journal keeps the destination's array whole), redo and a second undo too, and
 * each allocation of the connection, the pull and the undo failing in turn changes nothing
 * of that. */
static void array_overwrite_run(long fail_connect, long fail_undo) {
  ok("createNode plusMinusAverage -n p1; setAttr p1.i1[0] 1; setAttr p1.i1[1] 2;"
     "createNode plusMinusAverage -n p2; setAttr p2.i1[5] 7; setAttr p2.i1[0] 3;"
     "createNode plusMinusAverage -n p3; connectAttr p2.i1[0] p3.i1[0]");
  expect_res("getAttr p2.o1", "10");
  char *before = snapshot();
  test_alloc_reset();
  test_alloc_fail_at(fail_connect);
  int rc = run("connectAttr p1.i1 p2.i1");
  test_alloc_fail_at(0);
  if (rc) { /* refused for lack of memory: nothing changed */
    char *s = snapshot();
    same("failed connection", before, s);
    free(s);
    expect_res("getAttr p2.i1[5]", "7");
    free(before);
    return;
  }
  expect_res("getAttr p2.o1", "3"); /* the pull: p2.i1 is now [0]=1 [1]=2 */
  expect_res("getAttr -s p2.i1", "2");
  char *after = snapshot();
  for (int round = 0; round < 2; round++) {
    test_alloc_reset();
    test_alloc_fail_at(fail_undo);
    int u = sinew_session_undo(S);
    test_alloc_fail_at(0);
    if (u) assert_int_equal(sinew_session_undo(S), 0); /* it failed whole: once more */
    char *s = snapshot();
    same("undo of connectAttr p1.i1 p2.i1", before, s);
    free(s);
    expect_res("getAttr p2.i1[5]", "7");
    expect_res("getAttr p2.i1[0]", "3");
    expect_res("getAttr -s p2.i1", "2");
    expect_res("getAttr p2.o1", "10");
    expect_res("getAttr p3.o1", "3");
    assert_int_equal(sinew_session_redo(S), 0);
    expect_res("getAttr p2.o1", "3");
    s = snapshot();
    same("redo of connectAttr p1.i1 p2.i1", after, s);
    free(s);
  }
  free(before);
  free(after);
}

static void test_array_overwritten(void **state) {
  (void)state;
  array_overwrite_run(0, 0);
  sinew_session_destroy(S);
  test_alloc_install();
  for (long k = 1;; k++) {
    assert_int_equal(sinew_session_create(NULL, &S), 0);
    test_alloc_reset();
    array_overwrite_run(k, k);
    long used = test_alloc_count();
    sinew_session_destroy(S);
    S = NULL;
    if (k > used) break;
  }
  assert_int_equal(test_alloc_live(), 0);
  test_alloc_uninstall();
  assert_int_equal(sinew_session_create(NULL, &S), 0);
}

/* Indices of an array plug, ascending and each once. */
static size_t indices_of(const char *plug, int32_t *out, size_t cap) {
  sinew_plug_t p;
  assert_int_equal(sinew_plug_parse(G(), plug, (sinew_node_t){0, 0}, &p), 0);
  size_t n = sinew_plug_indices(G(), &p, out, cap);
  assert_true(n <= cap);
  for (size_t i = 1; i < n; i++) assert_true(out[i - 1] < out[i]);
  return n;
}

/* Elements made by evaluation between an undo and a redo (or a command and its undo): a read
 * of an output element makes it, so a record putting that element back finds it there, or
 * finds its array without the room the element had. The put gives the record's element its
 * place (the one made by evaluation goes, and is made again on demand), the indices stay
 * unique and the saved scene is the one before / after. */
static void test_elements_made_by_evaluation(void **state) {
  (void)state;
  ok("createNode transform -n a; createNode transform -n b; createNode transform -n c; setAttr a.tx 2");
  expect_res("getAttr -s a.worldMatrix", "0");
  char *before = snapshot();
  ok("connectAttr a.worldMatrix[2] b.offsetParentMatrix");
  ok("connectAttr a.worldMatrix[3] c.offsetParentMatrix");
  char *after = snapshot();
  char bw[256];
  snprintf(bw, sizeof bw, "%s", res("getAttr b.worldMatrix"));
  int32_t idx[16];
  for (int round = 0; round < 3; round++) {
    assert_int_equal(sinew_session_undo(S), 0);
    assert_int_equal(sinew_session_undo(S), 0);
    char *s = snapshot();
    same("undo", before, s);
    free(s);
    /* reads that make elements by evaluation, more than the array had room for */
    for (int k = 1; k < 9; k++) {
      char cmd[64];
      snprintf(cmd, sizeof cmd, "getAttr a.worldMatrix[%d]", k);
      ok(cmd);
    }
    assert_int_equal(indices_of("a.worldMatrix", idx, 16), round == 2 ? 10 : 8);
    assert_int_equal(sinew_session_redo(S), 0);
    assert_int_equal(sinew_session_redo(S), 0);
    s = snapshot();
    same("redo", after, s);
    free(s);
    size_t n = indices_of("a.worldMatrix", idx, 16);
    assert_true(n >= 3);
    expect_res("getAttr b.worldMatrix", bw);
    if (round == 1) ok("getAttr a.worldMatrix[9]; getAttr a.worldMatrix[10]");
  }
  free(before);
  free(after);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_each_command, setup, teardown),
      cmocka_unit_test_setup_teardown(test_names_and_warnings, setup, teardown),
      cmocka_unit_test_setup_teardown(test_selection, setup, teardown),
      cmocka_unit_test_setup_teardown(test_chunks, setup, teardown),
      cmocka_unit_test_setup_teardown(test_length_state_flush, setup, teardown),
      cmocka_unit_test_setup_teardown(test_side_state_flushes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_import_in_rolled_back_transaction, setup, teardown),
      cmocka_unit_test_setup_teardown(test_readme, setup, teardown),
      cmocka_unit_test_setup_teardown(test_observer, setup, teardown),
      cmocka_unit_test_setup_teardown(test_random_run, setup, teardown),
      cmocka_unit_test_setup_teardown(test_faults, setup, teardown),
      cmocka_unit_test_setup_teardown(test_array_overwritten, setup, teardown),
      cmocka_unit_test_setup_teardown(test_elements_made_by_evaluation, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
