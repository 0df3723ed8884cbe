/* lang/typed_loop.h: the typed VM's loop, included twice by lang/vm.c (nowhere else): in
 * sinew__typed_run, every evaluation (TYPED_LOOP_DIRECT 0), and in sinew__typed_eval, the direct
 * path of sinew_expr_eval (1: code without a loop, so no step to count, and every output the code
 * writes given, so no bounds to check). Two copies because the threaded loop's labels cannot be
 * shared between functions; the instructions' bodies are vm.c's macros, the same in both.
 *
 * In scope where it is included: P, R, io, ex, rc (and tick, batch when not direct); it ends at
 * the label done, with rc set. */

#if TYPED_LOOP_DIRECT
#define STEP_AT(when) ((void)0)
#define OUT_IN_RANGE(k) true
#else
/* a backward jump is a loop iteration: a step, counted as the generic loop counts it (BACK
 * when the jump is taken; PRE before the test of a loop whose test the translator moved to
 * its end, where the generic loop jumps back to it unconditionally) */
#define STEP_AT(when)                                                                            \
  do {                                                                                           \
    if (t->n == (when) && --tick == 0) {                                                         \
      if ((rc = tcheck(ex, t->line, batch))) goto done;                                          \
      tick = batch = next_batch(&ex->bounds);                                                    \
    }                                                                                            \
  } while (0)
#define OUT_IN_RANGE(k) ((k) < io->noutputs)
#endif

{
  const tinsn *code = P->code, *t = code;
#ifdef TYPED_THREADED
  static const void *const labels[T_NOPS] = {
      [T_HALT] = &&L_T_HALT, [T_JMP] = &&L_T_JMP, [T_JZI] = &&L_T_JZI, [T_JNZI] = &&L_T_JNZI,
      [T_JZF] = &&L_T_JZF, [T_JNZF] = &&L_T_JNZF, [T_MOV] = &&L_T_MOV, [T_MOVV] = &&L_T_MOVV,
      [T_I2F] = &&L_T_I2F, [T_F2I] = &&L_T_F2I, [T_V2F] = &&L_T_V2F, [T_F2V] = &&L_T_F2V,
      [T_I2V] = &&L_T_I2V, [T_VEC3] = &&L_T_VEC3, [T_ADDF] = &&L_T_ADDF, [T_SUBF] = &&L_T_SUBF,
      [T_MULF] = &&L_T_MULF, [T_DIVF] = &&L_T_DIVF, [T_MODF] = &&L_T_MODF, [T_ADDI] = &&L_T_ADDI,
      [T_SUBI] = &&L_T_SUBI, [T_MULI] = &&L_T_MULI, [T_DIVI] = &&L_T_DIVI, [T_MODI] = &&L_T_MODI,
      [T_ADDV] = &&L_T_ADDV, [T_SUBV] = &&L_T_SUBV, [T_MULV] = &&L_T_MULV, [T_DIVV] = &&L_T_DIVV,
      [T_MODV] = &&L_T_MODV, [T_DOTV] = &&L_T_DOTV, [T_CROSSV] = &&L_T_CROSSV,
      [T_NEGF] = &&L_T_NEGF, [T_NEGI] = &&L_T_NEGI, [T_NEGV] = &&L_T_NEGV, [T_EQF] = &&L_T_EQF,
      [T_NEF] = &&L_T_NEF, [T_LTF] = &&L_T_LTF, [T_LEF] = &&L_T_LEF, [T_GTF] = &&L_T_GTF,
      [T_GEF] = &&L_T_GEF, [T_EQI] = &&L_T_EQI, [T_NEI] = &&L_T_NEI, [T_LTI] = &&L_T_LTI,
      [T_LEI] = &&L_T_LEI, [T_GTI] = &&L_T_GTI, [T_GEI] = &&L_T_GEI, [T_EQV] = &&L_T_EQV,
      [T_NEV] = &&L_T_NEV, [T_LTV] = &&L_T_LTV, [T_LEV] = &&L_T_LEV, [T_GTV] = &&L_T_GTV,
      [T_GEV] = &&L_T_GEV, [T_TRUTHF] = &&L_T_TRUTHF, [T_TRUTHI] = &&L_T_TRUTHI,
      [T_TRUTHV] = &&L_T_TRUTHV, [T_NOTF] = &&L_T_NOTF, [T_NOTI] = &&L_T_NOTI,
      [T_NOTV] = &&L_T_NOTV, [T_OUT] = &&L_T_OUT, [T_OUTLOAD] = &&L_T_OUTLOAD,
      [T_CALL] = &&L_T_CALL, [T_ADDVF] = &&L_T_ADDVF, [T_SUBVF] = &&L_T_SUBVF,
      [T_MULVF] = &&L_T_MULVF, [T_DIVVF] = &&L_T_DIVVF, [T_JCI] = &&L_T_JCI, [T_JCF] = &&L_T_JCF,
      [T_CALL1] = &&L_T_CALL1, [T_CLAMP] = &&L_T_CLAMP, [T_LINSTEP] = &&L_T_LINSTEP,
      [T_SMOOTHSTEP] = &&L_T_SMOOTHSTEP, [T_MOVM] = &&L_T_MOVM, [T_MULADDF] = &&L_T_MULADDF,
      [T_ADDMULF] = &&L_T_ADDMULF, [T_MULSUBF] = &&L_T_MULSUBF, [T_SUBMULF] = &&L_T_SUBMULF,
      [T_OUTHALT] = &&L_T_OUTHALT, [T_PAIR_OUT_OUT] = &&L_T_PAIR_OUT_OUT,
#define X(op_, first, second, link) [op_] = &&L_##op_,
      TYPED_PAIRS(X)
#undef X
#define X(op_, first) [op_] = &&L_##op_,
      TYPED_OUT2(X)
#undef X
#define X(op_, first, second, link) [op_] = &&L_##op_,
      TYPED_PAIR_OUT(X)
#undef X
#define X(op_, ease, first, link) [op_] = &&L_##op_,
      TYPED_EASE_OUT2(X)
#undef X
  };
  goto *labels[t->op];
#else
  for (;;) switch ((topcode)t->op) {
#endif
  OP(T_HALT) goto done;
  OP(T_JMP) {
    BACK();
    GO(t->d);
  }
  JUMP_IF(T_JZI, A->i == 0)
  JUMP_IF(T_JNZI, A->i != 0)
  JUMP_IF(T_JZF, !(A->f != 0))
  JUMP_IF(T_JNZF, A->f != 0)
  OP(T_MOV) {
    *D = *A;
    NEXT();
  }
  OP(T_MOVV) {
    tcell v0 = A[0], v1 = A[1], v2 = A[2];
    tcell *d = D;
    d[0] = v0;
    d[1] = v1;
    d[2] = v2;
    NEXT();
  }
  OP(T_MOVM) {
    memmove(D, A, 16 * sizeof(tcell));
    NEXT();
  }
  SIMPLE(T_I2F, f, (double)A->i)
  SIMPLE(T_F2I, i, f2i(A->f)) /* truncates, as MEL */
  SIMPLE(T_V2F, f, vmag3(A))
  SIMPLE(T_DOTV, f, A[0].f * B[0].f + A[1].f * B[1].f + A[2].f * B[2].f)
  VECTOR(T_F2V, A->f, A->f, A->f)
  VECTOR(T_I2V, (double)A->i, (double)A->i, (double)A->i)
  VECTOR(T_VEC3, A->f, B->f, C->f)
  SIMPLE(T_ADDF, f, A->f + B->f)
  SIMPLE(T_SUBF, f, A->f - B->f)
  SIMPLE(T_MULF, f, A->f * B->f)
  SIMPLE(T_MULADDF, f, product(A, B) + C->f)
  SIMPLE(T_ADDMULF, f, C->f + product(A, B))
  SIMPLE(T_MULSUBF, f, product(A, B) - C->f)
  SIMPLE(T_SUBMULF, f, C->f - product(A, B))
#define X(op_, first, second, link) PAIR(op_, first, second, link)
  TYPED_PAIRS(X)
#undef X
#define X(op_, first) OUT2(op_, first)
  TYPED_OUT2(X)
#undef X
#define X(op_, first, second, link) PAIR_OUT(op_, first, second, link)
  TYPED_PAIR_OUT(X)
#undef X
#define X(op_, ease, first, link) EASE_OUT2(op_, ease, first, link)
  TYPED_EASE_OUT2(X)
#undef X
  OP(T_PAIR_OUT_OUT) {
    BODY_OUT(A->f, 0, 0);
    t++;
    BODY_OUT(A->f, 0, 0);
    NEXT();
  }
  OP(T_OUTHALT) {
    BODY_OUT(A->f, 0, 0);
    goto done;
  }
  OP(T_DIVF) {
    double x = A->f, y = B->f;
    D->f = y != 0 ? x / y : tdiv(ex, t, x, y);
    NEXT();
  }
  OP(T_MODF) {
    D->f = tmod(ex, t, A->f, B->f);
    NEXT();
  }
  SIMPLE(T_ADDI, i, (int64_t)((uint64_t)A->i + (uint64_t)B->i)) /* wraps around */
  SIMPLE(T_SUBI, i, (int64_t)((uint64_t)A->i - (uint64_t)B->i))
  SIMPLE(T_MULI, i, (int64_t)((uint64_t)A->i * (uint64_t)B->i))
  OP(T_DIVI)
  OP(T_MODI) {
    int64_t x = A->i, y = B->i;
    bool div = t->op == T_DIVI;
    if (y == 0) {
      tfault(ex, t, div ? "division by zero" : "modulus by zero");
      D->i = 0;
    } else if (y == -1) {
      D->i = div ? (int64_t)(0 - (uint64_t)x) : 0;
    } else {
      D->i = div ? x / y : x % y;
    }
    NEXT();
  }
  OP(T_ADDV)
  OP(T_SUBV)
  OP(T_MULV)
  OP(T_DIVV)
  OP(T_MODV) {
    const tcell *a = A, *b = B;
    double r[3];
    for (int k = 0; k < 3; k++) {
      double x = a[k].f, y = b[k].f;
      switch (t->op) {
        case T_ADDV: r[k] = x + y; break;
        case T_SUBV: r[k] = x - y; break;
        case T_MULV: r[k] = x * y; break;
        case T_DIVV: r[k] = tdiv(ex, t, x, y); break;
        default: r[k] = tmod(ex, t, x, y); break;
      }
    }
    tcell *d = D;
    for (int k = 0; k < 3; k++) d[k].f = r[k];
    NEXT();
  }
  OP(T_ADDVF)
  OP(T_SUBVF)
  OP(T_MULVF)
  OP(T_DIVVF) {
    const tcell *a = A;
    double y = B->f, r[3];
    for (int k = 0; k < 3; k++) {
      double x = a[k].f;
      switch (t->op) {
        case T_ADDVF: r[k] = x + y; break;
        case T_SUBVF: r[k] = x - y; break;
        case T_MULVF: r[k] = x * y; break;
        default: r[k] = tdiv(ex, t, x, y); break;
      }
    }
    tcell *d = D;
    for (int k = 0; k < 3; k++) d[k].f = r[k];
    NEXT();
  }
  JUMP_IF(T_JCI, COMPARE(t->c & 7, A->i, B->i) == (t->c >> 3))
  JUMP_IF(T_JCF, COMPARE(t->c & 7, A->f, B->f) == (t->c >> 3))
  VECTOR(T_CROSSV, A[1].f * B[2].f - A[2].f * B[1].f, A[2].f * B[0].f - A[0].f * B[2].f,
         A[0].f * B[1].f - A[1].f * B[0].f)
  SIMPLE(T_NEGF, f, -A->f)
  SIMPLE(T_NEGI, i, (int64_t)(0 - (uint64_t)A->i))
  VECTOR(T_NEGV, -A[0].f, -A[1].f, -A[2].f)
  SIMPLE(T_EQF, i, COMPARE(0, A->f, B->f))
  SIMPLE(T_NEF, i, COMPARE(1, A->f, B->f))
  SIMPLE(T_LTF, i, COMPARE(2, A->f, B->f))
  SIMPLE(T_LEF, i, COMPARE(3, A->f, B->f))
  SIMPLE(T_GTF, i, COMPARE(4, A->f, B->f))
  SIMPLE(T_GEF, i, COMPARE(5, A->f, B->f))
  SIMPLE(T_EQI, i, COMPARE(0, A->i, B->i))
  SIMPLE(T_NEI, i, COMPARE(1, A->i, B->i))
  SIMPLE(T_LTI, i, COMPARE(2, A->i, B->i))
  SIMPLE(T_LEI, i, COMPARE(3, A->i, B->i))
  SIMPLE(T_GTI, i, COMPARE(4, A->i, B->i))
  SIMPLE(T_GEI, i, COMPARE(5, A->i, B->i))
  OP(T_EQV)
  OP(T_NEV) {
    const tcell *a = A, *b = B;
    bool eq = a[0].f == b[0].f && a[1].f == b[1].f && a[2].f == b[2].f;
    D->i = eq == (t->op == T_EQV);
    NEXT();
  }
  /* ordering of vectors compares magnitudes, as MEL converts them to floats */
  SIMPLE(T_LTV, i, vorder(2, A, B))
  SIMPLE(T_LEV, i, vorder(3, A, B))
  SIMPLE(T_GTV, i, vorder(4, A, B))
  SIMPLE(T_GEV, i, vorder(5, A, B))
  SIMPLE(T_TRUTHF, i, A->f != 0)
  SIMPLE(T_TRUTHI, i, A->i != 0)
  SIMPLE(T_TRUTHV, i, vtruth(A))
  SIMPLE(T_NOTF, i, !(A->f != 0))
  SIMPLE(T_NOTI, i, !A->i)
  SIMPLE(T_NOTV, i, !vtruth(A))
  OP(T_OUT) {
    BODY_OUT(A->f, 0, 0);
    NEXT();
  }
  OP(T_OUTLOAD) {
    D->f = (uint32_t)t->b < io->noutputs ? io->outputs[t->b] : 0.0;
    NEXT();
  }
  SIMPLE(T_CLAMP, f, sinew__clamp(A->f, B->f, C->f))
  SIMPLE(T_LINSTEP, f, sinew__linstep(A->f, B->f, C->f))
  SIMPLE(T_SMOOTHSTEP, f, sinew__smoothstep(A->f, B->f, C->f))
  OP(T_CALL1) {
    builtin_call bc = {.ex = ex, .rand_state = ex->rand_state, .line = t->line};
    D->f = t->fn(&bc, &A->f);
    NEXT();
  }
  OP(T_CALL) {
    const double x[SINEW_BUILTIN_MAX_SCALAR_ARGS] = {A->f, B->f, C->f};
    builtin_call bc = {.ex = ex, .rand_state = ex->rand_state, .line = t->line};
    D->f = t->fn(&bc, x);
    NEXT();
  }
#ifndef TYPED_THREADED
  default:
    if (ex->faultbuf && ex->faultlen)
      snprintf(ex->faultbuf, ex->faultlen, "line %u: internal: bad typed opcode %d", t->line, t->op);
    rc = SINEW_EINVAL;
    goto done;
  }
#endif
}
done:;
#undef STEP_AT
#undef OUT_IN_RANGE
