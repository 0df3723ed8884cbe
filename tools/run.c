/* tools/run.c: `sinew run`: evaluates a range of frames and writes every visible mesh, deformed
 * and in world space, as one OBJ file per mesh and frame (docs/cli.md). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/cli.h"

static const char run_help[] =
    "usage: sinew run [OPTIONS] FILE\n"
    "\n"
    "Loads FILE (a .mel script is run in a new scene, a .ma file is opened), then for each\n"
    "frame sets the scene time and writes every mesh shape that is not an intermediate object\n"
    "as DIR/<mesh>.<frame>.obj (frame padded to 4 digits: pCubeShape1.0012.obj).\n"
    "\n"
    "options:\n"
    "  --frames A:B    frames A to B, whole numbers, both included (also --frames A);\n"
    "                  default: the scene's playback range (playbackOptions -min / -max, which\n"
    "                  a Maya file keeps in its sceneConfigurationScriptNode), else the\n"
    "                  current frame only, time left as it is\n"
    "  --step N        every Nth frame from A (a whole number >= 1; default 1)\n"
    "  --out DIR       where the files go, created if missing (default: .)\n"
    "  --format obj    the file format (obj is the only one)\n"
    "  --space S       world: points in world space, the shape's worldMesh[0] (default);\n"
    "                  object: points in the shape's own space, its outMesh\n"
    "  -q, -v, --strict, -h   as for every command (sinew --help)\n"
    "\n"
    "A mesh whose points depend on nodes of a type sinew does not evaluate (placeholders)\n"
    "is written from the values the file stored there; a warning names each such type\n"
    "once with how many meshes it freezes. With --strict that is an error (exit 1) and\n"
    "nothing is written.\n"
    "\n"
    "A progress bar goes to stderr when it is a terminal; a summary line to stdout at the\n"
    "end. The script's print output goes to stdout.\n"
    "\n"
    "Each file is written to a temporary file beside it and renamed into place when\n"
    "complete, so a file is never left half written. SIGINT or SIGTERM stops the run\n"
    "between files (exit 130 or 143), naming the frame it stopped at.\n";

typedef struct run_opts {
  cli_common_t common;
  bool has_frames;
  long first, last, step;
  const char *out_dir;
  bool object_space;
  bool progress;   /* a progress bar is on stderr's current line */
} run_opts_t;

/* What write_mesh reports besides CLI_OK and CLI_FAIL: a stop came (SIGINT, SIGTERM,
 * --timeout: cli_stop), the file was not written. */
#define RUN_STOPPED (-1)

/* One mesh to write: its node and the file name stem. */
typedef struct run_mesh {
  sinew_node_t node;
  char *stem;
} run_mesh_t;

/* ---- arguments ------------------------------------------------------------------------------ */

static bool parse_long(const char *text, long *out) {
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (end == text || *end || errno) return false;
  *out = v;
  return true;
}

/* "A:B" or "A": whole frame numbers, A <= B, with room for the padded name. */
static int parse_frames(run_opts_t *o, const char *text) {
  const char *colon = strchr(text, ':');
  char first[64];
  size_t n = colon ? (size_t)(colon - text) : strlen(text);
  if (n >= sizeof first) n = sizeof first - 1;
  memcpy(first, text, n);
  first[n] = 0;
  if (!parse_long(first, &o->first) || !parse_long(colon ? colon + 1 : first, &o->last))
    return cli_usage_error(&o->common, "--frames '%s': expected A:B with whole frame numbers", text);
  if (o->first > o->last)
    return cli_usage_error(&o->common, "--frames '%s': the range is empty (%ld > %ld)", text,
                           o->first, o->last);
  if (o->first < -9999999 || o->last > 99999999)
    return cli_usage_error(&o->common, "--frames '%s': frame numbers out of range", text);
  o->has_frames = true;
  return CLI_OK;
}

static int parse_run_args(run_opts_t *o, int argc, char **argv) {
  *o = (run_opts_t){.common = {.sub = "run", .print_to = stdout}, .step = 1, .out_dir = "."};
  if (cli_wants_help(argc, argv)) {
    fputs(run_help, stdout);
    return -1;
  }
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *v;
    cli_arg_t kind = cli_parse_common(&o->common, argc, argv, &i);
    if (kind == CLI_ARG_ERROR) return CLI_USAGE;
    if (kind == CLI_ARG_TAKEN) continue;
    if (cli_option_value(&o->common, argc, argv, &i, "--frames", NULL, &v)) {
      int rc = v ? parse_frames(o, v) : CLI_USAGE;
      if (rc) return rc;
    } else if (cli_option_value(&o->common, argc, argv, &i, "--step", NULL, &v)) {
      if (!v) return CLI_USAGE;
      if (!parse_long(v, &o->step) || o->step < 1)
        return cli_usage_error(&o->common, "--step '%s': expected a whole number >= 1", v);
    } else if (cli_option_value(&o->common, argc, argv, &i, "--out", "-o", &v)) {
      if (!v) return CLI_USAGE;
      if (!v[0]) return cli_usage_error(&o->common, "--out: empty directory name");
      o->out_dir = v;
    } else if (cli_option_value(&o->common, argc, argv, &i, "--format", NULL, &v)) {
      if (!v) return CLI_USAGE;
      if (strcmp(v, "obj"))
        return cli_usage_error(&o->common, "--format '%s': unknown format (obj is the only one)", v);
    } else if (cli_option_value(&o->common, argc, argv, &i, "--space", NULL, &v)) {
      if (!v) return CLI_USAGE;
      if (strcmp(v, "world") && strcmp(v, "object"))
        return cli_usage_error(&o->common, "--space '%s': expected world or object", v);
      o->object_space = !strcmp(v, "object");
    } else {
      return cli_usage_error(&o->common, "unknown option '%s'", arg);
    }
  }
  if (!o->common.file) return cli_usage_error(&o->common, "missing FILE (a .mel script or a .ma file)");
  return CLI_OK;
}

/* ---- output --------------------------------------------------------------------------------- */

/* "sinew run: ..." on stderr, on a line of its own even while the progress bar is drawn. */
static void run_error(const run_opts_t *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void run_error(const run_opts_t *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs(o->progress ? "\r\033[Ksinew run: " : "sinew run: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

/* mkdir -p. */
static int make_dirs(const char *path) {
  size_t n = strlen(path);
  char *buf = malloc(n + 1);
  if (!buf) return ENOMEM;
  memcpy(buf, path, n + 1);
  int err = 0;
  for (size_t k = 1; k <= n && !err; k++) {
    if (buf[k] != '/' && buf[k] != 0) continue;
    char saved = buf[k];
    buf[k] = 0;
    struct stat st;
    if (mkdir(buf, 0777) && errno != EEXIST) err = errno;
    else if (stat(buf, &st)) err = errno;
    else if (!S_ISDIR(st.st_mode)) err = ENOTDIR;
    buf[k] = saved;
  }
  free(buf);
  return err;
}

static bool is_intermediate(sinew_graph_t *g, sinew_node_t node) {
  sinew_plug_t p;
  bool io = false;
  if (sinew_plug_parse_attr(g, node, "intermediateObject", &p) == SINEW_OK) sinew_get_bool(g, &p, &io);
  return io;
}

/* A mesh's file stem: its name, or, when another written mesh has the same short name, its
 * DAG path without the leading '|' and with '|' made '_' ("armL_geoShape"). */
static char *mesh_stem(sinew_graph_t *g, const run_mesh_t *all, size_t n, sinew_node_t node) {
  const char *name = sinew_node_name(g, node);
  bool shared = false;
  for (size_t k = 0; k < n && !shared; k++)
    shared = (all[k].node.index != node.index || all[k].node.gen != node.gen) &&
             !strcmp(sinew_node_name(g, all[k].node), name);
  char *path = shared ? sinew_node_path(g, node) : NULL;
  const char *src = path ? path + (path[0] == '|') : name;
  char *stem = malloc(strlen(src) + 1);
  if (stem) {
    size_t k = 0;
    for (; src[k]; k++) stem[k] = src[k] == '|' ? '_' : src[k];
    stem[k] = 0;
  }
  sinew_free(path);
  return stem;
}

/* The meshes to write: every mesh node that is not an intermediate object, in creation order. */
static int collect_meshes(sinew_graph_t *g, run_mesh_t **out, size_t *out_n) {
  size_t total = sinew_node_list_type(g, "mesh", false, NULL, 0);
  sinew_node_t *nodes = malloc((total ? total : 1) * sizeof *nodes);
  run_mesh_t *meshes = calloc(total ? total : 1, sizeof *meshes);
  if (!nodes || !meshes) {
    free(nodes);
    free(meshes);
    return ENOMEM;
  }
  sinew_node_list_type(g, "mesh", false, nodes, total);
  size_t n = 0;
  for (size_t k = 0; k < total; k++)
    if (!is_intermediate(g, nodes[k])) meshes[n++].node = nodes[k];
  free(nodes);
  for (size_t k = 0; k < n; k++) {
    if (!(meshes[k].stem = mesh_stem(g, meshes, n, meshes[k].node))) {
      for (size_t j = 0; j < k; j++) free(meshes[j].stem);
      free(meshes);
      return ENOMEM;
    }
  }
  *out = meshes;
  *out_n = n;
  return 0;
}

static void free_meshes(run_mesh_t *meshes, size_t n) {
  for (size_t k = 0; k < n; k++) free(meshes[k].stem);
  free(meshes);
}

/* Evaluates one mesh and writes DIR/<stem>.<frame>.obj into the batch (in place when the batch
 * is committed); counts the file and its points, and the seconds spent writing. */
static int write_mesh(run_opts_t *o, sinew_graph_t *g, const run_mesh_t *m, long frame, sinew_afile_batch_t *batch,
                      size_t *points, size_t *files, double *write_seconds) {
  const char *plug_name = o->object_space ? "outMesh" : "worldMesh[0]";
  const char *name = sinew_node_name(g, m->node);
  sinew_plug_t p;
  sinew_data_t *data = NULL;
  int rc = sinew_plug_parse_attr(g, m->node, plug_name, &p);
  if (!rc) rc = sinew_get_data(g, &p, &data);
  if (rc && cli_stop) { /* the evaluation was interrupted: nothing is written */
    sinew_data_unref(data);
    return RUN_STOPPED;
  }
  if (rc) {
    run_error(o, "%s.%s: %s", name, plug_name, sinew_graph_errmsg(g));
    return CLI_FAIL;
  }
  const sinew_mesh_t *mesh = data ? sinew_mesh_get(data) : NULL;
  if (!mesh) {
    /* A mesh shape with no geometry (nothing connected, nothing stored): nothing to write. */
    sinew_data_unref(data);
    return CLI_OK;
  }
  size_t len = strlen(o->out_dir) + strlen(m->stem) + 32;
  char *path = malloc(len);
  if (!path) {
    sinew_data_unref(data);
    run_error(o, "out of memory");
    return CLI_FAIL;
  }
  snprintf(path, len, "%s/%s.%04ld.obj", o->out_dir, m->stem, frame);
  /* written to a temporary file and renamed into place when complete (sinew/io.h) */
  double t0 = cli_now();
  char why[1024];
  sinew_afile_t *af = NULL;
  int status = CLI_OK;
  if (sinew_afile_open(path, &af, why, sizeof why)) {
    run_error(o, "%s", why);
    status = CLI_FAIL;
  } else {
    FILE *f = sinew_afile_stream(af);
    fprintf(f, "# sinew %s: %s.%s at frame %ld (%s space, centimetres)\no %s\n",
            o->common.file, name, plug_name, frame, o->object_space ? "object" : "world", m->stem);
    rc = sinew_mesh_write_obj(data, f);
    if (rc) {
      if (sinew_afile_abort(af, why, sizeof why) == SINEW_OK)
        snprintf(why, sizeof why, "%s: %s", path,
                 rc == SINEW_ERANGE ? "the deformed mesh has points that are not finite numbers (NaN or "
                                      "infinite); nothing was written"
                                    : sinew_strerror(rc));
      run_error(o, "%s", why);
      status = CLI_FAIL;
    } else if (cli_stop) {
      sinew_afile_abort(af, NULL, 0); /* stopped while this file was written: it is not kept */
      status = RUN_STOPPED;
    } else if (sinew_afile_commit_later(af, batch, why, sizeof why)) {
      run_error(o, "%s", why);
      status = CLI_FAIL;
    }
  }
  *write_seconds += cli_now() - t0;
  *points += mesh->npoints;
  *files += status == CLI_OK;
  free(path);
  sinew_data_unref(data);
  return status;
}

/* Puts the batch's files in place (one disk flush); the seconds it takes count as writing. */
static int commit_batch(run_opts_t *o, sinew_afile_batch_t *batch, double *write_seconds) {
  char why[1024];
  double t0 = cli_now();
  int rc = sinew_afile_batch_commit(batch, why, sizeof why);
  *write_seconds += cli_now() - t0;
  if (rc) run_error(o, "%s", why);
  return rc;
}

/* ---- progress ------------------------------------------------------------------------------- */

static void show_progress(long done, long total, long frame) {
  enum { WIDTH = 30 };
  int filled = total ? (int)(done * WIDTH / total) : WIDTH;
  char bar[WIDTH + 1];
  for (int k = 0; k < WIDTH; k++) bar[k] = k < filled ? '#' : '.';
  bar[WIDTH] = 0;
  fprintf(stderr, "\r[%s] %3ld%%  frame %ld (%ld/%ld)", bar, total ? done * 100 / total : 100,
          frame, done, total);
  fflush(stderr);
}

static void clear_progress(void) {
  fputs("\r\033[K", stderr);
  fflush(stderr);
}

/* ---- the subcommand ------------------------------------------------------------------------- */

static int run_frames(run_opts_t *o, sinew_session_t *s, double load_seconds) {
  sinew_graph_t *g = sinew_session_graph(s);
  run_mesh_t *meshes = NULL;
  size_t nmeshes = 0;
  if (collect_meshes(g, &meshes, &nmeshes)) {
    run_error(o, "out of memory");
    return CLI_FAIL;
  }
  /* meshes that depend on node types sinew does not evaluate: warned about once per type, or
   * with --strict an error before anything is written */
  cli_frozen_t frozen = {0};
  int status = CLI_OK;
  for (size_t k = 0; k < nmeshes && !status; k++) {
    sinew_plug_t p;
    if (sinew_plug_parse_attr(g, meshes[k].node, o->object_space ? "outMesh" : "worldMesh[0]", &p) == SINEW_OK &&
        cli_frozen_add(&frozen, g, &p)) {
      run_error(o, "out of memory");
      status = CLI_FAIL;
    }
  }
  if (!status) status = cli_frozen_report(&o->common, &frozen, g, nmeshes == 1 ? "mesh written" : "meshes written");
  cli_frozen_free(&frozen);
  if (status) {
    free_meshes(meshes, nmeshes);
    return status;
  }
  /* the meshes' plugs, brought up to date together each frame: independent meshes (their
   * skinClusters) evaluate at once on the worker pool, with the values serial evaluation gives */
  sinew_plug_t *plugs = calloc(nmeshes ? nmeshes : 1, sizeof *plugs);
  size_t nplugs = 0;
  for (size_t k = 0; plugs && k < nmeshes; k++)
    if (sinew_plug_parse_attr(g, meshes[k].node, o->object_space ? "outMesh" : "worldMesh[0]", &plugs[nplugs]) ==
        SINEW_OK)
      nplugs++;
  if (!plugs) {
    run_error(o, "out of memory");
    free_meshes(meshes, nmeshes);
    return CLI_FAIL;
  }
  int err = make_dirs(o->out_dir);
  if (err) {
    free(plugs);
    run_error(o, "--out %s: %s", o->out_dir, strerror(err));
    free_meshes(meshes, nmeshes);
    return CLI_FAIL;
  }
  double range[4];
  if (!o->has_frames && sinew_session_playback_range(s, range)) {
    /* the scene's playback range (playbackOptions -min / -max), its whole frames */
    double a = ceil(range[0] - 1e-9), b = floor(range[1] + 1e-9);
    if (!(a >= -9999999 && b <= 99999999) || a > b) {
      run_error(o, "the scene's playback range (%g to %g) holds no frame sinew can write: give --frames", range[0],
                range[1]);
      free(plugs);
      free_meshes(meshes, nmeshes);
      return CLI_FAIL;
    }
    o->first = (long)a, o->last = (long)b;
    o->has_frames = true;
  }
  if (!o->has_frames) { /* the scene's current frame, within the limits --frames has */
    double now = 0;
    sinew_time_get_frame(g, &now);
    if (!(now >= -9999999.5 && now <= 99999999.5)) {
      run_error(o, "the scene's current frame (%g) is out of range: give --frames", now);
      free(plugs);
      free_meshes(meshes, nmeshes);
      return CLI_FAIL;
    }
    o->first = o->last = (long)(now < 0 ? now - 0.5 : now + 0.5);
  }
  long total = (o->last - o->first) / o->step + 1, done = 0;
  bool progress = o->progress = !o->common.quiet && isatty(STDERR_FILENO);
  double start = cli_now();
  size_t points = 0, written = 0, files = 0;
  long frame = o->first, last_done = o->first;
  /* Files go through a batch: written and checked one by one, put in place together with one
   * flush of the disk (sinew/io.h) every BATCH_FILES files or BATCH_SECONDS, instead of two
   * fsyncs a file; the files written before a stop or a failure are complete and put in place
   * too. */
  enum { BATCH_FILES = 256 };
  const double BATCH_SECONDS = 1.0;
  sinew_afile_batch_t *batch = NULL;
  if (sinew_afile_batch_create(&batch)) {
    run_error(o, "out of memory");
    free(plugs);
    free_meshes(meshes, nmeshes);
    return CLI_FAIL;
  }
  double write_seconds = 0, last_commit = start;
  /* Evaluating on the pool costs a hand-off each frame (0.1-0.2 ms measured here, more on a
   * busy machine), more than a small rig's whole frame: 480 frames of the example rig evaluate
   * in 13-27 ms pulled one mesh after the other, 74-121 ms on the pool. So a frame is evaluated
   * on the pool only when the one before took PARALLEL_UP or more to evaluate (PARALLEL_DOWN
   * once on the pool, so that the choice does not flip each frame); otherwise each mesh is
   * pulled as it is written. Either way the points are the same, bit for bit. */
  double parallel_up = 2e-3, parallel_down = 1e-3;
  const char *env = getenv("SINEW_RUN_PARALLEL_MS"); /* tuning and tests: 0 = every frame */
  char *env_end = NULL;
  double env_ms = env && *env ? strtod(env, &env_end) : -1;
  if (env_end && !*env_end && env_ms >= 0 && env_ms <= 1e6) parallel_up = parallel_down = env_ms * 1e-3;
  bool parallel = nplugs > 1 && parallel_up == 0;
  long pooled = 0;
  /* SIGINT, SIGTERM and --timeout (cli_stop) stop the run between files; the file being written
   * is discarded */
  if (progress) show_progress(0, total, o->first);
  for (; !status; frame += o->step) {
    points = written = 0;
    if (cli_stop) {
      status = RUN_STOPPED;
      break;
    }
    if (o->has_frames && sinew_time_set_frame(g, (double)frame)) {
      run_error(o, "frame %ld: %s", frame, sinew_graph_errmsg(g));
      status = CLI_FAIL;
    }
    /* a failure here is reported by the mesh's own read below, which tries again */
    double frame_start = cli_now(), written_before = write_seconds;
    if (!status && parallel) (void)sinew_evaluate_parallel(g, plugs, nplugs), pooled++;
    for (size_t k = 0; k < nmeshes && !status; k++)
      status = cli_stop ? RUN_STOPPED
                        : write_mesh(o, g, &meshes[k], frame, batch, &points, &written, &write_seconds);
    double evaluating = cli_now() - frame_start - (write_seconds - written_before);
    parallel = nplugs > 1 && evaluating >= (parallel ? parallel_down : parallel_up);
    files += written;
    if (status) break;
    if (sinew_afile_batch_count(batch) >= BATCH_FILES || cli_now() - last_commit >= BATCH_SECONDS) {
      if (commit_batch(o, batch, &write_seconds)) {
        status = CLI_FAIL;
        break;
      }
      last_commit = cli_now();
    }
    done++;
    last_done = frame;
    if (progress) show_progress(done, total, frame);
    if (o->last - frame < o->step) break; /* the next step would pass B (or overflow) */
  }
  /* the files written so far are complete: in place after a stop or a failure too */
  if (commit_batch(o, batch, &write_seconds) && status != RUN_STOPPED) status = CLI_FAIL;
  sinew_afile_batch_destroy(batch);
  if (progress) clear_progress();
  free(plugs);
  double seconds = cli_now() - start;
  if (status == RUN_STOPPED) {
    char complete[128] = "no frame is complete";
    if (done == 1) snprintf(complete, sizeof complete, "frame %ld is complete", last_done);
    else if (done > 1)
      snprintf(complete, sizeof complete, "%ld frames are complete (%ld to %ld)", done, o->first, last_done);
    fprintf(stderr, "sinew run: stopped by %s at frame %ld: %s in %s; frame %ld: %zu of %zu files written\n",
            cli_stop_name(&o->common), frame, complete, o->out_dir, frame, written, nmeshes);
    status = cli_stop_status();
  } else if (!status && !o->common.quiet) {
    printf("%ld frame%s, %zu mesh%s, %zu vertices per frame, %zu files in %s; %.3f s (load %.3f s, "
           "writing %.0f%%)\n",
           done, done == 1 ? "" : "s", written, written == 1 ? "" : "es", points, files, o->out_dir, seconds,
           load_seconds, seconds > 0 ? 100 * write_seconds / seconds : 0);
    if (o->common.verbose)
      printf("%ld of %ld frame%s evaluated on the worker pool\n", pooled, done, done == 1 ? "" : "s");
  }
  free_meshes(meshes, nmeshes);
  return status;
}

int cli_run(int argc, char **argv) {
  run_opts_t o;
  int rc = parse_run_args(&o, argc, argv);
  if (rc) return rc < 0 ? CLI_OK : rc;
  double start = cli_now();
  sinew_session_t *s;
  if ((rc = cli_load(&o.common, &s))) return rc;
  rc = run_frames(&o, s, cli_now() - start);
  cli_unload(&o.common, s);
  return rc;
}
