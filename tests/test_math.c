/* Tests for sinew/math.h. Expectations are computed independently of the code under test: from the spec's
 * formulas (maya-reference.md 2.2), from Rodrigues' axis-angle formula, and from naive loops written here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "sinew/math.h"

#define PI 3.14159265358979323846
#define DEG (PI / 180.0)
#define TOL 1e-12

/* ---- helpers: comparisons ------------------------------------------------------------------------ */

static void near_at(double got, double want, double tol, const char *what, const char *file, int line)
{
    if (!(fabs(got - want) <= tol)) {
        print_error("%s = %.17g, expected %.17g (tolerance %g)\n", what, got, want, tol);
        _fail(file, line);
    }
}
#define NEAR(got, want, tol) near_at((got), (want), (tol), #got, __FILE__, __LINE__)

static void vec_near_at(sinew_vec3_t g, sinew_vec3_t w, double tol, const char *file, int line)
{
    near_at(g.x, w.x, tol, "x", file, line);
    near_at(g.y, w.y, tol, "y", file, line);
    near_at(g.z, w.z, tol, "z", file, line);
}
#define VEC_NEAR(g, w, tol) vec_near_at((g), (w), (tol), __FILE__, __LINE__)

static void mat_near_at(const sinew_mat4_t *g, const sinew_mat4_t *w, double tol, const char *file, int line)
{
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            if (!(fabs(g->m[i][j] - w->m[i][j]) <= tol)) {
                print_error("m[%d][%d] = %.17g, expected %.17g (tolerance %g)\n", i, j, g->m[i][j], w->m[i][j],
                            tol);
                _fail(file, line);
            }
}
#define MAT_NEAR(g, w, tol) mat_near_at((g), (w), (tol), __FILE__, __LINE__)

/* q and -q are the same rotation, so quaternions are compared up to sign. */
static void quat_near_at(sinew_quat_t g, sinew_quat_t w, double tol, const char *file, int line)
{
    double s = (g.x * w.x + g.y * w.y + g.z * w.z + g.w * w.w) < 0.0 ? -1.0 : 1.0;
    near_at(s * g.x, w.x, tol, "q.x", file, line);
    near_at(s * g.y, w.y, tol, "q.y", file, line);
    near_at(s * g.z, w.z, tol, "q.z", file, line);
    near_at(s * g.w, w.w, tol, "q.w", file, line);
}
#define QUAT_NEAR(g, w, tol) quat_near_at((g), (w), (tol), __FILE__, __LINE__)

/* ---- helpers: independent reference maths ------------------------------------------------------- */

/* A tiny deterministic LCG (Knuth's MMIX constants), so failures reproduce. */
typedef struct lcg {
    uint64_t s;
} lcg_t;

static double lcg_uniform(lcg_t *g, double lo, double hi)
{
    g->s = g->s * 6364136223846793005ULL + 1442695040888963407ULL;
    return lo + (hi - lo) * (double)(g->s >> 11) * (1.0 / 9007199254740992.0);
}

static sinew_mat4_t ref_identity(void)
{
    sinew_mat4_t m;
    memset(&m, 0, sizeof m);
    for (int i = 0; i < 4; i++)
        m.m[i][i] = 1.0;
    return m;
}

static sinew_mat4_t ref_mul(sinew_mat4_t a, sinew_mat4_t b)
{
    sinew_mat4_t r;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double s = 0.0;
            for (int k = 0; k < 4; k++)
                s += a.m[i][k] * b.m[k][j];
            r.m[i][j] = s;
        }
    return r;
}

/* The spec's RX, RY, RZ, written out literally (maya-reference.md 2.2). */
static sinew_mat4_t spec_rx(double a)
{
    double c = cos(a), s = sin(a);
    return (sinew_mat4_t){{{1, 0, 0, 0}, {0, c, s, 0}, {0, -s, c, 0}, {0, 0, 0, 1}}};
}

static sinew_mat4_t spec_ry(double a)
{
    double c = cos(a), s = sin(a);
    return (sinew_mat4_t){{{c, 0, -s, 0}, {0, 1, 0, 0}, {s, 0, c, 0}, {0, 0, 0, 1}}};
}

static sinew_mat4_t spec_rz(double a)
{
    double c = cos(a), s = sin(a);
    return (sinew_mat4_t){{{c, s, 0, 0}, {-s, c, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}};
}

static sinew_mat4_t spec_axis(int axis, double a)
{
    return axis == 0 ? spec_rx(a) : axis == 1 ? spec_ry(a) : spec_rz(a);
}

/* The spec's rotate-order table: the three axes of each order, first-applied first. */
static const int k_axes[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {1, 0, 2}, {2, 1, 0}};
static const char *const k_names[6] = {"xyz", "yzx", "zxy", "xzy", "yxz", "zyx"};

static double comp(sinew_vec3_t v, int i)
{
    return i == 0 ? v.x : i == 1 ? v.y : v.z;
}

static sinew_mat4_t ref_euler(sinew_vec3_t r, int order)
{
    const int *ax = k_axes[order];
    return ref_mul(ref_mul(spec_axis(ax[0], comp(r, ax[0])), spec_axis(ax[1], comp(r, ax[1]))),
                   spec_axis(ax[2], comp(r, ax[2])));
}

/* Rodrigues' rotation about unit axis k, in row-vector form (the transpose of the textbook matrix). */
static sinew_mat4_t rodrigues(sinew_vec3_t k, double a)
{
    double c = cos(a), s = sin(a), kv[3] = {k.x, k.y, k.z};
    double cross[3][3] = {{0, -k.z, k.y}, {k.z, 0, -k.x}, {-k.y, k.x, 0}};
    sinew_mat4_t m = ref_identity();
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            m.m[i][j] = (i == j ? c : 0.0) - s * cross[i][j] + (1.0 - c) * kv[i] * kv[j];
    return m;
}

/* Rodrigues applied to a vector: v c + (k x v) s + k (k.v)(1 - c). */
static sinew_vec3_t rodrigues_vec(sinew_vec3_t k, double a, sinew_vec3_t v)
{
    double c = cos(a), s = sin(a), kd = k.x * v.x + k.y * v.y + k.z * v.z;
    sinew_vec3_t kx = {k.y * v.z - k.z * v.y, k.z * v.x - k.x * v.z, k.x * v.y - k.y * v.x};
    return (sinew_vec3_t){v.x * c + kx.x * s + k.x * kd * (1 - c), v.y * c + kx.y * s + k.y * kd * (1 - c),
                          v.z * c + kx.z * s + k.z * kd * (1 - c)};
}

static sinew_vec3_t unit_axis(int axis)
{
    return (sinew_vec3_t){axis == 0, axis == 1, axis == 2};
}

/* p * m with w = 1, written as the row-vector sum. */
static sinew_vec3_t ref_point(sinew_vec3_t p, sinew_mat4_t m)
{
    double v[3];
    for (int j = 0; j < 3; j++)
        v[j] = p.x * m.m[0][j] + p.y * m.m[1][j] + p.z * m.m[2][j] + m.m[3][j];
    return (sinew_vec3_t){v[0], v[1], v[2]};
}

static sinew_mat4_t ref_translate(sinew_vec3_t t)
{
    sinew_mat4_t m = ref_identity();
    m.m[3][0] = t.x;
    m.m[3][1] = t.y;
    m.m[3][2] = t.z;
    return m;
}

/* S * SH * R(order) * T from the spec's component matrices. */
static sinew_mat4_t ref_compose(sinew_vec3_t t, sinew_vec3_t r, int order, sinew_vec3_t s, sinew_vec3_t sh)
{
    sinew_mat4_t sm = ref_identity(), shm = ref_identity();
    sm.m[0][0] = s.x;
    sm.m[1][1] = s.y;
    sm.m[2][2] = s.z;
    shm.m[1][0] = sh.x;
    shm.m[2][0] = sh.y;
    shm.m[2][1] = sh.z;
    return ref_mul(ref_mul(ref_mul(sm, shm), ref_euler(r, order)), ref_translate(t));
}

static double det3(double a[3][3])
{
    return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
           a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
}

/* Laplace expansion along the first row. */
static double ref_det4(const sinew_mat4_t *m)
{
    double d = 0.0;
    for (int j = 0; j < 4; j++) {
        double minor[3][3];
        for (int r = 1; r < 4; r++)
            for (int c = 0, k = 0; c < 4; c++)
                if (c != j)
                    minor[r - 1][k++] = m->m[r][c];
        d += ((j % 2) ? -1.0 : 1.0) * m->m[0][j] * det3(minor);
    }
    return d;
}

static double ref_det3_of(const sinew_mat4_t *m)
{
    double a[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            a[i][j] = m->m[i][j];
    return det3(a);
}

static sinew_mat4_t random_well_conditioned(lcg_t *g)
{
    sinew_mat4_t m;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            m.m[i][j] = lcg_uniform(g, -1.0, 1.0) + (i == j ? 4.0 : 0.0); /* diagonally dominant */
    return m;
}

static sinew_vec3_t random_vec(lcg_t *g, double lo, double hi)
{
    return (sinew_vec3_t){lcg_uniform(g, lo, hi), lcg_uniform(g, lo, hi), lcg_uniform(g, lo, hi)};
}

/* Euler angles in the principal ranges: middle angle inside (-90, 90), the others inside (-180, 180). */
static sinew_vec3_t random_euler(lcg_t *g, int order)
{
    sinew_vec3_t r = random_vec(g, -0.99 * PI, 0.99 * PI);
    double mid = lcg_uniform(g, -0.49 * PI, 0.49 * PI);
    int a = k_axes[order][1];
    if (a == 0)
        r.x = mid;
    else if (a == 1)
        r.y = mid;
    else
        r.z = mid;
    return r;
}

static void fill_sentinel(sinew_mat4_t *m)
{
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            m->m[i][j] = 42.0 + i * 4 + j;
}

/* ---- vec3 ---------------------------------------------------------------------------------------- */

static void test_vec3_basics(void **state)
{
    (void)state;
    sinew_vec3_t a = {1, 2, 3}, b = {4, -5, 6}, r;
    sinew_vec3_add(a, b, &r);
    VEC_NEAR(r, ((sinew_vec3_t){5, -3, 9}), 0);
    sinew_vec3_sub(a, b, &r);
    VEC_NEAR(r, ((sinew_vec3_t){-3, 7, -3}), 0);
    sinew_vec3_scale(a, -2, &r);
    VEC_NEAR(r, ((sinew_vec3_t){-2, -4, -6}), 0);
    NEAR(sinew_vec3_dot(a, b), 4 - 10 + 18, 0);
    sinew_vec3_cross((sinew_vec3_t){1, 0, 0}, (sinew_vec3_t){0, 1, 0}, &r);
    VEC_NEAR(r, ((sinew_vec3_t){0, 0, 1}), 0); /* right-handed */
    sinew_vec3_cross(a, b, &r);
    VEC_NEAR(r, ((sinew_vec3_t){2 * 6 - 3 * -5, 3 * 4 - 1 * 6, 1 * -5 - 2 * 4}), 0);
    NEAR(sinew_vec3_length((sinew_vec3_t){3, 4, 12}), 13, TOL);
    sinew_vec3_normalize((sinew_vec3_t){0, 3, 4}, &r);
    VEC_NEAR(r, ((sinew_vec3_t){0, 0.6, 0.8}), TOL);
    sinew_vec3_normalize((sinew_vec3_t){0, 0, 0}, &r);
    VEC_NEAR(r, ((sinew_vec3_t){0, 0, 0}), 0);
    sinew_vec3_lerp(a, b, 0.25, &r);
    VEC_NEAR(r, ((sinew_vec3_t){1.75, 0.25, 3.75}), TOL);
    sinew_vec3_lerp(a, b, 0, &r);
    VEC_NEAR(r, a, 0);
    sinew_vec3_lerp(a, b, 1, &r);
    VEC_NEAR(r, b, 0);
    sinew_vec3_add(a, b, &a); /* output may alias an input */
    VEC_NEAR(a, ((sinew_vec3_t){5, -3, 9}), 0);
}

/* ---- mat4 construction ------------------------------------------------------------------------------ */

static void test_mat4_rotations_match_spec(void **state)
{
    (void)state;
    const double angles[] = {0.0, 0.3, -1.2, PI / 2, PI, 2.5, -3.0};
    for (size_t i = 0; i < sizeof angles / sizeof angles[0]; i++) {
        sinew_mat4_t m, w;
        sinew_mat4_rotate_x(angles[i], &m);
        w = spec_rx(angles[i]);
        MAT_NEAR(&m, &w, 0);
        sinew_mat4_rotate_y(angles[i], &m);
        w = spec_ry(angles[i]);
        MAT_NEAR(&m, &w, 0);
        sinew_mat4_rotate_z(angles[i], &m);
        w = spec_rz(angles[i]);
        MAT_NEAR(&m, &w, 0);
        for (int axis = 0; axis < 3; axis++) { /* and against Rodrigues */
            w = rodrigues(unit_axis(axis), angles[i]);
            sinew_mat4_t r = spec_axis(axis, angles[i]);
            if (axis == 0)
                sinew_mat4_rotate_x(angles[i], &m);
            else if (axis == 1)
                sinew_mat4_rotate_y(angles[i], &m);
            else
                sinew_mat4_rotate_z(angles[i], &m);
            MAT_NEAR(&m, &w, TOL);
            MAT_NEAR(&r, &w, TOL);
        }
    }
}

static void test_mat4_rotation_direction(void **state)
{
    (void)state;
    /* Row vectors: p' = p * M. A right-handed 90 degree turn about Z takes X to Y. */
    sinew_mat4_t m;
    sinew_vec3_t r;
    sinew_mat4_rotate_z(PI / 2, &m);
    sinew_mat4_transform_point((sinew_vec3_t){1, 0, 0}, &m, &r);
    VEC_NEAR(r, ((sinew_vec3_t){0, 1, 0}), TOL);
    sinew_mat4_rotate_x(PI / 2, &m);
    sinew_mat4_transform_point((sinew_vec3_t){0, 1, 0}, &m, &r);
    VEC_NEAR(r, ((sinew_vec3_t){0, 0, 1}), TOL);
    sinew_mat4_rotate_y(PI / 2, &m);
    sinew_mat4_transform_point((sinew_vec3_t){0, 0, 1}, &m, &r);
    VEC_NEAR(r, ((sinew_vec3_t){1, 0, 0}), TOL);
}

static void test_mat4_trs_shear(void **state)
{
    (void)state;
    sinew_mat4_t m, w;
    sinew_mat4_identity(&m);
    w = ref_identity();
    MAT_NEAR(&m, &w, 0);

    sinew_mat4_translate((sinew_vec3_t){1, 2, 3}, &m);
    w = ref_identity();
    w.m[3][0] = 1, w.m[3][1] = 2, w.m[3][2] = 3;
    MAT_NEAR(&m, &w, 0);

    sinew_mat4_scale((sinew_vec3_t){2, 3, 4}, &m);
    w = ref_identity();
    w.m[0][0] = 2, w.m[1][1] = 3, w.m[2][2] = 4;
    MAT_NEAR(&m, &w, 0);

    sinew_mat4_shear(0.5, 0.25, 2.0, &m);
    w = ref_identity();
    w.m[1][0] = 0.5, w.m[2][0] = 0.25, w.m[2][1] = 2.0;
    MAT_NEAR(&m, &w, 0);
    /* The spec: x' = x + shxy*y + shxz*z, y' = y + shyz*z. */
    sinew_vec3_t r;
    sinew_mat4_transform_point((sinew_vec3_t){1, 2, 3}, &m, &r);
    VEC_NEAR(r, ((sinew_vec3_t){1 + 0.5 * 2 + 0.25 * 3, 2 + 2.0 * 3, 3}), TOL);
}

static void test_mat4_euler_orders(void **state)
{
    (void)state;
    lcg_t g = {11};
    for (int order = 0; order < 6; order++)
        for (int n = 0; n < 20; n++) {
            sinew_vec3_t r = random_vec(&g, -PI, PI);
            sinew_mat4_t m, w;
            sinew_mat4_euler(r, (sinew_rotate_order_t)order, &m);
            /* Against the product of the spec's matrices ... */
            w = ref_euler(r, order);
            MAT_NEAR(&m, &w, TOL);
            /* ... against Rodrigues matrices about the parent axes, first letter first ... */
            const int *ax = k_axes[order];
            w = ref_mul(ref_mul(rodrigues(unit_axis(ax[0]), comp(r, ax[0])),
                                rodrigues(unit_axis(ax[1]), comp(r, ax[1]))),
                        rodrigues(unit_axis(ax[2]), comp(r, ax[2])));
            MAT_NEAR(&m, &w, TOL);
            /* ... and as a sequence of rotations of a point. */
            sinew_vec3_t p = {0.3, -1.1, 2.0}, q = p, got;
            for (int k = 0; k < 3; k++)
                q = rodrigues_vec(unit_axis(ax[k]), comp(r, ax[k]), q);
            sinew_mat4_transform_point(p, &m, &got);
            VEC_NEAR(got, q, TOL);
        }
    /* Out-of-range orders fall back to xyz. */
    sinew_vec3_t r = {0.1, 0.2, 0.3};
    sinew_mat4_t m, w = ref_euler(r, 0);
    sinew_mat4_euler(r, SINEW_ROTATE_ORDER_MAX, &m);
    MAT_NEAR(&m, &w, TOL);
}

static void test_mat4_compose_matches_spec(void **state)
{
    (void)state;
    lcg_t g = {5};
    for (int order = 0; order < 6; order++) {
        sinew_vec3_t t = random_vec(&g, -10, 10), r = random_vec(&g, -PI, PI), s = random_vec(&g, 0.2, 3);
        sinew_vec3_t sh = random_vec(&g, -1, 1);
        sinew_mat4_t m, w = ref_compose(t, r, order, s, sh);
        sinew_mat4_compose(t, r, (sinew_rotate_order_t)order, s, sh, &m);
        MAT_NEAR(&m, &w, TOL);
    }
}

/* ---- mat4 arithmetic -------------------------------------------------------------------------------- */

static void test_mat4_mul_and_transpose(void **state)
{
    (void)state;
    lcg_t g = {7};
    sinew_mat4_t a = random_well_conditioned(&g), b = random_well_conditioned(&g), m, w;
    sinew_mat4_mul(&a, &b, &m);
    w = ref_mul(a, b);
    MAT_NEAR(&m, &w, TOL);
    sinew_mat4_mul(&a, &b, &a); /* out aliasing the left operand */
    MAT_NEAR(&a, &w, TOL);

    /* "a then b": translate by X, then turn 90 degrees about Z, takes the origin to +Y. */
    sinew_mat4_t t, rz;
    sinew_vec3_t p;
    sinew_mat4_translate((sinew_vec3_t){1, 0, 0}, &t);
    sinew_mat4_rotate_z(PI / 2, &rz);
    sinew_mat4_mul(&t, &rz, &m);
    sinew_mat4_transform_point((sinew_vec3_t){0, 0, 0}, &m, &p);
    VEC_NEAR(p, ((sinew_vec3_t){0, 1, 0}), TOL);

    sinew_mat4_transpose(&b, &m);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            NEAR(m.m[i][j], b.m[j][i], 0);
    sinew_mat4_transpose(&b, &b);
    MAT_NEAR(&b, &m, 0);
}

static void test_mat4_transform_point_vector(void **state)
{
    (void)state;
    lcg_t g = {9};
    sinew_mat4_t m = random_well_conditioned(&g);
    sinew_vec3_t p = {1.5, -2, 0.25}, r, w = ref_point(p, m);
    sinew_mat4_transform_point(p, &m, &r);
    VEC_NEAR(r, w, TOL);
    sinew_mat4_transform_vector(p, &m, &r);
    VEC_NEAR(r, ((sinew_vec3_t){w.x - m.m[3][0], w.y - m.m[3][1], w.z - m.m[3][2]}), TOL);
    sinew_mat4_t t;
    sinew_mat4_translate((sinew_vec3_t){5, 6, 7}, &t);
    sinew_mat4_transform_vector(p, &t, &r); /* directions ignore translation */
    VEC_NEAR(r, p, 0);
    sinew_mat4_transform_point(p, &t, &r);
    VEC_NEAR(r, ((sinew_vec3_t){6.5, 4, 7.25}), 0);
}

static void test_mat4_determinant(void **state)
{
    (void)state;
    sinew_mat4_t m = ref_identity();
    m.m[0][0] = 2, m.m[1][1] = 3, m.m[2][2] = 4, m.m[3][3] = 5;
    NEAR(sinew_mat4_determinant(&m), 120, 0);
    m.m[3][0] = 7, m.m[2][1] = -3; /* triangular: still the diagonal product */
    NEAR(sinew_mat4_determinant(&m), 120, TOL);
    sinew_mat4_t swap = ref_identity(); /* one row swap: -1 */
    swap.m[0][0] = swap.m[1][1] = 0, swap.m[0][1] = swap.m[1][0] = 1;
    NEAR(sinew_mat4_determinant(&swap), -1, 0);
    lcg_t g = {3};
    for (int n = 0; n < 50; n++) {
        sinew_mat4_t r;
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
                r.m[i][j] = lcg_uniform(&g, -3, 3);
        NEAR(sinew_mat4_determinant(&r), ref_det4(&r), 1e-10);
    }
}

static void test_mat4_inverse_random(void **state)
{
    (void)state;
    lcg_t g = {12345};
    sinew_mat4_t id = ref_identity();
    for (int n = 0; n < 200; n++) {
        sinew_mat4_t m = random_well_conditioned(&g), inv, prod;
        assert_true(sinew_mat4_inverse(&m, &inv));
        prod = ref_mul(inv, m);
        MAT_NEAR(&prod, &id, TOL);
        prod = ref_mul(m, inv);
        MAT_NEAR(&prod, &id, TOL);
    }
    /* A rigid-plus-scale matrix has a closed-form inverse: T^-1 * R^T * S^-1. */
    sinew_vec3_t t = {1, -2, 3}, r = {0.3, 0.6, -0.9};
    sinew_mat4_t m = ref_compose(t, r, 0, (sinew_vec3_t){2, 4, 0.5}, (sinew_vec3_t){0, 0, 0}), inv;
    sinew_mat4_t rt, sinv = ref_identity();
    sinew_mat4_t rot = ref_euler(r, 0);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            rt.m[i][j] = rot.m[j][i];
    sinv.m[0][0] = 0.5, sinv.m[1][1] = 0.25, sinv.m[2][2] = 2;
    sinew_mat4_t w = ref_mul(ref_mul(ref_translate((sinew_vec3_t){-1, 2, -3}), rt), sinv);
    assert_true(sinew_mat4_inverse(&m, &inv));
    MAT_NEAR(&inv, &w, TOL);
    assert_true(sinew_mat4_inverse_affine(&m, &inv));
    MAT_NEAR(&inv, &w, TOL);
    assert_true(sinew_mat4_inverse(&m, &m)); /* in place */
    MAT_NEAR(&m, &w, TOL);
}

static void test_mat4_inverse_singular(void **state)
{
    (void)state;
    sinew_mat4_t bad[8];
    memset(bad, 0, sizeof bad);                 /* [0]: zero matrix */
    bad[1] = ref_identity();                    /* [1]: two equal rows */
    bad[1].m[1][0] = 1, bad[1].m[1][1] = 0;
    bad[2] = ref_identity();                    /* [2]: NaN */
    bad[2].m[2][1] = NAN;
    bad[3] = ref_identity();                    /* [3]: infinity */
    bad[3].m[3][0] = INFINITY;
    bad[4] = ref_identity();                    /* [4]: det 1e-400 underflows below 1e-300 */
    bad[4].m[0][0] = bad[4].m[1][1] = bad[4].m[2][2] = bad[4].m[3][3] = 1e-100;
    bad[5] = ref_identity();                    /* [5]: rank 3 (a zero scale) */
    bad[5].m[1][1] = 0;
    bad[6] = ref_identity();                    /* [6]: det 1e-305, below 1e-300, finite inverse */
    bad[6].m[0][0] = 1e-305;
    bad[7] = ref_identity();                    /* [7]: det 1e-279 is fine, but 1/1e-309 overflows */
    bad[7].m[0][0] = 1e-309;
    bad[7].m[1][1] = bad[7].m[2][2] = bad[7].m[3][3] = 1e10;
    for (int n = 0; n < 8; n++) {
        sinew_mat4_t out, before;
        fill_sentinel(&out);
        before = out;
        assert_false(sinew_mat4_inverse(&bad[n], &out));
        assert_memory_equal(&out, &before, sizeof out);
        assert_false(sinew_mat4_inverse_affine(&bad[n], &out));
        assert_memory_equal(&out, &before, sizeof out);
    }
    /* Tiny but above the threshold is still invertible. */
    sinew_mat4_t small = ref_identity(), inv;
    small.m[0][0] = small.m[1][1] = small.m[2][2] = 1e-70;
    assert_true(sinew_mat4_inverse(&small, &inv));
    NEAR(inv.m[0][0] * 1e-70, 1.0, TOL);
}

static void test_mat4_inverse_affine(void **state)
{
    (void)state;
    lcg_t g = {77};
    sinew_mat4_t id = ref_identity();
    for (int n = 0; n < 100; n++) {
        int order = n % 6;
        sinew_mat4_t m = ref_compose(random_vec(&g, -10, 10), random_vec(&g, -PI, PI), order,
                                     random_vec(&g, 0.3, 3), random_vec(&g, -1, 1)),
                     inv, prod;
        assert_true(sinew_mat4_inverse_affine(&m, &inv));
        prod = ref_mul(m, inv);
        MAT_NEAR(&prod, &id, 1e-11);
        prod = ref_mul(inv, m);
        MAT_NEAR(&prod, &id, 1e-11);
    }
    /* Not affine: handed to the general inverse, still correct. */
    sinew_mat4_t p = random_well_conditioned(&g), inv, prod;
    assert_true(sinew_mat4_inverse_affine(&p, &inv));
    prod = ref_mul(p, inv);
    MAT_NEAR(&prod, &id, TOL);
}

static void test_mat4_equal_finite_arrays(void **state)
{
    (void)state;
    sinew_mat4_t a = ref_identity(), b = ref_identity();
    b.m[2][3] = 1e-9;
    assert_true(sinew_mat4_equal(&a, &b, 1e-8));
    assert_false(sinew_mat4_equal(&a, &b, 1e-10));
    assert_true(sinew_mat4_is_finite(&b));
    b.m[1][2] = NAN;
    assert_false(sinew_mat4_equal(&a, &b, 1e300));
    assert_false(sinew_mat4_is_finite(&b));
    b.m[1][2] = -INFINITY;
    assert_false(sinew_mat4_is_finite(&b));

    /* .ma "matrix" order is row by row: translation at 12, 13, 14. */
    double v[16], back[16];
    for (int i = 0; i < 16; i++)
        v[i] = i + 1;
    sinew_mat4_t m;
    sinew_mat4_from_array(v, &m);
    NEAR(m.m[0][1], 2, 0);
    NEAR(m.m[1][0], 5, 0);
    NEAR(m.m[3][0], 13, 0);
    NEAR(m.m[3][2], 15, 0);
    sinew_vec3_t p;
    sinew_mat4_transform_point((sinew_vec3_t){0, 0, 0}, &m, &p);
    VEC_NEAR(p, ((sinew_vec3_t){13, 14, 15}), 0);
    sinew_mat4_to_array(&m, back);
    assert_memory_equal(v, back, sizeof v);
}

static void test_mat4_float34(void **state)
{
    (void)state;
    double v[16];
    for (int i = 0; i < 16; i++)
        v[i] = i + 1;
    sinew_mat4_t m;
    sinew_mat4_from_array(v, &m);
    float f[12];
    sinew_mat4_to_float34(&m, f);
    const float want[12] = {1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15};
    assert_memory_equal(f, want, sizeof want);

    /* The kernel form reproduces p * M for an affine matrix. */
    m = ref_compose((sinew_vec3_t){1, 2, 3}, (sinew_vec3_t){0.4, -0.2, 1.0}, 2, (sinew_vec3_t){1, 2, 0.5},
                    (sinew_vec3_t){0.1, 0, 0});
    sinew_mat4_to_float34(&m, f);
    sinew_vec3_t p = {0.5, -1.5, 2}, w = ref_point(p, m);
    NEAR(p.x * f[0] + p.y * f[1] + p.z * f[2] + f[3], w.x, 1e-5);
    NEAR(p.x * f[4] + p.y * f[5] + p.z * f[6] + f[7], w.y, 1e-5);
    NEAR(p.x * f[8] + p.y * f[9] + p.z * f[10] + f[11], w.z, 1e-5);
}

/* ---- Euler extraction and decomposition ------------------------------------------------------------- */

static void test_euler_from_mat4_round_trip(void **state)
{
    (void)state;
    lcg_t g = {21};
    for (int order = 0; order < 6; order++)
        for (int n = 0; n < 50; n++) {
            sinew_vec3_t r = random_euler(&g, order), got;
            sinew_mat4_t m = ref_euler(r, order);
            sinew_euler_from_mat4(&m, (sinew_rotate_order_t)order, &got);
            if (fabs(got.x - r.x) > 1e-9 || fabs(got.y - r.y) > 1e-9 || fabs(got.z - r.z) > 1e-9)
                print_error("order %s\n", k_names[order]);
            VEC_NEAR(got, r, 1e-9);
        }
}

static void test_euler_from_mat4_gimbal(void **state)
{
    (void)state;
    lcg_t g = {99};
    const double mids[] = {PI / 2, -PI / 2, PI / 2 - 1e-9, -PI / 2 + 1e-7, PI / 2 - 1e-13};
    for (int order = 0; order < 6; order++)
        for (size_t k = 0; k < sizeof mids / sizeof mids[0]; k++) {
            sinew_vec3_t r = random_vec(&g, -PI * 0.9, PI * 0.9), got;
            int mid_axis = k_axes[order][1];
            r = (sinew_vec3_t){mid_axis == 0 ? mids[k] : r.x, mid_axis == 1 ? mids[k] : r.y,
                               mid_axis == 2 ? mids[k] : r.z};
            sinew_mat4_t m = ref_euler(r, order), back;
            sinew_euler_from_mat4(&m, (sinew_rotate_order_t)order, &got);
            back = ref_euler(got, order);
            MAT_NEAR(&back, &m, 1e-9);
            NEAR(comp(got, mid_axis), mids[k], 1e-6);
            if (fabs(mids[k]) == PI / 2) /* exact lock: the first angle is pinned to 0 */
                NEAR(comp(got, k_axes[order][0]), 0, 0);
        }
}

static void test_decompose_compose_round_trip(void **state)
{
    (void)state;
    lcg_t g = {4242};
    for (int order = 0; order < 6; order++)
        for (int n = 0; n < 50; n++) {
            sinew_vec3_t t = random_vec(&g, -20, 20), r = random_euler(&g, order);
            sinew_vec3_t s = random_vec(&g, 0.1, 5), sh = random_vec(&g, -2, 2);
            if (n % 5 == 0)
                s.x = -s.x; /* negative scale x is representable exactly */
            sinew_mat4_t m = ref_compose(t, r, order, s, sh), back;
            sinew_vec3_t gt, gr, gs, gsh;
            assert_true(sinew_mat4_decompose(&m, (sinew_rotate_order_t)order, &gt, &gr, &gs, &gsh));
            VEC_NEAR(gt, t, 1e-12);
            VEC_NEAR(gr, r, 1e-9);
            VEC_NEAR(gs, s, 1e-9);
            VEC_NEAR(gsh, sh, 1e-9);
            sinew_mat4_compose(gt, gr, (sinew_rotate_order_t)order, gs, gsh, &back);
            MAT_NEAR(&back, &m, 1e-9);
        }
}

static void test_decompose_gimbal_and_mirrors(void **state)
{
    (void)state;
    lcg_t g = {808};
    const double mids[] = {PI / 2, -PI / 2, PI / 2 - 1e-8};
    const sinew_vec3_t scales[] = {{1, 1, 1}, {2, 0.5, 3}, {1, -2, 3}, {1, 2, -3}, {-1, -1, 1}, {-2, -3, -4}};
    for (int order = 0; order < 6; order++)
        for (size_t k = 0; k < 3; k++)
            for (size_t si = 0; si < sizeof scales / sizeof scales[0]; si++) {
                sinew_vec3_t t = random_vec(&g, -5, 5), r = random_vec(&g, -3, 3), sh = random_vec(&g, -1, 1);
                int mid = k_axes[order][1];
                r = (sinew_vec3_t){mid == 0 ? mids[k] : r.x, mid == 1 ? mids[k] : r.y, mid == 2 ? mids[k] : r.z};
                sinew_mat4_t m = ref_compose(t, r, order, scales[si], sh), back;
                sinew_vec3_t gt, gr, gs, gsh;
                assert_true(sinew_mat4_decompose(&m, (sinew_rotate_order_t)order, &gt, &gr, &gs, &gsh));
                back = ref_compose(gt, gr, order, gs, gsh);
                MAT_NEAR(&back, &m, 1e-9);
                /* A mirror shows up as a negative scale x only. */
                double det = scales[si].x * scales[si].y * scales[si].z;
                assert_true(gs.y > 0 && gs.z > 0);
                assert_true((gs.x < 0) == (det < 0));
                NEAR(fabs(gs.x * gs.y * gs.z), fabs(det), 1e-9);
            }
}

static void test_decompose_singular(void **state)
{
    (void)state;
    sinew_mat4_t m = ref_compose((sinew_vec3_t){1, 2, 3}, (sinew_vec3_t){0.1, 0.2, 0.3}, 0,
                                 (sinew_vec3_t){1, 0, 1}, (sinew_vec3_t){0, 0, 0});
    sinew_vec3_t t = {9, 9, 9}, r = t, s = t, sh = t;
    assert_false(sinew_mat4_decompose(&m, SINEW_ROTATE_XYZ, &t, &r, &s, &sh));
    VEC_NEAR(t, ((sinew_vec3_t){9, 9, 9}), 0);
    VEC_NEAR(r, ((sinew_vec3_t){9, 9, 9}), 0);
    VEC_NEAR(s, ((sinew_vec3_t){9, 9, 9}), 0);
    VEC_NEAR(sh, ((sinew_vec3_t){9, 9, 9}), 0);
    m = ref_identity();
    m.m[2][0] = 1, m.m[2][1] = 1, m.m[2][2] = 0; /* row z in the plane of rows x and y */
    assert_false(sinew_mat4_decompose(&m, SINEW_ROTATE_ZYX, NULL, &r, NULL, NULL));
    /* Dependent up to rounding: the Gram-Schmidt residual is about 1e-17, not exactly 0. */
    m = ref_identity();
    const double a0[3] = {0.1, 0.7, 0.3}, a1[3] = {0.3, 0.2, 0.9};
    for (int j = 0; j < 3; j++)
        m.m[0][j] = a0[j], m.m[1][j] = a1[j], m.m[2][j] = 3.1 * a0[j] + 0.7 * a1[j];
    assert_false(sinew_mat4_decompose(&m, SINEW_ROTATE_YXZ, NULL, &r, NULL, NULL));
    m = ref_identity();
    m.m[0][0] = NAN;
    assert_false(sinew_mat4_decompose(&m, SINEW_ROTATE_ZYX, NULL, NULL, &s, NULL));
    /* NULL outputs are allowed on success too. */
    m = ref_identity();
    assert_true(sinew_mat4_decompose(&m, SINEW_ROTATE_XYZ, NULL, NULL, &s, NULL));
    VEC_NEAR(s, ((sinew_vec3_t){1, 1, 1}), 0);
}

static void test_orthonormalize_rows(void **state)
{
    (void)state;
    lcg_t g = {31337};
    for (int n = 0; n < 60; n++) {
        sinew_vec3_t s = random_vec(&g, 0.2, 4);
        if (n % 3 == 0)
            s.y = -s.y; /* mirrored */
        sinew_mat4_t a = ref_compose(random_vec(&g, -5, 5), random_vec(&g, -PI, PI), n % 6, s,
                                     random_vec(&g, -1, 1)),
                     r, sh, prod;
        assert_true(sinew_mat4_orthonormalize_rows(&a, &r, &sh));
        prod = ref_mul(sh, r);
        MAT_NEAR(&prod, &a, 1e-12);
        for (int i = 0; i < 3; i++) /* R's rows are orthonormal ... */
            for (int j = 0; j < 3; j++)
                NEAR(r.m[i][0] * r.m[j][0] + r.m[i][1] * r.m[j][1] + r.m[i][2] * r.m[j][2], i == j, 1e-12);
        NEAR(ref_det3_of(&r), 1.0, 1e-12); /* ... and a rotation, not a mirror */
        NEAR(sh.m[0][1], 0, 0);            /* S is lower triangular */
        NEAR(sh.m[0][2], 0, 0);
        NEAR(sh.m[1][2], 0, 0);
        assert_true(sh.m[1][1] > 0 && sh.m[2][2] > 0);
        /* The x row of R points along a's x row (or against it, for a mirror). */
        double ax = sqrt(a.m[0][0] * a.m[0][0] + a.m[0][1] * a.m[0][1] + a.m[0][2] * a.m[0][2]);
        double sign = (ref_det3_of(&a) < 0) ? -1.0 : 1.0;
        for (int j = 0; j < 3; j++)
            NEAR(r.m[0][j], sign * a.m[0][j] / ax, 1e-12);
    }
    sinew_mat4_t a = ref_identity(), r, sh, before;
    a.m[2][2] = 0;
    fill_sentinel(&r);
    fill_sentinel(&sh);
    before = r;
    assert_false(sinew_mat4_orthonormalize_rows(&a, &r, &sh));
    assert_memory_equal(&r, &before, sizeof r);
    assert_memory_equal(&sh, &before, sizeof sh);
}

/* ---- quaternions ------------------------------------------------------------------------------------ */

static void test_quat_axis_convention(void **state)
{
    (void)state;
    const double angles[] = {0.0, 0.7, -1.9, PI / 2, 3.0};
    for (size_t i = 0; i < sizeof angles / sizeof angles[0]; i++) {
        double a = angles[i], s = sin(a / 2), c = cos(a / 2);
        for (int axis = 0; axis < 3; axis++) {
            sinew_quat_t q, want = {axis == 0 ? s : 0, axis == 1 ? s : 0, axis == 2 ? s : 0, c};
            sinew_quat_from_axis_angle(unit_axis(axis), a, &q);
            NEAR(q.x, want.x, TOL);
            NEAR(q.y, want.y, TOL);
            NEAR(q.z, want.z, TOL);
            NEAR(q.w, want.w, TOL);
            sinew_mat4_t m, w = spec_axis(axis, a);
            sinew_quat_to_mat4(want, &m);
            MAT_NEAR(&m, &w, TOL);
        }
    }
    sinew_quat_t q;
    sinew_quat_from_axis_angle((sinew_vec3_t){0, 0, 0}, 1.0, &q);
    QUAT_NEAR(q, ((sinew_quat_t){0, 0, 0, 1}), 0);
    sinew_quat_from_axis_angle((sinew_vec3_t){0, 0, 5}, PI / 2, &q); /* the axis is normalised */
    QUAT_NEAR(q, ((sinew_quat_t){0, 0, sin(PI / 4), cos(PI / 4)}), TOL);
}

static void test_quat_to_mat4_rodrigues(void **state)
{
    (void)state;
    lcg_t g = {555};
    for (int n = 0; n < 100; n++) {
        sinew_vec3_t k = random_vec(&g, -1, 1);
        double len = sqrt(k.x * k.x + k.y * k.y + k.z * k.z), a = lcg_uniform(&g, -PI, PI);
        k = (sinew_vec3_t){k.x / len, k.y / len, k.z / len};
        sinew_quat_t q = {k.x * sin(a / 2), k.y * sin(a / 2), k.z * sin(a / 2), cos(a / 2)};
        sinew_mat4_t m, w = rodrigues(k, a);
        sinew_quat_to_mat4(q, &m);
        MAT_NEAR(&m, &w, TOL);
        /* A non-unit quaternion gives the rotation of its normalised form. */
        sinew_quat_to_mat4((sinew_quat_t){3 * q.x, 3 * q.y, 3 * q.z, 3 * q.w}, &m);
        MAT_NEAR(&m, &w, TOL);
        sinew_vec3_t v = {0.2, -3, 1.5}, got;
        sinew_quat_rotate(q, v, &got);
        VEC_NEAR(got, rodrigues_vec(k, a, v), TOL);
    }
}

static void test_quat_mul_convention(void **state)
{
    (void)state;
    /* quat_mul(a, b) is "a then b": its matrix is Ma * Mb. */
    lcg_t g = {1001};
    for (int n = 0; n < 50; n++) {
        sinew_vec3_t ka = random_vec(&g, -1, 1), kb = random_vec(&g, -1, 1);
        double aa = lcg_uniform(&g, -PI, PI), ab = lcg_uniform(&g, -PI, PI);
        sinew_quat_t qa, qb, q;
        sinew_quat_from_axis_angle(ka, aa, &qa);
        sinew_quat_from_axis_angle(kb, ab, &qb);
        sinew_quat_mul(qa, qb, &q);
        sinew_vec3_t na, nb;
        sinew_vec3_normalize(ka, &na);
        sinew_vec3_normalize(kb, &nb);
        sinew_mat4_t m, w = ref_mul(rodrigues(na, aa), rodrigues(nb, ab));
        sinew_quat_to_mat4(q, &m);
        MAT_NEAR(&m, &w, TOL);
    }
    /* 90 degrees about X then 90 about Y takes +Y to +Z, then to +X. */
    sinew_quat_t qx = {sin(PI / 4), 0, 0, cos(PI / 4)}, qy = {0, sin(PI / 4), 0, cos(PI / 4)}, q;
    sinew_quat_mul(qx, qy, &q);
    sinew_vec3_t v;
    sinew_quat_rotate(q, (sinew_vec3_t){0, 1, 0}, &v);
    VEC_NEAR(v, ((sinew_vec3_t){1, 0, 0}), TOL);
    sinew_quat_t id;
    sinew_quat_identity(&id);
    sinew_quat_mul(id, qx, &q);
    QUAT_NEAR(q, qx, 0);
}

static void test_quat_small_ops(void **state)
{
    (void)state;
    sinew_quat_t q = {1, -2, 3, 4}, r;
    sinew_quat_conjugate(q, &r);
    assert_true(r.x == -1 && r.y == 2 && r.z == -3 && r.w == 4);
    NEAR(sinew_quat_dot(q, (sinew_quat_t){2, 1, -1, 0.5}), 2 - 2 - 3 + 2, 0);
    sinew_quat_normalize(q, &r);
    double n = sqrt(30.0);
    NEAR(r.x, 1 / n, TOL);
    NEAR(r.y, -2 / n, TOL);
    NEAR(r.z, 3 / n, TOL);
    NEAR(r.w, 4 / n, TOL);
    sinew_quat_normalize((sinew_quat_t){0, 0, 0, 0}, &r);
    assert_true(r.x == 0 && r.y == 0 && r.z == 0 && r.w == 1);
}

static void test_quat_from_mat4_round_trip(void **state)
{
    (void)state;
    /* Axes and angles chosen to reach every Shepperd branch (w, x, y, z largest). */
    const sinew_vec3_t axes[] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}, {0, 1, 1}, {1, -2, 3}, {-1, 1, 1}};
    const double angles[] = {0.0, 0.5, -2.0, PI / 2, 3.1, PI, -PI + 1e-6, 179.9 * DEG};
    for (size_t i = 0; i < sizeof axes / sizeof axes[0]; i++)
        for (size_t j = 0; j < sizeof angles / sizeof angles[0]; j++) {
            double len = sqrt(axes[i].x * axes[i].x + axes[i].y * axes[i].y + axes[i].z * axes[i].z);
            sinew_vec3_t k = {axes[i].x / len, axes[i].y / len, axes[i].z / len};
            double a = angles[j], s = sin(a / 2);
            sinew_quat_t want = {k.x * s, k.y * s, k.z * s, cos(a / 2)}, got;
            sinew_mat4_t m = rodrigues(k, a);
            m.m[3][0] = 10; /* translation is ignored */
            sinew_quat_from_mat4(&m, &got);
            QUAT_NEAR(got, want, 1e-12);
            assert_true(got.w >= 0.0);
            NEAR(sinew_quat_dot(got, got), 1.0, 1e-12);
        }
}

static void test_quat_euler(void **state)
{
    (void)state;
    lcg_t g = {2024};
    for (int order = 0; order < 6; order++)
        for (int n = 0; n < 30; n++) {
            sinew_vec3_t r = random_euler(&g, order), back;
            sinew_quat_t q;
            sinew_quat_from_euler(r, (sinew_rotate_order_t)order, &q);
            /* Built from half angles: compare with the spec matrices, then with each axis quaternion. */
            sinew_mat4_t m, w = ref_euler(r, order);
            sinew_quat_to_mat4(q, &m);
            MAT_NEAR(&m, &w, TOL);
            NEAR(sinew_quat_dot(q, q), 1.0, TOL);
            sinew_quat_to_euler(q, (sinew_rotate_order_t)order, &back);
            VEC_NEAR(back, r, 1e-9);
        }
}

static void test_quat_spec_joint_orient_example(void **state)
{
    (void)state;
    /* maya-reference.md 8.4: a jointOrient of about -90 degrees about Y is written "0 0.7084 0 -0.7058".
     * That quaternion is the rotation of 2*atan2(-0.7084, 0.7058) about Y (after negating it) = -90.21 deg. */
    sinew_quat_t file = {0, 0.7084, 0, -0.7058}, q;
    const double jo_y = -90.21 * DEG;
    sinew_quat_from_euler((sinew_vec3_t){0, jo_y, 0}, SINEW_ROTATE_XYZ, &q);
    QUAT_NEAR(q, file, 1e-3);
    /* -90.21 deg is outside the middle angle's [-90, 90], so read it with Y first (yxz) ... */
    sinew_vec3_t e;
    sinew_quat_to_euler(file, SINEW_ROTATE_YXZ, &e);
    VEC_NEAR(e, ((sinew_vec3_t){0, jo_y, 0}), 0.01 * DEG);
    /* ... while xyz gives the equivalent triple (180, -89.79, 180). */
    sinew_quat_to_euler(file, SINEW_ROTATE_XYZ, &e);
    NEAR(fabs(e.x), PI, 0.01 * DEG);
    NEAR(e.y, -PI - jo_y, 0.01 * DEG);
    NEAR(fabs(e.z), PI, 0.01 * DEG);
    sinew_mat4_t m, w = spec_ry(jo_y);
    sinew_quat_to_mat4(file, &m);
    MAT_NEAR(&m, &w, 1e-3);
    /* About -90 degrees: +X goes to +Z. */
    sinew_vec3_t v;
    sinew_quat_rotate(q, (sinew_vec3_t){1, 0, 0}, &v);
    VEC_NEAR(v, ((sinew_vec3_t){0, 0, 1}), 1e-2);
}

static void test_quat_slerp(void **state)
{
    (void)state;
    sinew_quat_t a = {0, 0, 0, 1}, b = {0, 0, sin(PI / 4), cos(PI / 4)}, q;
    sinew_quat_slerp(a, b, 0.5, &q);
    QUAT_NEAR(q, ((sinew_quat_t){0, 0, sin(PI / 8), cos(PI / 8)}), TOL);
    sinew_quat_slerp(a, b, 0.25, &q);
    QUAT_NEAR(q, ((sinew_quat_t){0, 0, sin(PI / 16), cos(PI / 16)}), TOL);
    sinew_quat_slerp(a, b, 0.0, &q);
    QUAT_NEAR(q, a, TOL);
    sinew_quat_slerp(a, b, 1.0, &q);
    QUAT_NEAR(q, b, TOL);
    /* -b is the same rotation: the shorter arc is still taken, and the result stays near a. */
    sinew_quat_slerp(a, (sinew_quat_t){-b.x, -b.y, -b.z, -b.w}, 0.5, &q);
    QUAT_NEAR(q, ((sinew_quat_t){0, 0, sin(PI / 8), cos(PI / 8)}), TOL);
    assert_true(sinew_quat_dot(q, a) > 0);
    /* Nearly equal inputs (the linear fallback) stay unit and in between. */
    sinew_quat_t c = {0, 0, sin(1e-5), cos(1e-5)};
    sinew_quat_slerp(a, c, 0.5, &q);
    QUAT_NEAR(q, ((sinew_quat_t){0, 0, sin(0.5e-5), cos(0.5e-5)}), 1e-12);
}

/* ---- dual quaternions ------------------------------------------------------------------------------- */

static void test_dquat_from_rigid(void **state)
{
    (void)state;
    lcg_t g = {64};
    for (int n = 0; n < 50; n++) {
        sinew_vec3_t k = random_vec(&g, -1, 1), t = random_vec(&g, -10, 10), p = random_vec(&g, -3, 3), got;
        double len = sqrt(k.x * k.x + k.y * k.y + k.z * k.z), a = lcg_uniform(&g, -PI, PI);
        k = (sinew_vec3_t){k.x / len, k.y / len, k.z / len};
        sinew_quat_t q = {k.x * sin(a / 2), k.y * sin(a / 2), k.z * sin(a / 2), cos(a / 2)};
        sinew_dquat_t d;
        sinew_dquat_from_rigid(q, t, &d);
        /* Rotate, then translate: p * R * T. */
        sinew_vec3_t rv = rodrigues_vec(k, a, p);
        sinew_dquat_transform_point(&d, p, &got);
        VEC_NEAR(got, ((sinew_vec3_t){rv.x + t.x, rv.y + t.y, rv.z + t.z}), 1e-12);
        sinew_mat4_t m, w = ref_mul(rodrigues(k, a), ref_translate(t));
        sinew_dquat_to_mat4(&d, &m);
        MAT_NEAR(&m, &w, 1e-12);
    }
}

static void test_dquat_from_mat4(void **state)
{
    (void)state;
    lcg_t g = {65};
    for (int n = 0; n < 60; n++) {
        int order = n % 6;
        sinew_vec3_t t = random_vec(&g, -10, 10), r = random_vec(&g, -PI, PI), p = random_vec(&g, -3, 3), got;
        sinew_mat4_t m = ref_compose(t, r, order, (sinew_vec3_t){1, 1, 1}, (sinew_vec3_t){0, 0, 0}), back;
        sinew_dquat_t d;
        assert_true(sinew_dquat_from_mat4(&m, &d));
        sinew_dquat_transform_point(&d, p, &got);
        VEC_NEAR(got, ref_point(p, m), 1e-12);
        sinew_dquat_to_mat4(&d, &back);
        MAT_NEAR(&back, &m, 1e-12);
        /* With scale and shear, only the rigid part (Gram-Schmidt rotation + translation) is kept. */
        sinew_vec3_t s = random_vec(&g, 0.5, 2);
        m = ref_compose(t, r, order, s, (sinew_vec3_t){0, 0, 0});
        assert_true(sinew_dquat_from_mat4(&m, &d));
        sinew_dquat_to_mat4(&d, &back);
        sinew_mat4_t w = ref_mul(ref_euler(r, order), ref_translate(t));
        MAT_NEAR(&back, &w, 1e-12);
    }
    sinew_mat4_t zero;
    memset(&zero, 0, sizeof zero);
    sinew_dquat_t d = {{1, 2, 3, 4}, {5, 6, 7, 8}}, before = d;
    assert_false(sinew_dquat_from_mat4(&zero, &d));
    assert_memory_equal(&d, &before, sizeof d);
}

static void test_dquat_blend(void **state)
{
    (void)state;
    sinew_dquat_t d1, d2, acc, n;
    sinew_quat_t q1 = {0.1, -0.3, 0.2, 0}, q2;
    q1.w = sqrt(1.0 - (0.01 + 0.09 + 0.04));
    sinew_quat_from_axis_angle((sinew_vec3_t){1, 1, 0}, 2.0, &q2);
    sinew_dquat_from_rigid(q1, (sinew_vec3_t){1, 2, 3}, &d1);
    sinew_dquat_from_rigid(q2, (sinew_vec3_t){-4, 0, 9}, &d2);

    /* Weights (1, 0) give the first exactly. */
    memset(&acc, 0, sizeof acc);
    sinew_dquat_add_scaled(&acc, &d1, 1.0);
    sinew_dquat_add_scaled(&acc, &d2, 0.0);
    assert_memory_equal(&acc, &d1, sizeof acc);
    assert_true(sinew_dquat_normalize(&acc, &n));
    sinew_mat4_t m1, mn;
    sinew_dquat_to_mat4(&d1, &m1);
    sinew_dquat_to_mat4(&n, &mn);
    MAT_NEAR(&mn, &m1, 1e-15);

    /* Two pure translations blended half and half: the midpoint. */
    sinew_quat_t id = {0, 0, 0, 1};
    sinew_dquat_from_rigid(id, (sinew_vec3_t){2, 0, 0}, &d1);
    sinew_dquat_from_rigid(id, (sinew_vec3_t){0, 4, -2}, &d2);
    memset(&acc, 0, sizeof acc);
    sinew_dquat_add_scaled(&acc, &d1, 0.5);
    sinew_dquat_add_scaled(&acc, &d2, 0.5);
    assert_true(sinew_dquat_normalize(&acc, &n));
    sinew_vec3_t p;
    sinew_dquat_transform_point(&n, (sinew_vec3_t){1, 1, 1}, &p);
    VEC_NEAR(p, ((sinew_vec3_t){2, 3, 0}), 1e-12);

    /* 0 and 90 degrees about Z, half and half: 45 degrees (no candy-wrapper shrink). */
    sinew_quat_t z90 = {0, 0, sin(PI / 4), cos(PI / 4)};
    sinew_dquat_from_rigid(id, (sinew_vec3_t){0, 0, 0}, &d1);
    sinew_dquat_from_rigid(z90, (sinew_vec3_t){0, 0, 0}, &d2);
    memset(&acc, 0, sizeof acc);
    sinew_dquat_add_scaled(&acc, &d1, 0.5);
    sinew_dquat_add_scaled(&acc, &d2, 0.5);
    assert_true(sinew_dquat_normalize(&acc, &n));
    sinew_dquat_transform_point(&n, (sinew_vec3_t){2, 0, 0}, &p);
    VEC_NEAR(p, ((sinew_vec3_t){2 * cos(PI / 4), 2 * sin(PI / 4), 0}), 1e-12);

    /* Normalising divides both parts by |real|. */
    sinew_dquat_t big = {{0, 0, 0, 2}, {1, 2, 3, 4}};
    assert_true(sinew_dquat_normalize(&big, &n));
    assert_true(n.real.w == 1 && n.dual.x == 0.5 && n.dual.y == 1 && n.dual.z == 1.5 && n.dual.w == 2);
    sinew_dquat_t zero, before;
    memset(&zero, 0, sizeof zero);
    before = n;
    assert_false(sinew_dquat_normalize(&zero, &n));
    assert_memory_equal(&n, &before, sizeof n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vec3_basics),
        cmocka_unit_test(test_mat4_rotations_match_spec),
        cmocka_unit_test(test_mat4_rotation_direction),
        cmocka_unit_test(test_mat4_trs_shear),
        cmocka_unit_test(test_mat4_euler_orders),
        cmocka_unit_test(test_mat4_compose_matches_spec),
        cmocka_unit_test(test_mat4_mul_and_transpose),
        cmocka_unit_test(test_mat4_transform_point_vector),
        cmocka_unit_test(test_mat4_determinant),
        cmocka_unit_test(test_mat4_inverse_random),
        cmocka_unit_test(test_mat4_inverse_singular),
        cmocka_unit_test(test_mat4_inverse_affine),
        cmocka_unit_test(test_mat4_equal_finite_arrays),
        cmocka_unit_test(test_mat4_float34),
        cmocka_unit_test(test_euler_from_mat4_round_trip),
        cmocka_unit_test(test_euler_from_mat4_gimbal),
        cmocka_unit_test(test_decompose_compose_round_trip),
        cmocka_unit_test(test_decompose_gimbal_and_mirrors),
        cmocka_unit_test(test_decompose_singular),
        cmocka_unit_test(test_orthonormalize_rows),
        cmocka_unit_test(test_quat_axis_convention),
        cmocka_unit_test(test_quat_to_mat4_rodrigues),
        cmocka_unit_test(test_quat_mul_convention),
        cmocka_unit_test(test_quat_small_ops),
        cmocka_unit_test(test_quat_from_mat4_round_trip),
        cmocka_unit_test(test_quat_euler),
        cmocka_unit_test(test_quat_spec_joint_orient_example),
        cmocka_unit_test(test_quat_slerp),
        cmocka_unit_test(test_dquat_from_rigid),
        cmocka_unit_test(test_dquat_from_mat4),
        cmocka_unit_test(test_dquat_blend),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
