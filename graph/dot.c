/* graph/dot.c: Graphviz DOT export of a graph: one record per node listing its connected
 * plugs, an edge per connection, dashed edges for DAG parenting. */
#include <stdio.h>
#include <string.h>

#include "graph/internal.h"

static void put_escaped(FILE *f, const char *s) {
  for (; *s; s++) {
    if (strchr("\"\\{}|<>", *s)) fputc('\\', f);
    fputc(*s, f);
  }
}

typedef struct dot_ctx {
  sinew_graph_t *g;
  FILE *f;
  sinew_node_t node;
  int n;
} dot_ctx;

static bool port_of(void *ud, const sinew_connection_t *c) {
  dot_ctx *d = ud;
  const sinew_plug_t *mine[2] = {&c->src, &c->dst};
  for (int k = 0; k < 2; k++) {
    if (mine[k]->node.index != d->node.index || mine[k]->node.gen != d->node.gen) continue;
    char buf[256];
    sinew_plug_format_attr(d->g, mine[k], false, buf, sizeof buf);
    fprintf(d->f, "|<p%u_%d> ", k, d->n);
    put_escaped(d->f, buf);
    d->n++;
  }
  return true;
}

static bool edge(void *ud, const sinew_connection_t *c) {
  dot_ctx *d = ud;
  char sb[256], db[256];
  sinew_plug_format_attr(d->g, &c->src, false, sb, sizeof sb);
  sinew_plug_format_attr(d->g, &c->dst, false, db, sizeof db);
  fprintf(d->f, "  n%u -> n%u [label=\"", c->src.node.index, c->dst.node.index);
  put_escaped(d->f, sb);
  fputs(" -> ", d->f);
  put_escaped(d->f, db);
  fprintf(d->f, "\"%s];\n", c->implicit ? ", style=dotted" : "");
  return true;
}

int sinew_graph_write_dot(sinew_graph_t *g, FILE *f) {
  if (!g || !f) return SINEW_EINVAL;
  fputs("digraph sinew {\n  rankdir=LR;\n  node [shape=record, fontname=\"Helvetica\"];\n", f);
  dot_ctx d = {g, f, {0, 0}, 0};
  for (sinew_node_t it = {0, 0}; sinew_node_next(g, &it);) {
    d.node = it;
    d.n = 0;
    fprintf(f, "  n%u [label=\"{", it.index);
    put_escaped(f, sinew_node_name(g, it));
    fputs(" : ", f);
    put_escaped(f, sinew_node_type_name(sinew_node_type(g, it)));
    sinew_foreach_connection(g, it, false, port_of, &d);
    fputs("}\"];\n", f);
    sinew_node_t parent = sinew_node_parent(g, it);
    if (parent.gen) fprintf(f, "  n%u -> n%u [style=dashed, arrowhead=none];\n", parent.index, it.index);
  }
  sinew_foreach_connection(g, (sinew_node_t){0, 0}, false, edge, &d);
  fputs("}\n", f);
  return ferror(f) ? SINEW_EIO : SINEW_OK;
}
