/* examples/graph_basics.c: the graph core in one page.
 *
 * Registers a tiny node type ("multiply": output = a * b) through the public descriptor API,
 * wires four of them into a diamond, and shows lazy evaluation at work:
 *
 *            +--> left  --+
 *   scale ---+            +--> bottom
 *            +--> right --+
 *
 * - reading bottom.output computes every node once;
 * - reading it again computes nothing;
 * - setting left.b recomputes only left and bottom (scale and right stay clean);
 * - bad requests come back as status codes with a message, never as a crash.
 *
 * Run: build/graph_basics          (values and counters)
 *      build/graph_basics --dot    (also the graph in Graphviz DOT form: stdout then carries
 *                                   only the DOT text, for `| dot -Tsvg`, and the report
 *                                   goes to stderr)
 * Exits 0 when every call behaved as expected, 1 otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sinew/sinew.h>

/* Every call returns 0 or a negative SINEW_E* code; the graph keeps a message naming the node
 * and plug. An example stops at the first surprise. */
#define CHECK(graph, call)                                                                  \
  do {                                                                                      \
    int rc_ = (call);                                                                       \
    if (rc_ != SINEW_OK) {                                                                  \
      fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, #call,               \
              sinew_err_name(rc_), (graph) ? sinew_graph_errmsg(graph) : "");               \
      exit(1);                                                                              \
    }                                                                                       \
  } while (0)

/* ---- the node type -------------------------------------------------------------------------- */

/* Attribute ids are stable for a type's lifetime: look them up once after registering. */
static uint32_t ATTR_A, ATTR_B, ATTR_OUTPUT;

/* Called only for a dirty output that someone asked for. Inputs are read with the ordinary
 * getters (they pull upstream values first); the output is written through the context. */
static int multiply_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != ATTR_OUTPUT) return SINEW_EUNKNOWN_PLUG; /* not ours: try the parent type */
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t node = sinew_compute_node(ctx);
  sinew_plug_t pa = sinew_plug_make(node, ATTR_A, 0, NULL);
  sinew_plug_t pb = sinew_plug_make(node, ATTR_B, 0, NULL);
  double a, b;
  int rc = sinew_get_double(g, &pa, &a);
  if (!rc) rc = sinew_get_double(g, &pb, &b);
  if (rc) return rc;
  return sinew_compute_set_double(ctx, plug, a * b);
}

static int register_multiply(sinew_graph_t *g) {
  /* Zero fields mean defaults: flags 0 is an ordinary input (readable, writable, storable,
   * connectable). Both factors default to 1 so an unset input changes nothing. */
  static const sinew_attr_desc_t attrs[] = {
      {.name = "a", .type = SINEW_ATTR_DOUBLE, .default_value = 1.0},
      {.name = "b", .type = SINEW_ATTR_DOUBLE, .default_value = 1.0},
      {.name = "output", .short_name = "o", .type = SINEW_ATTR_DOUBLE, .flags = SINEW_ATTR_OUTPUT},
  };
  /* "a affects output" is what makes output a computed attribute: setting a dirties output,
   * and reading output pulls a before compute runs. */
  static const sinew_affects_t affects[] = {{"a", "output"}, {"b", "output"}};
  const sinew_node_type_desc_t desc = {
      .name = "multiply",
      .attrs = attrs,
      .attr_count = sizeof attrs / sizeof attrs[0],
      .affects = affects,
      .affects_count = sizeof affects / sizeof affects[0],
      .compute = multiply_compute,
  };
  const sinew_node_type_t *type;
  int rc = sinew_register_node_type(g, &desc, &type);
  if (rc) return rc;
  ATTR_A = sinew_node_type_attr(type, "a");
  ATTR_B = sinew_node_type_attr(type, "b");
  ATTR_OUTPUT = sinew_node_type_attr(type, "output");
  return SINEW_OK;
}

/* ---- small helpers for the host side -------------------------------------------------------- */

static FILE *report; /* stdout, or stderr when stdout carries DOT */

/* Plugs can also be named the way Maya scripts name them ("left.output", "left.o"). */
static sinew_plug_t plug(sinew_graph_t *g, const char *text) {
  sinew_plug_t p;
  CHECK(g, sinew_plug_parse(g, text, (sinew_node_t){0, 0}, &p));
  return p;
}

static void set_value(sinew_graph_t *g, const char *text, double value) {
  sinew_plug_t p = plug(g, text);
  CHECK(g, sinew_set_double(g, &p, value));
}

static void connect_plugs(sinew_graph_t *g, const char *src, const char *dst) {
  sinew_plug_t s = plug(g, src), d = plug(g, dst);
  CHECK(g, sinew_connect(g, &s, &d, 0, NULL));
}

/* Reads a value and reports how many computes the read caused. */
static double read_and_count(sinew_graph_t *g, const char *text, const char *why) {
  sinew_plug_t p = plug(g, text);
  double v;
  sinew_graph_reset_stats(g);
  CHECK(g, sinew_get_double(g, &p, &v));
  sinew_graph_stats_t st;
  sinew_graph_stats(g, &st);
  fprintf(report, "%-28s %s = %g   (computes: %llu, values copied along connections: %llu)\n",
          why, text, v, (unsigned long long)st.computes, (unsigned long long)st.copies);
  return v;
}

static int expect(bool ok, const char *what) {
  if (!ok) fprintf(stderr, "unexpected: %s\n", what);
  return ok ? 0 : 1;
}

/* Warnings (a cycle met during evaluation, a compute that failed) arrive here. Hosts match on
 * the id, which is stable; the text is for people. */
static void logger(void *ud, sinew_log_level_t level, sinew_log_id_t id, const char *msg) {
  (void)ud;
  (void)level;
  fprintf(stderr, "sinew [%s] %s\n", sinew_log_id_name(id), msg);
}

/* ---- the example ----------------------------------------------------------------------------- */

int main(int argc, char **argv) {
  bool dot = argc > 1 && strcmp(argv[1], "--dot") == 0;
  report = dot ? stderr : stdout;
  int failures = 0;

  sinew_graph_t *g = NULL;
  CHECK(g, sinew_graph_create(&(sinew_graph_desc_t){.logger = logger}, &g));
  CHECK(g, register_multiply(g));

  /* Nodes come back as handles (slot + generation), so a handle to a deleted node is detected
   * instead of pointing at freed memory. */
  sinew_node_t scale, left, right, bottom;
  CHECK(g, sinew_node_create(g, "multiply", "scale", &scale));
  CHECK(g, sinew_node_create(g, "multiply", "left", &left));
  CHECK(g, sinew_node_create(g, "multiply", "right", &right));
  CHECK(g, sinew_node_create(g, "multiply", "bottom", &bottom));

  /* Setting a value stores it and marks what depends on it dirty; nothing is computed yet. */
  set_value(g, "scale.a", 2.0);
  set_value(g, "scale.b", 3.0);
  set_value(g, "left.b", 10.0);
  set_value(g, "right.b", 0.5);
  connect_plugs(g, "scale.output", "left.a");
  connect_plugs(g, "scale.output", "right.a");
  connect_plugs(g, "left.output", "bottom.a");
  connect_plugs(g, "right.o", "bottom.b"); /* short names work too */

  /* First read: every node is dirty, each is computed exactly once (scale feeds two nodes
   * but runs once). 2*3 = 6; left = 60, right = 3; bottom = 180. */
  double v = read_and_count(g, "bottom.output", "first read:");
  failures += expect(v == 180.0, "bottom.output should be 180");
  sinew_graph_stats_t st;
  sinew_graph_stats(g, &st);
  failures += expect(st.computes == 4, "the first read should compute 4 nodes");

  /* Second read: everything is clean, so nothing runs. */
  read_and_count(g, "bottom.output", "second read:");
  sinew_graph_stats(g, &st);
  failures += expect(st.computes == 0, "a second read should compute nothing");

  /* Change one input: only left and bottom are downstream of left.b. */
  set_value(g, "left.b", 20.0);
  sinew_plug_t right_out = sinew_plug_make(right, ATTR_OUTPUT, 0, NULL); /* by handle and id */
  failures += expect(!sinew_plug_is_dirty(g, &right_out), "right.output should stay clean");
  v = read_and_count(g, "bottom.output", "after setting left.b = 20:");
  sinew_graph_stats(g, &st);
  failures += expect(v == 360.0 && st.computes == 2, "only left and bottom should recompute");

  /* Errors are values. A plug that does not exist: */
  sinew_plug_t bad;
  int rc = sinew_plug_parse(g, "left.nosuch", (sinew_node_t){0, 0}, &bad);
  fprintf(report, "\nparsing \"left.nosuch\": %s: %s\n", sinew_err_name(rc), sinew_graph_errmsg(g));
  failures += expect(rc == SINEW_ENOTFOUND, "a missing attribute should be SINEW_ENOTFOUND");

  /* A connection that would close a loop is refused, and the graph is left as it was. */
  sinew_plug_t from = plug(g, "bottom.output"), to = plug(g, "scale.a");
  rc = sinew_connect(g, &from, &to, 0, NULL);
  fprintf(report, "connecting bottom.output -> scale.a: %s: %s\n", sinew_err_name(rc),
          sinew_graph_errmsg(g));
  failures += expect(rc == SINEW_ECYCLE, "closing the loop should be SINEW_ECYCLE");

  sinew_graph_stats(g, &st);
  failures += expect(st.connections == 4, "the refused connection should change nothing");
  fprintf(report, "\n%zu nodes, %zu connections\n", st.nodes, st.connections);

  if (dot) CHECK(g, sinew_graph_write_dot(g, stdout));

  sinew_graph_destroy(g); /* frees every node, connection and value */
  return failures ? 1 : 0;
}
