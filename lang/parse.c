/* lang/parse.c: the lexer and recursive-descent parser of the MEL subset, for both front ends.
 *
 * Script mode reads MEL's command syntax: a statement that starts with a name is a command
 * unless name( is a call that ends the statement (call_or_command: setAttr ($n + ".tx") 10; is
 * a command), and its words are split the way MEL splits them (flags -name, numbers,
 * quoted strings, $variables, (expressions), `backquoted commands`, and bare words such as
 * :time1 or |grp|joint1.tx, which are strings). Expression mode reads attribute references
 * (obj.attr, obj.attr[2], .I[0], a bare attribute of the default object) instead of commands.
 * The result is an AST in an arena that the compiler turns into bytecode. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/lang_internal.h"

#define MAX_NESTING 200     /* parentheses, blocks and prefix operators inside each other */
#define MAX_TREE_DEPTH 1000 /* levels of the syntax tree (operator chains included) */

/* ---- arena ------------------------------------------------------------------------------------ */

typedef struct arena_block {
  struct arena_block *next;
  size_t used, cap;
  _Alignas(16) char data[];
} arena_block;

static void *arena_alloc(sinew__parse *p, size_t n) {
  n = (n + 15) & ~(size_t)15;
  arena_block *b = p->arena;
  if (!b || b->used + n > b->cap) {
    size_t cap = n > 65536 ? n : 65536;
    arena_block *nb = sinew_malloc(sizeof *nb + cap);
    if (!nb) return NULL;
    nb->next = b;
    nb->used = 0;
    nb->cap = cap;
    p->arena = b = nb;
  }
  void *r = b->data + b->used;
  b->used += n;
  return r;
}

void sinew__parse_free(sinew__parse *p) {
  arena_block *b = p->arena;
  while (b) {
    arena_block *n = b->next;
    sinew_free(b);
    b = n;
  }
  p->arena = NULL;
}

/* ---- errors ----------------------------------------------------------------------------------- */

#define FAIL(p, ...)                \
  do {                              \
    syntax_error((p), __VA_ARGS__); \
    return NULL;                    \
  } while (0)

static uint32_t col_at(const sinew__parse *p, size_t pos) {
  return (uint32_t)(pos - p->col_base) + 1;
}

static void syntax_error(sinew__parse *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void syntax_error(sinew__parse *p, const char *fmt, ...) {
  if (p->status) return;
  p->status = SINEW_ESYNTAX;
  p->err_line = p->line;
  p->err_col = col_at(p, p->pos);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(p->err, sizeof p->err, fmt, ap);
  va_end(ap);
}

static void oom(sinew__parse *p) {
  if (p->status) return;
  p->status = SINEW_ENOMEM;
  p->err_line = p->line;
  p->err_col = 0;
  snprintf(p->err, sizeof p->err, "out of memory");
}

static ast *node(sinew__parse *p, uint8_t kind) {
  ast *a = arena_alloc(p, sizeof *a);
  if (!a) {
    oom(p);
    return NULL;
  }
  memset(a, 0, sizeof *a);
  a->kind = kind;
  a->line = p->line;
  a->col = col_at(p, p->pos);
  a->slot = -1;
  return a;
}

/* ---- characters ------------------------------------------------------------------------------- */

static int peekc(const sinew__parse *p, size_t k) {
  return p->pos + k < p->len ? (unsigned char)p->src[p->pos + k] : 0;
}

static void advance(sinew__parse *p, size_t k) {
  for (size_t i = 0; i < k && p->pos < p->len; i++) {
    if (p->src[p->pos] == '\n') {
      p->line++;
      p->col_base = p->pos + 1;
    }
    p->pos++;
  }
}

/* Skips white space and comments. */
static void skip_ws(sinew__parse *p) {
  for (;;) {
    int c = peekc(p, 0);
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      advance(p, 1);
    } else if (c == '/' && peekc(p, 1) == '/') {
      while (p->pos < p->len && p->src[p->pos] != '\n') p->pos++;
    } else if (c == '/' && peekc(p, 1) == '*') {
      uint32_t line = p->line;
      size_t start = p->pos, col_base = p->col_base;
      advance(p, 2);
      while (p->pos < p->len && !(peekc(p, 0) == '*' && peekc(p, 1) == '/')) advance(p, 1);
      if (p->pos >= p->len) { /* the error points at the comment's start */
        p->line = line;
        p->col_base = col_base;
        p->pos = start;
        syntax_error(p, "unterminated comment");
        p->pos = p->len;
        return;
      }
      advance(p, 2);
    } else {
      return;
    }
  }
}

static bool is_ident_start(int c) { return isalpha(c) || c == '_'; }
static bool is_ident(int c) { return isalnum(c) || c == '_'; }

/* True (and consumed) when the next non-blank text is the punctuation s. */
static bool accept(sinew__parse *p, const char *s) {
  skip_ws(p);
  size_t n = strlen(s);
  if (p->pos + n > p->len || memcmp(p->src + p->pos, s, n) != 0) return false;
  /* keep "<" from matching "<<", "=" from "==", "&" from "&&" and so on */
  int next = peekc(p, n);
  if (n == 1 && strchr("=<>&|+-", s[0]) && next == s[0] && s[0] != '=') return false;
  if (n == 1 && strchr("=<>!+-*/", s[0]) && next == '=') return false;
  advance(p, n);
  return true;
}

static bool expect(sinew__parse *p, const char *s) {
  if (accept(p, s)) return true;
  skip_ws(p);
  if (p->pos >= p->len)
    syntax_error(p, "expected '%s' before the end of the text", s);
  else
    syntax_error(p, "expected '%s'", s);
  return false;
}

/* Reads an identifier at pos (no leading blanks); returns its length (0: none). */
static size_t ident_len(const sinew__parse *p) {
  size_t i = 0;
  if (!is_ident_start(peekc(p, 0))) return 0;
  while (is_ident(peekc(p, i))) i++;
  return i;
}

static bool word_is(const sinew__parse *p, const char *w) {
  size_t n = strlen(w);
  return p->pos + n <= p->len && memcmp(p->src + p->pos, w, n) == 0 && !is_ident(peekc(p, n));
}

static const char *dup_text(sinew__parse *p, const char *s, size_t n) {
  char *d = arena_alloc(p, n + 1);
  if (!d) {
    oom(p);
    return NULL;
  }
  memcpy(d, s, n);
  d[n] = 0;
  return d;
}

/* ---- literals ----------------------------------------------------------------------------------- */

static ast *number(sinew__parse *p) {
  const char *s = p->src + p->pos;
  char *end;
  ast *a;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2])) {
    errno = 0;
    unsigned long long v = strtoull(s, &end, 16);
    if (!(a = node(p, A_INT))) return NULL;
    a->v.i = (int64_t)v;
  } else {
    size_t i = 0;
    bool is_float = false;
    while (isdigit((unsigned char)s[i])) i++;
    if (s[i] == '.') {
      is_float = true;
      i++;
      while (isdigit((unsigned char)s[i])) i++;
    }
    if ((s[i] == 'e' || s[i] == 'E') &&
        (isdigit((unsigned char)s[i + 1]) ||
         ((s[i + 1] == '-' || s[i + 1] == '+') && isdigit((unsigned char)s[i + 2])))) {
      is_float = true;
    }
    if (is_float) {
      if (!(a = node(p, A_FLOAT))) return NULL;
      a->v.f = strtod(s, &end);
    } else {
      errno = 0;
      long long v = strtoll(s, &end, 10);
      if (errno == ERANGE) {
        if (!(a = node(p, A_FLOAT))) return NULL;
        a->v.f = strtod(s, &end);
      } else {
        if (!(a = node(p, A_INT))) return NULL;
        a->v.i = v;
      }
    }
  }
  advance(p, (size_t)(end - s));
  return a;
}

/* A quoted string with C escapes. */
static ast *string_lit(sinew__parse *p) {
  ast *a = node(p, A_STRING);
  if (!a) return NULL;
  advance(p, 1); /* " */
  size_t start = p->pos, n = 0;
  bool esc = false;
  for (size_t i = p->pos; i < p->len; i++) {
    char c = p->src[i];
    if (c == '\\' && i + 1 < p->len) {
      esc = true;
      i++;
    } else if (c == '"') {
      break;
    } else if (c == '\n') {
      syntax_error(p, "unterminated string");
      return NULL;
    }
    n++;
  }
  char *d = arena_alloc(p, n + 1);
  if (!d) {
    oom(p);
    return NULL;
  }
  size_t k = 0;
  for (;;) {
    if (p->pos >= p->len) {
      p->pos = start - 1;
      syntax_error(p, "unterminated string");
      return NULL;
    }
    char c = p->src[p->pos];
    if (c == '"') break;
    if (c == '\\' && p->pos + 1 < p->len) {
      char e = p->src[p->pos + 1];
      switch (e) {
        case 'n': c = '\n'; break;
        case 't': c = '\t'; break;
        case 'r': c = '\r'; break;
        case '"': c = '"'; break;
        case '\\': c = '\\'; break;
        default: c = e; break;
      }
      advance(p, 2);
    } else {
      advance(p, 1);
    }
    d[k++] = c;
  }
  (void)esc;
  d[k] = 0;
  advance(p, 1); /* closing " */
  a->v.str.s = d;
  a->v.str.len = k;
  return a;
}

/* ---- expressions -------------------------------------------------------------------------------- */

static ast *expr(sinew__parse *p);
static ast *assignment(sinew__parse *p);
static ast *unary(sinew__parse *p);
static ast *command(sinew__parse *p, bool backquoted);
static ast *statement(sinew__parse *p);
static ast *additive(sinew__parse *p);

static int type_keyword(const sinew__parse *p, size_t *len) {
  static const struct { const char *w; uint8_t k; } types[] = {
      {"int", SINEW_VALUE_INT},       {"float", SINEW_VALUE_FLOAT}, {"string", SINEW_VALUE_STRING},
      {"vector", SINEW_VALUE_VECTOR}, {"matrix", SINEW_VALUE_MATRIX}};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    if (word_is(p, types[i].w)) {
      *len = strlen(types[i].w);
      return types[i].k;
    }
  return 0;
}

/* $name */
static ast *variable(sinew__parse *p) {
  ast *a = node(p, A_VAR);
  if (!a) return NULL;
  advance(p, 1);
  size_t n = ident_len(p);
  if (!n) FAIL(p, "expected a variable name after '$'");
  a->v.str.s = dup_text(p, p->src + p->pos, n);
  a->v.str.len = n;
  advance(p, n);
  return a;
}

/* Comma-separated expressions up to close; returns the list (may be empty). */
static ast *expr_list(sinew__parse *p, const char *close, int *count) {
  ast *head = NULL, **tail = &head;
  *count = 0;
  if (accept(p, close)) return head;
  for (;;) {
    ast *e = expr(p);
    if (!e) return NULL;
    *tail = e;
    tail = &e->next;
    (*count)++;
    if (accept(p, close)) return head ? head : NULL;
    if (!expect(p, ",")) return NULL;
  }
}

/* An attribute reference in expression mode: obj.attr[2].child, ns:obj.attr, |a|b.attr,
 * .I[0], or a bare attribute of the default object. Indices must be integers. */
static ast *attr_ref(sinew__parse *p) {
  ast *a = node(p, A_ATTR);
  if (!a) return NULL;
  size_t start = p->pos;
  size_t i = 0;
  for (;;) {
    int c = peekc(p, i);
    if (is_ident(c) || c == '|' || c == '.' || c == ':') {
      if (c == ':' && !is_ident_start(peekc(p, i + 1))) break;
      if (c == '|' && (peekc(p, i + 1) == '|' || !is_ident_start(peekc(p, i + 1)))) break;
      if (c == '.' && !is_ident_start(peekc(p, i + 1))) break;
      i++;
    } else if (c == '[') {
      size_t j = i + 1;
      while (peekc(p, j) == ' ') j++;
      if (!isdigit(peekc(p, j))) break;
      while (isdigit(peekc(p, j))) j++;
      while (peekc(p, j) == ' ') j++;
      if (peekc(p, j) != ']') break;
      i = j + 1;
    } else {
      break;
    }
  }
  if (i == 0) FAIL(p, "expected an attribute");
  /* the text without blanks inside brackets */
  char *d = arena_alloc(p, i + 1);
  if (!d) {
    oom(p);
    return NULL;
  }
  size_t k = 0;
  for (size_t j = 0; j < i; j++)
    if (p->src[start + j] != ' ') d[k++] = p->src[start + j];
  d[k] = 0;
  a->v.str.s = d;
  a->v.str.len = k;
  a->src_pos = (uint32_t)start;
  a->src_len = (uint32_t)i;
  advance(p, i);
  return a;
}

static ast *primary(sinew__parse *p) {
  skip_ws(p);
  if (p->status) return NULL;
  int c = peekc(p, 0);
  if (isdigit(c) || (c == '.' && isdigit(peekc(p, 1)))) return number(p);
  if (c == '"') return string_lit(p);
  if (c == '$') return variable(p);
  if (c == '`') {
    if (p->expr_mode) FAIL(p, "commands are not allowed in expressions");
    advance(p, 1);
    ast *cmd = command(p, true);
    return cmd;
  }
  if (c == '<' && peekc(p, 1) == '<') {
    ast *a = node(p, A_VECTOR);
    if (!a) return NULL;
    advance(p, 2);
    /* <<x, y, z>>; a matrix literal uses ';' between rows */
    ast *head = NULL, **tail = &head;
    int n = 0, rows = 1;
    /* elements are additive expressions (no comparisons, so '>>' ends the literal) */
    for (;;) {
      skip_ws(p);
      ast *el = additive(p);
      if (!el) return NULL;
      *tail = el;
      tail = &el->next;
      n++;
      if (accept(p, ",")) continue;
      if (accept(p, ";")) {
        rows++;
        continue;
      }
      skip_ws(p);
      if (peekc(p, 0) == '>' && peekc(p, 1) == '>') {
        advance(p, 2);
        break;
      }
      FAIL(p, "expected ',' or '>>' in a vector");
    }
    a->a = head;
    a->v.i = n;
    a->op = (uint8_t)(rows > 255 ? 255 : rows);
    if (rows == 1 && n != 3) FAIL(p, "a vector has 3 components, not %d", n);
    return a;
  }
  if (c == '{') {
    ast *a = node(p, A_ARRAY);
    if (!a) return NULL;
    advance(p, 1);
    int n;
    a->a = expr_list(p, "}", &n);
    if (p->status) return NULL;
    a->v.i = n;
    return a;
  }
  if (c == '(') {
    size_t save = p->pos;
    uint32_t sline = p->line;
    size_t sbase = p->col_base;
    advance(p, 1);
    skip_ws(p);
    size_t tl;
    int tk = type_keyword(p, &tl);
    if (tk) {
      size_t save2 = p->pos;
      advance(p, tl);
      if (accept(p, ")")) { /* (float) x */
        ast *a = node(p, A_CAST);
        if (!a) return NULL;
        a->op = (uint8_t)tk;
        if (!(a->a = unary(p))) return NULL;
        return a;
      }
      p->pos = save2;
    }
    (void)save;
    (void)sline;
    (void)sbase;
    ast *e = expr(p);
    if (!e) return NULL;
    if (!expect(p, ")")) return NULL;
    return e;
  }
  if (p->expr_mode && (c == '.' || c == '|') && is_ident_start(peekc(p, 1))) return attr_ref(p);
  if (is_ident_start(c)) {
    size_t n = ident_len(p);
    const char *w = p->src + p->pos;
    size_t tl;
    int tk = type_keyword(p, &tl);
    if (tk) { /* float(x) */
      ast *a = node(p, A_CAST);
      if (!a) return NULL;
      a->op = (uint8_t)tk;
      advance(p, tl);
      if (!expect(p, "(")) return NULL;
      if (!(a->a = expr(p))) return NULL;
      if (!expect(p, ")")) return NULL;
      return a;
    }
    static const struct { const char *w; int v; } consts[] = {
        {"true", 1}, {"false", 0}, {"on", 1}, {"off", 0}, {"yes", 1}, {"no", 0}};
    for (size_t i = 0; i < sizeof consts / sizeof consts[0]; i++)
      if (word_is(p, consts[i].w)) {
        ast *a = node(p, A_INT);
        if (!a) return NULL;
        a->v.i = consts[i].v;
        advance(p, n);
        return a;
      }
    if (p->expr_mode && (word_is(p, "time") || word_is(p, "frame"))) {
      ast *a = node(p, word_is(p, "time") ? A_TIME : A_FRAME);
      if (!a) return NULL;
      advance(p, n);
      return a;
    }
    /* name( : a call */
    size_t j = n;
    while (peekc(p, j) == ' ' || peekc(p, j) == '\t') j++;
    if (peekc(p, j) == '(') {
      ast *a = node(p, A_CALL);
      if (!a) return NULL;
      a->v.str.s = dup_text(p, w, n);
      a->v.str.len = n;
      advance(p, j + 1);
      int argc;
      a->a = expr_list(p, ")", &argc);
      if (p->status) return NULL;
      a->count = argc;
      return a;
    }
    if (p->expr_mode) return attr_ref(p);
    FAIL(p, "unexpected word '%.*s' (a command must start its own statement; use `backquotes` "
            "to capture its result)", (int)n, w);
  }
  if (p->pos >= p->len) FAIL(p, "unexpected end of the text");
  FAIL(p, "unexpected '%c'", c);
}

static ast *postfix(sinew__parse *p) {
  ast *a = primary(p);
  if (!a) return NULL;
  for (;;) {
    skip_ws(p);
    int c = peekc(p, 0);
    if (c == '[' && (a->kind == A_VAR || a->kind == A_INDEX || a->kind == A_CALL)) {
      ast *ix = node(p, A_INDEX);
      if (!ix) return NULL;
      advance(p, 1);
      ix->a = a;
      if (!(ix->b = expr(p))) return NULL;
      if (!expect(p, "]")) return NULL;
      a = ix;
    } else if (c == '.' && (a->kind == A_VAR || a->kind == A_INDEX) &&
               (peekc(p, 1) == 'x' || peekc(p, 1) == 'y' || peekc(p, 1) == 'z') &&
               !is_ident(peekc(p, 2))) {
      ast *cp = node(p, A_COMPONENT);
      if (!cp) return NULL;
      cp->v.i = peekc(p, 1) - 'x';
      cp->a = a;
      advance(p, 2);
      a = cp;
    } else if ((c == '+' && peekc(p, 1) == '+') || (c == '-' && peekc(p, 1) == '-')) {
      if (a->kind != A_VAR && a->kind != A_ATTR && a->kind != A_INDEX) return a;
      ast *u = node(p, A_INCDEC);
      if (!u) return NULL;
      u->op = c == '+' ? OP_INC : OP_DEC;
      u->flag = 1; /* postfix */
      u->a = a;
      advance(p, 2);
      a = u;
    } else {
      return a;
    }
  }
}

/* Parentheses, blocks and prefix operators recurse on the C stack: past MAX_NESTING levels the
 * text is refused (docs/lang.md), so no input can overflow the stack. */
static bool enter(sinew__parse *p) {
  if (++p->depth <= MAX_NESTING) return true;
  skip_ws(p);
  syntax_error(p, "nested too deeply (more than %d levels of parentheses, blocks or operators)",
               MAX_NESTING);
  return false;
}

static ast *unary_nested(sinew__parse *p);

static ast *unary(sinew__parse *p) {
  ast *a = enter(p) ? unary_nested(p) : NULL;
  p->depth--;
  return a;
}

static ast *unary_nested(sinew__parse *p) {
  skip_ws(p);
  int c = peekc(p, 0);
  if ((c == '+' && peekc(p, 1) == '+') || (c == '-' && peekc(p, 1) == '-')) {
    ast *u = node(p, A_INCDEC);
    if (!u) return NULL;
    u->op = c == '+' ? OP_INC : OP_DEC;
    advance(p, 2);
    if (!(u->a = unary(p))) return NULL;
    if (u->a->kind != A_VAR && u->a->kind != A_ATTR && u->a->kind != A_INDEX)
      FAIL(p, "%s needs a variable or attribute", c == '+' ? "++" : "--");
    return u;
  }
  if (c == '-' || c == '!' || c == '+') {
    ast *u = node(p, A_UNARY);
    if (!u) return NULL;
    u->op = c == '-' ? OP_NEG : c == '!' ? OP_NOT : OP_PLUS;
    advance(p, 1);
    if (!(u->a = unary(p))) return NULL;
    /* fold negative literals so "-1" is a constant */
    if (u->op == OP_NEG && u->a->kind == A_INT) {
      u->a->v.i = -u->a->v.i;
      return u->a;
    }
    if (u->op == OP_NEG && u->a->kind == A_FLOAT) {
      u->a->v.f = -u->a->v.f;
      return u->a;
    }
    return u;
  }
  return postfix(p);
}

static ast *binary(sinew__parse *p, uint8_t op, ast *l, ast *r) {
  ast *b = node(p, A_BINARY);
  if (!b) return NULL;
  b->op = op;
  b->a = l;
  b->b = r;
  b->line = l->line;
  b->col = l->col;
  return b;
}

static ast *multiplicative(sinew__parse *p) {
  ast *l = unary(p);
  while (l) {
    uint8_t op;
    if (accept(p, "*")) op = OP_MUL;
    else if (accept(p, "/")) op = OP_DIV;
    else if (accept(p, "%")) op = OP_MOD;
    else if (accept(p, "^")) op = OP_CROSS;
    else return l;
    ast *r = unary(p);
    if (!r) return NULL;
    l = binary(p, op, l, r);
  }
  return NULL;
}

static ast *additive(sinew__parse *p) {
  ast *l = multiplicative(p);
  while (l) {
    uint8_t op;
    skip_ws(p);
    /* "a -1" in an expression is a subtraction; "a - -1" too */
    if (accept(p, "+")) op = OP_ADD;
    else if (accept(p, "-")) op = OP_SUB;
    else return l;
    ast *r = multiplicative(p);
    if (!r) return NULL;
    l = binary(p, op, l, r);
  }
  return NULL;
}

static ast *relational(sinew__parse *p) {
  ast *l = additive(p);
  while (l) {
    uint8_t op;
    skip_ws(p);
    if (peekc(p, 0) == '>' && peekc(p, 1) == '>') return l; /* end of a vector literal */
    if (accept(p, "<=")) op = OP_LE;
    else if (accept(p, ">=")) op = OP_GE;
    else if (accept(p, "<")) op = OP_LT;
    else if (accept(p, ">")) op = OP_GT;
    else return l;
    ast *r = additive(p);
    if (!r) return NULL;
    l = binary(p, op, l, r);
  }
  return NULL;
}

static ast *equality(sinew__parse *p) {
  ast *l = relational(p);
  while (l) {
    uint8_t op;
    if (accept(p, "==")) op = OP_EQ;
    else if (accept(p, "!=")) op = OP_NE;
    else return l;
    ast *r = relational(p);
    if (!r) return NULL;
    l = binary(p, op, l, r);
  }
  return NULL;
}

static ast *logic_and(sinew__parse *p) {
  ast *l = equality(p);
  while (l && accept(p, "&&")) {
    ast *r = equality(p);
    if (!r) return NULL;
    ast *b = binary(p, OP_AND, l, r);
    if (!b) return NULL;
    b->kind = A_LOGIC;
    l = b;
  }
  return l;
}

static ast *logic_or(sinew__parse *p) {
  ast *l = logic_and(p);
  while (l && accept(p, "||")) {
    ast *r = logic_and(p);
    if (!r) return NULL;
    ast *b = binary(p, OP_OR, l, r);
    if (!b) return NULL;
    b->kind = A_LOGIC;
    l = b;
  }
  return l;
}

/* The right-hand sides of ?: and of assignments recurse too: they count as nesting. */
static ast *nested_assignment(sinew__parse *p) {
  ast *a = enter(p) ? assignment(p) : NULL;
  p->depth--;
  return a;
}

static ast *ternary(sinew__parse *p) {
  ast *c = logic_or(p);
  if (!c || !accept(p, "?")) return c;
  ast *t = node(p, A_TERNARY);
  if (!t) return NULL;
  t->a = c;
  if (!(t->b = nested_assignment(p))) return NULL;
  if (!expect(p, ":")) return NULL;
  if (!(t->c = nested_assignment(p))) return NULL;
  return t;
}

static bool is_lvalue(const ast *a) {
  return a->kind == A_VAR || a->kind == A_ATTR || a->kind == A_INDEX ||
         (a->kind == A_COMPONENT && (a->a->kind == A_VAR));
}

static ast *assignment(sinew__parse *p) {
  ast *l = ternary(p);
  if (!l) return NULL;
  skip_ws(p);
  static const struct { const char *t; uint8_t op; } ops[] = {
      {"+=", OP_ADD}, {"-=", OP_SUB}, {"*=", OP_MUL}, {"/=", OP_DIV}, {"=", OP_ASSIGN}};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    size_t n = strlen(ops[i].t);
    if (p->pos + n <= p->len && memcmp(p->src + p->pos, ops[i].t, n) == 0 &&
        !(n == 1 && peekc(p, 1) == '=')) {
      if (!is_lvalue(l)) FAIL(p, "cannot assign to this");
      ast *a = node(p, A_ASSIGN);
      if (!a) return NULL;
      a->op = ops[i].op;
      a->line = l->line;
      a->col = l->col;
      advance(p, n);
      a->a = l;
      if (!(a->b = nested_assignment(p))) return NULL;
      return a;
    }
  }
  return l;
}

static ast *expr(sinew__parse *p) { return assignment(p); }

/* ---- command syntax ------------------------------------------------------------------------------ */

static bool word_end(int c) {
  return c == 0 || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';' || c == '`' ||
         c == '(' || c == ')' || c == '"' || c == '{' || c == '}';
}

/* One word of a command: see the file comment. */
static ast *command_word(sinew__parse *p) {
  int c = peekc(p, 0);
  if (c == '-' && is_ident_start(peekc(p, 1))) {
    ast *a = node(p, A_FLAG);
    if (!a) return NULL;
    advance(p, 1);
    size_t n = ident_len(p);
    a->v.str.s = dup_text(p, p->src + p->pos, n);
    a->v.str.len = n;
    advance(p, n);
    return a;
  }
  if (c == '-' && (peekc(p, 1) == '$' || peekc(p, 1) == '(')) { /* -$y, -($y * 2) */
    ast *u = node(p, A_UNARY);
    if (!u) return NULL;
    u->op = OP_NEG;
    advance(p, 1);
    if (!(u->a = command_word(p))) return NULL;
    return u;
  }
  if (c == '$') {
    ast *v = variable(p);
    if (!v) return NULL;
    while (peekc(p, 0) == '[') {
      ast *ix = node(p, A_INDEX);
      if (!ix) return NULL;
      advance(p, 1);
      ix->a = v;
      if (!(ix->b = expr(p))) return NULL;
      if (!expect(p, "]")) return NULL;
      v = ix;
    }
    return v;
  }
  if (c == '"' || c == '(' || c == '`' || c == '{' || (c == '<' && peekc(p, 1) == '<'))
    return primary(p);
  /* a number, unless letters follow it directly (6ntsc, 1e) */
  int k = (c == '-' || c == '+') ? 1 : 0;
  if (isdigit(peekc(p, k)) || (peekc(p, k) == '.' && isdigit(peekc(p, k + 1)))) {
    size_t save = p->pos;
    uint32_t sline = p->line;
    advance(p, (size_t)k);
    ast *n = number(p);
    if (!n) return NULL;
    if (word_end(peekc(p, 0))) {
      if (c == '-') {
        if (n->kind == A_INT) n->v.i = -n->v.i;
        else n->v.f = -n->v.f;
      }
      return n;
    }
    p->pos = save;
    p->line = sline;
  }
  size_t i = 0;
  while (!word_end(peekc(p, i))) i++;
  /* a character that ends words but starts none ('}' inside backquotes): refused, never an empty
   * word that does not move the parser on */
  if (i == 0) FAIL(p, "unexpected '%c' in a command", c);
  ast *a = node(p, A_WORD);
  if (!a) return NULL;
  a->v.str.s = dup_text(p, p->src + p->pos, i);
  a->v.str.len = i;
  advance(p, i);
  return a;
}

/* name word word ... ; (or up to the closing backquote). */
static ast *command(sinew__parse *p, bool backquoted) {
  skip_ws(p);
  size_t n = ident_len(p);
  if (!n) FAIL(p, "expected a command name");
  ast *a = node(p, A_CMD);
  if (!a) return NULL;
  a->v.str.s = dup_text(p, p->src + p->pos, n);
  a->v.str.len = n;
  advance(p, n);
  ast *head = NULL, **tail = &head;
  int argc = 0;
  for (;;) {
    skip_ws(p);
    if (p->status) return NULL;
    int c = peekc(p, 0);
    if (backquoted && c == '`') {
      advance(p, 1);
      break;
    }
    if (!backquoted && (c == ';' || c == '}' || c == 0)) break;
    if (c == 0) FAIL(p, "unterminated `backquote`");
    if (c == ')' || c == ';') FAIL(p, "unexpected '%c' in a command", c);
    ast *w = command_word(p);
    if (!w) return NULL;
    *tail = w;
    tail = &w->next;
    argc++;
  }
  a->a = head;
  a->count = argc;
  return a;
}

/* ---- statements ------------------------------------------------------------------------------------- */

static ast *block(sinew__parse *p) {
  ast *b = node(p, A_BLOCK);
  if (!b) return NULL;
  if (!expect(p, "{")) return NULL;
  ast *head = NULL, **tail = &head;
  for (;;) {
    skip_ws(p);
    if (p->status) return NULL;
    if (accept(p, "}")) break;
    if (p->pos >= p->len) FAIL(p, "expected '}' before the end of the text");
    ast *s = statement(p);
    if (!s) return NULL;
    *tail = s;
    tail = &s->next;
  }
  b->a = head;
  return b;
}

/* An array size (0 up) or a matrix dimension (1 up): a whole number up to max. */
static ast *size_literal(sinew__parse *p, int64_t min, int64_t max) {
  ast *n = number(p);
  if (!n) return NULL;
  if (n->kind != A_INT || n->v.i < min || n->v.i > max)
    FAIL(p, "a size must be a whole number from %lld to %lld", (long long)min, (long long)max);
  return n;
}

/* int $a, $b[] = {1}, $c = 2 */
static ast *declaration(sinew__parse *p, int kind, bool global) {
  ast *head = NULL, **tail = &head;
  do {
    skip_ws(p);
    if (peekc(p, 0) != '$') FAIL(p, "expected a variable name");
    ast *d = node(p, A_DECL);
    if (!d) return NULL;
    d->op = (uint8_t)kind;
    d->flag = global;
    ast *v = variable(p);
    if (!v) return NULL;
    d->v.str = v->v.str;
    if (accept(p, "[")) {
      d->is_array = 1;
      skip_ws(p);
      if (isdigit(peekc(p, 0)) && !(d->b = size_literal(p, kind == SINEW_VALUE_MATRIX ? 1 : 0, kind == SINEW_VALUE_MATRIX ? 4096 : 1 << 24)))
        return NULL;
      if (!expect(p, "]")) return NULL;
      if (kind == SINEW_VALUE_MATRIX) {
        if (!expect(p, "[")) return NULL;
        skip_ws(p);
        if (isdigit(peekc(p, 0)) && !(d->c = size_literal(p, 1, 4096))) return NULL;
        if (!expect(p, "]")) return NULL;
        d->is_array = 0; /* a matrix with dimensions, not an array */
      }
    } else if (kind == SINEW_VALUE_MATRIX) {
      FAIL(p, "a matrix needs its dimensions ($m[4][4])");
    }
    if (accept(p, "=")) {
      if (!(d->a = expr(p))) return NULL;
    }
    *tail = d;
    tail = &d->next;
  } while (accept(p, ","));
  ast *blk = node(p, A_BLOCK);
  if (!blk) return NULL;
  blk->a = head;
  blk->flag = 1; /* a declaration list: no new scope */
  return blk;
}

static ast *procedure(sinew__parse *p, bool global) {
  ast *pr = node(p, A_PROC);
  if (!pr) return NULL;
  pr->flag = global;
  skip_ws(p);
  size_t tl;
  int rk = type_keyword(p, &tl);
  if (rk) {
    advance(p, tl);
    skip_ws(p);
    if (peekc(p, 0) == '[') {
      advance(p, 1);
      if (!expect(p, "]")) return NULL;
      rk = sinew__array_kind_of((uint8_t)rk);
    }
  }
  pr->op = (uint8_t)rk;
  skip_ws(p);
  size_t n = ident_len(p);
  if (!n) FAIL(p, "expected a procedure name");
  pr->v.str.s = dup_text(p, p->src + p->pos, n);
  pr->v.str.len = n;
  advance(p, n);
  if (!expect(p, "(")) return NULL;
  ast *head = NULL, **tail = &head;
  int np = 0;
  if (!accept(p, ")")) {
    for (;;) {
      skip_ws(p);
      int pk = type_keyword(p, &tl);
      if (!pk) FAIL(p, "expected a parameter type");
      advance(p, tl);
      skip_ws(p);
      if (peekc(p, 0) != '$') FAIL(p, "expected a parameter name");
      ast *d = node(p, A_DECL);
      if (!d) return NULL;
      ast *v = variable(p);
      if (!v) return NULL;
      d->v.str = v->v.str;
      if (accept(p, "[")) {
        if (!expect(p, "]")) return NULL;
        if (pk == SINEW_VALUE_MATRIX) {
          if (!expect(p, "[") || !expect(p, "]")) return NULL;
        } else {
          pk = sinew__array_kind_of((uint8_t)pk);
        }
      }
      d->op = (uint8_t)pk;
      *tail = d;
      tail = &d->next;
      np++;
      if (accept(p, ")")) break;
      if (!expect(p, ",")) return NULL;
    }
  }
  pr->a = head;
  pr->count = np;
  skip_ws(p);
  if (!(pr->b = block(p))) return NULL;
  return pr;
}

static ast *paren_expr(sinew__parse *p) {
  if (!expect(p, "(")) return NULL;
  ast *e = expr(p);
  if (!e) return NULL;
  if (!expect(p, ")")) return NULL;
  return e;
}

/* ';', which MEL lets the last statement of a text leave out (eval("print 1")). */
static bool end_statement(sinew__parse *p) {
  skip_ws(p);
  if (p->pos >= p->len && !p->status) return true;
  return expect(p, ";");
}

/* name word word ...; as a statement. */
static ast *command_statement(sinew__parse *p) {
  ast *s = command(p, false);
  if (!s) return NULL;
  accept(p, ";"); /* command() stops only at ';', '}' or the end of the text */
  ast *st = node(p, A_EXPR_STMT);
  if (!st) return NULL;
  st->a = s;
  st->line = s->line;
  return st;
}

/* Where the parser is, to try one reading of the text and go back for another. */
typedef struct parse_mark {
  size_t pos, col_base;
  uint32_t line;
  int depth;
} parse_mark;

static parse_mark mark(const sinew__parse *p) {
  return (parse_mark){p->pos, p->col_base, p->line, p->depth};
}

static void rewind_to(sinew__parse *p, parse_mark m) {
  p->pos = m.pos;
  p->col_base = m.col_base;
  p->line = m.line;
  p->depth = m.depth;
  p->status = 0;
  p->err[0] = 0;
}

/* Can c (and what follows) start another word of a command? */
static bool starts_command_word(const sinew__parse *p) {
  int c = peekc(p, 0), d = peekc(p, 1);
  if (c == '-')
    return is_ident_start(d) || isdigit(d) || (d == '.' && isdigit(peekc(p, 2))) || d == '$';
  if (is_ident_start(c)) { /* a keyword (f(x) else ...) is not a word: the statement lacks its ';' */
    static const char *const keywords[] = {"if", "else", "for", "while", "do", "switch", "case",
                                           "default", "break", "continue", "return", "proc",
                                           "global", "in"};
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
      if (word_is(p, keywords[i])) return false;
    return true;
  }
  return c == '(' || c == '"' || c == '$' || c == '`' || c == '{' || (c == '<' && d == '<') ||
         isdigit(c) || (c == '.' && isdigit(d)) || c == '|' || c == ':';
}

/* A statement that starts with name( is MEL's function syntax, myProc($a, $b);, when the call
 * ends the statement or an operator follows it (abs(-3) + 1;); it is command syntax whose first
 * word is a parenthesised expression when another word follows: setAttr ($n + ".tx") 10;
 * rename ($a) ($b); move ($x) -1 0; (a '-' glued to a number or a name is a word, as in any
 * command). print ($a + 1); reads the same either way. When neither reading parses, the error
 * of the one that got further is reported. */
static ast *call_or_command(sinew__parse *p) {
  parse_mark start = mark(p);
  ast *e = primary(p); /* name( args ) */
  bool command_form = !e, keyword_next = false;
  if (e) {
    skip_ws(p);
    command_form = !p->status && p->pos < p->len && peekc(p, 0) != ';' && peekc(p, 0) != '}' &&
                   starts_command_word(p);
    keyword_next = !command_form && is_ident_start(peekc(p, 0));
  }
  if (p->status == SINEW_ENOMEM) return NULL;
  if (!command_form) {
    rewind_to(p, start);
    ast *s = node(p, A_EXPR_STMT);
    if (!s) return NULL;
    if ((s->a = expr(p)) && end_statement(p)) return s;
    /* f(x) else ...: a missing ';', not a command with the word else */
    if (p->status == SINEW_ENOMEM || keyword_next) return NULL;
  }
  /* command syntax; when it fails too, the error of the reading that got further */
  size_t call_pos = p->pos;
  uint32_t call_line = p->line;
  size_t call_base = p->col_base;
  int call_status = p->status;
  char call_err[sizeof p->err];
  memcpy(call_err, p->err, sizeof call_err);
  uint32_t call_err_line = p->err_line, call_err_col = p->err_col;
  rewind_to(p, start);
  ast *s = command_statement(p);
  if (s || p->status == SINEW_ENOMEM) return s;
  if (call_status && call_pos > p->pos) {
    p->pos = call_pos;
    p->line = call_line;
    p->col_base = call_base;
    p->status = call_status;
    memcpy(p->err, call_err, sizeof p->err);
    p->err_line = call_err_line;
    p->err_col = call_err_col;
  }
  return NULL;
}

static ast *statement_nested(sinew__parse *p);

static ast *statement(sinew__parse *p) {
  ast *a = enter(p) ? statement_nested(p) : NULL;
  p->depth--;
  return a;
}

static ast *statement_nested(sinew__parse *p) {
  skip_ws(p);
  if (p->status) return NULL;
  int c = peekc(p, 0);
  if (c == ';') {
    advance(p, 1);
    return node(p, A_EMPTY);
  }
  if (c == '{') return block(p);
  size_t tl;
  int tk = type_keyword(p, &tl);
  if (tk) {
    /* "float(x);" is an expression; "float $x" a declaration */
    size_t j = tl;
    while (peekc(p, j) == ' ' || peekc(p, j) == '\t') j++;
    if (peekc(p, j) == '$') {
      advance(p, tl);
      ast *d = declaration(p, tk, false);
      if (!d || !end_statement(p)) return NULL;
      return d;
    }
  }
  if (word_is(p, "global")) {
    advance(p, 6);
    skip_ws(p);
    if (word_is(p, "proc")) {
      if (p->expr_mode) FAIL(p, "procedures cannot be defined in an expression");
      advance(p, 4);
      return procedure(p, true);
    }
    tk = type_keyword(p, &tl);
    if (!tk) FAIL(p, "expected a type or 'proc' after 'global'");
    advance(p, tl);
    ast *d = declaration(p, tk, true);
    if (!d || !end_statement(p)) return NULL;
    return d;
  }
  if (word_is(p, "proc")) {
    if (p->expr_mode) FAIL(p, "procedures cannot be defined in an expression");
    advance(p, 4);
    return procedure(p, false);
  }
  if (word_is(p, "if")) {
    ast *s = node(p, A_IF);
    if (!s) return NULL;
    advance(p, 2);
    if (!(s->a = paren_expr(p)) || !(s->b = statement(p))) return NULL;
    skip_ws(p);
    if (word_is(p, "else")) {
      advance(p, 4);
      if (!(s->c = statement(p))) return NULL;
    }
    return s;
  }
  if (word_is(p, "while")) {
    ast *s = node(p, A_WHILE);
    if (!s) return NULL;
    advance(p, 5);
    if (!(s->a = paren_expr(p)) || !(s->b = statement(p))) return NULL;
    return s;
  }
  if (word_is(p, "do")) {
    ast *s = node(p, A_DO);
    if (!s) return NULL;
    advance(p, 2);
    if (!(s->b = statement(p))) return NULL;
    skip_ws(p);
    if (!word_is(p, "while")) FAIL(p, "expected 'while' after a do block");
    advance(p, 5);
    if (!(s->a = paren_expr(p)) || !end_statement(p)) return NULL;
    return s;
  }
  if (word_is(p, "for")) {
    advance(p, 3);
    if (!expect(p, "(")) return NULL;
    skip_ws(p);
    /* for ($x in $array) */
    size_t save = p->pos;
    uint32_t sline = p->line;
    size_t sbase = p->col_base;
    if (peekc(p, 0) == '$') {
      ast *v = variable(p);
      if (!v) return NULL;
      skip_ws(p);
      if (word_is(p, "in")) {
        advance(p, 2);
        ast *s = node(p, A_FOR_IN);
        if (!s) return NULL;
        s->a = v;
        if (!(s->b = expr(p)) || !expect(p, ")") || !(s->c = statement(p))) return NULL;
        return s;
      }
      p->pos = save;
      p->line = sline;
      p->col_base = sbase;
    }
    ast *s = node(p, A_FOR);
    if (!s) return NULL;
    if (!accept(p, ";")) {
      if (!(s->a = expr(p))) return NULL;
      /* for ($i = 0, $j = 1; ...) */
      ast **t = &s->a->next;
      while (accept(p, ",")) {
        if (!(*t = expr(p))) return NULL;
        t = &(*t)->next;
      }
      if (!expect(p, ";")) return NULL;
    }
    if (!accept(p, ";")) {
      if (!(s->b = expr(p)) || !expect(p, ";")) return NULL;
    }
    if (!accept(p, ")")) {
      if (!(s->c = expr(p))) return NULL;
      ast **t = &s->c->next;
      while (accept(p, ",")) {
        if (!(*t = expr(p))) return NULL;
        t = &(*t)->next;
      }
      if (!expect(p, ")")) return NULL;
    }
    if (!(s->d = statement(p))) return NULL;
    return s;
  }
  if (word_is(p, "switch")) {
    ast *s = node(p, A_SWITCH);
    if (!s) return NULL;
    advance(p, 6);
    if (!(s->a = paren_expr(p)) || !expect(p, "{")) return NULL;
    ast *head = NULL, **tail = &head;
    for (;;) {
      skip_ws(p);
      if (p->status) return NULL;
      if (accept(p, "}")) break;
      if (p->pos >= p->len) FAIL(p, "expected '}' before the end of the text");
      if (word_is(p, "case") || word_is(p, "default")) {
        ast *cs = node(p, A_CASE);
        if (!cs) return NULL;
        if (word_is(p, "case")) {
          advance(p, 4);
          if (!(cs->a = ternary(p))) return NULL;
        } else {
          advance(p, 7);
          cs->flag = 1;
        }
        if (!expect(p, ":")) return NULL;
        *tail = cs;
        tail = &cs->next;
        continue;
      }
      ast *st = statement(p);
      if (!st) return NULL;
      *tail = st;
      tail = &st->next;
    }
    s->b = head;
    return s;
  }
  if (word_is(p, "break") || word_is(p, "continue")) {
    ast *s = node(p, word_is(p, "break") ? A_BREAK : A_CONTINUE);
    if (!s) return NULL;
    advance(p, word_is(p, "break") ? 5 : 8);
    if (!end_statement(p)) return NULL;
    return s;
  }
  if (word_is(p, "return")) {
    ast *s = node(p, A_RETURN);
    if (!s) return NULL;
    advance(p, 6);
    skip_ws(p);
    if (peekc(p, 0) != ';' && !(s->a = expr(p))) return NULL;
    if (!end_statement(p)) return NULL;
    return s;
  }
  /* a command: a name not followed by '(' (script mode) */
  if (!p->expr_mode && is_ident_start(c)) {
    size_t n = ident_len(p);
    size_t j = n;
    while (peekc(p, j) == ' ' || peekc(p, j) == '\t') j++;
    bool call = peekc(p, j) == '(';
    static const char *consts[] = {"true", "false", "on", "off", "yes", "no"};
    bool constant = false;
    for (size_t i = 0; i < 6; i++) constant |= word_is(p, consts[i]);
    if (call && !constant) return call_or_command(p);
    if (!call && !constant) return command_statement(p);
  }
  ast *s = node(p, A_EXPR_STMT);
  if (!s) return NULL;
  if (!(s->a = expr(p))) return NULL;
  if (!end_statement(p)) return NULL;
  return s;
}

/* The compiler and the reference walkers recurse once per level of the tree (children a..d;
 * siblings are walked in loops). Long operator chains ("1+1+...") build deep trees without deep
 * parsing, so the depth is measured here, with an explicit stack, and limited. */
static int check_depth(sinew__parse *p, ast *prog) {
  typedef struct item {
    ast *n;
    uint32_t d;
  } item;
  size_t n = 0, cap = 64;
  item *st = sinew_malloc(cap * sizeof *st);
  if (!st) goto oom;
  for (ast *x = prog; x; x = x->next) {
    if (n == cap) {
      item *t = sinew_realloc(st, 2 * cap * sizeof *st);
      if (!t) goto oom;
      st = t;
      cap *= 2;
    }
    st[n++] = (item){x, 1};
  }
  while (n) {
    item it = st[--n];
    if (it.d > MAX_TREE_DEPTH) {
      p->status = SINEW_ESYNTAX;
      p->err_line = it.n->line;
      p->err_col = it.n->col;
      snprintf(p->err, sizeof p->err, "expression nested too deeply (more than %d levels)", MAX_TREE_DEPTH);
      sinew_free(st);
      return p->status;
    }
    ast *kids[4] = {it.n->a, it.n->b, it.n->c, it.n->d};
    for (int k = 0; k < 4; k++)
      for (ast *x = kids[k]; x; x = x->next) {
        if (n == cap) {
          item *t = sinew_realloc(st, 2 * cap * sizeof *st);
          if (!t) goto oom;
          st = t;
          cap *= 2;
        }
        st[n++] = (item){x, it.d + 1};
      }
  }
  sinew_free(st);
  return SINEW_OK;
oom:
  sinew_free(st);
  p->status = SINEW_ENOMEM;
  p->err_line = p->err_col = 0;
  snprintf(p->err, sizeof p->err, "out of memory");
  return p->status;
}

int sinew__parse_program(sinew__parse *p, const char *src, size_t len, bool expr_mode,
                         ast **out) {
  p->src = src;
  p->len = len;
  p->pos = 0;
  p->line = 1;
  p->col_base = 0;
  /* a UTF-8 byte-order mark (editors on Windows write one) is not part of the text */
  if (len >= 3 && (unsigned char)src[0] == 0xEF && (unsigned char)src[1] == 0xBB && (unsigned char)src[2] == 0xBF)
    p->pos = p->col_base = 3;
  p->expr_mode = expr_mode;
  p->status = 0;
  p->depth = 0;
  p->err[0] = 0;
  p->err_line = p->err_col = 0;
  ast *head = NULL, **tail = &head;
  for (;;) {
    skip_ws(p);
    if (p->status) break;
    if (p->pos >= p->len) break;
    ast *s = statement(p);
    if (!s) {
      if (!p->status) syntax_error(p, "syntax error");
      break;
    }
    *tail = s;
    tail = &s->next;
  }
  if (p->status) return p->status;
  if (check_depth(p, head)) return p->status;
  *out = head;
  return SINEW_OK;
}
