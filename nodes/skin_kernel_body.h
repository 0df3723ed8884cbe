/* nodes/skin_kernel_body.h: the SIMD skinning kernel, written once over a small set of vector
 * operations that each nodes/skin_kernels_<isa>.c defines before including this file:
 *
 *   W                        lanes (4, 8 or 16); SINEW__SKIN_BLOCK is a multiple of it
 *   V, M, K                  float vector, lane mask, influence key (slots made ready to look up)
 *   V_SET1 V_LOAD V_ADD V_SUB V_MUL V_DIV V_SQRT V_ABS V_FMA(a,b,c)=a*b+c
 *   V_LT V_GT V_LE V_GE (-> M) M_AND V_SEL(m, if_set, else)
 *   K_LOAD(const uint16_t *)  V_LOOKUP(const float *table_row, K)  (table_row[slot] per lane)
 *   M_ACTIVE(const uint16_t *count)   lanes whose count is not 0
 *   LOAD3(const float *, V*, V*, V*)  STORE3(float *, V, V, V)   interleaved xyz <-> x, y, z
 *   KERNEL                   the function name; LOOKUP_MODES the number of lookup variants
 *   BLEND_BY_POINT(j, r0, r1, mode, m)  optional: blends the block's 12 linear elements into
 *                            m point by point and returns true, or returns false (the lookups
 *                            run); both make the same fused multiply-adds in the same order
 *   POINTS_BY_POINT(j, r0, r1, h, in, out, count)  optional, linear without normals and with
 *                            envelope 1: moves the step's W points (interleaved xyz in, out) and
 *                            returns true, or returns false having written nothing (a point
 *                            without weights or whose weights do not sum to 1: the general
 *                            path runs); the same multiply-adds in the same order again
 *
 * Lane by lane it computes what nodes/skin_kernels.c's scalar path computes, in float with
 * fused multiply-adds (so results differ from it by rounding only). One step handles W points;
 * every point of a block runs the block's rows (padding adds zero weight), so there is no
 * branch per point. The method, normals on/off and the lookup variant are constants of each
 * instantiation of `body`. */

#define NV3(name) V name##x, name##y, name##z

#ifndef BLEND_BY_POINT
#define BLEND_BY_POINT(j, r0, r1, mode, m) false
#endif

#ifndef POINTS_BY_POINT
#define POINTS_BY_POINT(j, r0, r1, h, in, out, count) false
#endif

#ifndef PREFETCH_AHEAD
#define PREFETCH_AHEAD 8 /* blocks */
#endif

typedef struct uniforms {
  float g[12], ginv[12];       /* row-major 4x3: p' = x*r0 + y*r1 + z*r2 + r3 */
  float ginv_t[9], g_t[9];     /* upper 3x3, as sinew_mat4_transform_vector reads them */
  float ginv_trans[3];
  float envelope;
  bool g_identity;             /* G (so G^-1, G^T, G^-T) is exactly the identity: its transforms skipped */
} uniforms;

static void uniforms_make(const sinew__skin_job *j, uniforms *u) {
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 3; c++) {
      u->g[3 * r + c] = (float)j->g.m[r][c];
      u->ginv[3 * r + c] = (float)j->ginv.m[r][c];
      if (r < 3) {
        u->ginv_t[3 * r + c] = (float)j->ginv_t.m[r][c];
        u->g_t[3 * r + c] = (float)j->g_t.m[r][c];
      }
    }
  for (int c = 0; c < 3; c++) u->ginv_trans[c] = (float)j->ginv.m[3][c];
  u->envelope = j->envelope;
  u->g_identity = true;
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 4; c++) u->g_identity = u->g_identity && j->g.m[r][c] == (r == c ? 1.0 : 0.0);
}

/* v * M for a row-major 3x3 M (sinew_mat4_transform_vector) */
#define XFORM_VEC(m, ix, iy, iz, ox, oy, oz)                                                          \
  do {                                                                                              \
    V tx_ = V_FMA(ix, V_SET1((m)[0]), V_FMA(iy, V_SET1((m)[3]), V_MUL(iz, V_SET1((m)[6]))));        \
    V ty_ = V_FMA(ix, V_SET1((m)[1]), V_FMA(iy, V_SET1((m)[4]), V_MUL(iz, V_SET1((m)[7]))));        \
    V tz_ = V_FMA(ix, V_SET1((m)[2]), V_FMA(iy, V_SET1((m)[5]), V_MUL(iz, V_SET1((m)[8]))));        \
    ox = tx_, oy = ty_, oz = tz_;                                                                   \
  } while (0)

/* p * M for a row-major 4x3 M (sinew_mat4_transform_point) */
#define XFORM_PT(m, ix, iy, iz, ox, oy, oz)                                                           \
  do {                                                                                              \
    V tx_ = V_FMA(ix, V_SET1((m)[0]), V_FMA(iy, V_SET1((m)[3]), V_FMA(iz, V_SET1((m)[6]), V_SET1((m)[9]))));  \
    V ty_ = V_FMA(ix, V_SET1((m)[1]), V_FMA(iy, V_SET1((m)[4]), V_FMA(iz, V_SET1((m)[7]), V_SET1((m)[10])))); \
    V tz_ = V_FMA(ix, V_SET1((m)[2]), V_FMA(iy, V_SET1((m)[5]), V_FMA(iz, V_SET1((m)[8]), V_SET1((m)[11])))); \
    ox = tx_, oy = ty_, oz = tz_;                                                                   \
  } while (0)

/* a*b - c*d */
#define V_DIFF(a, b, c, d) V_SUB(V_MUL(a, b), V_MUL(c, d))

static inline __attribute__((always_inline)) void normalize3(V *x, V *y, V *z, V fx, V fy, V fz) {
  V len = V_SQRT(V_FMA(*x, *x, V_FMA(*y, *y, V_MUL(*z, *z))));
  M ok = V_GT(len, V_SET1(0.0f));
  V inv = V_DIV(V_SET1(1.0f), len);
  *x = V_SEL(ok, V_MUL(*x, inv), fx);
  *y = V_SEL(ok, V_MUL(*y, inv), fy);
  *z = V_SEL(ok, V_MUL(*z, inv), fz);
}

static inline __attribute__((always_inline)) void body(const sinew__skin_job *j, const uniforms *u,
                                                        size_t b0, size_t b1, const sinew__skin_io *io,
                                                        const int method, const bool normals, const int mode,
                                                        const bool rigid) {
  const sinew__skin_weights *w = j->w;
  const float *T = j->table;
  const size_t st = j->stride;
  const bool want_lin = method != SINEW__SKIN_DQ, want_dq = method != SINEW__SKIN_LINEAR;
  const bool lerp = u->envelope != 1.0f;
  const bool renormalize = lerp || method == SINEW__SKIN_BLENDED;
  const V one = V_SET1(1.0f), zero = V_SET1(0.0f), ven = V_SET1(u->envelope);
  (void)mode;
  for (size_t b = b0; b < b1; b++) {
    const uint32_t r0 = w->block_row[b], r1 = w->block_row[b + 1];
    if (b + PREFETCH_AHEAD < b1) { /* the streams a few blocks ahead, past what the hardware guesses */
      const size_t ahead = (b + PREFETCH_AHEAD - b0) * SINEW__SKIN_BLOCK;
      for (int q = 0; q < 3; q++) {
        __builtin_prefetch(io->in_points + 3 * ahead + 16 * q);
        if (normals) __builtin_prefetch(io->in_normals + 3 * ahead + 16 * q);
        /* the output lines too, for writing: past the caches, each store's line must first be
         * read, and without this the kernel waits on those reads (1M points with normals: +11%) */
        __builtin_prefetch(io->out_points + 3 * ahead + 16 * q, 1);
        if (normals) __builtin_prefetch(io->out_normals + 3 * ahead + 16 * q, 1);
      }
      const uint32_t ra = w->block_row[b + PREFETCH_AHEAD], rb = w->block_row[b + PREFETCH_AHEAD + 1];
      for (uint32_t r = ra; r < rb; r++) {
        __builtin_prefetch(w->weights + (size_t)r * SINEW__SKIN_BLOCK);
        __builtin_prefetch(w->slots + (size_t)r * SINEW__SKIN_BLOCK);
      }
    }
    for (size_t h = 0; h < SINEW__SKIN_BLOCK; h += W) {
      const size_t at = (b - b0) * SINEW__SKIN_BLOCK + h; /* in io */
      const size_t pv = b * SINEW__SKIN_BLOCK + h;        /* point index */
      if (method == SINEW__SKIN_LINEAR && !normals && !lerp &&
          POINTS_BY_POINT(j, r0, r1, h, io->in_points + 3 * at, io->out_points + 3 * at, w->count + pv))
        continue;
      NV3(p);
      NV3(n);
      LOAD3(io->in_points + 3 * at, &px, &py, &pz);
      if (normals) LOAD3(io->in_normals + 3 * at, &nx, &ny, &nz);
      else nx = ny = nz = zero;
      const M active = M_ACTIVE(w->count + pv);
      /* linear and DQ results; left at the input where a method does not run */
      V lpx = px, lpy = py, lpz = pz, lnx = nx, lny = ny, lnz = nz;
      V dpx = px, dpy = py, dpz = pz, dnx = nx, dny = ny, dnz = nz;
      if (want_lin) {
        V m[12], ws = zero;
        if (BLEND_BY_POINT(j, r0, r1, mode, m)) {
          for (uint32_t r = r0; r < r1; r++) ws = V_ADD(ws, V_LOAD(w->weights + (size_t)r * SINEW__SKIN_BLOCK + h));
        } else {
          for (int e = 0; e < 12; e++) m[e] = zero;
          for (uint32_t r = r0; r < r1; r++) {
            const size_t cell = (size_t)r * SINEW__SKIN_BLOCK + h;
            const K key = K_LOAD(w->slots + cell);
            const V wt = V_LOAD(w->weights + cell);
            for (int e = 0; e < 12; e++) m[e] = V_FMA(wt, V_LOOKUP(T + e * st, key), m[e]);
            ws = V_ADD(ws, wt);
          }
        }
        /* weights not summing to 1: G^-1's translation once, not wsum times (scalar path) */
        const V missing = V_SUB(one, ws);
        const M fix = V_GT(V_ABS(missing), V_SET1(1e-6f));
        m[3] = V_SEL(fix, V_FMA(missing, V_SET1(u->ginv_trans[0]), m[3]), m[3]);
        m[7] = V_SEL(fix, V_FMA(missing, V_SET1(u->ginv_trans[1]), m[7]), m[7]);
        m[11] = V_SEL(fix, V_FMA(missing, V_SET1(u->ginv_trans[2]), m[11]), m[11]);
        lpx = V_FMA(px, m[0], V_FMA(py, m[1], V_FMA(pz, m[2], m[3])));
        lpy = V_FMA(px, m[4], V_FMA(py, m[5], V_FMA(pz, m[6], m[7])));
        lpz = V_FMA(px, m[8], V_FMA(py, m[9], V_FMA(pz, m[10], m[11])));
        if (normals) {
          /* rows of A: (m0 m4 m8) (m1 m5 m9) (m2 m6 m10); n' = n * cof(A) * sign(det A) */
          const V a00 = m[0], a01 = m[4], a02 = m[8], a10 = m[1], a11 = m[5], a12 = m[9], a20 = m[2],
                  a21 = m[6], a22 = m[10];
          const V c00 = V_DIFF(a11, a22, a12, a21), c01 = V_DIFF(a12, a20, a10, a22),
                  c02 = V_DIFF(a10, a21, a11, a20);
          const V c10 = V_DIFF(a21, a02, a22, a01), c11 = V_DIFF(a22, a00, a20, a02),
                  c12 = V_DIFF(a20, a01, a21, a00);
          const V c20 = V_DIFF(a01, a12, a02, a11), c21 = V_DIFF(a02, a10, a00, a12),
                  c22 = V_DIFF(a00, a11, a01, a10);
          V tx = V_FMA(nx, c00, V_FMA(ny, c10, V_MUL(nz, c20)));
          V ty = V_FMA(nx, c01, V_FMA(ny, c11, V_MUL(nz, c21)));
          V tz = V_FMA(nx, c02, V_FMA(ny, c12, V_MUL(nz, c22)));
          const V det = V_FMA(a00, c00, V_FMA(a01, c01, V_MUL(a02, c02)));
          const V len = V_SQRT(V_FMA(tx, tx, V_FMA(ty, ty, V_MUL(tz, tz))));
          const V s = V_DIV(V_SEL(V_LT(det, zero), V_SET1(-1.0f), one), len);
          const M ok = V_GT(len, zero);
          lnx = V_SEL(ok, V_MUL(tx, s), nx);
          lny = V_SEL(ok, V_MUL(ty, s), ny);
          lnz = V_SEL(ok, V_MUL(tz, s), nz);
        }
      }
      if (want_dq) {
        const K key0 = K_LOAD(w->slots + (size_t)r0 * SINEW__SKIN_BLOCK + h);
        const V pqx = V_LOOKUP(T + 12 * st, key0), pqy = V_LOOKUP(T + 13 * st, key0),
                pqz = V_LOOKUP(T + 14 * st, key0), pqw = V_LOOKUP(T + 15 * st, key0);
        V q[8], S[9];
        for (int e = 0; e < 8; e++) q[e] = zero;
        for (int e = 0; e < 9; e++) S[e] = zero;
        for (uint32_t r = r0; r < r1; r++) {
          const size_t cell = (size_t)r * SINEW__SKIN_BLOCK + h;
          const K key = K_LOAD(w->slots + cell);
          const V wt = V_LOAD(w->weights + cell);
          V e4[4];
          for (int e = 0; e < 4; e++) e4[e] = V_LOOKUP(T + (12 + e) * st, key);
          const V dot = V_FMA(e4[0], pqx, V_FMA(e4[1], pqy, V_FMA(e4[2], pqz, V_MUL(e4[3], pqw))));
          const V ws = V_SEL(V_LT(dot, zero), V_SUB(zero, wt), wt);
          for (int e = 0; e < 4; e++) q[e] = V_FMA(ws, e4[e], q[e]);
          for (int e = 4; e < 8; e++) q[e] = V_FMA(ws, V_LOOKUP(T + (12 + e) * st, key), q[e]);
          const V aw = V_ABS(wt);
          if (rigid) S[0] = V_ADD(S[0], aw); /* every S_i is the identity: S = sum |w| I */
          else
            for (int e = 0; e < 9; e++) S[e] = V_FMA(aw, V_LOOKUP(T + (20 + e) * st, key), S[e]);
        }
        if (rigid) S[4] = S[8] = S[0];
        /* world point at bind through the blended scale/shear */
        NV3(g);
        if (u->g_identity) gx = px, gy = py, gz = pz;
        else XFORM_PT(u->g, px, py, pz, gx, gy, gz);
        V sx = V_MUL(gx, S[0]), sy = V_MUL(gy, S[0]), sz = V_MUL(gz, S[0]);
        if (!rigid) {
          sx = V_FMA(gx, S[0], V_FMA(gy, S[3], V_MUL(gz, S[6])));
          sy = V_FMA(gx, S[1], V_FMA(gy, S[4], V_MUL(gz, S[7])));
          sz = V_FMA(gx, S[2], V_FMA(gy, S[5], V_MUL(gz, S[8])));
        }
        /* The blended dual quaternion is used as it is, not normalised: dividing both parts by
         * |real| scales every product below by 1 / |real|^2, so `two` (2 / |real|^2 where the
         * unit form has 2) does it with one division and no square root, which sat on the
         * critical path. A zero or non-finite real part leaves the point, and so does one so
         * small (|real| below about 1e-19, weights of that size) that 2 / |real|^2 overflows. */
        const V n2 = V_FMA(q[0], q[0], V_FMA(q[1], q[1], V_FMA(q[2], q[2], V_MUL(q[3], q[3]))));
        const V two = V_DIV(V_SET1(2.0f), n2);
        const M ok = M_AND(M_AND(V_GT(n2, zero), V_LT(n2, V_SET1(__builtin_inff()))),
                           V_LT(two, V_SET1(__builtin_inff())));
        const V rx = q[0], ry = q[1], rz = q[2], rw = q[3];
        const V ux = q[4], uy = q[5], uz = q[6], uw = q[7];
        /* translation 2 * (dual * conj(real)).xyz */
        const V trx = V_MUL(two, V_SUB(V_FMA(rw, ux, V_MUL(uz, ry)), V_FMA(uw, rx, V_MUL(uy, rz))));
        const V try_ = V_MUL(two, V_SUB(V_FMA(rw, uy, V_MUL(ux, rz)), V_FMA(uw, ry, V_MUL(uz, rx))));
        const V trz = V_MUL(two, V_SUB(V_FMA(rw, uz, V_MUL(uy, rx)), V_FMA(uw, rz, V_MUL(ux, ry))));
/* v + w t + u x t, t = 2 (u x v), u = (rx ry rz) (for the unit quaternion; see `two`) */
#define ROTATE(ix, iy, iz, ox, oy, oz)                                                               \
  do {                                                                                             \
    const V t1 = V_MUL(two, V_DIFF(ry, iz, rz, iy)), t2 = V_MUL(two, V_DIFF(rz, ix, rx, iz)),      \
            t3 = V_MUL(two, V_DIFF(rx, iy, ry, ix));                                               \
    ox = V_ADD(V_FMA(rw, t1, ix), V_DIFF(ry, t3, rz, t2));                                         \
    oy = V_ADD(V_FMA(rw, t2, iy), V_DIFF(rz, t1, rx, t3));                                         \
    oz = V_ADD(V_FMA(rw, t3, iz), V_DIFF(rx, t2, ry, t1));                                         \
  } while (0)
        NV3(o);
        ROTATE(sx, sy, sz, ox, oy, oz);
        ox = V_ADD(ox, trx), oy = V_ADD(oy, try_), oz = V_ADD(oz, trz);
        if (!u->g_identity) XFORM_PT(u->ginv, ox, oy, oz, ox, oy, oz);
        dpx = V_SEL(ok, ox, px), dpy = V_SEL(ok, oy, py), dpz = V_SEL(ok, oz, pz);
        if (normals && rigid) { /* S^-T a positive multiple of I: the direction is G^-T's */
          NV3(a);
          if (u->g_identity) ax = nx, ay = ny, az = nz;
          else XFORM_VEC(u->ginv_t, nx, ny, nz, ax, ay, az);
          NV3(c);
          ROTATE(ax, ay, az, cx, cy, cz);
          if (!u->g_identity) XFORM_VEC(u->g_t, cx, cy, cz, cx, cy, cz);
          normalize3(&cx, &cy, &cz, renormalize ? zero : nx, renormalize ? zero : ny,
                     renormalize ? zero : nz);
          dnx = V_SEL(ok, cx, nx), dny = V_SEL(ok, cy, ny), dnz = V_SEL(ok, cz, nz);
        } else if (normals) {
          const V k0 = V_DIFF(S[4], S[8], S[5], S[7]), k1 = V_DIFF(S[5], S[6], S[3], S[8]),
                  k2 = V_DIFF(S[3], S[7], S[4], S[6]), k3 = V_DIFF(S[2], S[7], S[1], S[8]),
                  k4 = V_DIFF(S[0], S[8], S[2], S[6]), k5 = V_DIFF(S[1], S[6], S[0], S[7]),
                  k6 = V_DIFF(S[1], S[5], S[2], S[4]), k7 = V_DIFF(S[2], S[3], S[0], S[5]),
                  k8 = V_DIFF(S[0], S[4], S[1], S[3]);
          const V sdet = V_FMA(S[0], k0, V_FMA(S[1], k1, V_MUL(S[2], k2)));
          const V sg = V_SEL(V_LT(sdet, zero), V_SET1(-1.0f), one);
          NV3(a);
          if (u->g_identity) ax = nx, ay = ny, az = nz;
          else XFORM_VEC(u->ginv_t, nx, ny, nz, ax, ay, az);
          const V bx = V_MUL(sg, V_FMA(ax, k0, V_FMA(ay, k3, V_MUL(az, k6))));
          const V by = V_MUL(sg, V_FMA(ax, k1, V_FMA(ay, k4, V_MUL(az, k7))));
          const V bz = V_MUL(sg, V_FMA(ax, k2, V_FMA(ay, k5, V_MUL(az, k8))));
          NV3(c);
          ROTATE(bx, by, bz, cx, cy, cz);
          if (!u->g_identity) XFORM_VEC(u->g_t, cx, cy, cz, cx, cy, cz);
          /* a zero normal is left zero here, then replaced by the input (scalar path) */
          normalize3(&cx, &cy, &cz, renormalize ? zero : nx, renormalize ? zero : ny,
                     renormalize ? zero : nz);
          dnx = V_SEL(ok, cx, nx), dny = V_SEL(ok, cy, ny), dnz = V_SEL(ok, cz, nz);
        }
#undef ROTATE
      }
      /* method, then envelope */
      V dx = lpx, dy = lpy, dz = lpz, ex = lnx, ey = lny, ez = lnz;
      if (method == SINEW__SKIN_DQ) dx = dpx, dy = dpy, dz = dpz, ex = dnx, ey = dny, ez = dnz;
      if (method == SINEW__SKIN_BLENDED) {
        const V bw = V_LOAD(j->blend + pv);
        const M all = V_GE(bw, one), none = V_LE(bw, zero);
#define MIX(l, q) V_SEL(all, q, V_SEL(none, l, V_FMA(bw, V_SUB(q, l), l)))
        dx = MIX(lpx, dpx), dy = MIX(lpy, dpy), dz = MIX(lpz, dpz);
        ex = MIX(lnx, dnx), ey = MIX(lny, dny), ez = MIX(lnz, dnz);
#undef MIX
      }
      if (lerp) {
        dx = V_FMA(ven, V_SUB(dx, px), px), dy = V_FMA(ven, V_SUB(dy, py), py), dz = V_FMA(ven, V_SUB(dz, pz), pz);
        if (normals) ex = V_FMA(ven, V_SUB(ex, nx), nx), ey = V_FMA(ven, V_SUB(ey, ny), ny), ez = V_FMA(ven, V_SUB(ez, nz), nz);
      }
      if (normals && renormalize) normalize3(&ex, &ey, &ez, nx, ny, nz);
      dx = V_SEL(active, dx, px), dy = V_SEL(active, dy, py), dz = V_SEL(active, dz, pz);
      STORE3(io->out_points + 3 * at, dx, dy, dz);
      if (normals) {
        ex = V_SEL(active, ex, nx), ey = V_SEL(active, ey, ny), ez = V_SEL(active, ez, nz);
        STORE3(io->out_normals + 3 * at, ex, ey, ez);
      }
    }
  }
}

/* One instantiation per method x normals x lookup variant (x rigid influences for DQ), chosen
 * once per call. */
#define BODY_CASES(mode)                                                                             \
  switch (j->method * 4 + (io->out_normals != NULL) * 2 + j->rigid) {                              \
  case 0: case 1: body(j, &u, b0, b1, io, SINEW__SKIN_LINEAR, false, mode, false); break;           \
  case 2: case 3: body(j, &u, b0, b1, io, SINEW__SKIN_LINEAR, true, mode, false); break;            \
  case 4: body(j, &u, b0, b1, io, SINEW__SKIN_DQ, false, mode, false); break;                       \
  case 5: body(j, &u, b0, b1, io, SINEW__SKIN_DQ, false, mode, true); break;                        \
  case 6: body(j, &u, b0, b1, io, SINEW__SKIN_DQ, true, mode, false); break;                        \
  case 7: body(j, &u, b0, b1, io, SINEW__SKIN_DQ, true, mode, true); break;                         \
  case 8: body(j, &u, b0, b1, io, SINEW__SKIN_BLENDED, false, mode, false); break;                  \
  case 9: body(j, &u, b0, b1, io, SINEW__SKIN_BLENDED, false, mode, true); break;                   \
  case 10: body(j, &u, b0, b1, io, SINEW__SKIN_BLENDED, true, mode, false); break;                  \
  default: body(j, &u, b0, b1, io, SINEW__SKIN_BLENDED, true, mode, true); break;                   \
  }

void KERNEL(const sinew__skin_job *j, size_t b0, size_t b1, const sinew__skin_io *io) {
  uniforms u;
  uniforms_make(j, &u);
  switch (LOOKUP_MODE(j)) {
#if LOOKUP_MODES > 1
  case 1: BODY_CASES(1) break;
  case 2: BODY_CASES(2) break;
  case 3: BODY_CASES(3) break;
#endif
  default: BODY_CASES(0) break;
  }
}
