/* lang/typed.c: translates an expression's stack bytecode into the typed VM's register code
 * (lang/vm.c runs it; docs/lang.md).
 *
 * One pass over the bytecode follows the stack symbolically: each entry's type (int, float or
 * vector), where its value is (its own place on the stack, a variable, a constant, an input) and
 * whether it is a known constant. Every operator then becomes the one instruction the generic
 * loop would pick at run time for those types, and operators on constants are computed here
 * (constant folding, by running the instruction once, so the rules stay in one place). Loads
 * cost nothing: an operand reads the variable's cell directly (a variable about to be written is
 * first copied out of any entry still reading it).
 *
 * Anything else (strings, arrays, matrices, commands, a value whose type differs between two
 * paths into one place) leaves the expression to the generic VM. */
#include <string.h>

#include "lang/lang_internal.h"

#define MAX_DEPTH 64
#define TMP (1 << 30) /* an operand in the temporaries, numbered from their base */
#define NO 1          /* not translatable (the status) */

typedef struct sent {
  uint8_t kind;  /* SINEW_VALUE_INT, _FLOAT or _VECTOR */
  bool is_const; /* cv holds the value */
  int32_t cell;  /* where the value is now; -1: a constant without a cell yet */
  int32_t home;  /* its own place: TMP | offset */
  tcell cv[16];
} sent;

typedef struct label {
  int32_t sp; /* -1: no path has reached it yet */
  uint8_t kinds[MAX_DEPTH];
} label;

typedef struct fixup {
  uint32_t at, target_pc;
} fixup;

typedef struct tc {
  const chunk *ch;
  tprog *P;
  sent st[MAX_DEPTH];
  uint32_t sp;
  uint32_t ntmp;    /* temporaries needed */
  uint32_t scratch; /* temporaries used above the stack by the current instruction */
  label *labels;    /* per bytecode instruction (only jump targets are used) */
  bool *target;
  uint32_t *map;    /* bytecode instruction -> typed instruction */
  fixup *fix;
  uint32_t nfix, cfix;
  uint32_t barrier; /* instructions before this one are not retargeted (a label is between) */
  int32_t *consts;  /* cells holding constants, each once: cell, width, cell, width... */
  uint32_t nconsts, cconsts;
  uint32_t line;
  int status;
} tc;

static uint32_t width(uint8_t kind) {
  return kind == SINEW_VALUE_VECTOR ? 3 : kind == SINEW_VALUE_MATRIX ? 16 : 1;
}
static bool numeric(uint8_t kind) {
  return kind == SINEW_VALUE_INT || kind == SINEW_VALUE_FLOAT || kind == SINEW_VALUE_VECTOR;
}
/* what a variable may hold here: a number, a vector, a 4x4 matrix */
static bool typed_kind(uint8_t kind) { return numeric(kind) || kind == SINEW_VALUE_MATRIX; }
static uint8_t mov_op(uint8_t kind) {
  return kind == SINEW_VALUE_VECTOR ? T_MOVV : kind == SINEW_VALUE_MATRIX ? T_MOVM : T_MOV;
}

static void no(tc *T) {
  if (!T->status) T->status = NO;
}

static uint32_t emit(tc *T, uint8_t op, int32_t d, int32_t a, int32_t b, int32_t c) {
  tprog *P = T->P;
  if (T->status) return 0;
  if (sinew__grow((void **)&P->code, &P->cap, P->n + 1, sizeof(tinsn))) {
    T->status = SINEW_ENOMEM;
    return 0;
  }
  tinsn *t = &P->code[P->n];
  memset(t, 0, sizeof *t);
  t->op = op;
  t->d = d;
  t->a = a;
  t->b = b;
  t->c = c;
  t->line = T->line;
  return P->n++;
}

/* n new cells (zero) */
static int32_t add_cells(tc *T, uint32_t n) {
  tprog *P = T->P;
  if (T->status) return 0;
  if (sinew__grow((void **)&P->init, &P->ccells, P->ncells + n, sizeof(tcell))) {
    T->status = SINEW_ENOMEM;
    return 0;
  }
  memset(&P->init[P->ncells], 0, n * sizeof(tcell));
  P->ncells += n;
  return (int32_t)(P->ncells - n);
}

/* ---- the symbolic stack ------------------------------------------------------------------------- */

static uint32_t top_offset(const tc *T) {
  if (!T->sp) return 0;
  const sent *e = &T->st[T->sp - 1];
  return (uint32_t)(e->home & ~TMP) + width(e->kind);
}

static void need_tmp(tc *T, uint32_t upto) {
  if (upto > T->ntmp) T->ntmp = upto;
}

static sent *push(tc *T, uint8_t kind) {
  if (T->sp >= MAX_DEPTH) {
    no(T);
    return NULL;
  }
  uint32_t off = top_offset(T);
  sent *e = &T->st[T->sp++];
  memset(e, 0, sizeof *e);
  e->kind = kind;
  e->home = (int32_t)(TMP | off);
  e->cell = e->home;
  need_tmp(T, off + width(kind));
  return e;
}

static sent *push_const(tc *T, uint8_t kind, const tcell *v) {
  sent *e = push(T, kind);
  if (!e) return NULL;
  e->is_const = true;
  e->cell = -1;
  memcpy(e->cv, v, width(kind) * sizeof(tcell));
  return e;
}

/* Cells above the stack for the current instruction's conversions. */
static int32_t scratch(tc *T, uint8_t kind) {
  uint32_t off = top_offset(T) + T->scratch;
  T->scratch += width(kind);
  need_tmp(T, off + width(kind));
  return (int32_t)(TMP | off);
}

static int32_t cell_of(tc *T, sent *e) {
  if (e->cell < 0) {
    uint32_t w = width(e->kind);
    for (uint32_t i = 0; i < T->nconsts; i += 2) { /* the same constant already has cells */
      int32_t c = T->consts[i];
      if ((uint32_t)T->consts[i + 1] == w && memcmp(&T->P->init[c], e->cv, w * sizeof(tcell)) == 0)
        return e->cell = c;
    }
    e->cell = add_cells(T, w);
    if (T->status) return e->cell;
    memcpy(&T->P->init[e->cell], e->cv, w * sizeof(tcell));
    if (sinew__grow((void **)&T->consts, &T->cconsts, T->nconsts + 2, sizeof(int32_t))) {
      T->status = SINEW_ENOMEM;
    } else {
      T->consts[T->nconsts++] = e->cell;
      T->consts[T->nconsts++] = (int32_t)w;
    }
  }
  return e->cell;
}

/* The width of the constant whose cells start at cell, -1 when cell holds no constant. */
static int32_t const_width(const tc *T, int32_t cell) {
  for (uint32_t i = 0; i < T->nconsts; i += 2)
    if (T->consts[i] == cell) return T->consts[i + 1];
  return -1;
}

static void materialize(tc *T, sent *e) {
  int32_t c = cell_of(T, e);
  if (c == e->home) return;
  emit(T, mov_op(e->kind), e->home, c, 0, 0);
  e->cell = e->home;
}

static void materialize_all(tc *T) {
  for (uint32_t i = 0; i < T->sp; i++) materialize(T, &T->st[i]);
}

/* Before cells [lo, lo + n) are written: entries still reading them get their own copy. */
static void unalias(tc *T, int32_t lo, uint32_t n) {
  for (uint32_t i = 0; i < T->sp; i++) {
    sent *e = &T->st[i];
    if (e->cell >= 0 && e->cell < lo + (int32_t)n && e->cell + (int32_t)width(e->kind) > lo)
      materialize(T, e);
  }
}

/* ---- constant folding ------------------------------------------------------------------------------ */

/* Runs instruction t (operands in cells 0..8 from in, result in 9..11) once; false when it
 * faulted (the fault is left to run time). */
static bool fold(tinsn t, const tcell in[9], tcell out[3]) {
  tcell R[14];
  memset(R, 0, sizeof R);
  memcpy(R, in, 9 * sizeof(tcell));
  tinsn code[2];
  memset(code, 0, sizeof code);
  code[0] = t;
  code[0].d = 9;
  code[1].op = T_HALT;
  tprog P;
  memset(&P, 0, sizeof P);
  P.code = code;
  P.n = 2;
  P.ncells = 14;
  P.time_cell = 12;
  P.frame_cell = 13;
  sinew_expr_io_t io;
  memset(&io, 0, sizeof io);
  vm_expr_ctx ex;
  memset(&ex, 0, sizeof ex);
  ex.io = &io;
  ex.bounds.steps_left = UINT64_MAX;
  if (sinew__typed_run(&P, R, &ex) || ex.faults) return false;
  memcpy(out, &R[9], 3 * sizeof(tcell));
  return true;
}

/* ---- conversions ------------------------------------------------------------------------------------ */

/* The instructions that write src (kind from) converted to kind to into dst: MEL's conversions
 * (sinew__convert): float -> int truncates, a vector -> number is its magnitude, a number ->
 * vector fills all three. */
static void conv_into(tc *T, int32_t dst, int32_t src, uint8_t from, uint8_t to) {
  if (from == to) {
    if (dst != src) emit(T, mov_op(to), dst, src, 0, 0);
    return;
  }
  switch (to) {
    case SINEW_VALUE_FLOAT: emit(T, from == SINEW_VALUE_INT ? T_I2F : T_V2F, dst, src, 0, 0); break;
    case SINEW_VALUE_INT:
      if (from == SINEW_VALUE_VECTOR) {
        emit(T, T_V2F, dst, src, 0, 0);
        emit(T, T_F2I, dst, dst, 0, 0);
      } else {
        emit(T, T_F2I, dst, src, 0, 0);
      }
      break;
    default: emit(T, from == SINEW_VALUE_INT ? T_I2V : T_F2V, dst, src, 0, 0); break;
  }
}

/* The value of e converted to kind to, as a constant when e is one. */
static void const_conv(const sent *e, uint8_t to, tcell out[3]) {
  tcell in[9];
  memset(in, 0, sizeof in);
  memcpy(in, e->cv, width(e->kind) * sizeof(tcell));
  if (e->kind == to) {
    memcpy(out, in, 3 * sizeof(tcell));
    return;
  }
  tinsn t;
  memset(&t, 0, sizeof t);
  if (to == SINEW_VALUE_INT && e->kind == SINEW_VALUE_VECTOR) {
    t.op = T_V2F;
    fold(t, in, out);
    in[0] = out[0];
    t.op = T_F2I;
  } else {
    t.op = to == SINEW_VALUE_FLOAT ? (e->kind == SINEW_VALUE_INT ? T_I2F : T_V2F)
           : to == SINEW_VALUE_INT ? T_F2I
                                   : (e->kind == SINEW_VALUE_INT ? T_I2V : T_F2V);
  }
  fold(t, in, out); /* conversions do not fault */
}

/* An operand of the current instruction as kind to: its cell, or a scratch cell holding the
 * converted value. Constants are converted here. */
static int32_t operand(tc *T, sent *e, uint8_t to) {
  if (e->kind == to) return cell_of(T, e);
  if (e->is_const) {
    sent c = *e;
    const_conv(e, to, c.cv);
    c.kind = to;
    c.cell = -1;
    return cell_of(T, &c);
  }
  int32_t s = scratch(T, to);
  conv_into(T, s, cell_of(T, e), e->kind, to);
  return s;
}

/* ---- operators ----------------------------------------------------------------------------------------- */

/* The cells an instruction reads and writes: widths of d, a, b, c (3 for a vector); *writes
 * false when it writes no cell. */
static void shape(uint8_t op, uint32_t w[4], bool *writes) {
  w[0] = w[1] = w[2] = w[3] = 1;
  *writes = !(op == T_HALT || op == T_OUT || (op >= T_JMP && op <= T_JNZF) || op == T_JCI || op == T_JCF);
  switch (op) {
    case T_MOVV: case T_NEGV: case T_ADDVF: case T_SUBVF: case T_MULVF: case T_DIVVF:
      w[0] = w[1] = 3;
      break;
    case T_MOVM: w[0] = w[1] = 16; break;
    case T_V2F: case T_TRUTHV: case T_NOTV: w[1] = 3; break;
    case T_F2V: case T_I2V: case T_VEC3: w[0] = 3; break;
    case T_ADDV: case T_SUBV: case T_MULV: case T_DIVV: case T_MODV: case T_CROSSV:
      w[0] = w[1] = w[2] = 3;
      break;
    case T_DOTV: case T_EQV: case T_NEV: case T_LTV: case T_LEV: case T_GTV: case T_GEV:
      w[1] = w[2] = 3;
      break;
    default: break;
  }
}

static bool overlap(int32_t x, uint32_t wx, int32_t y, uint32_t wy) {
  return x < y + (int32_t)wy && y < x + (int32_t)wx;
}

/* Is x an instruction of this block that already ran with the same operands and result cell,
 * nothing having written those cells since? Then its result is still there (a formula
 * repeated in the text: `1 + bulge * $a` for two outputs). Instructions that can fault, or read
 * what an output assignment changes, are always run. */
static bool redundant(tc *T, const tinsn *x) {
  static const uint8_t impure[] = {T_DIVF, T_MODF, T_DIVI, T_MODI, T_DIVV, T_MODV, T_DIVVF,
                                   T_CALL, T_CALL1, T_OUTLOAD};
  for (size_t k = 0; k < sizeof impure; k++)
    if (x->op == impure[k]) return false;
  uint32_t w[4];
  bool writes;
  shape(x->op, w, &writes);
  const int32_t cells[4] = {x->d, x->a, x->b, x->c};
  for (int k = 1; k < 4; k++) /* it reads what it writes: running it again changes the value */
    if (overlap(x->d, w[0], cells[k], w[k])) return false;
  const tprog *P = T->P;
  for (uint32_t i = P->n, seen = 0; i-- > T->barrier && seen < 32; seen++) {
    const tinsn *y = &P->code[i];
    if (y->op == x->op && y->d == x->d && y->a == x->a && y->b == x->b && y->c == x->c &&
        y->n == x->n && y->fn == x->fn)
      return true;
    uint32_t wy[4];
    bool ywrites;
    shape(y->op, wy, &ywrites);
    if (y->op == T_HALT || (!ywrites && y->op != T_OUT)) return false; /* a jump ends the block */
    if (!ywrites) continue;
    for (int k = 0; k < 4; k++)
      if (overlap(y->d, wy[0], cells[k], w[k])) return false;
  }
  return false;
}

/* Replaces the n operands on the stack top with the result of op (kind rk) on cells a, b, c,
 * folded when every operand is a constant. */
static void result(tc *T, uint32_t n, uint8_t op, uint8_t rk, int32_t a, int32_t b, int32_t c,
                   uint8_t nargs, builtin_scalar_fn fn) {
  bool all_const = true;
  for (uint32_t i = T->sp - n; i < T->sp; i++) all_const &= T->st[i].is_const;
  if (all_const && !T->status) {
    tcell in[9], out[3];
    memset(in, 0, sizeof in);
    tinsn t;
    memset(&t, 0, sizeof t);
    t.op = op;
    t.n = nargs;
    t.fn = fn;
    /* the operands' values: each operand a constant's cells (or unused, 0) */
    const int32_t cells[3] = {a, b, c};
    bool consts = true;
    for (int k = 0; k < 3 && k < (int)n; k++) {
      int32_t w = const_width(T, cells[k]);
      if (w < 0) consts = false;
      else memcpy(&in[3 * k], &T->P->init[cells[k]], (size_t)w * sizeof(tcell));
    }
    t.a = 0;
    t.b = 3;
    t.c = 6;
    if (consts && fold(t, in, out)) {
      T->sp -= n;
      push_const(T, rk, out);
      return;
    }
  }
  T->sp -= n;
  sent *r = push(T, rk);
  if (!r) return;
  if (op == T_CALL && nargs == 1) op = T_CALL1;
  tinsn x;
  memset(&x, 0, sizeof x);
  x.op = op;
  x.n = nargs;
  x.fn = fn;
  x.d = r->home;
  x.a = a;
  x.b = b;
  x.c = c;
  if (redundant(T, &x)) return;
  uint32_t at = emit(T, op, r->home, a, b, c);
  if (!T->status) {
    T->P->code[at].n = nargs;
    T->P->code[at].fn = fn;
  }
}

static void unary(tc *T, uint8_t opc) {
  sent *e = &T->st[T->sp - 1];
  uint8_t k = e->kind;
  uint8_t op;
  uint8_t rk = SINEW_VALUE_INT;
  switch (opc) {
    case OPC_NEG:
      op = k == SINEW_VALUE_INT ? T_NEGI : k == SINEW_VALUE_FLOAT ? T_NEGF : T_NEGV;
      rk = k;
      break;
    case OPC_NOT: op = k == SINEW_VALUE_INT ? T_NOTI : k == SINEW_VALUE_FLOAT ? T_NOTF : T_NOTV; break;
    default: op = k == SINEW_VALUE_INT ? T_TRUTHI : k == SINEW_VALUE_FLOAT ? T_TRUTHF : T_TRUTHV; break;
  }
  result(T, 1, op, rk, cell_of(T, e), 0, 0, 0, NULL);
}

/* When the instruction just emitted is the MULF that put e's value in its own place (read there,
 * at cell, by the instruction being made) and nothing else on the stack reads that place: takes
 * it back into *mul, for the caller to fuse with the sum that uses it. */
static bool take_product(tc *T, const sent *e, int32_t cell, tinsn *mul) {
  tprog *P = T->P;
  if (T->status || P->n <= T->barrier || e->is_const || e->kind != SINEW_VALUE_FLOAT ||
      e->cell != e->home || cell != e->home)
    return false;
  const tinsn *last = &P->code[P->n - 1];
  if (last->op != T_MULF || last->d != e->home) return false;
  for (uint32_t i = 0; i < T->sp; i++) {
    const sent *o = &T->st[i];
    if (o != e && o->cell >= 0 && overlap(o->cell, width(o->kind), e->home, 1)) return false;
  }
  *mul = *last;
  P->n--;
  return true;
}

/* a op b with MEL's rules (binop and compare in lang/vm.c): int op int stays int, a float makes
 * float, a vector makes vector (vector * vector is the dot product, ^ the cross product);
 * comparisons give ints. */
static void binary(tc *T, uint8_t opc) {
  sent *x = &T->st[T->sp - 2], *y = &T->st[T->sp - 1];
  bool vec = x->kind == SINEW_VALUE_VECTOR || y->kind == SINEW_VALUE_VECTOR;
  bool ints = x->kind == SINEW_VALUE_INT && y->kind == SINEW_VALUE_INT;
  uint8_t k = vec ? SINEW_VALUE_VECTOR : ints ? SINEW_VALUE_INT : SINEW_VALUE_FLOAT;
  uint8_t op, rk = k;
  if (opc >= OPC_EQ && opc <= OPC_GE) {
    static const uint8_t base[3] = {T_EQI, T_EQF, T_EQV};
    op = (uint8_t)(base[vec ? 2 : ints ? 0 : 1] + (opc - OPC_EQ));
    rk = SINEW_VALUE_INT;
  } else if (opc == OPC_CROSS) {
    if (!vec) { /* an error at run time: the generic VM reports it */
      no(T);
      return;
    }
    op = T_CROSSV;
  } else if (vec && opc == OPC_MUL && x->kind == SINEW_VALUE_VECTOR && y->kind == SINEW_VALUE_VECTOR) {
    op = T_DOTV;
    rk = SINEW_VALUE_FLOAT;
  } else if (x->kind == SINEW_VALUE_VECTOR && y->kind != SINEW_VALUE_VECTOR && opc <= OPC_DIV) {
    /* a vector with a number: the number as a float, not filled into a vector first */
    static const uint8_t vf[4] = {T_ADDVF, T_SUBVF, T_MULVF, T_DIVVF};
    T->scratch = 0;
    int32_t a = cell_of(T, x), b = operand(T, y, SINEW_VALUE_FLOAT);
    result(T, 2, vf[opc - OPC_ADD], SINEW_VALUE_VECTOR, a, b, 0, 0, NULL);
    return;
  } else {
    static const uint8_t base[3] = {T_ADDI, T_ADDF, T_ADDV};
    op = (uint8_t)(base[vec ? 2 : ints ? 0 : 1] + (opc - OPC_ADD));
  }
  T->scratch = 0;
  int32_t a = operand(T, x, k), b = operand(T, y, k);
  tinsn mul;
  if (op == T_ADDF || op == T_SUBF) { /* a product just computed, summed: one instruction */
    if (take_product(T, y, b, &mul)) {
      result(T, 2, op == T_ADDF ? T_ADDMULF : T_SUBMULF, rk, mul.a, mul.b, a, 0, NULL);
      return;
    }
    if (take_product(T, x, a, &mul)) {
      result(T, 2, op == T_ADDF ? T_MULADDF : T_MULSUBF, rk, mul.a, mul.b, b, 0, NULL);
      return;
    }
  }
  result(T, 2, op, rk, a, b, 0, 0, NULL);
}

/* ---- labels and jumps ----------------------------------------------------------------------------------- */

/* The stack as a path arrives at bytecode instruction pc: recorded by the first path, the
 * same types required of the others (every entry in its own place). */
static void arrive(tc *T, uint32_t pc) {
  label *l = &T->labels[pc];
  if (l->sp < 0) {
    l->sp = (int32_t)T->sp;
    for (uint32_t i = 0; i < T->sp; i++) l->kinds[i] = T->st[i].kind;
    return;
  }
  if ((uint32_t)l->sp != T->sp) {
    no(T);
    return;
  }
  for (uint32_t i = 0; i < T->sp; i++)
    if (l->kinds[i] != T->st[i].kind) no(T);
}

static void jump(tc *T, uint8_t op, int32_t cond, const tinsn *fused, uint32_t pc, uint32_t target) {
  materialize_all(T);
  if (target >= T->ch->n) {
    no(T);
    return;
  }
  arrive(T, target);
  uint32_t at = emit(T, op, 0, cond, 0, 0);
  if (T->status) return;
  if (fused) { /* the comparison the condition came from, and what to jump on */
    T->P->code[at].a = fused->a;
    T->P->code[at].b = fused->b;
    T->P->code[at].c = fused->c;
  }
  if (target <= pc) { /* back: a loop iteration, counted as a step */
    T->P->code[at].d = (int32_t)T->map[target];
    T->P->code[at].n = 1;
    return;
  }
  if (sinew__grow((void **)&T->fix, &T->cfix, T->nfix + 1, sizeof(fixup))) {
    T->status = SINEW_ENOMEM;
    return;
  }
  T->fix[T->nfix++] = (fixup){at, target};
}

/* A conditional jump on the value on top (popped first): JF when jump_if is false. */
static void branch(tc *T, uint32_t pc, uint32_t target, bool jump_if, bool keep) {
  sent *e = &T->st[T->sp - 1];
  uint8_t op;
  int32_t c;
  T->scratch = 0;
  if (e->kind == SINEW_VALUE_VECTOR) {
    c = scratch(T, SINEW_VALUE_INT);
    emit(T, T_TRUTHV, c, cell_of(T, e), 0, 0);
    op = jump_if ? T_JNZI : T_JZI;
  } else {
    c = cell_of(T, e);
    op = e->kind == SINEW_VALUE_INT ? (jump_if ? T_JNZI : T_JZI) : (jump_if ? T_JNZF : T_JZF);
  }
  if (keep) { /* && and ||: the value stays when jumping */
    jump(T, op, c, NULL, pc, target);
    T->sp--;
    return;
  }
  /* a comparison just computed for this jump alone: compare and jump in one instruction */
  tprog *P = T->P;
  bool alone = true;
  for (uint32_t i = 0; i + 1 < T->sp; i++) alone &= T->st[i].cell != e->cell;
  const tinsn *last = P->n > T->barrier ? &P->code[P->n - 1] : NULL;
  if (!e->is_const && alone && e->cell == e->home && last && last->d == e->home &&
      ((last->op >= T_EQF && last->op <= T_GEF) || (last->op >= T_EQI && last->op <= T_GEI))) {
    bool f = last->op <= T_GEF;
    tinsn fused = *last;
    fused.c = (f ? last->op - T_EQF : last->op - T_EQI) | (jump_if ? 8 : 0);
    P->n--;
    T->sp--;
    jump(T, f ? T_JCF : T_JCI, 0, &fused, pc, target);
    return;
  }
  T->sp--;
  jump(T, op, c, NULL, pc, target);
}

/* ---- variables -------------------------------------------------------------------------------------------- */

/* The cell of variable slot s, of kind (0: the slot's declared kind). */
static int32_t local_cell(tc *T, int32_t s, uint8_t kind) {
  tprog *P = T->P;
  if (s < 0 || (uint32_t)s >= P->nlocals) {
    no(T);
    return 0;
  }
  if (P->local_cell[s] < 0) {
    uint8_t k = T->ch->local_kinds ? T->ch->local_kinds[s] : 0;
    if (!k) {
      if (!kind) { /* read before any assignment: its type is decided at run time */
        no(T);
        return 0;
      }
      P->implicit[s] = true;
      k = kind;
    }
    if (!typed_kind(k)) {
      no(T);
      return 0;
    }
    P->local_kind[s] = k;
    P->local_cell[s] = add_cells(T, width(k));
  }
  return P->local_cell[s];
}

static bool is_jump(uint8_t op) {
  return op == OPC_JMP || op == OPC_JF || op == OPC_JT || op == OPC_JFK || op == OPC_JTK;
}

/* Whether a matrix variable may be read before anything was stored in it: declared in the body
 * of a branch or a loop that may not run (inside a forward jump's span), or read before its
 * first declaration or store. The generic VM holds none there and indexing it faults; the
 * typed VM's cells would read zeros, so such an expression stays on the generic VM. */
static bool matrix_may_be_none(const chunk *ch) {
  if (!ch->local_kinds) return false;
  for (uint32_t s = 0; s < ch->nlocals; s++) {
    if (ch->local_kinds[s] != SINEW_VALUE_MATRIX) continue;
    uint32_t def = UINT32_MAX, use = UINT32_MAX;
    for (uint32_t i = 0; i < ch->n; i++) {
      const insn *x = &ch->code[i];
      if (x->a != (int32_t)s) continue;
      if (def == UINT32_MAX && (x->op == OPC_DECL || x->op == OPC_STORE)) def = i;
      if (use == UINT32_MAX && x->op == OPC_LOAD) use = i;
    }
    if (use == UINT32_MAX) continue;
    if (def == UINT32_MAX || use < def) return true;
    for (uint32_t i = 0; i < def; i++)
      if (is_jump(ch->code[i].op) && ch->code[i].a > (int32_t)def) return true;
  }
  return false;
}

static void store(tc *T, int32_t s) {
  sent *e = &T->st[T->sp - 1];
  int32_t lc = local_cell(T, s, e->kind);
  if (T->status) return;
  uint8_t k = T->P->local_kind[s];
  if ((T->P->implicit[s] && k != e->kind) || /* typed by whichever assignment runs first */
      ((k == SINEW_VALUE_MATRIX) != (e->kind == SINEW_VALUE_MATRIX))) { /* an error at run time */
    no(T);
    return;
  }
  if (e->cell == lc && e->kind == k) return;
  unalias(T, lc, width(k));
  tprog *P = T->P;
  /* the value was just computed into its own place: compute it into the variable instead */
  bool alone = true;
  for (uint32_t i = 0; i + 1 < T->sp; i++) alone &= T->st[i].cell != e->cell;
  if (!e->is_const && e->kind == k && e->cell == e->home && alone && P->n > T->barrier &&
      P->code[P->n - 1].d == e->home && P->code[P->n - 1].op != T_JMP) {
    P->code[P->n - 1].d = lc;
  } else {
    if (e->is_const) {
      tcell v[3];
      const_conv(e, k, v);
      sent c = *e;
      memcpy(c.cv, v, sizeof v);
      c.kind = k;
      c.cell = -1;
      emit(T, k == SINEW_VALUE_VECTOR ? T_MOVV : T_MOV, lc, cell_of(T, &c), 0, 0);
    } else {
      conv_into(T, lc, cell_of(T, e), e->kind, k);
    }
  }
  /* the value left on the stack is the variable's (the generic VM converts it in place) */
  e->kind = k;
  e->cell = lc;
  e->is_const = false;
}

/* ---- builtin calls ------------------------------------------------------------------------------------------ */

static void builtin(tc *T, int32_t id, uint32_t n) {
  const builtin_def *bd = sinew__builtin(id);
  if (!bd || n > T->sp || n == 0) {
    no(T);
    return;
  }
  sent *args = &T->st[T->sp - n];
  bool vecs = true, nums = true, any_float = false;
  for (uint32_t i = 0; i < n; i++) {
    vecs &= args[i].kind == SINEW_VALUE_VECTOR;
    nums &= args[i].kind != SINEW_VALUE_VECTOR;
    any_float |= args[i].kind == SINEW_VALUE_FLOAT;
  }
  T->scratch = 0;
  if (vecs && n == 1 && strcmp(bd->name, "mag") == 0) {
    result(T, 1, T_V2F, SINEW_VALUE_FLOAT, cell_of(T, &args[0]), 0, 0, 0, NULL);
  } else if (vecs && n == 2 && strcmp(bd->name, "dot") == 0) {
    result(T, 2, T_DOTV, SINEW_VALUE_FLOAT, cell_of(T, &args[0]), cell_of(T, &args[1]), 0, 0, NULL);
  } else if (vecs && n == 2 && strcmp(bd->name, "cross") == 0) {
    result(T, 2, T_CROSSV, SINEW_VALUE_VECTOR, cell_of(T, &args[0]), cell_of(T, &args[1]), 0, 0, NULL);
  } else if (bd->scalar && n <= SINEW_BUILTIN_MAX_SCALAR_ARGS &&
             ((nums && any_float) || (strcmp(bd->name, "abs") && strcmp(bd->name, "min") && strcmp(bd->name, "max")))) {
    /* each argument read where it is, as a float (constants converted here; a vector is its
     * magnitude, as the generic entry's num() makes it) */
    int32_t cells[SINEW_BUILTIN_MAX_SCALAR_ARGS] = {0, 0, 0};
    for (uint32_t i = 0; i < n; i++) cells[i] = operand(T, &args[i], SINEW_VALUE_FLOAT);
    /* the curves rigs use most are instructions of their own (the same inline functions) */
    uint8_t op = strcmp(bd->name, "clamp") == 0        ? T_CLAMP
                 : strcmp(bd->name, "smoothstep") == 0 ? T_SMOOTHSTEP
                 : strcmp(bd->name, "linstep") == 0    ? T_LINSTEP
                                                       : T_CALL;
    result(T, n, op, SINEW_VALUE_FLOAT, cells[0], cells[1], cells[2], op == T_CALL ? (uint8_t)n : 0,
           op == T_CALL ? bd->scalar : NULL);
  } else {
    no(T);
  }
}

/* ---- the pass ------------------------------------------------------------------------------------------------ */

static void translate(tc *T) {
  const chunk *ch = T->ch;
  bool reachable = true;
  for (uint32_t pc = 0; pc < ch->n && !T->status; pc++) {
    const insn *in = &ch->code[pc];
    T->line = in->line;
    T->scratch = 0;
    if (T->target[pc]) {
      if (reachable) {
        materialize_all(T);
        arrive(T, pc);
      } else if (T->labels[pc].sp >= 0) {
        T->sp = 0;
        for (int32_t i = 0; i < T->labels[pc].sp; i++) push(T, T->labels[pc].kinds[i]);
        reachable = true;
      }
      for (uint32_t i = 0; i < T->sp; i++) T->st[i].is_const = false;
      T->barrier = T->P->n;
    }
    T->map[pc] = T->P->n;
    if (!reachable) continue;
    /* operands this instruction pops must be there */
    static const uint8_t pops[OPC_HALT + 1] = {
        [OPC_POP] = 1, [OPC_DUP] = 1, [OPC_STORE] = 1, [OPC_DECL] = 2, [OPC_COMP] = 1,
        [OPC_SETCOMP] = 1, [OPC_OUT] = 1, [OPC_NEG] = 1, [OPC_NOT] = 1, [OPC_TRUTH] = 1,
        [OPC_ADD] = 2, [OPC_SUB] = 2, [OPC_MUL] = 2, [OPC_DIV] = 2, [OPC_MOD] = 2,
        [OPC_CROSS] = 2, [OPC_EQ] = 2, [OPC_NE] = 2, [OPC_LT] = 2, [OPC_LE] = 2, [OPC_GT] = 2,
        [OPC_GE] = 2, [OPC_JF] = 1, [OPC_JT] = 1, [OPC_JFK] = 1, [OPC_JTK] = 1, [OPC_VEC] = 3,
        [OPC_CAST] = 1, [OPC_INDEX2] = 3};
    if (in->op > OPC_HALT || T->sp < pops[in->op]) {
      no(T);
      return;
    }
    /* a matrix is only stored, dropped, copied or read by element */
    if (in->op != OPC_STORE && in->op != OPC_POP && in->op != OPC_DUP && in->op != OPC_INDEX2)
      for (uint32_t i = T->sp - pops[in->op]; i < T->sp; i++)
        if (T->st[i].kind == SINEW_VALUE_MATRIX) no(T);
    if (T->status) return;
    sent *top = T->sp ? &T->st[T->sp - 1] : NULL;
    switch (in->op) {
      case OPC_NOP: break;
      case OPC_CONST: {
        const sinew_value_t *v = &ch->consts[in->a];
        tcell c[3];
        memset(c, 0, sizeof c);
        if (v->kind == SINEW_VALUE_INT) c[0].i = v->as.i;
        else if (v->kind == SINEW_VALUE_FLOAT) c[0].f = v->as.f;
        else if (v->kind == SINEW_VALUE_VECTOR) memcpy(c, v->as.v, sizeof v->as.v);
        else {
          no(T);
          break;
        }
        push_const(T, v->kind, c);
        break;
      }
      case OPC_INT: {
        tcell c[3] = {{0}};
        c[0].i = in->a;
        push_const(T, SINEW_VALUE_INT, c);
        break;
      }
      case OPC_POP: T->sp--; break;
      case OPC_DUP: {
        sent copy = *top;
        sent *e = push(T, copy.kind);
        if (e) {
          int32_t home = e->home;
          *e = copy;
          e->home = home;
        }
        break;
      }
      case OPC_LOAD: {
        int32_t lc = local_cell(T, in->a, 0);
        if (T->status) break;
        sent *e = push(T, T->P->local_kind[in->a]);
        if (e) e->cell = lc;
        break;
      }
      case OPC_STORE: store(T, in->a); break;
      case OPC_DECL: {
        uint8_t k = in->b8;
        const sent *d1 = &T->st[T->sp - 2], *d2 = &T->st[T->sp - 1];
        T->sp -= 2; /* the dimensions */
        if (!typed_kind(k) || (k == SINEW_VALUE_MATRIX && !(d1->is_const && d2->is_const &&
                                                            d1->kind == SINEW_VALUE_INT &&
                                                            d2->kind == SINEW_VALUE_INT &&
                                                            d1->cv[0].i == 4 && d2->cv[0].i == 4))) {
          no(T); /* only 4x4 matrices */
          break;
        }
        int32_t lc = local_cell(T, in->a, k);
        if (T->status || in->b) break; /* an expression's variable keeps its value */
        unalias(T, lc, width(k));
        sent c;
        memset(&c, 0, sizeof c);
        c.kind = k;
        c.cell = -1;
        emit(T, mov_op(k), lc, cell_of(T, &c), 0, 0);
        break;
      }
      case OPC_INDEX2: { /* a 4x4 matrix's element at constant indices, read in place */
        const sent *m = &T->st[T->sp - 3], *i = &T->st[T->sp - 2], *j = &T->st[T->sp - 1];
        if (m->kind != SINEW_VALUE_MATRIX || !i->is_const || !j->is_const || i->kind != SINEW_VALUE_INT ||
            j->kind != SINEW_VALUE_INT || i->cv[0].i < 0 || i->cv[0].i > 3 || j->cv[0].i < 0 ||
            j->cv[0].i > 3) {
          no(T); /* out of range faults: the generic VM reports them */
          break;
        }
        int32_t off = (int32_t)(i->cv[0].i * 4 + j->cv[0].i), mcell = m->cell, mhome = m->home;
        T->sp -= 3;
        sent *e = push(T, SINEW_VALUE_FLOAT);
        if (!e) break;
        if (mcell != mhome) {
          e->cell = mcell + off; /* a variable's or an input's element */
        } else if (off) {
          emit(T, T_MOV, e->home, mhome + off, 0, 0);
        }
        break;
      }
      case OPC_COMP: {
        if (in->a < 0 || in->a > 2) {
          no(T);
          break;
        }
        if (top->kind != SINEW_VALUE_VECTOR) { /* a number's component is the number */
          if (top->kind == SINEW_VALUE_INT) result(T, 1, T_I2F, SINEW_VALUE_FLOAT, cell_of(T, top), 0, 0, 0, NULL);
          break;
        }
        if (top->is_const) {
          tcell c[3] = {top->cv[in->a]};
          T->sp--;
          push_const(T, SINEW_VALUE_FLOAT, c);
        } else if (top->cell == top->home) {
          int32_t from = top->home + in->a;
          T->sp--;
          sent *e = push(T, SINEW_VALUE_FLOAT);
          if (e && from != e->home) emit(T, T_MOV, e->home, from, 0, 0);
        } else { /* a component of a variable or an input: read in place */
          int32_t from = top->cell + in->a;
          T->sp--;
          sent *e = push(T, SINEW_VALUE_FLOAT);
          if (e) e->cell = from;
        }
        break;
      }
      case OPC_SETCOMP: {
        if (in->b >> 2) { /* a global */
          no(T);
          break;
        }
        int32_t lc = local_cell(T, in->a, 0);
        if (T->status) break;
        if (T->P->local_kind[in->a] != SINEW_VALUE_VECTOR) { /* an error at run time */
          no(T);
          break;
        }
        int32_t dst = lc + (in->b & 3);
        unalias(T, dst, 1);
        conv_into(T, dst, cell_of(T, top), top->kind, SINEW_VALUE_FLOAT);
        break;
      }
      case OPC_IN: {
        if (in->a < 0 || (uint32_t)in->a >= T->P->nin) {
          no(T);
          break;
        }
        int32_t mc = T->P->in_matrix[in->a];
        sent *e = push(T, mc >= 0 ? SINEW_VALUE_MATRIX : SINEW_VALUE_FLOAT);
        if (e) e->cell = mc >= 0 ? mc : (int32_t)T->P->in_base + in->a;
        break;
      }
      case OPC_OUT: {
        int32_t c = operand(T, top, SINEW_VALUE_FLOAT);
        emit(T, T_OUT, 0, c, in->a, 0);
        break;
      }
      case OPC_OUTLOAD: {
        sent *e = push(T, SINEW_VALUE_FLOAT);
        if (e) emit(T, T_OUTLOAD, e->home, 0, in->a, 0);
        break;
      }
      case OPC_TIME:
      case OPC_FRAME: {
        T->P->uses_time = true;
        sent *e = push(T, SINEW_VALUE_FLOAT);
        if (e) e->cell = (int32_t)(in->op == OPC_TIME ? T->P->time_cell : T->P->frame_cell);
        break;
      }
      case OPC_NEG:
      case OPC_NOT:
      case OPC_TRUTH: unary(T, in->op); break;
      case OPC_ADD: case OPC_SUB: case OPC_MUL: case OPC_DIV: case OPC_MOD: case OPC_CROSS:
      case OPC_EQ: case OPC_NE: case OPC_LT: case OPC_LE: case OPC_GT: case OPC_GE:
        binary(T, in->op);
        break;
      case OPC_JMP:
        jump(T, T_JMP, 0, NULL, pc, (uint32_t)in->a);
        reachable = false;
        break;
      case OPC_JF:
      case OPC_JT: branch(T, pc, (uint32_t)in->a, in->op == OPC_JT, false); break;
      case OPC_JFK:
      case OPC_JTK: branch(T, pc, (uint32_t)in->a, in->op == OPC_JTK, true); break;
      case OPC_VEC: {
        const sent *x = &T->st[T->sp - 3];
        bool in_place = true; /* three floats just computed side by side are the vector already */
        for (int k = 0; k < 3; k++)
          in_place &= x[k].kind == SINEW_VALUE_FLOAT && !x[k].is_const && x[k].cell == x[k].home;
        if (in_place) {
          T->sp -= 3;
          push(T, SINEW_VALUE_VECTOR);
          break;
        }
        int32_t c[3];
        for (int k = 0; k < 3; k++) c[k] = operand(T, &T->st[T->sp - 3 + k], SINEW_VALUE_FLOAT);
        result(T, 3, T_VEC3, SINEW_VALUE_VECTOR, c[0], c[1], c[2], 0, NULL);
        break;
      }
      case OPC_CAST: {
        uint8_t k = (uint8_t)in->a;
        if (!numeric(k)) {
          no(T);
          break;
        }
        if (top->kind == k) break;
        if (top->is_const) {
          tcell v[3];
          const_conv(top, k, v);
          T->sp--;
          push_const(T, k, v);
          break;
        }
        int32_t src = cell_of(T, top);
        uint8_t from = top->kind;
        T->sp--;
        sent *e = push(T, k);
        if (!e) break;
        if (k == SINEW_VALUE_VECTOR && src == e->home) { /* widening in place: through scratch */
          int32_t s = scratch(T, SINEW_VALUE_FLOAT);
          emit(T, T_MOV, s, src, 0, 0);
          src = s;
        }
        conv_into(T, e->home, src, from, k);
        break;
      }
      case OPC_BUILTIN: builtin(T, in->a, (uint32_t)in->b); break;
      case OPC_HALT:
        emit(T, T_HALT, 0, 0, 0, 0);
        reachable = false;
        break;
      default: no(T); break; /* globals, indexing, arrays, commands, procedures, catch */
    }
  }
}

/* A loop's jump back to its test, when the test leaves the loop for the instruction after that
 * jump, becomes the test itself, inverted, jumping back to the body: one jump per iteration
 * instead of two. The step the jump back counted stays (n = 2: counted before the test). */
static void invert_loops(tprog *P) {
  for (uint32_t j = 0; j < P->n; j++) {
    tinsn *jmp = &P->code[j];
    if (jmp->op != T_JMP || jmp->n != 1 || jmp->d < 0 || (uint32_t)jmp->d >= P->n) continue; /* back */
    const tinsn *test = &P->code[jmp->d];
    if (test->d != (int32_t)j + 1 || test->n) continue;
    tinsn inv = *test;
    switch (test->op) {
      case T_JZI: inv.op = T_JNZI; break;
      case T_JNZI: inv.op = T_JZI; break;
      case T_JZF: inv.op = T_JNZF; break;
      case T_JNZF: inv.op = T_JZF; break;
      case T_JCI:
      case T_JCF: inv.c = test->c ^ 8; break;
      default: continue;
    }
    inv.d = jmp->d + 1;
    inv.n = 2;
    inv.line = jmp->line;
    *jmp = inv;
  }
}

/* Neighbours that run as one superinstruction (a result and the two outputs that take it,
 * TYPED_OUT2; TYPED_PAIRS; outputs in a row, T_PAIR_OUT_OUT; an output then the end,
 * T_OUTHALT): the first slot takes the pair's opcode, the others keep
 * their own, so that a jump landing on one still runs it alone. A pair whose second reads the
 * first's result (its link operand) is made only when it does. Left to right, each instruction
 * in one pair at most. */
static void pair_up(tprog *P) {
  static const struct {
    uint8_t first, second, fused;
    char link;
  } pairs[] = {
#define X(op_, a, b, link) {T_##a, T_##b, op_, #link[0]},
      TYPED_PAIRS(X)
#undef X
      {T_OUT, T_OUT, T_PAIR_OUT_OUT, 'n'},
      {T_OUT, T_HALT, T_OUTHALT, 'n'},
  };
  static const uint8_t out2_first[] = {
#define X(op_, a) T_##a,
      TYPED_OUT2(X)
#undef X
  };
  static const uint8_t out2[] = {
#define X(op_, a) op_,
      TYPED_OUT2(X)
#undef X
  };
  /* the pairs of TYPED_PAIR_OUT, and what each becomes when the output follows */
  static const uint8_t pair_out[] = {
#define X(op_, a, b, link) T_PAIR_##a##_##b,
      TYPED_PAIR_OUT(X)
#undef X
  };
  static const uint8_t pair_out_fused[] = {
#define X(op_, a, b, link) op_,
      TYPED_PAIR_OUT(X)
#undef X
  };
  static const struct {
    uint8_t ease, first, fused;
    char link;
  } ease_out2[] = {
#define X(op_, e, f, link) {T_##e, T_##f, op_, #link[0]},
      TYPED_EASE_OUT2(X)
#undef X
  };
  for (uint32_t i = 0; i + 1 < P->n; i++) {
    const tinsn *x = &P->code[i], *y = &P->code[i + 1];
    if (x->op == T_CLAMP && i + 4 < P->n && y->c == x->d && y[2].op == T_OUT && y[3].op == T_OUT &&
        y[2].a == y[1].d && y[3].a == y[1].d && (y[1].a == y->d || y[1].b == y->d)) {
      char link = y[1].a == y->d ? 'a' : 'b';
      size_t k = 0;
      while (k < sizeof ease_out2 / sizeof ease_out2[0] &&
             (ease_out2[k].ease != y->op || ease_out2[k].first != y[1].op || ease_out2[k].link != link))
        k++;
      if (k < sizeof ease_out2 / sizeof ease_out2[0]) {
        P->code[i].op = ease_out2[k].fused;
        i += 4;
        continue;
      }
    }
    if (i + 2 < P->n && y[0].op == T_OUT && y[1].op == T_OUT && y[0].a == x->d && y[1].a == x->d) {
      size_t k = 0;
      while (k < sizeof out2 && out2_first[k] != x->op) k++;
      if (k < sizeof out2) {
        P->code[i].op = out2[k];
        i += 2;
        continue;
      }
    }
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
      if (pairs[k].first != x->op || pairs[k].second != y->op) continue;
      if ((pairs[k].link == 'a' && y->a != x->d) || (pairs[k].link == 'c' && y->c != x->d)) continue;
      if (i + 2 < P->n && y[1].op == T_OUT && y[1].a == y->d) { /* and the output after it */
        size_t j = 0;
        while (j < sizeof pair_out / sizeof pair_out[0] && pair_out[j] != pairs[k].fused) j++;
        if (j < sizeof pair_out / sizeof pair_out[0]) {
          P->code[i].op = pair_out_fused[j];
          i += 2;
          break;
        }
      }
      P->code[i++].op = pairs[k].fused;
      break;
    }
  }
}

void sinew__typed_free(tprog *p) {
  if (!p) return;
  sinew_free(p->code);
  sinew_free(p->init);
  sinew_free(p->local_cell);
  sinew_free(p->local_kind);
  sinew_free(p->implicit);
  sinew_free(p->in_matrix);
  sinew_free(p);
}

int sinew__typed_compile(const chunk *ch, uint32_t nin, tprog **out) {
  *out = NULL;
  tc T;
  memset(&T, 0, sizeof T);
  T.ch = ch;
  tprog *P = sinew_calloc(1, sizeof *P);
  uint32_t n = ch->n ? ch->n : 1, nl = ch->nlocals ? ch->nlocals : 1;
  T.labels = sinew_malloc(n * sizeof *T.labels);
  T.target = sinew_calloc(n, sizeof *T.target);
  T.map = sinew_calloc(n, sizeof *T.map);
  if (P) {
    P->local_cell = sinew_malloc(nl * sizeof *P->local_cell);
    P->local_kind = sinew_calloc(nl, 1);
    P->implicit = sinew_calloc(nl, sizeof *P->implicit);
  }
  if (!P || !T.labels || !T.target || !T.map || !P->local_cell || !P->local_kind || !P->implicit) {
    T.status = SINEW_ENOMEM;
  } else {
    T.P = P;
    P->nlocals = ch->nlocals;
    for (uint32_t i = 0; i < nl; i++) P->local_cell[i] = -1;
    for (uint32_t i = 0; i < n; i++) T.labels[i].sp = -1;
    for (uint32_t i = 0; i < ch->n; i++) {
      uint8_t op = ch->code[i].op;
      if ((op == OPC_JMP || op == OPC_JF || op == OPC_JT || op == OPC_JFK || op == OPC_JTK) &&
          ch->code[i].a >= 0 && (uint32_t)ch->code[i].a < ch->n)
        T.target[ch->code[i].a] = true;
    }
    P->time_cell = (uint32_t)add_cells(&T, 2);
    P->frame_cell = P->time_cell + 1;
    P->nin = nin;
    P->in_base = (uint32_t)add_cells(&T, nin);
    /* an input stored straight into a matrix variable is read as a matrix (an evaluation with a
     * number there runs on the generic VM, which reports the error) */
    if (!(P->in_matrix = sinew_malloc((nin ? nin : 1) * sizeof *P->in_matrix))) T.status = SINEW_ENOMEM;
    for (uint32_t k = 0; k < nin && !T.status; k++) P->in_matrix[k] = -1;
    for (uint32_t i = 0; i + 1 < ch->n && !T.status; i++) {
      const insn *x = &ch->code[i], *y = &ch->code[i + 1];
      if (x->op == OPC_IN && y->op == OPC_STORE && x->a >= 0 && (uint32_t)x->a < nin && ch->local_kinds &&
          y->a >= 0 && (uint32_t)y->a < ch->nlocals && ch->local_kinds[y->a] == SINEW_VALUE_MATRIX &&
          P->in_matrix[x->a] < 0)
        P->in_matrix[x->a] = add_cells(&T, 16), P->matrix_inputs = true;
    }
    if (!T.status && matrix_may_be_none(ch)) T.status = NO;
    if (!T.status) translate(&T);
  }
  if (!T.status) {
    for (uint32_t i = 0; i < T.nfix; i++) P->code[T.fix[i].at].d = (int32_t)T.map[T.fix[i].target_pc];
    invert_loops(P);
    for (uint32_t i = 0; i < P->n; i++) {
      uint8_t op = P->code[i].op;
      bool jump = (op >= T_JMP && op <= T_JNZF) || op == T_JCI || op == T_JCF;
      if (jump && P->code[i].n) P->loops = true;
      if (op == T_OUT && (uint32_t)P->code[i].b >= P->nout) P->nout = (uint32_t)P->code[i].b + 1;
    }
    pair_up(P);
    /* the temporaries after every other cell */
    int32_t base = add_cells(&T, T.ntmp ? T.ntmp : 1);
    for (uint32_t i = 0; i < P->n && !T.status; i++) {
      int32_t *f[4] = {&P->code[i].d, &P->code[i].a, &P->code[i].b, &P->code[i].c};
      for (int k = 0; k < 4; k++)
        if (*f[k] & TMP) *f[k] = base + (*f[k] & ~TMP);
    }
  }
  sinew_free(T.labels);
  sinew_free(T.target);
  sinew_free(T.map);
  sinew_free(T.fix);
  sinew_free(T.consts);
  if (T.status) {
    sinew__typed_free(P);
    return T.status == NO ? SINEW_OK : T.status;
  }
  *out = P;
  return SINEW_OK;
}
