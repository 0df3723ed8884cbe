/* sinew math: vectors, 4x4 matrices, Euler angles, quaternions and dual quaternions, following Maya's
 * conventions (docs: maya-reference.md 2.1, 2.2, 3.1, 4.3, 8.4).
 *
 * - Row vectors: a point maps as p' = p * M, so in a product the leftmost matrix acts first.
 * - m[row][col]; translation is the last row, m[3][0..2].
 * - Rotate order "abc" means R = Ra * Rb * Rc (about X, Y, Z of the parent space, first letter first).
 * - Quaternions are stored x y z w, as in Maya files.
 * - Angles are radians.
 *
 * Every function is pure: no globals, no allocation. Results go through pointers, which may alias the inputs.
 */
#ifndef SINEW_MATH_H
#define SINEW_MATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef SINEW_API
/* Marks the public API: the only symbols a shared libsinew exports (the library is compiled
 * with hidden visibility, so its internal sinew__ functions stay inside it). */
#if defined(__GNUC__) && __GNUC__ >= 4
#define SINEW_API extern __attribute__((visibility("default")))
#else
#define SINEW_API extern
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sinew_vec3 { double x, y, z; } sinew_vec3_t;
typedef struct sinew_quat { double x, y, z, w; } sinew_quat_t;          /* Maya order x y z w */
typedef struct sinew_mat4 { double m[4][4]; } sinew_mat4_t;             /* row-vector convention, m[row][col] */
typedef struct sinew_dquat { sinew_quat_t real, dual; } sinew_dquat_t;
typedef enum sinew_rotate_order { SINEW_ROTATE_XYZ = 0, SINEW_ROTATE_YZX, SINEW_ROTATE_ZXY,
  SINEW_ROTATE_XZY, SINEW_ROTATE_YXZ, SINEW_ROTATE_ZYX, SINEW_ROTATE_ORDER_MAX } sinew_rotate_order_t;
/* A rotate order outside 0..5 is treated as SINEW_ROTATE_XYZ everywhere. */

/* ---- vec3 ---------------------------------------------------------------------------------------- */

/* out = a + b. */
SINEW_API void sinew_vec3_add(sinew_vec3_t a, sinew_vec3_t b, sinew_vec3_t *out);
/* out = a - b. */
SINEW_API void sinew_vec3_sub(sinew_vec3_t a, sinew_vec3_t b, sinew_vec3_t *out);
/* out = v * s. */
SINEW_API void sinew_vec3_scale(sinew_vec3_t v, double s, sinew_vec3_t *out);
/* Returns the dot product of a and b. */
SINEW_API double sinew_vec3_dot(sinew_vec3_t a, sinew_vec3_t b);
/* out = a x b (right-handed). */
SINEW_API void sinew_vec3_cross(sinew_vec3_t a, sinew_vec3_t b, sinew_vec3_t *out);
/* Returns the Euclidean length of v. */
SINEW_API double sinew_vec3_length(sinew_vec3_t v);
/* out = v / |v|; a zero-length vector gives the zero vector. */
SINEW_API void sinew_vec3_normalize(sinew_vec3_t v, sinew_vec3_t *out);
/* out = a + (b - a) * t (t = 0 gives a, t = 1 gives b). */
SINEW_API void sinew_vec3_lerp(sinew_vec3_t a, sinew_vec3_t b, double t, sinew_vec3_t *out);

/* ---- mat4: construction ---------------------------------------------------------------------------- */

/* out = the identity matrix. */
SINEW_API void sinew_mat4_identity(sinew_mat4_t *out);
/* out = the matrix whose rows are the 16 values of a, row by row (the .ma "matrix" order). */
SINEW_API void sinew_mat4_from_array(const double a[16], sinew_mat4_t *out);
/* out = the 16 values of m, row by row (the .ma "matrix" order). */
SINEW_API void sinew_mat4_to_array(const sinew_mat4_t *m, double out[16]);
/* out = the translation matrix T: identity with bottom row (t.x, t.y, t.z, 1). */
SINEW_API void sinew_mat4_translate(sinew_vec3_t t, sinew_mat4_t *out);
/* out = the scale matrix S = diag(s.x, s.y, s.z, 1). */
SINEW_API void sinew_mat4_scale(sinew_vec3_t s, sinew_mat4_t *out);
/* out = the shear matrix SH: identity with [1][0] = xy, [2][0] = xz, [2][1] = yz,
 * so x' = x + xy*y + xz*z and y' = y + yz*z. */
SINEW_API void sinew_mat4_shear(double xy, double xz, double yz, sinew_mat4_t *out);
/* out = RX(a): rows (1,0,0) (0,c,s) (0,-s,c). */
SINEW_API void sinew_mat4_rotate_x(double radians, sinew_mat4_t *out);
/* out = RY(a): rows (c,0,-s) (0,1,0) (s,0,c). */
SINEW_API void sinew_mat4_rotate_y(double radians, sinew_mat4_t *out);
/* out = RZ(a): rows (c,s,0) (-s,c,0) (0,0,1). */
SINEW_API void sinew_mat4_rotate_z(double radians, sinew_mat4_t *out);
/* out = the Euler rotation for angles r (radians) and rotate order "abc": Ra(r.a) * Rb(r.b) * Rc(r.c). */
SINEW_API void sinew_mat4_euler(sinew_vec3_t r, sinew_rotate_order_t order, sinew_mat4_t *out);
/* out = S * SH * R(order) * T, the transform-node matrix without pivots; the inverse of decompose. */
SINEW_API void sinew_mat4_compose(sinew_vec3_t translate, sinew_vec3_t rotate, sinew_rotate_order_t order,
                                  sinew_vec3_t scale, sinew_vec3_t shear, sinew_mat4_t *out);

/* ---- mat4: arithmetic ------------------------------------------------------------------------------ */

/* out = a * b: "a then b", i.e. p * out == (p * a) * b. */
SINEW_API void sinew_mat4_mul(const sinew_mat4_t *a, const sinew_mat4_t *b, sinew_mat4_t *out);
/* out = the transpose of m. */
SINEW_API void sinew_mat4_transpose(const sinew_mat4_t *m, sinew_mat4_t *out);
/* Returns the determinant of m. */
SINEW_API double sinew_mat4_determinant(const sinew_mat4_t *m);
/* out = m^-1 for any invertible 4x4. Returns false, leaving out untouched, when m is singular
 * (|det| < 1e-300), contains a non-finite value, or the inverse would not be finite. */
SINEW_API bool sinew_mat4_inverse(const sinew_mat4_t *m, sinew_mat4_t *out);
/* out = m^-1 for an affine m (last column 0 0 0 1), faster than sinew_mat4_inverse. A matrix that is not
 * exactly affine is handed to sinew_mat4_inverse. Returns false, leaving out untouched, when singular. */
SINEW_API bool sinew_mat4_inverse_affine(const sinew_mat4_t *m, sinew_mat4_t *out);
/* out = (p.x, p.y, p.z, 1) * m, the w of the result dropped (matrices are taken as affine). */
SINEW_API void sinew_mat4_transform_point(sinew_vec3_t p, const sinew_mat4_t *m, sinew_vec3_t *out);
/* out = (v.x, v.y, v.z, 0) * m: a direction, unaffected by translation. */
SINEW_API void sinew_mat4_transform_vector(sinew_vec3_t v, const sinew_mat4_t *m, sinew_vec3_t *out);
/* Returns true when every element of a and b differs by at most tolerance (false if any is NaN). */
SINEW_API bool sinew_mat4_equal(const sinew_mat4_t *a, const sinew_mat4_t *b, double tolerance);
/* Returns true when all 16 elements are finite (no NaN or infinity). */
SINEW_API bool sinew_mat4_is_finite(const sinew_mat4_t *m);
/* out = the 3x4 float form used by skinning kernels: out[c*4 + r] = m[r][c] for c in 0..2, r in 0..3, so
 * x' = p.x*out[0] + p.y*out[1] + p.z*out[2] + out[3], y' likewise with out[4..7], z' with out[8..11]. */
SINEW_API void sinew_mat4_to_float34(const sinew_mat4_t *m, float out[12]);

/* ---- mat4: decomposition --------------------------------------------------------------------------- */

/* Splits an affine a into a = S * R (as 4x4 matrices). R ("rotation") is rigid: a proper rotation (det +1)
 * from Gram-Schmidt of a's 3x3 rows (x, then y, then z) plus a's translation row. S ("scale_shear") is the
 * lower-triangular per-row scale and shear, with no translation. If det(a) < 0, the x row of R and the first
 * column of S are negated so that R stays a rotation. Returns false, leaving the outputs untouched, when the
 * 3x3 part is singular or a's first three columns are not finite. Used by non-rigid dual quaternion skinning
 * (spec 4.3): blend the S linearly and the rigid R as dual quaternions. */
SINEW_API bool sinew_mat4_orthonormalize_rows(const sinew_mat4_t *a, sinew_mat4_t *rotation,
                                              sinew_mat4_t *scale_shear);
/* Splits m = S * SH * R(order) * T (no pivots) into translate, rotate (radians), scale and shear (xy, xz, yz).
 * A negative determinant is expressed as a negative scale x (the other scales stay positive). Any output
 * pointer may be NULL. Returns false, leaving the outputs untouched, when the 3x3 part is singular or not
 * finite. The last column of m is ignored. */
SINEW_API bool sinew_mat4_decompose(const sinew_mat4_t *m, sinew_rotate_order_t order, sinew_vec3_t *translate,
                                    sinew_vec3_t *rotate, sinew_vec3_t *scale, sinew_vec3_t *shear);
/* out = Euler angles (radians) for rotate order "abc" of the rotation in m's upper 3x3, which must be
 * orthonormal (use sinew_mat4_decompose for scaled matrices). The middle angle is in [-pi/2, pi/2], the
 * others in [-pi, pi]. At gimbal lock (middle angle +-pi/2) the first angle is set to 0 and the last angle
 * carries the whole remaining rotation. */
SINEW_API void sinew_euler_from_mat4(const sinew_mat4_t *m, sinew_rotate_order_t order, sinew_vec3_t *out);

/* ---- quaternions ----------------------------------------------------------------------------------- */
/* The rotation of angle a about X is (sin(a/2), 0, 0, cos(a/2)); its matrix is RX(a). */

/* out = (0, 0, 0, 1). */
SINEW_API void sinew_quat_identity(sinew_quat_t *out);
/* out = "a then b": the rotation whose matrix is quat_to_mat4(a) * quat_to_mat4(b). In Hamilton notation
 * (column vectors) this is the product b * a. */
SINEW_API void sinew_quat_mul(sinew_quat_t a, sinew_quat_t b, sinew_quat_t *out);
/* out = (-x, -y, -z, w), the inverse rotation of a unit quaternion. */
SINEW_API void sinew_quat_conjugate(sinew_quat_t q, sinew_quat_t *out);
/* out = q / |q|; a zero quaternion gives the identity. */
SINEW_API void sinew_quat_normalize(sinew_quat_t q, sinew_quat_t *out);
/* Returns the 4D dot product of a and b (negative when they lie in opposite hemispheres). */
SINEW_API double sinew_quat_dot(sinew_quat_t a, sinew_quat_t b);
/* out = the quaternion of the rotation in m's upper 3x3, which must be a rotation (nothing is
 * orthonormalised). Shepperd's method; the result is returned with w >= 0. */
SINEW_API void sinew_quat_from_mat4(const sinew_mat4_t *m, sinew_quat_t *out);
/* out = the rotation matrix of q (translation zero). A non-unit q gives the matrix of q / |q|; a zero q
 * gives the identity. */
SINEW_API void sinew_quat_to_mat4(sinew_quat_t q, sinew_mat4_t *out);
/* out = the quaternion of sinew_mat4_euler(r, order). */
SINEW_API void sinew_quat_from_euler(sinew_vec3_t r, sinew_rotate_order_t order, sinew_quat_t *out);
/* out = Euler angles of the unit quaternion q for the given order, as sinew_euler_from_mat4. */
SINEW_API void sinew_quat_to_euler(sinew_quat_t q, sinew_rotate_order_t order, sinew_vec3_t *out);
/* out = the rotation of angle radians about axis (normalised here); a zero axis gives the identity. */
SINEW_API void sinew_quat_from_axis_angle(sinew_vec3_t axis, double radians, sinew_quat_t *out);
/* out = v rotated by the unit quaternion q, i.e. v * quat_to_mat4(q). */
SINEW_API void sinew_quat_rotate(sinew_quat_t q, sinew_vec3_t v, sinew_vec3_t *out);
/* out = spherical interpolation from a (t = 0) to b (t = 1) along the shorter arc; unit inputs. */
SINEW_API void sinew_quat_slerp(sinew_quat_t a, sinew_quat_t b, double t, sinew_quat_t *out);

/* ---- dual quaternions (skinning, spec 4.3) ---------------------------------------------------------- */

/* out = the dual quaternion of "rotate by the unit quaternion rotation, then translate": the same motion as
 * the row-vector matrix R * T. real = rotation, dual = 1/2 (t, 0) * rotation (Hamilton product). */
SINEW_API void sinew_dquat_from_rigid(sinew_quat_t rotation, sinew_vec3_t translation, sinew_dquat_t *out);
/* out = the dual quaternion of the rigid part of m: the rotation from sinew_mat4_orthonormalize_rows and m's
 * translation row. Returns false, leaving out untouched, when m's 3x3 part is singular. */
SINEW_API bool sinew_dquat_from_mat4(const sinew_mat4_t *m, sinew_dquat_t *out);
/* acc += weight * d, both parts. No hemisphere flip is done here: callers negate d when
 * sinew_quat_dot(d.real, pivot) < 0. */
SINEW_API void sinew_dquat_add_scaled(sinew_dquat_t *acc, const sinew_dquat_t *d, double weight);
/* out = d with both parts divided by |d.real|. Returns false, leaving out untouched, when |d.real| is 0 or
 * not finite. */
SINEW_API bool sinew_dquat_normalize(const sinew_dquat_t *d, sinew_dquat_t *out);
/* out = the rigid matrix R * T of a normalised dual quaternion. */
SINEW_API void sinew_dquat_to_mat4(const sinew_dquat_t *d, sinew_mat4_t *out);
/* out = p moved by the normalised dual quaternion d (same as p * sinew_dquat_to_mat4(d)). */
SINEW_API void sinew_dquat_transform_point(const sinew_dquat_t *d, sinew_vec3_t p, sinew_vec3_t *out);

#ifdef __cplusplus
}
#endif

#endif /* SINEW_MATH_H */
