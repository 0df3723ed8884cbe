/* tests/test_cli.c: the sinew command, run as a child process on small inputs written to a
 * temporary directory: run (OBJ files, their count, names and points against the session API
 * and against Maya's own skinning results), eval (values in the scene's units), info, dot,
 * --help and --version, and the error cases with their exit statuses and messages. */
#define _XOPEN_SOURCE 700 /* posix_openpt, for the progress bar test */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <spawn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sinew/cmds.h"
#include "sinew/sinew.h"
#include "tests/support.h"

#ifndef SINEW_CLI_PATH
#error "SINEW_CLI_PATH must name the built sinew command"
#endif

#define PI 3.14159265358979323846

extern char **environ;
#define SKIN_TRUTH SINEW_SOURCE_DIR "/tests/data/maya-skin-truth/"

/* A joint that turns 0.5 radians per second (a unitConversion from time1), skinning a 2x1x1
 * polyCube whose transform is moved 3 along X; built with createNode, setAttr and connectAttr
 * only. Prints one line. */
static const char rig_mel[] =
    "// a joint that turns with time, skinning a cube\n"
    "createNode joint -n \"bone\";\n"
    "setAttr \"bone.translate\" 0 1 0;\n"
    "createNode unitConversion -n \"timeToAngle\";\n"
    "setAttr \"timeToAngle.conversionFactor\" 0.5;\n"
    "connectAttr \"time1.outTime\" \"timeToAngle.input\";\n"
    "connectAttr \"timeToAngle.output\" \"bone.rotateZ\";\n"
    "addAttr -ln \"note\" -dt \"string\" bone;\n"
    "setAttr \"bone.note\" -type \"string\" \"elbow, left\";\n"
    "createNode transform -n \"box\";\n"
    "createNode mesh -n \"boxShape\" -p \"box\";\n"
    "createNode polyCube -n \"cubeMaker\";\n"
    "setAttr \"cubeMaker.width\" 2;\n"
    "createNode skinCluster -n \"skin\";\n"
    "setAttr \"skin.wl[0:7].w[0]\" 1 1 1 1 1 1 1 1;\n"
    "connectAttr \"bone.worldMatrix[0]\" \"skin.matrix[0]\";\n"
    "connectAttr \"cubeMaker.output\" \"skin.input[0].inputGeometry\";\n"
    "connectAttr \"skin.outputGeometry[0]\" \"boxShape.inMesh\";\n"
    "setAttr \"box.translateX\" 3;\n"
    "print \"rig built\\n\";\n";

/* ---- the temporary directory and files ------------------------------------------------------ */

static char tmp_dir[64];
/* Paths handed out by tmp_path, valid until teardown. */
static char *tmp_paths[256];
static size_t tmp_npaths;

static const char *tmp_path(const char *name) {
  size_t len = strlen(tmp_dir) + strlen(name) + 2;
  char *b = malloc(len);
  assert_non_null(b);
  assert_true(tmp_npaths < sizeof tmp_paths / sizeof tmp_paths[0]);
  snprintf(b, len, "%s/%s", tmp_dir, name);
  return tmp_paths[tmp_npaths++] = b;
}

static const char *write_tmp(const char *name, const char *text) {
  const char *path = tmp_path(name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  assert_int_equal(fclose(f), 0);
  return path;
}

/* The whole file as a string (caller frees); NULL when it cannot be read. */
static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, len = 0, n;
  char *buf = malloc(cap);
  while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
    len += n;
    if (cap - len < 2) buf = realloc(buf, cap *= 2);
  }
  fclose(f);
  if (buf) buf[len] = 0;
  return buf;
}

static bool exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}


/* Entries in a directory (without . and ..); -1 when it cannot be opened. */
static int count_entries(const char *path) {
  DIR *d = opendir(path);
  if (!d) return -1;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  closedir(d);
  return n;
}

static int setup(void **state) {
  snprintf(tmp_dir, sizeof tmp_dir, "/tmp/sinew_test_cli_XXXXXX");
  if (!mkdtemp(tmp_dir)) return -1;
  return 0;
}

static int teardown(void **state) {
  test_remove_tree(tmp_dir);
  while (tmp_npaths) free(tmp_paths[--tmp_npaths]);
  return 0;
}

/* ---- running the command -------------------------------------------------------------------- */

typedef struct result {
  int status; /* exit status; 128 + signal when killed */
  char *out, *err;
} result_t;

static void result_free(result_t *r) {
  free(r->out);
  free(r->err);
}

/* Runs `sinew ARGS...` (NULL-terminated) with stdout and stderr captured in files (so stderr is
 * not a terminal and no progress bar is drawn). */
static result_t run_cli_argv(const char *const *argv, const char *tty);

static result_t run_cli(const char *arg, ...) {
  const char *argv[32] = {SINEW_CLI_PATH};
  int argc = 1;
  va_list ap;
  va_start(ap, arg);
  for (const char *a = arg; a && argc < 31; a = va_arg(ap, const char *)) argv[argc++] = a;
  va_end(ap);
  argv[argc] = NULL;
  return run_cli_argv(argv, NULL);
}

/* The same with an argv; stderr goes to the terminal named tty when it is not NULL (r.err is
 * then empty). */
static result_t run_cli_argv(const char *const *argv, const char *tty) {
  const char *out_path = tmp_path("stdout.txt"), *err_path = tmp_path("stderr.txt");
  if (tty) err_path = tty;
  posix_spawn_file_actions_t fa;
  assert_int_equal(posix_spawn_file_actions_init(&fa), 0);
  assert_int_equal(posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644), 0);
  assert_int_equal(posix_spawn_file_actions_addopen(&fa, 2, err_path,
                                                    tty ? O_RDWR | O_NOCTTY : O_WRONLY | O_CREAT | O_TRUNC, 0644), 0);
  pid_t pid;
  fflush(NULL);
  int rc = posix_spawn(&pid, SINEW_CLI_PATH, &fa, NULL, (char *const *)argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc) fail_msg("cannot start %s: %s", SINEW_CLI_PATH, strerror(rc));
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0) assert_int_equal(errno, EINTR);
  result_t r = {WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus),
                slurp(out_path), tty ? calloc(1, 1) : slurp(err_path)};
  assert_non_null(r.out);
  assert_non_null(r.err);
  return r;
}

static void assert_contains(const char *text, const char *part) {
  if (!strstr(text, part)) fail_msg("expected \"%s\" in:\n%s", part, text);
}

static void assert_status(const result_t *r, int status) {
  if (r->status != status)
    fail_msg("exit status %d, expected %d\nstdout:\n%s\nstderr:\n%s", r->status, status, r->out, r->err);
}

/* ---- OBJ and session helpers ---------------------------------------------------------------- */

static sinew_data_t *read_obj(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) fail_msg("cannot open %s", path);
  sinew_data_t *mesh = NULL;
  char err[256] = "";
  int rc = sinew_mesh_read_obj(f, path, &mesh, err, sizeof err);
  fclose(f);
  if (rc) fail_msg("%s: %s", path, err);
  return mesh;
}

/* The points of a mesh plug, evaluated by a session of this process at a frame. */
static sinew_data_t *session_mesh(const char *file, bool ma, double frame, const char *plug_text) {
  sinew_session_t *s;
  assert_int_equal(sinew_session_create(NULL, &s), 0);
  assert_int_equal(ma ? sinew_session_open(s, file) : sinew_session_run_file(s, file, NULL), 0);
  sinew_graph_t *g = sinew_session_graph(s);
  assert_int_equal(sinew_time_set_frame(g, frame), 0);
  sinew_plug_t p;
  sinew_data_t *data = NULL;
  assert_int_equal(sinew_plug_parse(g, plug_text, (sinew_node_t){0, 0}, &p), 0);
  assert_int_equal(sinew_get_data(g, &p, &data), 0);
  assert_non_null(sinew_mesh_get(data));
  sinew_session_destroy(s);
  return data;
}

static void assert_same_points(const sinew_data_t *a, const sinew_data_t *b) {
  const sinew_mesh_t *ma = sinew_mesh_get(a), *mb = sinew_mesh_get(b);
  assert_int_equal(ma->npoints, mb->npoints);
  for (uint32_t k = 0; k < 3 * ma->npoints; k++)
    if (ma->points[k] != mb->points[k]) fail_msg("coordinate %u: %.9g != %.9g", k, ma->points[k], mb->points[k]);
}

/* Parses numbers separated by spaces; returns how many. */
static size_t parse_numbers(const char *text, double *out, size_t cap) {
  size_t n = 0;
  char *end;
  for (const char *p = text; n < cap; p = end) {
    double v = strtod(p, &end);
    if (end == p) break;
    out[n++] = v;
  }
  return n;
}

/* The count on the line "  <type>   <count>" of info's node table; -1 when absent. */
static long type_count(const char *info, const char *type) {
  char key[64];
  snprintf(key, sizeof key, "\n  %s ", type);
  const char *p = strstr(info, key);
  return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/* ---- --help and --version ------------------------------------------------------------------- */

static void test_help_and_version(void **state) {
  result_t r = run_cli("--help", NULL);
  assert_status(&r, 0);
  assert_contains(r.out, "usage: sinew");
  assert_contains(r.out, "run");
  assert_contains(r.out, "eval");
  result_free(&r);
  const char *subs[] = {"run", "eval", "info", "dot"};
  for (size_t k = 0; k < 4; k++) {
    char usage[64];
    snprintf(usage, sizeof usage, "usage: sinew %s", subs[k]);
    r = run_cli(subs[k], "--help", NULL);
    assert_status(&r, 0);
    assert_contains(r.out, usage);
    assert_string_equal(r.err, "");
    result_free(&r);
  }
  /* -h wins over everything else, even a bad option; FILE is not read. */
  r = run_cli("run", tmp_path("nosuch.mel"), "--bogus", "--frames", "5:1", "-h", NULL);
  assert_status(&r, 0);
  assert_contains(r.out, "usage: sinew run");
  result_free(&r);
  r = run_cli("--version", NULL);
  assert_status(&r, 0);
  char version[64];
  snprintf(version, sizeof version, "sinew %d.%d.%d\n", SINEW_VERSION_MAJOR, SINEW_VERSION_MINOR,
           SINEW_VERSION_PATCH);
  assert_string_equal(r.out, version);
  result_free(&r);
}

/* ---- run ------------------------------------------------------------------------------------ */

static void test_run_mel_writes_frames(void **state) {
  const char *rig = write_tmp("rig.mel", rig_mel);
  const char *out = tmp_path("out/nested");
  result_t r = run_cli("run", rig, "--frames", "1:5", "--step", "2", "--out", out, NULL);
  assert_status(&r, 0);
  assert_contains(r.out, "rig built\n"); /* the script's print goes to stdout */
  assert_contains(r.out, "3 frames, 1 mesh, 8 vertices per frame, 3 files");
  assert_string_equal(r.err, ""); /* not a terminal: no progress bar */
  result_free(&r);
  assert_int_equal(count_entries(out), 3);
  char path[600];
  for (int frame = 1; frame <= 5; frame++) {
    snprintf(path, sizeof path, "%s/boxShape.%04d.obj", out, frame);
    assert_int_equal(exists(path), frame % 2 == 1);
  }
  /* Each file holds the world-space mesh the session computes at that frame, bit for bit. */
  for (int frame = 1; frame <= 5; frame += 2) {
    snprintf(path, sizeof path, "%s/boxShape.%04d.obj", out, frame);
    sinew_data_t *written = read_obj(path);
    const sinew_mesh_t *m = sinew_mesh_get(written);
    assert_int_equal(m->npoints, 8);
    assert_int_equal(m->topology->nfaces, 6);
    sinew_data_t *expected = session_mesh(rig, false, frame, "boxShape.worldMesh[0]");
    assert_same_points(written, expected);
    sinew_data_unref(expected);
    sinew_data_unref(written);
  }
  /* The bone turns with time, so frames differ; world space includes box.tx = 3. */
  snprintf(path, sizeof path, "%s/boxShape.0001.obj", out);
  sinew_data_t *f1 = read_obj(path);
  snprintf(path, sizeof path, "%s/boxShape.0005.obj", out);
  sinew_data_t *f5 = read_obj(path);
  const sinew_mesh_t *m1 = sinew_mesh_get(f1), *m5 = sinew_mesh_get(f5);
  assert_true(fabs(m1->points[0] - m5->points[0]) > 1e-3);
  double cx = 0;
  for (uint32_t k = 0; k < m1->npoints; k++) cx += m1->points[3 * k] / m1->npoints;
  assert_true(fabs(cx - 3.0) < 0.1); /* a small turn about a bone at the origin's x */
  sinew_data_unref(f1);
  sinew_data_unref(f5);
}

/* Frames on the worker pool (sinew_evaluate_parallel, taken when a frame is heavy; forced here
 * with SINEW_RUN_PARALLEL_MS=0) write the same points as the session pulling each mesh. */
static void test_run_on_the_pool(void **state) {
  char two[4096];
  snprintf(two, sizeof two,
           "%s"
           "createNode transform -n \"box2\";\n"
           "createNode mesh -n \"box2Shape\" -p \"box2\";\n"
           "createNode polyCube -n \"cubeMaker2\";\n"
           "createNode skinCluster -n \"skin2\";\n"
           "setAttr \"skin2.wl[0:7].w[0]\" 1 1 1 1 0.5 0.5 0.5 0.5;\n"
           "connectAttr \"bone.worldMatrix[0]\" \"skin2.matrix[0]\";\n"
           "connectAttr \"cubeMaker2.output\" \"skin2.input[0].inputGeometry\";\n"
           "connectAttr \"skin2.outputGeometry[0]\" \"box2Shape.inMesh\";\n"
           "setAttr \"box2.translateZ\" -2;\n",
           rig_mel);
  const char *rig = write_tmp("two.mel", two);
  static const char *const knobs[] = {"0", "abc", NULL}; /* every frame; a bad value: the default */
  for (int k = 0; knobs[k]; k++) {
    const char *out = tmp_path(k ? "pool-default" : "pool-always");
    assert_int_equal(setenv("SINEW_RUN_PARALLEL_MS", knobs[k], 1), 0);
    result_t r = run_cli("run", rig, "--frames", "1:4", "-v", "--out", out, NULL);
    unsetenv("SINEW_RUN_PARALLEL_MS");
    assert_status(&r, 0);
    assert_contains(r.out, "4 frames, 2 meshes, 16 vertices per frame, 8 files");
    if (k == 0) assert_contains(r.out, "4 of 4 frames evaluated on the worker pool");
    else assert_contains(r.out, " of 4 frames evaluated on the worker pool"); /* as heavy as they come */
    result_free(&r);
    char path[600];
    for (int frame = 1; frame <= 4; frame++)
      for (int m = 0; m < 2; m++) {
        snprintf(path, sizeof path, "%s/%s.%04d.obj", out, m ? "box2Shape" : "boxShape", frame);
        sinew_data_t *written = read_obj(path);
        sinew_data_t *expected =
            session_mesh(rig, false, frame, m ? "box2Shape.worldMesh[0]" : "boxShape.worldMesh[0]");
        assert_same_points(written, expected);
        sinew_data_unref(expected);
        sinew_data_unref(written);
      }
  }
  (void)state;
}

static void test_run_file_names(void **state) {
  /* Two shapes named geoShape under different parents, and a shape with no geometry. */
  const char *dup = write_tmp("dup.mel",
                              "createNode transform -n \"L\";\n"
                              "createNode transform -n \"R\";\n"
                              "createNode mesh -n \"geoShape\" -p \"L\";\n"
                              "createNode mesh -n \"geoShape\" -p \"R\";\n"
                              "createNode mesh -n \"empty\";\n"
                              "createNode polyPlane -n \"plane\";\n"
                              "connectAttr \"plane.output\" \"|L|geoShape.inMesh\";\n"
                              "connectAttr \"plane.output\" \"|R|geoShape.inMesh\";\n"
                              "setAttr \"R.translateZ\" 5;\n");
  const char *out = tmp_path("names");
  result_t r = run_cli("run", dup, "--frames=-2:-1", "--out=", NULL);
  assert_status(&r, 2); /* an empty --out */
  result_free(&r);
  r = run_cli("run", dup, "--frames=-2:-1", "--out", out, NULL);
  assert_status(&r, 0);
  assert_contains(r.out, "2 frames, 2 meshes, ");
  assert_contains(r.out, " 4 files");
  result_free(&r);
  assert_int_equal(count_entries(out), 4);
  const char *names[] = {"L_geoShape.-002.obj", "L_geoShape.-001.obj", "R_geoShape.-002.obj", "R_geoShape.-001.obj"};
  char path[600];
  for (size_t k = 0; k < 4; k++) {
    snprintf(path, sizeof path, "%s/%s", out, names[k]);
    assert_true(exists(path));
  }
  /* Each file holds its own shape: R's is moved 5 along Z. */
  snprintf(path, sizeof path, "%s/R_geoShape.-001.obj", out);
  sinew_data_t *right = read_obj(path);
  snprintf(path, sizeof path, "%s/L_geoShape.-001.obj", out);
  sinew_data_t *left = read_obj(path);
  const sinew_mesh_t *mr = sinew_mesh_get(right), *ml = sinew_mesh_get(left);
  assert_int_equal(mr->npoints, ml->npoints);
  for (uint32_t k = 0; k < mr->npoints; k++) assert_true(mr->points[3 * k + 2] - ml->points[3 * k + 2] == 5.0f);
  sinew_data_unref(right);
  sinew_data_unref(left);
}

static void test_run_object_space_matches_maya(void **state) {
  /* transformed_skin_f4: the skinned shape's transform was moved after the bind; Maya's
   * outputGeometry (object space) is in the .expected.txt file. */
  const char *out = tmp_path("skin_obj");
  result_t r = run_cli("run", SKIN_TRUTH "transformed_skin_f4.ma", "--out", out, "--space", "object", NULL);
  assert_status(&r, 0);
  assert_contains(r.out, "1 frame, 1 mesh, 20 vertices per frame, 1 files");
  result_free(&r);
  /* No --frames: the current frame (0) only, and only the shape that is not intermediate. */
  assert_int_equal(count_entries(out), 1);
  char path[600];
  snprintf(path, sizeof path, "%s/skinnedShape.0000.obj", out);
  sinew_data_t *written = read_obj(path);
  const sinew_mesh_t *m = sinew_mesh_get(written);
  assert_int_equal(m->npoints, 20);
  assert_int_equal(m->topology->nfaces, 18);
  char *truth = slurp(SKIN_TRUTH "transformed_skin_f4.expected.txt");
  assert_non_null(truth);
  const char *line = strchr(truth, '\n') + 1; /* past the comment */
  for (uint32_t k = 0; k < m->npoints; k++) {
    double xyz[3];
    assert_int_equal(parse_numbers(line, xyz, 3), 3);
    for (int c = 0; c < 3; c++)
      if (fabs(xyz[c] - m->points[3 * k + c]) > 1e-5)
        fail_msg("vertex %u: %.7g != Maya's %.7g", k, m->points[3 * k + c], xyz[c]);
    line = strchr(line, '\n') + 1;
  }
  free(truth);
  sinew_data_unref(written);

  /* The default, world space, is the shape's worldMesh[0]. */
  out = tmp_path("skin_world");
  r = run_cli("run", SKIN_TRUTH "transformed_skin_f4.ma", "--out", out, "--frames", "7", NULL);
  assert_status(&r, 0);
  result_free(&r);
  snprintf(path, sizeof path, "%s/skinnedShape.0007.obj", out);
  written = read_obj(path);
  sinew_data_t *expected = session_mesh(SKIN_TRUTH "transformed_skin_f4.ma", true, 7, "skinnedShape.worldMesh[0]");
  assert_same_points(written, expected);
  sinew_data_unref(expected);
  sinew_data_unref(written);
}

static void test_run_progress_on_terminal(void **state) {
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0) skip(); /* no pseudo-terminals in this sandbox */
  assert_int_equal(grantpt(master), 0);
  assert_int_equal(unlockpt(master), 0);
  const char *tty = ptsname(master);
  assert_non_null(tty);
  char tty_path[128];
  snprintf(tty_path, sizeof tty_path, "%s", tty);
  const char *rig = write_tmp("rig.mel", rig_mel);
  const char *argv[] = {SINEW_CLI_PATH, "run", rig, "--frames", "1:3", "--out", tmp_path("tty_out"), NULL};
  result_t r = run_cli_argv(argv, tty_path);
  assert_status(&r, 0);
  assert_contains(r.out, "3 frames, 1 mesh"); /* the summary still goes to stdout */
  /* The child has exited: what it wrote to the terminal waits on the master side. */
  char screen[4096];
  size_t len = 0;
  int flags = fcntl(master, F_GETFL);
  fcntl(master, F_SETFL, flags | O_NONBLOCK);
  for (ssize_t n; len < sizeof screen - 1 && (n = read(master, screen + len, sizeof screen - 1 - len)) > 0;)
    len += (size_t)n;
  screen[len] = 0;
  close(master);
  assert_contains(screen, "frame 1 (1/3)");
  assert_contains(screen, "100%  frame 3 (3/3)");
  assert_contains(screen, "\r\033[K"); /* the bar is cleared at the end */
  result_free(&r);

  /* -q draws nothing even on a terminal. */
  master = posix_openpt(O_RDWR | O_NOCTTY);
  assert_true(master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0);
  snprintf(tty_path, sizeof tty_path, "%s", ptsname(master));
  const char *quiet[] = {SINEW_CLI_PATH, "run", "-q", rig, "--frames", "1:3", "--out", tmp_path("tty_out"), NULL};
  r = run_cli_argv(quiet, tty_path);
  assert_status(&r, 0);
  fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
  ssize_t n = read(master, screen, sizeof screen);
  close(master);
  assert_true(n <= 0);
  result_free(&r);
}

/* The rig commands (joint, polyCylinder, skinCluster, expression): an arm whose elbow bends 10
 * degrees a frame. */
static void test_rig_commands(void **state) {
  const char *arm = write_tmp("arm.mel",
                              "select -cl;\n"
                              "joint -n \"shoulder\" -p 0 0 0;\n"
                              "joint -n \"elbow\" -p 4 0 0;\n"
                              "joint -n \"wrist\" -p 8 0 0;\n"
                              "polyCylinder -n \"armGeo\" -r 1 -h 8 -sx 8 -sy 4 -sz 1 -ax 1 0 0;\n"
                              "setAttr \"armGeo.translateX\" 4;\n"
                              "skinCluster -n \"armSkin\" -tsb -mi 2 shoulder elbow wrist armGeo;\n"
                              "expression -n \"bend\" -s \"elbow.rotateZ = frame * 10;\";\n");
  result_t r = run_cli("eval", arm, "--frame", "3", "--get", "elbow.rz", "--get", "wrist.worldMatrix[0]", NULL);
  assert_status(&r, 0);
  double v[20];
  assert_int_equal(parse_numbers(r.out, v, 20), 17);
  assert_true(fabs(v[0] - 30) < 1e-9);
  assert_true(fabs(v[13] - (4 + 4 * cos(PI / 6))) < 1e-9 && fabs(v[14] - 4 * sin(PI / 6)) < 1e-9);
  result_free(&r);

  r = run_cli("info", arm, NULL);
  assert_status(&r, 0);
  assert_contains(r.out, "armSkin: geometry armGeoShape; influences 3; maxInfluences 2; at most 2 weights");
  assert_contains(r.out, "armGeoShapeOrig: ");
  assert_int_equal(type_count(r.out, "expression"), 1);
  result_free(&r);

  const char *out = tmp_path("arm_out");
  r = run_cli("run", arm, "--frames", "1:3", "--out", out, NULL);
  assert_status(&r, 0);
  assert_contains(r.out, "3 frames, 1 mesh, 42 vertices per frame, 3 files");
  result_free(&r);
  assert_int_equal(count_entries(out), 3);
  char path[600];
  float tip_y[4] = {0};
  for (int frame = 1; frame <= 3; frame++) {
    snprintf(path, sizeof path, "%s/armGeoShape.%04d.obj", out, frame);
    sinew_data_t *written = read_obj(path);
    sinew_data_t *expected = session_mesh(arm, false, frame, "armGeoShape.worldMesh[0]");
    assert_same_points(written, expected);
    const sinew_mesh_t *m = sinew_mesh_get(written);
    float best_x = -1e30f;
    for (uint32_t k = 0; k < m->npoints; k++)
      if (m->points[3 * k] > best_x) best_x = m->points[3 * k], tip_y[frame] = m->points[3 * k + 1];
    sinew_data_unref(expected);
    sinew_data_unref(written);
  }
  assert_true(tip_y[1] < tip_y[2] && tip_y[2] < tip_y[3]); /* the forearm rises as the elbow bends */
}

/* ---- eval ----------------------------------------------------------------------------------- */

static void test_eval_values(void **state) {
  const char *rig = write_tmp("rig.mel", rig_mel);
  result_t r = run_cli("eval", rig, "--frame", "24", "--get", "bone.rz", "--get", "box.t", "--get",
                       "bone.worldMatrix[0]", "--get", "bone.note", "--get", "skin.wl[3].w", NULL);
  assert_status(&r, 0);
  assert_contains(r.err, "rig built"); /* eval keeps stdout for values */
  char *lines[8] = {0};
  size_t n = 0;
  for (char *p = r.out, *nl; n < 8 && (nl = strchr(p, '\n')); p = nl + 1) {
    *nl = 0;
    lines[n++] = p;
  }
  assert_int_equal(n, 5);
  /* Frame 24 at film rate is one second: 0.5 radians, printed in degrees. */
  double v[32];
  assert_int_equal(parse_numbers(lines[0], v, 32), 1);
  assert_true(fabs(v[0] - 0.5 * 180 / PI) < 1e-9);
  assert_string_equal(lines[1], "3 0 0");
  assert_int_equal(parse_numbers(lines[2], v, 32), 16);
  assert_true(fabs(v[0] - cos(0.5)) < 1e-12 && fabs(v[1] - sin(0.5)) < 1e-12);
  assert_true(v[12] == 0 && v[13] == 1 && v[14] == 0 && v[15] == 1);
  assert_string_equal(lines[3], "elbow, left");
  assert_string_equal(lines[4], "1");
  result_free(&r);

  /* The scene's units: a script in millimetres and radians reads back in them. */
  const char *mm = write_tmp("mm.mel",
                             "currentUnit -l millimeter -a radian;\n"
                             "createNode transform -n \"t\";\n"
                             "setAttr \"t.translateX\" 30;\n"
                             "setAttr \"t.rotateY\" 0.25;\n"
                             "currentUnit -l centimeter -a degree;\n"
                             "print (`getAttr t.tx` + \"\\n\");\n"
                             "currentUnit -l millimeter -a radian;\n");
  r = run_cli("eval", mm, "--get", "t.tx", "--get", "t.ry", NULL);
  assert_status(&r, 0);
  assert_string_equal(r.out, "30\n0.25\n");
  assert_contains(r.err, "3\n"); /* stored as 3 cm */
  result_free(&r);

  /* A mesh prints its points; they match what run writes. */
  const char *out = tmp_path("eval_run");
  r = run_cli("run", rig, "--frames", "12", "--out", out, "-q", NULL);
  assert_status(&r, 0);
  assert_string_equal(r.out, "rig built\n"); /* -q: no summary */
  result_free(&r);
  char path[600];
  snprintf(path, sizeof path, "%s/boxShape.0012.obj", out);
  sinew_data_t *written = read_obj(path);
  r = run_cli("eval", rig, "--frame", "12", "--get", "boxShape.worldMesh[0]", NULL);
  assert_status(&r, 0);
  assert_int_equal(parse_numbers(r.out, v, 32), 24);
  const sinew_mesh_t *m = sinew_mesh_get(written);
  for (int k = 0; k < 24; k++) assert_true((float)v[k] == m->points[k]);
  sinew_data_unref(written);
  result_free(&r);
}

static void test_eval_errors(void **state) {
  const char *rig = write_tmp("rig.mel", rig_mel);
  result_t r = run_cli("eval", rig, "--get", "bone.noSuchAttr", NULL);
  assert_status(&r, 1);
  assert_contains(r.err, "bone.noSuchAttr");
  assert_string_equal(r.out, "");
  result_free(&r);
  r = run_cli("eval", rig, "--get", "bone.message", NULL);
  assert_status(&r, 1);
  assert_contains(r.err, "bone.message");
  result_free(&r);
  r = run_cli("eval", rig, NULL);
  assert_status(&r, 2);
  assert_contains(r.err, "--get");
  result_free(&r);
  r = run_cli("eval", rig, "--get", NULL);
  assert_status(&r, 2);
  assert_contains(r.err, "--get needs a value");
  result_free(&r);
  r = run_cli("eval", rig, "--get", "bone.rz", "--frame", "soon", NULL);
  assert_status(&r, 2);
  assert_contains(r.err, "--frame 'soon'");
  result_free(&r);
}

/* ---- info and dot --------------------------------------------------------------------------- */

/* A file's playback range (its sceneConfigurationScriptNode, as Maya writes it): run without
 * --frames writes its frames, info prints it; a script's playbackOptions does the same. */
static void test_playback_range(void **state) {
  (void)state;
  const char *ma = write_tmp("range.ma",
                             "//Maya ASCII 2020 scene\n"
                             "requires maya \"2020\";\n"
                             "currentUnit -l centimeter -a degree -t film;\n"
                             "createNode transform -n \"box\";\n"
                             "createNode mesh -n \"boxShape\" -p \"box\";\n"
                             "createNode polyCube -n \"polyCube1\";\n"
                             "createNode script -n \"sceneConfigurationScriptNode\";\n"
                             "\tsetAttr \".b\" -type \"string\" \"playbackOptions -min 3 -max 6 -ast 1 -aet 10 \";\n"
                             "\tsetAttr \".st\" 6;\n"
                             "connectAttr \"polyCube1.out\" \"boxShape.i\";\n");
  const char *out = tmp_path("range_out");
  result_t r = run_cli("run", ma, "--out", out, NULL);
  assert_status(&r, 0);
  assert_int_equal(count_entries(out), 4);
  for (int f = 3; f <= 6; f++) {
    char name[64];
    snprintf(name, sizeof name, "range_out/boxShape.%04d.obj", f);
    assert_true(exists(tmp_path(name)));
  }
  assert_contains(r.out, "4 frames, 1 mesh, 8 vertices per frame, 4 files");
  result_free(&r);
  /* --frames still wins */
  const char *out2 = tmp_path("range_out2");
  r = run_cli("run", ma, "--frames", "8", "--out", out2, NULL);
  assert_status(&r, 0);
  assert_int_equal(count_entries(out2), 1);
  result_free(&r);
  r = run_cli("info", ma, NULL);
  assert_status(&r, 0);
  assert_contains(r.out, "playback range: 3 to 6 (animation range 1 to 10)\n");
  result_free(&r);
  const char *mel = write_tmp("range.mel", "polyCube -n box; playbackOptions -min 2 -max 3;");
  const char *out3 = tmp_path("range_out3");
  r = run_cli("run", mel, "--out", out3, NULL);
  assert_status(&r, 0);
  assert_int_equal(count_entries(out3), 2);
  result_free(&r);
  /* no range: the current frame only, and info says nothing of a range */
  const char *plain = write_tmp("plain.mel", "polyCube -n box;");
  r = run_cli("info", plain, NULL);
  assert_status(&r, 0);
  assert_null(strstr(r.out, "playback range"));
  result_free(&r);
}

static void test_info(void **state) {
  const char *rig = write_tmp("rig.mel", rig_mel);
  result_t r = run_cli("info", rig, NULL);
  assert_status(&r, 0);
  assert_contains(r.out, "units: centimeter, degree, film (24 fps)");
  assert_contains(r.out, "nodes: 7\n");
  assert_int_equal(type_count(r.out, "joint"), 1);
  assert_int_equal(type_count(r.out, "mesh"), 1);
  assert_int_equal(type_count(r.out, "skinCluster"), 1);
  assert_int_equal(type_count(r.out, "unitConversion"), 1);
  assert_int_equal(type_count(r.out, "polyCube"), 1);
  assert_contains(r.out, "connections: 5 (and 1 DAG parent links)");
  assert_contains(r.out, "  skin: geometry boxShape; influences 1; maxInfluences 2; at most 1 weights on a vertex; 8 vertices weighted");
  assert_contains(r.out, "  boxShape: 8 vertices, 6 faces\n");
  assert_contains(r.out, "placeholder types: 0\n");
  result_free(&r);

  r = run_cli("info", SKIN_TRUTH "dual_quaternion.ma", NULL);
  assert_status(&r, 0);
  assert_contains(r.out, "skinCluster1: geometry skinnedShape; influences 2; maxInfluences 5; "
                         "at most 2 weights on a vertex; 44 vertices weighted");
  assert_contains(r.out, "  skinnedShape: 44 vertices, 42 faces\n");
  assert_contains(r.out, "  skinnedShapeOrig: 44 vertices, 42 faces (intermediate object)\n");
  result_free(&r);

  /* What a file holds that sinew does not model is listed, with a warning on stderr. */
  const char *ph = write_tmp("ph.ma",
                             "//Maya ASCII 2020 scene\n"
                             "requires maya \"2020\";\n"
                             "createNode transform -n \"loc\";\n"
                             "createNode fancyNode -n \"f1\";\n"
                             "\tsetAttr \".foo\" 3;\n"
                             "connectAttr \"loc.tx\" \"f1.bar\";\n");
  r = run_cli("info", ph, NULL);
  assert_status(&r, 0);
  assert_contains(r.out, "placeholder types: 1: fancyNode\n");
  assert_int_equal(type_count(r.out, "fancyNode"), 1);
  assert_contains(r.err, "warning: ");
  assert_contains(r.err, "fancyNode");
  result_free(&r);
  r = run_cli("info", "-q", ph, NULL);
  assert_status(&r, 0);
  assert_string_equal(r.err, "");
  result_free(&r);
}

static void test_dot(void **state) {
  const char *rig = write_tmp("rig.mel", rig_mel);
  result_t r = run_cli("dot", rig, NULL);
  assert_status(&r, 0);
  assert_true(strncmp(r.out, "digraph", 7) == 0);
  const char *names[] = {"bone", "timeToAngle", "box", "boxShape", "cubeMaker", "skin", "time1"};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) assert_contains(r.out, names[k]);
  assert_contains(r.out, "->");
  assert_true(strstr(r.out, "rig built") == NULL); /* print output stays off the DOT text */
  assert_contains(r.err, "rig built");
  result_free(&r);
}

/* ---- errors --------------------------------------------------------------------------------- */

static void test_script_errors(void **state) {
  const char *missing = tmp_path("missing.mel");
  result_t r = run_cli("run", missing, "--out", tmp_path("err_out"), NULL);
  assert_status(&r, 1);
  assert_contains(r.err, missing);
  assert_contains(r.err, "No such file");
  result_free(&r);
  assert_false(exists(tmp_path("err_out")));

  const char *syn = write_tmp("syn.mel", "createNode transform -n \"a\";\nsetAttr \"a.tx\" (1;\n");
  r = run_cli("info", syn, NULL);
  assert_status(&r, 1);
  char where[600];
  snprintf(where, sizeof where, "%s:2:", syn);
  assert_contains(r.err, where);
  assert_string_equal(r.out, "");
  result_free(&r);

  const char *bad = write_tmp("bad.mel",
                              "createNode transform -n \"a\";\nsetAttr \"a.tx\" 1;\nsetAttr \"a.foo\" 2;\n");
  r = run_cli("run", bad, "--out", tmp_path("err_out"), NULL);
  assert_status(&r, 1);
  snprintf(where, sizeof where, "%s:3: setAttr: ", bad);
  assert_contains(r.err, where);
  assert_contains(r.err, "foo");
  result_free(&r);

  /* An output directory that cannot be made. */
  const char *plain = write_tmp("plain.txt", "not a directory\n");
  char below[600];
  snprintf(below, sizeof below, "%s/frames", plain);
  r = run_cli("run", write_tmp("rig.mel", rig_mel), "--out", below, NULL);
  assert_status(&r, 1);
  assert_contains(r.err, "sinew run: --out ");
  assert_contains(r.err, "Not a directory");
  result_free(&r);

  /* A scene whose current frame cannot name a file: run without --frames says so. */
  r = run_cli("run", write_tmp("far.mel", "currentTime 1e300; polyCube;\n"), "--out", tmp_path("far_out"), NULL);
  assert_status(&r, 1);
  assert_contains(r.err, "sinew run: the scene's current frame (1e+300) is out of range: give --frames");
  result_free(&r);

  /* A failing command in a .ma file is skipped with an error message; --strict fails the load. */
  const char *ma = write_tmp("failing.ma",
                             "//Maya ASCII 2020 scene\n"
                             "createNode transform -n \"loc\";\n"
                             "parent \"loc\" \"nowhere\";\n");
  r = run_cli("info", ma, NULL);
  assert_status(&r, 0);
  assert_contains(r.err, "failing.ma:3: parent");
  assert_contains(r.out, "1 failed");
  result_free(&r);
  r = run_cli("info", "--strict", ma, NULL);
  assert_status(&r, 1);
  assert_contains(r.err, "failing.ma:3: parent");
  assert_string_equal(r.out, "");
  result_free(&r);
}

static void test_usage_errors(void **state) {
  const char *rig = write_tmp("rig.mel", rig_mel);
  const char *out = tmp_path("usage_out");
  static const struct {
    const char *a, *b, *c, *d; /* arguments after "run FILE --out DIR" */
    const char *message;
  } cases[] = {
      {"--frames", "5:1", NULL, NULL, "--frames '5:1': the range is empty"},
      {"--frames", "a:b", NULL, NULL, "--frames 'a:b'"},
      {"--frames", "1:", NULL, NULL, "--frames '1:'"},
      {"--frames", "1.5:3", NULL, NULL, "--frames '1.5:3'"},
      {"--frames", NULL, NULL, NULL, "--frames needs a value"},
      {"--step", "0", NULL, NULL, "--step '0'"},
      {"--format", "fbx", NULL, NULL, "--format 'fbx'"},
      {"--space", "camera", NULL, NULL, "--space 'camera'"},
      {"--bogus", NULL, NULL, NULL, "unknown option '--bogus'"},
      {"extra.mel", NULL, NULL, NULL, "one FILE only"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    result_t r = run_cli("run", rig, "--out", out, cases[k].a, cases[k].b, cases[k].c, cases[k].d, NULL);
    assert_status(&r, 2);
    assert_contains(r.err, "sinew run: ");
    assert_contains(r.err, cases[k].message);
    assert_contains(r.err, "sinew run --help");
    assert_string_equal(r.out, ""); /* nothing ran */
    result_free(&r);
    assert_false(exists(out));
  }
  result_t r = run_cli("run", "--frames", "1:2", NULL);
  assert_status(&r, 2);
  assert_contains(r.err, "missing FILE");
  result_free(&r);
  r = run_cli("render", rig, NULL);
  assert_status(&r, 2);
  assert_contains(r.err, "unknown command 'render'");
  result_free(&r);
  r = run_cli(NULL);
  assert_status(&r, 2);
  assert_contains(r.err, "missing command");
  result_free(&r);
  r = run_cli("info", rig, "--frames", "1:2", NULL);
  assert_status(&r, 2);
  assert_contains(r.err, "sinew info: unknown option '--frames'");
  result_free(&r);
  r = run_cli("dot", NULL);
  assert_status(&r, 2);
  assert_contains(r.err, "sinew dot: missing FILE");
  result_free(&r);
}

/* --timeout: a script that loops for ever, an expression in a scene that does, and a bake of
 * more frames than the time allows all stop, with the line or frame named and exit 124; a bad
 * value is a usage error. */
static void test_timeout(void **state) {
  (void)state;
  const char *loop = write_tmp("loop.mel", "createNode transform -n a;\nint $i = 0;\nwhile (1) $i++;\n");
  result_t r = run_cli("info", "--timeout", "0.3", loop, NULL);
  assert_status(&r, 124);
  assert_contains(r.err, "loop.mel:3:");
  assert_contains(r.err, "sinew info: stopped by --timeout (0.3 s)");
  result_free(&r);
  /* the same in a .ma file read in keep-going mode: the read stops, it is not skipped */
  const char *ma = write_tmp("loop.ma", "createNode transform -n \"a\";\nwhile (1) ;\ncreateNode transform -n \"b\";\n");
  r = run_cli("eval", "--timeout=0.3", ma, "--get", "a.tx", NULL);
  assert_status(&r, 124);
  assert_contains(r.err, "loop.ma:2:");
  assert_string_equal(r.out, "");
  result_free(&r);
  /* a bake: every file written is complete, the frame it stopped at is named */
  const char *out = tmp_path("timeout_out");
  r = run_cli("run", "--timeout", "0.4", "--frames", "1:1000000", "--out", out, SINEW_SOURCE_DIR "/scripts/example_rig.mel",
              NULL);
  assert_status(&r, 124);
  assert_contains(r.err, "sinew run: stopped by --timeout (0.4 s) at frame ");
  int files = count_entries(out);
  assert_true(files > 0);
  DIR *d = opendir(out);
  assert_non_null(d);
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') {
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) fail_msg("temporary file left: %s", e->d_name);
      continue;
    }
    char path[512];
    snprintf(path, sizeof path, "%s/%s", out, e->d_name);
    sinew_data_t *m = read_obj(path);
    sinew_data_unref(m);
  }
  closedir(d);
  result_free(&r);
  /* an expression looping for ever is stopped by its own budget: no timeout needed */
  const char *spin = write_tmp("spin.ma", "createNode transform -n \"a\";\ncreateNode expression -n \"spin\";\n"
                                          "\tsetAttr \".ixp\" -type \"string\" \"while (1) { .O[0] = 1; }\";\n"
                                          "connectAttr \"spin.out[0]\" \"a.tx\";\n");
  r = run_cli("eval", spin, "--get", "a.tx", NULL);
  assert_status(&r, 0);
  assert_contains(r.err, "spin: line 1: stopped: over the limit of 10000000 steps");
  result_free(&r);
  /* a script that finishes in time is not affected */
  r = run_cli("eval", "--timeout", "30", SINEW_SOURCE_DIR "/scripts/example_rig.mel", "--get", "elbow.rz", NULL);
  assert_status(&r, 0);
  result_free(&r);
  const char *bad[] = {"0", "-1", "abc", "nan", "1e99"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    r = run_cli("info", "--timeout", bad[k], loop, NULL);
    assert_status(&r, 2);
    assert_contains(r.err, "--timeout");
    result_free(&r);
  }
  r = run_cli("info", loop, "--timeout", NULL);
  assert_status(&r, 2);
  result_free(&r);
}

/* SIGINT while a script loops: it stops at the line it had reached, exit 130. */
static void test_interrupt_while_loading(void **state) {
  (void)state;
  const char *loop = write_tmp("loop2.mel", "int $i = 0;\nwhile (1) $i++;\n");
  const char *argv[] = {SINEW_CLI_PATH, "info", loop, NULL};
  const char *out_path = tmp_path("int_out.txt"), *err_path = tmp_path("int_err.txt");
  posix_spawn_file_actions_t fa;
  assert_int_equal(posix_spawn_file_actions_init(&fa), 0);
  assert_int_equal(posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644), 0);
  assert_int_equal(posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644), 0);
  pid_t pid;
  fflush(NULL);
  assert_int_equal(posix_spawn(&pid, SINEW_CLI_PATH, &fa, NULL, (char *const *)argv, environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  /* wait until the script runs (the handler is installed before it starts), then interrupt */
  nanosleep(&(struct timespec){0, 300 * 1000 * 1000}, NULL);
  assert_int_equal(kill(pid, SIGINT), 0);
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0) assert_int_equal(errno, EINTR);
  assert_true(WIFEXITED(wstatus));
  assert_int_equal(WEXITSTATUS(wstatus), 130);
  char *err = slurp(err_path);
  assert_contains(err, "loop2.mel:2: interrupted");
  assert_contains(err, "sinew info: stopped by SIGINT");
  free(err);
}

/* A placeholder's values read back as MEL's getAttr reads them: those kept as text, and an
 * attribute addAttr gave it (which is a real attribute, set and read as on any node). */
static void test_eval_placeholder_values(void **state) {
  (void)state;
  const char *ma = write_tmp("ph.ma", "createNode someStudioNode -n \"md\";\n\tsetAttr \".i1\" -type \"float3\" 1 2 3;\n"
                                      "\tsetAttr \".op\" 2;\n\taddAttr -ci true -ln \"myVal\" -at \"double\";\n"
                                      "\tsetAttr \".myVal\" 5;\n\tsetAttr \".str\" -type \"string\" \"hello\";\n");
  result_t r = run_cli("eval", "-q", ma, "--get", "md.myVal", "--get", "md.op", "--get", "md.i1", "--get", "md.str", NULL);
  assert_status(&r, 0);
  assert_string_equal(r.out, "5\n2\n1 2 3\nhello\n");
  result_free(&r);
  r = run_cli("eval", "-q", ma, "--get", "md.nope", NULL);
  assert_status(&r, 1);
  assert_contains(r.err, "md.nope: md (a someStudioNode) has no attribute 'nope'");
  result_free(&r);
}

/* ---- placeholders are never silent ---------------------------------------------------------- */

/* Joints and meshes behind node types sinew does not evaluate (mGear plug-in node names). root
 * is driven by a mgear_springNode (tx) and a mgear_mulMatrix (ry), so knee, its child, depends
 * on both through the DAG; elbow's scale and rotation come from four mgear_mulMatrix nodes;
 * free depends on nothing.
 * box is moved by a mgear_springNode, ball by nothing; boxOrig is an intermediate object. */
static const char frozen_ma[] =
    "//Maya ASCII 2020 scene\n"
    "requires maya \"2020\";\n"
    "createNode transform -n \"ctrl\";\n"
    "createNode joint -n \"root\";\n"
    "\tsetAttr \".t\" -type \"double3\" 1 2 3;\n"
    "createNode joint -n \"knee\" -p \"root\";\n"
    "createNode joint -n \"elbow\";\n"
    "createNode joint -n \"free\";\n"
    "\tsetAttr \".t\" -type \"double3\" 5 0 0;\n"
    "createNode mgear_springNode -n \"root_pc\" -p \"root\";\n"
    "createNode mgear_mulMatrix -n \"md1\";\n"
    "\tsetAttr \".op\" 2;\n"
    "createNode mgear_mulMatrix -n \"md2\";\n"
    "createNode mgear_mulMatrix -n \"md3\";\n"
    "createNode mgear_mulMatrix -n \"md4\";\n"
    "createNode mgear_mulMatrix -n \"md5\";\n"
    "createNode transform -n \"box\";\n"
    "createNode mesh -n \"boxShape\" -p \"box\";\n"
    "createNode mesh -n \"boxOrig\" -p \"box\";\n"
    "\tsetAttr \".io\" yes;\n"
    "createNode mgear_springNode -n \"box_pc\" -p \"box\";\n"
    "createNode transform -n \"ball\";\n"
    "createNode mesh -n \"ballShape\" -p \"ball\";\n"
    "createNode polyCube -n \"cubeMaker\";\n"
    "createNode polyCube -n \"ballMaker\";\n"
    "connectAttr \"ctrl.t\" \"root_pc.tg[0].tt\";\n"
    "connectAttr \"root_pc.ctx\" \"root.tx\";\n"
    "connectAttr \"md1.ox\" \"root.ry\";\n"
    "connectAttr \"md2.ox\" \"elbow.sx\";\n"
    "connectAttr \"md3.ox\" \"elbow.sy\";\n"
    "connectAttr \"md4.ox\" \"elbow.sz\";\n"
    "connectAttr \"md5.ox\" \"elbow.rx\";\n"
    "connectAttr \"cubeMaker.output\" \"boxShape.inMesh\";\n"
    "connectAttr \"cubeMaker.output\" \"boxOrig.inMesh\";\n"
    "connectAttr \"box_pc.ctx\" \"box.tx\";\n"
    "connectAttr \"ballMaker.output\" \"ballShape.inMesh\";\n";

/* How many times part occurs in text. */
static int occurrences(const char *text, const char *part) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, part)); p += strlen(part)) n++;
  return n;
}

static void test_eval_warns_about_placeholders(void **state) {
  (void)state;
  const char *ma = write_tmp("frozen.ma", frozen_ma);
  /* knee.wm depends on root_pc and md1 (through root's world matrix), root.tx on root_pc,
   * elbow.sx on md2, free.tx on nothing: each type is named once, with the plugs it freezes */
  result_t r = run_cli("eval", ma, "--get", "knee.worldMatrix[0]", "--get", "root.tx", "--get", "elbow.sx",
                       "--get", "free.tx", NULL);
  assert_status(&r, 0);
  assert_contains(r.out, "\n1\n1\n5\n"); /* root.tx and elbow.sx as stored (tx 1, sx default 1) */
  assert_contains(r.err, "sinew eval: warning: 2 of the 4 plugs read depend on mgear_mulMatrix nodes (2: md1, md2), "
                         "which sinew does not evaluate: what they feed stays as the file stored it\n");
  assert_contains(r.err, "sinew eval: warning: 2 of the 4 plugs read depend on mgear_springNode nodes (1: root_pc), "
                         "which sinew does not evaluate: what it feeds stays as the file stored it\n");
  assert_int_equal(occurrences(r.err, "mgear_mulMatrix nodes"), 1);
  assert_int_equal(occurrences(r.err, "mgear_springNode nodes"), 1);
  /* the types freezing most plugs come first: mgear_mulMatrix before mgear_springNode (a tie,
   * then by name) */
  assert_true(strstr(r.err, "mgear_mulMatrix nodes") < strstr(r.err, "mgear_springNode nodes"));
  result_free(&r);
  /* four nodes of one type behind one plug, all two steps away: three named (ties in node
   * order), the rest counted */
  r = run_cli("eval", ma, "--get", "elbow.worldMatrix[0]", NULL);
  assert_status(&r, 0);
  assert_contains(r.err, "1 of the 1 plugs read depends on mgear_mulMatrix nodes (4: md2, md3, md4, +1 more), ");
  result_free(&r);
  /* a value a placeholder keeps as text is its own */
  r = run_cli("eval", ma, "--get", "md1.op", NULL);
  assert_status(&r, 0);
  assert_string_equal(r.out, "2\n");
  assert_contains(r.err, "1 of the 1 plugs read depends on mgear_mulMatrix nodes (1: md1), ");
  result_free(&r);
  /* nothing behind a placeholder: no warning */
  r = run_cli("eval", ma, "--get", "free.worldMatrix[0]", "--get", "ball.tx", NULL);
  assert_status(&r, 0);
  assert_null(strstr(r.err, "does not evaluate"));
  result_free(&r);
  /* -q: no warning */
  r = run_cli("eval", "-q", ma, "--get", "root.tx", NULL);
  assert_status(&r, 0);
  assert_string_equal(r.out, "1\n");
  assert_string_equal(r.err, "");
  result_free(&r);
  /* --strict: an error, exit 1, and no value printed (not even the ones that are right) */
  r = run_cli("eval", "--strict", ma, "--get", "free.tx", "--get", "knee.worldMatrix[0]", "--get", "root.tx",
              "--get", "elbow.sx", NULL);
  assert_status(&r, 1);
  assert_string_equal(r.out, "");
  assert_contains(r.err, "sinew eval: error: 2 of the 4 plugs read depend on mgear_mulMatrix nodes (2: md1, md2), ");
  assert_contains(r.err, "sinew eval: error: 2 of the 4 plugs read depend on mgear_springNode nodes (1: root_pc), ");
  assert_contains(r.err, "sinew eval: --strict: 3 of the 4 plugs read would not be evaluated; nothing was printed\n");
  result_free(&r);
  /* --strict with -q still fails, and still says why */
  r = run_cli("eval", "--strict", "-q", ma, "--get", "root.tx", NULL);
  assert_status(&r, 1);
  assert_contains(r.err, "--strict: 1 of the 1 plugs read would not be evaluated");
  result_free(&r);
  /* --strict on plugs that depend on nothing is no error */
  r = run_cli("eval", "--strict", ma, "--get", "free.tx", NULL);
  assert_status(&r, 0);
  assert_string_equal(r.out, "5\n");
  result_free(&r);
}

static void test_run_warns_about_placeholders(void **state) {
  (void)state;
  const char *ma = write_tmp("frozen.ma", frozen_ma);
  const char *out = tmp_path("frozen_out");
  result_t r = run_cli("run", ma, "--frames", "1:2", "--out", out, NULL);
  assert_status(&r, 0);
  /* boxShape (moved by box_pc) and ballShape are written; boxOrig is an intermediate object */
  assert_contains(r.err, "sinew run: warning: 1 of the 2 meshes written depends on mgear_springNode nodes "
                         "(1: box_pc), which sinew does not evaluate: what it feeds stays as the file stored it\n");
  assert_int_equal(occurrences(r.err, "does not evaluate"), 1);
  assert_int_equal(count_entries(out), 4);
  result_free(&r);
  r = run_cli("run", "-q", ma, "--frames", "1", "--out", out, NULL);
  assert_status(&r, 0);
  assert_string_equal(r.err, "");
  result_free(&r);
  /* --strict: nothing is written, not even the directory */
  const char *strict_out = tmp_path("frozen_strict");
  r = run_cli("run", "--strict", ma, "--frames", "1:2", "--out", strict_out, NULL);
  assert_status(&r, 1);
  assert_contains(r.err, "sinew run: error: 1 of the 2 meshes written depends on mgear_springNode nodes (1: box_pc), ");
  assert_contains(r.err, "sinew run: --strict: 1 of the 2 meshes written would not be evaluated; nothing was written\n");
  assert_false(exists(strict_out));
  result_free(&r);
  /* --space object writes outMesh, which the transform's constraint does not reach */
  r = run_cli("run", "--strict", ma, "--frames", "1", "--space", "object", "--out", strict_out, NULL);
  assert_status(&r, 0);
  assert_int_equal(count_entries(strict_out), 2);
  result_free(&r);
}

static void test_info_placeholder_share(void **state) {
  (void)state;
  const char *ma = write_tmp("frozen.ma", frozen_ma);
  result_t r = run_cli("info", "-q", ma, NULL);
  assert_status(&r, 0);
  /* joints: root (root_pc, md1), knee (both, through root), elbow (md2..md5) of 4; free is not
   * frozen: 3 of 4 = 75.0%; mgear_mulMatrix freezes 3 joints, mgear_springNode 2 */
  assert_contains(r.out, "joints depending on placeholders: 3 of 4 (75.0%): mgear_mulMatrix 3, mgear_springNode 2\n");
  /* meshes: boxShape of boxShape and ballShape (boxOrig is an intermediate object): 50.0% */
  assert_contains(r.out, "meshes depending on placeholders: 1 of 2 (50.0%): mgear_springNode 1\n");
  result_free(&r);
  /* a scene with no joints and nothing frozen */
  const char *plain = write_tmp("plain.mel", "polyCube -n box;");
  r = run_cli("info", plain, NULL);
  assert_status(&r, 0);
  assert_contains(r.out, "joints depending on placeholders: 0 of 0\n");
  assert_contains(r.out, "meshes depending on placeholders: 0 of 1 (0.0%)\n");
  result_free(&r);
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_help_and_version),
      cmocka_unit_test(test_run_mel_writes_frames),
      cmocka_unit_test(test_run_on_the_pool),
      cmocka_unit_test(test_run_file_names),
      cmocka_unit_test(test_run_object_space_matches_maya),
      cmocka_unit_test(test_run_progress_on_terminal),
      cmocka_unit_test(test_rig_commands),
      cmocka_unit_test(test_eval_values),
      cmocka_unit_test(test_eval_errors),
      cmocka_unit_test(test_info),
      cmocka_unit_test(test_playback_range),
      cmocka_unit_test(test_dot),
      cmocka_unit_test(test_script_errors),
      cmocka_unit_test(test_usage_errors),
      cmocka_unit_test(test_timeout),
      cmocka_unit_test(test_eval_placeholder_values),
      cmocka_unit_test(test_interrupt_while_loading),
      cmocka_unit_test(test_eval_warns_about_placeholders),
      cmocka_unit_test(test_run_warns_about_placeholders),
      cmocka_unit_test(test_info_placeholder_share),
  };
  return cmocka_run_group_tests_name("cli", tests, setup, teardown);
}
