/* cmds/undo.c: the session's undo queue (Maya's undo, redo, undoInfo, flushUndo) on the graph's
 * change journal (docs/commands.md "Undo").
 *
 * Every top-level command runs inside a transaction (sinew_lang_set_command_wrapper): on success
 * the transaction becomes an undo step (an empty one is dropped), on failure it is rolled back.
 * Commands a command runs (eval, a proc's lines inside one) belong to the outer step. The
 * session's small state beside the graph (selection, current node, playback range) is snapshot
 * before each command and, when the command changed it, kept in the step as a host record
 * (sinew_graph_record). The rest of the session's state (per-node records, raw connections,
 * fileInfo, requires, scene units) is not recorded: a command that changes it bumps
 * sc->side_gen, and the queue is flushed after it, so undo never gives a wrong scene. */
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds_internal.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the small state record -------------------------------------------------------------------- */

/* The session state a command may change beside the graph and that undo puts back. */
typedef struct side_state {
  sinew_node_t *sel;
  uint32_t nsel, csel;
  sinew_node_t current;
  bool has_playback;
  double pb[5];
} side_state;

static int side_take(const sinew__scene *sc, side_state *st) {
  memset(st, 0, sizeof *st);
  if (sc->nsel) {
    st->sel = sinew_malloc(sc->nsel * sizeof *st->sel);
    if (!st->sel) return SINEW_ENOMEM;
    memcpy(st->sel, sc->selection, sc->nsel * sizeof *st->sel);
    st->nsel = st->csel = sc->nsel;
  }
  st->current = sc->current;
  st->has_playback = sc->has_playback;
  st->pb[0] = sc->pb_min, st->pb[1] = sc->pb_max, st->pb[2] = sc->pb_ast, st->pb[3] = sc->pb_aet;
  st->pb[4] = sc->pb_by;
  return SINEW_OK;
}

static bool side_same(const sinew__scene *sc, const side_state *st) {
  return st->nsel == sc->nsel && (!st->nsel || memcmp(st->sel, sc->selection, st->nsel * sizeof *st->sel) == 0) &&
         st->current.index == sc->current.index && st->current.gen == sc->current.gen &&
         st->has_playback == sc->has_playback && st->pb[0] == sc->pb_min && st->pb[1] == sc->pb_max &&
         st->pb[2] == sc->pb_ast && st->pb[3] == sc->pb_aet && st->pb[4] == sc->pb_by;
}

/* Exchanges st with the live state: moves pointers and numbers only. */
static void side_exchange(sinew__scene *sc, side_state *st) {
  side_state live = {sc->selection, sc->nsel, sc->csel, sc->current, sc->has_playback,
                     {sc->pb_min, sc->pb_max, sc->pb_ast, sc->pb_aet, sc->pb_by}};
  sc->selection = st->sel, sc->nsel = st->nsel, sc->csel = st->csel;
  sc->current = st->current;
  sc->has_playback = st->has_playback;
  sc->pb_min = st->pb[0], sc->pb_max = st->pb[1], sc->pb_ast = st->pb[2], sc->pb_aet = st->pb[3];
  sc->pb_by = st->pb[4];
  *st = live;
}

/* The journal record: the scene it belongs to and the state not live. */
typedef struct side_rec {
  sinew__scene *sc;
  side_state st;
} side_rec;

static void side_swap(sinew_graph_t *g, void *data) {
  (void)g;
  side_rec *r = data;
  side_exchange(r->sc, &r->st);
}

static void side_release(sinew_graph_t *g, void *data, bool done) {
  (void)g;
  (void)done;
  side_rec *r = data;
  sinew_free(r->st.sel);
  sinew_free(r);
}

static const sinew_record_ops_t side_ops = {side_swap, side_release};

/* ---- the queue ------------------------------------------------------------------------------------ */

typedef struct undo_step {
  sinew_change_t *change;
  char *name; /* the command text (or the chunk's name) */
} undo_step;

struct sinew__undo {
  undo_step *steps; /* oldest first; [0, done) are done, [done, n) undone (redo) */
  uint32_t n, cap, done;
  sinew_graph_t *graph; /* the graph the steps belong to */
  bool off;             /* undoInfo -state off */
  bool finite;          /* undoInfo -length applies (default: yes, 50) */
  uint32_t length;
  int depth;            /* command calls running (0: the next is top-level) */
  int chunks;           /* undoInfo -openChunk depth */
  bool chunk_tx;        /* the chunk's transaction is open */
  bool chunk_poisoned;  /* a command in the chunk changed state undo cannot restore */
  char *chunk_name;
  side_state chunk_side; /* the state when the chunk opened */
  uint64_t gen_seen;     /* the scene's side_gen the steps agree with (else they are flushed) */
  sinew_node_t *scratch; /* the selection snapshot's array, reused until a record takes it */
  uint32_t cscratch;
  void (*observer)(void *, sinew_session_t *);
  void *observer_data;
};

static void notify(sinew_session_t *s) {
  if (s->undo->observer) s->undo->observer(s->undo->observer_data, s);
}

static void step_free(sinew__undo *u, undo_step *st) {
  sinew_change_free(u->graph, st->change);
  sinew_free(st->name);
}

/* Forgets the steps [from, n) (the redo side), newest first. */
static void drop_from(sinew__undo *u, uint32_t from) {
  while (u->n > from) step_free(u, &u->steps[--u->n]);
  if (u->done > u->n) u->done = u->n;
}

/* Forgets the k oldest steps (all done), oldest first. */
static void drop_oldest(sinew__undo *u, uint32_t k) {
  if (k > u->done) k = u->done;
  if (!k) return;
  for (uint32_t i = 0; i < k; i++) step_free(u, &u->steps[i]);
  memmove(u->steps, u->steps + k, (u->n - k) * sizeof *u->steps);
  u->n -= k;
  u->done -= k;
}

/* Forgets every step. The order matters: a record may point at an object (a broken connection)
 * that a later record owns, so undone steps go newest first (the later ones own what the
 * earlier ones point at) and done steps oldest first (the earlier ones point at what the later
 * ones own), as when they are dropped one by one. */
static void drop_all(sinew__undo *u) {
  drop_from(u, u->done);
  drop_oldest(u, u->done);
}

static void trim(sinew__undo *u) {
  if (u->finite && u->done > u->length) drop_oldest(u, u->done - u->length);
}

void sinew__undo_flush(sinew_session_t *s) {
  sinew__undo *u = s->undo;
  if (!u) return;
  bool had = u->n > 0;
  if (u->chunk_tx) u->chunk_poisoned = true; /* what the chunk did before cannot be one step */
  drop_all(u);
  if (u->graph == s->scene->graph) u->gen_seen = s->scene->side_gen;
  if (had) notify(s);
}

int sinew__undo_file_begin(sinew_session_t *s) {
  if (!s->undo) return 0;
  int depth = s->undo->depth;
  s->undo->depth = 0;
  return depth;
}

void sinew__undo_file_end(sinew_session_t *s, int depth) {
  if (s->undo) s->undo->depth = depth;
}

bool sinew__undo_owns(const sinew_session_t *s) { return s->undo && s->undo->graph == s->scene->graph; }

void sinew__undo_scene_replaced(sinew_session_t *s, sinew_graph_t *old) {
  sinew__undo *u = s->undo;
  if (!u) return;
  if (u->graph == old) {
    /* what is open on the old scene stays done (it goes with the scene) */
    while (sinew_graph_in_transaction(old)) sinew_graph_commit(old);
    drop_all(u);
  }
  u->n = u->done = 0;
  u->chunk_tx = false;
  u->chunk_poisoned = false;
  sinew_free(u->chunk_side.sel);
  u->chunk_side.sel = NULL;
  u->graph = s->scene->graph;
  u->gen_seen = s->scene->side_gen;
  notify(s);
}

/* The text a step shows (undoInfo -q -undoName): the command's words. */
static char *command_text(const char *name, const sinew_value_t *argv, size_t argc) {
  sinew__buf b = {0};
  sinew__buf_puts(&b, name);
  for (size_t i = 0; i < argc; i++) {
    sinew__buf_puts(&b, " ");
    if (argv[i].flag) {
      sinew__buf_puts(&b, "-");
      sinew__buf_puts(&b, sinew_value_string(&argv[i]));
      continue;
    }
    char tmp[256];
    size_t n = sinew_value_format(&argv[i], tmp, sizeof tmp);
    if (n < sizeof tmp) {
      sinew__buf_put(&b, tmp, n);
    } else {
      char *big = sinew_malloc(n + 1);
      if (!big) {
        b.oom = true;
        break;
      }
      sinew_value_format(&argv[i], big, n + 1);
      sinew__buf_put(&b, big, n);
      sinew_free(big);
    }
  }
  if (b.oom) {
    sinew__buf_free(&b);
    return NULL;
  }
  return b.p ? b.p : sinew__cmds_strdup("");
}

/* Queues a committed step (room was reserved), dropping the redo side and trimming. */
static void push_step(sinew_session_t *s, sinew_change_t *ch, char *name) {
  sinew__undo *u = s->undo;
  drop_from(u, u->done);
  u->steps[u->n++] = (undo_step){ch, name};
  u->done = u->n;
  trim(u);
  notify(s);
}

/* side_take into the reused scratch array: no allocation per command once it is big enough. */
static int side_take_scratch(sinew__undo *u, const sinew__scene *sc, side_state *st) {
  memset(st, 0, sizeof *st);
  if (sc->nsel > u->cscratch) {
    sinew_node_t *p = sinew_realloc(u->scratch, sc->nsel * sizeof *p);
    if (!p) return SINEW_ENOMEM;
    u->scratch = p;
    u->cscratch = sc->nsel;
  }
  if (sc->nsel) memcpy(u->scratch, sc->selection, sc->nsel * sizeof *u->scratch);
  st->sel = u->scratch;
  st->nsel = sc->nsel;
  st->csel = u->cscratch;
  st->current = sc->current;
  st->has_playback = sc->has_playback;
  st->pb[0] = sc->pb_min, st->pb[1] = sc->pb_max, st->pb[2] = sc->pb_ast, st->pb[3] = sc->pb_aet;
  st->pb[4] = sc->pb_by;
  return SINEW_OK;
}

static int reserve_step(sinew__undo *u) {
  return sinew__grow((void **)&u->steps, &u->cap, u->n + 1, sizeof *u->steps);
}

/* Commands that work the queue itself run outside any transaction. */
static bool queue_command(const char *name) {
  return strcmp(name, "undo") == 0 || strcmp(name, "redo") == 0 || strcmp(name, "undoInfo") == 0 ||
         strcmp(name, "flushUndo") == 0;
}

/* Whether a file command reads or replaces the scene (it then runs with the queue off and
 * flushes it: Maya's file command is not undoable). */
static bool file_reads(sinew_cmd_t *cmd) {
  return strcmp(sinew_cmd_name(cmd), "file") == 0 && !sinew_cmd_query(cmd) &&
         (sinew_cmd_flag_count(cmd, "open") || sinew_cmd_flag_count(cmd, "import") ||
          sinew_cmd_flag_count(cmd, "new") || sinew_cmd_flag_count(cmd, "reference") ||
          sinew_cmd_flag_count(cmd, "referenceDepthInfo"));
}

static int oom_fail(sinew_cmd_t *cmd) {
  return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory (recording the undo step)");
}

/* A command in a transaction of its own that is not kept as a step (inside an open chunk, a
 * statement of a file being read, the queue off): a failing command is rolled back, so it
 * changes nothing whatever the queue does. */
static int run_in_transaction(sinew_session_t *s, sinew_cmd_t *cmd, sinew_cmd_fn fn) {
  sinew__scene *sc = s->scene;
  sinew_graph_t *g = sc->graph;
  uint64_t gen = sc->side_gen;
  int brc = sinew_graph_begin(g);
  if (brc == SINEW_EINVAL) return fn(cmd); /* from inside evaluation: no change can happen */
  if (brc) return oom_fail(cmd);
  int rc = fn(cmd);
  if (s->scene != sc) return rc; /* the command replaced the scene: the old one is gone with its transaction */
  if (rc) {
    sinew_graph_rollback(g);
    sc->side_gen = gen; /* as in wrap: a failing command cleans up after itself */
  } else {
    sinew_graph_commit(g);
  }
  return rc;
}

/* A command inside an open chunk: a savepoint in the chunk's transaction. */
static int run_in_chunk(sinew_session_t *s, sinew_cmd_t *cmd, sinew_cmd_fn fn) {
  uint64_t gen = s->scene->side_gen;
  int rc = run_in_transaction(s, cmd, fn);
  if (!rc && s->scene->side_gen != gen) s->undo->chunk_poisoned = true;
  return rc;
}

static int wrap(void *ud, sinew_cmd_t *cmd, sinew_cmd_fn fn, const sinew_value_t *argv, size_t argc) {
  sinew_session_t *s = ud;
  sinew__undo *u = s->undo;
  sinew__scene *sc = s->scene;
  sinew_graph_t *g = sc->graph;
  if (u->depth > 0 || queue_command(sinew_cmd_name(cmd))) {
    u->depth++;
    int rc = fn(cmd);
    u->depth--;
    return rc;
  }
  if (file_reads(cmd)) { /* an import rolls itself back; open and new replace the scene */
    u->depth++;
    int rc = fn(cmd);
    u->depth--;
    sinew__undo_flush(s);
    return rc;
  }
  if (s->loading || u->off || u->graph != g || sinew_graph_in_transaction(g) > (u->chunk_tx ? 1 : 0)) {
    /* a file's statement, the queue off, or a host's own transaction: no step is kept */
    u->depth++;
    int rc = run_in_transaction(s, cmd, fn);
    u->depth--;
    return rc;
  }
  if (u->chunk_tx) {
    u->depth++;
    int rc = run_in_chunk(s, cmd, fn);
    u->depth--;
    return rc;
  }
  if (sc->side_gen != u->gen_seen) sinew__undo_flush(s); /* changed outside the commands */
  side_state before;
  if (side_take_scratch(u, sc, &before) || reserve_step(u)) return oom_fail(cmd);
  uint64_t gen = sc->side_gen;
  int brc = sinew_graph_begin(g);
  if (brc == SINEW_EINVAL) {
    /* a command run from inside evaluation (an expression's compute) or an observer: the graph
     * takes no transaction there, and no change either; the command runs as it is */
    u->depth++;
    int rc = fn(cmd);
    u->depth--;
    return rc;
  }
  if (brc) return oom_fail(cmd);
  u->depth++;
  int rc = fn(cmd);
  u->depth--;
  if (s->scene != sc) return rc; /* the command replaced the scene: the queue was flushed */
  if (rc) {
    /* a failing command puts the session's state back itself (its own clean-up, checked by
     * the bad-input tests): what it bumped on the way is no change */
    sinew_graph_rollback(g);
    sc->side_gen = gen;
    return rc;
  }
  if (sc->side_gen != gen) { /* state undo cannot restore: keep the change, forget the queue */
    sinew_graph_commit(g);
    sinew__undo_flush(s);
    return SINEW_OK;
  }
  if (!side_same(sc, &before)) {
    side_rec *rec = sinew_malloc(sizeof *rec);
    if (!rec || sinew_graph_record(g, &side_ops, rec)) {
      /* out of memory after the command ran: take it back whole and fail */
      sinew_free(rec);
      sinew_graph_rollback(g);
      side_exchange(sc, &before); /* the scene holds the scratch array now */
      u->scratch = NULL;
      u->cscratch = 0;
      sinew_free(before.sel); /* the array the command left */
      return oom_fail(cmd);
    }
    rec->sc = sc;
    rec->st = before; /* the record owns the scratch array now */
    u->scratch = NULL;
    u->cscratch = 0;
  }
  sinew_change_t *ch = NULL;
  char *name = command_text(sinew_cmd_name(cmd), argv, argc);
  if (!name || sinew_graph_commit_step(g, &ch)) {
    sinew_free(name);
    sinew_graph_rollback(g); /* swaps the recorded small state back too */
    return oom_fail(cmd);
  }
  if (sinew_change_empty(ch)) {
    sinew_change_free(g, ch);
    sinew_free(name);
    return SINEW_OK;
  }
  push_step(s, ch, name);
  return SINEW_OK;
}

/* ---- undo and redo ------------------------------------------------------------------------------------ */

static int apply(sinew_session_t *s, bool undo) {
  sinew__undo *u = s->undo;
  sinew_graph_t *g = s->scene->graph;
  const char *what = undo ? "undo" : "redo";
  if (u->chunks) {
    sinew__session_error(s, SINEW_EINVAL, what, "an undo chunk is open (undoInfo -closeChunk first)");
    return SINEW_EINVAL;
  }
  if (u->graph != g) {
    sinew__session_error(s, SINEW_EINVAL, what, "not while a file is being opened");
    return SINEW_EINVAL;
  }
  if (s->scene->side_gen != u->gen_seen) sinew__undo_flush(s); /* changed outside the commands */
  if (undo ? u->done == 0 : u->done == u->n) {
    sinew__session_error(s, SINEW_ENOTFOUND, what, "there are no more commands to %s", what);
    return SINEW_ENOTFOUND;
  }
  undo_step *st = &u->steps[undo ? u->done - 1 : u->done];
  s->scene->applying++;
  int rc = undo ? sinew_change_undo(g, st->change) : sinew_change_redo(g, st->change);
  s->scene->applying--;
  if (rc == SINEW_ESTALE) {
    const sinew_error_t *ge = sinew_graph_error(g);
    bool other = ge->op[0] && strcmp(ge->op, what) != 0; /* the graph's operation, if not ours */
    sinew__session_error(s, rc, what, "%s%s%s; the undo queue is flushed", other ? ge->op : "",
                         other ? ": " : "", ge->reason);
    sinew__undo_flush(s);
    return rc;
  }
  if (rc) {
    sinew__session_take(s, sinew_graph_error(g));
    return rc;
  }
  u->done += undo ? -1u : 1u;
  notify(s);
  return SINEW_OK;
}

int sinew_session_undo(sinew_session_t *s) {
  if (!s) return SINEW_EINVAL;
  sinew__session_clear_error(s);
  return apply(s, true);
}
int sinew_session_redo(sinew_session_t *s) {
  if (!s) return SINEW_EINVAL;
  sinew__session_clear_error(s);
  return apply(s, false);
}
static bool usable(const sinew_session_t *s) {
  return s && s->undo->graph == s->scene->graph && !s->undo->chunks && s->scene->side_gen == s->undo->gen_seen;
}
bool sinew_session_can_undo(const sinew_session_t *s) { return usable(s) && s->undo->done > 0; }
bool sinew_session_can_redo(const sinew_session_t *s) { return usable(s) && s->undo->done < s->undo->n; }
void sinew_session_flush_undo(sinew_session_t *s) {
  if (s) sinew__undo_flush(s);
}
const char *sinew_session_undo_name(const sinew_session_t *s) {
  if (!sinew_session_can_undo(s)) return "";
  return s->undo->steps[s->undo->done - 1].name;
}
const char *sinew_session_redo_name(const sinew_session_t *s) {
  if (!sinew_session_can_redo(s)) return "";
  return s->undo->steps[s->undo->done].name;
}
size_t sinew_session_undo_count(const sinew_session_t *s) {
  return usable(s) || (s && s->undo->chunks) ? s->undo->done : 0;
}

void sinew_session_set_undo_observer(sinew_session_t *s, void (*fn)(void *, sinew_session_t *), void *ud) {
  if (!s) return;
  s->undo->observer = fn;
  s->undo->observer_data = ud;
}

int sinew_session_set_undo_state(sinew_session_t *s, bool on, bool flush) {
  if (!s) return SINEW_EINVAL;
  if (!on && s->undo->chunks) {
    sinew__session_error(s, SINEW_EINVAL, "undoInfo -state", "an undo chunk is open");
    return SINEW_EINVAL;
  }
  if (flush || on != !s->undo->off) {
    if (flush) sinew__undo_flush(s);
  }
  s->undo->off = !on;
  return SINEW_OK;
}
bool sinew_session_undo_state(const sinew_session_t *s) { return s && !s->undo->off; }

int sinew_session_set_undo_length(sinew_session_t *s, bool infinite, uint32_t length) {
  if (!s) return SINEW_EINVAL;
  s->undo->finite = !infinite;
  if (!infinite) s->undo->length = length;
  uint32_t before = s->undo->n;
  trim(s->undo);
  if (s->undo->n != before) notify(s);
  return SINEW_OK;
}

int sinew_session_chunk_open(sinew_session_t *s, const char *name) {
  if (!s) return SINEW_EINVAL;
  sinew__undo *u = s->undo;
  sinew_graph_t *g = s->scene->graph;
  if (u->chunks) { /* nested chunks are one chunk: the outer one */
    u->chunks++;
    return SINEW_OK;
  }
  if (u->off || s->loading) { /* counted so that -closeChunk pairs; nothing recorded */
    u->chunks++;
    return SINEW_OK;
  }
  if (u->graph != g) {
    sinew__session_error(s, SINEW_EINVAL, "undoInfo -openChunk", "not while a file is being opened");
    return SINEW_EINVAL;
  }
  char *nm = sinew__cmds_strdup(name && name[0] ? name : "chunk");
  if (!nm || reserve_step(u) || side_take(s->scene, &u->chunk_side)) {
    sinew_free(nm);
    sinew__session_error(s, SINEW_ENOMEM, "undoInfo -openChunk", "out of memory");
    return SINEW_ENOMEM;
  }
  if (sinew_graph_in_transaction(g) || sinew_graph_begin(g)) {
    sinew_free(nm);
    sinew_free(u->chunk_side.sel);
    u->chunk_side.sel = NULL;
    bool open = sinew_graph_in_transaction(g);
    return sinew__session_error(s, open ? SINEW_EINVAL : SINEW_ENOMEM, "undoInfo -openChunk", "%s",
                                open ? "a transaction is open" : "out of memory");
  }
  sinew_free(u->chunk_name);
  u->chunk_name = nm;
  u->chunk_tx = true;
  u->chunk_poisoned = false;
  u->chunks = 1;
  return SINEW_OK;
}

int sinew_session_chunk_close(sinew_session_t *s) {
  if (!s) return SINEW_EINVAL;
  sinew__undo *u = s->undo;
  if (!u->chunks) {
    sinew__session_error(s, SINEW_EINVAL, "undoInfo -closeChunk", "no chunk is open");
    return SINEW_EINVAL;
  }
  if (--u->chunks) return SINEW_OK;
  if (!u->chunk_tx) return SINEW_OK; /* opened with the queue off, or flushed since */
  sinew_graph_t *g = u->graph;
  u->chunk_tx = false;
  side_state before = u->chunk_side;
  u->chunk_side.sel = NULL;
  char *name = u->chunk_name;
  u->chunk_name = NULL;
  if (u->chunk_poisoned || g != s->scene->graph) {
    if (sinew_graph_in_transaction(g)) sinew_graph_commit(g);
    sinew_free(before.sel);
    sinew_free(name);
    sinew__undo_flush(s);
    return SINEW_OK;
  }
  int rc = SINEW_OK;
  if (!side_same(s->scene, &before)) {
    side_rec *rec = sinew_malloc(sizeof *rec);
    if (!rec || (rc = sinew_graph_record(g, &side_ops, rec))) {
      sinew_free(rec);
      rc = SINEW_ENOMEM;
    } else {
      rec->sc = s->scene;
      rec->st = before;
      before.sel = NULL;
    }
  }
  sinew_free(before.sel);
  sinew_change_t *ch = NULL;
  if (!rc && !reserve_step(u) && !sinew_graph_commit_step(g, &ch)) {
    if (sinew_change_empty(ch)) {
      sinew_change_free(g, ch);
      sinew_free(name);
    } else {
      push_step(s, ch, name);
    }
    return SINEW_OK;
  }
  /* no memory to keep the chunk as a step: its changes stay, the queue is forgotten */
  sinew_graph_commit(g);
  sinew_free(name);
  sinew__undo_flush(s);
  sinew__session_error(s, SINEW_ENOMEM, "undoInfo -closeChunk", "out of memory; the undo queue is flushed");
  return SINEW_ENOMEM;
}

/* Runs what finish_run does outside the commands (joining IK handles) as a step of its own, so
 * the graph never changes outside the queue's knowledge. */
void sinew__undo_run_outside(sinew_session_t *s, void (*fn)(sinew_session_t *), const char *name,
                             bool (*pending)(sinew_session_t *)) {
  sinew__undo *u = s->undo;
  sinew_graph_t *g = s->scene->graph;
  if (u->off || s->loading || u->chunk_tx || u->graph != g || sinew_graph_in_transaction(g)) {
    fn(s);
    return;
  }
  if (!pending(s)) return;
  /* out of memory to record it: it is not done now (it is done after the next run), so the
   * graph never changes outside the queue's knowledge */
  char *nm = sinew__cmds_strdup(name);
  if (!nm || reserve_step(u) || sinew_graph_begin(g)) {
    sinew_free(nm);
    return;
  }
  fn(s);
  sinew_change_t *ch = NULL;
  if (sinew_graph_commit_step(g, &ch)) {
    sinew_graph_rollback(g);
    sinew_free(nm);
    return;
  }
  if (sinew_change_empty(ch)) {
    sinew_change_free(g, ch);
    sinew_free(nm);
    return;
  }
  push_step(s, ch, nm);
}

/* ---- commands ------------------------------------------------------------------------------------------ */

static int cmd_undo(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  int rc = sinew_session_undo(s);
  if (rc == SINEW_ENOTFOUND) { /* Maya warns: "There are no more commands to undo." */
    sinew_cmd_warning(cmd, SINEW_LOG_NONE, "There are no more commands to undo.");
    return SINEW_OK;
  }
  if (rc) return sinew_cmd_error_from(cmd, sinew_session_error(s), rc);
  return SINEW_OK;
}

static int cmd_redo(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  int rc = sinew_session_redo(s);
  if (rc == SINEW_ENOTFOUND) {
    sinew_cmd_warning(cmd, SINEW_LOG_NONE, "There are no more commands to redo.");
    return SINEW_OK;
  }
  if (rc) return sinew_cmd_error_from(cmd, sinew_session_error(s), rc);
  return SINEW_OK;
}

static int cmd_flush_undo(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  if (s->undo->chunks && s->undo->chunk_tx) return sinew_cmd_error(cmd, SINEW_EINVAL, "an undo chunk is open");
  sinew__undo_flush(s);
  return SINEW_OK;
}

static const sinew_cmd_flag_t undo_info_flags[] = {
    {"state", "st", "b", 0},           {"stateWithoutFlush", "swf", "b", 0},
    {"openChunk", "ock", "", 0},       {"closeChunk", "cck", "", 0},
    {"chunkName", "cn", "s", 0},       {"length", "l", "i", 0},
    {"infinity", "in", "b", 0},        {"undoName", "un", "s", 0},
    {"redoName", "rn", "s", 0},        {"undoQueueEmpty", "uqe", "", 0},
    {"redoQueueEmpty", "rqe", "", 0},  {"query", "q", "", SINEW_CMD_QUERY},
};

static int cmd_undo_info(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  sinew__undo *u = s->undo;
  if (sinew_cmd_argc(cmd))
    return sinew_cmd_error(cmd, SINEW_EINVAL, "takes no objects ('%s')", sinew_cmd_arg_string(cmd, 0));
  if (sinew_cmd_query(cmd)) {
    static const char *const qflags[] = {"state", "stateWithoutFlush", "length", "infinity", "undoName",
                                         "redoName", "undoQueueEmpty", "redoQueueEmpty", "chunkName"};
    int which = -1;
    for (int i = 0; i < (int)COUNT(qflags); i++)
      if (sinew_cmd_flag_count(cmd, qflags[i])) {
        if (which >= 0) return sinew_cmd_error(cmd, SINEW_EINVAL, "-query takes one flag at a time");
        which = i;
      }
    switch (which) {
      case -1: return sinew_cmd_result_int(cmd, (int64_t)sinew_session_undo_count(s));
      case 0:
      case 1: return sinew_cmd_result_int(cmd, !u->off);
      case 2: return sinew_cmd_result_int(cmd, u->length);
      case 3: return sinew_cmd_result_int(cmd, !u->finite);
      case 4: return sinew_cmd_result_string(cmd, sinew_session_undo_name(s));
      case 5: return sinew_cmd_result_string(cmd, sinew_session_redo_name(s));
      case 6: return sinew_cmd_result_int(cmd, !sinew_session_can_undo(s));
      case 7: return sinew_cmd_result_int(cmd, !sinew_session_can_redo(s));
      default: return sinew_cmd_result_string(cmd, u->chunk_name ? u->chunk_name : "");
    }
  }
  bool ock = sinew_cmd_flag_count(cmd, "openChunk") > 0, cck = sinew_cmd_flag_count(cmd, "closeChunk") > 0;
  if (ock && cck) return sinew_cmd_error(cmd, SINEW_EINVAL, "-openChunk and -closeChunk together");
  if (sinew_cmd_flag_count(cmd, "chunkName") && !ock)
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-chunkName goes with -openChunk");
  if (sinew_cmd_flag_count(cmd, "undoName") || sinew_cmd_flag_count(cmd, "redoName") ||
      sinew_cmd_flag_count(cmd, "undoQueueEmpty") || sinew_cmd_flag_count(cmd, "redoQueueEmpty"))
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-undoName, -redoName and the queue-empty flags are queries (-q)");
  const sinew_value_t *len = sinew_cmd_flag_arg(cmd, "length", 0, 0);
  int64_t l = len ? sinew_value_to_int(len) : 0;
  if (len && (l < 0 || l > UINT32_MAX)) return sinew_cmd_error(cmd, SINEW_ERANGE, "-length %lld: not a queue length",
                                                               (long long)l);
  bool has_inf = sinew_cmd_flag_count(cmd, "infinity") > 0;
  bool inf = sinew_cmd_flag_bool(cmd, "infinity", !u->finite);
  int rc = SINEW_OK;
  if (len || has_inf) {
    if (len) u->length = (uint32_t)l;
    /* -length alone makes the queue finite; -infinity overrides it */
    sinew_session_set_undo_length(s, has_inf ? inf : false, u->length);
  }
  if (sinew_cmd_flag_count(cmd, "state") && sinew_cmd_flag_count(cmd, "stateWithoutFlush"))
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-state and -stateWithoutFlush together");
  if (sinew_cmd_flag_count(cmd, "state")) {
    bool on = sinew_cmd_flag_bool(cmd, "state", true);
    if ((rc = sinew_session_set_undo_state(s, on, !on)))
      return sinew_cmd_error_from(cmd, sinew_session_error(s), rc);
  }
  if (sinew_cmd_flag_count(cmd, "stateWithoutFlush")) {
    if ((rc = sinew_session_set_undo_state(s, sinew_cmd_flag_bool(cmd, "stateWithoutFlush", true), false)))
      return sinew_cmd_error_from(cmd, sinew_session_error(s), rc);
  }
  if (ock && (rc = sinew_session_chunk_open(s, sinew_cmd_flag_string(cmd, "chunkName", NULL))))
    return sinew_cmd_error_from(cmd, sinew_session_error(s), rc);
  if (cck && (rc = sinew_session_chunk_close(s)))
    return sinew_cmd_error_from(cmd, sinew_session_error(s), rc);
  return SINEW_OK;
}

int sinew__register_undo_cmds(sinew_lang_t *L, sinew_session_t *s) {
  s->undo = sinew_calloc(1, sizeof *s->undo);
  if (!s->undo) return SINEW_ENOMEM;
  /* Maya's finite queue of 50 (its older default): it bounds the memory steps keep (a done
   * step holds the nodes it deleted) and the cost of freeing them */
  s->undo->length = 50;
  s->undo->finite = true;
  s->undo->graph = s->scene->graph;
  s->undo->gen_seen = s->scene->side_gen;
  static const sinew_cmd_flag_t no_flags[] = {{"_", NULL, "", 0}};
  const sinew_cmd_desc_t cmds[] = {
      {"undo", cmd_undo, no_flags, 0, false, s},
      {"redo", cmd_redo, no_flags, 0, false, s},
      {"flushUndo", cmd_flush_undo, no_flags, 0, false, s},
      {"undoInfo", cmd_undo_info, undo_info_flags, COUNT(undo_info_flags), false, s},
  };
  for (size_t i = 0; i < COUNT(cmds); i++) {
    int rc = sinew_lang_register_command(L, &cmds[i]);
    if (rc) return rc;
  }
  sinew_lang_set_command_wrapper(L, wrap, s);
  return SINEW_OK;
}

void sinew__undo_destroy(sinew_session_t *s) {
  if (!s->undo) return;
  sinew__undo *u = s->undo;
  if (u->graph == s->scene->graph) {
    if (u->chunk_tx) while (sinew_graph_in_transaction(u->graph)) sinew_graph_commit(u->graph);
    drop_all(u);
  }
  sinew_free(u->steps);
  sinew_free(u->scratch);
  sinew_free(u->chunk_name);
  sinew_free(u->chunk_side.sel);
  sinew_free(u);
  s->undo = NULL;
}
