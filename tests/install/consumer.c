/* tests/install/consumer.c: the smallest host of an installed sinew: it must find the header,
 * link the library (and the library's own dependencies) and run. */
#include <stdio.h>

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
  return 0;
}
