/* sinew/lang.h: the MEL-subset language.
 *
 * One implementation with two front ends (docs/lang.md):
 * - script mode: rig scripts and Maya ASCII files. Statements, variables, procedures and
 *   commands in MEL's command syntax (`createNode joint -n "elbow";`) or function syntax
 *   (`createNode("joint")`), with backquote capture (`$j = `joint`;`). Commands are C callbacks
 *   registered with sinew_lang_register_command(); the Maya commands live in sinew/cmds.h.
 * - expression mode: the body of an expression node. Attribute references (`arm.rotateZ`,
 *   `.I[0]`) become numbered inputs and outputs; `time` and `frame` are predefined; variables
 *   keep their values between evaluations. Compiled once to bytecode and run by the same VM.
 *
 * A language context (sinew_lang_t) is bound to one graph at a time. Like the graph it is not
 * thread-safe: one thread at a time.
 */
#ifndef SINEW_LANG_H
#define SINEW_LANG_H

#include <stdarg.h>

#include "sinew/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sinew_lang sinew_lang_t;
typedef struct sinew_cmd sinew_cmd_t;       /* one command invocation */
typedef struct sinew_lang_obj sinew_lang_obj_t; /* a string, array or matrix (reference-counted) */

/* ---------------------------------------------------------------------------------------------
 * Values. MEL's types: int, float, string, vector, matrix and arrays of int, float, string and
 * vector. Scalars are held inline; strings, arrays and matrices are reference-counted objects.
 * A value read from a command's arguments is borrowed for the duration of the call.
 */
typedef enum sinew_value_kind {
  SINEW_VALUE_NONE = 0, /* no value (a procedure or command that returns nothing) */
  SINEW_VALUE_INT,
  SINEW_VALUE_FLOAT,
  SINEW_VALUE_STRING,
  SINEW_VALUE_VECTOR,
  SINEW_VALUE_MATRIX,
  SINEW_VALUE_INT_ARRAY,
  SINEW_VALUE_FLOAT_ARRAY,
  SINEW_VALUE_STRING_ARRAY,
  SINEW_VALUE_VECTOR_ARRAY,
  SINEW_VALUE_KIND_MAX
} sinew_value_kind_t;

typedef struct sinew_value {
  uint8_t kind;    /* sinew_value_kind_t */
  uint8_t flag;    /* a command flag token (-name): kind is STRING and the text is the name */
  uint8_t word;    /* an unquoted word in command syntax (on, yes, joint1, :time1) */
  uint8_t pad_;
  uint32_t line;   /* source line the value came from (command arguments), 0 = unknown */
  union {
    int64_t i;
    double f;
    double v[3];
    sinew_lang_obj_t *obj;
  } as;
} sinew_value_t;

/* "int", "float", "string", "vector", "matrix", "int[]", ... */
SINEW_API const char *sinew_value_kind_name(sinew_value_kind_t kind);
/* Numeric view: int and float as they are, a vector's magnitude, a string parsed as a number
 * (0 when it is not one), an array's first element. */
SINEW_API double sinew_value_to_double(const sinew_value_t *v);
SINEW_API int64_t sinew_value_to_int(const sinew_value_t *v); /* truncates, as MEL */
/* The text of a string value (NULL for other kinds). Borrowed. */
SINEW_API const char *sinew_value_string(const sinew_value_t *v);
/* Number of elements: array length, 3 for a vector, rows*cols for a matrix, 1 otherwise (0 for
 * NONE). */
SINEW_API size_t sinew_value_count(const sinew_value_t *v);
/* Element i as a number (arrays, vectors, matrices row-major; a scalar for i == 0). */
SINEW_API double sinew_value_double_at(const sinew_value_t *v, size_t i);
/* Element i of a string array (NULL otherwise). */
SINEW_API const char *sinew_value_string_at(const sinew_value_t *v, size_t i);
/* Parses MEL's boolean words and numbers: on/off, yes/no, true/false, numbers (non-zero is
 * true). false when the value is none of these. */
SINEW_API bool sinew_value_to_bool(const sinew_value_t *v, bool *out);
/* Formats a value as MEL's print does ("1", "0.5", "1 2 3", array elements one per line).
 * snprintf semantics. */
SINEW_API size_t sinew_value_format(const sinew_value_t *v, char *buf, size_t size);
/* Releases what a value owns and sets it to NONE. */
SINEW_API void sinew_value_clear(sinew_value_t *v);
/* Makes dst an independent holder of src's value (a new reference for objects). */
SINEW_API void sinew_value_copy(sinew_value_t *dst, const sinew_value_t *src);

/* ---------------------------------------------------------------------------------------------
 * Language contexts.
 */
typedef struct sinew_lang_desc {
  /* Where `print` and the `SCRIPT_PRINT` log go besides the graph's logger; NULL = the
   * logger only. */
  void (*print)(void *user_data, const char *text);
  void *user_data;
} sinew_lang_desc_t;

/* Creates a language context bound to graph (which must outlive it or be replaced with
 * sinew_lang_set_graph). desc may be NULL. The built-in functions (math, vectors, random,
 * noise, strings, arrays, catch) are always there, and the language registers its own commands
 * (source, error, warning, whatIs, about, optionVar: docs/lang.md); Maya's commands are
 * registered separately (sinew/cmds.h). */
SINEW_API int sinew_lang_create(sinew_graph_t *graph, const sinew_lang_desc_t *desc,
                                sinew_lang_t **out);
SINEW_API void sinew_lang_destroy(sinew_lang_t *lang);
SINEW_API sinew_graph_t *sinew_lang_graph(const sinew_lang_t *lang);
/* Binds the context to another graph (file -open builds a new scene and swaps it in). Global
 * variables and procedures stay. */
SINEW_API void sinew_lang_set_graph(sinew_lang_t *lang, sinew_graph_t *graph);
SINEW_API void *sinew_lang_user_data(const sinew_lang_t *lang);

/* Runs a script: the whole text is parsed first (a syntax error runs nothing), then executed
 * statement by statement. A failing command stops the script; what earlier statements did
 * stays (each command is all or nothing). name is used in messages ("rig.mel:12: ...");
 * NULL = "script". *result (may be NULL) receives the value of the last expression statement or
 * command. Returns SINEW_OK, SINEW_ESYNTAX (also for text nested too deeply), the failing
 * command's status, SINEW_ETYPE / SINEW_ERANGE for a run-time error (arithmetic on an array,
 * procedures nested too deeply) or SINEW_ENOMEM; the message is sinew_lang_errmsg(). */
SINEW_API int sinew_lang_run(sinew_lang_t *lang, const char *source, size_t len,
                             const char *name, sinew_value_t *result);
/* Keep going: a command that fails at the top level of a script is logged (SINEW_LOG_ERROR,
 * COMMAND_FAILED, with file, line and message) and the script goes on, as Maya reads scene
 * files. Each failure is counted. Syntax errors still stop everything before it runs. */
SINEW_API void sinew_lang_set_keep_going(sinew_lang_t *lang, bool keep_going);
SINEW_API bool sinew_lang_keep_going(const sinew_lang_t *lang);
/* Failures skipped since the context was created (keep-going mode). */
SINEW_API uint64_t sinew_lang_failures(const sinew_lang_t *lang);

/* Reads the file and runs it (name = the path). SINEW_EIO when it cannot be read. */
SINEW_API int sinew_lang_run_file(sinew_lang_t *lang, const char *path, sinew_value_t *result);
/* The last error: "rig.mel:12: setAttr: joint1.foo: no such attribute", and as fields
 * (sinew_error_t in sinew/graph.h: file, line and column where the script was, the command as
 * op, the node and plug; never NULL). */
SINEW_API const char *sinew_lang_errmsg(const sinew_lang_t *lang);
SINEW_API int sinew_lang_errcode(const sinew_lang_t *lang);
SINEW_API const sinew_error_t *sinew_lang_error(const sinew_lang_t *lang);
/* The file and line being executed (NULL/0 outside a run), for commands' messages. */
SINEW_API const char *sinew_lang_current_file(const sinew_lang_t *lang);
SINEW_API uint32_t sinew_lang_current_line(const sinew_lang_t *lang);

/* Bounded execution. A host can stop a running script from another thread and give runs
 * limits; the run then fails with SINEW_EINTERRUPTED or SINEW_ELIMIT and a message naming the
 * file and line it had reached ("rig.mel:12: interrupted"). Both stop a run of a .ma file too
 * (keep-going mode does not skip them), and every script it runs (source, eval). The VM checks
 * at loop iterations and procedure calls (in batches of 1024) and before each command; a
 * command that runs long itself is not cut short. */
typedef struct sinew_lang_limits {
  uint64_t max_steps;  /* loop iterations + procedure calls per top-level run; 0 = no limit */
  double max_seconds;  /* wall-clock seconds per top-level run (a monotonic clock); 0 = none */
} sinew_lang_limits_t;
/* Limits for the runs that start after the call (NULL: none). */
SINEW_API void sinew_lang_set_limits(sinew_lang_t *lang, const sinew_lang_limits_t *limits);
/* Asks the running script to stop. Any thread may call it at any time, a signal handler too (a
 * lock-free atomic store). The run that stops on it takes the request; raised while nothing
 * runs, it stops the next run at its first check. */
SINEW_API void sinew_lang_interrupt(sinew_lang_t *lang);

/* Global variables, as `global float $name` in a script (name with or without the '$'). */
SINEW_API int sinew_lang_set_global(sinew_lang_t *lang, const char *name, const sinew_value_t *v);
SINEW_API int sinew_lang_get_global(sinew_lang_t *lang, const char *name, sinew_value_t *out);

/* ---------------------------------------------------------------------------------------------
 * Commands. A command has a name and a table of flags; the language turns the words of a call
 * into positional arguments and flag occurrences before the callback runs, checking each
 * flag's argument count and types.
 */
enum sinew_cmd_flag_flags {
  SINEW_CMD_MULTI = 1u << 0,      /* the flag may be given several times (-ai a -ai b) */
  SINEW_CMD_QUERY_ARGS = 1u << 1, /* takes its arguments in query mode too (skinPercent -q -t) */
  SINEW_CMD_QUERY = 1u << 2,      /* this flag is the command's query flag (-q) */
  SINEW_CMD_EDIT = 1u << 3        /* this flag is the command's edit flag (-e) */
};

/* One flag. args lists the argument types, one letter each:
 *   b boolean (on/off, yes/no, true/false, 1/0)   i integer   f number   s string (any value
 *   as text)   l distance in the scene's linear unit, converted to centimetres   a angle in the
 *   scene's angle unit, converted to radians   t time in the scene's time unit, converted to
 *   seconds   v a value of any kind, passed as it is.
 * An empty string means the flag takes no argument. */
typedef struct sinew_cmd_flag {
  const char *name;       /* long name without the '-' */
  const char *short_name; /* short name, or NULL */
  const char *args;
  uint32_t flags;         /* sinew_cmd_flag_flags */
} sinew_cmd_flag_t;

typedef int (*sinew_cmd_fn)(sinew_cmd_t *cmd);

typedef struct sinew_cmd_desc {
  const char *name;
  sinew_cmd_fn fn;
  const sinew_cmd_flag_t *flags;
  size_t flag_count;
  /* Accept flags that are not in the table (their words become positional arguments) instead
   * of failing. For commands whose flags are only partly supported. */
  bool lenient_flags;
  void *user_data;
} sinew_cmd_desc_t;

/* Registers (or replaces) a command. The descriptor and its flag table must stay valid while
 * the command is registered (they are usually static). */
SINEW_API int sinew_lang_register_command(sinew_lang_t *lang, const sinew_cmd_desc_t *desc);
SINEW_API bool sinew_lang_has_command(const sinew_lang_t *lang, const char *name);
/* The callback for commands nobody registered (NULL: they are errors). It receives every word
 * as a positional argument (flags keep value.flag set); sinew_cmd_name() tells the name. The
 * .ma reader uses it to warn about and skip commands it does not know. */
SINEW_API void sinew_lang_set_fallback(sinew_lang_t *lang, sinew_cmd_fn fn, void *user_data);
/* A wrapper every command call goes through (NULL: none): it must call fn(cmd) once, or fail
 * without calling it, and return what the call returns. argv/argc are the call's words as
 * written (flags keep value.flag set). Commands a command calls (eval, a proc's lines) go through
 * it too; the wrapper tells them apart itself. The session uses it to make each top-level
 * command one undo step (sinew/cmds.h). */
typedef int (*sinew_cmd_wrap_fn)(void *user_data, sinew_cmd_t *cmd, sinew_cmd_fn fn,
                                 const sinew_value_t *argv, size_t argc);
SINEW_API void sinew_lang_set_command_wrapper(sinew_lang_t *lang, sinew_cmd_wrap_fn fn,
                                              void *user_data);
/* Calls a command with already-split words, as a script line would (for hosts). */
SINEW_API int sinew_lang_call(sinew_lang_t *lang, const char *name, const sinew_value_t *argv,
                              size_t argc, sinew_value_t *result);

/* Inside a command callback. */
SINEW_API sinew_lang_t *sinew_cmd_lang(const sinew_cmd_t *cmd);
SINEW_API sinew_graph_t *sinew_cmd_graph(const sinew_cmd_t *cmd);
SINEW_API const char *sinew_cmd_name(const sinew_cmd_t *cmd);
SINEW_API void *sinew_cmd_user_data(const sinew_cmd_t *cmd);
/* Positional arguments (words that are neither flags nor flag arguments), in order. */
SINEW_API size_t sinew_cmd_argc(const sinew_cmd_t *cmd);
SINEW_API const sinew_value_t *sinew_cmd_arg(const sinew_cmd_t *cmd, size_t i);
/* A positional argument as text (numbers formatted), NULL past the end. The text stays valid
 * for the duration of the call. */
SINEW_API const char *sinew_cmd_arg_string(sinew_cmd_t *cmd, size_t i);
SINEW_API bool sinew_cmd_query(const sinew_cmd_t *cmd);
SINEW_API bool sinew_cmd_edit(const sinew_cmd_t *cmd);
/* How many times a flag (long or short name) was given. */
SINEW_API size_t sinew_cmd_flag_count(const sinew_cmd_t *cmd, const char *flag);
/* Argument arg of occurrence occ of a flag, converted as its type letter says; NULL when the
 * flag was not given that often or was given in query mode without arguments. */
SINEW_API const sinew_value_t *sinew_cmd_flag_arg(const sinew_cmd_t *cmd, const char *flag,
                                                  size_t occ, size_t arg);
/* Shorthands for the first occurrence: the value, or def when the flag is absent. A flag with
 * no arguments reads as true when present. */
SINEW_API bool sinew_cmd_flag_bool(const sinew_cmd_t *cmd, const char *flag, bool def);
SINEW_API double sinew_cmd_flag_double(const sinew_cmd_t *cmd, const char *flag, size_t arg,
                                       double def);
SINEW_API int64_t sinew_cmd_flag_int(const sinew_cmd_t *cmd, const char *flag, int64_t def);
SINEW_API const char *sinew_cmd_flag_string(const sinew_cmd_t *cmd, const char *flag,
                                            const char *def);
/* Fails the command: sets the message "<command>: <text>" and returns status. The language
 * adds the file and line. */
SINEW_API int sinew_cmd_error(sinew_cmd_t *cmd, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Fails the command with the graph's last error (sinew_graph_error): its fields, the command as
 * the operation ("<command>: <graph reason>", the graph's operation kept in the reason when it
 * is another: "setAttr: plug 'a.b': no node named 'a'"). */
SINEW_API int sinew_cmd_graph_error(sinew_cmd_t *cmd, int status);
/* Fails the command with the fields of another error (a graph's, a session's), the same way. When
 * that error has a file and line (a file the command read), the command leads to it: "file:
 * scene.ma:15: connectAttr: ...". */
SINEW_API int sinew_cmd_error_from(sinew_cmd_t *cmd, const sinew_error_t *error, int status);
/* Names the node and plug (either may be NULL) of the error the command has just set. */
SINEW_API void sinew_cmd_error_subject(sinew_cmd_t *cmd, const char *node, const char *plug);
/* Logs a warning naming the file, line and command (FILE_WARNING unless id says otherwise). */
SINEW_API void sinew_cmd_warning(sinew_cmd_t *cmd, sinew_log_id_t id, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The command's result (replaces any earlier one). Appending makes the result an array of
 * that element kind. Return SINEW_ENOMEM on failure. */
SINEW_API int sinew_cmd_result_int(sinew_cmd_t *cmd, int64_t v);
SINEW_API int sinew_cmd_result_double(sinew_cmd_t *cmd, double v);
SINEW_API int sinew_cmd_result_string(sinew_cmd_t *cmd, const char *s);
SINEW_API int sinew_cmd_result_vector(sinew_cmd_t *cmd, const double v[3]);
SINEW_API int sinew_cmd_result_append_int(sinew_cmd_t *cmd, int64_t v);
SINEW_API int sinew_cmd_result_append_double(sinew_cmd_t *cmd, double v);
SINEW_API int sinew_cmd_result_append_string(sinew_cmd_t *cmd, const char *s);
/* An empty array of the given kind (a query that found nothing still returns string[]). */
SINEW_API int sinew_cmd_result_empty_array(sinew_cmd_t *cmd, sinew_value_kind_t kind);

/* ---------------------------------------------------------------------------------------------
 * Expression mode: compiling an expression's text (used by the expression node type, which
 * sinew_lang_register_types adds to a graph).
 */
typedef struct sinew_expr sinew_expr_t;

/* One attribute reference found in an expression: the text as written ("arm.rz", "tx" with the
 * default object, ".I[0]") and whether the expression assigns it anywhere. */
typedef struct sinew_expr_ref {
  const char *text;
  bool written;
  int32_t index;        /* the input number (read) or output number (written): .I[n] / .O[n] */
  uint32_t line, column; /* where it first appears */
} sinew_expr_ref_t;

/* Compiles an expression. References are numbered in order of first appearance, separately for
 * reads and writes; an attribute that is written anywhere is an output only (reads of it read
 * the value last written). `.I[n]` and `.O[n]` refer to inputs and outputs directly (the form
 * Maya stores). On a syntax error returns SINEW_ESYNTAX with "line L, column C: ..." in errbuf. */
SINEW_API int sinew_expr_compile(const char *text, sinew_expr_t **out, char *errbuf,
                                 size_t errlen);
SINEW_API void sinew_expr_destroy(sinew_expr_t *expr);
/* The references, in order of first appearance. */
SINEW_API size_t sinew_expr_ref_count(const sinew_expr_t *expr);
SINEW_API const sinew_expr_ref_t *sinew_expr_ref(const sinew_expr_t *expr, size_t i);
SINEW_API size_t sinew_expr_input_count(const sinew_expr_t *expr);
SINEW_API size_t sinew_expr_output_count(const sinew_expr_t *expr);
/* True when the text uses time or frame. */
SINEW_API bool sinew_expr_uses_time(const sinew_expr_t *expr);
/* The text with every reference replaced by .I[n] / .O[n] (Maya's internalExpression).
 * Caller frees with sinew_free. NULL on out-of-memory. */
SINEW_API char *sinew_expr_internal_text(const sinew_expr_t *expr);
/* The text with every reference replaced by what name() returns for it (NULL keeps the
 * reference as written), e.g. .I[0] -> "arm.rotateZ". Caller frees with sinew_free. */
SINEW_API char *sinew_expr_rewrite(const sinew_expr_t *expr,
                                   const char *(*name)(void *user_data, const sinew_expr_ref_t *ref),
                                   void *user_data);

/* One evaluation: inputs (already in the expression's units), time in seconds and frames;
 * outputs receive the values assigned (unassigned ones keep what the caller put there). The
 * expression's variables keep their values between calls. Runtime faults (division by zero,
 * a NaN, an index out of range) give a defined value (0, or the operand) and are counted in
 * *out_faults (may be NULL) with the first one's text in faultbuf. */
typedef struct sinew_expr_io {
  const double *inputs;
  size_t ninputs;
  const sinew_mat4_t *const *input_matrices; /* per input: a matrix when the attribute is one, else NULL; may be NULL */
  double *outputs;
  size_t noutputs;
  double time_seconds;
  double frame;
  /* Bounds (zero-initialised fields take the defaults): loop iterations + procedure calls one
   * evaluation may take (0 = SINEW_EXPR_DEFAULT_MAX_STEPS; UINT64_MAX = no limit), and a poll
   * that stops the run when it returns true (NULL = none; the expression node passes
   * sinew_compute_interrupted). A stopped run returns SINEW_ELIMIT or SINEW_EINTERRUPTED with
   * the line in faultbuf; outputs it assigned before stopping hold those values. */
  uint64_t max_steps;
  bool (*should_stop)(void *user_data);
  void *stop_data;
} sinew_expr_io_t;

/* Steps an expression evaluation may take unless told otherwise: far more than any expression
 * driving a rig takes in one frame (about a tenth of a second of looping), so that an endless
 * loop in a scene's expression stops instead of hanging every pull. */
#define SINEW_EXPR_DEFAULT_MAX_STEPS 10000000u

SINEW_API int sinew_expr_eval(sinew_expr_t *expr, const sinew_expr_io_t *io, unsigned *out_faults,
                              char *faultbuf, size_t faultlen);

/* Registers the language's node types (expression) in a graph; idempotent. */
SINEW_API int sinew_lang_register_types(sinew_graph_t *graph);

/* ---------------------------------------------------------------------------------------------
 * Expression nodes (lang/expression_node.c, docs/expressions.md). The node type "expression"
 * has Maya's attributes: internalExpression (ixp, the stored text with .I[n] / .O[n]),
 * expression (e, the same text with attribute names, computed), input[] (in), output[] (out),
 * time (tim), object (ob), objectMsg (obm), unitOption (uno: 0 all, 1 none, 2 angular only),
 * animated (ani), alwaysEvaluate (ae), and inputMatrix[] (inm, a sinew extension: a matrix-valued
 * reference such as worldMatrix[0] feeds inm[n] instead of in[n]).
 */
enum sinew_expr_units {
  SINEW_EXPR_UNITS_ALL = 0,     /* numbers are in the scene's units (degrees, cm): converted */
  SINEW_EXPR_UNITS_NONE = 1,    /* internal units (radians, cm): nothing converted */
  SINEW_EXPR_UNITS_ANGULAR = 2  /* angles converted, distances not */
};

typedef struct sinew_expression_desc {
  const char *text;        /* the expression with attribute names (expression -s) */
  const char *name;        /* -n; NULL = "expression#" */
  sinew_node_t object;     /* -o: the default object for bare attribute names; zero = none */
  int unit_option;         /* -uc: sinew_expr_units */
  bool not_always_evaluate; /* -ae off: evaluate only when an input changed */
  int animated;            /* -an: 0, 1 (the default when 0 is not meant: see below), 2 */
  bool animated_set;       /* animated was given (otherwise 1) */
} sinew_expression_desc_t;

/* expression -s: compiles the text, resolves each reference to a plug (obj.attr[i].child, long
 * or short names; a bare name is an attribute of object), creates the node, stores the
 * internal text and connects attr -> in[n] for reads (inm[n] for matrices) and out[n] -> attr
 * for writes, time1.outTime -> time when the text uses time or frame or alwaysEvaluate is on,
 * object.message -> objectMsg. All or nothing: a syntax error, an unknown node or attribute
 * ("expression: line L, column C: no such attribute: a.nope"), an attribute that is not
 * writable or already fed (checked before anything is made) or a connection that would close a
 * cycle leaves the graph as it was. */
SINEW_API int sinew_expression_create(sinew_graph_t *graph, const sinew_expression_desc_t *desc,
                                      sinew_node_t *out_node);
/* expression -e -s: replaces an expression node's text (its connections are rebuilt from the
 * new references), all or nothing. */
SINEW_API int sinew_expression_set_text(sinew_graph_t *graph, sinew_node_t node, const char *text,
                                        sinew_node_t object);
/* How many evaluations the node has run and how many runtime faults they met. */
SINEW_API int sinew_expression_stats(sinew_graph_t *graph, sinew_node_t node, uint64_t *evaluations,
                                     uint64_t *faults);

#ifdef __cplusplus
}
#endif
#endif
