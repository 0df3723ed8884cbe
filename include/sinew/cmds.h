/* sinew/cmds.h: Maya's commands and Maya ASCII files.
 *
 * A session is what a user of Maya would call "the scene plus the script editor": a graph with
 * the built-in node types, a language context with Maya's commands registered (createNode,
 * setAttr, connectAttr, skinCluster, skinPercent, dagPose, expression, file, ...; docs/commands.md
 * lists every command and flag), and the state those commands share: the current node that
 * `setAttr ".attr"` lines in a .ma file apply to, the selection, fileInfo and requires lines, and
 * what a file held that sinew does not model (node types it does not implement become
 * placeholder nodes that keep their attributes and connections, so saving writes them back).
 *
 * Reading a .ma file is running it (file -open / -import, sinew_session_open); the file is
 * opened once and read whole before it is parsed (a named pipe is fine). Writing is
 * sinew_session_save (file -save), through sinew/io.h: a temporary file beside the target,
 * fsynced and renamed over it, so a failure never destroys the old file.
 *
 * Like the graph, a session is not thread-safe.
 */
#ifndef SINEW_CMDS_H
#define SINEW_CMDS_H

#include "sinew/graph.h"
#include "sinew/lang.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sinew_session sinew_session_t;

typedef struct sinew_session_desc {
  sinew_log_fn logger;  /* warnings (unknown node types, skipped commands) and script output */
  void *logger_data;
  void (*print)(void *user_data, const char *text); /* `print` output; NULL = logger only */
  void *print_data;
  /* Reading a .ma file, a command that fails is logged (COMMAND_FAILED) and skipped, as Maya
   * does. strict makes it fail the whole read instead (file -open then keeps the old scene). */
  bool strict;
} sinew_session_desc_t;

/* A new session with an empty scene (time1 present, units cm / degree / film). desc may be NULL. */
SINEW_API int sinew_session_create(const sinew_session_desc_t *desc, sinew_session_t **out);
SINEW_API void sinew_session_destroy(sinew_session_t *session);
/* The current scene. It changes when a file is opened (file -open / -new): do not keep the
 * pointer across those. */
SINEW_API sinew_graph_t *sinew_session_graph(const sinew_session_t *session);
SINEW_API sinew_lang_t *sinew_session_lang(const sinew_session_t *session);

/* Runs script text (MEL or the text of a .ma file) in the current scene. A failing command
 * stops the script and is itself undone; the message (sinew_session_errmsg) names the file,
 * line, command, node and plug. */
SINEW_API int sinew_session_run(sinew_session_t *session, const char *text, size_t len,
                                const char *name, sinew_value_t *result);
/* Runs a .mel script or imports a .ma file into the current scene (file -import). */
SINEW_API int sinew_session_run_file(sinew_session_t *session, const char *path,
                                     sinew_value_t *result);
/* file -open: reads the file into a new scene; on success it replaces the current one, on
 * failure the current scene is untouched. While a file is being opened or imported, its lines
 * cannot replace the scene under it: file -open and file -new from inside fail (SINEW_EINVAL). */
SINEW_API int sinew_session_open(sinew_session_t *session, const char *path);
/* file -new: an empty scene (SINEW_EINVAL while a file is being opened or imported). */
SINEW_API int sinew_session_new_scene(sinew_session_t *session);
/* file -save -type "mayaAscii": writes the current scene, whole or not at all (sinew/io.h: the
 * target's mode is kept, a symbolic link is written through). On failure the old file is as it
 * was and the message names the file and the reason ("file -save: s.ma: No space left on
 * device"); SINEW_EIO, SINEW_ENOMEM, or what writing the scene returned. */
SINEW_API int sinew_session_save(sinew_session_t *session, const char *path);
/* Writes the scene as Maya ASCII to a stream (what save writes). name goes in the header. */
SINEW_API int sinew_session_write_ma(sinew_session_t *session, FILE *out, const char *name);
/* The scene's file name (file -q -sn), "" when it has none. */
SINEW_API const char *sinew_session_file_name(const sinew_session_t *session);
/* The reference node ("heroRN") of the file reference a node was read from (file -r), or NULL
 * for a node of the scene's own. Valid until the scene changes. */
SINEW_API const char *sinew_session_node_reference(const sinew_session_t *session, sinew_node_t node);
/* The scene's playback range (playbackOptions, or the sceneConfigurationScriptNode of the file
 * opened), in frames: {min, max, animation start, animation end}. false when the scene has none
 * (out is then not written). out may be NULL. */
SINEW_API bool sinew_session_playback_range(const sinew_session_t *session, double out[4]);
/* The last failure's text (sinew_session_errmsg: "rig.mel:12: setAttr: joint1.foo: ...") and
 * fields (never NULL; code 0 when there was none): the file, line and column the script had
 * reached, the command, the node and plug (sinew_error_t in sinew/graph.h). */
SINEW_API const char *sinew_session_errmsg(const sinew_session_t *session);
SINEW_API const sinew_error_t *sinew_session_error(const sinew_session_t *session);

/* The undo queue (Maya's undo, redo, undoInfo, flushUndo; docs/commands.md "Undo").
 * Each top-level command a script or the host runs is one undo step (a command that makes
 * several nodes is one step; nested commands belong to the outer one); a failing command adds no
 * step and leaves the scene as it was. Reading a file runs with the queue off and, like opening
 * or creating a file, flushes the queue. The queue keeps the 50 newest steps unless set otherwise.
 *
 * undo / redo: SINEW_ENOTFOUND when there is nothing to undo / redo (the undo command warns);
 * SINEW_EINVAL while an undo chunk is open; SINEW_ESTALE (the queue is then flushed) when a
 * node a step names was deleted outside the queue. Node handles stay valid across both. */
SINEW_API int sinew_session_undo(sinew_session_t *session);
SINEW_API int sinew_session_redo(sinew_session_t *session);
SINEW_API bool sinew_session_can_undo(const sinew_session_t *session);
SINEW_API bool sinew_session_can_redo(const sinew_session_t *session);
/* The command text of the step undo / redo would take ("" when none): undoInfo -q -undoName. */
SINEW_API const char *sinew_session_undo_name(const sinew_session_t *session);
SINEW_API const char *sinew_session_redo_name(const sinew_session_t *session);
/* How many steps can be undone. */
SINEW_API size_t sinew_session_undo_count(const sinew_session_t *session);
/* Forgets every step (flushUndo). */
SINEW_API void sinew_session_flush_undo(sinew_session_t *session);
/* undoInfo -state (flush true) / -stateWithoutFlush (flush false). Off: commands run without
 * transactions and add no steps. */
SINEW_API int sinew_session_set_undo_state(sinew_session_t *session, bool on, bool flush);
SINEW_API bool sinew_session_undo_state(const sinew_session_t *session);
/* undoInfo -length / -infinity: a finite queue keeps the `length` newest steps. */
SINEW_API int sinew_session_set_undo_length(sinew_session_t *session, bool infinite, uint32_t length);
/* undoInfo -openChunk [-chunkName name] / -closeChunk: the commands between are one step
 * (nested chunks count; the outermost closes the step). */
SINEW_API int sinew_session_chunk_open(sinew_session_t *session, const char *name);
SINEW_API int sinew_session_chunk_close(sinew_session_t *session);
/* Called after every change of the queue (a step added, undone, redone, dropped, flushed), so a
 * host can update its Undo / Redo menu items. NULL removes it. */
SINEW_API void sinew_session_set_undo_observer(sinew_session_t *session,
                                               void (*fn)(void *user_data, sinew_session_t *session),
                                               void *user_data);

/* What a loaded file held that sinew keeps without modelling it. */
typedef struct sinew_session_stats {
  size_t placeholder_nodes;   /* nodes of types sinew does not implement */
  size_t placeholder_types;
  size_t raw_values;          /* setAttr lines kept as text (unknown attributes) */
  size_t raw_connections;     /* connectAttr lines kept as text (the graph cannot hold them) */
  size_t skipped_commands;    /* commands sinew does not know, skipped with a warning */
  size_t failed_commands;     /* commands that failed and were skipped while reading files */
} sinew_session_stats_t;
SINEW_API void sinew_session_stats(const sinew_session_t *session, sinew_session_stats_t *out);

#ifdef __cplusplus
}
#endif
#endif
