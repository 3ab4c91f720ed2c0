// SPDX-License-Identifier: Apache-2.0
// MuJoCo 2.2.2 oracle for tests: one model loaded in both engines, shared random states.
#ifndef GDN_TEST_ORACLE_H
#define GDN_TEST_ORACLE_H

#include <gradyn/gradyn.h>
#include <mujoco/mujoco.h>

// MuJoCo's own humanoid (Debian libmujoco-samples)
#define GDN_ORACLE_MJ_HUMANOID "/usr/share/mujoco/model/humanoid/humanoid.xml"

// the MJCF test models in tests/models, in a fixed order
extern const char* const gdn_oracle_models[];
extern const int gdn_oracle_nmodels;

// a model and its data in both engines; MuJoCo runs with mjDSBL_CONSTRAINT set
typedef struct gdnOracle {
    char path[1024];
    const char* name; // file name part of path
    gdnModel* gm;
    gdnData* gd;
    mjModel* mm;
    mjData* md;
    int warnings_at_load; // process-wide MuJoCo warning count before this model loaded
} gdnOracle;

// what gdn_oracle_random_state fills (the rest is zeroed)
enum {
    GDN_RAND_QPOS = 1 << 0, // hinge/slide uniform, ball/free random unit quaternion
    GDN_RAND_QVEL = 1 << 1,
    GDN_RAND_CTRL = 1 << 2, // ctrlrange widened by 20% so clamping is exercised
    GDN_RAND_QFRC = 1 << 3, // qfrc_applied
    GDN_RAND_XFRC = 1 << 4, // xfrc_applied on every body but the world
    GDN_RAND_ALL = 0x1f
};

// load path in both engines; constraints disabled in both. Any MuJoCo warning (load or run
// time, captured through mju_user_warning) is counted by gdn_oracle_warnings. Returns 0 on
// success, else prints the reason to stderr and returns 1 (o is then freed).
int gdn_oracle_load(gdnOracle* o, const char* path);

// gdn_oracle_load with the constraints on in both engines, the Newton solver to tolerance 1e-12
// (1000 iterations) and no warm start: the solves then agree to their accuracy
int gdn_oracle_load_tight(gdnOracle* o, const char* path);

// how gradyn's model is made: by gdn_load_xml (loader and dynamics under test) or copied from
// MuJoCo's compiled model (dynamics under test alone)
typedef enum gdnOracleSource { GDN_ORACLE_FROM_XML = 0, GDN_ORACLE_FROM_MJMODEL } gdnOracleSource;

// gdn_oracle_load with a choice of source for gradyn's model
int gdn_oracle_load_from(gdnOracle* o, const char* path, gdnOracleSource source);

void gdn_oracle_free(gdnOracle* o);

// MuJoCo warnings raised since o was loaded (compiler and run time) plus those counted in
// o->md->warning
int gdn_oracle_warnings(const gdnOracle* o);

// reset both datas, then draw the inputs selected by what into gradyn's data and copy them to
// MuJoCo's; vel_scale bounds |qvel|, |qfrc_applied| and |xfrc_applied| components
void gdn_oracle_random_state(gdnOracle* o, unsigned long long* rng, int what, double vel_scale);

// copy gradyn's qpos, qvel, ctrl, qfrc_applied, xfrc_applied, qacc and time into MuJoCo's data
void gdn_oracle_copy_state(gdnOracle* o);

// dense nv x nv mass matrix of MuJoCo's current qM (needs mj_forward or mj_crb first)
void gdn_oracle_full_m(const gdnOracle* o, double* dense);

// the larger of a running worst and a new error, NaN propagating (fmax would drop a NaN error)
static inline double gdn_oracle_worst(double worst, double error) {
    return error <= worst ? worst : error;
}

// ||qa (-) qb||_inf in MuJoCo's tangent space (mj_differentiatePos), nv scratch from the caller
double gdn_oracle_qpos_distance(const gdnOracle* o, const double* qa, const double* qb,
                                double* scratch);

// max_i |a_i - b_i| over a unit quaternion pair, the smaller of q and -q
double gdn_oracle_quat_distance(const double a[4], const double b[4]);

// running worst error per named quantity, printed as one table line per model
#define GDN_ORACLE_MAXQ 24
typedef struct gdnWorst {
    int n;
    const char* name[GDN_ORACLE_MAXQ];
    double err[GDN_ORACLE_MAXQ];
    int failures; // comparisons above tolerance (gdn_worst_check)
} gdnWorst;

// record err for quantity name (the first call with a name adds it)
void gdn_worst_add(gdnWorst* w, const char* name, double err);

// err = ||a - b||_inf / max(||b||_inf, floor), recorded under name; above tol it counts a
// failure and (for the first few) prints model, sample, quantity and the worst index.
// Returns 1 when within tol
int gdn_worst_check(gdnWorst* w, const char* model, int sample, const char* name, const double* a,
                    const double* b, int n, double floor_, double tol);

// record an already computed error err under name, with the same failure accounting
int gdn_worst_check_err(gdnWorst* w, const char* model, int sample, const char* name, double err,
                        double tol);

// largest recorded error over every quantity
double gdn_worst_max(const gdnWorst* w);

// print "model: name=err name=err ..." to stdout
void gdn_worst_print(const gdnWorst* w, const char* model);

#endif
