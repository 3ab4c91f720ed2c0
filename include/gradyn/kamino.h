// SPDX-License-Identifier: Apache-2.0
// Kamino (issue 10): the maximal-coordinate hard-contact solver. A const gdnKaminoModel built
// once from a gdnModel, a gdnKaminoData holding world_count independent worlds (docs/kamino.md).
#ifndef GRADYN_KAMINO_H
#define GRADYN_KAMINO_H

#include <gradyn/gradyn.h>

#ifdef __cplusplus
extern "C" {
#endif

// the dual-problem backend (only PADMM exists; DVI and LOX are the next issue's)
typedef enum gdnKaminoBackend {
    GDN_KAMINO_PADMM = 0,
    GDN_KAMINO_DVI = 1, // not implemented: refused by gdn_kamino_model_create
    GDN_KAMINO_LOX = 2  // not implemented: refused by gdn_kamino_model_create
} gdnKaminoBackend;

// the joint of a body to its parent, as Kamino sees the MJCF joints of that body
typedef enum gdnKaminoJointType {
    GDN_KAMINO_FREE = 0,        // one free joint: 0 rows
    GDN_KAMINO_FIXED = 1,       // no joint (welded to a moving parent): 6 rows
    GDN_KAMINO_REVOLUTE = 2,    // one hinge: 5 rows
    GDN_KAMINO_PRISMATIC = 3,   // one slide: 5 rows
    GDN_KAMINO_SPHERICAL = 4,   // one ball: 3 rows
    GDN_KAMINO_UNIVERSAL = 5,   // two hinges at one anchor, axes not parallel: 4 rows
    GDN_KAMINO_CYLINDRICAL = 6, // a hinge and a slide on one axis: 4 rows
    GDN_KAMINO_CARTESIAN = 7,   // three slides, independent axes: 3 rows
    GDN_KAMINO_GIMBAL = 8       // three hinges at one anchor, independent axes: 3 rows
} gdnKaminoJointType;

// settings fixed at model creation (gdn_kamino_settings_default; the MJCF custom fields
// kamino_restitution set restitution)
typedef struct gdnKaminoSettings {
    gdnKaminoBackend backend;
    double alpha;       // Baumgarte fraction of the joint (bilateral) rows (0.01)
    double beta;        // Baumgarte fraction of the joint-limit rows (0.01)
    double gamma;       // Baumgarte fraction of the contact normals (0.01)
    double deadzone;    // penetration not corrected (1e-6 m)
    double restitution; // e of every contact (0; MJCF <numeric name="kamino_restitution">)
    int max_contacts;   // contacts per world the rows hold (64); more are counted as overflow
    int warmstart;      // 1: warm start from the last step's rows (bilateral, limits by joint,
                        // contacts by geom pair and nearest point)
    int projection_iterations; // 3: gradyn's extension, after the step at most this many
                        // iterations projecting the poses onto the joint and loop-closure rows
                        // (mass-weighted, stopping once every residual is below projection_tol;
                        // velocities are not changed): loops close to 1e-10 m instead of
                        // Kamino's (omega h)^2 L / (2 alpha). 0: Kamino's velocity-level
                        // recovery alone
    double projection_tol; // 1e-10 (m, rad): ten times below the 1e-9 m loop-closure bound
    int curvature_bias; // 1: gradyn's extension, the joint and loop rows' velocity target also
                        // cancels the residuals' curvature over the step (-h/2 d^2r/dt^2 at the
                        // start twists), so one Euler step drifts O(h^3) instead of
                        // (omega h)^2 L / 2; 0: kamino.md's target -alpha r / h alone
    // PADMM (kamino.md 2.4)
    int max_iterations;     // 200
    double tol_primal;      // 1e-6
    double tol_dual;        // 1e-6
    double tol_compl;       // 1e-6
    double eta;             // 1e-5
    double rho;             // 1.0
    int acceleration;       // 1
    double restart_factor;  // 0.999
    int preconditioning;    // 1
    double warmstart_scale; // 0.9: the warm start's scale on the bilateral rows
    double warmstart_scale_unilateral; // 0.9: on the limit and contact rows
    double rho_bilateral;   // 0: the penalty on bilateral rows (they have no projection: with 0
                            // the linear step solves them, y = x, z = 0); rho for kamino.md's
                            // single penalty
    int penalty_update;     // 1: the balanced penalty of kamino.md 2.4g on the unilateral rows
                            // (a refactorization per change)
    double penalty_ratio;   // 10
    double penalty_factor;  // 1.5
    double rho_min;         // 1e-5
    double rho_max;         // 1e6
    double merge_distance;  // 1e-7 m: contacts of one geom pair closer than this are one (the
                            // deeper stays): face clipping of nearly aligned boxes duplicates
                            // points, and duplicate rows only slow the solve
} gdnKaminoSettings;

// the status of one world's last step
typedef struct gdnKaminoStatus {
    int converged;   // 1 when the backend met its tolerances (1 too for a step without rows)
    int iterations;  // backend iterations
    double r_p;      // primal residual (N s), the backend's definition (PADMM: kamino.md 2.4e)
    double r_d;      // dual residual (m/s)
    double r_c;      // complementarity residual
    int nrow;        // rows of the dual problem
    int nbilateral;  // joint and loop-closure rows
    int nlimit;      // violated joint-limit rows
    int ncontact;    // contacts (3 rows each)
    int ncontact_overflow; // contacts found beyond settings.max_contacts (dropped)
    gdnStatus result; // GDN_OK, or the error of the step (the world's state is then unchanged)
    int refactorizations; // PADMM: penalty updates in the step (each a new factor)
    double rho;      // PADMM: the penalty of the unilateral rows at the end of the step
} gdnKaminoStatus;

// one contact of a world's last step
typedef struct gdnKaminoContact {
    int geom1, geom2;  // MJCF geoms (gdnContact's order: the normal points from geom1 to geom2)
    int body1, body2;  // their bodies
    double pos[3];     // contact point (world)
    double frame[9];   // rows t0, t1, n (world)
    double dist;       // signed distance (negative: penetration)
    double mu;         // friction coefficient
    double force[3];   // contact force on body2 (on body1 the opposite) in the frame [t0 t1 n],
                       // N: the impulse / h
} gdnKaminoContact;

typedef struct gdnKaminoModel gdnKaminoModel; // opaque, const after creation
typedef struct gdnKaminoData gdnKaminoData;   // opaque: the worlds

// one world's state and outputs; arrays are indexed by MJCF body id (nbody rows, the world body
// and bodies welded to it included: their pose is fixed, their twist zero)
typedef struct gdnKaminoWorld {
    double time;
    double* body_pos;   // (nbody x 3) centre of mass, world
    double* body_quat;  // (nbody x 4) orientation of the principal inertia frame (w x y z)
    double* body_u;     // (nbody x 6) twist: linear velocity of the COM, angular velocity; world
    double* body_qdd;   // (nbody x 6) (u+ - u-) / h of the last step, linear then angular
    double* xfrc_applied; // (nbody x 6) input: force, torque at the COM, world
    double* ctrl;       // (nu) input: controls of joint actuators on revolute / prismatic joints
    double* qpos;       // (nq) MJCF joint coordinates recovered from the body poses
    double* qvel;       // (nv) MJCF joint velocities recovered from the twists
    int nrow;           // rows of the last step
    double* lambda;     // (nrow) their impulses (N s or N m s): bilateral, limits, contacts
    double* row_force;  // (nrow) lambda / h
    int ncontact;
    gdnKaminoContact* contact; // (ncontact)
    gdnKaminoStatus status;
} gdnKaminoWorld;

GDN_API void gdn_kamino_settings_default(gdnKaminoSettings* s);

// Build the Kamino model of m (kept by pointer: m must outlive it and stay unchanged). settings
// NULL: the defaults with the MJCF's kamino_restitution. Refused (GDN_ERR_MODEL or
// GDN_ERR_UNSUPPORTED, err says which body or joint and why): a joint combination with no Kamino
// equivalent, a massless or inertia-less body that is not welded to the world, joint limits on
// a composite joint or a ball, equality constraints other than connect / weld, actuators other
// than joint motors of revolute / prismatic joints; GDN_ERR_ARG for bad settings. Ignored (listed
// in warn when non-NULL): armature, damping, stiffness, friction loss, solref / solimp (Kamino's
// rows are hard), margins of joint limits.
GDN_API gdnStatus gdn_kamino_model_create(const gdnModel* m, const gdnKaminoSettings* settings,
                                          gdnKaminoModel** km, char* err, int err_size,
                                          char* warn, int warn_size);
GDN_API void gdn_kamino_model_free(gdnKaminoModel* km);
// the MJCF-level view: body count, joint type of an MJCF body (-1 for the world and bodies
// welded to it), the settings
GDN_API int gdn_kamino_model_nbody(const gdnKaminoModel* km);
GDN_API int gdn_kamino_body_joint(const gdnKaminoModel* km, int body);
GDN_API const gdnKaminoSettings* gdn_kamino_model_settings(const gdnKaminoModel* km);
// the bilateral row count (joint blocks in body order, then equality constraints)
GDN_API int gdn_kamino_model_nbilateral(const gdnKaminoModel* km);

// world_count worlds, each reset to qpos0 at rest
GDN_API gdnStatus gdn_kamino_data_create(const gdnKaminoModel* km, int world_count,
                                         gdnKaminoData** kd);
GDN_API void gdn_kamino_data_free(gdnKaminoData* kd);
GDN_API int gdn_kamino_world_count(const gdnKaminoData* kd);
// world w (NULL when out of range); the pointers stay valid for the data's lifetime
GDN_API gdnKaminoWorld* gdn_kamino_world(gdnKaminoData* kd, int w);

// Reset the worlds with mask[w] != 0 (mask NULL: all) to the joint state qpos (nq), qvel (nv)
// (NULL: qpos0, zero): body poses from MJCF kinematics, twists from the joint velocities;
// time 0, inputs, body_qdd, rows and status cleared. GDN_ERR_ARG for NULL kd, GDN_ERR_NONFINITE
// for non-finite input (nothing changed)
GDN_API gdnStatus gdn_kamino_reset(const gdnKaminoModel* km, gdnKaminoData* kd,
                                   const unsigned char* mask, const double* qpos,
                                   const double* qvel);

// One step of every world (each independent: a world's result does not depend on the others,
// so N identical worlds are bit-identical to one). Per world: collision from the body poses,
// rows, the dual problem, the backend, semi-implicit Euler, joint recovery. A world whose step
// fails keeps its state and reports the error in its status.result; the call returns the first
// such error (GDN_OK when every world stepped; an unconverged solve is not an error). The
// model's disable flags: CONSTRAINT drops contacts, limits and loop closures (joints are rows in
// maximal coordinates and always stay), EQUALITY the loop closures, CONTACT, LIMIT, GRAVITY and
// ACTUATION as their names say
GDN_API gdnStatus gdn_kamino_step(const gdnKaminoModel* km, gdnKaminoData* kd);

// out = the world position of the point local (in body's MJCF body frame) in world w's current
// state (w from gdn_kamino_world; body an MJCF body id). Does nothing for NULL arguments or a
// body id out of range
GDN_API void gdn_kamino_body_point(const gdnKaminoModel* km, const gdnKaminoWorld* w, int body,
                                   const double local[3], double out[3]);

// the loop closure error of world w: the largest distance between the two anchors of the
// model's equality connects (0 without any), in m; NAN for NULL arguments
GDN_API double gdn_kamino_connect_error(const gdnKaminoModel* km, const gdnKaminoWorld* w);

#ifdef __cplusplus
}
#endif

#endif
