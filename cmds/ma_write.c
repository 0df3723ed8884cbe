/* cmds/ma_write.c: the Maya ASCII writer. Writes what a file needs to rebuild the scene: the
 * header (requires, currentUnit, fileInfo, lines kept from the file that was read), every node
 * with its DAG parent, dynamic attributes, the values that were set (consecutive elements as
 * ranges, skinCluster weights in the compact .wl[a:b].w form, mesh geometry as vt/ed/fc), the
 * values kept as text, locks, and then every connection. Numbers are written in the shortest
 * form that reads back to the same double, so saving what was loaded gives the same text. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmds/cmds_internal.h"
#include "sinew/curve.h"

typedef struct writer {
  sinew_session_t *s;
  sinew__scene *sc;
  sinew_graph_t *g;
  FILE *out;
  sinew__buf b;
  uint8_t *written; /* per node slot index: already written */
  uint32_t nslots;
  int rc;
} writer;

static void flush(writer *w) {
  if (w->b.oom) w->rc = SINEW_ENOMEM;
  if (!w->out) return; /* writing into the buffer only (sinew__ma_node_values) */
  if (w->b.n && fwrite(w->b.p, 1, w->b.n, w->out) != w->b.n) w->rc = SINEW_EIO;
  w->b.n = 0;
}

static void put(writer *w, const char *s) { sinew__buf_puts(&w->b, s); }
static void num(writer *w, double d) { sinew__buf_num(&w->b, d); }
static void quoted(writer *w, const char *s) { sinew__buf_quoted(&w->b, s); }

/* ---- names ------------------------------------------------------------------------------------- */

static bool is_default(writer *w, sinew_node_t n) {
  sinew__extra *e = sinew__extra_get(w->sc, n, false);
  if (e && e->is_default) return true;
  const char *t = sinew_node_type_name(sinew_node_type(w->g, n));
  return strcmp(t, "time") == 0 && strcmp(sinew_node_name(w->g, n), "time1") == 0;
}

static void plug_name(writer *w, const sinew_plug_t *p) {
  char buf[1024];
  size_t need = sinew_plug_format(w->g, p, true, buf, sizeof buf);
  if (need >= sizeof buf) {
    w->rc = SINEW_ERANGE;
    return;
  }
  if (is_default(w, p->node) && buf[0] != '|') put(w, ":");
  put(w, buf);
}

/* ---- attribute values ---------------------------------------------------------------------------- */

/* ".t" / ".wl[3].w[2]" relative to the node. */
static void rel_plug(writer *w, const sinew_plug_t *p) {
  char buf[1024];
  sinew_plug_format_attr(w->g, p, true, buf, sizeof buf);
  put(w, "\".");
  put(w, buf);
  put(w, "\"");
}

static double ui(writer *w, sinew_attr_type_t t, double v) { return sinew__unit_to_ui(w->g, t, v); }

static void write_scalar(writer *w, const sinew_attr_info_t *info, double v) {
  if (info->type == SINEW_ATTR_BOOL) {
    put(w, v != 0 ? "yes" : "no");
  } else if (info->type == SINEW_ATTR_FLOAT) {
    sinew__buf_num_float(&w->b, v);
  } else {
    num(w, ui(w, info->type, v));
  }
}

static bool numeric_compound(writer *w, sinew_node_t n, const sinew_attr_info_t *info, sinew_attr_info_t *kids) {
  if (info->type != SINEW_ATTR_COMPOUND || info->child_count == 0 || info->child_count > 16) return false;
  for (uint32_t c = 0; c < info->child_count; c++) {
    if (sinew_node_attr_info(w->g, n, info->children[c], &kids[c])) return false;
    if (!sinew_attr_type_is_numeric(kids[c].type) || (kids[c].flags & SINEW_ATTR_ARRAY)) return false;
  }
  return true;
}

static const char *compound_type(const sinew_attr_info_t *kids, uint32_t n) {
  bool f = kids[0].type == SINEW_ATTR_FLOAT;
  bool i = kids[0].type == SINEW_ATTR_INT || kids[0].type == SINEW_ATTR_BOOL || kids[0].type == SINEW_ATTR_ENUM;
  if (n == 2) return f ? "float2" : i ? "long2" : "double2";
  if (n == 3) return f ? "float3" : i ? "long3" : "double3";
  return NULL;
}

static bool internal_plug(writer *w, const sinew_plug_t *p) { return sinew__own_plug(w->g, p); }

static bool settable_value(writer *w, const sinew_plug_t *p, const sinew_attr_info_t *info) {
  if (!(info->flags & SINEW_ATTR_STORABLE) || !(info->flags & SINEW_ATTR_WRITABLE)) return false;
  sinew_plug_t src;
  /* fed by sinew's own wiring (an IK joint's rotate): its value is written, as Maya writes the
   * solved rotation */
  if (sinew_plug_source(w->g, p, &src)) return internal_plug(w, &src);
  return sinew_plug_has_value(w->g, p);
}

static void write_attr(writer *w, const sinew_plug_t *p);

/* How many numbers a generic numeric plug holds (1 for any other plug). */
static size_t generic_width(writer *w, const sinew_plug_t *p, const sinew_attr_info_t *info) {
  if (!(info->flags & SINEW_ATTR_GENERIC_NUMERIC)) return 1;
  size_t n = 1;
  if (sinew_get_generic(w->g, p, NULL, 0, &n)) return 1;
  return n;
}

/* An array's elements: consecutive runs of numeric scalars or numeric compounds as ranges. */
static void write_array(writer *w, const sinew_plug_t *arr, const sinew_attr_info_t *info) {
  size_t cnt = sinew_plug_indices(w->g, arr, NULL, 0);
  if (!cnt) return;
  int32_t *idx = sinew_malloc(cnt * sizeof *idx);
  if (!idx) {
    w->rc = SINEW_ENOMEM;
    return;
  }
  sinew_plug_indices(w->g, arr, idx, cnt);
  sinew_attr_info_t kids[16];
  bool scalar = sinew_attr_type_is_numeric(info->type);
  bool ncomp = numeric_compound(w, arr->node, info, kids);
  /* skinCluster-style weights: an array of compounds whose only child is a numeric array */
  sinew_attr_info_t only;
  bool compact = info->type == SINEW_ATTR_COMPOUND && info->child_count == 1 &&
                 !sinew_node_attr_info(w->g, arr->node, info->children[0], &only) &&
                 (only.flags & SINEW_ATTR_ARRAY) && sinew_attr_type_is_numeric(only.type) &&
                 (only.flags & SINEW_ATTR_STORABLE) && (only.flags & SINEW_ATTR_WRITABLE);
  size_t i = 0;
  while (i < cnt && !w->rc) {
    sinew_plug_t e;
    sinew_plug_element(w->g, arr, idx[i], &e);
    if (!(scalar || ncomp || compact) || !settable_value(w, &e, info) || generic_width(w, &e, info) > 1) {
      if ((!scalar && !ncomp) || generic_width(w, &e, info) > 1) write_attr(w, &e);
      else if (sinew_plug_has_value(w->g, &e) && !sinew_plug_source(w->g, &e, NULL)) write_attr(w, &e);
      i++;
      continue;
    }
    /* a run of consecutive, settable elements */
    size_t j = i + 1;
    while (j < cnt && idx[j] == idx[j - 1] + 1 && j - i < 4096) {
      sinew_plug_t f;
      sinew_plug_element(w->g, arr, idx[j], &f);
      if (!settable_value(w, &f, info) || sinew_plug_locked(w->g, &f) || generic_width(w, &f, info) > 1) break;
      if (compact) {
        sinew_plug_t child;
        sinew_plug_child(w->g, &f, info->children[0], &child);
        if (sinew_plug_source(w->g, &child, NULL)) break;
      }
      j++;
    }
    char attr[1024];
    sinew_plug_format_attr(w->g, arr, true, attr, sizeof attr);
    if (compact) {
      sinew__buf_printf(&w->b, "\tsetAttr \".%s[%d:%d].%s\"", attr, idx[i], idx[j - 1],
                        only.short_name ? only.short_name : only.name);
      for (size_t k = i; k < j && !w->rc; k++) {
        sinew_plug_t f, child;
        sinew_plug_element(w->g, arr, idx[k], &f);
        sinew_plug_child(w->g, &f, info->children[0], &child);
        size_t nw = sinew_plug_indices(w->g, &child, NULL, 0);
        int32_t *wi = sinew_malloc((nw ? nw : 1) * sizeof *wi);
        double *wv = sinew_malloc((nw ? nw : 1) * sizeof *wv);
        size_t got = 0;
        if (!wi || !wv || sinew_get_double_elements(w->g, &child, wi, wv, nw, &got)) {
          w->rc = w->rc ? w->rc : SINEW_ENOMEM;
        } else {
          sinew__buf_printf(&w->b, "\n\t\t%zu", got);
          for (size_t q = 0; q < got; q++) {
            sinew__buf_printf(&w->b, " %d ", wi[q]);
            num(w, ui(w, only.type, wv[q]));
          }
        }
        sinew_free(wi);
        sinew_free(wv);
      }
      put(w, ";\n");
    } else {
      if (j - i > 1)
        sinew__buf_printf(&w->b, "\tsetAttr -s %zu \".%s[%d:%d]\"", j - i, attr, idx[i], idx[j - 1]);
      else
        sinew__buf_printf(&w->b, "\tsetAttr \".%s[%d]\"", attr, idx[i]);
      if (ncomp && compound_type(kids, info->child_count) && j - i == 1)
        sinew__buf_printf(&w->b, " -type \"%s\"", compound_type(kids, info->child_count));
      for (size_t k = i; k < j; k++) {
        sinew_plug_t f;
        sinew_plug_element(w->g, arr, idx[k], &f);
        if (scalar) {
          double v = 0;
          sinew_get_double(w->g, &f, &v);
          put(w, " ");
          write_scalar(w, info, v);
        } else {
          double v[16];
          size_t nv = 0;
          sinew_get_doubles(w->g, &f, v, 16, &nv);
          for (uint32_t c = 0; c < info->child_count; c++) {
            put(w, " ");
            write_scalar(w, &kids[c], c < nv ? v[c] : 0);
          }
        }
      }
      put(w, ";\n");
    }
    for (size_t k = i; k < j; k++) {
      sinew_plug_t f;
      sinew_plug_element(w->g, arr, idx[k], &f);
      if (sinew_plug_locked(w->g, &f)) {
        put(w, "\tsetAttr -l on ");
        rel_plug(w, &f);
        put(w, ";\n");
      }
    }
    if (w->b.n > (1u << 20)) flush(w);
    i = j;
  }
  sinew_free(idx);
}

/* A curve as Maya writes .cc: header, knots, CV count, one CV per line (w too when rational). */
static void write_curve(writer *w, const sinew_plug_t *p, const sinew_curve_t *c) {
  put(w, "\tsetAttr ");
  rel_plug(w, p);
  sinew__buf_printf(&w->b, " -type \"nurbsCurve\" \n\t\t%u %u %u %s %u\n\t\t%u", c->degree, sinew_curve_spans(c),
                    (unsigned)c->form, c->rational ? "yes" : "no", c->dim, c->nknots);
  for (uint32_t i = 0; i < c->nknots; i++) {
    put(w, " ");
    num(w, c->knots[i]);
  }
  sinew__buf_printf(&w->b, "\n\t\t%u\n", c->ncvs);
  for (uint32_t i = 0; i < c->ncvs; i++) {
    const double *v = &c->cvs[4 * (size_t)i];
    put(w, "\t\t");
    for (uint32_t k = 0; k < c->dim; k++) {
      if (k) put(w, " ");
      num(w, v[k]);
    }
    if (c->rational) {
      put(w, " ");
      num(w, v[3]);
    }
    put(w, "\n");
  }
  put(w, "\t\t;\n");
}

static void write_attr(writer *w, const sinew_plug_t *p) {
  sinew_attr_info_t info;
  if (sinew_node_attr_info(w->g, p->node, p->attr, &info)) return;
  if (sinew__extra_is_implicit(w->sc, p->node, p->attr)) return;
  if (sinew_plug_is_array(w->g, p)) {
    write_array(w, p, &info);
    return;
  }
  sinew_attr_info_t kids[16];
  if (info.type == SINEW_ATTR_COMPOUND) {
    if (numeric_compound(w, p->node, &info, kids) && settable_value(w, p, &info)) {
      /* all children have defaults or values: write the compound in one line */
      double v[16];
      size_t nv = 0;
      sinew_get_doubles(w->g, p, v, 16, &nv);
      put(w, "\tsetAttr ");
      rel_plug(w, p);
      const char *ct = compound_type(kids, info.child_count);
      if (ct) sinew__buf_printf(&w->b, " -type \"%s\"", ct);
      for (uint32_t c = 0; c < info.child_count; c++) {
        put(w, " ");
        write_scalar(w, &kids[c], c < nv ? v[c] : 0);
      }
      put(w, ";\n");
      for (uint32_t c = 0; c < info.child_count; c++) {
        sinew_plug_t ch;
        sinew_plug_child(w->g, p, info.children[c], &ch);
        if (sinew_plug_locked(w->g, &ch)) {
          put(w, "\tsetAttr -l on ");
          rel_plug(w, &ch);
          put(w, ";\n");
        }
      }
      return;
    }
    for (uint32_t c = 0; c < info.child_count; c++) {
      sinew_plug_t ch;
      if (sinew_plug_child(w->g, p, info.children[c], &ch) == SINEW_OK) write_attr(w, &ch);
    }
    return;
  }
  bool locked = sinew_plug_locked(w->g, p);
  if (settable_value(w, p, &info)) {
    int rc = SINEW_OK;
    size_t gw = generic_width(w, p, &info);
    if (gw == 2 || gw == 3 || gw == 4 || gw == 16) {
      /* a generic numeric attribute holding a triple or a matrix: Maya's typed form */
      double v[SINEW_GENERIC_MAX];
      rc = sinew_get_generic(w->g, p, v, SINEW_GENERIC_MAX, &gw);
      put(w, "\tsetAttr ");
      rel_plug(w, p);
      sinew__buf_printf(&w->b, " -type \"%s\"", gw == 16 ? "matrix" : gw == 2 ? "double2" : gw == 3 ? "double3" : "double4");
      for (size_t k = 0; k < gw && k < SINEW_GENERIC_MAX; k++) {
        put(w, " ");
        num(w, v[k]);
      }
      put(w, ";\n");
    } else if (sinew_attr_type_is_numeric(info.type)) {
      double v = 0;
      rc = sinew_get_double(w->g, p, &v);
      put(w, "\tsetAttr ");
      rel_plug(w, p);
      put(w, " ");
      write_scalar(w, &info, v);
      put(w, ";\n");
    } else if (info.type == SINEW_ATTR_MATRIX) {
      sinew_mat4_t m;
      rc = sinew_get_matrix(w->g, p, &m);
      put(w, "\tsetAttr ");
      rel_plug(w, p);
      put(w, " -type \"matrix\"");
      for (int k = 0; k < 16; k++) {
        put(w, " ");
        num(w, m.m[k / 4][k % 4]);
      }
      put(w, ";\n");
    } else if (info.type == SINEW_ATTR_STRING) {
      const char *s = "";
      rc = sinew_get_string(w->g, p, &s);
      put(w, "\tsetAttr ");
      rel_plug(w, p);
      put(w, " -type \"string\" ");
      quoted(w, s);
      put(w, ";\n");
    } else if (info.type == SINEW_ATTR_DATA && info.data_type == &sinew_curve_data_type) {
      sinew_data_t *d = NULL;
      rc = sinew_get_data(w->g, p, &d);
      sinew_curve_t c;
      if (d && !sinew_curve_get(d, &c)) write_curve(w, p, &c);
      sinew_data_unref(d);
    } else if (info.type == SINEW_ATTR_DATA && (info.data_type == &sinew_component_list_data_type ||
                                                 info.data_type == &sinew_point_array_data_type)) {
      sinew_data_t *d = NULL;
      rc = sinew_get_data(w->g, p, &d);
      if (d && sinew_data_type(d) == info.data_type) {
        bool list = info.data_type == &sinew_component_list_data_type;
        size_t n = 0;
        const double *v = list ? NULL : sinew_point_array_get(d, &n);
        if (list) n = sinew_component_list_count(d);
        put(w, "\tsetAttr ");
        rel_plug(w, p);
        sinew__buf_printf(&w->b, " -type \"%s\" %zu", list ? "componentList" : "pointArray", n);
        for (size_t i = 0; i < n; i++) {
          put(w, " ");
          if (list) {
            quoted(w, sinew_component_list_item(d, i));
          } else {
            for (int c = 0; c < 4; c++) {
              if (c) put(w, " ");
              num(w, v[4 * i + c]);
            }
          }
        }
        put(w, ";\n");
      }
      sinew_data_unref(d);
    } else if (info.type == SINEW_ATTR_DATA && info.data_type == &sinew_xform_data_type) {
      sinew_data_t *d = NULL;
      rc = sinew_get_data(w->g, p, &d);
      const sinew_xform_t *x = d ? sinew_xform_get(d) : NULL;
      if (x) {
        char buf[1024];
        sinew_xform_format(x, buf, sizeof buf);
        put(w, "\tsetAttr ");
        rel_plug(w, p);
        put(w, " -type \"matrix\" ");
        put(w, buf);
        put(w, ";\n");
      }
      sinew_data_unref(d);
    }
    if (rc && !w->rc) w->rc = rc;
  }
  if (locked) {
    put(w, "\tsetAttr -l on ");
    rel_plug(w, p);
    put(w, ";\n");
  }
}

/* ---- dynamic attributes --------------------------------------------------------------------------------- */

static const char *dyn_data_type(writer *w, sinew_node_t n, const char *name) {
  sinew__extra *e = sinew__extra_get(w->sc, n, false);
  if (!e) return NULL;
  for (uint32_t i = 0; i + 1 < e->ndyn; i += 2)
    if (strcmp(e->dyn_types[i], name) == 0) return e->dyn_types[i + 1];
  return NULL;
}

static void write_add_attr(writer *w, sinew_node_t n, const sinew_attr_info_t *info) {
  put(w, "\taddAttr -ci true");
  if (info->short_name) {
    put(w, " -sn ");
    quoted(w, info->short_name);
  }
  put(w, " -ln ");
  quoted(w, info->name);
  if (info->flags & SINEW_ATTR_ARRAY) put(w, " -m");
  if (info->flags & SINEW_ATTR_HIDDEN) put(w, " -h true");
  if (info->flags & SINEW_ATTR_KEYABLE) put(w, " -k true");
  if (!(info->flags & SINEW_ATTR_STORABLE)) put(w, " -s false");
  if (sinew_attr_type_is_numeric(info->type) && info->default_value != 0) {
    put(w, " -dv ");
    num(w, ui(w, info->type, info->default_value));
  }
  if (info->has_min) {
    put(w, " -min ");
    num(w, ui(w, info->type, info->min_value));
  }
  if (info->has_max) {
    put(w, " -max ");
    num(w, ui(w, info->type, info->max_value));
  }
  if (info->parent != UINT32_MAX) {
    sinew_attr_info_t pi;
    if (!sinew_node_attr_info(w->g, n, info->parent, &pi)) {
      put(w, " -p ");
      quoted(w, pi.name);
    }
  }
  const char *at = NULL, *dt = NULL;
  switch (info->type) {
    case SINEW_ATTR_BOOL: at = "bool"; break;
    case SINEW_ATTR_INT: at = "long"; break;
    case SINEW_ATTR_ENUM: at = "enum"; break;
    case SINEW_ATTR_FLOAT: at = "float"; break;
    case SINEW_ATTR_DOUBLE: at = "double"; break;
    case SINEW_ATTR_DISTANCE: at = "doubleLinear"; break;
    case SINEW_ATTR_ANGLE: at = "doubleAngle"; break;
    case SINEW_ATTR_TIME: at = "time"; break;
    case SINEW_ATTR_MATRIX: at = "matrix"; break;
    case SINEW_ATTR_MESSAGE: at = "message"; break;
    case SINEW_ATTR_STRING: dt = "string"; break;
    case SINEW_ATTR_COMPOUND: at = "compound"; break;
    case SINEW_ATTR_DATA: dt = dyn_data_type(w, n, info->name); break;
    default: break;
  }
  if (info->type == SINEW_ATTR_COMPOUND) sinew__buf_printf(&w->b, " -nc %u", info->child_count);
  if (info->type == SINEW_ATTR_ENUM && info->enum_fields) {
    put(w, " -en ");
    quoted(w, info->enum_fields);
  }
  if (at) {
    put(w, " -at ");
    quoted(w, at);
  } else {
    put(w, " -dt ");
    quoted(w, dt ? dt : "doubleArray");
  }
  put(w, ";\n");
}

/* ---- meshes ---------------------------------------------------------------------------------------------- */

/* The stored geometry: the ed/fc lines it was read from while unchanged, else generated. */
static void write_mesh_geometry(writer *w, sinew_node_t n) {
  uint32_t snsm = sinew_node_attr(w->g, n, "sinewStoredMesh");
  if (snsm == UINT32_MAX) return;
  sinew_plug_t p = sinew_plug_make(n, snsm, 0, NULL);
  sinew_data_t *d = NULL;
  if (sinew_get_data(w->g, &p, &d) || !d) return;
  const sinew_mesh_t *m = sinew_mesh_get(d);
  sinew__extra *e = sinew__extra_get(w->sc, n, false);
  uint32_t vt = sinew_node_attr(w->g, n, "vrts");
  sinew_plug_t vtp = sinew_plug_make(n, vt, 0, NULL);
  /* the base points: vrts elements where they exist, the block's points elsewhere */
  (void)vtp;
  if (m && m->npoints) {
    sinew__buf_printf(&w->b, "\tsetAttr -s %u \".vt[0:%u]\"", m->npoints, m->npoints - 1);
    for (uint32_t i = 0; i < m->npoints; i++) {
      double v[3] = {m->points[3 * i], m->points[3 * i + 1], m->points[3 * i + 2]};
      sinew_plug_t el;
      int32_t ix = (int32_t)i;
      el = sinew_plug_make(n, vt, 1, &ix);
      if (sinew_plug_has_value(w->g, &el)) {
        size_t nv;
        sinew_get_doubles(w->g, &el, v, 3, &nv);
      }
      for (int k = 0; k < 3; k++) {
        put(w, " ");
        sinew__buf_num_float(&w->b, (double)(float)v[k]);
      }
    }
    put(w, ";\n");
  }
  /* the lines as read, when they still describe the topology and hold both its edges and its
   * faces (a file whose .ed line failed to read keeps only .fc: the geometry is written anew) */
  bool has_ed = false, has_fc = false;
  for (uint32_t i = 0; e && i < e->ngeom; i++) {
    const char *a = e->geom[i].attr;
    size_t an = strcspn(a, "[.");
    has_ed |= (an == 2 && !strncmp(a, "ed", 2)) || (an == 4 && !strncmp(a, "edge", 4));
    has_fc |= (an == 2 && !strncmp(a, "fc", 2)) || (an == 4 && !strncmp(a, "face", 4));
  }
  if (e && has_ed && has_fc && m && e->geom_topology == (const void *)m->topology) {
    for (uint32_t i = 0; i < e->ngeom; i++) {
      put(w, "\tsetAttr ");
      put(w, e->geom[i].text);
      put(w, ";\n");
    }
  } else if (m && m->topology->nfaces) {
    const sinew_topology_t *t = m->topology;
    uint32_t *edges = sinew_malloc(2 * (size_t)t->nface_verts * sizeof *edges);
    int32_t *fe = sinew_malloc((size_t)t->nface_verts * sizeof *fe);
    uint32_t ne = 0;
    if (!edges || !fe || sinew_mesh_edges_from_faces(t, edges, &ne, fe)) {
      w->rc = SINEW_ENOMEM;
    } else {
      /* the UVs the faces name, unless the node holds UV points of its own (written with its
       * values) */
      sinew_plug_t uvsp;
      if (t->uvs && t->nuvs && (sinew_plug_parse_attr(w->g, n, "uvst[0].uvsp", &uvsp) ||
                                !sinew_plug_indices(w->g, &uvsp, NULL, 0))) {
        sinew__buf_printf(&w->b, "\tsetAttr -s %u \".uvst[0].uvsp[0:%u]\" -type \"float2\"", t->nuvs, t->nuvs - 1);
        for (uint32_t i = 0; i < 2 * t->nuvs; i++) {
          put(w, " ");
          sinew__buf_num_float(&w->b, (double)t->uvs[i]);
        }
        put(w, ";\n");
      }
      sinew__buf_printf(&w->b, "\tsetAttr -s %u \".ed[0:%u]\"", ne, ne - 1);
      for (uint32_t i = 0; i < ne; i++) sinew__buf_printf(&w->b, " %u %u 0", edges[2 * i], edges[2 * i + 1]);
      put(w, ";\n");
      sinew__buf_printf(&w->b, "\tsetAttr -s %u -ch %u \".fc[0:%u]\" -type \"polyFaces\"", t->nfaces,
                        t->nface_verts, t->nfaces - 1);
      for (uint32_t f = 0; f < t->nfaces; f++) {
        sinew__buf_printf(&w->b, "\n\t\tf %u", t->face_counts[f]);
        for (uint32_t k = 0; k < t->face_counts[f]; k++)
          sinew__buf_printf(&w->b, " %d", fe[t->face_offsets[f] + k]);
        bool uvs = t->face_uvs != NULL; /* the face's UVs when every vertex has one */
        for (uint32_t k = 0; uvs && k < t->face_counts[f]; k++) uvs = t->face_uvs[t->face_offsets[f] + k] != UINT32_MAX;
        if (uvs) {
          sinew__buf_printf(&w->b, "\n\t\tmu 0 %u", t->face_counts[f]);
          for (uint32_t k = 0; k < t->face_counts[f]; k++)
            sinew__buf_printf(&w->b, " %u", t->face_uvs[t->face_offsets[f] + k]);
        }
      }
      put(w, ";\n");
    }
    sinew_free(edges);
    sinew_free(fe);
  }
  sinew_data_unref(d);
}

/* ---- nodes ------------------------------------------------------------------------------------------------ */

/* The setAttr lines of node n's values: what was set, mesh geometry, values kept as text, and
 * the -k / -cb records. */
static void write_values(writer *w, sinew_node_t n, sinew__extra *e) {
  const sinew_node_type_t *t = sinew_node_type(w->g, n);
  uint32_t na = sinew_node_attr_count(w->g, n);
  bool mesh = sinew_node_type_is_a(t, "mesh");
  bool stored_mesh = false;
  if (mesh) {
    uint32_t snsm = sinew_node_attr(w->g, n, "sinewStoredMesh");
    sinew_plug_t p = sinew_plug_make(n, snsm, 0, NULL);
    stored_mesh = snsm != UINT32_MAX && sinew_plug_has_value(w->g, &p);
  }
  /* A mesh's points (vrts) go where Maya writes them, after the other values, with the stored
   * geometry when there is one: one place either way, so a file sinew wrote is written back the
   * same (a mesh whose faces failed to read is saved with its points only, and opened again it
   * has no stored geometry). */
  uint32_t vrts = mesh ? sinew_node_attr(w->g, n, "vrts") : UINT32_MAX;
  for (uint32_t a = 0; a < na && !w->rc; a++) {
    sinew_attr_info_t info;
    if (a == vrts || sinew_node_attr_info(w->g, n, a, &info) || info.parent != UINT32_MAX) continue;
    sinew_plug_t p = sinew_plug_make(n, a, 0, NULL);
    write_attr(w, &p);
    if (w->b.n > (1u << 20)) flush(w);
  }
  if (stored_mesh) {
    write_mesh_geometry(w, n);
  } else if (vrts != UINT32_MAX && !w->rc) {
    sinew_plug_t p = sinew_plug_make(n, vrts, 0, NULL);
    write_attr(w, &p);
  }
  sinew__ma_write_aliases(w->g, n, &w->b);
  if (e)
    for (uint32_t i = 0; i < e->nraws; i++) {
      if (w->out && sinew__refs_write_raw(w->s, n, &e->raws[i], &w->b)) continue;
      put(w, "\tsetAttr ");
      put(w, e->raws[i].text);
      put(w, ";\n");
    }
  for (const struct sinew__plug_state *st = e ? e->states : NULL; st; st = st->hh.next) {
    if (!sinew__plug_state_live(w->g, n, st)) continue; /* its attribute was deleted */
    if (st->keyable >= 0) sinew__buf_printf(&w->b, "\tsetAttr -k %s \".%s\";\n", st->keyable ? "on" : "off", st->attr);
    if (st->channel_box >= 0)
      sinew__buf_printf(&w->b, "\tsetAttr -cb %s \".%s\";\n", st->channel_box ? "on" : "off", st->attr);
  }
  if (w->out) sinew__refs_write_node_end(w->s, n, &w->b);
}

int sinew__ma_node_values(sinew_session_t *s, sinew_node_t n, sinew__buf *out) {
  writer w = {.s = s, .sc = s->scene, .g = s->scene->graph, .out = NULL, .b = *out};
  write_values(&w, n, sinew__extra_get(s->scene, n, false));
  *out = w.b;
  return w.b.oom ? SINEW_ENOMEM : w.rc;
}

static void write_node(writer *w, sinew_node_t n) {
  if (n.index < w->nslots && w->written[n.index]) return;
  if (sinew__refs_skip_node(w->s, n)) return; /* the referenced file has it */
  /* DAG parents first; a node under a referenced one goes under the reference's fosterParent
   * node, and a parent edit puts it back (as Maya writes it) */
  sinew_node_t parent = sinew_node_parent(w->g, n), foster_node;
  bool make_foster = false;
  const char *foster = sinew__refs_foster(w->s, n, &make_foster);
  if (foster && sinew_node_find(w->g, foster, &foster_node) == SINEW_OK) write_node(w, foster_node);
  else if (foster && make_foster) sinew__buf_printf(&w->b, "createNode fosterParent -n \"%s\";\n", foster);
  else if (!foster && sinew_node_valid(w->g, parent)) write_node(w, parent);
  if (n.index < w->nslots) w->written[n.index] = 1;
  sinew__extra *e = sinew__extra_get(w->sc, n, false);
  const sinew_node_type_t *t = sinew_node_type(w->g, n);
  char buf[1024];
  if (is_default(w, n)) {
    sinew__buf_printf(&w->b, "select -ne :%s;\n", sinew_node_name(w->g, n));
  } else {
    put(w, "createNode ");
    put(w, sinew_node_type_name(t));
    put(w, " -n ");
    quoted(w, sinew_node_name(w->g, n));
    if (foster) {
      put(w, " -p ");
      quoted(w, foster);
    } else if (sinew_node_valid(w->g, parent)) {
      put(w, " -p ");
      quoted(w, sinew__node_label(w->g, parent, buf, sizeof buf));
    }
    put(w, ";\n");
  }
  if (e && e->uid) {
    put(w, "\trename -uid ");
    quoted(w, e->uid);
    put(w, ";\n");
  }
  uint32_t na = sinew_node_attr_count(w->g, n);
  /* dynamic attributes (top level, then their children) */
  for (uint32_t a = 0; a < na; a++) {
    sinew_attr_info_t info;
    if (sinew_node_attr_info(w->g, n, a, &info) || !(info.flags & SINEW_ATTR_DYNAMIC)) continue;
    if (sinew__extra_is_implicit(w->sc, n, a)) continue;
    write_add_attr(w, n, &info);
  }
  sinew__ma_write_alias_attr(w->g, n, &w->b);
  write_values(w, n, e);
  if (sinew_node_locked(w->g, n)) put(w, "\tlockNode -l 1 ;\n");
  flush(w);
}

static bool write_conn(void *ud, const sinew_connection_t *c) {
  writer *w = ud;
  if (internal_plug(w, &c->src) || internal_plug(w, &c->dst)) return true;
  if (sinew__refs_write_conn(w->s, c, false, &w->b)) return w->rc == SINEW_OK;
  put(w, "connectAttr \"");
  plug_name(w, &c->src);
  put(w, "\" \"");
  plug_name(w, &c->dst);
  put(w, "\"");
  if (sinew_plug_locked(w->g, &c->dst)) put(w, " -l on");
  put(w, ";\n");
  if (w->b.n > (1u << 20)) flush(w);
  return w->rc == SINEW_OK;
}

/* The connections between the scene and referenced nodes, through placeholders (after the rest). */
static bool write_placeholder_conn(void *ud, const sinew_connection_t *c) {
  writer *w = ud;
  if (internal_plug(w, &c->src) || internal_plug(w, &c->dst)) return true;
  sinew__refs_write_conn(w->s, c, true, &w->b);
  if (w->b.n > (1u << 20)) flush(w);
  return w->rc == SINEW_OK;
}

int sinew__write_ma(sinew_session_t *s, FILE *out, const char *name) {
  writer w = {.s = s, .sc = s->scene, .g = s->scene->graph, .out = out};
  sinew_graph_t *g = w.g;
  if (!name) name = "untitled";
  int rc = sinew__finish_current(s);
  if (!rc) rc = sinew__sync_playback_node(s); /* the range goes where Maya keeps it */
  if (rc) return rc;
  sinew_node_t it = {0, 0};
  while (sinew_node_next(g, &it))
    if (it.index + 1 > w.nslots) w.nslots = it.index + 1;
  w.written = sinew_calloc(w.nslots ? w.nslots : 1, 1);
  if (!w.written) return SINEW_ENOMEM;
  /* what a loaded reference's node writes: its edits, and placeholders for connections */
  if ((rc = sinew__refs_save_begin(s))) {
    sinew__refs_save_end(s);
    sinew_free(w.written);
    return rc;
  }
  sinew__buf_printf(&w.b, "//Maya ASCII 2020 scene\n//Name: %s\n//Codeset: UTF-8\n", name);
  /* file references and other header lines first, then requires */
  for (uint32_t i = 0; i < w.sc->nrequires; i++)
    if (w.sc->requires[i][0] == '\x01' && strncmp(w.sc->requires[i] + 1, "file", 4) == 0) {
      put(&w, w.sc->requires[i] + 1);
      put(&w, ";\n");
    }
  put(&w, "requires maya \"2020\";\n");
  for (uint32_t i = 0; i < w.sc->nrequires; i++)
    if (w.sc->requires[i][0] != '\x01' && w.sc->requires[i][0] != '\x02') {
      put(&w, w.sc->requires[i]);
      put(&w, ";\n");
    }
  sinew__buf_printf(&w.b, "currentUnit -l %s -a %s -t %s;\n", sinew_linear_unit_name(sinew_scene_linear_unit(g)),
                    sinew_angle_unit_name(sinew_scene_angle_unit(g)), sinew_time_unit_name(sinew_time_get_unit(g)));
  for (uint32_t i = 0; i < w.sc->nrequires; i++)
    if (w.sc->requires[i][0] == '\x01' && strncmp(w.sc->requires[i] + 1, "file", 4) != 0) {
      put(&w, w.sc->requires[i] + 1);
      put(&w, ";\n");
    }
  for (uint32_t i = 0; i + 1 < w.sc->nfile_info; i += 2) {
    put(&w, "fileInfo ");
    quoted(&w, w.sc->file_info[i]);
    put(&w, " ");
    quoted(&w, w.sc->file_info[i + 1]);
    put(&w, ";\n");
  }
  flush(&w);
  it = (sinew_node_t){0, 0};
  while (sinew_node_next(g, &it) && !w.rc) write_node(&w, it);
  sinew_node_t config;
  if (w.sc->has_playback && sinew_node_find(g, "sceneConfigurationScriptNode", &config) != SINEW_OK) {
    /* the playback range, where Maya keeps it (a scene that had the node keeps its text there) */
    char *text = sinew__playback_script(w.sc);
    if (!text) w.rc = SINEW_ENOMEM;
    else {
      put(&w, "createNode script -n \"sceneConfigurationScriptNode\";\n\tsetAttr \".b\" -type \"string\" ");
      quoted(&w, text);
      put(&w, ";\n\tsetAttr \".st\" 6;\n");
      sinew_free(text);
    }
  }
  sinew_foreach_connection(g, (sinew_node_t){0, 0}, false, write_conn, &w);
  sinew_foreach_connection(g, (sinew_node_t){0, 0}, false, write_placeholder_conn, &w);
  for (uint32_t i = 0; i < w.sc->nraw_conns; i++) {
    const sinew__raw_conn *c = &w.sc->raw_conns[i];
    if (!sinew_node_valid(g, c->src) || !sinew_node_valid(g, c->dst)) continue;
    char buf[1024];
    put(&w, "connectAttr \"");
    if (is_default(&w, c->src)) put(&w, ":");
    put(&w, sinew__node_label(g, c->src, buf, sizeof buf));
    put(&w, ".");
    put(&w, c->src_attr);
    put(&w, "\" \"");
    if (is_default(&w, c->dst)) put(&w, ":");
    put(&w, sinew__node_label(g, c->dst, buf, sizeof buf));
    put(&w, ".");
    put(&w, c->dst_attr);
    put(&w, "\";\n");
  }
  for (uint32_t i = 0; i < w.sc->nrequires; i++)
    if (w.sc->requires[i][0] == '\x02') {
      put(&w, w.sc->requires[i] + 1);
      put(&w, ";\n");
    }
  sinew__buf_printf(&w.b, "// End of %s\n", name);
  flush(&w);
  sinew__buf_free(&w.b);
  sinew_free(w.written);
  sinew__refs_save_end(s);
  if (!w.rc && ferror(out)) w.rc = SINEW_EIO;
  return w.rc;
}
