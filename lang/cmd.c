/* lang/cmd.c: the command registry and the splitting of a call's words into flags (with their
 * typed, unit-converted arguments) and positional arguments, plus the accessors a command
 * callback uses. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lang/lang_internal.h"

typedef struct flag_occ {
  const sinew_cmd_flag_t *flag;
  uint32_t first; /* index into fargs */
  uint32_t nargs;
} flag_occ;

struct sinew_cmd {
  sinew_lang_t *L;
  const cmd_entry *ce;
  const char *name;
  const sinew_value_t **pos;
  size_t npos;
  flag_occ *occ;
  size_t nocc;
  sinew_value_t *fargs;
  size_t nfargs;
  bool query, edit;
  sinew_value_t *result;
  char **texts;  /* per positional argument: its text, made on the first request (or NULL) */
  size_t ntexts; /* entries in texts: npos once made */
};

cmd_entry *sinew__cmd_find(const sinew_lang_t *L, const char *name) {
  cmd_entry *ce = NULL;
  HASH_FIND_STR(L->cmds, name, ce);
  return ce;
}

int sinew_lang_register_command(sinew_lang_t *L, const sinew_cmd_desc_t *desc) {
  if (!L || !desc || !desc->name || !desc->fn || !desc->name[0]) return SINEW_EINVAL;
  cmd_entry *ce = sinew__cmd_find(L, desc->name);
  if (ce) {
    ce->desc = *desc;
    ce->desc.name = ce->name;
    return SINEW_OK;
  }
  ce = sinew_calloc(1, sizeof *ce);
  size_t n = strlen(desc->name);
  char *nm = sinew_malloc(n + 1);
  if (!ce || !nm) {
    sinew_free(ce);
    sinew_free(nm);
    return SINEW_ENOMEM;
  }
  memcpy(nm, desc->name, n + 1);
  ce->name = nm;
  ce->desc = *desc;
  ce->desc.name = nm;
  sinew__lang_oom = 0;
  HASH_ADD_KEYPTR(hh, L->cmds, ce->name, n, ce);
  if (sinew__lang_oom) {
    sinew_free(nm);
    sinew_free(ce);
    return SINEW_ENOMEM;
  }
  return SINEW_OK;
}

void sinew_lang_set_command_wrapper(sinew_lang_t *L, sinew_cmd_wrap_fn fn, void *ud) {
  if (!L) return;
  L->wrap = fn;
  L->wrap_data = ud;
}

bool sinew_lang_has_command(const sinew_lang_t *L, const char *name) {
  return L && name && sinew__cmd_find(L, name) != NULL;
}

void sinew_lang_set_fallback(sinew_lang_t *L, sinew_cmd_fn fn, void *ud) {
  if (!L) return;
  L->fallback = fn;
  L->fallback_data = ud;
}

static const sinew_cmd_flag_t *find_flag(const cmd_entry *ce, const char *name) {
  for (size_t i = 0; i < ce->desc.flag_count; i++) {
    const sinew_cmd_flag_t *f = &ce->desc.flags[i];
    if (strcmp(f->name, name) == 0 || (f->short_name && strcmp(f->short_name, name) == 0)) return f;
  }
  return NULL;
}

static int cmd_fail(sinew_cmd_t *c, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int cmd_fail(sinew_cmd_t *c, int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sinew__lang_errorv(c->L, status, c->name, fmt, ap);
  va_end(ap);
  return status;
}

/* Converts one flag argument as its type letter says. */
static int convert_arg(sinew_cmd_t *c, const sinew_cmd_flag_t *f, char letter,
                       const sinew_value_t *in, sinew_value_t *out) {
  sinew_graph_t *g = c->L->graph;
  switch (letter) {
    case 'b': {
      bool b;
      if (!sinew_value_to_bool(in, &b)) {
        char t[64];
        sinew_value_format(in, t, sizeof t);
        return cmd_fail(c, SINEW_EINVAL, "-%s: '%s' is not a boolean (on/off, yes/no, true/false, 1/0)",
                        f->name, t);
      }
      *out = lv_int(b);
      return SINEW_OK;
    }
    case 'i':
    case 'f':
    case 'l':
    case 'a':
    case 't': {
      double d;
      if (in->kind == SINEW_VALUE_STRING) {
        const char *s = lv_str(in);
        char *end;
        d = strtod(s, &end);
        if (end == s || *end) {
          return cmd_fail(c, SINEW_EINVAL, "-%s: '%s' is not a number", f->name, s);
        }
      } else if (lv_is_num(in->kind)) {
        d = sinew_value_to_double(in);
      } else {
        return cmd_fail(c, SINEW_ETYPE, "-%s: expected a number, not a %s", f->name,
                        sinew_value_kind_name(in->kind));
      }
      if (!isfinite(d)) return cmd_fail(c, SINEW_ERANGE, "-%s: not a finite number", f->name);
      if (letter == 'i') {
        if (d >= 9223372036854775808.0 || d < -9223372036854775808.0)
          return cmd_fail(c, SINEW_ERANGE, "-%s: %g is too large for an integer", f->name, d);
        *out = lv_int((int64_t)d);
        return SINEW_OK;
      }
      if (letter == 'l') d *= sinew_linear_unit_cm(sinew_scene_linear_unit(g));
      if (letter == 'a') d *= sinew_angle_unit_radians(sinew_scene_angle_unit(g));
      if (letter == 't') d /= sinew_time_unit_fps(sinew_time_get_unit(g));
      *out = lv_float(d);
      return SINEW_OK;
    }
    case 's': {
      int rc = sinew__to_string(in, out);
      return rc ? cmd_fail(c, rc, "out of memory") : SINEW_OK;
    }
    default:
      sinew_value_copy(out, in);
      out->flag = 0;
      return SINEW_OK;
  }
}

static bool is_bool_word(const sinew_value_t *v) {
  bool b;
  return v && !v->flag && sinew_value_to_bool(v, &b);
}

int sinew__cmd_invoke(sinew_lang_t *L, const cmd_entry *ce, const sinew_value_t *argv,
                      size_t argc, sinew_value_t *result) {
  sinew_cmd_t c;
  memset(&c, 0, sizeof c);
  c.L = L;
  c.ce = ce;
  c.name = ce->desc.name;
  c.result = result;
  int rc = SINEW_OK;
  /* An array argument stands for its elements, as in Maya: `select $joints`, `skinCluster
   * $joints $mesh`, `xform -ws -m $matrix obj` (a file's raw lines have no arrays). */
  sinew_value_t *flat = NULL;
  size_t nflat = 0;
  bool has_array = false;
  for (size_t i = 0; i < argc && !has_array; i++) has_array = !argv[i].flag && lv_is_array(argv[i].kind);
  if (has_array && !(ce->desc.lenient_flags && ce->desc.flag_count == 0)) {
    size_t total = 0;
    for (size_t i = 0; i < argc; i++)
      total += !argv[i].flag && lv_is_array(argv[i].kind) ? sinew_value_count(&argv[i]) : 1;
    flat = sinew_calloc(total ? total : 1, sizeof *flat);
    if (!flat) return cmd_fail(&c, SINEW_ENOMEM, "out of memory");
    for (size_t i = 0; i < argc && !rc; i++) {
      if (argv[i].flag || !lv_is_array(argv[i].kind)) {
        lv_copy(&flat[nflat++], &argv[i]);
        continue;
      }
      for (uint32_t k = 0; k < sinew_value_count(&argv[i]) && !rc; k++) {
        if ((rc = sinew__array_get(&argv[i], k, &flat[nflat]))) break;
        flat[nflat].line = argv[i].line;
        nflat++;
      }
    }
    if (rc) {
      for (size_t i = 0; i < nflat; i++) lv_release(&flat[i]);
      sinew_free(flat);
      return cmd_fail(&c, SINEW_ENOMEM, "out of memory");
    }
    argv = flat;
    argc = nflat;
  }
  /* the worst case: every word a positional argument or a flag argument */
  c.pos = sinew_malloc((argc ? argc : 1) * sizeof *c.pos);
  c.occ = sinew_malloc((argc ? argc : 1) * sizeof *c.occ);
  c.fargs = sinew_malloc((argc ? argc : 1) * sizeof *c.fargs);
  if (!c.pos || !c.occ || !c.fargs) {
    rc = cmd_fail(&c, SINEW_ENOMEM, "out of memory");
    goto done;
  }
  bool raw = ce->desc.lenient_flags && ce->desc.flag_count == 0;
  if (!raw)
    for (size_t i = 0; i < argc; i++) {
      if (!argv[i].flag) continue;
      const sinew_cmd_flag_t *f = find_flag(ce, lv_str(&argv[i]));
      if (f && (f->flags & SINEW_CMD_QUERY)) c.query = true;
      if (f && (f->flags & SINEW_CMD_EDIT)) c.edit = true;
    }
  for (size_t i = 0; i < argc; i++) {
    const sinew_value_t *v = &argv[i];
    if (!v->flag || raw) {
      c.pos[c.npos++] = v;
      continue;
    }
    const sinew_cmd_flag_t *f = find_flag(ce, lv_str(v));
    if (!f) {
      if (ce->desc.lenient_flags) {
        sinew_log(L->graph, SINEW_LOG_WARNING, SINEW_LOG_FILE_WARNING, "%s:%u: %s: flag -%s ignored",
                  L->cur_file ? L->cur_file : "script", L->cur_line, c.name, lv_str(v));
        continue;
      }
      rc = cmd_fail(&c, SINEW_EINVAL, "unknown flag -%s", lv_str(v));
      goto done;
    }
    if (!(f->flags & SINEW_CMD_MULTI))
      for (size_t k = 0; k < c.nocc; k++)
        if (c.occ[k].flag == f) {
          rc = cmd_fail(&c, SINEW_EINVAL, "flag -%s given twice", f->name);
          goto done;
        }
    flag_occ *o = &c.occ[c.nocc++];
    o->flag = f;
    o->first = (uint32_t)c.nfargs;
    o->nargs = 0;
    size_t want = (c.query && !(f->flags & SINEW_CMD_QUERY_ARGS)) ? 0 : strlen(f->args);
    /* a lone boolean may be left out: "-k" alone means on */
    if (want == 1 && f->args[0] == 'b' && (i + 1 >= argc || !is_bool_word(&argv[i + 1]))) {
      c.fargs[c.nfargs++] = lv_int(1);
      o->nargs = 1;
      continue;
    }
    for (size_t k = 0; k < want; k++) {
      if (i + 1 >= argc || argv[i + 1].flag) {
        rc = cmd_fail(&c, SINEW_EINVAL, "flag -%s needs %zu argument%s", f->name, want,
                      want == 1 ? "" : "s");
        goto done;
      }
      i++;
      if ((rc = convert_arg(&c, f, f->args[k], &argv[i], &c.fargs[c.nfargs]))) goto done;
      c.nfargs++;
      o->nargs++;
    }
  }
  L->errmsg[0] = 0;
  rc = L->wrap ? L->wrap(L->wrap_data, &c, ce->desc.fn, argv, argc) : ce->desc.fn(&c);
  if (rc && !L->errmsg[0]) cmd_fail(&c, rc, "%s", sinew_strerror(rc));
done:
  for (size_t i = 0; i < c.nfargs; i++) lv_release(&c.fargs[i]);
  for (size_t i = 0; i < c.ntexts; i++) sinew_free(c.texts[i]); /* free(NULL) is fine */
  sinew_free(c.texts);
  sinew_free(c.pos);
  sinew_free(c.occ);
  sinew_free(c.fargs);
  for (size_t i = 0; i < nflat; i++) lv_release(&flat[i]);
  sinew_free(flat);
  return rc;
}

int sinew_lang_call(sinew_lang_t *L, const char *name, const sinew_value_t *argv, size_t argc,
                    sinew_value_t *result) {
  if (!L || !name) return SINEW_EINVAL;
  cmd_entry *ce = sinew__cmd_find(L, name);
  if (!ce) return sinew__lang_error(L, SINEW_ENOTFOUND, "%s: unknown command", name);
  sinew_value_t r = LV_NONE;
  int rc = sinew__cmd_invoke(L, ce, argv, argc, &r);
  if (result) {
    lv_release(result);
    *result = r;
  } else {
    lv_release(&r);
  }
  return rc;
}

/* ---- accessors -------------------------------------------------------------------------------------- */

sinew_lang_t *sinew_cmd_lang(const sinew_cmd_t *c) { return c->L; }
sinew_graph_t *sinew_cmd_graph(const sinew_cmd_t *c) { return c->L->graph; }
const char *sinew_cmd_name(const sinew_cmd_t *c) { return c->name; }
void *sinew_cmd_user_data(const sinew_cmd_t *c) { return c->ce->desc.user_data; }
size_t sinew_cmd_argc(const sinew_cmd_t *c) { return c->npos; }
const sinew_value_t *sinew_cmd_arg(const sinew_cmd_t *c, size_t i) {
  return i < c->npos ? c->pos[i] : NULL;
}

const char *sinew_cmd_arg_string(sinew_cmd_t *c, size_t i) {
  if (i >= c->npos) return NULL;
  const sinew_value_t *v = c->pos[i];
  if (v->kind == SINEW_VALUE_STRING) return lv_str(v);
  /* one text per argument, made once: a command asking for every argument (or the same one
   * many times) costs one allocation per argument, not a growing list */
  if (!c->texts) {
    c->texts = sinew_calloc(c->npos, sizeof *c->texts);
    if (!c->texts) return "";
    c->ntexts = c->npos;
  }
  if (c->texts[i]) return c->texts[i];
  size_t n = sinew_value_format(v, NULL, 0);
  char *t = sinew_malloc(n + 1);
  if (!t) return "";
  sinew_value_format(v, t, n + 1);
  c->texts[i] = t;
  return t;
}

bool sinew_cmd_query(const sinew_cmd_t *c) { return c->query; }
bool sinew_cmd_edit(const sinew_cmd_t *c) { return c->edit; }

static const flag_occ *occurrence(const sinew_cmd_t *c, const char *flag, size_t occ) {
  size_t k = 0;
  for (size_t i = 0; i < c->nocc; i++) {
    const sinew_cmd_flag_t *f = c->occ[i].flag;
    if (strcmp(f->name, flag) == 0 || (f->short_name && strcmp(f->short_name, flag) == 0)) {
      if (k++ == occ) return &c->occ[i];
    }
  }
  return NULL;
}

size_t sinew_cmd_flag_count(const sinew_cmd_t *c, const char *flag) {
  size_t k = 0;
  while (occurrence(c, flag, k)) k++;
  return k;
}

const sinew_value_t *sinew_cmd_flag_arg(const sinew_cmd_t *c, const char *flag, size_t occ,
                                        size_t arg) {
  const flag_occ *o = occurrence(c, flag, occ);
  if (!o || arg >= o->nargs) return NULL;
  return &c->fargs[o->first + arg];
}

bool sinew_cmd_flag_bool(const sinew_cmd_t *c, const char *flag, bool def) {
  const flag_occ *o = occurrence(c, flag, 0);
  if (!o) return def;
  if (o->nargs == 0) return true;
  return sinew__truthy(&c->fargs[o->first]);
}

double sinew_cmd_flag_double(const sinew_cmd_t *c, const char *flag, size_t arg, double def) {
  const sinew_value_t *v = sinew_cmd_flag_arg(c, flag, 0, arg);
  return v ? sinew_value_to_double(v) : def;
}

int64_t sinew_cmd_flag_int(const sinew_cmd_t *c, const char *flag, int64_t def) {
  const sinew_value_t *v = sinew_cmd_flag_arg(c, flag, 0, 0);
  return v ? sinew_value_to_int(v) : def;
}

const char *sinew_cmd_flag_string(const sinew_cmd_t *c, const char *flag, const char *def) {
  const sinew_value_t *v = sinew_cmd_flag_arg(c, flag, 0, 0);
  return v && v->kind == SINEW_VALUE_STRING ? lv_str(v) : def;
}

int sinew_cmd_error(sinew_cmd_t *c, int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sinew__lang_errorv(c->L, status, c->name, fmt, ap);
  va_end(ap);
  return status;
}

int sinew_cmd_error_from(sinew_cmd_t *c, const sinew_error_t *from, int status) {
  sinew_error_t *e = &c->L->err;
  if (from != e) *e = *from;
  e->code = status;
  if (e->file[0] || e->line) { /* it failed in a file the command ran: "file: a.ma:3: ..." */
    char trace[sizeof e->trace];
    snprintf(trace, sizeof trace, "%s: %s", c->name, e->trace);
    memcpy(e->trace, trace, sizeof trace);
  } else {
    sinew__error_under(e, c->name);
  }
  return sinew__lang_set_error(c->L, e);
}

int sinew_cmd_graph_error(sinew_cmd_t *c, int status) {
  return sinew_cmd_error_from(c, sinew_graph_error(c->L->graph), status);
}

void sinew_cmd_error_subject(sinew_cmd_t *c, const char *node, const char *plug) {
  sinew_error_t *e = &c->L->err;
  if (node) snprintf(e->node, sizeof e->node, "%s", node);
  if (plug) snprintf(e->plug, sizeof e->plug, "%s", plug);
}

void sinew_cmd_warning(sinew_cmd_t *c, sinew_log_id_t id, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  sinew_log(c->L->graph, SINEW_LOG_WARNING, id == SINEW_LOG_NONE ? SINEW_LOG_FILE_WARNING : id,
            "%s:%u: %s: %s", c->L->cur_file ? c->L->cur_file : "script", c->L->cur_line, c->name,
            msg);
}

/* ---- results ------------------------------------------------------------------------------------------ */

static int set_result(sinew_cmd_t *c, sinew_value_t v) {
  lv_release(c->result);
  *c->result = v;
  return SINEW_OK;
}

int sinew_cmd_result_int(sinew_cmd_t *c, int64_t v) { return set_result(c, lv_int(v)); }
int sinew_cmd_result_double(sinew_cmd_t *c, double v) { return set_result(c, lv_float(v)); }
int sinew_cmd_result_vector(sinew_cmd_t *c, const double v[3]) {
  return set_result(c, lv_vec(v[0], v[1], v[2]));
}
int sinew_cmd_result_string(sinew_cmd_t *c, const char *s) {
  sinew_value_t v;
  int rc = sinew__str_new(s ? s : "", s ? strlen(s) : 0, &v);
  if (rc) return rc;
  return set_result(c, v);
}

int sinew_cmd_result_empty_array(sinew_cmd_t *c, sinew_value_kind_t kind) {
  sinew_value_t v;
  int rc = sinew__array_new(lv_is_array((uint8_t)kind) ? (uint8_t)kind : sinew__array_kind_of((uint8_t)kind), 0, &v);
  if (rc) return rc;
  return set_result(c, v);
}

static int append(sinew_cmd_t *c, uint8_t ak, const sinew_value_t *e) {
  if (c->result->kind != ak) {
    int rc = sinew_cmd_result_empty_array(c, (sinew_value_kind_t)ak);
    if (rc) return rc;
  }
  return sinew__array_push(c->result, e);
}

int sinew_cmd_result_append_int(sinew_cmd_t *c, int64_t v) {
  sinew_value_t e = lv_int(v);
  return append(c, SINEW_VALUE_INT_ARRAY, &e);
}
int sinew_cmd_result_append_double(sinew_cmd_t *c, double v) {
  sinew_value_t e = lv_float(v);
  return append(c, SINEW_VALUE_FLOAT_ARRAY, &e);
}
int sinew_cmd_result_append_string(sinew_cmd_t *c, const char *s) {
  sinew_value_t e;
  int rc = sinew__str_new(s ? s : "", s ? strlen(s) : 0, &e);
  if (rc) return rc;
  rc = append(c, SINEW_VALUE_STRING_ARRAY, &e);
  lv_release(&e);
  return rc;
}
