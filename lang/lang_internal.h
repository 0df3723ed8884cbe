/* lang/lang_internal.h: what the language's files share (sinew__ tier): value objects, the
 * lexer and parser (AST), the bytecode and the VM. Uses only the public headers. */
#ifndef SINEW_LANG_INTERNAL_H
#define SINEW_LANG_INTERNAL_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lang/util.h"
#include "sinew/graph.h"
#include "sinew/lang.h"
#include "sinew/nodes.h"

/* uthash through the library's allocator; a failed add sets sinew__lang_oom. */
extern _Thread_local int sinew__lang_oom;
#define uthash_malloc(sz) sinew_malloc(sz)
#define uthash_free(ptr, sz) sinew_free(ptr)
#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(obj) (sinew__lang_oom = 1)
#include <uthash.h>

/* ---- value objects (lang/value.c) ----------------------------------------------------------- */

typedef struct sinew__obj_pool sinew__obj_pool;

struct sinew_lang_obj {
  sinew__obj_pool *pool; /* where it goes back when its last reference is released; NULL: freed */
  uint32_t refs;
  uint8_t kind;  /* SINEW_VALUE_STRING, _MATRIX or an array kind */
  uint32_t len;  /* string bytes, array elements, matrix rows */
  uint32_t cap;  /* array capacity, matrix columns */
  union {
    char *s;                    /* inline after the header, NUL-terminated */
    int64_t *i;
    double *f;                  /* float arrays; vector arrays (3 per element); matrices */
    sinew_lang_obj_t **str;     /* string arrays: string objects */
  } d;
};

#define LV_NONE ((sinew_value_t){0})
static inline sinew_value_t lv_int(int64_t i) {
  sinew_value_t v = {0};
  v.kind = SINEW_VALUE_INT;
  v.as.i = i;
  return v;
}
static inline sinew_value_t lv_float(double f) {
  sinew_value_t v = {0};
  v.kind = SINEW_VALUE_FLOAT;
  v.as.f = f;
  return v;
}
static inline sinew_value_t lv_vec(double x, double y, double z) {
  sinew_value_t v = {0};
  v.kind = SINEW_VALUE_VECTOR;
  v.as.v[0] = x;
  v.as.v[1] = y;
  v.as.v[2] = z;
  return v;
}
/* Writes a number into an existing slot field by field. The VM's hot paths use these: building
 * a whole value in a temporary and copying it makes the CPU reload bytes it just stored in
 * narrower pieces (a store-forwarding stall) on every operation. */
static inline void lv_put_float(sinew_value_t *v, double f) {
  v->kind = SINEW_VALUE_FLOAT;
  v->flag = v->word = 0;
  v->line = 0;
  v->as.f = f;
}
static inline void lv_put_int(sinew_value_t *v, int64_t i) {
  v->kind = SINEW_VALUE_INT;
  v->flag = v->word = 0;
  v->line = 0;
  v->as.i = i;
}
static inline bool lv_is_obj(const sinew_value_t *v) {
  return v->kind == SINEW_VALUE_STRING || v->kind >= SINEW_VALUE_MATRIX;
}
static inline bool lv_is_array(uint8_t kind) { return kind >= SINEW_VALUE_INT_ARRAY; }
static inline bool lv_is_num(uint8_t kind) {
  return kind == SINEW_VALUE_INT || kind == SINEW_VALUE_FLOAT;
}
static inline void lv_retain(const sinew_value_t *v) {
  if (lv_is_obj(v) && v->as.obj) v->as.obj->refs++;
}
/* sinew_value_copy, inline for the VM's loads and stores. */
static inline void lv_copy(sinew_value_t *dst, const sinew_value_t *src) {
  *dst = *src;
  lv_retain(dst);
}
void sinew__obj_release(sinew_lang_obj_t *o);
static inline void lv_release(sinew_value_t *v) {
  if (lv_is_obj(v) && v->as.obj) sinew__obj_release(v->as.obj);
  v->kind = SINEW_VALUE_NONE;
}

/* New objects with one reference; NULL-object values on out-of-memory are reported as
 * SINEW_ENOMEM by the callers. */
int sinew__str_new(const char *s, size_t len, sinew_value_t *out);
int sinew__str_cat(const sinew_value_t *a, const sinew_value_t *b, sinew_value_t *out);
static inline const char *lv_str(const sinew_value_t *v) {
  return v->kind == SINEW_VALUE_STRING && v->as.obj ? v->as.obj->d.s : "";
}
static inline size_t lv_strlen(const sinew_value_t *v) {
  return v->kind == SINEW_VALUE_STRING && v->as.obj ? v->as.obj->len : 0;
}
int sinew__array_new(uint8_t kind, uint32_t len, sinew_value_t *out);
int sinew__matrix_new(uint32_t rows, uint32_t cols, sinew_value_t *out);

/* Matrices an expression reuses from one evaluation to the next (an input matrix each
 * evaluation): released ones wait here instead of being freed. Owned by the expression; its
 * objects never outlive it (an expression's values stay in its variables and its VM stack). */
#define SINEW_OBJ_POOL_CAP 16
struct sinew__obj_pool {
  sinew_lang_obj_t *free[SINEW_OBJ_POOL_CAP];
  uint32_t n;
};
/* A zeroed rows x cols matrix, from pool when it holds one of that size (pool may be NULL). */
int sinew__matrix_take(sinew__obj_pool *pool, uint32_t rows, uint32_t cols, sinew_value_t *out);
/* Frees what pool holds (its objects' last references must be gone). */
void sinew__obj_pool_clear(sinew__obj_pool *pool);
/* Makes the array/matrix object exclusively owned (copying it when shared). */
int sinew__obj_unshare(sinew_value_t *v);
/* Grows an exclusively owned array to at least len elements (new ones zero / ""). */
int sinew__array_resize(sinew_value_t *v, uint32_t len);
int sinew__array_push(sinew_value_t *arr, const sinew_value_t *elem);
/* Element i of an array as a value (a new reference for strings). */
int sinew__array_get(const sinew_value_t *arr, uint32_t i, sinew_value_t *out);
/* Stores elem (converted to the array's element type) at i, growing the array. */
int sinew__array_set(sinew_value_t *arr, uint32_t i, const sinew_value_t *elem);
uint8_t sinew__array_elem_kind(uint8_t array_kind);
uint8_t sinew__array_kind_of(uint8_t elem_kind);

/* Converts v (consumed) to kind, MEL's rules (docs/lang.md): float -> int truncates, vector ->
 * number is its magnitude, number -> vector fills all three, anything -> string formats,
 * string -> number parses, scalars -> arrays of one. */
int sinew__convert(sinew_value_t *v, uint8_t kind);
/* The text of any value as a new string value. */
int sinew__to_string(const sinew_value_t *v, sinew_value_t *out);
bool sinew__truthy(const sinew_value_t *v);

/* ---- lexer and parser (lang/parse.c) --------------------------------------------------------- */

typedef enum ast_kind {
  /* expressions */
  A_INT, A_FLOAT, A_STRING, A_WORD, A_FLAG, A_VECTOR, A_ARRAY, A_VAR, A_INDEX, A_COMPONENT,
  A_ATTR, A_TIME, A_FRAME, A_UNARY, A_BINARY, A_LOGIC, A_TERNARY, A_ASSIGN, A_INCDEC, A_CALL,
  A_CMD, A_CAST,
  /* statements */
  A_EXPR_STMT, A_DECL, A_BLOCK, A_IF, A_WHILE, A_DO, A_FOR, A_FOR_IN, A_SWITCH, A_CASE,
  A_BREAK, A_CONTINUE, A_RETURN, A_PROC, A_EMPTY
} ast_kind;

typedef struct ast ast;
struct ast {
  uint8_t kind;
  uint8_t op;       /* operator token, declared type, increment flags */
  uint8_t flag;     /* A_DECL: global; A_PROC: global; A_INCDEC: postfix; A_CASE: default */
  uint8_t is_array; /* declarations: [] */
  uint32_t line, col;
  union {
    int64_t i;
    double f;
    struct { const char *s; size_t len; } str;  /* strings, words, names, attribute text */
  } v;
  ast *a, *b, *c, *d;  /* children (meaning depends on kind) */
  ast *next;           /* sibling list (statements, arguments, declarators) */
  int32_t slot;        /* resolved by the compiler */
  int32_t count;       /* A_CALL, A_CMD: arguments; A_PROC: parameters */
  uint32_t src_pos, src_len; /* A_ATTR: where the reference is in the source */
};

typedef struct sinew__parse {
  const char *src;
  size_t len, pos;
  uint32_t line, col_base; /* col_base = offset of the line start */
  bool expr_mode;
  int depth; /* nesting of the recursive descent (limited) */
  /* arena */
  void *arena;
  char err[256];              /* the reason, without the place */
  uint32_t err_line, err_col; /* where (0: unknown) */
  int status;
} sinew__parse;

/* Parses a whole program (script or expression mode) into *out (a statement list). On error
 * returns SINEW_ESYNTAX/ENOMEM with the reason in p->err, at p->err_line, p->err_col. The AST lives in
 * p's arena until sinew__parse_free. */
int sinew__parse_program(sinew__parse *p, const char *src, size_t len, bool expr_mode, ast **out);
void sinew__parse_free(sinew__parse *p);

/* Operator tokens stored in ast.op. */
enum {
  OP_ADD = 1, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_CROSS, OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE,
  OP_AND, OP_OR, OP_NOT, OP_NEG, OP_PLUS, OP_ASSIGN, OP_INC, OP_DEC
};

/* ---- bytecode (lang/compile.c, lang/vm.c) ----------------------------------------------------- */

typedef enum opcode {
  OPC_NOP,
  OPC_CONST,      /* a: constant index */
  OPC_INT,        /* a: signed immediate */
  OPC_POP,
  OPC_DUP,
  OPC_LOAD,       /* a: local slot */
  OPC_STORE,      /* a: local slot; value stays on the stack */
  OPC_GLOAD,      /* a: global slot */
  OPC_GSTORE,
  OPC_DECL,       /* a: local slot, b: kind: (re)initialise to the zero value of kind */
  OPC_GDECL,      /* a: global slot, b: kind: declare (keeps an existing value of that kind) */
  OPC_INDEX,      /* [arr idx] -> elem */
  OPC_INDEX2,     /* [arr i j] -> elem: $m[i][j] (a matrix element without its row as an array) */
  OPC_SETINDEX,   /* a: slot, b: 1 = global: [idx value] -> value */
  OPC_COMP,       /* a: 0..2: [vec] -> component */
  OPC_SETCOMP,    /* a: slot, b: (global << 2) | component: [value] -> value */
  OPC_IN,         /* a: input number (expression mode) */
  OPC_OUT,        /* a: output number: [value] -> value */
  OPC_OUTLOAD,    /* a: output number: the value last written */
  OPC_TIME,
  OPC_FRAME,
  OPC_NEG, OPC_NOT, OPC_ADD, OPC_SUB, OPC_MUL, OPC_DIV, OPC_MOD, OPC_CROSS,
  OPC_EQ, OPC_NE, OPC_LT, OPC_LE, OPC_GT, OPC_GE,
  OPC_JMP,        /* a: target */
  OPC_JF,         /* a: target; pops */
  OPC_JT,         /* a: target; pops */
  OPC_JFK,        /* a: target; keeps the value when jumping (&&), pops otherwise */
  OPC_JTK,        /* (||) */
  OPC_TRUTH,      /* [v] -> int 0/1 */
  OPC_VEC,        /* [x y z] -> vector */
  OPC_ARRAY,      /* a: count: [e...] -> array */
  OPC_CAST,       /* a: kind */
  OPC_BUILTIN,    /* a: builtin id, b: argc */
  OPC_CALL,       /* a: procedure index, b: argc */
  OPC_CMD,        /* a: command-name constant, b: argc */
  OPC_FLAG,       /* a: constant (flag name): pushes a flag value */
  OPC_RET,        /* [v] */
  OPC_RETNONE,
  OPC_SETLAST,    /* [v] -> (the run's result) */
  OPC_TRY,        /* a: handler; b8: 1 = quiet (catchQuiet): an error until OPC_ENDTRY jumps there */
  OPC_ENDTRY,
  OPC_HALT
} opcode;

typedef struct insn {
  uint8_t op;
  uint8_t b8;   /* small operand (a kind, a count of indices) */
  uint16_t pad_;
  int32_t a;
  int32_t b;    /* second operand (argument counts) */
  uint32_t line;
} insn;

typedef struct chunk {
  insn *code;
  uint32_t n, cap;
  sinew_value_t *consts;
  uint32_t nconsts, cconsts;
  uint32_t nlocals;
  uint8_t *local_kinds; /* declared kinds (0 = decided by the first assignment) */
} chunk;

typedef struct proc_def {
  char *name;
  chunk code;
  uint32_t nparams;
  uint8_t *param_kinds;
  uint8_t ret_kind; /* SINEW_VALUE_NONE for void */
  bool defined;
  UT_hash_handle hh;
  uint32_t index;
  char *file; /* the script that defined it (whatIs), NULL when unknown */
} proc_def;

/* A named value the language keeps per context: optionVar entries, putenv's variables. */
typedef struct lang_var {
  char *name;
  sinew_value_t v;
  UT_hash_handle hh;
} lang_var;

typedef struct global_var {
  char *name; /* without '$' */
  uint32_t slot;
  UT_hash_handle hh;
} global_var;

typedef struct cmd_entry {
  char *name;
  sinew_cmd_desc_t desc;
  UT_hash_handle hh;
} cmd_entry;

/* Expression-mode hooks: how attribute references are numbered while compiling. */
typedef struct expr_refs {
  char **text;   /* normalised reference text */
  bool *written;
  int32_t *id;   /* input or output number */
  uint32_t n, cap;
  uint32_t nin, nout;
  bool uses_time;
} expr_refs;

typedef struct sinew__compiler sinew__compiler;

/* What stops a VM run early: a step budget, a deadline, an interrupt flag, a host's poll. */
typedef struct vm_bounds {
  uint64_t steps_left;  /* UINT64_MAX = no limit */
  uint64_t max_steps;   /* for messages */
  double deadline;      /* monotonic seconds; 0 = none */
  double max_seconds;
  atomic_int *flag;     /* taken (cleared) when it stops a run; NULL = none */
  bool (*should_stop)(void *user_data);
  void *stop_data;
} vm_bounds;

/* Seconds on the monotonic clock. */
double sinew__lang_now(void);

struct sinew_lang {
  sinew_graph_t *graph;
  sinew_lang_desc_t desc;
  cmd_entry *cmds;
  proc_def *procs;       /* by name */
  proc_def **proc_list;  /* by index */
  uint32_t nprocs, cprocs;
  global_var *globals;
  sinew_value_t *gvals;
  uint8_t *gkinds;
  uint32_t nglobals, cglobals;
  /* error: the fields, and their text (made by sinew_error_format when they are set; an
   * empty text means no error since it was last cleared) */
  sinew_error_t err;
  char errmsg[2048];
  /* execution */
  const char *cur_file;
  uint32_t cur_line;
  int depth;              /* nested runs */
  uint64_t rand_state;
  chunk **retired;        /* replaced procedure bodies, kept until destroy (a running frame
                             may still use one) */
  uint32_t nretired, cretired;
  bool keep_going;        /* top-level command failures are logged and skipped */
  uint64_t failures;
  sinew_cmd_fn fallback;  /* called for unknown commands; NULL = error */
  void *fallback_data;
  sinew_cmd_wrap_fn wrap; /* around every command call (sinew_lang_set_command_wrapper) */
  void *wrap_data;
  /* bounded execution */
  atomic_int interrupt;   /* sinew_lang_interrupt, from any thread */
  sinew_lang_limits_t limits;
  vm_bounds bounds;       /* of the current top-level run (shared by nested runs) */
  /* language commands (lang/langcmds.c) */
  const char *compiling;  /* name of the script being compiled (its procedures' file) */
  lang_var *optvars;      /* optionVar */
  lang_var *envvars;      /* putenv: seen by getenv, source and the script path */
};

/* Compiles a parsed program into main (and procedures into lang). expr: expression mode with
 * references collected into refs. On error: status, with its line, column and reason in err. */
int sinew__compile(sinew_lang_t *lang, ast *prog, bool expr_mode, expr_refs *refs, chunk *main,
                   sinew_error_t *err);
void sinew__chunk_free(chunk *c);

/* Expression evaluation context used by OPC_IN / OPC_OUT / OPC_TIME. */
typedef struct vm_expr_ctx {
  const sinew_expr_io_t *io;
  unsigned faults;
  uint64_t *rand_state; /* the expression's own random sequence */
  sinew__obj_pool *pool; /* the expression's matrices (NULL: none) */
  char *faultbuf;
  size_t faultlen;
  vm_bounds bounds;
} vm_expr_ctx;

/* Runs a chunk. locals: nlocals values (persistent for expressions, fresh for scripts).
 * result (may be NULL) gets the last SETLAST value. */
int sinew__vm_run(sinew_lang_t *lang, const chunk *c, sinew_value_t *locals, vm_expr_ctx *ex,
                  sinew_value_t *result);

/* Errors. The context's error is a sinew_error_t (L->err) and its text (L->errmsg).
 * sinew__lang_error: a failure with its reason only (the other fields cleared).
 * sinew__lang_errorv: the same with an operation (op may be NULL).
 * sinew__lang_set_error: takes e's fields (a copy of another layer's error, or L->err after
 *   changing it in place) and makes the text.
 * sinew__lang_locate: the place the running script had reached: the error's file and line when
 *   it has none yet, otherwise a step of its trace ("main.mel:3: source: "), op naming the
 *   command or function the place called (NULL: none).
 * sinew__error_under: e as the failure of operation op: e's own operation, when another, goes
 *   into the reason ("setAttr" over "plug: ..." reads "setAttr: plug: ..."). */
int sinew__lang_error(sinew_lang_t *lang, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
int sinew__lang_errorv(sinew_lang_t *lang, int status, const char *op, const char *fmt, va_list ap);
int sinew__lang_set_error(sinew_lang_t *lang, const sinew_error_t *e);
int sinew__lang_locate(sinew_lang_t *lang, const char *file, uint32_t line, const char *op);
void sinew__error_under(sinew_error_t *e, const char *op);

/* ---- built-in functions (lang/builtins.c) ---------------------------------------------------- */

typedef struct builtin_call {
  sinew_lang_t *lang;          /* NULL in expression evaluation without a context */
  vm_expr_ctx *ex;
  uint64_t *rand_state;
  uint32_t line;
} builtin_call;

typedef int (*builtin_fn)(builtin_call *bc, sinew_value_t *args, int argc, sinew_value_t *out);
/* A function of numbers as a kernel over doubles (x: the arguments), the result a float; faults
 * are reported through bc. */
typedef double (*builtin_scalar_fn)(builtin_call *bc, const double *x);
#define SINEW_BUILTIN_MAX_SCALAR_ARGS 3

/* clamp(lo, hi, x), linstep and smoothstep (3t^2 - 2t^3): the built-in functions' kernels and
 * the typed VM's instructions of the same names. */
static inline double sinew__clamp(double lo, double hi, double x) { return x < lo ? lo : x > hi ? hi : x; }
static inline double sinew__linstep(double lo, double hi, double x) {
  if (hi == lo) return x < lo ? 0 : 1;
  double t = (x - lo) / (hi - lo);
  return t < 0 ? 0 : t > 1 ? 1 : t;
}
static inline double sinew__smoothstep(double lo, double hi, double x) {
  double t = sinew__linstep(lo, hi, x);
  return t * t * (3 - 2 * t);
}

typedef struct builtin_def {
  const char *name;
  builtin_fn fn;
  int8_t min_args, max_args; /* -1 max: any */
  bool expr_ok;              /* allowed in expression mode */
  /* The same function when every argument is a number (for abs, min and max: when one is a
   * float; of ints they give ints): what the typed VM calls. NULL for the others. */
  builtin_scalar_fn scalar;
} builtin_def;

/* Index of a built-in function, -1 when none. */
int sinew__builtin_find(const char *name);
const builtin_def *sinew__builtin(int id);
/* Reports a runtime fault in expression mode (counted, first text kept) or returns an error
 * in script mode. */
int sinew__fault(builtin_call *bc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ---- the typed VM (lang/typed.c translates, lang/vm.c runs) --------------------------------------

   An expression whose values are all numbers and vectors is translated, after compiling, from the
   stack bytecode into register code whose instructions know their operand types (docs/lang.md).
   Operands are cells of one array per expression: constants, the variables (persistent), the
   inputs, time and frame, and temporaries. */

typedef union tcell {
  double f;
  int64_t i;
} tcell;

typedef enum topcode {
  T_HALT, T_JMP, T_JZI, T_JNZI, T_JZF, T_JNZF,
  T_MOV, T_MOVV, T_I2F, T_F2I, T_V2F, T_F2V, T_I2V, T_VEC3,
  T_ADDF, T_SUBF, T_MULF, T_DIVF, T_MODF,
  T_ADDI, T_SUBI, T_MULI, T_DIVI, T_MODI,
  T_ADDV, T_SUBV, T_MULV, T_DIVV, T_MODV, T_DOTV, T_CROSSV,
  T_NEGF, T_NEGI, T_NEGV,
  T_EQF, T_NEF, T_LTF, T_LEF, T_GTF, T_GEF,
  T_EQI, T_NEI, T_LTI, T_LEI, T_GTI, T_GEI,
  T_EQV, T_NEV, T_LTV, T_LEV, T_GTV, T_GEV,
  T_TRUTHF, T_TRUTHI, T_TRUTHV, T_NOTF, T_NOTI, T_NOTV,
  T_OUT, T_OUTLOAD, T_CALL,
  T_ADDVF, T_SUBVF, T_MULVF, T_DIVVF, /* a vector with a float */
  T_JCI, T_JCF, /* compare a and b (c & 7: ==, !=, <, <=, >, >=) and jump when that is c >> 3 */
  T_CALL1,      /* T_CALL of one argument */
  T_CLAMP, T_LINSTEP, T_SMOOTHSTEP, /* d = f(a, b, c): the functions, without a call */
  T_MOVM,       /* a 4x4 matrix: 16 cells */
  /* a product and a sum in one instruction, each rounded as MULF then ADDF / SUBF round them:
   * d = a * b + c, c + a * b, a * b - c, c - a * b */
  T_MULADDF, T_ADDMULF, T_MULSUBF, T_SUBMULF,
  T_OUTHALT,    /* T_OUT, then T_HALT (which stays in the next slot) */
  T_PAIR_OUT_OUT, /* T_OUT twice */
  /* superinstructions: two neighbours run in one dispatch (made after translating, by
   * lang/typed.c's pair_up; the second stays in its slot): the shapes of rig formulas, a product
   * and a sum, a clamp eased, a result that goes to an output. link: the second's operand (a or
   * c) that is the first's result, passed in a register (n: none) */
#define TYPED_PAIRS(X)                                                                           \
  X(T_PAIR_CLAMP_SMOOTHSTEP, CLAMP, SMOOTHSTEP, c) X(T_PAIR_CLAMP_LINSTEP, CLAMP, LINSTEP, c)    \
  X(T_PAIR_MULF_ADDMULF, MULF, ADDMULF, a) X(T_PAIR_MULF_SUBMULF, MULF, SUBMULF, a)              \
  X(T_PAIR_MULF_MULADDF, MULF, MULADDF, a) X(T_PAIR_MULF_MULSUBF, MULF, MULSUBF, a)              \
  X(T_PAIR_MULF_MULF, MULF, MULF, a) X(T_PAIR_MOV_OUT, MOV, OUT, a)                              \
  X(T_PAIR_ADDF_OUT, ADDF, OUT, a) X(T_PAIR_SUBF_OUT, SUBF, OUT, a)                              \
  X(T_PAIR_MULF_OUT, MULF, OUT, a) X(T_PAIR_MULADDF_OUT, MULADDF, OUT, a)                        \
  X(T_PAIR_ADDMULF_OUT, ADDMULF, OUT, a) X(T_PAIR_MULSUBF_OUT, MULSUBF, OUT, a)                  \
  X(T_PAIR_SUBMULF_OUT, SUBMULF, OUT, a) X(T_PAIR_CLAMP_OUT, CLAMP, OUT, a)                      \
  X(T_PAIR_LINSTEP_OUT, LINSTEP, OUT, a) X(T_PAIR_SMOOTHSTEP_OUT, SMOOTHSTEP, OUT, a)
#define X(op_, first, second, link) op_,
  TYPED_PAIRS(X)
#undef X
  /* a result that goes to two outputs in a row (one formula for scaleY and scaleZ): the
   * instruction and both outputs in one dispatch, the value passed in a register */
#define TYPED_OUT2(X)                                                                            \
  X(T_OUT2_ADDF, ADDF) X(T_OUT2_SUBF, SUBF) X(T_OUT2_MULF, MULF) X(T_OUT2_MULADDF, MULADDF)      \
  X(T_OUT2_ADDMULF, ADDMULF) X(T_OUT2_MULSUBF, MULSUBF) X(T_OUT2_SUBMULF, SUBMULF)               \
  X(T_OUT2_CLAMP, CLAMP) X(T_OUT2_LINSTEP, LINSTEP) X(T_OUT2_SMOOTHSTEP, SMOOTHSTEP)
#define X(op_, first) op_,
  TYPED_OUT2(X)
#undef X
  /* a pair of TYPED_PAIRS whose second's result goes to the output after it (a formula's last
   * statement, 1 - k * x * y): the pair and the output in one dispatch */
#define TYPED_PAIR_OUT(X)                                                                        \
  X(T_PO_CLAMP_SMOOTHSTEP, CLAMP, SMOOTHSTEP, c) X(T_PO_CLAMP_LINSTEP, CLAMP, LINSTEP, c)        \
  X(T_PO_MULF_ADDMULF, MULF, ADDMULF, a) X(T_PO_MULF_SUBMULF, MULF, SUBMULF, a)                  \
  X(T_PO_MULF_MULADDF, MULF, MULADDF, a) X(T_PO_MULF_MULSUBF, MULF, MULSUBF, a)                  \
  X(T_PO_MULF_MULF, MULF, MULF, a)
#define X(op_, first, second, link) op_,
  TYPED_PAIR_OUT(X)
#undef X
  /* a value eased (a clamp then a smoothstep or linstep of it), then a result that reads it and
   * goes to two outputs (TYPED_OUT2: bicep.scaleY and scaleZ = 1 + bicep.bulge * $a): five
   * instructions in one dispatch, the eased value passed in a register to the third's operand
   * link (a or b) */
#define TYPED_EASE_OUT2(X)                                                                       \
  X(T_EO2_SMOOTH_ADDF_A, SMOOTHSTEP, ADDF, a) X(T_EO2_SMOOTH_ADDF_B, SMOOTHSTEP, ADDF, b)        \
  X(T_EO2_SMOOTH_SUBF_A, SMOOTHSTEP, SUBF, a) X(T_EO2_SMOOTH_SUBF_B, SMOOTHSTEP, SUBF, b)        \
  X(T_EO2_SMOOTH_MULF_A, SMOOTHSTEP, MULF, a) X(T_EO2_SMOOTH_MULF_B, SMOOTHSTEP, MULF, b)        \
  X(T_EO2_SMOOTH_MULADDF_A, SMOOTHSTEP, MULADDF, a)                                              \
  X(T_EO2_SMOOTH_MULADDF_B, SMOOTHSTEP, MULADDF, b)                                              \
  X(T_EO2_SMOOTH_ADDMULF_A, SMOOTHSTEP, ADDMULF, a)                                              \
  X(T_EO2_SMOOTH_ADDMULF_B, SMOOTHSTEP, ADDMULF, b)                                              \
  X(T_EO2_SMOOTH_MULSUBF_A, SMOOTHSTEP, MULSUBF, a)                                              \
  X(T_EO2_SMOOTH_MULSUBF_B, SMOOTHSTEP, MULSUBF, b)                                              \
  X(T_EO2_SMOOTH_SUBMULF_A, SMOOTHSTEP, SUBMULF, a)                                              \
  X(T_EO2_SMOOTH_SUBMULF_B, SMOOTHSTEP, SUBMULF, b) X(T_EO2_LIN_ADDF_A, LINSTEP, ADDF, a)        \
  X(T_EO2_LIN_ADDF_B, LINSTEP, ADDF, b) X(T_EO2_LIN_SUBF_A, LINSTEP, SUBF, a)                    \
  X(T_EO2_LIN_SUBF_B, LINSTEP, SUBF, b) X(T_EO2_LIN_MULF_A, LINSTEP, MULF, a)                    \
  X(T_EO2_LIN_MULF_B, LINSTEP, MULF, b) X(T_EO2_LIN_MULADDF_A, LINSTEP, MULADDF, a)              \
  X(T_EO2_LIN_MULADDF_B, LINSTEP, MULADDF, b) X(T_EO2_LIN_ADDMULF_A, LINSTEP, ADDMULF, a)        \
  X(T_EO2_LIN_ADDMULF_B, LINSTEP, ADDMULF, b) X(T_EO2_LIN_MULSUBF_A, LINSTEP, MULSUBF, a)        \
  X(T_EO2_LIN_MULSUBF_B, LINSTEP, MULSUBF, b) X(T_EO2_LIN_SUBMULF_A, LINSTEP, SUBMULF, a)        \
  X(T_EO2_LIN_SUBMULF_B, LINSTEP, SUBMULF, b)
#define X(op_, ease, first, link) op_,
  TYPED_EASE_OUT2(X)
#undef X
  T_NOPS
} topcode;

typedef struct tinsn {
  uint8_t op;
  uint8_t n;      /* T_CALL: argument count; jumps: 1 when backward (a step when taken), 2 when
                     a loop's test moved to its end (a step each time) */
  uint16_t pad_;
  uint32_t line;
  int32_t d, a, b, c; /* cells (jumps: d is the target instruction); T_OUT / T_OUTLOAD: b the output */
  builtin_scalar_fn fn;
} tinsn;

typedef struct tprog {
  tinsn *code;
  uint32_t n, cap;
  tcell *init;         /* every cell's value before the first run (constants, zeros) */
  uint32_t ncells, ccells;
  uint32_t in_base, nin, time_cell, frame_cell;
  int32_t *in_matrix;  /* per input: its 16 cells when the code reads it as a 4x4 matrix, else -1
                          (then an evaluation must give a matrix there, or runs on the generic VM) */
  bool matrix_inputs;  /* any in_matrix */
  uint32_t nout;       /* outputs written: one more than the highest T_OUT's */
  bool loops;          /* a jump counts steps (a loop): the run needs the bounds */
  bool uses_time;      /* the code reads time or frame */
  uint32_t nlocals;
  int32_t *local_cell; /* per variable slot: its first cell, -1 when the code never uses it */
  uint8_t *local_kind; /* per slot: int, float, vector or matrix (4x4) */
  bool *implicit;      /* per slot: typed by its first assignment (the VM decides at run time) */
} tprog;

/* Translates an expression's chunk (nin inputs); *out NULL (and SINEW_OK) when the code uses
 * what the typed VM does not have (strings, arrays, matrices other than 4x4 variables read by
 * element, a type known only at run time). */
int sinew__typed_compile(const chunk *c, uint32_t nin, tprog **out);
void sinew__typed_free(tprog *p);
/* Runs p on cells (p->ncells, kept between runs) with ex's inputs, outputs and bounds. */
int sinew__typed_run(const tprog *p, tcell *cells, vm_expr_ctx *ex);

/* What an evaluation on the typed VM needs of its expression (lang/expr.c keeps one in each). */
typedef struct typed_target {
  const tprog *prog;
  tcell *cells;
  uint64_t *rand_state;
} typed_target;
/* sinew_expr_eval straight on the typed VM, in one call, when the code has no loop (so no bounds
 * to keep) and no matrix input, its variables are in the cells, and the evaluation gives at
 * least prog->nin inputs, all numbers, and prog->nout outputs; sinew__typed_run otherwise. */
int sinew__typed_eval(const typed_target *to, const sinew_expr_io_t *io, unsigned *out_faults,
                      char *faultbuf, size_t faultlen);

/* For the tests (tests/test_vm.c): the typed program's length (-1 when the expression runs on
 * the generic VM), and keeping an expression on the generic VM (typed = false). */
int32_t sinew__expr_typed_length(const sinew_expr_t *expr);
void sinew__expr_use_typed(sinew_expr_t *expr, bool typed);

/* ---- the language's own commands (lang/langcmds.c) ------------------------------------------ */

/* Registers source, error, warning, whatIs, about, optionVar (sinew_lang_create). */
int sinew__register_lang_cmds(sinew_lang_t *lang);
/* Frees the optionVar and putenv tables. */
void sinew__lang_vars_free(sinew_lang_t *lang);
/* An environment variable as the script sees it: putenv's value, else the process's; NULL. */
const char *sinew__lang_getenv(sinew_lang_t *lang, const char *name);
/* Sets a putenv variable of the context. */
int sinew__lang_putenv(sinew_lang_t *lang, const char *name, const char *value);
/* True for Maya's user-interface commands (window, button, ...), which sinew does not run. */
bool sinew__is_ui_command(const char *name);
/* Finds name (".mel" added when it has no extension) beside the running script (beside_script)
 * and in the folders of MAYA_SCRIPT_PATH; the path in out. */
bool sinew__find_script(sinew_lang_t *lang, const char *name, bool beside_script, char *out,
                        size_t size);

/* ---- commands (lang/cmd.c) -------------------------------------------------------------------- */

/* Splits argv into flags and positional arguments and calls the command. */
int sinew__cmd_invoke(sinew_lang_t *lang, const cmd_entry *ce, const sinew_value_t *argv,
                      size_t argc, sinew_value_t *result);
cmd_entry *sinew__cmd_find(const sinew_lang_t *lang, const char *name);

#endif
