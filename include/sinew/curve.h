/* sinew/curve.h: NURBS curve data and the curve node types.
 *
 * A curve value is a data block (sinew_data_t, type sinew_curve_data_type) holding what Maya's
 * files store in a nurbsCurve's `.cc` ("cached"): degree, form (open / closed / periodic),
 * rational or not, dimension (2 or 3), Maya's knot vector (ncvs + degree - 1 knots: the usual
 * NURBS knot vector without its first and last knot, which never change the curve) and the CVs.
 * A periodic curve lists its first `degree` CVs again at the end, as the files do.
 *
 * Node types (registered by sinew_nodes_register; docs/rigging.md#curves):
 *   nurbsCurve       (a dagNode) create (cr) -> local (l) and worldSpace[] (ws): local is the
 *                    curve `create` holds when connected, else `cached` (cc, the file's geometry);
 *                    worldSpace[i] = local * the parent's world matrix.
 *   makeNurbCircle   normal (nr), center (c), radius (r), degree (d), sections (s), sweep (sw)
 *                    -> outputCurve (oc), Maya's circle.
 *   curveInfo        inputCurve (ic) -> arcLength (al), controlPoints[] (cp), weights[] (wt),
 *                    knots[] (kn).
 *   pointOnCurveInfo inputCurve (ic), parameter (pr), turnOnPercentage (top) -> position (p),
 *                    normal (n), normalizedNormal (nn), tangent (t), normalizedTangent (nt),
 *                    curvatureCenter (cc), curvatureRadius (cr).
 *   motionPath       geometryPath (gp), uValue (u), fractionMode (fm), follow (f), frontAxis
 *                    (fa), upAxis (ua), worldUpType (wut: scene / vector), worldUpVector (wu),
 *                    inverseFront (if), inverseUp (iu), frontTwist (ft), upTwist (ut), sideTwist
 *                    (st) -> allCoordinates (ac), rotate (r), rotateOrder (ro).
 *
 * Thread safety: curve blocks are never written once built and may be read from any thread.
 */
#ifndef SINEW_CURVE_H
#define SINEW_CURVE_H

#include <stdbool.h>
#include <stdint.h>

#include "sinew/graph.h"
#include "sinew/math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Maya's form numbers, as `.cc` writes them. */
typedef enum sinew_curve_form {
  SINEW_CURVE_OPEN = 0,
  SINEW_CURVE_CLOSED = 1,   /* the ends meet (the last CV repeats the first) */
  SINEW_CURVE_PERIODIC = 2, /* smooth across the seam: the last `degree` CVs repeat the first */
  SINEW_CURVE_FORM_MAX
} sinew_curve_form_t;

/* Largest degree and CV count a curve may have (Maya allows degree 1-7). */
#define SINEW_CURVE_MAX_DEGREE 7
#define SINEW_CURVE_MAX_CVS (1u << 24)

/* A curve's description. cvs holds 4 numbers per CV, x y z w (w = 1 for a non-rational curve;
 * x y z are the point itself, not multiplied by w). For sinew_curve_create the arrays are
 * copied; from sinew_curve_get they point into the block and stay valid while the caller
 * holds a reference to it. */
typedef struct sinew_curve {
  uint32_t degree;
  sinew_curve_form_t form;
  bool rational;
  uint32_t dim;    /* 3, or 2 (a curve on a surface: z is 0) */
  uint32_t ncvs;   /* including the repeated CVs of a periodic curve */
  uint32_t nknots; /* ncvs + degree - 1 */
  const double *knots;
  const double *cvs;
} sinew_curve_t;

SINEW_API const sinew_data_type_t sinew_curve_data_type;

/* Checks a description: degree 1..7, ncvs > degree, nknots == ncvs + degree - 1, knots finite
 * and non-decreasing with a non-empty range, CVs finite, weights > 0, dim 2 or 3, a periodic
 * curve's last `degree` CVs equal to its first. SINEW_EINVAL with the reason written to why
 * (may be NULL). */
SINEW_API int sinew_curve_check(const sinew_curve_t *curve, char *why, size_t why_size);
/* A new curve block holding a copy of curve (checked first: SINEW_EINVAL). SINEW_ENOMEM. */
SINEW_API int sinew_curve_create(const sinew_curve_t *curve, sinew_data_t **out);
/* Fills *out from a curve block; SINEW_EINVAL when data is not a curve. */
SINEW_API int sinew_curve_get(const sinew_data_t *data, sinew_curve_t *out);

/* The parameter range [min, max]: knots[degree - 1] .. knots[ncvs - 1]. */
SINEW_API void sinew_curve_range(const sinew_curve_t *curve, double *min, double *max);
/* Spans: ncvs - degree. */
SINEW_API uint32_t sinew_curve_spans(const sinew_curve_t *curve);
/* Position and first and second derivatives with respect to the parameter at u (clamped to
 * the range; a periodic curve's u is wrapped into it). Any output may be NULL. */
SINEW_API void sinew_curve_eval(const sinew_curve_t *curve, double u, sinew_vec3_t *pos, sinew_vec3_t *d1,
                                sinew_vec3_t *d2);
/* Arc length between parameters u0 <= u1 (each clamped to the range), by Gauss-Legendre
 * quadrature over every knot interval (relative error below 1e-12 on smooth spans). */
SINEW_API double sinew_curve_length(const sinew_curve_t *curve, double u0, double u1);
/* The parameter at arc length s from the start (s clamped to [0, total length]). */
SINEW_API double sinew_curve_param_at_length(const sinew_curve_t *curve, double s);

/* A circle as Maya's makeNurbCircle builds it (fixCenter on, the first CV a section's angle past
 * the plane's local x; the plane's axes are world x and y turned by the smallest rotation taking
 * z onto normal): degree 1 (CVs on the circle) or 3 (CVs outside it so the curve passes through
 * the radius at every knot), `sections` spans (3 or more), periodic, Maya's knots. SINEW_EINVAL
 * for another degree, too few sections, a zero normal or a non-finite number;
 * SINEW_EUNSUPPORTED for a sweep other than a full turn (Maya's open arcs are not modelled). */
SINEW_API int sinew_curve_circle(sinew_vec3_t normal, sinew_vec3_t center, double radius, uint32_t degree,
                                 uint32_t sections, double sweep, sinew_data_t **out);

/* An open curve of the given degree through the n points (n > degree, at most 4096), in order:
 * parameters by chord length, knots by averaging them (The NURBS Book 9.2.1), scaled to
 * 0 .. n - degree; passes through every point. SINEW_EINVAL for two consecutive points at one
 * place, too few points or a non-finite number. */
SINEW_API int sinew_curve_interpolate(const sinew_vec3_t *pts, uint32_t n, uint32_t degree, sinew_data_t **out);

/* The curve with every CV transformed by m (p' = p * m); a new block. */
SINEW_API int sinew_curve_transform(const sinew_data_t *curve, const sinew_mat4_t *m, sinew_data_t **out);

/* `.cc` text: "degree spans form rational dim nknots knots... ncvs cvs..." as numbers (rational
 * 0 or 1). Builds the curve from those values, checking the counts against n first: SINEW_EINVAL
 * with the reason in why. */
SINEW_API int sinew_curve_from_values(const double *v, size_t n, sinew_data_t **out, char *why, size_t why_size);

#ifdef __cplusplus
}
#endif

#endif
