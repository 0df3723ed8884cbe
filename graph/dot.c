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
  int rc;
  sinew_plug_t *seen; /* the current node's plugs already listed (a fan-out lists its plug once) */
  uint32_t nseen, cseen;
} dot_ctx;

/* Writes the attribute part of a plug, escaped, whatever its length. */
static void put_plug_attr(dot_ctx *d, const sinew_plug_t *p) {
  char local[256];
  size_t need = sinew_plug_format_attr(d->g, p, false, local, sizeof local);
  if (need < sizeof local) {
    put_escaped(d->f, local);
    return;
  }
  char *big = sinew__malloc(need + 1);
  if (!big) {
    d->rc = SINEW_ENOMEM;
    return;
  }
  sinew_plug_format_attr(d->g, p, false, big, need + 1);
  put_escaped(d->f, big);
  sinew__free(big);
}

static bool port_of(void *ud, const sinew_connection_t *c) {
  dot_ctx *d = ud;
  const sinew_plug_t *mine[2] = {&c->src, &c->dst};
  for (int k = 0; k < 2; k++) {
    if (mine[k]->node.index != d->node.index || mine[k]->node.gen != d->node.gen) continue;
    bool listed = false;
    for (uint32_t i = 0; i < d->nseen && !listed; i++) listed = sinew_plug_equal(&d->seen[i], mine[k]);
    if (listed) continue;
    if (sinew__reserve((void **)&d->seen, &d->cseen, d->nseen + 1, sizeof *d->seen)) {
      d->rc = SINEW_ENOMEM;
      return false;
    }
    d->seen[d->nseen++] = *mine[k];
    fprintf(d->f, "|<p%u_%d> ", k, d->n);
    put_plug_attr(d, mine[k]);
    d->n++;
  }
  return d->rc == SINEW_OK;
}

static bool edge(void *ud, const sinew_connection_t *c) {
  dot_ctx *d = ud;
  fprintf(d->f, "  n%u -> n%u [label=\"", c->src.node.index, c->dst.node.index);
  put_plug_attr(d, &c->src);
  fputs(" -> ", d->f);
  put_plug_attr(d, &c->dst);
  fprintf(d->f, "\"%s];\n", c->implicit ? ", style=dotted" : "");
  return d->rc == SINEW_OK;
}

int sinew_graph_write_dot(sinew_graph_t *g, FILE *f) {
  if (!g || !f) return SINEW_EINVAL;
  fputs("digraph sinew {\n  rankdir=LR;\n  node [shape=record, fontname=\"Helvetica\"];\n", f);
  dot_ctx d = {g, f, {0, 0}, 0, SINEW_OK, NULL, 0, 0};
  for (sinew_node_t it = {0, 0}; sinew_node_next(g, &it) && !d.rc;) {
    d.node = it;
    d.n = 0;
    d.nseen = 0;
    fprintf(f, "  n%u [label=\"{", it.index);
    put_escaped(f, sinew_node_name(g, it));
    fputs(" : ", f);
    put_escaped(f, sinew_node_type_name(sinew_node_type(g, it)));
    sinew_foreach_connection(g, it, false, port_of, &d);
    fputs("}\"];\n", f);
    sinew_node_t parent = sinew_node_parent(g, it);
    if (parent.gen) fprintf(f, "  n%u -> n%u [style=dashed, arrowhead=none];\n", parent.index, it.index);
  }
  sinew__free(d.seen);
  if (!d.rc) sinew_foreach_connection(g, (sinew_node_t){0, 0}, false, edge, &d);
  fputs("}\n", f);
  if (d.rc) return sinew_graph_set_error(g, d.rc, "DOT export: out of memory");
  return ferror(f) ? sinew_graph_set_error(g, SINEW_EIO, "DOT export: the stream reported an error") : SINEW_OK;
}
