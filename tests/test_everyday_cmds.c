/* tests/test_everyday_cmds.c: the transform commands of cmds/cmd_everyday.c through
 * sinew_session_run: xform (query and edit of every flag, object and world space, absolute and
 * relative), move / rotate / scale (spaces, several objects, the selection) and group (-em, -n,
 * -w, -p, the common parent, world positions kept). World positions are worked by hand in the
 * comments; bad input fails with file, line, command and node, and leaves the scene exactly as
 * it was (compared as the .ma text the writer makes of it). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
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
/* A command that must fail on line 3, naming the command and each needle (NULL ends the list),
 * with the scene and the selection as they were (tests/support.c). */
#define bad(...) test_bad(S, __VA_ARGS__)

static int setup(void **state) {
  (void)state;
  sinew_session_desc_t d = {0};
  assert_int_equal(sinew_session_create(&d, &S), 0);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  sinew_session_destroy(S);
  S = NULL;
  return 0;
}

/* The numbers of a result must be `want` (n of them) within 1e-9 (tests/support.c). */
#define expect_nums(text, ...) test_expect_nums(S, text, __VA_ARGS__)

static char *snapshot(void) { return test_snapshot(S); }

/* P at tx 10 turned 90 degrees about y: a child's local (a, b, c) is world (c + 10, b, -a). */
static void parent_scene(void) {
  ok("createNode transform -n P; setAttr P.tx 10; setAttr P.ry 90; createNode transform -n C -p P;");
}

/* ---- xform ------------------------------------------------------------------------------------ */

static void test_xform_translation(void **state) {
  (void)state;
  parent_scene();
  /* world (1, 2, 3) = (c + 10, b, -a): local (-3, 2, -9) */
  ok("xform -ws -t 1 2 3 C");
  expect_nums("xform -q -ws -t C", 3, 1.0, 2.0, 3.0);
  expect_nums("xform -q -os -t C", 3, -3.0, 2.0, -9.0);
  expect_nums("xform -q -t C", 3, -3.0, 2.0, -9.0);
  /* one more along world x is one more along local z */
  ok("xform -r -ws -t 1 0 0 C");
  expect_nums("getAttr C.t", 3, -3.0, 2.0, -8.0);
  expect_nums("xform -q -worldSpace -translation C", 3, 2.0, 2.0, 3.0);
  ok("xform -r -os -t 0 1 0 C");
  expect_nums("xform -q -ws -t C", 3, 2.0, 3.0, 3.0);
  ok("xform -t 1 1 1 C");
  expect_nums("xform -q -ws -t C", 3, 11.0, 1.0, -1.0);
  /* the selection when no object is named */
  ok("select -r C; xform -a -t 0 0 0");
  expect_nums("xform -q -ws -t", 3, 10.0, 0.0, 0.0);
  /* several objects in one edit */
  ok("createNode transform -n D; xform -ws -t 0 5 0 C D");
  expect_nums("xform -q -ws -t C", 3, 0.0, 5.0, 0.0);
  expect_nums("xform -q -ws -t D", 3, 0.0, 5.0, 0.0);
  /* scene units: 1 m is 100 cm */
  ok("currentUnit -l m; xform -ws -t 1 0 0 D");
  expect_nums("getAttr D.tx", 1, 1.0);
  ok("currentUnit -l cm");
  expect_nums("getAttr D.tx", 1, 100.0);
}

static void test_xform_rotation_scale_shear(void **state) {
  (void)state;
  parent_scene();
  ok("xform -ws -t 1 2 3 C");
  expect_nums("xform -q -ws -ro C", 3, 0.0, 90.0, 0.0);
  expect_nums("xform -q -ro C", 3, 0.0, 0.0, 0.0);
  /* world rotation 0 under a parent turned 90 about y: local -90 about y; the position stays */
  ok("xform -ws -ro 0 0 0 C");
  expect_nums("xform -q -ro C", 3, 0.0, -90.0, 0.0);
  expect_nums("xform -q -ws -ro C", 3, 0.0, 0.0, 0.0);
  expect_nums("xform -q -ws -t C", 3, 1.0, 2.0, 3.0);
  ok("xform -r -ro 0 0 10 C");
  expect_nums("xform -q -ro C", 3, 0.0, -90.0, 10.0);
  ok("xform -s 2 3 4 C; xform -r -s 2 1 1 C");
  expect_nums("xform -q -s C", 3, 4.0, 3.0, 4.0);
  ok("xform -sh 0.5 0 0 C; xform -r -sh 0.25 1 0 C");
  expect_nums("xform -q -sh C", 3, 0.75, 1.0, 0.0);
  ok("xform -roo zxy C");
  expect_res("xform -q -roo C", "zxy");
  expect_nums("getAttr C.ro", 1, 2.0);
  /* -p: the same orientation in the new order (the world matrix is unchanged) */
  ok("createNode transform -n O; setAttr O.r 90 90 0");
  double before[16];
  {
    sinew_value_t v = {0};
    assert_int_equal(sinew_session_run(S, "xform -q -ws -m O", 17, "test.mel", &v), 0);
    for (int i = 0; i < 16; i++) before[i] = sinew_value_double_at(&v, (size_t)i);
    sinew_value_clear(&v);
  }
  ok("xform -p true -roo zxy O");
  expect_res("xform -q -roo O", "zxy");
  expect_nums("xform -q -ws -m O", 16, before[0], before[1], before[2], before[3], before[4], before[5], before[6],
              before[7], before[8], before[9], before[10], before[11], before[12], before[13], before[14], before[15]);
  ok("xform -ra 0 45 0 C");
  expect_nums("xform -q -ra C", 3, 0.0, 45.0, 0.0);
}

static void test_xform_matrix(void **state) {
  (void)state;
  ok("createNode transform -n N; setAttr N.t 1 2 3");
  expect_nums("xform -q -m N", 16, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 2.0, 3.0, 1.0);
  /* rows: x -> y, y -> -x: 90 degrees about z */
  ok("xform -m 0 1 0 0 -1 0 0 0 0 0 1 0 4 5 6 1 N");
  expect_nums("getAttr N.r", 3, 0.0, 0.0, 90.0);
  expect_nums("getAttr N.t", 3, 4.0, 5.0, 6.0);
  parent_scene();
  ok("xform -ws -m 1 0 0 0 0 1 0 0 0 0 1 0 1 2 3 1 C");
  expect_nums("xform -q -ws -m C", 16, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 2.0, 3.0,
              1.0);
  expect_nums("getAttr C.t", 3, -3.0, 2.0, -9.0);
  expect_nums("getAttr C.r", 3, 0.0, -90.0, 0.0);
}

static void test_xform_pivots(void **state) {
  (void)state;
  /* Q turned 90 about z, at (5, 0, 0). Its rotate pivot moved to (1, 0, 0) turns to (0, 1, 0):
   * rotatePivotTranslate = d R - d = (-1, 1, 0) keeps the object where it was. */
  ok("createNode transform -n Q; setAttr Q.t 5 0 0; setAttr Q.rz 90");
  ok("xform -rp 1 0 0 Q");
  expect_nums("xform -q -rp Q", 3, 1.0, 0.0, 0.0);
  expect_nums("getAttr Q.rpt", 3, -1.0, 1.0, 0.0);
  expect_nums("xform -q -ws -t Q", 3, 5.0, 0.0, 0.0);
  /* in the world the pivot is rp + rpt + t */
  expect_nums("xform -q -ws -rp Q", 3, 5.0, 1.0, 0.0);
  /* back to the object's origin, given in world space */
  ok("xform -ws -rp 5 0 0 Q");
  expect_nums("xform -q -rp Q", 3, 0.0, 0.0, 0.0);
  expect_nums("getAttr Q.rpt", 3, 0.0, 0.0, 0.0);
  /* -piv moves both; a scale pivot under scale 2 is balanced by scalePivotTranslate d S - d */
  ok("createNode transform -n V; setAttr V.s 2 2 2; xform -piv 1 2 3 V");
  expect_nums("xform -q -piv V", 6, 1.0, 2.0, 3.0, 1.0, 2.0, 3.0);
  expect_nums("xform -q -sp V", 3, 1.0, 2.0, 3.0);
  expect_nums("getAttr V.spt", 3, 1.0, 2.0, 3.0);
  expect_nums("xform -q -ws -t V", 3, 0.0, 0.0, 0.0);
}

static void test_xform_bounding_box(void **state) {
  (void)state;
  /* a 2 x 4 x 6 cube, moved to (10, 0, 0) and scaled 2 along x: world x from 8 to 12 */
  ok("polyCube -w 2 -h 4 -d 6 -n box; setAttr box.t 10 0 0; setAttr box.sx 2");
  expect_nums("xform -q -ws -bb box", 6, 8.0, -2.0, -3.0, 12.0, 2.0, 3.0);
  expect_nums("xform -q -bb box", 6, -1.0, -2.0, -3.0, 1.0, 2.0, 3.0);
  /* a group holds the meshes below it */
  ok("group -n G box; move -r 0 1 0 G");
  expect_nums("xform -q -ws -bb G", 6, 8.0, -1.0, -3.0, 12.0, 3.0, 3.0);
  /* nothing below: zeros */
  ok("createNode transform -n E");
  expect_nums("xform -q -bb E", 6, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
}

static void test_xform_bad(void **state) {
  (void)state;
  parent_scene();
  ok("xform -t 1 2 3 C");
  bad("xform -q -t nosuch", "nosuch", NULL);
  bad("xform -t 1 2 3 time1", "time1", "not a transform", NULL);
  bad("xform -roo abc C", "abc", NULL);
  bad("xform -ws -os -t 1 2 3 C", "-worldSpace", NULL);
  bad("xform -r -a -t 1 2 3 C", "-relative", NULL);
  bad("xform -q C", "-query", NULL);
  bad("xform -q -t -ro C", "one flag", NULL);
  bad("xform -nosuchflag 1 C", "nosuchflag", NULL);
  bad("xform -t 1 two 3 C", "-t", NULL);
  ok("joint -n J");
  bad("xform -rp 1 0 0 J", "J", "joint", NULL);
  /* a late failure (rotate locked) puts back the scale already set */
  ok("setAttr -lock 1 C.rx");
  bad("xform -s 5 5 5 -ro 1 2 3 C", "C", NULL);
  expect_nums("getAttr C.s", 3, 1.0, 1.0, 1.0);
  /* one of several objects failing puts back the others */
  ok("createNode transform -n A");
  bad("xform -ro 1 2 3 A C", "C", NULL);
  expect_nums("getAttr A.r", 3, 0.0, 0.0, 0.0);
  ok("select -cl");
  bad("xform -t 1 2 3", "nothing selected", NULL);
}

/* ---- move / rotate / scale --------------------------------------------------------------------- */

static void test_move(void **state) {
  (void)state;
  parent_scene();
  /* absolute in world space by default */
  ok("move 1 2 3 C");
  expect_nums("getAttr C.t", 3, -3.0, 2.0, -9.0);
  ok("move -r 1 0 0 C");
  expect_nums("xform -q -ws -t C", 3, 2.0, 2.0, 3.0);
  /* -ls: the parent's space, straight into translate */
  ok("move -r -ls 1 0 0 C");
  expect_nums("getAttr C.t", 3, -2.0, 2.0, -8.0);
  ok("move -ls 0 0 0 C");
  expect_nums("getAttr C.t", 3, 0.0, 0.0, 0.0);
  /* -os -r: along the object's own axes, in its units: x of an object turned 90 about y and
   * scaled 2 is world (0, 0, -2) */
  ok("createNode transform -n O; setAttr O.ry 90; setAttr O.s 2 2 2; move -r -os 1 0 0 O");
  expect_nums("xform -q -ws -t O", 3, 0.0, 0.0, -2.0);
  /* -rpr: the rotate pivot is put at the position (Q's pivot is 1 along x from its origin) */
  ok("createNode transform -n Q; setAttr Q.rp 1 0 0; setAttr Q.sp 0 2 0; move -rpr 5 5 5 Q");
  expect_nums("xform -q -ws -rp Q", 3, 5.0, 5.0, 5.0);
  expect_nums("getAttr Q.t", 3, 4.0, 5.0, 5.0);
  ok("move -spr 0 0 0 Q");
  expect_nums("getAttr Q.t", 3, 0.0, -2.0, 0.0);
  bad("move -r -rpr 1 2 3 Q", "-rotatePivotRelative", NULL);
  /* several objects, and the selection */
  ok("createNode transform -n A; createNode transform -n B; move -r 0 1 0 A B");
  expect_nums("getAttr A.t", 3, 0.0, 1.0, 0.0);
  expect_nums("getAttr B.t", 3, 0.0, 1.0, 0.0);
  ok("select -r A B; move -r 0 0 1");
  expect_nums("getAttr A.t", 3, 0.0, 1.0, 1.0);
  expect_nums("getAttr B.t", 3, 0.0, 1.0, 1.0);
  /* a late failure on B puts A back */
  ok("setAttr -lock 1 B.tx");
  bad("move -r 1 0 0 A B", "B", NULL);
  bad("move 1 2 nosuch", "nosuch", NULL);
  bad("move 1 2 3 nosuch", "nosuch", NULL);
  bad("move -r -a 1 2 3 A", "-relative", NULL);
  bad("move -ws -os 1 2 3 A", "-worldSpace", NULL);
  bad("move 1 2 3 time1", "time1", NULL);
}

static void test_rotate_scale(void **state) {
  (void)state;
  parent_scene();
  /* object space, relative: the given turn acts first */
  ok("rotate -r -os 0 0 45 C");
  expect_nums("getAttr C.r", 3, 0.0, 0.0, 45.0);
  ok("rotate -os 10 20 30 C");
  expect_nums("getAttr C.r", 3, 10.0, 20.0, 30.0);
  /* absolute world: world rotation 0 under P is local -90 about y */
  ok("rotate 0 0 0 C");
  expect_nums("xform -q -ws -ro C", 3, 0.0, 0.0, 0.0);
  expect_nums("getAttr C.r", 3, 0.0, -90.0, 0.0);
  /* relative world: 90 about z, then 90 about world y: x -> y -> y, y -> -x -> z, z -> z -> x */
  ok("createNode transform -n R; setAttr R.rz 90; rotate -r -ws 0 90 0 R");
  expect_nums("xform -q -ws -m R", 16, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0);
  ok("createNode transform -n K; scale 2 2 2 K; scale -r 2 1 0.5 K");
  expect_nums("getAttr K.s", 3, 4.0, 2.0, 1.0);
  ok("select -r K C; scale 3 3 3");
  expect_nums("getAttr K.s", 3, 3.0, 3.0, 3.0);
  expect_nums("getAttr C.s", 3, 3.0, 3.0, 3.0);
  bad("rotate 1 2 C", "C", NULL);
  bad("scale -ws 1 1 1 K", "ws", NULL);
  ok("setAttr -lock 1 C.sz");
  bad("scale 2 2 2 K C", "C", NULL);
  expect_nums("getAttr K.s", 3, 3.0, 3.0, 3.0);
}

/* ---- group ------------------------------------------------------------------------------------ */

static void test_group(void **state) {
  (void)state;
  parent_scene();
  ok("xform -ws -t 1 2 3 C");
  /* under the objects' common parent, at its origin; C keeps its world position */
  expect_res("group -n G C", "G");
  expect_res("listRelatives -p C", "G");
  expect_res("listRelatives -p G", "P");
  expect_nums("getAttr G.t", 3, 0.0, 0.0, 0.0);
  expect_nums("xform -q -ws -t C", 3, 1.0, 2.0, 3.0);
  expect_res("ls -sl", "G");
  /* -w: under the world */
  expect_res("group -w -n W C", "W");
  expect_res("listRelatives -p W", "");
  expect_nums("xform -q -ws -t C", 3, 1.0, 2.0, 3.0);
  expect_nums("getAttr C.t", 3, 1.0, 2.0, 3.0);
  /* -em, automatic names, -p */
  expect_res("group -em", "group1");
  expect_res("group -em -p P", "group2");
  expect_res("listRelatives -p group2", "P");
  /* the selection, and objects with different parents go under the world */
  ok("createNode transform -n A; createNode transform -n B -p P; select -r A B");
  expect_res("group -n AB", "AB");
  expect_res("listRelatives -p AB", "");
  expect_res("listRelatives -c AB", "A B");
  /* a string result, as Maya's */
  expect_res("string $g = `group -em -n X`; $g", "X");
  bad("group -p nosuch C", "nosuch", NULL);
  bad("group -p C C", "C", NULL);
  bad("group -em C", "-empty", NULL);
  bad("group -w -p P C", "-world", NULL);
  bad("group nosuch", "nosuch", NULL);
  bad("group -n Y C time1", "time1", NULL);
  bad("group -r C", "-relative", NULL);
}

/* ---- objectType, attributeExists, attributeQuery --------------------------------------------- */

static void test_object_type(void **state) {
  (void)state;
  ok("joint -n J; createNode transform -n T");
  expect_res("objectType J", "joint");
  expect_res("objectType T", "transform");
  expect_res("objectType time1", "time");
  expect_res("objectType -isType joint J", "1");
  expect_res("objectType -isType transform J", "0");
  expect_res("objectType -isAType transform J", "1");
  expect_res("objectType -isAType joint T", "0");
  expect_res("objectType -isAType dagNode T", "1");
  bad("objectType nosuch", "nosuch", NULL);
  bad("objectType", "one object", NULL);
  bad("objectType -isType joint -isAType joint J", "-isType", NULL);
}

/* shadingNode is createNode for the render categories: the same names, parent, selection. */
static void test_shading_node(void **state) {
  (void)state;
  expect_res("shadingNode -asUtility -n pb pairBlend", "pb");
  expect_res("objectType pb", "pairBlend");
  expect_res("ls -sl", "pb");
  expect_res("shadingNode -au pairBlend", "pairBlend1");
  expect_res("shadingNode -asUtility -ss -n pb blendWeighted", "pb1"); /* a taken name gets a number */
  expect_res("ls -sl", "pairBlend1");                                   /* -ss: not selected */
  ok("setAttr pb.weight 0.25");                                       /* the new node is usable */
  expect_nums("getAttr pb.weight", 1, 0.25);
  expect_res("shadingNode -asUtility -s -n pb pairBlend", "pb");       /* -shared: the existing one */
  bad("shadingNode -n x pairBlend", "exactly one of -asUtility", NULL);
  bad("shadingNode -asUtility -asShader pairBlend", "exactly one of -asUtility", NULL);
  bad("shadingNode -asUtility noSuchType", "Unknown object type: noSuchType", NULL);
  bad("shadingNode -asUtility", "one node type", NULL);
}

/* duplicate: a bind chain copied into an IK chain, as rig scripts do. */
static void test_duplicate(void **state) {
  (void)state;
  ok("joint -n shoulder -p 0 10 0; joint -n elbow -p 5 10 0; joint -n wrist -p 10 10 -1; select -cl;"
     "addAttr -ln twist -at double -min -5 -max 5 shoulder; setAttr shoulder.twist 3;"
     "addAttr -ln label -dt \"string\" elbow; setAttr elbow.label -type \"string\" \"L elbow\";"
     "setAttr -l 1 elbow.tx; setAttr elbow.rz 30;"
     "createNode transform -n drv; connectAttr drv.tx wrist.ry; connectAttr shoulder.twist drv.ty;");
  /* the copy and its subtree; the roots come first, then the nodes below */
  expect_res("duplicate -n ik_shoulder shoulder", "ik_shoulder ik_shoulder|elbow ik_shoulder|elbow|wrist");
  expect_res("ls -sl", "ik_shoulder");
  expect_res("listRelatives -p ik_shoulder", "");             /* the same parent: the world */
  expect_nums("getAttr ik_shoulder.twist", 1, 3.0);             /* dynamic attribute and value */
  expect_nums("attributeQuery -n ik_shoulder -max twist", 1, 5.0);
  expect_res("getAttr |ik_shoulder|elbow.label", "L elbow");
  expect_nums("getAttr |ik_shoulder|elbow.rz", 1, 30.0);
  expect_res("getAttr -l |ik_shoulder|elbow.tx", "1");          /* locks */
  /* wrist: elbow (5, 10, 0) + Rz(30 degrees) (5, 0, -1) */
  expect_nums("xform -q -ws -t |ik_shoulder|elbow|wrist", 3, 5.0 + 5.0 * sqrt(3.0) / 2, 10.0 + 2.5, -1.0);
  /* connections between copied nodes are copied; inputs and outputs elsewhere are not */
  expect_res("listConnections -s 1 -d 0 -p 1 |ik_shoulder|elbow.is", "ik_shoulder.scale");
  expect_res("listConnections -s 1 -d 0 |ik_shoulder|elbow|wrist.ry", "");
  expect_res("listConnections -s 0 -d 1 ik_shoulder.twist", "");
  /* names: the first free number from the original's; -rr: roots only; -rc: unique children */
  expect_res("duplicate -rr shoulder", "shoulder1");
  expect_res("duplicate -rr shoulder1", "shoulder2");
  expect_res("duplicate -rc shoulder", "shoulder3 elbow1 wrist1");
  expect_res("duplicate -po -rr shoulder", "shoulder4");
  expect_res("listRelatives -c shoulder4", "");
  /* a root's input from its DAG parent is made again (parent.scale -> inverseScale) */
  expect_res("duplicate -po |shoulder|elbow", "elbow2");
  expect_res("listConnections -s 1 -d 0 -p 1 elbow2.is", "shoulder.scale");
  expect_res("listRelatives -p elbow2", "shoulder");
  /* -ic: inputs from outside too */
  expect_res("duplicate -ic -rr -n w2 |shoulder|elbow|wrist", "w2");
  expect_res("listConnections -s 1 -d 0 -p 1 w2.ry", "unitConversion1.output"); /* drv.tx -> ry goes through one */
  /* several objects, one inside the other's subtree: copied once */
  expect_res("duplicate -rr drv shoulder |shoulder|elbow", "drv1 shoulder5");
  /* what the copies hold is what a file holds: saved and read back, the scene is the same */
  char *before = snapshot();
  char path[64];
  snprintf(path, sizeof path, "/tmp/sinew-dup-%ld.ma", (long)getpid());
  char script[256];
  snprintf(script, sizeof script, "file -rename \"%s\"; file -save; file -f -o \"%s\"", path, path);
  ok(script);
  unlink(path);
  char *after = snapshot();
  assert_string_equal(before, after);
  free(before);
  free(after);
  bad("duplicate nosuch", "nosuch", NULL);
  bad("duplicate time1", "default node", NULL);
  bad("duplicate -un shoulder", "-upstreamNodes is not supported", NULL);
  bad("duplicate -ilf shoulder", "-instanceLeaf is not supported", NULL);
  ok("select -cl");
  bad("duplicate", "nothing to duplicate", NULL);
}

/* sets: objectSets whose members are connections, as in Maya's files. */
static void test_sets(void **state) {
  (void)state;
  ok("joint -n j1; joint -n j2; select -cl; createNode pairBlend -n pb;");
  expect_res("sets -n ctrls -em", "ctrls");
  expect_res("objectType ctrls", "objectSet");
  expect_res("sets -add ctrls j1 pb", "ctrls");
  expect_res("sets -q ctrls", "j1 pb");
  /* a DAG member through instObjGroups[0] -> dagSetMembers, another node through its message */
  expect_res("listConnections -s 1 -d 0 -p 1 ctrls.dsm", "j1.instObjGroups[0]");
  expect_res("listConnections -s 1 -d 0 -p 1 ctrls.dnsm", "pb.message");
  expect_res("sets -e -add ctrls j1", "ctrls"); /* already a member: once */
  expect_nums("sets -q -size ctrls", 1, 2.0);
  expect_nums("sets -im ctrls j1", 1, 1.0);
  expect_nums("sets -im ctrls j1 j2", 1, 0.0);
  expect_res("sets -rm ctrls j1 j2", "ctrls"); /* j2 was not a member: ignored */
  expect_res("sets -q ctrls", "pb");
  /* made from the selection, with an annotation; a set inside a set */
  ok("select j2");
  expect_res("sets -n picked -t \"arm ctrls\"", "picked");
  expect_res("sets -q picked", "j2");
  expect_res("sets -q -t picked", "arm ctrls");
  expect_res("sets -fe ctrls picked", "ctrls");
  expect_res("sets -q ctrls", "pb picked");
  expect_res("sets -cl ctrls", "ctrls");
  expect_nums("sets -q -s ctrls", 1, 0.0);
  expect_res("sets -q ctrls", "");
  /* deleting a member takes it out */
  ok("sets -add ctrls j1; delete j1");
  expect_nums("sets -q -s ctrls", 1, 0.0);
  bad("sets -add ctrls nosuch", "nosuch", NULL);
  bad("sets -add ctrls pb nosuch", "nosuch", NULL); /* nothing added */
  bad("sets -add pb j2", "not a set", NULL);
  bad("sets -add ctrls ctrls", "member of itself", NULL);
  bad("sets -add ctrls j2.tx", "not components or attributes", NULL);
  bad("sets -add ctrls -rm ctrls j2", "give one of", NULL);
  bad("sets -em j2", "-empty", NULL);
  bad("sets -union ctrls picked", "-union is not supported", NULL);
  bad("sets -q pb", "not a set", NULL);
}

/* pickWalk: parent, first child, siblings with wrap-around (the roots are siblings too). */
static void test_pick_walk(void **state) {
  (void)state;
  ok("joint -n a; joint -n b; select -cl; joint -n c -p 0 1 0; select -cl; createNode transform -n r2;"
     "createNode transform -n k1 -p a; createNode transform -n k2 -p a;");
  /* a's children in order: b, k1, k2 */
  expect_res("pickWalk -d down a", "b");
  expect_res("ls -sl", "b");
  expect_res("pickWalk -d right", "k1");
  expect_res("pickWalk -d right k2", "b");   /* wraps */
  expect_res("pickWalk -d left b", "k2");
  expect_res("pickWalk -d up b k1", "a");    /* both walk to a: once */
  expect_res("pickWalk -d up a", "a");       /* a root stays */
  expect_res("pickWalk -d right a", "c");    /* roots in creation order: a, c, r2 */
  expect_res("pickWalk -d left a", "r2");
  expect_res("pickWalk -d down r2", "r2");   /* no child: stays */
  bad("pickWalk -d sideways a", "-direction", NULL);
  bad("pickWalk -d up time1", "not a DAG node", NULL);
  bad("pickWalk -d up nosuch", "nosuch", NULL);
}

/* spaceLocator: transform + locator shape; -p is the shape's localPosition, as in Maya. */
static void test_space_locator(void **state) {
  (void)state;
  expect_res("spaceLocator -p 1 2 3", "locator1");
  expect_res("ls -sl", "locator1");
  expect_res("listRelatives -s locator1", "locatorShape1");
  expect_res("objectType locatorShape1", "locator");
  expect_nums("getAttr locator1.t", 3, 0.0, 0.0, 0.0);
  expect_nums("getAttr locatorShape1.lp", 3, 1.0, 2.0, 3.0);
  /* worldPosition: localPosition through the transform (tx 5, turned 90 degrees about z:
   * (1, 2, 3) -> (-2, 1, 3) + (5, 0, 0)) */
  ok("setAttr locator1.tx 5; setAttr locator1.rz 90");
  expect_nums("getAttr locatorShape1.wp", 3, 3.0, 1.0, 3.0);
  expect_res("spaceLocator -n ctrl_loc", "ctrl_loc");
  expect_res("listRelatives -s ctrl_loc", "ctrl_locShape");
  expect_res("spaceLocator", "locator2");
  expect_res("listRelatives -s locator2", "locatorShape2");
  bad("spaceLocator locator1", "takes no objects", NULL);
  bad("spaceLocator -n \"bad name\"", "bad name", NULL);
}

/* listHistory: upstream (or -f downstream) along connections, a transform standing for its
 * shapes; the way scripts find a mesh's skinCluster. */
static void test_list_history(void **state) {
  (void)state;
  ok("polyCube -n box; select -cl; joint -n j1; joint -n j2 -p 0 1 0; select -cl; skinCluster -n sk j1 j2 box;");
  expect_res("ls -type skinCluster `listHistory box`", "sk");
  expect_res("listHistory -pdo 1 -lv 1 box", "sk");                 /* one step, DAG nodes pruned */
  expect_res("listHistory -lv 1 boxShape", "boxShape sk");           /* the node first */
  expect_res("listHistory -lv 2 -pdo 1 box", "sk bindPose1");        /* the Orig shape (DAG) is pruned */
  expect_res("ls -type joint `listHistory box`", "j1 j2");          /* the influences feed it */
  expect_res("ls -type skinCluster `listHistory -f 1 j1`", "sk");
  expect_res("listHistory -pdo 1 -f 1 j2", "sk bindPose1");          /* j1 -> j2 is DAG: pruned */
  bad("listHistory nosuch", "nosuch", NULL);
  bad("listHistory -lv -1 box", "-levels", NULL);
}

static void test_attribute_exists(void **state) {
  (void)state;
  ok("joint -n J; addAttr -ln foo -at double J");
  expect_res("attributeExists \"tx\" J", "1");
  expect_res("attributeExists \"translateX\" J", "1");
  expect_res("attributeExists \"jointOrient\" J", "1");
  expect_res("attributeExists \"foo\" J", "1");
  expect_res("attributeExists \"nope\" J", "0");
  /* a node that does not exist is 0, not an error (Maya's procedure) */
  expect_res("attributeExists \"tx\" nosuch", "0");
  expect_res("int $e = `attributeExists \"foo\" \"J\"`; $e + 1", "2");
  bad("attributeExists tx", "usage", NULL);
}

static void test_attribute_query(void **state) {
  (void)state;
  ok("joint -n J; addAttr -ln foo -at double -min -1 -max 5 -k 1 J; addAttr -ln mode -at \"enum\" -en \"a:b:c=5\" J");
  expect_res("attributeQuery -n J -ex foo", "1");
  expect_res("attributeQuery -n J -exists bar", "0");
  expect_res("attributeQuery -n J -lc translate", "translateX translateY translateZ");
  expect_res("attributeQuery -n J -listChildren tx", "");
  expect_res("attributeQuery -n J -lp tx", "translate");
  expect_res("attributeQuery -n J -at tx", "doubleLinear");
  expect_res("attributeQuery -n J -at rx", "doubleAngle");
  expect_res("attributeQuery -n J -at t", "double3");
  expect_res("attributeQuery -n J -at foo", "double");
  expect_res("attributeQuery -n J -at mode", "enum");
  expect_res("attributeQuery -n J -mne foo", "1");
  expect_res("attributeQuery -n J -mxe foo", "1");
  expect_res("attributeQuery -n J -mne tx", "0");
  expect_nums("attributeQuery -n J -min foo", 1, -1.0);
  expect_nums("attributeQuery -n J -max foo", 1, 5.0);
  expect_res("attributeQuery -n J -k foo", "1");
  expect_res("attributeQuery -n J -k tx", "1");
  expect_res("attributeQuery -n J -k mode", "0");
  expect_res("attributeQuery -n J -nn tx", "Translate X");
  expect_res("attributeQuery -n J -niceName segmentScaleCompensate", "Segment Scale Compensate");
  expect_res("attributeQuery -n J -ln tx", "translateX");
  expect_res("attributeQuery -n J -sn translateX", "tx");
  expect_res("attributeQuery -n J -le ro", "xyz:yzx:zxy:xzy:yxz:zyx");
  expect_res("attributeQuery -n J -le mode", "a:b:c=5");
  expect_res("attributeQuery -n J -nc t", "3");
  bad("attributeQuery -n J -min tx", "J.translateX", "minimum", NULL);
  bad("attributeQuery -n nosuch -ex tx", "nosuch", NULL);
  bad("attributeQuery -n J -at nope", "J", "nope", NULL);
  bad("attributeQuery -n J tx", "-exists", NULL);
  bad("attributeQuery -n J -ex -at tx", "one flag", NULL);
  bad("attributeQuery -ex tx", "-node", NULL);
  bad("attributeQuery -n J -le tx", "not an enum", NULL);
}

/* ---- makeIdentity ------------------------------------------------------------------------------ */

static void test_make_identity(void **state) {
  (void)state;
  /* A at (1, 2, 3), turned 90 about z, scaled 2; its child B at local (1, 0, 0) is world
   * (1, 2, 3) + (2, 0, 0) turned: (1, 4, 3). Frozen, both are identity and each pivot stays
   * where it was in the world. */
  ok("createNode transform -n A; setAttr A.t 1 2 3; setAttr A.rz 90; setAttr A.s 2 2 2;"
     "createNode transform -n B -p A; setAttr B.t 1 0 0");
  expect_nums("xform -q -ws -t B", 3, 1.0, 4.0, 3.0);
  ok("makeIdentity -apply true A");
  expect_nums("getAttr A.t", 3, 0.0, 0.0, 0.0);
  expect_nums("getAttr A.r", 3, 0.0, 0.0, 0.0);
  expect_nums("getAttr A.s", 3, 1.0, 1.0, 1.0);
  expect_nums("xform -q -rp A", 3, 1.0, 2.0, 3.0);
  expect_nums("xform -q -ws -sp A", 3, 1.0, 2.0, 3.0);
  expect_nums("getAttr B.t", 3, 0.0, 0.0, 0.0);
  expect_nums("xform -q -ws -rp B", 3, 1.0, 4.0, 3.0);
  /* -t only: translate frozen, rotation and scale kept */
  ok("createNode transform -n C; setAttr C.t 5 0 0; setAttr C.ry 30; makeIdentity -a 1 -t 1 C");
  expect_nums("getAttr C.t", 3, 0.0, 0.0, 0.0);
  expect_nums("getAttr C.r", 3, 0.0, 30.0, 0.0);
  expect_nums("xform -q -ws -rp C", 3, 5.0, 0.0, 0.0);
  /* without -apply the values are reset and the object moves */
  ok("createNode transform -n D; setAttr D.t 5 0 0; makeIdentity D");
  expect_nums("getAttr D.t", 3, 0.0, 0.0, 0.0);
  expect_nums("xform -q -ws -rp D", 3, 0.0, 0.0, 0.0);
}

static void test_make_identity_joints(void **state) {
  (void)state;
  /* J1 at the origin turned 90 about z and scaled 2; J2 at local (2, 0, 0) is world (0, 4, 0).
   * Freezing rotation puts it into jointOrient; freezing scale pushes it into J2's translate. */
  ok("joint -n J1 -p 0 0 0; joint -n J2 -p 2 0 0; select -cl; setAttr J1.rz 90; setAttr J1.s 2 2 2");
  expect_nums("xform -q -ws -t J2", 3, 0.0, 4.0, 0.0);
  ok("makeIdentity -a 1 -r 1 -s 1 J1");
  expect_nums("getAttr J1.r", 3, 0.0, 0.0, 0.0);
  expect_nums("getAttr J1.jo", 3, 0.0, 0.0, 90.0);
  expect_nums("getAttr J1.s", 3, 1.0, 1.0, 1.0);
  expect_nums("getAttr J2.t", 3, 4.0, 0.0, 0.0);
  expect_nums("xform -q -ws -t J2", 3, 0.0, 4.0, 0.0);
  /* -t does not apply to joints */
  ok("makeIdentity -a 1 -t 1 J1");
  expect_nums("getAttr J2.t", 3, 4.0, 0.0, 0.0);
  /* -jo: orientation aligned with the world, J2 kept in place */
  ok("makeIdentity -a 1 -jo J1");
  expect_nums("getAttr J1.jo", 3, 0.0, 0.0, 0.0);
  expect_nums("getAttr J2.t", 3, 0.0, 4.0, 0.0);
  expect_nums("xform -q -ws -t J2", 3, 0.0, 4.0, 0.0);
  /* without -apply: rotate reset, nothing kept */
  ok("joint -n K1 -p 0 0 0; joint -n K2 -p 2 0 0; select -cl; setAttr K1.rz 90; makeIdentity -r 1 K1");
  expect_nums("getAttr K1.r", 3, 0.0, 0.0, 0.0);
  expect_nums("getAttr K1.jo", 3, 0.0, 0.0, 0.0);
  expect_nums("xform -q -ws -t K2", 3, 2.0, 0.0, 0.0);
  /* bad input leaves everything as it was */
  ok("setAttr J1.rz 45; setAttr -lock 1 J2.jox");
  bad("makeIdentity -a 1 J1", "J2.jointOrientX", "locked", NULL);
  bad("makeIdentity -a 1 nosuch", "nosuch", NULL);
  bad("makeIdentity -a 1 time1", "time1", NULL);
  bad("makeIdentity -a 1 -n 1 J1", "-normal", NULL);
  ok("polyCube -n box");
  bad("makeIdentity -a 1 box", "box", "shapes", NULL);
}

/* Control curves: the freeze moves what the transform loses into the CVs (Maya applies it to
 * the geometry), so the curve stays where it was in the world. */
static void test_make_identity_curves(void **state) {
  (void)state;
  /* CVs (1, 0, 0) and (0, 1, 0) under t (1, 2, 3), rz 90, s 2: scaled (2, 0, 0) and (0, 2, 0),
   * turned (0, 2, 0) and (-2, 0, 0), moved (1, 4, 3) and (-1, 2, 3). */
  ok("curve -d 1 -p 1 0 0 -p 0 1 0 -n ctl; setAttr ctl.t 1 2 3; setAttr ctl.rz 90; setAttr ctl.s 2 2 2;"
     "createNode pointOnCurveInfo -n w0; connectAttr ctlShape.worldSpace[0] w0.inputCurve;"
     "createNode pointOnCurveInfo -n w1; connectAttr ctlShape.worldSpace[0] w1.inputCurve; setAttr w1.parameter 1;"
     "createNode pointOnCurveInfo -n l0; connectAttr ctlShape.local l0.inputCurve;"
     "createNode pointOnCurveInfo -n l1; connectAttr ctlShape.local l1.inputCurve; setAttr l1.parameter 1");
  expect_nums("getAttr w0.position", 3, 1.0, 4.0, 3.0);
  expect_nums("getAttr w1.position", 3, -1.0, 2.0, 3.0);
  char *before = snapshot();
  ok("makeIdentity -a 1 ctl");
  expect_nums("getAttr ctl.t", 3, 0.0, 0.0, 0.0);
  expect_nums("getAttr ctl.r", 3, 0.0, 0.0, 0.0);
  expect_nums("getAttr ctl.s", 3, 1.0, 1.0, 1.0);
  expect_nums("xform -q -ws -rp ctl", 3, 1.0, 2.0, 3.0);
  expect_nums("getAttr w0.position", 3, 1.0, 4.0, 3.0);
  expect_nums("getAttr w1.position", 3, -1.0, 2.0, 3.0);
  expect_nums("getAttr l0.position", 3, 1.0, 4.0, 3.0); /* the transform is now the identity */
  expect_nums("getAttr l1.position", 3, -1.0, 2.0, 3.0);
  ok("undo");
  expect_nums("getAttr l0.position", 3, 1.0, 0.0, 0.0);
  char *after = snapshot();
  assert_string_equal(before, after);
  free(before);
  free(after);
  /* -t only, a curve under a child transform: its CVs take the parent's translation only */
  ok("group -em -n grp; setAttr grp.t 0 5 0; setAttr grp.ry 90; parent ctl grp;"
     "setAttr ctl.t 0 0 0; setAttr ctl.r 0 0 0; setAttr ctl.s 1 1 1");
  expect_nums("getAttr w0.position", 3, 0.0, 5.0, -1.0);
  ok("makeIdentity -a 1 -t 1 grp");
  expect_nums("getAttr grp.t", 3, 0.0, 0.0, 0.0);
  expect_nums("getAttr grp.r", 3, 0.0, 90.0, 0.0);
  expect_nums("getAttr w0.position", 3, 0.0, 5.0, -1.0);
  expect_nums("getAttr l0.position", 3, 1.0, 5.0, 0.0); /* (1, 0, 0) + the 5 up, before the turn */
  /* a curve made by history would be recomputed from it: refused, nothing changed */
  ok("circle -n hist; setAttr hist.tx 4");
  bad("makeIdentity -a 1 hist", "histShape", "history", NULL);
  expect_nums("getAttr hist.t", 3, 4.0, 0.0, 0.0);
}

static void test_rename_attr(void **state) {
  (void)state;
  /* Maya's example: the long and short names separately */
  ok("createNode transform -n sph; addAttr -sn ms -ln mass -dv 1.0 -min 0.001 -max 10000 sph; setAttr sph.mass 5");
  ok("createNode transform -n T; connectAttr sph.mass T.tx");
  expect_res("renameAttr sph.mass length", "length");
  expect_res("attributeExists \"mass\" sph", "0");
  expect_res("attributeQuery -n sph -sn length", "ms");
  expect_res("renameAttr sph.ms ln", "ln");
  expect_res("attributeQuery -n sph -ln ln", "length");
  /* the value and the connection stay */
  expect_nums("getAttr sph.length", 1, 5.0);
  expect_res("listConnections -p 1 T.tx", "sph.length");
  /* a name used for both long and short follows a long-name rename */
  ok("addAttr -ln foo -at double sph");
  expect_res("renameAttr sph.foo bar", "bar");
  expect_res("attributeExists \"foo\" sph", "0");
  bad("renameAttr sph.tx moveX", "sph.translateX", "user-defined", NULL);
  bad("renameAttr sph.length bar", "sph", "bar", NULL);
  bad("renameAttr sph.length \"9x\"", "9x", NULL);
  bad("renameAttr sph.nope x", "nope", NULL);
  bad("renameAttr nosuch.length x", "nosuch", NULL);
  bad("renameAttr sph x", "node.attribute", NULL);
}

/* ---- a script as a rig author writes it ------------------------------------------------------- */

static void test_arm_script(void **state) {
  (void)state;
  /* A shoulder at (0, 15, 0), elbow at (5, 15, -1), wrist at (10, 15, 0); a control at the
   * wrist in an offset group; the arm turned down 30 degrees and frozen into jointOrient. */
  ok("string $sh = `joint -n L_shoulder -p 0 15 0`;\n"
     "joint -n L_elbow -p 5 15 -1;\n"
     "joint -n L_wrist -p 10 15 0;\n"
     "select -cl;\n"
     "string $ctrl = `group -em -n L_wrist_ctrl`;\n"
     "string $grp = `group -n ($ctrl + \"_grp\") $ctrl`;\n"
     "float $p[] = `xform -q -ws -t L_wrist`;\n"
     "xform -ws -t $p[0] $p[1] $p[2] $grp;\n"
     "if (`objectType -isAType transform $grp` && `attributeExists \"tx\" $grp`)\n"
     "  move -r 0 1 0 $grp;\n"
     "rotate -r -os 0 0 -30 $sh;\n"
     "makeIdentity -apply true -rotate true $sh;\n"
     "makeIdentity -apply true -t 1 -r 1 -s 1 $grp;\n");
  /* the wrist: (10, 0, 0) from the shoulder turned -30 about z is (10 cos 30, -10 sin 30, 0) */
  double c30 = cos(30.0 * 3.14159265358979323846 / 180.0);
  expect_nums("xform -q -ws -t L_wrist", 3, 10 * c30, 10.0, 0.0);
  /* the elbow: (5, 0, -1) turned: (5 cos 30, -2.5, -1) */
  expect_nums("xform -q -ws -t L_elbow", 3, 5 * c30, 12.5, -1.0);
  expect_nums("getAttr L_shoulder.r", 3, 0.0, 0.0, 0.0);
  expect_nums("getAttr L_shoulder.jo", 3, 0.0, 0.0, -30.0);
  /* the control group was placed at the wrist before the turn, one up, then frozen: its
   * values are zero and its pivot (and the control's) stays at (10, 16, 0) */
  expect_nums("getAttr L_wrist_ctrl_grp.t", 3, 0.0, 0.0, 0.0);
  expect_nums("xform -q -ws -rp L_wrist_ctrl_grp", 3, 10.0, 16.0, 0.0);
  expect_nums("xform -q -ws -rp L_wrist_ctrl", 3, 10.0, 16.0, 0.0);
  expect_res("listRelatives -p L_wrist_ctrl", "L_wrist_ctrl_grp");
}

/* ---- out of memory ---------------------------------------------------------------------------- */

/* Runs `command` on the scene `setup` makes with each allocation in turn failing: a failure
 * leaves the saved scene exactly as it was, and nothing leaks (the harness in tests/support.c). */
static void oom_loop(const char *setup_script, const char *command) {
  if (test_fault(setup_script, command) == 0) fail_msg("%s: no failing allocation made it fail", command);
}

static void test_out_of_memory(void **state) {
  (void)state;
  const char *scene = "createNode transform -n P; setAttr P.tx 10; setAttr P.ry 90;"
                      "createNode transform -n C -p P; setAttr C.t 1 2 3; createNode transform -n D -p P;"
                      "joint -n J1 -p 0 0 0; joint -n J2 -p 2 0 0; select -cl; setAttr J1.rz 90;"
                      "addAttr -ln foo -at double C;";
  /* group of one object (with several, running out of memory while parenting the second leaves
   * the first with its unchanged rotate / scale / shear marked as set: the same values, but
   * written to a saved file) */
  oom_loop(scene, "group -n G C");
  oom_loop(scene, "duplicate -n P2 P");
  oom_loop(scene, "duplicate -ic J2");
  oom_loop(scene, "sets -n S C J1 J2");
  oom_loop(scene, "pickWalk -d left C");
  oom_loop(scene, "spaceLocator -n L -p 1 2 3");
  oom_loop(scene, "listHistory -f 1 J1");
  oom_loop("createNode transform -n C; joint -n J1; joint -n J2; sets -n S2 -em; sets -add S2 C", "sets -add S2 J1 J2");
  oom_loop(scene, "group -em -n E -p P");
  /* edits of values that already hold one (a value set back is still marked as set, so an edit
   * that runs out of memory after changing a value never set before leaves it written out) */
  oom_loop(scene, "xform -ws -t 4 5 6 C");
  oom_loop(scene, "move -r 1 0 0 C");
  oom_loop(scene, "xform -q -ws -m C");
  oom_loop(scene, "renameAttr C.foo bar");
  oom_loop(scene, "attributeQuery -n J1 -le ro");
}

/* A leg as a setup script builds it: a chain oriented with the form rig scripts use, a locator
 * at the ankle parented under a foot control in an offset group, the hip turned and frozen,
 * everything put under a leg group and moved. Each world position is worked out by hand: the
 * orient makes the hip's x axis the bone to the knee, (0, -5, 1) / sqrt 26, its y axis leaning
 * to world z, (0, 1, 5) / sqrt 26, and z = x cross y = (-1, 0, 0); turning 30 degrees about that
 * z is turning -30 degrees about world x. */
static void test_leg_script(void **state) {
  (void)state;
  ok("select -cl;\n"
     "string $hip = `joint -n L_hip -p 2 10 0`;\n"
     "joint -n L_knee -p 2 5 1;\n"
     "joint -n L_ankle -p 2 1 0;\n"
     "joint -n L_ball -p 2 0 2;\n"
     "joint -e -oj xyz -sao zup -ch -zso $hip;\n");
  double r26 = sqrt(26.0);
  expect_nums("xform -q -ws -m L_hip", 16, 0.0, -5 / r26, 1 / r26, 0.0, 0.0, 1 / r26, 5 / r26, 0.0, -1.0, 0.0, 0.0,
              0.0, 2.0, 10.0, 0.0, 1.0);
  /* orienting moves nothing */
  expect_nums("xform -q -ws -t L_knee", 3, 2.0, 5.0, 1.0);
  expect_nums("xform -q -ws -t L_ball", 3, 2.0, 0.0, 2.0);
  ok("select -cl;\n"
     "string $loc[] = `spaceLocator -n L_ankle_loc`;\n"
     "float $a[] = `xform -q -ws -t L_ankle`;\n"
     "xform -ws -t $a[0] $a[1] $a[2] $loc[0];\n"
     "string $c[] = `circle -n L_foot_ctrl -nr 0 1 0 -r 2`;\n"
     "string $g = `group -n L_foot_ctrl_grp $c[0]`;\n"
     "xform -ws -t $a[0] 0 $a[2] $g;\n"
     "parent $loc[0] $c[0];\n"
     "move -r 0 0 3 $c[0];\n"
     "rotate -r -os 0 0 30 L_hip;\n"
     "makeIdentity -a 1 -r 1 L_hip;\n"
     "string $leg = `group -em -n L_leg_grp`;\n"
     "parent L_hip $g $leg;\n"
     "move -r 1 0 0 $leg;\n");
  double c = cos(30.0 * 3.14159265358979323846 / 180.0);
  /* the locator: the ankle (2, 1, 0), 3 along z with the control, 1 along x with the leg */
  expect_nums("getAttr L_ankle_loc.t", 3, 0.0, 1.0, 0.0);
  expect_nums("xform -q -ws -t L_ankle_loc", 3, 3.0, 1.0, 3.0);
  expect_nums("getAttr L_ankle_locShape.worldPosition", 3, 3.0, 1.0, 3.0);
  /* the chain: (0, y, z) from the hip turned -30 degrees about x is (0, y c + z / 2, -y / 2 + z c) */
  expect_nums("getAttr L_hip.r", 3, 0.0, 0.0, 0.0);
  expect_nums("xform -q -ws -t L_hip", 3, 3.0, 10.0, 0.0);
  expect_nums("xform -q -ws -t L_knee", 3, 3.0, 10 - 5 * c + 0.5, 2.5 + c);
  expect_nums("xform -q -ws -t L_ankle", 3, 3.0, 10 - 9 * c, 4.5);
  expect_nums("xform -q -ws -t L_ball", 3, 3.0, 10 - 10 * c + 1, 5 + 2 * c);
  expect_nums("xform -q -ws -m L_hip", 16, 0.0, (-5 * c + 0.5) / r26, (2.5 + c) / r26, 0.0, 0.0, (c + 2.5) / r26,
              (5 * c - 0.5) / r26, 0.0, -1.0, 0.0, 0.0, 0.0, 3.0, 10.0, 0.0, 1.0);
  expect_res("listRelatives -c L_leg_grp", "L_hip L_foot_ctrl_grp");
  expect_res("listRelatives -p L_ankle_loc", "L_foot_ctrl");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_xform_translation, setup, teardown),
      cmocka_unit_test_setup_teardown(test_xform_rotation_scale_shear, setup, teardown),
      cmocka_unit_test_setup_teardown(test_xform_matrix, setup, teardown),
      cmocka_unit_test_setup_teardown(test_xform_pivots, setup, teardown),
      cmocka_unit_test_setup_teardown(test_xform_bounding_box, setup, teardown),
      cmocka_unit_test_setup_teardown(test_xform_bad, setup, teardown),
      cmocka_unit_test_setup_teardown(test_move, setup, teardown),
      cmocka_unit_test_setup_teardown(test_rotate_scale, setup, teardown),
      cmocka_unit_test_setup_teardown(test_group, setup, teardown),
      cmocka_unit_test_setup_teardown(test_make_identity, setup, teardown),
      cmocka_unit_test_setup_teardown(test_make_identity_joints, setup, teardown),
      cmocka_unit_test_setup_teardown(test_object_type, setup, teardown),
      cmocka_unit_test_setup_teardown(test_shading_node, setup, teardown),
      cmocka_unit_test_setup_teardown(test_duplicate, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sets, setup, teardown),
      cmocka_unit_test_setup_teardown(test_pick_walk, setup, teardown),
      cmocka_unit_test_setup_teardown(test_space_locator, setup, teardown),
      cmocka_unit_test_setup_teardown(test_list_history, setup, teardown),
      cmocka_unit_test_setup_teardown(test_attribute_exists, setup, teardown),
      cmocka_unit_test_setup_teardown(test_attribute_query, setup, teardown),
      cmocka_unit_test_setup_teardown(test_make_identity_curves, setup, teardown),
      cmocka_unit_test_setup_teardown(test_rename_attr, setup, teardown),
      cmocka_unit_test_setup_teardown(test_arm_script, setup, teardown),
      cmocka_unit_test_setup_teardown(test_leg_script, setup, teardown),
      cmocka_unit_test_setup_teardown(test_out_of_memory, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
