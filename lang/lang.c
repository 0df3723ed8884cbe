/* lang/lang.c: language contexts: creation, running scripts (parse everything, compile, then
 * execute), errors naming the file and line, and global variables. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lang/lang_internal.h"

#define MAX_NESTING 32 /* scripts running scripts (source, eval, file -import) */

int sinew__lang_errorv(sinew_lang_t *L, int status, const char *op, const char *fmt, va_list ap) {
  if (!L) return status;
  char reason[sizeof L->err.reason]; /* fmt's arguments may be the old fields */
  vsnprintf(reason, sizeof reason, fmt, ap);
  sinew_error_t *e = &L->err;
  memset(e, 0, sizeof *e);
  e->code = status;
  snprintf(e->op, sizeof e->op, "%s", op ? op : "");
  memcpy(e->reason, reason, sizeof reason);
  sinew_error_format(e, L->errmsg, sizeof L->errmsg);
  return status;
}

int sinew__lang_error(sinew_lang_t *L, int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sinew__lang_errorv(L, status, NULL, fmt, ap);
  va_end(ap);
  return status;
}

int sinew__lang_set_error(sinew_lang_t *L, const sinew_error_t *e) {
  if (!L || !e) return e ? e->code : SINEW_EINVAL;
  if (e != &L->err) L->err = *e;
  sinew_error_format(&L->err, L->errmsg, sizeof L->errmsg);
  return L->err.code;
}

void sinew__error_under(sinew_error_t *e, const char *op) {
  if (!op || !op[0] || strcmp(e->op, op) == 0) {
    if (op) snprintf(e->op, sizeof e->op, "%s", op);
    return;
  }
  if (e->op[0]) { /* the inner operation becomes part of the reason: "setAttr: plug: ..." */
    char reason[sizeof e->reason];
    size_t n = strlen(op); /* "skinCluster -addInfluence" under "skinCluster": "-addInfluence: ..." */
    bool sub = strncmp(e->op, op, n) == 0 && e->op[n] == ' ';
    snprintf(reason, sizeof reason, "%s: %s", sub ? e->op + n + 1 : e->op, e->reason);
    memcpy(e->reason, reason, sizeof reason);
  }
  snprintf(e->op, sizeof e->op, "%s", op);
}

int sinew__lang_locate(sinew_lang_t *L, const char *file, uint32_t line, const char *op) {
  sinew_error_t *e = &L->err;
  if (!e->file[0] && !e->line) {
    snprintf(e->file, sizeof e->file, "%s", file);
    e->line = line;
  } else { /* the error happened further in (a sourced file, eval): this place leads there */
    char trace[sizeof e->trace];
    snprintf(trace, sizeof trace, "%s:%u: %s%s%s", file, line, op ? op : "", op ? ": " : "", e->trace);
    memcpy(e->trace, trace, sizeof trace);
  }
  sinew_error_format(e, L->errmsg, sizeof L->errmsg);
  return e->code;
}

int sinew_lang_create(sinew_graph_t *g, const sinew_lang_desc_t *desc, sinew_lang_t **out) {
  if (!g || !out) return SINEW_EINVAL;
  sinew_lang_t *L = sinew_calloc(1, sizeof *L);
  if (!L) return SINEW_ENOMEM;
  L->graph = g;
  if (desc) L->desc = *desc;
  L->rand_state = 0x853C49E6748FEA9Bull;
  L->bounds.steps_left = UINT64_MAX; /* unbounded until a top-level run sets its limits */
  L->bounds.flag = &L->interrupt;
  int rc = sinew__register_lang_cmds(L);
  if (rc) {
    sinew_lang_destroy(L);
    return rc;
  }
  *out = L;
  return SINEW_OK;
}

void sinew_lang_destroy(sinew_lang_t *L) {
  if (!L) return;
  cmd_entry *ce, *ctmp;
  HASH_ITER(hh, L->cmds, ce, ctmp) {
    HASH_DEL(L->cmds, ce);
    sinew_free(ce->name);
    sinew_free(ce);
  }
  proc_def *pd, *ptmp;
  HASH_ITER(hh, L->procs, pd, ptmp) {
    HASH_DEL(L->procs, pd);
    sinew__chunk_free(&pd->code);
    sinew_free(pd->param_kinds);
    sinew_free(pd->name);
    sinew_free(pd->file);
    sinew_free(pd);
  }
  sinew__lang_vars_free(L);
  sinew_free(L->proc_list);
  for (uint32_t i = 0; i < L->nretired; i++) {
    sinew__chunk_free(L->retired[i]);
    sinew_free(L->retired[i]);
  }
  sinew_free(L->retired);
  global_var *gv, *gtmp;
  HASH_ITER(hh, L->globals, gv, gtmp) {
    HASH_DEL(L->globals, gv);
    sinew_free(gv->name);
    sinew_free(gv);
  }
  for (uint32_t i = 0; i < L->nglobals; i++) lv_release(&L->gvals[i]);
  sinew_free(L->gvals);
  sinew_free(L->gkinds);
  sinew_free(L);
}

sinew_graph_t *sinew_lang_graph(const sinew_lang_t *L) { return L ? L->graph : NULL; }
void sinew_lang_set_graph(sinew_lang_t *L, sinew_graph_t *g) {
  if (L && g) L->graph = g;
}
void *sinew_lang_user_data(const sinew_lang_t *L) { return L ? L->desc.user_data : NULL; }
const char *sinew_lang_errmsg(const sinew_lang_t *L) {
  return !L ? "no language context" : L->err.code ? L->errmsg : "no error";
}
int sinew_lang_errcode(const sinew_lang_t *L) { return L ? L->err.code : SINEW_EINVAL; }
const sinew_error_t *sinew_lang_error(const sinew_lang_t *L) {
  static const sinew_error_t none = {0};
  return L ? &L->err : &none;
}
void sinew_lang_set_limits(sinew_lang_t *L, const sinew_lang_limits_t *limits) {
  if (!L) return;
  sinew_lang_limits_t none = {0, 0};
  L->limits = limits ? *limits : none;
  if (!(L->limits.max_seconds > 0) || !isfinite(L->limits.max_seconds)) L->limits.max_seconds = 0;
}
void sinew_lang_interrupt(sinew_lang_t *L) {
  if (L) atomic_store(&L->interrupt, 1);
}
void sinew_lang_set_keep_going(sinew_lang_t *L, bool on) {
  if (L) L->keep_going = on;
}
bool sinew_lang_keep_going(const sinew_lang_t *L) { return L && L->keep_going; }
uint64_t sinew_lang_failures(const sinew_lang_t *L) { return L ? L->failures : 0; }
const char *sinew_lang_current_file(const sinew_lang_t *L) { return L ? L->cur_file : NULL; }
uint32_t sinew_lang_current_line(const sinew_lang_t *L) { return L ? L->cur_line : 0; }

/* A syntax or compile error of the text called name: "name:L:C: reason". */
static void located_error(sinew_lang_t *L, int status, const char *name, uint32_t line, uint32_t col,
                          const char *reason) {
  sinew_error_t *e = &L->err;
  sinew__lang_error(L, status, "%s", reason);
  snprintf(e->file, sizeof e->file, "%s", name);
  e->line = line;
  e->column = line ? col : 0;
  sinew__lang_set_error(L, e);
}

int sinew_lang_run(sinew_lang_t *L, const char *source, size_t len, const char *name,
                   sinew_value_t *result) {
  if (!L || (!source && len)) return SINEW_EINVAL;
  if (!name) name = "script";
  if (L->depth >= MAX_NESTING)
    return sinew__lang_error(L, SINEW_ERANGE, "%s: scripts nested too deeply", name);
  /* a private, NUL-terminated copy: numbers are read with strtod */
  char *src = sinew_malloc(len + 1);
  if (!src) return sinew__lang_error(L, SINEW_ENOMEM, "%s: out of memory", name);
  if (len) memcpy(src, source, len);
  src[len] = 0;
  sinew__parse p;
  memset(&p, 0, sizeof p);
  ast *prog = NULL;
  chunk main;
  memset(&main, 0, sizeof main);
  int rc = sinew__parse_program(&p, src, len, false, &prog);
  if (rc) {
    located_error(L, rc, name, p.err_line, p.err_col, p.err);
  } else {
    sinew_error_t err;
    const char *saved_compiling = L->compiling;
    L->compiling = name;
    rc = sinew__compile(L, prog, false, NULL, &main, &err);
    L->compiling = saved_compiling;
    if (rc) located_error(L, rc, name, err.line, err.column, err.reason);
  }
  sinew__parse_free(&p);
  if (!rc) {
    sinew_value_t *locals = sinew_calloc(main.nlocals ? main.nlocals : 1, sizeof *locals);
    if (!locals) {
      rc = sinew__lang_error(L, SINEW_ENOMEM, "%s: out of memory", name);
    } else {
      const char *saved_file = L->cur_file;
      uint32_t saved_line = L->cur_line;
      L->cur_file = name;
      if (L->depth == 0) { /* a top-level run: its bounds, shared by the runs it starts */
        vm_bounds *b = &L->bounds;
        memset(b, 0, sizeof *b);
        b->steps_left = L->limits.max_steps ? L->limits.max_steps : UINT64_MAX;
        b->max_steps = L->limits.max_steps;
        b->max_seconds = L->limits.max_seconds;
        b->deadline = L->limits.max_seconds > 0 ? sinew__lang_now() + L->limits.max_seconds : 0;
        b->flag = &L->interrupt;
      }
      L->depth++;
      rc = sinew__vm_run(L, &main, locals, NULL, result);
      L->depth--;
      L->cur_file = saved_file;
      L->cur_line = saved_line;
      for (uint32_t i = 0; i < main.nlocals; i++) lv_release(&locals[i]);
      sinew_free(locals);
    }
  }
  sinew__chunk_free(&main);
  sinew_free(src);
  return rc;
}

int sinew_lang_run_file(sinew_lang_t *L, const char *path, sinew_value_t *result) {
  if (!L || !path) return SINEW_EINVAL;
  FILE *f = fopen(path, "rb");
  if (!f) return sinew__lang_error(L, SINEW_EIO, "%s: cannot open the file: %s", path, strerror(errno));
  char *buf = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (n + 65536 > cap) {
      size_t nc = cap ? cap * 2 : 65536 * 2;
      char *b = sinew_realloc(buf, nc);
      if (!b) {
        sinew_free(buf);
        fclose(f);
        return sinew__lang_error(L, SINEW_ENOMEM, "%s: out of memory", path);
      }
      buf = b;
      cap = nc;
    }
    size_t r = fread(buf + n, 1, cap - n, f);
    n += r;
    if (r == 0) break;
  }
  int bad = ferror(f) ? (errno ? errno : EIO) : 0;
  fclose(f);
  if (bad) {
    sinew_free(buf);
    return sinew__lang_error(L, SINEW_EIO, "%s: read error: %s", path, strerror(bad));
  }
  if (memchr(buf, 0, n)) {
    sinew_free(buf);
    return sinew__lang_error(L, SINEW_ESYNTAX, "%s: not a text file (it contains NUL bytes)", path);
  }
  int rc = sinew_lang_run(L, buf, n, path, result);
  sinew_free(buf);
  return rc;
}

static const char *strip_dollar(const char *name) { return name[0] == '$' ? name + 1 : name; }

int sinew_lang_set_global(sinew_lang_t *L, const char *name, const sinew_value_t *v) {
  if (!L || !name || !v) return SINEW_EINVAL;
  name = strip_dollar(name);
  global_var *g = NULL;
  HASH_FIND_STR(L->globals, name, g);
  if (!g) {
    /* declare it through a tiny script: one path for globals */
    char src[300];
    const char *kind = v->kind == SINEW_VALUE_MATRIX ? NULL : sinew_value_kind_name(v->kind);
    if (!kind || v->kind == SINEW_VALUE_NONE || strlen(name) > 200) return SINEW_EINVAL;
    size_t kl = strlen(kind);
    bool arr = kind[kl - 1] == ']';
    snprintf(src, sizeof src, "global %.*s $%s%s;", (int)(arr ? kl - 2 : kl), kind, name,
             arr ? "[]" : "");
    int rc = sinew_lang_run(L, src, strlen(src), "global", NULL);
    if (rc) return rc;
    HASH_FIND_STR(L->globals, name, g);
    if (!g) return SINEW_ENOTFOUND;
  }
  sinew_value_t c;
  sinew_value_copy(&c, v);
  c.flag = c.word = 0;
  if (L->gkinds[g->slot] && sinew__convert(&c, L->gkinds[g->slot])) {
    lv_release(&c);
    return SINEW_ETYPE;
  }
  lv_release(&L->gvals[g->slot]);
  L->gvals[g->slot] = c;
  return SINEW_OK;
}

int sinew_lang_get_global(sinew_lang_t *L, const char *name, sinew_value_t *out) {
  if (!L || !name || !out) return SINEW_EINVAL;
  name = strip_dollar(name);
  global_var *g = NULL;
  HASH_FIND_STR(L->globals, name, g);
  if (!g) return SINEW_ENOTFOUND;
  sinew_value_copy(out, &L->gvals[g->slot]);
  return SINEW_OK;
}
