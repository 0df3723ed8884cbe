/* tools/cli.h: what the sinew command's files share: exit codes, the options every subcommand
 * takes, loading a scene into a session, and the argument helpers. The tool uses only the
 * public API (include/sinew/). */
#ifndef SINEW_TOOLS_CLI_H
#define SINEW_TOOLS_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "sinew/sinew.h"
#include "sinew/cmds.h"

/* Exit statuses (docs/cli.md). */
enum {
  CLI_OK = 0,    /* success */
  CLI_FAIL = 1,  /* the script or file failed, or an output could not be written */
  CLI_USAGE = 2  /* the command line was wrong */
};
/* A command stopped by a signal (SIGINT, SIGTERM) exits 128 + the signal's number, as a shell
 * reports a command the signal ended: 130 for SIGINT, 143 for SIGTERM; one stopped by --timeout
 * exits 124, as timeout(1) does. */
#define CLI_TIMEOUT 124

/* Options every subcommand takes, and the state the logger keeps. */
typedef struct cli_common {
  const char *sub;    /* the subcommand's name, for messages */
  const char *file;   /* FILE */
  bool quiet;         /* -q: no warnings, no progress, no summary */
  bool verbose;       /* -v: every warning, and informational messages */
  bool strict;        /* --strict: a failing command in a .ma file fails the load, and a value
                         that depends on a placeholder fails eval and run */
  double timeout;     /* --timeout SECONDS: the whole command's time limit; 0 = none */
  FILE *print_to;     /* where the script's print output goes */
  unsigned warnings;  /* warnings and skipped-command errors logged so far */
  unsigned shown;     /* of those, how many were printed */
} cli_common_t;

/* What parse_common made of one argument. */
typedef enum cli_arg {
  CLI_ARG_TAKEN,   /* a common option or FILE, consumed */
  CLI_ARG_OTHER,   /* not a common one: the subcommand's own */
  CLI_ARG_ERROR    /* a usage error, already reported */
} cli_arg_t;

/* Looks at argv[*i]: a common option (-q, -v, --strict) or FILE (the first word that is not an
 * option). */
cli_arg_t cli_parse_common(cli_common_t *c, int argc, char **argv, int *i);
/* For options that take a value: "--name VALUE" or "--name=VALUE" at argv[*i]. Returns true
 * when argv[*i] is that option; *value is NULL (and the error reported) when it is missing. */
bool cli_option_value(cli_common_t *c, int argc, char **argv, int *i, const char *name,
                      const char *short_name, const char **value);
bool cli_is_help(const char *arg);
/* True when -h or --help is anywhere among the subcommand's arguments (it wins over the rest). */
bool cli_wants_help(int argc, char **argv);
/* Reports a usage error ("sinew run: ...", then a pointer to --help) and returns CLI_USAGE. */
int cli_usage_error(const cli_common_t *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Checks that FILE was given (CLI_USAGE otherwise), creates a session and loads FILE into it:
 * a .ma file is opened (file -open), anything else is run as a MEL script. On failure the
 * session's message ("rig.mel:12: setAttr: ...") goes to stderr, *out is NULL and CLI_FAIL is
 * returned. */
int cli_load(cli_common_t *c, sinew_session_t **out);
/* Destroys the session and tells how many warnings were not shown. */
void cli_unload(cli_common_t *c, sinew_session_t *session);

/* Stopping. From cli_load to cli_unload, SIGINT and SIGTERM, and --timeout (a SIGALRM timer
 * armed when loading starts), stop the command gracefully: the handler records what stopped it
 * in cli_stop and interrupts the running script (sinew_lang_interrupt) and the compute running
 * in the watched graph (sinew_graph_interrupt); the commands look at cli_stop between steps.
 * --timeout also limits the script's run (sinew_lang_set_limits), so a script stopped by it
 * names its line. */
#include <signal.h>
extern volatile sig_atomic_t cli_stop; /* 0, or SIGINT / SIGTERM / SIGALRM (--timeout) */
/* The graph whose computes a stop interrupts: the scene being evaluated (NULL: none). */
void cli_watch_graph(sinew_graph_t *graph);
/* "SIGINT", "SIGTERM", or "--timeout (5 s)". */
const char *cli_stop_name(const cli_common_t *c);
/* The exit status of a stopped command: 128 + the signal, or CLI_TIMEOUT. */
int cli_stop_status(void);
/* rc, or the stop's status (with a message on stderr) when a stop came. */
int cli_check_stop(const cli_common_t *c, int rc);

/* Seconds from a monotonic clock. */
double cli_now(void);

/* Plugs that depend on placeholders (nodes of types sinew does not evaluate, which freeze what
 * they feed), counted per placeholder type (tools/frozen.c). Zero-initialise; free with
 * cli_frozen_free. */
typedef struct cli_frozen_type {
  const sinew_node_type_t *type;
  size_t plugs;         /* plugs counted that depend on nodes of this type */
  sinew_node_t *nodes;  /* those nodes, each once */
  size_t nnodes;
  unsigned long mark;   /* the last plug counted for this type */
} cli_frozen_type_t;

typedef struct cli_frozen {
  size_t plugs;         /* plugs counted */
  size_t frozen;        /* of those, how many depend on a placeholder */
  cli_frozen_type_t *types;
  size_t ntypes;
  unsigned long mark;
} cli_frozen_t;

/* Counts a plug (sinew_plug_placeholders); -1 on failure (out of memory, a bad plug). */
int cli_frozen_add(cli_frozen_t *f, sinew_graph_t *g, const sinew_plug_t *plug);
/* Counts a value read from a node without a plug (a value kept as text): frozen when the node
 * is a placeholder. */
int cli_frozen_add_node(cli_frozen_t *f, sinew_graph_t *g, sinew_node_t node);
/* Sorts the types: most plugs first, then by name. */
void cli_frozen_sort(cli_frozen_t *f);
/* One line per placeholder type on stderr: a warning (none with -q), or with --strict an error
 * and a closing line, returning CLI_FAIL. `what` names the plugs ("plugs read"). */
int cli_frozen_report(const cli_common_t *c, cli_frozen_t *f, sinew_graph_t *g, const char *what);
void cli_frozen_free(cli_frozen_t *f);

/* The subcommands: argv[0] is the subcommand's name. Each returns an exit status. */
int cli_run(int argc, char **argv);
int cli_eval(int argc, char **argv);
int cli_info(int argc, char **argv);
int cli_dot(int argc, char **argv);

#endif
