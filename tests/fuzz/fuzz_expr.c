/* tests/fuzz/fuzz_expr.c: the bytes as the text of an expression (expression mode of the
 * language, sinew/lang.h): compiled, its references listed, its internal text (.I[n] / .O[n])
 * and a rewrite made, then evaluated three times (variables keep their values) with inputs
 * of every kind of number. The internal text must compile too, with the same numbers of
 * inputs and outputs: it is what a saved file holds and what an expression node compiles.
 * Each evaluation runs on the VM the expression gets (the typed VM for numbers and vectors)
 * and on the generic VM (the one internal call, sinew__expr_use_typed): the two must give the
 * same result, faults, fault text and outputs, bit for bit. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/lang_internal.h"
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_init();
  return 0;
}

static const char *name_ref(void *ud, const sinew_expr_ref_t *ref) {
  (void)ud;
  return ref->written ? "obj.out" : NULL;
}

/* `.I[n]` and `.O[n]` name input and output n directly: the reference must get index n, and a
 * number an int32 cannot hold must be refused, not wrapped to another index. */
static void check_direct_ref(const sinew_expr_ref_t *r) {
  const char *t = r->text;
  if (t[0] != '.' || (t[1] != 'I' && t[1] != 'O') || t[2] != '[') return;
  size_t k = 3;
  uint64_t n = 0;
  bool big = false;
  while (t[k] >= '0' && t[k] <= '9') {
    n = n * 10 + (uint64_t)(t[k++] - '0');
    if (n > INT32_MAX) big = true, n = INT32_MAX + (uint64_t)1;
  }
  if (k == 3 || t[k] != ']' || t[k + 1]) return;
  if (big || (uint64_t)r->index != n) {
    fprintf(stderr, "fuzz: the reference %s got index %d\n", t, (int)r->index);
    abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 65536) return 0;
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = 0;
  sinew_expr_t *e = NULL;
  char err[256];
  if (sinew_expr_compile(text, &e, err, sizeof err) != SINEW_OK) {
    free(text);
    return 0;
  }
  size_t nin = sinew_expr_input_count(e), nout = sinew_expr_output_count(e);
  size_t nref = sinew_expr_ref_count(e);
  for (size_t i = 0; i < nref; i++) {
    const sinew_expr_ref_t *r = sinew_expr_ref(e, i);
    if (!r || !r->text) abort();
    check_direct_ref(r);
  }
  (void)sinew_expr_uses_time(e);
  char *internal = sinew_expr_internal_text(e);
  char *rewritten = sinew_expr_rewrite(e, name_ref, NULL);
  sinew_free(rewritten);
  if (internal) {
    sinew_expr_t *again = NULL;
    char err2[256];
    int rc = sinew_expr_compile(internal, &again, err2, sizeof err2);
    if (rc != SINEW_OK && rc != SINEW_ENOMEM) {
      fprintf(stderr, "fuzz: the internal text does not compile (%s):\n%.500s\n", err2, internal);
      abort();
    }
    if (again && (sinew_expr_input_count(again) != nin || sinew_expr_output_count(again) != nout)) {
      fprintf(stderr, "fuzz: the internal text has %zu inputs and %zu outputs, the text %zu and %zu:\n%.500s\n",
              sinew_expr_input_count(again), sinew_expr_output_count(again), nin, nout, internal);
      abort();
    }
    sinew_expr_destroy(again);
    sinew_free(internal);
  }

  /* .I[n] / .O[n] make n + 1 inputs or outputs: evaluate only what fits in small arrays */
  if (nin > 4096 || nout > 4096) {
    sinew_expr_destroy(e);
    free(text);
    return 0;
  }
  static const double values[] = {0.0, 1.0, -2.5, 1e300, -1e-300, 3e9, NAN, INFINITY, -0.0, 0.5};
  sinew_expr_t *generic = NULL;
  char err3[256];
  if (sinew_expr_compile(text, &generic, err3, sizeof err3) != SINEW_OK) abort();
  sinew__expr_use_typed(generic, false);
  double *in = calloc(nin + 1, sizeof *in), *out = calloc(nout + 1, sizeof *out);
  double *gout = calloc(nout + 1, sizeof *gout);
  const sinew_mat4_t **mats = calloc(nin + 1, sizeof *mats);
  static const sinew_mat4_t ident = {{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}};
  if (in && out && gout && mats) {
    for (int round = 0; round < 3; round++) {
      for (size_t i = 0; i < nin; i++) {
        in[i] = values[(i + (size_t)round * 3) % (sizeof values / sizeof values[0])];
        mats[i] = (i + (size_t)round) % 4 == 3 ? &ident : NULL;
      }
      sinew_expr_io_t io = {.inputs = in, .ninputs = nin, .input_matrices = mats, .outputs = out,
                            .noutputs = nout, .time_seconds = round * 0.5, .frame = 12.0 * round,
                            .max_steps = FUZZ_MAX_STEPS};
      unsigned faults = 0, gfaults = 0;
      char fault[128], gfault[128];
      int rc = sinew_expr_eval(e, &io, &faults, fault, sizeof fault);
      sinew_expr_io_t gio = io;
      gio.outputs = gout;
      int grc = sinew_expr_eval(generic, &gio, &gfaults, gfault, sizeof gfault);
      if (rc != grc || faults != gfaults || strcmp(fault, gfault) != 0 ||
          memcmp(out, gout, nout * sizeof *out) != 0) {
        fprintf(stderr, "fuzz: round %d: the typed VM (%d, %u faults \"%s\") and the generic VM (%d, %u faults \"%s\") disagree:\n%.500s\n",
                round, rc, faults, fault, grc, gfaults, gfault, text);
        for (size_t k = 0; k < nout; k++)
          if (memcmp(&out[k], &gout[k], sizeof *out)) fprintf(stderr, "  output %zu: %.17g / %.17g\n", k, out[k], gout[k]);
        abort();
      }
    }
  }
  sinew_expr_destroy(generic);
  free(gout);
  free(in);
  free(out);
  free(mats);
  sinew_expr_destroy(e);
  free(text);
  return 0;
}
