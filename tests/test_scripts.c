/* tests/test_scripts.c: rigging-script snippets written as riggers write them (command syntax
 * with expressions as arguments, implicit declarations, loops, procedures, catch, guarded UI,
 * sourced libraries), run through a real session (sinew/cmds.h); each checks the scene it
 * builds: names, parents, attribute values and world positions worked out by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sinew/cmds.h"
#include "sinew/sinew.h"
#include "tests/support.h"

static sinew_session_t *S;
static int nerrors, nwarnings;
static char lastlog[1024];

static void logger(void *ud, sinew_log_level_t level, sinew_log_id_t id, const char *msg) {
  (void)ud, (void)id;
  if (level == SINEW_LOG_ERROR) nerrors++;
  if (level == SINEW_LOG_WARNING) nwarnings++;
  snprintf(lastlog, sizeof lastlog, "%s", msg);
}

static int setup(void **state) {
  (void)state;
  sinew_session_desc_t d = {.logger = logger};
  if (sinew_session_create(&d, &S)) return -1;
  nerrors = nwarnings = 0;
  lastlog[0] = 0;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  sinew_session_destroy(S);
  S = NULL;
  return 0;
}

static void run_ok(const char *name, const char *text) {
  if (sinew_session_run(S, text, strlen(text), name, NULL))
    fail_msg("%s failed: %s", name, sinew_session_errmsg(S));
}

/* A MEL expression's value as text (arrays joined with spaces). */
static const char *mel(const char *text) {
  static char buf[4096];
  sinew_value_t v = {0};
  if (sinew_session_run(S, text, strlen(text), "check.mel", &v))
    fail_msg("%s\n  failed: %s", text, sinew_session_errmsg(S));
  sinew_value_format(&v, buf, sizeof buf);
  sinew_value_clear(&v);
  size_t n = strlen(buf);
  for (size_t i = 0; i < n; i++)
    if (buf[i] == '\n') buf[i] = ' ';
  while (n && buf[n - 1] == ' ') buf[--n] = 0;
  return buf;
}

/* A MEL expression's value as a number. */
static double melnum(const char *text) {
  sinew_value_t v = {0};
  if (sinew_session_run(S, text, strlen(text), "check.mel", &v))
    fail_msg("%s\n  failed: %s", text, sinew_session_errmsg(S));
  double d = sinew_value_to_double(&v);
  sinew_value_clear(&v);
  return d;
}

static void expect_num(const char *text, double want) {
  double d = melnum(text);
  if (fabs(d - want) > 1e-9) fail_msg("%s gave %.17g, not %g", text, d, want);
}

/* The world position of a DAG node (translation of worldMatrix[0]). */
static void world_pos(const char *node, double out[3]) {
  char plug[256];
  snprintf(plug, sizeof plug, "%s.worldMatrix[0]", node);
  sinew_plug_t p;
  sinew_node_t none = {0};
  if (sinew_plug_parse(sinew_session_graph(S), plug, none, &p)) fail_msg("no plug %s", plug);
  sinew_mat4_t m;
  assert_int_equal(sinew_get_matrix(sinew_session_graph(S), &p, &m), SINEW_OK);
  for (int k = 0; k < 3; k++) out[k] = m.m[3][k];
}

static void expect_pos(const char *node, double x, double y, double z) {
  double p[3];
  world_pos(node, p);
  if (fabs(p[0] - x) > 1e-9 || fabs(p[1] - y) > 1e-9 || fabs(p[2] - z) > 1e-9)
    fail_msg("%s is at (%g, %g, %g), not (%g, %g, %g)", node, p[0], p[1], p[2], x, y, z);
}

/* 1. A joint chain from a loop, names and positions built with expressions. */
static void test_joint_chain(void **state) {
  (void)state;
  run_ok("chain.mel",
         "string $prefix = \"L_arm\";\n"
         "string $joints[];\n"
         "select -cl;\n"
         "for ($i = 0; $i < 4; $i++) {\n"
         "    $joints[$i] = `joint -p ($i * 2) 0 0 -n ($prefix + \"_\" + $i + \"_jnt\")`;\n"
         "    setAttr ($joints[$i] + \".radius\") 0.5;\n"
         "}\n"
         "// the elbow bends: rotate the second joint a quarter turn about Z\n"
         "setAttr ($joints[1] + \".rz\") 90;\n"
         "int $count = 0;\n"
         "for ($j in $joints) $count++;\n"
         "if ($count != 4) error \"4 joints expected\";\n"
         "$lengths[0] = 2.0;\n");
  assert_string_equal(mel("string $l[] = `ls -type joint \"L_arm_*\"`; $l;"),
                      "L_arm_0_jnt L_arm_1_jnt L_arm_2_jnt L_arm_3_jnt");
  assert_string_equal(mel("listRelatives -p L_arm_3_jnt;"), "L_arm_2_jnt");
  expect_num("getAttr L_arm_2_jnt.radius;", 0.5);
  /* joint 1 at x = 2 turns 90 degrees: joints 2 and 3 (2 and 4 cm further along x) go up y */
  expect_pos("L_arm_0_jnt", 0, 0, 0);
  expect_pos("L_arm_1_jnt", 2, 0, 0);
  expect_pos("L_arm_2_jnt", 2, 2, 0);
  expect_pos("L_arm_3_jnt", 2, 4, 0);
}

/* 2. Controls made by a procedure, placed by side, driving the chain. */
static void test_controls_and_connections(void **state) {
  (void)state;
  run_ok("ctrls.mel",
         "global proc string makeCtrl(string $name, float $offset) {\n"
         "    string $c = `createNode transform -n ($name + \"_ctrl\")`;\n"
         "    addAttr -ln \"bend\" -at double -dv 0 -k true $c;\n"
         "    setAttr ($c + \".tx\") $offset;\n"
         "    return $c;\n"
         "}\n"
         "string $sides[] = {\"L\", \"R\"};\n"
         "for ($side in $sides) {\n"
         "    float $x = ($side == \"L\") ? 5 : -5;\n"
         "    string $ctl = makeCtrl($side + \"_hand\", $x);\n"
         "    string $jnt = `createNode joint -n ($side + \"_hand_jnt\")`;\n"
         "    setAttr ($jnt + \".t\") -type double3 ($x * 2) 1 0;\n"
         "    connectAttr ($ctl + \".bend\") ($jnt + \".rz\");\n"
         "    $made[size($made)] = $ctl;\n"
         "}\n"
         "setAttr L_hand_ctrl.bend 30;\n"
         "setAttr (\"R_hand\" + \"_ctrl.bend\") (-2 * 15);\n");
  expect_num("getAttr L_hand_ctrl.tx;", 5);
  expect_num("getAttr R_hand_ctrl.tx;", -5);
  expect_num("getAttr L_hand_jnt.rz;", 30);
  expect_num("getAttr R_hand_jnt.rz;", -30);
  run_ok("drive.mel", "setAttr L_hand_ctrl.bend 45;");
  expect_num("getAttr L_hand_jnt.rz;", 45);
  expect_pos("L_hand_jnt", 10, 1, 0);
  expect_pos("R_hand_jnt", -10, 1, 0);
}

/* 3. Mirroring: names rewritten with substitute and tokenize, positions negated. */
static void test_mirror(void **state) {
  (void)state;
  run_ok("mirror.mel",
         "select -cl;\n"
         "joint -p 1 5 0 -n L_leg_hip_jnt;\n"
         "joint -p 1.5 3 0.5 -n L_leg_knee_jnt;\n"
         "joint -p 1.5 0.5 0 -n L_leg_ankle_jnt;\n"
         "string $left[] = `ls -type joint \"L_*\"`;\n"
         "string $parent = \"\";\n"
         "for ($j in $left) {\n"
         "    string $right = substitute(\"^L_\", $j, \"R_\");\n"
         "    string $parts[];\n"
         "    int $n = tokenize($right, \"_\", $parts);\n"
         "    if ($n != 4) error (\"unexpected name \" + $right);\n"
         "    float $p[] = `getAttr ($j + \".t\")`;\n"
         "    string $made = `createNode joint -n $right`;\n"
         "    if ($parent != \"\") parent $made $parent;\n"
         "    setAttr ($made + \".t\") -type double3 (-$p[0]) $p[1] $p[2];\n"
         "    $parent = $made;\n"
         "}\n");
  assert_string_equal(mel("listRelatives -p R_leg_ankle_jnt;"), "R_leg_knee_jnt");
  expect_pos("L_leg_ankle_jnt", 1.5, 0.5, 0);
  /* the right chain's local translations are the left's mirrored in x: world -1, -1.5, -1.5 */
  expect_pos("R_leg_hip_jnt", -1, 5, 0);
  expect_pos("R_leg_knee_jnt", -1.5, 3, 0.5);
  expect_pos("R_leg_ankle_jnt", -1.5, 0.5, 0);
}

/* 4. A script that guards its UI, checks its inputs with catch and keeps a setting. */
static void test_guards_and_settings(void **state) {
  (void)state;
  run_ok("guards.mel",
         "global proc buildRigUI() {\n"
         "    window -t \"Auto rig\" autoRigWin;\n"
         "    showWindow autoRigWin;\n"
         "}\n"
         "if (!`about -batch`) buildRigUI();\n"
         "if (`optionVar -exists \"autoRigScale\"` == 0) optionVar -fv \"autoRigScale\" 1.5;\n"
         "float $scale = `optionVar -q \"autoRigScale\"`;\n"
         "string $root = `createNode transform -n \"rig_grp\"`;\n"
         "setAttr ($root + \".s\") -type double3 $scale $scale $scale;\n"
         "if (catch(`setAttr \"missing_grp.tx\" 1`))\n"
         "    warning \"missing_grp is not in the scene; skipped\";\n"
         "int $failed = catchQuiet(`connectAttr \"rig_grp.sx\" \"nowhere.tx\"`);\n"
         "setAttr rig_grp.ty $failed;\n");
  expect_num("getAttr rig_grp.sx;", 1.5);
  expect_num("getAttr rig_grp.ty;", 1);
  assert_int_equal(nerrors, 1);          /* catch logged the failed setAttr */
  assert_true(nwarnings >= 1);
  /* the UI procedure itself fails with a message naming the command */
  assert_int_equal(sinew_session_run(S, "\nbuildRigUI();", 13, "ui.mel", NULL), SINEW_EUNSUPPORTED);
  assert_string_equal(sinew_session_errmsg(S),
                      "ui.mel:2: window: a UI command; sinew runs without a user interface");
  /* error stops a script at its line; what came before stays */
  assert_int_equal(sinew_session_run(S, "setAttr rig_grp.tz 2;\nerror \"stop\";\nsetAttr rig_grp.tz 3;",
                                     56, "stop.mel", NULL),
                   SINEW_ERUNTIME);
  assert_string_equal(sinew_session_errmsg(S), "stop.mel:2: Error: stop");
  expect_num("getAttr rig_grp.tz;", 2);
}

/* 5. A helper library sourced from beside the script, its procedures used in both syntaxes. */
/* Arrays as command arguments, the way scripts pass lists of nodes and matrices. */
static void test_array_arguments(void **state) {
  (void)state;
  run_ok("arrays.mel",
         "string $chain[];\n"
         "for ($i = 0; $i < 3; $i++) $chain[$i] = `joint -n (\"arm\" + $i) -p ($i * 2) 0 0`;\n"
         "select -cl;\n"
         "string $geo[] = `polyCube -n box -w 6`;\n"
         "string $sk[] = `skinCluster -tsb $chain $geo[0]`;\n"
         "createNode transform -n a; setAttr a.tx 3; setAttr a.rz 90; createNode transform -n b;\n"
         "float $m[] = `xform -q -ws -m a`;\n"
         "xform -ws -m $m b;\n"
         "string $both[] = {\"a\", \"b\"};\n"
         "select $both;\n"
         "string $none[];\n"
         "select -add $none;\n");
  assert_string_equal(mel("size(`listConnections -s 1 -d 0 -type joint skinCluster1.matrix`)"), "3");
  expect_pos("b", 3, 0, 0);
  expect_num("getAttr b.rz", 90);
  assert_string_equal(mel("size(`ls -sl`)"), "2");
  run_ok("arrays2.mel", "string $both[] = {\"a\", \"b\"}; delete $both;");
  expect_num("objExists a", 0);
  expect_num("objExists b", 0);
  expect_num("objExists box", 1);
}

static void test_sourced_library(void **state) {
  (void)state;
  char dir[] = "/tmp/sinew_test_scripts_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char lib[512], main_path[512];
  snprintf(lib, sizeof lib, "%s/rigLib.mel", dir);
  snprintf(main_path, sizeof main_path, "%s/build.mel", dir);
  FILE *f = fopen(lib, "w");
  assert_non_null(f);
  fputs("global proc string rl_offsetGrp(string $node) {\n"
        "    string $g = `createNode transform -n ($node + \"_offset\")`;\n"
        "    parent $node $g;\n"
        "    return $g;\n"
        "}\n"
        "global proc rl_place(string $node, float $x, float $y) {\n"
        "    setAttr ($node + \".t\") -type double3 $x $y 0;\n"
        "}\n",
        f);
  fclose(f);
  f = fopen(main_path, "w");
  assert_non_null(f);
  fputs("source rigLib;\n"
        "string $ctl = `createNode transform -n \"spine_ctrl\"`;\n"
        "string $grp = rl_offsetGrp($ctl);\n"
        "rl_place $grp 0 10;\n"
        "rl_place ($ctl) (1 + 1) (-1);\n",
        f);
  fclose(f);
  if (sinew_session_run_file(S, main_path, NULL)) fail_msg("%s", sinew_session_errmsg(S));
  assert_string_equal(mel("listRelatives -p spine_ctrl;"), "spine_ctrl_offset");
  expect_pos("spine_ctrl_offset", 0, 10, 0);
  expect_pos("spine_ctrl", 2, 9, 0);
  remove(lib);
  remove(main_path);
  rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_joint_chain, setup, teardown),
      cmocka_unit_test_setup_teardown(test_controls_and_connections, setup, teardown),
      cmocka_unit_test_setup_teardown(test_mirror, setup, teardown),
      cmocka_unit_test_setup_teardown(test_guards_and_settings, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sourced_library, setup, teardown),
      cmocka_unit_test_setup_teardown(test_array_arguments, setup, teardown),
  };
  return cmocka_run_group_tests_name("scripts", tests, NULL, NULL);
}
