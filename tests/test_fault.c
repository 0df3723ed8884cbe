/* tests/test_fault.c: the fault-injection harness (tests/support.c) over the command set and over
 * file -i of every .ma file in tests/data. Every allocation of a command failing in turn (or,
 * for a file, allocations spread over the whole read) must leave the scene saved as .ma
 * byte-identical to the save before, and leak nothing. SINEW_FAULT_POINTS=n tries about n
 * allocations of each file read (default: fewer for bigger files). */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "tests/support.h"

/* ---- every .ma file under tests/data, made to fail while it is imported ------------------------ */

static char files[128][512];
static size_t nfiles;

static int cmp_str(const void *a, const void *b) { return strcmp(a, b); }

static void list_dir(const char *dir, int depth) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    size_t n = strlen(e->d_name);
    if (n > 3 && strcmp(e->d_name + n - 3, ".ma") == 0) {
      if (nfiles == sizeof files / sizeof *files) fail_msg("more than %zu .ma files", nfiles);
      snprintf(files[nfiles++], sizeof files[0], "%s", path);
    } else if (depth < 3) {
      list_dir(path, depth + 1);
    }
  }
  closedir(d);
}

static long points_for(const char *path) {
  const char *env = getenv("SINEW_FAULT_POINTS");
  if (env && atol(env) > 0) return atol(env);
  struct stat st;
  long size = stat(path, &st) == 0 ? (long)st.st_size : 1;
  long p = 1000000 / (size ? size : 1);
  return p < 3 ? 3 : p > 30 ? 30 : p;
}

/* The file imported over itself (every name clashes, shared nodes are set again) and into a
 * scene of a few nodes, failing at allocations spread over the read (running out of memory
 * fails a read that skips failing lines). */
static void test_import_fails_midway(void **st) {
  (void)st;
  list_dir(SINEW_TEST_DATA_DIR, 0);
  qsort(files, nfiles, sizeof files[0], cmp_str);
  if (nfiles < 30) fail_msg("only %zu .ma files under %s", nfiles, SINEW_TEST_DATA_DIR);
  for (size_t i = 0; i < nfiles; i++) {
    char setup[1200], command[700];
    snprintf(setup, sizeof setup, "file -f -o \"%s\";", files[i]);
    snprintf(command, sizeof command, "file -i \"%s\";", files[i]);
    test_fault_desc_t d = {.setup = setup, .command = command, .points = points_for(files[i])};
    long failed = test_fault_command(&d);
    d.setup = "createNode transform -n joint1; createNode joint -n joint2 -p joint1; setAttr joint2.tx 3;"
              "currentUnit -l mm; playbackOptions -min 3 -max 40; select joint1;";
    failed += test_fault_command(&d);
    if (failed == 0) fail_msg("%s: no injected failure made the import fail", files[i]);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_import_fails_midway),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
