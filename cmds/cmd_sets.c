/* cmds/cmd_sets.c: the selection-list commands: sets, which rig scripts keep their controls,
 * skin joints and export lists with (`sets -n ctrls -em; sets -add ctrls $ctrl;`), and
 * pickWalk, which walks the selection through the hierarchy.
 *
 * A set is an objectSet node (nodes/object_set.c). Membership is a connection, as in Maya's
 * files: a DAG node's instObjGroups[0] -> set.dagSetMembers[i], any other node's message ->
 * set.dnSetMembers[i] (a set inside a set is a member through its message). Members are nodes;
 * components (pCube1.vtx[0:4]) and attributes are refused. Every form checks its nodes first
 * and takes back the connections it made when a later one fails, so a failed command leaves
 * the scene as it was. Reaches the graph only through the public API. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds_internal.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const sinew_cmd_flag_t sets_flags[] = {
    {"name", "n", "s", 0},         {"empty", "em", "", 0},        {"text", "t", "s", 0},
    {"addElement", "add", "s", 0}, {"include", "in", "s", 0},     {"forceElement", "fe", "s", 0},
    {"remove", "rm", "s", 0},      {"clear", "cl", "s", 0},       {"isMember", "im", "s", 0},
    {"size", "s", "", 0},          {"nodesOnly", "no", "", 0},    {"color", "co", "i", 0},
    {"vertices", "v", "b", 0},     {"edges", "eg", "b", 0},       {"facets", "fc", "b", 0},
    {"editPoints", "ep", "b", 0},  {"renderable", "r", "b", 0},   {"split", "sp", "s", 0},
    {"union", "un", "", 0},        {"intersection", "int", "", 0}, {"subtract", "sub", "", 0},
    {"query", "q", "", SINEW_CMD_QUERY}, {"edit", "e", "", SINEW_CMD_EDIT}};

static bool same_node(sinew_node_t a, sinew_node_t b) { return a.index == b.index && a.gen == b.gen; }

static bool is_set(sinew_graph_t *g, sinew_node_t n) {
  const sinew_node_type_t *t = sinew_node_type(g, n);
  return t && sinew_node_type_is_a(t, "objectSet");
}

static bool is_dag(sinew_graph_t *g, sinew_node_t n) {
  const sinew_node_type_t *t = sinew_node_type(g, n);
  return t && (sinew_node_type_flags(t) & SINEW_NODE_TYPE_DAG) && sinew_node_attr(g, n, "instObjGroups") != UINT32_MAX;
}

/* The set named by a flag's value. */
static int flag_set(sinew_cmd_t *cmd, const char *flag, sinew_node_t *out) {
  const char *name = sinew_cmd_flag_string(cmd, flag, NULL);
  int rc = sinew__cmd_node(cmd, name, out);
  if (rc) return rc;
  if (!is_set(sinew_cmd_graph(cmd), *out))
    return sinew_cmd_error(cmd, SINEW_ETYPE, "-%s %s: not a set (it is a %s)", flag, name,
                           sinew_node_type_name(sinew_node_type(sinew_cmd_graph(cmd), *out)));
  return SINEW_OK;
}

/* The members: the node feeding each element of dagSetMembers, then of dnSetMembers, and the
 * element plug that holds each. */
typedef struct members {
  sinew_node_t *node;
  sinew_plug_t *elem;
  uint32_t n, cap_node, cap_elem;
} members;

static void members_free(members *m) {
  sinew_free(m->node);
  sinew_free(m->elem);
}

/* Fills m with the set's members; on failure m is freed and the command fails with the
 * message, so a caller only returns. */
static int members_of(sinew_cmd_t *cmd, sinew_node_t set, members *m) {
  static const char *const arrays[] = {"dagSetMembers", "dnSetMembers"};
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  for (size_t a = 0; a < COUNT(arrays); a++) {
    sinew_plug_t arr = sinew__attr_plug(g, set, arrays[a]);
    size_t n = sinew_plug_indices(g, &arr, NULL, 0);
    int32_t *idx = n ? sinew_malloc(n * sizeof *idx) : NULL;
    bool oom = n && !idx;
    if (idx) sinew_plug_indices(g, &arr, idx, n);
    for (size_t i = 0; i < n && !oom; i++) {
      sinew_plug_t e, src;
      if (sinew_plug_element(g, &arr, idx[i], &e) || !sinew_plug_source(g, &e, &src)) continue;
      oom = sinew__grow((void **)&m->node, &m->cap_node, m->n + 1, sizeof *m->node) ||
            sinew__grow((void **)&m->elem, &m->cap_elem, m->n + 1, sizeof *m->elem);
      if (oom) break;
      m->node[m->n] = src.node;
      m->elem[m->n++] = e;
    }
    sinew_free(idx);
    if (oom) {
      members_free(m);
      *m = (members){0};
      return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    }
  }
  return SINEW_OK;
}

int sinew__set_members(sinew_cmd_t *cmd, sinew_node_t set, sinew_node_t **out, uint32_t *count) {
  members m = {0};
  int rc = members_of(cmd, set, &m);
  if (rc) return rc;
  sinew_free(m.elem);
  *out = m.node;
  *count = m.n;
  return SINEW_OK;
}

static int64_t member_at(const members *m, sinew_node_t n) {
  for (uint32_t i = 0; i < m->n; i++)
    if (same_node(m->node[i], n)) return i;
  return -1;
}

/* The objects the command names (its arguments, or the selection when there are none and
 * use_selection is true): nodes only, each once. */
static int object_list(sinew_cmd_t *cmd, bool use_selection, sinew_node_t **out, size_t *count) {
  sinew__scene *sc = sinew__session(cmd)->scene;
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  size_t argc = sinew_cmd_argc(cmd), n = argc ? argc : use_selection ? sc->nsel : 0;
  *out = n ? sinew_malloc(n * sizeof **out) : NULL;
  *count = 0;
  if (n && !*out) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  for (size_t i = 0; i < n; i++) {
    sinew_node_t x;
    if (argc) {
      const char *name = sinew_cmd_arg_string(cmd, i);
      if (strchr(name, '.'))
        return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "%s: sinew's sets hold nodes, not components or attributes",
                               name);
      int rc = sinew__cmd_node(cmd, name, &x);
      if (rc) return rc;
    } else if (!sinew_node_valid(g, (x = sc->selection[i]))) {
      continue;
    }
    bool dup = false;
    for (size_t k = 0; k < *count && !dup; k++) dup = same_node((*out)[k], x);
    if (!dup) (*out)[(*count)++] = x;
  }
  return SINEW_OK;
}

/* Connects each object not yet in the set; on failure takes back what it connected. */
static int add_members(sinew_cmd_t *cmd, sinew_node_t set, const sinew_node_t *objs, size_t n) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  members m = {0};
  int rc = members_of(cmd, set, &m);
  if (rc) return rc;
  for (size_t i = 0; i < n; i++)
    if (same_node(objs[i], set)) {
      members_free(&m);
      return sinew_cmd_error(cmd, SINEW_EINVAL, "%s cannot be a member of itself", sinew_node_name(g, set));
    }
  sinew_plug_t *made = n ? sinew_malloc(n * sizeof *made) : NULL;
  size_t nmade = 0;
  if (n && !made) rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  for (size_t i = 0; i < n && !rc; i++) {
    if (member_at(&m, objs[i]) >= 0) continue;
    bool dag = is_dag(g, objs[i]);
    sinew_plug_t src, arr = sinew__attr_plug(g, set, dag ? "dagSetMembers" : "dnSetMembers"), dst;
    if (dag) {
      sinew_plug_t iog = sinew__attr_plug(g, objs[i], "instObjGroups");
      rc = sinew_plug_element(g, &iog, 0, &src);
    } else {
      src = sinew__attr_plug(g, objs[i], "message");
    }
    if (!rc) rc = sinew_connect(g, &src, &arr, SINEW_CONNECT_NEXT_AVAILABLE, &dst);
    if (rc) {
      rc = sinew__graph_error(cmd, rc);
      break;
    }
    made[nmade++] = dst;
  }
  if (rc)
    for (size_t k = nmade; k-- > 0;) sinew_plug_remove_element(g, &made[k]); /* breaks the connection */
  sinew_free(made);
  members_free(&m);
  return rc;
}

/* Removes the objects from the set (those not in it are ignored, as in Maya). */
static int remove_members(sinew_cmd_t *cmd, sinew_node_t set, const sinew_node_t *objs, size_t n, bool all) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  members m = {0};
  int rc = members_of(cmd, set, &m);
  if (rc) return rc;
  /* removing an element cannot fail for an element fed by one connection; check first anyway,
   * so nothing is removed when something cannot be */
  for (uint32_t i = 0; i < m.n && !rc; i++) {
    bool want = all;
    for (size_t k = 0; k < n && !want; k++) want = same_node(m.node[i], objs[k]);
    if (want && (rc = sinew_plug_remove_element(g, &m.elem[i]))) rc = sinew__graph_error(cmd, rc);
  }
  members_free(&m);
  return rc;
}

static int sets_query(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  size_t argc = sinew_cmd_argc(cmd);
  if (argc != 1) return sinew_cmd_error(cmd, SINEW_EINVAL, "-query: give one set");
  sinew_node_t set;
  int rc = sinew__cmd_node(cmd, sinew_cmd_arg_string(cmd, 0), &set);
  if (rc) return rc;
  if (!is_set(g, set)) return sinew_cmd_error(cmd, SINEW_ETYPE, "%s is not a set", sinew_node_name(g, set));
  members m = {0};
  if ((rc = members_of(cmd, set, &m))) return rc;
  if (sinew_cmd_flag_count(cmd, "size")) {
    rc = sinew_cmd_result_int(cmd, (int64_t)m.n);
  } else if (sinew_cmd_flag_count(cmd, "text")) {
    const char *an = NULL;
    sinew_plug_t p = sinew__attr_plug(g, set, "annotation");
    if ((rc = sinew_get_string(g, &p, &an))) rc = sinew__graph_error(cmd, rc);
    else rc = sinew_cmd_result_string(cmd, an ? an : "");
  } else {
    rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY);
    for (uint32_t i = 0; i < m.n && !rc; i++) {
      char buf[1024];
      rc = sinew_cmd_result_append_string(cmd, sinew__node_label(g, m.node[i], buf, sizeof buf));
    }
    if (rc) rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  }
  members_free(&m);
  return rc;
}

static int cmd_sets(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  static const char *const refused[] = {"split", "union", "intersection", "subtract"};
  const char *given = sinew__cmd_given_flag(cmd, refused, COUNT(refused));
  if (given)
    return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "-%s is not supported (sinew's sets are plain lists of nodes)",
                           given);
  int rc = sinew__finish_current(s);
  if (rc) return sinew__graph_error(cmd, rc);
  if (sinew_cmd_query(cmd)) return sets_query(cmd);
  static const char *const edits[] = {"addElement", "include", "forceElement", "remove", "clear", "isMember"};
  const char *edit = NULL;
  for (size_t i = 0; i < COUNT(edits); i++)
    if (sinew_cmd_flag_count(cmd, edits[i])) {
      if (edit) return sinew_cmd_error(cmd, SINEW_EINVAL, "give one of -%s and -%s", edit, edits[i]);
      edit = edits[i];
    }
  sinew_node_t *objs = NULL, set;
  size_t n = 0;
  if (edit) {
    if ((rc = flag_set(cmd, edit, &set))) return rc;
    bool clear = strcmp(edit, "clear") == 0;
    if (clear && sinew_cmd_argc(cmd))
      return sinew_cmd_error(cmd, SINEW_EINVAL, "-clear empties the set; give no objects");
    if (!clear && (rc = object_list(cmd, true, &objs, &n))) {
      sinew_free(objs);
      return rc;
    }
    if (strcmp(edit, "isMember") == 0) {
      members m = {0};
      rc = members_of(cmd, set, &m);
      bool all = n > 0;
      for (size_t i = 0; i < n && all; i++) all = member_at(&m, objs[i]) >= 0;
      members_free(&m);
      sinew_free(objs);
      return rc ? rc : sinew_cmd_result_int(cmd, all);
    }
    if (strcmp(edit, "remove") == 0 || clear) rc = remove_members(cmd, set, objs, n, clear);
    else rc = add_members(cmd, set, objs, n);
    sinew_free(objs);
    if (rc) return rc;
    char buf[1024];
    return sinew_cmd_result_string(cmd, sinew__node_label(g, set, buf, sizeof buf));
  }
  if (sinew_cmd_edit(cmd)) return sinew_cmd_error(cmd, SINEW_EINVAL, "-edit: give -addElement, -remove, -clear ...");
  /* create: the objects (or the selection, unless -empty) in a new set */
  if (sinew_cmd_flag_count(cmd, "empty") && sinew_cmd_argc(cmd))
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-empty makes an empty set; give no objects");
  if (!sinew_cmd_flag_count(cmd, "empty") && (rc = object_list(cmd, true, &objs, &n))) {
    sinew_free(objs);
    return rc;
  }
  rc = sinew_node_create(g, "objectSet", sinew_cmd_flag_string(cmd, "name", NULL), &set);
  if (rc) {
    sinew_free(objs);
    return sinew__graph_error(cmd, rc);
  }
  static const struct {
    const char *flag, *attr;
  } bools[] = {{"vertices", "verticesOnlySet"}, {"edges", "edgesOnlySet"}, {"facets", "facetsOnlySet"},
               {"editPoints", "editPointsOnlySet"}, {"renderable", "renderableOnlySet"}};
  for (size_t i = 0; i < COUNT(bools) && !rc; i++)
    if (sinew_cmd_flag_count(cmd, bools[i].flag)) {
      sinew_plug_t p = sinew__attr_plug(g, set, bools[i].attr);
      rc = sinew_set_bool(g, &p, sinew_cmd_flag_bool(cmd, bools[i].flag, false));
    }
  if (!rc && sinew_cmd_flag_count(cmd, "color")) {
    sinew_plug_t p = sinew__attr_plug(g, set, "memberWireframeColor");
    rc = sinew_set_int(g, &p, (int64_t)sinew_cmd_flag_double(cmd, "color", 0, -1));
  }
  if (!rc && sinew_cmd_flag_count(cmd, "text")) {
    sinew_plug_t p = sinew__attr_plug(g, set, "annotation");
    rc = sinew_set_string(g, &p, sinew_cmd_flag_string(cmd, "text", ""));
  }
  if (rc) rc = sinew__graph_error(cmd, rc);
  if (!rc) rc = add_members(cmd, set, objs, n);
  char buf[1024];
  if (!rc && (rc = sinew_cmd_result_string(cmd, sinew__node_label(g, set, buf, sizeof buf))))
    rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  sinew_free(objs);
  return rc;
}

/* ---- pickWalk ---------------------------------------------------------------------------------- */

/* pickWalk -d up|down|left|right [objects]: each object (or selected node) is replaced by its
 * parent (a root stays), its first child, or its previous / next sibling (wrapping round, as
 * Maya; roots are siblings of each other in creation order). The result is the new selection,
 * each node once. */
static const sinew_cmd_flag_t pickwalk_flags[] = {{"direction", "d", "s", 0}, {"type", "typ", "s", 0}};

/* The node -direction dir (0 up, 1 down, 2 left, 3 right) leads to from n. */
static int walk_one(sinew_graph_t *g, sinew_node_t n, int dir, sinew_node_t *out) {
  *out = n;
  sinew_node_t parent = sinew_node_parent(g, n);
  if (dir == 0) {
    if (sinew_node_valid(g, parent)) *out = parent;
    return SINEW_OK;
  }
  if (dir == 1) {
    sinew_node_t first;
    if (sinew_node_children(g, n, &first, 1)) *out = first;
    return SINEW_OK;
  }
  /* siblings: the parent's children, or the DAG roots in creation order */
  sinew_node_t *sib = NULL;
  size_t count = 0;
  if (sinew_node_valid(g, parent)) {
    count = sinew_node_children(g, parent, NULL, 0);
    if (!(sib = sinew_malloc(count * sizeof *sib))) return SINEW_ENOMEM;
    sinew_node_children(g, parent, sib, count);
  } else {
    uint32_t cap = 0, m = 0;
    for (sinew_node_t it = {0, 0}; sinew_node_next(g, &it);) {
      if (!(sinew_node_type_flags(sinew_node_type(g, it)) & SINEW_NODE_TYPE_DAG) ||
          sinew_node_valid(g, sinew_node_parent(g, it)))
        continue;
      if (sinew__grow((void **)&sib, &cap, m + 1, sizeof *sib)) {
        sinew_free(sib);
        return SINEW_ENOMEM;
      }
      sib[m++] = it;
    }
    count = m;
  }
  for (size_t i = 0; i < count; i++)
    if (same_node(sib[i], n)) {
      *out = sib[dir == 2 ? (i + count - 1) % count : (i + 1) % count];
      break;
    }
  sinew_free(sib);
  return SINEW_OK;
}

static int cmd_pick_walk(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  sinew__scene *sc = s->scene;
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  static const char *const dirs[] = {"up", "down", "left", "right"};
  const char *d = sinew_cmd_flag_string(cmd, "direction", NULL);
  int dir = -1;
  for (int i = 0; d && i < 4; i++)
    if (strcmp(d, dirs[i]) == 0) dir = i;
  if (dir < 0)
    return d ? sinew_cmd_error(cmd, SINEW_EINVAL, "-direction: '%s' is none of up, down, left or right", d)
             : sinew_cmd_error(cmd, SINEW_EINVAL, "-direction: give up, down, left or right");
  if (sinew_cmd_flag_count(cmd, "type"))
    return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "-type is not supported (sinew walks nodes)");
  sinew_node_t *objs = NULL;
  size_t n = 0;
  int rc = object_list(cmd, true, &objs, &n);
  for (size_t i = 0; i < n && !rc; i++)
    if (!(sinew_node_type_flags(sinew_node_type(g, objs[i])) & SINEW_NODE_TYPE_DAG))
      rc = sinew_cmd_error(cmd, SINEW_ETYPE, "%s is not a DAG node; it has no place in the hierarchy",
                           sinew_node_name(g, objs[i]));
  size_t k = 0;
  for (size_t i = 0; i < n && !rc; i++) {
    sinew_node_t w;
    if (walk_one(g, objs[i], dir, &w)) {
      rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
      break;
    }
    bool dup = false;
    for (size_t j = 0; j < k && !dup; j++) dup = same_node(objs[j], w);
    if (!dup) objs[k++] = w;
  }
  uint32_t cap = sc->csel;
  if (!rc && sinew__grow((void **)&sc->selection, &cap, (uint32_t)k, sizeof *sc->selection))
    rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  if (!rc) rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY);
  for (size_t i = 0; i < k && !rc; i++) {
    char buf[1024];
    if ((rc = sinew_cmd_result_append_string(cmd, sinew__node_label(g, objs[i], buf, sizeof buf))))
      rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  }
  if (!rc) {
    sc->csel = cap;
    memcpy(sc->selection, objs, k * sizeof *objs);
    sc->nsel = (uint32_t)k;
  }
  sinew_free(objs);
  return rc;
}

int sinew__register_sets_cmds(sinew_lang_t *L, sinew_session_t *s) {
  const sinew_cmd_desc_t cmds[] = {
      {"sets", cmd_sets, sets_flags, COUNT(sets_flags), false, s},
      {"pickWalk", cmd_pick_walk, pickwalk_flags, COUNT(pickwalk_flags), false, s},
  };
  for (size_t i = 0; i < COUNT(cmds); i++) {
    int rc = sinew_lang_register_command(L, &cmds[i]);
    if (rc) return rc;
  }
  return SINEW_OK;
}
