/* graph/alias.c: attribute aliases (Maya's aliasAttr): another name for one plug of a node,
 * which plug parsing accepts in place of the plug's path (the one hook is in plug.c's
 * sinew_plug_parse_attr, taken only when a name is not an attribute of the node).
 *
 * A node's aliases are one small table in the order made (a blendShape has one per target).
 * Every change builds the node's new table aside and swaps it in; inside a transaction the
 * journal keeps the old table in a host record, whose swap puts it back without allocating,
 * so a failed command or an undo restores the aliases with everything else. */
#include <string.h>

#include "graph/internal.h"

struct sinew__alias_edit {
  sinew_node_t node;
  sinew__alias *list; /* the table not live: the new one before apply, the old one after */
  uint32_t n;
};

void sinew__aliases_free(sinew__alias *list, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) sinew__free(list[i].name);
  sinew__free(list);
}

static void edit_free(sinew__alias_edit *ed) {
  if (!ed) return;
  sinew__aliases_free(ed->list, ed->n);
  sinew__free(ed);
}

/* The journal's swap: the node (live or deleted inside a step) takes the other table. */
static void rec_swap(sinew_graph_t *g, void *data) {
  sinew__alias_edit *ed = data;
  sinew__node *node = sinew__node_any(g, ed->node);
  if (!node) return;
  sinew__alias *l = node->aliases;
  uint32_t n = node->naliases;
  node->aliases = ed->list;
  node->naliases = ed->n;
  ed->list = l;
  ed->n = n;
}

static void rec_release(sinew_graph_t *g, void *data, bool done) {
  (void)g;
  (void)done; /* either way the record owns the table that is not live */
  edit_free(data);
}

static const sinew_record_ops_t alias_ops = {rec_swap, rec_release};

const sinew__alias *sinew__alias_lookup(const sinew__node *node, const char *name, size_t len) {
  for (uint32_t i = 0; node && i < node->naliases; i++) {
    const char *a = node->aliases[i].name;
    if (strlen(a) == len && memcmp(a, name, len) == 0) return &node->aliases[i];
  }
  return NULL;
}

static int64_t find_plug(const sinew__node *node, const sinew_plug_t *p) {
  sinew_plug_t k = sinew__plug_key(p);
  for (uint32_t i = 0; i < node->naliases; i++)
    if (sinew_plug_equal(&node->aliases[i].plug, &k)) return i;
  return -1;
}

/* A new edit holding a copy of node's table with room for `extra` more entries, leaving out
 * entry `skip` (-1: none) and those inside `within` (NULL: none). */
static int edit_copy(sinew_graph_t *g, sinew__node *node, sinew_node_t h, uint32_t extra, int64_t skip,
                     const sinew_plug_t *within, sinew__alias_edit **out) {
  sinew__alias_edit *ed = sinew__calloc(1, sizeof *ed);
  uint32_t cap = node->naliases + extra;
  if (!ed || !(ed->list = sinew__calloc(cap ? cap : 1, sizeof *ed->list))) {
    sinew__free(ed);
    return SINEW_ENOMEM;
  }
  ed->node = h;
  for (uint32_t i = 0; i < node->naliases; i++) {
    const sinew__alias *a = &node->aliases[i];
    if ((int64_t)i == skip || (within && sinew__plug_within(g, node, &a->plug, within))) continue;
    if (!(ed->list[ed->n].name = sinew__strdup(a->name))) {
      edit_free(ed);
      return SINEW_ENOMEM;
    }
    ed->list[ed->n++].plug = a->plug;
  }
  *out = ed;
  return SINEW_OK;
}

void sinew__alias_apply(sinew_graph_t *g, sinew__alias_edit *ed) {
  if (!ed) return;
  rec_swap(g, ed);
  if (!sinew__jon(g)) {
    edit_free(ed);
    return;
  }
  sinew__rec *r = sinew__jpush(g, SINEW__J_HOST); /* reserved by the caller */
  r->u.host.ops = &alias_ops;
  r->u.host.data = ed;
}

void sinew__alias_cancel(sinew__alias_edit *ed) { edit_free(ed); }

int sinew__alias_drop_prepare(sinew_graph_t *g, sinew__node *node, const sinew_plug_t *within,
                              sinew__alias_edit **out) {
  *out = NULL;
  bool any = false;
  for (uint32_t i = 0; i < node->naliases && !any; i++)
    any = sinew__plug_within(g, node, &node->aliases[i].plug, within);
  return any ? edit_copy(g, node, within->node, 0, -1, within, out) : SINEW_OK;
}

/* Applies an edit made by set or remove: reserves its record first. */
static int commit(sinew_graph_t *g, sinew__alias_edit *ed, const char *what) {
  if (sinew__jon(g) && sinew__jreserve(g, 1)) {
    edit_free(ed);
    return sinew_graph_set_error(g, SINEW_ENOMEM, "%s: out of memory", what);
  }
  sinew__alias_apply(g, ed);
  return SINEW_OK;
}

static bool valid_name(const char *s) {
  if (!s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return false;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
      return false;
  return true;
}

int sinew_alias_set(sinew_graph_t *g, const sinew_plug_t *p, const char *alias) {
  sinew__node *node = NULL;
  int rc = sinew__plug_check(g, p, "aliasAttr", &node);
  if (!rc) rc = sinew__check_mutable(g, "aliasAttr");
  if (rc) return rc;
  char pbuf[512];
  if (!valid_name(alias))
    return sinew_graph_set_error(g, SINEW_EINVAL, "aliasAttr: %s: '%s' is not an attribute name",
                                 sinew__plug_str(g, p, pbuf, sizeof pbuf), alias ? alias : "");
  size_t len = strlen(alias);
  if (sinew__node_attr_n(node, alias, len) != SINEW__NO_ATTR)
    return sinew_graph_set_error(g, SINEW_EEXISTS,
                                 "aliasAttr: %s: %s already has an attribute named '%s'",
                                 sinew__plug_str(g, p, pbuf, sizeof pbuf), node->name, alias);
  int64_t mine = find_plug(node, p);
  const sinew__alias *other = sinew__alias_lookup(node, alias, len);
  if (other && (mine < 0 || other != &node->aliases[mine])) {
    char obuf[512];
    return sinew_graph_set_error(g, SINEW_EEXISTS, "aliasAttr: %s: '%s' is already the alias of %s",
                                 sinew__plug_str(g, p, pbuf, sizeof pbuf), alias,
                                 sinew__plug_str(g, &other->plug, obuf, sizeof obuf));
  }
  if (other) return SINEW_OK; /* the plug has this alias already */
  /* A plug has one alias: a new one takes the old one's place (Maya's rename). */
  sinew__alias_edit *ed;
  if ((rc = edit_copy(g, node, p->node, 1, -1, NULL, &ed)))
    return sinew_graph_set_error(g, rc, "aliasAttr: out of memory");
  sinew__alias *slot = mine >= 0 ? &ed->list[mine] : &ed->list[ed->n];
  char *copy = sinew__strdup(alias);
  if (!copy) {
    edit_free(ed);
    return sinew_graph_set_error(g, SINEW_ENOMEM, "aliasAttr: out of memory");
  }
  sinew__free(slot->name);
  slot->name = copy;
  slot->plug = sinew__plug_key(p);
  if (mine < 0) ed->n++;
  return commit(g, ed, "aliasAttr");
}

int sinew_alias_remove(sinew_graph_t *g, const sinew_plug_t *p) {
  sinew__node *node = NULL;
  int rc = sinew__plug_check(g, p, "aliasAttr -remove", &node);
  if (!rc) rc = sinew__check_mutable(g, "aliasAttr -remove");
  if (rc) return rc;
  int64_t mine = find_plug(node, p);
  char pbuf[512];
  if (mine < 0)
    return sinew_graph_set_error(g, SINEW_ENOTFOUND, "aliasAttr -remove: %s has no alias",
                                 sinew__plug_str(g, p, pbuf, sizeof pbuf));
  sinew__alias_edit *ed;
  if ((rc = edit_copy(g, node, p->node, 0, mine, NULL, &ed)))
    return sinew_graph_set_error(g, rc, "aliasAttr -remove: out of memory");
  return commit(g, ed, "aliasAttr -remove");
}

size_t sinew_alias_count(const sinew_graph_t *g, sinew_node_t n) {
  sinew__node *node = sinew__node_get(g, n);
  return node ? node->naliases : 0;
}

int sinew_alias_at(const sinew_graph_t *g, sinew_node_t n, size_t i, const char **name,
                   sinew_plug_t *plug) {
  sinew__node *node = sinew__node_get(g, n);
  if (!node) return SINEW_ESTALE;
  if (i >= node->naliases) return SINEW_ERANGE;
  if (name) *name = node->aliases[i].name;
  if (plug) *plug = node->aliases[i].plug;
  return SINEW_OK;
}

int sinew_alias_find(const sinew_graph_t *g, sinew_node_t n, const char *alias, sinew_plug_t *out) {
  sinew__node *node = sinew__node_get(g, n);
  if (!node) return SINEW_ESTALE;
  const sinew__alias *a = alias ? sinew__alias_lookup(node, alias, strlen(alias)) : NULL;
  if (!a) return SINEW_ENOTFOUND;
  if (out) *out = a->plug;
  return SINEW_OK;
}

const char *sinew_plug_alias(const sinew_graph_t *g, const sinew_plug_t *p) {
  sinew__node *node = sinew__plug_node(g, p);
  int64_t i = node ? find_plug(node, p) : -1;
  return i >= 0 ? node->aliases[i].name : NULL;
}
