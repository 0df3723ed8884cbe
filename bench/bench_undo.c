/* bench/bench_undo.c: what the session's undo queue costs the commands users run all the time,
 * in the same run with the queue on (each command a transaction and an undo step, Maya's queue
 * of 50) and off (undoInfo -state off). Machines here are shared and noisy: compare the ratios.
 *
 *   setAttr     "setAttr a.tx <i>" lines of a script (a feeds a multiplyDivide)
 *   connect     "connectAttr a.ty md.i1y; disconnectAttr a.ty md.i1y" pairs
 *   create      "createNode transform -n t; delete t" pairs
 *
 *   bench_undo [lines]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sinew/cmds.h"
#include "sinew/sinew.h"
#include "bench/bench_util.h"

static void die(sinew_session_t *s, const char *what) {
  fprintf(stderr, "bench_undo: %s: %s\n", what, s ? sinew_session_errmsg(s) : "");
  exit(1);
}

static char *script(int kind, long n, size_t *len) {
  size_t cap = (size_t)n * 80 + 1, k = 0;
  char *t = malloc(cap);
  if (!t) die(NULL, "out of memory");
  for (long i = 0; i < n; i++) {
    if (kind == 0) k += (size_t)snprintf(t + k, cap - k, "setAttr a.tx %ld;\n", i % 100);
    else if (kind == 1) k += (size_t)snprintf(t + k, cap - k, "connectAttr a.ty md.i1y; disconnectAttr a.ty md.i1y;\n");
    else k += (size_t)snprintf(t + k, cap - k, "createNode transform -n t; delete t;\n");
  }
  *len = k;
  return t;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 20000;
  if (n < 100) n = 100;
  sinew_session_t *s;
  if (sinew_session_create(NULL, &s)) die(NULL, "create");
  const char *init = "createNode transform -n a; createNode multiplyDivide -n md; connectAttr a.tx md.i1x;";
  if (sinew_session_run(s, init, strlen(init), "init", NULL)) die(s, "init");
  static const char *const kinds[] = {"setAttr", "connect+disconnect", "createNode+delete"};
  for (int kind = 0; kind < 3; kind++) {
    long k = kind == 0 ? n : n / 4;
    size_t len;
    char *text = script(kind, k, &len);
    double best[2] = {1e30, 1e30};
    for (int round = 0; round < 3; round++) /* best of three, interleaved */
      for (int on = 0; on < 2; on++) {
        if (sinew_session_set_undo_state(s, on, true)) die(s, "undo state");
        double t0 = now();
        if (sinew_session_run(s, text, len, "bench", NULL)) die(s, kinds[kind]);
        double t = now() - t0;
        if (t < best[on]) best[on] = t;
      }
    sinew_session_set_undo_state(s, true, true);
    long calls = kind == 0 ? k : 2 * k;
    printf("%-19s %8ld commands: %7.1f ns/command queue off, %7.1f ns queue on (%.2fx)\n", kinds[kind], calls,
           best[0] / (double)calls * 1e9, best[1] / (double)calls * 1e9, best[1] / best[0]);
    free(text);
  }
  sinew_session_destroy(s);
  return 0;
}
