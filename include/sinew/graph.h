/* sinew/graph.h: the dependency-graph core.
 *
 * Graphs, node types registered at run time, nodes, attributes, plugs, connections, dirty
 * propagation (push) and lazy evaluation (pull). This layer knows no node type by name: every
 * type, built-in or a host's own, is registered through sinew_register_node_type().
 *
 * Conventions used throughout:
 * - Functions return 0 (SINEW_OK) or a negative SINEW_E* code. On failure, out-parameters are
 *   left untouched, the graph is as it was, and sinew_graph_errmsg() names the node, plug and
 *   the reason.
 * - A graph is not thread-safe: one thread at a time may call into it. Node computes may use
 *   worker threads internally.
 * - Values use Maya's internal units: distance in centimetres, angles in radians, time in
 *   seconds. Matrices use Maya's row-vector convention (p' = p * M).
 */
#ifndef SINEW_GRAPH_H
#define SINEW_GRAPH_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sinew/math.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef SINEW_API
/* Marks the public API: the only symbols a shared libsinew exports (the library is compiled
 * with hidden visibility, so its internal sinew__ functions stay inside it). */
#if defined(__GNUC__) && __GNUC__ >= 4
#define SINEW_API extern __attribute__((visibility("default")))
#else
#define SINEW_API extern
#endif
#endif

/* ---------------------------------------------------------------------------------------------
 * Status codes. Names and messages come from this one list (sinew_err_name, sinew_strerror).
 */
#define SINEW_ERRNO_MAP(XX)                                                 \
  XX(INVAL, -1, "invalid argument")                                         \
  XX(NOMEM, -2, "out of memory")                                            \
  XX(NOTFOUND, -3, "no such node, attribute or plug")                       \
  XX(EXISTS, -4, "already exists")                                          \
  XX(TYPE, -5, "type mismatch")                                             \
  XX(CYCLE, -6, "would create a cycle")                                     \
  XX(CONNECTED, -7, "destination already has an incoming connection")      \
  XX(NOTCONNECTED, -8, "plugs are not connected")                           \
  XX(LOCKED, -9, "plug or node is locked")                                  \
  XX(READONLY, -10, "attribute is not writable")                            \
  XX(STALE, -11, "node handle refers to a deleted node")                    \
  XX(UNKNOWN_PLUG, -12, "compute does not handle this plug")                \
  XX(AMBIGUOUS, -13, "more than one node matches the name")                 \
  XX(SYNTAX, -14, "syntax error")                                           \
  XX(RANGE, -15, "value or index out of range")                             \
  XX(IO, -16, "input/output error")                                         \
  XX(UNSUPPORTED, -17, "not supported")                                     \
  XX(COMPUTE, -18, "compute failed")                                        \
  XX(RUNTIME, -19, "runtime error")                                         \
  XX(INTERRUPTED, -20, "interrupted")                                       \
  XX(LIMIT, -21, "execution limit reached")

typedef enum sinew_status {
  SINEW_OK = 0,
#define SINEW__ERR_ENUM(name, code, msg) SINEW_E##name = (code),
  SINEW_ERRNO_MAP(SINEW__ERR_ENUM)
#undef SINEW__ERR_ENUM
  SINEW_ERRNO_MIN = -22
} sinew_status_t;

/* "SINEW_ECYCLE" style name of a status code; "SINEW_UNKNOWN" for codes not in the list. */
SINEW_API const char *sinew_err_name(int status);
/* Human-readable message for a status code. */
SINEW_API const char *sinew_strerror(int status);

/* ---------------------------------------------------------------------------------------------
 * Memory. One process-wide allocator funnel; every allocation of the library (uthash tables
 * included) goes through it, and out-of-memory is returned as SINEW_ENOMEM.
 * Set it before creating any graph or data block; all four functions or none (NULL restores
 * the C library's). realloc(p, 0) is never called; free(NULL) may be.
 */
typedef struct sinew_allocator {
  void *(*malloc_fn)(size_t size);
  void *(*realloc_fn)(void *ptr, size_t size);
  void *(*calloc_fn)(size_t count, size_t size);
  void (*free_fn)(void *ptr);
} sinew_allocator_t;

SINEW_API int sinew_set_allocator(const sinew_allocator_t *allocator);
/* Frees memory the library handed to the caller (lists, DOT text, plug strings). */
SINEW_API void sinew_free(void *ptr);
/* Allocates through the funnel, for the library's upper layers and for hosts that hand memory
 * to the library to free with sinew_free. A size of 0 allocates 1 byte; NULL on failure. */
SINEW_API void *sinew_malloc(size_t size);
SINEW_API void *sinew_calloc(size_t count, size_t size);
SINEW_API void *sinew_realloc(void *ptr, size_t size);

/* ---------------------------------------------------------------------------------------------
 * Logging. Silent unless a logger is set. Tests and hosts should match on the id, not the text.
 */
typedef enum sinew_log_level {
  SINEW_LOG_DEBUG = 0,
  SINEW_LOG_INFO,
  SINEW_LOG_WARNING,
  SINEW_LOG_ERROR,
  SINEW_LOG_LEVEL_MAX
} sinew_log_level_t;

#define SINEW_LOG_ID_MAP(XX)                                                          \
  XX(NONE, "no message")                                                              \
  XX(EVAL_CYCLE, "cycle during evaluation; the plug keeps its stale value")           \
  XX(COMPUTE_UNKNOWN_PLUG, "no compute handles the plug; it keeps its value")        \
  XX(COMPUTE_NOT_SET, "compute returned without setting the requested plug")         \
  XX(COMPUTE_FAILED, "compute failed; the plug keeps its last value")                \
  XX(EVAL_DEPTH, "evaluation nested too deeply; the plug keeps its stale value")     \
  XX(UNKNOWN_NODE_TYPE, "unknown node type; a placeholder node keeps its data")      \
  XX(UNKNOWN_COMMAND, "unknown command ignored")                                     \
  XX(UNKNOWN_ATTR, "unknown attribute")                                              \
  XX(FILE_WARNING, "file warning")                                                   \
  XX(EXPR_RUNTIME, "expression runtime fault; a defined value was used")             \
  XX(SCRIPT_PRINT, "script output")                                                  \
  XX(COMMAND_FAILED, "a command failed; the file goes on (as Maya reads files)")      \
  XX(GENERIC, "message")                                                              \
  XX(EXPR_STOPPED, "expression stopped (interrupted or over its budget); outputs keep their last values") \
  XX(REFERENCE_MISSING, "a referenced file was not found; the reference stays unloaded")          \
  XX(REFERENCE_EDIT_FAILED, "a reference edit failed; it is kept")                       \
  XX(EVAL_UNDECLARED, "a compute running in parallel read a dirty plug it does not declare; it got the stale value")

typedef enum sinew_log_id {
#define SINEW__LOG_ENUM(name, text) SINEW_LOG_##name,
  SINEW_LOG_ID_MAP(SINEW__LOG_ENUM)
#undef SINEW__LOG_ENUM
  SINEW_LOG_ID_MAX
} sinew_log_id_t;

typedef void (*sinew_log_fn)(void *user_data, sinew_log_level_t level, sinew_log_id_t id,
                             const char *message);

/* Stable name of a log id, e.g. "EVAL_CYCLE". */
SINEW_API const char *sinew_log_id_name(sinew_log_id_t id);

/* The most numbers a SINEW_ATTR_GENERIC_NUMERIC attribute holds (a 4x4 matrix). */
#define SINEW_GENERIC_MAX 16

/* ---------------------------------------------------------------------------------------------
 * Attribute types and flags.
 */
typedef enum sinew_attr_type {
  SINEW_ATTR_INVALID = 0,
  SINEW_ATTR_BOOL,
  SINEW_ATTR_INT,
  SINEW_ATTR_ENUM,     /* an integer with field names */
  SINEW_ATTR_FLOAT,    /* stored as double, written as float */
  SINEW_ATTR_DOUBLE,
  SINEW_ATTR_DISTANCE, /* doubleLinear, centimetres */
  SINEW_ATTR_ANGLE,    /* doubleAngle, radians */
  SINEW_ATTR_TIME,     /* seconds */
  SINEW_ATTR_MATRIX,   /* 4x4 doubles, identity by default */
  SINEW_ATTR_STRING,
  SINEW_ATTR_MESSAGE,  /* carries no data, only relationships */
  SINEW_ATTR_COMPOUND, /* a parent of named children; numeric compounds are compounds of numbers */
  SINEW_ATTR_DATA,     /* a reference-counted, copy-on-write data block (meshes, arrays) */
  SINEW_ATTR_TYPE_MAX
} sinew_attr_type_t;

/* Name of an attribute type ("double", "doubleAngle", "matrix", ...). */
SINEW_API const char *sinew_attr_type_name(sinew_attr_type_t type);
/* True for bool, int, enum, float, double, distance, angle and time. */
SINEW_API bool sinew_attr_type_is_numeric(sinew_attr_type_t type);

enum sinew_attr_flags {
  SINEW_ATTR_READABLE = 1u << 0,
  SINEW_ATTR_WRITABLE = 1u << 1,    /* setAttr may set it; outputs are not writable */
  SINEW_ATTR_STORABLE = 1u << 2,    /* written to files */
  SINEW_ATTR_CONNECTABLE = 1u << 3,
  SINEW_ATTR_KEYABLE = 1u << 4,
  SINEW_ATTR_HIDDEN = 1u << 5,
  SINEW_ATTR_ARRAY = 1u << 6,       /* a sparse multi keyed by logical index */
  SINEW_ATTR_INDEX_MATTERS = 1u << 7, /* clear: connectAttr -na may pick the index */
  SINEW_ATTR_DYNAMIC = 1u << 8,     /* added to one node with sinew_node_add_attr (read only) */
  /* Holds a connection sinew does not model (a file's link to an attribute a type lacks):
   * connects to any type, and no value flows through such a connection. Connections to nodes
   * of placeholder types behave the same. */
  SINEW_ATTR_GENERIC = 1u << 9,
  /* A generic numeric attribute (Maya's unitConversion.input/output, choice.input[]/output):
   * declared with a numeric type, it holds 1 to SINEW_GENERIC_MAX doubles and takes the shape
   * of what feeds it on each pull: a number, a numeric compound (double2, double3, float3...)
   * or a matrix (16 numbers, row by row). It connects to and from numeric scalars, compounds
   * of numeric children and matrices; a destination takes as many numbers as it has room for
   * (a missing one reads 0, a matrix fed anything but 16 numbers reads identity). Setting a
   * plain number makes it a scalar again. Read it with sinew_get_generic. */
  SINEW_ATTR_GENERIC_NUMERIC = 1u << 10,
  /* Descriptor shorthands. A zero flags field in a descriptor means SINEW_ATTR_INPUT. */
  SINEW_ATTR_INPUT = (1u << 0) | (1u << 1) | (1u << 2) | (1u << 3) | (1u << 7),
  SINEW_ATTR_OUTPUT = (1u << 0) | (1u << 3) | (1u << 7)
};

/* One attribute in a node type (or a dynamic attribute). Zero fields mean defaults. */
typedef struct sinew_attr_desc {
  const char *name;           /* long name, required, unique within the node */
  const char *short_name;     /* optional, unique within the node */
  sinew_attr_type_t type;
  uint32_t flags;             /* sinew_attr_flags; 0 = SINEW_ATTR_INPUT */
  const char *parent;         /* long name of the compound parent (declared earlier); NULL = top */
  double default_value;       /* numeric types */
  const char *enum_fields;    /* enum: Maya addAttr -en syntax, "xyz:yzx:zxy" or "Bone=0:None=2" */
  bool has_min, has_max;
  double min_value, max_value;
  const struct sinew_data_type *data_type; /* SINEW_ATTR_DATA: required type, NULL = any */
} sinew_attr_desc_t;

/* "input affects output" inside one node type (not transitive, as in Maya). */
typedef struct sinew_affects {
  const char *input;
  const char *output;
} sinew_affects_t;

/* ---------------------------------------------------------------------------------------------
 * Opaque objects and handles.
 */
typedef struct sinew_graph sinew_graph_t;
typedef struct sinew_node_type sinew_node_type_t;
typedef struct sinew_compute sinew_compute_t; /* the context passed to compute */
typedef struct sinew_data sinew_data_t;

/* A node handle: slot index plus generation. A handle to a deleted node is detected
 * (SINEW_ESTALE); the zero handle is never valid. */
typedef struct sinew_node {
  uint32_t index;
  uint32_t gen;
} sinew_node_t;

#define SINEW_PLUG_MAX_INDICES 4

/* A plug: an attribute of one node, with the logical indices of every array attribute on its
 * path (outermost first). weightList[5].weights[2] has attr = weights, nidx = 2, idx = {5, 2}.
 * When the attribute itself is an array, leaving its index out (nidx one less) names the whole
 * array ("skin.matrix"). */
typedef struct sinew_plug {
  sinew_node_t node;
  uint32_t attr;
  uint32_t nidx;
  int32_t idx[SINEW_PLUG_MAX_INDICES];
} sinew_plug_t;

/* ---------------------------------------------------------------------------------------------
 * Node types.
 */
typedef int (*sinew_compute_fn)(sinew_compute_t *ctx, const sinew_plug_t *plug);

enum sinew_node_type_flags {
  SINEW_NODE_TYPE_DAG = 1u << 0,      /* takes part in the parent/child hierarchy */
  SINEW_NODE_TYPE_ABSTRACT = 1u << 1, /* a base type that cannot be created */
  /* Stands in for a type sinew does not evaluate (an unknown type read from a file): its nodes
   * keep attributes and connections but compute nothing, and no value flows through their
   * connections, so what depends on them keeps a stale value (sinew_plug_placeholders). */
  SINEW_NODE_TYPE_PLACEHOLDER = 1u << 2,
  /* Its compute may run on a worker thread while other nodes compute (sinew_evaluate_parallel):
   * it reads only plugs of its own node that are declared to affect the plug it computes (or
   * written by an earlier compute of the node), writes only its node's outputs and state, and
   * changes nothing else in the graph; kernels inside it may use the worker pool. Not inherited:
   * a derived type declares it for itself (its compute chain included). Types without it
   * compute alone, with no other compute running. */
  SINEW_NODE_TYPE_PARALLEL = 1u << 3
};

typedef struct sinew_node_type_desc {
  const char *name;                /* Maya's type name: "transform", "skinCluster" */
  const char *parent_type;         /* inherits attributes, affects and compute (joint: transform) */
  uint32_t flags;                  /* sinew_node_type_flags; DAG is inherited */
  const sinew_attr_desc_t *attrs;
  size_t attr_count;
  const sinew_affects_t *affects;
  size_t affects_count;
  /* Called for an output plug that is dirty and was asked for. Return SINEW_OK after setting
   * it with sinew_compute_set_*, SINEW_EUNKNOWN_PLUG for plugs the type does not compute
   * (the parent type's compute is tried next), or another error. */
  sinew_compute_fn compute;
  /* Called when an input plug of the node was set, connected, disconnected or dirtied, before
   * anything is computed (Maya's setDependentsDirty). Lets a node note which input changed;
   * it runs during dirty propagation, so it must not change the graph (see observers). */
  void (*input_changed)(sinew_graph_t *graph, sinew_node_t node, void *state,
                        const sinew_plug_t *plug);
  /* Zeroed per-node state of this size, 0 for none. A derived type's state begins with its
   * parent type's state and is at least as large; init, destroy and input_changed left NULL are
   * inherited from the parent type. */
  size_t state_size;
  int (*init)(sinew_graph_t *graph, sinew_node_t node, void *state);     /* after creation */
  void (*destroy)(sinew_graph_t *graph, sinew_node_t node, void *state); /* before deletion */
  /* DAG nodes: an implicit connection parent.<dag_parent_output> -> child.<dag_child_input> is
   * made while the node has a DAG parent (e.g. "worldMatrix[0]" -> "parentWorld"). Both NULL
   * when parenting carries no data. */
  const char *dag_parent_output;
  const char *dag_child_input;
  void *user_data;
  /* Called once a rollback, undo or redo that put back a value of the node is done (the
   * journal applied, nothing pushing): for a node that keeps values it stored elsewhere in step
   * with its own (the time node: the time curves it stores on a time change), so they follow
   * the value put back. It may store outputs and mark plugs dirty, not make journaled changes;
   * it cannot fail. Inherited from the parent type when NULL. */
  void (*restored)(sinew_graph_t *graph, sinew_node_t node, void *state);
} sinew_node_type_desc_t;

/* Registers a node type in the graph. Fails with SINEW_EEXISTS for a known name and
 * SINEW_EINVAL (message names the attribute) for a bad descriptor. The descriptor's strings
 * are copied. */
SINEW_API int sinew_register_node_type(sinew_graph_t *graph, const sinew_node_type_desc_t *desc,
                                       const sinew_node_type_t **out_type);
SINEW_API const sinew_node_type_t *sinew_find_node_type(const sinew_graph_t *graph,
                                                        const char *name);
SINEW_API const char *sinew_node_type_name(const sinew_node_type_t *type);
SINEW_API const sinew_node_type_t *sinew_node_type_parent(const sinew_node_type_t *type);
SINEW_API uint32_t sinew_node_type_flags(const sinew_node_type_t *type);
SINEW_API void *sinew_node_type_user_data(const sinew_node_type_t *type);
/* True when type is base or derives from it. */
SINEW_API bool sinew_node_type_is_a(const sinew_node_type_t *type, const char *base);
/* Attribute id by long or short name in a type (including inherited and base attributes);
 * UINT32_MAX when unknown. Ids are stable for the type's lifetime: look them up once. */
SINEW_API uint32_t sinew_node_type_attr(const sinew_node_type_t *type, const char *name);
/* Iterates registered types in registration order: pass NULL first; NULL at the end. */
SINEW_API const sinew_node_type_t *sinew_node_type_next(const sinew_graph_t *graph,
                                                        const sinew_node_type_t *prev);

/* ---------------------------------------------------------------------------------------------
 * Graphs.
 */
typedef struct sinew_graph_desc {
  sinew_log_fn logger;      /* NULL = silent */
  void *logger_data;
  void *user_data;
} sinew_graph_desc_t;

/* Creates an empty graph with only the abstract base type "node" registered. The desc may be
 * NULL. */
SINEW_API int sinew_graph_create(const sinew_graph_desc_t *desc, sinew_graph_t **out_graph);
/* Destroys the graph and every node in it; NULL is accepted. */
SINEW_API void sinew_graph_destroy(sinew_graph_t *graph);
SINEW_API void *sinew_graph_user_data(const sinew_graph_t *graph);
SINEW_API void sinew_graph_set_user_data(sinew_graph_t *graph, void *user_data);
SINEW_API void sinew_graph_set_logger(sinew_graph_t *graph, sinew_log_fn fn, void *user_data);
/* A number that changes whenever the graph's structure does: a node made or deleted, a
 * connection made or broken, by a call or by undo and redo (values, attributes and names do
 * not move it). A module that keeps something it found by walking the nodes and their
 * connections (the animation curves keep their list of unconnected time curves) keeps it while
 * this number is what it was. Never the same number for two structures of one graph; 0 for
 * NULL. */
SINEW_API uint64_t sinew_graph_structure_serial(const sinew_graph_t *graph);
/* Sends a message through the graph's logger (used by every layer). printf-style. */
SINEW_API void sinew_log(sinew_graph_t *graph, sinew_log_level_t level, sinew_log_id_t id,
                         const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* A failure as fields: the one error record that the graph, the language context
 * (sinew_lang_error) and the session (sinew_session_error) each keep for their last failure.
 * Layers fill the fields and copy records between them; the text users see is made from the
 * fields by sinew_error_format() alone, so no layer reads another's message back.
 * The strings are empty and the numbers 0 when unknown. The reason names the node and plug as
 * it reads best ("a.tx is locked"); node and plug hold the same names as data, for a host that
 * selects or highlights what failed. */
typedef struct sinew_error {
  int code;            /* the status (SINEW_OK when there was no failure) */
  char op[64];         /* the operation or command: "connectAttr", "setAttr", "plug" */
  char node[256];      /* the node concerned, by the name given (it may not exist) */
  char plug[512];      /* the plug concerned: "node.attr[2]" */
  char file[256];      /* the file or script being run ("rig.mel", "scene.ma", "eval") */
  uint32_t line;       /* 1-based line in file (or in the text compiled) */
  uint32_t column;     /* 1-based column, for syntax errors */
  char trace[256];     /* the outer places that led there, outermost first: "main.mel:3: " */
  char reason[1024];   /* what went wrong */
} sinew_error_t;

/* The text of an error: "<trace><file>:<line>[:<column>]: [<op>: ]<reason>"; with a line but no
 * file "line <line>[, column <column>]: ...". Writes at most size bytes (NUL-terminated when
 * size > 0) and returns the length of the whole text, as snprintf. */
SINEW_API size_t sinew_error_format(const sinew_error_t *error, char *buf, size_t size);
/* Fills error anew: status, the operation (NULL: none) and the reason (printf-style; the
 * arguments may point into error), every other field cleared. */
SINEW_API void sinew_error_setv(sinew_error_t *error, int status, const char *op, const char *fmt, va_list ap);

/* The last error of this graph as fields (never NULL; code 0 when none, or for a NULL graph),
 * and its text: "connectAttr: a.wm[0] -> b.ma[2]: would create a cycle through b -> a". Valid
 * until the next failing call. */
SINEW_API const sinew_error_t *sinew_graph_error(const sinew_graph_t *graph);
SINEW_API int sinew_graph_errcode(const sinew_graph_t *graph);
SINEW_API const char *sinew_graph_errmsg(const sinew_graph_t *graph);
/* Asks the compute running in graph (or the next one that polls) to stop: see
 * sinew_compute_interrupted(). The one graph call that any thread may make at any time, from a
 * signal handler too (a lock-free atomic store). */
SINEW_API void sinew_graph_interrupt(sinew_graph_t *graph);
/* Limits on what one compute may make, so that a file or a script cannot make the process
 * allocate without bound (in the spirit of sqlite3_limit). A compute that would go beyond one
 * fails with SINEW_ELIMIT and a message naming its plug, the size asked for and the limit.
 * - SINEW_LIMIT_GENERATED_POINTS: points a generator node (polyCube, polyPlane, polyCylinder,
 *   polySphere ...) may make; default and largest value 2^28 (indices stay within 32 bits).
 * sinew_graph_set_limit returns the previous value (0 for an unknown limit or a NULL graph,
 * which change nothing); values above the largest are taken as the largest. A new limit
 * applies from the next compute: outputs already computed keep their values (a failed compute
 * leaves its plug's value as it was) until their inputs change. */
typedef enum sinew_limit {
  SINEW_LIMIT_GENERATED_POINTS,
  SINEW_LIMIT_COUNT_ /* not a limit */
} sinew_limit_t;
SINEW_API uint64_t sinew_graph_limit(const sinew_graph_t *graph, sinew_limit_t which);
SINEW_API uint64_t sinew_graph_set_limit(sinew_graph_t *graph, sinew_limit_t which, uint64_t value);
/* Sets the last error (used by the node, language and command layers); returns status.
 * sinew_graph_set_error sets the reason only; sinew_graph_fail names the operation too (op may
 * be NULL), and the reason is then written without it: sinew_graph_fail(g, SINEW_ELOCKED,
 * "setAttr", "%s is locked", plug) reads "setAttr: a.tx is locked". Both clear the other
 * fields; sinew_graph_error_subject then names the node and plug (either may be NULL). */
SINEW_API int sinew_graph_set_error(sinew_graph_t *graph, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
SINEW_API int sinew_graph_fail(sinew_graph_t *graph, int status, const char *op, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
SINEW_API void sinew_graph_error_subject(sinew_graph_t *graph, const char *node, const char *plug);

/* Observers for hosts. Every field may be NULL. Called after the change is made. */
typedef struct sinew_observer {
  void (*node_added)(void *user_data, sinew_node_t node);
  void (*node_removed)(void *user_data, sinew_node_t node); /* called before the node goes */
  void (*connected)(void *user_data, const sinew_plug_t *src, const sinew_plug_t *dst);
  void (*disconnected)(void *user_data, const sinew_plug_t *src, const sinew_plug_t *dst);
  void (*plug_dirtied)(void *user_data, const sinew_plug_t *plug);
  void *user_data;
} sinew_observer_t;

/* Adds an observer (copied); returns an id > 0 in *out_id for sinew_graph_remove_observer.
 * Observers (and input_changed hooks) may read values but not change the graph: a set,
 * connection, creation, deletion, lock and the like made from any callback fails with
 * SINEW_EINVAL. */
SINEW_API int sinew_graph_add_observer(sinew_graph_t *graph, const sinew_observer_t *observer,
                                       int *out_id);
SINEW_API int sinew_graph_remove_observer(sinew_graph_t *graph, int id);

/* Counters for tests and profiling. */
typedef struct sinew_graph_stats {
  uint64_t computes;      /* compute callbacks made */
  uint64_t dirtied;       /* plugs marked dirty */
  uint64_t copies;        /* values pulled along connections */
  uint64_t inputs_checked; /* input plugs the evaluator looked at to find what a compute needs */
  size_t nodes;
  size_t connections;
} sinew_graph_stats_t;
SINEW_API void sinew_graph_stats(const sinew_graph_t *graph, sinew_graph_stats_t *out);
SINEW_API void sinew_graph_reset_stats(sinew_graph_t *graph);

/* ---------------------------------------------------------------------------------------------
 * Nodes.
 */
/* Creates a node of the named type. name NULL, "" or ending in '#' gives Maya-style automatic
 * naming (type name + the first free number: joint1, joint2). A taken name gets its trailing
 * number increased. DAG nodes need a unique name only among their siblings when named
 * explicitly. A name (or the base before '#') must start with a letter, '_' or ':' and hold
 * only letters, digits, '_' and ':' (SINEW_EINVAL otherwise); its length is not limited. */
SINEW_API int sinew_node_create(sinew_graph_t *graph, const char *type, const char *name,
                                sinew_node_t *out_node);
/* The same, created directly under a DAG parent (createNode -p), so the name only needs to be
 * unique among that parent's children. */
SINEW_API int sinew_node_create_under(sinew_graph_t *graph, const char *type, const char *name,
                                      sinew_node_t parent, sinew_node_t *out_node);
/* Deletes the node: breaks its connections, reparents nothing (its DAG children are deleted
 * with it, as Maya does), and invalidates every handle to it. Destinations on other nodes keep
 * the value they had from it; they are brought up to date before anything goes, so a failure
 * (SINEW_ENOMEM) leaves every node in place. */
SINEW_API int sinew_node_delete(sinew_graph_t *graph, sinew_node_t node);
/* Deletes several nodes (and their DAG subtrees) all or nothing, as `delete a b c`: a node
 * listed twice or inside another's subtree is deleted once; a stale handle (SINEW_ESTALE), a
 * locked node (SINEW_ELOCKED) or out-of-memory deletes none of them. count 0 does nothing. */
SINEW_API int sinew_node_delete_many(sinew_graph_t *graph, const sinew_node_t *nodes, size_t count);
/* Renames; a taken name gets a number as in create. The resulting name is node_name(). */
SINEW_API int sinew_node_rename(sinew_graph_t *graph, sinew_node_t node, const char *name);
SINEW_API bool sinew_node_valid(const sinew_graph_t *graph, sinew_node_t node);
/* Short name, valid until the node is renamed or deleted. NULL for an invalid handle. */
SINEW_API const char *sinew_node_name(const sinew_graph_t *graph, sinew_node_t node);
/* Full DAG path "|group1|joint1" of a DAG node, or its name for a DG node. Caller frees with
 * sinew_free. */
SINEW_API char *sinew_node_path(const sinew_graph_t *graph, sinew_node_t node);
SINEW_API const sinew_node_type_t *sinew_node_type(const sinew_graph_t *graph, sinew_node_t node);
SINEW_API void *sinew_node_state(const sinew_graph_t *graph, sinew_node_t node);
SINEW_API void *sinew_node_user_data(const sinew_graph_t *graph, sinew_node_t node);
SINEW_API void sinew_node_set_user_data(sinew_graph_t *graph, sinew_node_t node, void *ud);
/* Finds a node by name: "joint1", a DAG path "|root|joint1" or a unique tail "root|joint1".
 * A leading ':' (root namespace) is ignored. SINEW_EAMBIGUOUS when several match. */
SINEW_API int sinew_node_find(const sinew_graph_t *graph, const char *name, sinew_node_t *out);
/* Iterates live nodes in creation order: start with the zero handle; false at the end. */
SINEW_API bool sinew_node_next(const sinew_graph_t *graph, sinew_node_t *iter);
SINEW_API size_t sinew_node_count(const sinew_graph_t *graph);
/* Live nodes of a type, in creation order: of that type or one derived from it (ls -type;
 * "transform" lists joints too), or of exactly that type when exact is true (ls -exactType).
 * Fills up to cap handles and returns the total; 0 for an unknown type. */
SINEW_API size_t sinew_node_list_type(const sinew_graph_t *graph, const char *type, bool exact,
                                      sinew_node_t *out, size_t cap);
/* Locks the node against deletion and renaming (lockNode). */
SINEW_API int sinew_node_set_locked(sinew_graph_t *graph, sinew_node_t node, bool locked);
SINEW_API bool sinew_node_locked(const sinew_graph_t *graph, sinew_node_t node);

/* DAG hierarchy (DAG node types only). parent = zero handle puts the node under the world.
 * Refuses to make a node its own ancestor. */
SINEW_API int sinew_node_set_parent(sinew_graph_t *graph, sinew_node_t node, sinew_node_t parent);
/* The DAG parent, or the zero handle under the world. */
SINEW_API sinew_node_t sinew_node_parent(const sinew_graph_t *graph, sinew_node_t node);
/* DAG children in order: fills up to cap handles, returns the total count. */
SINEW_API size_t sinew_node_children(const sinew_graph_t *graph, sinew_node_t node,
                                     sinew_node_t *out, size_t cap);

/* ---------------------------------------------------------------------------------------------
 * Attributes of a node (type attributes first, then dynamic ones).
 */
typedef struct sinew_attr_info {
  const char *name;
  const char *short_name;
  sinew_attr_type_t type;
  uint32_t flags;
  uint32_t parent;        /* UINT32_MAX at top level */
  uint32_t child_count;
  const uint32_t *children;
  double default_value;
  bool has_min, has_max;
  double min_value, max_value;
  const char *enum_fields; /* "xyz=0:yzx=1:..." normalised, NULL for non-enum */
  const struct sinew_data_type *data_type;
  bool computed;          /* some input of the node affects it */
} sinew_attr_info_t;

SINEW_API uint32_t sinew_node_attr_count(const sinew_graph_t *graph, sinew_node_t node);
SINEW_API int sinew_node_attr_info(const sinew_graph_t *graph, sinew_node_t node, uint32_t attr,
                                   sinew_attr_info_t *out);
/* Attribute id by long or short name; UINT32_MAX when the node has none. */
SINEW_API uint32_t sinew_node_attr(const sinew_graph_t *graph, sinew_node_t node,
                                   const char *name);
/* Adds dynamic attributes (addAttr): one, or a compound followed by its children (whose
 * .parent names it). Fails with SINEW_EEXISTS when a name is taken. */
SINEW_API int sinew_node_add_attr(sinew_graph_t *graph, sinew_node_t node,
                                  const sinew_attr_desc_t *descs, size_t count);
/* Removes a dynamic attribute (and its children), breaking its connections. */
SINEW_API int sinew_node_remove_attr(sinew_graph_t *graph, sinew_node_t node, uint32_t attr);
/* Renames a dynamic attribute (renameAttr): its long name, or its short name when short_name is
 * true (a short name equal to the long one follows a long-name rename). Connections and values
 * stay. SINEW_EINVAL for a type attribute or a name that is not letters, digits and '_' starting
 * with a letter or '_'; SINEW_EEXISTS when another attribute of the node has the name. */
SINEW_API int sinew_node_rename_attr(sinew_graph_t *graph, sinew_node_t node, uint32_t attr,
                                     const char *name, bool short_name);
/* Enum field value by name; SINEW_ENOTFOUND when the attribute has no such field. */
SINEW_API int sinew_attr_enum_value(const sinew_graph_t *graph, sinew_node_t node, uint32_t attr,
                                    const char *field, int *out);
/* Enum field name for a value, NULL when none. */
SINEW_API const char *sinew_attr_enum_name(const sinew_graph_t *graph, sinew_node_t node,
                                           uint32_t attr, int value);

/* ---------------------------------------------------------------------------------------------
 * Plugs.
 */
/* A plug on a node's attribute with the given logical indices. */
SINEW_API sinew_plug_t sinew_plug_make(sinew_node_t node, uint32_t attr, uint32_t nidx,
                                       const int32_t *idx);
/* Parses "node.attr", "node.multi[3].child[7]", "node.t.tx" or ".attr" (relative to
 * current_node, as in .ma files), long or short names. */
SINEW_API int sinew_plug_parse(sinew_graph_t *graph, const char *text, sinew_node_t current_node,
                               sinew_plug_t *out);
/* Parses only the attribute part ("wl[3].w[2]") on a known node. */
SINEW_API int sinew_plug_parse_attr(sinew_graph_t *graph, sinew_node_t node, const char *text,
                                    sinew_plug_t *out);
/* Writes "node.attr[3].child" into buf (snprintf semantics: returns the length it needs).
 * Long names unless short is true. Names are written as Maya writes them: a compound parent
 * only when it carries an index ("t.translateX", "skin.weightList[5].weights[2]"), and the
 * node's DAG path when its short name is shared. buf may be NULL when size is 0. */
SINEW_API size_t sinew_plug_format(const sinew_graph_t *graph, const sinew_plug_t *plug,
                                   bool short_names, char *buf, size_t size);
/* Attribute part only: "weightList[5].weights[2]". */
SINEW_API size_t sinew_plug_format_attr(const sinew_graph_t *graph, const sinew_plug_t *plug,
                                        bool short_names, char *buf, size_t size);
SINEW_API bool sinew_plug_equal(const sinew_plug_t *a, const sinew_plug_t *b);
/* True when the plug names a whole array ("skin.matrix"), false for elements and scalars. */
SINEW_API bool sinew_plug_is_array(const sinew_graph_t *graph, const sinew_plug_t *plug);
/* The plug's parent: the compound parent or the array for an element. false at the top. */
SINEW_API bool sinew_plug_parent(const sinew_graph_t *graph, const sinew_plug_t *plug,
                                 sinew_plug_t *out);
/* The plug for child attribute `child` (an attribute id) of a compound plug. */
SINEW_API int sinew_plug_child(const sinew_graph_t *graph, const sinew_plug_t *plug,
                               uint32_t child, sinew_plug_t *out);
/* Element `index` of an array plug. */
SINEW_API int sinew_plug_element(const sinew_graph_t *graph, const sinew_plug_t *plug,
                                 int32_t index, sinew_plug_t *out);
/* Logical indices present in an array plug, ascending: fills up to cap, returns the count.
 * Only elements that were set, connected or computed exist. */
SINEW_API size_t sinew_plug_indices(const sinew_graph_t *graph, const sinew_plug_t *plug,
                                    int32_t *out, size_t cap);
/* The next free logical index of an array plug (no value and no incoming connection). */
SINEW_API int32_t sinew_plug_next_index(const sinew_graph_t *graph, const sinew_plug_t *plug);
/* Removes element(s) of an array plug (removeMultiInstance -b): breaks their connections;
 * destinations fed from inside the element keep the value they had. An element of an array
 * fed as a whole cannot be removed on its own (SINEW_ECONNECTED). */
SINEW_API int sinew_plug_remove_element(sinew_graph_t *graph, const sinew_plug_t *element);

/* Attribute aliases (Maya's aliasAttr): another name for one plug of a node ("smile" for
 * "weight[0]" of a blendShape), which every plug name on that node accepts in place of the
 * plug's own path (sinew_plug_parse: "bs.smile", "bs.smile.child" when the plug is a compound).
 * A plug has at most one alias: setting one on an aliased plug renames it. An alias is a
 * name (a letter or '_', then letters, digits, '_'), unique among the node's aliases and not the
 * long or short name of one of its attributes (SINEW_EINVAL, SINEW_EEXISTS); a dynamic attribute
 * cannot then be added or renamed to it. Aliases are kept in the order made, are changes like
 * any other (journaled: a rollback or an undo puts them back), and go with their plug: removing
 * the element or the dynamic attribute the plug lies in removes its alias. The plugs are
 * printed under their own names (sinew_plug_format), as Maya writes them in files. */
SINEW_API int sinew_alias_set(sinew_graph_t *graph, const sinew_plug_t *plug, const char *alias);
/* Removes the alias of plug (SINEW_ENOTFOUND when it has none). */
SINEW_API int sinew_alias_remove(sinew_graph_t *graph, const sinew_plug_t *plug);
/* How many aliases the node has (0 for a stale handle); the i-th, in the order made: its name
 * (borrowed: valid until the node's aliases change) and its plug. SINEW_ERANGE past the end. */
SINEW_API size_t sinew_alias_count(const sinew_graph_t *graph, sinew_node_t node);
SINEW_API int sinew_alias_at(const sinew_graph_t *graph, sinew_node_t node, size_t i,
                             const char **name, sinew_plug_t *plug);
/* The plug an alias names (SINEW_ENOTFOUND, no error set, when the node has no such alias). */
SINEW_API int sinew_alias_find(const sinew_graph_t *graph, sinew_node_t node, const char *alias,
                               sinew_plug_t *out);
/* The alias of a plug, or NULL (borrowed, as sinew_alias_at's name). */
SINEW_API const char *sinew_plug_alias(const sinew_graph_t *graph, const sinew_plug_t *plug);

/* Per-plug state: lock (setAttr -l), keyable and channel-box overrides (-k, -cb). */
SINEW_API int sinew_plug_set_locked(sinew_graph_t *graph, const sinew_plug_t *plug, bool locked);
SINEW_API bool sinew_plug_locked(const sinew_graph_t *graph, const sinew_plug_t *plug);
SINEW_API int sinew_plug_set_keyable(sinew_graph_t *graph, const sinew_plug_t *plug, bool on);
SINEW_API int sinew_plug_set_channel_box(sinew_graph_t *graph, const sinew_plug_t *plug, bool on);
/* True when a value was set on the plug or inside it (it differs from "never set"). */
SINEW_API bool sinew_plug_has_value(const sinew_graph_t *graph, const sinew_plug_t *plug);
/* True when the plug would be computed or pulled when read. */
SINEW_API bool sinew_plug_is_dirty(const sinew_graph_t *graph, const sinew_plug_t *plug);

/* ---------------------------------------------------------------------------------------------
 * Values. Setting a value stores it and pushes dirt downstream; nothing is computed. Getting a
 * value pulls: a dirty plug is computed (and everything dirty upstream of it, each once).
 * Setters refuse outputs (SINEW_EREADONLY), locked plugs (SINEW_ELOCKED) and connected
 * destinations (SINEW_ECONNECTED).
 */
SINEW_API int sinew_set_double(sinew_graph_t *graph, const sinew_plug_t *plug, double value);
SINEW_API int sinew_set_int(sinew_graph_t *graph, const sinew_plug_t *plug, int64_t value);
SINEW_API int sinew_set_bool(sinew_graph_t *graph, const sinew_plug_t *plug, bool value);
/* Numeric compounds: sets the first n children. */
SINEW_API int sinew_set_doubles(sinew_graph_t *graph, const sinew_plug_t *plug,
                                const double *values, size_t n);
SINEW_API int sinew_set_matrix(sinew_graph_t *graph, const sinew_plug_t *plug,
                               const sinew_mat4_t *value);
SINEW_API int sinew_set_string(sinew_graph_t *graph, const sinew_plug_t *plug, const char *value);
/* Stores a new reference to data (the caller keeps its own); NULL clears. */
SINEW_API int sinew_set_data(sinew_graph_t *graph, const sinew_plug_t *plug, sinew_data_t *data);
/* Sets many elements of a numeric array (or numeric children of an array of compounds) at
 * once: element idx[k] gets values[k]. The fast path for weight tables. */
SINEW_API int sinew_set_double_elements(sinew_graph_t *graph, const sinew_plug_t *array,
                                        const int32_t *idx, const double *values, size_t n);

SINEW_API int sinew_get_double(sinew_graph_t *graph, const sinew_plug_t *plug, double *out);
SINEW_API int sinew_get_int(sinew_graph_t *graph, const sinew_plug_t *plug, int64_t *out);
SINEW_API int sinew_get_bool(sinew_graph_t *graph, const sinew_plug_t *plug, bool *out);
/* Numeric compounds: reads up to n children; returns the child count in *out_n if non-NULL. */
SINEW_API int sinew_get_doubles(sinew_graph_t *graph, const sinew_plug_t *plug, double *out,
                                size_t n, size_t *out_n);
SINEW_API int sinew_get_matrix(sinew_graph_t *graph, const sinew_plug_t *plug, sinew_mat4_t *out);
/* The string stays valid until the plug is next set, computed or deleted. "" when unset. */
SINEW_API int sinew_get_string(sinew_graph_t *graph, const sinew_plug_t *plug, const char **out);
/* A new reference (release with sinew_data_unref), or NULL when the plug holds none. */
SINEW_API int sinew_get_data(sinew_graph_t *graph, const sinew_plug_t *plug, sinew_data_t **out);
/* Reads every element of a numeric array: logical indices and values, ascending. Fills up to
 * cap; *out_count is the total. */
SINEW_API int sinew_get_double_elements(sinew_graph_t *graph, const sinew_plug_t *array,
                                        int32_t *idx, double *values, size_t cap,
                                        size_t *out_count);
/* Reads the numbers a plug holds: every number of a generic numeric attribute (1 to
 * SINEW_GENERIC_MAX), 1 for a numeric scalar, the children of a numeric compound, 16 for a
 * matrix (row by row). Fills up to cap; *out_n (if non-NULL) is the count. SINEW_ETYPE for
 * other types. */
SINEW_API int sinew_get_generic(sinew_graph_t *graph, const sinew_plug_t *plug, double *out,
                                size_t cap, size_t *out_n);
/* Stores n numbers (1 to SINEW_GENERIC_MAX) in a generic numeric input; SINEW_ETYPE for any
 * other attribute, SINEW_ERANGE for a count out of range. */
SINEW_API int sinew_set_generic(sinew_graph_t *graph, const sinew_plug_t *plug,
                                const double *values, size_t n);
/* Brings the plug (and everything it depends on) up to date without reading it. */
SINEW_API int sinew_evaluate(sinew_graph_t *graph, const sinew_plug_t *plug);
/* Brings count plugs up to date with independent branches evaluated at once on the worker
 * pool (sinew/pool.h): from the dirty plugs they depend on, a schedule of the copies and
 * computes to make, each started when the ones it needs are done. The values are bitwise those
 * sinew_evaluate gives plug by plug; a node's own steps keep their order; a compute of a type
 * without SINEW_NODE_TYPE_PARALLEL runs with nothing else running. With a 1-thread pool it is
 * sinew_evaluate on each plug. The caller's thread works too and the call returns when all is
 * done; the one-thread-at-a-time rule for the graph holds for the caller as for any call. */
SINEW_API int sinew_evaluate_parallel(sinew_graph_t *graph, const sinew_plug_t *plugs, size_t count);
/* Marks a plug dirty and pushes dirt downstream as if it had changed (dgdirty). */
SINEW_API int sinew_dirty(sinew_graph_t *graph, const sinew_plug_t *plug);

/* Batches, for the per-frame hot path of hosts and node modules (docs/graph.md "Batches").
 * sinew_get_double_many: reads count numeric plugs into out[i], the values sinew_get_double
 * gives each; a clean top-level scalar is read straight from its slot, anything else through
 * sinew_get_double. Stops at the first failure and returns its code (out[0..i-1] are set).
 * sinew_store_outputs: for a node module that evaluates many nodes of its type outside the
 * pull (as Maya's custom evaluators do; nodes/anim_curve.c on a time change): stores
 * values[i] in the computed output plugs[i] (a numeric, top-level, non-array output), marks it
 * clean and dirties what depends on it, as if its compute had run. The value must be the one
 * the node's compute gives. Every plug is checked first (SINEW_EINVAL names the first wrong
 * one, and nothing is stored); not from inside a compute or an observer. */
SINEW_API int sinew_get_double_many(sinew_graph_t *graph, const sinew_plug_t *plugs, double *out,
                                    size_t count);
SINEW_API int sinew_store_outputs(sinew_graph_t *graph, const sinew_plug_t *plugs,
                                  const double *values, size_t count);
/* sinew_output_batch_*: sinew_store_outputs for the same outputs frame after frame. make checks
 * the plugs as sinew_store_outputs does and keeps them with where their values go (one
 * allocation; the plugs are copied); store puts values[i] into output first + i as
 * sinew_store_outputs would, without looking the nodes up again: the places are found again
 * when nodes or connections were made or deleted, or attributes added or removed, since (an output that
 * is no longer one then fails as in make, nothing stored). No allocation of its own (the dirt
 * pushed may grow the graph's queue once, as any change does). */
typedef struct sinew_output_batch sinew_output_batch_t;
SINEW_API int sinew_output_batch_make(sinew_graph_t *graph, const sinew_plug_t *plugs, size_t count,
                                      sinew_output_batch_t **out);
SINEW_API int sinew_output_batch_store(sinew_graph_t *graph, sinew_output_batch_t *batch, size_t first,
                                       const double *values, size_t count);
SINEW_API void sinew_output_batch_free(sinew_output_batch_t *batch);
/* sinew_read_batch_*: sinew_get_double_many for the same plugs frame after frame, as a host
 * reading its channels does. make copies the plugs and keeps the slot of each one a clean value
 * can be read from (any plug is taken: a wrong one fails when read, as sinew_get_double
 * fails); get reads plug i into out[i] as sinew_get_double_many would, without looking the
 * nodes up again (found again when nodes or connections were made or deleted, or attributes
 * added or removed, since). No allocation. */
typedef struct sinew_read_batch sinew_read_batch_t;
SINEW_API int sinew_read_batch_make(sinew_graph_t *graph, const sinew_plug_t *plugs, size_t count,
                                    sinew_read_batch_t **out);
SINEW_API int sinew_read_batch_get(sinew_graph_t *graph, sinew_read_batch_t *batch, double *out);
SINEW_API void sinew_read_batch_free(sinew_read_batch_t *batch);

/* ---------------------------------------------------------------------------------------------
 * Transactions and undo steps (the change journal, docs/graph.md "The change journal").
 *
 * sinew_graph_begin opens a transaction; transactions nest like SQLite savepoints. While one is
 * open, every change a public call makes is recorded: values (numbers, strings, matrices, data
 * blocks, the "set" mark), array elements made or removed, connections made or broken, plug
 * flags (lock, keyable, channel box), node locks and names, nodes created and deleted (a
 * deleted node is kept, so its handle is valid again after an undo), parents, and dynamic
 * attributes added, renamed and removed. sinew_graph_rollback reverts
 * the changes made since the matching begin and closes it: every value reads back as before,
 * and what is downstream of a reverted value is dirty. A rollback needs no memory and cannot
 * fail for lack of it. sinew_graph_commit closes the innermost transaction; an inner commit
 * keeps its changes in the enclosing one, the outermost commit forgets the records.
 * With no transaction open nothing is recorded. A failing call records nothing (it changes
 * nothing). begin, commit, rollback, undo and redo from observers and hooks fail with
 * SINEW_EINVAL as any change does (sinew_change_free does nothing there). */
typedef struct sinew_change sinew_change_t;
SINEW_API int sinew_graph_begin(sinew_graph_t *graph);
SINEW_API int sinew_graph_commit(sinew_graph_t *graph);
SINEW_API int sinew_graph_rollback(sinew_graph_t *graph);
/* Closes the innermost transaction by the outcome of the work done in it: commits when rc is
 * SINEW_OK, rolls back otherwise (keeping the graph's error, the one that made the work fail).
 * Returns rc, or commit's failure. The usual shape of an all-or-nothing operation:
 *   if ((rc = sinew_graph_begin(g))) return rc;
 *   rc = steps(g);
 *   return sinew_graph_end(g, rc); */
SINEW_API int sinew_graph_end(sinew_graph_t *graph, int rc);
/* How many transactions are open (0: none). */
SINEW_API int sinew_graph_in_transaction(const sinew_graph_t *graph);
/* Commits the outermost transaction (SINEW_EINVAL when nested or none is open) and hands its
 * records to the caller as one undo step. On SINEW_ENOMEM the transaction stays open. */
SINEW_API int sinew_graph_commit_step(sinew_graph_t *graph, sinew_change_t **out);
/* Undo takes the step's changes back, redo makes them again; a step starts done. Both need
 * the graph as the step left it (every later change undone): the caller keeps steps in a
 * stack. A node the step names that was deleted since makes both fail with SINEW_ESTALE; they
 * are refused inside a transaction (SINEW_EINVAL). Only a failed reservation of the dirt
 * propagation can make them fail for memory, before anything changes. Node handles stay
 * valid. */
SINEW_API int sinew_change_undo(sinew_graph_t *graph, sinew_change_t *step);
SINEW_API int sinew_change_redo(sinew_graph_t *graph, sinew_change_t *step);
/* Frees a step (what it holds of the state not live with it: a node the step deleted, or made
 * and is undone, goes now, its type's destroy callback with it). Steps the host did not free go
 * with sinew_graph_destroy. Free them in history order, as an undo queue drops them: done steps
 * oldest first, undone steps newest first. A step may point at state a later step owns (a
 * connection one step made and a later one broke), so undoing or redoing a step after a later
 * done step was freed is not allowed (the stack rule above). */
SINEW_API void sinew_change_free(sinew_graph_t *graph, sinew_change_t *step);
/* True for NULL or a step that changed nothing. */
SINEW_API bool sinew_change_empty(const sinew_change_t *step);

/* A host's own record in the journal, for state the host keeps beside the graph (a session's
 * selection, per-node records ...). data holds the state the host does not have now; swap
 * exchanges it with the live one (called with the records around it, backwards on rollback and
 * undo, forwards on redo). swap must not allocate, fail or change the graph. release frees what
 * data owns when the record goes; `done` tells which state data holds then: true when the change
 * is in effect (data holds the state before it), false when it was taken back (data holds the
 * change). Protocol: call sinew_graph_record (it may fail with SINEW_ENOMEM; then change
 * nothing), then make the change. With no transaction open it records nothing and returns 0
 * (release is called at once with done = true). */
typedef struct sinew_record_ops {
  void (*swap)(sinew_graph_t *graph, void *data);
  void (*release)(sinew_graph_t *graph, void *data, bool done);
} sinew_record_ops_t;
SINEW_API int sinew_graph_record(sinew_graph_t *graph, const sinew_record_ops_t *ops, void *data);

/* ---------------------------------------------------------------------------------------------
 * Compute context: how a compute callback reads and writes. Inputs are read with the ordinary
 * sinew_get_* calls (they pull upstream first); outputs are written with these, which mark
 * them clean. Writing an input or another node's plug is refused.
 * compute is called with the plug being read; for an output array it is always an element
 * ("outs[3]"): reading the whole array computes each of its dirty elements in turn.
 */
SINEW_API sinew_graph_t *sinew_compute_graph(sinew_compute_t *ctx);
SINEW_API sinew_node_t sinew_compute_node(sinew_compute_t *ctx);
SINEW_API void *sinew_compute_state(sinew_compute_t *ctx);
/* Long computes (an expression's loop) poll this: true when the host called
 * sinew_graph_interrupt(). Reading it true takes the request (the flag is cleared), so one
 * interrupt stops one compute; the compute then keeps its outputs' last values. */
SINEW_API bool sinew_compute_interrupted(sinew_compute_t *ctx);
/* The fast path: reads an attribute of the node being computed by its id (looked up once, at
 * registration, with sinew_node_type_attr), without building a plug or searching for it. For
 * an attribute at the top level or a child of a top-level compound, not an array nor under one;
 * it answers the same as sinew_get_double / sinew_get_doubles / sinew_get_matrix on that plug
 * (an input that is still dirty, one not declared to affect the plug being computed, is pulled
 * first, as those do), and any other attribute goes through them. An id the node does not have
 * is SINEW_EINVAL, a value of another kind SINEW_ETYPE, both with a message naming the node. */
SINEW_API int sinew_compute_get_double(sinew_compute_t *ctx, uint32_t attr, double *out);
/* The children of a numeric compound (up to count), or one number. */
SINEW_API int sinew_compute_get_doubles(sinew_compute_t *ctx, uint32_t attr, double *out, size_t count);
SINEW_API int sinew_compute_get_matrix(sinew_compute_t *ctx, uint32_t attr, sinew_mat4_t *out);
/* An output of the node being computed, only when it is up to date: true and its matrix in
 * *out, or false (nothing computed) when it is dirty or not a matrix reachable by id as above.
 * A compute that makes several outputs from one intermediate (a transform's local matrix for
 * its matrix and worldMatrix) keeps it in one output and takes it back from there while no
 * input of that output changed. */
SINEW_API bool sinew_compute_peek_matrix(sinew_compute_t *ctx, uint32_t attr, sinew_mat4_t *out);
SINEW_API int sinew_compute_set_double(sinew_compute_t *ctx, const sinew_plug_t *plug, double v);
SINEW_API int sinew_compute_set_doubles(sinew_compute_t *ctx, const sinew_plug_t *plug,
                                        const double *values, size_t n);
/* Generic numeric outputs: n numbers, 1 to SINEW_GENERIC_MAX (the output takes that shape). */
SINEW_API int sinew_compute_set_generic(sinew_compute_t *ctx, const sinew_plug_t *plug,
                                        const double *values, size_t n);
SINEW_API int sinew_compute_set_matrix(sinew_compute_t *ctx, const sinew_plug_t *plug,
                                       const sinew_mat4_t *value);
SINEW_API int sinew_compute_set_string(sinew_compute_t *ctx, const sinew_plug_t *plug,
                                       const char *value);
SINEW_API int sinew_compute_set_data(sinew_compute_t *ctx, const sinew_plug_t *plug,
                                     sinew_data_t *data);
/* Marks an output clean keeping its value (a compute that decides nothing changed). */
SINEW_API int sinew_compute_set_clean(sinew_compute_t *ctx, const sinew_plug_t *plug);

/* ---------------------------------------------------------------------------------------------
 * Connections.
 */
enum sinew_connect_flags {
  SINEW_CONNECT_FORCE = 1u << 0,          /* replace an existing incoming connection */
  SINEW_CONNECT_NEXT_AVAILABLE = 1u << 1, /* dst is an array: use its next free index */
  SINEW_CONNECT_LOCK = 1u << 2,           /* lock the destination afterwards */
  SINEW_CONNECT_IGNORE_LOCK = 1u << 3     /* connect into a locked destination (it stays locked),
                                             as Maya does reading its own files */
};

/* Connects src -> dst (source first, as connectAttr). Types must be compatible; a connection
 * that would close a cycle is refused with the path in the message. With NEXT_AVAILABLE the
 * chosen destination is returned in *out_dst (may be NULL).
 * One connection feeds a plug: besides dst itself, a plug above dst ("t" for "t.tx", the whole
 * array for an element) or inside it must not be a destination already. Either way the
 * call fails with SINEW_ECONNECTED, unless FORCE is given: then those connections break (their
 * destinations keep their values, as on disconnect) and the new one is made. */
SINEW_API int sinew_connect(sinew_graph_t *graph, const sinew_plug_t *src,
                            const sinew_plug_t *dst, uint32_t flags, sinew_plug_t *out_dst);
/* Breaks src -> dst. The destination keeps its last value as a stored value (it is brought up
 * to date first; if that fails, the connection stays). */
SINEW_API int sinew_disconnect(sinew_graph_t *graph, const sinew_plug_t *src,
                               const sinew_plug_t *dst);
/* The source feeding dst (exactly this plug; not its parent's). false when none. */
SINEW_API bool sinew_plug_source(const sinew_graph_t *graph, const sinew_plug_t *dst,
                                 sinew_plug_t *out_src);
/* Destinations fed by exactly this plug: fills up to cap, returns the total. */
SINEW_API size_t sinew_plug_destinations(const sinew_graph_t *graph, const sinew_plug_t *src,
                                         sinew_plug_t *out, size_t cap);

typedef struct sinew_connection {
  sinew_plug_t src;
  sinew_plug_t dst;
  bool implicit; /* made by DAG parenting, not by connectAttr; not saved to files */
} sinew_connection_t;

/* Calls fn for each connection touching node (as source or destination); for every connection
 * of the graph when node is the zero handle. Order: creation order. Implicit DAG connections
 * are included only when include_implicit is true. Stop early by returning false. */
SINEW_API void sinew_foreach_connection(const sinew_graph_t *graph, sinew_node_t node,
                                        bool include_implicit,
                                        bool (*fn)(void *ud, const sinew_connection_t *c),
                                        void *user_data);

/* ---------------------------------------------------------------------------------------------
 * Data blocks: reference-counted, copy-on-write payloads for large values. Passing one along
 * a connection copies nothing; writing to one shared by several holders copies it first.
 * Reference counts are atomic, so blocks may be read from several threads.
 */
typedef struct sinew_data_type {
  const char *name;                              /* "mesh", "doubleArray" */
  /* Deep copy of the payload into dst (same size, zeroed); NULL = memcpy. */
  int (*copy)(void *dst, const void *src, size_t size);
  /* Releases what the payload owns (not the payload itself); NULL = nothing. */
  void (*destroy)(void *payload, size_t size);
} sinew_data_type_t;

/* A new block with a zeroed payload of `size` bytes and one reference. */
SINEW_API int sinew_data_create(const sinew_data_type_t *type, size_t size, sinew_data_t **out);
SINEW_API sinew_data_t *sinew_data_ref(sinew_data_t *data);
SINEW_API void sinew_data_unref(sinew_data_t *data);
SINEW_API const sinew_data_type_t *sinew_data_type(const sinew_data_t *data);
SINEW_API const void *sinew_data_get(const sinew_data_t *data);
SINEW_API size_t sinew_data_size(const sinew_data_t *data);
SINEW_API unsigned sinew_data_refcount(const sinew_data_t *data);
/* Makes *data exclusively owned (copying it if shared) and returns its writable payload;
 * NULL on out-of-memory (then *data is unchanged). */
SINEW_API void *sinew_data_mutable(sinew_data_t **data);

/* ---------------------------------------------------------------------------------------------
 * Introspection.
 */
/* Writes the graph (nodes with their connected plugs, connections, DAG parenting as dashed
 * edges) in Graphviz DOT form. */
SINEW_API int sinew_graph_write_dot(sinew_graph_t *graph, FILE *out);

/* The placeholder nodes (types flagged SINEW_NODE_TYPE_PLACEHOLDER) that plug's value depends on:
 * the plug keeps a stale value when there is one, since a placeholder computes nothing and
 * passes nothing on. Walks upstream along what a pull of the plug follows: the connection
 * feeding the plug, an ancestor or a descendant of it (implicit DAG links included; plain
 * message connections carry no value and are skipped), and for a computed attribute every input
 * its type declares (all elements of an input array, as a pull). The walk stops at each
 * placeholder it meets, so one behind another is not listed; a plug of a placeholder node
 * depends on that node. Each node once, nearest first (fewest steps, then node slot order):
 * fills up to cap handles (out may be NULL when cap is 0) and sets *out_count to the total.
 * Costs one visit per plug and attribute upstream, each once however the graph branches or
 * loops; the graph remembers what each walk found (until a connection is made or broken), so
 * asking for many plugs walks each part once. SINEW_ESTALE / SINEW_ENOTFOUND for
 * a bad plug, SINEW_ENOMEM; on failure out and *out_count are untouched. */
SINEW_API int sinew_plug_placeholders(sinew_graph_t *graph, const sinew_plug_t *plug,
                                      sinew_node_t *out, size_t cap, size_t *out_count);
/* True when sinew_plug_placeholders would find at least one (it stops at the first). false
 * also for a bad plug or out of memory, with the graph's error set. */
SINEW_API bool sinew_plug_depends_on_placeholder(sinew_graph_t *graph, const sinew_plug_t *plug);

#ifdef __cplusplus
}
#endif
#endif /* SINEW_GRAPH_H */
