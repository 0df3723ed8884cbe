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

int sinew__errorv(sinew_graph_t *g, int status, const char *fmt, va_list ap) {
  if (!g) return status;
  sinew__par_lock(g);
  g->errcode = status;
  vsnprintf(g->errmsg, sizeof g->errmsg, fmt, ap);
  sinew__par_unlock(g);
  return status;
}

int sinew_graph_set_error(sinew_graph_t *g, int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sinew__errorv(g, status, fmt, ap);
  va_end(ap);
  return status;
}

int sinew_graph_errcode(const sinew_graph_t *g) { return g ? g->errcode : SINEW_EINVAL; }

const char *sinew_graph_errmsg(const sinew_graph_t *g) {
  if (!g) return "no graph";
  return g->errcode ? g->errmsg : "no error";
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
