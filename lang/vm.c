/* lang/vm.c: the stack VM that runs scripts and expressions. Procedure calls use frames on an
 * explicit stack (no C recursion), commands are called through lang/cmd.c, and MEL's typing
 * rules for operators live here. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lang/lang_internal.h"

#define MAX_FRAMES 1000

typedef struct frame {
  const chunk *ch;
  const insn *code;
  uint32_t pc;
  uint32_t base;          /* locals start on the value stack (procedures) */
  sinew_value_t *ext;     /* external locals (the main chunk) */
} frame;

/* An active catch: where to go when an error happens before its OPC_ENDTRY. */
typedef struct try_ctx {
  uint32_t handler; /* pc in frame nframes - 1 */
  uint32_t nframes;
  uint32_t sp;
  bool quiet;
} try_ctx;

typedef struct vm {
  sinew_lang_t *L;
  vm_expr_ctx *ex;
  sinew_value_t *stack;
  uint32_t sp, cap;
  frame *frames;
  uint32_t nframes, cframes;
  uint32_t line;
  const insn *cur; /* the instruction being run */
  builtin_call bc;
  vm_bounds *bounds; /* the script's or the expression's; NULL = unbounded */
  uint32_t tick;     /* steps left in this batch: bounds are checked when it reaches 0 */
  uint32_t batch;    /* the batch's size */
  sinew_value_t inline_stack[32];
  frame inline_frame;
  try_ctx *tries;    /* catch / catchQuiet in progress, innermost last (set up by vm_run) */
  uint32_t ntries, ctries;
} vm;

static int vm_error(vm *V, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int vm_error(vm *V, int status, const char *fmt, ...) {
  if (V->cur) V->line = V->cur->line;
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (V->L) {
    sinew__lang_error(V->L, status, "%s", msg);
    sinew__lang_locate(V->L, V->L->cur_file ? V->L->cur_file : "expression", V->line, NULL);
  } else if (V->ex && V->ex->faultbuf && V->ex->faultlen)
    snprintf(V->ex->faultbuf, V->ex->faultlen, "line %u: %s", V->line, msg);
  return status;
}

int sinew__fault(builtin_call *bc, const char *fmt, ...) {
  /* an expression keeps the text of its first fault only: the others are counted, not
   * formatted (a loop dividing by zero faults once per iteration) */
  if (bc->ex && (bc->ex->faults++ > 0 || !bc->ex->faultbuf || !bc->ex->faultlen)) return SINEW_OK;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (bc->ex) {
    snprintf(bc->ex->faultbuf, bc->ex->faultlen, "line %u: %s", bc->line, msg);
  } else if (bc->lang) {
    sinew_log(bc->lang->graph, SINEW_LOG_WARNING, SINEW_LOG_EXPR_RUNTIME, "%s:%u: %s",
              bc->lang->cur_file ? bc->lang->cur_file : "script", bc->line, msg);
  }
  return SINEW_OK;
}

/* ---- bounds ------------------------------------------------------------------------------------ */

#define CHECK_EVERY 1024u

double sinew__lang_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Steps until the next check: a batch, or one more than the budget has left (that step fails). */
static uint32_t next_batch(const vm_bounds *b) {
  return b && b->steps_left < CHECK_EVERY ? (uint32_t)b->steps_left + 1 : CHECK_EVERY;
}

/* The interrupt flag, the host's poll and the deadline; SINEW_OK to go on. */
static int vm_poll(vm *V) {
  vm_bounds *b = V->bounds;
  if (!b) return SINEW_OK;
  if (b->flag && atomic_load_explicit(b->flag, memory_order_relaxed) && atomic_exchange(b->flag, 0))
    return vm_error(V, SINEW_EINTERRUPTED, "interrupted");
  if (b->should_stop && b->should_stop(b->stop_data)) return vm_error(V, SINEW_EINTERRUPTED, "interrupted");
  if (b->deadline > 0 && sinew__lang_now() > b->deadline)
    return vm_error(V, SINEW_ELIMIT, "stopped: the run took longer than its limit of %g s", b->max_seconds);
  return SINEW_OK;
}

/* A batch of steps is over: charge it to the budget, then poll. */
static int vm_check(vm *V) {
  vm_bounds *b = V->bounds;
  if (b->steps_left != UINT64_MAX) {
    if (V->batch > b->steps_left) {
      b->steps_left = 0;
      V->tick = V->batch = 1; /* a caught error stays caught at the next step */
      return vm_error(V, SINEW_ELIMIT,
                      "stopped: over the limit of %llu steps (loop iterations and procedure calls)",
                      (unsigned long long)b->max_steps);
    }
    b->steps_left -= V->batch;
  }
  V->tick = V->batch = next_batch(b);
  return vm_poll(V);
}

/* One step (a loop iteration or a procedure call). */
#define STEP(V) ((V)->bounds && --(V)->tick == 0 ? vm_check(V) : SINEW_OK)

/* The builtin context with the current line, for fault messages. */
static builtin_call *vbc(vm *V) {
  V->bc.line = V->cur ? V->cur->line : 0;
  return &V->bc;
}

static int reserve(vm *V, uint32_t n) {
  if (V->sp + n <= V->cap) return SINEW_OK;
  uint32_t nc = V->cap ? V->cap : 64;
  while (nc < V->sp + n) nc *= 2;
  /* the first stack lives in the caller's frame (no allocation per expression run) */
  sinew_value_t *s = V->stack == V->inline_stack ? sinew_malloc((size_t)nc * sizeof *s)
                                                 : sinew_realloc(V->stack, (size_t)nc * sizeof *s);
  if (!s) return vm_error(V, SINEW_ENOMEM, "out of memory");
  if (V->stack == V->inline_stack) memcpy(s, V->stack, V->sp * sizeof *s);
  V->stack = s;
  V->cap = nc;
  return SINEW_OK;
}

static inline sinew_value_t *locals_of(vm *V, frame *f) {
  return f->ext ? f->ext : V->stack + f->base;
}

/* ---- zero values ------------------------------------------------------------------------------- */

static int zero_value(uint8_t kind, int32_t d1, int32_t d2, sinew_value_t *out) {
  switch (kind) {
    case SINEW_VALUE_INT: *out = lv_int(0); return SINEW_OK;
    case SINEW_VALUE_FLOAT: *out = lv_float(0); return SINEW_OK;
    case SINEW_VALUE_VECTOR: *out = lv_vec(0, 0, 0); return SINEW_OK;
    case SINEW_VALUE_STRING: return sinew__str_new("", 0, out);
    case SINEW_VALUE_MATRIX:
      return sinew__matrix_new(d1 > 0 ? (uint32_t)d1 : 1, d2 > 0 ? (uint32_t)d2 : 1, out);
    case SINEW_VALUE_NONE: *out = LV_NONE; return SINEW_OK;
    default:
      if (d1 < 0 || d1 > (1 << 24)) return SINEW_ERANGE;
      return sinew__array_new(kind, (uint32_t)d1, out);
  }
}

/* ---- operators ------------------------------------------------------------------------------------- */

static bool is_vec(const sinew_value_t *v) { return v->kind == SINEW_VALUE_VECTOR; }

static void vec_of(const sinew_value_t *v, double out[3]) {
  if (is_vec(v)) {
    memcpy(out, v->as.v, sizeof v->as.v);
  } else {
    double d = sinew_value_to_double(v);
    out[0] = out[1] = out[2] = d;
  }
}

static double num_op(vm *V, uint8_t op, double a, double b) {
  switch (op) {
    case OPC_ADD: return a + b;
    case OPC_SUB: return a - b;
    case OPC_MUL: return a * b;
    case OPC_DIV:
      if (b == 0) {
        sinew__fault(vbc(V), "division by zero");
        return 0;
      }
      return a / b;
    case OPC_MOD:
      if (b == 0) {
        sinew__fault(vbc(V), "modulus by zero");
        return 0;
      }
      return fmod(a, b);
    default: return 0;
  }
}

static int matrix_mul(vm *V, const sinew_value_t *a, const sinew_value_t *b, sinew_value_t *out) {
  const sinew_lang_obj_t *A = a->as.obj, *B = b->as.obj;
  if (A->cap != B->len)
    return vm_error(V, SINEW_ETYPE, "matrix sizes do not match (%ux%u * %ux%u)", A->len, A->cap,
                    B->len, B->cap);
  int rc = sinew__matrix_new(A->len, B->cap, out);
  if (rc) return vm_error(V, rc, "out of memory");
  for (uint32_t r = 0; r < A->len; r++)
    for (uint32_t c = 0; c < B->cap; c++) {
      double s = 0;
      for (uint32_t k = 0; k < A->cap; k++) s += A->d.f[r * A->cap + k] * B->d.f[k * B->cap + c];
      out->as.obj->d.f[r * B->cap + c] = s;
    }
  return SINEW_OK;
}

/* vector * matrix: the point (x y z 1) times a 4x4 (or 3x3) matrix, row-vector convention. */
static int vec_times_matrix(vm *V, const double v[3], const sinew_value_t *m, sinew_value_t *out) {
  const sinew_lang_obj_t *M = m->as.obj;
  if (!((M->len == 4 && M->cap == 4) || (M->len == 3 && M->cap == 3)))
    return vm_error(V, SINEW_ETYPE, "a vector multiplies a 3x3 or 4x4 matrix, not %ux%u", M->len,
                    M->cap);
  double r[3];
  for (uint32_t c = 0; c < 3; c++) {
    double s = 0;
    for (uint32_t k = 0; k < 3; k++) s += v[k] * M->d.f[k * M->cap + c];
    if (M->len == 4) s += M->d.f[3 * 4 + c];
    r[c] = s;
  }
  *out = lv_vec(r[0], r[1], r[2]);
  return SINEW_OK;
}

static int compare(vm *V, uint8_t op, const sinew_value_t *a, const sinew_value_t *b, int *out) {
  int c;
  if (a->kind == SINEW_VALUE_STRING && b->kind == SINEW_VALUE_STRING) {
    c = strcmp(lv_str(a), lv_str(b));
  } else if (is_vec(a) || is_vec(b)) {
    double x[3], y[3];
    vec_of(a, x);
    vec_of(b, y);
    bool eq = x[0] == y[0] && x[1] == y[1] && x[2] == y[2];
    if (op == OPC_EQ || op == OPC_NE) {
      *out = (op == OPC_EQ) == eq;
      return SINEW_OK;
    }
    /* ordering of vectors compares magnitudes, as MEL converts them to floats */
    double ma = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    double mb = sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
    c = ma < mb ? -1 : ma > mb;
  } else if (a->kind == SINEW_VALUE_INT && b->kind == SINEW_VALUE_INT) {
    c = a->as.i < b->as.i ? -1 : a->as.i > b->as.i;
  } else if ((lv_is_array(a->kind) || a->kind == SINEW_VALUE_MATRIX) ||
             (lv_is_array(b->kind) || b->kind == SINEW_VALUE_MATRIX)) {
    return vm_error(V, SINEW_ETYPE, "cannot compare %s and %s", sinew_value_kind_name(a->kind),
                    sinew_value_kind_name(b->kind));
  } else {
    double x = sinew_value_to_double(a), y = sinew_value_to_double(b);
    c = x < y ? -1 : x > y;
  }
  switch (op) {
    case OPC_EQ: *out = c == 0; break;
    case OPC_NE: *out = c != 0; break;
    case OPC_LT: *out = c < 0; break;
    case OPC_LE: *out = c <= 0; break;
    case OPC_GT: *out = c > 0; break;
    default: *out = c >= 0; break;
  }
  return SINEW_OK;
}

/* a op b -> out, MEL's rules: int op int stays int (integer division), a float makes float, a
 * vector makes vector (vector * vector is the dot product, ^ the cross product), a string with
 * + concatenates. */
static int binop(vm *V, uint8_t op, const sinew_value_t *a, const sinew_value_t *b,
                 sinew_value_t *out) {
  if (op >= OPC_EQ && op <= OPC_GE) {
    int r = 0;
    int rc = compare(V, op, a, b, &r);
    if (!rc) *out = lv_int(r);
    return rc;
  }
  if (op == OPC_ADD && (a->kind == SINEW_VALUE_STRING || b->kind == SINEW_VALUE_STRING)) {
    int rc = sinew__str_cat(a, b, out);
    return rc ? vm_error(V, rc, "out of memory") : SINEW_OK;
  }
  if (a->kind == SINEW_VALUE_MATRIX || b->kind == SINEW_VALUE_MATRIX) {
    if (op == OPC_MUL && a->kind == SINEW_VALUE_MATRIX && b->kind == SINEW_VALUE_MATRIX)
      return matrix_mul(V, a, b, out);
    if (op == OPC_MUL && is_vec(a) && b->kind == SINEW_VALUE_MATRIX)
      return vec_times_matrix(V, a->as.v, b, out);
    if (a->kind == SINEW_VALUE_MATRIX && b->kind == SINEW_VALUE_MATRIX &&
        (op == OPC_ADD || op == OPC_SUB)) {
      const sinew_lang_obj_t *A = a->as.obj, *B = b->as.obj;
      if (A->len != B->len || A->cap != B->cap)
        return vm_error(V, SINEW_ETYPE, "matrix sizes do not match");
      int rc = sinew__matrix_new(A->len, A->cap, out);
      if (rc) return vm_error(V, rc, "out of memory");
      for (uint32_t i = 0; i < A->len * A->cap; i++)
        out->as.obj->d.f[i] = op == OPC_ADD ? A->d.f[i] + B->d.f[i] : A->d.f[i] - B->d.f[i];
      return SINEW_OK;
    }
    if (lv_is_num(a->kind) || lv_is_num(b->kind)) {
      const sinew_value_t *m = a->kind == SINEW_VALUE_MATRIX ? a : b;
      double s = sinew_value_to_double(a->kind == SINEW_VALUE_MATRIX ? b : a);
      if (op != OPC_MUL && !(op == OPC_DIV && m == a))
        return vm_error(V, SINEW_ETYPE, "this operator does not apply to a matrix and a number");
      int rc = sinew__matrix_new(m->as.obj->len, m->as.obj->cap, out);
      if (rc) return vm_error(V, rc, "out of memory");
      for (uint32_t i = 0; i < m->as.obj->len * m->as.obj->cap; i++)
        out->as.obj->d.f[i] = num_op(V, op, m->as.obj->d.f[i], s);
      return SINEW_OK;
    }
    return vm_error(V, SINEW_ETYPE, "this operator does not apply to %s and %s",
                    sinew_value_kind_name(a->kind), sinew_value_kind_name(b->kind));
  }
  if (lv_is_array(a->kind) || lv_is_array(b->kind))
    return vm_error(V, SINEW_ETYPE, "arithmetic on an array (%s %s)", sinew_value_kind_name(a->kind),
                    sinew_value_kind_name(b->kind));
  if (is_vec(a) || is_vec(b)) {
    double x[3], y[3];
    vec_of(a, x);
    vec_of(b, y);
    if (op == OPC_MUL && is_vec(a) && is_vec(b)) {
      *out = lv_float(x[0] * y[0] + x[1] * y[1] + x[2] * y[2]);
      return SINEW_OK;
    }
    if (op == OPC_CROSS) {
      *out = lv_vec(x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]);
      return SINEW_OK;
    }
    *out = lv_vec(num_op(V, op, x[0], y[0]), num_op(V, op, x[1], y[1]), num_op(V, op, x[2], y[2]));
    return SINEW_OK;
  }
  if (op == OPC_CROSS)
    return vm_error(V, SINEW_ETYPE, "^ (cross product) needs vectors");
  if (a->kind == SINEW_VALUE_INT && b->kind == SINEW_VALUE_INT) {
    int64_t x = a->as.i, y = b->as.i;
    switch (op) {
      case OPC_ADD: *out = lv_int((int64_t)((uint64_t)x + (uint64_t)y)); break;
      case OPC_SUB: *out = lv_int((int64_t)((uint64_t)x - (uint64_t)y)); break;
      case OPC_MUL: *out = lv_int((int64_t)((uint64_t)x * (uint64_t)y)); break;
      case OPC_DIV:
      case OPC_MOD:
        if (y == 0) {
          sinew__fault(vbc(V), op == OPC_DIV ? "division by zero" : "modulus by zero");
          *out = lv_int(0);
        } else if (y == -1) {
          *out = lv_int(op == OPC_DIV ? (int64_t)(0 - (uint64_t)x) : 0);
        } else {
          *out = lv_int(op == OPC_DIV ? x / y : x % y);
        }
        break;
      default: *out = lv_int(0); break;
    }
    return SINEW_OK;
  }
  *out = lv_float(num_op(V, op, sinew_value_to_double(a), sinew_value_to_double(b)));
  return SINEW_OK;
}

/* ---- indexing --------------------------------------------------------------------------------------- */

static int index_value(vm *V, const sinew_value_t *arr, const sinew_value_t *idx,
                       sinew_value_t *out) {
  int64_t i = sinew_value_to_int(idx);
  if (arr->kind == SINEW_VALUE_MATRIX) {
    const sinew_lang_obj_t *M = arr->as.obj;
    if (i < 0 || i >= M->len) {
      sinew__fault(vbc(V), "matrix row %lld out of range (%u rows)", (long long)i, M->len);
      i = 0;
    }
    int rc = sinew__array_new(SINEW_VALUE_FLOAT_ARRAY, M->cap, out);
    if (rc) return vm_error(V, rc, "out of memory");
    memcpy(out->as.obj->d.f, M->d.f + (size_t)i * M->cap, M->cap * sizeof(double));
    return SINEW_OK;
  }
  if (arr->kind == SINEW_VALUE_VECTOR) {
    if (i < 0 || i > 2) {
      sinew__fault(vbc(V), "vector index %lld out of range", (long long)i);
      *out = lv_float(0);
      return SINEW_OK;
    }
    *out = lv_float(arr->as.v[i]);
    return SINEW_OK;
  }
  if (!lv_is_array(arr->kind))
    return vm_error(V, SINEW_ETYPE, "cannot index a %s", sinew_value_kind_name(arr->kind));
  if (i < 0 || i >= arr->as.obj->len) {
    /* reading past the end gives the element type's zero value, as MEL does; a negative
     * index is a fault */
    if (i < 0) sinew__fault(vbc(V), "negative array index %lld", (long long)i);
    int rc = zero_value(sinew__array_elem_kind(arr->kind), 0, 0, out);
    return rc ? vm_error(V, rc, "out of memory") : SINEW_OK;
  }
  int rc = sinew__array_get(arr, (uint32_t)i, out);
  return rc ? vm_error(V, rc, "out of memory") : SINEW_OK;
}

/* arr[i][j]: a matrix's element read in place, what reading row i as an array and then its
 * element j gives (the same faults); anything else indexed twice. */
static int index2_value(vm *V, const sinew_value_t *arr, const sinew_value_t *i1,
                        const sinew_value_t *i2, sinew_value_t *out) {
  if (arr->kind != SINEW_VALUE_MATRIX) {
    sinew_value_t row;
    int rc = index_value(V, arr, i1, &row);
    if (rc) return rc;
    rc = index_value(V, &row, i2, out);
    lv_release(&row);
    return rc;
  }
  const sinew_lang_obj_t *M = arr->as.obj;
  int64_t i = sinew_value_to_int(i1), j = sinew_value_to_int(i2);
  if (i < 0 || i >= M->len) {
    sinew__fault(vbc(V), "matrix row %lld out of range (%u rows)", (long long)i, M->len);
    i = 0;
  }
  if (j < 0) sinew__fault(vbc(V), "negative array index %lld", (long long)j);
  *out = lv_float(j >= 0 && j < M->cap ? M->d.f[(size_t)i * M->cap + (size_t)j] : 0.0);
  return SINEW_OK;
}

static int set_index(vm *V, sinew_value_t *slot, int nidx, const sinew_value_t *i1,
                     const sinew_value_t *i2, const sinew_value_t *val) {
  if (nidx == 2) {
    if (slot->kind != SINEW_VALUE_MATRIX)
      return vm_error(V, SINEW_ETYPE, "two indices need a matrix, not a %s",
                      sinew_value_kind_name(slot->kind));
    int rc = sinew__obj_unshare(slot);
    if (rc) return vm_error(V, rc, "out of memory");
    int64_t r = sinew_value_to_int(i1), c = sinew_value_to_int(i2);
    sinew_lang_obj_t *M = slot->as.obj;
    if (r < 0 || c < 0 || r >= M->len || c >= M->cap)
      return vm_error(V, SINEW_ERANGE, "matrix element [%lld][%lld] out of range (%ux%u)",
                      (long long)r, (long long)c, M->len, M->cap);
    M->d.f[r * M->cap + c] = sinew_value_to_double(val);
    return SINEW_OK;
  }
  int64_t i = sinew_value_to_int(i1);
  if (slot->kind == SINEW_VALUE_NONE) {
    /* an implicitly declared array: its element type follows the value */
    uint8_t ak = sinew__array_kind_of(val->kind);
    if (!ak) return vm_error(V, SINEW_ETYPE, "cannot store a %s in an array", sinew_value_kind_name(val->kind));
    int rc = sinew__array_new(ak, 0, slot);
    if (rc) return vm_error(V, rc, "out of memory");
  }
  if (!lv_is_array(slot->kind))
    return vm_error(V, SINEW_ETYPE, "cannot index a %s", sinew_value_kind_name(slot->kind));
  if (i < 0 || i > (1 << 24))
    return vm_error(V, SINEW_ERANGE, "array index %lld out of range", (long long)i);
  int rc = sinew__array_set(slot, (uint32_t)i, val);
  return rc ? vm_error(V, rc, "out of memory") : SINEW_OK;
}

/* ---- the loop ----------------------------------------------------------------------------------------- */

static void release_range(sinew_value_t *v, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) lv_release(&v[i]);
}

/* Converts v to the slot's declared kind (kind 0: to the kind of what the slot holds). */
static int conform(vm *V, sinew_value_t *v, uint8_t kind, const sinew_value_t *current) {
  if (!kind && current->kind != SINEW_VALUE_NONE) kind = current->kind;
  if (!kind || v->kind == kind) return SINEW_OK;
  if (kind == SINEW_VALUE_MATRIX && v->kind == SINEW_VALUE_MATRIX) return SINEW_OK;
  if (lv_is_array(kind) && !lv_is_array(v->kind) && v->kind != SINEW_VALUE_NONE)
    return vm_error(V, SINEW_ETYPE, "cannot assign a %s to a %s variable",
                    sinew_value_kind_name(v->kind), sinew_value_kind_name(kind));
  if (kind == SINEW_VALUE_MATRIX && v->kind != SINEW_VALUE_MATRIX)
    return vm_error(V, SINEW_ETYPE, "cannot assign a %s to a matrix",
                    sinew_value_kind_name(v->kind));
  int rc = sinew__convert(v, kind);
  return rc ? vm_error(V, rc, "cannot convert a %s to a %s", sinew_value_kind_name(v->kind),
                       sinew_value_kind_name(kind))
            : SINEW_OK;
}

static int push_frame(vm *V, const chunk *ch, uint32_t base, sinew_value_t *ext) {
  if (V->nframes >= MAX_FRAMES) return vm_error(V, SINEW_ERANGE, "procedures nested too deeply");
  if (V->nframes == V->cframes) {
    uint32_t nc = V->cframes ? V->cframes * 2 : 8;
    frame *f = V->frames == &V->inline_frame ? sinew_malloc(nc * sizeof *f)
                                             : sinew_realloc(V->frames, nc * sizeof *f);
    if (!f) return vm_error(V, SINEW_ENOMEM, "out of memory");
    if (V->frames == &V->inline_frame) memcpy(f, V->frames, V->nframes * sizeof *f);
    V->frames = f;
    V->cframes = nc;
  }
  frame *f = &V->frames[V->nframes++];
  f->ch = ch;
  f->code = ch->code;
  f->pc = 0;
  f->base = base;
  f->ext = ext;
  return SINEW_OK;
}

/* Calls procedure pd with the n arguments on the stack top: converts them to its parameter
 * types and pushes its frame. */
#if defined(__GNUC__)
__attribute__((noinline)) /* kept out of run(): a bigger loop made expressions slower */
#endif
static int enter_proc(vm *V, const proc_def *pd, uint32_t n) {
  sinew_value_t *S = V->stack;
  uint32_t base = V->sp - n;
  int rc;
  for (uint32_t k = 0; k < n; k++) {
    sinew_value_t *a = &S[base + k];
    a->flag = a->word = 0;
    uint8_t want = pd->param_kinds[k];
    if (a->kind != want) {
      if (want == SINEW_VALUE_MATRIX || (lv_is_array(want) && !lv_is_array(a->kind)))
        return vm_error(V, SINEW_ETYPE, "%s: argument %u must be %s, not %s", pd->name, k + 1,
                        sinew_value_kind_name(want), sinew_value_kind_name(a->kind));
      if ((rc = sinew__convert(a, want))) return vm_error(V, rc, "%s: bad argument %u", pd->name, k + 1);
    }
  }
  uint32_t extra = pd->code.nlocals - n;
  if ((rc = reserve(V, extra + 8))) return rc;
  for (uint32_t k = 0; k < extra; k++) V->stack[V->sp++] = LV_NONE;
  return push_frame(V, &pd->code, base, NULL);
}

/* A name called as a command that no command answers: a procedure defined after this script was
 * compiled (by a script it sourced), or one that a script of the same name in MAYA_SCRIPT_PATH
 * defines (Maya sources it on first use; not in keep-going mode, where unknown commands are
 * skipped). NULL when neither; *rc is set when sourcing failed. */
static proc_def *late_proc(vm *V, const char *name, int *rc) {
  proc_def *pd = NULL;
  HASH_FIND_STR(V->L->procs, name, pd);
  if (pd && pd->defined) return pd;
  /* not while reading a file (keep-going): its unknown commands are skipped, not looked for */
  char path[4096];
  if (V->L->keep_going || !sinew__find_script(V->L, name, false, path, sizeof path)) return NULL;
  if ((*rc = sinew_lang_run_file(V->L, path, NULL))) return NULL;
  pd = NULL;
  HASH_FIND_STR(V->L->procs, name, pd);
  return pd && pd->defined ? pd : NULL;
}

/* The arguments of a command-syntax call handed to a procedure: a flag word is the text "-name"
 * again. */
static int args_for_proc(vm *V, uint32_t n) {
  for (uint32_t k = V->sp - n; k < V->sp; k++) {
    sinew_value_t *a = &V->stack[k];
    if (a->flag) {
      sinew_value_t dash, t;
      int rc = sinew__str_new("-", 1, &dash);
      if (!rc) {
        rc = sinew__str_cat(&dash, a, &t);
        lv_release(&dash);
      }
      if (rc) return vm_error(V, rc, "out of memory");
      lv_release(a);
      *a = t;
    }
    a->flag = a->word = 0;
  }
  return SINEW_OK;
}

/* OPC_CMD for a name no command answers: calls the procedure late_proc finds (*called). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int call_late_proc(vm *V, const char *name, uint32_t n, bool *called) {
  int rc = SINEW_OK;
  const char *file = V->L->cur_file;
  uint32_t line = V->L->cur_line;
  proc_def *pd = late_proc(V, name, &rc);
  V->L->cur_file = file;
  V->L->cur_line = line;
  if (rc) {
    if (V->cur) V->line = V->cur->line;
    return sinew__lang_locate(V->L, V->L->cur_file ? V->L->cur_file : "expression", V->line, NULL);
  }
  if (!pd) return SINEW_OK;
  if (pd->nparams != n)
    return vm_error(V, SINEW_ESYNTAX, "%s takes %u argument%s, not %u", name, pd->nparams,
                    pd->nparams == 1 ? "" : "s", n);
  if ((rc = STEP(V)) || (rc = args_for_proc(V, n)) || (rc = enter_proc(V, pd, n))) return rc;
  *called = true;
  return SINEW_OK;
}

/* OPC_CMD: calls the command (or the procedure) named by constant a with the b values on the
 * stack top, which it replaces with the result. Out of run(): a bigger loop makes every
 * expression slower. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int op_cmd(vm *V, const insn *in) {
  sinew_value_t *S = V->stack;
  int rc;
  uint32_t n = (uint32_t)in->b;
  const char *name = lv_str(&V->frames[V->nframes - 1].ch->consts[in->a]);
  sinew_value_t r = LV_NONE;
  cmd_entry *ce = sinew__cmd_find(V->L, name);
  uint32_t line = in->line;
  V->L->cur_line = line;
  const char *file = V->L->cur_file;
  cmd_entry fb;
  if (!ce) {
    bool called = false;
    if ((rc = call_late_proc(V, name, n, &called)) || called) return rc;
  }
  bool ui = !ce && sinew__is_ui_command(name);
  if (!ce && !ui && V->L->fallback) {
    memset(&fb, 0, sizeof fb);
    fb.name = (char *)name;
    fb.desc.name = name;
    fb.desc.fn = V->L->fallback;
    fb.desc.lenient_flags = true;
    fb.desc.user_data = V->L->fallback_data;
    ce = &fb;
  }
  if ((rc = vm_poll(V))) {
    /* stopped before the command: nothing to run */
  } else if (ui) {
    rc = vm_error(V, SINEW_EUNSUPPORTED, "%s: a UI command; sinew runs without a user interface", name);
  } else if (!ce) {
    rc = vm_error(V, SINEW_ENOTFOUND, "%s: unknown command", name);
  } else {
    V->L->errmsg[0] = 0;
    rc = sinew__cmd_invoke(V->L, ce, &S[V->sp - n], n, &r);
    V->L->cur_file = file;
    V->L->cur_line = line;
    V->line = line;
    if (rc) {
      if (!V->L->errmsg[0]) sinew__lang_error(V->L, rc, "%s", sinew_strerror(rc));
      V->L->err.code = rc;
      if (V->cur) V->line = V->cur->line;
      sinew__lang_locate(V->L, V->L->cur_file ? V->L->cur_file : "expression", V->line, NULL);
    }
  }
  S = V->stack;
  release_range(&S[V->sp - n], n);
  V->sp -= n;
  if (rc && V->L->keep_going && V->nframes == 1 && !V->ntries && rc != SINEW_ENOMEM && rc != SINEW_EINTERRUPTED &&
      rc != SINEW_ELIMIT) {
    /* as Maya reads a scene: report the failed line and go on */
    sinew_log(V->L->graph, SINEW_LOG_ERROR, SINEW_LOG_COMMAND_FAILED, "%s", V->L->errmsg);
    V->L->failures++;
    lv_release(&r);
    r = LV_NONE;
    rc = SINEW_OK;
  }
  if (rc) {
    lv_release(&r);
    return rc;
  }
  S[V->sp++] = r;
  return SINEW_OK;
}

static int run(vm *V, sinew_value_t *result) {
  int rc = SINEW_OK;
  frame *f = &V->frames[V->nframes - 1];
  for (;;) {
    const insn *in = &f->code[f->pc++];
    /* the line is looked up only where it is reported (errors, faults, commands) */
    V->cur = in;
    if (V->sp + 4 > V->cap && (rc = reserve(V, 4))) return rc;
    sinew_value_t *S = V->stack;
    switch (in->op) {
      case OPC_NOP: break;
      case OPC_CONST: lv_copy(&S[V->sp++], &f->ch->consts[in->a]); break;
      case OPC_INT: lv_put_int(&S[V->sp++], in->a); break;
      case OPC_POP: lv_release(&S[--V->sp]); break;
      case OPC_DUP:
        lv_copy(&S[V->sp], &S[V->sp - 1]);
        V->sp++;
        break;
      case OPC_LOAD: {
        sinew_value_t *loc = locals_of(V, f);
        lv_copy(&S[V->sp++], &loc[in->a]);
        break;
      }
      case OPC_GLOAD: lv_copy(&S[V->sp++], &V->L->gvals[in->a]); break;
      case OPC_STORE:
      case OPC_GSTORE: {
        bool g = in->op == OPC_GSTORE;
        sinew_value_t *slot = g ? &V->L->gvals[in->a] : &locals_of(V, f)[in->a];
        uint8_t kind = g ? V->L->gkinds[in->a] : f->ch->local_kinds[in->a];
        sinew_value_t *top = &S[V->sp - 1];
        top->flag = top->word = 0;
        if ((rc = conform(V, top, kind, slot))) return rc;
        lv_release(slot);
        lv_copy(slot, top);
        break;
      }
      case OPC_DECL: {
        int32_t d2 = (int32_t)S[--V->sp].as.i, d1 = (int32_t)S[--V->sp].as.i;
        sinew_value_t *slot = &locals_of(V, f)[in->a];
        if (in->b && slot->kind == in->b8) break; /* expression variable keeps its value */
        if (in->b8 == SINEW_VALUE_MATRIX && slot->kind == SINEW_VALUE_MATRIX && slot->as.obj->refs == 1 &&
            (int32_t)slot->as.obj->len == (d1 > 0 ? d1 : 1) && (int32_t)slot->as.obj->cap == (d2 > 0 ? d2 : 1)) {
          /* the same zero matrix again: cleared in place (an expression's matrix variable) */
          memset(slot->as.obj->d.f, 0, (size_t)slot->as.obj->len * slot->as.obj->cap * sizeof(double));
          break;
        }
        sinew_value_t z;
        if ((rc = zero_value(in->b8, d1, d2, &z))) return vm_error(V, rc, "cannot create the variable");
        lv_release(slot);
        *slot = z;
        break;
      }
      case OPC_GDECL: {
        sinew_value_t *slot = &V->L->gvals[in->a];
        V->L->gkinds[in->a] = in->b8;
        if (slot->kind == in->b8) break;
        sinew_value_t z;
        if ((rc = zero_value(in->b8, 0, 0, &z))) return vm_error(V, rc, "out of memory");
        if (slot->kind != SINEW_VALUE_NONE && (rc = sinew__convert(slot, in->b8)) == SINEW_OK) {
          lv_release(&z);
          break;
        }
        lv_release(slot);
        *slot = z;
        break;
      }
      case OPC_INDEX: {
        sinew_value_t r;
        rc = index_value(V, &S[V->sp - 2], &S[V->sp - 1], &r);
        if (rc) return rc;
        lv_release(&S[--V->sp]);
        lv_release(&S[V->sp - 1]);
        S[V->sp - 1] = r;
        break;
      }
      case OPC_INDEX2: {
        sinew_value_t r;
        rc = index2_value(V, &S[V->sp - 3], &S[V->sp - 2], &S[V->sp - 1], &r);
        if (rc) return rc;
        release_range(&S[V->sp - 3], 3);
        V->sp -= 2;
        S[V->sp - 1] = r;
        break;
      }
      case OPC_SETINDEX: {
        sinew_value_t *slot = in->b ? &V->L->gvals[in->a] : &locals_of(V, f)[in->a];
        int n = in->b8;
        sinew_value_t *val = &S[V->sp - 1];
        const sinew_value_t *i1 = &S[V->sp - 1 - n], *i2 = n == 2 ? &S[V->sp - 2] : NULL;
        if ((rc = set_index(V, slot, n, i1, i2, val))) return rc;
        sinew_value_t keep = *val;
        V->sp--;
        for (int k = 0; k < n; k++) lv_release(&S[--V->sp]);
        S[V->sp++] = keep;
        break;
      }
      case OPC_COMP: {
        sinew_value_t *t = &S[V->sp - 1];
        double v[3];
        vec_of(t, v);
        lv_release(t);
        *t = lv_float(v[in->a]);
        break;
      }
      case OPC_SETCOMP: {
        bool g = (in->b >> 2) & 1;
        sinew_value_t *slot = g ? &V->L->gvals[in->a] : &locals_of(V, f)[in->a];
        if (slot->kind != SINEW_VALUE_VECTOR)
          return vm_error(V, SINEW_ETYPE, "a component (.x .y .z) needs a vector variable");
        slot->as.v[in->b & 3] = sinew_value_to_double(&S[V->sp - 1]);
        break;
      }
      case OPC_IN: {
        const sinew_expr_io_t *io = V->ex->io;
        uint32_t k = (uint32_t)in->a;
        if (io->input_matrices && k < io->ninputs && io->input_matrices[k]) {
          sinew_value_t m;
          if ((rc = sinew__matrix_take(V->ex->pool, 4, 4, &m))) return vm_error(V, rc, "out of memory");
          memcpy(m.as.obj->d.f, io->input_matrices[k]->m, 16 * sizeof(double));
          S[V->sp++] = m;
        } else {
          lv_put_float(&S[V->sp++], k < io->ninputs ? io->inputs[k] : 0.0);
        }
        break;
      }
      case OPC_OUT: {
        const sinew_expr_io_t *io = V->ex->io;
        uint32_t k = (uint32_t)in->a;
        double d = sinew_value_to_double(&S[V->sp - 1]);
        if (k < io->noutputs) {
          if (isfinite(d)) {
            io->outputs[k] = d;
          } else {
            sinew__fault(vbc(V), "output %u would be %s; it keeps its value", k, d != d ? "NaN" : "infinite");
          }
        }
        break;
      }
      case OPC_OUTLOAD: {
        const sinew_expr_io_t *io = V->ex->io;
        uint32_t k = (uint32_t)in->a;
        lv_put_float(&S[V->sp++], k < io->noutputs ? io->outputs[k] : 0.0);
        break;
      }
      case OPC_TIME: lv_put_float(&S[V->sp++], V->ex ? V->ex->io->time_seconds : 0); break;
      case OPC_FRAME: lv_put_float(&S[V->sp++], V->ex ? V->ex->io->frame : 0); break;
      case OPC_NEG: {
        sinew_value_t *t = &S[V->sp - 1];
        if (t->kind == SINEW_VALUE_INT) t->as.i = (int64_t)(0 - (uint64_t)t->as.i);
        else if (t->kind == SINEW_VALUE_FLOAT) t->as.f = -t->as.f;
        else if (t->kind == SINEW_VALUE_VECTOR) for (int k = 0; k < 3; k++) t->as.v[k] = -t->as.v[k];
        else {
          double d = sinew_value_to_double(t);
          lv_release(t);
          *t = lv_float(-d);
        }
        break;
      }
      case OPC_NOT: {
        sinew_value_t *t = &S[V->sp - 1];
        bool b = sinew__truthy(t);
        lv_release(t);
        *t = lv_int(!b);
        break;
      }
      case OPC_TRUTH: {
        sinew_value_t *t = &S[V->sp - 1];
        bool b = sinew__truthy(t);
        lv_release(t);
        *t = lv_int(b);
        break;
      }
      case OPC_ADD: case OPC_SUB: case OPC_MUL: case OPC_DIV: case OPC_MOD: case OPC_CROSS:
      case OPC_EQ: case OPC_NE: case OPC_LT: case OPC_LE: case OPC_GT: case OPC_GE: {
        sinew_value_t *a = &S[V->sp - 2], *b = &S[V->sp - 1];
        sinew_value_t r;
        if (lv_is_num(a->kind) && lv_is_num(b->kind) &&
            (a->kind == SINEW_VALUE_FLOAT || b->kind == SINEW_VALUE_FLOAT)) {
          /* the common case in expressions: numbers, at least one a float */
          double x = a->kind == SINEW_VALUE_FLOAT ? a->as.f : (double)a->as.i;
          double y = b->kind == SINEW_VALUE_FLOAT ? b->as.f : (double)b->as.i;
          int c = -2;
          switch (in->op) {
            case OPC_ADD: x += y; break;
            case OPC_SUB: x -= y; break;
            case OPC_MUL: x *= y; break;
            case OPC_DIV: x = num_op(V, OPC_DIV, x, y); break;
            case OPC_MOD: x = num_op(V, OPC_MOD, x, y); break;
            case OPC_EQ: c = x == y; break;
            case OPC_NE: c = x != y; break;
            case OPC_LT: c = x < y; break;
            case OPC_LE: c = x <= y; break;
            case OPC_GT: c = x > y; break;
            case OPC_GE: c = x >= y; break;
            default: return vm_error(V, SINEW_ETYPE, "^ (cross product) needs vectors");
          }
          if (c == -2) lv_put_float(a, x);
          else lv_put_int(a, c);
          V->sp--;
          break;
        }
        if ((rc = binop(V, in->op, a, b, &r))) return rc;
        lv_release(a);
        lv_release(b);
        *a = r;
        V->sp--;
        break;
      }
      case OPC_JMP:
        /* a jump back is a loop iteration: a step */
        if ((uint32_t)in->a < f->pc && (rc = STEP(V))) return rc;
        f->pc = (uint32_t)in->a;
        break;
      case OPC_JF:
      case OPC_JT: {
        bool b = sinew__truthy(&S[V->sp - 1]);
        lv_release(&S[--V->sp]);
        if (b == (in->op == OPC_JT)) {
          if ((uint32_t)in->a < f->pc && (rc = STEP(V))) return rc;
          f->pc = (uint32_t)in->a;
        }
        break;
      }
      case OPC_JFK:
      case OPC_JTK: {
        bool b = sinew__truthy(&S[V->sp - 1]);
        if (b == (in->op == OPC_JTK)) {
          if ((uint32_t)in->a < f->pc && (rc = STEP(V))) return rc;
          f->pc = (uint32_t)in->a;
        } else {
          lv_release(&S[--V->sp]);
        }
        break;
      }
      case OPC_VEC: {
        double z = sinew_value_to_double(&S[V->sp - 1]), y = sinew_value_to_double(&S[V->sp - 2]),
               x = sinew_value_to_double(&S[V->sp - 3]);
        release_range(&S[V->sp - 3], 3);
        V->sp -= 3;
        S[V->sp++] = lv_vec(x, y, z);
        break;
      }
      case OPC_ARRAY: {
        uint32_t n = (uint32_t)in->a;
        sinew_value_t *el = &S[V->sp - n];
        sinew_value_t r;
        if (in->b8) { /* matrix literal: b rows */
          uint32_t rows = (uint32_t)in->b;
          if ((rc = sinew__matrix_new(rows, n / rows, &r))) return vm_error(V, rc, "out of memory");
          for (uint32_t i = 0; i < n; i++) r.as.obj->d.f[i] = sinew_value_to_double(&el[i]);
        } else {
          uint8_t ek = SINEW_VALUE_INT;
          for (uint32_t i = 0; i < n; i++) {
            uint8_t k = el[i].kind;
            if (k == SINEW_VALUE_STRING) ek = SINEW_VALUE_STRING;
            else if (k == SINEW_VALUE_VECTOR && ek != SINEW_VALUE_STRING) ek = SINEW_VALUE_VECTOR;
            else if (k == SINEW_VALUE_FLOAT && ek == SINEW_VALUE_INT) ek = SINEW_VALUE_FLOAT;
          }
          if ((rc = sinew__array_new(sinew__array_kind_of(ek), 0, &r)))
            return vm_error(V, rc, "out of memory");
          for (uint32_t i = 0; i < n; i++)
            if ((rc = sinew__array_push(&r, &el[i]))) {
              lv_release(&r);
              return vm_error(V, rc, "cannot build the array");
            }
        }
        release_range(el, n);
        V->sp -= n;
        S[V->sp++] = r;
        break;
      }
      case OPC_CAST: {
        sinew_value_t *t = &S[V->sp - 1];
        if (in->a == SINEW_VALUE_MATRIX && t->kind == SINEW_VALUE_MATRIX) break;
        if ((rc = sinew__convert(t, (uint8_t)in->a)))
          return vm_error(V, rc, "cannot convert to %s", sinew_value_kind_name((sinew_value_kind_t)in->a));
        break;
      }
      case OPC_BUILTIN: {
        uint32_t n = (uint32_t)in->b;
        const builtin_def *bd = sinew__builtin(in->a);
        sinew_value_t r = LV_NONE;
        V->bc.line = in->line;
        if (V->L) {
          V->L->cur_line = in->line;
          V->L->errmsg[0] = 0;
        }
        rc = bd->fn(&V->bc, &S[V->sp - n], (int)n, &r);
        S = V->stack; /* eval may have run a nested script; this stack did not move */
        release_range(&S[V->sp - n], n);
        V->sp -= n;
        if (!rc && r.kind == SINEW_VALUE_FLOAT) { /* the common case, without a wide reload */
          lv_put_float(&S[V->sp++], r.as.f);
          break;
        }
        if (rc) {
          lv_release(&r);
          /* keep what the function said (eval: the nested script's own error) */
          if (!V->L) return vm_error(V, rc, "%s: %s", bd->name, sinew_strerror(rc));
          if (!V->L->errmsg[0]) sinew__lang_error(V->L, rc, "%s", sinew_strerror(rc));
          V->L->err.code = rc;
          if (!V->L->err.file[0] && !V->L->err.line) sinew__error_under(&V->L->err, bd->name);
          if (V->cur) V->line = V->cur->line;
          return sinew__lang_locate(V->L, V->L->cur_file ? V->L->cur_file : "expression", V->line,
                                    bd->name);
        }
        S[V->sp++] = r;
        break;
      }
      case OPC_CALL: {
        if ((rc = STEP(V)) || (rc = enter_proc(V, V->L->proc_list[in->a], (uint32_t)in->b)))
          return rc;
        f = &V->frames[V->nframes - 1];
        break;
      }
      case OPC_RET:
      case OPC_RETNONE: {
        sinew_value_t r = LV_NONE;
        if (in->op == OPC_RET) r = S[--V->sp];
        if (V->nframes == 1) { /* return at the top level ends the run */
          if (result) {
            lv_release(result);
            *result = r;
          } else {
            lv_release(&r);
          }
          return SINEW_OK;
        }
        release_range(&S[f->base], V->sp - f->base);
        V->sp = f->base;
        V->nframes--;
        f = &V->frames[V->nframes - 1];
        S[V->sp++] = r;
        break;
      }
      case OPC_CMD:
        if ((rc = op_cmd(V, in))) return rc;
        f = &V->frames[V->nframes - 1]; /* a procedure's, when the name was one */
        break;
      case OPC_FLAG: {
        lv_copy(&S[V->sp], &f->ch->consts[in->a]);
        S[V->sp].flag = 1;
        S[V->sp].line = in->line;
        V->sp++;
        break;
      }
      case OPC_SETLAST:
        if (result) {
          lv_release(result);
          *result = S[--V->sp];
          result->flag = result->word = 0;
        } else {
          lv_release(&S[--V->sp]);
        }
        break;
      case OPC_TRY: {
        if (V->ntries == V->ctries) {
          uint32_t nc = V->ctries ? V->ctries * 2 : 4;
          try_ctx *t = sinew_realloc(V->tries, nc * sizeof *t);
          if (!t) return vm_error(V, SINEW_ENOMEM, "out of memory");
          V->tries = t;
          V->ctries = nc;
        }
        V->tries[V->ntries++] = (try_ctx){(uint32_t)in->a, V->nframes, V->sp, in->b8 != 0};
        break;
      }
      case OPC_ENDTRY: V->ntries--; break;
      case OPC_HALT: return SINEW_OK;
      default: return vm_error(V, SINEW_EINVAL, "internal: bad opcode %d", in->op);
    }
  }
}

/* An error inside catch(...): back to the catch's frame and stack, where the handler pushes 1.
 * A stop (interrupt, limits) and running out of memory are not caught. */
static int catch_error(vm *V) {
  try_ctx t = V->tries[--V->ntries];
  sinew_lang_t *L = V->L;
  if (!t.quiet) sinew_log(L->graph, SINEW_LOG_ERROR, SINEW_LOG_COMMAND_FAILED, "%s", L->errmsg);
  L->err.code = 0;
  release_range(V->stack + t.sp, V->sp - t.sp);
  V->sp = t.sp;
  V->nframes = t.nframes;
  V->frames[V->nframes - 1].pc = t.handler;
  return SINEW_OK;
}

int sinew__vm_run(sinew_lang_t *L, const chunk *c, sinew_value_t *locals, vm_expr_ctx *ex,
                  sinew_value_t *result) {
  vm V;
  memset(&V, 0, offsetof(vm, inline_stack));
  V.stack = V.inline_stack;
  V.cap = sizeof V.inline_stack / sizeof V.inline_stack[0];
  V.frames = &V.inline_frame;
  V.cframes = 1;
  V.tries = NULL;
  V.ntries = V.ctries = 0;
  V.L = L;
  V.ex = ex;
  V.bc.lang = L;
  V.bc.ex = ex;
  V.bc.rand_state = ex && ex->rand_state ? ex->rand_state : L ? &L->rand_state : NULL;
  V.bounds = ex ? &ex->bounds : L ? &L->bounds : NULL;
  V.tick = V.batch = next_batch(V.bounds);
  int rc = push_frame(&V, c, 0, locals);
  /* one call of run() (two would keep the compiler from inlining it: expressions slow down) */
  while (!rc && (rc = run(&V, result)) && V.ntries && rc != SINEW_ENOMEM &&
         rc != SINEW_EINTERRUPTED && rc != SINEW_ELIMIT)
    rc = catch_error(&V);
  /* the steps of the unfinished batch are charged too (a nested run shares the budget) */
  if (V.bounds && V.bounds->steps_left != UINT64_MAX) {
    uint64_t used = V.batch - V.tick;
    V.bounds->steps_left = used < V.bounds->steps_left ? V.bounds->steps_left - used : 0;
  }
  release_range(V.stack, V.sp);
  if (V.stack != V.inline_stack) sinew_free(V.stack);
  if (V.frames != &V.inline_frame) sinew_free(V.frames);
  if (V.tries) sinew_free(V.tries);
  return rc;
}

/* ---- the typed VM ---------------------------------------------------------------------------------
 * Register code from lang/typed.c: every instruction knows its operands' types, so there is no
 * tag to check and nothing to allocate. The rules are the generic loop's (binop, compare,
 * conform above): the translator picks the instruction the generic loop would have taken at run
 * time. */

static inline double vmag3(const tcell *v) { return sqrt(v[0].f * v[0].f + v[1].f * v[1].f + v[2].f * v[2].f); }
static inline bool vtruth(const tcell *v) { return v[0].f != 0 || v[1].f != 0 || v[2].f != 0; }
/* a * b rounded to a double before anything is added to it (a function of its own, so that no
 * compiler fuses it with the addition into one rounding: the generic VM rounds twice) */
static inline double productv(double a, double b) {
  double p = a * b;
  return p;
}
static inline double product(const tcell *a, const tcell *b) { return productv(a->f, b->f); }

static int64_t f2i(double d) {
  if (d != d) return 0;
  if (d >= 9.2e18) return INT64_MAX;
  if (d <= -9.2e18) return INT64_MIN;
  return (int64_t)d;
}

/* A fault of instruction t: counted, its text kept when it is the first (sinew__fault). */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static void tfault(vm_expr_ctx *ex, const tinsn *t, const char *what) {
  builtin_call bc = {.ex = ex, .rand_state = ex->rand_state, .line = t->line};
  sinew__fault(&bc, "%s", what);
}

#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static void tfault_out(vm_expr_ctx *ex, const tinsn *t, double d) {
  builtin_call bc = {.ex = ex, .rand_state = ex->rand_state, .line = t->line};
  sinew__fault(&bc, "output %d would be %s; it keeps its value", t->b, d != d ? "NaN" : "infinite");
}

/* A batch of batch steps is used up (a loop's jump at line): the bounds checked as the
 * generic loop checks them (vm_check), with a machine of its own made only here, so that a run
 * that never gets here sets nothing up. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int tcheck(vm_expr_ctx *ex, uint32_t line, uint32_t batch) {
  vm V;
  V.L = NULL;
  V.cur = NULL;
  V.ex = ex;
  V.line = line;
  V.bounds = &ex->bounds;
  V.tick = 0;
  V.batch = batch;
  return vm_check(&V);
}

static inline double tdiv(vm_expr_ctx *ex, const tinsn *t, double a, double b) {
  if (b == 0) {
    tfault(ex, t, "division by zero");
    return 0;
  }
  return a / b;
}

static inline double tmod(vm_expr_ctx *ex, const tinsn *t, double a, double b) {
  if (b == 0) {
    tfault(ex, t, "modulus by zero");
    return 0;
  }
  return fmod(a, b);
}

/* The loop: with GCC and clang each instruction jumps straight to the next one's code (a jump
 * per instruction, which the CPU predicts far better than one shared switch); elsewhere a
 * switch. The bodies are the same. */
#if defined(__GNUC__)
#define TYPED_THREADED 1
#define OP(x) L_##x:
#define NEXT() goto *labels[(++t)->op]
#define GO(idx)                                                                                  \
  do {                                                                                           \
    t = code + (idx);                                                                            \
    goto *labels[t->op];                                                                         \
  } while (0)
#else
#define OP(x) case x:
#define NEXT()                                                                                   \
  t++;                                                                                           \
  continue
#define GO(idx)                                                                                  \
  t = code + (idx);                                                                              \
  continue
#endif
#define D (&R[t->d])
#define A (&R[t->a])
#define B (&R[t->b])
#define C (&R[t->c])
#define BACK() STEP_AT(1)
#define PRE() STEP_AT(2)
/* The instructions that are one expression of their operands: d (its field f or i) = expr. */
#define SIMPLE(op_, field, expr)                                                                 \
  OP(op_) {                                                                                      \
    D->field = (expr);                                                                           \
    NEXT();                                                                                      \
  }
/* A vector result: the three components are computed before any is written (d may be an
 * operand). */
#define VECTOR(op_, ex, ey, ez)                                                                  \
  OP(op_) {                                                                                      \
    double x_ = (ex), y_ = (ey), z_ = (ez);                                                      \
    tcell *d_ = D;                                                                               \
    d_[0].f = x_;                                                                                \
    d_[1].f = y_;                                                                                \
    d_[2].f = z_;                                                                                \
    NEXT();                                                                                      \
  }
/* The jumps: to d when cond holds (a step when the jump goes back, PRE/BACK above). */
#define JUMP_IF(op_, cond)                                                                       \
  OP(op_) {                                                                                      \
    PRE();                                                                                       \
    if (cond) {                                                                                  \
      BACK();                                                                                    \
      GO(t->d);                                                                                  \
    }                                                                                            \
    NEXT();                                                                                      \
  }
/* The bodies of the instructions that also run in pairs (T_PAIR_* below), of their operands'
 * values x, y, z (a, b, c), each an expression whose value is the result it stores. */
#define BODY_MOV(x, y, z) ((*D = *A), D->f)
#define BODY_ADDF(x, y, z) (D->f = (x) + (y))
#define BODY_SUBF(x, y, z) (D->f = (x) - (y))
#define BODY_MULF(x, y, z) (D->f = (x) * (y))
#define BODY_MULADDF(x, y, z) (D->f = productv(x, y) + (z))
#define BODY_ADDMULF(x, y, z) (D->f = (z) + productv(x, y))
#define BODY_MULSUBF(x, y, z) (D->f = productv(x, y) - (z))
#define BODY_SUBMULF(x, y, z) (D->f = (z) - productv(x, y))
#define BODY_CLAMP(x, y, z) (D->f = sinew__clamp(x, y, z))
#define BODY_LINSTEP(x, y, z) (D->f = sinew__linstep(x, y, z))
#define BODY_SMOOTHSTEP(x, y, z) (D->f = sinew__smoothstep(x, y, z))
/* an output keeps its value when the new one is not finite (a fault) */
#define BODY_OUT(x, y, z)                                                                        \
  do {                                                                                           \
    double v_ = (x);                                                                             \
    uint32_t k_ = (uint32_t)t->b;                                                                \
    if (OUT_IN_RANGE(k_)) {                                                                      \
      if (isfinite(v_)) {                                                                        \
        io->outputs[k_] = v_;                                                                    \
      } else {                                                                                   \
        tfault_out(ex, t, v_);                                                                   \
      }                                                                                          \
    }                                                                                            \
  } while (0)
/* Two instructions in one dispatch: the first's body, then the next instruction's (which stays
 * in its slot, whole, for a jump that lands on it). The second's operand link (a or c; n: none)
 * is the first's result, taken from where the first left it (a register) rather than read back
 * from its cell. */
#define LINK_a_a r_
#define LINK_a_c A->f
#define LINK_a_n A->f
#define LINK_c_a C->f
#define LINK_c_c r_
#define LINK_c_n C->f
#define PAIR(op_, first, second, link)                                                           \
  OP(op_) {                                                                                      \
    double r_ = BODY_##first(A->f, B->f, C->f);                                                  \
    (void)r_;                                                                                    \
    t++;                                                                                         \
    BODY_##second(LINK_a_##link, B->f, LINK_c_##link);                                           \
    NEXT();                                                                                      \
  }
/* A pair and the output after it that takes the second's result (TYPED_PAIR_OUT). */
#define PAIR_OUT(op_, first, second, link)                                                       \
  OP(op_) {                                                                                      \
    double r_ = BODY_##first(A->f, B->f, C->f);                                                  \
    (void)r_;                                                                                    \
    t++;                                                                                         \
    double r2_ = BODY_##second(LINK_a_##link, B->f, LINK_c_##link);                              \
    t++;                                                                                         \
    BODY_OUT(r2_, 0, 0);                                                                         \
    NEXT();                                                                                      \
  }
/* A clamp, the ease of it, an instruction and the two outputs after it (TYPED_EASE_OUT2): the
 * third's operand link (a or b) is the eased value, taken from where the ease left it. */
#define EASED_a_a eased_
#define EASED_a_b A->f
#define EASED_b_a B->f
#define EASED_b_b eased_
#define EASE_OUT2(op_, ease, first, link)                                                        \
  OP(op_) {                                                                                      \
    double r_ = BODY_CLAMP(A->f, B->f, C->f);                                                    \
    t++;                                                                                         \
    double eased_ = BODY_##ease(A->f, B->f, r_);                                                 \
    t++;                                                                                         \
    double w_ = BODY_##first(EASED_a_##link, EASED_b_##link, C->f);                              \
    t++;                                                                                         \
    BODY_OUT(w_, 0, 0);                                                                          \
    t++;                                                                                         \
    BODY_OUT(w_, 0, 0);                                                                          \
    NEXT();                                                                                      \
  }
/* An instruction and the two outputs after it that take its result (TYPED_OUT2). */
#define OUT2(op_, first)                                                                         \
  OP(op_) {                                                                                      \
    double r_ = BODY_##first(A->f, B->f, C->f);                                                  \
    t++;                                                                                         \
    BODY_OUT(r_, 0, 0);                                                                          \
    t++;                                                                                         \
    BODY_OUT(r_, 0, 0);                                                                          \
    NEXT();                                                                                      \
  }

/* x and y compared by code 0 to 5: ==, !=, <, <=, >, >= (the order of T_EQF ... T_GEF and of a
 * fused compare-and-jump's c & 7) */
#define COMPARE(code, x, y)                                                                      \
  ((code) == 0   ? (x) == (y)                                                                    \
   : (code) == 1 ? (x) != (y)                                                                    \
   : (code) == 2 ? (x) < (y)                                                                     \
   : (code) == 3 ? (x) <= (y)                                                                    \
   : (code) == 4 ? (x) > (y)                                                                     \
                 : (x) >= (y))

/* Vectors ordered by magnitude (COMPARE's code 2 to 5) as the generic compare() orders them: a
 * NaN magnitude is neither below nor above, so it counts as equal. */
static inline bool vorder(int code, const tcell *a, const tcell *b) {
  double ma = vmag3(a), mb = vmag3(b);
  int c = ma < mb ? -1 : ma > mb;
  return COMPARE(code, c, 0);
}

/* An evaluation in general: with bounds (a loop), inputs that may be fewer than the code reads
 * or matrices, outputs that may be fewer than it writes. */
int sinew__typed_run(const tprog *P, tcell *R, vm_expr_ctx *ex) {
  const sinew_expr_io_t *io = ex->io;
  /* what an evaluation sets up is only what its code reads: the bounds for a loop, time and
   * frame when the text reads them, inputs read one by one when fewer were given */
  tcell *in = &R[P->in_base];
  if (!P->matrix_inputs && io->ninputs >= P->nin) {
    for (uint32_t k = 0; k < P->nin; k++) in[k].f = io->inputs[k];
  } else {
    for (uint32_t k = 0; k < P->nin; k++) {
      if (P->in_matrix[k] < 0) {
        in[k].f = k < io->ninputs ? io->inputs[k] : 0.0;
      } else { /* the caller checked there is one */
        const sinew_mat4_t *m = io->input_matrices[k];
        for (int c = 0; c < 16; c++) R[P->in_matrix[k] + c].f = m->m[c / 4][c % 4];
      }
    }
  }
  if (P->uses_time) {
    R[P->time_cell].f = io->time_seconds;
    R[P->frame_cell].f = io->frame;
  }
  uint32_t tick = 0, batch = 0; /* steps left in this batch, and its size (loops only) */
  if (P->loops) tick = batch = next_batch(&ex->bounds);
  int rc = SINEW_OK;
#define TYPED_LOOP_DIRECT 0
#include "lang/typed_loop.h"
#undef TYPED_LOOP_DIRECT
  if (P->loops && ex->bounds.steps_left != UINT64_MAX) { /* the unfinished batch's steps */
    uint64_t used = batch - tick;
    ex->bounds.steps_left = used < ex->bounds.steps_left ? ex->bounds.steps_left - used : 0;
  }
  return rc;
}

/* In a loop of a few passes, keeps the compiler from vectorizing it: the checks and the
 * vector body cost more than the passes themselves. */
#if defined(__GNUC__)
#define SCALAR_LOOP(index) __asm__("" : "+r"(index))
#else
#define SCALAR_LOOP(index) ((void)0)
#endif

/* sinew_expr_eval's direct path (the caller checked what sinew__typed_eval says): the same loop
 * without step counting or output bounds, and with no call between it and the public entry. */
int sinew__typed_eval(const typed_target *to, const sinew_expr_io_t *io, unsigned *out_faults,
                      char *faultbuf, size_t faultlen) {
  vm_expr_ctx own; /* what a fault uses (sinew__fault), and the random sequence of a call */
  vm_expr_ctx *ex = &own;
  own.faults = 0;
  own.rand_state = to->rand_state;
  own.faultbuf = faultbuf;
  own.faultlen = faultlen;
  if (faultbuf && faultlen) faultbuf[0] = 0;
  const tprog *P = to->prog;
  tcell *R = to->cells;
  /* the inputs, a few (no overlap to check, nothing to vectorize) */
  tcell *restrict in = &R[P->in_base];
  const double *restrict given = io->inputs;
  for (uint32_t k = 0, n = P->nin; k < n; k++) {
    in[k].f = given[k];
    SCALAR_LOOP(k);
  }
  if (P->uses_time) {
    R[P->time_cell].f = io->time_seconds;
    R[P->frame_cell].f = io->frame;
  }
  int rc = SINEW_OK;
#define TYPED_LOOP_DIRECT 1
#include "lang/typed_loop.h"
#undef TYPED_LOOP_DIRECT
  if (rc) own.faults++;
  if (out_faults) *out_faults = own.faults;
  return rc;
}
