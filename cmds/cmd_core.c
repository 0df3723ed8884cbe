/* cmds/cmd_core.c: node commands (createNode, rename, delete, select, lockNode, parent), queries
 * (ls, objExists, nodeType, listRelatives, listConnections) and the commands of a .ma file's
 * header (requires, fileInfo, currentUnit, currentTime, relationship, file), plus the fallback
 * that skips, with a warning, commands a .ma file uses and sinew does not know. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds_internal.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int push_str(char ***v, uint32_t *n, uint32_t *cap, const char *s) {
  if (sinew__grow((void **)v, cap, *n + 1, sizeof **v)) return SINEW_ENOMEM;
  char *d = sinew__cmds_strdup(s);
  if (!d) return SINEW_ENOMEM;
  (*v)[(*n)++] = d;
  return SINEW_OK;
}

static int set_selection(sinew__scene *sc, const sinew_node_t *nodes, uint32_t n, bool add) {
  /* room first, so that a failure leaves the selection as it was */
  uint32_t most = (add ? sc->nsel : 0) + n;
  if (sinew__grow((void **)&sc->selection, &sc->csel, most ? most : 1, sizeof *sc->selection)) return SINEW_ENOMEM;
  if (!add) sc->nsel = 0;
  for (uint32_t i = 0; i < n; i++) {
    bool dup = false;
    for (uint32_t k = 0; k < sc->nsel; k++)
      dup |= sc->selection[k].index == nodes[i].index && sc->selection[k].gen == nodes[i].gen;
    if (dup) continue;
    if (sinew__grow((void **)&sc->selection, &sc->csel, sc->nsel + 1, sizeof *sc->selection)) return SINEW_ENOMEM;
    sc->selection[sc->nsel++] = nodes[i];
  }
  return SINEW_OK;
}

/* A node named ":name" that a file expects Maya to have (a default node such as
 * :initialShadingGroup): while loading, a placeholder stands in for it. */
static int default_node(sinew_cmd_t *cmd, const char *name, sinew_node_t *out) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  if (sinew__find_node(s, name, out) == SINEW_OK) return SINEW_OK;
  if (!s->loading || name[0] != ':' || strchr(name + 1, ':') || strchr(name, '|'))
    return sinew__cmd_node(cmd, name, out);
  /* a default node of a type sinew implements is made of that type (:ikSystem, which the
   * shared IK solvers are listed in) */
  static const char *const typed[] = {"ikSystem"};
  const char *type = "unknown";
  for (size_t i = 0; i < sizeof typed / sizeof *typed; i++)
    if (strcmp(name + 1, typed[i]) == 0 && sinew_find_node_type(g, typed[i])) type = typed[i];
  bool placeholder = strcmp(type, "unknown") == 0;
  int rc = placeholder ? sinew__placeholder_type(s, cmd, "unknown", false) : SINEW_OK;
  if (rc) return rc;
  if ((rc = sinew_node_create(g, type, name + 1, out))) return sinew__graph_error(cmd, rc);
  sinew__extra *e = sinew__extra_get(s->scene, *out, true);
  if (!e) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory"); /* the transaction takes the node back */
  e->is_default = true;
  sinew__side_changed(s->scene);
  if (placeholder) s->scene->stats.placeholder_nodes++;
  return SINEW_OK;
}

int sinew__lookup_node(sinew_cmd_t *cmd, const char *name, sinew_node_t *out);
int sinew__lookup_node(sinew_cmd_t *cmd, const char *name, sinew_node_t *out) {
  return default_node(cmd, name, out);
}

/* ---- createNode ------------------------------------------------------------------------------- */

static const sinew_cmd_flag_t create_flags[] = {
    {"name", "n", "s", 0},      {"parent", "p", "s", 0}, {"shared", "s", "", 0},
    {"skipSelect", "ss", "", 0}};

/* createNode and shadingNode: a node of `type` named after -name, under -parent, -shared, made
 * current and (unless -skipSelect, or while a file is read) selected. */
static int create_node(sinew_cmd_t *cmd, const char *type) {
  sinew_session_t *s = sinew__session(cmd);
  sinew__scene *sc = s->scene;
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  const char *name = sinew_cmd_flag_string(cmd, "name", NULL);
  const char *parent_name = sinew_cmd_flag_string(cmd, "parent", NULL);
  int rc = sinew__finish_current(s);
  if (rc) return sinew__graph_error(cmd, rc);
  bool shared = sinew_cmd_flag_count(cmd, "shared") > 0;
  if (name && shared) {
    sinew_node_t existing;
    char full[600];
    snprintf(full, sizeof full, "%s%s", name[0] == ':' ? "" : ":", name);
    if (sinew_node_find(g, full, &existing) == SINEW_OK) {
      sc->current = existing;
      return sinew_cmd_result_string(cmd, sinew_node_name(g, existing));
    }
  }
  const sinew_node_type_t *t = sinew_find_node_type(g, type);
  bool placeholder = false;
  if (!t) {
    /* placeholders stand in for the types of a file being read; a script names a type sinew
     * does not know by mistake (Maya: "Unknown object type") */
    if (!s->loading) return sinew_cmd_error(cmd, SINEW_ENOTFOUND, "Unknown object type: %s", type);
    if ((rc = sinew__placeholder_type(s, cmd, type, parent_name != NULL))) return rc;
    t = sinew_find_node_type(g, type);
    placeholder = true;
  } else if (sinew_node_type_flags(t) & SINEW_NODE_TYPE_PLACEHOLDER) {
    placeholder = true;
  }
  if (sinew_node_type_flags(t) & SINEW_NODE_TYPE_ABSTRACT)
    return sinew_cmd_error(cmd, SINEW_EINVAL, "%s is an abstract type; nodes of it cannot be created", type);
  sinew_node_t parent = {0, 0}, n;
  if (parent_name) {
    if ((rc = sinew__cmd_node(cmd, parent_name, &parent))) return rc;
    if (!(sinew_node_type_flags(t) & SINEW_NODE_TYPE_DAG))
      return sinew_cmd_error(cmd, SINEW_EINVAL, "-parent %s: %s nodes are not DAG nodes", parent_name, type);
  }
  /* while a file is imported: in its namespace, or with its prefix on a clash */
  char *actual = NULL;
  if ((rc = sinew__import_node_name(s, name, type, shared, &actual)))
    return sinew_cmd_error(cmd, rc, "out of memory");
  if (parent_name) rc = sinew_node_create_under(g, type, actual ? actual : name, parent, &n);
  else rc = sinew_node_create(g, type, actual ? actual : name, &n);
  sinew_free(actual);
  if (rc) return sinew__graph_error(cmd, rc);
  /* the file's later lines mean this node by the name the file gave it */
  if ((rc = sinew__import_record(s, name && name[0] && name[strlen(name) - 1] != '#' ? name : NULL, n)))
    return sinew_cmd_error(cmd, rc, "out of memory");
  if (placeholder) sc->stats.placeholder_nodes++;
  sc->current = n;
  if (!sinew_cmd_flag_count(cmd, "skipSelect") && !s->loading) set_selection(sc, &n, 1, false);
  char buf[512];
  return sinew_cmd_result_string(cmd, sinew__node_label(g, n, buf, sizeof buf));
}

static int cmd_create_node(sinew_cmd_t *cmd) {
  if (sinew_cmd_argc(cmd) != 1) return sinew_cmd_error(cmd, SINEW_EINVAL, "give exactly one node type");
  return create_node(cmd, sinew_cmd_arg_string(cmd, 0));
}

/* shadingNode -asUtility multiplyDivide: createNode for the nodes Maya files under a render
 * category (utilities, shaders, textures, lights, post-process, rendering). Maya also connects
 * the node's .message to the scene's default list of that category (defaultRenderUtilityList1
 * and the like); sinew's scenes have no such lists, so the node is made alone (a saved scene
 * reads back the same either way). Exactly one category flag, as Maya. */
static const sinew_cmd_flag_t shading_flags[] = {
    {"name", "n", "s", 0},          {"parent", "p", "s", 0},        {"shared", "s", "", 0},
    {"skipSelect", "ss", "", 0},    {"asUtility", "au", "", 0},     {"asShader", "as", "", 0},
    {"asTexture", "at", "", 0},     {"asLight", "al", "", 0},       {"asPostProcess", "app", "", 0},
    {"asRendering", "ar", "", 0}};

static int cmd_shading_node(sinew_cmd_t *cmd) {
  static const char *const cats[] = {"asUtility", "asShader", "asTexture", "asLight", "asPostProcess", "asRendering"};
  int ncat = 0;
  for (size_t i = 0; i < COUNT(cats); i++) ncat += sinew_cmd_flag_count(cmd, cats[i]) > 0;
  if (ncat != 1)
    return sinew_cmd_error(cmd, SINEW_EINVAL,
                           "give exactly one of -asUtility, -asShader, -asTexture, -asLight, -asPostProcess, "
                           "-asRendering");
  if (sinew_cmd_argc(cmd) != 1) return sinew_cmd_error(cmd, SINEW_EINVAL, "give exactly one node type");
  return create_node(cmd, sinew_cmd_arg_string(cmd, 0));
}

/* ---- rename ------------------------------------------------------------------------------------- */

static const sinew_cmd_flag_t rename_flags[] = {
    {"uuid", "uid", "s", 0}, {"ignoreShape", "is", "", 0}};

static bool type_matches(sinew_graph_t *g, sinew_node_t n, const char *type, bool exact);

/* The length of a name without its trailing digits. */
static size_t digits_start(const char *name) {
  size_t k = strlen(name);
  while (k && name[k - 1] >= '0' && name[k - 1] <= '9') k--;
  return k;
}

/* Maya renames the shapes below a renamed transform that are named after it: "rename
 * nurbsSphere1 ball" makes nurbsSphereShape1 ballShape (Autodesk's example). Two forms are
 * recognised, the first winning: old + "Shape" (bar -> bar1 makes barShape bar1Shape), and the
 * old name's trailing number after "Shape" (pCube1 -> bar1 makes pCubeShape1 barShape1).
 * Other shapes keep their names. A clash gets a number as any rename does. */
static int rename_shapes(sinew_graph_t *g, sinew_node_t n, const char *oldname, const char *newname) {
  size_t nk = sinew_node_children(g, n, NULL, 0);
  if (!nk) return SINEW_OK;
  sinew_node_t *kids = sinew_malloc(nk * sizeof *kids);
  size_t cap = strlen(oldname) + strlen(newname) + 16;
  char *want = sinew_malloc(cap), *form = sinew_malloc(cap);
  int rc = kids && want && form ? SINEW_OK : SINEW_ENOMEM;
  if (!rc) sinew_node_children(g, n, kids, nk);
  size_t ob = digits_start(oldname), nb = digits_start(newname);
  for (size_t i = 0; i < nk && !rc; i++) {
    if (!type_matches(g, kids[i], "shape", false)) continue;
    const char *name = sinew_node_name(g, kids[i]);
    snprintf(form, cap, "%sShape", oldname);
    if (strcmp(name, form) == 0) {
      snprintf(want, cap, "%sShape", newname);
    } else {
      snprintf(form, cap, "%.*sShape%s", (int)ob, oldname, oldname + ob);
      if (strcmp(name, form) != 0) continue;
      snprintf(want, cap, "%.*sShape%s", (int)nb, newname, newname + nb);
    }
    rc = sinew_node_rename(g, kids[i], want);
  }
  sinew_free(kids);
  sinew_free(want);
  sinew_free(form);
  return rc;
}

static int cmd_rename(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  const char *uid = sinew_cmd_flag_string(cmd, "uuid", NULL);
  size_t argc = sinew_cmd_argc(cmd);
  if (uid) {
    /* rename -uid "..." [node]: kept so that saving writes it back */
    sinew_node_t n = s->scene->current;
    int rc;
    if (argc >= 1 && (rc = sinew__cmd_node(cmd, sinew_cmd_arg_string(cmd, 0), &n))) return rc;
    if (!sinew_node_valid(g, n)) return sinew_cmd_error(cmd, SINEW_EINVAL, "-uuid: no current node");
    sinew__extra *e = sinew__extra_get(s->scene, n, true);
    char *d = sinew__cmds_strdup(uid);
    if (!e || !d) {
      sinew_free(d);
      return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    }
    sinew_free(e->uid);
    e->uid = d;
    sinew__side_changed(s->scene);
    return SINEW_OK;
  }
  sinew_node_t n;
  const char *newname;
  int rc;
  if (argc == 2) {
    if ((rc = sinew__cmd_node(cmd, sinew_cmd_arg_string(cmd, 0), &n))) return rc;
    newname = sinew_cmd_arg_string(cmd, 1);
  } else if (argc == 1 && s->scene->nsel) {
    n = s->scene->selection[0];
    newname = sinew_cmd_arg_string(cmd, 0);
  } else {
    return sinew_cmd_error(cmd, SINEW_EINVAL, "usage: rename <node> <newName>");
  }
  /* a node an imported file made: renamed in the import's namespace (or with its prefix), and
   * the file's later lines mean it by the new name */
  char *oldname = sinew__cmds_strdup(sinew_node_name(g, n));
  if (!oldname) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  bool own = sinew__import_owns(s, n);
  char *actual = NULL;
  if (own && (rc = sinew__import_node_name(s, newname, NULL, false, &actual))) {
    sinew_free(oldname);
    return sinew_cmd_error(cmd, rc, "out of memory");
  }
  char *old = own ? sinew_malloc(strlen(sinew_node_name(g, n)) + 1) : NULL;
  if (own && !old) {
    sinew_free(actual);
    sinew_free(oldname);
    return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  }
  if (old) strcpy(old, sinew_node_name(g, n));
  rc = sinew_node_rename(g, n, actual ? actual : newname);
  sinew_free(actual);
  bool automatic = !newname[0] || newname[strlen(newname) - 1] == '#';
  if (!rc && own && (rc = sinew__import_record(s, automatic ? NULL : newname, n))) {
    sinew_node_rename(g, n, old);
    sinew_free(old);
    sinew_free(oldname);
    return sinew_cmd_error(cmd, rc, "out of memory");
  }
  if (!rc && !own && !sinew_cmd_flag_count(cmd, "ignoreShape") && sinew_node_type_is_a(sinew_node_type(g, n), "transform"))
    rc = rename_shapes(g, n, oldname, sinew_node_name(g, n));
  sinew_free(old);
  sinew_free(oldname);
  if (rc) return sinew__graph_error(cmd, rc);
  return sinew_cmd_result_string(cmd, sinew_node_name(g, n));
}

/* ---- delete ---------------------------------------------------------------------------------------- */

static const sinew_cmd_flag_t delete_flags[] = {
    {"constructionHistory", "ch", "", 0}, {"all", "all", "", 0}, {"hierarchy", "hi", "s", 0}};

static int cmd_delete(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  size_t argc = sinew_cmd_argc(cmd);
  bool history = sinew_cmd_flag_count(cmd, "constructionHistory");
  if (sinew_cmd_flag_count(cmd, "all") || sinew_cmd_flag_count(cmd, "hierarchy"))
    return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "-%s is not supported", sinew_cmd_flag_count(cmd, "all") ? "all" : "hierarchy");
  size_t count = argc ? argc : s->scene->nsel;
  if (!count) return sinew_cmd_error(cmd, SINEW_EINVAL, "nothing to delete (no names and nothing selected)");
  sinew_node_t *nodes = sinew_malloc(count * sizeof *nodes);
  if (!nodes) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  int rc = SINEW_OK;
  size_t k = 0;
  for (size_t i = 0; i < count && !rc; i++) {
    if (argc) rc = sinew__cmd_node(cmd, sinew_cmd_arg_string(cmd, i), &nodes[k++]);
    else if (sinew_node_valid(g, s->scene->selection[i])) nodes[k++] = s->scene->selection[i]; /* not gone already */
  }
  if (!rc && !k) rc = sinew_cmd_error(cmd, SINEW_EINVAL, "nothing to delete (the selected nodes are gone)");
  count = k;
  /* the scene's time node is a default node, as in Maya: without it nothing follows the frame,
   * and a bake would write the same pose for every frame */
  sinew_node_t t;
  for (size_t i = 0; i < count && !rc; i++)
    if (sinew_node_type_is_a(sinew_node_type(g, nodes[i]), "time") && !sinew_time_node(g, &t) &&
        t.index == nodes[i].index && t.gen == nodes[i].gen)
      rc = sinew_cmd_error(cmd, SINEW_EINVAL, "%s is the scene's time node (a default node) and cannot be deleted",
                           sinew_node_name(g, nodes[i]));
  /* one call, all or nothing: a locked node anywhere in the subtrees (named in the message),
   * or an allocation failing, deletes none of them; the graph walks the subtrees without
   * recursion, so a hierarchy of any depth is fine */
  if (!rc && history) rc = sinew__delete_history(cmd, nodes, count);
  else if (!rc && (rc = sinew_node_delete_many(g, nodes, count))) rc = sinew__graph_error(cmd, rc);
  sinew_free(nodes);
  return rc;
}

/* ---- select ------------------------------------------------------------------------------------------ */

static const sinew_cmd_flag_t select_flags[] = {
    {"noExpand", "ne", "", 0},        {"replace", "r", "", 0},           {"add", "add", "", 0},
    {"deselect", "d", "", 0},         {"clear", "cl", "", 0},            {"toggle", "tgl", "", 0},
    {"all", "all", "", 0},            {"hierarchy", "hi", "", 0},        {"addFirst", "af", "", 0},
    {"allDagObjects", "ado", "", 0},  {"allDependencyNodes", "adn", "", 0}, {"visible", "vis", "", 0}};

static bool name_matches(sinew_graph_t *g, sinew_node_t n, const char *pattern, bool recursive);
static bool intermediate(sinew_graph_t *g, sinew_node_t n);

static bool same(sinew_node_t a, sinew_node_t b) { return a.index == b.index && a.gen == b.gen; }

/* A growing list of nodes, each once. */
typedef struct node_list {
  sinew_node_t *v;
  uint32_t n, cap;
} node_list;

static int node_list_add(node_list *l, sinew_node_t n) {
  for (uint32_t i = 0; i < l->n; i++)
    if (same(l->v[i], n)) return SINEW_OK;
  if (sinew__grow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v)) return SINEW_ENOMEM;
  l->v[l->n++] = n;
  return SINEW_OK;
}

/* select -hi: a node and every DAG node below it, parents before children (a pre-order walk
 * with its own stack, so a hierarchy of any depth is fine). */
static int add_hierarchy(sinew_graph_t *g, node_list *l, sinew_node_t n) {
  node_list stack = {0};
  int rc = node_list_add(&stack, n);
  while (!rc && stack.n) {
    sinew_node_t x = stack.v[--stack.n];
    if ((rc = node_list_add(l, x))) break;
    size_t nk = sinew_node_children(g, x, NULL, 0);
    if (!nk) continue;
    if (sinew__grow((void **)&stack.v, &stack.cap, stack.n + (uint32_t)nk, sizeof *stack.v)) {
      rc = SINEW_ENOMEM;
      break;
    }
    /* children pushed last first, so the first is walked first */
    sinew_node_children(g, x, stack.v + stack.n, nk);
    for (size_t a = 0, b = nk - 1; a < b; a++, b--) {
      sinew_node_t t = stack.v[stack.n + a];
      stack.v[stack.n + a] = stack.v[stack.n + b];
      stack.v[stack.n + b] = t;
    }
    stack.n += (uint32_t)nk;
  }
  sinew_free(stack.v);
  return rc;
}

/* One object named to select: a set stands for its members unless -ne ("When selecting a set
 * as in "select set1", the behaviour is for all the members of the set to become selected
 * instead of the set itself"); -hi adds what is below each. Fails the command with its message. */
static int select_add(sinew_cmd_t *cmd, node_list *l, sinew_node_t n, bool hi, bool expand) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  sinew_node_t *members = NULL;
  uint32_t count = 1;
  int rc = SINEW_OK;
  if (expand && sinew_node_type_is_a(sinew_node_type(g, n), "objectSet") &&
      (rc = sinew__set_members(cmd, n, &members, &count)))
    return rc;
  for (uint32_t i = 0; i < count && !rc; i++) {
    sinew_node_t x = members ? members[i] : n;
    rc = hi ? add_hierarchy(g, l, x) : node_list_add(l, x);
  }
  sinew_free(members);
  return rc ? sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory") : SINEW_OK;
}

/* Whether select -vis keeps a node: a DAG node shows when it and every DAG ancestor have
 * visibility on (and it is no intermediate object); a node outside the DAG is not hidden. */
static bool select_visible(sinew_graph_t *g, sinew_node_t n) {
  if (!sinew_node_type_is_a(sinew_node_type(g, n), "dagNode")) return true;
  if (intermediate(g, n)) return false;
  for (sinew_node_t a = n; sinew_node_valid(g, a); a = sinew_node_parent(g, a)) {
    uint32_t v = sinew_node_attr(g, a, "visibility");
    bool on = true;
    if (v != UINT32_MAX) {
      sinew_plug_t p = sinew_plug_make(a, v, 0, NULL);
      sinew_get_bool(g, &p, &on);
    }
    if (!on) return false;
  }
  return true;
}

/* -all (every node), -ado (the top-level DAG objects) and -adn (the nodes outside the DAG): as
 * Maya, only nodes that can be deleted, so not the scene's time node and default nodes. */
static int select_every(sinew_cmd_t *cmd, node_list *l, bool dag_roots, bool dg) {
  sinew__scene *sc = sinew__session(cmd)->scene;
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  sinew_node_t it = {0, 0}, t = {0, 0};
  bool has_time = sinew_time_node(g, &t) == SINEW_OK;
  int rc = SINEW_OK;
  while (sinew_node_next(g, &it) && !rc) {
    sinew__extra *e = sinew__extra_get(sc, it, false);
    if ((e && e->is_default) || (has_time && same(it, t))) continue;
    bool dag = sinew_node_type_is_a(sinew_node_type(g, it), "dagNode");
    if ((dag && dag_roots && (dg || !sinew_node_valid(g, sinew_node_parent(g, it)))) || (!dag && dg))
      rc = node_list_add(l, it);
  }
  return rc ? sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory") : SINEW_OK;
}

/* select [-r | -add | -af | -d | -tgl] [-hi] [-ne] [-vis] objects | -all | -ado | -adn, -cl:
 * Maya's forms. Names may be patterns ("sphere*"), each of which must match a node; every name
 * is resolved before the selection changes, so a missing object leaves it as it was. */
static int cmd_select(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  sinew__scene *sc = s->scene;
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  int rc = sinew__finish_current(s);
  if (rc) return sinew__graph_error(cmd, rc);
  const char *modes[] = {"replace", "add", "addFirst", "deselect", "toggle"};
  int nmodes = 0;
  for (int i = 0; i < 5; i++) nmodes += sinew_cmd_flag_count(cmd, modes[i]) > 0;
  if (nmodes > 1) return sinew_cmd_error(cmd, SINEW_EINVAL, "-replace, -add, -addFirst, -deselect and -toggle go one at a time");
  size_t argc = sinew_cmd_argc(cmd);
  if (sinew_cmd_flag_count(cmd, "clear")) {
    if (argc || nmodes) return sinew_cmd_error(cmd, SINEW_EINVAL, "-clear takes no objects and no other mode");
    sc->nsel = 0;
    return SINEW_OK;
  }
  bool all = sinew_cmd_flag_count(cmd, "all"), ado = sinew_cmd_flag_count(cmd, "allDagObjects"),
       adn = sinew_cmd_flag_count(cmd, "allDependencyNodes");
  if ((all || ado || adn) && argc)
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-%s selects every node of its kind; it takes no objects",
                           all ? "all" : ado ? "allDagObjects" : "allDependencyNodes");
  node_list l = {0};
  bool hi = sinew_cmd_flag_count(cmd, "hierarchy"), ne = sinew_cmd_flag_count(cmd, "noExpand"), set_current = false;
  sinew_node_t current = {0, 0};
  /* -all: every node (Maya: the deletable ones); -ado the DAG's roots; -adn the rest */
  if (all || ado || adn) rc = select_every(cmd, &l, all || ado, all || adn);
  for (size_t i = 0; i < argc && !rc; i++) {
    const char *name = sinew_cmd_arg_string(cmd, i);
    if (strpbrk(name, "*?")) {
      bool any = false;
      sinew_node_t it = {0, 0};
      while (sinew_node_next(g, &it) && !rc)
        if (name_matches(g, it, name, false)) {
          any = true;
          rc = select_add(cmd, &l, it, hi, !ne);
        }
      if (!rc && !any) rc = sinew_cmd_error(cmd, SINEW_ENOTFOUND, "no object matches name: %s", name);
      continue;
    }
    sinew_node_t n;
    if ((rc = default_node(cmd, name, &n))) break;
    if (ne && argc == 1) current = n, set_current = true;
    rc = select_add(cmd, &l, n, hi, !ne);
  }
  /* -vis: of the named nodes, those that show */
  if (!rc && sinew_cmd_flag_count(cmd, "visible")) {
    uint32_t k = 0;
    for (uint32_t i = 0; i < l.n; i++)
      if (select_visible(g, l.v[i])) l.v[k++] = l.v[i];
    l.n = k;
  }
  if (!rc) {
    if (set_current) sc->current = current; /* -ne :name makes a default node current */
    bool desel = sinew_cmd_flag_count(cmd, "deselect"), toggle = sinew_cmd_flag_count(cmd, "toggle"),
         first = sinew_cmd_flag_count(cmd, "addFirst");
    if (desel || toggle || first) {
      /* the new list whole before the selection changes: (-af) the named ones first, then the
       * selected ones that stay (not named, or -af), then (-tgl) the named ones that were not
       * selected */
      node_list out = {0};
      for (uint32_t i = 0; i < l.n && first && !rc; i++) rc = node_list_add(&out, l.v[i]);
      for (uint32_t k = 0; k < sc->nsel && !rc; k++) {
        bool named = false;
        for (uint32_t i = 0; i < l.n && !named && !first; i++) named = same(sc->selection[k], l.v[i]);
        if (!named) rc = node_list_add(&out, sc->selection[k]);
      }
      for (uint32_t i = 0; i < l.n && toggle && !rc; i++) {
        bool was = false;
        for (uint32_t k = 0; k < sc->nsel && !was; k++) was = same(sc->selection[k], l.v[i]);
        if (!was) rc = node_list_add(&out, l.v[i]);
      }
      if (!rc) rc = set_selection(sc, out.v, out.n, false);
      if (rc) rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
      sinew_free(out.v);
    } else if (set_selection(sc, l.v, l.n, sinew_cmd_flag_count(cmd, "add") > 0)) {
      rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    }
  }
  sinew_free(l.v);
  return rc;
}

/* ---- lockNode -------------------------------------------------------------------------------------------- */

static const sinew_cmd_flag_t lock_flags[] = {
    {"lock", "l", "b", 0},           {"query", "q", "", SINEW_CMD_QUERY},
    {"lockName", "ln", "b", 0},      {"lockUnpublished", "lu", "b", 0},
    {"ignoreComponents", "ic", "", 0}};

static int cmd_lock_node(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  size_t argc = sinew_cmd_argc(cmd);
  bool lock = sinew_cmd_flag_bool(cmd, "lock", true);
  size_t count = argc ? argc : 1;
  sinew_node_t *nodes = sinew_malloc(count * sizeof *nodes);
  if (!nodes) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  int rc = SINEW_OK;
  /* every name is resolved before any node changes */
  for (size_t i = 0; i < count && !rc; i++) {
    if (argc) {
      rc = sinew__cmd_node(cmd, sinew_cmd_arg_string(cmd, i), &nodes[i]);
    } else {
      nodes[i] = s->loading ? s->scene->current : (s->scene->nsel ? s->scene->selection[0] : (sinew_node_t){0, 0});
      if (!sinew_node_valid(g, nodes[i])) rc = sinew_cmd_error(cmd, SINEW_EINVAL, "no node given (and nothing selected)");
    }
  }
  for (size_t i = 0; i < count && !rc; i++) {
    if (sinew_cmd_query(cmd)) rc = sinew_cmd_result_append_int(cmd, sinew_node_locked(g, nodes[i]));
    else if ((rc = sinew_node_set_locked(g, nodes[i], lock))) rc = sinew__graph_error(cmd, rc);
  }
  sinew_free(nodes);
  return rc;
}

/* ---- queries ---------------------------------------------------------------------------------------------- */

static bool type_matches(sinew_graph_t *g, sinew_node_t n, const char *type, bool exact) {
  const sinew_node_type_t *t = sinew_node_type(g, n);
  if (!t) return false;
  if (exact) return strcmp(sinew_node_type_name(t), type) == 0;
  if (strcmp(type, "shape") == 0)
    return sinew_node_type_is_a(t, "dagNode") && !sinew_node_type_is_a(t, "transform");
  if (strcmp(type, "geometryShape") == 0 || strcmp(type, "deformableShape") == 0 ||
      strcmp(type, "controlPoint") == 0 || strcmp(type, "surfaceShape") == 0)
    return sinew_node_type_is_a(t, "mesh") || strcmp(sinew_node_type_name(t), "nurbsCurve") == 0 ||
           strcmp(sinew_node_type_name(t), "nurbsSurface") == 0;
  return sinew_node_type_is_a(t, type);
}

static const sinew_cmd_flag_t ls_flags[] = {
    {"type", "typ", "s", SINEW_CMD_MULTI}, {"exactType", "et", "s", SINEW_CMD_MULTI},
    {"selection", "sl", "", 0},            {"dag", "dag", "", 0},
    {"long", "l", "", 0},                  {"shapes", "s", "", 0},
    {"transforms", "tr", "", 0},           {"showType", "st", "", 0},
    {"objectsOnly", "o", "", 0},           {"intermediateObjects", "io", "", 0},
    {"noIntermediate", "ni", "", 0},       {"recursive", "r", "b", 0},
    {"flatten", "fl", "", 0},              {"shortNames", "sn", "", 0}};

static int add_name(sinew_cmd_t *cmd, sinew_graph_t *g, sinew_node_t n, bool full, bool show_type) {
  char buf[512];
  int rc;
  if (full) {
    char *p = sinew_node_path(g, n);
    rc = sinew_cmd_result_append_string(cmd, p ? p : sinew_node_name(g, n));
    sinew_free(p);
  } else {
    rc = sinew_cmd_result_append_string(cmd, sinew__node_label(g, n, buf, sizeof buf));
  }
  if (!rc && show_type) rc = sinew_cmd_result_append_string(cmd, sinew_node_type_name(sinew_node_type(g, n)));
  return rc;
}

static bool intermediate(sinew_graph_t *g, sinew_node_t n) {
  uint32_t io = sinew_node_attr(g, n, "intermediateObject");
  if (io == UINT32_MAX) return false;
  sinew_plug_t p = sinew_plug_make(n, io, 0, NULL);
  bool b = false;
  sinew_get_bool(g, &p, &b);
  return b;
}

/* Maya's name wildcards: '*' (any run) and '?' (one character) stay within one level, so they
 * never match a namespace separator ':' or a DAG separator '|' ("ns:*GRP" matches
 * "ns:model_GRP", not "ns:inner:model_GRP"). So the separators of the pattern and of the name
 * must be the same, one for one, and the pieces between them match separately. */
static bool is_separator(char c) { return c == ':' || c == '|'; }

/* A piece without separators: greedy, going back only to the last '*' (what an earlier '*'
 * could take instead, the last one can take too), so it takes at most len(p) * len(s) steps
 * where trying every '*' at every place took exponential time. */
static bool glob_piece(const char *p, const char *pe, const char *s, const char *se) {
  const char *star = NULL, *mark = NULL;
  while (s < se) {
    if (p < pe && *p == '*') {
      star = ++p;
      mark = s;
    } else if (p < pe && (*p == '?' || *p == *s)) {
      p++;
      s++;
    } else if (star) {
      p = star; /* the last '*' takes one more character */
      s = ++mark;
    } else {
      return false;
    }
  }
  while (p < pe && *p == '*') p++;
  return p == pe;
}

static bool glob(const char *p, const char *pe, const char *s, const char *se) {
  for (;;) {
    const char *pn = p, *sn = s;
    while (pn < pe && !is_separator(*pn)) pn++;
    while (sn < se && !is_separator(*sn)) sn++;
    if (!glob_piece(p, pn, s, sn)) return false;
    if (pn == pe || sn == se) return pn == pe && sn == se;
    if (*pn != *sn) return false;
    p = pn + 1;
    s = sn + 1;
  }
}

bool sinew__wildcard_match(const char *pattern, const char *name) {
  return glob(pattern, pattern + strlen(pattern), name, name + strlen(name));
}

/* One level of a pattern against one name: a leading ':' is the root namespace (as without
 * it); recursive (ls -r) lets a pattern without a namespace match a name in any namespace. */
static bool level_matches(const char *p, const char *pe, const char *s, const char *se, bool recursive) {
  bool rooted = p < pe && *p == ':';
  if (rooted) p++;
  if (recursive && !rooted && !memchr(p, ':', (size_t)(pe - p)))
    for (const char *c = se; c > s; c--)
      if (c[-1] == ':') {
        s = c;
        break;
      }
  return glob(p, pe, s, se);
}

/* A pattern against a node: its short name, or with '|' its DAG path level by level ("|a|*"
 * from the root, "a|*" as the tail of the path). */
static bool name_matches(sinew_graph_t *g, sinew_node_t n, const char *pattern, bool recursive) {
  const char *name = sinew_node_name(g, n);
  if (!strchr(pattern, '|')) return level_matches(pattern, pattern + strlen(pattern), name, name + strlen(name), recursive);
  char *path = sinew_node_path(g, n);
  if (!path) return false;
  /* from the last level back */
  const char *pe = pattern + strlen(pattern), *se = path + strlen(path);
  bool ok = true;
  for (;;) {
    const char *pb = pe, *sb = se;
    while (pb > pattern && pb[-1] != '|') pb--;
    while (sb > path && sb[-1] != '|') sb--;
    if (!level_matches(pb, pe, sb, se, recursive)) {
      ok = false;
      break;
    }
    if (pb == pattern) break;  /* a tail: matched */
    if (sb == path) {
      ok = false;              /* the pattern has more levels than the path */
      break;
    }
    pe = pb - 1;
    se = sb - 1;
    if (pe == pattern) {       /* "|...": the path must end here too */
      ok = se == path;
      break;
    }
  }
  sinew_free(path);
  return ok;
}

static int cmd_ls(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  size_t ntype = sinew_cmd_flag_count(cmd, "type"), nexact = sinew_cmd_flag_count(cmd, "exactType");
  bool full = sinew_cmd_flag_count(cmd, "long"), show = sinew_cmd_flag_count(cmd, "showType");
  bool dag = sinew_cmd_flag_count(cmd, "dag"), shapes = sinew_cmd_flag_count(cmd, "shapes"),
       transforms = sinew_cmd_flag_count(cmd, "transforms");
  bool io = sinew_cmd_flag_count(cmd, "intermediateObjects"), ni = sinew_cmd_flag_count(cmd, "noIntermediate");
  bool recursive = sinew_cmd_flag_bool(cmd, "recursive", false);
  size_t argc = sinew_cmd_argc(cmd);
  int rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY);
  if (rc) return rc;
  sinew_node_t it = {0, 0};
  uint32_t k = 0;
  for (;;) {
    sinew_node_t n;
    if (sinew_cmd_flag_count(cmd, "selection")) {
      if (k >= s->scene->nsel) break;
      n = s->scene->selection[k++];
    } else {
      if (!sinew_node_next(g, &it)) break;
      n = it;
    }
    const sinew_node_type_t *t = sinew_node_type(g, n);
    if (dag && !sinew_node_type_is_a(t, "dagNode")) continue;
    if (shapes && !type_matches(g, n, "shape", false)) continue;
    if (transforms && !sinew_node_type_is_a(t, "transform")) continue;
    if (io && !intermediate(g, n)) continue;
    if (ni && intermediate(g, n)) continue;
    bool ok = ntype + nexact == 0;
    for (size_t i = 0; i < ntype && !ok; i++)
      ok = type_matches(g, n, sinew_value_string(sinew_cmd_flag_arg(cmd, "type", i, 0)), false);
    for (size_t i = 0; i < nexact && !ok; i++)
      ok = type_matches(g, n, sinew_value_string(sinew_cmd_flag_arg(cmd, "exactType", i, 0)), true);
    if (!ok) continue;
    if (argc) {
      bool m = false;
      for (size_t i = 0; i < argc && !m; i++) m = name_matches(g, n, sinew_cmd_arg_string(cmd, i), recursive);
      if (!m) continue;
    }
    if (sinew_cmd_flag_count(cmd, "shortNames") && !full) {
      /* -sn: the short name even where it is shared */
      rc = sinew_cmd_result_append_string(cmd, sinew_node_name(g, n));
      if (!rc && show) rc = sinew_cmd_result_append_string(cmd, sinew_node_type_name(sinew_node_type(g, n)));
      if (rc) return rc;
    } else if ((rc = add_name(cmd, g, n, full, show))) {
      return rc;
    }
  }
  return SINEW_OK;
}

/* "node.attr" without a message: the node as commands find it (an imported file's names first). */
static int find_plug(sinew_session_t *s, const char *text, sinew_plug_t *out) {
  const char *dot = strchr(text, '.');
  if (!dot || dot == text) return SINEW_EINVAL;
  size_t n = (size_t)(dot - text);
  char *name = sinew_malloc(n + 1);
  if (!name) return SINEW_ENOMEM;
  memcpy(name, text, n);
  name[n] = 0;
  sinew_node_t node;
  int rc = sinew__find_node(s, name, &node);
  sinew_free(name);
  return rc ? rc : sinew_plug_parse_attr(s->scene->graph, node, dot + 1, out);
}

static int cmd_obj_exists(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  if (sinew_cmd_argc(cmd) != 1) return sinew_cmd_error(cmd, SINEW_EINVAL, "give one name");
  const char *name = sinew_cmd_arg_string(cmd, 0);
  sinew_node_t n;
  sinew_plug_t p;
  bool found = sinew__find_node(s, name, &n) == SINEW_OK || find_plug(s, name, &p) == SINEW_OK;
  return sinew_cmd_result_int(cmd, found);
}

static const sinew_cmd_flag_t node_type_flags[] = {{"inherited", "i", "", 0}, {"apiType", "api", "", 0}};

static int cmd_node_type(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  if (sinew_cmd_argc(cmd) != 1) return sinew_cmd_error(cmd, SINEW_EINVAL, "give one node");
  const char *name = sinew_cmd_arg_string(cmd, 0);
  /* Maya's API type names (kJoint, kSkinClusterFilter ...) are not known to sinew */
  if (sinew_cmd_flag_count(cmd, "apiType"))
    return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "-apiType is not supported (sinew does not know Maya's API type names)");
  sinew_node_t n;
  sinew_plug_t p;
  int rc;
  if (find_plug(sinew__session(cmd), name, &p) == SINEW_OK)
    n = p.node;
  else if ((rc = sinew__cmd_node(cmd, name, &n)))
    return rc;
  const sinew_node_type_t *t = sinew_node_type(g, n);
  if (!sinew_cmd_flag_count(cmd, "inherited")) return sinew_cmd_result_string(cmd, sinew_node_type_name(t));
  const char *chain[32];
  int k = 0;
  for (; t && k < 32; t = sinew_node_type_parent(t)) chain[k++] = sinew_node_type_name(t);
  for (int i = k - 1; i >= 0; i--)
    if (strcmp(chain[i], "node") && (rc = sinew_cmd_result_append_string(cmd, chain[i]))) return rc;
  return SINEW_OK;
}

/* ---- parent ------------------------------------------------------------------------------------------------ */

static const sinew_cmd_flag_t parent_flags[] = {
    {"world", "w", "", 0},        {"relative", "r", "", 0},      {"absolute", "a", "", 0},
    {"shape", "s", "", 0},        {"addObject", "add", "", 0},   {"noConnections", "nc", "", 0},
    {"noInvScale", "nis", "", 0}, {"removeObject", "rm", "", 0}};

static int cmd_parent(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  /* -addObject gives a node a second parent (an instance) and -removeObject takes one of its
   * instances away; sinew's DAG gives each node one parent, so neither has a faithful subset
   * (removing the only instance of a node is not the same as deleting it in Maya's undo and
   * naming, and a script that means it says delete) */
  bool add = sinew_cmd_flag_count(cmd, "addObject"), rm = sinew_cmd_flag_count(cmd, "removeObject");
  if (add || rm) {
    const char *flag = add ? "-addObject" : "-removeObject";
    if (s->loading) {
      sinew__warn_once(s, cmd, SINEW_LOG_FILE_WARNING, add ? "parent -addObject" : "parent -removeObject",
                       "parent %s: instancing is not supported (a node has one parent in sinew); the line is skipped", flag);
      return SINEW_OK;
    }
    return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED,
                           "%s (-%s) is not supported: it %s, and sinew has no instancing (a node has one parent)",
                           flag, add ? "add" : "rm", add ? "makes an instance under a second parent" : "removes an instance");
  }
  /* Maya's forms: `parent child... parent`, `parent -w child...`; with one object the selected
   * objects go under it, with none the selected objects go under the last selected one (or,
   * with -w, to the world) */
  bool world = sinew_cmd_flag_count(cmd, "world");
  size_t argc = sinew_cmd_argc(cmd), nsel = s->scene->nsel;
  bool from_sel = world ? argc == 0 : argc < 2;
  sinew_node_t parent = {0, 0};
  int rc;
  if (!world && argc == 0 && nsel < 2)
    return sinew_cmd_error(cmd, SINEW_EINVAL, "select the objects and then their new parent, or name them: parent <child>... <parent>");
  if (!world && argc == 1 && nsel == 0)
    return sinew_cmd_error(cmd, SINEW_EINVAL, "no child given (and nothing selected): parent <child>... <parent>");
  if (world && argc == 0 && nsel == 0)
    return sinew_cmd_error(cmd, SINEW_EINVAL, "no object given (and nothing selected): parent -w <child>...");
  if (!world) {
    if (argc) rc = sinew__cmd_node(cmd, sinew_cmd_arg_string(cmd, argc - 1), &parent);
    else rc = (parent = s->scene->selection[nsel - 1], SINEW_OK);
    if (rc) return rc;
  }
  size_t nchildren = from_sel ? (world || argc ? nsel : nsel - 1) : (world ? argc : argc - 1);
  sinew_node_t *kids = sinew_malloc((nchildren ? nchildren : 1) * sizeof *kids);
  if (!kids) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  rc = SINEW_OK;
  for (size_t i = 0; i < nchildren && !rc; i++) {
    if (from_sel) kids[i] = s->scene->selection[i];
    else rc = sinew__cmd_node(cmd, sinew_cmd_arg_string(cmd, i), &kids[i]);
  }
  uint32_t flags = sinew_cmd_flag_count(cmd, "relative") ? 0 : SINEW_PARENT_KEEP_WORLD;
  /* check every child first: DAG nodes, and no loop */
  if (!rc && !world && !sinew_node_type_is_a(sinew_node_type(g, parent), "dagNode"))
    rc = sinew_cmd_error(cmd, SINEW_EINVAL, "%s is not a DAG node", sinew_node_name(g, parent));
  for (size_t i = 0; i < nchildren && !rc; i++) {
    if (!sinew_node_type_is_a(sinew_node_type(g, kids[i]), "dagNode")) {
      rc = sinew_cmd_error(cmd, SINEW_EINVAL, "%s is not a DAG node", sinew_node_name(g, kids[i]));
      break;
    }
    for (sinew_node_t a = parent; !world && sinew_node_valid(g, a) && !rc; a = sinew_node_parent(g, a))
      if (a.index == kids[i].index && a.gen == kids[i].gen)
        rc = sinew_cmd_error(cmd, SINEW_ECYCLE, "%s cannot go under %s: %s", sinew_node_name(g, kids[i]),
                             sinew_node_name(g, parent),
                             a.index == parent.index && a.gen == parent.gen ? "a node cannot be its own parent"
                                                                            : "it is a descendant of the node");
  }
  sinew_node_t *old = rc ? NULL : sinew_malloc((nchildren ? nchildren : 1) * sizeof *old);
  if (!rc && !old) rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  size_t done = 0;
  for (size_t i = 0; i < nchildren && !rc; i++) {
    old[i] = sinew_node_parent(g, kids[i]);
    if ((rc = sinew_dag_parent(g, kids[i], parent, flags))) {
      rc = sinew__graph_error(cmd, rc);
      break;
    }
    done = i + 1;
    char buf[512];
    rc = sinew_cmd_result_append_string(cmd, sinew__node_label(g, kids[i], buf, sizeof buf));
  }
  /* a late failure puts back the children already moved, last first */
  if (rc)
    for (size_t i = done; i-- > 0;) sinew_dag_parent(g, kids[i], old[i], flags);
  sinew_free(old);
  sinew_free(kids);
  return rc;
}

/* ---- listRelatives ------------------------------------------------------------------------------------------ */

static const sinew_cmd_flag_t rel_flags[] = {
    {"children", "c", "", 0},       {"parent", "p", "", 0},       {"allDescendents", "ad", "", 0},
    {"shapes", "s", "", 0},         {"type", "typ", "s", SINEW_CMD_MULTI},
    {"fullPath", "f", "", 0},       {"path", "pa", "", 0},        {"allParents", "ap", "", 0},
    {"noIntermediate", "ni", "", 0}};

static int rel_add(sinew_cmd_t *cmd, sinew_graph_t *g, sinew_node_t n) {
  if (sinew_cmd_flag_count(cmd, "shapes") && !type_matches(g, n, "shape", false)) return SINEW_OK;
  if (sinew_cmd_flag_count(cmd, "noIntermediate") && intermediate(g, n)) return SINEW_OK;
  size_t nt = sinew_cmd_flag_count(cmd, "type");
  bool ok = nt == 0;
  for (size_t i = 0; i < nt && !ok; i++)
    ok = type_matches(g, n, sinew_value_string(sinew_cmd_flag_arg(cmd, "type", i, 0)), false);
  if (!ok) return SINEW_OK;
  return add_name(cmd, g, n, sinew_cmd_flag_count(cmd, "fullPath"), false);
}

static int descend(sinew_cmd_t *cmd, sinew_graph_t *g, sinew_node_t n, bool all) {
  size_t nk = sinew_node_children(g, n, NULL, 0);
  if (!nk) return SINEW_OK;
  sinew_node_t *kids = sinew_malloc(nk * sizeof *kids);
  if (!kids) return SINEW_ENOMEM;
  sinew_node_children(g, n, kids, nk);
  int rc = SINEW_OK;
  /* children in order; all descendants as Maya lists them: the reverse of a pre-order walk */
  for (size_t k = 0; k < nk && !rc; k++) {
    size_t i = all ? nk - 1 - k : k;
    if (all) rc = descend(cmd, g, kids[i], true);
    if (!rc) rc = rel_add(cmd, g, kids[i]);
  }
  sinew_free(kids);
  return rc;
}

static int cmd_list_relatives(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  size_t argc = sinew_cmd_argc(cmd);
  size_t count = argc ? argc : s->scene->nsel;
  /* Maya's documentation: -c, -ad, -s, -p and -ap are mutually exclusive. Scripts use -s
   * with -ad or -c as a filter (`listRelatives -ad -s grp`, which Maya runs), so only the
   * directions exclude each other, and -s excludes the two upward ones. */
  const char *modes[] = {"children", "allDescendents", "parent", "allParents", "shapes"};
  const char *first = NULL;
  for (int m = 0; m < 5; m++)
    if (sinew_cmd_flag_count(cmd, modes[m])) {
      bool clash = first && !(m == 4 && (strcmp(first, "children") == 0 || strcmp(first, "allDescendents") == 0));
      if (clash) return sinew_cmd_error(cmd, SINEW_EINVAL, "-%s and -%s cannot be used together", first, modes[m]);
      if (!first) first = modes[m];
    }
  int rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY);
  for (size_t i = 0; i < count && !rc; i++) {
    sinew_node_t n = argc ? (sinew_node_t){0, 0} : s->scene->selection[i];
    if (argc && (rc = sinew__cmd_node(cmd, sinew_cmd_arg_string(cmd, i), &n))) return rc;
    if (sinew_cmd_flag_count(cmd, "parent") || sinew_cmd_flag_count(cmd, "allParents")) {
      sinew_node_t p = sinew_node_parent(g, n);
      if (sinew_node_valid(g, p)) rc = add_name(cmd, g, p, sinew_cmd_flag_count(cmd, "fullPath"), false);
      continue;
    }
    rc = descend(cmd, g, n, sinew_cmd_flag_count(cmd, "allDescendents") > 0);
  }
  return rc;
}

/* ---- listConnections ---------------------------------------------------------------------------------------- */

static const sinew_cmd_flag_t lc_flags[] = {
    {"source", "s", "b", 0},     {"destination", "d", "b", 0}, {"plugs", "p", "b", 0},
    {"connections", "c", "b", 0}, {"type", "t", "s", 0},       {"skipConversionNodes", "scn", "b", 0},
    {"shapes", "sh", "b", 0},    {"exactType", "et", "b", 0},  {"fullNodeName", "fnn", "b", 0}};

typedef struct lc_ctx {
  sinew_cmd_t *cmd;
  sinew_graph_t *g;
  sinew_plug_t filter; /* attr UINT32_MAX: the whole node */
  bool src, dst, plugs, conns, shapes, scn, exact, full;
  const char *type;
  const sinew_plug_t *mine; /* while following a conversion node: the plug on the object */
  sinew_node_t through;     /* the conversion node followed */
  bool upstream;
  int rc;
} lc_ctx;

static bool plug_within(const sinew_graph_t *g, const sinew_plug_t *p, const sinew_plug_t *f) {
  if (p->node.index != f->node.index || p->node.gen != f->node.gen) return false;
  if (f->attr == UINT32_MAX) return true;
  /* p is f or inside it */
  sinew_plug_t q = *p;
  for (;;) {
    if (sinew_plug_equal(&q, f)) return true;
    sinew_plug_t up;
    if (!sinew_plug_parent(g, &q, &up)) return false;
    q = up;
  }
}

/* A node or plug of a result: its shortest unique name, or with -fnn (-fullNodeName) its full
 * DAG path ("|group1|sphere1", "|group1|sphere1.translateX"). */
static const char *lc_label(lc_ctx *x, sinew_node_t n, const sinew_plug_t *p, char *buf, size_t size) {
  if (!x->full) return p ? sinew__plug_label(x->g, p, buf, size) : sinew__node_label(x->g, n, buf, size);
  char *path = sinew_node_path(x->g, p ? p->node : n);
  int k = snprintf(buf, size, "%s%s", path ? path : sinew_node_name(x->g, p ? p->node : n), p ? "." : "");
  sinew_free(path);
  if (p && k >= 0 && (size_t)k < size) sinew_plug_format_attr(x->g, p, false, buf + k, size - (size_t)k);
  return buf;
}

/* One connected plug to report: filtered by -type (-et), then named as Maya names it. */
static void lc_emit(lc_ctx *x, const sinew_plug_t *mine, const sinew_plug_t *other) {
  if (x->type && !type_matches(x->g, other->node, x->type, x->exact)) return;
  char buf[1024];
  if (x->conns) {
    lc_label(x, mine->node, mine, buf, sizeof buf);
    if ((x->rc = sinew_cmd_result_append_string(x->cmd, buf))) return;
  }
  sinew_node_t n = other->node;
  /* "-shapes: Actually return the shape name instead of the transform when the shape is
   * 'selected'. Default false.": a shape is named by its transform unless -sh or -p */
  if (!x->plugs && !x->shapes && type_matches(x->g, n, "shape", false)) {
    sinew_node_t p = sinew_node_parent(x->g, n);
    if (sinew_node_valid(x->g, p) && sinew_node_type_is_a(sinew_node_type(x->g, p), "transform")) n = p;
  }
  lc_label(x, n, x->plugs ? other : NULL, buf, sizeof buf);
  x->rc = sinew_cmd_result_append_string(x->cmd, buf);
}

/* -scn: the far side of the conversion node x->through (its input's source going upstream,
 * its output's destinations going downstream). */
static bool lc_through(void *ud, const sinew_connection_t *c) {
  lc_ctx *x = ud;
  const sinew_plug_t *near = x->upstream ? &c->dst : &c->src, *far = x->upstream ? &c->src : &c->dst;
  if (near->node.index == x->through.index && near->node.gen == x->through.gen) lc_emit(x, x->mine, far);
  return x->rc == SINEW_OK;
}

static bool lc_visit(void *ud, const sinew_connection_t *c) {
  lc_ctx *x = ud;
  const sinew_plug_t *mine = NULL, *other = NULL;
  bool upstream = false;
  if (x->dst && plug_within(x->g, &c->src, &x->filter)) mine = &c->src, other = &c->dst;
  else if (x->src && plug_within(x->g, &c->dst, &x->filter)) mine = &c->dst, other = &c->src, upstream = true;
  if (!mine) return true;
  if (x->scn && sinew_node_type_is_a(sinew_node_type(x->g, other->node), "unitConversion")) {
    lc_ctx y = *x;
    y.mine = mine;
    y.through = other->node;
    y.upstream = upstream;
    sinew_foreach_connection(x->g, other->node, false, lc_through, &y);
    x->rc = y.rc;
    return x->rc == SINEW_OK;
  }
  lc_emit(x, mine, other);
  return x->rc == SINEW_OK;
}

static int cmd_list_connections(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  lc_ctx x = {.cmd = cmd, .g = g};
  x.src = sinew_cmd_flag_bool(cmd, "source", true);
  x.dst = sinew_cmd_flag_bool(cmd, "destination", true);
  x.plugs = sinew_cmd_flag_bool(cmd, "plugs", false);
  x.conns = sinew_cmd_flag_bool(cmd, "connections", false);
  x.shapes = sinew_cmd_flag_bool(cmd, "shapes", false);
  x.scn = sinew_cmd_flag_bool(cmd, "skipConversionNodes", false);
  x.exact = sinew_cmd_flag_bool(cmd, "exactType", false);
  x.full = sinew_cmd_flag_bool(cmd, "fullNodeName", false);
  x.type = sinew_cmd_flag_string(cmd, "type", NULL);
  size_t argc = sinew_cmd_argc(cmd);
  size_t count = argc ? argc : s->scene->nsel;
  int rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY);
  for (size_t i = 0; i < count && !rc; i++) {
    const char *name = argc ? sinew_cmd_arg_string(cmd, i) : NULL;
    if (name && strchr(name, '.')) {
      if ((rc = sinew__cmd_plug(cmd, name, &x.filter))) return rc;
    } else {
      sinew_node_t n = argc ? (sinew_node_t){0, 0} : s->scene->selection[i];
      if (name && (rc = sinew__cmd_node(cmd, name, &n))) return rc;
      x.filter = sinew_plug_make(n, UINT32_MAX, 0, NULL);
    }
    sinew_foreach_connection(g, x.filter.node, false, lc_visit, &x);
    rc = x.rc;
  }
  return rc;
}

/* ---- listHistory ------------------------------------------------------------------------------------------- */

/* listHistory [-f] [-pdo] [-lv n] [nodes]: the nodes upstream of each node (-future:
 * downstream) through connections, the node itself first, breadth-first, each node once. A
 * transform stands for its shapes that are not intermediate objects, as in Maya
 * (`listHistory pCube1` starts at pCubeShape1, not at the pCubeShape1Orig a deformer made).
 * -pruneDagObjects leaves out the DAG nodes met on the way, and does not walk past them (the
 * start is walked from but not listed); -levels limits the steps (0: no limit). Implicit DAG
 * links (parent to child) are not history. */
static const sinew_cmd_flag_t lh_flags[] = {
    {"future", "f", "b", 0}, {"pruneDagObjects", "pdo", "b", 0}, {"levels", "lv", "i", 0},
    {"breadthFirst", "bf", "", 0}, {"interestLevel", "il", "i", 0}};

typedef struct lh_ctx {
  sinew_graph_t *g;
  sinew_node_t *v;
  uint32_t *depth;
  uint32_t n, cap, cap_depth;
  bool future, oom;
  sinew_node_t at;
} lh_ctx;

static bool lh_has(const lh_ctx *x, sinew_node_t n) {
  for (uint32_t i = 0; i < x->n; i++)
    if (x->v[i].index == n.index && x->v[i].gen == n.gen) return true;
  return false;
}

static void lh_push(lh_ctx *x, sinew_node_t n, uint32_t depth) {
  if (x->oom || lh_has(x, n)) return;
  if (sinew__grow((void **)&x->v, &x->cap, x->n + 1, sizeof *x->v) ||
      sinew__grow((void **)&x->depth, &x->cap_depth, x->n + 1, sizeof *x->depth)) {
    x->oom = true;
    return;
  }
  x->v[x->n] = n;
  x->depth[x->n++] = depth;
}

/* One connection of the node being walked: its other end, upstream or (future) downstream. */
static bool lh_visit(void *ud, const sinew_connection_t *c) {
  lh_ctx *x = ud;
  const sinew_plug_t *near = x->future ? &c->src : &c->dst, *far = x->future ? &c->dst : &c->src;
  if (near->node.index == x->at.index && near->node.gen == x->at.gen) lh_push(x, far->node, 0);
  return !x->oom;
}

static bool lh_is_dag(sinew_graph_t *g, sinew_node_t n) {
  return (sinew_node_type_flags(sinew_node_type(g, n)) & SINEW_NODE_TYPE_DAG) != 0;
}

static int cmd_list_history(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  lh_ctx x = {.g = g, .future = sinew_cmd_flag_bool(cmd, "future", false)};
  bool prune = sinew_cmd_flag_bool(cmd, "pruneDagObjects", false);
  double lv = sinew_cmd_flag_double(cmd, "levels", 0, 0);
  if (lv < 0) return sinew_cmd_error(cmd, SINEW_ERANGE, "-levels: %g is negative", lv);
  size_t argc = sinew_cmd_argc(cmd), count = argc ? argc : s->scene->nsel;
  int rc = SINEW_OK;
  /* the starts: each node, or a transform's shapes */
  for (size_t i = 0; i < count && !rc; i++) {
    sinew_node_t n = argc ? (sinew_node_t){0, 0} : s->scene->selection[i];
    if (argc && (rc = sinew__cmd_node(cmd, sinew_cmd_arg_string(cmd, i), &n))) break;
    if (!sinew_node_valid(g, n)) continue;
    size_t nk = sinew_node_children(g, n, NULL, 0);
    bool shapes = false;
    if (nk && sinew_node_type_is_a(sinew_node_type(g, n), "transform")) {
      sinew_node_t *kids = sinew_malloc(nk * sizeof *kids);
      if (!kids) {
        x.oom = true;
        break;
      }
      sinew_node_children(g, n, kids, nk);
      for (size_t k = 0; k < nk; k++) {
        if (sinew_node_type_is_a(sinew_node_type(g, kids[k]), "transform")) continue;
        bool io = false; /* an intermediate shape (a deformer's ShapeOrig) is history, not a start */
        sinew_plug_t pio = sinew__attr_plug(g, kids[k], "intermediateObject");
        if (pio.attr != UINT32_MAX && !sinew_get_bool(g, &pio, &io) && io) continue;
        lh_push(&x, kids[k], 0);
        shapes = true;
      }
      sinew_free(kids);
    }
    if (!shapes) lh_push(&x, n, 0);
  }
  uint32_t starts = x.n;
  /* breadth-first along connections: the list is the queue */
  for (uint32_t i = 0; i < x.n && !rc && !x.oom; i++) {
    if (lv > 0 && x.depth[i] >= (uint32_t)lv) continue;
    if (prune && i >= starts && lh_is_dag(g, x.v[i])) continue;
    x.at = x.v[i];
    uint32_t before = x.n;
    sinew_foreach_connection(g, x.at, false, lh_visit, &x);
    for (uint32_t k = before; k < x.n; k++) x.depth[k] = x.depth[i] + 1;
  }
  if (x.oom) rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  if (!rc) rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY);
  for (uint32_t i = 0; i < x.n && !rc; i++) {
    if (prune && lh_is_dag(g, x.v[i])) continue;
    char buf[1024];
    if ((rc = sinew_cmd_result_append_string(cmd, sinew__node_label(g, x.v[i], buf, sizeof buf))))
      rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  }
  sinew_free(x.v);
  sinew_free(x.depth);
  return rc;
}

/* ---- header commands ---------------------------------------------------------------------------------------- */

static const sinew_cmd_flag_t requires_flags[] = {
    {"nodeType", "nt", "s", SINEW_CMD_MULTI}, {"dataType", "dt", "s", SINEW_CMD_MULTI}};

/* requires: kept as written, so saving writes the plug-in requirements back. */
static int cmd_requires(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  sinew__scene *sc = s->scene;
  size_t argc = sinew_cmd_argc(cmd);
  if (argc < 1) return sinew_cmd_error(cmd, SINEW_EINVAL, "usage: requires <plug-in> <version>");
  const char *what = sinew_cmd_arg_string(cmd, 0);
  if (strcmp(what, "maya") == 0) return SINEW_OK; /* the writer writes its own */
  sinew__side_changed(sc); /* requires is not undone: the queue is flushed */
  sinew__buf b = {0};
  sinew__buf_puts(&b, "requires");
  const char *fl[] = {"nodeType", "dataType"}, *sh[] = {"nt", "dt"};
  for (int f = 0; f < 2; f++)
    for (size_t k = 0; k < sinew_cmd_flag_count(cmd, fl[f]); k++) {
      sinew__buf_printf(&b, " -%s ", sh[f]);
      sinew__buf_quoted(&b, sinew_value_string(sinew_cmd_flag_arg(cmd, fl[f], k, 0)));
    }
  for (size_t i = 0; i < argc; i++) {
    sinew__buf_puts(&b, " ");
    sinew__buf_quoted(&b, sinew_cmd_arg_string(cmd, i));
  }
  int rc = b.oom ? SINEW_ENOMEM : SINEW_OK;
  if (!rc) {
    for (uint32_t i = 0; i < sc->nrequires; i++)
      if (strcmp(sc->requires[i], b.p) == 0) {
        sinew__buf_free(&b);
        return SINEW_OK;
      }
    rc = push_str(&sc->requires, &sc->nrequires, &sc->crequires, b.p);
  }
  sinew__buf_free(&b);
  return rc ? sinew_cmd_error(cmd, rc, "out of memory") : SINEW_OK;
}

static const sinew_cmd_flag_t file_info_flags[] = {
    {"query", "q", "", SINEW_CMD_QUERY}, {"remove", "rm", "s", 0}};

static int cmd_file_info(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  sinew__scene *sc = s->scene;
  const char *rm = sinew_cmd_flag_string(cmd, "remove", NULL);
  if (sinew_cmd_query(cmd)) {
    int rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY);
    const char *want = sinew_cmd_argc(cmd) ? sinew_cmd_arg_string(cmd, 0) : NULL;
    for (uint32_t i = 0; i + 1 < sc->nfile_info && !rc; i += 2) {
      if (want) {
        if (strcmp(want, sc->file_info[i]) == 0) rc = sinew_cmd_result_append_string(cmd, sc->file_info[i + 1]);
        continue;
      }
      rc = sinew_cmd_result_append_string(cmd, sc->file_info[i]);
      if (!rc) rc = sinew_cmd_result_append_string(cmd, sc->file_info[i + 1]);
    }
    return rc;
  }
  sinew__side_changed(sc); /* fileInfo is not undone: the queue is flushed */
  const char *key = rm;
  if (!key) {
    if (sinew_cmd_argc(cmd) != 2) return sinew_cmd_error(cmd, SINEW_EINVAL, "usage: fileInfo <name> <value>");
    key = sinew_cmd_arg_string(cmd, 0);
  }
  for (uint32_t i = 0; i + 1 < sc->nfile_info; i += 2)
    if (strcmp(sc->file_info[i], key) == 0) {
      if (rm) {
        sinew_free(sc->file_info[i]);
        sinew_free(sc->file_info[i + 1]);
        memmove(&sc->file_info[i], &sc->file_info[i + 2], (sc->nfile_info - i - 2) * sizeof(char *));
        sc->nfile_info -= 2;
        return SINEW_OK;
      }
      char *v = sinew__cmds_strdup(sinew_cmd_arg_string(cmd, 1));
      if (!v) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
      sinew_free(sc->file_info[i + 1]);
      sc->file_info[i + 1] = v;
      return SINEW_OK;
    }
  if (rm) return SINEW_OK;
  if (push_str(&sc->file_info, &sc->nfile_info, &sc->cfile_info, key) ||
      push_str(&sc->file_info, &sc->nfile_info, &sc->cfile_info, sinew_cmd_arg_string(cmd, 1)))
    return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  return SINEW_OK;
}

static const sinew_cmd_flag_t unit_flags[] = {
    {"linear", "l", "s", 0},   {"angle", "a", "s", 0},     {"time", "t", "s", 0},
    {"query", "q", "", SINEW_CMD_QUERY}, {"fullName", "f", "", 0}, {"updateAnimation", "ua", "b", 0}};

static const char *short_linear(sinew_linear_unit_t u) {
  static const char *n[] = {"", "mm", "cm", "m", "km", "in", "ft", "yd", "mi"};
  return u > 0 && u < SINEW_LINEAR_UNIT_MAX ? n[u] : "";
}

static const char *short_angle(sinew_angle_unit_t u) {
  static const char *n[] = {"", "deg", "rad", "min", "sec"};
  return u > 0 && u < SINEW_ANGLE_UNIT_MAX ? n[u] : "";
}

static int cmd_current_unit(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  bool full = sinew_cmd_flag_count(cmd, "fullName");
  if (sinew_cmd_query(cmd)) {
    if (sinew_cmd_flag_count(cmd, "angle")) {
      sinew_angle_unit_t u = sinew_scene_angle_unit(g);
      return sinew_cmd_result_string(cmd, full ? sinew_angle_unit_name(u) : short_angle(u));
    }
    if (sinew_cmd_flag_count(cmd, "time"))
      return sinew_cmd_result_string(cmd, sinew_time_unit_name(sinew_time_get_unit(g)));
    sinew_linear_unit_t u = sinew_scene_linear_unit(g);
    return sinew_cmd_result_string(cmd, full ? sinew_linear_unit_name(u) : short_linear(u));
  }
  const char *l = sinew_cmd_flag_string(cmd, "linear", NULL), *a = sinew_cmd_flag_string(cmd, "angle", NULL),
             *t = sinew_cmd_flag_string(cmd, "time", NULL);
  sinew_linear_unit_t lu = l ? sinew_linear_unit_from_name(l) : SINEW_LINEAR_INVALID;
  sinew_angle_unit_t au = a ? sinew_angle_unit_from_name(a) : SINEW_ANGLE_INVALID;
  sinew_time_unit_t tu = t ? sinew_time_unit_from_name(t) : SINEW_TIME_INVALID;
  if (l && !lu) return sinew_cmd_error(cmd, SINEW_EINVAL, "-linear: unknown unit '%s'", l);
  if (a && !au) return sinew_cmd_error(cmd, SINEW_EINVAL, "-angle: unknown unit '%s'", a);
  if (t && !tu) {
    sinew__warn_once(sinew__session(cmd), cmd, SINEW_LOG_FILE_WARNING, t,
                     "-time: unit '%s' is not supported; the time unit stays %s", t,
                     sinew_time_unit_name(sinew_time_get_unit(g)));
  }
  double now = 0;
  if (tu) sinew_time_get_frame(g, &now);
  if (lu || au || tu) sinew__side_changed(sinew__session(cmd)->scene); /* units: not undone */
  if (lu) sinew_scene_set_linear_unit(g, lu);
  if (au) sinew_scene_set_angle_unit(g, au);
  if (tu) sinew_time_set_unit(g, tu);
  return SINEW_OK;
}

static const sinew_cmd_flag_t time_flags[] = {
    {"query", "q", "", SINEW_CMD_QUERY}, {"update", "u", "b", 0}, {"edit", "e", "", SINEW_CMD_EDIT}};

static int cmd_current_time(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  if (sinew_cmd_query(cmd)) {
    double f = 0;
    int rc = sinew_time_get_frame(g, &f);
    return rc ? sinew__graph_error(cmd, rc) : sinew_cmd_result_double(cmd, f);
  }
  if (sinew_cmd_argc(cmd) != 1) return sinew_cmd_error(cmd, SINEW_EINVAL, "usage: currentTime <frame>");
  const sinew_value_t *v = sinew_cmd_arg(cmd, 0);
  bool numeric = v->kind == SINEW_VALUE_INT || v->kind == SINEW_VALUE_FLOAT;
  if (!numeric) return sinew_cmd_error(cmd, SINEW_EINVAL, "'%s' is not a frame number", sinew_cmd_arg_string(cmd, 0));
  double f = sinew_value_to_double(v);
  int rc = sinew_time_set_frame(g, f);
  if (rc) return sinew__graph_error(cmd, rc);
  return sinew_cmd_result_double(cmd, f);
}

/* A node or plug name an imported file wrote ("pSphereShape1.iog"), as the scene names that node
 * now: the node the file made may have been renamed on a clash or put in a namespace. NULL when
 * the text stays as it is. sinew_free the result. */
static int imported_name(sinew_session_t *s, const char *text, char **out) {
  *out = NULL;
  if (!s->scene->import || !text[0] || text[0] == '.') return SINEW_OK;
  size_t n = strcspn(text, ".");
  char *name = sinew_malloc(n + 1);
  if (!name) return SINEW_ENOMEM;
  memcpy(name, text, n);
  name[n] = 0;
  sinew_node_t node;
  int rc = SINEW_OK;
  if (sinew__find_node(s, name, &node) == SINEW_OK && sinew__import_owns(s, node)) {
    char buf[1024];
    sinew__buf b = {0};
    sinew__buf_puts(&b, sinew__node_label(s->scene->graph, node, buf, sizeof buf));
    sinew__buf_puts(&b, text + n);
    if (!b.oom) *out = b.p;
    else rc = SINEW_ENOMEM;
    if (b.oom) sinew__buf_free(&b);
  }
  sinew_free(name);
  return rc;
}

/* Lines kept as text: a scene-level raw record on the time1 node's record would mix them up,
 * so they live in the scene's requires list with a marker prefix. */

static int keep_line(sinew_cmd_t *cmd, const char *prefix) {
  sinew_session_t *s = sinew__session(cmd);
  sinew__scene *sc = s->scene;
  sinew__side_changed(sc); /* lines kept as text are not undone: the queue is flushed */
  sinew__buf b = {0};
  sinew__buf_puts(&b, prefix);
  sinew__buf_puts(&b, sinew_cmd_name(cmd));
  for (size_t i = 0; i < sinew_cmd_argc(cmd); i++) {
    const sinew_value_t *v = sinew_cmd_arg(cmd, i);
    sinew__buf_puts(&b, " ");
    if (v->flag) {
      sinew__buf_puts(&b, "-");
      sinew__buf_puts(&b, sinew_value_string(v));
    } else if (v->kind == SINEW_VALUE_STRING && !v->word) {
      /* node names after the first word (relationship "link" ":lightLinker1" "a.msg" ...) */
      char *renamed = NULL;
      if (i && imported_name(s, sinew_value_string(v), &renamed)) b.oom = true;
      sinew__buf_quoted(&b, renamed ? renamed : sinew_value_string(v));
      sinew_free(renamed);
    } else {
      sinew__buf_puts(&b, sinew_cmd_arg_string(cmd, i));
    }
  }
  int rc = b.oom ? SINEW_ENOMEM : push_str(&sc->requires, &sc->nrequires, &sc->crequires, b.p);
  sinew__buf_free(&b);
  return rc ? sinew_cmd_error(cmd, rc, "out of memory") : SINEW_OK;
}

/* relationship "link" ":lightLinker1" ...: light links; kept for saving, not modelled. */
static int cmd_relationship(sinew_cmd_t *cmd) { return keep_line(cmd, "\x02"); }

/* dataStructure and the like: kept as written (they belong to the file's header). */
static int cmd_keep_header(sinew_cmd_t *cmd) { return keep_line(cmd, "\x01"); }

/* Commands a .ma file uses that sinew does not know: skipped with one warning per command. */
static int cmd_fallback(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  if (!s->loading) return sinew_cmd_error(cmd, SINEW_ENOTFOUND, "unknown command");
  s->scene->stats.skipped_commands++;
  sinew__warn_once(s, cmd, SINEW_LOG_UNKNOWN_COMMAND, sinew_cmd_name(cmd),
                   "command not supported; skipped (and not written back)");
  return SINEW_OK;
}

/* ---- file ------------------------------------------------------------------------------------------------------ */

static const sinew_cmd_flag_t file_flags[] = {
    {"open", "o", "", 0},          {"force", "f", "", 0},         {"import", "i", "", 0},
    {"save", "s", "", 0},          {"type", "typ", "s", 0},       {"rename", "rn", "s", 0},
    {"new", "new", "", 0},         {"query", "q", "", SINEW_CMD_QUERY},
    {"sceneName", "sn", "", 0},    {"reference", "r", "", 0},     {"referenceDepthInfo", "rdi", "i", 0},
    {"namespace", "ns", "s", 0},   {"referenceNode", "rfn", "s", 0}, {"options", "op", "s", 0},
    {"deferReference", "dr", "b", 0}, {"ignoreVersion", "iv", "", 0}, {"prompt", "pmt", "b", 0},
    {"executeScriptNodes", "esn", "b", 0}, {"loadReferenceDepth", "lrd", "s", 0},
    {"returnNewNodes", "rnn", "", 0}, {"groupReference", "gr", "", 0}, {"mergeNamespacesOnClash", "mnc", "b", 0},
    {"shortName", "shn", "", 0},  {"renamingPrefix", "rpr", "s", 0}, {"renameAll", "ra", "b", 0},
    {"loadReference", "lr", "s", 0}, {"unloadReference", "ur", "s", 0}};

static int cmd_file(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  size_t argc = sinew_cmd_argc(cmd);
  const char *path = argc ? sinew_cmd_arg_string(cmd, argc - 1) : NULL;
  if (sinew_cmd_query(cmd)) {
    const char *fn = sinew_session_file_name(s);
    if (sinew_cmd_flag_count(cmd, "shortName")) {
      const char *b = strrchr(fn, '/');
      fn = b ? b + 1 : fn;
    }
    return sinew_cmd_result_string(cmd, fn);
  }
  if (sinew_cmd_flag_count(cmd, "loadReference") || sinew_cmd_flag_count(cmd, "unloadReference")) {
    bool load = sinew_cmd_flag_count(cmd, "loadReference");
    if (load && sinew_cmd_flag_count(cmd, "unloadReference"))
      return sinew_cmd_error(cmd, SINEW_EINVAL, "-loadReference and -unloadReference cannot be used together");
    return sinew__reference_load_state(cmd, sinew_cmd_flag_string(cmd, load ? "loadReference" : "unloadReference", ""), load);
  }
  if (sinew_cmd_flag_count(cmd, "reference") || sinew_cmd_flag_count(cmd, "referenceDepthInfo")) {
    /* references: the line is kept for saving (a referenced file's own lines are its file's),
     * and file -r loads the file (cmds/ma_reference.c) */
    bool load = sinew_cmd_flag_count(cmd, "reference") && !sinew_cmd_flag_count(cmd, "referenceDepthInfo");
    if (load && !path) return sinew_cmd_error(cmd, SINEW_EINVAL, "give the file to reference");
    if (sinew__reading_reference(s)) return load ? sinew__reference_load(cmd, path) : SINEW_OK;
    if (load && !s->loading) return sinew__reference_load(cmd, path); /* a script's: it keeps Maya's lines */
    sinew__buf b = {0};
    sinew__buf_puts(&b, "\x01" "file");
    const char *order[] = {"referenceDepthInfo", "reference", "namespace", "deferReference",
                           "referenceNode", "options", "type"};
    const char *shorts[] = {"rdi", "r", "ns", "dr", "rfn", "op", "typ"};
    for (int k = 0; k < 7; k++) {
      if (!sinew_cmd_flag_count(cmd, order[k])) continue;
      sinew__buf_printf(&b, " -%s", shorts[k]);
      const sinew_value_t *v = sinew_cmd_flag_arg(cmd, order[k], 0, 0);
      if (!v) continue;
      sinew__buf_puts(&b, " ");
      if (v->kind == SINEW_VALUE_STRING) sinew__buf_quoted(&b, sinew_value_string(v));
      else sinew__buf_num(&b, sinew_value_to_double(v));
    }
    if (path) {
      sinew__buf_puts(&b, " ");
      sinew__buf_quoted(&b, path);
    }
    int rc = b.oom ? SINEW_ENOMEM
                   : push_str(&s->scene->requires, &s->scene->nrequires, &s->scene->crequires, b.p);
    sinew__buf_free(&b);
    if (rc) return sinew_cmd_error(cmd, rc, "out of memory");
    return load ? sinew__reference_load(cmd, path) : SINEW_OK;
  }
  const char *rn = sinew_cmd_flag_string(cmd, "rename", NULL);
  if (rn) {
    char *d = sinew__cmds_strdup(rn);
    if (!d) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    sinew_free(s->scene->file_name);
    s->scene->file_name = d;
    if (!sinew_cmd_flag_count(cmd, "save")) return sinew_cmd_result_string(cmd, d);
  }
  if (sinew_cmd_flag_count(cmd, "new")) {
    int rc = sinew_session_new_scene(s);
    if (rc == SINEW_EINVAL) return sinew_cmd_error_from(cmd, sinew_session_error(s), rc);
    return rc ? sinew_cmd_error(cmd, rc, "cannot create a new scene") : SINEW_OK;
  }
  if (sinew_cmd_flag_count(cmd, "open") || sinew_cmd_flag_count(cmd, "import")) {
    if (!path) return sinew_cmd_error(cmd, SINEW_EINVAL, "give the file to read");
    sinew__import_opts o = {.ns = sinew_cmd_flag_string(cmd, "namespace", NULL),
                            .prefix = sinew_cmd_flag_string(cmd, "renamingPrefix", NULL),
                            .rename_all = sinew_cmd_flag_bool(cmd, "renameAll", false),
                            .merge_ns = sinew_cmd_flag_bool(cmd, "mergeNamespacesOnClash", false)};
    bool ma = sinew__is_ma_path(path); /* .ma in any case, as everywhere */
    /* the result first: a read is not taken back for want of room for it */
    int rc = sinew_cmd_result_string(cmd, path);
    if (rc) return sinew_cmd_error(cmd, rc, "out of memory");
    if (sinew_cmd_flag_count(cmd, "open")) {
      rc = sinew_session_open(s, path);
    } else if (ma) {
      rc = sinew__import_file(s, path, &o);
    } else {
      if (o.ns || o.prefix || o.rename_all)
        return sinew_cmd_error(cmd, SINEW_EINVAL, "%s: -namespace, -renamingPrefix and -renameAll are for .ma files", path);
      rc = sinew_session_run_file(s, path, NULL);
    }
    if (rc) return sinew_cmd_error_from(cmd, sinew_session_error(s), rc);
    return SINEW_OK;
  }
  if (sinew_cmd_flag_count(cmd, "save")) {
    const char *type = sinew_cmd_flag_string(cmd, "type", "mayaAscii");
    if (strcmp(type, "mayaAscii") != 0)
      return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "-type %s: only mayaAscii files can be written", type);
    const char *target = path ? path : s->scene->file_name;
    if (!target || !target[0])
      return sinew_cmd_error(cmd, SINEW_EINVAL, "the scene has no file name (use file -rename first)");
    char *t = sinew__cmds_strdup(target);
    if (!t) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    int rc = sinew_session_save(s, t);
    if (rc) {
      sinew_free(t);
      return sinew_cmd_error_from(cmd, sinew_session_error(s), rc); /* "file: -save: ..." */
    }
    rc = sinew_cmd_result_string(cmd, t);
    sinew_free(t);
    return rc;
  }
  return sinew_cmd_error(cmd, SINEW_EINVAL, "give -open, -import, -save, -new, -rename or -query");
}

/* ---- registration ---------------------------------------------------------------------------------------------- */

static const sinew_cmd_flag_t no_flags[] = {{"_", NULL, "", 0}};

int sinew__register_core_cmds(sinew_lang_t *L, sinew_session_t *s) {
  const sinew_cmd_desc_t cmds[] = {
      {"createNode", cmd_create_node, create_flags, COUNT(create_flags), false, s},
      {"shadingNode", cmd_shading_node, shading_flags, COUNT(shading_flags), false, s},
      {"listHistory", cmd_list_history, lh_flags, COUNT(lh_flags), false, s},
      {"rename", cmd_rename, rename_flags, COUNT(rename_flags), false, s},
      {"delete", cmd_delete, delete_flags, COUNT(delete_flags), false, s},
      {"select", cmd_select, select_flags, COUNT(select_flags), false, s},
      {"lockNode", cmd_lock_node, lock_flags, COUNT(lock_flags), false, s},
      {"ls", cmd_ls, ls_flags, COUNT(ls_flags), false, s},
      {"objExists", cmd_obj_exists, no_flags, 0, false, s},
      {"nodeType", cmd_node_type, node_type_flags, COUNT(node_type_flags), false, s},
      {"parent", cmd_parent, parent_flags, COUNT(parent_flags), false, s},
      {"listRelatives", cmd_list_relatives, rel_flags, COUNT(rel_flags), false, s},
      {"listConnections", cmd_list_connections, lc_flags, COUNT(lc_flags), false, s},
      {"requires", cmd_requires, requires_flags, COUNT(requires_flags), false, s},
      {"fileInfo", cmd_file_info, file_info_flags, COUNT(file_info_flags), false, s},
      {"currentUnit", cmd_current_unit, unit_flags, COUNT(unit_flags), false, s},
      {"currentTime", cmd_current_time, time_flags, COUNT(time_flags), false, s},
      {"relationship", cmd_relationship, NULL, 0, true, s},
      {"dataStructure", cmd_keep_header, NULL, 0, true, s},
      {"file", cmd_file, file_flags, COUNT(file_flags), false, s},
  };
  for (size_t i = 0; i < COUNT(cmds); i++) {
    int rc = sinew_lang_register_command(L, &cmds[i]);
    if (rc) return rc;
  }
  sinew_lang_set_fallback(L, cmd_fallback, s);
  return sinew__register_reference_cmds(L, s); /* referenceQuery, beside file -r (cmds/ma_reference.c) */
}
