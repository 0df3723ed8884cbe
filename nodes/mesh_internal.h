/* nodes/mesh_internal.h: what the mesh files (mesh.c, mesh_prim.c, mesh_obj.c, mesh_node.c) and
 * the deformers that write meshes share: building a topology in place, reusable output blocks,
 * and growable scratch arrays. Every byte lives in a data block, so all memory goes through the
 * library's allocator funnel. */
#ifndef SINEW_MESH_INTERNAL_H
#define SINEW_MESH_INTERNAL_H

#include "sinew/mesh.h"

/* A new topology block for nfaces faces with nface_verts face-vertices, arrays left zeroed for
 * the caller to fill through *counts and *verts; then sinew__topology_finish. */
int sinew__topology_new(uint32_t npoints, uint32_t nfaces, uint64_t nface_verts, sinew_data_t **out,
                        uint32_t **counts, uint32_t **verts);
/* Computes the face offsets and checks the filled arrays: every face has at least 3 vertices
 * (SINEW_EINVAL), the counts add up (SINEW_EINVAL) and indices are < npoints (SINEW_ERANGE). */
int sinew__topology_finish(sinew_data_t *topo);
/* A mesh block of npoints zeroed points (and zeroed normals when normals is true) over topo.
 * Takes over the caller's reference to topo, also on failure. */
int sinew__mesh_new(sinew_data_t *topo, uint32_t npoints, bool normals, sinew_data_t **out);
/* The primitives of sinew/mesh.h with a limit on the points they make: SINEW_ELIMIT when the
 * mesh would have more than max_points points (the graph's SINEW_LIMIT_GENERATED_POINTS). */
int sinew__mesh_cube(double w, double h, double d, uint32_t sx, uint32_t sy, uint32_t sz, uint64_t max_points,
                     sinew_data_t **out);
int sinew__mesh_plane(double w, double h, uint32_t sx, uint32_t sy, uint64_t max_points, sinew_data_t **out);
int sinew__mesh_cylinder(double radius, double height, uint32_t sx, uint32_t sy, uint32_t sz, uint64_t max_points,
                         sinew_data_t **out);
int sinew__mesh_sphere(double radius, uint32_t sx, uint32_t sy, uint64_t max_points, sinew_data_t **out);
/* The topology block a mesh block refers to (borrowed). */
sinew_data_t *sinew__mesh_topology_block(const sinew_data_t *mesh);

/* A growable byte array in a data block. Zero-initialise; release with sinew__mesh_buf_free. */
typedef struct sinew__mesh_buf {
  sinew_data_t *block;
  unsigned char *ptr;
  size_t len, cap; /* bytes */
} sinew__mesh_buf;

/* Makes room for `more` bytes after len (contents kept); SINEW_ENOMEM leaves b as it was. */
int sinew__mesh_buf_reserve(sinew__mesh_buf *b, size_t more);
/* Appends n bytes. */
int sinew__mesh_buf_append(sinew__mesh_buf *b, const void *data, size_t n);
void sinew__mesh_buf_free(sinew__mesh_buf *b);

/* Output blocks a node keeps as a pair so that steady-state evaluation allocates nothing: one of
 * the pair, held by nobody else and shaped like src (same topology, point count, normals), with
 * src's points and normals copied in; else a fresh clone of src, put in a slot nobody else
 * holds. Borrowed (the pair keeps the reference). NULL on out-of-memory. */
sinew_data_t *sinew__mesh_reuse_block(sinew_data_t *pair[2], const sinew_data_t *src);

/* A scratch area of at least `bytes` in *block, grown (contents dropped) when too small, so a
 * node can keep it between evaluations and allocate nothing in steady state. NULL on failure. */
void *sinew__mesh_scratch(sinew_data_t **block, size_t bytes);

#endif
