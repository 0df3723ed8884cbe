/* tools/query.c: the subcommands that read a scene without writing files: `sinew eval` (plug
 * values), `sinew info` (a summary) and `sinew dot` (the graph in Graphviz form). */
#include <stdlib.h>
#include <string.h>

#include "tools/cli.h"

static const char eval_help[] =
    "usage: sinew eval [OPTIONS] FILE --get PLUG [--get PLUG ...]\n"
    "\n"
    "Loads FILE and prints the value of each PLUG (node.attribute, long or short names,\n"
    "with indices: joint1.worldMatrix[0], skinCluster1.wl[3].w[1]), one line each, in\n"
    "the order given. Numbers are in the scene's units (currentUnit: centimetres and\n"
    "degrees unless the file says otherwise; times in frames); a compound prints its\n"
    "children (translate: x y z), a matrix its 16 numbers row by row, a whole array its\n"
    "elements, a string its text, a mesh its points (x y z each, in centimetres).\n"
    "\n"
    "options:\n"
    "  --get PLUG    a plug to print (repeat for more; at least one)\n"
    "  --frame F     set the scene time to frame F first (default: the current frame)\n"
    "  -q, -v, --strict, -h   as for every command (sinew --help)\n"
    "\n"
    "A plug whose value depends on nodes of a type sinew does not evaluate (placeholders:\n"
    "constraints, utility nodes... that a .ma file holds) prints the value the file stored;\n"
    "a warning on stderr names each such type once with how many of the plugs it freezes.\n"
    "With --strict that is an error (exit 1) and no value is printed.\n";

static const char info_help[] =
    "usage: sinew info [OPTIONS] FILE\n"
    "\n"
    "Loads FILE and prints a summary: the scene's units and frame, node counts by type,\n"
    "connection counts, each skinCluster with its geometry, influence count and maximum\n"
    "influences, each mesh with its vertex and face counts (after evaluation), what the\n"
    "file held that sinew keeps without modelling it (placeholder types), and the share\n"
    "of joints (worldMatrix) and of visible meshes (worldMesh) whose values depend on\n"
    "those placeholders, with the placeholder types responsible.\n"
    "\n"
    "options:\n"
    "  -q, -v, --strict, -h   as for every command (sinew --help)\n";

static const char dot_help[] =
    "usage: sinew dot [OPTIONS] FILE\n"
    "\n"
    "Loads FILE and writes its dependency graph in Graphviz DOT form to stdout: nodes with\n"
    "their connected plugs, connections, DAG parenting as dashed edges.\n"
    "  sinew dot rig.mel | dot -Tsvg > rig.svg\n"
    "\n"
    "options:\n"
    "  -q, -v, --strict, -h   as for every command (sinew --help)\n";

/* Arguments of a subcommand that takes only the common options. Returns -1 after --help. */
static int parse_plain_args(cli_common_t *c, const char *help, int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    fputs(help, stdout);
    return -1;
  }
  for (int i = 1; i < argc; i++) {
    cli_arg_t kind = cli_parse_common(c, argc, argv, &i);
    if (kind == CLI_ARG_ERROR) return CLI_USAGE;
    if (kind == CLI_ARG_OTHER) return cli_usage_error(c, "unknown option '%s'", argv[i]);
  }
  if (!c->file) return cli_usage_error(c, "missing FILE (a .mel script or a .ma file)");
  return CLI_OK;
}

/* ---- a growable string ---------------------------------------------------------------------- */

/* Items joined by sep (NULL: one space). */
typedef struct text {
  char *s;
  size_t len, cap;
  bool oom;
  const char *sep;
} text_t;

static void text_add(text_t *t, const char *s) {
  const char *sep = t->len ? (t->sep ? t->sep : " ") : "";
  size_t n = strlen(s), ns = strlen(sep);
  if (t->oom) return;
  if (t->len + ns + n + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 256;
    while (t->len + ns + n + 1 > cap) cap *= 2;
    char *p = realloc(t->s, cap);
    if (!p) {
      t->oom = true;
      return;
    }
    t->s = p;
    t->cap = cap;
  }
  memcpy(t->s + t->len, sep, ns);
  t->len += ns;
  memcpy(t->s + t->len, s, n + 1);
  t->len += n;
}

static void text_add_double(text_t *t, double v) {
  char buf[40];
  sinew_format_double(v, buf, sizeof buf);
  text_add(t, buf);
}

/* A float32 (a mesh point) in the shortest form that reads back to the same float. */
static void text_add_float(text_t *t, float v) {
  char buf[40];
  for (int digits = 6; digits <= 9; digits++) {
    snprintf(buf, sizeof buf, "%.*g", digits, (double)v);
    if (strtof(buf, NULL) == v) break;
  }
  text_add(t, buf);
}

/* ---- eval ----------------------------------------------------------------------------------- */

/* How many internal units one scene unit is (values are divided by it for printing). */
static double unit_of(sinew_graph_t *g, sinew_attr_type_t type) {
  switch (type) {
    case SINEW_ATTR_DISTANCE: return sinew_linear_unit_cm(sinew_scene_linear_unit(g));
    case SINEW_ATTR_ANGLE: return sinew_angle_unit_radians(sinew_scene_angle_unit(g));
    case SINEW_ATTR_TIME: return 1.0 / sinew_time_unit_fps(sinew_time_get_unit(g));
    default: return 1.0;
  }
}

/* Appends a plug's value to t (numbers space-separated). Fails with a message in the graph
 * (sinew_graph_errmsg) or in why. */
static int add_value(sinew_graph_t *g, const sinew_plug_t *p, text_t *t, char *why, size_t wlen) {
  sinew_attr_info_t info;
  int rc = sinew_node_attr_info(g, p->node, p->attr, &info);
  if (rc) return rc;
  if (sinew_plug_is_array(g, p)) {
    size_t n = sinew_plug_indices(g, p, NULL, 0);
    int32_t *idx = malloc((n ? n : 1) * sizeof *idx);
    if (!idx) return SINEW_ENOMEM;
    sinew_plug_indices(g, p, idx, n);
    for (size_t k = 0; k < n && !rc; k++) {
      sinew_plug_t e;
      rc = sinew_plug_element(g, p, idx[k], &e);
      if (!rc) rc = add_value(g, &e, t, why, wlen);
    }
    free(idx);
    return rc;
  }
  if (info.flags & SINEW_ATTR_GENERIC_NUMERIC) { /* every number it holds, as they are */
    double v[SINEW_GENERIC_MAX];
    size_t n = 0;
    if ((rc = sinew_get_generic(g, p, v, SINEW_GENERIC_MAX, &n))) return rc;
    for (size_t k = 0; k < n && k < SINEW_GENERIC_MAX; k++) text_add_double(t, v[k]);
    return SINEW_OK;
  }
  if (sinew_attr_type_is_numeric(info.type)) {
    double v;
    if ((rc = sinew_get_double(g, p, &v))) return rc;
    text_add_double(t, v / unit_of(g, info.type));
    return SINEW_OK;
  }
  switch (info.type) {
    case SINEW_ATTR_COMPOUND:
      for (uint32_t k = 0; k < info.child_count && !rc; k++) {
        sinew_plug_t c;
        rc = sinew_plug_child(g, p, info.children[k], &c);
        if (!rc) rc = add_value(g, &c, t, why, wlen);
      }
      return rc;
    case SINEW_ATTR_MATRIX: {
      sinew_mat4_t m;
      if ((rc = sinew_get_matrix(g, p, &m))) return rc;
      for (int k = 0; k < 16; k++) text_add_double(t, m.m[k / 4][k % 4]);
      return SINEW_OK;
    }
    case SINEW_ATTR_STRING: {
      const char *s;
      if ((rc = sinew_get_string(g, p, &s))) return rc;
      text_add(t, s);
      return SINEW_OK;
    }
    case SINEW_ATTR_DATA: {
      sinew_data_t *data = NULL;
      if ((rc = sinew_get_data(g, p, &data))) return rc;
      const sinew_mesh_t *mesh = data ? sinew_mesh_get(data) : NULL;
      if (data && !mesh) {
        snprintf(why, wlen, "holds %s data, which eval does not print", sinew_data_type(data)->name);
        rc = SINEW_EUNSUPPORTED;
      }
      for (uint32_t k = 0; mesh && k < 3 * mesh->npoints; k++) text_add_float(t, mesh->points[k]);
      sinew_data_unref(data);
      return rc;
    }
    default:
      snprintf(why, wlen, "a %s attribute carries no value", sinew_attr_type_name(info.type));
      return SINEW_ETYPE;
  }
}

/* A value the scene keeps as text (an attribute of a node type sinew does not implement, or one
 * sinew does not model): read back as MEL's getAttr reads it, through the session. SINEW_OK
 * with the value in *t; otherwise the plug's own error stands. */
static int kept_value(sinew_session_t *s, const char *text, text_t *t) {
  if (strpbrk(text, "\"\\\n;")) return SINEW_ENOTFOUND;
  size_t n = strlen(text) + 16;
  char *script = malloc(n);
  if (!script) return SINEW_ENOMEM;
  snprintf(script, n, "getAttr \"%s\";", text);
  sinew_value_t v = {0};
  int rc = sinew_session_run(s, script, strlen(script), "--get", &v);
  free(script);
  size_t count = sinew_value_count(&v);
  if (!rc && (v.kind == SINEW_VALUE_NONE || count == 0)) rc = SINEW_ENOTFOUND;
  for (size_t k = 0; !rc && k < count; k++) {
    const char *str = sinew_value_string_at(&v, k);
    if (!str && v.kind == SINEW_VALUE_STRING) str = sinew_value_string(&v);
    if (str) text_add(t, str);
    else text_add_double(t, sinew_value_double_at(&v, k));
  }
  sinew_value_clear(&v);
  return rc;
}

/* Prints one plug's value as a line; on failure a message naming the plug goes to stderr. */
static int print_plug(sinew_session_t *s, const char *text) {
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_plug_t p;
  text_t t = {0};
  char why[200] = "";
  int rc = sinew_plug_parse(g, text, (sinew_node_t){0, 0}, &p);
  if (rc == SINEW_ENOTFOUND) {
    char msg[512];
    snprintf(msg, sizeof msg, "%s", sinew_graph_errmsg(g));
    if (kept_value(s, text, &t) == SINEW_OK) rc = SINEW_OK;
    else sinew_graph_set_error(g, SINEW_ENOTFOUND, "%s", msg);
  } else if (!rc) {
    rc = add_value(g, &p, &t, why, sizeof why);
  }
  if (!rc && t.oom) rc = SINEW_ENOMEM;
  if (rc) {
    const char *msg = why[0] ? why : rc == SINEW_ENOMEM ? "out of memory" : sinew_graph_errmsg(g);
    fprintf(stderr, "sinew eval: --get %s: %s\n", text, msg);
  } else {
    printf("%s\n", t.s ? t.s : "");
  }
  free(t.s);
  return rc ? CLI_FAIL : CLI_OK;
}

/* Counts one --get in f: a plug, or a value kept as text on a node (frozen when the node is a
 * placeholder). Text that names nothing is left to print_plug to report. -1 on out of memory. */
static int frozen_of(sinew_session_t *s, const char *text, cli_frozen_t *f) {
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_plug_t p;
  int rc = sinew_plug_parse(g, text, (sinew_node_t){0, 0}, &p);
  if (rc == SINEW_OK) return cli_frozen_add(f, g, &p) ? -1 : 0;
  if (rc != SINEW_ENOTFOUND) return 0;
  const char *dot = strchr(text, '.');
  size_t len = dot ? (size_t)(dot - text) : strlen(text);
  char *name = malloc(len + 1);
  if (!name) return -1;
  memcpy(name, text, len);
  name[len] = 0;
  sinew_node_t node;
  int found = sinew_node_find(g, name, &node);
  free(name);
  return found == SINEW_OK ? cli_frozen_add_node(f, g, node) : 0;
}

int cli_eval(int argc, char **argv) {
  cli_common_t c = {.sub = "eval", .print_to = stderr};
  const char **gets = calloc((size_t)argc, sizeof *gets);
  size_t ngets = 0;
  const char *frame_text = NULL;
  double frame = 0;
  if (cli_wants_help(argc, argv)) {
    fputs(eval_help, stdout);
    free(gets);
    return CLI_OK;
  }
  int rc = gets ? CLI_OK : CLI_FAIL;
  for (int i = 1; i < argc && !rc; i++) {
    const char *v;
    cli_arg_t kind = cli_parse_common(&c, argc, argv, &i);
    if (kind == CLI_ARG_ERROR) rc = CLI_USAGE;
    if (kind != CLI_ARG_OTHER) continue;
    if (cli_option_value(&c, argc, argv, &i, "--get", "-g", &v)) {
      if (v) gets[ngets++] = v;
      else rc = CLI_USAGE;
    } else if (cli_option_value(&c, argc, argv, &i, "--frame", "-f", &v)) {
      char *end = NULL;
      if (v) frame = strtod(v, &end);
      if (!v) rc = CLI_USAGE;
      else if (end == v || *end)
        rc = cli_usage_error(&c, "--frame '%s': expected a frame number", v);
      frame_text = v;
    } else {
      rc = cli_usage_error(&c, "unknown option '%s'", argv[i]);
    }
  }
  if (!rc && !c.file) rc = cli_usage_error(&c, "missing FILE (a .mel script or a .ma file)");
  if (!rc && !ngets) rc = cli_usage_error(&c, "nothing to print: give --get PLUG");
  sinew_session_t *s = NULL;
  if (!rc) rc = cli_load(&c, &s);
  if (!rc) {
    sinew_graph_t *g = sinew_session_graph(s);
    if (frame_text && sinew_time_set_frame(g, frame)) {
      fprintf(stderr, "sinew eval: --frame %s: %s\n", frame_text, sinew_graph_errmsg(g));
      rc = CLI_FAIL;
    }
    /* which of the plugs depend on node types sinew does not evaluate: warned about after the
     * values, or with --strict an error before any is printed */
    cli_frozen_t frozen = {0};
    for (size_t k = 0; k < ngets && !rc && !cli_stop; k++)
      if (frozen_of(s, gets[k], &frozen)) {
        fprintf(stderr, "sinew eval: --get %s: out of memory\n", gets[k]);
        rc = CLI_FAIL;
      }
    if (!rc && c.strict) rc = cli_frozen_report(&c, &frozen, g, "plugs read");
    for (size_t k = 0; k < ngets && !rc && !cli_stop; k++) rc = print_plug(s, gets[k]);
    if (!c.strict && !cli_stop) cli_frozen_report(&c, &frozen, g, "plugs read");
    cli_frozen_free(&frozen);
    /* a value an interrupted compute left stale is not trusted: the stop is the outcome */
    rc = cli_check_stop(&c, rc);
    cli_unload(&c, s);
  }
  free(gets);
  return rc;
}

/* ---- info ----------------------------------------------------------------------------------- */

typedef struct type_count {
  const sinew_node_type_t *type;
  size_t count;
} type_count_t;

static int by_type_name(const void *a, const void *b) {
  return strcmp(sinew_node_type_name(((const type_count_t *)a)->type),
                sinew_node_type_name(((const type_count_t *)b)->type));
}

/* Node counts per type, sorted by type name; NULL on out-of-memory. */
static type_count_t *count_types(sinew_graph_t *g, size_t *out_n) {
  size_t ntypes = 0, n = 0;
  for (const sinew_node_type_t *t = NULL; (t = sinew_node_type_next(g, t));) ntypes++;
  type_count_t *counts = calloc(ntypes ? ntypes : 1, sizeof *counts);
  if (!counts) return NULL;
  for (sinew_node_t it = {0, 0}; sinew_node_next(g, &it);) {
    const sinew_node_type_t *t = sinew_node_type(g, it);
    size_t k = 0;
    while (k < n && counts[k].type != t) k++;
    if (k == n && n < ntypes) counts[n++].type = t;
    if (k < n) counts[k].count++;
  }
  qsort(counts, n, sizeof *counts, by_type_name);
  *out_n = n;
  return counts;
}

typedef struct conn_count {
  size_t explicit_, implicit;
} conn_count_t;

static bool count_connection(void *ud, const sinew_connection_t *c) {
  conn_count_t *n = ud;
  if (c->implicit) n->implicit++;
  else n->explicit_++;
  return true;
}

static void print_nodes(sinew_graph_t *g) {
  size_t n = 0;
  type_count_t *counts = count_types(g, &n);
  printf("nodes: %zu\n", sinew_node_count(g));
  for (size_t k = 0; counts && k < n; k++) {
    bool placeholder = sinew_node_type_flags(counts[k].type) & SINEW_NODE_TYPE_PLACEHOLDER;
    printf("  %-24s %6zu%s\n", sinew_node_type_name(counts[k].type), counts[k].count,
           placeholder ? "  (placeholder)" : "");
  }
  free(counts);
  conn_count_t conns = {0, 0};
  sinew_foreach_connection(g, (sinew_node_t){0, 0}, true, count_connection, &conns);
  printf("connections: %zu (and %zu DAG parent links)\n", conns.explicit_, conns.implicit);
}

/* Nodes of a type (derived types included); NULL with *n = 0 when there are none. */
static sinew_node_t *list_nodes(sinew_graph_t *g, const char *type, size_t *n) {
  *n = sinew_node_list_type(g, type, false, NULL, 0);
  sinew_node_t *nodes = *n ? malloc(*n * sizeof *nodes) : NULL;
  if (!nodes) *n = 0;
  else sinew_node_list_type(g, type, false, nodes, *n);
  return nodes;
}

static double attr_double(sinew_graph_t *g, sinew_node_t node, const char *attr, double def) {
  sinew_plug_t p;
  double v = def;
  if (sinew_plug_parse_attr(g, node, attr, &p) == SINEW_OK) sinew_get_double(g, &p, &v);
  return v;
}

/* The largest number of non-zero weights on one vertex, and how many vertices have weights. */
static void weight_stats(sinew_graph_t *g, sinew_node_t skin, size_t *max_per_vertex, size_t *nverts) {
  sinew_plug_t wl;
  *max_per_vertex = *nverts = 0;
  if (sinew_plug_parse_attr(g, skin, "weightList", &wl)) return;
  size_t n = sinew_plug_indices(g, &wl, NULL, 0);
  int32_t *idx = malloc((n ? n : 1) * sizeof *idx);
  if (!idx) return;
  sinew_plug_indices(g, &wl, idx, n);
  *nverts = n;
  for (size_t k = 0; k < n; k++) {
    char attr[64];
    sinew_plug_t w;
    size_t count = 0;
    snprintf(attr, sizeof attr, "weightList[%d].weights", (int)idx[k]);
    if (sinew_plug_parse_attr(g, skin, attr, &w) || sinew_get_double_elements(g, &w, NULL, NULL, 0, &count))
      continue;
    int32_t *wi = malloc((count ? count : 1) * sizeof *wi);
    double *wv = malloc((count ? count : 1) * sizeof *wv);
    size_t nonzero = 0;
    if (wi && wv && !sinew_get_double_elements(g, &w, wi, wv, count, &count))
      for (size_t j = 0; j < count; j++) nonzero += wv[j] != 0;
    if (nonzero > *max_per_vertex) *max_per_vertex = nonzero;
    free(wi);
    free(wv);
  }
  free(idx);
}

/* The names of the nodes fed by a skinCluster's outputGeometry elements, comma-separated. */
static void skin_geometry(sinew_graph_t *g, sinew_node_t skin, text_t *t) {
  sinew_plug_t og;
  if (sinew_plug_parse_attr(g, skin, "outputGeometry", &og)) return;
  int32_t idx[64];
  size_t n = sinew_plug_indices(g, &og, idx, 64);
  for (size_t k = 0; k < n && k < 64; k++) {
    sinew_plug_t e, dst[16];
    if (sinew_plug_element(g, &og, idx[k], &e)) continue;
    size_t nd = sinew_plug_destinations(g, &e, dst, 16);
    for (size_t j = 0; j < nd && j < 16; j++) {
      const char *name = sinew_node_name(g, dst[j].node);
      text_add(t, name ? name : "?");
    }
  }
}

static void print_skins(sinew_graph_t *g) {
  size_t n;
  sinew_node_t *skins = list_nodes(g, "skinCluster", &n);
  printf("skinClusters: %zu\n", n);
  for (size_t k = 0; k < n; k++) {
    text_t geo = {.sep = ", "};
    skin_geometry(g, skins[k], &geo);
    sinew_plug_t ma;
    size_t influences = 0, max_per_vertex, nverts;
    if (sinew_plug_parse_attr(g, skins[k], "matrix", &ma) == SINEW_OK)
      influences = sinew_plug_indices(g, &ma, NULL, 0);
    weight_stats(g, skins[k], &max_per_vertex, &nverts);
    printf("  %s: geometry %s; influences %zu; maxInfluences %.0f; at most %zu weights on a vertex; "
           "%zu vertices weighted\n",
           sinew_node_name(g, skins[k]), geo.len ? geo.s : "(none)", influences,
           attr_double(g, skins[k], "maxInfluences", 0), max_per_vertex, nverts);
    free(geo.s);
  }
  free(skins);
}

static void print_meshes(sinew_graph_t *g) {
  size_t n;
  sinew_node_t *meshes = list_nodes(g, "mesh", &n);
  printf("meshes: %zu\n", n);
  for (size_t k = 0; k < n; k++) {
    sinew_plug_t p;
    sinew_data_t *data = NULL;
    const char *name = sinew_node_name(g, meshes[k]);
    bool io = attr_double(g, meshes[k], "intermediateObject", 0) != 0;
    if (sinew_plug_parse_attr(g, meshes[k], "outMesh", &p) || sinew_get_data(g, &p, &data)) {
      printf("  %s: cannot evaluate: %s\n", name, sinew_graph_errmsg(g));
      continue;
    }
    const sinew_mesh_t *m = data ? sinew_mesh_get(data) : NULL;
    if (m)
      printf("  %s: %u vertices, %u faces%s\n", name, m->npoints, m->topology->nfaces,
             io ? " (intermediate object)" : "");
    else
      printf("  %s: no geometry%s\n", name, io ? " (intermediate object)" : "");
    sinew_data_unref(data);
  }
  free(meshes);
}

static void print_placeholders(sinew_session_t *s) {
  sinew_graph_t *g = sinew_session_graph(s);
  sinew_session_stats_t st;
  sinew_session_stats(s, &st);
  text_t names = {.sep = ", "};
  for (const sinew_node_type_t *t = NULL; (t = sinew_node_type_next(g, t));)
    if ((sinew_node_type_flags(t) & SINEW_NODE_TYPE_PLACEHOLDER) &&
        sinew_node_list_type(g, sinew_node_type_name(t), true, NULL, 0))
      text_add(&names, sinew_node_type_name(t));
  printf("placeholder types: %zu%s%s\n", st.placeholder_types, names.len ? ": " : "",
         names.len ? names.s : "");
  printf("kept without modelling: %zu placeholder nodes, %zu values, %zu connections; "
         "%zu commands skipped, %zu failed\n",
         st.placeholder_nodes, st.raw_values, st.raw_connections, st.skipped_commands,
         st.failed_commands);
  free(names.s);
}

/* The share of the nodes of a type whose plug `attr` depends on placeholders, with the
 * placeholder types responsible (how many of those nodes depend on each):
 * "joints depending on placeholders: 12 of 40 (30.0%): parentConstraint 10, multiplyDivide 4".
 * Meshes count when they are not intermediate objects (the ones `sinew run` writes). */
static void print_frozen_share(sinew_graph_t *g, const char *type, const char *label, const char *attr) {
  size_t n;
  sinew_node_t *nodes = list_nodes(g, type, &n);
  cli_frozen_t f = {0};
  bool failed = false;
  for (size_t k = 0; k < n && !failed; k++) {
    sinew_plug_t p;
    if (!strcmp(type, "mesh") && attr_double(g, nodes[k], "intermediateObject", 0) != 0) continue;
    if (sinew_plug_parse_attr(g, nodes[k], attr, &p) == SINEW_OK) failed = cli_frozen_add(&f, g, &p) != 0;
  }
  free(nodes);
  if (failed) {
    printf("%s depending on placeholders: cannot tell: %s\n", label, sinew_graph_errmsg(g));
    cli_frozen_free(&f);
    return;
  }
  cli_frozen_sort(&f);
  printf("%s depending on placeholders: %zu of %zu", label, f.frozen, f.plugs);
  if (f.plugs) printf(" (%.1f%%)", 100.0 * (double)f.frozen / (double)f.plugs);
  for (size_t k = 0; k < f.ntypes; k++)
    printf("%s%s %zu", k ? ", " : ": ", sinew_node_type_name(f.types[k].type), f.types[k].plugs);
  printf("\n");
  cli_frozen_free(&f);
}

int cli_info(int argc, char **argv) {
  cli_common_t c = {.sub = "info", .print_to = stderr};
  int rc = parse_plain_args(&c, info_help, argc, argv);
  if (rc) return rc < 0 ? CLI_OK : rc;
  sinew_session_t *s;
  if ((rc = cli_load(&c, &s))) return rc;
  sinew_graph_t *g = sinew_session_graph(s);
  double frame = 0;
  sinew_time_get_frame(g, &frame);
  char fbuf[40];
  sinew_format_double(frame, fbuf, sizeof fbuf);
  sinew_time_unit_t tu = sinew_time_get_unit(g);
  printf("file: %s\n", c.file);
  printf("units: %s, %s, %s (%g fps); current frame %s\n",
         sinew_linear_unit_name(sinew_scene_linear_unit(g)),
         sinew_angle_unit_name(sinew_scene_angle_unit(g)), sinew_time_unit_name(tu),
         sinew_time_unit_fps(tu), fbuf);
  double range[4];
  if (sinew_session_playback_range(s, range)) {
    char b[4][40];
    for (int i = 0; i < 4; i++) sinew_format_double(range[i], b[i], sizeof b[i]);
    printf("playback range: %s to %s (animation range %s to %s)\n", b[0], b[1], b[2], b[3]);
  }
  print_nodes(g);
  print_skins(g);
  print_meshes(g);
  print_placeholders(s);
  print_frozen_share(g, "joint", "joints", "worldMatrix[0]");
  print_frozen_share(g, "mesh", "meshes", "worldMesh[0]");
  rc = cli_check_stop(&c, CLI_OK);
  cli_unload(&c, s);
  return rc;
}

/* ---- dot ------------------------------------------------------------------------------------ */

int cli_dot(int argc, char **argv) {
  cli_common_t c = {.sub = "dot", .print_to = stderr};
  int rc = parse_plain_args(&c, dot_help, argc, argv);
  if (rc) return rc < 0 ? CLI_OK : rc;
  sinew_session_t *s;
  if ((rc = cli_load(&c, &s))) return rc;
  rc = sinew_graph_write_dot(sinew_session_graph(s), stdout);
  if (rc || fflush(stdout)) {
    fprintf(stderr, "sinew dot: writing the graph: %s\n", rc ? sinew_strerror(rc) : "write error");
    rc = CLI_FAIL;
  }
  rc = cli_check_stop(&c, rc);
  cli_unload(&c, s);
  return rc;
}
