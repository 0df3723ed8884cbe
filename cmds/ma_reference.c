/* cmds/ma_reference.c: file references in Maya ASCII files (docs/commands.md, "File references").
 *
 * Reading: `file -r` finds the referenced file (as written, beside the file being read, on
 * SINEW_REFERENCE_PATH), imports it under its namespace with the import machinery and marks the
 * nodes it made as that reference's. When the file that held the `file -r` line ends, the
 * reference node's edits (`.ed`, dataReferenceEdits) are applied in order: setAttr, addAttr,
 * deleteAttr, parent, connectAttr, lock and unlock, and the connections the main file made
 * through the reference node's placeHolderList. An edit that fails is a warning and is kept, as Maya keeps failed edits.
 * When the outermost file ends, the referenced nodes' values and connections are remembered.
 *
 * Writing: referenced nodes are not written; their reference node's `.ed` is written again with
 * the edits it had (less the placeholder connections, which are made anew), the values that
 * changed since loading as setAttr edits, connections between referenced nodes made since as
 * connectAttr edits, and every connection between a node of the scene and a referenced one
 * through a new placeHolderList element, and a scene node under a referenced one under the
 * reference's fosterParent node with a parent edit, as Maya writes them. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds_internal.h"

/* Nested references deeper than this are refused (a file that references itself in a way the
 * path check does not see, such as through a link, ends here). */
#define MAX_REFERENCE_DEPTH 16

typedef struct ref_edit {
  int code, sub;  /* sub: the second number of a code 5 edit, -1 for none */
  char **s;       /* its strings, as the file wrote them (names in that file's terms) */
  uint32_t ns;
  uint32_t group; /* the header ("xRN" count) it was listed under */
  bool drop;      /* a placeholder connection that was made: written anew from the graph */
} ref_edit;

typedef struct ref_snap {
  uint64_t key;
  char *text; /* the node's setAttr lines when the scene finished loading */
  UT_hash_handle hh;
} ref_snap;

typedef struct ref_rec {
  char *rfn;         /* the scene name of its reference node */
  char *ns;          /* "ns:" its nodes were put in */
  char *path;        /* as written */
  char *prefix;      /* the namespace of the file that referenced it ("" in the main file) */
  char *file;        /* the file read */
  uint32_t parent;   /* 1-based reference whose file held the `file -r` line; 0: the main file */
  uint32_t level;    /* how many .ma files were being read when it was loaded (0: a script's) */
  bool edits_read;   /* its reference node's .ed was decoded (and applied) */
  char *ed_owner;    /* the first string of the .ed value */
  char **groups;
  uint32_t ngroups, cgroups;
  ref_edit *edits;
  uint32_t nedits, cedits;
  ref_snap *snap;
  bool snapped;
} ref_rec;

typedef struct ref_node {
  uint64_t key;
  uint32_t ref; /* 1-based */
  UT_hash_handle hh;
} ref_node;

typedef struct str_set {
  char *k;
  uint32_t phl;  /* save plan: the placeHolderList element, 0 when the connection is not written */
  bool ref_src;  /* save plan: the referenced plug is the source */
  UT_hash_handle hh;
} str_set;

/* A new edit made while saving. */
typedef struct new_edit {
  uint32_t top;  /* 1-based top-level reference whose node holds it */
  int kind;      /* its edit code: written setAttr (2), connectAttr (3), parent (0), placeholders (5) */
  char *header;
  char *text;
  char *node, *attr; /* a setAttr edit's node and attribute: it supersedes a kept edit of both */
} new_edit;

struct sinew__refs {
  ref_rec *v;
  uint32_t n, cap;
  ref_node *nodes;
  str_set *conns;      /* "src>dst" between referenced nodes when the scene finished loading */
  const char *file;    /* the .ma file being read (innermost), NULL when none */
  char *root;          /* the outermost file being read */
  uint32_t cur;        /* the reference whose file is being read, 0 for none */
  uint32_t files;      /* .ma files being read, nested */
  /* while saving */
  str_set *plan;
  new_edit *added;
  uint32_t nadded, cadded;
  uint32_t *next_phl;  /* per reference: where to look for the next free placeHolderList element */
  uint8_t **used;      /* per reference: the elements in use (kept edits, the scene's connections) */
  uint32_t *nused;
  str_set *fosters;    /* "index gen" of scene nodes under a referenced parent -> top reference */
  char **foster_names; /* per reference: its fosterParent node's name, once one is needed */
  bool *foster_made;   /* per reference: the writer wrote that node */
};

static uint32_t next_phl(sinew__refs *r, uint32_t top);
static bool is_reference_node(sinew_graph_t *g, sinew_node_t n);

static uint64_t key_of(sinew_node_t n) { return ((uint64_t)n.index << 32) | n.gen; }

/* ---- records -------------------------------------------------------------------------------- */

static void free_strs(char **v, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) sinew_free(v[i]);
  sinew_free(v);
}

static void snap_free(ref_rec *r) {
  ref_snap *e, *t;
  HASH_ITER(hh, r->snap, e, t) {
    HASH_DEL(r->snap, e);
    sinew_free(e->text);
    sinew_free(e);
  }
}

static void set_free(str_set **set) {
  str_set *e, *t;
  HASH_ITER(hh, *set, e, t) {
    HASH_DEL(*set, e);
    sinew_free(e->k);
    sinew_free(e);
  }
}

static void plan_free(sinew__refs *r) {
  set_free(&r->plan);
  for (uint32_t i = 0; i < r->nadded; i++) {
    sinew_free(r->added[i].header);
    sinew_free(r->added[i].text);
    sinew_free(r->added[i].node);
    sinew_free(r->added[i].attr);
  }
  sinew_free(r->added);
  r->added = NULL;
  r->nadded = r->cadded = 0;
  set_free(&r->fosters);
  if (r->foster_names)
    for (uint32_t i = 0; i < r->n; i++) sinew_free(r->foster_names[i]);
  sinew_free(r->foster_names);
  sinew_free(r->foster_made);
  r->foster_names = NULL;
  r->foster_made = NULL;
  if (r->used)
    for (uint32_t i = 0; i < r->n; i++) sinew_free(r->used[i]);
  sinew_free(r->used);
  sinew_free(r->nused);
  sinew_free(r->next_phl);
  r->next_phl = NULL;
  r->used = NULL;
  r->nused = NULL;
}

static void rec_free(ref_rec *rec) {
  sinew_free(rec->rfn);
  sinew_free(rec->ns);
  sinew_free(rec->path);
  sinew_free(rec->prefix);
  sinew_free(rec->file);
  sinew_free(rec->ed_owner);
  free_strs(rec->groups, rec->ngroups);
  for (uint32_t k = 0; k < rec->nedits; k++) free_strs(rec->edits[k].s, rec->edits[k].ns);
  sinew_free(rec->edits);
  snap_free(rec);
  memset(rec, 0, sizeof *rec);
}

/* Forgets references from..n (1-based) and the marks of their nodes. */
static void drop_refs_from(sinew__refs *r, uint32_t from) {
  ref_node *e, *t;
  HASH_ITER(hh, r->nodes, e, t) {
    if (e->ref < from) continue;
    HASH_DEL(r->nodes, e);
    sinew_free(e);
  }
  while (r->n >= from) rec_free(&r->v[--r->n]);
}

void sinew__refs_free(sinew__refs *r) {
  if (!r) return;
  drop_refs_from(r, 1);
  sinew_free(r->v);
  sinew_free(r->root);
  set_free(&r->conns);
  plan_free(r);
  sinew_free(r);
}

static sinew__refs *refs_of(sinew_session_t *s) {
  if (!s->scene->refs) s->scene->refs = sinew_calloc(1, sizeof(sinew__refs));
  return s->scene->refs;
}

static ref_rec *ref_of_node(sinew_session_t *s, sinew_node_t n, uint32_t *index) {
  sinew__refs *r = s->scene->refs;
  if (!r) return NULL;
  uint64_t k = key_of(n);
  ref_node *e = NULL;
  HASH_FIND(hh, r->nodes, &k, sizeof k, e);
  if (!e || !sinew_node_valid(s->scene->graph, n)) return NULL;
  if (index) *index = e->ref;
  return &r->v[e->ref - 1];
}

const char *sinew__node_reference(sinew_session_t *s, sinew_node_t n) {
  ref_rec *rec = s ? ref_of_node(s, n, NULL) : NULL;
  return rec ? rec->rfn : NULL;
}

static int set_add(str_set **set, const char *k, str_set **out) {
  str_set *e = NULL;
  HASH_FIND_STR(*set, k, e);
  if (!e) {
    e = sinew_calloc(1, sizeof *e);
    if (!e || !(e->k = sinew__cmds_strdup(k))) {
      sinew_free(e);
      return SINEW_ENOMEM;
    }
    sinew__cmds_oom = 0;
    HASH_ADD_KEYPTR(hh, *set, e->k, strlen(e->k), e);
    if (sinew__cmds_oom) {
      sinew_free(e->k);
      sinew_free(e);
      return SINEW_ENOMEM;
    }
  }
  if (out) *out = e;
  return SINEW_OK;
}

/* ---- names ---------------------------------------------------------------------------------- */

/* A name or plug the referencing file wrote ("|b:x|b:y.tx", "bRN.placeHolderList[2]"), as the
 * scene names it: every level gets the namespace the file's own nodes were put in. */
static void scene_name(const char *prefix, const char *name, sinew__buf *b) {
  if (!prefix[0]) {
    sinew__buf_puts(b, name);
    return;
  }
  const char *dot = strchr(name, '.');
  size_t end = dot ? (size_t)(dot - name) : strlen(name);
  size_t i = 0;
  while (i < end) {
    if (name[i] == '|') {
      sinew__buf_put(b, "|", 1);
      i++;
      continue;
    }
    size_t j = i;
    while (j < end && name[j] != '|') j++;
    if (name[i] == ':') sinew__buf_put(b, name + i, j - i); /* the root namespace: as it is */
    else {
      sinew__buf_puts(b, prefix);
      sinew__buf_put(b, name + i, j - i);
    }
    i = j;
  }
  sinew__buf_puts(b, name + end);
}

/* "|a|b" for a DAG node, its name for another: how reference edits name nodes. */
static void node_path(sinew_graph_t *g, sinew_node_t n, sinew__buf *b) {
  char *p = sinew_node_path(g, n);
  if (!p) {
    b->oom = true;
    return;
  }
  sinew__buf_puts(b, p);
  sinew_free(p);
}

static void plug_path(sinew_graph_t *g, const sinew_plug_t *p, sinew__buf *b) {
  char attr[1024];
  node_path(g, p->node, b);
  sinew__buf_puts(b, ".");
  if (sinew_plug_format_attr(g, p, false, attr, sizeof attr) >= sizeof attr) b->oom = true;
  else sinew__buf_puts(b, attr);
}

/* ---- finding the referenced file -------------------------------------------------------------- */

static bool readable(const char *path) {
  FILE *f = fopen(path, "rb"); /* fopen, not stat: the fuzz targets' sandbox wraps it */
  if (!f) return false;
  fclose(f);
  return true;
}

static bool try_path(sinew__buf *tried, const char *dir, size_t dlen, const char *name, char *out, size_t size) {
  int n = dlen ? snprintf(out, size, "%.*s/%s", (int)dlen, dir, name) : snprintf(out, size, "%s", name);
  if (n < 0 || (size_t)n >= size) return false;
  if (tried->n) sinew__buf_puts(tried, ", ");
  sinew__buf_puts(tried, out);
  return readable(out);
}

/* The file a `file -r` path means: as written, then beside the file being read (the path, then
 * its file name), then in each folder of SINEW_REFERENCE_PATH (the path, then its file name).
 * tried lists where it looked. */
static bool find_reference(sinew_session_t *s, const char *path, char *out, size_t size, sinew__buf *tried) {
  const char *base = strrchr(path, '/');
  const char *bs = strrchr(path, '\\'); /* Windows paths as Maya wrote them on Windows */
  if (bs && (!base || bs > base)) base = bs;
  base = base ? base + 1 : path;
  if (!base[0]) return false;
  if (try_path(tried, NULL, 0, path, out, size)) return true;
  const char *file = s->scene->refs ? s->scene->refs->file : NULL;
  if (file) {
    const char *slash = strrchr(file, '/');
    const char *dir = slash ? (slash == file ? "/" : file) : "";
    size_t dlen = slash ? (slash == file ? 1 : (size_t)(slash - file)) : 0;
    if (path[0] != '/' && dlen && try_path(tried, dir, dlen, path, out, size)) return true;
    if (base != path && try_path(tried, dir, dlen, base, out, size)) return true;
  }
  const char *sp = getenv("SINEW_REFERENCE_PATH");
  while (sp && *sp) {
    const char *colon = strchr(sp, ':');
    size_t len = colon ? (size_t)(colon - sp) : strlen(sp);
    if (len) {
      if (path[0] != '/' && try_path(tried, sp, len, path, out, size)) return true;
      if (base != path && try_path(tried, sp, len, base, out, size)) return true;
    }
    sp = colon ? colon + 1 : NULL;
  }
  return false;
}

/* ---- loading a reference ------------------------------------------------------------------------ */

static int node_key_cmp(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Marks every node not in before (sorted keys) and not marked yet as reference ref's. */
static int mark_new_nodes(sinew_session_t *s, const uint64_t *before, size_t nbefore, uint32_t ref) {
  sinew__refs *r = s->scene->refs;
  sinew_node_t it = {0, 0};
  while (sinew_node_next(s->scene->graph, &it)) {
    uint64_t k = key_of(it);
    if (bsearch(&k, before, nbefore, sizeof k, node_key_cmp)) continue;
    ref_node *e = NULL;
    HASH_FIND(hh, r->nodes, &k, sizeof k, e);
    if (e) continue; /* a nested reference's */
    if (!(e = sinew_calloc(1, sizeof *e))) return SINEW_ENOMEM;
    e->key = k;
    e->ref = ref;
    sinew__cmds_oom = 0;
    HASH_ADD(hh, r->nodes, key, sizeof e->key, e);
    if (sinew__cmds_oom) {
      sinew_free(e);
      return SINEW_ENOMEM;
    }
  }
  return SINEW_OK;
}

/* The scene's state a referenced file's own header lines change (units, current time, requires,
 * fileInfo), put back after it loads: they are the referencing file's. */
typedef struct header_state {
  sinew_linear_unit_t linear;
  sinew_angle_unit_t angle;
  sinew_time_unit_t time;
  double frame;
  uint32_t nrequires;
  char **file_info;
  uint32_t nfile_info;
} header_state;

static int header_save(sinew__scene *sc, header_state *h) {
  memset(h, 0, sizeof *h);
  h->linear = sinew_scene_linear_unit(sc->graph);
  h->angle = sinew_scene_angle_unit(sc->graph);
  h->time = sinew_time_get_unit(sc->graph);
  sinew_time_get_frame(sc->graph, &h->frame);
  h->nrequires = sc->nrequires;
  if (!sc->nfile_info) return SINEW_OK;
  if (!(h->file_info = sinew_calloc(sc->nfile_info, sizeof *h->file_info))) return SINEW_ENOMEM;
  for (; h->nfile_info < sc->nfile_info; h->nfile_info++)
    if (!(h->file_info[h->nfile_info] = sinew__cmds_strdup(sc->file_info[h->nfile_info]))) return SINEW_ENOMEM;
  return SINEW_OK;
}

static void header_restore(sinew__scene *sc, header_state *h) {
  sinew_graph_t *g = sc->graph;
  sinew_scene_set_linear_unit(g, h->linear);
  sinew_scene_set_angle_unit(g, h->angle);
  if (sinew_time_get_unit(g) != h->time) sinew_time_set_unit(g, h->time);
  double frame = 0;
  if (sinew_time_get_frame(g, &frame) == SINEW_OK && frame != h->frame) sinew_time_set_frame(g, h->frame);
  while (sc->nrequires > h->nrequires) sinew_free(sc->requires[--sc->nrequires]);
  free_strs(sc->file_info, sc->nfile_info);
  sc->file_info = h->file_info;
  sc->nfile_info = sc->cfile_info = h->nfile_info;
  h->file_info = NULL;
}

static int take_snapshot(sinew_session_t *s);
static int run_edit(sinew_session_t *s, const char *text);

/* A script's file -r is saved as Maya writes a reference: a -rdi line and a -r line naming the
 * namespace and reference node it got (so the file's reference node is the one Maya makes). */
static int keep_script_lines(sinew__scene *sc, const char *ns, const char *rfn, const char *path) {
  for (int k = 0; k < 2; k++) {
    sinew__buf b = {0};
    sinew__buf_printf(&b, "\x01" "file %s -ns ", k ? "-r" : "-rdi 1");
    sinew__buf_quoted(&b, ns);
    sinew__buf_puts(&b, k ? " -dr 1 -rfn " : " -rfn ");
    sinew__buf_quoted(&b, rfn);
    sinew__buf_puts(&b, " -typ \"mayaAscii\" ");
    sinew__buf_quoted(&b, path);
    if (b.oom || sinew__grow((void **)&sc->requires, &sc->crequires, sc->nrequires + 1, sizeof *sc->requires)) {
      sinew__buf_free(&b);
      return SINEW_ENOMEM;
    }
    sc->requires[sc->nrequires++] = b.p;
  }
  sinew__side_changed(sc); /* lines kept as text are not undone */
  return SINEW_OK;
}

/* file -r: loads the referenced file under its namespace. */
int sinew__reference_load(sinew_cmd_t *cmd, const char *path) {
  sinew_session_t *s = sinew__session(cmd);
  sinew__scene *sc = s->scene;
  sinew__refs *r = refs_of(s);
  if (!r) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  const char *rfn = sinew_cmd_flag_string(cmd, "referenceNode", NULL);
  const char *ns = sinew_cmd_flag_string(cmd, "namespace", NULL);
  const char *prefix = r->cur ? r->v[r->cur - 1].ns : "";
  /* a reference with no namespace goes in one named after its file, as Maya does */
  char nsbuf[256];
  if (!ns || !ns[0] || strcmp(ns, ":") == 0) {
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t k = 0;
    for (; b[k] && b[k] != '.' && k + 1 < sizeof nsbuf; k++)
      nsbuf[k] = isalnum((unsigned char)b[k]) ? b[k] : '_';
    nsbuf[k] = 0;
    if (!k || isdigit((unsigned char)nsbuf[0])) return sinew_cmd_error(cmd, SINEW_EINVAL, "%s: give the reference a -namespace", path);
    ns = nsbuf;
  }
  while (ns[0] == ':') ns++;
  sinew__buf full_ns = {0}, rn = {0};
  sinew__buf_printf(&full_ns, "%s%s:", prefix, ns);
  /* a namespace in use (the same file referenced twice in a script) gets the next free number,
   * as Maya gives it */
  size_t digits = strlen(ns);
  while (digits && isdigit((unsigned char)ns[digits - 1])) digits--;
  for (unsigned k = 1; !full_ns.oom && sinew__namespace_used(sc->graph, full_ns.p) && k < 100000; k++) {
    full_ns.n = 0;
    sinew__buf_printf(&full_ns, "%s%.*s%u:", prefix, (int)digits, ns, k);
  }
  if (!full_ns.oom) full_ns.p[--full_ns.n] = 0; /* without its ':' until the record takes it */
  if (rfn && rfn[0]) scene_name(prefix, rfn, &rn);
  else sinew__buf_printf(&rn, "%sRN", full_ns.p ? full_ns.p : "");
  if (full_ns.oom || rn.oom) {
    sinew__buf_free(&full_ns);
    sinew__buf_free(&rn);
    return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  }
  /* depth: how many references are open around this one */
  uint32_t depth = 0;
  for (uint32_t p = r->cur; p; p = r->v[p - 1].parent) depth++;
  char found[4096];
  sinew__buf tried = {0};
  if (!r->files) {
    char nsname[512];
    snprintf(nsname, sizeof nsname, "%s", full_ns.p + strlen(prefix));
    if (keep_script_lines(sc, nsname, rn.p, path)) {
      sinew__buf_free(&full_ns);
      sinew__buf_free(&rn);
      return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    }
  }
  bool ok = find_reference(s, path, found, sizeof found, &tried);
  int rc = SINEW_OK;
  if (!ok) {
    sinew__warn_once(s, cmd, SINEW_LOG_REFERENCE_MISSING, path,
                     "reference %s: file %s not found (looked at %s); the reference stays unloaded", rn.p, path,
                     tried.p ? tried.p : path);
    goto done;
  }
  if (!sinew__is_ma_path(found)) {
    sinew__warn_once(s, cmd, SINEW_LOG_REFERENCE_MISSING, path,
                     "reference %s: %s is not a Maya ASCII file; the reference stays unloaded", rn.p, found);
    goto done;
  }
  if (depth >= MAX_REFERENCE_DEPTH) {
    rc = sinew_cmd_error(cmd, SINEW_ERANGE, "reference %s: %s: references nested deeper than %d", rn.p, found,
                         MAX_REFERENCE_DEPTH);
    goto done;
  }
  bool cycle = r->files && r->root && strcmp(r->root, found) == 0;
  for (uint32_t p = r->cur; p && !cycle; p = r->v[p - 1].parent) cycle = strcmp(r->v[p - 1].file, found) == 0;
  if (cycle) {
    rc = sinew_cmd_error(cmd, SINEW_EINVAL, "reference %s: %s references itself", rn.p, found);
    goto done;
  }
  if (sinew__grow((void **)&r->v, &r->cap, r->n + 1, sizeof *r->v)) {
    rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    goto done;
  }
  ref_rec *rec = &r->v[r->n];
  memset(rec, 0, sizeof *rec);
  rec->rfn = rn.p;
  rec->ns = NULL;
  rec->path = sinew__cmds_strdup(path);
  rec->prefix = sinew__cmds_strdup(prefix);
  rec->file = sinew__cmds_strdup(found);
  rec->parent = r->cur;
  rec->level = r->files;
  sinew__buf_puts(&full_ns, ":");
  rec->ns = full_ns.p;
  rn.p = NULL;
  full_ns.p = NULL;
  uint32_t index = ++r->n;
  if (!rec->path || !rec->prefix || !rec->ns || !rec->file) {
    drop_refs_from(r, index);
    rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    goto done;
  }
  /* the nodes there before, to mark what the file makes */
  size_t cap = sinew_node_count(sc->graph), nbefore = 0;
  uint64_t *before = sinew_malloc((cap ? cap : 1) * sizeof *before);
  header_state hs;
  int hrc = header_save(sc, &hs);
  if (!before || hrc) {
    sinew_free(before);
    free_strs(hs.file_info, hs.nfile_info);
    drop_refs_from(r, index);
    rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    goto done;
  }
  sinew_node_t it = {0, 0};
  while (nbefore < cap && sinew_node_next(sc->graph, &it)) before[nbefore++] = key_of(it);
  qsort(before, nbefore, sizeof *before, node_key_cmp);
  uint32_t saved_cur = r->cur;
  r->cur = index;
  char ns_only[512];
  snprintf(ns_only, sizeof ns_only, "%.*s", (int)(strlen(r->v[index - 1].ns) - 1), r->v[index - 1].ns);
  sinew__import_opts o = {.ns = ns_only, .merge_ns = true};
  rc = sinew__import_file(s, found, &o);
  r = sc->refs; /* still the same scene: file -o and -new are refused while reading */
  r->cur = saved_cur;
  header_restore(sc, &hs);
  if (!rc) rc = mark_new_nodes(s, before, nbefore, index);
  sinew_free(before);
  if (rc) {
    /* nothing of it stays: the reference is as if missing (its lines are kept) */
    char msg[1200];
    snprintf(msg, sizeof msg, "reference %s: %s", r->v[index - 1].rfn, sinew_session_errmsg(s));
    drop_refs_from(r, index);
    rc = sinew_cmd_error(cmd, rc, "%s", msg);
    goto done;
  }
  if (!r->files) {
    /* a script's file -r: Maya makes the reference node; no file's end applies edits, so the
     * scene is as loaded now */
    sinew_node_t rnode;
    int found_rn = sinew_node_find(sc->graph, r->v[index - 1].rfn, &rnode);
    if (found_rn == SINEW_OK && !is_reference_node(sc->graph, rnode)) {
      /* -rfn names another node: the reference loads, but has no node to keep its edits */
      sinew_cmd_warning(cmd, SINEW_LOG_FILE_WARNING, "reference %s: %s is not a reference node; its edits are not saved",
                        r->v[index - 1].rfn, r->v[index - 1].rfn);
    } else if (found_rn != SINEW_OK) {
      sinew__buf mk = {0};
      sinew__buf_puts(&mk, "createNode reference -n ");
      sinew__buf_quoted(&mk, r->v[index - 1].rfn);
      sinew__buf_puts(&mk, ";");
      s->loading++; /* a reference node is a placeholder node, as a file makes it */
      rc = mk.oom ? SINEW_ENOMEM : run_edit(s, mk.p);
      s->loading--;
      sinew__buf_free(&mk);
      if (rc) {
        char msg[1200];
        snprintf(msg, sizeof msg, "reference %s: %s", r->v[index - 1].rfn, sinew_session_errmsg(s));
        rc = sinew_cmd_error(cmd, rc, "%s", msg);
        goto done;
      }
    }
    r->v[index - 1].edits_read = true; /* none to read: its .ed is written from scratch */
    rc = take_snapshot(s);
    if (rc) rc = sinew_cmd_error(cmd, rc, "out of memory");
  }
done:
  sinew__buf_free(&tried);
  sinew__buf_free(&full_ns);
  sinew__buf_free(&rn);
  return rc;
}

/* Whether the `file` line is one a referenced file made (not the scene's own: not kept). */
bool sinew__reading_reference(sinew_session_t *s) { return s->scene->refs && s->scene->refs->cur; }

/* ---- decoding reference edits ------------------------------------------------------------------- */

typedef struct tok {
  const char *p;
  size_t n;
  bool str;
} tok;

/* The next word or quoted string of text (*at moves on). false at the end. */
static bool next_tok(const char **at, tok *t) {
  const char *c = *at;
  while (*c && isspace((unsigned char)*c)) c++;
  if (!*c) return false;
  if (*c == '"') {
    const char *start = ++c;
    while (*c && *c != '"') c += (c[0] == '\\' && c[1]) ? 2 : 1;
    *t = (tok){start, (size_t)(c - start), true};
    if (*c) c++;
  } else {
    const char *start = c;
    while (*c && !isspace((unsigned char)*c) && *c != '"') c++;
    *t = (tok){start, (size_t)(c - start), false};
  }
  *at = c;
  return true;
}

static char *unquote(const tok *t) {
  char *o = sinew_malloc(t->n + 1);
  if (!o) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < t->n; i++) {
    char c = t->p[i];
    if (c == '\\' && i + 1 < t->n) {
      c = t->p[++i];
      c = c == 'n' ? '\n' : c == 't' ? '\t' : c;
    }
    o[k++] = c;
  }
  o[k] = 0;
  return o;
}

static bool tok_int(const tok *t, long *out) {
  if (t->str || !t->n || t->n > 10) return false;
  char buf[16];
  memcpy(buf, t->p, t->n);
  buf[t->n] = 0;
  char *end;
  *out = strtol(buf, &end, 10);
  return *end == 0;
}

/* How many strings follow an edit's code, as Maya writes them (0 parent: child, parent, flags;
 * 1 addAttr: node, long name, short name, flags; 2 setAttr: node, attribute, values; 3
 * connectAttr: source, destination, flags; 4 deleteAttr: node, attribute, flags; 5 through
 * placeholders: 0 reference node, source, destination, two placeholders, destination as
 * written, 3 / 4 reference node, plug, placeholder, ""; 7 unlock / 8 lock: node, attribute). 0 for a code
 * not seen: its strings run to the next number. */
static uint32_t strings_of(int code, int sub) {
  switch (code) {
    case 0: case 2: case 3: case 4: return 3;
    case 1: return 4;
    case 5: return sub == 0 ? 6 : 4;
    case 7: case 8: return 2;
    default: return 0;
  }
}

/* Decodes the text kept for `.ed` (after the plug: `-type "dataReferenceEdits" "xRN" "xRN" 2 ...`). */
static int decode_edits(ref_rec *rec, const char *text) {
  const char *at = text;
  tok t;
  /* up to the type name */
  while (next_tok(&at, &t))
    if (t.str && t.n == 18 && memcmp(t.p, "dataReferenceEdits", 18) == 0) break;
  if (!next_tok(&at, &t) || !t.str) return SINEW_OK; /* no edits at all */
  if (!(rec->ed_owner = unquote(&t))) return SINEW_ENOMEM;
  while (next_tok(&at, &t)) {
    if (!t.str) return SINEW_ESYNTAX;
    char *h = unquote(&t);
    if (!h || sinew__grow((void **)&rec->groups, &rec->cgroups, rec->ngroups + 1, sizeof *rec->groups)) {
      sinew_free(h);
      return SINEW_ENOMEM;
    }
    uint32_t group = rec->ngroups;
    rec->groups[rec->ngroups++] = h;
    long count;
    if (!next_tok(&at, &t) || !tok_int(&t, &count) || count < 0) return SINEW_ESYNTAX;
    for (long e = 0; e < count; e++) {
      long code, sub = -1;
      if (!next_tok(&at, &t) || !tok_int(&t, &code)) return SINEW_ESYNTAX;
      if (sinew__grow((void **)&rec->edits, &rec->cedits, rec->nedits + 1, sizeof *rec->edits))
        return SINEW_ENOMEM;
      ref_edit *ed = &rec->edits[rec->nedits];
      memset(ed, 0, sizeof *ed);
      ed->code = (int)code;
      ed->group = group;
      const char *save = at;
      if (code == 5 && next_tok(&at, &t) && tok_int(&t, &sub)) ed->sub = (int)sub;
      else {
        ed->sub = -1;
        at = save;
      }
      rec->nedits++;
      uint32_t cap = 0, want = strings_of(ed->code, ed->sub);
      while (!want || ed->ns < want) {
        save = at;
        if (!next_tok(&at, &t)) break;
        if (!t.str) {
          at = save;
          break;
        }
        char *v = unquote(&t);
        if (!v || sinew__grow((void **)&ed->s, &cap, ed->ns + 1, sizeof *ed->s)) {
          sinew_free(v);
          return SINEW_ENOMEM;
        }
        ed->s[ed->ns++] = v;
      }
    }
  }
  return SINEW_OK;
}

/* ---- applying reference edits --------------------------------------------------------------------- */

static void edit_text(const ref_edit *ed, sinew__buf *b) {
  sinew__buf_printf(b, "%d", ed->code);
  if (ed->sub >= 0) sinew__buf_printf(b, " %d", ed->sub);
  for (uint32_t i = 0; i < ed->ns; i++) {
    sinew__buf_puts(b, " ");
    sinew__buf_quoted(b, ed->s[i]);
  }
}

static void edit_failed(sinew_session_t *s, const ref_rec *rec, const ref_edit *ed, const char *why) {
  sinew__buf b = {0};
  edit_text(ed, &b);
  sinew_log(s->scene->graph, SINEW_LOG_WARNING, SINEW_LOG_REFERENCE_EDIT_FAILED,
            "%s: reference %s: edit %s failed (kept): %s", s->scene->refs->file ? s->scene->refs->file : "",
            rec->rfn, b.p ? b.p : "", why);
  sinew__buf_free(&b);
}

/* Runs one MEL statement for an edit; its error message in s->errmsg on failure. */
static int run_edit(sinew_session_t *s, const char *text) {
  bool keep = sinew_lang_keep_going(s->lang);
  sinew_lang_set_keep_going(s->lang, false);
  int rc = sinew_lang_run(s->lang, text, strlen(text), "reference edit", NULL);
  if (rc) sinew__session_take(s, sinew_lang_error(s->lang));
  sinew_lang_set_keep_going(s->lang, keep);
  return rc;
}

static int find_plug(sinew_session_t *s, const char *prefix, const char *text, sinew_plug_t *out, char *why,
                     size_t wsize) {
  sinew__buf b = {0};
  scene_name(prefix, text, &b);
  if (b.oom) {
    sinew__buf_free(&b);
    return SINEW_ENOMEM;
  }
  int rc = sinew_plug_parse(s->scene->graph, b.p, (sinew_node_t){0, 0}, out);
  char *phl = rc ? strstr(b.p, ".placeHolderList[") : NULL;
  if (phl) {
    /* the reference node holds what the file connected to it under the name the file used */
    memmove(phl + 4, phl + 16, strlen(phl + 16) + 1);
    memcpy(phl, ".phl", 4);
    rc = sinew_plug_parse(s->scene->graph, b.p, (sinew_node_t){0, 0}, out);
  }
  if (rc) snprintf(why, wsize, "no plug %s", b.p);
  sinew__buf_free(&b);
  return rc;
}

/* A connection the main file made to a placeholder, made to the referenced plug instead. */
static int apply_placeholder(sinew_session_t *s, const ref_rec *rec, ref_edit *ed, char *why, size_t wsize) {
  sinew_graph_t *g = s->scene->graph;
  const char *px = rec->prefix;
  if (ed->sub == 0 && ed->ns >= 4) {
    sinew_plug_t src, dst, pa, pb;
    int rc = find_plug(s, px, ed->s[1], &src, why, wsize);
    if (!rc) rc = find_plug(s, px, ed->s[2], &dst, why, wsize);
    if (rc) return rc;
    if (find_plug(s, px, ed->s[3], &pa, why, wsize) == SINEW_OK &&
        find_plug(s, px, ed->s[4], &pb, why, wsize) == SINEW_OK) {
      sinew_plug_t from;
      if (sinew_plug_source(g, &pb, &from) && sinew_plug_equal(&from, &pa)) sinew_disconnect(g, &pa, &pb);
    }
    rc = sinew_connect(g, &src, &dst, SINEW_CONNECT_FORCE, NULL);
    if (rc) {
      snprintf(why, wsize, "%s", sinew_graph_errmsg(g));
      return rc;
    }
    /* kept as the connectAttr edit it now is: the placeholders are not used any more */
    char *empty = sinew__cmds_strdup("");
    if (!empty) return SINEW_ENOMEM;
    for (uint32_t i = 3; i < ed->ns; i++) sinew_free(ed->s[i]);
    sinew_free(ed->s[0]);
    ed->s[0] = ed->s[1];
    ed->s[1] = ed->s[2];
    ed->s[2] = empty;
    ed->ns = 3;
    ed->code = 3;
    ed->sub = -1;
    return SINEW_OK;
  }
  if ((ed->sub != 3 && ed->sub != 4) || ed->ns < 3) {
    snprintf(why, wsize, "an edit sinew does not decode");
    return SINEW_EUNSUPPORTED;
  }
  sinew_plug_t ref, phl;
  int rc = find_plug(s, px, ed->s[1], &ref, why, wsize);
  if (rc) return rc;
  if (find_plug(s, px, ed->s[2], &phl, why, wsize)) return SINEW_OK; /* the main file made nothing there */
  if (ed->sub == 4) {
    sinew_plug_t src;
    if (!sinew_plug_source(g, &phl, &src)) return SINEW_OK;
    sinew_disconnect(g, &src, &phl);
    rc = sinew_connect(g, &src, &ref, SINEW_CONNECT_FORCE, NULL);
    if (rc) {
      snprintf(why, wsize, "%s", sinew_graph_errmsg(g));
      sinew_connect(g, &src, &phl, SINEW_CONNECT_FORCE, NULL); /* the placeholder keeps it */
    }
    return rc;
  }
  sinew_plug_t dsts[64];
  size_t nd = sinew_plug_destinations(g, &phl, dsts, 64);
  if (nd > 64) nd = 64;
  for (size_t i = 0; i < nd; i++) {
    sinew_disconnect(g, &phl, &dsts[i]);
    if ((rc = sinew_connect(g, &ref, &dsts[i], SINEW_CONNECT_FORCE, NULL))) {
      snprintf(why, wsize, "%s", sinew_graph_errmsg(g));
      sinew_connect(g, &phl, &dsts[i], SINEW_CONNECT_FORCE, NULL);
      return rc;
    }
  }
  return SINEW_OK;
}

/* Whether an edit's flags or values are words and strings only: an edit is one command, so a ';',
 * a '`' or a '{' outside a string (which would run more) fails it. */
static bool plain_args(const char *a) {
  for (bool str = false; *a; a++) {
    if (str && *a == '\\' && a[1]) a++;
    else if (*a == '"') str = !str;
    else if (!str && (*a == ';' || *a == '`' || *a == '{' || *a == '}' || *a == '$' || *a == '/')) return false;
  }
  return true;
}

/* One edit: SINEW_OK when it was made (or had nothing to do), else why holds the reason. */
static int apply_edit(sinew_session_t *s, const ref_rec *rec, ref_edit *ed, char *why, size_t wsize) {
  const char *px = rec->prefix;
  sinew__buf b = {0}, n1 = {0}, n2 = {0};
  int rc = SINEW_OK;
  bool scene_child = false;
  why[0] = 0;
  switch (ed->code) {
    case 0: /* parent: child, new parent, flags */
      if (ed->ns < 2) break;
      scene_name(px, ed->s[0], &n1);
      {
        /* a scene node put under a referenced one: written anew from the graph when saving */
        sinew_node_t child;
        if (!n1.oom && sinew_node_find(s->scene->graph, n1.p, &child) == SINEW_OK && !ref_of_node(s, child, NULL))
          scene_child = true;
      }
      scene_name(px, ed->s[1], &n2);
      sinew__buf_printf(&b, "parent %s ", ed->ns > 2 ? ed->s[2] : "");
      sinew__buf_quoted(&b, n1.p ? n1.p : "");
      sinew__buf_puts(&b, " ");
      sinew__buf_quoted(&b, n2.p ? n2.p : "");
      break;
    case 1: /* addAttr: node, long name, short name, flags */
      if (ed->ns < 4) break;
      scene_name(px, ed->s[0], &n1);
      sinew__buf_printf(&b, "addAttr %s -ln ", ed->s[3]);
      sinew__buf_quoted(&b, ed->s[1]);
      if (strcmp(ed->s[1], ed->s[2]) != 0) {
        sinew__buf_puts(&b, " -sn ");
        sinew__buf_quoted(&b, ed->s[2]);
      }
      sinew__buf_puts(&b, " ");
      sinew__buf_quoted(&b, n1.p ? n1.p : "");
      break;
    case 2: /* setAttr: node, attribute, what follows the plug in a setAttr line */
      if (ed->ns < 3) break;
      scene_name(px, ed->s[0], &n1);
      sinew__buf_printf(&b, "%s.%s", n1.p ? n1.p : "", ed->s[1]);
      sinew__buf_puts(&n2, "setAttr ");
      sinew__buf_quoted(&n2, b.p ? b.p : "");
      sinew__buf_puts(&n2, ed->s[2]);
      b.n = 0;
      sinew__buf_puts(&b, n2.p ? n2.p : "");
      break;
    case 3: /* connectAttr: source, destination, flags */
      if (ed->ns < 3 || !ed->s[0][0] || !ed->s[1][0]) break;
      scene_name(px, ed->s[0], &n1);
      scene_name(px, ed->s[1], &n2);
      sinew__buf_puts(&b, "connectAttr ");
      sinew__buf_quoted(&b, n1.p ? n1.p : "");
      sinew__buf_puts(&b, " ");
      sinew__buf_quoted(&b, n2.p ? n2.p : "");
      sinew__buf_printf(&b, " %s", ed->s[2]);
      break;
    case 4: /* deleteAttr: node, attribute */
      if (ed->ns < 2) break;
      scene_name(px, ed->s[0], &n1);
      sinew__buf_puts(&b, "deleteAttr ");
      sinew__buf_printf(&n2, "%s.%s", n1.p ? n1.p : "", ed->s[1]);
      sinew__buf_quoted(&b, n2.p ? n2.p : "");
      break;
    case 7: /* unlock, 8: lock: node, attribute (Maya writes a lock edit when a referenced
             * plug's lock state is changed in the scene that references it; which code is
             * which is inferred from a rig that locks its referenced model's channels, 8) */
    case 8:
      if (ed->ns < 2) break;
      scene_name(px, ed->s[0], &n1);
      sinew__buf_printf(&n2, "%s.%s", n1.p ? n1.p : "", ed->s[1]);
      sinew__buf_printf(&b, "setAttr -l %s ", ed->code == 8 ? "on" : "off");
      sinew__buf_quoted(&b, n2.p ? n2.p : "");
      break;
    case 5:
      rc = apply_placeholder(s, rec, ed, why, wsize);
      if (!rc && ed->code == 5) ed->drop = true;
      goto out;
    default:
      snprintf(why, wsize, "edit kind %d is not applied by sinew", ed->code);
      rc = SINEW_EUNSUPPORTED;
      goto out;
  }
  bool plain = true;
  for (uint32_t i = 0; i < ed->ns; i++) plain &= plain_args(ed->s[i]);
  if (b.oom || n1.oom || n2.oom) rc = SINEW_ENOMEM;
  else if (!plain) {
    snprintf(why, wsize, "an edit is one command; this one holds more");
    rc = SINEW_ESYNTAX;
  } else if (!b.n) {
    snprintf(why, wsize, "the edit is incomplete");
    rc = SINEW_ESYNTAX;
  } else {
    sinew__buf_puts(&b, ";");
    if (!b.oom && (rc = run_edit(s, b.p))) snprintf(why, wsize, "%s", sinew_session_errmsg(s));
    if (!rc && scene_child && !rec->parent) ed->drop = true;
  }
out:
  sinew__buf_free(&b);
  sinew__buf_free(&n1);
  sinew__buf_free(&n2);
  return rc;
}

/* The .ed text kept on reference node n, or NULL. */
static const char *kept_edits(sinew_session_t *s, sinew_node_t n) {
  sinew__extra *e = sinew__extra_get(s->scene, n, false);
  for (uint32_t i = 0; e && i < e->nraws; i++)
    if (strcmp(e->raws[i].attr, "ed") == 0 || strcmp(e->raws[i].attr, "edits") == 0) return e->raws[i].text;
  return NULL;
}

/* Applies the edits of the references the file that is ending loaded. */
static int apply_edits(sinew_session_t *s) {
  sinew__refs *r = s->scene->refs;
  for (uint32_t i = 0; i < r->n; i++) {
    ref_rec *rec = &r->v[i];
    /* only the ones the ending file's own lines loaded (not an outer file's, whose lines
     * connecting to the placeholders may not have run yet: a file -i inside it ends first) */
    if (rec->parent != r->cur || rec->level != r->files || rec->edits_read) continue;
    rec->edits_read = true;
    sinew_node_t rn;
    if (sinew_node_find(s->scene->graph, rec->rfn, &rn) || !is_reference_node(s->scene->graph, rn))
      continue; /* no reference node: no edits */
    const char *text = kept_edits(s, rn);
    if (!text) continue;
    int rc = decode_edits(rec, text);
    if (rc == SINEW_ENOMEM) return rc;
    if (rc) {
      sinew_log(s->scene->graph, SINEW_LOG_WARNING, SINEW_LOG_REFERENCE_EDIT_FAILED,
                "%s: reference %s: its edits cannot be read; none is applied (they are kept)",
                r->file ? r->file : "", rec->rfn);
      /* kept as text: the writer writes the node's .ed unchanged */
      free_strs(rec->groups, rec->ngroups);
      rec->groups = NULL;
      rec->ngroups = rec->cgroups = 0;
      for (uint32_t k = 0; k < rec->nedits; k++) free_strs(rec->edits[k].s, rec->edits[k].ns);
      sinew_free(rec->edits);
      rec->edits = NULL;
      rec->nedits = rec->cedits = 0;
      sinew_free(rec->ed_owner);
      rec->ed_owner = NULL;
      continue;
    }
    /* what the edits make (the unitConversion a connectAttr edit puts between an angle and a
     * distance) is the reference's: the kept edit makes it again when the file is read */
    size_t cap = sinew_node_count(s->scene->graph), nbefore = 0;
    uint64_t *before = sinew_malloc((cap ? cap : 1) * sizeof *before);
    if (!before) return SINEW_ENOMEM;
    sinew_node_t it = {0, 0};
    while (nbefore < cap && sinew_node_next(s->scene->graph, &it)) before[nbefore++] = key_of(it);
    qsort(before, nbefore, sizeof *before, node_key_cmp);
    for (uint32_t k = 0; k < rec->nedits; k++) {
      char why[768];
      rc = apply_edit(s, rec, &rec->edits[k], why, sizeof why);
      if (rc == SINEW_ENOMEM) break;
      if (rc) edit_failed(s, rec, &rec->edits[k], why);
      rc = SINEW_OK;
    }
    if (!rc) rc = mark_new_nodes(s, before, nbefore, i + 1);
    sinew_free(before);
    if (rc) return rc;
    r = s->scene->refs;
  }
  return SINEW_OK;
}

/* ---- what the scene was when it finished loading -------------------------------------------------- */

static int conn_key(sinew_graph_t *g, const sinew_plug_t *src, const sinew_plug_t *dst, sinew__buf *b) {
  b->n = 0;
  plug_path(g, src, b);
  sinew__buf_puts(b, ">");
  plug_path(g, dst, b);
  return b->oom ? SINEW_ENOMEM : SINEW_OK;
}

typedef struct snap_ctx {
  sinew_session_t *s;
  sinew__buf b;
  int rc;
} snap_ctx;

static bool snap_conn(void *ud, const sinew_connection_t *c) {
  snap_ctx *x = ud;
  if (!ref_of_node(x->s, c->src.node, NULL) || !ref_of_node(x->s, c->dst.node, NULL)) return true;
  x->rc = conn_key(x->s->scene->graph, &c->src, &c->dst, &x->b);
  if (!x->rc) x->rc = set_add(&x->s->scene->refs->conns, x->b.p, NULL);
  return !x->rc;
}

static int take_snapshot(sinew_session_t *s) {
  sinew__refs *r = s->scene->refs;
  bool any = false;
  for (uint32_t i = 0; i < r->n; i++) any |= !r->v[i].snapped;
  if (!any) return SINEW_OK;
  ref_node *e, *t;
  HASH_ITER(hh, r->nodes, e, t) {
    ref_rec *rec = &r->v[e->ref - 1];
    if (rec->snapped) continue;
    sinew_node_t n = {(uint32_t)(e->key >> 32), (uint32_t)e->key};
    if (!sinew_node_valid(s->scene->graph, n)) continue;
    sinew__buf b = {0};
    int rc = sinew__ma_node_values(s, n, &b);
    ref_snap *sn = rc ? NULL : sinew_calloc(1, sizeof *sn);
    if (!sn) {
      sinew__buf_free(&b);
      return rc ? rc : SINEW_ENOMEM;
    }
    sn->key = e->key;
    sn->text = b.p ? b.p : sinew__cmds_strdup("");
    sinew__cmds_oom = 0;
    HASH_ADD(hh, rec->snap, key, sizeof sn->key, sn);
    if (!sn->text || sinew__cmds_oom) {
      if (!sinew__cmds_oom) HASH_DEL(rec->snap, sn);
      sinew_free(sn->text);
      sinew_free(sn);
      return SINEW_ENOMEM;
    }
  }
  snap_ctx x = {s, {0}, SINEW_OK};
  sinew_foreach_connection(s->scene->graph, (sinew_node_t){0, 0}, false, snap_conn, &x);
  sinew__buf_free(&x.b);
  for (uint32_t i = 0; i < r->n; i++) r->v[i].snapped = true;
  return x.rc;
}

/* ---- around every .ma file ------------------------------------------------------------------------ */

int sinew__refs_file_begin(sinew_session_t *s, const char *path, const char **saved) {
  sinew__refs *r = refs_of(s);
  if (!r) return SINEW_ENOMEM;
  *saved = r->file;
  if (!r->files) {
    sinew_free(r->root);
    if (!(r->root = sinew__cmds_strdup(path))) return SINEW_ENOMEM;
  }
  r->file = path;
  r->files++;
  return SINEW_OK;
}

int sinew__refs_file_end(sinew_session_t *s, const char *saved, int rc) {
  sinew__refs *r = s->scene->refs;
  if (!r) return rc;
  if (!rc) rc = apply_edits(s);
  if (!rc && r->files == 1 && !r->cur) rc = take_snapshot(s); /* a script's file -r takes its own */
  if (rc == SINEW_ENOMEM)
    sinew__session_error(s, SINEW_ENOMEM, NULL, "%s: out of memory", r->file ? r->file : "");
  r->file = saved;
  r->files--;
  return rc;
}

/* ---- saving --------------------------------------------------------------------------------------- */

static uint32_t top_of(sinew__refs *r, uint32_t ref) {
  while (r->v[ref - 1].parent) ref = r->v[ref - 1].parent;
  return ref;
}

static int add_edit(sinew__refs *r, uint32_t top, const char *header, sinew__buf *text) {
  int kind = text->p ? atoi(text->p) : 0;
  if (text->oom) return SINEW_ENOMEM;
  if (sinew__grow((void **)&r->added, &r->cadded, r->nadded + 1, sizeof *r->added)) return SINEW_ENOMEM;
  char *h = sinew__cmds_strdup(header);
  if (!h) return SINEW_ENOMEM;
  r->added[r->nadded++] = (new_edit){top, kind, h, text->p, NULL, NULL};
  text->p = NULL;
  text->n = text->cap = 0;
  return SINEW_OK;
}

/* Names the setAttr edit just added (node n, attribute path attr). */
static int name_edit(sinew_session_t *s, sinew_node_t n, const char *attr) {
  new_edit *ne = &s->scene->refs->added[s->scene->refs->nadded - 1];
  sinew__buf b = {0};
  node_path(s->scene->graph, n, &b);
  ne->node = b.p;
  ne->attr = sinew__cmds_strdup(attr);
  return b.oom || !ne->node || !ne->attr ? SINEW_ENOMEM : SINEW_OK;
}

/* How a connection feeds attribute path attr of node n: 0 not at all, 1 as a whole (the plug,
 * or a plug above it), 2 through some of its children only, or some of its children are locked
 * (a lock edit comes before the value edits, so a compound's edit would fail on a locked child:
 * its children get edits of their own, the locked ones none). A range ("pnts[0:3]") counts as
 * not fed. */
static int fed(sinew_graph_t *g, sinew_node_t n, const char *attr, sinew_plug_t *plug) {
  sinew_plug_t p, from;
  if (strchr(attr, ':') || sinew_plug_parse_attr(g, n, attr, &p)) return 0;
  *plug = p;
  for (sinew_plug_t at = p;;) {
    if (sinew_plug_source(g, &at, &from)) return 1;
    sinew_plug_t up;
    if (!sinew_plug_parent(g, &at, &up)) break;
    at = up;
  }
  sinew_attr_info_t info;
  if (sinew_node_attr_info(g, n, p.attr, &info) || info.type != SINEW_ATTR_COMPOUND) return 0;
  for (uint32_t c = 0; c < info.child_count; c++) {
    sinew_plug_t ch;
    if (sinew_plug_child(g, &p, info.children[c], &ch) == SINEW_OK &&
        (sinew_plug_source(g, &ch, &from) || sinew_plug_locked(g, &ch)))
      return 2;
  }
  return 0;
}

/* A compound some of whose children a connection feeds or are locked (ctrl.t with ty
 * connected): a setAttr edit for each numeric child that is neither. */
static int child_edits(sinew_session_t *s, uint32_t top, const char *header, sinew_node_t n, const char *attr,
                       const sinew_plug_t *p) {
  sinew_graph_t *g = s->scene->graph;
  sinew_attr_info_t info;
  if (sinew_node_attr_info(g, n, p->attr, &info)) return SINEW_OK;
  int rc = SINEW_OK;
  for (uint32_t c = 0; c < info.child_count && !rc; c++) {
    sinew_plug_t ch, from;
    sinew_attr_info_t ci;
    double v = 0;
    if (sinew_plug_child(g, p, info.children[c], &ch) || sinew_plug_source(g, &ch, &from) || sinew_plug_locked(g, &ch))
      continue;
    if (sinew_node_attr_info(g, n, info.children[c], &ci) || !sinew_attr_type_is_numeric(ci.type)) continue;
    if (sinew_get_double(g, &ch, &v)) continue;
    sinew__buf text = {0}, b = {0};
    sinew__buf_puts(&text, "2 ");
    node_path(g, n, &b);
    sinew__buf_quoted(&text, b.p ? b.p : "");
    b.n = 0;
    if (strchr(attr, '[')) sinew__buf_printf(&b, "%s.%s", attr, ci.short_name ? ci.short_name : ci.name);
    else sinew__buf_puts(&b, ci.short_name ? ci.short_name : ci.name);
    sinew__buf_puts(&text, " ");
    sinew__buf_quoted(&text, b.p ? b.p : "");
    b.n = 0;
    sinew__buf_puts(&b, " ");
    sinew__buf_num(&b, sinew__unit_to_ui(g, ci.type, v));
    sinew__buf_puts(&text, " ");
    sinew__buf_quoted(&text, b.p ? b.p : "");
    char child[600] = "";
    rc = b.oom ? SINEW_ENOMEM : add_edit(s->scene->refs, top, header, &text);
    if (!rc) {
      if (strchr(attr, '[')) snprintf(child, sizeof child, "%s.%s", attr, ci.short_name ? ci.short_name : ci.name);
      else snprintf(child, sizeof child, "%s", ci.short_name ? ci.short_name : ci.name);
      rc = name_edit(s, n, child);
    }
    sinew__buf_free(&b);
    sinew__buf_free(&text);
  }
  return rc;
}

/* One setAttr statement of the writer ("\tsetAttr -l on \".tx\"" / "\tsetAttr \".t\" -type ...")
 * as a setAttr edit of node n: 2 "node" "attr" " flags values". */
static int setattr_edit(sinew_session_t *s, uint32_t top, const char *header, sinew_node_t n, const char *st,
                        size_t len) {
  sinew__buf text = {0}, flags = {0}, rest = {0};
  const char *c = st, *end = st + len;
  while (c < end && isspace((unsigned char)*c)) c++;
  if ((size_t)(end - c) < 8 || memcmp(c, "setAttr ", 8) != 0) return SINEW_OK;
  c += 8;
  const char *attr = NULL;
  size_t alen = 0;
  while (c < end) {
    while (c < end && isspace((unsigned char)*c)) c++;
    if (c < end && *c == '"' && c + 1 < end && c[1] == '.') {
      attr = c + 2;
      const char *q = attr;
      while (q < end && *q != '"') q++;
      alen = (size_t)(q - attr);
      c = q < end ? q + 1 : q;
      break;
    }
    const char *w = c;
    while (c < end && !isspace((unsigned char)*c)) c++;
    sinew__buf_puts(&flags, " ");
    sinew__buf_put(&flags, w, (size_t)(c - w));
  }
  if (!attr) return SINEW_OK;
  char a[1024];
  snprintf(a, sizeof a, "%.*s", (int)alen, attr);
  sinew_plug_t plug;
  int how = fed(s->scene->graph, n, a, &plug);
  if (how) {
    /* a connection gives it: not an edit of its value (but of its children's that it does not) */
    sinew__buf_free(&flags);
    return how == 2 ? child_edits(s, top, header, n, a, &plug) : SINEW_OK;
  }
  if (flags.n) sinew__buf_put(&rest, flags.p, flags.n);
  for (; c < end; c++) {
    if (*c == '\n') continue;
    if (*c == '\t') {
      if (rest.n && rest.p[rest.n - 1] != ' ') sinew__buf_put(&rest, " ", 1);
      continue;
    }
    sinew__buf_put(&rest, c, 1);
  }
  sinew__buf_puts(&text, "2 ");
  sinew__buf b = {0};
  node_path(s->scene->graph, n, &b);
  sinew__buf_quoted(&text, b.p ? b.p : "");
  sinew__buf_free(&b);
  sinew__buf_puts(&text, " ");
  sinew__buf_quoted(&text, a);
  sinew__buf_puts(&text, " ");
  sinew__buf_quoted(&text, rest.p ? rest.p : "");
  int rc = flags.oom || rest.oom ? SINEW_ENOMEM : add_edit(s->scene->refs, top, header, &text);
  if (!rc) rc = name_edit(s, n, a);
  sinew__buf_free(&text);
  sinew__buf_free(&flags);
  sinew__buf_free(&rest);
  return rc;
}

/* Whether the statement (without its ';') is one of the snapshot's. */
static bool in_snapshot(const char *snap, const char *st, size_t len) {
  const char *at = snap;
  while (*at) {
    const char *e = strstr(at, ";\n");
    size_t n = e ? (size_t)(e - at) : strlen(at);
    if (n == len && memcmp(at, st, len) == 0) return true;
    if (!e) break;
    at = e + 2;
  }
  return false;
}

static int value_edits(sinew_session_t *s, sinew_node_t n, uint32_t ref) {
  sinew__refs *r = s->scene->refs;
  ref_rec *rec = &r->v[ref - 1];
  uint64_t k = key_of(n);
  ref_snap *sn = NULL;
  HASH_FIND(hh, rec->snap, &k, sizeof k, sn);
  sinew__buf now = {0};
  int rc = sinew__ma_node_values(s, n, &now);
  const char *at = now.p ? now.p : "";
  if (!rc && sn && strcmp(at, sn->text) == 0) at = ""; /* unchanged, the common case: no line to look up */
  uint32_t top = top_of(r, ref);
  while (!rc && *at) {
    const char *e = strstr(at, ";\n");
    size_t len = e ? (size_t)(e - at) : strlen(at);
    if (!sn || !in_snapshot(sn->text, at, len)) rc = setattr_edit(s, top, rec->rfn, n, at, len);
    if (!e) break;
    at = e + 2;
  }
  sinew__buf_free(&now);
  return rc;
}

typedef struct plan_ctx {
  sinew_session_t *s;
  sinew__buf key, text;
  int rc;
} plan_ctx;

static int conn_edit(plan_ctx *x, const sinew_connection_t *c, uint32_t rs, uint32_t rd) {
  sinew__refs *r = x->s->scene->refs;
  sinew_graph_t *g = x->s->scene->graph;
  int rc = conn_key(g, &c->src, &c->dst, &x->key);
  if (rc) return rc;
  str_set *e = NULL;
  if (rs && rd) {
    HASH_FIND_STR(r->conns, x->key.p, e);
    if (e) return set_add(&r->plan, x->key.p, NULL); /* the referenced file's own: not written */
  }
  if (!r->next_phl[top_of(r, rd ? rd : rs) - 1]) return SINEW_OK; /* no reference node: as it is */
  if (rs && rd) {
    /* made since loading: a connectAttr edit of the destination's reference */
    x->text.n = 0;
    sinew__buf_puts(&x->text, "3 ");
    sinew__buf b = {0};
    plug_path(g, &c->src, &b);
    sinew__buf_quoted(&x->text, b.p ? b.p : "");
    b.n = 0;
    sinew__buf_puts(&x->text, " ");
    plug_path(g, &c->dst, &b);
    sinew__buf_quoted(&x->text, b.p ? b.p : "");
    sinew__buf_puts(&x->text, " \"\"");
    rc = b.oom ? SINEW_ENOMEM : add_edit(r, top_of(r, rd), r->v[rd - 1].rfn, &x->text);
    sinew__buf_free(&b);
    if (!rc) rc = set_add(&r->plan, x->key.p, NULL);
    return rc;
  }
  /* between a node of the scene and a referenced one: through a placeholder */
  uint32_t ref = rs ? rs : rd, top = top_of(r, ref);
  uint32_t phl = next_phl(r, top);
  rc = set_add(&r->plan, x->key.p, &e);
  if (rc) return rc;
  e->phl = phl;
  e->ref_src = rs != 0;
  x->text.n = 0;
  sinew__buf_printf(&x->text, "5 %d ", rs ? 3 : 4);
  sinew__buf_quoted(&x->text, r->v[top - 1].rfn);
  sinew__buf_puts(&x->text, " ");
  sinew__buf b = {0};
  plug_path(g, rs ? &c->src : &c->dst, &b);
  sinew__buf_quoted(&x->text, b.p ? b.p : "");
  b.n = 0;
  sinew__buf_printf(&b, "%s.placeHolderList[%u]", r->v[top - 1].rfn, phl);
  sinew__buf_puts(&x->text, " ");
  sinew__buf_quoted(&x->text, b.p ? b.p : "");
  sinew__buf_puts(&x->text, " \"\"");
  rc = b.oom ? SINEW_ENOMEM : add_edit(r, top, r->v[ref - 1].rfn, &x->text);
  sinew__buf_free(&b);
  return rc;
}

static bool plan_conn(void *ud, const sinew_connection_t *c) {
  plan_ctx *x = ud;
  uint32_t rs = 0, rd = 0;
  ref_of_node(x->s, c->src.node, &rs);
  ref_of_node(x->s, c->dst.node, &rd);
  if (rs || rd) x->rc = conn_edit(x, c, rs, rd);
  return !x->rc;
}

/* Marks the placeHolderList elements reference node rn still uses: kept edits name them, or
 * connections of the scene's own go through them. */
static int used_phl(sinew_session_t *s, const ref_rec *rec, sinew_node_t rn, uint8_t **used, uint32_t *nused) {
  uint32_t top = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (uint32_t k = 0; k < rec->nedits; k++) {
      if (rec->edits[k].drop) continue;
      for (uint32_t i = 0; i < rec->edits[k].ns; i++) {
        const char *p = strstr(rec->edits[k].s[i], ".placeHolderList[");
        unsigned long v = p ? strtoul(p + 17, NULL, 10) : 0;
        if (!v || v >= (1u << 24)) continue;
        if (!pass && v > top) top = (uint32_t)v;
        if (pass) (*used)[v] = 1;
      }
    }
    sinew_graph_t *g = s->scene->graph;
    uint32_t a = sinew_node_valid(g, rn) ? sinew_node_attr(g, rn, "phl") : UINT32_MAX;
    if (a != UINT32_MAX) {
      sinew_plug_t arr = sinew_plug_make(rn, a, 0, NULL);
      size_t n = sinew_plug_indices(g, &arr, NULL, 0);
      int32_t *idx = n ? sinew_malloc(n * sizeof *idx) : NULL;
      if (n && !idx) return SINEW_ENOMEM;
      n = idx ? sinew_plug_indices(g, &arr, idx, n) : 0;
      for (size_t i = 0; i < n; i++) {
        sinew_plug_t el, other;
        if (idx[i] <= 0 || idx[i] >= (1 << 24) || sinew_plug_element(g, &arr, idx[i], &el)) continue;
        if (!sinew_plug_source(g, &el, &other) && !sinew_plug_destinations(g, &el, NULL, 0)) continue;
        if (!pass && (uint32_t)idx[i] > top) top = (uint32_t)idx[i];
        if (pass) (*used)[idx[i]] = 1;
      }
      sinew_free(idx);
    }
    if (!pass) {
      *nused = top + 1;
      if (!(*used = sinew_calloc(*nused, 1))) return SINEW_ENOMEM;
    }
  }
  return SINEW_OK;
}

/* The next placeHolderList element of top-level reference top that nothing uses. */
static uint32_t next_phl(sinew__refs *r, uint32_t top) {
  uint32_t k = r->next_phl[top - 1];
  while (k < r->nused[top - 1] && r->used[top - 1][k]) k++;
  r->next_phl[top - 1] = k + 1;
  return k;
}

static void foster_key(sinew_node_t n, char *buf, size_t size) { snprintf(buf, size, "%u %u", n.index, n.gen); }

/* Scene nodes whose DAG parent is a referenced node: written under the top reference's
 * fosterParent node ("heroRNfosterParent1"), with a parent edit 0 "|foster|node" "|parent"
 * "-s -r " that puts them back, as Maya writes them (it reads the file before loading the
 * reference, so the parent does not exist yet where the node is made). */
static int plan_fosters(sinew_session_t *s) {
  sinew__refs *r = s->scene->refs;
  sinew_graph_t *g = s->scene->graph;
  r->foster_names = sinew_calloc(r->n, sizeof *r->foster_names);
  r->foster_made = sinew_calloc(r->n, sizeof *r->foster_made);
  if (!r->foster_names || !r->foster_made) return SINEW_ENOMEM;
  sinew_node_t it = {0, 0};
  int rc = SINEW_OK;
  while (!rc && sinew_node_next(g, &it)) {
    if (ref_of_node(s, it, NULL)) continue;
    sinew_node_t p = sinew_node_parent(g, it);
    uint32_t ref = 0;
    if (!sinew_node_valid(g, p) || !ref_of_node(s, p, &ref)) continue;
    uint32_t top = top_of(r, ref);
    if (!r->next_phl[top - 1]) continue; /* no reference node to hold the parent edit */
    if (!r->foster_names[top - 1]) {
      sinew__buf name = {0};
      sinew__buf_printf(&name, "%sfosterParent1", r->v[top - 1].rfn);
      if (name.oom) return SINEW_ENOMEM;
      r->foster_names[top - 1] = name.p;
    }
    char k[64];
    foster_key(it, k, sizeof k);
    str_set *e = NULL;
    if ((rc = set_add(&r->fosters, k, &e))) break;
    e->phl = top;
    sinew__buf text = {0}, b = {0};
    sinew__buf_printf(&b, "|%s|%s", r->foster_names[top - 1], sinew_node_name(g, it));
    sinew__buf_puts(&text, "0 ");
    sinew__buf_quoted(&text, b.p ? b.p : "");
    b.n = 0;
    node_path(g, p, &b);
    sinew__buf_puts(&text, " ");
    sinew__buf_quoted(&text, b.p ? b.p : "");
    sinew__buf_puts(&text, " \"-s -r \"");
    rc = b.oom ? SINEW_ENOMEM : add_edit(r, top, r->v[ref - 1].rfn, &text);
    sinew__buf_free(&b);
    sinew__buf_free(&text);
  }
  return rc;
}

const char *sinew__refs_foster(sinew_session_t *s, sinew_node_t n, bool *create) {
  sinew__refs *r = s->scene->refs;
  *create = false;
  if (!r || !r->fosters) return NULL;
  char k[64];
  foster_key(n, k, sizeof k);
  str_set *e = NULL;
  HASH_FIND_STR(r->fosters, k, e);
  if (!e) return NULL;
  uint32_t top = e->phl;
  *create = !r->foster_made[top - 1];
  r->foster_made[top - 1] = true;
  return r->foster_names[top - 1];
}

int sinew__refs_save_begin(sinew_session_t *s) {
  sinew__refs *r = s->scene->refs;
  if (!r || !r->n) return SINEW_OK;
  plan_free(r);
  r->next_phl = sinew_calloc(r->n, sizeof *r->next_phl);
  r->used = sinew_calloc(r->n, sizeof *r->used);
  r->nused = sinew_calloc(r->n, sizeof *r->nused);
  if (!r->next_phl || !r->used || !r->nused) return SINEW_ENOMEM;
  int rc = SINEW_OK;
  for (uint32_t i = 0; i < r->n && !rc; i++) {
    sinew_node_t rn = {0, 0};
    /* 0: a top-level reference with no reference node to hold its edits (its connections are
     * written as they are) */
    if (!r->v[i].parent && sinew_node_find(s->scene->graph, r->v[i].rfn, &rn) == SINEW_OK &&
        is_reference_node(s->scene->graph, rn)) {
      r->next_phl[i] = 1;
      rc = used_phl(s, &r->v[i], rn, &r->used[i], &r->nused[i]);
    }
  }
  /* values changed since loading */
  for (uint32_t i = 0; i < r->n && !rc; i++) {
    ref_node *e, *t;
    HASH_ITER(hh, r->nodes, e, t) {
      if (e->ref != i + 1) continue;
      sinew_node_t n = {(uint32_t)(e->key >> 32), (uint32_t)e->key};
      if (!sinew_node_valid(s->scene->graph, n)) continue;
      if ((rc = value_edits(s, n, e->ref))) break;
    }
  }
  if (rc) return rc;
  /* a kept setAttr edit of a node and attribute a new one sets again is not written twice */
  for (uint32_t i = 0; i < r->nadded; i++) {
    new_edit *ne = &r->added[i];
    if (!ne->node) continue;
    ref_rec *rec = &r->v[ne->top - 1];
    for (uint32_t k = 0; k < rec->nedits; k++) {
      ref_edit *ed = &rec->edits[k];
      if (ed->code == 2 && !ed->drop && ed->ns >= 2 && strcmp(ed->s[0], ne->node) == 0 && strcmp(ed->s[1], ne->attr) == 0)
        ed->drop = true;
    }
  }
  if ((rc = plan_fosters(s))) return rc;
  plan_ctx x = {s, {0}, {0}, SINEW_OK};
  sinew_foreach_connection(s->scene->graph, (sinew_node_t){0, 0}, false, plan_conn, &x);
  sinew__buf_free(&x.key);
  sinew__buf_free(&x.text);
  /* a connection of the referenced files broken since loading: no edit says so (not silent) */
  str_set *e, *t;
  HASH_ITER(hh, r->conns, e, t) {
    str_set *now = NULL;
    HASH_FIND_STR(r->plan, e->k, now);
    if (!now)
      sinew_log(s->scene->graph, SINEW_LOG_WARNING, SINEW_LOG_FILE_WARNING,
                "saving: the referenced connection %s was broken; sinew writes no disconnect edit, so "
                "the saved file has it again", e->k);
  }
  return x.rc;
}

void sinew__refs_save_end(sinew_session_t *s) {
  if (s->scene->refs) plan_free(s->scene->refs);
}

bool sinew__refs_skip_node(sinew_session_t *s, sinew_node_t n) { return ref_of_node(s, n, NULL) != NULL; }

static bool is_reference_node(sinew_graph_t *g, sinew_node_t n) {
  return strcmp(sinew_node_type_name(sinew_node_type(g, n)), "reference") == 0;
}

/* The loaded reference whose reference node n is, 1-based, or 0. */
static uint32_t loaded_ref_node(sinew_session_t *s, sinew_node_t n) {
  sinew__refs *r = s->scene->refs;
  if (!r || !is_reference_node(s->scene->graph, n)) return 0;
  const char *name = sinew_node_name(s->scene->graph, n);
  for (uint32_t i = 0; i < r->n; i++)
    if (!r->v[i].parent && strcmp(r->v[i].rfn, name) == 0) return i + 1;
  return 0;
}

/* The new edits of reference top under header h: count, or write them (kinds in order). */
static uint32_t put_added(sinew__refs *r, uint32_t top, const char *h, sinew__buf *b) {
  static const int kinds[] = {2, 3, 0, 5}; /* kept kinds first: saving again gives the same order */
  uint32_t count = 0;
  for (int k = 0; k < 4; k++)
    for (uint32_t j = 0; j < r->nadded; j++) {
      new_edit *ne = &r->added[j];
      if (ne->top != top || ne->kind != kinds[k] || strcmp(ne->header, h) != 0) continue;
      count++;
      if (!b) continue;
      sinew__buf_puts(b, "\n\t\t");
      sinew__buf_puts(b, ne->text);
    }
  return count;
}

static void put_edits(sinew__refs *r, uint32_t top, sinew__buf *b) {
  ref_rec *rec = &r->v[top - 1];
  sinew__buf_puts(b, "\tsetAttr \".ed\" -type \"dataReferenceEdits\" \n\t\t");
  sinew__buf_quoted(b, rec->ed_owner ? rec->ed_owner : rec->rfn);
  for (uint32_t g = 0; g < rec->ngroups; g++) {
    /* new edits go after the last group of their header */
    bool last = true;
    for (uint32_t h = g + 1; h < rec->ngroups; h++)
      if (strcmp(rec->groups[h], rec->groups[g]) == 0) last = false;
    uint32_t count = last ? put_added(r, top, rec->groups[g], NULL) : 0;
    for (uint32_t k = 0; k < rec->nedits; k++) count += rec->edits[k].group == g && !rec->edits[k].drop;
    sinew__buf_puts(b, "\n\t\t");
    sinew__buf_quoted(b, rec->groups[g]);
    sinew__buf_printf(b, " %u", count);
    for (uint32_t k = 0; k < rec->nedits; k++) {
      ref_edit *ed = &rec->edits[k];
      if (ed->group != g || ed->drop) continue;
      sinew__buf_puts(b, "\n\t\t");
      edit_text(ed, b);
    }
    if (last) put_added(r, top, rec->groups[g], b);
  }
  /* new edits of references no group names yet */
  for (uint32_t i = 0; i < r->nadded; i++) {
    new_edit *ne = &r->added[i];
    if (ne->top != top) continue;
    bool seen = false;
    for (uint32_t g = 0; g < rec->ngroups && !seen; g++) seen = strcmp(rec->groups[g], ne->header) == 0;
    for (uint32_t j = 0; j < i && !seen; j++) seen = r->added[j].top == top && strcmp(r->added[j].header, ne->header) == 0;
    if (seen) continue;
    sinew__buf_puts(b, "\n\t\t");
    sinew__buf_quoted(b, ne->header);
    sinew__buf_printf(b, " %u", put_added(r, top, ne->header, NULL));
    put_added(r, top, ne->header, b);
  }
  sinew__buf_puts(b, ";\n");
}

bool sinew__refs_write_raw(sinew_session_t *s, sinew_node_t n, const sinew__raw *raw, sinew__buf *b) {
  if (strcmp(raw->attr, "ed") != 0 && strcmp(raw->attr, "edits") != 0) return false;
  uint32_t ref = loaded_ref_node(s, n);
  if (!ref || !s->scene->refs->v[ref - 1].edits_read) return false;
  put_edits(s->scene->refs, ref, b);
  return true;
}

void sinew__refs_write_node_end(sinew_session_t *s, sinew_node_t n, sinew__buf *b) {
  uint32_t ref = loaded_ref_node(s, n);
  if (!ref || !s->scene->refs->v[ref - 1].edits_read || kept_edits(s, n)) return;
  /* a reference node without a .ed of its own (a script's file -r) */
  put_edits(s->scene->refs, ref, b);
}

bool sinew__refs_write_conn(sinew_session_t *s, const sinew_connection_t *c, bool placeholders, sinew__buf *b) {
  sinew__refs *r = s->scene->refs;
  if (!r || !r->plan) return false;
  sinew__buf key = {0};
  if (conn_key(s->scene->graph, &c->src, &c->dst, &key)) {
    sinew__buf_free(&key);
    b->oom = true;
    return true;
  }
  str_set *e = NULL;
  HASH_FIND_STR(r->plan, key.p, e);
  sinew__buf_free(&key);
  if (!e) return false;
  if (!e->phl || !placeholders) return true; /* the reference's own, or written after the rest */
  uint32_t ref = 0;
  ref_of_node(s, e->ref_src ? c->src.node : c->dst.node, &ref);
  const char *rfn = r->v[top_of(r, ref) - 1].rfn;
  char buf[1024];
  sinew_plug_t main = e->ref_src ? c->dst : c->src;
  sinew_plug_format(s->scene->graph, &main, true, buf, sizeof buf);
  sinew__buf_puts(b, "connectAttr ");
  if (e->ref_src) sinew__buf_printf(b, "\"%s.phl[%u]\" ", rfn, e->phl);
  sinew__buf_quoted(b, buf);
  if (!e->ref_src) sinew__buf_printf(b, " \"%s.phl[%u]\"", rfn, e->phl);
  sinew__buf_puts(b, ";\n");
  return true;
}

/* ---- referenceQuery --------------------------------------------------------------------------------- */

const char *sinew_session_node_reference(const sinew_session_t *s, sinew_node_t node) {
  return s ? sinew__node_reference((sinew_session_t *)s, node) : NULL;
}

static const sinew_cmd_flag_t rq_flags[] = {
    {"isNodeReferenced", "inr", "", 0}, {"referenceNode", "rfn", "", 0}, {"namespace", "ns", "", 0},
    {"filename", "f", "", 0},           {"isLoaded", "il", "", 0},       {"shortName", "shn", "", 0}};

/* referenceQuery [flags] node|referenceNode: what a node's reference is (Maya's flags). */
static int cmd_reference_query(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  if (sinew_cmd_argc(cmd) != 1) return sinew_cmd_error(cmd, SINEW_EINVAL, "give one node or reference node");
  const char *name = sinew_cmd_arg_string(cmd, 0);
  sinew_node_t n;
  int rc = sinew__cmd_node(cmd, name, &n);
  if (rc) return rc;
  sinew__refs *r = s->scene->refs;
  uint32_t ref = 0;
  ref_of_node(s, n, &ref);
  bool is_rn = false;
  for (uint32_t i = 0; r && !ref && i < r->n; i++)
    if (strcmp(r->v[i].rfn, sinew_node_name(s->scene->graph, n)) == 0) ref = i + 1, is_rn = true;
  if (sinew_cmd_flag_count(cmd, "isNodeReferenced")) return sinew_cmd_result_int(cmd, ref && !is_rn);
  if (sinew_cmd_flag_count(cmd, "isLoaded")) return sinew_cmd_result_int(cmd, ref != 0);
  if (!ref) return sinew_cmd_error(cmd, SINEW_ENOTFOUND, "%s is not from a loaded reference", name);
  const ref_rec *rec = &r->v[ref - 1];
  if (sinew_cmd_flag_count(cmd, "referenceNode")) return sinew_cmd_result_string(cmd, rec->rfn);
  if (sinew_cmd_flag_count(cmd, "namespace")) {
    char ns[512];
    snprintf(ns, sizeof ns, ":%.*s", (int)strlen(rec->ns) - 1, rec->ns);
    return sinew_cmd_result_string(cmd, sinew_cmd_flag_count(cmd, "shortName") ? ns + 1 : ns);
  }
  if (sinew_cmd_flag_count(cmd, "filename")) {
    const char *f = rec->file;
    if (sinew_cmd_flag_count(cmd, "shortName") && strrchr(f, '/')) f = strrchr(f, '/') + 1;
    return sinew_cmd_result_string(cmd, f);
  }
  return sinew_cmd_error(cmd, SINEW_EINVAL, "give -isNodeReferenced, -referenceNode, -namespace, -filename or -isLoaded");
}

/* file -lr / -ur xRN. A loaded reference stays loaded: -lr returns its file and changes nothing
 * (Maya reloads it, and every change to its nodes is a kept edit, so the scene is the same);
 * -ur is refused, sinew keeping a reference's nodes in the scene for as long as it is open.
 * A reference whose file was not found stays unloaded: -ur has nothing to do, -lr is refused. */
int sinew__reference_load_state(sinew_cmd_t *cmd, const char *rfn, bool load) {
  sinew_session_t *s = sinew__session(cmd);
  const char *flag = load ? "-loadReference" : "-unloadReference";
  sinew_node_t n;
  int rc = sinew__cmd_node(cmd, rfn, &n);
  if (rc) return rc;
  sinew__refs *r = s->scene->refs;
  const char *name = sinew_node_name(s->scene->graph, n);
  for (uint32_t i = 0; r && i < r->n; i++) {
    if (strcmp(r->v[i].rfn, name) != 0) continue;
    if (!load)
      return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED,
                             "%s %s: unloading a reference is not supported (its nodes stay in the scene)", flag, name);
    return sinew_cmd_result_string(cmd, r->v[i].file);
  }
  if (!sinew_node_type_is_a(sinew_node_type(s->scene->graph, n), "reference") &&
      strcmp(sinew_node_type_name(sinew_node_type(s->scene->graph, n)), "reference") != 0)
    return sinew_cmd_error(cmd, SINEW_EINVAL, "%s %s: not a reference node", flag, name);
  if (!load) return SINEW_OK; /* not loaded: nothing to unload */
  return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED,
                         "%s %s: its file was not found when it was read; loading it later is not supported "
                         "(put the file beside the scene or on SINEW_REFERENCE_PATH and open the scene again)",
                         flag, name);
}

int sinew__register_reference_cmds(sinew_lang_t *L, sinew_session_t *s) {
  const sinew_cmd_desc_t d = {"referenceQuery", cmd_reference_query, rq_flags, sizeof rq_flags / sizeof *rq_flags,
                              false, s};
  return sinew_lang_register_command(L, &d);
}
