/* lang/value.c: MEL values: reference-counted strings, arrays and matrices, MEL's conversion
 * rules, and formatting. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/util.h"
#include "lang/lang_internal.h"
#include "sinew/io.h"

_Thread_local int sinew__lang_oom;

static const char *kind_names[SINEW_VALUE_KIND_MAX] = {
    "none", "int", "float", "string", "vector", "matrix", "int[]", "float[]", "string[]",
    "vector[]"};

const char *sinew_value_kind_name(sinew_value_kind_t k) {
  return (unsigned)k < SINEW_VALUE_KIND_MAX ? kind_names[k] : "?";
}

uint8_t sinew__array_elem_kind(uint8_t ak) {
  switch (ak) {
    case SINEW_VALUE_INT_ARRAY: return SINEW_VALUE_INT;
    case SINEW_VALUE_FLOAT_ARRAY: return SINEW_VALUE_FLOAT;
    case SINEW_VALUE_STRING_ARRAY: return SINEW_VALUE_STRING;
    case SINEW_VALUE_VECTOR_ARRAY: return SINEW_VALUE_VECTOR;
    default: return SINEW_VALUE_NONE;
  }
}

uint8_t sinew__array_kind_of(uint8_t ek) {
  switch (ek) {
    case SINEW_VALUE_INT: return SINEW_VALUE_INT_ARRAY;
    case SINEW_VALUE_FLOAT: return SINEW_VALUE_FLOAT_ARRAY;
    case SINEW_VALUE_STRING: return SINEW_VALUE_STRING_ARRAY;
    case SINEW_VALUE_VECTOR: return SINEW_VALUE_VECTOR_ARRAY;
    default: return SINEW_VALUE_NONE;
  }
}

static size_t elem_size(uint8_t ak) {
  switch (ak) {
    case SINEW_VALUE_INT_ARRAY: return sizeof(int64_t);
    case SINEW_VALUE_FLOAT_ARRAY: return sizeof(double);
    case SINEW_VALUE_STRING_ARRAY: return sizeof(sinew_lang_obj_t *);
    case SINEW_VALUE_VECTOR_ARRAY: return 3 * sizeof(double);
    default: return 0;
  }
}

void sinew__obj_release(sinew_lang_obj_t *o) {
  if (!o || --o->refs > 0) return;
  if (o->pool && o->pool->n < SINEW_OBJ_POOL_CAP) {
    o->pool->free[o->pool->n++] = o;
    return;
  }
  if (o->kind == SINEW_VALUE_STRING_ARRAY)
    for (uint32_t i = 0; i < o->len; i++) sinew__obj_release(o->d.str[i]);
  if (o->kind != SINEW_VALUE_STRING) sinew_free(o->d.f);
  sinew_free(o);
}

int sinew__str_new(const char *s, size_t len, sinew_value_t *out) {
  if (len > UINT32_MAX - 1) return SINEW_ENOMEM;
  sinew_lang_obj_t *o = sinew_malloc(sizeof *o + len + 1);
  if (!o) return SINEW_ENOMEM;
  o->pool = NULL;
  o->refs = 1;
  o->kind = SINEW_VALUE_STRING;
  o->len = (uint32_t)len;
  o->cap = 0;
  o->d.s = (char *)(o + 1);
  if (len) memcpy(o->d.s, s, len);
  o->d.s[len] = 0;
  *out = LV_NONE;
  out->kind = SINEW_VALUE_STRING;
  out->as.obj = o;
  return SINEW_OK;
}

int sinew__str_cat(const sinew_value_t *a, const sinew_value_t *b, sinew_value_t *out) {
  sinew_value_t sa, sb;
  int rc = sinew__to_string(a, &sa);
  if (rc) return rc;
  if ((rc = sinew__to_string(b, &sb))) {
    lv_release(&sa);
    return rc;
  }
  size_t la = lv_strlen(&sa), lb = lv_strlen(&sb);
  sinew_value_t r;
  rc = sinew__str_new(NULL, 0, &r);
  if (!rc) {
    sinew_lang_obj_t *o = sinew_realloc(r.as.obj, sizeof *o + la + lb + 1);
    if (!o) {
      lv_release(&r);
      rc = SINEW_ENOMEM;
    } else {
      o->d.s = (char *)(o + 1);
      memcpy(o->d.s, lv_str(&sa), la);
      memcpy(o->d.s + la, lv_str(&sb), lb);
      o->d.s[la + lb] = 0;
      o->len = (uint32_t)(la + lb);
      r.as.obj = o;
      *out = r;
    }
  }
  lv_release(&sa);
  lv_release(&sb);
  return rc;
}

int sinew__array_new(uint8_t kind, uint32_t len, sinew_value_t *out) {
  sinew_lang_obj_t *o = sinew_calloc(1, sizeof *o);
  if (!o) return SINEW_ENOMEM;
  o->refs = 1;
  o->kind = kind;
  uint32_t cap = len < 4 ? 4 : len;
  o->d.f = sinew_calloc(cap, elem_size(kind));
  if (!o->d.f) {
    sinew_free(o);
    return SINEW_ENOMEM;
  }
  o->cap = cap;
  if (kind == SINEW_VALUE_STRING_ARRAY) {
    for (uint32_t i = 0; i < len; i++) {
      sinew_value_t e;
      if (sinew__str_new("", 0, &e)) {
        o->len = i;
        sinew__obj_release(o);
        return SINEW_ENOMEM;
      }
      o->d.str[i] = e.as.obj;
    }
  }
  o->len = len;
  *out = LV_NONE;
  out->kind = kind;
  out->as.obj = o;
  return SINEW_OK;
}

int sinew__matrix_new(uint32_t rows, uint32_t cols, sinew_value_t *out) {
  if (rows == 0 || cols == 0 || rows > 4096 || cols > 4096) return SINEW_ERANGE;
  sinew_lang_obj_t *o = sinew_calloc(1, sizeof *o);
  if (!o) return SINEW_ENOMEM;
  o->refs = 1;
  o->kind = SINEW_VALUE_MATRIX;
  o->d.f = sinew_calloc((size_t)rows * cols, sizeof(double));
  if (!o->d.f) {
    sinew_free(o);
    return SINEW_ENOMEM;
  }
  o->len = rows;
  o->cap = cols;
  *out = LV_NONE;
  out->kind = SINEW_VALUE_MATRIX;
  out->as.obj = o;
  return SINEW_OK;
}

int sinew__matrix_take(sinew__obj_pool *pool, uint32_t rows, uint32_t cols, sinew_value_t *out) {
  for (uint32_t k = pool ? pool->n : 0; k-- > 0;) {
    sinew_lang_obj_t *o = pool->free[k];
    if (o->len != rows || o->cap != cols) continue;
    pool->free[k] = pool->free[--pool->n];
    o->refs = 1;
    memset(o->d.f, 0, (size_t)rows * cols * sizeof(double));
    *out = LV_NONE;
    out->kind = SINEW_VALUE_MATRIX;
    out->as.obj = o;
    return SINEW_OK;
  }
  int rc = sinew__matrix_new(rows, cols, out);
  if (!rc) out->as.obj->pool = pool;
  return rc;
}

void sinew__obj_pool_clear(sinew__obj_pool *pool) {
  while (pool->n) {
    sinew_lang_obj_t *o = pool->free[--pool->n];
    o->pool = NULL;
    o->refs = 1;
    sinew__obj_release(o);
  }
}

int sinew__obj_unshare(sinew_value_t *v) {
  if (!lv_is_obj(v) || v->kind == SINEW_VALUE_STRING || v->as.obj->refs == 1) return SINEW_OK;
  sinew_lang_obj_t *o = v->as.obj;
  sinew_value_t c;
  int rc = v->kind == SINEW_VALUE_MATRIX ? sinew__matrix_new(o->len, o->cap, &c)
                                         : sinew__array_new(v->kind, 0, &c);
  if (rc) return rc;
  if (v->kind == SINEW_VALUE_MATRIX) {
    memcpy(c.as.obj->d.f, o->d.f, (size_t)o->len * o->cap * sizeof(double));
  } else {
    if ((rc = sinew__array_resize(&c, o->len))) {
      lv_release(&c);
      return rc;
    }
    if (v->kind == SINEW_VALUE_STRING_ARRAY) {
      for (uint32_t i = 0; i < o->len; i++) {
        sinew__obj_release(c.as.obj->d.str[i]);
        c.as.obj->d.str[i] = o->d.str[i];
        o->d.str[i]->refs++;
      }
    } else {
      memcpy(c.as.obj->d.f, o->d.f, (size_t)o->len * elem_size(v->kind));
    }
  }
  o->refs--;
  v->as.obj = c.as.obj;
  return SINEW_OK;
}

int sinew__array_resize(sinew_value_t *v, uint32_t len) {
  sinew_lang_obj_t *o = v->as.obj;
  if (len > (1u << 28)) return SINEW_ERANGE;
  if (len > o->cap) {
    uint32_t cap = o->cap * 2 > len ? o->cap * 2 : len;
    size_t es = elem_size(v->kind);
    void *p = sinew_realloc(o->d.f, (size_t)cap * es);
    if (!p) return SINEW_ENOMEM;
    o->d.f = p;
    memset((char *)p + (size_t)o->cap * es, 0, (size_t)(cap - o->cap) * es);
    o->cap = cap;
  }
  if (v->kind == SINEW_VALUE_STRING_ARRAY) {
    for (uint32_t i = len; i < o->len; i++) sinew__obj_release(o->d.str[i]);
    for (uint32_t i = o->len; i < len; i++) {
      sinew_value_t e;
      if (sinew__str_new("", 0, &e)) {
        o->len = i;
        return SINEW_ENOMEM;
      }
      o->d.str[i] = e.as.obj;
    }
  } else if (len > o->len) {
    size_t es = elem_size(v->kind);
    memset((char *)o->d.f + (size_t)o->len * es, 0, (size_t)(len - o->len) * es);
  }
  o->len = len;
  return SINEW_OK;
}

int sinew__array_get(const sinew_value_t *arr, uint32_t i, sinew_value_t *out) {
  const sinew_lang_obj_t *o = arr->as.obj;
  if (i >= o->len) return SINEW_ERANGE;
  switch (arr->kind) {
    case SINEW_VALUE_INT_ARRAY: *out = lv_int(o->d.i[i]); break;
    case SINEW_VALUE_FLOAT_ARRAY: *out = lv_float(o->d.f[i]); break;
    case SINEW_VALUE_VECTOR_ARRAY:
      *out = lv_vec(o->d.f[3 * i], o->d.f[3 * i + 1], o->d.f[3 * i + 2]);
      break;
    case SINEW_VALUE_STRING_ARRAY:
      *out = LV_NONE;
      out->kind = SINEW_VALUE_STRING;
      out->as.obj = o->d.str[i];
      o->d.str[i]->refs++;
      break;
    default: return SINEW_ETYPE;
  }
  return SINEW_OK;
}

int sinew__array_set(sinew_value_t *arr, uint32_t i, const sinew_value_t *elem) {
  int rc = sinew__obj_unshare(arr);
  if (rc) return rc;
  if (i >= arr->as.obj->len && (rc = sinew__array_resize(arr, i + 1))) return rc;
  sinew_value_t e;
  sinew_value_copy(&e, elem);
  if ((rc = sinew__convert(&e, sinew__array_elem_kind(arr->kind)))) {
    lv_release(&e);
    return rc;
  }
  sinew_lang_obj_t *o = arr->as.obj;
  switch (arr->kind) {
    case SINEW_VALUE_INT_ARRAY: o->d.i[i] = e.as.i; break;
    case SINEW_VALUE_FLOAT_ARRAY: o->d.f[i] = e.as.f; break;
    case SINEW_VALUE_VECTOR_ARRAY: memcpy(&o->d.f[3 * i], e.as.v, sizeof e.as.v); break;
    case SINEW_VALUE_STRING_ARRAY:
      sinew__obj_release(o->d.str[i]);
      o->d.str[i] = e.as.obj; /* takes e's reference */
      return SINEW_OK;
    default: break;
  }
  lv_release(&e);
  return SINEW_OK;
}

int sinew__array_push(sinew_value_t *arr, const sinew_value_t *elem) {
  return sinew__array_set(arr, arr->as.obj->len, elem);
}

/* ---- conversions ----------------------------------------------------------------------------- */

static bool parse_number(const char *s, double *out, bool *is_int) {
  while (*s == ' ' || *s == '\t' || *s == '\n') s++;
  if (!*s) return false;
  char *end;
  errno = 0;
  if ((s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ||
      ((s[0] == '-' || s[0] == '+') && s[1] == '0' && (s[2] == 'x' || s[2] == 'X'))) {
    long long v = strtoll(s, &end, 16);
    if (end == s) return false;
    *out = (double)v;
    *is_int = true;
  } else {
    *out = strtod(s, &end);
    if (end == s) return false;
    *is_int = strcspn(s, ".eE") >= (size_t)(end - s) && fabs(*out) < 9.2e18;
  }
  while (*end == ' ' || *end == '\t' || *end == '\n') end++;
  return true; /* MEL reads the leading number and ignores what follows ("5abc" -> 5) */
}

double sinew_value_to_double(const sinew_value_t *v) {
  if (!v) return 0;
  switch (v->kind) {
    case SINEW_VALUE_INT: return (double)v->as.i;
    case SINEW_VALUE_FLOAT: return v->as.f;
    case SINEW_VALUE_VECTOR:
      return sqrt(v->as.v[0] * v->as.v[0] + v->as.v[1] * v->as.v[1] + v->as.v[2] * v->as.v[2]);
    case SINEW_VALUE_STRING: {
      double d;
      bool isint;
      return parse_number(lv_str(v), &d, &isint) ? d : 0.0;
    }
    case SINEW_VALUE_MATRIX: return v->as.obj->d.f[0];
    default:
      if (lv_is_array(v->kind) && v->as.obj->len) {
        sinew_value_t e;
        if (sinew__array_get(v, 0, &e)) return 0;
        double d = sinew_value_to_double(&e);
        lv_release(&e);
        return d;
      }
      return 0;
  }
}

static int64_t trunc_int(double d) {
  if (d != d) return 0;
  if (d >= 9.2e18) return INT64_MAX;
  if (d <= -9.2e18) return INT64_MIN;
  return (int64_t)d;
}

int64_t sinew_value_to_int(const sinew_value_t *v) {
  if (v && v->kind == SINEW_VALUE_INT) return v->as.i;
  if (v && v->kind == SINEW_VALUE_STRING) {
    double d;
    bool isint;
    if (!parse_number(lv_str(v), &d, &isint)) return 0;
    return trunc_int(d);
  }
  return trunc_int(sinew_value_to_double(v));
}

const char *sinew_value_string(const sinew_value_t *v) {
  return v && v->kind == SINEW_VALUE_STRING ? lv_str(v) : NULL;
}

size_t sinew_value_count(const sinew_value_t *v) {
  if (!v || v->kind == SINEW_VALUE_NONE) return 0;
  if (v->kind == SINEW_VALUE_VECTOR) return 3;
  if (v->kind == SINEW_VALUE_MATRIX) return (size_t)v->as.obj->len * v->as.obj->cap;
  if (lv_is_array(v->kind)) return v->as.obj->len;
  return 1;
}

double sinew_value_double_at(const sinew_value_t *v, size_t i) {
  if (!v) return 0;
  if (v->kind == SINEW_VALUE_VECTOR) return i < 3 ? v->as.v[i] : 0;
  if (v->kind == SINEW_VALUE_MATRIX)
    return i < (size_t)v->as.obj->len * v->as.obj->cap ? v->as.obj->d.f[i] : 0;
  if (lv_is_array(v->kind)) {
    if (i >= v->as.obj->len) return 0;
    if (v->kind == SINEW_VALUE_VECTOR_ARRAY) {
      const double *e = &v->as.obj->d.f[3 * i];
      return sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
    }
    sinew_value_t e;
    if (sinew__array_get(v, (uint32_t)i, &e)) return 0;
    double d = sinew_value_to_double(&e);
    lv_release(&e);
    return d;
  }
  return i == 0 ? sinew_value_to_double(v) : 0;
}

const char *sinew_value_string_at(const sinew_value_t *v, size_t i) {
  if (!v) return NULL;
  if (v->kind == SINEW_VALUE_STRING_ARRAY)
    return i < v->as.obj->len ? v->as.obj->d.str[i]->d.s : NULL;
  if (v->kind == SINEW_VALUE_STRING && i == 0) return lv_str(v);
  return NULL;
}

bool sinew_value_to_bool(const sinew_value_t *v, bool *out) {
  if (!v) return false;
  if (v->kind == SINEW_VALUE_INT || v->kind == SINEW_VALUE_FLOAT) {
    *out = sinew_value_to_double(v) != 0;
    return true;
  }
  if (v->kind != SINEW_VALUE_STRING) return false;
  static const char *yes[] = {"on", "yes", "true", "1"}, *no[] = {"off", "no", "false", "0"};
  const char *s = lv_str(v);
  for (int i = 0; i < 4; i++) {
    if (strcmp(s, yes[i]) == 0) return *out = true, true;
    if (strcmp(s, no[i]) == 0) return *out = false, true;
  }
  double d;
  bool isint;
  if (parse_number(s, &d, &isint)) return *out = d != 0, true;
  return false;
}

bool sinew__truthy(const sinew_value_t *v) {
  switch (v->kind) {
    case SINEW_VALUE_INT: return v->as.i != 0;
    case SINEW_VALUE_FLOAT: return v->as.f != 0;
    case SINEW_VALUE_VECTOR: return v->as.v[0] != 0 || v->as.v[1] != 0 || v->as.v[2] != 0;
    case SINEW_VALUE_STRING: {
      bool b;
      return sinew_value_to_bool(v, &b) ? b : lv_strlen(v) > 0;
    }
    case SINEW_VALUE_NONE: return false;
    default: return sinew_value_count(v) > 0;
  }
}


/* MEL's string form: vectors "x y z", arrays one element per line (print), matrices rows. */
static void format_value(sinew__buf *b, const sinew_value_t *v) {
  switch (v->kind) {
    case SINEW_VALUE_NONE: break;
    case SINEW_VALUE_INT: sinew__buf_printf(b, "%lld", (long long)v->as.i); break;
    case SINEW_VALUE_FLOAT: sinew__buf_num(b, v->as.f); break;
    case SINEW_VALUE_STRING: sinew__buf_put(b, lv_str(v), lv_strlen(v)); break;
    case SINEW_VALUE_VECTOR:
      for (int k = 0; k < 3; k++) {
        if (k) sinew__buf_put(b, " ", 1);
        sinew__buf_num(b, v->as.v[k]);
      }
      break;
    case SINEW_VALUE_MATRIX: {
      const sinew_lang_obj_t *o = v->as.obj;
      for (uint32_t r = 0; r < o->len; r++) {
        sinew__buf_put(b, "<<", 2);
        for (uint32_t c = 0; c < o->cap; c++) {
          if (c) sinew__buf_put(b, ", ", 2);
          sinew__buf_num(b, o->d.f[r * o->cap + c]);
        }
        sinew__buf_put(b, ">>", 2);
        if (r + 1 < o->len) sinew__buf_put(b, "\n", 1);
      }
      break;
    }
    default: {
      const sinew_lang_obj_t *o = v->as.obj;
      for (uint32_t i = 0; i < o->len; i++) {
        sinew_value_t e;
        if (sinew__array_get(v, i, &e)) continue;
        format_value(b, &e);
        lv_release(&e);
        sinew__buf_put(b, "\n", 1);
      }
      break;
    }
  }
}

int sinew__to_string(const sinew_value_t *v, sinew_value_t *out) {
  if (v->kind == SINEW_VALUE_STRING) {
    sinew_value_copy(out, v);
    out->flag = out->word = 0;
    return SINEW_OK;
  }
  if (v->kind == SINEW_VALUE_INT || v->kind == SINEW_VALUE_FLOAT) {
    char t[40];
    size_t n = v->kind == SINEW_VALUE_INT
                   ? (size_t)snprintf(t, sizeof t, "%lld", (long long)v->as.i)
                   : sinew_format_double(v->as.f, t, sizeof t);
    return sinew__str_new(t, n, out);
  }
  sinew__buf b = {0};
  format_value(&b, v);
  if (b.oom) {
    sinew_free(b.p);
    return SINEW_ENOMEM;
  }
  int rc = sinew__str_new(b.p ? b.p : "", b.n, out);
  sinew_free(b.p);
  return rc;
}

size_t sinew_value_format(const sinew_value_t *v, char *buf, size_t size) {
  if (!v) {
    if (size) buf[0] = 0;
    return 0;
  }
  sinew__buf b = {0};
  format_value(&b, v);
  size_t n = b.n;
  if (size) {
    size_t k = n < size - 1 ? n : size - 1;
    if (k) memcpy(buf, b.p, k);
    buf[k] = 0;
  }
  sinew_free(b.p);
  return b.oom ? 0 : n;
}

void sinew_value_clear(sinew_value_t *v) {
  if (!v) return;
  lv_release(v);
  *v = LV_NONE;
}

void sinew_value_copy(sinew_value_t *dst, const sinew_value_t *src) {
  *dst = *src;
  lv_retain(dst);
}

/* Parses "<<1, 2, 3>>" or "1 2 3" as a vector (MEL's (vector) "<<...>>" cast). */
static sinew_value_t parse_vector_text(const char *s) {
  double v[3] = {0, 0, 0};
  while (*s == ' ' || *s == '<') s++;
  for (int k = 0; k < 3 && *s; k++) {
    char *end;
    v[k] = strtod(s, &end);
    if (end == s) break;
    s = end;
    while (*s == ' ' || *s == ',') s++;
  }
  return lv_vec(v[0], v[1], v[2]);
}

int sinew__convert(sinew_value_t *v, uint8_t kind) {
  if (v->kind == kind || kind == SINEW_VALUE_NONE) return SINEW_OK;
  int rc = SINEW_OK;
  sinew_value_t r = LV_NONE;
  switch (kind) {
    case SINEW_VALUE_INT: r = lv_int(sinew_value_to_int(v)); break;
    case SINEW_VALUE_FLOAT: r = lv_float(sinew_value_to_double(v)); break;
    case SINEW_VALUE_STRING: rc = sinew__to_string(v, &r); break;
    case SINEW_VALUE_VECTOR:
      if (v->kind == SINEW_VALUE_STRING) {
        r = parse_vector_text(lv_str(v));
      } else if (lv_is_array(v->kind) || v->kind == SINEW_VALUE_MATRIX) {
        r = lv_vec(sinew_value_double_at(v, 0), sinew_value_double_at(v, 1),
                   sinew_value_double_at(v, 2));
      } else {
        double d = sinew_value_to_double(v);
        r = lv_vec(d, d, d);
      }
      break;
    case SINEW_VALUE_MATRIX:
      if ((rc = sinew__matrix_new(1, 1, &r))) break;
      r.as.obj->d.f[0] = sinew_value_to_double(v);
      break;
    default:
      if (!lv_is_array(kind)) return SINEW_ETYPE;
      if ((rc = sinew__array_new(kind, 0, &r))) break;
      if (lv_is_array(v->kind)) {
        for (uint32_t i = 0; i < v->as.obj->len && !rc; i++) {
          sinew_value_t e;
          if (!(rc = sinew__array_get(v, i, &e))) {
            rc = sinew__array_push(&r, &e);
            lv_release(&e);
          }
        }
      } else if (v->kind != SINEW_VALUE_NONE) {
        rc = sinew__array_push(&r, v);
      }
      if (rc) lv_release(&r);
      break;
  }
  if (rc) return rc;
  r.line = v->line;
  lv_release(v);
  *v = r;
  return SINEW_OK;
}
