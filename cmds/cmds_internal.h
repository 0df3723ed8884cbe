/* cmds/cmds_internal.h: what the command files share (sinew__ tier): the session and scene
 * state, per-node records of what a file held that sinew does not model, and helpers for
 * resolving names and plugs with messages that name them. Uses only the public headers. */
#ifndef SINEW_CMDS_INTERNAL_H
#define SINEW_CMDS_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sinew/cmds.h"
#include "sinew/graph.h"
#include "sinew/lang.h"
#include "sinew/mesh.h"
#include "sinew/nodes.h"
#include "sinew/skin.h"
#include "sinew/deform.h"

extern _Thread_local int sinew__cmds_oom;
#define uthash_malloc(sz) sinew_malloc(sz)
#define uthash_free(ptr, sz) sinew_free(ptr)
#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(obj) (sinew__cmds_oom = 1)
#include <uthash.h>

#include "lang/util.h"

/* One setAttr line sinew keeps as text: attr is the attribute path as written (".uvst[0].uvsn"
 * without the dot), text everything after the plug, re-serialised. */
typedef struct sinew__raw {
  char *attr;
  char *text;
} sinew__raw;

/* Geometry a file gave a mesh as ed / fc lines, turned into its stored topology when the
 * node's block of lines ends. */
typedef struct sinew__pending_mesh {
  uint32_t *edges;     /* 2 per edge */
  uint32_t nedges, cedges;
  int32_t *face_edges; /* per face-vertex */
  uint32_t *face_counts;
  uint32_t nfv, cfv, nfaces, cfaces;
  uint32_t nholes;     /* h records seen (sinew meshes have no holes) */
  uint8_t *edge_hard;  /* per edge: its .ed flag was 0 (a hard edge) */
  uint32_t cehard;
  uint32_t *face_uvs;  /* per face-vertex: its UV in set 0 (mu 0 records), UINT32_MAX none */
  uint32_t cfuv;
  bool has_uvs;        /* a mu 0 record was seen */
  bool active;
} sinew__pending_mesh;

/* The -k / -cb record of one plug: the attribute path in short names ("arr[3].ccy", the key),
 * the plug's attribute (a record whose attribute was deleted is stale: not reported, not
 * written, and taken over afresh by an attribute added later under the name), and per flag -1
 * (not given), 0 (off) or 1 (on). */
struct sinew__plug_state {
  char *attr;
  uint32_t attr_id;
  int8_t keyable, channel_box;
  UT_hash_handle hh;
};

/* What the session knows about one node beyond the graph. */
typedef struct sinew__extra {
  uint64_t key; /* index << 32 | gen */
  sinew_node_t node;
  char *uid;
  sinew__raw *raws;
  uint32_t nraws, craws;
  uint32_t *implicit; /* attributes the loader created to hold connections */
  uint32_t nimplicit, cimplicit;
  sinew__pending_mesh mesh;
  /* the ed/fc lines the stored topology was built from, written back while it is unchanged */
  sinew__raw *geom;
  uint32_t ngeom, cgeom;
  const void *geom_topology; /* the topology block those lines made */
  bool is_default;   /* a node Maya always has (time1, :initialShadingGroup ...): select -ne */
  char **dyn_types;  /* attribute name, addAttr -dataType pairs for data attributes */
  uint32_t ndyn, cdyn;
  /* setAttr -k / -cb given on a plug (the graph keeps them but cannot report them), for
   * getAttr -k / -cb and for saving: a hash by attribute path, in the order first given */
  struct sinew__plug_state *states;
  UT_hash_handle hh;
} sinew__extra;

/* A compound addAttr waiting for its children (-nc N, then N addAttr -p lines). */
typedef struct sinew__pending_attr {
  sinew_node_t node;
  sinew_attr_desc_t *descs;
  char **names;  /* strings owned for descs */
  uint32_t n, cap, nnames, cnames;
  uint32_t want; /* children still expected, summed over nested compounds */
} sinew__pending_attr;

/* A connection a file made that the graph cannot hold (a child sinew cannot add to an
 * attribute, types it cannot join): kept to be written back. */
typedef struct sinew__raw_conn {
  sinew_node_t src, dst;
  char *src_attr, *dst_attr;
} sinew__raw_conn;

typedef struct sinew__scene {
  sinew_graph_t *graph;
  sinew__extra *extras;
  sinew_node_t current;      /* the node `setAttr ".x"` lines apply to */
  sinew_node_t *selection;
  uint32_t nsel, csel;
  char **file_info;          /* name, value pairs in order */
  uint32_t nfile_info, cfile_info;
  /* lines kept as written: "requires ..." lines, "\x01"-prefixed header lines (file
   * references, dataStructure) and "\x02"-prefixed lines for the end (relationship) */
  char **requires;
  uint32_t nrequires, crequires;
  char *file_name;
  sinew__pending_attr pending_attr;
  sinew__raw_conn *raw_conns;
  uint32_t nraw_conns, craw_conns;
  int observer;
  sinew_session_stats_t stats;
  char **warned;             /* placeholder types and unknown attributes already warned about */
  uint32_t nwarned, cwarned;
  struct sinew__import *import; /* the innermost file being imported into this scene, or NULL */
  struct sinew__refs *refs;     /* file references read into this scene (cmds/ma_reference.c) */
  /* The playback range (playbackOptions), in frames of the scene's time unit: min, max (what
   * plays), ast, aet (the animation range), by (the step). has_playback once a playbackOptions
   * command or the file's sceneConfigurationScriptNode set it. */
  bool has_playback;
  double pb_min, pb_max, pb_ast, pb_aet, pb_by;
  /* Bumped by every change to state undo does not restore (per-node records, raw connections,
   * fileInfo, requires, scene units): a command that bumps it flushes the undo queue
   * (cmds/undo.c). sinew__side_changed() is the one way to bump it. */
  uint64_t side_gen;
  int applying; /* > 0 while an undo or redo applies a step: the selection is the step's */
} sinew__scene;

static inline void sinew__side_changed(sinew__scene *sc) { sc->side_gen++; }

struct sinew_session {
  sinew_session_desc_t desc;
  sinew_lang_t *lang;
  sinew__scene *scene;
  int loading;       /* > 0 while a .ma file runs: unknown commands warn and are skipped */
  int opening;       /* > 0 while sinew_session_open runs a file: its scene cannot be replaced */
  sinew_error_t err; /* the last failure (sinew__session_error / _take) */
  char errmsg[2048]; /* and its text ("" when none since it was cleared) */
  struct sinew__anim_clipboard *clipboard; /* copyKey's keys (cmds/cmd_anim.c) */
  struct sinew__undo *undo; /* the undo queue (cmds/undo.c) */
};

/* The session's error: set from fields (the reason printf-style, op may be NULL), taken from
 * another layer's record (e may be &s->err after changing it in place), or cleared. Both
 * setters return the status. */
int sinew__session_error(sinew_session_t *s, int status, const char *op, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
int sinew__session_take(sinew_session_t *s, const sinew_error_t *e);
void sinew__session_clear_error(sinew_session_t *s);

/* The undo queue (cmds/undo.c). */
typedef struct sinew__undo sinew__undo;
int sinew__register_undo_cmds(sinew_lang_t *L, sinew_session_t *s);
void sinew__undo_destroy(sinew_session_t *s);
/* Forgets every step (the scene changed in a way the queue did not record). */
void sinew__undo_flush(sinew_session_t *s);
/* While a file's lines run, each is a top-level command (a transaction of its own, so a line
 * that fails and is skipped changes nothing), even when a command reads the file: begin
 * returns the command depth that end gives back. */
int sinew__undo_file_begin(sinew_session_t *s);
void sinew__undo_file_end(sinew_session_t *s, int depth);
/* Whether the queue's steps belong to the current scene (not while file -open builds a new one). */
bool sinew__undo_owns(const sinew_session_t *s);
/* The scene was replaced (file -open, file -new): what is open on the old graph is committed and
 * the queue forgotten; call before the old scene is destroyed. */
void sinew__undo_scene_replaced(sinew_session_t *s, sinew_graph_t *old);
/* Runs fn (a change the session makes outside any command) as an undo step of its own, when
 * pending(s) says there is something to do. Out of memory to record it, fn is not run (what it
 * does must be safe to do later). */
void sinew__undo_run_outside(sinew_session_t *s, void (*fn)(sinew_session_t *), const char *name,
                             bool (*pending)(sinew_session_t *));

/* Transform helpers shared by the rig and transform commands (cmds/cmd_rig.c). */
/* The plug of a node's top-level attribute by name (an invalid plug when it has none). */
sinew_plug_t sinew__attr_plug(sinew_graph_t *g, sinew_node_t n, const char *name);
/* The matrix a node's local matrix is multiplied by to reach the world: offsetParentMatrix
 * times the parent's world matrix (identity when it does not inherit). */
int sinew__above_local(sinew_graph_t *g, sinew_node_t n, sinew_mat4_t *out);
/* A name no node has (create commands give every object a unique name, as Maya does): want
 * when it is free, else with its trailing number increased (written into buf). NULL or '#'
 * names are returned as they are, for the graph's automatic naming. */
const char *sinew__unique_name(sinew_graph_t *g, const char *want, char *buf, size_t size);
/* Maya's rotate order names by value (xyz = 0 ... zyx = 5), and a name's value (-1: none). */
extern const char *const sinew__rotate_orders[6];
int sinew__rotate_order_from(const char *s);

/* A copy of s through the allocation funnel; NULL on out-of-memory. */
char *sinew__cmds_strdup(const char *s);
/* Maya's name wildcards ('*' any run, '?' one character, neither crossing ':' or '|'): whether
 * name matches pattern whole. */
bool sinew__wildcard_match(const char *pattern, const char *name);

/* Whether some node is in namespace ns ("ns:"). */
bool sinew__namespace_used(sinew_graph_t *g, const char *ns);

/* File references (cmds/ma_reference.c). */
typedef struct sinew__refs sinew__refs;
void sinew__refs_free(sinew__refs *r);
/* file -r: finds and loads the referenced file (a missing one is a warning). */
int sinew__reference_load(sinew_cmd_t *cmd, const char *path);
/* file -lr / -ur: load or unload the reference of reference node rfn. */
int sinew__reference_load_state(sinew_cmd_t *cmd, const char *rfn, bool load);
/* referenceQuery. */
int sinew__register_reference_cmds(sinew_lang_t *L, sinew_session_t *s);
/* Whether a referenced file is being read (its own file -r / -rdi lines are not the scene's). */
bool sinew__reading_reference(sinew_session_t *s);
/* Around every .ma file read: begin remembers which file is read (for finding the files it
 * references); end applies the edits of the references it loaded and, for the outermost
 * file, remembers the referenced nodes' values and connections. end returns rc or a new error. */
int sinew__refs_file_begin(sinew_session_t *s, const char *path, const char **saved);
int sinew__refs_file_end(sinew_session_t *s, const char *saved, int rc);
/* The reference node name of the reference node n was read from, or NULL for a scene node. */
const char *sinew__node_reference(sinew_session_t *s, sinew_node_t n);
/* The writer's hooks: begin works out the edits and placeholder connections to write, end
 * forgets them; skip_node says a node is not written (a referenced one); write_raw writes a
 * reference node's .ed in place of the text kept (true when it did); write_node_end adds the
 * .ed of a reference node that had none; write_conn handles a connection touching a referenced
 * node (true): nothing for the reference's own, and for one between the scene and a referenced
 * node nothing, or (placeholders) its placeHolderList form: the writer writes those after every
 * other connection, where reading them back makes them, so saving again gives the same order. */
int sinew__refs_save_begin(sinew_session_t *s);
void sinew__refs_save_end(sinew_session_t *s);
bool sinew__refs_skip_node(sinew_session_t *s, sinew_node_t n);
/* The fosterParent node a scene node under a referenced parent is written under (NULL for
 * others); *create says the writer must write that node first (once). */
const char *sinew__refs_foster(sinew_session_t *s, sinew_node_t n, bool *create);
bool sinew__refs_write_raw(sinew_session_t *s, sinew_node_t n, const sinew__raw *raw, sinew__buf *b);
void sinew__refs_write_node_end(sinew_session_t *s, sinew_node_t n, sinew__buf *b);
bool sinew__refs_write_conn(sinew_session_t *s, const sinew_connection_t *c, bool placeholders, sinew__buf *b);
/* The setAttr lines the writer gives node n's values (cmds/ma_write.c), appended to out. */
int sinew__ma_node_values(sinew_session_t *s, sinew_node_t n, sinew__buf *out);

/* Scenes. */
int sinew__scene_create(sinew_session_t *s, sinew__scene **out);
void sinew__scene_destroy(sinew__scene *sc);
/* The record of a node (created on demand when create is true; NULL on out-of-memory). */
sinew__extra *sinew__extra_get(sinew__scene *sc, sinew_node_t n, bool create);
int sinew__extra_add_raw(sinew__scene *sc, sinew_node_t n, const char *attr, const char *text);
/* Forgets the values kept as text for attribute `name` of n (and its elements and children): an
 * attribute of that name was just added, and the kept line, written back after the attribute's
 * own value, would override it on the next read. Maya would have refused that setAttr anyway. */
void sinew__extra_drop_raws(sinew__scene *sc, sinew_node_t n, const char *name);
/* The -k / -cb record of a plug (created when create is true; NULL when none or out of memory).
 * *made (may be NULL) says whether the call created it. A stale record (its attribute deleted)
 * is not found; with create it is reset and taken over. A hash lookup: O(1) per plug. */
struct sinew__plug_state *sinew__plug_state(sinew__scene *sc, const sinew_plug_t *p, bool create, bool *made);
/* Records the -k / -cb values of st in the graph's open transaction (nothing without one), so
 * undo puts them back: call before changing them. SINEW_ENOMEM: record nothing, change nothing. */
int sinew__plug_state_record(sinew__scene *sc, struct sinew__plug_state *st);
/* Removes one record of node n (a record a failed command made). */
void sinew__plug_state_drop(sinew__scene *sc, sinew_node_t n, struct sinew__plug_state *st);
/* Removes node n's records whose attribute is gone (after deleteAttr). */
void sinew__plug_states_prune(sinew__scene *sc, sinew_node_t n);
/* Whether a record still belongs to an attribute of node n. */
bool sinew__plug_state_live(sinew_graph_t *g, sinew_node_t n, const struct sinew__plug_state *st);
bool sinew__extra_is_implicit(sinew__scene *sc, sinew_node_t n, uint32_t attr);
int sinew__extra_mark_implicit(sinew__scene *sc, sinew_node_t n, uint32_t attr);
/* Turns a mesh node's pending ed/fc lines into its stored topology. */
int sinew__finish_mesh(sinew_session_t *s, sinew_node_t n);
/* Finishes the current node's pending data (called when the current node changes and at the
 * end of a run). */
int sinew__finish_current(sinew_session_t *s);
/* Logs a warning once per key (a type name, "type.attr"). */
void sinew__warn_once(sinew_session_t *s, sinew_cmd_t *cmd, sinew_log_id_t id, const char *key,
                      const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static inline sinew_session_t *sinew__session(sinew_cmd_t *cmd) {
  return (sinew_session_t *)sinew_cmd_user_data(cmd);
}

/* Finds a node by name, path or ":name" ; fails the command with a message naming it. */
int sinew__cmd_node(sinew_cmd_t *cmd, const char *name, sinew_node_t *out);
/* Parses a plug ("node.attr[2].child", or ".attr" on the current node); fails naming it. */
int sinew__cmd_plug(sinew_cmd_t *cmd, const char *text, sinew_plug_t *out);
/* The first of names[0..count) given as a flag of cmd, or NULL: for the flags a command
 * refuses in its mode ("-%s is not supported", "-%s needs -edit" ...). */
const char *sinew__cmd_given_flag(const sinew_cmd_t *cmd, const char *const *names, size_t count);
/* A node's name as text (for results): its shortest unique name, as Maya's (the fewest
 * trailing levels of its DAG path that name it alone). Borrowed buffer. */
const char *sinew__node_label(sinew_graph_t *g, sinew_node_t n, char *buf, size_t size);
/* A plug as text for results: the node's name as sinew__node_label gives it, then the
 * attribute ("a1|b.translateX"). Returns buf. */
const char *sinew__plug_label(sinew_graph_t *g, const sinew_plug_t *p, char *buf, size_t size);

/* Whether a plug is on one of sinew's own attributes (built-in, hidden, not stored, named
 * "sinew*", such as the IK wiring of sinew_ik_wire): their connections are made again when a
 * scene is read, so they are not saved, and duplicate does not copy them. */
bool sinew__own_plug(sinew_graph_t *g, const sinew_plug_t *p);

/* Placeholders: registers type `name` for a type sinew does not implement (DAG when dag). */
int sinew__placeholder_type(sinew_session_t *s, sinew_cmd_t *cmd, const char *name, bool dag);
bool sinew__is_placeholder(sinew_graph_t *g, sinew_node_t n);
/* Creates (on node n) the attribute path of a plug text such as "og[0].ig" that does not exist,
 * as implicit dynamic attributes shaped like `like` (type copied; NULL = message). */
int sinew__implicit_attr(sinew_session_t *s, sinew_node_t n, const char *attr_path,
                         const sinew_plug_t *like, sinew_plug_t *out);

/* Imports (file -i). While a file is imported, the names it gives nodes mean the nodes it made,
 * whatever they were renamed to on a clash: every lookup of a node name by a command consults
 * the import's names first (sinew__find_node), then the scene. Each import (nested ones too) has
 * its own names, dropped when it ends; a failing import puts the scene back as it was. */
typedef struct sinew__import_opts {
  const char *ns;     /* -namespace: every node made goes in it (NULL or "" or ":": none) */
  const char *prefix; /* -renamingPrefix: a clashing name becomes prefix_name */
  bool rename_all;    /* -renameAll: every name gets the prefix, clashing or not */
  bool merge_ns;      /* -mergeNamespacesOnClash: an existing namespace is used as it is */
} sinew__import_opts;
/* Reads a .ma file into the current scene as an import (opts may be NULL). On failure the scene
 * is as it was and s->errmsg says why. */
int sinew__import_file(sinew_session_t *s, const char *path, const sinew__import_opts *opts);
/* A node by name, path or ":name": the running import's names first. SINEW_ENOTFOUND,
 * SINEW_EAMBIGUOUS or SINEW_OK; no message. */
int sinew__find_node(sinew_session_t *s, const char *name, sinew_node_t *out);
/* The name to give a node the file names `name` (NULL: automatic, from type) while a file is
 * imported: in the import's namespace, or with its prefix on a clash. *out is NULL when the
 * name stays as it is (and always outside an import); otherwise sinew_free it. shared: a
 * createNode -s node, which stays in the root namespace. */
int sinew__import_node_name(sinew_session_t *s, const char *name, const char *type, bool shared,
                            char **out);
/* Records that the file's name `file_name` (NULL: the node's own name, less the namespace or
 * prefix the import added) means node n. Does nothing outside an import. */
int sinew__import_record(sinew_session_t *s, const char *file_name, sinew_node_t n);
/* Whether n is a node the running import made (false outside an import). */
bool sinew__import_owns(sinew_session_t *s, sinew_node_t n);

/* Units: converting numbers between the scene's units and internal ones for an attribute. */
double sinew__unit_in(sinew_graph_t *g, sinew_attr_type_t type);  /* scene unit -> internal factor */
/* A value in the scene's units to internal units and back (time divides and multiplies by the
 * frame rate, so whole frames come back whole). */
double sinew__unit_to_internal(sinew_graph_t *g, sinew_attr_type_t type, double v);
double sinew__unit_to_ui(sinew_graph_t *g, sinew_attr_type_t type, double v);
/* Maya's name of an attribute's type, as attributeQuery -at and addAttr -q -at give it
 * ("doubleLinear", "double3", "enum", "typed" for strings and data ...). */
const char *sinew__maya_attr_type(const sinew_attr_info_t *info);
/* The members of an objectSet in the set's order (DAG members, then the others): *out is
 * allocated (sinew_free it), or the command fails with its message. */
int sinew__set_members(sinew_cmd_t *cmd, sinew_node_t set, sinew_node_t **out, uint32_t *count);
/* delete -ch (cmds/cmd_history.c): deletes the construction history of the nodes' shapes, which
 * keep the geometry they evaluate to now. Fails the command with its message. */
int sinew__delete_history(sinew_cmd_t *cmd, const sinew_node_t *nodes, size_t count);
/* Maya's nice name made from an attribute's long name: "translateX" -> "Translate X". */
void sinew__attr_nice_name(const char *name, char *out, size_t size);

/* Fails the command with the graph's last message, without repeating the command's name when
 * the graph's message already starts with it ("setAttr: setAttr: ..."). */
int sinew__graph_error(sinew_cmd_t *cmd, int status);

/* Command registration per file. */
int sinew__register_core_cmds(sinew_lang_t *L, sinew_session_t *s);
int sinew__register_attr_cmds(sinew_lang_t *L, sinew_session_t *s);
/* Attribute aliases (cmd_alias.c): aliasAttr; a file's `.aal` line (setAttr of the node's
 * attributeAliasList: the pairs become the graph's aliases of node n); the writer's addAttr
 * and setAttr lines for a node that has aliases. */
int sinew__register_alias_cmds(sinew_lang_t *L, sinew_session_t *s);
bool sinew__is_alias_list_attr(const char *name);
int sinew__set_alias_list(sinew_cmd_t *cmd, sinew_node_t n);
void sinew__ma_write_alias_attr(sinew_graph_t *g, sinew_node_t n, sinew__buf *b);
void sinew__ma_write_aliases(sinew_graph_t *g, sinew_node_t n, sinew__buf *b);
int sinew__register_rig_cmds(sinew_lang_t *L, sinew_session_t *s);
int sinew__register_curve_cmds(sinew_lang_t *L, sinew_session_t *s); /* cmd_curve.c */
/* cmd_curve.c: the nurbsCurve shape a name gives (the shape, or the one under a transform);
 * fails the command naming it. */
int sinew__curve_shape_of(sinew_cmd_t *cmd, const char *name, sinew_node_t *out);
/* cmd_curve.c: a transform (`name`, else `base#`; under parent when it is valid) and a
 * nurbsCurve shape "<transform>Shape" under it, as Maya names them. */
int sinew__make_curve_shape(sinew_cmd_t *cmd, const char *name, const char *base, sinew_node_t parent,
                            sinew_node_t *xf, sinew_node_t *shape);
int sinew__register_skin_cmds(sinew_lang_t *L, sinew_session_t *s);
int sinew__register_anim_cmds(sinew_lang_t *L, sinew_session_t *s);
int sinew__register_everyday_cmds(sinew_lang_t *L, sinew_session_t *s);
int sinew__register_duplicate_cmds(sinew_lang_t *L, sinew_session_t *s);
int sinew__register_sets_cmds(sinew_lang_t *L, sinew_session_t *s);
int sinew__register_constraint_cmds(sinew_lang_t *L, sinew_session_t *s);
int sinew__register_ik_cmds(sinew_lang_t *L, sinew_session_t *s);
/* blendShape and cluster (cmds/cmd_deform.c). */
int sinew__register_deform_cmds(sinew_lang_t *L, sinew_session_t *s);
/* The mesh shape a name stands for: the mesh itself, or a transform's first non-intermediate
 * mesh child. */
bool sinew__mesh_shape(sinew_graph_t *g, sinew_node_t n, sinew_node_t *out);
/* Puts deformer def (just created) on shape's deformer chain as Maya builds it (cmds/cmd_deform.c):
 * an Orig when the shape has no deformer yet, a groupId, a groupParts whose inputComponents are
 * `components` (NULL: every point) and an objectSet; last in the chain, or first with front. */
int sinew__deformer_insert(sinew_cmd_t *cmd, sinew_node_t def, sinew_node_t shape, bool front,
                           const sinew_data_t *components);
/* Joins every ikHandle not yet joined to its chain (sinew_ik_wire); one that cannot be warns
 * once (cmds/cmd_ik.c). Runs after each script or file. */
void sinew__ik_wire_all(sinew_session_t *s);
/* Makes every blendShape's origin-world wiring match its origin (sinew_blend_shape_wire_world);
 * one that cannot warns. _any: whether the scene has blendShapes (allocates nothing). */
void sinew__blend_shape_wire_all(sinew_session_t *s);
bool sinew__blend_shape_any(sinew_session_t *s);
/* Whether the scene has ikHandles (sinew__ik_wire_all may have work); allocates nothing. */
bool sinew__ik_any(sinew_session_t *s);
/* Frees copyKey's clipboard (session destroy). */
void sinew__anim_clipboard_free(sinew_session_t *s);
/* Runs the sceneConfigurationScriptNode's text of a file just opened (playbackOptions only). */
int sinew__run_scene_config(sinew_session_t *s);
/* The text Maya keeps in the sceneConfigurationScriptNode for the scene's playback range
 * ("playbackOptions -min 1 -max 120 -ast 1 -aet 200 "); NULL on out of memory. sinew_free it. */
char *sinew__playback_script(const sinew__scene *sc);
/* Writes the scene's range into its sceneConfigurationScriptNode's text (when it has both and
 * the text holds only playbackOptions); the writer calls it before saving. */
int sinew__sync_playback_node(sinew_session_t *s);

/* Whether a path names a Maya ASCII file: it ends in ".ma", in any case (as the CLI reads it).
 * Every place that chooses between reading a .ma file and running a script asks this. */
bool sinew__is_ma_path(const char *path);

/* The .ma writer (cmds/ma_write.c). */
int sinew__write_ma(sinew_session_t *s, FILE *out, const char *name);

#endif
