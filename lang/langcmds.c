/* lang/langcmds.c: the commands the language provides itself, registered in every context by
 * sinew_lang_create (docs/lang.md, "Language commands"): source, error, warning, whatIs,
 * about, optionVar; the environment a script sees (putenv's variables over the process's);
 * finding scripts beside the running one and in MAYA_SCRIPT_PATH; and the names of Maya's UI
 * commands, which fail with a message saying so. Everything goes through the public command
 * API except the context's tables (procedures, globals), which are the language's own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/lang_internal.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- named values: optionVar and putenv ---------------------------------------------------- */

static void vars_free(lang_var **table) {
  lang_var *v, *tmp;
  HASH_ITER(hh, *table, v, tmp) {
    HASH_DEL(*table, v);
    lv_release(&v->v);
    sinew_free(v->name);
    sinew_free(v);
  }
}

void sinew__lang_vars_free(sinew_lang_t *L) {
  vars_free(&L->optvars);
  vars_free(&L->envvars);
}

static lang_var *var_find(lang_var *table, const char *name) {
  lang_var *v = NULL;
  HASH_FIND_STR(table, name, v);
  return v;
}

/* The entry for name, made (holding NONE) when missing; NULL on out-of-memory. */
static lang_var *var_get(lang_var **table, const char *name) {
  lang_var *v = var_find(*table, name);
  if (v) return v;
  v = sinew_calloc(1, sizeof *v);
  size_t n = strlen(name);
  char *nm = sinew_malloc(n + 1);
  if (!v || !nm) {
    sinew_free(v);
    sinew_free(nm);
    return NULL;
  }
  memcpy(nm, name, n + 1);
  v->name = nm;
  sinew__lang_oom = 0;
  HASH_ADD_KEYPTR(hh, *table, v->name, n, v);
  if (sinew__lang_oom) {
    sinew_free(nm);
    sinew_free(v);
    return NULL;
  }
  return v;
}

static void var_remove(lang_var **table, const char *name) {
  lang_var *v = var_find(*table, name);
  if (!v) return;
  HASH_DEL(*table, v);
  lv_release(&v->v);
  sinew_free(v->name);
  sinew_free(v);
}

const char *sinew__lang_getenv(sinew_lang_t *L, const char *name) {
  lang_var *v = L ? var_find(L->envvars, name) : NULL;
  if (v) return lv_str(&v->v);
  return getenv(name);
}

int sinew__lang_putenv(sinew_lang_t *L, const char *name, const char *value) {
  sinew_value_t s;
  if (sinew__str_new(value, strlen(value), &s)) return SINEW_ENOMEM;
  lang_var *v = var_get(&L->envvars, name);
  if (!v) {
    lv_release(&s);
    return SINEW_ENOMEM;
  }
  lv_release(&v->v);
  v->v = s;
  return SINEW_OK;
}

/* ---- finding scripts ---------------------------------------------------------------------------- */

static bool readable(const char *path) {
  FILE *f = fopen(path, "rb"); /* fopen, not stat: the fuzz targets' sandbox wraps it */
  if (!f) return false;
  fclose(f);
  return true;
}

bool sinew__find_script(sinew_lang_t *L, const char *name, bool beside_script, char *out,
                        size_t size) {
  if (!name || !name[0] || size < 2) return false;
  char file[1024];
  const char *base = strrchr(name, '/');
  base = base ? base + 1 : name;
  int n = snprintf(file, sizeof file, "%s%s", name, strchr(base, '.') ? "" : ".mel");
  if (n < 0 || (size_t)n >= sizeof file) return false;
  if (file[0] == '/') {
    if ((size_t)n >= size || !readable(file)) return false;
    memcpy(out, file, (size_t)n + 1);
    return true;
  }
  if (beside_script) {
    /* beside the running script (its folder; the working folder for a name without one) */
    const char *cur = L->cur_file ? L->cur_file : "";
    const char *slash = strrchr(cur, '/');
    int k = slash ? snprintf(out, size, "%.*s/%s", (int)(slash - cur), cur, file)
                  : snprintf(out, size, "%s", file);
    if (k > 0 && (size_t)k < size && readable(out)) return true;
  }
  const char *path = sinew__lang_getenv(L, "MAYA_SCRIPT_PATH");
  while (path && *path) {
    size_t len = strcspn(path, ":");
    if (len) {
      int k = snprintf(out, size, "%.*s/%s", (int)len, path, file);
      if (k > 0 && (size_t)k < size && readable(out)) return true;
    }
    path += len;
    if (*path == ':') path++;
  }
  return false;
}

/* ---- UI commands ------------------------------------------------------------------------------------ */

static const char *const ui_commands[] = {
    "attrColorSliderGrp", "attrControlGrp", "attrFieldGrp", "attrFieldSliderGrp", "button",
    "canvas", "checkBox", "checkBoxGrp", "colorIndexSliderGrp", "colorSliderGrp", "columnLayout",
    "confirmDialog", "control", "deleteUI", "dockControl", "fileDialog", "fileDialog2",
    "floatField", "floatFieldGrp", "floatSlider", "floatSliderGrp", "formLayout", "frameLayout",
    "gridLayout", "headsUpDisplay", "helpLine", "hotkey", "iconTextButton", "iconTextCheckBox",
    "iconTextRadioButton", "image", "inViewMessage", "intField", "intFieldGrp", "intSlider",
    "intSliderGrp", "layout", "menu", "menuBarLayout", "menuItem", "modelEditor", "modelPanel",
    "nodeIconButton", "optionMenu", "optionMenuGrp", "paneLayout", "picture", "popupMenu",
    "progressBar", "progressWindow", "promptDialog", "radioButton", "radioButtonGrp",
    "radioCollection", "rowColumnLayout", "rowLayout", "scriptedPanel", "scrollField",
    "scrollLayout", "separator", "setParent", "shelfButton", "shelfLayout", "shelfTabLayout",
    "showWindow", "symbolButton", "symbolCheckBox", "tabLayout", "text", "textField",
    "textFieldButtonGrp", "textFieldGrp", "textScrollList", "toolButton", "treeView", "window",
    "windowPref", "workspaceControl"};

bool sinew__is_ui_command(const char *name) {
  size_t lo = 0, hi = COUNT(ui_commands);
  while (lo < hi) { /* the list is sorted */
    size_t mid = (lo + hi) / 2;
    int c = strcmp(name, ui_commands[mid]);
    if (c == 0) return true;
    if (c < 0) hi = mid;
    else lo = mid + 1;
  }
  return false;
}

/* ---- source ------------------------------------------------------------------------------------------- */

static int cmd_source(sinew_cmd_t *cmd) {
  sinew_lang_t *L = sinew_cmd_lang(cmd);
  if (sinew_cmd_argc(cmd) != 1) return sinew_cmd_error(cmd, SINEW_EINVAL, "give one script");
  const char *name = sinew_cmd_arg_string(cmd, 0);
  char path[4096];
  if (!sinew__find_script(L, name, true, path, sizeof path))
    return sinew_cmd_error(cmd, SINEW_ENOTFOUND,
                           "cannot find %s%s (looked beside %s and in MAYA_SCRIPT_PATH)", name,
                           strchr(strrchr(name, '/') ? strrchr(name, '/') : name, '.') ? "" : ".mel",
                           L->cur_file ? L->cur_file : "the script");
  /* the sourced script's own error ("lib.mel:4: ...") is the message */
  return sinew_lang_run_file(L, path, NULL);
}

/* ---- error and warning ------------------------------------------------------------------------------ */

static const sinew_cmd_flag_t message_flags[] = {
    {"showLineNumber", "sl", "b", 0},
    {"noContext", "n", "", 0},
};

/* The message: the positional arguments joined with spaces. */
static int message_text(sinew_cmd_t *cmd, char *buf, size_t size) {
  size_t n = 0;
  buf[0] = 0;
  for (size_t i = 0; i < sinew_cmd_argc(cmd); i++) {
    int k = snprintf(buf + n, size - n, "%s%s", i ? " " : "", sinew_cmd_arg_string(cmd, i));
    if (k < 0 || (size_t)k >= size - n) break;
    n += (size_t)k;
  }
  return SINEW_OK;
}

/* error "text": stops the script with "file:line: Error: text" (catch stops it there). */
static int cmd_error(sinew_cmd_t *cmd) {
  char msg[700];
  message_text(cmd, msg, sizeof msg);
  return sinew__lang_error(sinew_cmd_lang(cmd), SINEW_ERUNTIME, "Error: %s", msg);
}

/* warning "text": logs "file:line: Warning: text" and goes on. */
static int cmd_warning(sinew_cmd_t *cmd) {
  sinew_lang_t *L = sinew_cmd_lang(cmd);
  char msg[700];
  message_text(cmd, msg, sizeof msg);
  sinew_log(L->graph, SINEW_LOG_WARNING, SINEW_LOG_FILE_WARNING, "%s:%u: Warning: %s",
            L->cur_file ? L->cur_file : "script", L->cur_line, msg);
  return SINEW_OK;
}

/* ---- whatIs ------------------------------------------------------------------------------------------- */

static int cmd_what_is(sinew_cmd_t *cmd) {
  sinew_lang_t *L = sinew_cmd_lang(cmd);
  if (sinew_cmd_argc(cmd) != 1) return sinew_cmd_error(cmd, SINEW_EINVAL, "give one name");
  const char *name = sinew_cmd_arg_string(cmd, 0);
  char buf[4200];
  if (name[0] == '$') { /* a global variable (a script's locals are not visible here) */
    global_var *g = NULL;
    HASH_FIND_STR(L->globals, name + 1, g);
    if (!g) return sinew_cmd_result_string(cmd, "Unknown");
    uint8_t k = L->gkinds[g->slot] ? L->gkinds[g->slot] : L->gvals[g->slot].kind;
    const char *kn = sinew_value_kind_name((sinew_value_kind_t)k);
    size_t kl = strlen(kn);
    if (kl > 2 && kn[kl - 1] == ']') /* "string[]" -> "string array variable" */
      snprintf(buf, sizeof buf, "%.*s array variable", (int)(kl - 2), kn);
    else
      snprintf(buf, sizeof buf, "%s variable", kn);
    return sinew_cmd_result_string(cmd, buf);
  }
  proc_def *pd = NULL;
  HASH_FIND_STR(L->procs, name, pd);
  if (pd && pd->defined) {
    if (pd->file) {
      snprintf(buf, sizeof buf, "Mel procedure found in: %s", pd->file);
      return sinew_cmd_result_string(cmd, buf);
    }
    return sinew_cmd_result_string(cmd, "Mel procedure entered interactively.");
  }
  if (sinew__builtin_find(name) >= 0 || sinew__cmd_find(L, name) || sinew__is_ui_command(name) ||
      strcmp(name, "catch") == 0 || strcmp(name, "catchQuiet") == 0)
    return sinew_cmd_result_string(cmd, "Command");
  char path[4096];
  if (sinew__find_script(L, name, false, path, sizeof path)) {
    snprintf(buf, sizeof buf, "Script found in: %s", path);
    return sinew_cmd_result_string(cmd, buf);
  }
  return sinew_cmd_result_string(cmd, "Unknown");
}

/* ---- about ----------------------------------------------------------------------------------------------- */

/* sinew reads and writes files as Maya 2020 does (the .ma writer's "requires maya"). */
#define ABOUT_VERSION "2020"
#define ABOUT_API_VERSION 20200000

static const sinew_cmd_flag_t about_flags[] = {
    {"batch", "b", "", 0},           {"version", "v", "", 0},
    {"apiVersion", "api", "", 0},    {"operatingSystem", "os", "", 0},
    {"majorVersion", "mjv", "", 0},  {"minorVersion", "mnv", "", 0},
    {"linux", "li", "", 0},          {"linux64", "l64", "", 0},
    {"windows", "win", "", 0},       {"win64", "w64", "", 0},
    {"macOS", "mac", "", 0},         {"ntOS", "nt", "", 0},
    {"is64", "x64", "", 0},          {"application", "a", "", 0},
    {"product", "p", "", 0},         {"evalVersion", "ev", "", 0},
};

static int cmd_about(sinew_cmd_t *cmd) {
  static const struct { const char *flag; int64_t i; const char *s; } answers[] = {
      {"batch", 1, NULL},        {"version", 0, ABOUT_VERSION}, {"apiVersion", ABOUT_API_VERSION, NULL},
      {"operatingSystem", 0, "linux64"}, {"majorVersion", 0, ABOUT_VERSION}, {"minorVersion", 0, "0"},
      {"linux", 1, NULL},        {"linux64", 1, NULL},          {"windows", 0, NULL},
      {"win64", 0, NULL},        {"macOS", 0, NULL},            {"ntOS", 0, NULL},
      {"is64", 1, NULL},         {"application", 0, "maya"},    {"product", 0, "Maya " ABOUT_VERSION},
      {"evalVersion", 0, NULL},
  };
  for (size_t i = 0; i < COUNT(answers); i++)
    if (sinew_cmd_flag_count(cmd, answers[i].flag))
      return answers[i].s ? sinew_cmd_result_string(cmd, answers[i].s)
                          : sinew_cmd_result_int(cmd, answers[i].i);
  return sinew_cmd_result_string(cmd, ABOUT_VERSION);
}

/* ---- optionVar ------------------------------------------------------------------------------------------- */

static const sinew_cmd_flag_t optvar_flags[] = {
    {"intValue", "iv", "si", SINEW_CMD_MULTI},        {"floatValue", "fv", "sf", SINEW_CMD_MULTI},
    {"stringValue", "sv", "ss", SINEW_CMD_MULTI},     {"intValueAppend", "iva", "si", SINEW_CMD_MULTI},
    {"floatValueAppend", "fva", "sf", SINEW_CMD_MULTI}, {"stringValueAppend", "sva", "ss", SINEW_CMD_MULTI},
    {"query", "q", "s", 0},                           {"exists", "ex", "s", 0},
    {"remove", "rm", "s", SINEW_CMD_MULTI},           {"arraySize", "as", "s", 0},
    {"clearArray", "ca", "s", SINEW_CMD_MULTI},       {"list", "l", "", 0},
};

/* Sets (append = false) or appends to an optionVar from the occurrences of one flag. */
static int optvar_store(sinew_cmd_t *cmd, const char *flag, bool append) {
  sinew_lang_t *L = sinew_cmd_lang(cmd);
  for (size_t o = 0; o < sinew_cmd_flag_count(cmd, flag); o++) {
    const sinew_value_t *name = sinew_cmd_flag_arg(cmd, flag, o, 0), *val = sinew_cmd_flag_arg(cmd, flag, o, 1);
    if (!name || !val) continue;
    lang_var *v = var_get(&L->optvars, sinew_value_string(name));
    if (!v) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
    int rc;
    if (!append) {
      sinew_value_t c;
      sinew_value_copy(&c, val);
      c.flag = c.word = 0;
      lv_release(&v->v);
      v->v = c;
      continue;
    }
    uint8_t ak = sinew__array_kind_of(val->kind);
    if (v->v.kind != ak) { /* appending to a scalar (or another kind) starts an array with it */
      sinew_value_t arr;
      if ((rc = sinew__array_new(ak, 0, &arr))) return sinew_cmd_error(cmd, rc, "out of memory");
      if (v->v.kind == val->kind && (rc = sinew__array_push(&arr, &v->v))) {
        lv_release(&arr);
        return sinew_cmd_error(cmd, rc, "out of memory");
      }
      lv_release(&v->v);
      v->v = arr;
    }
    if ((rc = sinew__obj_unshare(&v->v)) || (rc = sinew__array_push(&v->v, val)))
      return sinew_cmd_error(cmd, rc, "out of memory");
  }
  return SINEW_OK;
}

static int cmd_option_var(sinew_cmd_t *cmd) {
  sinew_lang_t *L = sinew_cmd_lang(cmd);
  const char *q = sinew_cmd_flag_string(cmd, "query", NULL);
  if (q) {
    lang_var *v = var_find(L->optvars, q);
    if (!v) return sinew_cmd_result_int(cmd, 0);
    sinew_value_t c;
    sinew_value_copy(&c, &v->v);
    switch (c.kind) { /* the result, as the public result calls make it */
      case SINEW_VALUE_INT: lv_release(&c); return sinew_cmd_result_int(cmd, v->v.as.i);
      case SINEW_VALUE_FLOAT: lv_release(&c); return sinew_cmd_result_double(cmd, v->v.as.f);
      case SINEW_VALUE_STRING: lv_release(&c); return sinew_cmd_result_string(cmd, lv_str(&v->v));
      default: break;
    }
    int rc = sinew_cmd_result_empty_array(cmd, (sinew_value_kind_t)c.kind);
    for (size_t i = 0; i < sinew_value_count(&c) && !rc; i++) {
      if (c.kind == SINEW_VALUE_STRING_ARRAY) rc = sinew_cmd_result_append_string(cmd, sinew_value_string_at(&c, i));
      else if (c.kind == SINEW_VALUE_INT_ARRAY) rc = sinew_cmd_result_append_int(cmd, (int64_t)sinew_value_double_at(&c, i));
      else rc = sinew_cmd_result_append_double(cmd, sinew_value_double_at(&c, i));
    }
    lv_release(&c);
    return rc;
  }
  const char *ex = sinew_cmd_flag_string(cmd, "exists", NULL);
  if (ex) return sinew_cmd_result_int(cmd, var_find(L->optvars, ex) != NULL);
  const char *as = sinew_cmd_flag_string(cmd, "arraySize", NULL);
  if (as) {
    lang_var *v = var_find(L->optvars, as);
    return sinew_cmd_result_int(cmd, v ? (int64_t)sinew_value_count(&v->v) : 0);
  }
  if (sinew_cmd_flag_count(cmd, "list")) {
    int rc = sinew_cmd_result_empty_array(cmd, SINEW_VALUE_STRING_ARRAY);
    for (lang_var *v = L->optvars; v && !rc; v = v->hh.next) rc = sinew_cmd_result_append_string(cmd, v->name);
    return rc;
  }
  for (size_t o = 0; o < sinew_cmd_flag_count(cmd, "remove"); o++)
    var_remove(&L->optvars, sinew_value_string(sinew_cmd_flag_arg(cmd, "remove", o, 0)));
  for (size_t o = 0; o < sinew_cmd_flag_count(cmd, "clearArray"); o++) {
    lang_var *v = var_find(L->optvars, sinew_value_string(sinew_cmd_flag_arg(cmd, "clearArray", o, 0)));
    if (v && lv_is_array(v->v.kind)) {
      sinew_value_t e;
      if (sinew__array_new(v->v.kind, 0, &e)) return sinew_cmd_error(cmd, SINEW_ENOMEM, "out of memory");
      lv_release(&v->v);
      v->v = e;
    }
  }
  int rc;
  if ((rc = optvar_store(cmd, "intValue", false)) || (rc = optvar_store(cmd, "floatValue", false)) ||
      (rc = optvar_store(cmd, "stringValue", false)) || (rc = optvar_store(cmd, "intValueAppend", true)) ||
      (rc = optvar_store(cmd, "floatValueAppend", true)) || (rc = optvar_store(cmd, "stringValueAppend", true)))
    return rc;
  return SINEW_OK;
}

/* ---- registration -------------------------------------------------------------------------------------- */

int sinew__register_lang_cmds(sinew_lang_t *L) {
  const sinew_cmd_desc_t cmds[] = {
      {"source", cmd_source, NULL, 0, false, NULL},
      {"error", cmd_error, message_flags, COUNT(message_flags), false, NULL},
      {"warning", cmd_warning, message_flags, COUNT(message_flags), false, NULL},
      {"whatIs", cmd_what_is, NULL, 0, false, NULL},
      {"about", cmd_about, about_flags, COUNT(about_flags), false, NULL},
      {"optionVar", cmd_option_var, optvar_flags, COUNT(optvar_flags), false, NULL},
  };
  for (size_t i = 0; i < COUNT(cmds); i++) {
    int rc = sinew_lang_register_command(L, &cmds[i]);
    if (rc) return rc;
  }
  return SINEW_OK;
}
