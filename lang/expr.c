/* lang/expr.c: expression mode: compiling an expression's text once (references numbered as
 * inputs and outputs, the internal .I[n] / .O[n] text), and evaluating it with variables that
 * keep their values between evaluations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/lang_internal.h"

typedef struct ref_span {
  uint32_t pos, len;
  uint32_t ref; /* index into refs */
} ref_span;

struct sinew_expr {
  chunk code;
  expr_refs refs;
  sinew_expr_ref_t *pub;
  sinew_value_t *locals;
  bool *written;
  uint64_t rand_state;
  char *src;
  ref_span *spans;
  uint32_t nspans;
  /* the typed VM (lang/typed.c): NULL when the text needs the generic one */
  tprog *typed;
  tcell *cells;     /* its cells: the variables live here while cells_live */
  bool cells_live;  /* the variables' values are in cells, not in locals */
  bool primed;      /* every variable typed by its first assignment has had it */
  bool generic_only; /* sinew__expr_use_typed(false) */
  /* the usual case, decided at the first run and kept until one of its reasons changes: the
   * typed VM with the variables in its cells, code without a loop or a matrix input (then an
   * evaluation with numbers only goes straight to the typed VM, nothing to check or set up) */
  bool direct;
  typed_target to;  /* the typed VM's program and cells, for sinew__typed_eval */
  sinew__obj_pool pool; /* the generic VM's matrices, reused */
};

static int collect_spans(sinew_expr_t *E, const ast *a, uint32_t *cap) {
  for (; a; a = a->next) {
    if (a->kind == A_ATTR) {
      if (E->nspans == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 8;
        ref_span *s = sinew_realloc(E->spans, nc * sizeof *s);
        if (!s) return SINEW_ENOMEM;
        E->spans = s;
        *cap = nc;
      }
      uint32_t r = 0;
      while (r < E->refs.n && strcmp(E->refs.text[r], a->v.str.s) != 0) r++;
      E->spans[E->nspans++] = (ref_span){a->src_pos, a->src_len, r};
    }
    if ((a->a && collect_spans(E, a->a, cap)) || (a->b && collect_spans(E, a->b, cap)) ||
        (a->c && collect_spans(E, a->c, cap)) || (a->d && collect_spans(E, a->d, cap)))
      return SINEW_ENOMEM;
  }
  return SINEW_OK;
}

static int cmp_span(const void *x, const void *y) {
  const ref_span *a = x, *b = y;
  return a->pos < b->pos ? -1 : a->pos > b->pos;
}

int sinew_expr_compile(const char *text, sinew_expr_t **out, char *errbuf, size_t errlen) {
  if (!text || !out) return SINEW_EINVAL;
  char dummy[8];
  if (!errbuf || !errlen) {
    errbuf = dummy;
    errlen = sizeof dummy;
  }
  errbuf[0] = 0;
  sinew_expr_t *E = sinew_calloc(1, sizeof *E);
  if (!E) return SINEW_ENOMEM;
  size_t len = strlen(text);
  E->src = sinew_malloc(len + 1);
  if (!E->src) {
    sinew_free(E);
    return SINEW_ENOMEM;
  }
  memcpy(E->src, text, len + 1);
  E->rand_state = 0x2545F4914F6CDD1Dull;
  sinew__parse p;
  memset(&p, 0, sizeof p);
  ast *prog = NULL;
  int rc = sinew__parse_program(&p, E->src, len, true, &prog);
  sinew_error_t err = {0};
  if (rc) {
    err.code = rc;
    err.line = p.err_line;
    err.column = p.err_line ? p.err_col : 0;
    snprintf(err.reason, sizeof err.reason, "%s", p.err);
  } else {
    rc = sinew__compile(NULL, prog, true, &E->refs, &E->code, &err);
    uint32_t cap = 0;
    if (!rc && collect_spans(E, prog, &cap)) rc = SINEW_ENOMEM;
  }
  sinew__parse_free(&p);
  if (rc && err.code) sinew_error_format(&err, errbuf, errlen); /* "line L, column C: ..." */
  if (!rc && E->nspans) qsort(E->spans, E->nspans, sizeof *E->spans, cmp_span);
  if (!rc) {
    E->locals = sinew_calloc(E->code.nlocals ? E->code.nlocals : 1, sizeof *E->locals);
    E->pub = sinew_calloc(E->refs.n ? E->refs.n : 1, sizeof *E->pub);
    E->written = sinew_calloc(E->refs.nout ? E->refs.nout : 1, sizeof *E->written);
    if (!E->locals || !E->pub || !E->written) rc = SINEW_ENOMEM;
  }
  if (!rc) rc = sinew__typed_compile(&E->code, E->refs.nin, &E->typed);
  if (!rc && E->typed) {
    E->cells = sinew_malloc(E->typed->ncells * sizeof *E->cells);
    if (!E->cells) rc = SINEW_ENOMEM;
    else memcpy(E->cells, E->typed->init, E->typed->ncells * sizeof *E->cells);
    E->to = (typed_target){E->typed, E->cells, &E->rand_state};
  }
  if (rc) {
    if (rc == SINEW_ENOMEM && !errbuf[0]) snprintf(errbuf, errlen, "out of memory");
    sinew_expr_destroy(E);
    return rc;
  }
  for (uint32_t i = 0; i < E->refs.n; i++) {
    E->pub[i].text = E->refs.text[i];
    E->pub[i].written = E->refs.written[i];
    E->pub[i].index = E->refs.id[i];
    /* line and column of the first appearance */
    for (uint32_t k = 0; k < E->nspans; k++)
      if (E->spans[k].ref == i) {
        uint32_t line = 1, col = 1;
        for (uint32_t c = 0; c < E->spans[k].pos; c++) {
          if (E->src[c] == '\n') {
            line++;
            col = 1;
          } else {
            col++;
          }
        }
        E->pub[i].line = line;
        E->pub[i].column = col;
        break;
      }
  }
  *out = E;
  return SINEW_OK;
}

void sinew_expr_destroy(sinew_expr_t *E) {
  if (!E) return;
  if (E->locals)
    for (uint32_t i = 0; i < E->code.nlocals; i++) lv_release(&E->locals[i]);
  sinew_free(E->locals);
  sinew__obj_pool_clear(&E->pool);
  sinew__typed_free(E->typed);
  sinew_free(E->cells);
  sinew__chunk_free(&E->code);
  for (uint32_t i = 0; i < E->refs.n; i++) sinew_free(E->refs.text[i]);
  sinew_free(E->refs.text);
  sinew_free(E->refs.written);
  sinew_free(E->refs.id);
  sinew_free(E->pub);
  sinew_free(E->written);
  sinew_free(E->spans);
  sinew_free(E->src);
  sinew_free(E);
}

size_t sinew_expr_ref_count(const sinew_expr_t *E) { return E ? E->refs.n : 0; }
const sinew_expr_ref_t *sinew_expr_ref(const sinew_expr_t *E, size_t i) {
  return E && i < E->refs.n ? &E->pub[i] : NULL;
}
size_t sinew_expr_input_count(const sinew_expr_t *E) { return E ? E->refs.nin : 0; }
size_t sinew_expr_output_count(const sinew_expr_t *E) { return E ? E->refs.nout : 0; }
bool sinew_expr_uses_time(const sinew_expr_t *E) { return E && E->refs.uses_time; }

char *sinew_expr_rewrite(const sinew_expr_t *E,
                         const char *(*name)(void *ud, const sinew_expr_ref_t *ref), void *ud) {
  if (!E || !name) return NULL;
  size_t len = strlen(E->src), cap = len + 1, o = 0, at = 0;
  char *out = sinew_malloc(cap);
  if (!out) return NULL;
  for (uint32_t k = 0; k <= E->nspans; k++) {
    const ref_span *s = k < E->nspans ? &E->spans[k] : NULL;
    uint32_t upto = s ? s->pos : (uint32_t)len;
    const char *rep = s ? name(ud, &E->pub[s->ref]) : NULL;
    size_t rl = rep ? strlen(rep) : s ? s->len : 0;
    size_t need = o + (upto - at) + rl + 1;
    if (need > cap) {
      size_t nc = cap * 2 > need ? cap * 2 : need;
      char *b = sinew_realloc(out, nc);
      if (!b) {
        sinew_free(out);
        return NULL;
      }
      out = b;
      cap = nc;
    }
    memcpy(out + o, E->src + at, upto - at);
    o += upto - at;
    if (s) {
      memcpy(out + o, rep ? rep : E->src + s->pos, rl);
      o += rl;
      at = s->pos + s->len;
    }
  }
  out[o] = 0;
  return out;
}

static const char *internal_name(void *ud, const sinew_expr_ref_t *ref) {
  char *buf = ud;
  snprintf(buf, 32, ".%c[%d]", ref->written ? 'O' : 'I', ref->index);
  return buf;
}

char *sinew_expr_internal_text(const sinew_expr_t *E) {
  char buf[32];
  return sinew_expr_rewrite(E, internal_name, buf);
}

/* The variables move between the two VMs' storage when an expression changes VM (an input
 * that became a matrix, or the first runs before every variable typed by its first assignment
 * has had it). */
static void cells_from_locals(sinew_expr_t *E) {
  const tprog *P = E->typed;
  for (uint32_t s = 0; s < P->nlocals; s++) {
    int32_t c = P->local_cell[s];
    if (c < 0) continue;
    const sinew_value_t *v = &E->locals[s];
    tcell *d = &E->cells[c];
    switch (P->local_kind[s]) {
      case SINEW_VALUE_INT: d->i = v->kind == SINEW_VALUE_INT ? v->as.i : 0; break;
      case SINEW_VALUE_FLOAT: d->f = v->kind == SINEW_VALUE_FLOAT ? v->as.f : 0; break;
      case SINEW_VALUE_MATRIX: {
        bool m44 = v->kind == SINEW_VALUE_MATRIX && v->as.obj->len == 4 && v->as.obj->cap == 4;
        for (int k = 0; k < 16; k++) d[k].f = m44 ? v->as.obj->d.f[k] : 0;
        break;
      }
      default:
        for (int k = 0; k < 3; k++) d[k].f = v->kind == SINEW_VALUE_VECTOR ? v->as.v[k] : 0;
        break;
    }
  }
  E->cells_live = true;
}

static int locals_from_cells(sinew_expr_t *E) {
  const tprog *P = E->typed;
  for (uint32_t s = 0; s < P->nlocals; s++) {
    int32_t c = P->local_cell[s];
    if (c < 0) continue;
    const tcell *d = &E->cells[c];
    sinew_value_t *v = &E->locals[s];
    if (P->local_kind[s] == SINEW_VALUE_MATRIX) { /* into the variable's own 4x4 when it has one */
      if (!(v->kind == SINEW_VALUE_MATRIX && v->as.obj->refs == 1 && v->as.obj->len == 4 &&
            v->as.obj->cap == 4)) {
        sinew_value_t m;
        if (sinew__matrix_take(&E->pool, 4, 4, &m)) return SINEW_ENOMEM; /* cells stay live */
        lv_release(v);
        *v = m;
      }
      for (int k = 0; k < 16; k++) v->as.obj->d.f[k] = d[k].f;
      continue;
    }
    lv_release(v);
    switch (P->local_kind[s]) {
      case SINEW_VALUE_INT: *v = lv_int(d->i); break;
      case SINEW_VALUE_FLOAT: *v = lv_float(d->f); break;
      default: *v = lv_vec(d[0].f, d[1].f, d[2].f); break;
    }
  }
  E->cells_live = false;
  E->direct = false;
  return SINEW_OK;
}

/* The typed VM runs when the text has one, every input is a number (a matrix input is read
 * by the generic VM), and every variable typed by its first assignment has one. */
static bool use_typed(sinew_expr_t *E, const sinew_expr_io_t *io) {
  const tprog *P = E->typed;
  if (!P || E->generic_only) return false;
  if (P->matrix_inputs || io->input_matrices)
    for (uint32_t k = 0; k < P->nin; k++) { /* a matrix exactly where the code reads one */
      bool m = io->input_matrices && k < io->ninputs && io->input_matrices[k];
      if (m != (P->in_matrix[k] >= 0)) return false;
    }
  if (!E->primed) {
    for (uint32_t s = 0; s < P->nlocals; s++)
      if (P->implicit[s] && E->locals[s].kind != P->local_kind[s]) return false;
    E->primed = true;
  }
  return true;
}

/* Every other evaluation: the first, a matrix input, a loop (its bounds), the generic VM. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int eval_checked(sinew_expr_t *E, const sinew_expr_io_t *io, unsigned *out_faults,
                        char *faultbuf, size_t faultlen) {
  vm_expr_ctx ex; /* field by field: a memset costs more than the typed VM's whole run */
  ex.io = io;
  ex.faults = 0;
  ex.rand_state = &E->rand_state;
  ex.pool = &E->pool;
  ex.faultbuf = faultbuf;
  ex.faultlen = faultlen;
  if (faultbuf && faultlen) faultbuf[0] = 0;
  int rc;
  ex.bounds.deadline = 0;
  ex.bounds.max_seconds = 0;
  ex.bounds.flag = NULL;
  ex.bounds.steps_left = io->max_steps ? io->max_steps : SINEW_EXPR_DEFAULT_MAX_STEPS;
  ex.bounds.max_steps = ex.bounds.steps_left;
  ex.bounds.should_stop = io->should_stop;
  ex.bounds.stop_data = io->stop_data;
  if (use_typed(E, io)) {
    if (!E->cells_live) cells_from_locals(E);
    rc = sinew__typed_run(E->typed, E->cells, &ex);
    E->direct = !E->typed->loops && !E->typed->matrix_inputs;
  } else if (E->cells_live && (rc = locals_from_cells(E))) {
    if (faultbuf && faultlen) snprintf(faultbuf, faultlen, "out of memory");
  } else {
    rc = sinew__vm_run(NULL, &E->code, E->locals, &ex, NULL);
  }
  if (rc) ex.faults++;
  if (out_faults) *out_faults = ex.faults;
  return rc;
}

int sinew_expr_eval(sinew_expr_t *E, const sinew_expr_io_t *io, unsigned *out_faults,
                    char *faultbuf, size_t faultlen) {
  if (!E || !io) return SINEW_EINVAL;
  if (E->direct && !io->input_matrices && io->ninputs >= E->typed->nin && io->noutputs >= E->typed->nout)
    return sinew__typed_eval(&E->to, io, out_faults, faultbuf, faultlen);
  return eval_checked(E, io, out_faults, faultbuf, faultlen);
}

int32_t sinew__expr_typed_length(const sinew_expr_t *E) {
  return E && E->typed && !E->generic_only ? (int32_t)E->typed->n : -1;
}

void sinew__expr_use_typed(sinew_expr_t *E, bool typed) {
  if (!E) return;
  E->generic_only = !typed;
  E->direct = false;
}
