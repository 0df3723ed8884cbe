/* lang/compile.c: AST -> bytecode. Resolves variables to slots (block scopes, globals,
 * persistent expression variables), procedures to indices, calls to built-ins, procedures or
 * commands, and in expression mode attribute references to numbered inputs and outputs. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "lang/lang_internal.h"

typedef struct local {
  const char *name;
  size_t len;
  int32_t slot;      /* local slot, or global slot when global */
  bool global;
  uint32_t depth;
} local;

typedef struct loop_ctx {
  uint32_t *breaks, nbreaks, cbreaks;
  uint32_t *conts, nconts, cconts;
  bool is_switch;
} loop_ctx;

/* Procedures compiled by this program, committed to the language only when everything
 * compiled. */
typedef struct pending_proc {
  proc_def *def;   /* existing definition (redefinition) or a new one */
  bool is_new;
  chunk code;
  uint32_t nparams;
  uint8_t *param_kinds;
  uint8_t ret_kind;
  const ast *node;
} pending_proc;

struct sinew__compiler {
  sinew_lang_t *L;
  bool expr_mode;
  expr_refs *refs;
  chunk *ch;
  local *locals;
  uint32_t nlocals, clocals;
  uint32_t depth;
  loop_ctx loops[64];
  uint32_t nloops;
  pending_proc *procs;
  uint32_t nprocs, cprocs;
  bool in_proc;
  uint8_t ret_kind;
  sinew_error_t *err;
  int status;
  uint32_t line;
};

typedef sinew__compiler comp;

static int cerr(comp *C, const ast *at, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int cerr(comp *C, const ast *at, int status, const char *fmt, ...) {
  if (C->status) return C->status;
  C->status = status;
  memset(C->err, 0, sizeof *C->err);
  C->err->code = status;
  C->err->line = at ? at->line : 0;
  C->err->column = at ? at->col : 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(C->err->reason, sizeof C->err->reason, fmt, ap);
  va_end(ap);
  return status;
}

static uint32_t emit(comp *C, uint8_t op, int32_t a, int32_t b, uint8_t b8) {
  chunk *ch = C->ch;
  if (C->status) return 0;
  if (sinew__grow((void **)&ch->code, &ch->cap, ch->n + 1, sizeof(insn))) {
    cerr(C, NULL, SINEW_ENOMEM, "out of memory");
    return 0;
  }
  insn *i = &ch->code[ch->n];
  i->op = op;
  i->a = a;
  i->b = b;
  i->b8 = b8;
  i->line = C->line;
  return ch->n++;
}

static uint32_t here(comp *C) { return C->ch->n; }
static void patch(comp *C, uint32_t at, uint32_t target) {
  if (!C->status) C->ch->code[at].a = (int32_t)target;
}

static int32_t add_const(comp *C, sinew_value_t v) {
  chunk *ch = C->ch;
  if (C->status || sinew__grow((void **)&ch->consts, &ch->cconsts, ch->nconsts + 1, sizeof v)) {
    lv_release(&v);
    if (!C->status) cerr(C, NULL, SINEW_ENOMEM, "out of memory");
    return 0;
  }
  ch->consts[ch->nconsts] = v;
  return (int32_t)ch->nconsts++;
}

static int32_t str_const(comp *C, const char *s, size_t n, bool word) {
  sinew_value_t v;
  if (sinew__str_new(s, n, &v)) {
    cerr(C, NULL, SINEW_ENOMEM, "out of memory");
    return 0;
  }
  v.word = word;
  return add_const(C, v);
}

/* ---- scopes ------------------------------------------------------------------------------------- */

static int32_t new_slot(comp *C, uint8_t kind) {
  chunk *ch = C->ch;
  uint32_t cap = ch->nlocals; /* local_kinds grows with nlocals */
  uint8_t *k = sinew_realloc(ch->local_kinds, (size_t)ch->nlocals + 1);
  (void)cap;
  if (!k) {
    cerr(C, NULL, SINEW_ENOMEM, "out of memory");
    return 0;
  }
  ch->local_kinds = k;
  k[ch->nlocals] = kind;
  return (int32_t)ch->nlocals++;
}

static local *find_local(comp *C, const char *name, size_t len) {
  for (uint32_t i = C->nlocals; i-- > 0;)
    if (C->locals[i].len == len && memcmp(C->locals[i].name, name, len) == 0) return &C->locals[i];
  return NULL;
}

static local *add_local(comp *C, const char *name, size_t len) {
  if (sinew__grow((void **)&C->locals, &C->clocals, C->nlocals + 1, sizeof(local))) {
    cerr(C, NULL, SINEW_ENOMEM, "out of memory");
    return NULL;
  }
  local *l = &C->locals[C->nlocals++];
  l->name = name;
  l->len = len;
  l->depth = C->depth;
  l->global = false;
  l->slot = -1;
  return l;
}

static void end_scope(comp *C) {
  while (C->nlocals && C->locals[C->nlocals - 1].depth >= C->depth) C->nlocals--;
  C->depth--;
}

static int global_slot(comp *C, const char *name, size_t len, uint8_t kind, int32_t *out) {
  sinew_lang_t *L = C->L;
  global_var *g = NULL;
  HASH_FIND(hh, L->globals, name, len, g);
  if (g) {
    *out = (int32_t)g->slot;
    return SINEW_OK;
  }
  g = sinew_calloc(1, sizeof *g);
  char *nm = sinew_malloc(len + 1);
  if (!g || !nm || sinew__grow((void **)&L->gvals, &L->cglobals, L->nglobals + 1, sizeof(sinew_value_t))) {
    sinew_free(g);
    sinew_free(nm);
    return SINEW_ENOMEM;
  }
  uint8_t *gk = sinew_realloc(L->gkinds, (size_t)L->cglobals);
  if (!gk) {
    sinew_free(g);
    sinew_free(nm);
    return SINEW_ENOMEM;
  }
  L->gkinds = gk;
  memcpy(nm, name, len);
  nm[len] = 0;
  g->name = nm;
  g->slot = L->nglobals;
  sinew__lang_oom = 0;
  HASH_ADD_KEYPTR(hh, L->globals, g->name, len, g);
  if (sinew__lang_oom) {
    sinew_free(nm);
    sinew_free(g);
    return SINEW_ENOMEM;
  }
  L->gvals[L->nglobals] = LV_NONE;
  L->gkinds[L->nglobals] = kind;
  L->nglobals++;
  *out = (int32_t)g->slot;
  return SINEW_OK;
}

/* ---- expressions --------------------------------------------------------------------------------- */

static void expression(comp *C, const ast *e);
static void statement(comp *C, const ast *s);

static int32_t ref_id(comp *C, const ast *a, bool *written);

static void load_var(comp *C, const ast *v) {
  local *l = find_local(C, v->v.str.s, v->v.str.len);
  if (!l) {
    cerr(C, v, SINEW_ESYNTAX, "undeclared variable $%s", v->v.str.s);
    return;
  }
  emit(C, l->global ? OPC_GLOAD : OPC_LOAD, l->slot, 0, 0);
}

/* The variable an assignment writes; declares it (implicitly typed) when new. */
static local *store_target(comp *C, const ast *v, bool declare) {
  local *l = find_local(C, v->v.str.s, v->v.str.len);
  if (!l && declare) {
    if (!(l = add_local(C, v->v.str.s, v->v.str.len))) return NULL;
    l->slot = new_slot(C, SINEW_VALUE_NONE);
  }
  if (!l) cerr(C, v, SINEW_ESYNTAX, "undeclared variable $%s", v->v.str.s);
  return l;
}

static void store_var(comp *C, const local *l) {
  emit(C, l->global ? OPC_GSTORE : OPC_STORE, l->slot, 0, 0);
}

static uint8_t binop_opcode(uint8_t op) {
  switch (op) {
    case OP_ADD: return OPC_ADD;
    case OP_SUB: return OPC_SUB;
    case OP_MUL: return OPC_MUL;
    case OP_DIV: return OPC_DIV;
    case OP_MOD: return OPC_MOD;
    case OP_CROSS: return OPC_CROSS;
    case OP_EQ: return OPC_EQ;
    case OP_NE: return OPC_NE;
    case OP_LT: return OPC_LT;
    case OP_LE: return OPC_LE;
    case OP_GT: return OPC_GT;
    case OP_GE: return OPC_GE;
    default: return OPC_NOP;
  }
}

/* Writes the value on the stack top into the lvalue (leaving it on the stack). idx_done: the
 * index of an A_INDEX target is already pushed below the value. */
static void store_lvalue(comp *C, const ast *lv) {
  if (lv->kind == A_VAR) {
    local *l = store_target(C, lv, true);
    if (l) store_var(C, l);
  } else if (lv->kind == A_ATTR) {
    bool written;
    int32_t id = ref_id(C, lv, &written);
    if (!written) {
      cerr(C, lv, SINEW_ESYNTAX, "cannot assign to input %s", lv->v.str.s);
      return;
    }
    emit(C, OPC_OUT, id, 0, 0);
  } else if (lv->kind == A_COMPONENT) {
    local *l = store_target(C, lv->a, false);
    if (l) emit(C, OPC_SETCOMP, l->slot, ((l->global ? 1 : 0) << 2) | (int32_t)lv->v.i, 0);
  }
}

/* value := target op value; for an A_INDEX target the index is evaluated here too. */
static void assign(comp *C, const ast *e) {
  const ast *lv = e->a;
  if (lv->kind == A_INDEX) {
    /* $a[i] = v  or  $m[r][c] = v */
    const ast *base = lv->a;
    int nidx = 1;
    if (base->kind == A_INDEX) {
      nidx = 2;
      base = base->a;
    }
    if (base->kind != A_VAR) {
      cerr(C, lv, SINEW_ESYNTAX, "cannot assign to this element");
      return;
    }
    /* $arr[$i] = v on an undeclared $arr declares it, an array of the value's type (the VM
     * makes it at the first store) */
    const local *found = store_target(C, base, nidx == 1 && e->op == OP_ASSIGN);
    if (!found) return;
    local kept = *found, *l = &kept; /* the index and value may declare variables and move the table */
    if (nidx == 2) expression(C, lv->a->b);
    expression(C, lv->b);
    if (e->op != OP_ASSIGN) {
      expression(C, lv);
      expression(C, e->b);
      emit(C, binop_opcode(e->op), 0, 0, 0);
    } else {
      expression(C, e->b);
    }
    emit(C, OPC_SETINDEX, l->slot, l->global ? 1 : 0, (uint8_t)nidx);
    return;
  }
  if (e->op != OP_ASSIGN) {
    expression(C, lv);
    expression(C, e->b);
    emit(C, binop_opcode(e->op), 0, 0, 0);
  } else {
    expression(C, e->b);
  }
  store_lvalue(C, lv);
}

/* $x++ / ++$x; postfix (e->flag) keeps the old value as the result unless keep_old is false
 * (the value is dropped: a statement, a for loop's step). */
static void incdec_value(comp *C, const ast *e, bool keep_old) {
  const ast *lv = e->a;
  uint8_t op = e->op == OP_INC ? OPC_ADD : OPC_SUB;
  if (lv->kind == A_INDEX) {
    ast fake = *e;
    ast one = {0};
    one.kind = A_INT;
    one.v.i = 1;
    fake.kind = A_ASSIGN;
    fake.op = e->op == OP_INC ? OP_ADD : OP_SUB;
    fake.b = &one;
    assign(C, &fake);
    return;
  }
  bool postfix = e->flag && keep_old;
  expression(C, lv);
  if (postfix) emit(C, OPC_DUP, 0, 0, 0);
  emit(C, OPC_INT, 1, 0, 0);
  emit(C, op, 0, 0, 0);
  store_lvalue(C, lv);
  if (postfix) emit(C, OPC_POP, 0, 0, 0);
}

static void incdec(comp *C, const ast *e) { incdec_value(C, e, true); }

/* An expression whose value is popped: `$i++;` needs no copy of the old value. */
static void discarded(comp *C, const ast *e) {
  if (e && e->kind == A_INCDEC && !C->status) {
    C->line = e->line;
    incdec_value(C, e, false);
  } else {
    expression(C, e);
  }
  emit(C, OPC_POP, 0, 0, 0);
}

static int find_pending(comp *C, const char *name) {
  for (uint32_t i = 0; i < C->nprocs; i++)
    if (strcmp(C->procs[i].def->name, name) == 0) return (int)i;
  return -1;
}

/* The procedure index for name (this program's definitions first), -1 when none. */
static int32_t proc_index(comp *C, const char *name, uint32_t *nparams) {
  int k = find_pending(C, name);
  if (k >= 0) {
    *nparams = C->procs[k].nparams;
    return (int32_t)C->procs[k].def->index;
  }
  proc_def *pd = NULL;
  HASH_FIND_STR(C->L->procs, name, pd);
  if (pd && pd->defined) {
    *nparams = pd->nparams;
    return (int32_t)pd->index;
  }
  return -1;
}

static void call_args(comp *C, const ast *args, bool flags_from_strings) {
  for (const ast *a = args; a && !C->status; a = a->next) {
    C->line = a->line;
    if (a->kind == A_FLAG) {
      emit(C, OPC_FLAG, str_const(C, a->v.str.s, a->v.str.len, false), 0, 0);
    } else if (a->kind == A_WORD) {
      emit(C, OPC_CONST, str_const(C, a->v.str.s, a->v.str.len, true), 0, 0);
    } else if (flags_from_strings && a->kind == A_STRING && a->v.str.len > 1 &&
               a->v.str.s[0] == '-' &&
               ((a->v.str.s[1] >= 'a' && a->v.str.s[1] <= 'z') ||
                (a->v.str.s[1] >= 'A' && a->v.str.s[1] <= 'Z'))) {
      emit(C, OPC_FLAG, str_const(C, a->v.str.s + 1, a->v.str.len - 1, false), 0, 0);
    } else {
      expression(C, a);
    }
  }
}

static int count_list(const ast *a) {
  int n = 0;
  for (; a; a = a->next) n++;
  return n;
}

/* A call in function syntax f(a, b) or command syntax f a b. */
static void call(comp *C, const ast *e, bool command_syntax) {
  const char *name = e->v.str.s;
  int argc = count_list(e->a);
  uint32_t line = e->line;
  uint32_t np;
  int32_t pi = C->expr_mode ? -1 : proc_index(C, name, &np);
  if (pi >= 0) {
    if ((uint32_t)argc != np) {
      cerr(C, e, SINEW_ESYNTAX, "%s takes %u argument%s, not %d", name, np, np == 1 ? "" : "s", argc);
      return;
    }
    call_args(C, e->a, false);
    C->line = line;
    emit(C, OPC_CALL, pi, argc, 0);
    return;
  }
  /* catch(expr) / catchQuiet(expr): 1 when evaluating expr failed (the script goes on), else 0 */
  bool quiet = strcmp(name, "catchQuiet") == 0;
  if (!C->expr_mode && (quiet || strcmp(name, "catch") == 0)) {
    if (argc != 1) {
      cerr(C, e, SINEW_ESYNTAX, "%s takes one argument, not %d", name, argc);
      return;
    }
    uint32_t t = emit(C, OPC_TRY, 0, 0, quiet);
    expression(C, e->a);
    C->line = line;
    emit(C, OPC_POP, 0, 0, 0);
    emit(C, OPC_ENDTRY, 0, 0, 0);
    emit(C, OPC_INT, 0, 0, 0);
    uint32_t j = emit(C, OPC_JMP, 0, 0, 0);
    patch(C, t, here(C));
    emit(C, OPC_INT, 1, 0, 0);
    patch(C, j, here(C));
    return;
  }
  int bi = sinew__builtin_find(name);
  if (bi >= 0 && C->expr_mode && !sinew__builtin(bi)->expr_ok) {
    cerr(C, e, SINEW_ESYNTAX, "%s cannot be used in an expression", name);
    return;
  }
  /* MEL's out-parameters: tokenize(s, [d,] $array) and clear($array) write the variable */
  bool tok = bi >= 0 && strcmp(name, "tokenize") == 0, clr = bi >= 0 && strcmp(name, "clear") == 0;
  if ((tok && (argc == 2 || argc == 3)) || (clr && argc == 1)) {
    const ast *last = e->a;
    while (last->next) last = last->next;
    if (last->kind != A_VAR) {
      cerr(C, last, SINEW_ESYNTAX, "%s needs an array variable as its last argument", name);
      return;
    }
    const local *found = store_target(C, last, !clr);
    if (!found) return;
    local kept = *found, *l = &kept; /* the arguments may declare variables and move the table */
    if (tok) {
      int k = 0;
      for (const ast *a = e->a; a != last; a = a->next, k++) expression(C, a);
      C->line = line;
      emit(C, OPC_BUILTIN, bi, k, 0);
    } else {
      expression(C, last);
      C->line = line;
      emit(C, OPC_BUILTIN, bi, 1, 0);
    }
    store_var(C, l);
    emit(C, OPC_BUILTIN, sinew__builtin_find("size"), 1, 0);
    return;
  }
  if (bi >= 0) {
    const builtin_def *bd = sinew__builtin(bi);
    if (argc < bd->min_args || (bd->max_args >= 0 && argc > bd->max_args)) {
      cerr(C, e, SINEW_ESYNTAX, "wrong number of arguments to %s (%d)", name, argc);
      return;
    }
    call_args(C, e->a, false);
    C->line = line;
    emit(C, OPC_BUILTIN, bi, argc, 0);
    return;
  }
  if (C->expr_mode) {
    cerr(C, e, SINEW_ESYNTAX, "unknown function %s", name);
    return;
  }
  call_args(C, e->a, !command_syntax);
  C->line = line;
  int32_t k = str_const(C, name, e->v.str.len, false);
  emit(C, OPC_CMD, k, argc, 0);
}

/* Attribute reference numbering (expression mode). */
static int32_t ref_id(comp *C, const ast *a, bool *written) {
  expr_refs *R = C->refs;
  *written = false;
  for (uint32_t i = 0; i < R->n; i++)
    if (strcmp(R->text[i], a->v.str.s) == 0) {
      *written = R->written[i];
      return R->id[i];
    }
  cerr(C, a, SINEW_ESYNTAX, "internal: unknown reference %s", a->v.str.s);
  return 0;
}

static void expression(comp *C, const ast *e) {
  if (C->status || !e) return;
  C->line = e->line;
  switch (e->kind) {
    case A_INT:
      if (e->v.i >= INT32_MIN && e->v.i <= INT32_MAX)
        emit(C, OPC_INT, (int32_t)e->v.i, 0, 0);
      else
        emit(C, OPC_CONST, add_const(C, lv_int(e->v.i)), 0, 0);
      break;
    case A_FLOAT: emit(C, OPC_CONST, add_const(C, lv_float(e->v.f)), 0, 0); break;
    case A_STRING: emit(C, OPC_CONST, str_const(C, e->v.str.s, e->v.str.len, false), 0, 0); break;
    case A_WORD: emit(C, OPC_CONST, str_const(C, e->v.str.s, e->v.str.len, true), 0, 0); break;
    case A_FLAG: emit(C, OPC_FLAG, str_const(C, e->v.str.s, e->v.str.len, false), 0, 0); break;
    case A_VECTOR: {
      int n = 0;
      for (const ast *x = e->a; x; x = x->next, n++) expression(C, x);
      C->line = e->line;
      if (e->op <= 1) {
        emit(C, OPC_VEC, 0, 0, 0);
      } else {
        if (n % e->op) {
          cerr(C, e, SINEW_ESYNTAX, "matrix rows differ in length");
          return;
        }
        emit(C, OPC_ARRAY, n, e->op, 1); /* b8 = 1: a matrix of b rows */
      }
      break;
    }
    case A_ARRAY: {
      int n = 0;
      for (const ast *x = e->a; x; x = x->next, n++) expression(C, x);
      C->line = e->line;
      emit(C, OPC_ARRAY, n, 0, 0);
      break;
    }
    case A_VAR: load_var(C, e); break;
    case A_INDEX:
      if (e->a->kind == A_INDEX) { /* $m[i][j] */
        expression(C, e->a->a);
        expression(C, e->a->b);
        expression(C, e->b);
        C->line = e->line;
        emit(C, OPC_INDEX2, 0, 0, 0);
        break;
      }
      expression(C, e->a);
      expression(C, e->b);
      C->line = e->line;
      emit(C, OPC_INDEX, 0, 0, 0);
      break;
    case A_COMPONENT:
      expression(C, e->a);
      emit(C, OPC_COMP, (int32_t)e->v.i, 0, 0);
      break;
    case A_ATTR: {
      bool written;
      int32_t id = ref_id(C, e, &written);
      emit(C, written ? OPC_OUTLOAD : OPC_IN, id, 0, 0);
      break;
    }
    case A_TIME: emit(C, OPC_TIME, 0, 0, 0); break;
    case A_FRAME: emit(C, OPC_FRAME, 0, 0, 0); break;
    case A_UNARY:
      expression(C, e->a);
      if (e->op == OP_NEG) emit(C, OPC_NEG, 0, 0, 0);
      else if (e->op == OP_NOT) emit(C, OPC_NOT, 0, 0, 0);
      break;
    case A_BINARY:
      expression(C, e->a);
      expression(C, e->b);
      C->line = e->line;
      emit(C, binop_opcode(e->op), 0, 0, 0);
      break;
    case A_LOGIC: {
      expression(C, e->a);
      emit(C, OPC_TRUTH, 0, 0, 0);
      uint32_t j = emit(C, e->op == OP_AND ? OPC_JFK : OPC_JTK, 0, 0, 0);
      expression(C, e->b);
      emit(C, OPC_TRUTH, 0, 0, 0);
      patch(C, j, here(C));
      break;
    }
    case A_TERNARY: {
      expression(C, e->a);
      uint32_t jf = emit(C, OPC_JF, 0, 0, 0);
      expression(C, e->b);
      uint32_t je = emit(C, OPC_JMP, 0, 0, 0);
      patch(C, jf, here(C));
      expression(C, e->c);
      patch(C, je, here(C));
      break;
    }
    case A_ASSIGN: assign(C, e); break;
    case A_INCDEC: incdec(C, e); break;
    case A_CALL: call(C, e, false); break;
    case A_CMD: call(C, e, true); break;
    case A_CAST:
      expression(C, e->a);
      emit(C, OPC_CAST, e->op, 0, 0);
      break;
    default: cerr(C, e, SINEW_ESYNTAX, "not an expression"); break;
  }
}

/* ---- statements ----------------------------------------------------------------------------------- */

static void push_jump(comp *C, uint32_t **list, uint32_t *n, uint32_t *cap, uint32_t at) {
  if (sinew__grow((void **)list, cap, *n + 1, sizeof(uint32_t))) {
    cerr(C, NULL, SINEW_ENOMEM, "out of memory");
    return;
  }
  (*list)[(*n)++] = at;
}

static loop_ctx *begin_loop(comp *C, bool is_switch, const ast *at) {
  if (C->nloops >= 64) {
    cerr(C, at, SINEW_ESYNTAX, "loops nested too deeply");
    return NULL;
  }
  loop_ctx *l = &C->loops[C->nloops++];
  memset(l, 0, sizeof *l);
  l->is_switch = is_switch;
  return l;
}

static void end_loop(comp *C, uint32_t cont_target, uint32_t break_target) {
  loop_ctx *l = &C->loops[--C->nloops];
  for (uint32_t i = 0; i < l->nbreaks; i++) patch(C, l->breaks[i], break_target);
  for (uint32_t i = 0; i < l->nconts; i++) patch(C, l->conts[i], cont_target);
  sinew_free(l->breaks);
  sinew_free(l->conts);
}

static void declare(comp *C, const ast *d) {
  uint8_t kind = d->op;
  if (d->is_array) kind = sinew__array_kind_of(kind);
  C->line = d->line;
  if (d->flag) { /* global */
    int32_t gs;
    if (!C->L) {
      cerr(C, d, SINEW_ESYNTAX, "global variables are not supported in expressions");
      return;
    }
    if (global_slot(C, d->v.str.s, d->v.str.len, kind, &gs)) {
      cerr(C, d, SINEW_ENOMEM, "out of memory");
      return;
    }
    local *l = add_local(C, d->v.str.s, d->v.str.len);
    if (!l) return;
    l->global = true;
    l->slot = gs;
    emit(C, OPC_GDECL, gs, 0, kind);
    if (d->a) {
      expression(C, d->a);
      emit(C, OPC_GSTORE, gs, 0, 0);
      emit(C, OPC_POP, 0, 0, 0);
    }
    return;
  }
  local *existing = find_local(C, d->v.str.s, d->v.str.len);
  local *l;
  if (existing && existing->depth == C->depth && !existing->global) {
    /* MEL allows declaring a variable again in the same scope with the same type: without a
     * value it keeps the one it has, with one it takes the new value. Another type is an
     * error. A variable declared implicitly takes the declared type. */
    l = existing;
    uint8_t old = C->ch->local_kinds[l->slot];
    if (old && old != kind) {
      cerr(C, d, SINEW_ESYNTAX, "$%s is already declared as %s in this scope; it cannot be declared again as %s",
           d->v.str.s, sinew_value_kind_name(old), sinew_value_kind_name(kind));
      return;
    }
    C->ch->local_kinds[l->slot] = kind;
    if (old == kind && !d->a) return;
  } else {
    if (!(l = add_local(C, d->v.str.s, d->v.str.len))) return;
    l->slot = new_slot(C, kind);
  }
  /* the slot, not l: the initializer may declare variables of its own ($a = $b = 1 with $b
   * new), which can move the table l points into */
  int32_t slot = l->slot;
  if (d->a && kind != SINEW_VALUE_MATRIX && !lv_is_array(kind)) {
    /* a scalar with a value: the store converts it to the declared kind */
    expression(C, d->a);
    C->line = d->line;
    emit(C, OPC_STORE, slot, 0, 0);
    emit(C, OPC_POP, 0, 0, 0);
    return;
  }
  /* size / matrix dimensions */
  int32_t d1 = d->b ? (int32_t)d->b->v.i : 0, d2 = d->c ? (int32_t)d->c->v.i : 0;
  if (kind == SINEW_VALUE_MATRIX) {
    emit(C, OPC_INT, d1, 0, 0);
    emit(C, OPC_INT, d2, 0, 0);
  } else {
    emit(C, OPC_INT, d1, 0, 0);
    emit(C, OPC_INT, 0, 0, 0);
  }
  /* In an expression a declaration without a value keeps the variable's value from the last
   * evaluation (b = 1). */
  emit(C, OPC_DECL, slot, C->expr_mode && !d->a ? 1 : 0, kind);
  if (d->a) {
    expression(C, d->a);
    emit(C, OPC_STORE, slot, 0, 0);
    emit(C, OPC_POP, 0, 0, 0);
  }
}

static void statements(comp *C, const ast *s) {
  for (; s && !C->status; s = s->next) statement(C, s);
}

static void statement(comp *C, const ast *s) {
  if (C->status) return;
  C->line = s->line;
  switch (s->kind) {
    case A_EMPTY: break;
    case A_EXPR_STMT:
      if (!C->in_proc && !C->expr_mode && C->depth == 0) {
        expression(C, s->a);
        C->line = s->line;
        emit(C, OPC_SETLAST, 0, 0, 0);
      } else {
        discarded(C, s->a);
      }
      break;
    case A_BLOCK:
      if (s->flag) { /* declaration list: same scope */
        for (const ast *d = s->a; d && !C->status; d = d->next) declare(C, d);
      } else {
        C->depth++;
        statements(C, s->a);
        end_scope(C);
      }
      break;
    case A_DECL: declare(C, s); break;
    case A_IF: {
      expression(C, s->a);
      uint32_t jf = emit(C, OPC_JF, 0, 0, 0);
      statement(C, s->b);
      if (s->c) {
        uint32_t je = emit(C, OPC_JMP, 0, 0, 0);
        patch(C, jf, here(C));
        statement(C, s->c);
        patch(C, je, here(C));
      } else {
        patch(C, jf, here(C));
      }
      break;
    }
    case A_WHILE: {
      uint32_t top = here(C);
      expression(C, s->a);
      uint32_t jf = emit(C, OPC_JF, 0, 0, 0);
      if (!begin_loop(C, false, s)) return;
      statement(C, s->b);
      emit(C, OPC_JMP, (int32_t)top, 0, 0);
      patch(C, jf, here(C));
      end_loop(C, top, here(C));
      break;
    }
    case A_DO: {
      uint32_t top = here(C);
      if (!begin_loop(C, false, s)) return;
      statement(C, s->b);
      uint32_t cond = here(C);
      expression(C, s->a);
      emit(C, OPC_JT, (int32_t)top, 0, 0);
      end_loop(C, cond, here(C));
      break;
    }
    case A_FOR: {
      for (const ast *x = s->a; x; x = x->next) discarded(C, x);
      uint32_t top = here(C), jf = UINT32_MAX;
      if (s->b) {
        expression(C, s->b);
        jf = emit(C, OPC_JF, 0, 0, 0);
      }
      if (!begin_loop(C, false, s)) return;
      statement(C, s->d);
      uint32_t cont = here(C);
      for (const ast *x = s->c; x; x = x->next) discarded(C, x);
      emit(C, OPC_JMP, (int32_t)top, 0, 0);
      if (jf != UINT32_MAX) patch(C, jf, here(C));
      end_loop(C, cont, here(C));
      break;
    }
    case A_FOR_IN: {
      int32_t arr = new_slot(C, SINEW_VALUE_NONE), idx = new_slot(C, SINEW_VALUE_INT);
      expression(C, s->b);
      emit(C, OPC_STORE, arr, 0, 0);
      emit(C, OPC_POP, 0, 0, 0);
      emit(C, OPC_INT, 0, 0, 0);
      emit(C, OPC_STORE, idx, 0, 0);
      emit(C, OPC_POP, 0, 0, 0);
      uint32_t top = here(C);
      emit(C, OPC_LOAD, idx, 0, 0);
      emit(C, OPC_LOAD, arr, 0, 0);
      emit(C, OPC_BUILTIN, sinew__builtin_find("size"), 1, 0);
      emit(C, OPC_LT, 0, 0, 0);
      uint32_t jf = emit(C, OPC_JF, 0, 0, 0);
      emit(C, OPC_LOAD, arr, 0, 0);
      emit(C, OPC_LOAD, idx, 0, 0);
      emit(C, OPC_INDEX, 0, 0, 0);
      local *l = store_target(C, s->a, true);
      if (!l) return;
      store_var(C, l);
      emit(C, OPC_POP, 0, 0, 0);
      if (!begin_loop(C, false, s)) return;
      statement(C, s->c);
      uint32_t cont = here(C);
      emit(C, OPC_LOAD, idx, 0, 0);
      emit(C, OPC_INT, 1, 0, 0);
      emit(C, OPC_ADD, 0, 0, 0);
      emit(C, OPC_STORE, idx, 0, 0);
      emit(C, OPC_POP, 0, 0, 0);
      emit(C, OPC_JMP, (int32_t)top, 0, 0);
      patch(C, jf, here(C));
      end_loop(C, cont, here(C));
      break;
    }
    case A_SWITCH: {
      C->depth++;
      int32_t tmp = new_slot(C, SINEW_VALUE_NONE);
      expression(C, s->a);
      emit(C, OPC_STORE, tmp, 0, 0);
      emit(C, OPC_POP, 0, 0, 0);
      /* the comparisons, then the bodies in order */
      uint32_t ncases = 0;
      for (const ast *x = s->b; x; x = x->next)
        if (x->kind == A_CASE) ncases++;
      uint32_t *jumps = sinew_calloc(ncases + 1, sizeof *jumps);
      if (!jumps) {
        cerr(C, s, SINEW_ENOMEM, "out of memory");
        return;
      }
      uint32_t k = 0, def_jump = UINT32_MAX;
      for (const ast *x = s->b; x; x = x->next) {
        if (x->kind != A_CASE) continue;
        if (x->flag) {
          jumps[k++] = UINT32_MAX;
          continue;
        }
        emit(C, OPC_LOAD, tmp, 0, 0);
        expression(C, x->a);
        emit(C, OPC_EQ, 0, 0, 0);
        jumps[k++] = emit(C, OPC_JT, 0, 0, 0);
      }
      def_jump = emit(C, OPC_JMP, 0, 0, 0);
      if (!begin_loop(C, true, s)) {
        sinew_free(jumps);
        return;
      }
      k = 0;
      bool has_default = false;
      for (const ast *x = s->b; x && !C->status; x = x->next) {
        if (x->kind == A_CASE) {
          if (x->flag) {
            patch(C, def_jump, here(C));
            has_default = true;
          } else {
            patch(C, jumps[k], here(C));
          }
          k++;
          continue;
        }
        statement(C, x);
      }
      if (!has_default) patch(C, def_jump, here(C));
      sinew_free(jumps);
      end_loop(C, here(C), here(C));
      end_scope(C);
      break;
    }
    case A_BREAK:
    case A_CONTINUE: {
      loop_ctx *l = NULL;
      for (uint32_t i = C->nloops; i-- > 0;) {
        if (s->kind == A_CONTINUE && C->loops[i].is_switch) continue;
        l = &C->loops[i];
        break;
      }
      if (!l) {
        cerr(C, s, SINEW_ESYNTAX, "%s outside a loop", s->kind == A_BREAK ? "break" : "continue");
        return;
      }
      uint32_t j = emit(C, OPC_JMP, 0, 0, 0);
      if (s->kind == A_BREAK)
        push_jump(C, &l->breaks, &l->nbreaks, &l->cbreaks, j);
      else
        push_jump(C, &l->conts, &l->nconts, &l->cconts, j);
      break;
    }
    case A_RETURN:
      if (C->expr_mode) {
        cerr(C, s, SINEW_ESYNTAX, "return is not allowed in an expression");
        return;
      }
      if (s->a) {
        expression(C, s->a);
        if (C->in_proc && C->ret_kind) emit(C, OPC_CAST, C->ret_kind, 0, 0);
        emit(C, OPC_RET, 0, 0, 0);
      } else {
        emit(C, OPC_RETNONE, 0, 0, 0);
      }
      break;
    case A_PROC:
      if (C->in_proc || C->depth > 0) cerr(C, s, SINEW_ESYNTAX, "procedures must be defined at the top level");
      break; /* compiled separately */
    default: cerr(C, s, SINEW_ESYNTAX, "unexpected statement"); break;
  }
}

/* ---- expression references ------------------------------------------------------------------------- */

static int refs_add(expr_refs *R, const char *text, bool written) {
  for (uint32_t i = 0; i < R->n; i++)
    if (strcmp(R->text[i], text) == 0) {
      R->written[i] |= written;
      return SINEW_OK;
    }
  if (R->n == R->cap) {
    uint32_t nc = R->cap ? R->cap * 2 : 8;
    char **t = sinew_realloc(R->text, nc * sizeof *t);
    if (!t) return SINEW_ENOMEM;
    R->text = t;
    bool *w = sinew_realloc(R->written, nc * sizeof *w);
    if (!w) return SINEW_ENOMEM;
    R->written = w;
    int32_t *id = sinew_realloc(R->id, nc * sizeof *id);
    if (!id) return SINEW_ENOMEM;
    R->id = id;
    R->cap = nc;
  }
  size_t n = strlen(text);
  char *d = sinew_malloc(n + 1);
  if (!d) return SINEW_ENOMEM;
  memcpy(d, text, n + 1);
  R->text[R->n] = d;
  R->written[R->n] = written;
  R->id[R->n] = -1;
  R->n++;
  return SINEW_OK;
}

static int collect_refs(comp *C, const ast *a);

static int collect_one(comp *C, const ast *a, bool written) {
  if (a->kind == A_ATTR) return refs_add(C->refs, a->v.str.s, written);
  if (a->kind == A_TIME || a->kind == A_FRAME) C->refs->uses_time = true;
  bool w = (a->kind == A_ASSIGN || a->kind == A_INCDEC) && a->a && a->a->kind == A_ATTR;
  if (a->a && (w ? collect_one(C, a->a, true) : collect_refs(C, a->a))) return SINEW_ENOMEM;
  if (a->b && collect_refs(C, a->b)) return SINEW_ENOMEM;
  if (a->c && collect_refs(C, a->c)) return SINEW_ENOMEM;
  if (a->d && collect_refs(C, a->d)) return SINEW_ENOMEM;
  return SINEW_OK;
}

/* Walks a list of siblings. */
static int collect_refs(comp *C, const ast *a) {
  for (; a; a = a->next)
    if (collect_one(C, a, false)) return SINEW_ENOMEM;
  return SINEW_OK;
}

/* The highest .I[n] / .O[n] an expression may use. Expressions have a handful of references,
 * and the node keeps a value per index up to the highest, so `.I[200000000]` in a file would
 * allocate gigabytes; past the limit the text is refused. */
#define MAX_REF_INDEX 65535

/* Is text `.I[n]` (io 'I') or `.O[n]`? 1 with *n set, 0 when it is another reference, -1 when
 * the index is above MAX_REF_INDEX. Digits only: no sign, no overflow. */
static int direct_ref(const char *text, char io, int32_t *n) {
  if (text[0] != '.' || text[1] != io || text[2] != '[' || !isdigit((unsigned char)text[3])) return 0;
  int64_t v = 0;
  const char *p = text + 3;
  for (; isdigit((unsigned char)*p); p++)
    if ((v = v * 10 + (*p - '0')) > MAX_REF_INDEX) v = MAX_REF_INDEX + 1; /* stays put: no overflow */
  if (p[0] != ']' || p[1]) return 0;
  if (v > MAX_REF_INDEX) return -1;
  *n = (int32_t)v;
  return 1;
}

/* Numbers the references: explicit .I[n] / .O[n] keep n; the others follow in order. */
static int number_refs(comp *C) {
  expr_refs *R = C->refs;
  int32_t max_in = -1, max_out = -1;
  for (uint32_t i = 0; i < R->n; i++) {
    int32_t n = 0;
    int in = direct_ref(R->text[i], 'I', &n), out = in ? 0 : direct_ref(R->text[i], 'O', &n);
    if (in < 0 || out < 0)
      return cerr(C, NULL, SINEW_ERANGE, "%s: the index is above the limit of %d", R->text[i], MAX_REF_INDEX);
    if (in) {
      if (R->written[i]) return cerr(C, NULL, SINEW_ESYNTAX, "cannot assign to input .I[%d]", n);
      R->id[i] = n;
      if (n > max_in) max_in = n;
    } else if (out) {
      R->written[i] = true;
      R->id[i] = n;
      if (n > max_out) max_out = n;
    }
  }
  for (uint32_t i = 0; i < R->n; i++) {
    if (R->id[i] >= 0) continue;
    R->id[i] = R->written[i] ? ++max_out : ++max_in;
  }
  R->nin = (uint32_t)(max_in + 1);
  R->nout = (uint32_t)(max_out + 1);
  return SINEW_OK;
}

/* ---- procedures and the program --------------------------------------------------------------------- */

static void pending_free(pending_proc *pp) {
  sinew__chunk_free(&pp->code);
  sinew_free(pp->param_kinds);
  if (pp->is_new) {
    sinew_free(pp->def->name);
    sinew_free(pp->def);
  }
}

static int declare_proc(comp *C, const ast *pr) {
  sinew_lang_t *L = C->L;
  char name[256];
  if (pr->v.str.len >= sizeof name) return cerr(C, pr, SINEW_ESYNTAX, "procedure name too long");
  memcpy(name, pr->v.str.s, pr->v.str.len);
  name[pr->v.str.len] = 0;
  if (find_pending(C, name) >= 0) return cerr(C, pr, SINEW_ESYNTAX, "procedure %s defined twice", name);
  if (sinew__builtin_find(name) >= 0)
    return cerr(C, pr, SINEW_ESYNTAX, "%s is a built-in function and cannot be redefined", name);
  if (sinew__grow((void **)&C->procs, &C->cprocs, C->nprocs + 1, sizeof(pending_proc)))
    return cerr(C, pr, SINEW_ENOMEM, "out of memory");
  pending_proc *pp = &C->procs[C->nprocs];
  memset(pp, 0, sizeof *pp);
  proc_def *pd = NULL;
  HASH_FIND_STR(L->procs, name, pd);
  if (!pd) {
    pd = sinew_calloc(1, sizeof *pd);
    if (!pd || !(pd->name = sinew_malloc(strlen(name) + 1))) {
      sinew_free(pd);
      return cerr(C, pr, SINEW_ENOMEM, "out of memory");
    }
    strcpy(pd->name, name);
    uint32_t new_before = 0;
    for (uint32_t i = 0; i < C->nprocs; i++) new_before += C->procs[i].is_new;
    pd->index = L->nprocs + new_before;
    pp->is_new = true;
  }
  pp->def = pd;
  pp->node = pr;
  pp->nparams = (uint32_t)pr->count;
  pp->ret_kind = pr->op;
  if (pp->nparams) {
    pp->param_kinds = sinew_malloc(pp->nparams);
    if (!pp->param_kinds) {
      pending_free(pp);
      return cerr(C, pr, SINEW_ENOMEM, "out of memory");
    }
    uint32_t k = 0;
    for (const ast *d = pr->a; d; d = d->next) pp->param_kinds[k++] = d->op;
  }
  C->nprocs++;
  return SINEW_OK;
}

static int compile_proc(comp *C, pending_proc *pp) {
  const ast *pr = pp->node;
  chunk *saved = C->ch;
  C->ch = &pp->code;
  C->in_proc = true;
  C->ret_kind = pp->ret_kind;
  C->depth = 1;
  uint32_t saved_n = C->nlocals;
  for (const ast *d = pr->a; d; d = d->next) {
    local *l = add_local(C, d->v.str.s, d->v.str.len);
    if (!l) break;
    l->slot = new_slot(C, d->op);
  }
  statements(C, pr->b->a);
  C->line = pr->line;
  emit(C, OPC_RETNONE, 0, 0, 0);
  C->nlocals = saved_n;
  C->depth = 0;
  C->in_proc = false;
  C->ch = saved;
  return C->status;
}

/* Commits this program's procedures to the language, all or nothing: room is made and the new
 * names are added to the table first (undone on failure); what follows cannot fail. */
static int commit_procs(comp *C) {
  sinew_lang_t *L = C->L;
  uint32_t nnew = 0;
  for (uint32_t i = 0; i < C->nprocs; i++) nnew += C->procs[i].is_new;
  uint32_t nold = C->nprocs - nnew;
  if (sinew__grow((void **)&L->proc_list, &L->cprocs, L->nprocs + nnew, sizeof(proc_def *)) ||
      sinew__grow((void **)&L->retired, &L->cretired, L->nretired + nold, sizeof(chunk *)))
    return cerr(C, NULL, SINEW_ENOMEM, "out of memory");
  /* each procedure remembers the script that defined it (whatIs) */
  const char *src = L->compiling && strcmp(L->compiling, "eval") != 0 ? L->compiling : NULL;
  char **files = sinew_calloc(C->nprocs ? C->nprocs : 1, sizeof(char *));
  if (!files) return cerr(C, NULL, SINEW_ENOMEM, "out of memory");
  for (uint32_t i = 0; src && i < C->nprocs; i++)
    if (!(files[i] = sinew_malloc(strlen(src) + 1))) {
      for (uint32_t k = 0; k < i; k++) sinew_free(files[k]);
      sinew_free(files);
      return cerr(C, NULL, SINEW_ENOMEM, "out of memory");
    } else {
      strcpy(files[i], src);
    }
  chunk **olds = sinew_calloc(nold ? nold : 1, sizeof(chunk *));
  if (!olds) {
    for (uint32_t k = 0; k < C->nprocs; k++) sinew_free(files[k]);
    sinew_free(files);
    return cerr(C, NULL, SINEW_ENOMEM, "out of memory");
  }
  for (uint32_t i = 0; i < nold; i++)
    if (!(olds[i] = sinew_malloc(sizeof(chunk)))) {
      for (uint32_t k = 0; k < i; k++) sinew_free(olds[k]);
      sinew_free(olds);
      for (uint32_t k = 0; k < C->nprocs; k++) sinew_free(files[k]);
      sinew_free(files);
      return cerr(C, NULL, SINEW_ENOMEM, "out of memory");
    }
  for (uint32_t i = 0; i < C->nprocs; i++) {
    pending_proc *pp = &C->procs[i];
    if (!pp->is_new) continue;
    sinew__lang_oom = 0;
    HASH_ADD_KEYPTR(hh, L->procs, pp->def->name, strlen(pp->def->name), pp->def);
    if (sinew__lang_oom) { /* uthash left this one out: take the earlier ones back out */
      for (uint32_t k = 0; k < i; k++)
        if (C->procs[k].is_new) HASH_DEL(L->procs, C->procs[k].def);
      for (uint32_t k = 0; k < nold; k++) sinew_free(olds[k]);
      sinew_free(olds);
      for (uint32_t k = 0; k < C->nprocs; k++) sinew_free(files[k]);
      sinew_free(files);
      return cerr(C, NULL, SINEW_ENOMEM, "out of memory");
    }
  }
  uint32_t kold = 0;
  for (uint32_t i = 0; i < C->nprocs; i++) {
    pending_proc *pp = &C->procs[i];
    if (pp->is_new) {
      L->proc_list[pp->def->index] = pp->def;
      L->nprocs++;
      pp->is_new = false;
    } else {
      /* a frame of an outer run may be executing the old body: retire it, don't free it */
      chunk *old = olds[kold++];
      *old = pp->def->code;
      L->retired[L->nretired++] = old;
      sinew_free(pp->def->param_kinds);
    }
    pp->def->code = pp->code;
    pp->def->nparams = pp->nparams;
    pp->def->param_kinds = pp->param_kinds;
    pp->def->ret_kind = pp->ret_kind;
    pp->def->defined = true;
    sinew_free(pp->def->file);
    pp->def->file = files[i];
    memset(&pp->code, 0, sizeof pp->code);
    pp->param_kinds = NULL;
  }
  sinew_free(olds);
  sinew_free(files);
  return SINEW_OK;
}

void sinew__chunk_free(chunk *c) {
  for (uint32_t i = 0; i < c->nconsts; i++) lv_release(&c->consts[i]);
  sinew_free(c->consts);
  sinew_free(c->code);
  sinew_free(c->local_kinds);
  memset(c, 0, sizeof *c);
}

int sinew__compile(sinew_lang_t *L, ast *prog, bool expr_mode, expr_refs *refs, chunk *main,
                   sinew_error_t *err) {
  comp C;
  memset(&C, 0, sizeof C);
  C.L = L;
  C.expr_mode = expr_mode;
  C.refs = refs;
  C.ch = main;
  C.err = err;
  if (expr_mode && refs) {
    if (collect_refs(&C, prog)) cerr(&C, NULL, SINEW_ENOMEM, "out of memory");
    if (!C.status) number_refs(&C);
  }
  if (!expr_mode)
    for (const ast *s = prog; s && !C.status; s = s->next)
      if (s->kind == A_PROC) declare_proc(&C, s);
  for (uint32_t i = 0; i < C.nprocs && !C.status; i++) compile_proc(&C, &C.procs[i]);
  if (!C.status) {
    statements(&C, prog);
    emit(&C, OPC_HALT, 0, 0, 0);
  }
  if (!C.status && L) commit_procs(&C);
  for (uint32_t i = 0; i < C.nprocs; i++) pending_free(&C.procs[i]);
  sinew_free(C.procs);
  sinew_free(C.locals);
  for (uint32_t i = 0; i < C.nloops; i++) {
    sinew_free(C.loops[i].breaks);
    sinew_free(C.loops[i].conts);
  }
  return C.status;
}
