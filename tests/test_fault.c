/* tests/test_fault.c: the fault-injection harness (tests/support.c) over the command set and over
 * file -i of every .ma file in tests/data. Every allocation of a command failing in turn (or,
 * for a file, allocations spread over the whole read) must leave the scene saved as .ma
 * byte-identical to the save before, and leak nothing. SINEW_FAULT_POINTS=n tries about n
 * allocations of each file read (default: fewer for bigger files). */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "sinew/mesh.h"
#include "tests/support.h"

/* ---- every .ma file under tests/data, made to fail while it is imported ------------------------ */

static char files[128][512];
static size_t nfiles;

static int cmp_str(const void *a, const void *b) { return strcmp(a, b); }

static void list_dir(const char *dir, int depth) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    size_t n = strlen(e->d_name);
    if (n > 3 && strcmp(e->d_name + n - 3, ".ma") == 0) {
      if (nfiles == sizeof files / sizeof *files) fail_msg("more than %zu .ma files", nfiles);
      snprintf(files[nfiles++], sizeof files[0], "%s", path);
    } else if (depth < 3) {
      list_dir(path, depth + 1);
    }
  }
  closedir(d);
}

static long points_for(const char *path) {
  const char *env = getenv("SINEW_FAULT_POINTS");
  if (env && atol(env) > 0) return atol(env);
  struct stat st;
  long size = stat(path, &st) == 0 ? (long)st.st_size : 1;
  long p = 1000000 / (size ? size : 1);
  return p < 3 ? 3 : p > 20 ? 20 : p;
}

/* The file imported over itself (every name clashes, shared nodes are set again) and into a
 * scene of a few nodes, failing at allocations spread over the read (running out of memory
 * fails a read that skips failing lines). */
static void test_import_fails_midway(void **st) {
  (void)st;
  list_dir(SINEW_TEST_DATA_DIR, 0);
  qsort(files, nfiles, sizeof files[0], cmp_str);
  if (nfiles < 30) fail_msg("only %zu .ma files under %s", nfiles, SINEW_TEST_DATA_DIR);
  for (size_t i = 0; i < nfiles; i++) {
    char setup[1200], command[700];
    snprintf(setup, sizeof setup, "file -f -o \"%s\";", files[i]);
    snprintf(command, sizeof command, "file -i \"%s\";", files[i]);
    test_fault_desc_t d = {.setup = setup, .command = command, .points = points_for(files[i])};
    long failed = test_fault_command(&d);
    d.setup = "createNode transform -n joint1; createNode joint -n joint2 -p joint1; setAttr joint2.tx 3;"
              "currentUnit -l mm; playbackOptions -min 3 -max 40; select joint1;";
    failed += test_fault_command(&d);
    if (failed == 0) fail_msg("%s: no injected failure made the import fail", files[i]);
  }
}

/* ---- the command set ------------------------------------------------------------------------- */

/* A small rig every command below runs on. */
static const char *const rig =
    "createNode transform -n a; createNode transform -n b -p a; setAttr a.t 1 2 3;"
    "addAttr -ln note -dt \"string\" b; setAttr b.note -type \"string\" \"hi\";"
    "addAttr -ln amount -at double -min 0 -max 10 -dv 2 a; createNode multiplyDivide -n md;"
    "connectAttr a.tx md.i1x; createNode transform -n c; setAttr -k off a.ty;"
    "select -cl; joint -n j0 -p 0 0 0; joint -n j1 -p 1 0 0; joint -n j2 -p 2 0 0;"
    "polyCube -n box -sx 2 -sy 2 -sz 2; skinCluster -n boxSkin -tsb j0 j1 box;"
    "setKeyframe -t 1 -v 3 -at i2y md; select -cl;";

/* Every command kind, each with every allocation failing in turn (long ones at about 150
 * points spread over their allocations). */
static void test_command_set(void **st) {
  (void)st;
  static const char *const commands[] = {
      "createNode transform -n x -p a",
      "setAttr a.tx 5",
      "setAttr a.t 4 5 6",
      "setAttr b.note -type \"string\" \"a longer text than before\"",
      "setAttr b.opm -type \"matrix\" 1 0 0 0 0 1 0 0 0 0 1 0 4 5 6 1",
      "setAttr -l on -k on -cb on a.amount",
      "setAttr -k on -cb off a.ty",
      "addAttr -ln list -at double -m c",
      "setAttr boxSkin.wl[1].w[0] 0.3",
      "setAttr boxShape.pnts[2] 0.5 0 0",
      "deleteAttr a.amount",
      "connectAttr -f a.ty md.i1x",
      "disconnectAttr a.tx md.i1x",
      "connectAttr a.rx md.i2z", /* through a new unitConversion node */
      "parent c a",
      "parent -w b",
      "rename a arm",
      "delete a",
      "lockNode -l on md",
      "duplicate -n a2 a",
      "duplicate -rc j0",
      "sets -n grpSet a md",
      "setKeyframe -t 10 -v 8 -at tx c",
      "parentConstraint -mo a c",
      "pointConstraint j2 c",
      "polySphere -n ball",
      "joint -e -oj xyz -sao yup -ch j0",
      "ikHandle -sj j0 -ee j2",
      "skinCluster -e -ai j2 boxSkin",
      "skinCluster -e -ri j1 boxSkin",
      "skinPercent -tv j0 0.25 boxSkin box.vtx[0:3]",
      "skinCluster -e -ub boxSkin",
      "dagPose -s -n pose1 j0 j1",
      "dagPose -r -g bindPose1",
      "expression -n ex -s \"md.i2x = a.tx * 2 + time;\"",
      "group -n grp a c",
  };
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
    test_fault_desc_t d = {.setup = rig, .command = commands[i], .points = 150};
    if (test_fault_command(&d) == 0) fail_msg("'%s': no injected failure made it fail", commands[i]);
  }
  /* with the undo queue off, each command still runs in a transaction of its own */
  char off[2048];
  snprintf(off, sizeof off, "%s undoInfo -state off;", rig);
  static const char *const queue_off[] = {"skinCluster -e -ai j2 boxSkin", "duplicate -rc j0", "delete a"};
  for (size_t i = 0; i < sizeof queue_off / sizeof *queue_off; i++) {
    test_fault_desc_t d = {.setup = off, .command = queue_off[i], .points = 150};
    if (test_fault_command(&d) == 0) fail_msg("'%s': no injected failure made it fail", queue_off[i]);
  }
  /* the animation commands, with keys on the clipboard for pasteKey */
  static const char *const anim[] = {
      "cutKey -t 1 -at i2y md",
      "keyframe -e -r -tc 2 -at i2y md",
      "setInfinity -pri cycle -at i2y md",
      "keyTangent -itt linear -ott linear -at i2y md",
      "setDrivenKeyframe -cd a.tx -dv 0 -v 1 -at sy c",
      "bakeResults -t \"1:5\" -at tx a",
      "pasteKey -at i1z md",
  };
  char setup[2048];
  snprintf(setup, sizeof setup, "%s setKeyframe -t 8 -v 1 -at i2y md; copyKey -at i2y md;", rig);
  for (size_t i = 0; i < sizeof anim / sizeof *anim; i++) {
    test_fault_desc_t d = {.setup = setup, .command = anim[i], .points = 150};
    if (test_fault_command(&d) == 0) fail_msg("'%s': no injected failure made it fail", anim[i]);
  }
}

/* What the rig evaluates to: the skinned cube's points and the multiplyDivide's inputs (which
 * an expression may drive), one per line. */
static char *rig_values(sinew_session_t *s) {
  sinew_graph_t *g = sinew_session_graph(s);
  size_t cap = 1 << 14, n = 0;
  char *out = malloc(cap);
  assert_non_null(out);
  out[0] = 0;
  sinew_node_t shape;
  sinew_plug_t p;
  sinew_data_t *d = NULL;
  if (sinew_node_find(g, "boxShape", &shape) == SINEW_OK && sinew_plug_parse(g, "boxShape.o", shape, &p) == SINEW_OK &&
      sinew_get_data(g, &p, &d) == SINEW_OK && sinew_mesh_get(d)) {
    const sinew_mesh_t *m = sinew_mesh_get(d);
    for (uint32_t i = 0; i < m->npoints && n + 100 < cap; i++)
      n += (size_t)snprintf(out + n, cap - n, "%.9g %.9g %.9g\n", m->points[3 * i], m->points[3 * i + 1],
                            m->points[3 * i + 2]);
  }
  sinew_data_unref(d);
  static const char *const plugs[] = {"md.i2x", "md.i1x", "md.i2y", "c.sy"};
  for (size_t i = 0; i < sizeof plugs / sizeof *plugs && n + 100 < cap; i++) {
    double v = 0;
    if (sinew_plug_parse(g, plugs[i], (sinew_node_t){0, 0}, &p) == SINEW_OK && sinew_get_double(g, &p, &v) == SINEW_OK)
      n += (size_t)snprintf(out + n, cap - n, "%s %.17g\n", plugs[i], v);
  }
  return out;
}

/* Node types with internal state rebuild it from their attributes after a rollback: a failing
 * weight edit or expression edit leaves the scene evaluating as before. */
static void test_derived_state(void **st) {
  (void)st;
  char setup[2048];
  snprintf(setup, sizeof setup, "%s setAttr j1.rz 30; expression -n ex -s \"md.i2x = a.tx * 2 + 1;\";", rig);
  static const char *const commands[] = {
      "skinPercent -tv j0 0.25 boxSkin box.vtx[0:5]",
      "skinCluster -e -ai j2 -wt 0.5 boxSkin",
      "skinCluster -e -ri j1 boxSkin",
      "expression -e -s \"md.i2x = a.ty * 3 + time;\" ex",
      "setAttr a.tx 4",
  };
  sinew_session_t *s = NULL;
  assert_int_equal(sinew_session_create(NULL, &s), SINEW_OK);
  assert_int_equal(sinew_session_run(s, setup, strlen(setup), "setup", NULL), SINEW_OK);
  char *v = rig_values(s);
  size_t lines = 0;
  for (const char *c = v; *c; c++) lines += *c == '\n';
  if (lines != 26 + 4 || !strstr(v, "md.i2x 3\n")) fail_msg("the probe reads:\n%s", v);
  free(v);
  sinew_session_destroy(s);
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
    test_fault_desc_t d = {.setup = setup, .command = commands[i], .points = 100, .probe = rig_values};
    if (test_fault_command(&d) == 0) fail_msg("'%s': no injected failure made it fail", commands[i]);
  }
}

/* A line of a file that fails after changing something (a rename, then a text that does not
 * bind) is skipped whole when the file is read by file -i or file -o (keep-going reading): the
 * rest of the file is read, and the failing line changed nothing. */
static void test_skipped_line(void **st) {
  (void)st;
  char path[256];
  snprintf(path, sizeof path, "/tmp/sinew-skipped-%ld.ma", (long)getpid());
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("//Maya ASCII 2020 scene\n"
        "createNode multiplyDivide -n md;\n"
        "expression -n ex -s \"md.i1x = 2;\";\n"
        "expression -e -n exRenamed -s \"md.noSuchAttribute = 1;\" ex;\n"
        "createNode transform -n after;\n", f);
  fclose(f);
  for (int mode = 0; mode < 2; mode++) {
    sinew_session_t *s = NULL;
    assert_int_equal(sinew_session_create(NULL, &s), SINEW_OK);
    char text[600];
    snprintf(text, sizeof text, "file %s \"%s\";", mode ? "-o -f" : "-i", path);
    int rc = sinew_session_run(s, text, strlen(text), "test", NULL);
    if (rc) fail_msg("%s: %s", text, sinew_session_errmsg(s));
    sinew_graph_t *g = sinew_session_graph(s);
    sinew_node_t n;
    assert_int_equal(sinew_node_find(g, "after", &n), SINEW_OK);
    assert_int_equal(sinew_node_find(g, "ex", &n), SINEW_OK);
    assert_int_equal(sinew_node_find(g, "exRenamed", &n), SINEW_ENOTFOUND);
    sinew_session_destroy(s);
  }
  remove(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_command_set),
      cmocka_unit_test(test_derived_state),
      cmocka_unit_test(test_skipped_line),
      cmocka_unit_test(test_import_fails_midway),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
