/* graph/types.c: node type registration, attribute tables and the affects closure.
 *
 * A type's attribute table is its parent type's table followed by its own attributes, so an
 * attribute id means the same thing on a type and on every type derived from it. Each attribute
 * keeps two derived lists: the outputs to dirty when it (or a parent or child of it) changes,
 * and the inputs that feed it, which the evaluator pulls before calling compute. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/internal.h"

static const char *type_names[SINEW_ATTR_TYPE_MAX] = {
    "invalid", "bool", "long", "enum", "float", "double", "doubleLinear", "doubleAngle",
    "time", "matrix", "string", "message", "compound", "data"};

const char *sinew_attr_type_name(sinew_attr_type_t t) {
  return (unsigned)t < SINEW_ATTR_TYPE_MAX ? type_names[t] : "invalid";
}

bool sinew_attr_type_is_numeric(sinew_attr_type_t t) {
  return t >= SINEW_ATTR_BOOL && t <= SINEW_ATTR_TIME;
}

static void attr_free(sinew__attr *a) {
  if (!a->borrowed) {
    sinew__free(a->name);
    sinew__free(a->short_name);
    sinew__free(a->enum_text);
    for (uint32_t i = 0; i < a->nenums; i++) sinew__free(a->enums[i].name);
    sinew__free(a->enums);
  }
  sinew__free(a->children);
  sinew__free(a->affects);
  sinew__free(a->inputs);
  sinew__free(a->input_tops);
}

/* Parses Maya's "a:b=3:c" enum syntax; values continue from the last explicit one. */
static int parse_enum(sinew__attr *a, const char *text) {
  size_t len = strlen(text);
  char *buf = sinew__malloc(len + 1);
  if (!buf) return SINEW_ENOMEM;
  memcpy(buf, text, len + 1);
  uint32_t n = 1;
  for (size_t i = 0; i < len; i++) n += buf[i] == ':';
  a->enums = sinew__calloc(n, sizeof *a->enums);
  size_t outcap = len + n * 12 + 1;
  a->enum_text = sinew__malloc(outcap);
  if (!a->enums || !a->enum_text) {
    sinew__free(buf);
    return SINEW_ENOMEM;
  }
  a->enum_text[0] = 0;
  size_t used = 0;
  int next = 0;
  char *save = NULL;
  for (char *tok = strtok_r(buf, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
    char *eq = strchr(tok, '=');
    if (eq) {
      *eq = 0;
      next = (int)strtol(eq + 1, NULL, 10);
    }
    if (!*tok) continue;
    sinew__enum_field *f = &a->enums[a->nenums];
    f->name = sinew__strdup(tok);
    if (!f->name) {
      sinew__free(buf);
      return SINEW_ENOMEM;
    }
    f->value = next++;
    a->nenums++;
    used += (size_t)snprintf(a->enum_text + used, outcap - used, "%s%s=%d",
                             used ? ":" : "", f->name, f->value);
  }
  sinew__free(buf);
  return SINEW_OK;
}

/* dst becomes a copy of src with a list of children of its own and no affects closure;
 * borrow: it points at src's names and enum fields (a type inheriting src) instead of copies
 * (a node's dynamic attributes, which renameAttr changes). */
static int copy_attr(sinew__attr *dst, const sinew__attr *src, bool borrow) {
  *dst = *src;
  dst->children = dst->affects = dst->inputs = dst->input_tops = NULL;
  dst->borrowed = borrow;
  if (!borrow) { /* nothing of src's is dst's until copied */
    dst->name = dst->short_name = dst->enum_text = NULL;
    dst->enums = NULL;
    dst->nenums = 0;
  }
  if (src->nchildren && !(dst->children = sinew__malloc(src->nchildren * sizeof(uint32_t))))
    return SINEW_ENOMEM;
  if (src->nchildren) memcpy(dst->children, src->children, src->nchildren * sizeof(uint32_t));
  if (borrow) return SINEW_OK;
  dst->name = sinew__strdup(src->name);
  if (src->short_name) dst->short_name = sinew__strdup(src->short_name);
  if (!dst->name || (src->short_name && !dst->short_name)) return SINEW_ENOMEM;
  if (src->enum_text) return parse_enum(dst, src->enum_text);
  return SINEW_OK;
}

/* Looks a name up among attrs[0..n) (linear: used while building tables). Removed dynamic
 * attributes no longer hold their names. */
static uint32_t find_in(const sinew__attr *attrs, uint32_t n, const char *name) {
  for (uint32_t i = 0; i < n; i++) {
    if (attrs[i].flags & SINEW__ATTR_REMOVED) continue;
    if (strcmp(attrs[i].name, name) == 0) return i;
    if (attrs[i].short_name && strcmp(attrs[i].short_name, name) == 0) return i;
  }
  return SINEW__NO_ATTR;
}

/* The names of a table being registered, hashed (open addressing; an entry is an attribute's
 * index + 1, reached by its long and its short name): registering a type derived from a type
 * of hundreds of attributes looked every new name up linearly among them. */
typedef struct name_index {
  uint32_t *slot;
  uint32_t mask;
} name_index;

static uint32_t name_hash(const char *s) {
  uint32_t h = 2166136261u; /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

static int name_index_init(name_index *ix, uint32_t nattrs) {
  uint32_t cap = 64;
  while (cap < 4 * (size_t)nattrs + 4) cap *= 2; /* two names an attribute, half full at most */
  ix->slot = sinew__calloc(cap, sizeof *ix->slot);
  ix->mask = cap - 1;
  return ix->slot ? SINEW_OK : SINEW_ENOMEM;
}

static uint32_t name_index_find(const name_index *ix, const sinew__attr *attrs, const char *name) {
  for (uint32_t i = name_hash(name) & ix->mask;; i = (i + 1) & ix->mask) {
    uint32_t e = ix->slot[i];
    if (!e) return SINEW__NO_ATTR;
    const sinew__attr *a = &attrs[e - 1];
    if (strcmp(a->name, name) == 0 || (a->short_name && strcmp(a->short_name, name) == 0)) return e - 1;
  }
}

/* Adds attrs[i]'s names (their absence checked by the caller). */
static void name_index_add(name_index *ix, const sinew__attr *attrs, uint32_t i) {
  const char *names[2] = {attrs[i].name, attrs[i].short_name};
  for (int k = 0; k < 2; k++) {
    if (!names[k]) continue;
    uint32_t at = name_hash(names[k]) & ix->mask;
    while (ix->slot[at]) at = (at + 1) & ix->mask;
    ix->slot[at] = i + 1;
  }
}

/* attrs[0..n) by name: through the index when there is one. */
static uint32_t find_name(const name_index *ix, const sinew__attr *attrs, uint32_t n, const char *name) {
  return ix ? name_index_find(ix, attrs, name) : find_in(attrs, n, name);
}

/* Appends one attribute built from a descriptor. Parent names resolve among the attributes
 * known so far (the table itself); names must be new to it and to `extra` (for dynamic
 * attributes, the type's). `ix` (or NULL) indexes the table's names and gets the new ones. */
static int add_attr(sinew_graph_t *g, sinew__attr *attrs, uint32_t *n, uint32_t base_id,
                    const sinew__attr *extra, uint32_t nextra, const sinew_attr_desc_t *d,
                    uint32_t *ntop, name_index *ix) {
  if (!d->name || !*d->name)
    return sinew_graph_set_error(g, SINEW_EINVAL, "attribute without a name");
  if ((unsigned)d->type == SINEW_ATTR_INVALID || d->type >= SINEW_ATTR_TYPE_MAX)
    return sinew_graph_set_error(g, SINEW_EINVAL, "attribute %s: invalid type", d->name);
  if ((d->flags & SINEW_ATTR_GENERIC_NUMERIC) && !sinew_attr_type_is_numeric(d->type))
    return sinew_graph_set_error(g, SINEW_EINVAL, "attribute %s: a generic numeric attribute is declared "
                                 "with a numeric type, not %s", d->name, sinew_attr_type_name(d->type));
  const char *names[2] = {d->name, d->short_name};
  for (int k = 0; k < 2; k++) {
    if (!names[k]) continue;
    if (find_name(ix, attrs, *n, names[k]) != SINEW__NO_ATTR ||
        (extra && find_in(extra, nextra, names[k]) != SINEW__NO_ATTR))
      return sinew_graph_set_error(g, SINEW_EEXISTS, "attribute name '%s' is already used",
                                   names[k]);
  }
  sinew__attr *a = &attrs[*n];
  memset(a, 0, sizeof *a);
  a->id = base_id + *n;
  a->type = d->type;
  a->flags = d->flags ? d->flags : SINEW_ATTR_INPUT;
  a->flags &= ~(uint32_t)SINEW_ATTR_DYNAMIC;
  a->dflt = d->default_value;
  a->has_min = d->has_min;
  a->has_max = d->has_max;
  a->min_value = d->min_value;
  a->max_value = d->max_value;
  a->data_type = d->data_type;
  a->parent = SINEW__NO_ATTR;
  a->name = sinew__strdup(d->name);
  if (d->short_name) a->short_name = sinew__strdup(d->short_name);
  if (!a->name || (d->short_name && !a->short_name)) {
    attr_free(a);
    return SINEW_ENOMEM;
  }
  if (d->type == SINEW_ATTR_ENUM && d->enum_fields) {
    int rc = parse_enum(a, d->enum_fields);
    if (rc) {
      attr_free(a);
      return rc;
    }
  }
  if (d->parent) {
    sinew__attr *p = NULL;
    uint32_t pi = find_name(ix, attrs, *n, d->parent);
    if (pi != SINEW__NO_ATTR) p = &attrs[pi];
    if (!p || p->type != SINEW_ATTR_COMPOUND) {
      attr_free(a);
      return sinew_graph_set_error(g, SINEW_EINVAL,
                                   "attribute %s: parent '%s' is not a compound declared before it",
                                   d->name, d->parent);
    }
    if (p->depth + 1 >= SINEW__MAX_DEPTH || p->array_depth >= SINEW_PLUG_MAX_INDICES) {
      attr_free(a);
      return sinew_graph_set_error(g, SINEW_EINVAL, "attribute %s: nested too deeply", d->name);
    }
    uint32_t *kids = sinew__realloc(p->children, (p->nchildren + 1) * sizeof(uint32_t));
    if (!kids) {
      attr_free(a);
      return SINEW_ENOMEM;
    }
    p->children = kids;
    a->slot_index = p->nchildren;
    kids[p->nchildren++] = a->id;
    a->parent = p->id;
    a->depth = p->depth + 1;
    a->array_depth = p->array_depth;
  } else {
    a->slot_index = (*ntop)++;
  }
  if (a->flags & SINEW_ATTR_ARRAY) a->array_depth++;
  if (a->array_depth > SINEW_PLUG_MAX_INDICES) {
    attr_free(a);
    return sinew_graph_set_error(g, SINEW_EINVAL, "attribute %s: too many array levels", d->name);
  }
  if (ix) name_index_add(ix, attrs, *n);
  (*n)++;
  return SINEW_OK;
}

/* Adds id to a set kept as a small array. Its room is implied by its count (4, then each
 * power of two), so a set of k ids costs log k reallocations, not k. */
static int set_add(uint32_t **arr, uint32_t *n, uint32_t id) {
  for (uint32_t i = 0; i < *n; i++)
    if ((*arr)[i] == id) return SINEW_OK;
  uint32_t c = *n;
  if (c == 0 || (c >= 4 && (c & (c - 1)) == 0)) { /* full */
    if (c > UINT32_MAX / 2) return SINEW_ENOMEM;
    uint32_t *p = sinew__realloc(*arr, (c ? 2 * (size_t)c : 4) * sizeof(uint32_t));
    if (!p) return SINEW_ENOMEM;
    *arr = p;
  }
  (*arr)[(*n)++] = id;
  return SINEW_OK;
}

/* Adds id to the affects (or inputs) set of x and of every descendant of x. */
static int add_below(sinew__attr *attrs, uint32_t x, bool affects, uint32_t id) {
  sinew__attr *a = &attrs[x];
  int rc = affects ? set_add(&a->affects, &a->naffects, id) : set_add(&a->inputs, &a->ninputs, id);
  for (uint32_t c = 0; !rc && c < a->nchildren; c++) rc = add_below(attrs, a->children[c], affects, id);
  return rc;
}

/* Adds id to the set of every attribute in x's family: x, its ancestors, its descendants. */
static int add_family(sinew__attr *attrs, uint32_t x, bool affects, uint32_t id) {
  int rc = add_below(attrs, x, affects, id);
  for (uint32_t p = attrs[x].parent; !rc && p != SINEW__NO_ATTR; p = attrs[p].parent) {
    sinew__attr *a = &attrs[p];
    rc = affects ? set_add(&a->affects, &a->naffects, id) : set_add(&a->inputs, &a->ninputs, id);
  }
  return rc;
}

/* pairs holds np (input, output) id pairs, flattened (ids are table indices: a type's base id
 * is 0). A change of the input or of its family dirties the output; the output and its family
 * pull the input. Each set gets its ids in the order of the pairs. */
static int build_closure(sinew__attr *attrs, uint32_t n, const uint32_t *pairs, uint32_t np) {
  for (uint32_t k = 0; k < np; k++) attrs[pairs[2 * k + 1]].computed = true;
  for (uint32_t k = 0; k < np; k++) {
    int rc = add_family(attrs, pairs[2 * k], true, pairs[2 * k + 1]);
    if (!rc) rc = add_family(attrs, pairs[2 * k + 1], false, pairs[2 * k]);
    if (rc) return rc;
  }
  /* Children of computed compounds/arrays are computed too. */
  for (uint32_t a = 0; a < n; a++)
    for (uint32_t x = attrs[a].parent; x != SINEW__NO_ATTR; x = attrs[x].parent)
      if (attrs[x].computed) attrs[a].computed = true;
  /* The node slots holding each attribute's inputs. */
  for (uint32_t a = 0; a < n; a++) {
    attrs[a].input_slots = 0;
    attrs[a].inputs_wide = false;
    sinew__free(attrs[a].input_tops);
    attrs[a].input_tops = NULL;
    if (attrs[a].ninputs && !(attrs[a].input_tops = sinew__malloc(attrs[a].ninputs * sizeof(uint32_t))))
      return SINEW_ENOMEM;
    for (uint32_t k = 0; k < attrs[a].ninputs; k++) {
      uint32_t top = attrs[a].inputs[k];
      while (attrs[top].parent != SINEW__NO_ATTR) top = attrs[top].parent;
      attrs[a].input_tops[k] = attrs[top].slot_index;
      if (attrs[top].slot_index < 64) attrs[a].input_slots |= (uint64_t)1 << attrs[top].slot_index;
      else attrs[a].inputs_wide = true;
    }
  }
  return SINEW_OK;
}

static void type_free(sinew_node_type_t *t) {
  if (!t) return;
  HASH_CLEAR(hh, t->names);
  sinew__free(t->name_ids);
  for (uint32_t i = 0; i < t->nattrs; i++) attr_free(&t->attrs[i]);
  sinew__free(t->attrs);
  sinew__free(t->pairs);
  sinew__free(t->name);
  sinew__free(t->dag_parent_output);
  sinew__free(t->dag_child_input);
  sinew__free(t);
}

void sinew__types_destroy(sinew_graph_t *g);
void sinew__types_destroy(sinew_graph_t *g) {
  sinew_node_type_t *t = g->types_first;
  HASH_CLEAR(hh, g->types);
  while (t) {
    sinew_node_type_t *next = t->next;
    type_free(t);
    t = next;
  }
  g->types_first = g->types_last = NULL;
}

/* The hash of long and short names, its entries in one block (t->name_ids). */
static int index_names(sinew_node_type_t *t) {
  t->name_ids = sinew__calloc(2 * (size_t)t->nattrs + 1, sizeof *t->name_ids);
  if (!t->name_ids) return SINEW_ENOMEM;
  size_t used = 0;
  for (uint32_t i = 0; i < t->nattrs; i++) {
    const char *keys[2] = {t->attrs[i].name, t->attrs[i].short_name};
    for (int k = 0; k < 2; k++) {
      if (!keys[k]) continue;
      sinew__name_id *e = &t->name_ids[used++];
      e->key = keys[k];
      e->id = i;
      sinew__uthash_oom = 0;
      HASH_ADD_KEYPTR(hh, t->names, e->key, strlen(e->key), e);
      if (sinew__uthash_oom) return SINEW_ENOMEM; /* e is not in the hash; the block goes with t */
    }
  }
  return SINEW_OK;
}

/* Collects the parent's exact affects pairs plus the new ones. */
static int collect_pairs(sinew_graph_t *g, const sinew_node_type_t *parent, sinew__attr *attrs,
                         uint32_t n, const name_index *ix, const sinew_node_type_desc_t *d,
                         uint32_t **out, uint32_t *np) {
  uint32_t inherited = parent ? parent->npairs : 0;
  uint32_t *pairs = sinew__calloc(2 * ((size_t)inherited + d->affects_count) + 2, sizeof *pairs);
  if (!pairs) return SINEW_ENOMEM;
  if (inherited) memcpy(pairs, parent->pairs, 2 * (size_t)inherited * sizeof *pairs);
  uint32_t k = inherited;
  for (size_t i = 0; i < d->affects_count; i++) {
    uint32_t in = find_name(ix, attrs, n, d->affects[i].input ? d->affects[i].input : "");
    uint32_t out_id = find_name(ix, attrs, n, d->affects[i].output ? d->affects[i].output : "");
    if (in == SINEW__NO_ATTR || out_id == SINEW__NO_ATTR) {
      sinew__free(pairs);
      return sinew_graph_set_error(g, SINEW_EINVAL,
                                   "node type %s: affects %s -> %s: unknown attribute", d->name,
                                   d->affects[i].input ? d->affects[i].input : "(null)",
                                   d->affects[i].output ? d->affects[i].output : "(null)");
    }
    pairs[2 * k] = in;
    pairs[2 * k + 1] = out_id;
    k++;
  }
  *out = pairs;
  *np = k;
  return SINEW_OK;
}

int sinew_register_node_type(sinew_graph_t *g, const sinew_node_type_desc_t *d,
                             const sinew_node_type_t **out) {
  if (!g || !d || !d->name || !*d->name) return SINEW_EINVAL;
  if (sinew_find_node_type(g, d->name))
    return sinew_graph_set_error(g, SINEW_EEXISTS, "node type %s is already registered", d->name);
  const sinew_node_type_t *parent = NULL;
  if (d->parent_type) {
    parent = sinew_find_node_type(g, d->parent_type);
    if (!parent)
      return sinew_graph_set_error(g, SINEW_ENOTFOUND, "node type %s: unknown parent type %s",
                                   d->name, d->parent_type);
  } else if (g->types_first) {
    parent = sinew_find_node_type(g, "node"); /* every type derives from the base "node" */
  }
  if (d->attr_count && !d->attrs) return SINEW_EINVAL;
  sinew_node_type_t *t = sinew__calloc(1, sizeof *t);
  if (!t) return SINEW_ENOMEM;
  uint32_t inherited = parent ? parent->nattrs : 0;
  int rc = SINEW_OK;
  t->name = sinew__strdup(d->name);
  t->attrs = sinew__calloc(inherited + d->attr_count + 1, sizeof *t->attrs);
  name_index ix = {NULL, 0};
  if (!t->name || !t->attrs || d->attr_count > UINT32_MAX / 8 - inherited ||
      name_index_init(&ix, inherited + (uint32_t)d->attr_count))
    rc = SINEW_ENOMEM;
  for (uint32_t i = 0; !rc && i < inherited; i++) {
    rc = copy_attr(&t->attrs[i], &parent->attrs[i], true);
    t->nattrs = i + 1;
    if (!rc) name_index_add(&ix, t->attrs, i); /* the parent's names are distinct */
  }
  if (!rc) t->ntop = parent ? parent->ntop : 0;
  for (size_t i = 0; !rc && i < d->attr_count; i++)
    rc = add_attr(g, t->attrs, &t->nattrs, 0, NULL, 0, &d->attrs[i], &t->ntop, &ix);
  uint32_t *pairs = NULL;
  uint32_t np = 0;
  if (!rc) rc = collect_pairs(g, parent, t->attrs, t->nattrs, &ix, d, &pairs, &np);
  sinew__free(ix.slot);
  if (!rc) {
    for (uint32_t a = 0; a < t->nattrs; a++) {
      t->attrs[a].computed = false;
      t->attrs[a].naffects = t->attrs[a].ninputs = 0;
    }
    rc = build_closure(t->attrs, t->nattrs, pairs, np);
  }
  t->pairs = pairs;
  t->npairs = np;
  for (uint32_t a = 0; a < t->nattrs; a++) t->ncomputed += t->attrs[a].computed;
  if (!rc) rc = index_names(t);
  if (!rc) {
    t->parent = parent;
    t->flags = d->flags | (parent ? (parent->flags & SINEW_NODE_TYPE_DAG) : 0);
    t->compute = d->compute;
    t->input_changed = d->input_changed ? d->input_changed : (parent ? parent->input_changed : NULL);
    /* A derived type's state starts with its parent's (it may be larger); lifecycle callbacks
     * not given are the parent's. */
    t->state_size = d->state_size;
    if (parent && parent->state_size > t->state_size) t->state_size = parent->state_size;
    t->init = d->init ? d->init : (parent ? parent->init : NULL);
    t->destroy = d->destroy ? d->destroy : (parent ? parent->destroy : NULL);
    t->restored = d->restored ? d->restored : (parent ? parent->restored : NULL);
    t->user_data = d->user_data;
    const char *po = d->dag_parent_output ? d->dag_parent_output
                                          : (parent ? parent->dag_parent_output : NULL);
    const char *ci = d->dag_child_input ? d->dag_child_input
                                        : (parent ? parent->dag_child_input : NULL);
    if (po) t->dag_parent_output = sinew__strdup(po);
    if (ci) t->dag_child_input = sinew__strdup(ci);
    if ((po && !t->dag_parent_output) || (ci && !t->dag_child_input)) rc = SINEW_ENOMEM;
  }
  if (!rc) {
    sinew__uthash_oom = 0;
    HASH_ADD_KEYPTR(hh, g->types, t->name, strlen(t->name), t);
    if (sinew__uthash_oom) rc = SINEW_ENOMEM;
  }
  if (rc) {
    type_free(t);
    if (rc == SINEW_ENOMEM) sinew_graph_set_error(g, rc, "registering node type %s: out of memory", d->name);
    return rc;
  }
  if (g->types_last) g->types_last->next = t;
  else g->types_first = t;
  g->types_last = t;
  if (out) *out = t;
  return SINEW_OK;
}

/* Builds dynamic attributes for a node: ids continue after the type's and the node's. */
int sinew__build_dynamic(sinew_graph_t *g, const sinew_node_type_t *t, sinew__attr *existing,
                         uint32_t nexisting, const sinew_attr_desc_t *descs, size_t count,
                         sinew__attr **out, uint32_t *ntop_inout);
int sinew__build_dynamic(sinew_graph_t *g, const sinew_node_type_t *t, sinew__attr *existing,
                         uint32_t nexisting, const sinew_attr_desc_t *descs, size_t count,
                         sinew__attr **out, uint32_t *ntop_inout) {
  sinew__attr *all = sinew__calloc(nexisting + count + 1, sizeof *all);
  if (!all) return SINEW_ENOMEM;
  uint32_t n = 0;
  int rc = SINEW_OK;
  for (; n < nexisting && !rc; n++) rc = copy_attr(&all[n], &existing[n], false);
  for (uint32_t i = 0; i < n && !rc; i++) all[i].flags |= SINEW_ATTR_DYNAMIC;
  for (size_t i = 0; i < count && !rc; i++) {
    if (descs[i].parent && find_in(all, n, descs[i].parent) == SINEW__NO_ATTR &&
        find_in(t->attrs, t->nattrs, descs[i].parent) != SINEW__NO_ATTR) {
      rc = sinew_graph_set_error(g, SINEW_EINVAL,
                                 "attribute %s: a dynamic child needs a dynamic parent",
                                 descs[i].name);
      break;
    }
    rc = add_attr(g, all, &n, t->nattrs, t->attrs, t->nattrs, &descs[i], ntop_inout, NULL);
    if (!rc) all[n - 1].flags |= SINEW_ATTR_DYNAMIC;
  }
  /* parent ids inside `all` were assigned relative to base id t->nattrs already. */
  if (rc) {
    for (uint32_t i = 0; i < n; i++) attr_free(&all[i]);
    sinew__free(all);
    return rc;
  }
  *out = all;
  return SINEW_OK;
}

void sinew__attrs_free(sinew__attr *attrs, uint32_t n);
void sinew__attrs_free(sinew__attr *attrs, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) attr_free(&attrs[i]);
  sinew__free(attrs);
}

const sinew_node_type_t *sinew_find_node_type(const sinew_graph_t *g, const char *name) {
  if (!g || !name) return NULL;
  sinew_node_type_t *t = NULL;
  HASH_FIND_STR(g->types, name, t);
  return t;
}

const char *sinew_node_type_name(const sinew_node_type_t *t) { return t ? t->name : NULL; }
const sinew_node_type_t *sinew_node_type_parent(const sinew_node_type_t *t) {
  return t ? t->parent : NULL;
}
uint32_t sinew_node_type_flags(const sinew_node_type_t *t) { return t ? t->flags : 0; }
void *sinew_node_type_user_data(const sinew_node_type_t *t) { return t ? t->user_data : NULL; }

bool sinew_node_type_is_a(const sinew_node_type_t *t, const char *base) {
  for (; t && base; t = t->parent)
    if (strcmp(t->name, base) == 0) return true;
  return false;
}

uint32_t sinew_node_type_attr(const sinew_node_type_t *t, const char *name) {
  if (!t || !name) return SINEW__NO_ATTR;
  sinew__name_id *e = NULL;
  HASH_FIND_STR(t->names, name, e);
  return e ? e->id : SINEW__NO_ATTR;
}

const sinew_node_type_t *sinew_node_type_next(const sinew_graph_t *g,
                                              const sinew_node_type_t *prev) {
  if (!g) return NULL;
  return prev ? prev->next : g->types_first;
}
