/* cmds/cmd_alias.c: attribute aliases at the command level: the aliasAttr command, the
 * `.aal` (attributeAliasList) lines files store them in, and their lines in the writer.
 *
 * The aliases themselves live in the graph (graph/alias.c, sinew_alias_*): every plug name a
 * command parses accepts them. Maya keeps them in a dynamic attribute every file declares
 * before setting it:
 *   addAttr -ci true -h true -sn "aal" -ln "attributeAliasList" -dt "attributeAlias";
 *   setAttr ".aal" -type "attributeAlias" {"smile","weight[0]","frown","weight[1]"} ;
 * (older files: `2 "smile" "weight[0]"`, the count of strings first). sinew reads the pairs
 * into the graph's aliases, so the addAttr line makes no attribute, and writes both lines back
 * for a node with aliases. */
#include <stdio.h>
#include <string.h>

#include "cmds/cmds_internal.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

bool sinew__is_alias_list_attr(const char *name) {
  return name && (strcmp(name, "aal") == 0 || strcmp(name, "attributeAliasList") == 0);
}

/* aliasAttr alias plug [alias plug ...]   -> how many were made
 * aliasAttr -rm plug ...                  (a plug by its alias or its own name)
 * aliasAttr -q node                       -> {alias, attribute, ...} in the order made */
static int cmd_alias_attr(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  size_t argc = sinew_cmd_argc(cmd);
  int rc;
  if (sinew_cmd_query(cmd)) {
    if (argc != 1) return sinew_cmd_error(cmd, SINEW_EINVAL, "-q takes one node");
    sinew_node_t n;
    if ((rc = sinew__cmd_node(cmd, sinew_cmd_arg_string(cmd, 0), &n))) return rc;
    if ((rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY))) return rc;
    char buf[1024];
    for (size_t i = 0; i < sinew_alias_count(g, n) && !rc; i++) {
      const char *name;
      sinew_plug_t p;
      sinew_alias_at(g, n, i, &name, &p);
      sinew_plug_format_attr(g, &p, false, buf, sizeof buf);
      rc = sinew_cmd_result_append_string(cmd, name);
      if (!rc) rc = sinew_cmd_result_append_string(cmd, buf);
    }
    return rc;
  }
  if (sinew_cmd_flag_count(cmd, "remove")) {
    if (!argc) return sinew_cmd_error(cmd, SINEW_EINVAL, "-rm: give the aliased attributes (node.alias)");
    for (size_t i = 0; i < argc; i++) {
      sinew_plug_t p;
      if ((rc = sinew__cmd_plug(cmd, sinew_cmd_arg_string(cmd, i), &p))) return rc;
      if ((rc = sinew_alias_remove(g, &p))) return sinew__graph_error(cmd, rc);
    }
    return SINEW_OK;
  }
  if (!argc || argc % 2)
    return sinew_cmd_error(cmd, SINEW_EINVAL, "give pairs of an alias and an attribute (aliasAttr smile blendShape1.w[0])");
  for (size_t i = 0; i < argc; i += 2) {
    sinew_plug_t p;
    if ((rc = sinew__cmd_plug(cmd, sinew_cmd_arg_string(cmd, i + 1), &p))) return rc;
    if ((rc = sinew_alias_set(g, &p, sinew_cmd_arg_string(cmd, i)))) return sinew__graph_error(cmd, rc);
  }
  return sinew_cmd_result_int(cmd, (int64_t)(argc / 2));
}

/* The strings of a `setAttr .aal -type "attributeAlias"` line: the brace form's strings (the
 * language passes an array's items as arguments) or a count and that many strings. *first is
 * the argument of the first string. */
static int alias_strings(sinew_cmd_t *cmd, const char *pbuf, size_t *count, size_t *first) {
  size_t nvals = sinew_cmd_argc(cmd) - 1;
  const sinew_value_t *v = sinew_cmd_arg(cmd, 1);
  bool counted = v->kind == SINEW_VALUE_INT || v->kind == SINEW_VALUE_FLOAT;
  *first = counted ? 2 : 1;
  *count = counted ? nvals - 1 : nvals;
  double c = counted ? sinew_value_to_double(v) : 0;
  if (counted && c != (double)*count)
    return sinew_cmd_error(cmd, SINEW_EINVAL, "%s: the count %g does not match the %zu strings given", pbuf, c, *count);
  if (*count % 2)
    return sinew_cmd_error(cmd, SINEW_EINVAL, "%s: %zu strings: aliases come in pairs (alias, attribute)", pbuf, *count);
  return SINEW_OK;
}

int sinew__set_alias_list(sinew_cmd_t *cmd, sinew_node_t n) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  char pbuf[600];
  snprintf(pbuf, sizeof pbuf, "%s.aal", sinew_node_name(g, n));
  const char *type = sinew_cmd_flag_string(cmd, "type", NULL);
  if (!type || strcmp(type, "attributeAlias") != 0)
    return sinew_cmd_error(cmd, SINEW_ETYPE, "%s takes -type \"attributeAlias\"", pbuf);
  size_t count = 0, first = 1;
  int rc = alias_strings(cmd, pbuf, &count, &first);
  if (rc) return rc;
  /* the list replaces the node's aliases (the command's transaction keeps this whole) */
  while (sinew_alias_count(g, n)) {
    sinew_plug_t p;
    sinew_alias_at(g, n, sinew_alias_count(g, n) - 1, NULL, &p);
    if ((rc = sinew_alias_remove(g, &p))) return sinew__graph_error(cmd, rc);
  }
  for (size_t i = 0; i < count; i += 2) {
    const char *name = sinew_cmd_arg_string(cmd, first + i);
    const char *attr = sinew_cmd_arg_string(cmd, first + i + 1);
    sinew_plug_t p;
    if (sinew_plug_parse_attr(g, n, attr ? attr : "", &p)) {
      if (!s->loading)
        return sinew_cmd_error(cmd, SINEW_ENOTFOUND, "%s: %s has no attribute '%s' for the alias '%s'", pbuf,
                               sinew_node_name(g, n), attr ? attr : "", name ? name : "");
      char key[300];
      snprintf(key, sizeof key, "%s.%s (alias %s)", sinew_node_type_name(sinew_node_type(g, n)), attr ? attr : "",
               name ? name : "");
      sinew__warn_once(s, cmd, SINEW_LOG_UNKNOWN_ATTR, key,
                       "%s: the alias '%s' names '%s', which sinew does not have: the alias is dropped", pbuf,
                       name ? name : "", attr ? attr : "");
      continue;
    }
    if ((rc = sinew_alias_set(g, &p, name ? name : ""))) return sinew__graph_error(cmd, rc);
  }
  return SINEW_OK;
}

void sinew__ma_write_alias_attr(sinew_graph_t *g, sinew_node_t n, sinew__buf *b) {
  if (sinew_alias_count(g, n))
    sinew__buf_puts(b, "\taddAttr -ci true -h true -sn \"aal\" -ln \"attributeAliasList\" -dt \"attributeAlias\";\n");
}

void sinew__ma_write_aliases(sinew_graph_t *g, sinew_node_t n, sinew__buf *b) {
  size_t k = sinew_alias_count(g, n);
  if (!k) return;
  sinew__buf_puts(b, "\tsetAttr \".aal\" -type \"attributeAlias\" {");
  char buf[1024];
  for (size_t i = 0; i < k; i++) {
    const char *name;
    sinew_plug_t p;
    sinew_alias_at(g, n, i, &name, &p);
    sinew_plug_format_attr(g, &p, false, buf, sizeof buf);
    if (i) sinew__buf_puts(b, ",");
    sinew__buf_quoted(b, name);
    sinew__buf_puts(b, ",");
    sinew__buf_quoted(b, buf);
  }
  sinew__buf_puts(b, "} ;\n");
}

static const sinew_cmd_flag_t alias_flags[] = {{"remove", "rm", "", 0}, {"query", "q", "", SINEW_CMD_QUERY}};

int sinew__register_alias_cmds(sinew_lang_t *L, sinew_session_t *s) {
  const sinew_cmd_desc_t d = {"aliasAttr", cmd_alias_attr, alias_flags, COUNT(alias_flags), false, s};
  return sinew_lang_register_command(L, &d);
}
