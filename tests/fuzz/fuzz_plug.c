/* tests/fuzz/fuzz_plug.c: plug names parsed against a small prepared scene (sinew_plug_parse,
 * sinew_plug_parse_attr). The first byte picks the current node for relative names (".tx")
 * and the node for the attribute-only parse; the rest is the name. A name that parses is
 * printed with long and with short names, and each printed name must parse back to the same
 * plug; then the plug is navigated (parent, elements, children) and evaluated. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static sinew_session_t *session;
static sinew_graph_t *graph;
static sinew_node_t nodes[32];
static size_t nnodes;

/* Arrays, compounds, dynamic attributes, an alias-free namespace, two nodes sharing a short
 * name, a placeholder type, an expression. */
static const char scene[] =
    "//Maya ASCII 2020 scene\n"
    "createNode transform -n \"a\";\n"
    "createNode transform -n \"b\" -p \"a\";\n"
    "createNode transform -n \"dup\" -p \"a\";\n"
    "createNode transform -n \"dup\" -p \"b\";\n"
    "createNode transform -n \"ns:c\";\n"
    "select -cl;\n"
    "joint -n \"j1\" -p 0 1 0;\n"
    "joint -n \"j2\" -p 0 2 0;\n"
    "polyCube -n \"cube\";\n"
    "createNode skinCluster -n \"skin\";\n"
    "setAttr \"skin.wl[0].w[1]\" 0.5;\n"
    "setAttr \"skin.wl[3].w[0]\" 1;\n"
    "connectAttr \"j1.worldMatrix[0]\" \"skin.matrix[0]\";\n"
    "connectAttr \"j2.worldMatrix[0]\" \"skin.matrix[2]\";\n"
    "addAttr -ln \"extra\" -sn \"ex\" -at double a;\n"
    "addAttr -ln \"comp\" -at compound -nc 2 a;\n"
    "addAttr -ln \"cx\" -at double -p comp a;\n"
    "addAttr -ln \"cy\" -at double -p comp a;\n"
    "addAttr -ln \"many\" -at double -m a;\n"
    "setAttr \"a.many[7]\" 2;\n"
    "createNode expression -n \"ex1\";\n"
    "expression -s \"b.tx = a.ty * 2 + time;\" -n \"ex2\";\n"
    "createNode unknownThing -n \"ph\";\n"
    "setAttr \".foo[2]\" 3;\n"
    "createNode dagPose -n \"bindPose1\";\n";

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_init();
  /* read as a file (strict: every line must work), so the unknown type becomes a placeholder */
  session = fuzz_session(true);
  fuzz_sandbox_put("plug_scene.ma", (const uint8_t *)scene, sizeof scene - 1);
  fuzz_sandbox_enter();
  int rc = sinew_session_open(session, "plug_scene.ma");
  fuzz_sandbox_leave();
  if (rc != SINEW_OK) {
    fprintf(stderr, "fuzz_plug: the prepared scene fails: %s\n", sinew_session_errmsg(session));
    abort();
  }
  graph = sinew_session_graph(session);
  sinew_node_t n = {0, 0};
  while (nnodes < 32 && sinew_node_next(graph, &n)) nodes[nnodes++] = n;
  return 0;
}

static char *format(const sinew_plug_t *p, bool short_names) {
  size_t need = sinew_plug_format(graph, p, short_names, NULL, 0);
  char *buf = malloc(need + 1);
  if (!buf) return NULL;
  size_t got = sinew_plug_format(graph, p, short_names, buf, need + 1);
  if (got != need) {
    fprintf(stderr, "fuzz: sinew_plug_format asked for %zu bytes, then wrote %zu\n", need, got);
    abort();
  }
  return buf;
}

static void check_reparse(const sinew_plug_t *p, const char *text, bool short_names) {
  char *printed = format(p, short_names);
  if (!printed) return;
  sinew_plug_t q;
  int rc = sinew_plug_parse(graph, printed, (sinew_node_t){0, 0}, &q);
  if (rc != SINEW_OK || !sinew_plug_equal(p, &q)) {
    fprintf(stderr, "fuzz: \"%s\" parses, is printed (%s names) as \"%s\", which %s\n", text,
            short_names ? "short" : "long", printed,
            rc ? sinew_err_name(rc) : "names another plug");
    abort();
  }
  free(printed);
}

static void explore(const sinew_plug_t *p, const char *text) {
  check_reparse(p, text, false);
  check_reparse(p, text, true);
  char buf[64];
  sinew_plug_format_attr(graph, p, false, buf, sizeof buf); /* truncated on purpose */
  (void)sinew_plug_is_array(graph, p);
  (void)sinew_plug_has_value(graph, p);
  (void)sinew_plug_is_dirty(graph, p);
  (void)sinew_plug_locked(graph, p);
  int32_t idx[8];
  if (sinew_plug_is_array(graph, p)) {
    size_t k = sinew_plug_indices(graph, p, idx, 8);
    (void)sinew_plug_next_index(graph, p);
    sinew_plug_t e;
    if (sinew_plug_element(graph, p, k ? idx[0] : 0, &e) == SINEW_OK) (void)sinew_plug_has_value(graph, &e);
  }
  sinew_attr_info_t info;
  if (sinew_node_attr_info(graph, p->node, p->attr, &info) == SINEW_OK) {
    for (uint32_t c = 0; c < info.child_count && c < 4; c++) {
      sinew_plug_t ch;
      if (sinew_plug_child(graph, p, info.children[c], &ch) == SINEW_OK) (void)sinew_plug_has_value(graph, &ch);
    }
  }
  sinew_plug_t up = *p, parent;
  for (int depth = 0; depth < 16 && sinew_plug_parent(graph, &up, &parent); depth++) up = parent;
  sinew_plug_t src;
  (void)sinew_plug_source(graph, p, &src);
  sinew_evaluate(graph, p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1 || size > 4096) return 0;
  sinew_node_t current = data[0] % (nnodes + 1) ? nodes[data[0] % (nnodes + 1) - 1] : (sinew_node_t){0, 0};
  char *text = malloc(size);
  if (!text) return 0;
  memcpy(text, data + 1, size - 1);
  text[size - 1] = 0;
  sinew_plug_t p;
  if (sinew_plug_parse(graph, text, current, &p) == SINEW_OK) explore(&p, text);
  if (current.index && sinew_plug_parse_attr(graph, current, text, &p) == SINEW_OK) explore(&p, text);
  free(text);
  return 0;
}
