// SPDX-License-Identifier: Apache-2.0
// Internal: the Kamino model (bodies, joint groups, loop closures) and world layouts.
#ifndef GDN_KAMINO_KAMINO_H
#define GDN_KAMINO_KAMINO_H

#include <gradyn/kamino.h>

#include "kamino/dual.h"

// one bilateral constraint block: a body's joint(s) to its parent, or an equality constraint
typedef struct gdnKJoint {
    int type;      // gdnKaminoJointType, or GDN_KJ_CONNECT / GDN_KJ_WELD
    int body;      // follower (MJCF body id, moving)
    int base;      // base (MJCF body id, -1 for the world and bodies welded to it)
    int jnt0, njnt; // the MJCF joints of the follower (joint groups)
    int eq;        // equality id (loop closures), else -1
    double p0[3];  // follower body frame at zero joint values, in the base frame (world frame
    double R0[9];  //   when base is -1)
    double anchor[3]; // anchor in the follower body frame (equality: on body)
    double anchorB[3]; // equality: anchor in the base body frame (world frame for -1)
    double Rj[9];  // joint frame in the follower body frame (columns; x = the first axis)
    double axis2[3]; // universal: the second hinge axis in the follower body frame
    double k12;    // universal: axis1 . axis2 at zero
    double R0Rj[9]; // joint blocks: R0 Rj, the joint frame in the base frame at zero
    double anchor0[3]; // joint blocks: R0 anchor + p0, the anchor in the base frame at zero
    int row0, nrow; // its bilateral rows
} gdnKJoint;

#define GDN_KJ_CONNECT 100
#define GDN_KJ_WELD 101

// joint limit candidate: a limited hinge or slide alone in its body
typedef struct gdnKLimit {
    int joint;     // gdnKJoint index
    int jnt;       // MJCF joint
    double lo, hi; // range (qpos units)
} gdnKLimit;

struct gdnKaminoModel {
    const gdnModel* m;
    gdnModel mc;      // the collision view of m: its arrays, but geom and pair margins raised by
                      // the dead zone so touching contacts (|dist| <= deadzone) are reported
    double* margin;   // (ngeom + npair) those margins
    gdnKaminoSettings s;
    gdnKaminoPadmmSettings padmm; // the backend's share of s (rho: the first step's penalty)
    int nbody;        // MJCF bodies (world included)
    int* moving;      // (nbody) 1 for bodies not welded to the world
    int* body_joint;  // (nbody) gdnKJoint index of the body's joint group, -1
    double* minv;     // (nbody) 1 / mass (0 for static)
    double* iinv;     // (nbody x 3) 1 / principal moments
    double* irot;     // (nbody x 9) the principal frame in the body frame (body_iquat's matrix)
    int njoint;       // gdnKJoint blocks: body groups, then equality constraints
    gdnKJoint* joint;
    int nbilateral;   // rows of all blocks
    int njointrow;    // rows of the joint blocks alone (the first ones; then loop closures)
    int nlimit;       // limit candidates
    gdnKLimit* limit;
    int maxrow;       // nbilateral + nlimit + 3 max_contacts
    int nu_ok;        // actuators usable (all validated)
    int collides;     // 1 when some geom pair can collide (an explicit pair, or two geoms of
                      // different bodies passing the contype / conaffinity filter)


};

// one constraint row: J u = ja . u_a + jb . u_b (twists linear first), a = follower (+)
typedef struct gdnKRow {
    int a, b;      // MJCF body ids, -1 none
    double ja[6], jb[6];
} gdnKRow;

// one world: public view, state, rows and scratch (one allocation)
typedef struct gdnKWorld {
    gdnKaminoWorld pub;
    gdnData* cd;           // MJCF data: kinematics at reset and the collision pass
    double* u_prev;        // (nbody x 6)
    gdnKRow* rows;         // (maxrow)
    int* row_kind;         // (maxrow) 0 bilateral, 1 limit (limit index), 2 contact
    int* row_id;           // (maxrow)
    double* resid;         // (maxrow)
    double* curv;          // (maxrow) the bilateral residuals' curvature (curvature_bias)
    double* D;             // (maxrow^2)
    double* vf;            // (maxrow)
    double* mu;            // (max_contacts)
    double* lam;           // (maxrow) solution
    double* vplus;         // (maxrow)
    double* lam_prev;      // (maxrow) warm start cache, previous step's layout
    int* id_prev;          // (maxrow) previous step's row ids (limits: joint, contacts: pair)
    int* kind_prev;
    int nrow_prev;
    double* minvj;         // (maxrow x 12) M^-1 J' blocks of each row
    double* uf;            // (nbody x 6) free velocity
    double* scratch;       // backend scratch
    double* xpos;          // (nbody x 3) body frame origins (current)
    double* xmat;          // (nbody x 9) body frame rotations
    double* rcom;          // (nbody x 9) principal frame rotations
    double* iinv;          // (nbody x 9) world inverse inertias (with the frames)
    double* frame_pos;     // (nbody x 3) the COM poses xpos, xmat and rcom were made from
    double* frame_quat;    // (nbody x 4) (gdn_kamino_body_poses)
    int frames_valid;      // 1: iinv too (gdn_kamino_body_frames)
    double* rows_pos;      // (nbody x 3) the poses and twists the joint rows, residuals and
    double* rows_quat;     // (nbody x 4) curvatures in rows, resid, curv [0, nbilateral) were
    double* rows_u;        // (nbody x 6) made from (gdn_kamino_joint_rows),
    int rows_valid;        // valid while 1
    int proj_moves;        // the moves the last projection made (1 after a reset)
    gdnKaminoContact* contact; // (max_contacts)
    double* wrench;        // (nbody x 6) applied + actuator wrench of the step
    double* pos_prev;      // (nbody x 3) pose before the step (restored on failure)
    double* quat_prev;     // (nbody x 4)
    double* vplus_prev;    // (maxrow) warm start of v+
    double* qpos_save;     // (nq) joint state before the step
    gdnKaminoContact* contact_prev; // (max_contacts) last step's contacts (warm start)
    double* cimp_prev;     // (max_contacts x 6) their impulse and v+ as world vectors
    int* cused;            // (max_contacts) matched flags
    int ncon_prev;
    double rho_prev;       // the penalty the last solve ended with (the next one starts there)
    gdnCholEnvelope env;   // D's envelope (first, last, column lists over maxrow rows)
    int* body_rowstart;    // (nbody + 1) the rows touching each body: entries 2 row + side
    int* body_rowfill;     // (nbody) (side 0: the row's body a, 1: its body b), ascending rows
    int* body_rows;        // (2 maxrow)
    int* env_key;          // (2 maxrow) the bodies (a, b) of each row the envelope and the body
    int env_key_n;         // lists were made for, and their row count (-1: none yet)
    gdnKaminoDual dual;    // the step's dual problem (the projection reuses its factor)
} gdnKWorld;

struct gdnKaminoData {
    const gdnKaminoModel* km;
    int world_count;
    gdnKWorld* world;
    void* buffer;
};

// body frames of every moving body from the COM state (xpos, xmat, rcom of w) and its world
// inverse inertia (iinv)
void gdn_kamino_body_frames(const gdnKaminoModel* km, gdnKWorld* w);
// the poses alone (xpos, xmat, rcom): what the residuals need
void gdn_kamino_body_poses(const gdnKaminoModel* km, gdnKWorld* w);
// gdn_kamino_body_frames unless the frames are those of the current poses already (bit for
// bit the same poses as they were made from; iinv alone when only the poses were made)
void gdn_kamino_body_frames_update(const gdnKaminoModel* km, gdnKWorld* w);
// joint (bilateral) rows and residuals of every block into w->rows[0 .. nbilateral), and with
// settings.curvature_bias their curvature into w->curv (at the current frames and twists)
void gdn_kamino_joint_rows(const gdnKaminoModel* km, gdnKWorld* w);
// gdn_kamino_joint_rows unless those rows were made from the current poses and twists already,
// bit for bit (the projection's last check makes them for the next step); the frames must be
// current (gdn_kamino_body_frames_update)
void gdn_kamino_joint_rows_update(const gdnKaminoModel* km, gdnKWorld* w);
// the residuals alone into w->resid[0 .. nbilateral)
void gdn_kamino_joint_residuals(const gdnKaminoModel* km, gdnKWorld* w);
// the residual of block j into r (its nrow values), rows into rows and the residuals' curvature
// d^2 r / dt^2 along the constant twists pub.body_u into curv (rows.c; NULL: skip)
void gdn_kamino_block_rows(const gdnKaminoModel* km, const gdnKWorld* w, int j, double* r,
                           gdnKRow* rows, double* curv);
// the DoF row of a single hinge / slide block (limits, actuators, qvel)
void gdn_kamino_dof_row(const gdnKaminoModel* km, const gdnKWorld* w, int j, gdnKRow* row);
// recover qpos, qvel of every MJCF joint (2 pi unwrapping against qpos_prev)
void gdn_kamino_recover_joints(const gdnKaminoModel* km, gdnKWorld* w);
// minvj = the M^-1 J' blocks of the rows 0..n (12 per row: body a's 6, body b's 6)
void gdn_kamino_minv_jt(const gdnKaminoModel* km, gdnKWorld* w, int n);
// u (nbody x 6; not w->rows, w->minvj or x) += M^-1 J' x over the rows 0..n (minvj): the
// twist change of impulses x, or the pose increment of the projection's multipliers
void gdn_kamino_add_minv_jt(const gdnKWorld* w, int n, const double* x, double* restrict u);
// the dual problem of the rows 0..n: minvj, D, vf (biases from resid, restitution from u_prev)
void gdn_kamino_assemble(const gdnKaminoModel* km, gdnKWorld* w, int n, int nb, int nl, int nc,
                         double h);
// free velocity uf from u, external wrenches, gravity and gyroscopic terms
void gdn_kamino_free_velocity(const gdnKaminoModel* km, gdnKWorld* w, const double* wrench,
                              double h);
// u <- uf + M^-1 J' lambda; poses by semi-implicit Euler with the quaternion exponential
void gdn_kamino_integrate(const gdnKaminoModel* km, gdnKWorld* w, int n, double h);
// at most settings.projection_iterations iterations projecting the poses onto the first nb
// (bilateral) rows of a step that solved n rows (project.c); returns the iterations taken
// (overwrites rows, resid, D, vf, minvj, uf; keeps the backend's scratch)
int gdn_kamino_project(const gdnKaminoModel* km, gdnKWorld* w, int n, int nb);
// world inverse inertia of body b (3x3) from its COM frame (gdn_kamino_body_frames keeps them
// in w->iinv)
void gdn_kamino_iinv_world(const gdnKaminoModel* km, const gdnKWorld* w, int b, double out[9]);

#endif
