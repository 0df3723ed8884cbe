/* sinew/mesh.h: polygon mesh data and the mesh-related node types.
 *
 * A mesh value is a data block (sinew_data_t, type sinew_mesh_data_type) holding float32 points
 * and optional per-vertex normals, plus a reference to a separate, shared topology block (face
 * vertex counts and face vertex indices). Deformers write new points and share the topology:
 * passing a mesh along a connection copies nothing, deforming it copies only the points.
 *
 * Node types (registered by sinew_nodes_register):
 *   mesh          (a dagNode) inMesh (i) -> outMesh (o) and worldMesh[] (w). outMesh is inMesh
 *                 when inMesh holds a mesh, else the stored geometry (sinew_mesh_node_set) with
 *                 its points replaced by vrts (vt[i].vx/vy/vz) where elements exist; pnts tweaks
 *                 (pt[i].px/py/pz) are then added either way. Without tweaks outMesh is the very
 *                 block inMesh holds. worldMesh[i] = outMesh transformed by the parent's world
 *                 matrix (the same block under an identity parent). intermediateObject (io).
 *   polyPrimitive (abstract) output (out), axis (ax), createUVs (cuv)
 *   polyCube, polyPlane, polyCylinder, polySphere
 *                 creation nodes whose output (out) feeds a mesh's inMesh, as in Maya files,
 *                 with Maya's attribute names and defaults (docs/mesh.md).
 *
 * Thread safety: mesh blocks may be read from several threads; writing needs an exclusive
 * block (the *_mutable calls make one).
 */
#ifndef SINEW_MESH_H
#define SINEW_MESH_H

#include <stdio.h>

#include "sinew/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The shared topology: nfaces faces; face f has face_counts[f] (>= 3) vertices listed in
 * face_verts starting at face_offsets[f]. Never written once built. */
typedef struct sinew_topology {
  uint32_t nfaces;
  uint32_t nface_verts;
  uint32_t npoints;        /* points the indices refer to (every index < npoints); equal to
                              the mesh's npoints */
  const uint32_t *face_counts;
  const uint32_t *face_offsets;
  const uint32_t *face_verts;
  /* The UVs of the first UV set (Maya's map1), when the mesh has them (else nuvs 0 and both
   * NULL): nuvs (u, v) pairs, and per face-vertex (in face_verts' order) the index of its UV,
   * UINT32_MAX for a face-vertex without one. */
  uint32_t nuvs;
  const float *uvs;
  const uint32_t *face_uvs;
  /* Per face-vertex, 1 when the edge from it to the face's next vertex is hard (Maya's .ed
   * flag 0); NULL when not known (every edge smooth). */
  const uint8_t *face_hard;
} sinew_topology_t;

/* A mesh as seen through sinew_mesh_get. Arrays stay valid while the caller holds a reference
 * to the block. normals is NULL when the mesh has none (sinew_mesh_compute_normals adds them).
 * points and normals start on 64-byte boundaries. */
typedef struct sinew_mesh {
  uint32_t npoints;
  const float *points;   /* 3 * npoints, x y z */
  const float *normals;  /* 3 * npoints or NULL */
  const sinew_topology_t *topology; /* never NULL; may have 0 faces (a point cloud) */
} sinew_mesh_t;

SINEW_API const sinew_data_type_t sinew_mesh_data_type;

/* Creates a mesh block with npoints zeroed points, no normals, and a new topology made from
 * face_counts (nfaces entries) and face_verts (sum of counts entries), both copied. Indices
 * must be < npoints (SINEW_ERANGE otherwise); a face needs 3 vertices (SINEW_EINVAL).
 * face_counts may be NULL when nfaces is 0. SINEW_ENOMEM on out-of-memory. */
SINEW_API int sinew_mesh_create(uint32_t npoints, uint32_t nfaces, const uint32_t *face_counts,
                                const uint32_t *face_verts, sinew_data_t **out);
/* A new mesh block sharing src's topology, with a copy of its points (and normals if
 * with_normals and src has them). SINEW_EINVAL when src is not a mesh. */
SINEW_API int sinew_mesh_clone_shared(const sinew_data_t *src, bool with_normals,
                                      sinew_data_t **out);
/* A new mesh block with mesh's points (and normals) over a copy of its topology that holds
 * these UVs: nuvs (u, v) pairs and face_uvs, one UV index per face-vertex (UINT32_MAX: none),
 * and, when face_hard is not NULL, the hard edges (per face-vertex, 1 when the edge leaving
 * it is hard). SINEW_EINVAL when mesh is not a mesh or a UV index is neither below nuvs nor
 * UINT32_MAX. */
SINEW_API int sinew_mesh_set_uvs(const sinew_data_t *mesh, uint32_t nuvs, const float *uvs,
                                 const uint32_t *face_uvs, const uint8_t *face_hard, sinew_data_t **out);
/* Read access; NULL when data is not a mesh. */
SINEW_API const sinew_mesh_t *sinew_mesh_get(const sinew_data_t *data);
/* Writable points (and normals) of a mesh block the caller owns exclusively (copied first if
 * shared, see sinew_data_mutable; the copy shares the topology). NULL on out-of-memory (then
 * *data is unchanged) or when *data is not a mesh. */
SINEW_API float *sinew_mesh_points_mutable(sinew_data_t **data);
/* Writable normals, allocated (zeroed) on first use: a block without normals is replaced by a
 * new one with the same points (*data changes; pointers into the old block are stale). */
SINEW_API float *sinew_mesh_normals_mutable(sinew_data_t **data);
/* Computes area-weighted per-vertex normals from the points and faces into the block (adding
 * normals if it has none): each vertex gets the normalised sum of its faces' area vectors; a
 * vertex on no face (or on degenerate faces only) gets (0,0,0). SINEW_EINVAL when *data is
 * not a mesh, SINEW_ENOMEM (*data unchanged). */
SINEW_API int sinew_mesh_compute_normals(sinew_data_t **data);

/* Maya's polyFaces edge form: edges[2*e], edges[2*e+1] are vertex ids; face records list edge
 * ids, a negative value -e-1 meaning edge e reversed. Builds face_verts loops (each face starts
 * at its first edge's start vertex; sum of face_counts entries). SINEW_ERANGE for an edge id
 * >= nedges, SINEW_EINVAL when consecutive edges do not share a vertex or a loop does not
 * close; out_face_verts is written only on success. */
SINEW_API int sinew_mesh_faces_from_edges(const uint32_t *edges, uint32_t nedges,
                                          const int32_t *face_edges, const uint32_t *face_counts,
                                          uint32_t nfaces, uint32_t *out_face_verts);
/* The inverse, for writing .ma files: numbers the edges in the order the faces first walk them
 * (each stored in that first direction) and gives each face-vertex its edge record (negative
 * -e-1 when walked reversed). out_edges needs room for 2 * topo->nface_verts ids and
 * out_face_edges for topo->nface_verts records; *out_nedges receives the edge count.
 * SINEW_ENOMEM for the temporary table (outputs untouched). */
SINEW_API int sinew_mesh_edges_from_faces(const sinew_topology_t *topo, uint32_t *out_edges,
                                          uint32_t *out_nedges, int32_t *out_face_edges);

/* Primitives as Maya builds them (polyCube -w -h -d -sx -sy -sz, polyPlane -w -h -sx -sy,
 * polyCylinder -r -h -sx -sy -sz, polySphere -r -sx -sy), centred at the origin, Y up, with
 * Maya's point order and face winding (docs/mesh.md says which orders were checked against
 * Maya's files). SINEW_EINVAL for a non-finite size or too few subdivisions (cube and plane
 * 1, cylinder sx 3 and sy 1 (sz 0 = open), sphere sx 3 and sy 2), SINEW_ERANGE above 2^28
 * points. */
SINEW_API int sinew_mesh_cube(double w, double h, double d, uint32_t sx, uint32_t sy, uint32_t sz,
                              sinew_data_t **out);
SINEW_API int sinew_mesh_plane(double w, double h, uint32_t sx, uint32_t sy, sinew_data_t **out);
SINEW_API int sinew_mesh_cylinder(double radius, double height, uint32_t sx, uint32_t sy,
                                  uint32_t sz, sinew_data_t **out);
SINEW_API int sinew_mesh_sphere(double radius, uint32_t sx, uint32_t sy, sinew_data_t **out);

/* OBJ: writes v (and vn when the mesh has normals) and f lines (1-based; "f 1//1 ..." with
 * normals), floats with 9 significant digits so they read back bit for bit. SINEW_ERANGE,
 * writing nothing, when a point is not a finite number (NaN or infinite: a file no reader would
 * take); a normal that is not finite is written 0 0 0. SINEW_EIO when the stream reports an
 * error. */
SINEW_API int sinew_mesh_write_obj(const sinew_data_t *mesh, FILE *out);
/* Reads v and f lines (v/vt/vn forms, negative indices; vt and vn indices are checked against
 * the vt and vn lines read so far, then dropped); other lines are skipped, and a line ending
 * in a backslash continues. The file is read once (a pipe is fine). On error *out is untouched
 * and the message names the line: "name:12: face index 40 out of range (39 vertices)" (name
 * NULL: "obj"). SINEW_ESYNTAX for a malformed line, SINEW_ERANGE for an index or coordinate
 * out of range, SINEW_EIO, SINEW_ENOMEM. errbuf may be NULL. */
SINEW_API int sinew_mesh_read_obj(FILE *in, const char *name, sinew_data_t **out, char *errbuf,
                                  size_t errlen);

/* Sets a mesh node's stored geometry (topology and base points) from a mesh block: the node
 * keeps a reference and never writes through it. vrts elements already set still override
 * those points (a .ma file sets .vt before .ed/.fc); pnts tweaks still add. NULL clears.
 * SINEW_ETYPE when the node is not a mesh or the data not a mesh block, SINEW_ESTALE. */
SINEW_API int sinew_mesh_node_set(sinew_graph_t *graph, sinew_node_t mesh_node,
                                  const sinew_data_t *mesh);

#ifdef __cplusplus
}
#endif
#endif
