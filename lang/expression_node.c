/* lang/expression_node.c: the expression node type (Maya's attributes, spec 7.1), registered
 * through the public node-type API like every other type, and the creation of expression nodes
 * from text with attribute names.
 *
 * The node compiles internalExpression once (again only when it changes) and runs it when an
 * output is pulled: one run sets every output, so pulling out[0] then out[1] evaluates once.
 * Dependencies are exactly the connections to input[] / inputMatrix[] / time: nothing hidden.
 * Units: an input fed by an angle or distance attribute is converted to the scene's units
 * (degrees, cm) before the code sees it, and an output feeding one is converted back, as
 * unitOption says (docs/expressions.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lang/lang_internal.h"

static struct {
  uint32_t expression, ixp, input, input_matrix, output, time, frame, object, object_msg,
      attribute, animated, unit_option, conn_count, always_evaluate;
} A;

/* Which scene unit a connection's conversion factor follows. */
enum { UNIT_NONE, UNIT_ANGLE, UNIT_LINEAR, UNIT_TIME };

/* One input or output of the expression as it is wired: the node's own plug (in[j] or inm[j],
 * out[k]) and the factor from the unit of the attribute at the other end. */
typedef struct expr_wire {
  sinew_plug_t plug;
  double factor;
  uint8_t unit; /* UNIT_*: the factor changes with that scene unit */
  bool matrix;  /* an input read as a matrix (inm[j] connected or set) */
  bool fed;     /* the plug has a source */
} expr_wire;

typedef struct expr_state {
  sinew_expr_t *expr;
  char *compiled;       /* the ixp text expr was compiled from (NULL: none yet) */
  bool compile_failed;  /* compiled holds text that does not compile */
  bool text_changed;    /* ixp was set since it was last compared with compiled */
  bool inputs_changed;  /* an input other than time changed since the last run */
  bool evaluated;
  double *outs;         /* the last values written, in the expression's units; then as many
                           more: the values before the evaluation running now (put back when it
                           is stopped) */
  size_t nouts;
  /* The wiring, worked out once and again only when it changes (a connection of in[], inm[] or
   * out[] made or broken, inm[j] set, unitOption or alwaysEvaluate set, a new text): an
   * evaluation then reads and writes the plugs with no search. */
  expr_wire *wires;     /* the inputs, then the outputs (allocated with outs) */
  bool wired;
  uint8_t units_used;   /* 1 << UNIT_*: the scene units the factors (or frame) depend on */
  int option;           /* unitOption */
  bool always;          /* alwaysEvaluate */
  int angle, linear, tunit; /* the scene's units the factors were worked out with */
  uint64_t units_serial;    /* sinew_scene_units_serial() then */
  double fps;
  uint64_t evaluations, faults;
} expr_state;

static const sinew_attr_desc_t expr_attrs[] = {
    {.name = "expression", .short_name = "e", .type = SINEW_ATTR_STRING, .flags = SINEW_ATTR_OUTPUT},
    {.name = "internalExpression", .short_name = "ixp", .type = SINEW_ATTR_STRING},
    {.name = "input", .short_name = "in", .type = SINEW_ATTR_DOUBLE,
     .flags = SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY},
    {.name = "inputMatrix", .short_name = "inm", .type = SINEW_ATTR_MATRIX,
     .flags = SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY},
    {.name = "output", .short_name = "out", .type = SINEW_ATTR_DOUBLE,
     .flags = SINEW_ATTR_OUTPUT | SINEW_ATTR_ARRAY},
    {.name = "time", .short_name = "tim", .type = SINEW_ATTR_TIME},
    {.name = "frame", .short_name = "frm", .type = SINEW_ATTR_DOUBLE},
    {.name = "object", .short_name = "ob", .type = SINEW_ATTR_STRING},
    {.name = "objectMsg", .short_name = "obm", .type = SINEW_ATTR_MESSAGE},
    {.name = "attribute", .short_name = "a", .type = SINEW_ATTR_STRING},
    {.name = "animated", .short_name = "ani", .type = SINEW_ATTR_ENUM, .default_value = 1,
     .enum_fields = "Not Animated:Animated:Animated no Callback"},
    {.name = "unitOption", .short_name = "uno", .type = SINEW_ATTR_ENUM,
     .enum_fields = "All:None:Angular Only"},
    {.name = "exprConnCount", .short_name = "xcc", .type = SINEW_ATTR_INT},
    {.name = "alwaysEvaluate", .short_name = "ae", .type = SINEW_ATTR_BOOL, .default_value = 1},
    {.name = "lastTimeEvaluated", .short_name = "lte", .type = SINEW_ATTR_TIME},
    {.name = "evaluateNow", .short_name = "xen", .type = SINEW_ATTR_INT},
    {.name = "newFileFormat", .short_name = "nff", .type = SINEW_ATTR_INT},
};

static const sinew_affects_t expr_affects[] = {
    {"internalExpression", "output"}, {"input", "output"},     {"inputMatrix", "output"},
    {"time", "output"},               {"unitOption", "output"}, {"alwaysEvaluate", "output"},
    {"internalExpression", "expression"}, {"input", "expression"}, {"inputMatrix", "expression"},
};

static sinew_plug_t plug1(sinew_node_t n, uint32_t attr, int32_t i) {
  return sinew_plug_make(n, attr, 1, &i);
}
static sinew_plug_t plug0(sinew_node_t n, uint32_t attr) { return sinew_plug_make(n, attr, 0, NULL); }

/* Which scene unit converts the attribute at the other end to the expression's unit. */
static uint8_t unit_of(sinew_graph_t *g, const sinew_plug_t *other, int option) {
  sinew_attr_info_t info;
  if (option == SINEW_EXPR_UNITS_NONE || sinew_node_attr_info(g, other->node, other->attr, &info))
    return UNIT_NONE;
  if (info.type == SINEW_ATTR_ANGLE) return UNIT_ANGLE;
  if (info.type == SINEW_ATTR_DISTANCE && option == SINEW_EXPR_UNITS_ALL) return UNIT_LINEAR;
  if (info.type == SINEW_ATTR_TIME && option == SINEW_EXPR_UNITS_ALL) return UNIT_TIME;
  return UNIT_NONE;
}

/* The factor from the internal unit to the expression's (an input value is divided by it, an
 * output multiplied), with the units in s. */
static double unit_factor(const expr_state *s, uint8_t unit) {
  switch (unit) {
    case UNIT_ANGLE: return sinew_angle_unit_radians((sinew_angle_unit_t)s->angle);
    case UNIT_LINEAR: return sinew_linear_unit_cm((sinew_linear_unit_t)s->linear);
    case UNIT_TIME: return 1.0 / s->fps;
    default: return 1.0;
  }
}

/* The scene's units, as far as s uses them; true when one changed since they were read. */
static bool read_units(sinew_graph_t *g, expr_state *s) {
  s->units_serial = sinew_scene_units_serial();
  int angle = s->angle, linear = s->linear, tunit = s->tunit;
  if (s->units_used & (1u << UNIT_ANGLE)) angle = (int)sinew_scene_angle_unit(g);
  if (s->units_used & (1u << UNIT_LINEAR)) linear = (int)sinew_scene_linear_unit(g);
  if (s->units_used & (1u << UNIT_TIME)) tunit = (int)sinew_time_get_unit(g);
  bool changed = angle != s->angle || linear != s->linear || tunit != s->tunit;
  s->angle = angle;
  s->linear = linear;
  s->tunit = tunit;
  s->fps = sinew_time_unit_fps((sinew_time_unit_t)tunit);
  return changed;
}

/* Works out the wiring of s's expression: where each input comes from and what it is, where
 * each output goes, the units, unitOption and alwaysEvaluate. */
static void wire(sinew_graph_t *g, sinew_node_t n, expr_state *s) {
  int64_t opt = 0;
  sinew_plug_t po = plug0(n, A.unit_option), pae = plug0(n, A.always_evaluate);
  s->option = sinew_get_int(g, &po, &opt) ? 0 : (int)opt;
  s->always = true;
  sinew_get_bool(g, &pae, &s->always);
  size_t nin = sinew_expr_input_count(s->expr);
  s->units_used = sinew_expr_uses_time(s->expr) ? 1u << UNIT_TIME : 0; /* frame: fps */
  for (size_t j = 0; j < nin + s->nouts; j++) {
    expr_wire *w = &s->wires[j];
    sinew_plug_t other;
    w->matrix = w->fed = false;
    w->unit = UNIT_NONE;
    if (j < nin) {
      w->plug = plug1(n, A.input_matrix, (int32_t)j);
      w->fed = sinew_plug_source(g, &w->plug, &other);
      w->matrix = w->fed || sinew_plug_has_value(g, &w->plug);
      if (!w->matrix) {
        w->plug = plug1(n, A.input, (int32_t)j);
        w->fed = sinew_plug_source(g, &w->plug, &other);
        if (w->fed) w->unit = unit_of(g, &other, s->option);
      }
    } else {
      w->plug = plug1(n, A.output, (int32_t)(j - nin));
      if (sinew_plug_destinations(g, &w->plug, &other, 1)) w->unit = unit_of(g, &other, s->option);
    }
    if (w->unit) s->units_used |= (uint8_t)(1u << w->unit);
  }
  s->angle = s->linear = s->tunit = -1;
  read_units(g, s);
  for (size_t j = 0; j < nin + s->nouts; j++) s->wires[j].factor = unit_factor(s, s->wires[j].unit);
  s->wired = true;
}

static int expr_init(sinew_graph_t *g, sinew_node_t n, void *state) { return SINEW_OK; }

static void expr_destroy(sinew_graph_t *g, sinew_node_t n, void *state) {
  expr_state *s = state;
  sinew_expr_destroy(s->expr);
  sinew_free(s->compiled);
  sinew_free(s->outs);
  sinew_free(s->wires);
  memset(s, 0, sizeof *s);
}

static void expr_input_changed(sinew_graph_t *g, sinew_node_t n, void *state,
                               const sinew_plug_t *p) {
  expr_state *s = state;
  if (p->attr != A.time && p->attr != A.frame) s->inputs_changed = true;
  if (p->attr == A.ixp) s->text_changed = true;
  if (p->attr == A.unit_option || p->attr == A.always_evaluate) s->wired = false;
  /* inm[j] set or unset (not a connected one's value flowing in): whether in[j] or inm[j] is
   * read may change */
  if (p->attr == A.input_matrix && s->wired && p->nidx == 1 && p->idx[0] >= 0 &&
      (size_t)p->idx[0] < sinew_expr_input_count(s->expr) &&
      !(s->wires[p->idx[0]].matrix && s->wires[p->idx[0]].fed))
    s->wired = false;
}

/* A connection into in[] or inm[] or out of out[] of an expression node, made or broken (by a
 * command, an undo, a deletion): its wiring is worked out again before it next runs. */
static void rewire(sinew_graph_t *g, const sinew_plug_t *p) {
  expr_state *s = sinew_node_type_is_a(sinew_node_type(g, p->node), "expression")
                      ? sinew_node_state(g, p->node)
                      : NULL;
  if (s) s->wired = false;
}
static void wiring_changed(void *ud, const sinew_plug_t *src, const sinew_plug_t *dst) {
  if (dst->attr == A.input || dst->attr == A.input_matrix) rewire(ud, dst);
  if (src->attr == A.output) rewire(ud, src);
}

/* Compiles ixp when it differs from what was compiled: SINEW_OK, SINEW_ECOMPUTE when the text
 * does not compile (logged once), SINEW_ENOMEM (tried again next time). */
/* The poll an evaluation makes while it runs (sinew_expr_io_t.should_stop). */
static bool stop_requested(void *ctx) { return sinew_compute_interrupted(ctx); }

static int ensure_compiled(sinew_graph_t *g, sinew_node_t n, expr_state *s) {
  if (s->compiled && !s->text_changed) return s->compile_failed ? SINEW_ECOMPUTE : SINEW_OK;
  const char *text = "";
  sinew_plug_t p = plug0(n, A.ixp);
  int grc = sinew_get_string(g, &p, &text);
  if (grc) return grc;
  if (s->compiled && strcmp(s->compiled, text) == 0) {
    s->text_changed = false;
    return s->compile_failed ? SINEW_ECOMPUTE : SINEW_OK;
  }
  size_t len = strlen(text);
  char *copy = sinew_malloc(len + 1);
  if (!copy) return SINEW_ENOMEM;
  memcpy(copy, text, len + 1);
  sinew_expr_t *e = NULL;
  char err[256];
  int rc = sinew_expr_compile(text, &e, err, sizeof err);
  size_t nout = rc ? 0 : sinew_expr_output_count(e), nin = rc ? 0 : sinew_expr_input_count(e);
  double *outs = rc ? NULL : sinew_calloc(nout ? 2 * nout : 1, sizeof *outs);
  expr_wire *wires = rc ? NULL : sinew_calloc(nin + nout ? nin + nout : 1, sizeof *wires);
  if (rc == SINEW_ENOMEM || (!rc && (!outs || !wires))) {
    /* not the text's fault: nothing is remembered, the next pull tries again */
    sinew_expr_destroy(e);
    sinew_free(copy);
    sinew_free(outs);
    sinew_free(wires);
    return SINEW_ENOMEM;
  }
  sinew_free(s->compiled);
  s->compiled = copy;
  s->text_changed = false;
  sinew_expr_destroy(s->expr);
  s->expr = NULL;
  s->compile_failed = rc != SINEW_OK;
  s->evaluated = false;
  s->wired = false;
  sinew_free(s->wires);
  s->wires = wires;
  if (rc) {
    sinew_log(g, SINEW_LOG_WARNING, SINEW_LOG_COMPUTE_FAILED, "%s: internalExpression: %s",
              sinew_node_name(g, n), err);
    return SINEW_ECOMPUTE;
  }
  s->expr = e;
  /* outputs start from what they hold (a file may have stored them) */
  for (size_t k = 0; k < nout; k++) {
    sinew_plug_t o = plug1(n, A.output, (int32_t)k);
    if (sinew_plug_has_value(g, &o)) {
      double v = 0;
      if (!sinew_get_double(g, &o, &v)) outs[k] = v;
    }
  }
  sinew_free(s->outs);
  s->outs = outs;
  s->nouts = nout;
  return SINEW_OK;
}

static int evaluate(sinew_compute_t *ctx, expr_state *s) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  int crc = ensure_compiled(g, n, s);
  if (crc) return crc;
  sinew_expr_t *e = s->expr;
  if (!s->wired) wire(g, n, s);
  /* a change of the scene's units changes the factors (only the units the wiring uses) */
  if (s->units_used && s->units_serial != sinew_scene_units_serial() && read_units(g, s))
    for (size_t j = 0; j < sinew_expr_input_count(e) + s->nouts; j++)
      s->wires[j].factor = unit_factor(s, s->wires[j].unit);
  double seconds = 0;
  sinew_compute_get_double(ctx, A.time, &seconds);
  size_t nin = sinew_expr_input_count(e), nout = s->nouts;
  const expr_wire *win = s->wires, *wout = s->wires + nin;
  /* alwaysEvaluate off: a time change alone does not run an expression that ignores time */
  bool skip = s->evaluated && !s->always && !sinew_expr_uses_time(e) && !s->inputs_changed;
  if (!skip) {
    double in_small[16];
    const sinew_mat4_t *mp_small[16];
    sinew_mat4_t mat_small[4];
    double *ins = nin <= 16 ? in_small : sinew_calloc(nin, sizeof *ins);
    const sinew_mat4_t **mps = nin <= 16 ? mp_small : sinew_calloc(nin, sizeof *mps);
    sinew_mat4_t *mats = NULL;
    size_t nmats = 0;
    bool any_matrix = false;
    if (!ins || !mps) {
      if (ins != in_small) sinew_free(ins);
      if (mps != mp_small) sinew_free((void *)mps);
      return SINEW_ENOMEM;
    }
    for (size_t j = 0; j < nin; j++) {
      ins[j] = 0;
      mps[j] = NULL;
      if (win[j].matrix) {
        if (!mats && !(mats = nin <= 4 ? mat_small : sinew_calloc(nin, sizeof *mats))) {
          if (ins != in_small) sinew_free(ins);
          if (mps != mp_small) sinew_free((void *)mps);
          return SINEW_ENOMEM;
        }
        if (sinew_get_matrix(g, &win[j].plug, &mats[nmats]) == SINEW_OK) mps[j] = &mats[nmats++];
        any_matrix = true;
        continue;
      }
      double v = 0;
      if (sinew_get_double(g, &win[j].plug, &v)) v = 0;
      ins[j] = v / win[j].factor;
    }
    sinew_expr_io_t io = {.inputs = ins, .ninputs = nin, .input_matrices = any_matrix ? mps : NULL,
                          .outputs = s->outs, .noutputs = nout, .time_seconds = seconds,
                          .frame = seconds * s->fps, .should_stop = stop_requested, .stop_data = ctx};
    unsigned faults = 0;
    char fault[256];
    memcpy(s->outs + nout, s->outs, nout * sizeof *s->outs);
    int rc = sinew_expr_eval(e, &io, &faults, fault, sizeof fault);
    if (ins != in_small) sinew_free(ins);
    if (mps != mp_small) sinew_free((void *)mps);
    if (mats && mats != mat_small) sinew_free(mats);
    if (rc == SINEW_ENOMEM) return rc; /* the plug stays dirty: the next pull runs it again */
    if (rc == SINEW_ELIMIT || rc == SINEW_EINTERRUPTED) {
      /* an endless loop or a host's interrupt: the outputs keep their last values and the
       * graph goes on; the next change of the inputs or the time runs the expression again */
      memcpy(s->outs, s->outs + nout, nout * sizeof *s->outs);
      s->faults++;
      sinew_log(g, SINEW_LOG_ERROR, SINEW_LOG_EXPR_STOPPED, "%s: %s; its outputs keep their last values",
                sinew_node_name(g, n), fault[0] ? fault : sinew_strerror(rc));
      faults = 0;
    }
    s->evaluations++;
    s->evaluated = true;
    s->inputs_changed = false;
    if (faults) {
      s->faults += faults;
      sinew_log(g, SINEW_LOG_WARNING, SINEW_LOG_EXPR_RUNTIME, "%s: %s%s", sinew_node_name(g, n),
                fault[0] ? fault : "runtime fault",
                rc ? " (the run stopped; outputs not reached keep their values)" : "");
    }
  }
  for (size_t k = 0; k < nout; k++) {
    int rc = sinew_compute_set_double(ctx, &wout[k].plug, s->outs[k] * wout[k].factor);
    if (rc) return rc;
  }
  return SINEW_OK;
}

typedef struct name_ctx {
  sinew_graph_t *g;
  sinew_node_t n;
  char buf[512];
} name_ctx;

/* .I[n] -> the plug feeding in[n] (or inm[n]); .O[n] -> the first plug out[n] feeds. */
static const char *ref_name(void *ud, const sinew_expr_ref_t *ref) {
  name_ctx *c = ud;
  sinew_plug_t p, other;
  bool found;
  if (ref->written) {
    p = plug1(c->n, A.output, ref->index);
    found = sinew_plug_destinations(c->g, &p, &other, 1) > 0;
  } else {
    p = plug1(c->n, A.input_matrix, ref->index);
    found = sinew_plug_source(c->g, &p, &other);
    if (!found) {
      p = plug1(c->n, A.input, ref->index);
      found = sinew_plug_source(c->g, &p, &other);
    }
  }
  if (!found) return NULL;
  size_t need = sinew_plug_format(c->g, &other, false, c->buf, sizeof c->buf);
  return need < sizeof c->buf ? c->buf : NULL;
}

static int expr_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  expr_state *s = sinew_compute_state(ctx);
  if (plug->attr == A.output) return evaluate(ctx, s);
  if (plug->attr == A.expression) {
    sinew_graph_t *g = sinew_compute_graph(ctx);
    name_ctx c = {.g = g, .n = sinew_compute_node(ctx)};
    int crc = ensure_compiled(g, c.n, s);
    if (crc == SINEW_ENOMEM) return crc;
    if (crc) {
      const char *raw = "";
      sinew_plug_t p = plug0(c.n, A.ixp);
      sinew_get_string(g, &p, &raw);
      return sinew_compute_set_string(ctx, plug, raw);
    }
    char *text = sinew_expr_rewrite(s->expr, ref_name, &c);
    if (!text) return SINEW_ENOMEM;
    int rc = sinew_compute_set_string(ctx, plug, text);
    sinew_free(text);
    return rc;
  }
  return SINEW_EUNKNOWN_PLUG;
}

int sinew_lang_register_types(sinew_graph_t *g) {
  if (!g) return SINEW_EINVAL;
  if (sinew_find_node_type(g, "expression")) return SINEW_OK;
  sinew_node_type_desc_t d = {.name = "expression",
                              .attrs = expr_attrs,
                              .attr_count = sizeof expr_attrs / sizeof *expr_attrs,
                              .affects = expr_affects,
                              .affects_count = sizeof expr_affects / sizeof *expr_affects,
                              .compute = expr_compute,
                              .input_changed = expr_input_changed,
                              .state_size = sizeof(expr_state),
                              .init = expr_init,
                              .destroy = expr_destroy};
  /* connections change the wiring an expression node keeps (first: a type without its observer
   * would never learn of them) */
  sinew_observer_t watch = {.connected = wiring_changed, .disconnected = wiring_changed, .user_data = g};
  int rc = sinew_graph_add_observer(g, &watch, NULL);
  if (rc) return rc;
  const sinew_node_type_t *t;
  if ((rc = sinew_register_node_type(g, &d, &t))) return rc;
  A.expression = sinew_node_type_attr(t, "expression");
  A.ixp = sinew_node_type_attr(t, "internalExpression");
  A.input = sinew_node_type_attr(t, "input");
  A.input_matrix = sinew_node_type_attr(t, "inputMatrix");
  A.output = sinew_node_type_attr(t, "output");
  A.time = sinew_node_type_attr(t, "time");
  A.frame = sinew_node_type_attr(t, "frame");
  A.object = sinew_node_type_attr(t, "object");
  A.object_msg = sinew_node_type_attr(t, "objectMsg");
  A.attribute = sinew_node_type_attr(t, "attribute");
  A.animated = sinew_node_type_attr(t, "animated");
  A.unit_option = sinew_node_type_attr(t, "unitOption");
  A.conn_count = sinew_node_type_attr(t, "exprConnCount");
  A.always_evaluate = sinew_node_type_attr(t, "alwaysEvaluate");
  return SINEW_OK;
}

int sinew_expression_stats(sinew_graph_t *g, sinew_node_t n, uint64_t *evaluations,
                           uint64_t *faults) {
  if (!sinew_node_type_is_a(sinew_node_type(g, n), "expression"))
    return sinew_graph_set_error(g, SINEW_ETYPE, "not an expression node");
  expr_state *s = sinew_node_state(g, n);
  if (evaluations) *evaluations = s->evaluations;
  if (faults) *faults = s->faults;
  return SINEW_OK;
}

/* ---- creation from text with names ------------------------------------------------------------- */

typedef struct conn_pair {
  sinew_plug_t src, dst;
} conn_pair;

typedef struct resolved {
  sinew_plug_t plug;
  bool matrix;
} resolved;

/* The node part of a reference ("ns:arm" in "ns:arm.tx"), to tell an unknown node from an
 * unknown attribute. */
static bool names_a_node(sinew_graph_t *g, const char *text) {
  const char *dot = strchr(text, '.');
  char name[512];
  size_t n = dot ? (size_t)(dot - text) : strlen(text);
  if (n == 0 || n >= sizeof name) return false;
  memcpy(name, text, n);
  name[n] = 0;
  sinew_node_t node;
  int rc = sinew_node_find(g, name, &node);
  return rc == SINEW_OK || rc == SINEW_EAMBIGUOUS;
}

/* Resolves every reference to a plug and checks what can be checked without changing the graph:
 * the plug exists, reads numbers (or a matrix), and a written one is writable and not fed by
 * another connection (own: the node whose connections are being replaced, or none). */
static int resolve_refs(sinew_graph_t *g, const sinew_expr_t *e, sinew_node_t object,
                        sinew_node_t own, resolved *out) {
  for (size_t i = 0; i < sinew_expr_ref_count(e); i++) {
    const sinew_expr_ref_t *r = sinew_expr_ref(e, i);
    sinew_plug_t p;
    int rc;
    if (r->text[0] == '.' && (r->text[1] == 'I' || r->text[1] == 'O') && r->text[2] == '[')
      return sinew_graph_set_error(g, SINEW_EINVAL,
                                   "expression: line %u, column %u: %s: use attribute names "
                                   "(.I[n] and .O[n] are the stored form)",
                                   r->line, r->column, r->text);
    if (strchr(r->text, '.')) {
      rc = sinew_plug_parse(g, r->text, object, &p);
      if (rc && !names_a_node(g, r->text))
        return sinew_graph_fail(g, SINEW_ENOTFOUND, "expression", "line %u, column %u: no such node: %s",
                                r->line, r->column, r->text);
    } else if (sinew_node_valid(g, object)) {
      rc = sinew_plug_parse_attr(g, object, r->text, &p);
    } else {
      return sinew_graph_set_error(g, SINEW_ENOTFOUND,
                                   "expression: line %u, column %u: '%s' names no object "
                                   "(write object.attribute, or give a default object)",
                                   r->line, r->column, r->text);
    }
    if (rc)
      return sinew_graph_fail(g, SINEW_ENOTFOUND, "expression", "line %u, column %u: no such attribute: %s",
                              r->line, r->column, r->text);
    sinew_attr_info_t info;
    sinew_node_attr_info(g, p.node, p.attr, &info);
    bool numeric = sinew_attr_type_is_numeric(info.type);
    bool matrix = info.type == SINEW_ATTR_MATRIX;
    if (sinew_plug_is_array(g, &p) || (!numeric && !(matrix && !r->written)))
      return sinew_graph_set_error(g, SINEW_ETYPE,
                                   "expression: line %u, column %u: %s is %s; an expression %s "
                                   "numbers%s",
                                   r->line, r->column, r->text,
                                   sinew_plug_is_array(g, &p) ? "an array" : sinew_attr_type_name(info.type),
                                   r->written ? "writes" : "reads", r->written ? "" : " and matrices");
    if (r->written) {
      sinew_plug_t src;
      if (!(info.flags & SINEW_ATTR_WRITABLE) || !(info.flags & SINEW_ATTR_CONNECTABLE))
        return sinew_graph_set_error(g, SINEW_EREADONLY,
                                     "expression: line %u, column %u: cannot write %s: it is not "
                                     "writable",
                                     r->line, r->column, r->text);
      if (sinew_plug_source(g, &p, &src) &&
          !(src.node.index == own.index && src.node.gen == own.gen && src.attr == A.output)) {
        char buf[512];
        sinew_plug_format(g, &src, false, buf, sizeof buf);
        return sinew_graph_set_error(g, SINEW_ECONNECTED,
                                     "expression: line %u, column %u: cannot write %s: %s already "
                                     "feeds it",
                                     r->line, r->column, r->text, buf);
      }
    }
    out[i].plug = p;
    out[i].matrix = matrix;
  }
  return SINEW_OK;
}

/* Connects the references of e to node n (inside the caller's transaction). */
static int connect_refs(sinew_graph_t *g, sinew_node_t n, const sinew_expr_t *e, const resolved *rs) {
  for (size_t i = 0; i < sinew_expr_ref_count(e); i++) {
    const sinew_expr_ref_t *r = sinew_expr_ref(e, i);
    conn_pair m = {0};
    if (r->written) {
      m.src = plug1(n, A.output, r->index);
      m.dst = rs[i].plug;
    } else {
      m.src = rs[i].plug;
      m.dst = plug1(n, rs[i].matrix ? A.input_matrix : A.input, r->index);
    }
    int rc = sinew_connect(g, &m.src, &m.dst, 0, NULL);
    if (rc) {
      char buf[512];
      sinew_plug_format(g, &rs[i].plug, false, buf, sizeof buf);
      char why[512];
      snprintf(why, sizeof why, "%s", sinew_graph_errmsg(g));
      return sinew_graph_fail(g, rc, "expression", "line %u, column %u: cannot %s %s: %s", r->line, r->column,
                              r->written ? "write" : "read", buf, why);
    }
  }
  return SINEW_OK;
}

static int set_string(sinew_graph_t *g, sinew_node_t n, uint32_t attr, const char *s) {
  sinew_plug_t p = plug0(n, attr);
  return sinew_set_string(g, &p, s);
}

/* Connects the resolved references, time1.outTime -> time (when needed) and the default
 * object's message -> objectMsg. */
static int attach(sinew_graph_t *g, sinew_node_t n, const sinew_expr_t *e, const resolved *rs,
                  sinew_node_t object, bool time_needed) {
  int rc = connect_refs(g, n, e, rs);
  if (rc) return rc;
  sinew_node_t t1;
  if (time_needed) {
    if ((rc = sinew_time_node(g, &t1))) return rc;
    sinew_plug_t src = plug0(t1, sinew_node_attr(g, t1, "outTime")), dst = plug0(n, A.time);
    if (!sinew_plug_source(g, &dst, NULL) && (rc = sinew_connect(g, &src, &dst, 0, NULL))) return rc;
  }
  if (sinew_node_valid(g, object)) {
    sinew_plug_t src = plug0(object, sinew_node_attr(g, object, "message")), dst = plug0(n, A.object_msg);
    if (!sinew_plug_source(g, &dst, NULL) && (rc = sinew_connect(g, &src, &dst, 0, NULL))) return rc;
  }
  return SINEW_OK;
}

/* Compiles the text and resolves its references (*out_rs: caller frees with sinew_free). */
static int prepare(sinew_graph_t *g, const char *text, sinew_node_t object, sinew_node_t own,
                   sinew_expr_t **out, resolved **out_rs) {
  char err[256];
  int rc = sinew_expr_compile(text ? text : "", out, err, sizeof err);
  if (rc) return sinew_graph_fail(g, rc, "expression", "%s", err);
  size_t nr = sinew_expr_ref_count(*out);
  *out_rs = sinew_calloc(nr ? nr : 1, sizeof **out_rs);
  if (!*out_rs)
    rc = sinew_graph_fail(g, SINEW_ENOMEM, "expression", "out of memory");
  else rc = resolve_refs(g, *out, object, own, *out_rs);
  if (rc) {
    sinew_free(*out_rs);
    sinew_expr_destroy(*out);
    *out_rs = NULL;
    *out = NULL;
  }
  return rc;
}

int sinew_expression_create(sinew_graph_t *g, const sinew_expression_desc_t *desc,
                            sinew_node_t *out_node) {
  if (!g || !desc || !desc->text) return SINEW_EINVAL;
  int rc = sinew_lang_register_types(g);
  if (rc) return rc;
  if (desc->unit_option < 0 || desc->unit_option > 2)
    return sinew_graph_fail(g, SINEW_EINVAL, "expression", "unit option %d (0 all, 1 none, 2 angular)",
                            desc->unit_option);
  sinew_expr_t *e;
  resolved *rs;
  if ((rc = prepare(g, desc->text, desc->object, (sinew_node_t){0, 0}, &e, &rs))) return rc;
  char *ixp = sinew_expr_internal_text(e);
  sinew_node_t n = {0, 0};
  if (!ixp) rc = sinew_graph_fail(g, SINEW_ENOMEM, "expression", "out of memory");
  if (!rc && !(rc = sinew_graph_begin(g))) {
    rc = sinew_node_create(g, "expression", desc->name, &n);
    int64_t animated = desc->animated_set ? desc->animated : 1;
    sinew_plug_t pu = plug0(n, A.unit_option), pa = plug0(n, A.animated), pae = plug0(n, A.always_evaluate);
    if (!rc) rc = set_string(g, n, A.ixp, ixp);
    if (!rc) rc = sinew_set_int(g, &pu, desc->unit_option);
    if (!rc) rc = sinew_set_int(g, &pa, animated);
    if (!rc) rc = sinew_set_bool(g, &pae, !desc->not_always_evaluate);
    if (!rc && sinew_node_valid(g, desc->object))
      rc = set_string(g, n, A.object, sinew_node_name(g, desc->object));
    bool time_needed = sinew_expr_uses_time(e) || !desc->not_always_evaluate;
    if (!rc) rc = attach(g, n, e, rs, desc->object, time_needed);
    rc = sinew_graph_end(g, rc);
  }
  if (!rc && out_node) *out_node = n;
  sinew_free(ixp);
  sinew_free(rs);
  sinew_expr_destroy(e);
  return rc;
}

/* The connections an expression node's text made: into in[] / inm[], out of out[], and into
 * objectMsg when the object changes; in the graph's order. */
typedef struct old_conns {
  sinew_node_t n;
  bool object_msg;
  conn_pair *v;
  size_t len, cap;
  bool oom;
} old_conns;

static bool collect_old(void *ud, const sinew_connection_t *c) {
  old_conns *o = ud;
  bool mine = (c->dst.node.index == o->n.index && c->dst.node.gen == o->n.gen &&
               (c->dst.attr == A.input || c->dst.attr == A.input_matrix ||
                (o->object_msg && c->dst.attr == A.object_msg))) ||
              (c->src.node.index == o->n.index && c->src.node.gen == o->n.gen &&
               c->src.attr == A.output);
  if (!mine) return true;
  if (o->len == o->cap) {
    size_t nc = o->cap ? 2 * o->cap : 16;
    conn_pair *v = sinew_realloc(o->v, nc * sizeof *v);
    if (!v) {
      o->oom = true;
      return false;
    }
    o->v = v;
    o->cap = nc;
  }
  o->v[o->len++] = (conn_pair){.src = c->src, .dst = c->dst};
  return true;
}

int sinew_expression_set_text(sinew_graph_t *g, sinew_node_t node, const char *text,
                              sinew_node_t object) {
  if (!g || !text) return SINEW_EINVAL;
  if (!sinew_node_type_is_a(sinew_node_type(g, node), "expression"))
    return sinew_graph_fail(g, SINEW_ETYPE, "expression", "-e: %s is not an expression node",
                            sinew_node_name(g, node) ? sinew_node_name(g, node) : "(invalid node)");
  sinew_expr_t *e;
  resolved *rs;
  int rc = prepare(g, text, object, node, &e, &rs);
  if (rc) return rc;
  bool new_object = sinew_node_valid(g, object);
  old_conns old = {.n = node, .object_msg = new_object};
  char *ixp = sinew_expr_internal_text(e);
  sinew_foreach_connection(g, node, false, collect_old, &old);
  if (!ixp || old.oom) rc = sinew_graph_fail(g, SINEW_ENOMEM, "expression", "out of memory");
  /* the graph changes in a transaction: a failure takes everything back */
  if (!rc && !(rc = sinew_graph_begin(g))) {
    for (size_t i = 0; i < old.len && !rc; i++) rc = sinew_disconnect(g, &old.v[i].src, &old.v[i].dst);
    if (!rc) rc = set_string(g, node, A.ixp, ixp);
    if (!rc && new_object) rc = set_string(g, node, A.object, sinew_node_name(g, object));
    if (!rc) rc = attach(g, node, e, rs, object, sinew_expr_uses_time(e));
    rc = sinew_graph_end(g, rc);
  }
  sinew_free(old.v);
  sinew_free(ixp);
  sinew_free(rs);
  sinew_expr_destroy(e);
  return rc;
}
