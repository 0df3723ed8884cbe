/* cmds/cmd_attr.c: setAttr (every form of spec 8.3: scalars, compounds, ranges, matrices and the
 * "xform" form, strings, the three weightList forms, mesh ed/fc lines), getAttr, connectAttr
 * (with unitConversion nodes between angles and plain numbers, as Maya inserts them),
 * disconnectAttr, addAttr (compounds gathered until their children are declared), deleteAttr
 * and listAttr.
 *
 * What a file sets that sinew does not model (an attribute a type does not have, a value of a
 * data type sinew does not read, anything on a placeholder node) is kept as text on the node
 * and written back when the scene is saved. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds_internal.h"
#include "sinew/curve.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

int sinew__lookup_node(sinew_cmd_t *cmd, const char *name, sinew_node_t *out);

/* ---- plug text with an optional range --------------------------------------------------------- */

typedef struct plug_text {
  sinew_node_t node;
  char attr[512];       /* the attribute path with a range replaced by its first index */
  char raw_attr[512];   /* as written (with the range) */
  bool has_range;
  int32_t first, last;
  uint32_t range_pos;   /* which index of the plug the range is */
  char after_range[256];/* what follows the range ("w" in wl[0:7].w) */
} plug_text;

/* Splits "node.attr[a:b].child" (or ".attr..." on the current node) into node and attribute. */

/* Fails setAttr with a reason about plug (which the reason names): plug is the error's subject,
 * so that the command does not name it a second time. */
static int plug_error(sinew_cmd_t *cmd, int status, const char *plug, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int plug_error(sinew_cmd_t *cmd, int status, const char *plug, const char *fmt, ...) {
  char reason[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, sizeof reason, fmt, ap);
  va_end(ap);
  sinew_cmd_error(cmd, status, "%s", reason);
  sinew_cmd_error_subject(cmd, NULL, plug);
  return status;
}

static int split_plug(sinew_cmd_t *cmd, const char *text, plug_text *out) {
  sinew_session_t *s = sinew__session(cmd);
  memset(out, 0, sizeof *out);
  const char *dot = NULL;
  int depth = 0;
  for (const char *c = text; *c; c++) {
    if (*c == '[') depth++;
    else if (*c == ']') depth--;
    else if (*c == '.' && depth == 0) {
      dot = c;
      break;
    }
  }
  if (!dot) return sinew_cmd_error(cmd, SINEW_EINVAL, "'%s' is not a plug (node.attribute)", text);
  if (dot == text) {
    out->node = s->scene->current;
    if (!sinew_node_valid(sinew_cmd_graph(cmd), out->node))
      return plug_error(cmd, SINEW_EINVAL, text, "%s: no current node (createNode or select first)", text);
  } else {
    char name[512];
    size_t n = (size_t)(dot - text);
    if (n >= sizeof name) return sinew_cmd_error(cmd, SINEW_EINVAL, "node name too long");
    memcpy(name, text, n);
    name[n] = 0;
    int rc = sinew__lookup_node(cmd, name, &out->node);
    if (rc) return rc;
  }
  const char *a = dot + 1;
  if (strlen(a) >= sizeof out->raw_attr) return sinew_cmd_error(cmd, SINEW_EINVAL, "attribute path too long");
  strcpy(out->raw_attr, a);
  /* find a range [a:b] */
  size_t k = 0;
  uint32_t nidx = 0;
  for (const char *c = a; *c;) {
    if (*c == '[') {
      const char *colon = strchr(c, ':'), *close = strchr(c, ']');
      if (colon && close && colon < close) {
        if (out->has_range) return plug_error(cmd, SINEW_EINVAL, text, "%s: more than one range", text);
        char *end;
        long f = strtol(c + 1, &end, 10);
        if (end != colon) return plug_error(cmd, SINEW_EINVAL, text, "%s: bad range", text);
        long l = strtol(colon + 1, &end, 10);
        /* the last index stays below INT32_MAX so that loops over the range end */
        if (end != close || f < 0 || l < f || l >= INT32_MAX)
          return plug_error(cmd, SINEW_EINVAL, text, "%s: bad range [%ld:%ld]", text, f, l);
        out->has_range = true;
        out->first = (int32_t)f;
        out->last = (int32_t)l;
        out->range_pos = nidx;
        k += (size_t)snprintf(out->attr + k, sizeof out->attr - k, "[%ld]", f);
        c = close + 1;
        if (*c == '.') snprintf(out->after_range, sizeof out->after_range, "%s", c + 1);
        nidx++;
        continue;
      }
      nidx++;
    }
    if (k + 1 < sizeof out->attr) out->attr[k++] = *c;
    c++;
  }
  out->attr[k] = 0;
  return SINEW_OK;
}

/* ---- values ---------------------------------------------------------------------------------------- */

/* A numeric value (numbers, yes/no/on/off/true/false) of positional argument i. */
static int num_arg(sinew_cmd_t *cmd, size_t i, double *out) {
  const sinew_value_t *v = sinew_cmd_arg(cmd, i);
  if (!v) return sinew_cmd_error(cmd, SINEW_EINVAL, "missing value");
  double d;
  bool ok = false;
  if (v->kind == SINEW_VALUE_INT || v->kind == SINEW_VALUE_FLOAT) {
    d = sinew_value_to_double(v);
    ok = true;
  } else if (v->kind == SINEW_VALUE_STRING) {
    /* a number written as text ("7.25") is that number; only then the words of a boolean
     * (on / off, yes / no, true / false), which would turn any number into 1 */
    const char *s = sinew_value_string(v);
    char *end;
    d = strtod(s, &end);
    ok = end != s && !*end;
    bool b;
    if (!ok && sinew_value_to_bool(v, &b)) d = b, ok = true;
  }
  char t[64];
  if (!ok) {
    sinew_value_format(v, t, sizeof t);
    return sinew_cmd_error(cmd, SINEW_EINVAL, "'%s' is not a number", t);
  }
  if (!isfinite(d)) { /* 1e309, inf, nan: no attribute holds them, and they poison every matrix downstream */
    sinew_value_format(v, t, sizeof t);
    if (!sinew__session(cmd)->loading) return sinew_cmd_error(cmd, SINEW_ERANGE, "'%s' is not a finite number", t);
    /* Maya writes inf for some plugs whose value comes from a connection (omtk's
     * `setAttr -s 2 ".i1[0:1]" 1 inf;`): the line's other values still count */
    sinew_cmd_warning(cmd, SINEW_LOG_FILE_WARNING, "'%s' is not a finite number; 0 is stored instead", t);
    d = 0;
  }
  *out = d;
  return SINEW_OK;
}

/* Re-serialises positional arguments from `from` as MEL words. */
static void args_text(sinew_cmd_t *cmd, size_t from, sinew__buf *b) {
  for (size_t i = from; i < sinew_cmd_argc(cmd); i++) {
    const sinew_value_t *v = sinew_cmd_arg(cmd, i);
    sinew__buf_puts(b, " ");
    if (v->kind == SINEW_VALUE_STRING && !v->word && !v->flag)
      sinew__buf_quoted(b, sinew_value_string(v));
    else if (v->flag) {
      sinew__buf_puts(b, "-");
      sinew__buf_puts(b, sinew_value_string(v));
    } else if (v->kind == SINEW_VALUE_FLOAT) {
      sinew__buf_num(b, v->as.f);
    } else if (v->kind == SINEW_VALUE_INT) {
      /* (formatted here: sinew_cmd_arg_string keeps a copy per call, and lines of mesh data
       * have tens of thousands of numbers) */
      sinew__buf_printf(b, "%lld", (long long)v->as.i);
    } else if (v->kind == SINEW_VALUE_STRING) {
      sinew__buf_puts(b, sinew_value_string(v));
    } else if (v->kind >= SINEW_VALUE_INT_ARRAY) { /* {"a", "b"} as written */
      sinew__buf_puts(b, "{");
      for (size_t k = 0; k < sinew_value_count(v); k++) {
        if (k) sinew__buf_puts(b, ", ");
        if (v->kind == SINEW_VALUE_STRING_ARRAY) sinew__buf_quoted(b, sinew_value_string_at(v, k));
        else sinew__buf_num(b, sinew_value_double_at(v, k));
      }
      sinew__buf_puts(b, "}");
    } else {
      sinew__buf_puts(b, sinew_cmd_arg_string(cmd, i));
    }
  }
}

/* The whole setAttr argument text with a relative plug, for keeping it as a raw line. */
static int raw_text(sinew_cmd_t *cmd, const plug_text *pt, sinew__buf *b) {
  int64_t size = sinew_cmd_flag_int(cmd, "size", -1);
  if (size >= 0) sinew__buf_printf(b, "-s %lld ", (long long)size);
  int64_t ch = sinew_cmd_flag_int(cmd, "capacityHint", -1);
  if (ch >= 0) sinew__buf_printf(b, "-ch %lld ", (long long)ch);
  const char *bools[] = {"keyable", "lock", "channelBox", "caching"}, *bs[] = {"k", "l", "cb", "ca"};
  for (int i = 0; i < 4; i++)
    if (sinew_cmd_flag_count(cmd, bools[i]))
      sinew__buf_printf(b, "-%s %s ", bs[i], sinew_cmd_flag_bool(cmd, bools[i], false) ? "on" : "off");
  if (sinew_cmd_flag_count(cmd, "alteredValue")) sinew__buf_puts(b, "-av ");
  sinew__buf_puts(b, "\".");
  sinew__buf_puts(b, pt->raw_attr);
  sinew__buf_puts(b, "\"");
  const char *type = sinew_cmd_flag_string(cmd, "type", NULL);
  if (type) {
    sinew__buf_puts(b, " -type ");
    sinew__buf_quoted(b, type);
  }
  args_text(cmd, 1, b);
  return b->oom ? SINEW_ENOMEM : SINEW_OK;
}

/* Was the plug's attribute made by addAttr? Dynamic (not the type's), and not one the reader
 * made on a placeholder to hold a connection. */
static bool added_attr(sinew_session_t *s, sinew_graph_t *g, const sinew_plug_t *p) {
  sinew_attr_info_t info;
  uint32_t top = p->attr;
  while (sinew_node_attr_info(g, p->node, top, &info) == SINEW_OK && info.parent != UINT32_MAX) top = info.parent;
  if (sinew_node_attr_info(g, p->node, top, &info) != SINEW_OK) return false;
  return sinew_node_type_attr(sinew_node_type(g, p->node), info.name) == UINT32_MAX &&
         !sinew__extra_is_implicit(s->scene, p->node, top);
}

static int keep_raw(sinew_cmd_t *cmd, const plug_text *pt) {
  sinew_session_t *s = sinew__session(cmd);
  sinew__buf b = {0};
  int rc = raw_text(cmd, pt, &b);
  if (!rc) rc = sinew__extra_add_raw(s->scene, pt->node, pt->raw_attr, b.p);
  sinew__buf_free(&b);
  return rc ? sinew_cmd_error(cmd, rc, "out of memory") : SINEW_OK;
}

/* ---- mesh geometry lines ---------------------------------------------------------------------------- */

static int keep_geom_line(sinew_cmd_t *cmd, sinew__extra *e, const plug_text *pt) {
  sinew__buf b = {0};
  int rc = raw_text(cmd, pt, &b);
  if (!rc) {
    if (e->ngeom == e->cgeom) {
      uint32_t nc = e->cgeom ? e->cgeom * 2 : 4;
      sinew__raw *r = sinew_realloc(e->geom, nc * sizeof *r);
      if (!r) rc = SINEW_ENOMEM;
      else e->geom = r, e->cgeom = nc;
    }
    if (!rc) {
      size_t n = strlen(pt->raw_attr);
      char *a = sinew_malloc(n + 1);
      if (!a) rc = SINEW_ENOMEM;
      else {
        memcpy(a, pt->raw_attr, n + 1);
        e->geom[e->ngeom++] = (sinew__raw){a, b.p};
        sinew__side_changed(sinew__session(cmd)->scene);
        b.p = NULL;
      }
    }
  }
  sinew__buf_free(&b);
  return rc;
}

static int grow32(void **p, uint32_t *cap, uint32_t need, size_t es) {
  if (need <= *cap) return SINEW_OK;
  uint64_t nc = *cap ? *cap : 64;
  while (nc < need) nc *= 2;
  if (nc > (1u << 30)) return SINEW_ENOMEM;
  void *q = sinew_realloc(*p, (size_t)nc * es);
  if (!q) return SINEW_ENOMEM;
  *p = q;
  *cap = (uint32_t)nc;
  return SINEW_OK;
}

/* .ed[a:b]: v0 v1 flag per edge. */
static int set_edges(sinew_cmd_t *cmd, sinew__extra *e, const plug_text *pt) {
  sinew__pending_mesh *m = &e->mesh;
  size_t nvals = sinew_cmd_argc(cmd) - 1;
  int32_t first = pt->has_range ? pt->first : atoi(strchr(pt->raw_attr, '[') ? strchr(pt->raw_attr, '[') + 1 : "0");
  int32_t last = pt->has_range ? pt->last : first;
  size_t nedges = (size_t)((int64_t)last - first + 1);
  if (nvals != nedges * 3)
    return plug_error(cmd, SINEW_EINVAL, pt->raw_attr, ".%s: expected %zu values (3 per edge), got %zu",
                      pt->raw_attr, nedges * 3, nvals);
  /* edges come in order (Maya writes them in chunks): a gap would make room for edges that
   * are never given */
  if (first < 0 || (uint32_t)first > m->nedges)
    return plug_error(cmd, SINEW_ERANGE, pt->raw_attr, ".%s: edge %d given before edge %u", pt->raw_attr,
                      (int)first, m->nedges);
  /* every value checked before any is kept: a line that fails leaves the edges as they were
   * (the session's mesh lines are not in the graph's journal) */
  for (size_t k = 0; k < nedges; k++) {
    double v0, v1, fl;
    int rc;
    if ((rc = num_arg(cmd, 1 + 3 * k, &v0)) || (rc = num_arg(cmd, 2 + 3 * k, &v1)) ||
        (rc = num_arg(cmd, 3 + 3 * k, &fl)))
      return rc;
    if (v0 < 0 || v1 < 0 || v0 > 1e9 || v1 > 1e9 || v0 != floor(v0) || v1 != floor(v1))
      return plug_error(cmd, SINEW_ERANGE, pt->raw_attr, ".%s: bad vertex index in edge %zu", pt->raw_attr,
                        (size_t)first + k);
  }
  if (grow32((void **)&m->edges, &m->cedges, (uint32_t)(last + 1) * 2, sizeof *m->edges) ||
      grow32((void **)&m->edge_hard, &m->cehard, (uint32_t)(last + 1), sizeof *m->edge_hard))
    return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  if ((uint32_t)last + 1 > m->nedges) {
    memset(m->edges + 2 * (size_t)m->nedges, 0, ((size_t)last + 1 - m->nedges) * 2 * sizeof *m->edges);
    memset(m->edge_hard + m->nedges, 0, (size_t)last + 1 - m->nedges);
    m->nedges = (uint32_t)last + 1;
  }
  for (size_t k = 0; k < nedges; k++) {
    double v0 = 0, v1 = 0, fl = 0;
    num_arg(cmd, 1 + 3 * k, &v0);
    num_arg(cmd, 2 + 3 * k, &v1);
    num_arg(cmd, 3 + 3 * k, &fl);
    m->edges[2 * ((size_t)first + k)] = (uint32_t)v0;
    m->edges[2 * ((size_t)first + k) + 1] = (uint32_t)v1;
    m->edge_hard[(size_t)first + k] = fl == 0; /* Maya's flag: 1 smooth, 0 hard */
  }
  m->active = true;
  return SINEW_OK;
}

/* .fc[a:b] -type "polyFaces": records "f N e..." and "mu 0 N uv..." (the face's UVs in the
 * first set; mc / fc and other sets are skipped) and h (sinew meshes have no holes). */
static int read_face_records(sinew_cmd_t *cmd, sinew__extra *e, const plug_text *pt);
static int set_faces(sinew_cmd_t *cmd, sinew__extra *e, const plug_text *pt) {
  /* a line that fails keeps none of its records (the session's mesh lines are not in the
   * graph's journal) */
  sinew__pending_mesh *m = &e->mesh;
  uint32_t nfv = m->nfv, nfaces = m->nfaces, nholes = m->nholes;
  bool has_uvs = m->has_uvs;
  int rc = read_face_records(cmd, e, pt);
  if (rc) m->nfv = nfv, m->nfaces = nfaces, m->nholes = nholes, m->has_uvs = has_uvs;
  return rc;
}

static int read_face_records(sinew_cmd_t *cmd, sinew__extra *e, const plug_text *pt) {
  sinew__pending_mesh *m = &e->mesh;
  /* the first chunk says -type "polyFaces"; Maya leaves it out on the chunks that follow */
  const char *type = sinew_cmd_flag_string(cmd, "type", "polyFaces");
  if (strcmp(type, "polyFaces") != 0)
    return plug_error(cmd, SINEW_EINVAL, pt->raw_attr, ".%s takes -type \"polyFaces\", not %s", pt->raw_attr,
                      type);
  size_t argc = sinew_cmd_argc(cmd), i = 1;
  uint32_t faces = 0;
  while (i < argc) {
    const char *tag = sinew_value_string(sinew_cmd_arg(cmd, i));
    if (!tag)
      return plug_error(cmd, SINEW_ESYNTAX, pt->raw_attr, ".%s: expected a record tag (f, mu, h ...)",
                        pt->raw_attr);
    i++;
    double set = -1;
    if (strcmp(tag, "mu") == 0 || strcmp(tag, "mc") == 0) {
      if (i >= argc)
        return plug_error(cmd, SINEW_ESYNTAX, pt->raw_attr, ".%s: truncated %s record", pt->raw_attr, tag);
      int rc = num_arg(cmd, i, &set);
      if (rc) return rc;
      i++; /* the set index */
    }
    double cnt;
    int rc = num_arg(cmd, i, &cnt);
    if (rc) return rc;
    i++;
    if (cnt < 0 || cnt > 1e8 || cnt != floor(cnt) || i + (size_t)cnt > argc)
      return plug_error(cmd, SINEW_ESYNTAX, pt->raw_attr, ".%s: bad count in a %s record", pt->raw_attr, tag);
    if (strcmp(tag, "f") == 0) {
      uint32_t n = (uint32_t)cnt;
      if (grow32((void **)&m->face_edges, &m->cfv, m->nfv + n, sizeof *m->face_edges) ||
          grow32((void **)&m->face_counts, &m->cfaces, m->nfaces + 1, sizeof *m->face_counts))
        return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
      for (uint32_t k = 0; k < n; k++) {
        double ev;
        if ((rc = num_arg(cmd, i + k, &ev))) return rc;
        if (ev != floor(ev) || ev < -2147483647.0 || ev > 2147483647.0)
          return plug_error(cmd, SINEW_ESYNTAX, pt->raw_attr, ".%s: bad edge id", pt->raw_attr);
        m->face_edges[m->nfv + k] = (int32_t)ev;
      }
      if (grow32((void **)&m->face_uvs, &m->cfuv, m->nfv + n, sizeof *m->face_uvs))
        return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
      for (uint32_t k = 0; k < n; k++) m->face_uvs[m->nfv + k] = UINT32_MAX;
      m->nfv += n;
      m->face_counts[m->nfaces++] = n;
      faces++;
    } else if (strcmp(tag, "mu") == 0 && set == 0) {
      /* the UVs of the face just read, one per face-vertex */
      uint32_t n = (uint32_t)cnt;
      if (!m->nfaces || n != m->face_counts[m->nfaces - 1])
        return sinew_cmd_error(cmd, SINEW_ESYNTAX, ".%s: a mu record of %u UVs does not follow a face of as many vertices",
                               pt->raw_attr, n);
      for (uint32_t k = 0; k < n; k++) {
        double uv;
        if ((rc = num_arg(cmd, i + k, &uv))) return rc;
        if (uv != floor(uv) || uv < 0 || uv >= 4294967295.0)
          return sinew_cmd_error(cmd, SINEW_ESYNTAX, ".%s: bad UV id", pt->raw_attr);
        m->face_uvs[m->nfv - n + k] = (uint32_t)uv;
      }
      m->has_uvs = true;
    } else if (strcmp(tag, "h") == 0) {
      m->nholes++;
    } else if (strcmp(tag, "mu") && strcmp(tag, "mc") && strcmp(tag, "fc")) {
      return plug_error(cmd, SINEW_ESYNTAX, pt->raw_attr, ".%s: unknown polyFaces record '%s'", pt->raw_attr,
                        tag);
    }
    i += (size_t)cnt;
  }
  if (pt->has_range && faces != (uint32_t)(pt->last - pt->first + 1))
    sinew_cmd_warning(cmd, SINEW_LOG_FILE_WARNING, ".%s: %u face records for %d faces", pt->raw_attr, faces,
                      pt->last - pt->first + 1);
  m->active = true;
  return SINEW_OK;
}

static bool is_mesh(sinew_graph_t *g, sinew_node_t n) {
  return sinew_node_type_is_a(sinew_node_type(g, n), "mesh");
}

/* set_values' answer for a form sinew does not read (a data type such as stringArray). */
#define KEEP_RAW 1

/* ---- setAttr ------------------------------------------------------------------------------------------ */

static const sinew_cmd_flag_t setattr_flags[] = {
    {"size", "s", "i", 0},     {"keyable", "k", "b", 0},      {"lock", "l", "b", 0},
    {"channelBox", "cb", "b", 0}, {"type", "typ", "s", 0},    {"alteredValue", "av", "", 0},
    {"caching", "ca", "b", 0}, {"clamp", "c", "", 0},         {"capacityHint", "ch", "i", 0}};

/* The numeric leaves one element takes, in order, with their unit factors. */
typedef struct leaf_set {
  uint32_t n;
  sinew_attr_type_t type[16];
  bool compound;
} leaf_set;

static int leaves_of(sinew_graph_t *g, const sinew_plug_t *p, leaf_set *out) {
  sinew_attr_info_t info;
  if (sinew_node_attr_info(g, p->node, p->attr, &info)) return SINEW_EINVAL;
  out->n = 0;
  out->compound = false;
  if (sinew_attr_type_is_numeric(info.type)) {
    out->n = 1;
    out->type[0] = info.type;
    return SINEW_OK;
  }
  if (info.type != SINEW_ATTR_COMPOUND || info.child_count > 16) return SINEW_ETYPE;
  out->compound = true;
  for (uint32_t c = 0; c < info.child_count; c++) {
    sinew_attr_info_t ci;
    if (sinew_node_attr_info(g, p->node, info.children[c], &ci)) return SINEW_EINVAL;
    if (!sinew_attr_type_is_numeric(ci.type) || (ci.flags & SINEW_ATTR_ARRAY)) return SINEW_ETYPE;
    out->type[out->n++] = ci.type;
  }
  return SINEW_OK;
}

static const char *maya_type_name(const sinew_attr_info_t *info) {
  switch (info->type) {
    case SINEW_ATTR_BOOL: return "bool";
    case SINEW_ATTR_INT: return "long";
    case SINEW_ATTR_ENUM: return "enum";
    case SINEW_ATTR_FLOAT: return "float";
    case SINEW_ATTR_DOUBLE: return "double";
    case SINEW_ATTR_DISTANCE: return "doubleLinear";
    case SINEW_ATTR_ANGLE: return "doubleAngle";
    case SINEW_ATTR_TIME: return "time";
    case SINEW_ATTR_MATRIX: return "matrix";
    case SINEW_ATTR_STRING: return "string";
    case SINEW_ATTR_MESSAGE: return "message";
    case SINEW_ATTR_COMPOUND: return info->child_count == 3 ? "double3" : info->child_count == 2 ? "double2" : "TdataCompound";
    case SINEW_ATTR_DATA: return info->data_type ? info->data_type->name : "data";
    default: return "unknown";
  }
}

/* Whether setAttr's -type word fits a numeric attribute (or numeric compound). */
static bool numeric_type_fits(const char *type, const leaf_set *ls) {
  static const char *const scalars[] = {"double", "float", "long", "short", "bool", "byte", "char",
                                        "enum", "doubleLinear", "doubleAngle", "time"};
  if (!ls->compound) {
    for (size_t i = 0; i < COUNT(scalars); i++)
      if (strcmp(type, scalars[i]) == 0) return true;
    return false;
  }
  /* double3, float2, long3, short2 ...: the count must be the compound's */
  size_t n = strlen(type);
  if (n < 2 || type[n - 1] < '2' || type[n - 1] > '4' || (uint32_t)(type[n - 1] - '0') != ls->n) return false;
  return strncmp(type, "double", n - 1) == 0 || strncmp(type, "float", n - 1) == 0 ||
         strncmp(type, "long", n - 1) == 0 || strncmp(type, "short", n - 1) == 0;
}

/* How many numbers a -type word gives a generic numeric attribute: double2..4, float2/3,
 * long2/3, short2/3 and matrix; 0 for a scalar type or any other word. */
static size_t generic_type_count(const char *type) {
  if (strcmp(type, "matrix") == 0) return 16;
  size_t n = strlen(type);
  if (n < 2 || type[n - 1] < '2' || type[n - 1] > '4') return 0;
  if (strncmp(type, "double", n - 1) == 0 && n - 1 == 6) return (size_t)(type[n - 1] - '0');
  if (type[n - 1] == '4') return 0;
  if ((n - 1 == 5 && strncmp(type, "float", 5) == 0) || (n - 1 == 4 && strncmp(type, "long", 4) == 0) ||
      (n - 1 == 5 && strncmp(type, "short", 5) == 0))
    return (size_t)(type[n - 1] - '0');
  return 0;
}

static sinew_plug_t element(const plug_text *pt, const sinew_plug_t *base, int32_t i) {
  sinew_plug_t p = *base;
  if (pt->has_range) p.idx[pt->range_pos] = i;
  return p;
}

/* One number into one plug. The scene's time (time1.outTime) is set through the time function,
 * which also dirties the animation curves that follow the current time without a connection
 * (docs/animation.md); every other plug is a plain set. */
static int set_number(sinew_graph_t *g, const sinew_plug_t *p, double v) {
  if (p->nidx == 0 && sinew_node_type_is_a(sinew_node_type(g, p->node), "time") &&
      p->attr == sinew_node_attr(g, p->node, "outTime")) {
    sinew_node_t t;
    if (sinew_time_node(g, &t) == SINEW_OK && t.index == p->node.index && t.gen == p->node.gen)
      return sinew_time_set_seconds(g, v);
  }
  return sinew_set_double(g, p, v);
}

/* Refuses before anything changes: locked or connected plugs in the range. */
static int check_settable(sinew_cmd_t *cmd, sinew_graph_t *g, const plug_text *pt, const sinew_plug_t *base) {
  int32_t first = pt->has_range ? pt->first : 0, last = pt->has_range ? pt->last : 0;
  for (int32_t i = first; i <= last; i++) {
    sinew_plug_t p = element(pt, base, i);
    char buf[600];
    if (sinew_plug_locked(g, &p)) {
      sinew_plug_format(g, &p, false, buf, sizeof buf);
      return plug_error(cmd, SINEW_ELOCKED, buf, "%s is locked", buf);
    }
    if (sinew_plug_source(g, &p, NULL)) {
      sinew_plug_format(g, &p, false, buf, sizeof buf);
      return plug_error(cmd, SINEW_ECONNECTED, buf, "%s is connected and cannot be set", buf);
    }
  }
  return SINEW_OK;
}

/* Compact weights: ".wl[a:b].w" then per element: count, then index/value pairs. Every record
 * is read and every element checked before anything is set. */
static int set_compact(sinew_cmd_t *cmd, sinew_graph_t *g, const plug_text *pt, const sinew_plug_t *base) {
  size_t argc = sinew_cmd_argc(cmd), i = 1;
  size_t nel = (size_t)(pt->last - pt->first + 1);
  if (nel > argc - 1)
    return plug_error(cmd, SINEW_ESYNTAX, pt->raw_attr, ".%s: %zu records expected, only %zu values given",
                      pt->raw_attr, nel, argc - 1);
  /* at most (argc - 1) / 2 pairs in all */
  size_t cap = argc / 2 + 1;
  int32_t *idx = sinew_malloc(cap * sizeof *idx);
  double *val = sinew_malloc(cap * sizeof *val);
  size_t *start = sinew_malloc((nel + 1) * sizeof *start);
  int rc = (!idx || !val || !start) ? sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory") : SINEW_OK;
  size_t npairs = 0;
  sinew_attr_info_t wi;
  sinew_node_attr_info(g, base->node, base->attr, &wi);
  for (size_t e = 0; e < nel && !rc; e++) {
    int32_t el = pt->first + (int32_t)e;
    start[e] = npairs;
    double cnt;
    if ((rc = num_arg(cmd, i++, &cnt))) break;
    if (!(cnt >= 0) || cnt != floor(cnt) || cnt > (double)(argc - i) / 2) {
      rc = plug_error(cmd, SINEW_ESYNTAX, pt->raw_attr, ".%s: element %d: bad count %g (%zu values left)",
                      pt->raw_attr, el, cnt, argc - i);
      break;
    }
    for (size_t k = 0; k < (size_t)cnt && !rc; k++) {
      double ix;
      if ((rc = num_arg(cmd, i + 2 * k, &ix)) || (rc = num_arg(cmd, i + 2 * k + 1, &val[npairs]))) break;
      if (!(ix >= 0 && ix <= INT32_MAX) || ix != floor(ix)) {
        rc = plug_error(cmd, SINEW_ERANGE, pt->raw_attr, ".%s: element %d: bad index %g", pt->raw_attr, el,
                        ix);
        break;
      }
      idx[npairs] = (int32_t)ix;
      val[npairs] = sinew__unit_to_internal(g, wi.type, val[npairs]);
      npairs++;
    }
    i += 2 * (size_t)cnt;
    if (!rc) {
      sinew_plug_t outer = element(pt, base, el);
      char buf[600];
      if (sinew_plug_locked(g, &outer) || sinew_plug_source(g, &outer, NULL)) {
        sinew_plug_format(g, &outer, false, buf, sizeof buf);
        rc = plug_error(cmd, sinew_plug_locked(g, &outer) ? SINEW_ELOCKED : SINEW_ECONNECTED, buf, "%s is %s",
                        buf, sinew_plug_locked(g, &outer) ? "locked" : "connected and cannot be set");
      }
    }
  }
  if (!rc && i != argc)
    rc = plug_error(cmd, SINEW_ESYNTAX, pt->raw_attr, ".%s: %zu values left over after %zu records",
                    pt->raw_attr, argc - i, nel);
  if (!rc) start[nel] = npairs;
  for (size_t e = 0; e < nel && !rc; e++) {
    sinew_plug_t outer = element(pt, base, pt->first + (int32_t)e);
    if ((rc = sinew_set_double_elements(g, &outer, idx + start[e], val + start[e], start[e + 1] - start[e])))
      rc = sinew__graph_error(cmd, rc);
  }
  sinew_free(idx);
  sinew_free(val);
  sinew_free(start);
  return rc;
}

/* The array plug a range is on: the plug at the range's index ("a.cc" of "a.cc[0:9].ccy"). */
static bool range_array(sinew_graph_t *g, const plug_text *pt, const sinew_plug_t *base, sinew_plug_t *out) {
  sinew_plug_t p = element(pt, base, pt->first), up;
  while (!(p.nidx == pt->range_pos && sinew_plug_is_array(g, &p))) {
    if (p.nidx < pt->range_pos || !sinew_plug_parent(g, &p, &up)) return false;
    p = up;
  }
  *out = p;
  return true;
}

/* The indices of a range that flags apply to. After values, every element of the range (they
 * were just set, and there are as many as values). Flags alone name elements to flag, not
 * elements to make: only those that exist, so [0:2147483646] means every element there is.
 * *out is sinew_malloc'd (NULL when *n is 0). */
static int flag_indices(sinew_cmd_t *cmd, sinew_graph_t *g, const plug_text *pt, const sinew_plug_t *base,
                        bool had_values, int32_t **out, size_t *n) {
  *out = NULL;
  *n = 0;
  if (!pt->has_range || had_values) {
    size_t count = pt->has_range ? (size_t)(pt->last - pt->first) + 1 : 1;
    int32_t *ix = sinew_malloc(count * sizeof *ix);
    if (!ix) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    for (size_t i = 0; i < count; i++) ix[i] = (pt->has_range ? pt->first : 0) + (int32_t)i;
    *out = ix;
    *n = count;
    return SINEW_OK;
  }
  sinew_plug_t arr;
  if (!range_array(g, pt, base, &arr))
    return plug_error(cmd, SINEW_EINVAL, pt->raw_attr, "%s: the range is not on an array", pt->raw_attr);
  size_t all = sinew_plug_indices(g, &arr, NULL, 0);
  if (!all) return SINEW_OK;
  int32_t *ix = sinew_malloc(all * sizeof *ix);
  if (!ix) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  all = sinew_plug_indices(g, &arr, ix, all);
  size_t k = 0;
  for (size_t i = 0; i < all; i++)
    if (ix[i] >= pt->first && ix[i] <= pt->last) ix[k++] = ix[i];
  if (!k) {
    sinew_free(ix);
    ix = NULL;
  }
  *out = ix;
  *n = k;
  return SINEW_OK;
}

/* setAttr -k / -cb / -l. Each plug's -k / -cb record is made (and its old values kept in the
 * command's transaction) before its graph flags change; a failure part-way is taken back by
 * the transaction, records included. */
static int apply_flags(sinew_cmd_t *cmd, sinew_graph_t *g, const plug_text *pt, const sinew_plug_t *base,
                       bool had_values) {
  sinew__scene *sc = sinew__session(cmd)->scene;
  bool k = sinew_cmd_flag_count(cmd, "keyable") > 0, cb = sinew_cmd_flag_count(cmd, "channelBox") > 0;
  bool lock = sinew_cmd_flag_count(cmd, "lock") > 0;
  if (!k && !cb && !lock) return SINEW_OK;
  bool kv = sinew_cmd_flag_bool(cmd, "keyable", true), cbv = sinew_cmd_flag_bool(cmd, "channelBox", true);
  bool lv = sinew_cmd_flag_bool(cmd, "lock", true);
  int32_t *ix;
  size_t n;
  int rc = flag_indices(cmd, g, pt, base, had_values, &ix, &n);
  if (rc || !n) return rc;
  for (size_t i = 0; !rc && i < n; i++) {
    sinew_plug_t p = element(pt, base, ix[i]);
    struct sinew__plug_state *st = NULL;
    bool made = false;
    if ((k || cb) && (!(st = sinew__plug_state(sc, &p, true, &made)) || sinew__plug_state_record(sc, st))) {
      if (st && made) sinew__plug_state_drop(sc, base->node, st); /* no record names it */
      rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
      break;
    }
    if (k) rc = sinew_plug_set_keyable(g, &p, kv);
    if (!rc && cb) rc = sinew_plug_set_channel_box(g, &p, cbv);
    if (!rc && lock) rc = sinew_plug_set_locked(g, &p, lv);
    if (rc) {
      rc = sinew__graph_error(cmd, rc);
      break;
    }
    if (k) st->keyable = kv;
    if (cb) st->channel_box = cbv;
  }
  sinew_free(ix);
  return rc;
}

/* setAttr of a componentList (-type "componentList" n "vtx[0:3]" ...) or a pointArray
 * (-type "pointArray" n x y z w ...), the data deformers read: the count first, then the items. */
static int set_deform_data(sinew_cmd_t *cmd, sinew_graph_t *g, const plug_text *pt, const sinew_plug_t *base,
                           const sinew_attr_info_t *info, const char *pbuf) {
  bool list = info->data_type == &sinew_component_list_data_type;
  const char *want = list ? "componentList" : "pointArray";
  const char *type = sinew_cmd_flag_string(cmd, "type", NULL);
  if (!type || strcmp(type, want) != 0)
    return plug_error(cmd, SINEW_ETYPE, pbuf, "%s takes -type \"%s\"", pbuf, want);
  if (pt->has_range) return plug_error(cmd, SINEW_EINVAL, pbuf, "%s: one %s at a time", pbuf, want);
  size_t nvals = sinew_cmd_argc(cmd) - 1;
  double cnt;
  int rc = num_arg(cmd, 1, &cnt);
  if (rc) return rc;
  size_t per = list ? 1 : 4;
  if (cnt < 0 || cnt != floor(cnt) || (nvals - 1) != (size_t)cnt * per)
    return plug_error(cmd, SINEW_EINVAL, pbuf, "%s: %s count %g does not match the %zu value%s given", pbuf,
                      want, cnt, nvals - 1, nvals == 2 ? "" : "s");
  size_t n = (size_t)cnt;
  sinew_data_t *d = NULL;
  if (list) {
    const char **items = sinew_malloc((n ? n : 1) * sizeof *items);
    if (!items) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
      items[i] = sinew_value_string(sinew_cmd_arg(cmd, 2 + i));
      if (!items[i]) items[i] = "";
    }
    rc = sinew_component_list_create(items, n, &d);
    sinew_free(items);
    if (rc == SINEW_EINVAL) return plug_error(cmd, rc, pbuf, "%s: a malformed component in the list", pbuf);
  } else {
    double *v = sinew_malloc((n ? 4 * n : 1) * sizeof *v);
    if (!v) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    for (size_t i = 0; i < 4 * n && !rc; i++) rc = num_arg(cmd, 2 + i, &v[i]);
    if (!rc) rc = sinew_point_array_create(v, n, &d);
    sinew_free(v);
    if (rc && rc != SINEW_ENOMEM) return rc;
  }
  if (rc) return sinew_cmd_error(cmd, rc, "out of memory");
  rc = sinew_set_data(g, base, d);
  sinew_data_unref(d);
  return rc ? sinew__graph_error(cmd, rc) : SINEW_OK;
}

static int set_values(sinew_cmd_t *cmd, sinew_graph_t *g, const plug_text *pt, const sinew_plug_t *base) {
  size_t nvals = sinew_cmd_argc(cmd) - 1;
  const char *type = sinew_cmd_flag_string(cmd, "type", NULL);
  sinew_attr_info_t info;
  sinew_node_attr_info(g, base->node, base->attr, &info);
  int32_t first = pt->has_range ? pt->first : 0, last = pt->has_range ? pt->last : 0;
  size_t nel = (size_t)(last - first + 1);
  char pbuf[600];
  sinew_plug_format(g, base, false, pbuf, sizeof pbuf);
  if (sinew_plug_is_array(g, base) && !pt->has_range)
    return plug_error(cmd, SINEW_EINVAL, pbuf, "%s is an array: give an element or a range", pbuf);
  int rc;
  if (info.type == SINEW_ATTR_MATRIX) {
    if (type && strcmp(type, "matrix") != 0)
      return plug_error(cmd, SINEW_ETYPE, pbuf, "%s is a matrix, not %s", pbuf, type);
    if (nvals != 16 * nel)
      return plug_error(cmd, SINEW_EINVAL, pbuf, "%s: a matrix takes 16 values, got %zu", pbuf, nvals);
    sinew_mat4_t *m = sinew_malloc(nel * sizeof *m);
    if (!m) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    rc = SINEW_OK;
    for (size_t k = 0; k < nvals && !rc; k++) rc = num_arg(cmd, 1 + k, &m[k / 16].m[k % 16 / 4][k % 4]);
    for (size_t e = 0; e < nel && !rc; e++) {
      sinew_plug_t p = element(pt, base, first + (int32_t)e);
      if ((rc = sinew_set_matrix(g, &p, &m[e]))) rc = sinew__graph_error(cmd, rc);
    }
    sinew_free(m);
    return rc;
  }
  if (info.type == SINEW_ATTR_STRING) {
    if (type && strcmp(type, "string") != 0)
      return plug_error(cmd, SINEW_ETYPE, pbuf, "%s is a string, not %s", pbuf, type);
    if (nvals != nel)
      return plug_error(cmd, SINEW_EINVAL, pbuf, "%s: expected %zu string%s, got %zu", pbuf, nel,
                        nel == 1 ? "" : "s", nvals);
    for (size_t e = 0; e < nel; e++) {
      sinew_plug_t p = element(pt, base, first + (int32_t)e);
      if ((rc = sinew_set_string(g, &p, sinew_cmd_arg_string(cmd, 1 + e)))) return sinew__graph_error(cmd, rc);
    }
    return SINEW_OK;
  }
  if (info.type == SINEW_ATTR_DATA && info.data_type == &sinew_xform_data_type) {
    /* dagPose.xm: -type "matrix" "xform" + 37 values */
    if (!type || strcmp(type, "matrix") != 0)
      return plug_error(cmd, SINEW_ETYPE, pbuf, "%s takes -type \"matrix\" \"xform\" ...", pbuf);
    /* every element is read before anything is set */
    sinew_xform_t *xs = sinew_malloc(nel * sizeof *xs);
    if (!xs) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    size_t i = 1;
    rc = SINEW_OK;
    for (size_t e = 0; e < nel && !rc; e++) {
      const char *w = sinew_value_string(sinew_cmd_arg(cmd, i));
      sinew_plug_t ep = element(pt, base, first + (int32_t)e);
      char ebuf[600];
      sinew_plug_format(g, &ep, false, ebuf, sizeof ebuf);
      sinew_xform_t *x = &xs[e];
      if (!(w && strcmp(w, "xform") == 0) && nvals + 1 - i >= 16 &&
          (nvals + 1 - i == 16 || nvals + 1 - i < SINEW_XFORM_VALUES)) {
        /* a plain matrix (older files): stored as the transformation it decomposes into */
        sinew_mat4_t m;
        for (int k = 0; k < 16 && !rc; k++) rc = num_arg(cmd, i + (size_t)k, &m.m[k / 4][k % 4]);
        if (rc) break;
        i += 16;
        sinew_vec3_t t, r, sc, sh;
        if (!sinew_mat4_decompose(&m, SINEW_ROTATE_XYZ, &t, &r, &sc, &sh)) {
          rc = plug_error(cmd, SINEW_EINVAL, ebuf, "%s: the matrix is singular", ebuf);
          break;
        }
        sinew_xform_identity(x);
        double *dst[4] = {x->translate, x->rotate, x->scale, x->shear};
        const sinew_vec3_t *srcv[4] = {&t, &r, &sc, &sh};
        for (int k = 0; k < 4; k++) {
          dst[k][0] = srcv[k]->x;
          dst[k][1] = srcv[k]->y;
          dst[k][2] = srcv[k]->z;
        }
      } else {
        if (w && strcmp(w, "xform") == 0) i++;
        if (i + SINEW_XFORM_VALUES > nvals + 1) {
          rc = plug_error(cmd, SINEW_EINVAL, ebuf, "%s: the xform form takes 37 values, got %zu", ebuf,
                          nvals + 1 - i);
          break;
        }
        double v[SINEW_XFORM_VALUES];
        for (int k = 0; k < SINEW_XFORM_VALUES && !rc; k++) rc = num_arg(cmd, i + (size_t)k, &v[k]);
        if (rc) break;
        i += SINEW_XFORM_VALUES;
        if (sinew_xform_from_values(v, x))
          rc = plug_error(cmd, SINEW_EINVAL, ebuf,
                          "%s: bad xform values (a zero quaternion or a rotate order outside 0..5)", ebuf);
      }
    }
    if (!rc && i != nvals + 1)
      rc = plug_error(cmd, SINEW_EINVAL, pbuf, "%s: %zu values left over", pbuf, nvals + 1 - i);
    for (size_t e = 0; e < nel && !rc; e++) {
      sinew_data_t *d;
      if ((rc = sinew_xform_data_create(&xs[e], &d))) {
        rc = sinew_cmd_error(cmd, rc, "out of memory");
        break;
      }
      sinew_plug_t p = element(pt, base, first + (int32_t)e);
      rc = sinew_set_data(g, &p, d);
      sinew_data_unref(d);
      if (rc) rc = sinew__graph_error(cmd, rc);
    }
    sinew_free(xs);
    return rc;
  }
  if (info.type == SINEW_ATTR_DATA && info.data_type == &sinew_curve_data_type) {
    /* nurbsCurve .cc / .cr: -type "nurbsCurve" degree spans form rational dim nknots knots ncvs cvs */
    if (!type || strcmp(type, "nurbsCurve") != 0)
      return plug_error(cmd, SINEW_ETYPE, pbuf, "%s takes -type \"nurbsCurve\", not %s", pbuf,
                        type ? type : "numbers");
    if (nel != 1) return plug_error(cmd, SINEW_EINVAL, pbuf, "%s: one curve at a time", pbuf);
    double *val = sinew_malloc((nvals ? nvals : 1) * sizeof *val);
    if (!val) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    rc = SINEW_OK;
    for (size_t k = 0; k < nvals && !rc; k++) rc = num_arg(cmd, 1 + k, &val[k]);
    sinew_data_t *d = NULL;
    char why[200];
    if (!rc && (rc = sinew_curve_from_values(val, nvals, &d, why, sizeof why)))
      rc = rc == SINEW_ENOMEM ? sinew_cmd_error(cmd, rc, "out of memory")
                              : plug_error(cmd, rc, pbuf, "%s: bad nurbsCurve: %s", pbuf, why);
    sinew_free(val);
    if (rc) return rc;
    sinew_plug_t p = element(pt, base, first);
    rc = sinew_set_data(g, &p, d);
    sinew_data_unref(d);
    return rc ? sinew__graph_error(cmd, rc) : SINEW_OK;
  }
  if (info.type == SINEW_ATTR_DATA &&
      (info.data_type == &sinew_component_list_data_type || info.data_type == &sinew_point_array_data_type))
    return set_deform_data(cmd, g, pt, base, &info, pbuf);
  size_t gn = 0;
  if ((info.flags & SINEW_ATTR_GENERIC_NUMERIC) && type && (gn = generic_type_count(type))) {
    /* a generic numeric attribute takes a typed triple or matrix as it is (no unit change) */
    if (nvals != gn * nel)
      return plug_error(cmd, SINEW_EINVAL, pbuf, "%s: -type %s takes %zu values per element, got %zu", pbuf,
                        type, gn, nvals);
    double small[48];
    double *val = nvals <= 48 ? small : sinew_malloc(nvals * sizeof *val);
    if (!val) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    rc = SINEW_OK;
    for (size_t k = 0; k < nvals && !rc; k++) rc = num_arg(cmd, 1 + k, &val[k]);
    for (size_t e = 0; e < nel && !rc; e++) {
      sinew_plug_t p = element(pt, base, first + (int32_t)e);
      if ((rc = sinew_set_generic(g, &p, val + e * gn, gn))) rc = sinew__graph_error(cmd, rc);
    }
    if (val != small) sinew_free(val);
    return rc;
  }
  leaf_set ls;
  if (leaves_of(g, base, &ls)) return KEEP_RAW; /* the caller keeps such lines as text */
  if (type && !numeric_type_fits(type, &ls)) {
    if (sinew__session(cmd)->loading) {
      /* kept (Maya's attribute may differ from sinew's), but never silently: the scene now
       * differs from the file until the value is set again */
      char key[300];
      snprintf(key, sizeof key, "%s.%s -type %s", sinew_node_type_name(sinew_node_type(g, pt->node)), info.name,
               type);
      sinew__warn_once(sinew__session(cmd), cmd, SINEW_LOG_FILE_WARNING, key,
                       "%s has type %s, not %s: the value is not used; it is kept as text and written back", pbuf,
                       maya_type_name(&info), type);
      return KEEP_RAW;
    }
    return plug_error(cmd, SINEW_ETYPE, pbuf, "%s is a %s, not %s", pbuf, maya_type_name(&info), type);
  }
  if (nvals != (size_t)ls.n * nel)
    return plug_error(cmd, SINEW_EINVAL, pbuf, "%s: expected %zu value%s (%u per element), got %zu", pbuf,
                      (size_t)ls.n * nel, ls.n * nel == 1 ? "" : "s", ls.n, nvals);
  /* every value is read before anything is set */
  double small[48];
  double *val = nvals <= 48 ? small : sinew_malloc(nvals * sizeof *val);
  if (!val) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  rc = SINEW_OK;
  for (size_t k = 0; k < nvals && !rc; k++)
    if (!(rc = num_arg(cmd, 1 + k, &val[k]))) val[k] = sinew__unit_to_internal(g, ls.type[k % ls.n], val[k]);
  if (!rc && !ls.compound && pt->has_range && pt->range_pos + 1 == base->nidx) {
    /* a plain numeric range goes in one call */
    sinew_plug_t arr = *base;
    arr.nidx = pt->range_pos;
    int32_t *idx = sinew_malloc(nel * sizeof *idx);
    if (!idx) rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    for (size_t e = 0; e < nel && !rc; e++) idx[e] = first + (int32_t)e;
    if (!rc && (rc = sinew_set_double_elements(g, &arr, idx, val, nel))) rc = sinew__graph_error(cmd, rc);
    sinew_free(idx);
  } else {
    for (size_t e = 0; e < nel && !rc; e++) {
      sinew_plug_t p = element(pt, base, first + (int32_t)e);
      rc = ls.compound ? sinew_set_doubles(g, &p, val + e * ls.n, ls.n) : set_number(g, &p, val[e]);
      if (rc) rc = sinew__graph_error(cmd, rc);
    }
  }
  if (val != small) sinew_free(val);
  return rc;
}

static int set_attr(sinew_cmd_t *cmd);

/* setAttr: every failure names the plug. Messages that do not already name it (a value that is
 * not a number, a wrong count) get it in front: "setAttr: tweak1.pl[0].cp[3].xv: 'a lot' is not
 * a number". */
/* An IK joint's rotate is fed by its handle (docs/rigging.md#ik); setAttr on it sets the FK
 * rotation the handle blends with by ikBlend (the joint's hidden sinewFkRotate), as Maya lets an
 * IK joint's rotate be set. A spline handle's start joint's translate likewise (sinewFkTranslate). */
static void ik_fk_redirect(sinew_graph_t *g, sinew_plug_t *p) {
  if (!sinew_node_type_is_a(sinew_node_type(g, p->node), "joint")) return;
  static const char *const pairs[2][3] = {{"rotate", "sinewFkRotate", "sinewIkRotate"},
                                          {"translate", "sinewFkTranslate", "sinewIkRootTranslate"}};
  for (int i = 0; i < 2; i++) {
    uint32_t r = sinew_node_attr(g, p->node, pairs[i][0]), f = sinew_node_attr(g, p->node, pairs[i][1]);
    if (r == UINT32_MAX || f == UINT32_MAX || p->attr < r || p->attr > r + 3) continue;
    sinew_plug_t rp = sinew_plug_make(p->node, r, 0, NULL), src;
    sinew_attr_info_t info;
    if (!sinew_plug_source(g, &rp, &src) || sinew_node_attr_info(g, src.node, src.attr, &info) ||
        strcmp(info.name, pairs[i][2]) != 0)
      return;
    p->attr = f + (p->attr - r);
    return;
  }
}

static int cmd_set_attr(sinew_cmd_t *cmd) {
  int rc = set_attr(cmd);
  const char *text = rc && sinew_cmd_argc(cmd) ? sinew_value_string(sinew_cmd_arg(cmd, 0)) : NULL;
  if (!text || !*text) return rc;
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  const sinew_error_t *e = sinew_lang_error(sinew_cmd_lang(cmd));
  if (e->plug[0] || e->node[0]) return rc; /* the error names what it is about already */
  char plug[600];
  const char *cur = text[0] == '.' && sinew_node_valid(g, s->scene->current) ? sinew_node_name(g, s->scene->current) : "";
  snprintf(plug, sizeof plug, "%s%s", cur, text);
  const char *dot = strchr(text, '.');
  if (text[0] != '.') { /* a missing node: the error is about the node, not this plug */
    char node[512];
    size_t k = dot ? (size_t)(dot - text) : strlen(text);
    snprintf(node, sizeof node, "%.*s", (int)(k < sizeof node ? k : sizeof node - 1), text);
    sinew_node_t n;
    if (sinew_node_find(g, node, &n) != SINEW_OK) return rc;
  }
  sinew_error_t was = *e; /* the reason, under the plug: "setAttr: a.tx: ..." */
  bool other = was.op[0] && strcmp(was.op, sinew_cmd_name(cmd)) != 0;
  sinew_cmd_error(cmd, rc, "%s: %s%s%s", plug, other ? was.op : "", other ? ": " : "", was.reason);
  sinew_cmd_error_subject(cmd, NULL, plug);
  return rc;
}

static int set_attr(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  if (sinew_cmd_argc(cmd) < 1) return sinew_cmd_error(cmd, SINEW_EINVAL, "no attribute given");
  const sinew_value_t *pv = sinew_cmd_arg(cmd, 0);
  if (pv->kind != SINEW_VALUE_STRING) return sinew_cmd_error(cmd, SINEW_EINVAL, "the first argument must name an attribute");
  plug_text pt;
  int rc = split_plug(cmd, sinew_value_string(pv), &pt);
  if (rc) {
    if (!sinew_lang_error(sinew_cmd_lang(cmd))->plug[0]) sinew_cmd_error_subject(cmd, NULL, sinew_value_string(pv));
    return rc;
  }
  size_t nvals = sinew_cmd_argc(cmd) - 1;
  /* mesh geometry lines */
  if (is_mesh(g, pt.node)) {
    const char *a = pt.raw_attr;
    size_t an = strcspn(a, "[.");
    bool ed = (an == 2 && strncmp(a, "ed", 2) == 0) || (an == 4 && strncmp(a, "edge", 4) == 0);
    bool fc = (an == 2 && strncmp(a, "fc", 2) == 0) || (an == 4 && strncmp(a, "face", 4) == 0);
    /* a size hint alone (setAttr -s 12 ".ed"): the lines with values say it again */
    if ((ed || fc) && !nvals && !a[an] && !sinew_cmd_flag_count(cmd, "lock")) return SINEW_OK;
    if ((ed || fc) && nvals) {
      sinew__extra *e = sinew__extra_get(s->scene, pt.node, true);
      if (!e) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
      sinew__side_changed(s->scene);
      if (!e->mesh.active) { /* a new set of lines replaces what an earlier one built */
        for (uint32_t i = 0; i < e->ngeom; i++) {
          sinew_free(e->geom[i].attr);
          sinew_free(e->geom[i].text);
        }
        e->ngeom = 0;
      }
      rc = ed ? set_edges(cmd, e, &pt) : set_faces(cmd, e, &pt);
      if (!rc && keep_geom_line(cmd, e, &pt)) rc = sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
      return rc;
    }
  }
  if (sinew__is_alias_list_attr(pt.raw_attr) && !sinew__is_placeholder(g, pt.node) &&
      sinew_node_attr(g, pt.node, pt.raw_attr) == UINT32_MAX && nvals)
    return sinew__set_alias_list(cmd, pt.node); /* the node's aliases, kept by the graph */
  sinew_plug_t base;
  bool parsed = sinew_plug_parse_attr(g, pt.node, pt.attr, &base) == SINEW_OK;
  /* a placeholder keeps its values as text, except those of attributes addAttr gave it: they
   * are real attributes, set and read back as on any node */
  bool placeholder = sinew__is_placeholder(g, pt.node) && !(parsed && added_attr(s, g, &base));
  if (placeholder || !parsed) {
    /* an attribute sinew does not have: kept as text (files), an error (scripts) */
    if (!placeholder && !s->loading) /* cmd_set_attr names the plug */
      return sinew_cmd_error(cmd, SINEW_ENOTFOUND, "%s has no attribute '%s'", sinew_node_name(g, pt.node),
                             pt.raw_attr);
    if (!placeholder) {
      char key[300];
      char attr0[128];
      size_t k = strcspn(pt.raw_attr, ".[");
      snprintf(attr0, sizeof attr0, "%.*s", (int)(k < 120 ? k : 120), pt.raw_attr);
      snprintf(key, sizeof key, "%s.%s", sinew_node_type_name(sinew_node_type(g, pt.node)), attr0);
      sinew__warn_once(s, cmd, SINEW_LOG_UNKNOWN_ATTR, key,
                       "%s has no attribute '%s' in sinew; its value is kept as text and written back",
                       key, attr0);
    }
    return keep_raw(cmd, &pt);
  }
  if (!pt.has_range) ik_fk_redirect(g, &base);
  /* the compact weight form: a range, then a child array with no index */
  sinew_attr_info_t info;
  sinew_node_attr_info(g, base.node, base.attr, &info);
  bool compact = pt.has_range && pt.after_range[0] && sinew_plug_is_array(g, &base) &&
                 !strchr(pt.after_range, '[');
  if (nvals && !compact && pt.has_range && (size_t)(pt.last - pt.first) + 1 > nvals) {
    char pbuf[600];
    sinew_plug_format(g, &base, false, pbuf, sizeof pbuf);
    return plug_error(cmd, SINEW_EINVAL, pbuf,
                      "%s: the range [%d:%d] needs at least one value per element, got %zu", pbuf, pt.first,
                      pt.last, nvals);
  }
  if (nvals && !compact && (rc = check_settable(cmd, g, &pt, &base))) return rc;
  if (nvals) {
    if (compact) rc = set_compact(cmd, g, &pt, &base);
    else rc = set_values(cmd, g, &pt, &base);
    if (rc == KEEP_RAW) {
      /* a data type sinew does not read (stringArray, nurbsCurve, ...): kept as text, and
       * in scripts only on data attributes (addAttr -dt) */
      if (!s->loading && (info.type != SINEW_ATTR_DATA || sinew_plug_is_array(g, &base))) {
        const char *type = sinew_cmd_flag_string(cmd, "type", NULL);
        char pbuf[600];
        snprintf(pbuf, sizeof pbuf, "%s.%s", sinew_node_name(g, pt.node), pt.raw_attr);
        return plug_error(cmd, SINEW_ETYPE, pbuf, "%s: values of type %s are not supported", pbuf,
                          type ? type : sinew_attr_type_name(info.type));
      }
      return keep_raw(cmd, &pt);
    }
    if (rc == SINEW_EREADONLY && s->loading) {
      /* files store some computed values; sinew computes them itself */
      char key[300];
      snprintf(key, sizeof key, "%s.%s (output)", sinew_node_type_name(sinew_node_type(g, pt.node)), info.name);
      sinew__warn_once(s, cmd, SINEW_LOG_FILE_WARNING, key,
                       "%s is computed by sinew; the stored value is kept as text", key);
      return keep_raw(cmd, &pt);
    }
    if (rc) return rc;
  }
  return apply_flags(cmd, g, &pt, &base, nvals > 0);
}

/* ---- getAttr ---------------------------------------------------------------------------------------- */

static const sinew_cmd_flag_t getattr_flags[] = {
    {"type", "typ", "", 0},   {"size", "s", "", 0},         {"lock", "l", "", 0},
    {"keyable", "k", "", 0},  {"channelBox", "cb", "", 0},  {"settable", "se", "", 0},
    {"asString", "as", "", 0}, {"silent", "sl", "", 0},     {"multiIndices", "mi", "", 0},
    {"time", "t", "t", 0}};

/* One word of a kept setAttr line: a quoted string (unescaped) or a bare word. */
static const char *next_word(const char *c, sinew__buf *w, bool *quoted) {
  while (*c == ' ' || *c == '\t' || *c == '\n' || *c == '\r') c++;
  if (!*c) return NULL;
  w->n = 0;
  sinew__buf_put(w, "", 0);
  *quoted = *c == '"';
  if (*quoted) {
    for (c++; *c && *c != '"'; c++) {
      char ch = *c;
      if (ch == '\\' && c[1]) {
        c++;
        ch = *c == 'n' ? '\n' : *c == 't' ? '\t' : *c == 'r' ? '\r' : *c;
      }
      sinew__buf_put(w, &ch, 1);
    }
    return *c ? c + 1 : c;
  }
  const char *b = c;
  while (*c && *c != ' ' && *c != '\t' && *c != '\n' && *c != '\r') c++;
  sinew__buf_put(w, b, (size_t)(c - b));
  return c;
}

/* getAttr of a value kept as text (a data type sinew does not model: stringArray, doubleArray,
 * Int32Array, componentList ...): the items after the count, as a string or number array.
 * SINEW_ENOTFOUND when the plug has no kept value. */
static bool flag_takes_arg(const char *f) {
  static const char *const with_arg[] = {"-k", "-keyable", "-l", "-lock", "-cb", "-channelBox", "-s", "-size",
                                         "-ca", "-caching", "-type", "-typ"};
  for (size_t i = 0; i < sizeof with_arg / sizeof with_arg[0]; i++)
    if (strcmp(f, with_arg[i]) == 0) return true;
  return false;
}

/* getAttr of a value kept as text: the words after the plug and its flags. Plain numbers come
 * back as a number (one) or a float array; data arrays (-type doubleArray, stringArray ...) as
 * their items without the leading count; anything else as words. */
static int get_kept_text(sinew_cmd_t *cmd, sinew_node_t n, const char *lng, const char *sht) {
  sinew_session_t *s = sinew__session(cmd);
  sinew__extra *e = sinew__extra_get(s->scene, n, false);
  const char *text = NULL;
  for (uint32_t i = 0; e && i < e->nraws && !text; i++)
    if (strcmp(e->raws[i].attr, lng) == 0 || strcmp(e->raws[i].attr, sht) == 0) text = e->raws[i].text;
  if (!text) return SINEW_ENOTFOUND;
  sinew__buf w = {0}, vals = {0}; /* vals: the value words, each NUL-terminated */
  bool q, seen_plug = false, all_numbers = true, counted = false, strings = false;
  size_t nvals = 0;
  const char *c = text;
  while ((c = next_word(c, &w, &q)) && !w.oom) {
    if (!seen_plug) { /* the plug as written comes first */
      seen_plug = q;
      continue;
    }
    char *end;
    bool number = !q && w.n && (strtod(w.p, &end), *end == 0);
    if (!q && !number && w.p[0] == '-') {
      if (flag_takes_arg(w.p)) {
        bool is_type = strcmp(w.p, "-type") == 0 || strcmp(w.p, "-typ") == 0;
        if (!(c = next_word(c, &w, &q))) break;
        if (is_type) {
          counted = strstr(w.p, "Array") != NULL || strcmp(w.p, "componentList") == 0;
          strings = strcmp(w.p, "string") == 0 || strcmp(w.p, "stringArray") == 0;
        }
      }
      continue;
    }
    if (!number) all_numbers = false;
    sinew__buf_put(&vals, w.p, w.n + 1);
    nvals++;
  }
  int rc = w.oom || vals.oom ? sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory") : SINEW_OK;
  const char *v = vals.p;
  if (!rc && counted && nvals) { /* the item count Maya writes before the items */
    v += strlen(v) + 1;
    nvals--;
  }
  if (rc) {
  } else if (all_numbers && !strings && nvals == 1 && !counted) {
    rc = sinew_cmd_result_double(cmd, strtod(v, NULL));
  } else if (strings && !counted && nvals == 1) {
    rc = sinew_cmd_result_string(cmd, v);
  } else {
    bool numbers = all_numbers && !strings;
    rc = sinew_cmd_result_empty_array(cmd, numbers ? SINEW_VALUE_FLOAT_ARRAY : SINEW_VALUE_STRING_ARRAY);
    for (size_t i = 0; i < nvals && !rc; i++, v += strlen(v) + 1)
      rc = numbers ? sinew_cmd_result_append_double(cmd, strtod(v, NULL)) : sinew_cmd_result_append_string(cmd, v);
  }
  sinew__buf_free(&w);
  sinew__buf_free(&vals);
  return rc;
}

/* The data type a value kept as text was set with (setAttr -type stringArray ...): getAttr
 * -type gives it, as Maya gives the data type of a typed attribute. Empty when none. */
static void kept_type(sinew_cmd_t *cmd, sinew_graph_t *g, const sinew_plug_t *p, char *out, size_t size) {
  char lng[600], sht[600];
  sinew_plug_format_attr(g, p, false, lng, sizeof lng);
  sinew_plug_format_attr(g, p, true, sht, sizeof sht);
  out[0] = 0;
  sinew__extra *e = sinew__extra_get(sinew__session(cmd)->scene, p->node, false);
  const char *text = NULL;
  for (uint32_t i = 0; e && i < e->nraws && !text; i++)
    if (strcmp(e->raws[i].attr, lng) == 0 || strcmp(e->raws[i].attr, sht) == 0) text = e->raws[i].text;
  sinew__buf w = {0};
  bool q;
  for (const char *c = text; c && (c = next_word(c, &w, &q)) && !w.oom;)
    if (!q && (strcmp(w.p, "-type") == 0 || strcmp(w.p, "-typ") == 0)) {
      if ((c = next_word(c, &w, &q)) && !w.oom) snprintf(out, size, "%s", w.p);
      break;
    }
  sinew__buf_free(&w);
}

static int get_kept(sinew_cmd_t *cmd, sinew_graph_t *g, const sinew_plug_t *p) {
  char lng[600], sht[600];
  sinew_plug_format_attr(g, p, false, lng, sizeof lng);
  sinew_plug_format_attr(g, p, true, sht, sizeof sht);
  return get_kept_text(cmd, p->node, lng, sht);
}

static int get_value(sinew_cmd_t *cmd, sinew_graph_t *g, const sinew_plug_t *p, bool append) {
  sinew_attr_info_t info;
  sinew_node_attr_info(g, p->node, p->attr, &info);
  int rc;
  if (info.flags & SINEW_ATTR_GENERIC_NUMERIC) {
    /* a generic numeric attribute prints every number it holds (one, a triple, a matrix) */
    double v[SINEW_GENERIC_MAX];
    size_t n = 0;
    if ((rc = sinew_get_generic(g, p, v, SINEW_GENERIC_MAX, &n))) return sinew__graph_error(cmd, rc);
    if (n == 1 && !append) return sinew_cmd_result_double(cmd, v[0]);
    for (size_t k = 0; k < n && k < SINEW_GENERIC_MAX; k++)
      if ((rc = sinew_cmd_result_append_double(cmd, v[k]))) return rc;
    return SINEW_OK;
  }
  if (sinew_attr_type_is_numeric(info.type)) {
    double v;
    if ((rc = sinew_get_double(g, p, &v))) return sinew__graph_error(cmd, rc);
    v = sinew__unit_to_ui(g, info.type, v);
    if (sinew_cmd_flag_count(cmd, "asString") && info.type == SINEW_ATTR_ENUM) {
      const char *nm = sinew_attr_enum_name(g, p->node, p->attr, (int)v);
      return append ? sinew_cmd_result_append_string(cmd, nm ? nm : "") : sinew_cmd_result_string(cmd, nm ? nm : "");
    }
    bool integral = info.type == SINEW_ATTR_BOOL || info.type == SINEW_ATTR_INT || info.type == SINEW_ATTR_ENUM;
    if (append) return sinew_cmd_result_append_double(cmd, v);
    return integral ? sinew_cmd_result_int(cmd, (int64_t)v) : sinew_cmd_result_double(cmd, v);
  }
  switch (info.type) {
    case SINEW_ATTR_COMPOUND: {
      double v[16];
      size_t n = 0;
      if ((rc = sinew_get_doubles(g, p, v, 16, &n))) return sinew__graph_error(cmd, rc);
      for (size_t k = 0; k < n && k < 16; k++) {
        sinew_attr_info_t ci;
        sinew_node_attr_info(g, p->node, info.children[k], &ci);
        if ((rc = sinew_cmd_result_append_double(cmd, sinew__unit_to_ui(g, ci.type, v[k])))) return rc;
      }
      return SINEW_OK;
    }
    case SINEW_ATTR_MATRIX: {
      sinew_mat4_t m;
      if ((rc = sinew_get_matrix(g, p, &m))) return sinew__graph_error(cmd, rc);
      for (int k = 0; k < 16; k++)
        if ((rc = sinew_cmd_result_append_double(cmd, m.m[k / 4][k % 4]))) return rc;
      return SINEW_OK;
    }
    case SINEW_ATTR_STRING: {
      const char *s;
      if ((rc = sinew_get_string(g, p, &s))) return sinew__graph_error(cmd, rc);
      return append ? sinew_cmd_result_append_string(cmd, s) : sinew_cmd_result_string(cmd, s);
    }
    default: {
      if (info.type == SINEW_ATTR_DATA && (info.data_type == &sinew_component_list_data_type ||
                                           info.data_type == &sinew_point_array_data_type)) {
        /* a componentList gives its items (strings), a pointArray its x y z w numbers */
        sinew_data_t *d = NULL;
        if ((rc = sinew_get_data(g, p, &d))) return sinew__graph_error(cmd, rc);
        bool list = info.data_type == &sinew_component_list_data_type;
        size_t n = 0;
        const double *v = list ? NULL : sinew_point_array_get(d, &n);
        if (list) n = sinew_component_list_count(d);
        if (!append)
          rc = sinew_cmd_result_empty_array(cmd, list ? SINEW_VALUE_STRING_ARRAY : SINEW_VALUE_FLOAT_ARRAY);
        for (size_t i = 0; i < (list ? n : 4 * n) && !rc; i++)
          rc = list ? sinew_cmd_result_append_string(cmd, sinew_component_list_item(d, i))
                    : sinew_cmd_result_append_double(cmd, v[i]);
        sinew_data_unref(d);
        return rc;
      }
      rc = get_kept(cmd, g, p);
      if (rc != SINEW_ENOTFOUND) return rc;
      char buf[600];
      sinew_plug_format(g, p, false, buf, sizeof buf);
      return sinew_cmd_error(cmd, SINEW_ETYPE, "%s holds %s data, which getAttr does not return", buf,
                             maya_type_name(&info));
    }
  }
}

static int cmd_get_attr(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  if (sinew_cmd_argc(cmd) != 1) return sinew_cmd_error(cmd, SINEW_EINVAL, "give one attribute");
  sinew_plug_t p;
  const char *text = sinew_cmd_arg_string(cmd, 0);
  /* names resolve as every command resolves them (inside a file being imported, the file's
   * own nodes first) */
  if (sinew__cmd_plug(cmd, text, &p) != SINEW_OK) {
    /* a value kept as text (placeholder nodes, attributes sinew does not have) */
    plug_text pt;
    if (split_plug(cmd, text, &pt) == SINEW_OK && !pt.has_range &&
        get_kept_text(cmd, pt.node, pt.raw_attr, pt.raw_attr) == SINEW_OK)
      return SINEW_OK;
    return sinew__cmd_plug(cmd, text, &p); /* fails again, with its own message */
  }
  int rc;
  sinew_attr_info_t info;
  sinew_node_attr_info(g, p.node, p.attr, &info);
  if (sinew_cmd_flag_count(cmd, "type")) {
    char kept[64] = "";
    if (info.type == SINEW_ATTR_DATA) kept_type(cmd, g, &p, kept, sizeof kept);
    return sinew_cmd_result_string(cmd, kept[0] ? kept : maya_type_name(&info));
  }
  if (sinew_cmd_flag_count(cmd, "lock")) return sinew_cmd_result_int(cmd, sinew_plug_locked(g, &p));
  if (sinew_cmd_flag_count(cmd, "settable"))
    return sinew_cmd_result_int(cmd, (info.flags & SINEW_ATTR_WRITABLE) && !sinew_plug_locked(g, &p) &&
                                         !sinew_plug_source(g, &p, NULL));
  if (sinew_cmd_flag_count(cmd, "keyable") || sinew_cmd_flag_count(cmd, "channelBox")) {
    struct sinew__plug_state *st = sinew__plug_state(sinew__session(cmd)->scene, &p, false, NULL);
    if (sinew_cmd_flag_count(cmd, "keyable"))
      return sinew_cmd_result_int(cmd, st && st->keyable >= 0 ? st->keyable : (info.flags & SINEW_ATTR_KEYABLE) != 0);
    return sinew_cmd_result_int(cmd, st && st->channel_box >= 0 ? st->channel_box : 0);
  }
  if (sinew_cmd_flag_count(cmd, "time")) {
    double seconds = sinew_cmd_flag_double(cmd, "time", 0, 0), now = 0;
    sinew_time_get_seconds(g, &now);
    if ((rc = sinew_time_set_seconds(g, seconds))) return sinew__graph_error(cmd, rc);
    rc = get_value(cmd, g, &p, false);
    sinew_time_set_seconds(g, now);
    return rc;
  }
  if (sinew_plug_is_array(g, &p) && !(info.flags & SINEW_ATTR_WRITABLE) && !sinew_cmd_flag_count(cmd, "size") &&
      !sinew_cmd_flag_count(cmd, "multiIndices") && sinew_plug_indices(g, &p, NULL, 0) == 0) {
    /* an output array not computed yet (worldMatrix): Maya reads its first element */
    sinew_plug_t e;
    if (sinew_plug_element(g, &p, 0, &e) == SINEW_OK) return get_value(cmd, g, &e, false);
  }
  if (sinew_plug_is_array(g, &p)) {
    size_t n = sinew_plug_indices(g, &p, NULL, 0);
    if (sinew_cmd_flag_count(cmd, "size")) return sinew_cmd_result_int(cmd, (int64_t)n);
    int32_t *idx = sinew_malloc((n ? n : 1) * sizeof *idx);
    if (!idx) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    sinew_plug_indices(g, &p, idx, n);
    rc = sinew_cmd_result_empty_array(cmd, sinew_cmd_flag_count(cmd, "multiIndices") ? SINEW_VALUE_INT_ARRAY
                                                                                      : SINEW_VALUE_FLOAT_ARRAY);
    for (size_t k = 0; k < n && !rc; k++) {
      if (sinew_cmd_flag_count(cmd, "multiIndices")) {
        rc = sinew_cmd_result_append_int(cmd, idx[k]);
        continue;
      }
      sinew_plug_t e;
      sinew_plug_element(g, &p, idx[k], &e);
      rc = get_value(cmd, g, &e, true);
    }
    sinew_free(idx);
    return rc;
  }
  if (sinew_cmd_flag_count(cmd, "size")) return sinew_cmd_result_int(cmd, 1);
  return get_value(cmd, g, &p, false);
}

/* ---- connectAttr / disconnectAttr ------------------------------------------------------------------- */

static const sinew_cmd_flag_t connect_flags[] = {
    {"force", "f", "", 0}, {"nextAvailable", "na", "", 0}, {"lock", "l", "b", 0},
    {"referenceDest", "rd", "s", 0}};

/* resolve_end's answers besides a status: the end does not exist yet (resolve the other end
 * first, to shape it like that one), and the end cannot be made (keep the line as text).
 * Positive, so that they never mix with status codes. */
#define RESOLVE_LATER 1
#define RESOLVE_AS_TEXT 2

/* Resolves one end; an attribute the node does not have is made on placeholders (and on any
 * node while a file loads) shaped like the other end. */
static int resolve_end(sinew_cmd_t *cmd, const char *text, const sinew_plug_t *like, bool next_available,
                       sinew_plug_t *out, uint32_t *made) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  plug_text pt;
  int rc = split_plug(cmd, text, &pt);
  if (rc) return rc;
  *made = UINT32_MAX;
  if (pt.has_range) return sinew_cmd_error(cmd, SINEW_EINVAL, "%s: a range cannot be connected", text);
  if (sinew_plug_parse_attr(g, pt.node, pt.attr, out) == SINEW_OK) return SINEW_OK;
  if (!like && !s->loading && !sinew__is_placeholder(g, pt.node)) return RESOLVE_LATER; /* try the other end first */
  if (!s->loading && !sinew__is_placeholder(g, pt.node))
    return sinew__cmd_plug(cmd, text, out);
  char path[520];
  snprintf(path, sizeof path, "%s%s", pt.attr, next_available && !strchr(pt.attr, '[') ? "[]" : "");
  uint32_t before = sinew_node_attr_count(g, pt.node);
  rc = sinew__implicit_attr(s, pt.node, path, like, out);
  if (sinew_node_attr_count(g, pt.node) > before) *made = before;
  if (rc == SINEW_OK && next_available && !strchr(pt.attr, '[')) {
    sinew_plug_t whole;
    if (sinew_plug_parse_attr(g, pt.node, pt.attr, &whole) == SINEW_OK) *out = whole;
  }
  if (rc) {
    if (rc == SINEW_EUNSUPPORTED) return RESOLVE_AS_TEXT; /* the caller keeps the line as text */
    if (rc == SINEW_EINVAL) return sinew_cmd_error(cmd, rc, "%s: '%s' is not an attribute name", text, pt.attr);
    return sinew_cmd_error(cmd, rc, "%s: cannot hold the connection: %s", text, sinew_graph_errmsg(g));
  }
  return SINEW_OK;
}

/* While a file loads, a connection the graph cannot hold is kept as text. */
static int keep_raw_conn(sinew_cmd_t *cmd, const char *src, const char *dst, const char *why) {
  sinew_session_t *s = sinew__session(cmd);
  sinew__scene *sc = s->scene;
  plug_text a, b;
  int rc = split_plug(cmd, src, &a);
  if (!rc) rc = split_plug(cmd, dst, &b);
  if (rc) return rc;
  if (sc->nraw_conns == sc->craw_conns) {
    uint32_t nc = sc->craw_conns ? sc->craw_conns * 2 : 16;
    sinew__raw_conn *p = sinew_realloc(sc->raw_conns, nc * sizeof *p);
    if (!p) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    sc->raw_conns = p;
    sc->craw_conns = nc;
  }
  size_t la = strlen(a.raw_attr), lb = strlen(b.raw_attr);
  char *sa = sinew_malloc(la + 1), *da = sinew_malloc(lb + 1);
  if (!sa || !da) {
    sinew_free(sa);
    sinew_free(da);
    return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  }
  memcpy(sa, a.raw_attr, la + 1);
  memcpy(da, b.raw_attr, lb + 1);
  sc->raw_conns[sc->nraw_conns++] = (sinew__raw_conn){a.node, b.node, sa, da};
  sinew__side_changed(sc);
  sc->stats.raw_connections++;
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  char key[300];
  snprintf(key, sizeof key, "conn %s -> %s", sinew_node_type_name(sinew_node_type(g, a.node)),
           sinew_node_type_name(sinew_node_type(g, b.node)));
  sinew__warn_once(s, cmd, SINEW_LOG_FILE_WARNING, key,
                   "%s -> %s kept as text (%s); no value flows through it", src, dst, why);
  return SINEW_OK;
}

static bool is_type(sinew_graph_t *g, sinew_node_t n, const char *t) {
  return sinew_node_type_is_a(sinew_node_type(g, n), t);
}

/* The unit kind of a plug for conversion: a numeric scalar's type; for a numeric compound
 * (rotate, color1) the kind its children share (ANGLE for rotate, DOUBLE for a float3), with
 * *count its child count. false when the plug is neither, or its children mix angles, times and
 * plain numbers, or it is a generic numeric attribute (it takes its source's unit as it is). */
static bool unit_kind(sinew_graph_t *g, const sinew_plug_t *p, const sinew_attr_info_t *info,
                      sinew_attr_type_t *kind, uint32_t *count) {
  if (info->flags & SINEW_ATTR_GENERIC_NUMERIC) return false;
  if (sinew_attr_type_is_numeric(info->type)) {
    *kind = info->type;
    *count = 1;
    return true;
  }
  if (info->type != SINEW_ATTR_COMPOUND || !info->child_count) return false;
  sinew_attr_type_t k = SINEW_ATTR_INVALID;
  for (uint32_t i = 0; i < info->child_count; i++) {
    sinew_attr_info_t ci;
    if (sinew_node_attr_info(g, p->node, info->children[i], &ci) || !sinew_attr_type_is_numeric(ci.type) ||
        (ci.flags & SINEW_ATTR_ARRAY))
      return false;
    sinew_attr_type_t c = ci.type == SINEW_ATTR_ANGLE || ci.type == SINEW_ATTR_TIME ? ci.type : SINEW_ATTR_DOUBLE;
    if (i && c != k) return false;
    k = c;
  }
  *kind = k;
  *count = info->child_count;
  return true;
}

/* Maya puts a unitConversion node between an angle and a plain number, and between an angle
 * triple and a plain triple (joint.r -> blendColors.color1, blendColors.output -> joint.r): the
 * unitConversion then carries the triple. Factor for src -> dst, 0 when none is needed. */
static double conversion_needed(sinew_graph_t *g, const sinew_plug_t *src, const sinew_plug_t *dst) {
  if (is_type(g, src->node, "unitConversion") || is_type(g, dst->node, "unitConversion") ||
      is_type(g, src->node, "expression") || is_type(g, dst->node, "expression") ||
      sinew__is_placeholder(g, src->node) || sinew__is_placeholder(g, dst->node))
    return 0;
  sinew_attr_info_t si, di;
  if (sinew_node_attr_info(g, src->node, src->attr, &si) || sinew_node_attr_info(g, dst->node, dst->attr, &di))
    return 0;
  sinew_attr_type_t sk, dk;
  uint32_t sn, dn;
  if (!unit_kind(g, src, &si, &sk, &sn) || !unit_kind(g, dst, &di, &dk, &dn) || sn != dn) return 0;
  if (sinew_plug_is_array(g, src) || sinew_plug_is_array(g, dst)) return 0;
  bool st = sk == SINEW_ATTR_TIME, dtm = dk == SINEW_ATTR_TIME;
  if (st != dtm) {
    /* time <-> a plain number: frames in the scene's time unit, as Maya converts */
    if (sk == SINEW_ATTR_ANGLE || dk == SINEW_ATTR_ANGLE) return 0;
    double fps = sinew_time_unit_fps(sinew_time_get_unit(g));
    return st ? fps : 1.0 / fps;
  }
  bool sa = sk == SINEW_ATTR_ANGLE, da = dk == SINEW_ATTR_ANGLE;
  if (sa == da || st || dtm) return 0;
  double r = sinew_angle_unit_radians(sinew_scene_angle_unit(g));
  return sa ? 1.0 / r : r;
}

/* Takes back an attribute a failed connectAttr made to hold it (and its implicit marks). */
static void unmake_attr(sinew_session_t *s, sinew_graph_t *g, sinew_node_t n, uint32_t attr) {
  if (attr == UINT32_MAX || sinew_node_remove_attr(g, n, attr)) return;
  sinew__plug_states_prune(s->scene, n);
  sinew__extra *e = sinew__extra_get(s->scene, n, false);
  if (e && e->nimplicit) sinew__side_changed(s->scene);
  for (uint32_t i = 0; e && i < e->nimplicit;)
    if (e->implicit[i] >= attr) e->implicit[i] = e->implicit[--e->nimplicit];
    else i++;
}

static int connect_attr(sinew_cmd_t *cmd, sinew_plug_t *src, sinew_plug_t *dst, uint32_t *made_src,
                        uint32_t *made_dst, bool *connected);

static int cmd_connect_attr(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  sinew_plug_t src = {0}, dst = {0};
  uint32_t made_src = UINT32_MAX, made_dst = UINT32_MAX;
  bool connected = false;
  int rc = connect_attr(cmd, &src, &dst, &made_src, &made_dst, &connected);
  if (!connected) {
    /* attributes made for a connection that was not made (failed, or kept as text) go */
    unmake_attr(s, g, dst.node, made_dst);
    unmake_attr(s, g, src.node, made_src);
  }
  return rc;
}

static int connect_plugs(sinew_cmd_t *cmd, sinew_graph_t *g, const sinew_plug_t *src, const sinew_plug_t *dst,
                         uint32_t flags, double factor, sinew_plug_t *final_dst);

static int connect_attr(sinew_cmd_t *cmd, sinew_plug_t *src, sinew_plug_t *dst, uint32_t *made_src,
                        uint32_t *made_dst, bool *connected) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  if (sinew_cmd_argc(cmd) != 2) return sinew_cmd_error(cmd, SINEW_EINVAL, "usage: connectAttr <source> <destination>");
  const char *st = sinew_cmd_arg_string(cmd, 0), *dt = sinew_cmd_arg_string(cmd, 1);
  bool na = sinew_cmd_flag_count(cmd, "nextAvailable") > 0;
  sinew_session_t *s = sinew__session(cmd);
  int rc = resolve_end(cmd, st, NULL, false, src, made_src);
  bool src_later = rc == RESOLVE_LATER;
  if (rc == RESOLVE_AS_TEXT) return keep_raw_conn(cmd, st, dt, "an attribute sinew cannot add");
  if (rc && !src_later) return rc;
  if ((rc = resolve_end(cmd, dt, src_later ? NULL : src, na, dst, made_dst)) && rc != RESOLVE_LATER) {
    if (rc == RESOLVE_AS_TEXT) return keep_raw_conn(cmd, st, dt, "an attribute sinew cannot add");
    return rc;
  }
  if (rc == RESOLVE_LATER) return sinew__cmd_plug(cmd, dt, dst); /* neither end exists: name the destination */
  if (src_later && (rc = resolve_end(cmd, st, dst, false, src, made_src))) {
    if (rc == RESOLVE_LATER) return sinew__cmd_plug(cmd, st, src);
    if (rc == RESOLVE_AS_TEXT) return keep_raw_conn(cmd, st, dt, "an attribute sinew cannot add");
    return rc;
  }
  uint32_t flags = 0;
  if (sinew_cmd_flag_count(cmd, "force")) flags |= SINEW_CONNECT_FORCE;
  if (na && sinew_plug_is_array(g, dst)) flags |= SINEW_CONNECT_NEXT_AVAILABLE;
  double factor = conversion_needed(g, src, dst);
  sinew_plug_t final_dst = *dst;
  /* Maya writes a plug's lock (setAttr -l on) before the connections into it, and makes them
   * when it reads its own files: reading a file, a locked destination is connected and stays
   * locked. A script still gets the error. */
  if (s->loading) flags |= SINEW_CONNECT_IGNORE_LOCK;
  rc = connect_plugs(cmd, g, src, dst, flags, factor, &final_dst);
  if (rc == KEEP_RAW) return keep_raw_conn(cmd, st, dt, "types sinew cannot join");
  if (rc) return rc;
  *connected = true;
  if (sinew_cmd_flag_count(cmd, "lock") && sinew_cmd_flag_bool(cmd, "lock", false))
    sinew_plug_set_locked(g, &final_dst, true);
  /* Maya returns "a phrase containing the names of the connected attributes" (a string) */
  char a[600], b[600], phrase[1300];
  sinew_plug_format(g, src, false, a, sizeof a);
  sinew_plug_format(g, &final_dst, false, b, sizeof b);
  snprintf(phrase, sizeof phrase, "Connected %s to %s.", a, b);
  return sinew_cmd_result_string(cmd, phrase);
}

/* The connection itself: straight, or through a new unitConversion node when the units differ
 * (a failing step is taken back by the command's transaction). KEEP_RAW when a file connects
 * types sinew cannot join. */
static int connect_plugs(sinew_cmd_t *cmd, sinew_graph_t *g, const sinew_plug_t *src, const sinew_plug_t *dst,
                         uint32_t flags, double factor, sinew_plug_t *final_dst) {
  int rc;
  if (factor != 0) {
    sinew_node_t uc;
    if ((rc = sinew_node_create(g, "unitConversion", NULL, &uc))) return sinew__graph_error(cmd, rc);
    sinew_plug_t cf, in, out;
    sinew_plug_parse_attr(g, uc, "conversionFactor", &cf);
    sinew_plug_parse_attr(g, uc, "input", &in);
    sinew_plug_parse_attr(g, uc, "output", &out);
    if ((rc = sinew_set_double(g, &cf, factor)) || (rc = sinew_connect(g, src, &in, 0, NULL)) ||
        (rc = sinew_connect(g, &out, dst, flags, final_dst)))
      return sinew_cmd_error(cmd, rc, "%s", sinew_graph_errmsg(g));
  } else if ((rc = sinew_connect(g, src, dst, flags, final_dst))) {
    if (rc == SINEW_ETYPE && sinew__session(cmd)->loading) return KEEP_RAW;
    return sinew__graph_error(cmd, rc);
  }
  return SINEW_OK;
}

static const sinew_cmd_flag_t disconnect_flags[] = {{"nextAvailable", "na", "", 0}};

/* Maya returns "a phrase containing the names of the disconnected attributes" (a string; the
 * wording here is sinew's, after connectAttr's). */
static int disconnect_result(sinew_cmd_t *cmd, const sinew_plug_t *src, const sinew_plug_t *dst) {
  char a[600], b[600], phrase[1300];
  sinew_plug_format(sinew_cmd_graph(cmd), src, false, a, sizeof a);
  sinew_plug_format(sinew_cmd_graph(cmd), dst, false, b, sizeof b);
  snprintf(phrase, sizeof phrase, "Disconnected %s from %s.", a, b);
  return sinew_cmd_result_string(cmd, phrase);
}

static int cmd_disconnect_attr(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  if (sinew_cmd_argc(cmd) != 2) return sinew_cmd_error(cmd, SINEW_EINVAL, "usage: disconnectAttr <source> <destination>");
  sinew_plug_t src, dst;
  int rc = sinew__cmd_plug(cmd, sinew_cmd_arg_string(cmd, 0), &src);
  if (!rc) rc = sinew__cmd_plug(cmd, sinew_cmd_arg_string(cmd, 1), &dst);
  if (rc) return rc;
  /* a unitConversion between them goes too */
  sinew_plug_t actual;
  if (sinew_plug_source(g, &dst, &actual) && is_type(g, actual.node, "unitConversion") &&
      !is_type(g, src.node, "unitConversion")) {
    sinew_plug_t in, up;
    sinew_plug_parse_attr(g, actual.node, "input", &in);
    if (sinew_plug_source(g, &in, &up) && sinew_plug_equal(&up, &src)) {
      if ((rc = sinew_disconnect(g, &actual, &dst))) return sinew__graph_error(cmd, rc);
      if (sinew_plug_destinations(g, &actual, NULL, 0) == 0 && (rc = sinew_node_delete(g, actual.node)))
        return sinew__graph_error(cmd, rc);
      return disconnect_result(cmd, &src, &dst);
    }
  }
  if ((rc = sinew_disconnect(g, &src, &dst))) return sinew__graph_error(cmd, rc);
  return disconnect_result(cmd, &src, &dst);
}

/* ---- addAttr ------------------------------------------------------------------------------------------- */

static const sinew_cmd_flag_t addattr_flags[] = {
    {"longName", "ln", "s", SINEW_CMD_QUERY_ARGS}, {"shortName", "sn", "s", SINEW_CMD_QUERY_ARGS},
    {"attributeType", "at", "s", 0},
    {"dataType", "dt", "s", SINEW_CMD_MULTI}, {"defaultValue", "dv", "f", 0}, {"minValue", "min", "f", 0},
    {"maxValue", "max", "f", 0},      {"softMinValue", "smn", "f", 0}, {"softMaxValue", "smx", "f", 0},
    {"hidden", "h", "b", 0},          {"keyable", "k", "b", 0},        {"multi", "m", "", 0},
    {"indexMatters", "im", "b", 0},   {"parent", "p", "s", 0},         {"numberOfChildren", "nc", "i", 0},
    {"enumName", "en", "s", 0},       {"cachedInternally", "ci", "b", 0}, {"readable", "r", "b", 0},
    {"writable", "w", "b", 0},        {"storable", "s", "b", 0},       {"usedAsColor", "uac", "", 0},
    {"niceName", "nn", "s", 0},       {"usedAsFilename", "uaf", "", 0}, {"internalSet", "is", "b", 0},
    {"query", "q", "", SINEW_CMD_QUERY}, {"exists", "ex", "", 0},      {"hasMinValue", "hnv", "b", 0},
    {"hasMaxValue", "hxv", "b", 0},   {"hasSoftMinValue", "hsn", "b", 0}, {"hasSoftMaxValue", "hsx", "b", 0},
    {"fromPlugin", "fp", "b", 0},     {"category", "ct", "s", SINEW_CMD_MULTI},
    {"disconnectBehaviour", "dcb", "i", 0}, {"proxy", "pxy", "s", 0}, {"usedAsProxy", "uap", "b", 0}};

static int at_type(const char *at, sinew_attr_type_t *out, uint32_t *children) {
  static const struct { const char *n; sinew_attr_type_t t; uint32_t kids; } map[] = {
      {"bool", SINEW_ATTR_BOOL, 0},        {"long", SINEW_ATTR_INT, 0},       {"short", SINEW_ATTR_INT, 0},
      {"byte", SINEW_ATTR_INT, 0},         {"char", SINEW_ATTR_INT, 0},       {"enum", SINEW_ATTR_ENUM, 0},
      {"float", SINEW_ATTR_FLOAT, 0},      {"double", SINEW_ATTR_DOUBLE, 0},  {"doubleLinear", SINEW_ATTR_DISTANCE, 0},
      {"doubleAngle", SINEW_ATTR_ANGLE, 0}, {"time", SINEW_ATTR_TIME, 0},     {"message", SINEW_ATTR_MESSAGE, 0},
      {"matrix", SINEW_ATTR_MATRIX, 0},    {"fltMatrix", SINEW_ATTR_MATRIX, 0}, {"compound", SINEW_ATTR_COMPOUND, 0},
      {"double3", SINEW_ATTR_COMPOUND, 3}, {"float3", SINEW_ATTR_COMPOUND, 3}, {"long3", SINEW_ATTR_COMPOUND, 3},
      {"short3", SINEW_ATTR_COMPOUND, 3},  {"double2", SINEW_ATTR_COMPOUND, 2}, {"float2", SINEW_ATTR_COMPOUND, 2},
      {"long2", SINEW_ATTR_COMPOUND, 2},   {"short2", SINEW_ATTR_COMPOUND, 2}, {"reflectance", SINEW_ATTR_COMPOUND, 3},
      {"spectrum", SINEW_ATTR_COMPOUND, 3}, {"double4", SINEW_ATTR_COMPOUND, 4}};
  for (size_t i = 0; i < COUNT(map); i++)
    if (strcmp(map[i].n, at) == 0) {
      *out = map[i].t;
      *children = map[i].kids;
      return SINEW_OK;
    }
  return SINEW_ENOTFOUND;
}

static char *keep_name(sinew__pending_attr *pa, const char *s) {
  if (!s) return NULL;
  if (pa->nnames == pa->cnames) {
    uint32_t nc = pa->cnames ? pa->cnames * 2 : 16;
    char **p = sinew_realloc(pa->names, nc * sizeof *p);
    if (!p) return NULL;
    pa->names = p;
    pa->cnames = nc;
  }
  size_t n = strlen(s);
  char *d = sinew_malloc(n + 1);
  if (!d) return NULL;
  memcpy(d, s, n + 1);
  pa->names[pa->nnames++] = d;
  return d;
}

static void pending_reset(sinew__pending_attr *pa) {
  for (uint32_t i = 0; i < pa->nnames; i++) sinew_free(pa->names[i]);
  pa->nnames = 0;
  pa->n = 0;
  pa->want = 0;
}

/* addAttr -q -flag node.attr (or -ln / -sn name node): what the attribute was made with, one
 * flag at a time, as Maya's addAttr query mode gives it. */
static int add_attr_query(sinew_cmd_t *cmd, sinew_node_t n, const char *name) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  static const char *const what_flags[] = {"defaultValue", "minValue", "maxValue", "attributeType", "dataType",
                                           "longName", "shortName", "niceName", "keyable", "hidden", "multi",
                                           "enumName", "parent", "numberOfChildren", "readable", "writable",
                                           "hasMinValue", "hasMaxValue"};
  const char *what = NULL;
  for (size_t i = 0; i < COUNT(what_flags); i++)
    if (sinew_cmd_flag_count(cmd, what_flags[i]) && i != 5 && i != 6) { /* -ln / -sn name the attribute */
      if (what) return sinew_cmd_error(cmd, SINEW_EINVAL, "query one flag at a time (-%s and -%s)", what, what_flags[i]);
      what = what_flags[i];
    }
  /* the attribute: node.attr, else the name -ln / -sn gave */
  const char *arg = sinew_cmd_argc(cmd) ? sinew_cmd_arg_string(cmd, sinew_cmd_argc(cmd) - 1) : NULL;
  const char *dot = arg ? strchr(arg, '.') : NULL;
  if (dot) name = dot + 1;
  if (!what && name && !dot) what = sinew_cmd_flag_count(cmd, "longName") ? "longName" : "shortName";
  if (!what) return sinew_cmd_error(cmd, SINEW_EINVAL, "give what to query (-defaultValue, -attributeType, ...)");
  if (!name || !name[0]) return sinew_cmd_error(cmd, SINEW_EINVAL, "-%s: give the attribute (node.attr, or -ln name)", what);
  uint32_t id = sinew_node_attr(g, n, name);
  sinew_attr_info_t info;
  if (id == UINT32_MAX || sinew_node_attr_info(g, n, id, &info))
    return sinew_cmd_error(cmd, SINEW_ENOTFOUND, "%s.%s: no such attribute", sinew_node_name(g, n), name);
  if (!strcmp(what, "defaultValue")) return sinew_cmd_result_double(cmd, sinew__unit_to_ui(g, info.type, info.default_value));
  if (!strcmp(what, "minValue") || !strcmp(what, "maxValue")) {
    bool mn = what[1] == 'i';
    if (!(mn ? info.has_min : info.has_max))
      return sinew_cmd_error(cmd, SINEW_EINVAL, "%s.%s has no %s", sinew_node_name(g, n), info.name, what);
    return sinew_cmd_result_double(cmd, sinew__unit_to_ui(g, info.type, mn ? info.min_value : info.max_value));
  }
  if (!strcmp(what, "hasMinValue")) return sinew_cmd_result_int(cmd, info.has_min);
  if (!strcmp(what, "hasMaxValue")) return sinew_cmd_result_int(cmd, info.has_max);
  if (!strcmp(what, "attributeType")) return sinew_cmd_result_string(cmd, sinew__maya_attr_type(&info));
  if (!strcmp(what, "dataType")) {
    int rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY);
    if (!rc && info.type == SINEW_ATTR_STRING) rc = sinew_cmd_result_append_string(cmd, "string");
    return rc;
  }
  if (!strcmp(what, "longName")) return sinew_cmd_result_string(cmd, info.name);
  if (!strcmp(what, "shortName")) return sinew_cmd_result_string(cmd, info.short_name ? info.short_name : info.name);
  if (!strcmp(what, "keyable")) return sinew_cmd_result_int(cmd, (info.flags & SINEW_ATTR_KEYABLE) != 0);
  if (!strcmp(what, "hidden")) return sinew_cmd_result_int(cmd, (info.flags & SINEW_ATTR_HIDDEN) != 0);
  if (!strcmp(what, "multi")) return sinew_cmd_result_int(cmd, (info.flags & SINEW_ATTR_ARRAY) != 0);
  if (!strcmp(what, "readable")) return sinew_cmd_result_int(cmd, (info.flags & SINEW_ATTR_READABLE) != 0);
  if (!strcmp(what, "writable")) return sinew_cmd_result_int(cmd, (info.flags & SINEW_ATTR_WRITABLE) != 0);
  if (!strcmp(what, "numberOfChildren")) return sinew_cmd_result_int(cmd, info.child_count);
  if (!strcmp(what, "enumName")) {
    if (info.type != SINEW_ATTR_ENUM || !info.enum_fields)
      return sinew_cmd_error(cmd, SINEW_ETYPE, "%s.%s is not an enum", sinew_node_name(g, n), info.name);
    return sinew_cmd_result_string(cmd, info.enum_fields);
  }
  if (!strcmp(what, "parent")) {
    sinew_attr_info_t pi;
    if (info.parent == UINT32_MAX || sinew_node_attr_info(g, n, info.parent, &pi)) return sinew_cmd_result_string(cmd, "");
    return sinew_cmd_result_string(cmd, pi.name);
  }
  char buf[512];
  sinew__attr_nice_name(info.name, buf, sizeof buf);
  return sinew_cmd_result_string(cmd, buf);
}

static int cmd_add_attr(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  sinew__pending_attr *pa = &s->scene->pending_attr;
  sinew_node_t n = s->scene->current;
  int rc;
  if (sinew_cmd_argc(cmd) >= 1) {
    const char *t = sinew_cmd_arg_string(cmd, sinew_cmd_argc(cmd) - 1);
    char name[512];
    snprintf(name, sizeof name, "%s", t);
    char *dot = strchr(name, '.');
    if (dot) *dot = 0;
    if ((rc = sinew__cmd_node(cmd, name, &n))) return rc;
  } else if (!s->loading && s->scene->nsel) {
    n = s->scene->selection[0];
  }
  if (!sinew_node_valid(g, n)) return sinew_cmd_error(cmd, SINEW_EINVAL, "no node given (and no current node)");
  const char *ln = sinew_cmd_flag_string(cmd, "longName", NULL), *sn = sinew_cmd_flag_string(cmd, "shortName", NULL);
  if (sinew_cmd_flag_count(cmd, "exists")) {
    const char *nm = ln ? ln : sn;
    if (!nm) return sinew_cmd_error(cmd, SINEW_EINVAL, "give -ln or -sn");
    return sinew_cmd_result_int(cmd, sinew_node_attr(g, n, nm) != UINT32_MAX);
  }
  if (sinew_cmd_query(cmd)) return add_attr_query(cmd, n, ln ? ln : sn);
  if (!ln && !sn) return sinew_cmd_error(cmd, SINEW_EINVAL, "give a name (-longName or -shortName)");
  if (!ln) ln = sn;
  const char *at = sinew_cmd_flag_string(cmd, "attributeType", NULL);
  const char *dt = sinew_cmd_flag_string(cmd, "dataType", NULL);
  /* Maya's attributeAliasList: the graph keeps the aliases themselves (cmd_alias.c) */
  if (dt && strcmp(dt, "attributeAlias") == 0 && sinew__is_alias_list_attr(ln) && !sinew__is_placeholder(g, n))
    return SINEW_OK;
  sinew_attr_type_t type = SINEW_ATTR_DOUBLE;
  uint32_t kids = 0;
  if (at) {
    if (at_type(at, &type, &kids)) return sinew_cmd_error(cmd, SINEW_EINVAL, "-attributeType: unknown type '%s'", at);
  } else if (dt) {
    if (strcmp(dt, "string") == 0) type = SINEW_ATTR_STRING;
    else if (strcmp(dt, "matrix") == 0) type = SINEW_ATTR_MATRIX;
    else if (strcmp(dt, "mesh") == 0 || strcmp(dt, "polyFaces") == 0) type = SINEW_ATTR_DATA;
    else type = SINEW_ATTR_DATA; /* doubleArray, stringArray ...: values are kept as text */
  }
  if (type == SINEW_ATTR_COMPOUND) {
    int64_t nc = sinew_cmd_flag_int(cmd, "numberOfChildren", (int64_t)kids);
    if (nc <= 0) return sinew_cmd_error(cmd, SINEW_EINVAL, "%s: a compound needs -numberOfChildren", ln);
    kids = (uint32_t)nc;
  }
  const char *parent = sinew_cmd_flag_string(cmd, "parent", NULL);
  if (sinew_node_attr(g, n, ln) != UINT32_MAX || (sn && sinew_node_attr(g, n, sn) != UINT32_MAX)) {
    if (s->loading) return SINEW_OK; /* files repeat addAttr lines that a type already has */
    return sinew_cmd_error(cmd, SINEW_EEXISTS, "%s already has an attribute named %s", sinew_node_name(g, n), ln);
  }
  sinew_attr_desc_t d = {0};
  d.type = type;
  d.flags = SINEW_ATTR_INPUT;
  if (sinew_cmd_flag_count(cmd, "multi")) d.flags |= SINEW_ATTR_ARRAY;
  if (sinew_cmd_flag_bool(cmd, "hidden", false)) d.flags |= SINEW_ATTR_HIDDEN;
  if (sinew_cmd_flag_bool(cmd, "keyable", false)) d.flags |= SINEW_ATTR_KEYABLE;
  if (sinew_cmd_flag_count(cmd, "storable") && !sinew_cmd_flag_bool(cmd, "storable", true))
    d.flags &= ~(uint32_t)SINEW_ATTR_STORABLE;
  if (sinew_cmd_flag_count(cmd, "indexMatters") && !sinew_cmd_flag_bool(cmd, "indexMatters", true))
    d.flags &= ~(uint32_t)SINEW_ATTR_INDEX_MATTERS;
  d.default_value = sinew__unit_to_internal(g, type, sinew_cmd_flag_double(cmd, "defaultValue", 0, 0));
  if (sinew_cmd_flag_count(cmd, "minValue"))
    d.has_min = true, d.min_value = sinew__unit_to_internal(g, type, sinew_cmd_flag_double(cmd, "minValue", 0, 0));
  if (sinew_cmd_flag_count(cmd, "maxValue"))
    d.has_max = true, d.max_value = sinew__unit_to_internal(g, type, sinew_cmd_flag_double(cmd, "maxValue", 0, 0));
  const char *en = sinew_cmd_flag_string(cmd, "enumName", NULL);
  if (type == SINEW_ATTR_ENUM) d.enum_fields = en ? en : "";
  /* gather: a compound waits for its children */
  if (pa->n && (pa->node.index != n.index || pa->node.gen != n.gen))
    return sinew_cmd_error(cmd, SINEW_EINVAL, "compound %s on %s still waits for %u children", pa->descs[0].name,
                           sinew_node_name(g, pa->node), pa->want);
  if (!pa->n && parent)
    return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "%s: children cannot be added to the existing attribute %s", ln, parent);
  if (pa->n == pa->cap) {
    uint32_t nc = pa->cap ? pa->cap * 2 : 8;
    sinew_attr_desc_t *p = sinew_realloc(pa->descs, nc * sizeof *p);
    if (!p) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    pa->descs = p;
    pa->cap = nc;
  }
  d.name = keep_name(pa, ln);
  d.short_name = sn ? keep_name(pa, sn) : NULL;
  d.parent = parent ? keep_name(pa, parent) : NULL;
  d.enum_fields = d.enum_fields ? keep_name(pa, d.enum_fields) : NULL;
  if (!d.name || (sn && !d.short_name) || (parent && !d.parent)) {
    pending_reset(pa);
    return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  }
  if (pa->n) {
    /* a child: its parent must be one of the gathered compounds */
    bool found = false;
    for (uint32_t i = 0; i < pa->n && !found; i++)
      found = strcmp(pa->descs[i].name, parent ? parent : "") == 0 ||
              (pa->descs[i].short_name && parent && strcmp(pa->descs[i].short_name, parent) == 0);
    if (!found) {
      char waiting[128];
      snprintf(waiting, sizeof waiting, "%s", pa->descs[0].name);
      pending_reset(pa);
      return sinew_cmd_error(cmd, SINEW_EINVAL, "%s: expected a child of %s (-parent)", ln, waiting);
    }
    /* descs name their parent by long name */
    for (uint32_t i = 0; i < pa->n; i++)
      if (pa->descs[i].short_name && strcmp(pa->descs[i].short_name, parent) == 0) d.parent = pa->descs[i].name;
    pa->want--;
  }
  if (type == SINEW_ATTR_DATA && dt) {
    /* remembered so that saving writes the same -dataType back */
    sinew__extra *e = sinew__extra_get(s->scene, n, true);
    if (!e) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    if (e->ndyn + 2 > e->cdyn) {
      uint32_t nc = e->cdyn ? e->cdyn * 2 : 8;
      char **p = sinew_realloc(e->dyn_types, nc * sizeof *p);
      if (!p) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
      e->dyn_types = p;
      e->cdyn = nc;
    }
    size_t l1 = strlen(ln), l2 = strlen(dt);
    char *a = sinew_malloc(l1 + 1), *b = sinew_malloc(l2 + 1);
    if (!a || !b) {
      sinew_free(a);
      sinew_free(b);
      return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    }
    memcpy(a, ln, l1 + 1);
    memcpy(b, dt, l2 + 1);
    e->dyn_types[e->ndyn++] = a;
    e->dyn_types[e->ndyn++] = b;
    sinew__side_changed(s->scene);
  }
  pa->node = n;
  pa->descs[pa->n++] = d;
  if (type == SINEW_ATTR_COMPOUND) pa->want += kids;
  if (pa->want > 0) {
    sinew__side_changed(s->scene); /* a compound waiting for its children: not undone */
    return SINEW_OK;
  }
  rc = sinew_node_add_attr(g, n, pa->descs, pa->n);
  if (!rc)
    for (uint32_t i = 0; i < pa->n; i++) {
      sinew__extra_drop_raws(sinew__session(cmd)->scene, n, pa->descs[i].name);
      sinew__extra_drop_raws(sinew__session(cmd)->scene, n, pa->descs[i].short_name);
    }
  pending_reset(pa);
  if (rc) return sinew__graph_error(cmd, rc);
  return SINEW_OK;
}

static const sinew_cmd_flag_t delattr_flags[] = {{"attribute", "at", "s", 0}};

static int cmd_delete_attr(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  sinew_plug_t p;
  int rc;
  const char *at = sinew_cmd_flag_string(cmd, "attribute", NULL);
  if (sinew_cmd_argc(cmd) != 1) return sinew_cmd_error(cmd, SINEW_EINVAL, "give one attribute");
  if (at) {
    sinew_node_t n;
    if ((rc = sinew__cmd_node(cmd, sinew_cmd_arg_string(cmd, 0), &n))) return rc;
    uint32_t a = sinew_node_attr(g, n, at);
    if (a == UINT32_MAX) return sinew_cmd_error(cmd, SINEW_ENOTFOUND, "%s has no attribute %s", sinew_node_name(g, n), at);
    p = sinew_plug_make(n, a, 0, NULL);
  } else if ((rc = sinew__cmd_plug(cmd, sinew_cmd_arg_string(cmd, 0), &p))) {
    return rc;
  }
  if ((rc = sinew_node_remove_attr(g, p.node, p.attr))) return sinew__graph_error(cmd, rc);
  sinew__plug_states_prune(sinew__session(cmd)->scene, p.node); /* -k / -cb records go with it */
  return SINEW_OK;
}

/* removeMultiInstance [-b true] node.multi[i]: removes an array element (its alias with it).
 * Without -b a connected element is refused, as in Maya. */
static const sinew_cmd_flag_t rmi_flags[] = {{"break", "b", "b", 0}};

static int cmd_remove_multi_instance(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  if (sinew_cmd_argc(cmd) != 1) return sinew_cmd_error(cmd, SINEW_EINVAL, "give one array element (node.attr[i])");
  sinew_plug_t p;
  int rc = sinew__cmd_plug(cmd, sinew_cmd_arg_string(cmd, 0), &p);
  if (rc) return rc;
  char buf[600];
  if (!sinew_cmd_flag_bool(cmd, "break", false) &&
      (sinew_plug_source(g, &p, NULL) || sinew_plug_destinations(g, &p, NULL, 0)))
    return sinew_cmd_error(cmd, SINEW_ECONNECTED, "%s is connected: give -b true to break its connections",
                           sinew__plug_label(g, &p, buf, sizeof buf));
  if ((rc = sinew_plug_remove_element(g, &p))) return sinew__graph_error(cmd, rc);
  return SINEW_OK;
}

static const sinew_cmd_flag_t listattr_flags[] = {
    {"keyable", "k", "", 0}, {"userDefined", "ud", "", 0}, {"multi", "m", "", 0},
    {"connectable", "c", "", 0}, {"writable", "w", "", 0}, {"readOnly", "r", "", 0},
    {"shortNames", "sn", "", 0}, {"string", "st", "s", SINEW_CMD_MULTI}};

/* -st patterns (Maya's wildcards; several: any of them): whether the attribute's long or short
 * name matches one. No -st: every attribute. */
static bool listattr_string_matches(sinew_cmd_t *cmd, const sinew_attr_info_t *info) {
  size_t k = sinew_cmd_flag_count(cmd, "string");
  if (!k) return true;
  for (size_t i = 0; i < k; i++) {
    const sinew_value_t *v = sinew_cmd_flag_arg(cmd, "string", i, 0);
    const char *pat = v ? sinew_value_string(v) : NULL;
    if (pat && (sinew__wildcard_match(pat, info->name) ||
                (info->short_name && sinew__wildcard_match(pat, info->short_name))))
      return true;
  }
  return false;
}

/* listAttr of a plug: the attribute (its alias when it has one) and the attributes below it
 * ("listAttr pCube1.t": translate translateX ...); with -m, an array's elements by their names
 * as Maya gives them, an alias where there is one ("listAttr -m bs.w": the target names). */
static int list_plug_attrs(sinew_cmd_t *cmd, const sinew_plug_t *p) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  int rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY);
  bool short_names = sinew_cmd_flag_count(cmd, "shortNames") > 0;
  char buf[1024];
  if (sinew_cmd_flag_count(cmd, "multi") && sinew_plug_is_array(g, p)) {
    size_t k = sinew_plug_indices(g, p, NULL, 0);
    int32_t *ix = k ? sinew_malloc(k * sizeof *ix) : NULL;
    if (k && !ix) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    if (k) k = sinew_plug_indices(g, p, ix, k);
    for (size_t i = 0; i < k && !rc; i++) {
      sinew_plug_t e;
      sinew_plug_element(g, p, ix[i], &e);
      const char *alias = sinew_plug_alias(g, &e);
      if (!alias) sinew_plug_format_attr(g, &e, short_names, buf, sizeof buf);
      rc = sinew_cmd_result_append_string(cmd, alias ? alias : buf);
    }
    sinew_free(ix);
    return rc;
  }
  const char *alias = sinew_plug_alias(g, p);
  sinew_attr_info_t info;
  if (sinew_node_attr_info(g, p->node, p->attr, &info)) return sinew_cmd_error(cmd, SINEW_EINVAL, "no such attribute");
  if (!rc) rc = sinew_cmd_result_append_string(cmd, alias ? alias : short_names && info.short_name ? info.short_name : info.name);
  /* the attributes below it, depth first */
  uint32_t stack[64], ns = 0;
  for (uint32_t c = info.child_count; c-- > 0 && ns < 64;) stack[ns++] = info.children[c];
  while (ns && !rc) {
    sinew_attr_info_t ci;
    if (sinew_node_attr_info(g, p->node, stack[--ns], &ci)) continue;
    rc = sinew_cmd_result_append_string(cmd, short_names && ci.short_name ? ci.short_name : ci.name);
    for (uint32_t c = ci.child_count; c-- > 0 && ns < 64;) stack[ns++] = ci.children[c];
  }
  return rc;
}

static int cmd_list_attr(sinew_cmd_t *cmd) {
  sinew_session_t *s = sinew__session(cmd);
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  sinew_node_t n;
  int rc;
  if (sinew_cmd_argc(cmd) >= 1 && strchr(sinew_cmd_arg_string(cmd, 0), '.')) {
    sinew_plug_t p;
    if ((rc = sinew__cmd_plug(cmd, sinew_cmd_arg_string(cmd, 0), &p))) return rc;
    return list_plug_attrs(cmd, &p);
  }
  if (sinew_cmd_argc(cmd) >= 1) {
    if ((rc = sinew__cmd_node(cmd, sinew_cmd_arg_string(cmd, 0), &n))) return rc;
  } else if (s->scene->nsel) {
    n = s->scene->selection[0];
  } else {
    return sinew_cmd_error(cmd, SINEW_EINVAL, "give a node");
  }
  rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY);
  uint32_t na = sinew_node_attr_count(g, n);
  for (uint32_t a = 0; a < na && !rc; a++) {
    sinew_attr_info_t info;
    if (sinew_node_attr_info(g, n, a, &info)) continue;
    if (sinew_cmd_flag_count(cmd, "keyable") && !(info.flags & SINEW_ATTR_KEYABLE)) continue;
    if (sinew_cmd_flag_count(cmd, "userDefined") &&
        (!(info.flags & SINEW_ATTR_DYNAMIC) || sinew__extra_is_implicit(s->scene, n, a)))
      continue;
    if (sinew_cmd_flag_count(cmd, "multi") && !(info.flags & SINEW_ATTR_ARRAY)) continue;
    if (sinew_cmd_flag_count(cmd, "writable") && !(info.flags & SINEW_ATTR_WRITABLE)) continue;
    if (sinew_cmd_flag_count(cmd, "readOnly") && (info.flags & SINEW_ATTR_WRITABLE)) continue;
    if (info.flags & SINEW_ATTR_HIDDEN && strncmp(info.name, "sinew", 5) == 0) continue;
    if (!listattr_string_matches(cmd, &info)) continue;
    rc = sinew_cmd_result_append_string(cmd, sinew_cmd_flag_count(cmd, "shortNames") && info.short_name
                                                  ? info.short_name : info.name);
  }
  return rc;
}

/* ---- registration ---------------------------------------------------------------------------------------- */

int sinew__register_attr_cmds(sinew_lang_t *L, sinew_session_t *s) {
  const sinew_cmd_desc_t cmds[] = {
      {"setAttr", cmd_set_attr, setattr_flags, COUNT(setattr_flags), false, s},
      {"getAttr", cmd_get_attr, getattr_flags, COUNT(getattr_flags), false, s},
      {"connectAttr", cmd_connect_attr, connect_flags, COUNT(connect_flags), false, s},
      {"disconnectAttr", cmd_disconnect_attr, disconnect_flags, COUNT(disconnect_flags), false, s},
      {"addAttr", cmd_add_attr, addattr_flags, COUNT(addattr_flags), false, s},
      {"deleteAttr", cmd_delete_attr, delattr_flags, COUNT(delattr_flags), false, s},
      {"listAttr", cmd_list_attr, listattr_flags, COUNT(listattr_flags), false, s},
      {"removeMultiInstance", cmd_remove_multi_instance, rmi_flags, COUNT(rmi_flags), false, s},
  };
  for (size_t i = 0; i < COUNT(cmds); i++) {
    int rc = sinew_lang_register_command(L, &cmds[i]);
    if (rc) return rc;
  }
  return sinew__register_alias_cmds(L, s);
}
