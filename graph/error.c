/* graph/error.c: status code names and messages, the per-graph last error, and logging. */
#include <stdio.h>
#include <string.h>

#include "graph/internal.h"

const char *sinew_err_name(int status) {
  switch (status) {
    case SINEW_OK: return "SINEW_OK";
#define XX(name, code, msg) case code: return "SINEW_E" #name;
    SINEW_ERRNO_MAP(XX)
#undef XX
    default: return "SINEW_UNKNOWN";
  }
}

const char *sinew_strerror(int status) {
  switch (status) {
    case SINEW_OK: return "success";
#define XX(name, code, msg) case code: return msg;
    SINEW_ERRNO_MAP(XX)
#undef XX
    default: return "unknown error";
  }
}

const char *sinew_log_id_name(sinew_log_id_t id) {
  static const char *names[] = {
#define XX(name, text) #name,
      SINEW_LOG_ID_MAP(XX)
#undef XX
  };
  if ((unsigned)id >= SINEW_LOG_ID_MAX) return "UNKNOWN";
  return names[id];
}

size_t sinew_error_format(const sinew_error_t *e, char *buf, size_t size) {
  if (!e) return 0;
  char where[400] = "";
  if (e->file[0] && e->line && e->column)
    snprintf(where, sizeof where, "%s:%u:%u: ", e->file, e->line, e->column);
  else if (e->file[0] && e->line)
    snprintf(where, sizeof where, "%s:%u: ", e->file, e->line);
  else if (e->file[0])
    snprintf(where, sizeof where, "%s: ", e->file);
  else if (e->line && e->column)
    snprintf(where, sizeof where, "line %u, column %u: ", e->line, e->column);
  else if (e->line)
    snprintf(where, sizeof where, "line %u: ", e->line);
  int n = snprintf(buf, size, "%s%s%s%s%s", e->trace, where, e->op, e->op[0] ? ": " : "", e->reason);
  return n < 0 ? 0 : (size_t)n;
}

int sinew__errorv(sinew_graph_t *g, int status, const char *op, const char *fmt, va_list ap) {
  if (!g) return status;
  sinew__par_lock(g);
  sinew_error_t *e = &g->err;
  e->code = status;
  snprintf(e->op, sizeof e->op, "%s", op ? op : "");
  e->node[0] = e->plug[0] = e->file[0] = e->trace[0] = 0;
  e->line = e->column = 0;
  vsnprintf(e->reason, sizeof e->reason, fmt, ap);
  sinew_error_format(e, g->errmsg, sizeof g->errmsg);
  sinew__par_unlock(g);
  return status;
}

int sinew_graph_set_error(sinew_graph_t *g, int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sinew__errorv(g, status, NULL, fmt, ap);
  va_end(ap);
  return status;
}

int sinew_graph_fail(sinew_graph_t *g, int status, const char *op, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sinew__errorv(g, status, op, fmt, ap);
  va_end(ap);
  return status;
}

void sinew_graph_error_subject(sinew_graph_t *g, const char *node, const char *plug) {
  if (!g) return;
  sinew__par_lock(g);
  if (node) snprintf(g->err.node, sizeof g->err.node, "%s", node);
  if (plug) snprintf(g->err.plug, sizeof g->err.plug, "%s", plug);
  sinew__par_unlock(g);
}

void sinew__error_plug(sinew_graph_t *g, const sinew_plug_t *p) {
  if (!g || !p || !sinew__node_get(g, p->node)) return;
  char buf[sizeof g->err.plug];
  sinew_graph_error_subject(g, sinew_node_name(g, p->node), sinew__plug_str(g, p, buf, sizeof buf));
}

const sinew_error_t *sinew_graph_error(const sinew_graph_t *g) {
  static const sinew_error_t none = {0};
  return g ? &g->err : &none;
}

int sinew_graph_errcode(const sinew_graph_t *g) { return g ? g->err.code : SINEW_EINVAL; }

const char *sinew_graph_errmsg(const sinew_graph_t *g) {
  if (!g) return "no graph";
  return g->err.code ? g->errmsg : "no error";
}

void sinew_graph_set_logger(sinew_graph_t *g, sinew_log_fn fn, void *ud) {
  if (!g) return;
  g->logger = fn;
  g->logger_data = ud;
}

void sinew_log(sinew_graph_t *g, sinew_log_level_t level, sinew_log_id_t id, const char *fmt,
               ...) {
  if (!g || !g->logger) return;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  sinew__par_lock(g);
  g->logger(g->logger_data, level, id, msg);
  sinew__par_unlock(g);
}
