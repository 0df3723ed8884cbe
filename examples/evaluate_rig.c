/* examples/evaluate_rig.c: a host evaluating a rig, the way a tool embeds sinew: open a Maya
 * ASCII file or run a MEL script in a session, then for a few frames set the time, read a
 * joint's value and pull a deformed mesh. Only the public API (sinew/sinew.h).
 *
 *   evaluate_rig [FILE [PLUG [MESH]]]
 *
 * Defaults: scripts/example_rig.mel, bicep.scaleY, armGeoShape. */
#include <stdio.h>
#include <string.h>

#include <sinew/sinew.h>

int main(int argc, char **argv) {
  const char *file = argc > 1 ? argv[1] : "scripts/example_rig.mel";
  const char *plug_text = argc > 2 ? argv[2] : "bicep.scaleY";
  const char *mesh_name = argc > 3 ? argv[3] : "armGeoShape";

  sinew_session_t *session = NULL;
  if (sinew_session_create(NULL, &session) != SINEW_OK) return 1;
  size_t n = strlen(file);
  int rc = n > 3 && strcmp(file + n - 3, ".ma") == 0 ? sinew_session_open(session, file)
                                                     : sinew_session_run_file(session, file, NULL);
  if (rc != SINEW_OK) {
    fprintf(stderr, "%s\n", sinew_session_errmsg(session)); /* "rig.mel:12: setAttr: ..." */
    sinew_session_destroy(session);
    return 1;
  }
  sinew_graph_t *g = sinew_session_graph(session); /* valid until the next file -open */

  sinew_plug_t plug, mesh_plug;
  char mesh_plug_text[256];
  snprintf(mesh_plug_text, sizeof mesh_plug_text, "%s.worldMesh[0]", mesh_name);
  if (sinew_plug_parse(g, plug_text, (sinew_node_t){0, 0}, &plug) != SINEW_OK ||
      sinew_plug_parse(g, mesh_plug_text, (sinew_node_t){0, 0}, &mesh_plug) != SINEW_OK) {
    fprintf(stderr, "%s\n", sinew_graph_errmsg(g));
    sinew_session_destroy(session);
    return 1;
  }

  printf("%-6s %-14s %s\n", "frame", plug_text, "first point of the mesh (world space)");
  for (int frame = 0; frame <= 48; frame += 12) {
    sinew_time_set_frame(g, frame); /* dirties only what depends on time */
    double value = 0;
    sinew_data_t *data = NULL;
    if (sinew_get_double(g, &plug, &value) != SINEW_OK || sinew_get_data(g, &mesh_plug, &data) != SINEW_OK) {
      fprintf(stderr, "%s\n", sinew_graph_errmsg(g));
      break;
    }
    const sinew_mesh_t *mesh = sinew_mesh_get(data); /* float points, shared, copy-on-write */
    if (mesh && mesh->npoints)
      printf("%-6d %-14.6f (%.4f, %.4f, %.4f)\n", frame, value, mesh->points[0], mesh->points[1], mesh->points[2]);
    sinew_data_unref(data); /* the getter gave us a reference */
  }
  sinew_session_destroy(session);
  return 0;
}
