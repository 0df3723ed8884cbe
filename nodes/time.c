/* nodes/time.c: the time node (time1.outTime, the scene's current time in seconds, and the
 * frame rate it is shown in) and unitConversion (output = input * conversionFactor, which Maya
 * files put between angles and plain doubles). */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "nodes/nodes_internal.h"

/* Moves on whenever some scene's units may have changed (sinew_scene_units_serial). */
static atomic_uint_fast64_t units_serial;

uint64_t sinew_scene_units_serial(void) {
  return (uint64_t)atomic_load_explicit(&units_serial, memory_order_relaxed);
}

static void units_moved(void) { atomic_fetch_add_explicit(&units_serial, 1, memory_order_relaxed); }

typedef struct time_state {
  sinew_time_unit_t unit;
  sinew_linear_unit_t linear;
  sinew_angle_unit_t angle;
  sinew__anim_time_list *curves; /* the unconnected time curves (nodes/anim_curve.c) */
} time_state;

/* ---- linear and angle units (currentUnit -l / -a) --------------------------------------------- */

static const struct {
  const char *name, *alias;
  double cm;
} linear_units[SINEW_LINEAR_UNIT_MAX] = {
    {"", "", 0},          {"millimeter", "mm", 0.1}, {"centimeter", "cm", 1.0},
    {"meter", "m", 100.0}, {"kilometer", "km", 100000.0}, {"inch", "in", 2.54},
    {"foot", "ft", 30.48}, {"yard", "yd", 91.44}, {"mile", "mi", 160934.4}};

static const struct {
  const char *name, *alias;
  double rad;
} angle_units[SINEW_ANGLE_UNIT_MAX] = {
    {"", "", 0},
    {"degree", "deg", 3.14159265358979323846 / 180.0},
    {"radian", "rad", 1.0},
    {"angMinute", "min", 3.14159265358979323846 / 10800.0},
    {"angSecond", "sec", 3.14159265358979323846 / 648000.0}};

sinew_linear_unit_t sinew_linear_unit_from_name(const char *name) {
  if (!name) return SINEW_LINEAR_INVALID;
  for (int u = 1; u < SINEW_LINEAR_UNIT_MAX; u++)
    if (strcmp(linear_units[u].name, name) == 0 || strcmp(linear_units[u].alias, name) == 0)
      return (sinew_linear_unit_t)u;
  return SINEW_LINEAR_INVALID;
}

const char *sinew_linear_unit_name(sinew_linear_unit_t u) {
  return (u > 0 && u < SINEW_LINEAR_UNIT_MAX) ? linear_units[u].name : NULL;
}

double sinew_linear_unit_cm(sinew_linear_unit_t u) {
  return (u > 0 && u < SINEW_LINEAR_UNIT_MAX) ? linear_units[u].cm : 0.0;
}

sinew_angle_unit_t sinew_angle_unit_from_name(const char *name) {
  if (!name) return SINEW_ANGLE_INVALID;
  for (int u = 1; u < SINEW_ANGLE_UNIT_MAX; u++)
    if (strcmp(angle_units[u].name, name) == 0 || strcmp(angle_units[u].alias, name) == 0)
      return (sinew_angle_unit_t)u;
  return SINEW_ANGLE_INVALID;
}

const char *sinew_angle_unit_name(sinew_angle_unit_t u) {
  return (u > 0 && u < SINEW_ANGLE_UNIT_MAX) ? angle_units[u].name : NULL;
}

double sinew_angle_unit_radians(sinew_angle_unit_t u) {
  return (u > 0 && u < SINEW_ANGLE_UNIT_MAX) ? angle_units[u].rad : 0.0;
}

/* Every rate Maya's currentUnit -t takes; each is a whole number of Maya's 141,120,000 ticks
 * per frame. */
static const struct {
  const char *name;
  double fps;
} units[SINEW_TIME_UNIT_MAX] = {
    {"", 0},           {"game", 15},        {"film", 24},        {"pal", 25},
    {"ntsc", 30},      {"show", 48},        {"palf", 50},        {"ntscf", 60},
    {"23.976fps", 24000.0 / 1001.0},        {"29.97fps", 30000.0 / 1001.0},
    {"29.97df", 30000.0 / 1001.0},          {"47.952fps", 48000.0 / 1001.0},
    {"59.94fps", 60000.0 / 1001.0},         {"hour", 1.0 / 3600.0},
    {"min", 1.0 / 60.0},                    {"sec", 1},
    {"millisec", 1000},
    {"2fps", 2},       {"3fps", 3},         {"4fps", 4},         {"5fps", 5},
    {"6fps", 6},       {"8fps", 8},         {"10fps", 10},       {"12fps", 12},
    {"16fps", 16},     {"20fps", 20},       {"40fps", 40},       {"75fps", 75},
    {"80fps", 80},     {"100fps", 100},     {"120fps", 120},     {"125fps", 125},
    {"150fps", 150},   {"200fps", 200},     {"240fps", 240},     {"250fps", 250},
    {"300fps", 300},   {"375fps", 375},     {"400fps", 400},     {"500fps", 500},
    {"600fps", 600},   {"750fps", 750},     {"1200fps", 1200},   {"1500fps", 1500},
    {"2000fps", 2000}, {"3000fps", 3000},   {"6000fps", 6000},   {"44100fps", 44100},
    {"48000fps", 48000}};

sinew_time_unit_t sinew_time_unit_from_name(const char *name) {
  if (!name) return SINEW_TIME_INVALID;
  for (int u = 1; u < SINEW_TIME_UNIT_MAX; u++)
    if (strcmp(units[u].name, name) == 0) return (sinew_time_unit_t)u;
  /* Maya also accepts "24fps" style names for the same rates */
  char *end = NULL;
  double fps = strtod(name, &end);
  if (end && strcmp(end, "fps") == 0)
    for (int u = 1; u < SINEW_TIME_UNIT_MAX; u++)
      if (units[u].fps == fps) return (sinew_time_unit_t)u;
  return SINEW_TIME_INVALID;
}

const char *sinew_time_unit_name(sinew_time_unit_t u) {
  return (u > 0 && u < SINEW_TIME_UNIT_MAX) ? units[u].name : NULL;
}

double sinew_time_unit_fps(sinew_time_unit_t u) {
  return (u > 0 && u < SINEW_TIME_UNIT_MAX) ? units[u].fps : 0.0;
}

static uint32_t OUT_TIME;

static int time_init(sinew_graph_t *g, sinew_node_t n, void *state) {
  time_state *ts = state;
  ts->unit = SINEW_TIME_FILM;
  ts->linear = SINEW_LINEAR_CM;
  ts->angle = SINEW_ANGLE_DEG;
  units_moved(); /* a scene's time node, new or made again, with the default units */
  return SINEW_OK;
}

static void time_destroy(sinew_graph_t *g, sinew_node_t n, void *state) {
  sinew__anim_time_list_free(((time_state *)state)->curves);
  units_moved();
}

static const sinew_attr_desc_t time_attrs[] = {
    {.name = "outTime", .short_name = "o", .type = SINEW_ATTR_TIME,
     .flags = SINEW_ATTR_INPUT | SINEW_ATTR_KEYABLE},
    {.name = "enableTimewarp", .short_name = "etw", .type = SINEW_ATTR_BOOL}};

static uint32_t UC_IN, UC_OUT, UC_CF;

/* output = each number of input * conversionFactor; the output takes the input's shape (a
 * number, a double3 such as joint.rotate, a matrix). */
static int unit_conversion_compute(sinew_compute_t *ctx, const sinew_plug_t *plug) {
  if (plug->attr != UC_OUT) return SINEW_EUNKNOWN_PLUG;
  sinew_graph_t *g = sinew_compute_graph(ctx);
  sinew_node_t n = sinew_compute_node(ctx);
  double in[SINEW_GENERIC_MAX] = {0}, cf = 1;
  size_t count = 1;
  sinew_plug_t pi = sinew_plug_make(n, UC_IN, 0, NULL), pc = sinew_plug_make(n, UC_CF, 0, NULL);
  int rc = sinew_get_generic(g, &pi, in, SINEW_GENERIC_MAX, &count);
  if (!rc) rc = sinew_get_double(g, &pc, &cf);
  if (rc) return rc;
  if (count < 1 || count > SINEW_GENERIC_MAX) count = 1;
  for (size_t i = 0; i < count; i++) in[i] *= cf;
  return sinew_compute_set_generic(ctx, plug, in, count);
}

/* input and output are generic numeric attributes, as in Maya. */
static const sinew_attr_desc_t uc_attrs[] = {
    {.name = "input", .short_name = "i", .type = SINEW_ATTR_DOUBLE,
     .flags = SINEW_ATTR_INPUT | SINEW_ATTR_GENERIC_NUMERIC},
    {.name = "output", .short_name = "o", .type = SINEW_ATTR_DOUBLE,
     .flags = SINEW_ATTR_OUTPUT | SINEW_ATTR_GENERIC_NUMERIC},
    {.name = "conversionFactor", .short_name = "cf", .type = SINEW_ATTR_DOUBLE, .default_value = 1}};
static const sinew_affects_t uc_affects[] = {{"input", "output"}, {"conversionFactor", "output"}};

/* A rollback, undo or redo put the time back: the time curves stored at the time taken back
 * follow it (they read the time outside the graph's connections, so nothing else dirties them). */
static void time_restored(sinew_graph_t *g, sinew_node_t n, void *state) {
  (void)n;
  (void)sinew__anim_time_changed(g, &((time_state *)state)->curves);
}

int sinew__register_time_types(sinew_graph_t *g) {
  const sinew_node_type_t *t;
  sinew_node_type_desc_t td = {.name = "time", .attrs = time_attrs, .attr_count = 2,
                               .state_size = sizeof(time_state), .init = time_init,
                               .destroy = time_destroy, .restored = time_restored};
  int rc = sinew_register_node_type(g, &td, &t);
  if (rc) return rc;
  OUT_TIME = sinew_node_type_attr(t, "outTime");
  sinew_node_type_desc_t ud = {.name = "unitConversion", .attrs = uc_attrs, .attr_count = 3,
                               .affects = uc_affects, .affects_count = 2, .compute = unit_conversion_compute};
  if ((rc = sinew_register_node_type(g, &ud, &t))) return rc;
  UC_IN = sinew_node_type_attr(t, "input");
  UC_OUT = sinew_node_type_attr(t, "output");
  UC_CF = sinew_node_type_attr(t, "conversionFactor");
  return SINEW_OK;
}

/* The scene's time node: time1; or, when time1 was renamed or deleted and its name given to
 * another node, the first time node there is (so the scene keeps one time and one frame rate
 * instead of a new time node per call); created when there is none. */
int sinew_time_node(sinew_graph_t *g, sinew_node_t *out) {
  if (!g || !out) return SINEW_EINVAL;
  sinew_node_t n;
  if (sinew_node_find(g, "time1", &n) == SINEW_OK &&
      sinew_node_type_is_a(sinew_node_type(g, n), "time")) {
    *out = n;
    return SINEW_OK;
  }
  if (sinew_node_list_type(g, "time", false, &n, 1) > 0) {
    *out = n;
    return SINEW_OK;
  }
  int rc = sinew_node_create(g, "time", "time1", &n);
  if (rc) return rc;
  *out = n;
  return SINEW_OK;
}

/* A unit change changes what time and unit-converted values mean to what reads them
 * (expressions using frame or scene units, unitConversion in files): outTime is dirtied so
 * they evaluate again. The change is taken back if that cannot be done. */
static int units_changed(sinew_graph_t *g, sinew_node_t n, int *field, int value) {
  int old = *field;
  if (old == value) return SINEW_OK;
  *field = value;
  units_moved();
  sinew_plug_t p = sinew_plug_make(n, OUT_TIME, 0, NULL);
  int rc = sinew_dirty(g, &p);
  if (rc) *field = old;
  return rc;
}

int sinew_time_set_unit(sinew_graph_t *g, sinew_time_unit_t unit) {
  if (unit <= SINEW_TIME_INVALID || unit >= SINEW_TIME_UNIT_MAX)
    return sinew_graph_fail(g, SINEW_EINVAL, "currentUnit", "invalid time unit");
  sinew_node_t n;
  int rc = sinew_time_node(g, &n);
  if (rc) return rc;
  time_state *ts = sinew_node_state(g, n);
  int v = (int)ts->unit;
  rc = units_changed(g, n, &v, (int)unit);
  ts->unit = (sinew_time_unit_t)v;
  return rc;
}

sinew_time_unit_t sinew_time_get_unit(sinew_graph_t *g) {
  sinew_node_t n;
  if (sinew_time_node(g, &n)) return SINEW_TIME_FILM;
  return ((time_state *)sinew_node_state(g, n))->unit;
}

int sinew_scene_set_linear_unit(sinew_graph_t *g, sinew_linear_unit_t unit) {
  if (unit <= SINEW_LINEAR_INVALID || unit >= SINEW_LINEAR_UNIT_MAX)
    return sinew_graph_fail(g, SINEW_EINVAL, "currentUnit", "invalid linear unit");
  sinew_node_t n;
  int rc = sinew_time_node(g, &n);
  if (rc) return rc;
  time_state *ts = sinew_node_state(g, n);
  int v = (int)ts->linear;
  rc = units_changed(g, n, &v, (int)unit);
  ts->linear = (sinew_linear_unit_t)v;
  return rc;
}

sinew_linear_unit_t sinew_scene_linear_unit(sinew_graph_t *g) {
  sinew_node_t n;
  if (!g || sinew_time_node(g, &n)) return SINEW_LINEAR_CM;
  return ((time_state *)sinew_node_state(g, n))->linear;
}

int sinew_scene_set_angle_unit(sinew_graph_t *g, sinew_angle_unit_t unit) {
  if (unit <= SINEW_ANGLE_INVALID || unit >= SINEW_ANGLE_UNIT_MAX)
    return sinew_graph_fail(g, SINEW_EINVAL, "currentUnit", "invalid angle unit");
  sinew_node_t n;
  int rc = sinew_time_node(g, &n);
  if (rc) return rc;
  time_state *ts = sinew_node_state(g, n);
  int v = (int)ts->angle;
  rc = units_changed(g, n, &v, (int)unit);
  ts->angle = (sinew_angle_unit_t)v;
  return rc;
}

sinew_angle_unit_t sinew_scene_angle_unit(sinew_graph_t *g) {
  sinew_node_t n;
  if (!g || sinew_time_node(g, &n)) return SINEW_ANGLE_DEG;
  return ((time_state *)sinew_node_state(g, n))->angle;
}

int sinew_time_set_seconds(sinew_graph_t *g, double seconds) {
  if (!isfinite(seconds)) return sinew_graph_fail(g, SINEW_ERANGE, "currentTime", "not a finite time");
  sinew_node_t n;
  int rc = sinew_time_node(g, &n);
  if (rc) return rc;
  sinew_plug_t p = sinew_plug_make(n, OUT_TIME, 0, NULL);
  double now;
  if (sinew_get_double(g, &p, &now) == SINEW_OK && now == seconds && sinew_plug_has_value(g, &p))
    return SINEW_OK; /* the same time: nothing is dirtied */
  if ((rc = sinew_set_double(g, &p, seconds))) return rc;
  /* animation curves left unconnected evaluate at the current time (nodes/anim_curve.c) */
  return sinew__anim_time_changed(g, &((time_state *)sinew_node_state(g, n))->curves);
}

int sinew_time_get_seconds(sinew_graph_t *g, double *out) {
  sinew_node_t n;
  int rc = sinew_time_node(g, &n);
  if (rc) return rc;
  sinew_plug_t p = sinew_plug_make(n, OUT_TIME, 0, NULL);
  return sinew_get_double(g, &p, out);
}

int sinew_time_set_frame(sinew_graph_t *g, double frame) {
  return sinew_time_set_seconds(g, frame / sinew_time_unit_fps(sinew_time_get_unit(g)));
}

int sinew_time_get_frame(sinew_graph_t *g, double *out) {
  double s;
  int rc = sinew_time_get_seconds(g, &s);
  if (!rc && out) *out = s * sinew_time_unit_fps(sinew_time_get_unit(g));
  return rc;
}
