/* cmds/cmd_curve.c: the curve commands (docs/commands.md#curve):
 *
 *   curve [-d degree] -p x y z ... [-k knot ...] [-per] [-n name]       a new curve
 *   curve -r | -a [-os | -ws] [-d] -p ... [-k ...] curveName             replace / append
 *   circle [-c x y z] [-nr x y z] [-r radius] [-d 1|3] [-s sections] [-sw angle] [-n name] [-ch]
 *
 * Each runs in its own savepoint of the graph's journal, so a failure leaves the scene as it
 * was even where the session keeps no undo step (a file being read, the queue off). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmds/cmds_internal.h"
#include "sinew/curve.h"

#define COUNT(a) (sizeof(a) / sizeof *(a))
#define TWO_PI 6.283185307179586476925286766559

/* Runs fn inside a savepoint: rolled back when it fails, committed when it succeeds. */
static int in_savepoint(sinew_cmd_t *cmd, int (*fn)(sinew_cmd_t *cmd)) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  int brc = sinew_graph_begin(g);
  if (brc == SINEW_EINVAL) return fn(cmd); /* from inside evaluation: no change can happen */
  if (brc) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  int rc = fn(cmd);
  if (rc) sinew_graph_rollback(g);
  else sinew_graph_commit(g);
  return rc;
}

/* "<transform>Shape": "curve1" -> "curveShape1", as Maya names shapes. */
static void shape_name(const char *xf, char *buf, size_t size) {
  size_t base = strlen(xf);
  while (base > 0 && xf[base - 1] >= '0' && xf[base - 1] <= '9') base--;
  snprintf(buf, size, "%.*sShape%s", (int)base, xf, xf + base);
}

int sinew__make_curve_shape(sinew_cmd_t *cmd, const char *name, const char *base, sinew_node_t parent,
                            sinew_node_t *xf, sinew_node_t *shape) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  char auto_name[64], buf[600], sname[640];
  snprintf(auto_name, sizeof auto_name, "%s#", base);
  const char *want = sinew__unique_name(g, name && name[0] ? name : auto_name, buf, sizeof buf);
  int rc = parent.gen ? sinew_node_create_under(g, "transform", want, parent, xf) : sinew_node_create(g, "transform", want, xf);
  if (rc) return sinew__graph_error(cmd, rc);
  shape_name(sinew_node_name(g, *xf), sname, sizeof sname);
  char sbuf[700];
  if ((rc = sinew_node_create_under(g, "nurbsCurve", sinew__unique_name(g, sname, sbuf, sizeof sbuf), *xf, shape))) {
    rc = sinew__graph_error(cmd, rc);
    sinew_node_delete(g, *xf); /* made just above: nothing refers to it */
    *xf = (sinew_node_t){0, 0};
  }
  return rc;
}

static int select_result(sinew_cmd_t *cmd, sinew_node_t n) {
  sinew__scene *sc = sinew__session(cmd)->scene;
  uint32_t cap = sc->csel;
  if (sinew__grow((void **)&sc->selection, &cap, 1, sizeof *sc->selection))
    return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  sc->csel = cap;
  sc->selection[0] = n;
  sc->nsel = 1;
  sc->current = n;
  return SINEW_OK;
}

/* ---- curve ------------------------------------------------------------------------------------------ */

static const sinew_cmd_flag_t curve_flags[] = {
    {"degree", "d", "i", 0},        {"point", "p", "lll", SINEW_CMD_MULTI}, {"knot", "k", "f", SINEW_CMD_MULTI},
    {"periodic", "per", "b", 0},    {"name", "n", "s", 0},                  {"append", "a", "", 0},
    {"replace", "r", "", 0},        {"objectSpace", "os", "", 0},           {"worldSpace", "ws", "", 0},
    {"bezier", "bez", "", 0},       {"editPoint", "ep", "lll", SINEW_CMD_MULTI}};

int sinew__curve_shape_of(sinew_cmd_t *cmd, const char *name, sinew_node_t *out) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  sinew_node_t n;
  int rc = sinew__cmd_node(cmd, name, &n);
  if (rc) return rc;
  const sinew_node_type_t *t = sinew_node_type(g, n);
  if (!sinew_node_type_is_a(t, "nurbsCurve")) {
    sinew_node_t kids[16];
    size_t nk = sinew_node_children(g, n, kids, 16);
    for (size_t i = 0; i < nk && i < 16; i++)
      if (sinew_node_type_is_a(sinew_node_type(g, kids[i]), "nurbsCurve")) {
        *out = kids[i];
        return SINEW_OK;
      }
    return sinew_cmd_error(cmd, SINEW_ETYPE, "%s is not a NURBS curve", name);
  }
  *out = n;
  return SINEW_OK;
}

/* Maya's knots when -k is not given: open curves clamped and uniform (degree copies of 0, then
 * 1 2 ..., then degree copies of the last), periodic ones uniform from 1 - degree. */
static void default_knots(uint32_t degree, uint32_t ncvs, bool periodic, double *k) {
  uint32_t nk = ncvs + degree - 1;
  for (uint32_t i = 0; i < nk; i++) {
    if (periodic) {
      k[i] = (double)i - (double)(degree - 1);
    } else {
      double v = (double)i - (double)(degree - 1);
      double last = (double)(ncvs - degree);
      k[i] = v < 0 ? 0 : v > last ? last : v;
    }
  }
}

static int cmd_curve_body(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  bool append = sinew_cmd_flag_count(cmd, "append") > 0, replace = sinew_cmd_flag_count(cmd, "replace") > 0;
  if (append && replace) return sinew_cmd_error(cmd, SINEW_EINVAL, "-append and -replace cannot be used together");
  if (sinew_cmd_flag_count(cmd, "objectSpace") && sinew_cmd_flag_count(cmd, "worldSpace"))
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-objectSpace and -worldSpace cannot be used together");
  if (sinew_cmd_flag_count(cmd, "editPoint") || sinew_cmd_flag_count(cmd, "bezier"))
    return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "-editPoint and -bezier are not supported (give CVs with -p)");
  bool edit = append || replace;
  if (edit && sinew_cmd_argc(cmd) != 1)
    return sinew_cmd_error(cmd, SINEW_EINVAL, "-%s needs the curve to change", append ? "append" : "replace");
  if (!edit && sinew_cmd_argc(cmd)) return sinew_cmd_error(cmd, SINEW_EINVAL, "takes no objects (use -a or -r)");
  size_t np = sinew_cmd_flag_count(cmd, "point"), nk = sinew_cmd_flag_count(cmd, "knot");
  if (!np) return sinew_cmd_error(cmd, SINEW_EINVAL, "no points: give CVs with -p x y z");
  if (np > SINEW_CURVE_MAX_CVS) return sinew_cmd_error(cmd, SINEW_ERANGE, "%zu points is more than a curve may have", np);

  sinew_node_t shape = {0, 0};
  sinew_data_t *old = NULL;
  sinew_curve_t oc;
  int rc;
  if (edit) {
    if ((rc = sinew__curve_shape_of(cmd, sinew_cmd_arg_string(cmd, 0), &shape))) return rc;
    sinew_plug_t pl = sinew__attr_plug(g, shape, "local");
    sinew_get_data(g, &pl, &old);
    if (old && sinew_curve_get(old, &oc)) {
      sinew_data_unref(old);
      old = NULL;
    }
    if (append && !old) return sinew_cmd_error(cmd, SINEW_EINVAL, "%s has no curve to append to", sinew_node_name(g, shape));
    if (append && oc.form == SINEW_CURVE_PERIODIC) {
      sinew_data_unref(old);
      return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "appending to a periodic curve is not supported");
    }
  }
  int64_t deg = sinew_cmd_flag_int(cmd, "degree", append ? (int64_t)oc.degree : 3);
  if (deg < 1 || deg > SINEW_CURVE_MAX_DEGREE) {
    sinew_data_unref(old);
    return sinew_cmd_error(cmd, SINEW_ERANGE, "-degree %lld is not between 1 and %d", (long long)deg,
                           SINEW_CURVE_MAX_DEGREE);
  }
  bool periodic = sinew_cmd_flag_bool(cmd, "periodic", false);
  uint32_t degree = (uint32_t)deg, keep = append ? oc.ncvs : 0, ncvs = keep + (uint32_t)np;
  if (ncvs <= degree) {
    sinew_data_unref(old);
    return sinew_cmd_error(cmd, SINEW_EINVAL, "a degree %u curve needs at least %u points, got %u", degree, degree + 1,
                           ncvs);
  }
  uint32_t nknots = ncvs + degree - 1;
  if (nk && nk != nknots) {
    sinew_data_unref(old);
    return sinew_cmd_error(cmd, SINEW_EINVAL, "%u points of degree %u need %u knots, got %zu", ncvs, degree, nknots, nk);
  }
  double *buf = sinew_malloc((nknots + 4 * (size_t)ncvs) * sizeof(double));
  if (!buf) {
    sinew_data_unref(old);
    return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  }
  double *knots = buf, *cvs = buf + nknots;
  if (keep) memcpy(cvs, oc.cvs, 4 * (size_t)keep * sizeof(double));
  sinew_data_unref(old);
  /* -ws points of a curve under a moved parent come into its space */
  sinew_mat4_t to_local;
  sinew_mat4_identity(&to_local);
  if (edit && sinew_cmd_flag_count(cmd, "worldSpace")) {
    sinew_mat4_t w;
    sinew_plug_t pm = sinew__attr_plug(g, shape, "parentMatrix");
    pm = sinew_plug_make(shape, pm.attr, 1, (int32_t[]){0});
    if (!sinew_get_matrix(g, &pm, &w) && !sinew_mat4_inverse(&w, &to_local)) {
      sinew_free(buf);
      return sinew_cmd_error(cmd, SINEW_EINVAL, "%s's parent space is singular", sinew_node_name(g, shape));
    }
  }
  for (size_t i = 0; i < np; i++) {
    sinew_vec3_t q;
    const sinew_value_t *v[3];
    for (int k = 0; k < 3; k++) v[k] = sinew_cmd_flag_arg(cmd, "point", i, (size_t)k);
    sinew_vec3_t p = (sinew_vec3_t){sinew_value_to_double(v[0]), sinew_value_to_double(v[1]), sinew_value_to_double(v[2])};
    sinew_mat4_transform_point(p, &to_local, &q);
    double *c = &cvs[4 * (keep + i)];
    c[0] = q.x;
    c[1] = q.y;
    c[2] = q.z;
    c[3] = 1;
  }
  if (nk) {
    for (size_t i = 0; i < nk; i++) knots[i] = sinew_value_to_double(sinew_cmd_flag_arg(cmd, "knot", i, 0));
  } else {
    default_knots(degree, ncvs, periodic, knots);
  }
  sinew_curve_t c = {.degree = degree, .form = periodic ? SINEW_CURVE_PERIODIC : SINEW_CURVE_OPEN, .dim = 3,
                     .ncvs = ncvs, .nknots = nknots, .knots = knots, .cvs = cvs};
  if (!periodic && ncvs > 1 && !memcmp(cvs, cvs + 4 * (size_t)(ncvs - 1), 3 * sizeof(double)))
    c.form = SINEW_CURVE_CLOSED; /* the ends meet, as Maya reports such a curve */
  char why[200];
  sinew_data_t *d = NULL;
  rc = sinew_curve_check(&c, why, sizeof why);
  if (rc) {
    sinew_free(buf);
    return sinew_cmd_error(cmd, rc, "%s", why);
  }
  rc = sinew_curve_create(&c, &d);
  sinew_free(buf);
  if (rc) return sinew_cmd_error(cmd, rc, "out of memory");
  sinew_node_t xf = {0, 0};
  if (!edit) rc = sinew__make_curve_shape(cmd, sinew_cmd_flag_string(cmd, "name", NULL), "curve", (sinew_node_t){0, 0}, &xf, &shape);
  if (!rc) {
    /* the new geometry goes where the shape takes it: create when history feeds it is Maya's
     * replacement of the history; here a connected create is disconnected first */
    sinew_plug_t cr = sinew__attr_plug(g, shape, "create"), src;
    if (edit && sinew_plug_source(g, &cr, &src) && (rc = sinew_disconnect(g, &src, &cr))) rc = sinew__graph_error(cmd, rc);
    sinew_plug_t cc = sinew__attr_plug(g, shape, "cached");
    if (!rc && (rc = sinew_set_data(g, &cc, d))) rc = sinew__graph_error(cmd, rc);
  }
  sinew_data_unref(d);
  if (rc) return rc;
  sinew_node_t result = edit ? shape : xf;
  char lbuf[512];
  if (sinew_cmd_result_string(cmd, sinew__node_label(g, result, lbuf, sizeof lbuf)))
    return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  return edit ? SINEW_OK : select_result(cmd, xf);
}

static int cmd_curve(sinew_cmd_t *cmd) { return in_savepoint(cmd, cmd_curve_body); }

/* ---- circle ------------------------------------------------------------------------------------------ */

static const sinew_cmd_flag_t circle_flags[] = {
    {"center", "c", "lll", 0},    {"normal", "nr", "fff", 0},          {"radius", "r", "l", 0},
    {"degree", "d", "i", 0},      {"sections", "s", "i", 0},           {"sweep", "sw", "a", 0},
    {"name", "n", "s", 0},        {"constructionHistory", "ch", "b", 0}, {"object", "o", "b", 0},
    {"centerX", "cx", "l", 0},    {"centerY", "cy", "l", 0},           {"centerZ", "cz", "l", 0},
    {"normalX", "nrx", "f", 0},   {"normalY", "nry", "f", 0},          {"normalZ", "nrz", "f", 0}};

static int set1(sinew_graph_t *g, sinew_node_t n, const char *attr, double v) {
  sinew_plug_t p = sinew__attr_plug(g, n, attr);
  return sinew_set_double(g, &p, v);
}

static int cmd_circle_body(sinew_cmd_t *cmd) {
  sinew_graph_t *g = sinew_cmd_graph(cmd);
  if (sinew_cmd_argc(cmd)) return sinew_cmd_error(cmd, SINEW_EINVAL, "takes no objects");
  if (sinew_cmd_query(cmd) || sinew_cmd_edit(cmd))
    return sinew_cmd_error(cmd, SINEW_EUNSUPPORTED, "-query and -edit are not supported (set makeNurbCircle's attributes)");
  double c[3] = {0, 0, 0}, nr[3] = {0, 0, 1};
  for (int k = 0; k < 3; k++) {
    c[k] = sinew_cmd_flag_double(cmd, "center", (size_t)k, 0);
    nr[k] = sinew_cmd_flag_double(cmd, "normal", (size_t)k, k == 2 ? 1 : 0);
  }
  const char *cn[3] = {"centerX", "centerY", "centerZ"}, *nn[3] = {"normalX", "normalY", "normalZ"};
  for (int k = 0; k < 3; k++) {
    if (sinew_cmd_flag_count(cmd, cn[k])) c[k] = sinew_cmd_flag_double(cmd, cn[k], 0, 0);
    if (sinew_cmd_flag_count(cmd, nn[k])) nr[k] = sinew_cmd_flag_double(cmd, nn[k], 0, 0);
  }
  double radius = sinew_cmd_flag_double(cmd, "radius", 0, 1), sweep = sinew_cmd_flag_double(cmd, "sweep", 0, TWO_PI);
  int64_t degree = sinew_cmd_flag_int(cmd, "degree", 3), sections = sinew_cmd_flag_int(cmd, "sections", 8);
  if (degree != 1 && degree != 3)
    return sinew_cmd_error(cmd, SINEW_ERANGE, "-degree %lld: a circle is degree 1 or 3", (long long)degree);
  if (sections < 3 || sections > 100000)
    return sinew_cmd_error(cmd, SINEW_ERANGE, "-sections %lld: a circle has 3 to 100000 sections", (long long)sections);
  /* build it now: what the node could not build fails the command rather than the first read */
  sinew_data_t *d = NULL;
  int rc = sinew_curve_circle((sinew_vec3_t){nr[0], nr[1], nr[2]}, (sinew_vec3_t){c[0], c[1], c[2]}, radius,
                              (uint32_t)degree, (uint32_t)sections, sweep, &d);
  if (rc == SINEW_EUNSUPPORTED)
    return sinew_cmd_error(cmd, rc, "-sweep: only a full circle (360 degrees) is supported, not an arc");
  if (rc == SINEW_ENOMEM) return sinew_cmd_error(cmd, rc, "out of memory");
  if (rc) return sinew_cmd_error(cmd, rc, "-normal 0 0 0 is no direction (or a number is not finite)");
  sinew_node_t xf, shape, make = {0, 0};
  bool history = sinew_cmd_flag_bool(cmd, "constructionHistory", true);
  rc = sinew__make_curve_shape(cmd, sinew_cmd_flag_string(cmd, "name", NULL), "nurbsCircle", (sinew_node_t){0, 0}, &xf, &shape);
  if (!rc && history) {
    char buf[64];
    rc = sinew_node_create(g, "makeNurbCircle", sinew__unique_name(g, "makeNurbCircle#", buf, sizeof buf), &make);
    const char *cs[3] = {"cx", "cy", "cz"}, *ns[3] = {"nrx", "nry", "nrz"};
    for (int k = 0; k < 3 && !rc; k++) {
      rc = set1(g, make, cs[k], c[k]);
      if (!rc) rc = set1(g, make, ns[k], nr[k]);
    }
    if (!rc) rc = set1(g, make, "r", radius);
    if (!rc) rc = set1(g, make, "d", (double)degree);
    if (!rc) rc = set1(g, make, "s", (double)sections);
    if (!rc) rc = set1(g, make, "sw", sweep);
    sinew_plug_t oc = sinew__attr_plug(g, make, "outputCurve"), cr = sinew__attr_plug(g, shape, "create");
    if (!rc) rc = sinew_connect(g, &oc, &cr, 0, NULL);
    if (rc) rc = sinew__graph_error(cmd, rc);
  } else if (!rc) {
    sinew_plug_t cc = sinew__attr_plug(g, shape, "cached");
    if ((rc = sinew_set_data(g, &cc, d))) rc = sinew__graph_error(cmd, rc);
  }
  sinew_data_unref(d);
  if (rc) return rc;
  char lbuf[512];
  if (sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY) ||
      sinew_cmd_result_append_string(cmd, sinew__node_label(g, xf, lbuf, sizeof lbuf)) ||
      (history && sinew_cmd_result_append_string(cmd, sinew__node_label(g, make, lbuf, sizeof lbuf))))
    return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
  return select_result(cmd, xf);
}

static int cmd_circle(sinew_cmd_t *cmd) { return in_savepoint(cmd, cmd_circle_body); }

int sinew__register_curve_cmds(sinew_lang_t *L, sinew_session_t *s) {
  const sinew_cmd_desc_t cmds[] = {
      {"curve", cmd_curve, curve_flags, COUNT(curve_flags), false, s},
      {"circle", cmd_circle, circle_flags, COUNT(circle_flags), false, s},
  };
  for (size_t i = 0; i < COUNT(cmds); i++) {
    int rc = sinew_lang_register_command(L, &cmds[i]);
    if (rc) return rc;
  }
  return SINEW_OK;
}
