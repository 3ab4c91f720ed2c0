// SPDX-License-Identifier: Apache-2.0
// Rollout FD harness: a random rollout problem, its adjoint, and Richardson central FD per entry.
#ifndef GDN_TEST_RUNNER_ROLLOUT_FD_H
#define GDN_TEST_RUNNER_ROLLOUT_FD_H

#include <gradyn/adjoint.h>
#include <gradyn/gradyn.h>

// the inputs an FD entry perturbs: tangent q0, v0, controls (flat T x nu), inertia parameters
// (canonical packing, GDN_N_INERTIA_PARAMS per body), mesh vertices (body frame)
typedef enum gdnFdChannel {
    GDN_FD_Q0,
    GDN_FD_V0,
    GDN_FD_U,
    GDN_FD_PARAM,
    GDN_FD_VERT
} gdnFdChannel;

// a rollout from (q0, v0, u) with an objective, its tape and the adjoint's answer; with the
// branch check armed (gdn_fd_record_rows), every later rollout is compared with the recorded
// rows step by step
typedef struct gdnFdProblem {
    const char* name;
    gdnModel* m; // owned: freed with the problem
    int T;
    double* q0;   // (nq)
    double* v0;   // (nv)
    double* u;    // (T x nu)
    double* xfrc; // (nbody x 6), for r.xfrc_applied
    gdnRollout r;
    gdnObjective obj;
    gdnTargetObjective target;
    gdnTape* tape;
    gdnAdjointGradients g; // the adjoint's answer (q0, v0, u, pi, vert)
    double h;              // FD step of q0, v0, u, vert
    double hpi;            // FD step scale of the inertia parameters
    int pi_mask;           // which inertia parameters a caller compares: bit k for entry k
    int q0_renormalize;    // 1: q0 is put back after each q0 entry through gdn_integrate_pos
                           // by 0 (renormalizing its quaternions), 0: copied back bit for bit
    int name_width, label_width, count_width; // the block lines' field widths
    // the recorded rows per step, for the branch check
    int* nefc;  // (T)
    int* ncon;  // (T)
    int* off;   // (T + 1) offsets into type, state
    int* type;
    int* state;
    int recorded;     // 1 once the rows are recorded
    int branch_fails; // rollouts whose rows differed from the recorded ones at some step
    int first_t;      // the first step that differed (for the message)
} gdnFdProblem;

// terminal cost in qpos coordinates: g = sum_i (a_i q_i + b_i q_i^2) + sum_i c_i v_i^2
gdnStatus gdn_fd_terminal_cost(const gdnModel* m, gdnData* s, int t, void* user, double* value,
                               double* gq, double* gv, double* gu);

// running cost: l = w (sum_i a_i q_i^2 + sum_i b_i v_i + 0.2 sum_k u_k^2), w = 0.01
gdnStatus gdn_fd_running_cost(const gdnModel* m, gdnData* s, int t, void* user, double* value,
                              double* gq, double* gv, double* gu);

// q0 = q_base (qpos0 when NULL) (+) uniform(+-qamp) tangent, v0 = v_base (0 when NULL) +
// uniform(+-vamp), controls uniform(+-uamp) from seed; objective gdn_fd_terminal_cost +
// gdn_fd_running_cost; h = hpi = 1e-5, every inertia parameter, widths 22 3 4. Takes m.
// Returns 1 on success, 0 on failure
int gdn_fd_problem_init(gdnFdProblem* p, const char* name, gdnModel* m, int T,
                        unsigned long long seed, const double* q_base, double qamp,
                        const double* v_base, double vamp, double uamp);
void gdn_fd_problem_free(gdnFdProblem* p);

// J of the rollout from the current inputs (NaN on failure); counts a branch change once armed
double gdn_fd_objective(gdnFdProblem* p);

// the adjoint into p->g; returns 1 on success, 0 on failure (message on stderr)
int gdn_fd_gradient(gdnFdProblem* p);

// the adjoint, then its J finite and bit-equal to a fresh rollout's; returns 0 on success
int gdn_fd_gradient_checked(gdnFdProblem* p);

// record the rows of every step of the last rollout and arm the branch check (GDN_TEST_DUMP:
// print them); returns 0 on success
int gdn_fd_record_rows(gdnFdProblem* p);

// the first step whose rows differ from the recorded ones, or -1
int gdn_fd_branch_change(const gdnFdProblem* p);

// Richardson-extrapolated central difference (4 D(h/2) - D(h)) / 3 of J along entry i of ch;
// the step: h, or for the inertia parameters hpi m_b (mass), hpi (COM), hpi max(1, tr(I_b) / 3)
// (inertia entries). The inputs are restored afterwards (the inertia to round-off, q0 per
// q0_renormalize)
double gdn_fd_entry(gdnFdProblem* p, gdnFdChannel ch, int i);

// the adjoint block adj vs FD on the listed entries: prints name, label, count, |fd|max and the
// relative error (floor_), the worst entry when it exceeds tol (or GDN_TEST_VERBOSE); returns
// the relative error (NaN on failure)
double gdn_fd_block(gdnFdProblem* p, gdnFdChannel ch, const char* label, const double* adj,
                    const int* idx, int count, double floor_, double tol);

#endif
