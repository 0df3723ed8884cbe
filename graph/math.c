/* sinew math: Maya-convention (row-vector) vectors, matrices, Euler angles and (dual) quaternions.
 * See include/sinew/math.h for the conventions. Every result is computed into a local first so that the
 * output pointer may alias an input. */
#include "sinew/math.h"

#include <math.h>
#include <string.h>

/* Determinants below this are treated as singular (the brief's threshold for the general inverse). */
#define SINGULAR_DET 1e-300
/* A Gram-Schmidt residual below this fraction of the largest row is a dependent row: at double precision
 * a genuinely dependent row leaves a residual of about 1e-16 of the row length. */
#define DEPENDENT_ROW 1e-14
/* cos(middle angle) below this is gimbal lock: the first and last axes coincide and only their sum is
 * defined, so the first angle is pinned to 0 to make the answer deterministic. */
#define GIMBAL_COS 1e-12
/* Above this |dot|, slerp's sin(theta) is too small to divide by, and a normalised lerp is as accurate. */
#define SLERP_LINEAR_DOT 0.9995

/* ---- vec3 ---------------------------------------------------------------------------------------- */

void sinew_vec3_add(sinew_vec3_t a, sinew_vec3_t b, sinew_vec3_t *out)
{
    *out = (sinew_vec3_t){a.x + b.x, a.y + b.y, a.z + b.z};
}

void sinew_vec3_sub(sinew_vec3_t a, sinew_vec3_t b, sinew_vec3_t *out)
{
    *out = (sinew_vec3_t){a.x - b.x, a.y - b.y, a.z - b.z};
}

void sinew_vec3_scale(sinew_vec3_t v, double s, sinew_vec3_t *out)
{
    *out = (sinew_vec3_t){v.x * s, v.y * s, v.z * s};
}

double sinew_vec3_dot(sinew_vec3_t a, sinew_vec3_t b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

void sinew_vec3_cross(sinew_vec3_t a, sinew_vec3_t b, sinew_vec3_t *out)
{
    *out = (sinew_vec3_t){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

double sinew_vec3_length(sinew_vec3_t v)
{
    return sqrt(sinew_vec3_dot(v, v));
}

void sinew_vec3_normalize(sinew_vec3_t v, sinew_vec3_t *out)
{
    double len = sinew_vec3_length(v);
    if (!(len > 0.0)) {
        *out = (sinew_vec3_t){0.0, 0.0, 0.0};
        return;
    }
    sinew_vec3_scale(v, 1.0 / len, out);
}

void sinew_vec3_lerp(sinew_vec3_t a, sinew_vec3_t b, double t, sinew_vec3_t *out)
{
    *out = (sinew_vec3_t){a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t};
}

/* ---- mat4: construction ---------------------------------------------------------------------------- */

void sinew_mat4_identity(sinew_mat4_t *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < 4; i++)
        out->m[i][i] = 1.0;
}

void sinew_mat4_from_array(const double a[16], sinew_mat4_t *out)
{
    sinew_mat4_t r;
    for (int i = 0; i < 16; i++)
        r.m[i / 4][i % 4] = a[i];
    *out = r;
}

void sinew_mat4_to_array(const sinew_mat4_t *m, double out[16])
{
    double r[16];
    for (int i = 0; i < 16; i++)
        r[i] = m->m[i / 4][i % 4];
    memcpy(out, r, sizeof r);
}

void sinew_mat4_translate(sinew_vec3_t t, sinew_mat4_t *out)
{
    sinew_mat4_identity(out);
    out->m[3][0] = t.x;
    out->m[3][1] = t.y;
    out->m[3][2] = t.z;
}

void sinew_mat4_scale(sinew_vec3_t s, sinew_mat4_t *out)
{
    sinew_mat4_identity(out);
    out->m[0][0] = s.x;
    out->m[1][1] = s.y;
    out->m[2][2] = s.z;
}

void sinew_mat4_shear(double xy, double xz, double yz, sinew_mat4_t *out)
{
    sinew_mat4_identity(out);
    out->m[1][0] = xy;
    out->m[2][0] = xz;
    out->m[2][1] = yz;
}

/* A rotation about one axis (0 = X, 1 = Y, 2 = Z) in the spec's row-vector form. For every axis the pattern
 * is the same on the cyclic pair (i, j) that follows it: [i][i] = [j][j] = c, [i][j] = s, [j][i] = -s. */
static void rotate_axis(int axis, double radians, sinew_mat4_t *out)
{
    int i = (axis + 1) % 3, j = (axis + 2) % 3;
    double c = cos(radians), s = sin(radians);
    sinew_mat4_identity(out);
    out->m[i][i] = c;
    out->m[i][j] = s;
    out->m[j][i] = -s;
    out->m[j][j] = c;
}

void sinew_mat4_rotate_x(double radians, sinew_mat4_t *out)
{
    rotate_axis(0, radians, out);
}

void sinew_mat4_rotate_y(double radians, sinew_mat4_t *out)
{
    rotate_axis(1, radians, out);
}

void sinew_mat4_rotate_z(double radians, sinew_mat4_t *out)
{
    rotate_axis(2, radians, out);
}

/* The axes of each rotate order, first-applied first, indexed by sinew_rotate_order_t. */
static const int k_order_axes[SINEW_ROTATE_ORDER_MAX][3] = {
    {0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {1, 0, 2}, {2, 1, 0},
};

/* Out-of-range orders (e.g. from a corrupt file) fall back to the default instead of indexing out of
 * bounds. */
static int order_index(sinew_rotate_order_t order)
{
    return ((unsigned)order < SINEW_ROTATE_ORDER_MAX) ? (int)order : SINEW_ROTATE_XYZ;
}

static double vec3_get(sinew_vec3_t v, int axis)
{
    return axis == 0 ? v.x : axis == 1 ? v.y : v.z;
}

static void vec3_set(sinew_vec3_t *v, int axis, double value)
{
    if (axis == 0)
        v->x = value;
    else if (axis == 1)
        v->y = value;
    else
        v->z = value;
}

void sinew_mat4_euler(sinew_vec3_t r, sinew_rotate_order_t order, sinew_mat4_t *out)
{
    const int *ax = k_order_axes[order_index(order)];
    sinew_mat4_t acc, next;
    rotate_axis(ax[0], vec3_get(r, ax[0]), &acc);
    for (int k = 1; k < 3; k++) {
        rotate_axis(ax[k], vec3_get(r, ax[k]), &next);
        sinew_mat4_mul(&acc, &next, &acc);
    }
    *out = acc;
}

void sinew_mat4_compose(sinew_vec3_t translate, sinew_vec3_t rotate, sinew_rotate_order_t order,
                        sinew_vec3_t scale, sinew_vec3_t shear, sinew_mat4_t *out)
{
    sinew_mat4_t acc, f;
    sinew_mat4_scale(scale, &acc);
    sinew_mat4_shear(shear.x, shear.y, shear.z, &f);
    sinew_mat4_mul(&acc, &f, &acc);
    sinew_mat4_euler(rotate, order, &f);
    sinew_mat4_mul(&acc, &f, &acc);
    /* T only replaces the bottom row because the product so far is a pure 3x3. */
    acc.m[3][0] = translate.x;
    acc.m[3][1] = translate.y;
    acc.m[3][2] = translate.z;
    *out = acc;
}

/* ---- mat4: arithmetic ------------------------------------------------------------------------------ */

void sinew_mat4_mul(const sinew_mat4_t *a, const sinew_mat4_t *b, sinew_mat4_t *out)
{
    sinew_mat4_t r;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            r.m[i][j] = a->m[i][0] * b->m[0][j] + a->m[i][1] * b->m[1][j] + a->m[i][2] * b->m[2][j] +
                        a->m[i][3] * b->m[3][j];
    *out = r;
}

void sinew_mat4_transpose(const sinew_mat4_t *m, sinew_mat4_t *out)
{
    sinew_mat4_t r;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            r.m[i][j] = m->m[j][i];
    *out = r;
}

/* The 2x2 minors of the top two rows (s) and bottom two rows (c); both the determinant and the adjugate
 * are sums of their products (Laplace expansion along the row pairs). */
typedef struct minors {
    double s[6], c[6];
} minors_t;

static minors_t mat4_minors(const sinew_mat4_t *m)
{
    const double(*a)[4] = m->m;
    minors_t k;
    k.s[0] = a[0][0] * a[1][1] - a[1][0] * a[0][1];
    k.s[1] = a[0][0] * a[1][2] - a[1][0] * a[0][2];
    k.s[2] = a[0][0] * a[1][3] - a[1][0] * a[0][3];
    k.s[3] = a[0][1] * a[1][2] - a[1][1] * a[0][2];
    k.s[4] = a[0][1] * a[1][3] - a[1][1] * a[0][3];
    k.s[5] = a[0][2] * a[1][3] - a[1][2] * a[0][3];
    k.c[5] = a[2][2] * a[3][3] - a[3][2] * a[2][3];
    k.c[4] = a[2][1] * a[3][3] - a[3][1] * a[2][3];
    k.c[3] = a[2][1] * a[3][2] - a[3][1] * a[2][2];
    k.c[2] = a[2][0] * a[3][3] - a[3][0] * a[2][3];
    k.c[1] = a[2][0] * a[3][2] - a[3][0] * a[2][2];
    k.c[0] = a[2][0] * a[3][1] - a[3][0] * a[2][1];
    return k;
}

static double minors_det(const minors_t *k)
{
    return k->s[0] * k->c[5] - k->s[1] * k->c[4] + k->s[2] * k->c[3] + k->s[3] * k->c[2] -
           k->s[4] * k->c[1] + k->s[5] * k->c[0];
}

double sinew_mat4_determinant(const sinew_mat4_t *m)
{
    minors_t k = mat4_minors(m);
    return minors_det(&k);
}

/* The adjugate (transposed cofactors) of m, from its 2x2 minors. */
static void mat4_adjugate(const sinew_mat4_t *m, const minors_t *k, sinew_mat4_t *out)
{
    const double(*a)[4] = m->m;
    const double *s = k->s, *c = k->c;
    double(*b)[4] = out->m;
    b[0][0] = a[1][1] * c[5] - a[1][2] * c[4] + a[1][3] * c[3];
    b[0][1] = -a[0][1] * c[5] + a[0][2] * c[4] - a[0][3] * c[3];
    b[0][2] = a[3][1] * s[5] - a[3][2] * s[4] + a[3][3] * s[3];
    b[0][3] = -a[2][1] * s[5] + a[2][2] * s[4] - a[2][3] * s[3];
    b[1][0] = -a[1][0] * c[5] + a[1][2] * c[2] - a[1][3] * c[1];
    b[1][1] = a[0][0] * c[5] - a[0][2] * c[2] + a[0][3] * c[1];
    b[1][2] = -a[3][0] * s[5] + a[3][2] * s[2] - a[3][3] * s[1];
    b[1][3] = a[2][0] * s[5] - a[2][2] * s[2] + a[2][3] * s[1];
    b[2][0] = a[1][0] * c[4] - a[1][1] * c[2] + a[1][3] * c[0];
    b[2][1] = -a[0][0] * c[4] + a[0][1] * c[2] - a[0][3] * c[0];
    b[2][2] = a[3][0] * s[4] - a[3][1] * s[2] + a[3][3] * s[0];
    b[2][3] = -a[2][0] * s[4] + a[2][1] * s[2] - a[2][3] * s[0];
    b[3][0] = -a[1][0] * c[3] + a[1][1] * c[1] - a[1][2] * c[0];
    b[3][1] = a[0][0] * c[3] - a[0][1] * c[1] + a[0][2] * c[0];
    b[3][2] = -a[3][0] * s[3] + a[3][1] * s[1] - a[3][2] * s[0];
    b[3][3] = a[2][0] * s[3] - a[2][1] * s[1] + a[2][2] * s[0];
}

static bool det_usable(double det)
{
    return isfinite(det) && fabs(det) >= SINGULAR_DET;
}

bool sinew_mat4_inverse(const sinew_mat4_t *m, sinew_mat4_t *out)
{
    if (!sinew_mat4_is_finite(m))
        return false;
    minors_t k = mat4_minors(m);
    double det = minors_det(&k);
    if (!det_usable(det))
        return false;
    sinew_mat4_t r;
    mat4_adjugate(m, &k, &r);
    double inv_det = 1.0 / det;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            r.m[i][j] *= inv_det;
    /* A tiny det with large entries can still overflow; a non-finite inverse is no inverse. */
    if (!sinew_mat4_is_finite(&r))
        return false;
    *out = r;
    return true;
}

/* Inverts the 3x3 part into out's 3x3 part; returns false when singular. */
static bool mat3_inverse(const sinew_mat4_t *m, sinew_mat4_t *out)
{
    const double(*a)[4] = m->m;
    double c00 = a[1][1] * a[2][2] - a[1][2] * a[2][1];
    double c01 = a[1][2] * a[2][0] - a[1][0] * a[2][2];
    double c02 = a[1][0] * a[2][1] - a[1][1] * a[2][0];
    double det = a[0][0] * c00 + a[0][1] * c01 + a[0][2] * c02;
    if (!det_usable(det))
        return false;
    double d = 1.0 / det;
    double(*b)[4] = out->m;
    b[0][0] = c00 * d;
    b[1][0] = c01 * d;
    b[2][0] = c02 * d;
    b[0][1] = (a[0][2] * a[2][1] - a[0][1] * a[2][2]) * d;
    b[1][1] = (a[0][0] * a[2][2] - a[0][2] * a[2][0]) * d;
    b[2][1] = (a[0][1] * a[2][0] - a[0][0] * a[2][1]) * d;
    b[0][2] = (a[0][1] * a[1][2] - a[0][2] * a[1][1]) * d;
    b[1][2] = (a[0][2] * a[1][0] - a[0][0] * a[1][2]) * d;
    b[2][2] = (a[0][0] * a[1][1] - a[0][1] * a[1][0]) * d;
    return true;
}

bool sinew_mat4_inverse_affine(const sinew_mat4_t *m, sinew_mat4_t *out)
{
    if (m->m[0][3] != 0.0 || m->m[1][3] != 0.0 || m->m[2][3] != 0.0 || m->m[3][3] != 1.0)
        return sinew_mat4_inverse(m, out);
    if (!sinew_mat4_is_finite(m))
        return false;
    sinew_mat4_t r;
    sinew_mat4_identity(&r);
    if (!mat3_inverse(m, &r))
        return false;
    /* (A, t)^-1 = (A^-1, -t * A^-1) in row-vector form. */
    sinew_vec3_t t = {-m->m[3][0], -m->m[3][1], -m->m[3][2]}, ti;
    sinew_mat4_transform_vector(t, &r, &ti);
    r.m[3][0] = ti.x;
    r.m[3][1] = ti.y;
    r.m[3][2] = ti.z;
    if (!sinew_mat4_is_finite(&r))
        return false;
    *out = r;
    return true;
}

void sinew_mat4_transform_point(sinew_vec3_t p, const sinew_mat4_t *m, sinew_vec3_t *out)
{
    sinew_vec3_t v;
    sinew_mat4_transform_vector(p, m, &v);
    *out = (sinew_vec3_t){v.x + m->m[3][0], v.y + m->m[3][1], v.z + m->m[3][2]};
}

void sinew_mat4_transform_vector(sinew_vec3_t v, const sinew_mat4_t *m, sinew_vec3_t *out)
{
    const double(*a)[4] = m->m;
    *out = (sinew_vec3_t){v.x * a[0][0] + v.y * a[1][0] + v.z * a[2][0],
                          v.x * a[0][1] + v.y * a[1][1] + v.z * a[2][1],
                          v.x * a[0][2] + v.y * a[1][2] + v.z * a[2][2]};
}

bool sinew_mat4_equal(const sinew_mat4_t *a, const sinew_mat4_t *b, double tolerance)
{
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            if (!(fabs(a->m[i][j] - b->m[i][j]) <= tolerance)) /* written so that NaN fails */
                return false;
    return true;
}

bool sinew_mat4_is_finite(const sinew_mat4_t *m)
{
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            if (!isfinite(m->m[i][j]))
                return false;
    return true;
}

void sinew_mat4_to_float34(const sinew_mat4_t *m, float out[12])
{
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 4; r++)
            out[c * 4 + r] = (float)m->m[r][c];
}

/* ---- mat4: decomposition --------------------------------------------------------------------------- */

static sinew_vec3_t mat4_row(const sinew_mat4_t *m, int row)
{
    return (sinew_vec3_t){m->m[row][0], m->m[row][1], m->m[row][2]};
}

static void mat4_set_row(sinew_mat4_t *m, int row, sinew_vec3_t v)
{
    m->m[row][0] = v.x;
    m->m[row][1] = v.y;
    m->m[row][2] = v.z;
}

/* out = (u - along * dir); the component of u left after removing its projection on unit dir. */
static sinew_vec3_t reject(sinew_vec3_t u, sinew_vec3_t dir, double along)
{
    return (sinew_vec3_t){u.x - along * dir.x, u.y - along * dir.y, u.z - along * dir.z};
}

bool sinew_mat4_orthonormalize_rows(const sinew_mat4_t *a, sinew_mat4_t *rotation, sinew_mat4_t *scale_shear)
{
    sinew_vec3_t a0 = mat4_row(a, 0), a1 = mat4_row(a, 1), a2 = mat4_row(a, 2);
    double big = fmax(sinew_vec3_length(a0), fmax(sinew_vec3_length(a1), sinew_vec3_length(a2)));
    if (!isfinite(big) || !(big > 0.0) || !isfinite(a->m[3][0] + a->m[3][1] + a->m[3][2]))
        return false;
    double tol = DEPENDENT_ROW * big;
    /* Modified Gram-Schmidt: each projection is taken from the already-reduced row, for stability. */
    double l0 = sinew_vec3_length(a0);
    if (!(l0 > tol))
        return false;
    sinew_vec3_t r0, r1, r2;
    sinew_vec3_scale(a0, 1.0 / l0, &r0);
    double s10 = sinew_vec3_dot(a1, r0);
    sinew_vec3_t u1 = reject(a1, r0, s10);
    double l1 = sinew_vec3_length(u1);
    if (!(l1 > tol))
        return false;
    sinew_vec3_scale(u1, 1.0 / l1, &r1);
    double s20 = sinew_vec3_dot(a2, r0);
    sinew_vec3_t u2 = reject(a2, r0, s20);
    double s21 = sinew_vec3_dot(u2, r1);
    u2 = reject(u2, r1, s21);
    double l2 = sinew_vec3_length(u2);
    if (!(l2 > tol))
        return false;
    sinew_vec3_scale(u2, 1.0 / l2, &r2);
    sinew_vec3_t c01;
    sinew_vec3_cross(r0, r1, &c01);
    if (sinew_vec3_dot(c01, r2) < 0.0) {
        /* A mirror: flip the x row so R stays a rotation; S's first column absorbs the sign, so that
         * S * R is unchanged (the same choice as decompose's negative scale x). */
        sinew_vec3_scale(r0, -1.0, &r0);
        l0 = -l0;
        s10 = -s10;
        s20 = -s20;
    }
    sinew_mat4_t rot, sh;
    sinew_mat4_identity(&rot);
    mat4_set_row(&rot, 0, r0);
    mat4_set_row(&rot, 1, r1);
    mat4_set_row(&rot, 2, r2);
    mat4_set_row(&rot, 3, mat4_row(a, 3));
    sinew_mat4_identity(&sh);
    mat4_set_row(&sh, 0, (sinew_vec3_t){l0, 0.0, 0.0});
    mat4_set_row(&sh, 1, (sinew_vec3_t){s10, l1, 0.0});
    mat4_set_row(&sh, 2, (sinew_vec3_t){s20, s21, l2});
    *rotation = rot;
    *scale_shear = sh;
    return true;
}

bool sinew_mat4_decompose(const sinew_mat4_t *m, sinew_rotate_order_t order, sinew_vec3_t *translate,
                          sinew_vec3_t *rotate, sinew_vec3_t *scale, sinew_vec3_t *shear)
{
    /* The 3x3 part is (S * SH) * R with S * SH lower triangular:
     *   rows (sx, 0, 0) (sy*xy, sy, 0) (sz*xz, sz*yz, sz),
     * which is exactly the factor the row Gram-Schmidt produces. */
    sinew_mat4_t rot, l;
    if (!sinew_mat4_orthonormalize_rows(m, &rot, &l))
        return false;
    sinew_vec3_t r;
    sinew_euler_from_mat4(&rot, order, &r);
    if (translate)
        *translate = mat4_row(m, 3);
    if (rotate)
        *rotate = r;
    if (scale)
        *scale = (sinew_vec3_t){l.m[0][0], l.m[1][1], l.m[2][2]};
    if (shear)
        *shear = (sinew_vec3_t){l.m[1][0] / l.m[1][1], l.m[2][0] / l.m[2][2], l.m[2][1] / l.m[2][2]};
    return true;
}

/* Euler angles (a, b, c) of n = RX(a) * RY(b) * RZ(c). With cb = cos b >= 0:
 *   n[0] = (cb cc, cb sc, -sb),  n[1][2] = cb sa,  n[2][2] = cb ca.
 * The last angle comes from RX(-a) * n = RY(b) * RZ(c), whose row 1 is (-sc, cc, 0): solving it from the
 * first angle keeps the result exact near gimbal lock, where n[1][2] and n[2][2] are mostly rounding. */
static void euler_xyz(double n[3][3], double out[3])
{
    double cb = hypot(n[0][0], n[0][1]);
    double a = (cb < GIMBAL_COS) ? 0.0 : atan2(n[1][2], n[2][2]);
    double sa = sin(a), ca = cos(a);
    out[0] = a;
    out[1] = atan2(-n[0][2], cb);
    out[2] = atan2(sa * n[2][0] - ca * n[1][0], ca * n[1][1] - sa * n[2][1]);
}

void sinew_euler_from_mat4(const sinew_mat4_t *m, sinew_rotate_order_t order, sinew_vec3_t *out)
{
    int o = order_index(order);
    const int *ax = k_order_axes[o];
    /* Relabel the axes so the order reads "xyz". A cyclic relabelling (xyz, yzx, zxy) maps each axis
     * rotation to the same-angle rotation about the new axis; an odd one (a swap) mirrors space and
     * negates every angle. */
    double n[3][3], t[3];
    for (int p = 0; p < 3; p++)
        for (int q = 0; q < 3; q++)
            n[p][q] = m->m[ax[p]][ax[q]];
    euler_xyz(n, t);
    double sign = (o >= SINEW_ROTATE_XZY) ? -1.0 : 1.0;
    sinew_vec3_t r = {0.0, 0.0, 0.0};
    for (int k = 0; k < 3; k++)
        vec3_set(&r, ax[k], sign * t[k] + 0.0); /* + 0.0 turns -0 into +0 */
    *out = r;
}

/* ---- quaternions ----------------------------------------------------------------------------------- */

/* The Hamilton product a * b (column-vector convention: b acts first). */
static sinew_quat_t hamilton(sinew_quat_t a, sinew_quat_t b)
{
    return (sinew_quat_t){
        a.w * b.x + b.w * a.x + a.y * b.z - a.z * b.y,
        a.w * b.y + b.w * a.y + a.z * b.x - a.x * b.z,
        a.w * b.z + b.w * a.z + a.x * b.y - a.y * b.x,
        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
    };
}

void sinew_quat_identity(sinew_quat_t *out)
{
    *out = (sinew_quat_t){0.0, 0.0, 0.0, 1.0};
}

void sinew_quat_mul(sinew_quat_t a, sinew_quat_t b, sinew_quat_t *out)
{
    /* Row-vector matrices compose left to right, Hamilton products right to left. */
    *out = hamilton(b, a);
}

void sinew_quat_conjugate(sinew_quat_t q, sinew_quat_t *out)
{
    *out = (sinew_quat_t){-q.x, -q.y, -q.z, q.w};
}

double sinew_quat_dot(sinew_quat_t a, sinew_quat_t b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}

void sinew_quat_normalize(sinew_quat_t q, sinew_quat_t *out)
{
    double len = sqrt(sinew_quat_dot(q, q));
    if (!(len > 0.0)) {
        sinew_quat_identity(out);
        return;
    }
    double k = 1.0 / len;
    *out = (sinew_quat_t){q.x * k, q.y * k, q.z * k, q.w * k};
}

/* Shepperd: take the square root of the largest of (w, x, y, z)^2, read off the diagonal, so that the
 * other components are divided by a value >= 1/2 and never lose precision. */
static sinew_quat_t shepperd(const double(*a)[4])
{
    double tr = a[0][0] + a[1][1] + a[2][2];
    if (tr >= a[0][0] && tr >= a[1][1] && tr >= a[2][2]) {
        double w = 0.5 * sqrt(fmax(0.0, 1.0 + tr)), k = 0.25 / w;
        return (sinew_quat_t){(a[1][2] - a[2][1]) * k, (a[2][0] - a[0][2]) * k, (a[0][1] - a[1][0]) * k, w};
    }
    if (a[0][0] >= a[1][1] && a[0][0] >= a[2][2]) {
        double x = 0.5 * sqrt(fmax(0.0, 1.0 + a[0][0] - a[1][1] - a[2][2])), k = 0.25 / x;
        return (sinew_quat_t){x, (a[0][1] + a[1][0]) * k, (a[0][2] + a[2][0]) * k, (a[1][2] - a[2][1]) * k};
    }
    if (a[1][1] >= a[2][2]) {
        double y = 0.5 * sqrt(fmax(0.0, 1.0 - a[0][0] + a[1][1] - a[2][2])), k = 0.25 / y;
        return (sinew_quat_t){(a[0][1] + a[1][0]) * k, y, (a[1][2] + a[2][1]) * k, (a[2][0] - a[0][2]) * k};
    }
    double z = 0.5 * sqrt(fmax(0.0, 1.0 - a[0][0] - a[1][1] + a[2][2])), k = 0.25 / z;
    return (sinew_quat_t){(a[0][2] + a[2][0]) * k, (a[1][2] + a[2][1]) * k, z, (a[0][1] - a[1][0]) * k};
}

void sinew_quat_from_mat4(const sinew_mat4_t *m, sinew_quat_t *out)
{
    sinew_quat_t q = shepperd(m->m);
    /* q and -q are the same rotation; pick w >= 0 so the answer does not depend on the branch taken. */
    if (q.w < 0.0)
        q = (sinew_quat_t){-q.x, -q.y, -q.z, -q.w};
    *out = q;
}

void sinew_quat_to_mat4(sinew_quat_t q, sinew_mat4_t *out)
{
    double n = sinew_quat_dot(q, q);
    double s = (n > 0.0) ? 2.0 / n : 0.0; /* 2/|q|^2 makes a non-unit q act as q/|q| */
    double xx = q.x * q.x * s, yy = q.y * q.y * s, zz = q.z * q.z * s;
    double xy = q.x * q.y * s, xz = q.x * q.z * s, yz = q.y * q.z * s;
    double wx = q.w * q.x * s, wy = q.w * q.y * s, wz = q.w * q.z * s;
    sinew_mat4_t r;
    sinew_mat4_identity(&r);
    /* The transpose of the usual column-vector matrix, because Maya multiplies row vectors. */
    mat4_set_row(&r, 0, (sinew_vec3_t){1.0 - (yy + zz), xy + wz, xz - wy});
    mat4_set_row(&r, 1, (sinew_vec3_t){xy - wz, 1.0 - (xx + zz), yz + wx});
    mat4_set_row(&r, 2, (sinew_vec3_t){xz + wy, yz - wx, 1.0 - (xx + yy)});
    *out = r;
}

/* The rotation of angle radians about one coordinate axis (0 = X, 1 = Y, 2 = Z). */
static sinew_quat_t quat_axis(int axis, double radians)
{
    double s = sin(0.5 * radians);
    return (sinew_quat_t){axis == 0 ? s : 0.0, axis == 1 ? s : 0.0, axis == 2 ? s : 0.0, cos(0.5 * radians)};
}

void sinew_quat_from_euler(sinew_vec3_t r, sinew_rotate_order_t order, sinew_quat_t *out)
{
    const int *ax = k_order_axes[order_index(order)];
    sinew_quat_t q = quat_axis(ax[0], vec3_get(r, ax[0]));
    for (int k = 1; k < 3; k++)
        sinew_quat_mul(q, quat_axis(ax[k], vec3_get(r, ax[k])), &q);
    *out = q;
}

void sinew_quat_to_euler(sinew_quat_t q, sinew_rotate_order_t order, sinew_vec3_t *out)
{
    sinew_mat4_t m;
    sinew_quat_to_mat4(q, &m);
    sinew_euler_from_mat4(&m, order, out);
}

void sinew_quat_from_axis_angle(sinew_vec3_t axis, double radians, sinew_quat_t *out)
{
    sinew_vec3_t n;
    sinew_vec3_normalize(axis, &n);
    if (n.x == 0.0 && n.y == 0.0 && n.z == 0.0) {
        sinew_quat_identity(out);
        return;
    }
    double s = sin(0.5 * radians);
    *out = (sinew_quat_t){n.x * s, n.y * s, n.z * s, cos(0.5 * radians)};
}

void sinew_quat_rotate(sinew_quat_t q, sinew_vec3_t v, sinew_vec3_t *out)
{
    /* q v q* expanded: v + w t + u x t with u = q's vector part and t = 2 (u x v). */
    sinew_vec3_t u = {q.x, q.y, q.z}, t, ut;
    sinew_vec3_cross(u, v, &t);
    sinew_vec3_scale(t, 2.0, &t);
    sinew_vec3_cross(u, t, &ut);
    *out = (sinew_vec3_t){v.x + q.w * t.x + ut.x, v.y + q.w * t.y + ut.y, v.z + q.w * t.z + ut.z};
}

void sinew_quat_slerp(sinew_quat_t a, sinew_quat_t b, double t, sinew_quat_t *out)
{
    double d = sinew_quat_dot(a, b);
    if (d < 0.0) { /* -b is the same rotation and lies on the shorter arc */
        b = (sinew_quat_t){-b.x, -b.y, -b.z, -b.w};
        d = -d;
    }
    double wa = 1.0 - t, wb = t;
    if (d < SLERP_LINEAR_DOT) {
        double theta = acos(d), s = sin(theta);
        wa = sin(wa * theta) / s;
        wb = sin(wb * theta) / s;
    }
    sinew_quat_t q = {wa * a.x + wb * b.x, wa * a.y + wb * b.y, wa * a.z + wb * b.z, wa * a.w + wb * b.w};
    sinew_quat_normalize(q, out);
}

/* ---- dual quaternions ------------------------------------------------------------------------------ */

static sinew_quat_t quat_scaled(sinew_quat_t q, double k)
{
    return (sinew_quat_t){q.x * k, q.y * k, q.z * k, q.w * k};
}

/* The translation of a unit dual quaternion: the vector part of 2 * dual * conj(real). Any part of dual
 * parallel to real (left by sinew_dquat_normalize) only reaches the scalar part, so it is ignored. */
static sinew_vec3_t dquat_translation(const sinew_dquat_t *d)
{
    sinew_quat_t rc, t;
    sinew_quat_conjugate(d->real, &rc);
    t = hamilton(d->dual, rc);
    return (sinew_vec3_t){2.0 * t.x, 2.0 * t.y, 2.0 * t.z};
}

void sinew_dquat_from_rigid(sinew_quat_t rotation, sinew_vec3_t translation, sinew_dquat_t *out)
{
    /* Rotate first, then translate: the translation quaternion multiplies on the left in Hamilton form. */
    sinew_quat_t t = {translation.x, translation.y, translation.z, 0.0};
    *out = (sinew_dquat_t){rotation, quat_scaled(hamilton(t, rotation), 0.5)};
}

bool sinew_dquat_from_mat4(const sinew_mat4_t *m, sinew_dquat_t *out)
{
    sinew_mat4_t rot, sh;
    if (!sinew_mat4_orthonormalize_rows(m, &rot, &sh))
        return false;
    sinew_quat_t q;
    sinew_quat_from_mat4(&rot, &q);
    sinew_dquat_from_rigid(q, mat4_row(&rot, 3), out);
    return true;
}

void sinew_dquat_add_scaled(sinew_dquat_t *acc, const sinew_dquat_t *d, double weight)
{
    sinew_quat_t r = quat_scaled(d->real, weight), u = quat_scaled(d->dual, weight);
    acc->real = (sinew_quat_t){acc->real.x + r.x, acc->real.y + r.y, acc->real.z + r.z, acc->real.w + r.w};
    acc->dual = (sinew_quat_t){acc->dual.x + u.x, acc->dual.y + u.y, acc->dual.z + u.z, acc->dual.w + u.w};
}

bool sinew_dquat_normalize(const sinew_dquat_t *d, sinew_dquat_t *out)
{
    double len = sqrt(sinew_quat_dot(d->real, d->real));
    if (!(len > 0.0) || !isfinite(len))
        return false;
    double k = 1.0 / len;
    *out = (sinew_dquat_t){quat_scaled(d->real, k), quat_scaled(d->dual, k)};
    return true;
}

void sinew_dquat_to_mat4(const sinew_dquat_t *d, sinew_mat4_t *out)
{
    sinew_vec3_t t = dquat_translation(d);
    sinew_mat4_t r;
    sinew_quat_to_mat4(d->real, &r);
    mat4_set_row(&r, 3, t);
    *out = r;
}

void sinew_dquat_transform_point(const sinew_dquat_t *d, sinew_vec3_t p, sinew_vec3_t *out)
{
    sinew_vec3_t t = dquat_translation(d), r;
    sinew_quat_rotate(d->real, p, &r);
    sinew_vec3_add(r, t, out);
}
