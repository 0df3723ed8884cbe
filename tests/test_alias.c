/* tests/test_alias.c: attribute aliases (graph/alias.c, cmds/cmd_alias.c; docs/graph.md
 * "Attribute aliases"). The graph API: every plug name resolves an alias, conflicts are
 * refused, a plug has one alias, aliases are journaled (rollback, undo, redo) and go with the
 * element or dynamic attribute they name. The commands: aliasAttr (create, -q, -rm), setAttr /
 * getAttr / connectAttr / listAttr -m / attributeQuery through an alias, the blendShape
 * command naming its weights after the targets, the .aal lines files hold (both forms, read
 * from maya-usd's blendShapesExport.ma and written back), failures leaving the scene as it
 * was, undo, and every allocation failing in turn. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinew/cmds.h"
#include "sinew/sinew.h"
#include "tests/support.h"

static const sinew_attr_desc_t attrs[] = {
    {.name = "input", .short_name = "in", .type = SINEW_ATTR_DOUBLE},
    {.name = "weight", .short_name = "w", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY},
    {.name = "pos", .type = SINEW_ATTR_COMPOUND},
    {.name = "posX", .type = SINEW_ATTR_DOUBLE, .parent = "pos"},
    {.name = "posY", .type = SINEW_ATTR_DOUBLE, .parent = "pos"},
    {.name = "output", .short_name = "out", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT},
};
static const sinew_affects_t affects[] = {{"weight", "output"}, {"input", "output"}};

/* output = input + the sum of the weights */
static int sum_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  sinew_plug_t w = sinew_plug_make(n, sinew_node_attr(g, n, "weight"), 0, NULL);
  sinew_plug_t in = sinew_plug_make(n, sinew_node_attr(g, n, "input"), 0, NULL);
  double sum = 0, v;
  int32_t ix[16];
  size_t k = sinew_plug_indices(g, &w, ix, 16);
  for (size_t i = 0; i < k && i < 16; i++) {
    sinew_plug_t e;
    sinew_plug_element(g, &w, ix[i], &e);
    if (!sinew_get_double(g, &e, &v)) sum += v;
  }
  if (!sinew_get_double(g, &in, &v)) sum += v;
  return sinew_compute_set_double(ctx, plug, sum);
}

static sinew_graph_t *graph(void) {
  sinew_graph_t *g;
  assert_int_equal(sinew_graph_create(NULL, &g), 0);
  assert_int_equal(sinew_register_node_type(g, &(sinew_node_type_desc_t){.name = "sum", .attrs = attrs,
                                                .attr_count = 6, .affects = affects, .affects_count = 2,
                                                .compute = sum_compute}, NULL),
                   0);
  assert_int_equal(sinew_node_create(g, "sum", "a", NULL), 0);
  assert_int_equal(sinew_node_create(g, "sum", "b", NULL), 0);
  return g;
}

static sinew_plug_t plug(sinew_graph_t *g, const char *text) {
  sinew_plug_t p;
  if (sinew_plug_parse(g, text, (sinew_node_t){0}, &p)) fail_msg("%s: %s", text, sinew_graph_errmsg(g));
  return p;
}

static void set1(sinew_graph_t *g, const char *text, double v) {
  sinew_plug_t p = plug(g, text);
  if (sinew_set_double(g, &p, v)) fail_msg("%s: %s", text, sinew_graph_errmsg(g));
}

static double get1(sinew_graph_t *g, const char *text) {
  sinew_plug_t p = plug(g, text);
  double v = -1;
  if (sinew_get_double(g, &p, &v)) fail_msg("%s: %s", text, sinew_graph_errmsg(g));
  return v;
}

static void alias(sinew_graph_t *g, const char *name, const char *text) {
  sinew_plug_t p = plug(g, text);
  if (sinew_alias_set(g, &p, name)) fail_msg("%s %s: %s", name, text, sinew_graph_errmsg(g));
}

/* The node's aliases as "name=attr name=attr". */
static const char *aliases(sinew_graph_t *g, const char *node) {
  static char out[1024];
  sinew_node_t n;
  assert_int_equal(sinew_node_find(g, node, &n), 0);
  size_t used = 0;
  out[0] = 0;
  for (size_t i = 0; i < sinew_alias_count(g, n); i++) {
    const char *name;
    sinew_plug_t p;
    char buf[256];
    assert_int_equal(sinew_alias_at(g, n, i, &name, &p), 0);
    sinew_plug_format_attr(g, &p, false, buf, sizeof buf);
    used += (size_t)snprintf(out + used, sizeof out - used, "%s%s=%s", i ? " " : "", name, buf);
  }
  return out;
}

/* ---- the graph API ------------------------------------------------------------------------ */

static void test_resolve(void **state) {
  (void)state;
  sinew_graph_t *g = graph();
  alias(g, "smile", "a.w[0]");
  alias(g, "frown", "a.weight[3]");
  alias(g, "where", "a.pos");
  assert_string_equal(aliases(g, "a"), "smile=weight[0] frown=weight[3] where=pos");
  /* every name of a plug on the node resolves: set, get, connect, a child below a compound */
  sinew_plug_t p = plug(g, "a.smile"), want = plug(g, "a.weight[0]");
  assert_true(sinew_plug_equal(&p, &want));
  set1(g, "a.smile", 2);
  set1(g, "a.frown", 3);
  assert_true(get1(g, "a.w[0]") == 2);
  assert_true(get1(g, "a.output") == 5);
  p = plug(g, "a.where.posY");
  want = plug(g, "a.posY");
  assert_true(sinew_plug_equal(&p, &want));
  sinew_plug_t src = plug(g, "b.output"), dst = plug(g, "a.smile");
  assert_int_equal(sinew_connect(g, &src, &dst, 0, NULL), 0);
  set1(g, "b.in", 7);
  assert_true(get1(g, "a.output") == 10);
  /* the alias is the node's own: another node does not have it; lookups */
  assert_int_equal(sinew_plug_parse(g, "b.smile", (sinew_node_t){0}, &p), SINEW_ENOTFOUND);
  assert_non_null(strstr(sinew_graph_errmsg(g), "has no attribute 'smile'"));
  sinew_node_t a;
  sinew_node_find(g, "a", &a);
  assert_int_equal(sinew_alias_find(g, a, "frown", &p), 0);
  want = plug(g, "a.w[3]");
  assert_true(sinew_plug_equal(&p, &want));
  assert_int_equal(sinew_alias_find(g, a, "grin", &p), SINEW_ENOTFOUND);
  assert_string_equal(sinew_plug_alias(g, &want), "frown");
  want = plug(g, "a.w[1]");
  assert_null(sinew_plug_alias(g, &want));
  assert_int_equal(sinew_alias_at(g, a, 3, NULL, NULL), SINEW_ERANGE);
  /* plugs print under their own names (as files write them) */
  char buf[64];
  p = plug(g, "a.smile");
  sinew_plug_format(g, &p, false, buf, sizeof buf);
  assert_string_equal(buf, "a.weight[0]");
  sinew_graph_destroy(g);
}

static void test_conflicts(void **state) {
  (void)state;
  sinew_graph_t *g = graph();
  sinew_plug_t w0 = plug(g, "a.w[0]"), w1 = plug(g, "a.w[1]");
  /* names of attributes (long or short), another plug's alias, not a name */
  assert_int_equal(sinew_alias_set(g, &w0, "input"), SINEW_EEXISTS);
  assert_non_null(strstr(sinew_graph_errmsg(g), "a already has an attribute named 'input'"));
  assert_int_equal(sinew_alias_set(g, &w0, "out"), SINEW_EEXISTS);
  assert_int_equal(sinew_alias_set(g, &w0, "2x"), SINEW_EINVAL);
  assert_int_equal(sinew_alias_set(g, &w0, "a.b"), SINEW_EINVAL);
  assert_int_equal(sinew_alias_set(g, &w0, ""), SINEW_EINVAL);
  assert_int_equal(sinew_alias_set(g, &w0, "smile"), 0);
  assert_int_equal(sinew_alias_set(g, &w1, "smile"), SINEW_EEXISTS);
  assert_non_null(strstr(sinew_graph_errmsg(g), "'smile' is already the alias of a.weight[0]"));
  assert_string_equal(aliases(g, "a"), "smile=weight[0]");
  /* the same alias again changes nothing; a new one renames (one alias per plug) */
  assert_int_equal(sinew_alias_set(g, &w0, "smile"), 0);
  assert_int_equal(sinew_alias_set(g, &w0, "grin"), 0);
  assert_string_equal(aliases(g, "a"), "grin=weight[0]");
  /* a dynamic attribute cannot take an alias's name */
  sinew_node_t a;
  sinew_node_find(g, "a", &a);
  sinew_attr_desc_t d = {.name = "grin", .type = SINEW_ATTR_DOUBLE};
  assert_int_equal(sinew_node_add_attr(g, a, &d, 1), SINEW_EEXISTS);
  assert_non_null(strstr(sinew_graph_errmsg(g), "alias named 'grin'"));
  d = (sinew_attr_desc_t){.name = "extra", .short_name = "grin", .type = SINEW_ATTR_DOUBLE};
  assert_int_equal(sinew_node_add_attr(g, a, &d, 1), SINEW_EEXISTS);
  d.short_name = "ex";
  assert_int_equal(sinew_node_add_attr(g, a, &d, 1), 0);
  uint32_t ex = sinew_node_attr(g, a, "extra");
  assert_int_equal(sinew_node_rename_attr(g, a, ex, "grin", false), SINEW_EEXISTS);
  /* remove: by the plug; a plug with no alias */
  assert_int_equal(sinew_alias_remove(g, &w1), SINEW_ENOTFOUND);
  assert_int_equal(sinew_alias_remove(g, &w0), 0);
  assert_string_equal(aliases(g, "a"), "");
  assert_int_equal(sinew_node_rename_attr(g, a, ex, "grin", false), 0);
  sinew_graph_destroy(g);
}

static void test_journal(void **state) {
  (void)state;
  sinew_graph_t *g = graph();
  alias(g, "smile", "a.w[0]");
  /* a rolled-back transaction takes the aliases back: made, renamed, removed */
  assert_int_equal(sinew_graph_begin(g), 0);
  alias(g, "frown", "a.w[1]");
  alias(g, "grin", "a.w[0]");
  sinew_plug_t w1 = plug(g, "a.w[1]");
  assert_int_equal(sinew_alias_remove(g, &w1), 0);
  assert_string_equal(aliases(g, "a"), "grin=weight[0]");
  assert_int_equal(sinew_graph_rollback(g), 0);
  assert_string_equal(aliases(g, "a"), "smile=weight[0]");
  /* an undo step: undo and redo */
  assert_int_equal(sinew_graph_begin(g), 0);
  alias(g, "frown", "a.w[1]");
  alias(g, "grin", "a.w[0]");
  sinew_change_t *step = NULL;
  assert_int_equal(sinew_graph_commit_step(g, &step), 0);
  assert_int_equal(sinew_change_undo(g, step), 0);
  assert_string_equal(aliases(g, "a"), "smile=weight[0]");
  assert_int_equal(sinew_plug_parse(g, "a.frown", (sinew_node_t){0}, &w1), SINEW_ENOTFOUND);
  assert_int_equal(sinew_change_redo(g, step), 0);
  assert_string_equal(aliases(g, "a"), "grin=weight[0] frown=weight[1]");
  sinew_change_free(g, step);
  /* a node deleted in a step keeps its aliases when the step is undone */
  sinew_node_t a;
  sinew_node_find(g, "a", &a);
  assert_int_equal(sinew_graph_begin(g), 0);
  assert_int_equal(sinew_node_delete(g, a), 0);
  assert_int_equal(sinew_graph_commit_step(g, &step), 0);
  assert_int_equal(sinew_change_undo(g, step), 0);
  assert_string_equal(aliases(g, "a"), "grin=weight[0] frown=weight[1]");
  assert_true(get1(g, "a.grin") == 0);
  sinew_change_free(g, step);
  sinew_graph_destroy(g);
}

static void test_removed_with_plug(void **state) {
  (void)state;
  sinew_graph_t *g = graph();
  set1(g, "a.w[0]", 1);
  set1(g, "a.w[1]", 2);
  alias(g, "smile", "a.w[0]");
  alias(g, "frown", "a.w[1]");
  sinew_node_t a;
  sinew_node_find(g, "a", &a);
  /* an element removed takes its alias; a rollback brings both back */
  sinew_plug_t w0 = plug(g, "a.w[0]");
  assert_int_equal(sinew_graph_begin(g), 0);
  assert_int_equal(sinew_plug_remove_element(g, &w0), 0);
  assert_string_equal(aliases(g, "a"), "frown=weight[1]");
  assert_int_equal(sinew_graph_rollback(g), 0);
  assert_string_equal(aliases(g, "a"), "smile=weight[0] frown=weight[1]");
  assert_true(get1(g, "a.smile") == 1);
  assert_int_equal(sinew_plug_remove_element(g, &w0), 0); /* outside a transaction */
  assert_string_equal(aliases(g, "a"), "frown=weight[1]");
  /* a dynamic attribute removed takes the aliases inside it */
  sinew_attr_desc_t d[] = {{.name = "extra", .type = SINEW_ATTR_COMPOUND},
                           {.name = "ex1", .type = SINEW_ATTR_DOUBLE, .parent = "extra"}};
  assert_int_equal(sinew_node_add_attr(g, a, d, 2), 0);
  alias(g, "bonus", "a.ex1");
  uint32_t ex = sinew_node_attr(g, a, "extra");
  assert_int_equal(sinew_graph_begin(g), 0);
  assert_int_equal(sinew_node_remove_attr(g, a, ex), 0);
  assert_string_equal(aliases(g, "a"), "frown=weight[1]");
  assert_int_equal(sinew_graph_rollback(g), 0);
  assert_string_equal(aliases(g, "a"), "frown=weight[1] bonus=ex1");
  assert_int_equal(sinew_node_remove_attr(g, a, ex), 0);
  assert_string_equal(aliases(g, "a"), "frown=weight[1]");
  sinew_graph_destroy(g);
}

/* Every allocation of an alias change failing: the change is refused whole, nothing leaks. */
static void test_graph_alloc_failures(void **state) {
  (void)state;
  test_alloc_install();
  for (long n = 1;; n++) {
    sinew_graph_t *g = graph();
    alias(g, "smile", "a.w[0]");
    set1(g, "a.w[0]", 1);
    sinew_plug_t w0 = plug(g, "a.w[0]"), w1 = plug(g, "a.w[1]");
    assert_int_equal(sinew_graph_begin(g), 0);
    test_alloc_reset();
    test_alloc_fail_at(n);
    int rc = sinew_alias_set(g, &w1, "frown");
    if (!rc) rc = sinew_alias_set(g, &w0, "grin");
    if (!rc) rc = sinew_plug_remove_element(g, &w0);
    test_alloc_fail_at(0);
    if (rc) {
      assert_int_equal(rc, SINEW_ENOMEM);
      assert_int_equal(sinew_graph_rollback(g), 0);
      assert_string_equal(aliases(g, "a"), "smile=weight[0]");
    } else {
      assert_int_equal(sinew_graph_commit(g), 0);
      assert_string_equal(aliases(g, "a"), "frown=weight[1]");
    }
    sinew_graph_destroy(g);
    assert_int_equal(test_alloc_live(), 0);
    if (!rc) break;
  }
  test_alloc_uninstall();
}

/* ---- commands ----------------------------------------------------------------------------- */

static sinew_session_t *session(void) {
  sinew_session_t *s = NULL;
  assert_int_equal(sinew_session_create(NULL, &s), 0);
  return s;
}

static void run(sinew_session_t *s, const char *text) {
  if (sinew_session_run(s, text, strlen(text), "test.mel", NULL)) fail_msg("%s: %s", text, sinew_session_errmsg(s));
}

static char resbuf[4096];
static const char *res(sinew_session_t *s, const char *text) {
  sinew_value_t v = {0};
  if (sinew_session_run(s, text, strlen(text), "test.mel", &v)) fail_msg("%s: %s", text, sinew_session_errmsg(s));
  sinew_value_format(&v, resbuf, sizeof resbuf);
  sinew_value_clear(&v);
  size_t n = strlen(resbuf);
  while (n && (resbuf[n - 1] == '\n' || resbuf[n - 1] == ' ')) resbuf[--n] = 0;
  return resbuf;
}

static void fails_unchanged(sinew_session_t *s, const char *text, const char *msg) {
  char *before = test_snapshot(s);
  if (!sinew_session_run(s, text, strlen(text), "test.mel", NULL)) fail_msg("%s succeeded", text);
  if (msg && !strstr(sinew_session_errmsg(s), msg)) fail_msg("%s: '%s' lacks '%s'", text, sinew_session_errmsg(s), msg);
  char *after = test_snapshot(s);
  assert_string_equal(before, after);
  free(before);
  free(after);
}

#define BLENDER "createNode blendShape -n blender; setAttr blender.w[0] 0; setAttr blender.w[1] 0;"

static void test_alias_attr_command(void **state) {
  (void)state;
  sinew_session_t *s = session();
  run(s, BLENDER "createNode joint -n elbow;");
  /* Autodesk's examples */
  assert_string_equal(res(s, "aliasAttr smile blender.w[0] frown blender.w[1]"), "2");
  assert_string_equal(res(s, "aliasAttr -q blender"), "smile\nweight[0]\nfrown\nweight[1]");
  assert_string_equal(res(s, "aliasAttr roll elbow.rx"), "1");
  assert_string_equal(res(s, "aliasAttr tuck elbow.ry"), "1");
  run(s, "aliasAttr -rm elbow.roll");
  assert_string_equal(res(s, "aliasAttr -q elbow"), "tuck\nrotateY");
  /* through every command that names a plug */
  run(s, "aliasAttr lift elbow.ty; setAttr blender.smile 0.25; setAttr elbow.lift 3");
  assert_string_equal(res(s, "getAttr blender.w[0]"), "0.25");
  assert_string_equal(res(s, "getAttr blender.smile"), "0.25");
  assert_string_equal(res(s, "getAttr elbow.ty"), "3");
  run(s, "aliasAttr -rm elbow.ty");
  assert_string_equal(res(s, "listAttr -m blender.w"), "smile\nfrown");
  assert_string_equal(res(s, "attributeQuery -n blender -exists smile"), "1");
  assert_string_equal(res(s, "attributeQuery -n blender -exists grin"), "0");
  assert_string_equal(res(s, "attributeQuery -n blender -multi smile"), "1");
  run(s, "createNode transform -n ctl; connectAttr ctl.tx blender.frown");
  assert_string_equal(res(s, "listConnections -s 1 -d 0 -p 1 blender.w[1]"), "ctl.translateX");
  run(s, "setAttr ctl.tx 0.5");
  assert_string_equal(res(s, "getAttr blender.frown"), "0.5");
  /* a renamed alias, by the alias */
  run(s, "aliasAttr grin blender.smile");
  assert_string_equal(res(s, "aliasAttr -q blender"), "grin\nweight[0]\nfrown\nweight[1]");
  assert_string_equal(res(s, "listAttr blender.grin"), "grin");
  /* failures leave the scene as it was, a second pair's failure taking back the first */
  fails_unchanged(s, "aliasAttr envelope blender.w[2]", "already has an attribute named 'envelope'");
  fails_unchanged(s, "aliasAttr happy blender.w[2] frown blender.w[3]", "'frown' is already the alias of blender.weight[1]");
  fails_unchanged(s, "aliasAttr happy blender.nothing", "nothing");
  fails_unchanged(s, "aliasAttr happy", "pairs");
  fails_unchanged(s, "aliasAttr -rm blender.w[3]", "has no alias");
  fails_unchanged(s, "addAttr -ln grin -at double blender", "alias named 'grin'");
  /* undo and redo */
  char *before = test_snapshot(s);
  run(s, "aliasAttr happy blender.w[5]; aliasAttr -rm blender.grin");
  assert_string_equal(res(s, "aliasAttr -q blender"), "frown\nweight[1]\nhappy\nweight[5]");
  assert_int_equal(sinew_session_undo(s), 0);
  assert_int_equal(sinew_session_undo(s), 0);
  char *after = test_snapshot(s);
  assert_string_equal(before, after);
  free(before);
  free(after);
  assert_int_equal(sinew_session_redo(s), 0);
  assert_string_equal(res(s, "aliasAttr -q blender"), "grin\nweight[0]\nfrown\nweight[1]\nhappy\nweight[5]");
  /* removeMultiInstance takes the element's alias (and refuses a connected one without -b) */
  fails_unchanged(s, "removeMultiInstance blender.frown", "-b true");
  run(s, "removeMultiInstance -b true blender.frown");
  assert_string_equal(res(s, "aliasAttr -q blender"), "grin\nweight[0]\nhappy\nweight[5]");
  assert_int_equal(sinew_session_undo(s), 0);
  assert_string_equal(res(s, "aliasAttr -q blender"), "grin\nweight[0]\nfrown\nweight[1]\nhappy\nweight[5]");
  assert_string_equal(res(s, "listConnections -s 1 -d 0 -p 1 blender.frown"), "ctl.translateX");
  sinew_session_destroy(s);
}

static char *save_text(sinew_session_t *s) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_int_equal(sinew_session_write_ma(s, f, "scene.ma"), 0);
  fclose(f);
  return text;
}

static void test_file_lines(void **state) {
  (void)state;
  sinew_session_t *s = session();
  /* the two forms files use; the list replaces the node's aliases */
  run(s, "createNode blendShape -n bs1;"
         "addAttr -ci true -h true -sn \"aal\" -ln \"attributeAliasList\" -dt \"attributeAlias\";"
         "setAttr \".w[0]\" 0; setAttr \".w[1]\" 0;"
         "setAttr \".aal\" -type \"attributeAlias\" {\"tgt1\",\"weight[0]\",\"tgt0\",\"weight[1]\"} ;"
         "createNode blendShape -n bs2;"
         "addAttr -ci true -h true -sn \"aal\" -ln \"attributeAliasList\" -dt \"attributeAlias\";"
         "setAttr \".aal\" -type \"attributeAlias\" 2 \"tailCrv\" \"weight[0]\" ;"
         "aliasAttr old bs1.w[3];"
         "setAttr bs1.aal -type \"attributeAlias\" {\"tgt1\",\"weight[0]\",\"tgt0\",\"weight[1]\"};");
  assert_string_equal(res(s, "aliasAttr -q bs1"), "tgt1\nweight[0]\ntgt0\nweight[1]");
  assert_string_equal(res(s, "aliasAttr -q bs2"), "tailCrv\nweight[0]");
  assert_string_equal(res(s, "listAttr -ud bs1"), ""); /* the list made no attribute */
  /* written back as Maya writes it, and read again */
  char *text = save_text(s);
  assert_non_null(strstr(text, "\taddAttr -ci true -h true -sn \"aal\" -ln \"attributeAliasList\" -dt \"attributeAlias\";\n"));
  assert_non_null(strstr(text, "\tsetAttr \".aal\" -type \"attributeAlias\" {\"tgt1\",\"weight[0]\",\"tgt0\",\"weight[1]\"} ;\n"));
  assert_non_null(strstr(text, "\tsetAttr \".aal\" -type \"attributeAlias\" {\"tailCrv\",\"weight[0]\"} ;\n"));
  sinew_session_t *s2 = session();
  run(s2, text);
  char *text2 = save_text(s2);
  assert_string_equal(text, text2);
  assert_string_equal(res(s2, "aliasAttr -q bs1"), "tgt1\nweight[0]\ntgt0\nweight[1]");
  free(text);
  free(text2);
  sinew_session_destroy(s2);
  /* bad lines: a script gets an error and the scene stays; an odd count, a wrong type */
  fails_unchanged(s, "setAttr bs1.aal -type \"attributeAlias\" {\"a\",\"weight[0]\",\"b\"}", "pairs");
  fails_unchanged(s, "setAttr bs1.aal -type \"attributeAlias\" 4 \"a\" \"weight[0]\"", "count 4");
  fails_unchanged(s, "setAttr bs1.aal -type \"stringArray\" 2 \"a\" \"weight[0]\"", "attributeAlias");
  fails_unchanged(s, "setAttr bs1.aal -type \"attributeAlias\" {\"a\",\"nothing[0]\"}", "nothing[0]");
  fails_unchanged(s, "setAttr bs1.aal -type \"attributeAlias\" {\"envelope\",\"weight[0]\"}", "envelope");
  assert_string_equal(res(s, "aliasAttr -q bs1"), "tgt1\nweight[0]\ntgt0\nweight[1]");
  sinew_session_destroy(s);
}

static void test_corpus_aliases(void **state) {
  (void)state;
  char path[1024];
  snprintf(path, sizeof path, "%s/maya-usd/blendShapesExport.ma", SINEW_TEST_DATA_DIR);
  sinew_session_t *s = session();
  if (sinew_session_open(s, path)) fail_msg("%s: %s", path, sinew_session_errmsg(s));
  sinew_graph_t *g = sinew_session_graph(s);
  assert_string_equal(res(s, "aliasAttr -q blendShape14"), "tgt3\nweight[0]\ntgt2\nweight[1]\ntgt1\nweight[2]");
  assert_string_equal(res(s, "listAttr -m blendShape14.w"), "tgt3\ntgt2\ntgt1");
  assert_string_equal(res(s, "aliasAttr -q blendShape9"), "pCube2\nweight[0]");
  /* a weight set by its alias moves the mesh as set by index */
  sinew_plug_t a = {0}, b = {0};
  assert_int_equal(sinew_plug_parse(g, "blendShape14.tgt2", (sinew_node_t){0}, &a), 0);
  assert_int_equal(sinew_plug_parse(g, "blendShape14.w[1]", (sinew_node_t){0}, &b), 0);
  assert_true(sinew_plug_equal(&a, &b));
  char first[256];
  snprintf(first, sizeof first, "%s", res(s, "listConnections -s 1 -d 0 -p 1 blendShape14.w[1]"));
  assert_true(first[0] != 0);
  assert_string_equal(res(s, "listConnections -s 1 -d 0 -p 1 blendShape14.tgt2"), first);
  snprintf(first, sizeof first, "%s", res(s, "getAttr blendShape14.w[1]"));
  assert_string_equal(res(s, "getAttr blendShape14.tgt2"), first);
  char *text = save_text(s);
  assert_non_null(strstr(text, "\tsetAttr \".aal\" -type \"attributeAlias\" {\"tgt3\",\"weight[0]\",\"tgt2\",\"weight[1]\",\"tgt1\",\"weight[2]\"} ;\n"));
  free(text);
  sinew_session_destroy(s);
}

static void test_blend_shape_names_weights(void **state) {
  (void)state;
  sinew_session_t *s = session();
  run(s, "polyCube -n base; polyCube -n smile; polyCube -n frown; polyCube -n half; polyCube -n full;"
         "setAttr smileShape.pt[0] -type float3 0 1 0;");
  run(s, "blendShape -n bs smile frown base");
  assert_string_equal(res(s, "aliasAttr -q bs"), "smile\nweight[0]\nfrown\nweight[1]");
  assert_string_equal(res(s, "listAttr -m bs.w"), "smile\nfrown");
  run(s, "setAttr bs.smile 1");
  assert_string_equal(res(s, "getAttr bs.w[0]"), "1");
  /* -e -t adds a named weight; -ib names the weight after the full target */
  run(s, "blendShape -e -t base 2 full 1 bs");
  assert_string_equal(res(s, "listAttr -m bs.w"), "smile\nfrown\nfull");
  run(s, "blendShape -ib -n bs2 half full base");
  assert_string_equal(res(s, "aliasAttr -q bs2"), "full\nweight[0]");
  /* a target called as an attribute, or as another weight's alias, leaves its weight unnamed */
  run(s, "rename half envelope; blendShape -e -t base 3 envelope 1 bs; blendShape -e -t base 4 smile 1 bs");
  assert_string_equal(res(s, "listAttr -m bs.w"), "smile\nfrown\nfull\nweight[3]\nweight[4]");
  /* undo takes a blendShape's aliases with it */
  run(s, "blendShape -n bs3 frown base");
  assert_string_equal(res(s, "aliasAttr -q bs3"), "frown\nweight[0]");
  assert_int_equal(sinew_session_undo(s), 0);
  fails_unchanged(s, "aliasAttr -q bs3", "bs3");
  sinew_session_destroy(s);
}

static void test_command_alloc_failures(void **state) {
  (void)state;
  long failed = test_fault(BLENDER "aliasAttr smile blender.w[0];", "aliasAttr frown blender.w[1] grin blender.smile");
  assert_true(failed > 0);
  failed = test_fault(BLENDER "aliasAttr smile blender.w[0];", "removeMultiInstance -b 1 blender.w[0]");
  assert_true(failed > 0);
  failed = test_fault("polyCube -n base; polyCube -n tgt;", "blendShape -n bs tgt base");
  assert_true(failed > 0);
  failed = test_fault(BLENDER "aliasAttr smile blender.w[0];",
                      "setAttr blender.aal -type \"attributeAlias\" {\"a\",\"weight[0]\",\"b\",\"weight[1]\"}");
  assert_true(failed > 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_resolve),
      cmocka_unit_test(test_conflicts),
      cmocka_unit_test(test_journal),
      cmocka_unit_test(test_removed_with_plug),
      cmocka_unit_test(test_graph_alloc_failures),
      cmocka_unit_test(test_alias_attr_command),
      cmocka_unit_test(test_file_lines),
      cmocka_unit_test(test_corpus_aliases),
      cmocka_unit_test(test_blend_shape_names_weights),
      cmocka_unit_test(test_command_alloc_failures),
  };
  return cmocka_run_group_tests_name("alias", tests, NULL, NULL);
}
