// SPDX-License-Identifier: Apache-2.0
// Dense residual Jacobians X = [dr/dq | dr/dv | dr/du] in one forward and one backward sweep.
#include "gradient/residual.h"
#include "gradient/wrench.h"

#include <string.h>

#include "base/arena.h"
#include "dynamics/force_derivative.h"
#include "gradient/residual_tangent.h"
#include "kinematics/jacobian_derivative.h"
#include "math/spatial.h"
#include "math/vec.h"
#include "penalty/penalty.h"

#if defined(__SSE2__)
#    include <emmintrin.h>
#endif

// The matrix form of the RNEA derivatives (Carpentier & Mansard, RSS 2018), in world axes
// about the world origin, over the primal of residual_tangent.h (its notation: S_j, V_b, A_b,
// I_b, f_b = I_b A_b + V_b x* (I_b V_b) - Wx_b, F_b the subtree sum of f, r_i = S_i' F_body(i)).
// They are the per-body tangent kernels of residual_tangent.h (which the matrix-free forms of
// residual.c evaluate body by body) solved in closed form for a unit tangent and summed over
// subtrees before the products: the same derivatives in another summation order, kept because
// those orders are the bits of the transition Jacobians (tests/golden_paths_table.h).
//
// Position tangent e_j: every frame after dof j moves rigidly by the twist xi = S_j. The axes it
// carries are those of the later dofs on the path and, for a ball or free rotation, every axis
// of j's own group (their directions are fixed in the body): dS_k = xi x S_k for those
// ("affected" by j). With Vp, Ap the velocity and acceleration of the frame before j's group
// and sigma = Vp x S_j, every body b in the subtree of j's body B_j has
//   dV_b = xi x (V_b - Vp),  dA_b = xi x (A_b - Ap) + sigma x (V_b - Vp),
//   dI_b X = xi x* (I_b X) - I_b (xi x X)
//   df_b = xi x* fin_b + I_b psi + K_b sigma + sigma x* (I_b V_b) - G_b xi
// with fin_b = I_b A_b + V_b x* (I_b V_b) (the inertial part), psi = Vp x sigma - xi x Ap,
// K_b = [V_b x*] I_b - I_b [V_b x] (symmetric) and G_b xi = [(xi_w x c_b + xi_v) x f_b; 0] the
// motion of the applied force f_b (xfrc_applied) with the COM c_b; W (contact) is held fixed.
// Velocity tangent e_j: dV_b = S_j,  dA_b = Sdot_j + S_j x (V_b - Vq) (Vq: the velocity after
// j's group; the later Sdot move),  dI = 0:
//   df_b = I_b phi + K_b S_j + S_j x* (I_b V_b),  phi = Sdot_j - S_j x Vq.
// Subtree sums (subscript s) of I, K, G, I V, fin and Wx (the applied wrenches) then give, for B
// the body of row i:
//   row i on B_j's path, not affected (ancestor rows):  dr_i/dq_j = S_i' g_j,
//       g_j = xi x* fin_s(B_j) + I_s psi + K_s sigma + sigma x* (I V)_s - G_s xi  (= dF_{B_j})
//       dr_i/dv_j = S_i' (I_s phi + K_s S_j + S_j x* (I V)_s)  (the subtree of B_j)
//   row i affected by j (later, or in j's ball group):  dr_i/dq_j = dS_i' F_B + S_i' dF_B
//       = alpha_i' psi + kappa_i' sigma + gamma_i' xi,   dr_i/dv_j = alpha_i' phi + kappa_i' S_j
//   with alpha_i = I_s(B) S_i,  kappa_i = K_s(B) S_i - S_i x* (I V)_s(B),
//        gamma_i = -G_s(B)' S_i - S_i x* Wx_s(B)   (the inertial part of dS_i' F cancels)
// Every dof pair on a common path costs O(1) 6-vector work: O(nv depth) in all.

// the per-dof and per-body quantities of the sweeps
typedef struct {
    const double* S; // 6 nv: dof axes
    double* sig;     // 6 nv: sigma = Vp x S
    double* psi;     // 6 nv
    double* phi;     // 6 nv
    double* alpha;   // 6 nv
    double* kappa;   // 6 nv
    double* gamma;   // 6 nv
    double* KS;      // 6 nv: K_s(B) S of each dof (shared by kappa and the velocity column)
    double* I;       // 10 nbody: body inertia, then its subtree sum
    double* K;       // 36 nbody
    double* G;       // 18 nbody: the top 3 rows of G (the bottom ones are 0)
    double* IV;      // 6 nbody: I V
    double* fin;     // 6 nbody: the inertial force I A + V x* (I V), summed over the subtree
    double* Wx;      // 6 nbody: the applied wrench, then its subtree sum
    int* group;      // nv: first dof of each dof's group
} sweep;

// N = [v x*] c (the columns of the 6x6 K before symmetrization): c a cinert, v a motion;
// column k is v x* (c e_k), with c e_k the column k of the dense 6x6 inertia
static void motion_cross_inertia(double N[36], const double v[6], const double c[10]) {
    double dense[36];
    gdn_ainert_from_cinert(dense, c);
    for (int k = 0; k < 6; k++) {
        gdn_cross_force(N + 6 * k, v, dense + 6 * k);
    }
}

// K = N + N' with N = [V x*] I (column-major N; K symmetric, stored in full)
static void inertia_coriolis(double K[36], const double V[6], const double I[10]) {
    double N[36];
    motion_cross_inertia(N, V, I);
    for (int r = 0; r < 6; r++) {
        for (int c = r; c < 6; c++) {
            double s = N[6 * c + r] + N[6 * r + c];
            K[6 * c + r] = s;
            K[6 * r + c] = s;
        }
    }
}

// y = K x (K symmetric 6x6, stored in full with K(r, c) == K(c, r) bit for bit)
#if defined(__SSE2__)
// rows r, r + 1 in two lanes: column c of K holds (K(r, c), K(r + 1, c)) contiguously; each lane
// sums K(r, c) x_c over c in order, as the scalar form
static void sym6_mul(double y[6], const double K[36], const double x[6]) {
    for (int r = 0; r < 6; r += 2) {
        __m128d acc = _mm_mul_pd(_mm_loadu_pd(K + r), _mm_set1_pd(x[0]));
        for (int c = 1; c < 6; c++) {
            acc = _mm_add_pd(acc, _mm_mul_pd(_mm_loadu_pd(K + 6 * c + r), _mm_set1_pd(x[c])));
        }
        _mm_storeu_pd(y + r, acc);
    }
}
#else
static void sym6_mul(double y[6], const double K[36], const double x[6]) {
    for (int r = 0; r < 6; r++) {
        const double* k = K + 6 * r;
        y[r] = k[0] * x[0] + k[1] * x[1] + k[2] * x[2] + k[3] * x[3] + k[4] * x[4] + k[5] * x[5];
    }
}
#endif

// G (3x6, row-major) of an applied force f at the point c: [[f x][c x], -[f x]]
static void applied_motion(double G[18], const double f[3], const double c[3]) {
    // [f x][c x] = c f' - (f . c) I
    const double fc = gdn_dot3(f, c);
    for (int r = 0; r < 3; r++) {
        for (int k = 0; k < 3; k++) {
            G[6 * r + k] = c[r] * f[k] - (r == k ? fc : 0);
        }
    }
    G[3] = 0;
    G[4] = f[2];
    G[5] = -f[1];
    G[9] = -f[2];
    G[10] = 0;
    G[11] = f[0];
    G[15] = f[1];
    G[16] = -f[0];
    G[17] = 0;
}

// the forward sweep (per dof: sigma, psi, phi; per body: K, G), the subtree sums, then per dof
// alpha, kappa, gamma. The primal p (gdn_residual_primal, split) gives S, V, A, Sdot, V_pre,
// I, I V, Wx and the subtree sums fin_s; per group, Ap (the acceleration before it) replays
// the sweep's additions and Vq (the velocity after it) is the next group's V_pre or V_b
static void sweep_build(const gdnModel* m, const gdnData* d, const gdnResidualPrimal* p,
                        sweep* s) {
    const double* qvel = d->qvel;
    const double* a = p->a;
    const double* Vb = p->V;
    const double* Ab = p->A;
    const double* Sdot = p->Sdot;
    const double* Vpre = p->Vpre;
    s->S = p->S;
    s->I = p->I;
    s->IV = p->IV;
    s->fin = p->F;
    s->Wx = p->Wx;
    memset(s->K, 0, 36 * sizeof(double));
    memset(s->G, 0, 18 * sizeof(double));
    for (int b = 1; b < m->nbody; b++) {
        int par = m->body_parentid[b];
        int dof0 = m->body_dofadr[b], ndof = m->body_dofnum[b];
        double ap[6];
        memcpy(ap, Ab + 6 * par, sizeof(ap));
        for (int k = 0; k < ndof;) {
            int n = gdn_dof_group_size(m, dof0 + k);
            int next = dof0 + k + n;
            const double* vq = k + n < ndof ? Vpre + 6 * next : Vb + 6 * b;
            for (int t = dof0 + k; t < next; t++) {
                const double* S = s->S + 6 * t;
                const double* vp = Vpre + 6 * t;
                double* sig = s->sig + 6 * t;
                double tmp[6];
                s->group[t] = dof0 + k;
                // sigma = Vp x S: the primal's Sdot but for the constant free translation axes
                if (gdn_dof_kind(m, t) != GDN_AXIS_FIXED) {
                    memcpy(sig, Sdot + 6 * t, 6 * sizeof(double));
                } else {
                    gdn_cross_motion(sig, vp, S);
                }
                // psi = Vp x sigma - S x Ap
                gdn_cross_motion(s->psi + 6 * t, vp, sig);
                gdn_cross_motion(tmp, S, ap);
                for (int i = 0; i < 6; i++) {
                    s->psi[6 * t + i] -= tmp[i];
                }
                // phi = Sdot - S x Vq
                gdn_cross_motion(tmp, S, vq);
                for (int i = 0; i < 6; i++) {
                    s->phi[6 * t + i] = Sdot[6 * t + i] - tmp[i];
                }
            }
            for (int t = dof0 + k; t < next; t++) {
                gdn_addscl6(ap, ap, Sdot + 6 * t, qvel[t]);
                gdn_addscl6(ap, ap, s->S + 6 * t, a[t]);
            }
            k += n;
        }

        inertia_coriolis(s->K + 36 * b, Vb + 6 * b, s->I + 10 * b);
        // the motion of the applied force with the COM
        const double* x = d->xfrc_applied + 6 * b;
        if (x[0] != 0 || x[1] != 0 || x[2] != 0) {
            applied_motion(s->G + 18 * b, x, d->xipos + 3 * b);
        } else {
            memset(s->G + 18 * b, 0, 18 * sizeof(double));
        }
    }
    // subtree sums, children first
    for (int b = m->nbody - 1; b > 0; b--) {
        int par = m->body_parentid[b];
        for (int i = 0; i < 10; i++) {
            s->I[10 * par + i] += s->I[10 * b + i];
        }
        for (int i = 0; i < 36; i++) {
            s->K[36 * par + i] += s->K[36 * b + i];
        }
        for (int i = 0; i < 18; i++) {
            s->G[18 * par + i] += s->G[18 * b + i];
        }
        gdn_add6(s->IV + 6 * par, s->IV + 6 * par, s->IV + 6 * b);
        gdn_add6(s->Wx + 6 * par, s->Wx + 6 * par, s->Wx + 6 * b);
    }
    // per dof: alpha, kappa, gamma from the subtree sums of its body
    for (int i = 0; i < m->nv; i++) {
        int B = m->dof_bodyid[i];
        const double* S = s->S + 6 * i;
        const double* G = s->G + 18 * B;
        double* kap = s->kappa + 6 * i;
        double* gam = s->gamma + 6 * i;
        double tmp[6];
        gdn_cinert_mul(s->alpha + 6 * i, s->I + 10 * B, S);
        sym6_mul(s->KS + 6 * i, s->K + 36 * B, S);
        memcpy(kap, s->KS + 6 * i, 6 * sizeof(double));
        gdn_cross_force(tmp, S, s->IV + 6 * B);
        for (int k = 0; k < 6; k++) {
            kap[k] -= tmp[k];
        }
        gdn_cross_force(gam, S, s->Wx + 6 * B);
        for (int k = 0; k < 6; k++) {
            gam[k] = -gam[k] - (G[k] * S[0] + G[6 + k] * S[1] + G[12 + k] * S[2]);
        }
    }
}

// g = dF_B for the position tangent of dof j (B its body)
static void position_column_force(const sweep* s, int j, int B, double g[6]) {
    const double* xi = s->S + 6 * j;
    const double* sig = s->sig + 6 * j;
    const double* G = s->G + 18 * B;
    double tmp[6];
    gdn_cross_force(g, xi, s->fin + 6 * B);
    gdn_cinert_mul(tmp, s->I + 10 * B, s->psi + 6 * j);
    gdn_add6(g, g, tmp);
    sym6_mul(tmp, s->K + 36 * B, sig);
    gdn_add6(g, g, tmp);
    gdn_cross_force(tmp, sig, s->IV + 6 * B);
    gdn_add6(g, g, tmp);
    for (int r = 0; r < 3; r++) {
        g[r] -= gdn_dot6(G + 6 * r, xi);
    }
}

// g = dF_B for the velocity tangent of dof j
static void velocity_column_force(const sweep* s, int j, int B, double g[6]) {
    const double* S = s->S + 6 * j;
    double tmp[6];
    gdn_cinert_mul(g, s->I + 10 * B, s->phi + 6 * j);
    gdn_add6(g, g, s->KS + 6 * j);
    gdn_cross_force(tmp, S, s->IV + 6 * B);
    gdn_add6(g, g, tmp);
}

// dr_i/dq_j for row i affected by column j
static double affected_position(const sweep* s, int i, int j) {
    return gdn_dot6(s->alpha + 6 * i, s->psi + 6 * j) + gdn_dot6(s->kappa + 6 * i, s->sig + 6 * j) +
           gdn_dot6(s->gamma + 6 * i, s->S + 6 * j);
}

// Two-lane dots for the pair loop. Every operand is stored interleaved as 12 doubles at a 16-byte
// aligned address (the arena aligns to 64 bytes; every array below starts at a multiple of 6 nv
// doubles and holds 12 per dof): a pair p = (p_0[0], p_1[0], p_0[1], p_1[1], ...) or a
// broadcast b = (b[0], b[0], b[1], b[1], ...). Lane l of bcast_dot(b, p) is
// b[0] p_l[0] + b[1] p_l[1] + ... + b[5] p_l[5], left to right: the scalar gdn_dot6 of b and p_l
// (products commute exactly), so the lanes are the scalar dots bit for bit.
#if defined(__SSE2__)
typedef __m128d lanes2;

static inline lanes2 bcast_dot(const double* b, const double* p) {
    lanes2 acc = _mm_mul_pd(_mm_load_pd(b), _mm_load_pd(p));
    for (int c = 1; c < 6; c++) {
        acc = _mm_add_pd(acc, _mm_mul_pd(_mm_load_pd(b + 2 * c), _mm_load_pd(p + 2 * c)));
    }
    return acc;
}

static inline double lane0(lanes2 x) {
    return _mm_cvtsd_f64(x);
}

static inline double lane1(lanes2 x) {
    return _mm_cvtsd_f64(_mm_unpackhi_pd(x, x));
}
#else
typedef struct {
    double l[2];
} lanes2;

static inline lanes2 bcast_dot(const double* b, const double* p) {
    lanes2 r;
    for (int l = 0; l < 2; l++) {
        r.l[l] = b[0] * p[l] + b[2] * p[2 + l] + b[4] * p[4 + l] + b[6] * p[6 + l] +
                 b[8] * p[8 + l] + b[10] * p[10 + l];
    }
    return r;
}

static inline double lane0(lanes2 x) {
    return x.l[0];
}

static inline double lane1(lanes2 x) {
    return x.l[1];
}
#endif

// the interleaved pair (a, b) of two 6-vectors, and the broadcast (a, a)
static void interleave6(double p[12], const double a[6], const double b[6]) {
    for (int c = 0; c < 6; c++) {
        p[2 * c] = a[c];
        p[2 * c + 1] = b[c];
    }
}

// the dense residual Jacobians and, when M is not NULL, the mass matrix entries on the dof chains
// from the same sweep (CRBA: M(i, k) = S_k' I_s(B_i) S_i = S_k' alpha_i, + armature_i at k = i)
static gdnStatus residual_dense(const gdnModel* m, gdnData* d, const double* a, const double* W,
                                double* X, int ldx, double* M) {
    const int nv = m->nv, nu = m->nu, nb = m->nbody;
    const size_t nvs = (size_t)(nv > 0 ? nv : 1), nbs = (size_t)nb, ld = (size_t)ldx;
    if (ldx < 2 * nv + nu) {
        return GDN_ERR_ARG;
    }
    size_t mark = gdn_arena_mark(d);
    gdnResidualPrimal p;
    gdnStatus status = gdn_residual_primal(m, d, a, W, NULL, 1, &p);
    double* block = gdn_arena_doubles(d, 102 * nvs + 54 * nbs);
    int* group = gdn_arena_ints(d, nvs);
    if (status != GDN_OK || !block || !group) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    sweep s;
    s.sig = block;
    s.psi = s.sig + 6 * nvs;
    s.phi = s.psi + 6 * nvs;
    s.alpha = s.phi + 6 * nvs;
    s.kappa = s.alpha + 6 * nvs;
    s.gamma = s.kappa + 6 * nvs;
    s.KS = s.gamma + 6 * nvs;
    // per dof, 12 doubles each (the two-lane dots above): the pairs (psi, phi), (sigma, S),
    // (gq, gv) = dF of the position and the velocity column, (gamma, alpha), and S broadcast
    double* pp = s.KS + 6 * nvs;
    double* ss = pp + 12 * nvs;
    double* gg = ss + 12 * nvs;
    double* ga = gg + 12 * nvs;
    double* SS = ga + 12 * nvs;
    s.K = SS + 12 * nvs;
    s.G = s.K + 36 * nbs;
    s.group = group;
    sweep_build(m, d, &p, &s);
    for (int i = 0; i < nv; i++) {
        memset(X + (size_t)i * ld, 0, sizeof(double) * (size_t)(2 * nv + nu));
    }
    for (int j = 0; j < nv; j++) {
        int B = m->dof_bodyid[j];
        double gq[6], gv[6];
        position_column_force(&s, j, B, gq);
        velocity_column_force(&s, j, B, gv);
        interleave6(gg + 12 * j, gq, gv);
        interleave6(pp + 12 * j, s.psi + 6 * j, s.phi + 6 * j);
        interleave6(ss + 12 * j, s.sig + 6 * j, s.S + 6 * j);
        interleave6(ga + 12 * j, s.gamma + 6 * j, s.alpha + 6 * j);
        interleave6(SS + 12 * j, s.S + 6 * j, s.S + 6 * j);
    }
    // every pair (i, k) with k = i or k an ancestor dof of i, from four two-lane dots
    for (int i = 0; i < nv; i++) {
        double* xi = X + (size_t)i * ld;
        _Alignas(16) double ab[12], kb[12]; // alpha_i, kappa_i broadcast
        interleave6(ab, s.alpha + 6 * i, s.alpha + 6 * i);
        interleave6(kb, s.kappa + 6 * i, s.kappa + 6 * i);
        // diagonal: dr_i/dq_i = S_i' gq_i, dr_i/dv_i = S_i' gv_i; M(i, i) = armature + S_i' alpha_i
        lanes2 g = bcast_dot(SS + 12 * i, gg + 12 * i);
        xi[i] = lane0(g);
        xi[nv + i] = lane1(g);
        if (M) {
            M[(size_t)i * (size_t)nv + i] =
                m->dof_armature[i] + lane1(bcast_dot(SS + 12 * i, ga + 12 * i));
        }
        for (int k = m->dof_parentid[i]; k >= 0; k = m->dof_parentid[k]) {
            double* xk = X + (size_t)k * ld;
            // row i is after column k:
            //   dr_i/dq_k = alpha_i' psi_k + kappa_i' sigma_k + gamma_i' S_k
            //   dr_i/dv_k = alpha_i' phi_k + kappa_i' S_k
            // and M(i, k) = S_k' alpha_i
            lanes2 ap = bcast_dot(ab, pp + 12 * k);
            lanes2 ks = bcast_dot(kb, ss + 12 * k);
            lanes2 sga = bcast_dot(SS + 12 * k, ga + 12 * i);
            xi[k] = lane0(ap) + lane0(ks) + lane0(sga);
            xi[nv + k] = lane1(ap) + lane1(ks);
            if (M) {
                M[(size_t)i * (size_t)nv + k] = lane1(sga);
            }
            // row k is before column i (S_k' gq_i, S_k' gv_i): affected only inside i's ball
            // group
            lanes2 sg = bcast_dot(SS + 12 * k, gg + 12 * i);
            xk[i] = s.group[k] == s.group[i] ? affected_position(&s, k, i) : lane0(sg);
            xk[nv + i] = lane1(sg);
        }
    }
    gdn_passive_dense(m, d, -1, X, X + nv, ldx);
    gdn_actuation_dense(m, d, -1, X, X + nv, X + 2 * nv, ldx);
    gdn_arena_reset(d, mark);
    return GDN_OK;
}

gdnStatus gdn_residual_dense_ex(const gdnModel* m, gdnData* d, const double* a, const double* W,
                                double* X, int ldx) {
    return residual_dense(m, d, a, W, X, ldx, NULL);
}

gdnStatus gdn_residual_dense(const gdnModel* m, gdnData* d, const double* a, double* X,
                             int ldx) {
    return gdn_residual_dense_mass(m, d, a, X, ldx, NULL);
}

gdnStatus gdn_residual_dense_mass(const gdnModel* m, gdnData* d, const double* a, double* X,
                                  int ldx, double* M) {
    size_t mark = gdn_arena_mark(d);
    const double* W = gdn_wrenches_from_outputs(m, d);
    gdnStatus status = residual_dense(m, d, a, W, X, ldx, M);
    gdn_arena_reset(d, mark);
    return status;
}

// d(M(q) w)/dq: the sweep above at zero velocity, gravity and applied force with acceleration w
// (sigma = phi = K = G = Wx = 0): A_b = A_parent + sum_j S_j w_j, fin_b = I_b A_b,
// psi_j = -S_j x Ap (Ap: A before j's group), and for B the body of row i, column j
//   row i after j, or in j's ball group:  alpha_i' psi_j,  alpha_i = I_s(B) S_i
//   row i on B_j's path before j:         S_i' g_j,  g_j = S_j x* fin_s(B_j) + I_s(B_j) psi_j
gdnStatus gdn_residual_dense_inertia(const gdnModel* m, gdnData* d, const double* w, double* X,
                                     int ldx) {
    const int nv = m->nv, nb = m->nbody;
    const size_t nvs = (size_t)(nv > 0 ? nv : 1), nbs = (size_t)nb, ld = (size_t)ldx;
    size_t mark = gdn_arena_mark(d);
    double* S = gdn_arena_doubles(d, 24 * nvs + 22 * nbs);
    int* group = gdn_arena_ints(d, nvs);
    if (!S || !group) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    double* psi = S + 6 * nvs;
    double* alpha = psi + 6 * nvs;
    double* g = alpha + 6 * nvs;
    double* I = g + 6 * nvs;       // 10 nbody: body inertias, then their subtree sums
    double* A = I + 10 * nbs;      // 6 nbody
    double* fin = A + 6 * nbs;     // 6 nbody: I_b A_b, then the subtree sums
    gdn_dof_axes_about(m, d, 0, S);
    gdn_body_inertias_about(m, d, 0, I);
    memset(A, 0, 6 * sizeof(double));
    memset(fin, 0, 6 * sizeof(double));
    for (int b = 1; b < nb; b++) {
        const int dof0 = m->body_dofadr[b], ndof = m->body_dofnum[b];
        double* ab = A + 6 * b;
        memcpy(ab, A + 6 * m->body_parentid[b], 6 * sizeof(double));
        for (int k = 0; k < ndof;) {
            const int n = gdn_dof_group_size(m, dof0 + k), next = dof0 + k + n;
            for (int t = dof0 + k; t < next; t++) {
                group[t] = dof0 + k;
                gdn_cross_motion(psi + 6 * t, S + 6 * t, ab);
                for (int i = 0; i < 6; i++) {
                    psi[6 * t + i] = -psi[6 * t + i];
                }
            }
            for (int t = dof0 + k; t < next; t++) {
                gdn_addscl6(ab, ab, S + 6 * t, w[t]);
            }
            k += n;
        }
        gdn_cinert_mul(fin + 6 * b, I + 10 * b, ab);
    }
    for (int b = nb - 1; b > 0; b--) {
        const int par = m->body_parentid[b];
        for (int i = 0; i < 10; i++) {
            I[10 * par + i] += I[10 * b + i];
        }
        gdn_add6(fin + 6 * par, fin + 6 * par, fin + 6 * b);
    }
    for (int j = 0; j < nv; j++) {
        const int B = m->dof_bodyid[j];
        double t[6];
        gdn_cinert_mul(alpha + 6 * j, I + 10 * B, S + 6 * j);
        gdn_cross_force(g + 6 * j, S + 6 * j, fin + 6 * B);
        gdn_cinert_mul(t, I + 10 * B, psi + 6 * j);
        gdn_add6(g + 6 * j, g + 6 * j, t);
    }
    for (int i = 0; i < nv; i++) {
        memset(X + (size_t)i * ld, 0, sizeof(double) * (size_t)nv);
    }
    for (int i = 0; i < nv; i++) {
        double* xi = X + (size_t)i * ld;
        xi[i] = gdn_dot6(S + 6 * i, g + 6 * i);
        for (int k = m->dof_parentid[i]; k >= 0; k = m->dof_parentid[k]) {
            // row i after column k; row k before column i (affected inside i's ball group)
            xi[k] = gdn_dot6(alpha + 6 * i, psi + 6 * k);
            X[(size_t)k * ld + (size_t)i] = group[k] == group[i]
                                                ? gdn_dot6(alpha + 6 * k, psi + 6 * i)
                                                : gdn_dot6(S + 6 * k, g + 6 * i);
        }
    }
    gdn_arena_reset(d, mark);
    return GDN_OK;
}
