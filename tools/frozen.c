/* tools/frozen.c: what the plugs a command reads or writes owe to placeholders, the nodes of
 * types sinew does not evaluate (sinew_plug_placeholders): counted per type, reported once per
 * type as a warning (or, with --strict, as an error), and summarised by `sinew info`. */
#include <stdlib.h>
#include <string.h>

#include "tools/cli.h"

/* Node handles compare by index and generation. */
static bool same_node(sinew_node_t a, sinew_node_t b) { return a.index == b.index && a.gen == b.gen; }

static cli_frozen_type_t *type_entry(cli_frozen_t *f, const sinew_node_type_t *t) {
  for (size_t k = 0; k < f->ntypes; k++)
    if (f->types[k].type == t) return &f->types[k];
  cli_frozen_type_t *grown = realloc(f->types, (f->ntypes + 1) * sizeof *grown);
  if (!grown) return NULL;
  f->types = grown;
  cli_frozen_type_t *e = &f->types[f->ntypes++];
  memset(e, 0, sizeof *e);
  e->type = t;
  return e;
}

static int add_node(cli_frozen_type_t *e, sinew_node_t n) {
  for (size_t k = 0; k < e->nnodes; k++)
    if (same_node(e->nodes[k], n)) return 0;
  sinew_node_t *grown = realloc(e->nodes, (e->nnodes + 1) * sizeof *grown);
  if (!grown) return -1;
  e->nodes = grown;
  e->nodes[e->nnodes++] = n;
  return 0;
}

/* Counts one plug that depends on the given placeholder nodes (none: a plug that does not). */
static int add_found(cli_frozen_t *f, sinew_graph_t *g, const sinew_node_t *nodes, size_t n) {
  f->plugs++;
  if (!n) return 0;
  f->frozen++;
  f->mark++; /* a plug counts once per type however many of its nodes it depends on */
  for (size_t k = 0; k < n; k++) {
    cli_frozen_type_t *e = type_entry(f, sinew_node_type(g, nodes[k]));
    if (!e || add_node(e, nodes[k])) return -1;
    if (e->mark != f->mark) {
      e->mark = f->mark;
      e->plugs++;
    }
  }
  return 0;
}

int cli_frozen_add(cli_frozen_t *f, sinew_graph_t *g, const sinew_plug_t *plug) {
  size_t n = 0;
  if (sinew_plug_placeholders(g, plug, NULL, 0, &n)) return -1;
  sinew_node_t *nodes = malloc((n ? n : 1) * sizeof *nodes);
  if (!nodes) return -1;
  int rc = sinew_plug_placeholders(g, plug, nodes, n, &n) ? -1 : add_found(f, g, nodes, n);
  free(nodes);
  return rc;
}

int cli_frozen_add_node(cli_frozen_t *f, sinew_graph_t *g, sinew_node_t node) {
  bool placeholder = sinew_node_type_flags(sinew_node_type(g, node)) & SINEW_NODE_TYPE_PLACEHOLDER;
  return add_found(f, g, &node, placeholder ? 1 : 0);
}

/* Most plugs first, then by type name. */
static int by_plugs(const void *a, const void *b) {
  const cli_frozen_type_t *x = a, *y = b;
  if (x->plugs != y->plugs) return x->plugs < y->plugs ? 1 : -1;
  return strcmp(sinew_node_type_name(x->type), sinew_node_type_name(y->type));
}

void cli_frozen_sort(cli_frozen_t *f) {
  if (f->ntypes) qsort(f->types, f->ntypes, sizeof *f->types, by_plugs);
}

/* "2 of the 3 plugs read depend on parentConstraint nodes (4: a, b, c, +1 more), which sinew does
 * not evaluate: what they feed stays as the file stored it" */
static void print_type(const cli_common_t *c, const cli_frozen_t *f, const cli_frozen_type_t *e,
                       const char *what, bool error, sinew_graph_t *g) {
  fprintf(stderr, "sinew %s: %s: %zu of the %zu %s %s on %s nodes (%zu: ", c->sub,
          error ? "error" : "warning", e->plugs, f->plugs, what, e->plugs == 1 ? "depends" : "depend",
          sinew_node_type_name(e->type), e->nnodes);
  size_t shown = e->nnodes < 3 ? e->nnodes : 3;
  for (size_t k = 0; k < shown; k++) {
    const char *name = sinew_node_name(g, e->nodes[k]);
    fprintf(stderr, "%s%s", k ? ", " : "", name ? name : "?");
  }
  if (e->nnodes > shown) fprintf(stderr, ", +%zu more", e->nnodes - shown);
  fprintf(stderr, "), which sinew does not evaluate: what %s feed%s stays as the file stored it\n",
          e->nnodes == 1 ? "it" : "they", e->nnodes == 1 ? "s" : "");
}

int cli_frozen_report(const cli_common_t *c, cli_frozen_t *f, sinew_graph_t *g, const char *what) {
  if (!f->frozen) return CLI_OK;
  cli_frozen_sort(f);
  if (c->strict) {
    for (size_t k = 0; k < f->ntypes; k++) print_type(c, f, &f->types[k], what, true, g);
    fprintf(stderr, "sinew %s: --strict: %zu of the %zu %s would not be evaluated; nothing was %s\n",
            c->sub, f->frozen, f->plugs, what, !strcmp(c->sub, "run") ? "written" : "printed");
    return CLI_FAIL;
  }
  if (!c->quiet)
    for (size_t k = 0; k < f->ntypes; k++) print_type(c, f, &f->types[k], what, false, g);
  return CLI_OK;
}

void cli_frozen_free(cli_frozen_t *f) {
  for (size_t k = 0; k < f->ntypes; k++) free(f->types[k].nodes);
  free(f->types);
  memset(f, 0, sizeof *f);
}
