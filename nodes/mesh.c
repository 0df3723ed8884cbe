/* nodes/mesh.c: mesh data blocks (points, normals, shared topology), copy-on-write access,
 * vertex normals and Maya's polyFaces edge decoding.
 *
 * A mesh block's payload is one allocation: a header (the public sinew_mesh_t plus offsets),
 * then the points, then the normals if any, each on a 64-byte boundary for SIMD kernels. The
 * header's pointers point into the block itself, so the copy callback re-aims them at the new
 * payload. The topology (face counts, offsets, vertex indices) lives in a separate block the
 * header holds a reference to: cloning a mesh for deformation copies points only and takes one
 * more reference on the topology, which is never written after it is built. */
#include <math.h>
#include <string.h>

#include "nodes/mesh_internal.h"

#define ALIGN64(x) (((x) + (size_t)63) & ~(size_t)63)

typedef struct mesh_payload {
  sinew_mesh_t pub;  /* first: sinew_mesh_get returns its address */
  sinew_data_t *topo;
  size_t points_off;  /* bytes from the payload start */
  size_t normals_off; /* 0: no normals */
} mesh_payload;

typedef struct topo_payload {
  sinew_topology_t pub;
  size_t counts_off, offsets_off, verts_off;
  size_t uvs_off, face_uvs_off; /* 0: no UVs */
  size_t hard_off;              /* 0: no hard edges known */
} topo_payload;

static void mesh_fix(mesh_payload *p) {
  p->pub.points = (const float *)((const unsigned char *)p + p->points_off);
  p->pub.normals = p->normals_off ? (const float *)((const unsigned char *)p + p->normals_off) : NULL;
}

static int mesh_copy(void *dst, const void *src, size_t size) {
  memcpy(dst, src, size);
  mesh_payload *d = dst;
  mesh_fix(d);
  sinew_data_ref(d->topo); /* the copy shares the topology */
  return SINEW_OK;
}

static void mesh_destroy(void *payload, size_t size) { sinew_data_unref(((mesh_payload *)payload)->topo); }

const sinew_data_type_t sinew_mesh_data_type = {"mesh", mesh_copy, mesh_destroy};

static void topo_fix(topo_payload *t) {
  const unsigned char *base = (const unsigned char *)t;
  t->pub.face_counts = (const uint32_t *)(base + t->counts_off);
  t->pub.face_offsets = (const uint32_t *)(base + t->offsets_off);
  t->pub.face_verts = (const uint32_t *)(base + t->verts_off);
  t->pub.uvs = t->uvs_off ? (const float *)(base + t->uvs_off) : NULL;
  t->pub.face_uvs = t->face_uvs_off ? (const uint32_t *)(base + t->face_uvs_off) : NULL;
  t->pub.face_hard = t->hard_off ? (const uint8_t *)(base + t->hard_off) : NULL;
}

/* Topologies are immutable once built; a copy only happens if someone forces one. */
static int topo_copy(void *dst, const void *src, size_t size) {
  memcpy(dst, src, size);
  topo_fix(dst);
  return SINEW_OK;
}

static const sinew_data_type_t topology_type = {"meshTopology", topo_copy, NULL};
static const sinew_data_type_t scratch_type = {"meshScratch", NULL, NULL};

/* ---- building blocks ---------------------------------------------------------------------- */

/* a + b, false on overflow */
static bool add_size(size_t a, size_t b, size_t *out) {
  if (a > SIZE_MAX - b) return false;
  *out = a + b;
  return true;
}

/* Bytes of an array of n items of elem bytes, rounded to 64; false on overflow. */
static bool array_bytes(uint64_t n, size_t elem, size_t *out) {
  if (n > (SIZE_MAX - 64) / elem) return false;
  *out = ALIGN64((size_t)n * elem);
  return true;
}

int sinew__topology_new(uint32_t npoints, uint32_t nfaces, uint64_t nface_verts, sinew_data_t **out,
                        uint32_t **counts, uint32_t **verts) {
  if (nface_verts > UINT32_MAX) return SINEW_ERANGE;
  size_t head = ALIGN64(sizeof(topo_payload)), fb, vb, size;
  if (!array_bytes(nfaces, sizeof(uint32_t), &fb) || !array_bytes(nface_verts, sizeof(uint32_t), &vb) ||
      !add_size(head, fb, &size) || !add_size(size, fb, &size) || !add_size(size, vb, &size))
    return SINEW_ENOMEM;
  sinew_data_t *d;
  int rc = sinew_data_create(&topology_type, size, &d);
  if (rc) return rc;
  topo_payload *t = (topo_payload *)sinew_data_get(d); /* exclusively ours until returned */
  t->pub.nfaces = nfaces;
  t->pub.nface_verts = (uint32_t)nface_verts;
  t->pub.npoints = npoints;
  t->pub.nuvs = 0;
  t->counts_off = head;
  t->offsets_off = head + fb;
  t->verts_off = head + 2 * fb;
  t->uvs_off = t->face_uvs_off = t->hard_off = 0;
  topo_fix(t);
  *counts = (uint32_t *)t->pub.face_counts;
  *verts = (uint32_t *)t->pub.face_verts;
  *out = d;
  return SINEW_OK;
}

int sinew__topology_finish(sinew_data_t *topo) {
  topo_payload *t = (topo_payload *)sinew_data_get(topo);
  uint32_t *offsets = (uint32_t *)t->pub.face_offsets;
  uint64_t at = 0;
  for (uint32_t f = 0; f < t->pub.nfaces; f++) {
    uint32_t c = t->pub.face_counts[f];
    if (c < 3 || at + c > t->pub.nface_verts) return SINEW_EINVAL;
    offsets[f] = (uint32_t)at;
    at += c;
  }
  if (at != t->pub.nface_verts) return SINEW_EINVAL;
  for (uint32_t i = 0; i < t->pub.nface_verts; i++)
    if (t->pub.face_verts[i] >= t->pub.npoints) return SINEW_ERANGE;
  return SINEW_OK;
}

/* Payload size of a mesh of n points; false on overflow. */
static bool mesh_size(uint32_t n, bool normals, size_t *points_off, size_t *normals_off, size_t *size) {
  size_t head = ALIGN64(sizeof(mesh_payload)), pb;
  if (!array_bytes(n, 3 * sizeof(float), &pb) || !add_size(head, pb, size)) return false;
  *points_off = head;
  *normals_off = normals ? *size : 0;
  return !normals || add_size(*size, pb, size);
}

int sinew__mesh_new(sinew_data_t *topo, uint32_t npoints, bool normals, sinew_data_t **out) {
  size_t poff, noff, size;
  sinew_data_t *d;
  int rc = mesh_size(npoints, normals, &poff, &noff, &size) ? sinew_data_create(&sinew_mesh_data_type, size, &d)
                                                             : SINEW_ENOMEM;
  if (rc) {
    sinew_data_unref(topo);
    return rc;
  }
  mesh_payload *p = (mesh_payload *)sinew_data_get(d);
  p->topo = topo;
  p->points_off = poff;
  p->normals_off = noff;
  p->pub.npoints = npoints;
  p->pub.topology = &((const topo_payload *)sinew_data_get(topo))->pub;
  mesh_fix(p);
  *out = d;
  return SINEW_OK;
}

sinew_data_t *sinew__mesh_topology_block(const sinew_data_t *mesh) {
  return ((const mesh_payload *)sinew_data_get(mesh))->topo;
}

/* ---- scratch ------------------------------------------------------------------------------ */

int sinew__mesh_buf_reserve(sinew__mesh_buf *b, size_t more) {
  size_t need;
  if (!add_size(b->len, more, &need)) return SINEW_ENOMEM;
  if (need <= b->cap) return SINEW_OK;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < need) {
    if (cap > SIZE_MAX / 2) {
      cap = need;
      break;
    }
    cap *= 2;
  }
  sinew_data_t *nb;
  int rc = sinew_data_create(&scratch_type, cap, &nb);
  if (rc) return rc;
  unsigned char *np = (unsigned char *)sinew_data_get(nb);
  if (b->len) memcpy(np, b->ptr, b->len);
  sinew_data_unref(b->block);
  b->block = nb;
  b->ptr = np;
  b->cap = cap;
  return SINEW_OK;
}

int sinew__mesh_buf_append(sinew__mesh_buf *b, const void *data, size_t n) {
  int rc = sinew__mesh_buf_reserve(b, n);
  if (rc) return rc;
  memcpy(b->ptr + b->len, data, n);
  b->len += n;
  return SINEW_OK;
}

void sinew__mesh_buf_free(sinew__mesh_buf *b) {
  sinew_data_unref(b->block);
  *b = (sinew__mesh_buf){0};
}

/* One of the pair, exclusively held by the node and shaped like src (same topology, point
 * count, normals), with src's points and normals copied in; a fresh clone when neither fits.
 * Borrowed: the node keeps its reference. NULL on out-of-memory. */
sinew_data_t *sinew__mesh_reuse_block(sinew_data_t *pair[2], const sinew_data_t *src) {
  const sinew_mesh_t *ms = sinew_mesh_get(src);
  size_t bytes = sizeof(float) * 3 * (size_t)ms->npoints;
  for (int b = 0; b < 2; b++) {
    sinew_data_t *d = pair[b];
    if (!d || d == src || sinew_data_refcount(d) != 1) continue;
    const sinew_mesh_t *md = sinew_mesh_get(d);
    if (md->topology != ms->topology || md->npoints != ms->npoints || !md->normals != !ms->normals) continue;
    if (bytes) memcpy((float *)md->points, ms->points, bytes);
    if (bytes && ms->normals) memcpy((float *)md->normals, ms->normals, bytes);
    return d;
  }
  sinew_data_t *fresh;
  if (sinew_mesh_clone_shared(src, true, &fresh)) return NULL;
  int slot = !pair[0] || sinew_data_refcount(pair[0]) == 1 ? 0 : 1;
  sinew_data_unref(pair[slot]); /* other holders, if any, keep theirs alive */
  pair[slot] = fresh;
  return fresh;
}

void *sinew__mesh_scratch(sinew_data_t **block, size_t bytes) {
  if (*block && sinew_data_size(*block) >= bytes) return (void *)sinew_data_get(*block);
  sinew_data_t *nb;
  if (sinew_data_create(&scratch_type, bytes ? bytes : 1, &nb)) return NULL;
  sinew_data_unref(*block);
  *block = nb;
  return (void *)sinew_data_get(nb);
}

/* ---- public API --------------------------------------------------------------------------- */

const sinew_mesh_t *sinew_mesh_get(const sinew_data_t *data) {
  if (!data || sinew_data_type(data) != &sinew_mesh_data_type) return NULL;
  return &((const mesh_payload *)sinew_data_get(data))->pub;
}

int sinew_mesh_create(uint32_t npoints, uint32_t nfaces, const uint32_t *face_counts,
                      const uint32_t *face_verts, sinew_data_t **out) {
  if (!out || (nfaces && (!face_counts || !face_verts))) return SINEW_EINVAL;
  uint64_t nfv = 0;
  for (uint32_t f = 0; f < nfaces; f++) nfv += face_counts[f];
  sinew_data_t *topo;
  uint32_t *counts, *verts;
  int rc = sinew__topology_new(npoints, nfaces, nfv, &topo, &counts, &verts);
  if (rc) return rc;
  if (nfaces) {
    memcpy(counts, face_counts, sizeof *counts * nfaces);
    memcpy(verts, face_verts, sizeof *verts * (size_t)nfv);
  }
  if ((rc = sinew__topology_finish(topo))) {
    sinew_data_unref(topo);
    return rc;
  }
  return sinew__mesh_new(topo, npoints, false, out);
}

int sinew_mesh_set_uvs(const sinew_data_t *mesh, uint32_t nuvs, const float *uvs, const uint32_t *face_uvs,
                       const uint8_t *face_hard, sinew_data_t **out) {
  const sinew_mesh_t *m = sinew_mesh_get(mesh);
  if (!m || !out || (nuvs && !uvs) || !face_uvs) return SINEW_EINVAL;
  const sinew_topology_t *t = m->topology;
  for (uint32_t i = 0; i < t->nface_verts; i++)
    if (face_uvs[i] >= nuvs && face_uvs[i] != UINT32_MAX) return SINEW_EINVAL;
  size_t head = ALIGN64(sizeof(topo_payload)), fb, vb, ub, fub, hb = 0, size;
  if (!array_bytes(t->nfaces, sizeof(uint32_t), &fb) || !array_bytes(t->nface_verts, sizeof(uint32_t), &vb) ||
      !array_bytes(nuvs, 2 * sizeof(float), &ub) || !array_bytes(t->nface_verts, sizeof(uint32_t), &fub) ||
      (face_hard && !array_bytes(t->nface_verts ? t->nface_verts : 1, 1, &hb)) || !add_size(head, fb, &size) ||
      !add_size(size, fb, &size) || !add_size(size, vb, &size) || !add_size(size, ub, &size) ||
      !add_size(size, fub, &size) || !add_size(size, hb, &size))
    return SINEW_ENOMEM;
  sinew_data_t *d;
  int rc = sinew_data_create(&topology_type, size, &d);
  if (rc) return rc;
  topo_payload *tp = (topo_payload *)sinew_data_get(d);
  memset(tp, 0, sizeof *tp);
  tp->pub.nfaces = t->nfaces;
  tp->pub.nface_verts = t->nface_verts;
  tp->pub.npoints = t->npoints;
  tp->pub.nuvs = nuvs;
  tp->counts_off = head;
  tp->offsets_off = head + fb;
  tp->verts_off = head + 2 * fb;
  tp->uvs_off = head + 2 * fb + vb;
  tp->face_uvs_off = tp->uvs_off + ub;
  tp->hard_off = face_hard ? tp->face_uvs_off + fub : 0;
  topo_fix(tp);
  if (t->nfaces) {
    memcpy((uint32_t *)tp->pub.face_counts, t->face_counts, t->nfaces * sizeof(uint32_t));
    memcpy((uint32_t *)tp->pub.face_offsets, t->face_offsets, t->nfaces * sizeof(uint32_t));
  }
  if (t->nface_verts) {
    memcpy((uint32_t *)tp->pub.face_verts, t->face_verts, t->nface_verts * sizeof(uint32_t));
    memcpy((uint32_t *)tp->pub.face_uvs, face_uvs, t->nface_verts * sizeof(uint32_t));
    if (face_hard) memcpy((uint8_t *)tp->pub.face_hard, face_hard, t->nface_verts);
  }
  if (nuvs) memcpy((float *)tp->pub.uvs, uvs, 2 * sizeof(float) * nuvs);
  bool normals = m->normals != NULL;
  sinew_data_t *o;
  if ((rc = sinew__mesh_new(d, m->npoints, normals, &o))) return rc; /* takes d */
  const sinew_mesh_t *c = sinew_mesh_get(o);
  size_t bytes = sizeof(float) * 3 * (size_t)m->npoints;
  if (bytes) memcpy((float *)c->points, m->points, bytes);
  if (normals && bytes) memcpy((float *)c->normals, m->normals, bytes);
  *out = o;
  return SINEW_OK;
}

int sinew_mesh_clone_shared(const sinew_data_t *src, bool with_normals, sinew_data_t **out) {
  const sinew_mesh_t *m = sinew_mesh_get(src);
  if (!m || !out) return SINEW_EINVAL;
  bool normals = with_normals && m->normals;
  sinew_data_t *d;
  int rc = sinew__mesh_new(sinew_data_ref(sinew__mesh_topology_block(src)), m->npoints, normals, &d);
  if (rc) return rc;
  const sinew_mesh_t *c = sinew_mesh_get(d);
  size_t bytes = sizeof(float) * 3 * (size_t)m->npoints;
  if (bytes) memcpy((float *)c->points, m->points, bytes);
  if (normals && bytes) memcpy((float *)c->normals, m->normals, bytes);
  *out = d;
  return SINEW_OK;
}

float *sinew_mesh_points_mutable(sinew_data_t **data) {
  if (!data || !sinew_mesh_get(*data)) return NULL;
  mesh_payload *p = sinew_data_mutable(data);
  return p ? (float *)p->pub.points : NULL;
}

float *sinew_mesh_normals_mutable(sinew_data_t **data) {
  const sinew_mesh_t *m = data ? sinew_mesh_get(*data) : NULL;
  if (!m) return NULL;
  if (m->normals) {
    mesh_payload *p = sinew_data_mutable(data);
    return p ? (float *)p->pub.normals : NULL;
  }
  /* No room for normals in this block: a new block with the points and zeroed normals. */
  sinew_data_t *d;
  if (sinew__mesh_new(sinew_data_ref(sinew__mesh_topology_block(*data)), m->npoints, true, &d)) return NULL;
  const sinew_mesh_t *c = sinew_mesh_get(d);
  if (m->npoints) memcpy((float *)c->points, m->points, sizeof(float) * 3 * (size_t)m->npoints);
  sinew_data_unref(*data);
  *data = d;
  return (float *)c->normals;
}

/* Twice the area times the unit normal of a polygon: the sum of the fan's cross products,
 * which for a non-planar polygon is the same as Newell's normal. */
static void face_normal(const float *pts, const uint32_t *fv, uint32_t n, double out[3]) {
  const float *p0 = &pts[3 * (size_t)fv[0]];
  out[0] = out[1] = out[2] = 0;
  for (uint32_t i = 1; i + 1 < n; i++) {
    const float *a = &pts[3 * (size_t)fv[i]], *b = &pts[3 * (size_t)fv[i + 1]];
    double ax = (double)a[0] - p0[0], ay = (double)a[1] - p0[1], az = (double)a[2] - p0[2];
    double bx = (double)b[0] - p0[0], by = (double)b[1] - p0[1], bz = (double)b[2] - p0[2];
    out[0] += ay * bz - az * by;
    out[1] += az * bx - ax * bz;
    out[2] += ax * by - ay * bx;
  }
}

int sinew_mesh_compute_normals(sinew_data_t **data) {
  if (!data || !sinew_mesh_get(*data)) return SINEW_EINVAL;
  float *nrm = sinew_mesh_normals_mutable(data);
  if (!nrm) return SINEW_ENOMEM;
  const sinew_mesh_t *m = sinew_mesh_get(*data);
  const sinew_topology_t *t = m->topology;
  size_t n3 = 3 * (size_t)m->npoints;
  for (size_t i = 0; i < n3; i++) nrm[i] = 0;
  for (uint32_t f = 0; f < t->nfaces; f++) {
    const uint32_t *fv = &t->face_verts[t->face_offsets[f]];
    double fn[3];
    face_normal(m->points, fv, t->face_counts[f], fn);
    for (uint32_t k = 0; k < t->face_counts[f]; k++) {
      float *v = &nrm[3 * (size_t)fv[k]];
      v[0] += (float)fn[0];
      v[1] += (float)fn[1];
      v[2] += (float)fn[2];
    }
  }
  for (size_t i = 0; i < n3; i += 3) {
    double x = nrm[i], y = nrm[i + 1], z = nrm[i + 2], len = sqrt(x * x + y * y + z * z);
    if (len > 0 && isfinite(len)) {
      nrm[i] = (float)(x / len);
      nrm[i + 1] = (float)(y / len);
      nrm[i + 2] = (float)(z / len);
    } else { /* isolated or degenerate vertex */
      nrm[i] = nrm[i + 1] = nrm[i + 2] = 0;
    }
  }
  return SINEW_OK;
}

/* ---- polyFaces ---------------------------------------------------------------------------- */

/* The vertices edge record e walks from and to (a negative record is the edge reversed). */
static bool edge_ends(const uint32_t *edges, uint32_t nedges, int32_t e, uint32_t *from, uint32_t *to) {
  uint32_t id = e >= 0 ? (uint32_t)e : (uint32_t)~e;
  if (id >= nedges) return false;
  *from = edges[2 * (size_t)id + (e < 0)];
  *to = edges[2 * (size_t)id + (e >= 0)];
  return true;
}

/* Checks every face, then writes: a failure leaves out_face_verts untouched. */
int sinew_mesh_faces_from_edges(const uint32_t *edges, uint32_t nedges, const int32_t *face_edges,
                                const uint32_t *face_counts, uint32_t nfaces, uint32_t *out_face_verts) {
  if ((nfaces && (!face_edges || !face_counts || !out_face_verts)) || (nedges && !edges)) return SINEW_EINVAL;
  for (int pass = 0; pass < 2; pass++) {
    size_t at = 0;
    for (uint32_t f = 0; f < nfaces; f++) {
      uint32_t n = face_counts[f];
      if (n == 0) return SINEW_EINVAL;
      uint32_t first = 0, prev_to = 0;
      for (uint32_t k = 0; k < n; k++) {
        uint32_t from, to;
        if (!edge_ends(edges, nedges, face_edges[at + k], &from, &to)) return SINEW_ERANGE;
        if (k == 0) first = from;
        else if (from != prev_to) return SINEW_EINVAL; /* the loop is broken */
        if (pass) out_face_verts[at + k] = from;
        prev_to = to;
      }
      if (prev_to != first) return SINEW_EINVAL; /* the loop does not close */
      at += n;
    }
  }
  return SINEW_OK;
}

/* The inverse, for writers of .ma files: edges numbered in the order the faces first walk them,
 * each stored in the direction of that first walk. An open-addressing table keyed by the
 * unordered vertex pair finds an edge again in constant time. */
int sinew_mesh_edges_from_faces(const sinew_topology_t *t, uint32_t *out_edges, uint32_t *out_nedges,
                                int32_t *out_face_edges) {
  if (!t || !out_edges || !out_nedges || (t->nface_verts && !out_face_edges)) return SINEW_EINVAL;
  if (t->nface_verts > INT32_MAX) return SINEW_ERANGE; /* edge records are int32 */
  size_t cap = 16;
  while (cap < 2 * (size_t)t->nface_verts) cap *= 2;
  sinew_data_t *block = NULL;
  uint32_t *table = sinew__mesh_scratch(&block, cap * sizeof *table); /* edge id + 1, 0 = empty */
  if (!table) return SINEW_ENOMEM;
  memset(table, 0, cap * sizeof *table);
  uint32_t n = 0;
  for (uint32_t f = 0; f < t->nfaces; f++) {
    uint32_t at = t->face_offsets[f], cnt = t->face_counts[f];
    for (uint32_t k = 0; k < cnt; k++) {
      uint32_t a = t->face_verts[at + k], b = t->face_verts[at + (k + 1) % cnt];
      uint64_t key = a < b ? ((uint64_t)a << 32 | b) : ((uint64_t)b << 32 | a);
      size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
      for (;; h = (h + 1) & (cap - 1)) {
        uint32_t id = table[h];
        if (!id) { /* a new edge */
          table[h] = ++n;
          out_edges[2 * (size_t)(n - 1)] = a;
          out_edges[2 * (size_t)(n - 1) + 1] = b;
          out_face_edges[at + k] = (int32_t)(n - 1);
          break;
        }
        uint32_t e0 = out_edges[2 * (size_t)(id - 1)], e1 = out_edges[2 * (size_t)(id - 1) + 1];
        if ((e0 == a && e1 == b) || (e0 == b && e1 == a)) {
          out_face_edges[at + k] = e0 == a ? (int32_t)(id - 1) : ~(int32_t)(id - 1);
          break;
        }
      }
    }
  }
  sinew_data_unref(block);
  *out_nedges = n;
  return SINEW_OK;
}
