// SPDX-License-Identifier: Apache-2.0
// Closed-form references for Kamino's acceptance scenes (kamino.md 6.3): the four-bar's
// Freudenstein output angle, the offset slider-crank's slider position, the sliding box's
// discrete (semi-implicit Euler) solution, slide-to-roll, bounce height, stack impulses.
#ifndef GDN_TEST_RUNNER_KAMINO_REFERENCE_H
#define GDN_TEST_RUNNER_KAMINO_REFERENCE_H

// tests/models/kamino_mech_fourbar.xml: ground O2 -> O4 along +x, crank O2 -> A, coupler A -> B,
// rocker O4 -> B (m); angles counterclockwise in the x-z plane from +x (hinges about -y)
#define KREF_FOURBAR_GROUND 0.38
#define KREF_FOURBAR_CRANK 0.1
#define KREF_FOURBAR_COUPLER 0.346
#define KREF_FOURBAR_ROCKER 0.374

// tests/models/kamino_mech_slidercrank.xml: crank radius r, rod length l, slider line offset e
// above the crank pivot (m)
#define KREF_SLIDER_CRANK 0.1
#define KREF_SLIDER_ROD 0.25
#define KREF_SLIDER_OFFSET 0.07

// a four-bar's link lengths (any unit)
typedef struct gdnKrefFourbar {
    double ground, crank, coupler, rocker;
} gdnKrefFourbar;

// the model's four-bar (KREF_FOURBAR_*)
gdnKrefFourbar gdn_kref_fourbar_model(void);

// Grashof's condition s + l <= p + q with the crank the shortest link: the crank turns fully and
// the rocker rocks (1), else 0
int gdn_kref_fourbar_is_crank_rocker(const gdnKrefFourbar* fb);

// Freudenstein's residual K1 cos(t4) - K2 cos(t2) + K3 - cos(t2 - t4), K1 = d/a, K2 = d/c,
// K3 = (a^2 - b^2 + c^2 + d^2) / (2 a c) (a crank, b coupler, c rocker, d ground): zero on the
// closed loop
double gdn_kref_freudenstein_residual(const gdnKrefFourbar* fb, double theta2, double theta4);

// the output (rocker) angle for crank angle theta2: of the two roots of the Freudenstein equation
// the one nearest theta4_prev, returned within pi of it (so a sweep of theta2 that passes the
// previous answer stays on one assembly branch and is continuous, 2 pi unwrapped); NaN when the
// loop cannot close at theta2
double gdn_kref_fourbar_output(const gdnKrefFourbar* fb, double theta2, double theta4_prev);

// the coupler angle theta3 (direction A -> B) for crank theta2 and rocker theta4
double gdn_kref_fourbar_coupler(const gdnKrefFourbar* fb, double theta2, double theta4);

// slider position along the slider line from the crank pivot:
// x = r cos(theta) + sqrt(l^2 - (r sin(theta) - e)^2); NaN when the rod cannot reach
double gdn_kref_slider_x(double r, double l, double e, double theta);

// free fall from rest at height z0 under semi-implicit Euler (v first, then z with the new v):
// after n steps v_n = -n g h, z_n = z0 - n (n + 1) g h^2 / 2
void gdn_kref_free_fall(double z0, double g, double h, int n, double* v, double* z);

// the box sliding with friction mu from v0 > 0 under semi-implicit Euler with step h (normal
// impulse m g h, friction impulse at most mu m g h per step): speed and distance after k steps,
// v_k = max(0, v0 - mu g h k), x_k = v0 h k' - mu g h^2 k' (k' + 1) / 2 with k' = min(k, k* - 1)
void gdn_kref_slide(double v0, double mu, double g, double h, int k, double* v, double* x);

// the step k* = ceil(v0 / (mu g h)) at which the sliding box's speed first reaches 0
int gdn_kref_slide_stop_step(double v0, double mu, double g, double h);

// the continuous stopping distance v0^2 / (2 mu g)
double gdn_kref_slide_stop_distance(double v0, double mu, double g);

// acceleration down an incline of angle theta: 0 when tan(theta) <= mu (it holds), else
// g (sin(theta) - mu cos(theta))
double gdn_kref_incline_accel(double theta, double mu, double g);

// slide-to-roll: the final rolling speed v0 / (1 + I / (m r^2)) of a body launched sliding at
// v0 without spin (i_ratio = I / (m r^2), 2/5 for a solid sphere: 5/7 v0), and the time
// 2 v0 / (7 mu g) at which a solid sphere starts rolling (in general
// v0 i_ratio / (mu g (1 + i_ratio)))
double gdn_kref_roll_speed(double v0, double i_ratio);
double gdn_kref_roll_time(double v0, double mu, double g, double i_ratio);

// the rebound height e^2 h of a ball dropped from height h with restitution e
double gdn_kref_bounce_height(double e, double h);

// a stack of n equal boxes (mass m) at rest, step h: the normal impulse per step through
// interface k (0 = ground, k = under box k) is (n - k) m g h, written to impulse[k] when it is
// not NULL; returns the sum over all interfaces, n (n + 1) / 2 m g h
double gdn_kref_stack_impulses(int n, double m, double g, double h, double* impulse);

// the creep metric both formulations report on a scene that should hold still: feed the slipping
// body's position (relative to what holds it) after every step k = 1..nstep; the mean slip speed
// is over the last tail fraction of the run
typedef struct gdnKrefCreep {
    int nstep, ktail; // steps in the run, the step that starts the tail
    double h;         // time step, s
    double p0[3], pt[3], prev[3], last[3];
    double speed;     // |p(T) - p(start of the tail)| / (tail duration), m/s: the mean slip
    double speed_max; // largest per-step |dp| / h over the tail, m/s
    double drift;     // |p(T) - p(0)|, m: the whole run's slip
} gdnKrefCreep;

// start a run of nstep steps of h with the position p0 before the first step
void gdn_kref_creep_begin(gdnKrefCreep* c, int nstep, double h, double tail, const double p0[3]);

// the position after step k (1-based, in order); fills speed, speed_max, drift at k == nstep
void gdn_kref_creep_sample(gdnKrefCreep* c, int k, const double p[3]);

#endif
