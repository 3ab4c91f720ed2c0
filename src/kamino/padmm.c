// SPDX-License-Identifier: Apache-2.0
// Kamino's PADMM backend: the dual NCP of one world by preconditioned, proximal, accelerated ADMM.
//
// The problem (kamino/dual.h, kamino.md 2.2). Rows: nb bilateral, nl limit (lambda >= 0), nc
// contact triplets [t0, t1, n] (lambda in K_mu = {||lambda_t|| <= mu lambda_n}); the cone is
// K = R^nb x R+^nl x prod K_mu. Find lambda in K with
//     v+ = D lambda + vf,   vhat = v+ + Gamma(v+) in K*,   lambda . vhat = 0,
// where Gamma adds mu ||v+_t|| to each contact's normal component (De Saxce: it makes the
// associated cone complementarity equal to Coulomb's law with maximal dissipation) and K* =
// {0}^nb x R+^nl x prod K_mu* (K_mu* = {mu ||v_t|| <= v_n}; bilateral rows need vhat = 0).
//
// Preconditioning. P = diag(p), p_i = clamp(1 / sqrt(|D_ii| + 1e-12), 1/50, 50); a contact uses
// one p for its three rows, from the largest of their diagonals, so P maps K onto itself.
// Preconditioning off: P = I. The solver works on Dt = P D P, vft = P vf with the scaled
// impulse x = P^-1 lambda and the scaled velocity z = P v.
//
// Iteration (kamino.md 2.4), with eta the proximal weight and rho the penalty:
//   factor once:  L L' = Dt + (eta + rho) I      (dense Cholesky: gdn_chol_factor of
//                 math/cholesky.h; the substitutions are local and column-oriented, with
//                 L' mirrored into the upper triangle so both run along rows)
//   warm start:   x_prev = yhat = y_prev = w P^-1 lambda_ws     (w = warmstart_scale, 0.9, on
//                 bilateral rows; warmstart_scale_unilateral, 1, on limits and contacts)
//                 zhat = z_prev = P v+_ws + Gamma(P v+_ws)
//   repeat k = 1 .. max_iterations:
//     s    = Gamma(zhat)                   (s_n = mu ||zhat_t|| per contact, 0 elsewhere)
//     x    = (Dt + (eta + rho) I)^-1 (-vft - s + eta x_prev + rho yhat + zhat)
//              the minimiser of 1/2 x'Dt x + x'(vft + s) + eta/2 ||x - x_prev||^2
//                                + rho/2 ||x - yhat - zhat / rho||^2
//     y    = Pi_K(x - zhat / rho)          (identity on bilateral rows, max(0, .) on limits, the
//                                           Coulomb cone projection per contact)
//     z    = zhat + rho (y - x)
//     residuals (absolute, physical units: the P factors undo the scaling):
//       r_p = ||P (x - y)||_inf                            primal consensus [N s]: how far the
//             unconstrained impulse is from its projection onto the cone
//       r_d = ||P^-1 (eta (x - x_prev) + rho (y - yhat))||_inf   ADMM dual residual [m/s]: the
//             optimality condition of the x-step reads Dt x + vft + s - z =
//             -(eta (x - x_prev) + rho (y - yhat)), so r_d is how far z is from the augmented
//             velocity P (D lambda + vf) + Gamma at x. (The seed's "y_prev" is read as the
//             y the iteration started from, yhat: kamino.md's source reading; the same as the
//             previous y when acceleration is off.)
//       r_c = max(max_limits |x_i z_i|, max_contacts |x_c . z_c|)   complementarity [J]
//             (x z = (P x)(P^-1 z): the same in both scalings)
//     converged when k > 1 and r_p <= tol_primal, r_d <= tol_dual, r_c <= tol_compl (bilateral
//       rows alone, without a penalty: from k = 1, as y = x, z = 0 and the x-step's optimality
//       condition make r_d = ||D lambda + vf||_inf, the rows' velocity error, at every iterate)
//     acceleration (Goldstein et al., fast ADMM with restart), a_1 = 1:
//       r_a = rho ||P (y - yhat)||^2 + ||P^-1 (z - zhat)||^2 / rho
//       if r_a < restart_factor r_a,prev: a' = (1 + sqrt(1 + 4 a^2)) / 2,
//             yhat = y + (a - 1)/a' (y - y_prev), zhat = z + (a - 1)/a' (z - z_prev), a = a',
//             r_a,prev = r_a
//       else (restart): a = 1, yhat = y_prev, zhat = z_prev, r_a,prev = r_a,prev / restart_factor
//       (acceleration off: yhat = y, zhat = z); then y_prev = y, z_prev = z, x_prev = x.
//   output: lambda = P y (in K exactly), v+ = D lambda + vf (recomputed from lambda; for
//   bilateral rows alone without a penalty it is the x-step's optimality condition,
//   v+ = P^-1 (Dt x + vft) = -P^-1 eta (x - x_prev), equal to round-off).
// At a fixed point x = y, z = Dt y + vft + Gamma and y = Pi_K(y - z / rho), which holds iff
// z in K* and y . z = 0: the NCP above.
//
// Redundant rows (rank-deficient D): Dt + (eta + rho) I stays positive definite (rho > 0), and
// on bilateral rows the iteration is a proximal-point method, which leaves the null-space part
// of the start unchanged: with a zero warm start lambda converges to the solution of minimum
// ||P^-1 lambda|| (equal splits between duplicated rows), and the 0.9 warm-start scale shrinks
// null-space drift from step to step. That null space is unbounded; the unilateral rows' is
// bounded by K (lambda_n >= 0, the friction cones), so they are not shrunk (below).
//
// Contact data with no solution on its natural active set (measured on
// tests/models/kamino_scene_pinch.xml once the cube is tilted: the contact recovery biases of
// dual.c ask for a rotation that slides one pinched face, and the other face's contact points,
// midway between non-parallel faces, are not coplanar normal to n). When the rows that ought
// to stick have a velocity target outside the range of D, the interior (sticking) rows have
// z = 0 and their null-space component (an internal force between the contacts of one face)
// moves by c / (eta + rho) per iteration, c the scaled least-squares mismatch, until a contact
// reaches its cone boundary (micro-slip: the NCP's solution); r_d stays equal to c, whatever
// rho, all along (pinch: 3.1e-8 m/s, the least-squares mismatch of the sticking face 3.12e-8).
// The solution is then one point of that null space, far from the minimum-norm one: a warm
// start scaled by w < 1 moves the start 1 - w back along it every step and the solve has to
// re-travel it, and with penalty_ratio 10 rho stays up while bd / bp sits at 4-10 (pinch with the
// tilt: median 74 iterations, 173 of 1000 steps capped; warmstart_scale_unilateral 1 and
// penalty_ratio 3 made that median 16 with 40 capped). The tilt itself came from a one-step
// collision artifact (box-box trading a face's four contacts for one edge point on round-off,
// gdnOption.box_edge_bias), which Kamino's collision view now prevents; without it kamino.md's
// defaults converge on the pinch in a median of 2 iterations, so they stay the defaults and
// warmstart_scale_unilateral = 1 remains an option for contact data of this kind (with it a
// converged warm start is accepted at iteration 2: a steady drift below the tolerance stays).
//
// For the caller. Units: D in (m/s) per (N s), vf and v+ in m/s (rad/s for angular rows),
// lambda in N s (impulses over the step: forces are lambda / h). D is symmetric, n x n row-major,
// and only its lower triangle inside the envelope is read (with p->env: row i from the start of
// the block of four holding first[i], +0 left of first[i]; without: the whole lower triangle).
// Warm start: lambda and v+ of the previous step's matching rows (same contact frame: rotate
// lambda_t when the tangents change), zeros for new rows; pass both or neither. With a scale
// of 0.9 an exact warm start still takes tens of iterations at tolerance 1e-8
// (test_kamino_padmm: 26 vs 34 cold on a box's contacts); with 1.0 it stops at iteration 2.
// Settings are not tuned per problem: the defaults of kamino.md, but for the two above (a, b)
// and the penalty of the bilateral rows (rho_bilateral 0). converged needs k > 1, so a converged
// solve reports at least 2 iterations, but for bilateral rows alone (above: 1 when the first
// proximal step is within tol_dual). vf must be consistent on redundant rows (vf in the range
// of D, as J u_f is); a bias that differs between two copies of a row has no solution: the
// solve then caps with r_d at half the mismatch and lambda stays bounded.
//
// Errors: GDN_ERR_ARG for NULL pointers, inconsistent sizes, bad settings or mu < 0;
// GDN_ERR_NONFINITE for NaN/Inf in D, vf, mu or the warm start (status->iterations = 0) or in
// an iterate (status->iterations = the iteration; lambda and vplus are left unchanged) or in
// the output (overflow in D lambda + vf); the residuals are NaN then. A solve capped at
// max_iterations returns GDN_OK, converged = 0, and the residuals of its last iteration. No
// allocation, no threads: bit-identical results for identical input (the scratch's previous
// contents do not matter).
#include "kamino/padmm.h"

#include "math/cholesky.h"

#include <float.h>
#include <math.h>
#include <string.h>

// the preconditioner's floor inside the square root and its clamp
#define PADMM_DIAG_EPS 1e-12
#define PADMM_P_MIN (1.0 / 50.0)
#define PADMM_P_MAX 50.0

void gdn_kamino_padmm_defaults(gdnKaminoPadmmSettings* s) {
    if (!s) {
        return;
    }
    s->max_iterations = 200;
    s->tol_primal = 1e-6;
    s->tol_dual = 1e-6;
    s->tol_compl = 1e-6;
    s->eta = 1e-5;
    s->rho = 1.0;
    s->acceleration = 1;
    s->restart_factor = 0.999;
    s->preconditioning = 1;
    s->warmstart_scale = 0.9;
    s->warmstart_scale_unilateral = 0.9;
    s->rho_bilateral = 0;
    s->penalty_update = 1;
    s->penalty_ratio = 10;
    s->penalty_factor = 1.5;
    s->rho_min = 1e-5;
    s->rho_max = 1e6;
}

// scratch: the factor (n x n), then p, 1/p, vft, x, x_prev, y, y_prev, yhat, z, z_prev, zhat, s,
// the penalty of each row and its reciprocal (0 where the penalty is 0), the reciprocals of the
// factor's diagonal (vector PADMM_DINV after p), then the Schur complement of the bilateral block
// (n x n, the unilateral rows' block used) for refactorizations
#define PADMM_VECTORS 15
#define PADMM_DINV 14

size_t gdn_kamino_padmm_scratch(int n) {
    if (n <= 0) {
        return 0;
    }
    return 2 * (size_t)n * (size_t)n + (size_t)PADMM_VECTORS * (size_t)n;
}

// the Coulomb cone projection: the polar cone {mu ||t|| <= -n} maps to 0 (tested first: with
// mu = 0 that is n <= 0), the cone itself to x, the rest to the nearest point of the boundary
void gdn_kamino_cone_project(double mu, const double* x, double* out) {
    const double t0 = x[0], t1 = x[1], xn = x[2];
    const double t = sqrt(t0 * t0 + t1 * t1);
    if (mu * t <= -xn) {
        out[0] = 0;
        out[1] = 0;
        out[2] = 0;
    } else if (t <= mu * xn) {
        out[0] = t0;
        out[1] = t1;
        out[2] = xn;
    } else {
        // t > 0 here (t = 0 would need xn > 0 and xn < 0)
        const double yn = (mu * t + xn) / (mu * mu + 1);
        const double scale = mu * yn / t;
        out[0] = scale * t0;
        out[1] = scale * t1;
        out[2] = yn;
    }
}

// the dual cone K_mu* = {mu ||t|| <= n}: inside first (with mu = 0 the half-space n >= 0), then
// its polar -K_mu = {||t|| <= -mu n} maps to 0, the rest to the nearest boundary point
void gdn_kamino_dual_cone_project(double mu, const double* x, double* out) {
    const double t0 = x[0], t1 = x[1], xn = x[2];
    const double t = sqrt(t0 * t0 + t1 * t1);
    if (mu * t <= xn) {
        out[0] = t0;
        out[1] = t1;
        out[2] = xn;
    } else if (t <= -mu * xn) {
        out[0] = 0;
        out[1] = 0;
        out[2] = 0;
    } else {
        // t > 0 here; the nearest boundary point has its tangent along x_t with length
        // ut = (t + mu xn) / (1 + mu^2) and the normal mu ut
        const double ut = (t + mu * xn) / (mu * mu + 1);
        const double scale = ut / t;
        out[0] = scale * t0;
        out[1] = scale * t1;
        out[2] = mu * ut;
    }
}

// the first column of row i inside the envelope (0 without one)
static inline int row_first(const gdnCholEnvelope* env, int i) {
    return env ? env->first[i] : 0;
}

// 1 when all n values are finite
// (branch-free: a_i - a_i is 0 for a finite a_i and NaN for an infinite or NaN one, and a NaN
// stays in a sum; four partial sums, as the order of a sum of zeros and NaNs does not matter)
static int all_finite(const double* a, size_t n) {
    double acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        acc0 += a[i] - a[i];
        acc1 += a[i + 1] - a[i + 1];
        acc2 += a[i + 2] - a[i + 2];
        acc3 += a[i + 3] - a[i + 3];
    }
    for (; i < n; i++) {
        acc0 += a[i] - a[i];
    }
    return (acc0 + acc1) + (acc2 + acc3) == 0;
}

// s = Gamma(z): mu ||z_t|| on each contact's normal row, 0 on every other row
static void desaxce(const gdnKaminoDual* p, const double* z, double* s) {
    const int off = p->nb + p->nl;
    for (int i = 0; i < off; i++) {
        s[i] = 0;
    }
    for (int c = 0; c < p->nc; c++) {
        const double* zc = z + off + 3 * c;
        double* sc = s + off + 3 * c;
        sc[0] = 0;
        sc[1] = 0;
        sc[2] = p->mu[c] * sqrt(zc[0] * zc[0] + zc[1] * zc[1]);
    }
}

// validate the problem and settings: GDN_OK, GDN_ERR_ARG or GDN_ERR_NONFINITE
static gdnStatus check_input(const gdnKaminoDual* p, const gdnKaminoPadmmSettings* s,
                             const double* lambda, const double* vplus, const double* scratch) {
    if (!p || !s) {
        return GDN_ERR_ARG;
    }
    if (p->nb < 0 || p->nl < 0 || p->nc < 0 || p->n != p->nb + p->nl + 3 * p->nc) {
        return GDN_ERR_ARG;
    }
    if (!(s->max_iterations >= 1) || !(s->tol_primal >= 0) || !(s->tol_dual >= 0) ||
        !(s->tol_compl >= 0) || !(s->eta >= 0) || !isfinite(s->eta) || !(s->rho > 0) ||
        !isfinite(s->rho) || !(s->restart_factor > 0) || !(s->restart_factor <= 1) ||
        !isfinite(s->warmstart_scale) || !isfinite(s->warmstart_scale_unilateral) ||
        !(s->rho_bilateral >= 0) || !isfinite(s->rho_bilateral) ||
        (s->penalty_update && (!(s->penalty_ratio >= 1) || !isfinite(s->penalty_ratio) ||
                               !(s->penalty_factor > 1) || !isfinite(s->penalty_factor) ||
                               !(s->rho_min > 0) || !(s->rho_min <= s->rho) ||
                               !(s->rho <= s->rho_max) || !isfinite(s->rho_max)))) {
        return GDN_ERR_ARG;
    }
    const int n = p->n;
    if (n == 0) {
        return GDN_OK;
    }
    if (!p->D || !p->vf || (p->nc > 0 && !p->mu) || !lambda || !vplus || !scratch) {
        return GDN_ERR_ARG;
    }
    // (D is checked where factorize scales it)
    if (!all_finite(p->vf, (size_t)n) ||
        !all_finite(lambda, (size_t)n) || !all_finite(vplus, (size_t)n) ||
        (p->nc > 0 && !all_finite(p->mu, (size_t)p->nc))) {
        return GDN_ERR_NONFINITE;
    }
    for (int c = 0; c < p->nc; c++) {
        if (p->mu[c] < 0) {
            return GDN_ERR_ARG;
        }
    }
    return GDN_OK;
}

// the preconditioner p (n): one value per bilateral or limit row, one per contact triplet
static void preconditioner(const gdnKaminoDual* pb, int on, double* p) {
    const int n = pb->n, off = pb->nb + pb->nl;
    if (!on) {
        for (int i = 0; i < n; i++) {
            p[i] = 1;
        }
        return;
    }
    for (int i = 0; i < n; i++) {
        double d = fabs(pb->D[(size_t)i * (size_t)n + (size_t)i]);
        if (i >= off) {
            // the largest diagonal of the triplet holding row i
            const int first = off + 3 * ((i - off) / 3);
            for (int k = first; k < first + 3; k++) {
                const double dk = fabs(pb->D[(size_t)k * (size_t)n + (size_t)k]);
                d = dk > d ? dk : d;
            }
        }
        double v = 1 / sqrt(d + PADMM_DIAG_EPS);
        v = v < PADMM_P_MIN ? PADMM_P_MIN : v;
        v = v > PADMM_P_MAX ? PADMM_P_MAX : v;
        p[i] = v;
    }
}

// x = (L L')^-1 x in place for the leading m rows of the factor (lower triangle, stride n, the
// reciprocals of its diagonal in dinv): forward by rows, x_i = (x_i - L_i,:i x_:i) / L_ii, then
// backward by the same rows, x_i /= L_ii and x_k -= L_ik x_i for k < i. Both read row i from
// its envelope start only (L_ik = 0 left of it). m = n: the whole solve; m = nb: the solve with
// the bilateral rows' block (the leading block of a Cholesky factor is the factor of the
// leading block)
static void factor_solve(const double* restrict L, const double* restrict dinv, int n, int m,
                         const gdnCholEnvelope* env, double* restrict x) {
    for (int i = 0; i < m; i++) {
        const double* row = L + (size_t)i * (size_t)n;
        x[i] = (x[i] - gdn_dot_mujoco_from(row, x, row_first(env, i) & ~3, i)) * dinv[i];
    }
    for (int i = m - 1; i >= 0; i--) {
        const double* row = L + (size_t)i * (size_t)n;
        const double xi = x[i] * dinv[i];
        x[i] = xi;
        for (int k = row_first(env, i); k < i; k++) {
            x[k] -= row[k] * xi;
        }
    }
}

void gdn_kamino_padmm_bilateral_solve(const gdnKaminoDual* p, const double* scratch, double* r) {
    const int n = p->n, nb = p->nb;
    const double* L = scratch;
    const double* pc = L + (size_t)n * (size_t)n;
    const double* dinv = pc + (size_t)PADMM_DINV * (size_t)n;
    for (int i = 0; i < nb; i++) {
        r[i] *= pc[i];
    }
    factor_solve(L, dinv, n, nb, p->env, r);
    for (int i = 0; i < nb; i++) {
        r[i] *= pc[i];
    }
}

// y = Pi_K(w): identity on bilateral rows, max(0, .) on limits, the Coulomb cone per contact
static void project_k(const gdnKaminoDual* p, const double* w, double* y) {
    const int nb = p->nb, off = p->nb + p->nl;
    for (int i = 0; i < nb; i++) {
        y[i] = w[i];
    }
    for (int i = nb; i < off; i++) {
        y[i] = w[i] > 0 ? w[i] : 0;
    }
    for (int c = 0; c < p->nc; c++) {
        gdn_kamino_cone_project(p->mu[c], w + off + 3 * c, y + off + 3 * c);
    }
}

// the factor of Dt + diag(eta + rho_i): Dt = P D P into L's lower triangle (inside the envelope,
// from the start of its block of four as gdn_chol_factor_env reads it: the entries left of the
// envelope are D's exact zeros), Cholesky, the reciprocals of the diagonal into dinv; 0 when Dt
// or the factor is not finite (D with NaN or Inf, or finite D overflowing when scaled).
// mindiag: the floor used (1e-15 of the largest diagonal)
static int factorize(const gdnKaminoDual* p, const double* pc, const double* rv, double eta,
                     double* L, double* dinv, double* mindiag) {
    const int n = p->n;
    const size_t nn = (size_t)n;
    double dmax = 0;
    int finite = 1;
    for (int i = 0; i < n; i++) {
        const double* Di = p->D + (size_t)i * nn;
        double* Li = L + (size_t)i * nn;
        double acc = 0; // 0, or NaN for a non-finite entry of the row (see all_finite)
        for (int j = row_first(p->env, i) & ~3; j <= i; j++) {
            Li[j] = pc[i] * Di[j] * pc[j];
            acc += Li[j] - Li[j];
        }
        finite &= acc == 0;
        Li[i] += eta + rv[i];
        dmax = Li[i] > dmax ? Li[i] : dmax;
    }
    if (!finite) {
        return 0;
    }
    // positive definite (eta > 0 or every rho_i > 0), so the floor never acts on a regular problem
    *mindiag = 1e-15 * (dmax > 0 ? dmax : 1);
    gdn_chol_factor_env(L, n, *mindiag, p->env);
    for (int i = 0; i < n; i++) {
        dinv[i] = 1 / L[(size_t)i * nn + (size_t)i];
    }
    return all_finite(dinv, nn);
}

// S (n x n, rows and columns nb.. used, inside the envelope) = the Schur complement of the
// bilateral block in Dt without the unilateral rows' shift: S_ij = Dt_ij - L_i,:nb L_j,:nb'
// (the factor's panel rows, which no penalty changes)
static void schur_unilateral(const gdnKaminoDual* p, const double* pc, const double* L,
                             double* S) {
    const int n = p->n, nb = p->nb;
    const size_t nn = (size_t)n;
    for (int i = nb; i < n; i++) {
        const double* Di = p->D + (size_t)i * nn;
        const double* Li = L + (size_t)i * nn;
        const int fi = row_first(p->env, i);
        for (int j = fi > nb ? fi : nb; j <= i; j++) {
            const double* Lj = L + (size_t)j * nn;
            const int fj = row_first(p->env, j);
            double v = pc[i] * Di[j] * pc[j];
            for (int k = fi > fj ? fi : fj; k < nb; k++) {
                v -= Li[k] * Lj[k];
            }
            S[(size_t)i * nn + (size_t)j] = v;
        }
    }
}

// a new penalty on the unilateral rows: their block of the factor from S, its shift eta + rho_i
// and gdn_chol_factor_trailing (the bilateral block and the panel stay); 0 when not finite
static int refactor_unilateral(const gdnKaminoDual* p, const double* S, const double* rv,
                               double eta, double mindiag, double* L, double* dinv) {
    const int n = p->n, nb = p->nb;
    const size_t nn = (size_t)n;
    for (int i = nb; i < n; i++) {
        double* Li = L + (size_t)i * nn;
        const int fi = row_first(p->env, i);
        for (int j = fi > nb ? fi : nb; j <= i; j++) {
            Li[j] = S[(size_t)i * nn + (size_t)j];
        }
        Li[i] += eta + rv[i];
    }
    gdn_chol_factor_trailing(L, n, nb, mindiag, p->env);
    for (int i = nb; i < n; i++) {
        dinv[i] = 1 / L[(size_t)i * nn + (size_t)i];
    }
    return all_finite(dinv + nb, (size_t)(n - nb));
}

gdnStatus gdn_kamino_padmm_solve(const gdnKaminoDual* p, const gdnKaminoPadmmSettings* s,
                                 double* lambda, double* vplus, double* scratch,
                                 gdnKaminoSolveStatus* status) {
    if (!status) {
        return GDN_ERR_ARG;
    }
    status->converged = 0;
    status->iterations = 0;
    status->refactorizations = 0;
    status->unused = 0;
    status->rho = NAN;
    status->r_p = NAN;
    status->r_d = NAN;
    status->r_c = NAN;
    const gdnStatus in = check_input(p, s, lambda, vplus, scratch);
    if (in != GDN_OK) {
        return in;
    }
    const int n = p->n, nb = p->nb, off = p->nb + p->nl;
    const size_t nn = (size_t)n;
    if (n == 0) {
        status->converged = 1;
        status->r_p = 0;
        status->r_d = 0;
        status->r_c = 0;
        return GDN_OK;
    }
    double* L = scratch;
    double* pc = L + nn * nn;
    double* pinv = pc + nn;
    double* vft = pinv + nn;
    double* x = vft + nn;
    double* x_prev = x + nn;
    double* y = x_prev + nn;
    double* y_prev = y + nn;
    double* yhat = y_prev + nn;
    double* z = yhat + nn;
    double* z_prev = z + nn;
    double* zhat = z_prev + nn;
    double* sv = zhat + nn;
    double* rv = sv + nn;
    double* rinv = rv + nn;
    double* dinv = rinv + nn;
    double* schur = dinv + nn;
    int schur_ready = 0;
    double mindiag = 0;
    const double eta = s->eta;
    if (!(eta > 0) && s->rho_bilateral == 0 && nb > 0) {
        return GDN_ERR_ARG; // bilateral rows without a penalty need the proximal term
    }

    // the preconditioner, the scaled free velocity, the penalty of each row (rho_bilateral on the
    // bilateral rows, rho on the rest) and the factor of Dt + diag(eta + rho_i)
    preconditioner(p, s->preconditioning, pc);
    double rho = s->rho;
    for (int i = 0; i < n; i++) {
        pinv[i] = 1 / pc[i];
        vft[i] = pc[i] * p->vf[i];
        rv[i] = i < nb ? s->rho_bilateral : rho;
        rinv[i] = rv[i] > 0 ? 1 / rv[i] : 0;
    }
    if (!all_finite(vft, nn) || !factorize(p, pc, rv, eta, L, dinv, &mindiag)) {
        return GDN_ERR_NONFINITE;
    }

    // the warm start: the scaled impulse times warmstart_scale (bilateral rows) or
    // warmstart_scale_unilateral (limits, contacts), the scaled velocity plus its De
    // Saxce correction
    // (bilateral rows alone without a penalty, below, use x_prev only)
    const int bilateral_only = nb == n && s->rho_bilateral == 0;
    for (int i = 0; i < n; i++) {
        const double w = i < nb ? s->warmstart_scale : s->warmstart_scale_unilateral;
        x_prev[i] = w * lambda[i] * pinv[i];
    }
    if (!bilateral_only) {
        for (int i = 0; i < n; i++) {
            yhat[i] = x_prev[i];
            y_prev[i] = x_prev[i];
            // a row without a penalty has z = 0 at every iterate (z = zhat + 0 (y - x))
            zhat[i] = rv[i] > 0 ? pc[i] * vplus[i] : 0;
        }
        desaxce(p, zhat, sv);
        for (int i = 0; i < n; i++) {
            zhat[i] += sv[i];
            z_prev[i] = zhat[i];
        }
    }

    double a = 1, ra_prev = DBL_MAX;
    double r_p = NAN, r_d = NAN, r_c = NAN;
    int converged = 0, k = 0, vplus_done = 0;
    if (bilateral_only) {
        // bilateral rows alone and no penalty on them: y = x and z = 0 at every iterate, so
        // r_p = r_c = 0 and the iteration is the proximal step x = (Dt + eta I)^-1 (-vft + eta
        // x_prev) with r_d = ||P^-1 eta (x - x_prev)|| = ||D lambda + vf||, the true velocity
        // error of the rows (so it counts from k = 1): the loop below without its no-ops
        r_p = 0;
        r_c = 0;
        for (k = 1; k <= s->max_iterations; k++) {
            for (int i = 0; i < n; i++) {
                x[i] = -vft[i] + eta * x_prev[i];
            }
            factor_solve(L, dinv, n, n, p->env, x);
            double acc = 0;
            r_d = 0;
            for (int i = 0; i < n; i++) {
                acc += x[i] - x[i];
                sv[i] = -eta * (x[i] - x_prev[i]) * pinv[i]; // v+_i (see below)
                const double ed = fabs(sv[i]);
                r_d = ed > r_d ? ed : r_d;
            }
            if (acc != 0) {
                status->iterations = k;
                return GDN_ERR_NONFINITE;
            }
            if (r_d <= s->tol_dual && s->tol_primal >= 0 && s->tol_compl >= 0) {
                converged = 1;
                break;
            }
            memcpy(x_prev, x, nn * sizeof(double));
        }
        memcpy(y, x, nn * sizeof(double));
        // v+ = D lambda + vf = P^-1 (Dt x + vft) = -P^-1 eta (x - x_prev) by the x-step's
        // optimality condition: the product D lambda is not needed
        memcpy(vplus, sv, nn * sizeof(double));
        vplus_done = 1;
    } else {
        for (k = 1; k <= s->max_iterations; k++) {
            // the x-step: s from zhat, then the proximal-augmented linear solve
            desaxce(p, zhat, sv);
            for (int i = 0; i < n; i++) {
                x[i] = -vft[i] - sv[i] + eta * x_prev[i] + rv[i] * yhat[i] + zhat[i];
            }
            factor_solve(L, dinv, n, n, p->env, x);

            // the y-step (projection onto K, z used as the shifted point) and the z-step
            for (int i = 0; i < n; i++) {
                z[i] = x[i] - zhat[i] * rinv[i];
            }
            project_k(p, z, y);
            for (int i = 0; i < n; i++) {
                z[i] = zhat[i] + rv[i] * (y[i] - x[i]);
            }

            // the residuals in physical units, and the finiteness of the iterate
            // (bp, bd: the scaled primal and dual residuals of the rows the penalty acts on, for
            // its update)
            r_p = 0;
            r_d = 0;
            r_c = 0;
            double bp = 0, bd = 0;
            int finite = 1;
            for (int i = 0; i < n; i++) {
                if (!isfinite(x[i]) || !isfinite(z[i])) {
                    finite = 0;
                }
                const double sp = fabs(x[i] - y[i]);
                const double sd = fabs(eta * (x[i] - x_prev[i]) + rv[i] * (y[i] - yhat[i]));
                const double ep = pc[i] * sp, ed = sd * pinv[i];
                r_p = ep > r_p ? ep : r_p;
                r_d = ed > r_d ? ed : r_d;
                if (i >= nb) {
                    bp = sp > bp ? sp : bp;
                    bd = sd > bd ? sd : bd;
                }
            }
            for (int i = nb; i < off; i++) {
                const double ec = fabs(x[i] * z[i]);
                r_c = ec > r_c ? ec : r_c;
            }
            for (int c = 0; c < p->nc; c++) {
                const double* xc = x + off + 3 * c;
                const double* zc = z + off + 3 * c;
                const double ec = fabs(xc[0] * zc[0] + xc[1] * zc[1] + xc[2] * zc[2]);
                r_c = ec > r_c ? ec : r_c;
            }
            if (!finite) {
                status->iterations = k;
                return GDN_ERR_NONFINITE;
            }
            if (k > 1 && r_p <= s->tol_primal && r_d <= s->tol_dual && r_c <= s->tol_compl) {
                converged = 1;
                break;
            }

            // the balanced penalty (kamino.md 2.4g) on the unilateral rows: rho up when the primal
            // residual dominates, down when the dual one does, within [rho_min, rho_max]; a new rho
            // needs a new factor of the unilateral rows' block (the Schur complement of the
            // bilateral block is made at the first change), and the acceleration restarts from the
            // current iterates
            if (s->penalty_update && nb < n) {
                // (a residual already within its tolerance is not balanced against: converged
                // rows otherwise drive rho without bound against an exactly-zero other residual)
                double next = rho;
                if (bp > s->penalty_ratio * bd && r_p > s->tol_primal) {
                    next = rho * s->penalty_factor;
                    next = next > s->rho_max ? s->rho_max : next;
                } else if (bd > s->penalty_ratio * bp && r_d > s->tol_dual) {
                    next = rho / s->penalty_factor;
                    next = next < s->rho_min ? s->rho_min : next;
                }
                if (next != rho) {
                    rho = next;
                    for (int i = nb; i < n; i++) {
                        rv[i] = rho;
                        rinv[i] = 1 / rho;
                    }
                    if (!schur_ready) {
                        schur_unilateral(p, pc, L, schur);
                        schur_ready = 1;
                    }
                    if (!refactor_unilateral(p, schur, rv, eta, mindiag, L, dinv)) {
                        status->iterations = k;
                        return GDN_ERR_NONFINITE;
                    }
                    status->refactorizations++;
                    a = 1;
                    ra_prev = DBL_MAX;
                    memcpy(yhat, y, nn * sizeof(double));
                    memcpy(zhat, z, nn * sizeof(double));
                    memcpy(y_prev, y, nn * sizeof(double));
                    memcpy(z_prev, z, nn * sizeof(double));
                    memcpy(x_prev, x, nn * sizeof(double));
                    continue;
                }
            }

            // acceleration with restart, then the previous iterates
            if (s->acceleration) {
                double ra_y = 0, ra_z = 0;
                for (int i = 0; i < n; i++) {
                    const double dy = pc[i] * (y[i] - yhat[i]);
                    const double dz = (z[i] - zhat[i]) * pinv[i];
                    ra_y += rv[i] * dy * dy;
                    ra_z += rinv[i] * dz * dz;
                }
                const double ra = ra_y + ra_z;
                if (ra < s->restart_factor * ra_prev) {
                    const double a_next = (1 + sqrt(1 + 4 * a * a)) / 2;
                    const double beta = (a - 1) / a_next;
                    for (int i = 0; i < n; i++) {
                        yhat[i] = y[i] + beta * (y[i] - y_prev[i]);
                        zhat[i] = z[i] + beta * (z[i] - z_prev[i]);
                    }
                    a = a_next;
                    ra_prev = ra;
                } else {
                    a = 1;
                    memcpy(yhat, y_prev, nn * sizeof(double));
                    memcpy(zhat, z_prev, nn * sizeof(double));
                    ra_prev = ra_prev / s->restart_factor;
                }
            } else {
                memcpy(yhat, y, nn * sizeof(double));
                memcpy(zhat, z, nn * sizeof(double));
            }
            memcpy(y_prev, y, nn * sizeof(double));
            memcpy(z_prev, z, nn * sizeof(double));
            memcpy(x_prev, x, nn * sizeof(double));
        }
    }
    if (k > s->max_iterations) {
        k = s->max_iterations;
    }

    // unscale: lambda = P y, v+ = D lambda + vf
    for (int i = 0; i < n; i++) {
        lambda[i] = pc[i] * y[i];
    }
    // (D symmetric, its lower triangle inside the envelope: row i adds D_ij lambda_j to v+_i
    // and D_ij lambda_i to v+_j)
    for (int i = 0; i < n && !vplus_done; i++) {
        vplus[i] = p->vf[i];
    }
    for (int i = 0; i < n && !vplus_done; i++) {
        const double* Di = p->D + (size_t)i * nn;
        double v = Di[i] * lambda[i];
        for (int j = row_first(p->env, i); j < i; j++) {
            v += Di[j] * lambda[j];
            vplus[j] += Di[j] * lambda[i];
        }
        vplus[i] += v;
    }
    status->converged = converged;
    status->iterations = k;
    status->rho = rho;
    status->r_p = r_p;
    status->r_d = r_d;
    status->r_c = r_c;
    if (!all_finite(lambda, nn) || !all_finite(vplus, nn)) {
        status->r_p = NAN;
        status->r_d = NAN;
        status->r_c = NAN;
        return GDN_ERR_NONFINITE;
    }
    return GDN_OK;
}
