// SPDX-License-Identifier: Apache-2.0
// The contact-parameter channels (geom friction, solref, solimp, size; explicit pair friction,
// solref, solimp) of the constrained step VJP and the trajectory adjoint vs central finite
// differences of the edited model (the gdn_model_set_* setters), the step JVP in a direction of
// every channel (FD and <w, JVP> = <VJP w, dir>), structural zeros, and MuJoCo's humanoid
// falling (200 steps, every 3rd entry of every channel).
//
// Finite differences: the fourth-order central stencil (8 (J(e) - J(-e)) - (J(2e) - J(-2e))) /
// 12 e with e = 1e-3 max(|theta|, 1e-2) per parameter. A parameter moves one step's state by
// ~h^2 times its force share, so dJ/dtheta is ~1e-5 of J's scale on a step: the round-off of J
// (~1e-16) over e leaves ~1e-16 / (1e-5 e) ~ 1e-8 relative at e ~ 1e-3 theta, while the stencil's
// truncation (e / theta)^4 ~ 1e-12 relative. The solve runs to tolerance 1e-14 (Newton: to
// round-off). A sample counts only when all four FD runs keep the unperturbed run's row count
// and row states at every step (one branch); errors are relative to the channel's largest FD
// entry.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gradyn/adjoint.h>
#include <gradyn/derivative.h>
#include <gradyn/gradyn.h>

#include "constraint/rows_param_derivative.h"
#include "gradient/step_constrained.h"
#include "runner/test.h"

#define MJ_HUMANOID "/usr/share/mujoco/model/humanoid/humanoid.xml"
#define STEP_TOL 1e-6
#define TRAJ_TOL 1e-5
#define MAXN 64

// ---------------------------------------------------------------- the channels

enum { CH_GFR, CH_GREF, CH_GIMP, CH_GSIZE, CH_PFR, CH_PREF, CH_PIMP, NCH };
static const char* kChName[NCH] = {"geom_friction", "geom_solref", "geom_solimp", "geom_size",
                                   "pair_friction", "pair_solref", "pair_solimp"};
static const int kChPer[NCH] = {3, 2, 5, 3, 5, 2, 5};

static int ch_count(const gdnModel* m, int ch) {
    return ch <= CH_GSIZE ? m->ngeom : m->npair;
}

static double* ch_values(const gdnModel* m, int ch) {
    switch (ch) {
    case CH_GFR:
        return m->geom_friction;
    case CH_GREF:
        return m->geom_solref;
    case CH_GIMP:
        return m->geom_solimp;
    case CH_GSIZE:
        return m->geom_size;
    case CH_PFR:
        return m->pair_friction;
    case CH_PREF:
        return m->pair_solref;
    default:
        return m->pair_solimp;
    }
}

static gdnStatus ch_set(gdnModel* m, int ch, int obj, const double* v) {
    switch (ch) {
    case CH_GFR:
        return gdn_model_set_geom_friction(m, obj, v);
    case CH_GREF:
        return gdn_model_set_geom_solref(m, obj, v);
    case CH_GIMP:
        return gdn_model_set_geom_solimp(m, obj, v);
    case CH_GSIZE:
        return gdn_model_set_geom_size(m, obj, v);
    case CH_PFR:
        return gdn_model_set_pair_friction(m, obj, v);
    case CH_PREF:
        return gdn_model_set_pair_solref(m, obj, v);
    default:
        return gdn_model_set_pair_solimp(m, obj, v);
    }
}

// gradient arrays of every channel, one block
typedef struct {
    double* g[NCH];
    double buf[NCH][5 * MAXN];
} Grads;

static void grads_bind(Grads* G, gdnContactParamGradients* cp) {
    memset(G->buf, 0, sizeof(G->buf));
    for (int c = 0; c < NCH; c++) {
        G->g[c] = G->buf[c];
    }
    cp->geom_friction = G->g[CH_GFR];
    cp->geom_solref = G->g[CH_GREF];
    cp->geom_solimp = G->g[CH_GIMP];
    cp->geom_size = G->g[CH_GSIZE];
    cp->pair_friction = G->g[CH_PFR];
    cp->pair_solref = G->g[CH_PREF];
    cp->pair_solimp = G->g[CH_PIMP];
}

// ---------------------------------------------------------------- scenes

typedef struct {
    const char* name;
    const char* xml;
    int cone;
    int t0;       // steps before the per-step check point
    int T;        // trajectory length (from the initial state)
    double q0z;   // initial height of body 1
    double v0[6]; // initial velocity of body 1 (free joint)
    int zero_geom; // a geom that never touches (its friction and size gradients must be
                   // exactly 0), -1 for none
    int condim3;  // 1: every contact has condim 3 (spin and roll gradients exactly 0)
    int settle;   // steps at rest (from height q0z) before v0 is added: the initial state
    const char* file; // the model file when xml is NULL (q0z 0: its qpos0 as is)
    int stride;       // every stride-th entry of each channel is compared
    double fd_factor; // the trajectory FD step's factor (0: 1)
    int traj_no_size; // 1: the trajectory's geom_size is reported, not gated (see the scene)
} Scene;

#define FLOOR                                                                                 \
    "<geom name='floor' type='plane' size='5 5 0.1' friction='0.6 0.011 0.0021' "              \
    "solref='0.03 1.1' solimp='0.85 0.96 0.01 0.4 2.5' solmix='1.5'/>"
#define FAR                                                                                   \
    "<body name='far' pos='3 0 20'><freejoint/><inertial pos='0 0 0' mass='0.5' "              \
    "diaginertia='0.002 0.002 0.002'/><geom name='far' type='sphere' size='0.1' "              \
    "friction='0.7 0.03 0.004'/></body>"

static const char kCapsule[] =
    "<mujoco><option timestep='0.002' tolerance='1e-14' iterations='200'/>"
    "<worldbody>" FLOOR
    "<body name='cap' pos='0 0 0.05'><freejoint/>"
    "<inertial pos='0 0 0' mass='1' diaginertia='0.01 0.012 0.008'/>"
    "<geom name='cap' type='capsule' size='0.05 0.15' euler='0 90 0' friction='0.9 0.02 0.003' "
    "solref='0.025 0.9' solimp='0.8 0.94 0.012 0.6 3' solmix='2'/></body>"
    FAR "</worldbody></mujoco>";

// the capsule's body takes its inertia from its geoms: the capsule (density) and a tilted,
// offset box of given mass that never touches (contype 0); the far body too (density)
static const char kCapsuleGeomInertia[] =
    "<mujoco><option timestep='0.002' tolerance='1e-14' iterations='200'/>"
    "<worldbody>" FLOOR
    "<body name='cap' pos='0 0 0.05'><freejoint/>"
    "<geom name='cap' type='capsule' size='0.05 0.15' euler='0 90 0' density='800' "
    "friction='0.9 0.02 0.003' solref='0.025 0.9' solimp='0.8 0.94 0.012 0.6 3' solmix='2'/>"
    "<geom name='lid' type='box' size='0.03 0.02 0.01' pos='0.05 0.01 0.07' euler='10 20 30' "
    "mass='0.3' contype='0' conaffinity='0'/></body>"
    "<body name='far' pos='3 0 20'><freejoint/><geom name='far' type='sphere' size='0.1' "
    "friction='0.7 0.03 0.004'/></body>"
    "</worldbody></mujoco>";

static const char kSphere6[] =
    "<mujoco><option timestep='0.002' tolerance='1e-14' iterations='200'/>"
    "<worldbody>" FLOOR
    "<body name='ball' pos='0 0 0.1'><freejoint/>"
    "<inertial pos='0 0 0' mass='1' diaginertia='0.004 0.004 0.004'/>"
    "<geom name='ball' type='sphere' size='0.1' condim='6' friction='0.8 0.02 0.003' "
    "solref='0.025 0.9' solimp='0.8 0.94 0.012 0.6 3' priority='1'/></body>"
    FAR "</worldbody></mujoco>";

static const char kPair[] =
    "<mujoco><option timestep='0.002' tolerance='1e-14' iterations='200'/>"
    "<worldbody>" FLOOR
    "<body name='ball' pos='0 0 0.1'><freejoint/>"
    "<inertial pos='0 0 0' mass='1' diaginertia='0.004 0.004 0.004'/>"
    "<geom name='ball' type='sphere' size='0.1'/></body>"
    FAR "</worldbody><contact><pair geom1='floor' geom2='ball' condim='4' "
    "friction='0.7 0.5 0.015 0.002 0.003' solref='0.028 1.05' "
    "solimp='0.82 0.93 0.011 0.45 2.2'/></contact></mujoco>";

static const char kPairDirect[] =
    "<mujoco><option timestep='0.002' tolerance='1e-14' iterations='200'/>"
    "<worldbody>" FLOOR
    "<body name='ball' pos='0 0 0.1'><freejoint/>"
    "<inertial pos='0 0 0' mass='1' diaginertia='0.004 0.004 0.004'/>"
    "<geom name='ball' type='sphere' size='0.1'/></body>"
    FAR "</worldbody><contact><pair geom1='floor' geom2='ball' condim='3' "
    "friction='0.7 0.5 0.015 0.002 0.003' solref='-3000 -40' "
    "solimp='0.82 0.93 0.011 0.45 2.2'/></contact></mujoco>";

static const char kBounce[] =
    "<mujoco><option timestep='0.002' tolerance='1e-14' iterations='200'/>"
    "<worldbody>" FLOOR
    "<body name='ball' pos='0 0 0.1'><freejoint/>"
    "<inertial pos='0 0 0' mass='1' diaginertia='0.004 0.004 0.004'/>"
    "<geom name='ball' type='sphere' size='0.1' friction='0.8 0.02 0.003' "
    "solref='0.02 0.3' solimp='0.7 0.95 0.02 0.5 2' solmix='0.5'/></body>"
    FAR "</worldbody></mujoco>";

// a scene from its XML: name, xml, cone, t0, T, q0z, zero_geom, condim3, settle, then v0's six
// entries; every entry compared, the trajectory FD step as the step's, every channel gated
#define XML_SCENE(name, xml, cone, t0, T, q0z, zero_geom, condim3, settle, ...)                \
    {name, xml, cone, t0, T, q0z, {__VA_ARGS__}, zero_geom, condim3, settle, NULL, 1, 0, 0}
// the same scene under both cones, pyramidal first ("_pyramidal", "_elliptic" appended)
#define BOTH_CONES(name, xml, ...)                                                            \
    XML_SCENE(name "_pyramidal", xml, GDN_CONE_PYRAMIDAL, __VA_ARGS__),                       \
        XML_SCENE(name "_elliptic", xml, GDN_CONE_ELLIPTIC, __VA_ARGS__)

static const Scene kScenes[] = {
    BOTH_CONES("capsule_slide", kCapsule, 40, 60, 0.046, 2, 1, 400, 0.4, 0.1, 0, 0, 0, 0),
    BOTH_CONES("sphere_condim6", kSphere6, 30, 50, 0.096, 2, 0, 400, 0.5, -0.2, 0, 0, 0, 1.5),
    XML_SCENE("sphere_rest_condim6_elliptic", kSphere6, GDN_CONE_ELLIPTIC, 30, 50, 0.096, 2, 0,
              400, 0, 0, 0, 0, 0, 0),
    BOTH_CONES("pair_condim4", kPair, 30, 50, 0.096, 2, 0, 400, 0.5, -0.2, 0, 0, 0, 1.5),
    XML_SCENE("pair_direct_elliptic", kPairDirect, GDN_CONE_ELLIPTIC, 30, 50, 0.096, 2, 1, 400,
              0.8, -0.2, 0, 0, 0, 0),
    XML_SCENE("capsule_geom_inertia", kCapsuleGeomInertia, GDN_CONE_PYRAMIDAL, 40, 60, 0.046, 3,
              1, 400, 0.4, 0.1, 0, 0, 0, 0),
    XML_SCENE("sphere_bounce", kBounce, GDN_CONE_PYRAMIDAL, 60, 120, 0.2, 2, 1, 0, 0.3, 0, -1, 0,
              0, 0),
    // MuJoCo's humanoid falling from its initial pose (feet land near step 38, it collapses):
    // every 3rd entry of every channel (every geom's radius). The collapse amplifies
    // perturbations (|dJ/dq0| ~ 5e3), so the trajectory's FD step is 3e-2 of the others (3e-6
    // relative; test_contact_gradient's humanoid_fall takes h = 1e-7 for the same reason): at
    // 1e-7 round-off leaves 2e-6 .. 4e-5, at 1e-5 contacts cross activation. The trajectory's
    // geom_size is reported, not gated: each foot's two capsules are mirror images, so the foot's
    // inertia is exactly diagonal in its body frame, and the compiler's principal-axis solve (the
    // setters reproduce it bit for bit) returns the identity rotation for a perturbation of one
    // capsule's radius below ~1e-6 m: the edited model's product of inertia Ixy stays exactly 0
    // (FD of the setter: dIxy/dr = 0 at steps 1e-8, 1e-7 m; -0.02337540 at 1e-5 m, where it meets
    // the exact -0.02337548). The FD oracle therefore misses that term at the small steps this
    // chaotic trajectory needs (the feet capsules' radii off by 4e-5 of their value; the contact
    // part matches FD to 1e-11 and the inertia part matches FD of gdn_model_set_body_inertia along
    // the same direction to 1e-8)
    {"humanoid_fall", NULL, GDN_CONE_PYRAMIDAL, 60, 200, 0, {0, 0, 0, 0, 0, 0}, -1, 0, 0,
     MJ_HUMANOID, 3, 3e-2, 1},
};
#define NSCENE ((int)(sizeof(kScenes) / sizeof(kScenes[0])))

typedef struct {
    const Scene* s;
    gdnModel* m;
    gdnData* d;
    double q[MAXN], v[MAXN], warm[MAXN]; // the per-step point
    double qi[MAXN], vi[MAXN];           // the initial state
    double cq[MAXN], cv[MAXN];           // the objective's weights (qpos coordinates, qvel)
    int nefc_sig[512];                   // row count per step of the reference run
    int state_sig[512][256];             // row states per step (first 256 rows)
} Run;

static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;
static double urand(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0 * 2 - 1;
}

static int make_initial_state(Run* r);

static int scene_load(Run* r, const Scene* s) {
    memset(r, 0, sizeof(*r));
    r->s = s;
    rng_state = 0x9e3779b97f4a7c15ULL ^ (unsigned long long)strlen(s->name); // per scene
    char err[512];
    const gdnStatus st =
        s->xml ? gdn_load_xml_string(s->xml, strlen(s->xml), NULL, &r->m, err, (int)sizeof(err),
                                     NULL, 0)
               : gdn_load_xml(s->file, &r->m, err, (int)sizeof(err), NULL, 0);
    if (st != GDN_OK) {
        fprintf(stderr, "load %s: %s\n", s->name, err);
        return 1;
    }
    r->m->opt.cone = s->cone;
    r->m->opt.tolerance = 1e-14;
    r->m->opt.iterations = 200;
    if (gdn_data_create(r->m, &r->d) != GDN_OK || r->m->nq > MAXN) {
        return 1;
    }
    for (int i = 0; i < r->m->nq; i++) {
        r->cq[i] = urand();
    }
    for (int i = 0; i < r->m->nv; i++) {
        r->cv[i] = urand();
    }
    return make_initial_state(r);
}

static void scene_free(Run* r) {
    gdn_data_free(r->d);
    gdn_model_free(r->m);
}

// the initial state (body 1's free joint: settled from the scene's height, then given its
// velocity), computed once with the nominal parameters
static void initial_state(Run* r) {
    gdn_data_reset(r->m, r->d);
    memcpy(r->d->qpos, r->qi, sizeof(double) * (size_t)r->m->nq);
    memcpy(r->d->qvel, r->vi, sizeof(double) * (size_t)r->m->nv);
}

static int make_initial_state(Run* r) {
    gdn_data_reset(r->m, r->d);
    if (r->s->q0z > 0) {
        r->d->qpos[2] = r->s->q0z;
    }
    for (int t = 0; t < r->s->settle; t++) {
        CHECK(gdn_step(r->m, r->d) == GDN_OK);
    }
    memcpy(r->qi, r->d->qpos, sizeof(double) * (size_t)r->m->nq);
    memcpy(r->vi, r->d->qvel, sizeof(double) * (size_t)r->m->nv);
    for (int k = 0; k < 6; k++) {
        r->vi[k] += r->s->v0[k];
    }
    return 0;
}

static double objective(const Run* r) {
    double J = 0;
    for (int i = 0; i < r->m->nq; i++) {
        J += r->cq[i] * r->d->qpos[i];
    }
    for (int i = 0; i < r->m->nv; i++) {
        J += r->cv[i] * r->d->qvel[i];
    }
    return J;
}

// signature of the step just taken: 1 when it equals the reference's at index t (record
// when rec)
static int signature(Run* r, int t, int rec) {
    const int n = r->d->nefc < 256 ? r->d->nefc : 256;
    if (rec) {
        r->nefc_sig[t] = r->d->nefc;
        memcpy(r->state_sig[t], r->d->efc_state, sizeof(int) * (size_t)n);
        return 1;
    }
    return r->nefc_sig[t] == r->d->nefc &&
           memcmp(r->state_sig[t], r->d->efc_state, sizeof(int) * (size_t)n) == 0;
}

// per step: one step from the saved point; trajectory: T steps from the initial state.
// *same = the branch signature matched (rec: record it)
static double run_objective(Run* r, int traj, int rec, int* same) {
    *same = 1;
    if (traj) {
        initial_state(r);
        for (int t = 0; t < r->s->T; t++) {
            if (gdn_step(r->m, r->d) != GDN_OK) {
                return NAN;
            }
            *same &= signature(r, t, rec);
        }
    } else {
        gdn_data_reset(r->m, r->d);
        memcpy(r->d->qpos, r->q, sizeof(double) * (size_t)r->m->nq);
        memcpy(r->d->qvel, r->v, sizeof(double) * (size_t)r->m->nv);
        memcpy(r->d->qacc_warmstart, r->warm, sizeof(double) * (size_t)r->m->nv);
        if (gdn_step(r->m, r->d) != GDN_OK) {
            return NAN;
        }
        *same = signature(r, 0, rec);
    }
    return objective(r);
}

// linear terminal cost cq . q_T + cv . v_T (qpos coordinates)
static gdnStatus terminal_cost(const gdnModel* m, gdnData* scratch, int t, void* user,
                               double* value, double* gqpos, double* gqvel, double* gctrl) {
    (void)t, (void)gctrl;
    const Run* r = (const Run*)user;
    *value = 0;
    for (int i = 0; i < m->nq; i++) {
        *value += r->cq[i] * scratch->qpos[i];
        if (gqpos) {
            gqpos[i] = r->cq[i];
        }
    }
    for (int i = 0; i < m->nv; i++) {
        *value += r->cv[i] * scratch->qvel[i];
        if (gqvel) {
            gqvel[i] = r->cv[i];
        }
    }
    return GDN_OK;
}

// the analytic gradients: per step (gdn_step_vjp_contact_params at the point) or trajectory
static int analytic(Run* r, int traj, Grads* G) {
    gdnContactParamGradients cp;
    grads_bind(G, &cp);
    const int nv = r->m->nv;
    if (traj) {
        gdnRollout ro;
        gdn_rollout_init(r->m, r->s->T, &ro);
        initial_state(r);
        double q0[MAXN], v0[MAXN];
        memcpy(q0, r->d->qpos, sizeof(double) * (size_t)r->m->nq);
        memcpy(v0, r->d->qvel, sizeof(double) * (size_t)nv);
        ro.qpos0 = q0;
        ro.qvel0 = v0;
        static double ctrl[512 * MAXN]; // zero controls
        ro.ctrl = ctrl;
        gdnObjective obj;
        memset(&obj, 0, sizeof(obj));
        obj.terminal.fn = terminal_cost;
        obj.terminal.user = r;
        gdnTape* tape = NULL;
        char err[512] = "";
        CHECK(gdn_tape_create(r->m, r->s->T, 1, &tape, err, (int)sizeof(err)) == GDN_OK);
        gdnAdjointGradients out;
        memset(&out, 0, sizeof(out));
        static double gparam[GDN_N_INERTIA_PARAMS * MAXN];
        out.param = gparam; // geom_size chains through it where the inertia comes from geoms
        out.geom_friction = cp.geom_friction;
        out.geom_solref = cp.geom_solref;
        out.geom_solimp = cp.geom_solimp;
        out.geom_size = cp.geom_size;
        out.pair_friction = cp.pair_friction;
        out.pair_solref = cp.pair_solref;
        out.pair_solimp = cp.pair_solimp;
        gdnStatus st = gdn_adjoint_rollout_gradient(r->m, &ro, &obj, tape, &out, err,
                                                    (int)sizeof(err));
        gdn_tape_free(tape);
        if (st != GDN_OK) {
            fprintf(stderr, "  adjoint: %s: %s\n", gdn_status_string(st), err);
            return 1;
        }
        return 0;
    }
    // per step: the cotangent of (q', v') is (cq in the tangent at q', cv)
    int same;
    run_objective(r, 0, 1, &same);
    double gqn[MAXN];
    gdn_qpos_grad_to_tangent(r->m, r->d->qpos, r->cq, gqn);
    gdn_data_reset(r->m, r->d);
    memcpy(r->d->qpos, r->q, sizeof(double) * (size_t)r->m->nq);
    memcpy(r->d->qvel, r->v, sizeof(double) * (size_t)nv);
    memcpy(r->d->qacc_warmstart, r->warm, sizeof(double) * (size_t)nv);
    double gq[MAXN], gv[MAXN];
    gdnStatus st = gdn_step_vjp_contact_params(r->m, r->d, gqn, r->cv, gq, gv, NULL, NULL, NULL,
                                               &cp);
    if (st != GDN_OK) {
        fprintf(stderr, "  step vjp: %s\n", gdn_status_string(st));
        return 1;
    }
    return 0;
}

// every channel's every entry against central FD; worst relative errors per channel
static int check_fd(Run* r, int traj, const Grads* G, double worst[NCH], int* counted,
                    int* skipped) {
    int same;
    const double J0 = run_objective(r, traj, 1, &same);
    CHECK(isfinite(J0));
    for (int ch = 0; ch < NCH; ch++) {
        const int per = kChPer[ch], n = ch_count(r->m, ch);
        double fd[5 * MAXN];
        int ok[5 * MAXN] = {0};
        double scale = 0;
        for (int o = 0; o < n; o++) {
            for (int k = 0; k < per; k++) {
                if ((per * o + k) % r->s->stride != 0) {
                    continue;
                }
                double* val = ch_values(r->m, ch) + per * o;
                double v0[5], vp[5];
                memcpy(v0, val, sizeof(double) * (size_t)per);
                // sizes: relative to the penetration (~1e-3 m) that the impedance and the
                // contact force are nonlinear in, not to the size
                // trajectories: parameters move J at O(1) (not h^2), so round-off allows a
                // 10x smaller step, which an impact's sensitivity (bounce) needs
                const double f = (getenv("GDN_TEST_EPS") ? atof(getenv("GDN_TEST_EPS"))
                                  : traj                ? 0.1
                                                        : 1) *
                                 (traj && r->s->fd_factor > 0 ? r->s->fd_factor : 1);
                const double eps = f * (ch == CH_GSIZE ? 1e-6 : 1e-3 * fmax(fabs(v0[k]), 1e-2));
                static const double kOff[4] = {1, -1, 2, -2};
                double Jpm[4];
                int branch = 1, set_ok = 1;
                for (int sgn = 0; sgn < 4 && set_ok; sgn++) {
                    memcpy(vp, v0, sizeof(double) * (size_t)per);
                    vp[k] += kOff[sgn] * eps;
                    gdnStatus sst = ch_set(r->m, ch, o, vp);
                    if (sst != GDN_OK) {
                        if (getenv("GDN_TEST_VERBOSE")) {
                            fprintf(stderr, "    setter: %s\n", gdn_status_string(sst));
                        }
                        set_ok = 0;
                        break;
                    }
                    int s1;
                    Jpm[sgn] = run_objective(r, traj, 0, &s1);
                    branch &= s1;
                }
                CHECK(ch_set(r->m, ch, o, v0) == GDN_OK);
                const int idx = per * o + k;
                ok[idx] = set_ok && branch;
                fd[idx] = ok[idx] ? (8 * (Jpm[0] - Jpm[1]) - (Jpm[2] - Jpm[3])) / (12 * eps) : 0;
                *counted += ok[idx];
                *skipped += !ok[idx];
                if (ok[idx]) {
                    scale = fmax(scale, fabs(fd[idx]));
                }
                if (getenv("GDN_TEST_VERBOSE")) {
                    fprintf(stderr, "    %s[%d][%d]: %.12g fd %.12g%s\n", kChName[ch], o, k,
                            G->g[ch][idx], fd[idx], ok[idx] ? "" : " (skipped)");
                }
            }
        }
        for (int idx = 0; idx < per * n; idx++) {
            if (ok[idx]) {
                const double e = fabs(G->g[ch][idx] - fd[idx]) / fmax(scale, 1e-12);
                worst[ch] = fmax(worst[ch], e);
            }
        }
    }
    return 0;
}

// structural zeros: the far geom's friction, condim 3's spin and roll
static int check_zeros(const Run* r, const Grads* G) {
    if (r->s->zero_geom >= 0) {
        for (int k = 0; k < 3; k++) {
            CHECK(G->g[CH_GFR][3 * r->s->zero_geom + k] == 0.0);
            // (its size moves its own inertia when that comes from its geom)
            CHECK(r->m->geom_inertial[r->s->zero_geom] ||
                  G->g[CH_GSIZE][3 * r->s->zero_geom + k] == 0.0);
        }
    }
    if (r->s->condim3) {
        for (int g = 0; g < r->m->ngeom; g++) {
            CHECK(G->g[CH_GFR][3 * g + 1] == 0.0 && G->g[CH_GFR][3 * g + 2] == 0.0);
        }
        for (int p = 0; p < r->m->npair; p++) {
            for (int k = 2; k < 5; k++) {
                CHECK(G->g[CH_PFR][5 * p + k] == 0.0);
            }
        }
    }
    return 0;
}

static int check_scene(const Scene* s, int traj) {
    if (getenv("GDN_TEST_SCENE") && !strstr(s->name, getenv("GDN_TEST_SCENE"))) {
        return 0; // (a diagnostic filter)
    }
    Run r;
    CHECK(scene_load(&r, s) == 0);
    // the per-step point: t0 steps from the initial state
    initial_state(&r);
    const int t0 = getenv("GDN_TEST_T0") ? atoi(getenv("GDN_TEST_T0")) : s->t0; // (diagnostic)
    for (int t = 0; t < t0; t++) {
        CHECK(gdn_step(r.m, r.d) == GDN_OK);
    }
    memcpy(r.q, r.d->qpos, sizeof(double) * (size_t)r.m->nq);
    memcpy(r.v, r.d->qvel, sizeof(double) * (size_t)r.m->nv);
    memcpy(r.warm, r.d->qacc_warmstart, sizeof(double) * (size_t)r.m->nv);
    const int ncon = r.d->ncon, nefc = r.d->nefc;
    CHECK(nefc > 0);
    Grads G;
    CHECK(analytic(&r, traj, &G) == 0);
    double worst[NCH] = {0};
    int counted = 0, skipped = 0;
    CHECK(check_fd(&r, traj, &G, worst, &counted, &skipped) == 0);
    CHECK(check_zeros(&r, &G) == 0);
    printf("  %-30s %s: at t0 ncon %d nefc %d, %d entries (%d skipped):", s->name,
           traj ? "trajectory" : "step", ncon, nefc, counted, skipped);
    const double tol = traj ? TRAJ_TOL : STEP_TOL;
    int fail = 0;
    for (int ch = 0; ch < NCH; ch++) {
        if (ch_count(r.m, ch) > 0) {
            const int gated = !(traj && s->traj_no_size && ch == CH_GSIZE);
            printf(" %s %.1e%s", kChName[ch], worst[ch], gated ? "" : " (not gated)");
            fail |= gated && !(worst[ch] <= tol);
        }
    }
    printf("\n");
    scene_free(&r);
    CHECK(skipped * 4 <= counted);
    CHECK(!fail);
    return 0;
}

static int test_step(void) {
    for (int i = 0; i < NSCENE; i++) {
        CHECK(check_scene(kScenes + i, 0) == 0);
    }
    return 0;
}

static int test_trajectory(void) {
    for (int i = 0; i < NSCENE; i++) {
        CHECK(check_scene(kScenes + i, 1) == 0);
    }
    return 0;
}

// set every channel's parameters to theta0 + e dir (1 when every setter accepted)
static int set_along(Run* r, double saved[NCH][5 * MAXN], double dir[NCH][5 * MAXN], double e) {
    int ok = 1;
    for (int ch = 0; ch < NCH; ch++) {
        const int per = kChPer[ch];
        for (int o = 0; o < ch_count(r->m, ch); o++) {
            double v[5];
            for (int k = 0; k < per; k++) {
                v[k] = saved[ch][per * o + k] + e * dir[ch][per * o + k];
            }
            ok &= ch_set(r->m, ch, o, v) == GDN_OK;
        }
    }
    return ok;
}

// the point's next state (tangent difference from q_ref) after a step with the parameters
// moved by e dir; 1 on the reference's branch
static int step_along(Run* r, double saved[NCH][5 * MAXN], double dir[NCH][5 * MAXN], double e,
                      const double* qref, double* dqn, double* vn) {
    int ok = set_along(r, saved, dir, e), same = 0;
    if (ok) {
        run_objective(r, 0, 0, &same);
        gdn_difference_pos(r->m, dqn, 1, qref, r->d->qpos);
        memcpy(vn, r->d->qvel, sizeof(double) * (size_t)r->m->nv);
    }
    set_along(r, saved, dir, 0);
    return ok && same;
}

// The step JVP in a direction of every channel at once (gdn_step_jvp_contact_params): against
// the fourth-order central FD of the setters along it, and <w, JVP dtheta> = <VJP w, dtheta>
// (1e-12 relative: the two are transposes of the same linear map)
static int check_jvp(const Scene* s, double* worst_fd, double* worst_adj) {
    Run r;
    CHECK(scene_load(&r, s) == 0);
    initial_state(&r);
    for (int t = 0; t < s->t0; t++) {
        CHECK(gdn_step(r.m, r.d) == GDN_OK);
    }
    memcpy(r.q, r.d->qpos, sizeof(double) * (size_t)r.m->nq);
    memcpy(r.v, r.d->qvel, sizeof(double) * (size_t)r.m->nv);
    memcpy(r.warm, r.d->qacc_warmstart, sizeof(double) * (size_t)r.m->nv);
    const int nv = r.m->nv;
    // the direction: relative to each value (sizes: on the penetration's scale), the
    // reference's branch recorded
    static double saved[NCH][5 * MAXN], dir[NCH][5 * MAXN];
    for (int ch = 0; ch < NCH; ch++) {
        const int n = kChPer[ch] * ch_count(r.m, ch);
        memcpy(saved[ch], ch_values(r.m, ch), sizeof(double) * (size_t)n);
        for (int i = 0; i < n; i++) {
            // (a plane's size 0, infinite, is not moved)
            dir[ch][i] = ch == CH_GSIZE ? (saved[ch][i] != 0 ? 1e-3 * urand() : 0)
                                        : urand() * fmax(fabs(saved[ch][i]), 1e-2);
        }
    }
    int same;
    run_objective(&r, 0, 1, &same);
    double qref[MAXN];
    memcpy(qref, r.d->qpos, sizeof(double) * (size_t)r.m->nq);
    // the JVP
    gdnContactParamGradients dcp = {dir[CH_GFR], dir[CH_GREF], dir[CH_GIMP], dir[CH_GSIZE],
                                    dir[CH_PFR], dir[CH_PREF], dir[CH_PIMP]};
    gdn_data_reset(r.m, r.d);
    memcpy(r.d->qpos, r.q, sizeof(double) * (size_t)r.m->nq);
    memcpy(r.d->qvel, r.v, sizeof(double) * (size_t)nv);
    memcpy(r.d->qacc_warmstart, r.warm, sizeof(double) * (size_t)nv);
    double jq[MAXN], jv[MAXN];
    CHECK(gdn_step_jvp_contact_params(r.m, r.d, NULL, NULL, NULL, NULL, NULL, &dcp, jq, jv) ==
          GDN_OK);
    // FD along it (e = 1e-3 in the direction's units)
    const double e = 1e-3;
    double fq[4][MAXN], fv[4][MAXN];
    static const double kOff[4] = {1, -1, 2, -2};
    int branch = 1;
    for (int k = 0; k < 4; k++) {
        branch &= step_along(&r, saved, dir, kOff[k] * e, qref, fq[k], fv[k]);
    }
    double fd[2 * MAXN], an[2 * MAXN];
    for (int i = 0; i < nv; i++) {
        fd[i] = (8 * (fq[0][i] - fq[1][i]) - (fq[2][i] - fq[3][i])) / (12 * e);
        fd[nv + i] = (8 * (fv[0][i] - fv[1][i]) - (fv[2][i] - fv[3][i])) / (12 * e);
        an[i] = jq[i];
        an[nv + i] = jv[i];
    }
    if (branch) {
        *worst_fd = fmax(*worst_fd, gdn_test_relerr(an, fd, 2 * nv, 1e-12));
    }
    // the adjoint identity with a random cotangent
    double wq[MAXN], wv[MAXN];
    for (int i = 0; i < nv; i++) {
        wq[i] = urand();
        wv[i] = urand();
    }
    Grads G;
    gdnContactParamGradients cp;
    grads_bind(&G, &cp);
    gdn_data_reset(r.m, r.d);
    memcpy(r.d->qpos, r.q, sizeof(double) * (size_t)r.m->nq);
    memcpy(r.d->qvel, r.v, sizeof(double) * (size_t)nv);
    memcpy(r.d->qacc_warmstart, r.warm, sizeof(double) * (size_t)nv);
    double gq[MAXN], gv[MAXN];
    CHECK(gdn_step_vjp_contact_params(r.m, r.d, wq, wv, gq, gv, NULL, NULL, NULL, &cp) ==
          GDN_OK);
    double lhs = 0, rhs = 0, mag = 0;
    for (int i = 0; i < nv; i++) {
        lhs += wq[i] * jq[i] + wv[i] * jv[i];
        mag += fabs(wq[i] * jq[i]) + fabs(wv[i] * jv[i]);
    }
    for (int ch = 0; ch < NCH; ch++) {
        for (int i = 0; i < kChPer[ch] * ch_count(r.m, ch); i++) {
            rhs += G.g[ch][i] * dir[ch][i];
        }
    }
    *worst_adj = fmax(*worst_adj, fabs(lhs - rhs) / fmax(mag, 1e-300));
    printf("  %-30s jvp: fd %.1e%s, adjoint identity %.1e\n", s->name,
           gdn_test_relerr(an, fd, 2 * nv, 1e-12), branch ? "" : " (branch changed: skipped)",
           fabs(lhs - rhs) / fmax(mag, 1e-300));
    scene_free(&r);
    return 0;
}

static int test_jvp(void) {
    double worst_fd = 0, worst_adj = 0;
    for (int i = 0; i < NSCENE; i++) {
        CHECK(check_jvp(kScenes + i, &worst_fd, &worst_adj) == 0);
    }
    CHECK(worst_fd <= STEP_TOL);
    CHECK(worst_adj <= 1e-12);
    return 0;
}

// geom_size where a body takes its inertia from its geoms: per step the VJP chains the step's
// own dJ/dpi; the trajectory adjoint needs param wanted too (else GDN_ERR_ARG); friction by
// the max rule (the larger geom's, the other's exactly 0)
static int test_size_inertia_api(void) {
    static const char xml[] =
        "<mujoco><option timestep='0.002'/><worldbody><geom type='plane' size='5 5 0.1'/>"
        "<body pos='0 0 0.098'><freejoint/><geom type='sphere' size='0.1' mass='1' "
        "friction='0.8 0.01 0.001'/></body></worldbody></mujoco>";
    gdnModel* m = NULL;
    gdnData* d = NULL;
    char err[512];
    CHECK(gdn_load_xml_string(xml, strlen(xml), NULL, &m, err, (int)sizeof(err), NULL, 0) ==
          GDN_OK);
    CHECK(gdn_data_create(m, &d) == GDN_OK);
    CHECK(gdn_step(m, d) == GDN_OK);
    CHECK(d->nefc > 0);
    double gq[MAXN] = {0}, gv[MAXN] = {0}, gqn[MAXN] = {0}, gvn[MAXN] = {1, 1, 1, 1, 1, 1};
    double size[3 * 2] = {0}, fr[3 * 2] = {0};
    gdnContactParamGradients cp = {0};
    cp.geom_size = size;
    CHECK(gdn_step_vjp_contact_params(m, d, gqn, gvn, gq, gv, NULL, NULL, NULL, &cp) == GDN_OK);
    CHECK(size[3] != 0);
    cp.geom_size = NULL;
    cp.geom_friction = fr;
    CHECK(gdn_step_vjp_contact_params(m, d, gqn, gvn, gq, gv, NULL, NULL, NULL, &cp) == GDN_OK);
    CHECK(fr[0] != 0 && fr[3] == 0); // max: the plane's default friction 1 > 0.8
    gdnRollout ro;
    gdn_rollout_init(m, 3, &ro);
    ro.qpos0 = m->qpos0;
    ro.qvel0 = gv; // any velocity
    gdnObjective obj;
    memset(&obj, 0, sizeof(obj));
    Run dummy;
    memset(&dummy, 0, sizeof(dummy));
    dummy.cq[2] = 1;
    obj.terminal.fn = terminal_cost;
    obj.terminal.user = &dummy;
    gdnTape* tape = NULL;
    CHECK(gdn_tape_create(m, 3, 1, &tape, err, (int)sizeof(err)) == GDN_OK);
    gdnAdjointGradients out;
    memset(&out, 0, sizeof(out));
    out.geom_size = size;
    CHECK(gdn_adjoint_rollout_gradient(m, &ro, &obj, tape, &out, err, (int)sizeof(err)) ==
          GDN_ERR_ARG);
    printf("  without param: %s\n", err);
    gdn_tape_free(tape);
    gdn_data_free(d);
    gdn_model_free(m);
    return 0;
}

static const gdnTestCase cases[] = {
    {"step", test_step},
    {"trajectory", test_trajectory},
    {"jvp", test_jvp},
    {"size_inertia_api", test_size_inertia_api},
};

int main(int argc, char** argv) {
    return gdn_test_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
