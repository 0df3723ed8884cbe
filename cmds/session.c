/* cmds/session.c: sessions and scenes, the per-node records of what a file held that sinew does
 * not model, placeholders for node types sinew does not implement, the helpers commands use to
 * resolve names and plugs with messages that name them, and imports (file -i): the names an
 * imported file gave its nodes, its namespace or prefix, and the session state a failed import
 * puts back (its transaction puts the graph back). */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cmds/cmds_internal.h"
#include "sinew/io.h"

_Thread_local int sinew__cmds_oom;

char *sinew__cmds_strdup(const char *s) {
  size_t n = strlen(s);
  char *d = sinew_malloc(n + 1);
  if (d) memcpy(d, s, n + 1);
  return d;
}

/* ---- per-node records --------------------------------------------------------------------------- */

static uint64_t key_of(sinew_node_t n) { return ((uint64_t)n.index << 32) | n.gen; }

static void pending_mesh_free(sinew__pending_mesh *m) {
  sinew_free(m->edges);
  sinew_free(m->face_edges);
  sinew_free(m->face_counts);
  sinew_free(m->face_uvs);
  sinew_free(m->edge_hard);
  memset(m, 0, sizeof *m);
}

static void raws_free(sinew__raw *r, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    sinew_free(r[i].attr);
    sinew_free(r[i].text);
  }
  sinew_free(r);
}

static void extra_free(sinew__extra *e) {
  sinew_free(e->uid);
  raws_free(e->raws, e->nraws);
  raws_free(e->geom, e->ngeom);
  sinew_free(e->implicit);
  for (uint32_t i = 0; i < e->ndyn; i++) sinew_free(e->dyn_types[i]);
  sinew_free(e->dyn_types);
  struct sinew__plug_state *st, *tmp;
  HASH_ITER(hh, e->states, st, tmp) {
    HASH_DEL(e->states, st);
    sinew_free(st->attr);
    sinew_free(st);
  }
  pending_mesh_free(&e->mesh);
  sinew_free(e);
}

static bool import_keep(sinew__scene *sc, uint64_t k, const sinew__extra *e);

sinew__extra *sinew__extra_get(sinew__scene *sc, sinew_node_t n, bool create) {
  uint64_t k = key_of(n);
  sinew__extra *e = NULL;
  HASH_FIND(hh, sc->extras, &k, sizeof k, e);
  /* a file being imported: the record as it was before the import, to put back if it fails
   * (no copy, no record: the caller changes nothing, and the import fails) */
  if (sc->import && (e || create) && !import_keep(sc, k, e)) return NULL;
  if (e || !create) return e;
  e = sinew_calloc(1, sizeof *e);
  if (!e) return NULL;
  e->key = k;
  e->node = n;
  sinew__cmds_oom = 0;
  HASH_ADD(hh, sc->extras, key, sizeof e->key, e);
  if (sinew__cmds_oom) {
    sinew_free(e);
    return NULL;
  }
  return e; /* an empty record changes nothing saved: no side change */
}

int sinew__extra_add_raw(sinew__scene *sc, sinew_node_t n, const char *attr, const char *text) {
  sinew__extra *e = sinew__extra_get(sc, n, true);
  if (!e) return SINEW_ENOMEM;
  sinew__side_changed(sc);
  /* the same attribute set again replaces the earlier line */
  for (uint32_t i = 0; i < e->nraws; i++)
    if (strcmp(e->raws[i].attr, attr) == 0) {
      char *t = sinew__cmds_strdup(text);
      if (!t) return SINEW_ENOMEM;
      sinew_free(e->raws[i].text);
      e->raws[i].text = t;
      return SINEW_OK;
    }
  if (sinew__grow((void **)&e->raws, &e->craws, e->nraws + 1, sizeof *e->raws)) return SINEW_ENOMEM;
  char *a = sinew__cmds_strdup(attr), *t = sinew__cmds_strdup(text);
  if (!a || !t) {
    sinew_free(a);
    sinew_free(t);
    return SINEW_ENOMEM;
  }
  e->raws[e->nraws++] = (sinew__raw){a, t};
  sc->stats.raw_values++;
  return SINEW_OK;
}

void sinew__extra_drop_raws(sinew__scene *sc, sinew_node_t n, const char *name) {
  sinew__extra *e = name ? sinew__extra_get(sc, n, false) : NULL;
  if (!e) return;
  size_t len = strlen(name);
  uint32_t kept = 0;
  for (uint32_t i = 0; i < e->nraws; i++) {
    const char *a = e->raws[i].attr;
    if (strncmp(a, name, len) == 0 && (a[len] == 0 || a[len] == '[' || a[len] == '.')) {
      sinew_free(e->raws[i].attr);
      sinew_free(e->raws[i].text);
      sinew__side_changed(sc);
      if (sc->stats.raw_values) sc->stats.raw_values--;
    } else {
      e->raws[kept++] = e->raws[i];
    }
  }
  e->nraws = kept;
}

bool sinew__plug_state_live(sinew_graph_t *g, sinew_node_t n, const struct sinew__plug_state *st) {
  sinew_attr_info_t info;
  return sinew_node_attr_info(g, n, st->attr_id, &info) == SINEW_OK;
}

struct sinew__plug_state *sinew__plug_state(sinew__scene *sc, const sinew_plug_t *p, bool create, bool *made) {
  if (made) *made = false;
  sinew__extra *e = sinew__extra_get(sc, p->node, create);
  if (!e) return NULL;
  char attr[1024];
  size_t len = sinew_plug_format_attr(sc->graph, p, true, attr, sizeof attr);
  if (len >= sizeof attr) return NULL;
  struct sinew__plug_state *st = NULL;
  HASH_FIND(hh, e->states, attr, len, st);
  if (st && st->attr_id == p->attr && sinew__plug_state_live(sc->graph, p->node, st)) return st;
  if (!create) return NULL;
  if (st) { /* the name's earlier attribute was deleted: this one starts afresh */
    sinew__side_changed(sc); /* (a new record, "not given", changes nothing saved) */
    st->attr_id = p->attr;
    st->keyable = st->channel_box = -1;
    return st;
  }
  st = sinew_calloc(1, sizeof *st);
  char *a = st ? sinew__cmds_strdup(attr) : NULL;
  if (!a) {
    sinew_free(st);
    return NULL;
  }
  *st = (struct sinew__plug_state){.attr = a, .attr_id = p->attr, .keyable = -1, .channel_box = -1};
  sinew__cmds_oom = 0;
  HASH_ADD_KEYPTR(hh, e->states, st->attr, len, st);
  if (sinew__cmds_oom) {
    sinew_free(a);
    sinew_free(st);
    return NULL;
  }
  if (made) *made = true;
  return st;
}

/* A -k / -cb record's other values: swapped with the live ones on undo and redo. The record
 * itself stays while steps name it: it is freed only with its node's record (node removed
 * outside a transaction: the queue is flushed first, as the side state changed) or when its
 * attribute is deleted (which flushes the queue too). */
typedef struct state_rec {
  struct sinew__plug_state *st;
  int8_t keyable, channel_box;
} state_rec;

static void state_swap(sinew_graph_t *g, void *data) {
  (void)g;
  state_rec *r = data;
  int8_t k = r->st->keyable, cb = r->st->channel_box;
  r->st->keyable = r->keyable, r->st->channel_box = r->channel_box;
  r->keyable = k, r->channel_box = cb;
}

static void state_release(sinew_graph_t *g, void *data, bool done) {
  (void)g;
  (void)done;
  sinew_free(data);
}

static const sinew_record_ops_t state_ops = {state_swap, state_release};

int sinew__plug_state_record(sinew__scene *sc, struct sinew__plug_state *st) {
  if (!sinew_graph_in_transaction(sc->graph)) return SINEW_OK;
  state_rec *r = sinew_malloc(sizeof *r);
  if (!r) return SINEW_ENOMEM;
  *r = (state_rec){st, st->keyable, st->channel_box};
  if (sinew_graph_record(sc->graph, &state_ops, r)) {
    sinew_free(r);
    return SINEW_ENOMEM;
  }
  return SINEW_OK;
}

void sinew__plug_state_drop(sinew__scene *sc, sinew_node_t n, struct sinew__plug_state *st) {
  sinew__extra *e = sinew__extra_get(sc, n, false);
  if (!e || !st) return;
  sinew__side_changed(sc);
  HASH_DEL(e->states, st);
  sinew_free(st->attr);
  sinew_free(st);
}

void sinew__plug_states_prune(sinew__scene *sc, sinew_node_t n) {
  sinew__extra *e = sinew__extra_get(sc, n, false);
  if (!e) return;
  struct sinew__plug_state *st, *tmp;
  HASH_ITER(hh, e->states, st, tmp) {
    if (!sinew__plug_state_live(sc->graph, n, st)) sinew__plug_state_drop(sc, n, st);
  }
}

bool sinew__extra_is_implicit(sinew__scene *sc, sinew_node_t n, uint32_t attr) {
  sinew__extra *e = sinew__extra_get(sc, n, false);
  if (!e) return false;
  for (uint32_t i = 0; i < e->nimplicit; i++)
    if (e->implicit[i] == attr) return true;
  return false;
}

int sinew__extra_mark_implicit(sinew__scene *sc, sinew_node_t n, uint32_t attr) {
  sinew__extra *e = sinew__extra_get(sc, n, true);
  if (!e || sinew__grow((void **)&e->implicit, &e->cimplicit, e->nimplicit + 1, sizeof *e->implicit))
    return SINEW_ENOMEM;
  sinew__side_changed(sc);
  e->implicit[e->nimplicit++] = attr;
  return SINEW_OK;
}

static void on_node_removed(void *ud, sinew_node_t n) {
  sinew__scene *sc = ud;
  uint64_t k = key_of(n);
  sinew__extra *e = NULL;
  HASH_FIND(hh, sc->extras, &k, sizeof k, e);
  if (e && !sc->applying && !sinew_graph_in_transaction(sc->graph)) {
    HASH_DEL(sc->extras, e);
    extra_free(e);
    sinew__side_changed(sc);
  }
  /* inside a transaction or an undo the node is detached, not gone: its record stays (keyed by
   * index and generation, so no later node takes it) for the undo that brings it back; the
   * scene frees it */
  if (sc->applying) return; /* an undo or redo: the step's record sets the selection */
  for (uint32_t i = 0; i < sc->nsel;)
    if (sc->selection[i].index == n.index && sc->selection[i].gen == n.gen)
      memmove(&sc->selection[i], &sc->selection[i + 1], (--sc->nsel - i) * sizeof *sc->selection);
    else
      i++;
  if (sc->current.index == n.index && sc->current.gen == n.gen) sc->current = (sinew_node_t){0, 0};
}

/* ---- scenes ------------------------------------------------------------------------------------- */

static void session_log(void *ud, sinew_log_level_t level, sinew_log_id_t id, const char *msg) {
  sinew_session_t *s = ud;
  if (s->desc.logger) s->desc.logger(s->desc.logger_data, level, id, msg);
}

int sinew__scene_create(sinew_session_t *s, sinew__scene **out) {
  sinew__scene *sc = sinew_calloc(1, sizeof *sc);
  if (!sc) return SINEW_ENOMEM;
  sinew_graph_desc_t gd = {.logger = session_log, .logger_data = s};
  int rc = sinew_scene_create(&gd, &sc->graph);
  if (!rc) rc = sinew_lang_register_types(sc->graph);
  if (!rc) {
    sinew_observer_t ob = {.node_removed = on_node_removed, .user_data = sc};
    rc = sinew_graph_add_observer(sc->graph, &ob, &sc->observer);
  }
  if (rc) {
    sinew_graph_destroy(sc->graph);
    sinew_free(sc);
    return rc;
  }
  *out = sc;
  return SINEW_OK;
}

static void free_strings(char **v, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) sinew_free(v[i]);
  sinew_free(v);
}

static void pending_attr_free(sinew__pending_attr *p) {
  for (uint32_t i = 0; i < p->nnames; i++) sinew_free(p->names[i]);
  sinew_free(p->names);
  sinew_free(p->descs);
  memset(p, 0, sizeof *p);
}

void sinew__scene_destroy(sinew__scene *sc) {
  if (!sc) return;
  sinew_graph_remove_observer(sc->graph, sc->observer);
  sinew_graph_destroy(sc->graph);
  sinew__extra *e, *tmp;
  HASH_ITER(hh, sc->extras, e, tmp) {
    HASH_DEL(sc->extras, e);
    extra_free(e);
  }
  sinew_free(sc->selection);
  free_strings(sc->file_info, sc->nfile_info);
  free_strings(sc->requires, sc->nrequires);
  free_strings(sc->warned, sc->nwarned);
  sinew_free(sc->file_name);
  pending_attr_free(&sc->pending_attr);
  for (uint32_t i = 0; i < sc->nraw_conns; i++) {
    sinew_free(sc->raw_conns[i].src_attr);
    sinew_free(sc->raw_conns[i].dst_attr);
  }
  sinew_free(sc->raw_conns);
  sinew__refs_free(sc->refs);
  sinew_free(sc);
}

void sinew__warn_once(sinew_session_t *s, sinew_cmd_t *cmd, sinew_log_id_t id, const char *key,
                      const char *fmt, ...) {
  sinew__scene *sc = s->scene;
  for (uint32_t i = 0; i < sc->nwarned; i++)
    if (strcmp(sc->warned[i], key) == 0) return;
  char *k = sinew__cmds_strdup(key);
  if (k && !sinew__grow((void **)&sc->warned, &sc->cwarned, sc->nwarned + 1, sizeof *sc->warned))
    sc->warned[sc->nwarned++] = k;
  else
    sinew_free(k);
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (cmd)
    sinew_cmd_warning(cmd, id, "%s", msg);
  else
    sinew_log(sc->graph, SINEW_LOG_WARNING, id, "%s", msg);
}

bool sinew__own_plug(sinew_graph_t *g, const sinew_plug_t *p) {
  for (uint32_t a = p->attr; a != UINT32_MAX;) {
    sinew_attr_info_t info;
    if (sinew_node_attr_info(g, p->node, a, &info)) return false;
    if ((info.flags & SINEW_ATTR_HIDDEN) && !(info.flags & (SINEW_ATTR_STORABLE | SINEW_ATTR_DYNAMIC)) &&
        strncmp(info.name, "sinew", 5) == 0)
      return true;
    a = info.parent;
  }
  return false;
}

int sinew__graph_error(sinew_cmd_t *cmd, int status) { return sinew_cmd_graph_error(cmd, status); }

double sinew__unit_to_internal(sinew_graph_t *g, sinew_attr_type_t type, double v) {
  if (type == SINEW_ATTR_TIME) return v / sinew_time_unit_fps(sinew_time_get_unit(g));
  return v * sinew__unit_in(g, type);
}

double sinew__unit_to_ui(sinew_graph_t *g, sinew_attr_type_t type, double v) {
  if (type == SINEW_ATTR_TIME) return v * sinew_time_unit_fps(sinew_time_get_unit(g));
  return v / sinew__unit_in(g, type);
}

/* ---- name and plug resolution ----------------------------------------------------------------------- */

int sinew__cmd_node(sinew_cmd_t *cmd, const char *name, sinew_node_t *out) {
  if (!name || !name[0]) return sinew_cmd_error(cmd, SINEW_EINVAL, "no node name given");
  int rc = sinew__find_node(sinew__session(cmd), name, out);
  if (rc == SINEW_EAMBIGUOUS)
    return sinew_cmd_error(cmd, rc, "more than one node is named '%s'; use its |path", name);
  if (rc) {
    sinew_cmd_error(cmd, SINEW_ENOTFOUND, "no node named '%s'", name);
    sinew_cmd_error_subject(cmd, name, NULL);
    return SINEW_ENOTFOUND;
  }
  return SINEW_OK;
}

static int cmd_plug(sinew_cmd_t *cmd, const char *text, sinew_plug_t *out);

const char *sinew__cmd_given_flag(const sinew_cmd_t *cmd, const char *const *names, size_t count) {
  for (size_t i = 0; i < count; i++)
    if (sinew_cmd_flag_count(cmd, names[i])) return names[i];
  return NULL;
}

int sinew__cmd_plug(sinew_cmd_t *cmd, const char *text, sinew_plug_t *out) {
  int rc = cmd_plug(cmd, text, out);
  if (rc && text && text[0]) { /* the error is about this plug and its node */
    const char *dot = strchr(text, '.');
    char node[256];
    snprintf(node, sizeof node, "%.*s", dot ? (int)(dot - text) : 0, text);
    sinew_cmd_error_subject(cmd, node[0] ? node : NULL, text);
  }
  return rc;
}

static int cmd_plug(sinew_cmd_t *cmd, const char *text, sinew_plug_t *out) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  if (!text || !text[0]) return sinew_cmd_error(cmd, SINEW_EINVAL, "no attribute given");
  if (text[0] == '.' && !sinew_node_valid(g, s->scene->current))
    return sinew_cmd_error(cmd, SINEW_EINVAL, "%s: no current node (createNode or select first)", text);
  const char *dot = text[0] == '.' ? text : strchr(text, '.');
  char node[512];
  size_t n = dot ? (size_t)(dot - text) : 0;
  int rc;
  sinew_node_t nd;
  if (n && s->scene->import) {
    /* a file being imported: its names mean the nodes it made */
    char *name = sinew_malloc(n + 1);
    if (!name) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    memcpy(name, text, n);
    name[n] = 0;
    rc = sinew__find_node(s, name, &nd);
    sinew_free(name);
    if (rc == SINEW_OK) {
      if (sinew_plug_parse_attr(g, nd, dot + 1, out) == SINEW_OK) return SINEW_OK;
      return sinew_cmd_error(cmd, SINEW_ENOTFOUND, "%s: %.*s has no attribute '%s'", text, (int)n, text, dot + 1);
    }
    if (rc == SINEW_EAMBIGUOUS)
      return sinew_cmd_error(cmd, rc, "%s: more than one node is named '%.*s'; use its |path", text, (int)n, text);
    return sinew_cmd_error(cmd, SINEW_ENOTFOUND, "%s: no node named '%.*s'", text, (int)n, text);
  }
  if (n >= sizeof node) n = sizeof node - 1;
  memcpy(node, text, n);
  node[n] = 0;
  rc = sinew_plug_parse(g, text, s->scene->current, out);
  if (rc == SINEW_OK) return SINEW_OK;
  /* say whether the node or the attribute is missing */
  if (n) {
    if (sinew_node_find(g, node, &nd)) return sinew_cmd_error(cmd, SINEW_ENOTFOUND, "%s: no node named '%s'", text, node);
    return sinew_cmd_error(cmd, SINEW_ENOTFOUND, "%s: %s has no attribute '%s'", text, node, dot + 1);
  }
  if (text[0] == '.')
    return sinew_cmd_error(cmd, SINEW_ENOTFOUND, "%s has no attribute '%s'",
                           sinew_node_name(g, s->scene->current), text + 1);
  return sinew_cmd_error(cmd, rc, "'%s' is not a plug (node.attribute)", text);
}

const char *sinew__node_label(sinew_graph_t *g, sinew_node_t n, char *buf, size_t size) {
  const char *name = sinew_node_name(g, n);
  if (!name) return "";
  sinew_node_t found;
  if (sinew_node_find(g, name, &found) == SINEW_EAMBIGUOUS) {
    /* Maya's shortest unique name: the fewest trailing levels of the path that name the node
     * alone ("group1|sphere1"), the full path when only that does */
    char *path = sinew_node_path(g, n);
    if (path) {
      const char *tail = path;
      for (const char *c = path + strlen(path); c > path; c--)
        if (c[-1] == '|') {
          if (sinew_node_find(g, c, &found) == SINEW_OK && found.index == n.index && found.gen == n.gen) {
            tail = c;
            break;
          }
        }
      snprintf(buf, size, "%s", tail);
      sinew_free(path);
      return buf;
    }
  }
  snprintf(buf, size, "%s", name);
  return buf;
}

const char *sinew__plug_label(sinew_graph_t *g, const sinew_plug_t *p, char *buf, size_t size) {
  char node[512];
  sinew__node_label(g, p->node, node, sizeof node);
  int n = snprintf(buf, size, "%s.", node);
  if (n >= 0 && (size_t)n < size) sinew_plug_format_attr(g, p, false, buf + n, size - (size_t)n);
  return buf;
}

double sinew__unit_in(sinew_graph_t *g, sinew_attr_type_t type) {
  switch (type) {
    case SINEW_ATTR_ANGLE: return sinew_angle_unit_radians(sinew_scene_angle_unit(g));
    case SINEW_ATTR_DISTANCE: return sinew_linear_unit_cm(sinew_scene_linear_unit(g));
    case SINEW_ATTR_TIME: return 1.0 / sinew_time_unit_fps(sinew_time_get_unit(g));
    default: return 1.0;
  }
}

/* ---- imports ---------------------------------------------------------------------------------------- */

/* The nodes an imported file gave one name (DAG siblings of different parents may share it). */
typedef struct import_bucket {
  char *name;
  sinew_node_t *nodes;
  uint32_t n, cap;
  UT_hash_handle hh;
} import_bucket;

/* Which name a node made by the import has in the file. */
typedef struct import_node {
  uint64_t key;
  import_bucket *bucket;
  UT_hash_handle hh;
} import_node;

/* A per-node record as it was before an import first touched it (NULL: there was none). */
typedef struct import_kept {
  UT_hash_handle hh;
  uint64_t key;
  sinew__extra *copy;
  bool made; /* copy is an empty record standing for none (kept_journal) */
} import_kept;

struct sinew__import {
  struct sinew__import *outer;
  import_bucket *names;
  import_node *nodes;
  char *ns;     /* with its ':' ("ns:"), NULL for none */
  char *prefix; /* with its '_' ("pfx_"), NULL for none */
  bool rename_all;
  /* the session's state beside the graph, put back when the import fails (the graph is put
   * back by the import's transaction): the per-node records as they were before the import
   * first touched them, units, time, header lines */
  struct import_kept *kept;
  bool kept_lost; /* a record could not be kept: the import fails */
  sinew_linear_unit_t linear;
  sinew_angle_unit_t angle;
  sinew_time_unit_t time;
  double frame;
  uint32_t nrequires, nraw_conns;
  sinew_session_stats_t stats;
  char **file_info;
  uint32_t nfile_info;
};

static import_node *import_node_find(const struct sinew__import *imp, sinew_node_t n) {
  uint64_t k = key_of(n);
  import_node *in = NULL;
  HASH_FIND(hh, imp->nodes, &k, sizeof k, in);
  return in;
}

static void bucket_remove(import_bucket *b, sinew_node_t n) {
  for (uint32_t i = 0; i < b->n; i++)
    if (b->nodes[i].index == n.index && b->nodes[i].gen == n.gen) {
      memmove(&b->nodes[i], &b->nodes[i + 1], (b->n - i - 1) * sizeof *b->nodes);
      b->n--;
      return;
    }
}

bool sinew__import_owns(sinew_session_t *s, sinew_node_t n) {
  return s->scene->import && import_node_find(s->scene->import, n);
}

int sinew__import_record(sinew_session_t *s, const char *file_name, sinew_node_t n) {
  struct sinew__import *imp = s->scene->import;
  if (!imp) return SINEW_OK;
  sinew_graph_t *g = s->scene->graph;
  char *own = NULL;
  if (!file_name) {
    /* an automatic name: the file knows it without the namespace or prefix added here */
    file_name = sinew_node_name(g, n);
    const char *add = imp->ns ? imp->ns : imp->prefix;
    if (add && strncmp(file_name, add, strlen(add)) == 0) file_name += strlen(add);
  }
  if (file_name[0] == ':') file_name++;
  import_bucket *b = NULL;
  HASH_FIND_STR(imp->names, file_name, b);
  import_node *in = import_node_find(imp, n);
  bool new_bucket = !b, new_node = !in;
  if (!b) {
    b = sinew_calloc(1, sizeof *b);
    if (!b || !(own = sinew__cmds_strdup(file_name))) {
      sinew_free(b);
      return SINEW_ENOMEM;
    }
    b->name = own;
  }
  if (!in && !(in = sinew_calloc(1, sizeof *in))) goto oom;
  if (sinew__grow((void **)&b->nodes, &b->cap, b->n + 1, sizeof *b->nodes)) goto oom;
  sinew__cmds_oom = 0;
  if (new_bucket) HASH_ADD_KEYPTR(hh, imp->names, b->name, strlen(b->name), b);
  if (sinew__cmds_oom) goto oom;
  if (new_node) {
    in->key = key_of(n);
    HASH_ADD(hh, imp->nodes, key, sizeof in->key, in);
    if (sinew__cmds_oom) {
      if (new_bucket) HASH_DEL(imp->names, b);
      goto oom;
    }
  } else if (in->bucket) {
    bucket_remove(in->bucket, n); /* renamed in the file: the old name no longer means it */
  }
  in->bucket = b;
  b->nodes[b->n++] = n;
  return SINEW_OK;
oom:
  if (new_node) sinew_free(in);
  if (new_bucket) {
    sinew_free(b->nodes);
    sinew_free(own);
    sinew_free(b);
  }
  return SINEW_ENOMEM;
}

/* The name node n has in the file being imported (its own name for a node the file did not make). */
static const char *file_name_of(const struct sinew__import *imp, sinew_graph_t *g, sinew_node_t n) {
  import_node *in = import_node_find(imp, n);
  return in && in->bucket ? in->bucket->name : sinew_node_name(g, n);
}

static bool level_is(const char *level, size_t len, const char *name) {
  if (len && level[0] == ':') level++, len--;
  if (name[0] == ':') name++;
  return strlen(name) == len && memcmp(level, name, len) == 0;
}

/* A name of the imported file: "a", "|grp|a", "grp|a". SINEW_ENOTFOUND when the file made no
 * node of that name (the scene's node is meant), SINEW_ESTALE when the ones it made are gone. */
static int import_find(sinew__scene *sc, const struct sinew__import *imp, const char *name, sinew_node_t *out) {
  if (name[0] == ':' && imp->ns) return SINEW_ENOTFOUND; /* the root namespace: the scene's */
  const char *last = strrchr(name, '|');
  last = last ? last + 1 : name;
  if (last[0] == ':') last++;
  import_bucket *b = NULL;
  HASH_FIND_STR(imp->names, last, b);
  if (!b || !b->n) return SINEW_ENOTFOUND;
  bool absolute = name[0] == '|';
  uint32_t found = 0, live = 0;
  for (uint32_t i = 0; i < b->n; i++) {
    sinew_node_t n = b->nodes[i];
    if (!sinew_node_valid(sc->graph, n)) continue;
    live++;
    /* the levels before the last, from the nearest parent up */
    const char *end = last - (last > name && last[-1] == ':' ? 1 : 0);
    bool ok = true;
    sinew_node_t at = n;
    while (ok && end > name && end[-1] == '|') {
      const char *stop = end - 1, *start = stop;
      while (start > name && start[-1] != '|') start--;
      if (start == stop) break; /* the leading '|' */
      at = sinew_node_parent(sc->graph, at);
      ok = sinew_node_valid(sc->graph, at) && level_is(start, (size_t)(stop - start), file_name_of(imp, sc->graph, at));
      end = start;
    }
    if (ok && absolute) ok = !sinew_node_valid(sc->graph, sinew_node_parent(sc->graph, at));
    if (ok && found++ == 0) *out = n;
  }
  if (found > 1) return SINEW_EAMBIGUOUS;
  if (found == 1) return SINEW_OK;
  return live ? SINEW_ENOTFOUND : SINEW_ESTALE;
}

int sinew__find_node(sinew_session_t *s, const char *name, sinew_node_t *out) {
  sinew__scene *sc = s->scene;
  if (sc->import) {
    int rc = import_find(sc, sc->import, name, out);
    if (rc == SINEW_ESTALE) return SINEW_ENOTFOUND; /* the file's node was deleted: not the scene's */
    if (rc != SINEW_ENOTFOUND) return rc;
  }
  return sinew_node_find(sc->graph, name, out);
}

/* Whether `name` is taken by a node the import did not make. */
static bool clashes(sinew_session_t *s, const char *name) {
  sinew_node_t n;
  int rc = sinew_node_find(s->scene->graph, name, &n);
  return rc == SINEW_EAMBIGUOUS || (rc == SINEW_OK && !sinew__import_owns(s, n));
}

int sinew__import_node_name(sinew_session_t *s, const char *name, const char *type, bool shared,
                            char **out) {
  struct sinew__import *imp = s->scene->import;
  *out = NULL;
  if (!imp || shared || (!imp->ns && !imp->prefix)) return SINEW_OK;
  const char *base = name && name[0] ? name : NULL;
  if (base && base[0] == ':') base++;
  if (!imp->ns && base && !imp->rename_all && !clashes(s, base)) return SINEW_OK;
  if (!imp->ns && !base && !imp->rename_all) return SINEW_OK; /* an automatic name never clashes */
  sinew__buf b = {0};
  sinew__buf_puts(&b, imp->ns ? imp->ns : imp->prefix);
  if (base) {
    sinew__buf_puts(&b, base);
  } else {
    sinew__buf_puts(&b, type);
    sinew__buf_puts(&b, "#");
  }
  if (b.oom) {
    sinew__buf_free(&b);
    return SINEW_ENOMEM;
  }
  *out = b.p;
  return SINEW_OK;
}

/* ---- the per-node records an import changes ---- */

static sinew__raw *raws_clone(const sinew__raw *r, uint32_t n, bool *oom) {
  if (!n) return NULL;
  sinew__raw *c = sinew_calloc(n, sizeof *c);
  for (uint32_t i = 0; c && i < n; i++) {
    c[i].attr = sinew__cmds_strdup(r[i].attr);
    c[i].text = sinew__cmds_strdup(r[i].text);
    if (!c[i].attr || !c[i].text) *oom = true;
  }
  if (!c) *oom = true;
  return c;
}

/* A deep copy of a record (without its hash handle; a geometry block being read is not
 * copied: a node an import touches is not being read). NULL when out of memory. */
static sinew__extra *extra_clone(const sinew__extra *e) {
  sinew__extra *c = sinew_calloc(1, sizeof *c);
  if (!c) return NULL;
  bool oom = false;
  c->key = e->key;
  c->node = e->node;
  c->uid = e->uid ? sinew__cmds_strdup(e->uid) : NULL;
  oom |= e->uid && !c->uid;
  c->raws = raws_clone(e->raws, e->nraws, &oom);
  c->nraws = c->craws = c->raws ? e->nraws : 0;
  c->geom = raws_clone(e->geom, e->ngeom, &oom);
  c->ngeom = c->cgeom = c->geom ? e->ngeom : 0;
  c->geom_topology = e->geom_topology;
  c->is_default = e->is_default;
  if (e->nimplicit && (c->implicit = sinew_malloc(e->nimplicit * sizeof *c->implicit))) {
    memcpy(c->implicit, e->implicit, e->nimplicit * sizeof *c->implicit);
    c->nimplicit = c->cimplicit = e->nimplicit;
  }
  oom |= e->nimplicit && !c->implicit;
  if (e->ndyn && (c->dyn_types = sinew_calloc(e->ndyn, sizeof *c->dyn_types))) {
    c->ndyn = c->cdyn = e->ndyn;
    for (uint32_t i = 0; i < e->ndyn; i++) oom |= !(c->dyn_types[i] = sinew__cmds_strdup(e->dyn_types[i]));
  }
  oom |= e->ndyn && !c->dyn_types;
  for (const struct sinew__plug_state *st = e->states; st && !oom; st = st->hh.next) {
    struct sinew__plug_state *ns = sinew_calloc(1, sizeof *ns);
    if (!ns || !(ns->attr = sinew__cmds_strdup(st->attr))) {
      sinew_free(ns);
      oom = true;
      break;
    }
    ns->attr_id = st->attr_id;
    ns->keyable = st->keyable;
    ns->channel_box = st->channel_box;
    sinew__cmds_oom = 0;
    HASH_ADD_KEYPTR(hh, c->states, ns->attr, strlen(ns->attr), ns);
    if (sinew__cmds_oom) {
      sinew_free(ns->attr);
      sinew_free(ns);
      oom = true;
    }
  }
  if (oom) {
    extra_free(c);
    return NULL;
  }
  return c;
}

/* Keeps the record of key k (e, or none) as it is before the innermost import first touches it.
 * False when out of memory (the import is then made to fail). */
static bool import_keep(sinew__scene *sc, uint64_t k, const sinew__extra *e) {
  struct sinew__import *imp = sc->import;
  import_kept *kp = NULL;
  HASH_FIND(hh, imp->kept, &k, sizeof k, kp);
  if (kp) return true;
  kp = sinew_calloc(1, sizeof *kp);
  if (kp) {
    kp->key = k;
    if (e && !(kp->copy = extra_clone(e))) {
      sinew_free(kp);
      kp = NULL;
    }
  }
  if (kp) {
    sinew__cmds_oom = 0;
    HASH_ADD(hh, imp->kept, key, sizeof kp->key, kp);
    if (!sinew__cmds_oom) return true;
    if (kp->copy) extra_free(kp->copy);
    sinew_free(kp);
  }
  imp->kept_lost = true;
  return false;
}

static void kept_free_all(import_kept **kept) {
  import_kept *k, *kt;
  HASH_ITER(hh, *kept, k, kt) {
    HASH_DEL(*kept, k);
    if (k->copy) extra_free(k->copy);
    sinew_free(k);
  }
}

/* A failed import: every record it touched is as it was before. */
static void kept_restore(sinew__scene *sc, struct sinew__import *imp) {
  import_kept *kp, *kt;
  HASH_ITER(hh, imp->kept, kp, kt) {
    sinew__extra *live = NULL;
    HASH_FIND(hh, sc->extras, &kp->key, sizeof kp->key, live);
    if (live && kp->copy && !kp->made) { /* the contents change places; the hash keeps its entry */
      sinew__extra t = *live;
      *live = *kp->copy;
      live->hh = t.hh;
      *kp->copy = t;
    } else if (live) {
      HASH_DEL(sc->extras, live);
      extra_free(live);
    } else if (kp->copy) { /* (a record is not freed while an import runs) */
      continue;
    }
  }
}

/* A successful nested import: the records it kept are the enclosing import's too, unless the
 * enclosing one kept them first. */
static void kept_merge(struct sinew__import *outer, struct sinew__import *imp) {
  if (!outer) return;
  outer->kept_lost |= imp->kept_lost;
  import_kept *kp, *kt, *have;
  HASH_ITER(hh, imp->kept, kp, kt) {
    HASH_FIND(hh, outer->kept, &kp->key, sizeof kp->key, have);
    if (have) continue;
    HASH_DEL(imp->kept, kp);
    sinew__cmds_oom = 0;
    HASH_ADD(hh, outer->kept, key, sizeof kp->key, kp);
    if (sinew__cmds_oom) {
      outer->kept_lost = true;
      if (kp->copy) extra_free(kp->copy);
      sinew_free(kp);
    }
  }
}

/* A successful outermost import inside a larger transaction (a host's, a command running a
 * script): the per-node records it changed go back when that transaction rolls back, through a
 * journal record. It holds, for each record the import touched, the other contents (before
 * the import while the import is in effect, the import's own after a rollback); a swap
 * exchanges them with the live record's, which keeps its hash entry, so that nothing is
 * allocated. A record the import made swaps with an empty one (an empty record changes nothing
 * saved), allocated here, before the import's transaction commits. */
typedef struct kept_journal {
  sinew__scene *sc;
  import_kept *kept;
} kept_journal;

static void kept_swap(sinew_graph_t *g, void *data) {
  (void)g;
  kept_journal *kj = data;
  import_kept *kp, *kt;
  HASH_ITER(hh, kj->kept, kp, kt) {
    sinew__extra *live = NULL;
    HASH_FIND(hh, kj->sc->extras, &kp->key, sizeof kp->key, live);
    if (!live || !kp->copy) continue; /* freed outside any transaction since: nothing to give back */
    sinew__extra t = *live;
    *live = *kp->copy;
    live->hh = t.hh;
    *kp->copy = t;
  }
  sinew__side_changed(kj->sc);
}

static void kept_release(sinew_graph_t *g, void *data, bool done) {
  (void)g;
  (void)done; /* either way the copies are not live */
  kept_journal *kj = data;
  kept_free_all(&kj->kept);
  sinew_free(kj);
}

static const sinew_record_ops_t kept_ops = {kept_swap, kept_release};

/* Hands the import's kept records to the journal (see kept_journal); on failure (out of memory)
 * nothing is handed and the import fails. */
static int kept_record(sinew_session_t *s, struct sinew__import *imp) {
  sinew__scene *sc = s->scene;
  import_kept *kp, *kt;
  HASH_ITER(hh, imp->kept, kp, kt) {
    if (kp->copy) continue;
    sinew__extra *live = NULL;
    HASH_FIND(hh, sc->extras, &kp->key, sizeof kp->key, live);
    if (!live) continue;
    if (!(kp->copy = sinew_calloc(1, sizeof *kp->copy))) return SINEW_ENOMEM;
    kp->copy->key = live->key;
    kp->copy->node = live->node;
    kp->made = true;
  }
  kept_journal *kj = sinew_calloc(1, sizeof *kj);
  if (!kj) return SINEW_ENOMEM;
  kj->sc = sc;
  kj->kept = imp->kept;
  int rc = sinew_graph_record(sc->graph, &kept_ops, kj);
  if (rc) {
    sinew_free(kj);
    return rc;
  }
  imp->kept = NULL; /* the record owns them now */
  return SINEW_OK;
}

/* ---- beginning, ending and undoing an import ---- */

static void kept_free(struct sinew__import *imp) { kept_free_all(&imp->kept); }

static void import_free(struct sinew__import *imp) {
  kept_free(imp);
  import_bucket *b, *bt;
  HASH_ITER(hh, imp->names, b, bt) {
    HASH_DEL(imp->names, b);
    sinew_free(b->name);
    sinew_free(b->nodes);
    sinew_free(b);
  }
  import_node *in, *it;
  HASH_ITER(hh, imp->nodes, in, it) {
    HASH_DEL(imp->nodes, in);
    sinew_free(in);
  }
  free_strings(imp->file_info, imp->nfile_info);
  sinew_free(imp->ns);
  sinew_free(imp->prefix);
}

/* Whether some node is in namespace ns ("ns:"). */
bool sinew__namespace_used(sinew_graph_t *g, const char *ns) {
  size_t k = strlen(ns);
  sinew_node_t it = {0, 0};
  while (sinew_node_next(g, &it))
    if (strncmp(sinew_node_name(g, it), ns, k) == 0) return true;
  return false;
}

/* The namespace an import puts its nodes in: the one asked for, or (when it is in use and not
 * to be merged) the first free one with a number on the end, as Maya does. */
static int import_namespace(sinew_session_t *s, const sinew__import_opts *o, char **out) {
  *out = NULL;
  const char *ns = o->ns;
  while (ns && ns[0] == ':') ns++;
  if (!ns || !ns[0]) return SINEW_OK;
  size_t n = strlen(ns);
  while (n && ns[n - 1] == ':') n--;
  for (size_t i = 0; i < n; i++)
    if (!isalnum((unsigned char)ns[i]) && ns[i] != '_' && ns[i] != ':') {
      sinew__session_error(s, SINEW_EINVAL, NULL, "-namespace: '%s' is not a namespace name", o->ns);
      return SINEW_EINVAL;
    }
  if (isdigit((unsigned char)ns[0])) {
    sinew__session_error(s, SINEW_EINVAL, NULL, "-namespace: '%s' is not a namespace name", o->ns);
    return SINEW_EINVAL;
  }
  size_t base = n;
  while (base && isdigit((unsigned char)ns[base - 1])) base--;
  sinew__buf b = {0};
  sinew__buf_printf(&b, "%.*s:", (int)n, ns);
  for (unsigned k = 1; !b.oom && !o->merge_ns && sinew__namespace_used(s->scene->graph, b.p); k++) {
    b.n = 0;
    sinew__buf_printf(&b, "%.*s%u:", (int)base, ns, k);
  }
  if (b.oom) {
    sinew__buf_free(&b);
    sinew__session_error(s, SINEW_ENOMEM, NULL, "out of memory");
    return SINEW_ENOMEM;
  }
  *out = b.p;
  return SINEW_OK;
}

static int import_begin(sinew_session_t *s, const sinew__import_opts *o, struct sinew__import *imp) {
  sinew__scene *sc = s->scene;
  sinew_graph_t *g = sc->graph;
  memset(imp, 0, sizeof *imp);
  sinew__import_opts none = {0};
  if (!o) o = &none;
  if (o->prefix && o->prefix[0] && o->ns && o->ns[0]) {
    sinew__session_error(s, SINEW_EINVAL, NULL, "give -namespace or -renamingPrefix, not both");
    return SINEW_EINVAL;
  }
  if (o->rename_all && !(o->prefix && o->prefix[0])) {
    sinew__session_error(s, SINEW_EINVAL, NULL, "-renameAll needs -renamingPrefix");
    return SINEW_EINVAL;
  }
  if (o->prefix && o->prefix[0]) {
    for (const char *c = o->prefix; *c; c++)
      if (!isalnum((unsigned char)*c) && *c != '_') {
        sinew__session_error(s, SINEW_EINVAL, NULL, "-renamingPrefix: '%s' cannot start a node name",
                             o->prefix);
        return SINEW_EINVAL;
      }
  }
  int rc = import_namespace(s, o, &imp->ns);
  if (rc) return rc;
  imp->rename_all = o->rename_all;
  if (o->prefix && o->prefix[0]) {
    sinew__buf b = {0};
    sinew__buf_printf(&b, "%s_", o->prefix);
    imp->prefix = b.p;
    if (b.oom) rc = SINEW_ENOMEM;
  }
  /* the session's state as it is, to put it back if the import fails */
  imp->linear = sinew_scene_linear_unit(g);
  imp->angle = sinew_scene_angle_unit(g);
  imp->time = sinew_time_get_unit(g);
  sinew_time_get_frame(g, &imp->frame);
  imp->nrequires = sc->nrequires;
  imp->nraw_conns = sc->nraw_conns;
  imp->stats = sc->stats;
  if (!rc && sc->nfile_info) {
    imp->file_info = sinew_calloc(sc->nfile_info, sizeof *imp->file_info);
    if (!imp->file_info) rc = SINEW_ENOMEM;
    for (uint32_t i = 0; !rc && i < sc->nfile_info; i++, imp->nfile_info++)
      if (!(imp->file_info[i] = sinew__cmds_strdup(sc->file_info[i]))) rc = SINEW_ENOMEM;
  }
  if (rc) {
    import_free(imp);
    if (rc == SINEW_ENOMEM) sinew__session_error(s, SINEW_ENOMEM, NULL, "out of memory");
    return rc;
  }
  imp->outer = sc->import;
  sc->import = imp;
  return SINEW_OK;
}

/* Puts the session's state beside the graph back as it was when the import began (after the
 * import's transaction was rolled back): units, time and the file's header lines. */
static void import_restore(sinew_session_t *s, struct sinew__import *imp) {
  sinew__scene *sc = s->scene;
  sinew_graph_t *g = sc->graph;
  sinew_scene_set_linear_unit(g, imp->linear);
  sinew_scene_set_angle_unit(g, imp->angle);
  if (sinew_time_get_unit(g) != imp->time) sinew_time_set_unit(g, imp->time);
  double frame = 0;
  if (sinew_time_get_frame(g, &frame) == SINEW_OK && frame != imp->frame) sinew_time_set_frame(g, imp->frame);
  while (sc->nrequires > imp->nrequires) sinew_free(sc->requires[--sc->nrequires]);
  while (sc->nraw_conns > imp->nraw_conns) {
    sc->nraw_conns--;
    sinew_free(sc->raw_conns[sc->nraw_conns].src_attr);
    sinew_free(sc->raw_conns[sc->nraw_conns].dst_attr);
  }
  free_strings(sc->file_info, sc->nfile_info);
  sc->file_info = imp->file_info;
  sc->nfile_info = sc->cfile_info = imp->nfile_info;
  imp->file_info = NULL;
  imp->nfile_info = 0;
  pending_attr_free(&sc->pending_attr);
  /* what the file held is gone with it; its failures are still counted */
  size_t failed = sc->stats.failed_commands;
  sc->stats = imp->stats;
  sc->stats.failed_commands = failed;
}

/* Runs a .ma file's text (loading counted, keep-going as the session says). */
static int run_ma(sinew_session_t *s, const char *path, sinew_value_t *result);

static int import_file(sinew_session_t *s, const char *path, const sinew__import_opts *opts,
                       sinew_value_t *result) {
  sinew__session_clear_error(s);
  sinew__scene *sc = s->scene;
  struct sinew__import imp;
  int rc = import_begin(s, opts, &imp);
  if (rc) return rc;
  /* the whole import is one transaction: a failure takes the graph back as it was */
  if ((rc = sinew_graph_begin(sc->graph))) {
    sc->import = imp.outer;
    import_free(&imp);
    sinew__session_take(s, sinew_graph_error(sc->graph));
    return rc;
  }
  rc = run_ma(s, path, result);
  if (!rc && imp.kept_lost) {
    sinew__session_error(s, SINEW_ENOMEM, "file -import", "%s: out of memory", path);
    rc = SINEW_ENOMEM;
  }
  /* inside a larger transaction: the records go back with it (the import's own is open) */
  if (!rc && !imp.outer && imp.kept && sinew_graph_in_transaction(sc->graph) > 1 &&
      (rc = kept_record(s, &imp)))
    sinew__session_error(s, rc, "file -import", "%s: out of memory", path);
  /* a file that opened or emptied the scene is refused by file itself, so sc is still current */
  sc->import = imp.outer;
  if (rc) {
    sinew_graph_rollback(sc->graph);
    kept_restore(sc, &imp);
    import_restore(s, &imp);
  } else {
    sinew_graph_commit(sc->graph);
    kept_merge(imp.outer, &imp);
  }
  import_free(&imp);
  return rc;
}

int sinew__import_file(sinew_session_t *s, const char *path, const sinew__import_opts *opts) {
  if (!s || !path) return SINEW_EINVAL;
  return import_file(s, path, opts, NULL);
}

/* ---- placeholders ----------------------------------------------------------------------------------- */

/* Maya types that are DAG nodes, so placeholders of them can hold DAG children and parents. */
static const char *const maya_dag_types[] = {
    "locator", "camera", "nurbsCurve", "nurbsSurface", "ikHandle", "ikEffector", "follicle",
    "hairSystem", "nucleus", "lattice", "baseLattice", "clusterHandle", "subdiv", "imagePlane",
    "ambientLight", "directionalLight", "pointLight", "spotLight", "areaLight", "volumeLight",
    "place3dTexture", "lookAt", "particle", "nParticle", "nCloth", "nRigid", "fluidShape",
    "stroke", "pfxHair", "annotationShape", "distanceDimShape", "paramDimension",
    "deformBend", "deformSquash", "deformTwist", "deformWave", "deformFlare", "deformSine",
    "softModHandle", "sculpt", "implicitSphere", "renderBox", "xgmPalette", "aiSkyDomeLight",
    "aiAreaLight", "bezierCurve", "dagContainer", "assemblyReference", "gpuCache",
    "motionTrail", "hikIKEffector", "hikFKJoint", "ikSpringSolver", "fosterParent"};

static bool known_dag(const char *t) {
  size_t n = strlen(t);
  const char *tails[] = {"Constraint", "Shape", "Handle", "Light", "Manip"};
  for (size_t i = 0; i < sizeof tails / sizeof *tails; i++) {
    size_t k = strlen(tails[i]);
    if (n > k && strcmp(t + n - k, tails[i]) == 0) return true;
  }
  for (size_t i = 0; i < sizeof maya_dag_types / sizeof *maya_dag_types; i++)
    if (strcmp(maya_dag_types[i], t) == 0) return strcmp(t, "ikSpringSolver") != 0;
  return false;
}

int sinew__placeholder_type(sinew_session_t *s, sinew_cmd_t *cmd, const char *name, bool dag) {
  sinew_graph_t *g = s->scene->graph;
  const sinew_node_type_t *t = sinew_find_node_type(g, name);
  if (t) return SINEW_OK;
  for (const char *c = name; *c; c++)
    if (!isalnum((unsigned char)*c) && *c != '_' && *c != ':')
      return sinew_cmd_error(cmd, SINEW_EINVAL, "'%s' is not a node type name", name);
  dag = dag || known_dag(name);
  sinew_node_type_desc_t d = {.name = name,
                              .parent_type = dag ? "dagNode" : NULL,
                              .flags = SINEW_NODE_TYPE_PLACEHOLDER};
  int rc = sinew_register_node_type(g, &d, &t);
  if (rc) return sinew_cmd_graph_error(cmd, rc);
  s->scene->stats.placeholder_types++;
  sinew__warn_once(s, cmd, SINEW_LOG_UNKNOWN_NODE_TYPE, name,
                   "node type %s is not implemented: its nodes keep their attributes and "
                   "connections but compute nothing", name);
  return SINEW_OK;
}

bool sinew__is_placeholder(sinew_graph_t *g, sinew_node_t n) {
  const sinew_node_type_t *t = sinew_node_type(g, n);
  return t && (sinew_node_type_flags(t) & SINEW_NODE_TYPE_PLACEHOLDER);
}

/* One segment of an attribute path: name and an optional index (-1 none, -2 [] / -na). */
typedef struct seg {
  char name[128];
  int32_t index;
} seg;

static int split_path(const char *path, seg *out, int max, int *count) {
  int n = 0;
  const char *p = path;
  while (*p) {
    if (n == max) return SINEW_ERANGE;
    size_t k = 0;
    while (*p && *p != '.' && *p != '[') {
      if (k + 1 >= sizeof out[n].name) return SINEW_ERANGE;
      /* a name Maya could have made: letters, digits and '_', not starting with a digit */
      if (!(isalpha((unsigned char)*p) || *p == '_' || (k && isdigit((unsigned char)*p)))) return SINEW_EINVAL;
      out[n].name[k++] = *p++;
    }
    out[n].name[k] = 0;
    if (!k) return SINEW_EINVAL;
    out[n].index = -1;
    if (*p == '[') {
      p++;
      if (*p == ']') {
        out[n].index = -2;
      } else {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || *end != ']' || v < 0 || v > INT32_MAX) return SINEW_EINVAL;
        out[n].index = (int32_t)v;
        p = end;
      }
      p++;
    }
    n++;
    if (*p == '.') p++;
  }
  *count = n;
  return n ? SINEW_OK : SINEW_EINVAL;
}

int sinew__implicit_attr(sinew_session_t *s, sinew_node_t n, const char *attr_path,
                         const sinew_plug_t *like, sinew_plug_t *out) {
  sinew_graph_t *g = s->scene->graph;
  seg segs[SINEW_PLUG_MAX_INDICES + 4];
  int ns;
  int rc = split_path(attr_path, segs, (int)(sizeof segs / sizeof *segs), &ns);
  if (rc) return rc;
  int first_missing = -1;
  uint32_t parent = UINT32_MAX;
  for (int i = 0; i < ns; i++) {
    uint32_t a = sinew_node_attr(g, n, segs[i].name);
    if (a == UINT32_MAX) {
      first_missing = i;
      break;
    }
    /* a name the node has under another parent: the path cannot be made (kept as text), in
     * whichever order the file's lines come */
    sinew_attr_info_t info;
    if (sinew_node_attr_info(g, n, a, &info) || info.parent != parent) return SINEW_EUNSUPPORTED;
    parent = a;
  }
  if (first_missing >= 0) {
    /* children cannot be added to an existing compound, so the missing part must start at the
     * top; and a name further down must be new to the node */
    if (first_missing > 0) return SINEW_EUNSUPPORTED;
    for (int i = 1; i < ns; i++)
      if (sinew_node_attr(g, n, segs[i].name) != UINT32_MAX) return SINEW_EUNSUPPORTED;
    (void)like;
    sinew_attr_desc_t descs[SINEW_PLUG_MAX_INDICES + 4];
    int nd = 0;
    for (int i = first_missing; i < ns; i++) {
      sinew_attr_desc_t d = {0};
      d.name = segs[i].name;
      d.parent = i > first_missing ? segs[i - 1].name : NULL;
      /* no value flows through these: the leaf is a generic message */
      d.type = i == ns - 1 ? SINEW_ATTR_MESSAGE : SINEW_ATTR_COMPOUND;
      d.flags = SINEW_ATTR_INPUT | SINEW_ATTR_HIDDEN | SINEW_ATTR_GENERIC |
                (segs[i].index != -1 ? SINEW_ATTR_ARRAY : 0);
      descs[nd++] = d;
    }
    uint32_t before = sinew_node_attr_count(g, n);
    if ((rc = sinew_node_add_attr(g, n, descs, (size_t)nd))) return rc;
    uint32_t after = sinew_node_attr_count(g, n);
    for (uint32_t a = before; a < after; a++)
      if ((rc = sinew__extra_mark_implicit(s->scene, n, a))) return rc;
  }
  /* now it parses, unless an index is "[]" (next available: the caller handles) */
  char text[600];
  size_t k = 0;
  for (int i = 0; i < ns; i++) {
    int w = snprintf(text + k, sizeof text - k, "%s%s", i ? "." : "", segs[i].name);
    if (w < 0 || (size_t)w >= sizeof text - k) return SINEW_ERANGE;
    k += (size_t)w;
    if (segs[i].index >= 0) {
      w = snprintf(text + k, sizeof text - k, "[%d]", segs[i].index);
      if (w < 0 || (size_t)w >= sizeof text - k) return SINEW_ERANGE;
      k += (size_t)w;
    }
  }
  return sinew_plug_parse_attr(g, n, text, out);
}

/* ---- meshes from ed / fc lines ------------------------------------------------------------------------ */

/* The mesh with the UVs of its mu 0 records, their (u, v) from the node's uvst[0].uvsp (read by
 * then: files write them before the faces); a UV index with no uvsp element is none. */
static int attach_uvs(sinew_graph_t *g, sinew_node_t n, sinew__pending_mesh *m, sinew_data_t **mesh) {
  sinew_plug_t arr;
  if (sinew_plug_parse_attr(g, n, "uvst[0].uvsp", &arr)) return SINEW_OK; /* no UV set attribute */
  size_t cnt = sinew_plug_indices(g, &arr, NULL, 0);
  int32_t *idx = sinew_malloc((cnt ? cnt : 1) * sizeof *idx);
  if (!idx) return SINEW_ENOMEM;
  cnt = sinew_plug_indices(g, &arr, idx, cnt);
  uint32_t nuvs = cnt && idx[cnt - 1] >= 0 ? (uint32_t)idx[cnt - 1] + 1 : 0;
  if (nuvs > 2 * (uint64_t)cnt + 4096) {
    /* Maya numbers UVs 0..n-1: indices this sparse are not a UV set, and would ask for an
     * array as large as the highest one */
    sinew_log(g, SINEW_LOG_WARNING, SINEW_LOG_FILE_WARNING,
              "%s: uvst[0].uvsp has %zu elements numbered up to %u; the UVs are ignored", sinew_node_name(g, n),
              cnt, nuvs - 1);
    sinew_free(idx);
    return SINEW_OK;
  }
  float *uv = sinew_malloc((size_t)(nuvs ? nuvs : 1) * 2 * sizeof *uv);
  uint8_t *have = sinew_malloc(nuvs ? nuvs : 1);
  int rc = uv && have ? SINEW_OK : SINEW_ENOMEM;
  if (!rc) memset(have, 0, nuvs ? nuvs : 1);
  for (size_t i = 0; i < cnt && !rc; i++) {
    sinew_plug_t e;
    double v[2] = {0, 0};
    if (idx[i] < 0 || sinew_plug_element(g, &arr, idx[i], &e) || sinew_get_doubles(g, &e, v, 2, NULL)) continue;
    uv[2 * (size_t)idx[i]] = (float)v[0];
    uv[2 * (size_t)idx[i] + 1] = (float)v[1];
    have[idx[i]] = 1;
  }
  for (uint32_t i = 0; i < m->nfv && !rc; i++)
    if (m->face_uvs[i] != UINT32_MAX && (m->face_uvs[i] >= nuvs || !have[m->face_uvs[i]])) m->face_uvs[i] = UINT32_MAX;
  /* per face-vertex: whether the edge leaving it is hard (.ed flag 0) */
  uint8_t *hard = !rc && m->edge_hard ? sinew_malloc(m->nfv ? m->nfv : 1) : NULL;
  if (!rc && m->edge_hard && !hard) rc = SINEW_ENOMEM;
  if (hard)
    for (uint32_t i = 0; i < m->nfv; i++) {
      int32_t fe = m->face_edges[i];
      uint32_t id = fe >= 0 ? (uint32_t)fe : (uint32_t)~fe;
      hard[i] = id < m->nedges ? m->edge_hard[id] : 0;
    }
  sinew_data_t *with = NULL;
  if (!rc && !(rc = sinew_mesh_set_uvs(*mesh, nuvs, uv, m->face_uvs, hard, &with))) {
    sinew_data_unref(*mesh);
    *mesh = with;
  }
  sinew_free(idx);
  sinew_free(uv);
  sinew_free(have);
  sinew_free(hard);
  return rc;
}

int sinew__finish_mesh(sinew_session_t *s, sinew_node_t n) {
  sinew__scene *sc = s->scene;
  sinew__extra *e = sinew__extra_get(sc, n, false);
  if (!e || !e->mesh.active) return SINEW_OK;
  sinew__pending_mesh *m = &e->mesh;
  sinew_graph_t *g = sc->graph;
  int rc = SINEW_OK;
  uint32_t *fv = sinew_malloc((m->nfv ? m->nfv : 1) * sizeof *fv);
  if (!fv) return SINEW_ENOMEM;
  rc = sinew_mesh_faces_from_edges(m->edges, m->nedges, m->face_edges, m->face_counts, m->nfaces, fv);
  if (rc) {
    sinew_log(g, SINEW_LOG_WARNING, SINEW_LOG_FILE_WARNING,
              "%s: the faces do not follow the edges (%s); the mesh keeps no stored geometry",
              sinew_node_name(g, n), sinew_strerror(rc));
    sinew_free(fv);
    pending_mesh_free(m);
    return SINEW_OK;
  }
  /* points: the vrts elements (vt) that exist, or as many as the indices need */
  uint32_t npoints = 0;
  for (uint32_t i = 0; i < m->nfv; i++)
    if (fv[i] + 1 > npoints) npoints = fv[i] + 1;
  for (uint32_t i = 0; i < m->nedges * 2; i++)
    if (m->edges[i] + 1 > npoints) npoints = m->edges[i] + 1;
  uint32_t vt = sinew_node_attr(g, n, "vrts");
  if (vt != UINT32_MAX) {
    sinew_plug_t whole = sinew_plug_make(n, vt, 0, NULL);
    int32_t last;
    size_t cnt = sinew_plug_indices(g, &whole, NULL, 0);
    if (cnt) {
      int32_t *idx = sinew_malloc(cnt * sizeof *idx);
      if (idx) {
        sinew_plug_indices(g, &whole, idx, cnt);
        last = idx[cnt - 1];
        if ((uint32_t)last + 1 > npoints) npoints = (uint32_t)last + 1;
        sinew_free(idx);
      }
    }
  }
  sinew_data_t *mesh = NULL;
  rc = sinew_mesh_create(npoints, m->nfaces, m->face_counts, fv, &mesh);
  sinew_free(fv);
  if (!rc && m->has_uvs) rc = attach_uvs(g, n, m, &mesh);
  if (!rc) {
    rc = sinew_mesh_node_set(g, n, mesh);
    if (!rc) {
      const sinew_mesh_t *mm = sinew_mesh_get(mesh);
      e->geom_topology = mm ? mm->topology : NULL;
    }
  }
  sinew_data_unref(mesh); /* NULL when it was not made; also when the UVs failed */
  if (m->nholes)
    sinew_log(g, SINEW_LOG_WARNING, SINEW_LOG_FILE_WARNING,
              "%s: %u face holes ignored (sinew meshes have none)", sinew_node_name(g, n), m->nholes);
  pending_mesh_free(m);
  return rc;
}

int sinew__finish_current(sinew_session_t *s) {
  sinew__scene *sc = s->scene;
  if (!sinew_node_valid(sc->graph, sc->current)) return SINEW_OK;
  return sinew__finish_mesh(s, sc->current);
}

/* ---- sessions ---------------------------------------------------------------------------------------- */

int sinew_session_create(const sinew_session_desc_t *desc, sinew_session_t **out) {
  if (!out) return SINEW_EINVAL;
  sinew_session_t *s = sinew_calloc(1, sizeof *s);
  if (!s) return SINEW_ENOMEM;
  if (desc) s->desc = *desc;
  int rc = sinew__scene_create(s, &s->scene);
  if (rc) {
    sinew_free(s);
    return rc;
  }
  sinew_lang_desc_t ld = {.print = s->desc.print, .user_data = s->desc.print_data};
  if ((rc = sinew_lang_create(s->scene->graph, &ld, &s->lang)) ||
      (rc = sinew__register_core_cmds(s->lang, s)) || (rc = sinew__register_attr_cmds(s->lang, s)) ||
      (rc = sinew__register_rig_cmds(s->lang, s)) || (rc = sinew__register_skin_cmds(s->lang, s)) ||
      (rc = sinew__register_anim_cmds(s->lang, s)) || (rc = sinew__register_everyday_cmds(s->lang, s)) ||
      (rc = sinew__register_duplicate_cmds(s->lang, s)) || (rc = sinew__register_sets_cmds(s->lang, s)) ||
      (rc = sinew__register_constraint_cmds(s->lang, s)) || (rc = sinew__register_ik_cmds(s->lang, s)) ||
      (rc = sinew__register_curve_cmds(s->lang, s)) ||
      (rc = sinew__register_deform_cmds(s->lang, s)) ||
      (rc = sinew__register_undo_cmds(s->lang, s))) {
    sinew_session_destroy(s);
    return rc;
  }
  *out = s;
  return SINEW_OK;
}

void sinew_session_destroy(sinew_session_t *s) {
  if (!s) return;
  if (s->scene) sinew__undo_destroy(s);
  sinew_lang_destroy(s->lang);
  sinew__scene_destroy(s->scene);
  sinew__anim_clipboard_free(s);
  sinew_free(s);
}

sinew_graph_t *sinew_session_graph(const sinew_session_t *s) { return s ? s->scene->graph : NULL; }
sinew_lang_t *sinew_session_lang(const sinew_session_t *s) { return s ? s->lang : NULL; }
const char *sinew_session_errmsg(const sinew_session_t *s) {
  return s ? (s->errmsg[0] ? s->errmsg : "no error") : "no session";
}

const sinew_error_t *sinew_session_error(const sinew_session_t *s) {
  static const sinew_error_t none = {0};
  return s && s->errmsg[0] ? &s->err : &none;
}

int sinew__session_error(sinew_session_t *s, int status, const char *op, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sinew_error_setv(&s->err, status, op, fmt, ap);
  va_end(ap);
  sinew_error_format(&s->err, s->errmsg, sizeof s->errmsg);
  return status;
}

int sinew__session_take(sinew_session_t *s, const sinew_error_t *e) {
  if (e != &s->err) s->err = *e;
  sinew_error_format(&s->err, s->errmsg, sizeof s->errmsg);
  return s->err.code;
}

void sinew__session_clear_error(sinew_session_t *s) {
  memset(&s->err, 0, sizeof s->err);
  s->errmsg[0] = 0;
}
bool sinew_session_playback_range(const sinew_session_t *s, double out[4]) {
  if (!s || !s->scene->has_playback) return false;
  if (out) {
    out[0] = s->scene->pb_min, out[1] = s->scene->pb_max;
    out[2] = s->scene->pb_ast, out[3] = s->scene->pb_aet;
  }
  return true;
}
const char *sinew_session_file_name(const sinew_session_t *s) {
  return s && s->scene->file_name ? s->scene->file_name : "";
}
void sinew_session_stats(const sinew_session_t *s, sinew_session_stats_t *out) {
  if (!s || !out) return;
  *out = s->scene->stats;
}

static int finish_run(sinew_session_t *s, int rc) {
  int frc = sinew__finish_current(s);
  /* nodes whose block of lines ended without a change of current node */
  sinew__extra *e, *tmp;
  HASH_ITER(hh, s->scene->extras, e, tmp) {
    if (e->mesh.active && !frc) frc = sinew__finish_mesh(s, e->node);
  }
  if (!rc && frc) {
    rc = frc;
    sinew__session_take(s, sinew_graph_error(s->scene->graph));
  }
  /* IK handles a script or file made by createNode / connectAttr drive their chains from now */
  if (!rc) sinew__undo_run_outside(s, sinew__ik_wire_all, "ikHandle", sinew__ik_any);
  /* blendShapes set to origin world read their base's and targets' world matrices */
  if (!rc) sinew__undo_run_outside(s, sinew__blend_shape_wire_all, "blendShape", sinew__blend_shape_any);
  return rc;
}

int sinew_session_run(sinew_session_t *s, const char *text, size_t len, const char *name,
                      sinew_value_t *result) {
  if (!s || (!text && len)) return SINEW_EINVAL;
  sinew__session_clear_error(s);
  int rc = sinew_lang_run(s->lang, text, len, name, result);
  if (rc) sinew__session_take(s, sinew_lang_error(s->lang));
  return finish_run(s, rc);
}

bool sinew__is_ma_path(const char *path) {
  size_t n = path ? strlen(path) : 0;
  return n >= 3 && strcasecmp(path + n - 3, ".ma") == 0;
}

/* Reads a whole file (sinew_malloc'd, NUL-terminated). A message in s->errmsg on failure. */
static int read_file(sinew_session_t *s, const char *path, char **out, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    sinew__session_error(s, SINEW_EIO, NULL, "%s: cannot open the file: %s", path, strerror(errno));
    return SINEW_EIO;
  }
  char *buf = NULL;
  size_t n = 0, cap = 0;
  int rc = SINEW_OK;
  for (;;) {
    if (n + 65536 + 1 > cap) {
      size_t nc = cap ? cap * 2 : 65536 * 2;
      char *b = sinew_realloc(buf, nc);
      if (!b) {
        rc = SINEW_ENOMEM;
        sinew__session_error(s, SINEW_ENOMEM, NULL, "%s: out of memory", path);
        break;
      }
      buf = b;
      cap = nc;
    }
    size_t r = fread(buf + n, 1, cap - n - 1, f);
    n += r;
    if (r == 0) break;
  }
  if (!rc && ferror(f)) {
    rc = SINEW_EIO;
    sinew__session_error(s, SINEW_EIO, NULL, "%s: read error: %s", path, strerror(errno));
  }
  fclose(f);
  if (rc) {
    sinew_free(buf);
    return rc;
  }
  buf[n] = 0;
  *out = buf;
  *len = n;
  return SINEW_OK;
}

/* What ends a bare word for the parser: a comment marker glued to a word belongs to the word. */
static bool word_boundary(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';' || c == '`' || c == '(' ||
         c == ')' || c == '"' || c == '{' || c == '}';
}

static int cut_short(sinew_session_t *s, const char *path, uint32_t line, const char *inside) {
  sinew__session_error(s, SINEW_ESYNTAX, NULL,
                       "%s:%u: the file ends inside %s (it was cut short); nothing was read", path, line,
                       inside);
  return SINEW_ESYNTAX;
}

/* A .ma file ends with a complete statement: the last thing in it that is not white space or a
 * comment (a line comment or a block comment, outside strings) is a ';'. Otherwise the file was
 * cut short (an interrupted copy or save), and reading only what is there would pass a partial
 * scene off as the whole one. The file ending inside a string or a block comment is cut short
 * too; a string broken by a newline is left to the parser, which names its line. */
static int check_complete(sinew_session_t *s, const char *path, const char *text, size_t n) {
  uint32_t line = 1, last_line = 1;
  char last = ';'; /* an empty file is complete */
  for (size_t i = 0; i < n; i++) {
    char c = text[i];
    bool boundary = i == 0 || word_boundary(text[i - 1]);
    if (c == '\n') {
      line++;
    } else if (c == '"') {
      uint32_t open = line;
      for (i++; i < n && text[i] != '"'; i++) {
        if (text[i] == '\n') return SINEW_OK; /* the parser reports the broken string */
        if (text[i] == '\\' && i + 1 < n) line += text[++i] == '\n'; /* an escape, even of a newline */
      }
      if (i >= n) return cut_short(s, path, open, "a string");
      last = '"';
      last_line = line;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '/' && boundary) {
      while (i + 1 < n && text[i + 1] != '\n') i++;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '*' && boundary) {
      uint32_t open = line;
      for (i += 2; i + 1 < n && !(text[i] == '*' && text[i + 1] == '/'); i++) line += text[i] == '\n';
      if (i + 1 >= n) return cut_short(s, path, open, "a comment");
      i++;
    } else if (!isspace((unsigned char)c)) {
      last = c;
      last_line = line;
    }
  }
  return last == ';' ? SINEW_OK : cut_short(s, path, last_line, "a statement");
}

static int run_ma(sinew_session_t *s, const char *path, sinew_value_t *result) {
  /* reading runs with the queue off: what it changes is not recorded, so the steps before it
   * cannot be undone after it (inside a command's transaction it is recorded as that step) */
  if (!sinew_graph_in_transaction(s->scene->graph) && sinew__undo_owns(s)) sinew__undo_flush(s);
  bool keep = sinew_lang_keep_going(s->lang);
  uint64_t failures = sinew_lang_failures(s->lang);
  s->loading++;
  sinew_lang_set_keep_going(s->lang, !s->desc.strict);
  sinew_node_t saved = s->scene->current;
  char *text = NULL;
  size_t n = 0;
  int rc = read_file(s, path, &text, &n);
  if (!rc && memchr(text, 0, n)) {
    sinew__session_error(s, SINEW_ESYNTAX, NULL, "%s: not a text file (it contains NUL bytes)", path);
    rc = SINEW_ESYNTAX;
  }
  if (!rc) rc = check_complete(s, path, text, n);
  int depth = sinew__undo_file_begin(s);
  const char *outer_file = NULL;
  if (!rc && (rc = sinew__refs_file_begin(s, path, &outer_file)))
    sinew__session_error(s, SINEW_ENOMEM, NULL, "out of memory");
  else if (!rc) {
    if ((rc = sinew_lang_run(s->lang, text, n, path, result)))
      sinew__session_take(s, sinew_lang_error(s->lang));
    rc = sinew__refs_file_end(s, outer_file, rc); /* the references' edits, once the file's lines ran */
  }
  sinew__undo_file_end(s, depth);
  sinew_free(text);
  rc = finish_run(s, rc);
  s->loading--;
  sinew_lang_set_keep_going(s->lang, keep);
  s->scene->stats.failed_commands += (size_t)(sinew_lang_failures(s->lang) - failures);
  if (sinew_node_valid(s->scene->graph, saved)) s->scene->current = saved;
  return rc;
}

int sinew_session_run_file(sinew_session_t *s, const char *path, sinew_value_t *result) {
  if (!s || !path) return SINEW_EINVAL;
  sinew__session_clear_error(s);
  if (sinew__is_ma_path(path)) return import_file(s, path, NULL, result);
  sinew_node_t saved = s->scene->current;
  int depth = sinew__undo_file_begin(s); /* its lines are top-level commands, each all or nothing */
  int rc = sinew_lang_run_file(s->lang, path, result);
  sinew__undo_file_end(s, depth);
  if (rc) sinew__session_take(s, sinew_lang_error(s->lang));
  rc = finish_run(s, rc);
  if (sinew_node_valid(s->scene->graph, saved)) s->scene->current = saved;
  return rc;
}

/* While a file is opened or imported its scene stays: the reader is still building it (an open
 * holds the scene it makes until the file ends; an import puts the scene back if it fails), so a
 * line of that file cannot replace it with file -new or file -open. */
static int refuse_while_reading(sinew_session_t *s, const char *what) {
  if (s->opening) {
    sinew__session_error(s, SINEW_EINVAL, what, "not while a file is being opened");
    return SINEW_EINVAL;
  }
  if (!s->scene->import) return SINEW_OK;
  sinew__session_error(s, SINEW_EINVAL, what, "not while a file is being imported");
  return SINEW_EINVAL;
}

int sinew_session_open(sinew_session_t *s, const char *path) {
  if (!s || !path) return SINEW_EINVAL;
  sinew__session_clear_error(s);
  int rc = refuse_while_reading(s, "file -open");
  if (rc) return rc;
  sinew__scene *fresh, *old = s->scene;
  rc = sinew__scene_create(s, &fresh);
  if (rc) {
    sinew__session_error(s, SINEW_ENOMEM, "file -open", "out of memory");
    return rc;
  }
  s->scene = fresh;
  sinew_lang_set_graph(s->lang, fresh->graph);
  s->opening++;
  bool ma = sinew__is_ma_path(path);
  rc = ma ? run_ma(s, path, NULL) : sinew_session_run_file(s, path, NULL);
  /* the file's sceneConfigurationScriptNode runs when it is opened, as in Maya */
  if (!rc && ma) rc = sinew__run_scene_config(s);
  s->opening--;
  if (rc) {
    s->scene = old;
    sinew_lang_set_graph(s->lang, old->graph);
    sinew__scene_destroy(fresh);
    return rc;
  }
  char *fn = sinew__cmds_strdup(path);
  sinew_free(fresh->file_name);
  fresh->file_name = fn;
  fresh->current = (sinew_node_t){0, 0};
  sinew__undo_scene_replaced(s, old->graph); /* Maya flushes the queue on file -open */
  sinew__scene_destroy(old);
  return SINEW_OK;
}

int sinew_session_new_scene(sinew_session_t *s) {
  if (!s) return SINEW_EINVAL;
  sinew__session_clear_error(s);
  sinew__scene *fresh;
  int rc = refuse_while_reading(s, "file -new");
  if (rc) return rc;
  rc = sinew__scene_create(s, &fresh);
  if (rc) return rc;
  sinew__scene *old = s->scene;
  s->scene = fresh;
  sinew_lang_set_graph(s->lang, fresh->graph);
  sinew__undo_scene_replaced(s, old->graph); /* and on file -new */
  sinew__scene_destroy(old);
  return SINEW_OK;
}

int sinew_session_write_ma(sinew_session_t *s, FILE *out, const char *name) {
  if (!s || !out) return SINEW_EINVAL;
  return sinew__write_ma(s, out, name);
}

int sinew_session_save(sinew_session_t *s, const char *path) {
  if (!s || !path || !path[0]) return SINEW_EINVAL;
  sinew__session_clear_error(s);
  /* written whole or not at all: a temporary file beside the target, renamed over it (sinew/io.h) */
  char why[sizeof s->errmsg - 16];
  sinew_afile_t *af;
  int rc = sinew_afile_open(path, &af, why, sizeof why);
  if (rc) {
    sinew__session_error(s, rc, "file -save", "%s", why);
    return rc;
  }
  const char *base = strrchr(path, '/');
  rc = sinew__write_ma(s, sinew_afile_stream(af), base ? base + 1 : path);
  if (rc) {
    if (sinew_afile_abort(af, why, sizeof why) == SINEW_OK)
      snprintf(why, sizeof why, "%s: %s", path, sinew_strerror(rc));
    if (!s->errmsg[0]) sinew__session_error(s, rc, "file -save", "%s", why);
    return rc;
  }
  if ((rc = sinew_afile_commit(af, why, sizeof why))) {
    sinew__session_error(s, rc, "file -save", "%s", why);
    return rc;
  }
  char *fn = sinew__cmds_strdup(path);
  if (fn) {
    sinew_free(s->scene->file_name);
    s->scene->file_name = fn;
  }
  return SINEW_OK;
}
