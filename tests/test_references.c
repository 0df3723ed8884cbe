/* tests/test_references.c: file references in .ma files (cmds/ma_reference.c, docs/commands.md
 * "File references"): loading a referenced file under its namespace with the reference node's
 * edits, nested references, missing and self-referencing files, failed edits, the search path,
 * and saving a scene with a reference as Maya does (open, change, save, reopen, compare).
 * Data: tests/data/references (README there), copied into a temporary folder per test. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sinew/cmds.h"
#include "sinew/sinew.h"
#include "tests/support.h"

static char logtext[1 << 16];
static size_t loglen;

static void logger(void *ud, sinew_log_level_t level, sinew_log_id_t id, const char *msg) {
  (void)ud;
  if (level < SINEW_LOG_WARNING) return;
  int n = snprintf(logtext + loglen, sizeof logtext - loglen, "%s %s\n", sinew_log_id_name(id), msg);
  if (n > 0 && (size_t)n < sizeof logtext - loglen) loglen += (size_t)n;
}

/* How many logged lines carry message id `id` (and contain `part`, when given). */
static size_t logged(sinew_log_id_t id, const char *part) {
  size_t n = 0;
  const char *name = sinew_log_id_name(id);
  size_t k = strlen(name);
  for (const char *p = logtext; *p;) {
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len > k && strncmp(p, name, k) == 0 && p[k] == ' ') {
      char line[4096];
      snprintf(line, sizeof line, "%.*s", (int)len, p);
      if (!part || strstr(line, part)) n++;
    }
    if (!e) break;
    p = e + 1;
  }
  return n;
}

static sinew_session_t *session(bool strict) {
  sinew_session_desc_t d = {.logger = logger, .strict = strict};
  sinew_session_t *s = NULL;
  assert_int_equal(sinew_session_create(&d, &s), 0);
  return s;
}

static char tmpdir[64];

static int make_tmpdir(void **state) {
  (void)state;
  snprintf(tmpdir, sizeof tmpdir, "/tmp/sinew-test-refs-XXXXXX");
  assert_non_null(mkdtemp(tmpdir));
  loglen = 0;
  logtext[0] = 0;
  return 0;
}


static int remove_tmpdir(void **state) {
  (void)state;
  test_remove_tree(tmpdir);
  unsetenv("SINEW_REFERENCE_PATH");
  return 0;
}

static const char *tmp(const char *name) {
  static char buf[8][600];
  static int k;
  k = (k + 1) % 8;
  snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
  return buf[k];
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  assert_non_null(b);
  size_t got = fread(b, 1, (size_t)n, f);
  fclose(f);
  b[got] = 0;
  return b;
}

static void spill(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
  fclose(f);
}

/* Copies tests/data/references/name to the temporary folder (under `to`, "" for its top). */
static void copy_data(const char *name, const char *to) {
  char src[600], dst[600];
  snprintf(src, sizeof src, "%s/references/%s", SINEW_TEST_DATA_DIR, name);
  snprintf(dst, sizeof dst, "%s/%s%s%s", tmpdir, to, to[0] ? "/" : "", name);
  char *text = slurp(src);
  if (!text) fail_msg("test data file %s is missing", src);
  spill(dst, text);
  free(text);
}

static double get(sinew_session_t *s, const char *plug) {
  sinew_plug_t p;
  if (sinew_plug_parse(sinew_session_graph(s), plug, (sinew_node_t){0, 0}, &p)) fail_msg("no plug %s", plug);
  double v = NAN;
  if (sinew_get_double(sinew_session_graph(s), &p, &v)) fail_msg("cannot read %s", plug);
  return v;
}

/* The world position of a DAG node (worldMatrix[0] translation). */
static void world_pos(sinew_session_t *s, const char *node, double out[3]) {
  char name[256];
  snprintf(name, sizeof name, "%s.worldMatrix[0]", node);
  sinew_plug_t p;
  sinew_mat4_t m;
  assert_int_equal(sinew_plug_parse(sinew_session_graph(s), name, (sinew_node_t){0, 0}, &p), 0);
  assert_int_equal(sinew_get_matrix(sinew_session_graph(s), &p, &m), 0);
  for (int i = 0; i < 3; i++) out[i] = m.m[3][i];
}

static sinew_node_t node(sinew_session_t *s, const char *name) {
  sinew_node_t n;
  if (sinew_node_find(sinew_session_graph(s), name, &n)) fail_msg("no node %s", name);
  return n;
}

static bool exists(sinew_session_t *s, const char *name) {
  sinew_node_t n;
  return sinew_node_find(sinew_session_graph(s), name, &n) == SINEW_OK;
}

static void run(sinew_session_t *s, const char *mel) {
  if (sinew_session_run(s, mel, strlen(mel), "test", NULL)) fail_msg("%s: %s", mel, sinew_session_errmsg(s));
}

static void open_ok(sinew_session_t *s, const char *path) {
  if (sinew_session_open(s, path)) fail_msg("%s: %s", path, sinew_session_errmsg(s));
}

/* Saves, opens what was saved in a strict session (every line must succeed), saves that and
 * checks the two files are the same bytes. Returns the reopened session. */
static sinew_session_t *save_and_reopen(sinew_session_t *s, const char *name) {
  char a[600], b[600];
  snprintf(a, sizeof a, "%s", tmp(name));
  snprintf(b, sizeof b, "%s.again.ma", a);
  if (sinew_session_save(s, a)) fail_msg("saving %s: %s", a, sinew_session_errmsg(s));
  sinew_session_t *t = session(true);
  open_ok(t, a);
  sinew_session_stats_t st;
  sinew_session_stats(t, &st);
  assert_int_equal(st.failed_commands, 0);
  assert_int_equal(sinew_session_save(t, b), 0);
  char *ta = slurp(a), *tb = slurp(b);
  /* the name line and the end line name the file */
  const char *ba = strstr(ta, "\n//Codeset"), *bb = strstr(tb, "\n//Codeset");
  const char *ea = strstr(ta, "// End of"), *eb = strstr(tb, "// End of");
  assert_non_null(ba);
  assert_non_null(bb);
  if (ea - ba != eb - bb || memcmp(ba, bb, (size_t)(ea - ba)) != 0)
    fail_msg("saving the saved scene again changes the text:\n%s\n----\n%s", ta, tb);
  free(ta);
  free(tb);
  remove(b);
  return t;
}

/* ---- a referenced rig with edits --------------------------------------------------------------- */

/* The values shot.ma's edits and placeholder connections give, checked in s. */
static void check_shot(sinew_session_t *s, double driver_tx, double ctrl_world_x, double ctrl_ty) {
  assert_float_equal(get(s, "hero:ctrl.tx"), 3, 1e-12); /* 2 setAttr */
  assert_float_equal(get(s, "hero:ctrl.ty"), ctrl_ty, 1e-12);
  assert_float_equal(get(s, "hero:ctrl.bend"), 0.5, 1e-12);
  assert_float_equal(get(s, "hero:ctrl.twist"), 7, 1e-12);            /* 1 addAttr, then set */
  assert_float_equal(get(s, "hero:rig_grp.tx"), driver_tx, 1e-12);    /* 5 4: driver.tx -> phl[1] */
  assert_float_equal(get(s, "follower.ty"), 0.5, 1e-12);              /* 5 3: phl[2] -> follower.ty */
  /* 3: connectAttr, through the unitConversion Maya puts between a number and an angle */
  assert_float_equal(get(s, "hero:root_jnt.ry"), 0.5 * 3.14159265358979323846 / 180, 1e-12);
  /* the rig's point constraint puts the wrist on the control, wherever the group moved */
  double w[3], c[3];
  world_pos(s, "hero:wrist_jnt", w);
  world_pos(s, "hero:ctrl", c);
  for (int i = 0; i < 3; i++) assert_float_equal(w[i], c[i], 1e-9);
  assert_float_equal(c[0], ctrl_world_x, 1e-9);
}

static void test_reference_loads(void **state) {
  (void)state;
  copy_data("rig.ma", "");
  copy_data("shot.ma", "");
  sinew_session_t *s = session(true);
  open_ok(s, tmp("shot.ma"));
  check_shot(s, 5, 8, 2);
  assert_int_equal(logged(SINEW_LOG_REFERENCE_MISSING, NULL) + logged(SINEW_LOG_REFERENCE_EDIT_FAILED, NULL), 0);
  /* the rig's nodes are the reference's, the scene's own are not */
  assert_string_equal(sinew_session_node_reference(s, node(s, "hero:ctrl")), "heroRN");
  assert_string_equal(sinew_session_node_reference(s, node(s, "hero:arm_skin")), "heroRN");
  assert_null(sinew_session_node_reference(s, node(s, "driver")));
  assert_null(sinew_session_node_reference(s, node(s, "heroRN")));
  /* the referenced file's header lines are not the scene's: its units and requires stay its own */
  sinew_value_t v = {0};
  const char *q = "referenceQuery -rfn \"hero:elbow_jnt\"";
  assert_int_equal(sinew_session_run(s, q, strlen(q), "test", &v), 0);
  assert_string_equal(sinew_value_string(&v), "heroRN");
  sinew_value_clear(&v);
  q = "referenceQuery -ns \"hero:elbow_jnt\"";
  assert_int_equal(sinew_session_run(s, q, strlen(q), "test", &v), 0);
  assert_string_equal(sinew_value_string(&v), ":hero");
  sinew_value_clear(&v);
  q = "referenceQuery -inr \"driver\"";
  assert_int_equal(sinew_session_run(s, q, strlen(q), "test", &v), 0);
  assert_int_equal(sinew_value_to_int(&v), 0);
  sinew_value_clear(&v);
  q = "referenceQuery -rfn \"driver\"";
  assert_int_not_equal(sinew_session_run(s, q, strlen(q), "test", NULL), 0);
  sinew_session_destroy(s);
}

static void test_reference_save_reopen(void **state) {
  (void)state;
  copy_data("rig.ma", "");
  copy_data("shot.ma", "");
  sinew_session_t *s = session(false);
  open_ok(s, tmp("shot.ma"));
  /* change a referenced value, connect the scene to the rig, connect the rig to itself */
  run(s, "setAttr hero:elbow_jnt.rz 30; setAttr driver.tx 6;"
         "connectAttr driver.ty hero:ctrl.tz; connectAttr hero:ctrl.twist hero:rig_grp.sx;");
  /* translate fed through tz only: its other children are edits of their own */
  run(s, "setAttr hero:ctrl.ty 2.5;");
  /* the scene's own nodes under referenced ones: a constraint an animator adds, a group */
  run(s, "pointConstraint -mo driver hero:root_jnt; group -em -n extra_grp -p hero:ctrl; setAttr extra_grp.tx 1;"
         "setAttr driver.tz 2;");
  double wrist[3], root[3], extra[3];
  world_pos(s, "hero:wrist_jnt", wrist);
  world_pos(s, "hero:root_jnt", root);
  world_pos(s, "extra_grp", extra);
  assert_float_equal(root[2], 2, 1e-9);
  sinew_session_t *t = save_and_reopen(s, "out.ma");
  char *text = slurp(tmp("out.ma"));
  /* the rig is not written inline; the reference and its edits are */
  assert_null(strstr(text, "createNode joint"));
  assert_null(strstr(text, "createNode skinCluster"));
  assert_null(strstr(text, "createNode unitConversion")); /* the connectAttr edit's: it makes it again */
  assert_non_null(strstr(text, "file -rdi 1 -ns \"hero\" -rfn \"heroRN\""));
  assert_non_null(strstr(text, "file -r -ns \"hero\" -dr 1 -rfn \"heroRN\""));
  assert_non_null(strstr(text, "createNode reference -n \"heroRN\""));
  assert_non_null(strstr(text, "2 \"|hero:rig_grp|hero:root_jnt|hero:elbow_jnt\" \"r\" \" -type \\\"double3\\\" 0 0 29.999999999999996\""));
  assert_non_null(strstr(text, "3 \"|hero:rig_grp|hero:ctrl.twist\" \"|hero:rig_grp.scaleX\" \"\""));
  assert_non_null(strstr(text, "5 4 \"heroRN\" \"|hero:rig_grp|hero:ctrl.translateZ\" \"heroRN.placeHolderList["));
  assert_non_null(strstr(text, "connectAttr \"driver.ty\" \"heroRN.phl["));
  /* written under the reference's fosterParent node, and put back by a parent edit */
  assert_non_null(strstr(text, "createNode fosterParent -n \"heroRNfosterParent1\";"));
  assert_non_null(strstr(text, "createNode transform -n \"extra_grp\" -p \"heroRNfosterParent1\";"));
  assert_non_null(strstr(text, "0 \"|heroRNfosterParent1|extra_grp\" \"|hero:rig_grp|hero:ctrl\" \"-s -r \"\n"));
  assert_non_null(strstr(text, "|hero:rig_grp|hero:root_jnt\" \"-s -r \""));
  /* what a connection gives is no edit (the constrained wrist, the connected control) */
  assert_null(strstr(text, "hero:wrist_jnt\" \"t\""));
  assert_non_null(strstr(text, "2 \"|hero:rig_grp|hero:ctrl\" \"ty\" \" 2.5\""));
  assert_null(strstr(text, "\"|hero:rig_grp|hero:ctrl\" \"tz\""));
  free(text);
  /* reopened: the same values */
  check_shot(t, 6, 6 + 7 * 3, 2.5); /* rig_grp.sx = ctrl.twist = 7 */
  assert_float_equal(get(t, "hero:elbow_jnt.rz"), 30 * 3.14159265358979323846 / 180, 1e-9); /* radians inside */
  assert_float_equal(get(t, "hero:ctrl.tz"), 2, 1e-12);
  assert_float_equal(get(t, "hero:rig_grp.sx"), 7, 1e-12);
  double again[3];
  world_pos(t, "hero:wrist_jnt", again);
  for (int i = 0; i < 3; i++) assert_float_equal(again[i], wrist[i], 1e-9);
  world_pos(t, "hero:root_jnt", again);
  for (int i = 0; i < 3; i++) assert_float_equal(again[i], root[i], 1e-9);
  world_pos(t, "extra_grp", again);
  for (int i = 0; i < 3; i++) assert_float_equal(again[i], extra[i], 1e-9);
  assert_string_equal(sinew_node_name(sinew_session_graph(t), sinew_node_parent(sinew_session_graph(t), node(t, "extra_grp"))),
                      "hero:ctrl");
  /* the constraint still drives the referenced joint */
  run(t, "setAttr driver.tz 5;");
  world_pos(t, "hero:root_jnt", again);
  assert_float_equal(again[2], 5, 1e-9);
  assert_string_equal(sinew_session_node_reference(t, node(t, "hero:elbow_jnt")), "heroRN");
  sinew_session_destroy(t);
  sinew_session_destroy(s);
}

/* ---- nested references ------------------------------------------------------------------------------ */

static void test_nested_reference(void **state) {
  (void)state;
  copy_data("rig.ma", "");
  copy_data("prop.ma", "");
  copy_data("nested_shot.ma", "");
  sinew_session_t *s = session(true);
  open_ok(s, tmp("nested_shot.ma"));
  /* prop.ma's edit set bend 2; the main file's edit of the nested reference comes after it */
  assert_float_equal(get(s, "set:hero:ctrl.bend"), 3, 1e-12);
  assert_float_equal(get(s, "set:set_grp.tx"), 1, 1e-12);
  /* prop.ma's parent edit put the rig under its group */
  assert_string_equal(sinew_node_name(sinew_session_graph(s), sinew_node_parent(sinew_session_graph(s), node(s, "set:hero:rig_grp"))),
                      "set:set_grp");
  assert_string_equal(sinew_session_node_reference(s, node(s, "set:hero:ctrl")), "set:heroRN");
  assert_string_equal(sinew_session_node_reference(s, node(s, "set:set_grp")), "setRN");
  assert_string_equal(sinew_session_node_reference(s, node(s, "set:heroRN")), "setRN");
  assert_false(exists(s, "hero:ctrl"));
  run(s, "setAttr set:hero:ctrl.tx 9;");
  /* a connection of the rig broken: warned when saving, since no edit can say so */
  loglen = 0;
  logtext[0] = 0;
  run(s, "disconnectAttr set:hero:ctrl.t set:hero:wrist_jnt_pointConstraint1.tg[0].tt;");
  sinew_session_t *t = save_and_reopen(s, "nested_out.ma");
  assert_int_equal(logged(SINEW_LOG_FILE_WARNING, "set:hero:ctrl.translate>"), 1);
  char *text = slurp(tmp("nested_out.ma"));
  assert_null(strstr(text, "createNode transform"));
  assert_null(strstr(text, "file -r -ns \"hero\"")); /* the nested reference is prop.ma's */
  assert_non_null(strstr(text, "\"set:heroRN\" 3")); /* bend, ctrl.t, and the value tg[0].tt kept */
  assert_non_null(strstr(text, "2 \"|set:set_grp|set:hero:rig_grp|set:hero:ctrl\" \"t\" \" -type \\\"double3\\\" 9 1 0\""));
  free(text);
  assert_float_equal(get(t, "set:hero:ctrl.tx"), 9, 1e-12);
  assert_float_equal(get(t, "set:hero:ctrl.bend"), 3, 1e-12);
  sinew_session_destroy(t);
  sinew_session_destroy(s);
}

/* ---- files that are not there or reference themselves -------------------------------------------- */

static void test_missing_reference(void **state) {
  (void)state;
  copy_data("missing.ma", "");
  sinew_session_t *s = session(true);
  open_ok(s, tmp("missing.ma"));
  /* once, naming the reference node, the path and where sinew looked */
  assert_int_equal(logged(SINEW_LOG_REFERENCE_MISSING, NULL), 1);
  assert_int_equal(logged(SINEW_LOG_REFERENCE_MISSING, "ghostRN"), 1);
  assert_int_equal(logged(SINEW_LOG_REFERENCE_MISSING, "/no/such/folder/ghost_rig.ma"), 1);
  assert_int_equal(logged(SINEW_LOG_REFERENCE_MISSING, tmp("ghost_rig.ma")), 1);
  assert_float_equal(get(s, "driver.tz"), 3, 1e-12);
  /* it is not loaded: -ur has nothing to do, -lr cannot find the file any more than opening did */
  sinew_value_t v = {0};
  const char *q = "referenceQuery -il ghostRN";
  assert_int_equal(sinew_session_run(s, q, strlen(q), "test", &v), 0);
  assert_int_equal(sinew_value_to_int(&v), 0);
  sinew_value_clear(&v);
  run(s, "file -ur ghostRN;");
  q = "file -lr ghostRN;";
  assert_int_not_equal(sinew_session_run(s, q, strlen(q), "test", NULL), 0);
  assert_non_null(strstr(sinew_session_errmsg(s), "-loadReference ghostRN"));
  /* written back as it was: the lines, the edits, the placeholder connection */
  sinew_session_t *t = save_and_reopen(s, "missing_out.ma");
  char *text = slurp(tmp("missing_out.ma"));
  assert_non_null(strstr(text, "file -r -ns \"ghost\" -dr 1 -rfn \"ghostRN\" -op \"v=0;\" -typ \"mayaAscii\" \"/no/such/folder/ghost_rig.ma\";"));
  assert_non_null(strstr(text, "file -rdi 1 -ns \"ghost\""));
  assert_non_null(strstr(text, "5 4 \"ghostRN\" \"|ghost:root.rotateX\" \"ghostRN.placeHolderList[1]\" \"\""));
  assert_non_null(strstr(text, "connectAttr \"driver.tx\" \"ghostRN.phl[1]\";"));
  free(text);
  sinew_session_destroy(t);
  sinew_session_destroy(s);
}

static void test_self_reference(void **state) {
  (void)state;
  copy_data("self.ma", "");
  sinew_session_t *s = session(false);
  open_ok(s, tmp("self.ma"));
  /* an error naming the file and line; the rest of the file is read, once */
  char where[700];
  snprintf(where, sizeof where, "%s:5:", tmp("self.ma"));
  assert_int_equal(logged(SINEW_LOG_COMMAND_FAILED, where), 1);
  assert_int_equal(logged(SINEW_LOG_COMMAND_FAILED, "references itself"), 1);
  assert_true(exists(s, "loop_grp"));
  assert_true(exists(s, "after"));
  assert_false(exists(s, "again:loop_grp"));
  sinew_session_destroy(s);
  /* strict: the open fails and names the line */
  s = session(true);
  assert_int_not_equal(sinew_session_open(s, tmp("self.ma")), 0);
  assert_non_null(strstr(sinew_session_errmsg(s), where));
  sinew_session_destroy(s);
  /* a cycle through two files ends where it closes */
  copy_data("cycle_a.ma", "");
  copy_data("cycle_b.ma", "");
  loglen = 0;
  logtext[0] = 0;
  s = session(false);
  open_ok(s, tmp("cycle_a.ma"));
  snprintf(where, sizeof where, "%s:5:", tmp("cycle_b.ma"));
  assert_int_equal(logged(SINEW_LOG_COMMAND_FAILED, where), 1);
  assert_true(exists(s, "a_grp"));
  assert_true(exists(s, "b:b_grp"));
  assert_false(exists(s, "b:a:a_grp"));
  sinew_session_destroy(s);
}

/* ---- edits that fail ------------------------------------------------------------------------------ */

static void test_bad_edits(void **state) {
  (void)state;
  copy_data("rig.ma", "");
  copy_data("bad_edits.ma", "");
  sinew_session_t *s = session(false);
  open_ok(s, tmp("bad_edits.ma"));
  /* each failed edit is a warning naming the reference node and the edit */
  assert_int_equal(logged(SINEW_LOG_REFERENCE_EDIT_FAILED, "heroRN"), 4);
  assert_int_equal(logged(SINEW_LOG_REFERENCE_EDIT_FAILED, "holds more"), 1); /* one command per edit */
  assert_int_equal(logged(SINEW_LOG_REFERENCE_EDIT_FAILED, "hero:no_such_node"), 1);
  assert_int_equal(logged(SINEW_LOG_REFERENCE_EDIT_FAILED, "8 \"|hero:rig_grp|hero:ctrl\" \"translateX\""), 0);
  assert_int_equal(logged(SINEW_LOG_REFERENCE_EDIT_FAILED, ":initialShadingGroup.dagSetMembers"), 1);
  assert_int_equal(logged(SINEW_LOG_REFERENCE_EDIT_FAILED, "hero:ctrl.notThere"), 1);
  /* the edits after them are applied; the placeholder connection that found no plug stays */
  assert_float_equal(get(s, "hero:ctrl.bend"), 9, 1e-12);
  assert_float_equal(get(s, "hero:ctrl.tx"), 4, 1e-12);
  sinew_plug_t phl, src;
  assert_int_equal(sinew_plug_parse(sinew_session_graph(s), "heroRN.phl[1]", (sinew_node_t){0, 0}, &phl), 0);
  assert_true(sinew_plug_source(sinew_session_graph(s), &phl, &src));
  /* failed edits are kept, as Maya keeps them */
  sinew_session_t *t = save_and_reopen(s, "bad_out.ma");
  char *text = slurp(tmp("bad_out.ma"));
  assert_non_null(strstr(text, "2 \"|hero:rig_grp|hero:no_such_node\" \"translate\""));
  assert_non_null(strstr(text, "8 \"|hero:rig_grp|hero:ctrl\" \"translateX\""));
  assert_non_null(strstr(text, "3 \"\" \":initialShadingGroup.dagSetMembers\" \"-na\""));
  assert_non_null(strstr(text, "5 4 \"heroRN\" \"|hero:rig_grp|hero:ctrl.notThere\" \"heroRN.placeHolderList[1]\" \"\""));
  assert_non_null(strstr(text, "connectAttr \"driver.tx\" \"heroRN.phl[1]\";"));
  assert_non_null(strstr(text, "2 \"|hero:rig_grp|hero:ctrl\" \"bend\" \" 9\""));
  free(text);
  assert_float_equal(get(t, "hero:ctrl.bend"), 9, 1e-12);
  sinew_session_destroy(t);
  sinew_session_destroy(s);
}

/* Lock edits (7 unlock, 8 lock: node, attribute) are applied in their order, so a setAttr edit
 * of a plug an earlier edit locked fails as in Maya; they are kept and written back. file -lr of
 * a loaded reference changes nothing and returns its file; file -ur is refused. */
static void test_lock_edits_and_loading(void **state) {
  (void)state;
  copy_data("rig.ma", "");
  spill(tmp("locks.ma"),
        "//Maya ASCII 2020 scene\n//Name: locks.ma\n//Codeset: UTF-8\n"
        "file -rdi 1 -ns \"hero\" -rfn \"heroRN\" -op \"v=0;\" -typ \"mayaAscii\" \"rig.ma\";\n"
        "file -r -ns \"hero\" -dr 1 -rfn \"heroRN\" -op \"v=0;\" -typ \"mayaAscii\" \"rig.ma\";\n"
        "requires maya \"2020\";\ncurrentUnit -l centimeter -a degree -t film;\n"
        "createNode transform -n \"driver\";\n"
        "createNode reference -n \"heroRN\";\n"
        "\tsetAttr \".ed\" -type \"dataReferenceEdits\" \n\t\t\"heroRN\"\n\t\t\"heroRN\" 4\n"
        "\t\t8 \"|hero:rig_grp|hero:ctrl\" \"translateY\"\n"
        "\t\t8 \"|hero:rig_grp|hero:ctrl\" \"translateZ\"\n"
        "\t\t7 \"|hero:rig_grp|hero:ctrl\" \"translateZ\"\n"
        "\t\t2 \"|hero:rig_grp|hero:ctrl\" \"translateY\" \" 4\";\n"
        "// End of locks.ma\n");
  sinew_session_t *s = session(false);
  open_ok(s, tmp("locks.ma"));
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_plug_t ty, tz;
  assert_int_equal(sinew_plug_parse(g, "hero:ctrl.ty", (sinew_node_t){0, 0}, &ty), 0);
  assert_int_equal(sinew_plug_parse(g, "hero:ctrl.tz", (sinew_node_t){0, 0}, &tz), 0);
  assert_true(sinew_plug_locked(g, &ty));
  assert_false(sinew_plug_locked(g, &tz));
  assert_int_equal(logged(SINEW_LOG_REFERENCE_EDIT_FAILED, NULL), 1);
  assert_int_equal(logged(SINEW_LOG_REFERENCE_EDIT_FAILED, "2 \"|hero:rig_grp|hero:ctrl\" \"translateY\""), 1);
  assert_float_equal(get(s, "hero:ctrl.ty"), 1, 1e-12); /* the rig's own value */
  assert_int_not_equal(sinew_session_run(s, "setAttr hero:ctrl.ty 3;", 23, "test", NULL), 0);
  run(s, "setAttr hero:ctrl.tz 3;");
  /* loading state */
  sinew_value_t v = {0};
  const char *q = "referenceQuery -il heroRN";
  assert_int_equal(sinew_session_run(s, q, strlen(q), "test", &v), 0);
  assert_int_equal(sinew_value_to_int(&v), 1);
  sinew_value_clear(&v);
  run(s, "string $f = `file -lr heroRN`;");
  q = "file -lr heroRN";
  assert_int_equal(sinew_session_run(s, q, strlen(q), "test", &v), 0);
  assert_int_equal(v.kind, SINEW_VALUE_STRING);
  assert_non_null(strstr(sinew_value_string(&v), "rig.ma"));
  sinew_value_clear(&v);
  q = "file -ur heroRN;";
  assert_int_not_equal(sinew_session_run(s, q, strlen(q), "test", NULL), 0);
  assert_non_null(strstr(sinew_session_errmsg(s), "-unloadReference heroRN"));
  assert_non_null(strstr(sinew_session_errmsg(s), "not supported"));
  q = "file -lr driver;";
  assert_int_not_equal(sinew_session_run(s, q, strlen(q), "test", NULL), 0);
  assert_non_null(strstr(sinew_session_errmsg(s), "not a reference node"));
  q = "file -lr nosuch;";
  assert_int_not_equal(sinew_session_run(s, q, strlen(q), "test", NULL), 0);
  assert_non_null(strstr(sinew_session_errmsg(s), "nosuch"));
  assert_true(sinew_plug_locked(g, &ty));
  /* kept and written back; reopened, the same locks */
  sinew_session_t *t = save_and_reopen(s, "locks_out.ma");
  char *text = slurp(tmp("locks_out.ma"));
  assert_non_null(strstr(text, "8 \"|hero:rig_grp|hero:ctrl\" \"translateY\""));
  assert_non_null(strstr(text, "7 \"|hero:rig_grp|hero:ctrl\" \"translateZ\""));
  free(text);
  g = sinew_session_graph(t);
  assert_int_equal(sinew_plug_parse(g, "hero:ctrl.ty", (sinew_node_t){0, 0}, &ty), 0);
  assert_true(sinew_plug_locked(g, &ty));
  assert_float_equal(get(t, "hero:ctrl.tz"), 3, 1e-12);
  sinew_session_destroy(t);
  sinew_session_destroy(s);
}

/* ---- where referenced files are found ------------------------------------------------------------------ */

static void test_search_path(void **state) {
  (void)state;
  assert_int_equal(mkdir(tmp("scene"), 0700), 0);
  assert_int_equal(mkdir(tmp("lib"), 0700), 0);
  copy_data("shot.ma", "scene");
  copy_data("rig.ma", "lib");
  sinew_session_t *s = session(false);
  open_ok(s, tmp("scene/shot.ma"));
  assert_int_equal(logged(SINEW_LOG_REFERENCE_MISSING, "rig.ma"), 1);
  assert_false(exists(s, "hero:ctrl"));
  sinew_session_destroy(s);
  /* each folder of SINEW_REFERENCE_PATH, in order */
  char path[700];
  snprintf(path, sizeof path, "%s:%s", tmp("nothing"), tmp("lib"));
  setenv("SINEW_REFERENCE_PATH", path, 1);
  s = session(true);
  open_ok(s, tmp("scene/shot.ma"));
  check_shot(s, 5, 8, 2);
  sinew_session_destroy(s);
  unsetenv("SINEW_REFERENCE_PATH");
  /* a path from another machine: the file of that name beside the scene */
  char *text = slurp(tmp("scene/shot.ma"));
  char *fixed = malloc(strlen(text) * 2 + 64);
  assert_non_null(fixed);
  fixed[0] = 0;
  for (const char *p = text, *hit; *p; p = hit + 8) {
    hit = strstr(p, "\"rig.ma\"");
    if (!hit) {
      strcat(fixed, p);
      break;
    }
    strncat(fixed, p, (size_t)(hit - p));
    strcat(fixed, "\"C:/projects/hero/rig.ma\"");
  }
  spill(tmp("lib/shot.ma"), fixed);
  free(text);
  free(fixed);
  s = session(true);
  open_ok(s, tmp("lib/shot.ma"));
  check_shot(s, 5, 8, 2);
  sinew_session_destroy(s);
}

/* A file -i between the file -r line and the reference node: the imported file ending first does
 * not apply the reference's edits before the main file made its placeholder connections. */
static void test_import_inside_main(void **state) {
  (void)state;
  copy_data("rig.ma", "");
  copy_data("shot.ma", "");
  spill(tmp("other.ma"), "createNode transform -n \"imported\";\n");
  char *text = slurp(tmp("shot.ma"));
  const char *at = strstr(text, "createNode transform -n \"driver\";");
  assert_non_null(at);
  char *with = malloc(strlen(text) + 64);
  assert_non_null(with);
  size_t cap = strlen(text) + 700;
  with = realloc(with, cap);
  assert_non_null(with);
  snprintf(with, cap, "%.*sfile -i \"%s\";\n%s", (int)(at - text), text, tmp("other.ma"), at);
  spill(tmp("shot.ma"), with);
  free(with);
  free(text);
  sinew_session_t *s = session(true);
  open_ok(s, tmp("shot.ma"));
  check_shot(s, 5, 8, 2);
  assert_true(exists(s, "imported"));
  assert_null(sinew_session_node_reference(s, node(s, "imported")));
  sinew_session_destroy(s);
}

/* A real auto-rigger's biped (tests/data/omtk) referenced by a scene: the same nodes and the same
 * world matrices as opening it, and a scene that changes nothing saves no edit. */
static void test_real_rig_reference(void **state) {
  (void)state;
  char rig[600];
  snprintf(rig, sizeof rig, "%s/omtk/rig_example_02_built.ma", SINEW_TEST_DATA_DIR);
  sinew_session_t *direct = session(false);
  open_ok(direct, rig);
  char text[1200];
  snprintf(text, sizeof text,
           "//Maya ASCII 2020 scene\n"
           "file -rdi 1 -ns \"bob\" -rfn \"bobRN\" -op \"v=0;\" -typ \"mayaAscii\" \"%s\";\n"
           "file -r -ns \"bob\" -dr 1 -rfn \"bobRN\" -op \"v=0;\" -typ \"mayaAscii\" \"%s\";\n"
           "requires maya \"2020\";\n"
           "createNode reference -n \"bobRN\";\n"
           "\tsetAttr \".ed\" -type \"dataReferenceEdits\" \n\t\t\"bobRN\"\n\t\t\"bobRN\" 0;\n",
           rig, rig);
  spill(tmp("biped_shot.ma"), text);
  sinew_session_t *s = session(false);
  open_ok(s, tmp("biped_shot.ma"));
  sinew_graph_t *g = sinew_session_graph(direct), *h = sinew_session_graph(s);
  assert_int_equal(sinew_node_list_type(h, "joint", true, NULL, 0), sinew_node_list_type(g, "joint", true, NULL, 0));
  size_t referenced = 0;
  sinew_node_t it = {0, 0};
  while (sinew_node_next(h, &it)) referenced += sinew_session_node_reference(s, it) != NULL;
  /* every node of the rig but the shared ones (time1, the default nodes the file selects) */
  assert_true(referenced > 0);
  assert_true(referenced <= sinew_node_count(g));
  assert_true(referenced + 10 >= sinew_node_count(g));
  static const char *const joints[][2] = {
      {"|All_Grp|Data_Grp|L_Arm_Grp|Jnt_Upperarm_Blend", "|bob:All_Grp|bob:Data_Grp|bob:L_Arm_Grp|bob:Jnt_Upperarm_Blend"},
      {"|All_Grp|Data_Grp|L_Arm_Grp|Jnt_Upperarm_Blend|Jnt_Forearm_Blend",
       "|bob:All_Grp|bob:Data_Grp|bob:L_Arm_Grp|bob:Jnt_Upperarm_Blend|bob:Jnt_Forearm_Blend"},
      {"|All_Grp|Data_Grp|L_Arm_Grp|Jnt_Upperarm_Blend|Jnt_Forearm_Blend|Jnt_Hand_Blend",
       "|bob:All_Grp|bob:Data_Grp|bob:L_Arm_Grp|bob:Jnt_Upperarm_Blend|bob:Jnt_Forearm_Blend|bob:Jnt_Hand_Blend"}};
  for (size_t j = 0; j < 3; j++) {
    double a[3], b[3];
    world_pos(direct, joints[j][0], a);
    world_pos(s, joints[j][1], b);
    for (int i = 0; i < 3; i++) assert_float_equal(a[i], b[i], 1e-9);
  }
  sinew_session_t *t = save_and_reopen(s, "biped_out.ma");
  char *saved = slurp(tmp("biped_out.ma"));
  assert_non_null(strstr(saved, "\"bobRN\" 0;"));
  assert_null(strstr(saved, "createNode joint"));
  free(saved);
  sinew_session_destroy(t);
  sinew_session_destroy(s);
  sinew_session_destroy(direct);
}

/* ---- file -r in a script -------------------------------------------------------------------------------- */

static void test_script_reference(void **state) {
  (void)state;
  copy_data("rig.ma", "");
  sinew_session_t *s = session(false);
  char mel[800];
  snprintf(mel, sizeof mel, "file -r -ns \"kid\" \"%s\"; setAttr kid:ctrl.tx 7;", tmp("rig.ma"));
  run(s, mel);
  assert_string_equal(sinew_session_node_reference(s, node(s, "kid:ctrl")), "kidRN");
  sinew_session_t *t = save_and_reopen(s, "script_out.ma");
  char *text = slurp(tmp("script_out.ma"));
  assert_non_null(strstr(text, "createNode reference -n \"kidRN\";"));
  /* Maya's lines, naming the reference node the file makes (so Maya makes no other) */
  assert_non_null(strstr(text, "file -rdi 1 -ns \"kid\" -rfn \"kidRN\" -typ \"mayaAscii\" \""));
  assert_non_null(strstr(text, "file -r -ns \"kid\" -dr 1 -rfn \"kidRN\" -typ \"mayaAscii\" \""));
  assert_null(strstr(text, "createNode joint"));
  free(text);
  assert_float_equal(get(t, "kid:ctrl.tx"), 7, 1e-12);
  assert_float_equal(get(t, "kid:ctrl.ty"), 1, 1e-12);
  sinew_session_destroy(t);
  /* the same file twice: the second gets the next free namespace, as in Maya */
  snprintf(mel, sizeof mel, "file -r -ns \"kid\" \"%s\"; setAttr kid1:ctrl.tx 3;", tmp("rig.ma"));
  run(s, mel);
  assert_string_equal(sinew_session_node_reference(s, node(s, "kid1:ctrl")), "kid1RN");
  assert_float_equal(get(s, "kid:ctrl.tx"), 7, 1e-12);
  t = save_and_reopen(s, "script_twice.ma");
  assert_float_equal(get(t, "kid1:ctrl.tx"), 3, 1e-12);
  assert_float_equal(get(t, "kid:ctrl.tx"), 7, 1e-12);
  sinew_session_destroy(t);
  /* a missing file is a warning in a script too; a file -r without a file is an error */
  loglen = 0;
  logtext[0] = 0;
  run(s, "file -r -ns \"nobody\" \"no_such_rig.ma\";");
  assert_int_equal(logged(SINEW_LOG_REFERENCE_MISSING, "nobodyRN"), 1);
  assert_int_not_equal(sinew_session_run(s, "file -r;", 8, "test", NULL), 0);
  sinew_session_destroy(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_reference_loads, make_tmpdir, remove_tmpdir),
      cmocka_unit_test_setup_teardown(test_reference_save_reopen, make_tmpdir, remove_tmpdir),
      cmocka_unit_test_setup_teardown(test_nested_reference, make_tmpdir, remove_tmpdir),
      cmocka_unit_test_setup_teardown(test_missing_reference, make_tmpdir, remove_tmpdir),
      cmocka_unit_test_setup_teardown(test_self_reference, make_tmpdir, remove_tmpdir),
      cmocka_unit_test_setup_teardown(test_bad_edits, make_tmpdir, remove_tmpdir),
      cmocka_unit_test_setup_teardown(test_lock_edits_and_loading, make_tmpdir, remove_tmpdir),
      cmocka_unit_test_setup_teardown(test_search_path, make_tmpdir, remove_tmpdir),
      cmocka_unit_test_setup_teardown(test_import_inside_main, make_tmpdir, remove_tmpdir),
      cmocka_unit_test_setup_teardown(test_real_rig_reference, make_tmpdir, remove_tmpdir),
      cmocka_unit_test_setup_teardown(test_script_reference, make_tmpdir, remove_tmpdir),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
