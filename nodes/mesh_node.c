/* nodes/mesh_node.c: the "mesh" shape node and the primitive creation nodes (polyCube,
 * polyPlane, polyCylinder, polySphere), registered through the public node-type API.
 *
 *   outMesh     = (inMesh if it holds a mesh, else the stored geometry with vrts overriding its
 *                 points) + pnts tweaks
 *   worldMesh[] = outMesh * the parent's world matrix (the mesh's own local matrix is identity)
 *
 * Passing geometry through copies nothing: without tweaks outMesh is the very block inMesh
 * holds, and under an identity parent worldMesh is that block again. When points must change,
 * the node writes into one of two output blocks it keeps (the one nobody else holds any more),
 * so a deformed mesh evaluated every frame allocates nothing in steady state. */
#include <math.h>
#include <string.h>

#include "nodes/mesh_internal.h"
#include "nodes/nodes_internal.h"
#include "sinew/pool.h"

#define F_IN SINEW_ATTR_INPUT
#define F_KEY (SINEW_ATTR_INPUT | SINEW_ATTR_KEYABLE)
#define F_IN_ARRAY (SINEW_ATTR_INPUT | SINEW_ATTR_ARRAY)
#define F_OUT SINEW_ATTR_OUTPUT
#define F_OUT_ARRAY (SINEW_ATTR_OUTPUT | SINEW_ATTR_ARRAY)
/* Geometry inputs are connected, not written to files (vrts and the face data are). */
#define F_GEOM_IN (SINEW_ATTR_READABLE | SINEW_ATTR_WRITABLE | SINEW_ATTR_CONNECTABLE | SINEW_ATTR_INDEX_MATTERS)
#define F_HIDDEN (SINEW_ATTR_READABLE | SINEW_ATTR_WRITABLE | SINEW_ATTR_HIDDEN)

#define MESH &sinew_mesh_data_type

/* A compound of three numeric children. */
#define VEC3(lname, sname, ctype, fl, cfl, lx, sx, ly, sy, lz, sz)                   \
  {.name = lname, .short_name = sname, .type = SINEW_ATTR_COMPOUND, .flags = fl},      \
      {.name = lx, .short_name = sx, .type = ctype, .parent = lname, .flags = cfl},    \
      {.name = ly, .short_name = sy, .type = ctype, .parent = lname, .flags = cfl},    \
      {.name = lz, .short_name = sz, .type = ctype, .parent = lname, .flags = cfl}

/* Points above this are refused when vrts asks for them without stored geometry. */
#define MAX_CLOUD_POINTS (1 << 28)

static const sinew_attr_desc_t mesh_attrs[] = {
    {.name = "inMesh", .short_name = "i", .type = SINEW_ATTR_DATA, .flags = F_GEOM_IN, .data_type = MESH},
    {.name = "outMesh", .short_name = "o", .type = SINEW_ATTR_DATA, .flags = F_OUT, .data_type = MESH},
    {.name = "worldMesh", .short_name = "w", .type = SINEW_ATTR_DATA, .flags = F_OUT_ARRAY, .data_type = MESH},
    VEC3("vrts", "vt", SINEW_ATTR_FLOAT, F_IN_ARRAY, F_IN, "vrtx", "vx", "vrty", "vy", "vrtz", "vz"),
    VEC3("pnts", "pt", SINEW_ATTR_FLOAT, F_IN_ARRAY | SINEW_ATTR_KEYABLE, F_KEY, "pntx", "px", "pnty", "py", "pntz", "pz"),
    /* User normals, per face-vertex; Maya's 1e20 marks "not set". Kept, not used. */
    {.name = "normals", .short_name = "n", .type = SINEW_ATTR_COMPOUND, .flags = F_IN_ARRAY},
    {.name = "normalx", .short_name = "nx", .type = SINEW_ATTR_FLOAT, .parent = "normals", .default_value = 1e20},
    {.name = "normaly", .short_name = "ny", .type = SINEW_ATTR_FLOAT, .parent = "normals", .default_value = 1e20},
    {.name = "normalz", .short_name = "nz", .type = SINEW_ATTR_FLOAT, .parent = "normals", .default_value = 1e20},
    /* The topology and base points: set by sinew_mesh_node_set (the .ma reader turns ed/fc into
     * it); not stored, since files carry vrts, edge and face instead. */
    {.name = "sinewStoredMesh", .short_name = "snsm", .type = SINEW_ATTR_DATA, .flags = F_HIDDEN, .data_type = MESH},
    /* Set on nearly every mesh in Maya files; kept, not used. */
    {.name = "visibleInReflections", .short_name = "vir", .type = SINEW_ATTR_BOOL},
    {.name = "visibleInRefractions", .short_name = "vif", .type = SINEW_ATTR_BOOL},
    {.name = "currentUVSet", .short_name = "cuvs", .type = SINEW_ATTR_STRING},
    {.name = "currentColorSet", .short_name = "ccls", .type = SINEW_ATTR_STRING},
    {.name = "displayColorChannel", .short_name = "dcc", .type = SINEW_ATTR_STRING},
    {.name = "uvSet", .short_name = "uvst", .type = SINEW_ATTR_COMPOUND, .flags = F_IN_ARRAY},
    {.name = "uvSetName", .short_name = "uvsn", .type = SINEW_ATTR_STRING, .parent = "uvSet"},
    {.name = "uvSetPoints", .short_name = "uvsp", .type = SINEW_ATTR_COMPOUND, .parent = "uvSet", .flags = F_IN_ARRAY},
    {.name = "uvSetPointsU", .short_name = "uvpu", .type = SINEW_ATTR_FLOAT, .parent = "uvSetPoints"},
    {.name = "uvSetPointsV", .short_name = "uvpv", .type = SINEW_ATTR_FLOAT, .parent = "uvSetPoints"},
    {.name = "uvPivot", .short_name = "pv", .type = SINEW_ATTR_COMPOUND},
    {.name = "uvPivotX", .short_name = "pvx", .type = SINEW_ATTR_DOUBLE, .parent = "uvPivot"},
    {.name = "uvPivotY", .short_name = "pvy", .type = SINEW_ATTR_DOUBLE, .parent = "uvPivot"},
};

static const sinew_affects_t mesh_affects[] = {
    {"inMesh", "outMesh"},          {"inMesh", "worldMesh"},          {"vrts", "outMesh"},
    {"vrts", "worldMesh"},          {"pnts", "outMesh"},              {"pnts", "worldMesh"},
    {"sinewStoredMesh", "outMesh"}, {"sinewStoredMesh", "worldMesh"}, {"sinewParentMatrix", "worldMesh"}};

/* Maya's polyPrimitive base: the output and the orientation shared by every primitive. */
static const sinew_attr_desc_t prim_attrs[] = {
    {.name = "output", .short_name = "out", .type = SINEW_ATTR_DATA, .flags = F_OUT, .data_type = MESH},
    {.name = "axis", .short_name = "ax", .type = SINEW_ATTR_COMPOUND},
    {.name = "axisX", .short_name = "axx", .type = SINEW_ATTR_DOUBLE, .parent = "axis"},
    {.name = "axisY", .short_name = "axy", .type = SINEW_ATTR_DOUBLE, .parent = "axis", .default_value = 1},
    {.name = "axisZ", .short_name = "axz", .type = SINEW_ATTR_DOUBLE, .parent = "axis"},
    /* An enum in Maya whose fields differ per primitive (cube 0-4, cylinder 0-3): an int here. */
    {.name = "createUVs", .short_name = "cuv", .type = SINEW_ATTR_INT, .default_value = 3},
    {.name = "paramWarn", .short_name = "pw", .type = SINEW_ATTR_BOOL, .default_value = 1},
    {.name = "uvSetName", .short_name = "uvs", .type = SINEW_ATTR_STRING},
};
static const sinew_affects_t prim_affects[] = {{"axis", "output"}};

#define DIST(l, s, v) {.name = l, .short_name = s, .type = SINEW_ATTR_DISTANCE, .default_value = v}
#define COUNT(l, s, v) {.name = l, .short_name = s, .type = SINEW_ATTR_INT, .default_value = v}

static const sinew_attr_desc_t cube_attrs[] = {
    DIST("width", "w", 1), DIST("height", "h", 1), DIST("depth", "d", 1),
    COUNT("subdivisionsWidth", "sw", 1), COUNT("subdivisionsHeight", "sh", 1), COUNT("subdivisionsDepth", "sd", 1)};
static const sinew_affects_t cube_affects[] = {{"width", "output"}, {"height", "output"}, {"depth", "output"},
                                               {"subdivisionsWidth", "output"}, {"subdivisionsHeight", "output"},
                                               {"subdivisionsDepth", "output"}};

static const sinew_attr_desc_t plane_attrs[] = {
    DIST("width", "w", 1), DIST("height", "h", 1), COUNT("subdivisionsWidth", "sw", 10),
    COUNT("subdivisionsHeight", "sh", 10)};
static const sinew_affects_t plane_affects[] = {{"width", "output"}, {"height", "output"},
                                                {"subdivisionsWidth", "output"}, {"subdivisionsHeight", "output"}};

static const sinew_attr_desc_t cylinder_attrs[] = {
    DIST("radius", "r", 1), DIST("height", "h", 2), COUNT("subdivisionsAxis", "sa", 20),
    COUNT("subdivisionsHeight", "sh", 1), COUNT("subdivisionsCaps", "sc", 1),
    {.name = "roundCap", .short_name = "rcp", .type = SINEW_ATTR_BOOL}};
static const sinew_affects_t cylinder_affects[] = {{"radius", "output"}, {"height", "output"},
                                                   {"subdivisionsAxis", "output"}, {"subdivisionsHeight", "output"},
                                                   {"subdivisionsCaps", "output"}};

static const sinew_attr_desc_t sphere_attrs[] = {DIST("radius", "r", 1), COUNT("subdivisionsAxis", "sa", 20),
                                                 COUNT("subdivisionsHeight", "sh", 20)};
static const sinew_affects_t sphere_affects[] = {{"radius", "output"}, {"subdivisionsAxis", "output"},
                                                 {"subdivisionsHeight", "output"}};

/* Attribute ids, the same in every graph (types come from the same descriptors). */
static struct {
  uint32_t in_mesh, out_mesh, world_mesh, vrts, pnts, stored, parent_in;
  uint32_t output, axis;
} M;

typedef struct mesh_state {
  sinew_data_t *out_buf[2];   /* reusable outMesh blocks (tweaked points) */
  sinew_data_t *world_buf[2]; /* reusable worldMesh blocks */
  sinew_data_t *scratch;      /* indices and values read from vrts/pnts */
} mesh_state;

/* ---- helpers ------------------------------------------------------------------------------- */

/* Logical indices of an array plug, in the node's scratch block after `reserve` extra bytes per
 * element for the caller. */
static size_t array_indices(sinew_graph_t *g, sinew_node_t n, mesh_state *st, uint32_t attr, size_t reserve,
                            int32_t **idx, int *rc) {
  sinew_plug_t arr = sinew_plug_make(n, attr, 0, NULL);
  size_t count = sinew_plug_indices(g, &arr, NULL, 0);
  *rc = SINEW_OK;
  if (!count) return 0;
  void *s = sinew__mesh_scratch(&st->scratch, count * (sizeof(int32_t) + reserve));
  if (!s) {
    *rc = SINEW_ENOMEM;
    return 0;
  }
  *idx = s;
  return sinew_plug_indices(g, &arr, *idx, count);
}

static void read3(sinew_graph_t *g, sinew_node_t n, uint32_t attr, int32_t index, double v[3]) {
  sinew_plug_t e = sinew_plug_make(n, attr, 1, &index);
  v[0] = v[1] = v[2] = 0;
  sinew_get_doubles(g, &e, v, 3, NULL);
}

/* The stored geometry with vrts applied, or a point cloud of vrts when nothing is stored.
 * *out is a new reference or NULL (no geometry at all). */
static int stored_geometry(sinew_graph_t *g, sinew_node_t n, mesh_state *st, sinew_data_t **out) {
  sinew_data_t *stored = NULL;
  sinew_plug_t ps = sinew_plug_make(n, M.stored, 0, NULL);
  sinew_get_data(g, &ps, &stored);
  int32_t *idx;
  int rc;
  size_t count = array_indices(g, n, st, M.vrts, 0, &idx, &rc);
  if (rc || !count) {
    *out = rc ? NULL : stored;
    if (rc) sinew_data_unref(stored);
    return rc;
  }
  sinew_data_t *m;
  if (stored) {
    rc = sinew_mesh_clone_shared(stored, true, &m);
    sinew_data_unref(stored);
  } else if (idx[count - 1] >= MAX_CLOUD_POINTS) {
    return sinew_graph_set_error(g, SINEW_ERANGE, "%s: vrts[%d] is beyond the largest mesh", sinew_node_name(g, n),
                                 idx[count - 1]);
  } else {
    rc = sinew_mesh_create((uint32_t)idx[count - 1] + 1, 0, NULL, NULL, &m);
  }
  if (rc) return rc;
  float *p = sinew_mesh_points_mutable(&m); /* exclusive: made just above */
  uint32_t np = sinew_mesh_get(m)->npoints;
  for (size_t k = 0; k < count; k++) {
    if (idx[k] < 0 || (uint32_t)idx[k] >= np) continue; /* beyond the topology's points: Maya ignores it */
    double v[3];
    read3(g, n, M.vrts, idx[k], v);
    for (int c = 0; c < 3; c++) p[3 * (size_t)idx[k] + c] = (float)v[c];
  }
  if (sinew_mesh_get(m)->normals && (rc = sinew_mesh_compute_normals(&m))) { /* follow the new points */
    sinew_data_unref(m);
    return rc;
  }
  *out = m;
  return SINEW_OK;
}

/* Adds the pnts tweaks to *base, replacing it with a written copy when any tweak is not zero. */
static int apply_tweaks(sinew_graph_t *g, sinew_node_t n, mesh_state *st, sinew_data_t **base) {
  int32_t *idx;
  int rc;
  size_t count = array_indices(g, n, st, M.pnts, 3 * sizeof(float), &idx, &rc);
  if (rc || !count) return rc;
  uint32_t np = sinew_mesh_get(*base)->npoints;
  float *val = (float *)(idx + count);
  size_t kept = 0;
  for (size_t k = 0; k < count; k++) { /* keep the tweaks that move a point */
    if (idx[k] < 0 || (uint32_t)idx[k] >= np) continue;
    double v[3];
    read3(g, n, M.pnts, idx[k], v);
    if (v[0] == 0 && v[1] == 0 && v[2] == 0) continue;
    idx[kept] = idx[k];
    for (int c = 0; c < 3; c++) val[3 * kept + c] = (float)v[c];
    kept++;
  }
  if (!kept) return SINEW_OK;
  sinew_data_t *dst = *base;
  bool own = sinew_data_refcount(dst) == 1; /* made by stored_geometry: write in place */
  if (!own && !(dst = sinew__mesh_reuse_block(st->out_buf, *base))) return SINEW_ENOMEM;
  float *p = (float *)sinew_mesh_get(dst)->points;
  for (size_t k = 0; k < kept; k++)
    for (int c = 0; c < 3; c++) p[3 * (size_t)idx[k] + c] += val[3 * k + c];
  /* Normals, when the mesh carries them, follow the moved points (in place: dst is exclusive). */
  if (sinew_mesh_get(dst)->normals && (rc = sinew_mesh_compute_normals(own ? base : &dst))) return rc;
  if (!own) {
    sinew_data_unref(*base);
    *base = sinew_data_ref(dst);
  }
  return SINEW_OK;
}

static int compute_out_mesh(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  mesh_state *st = sinew_compute_state(ctx);
  sinew_data_t *base = NULL;
  sinew_plug_t pin = sinew_plug_make(n, M.in_mesh, 0, NULL);
  sinew_get_data(g, &pin, &base);
  if (base && !sinew_mesh_get(base)) { /* not a mesh: treated as nothing connected */
    sinew_data_unref(base);
    base = NULL;
  }
  int rc = base ? SINEW_OK : stored_geometry(g, n, st, &base);
  if (!rc && base) rc = apply_tweaks(g, n, st, &base);
  if (!rc) rc = sinew_compute_set_data(ctx, plug, base);
  sinew_data_unref(base);
  return rc;
}

typedef struct world_job {
  float *points, *normals;
  double m[4][4], nm[3][3];
} world_job;

/* p' = p * M (row vectors); n' = n * cofactor(M3x3) * sign(det), normalised. */
static void world_chunk(void *ud, size_t begin, size_t end) {
  world_job *j = ud;
  for (size_t i = begin; i < end; i++) {
    float *p = &j->points[3 * i];
    double x = p[0], y = p[1], z = p[2];
    for (int c = 0; c < 3; c++) p[c] = (float)(x * j->m[0][c] + y * j->m[1][c] + z * j->m[2][c] + j->m[3][c]);
    if (!j->normals) continue;
    float *q = &j->normals[3 * i];
    double a = q[0], b = q[1], d = q[2], r[3];
    for (int c = 0; c < 3; c++) r[c] = a * j->nm[0][c] + b * j->nm[1][c] + d * j->nm[2][c];
    double len = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    for (int c = 0; c < 3; c++) q[c] = len > 0 ? (float)(r[c] / len) : 0.0f;
  }
}

static void normal_matrix(const sinew_mat4_t *m, double out[3][3]) {
  const double(*a)[4] = m->m;
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      int r1 = (r + 1) % 3, r2 = (r + 2) % 3, c1 = (c + 1) % 3, c2 = (c + 2) % 3;
      out[r][c] = a[r1][c1] * a[r2][c2] - a[r1][c2] * a[r2][c1]; /* cofactor */
    }
  double det = a[0][0] * out[0][0] + a[0][1] * out[0][1] + a[0][2] * out[0][2];
  if (det < 0)
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) out[r][c] = -out[r][c];
}

static int compute_world_mesh(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  mesh_state *st = sinew_compute_state(ctx);
  sinew_data_t *local = NULL;
  sinew_plug_t po = sinew_plug_make(n, M.out_mesh, 0, NULL), pm = sinew_plug_make(n, M.parent_in, 0, NULL);
  int rc = sinew_get_data(g, &po, &local);
  sinew_mat4_t w, id;
  sinew_mat4_identity(&id);
  if (sinew_get_matrix(g, &pm, &w)) w = id;
  if (rc || !local || sinew_mat4_equal(&w, &id, 0)) { /* under the world or an identity parent: share */
    if (!rc) rc = sinew_compute_set_data(ctx, plug, local);
    sinew_data_unref(local);
    return rc;
  }
  sinew_data_t *dst = sinew__mesh_reuse_block(st->world_buf, local);
  sinew_data_unref(local);
  if (!dst) return SINEW_ENOMEM;
  const sinew_mesh_t *md = sinew_mesh_get(dst);
  world_job j = {.points = (float *)md->points, .normals = (float *)md->normals};
  memcpy(j.m, w.m, sizeof j.m);
  normal_matrix(&w, j.nm);
  sinew_pool_run(md->npoints, 16384, world_chunk, &j);
  return sinew_compute_set_data(ctx, plug, dst);
}

static int mesh_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr == M.out_mesh) return compute_out_mesh(ctx, plug);
  if (plug->attr == M.world_mesh && plug->nidx == 1) return compute_world_mesh(ctx, plug);
  return SINEW_EUNKNOWN_PLUG; /* worldMatrix and the rest: dagNode's compute */
}

static void mesh_destroy(sinew_graph_t *g, sinew_node_t n, void *state) {
  mesh_state *st = state;
  for (int b = 0; b < 2; b++) {
    sinew_data_unref(st->out_buf[b]);
    sinew_data_unref(st->world_buf[b]);
  }
  sinew_data_unref(st->scratch);
}

/* ---- primitives --------------------------------------------------------------------------- */

static double get1(sinew_graph_t *g, sinew_node_t n, const char *name) {
  double v = 0;
  sinew_plug_t p = sinew_plug_make(n, sinew_node_attr(g, n, name), 0, NULL);
  sinew_get_double(g, &p, &v);
  return v;
}

/* A subdivision count clamped to Maya's minimum (and to something a mesh can hold). */
static uint32_t count_of(sinew_graph_t *g, sinew_node_t n, const char *name, uint32_t min) {
  double v = get1(g, n, name);
  if (!(v >= min)) return min;
  return v > 1e6 ? 1000000u : (uint32_t)v;
}

/* Turns Y onto the node's axis (the smallest rotation doing so), as Maya's axis attribute does
 * for the default orientation; the exact frame around a non-Y axis is not checked against Maya. */
static void orient(sinew_graph_t *g, sinew_node_t n, sinew_data_t *mesh) {
  double a[3] = {0, 1, 0};
  sinew_plug_t p = sinew_plug_make(n, M.axis, 0, NULL);
  sinew_get_doubles(g, &p, a, 3, NULL);
  double len = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  if (!(len > 0) || !isfinite(len)) return;
  for (int c = 0; c < 3; c++) a[c] /= len;
  if (a[0] == 0 && a[2] == 0 && a[1] > 0) return;
  double r[3][3]; /* column form: p' = r p */
  if (a[1] <= -1 + 1e-12) { /* straight down: half a turn about X */
    double flip[3][3] = {{1, 0, 0}, {0, -1, 0}, {0, 0, -1}};
    memcpy(r, flip, sizeof r);
  } else { /* Rodrigues with v = Y x a, c = Y . a */
    double vx = a[2], vz = -a[0], k = 1 / (1 + a[1]);
    double rr[3][3] = {{1 - vz * vz * k, -vz, vx * vz * k},
                       {vz, 1 - (vx * vx + vz * vz) * k, -vx},
                       {vx * vz * k, vx, 1 - vx * vx * k}};
    memcpy(r, rr, sizeof r);
  }
  const sinew_mesh_t *m = sinew_mesh_get(mesh);
  float *pts = (float *)m->points; /* the caller's fresh, exclusive block */
  for (uint32_t i = 0; i < m->npoints; i++) {
    float *q = &pts[3 * (size_t)i];
    double x = q[0], y = q[1], z = q[2];
    for (int c = 0; c < 3; c++) q[c] = (float)(r[c][0] * x + r[c][1] * y + r[c][2] * z);
  }
}

typedef enum prim_kind { PRIM_CUBE, PRIM_PLANE, PRIM_CYLINDER, PRIM_SPHERE } prim_kind;

static int prim_compute(sinew_compute_t *ctx, const sinew_plug_t *plug, prim_kind kind) {
  if (plug->attr != M.output) return SINEW_EUNKNOWN_PLUG;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  uint64_t max = sinew_graph_limit(g, SINEW_LIMIT_GENERATED_POINTS);
  sinew_data_t *mesh = NULL;
  int rc = SINEW_OK;
  switch (kind) {
  case PRIM_CUBE:
    rc = sinew__mesh_cube(get1(g, n, "w"), get1(g, n, "h"), get1(g, n, "d"), count_of(g, n, "sw", 1),
                          count_of(g, n, "sh", 1), count_of(g, n, "sd", 1), max, &mesh);
    break;
  case PRIM_PLANE:
    rc = sinew__mesh_plane(get1(g, n, "w"), get1(g, n, "h"), count_of(g, n, "sw", 1), count_of(g, n, "sh", 1), max,
                           &mesh);
    break;
  case PRIM_CYLINDER:
    rc = sinew__mesh_cylinder(get1(g, n, "r"), get1(g, n, "h"), count_of(g, n, "sa", 3), count_of(g, n, "sh", 1),
                              count_of(g, n, "sc", 0), max, &mesh);
    break;
  case PRIM_SPHERE:
    rc = sinew__mesh_sphere(get1(g, n, "r"), count_of(g, n, "sa", 3), count_of(g, n, "sh", 2), max, &mesh);
    break;
  }
  if (rc) {
    char buf[256];
    sinew_plug_format(g, plug, false, buf, sizeof buf);
    if (rc == SINEW_ELIMIT)
      return sinew_graph_set_error(g, rc, "%s: cannot build the mesh: its subdivisions make more than %llu points "
                                   "(the graph's generated-points limit, sinew_graph_set_limit)",
                                   buf, (unsigned long long)max);
    return sinew_graph_set_error(g, rc, "%s: cannot build the mesh (%s)", buf, sinew_strerror(rc));
  }
  orient(g, n, mesh);
  rc = sinew_compute_set_data(ctx, plug, mesh);
  sinew_data_unref(mesh);
  return rc;
}

static int cube_compute(sinew_compute_t *c, const sinew_plug_t *p) { return prim_compute(c, p, PRIM_CUBE); }
static int plane_compute(sinew_compute_t *c, const sinew_plug_t *p) { return prim_compute(c, p, PRIM_PLANE); }
static int cylinder_compute(sinew_compute_t *c, const sinew_plug_t *p) { return prim_compute(c, p, PRIM_CYLINDER); }
static int sphere_compute(sinew_compute_t *c, const sinew_plug_t *p) { return prim_compute(c, p, PRIM_SPHERE); }

/* ---- registration and the node API -------------------------------------------------------- */

#define COUNTOF(a) (sizeof(a) / sizeof *(a))

static int register_once(sinew_graph_t *g, const sinew_node_type_desc_t *d) {
  if (sinew_find_node_type(g, d->name)) return SINEW_OK; /* a second registration is harmless */
  return sinew_register_node_type(g, d, NULL);
}

int sinew__register_mesh_types(sinew_graph_t *g) {
  if (!g) return SINEW_EINVAL;
  const sinew_node_type_desc_t types[] = {
      /* parallel: reads its own inputs, and its own outMesh for worldMesh (whose inputs are
       * worldMesh's too); buffers are per node; kernels may use the pool */
      {.name = "mesh", .parent_type = "dagNode", .flags = SINEW_NODE_TYPE_PARALLEL, .attrs = mesh_attrs,
       .attr_count = COUNTOF(mesh_attrs),
       .affects = mesh_affects, .affects_count = COUNTOF(mesh_affects), .compute = mesh_compute,
       .state_size = sizeof(mesh_state), .destroy = mesh_destroy},
      {.name = "polyPrimitive", .flags = SINEW_NODE_TYPE_ABSTRACT, .attrs = prim_attrs,
       .attr_count = COUNTOF(prim_attrs), .affects = prim_affects, .affects_count = COUNTOF(prim_affects)},
      {.name = "polyCube", .parent_type = "polyPrimitive", .attrs = cube_attrs, .attr_count = COUNTOF(cube_attrs),
       .affects = cube_affects, .affects_count = COUNTOF(cube_affects), .compute = cube_compute},
      {.name = "polyPlane", .parent_type = "polyPrimitive", .attrs = plane_attrs, .attr_count = COUNTOF(plane_attrs),
       .affects = plane_affects, .affects_count = COUNTOF(plane_affects), .compute = plane_compute},
      {.name = "polyCylinder", .parent_type = "polyPrimitive", .attrs = cylinder_attrs,
       .attr_count = COUNTOF(cylinder_attrs), .affects = cylinder_affects,
       .affects_count = COUNTOF(cylinder_affects), .compute = cylinder_compute},
      {.name = "polySphere", .parent_type = "polyPrimitive", .attrs = sphere_attrs,
       .attr_count = COUNTOF(sphere_attrs), .affects = sphere_affects, .affects_count = COUNTOF(sphere_affects),
       .compute = sphere_compute},
  };
  for (size_t i = 0; i < COUNTOF(types); i++) {
    int rc = register_once(g, &types[i]);
    if (rc) return rc;
  }
  const sinew_node_type_t *mt = sinew_find_node_type(g, "mesh"), *pt = sinew_find_node_type(g, "polyPrimitive");
  M.in_mesh = sinew_node_type_attr(mt, "inMesh");
  M.out_mesh = sinew_node_type_attr(mt, "outMesh");
  M.world_mesh = sinew_node_type_attr(mt, "worldMesh");
  M.vrts = sinew_node_type_attr(mt, "vrts");
  M.pnts = sinew_node_type_attr(mt, "pnts");
  M.stored = sinew_node_type_attr(mt, "sinewStoredMesh");
  M.parent_in = sinew_node_type_attr(mt, "sinewParentMatrix");
  M.output = sinew_node_type_attr(pt, "output");
  M.axis = sinew_node_type_attr(pt, "axis");
  return SINEW_OK;
}

int sinew_mesh_node_set(sinew_graph_t *g, sinew_node_t node, const sinew_data_t *mesh) {
  if (!g) return SINEW_EINVAL;
  const sinew_node_type_t *t = sinew_node_type(g, node);
  if (!t) return sinew_graph_set_error(g, SINEW_ESTALE, "mesh set: the node no longer exists");
  if (!sinew_node_type_is_a(t, "mesh"))
    return sinew_graph_set_error(g, SINEW_ETYPE, "mesh set: %s is a %s, not a mesh", sinew_node_name(g, node),
                                 sinew_node_type_name(t));
  if (mesh && !sinew_mesh_get(mesh))
    return sinew_graph_set_error(g, SINEW_ETYPE, "mesh set: %s: the data is a %s, not a mesh",
                                 sinew_node_name(g, node), sinew_data_type(mesh)->name);
  sinew_plug_t p = sinew_plug_make(node, M.stored, 0, NULL);
  /* The plug takes its own reference; the block is never written through it. */
  return sinew_set_data(g, &p, (sinew_data_t *)mesh);
}
