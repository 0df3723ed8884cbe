/* graph/plug.c: plugs: validation, parsing and printing of "node.attr[3].child" names,
 * navigation (parent, child, element), sparse index queries and per-plug flags. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/internal.h"

/* A plug without indices (most of them) is written whole, in one go: filling a zeroed plug field
 * by field made the copy out of it wait for the small stores (a store-forwarding stall that
 * perf put at 5% of bench_graph_eval). */
sinew_plug_t sinew_plug_make(sinew_node_t node, uint32_t attr, uint32_t nidx, const int32_t *idx) {
  uint32_t n = nidx > SINEW_PLUG_MAX_INDICES ? SINEW_PLUG_MAX_INDICES : nidx;
  if (n == 0 || !idx) return (sinew_plug_t){.node = node, .attr = attr, .nidx = n};
  sinew_plug_t p = {.node = node, .attr = attr, .nidx = n};
  for (uint32_t i = 0; i < n; i++) p.idx[i] = idx[i];
  return p;
}

sinew_plug_t sinew__plug_key(const sinew_plug_t *p) {
  return sinew_plug_make(p->node, p->attr, p->nidx, p->idx);
}

bool sinew_plug_equal(const sinew_plug_t *a, const sinew_plug_t *b) {
  if (!a || !b || a->nidx > SINEW_PLUG_MAX_INDICES || b->nidx > SINEW_PLUG_MAX_INDICES) return false;
  if (a->node.index != b->node.index || a->node.gen != b->node.gen || a->attr != b->attr ||
      a->nidx != b->nidx)
    return false;
  for (uint32_t i = 0; i < a->nidx; i++)
    if (a->idx[i] != b->idx[i]) return false;
  return true;
}

static bool attr_removed(const sinew__attr *a) { return (a->flags & SINEW__ATTR_REMOVED) != 0; }

bool sinew__plug_within(const sinew_graph_t *g, const sinew__node *node, const sinew_plug_t *q,
                        const sinew_plug_t *e) {
  if (sinew__node_get(g, q->node) != node || q->nidx < e->nidx) return false;
  for (uint32_t j = 0; j < e->nidx; j++)
    if (q->idx[j] != e->idx[j]) return false;
  for (uint32_t x = q->attr; x != SINEW__NO_ATTR; x = sinew__attr_get(g, node, x)->parent)
    if (x == e->attr) return true;
  return false;
}

sinew__node *sinew__plug_node(const sinew_graph_t *g, const sinew_plug_t *p) {
  if (!g || !p) return NULL;
  sinew__node *node = sinew__node_get(g, p->node);
  if (!node || p->attr >= sinew__node_nattrs(node)) return NULL;
  const sinew__attr *a = sinew__attr_get(g, node, p->attr);
  if (attr_removed(a) || p->nidx > a->array_depth) return NULL;
  return node;
}

int sinew__plug_check(sinew_graph_t *g, const sinew_plug_t *p, const char *what,
                      sinew__node **out_node) {
  if (!g) return SINEW_EINVAL;
  if (!p) return sinew_graph_fail(g, SINEW_EINVAL, what, "no plug given");
  sinew__node *node = sinew__node_get(g, p->node);
  if (!node) return sinew_graph_fail(g, SINEW_ESTALE, what, "the plug's node was deleted or never existed");
  if (p->attr >= sinew__node_nattrs(node) || attr_removed(sinew__attr_get(g, node, p->attr)))
    return sinew_graph_fail(g, SINEW_ENOTFOUND, what, "%s has no attribute #%u", node->name, p->attr);
  const sinew__attr *a = sinew__attr_get(g, node, p->attr);
  bool whole = (a->flags & SINEW_ATTR_ARRAY) && p->nidx + 1 == a->array_depth;
  if (p->nidx != a->array_depth && !whole)
    return sinew_graph_fail(g, SINEW_EINVAL, what, "%s.%s needs %u index(es), got %u", node->name, a->name,
                            a->array_depth, p->nidx);
  for (uint32_t i = 0; i < p->nidx; i++)
    if (p->idx[i] < 0)
      return sinew_graph_fail(g, SINEW_ERANGE, what, "%s.%s: negative index %d", node->name, a->name,
                              p->idx[i]);
  if (out_node) *out_node = node;
  return SINEW_OK;
}

bool sinew_plug_is_array(const sinew_graph_t *g, const sinew_plug_t *p) {
  sinew__node *node = sinew__plug_node(g, p);
  if (!node) return false;
  const sinew__attr *a = sinew__attr_get(g, node, p->attr);
  return (a->flags & SINEW_ATTR_ARRAY) && p->nidx + 1 == a->array_depth;
}

/* ---- printing ------------------------------------------------------------------------------ */

size_t sinew_plug_format_attr(const sinew_graph_t *g, const sinew_plug_t *p, bool short_names,
                              char *buf, size_t size) {
  if (!buf) size = 0;
  sinew__node *node = sinew__plug_node(g, p);
  if (!node) return (size_t)snprintf(buf, size, "?");
  uint32_t chain[SINEW__MAX_DEPTH];
  uint32_t len = sinew__attr_chain(g, node, p->attr, chain);
  size_t used = 0, k = 0;
  bool first = true;
  for (uint32_t i = 0; i < len; i++) {
    const sinew__attr *a = sinew__attr_get(g, node, chain[i]);
    bool indexed = (a->flags & SINEW_ATTR_ARRAY) && k < p->nidx;
    /* As Maya writes names: a compound parent appears only when it carries an index
     * ("t.translateX", "skin.weightList[5].weights[2]"); the leaf name says the rest. */
    if (i + 1 < len && !indexed) continue;
    const char *name = short_names && a->short_name ? a->short_name : a->name;
    int n = snprintf(buf ? buf + (used < size ? used : size) : NULL, used < size ? size - used : 0,
                     "%s%s", first ? "" : ".", name);
    used += (size_t)n;
    first = false;
    if (indexed) {
      n = snprintf(buf ? buf + (used < size ? used : size) : NULL, used < size ? size - used : 0,
                   "[%d]", p->idx[k++]);
      used += (size_t)n;
    }
  }
  return used;
}

/* Copies s[0..len) to buf at offset `at`, only the part below size - 1 (snprintf-style
 * truncation; the caller terminates). */
static void put_at(char *buf, size_t size, size_t at, const char *s, size_t len) {
  if (!buf || at + 1 >= size) return;
  size_t room = size - 1 - at;
  memcpy(buf + at, s, len < room ? len : room);
}

/* Writes the name that finds the node at buf + used: its short name, or its full DAG path when
 * the short name is shared. Returns the length of that name, written or not. */
static size_t put_node_label(const sinew_graph_t *g, sinew__node *node, char *buf, size_t size,
                             size_t used) {
  sinew_node_t found;
  if (sinew_node_find(g, node->name, &found) == SINEW_OK) {
    size_t l = strlen(node->name);
    put_at(buf, size, used, node->name, l);
    return l;
  }
  size_t len = 0; /* "|a|b|c": written from the leaf back to the root */
  for (sinew__node *x = node; x; x = sinew__node_get(g, x->parent)) len += strlen(x->name) + 1;
  size_t end = len;
  for (sinew__node *x = node; x; x = sinew__node_get(g, x->parent)) {
    size_t l = strlen(x->name);
    end -= l;
    put_at(buf, size, used + end, x->name, l);
    end--;
    put_at(buf, size, used + end, "|", 1);
  }
  return len;
}

size_t sinew_plug_format(const sinew_graph_t *g, const sinew_plug_t *p, bool short_names,
                         char *buf, size_t size) {
  if (!buf) size = 0;
  sinew__node *node = p ? sinew__node_get(g, p->node) : NULL;
  size_t used = node ? put_node_label(g, node, buf, size, 0) : 0;
  if (!node) {
    put_at(buf, size, 0, "<deleted>", 9);
    used = 9;
  }
  put_at(buf, size, used, ".", 1);
  used++;
  if (size) buf[used < size ? used : size - 1] = 0;
  used += sinew_plug_format_attr(g, p, short_names, buf ? buf + (used < size ? used : size) : NULL,
                                 used < size ? size - used : 0);
  return used;
}

const char *sinew__plug_str(const sinew_graph_t *g, const sinew_plug_t *p, char *buf, size_t n) {
  sinew_plug_format(g, p, false, buf, n);
  return buf;
}

/* ---- parsing ------------------------------------------------------------------------------- */

typedef struct component {
  uint32_t attr;
  bool has_index;
  int32_t index;
} component;

static int parse_attr(sinew_graph_t *g, sinew_node_t n, sinew__node *node, const char *text,
                      sinew_plug_t *out);
/* "alias.child...": the aliased plug's own path with the rest after it (that path names no
 * alias, so this recurses once). */
static int parse_below_alias(sinew_graph_t *g, sinew_node_t n, const sinew__alias *alias,
                             const char *rest, sinew_plug_t *out) {
  char buf[1024];
  size_t k = sinew_plug_format_attr(g, &alias->plug, false, buf, sizeof buf);
  if (k + strlen(rest) >= sizeof buf)
    return sinew_graph_set_error(g, SINEW_ESYNTAX, "plug %s%s: too long", alias->name, rest);
  strcpy(buf + k, rest);
  return sinew_plug_parse_attr(g, n, buf, out);
}

int sinew_plug_parse_attr(sinew_graph_t *g, sinew_node_t n, const char *text, sinew_plug_t *out) {
  if (!g || !out) return SINEW_EINVAL;
  sinew__node *node = sinew__node_get(g, n);
  if (!node) return sinew_graph_fail(g, SINEW_ESTALE, "plug", "invalid node handle");
  int rc = parse_attr(g, n, node, text, out);
  if (rc) { /* the error's subject: the plug as written */
    char plug[sizeof g->err.plug];
    snprintf(plug, sizeof plug, "%s.%s", node->name, text ? text : "");
    sinew_graph_error_subject(g, node->name, plug);
  }
  return rc;
}

static int parse_attr(sinew_graph_t *g, sinew_node_t n, sinew__node *node, const char *text,
                      sinew_plug_t *out) {
  if (!text || !*text) return sinew_graph_set_error(g, SINEW_ESYNTAX, "plug %s.: no attribute name", node->name);
  component comps[SINEW__MAX_DEPTH];
  uint32_t nc = 0;
  const char *s = text;
  while (*s) {
    if (nc == SINEW__MAX_DEPTH)
      return sinew_graph_set_error(g, SINEW_ESYNTAX, "plug %s.%s: too many components", node->name, text);
    const char *name = s;
    while (*s && *s != '.' && *s != '[') s++;
    int len = (int)(s - name < 4096 ? s - name : 4096); /* for messages */
    if (s == name) return sinew_graph_set_error(g, SINEW_ESYNTAX, "plug %s.%s: empty attribute name", node->name, text);
    uint32_t id = sinew__node_attr_n(node, name, (size_t)(s - name));
    const sinew__alias *alias = id == SINEW__NO_ATTR && nc == 0 && *s != '['
                                    ? sinew__alias_lookup(node, name, (size_t)(s - name)) : NULL;
    if (alias && !*s) {
      *out = alias->plug;
      return SINEW_OK;
    }
    if (alias) return parse_below_alias(g, n, alias, s, out);
    if (id == SINEW__NO_ATTR)
      return sinew_graph_set_error(g, SINEW_ENOTFOUND, "plug %s.%s: %s (a %s) has no attribute '%.*s'",
                                   node->name, text, node->name, node->type->name, len, name);
    comps[nc] = (component){.attr = id};
    if (*s == '[') {
      s++;
      char *end = NULL;
      errno = 0;
      long v = strtol(s, &end, 10);
      if (end == s || *end != ']' || errno || v < 0 || v > INT32_MAX || !isdigit((unsigned char)*s))
        return sinew_graph_set_error(g, SINEW_ESYNTAX, "plug %s.%s: bad index in '%.*s'", node->name,
                                     text, len, name);
      comps[nc].has_index = true;
      comps[nc].index = (int32_t)v;
      s = end + 1;
    }
    nc++;
    if (*s == '.') {
      s++;
      if (!*s) return sinew_graph_set_error(g, SINEW_ESYNTAX, "plug %s.%s: trailing '.'", node->name, text);
    } else if (*s) {
      return sinew_graph_set_error(g, SINEW_ESYNTAX, "plug %s.%s: unexpected '%c'", node->name, text, *s);
    }
  }
  /* The named components must lie on the last one's attribute path, in order. */
  uint32_t chain[SINEW__MAX_DEPTH];
  uint32_t len = sinew__attr_chain(g, node, comps[nc - 1].attr, chain);
  sinew_plug_t p = sinew_plug_make(n, comps[nc - 1].attr, 0, NULL);
  uint32_t ci = 0;
  for (uint32_t i = 0; i < len; i++) {
    const sinew__attr *a = sinew__attr_get(g, node, chain[i]);
    bool named = ci < nc && comps[ci].attr == chain[i];
    const component *c = named ? &comps[ci++] : NULL;
    if (c && c->has_index && !(a->flags & SINEW_ATTR_ARRAY))
      return sinew_graph_set_error(g, SINEW_ESYNTAX, "plug %s.%s: %s is not an array", node->name,
                                   text, a->name);
    if (!(a->flags & SINEW_ATTR_ARRAY)) continue;
    bool last = i + 1 == len;
    if (c && c->has_index) p.idx[p.nidx++] = c->index;
    else if (!last) p.idx[p.nidx++] = 0; /* Maya reads "iog.og[0]" as "iog[0].og[0]" */
  }
  if (ci != nc)
    return sinew_graph_set_error(g, SINEW_ENOTFOUND, "plug %s.%s: the attributes do not nest that way",
                                 node->name, text);
  *out = p;
  return SINEW_OK;
}

int sinew_plug_parse(sinew_graph_t *g, const char *text, sinew_node_t current, sinew_plug_t *out) {
  if (!g || !text || !out) return SINEW_EINVAL;
  const char *dot = strchr(text, '.');
  if (!dot) return sinew_graph_set_error(g, SINEW_ESYNTAX, "plug '%s': expected node.attribute", text);
  sinew_node_t n = current;
  if (dot != text) {
    int len = (int)(dot - text < 4096 ? dot - text : 4096); /* for messages */
    int rc = sinew__node_find_n(g, text, (size_t)(dot - text), &n);
    if (rc == SINEW_EAMBIGUOUS)
      sinew_graph_set_error(g, rc, "plug '%s': more than one node is named '%.*s'", text, len, text);
    else if (rc)
      rc = sinew_graph_set_error(g, SINEW_ENOTFOUND, "plug '%s': no node named '%.*s'", text, len, text);
    if (rc) {
      char node[sizeof g->err.node];
      snprintf(node, sizeof node, "%.*s", len, text);
      sinew_graph_error_subject(g, node, text);
      return rc;
    }
  } else if (!sinew__node_get(g, current)) {
    sinew_graph_set_error(g, SINEW_EINVAL, "plug '%s': no current node for a relative name", text);
    sinew_graph_error_subject(g, NULL, text);
    return SINEW_EINVAL;
  }
  return sinew_plug_parse_attr(g, n, dot + 1, out);
}

/* ---- navigation ---------------------------------------------------------------------------- */

bool sinew_plug_parent(const sinew_graph_t *g, const sinew_plug_t *p, sinew_plug_t *out) {
  sinew__node *node = sinew__plug_node(g, p);
  if (!node || !out) return false;
  const sinew__attr *a = sinew__attr_get(g, node, p->attr);
  if ((a->flags & SINEW_ATTR_ARRAY) && p->nidx == a->array_depth) {
    *out = sinew_plug_make(p->node, p->attr, p->nidx - 1, p->idx);
    return true;
  }
  if (a->parent == SINEW__NO_ATTR) return false;
  const sinew__attr *pa = sinew__attr_get(g, node, a->parent);
  *out = sinew_plug_make(p->node, pa->id, pa->array_depth, p->idx);
  return true;
}

int sinew_plug_child(const sinew_graph_t *g, const sinew_plug_t *p, uint32_t child, sinew_plug_t *out) {
  sinew__node *node = sinew__plug_node(g, p);
  if (!node || !out || child >= sinew__node_nattrs(node)) return SINEW_EINVAL;
  const sinew__attr *c = sinew__attr_get(g, node, child);
  const sinew__attr *a = sinew__attr_get(g, node, p->attr);
  if (c->parent != p->attr || p->nidx != a->array_depth) return SINEW_EINVAL;
  *out = sinew_plug_make(p->node, child, p->nidx, p->idx);
  return SINEW_OK;
}

int sinew_plug_element(const sinew_graph_t *g, const sinew_plug_t *p, int32_t index, sinew_plug_t *out) {
  if (index < 0 || !out || !sinew_plug_is_array(g, p)) return SINEW_EINVAL;
  *out = sinew_plug_make(p->node, p->attr, p->nidx, p->idx);
  out->idx[out->nidx++] = index;
  return SINEW_OK;
}

size_t sinew_plug_indices(const sinew_graph_t *g, const sinew_plug_t *p, int32_t *out, size_t cap) {
  if (!sinew_plug_is_array(g, p)) return 0;
  sinew__node *node = sinew__node_get(g, p->node);
  sinew__multi *pm;
  uint32_t pos;
  sinew__slot *s = sinew__slot_peek(g, node, p, NULL, &pm, &pos); /* a view inside a two-level multi */
  if (!s || !s->v.multi) return 0;
  const sinew__multi *m = s->v.multi;
  for (uint32_t i = 0; out && i < m->count && i < cap; i++) out[i] = m->idx[i];
  return m->count;
}

int32_t sinew_plug_next_index(const sinew_graph_t *g, const sinew_plug_t *p) {
  if (!sinew_plug_is_array(g, p)) return -1;
  sinew__node *node = sinew__node_get(g, p->node);
  sinew__multi *pm;
  uint32_t pos;
  sinew__slot *s = sinew__slot_peek(g, node, p, NULL, &pm, &pos);
  if (!s || !s->v.multi) return 0;
  const sinew__multi *m = s->v.multi;
  int32_t want = 0;
  for (uint32_t i = 0; i < m->count; i++) {
    if (m->idx[i] > want) return want;
    if (!(sinew__multi_elem_flags(m, i) & (SINEW__F_IN | SINEW__F_SUB_IN | SINEW__F_SET))) return m->idx[i];
    want = m->idx[i] + 1;
  }
  return want;
}

/* removeMultiInstance of an outer element of a two-level multi (weightList[v]) or of one inner
 * element (weightList[v].weights[i]) with no connection or alias inside it: an in-place edit,
 * the multi stays two-level. 1 when it is not such an element. */
static int remove_csr(sinew_graph_t *g, sinew__node *node, const sinew__attr *a, const sinew_plug_t *e) {
  const sinew__attr *ia = a, *oa = NULL;
  uint32_t outer_n;
  int op;
  if (a->type == SINEW_ATTR_COMPOUND && a->nchildren == 1) { /* weightList[v] */
    ia = sinew__attr_get(g, node, a->children[0]);
    oa = sinew__csr_outer_attr(g, node, ia) == a ? a : NULL;
    outer_n = e->nidx - 1;
    op = SINEW__CSR_DEL_OUTER;
  } else { /* weightList[v].weights[i] */
    oa = sinew__csr_outer_attr(g, node, a);
    outer_n = e->nidx - 2;
    op = SINEW__CSR_DEL_INNER;
  }
  if (!oa || e->nidx < 1 || (op == SINEW__CSR_DEL_INNER && e->nidx < 2)) return 1;
  sinew_plug_t outer = sinew_plug_make(e->node, oa->id, outer_n, e->idx);
  sinew__multi *pm;
  uint32_t pos;
  sinew__slot *c = sinew__slot_peek(g, node, &outer, NULL, &pm, &pos);
  if (!c || !sinew__multi_csr(c->v.multi)) return 1;
  for (uint32_t i = 0; i < node->nconns; i++) /* a connection in it has unpacked it: none */
    if (sinew__plug_within(g, node, &node->conns[i]->src, e) || sinew__plug_within(g, node, &node->conns[i]->dst, e))
      return 1;
  sinew__alias_edit *aliases = NULL;
  char buf[512];
  if (sinew__alias_drop_prepare(g, node, e, &aliases))
    return sinew_graph_fail(g, SINEW_ENOMEM, "removeMultiInstance", "%s: out of memory",
                            sinew__plug_str(g, e, buf, sizeof buf));
  if (aliases) { /* the aliases go in the slot form's way */
    sinew__alias_cancel(aliases);
    return 1;
  }
  if (sinew__reserve_push(g) || (sinew__jon(g) && sinew__jreserve(g, 2)))
    return sinew_graph_fail(g, SINEW_ENOMEM, "removeMultiInstance", "%s: out of memory",
                            sinew__plug_str(g, e, buf, sizeof buf));
  int32_t inner = e->idx[e->nidx - 1];
  int rc = sinew__edit_csr(g, ia, &outer, c, e->idx[outer_n], op, &inner, NULL, 0);
  if (rc == SINEW_ENOMEM)
    return sinew_graph_fail(g, rc, "removeMultiInstance", "%s: out of memory", sinew__plug_str(g, e, buf, sizeof buf));
  if (rc) return rc;
  sinew_plug_t arr = sinew_plug_make(e->node, e->attr, e->nidx - 1, e->idx);
  return sinew__changed(g, &arr);
}

int sinew_plug_remove_element(sinew_graph_t *g, const sinew_plug_t *e) {
  sinew__node *node = NULL;
  int rc = sinew__plug_check(g, e, "removeMultiInstance", &node);
  if (!rc) rc = sinew__check_mutable(g, "removeMultiInstance");
  if (rc) return rc;
  const sinew__attr *a = sinew__attr_get(g, node, e->attr);
  if (!(a->flags & SINEW_ATTR_ARRAY) || e->nidx != a->array_depth)
    return sinew_graph_fail(g, SINEW_EINVAL, "removeMultiInstance", "%s.%s is not an array element",
                            node->name, a->name);
  char buf[512];
  /* An element of an array fed as a whole comes from the source's elements: it cannot go on
   * its own (the next evaluation would bring it back). */
  for (sinew_plug_t cur = *e, up; sinew_plug_parent(g, &cur, &up); cur = up) {
    sinew__conn *c = sinew__conn_to(g, &up);
    if (!c) continue;
    char ub[256], sb[256];
    return sinew_graph_fail(g, SINEW_ECONNECTED, "removeMultiInstance", "%s: %s is connected from %s",
                            sinew__plug_str(g, e, buf, sizeof buf), sinew__plug_str(g, &up, ub, sizeof ub),
                            sinew__plug_str(g, &c->src, sb, sizeof sb));
  }
  sinew__multi *pm;
  uint32_t ppos;
  if (!sinew__slot_peek(g, node, e, NULL, &pm, &ppos) && !pm) /* one held packed stays so */
    return sinew_graph_fail(g, SINEW_ENOTFOUND, "removeMultiInstance", "%s does not exist",
                            sinew__plug_str(g, e, buf, sizeof buf));
  if ((rc = remove_csr(g, node, a, e)) <= 0) return rc;
  /* The element taken out is a slot: a multi held two-level above it gets slots first (the
   * only allocation, before anything changes). */
  sinew_plug_t arr = sinew_plug_make(e->node, e->attr, e->nidx - 1, e->idx);
  sinew__slot_path path;
  sinew__slot *container = sinew__slot_find(g, node, &arr, &path);
  if (container && sinew__multi_csr(container->v.multi) &&
      sinew__multi_csr_unpack(g, node, sinew__attr_get(g, node, arr.attr), container))
    container = NULL;
  if (!container)
    return sinew_graph_fail(g, SINEW_ENOMEM, "removeMultiInstance", "%s: out of memory",
                            sinew__plug_str(g, e, buf, sizeof buf));
  /* Break connections at or inside the element. Those leaving it go first, while it still has
   * its own source, so that their destinations keep the value it had (as on disconnect); they
   * are brought up to date, and room made for the dirt pushed, before anything changes. */
  for (uint32_t i = 0; i < node->nconns; i++) {
    sinew__conn *c = node->conns[i];
    if (!sinew__plug_within(g, node, &c->src, e) || sinew__plug_within(g, node, &c->dst, e)) continue;
    sinew_plug_t dst = c->dst;
    if ((rc = sinew__pull(g, &dst))) return rc;
  }
  bool jon = sinew__jon(g); /* two records per connection broken, one for the element, one
                              * for the aliases inside it */
  sinew__alias_edit *aliases = NULL;
  if (sinew__alias_drop_prepare(g, node, e, &aliases) || sinew__reserve_push(g) ||
      (jon && sinew__jreserve(g, 2 * node->nconns + 1 + (aliases != NULL)))) {
    sinew__alias_cancel(aliases);
    return sinew_graph_fail(g, SINEW_ENOMEM, "removeMultiInstance", "%s: out of memory",
                            sinew__plug_str(g, e, buf, sizeof buf));
  }
  sinew__alias_apply(g, aliases);
  for (int pass = 0; pass < 2; pass++) {
    for (uint32_t i = node->nconns; i-- > 0;) {
      if (i >= node->nconns) continue; /* a disconnection shortened the list */
      sinew__conn *c = node->conns[i];
      bool src_in = sinew__plug_within(g, node, &c->src, e), dst_in = sinew__plug_within(g, node, &c->dst, e);
      if (pass == 0 && src_in && !dst_in) sinew__disconnect_conn(g, c, true);
      else if (pass == 1 && (src_in || dst_in)) sinew__disconnect_conn(g, c, false);
    }
  }
  container = sinew__slot_find(g, node, &arr, &path);
  int64_t pos = container ? sinew__multi_find(container->v.multi, e->idx[e->nidx - 1]) : -1;
  if (pos >= 0 && jon) {
    sinew__rec *r = sinew__jpush(g, SINEW__J_ELEM);
    r->plug = sinew__plug_key(e);
    r->held = true;
    sinew__multi_take(g, node, &path, (uint32_t)pos, &r->u.slot);
  } else if (pos >= 0) {
    sinew__multi_remove(g, node, a, &path, (uint32_t)pos);
  }
  return sinew__changed(g, &arr);
}

/* ---- per-plug flags ------------------------------------------------------------------------- */

static int set_flag(sinew_graph_t *g, const sinew_plug_t *p, const char *what, uint32_t on_bit,
                    uint32_t off_bit, bool on) {
  sinew__node *node = NULL;
  int rc = sinew__plug_check(g, p, what, &node);
  if (!rc) rc = sinew__check_mutable(g, what); /* it may make an element */
  if (rc) return rc;
  sinew__slot *s;
  bool jon = sinew__jon(g);
  if (jon && sinew__jreserve(g, p->nidx + 1)) return sinew_graph_fail(g, SINEW_ENOMEM, what, "out of memory");
  sinew__created made = {.n = 0};
  rc = sinew__slot_ensure(g, node, p, &s, NULL, &made);
  if (rc) return sinew_graph_fail(g, rc, what, "out of memory");
  if (jon) {
    sinew__jrec_created(g, &made);
    sinew__rec *r = sinew__jpush(g, SINEW__J_FLAGS);
    r->plug = sinew__plug_key(p);
    r->mask = on_bit | off_bit;
    r->bits = s->flags & (on_bit | off_bit);
  }
  s->flags &= ~(on_bit | off_bit);
  s->flags |= on ? on_bit : off_bit;
  return SINEW_OK;
}

int sinew_plug_set_locked(sinew_graph_t *g, const sinew_plug_t *p, bool locked) {
  return set_flag(g, p, "setAttr -lock", SINEW__F_LOCKED, 0, locked);
}

bool sinew_plug_locked(const sinew_graph_t *g, const sinew_plug_t *p) {
  sinew__node *node = sinew__plug_node(g, p);
  if (!node) return false;
  sinew__slot_path path;
  sinew_plug_t cur = *p, up;
  sinew__multi *pm;
  uint32_t pos;
  /* an element not made yet: its array decides; one held packed is not locked itself */
  while (!sinew__slot_peek(g, node, &cur, &path, &pm, &pos) && !pm) {
    if (!sinew_plug_parent(g, &cur, &up)) return false;
    cur = up;
  }
  for (uint32_t i = 0; i < path.n; i++) /* locking a parent locks its children */
    if (path.slots[i]->flags & SINEW__F_LOCKED) return true;
  return false;
}

int sinew_plug_set_keyable(sinew_graph_t *g, const sinew_plug_t *p, bool on) {
  return set_flag(g, p, "setAttr -keyable", SINEW__F_KEY_ON, SINEW__F_KEY_OFF, on);
}

int sinew_plug_set_channel_box(sinew_graph_t *g, const sinew_plug_t *p, bool on) {
  return set_flag(g, p, "setAttr -channelBox", SINEW__F_CB_ON, SINEW__F_CB_OFF, on);
}

static bool subtree_has_value(const sinew_graph_t *g, sinew__node *node, const sinew__attr *a,
                              bool element, const sinew__slot *s) {
  if (s->flags & SINEW__F_SET) return true;
  if ((a->flags & SINEW_ATTR_ARRAY) && !element) {
    const sinew__multi *m = s->v.multi;
    if (m && m->vals) return m->count && (m->eflags & SINEW__F_SET);
    if (m && m->csr) return m->count > 0; /* every element holds numbers */
    for (uint32_t i = 0; m && i < m->count; i++)
      if (subtree_has_value(g, node, a, true, &m->elems[i])) return true;
    return false;
  }
  if (a->type == SINEW_ATTR_COMPOUND && s->v.kids)
    for (uint32_t i = 0; i < a->nchildren; i++)
      if (subtree_has_value(g, node, sinew__attr_get(g, node, a->children[i]), false, &s->v.kids[i]))
        return true;
  return false;
}

bool sinew_plug_has_value(const sinew_graph_t *g, const sinew_plug_t *p) {
  sinew__node *node = sinew__plug_node(g, p);
  if (!node) return false;
  sinew__multi *pm;
  uint32_t pos;
  sinew__slot *s = sinew__slot_peek(g, node, p, NULL, &pm, &pos);
  if (pm) return (pm->eflags & SINEW__F_SET) != 0;
  if (!s) return false;
  const sinew__attr *a = sinew__attr_get(g, node, p->attr);
  return subtree_has_value(g, node, a, !sinew_plug_is_array(g, p), s);
}

bool sinew_plug_is_dirty(const sinew_graph_t *g, const sinew_plug_t *p) {
  sinew__node *node = sinew__plug_node(g, p);
  if (!node) return false;
  sinew__multi *pm;
  uint32_t pos;
  sinew__slot *s = sinew__slot_peek(g, node, p, NULL, &pm, &pos);
  if (pm) return (pm->eflags & SINEW__F_DIRTY) != 0;
  if (!s) return sinew__attr_get(g, node, p->attr)->computed;
  return sinew__slot_dirtyish(s);
}
