/* nodes/mesh_obj.c: Wavefront OBJ reading and writing for mesh blocks.
 *
 * Reading keeps v and f lines (every f form: v, v/vt, v//vn, v/vt/vn, negative relative
 * indices), counts vt and vn lines only to check indices against them, and skips everything
 * else (o, g, s, usemtl, l, comments). Lines ending in a backslash continue on the next line.
 * The file may be a pipe: it is read once, into growable data blocks, so nothing is malloc'ed
 * outside the library's allocator funnel and a failure at any point frees everything. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "nodes/mesh_internal.h"
#include "nodes/nodes_internal.h"
#include "sinew/io.h"

#define MAX_OBJ_POINTS UINT32_MAX

/* ---- writing ------------------------------------------------------------------------------ */

/* The text goes through a buffer written in large blocks: one fwrite per 64 KiB, not a
 * formatted print per number (writing dominated `sinew run`). */
typedef struct obj_out {
  FILE *f;
  size_t n;
  bool failed;
  char buf[1 << 16];
} obj_out;

static void out_flush(obj_out *o) {
  if (o->n && fwrite(o->buf, 1, o->n, o->f) != o->n) o->failed = true;
  o->n = 0;
}

/* Room for one line: 2 + 3 numbers (SINEW_FLOAT_CHARS each) or a face's worth of indices. */
static void out_room(obj_out *o, size_t need) {
  if (o->n + need > sizeof o->buf) out_flush(o);
}

static void out_str(obj_out *o, const char *s, size_t len) {
  out_room(o, len);
  memcpy(o->buf + o->n, s, len);
  o->n += len;
}

static void out_float(obj_out *o, float v) {
  o->buf[o->n++] = ' ';
  o->n += sinew_format_float(v, o->buf + o->n);
}

static void out_uint(obj_out *o, uint32_t v) {
  char tmp[12];
  size_t k = 0;
  do {
    tmp[k++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (k) o->buf[o->n++] = tmp[--k];
}

static void out_triple(obj_out *o, const char *tag, const float *p) {
  out_room(o, 4 + 3 * SINEW_FLOAT_CHARS);
  out_str(o, tag, strlen(tag));
  for (int c = 0; c < 3; c++) out_float(o, p[c]);
  o->buf[o->n++] = '\n';
}

int sinew_mesh_write_obj(const sinew_data_t *mesh, FILE *out) {
  const sinew_mesh_t *m = sinew_mesh_get(mesh);
  if (!m || !out) return SINEW_EINVAL;
  const sinew_topology_t *t = m->topology;
  /* a point that is not a finite number (a NaN or infinite matrix upstream) makes a file no
   * reader takes ("v -nan -nan -nan"): refused before anything is written */
  for (size_t i = 0; i < 3 * (size_t)m->npoints; i++)
    if (!isfinite(m->points[i])) return SINEW_ERANGE;
  sinew_data_t *holder = NULL;
  obj_out *o = sinew__scratch(sizeof *o, &holder);
  if (!o) return SINEW_ENOMEM;
  o->f = out;
  char head[96];
  int hn = snprintf(head, sizeof head, "# sinew mesh: %u points, %u faces\n", m->npoints, t->nfaces);
  out_str(o, head, (size_t)hn);
  /* each number in the shortest form that reads back to the same float */
  for (uint32_t i = 0; i < m->npoints; i++) out_triple(o, "v", &m->points[3 * (size_t)i]);
  if (m->normals) {
    static const float zero[3] = {0, 0, 0};
    for (uint32_t i = 0; i < m->npoints; i++) {
      const float *n = &m->normals[3 * (size_t)i];
      /* a degenerate face has no direction: written as 0 0 0, which readers take */
      out_triple(o, "vn", isfinite(n[0]) && isfinite(n[1]) && isfinite(n[2]) ? n : zero);
    }
  }
  for (uint32_t f = 0; f < t->nfaces; f++) {
    const uint32_t *fv = &t->face_verts[t->face_offsets[f]];
    out_room(o, 2);
    o->buf[o->n++] = 'f';
    for (uint32_t k = 0; k < t->face_counts[f]; k++) {
      out_room(o, 26); /* " %u//%u" */
      o->buf[o->n++] = ' ';
      out_uint(o, fv[k] + 1);
      if (m->normals) {
        o->buf[o->n++] = '/';
        o->buf[o->n++] = '/';
        out_uint(o, fv[k] + 1);
      }
    }
    out_room(o, 1);
    o->buf[o->n++] = '\n';
  }
  out_flush(o);
  bool failed = o->failed;
  sinew_data_unref(holder);
  return failed || ferror(out) ? SINEW_EIO : SINEW_OK;
}

/* ---- reading ------------------------------------------------------------------------------ */

typedef struct obj_reader {
  FILE *in;
  const char *name;
  char *errbuf;
  size_t errlen;
  unsigned long line;  /* number of the line being parsed (its first line if continued) */
  unsigned long next;  /* number of the next physical line */
  sinew__mesh_buf text;     /* the current logical line, NUL-terminated */
  sinew__mesh_buf points;   /* float x y z */
  sinew__mesh_buf counts;   /* uint32 per face */
  sinew__mesh_buf verts;    /* uint32 per face-vertex, 0-based */
  uint64_t npoints, ntex, nnormals;
} obj_reader;

static int fail(obj_reader *r, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int fail(obj_reader *r, int status, const char *fmt, ...) {
  if (!r->errbuf || !r->errlen) return status;
  int n = snprintf(r->errbuf, r->errlen, "%s:%lu: ", r->name, r->line);
  if (n >= 0 && (size_t)n < r->errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->errbuf + n, r->errlen - (size_t)n, fmt, ap);
    va_end(ap);
  }
  return status;
}

/* Reads the next logical line into r->text; *got is false at the end of the file. */
static int read_line(obj_reader *r, bool *got) {
  sinew__mesh_buf *b = &r->text;
  b->len = 0;
  r->line = r->next;
  bool any = false;
  for (;;) {
    int c = getc(r->in);
    if (c == EOF) {
      if (ferror(r->in)) return fail(r, SINEW_EIO, "read error");
      break;
    }
    any = true;
    if (c == '\n') {
      r->next++;
      if (b->len && b->ptr[b->len - 1] == '\r') b->len--;
      if (b->len && b->ptr[b->len - 1] == '\\') { /* continued on the next line */
        b->ptr[b->len - 1] = ' ';
        continue;
      }
      break;
    }
    if (b->len + 2 > b->cap && sinew__mesh_buf_reserve(b, 2)) return fail(r, SINEW_ENOMEM, "out of memory");
    b->ptr[b->len++] = (unsigned char)c;
  }
  if (!any) {
    *got = false;
    return SINEW_OK;
  }
  if (b->len + 1 > b->cap && sinew__mesh_buf_reserve(b, 1)) return fail(r, SINEW_ENOMEM, "out of memory");
  b->ptr[b->len] = '\0';
  *got = true;
  return SINEW_OK;
}

/* Next whitespace-separated token of *s, NUL-terminated in place; NULL at the end. */
static char *token(char **s) {
  char *p = *s;
  while (*p && isspace((unsigned char)*p)) p++;
  if (!*p) return NULL;
  char *start = p;
  while (*p && !isspace((unsigned char)*p)) p++;
  if (*p) *p++ = '\0';
  *s = p;
  return start;
}

static int parse_vertex(obj_reader *r, char *rest) {
  float xyz[3];
  for (int k = 0; k < 3; k++) {
    char *tok = token(&rest), *end;
    if (!tok) return fail(r, SINEW_ESYNTAX, "a vertex needs 3 coordinates");
    /* strtof, not strtod and a cast: the float nearest the text, so what the writer prints
     * (9 significant digits) reads back bit for bit. FLT_MAX prints as 3.40282347e+38, which
     * as a double is above FLT_MAX but rounds to it; only overflow to infinity is refused. */
    float v = strtof(tok, &end);
    if (*end || end == tok) return fail(r, SINEW_ESYNTAX, "'%s' is not a number", tok);
    if (!isfinite(v)) return fail(r, SINEW_ERANGE, "coordinate '%s' is not a finite float", tok);
    xyz[k] = v;
  }
  if (r->npoints >= MAX_OBJ_POINTS) return fail(r, SINEW_ERANGE, "too many vertices");
  if (sinew__mesh_buf_append(&r->points, xyz, sizeof xyz)) return fail(r, SINEW_ENOMEM, "out of memory");
  r->npoints++;
  return SINEW_OK;
}

/* One index of a face token: 1-based, or negative counting back from the last one read so far.
 * *p advances past the digits. Returns false when there are no digits. */
static bool parse_index(char **p, long long *out) {
  char *s = *p;
  bool neg = *s == '-';
  if (neg || *s == '+') s++;
  if (!isdigit((unsigned char)*s)) return false;
  long long v = 0;
  while (isdigit((unsigned char)*s)) {
    if (v < (1ll << 40)) v = v * 10 + (*s - '0'); /* larger is out of range anyway */
    s++;
  }
  *p = s;
  *out = neg ? -v : v;
  return true;
}

/* 0-based index of a 1-based or negative OBJ index into n items; false when out of range. */
static bool resolve(long long idx, uint64_t n, uint64_t *out) {
  if (idx > 0 && (uint64_t)idx <= n) *out = (uint64_t)idx - 1;
  else if (idx < 0 && (uint64_t)(-idx) <= n) *out = n - (uint64_t)(-idx);
  else return false;
  return true;
}

static int parse_face(obj_reader *r, char *rest) {
  uint32_t n = 0;
  for (char *tok; (tok = token(&rest)); n++) {
    char *p = tok;
    long long v, vt, vn;
    uint64_t ix;
    if (!parse_index(&p, &v)) return fail(r, SINEW_ESYNTAX, "'%s' is not a face index", tok);
    if (!resolve(v, r->npoints, &ix))
      return fail(r, SINEW_ERANGE, "face index %lld out of range (%llu vertices)", v,
                  (unsigned long long)r->npoints);
    if (*p == '/') {
      p++;
      if (*p != '/') { /* v/vt... */
        if (!parse_index(&p, &vt)) return fail(r, SINEW_ESYNTAX, "'%s' is not a face index", tok);
        uint64_t unused;
        if (!resolve(vt, r->ntex, &unused))
          return fail(r, SINEW_ERANGE, "texture index %lld out of range in '%s'", vt, tok);
      }
      if (*p == '/') {
        p++;
        if (!parse_index(&p, &vn)) return fail(r, SINEW_ESYNTAX, "'%s' is not a face index", tok);
        uint64_t unused;
        if (!resolve(vn, r->nnormals, &unused))
          return fail(r, SINEW_ERANGE, "normal index %lld out of range in '%s'", vn, tok);
      }
    }
    if (*p) return fail(r, SINEW_ESYNTAX, "'%s' is not a face index", tok);
    uint32_t i = (uint32_t)ix;
    if (sinew__mesh_buf_append(&r->verts, &i, sizeof i)) return fail(r, SINEW_ENOMEM, "out of memory");
  }
  if (n < 3) {
    r->verts.len -= n * sizeof(uint32_t);
    return fail(r, SINEW_ESYNTAX, "a face needs at least 3 vertices, this one has %u", n);
  }
  if (r->verts.len / sizeof(uint32_t) > UINT32_MAX) return fail(r, SINEW_ERANGE, "too many face vertices");
  if (sinew__mesh_buf_append(&r->counts, &n, sizeof n)) return fail(r, SINEW_ENOMEM, "out of memory");
  return SINEW_OK;
}

static int parse_line(obj_reader *r) {
  char *rest = (char *)r->text.ptr;
  char *kw = token(&rest);
  if (!kw || kw[0] == '#') return SINEW_OK;
  if (!strcmp(kw, "v")) return parse_vertex(r, rest);
  if (!strcmp(kw, "f")) return parse_face(r, rest);
  if (!strcmp(kw, "vt")) r->ntex++;
  else if (!strcmp(kw, "vn")) r->nnormals++;
  return SINEW_OK;
}

static int build(obj_reader *r, sinew_data_t **out) {
  uint32_t nfaces = (uint32_t)(r->counts.len / sizeof(uint32_t));
  uint64_t nfv = r->verts.len / sizeof(uint32_t);
  sinew_data_t *topo, *mesh;
  uint32_t *counts, *verts;
  int rc = sinew__topology_new((uint32_t)r->npoints, nfaces, nfv, &topo, &counts, &verts);
  if (rc) return fail(r, rc, "out of memory");
  if (nfaces) memcpy(counts, r->counts.ptr, r->counts.len);
  if (nfv) memcpy(verts, r->verts.ptr, r->verts.len);
  if ((rc = sinew__topology_finish(topo))) { /* indices were checked while reading */
    sinew_data_unref(topo);
    return fail(r, rc, "inconsistent faces");
  }
  if ((rc = sinew__mesh_new(topo, (uint32_t)r->npoints, false, &mesh))) return fail(r, rc, "out of memory");
  if (r->points.len) memcpy((float *)sinew_mesh_get(mesh)->points, r->points.ptr, r->points.len);
  *out = mesh;
  return SINEW_OK;
}

int sinew_mesh_read_obj(FILE *in, const char *name, sinew_data_t **out, char *errbuf, size_t errlen) {
  obj_reader r = {.in = in, .name = name ? name : "obj", .errbuf = errbuf, .errlen = errlen, .next = 1};
  if (errbuf && errlen) errbuf[0] = '\0';
  if (!in || !out) return fail(&r, SINEW_EINVAL, "no file or no output");
  int rc = SINEW_OK;
  bool got = true;
  while (!rc) {
    if ((rc = read_line(&r, &got)) || !got) break;
    rc = parse_line(&r);
  }
  r.line = r.next;
  if (!rc) rc = build(&r, out);
  sinew__mesh_buf_free(&r.text);
  sinew__mesh_buf_free(&r.points);
  sinew__mesh_buf_free(&r.counts);
  sinew__mesh_buf_free(&r.verts);
  return rc;
}
