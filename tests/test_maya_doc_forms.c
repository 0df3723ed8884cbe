/* tests/test_maya_doc_forms.c: the commands rig scripts use most, in the forms Autodesk's
 * documentation gives them (its MEL examples, adapted to scenes each test builds): select, ls,
 * listRelatives, listConnections, getAttr, setAttr, addAttr, attributeQuery, objExists,
 * nodeType, rename, delete (and delete -ch), parent and xform; then the type every other
 * command of docs/commands.md returns, and the everyday commands' bad input. Each result is
 * checked with the type Maya
 * documents (string[] against string against int, as `string $r[] = `cmd ...`;` needs), and
 * bad input (an unknown flag, an argument of the wrong type, a missing object) fails with the
 * file, line and command in its message and leaves the scene exactly as it was (compared as
 * the .ma text the writer makes of it, and the selection). */
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

/* The result of `text` has Maya's documented type (`kind`: "string[]", "int", "string", ...,
 * "none" for a command that returns nothing) and formats as `want` (array elements joined by
 * spaces). */
static void expect_typed(const char *text, const char *kind, const char *want) {
  sinew_value_t v = {0};
  int rc = sinew_session_run(S, text, strlen(text), "test.mel", &v);
  if (rc) fail_msg("%s\n  failed: %s", text, sinew_session_errmsg(S));
  const char *got_kind = v.kind == SINEW_VALUE_NONE ? "none" : sinew_value_kind_name((sinew_value_kind_t)v.kind);
  const char *got = test_value_text(&v);
  sinew_value_clear(&v);
  if (strcmp(got_kind, kind) != 0) fail_msg("%s\n  returned a %s, want a %s", text, got_kind, kind);
  if (strcmp(got, want) != 0) fail_msg("%s\n  gave '%s'\n  want '%s'", text, got, want);
}

/* The selection, names joined by spaces. */
static const char *selection(void) { return res("ls -sl"); }

/* The scene most examples use: group1 holding two objects with a mesh shape each, and a loose
 * locator-like transform. */
static void scene(void) {
  ok("createNode transform -n group1;"
     "createNode transform -n sphere1 -p group1; createNode mesh -n sphereShape1 -p sphere1;"
     "createNode transform -n sphere2 -p group1; createNode mesh -n sphereShape2 -p sphere2;"
     "createNode transform -n cone1; select -cl;");
}

/* ---- select ---------------------------------------------------------------------------------- */

/* select: "undoable, NOT queryable"; returns nothing. Without -add/-af/-r/-d/-tgl it replaces. */
static void test_select(void **state) {
  (void)state;
  scene();
  expect_typed("select sphere1", "none", "");
  assert_string_equal(selection(), "sphere1");
  ok("select -r sphere2");
  assert_string_equal(selection(), "sphere2");
  ok("select -add sphere1 cone1");
  assert_string_equal(selection(), "sphere2 sphere1 cone1");
  ok("select -d sphere1");
  assert_string_equal(selection(), "sphere2 cone1");
  /* -tgl: selected objects go off the list, the others come on */
  ok("select -tgl sphere2 sphere1");
  assert_string_equal(selection(), "cone1 sphere1");
  ok("select -cl");
  assert_string_equal(selection(), "");
  /* wildcards, as in the documentation's 'select -r "foo*"' */
  ok("select -r \"sphere?\"");
  assert_string_equal(selection(), "sphere1 sphere2");
  /* -hi: the objects and every DAG node below them */
  ok("select -hi group1");
  assert_string_equal(selection(), "group1 sphere1 sphereShape1 sphere2 sphereShape2");
  /* -hi down a deep chain (walked without recursion) */
  ok("string $p = \"cone1\"; for ($i = 0; $i < 3000; $i++) $p = `createNode transform -p $p`; select -hi cone1;");
  ok("string $s[] = `ls -sl`; if (size($s) != 3001 || $s[0] != \"cone1\") error (\"selected \" + size($s));");
  ok("delete `listRelatives -c cone1`; select -cl");
  /* a set stands for its members; -ne selects the set itself */
  ok("sets -n set1 sphere1 cone1; select -cl");
  ok("select set1");
  assert_string_equal(selection(), "sphere1 cone1");
  ok("select -ne set1");
  assert_string_equal(selection(), "set1");
  ok("select -r sphere2; select -add set1");
  assert_string_equal(selection(), "sphere2 sphere1 cone1");
  ok("select -d set1");
  assert_string_equal(selection(), "sphere2");
  ok("delete set1");
  /* an object named twice is selected once */
  ok("select sphere1 sphere1");
  assert_string_equal(selection(), "sphere1");
}

/* The flags scripts use beyond the five modes: -af puts the objects at the head of the list
 * (moving those already on it), -ado selects the DAG's top-level objects, -adn the nodes
 * outside the DAG, -all both (the deletable ones: not time1), -vis keeps what shows. */
static void test_select_more(void **state) {
  (void)state;
  scene();
  ok("createNode multiplyDivide -n md1; select -cl");
  ok("select sphere1 cone1");
  expect_typed("select -af sphere2", "none", "");
  assert_string_equal(selection(), "sphere2 sphere1 cone1");
  ok("select -af cone1 group1");
  assert_string_equal(selection(), "cone1 group1 sphere2 sphere1");
  expect_typed("select -ado", "none", "");
  assert_string_equal(selection(), "group1 cone1");
  ok("select -adn");
  assert_string_equal(selection(), "md1");
  ok("select -all");
  assert_string_equal(selection(), "group1 sphere1 sphereShape1 sphere2 sphereShape2 cone1 md1");
  ok("select -r sphere1; select -add -adn");
  assert_string_equal(selection(), "sphere1 md1");
  ok("select -d -adn");
  assert_string_equal(selection(), "sphere1");
  /* -vis: a hidden node, or one under a hidden parent, is left out */
  ok("setAttr sphere2.v 0; setAttr cone1.v 0");
  ok("select -vis sphere1 sphere2 sphereShape2 cone1 md1");
  assert_string_equal(selection(), "sphere1 md1");
  ok("select -vis -ado");
  assert_string_equal(selection(), "group1");
  ok("setAttr group1.v 0; select -vis -hi group1");
  assert_string_equal(selection(), "");
  ok("select -cl");
  assert_string_equal(selection(), "");
}

static void test_select_bad(void **state) {
  (void)state;
  scene();
  ok("select sphere1");
  bad("select -add -af sphere2", "-addFirst", NULL);
  bad("select -ado sphere2", "-allDagObjects", "takes no objects", NULL);
  bad("select -cl sphere2", "-clear", NULL);
  bad("select -af nosuch", "nosuch", NULL);
  bad("select -sym sphere2", "unknown flag -sym", NULL);
  bad("select nosuch", "nosuch", NULL);
  bad("select sphere2 nosuch", "nosuch", NULL);
  bad("select -frob sphere2", "unknown flag -frob", NULL);
  bad("select -r \"nothing*\"", "nothing*", NULL);
}

/* ---- ls -------------------------------------------------------------------------------------- */

static void test_ls(void **state) {
  (void)state;
  scene();
  expect_typed("ls \"sphere*\"", "string[]", "sphere1 sphereShape1 sphere2 sphereShape2");
  expect_typed("ls \"sphere?\"", "string[]", "sphere1 sphere2");
  expect_typed("ls -type mesh", "string[]", "sphereShape1 sphereShape2");
  expect_typed("ls -type mesh -type transform \"sphere*\"", "string[]", "sphere1 sphereShape1 sphere2 sphereShape2");
  expect_typed("ls -et transform \"*1\"", "string[]", "group1 sphere1 cone1");
  expect_typed("ls -l -type mesh", "string[]", "|group1|sphere1|sphereShape1 |group1|sphere2|sphereShape2");
  expect_typed("ls -s", "string[]", "sphereShape1 sphereShape2");
  expect_typed("ls -tr \"s*\"", "string[]", "sphere1 sphere2");
  expect_typed("ls -st \"*Shape1\"", "string[]", "sphereShape1 mesh");
  /* a short name two DAG nodes share: the shortest unique name ("By default the shortest
   * unique name is returned"), the full path with -l, the short name with -sn */
  ok("createNode transform -n sphere1 -p cone1");
  expect_typed("ls -type transform \"*|sphere1\"", "string[]", "group1|sphere1 cone1|sphere1");
  expect_typed("ls -l -type transform \"*|sphere1\"", "string[]", "|group1|sphere1 |cone1|sphere1");
  expect_typed("listRelatives -c cone1", "string[]", "cone1|sphere1");
  ok("createNode transform -n sphere1 -p \"cone1|sphere1\"");
  expect_typed("listRelatives -ad cone1", "string[]", "sphere1|sphere1 cone1|sphere1");
  ok("delete \"cone1|sphere1|sphere1\"");
  expect_typed("ls -sn -type transform \"*|sphere1\"", "string[]", "sphere1 sphere1");
  ok("delete \"|cone1|sphere1\"");
  ok("select sphere2 cone1");
  expect_typed("ls -sl", "string[]", "sphere2 cone1");
  /* nothing matches: an empty string array, not an error */
  expect_typed("ls \"nothing*\"", "string[]", "");
  ok("string $r[] = `ls -sl`; if (size($r) != 2) error \"size\";");
}

static void test_ls_bad(void **state) {
  (void)state;
  scene();
  bad("ls -frob", "unknown flag -frob", NULL);
  bad("ls -type", "-type", NULL);
}

/* ---- listRelatives --------------------------------------------------------------------------- */

static void test_list_relatives(void **state) {
  (void)state;
  scene();
  expect_typed("listRelatives group1", "string[]", "sphere1 sphere2");
  expect_typed("listRelatives -c group1", "string[]", "sphere1 sphere2");
  /* "Note that it lists grand-children before children." */
  expect_typed("listRelatives -ad group1", "string[]", "sphereShape2 sphere2 sphereShape1 sphere1");
  expect_typed("listRelatives -ad -type mesh group1", "string[]", "sphereShape2 sphereShape1");
  /* -s with -ad: the shapes among the descendants, as scripts use it */
  expect_typed("listRelatives -ad -s group1", "string[]", "sphereShape2 sphereShape1");
  expect_typed("listRelatives -s sphere1", "string[]", "sphereShape1");
  expect_typed("listRelatives -p sphere1", "string[]", "group1");
  expect_typed("listRelatives -ap sphereShape1", "string[]", "sphere1");
  expect_typed("listRelatives -f -p sphereShape1", "string[]", "|group1|sphere1");
  expect_typed("listRelatives -f -c sphere1", "string[]", "|group1|sphere1|sphereShape1");
  expect_typed("listRelatives -pa -c group1", "string[]", "sphere1 sphere2");
  /* "When listing parents of objects directly under the world, the command will return an
   * empty parent list." */
  expect_typed("listRelatives -p group1", "string[]", "");
  expect_typed("listRelatives cone1", "string[]", "");
  ok("setAttr sphereShape2.io 1");
  expect_typed("listRelatives -s -ni sphere2", "string[]", "");
  expect_typed("listRelatives -s sphere2", "string[]", "sphereShape2");
  /* the selection when no object is given */
  ok("select sphere1 sphere2");
  expect_typed("listRelatives -s", "string[]", "sphereShape1 sphereShape2");
}

static void test_list_relatives_bad(void **state) {
  (void)state;
  scene();
  /* "The flags -c/children, -ad/allDescendents, -s/shapes, -p/parent and -ap/allParents are
   * mutually exclusive." */
  bad("listRelatives -c -p sphere1", "-children", "-parent", NULL);
  bad("listRelatives -ad -p sphere1", "-allDescendents", "-parent", NULL);
  bad("listRelatives -p -s sphere1", "-parent", "-shapes", NULL);
  bad("listRelatives -frob sphere1", "unknown flag -frob", NULL);
  bad("listRelatives nosuch", "nosuch", NULL);
}

/* ---- listConnections ------------------------------------------------------------------------- */

/* sphere1.tx is driven by a curve-like node; sphereShape1.inMesh by a creation node. */
static void connection_scene(void) {
  scene();
  ok("createNode transform -n driver; addAttr -ln out -at double driver;"
     "connectAttr driver.out sphere1.tx; connectAttr driver.out sphere2.ty;"
     "createNode mesh -n src -p cone1; connectAttr src.outMesh sphereShape1.inMesh;"
     "createNode transform -n rotDriver; connectAttr rotDriver.rx sphere1.tz;");
}

static void test_list_connections(void **state) {
  (void)state;
  connection_scene();
  expect_typed("listConnections driver", "string[]", "sphere1 sphere2");
  expect_typed("listConnections sphere1.tx", "string[]", "driver");
  expect_typed("listConnections -d off -s on sphere1", "string[]", "driver unitConversion1");
  expect_typed("listConnections -s off sphere1", "string[]", "");
  expect_typed("listConnections -p on driver", "string[]", "sphere1.translateX sphere2.translateY");
  expect_typed("listConnections -c on driver", "string[]", "driver.out sphere1 driver.out sphere2");
  expect_typed("listConnections -c on -p on sphere1.tx", "string[]", "sphere1.translateX driver.out");
  expect_typed("listConnections -t transform src", "string[]", "");
  /* a shape's connections give its transform's name unless -sh (Maya's -shapes) */
  expect_typed("listConnections sphereShape1", "string[]", "cone1");
  expect_typed("listConnections -sh on sphereShape1", "string[]", "src");
  expect_typed("listConnections -sh on -p on sphereShape1", "string[]", "src.outMesh");
  expect_typed("listConnections -t mesh src", "string[]", "sphere1");
  expect_typed("listConnections -t mesh -sh on src", "string[]", "sphereShape1");
  /* -scn: through the unitConversion Maya puts between an angle and a distance */
  expect_typed("listConnections -scn on sphere1.tz", "string[]", "rotDriver");
  expect_typed("listConnections -scn on -p on sphere1.tz", "string[]", "rotDriver.rotateX");
  expect_typed("listConnections -t transform -et on sphere1", "string[]", "driver");
  expect_typed("listConnections -t dagNode -et on sphere1", "string[]", "");
  /* nothing connected: an empty string array */
  expect_typed("listConnections cone1", "string[]", "");
  /* a node whose short name is shared: its shortest unique name, plugs too */
  ok("createNode transform -n sphere1 -p cone1; connectAttr driver.out \"cone1|sphere1.tx\"");
  expect_typed("listConnections -p on driver", "string[]",
               "group1|sphere1.translateX sphere2.translateY cone1|sphere1.translateX");
  expect_typed("listConnections -c on -p on \"cone1|sphere1\"", "string[]", "cone1|sphere1.translateX driver.out");
  expect_typed("listConnections driver", "string[]", "group1|sphere1 sphere2 cone1|sphere1");
  /* -fnn (-fullNodeName): full DAG paths, plugs and -c's plugs too; a DG node by its name */
  expect_typed("listConnections -fnn on driver", "string[]", "|group1|sphere1 |group1|sphere2 |cone1|sphere1");
  expect_typed("listConnections -fnn on -p on -c on sphere2", "string[]",
               "|group1|sphere2.translateY |driver.out");
  ok("createNode multiplyDivide -n md; connectAttr md.ox \"cone1|sphere1.sx\"");
  expect_typed("listConnections -fnn on -d off \"cone1|sphere1\"", "string[]", "|driver md");
  expect_typed("listConnections -fnn off driver", "string[]", "group1|sphere1 sphere2 cone1|sphere1");
}

static void test_list_connections_bad(void **state) {
  (void)state;
  connection_scene();
  bad("listConnections nosuch", "nosuch", NULL);
  bad("listConnections sphere1.nosuch", "nosuch", NULL);
  bad("listConnections -frob sphere1", "unknown flag -frob", NULL);
  bad("listConnections -s maybe sphere1", "maybe", NULL);
  bad("listConnections -fnn maybe sphere1", "maybe", NULL);
}

/* ---- getAttr / setAttr ----------------------------------------------------------------------- */

static void test_get_set_attr(void **state) {
  (void)state;
  scene();
  /* setAttr returns nothing */
  expect_typed("setAttr sphere1.translateX 5", "none", "");
  expect_typed("getAttr sphere1.translateX", "float", "5");
  ok("setAttr sphere1.translate 1 2 3");
  /* a double3 comes back as a float[] (MEL: float $t[] = `getAttr sphere1.t`) */
  expect_typed("getAttr sphere1.t", "float[]", "1 2 3");
  ok("float $t[] = `getAttr sphere1.t`; if ($t[2] != 3) error \"t\";");
  ok("setAttr -type double3 sphere1.s 2 2 2");
  expect_typed("getAttr sphere1.sy", "float", "2");
  expect_typed("getAttr sphere1.v", "int", "1");
  expect_typed("getAttr -type sphere1.t", "string", "double3");
  expect_typed("getAttr -type sphere1.tx", "string", "doubleLinear");
  expect_typed("getAttr -type sphere1.v", "string", "bool");
  ok("setAttr -lock on sphere1.tx");
  expect_typed("getAttr -lock sphere1.tx", "int", "1");
  expect_typed("getAttr -l sphere1.ty", "int", "0");
  ok("setAttr -k off sphere1.ty");
  expect_typed("getAttr -k sphere1.ty", "int", "0");
  expect_typed("getAttr -k sphere1.tz", "int", "1");
  ok("setAttr -cb on sphere1.ty");
  expect_typed("getAttr -cb sphere1.ty", "int", "1");
  expect_typed("getAttr -se sphere1.tx", "int", "0");
  expect_typed("getAttr -se sphere1.tz", "int", "1");
  ok("addAttr -ln label -dt \"string\" sphere1; setAttr -type \"string\" sphere1.label \"left arm\"");
  expect_typed("getAttr sphere1.label", "string", "left arm");
  ok("addAttr -ln mode -at \"enum\" -en \"off:on:auto\" sphere1; setAttr sphere1.mode 2");
  expect_typed("getAttr sphere1.mode", "int", "2");
  expect_typed("getAttr -as sphere1.mode", "string", "auto");
  ok("addAttr -ln w -at double -m sphere1; setAttr sphere1.w[0] 1; setAttr sphere1.w[3] 4");
  /* -size counts the elements there are, as MPlug::numElements; -mi gives their indices */
  expect_typed("getAttr -s sphere1.w", "int", "2");
  expect_typed("getAttr -mi sphere1.w", "int[]", "0 3");
  expect_typed("getAttr sphere1.w[3]", "float", "4");
  /* data arrays: their items, typed as Maya returns them; -type gives the data type */
  ok("addAttr -ln names -dt stringArray sphere1; setAttr sphere1.names -type stringArray 2 \"a\" \"b c\"");
  expect_typed("getAttr sphere1.names", "string[]", "a b c");
  ok("string $n[] = `getAttr sphere1.names`; if (size($n) != 2 || $n[1] != \"b c\") error \"names\";");
  expect_typed("getAttr -type sphere1.names", "string", "stringArray");
  ok("addAttr -ln weights -dt doubleArray sphere1; setAttr sphere1.weights -type doubleArray 3 0.5 1 2");
  expect_typed("getAttr sphere1.weights", "float[]", "0.5 1 2");
  expect_typed("getAttr -type sphere1.weights", "string", "doubleArray");
  /* -size: 1 for an attribute that is not a multi */
  expect_typed("getAttr -s sphere1.weights", "int", "1");
  expect_typed("getAttr -s sphere1.tx", "int", "1");
  /* the world matrix: a matrix comes back as float[16] */
  expect_typed("getAttr group1.wm", "float[]", "1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1");
}

static void test_get_set_attr_bad(void **state) {
  (void)state;
  scene();
  ok("setAttr -lock on sphere1.tx");
  bad("setAttr sphere1.tx 1", "sphere1.translateX", "locked", NULL);
  bad("setAttr sphere1.ty abc", "sphere1.ty", "abc", NULL);
  bad("setAttr sphere1.nosuch 1", "sphere1.nosuch", NULL);
  bad("setAttr nosuch.tx 1", "nosuch", NULL);
  bad("setAttr -frob sphere1.ty 1", "unknown flag -frob", NULL);
  bad("setAttr -type double3 sphere1.t 1 2", "sphere1.translate", NULL);
  bad("getAttr sphere1.nosuch", "sphere1.nosuch", NULL);
  bad("getAttr nosuch.tx", "nosuch", NULL);
  bad("getAttr -frob sphere1.tx", "unknown flag -frob", NULL);
}

/* ---- addAttr / attributeQuery ---------------------------------------------------------------- */

static void test_add_attr(void **state) {
  (void)state;
  scene();
  /* the documentation's forms */
  expect_typed("addAttr -ln mass -at double sphere1", "none", "");
  ok("addAttr -ln ll -at long -min 0 -max 5 -dv 2 sphere1");
  expect_typed("getAttr sphere1.ll", "int", "2");
  ok("addAttr -ln sampson -numberOfChildren 2 -attributeType compound sphere1;"
     "addAttr -ln homeboy -at matrix -parent sampson sphere1;"
     "addAttr -ln midge -at message -parent sampson sphere1;");
  expect_typed("attributeQuery -n sphere1 -lc sampson", "string[]", "homeboy midge");
  ok("addAttr -ln pos -at double3 sphere1; addAttr -ln posX -at double -p pos sphere1;"
     "addAttr -ln posY -at double -p pos sphere1; addAttr -ln posZ -at double -p pos sphere1;");
  expect_typed("getAttr -type sphere1.pos", "string", "double3");
  ok("addAttr -ln stringAttr -dt \"string\" sphere1");
  expect_typed("getAttr -type sphere1.stringAttr", "string", "string");
  ok("addAttr -ln floatArr -dt doubleArray sphere1");
  /* the selection when no object is given */
  ok("select sphere2; addAttr -ln fromSel -at bool");
  expect_typed("attributeQuery -n sphere2 -ex fromSel", "int", "1");
  /* query mode */
  expect_typed("addAttr -q -ex -ln mass sphere1", "int", "1");
  expect_typed("addAttr -q -dv sphere1.ll", "float", "2");
  expect_typed("addAttr -q -min sphere1.ll", "float", "0");
  expect_typed("addAttr -q -max sphere1.ll", "float", "5");
  expect_typed("addAttr -q -at sphere1.ll", "string", "long");
  expect_typed("addAttr -q -nn sphere1.ll", "string", "Ll");
  expect_typed("addAttr -q -dt sphere1.stringAttr", "string[]", "string");
  expect_typed("addAttr -q -k sphere1.ll", "int", "0");
  ok("addAttr -ln ctl -at double -k on sphere1");
  expect_typed("addAttr -q -k sphere1.ctl", "int", "1");
}

static void test_add_attr_bad(void **state) {
  (void)state;
  scene();
  ok("addAttr -ln mass -at double sphere1");
  bad("addAttr -ln mass -at double sphere1", "mass", NULL);
  bad("addAttr -ln tx -at double sphere1", "tx", NULL);
  bad("addAttr -ln x -at nosuchtype sphere1", "nosuchtype", NULL);
  bad("addAttr -ln x -at double nosuch", "nosuch", NULL);
  bad("addAttr -ln x -at double -min abc sphere1", "-minValue", "abc", NULL);
  bad("addAttr -ln x -frob sphere1", "unknown flag -frob", NULL);
  bad("addAttr -q -dv sphere1.nosuch", "sphere1.nosuch", "no such attribute", NULL);
  bad("addAttr -q -min sphere1.mass", "sphere1.mass", "minValue", NULL);
}

static void test_attribute_query(void **state) {
  (void)state;
  scene();
  ok("addAttr -ln ll -at long -min 0 -max 5 -dv 2 -k on sphere1;"
     "addAttr -ln mode -at \"enum\" -en \"off:on:auto\" sphere1;");
  expect_typed("attributeQuery -node sphere1 -exists ll", "int", "1");
  expect_typed("attributeQuery -n sphere1 -ex nosuch", "int", "0");
  expect_typed("attributeQuery -n sphere1 -ex tx", "int", "1");
  expect_typed("attributeQuery -n sphere1 -k ll", "int", "1");
  expect_typed("attributeQuery -n sphere1 -at ll", "string", "long");
  expect_typed("attributeQuery -n sphere1 -at tx", "string", "doubleLinear");
  expect_typed("attributeQuery -n sphere1 -at translate", "string", "double3");
  expect_typed("attributeQuery -n sphere1 -mne ll", "int", "1");
  expect_typed("attributeQuery -n sphere1 -min ll", "float[]", "0");
  expect_typed("attributeQuery -n sphere1 -max ll", "float[]", "5");
  expect_typed("attributeQuery -n sphere1 -le mode", "string[]", "off:on:auto");
  expect_typed("attributeQuery -n sphere1 -lc translate", "string[]", "translateX translateY translateZ");
  expect_typed("attributeQuery -n sphere1 -lp tx", "string[]", "translate");
  expect_typed("attributeQuery -n sphere1 -sn translateX", "string", "tx");
  expect_typed("attributeQuery -n sphere1 -ln tx", "string", "translateX");
  expect_typed("attributeQuery -n sphere1 -nn translateX", "string", "Translate X");
}

static void test_attribute_query_bad(void **state) {
  (void)state;
  scene();
  bad("attributeQuery -n nosuch -ex tx", "nosuch", NULL);
  bad("attributeQuery -n sphere1 -at nosuch", "nosuch", NULL);
  bad("attributeQuery -n sphere1 -frob tx", "unknown flag -frob", NULL);
  bad("attributeQuery -ex tx", "-node", NULL);
}

/* ---- objExists / nodeType -------------------------------------------------------------------- */

static void test_obj_exists_node_type(void **state) {
  (void)state;
  scene();
  expect_typed("objExists sphere1", "int", "1");
  expect_typed("objExists nosuch", "int", "0");
  expect_typed("objExists sphere1.tx", "int", "1");
  expect_typed("objExists sphere1.nosuch", "int", "0");
  expect_typed("objExists \"|group1|sphere1\"", "int", "1");
  expect_typed("objExists \"group1|sphere1\"", "int", "1");
  expect_typed("objExists \"\"", "int", "0");
  expect_typed("nodeType sphere1", "string", "transform");
  expect_typed("nodeType sphereShape1", "string", "mesh");
  expect_typed("nodeType sphere1.tx", "string", "transform");
  ok("createNode joint -n j1");
  expect_typed("nodeType -i j1", "string[]", "containerBase entity dagNode transform joint");
  expect_typed("ls -type entity \"sphere?\"", "string[]", "sphere1 sphere2");
}

static void test_obj_exists_node_type_bad(void **state) {
  (void)state;
  scene();
  bad("objExists", "objExists", NULL);
  bad("objExists -frob sphere1", "unknown flag -frob", NULL);
  bad("nodeType nosuch", "nosuch", NULL);
  bad("nodeType -frob sphere1", "unknown flag -frob", NULL);
  bad("nodeType -api sphere1", "-apiType", "not supported", NULL);
}

/* ---- rename / delete ------------------------------------------------------------------------- */

static void test_rename_delete(void **state) {
  (void)state;
  scene();
  expect_typed("rename sphere1 ball", "string", "ball");
  expect_typed("listRelatives -p ball", "string[]", "group1");
  /* a name that is taken gets a number */
  expect_typed("rename sphere2 ball", "string", "ball1");
  /* a trailing '#' becomes a number that makes the name unique */
  expect_typed("rename cone1 \"cone#\"", "string", "cone1");
  /* the first selected object when only the new name is given */
  ok("select ball1");
  expect_typed("rename ball2", "string", "ball2");
  expect_typed("objExists ball1", "int", "0");
  expect_typed("delete ball", "none", "");
  expect_typed("objExists ball", "int", "0");
  expect_typed("objExists sphereShape1", "int", "0");
  ok("select ball2; delete");
  expect_typed("listRelatives group1", "string[]", "");
  ok("delete group1 cone1");
  expect_typed("ls -type transform", "string[]", "");
}

/* "When a transform is renamed then any shape nodes beneath the transform that have the same
 * prefix as the old transform name are renamed": rename nurbsSphere1 ball makes
 * nurbsSphereShape1 ballShape. */
static void test_rename_shapes(void **state) {
  (void)state;
  ok("createNode transform -n nurbsSphere1; createNode mesh -n nurbsSphereShape1 -p nurbsSphere1");
  expect_typed("rename nurbsSphere1 ball", "string", "ball");
  expect_typed("listRelatives -s ball", "string[]", "ballShape");
  /* the trailing number goes after Shape; a shape named old + Shape keeps that form */
  ok("polyCube -n pCube1");
  expect_typed("listRelatives -s pCube1", "string[]", "pCubeShape1");
  ok("rename pCube1 bar1");
  expect_typed("listRelatives -s bar1", "string[]", "barShape1");
  ok("rename bar1 bar");
  expect_typed("listRelatives -s bar", "string[]", "barShape");
  ok("rename bar bar1");
  expect_typed("listRelatives -s bar1", "string[]", "bar1Shape");
  /* -is keeps the shapes' names; a shape not named after the transform keeps its own */
  ok("rename -is bar1 crate");
  expect_typed("listRelatives -s crate", "string[]", "bar1Shape");
  ok("createNode transform -n t; createNode mesh -n body -p t; rename t u");
  expect_typed("listRelatives -s u", "string[]", "body");
  /* the selected transform */
  ok("select ball; rename box");
  expect_typed("listRelatives -s box", "string[]", "boxShape");
}

static void test_rename_delete_bad(void **state) {
  (void)state;
  scene();
  bad("rename nosuch x", "nosuch", NULL);
  bad("rename sphere1 \"bad name\"", "bad name", NULL);
  bad("rename sphere1 \"1abc\"", "1abc", NULL);
  bad("rename -frob sphere1 x", "unknown flag -frob", NULL);
  bad("delete nosuch", "nosuch", NULL);
  bad("delete sphere1 nosuch", "nosuch", NULL);
  bad("delete -frob sphere1", "unknown flag -frob", NULL);
  ok("lockNode sphere2");
  bad("delete sphere1 sphere2", "sphere2", NULL);
  bad("rename sphere2 x", "sphere2", NULL);
  /* a shape that cannot follow fails the whole rename */
  ok("lockNode -l off sphere2; lockNode sphereShape1");
  bad("rename sphere1 ball", "sphereShape1", NULL);
}

/* ---- delete -ch ------------------------------------------------------------------------------- */

/* "-constructionHistory: Remove construction history on the objects specified or selected."
 * The shapes keep the geometry they evaluate to now; what fed it goes. */
static void test_delete_history(void **state) {
  (void)state;
  /* a creation node and a tweak: the box keeps its points, tweak included */
  ok("polyCube -n box -w 2 -h 2 -d 2; move 5 0 0 box; setAttr boxShape.pnts[2] -type float3 0 1 0");
  expect_nums("xform -q -ws -bb box", 6, 4.0, -1.0, -1.0, 6.0, 2.0, 1.0);
  expect_typed("delete -ch box", "none", "");
  expect_typed("ls -type polyCube", "string[]", "");
  expect_typed("listHistory box", "string[]", "boxShape");
  expect_nums("xform -q -ws -bb box", 6, 4.0, -1.0, -1.0, 6.0, 2.0, 1.0);
  expect_typed("getAttr -s boxShape.pnts", "int", "0");
  /* the tweak is in the stored points now: a new one adds to them */
  ok("setAttr boxShape.pnts[2] -type float3 0 1 0");
  expect_nums("xform -q -ws -bb box", 6, 4.0, -1.0, -1.0, 6.0, 3.0, 1.0);
  /* undo gives the history back */
  ok("undo; undo");
  expect_typed("ls -type polyCube", "string[]", "polyCube1");
  expect_typed("listHistory box", "string[]", "boxShape polyCube1");
  /* a skinned mesh, selected: the skinCluster, its Orig shape, bind pose and deformer set go,
   * and the mesh keeps its deformed points, which the joints no longer move */
  ok("polyCube -n arm -w 2 -h 2 -d 2 -sy 2; select -cl; joint -n j1 -p 0 -1 0; joint -n j2 -p 0 1 0;"
     "skinCluster -n sk j1 arm; sets -em -n skSet; connectAttr sk.message skSet.usedBy[0];"
     "rotate 0 0 90 j2; select arm");
  double bb[6];
  {
    sinew_value_t v = {0};
    const char *q = "xform -q -ws -bb arm";
    assert_int_equal(sinew_session_run(S, q, strlen(q), "test.mel", &v), 0);
    for (int i = 0; i < 6; i++) bb[i] = sinew_value_double_at(&v, (size_t)i);
    sinew_value_clear(&v);
  }
  assert_true(bb[4] < 1.9); /* the top row turned with j2 */
  ok("delete -ch");
  expect_typed("ls -type skinCluster -type dagPose -type objectSet", "string[]", "");
  expect_typed("listRelatives -s arm", "string[]", "armShape");
  expect_typed("ls -type polyCube", "string[]", "polyCube1");
  ok("rotate 0 0 0 j2");
  expect_nums("xform -q -ws -bb arm", 6, bb[0], bb[1], bb[2], bb[3], bb[4], bb[5]);
  /* a node that also feeds something else stays, and so does what feeds it */
  ok("polyCube -n a; createNode transform -n b; createNode mesh -n bShape -p b;"
     "connectAttr polyCube2.out bShape.inMesh; delete -ch a");
  expect_typed("ls -type polyCube", "string[]", "polyCube1 polyCube2");
  expect_typed("listHistory b", "string[]", "bShape polyCube2");
  /* named with a shape whose history goes, that shape keeps its tweak where its input stays */
  ok("polyCube -n c; setAttr aShape.pnts[2] -type float3 0 1 0");
  expect_nums("xform -q -ws -bb a", 6, -0.5, -0.5, -0.5, 0.5, 1.5, 0.5);
  ok("delete -ch a c");
  expect_typed("ls -type polyCube", "string[]", "polyCube1 polyCube2");
  expect_nums("xform -q -ws -bb a", 6, -0.5, -0.5, -0.5, 0.5, 1.5, 0.5);
  expect_typed("getAttr -s aShape.pnts", "int", "1");
  /* a curve made with history keeps its shape */
  ok("circle -n ctl -r 2; circle -n ref -r 2 -ch off");
  ok("delete -ch ctl");
  expect_typed("ls -type makeNurbCircle", "string[]", "");
  expect_typed("getAttr ctlShape.spans", "int", "8");
  {
    /* saved as the same curve a circle made without history holds */
    char *text = test_scene_text(S);
    const char *a = strstr(text, "\"ctlShape\""), *b = strstr(text, "\"refShape\"");
    assert_non_null(a);
    assert_non_null(b);
    a = strstr(a, "setAttr \".cc\"");
    b = strstr(b, "setAttr \".cc\"");
    assert_non_null(a);
    assert_non_null(b);
    size_t n = strcspn(a, ";");
    assert_true(n > 40 && strncmp(a, b, n + 1) == 0);
    free(text);
  }
  /* no history: nothing to do; a transform or joint alone is fine */
  expect_typed("delete -ch j1 ctl", "none", "");
  expect_typed("objExists j1", "int", "1");
}

static void test_delete_history_bad(void **state) {
  (void)state;
  /* out of memory at any allocation: the scene as it was, nothing leaked (tests/support.c) */
  long failed = test_fault("polyCube -n arm -sy 2; select -cl; joint -n j1 -p 0 -1 0; joint -n j2 -p 0 1 0;"
                           "skinCluster -n sk j1 arm; sets -em -n skSet; connectAttr sk.message skSet.usedBy[0];"
                           "rotate 0 0 30 j2; setAttr armShape.pnts[1] -type float3 0 1 0",
                           "delete -ch arm");
  if (failed == 0) fail_msg("delete -ch: no failing allocation made it fail");
  ok("polyCube -n box; lockNode polyCube1; select -cl");
  bad("delete -ch box", "polyCube1", NULL);
  bad("delete -ch nosuch", "nosuch", NULL);
  bad("delete -ch box nosuch", "nosuch", NULL);
  bad("delete -ch", "nothing to delete", NULL);
  bad("delete -all", "-all", "not supported", NULL);
}

/* ---- parent ---------------------------------------------------------------------------------- */

static void test_parent(void **state) {
  (void)state;
  scene();
  ok("setAttr group1.tx 10; setAttr cone1.tx 3");
  /* returns the children's names, as string[] */
  expect_typed("parent cone1 group1", "string[]", "cone1");
  expect_nums("xform -q -ws -t cone1", 3, 3.0, 0.0, 0.0);
  expect_nums("getAttr cone1.t", 3, -7.0, 0.0, 0.0);
  expect_typed("parent -w cone1", "string[]", "cone1");
  expect_nums("getAttr cone1.t", 3, 3.0, 0.0, 0.0);
  /* -r keeps the local values */
  expect_typed("parent -r cone1 group1", "string[]", "cone1");
  expect_nums("xform -q -ws -t cone1", 3, 13.0, 0.0, 0.0);
  /* -s: a shape under another transform */
  expect_typed("parent -s -r sphereShape2 sphere1", "string[]", "sphereShape2");
  expect_typed("listRelatives -s sphere1", "string[]", "sphereShape1 sphereShape2");
  /* the selection: the last selected object is the parent */
  ok("parent -w cone1; select cone1 sphere2; parent");
  expect_typed("listRelatives -p cone1", "string[]", "sphere2");
  /* one object: the selected objects go under it; -w alone: the selection to the world */
  ok("select cone1 sphere1");
  expect_typed("parent group1", "string[]", "cone1 sphere1");
  expect_typed("listRelatives -p cone1", "string[]", "group1");
  ok("select cone1");
  expect_typed("parent -w", "string[]", "cone1");
  expect_typed("listRelatives -p cone1", "string[]", "");
}

static void test_parent_bad(void **state) {
  (void)state;
  scene();
  bad("parent nosuch group1", "nosuch", NULL);
  bad("parent cone1 nosuch", "nosuch", NULL);
  bad("parent group1 sphere1", "group1", "sphere1", NULL);
  bad("parent cone1 time1", "time1", NULL);
  bad("parent -frob cone1 group1", "unknown flag -frob", NULL);
  /* instancing: sinew's DAG gives a node one parent, so -add and -rm are refused, by name */
  bad("parent -add cone1 group1", "-addObject", "instanc", NULL);
  bad("parent -add -s sphereShape1 cone1", "-addObject", NULL);
  bad("parent -rm \"group1|sphere1\"", "-removeObject", "instanc", NULL);
  bad("parent cone1 sphere1 nosuch", "nosuch", NULL);
  /* the selection forms with too little selected */
  bad("parent group1", "no child given", NULL);
  bad("parent", "select the objects", NULL);
  bad("parent -w", "no object given", NULL);
  ok("select cone1");
  bad("parent", "select the objects", NULL);
}

/* ---- xform ----------------------------------------------------------------------------------- */

static void test_xform(void **state) {
  (void)state;
  scene();
  ok("setAttr group1.tx 10");
  expect_typed("xform -t 1 2 3 sphere1", "none", "");
  expect_typed("xform -q -t sphere1", "float[]", "1 2 3");
  expect_typed("xform -q -ws -t sphere1", "float[]", "11 2 3");
  ok("xform -r -t 1 0 0 sphere1");
  expect_typed("xform -q -t sphere1", "float[]", "2 2 3");
  ok("xform -ws -t 0 0 0 sphere1");
  expect_typed("xform -q -t sphere1", "float[]", "-10 0 0");
  ok("xform -ro 0 90 0 sphere1");
  expect_nums("xform -q -ro sphere1", 3, 0.0, 90.0, 0.0);
  ok("xform -s 2 2 2 sphere1");
  expect_typed("xform -q -r -s sphere1", "float[]", "2 2 2");
  ok("xform -roo zxy sphere1");
  expect_typed("xform -q -roo sphere1", "string", "zxy");
  ok("xform -piv 1 1 1 sphere1");
  expect_typed("xform -q -rp sphere1", "float[]", "1 1 1");
  expect_typed("xform -q -m group1", "float[]", "1 0 0 0 0 1 0 0 0 0 1 0 10 0 0 1");
  /* -piv queries both pivots: rotate pivot then scale pivot, six numbers */
  ok("setAttr sphere1.sp -type double3 4 5 6");
  expect_typed("xform -q -piv sphere1", "float[]", "1 1 1 4 5 6");
  expect_typed("xform -q -ws -m group1", "float[]", "1 0 0 0 0 1 0 0 0 0 1 0 10 0 0 1");
}

static void test_xform_bad(void **state) {
  (void)state;
  scene();
  bad("xform -t 1 2 3 nosuch", "nosuch", NULL);
  bad("xform -t 1 abc 3 sphere1", "abc", NULL);
  bad("xform -frob sphere1", "unknown flag -frob", NULL);
  bad("xform -q -t -ro sphere1", "one flag", NULL);
}

/* ---- what every command returns ---------------------------------------------------------------- */

/* Each command of docs/commands.md in a documented form, with the type Autodesk's page gives
 * its return value (string[], string, int, float, float[], int[], or nothing), so that
 * `string $r[] = `cmd ...`;` and the like work as in Maya. Run in order on one scene. */
static void test_return_types(void **state) {
  (void)state;
  static const struct {
    const char *text, *kind, *want;
  } forms[] = {
      {"createNode transform -n grp", "string", "grp"},
      {"shadingNode -asUtility multiplyDivide -n md", "string", "md"},
      {"polyCube -n box", "string[]", "box polyCube1"},
      {"polyCylinder -n cyl", "string[]", "cyl polyCylinder1"},
      {"polyPlane -n pl", "string[]", "pl polyPlane1"},
      {"polySphere -n sph", "string[]", "sph polySphere1"},
      {"spaceLocator -n loc", "string[]", "loc"},
      {"group -em -n g1", "string", "g1"},
      {"group -n g2 loc", "string", "g2"},
      {"select -cl", "none", ""},
      {"joint -n j1 -p 0 0 0", "string", "j1"},
      {"joint -n j2 -p 0 2 0", "string", "j2"},
      {"joint -n j3 -p 0 4 1", "string", "j3"},
      {"joint -e -oj xyz -sao yup j1", "string", "j1"},
      {"joint -q -p j2", "float[]", "0 2 0"},
      {"select -cl", "none", ""},
      {"duplicate -n box2 box", "string[]", "box2 box2|boxShape"},
      {"circle -n ctl", "string[]", "ctl makeNurbCircle1"},
      {"curve -d 1 -p 0 0 0 -p 1 0 0 -n crv", "string", "crv"},
      {"move 1 0 0 ctl", "none", ""},
      {"rotate 0 45 0 ctl", "none", ""},
      {"scale 2 2 2 ctl", "none", ""},
      {"makeIdentity -a 1 -t 1 -r 1 -s 1 g1", "none", ""},
      {"pickWalk -d up j2", "string[]", "j1"},
      {"objectType j1", "string", "joint"},
      {"attributeExists tx j1", "int", "1"},
      {"listAttr -ud j1", "string[]", ""},
      {"listHistory box", "string[]", "box|boxShape polyCube1"},
      {"sets -n s1 j1", "string", "s1"},
      {"sets -q s1", "string[]", "j1"},
      {"sets -e -add s1 j2", "string", "s1"},
      {"sets -im s1 j1", "int", "1"},
      {"addAttr -ln w -at double grp", "none", ""},
      {"renameAttr grp.w wgt", "string", "wgt"},
      {"connectAttr grp.wgt g1.tx", "string", "Connected grp.wgt to g1.translateX."},
      {"disconnectAttr grp.wgt g1.tx", "string", "Disconnected grp.wgt from g1.translateX."},
      {"deleteAttr grp.wgt", "none", ""},
      {"currentTime 5", "float", "5"},
      {"currentTime -q", "float", "5"},
      {"playbackOptions -min 1 -max 10", "none", ""},
      {"playbackOptions -q -max", "float", "10"},
      {"currentUnit -q -l", "string", "cm"},
      {"fileInfo \"a\" \"b\"", "none", ""},
      {"fileInfo -q \"a\"", "string[]", "b"},
      {"lockNode -q j1", "int[]", "0"},
      {"setKeyframe -t 1 -v 0 grp.tx", "int", "1"},
      {"setKeyframe -t 10 -v 5 grp.tx", "int", "1"},
      {"keyframe -q -tc grp.tx", "float[]", "1 10"},
      {"keyframe -q -kc grp.tx", "int", "2"},
      {"keyTangent -q -itt grp.tx", "string[]", "auto auto"},
      {"setInfinity -q -pri grp.tx", "string[]", "constant"},
      {"expression -s \"grp.sx = 1\" -n ex1", "string", "ex1"},
      {"pointConstraint g1 crv", "string[]", "crv_pointConstraint1"},
      {"orientConstraint g1 crv", "string[]", "crv_orientConstraint1"},
      {"ikHandle -sj j1 -ee j3 -n ik1", "string[]", "ik1 effector1"},
      {"poleVectorConstraint g1 ik1", "string[]", "ik1_poleVectorConstraint1"},
      {"skinCluster -n sk -tsb j1 pl", "string[]", "sk"},
      {"cluster -n cl box.vtx[0:2]", "string[]", "cl clHandle"},
      {"listConnections -s off -d on g1.tx", "string[]", ""},
      {"referenceQuery -il j1", "int", "0"},
      {"undoInfo -q -st", "int", "1"},
      {"rename g1 g4", "string", "g4"},
      {"file -q -sn", "string", ""},
  };
  for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) expect_typed(forms[i].text, forms[i].kind, forms[i].want);
  /* what scripts do with them */
  ok("string $c[] = `polyCube -n crate`; if ($c[1] != \"polyCube2\") error $c[1];");
  ok("string $l[] = `spaceLocator`; string $g = `group -em`; parent $l[0] $g;");
  ok("string $s = `connectAttr crate.tx crate.ty`; if (!startsWith($s, \"Connected\")) error $s;");
  ok("int $n = `setKeyframe -t 3 -v 1 crate.tz`; float $t = `currentTime -q`;");
}

/* The everyday commands' bad input: a message with file, line and command, the scene as it was. */
static void test_everyday_bad(void **state) {
  (void)state;
  ok("polyCube -n box; joint -n j1; select -cl; createNode transform -n grp; select -cl");
  bad("createNode nosuchType", "nosuchType", NULL);
  bad("createNode transform -frob", "unknown flag -frob", NULL);
  bad("shadingNode multiplyDivide", "-asUtility", NULL);
  bad("group -p nosuch -em", "nosuch", NULL);
  bad("group nosuch", "nosuch", NULL);
  bad("move 1 abc 0 box", "abc", NULL);
  bad("move 1 0 0 nosuch", "nosuch", NULL);
  bad("rotate -frob 1 0 0 box", "unknown flag -frob", NULL);
  bad("scale 1 1 1 nosuch", "nosuch", NULL);
  bad("joint -e -oj abc j1", "abc", NULL);
  bad("joint -e -oj xyz nosuch", "nosuch", NULL);
  bad("pickWalk -d sideways box", "sideways", NULL);
  bad("pickWalk -d up nosuch", "nosuch", NULL);
  bad("spaceLocator -p 1 abc 3", "abc", NULL);
  bad("makeIdentity -a 1 nosuch", "nosuch", NULL);
  bad("duplicate nosuch", "nosuch", NULL);
  bad("duplicate -frob box", "unknown flag -frob", NULL);
  bad("objectType nosuch", "nosuch", NULL);
  bad("sets -add nosuch box", "nosuch", NULL);
  bad("renameAttr box.tx foo", "box.translateX", NULL);
  bad("renameAttr box.nosuch foo", "box", "nosuch", NULL);
  bad("connectAttr box.tx nosuch.tx", "nosuch", NULL);
  bad("connectAttr box.tx box.nosuch", "box.nosuch", NULL);
  bad("disconnectAttr box.tx grp.tx", "box.translateX", NULL);
  bad("currentTime abc", "abc", NULL);
  bad("playbackOptions -min abc", "abc", NULL);
  bad("circle -r abc", "abc", NULL);
  bad("curve -d 1 -p 0 0", "curve", NULL);
  bad("listHistory nosuch", "nosuch", NULL);
  bad("lockNode -l abc box", "abc", NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_select, setup, teardown),
      cmocka_unit_test_setup_teardown(test_select_bad, setup, teardown),
      cmocka_unit_test_setup_teardown(test_select_more, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ls, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ls_bad, setup, teardown),
      cmocka_unit_test_setup_teardown(test_list_relatives, setup, teardown),
      cmocka_unit_test_setup_teardown(test_list_relatives_bad, setup, teardown),
      cmocka_unit_test_setup_teardown(test_list_connections, setup, teardown),
      cmocka_unit_test_setup_teardown(test_list_connections_bad, setup, teardown),
      cmocka_unit_test_setup_teardown(test_get_set_attr, setup, teardown),
      cmocka_unit_test_setup_teardown(test_get_set_attr_bad, setup, teardown),
      cmocka_unit_test_setup_teardown(test_add_attr, setup, teardown),
      cmocka_unit_test_setup_teardown(test_add_attr_bad, setup, teardown),
      cmocka_unit_test_setup_teardown(test_attribute_query, setup, teardown),
      cmocka_unit_test_setup_teardown(test_attribute_query_bad, setup, teardown),
      cmocka_unit_test_setup_teardown(test_obj_exists_node_type, setup, teardown),
      cmocka_unit_test_setup_teardown(test_obj_exists_node_type_bad, setup, teardown),
      cmocka_unit_test_setup_teardown(test_rename_delete, setup, teardown),
      cmocka_unit_test_setup_teardown(test_rename_delete_bad, setup, teardown),
      cmocka_unit_test_setup_teardown(test_rename_shapes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_delete_history, setup, teardown),
      cmocka_unit_test_setup_teardown(test_delete_history_bad, setup, teardown),
      cmocka_unit_test_setup_teardown(test_parent, setup, teardown),
      cmocka_unit_test_setup_teardown(test_parent_bad, setup, teardown),
      cmocka_unit_test_setup_teardown(test_xform, setup, teardown),
      cmocka_unit_test_setup_teardown(test_xform_bad, setup, teardown),
      cmocka_unit_test_setup_teardown(test_return_types, setup, teardown),
      cmocka_unit_test_setup_teardown(test_everyday_bad, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
