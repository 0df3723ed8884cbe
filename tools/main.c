/* tools/main.c: the sinew command: subcommand dispatch, --help and --version, the options every
 * subcommand shares, and loading FILE into a session (docs/cli.md). */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>

#include "tools/cli.h"

#ifndef SINEW_VERSION
#define SINEW_VERSION "unknown"
#endif

/* Warnings shown before the rest are only counted (-v shows them all). */
#define CLI_WARNINGS_SHOWN 10

static const char usage_text[] =
    "usage: sinew [--help] [--version] COMMAND [OPTIONS] FILE\n"
    "\n"
    "Evaluates Maya-style rigs: FILE is a MEL script (.mel, run in a new scene) or a\n"
    "Maya ASCII file (.ma, opened).\n"
    "\n"
    "commands:\n"
    "  run    evaluate frames and write each visible mesh as OBJ files\n"
    "  eval   print attribute values\n"
    "  info   summarise the scene: nodes, connections, skinClusters, meshes\n"
    "  dot    print the dependency graph in Graphviz DOT form\n"
    "\n"
    "options for every command:\n"
    "  -q, --quiet    no warnings, progress or summary\n"
    "  -v, --verbose  every warning and informational message\n"
    "  --strict       a command that fails in a .ma file fails the load, and eval\n"
    "                 and run fail when a value they read depends on a node type\n"
    "                 sinew does not evaluate (a placeholder)\n"
    "  --timeout SECONDS  stop the command after this long (exit 124); the\n"
    "                 script's message names the line it had reached\n"
    "  -h, --help     help for the command\n"
    "\n"
    "exit status: 0 success, 1 script or file error, 2 usage error, 124 stopped by\n"
    "--timeout, 130/143 stopped by SIGINT/SIGTERM.\n"
    "'sinew COMMAND --help' describes each command.\n";

static const struct {
  const char *name;
  int (*fn)(int argc, char **argv);
} subcommands[] = {{"run", cli_run}, {"eval", cli_eval}, {"info", cli_info}, {"dot", cli_dot}};

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "sinew: missing command\n%s", usage_text);
    return CLI_USAGE;
  }
  const char *cmd = argv[1];
  if (cli_is_help(cmd)) {
    fputs(usage_text, stdout);
    return CLI_OK;
  }
  if (!strcmp(cmd, "--version")) {
    printf("sinew %s\n", SINEW_VERSION);
    return CLI_OK;
  }
  for (size_t k = 0; k < sizeof subcommands / sizeof subcommands[0]; k++)
    if (!strcmp(cmd, subcommands[k].name)) return subcommands[k].fn(argc - 1, argv + 1);
  if (cmd[0] == '-')
    fprintf(stderr, "sinew: unknown option '%s'\n", cmd);
  else
    fprintf(stderr, "sinew: unknown command '%s' (commands: run, eval, info, dot)\n", cmd);
  fprintf(stderr, "Try 'sinew --help'.\n");
  return CLI_USAGE;
}

/* ---- arguments ------------------------------------------------------------------------------ */

bool cli_is_help(const char *arg) { return !strcmp(arg, "-h") || !strcmp(arg, "--help"); }

bool cli_wants_help(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (cli_is_help(argv[i])) return true;
  return false;
}

int cli_usage_error(const cli_common_t *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "sinew %s: ", c->sub);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nTry 'sinew %s --help'.\n", c->sub);
  return CLI_USAGE;
}

bool cli_option_value(cli_common_t *c, int argc, char **argv, int *i, const char *name,
                      const char *short_name, const char **value) {
  const char *arg = argv[*i];
  size_t n = strlen(name);
  if (!strncmp(arg, name, n) && arg[n] == '=') {
    *value = arg + n + 1;
    return true;
  }
  if (strcmp(arg, name) && !(short_name && !strcmp(arg, short_name))) return false;
  if (*i + 1 >= argc) {
    cli_usage_error(c, "%s needs a value", arg);
    *value = NULL;
    return true;
  }
  *value = argv[++*i];
  return true;
}

cli_arg_t cli_parse_common(cli_common_t *c, int argc, char **argv, int *i) {
  const char *arg = argv[*i];
  if (!strcmp(arg, "-q") || !strcmp(arg, "--quiet")) {
    c->quiet = true;
  } else if (!strcmp(arg, "-v") || !strcmp(arg, "--verbose")) {
    c->verbose = true;
  } else if (!strcmp(arg, "--strict")) {
    c->strict = true;
  } else if (!strncmp(arg, "--timeout", 9) && (arg[9] == 0 || arg[9] == '=')) {
    const char *v;
    cli_option_value(c, argc, argv, i, "--timeout", NULL, &v);
    if (!v) return CLI_ARG_ERROR;
    char *end;
    double t = strtod(v, &end);
    if (end == v || *end || !(t > 0) || t > 1e9) {
      cli_usage_error(c, "--timeout '%s': give a number of seconds above 0", v);
      return CLI_ARG_ERROR;
    }
    c->timeout = t;
  } else if (arg[0] == '-' && arg[1] != 0) {
    return CLI_ARG_OTHER;
  } else if (c->file) {
    cli_usage_error(c, "one FILE only (got '%s' and '%s')", c->file, arg);
    return CLI_ARG_ERROR;
  } else {
    c->file = arg;
  }
  return CLI_ARG_TAKEN;
}

/* ---- the session ---------------------------------------------------------------------------- */

static void on_log(void *user_data, sinew_log_level_t level, sinew_log_id_t id, const char *message) {
  cli_common_t *c = user_data;
  if (id == SINEW_LOG_SCRIPT_PRINT) return; /* on_print has it */
  if (level < SINEW_LOG_WARNING) {
    if (c->verbose) fprintf(stderr, "info: %s\n", message);
    return;
  }
  c->warnings++;
  if (c->quiet || (!c->verbose && c->shown >= CLI_WARNINGS_SHOWN)) return;
  c->shown++;
  fprintf(stderr, "%s: %s\n", level == SINEW_LOG_ERROR ? "error" : "warning", message);
}

static void on_print(void *user_data, const char *text) {
  cli_common_t *c = user_data;
  fputs(text, c->print_to ? c->print_to : stdout);
}

static bool is_ma(const char *path) {
  size_t n = strlen(path);
  return n >= 3 && !strcasecmp(path + n - 3, ".ma");
}

/* ---- stopping ------------------------------------------------------------------------------- */

volatile sig_atomic_t cli_stop;
static sinew_lang_t *volatile stop_lang;
static sinew_graph_t *volatile stop_graph;
static struct sigaction old_int, old_term, old_alrm;

/* Async-signal-safe: stores, and two lock-free atomic stores in the library. */
static void on_stop(int sig) {
  if (!cli_stop) cli_stop = sig;
  sinew_lang_t *l = stop_lang;
  sinew_graph_t *g = stop_graph;
  if (l) sinew_lang_interrupt(l);
  if (g) sinew_graph_interrupt(g);
}

void cli_watch_graph(sinew_graph_t *g) { stop_graph = g; }

const char *cli_stop_name(const cli_common_t *c) {
  static char buf[64];
  if (cli_stop == SIGALRM) {
    char t[40];
    sinew_format_double(c->timeout, t, sizeof t);
    snprintf(buf, sizeof buf, "--timeout (%s s)", t);
    return buf;
  }
  return cli_stop == SIGTERM ? "SIGTERM" : "SIGINT";
}

int cli_stop_status(void) { return cli_stop == SIGALRM ? CLI_TIMEOUT : 128 + cli_stop; }

int cli_check_stop(const cli_common_t *c, int rc) {
  if (!cli_stop) return rc;
  fprintf(stderr, "sinew %s: stopped by %s\n", c->sub, cli_stop_name(c));
  return cli_stop_status();
}

static void stop_handlers_install(cli_common_t *c, sinew_session_t *s) {
  cli_stop = 0;
  stop_lang = sinew_session_lang(s);
  stop_graph = NULL;
  struct sigaction sa = {.sa_handler = on_stop, .sa_flags = SA_RESTART};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  sigaction(SIGALRM, &sa, &old_alrm);
  if (c->timeout > 0) {
    double whole = floor(c->timeout);
    struct itimerval it = {.it_value = {.tv_sec = (time_t)whole,
                                        .tv_usec = (suseconds_t)((c->timeout - whole) * 1e6)}};
    if (!it.it_value.tv_sec && !it.it_value.tv_usec) it.it_value.tv_usec = 1;
    setitimer(ITIMER_REAL, &it, NULL);
    sinew_lang_limits_t lim = {.max_seconds = c->timeout};
    sinew_lang_set_limits(sinew_session_lang(s), &lim);
  }
}

static void stop_handlers_remove(void) {
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  sigaction(SIGALRM, &old_alrm, NULL);
  stop_lang = NULL;
  stop_graph = NULL;
}

int cli_load(cli_common_t *c, sinew_session_t **out) {
  *out = NULL;
  if (!c->file) return cli_usage_error(c, "missing FILE (a .mel script or a .ma file)");
  sinew_session_desc_t desc = {.logger = on_log,
                               .logger_data = c,
                               .print = on_print,
                               .print_data = c,
                               .strict = c->strict};
  /* FILE is opened once, by the session, which reads it whole before parsing: opening it here
   * first to check it would consume a named pipe's writer (the second open then waits for ever) */
  sinew_session_t *s;
  int rc = sinew_session_create(&desc, &s);
  if (rc) {
    fprintf(stderr, "sinew %s: cannot create a session: %s\n", c->sub, sinew_strerror(rc));
    return CLI_FAIL;
  }
  stop_handlers_install(c, s);
  rc = is_ma(c->file) ? sinew_session_open(s, c->file) : sinew_session_run_file(s, c->file, NULL);
  if (rc) {
    const char *msg = sinew_session_errmsg(s);
    fprintf(stderr, "%s\n", msg && msg[0] ? msg : sinew_strerror(rc));
    /* the script's own time limit (the same as --timeout) may stop it before the timer does */
    if (!cli_stop && rc == SINEW_ELIMIT && c->timeout > 0) cli_stop = SIGALRM;
    int status = (rc == SINEW_EINTERRUPTED || rc == SINEW_ELIMIT) ? cli_check_stop(c, CLI_FAIL) : CLI_FAIL;
    cli_unload(c, s);
    return status;
  }
  cli_watch_graph(sinew_session_graph(s));
  *out = s;
  return CLI_OK;
}

void cli_unload(cli_common_t *c, sinew_session_t *s) {
  stop_handlers_remove();
  sinew_session_destroy(s);
  if (!c->quiet && c->warnings > c->shown)
    fprintf(stderr, "sinew %s: %u more warnings not shown (-v shows them all)\n", c->sub,
            c->warnings - c->shown);
  c->warnings = c->shown = 0;
}

/* ---- small helpers -------------------------------------------------------------------------- */

double cli_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
