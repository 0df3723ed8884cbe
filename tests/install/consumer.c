/* tests/install/consumer.c: the smallest host of an installed sinew: it must find the header,
 * link the library (and the library's own dependencies) and run, from the graph core up to a
 * session running Maya commands. */
#include <stdio.h>
#include <string.h>

#include <sinew/sinew.h>

int main(void) {
  sinew_graph_t *graph = NULL;
  int rc = sinew_graph_create(NULL, &graph);
  if (rc != SINEW_OK) {
    fprintf(stderr, "consumer: sinew_graph_create: %s\n", sinew_strerror(rc));
    return 1;
  }
  printf("consumer: sinew %d.%d.%d, a graph with %zu nodes\n", SINEW_VERSION_MAJOR,
         SINEW_VERSION_MINOR, SINEW_VERSION_PATCH, sinew_node_count(graph));
  sinew_graph_destroy(graph);

  sinew_session_t *session = NULL;
  const char *script = "createNode joint -n \"elbow\"; setAttr elbow.tx 2.5; getAttr elbow.tx;";
  sinew_value_t result = {0};
  if ((rc = sinew_session_create(NULL, &session)) ||
      (rc = sinew_session_run(session, script, strlen(script), "consumer", &result))) {
    fprintf(stderr, "consumer: session: %s\n", session ? sinew_session_errmsg(session) : sinew_strerror(rc));
    sinew_session_destroy(session);
    return 1;
  }
  double tx = sinew_value_to_double(&result);
  sinew_value_clear(&result);
  sinew_session_destroy(session);
  if (tx != 2.5) {
    fprintf(stderr, "consumer: getAttr elbow.tx gave %g, not 2.5\n", tx);
    return 1;
  }
  printf("consumer: a session ran createNode / setAttr / getAttr\n");
  return 0;
}
