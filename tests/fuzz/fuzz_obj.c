/* tests/fuzz/fuzz_obj.c: the bytes as an OBJ file (sinew_mesh_read_obj, the reader the mesh
 * tools and tests use). A mesh that reads is checked (every face index below npoints), given
 * normals, converted to Maya's edge form and back (sinew_mesh_edges_from_faces, then
 * sinew_mesh_faces_from_edges must give the same face loops), and written as OBJ and read
 * back bit for bit (fuzz_check_obj_roundtrip). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_init();
  return 0;
}

static void check_edges(const sinew_topology_t *t) {
  if (t->nface_verts == 0 || t->nface_verts > (1u << 20)) return;
  uint32_t *edges = malloc(2 * (size_t)t->nface_verts * sizeof *edges);
  int32_t *fe = malloc((size_t)t->nface_verts * sizeof *fe);
  uint32_t *fv = malloc((size_t)t->nface_verts * sizeof *fv);
  uint32_t nedges = 0;
  if (edges && fe && fv && sinew_mesh_edges_from_faces(t, edges, &nedges, fe) == SINEW_OK) {
    if (nedges > t->nface_verts) {
      fprintf(stderr, "fuzz: %u edges for %u face vertices\n", nedges, t->nface_verts);
      abort();
    }
    int rc = sinew_mesh_faces_from_edges(edges, nedges, fe, t->face_counts, t->nfaces, fv);
    if (rc != SINEW_OK || memcmp(fv, t->face_verts, t->nface_verts * sizeof *fv) != 0) {
      fprintf(stderr, "fuzz: faces -> edges -> faces changes the faces (%s)\n", sinew_err_name(rc));
      abort();
    }
  }
  free(edges);
  free(fe);
  free(fv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FILE *in = fmemopen((void *)data, size, "r");
  if (!in) return 0;
  sinew_data_t *mesh = NULL;
  char err[256];
  int rc = sinew_mesh_read_obj(in, "fuzz.obj", &mesh, err, sizeof err);
  fclose(in);
  if (rc != SINEW_OK) {
    if (mesh) abort(); /* *out is untouched on error */
    return 0;
  }
  const sinew_mesh_t *m = sinew_mesh_get(mesh);
  if (!m) abort();
  const sinew_topology_t *t = m->topology;
  if (t->npoints != m->npoints) abort();
  for (uint32_t f = 0; f < t->nfaces; f++) {
    if (t->face_counts[f] < 3 || t->face_offsets[f] + t->face_counts[f] > t->nface_verts) abort();
  }
  for (uint32_t i = 0; i < t->nface_verts; i++) {
    if (t->face_verts[i] >= m->npoints) abort();
  }
  check_edges(t);
  fuzz_check_obj_roundtrip(mesh, "fuzz.obj");
  sinew_data_t *copy = NULL;
  if (sinew_mesh_clone_shared(mesh, true, &copy) == SINEW_OK) {
    sinew_mesh_compute_normals(&copy);
    sinew_data_unref(copy);
  }
  sinew_data_unref(mesh);
  return 0;
}
