// SPDX-License-Identifier: Apache-2.0
// gdnModel: the immutable compiled model (MuJoCo's mjModel layout and field names where MuJoCo
// has the quantity). Conventions (frames, layouts, units) are in docs/conventions.md.
#ifndef GRADYN_MODEL_H
#define GRADYN_MODEL_H

#include <stddef.h>

#include <gradyn/contact.h> // gdnSolver, gdnCone

#ifdef __cplusplus
extern "C" {
#endif

// joint types: values equal MuJoCo's mjtJoint
typedef enum gdnJointType {
    GDN_JNT_FREE = 0,  // 7 qpos (pos, quat w x y z), 6 qvel (world linear vel of origin, local ang)
    GDN_JNT_BALL = 1,  // 4 qpos (quat), 3 qvel (local angular velocity)
    GDN_JNT_SLIDE = 2, // 1 qpos, 1 qvel
    GDN_JNT_HINGE = 3  // 1 qpos, 1 qvel
} gdnJointType;

// geom types: values equal MuJoCo's mjtGeom
typedef enum gdnGeomType {
    GDN_GEOM_PLANE = 0,
    GDN_GEOM_HFIELD = 1,
    GDN_GEOM_SPHERE = 2,
    GDN_GEOM_CAPSULE = 3,
    GDN_GEOM_ELLIPSOID = 4,
    GDN_GEOM_CYLINDER = 5,
    GDN_GEOM_BOX = 6,
    GDN_GEOM_MESH = 7
} gdnGeomType;

// how a frame attached to a body (inertial, geom, site) relates to the body's frames; 0-2 are
// MuJoCo's mjtSameFrame values, 3 is gradyn's. Derived fields: gdn_model_finalize fills them
// from the local poses (exact comparisons); 0 is always correct (no shortcut)
typedef enum gdnSameFrame {
    GDN_SAMEFRAME_NONE = 0,    // general pose
    GDN_SAMEFRAME_BODY = 1,    // pos = 0, quat = identity: the body frame itself
    GDN_SAMEFRAME_INERTIA = 2, // pos, quat = the body's ipos, iquat: the inertial frame itself
    GDN_SAMEFRAME_BODYROT = 3  // quat = identity: the body's orientation, an offset position
} gdnSameFrame;

// integrators
typedef enum gdnIntegrator {
    GDN_INT_EULER = 0, // semi-implicit Euler, joint damping implicit (MuJoCo mjINT_EULER)
    GDN_INT_RK4 = 1,   // explicit 4th-order Runge-Kutta on the manifold (MuJoCo mjINT_RK4)
    GDN_INT_IMPLICIT = 2 // implicit in the velocity forces: (M - h d(force)/d qvel) a = f
                         // (MuJoCo 2.2.2's mjINT_IMPLICIT)
} gdnIntegrator;

// which geom pairs collide (MuJoCo's mjtCollision)
typedef enum gdnCollisionMode {
    GDN_COL_ALL = 0,    // the explicit pairs and the filtered dynamic pairs
    GDN_COL_PAIR = 1,   // "predefined": the explicit pairs only
    GDN_COL_DYNAMIC = 2 // the filtered dynamic pairs only
} gdnCollisionMode;

// disable flags: bit values equal MuJoCo 2.2.2's mjtDisableBit
typedef enum gdnDisableBit {
    GDN_DSBL_CONSTRAINT = 1 << 0,
    GDN_DSBL_EQUALITY = 1 << 1,
    GDN_DSBL_FRICTIONLOSS = 1 << 2,
    GDN_DSBL_LIMIT = 1 << 3,
    GDN_DSBL_CONTACT = 1 << 4,
    GDN_DSBL_PASSIVE = 1 << 5,
    GDN_DSBL_GRAVITY = 1 << 6,
    GDN_DSBL_CLAMPCTRL = 1 << 7,
    GDN_DSBL_WARMSTART = 1 << 8,
    GDN_DSBL_FILTERPARENT = 1 << 9,
    GDN_DSBL_ACTUATION = 1 << 10,
    GDN_DSBL_REFSAFE = 1 << 11,
    GDN_DSBL_SENSOR = 1 << 12 // no sensor is computed (sensordata keeps its values)
} gdnDisableBit;

// enable flags: bit values equal MuJoCo 2.2.2's mjtEnableBit; GDN_ENBL_ONESIDED is gradyn's own
// (a bit MuJoCo does not use): the derivatives of a step whose constraint solve did not
// converge return the derivative of the branch the solver stopped on, flagged in
// d->deriv_flags (GDN_DERIV_ONESIDED), instead of GDN_ERR_UNCONVERGED (docs/derivatives.md)
typedef enum gdnEnableBit {
    GDN_ENBL_OVERRIDE = 1 << 0,
    GDN_ENBL_ENERGY = 1 << 1,
    GDN_ENBL_SENSORNOISE = 1 << 3, // accepted; gradyn never adds sensor noise (sensor.h)
    GDN_ENBL_ONESIDED = 1 << 8
} gdnEnableBit;

// actuator transmission, dynamics, gain and bias types (MuJoCo's values)
typedef enum gdnTrnType {
    GDN_TRN_JOINT = 0,
    GDN_TRN_JOINTINPARENT = 1, // a ball or free joint, gear in the parent frame (a hinge or slide
                               // compiles to GDN_TRN_JOINT: the same transmission)
    GDN_TRN_SLIDERCRANK = 2,   // trnid: crank site, slider site; actuator_cranklength
    GDN_TRN_TENDON = 3,
    GDN_TRN_SITE = 4,          // trnid: site, reference site or -1
    GDN_TRN_BODY = 5           // adhesion: trnid the body, the moment from its contacts
} gdnTrnType;

// tendon path objects (wrap_type): values equal MuJoCo's mjtWrap
typedef enum gdnWrapType {
    GDN_WRAP_NONE = 0,
    GDN_WRAP_JOINT = 1,   // a fixed tendon's joint (wrap_prm: coef)
    GDN_WRAP_PULLEY = 2,  // a spatial tendon's pulley (wrap_prm: divisor)
    GDN_WRAP_SITE = 3,    // a spatial tendon's site
    GDN_WRAP_SPHERE = 4,  // a wrapping sphere geom (wrap_prm: side site id or -1)
    GDN_WRAP_CYLINDER = 5 // a wrapping cylinder geom (wrap_prm: side site id or -1)
} gdnWrapType;
// actuator dynamics (MuJoCo 2.2.2's mjtDyn): act_dot = ctrl (integrator), (ctrl - act) / tau
// (filter), the muscle activation dynamics (muscle); a stateful actuator's force reads act
typedef enum gdnDynType {
    GDN_DYN_NONE = 0,
    GDN_DYN_INTEGRATOR = 1,
    GDN_DYN_FILTER = 2,
    GDN_DYN_MUSCLE = 3
} gdnDynType;
typedef enum gdnGainType {
    GDN_GAIN_FIXED = 0,
    GDN_GAIN_AFFINE = 1,
    GDN_GAIN_MUSCLE = 2 // MuJoCo's mju_muscleGain (active force-length-velocity curve)
} gdnGainType;
typedef enum gdnBiasType {
    GDN_BIAS_NONE = 0,
    GDN_BIAS_AFFINE = 1,
    GDN_BIAS_MUSCLE = 2 // MuJoCo's mju_muscleBias (passive force-length curve)
} gdnBiasType;

#define GDN_NDYN 10

#define GDN_NGAIN 10
#define GDN_NBIAS 10
#define GDN_NREF 2
#define GDN_NIMP 5
#define GDN_NEQDATA 11 // doubles per equality constraint (MuJoCo 2.2.2's mjNEQDATA)
#define GDN_NFLUID 12  // doubles per geom of the ellipsoid fluid model (MuJoCo's mjNFLUID)

// physics options (MJCF <option>)
typedef struct gdnOption {
    double timestep;    // integration step (s)
    double gravity[3];  // gravitational acceleration, world frame (m/s^2)
    gdnIntegrator integrator; // GDN_INT_EULER, GDN_INT_RK4 or GDN_INT_IMPLICIT
    int disableflags;   // gdnDisableBit mask
    int enableflags;    // gdnEnableBit mask

    // constraint solver (MuJoCo 2.2.2 names and defaults)
    gdnSolver solver;   // default Newton
    int iterations;     // maximum solver iterations (100)
    double tolerance;   // solver tolerance (1e-8)
    gdnCone cone;       // pyramidal by default
    double impratio;    // friction-to-normal impedance ratio (1)
    double o_margin;    // override margin (enableflags & GDN_ENBL_OVERRIDE)
    double o_solref[GDN_NREF]; // override solref
    double o_solimp[GDN_NIMP]; // override solimp
    int collision;        // gdnCollisionMode (<option collision>; GDN_COL_ALL by default)
    int mpr_iterations;   // MPR iterations of the general convex collision (50)
    double mpr_tolerance; // MPR tolerance on the portal's support gain (1e-6)
    double box_edge_bias; // box-box: an edge pair must beat the best face axis by this too (m;
                          // 0, MuJoCo's rule; not from MJCF: Kamino's collision view sets 1e-9)

    // Kamino (include/gradyn/kamino.h), from MJCF <custom> fields MuJoCo also loads:
    // <text name="gradyn_solver" data="kamino"/> (or "mujoco"), <numeric
    // name="kamino_restitution" data="e"/>. gdn_step ignores both
    int gradyn_solver;         // 0: the reduced-coordinate MuJoCo model, 1: Kamino
    double kamino_restitution; // contact restitution of the Kamino solver (0)
    double magnetic[3];        // global magnetic flux, world frame (MuJoCo's opt.magnetic,
                               // default (0, -0.5, 0)): the magnetometer sensor's field

    // the medium (MuJoCo's <option wind density viscosity>): the fluid forces on every body
    // when density or viscosity is > 0 (src/dynamics/fluid.h), in qfrc_passive
    double wind[3];    // medium velocity, world frame (m/s)
    double density;    // medium density (kg/m^3; air 1.2, water 1000)
    double viscosity;  // medium viscosity (Pa s; air 1.8e-5, water 9e-4)
} gdnOption;

// per-vertex penalty ground contact (docs/contact_penalty.md): a plane at z = height; every
// collision-mesh vertex below it gets the world force f_z = max(0, stiffness * depth -
// damping * v_z), depth = height - x_z, applied at the vertex; frictionless
typedef struct gdnPenalty {
    int enabled;      // 1: gdn_step / gdn_forward add the contact forces to the step
    double height;    // plane height (m)
    double stiffness; // k (N/m per vertex)
    double damping;   // c (N s/m per vertex)
} gdnPenalty;

// the compiled model; every array is owned by the model and freed by gdn_model_free.
// Index 0 of every body array is the world body. Arrays are (count x width), row-major.
typedef struct gdnModel {
    // sizes
    int nq;     // number of generalized coordinates
    int nv;     // number of degrees of freedom
    int nu;     // number of actuators / controls
    int na;     // number of activation states (actuators with dynamics: the last na of nu)
    int nbody;  // number of bodies, world included
    int njnt;   // number of joints
    int ngeom;  // number of geoms
    int nsite;  // number of sites
    int nkey;   // number of keyframes
    int nnames; // bytes in the names buffer
    int nvert;  // collision-mesh vertices over all bodies (penalty contact)
    int nconmax; // capacity of the contact buffer in gdnData (MJCF <size nconmax>)
    int njmax;   // capacity of the constraint rows in gdnData (MJCF <size njmax>)
    int npair;    // explicit geom pairs (MJCF <contact><pair>), sorted by pair_signature
    int nexclude; // excluded body pairs (MJCF <contact><exclude>), sorted by exclude_signature
    int neq;     // number of equality constraints
    int nmocap;  // mocap bodies (MJCF body mocap="true": posed by d->mocap_pos, mocap_quat)
    int nmesh;      // convex collision meshes (MJCF <asset><mesh>)
    int nmeshvert;  // vertices of all meshes
    int nmeshface;  // triangles of all meshes
    int nmeshgraph; // ints in mesh_graph
    int ntendon;    // tendons (MJCF <tendon><fixed>, <spatial>)
    int nwrap;      // path objects of all tendons
    int nsensor;     // sensors (MJCF <sensor>; include/gradyn/sensor.h)
    int nsensordata; // doubles in gdnData's sensordata (the sum of sensor_dim)

    gdnOption opt;
    gdnPenalty penalty; // penalty ground contact (off unless enabled)
    double stat_meaninertia; // mean diagonal of M at qpos0 (MuJoCo's stat.meaninertia; the
                             // solvers' scale; <= 0: the solver uses the current qM's)

    // bodies (nbody)
    int* body_parentid;     // parent body id (world: 0)
    int* body_rootid;       // id of the root body below the world
    int* body_weldid;       // id of the body this body is welded to (itself if it has joints)
    int* body_jntnum;       // number of joints of this body
    int* body_jntadr;       // first joint id (-1 if none)
    int* body_dofnum;       // number of dofs of this body
    int* body_dofadr;       // first dof index (-1 if none)
    int* body_geomnum;      // number of geoms
    int* body_geomadr;      // first geom id (-1 if none)
    double* body_pos;       // (nbody x 3) position in parent frame
    double* body_quat;      // (nbody x 4) orientation in parent frame
    double* body_ipos;      // (nbody x 3) centre of mass in body frame
    double* body_iquat;     // (nbody x 4) principal inertia frame relative to body frame
    double* body_mass;      // (nbody) mass (kg)
    double* body_subtreemass; // (nbody) mass of the subtree rooted at this body
    double* body_inertia;   // (nbody x 3) principal moments of inertia about the COM
    int* body_sameframe;    // derived: inertial frame vs body frame (gdnSameFrame; 0 general)
    int* body_mocapid;      // index into d->mocap_pos / mocap_quat, -1: not a mocap body
    double* body_invweight0; // (nbody x 2) mean inverse translational, rotational inertia at
                             // qpos0: diag(J M^-1 J') of the COM Jacobian averaged (MuJoCo's)
    int* body_inertiasource; // where the compiler took mass, ipos, iquat, inertia from (the
                             // model setters need it): 0 explicit (<inertial>, or none), 1 the
                             // body's geoms (inertiafromgeom), 2 rescaled or clamped by
                             // <compiler settotalmass / boundmass / boundinertia>

    // joints (njnt)
    int* jnt_type;          // gdnJointType
    int* jnt_qposadr;       // first qpos index
    int* jnt_dofadr;        // first dof index
    int* jnt_bodyid;        // body the joint belongs to
    int* jnt_limited;       // has a range
    double* jnt_pos;        // (njnt x 3) anchor in body frame
    double* jnt_axis;       // (njnt x 3) unit axis in body frame (hinge, slide)
    double* jnt_stiffness;  // spring stiffness
    double* jnt_range;      // (njnt x 2) joint limits
    double* jnt_margin;     // limit margin
    double* jnt_solref;     // (njnt x 2) limit solref
    double* jnt_solimp;     // (njnt x 5) limit solimp

    // dofs (nv)
    int* dof_bodyid;        // body id
    int* dof_jntid;         // joint id
    int* dof_parentid;      // parent dof (-1 for a root dof)
    double* dof_armature;   // rotor inertia added to the diagonal of M
    double* dof_damping;    // viscous damping (integrated implicitly by Euler)
    double* dof_frictionloss; // dry friction (a constraint; not used by the smooth step)
    double* dof_solref;     // (nv x 2) friction-loss solref (MJCF joint solreffriction)
    double* dof_solimp;     // (nv x 5) friction-loss solimp (MJCF joint solimpfriction)
    double* dof_invweight0; // (nv) inverse joint inertia at qpos0 (MuJoCo's dof_invweight0)

    // geoms (ngeom)
    int* geom_type;         // gdnGeomType
    int* geom_contype;      // contact type bitmask
    int* geom_conaffinity;  // contact affinity bitmask
    int* geom_condim;       // contact dimensionality
    int* geom_priority;     // contact priority: the higher geom's condim/friction/solref/solimp win
    int* geom_bodyid;       // body id
    int* geom_group;        // visual/selection group
    double* geom_size;      // (ngeom x 3) type-specific size
    double* geom_pos;       // (ngeom x 3) position in body frame
    double* geom_quat;      // (ngeom x 4) orientation in body frame
    double* geom_friction;  // (ngeom x 3) slide, spin, roll
    double* geom_solmix;    // mixing weight
    double* geom_solref;    // (ngeom x 2)
    double* geom_solimp;    // (ngeom x 5)
    double* geom_margin;    // contact margin
    double* geom_gap;       // contact gap
    double* geom_fluid;     // (ngeom x GDN_NFLUID) the ellipsoid fluid model (fluidshape): on
                            // (0, 1), blunt, slender and angular drag, Kutta and Magnus lift
                            // coefficients, virtual mass (3), virtual inertia (3)
    double* geom_rgba;      // (ngeom x 4)
    int* geom_sameframe;    // derived: geom frame vs body/inertial frame (gdnSameFrame)
    double* geom_rbound;    // radius of the bounding sphere about geom_xpos (0: plane, none)
    int* geom_dataid;       // mesh id of a mesh geom, else -1
    // the compiler's record of geom mass (gradyn; the geom-size setter recomputes a body's
    // inertia from it as the compiler does). geom_inertial = 1 when the geom is part of its
    // body's inertia from geoms (body_inertiasource 1, group in inertiagrouprange); for those,
    // the geom's mass and principal inertia in the geom frame (0 for the others)
    int* geom_inertial;     // (ngeom)
    double* geom_mass;      // (ngeom) kg
    double* geom_inertia;   // (ngeom x 3) kg m^2
    double* geom_density;   // (ngeom) kg/m^3 the mass comes from: the density attribute, 0 for
                            // mass="0", -1 for another mass attribute

    // explicit contact pairs (npair; MuJoCo's pair_* fields): geom1's body id <= geom2's
    int* pair_dim;          // contact dimensionality (1, 3, 4, 6)
    int* pair_geom1;        // geom ids
    int* pair_geom2;
    int* pair_signature;    // ((body1 + 1) << 16) + body2 + 1
    double* pair_solref;    // (npair x 2)
    double* pair_solimp;    // (npair x 5)
    double* pair_margin;    // contact margin
    double* pair_gap;       // contact gap
    double* pair_friction;  // (npair x 5) tangent1, tangent2, spin, roll1, roll2

    // excluded body pairs (nexclude)
    int* exclude_signature; // ((body1 + 1) << 16) + body2 + 1, body1 <= body2

    // sites (nsite)
    int* site_bodyid;       // body id
    double* site_pos;       // (nsite x 3) position in body frame
    double* site_quat;      // (nsite x 4) orientation in body frame
    int* site_sameframe;    // derived: site frame vs body/inertial frame (gdnSameFrame)
    int* site_type;         // gdnGeomType of the site's shape (the touch sensor's zone)
    double* site_size;      // (nsite x 3) shape sizes (geom semantics)

    // actuators (nu)
    int* actuator_trntype;    // gdnTrnType
    int* actuator_dyntype;    // gdnDynType
    int* actuator_gaintype;   // gdnGainType
    int* actuator_biastype;   // gdnBiasType
    int* actuator_trnid;      // (nu x 2) transmission target ids (joint / tendon / site, and the
                              // slider site or reference site, else -1)
    int* actuator_ctrllimited;  // clamp ctrl to ctrlrange
    int* actuator_forcelimited; // clamp force to forcerange
    double* actuator_gear;      // (nu x 6) transmission gear
    double* actuator_cranklength; // (nu) slider-crank rod length (read by that type only)
    double* actuator_gainprm;   // (nu x GDN_NGAIN) gain parameters
    double* actuator_biasprm;   // (nu x GDN_NBIAS) bias parameters
    double* actuator_ctrlrange; // (nu x 2)
    double* actuator_forcerange;// (nu x 2)
    int* actuator_actlimited;   // clamp act to actrange after each step's integration
    double* actuator_dynprm;    // (nu x GDN_NDYN) dynamics parameters (filter: tau; muscle:
                                // tau_act, tau_deact)
    double* actuator_actrange;  // (nu x 2)
    double* actuator_lengthrange; // (nu x 2) transmission length range (muscles' L0)
    double* actuator_acc0;      // (nu) |M^-1 moment| at qpos0 (MuJoCo's; the muscles' force
                                // scale when force < 0)

    // tendons (ntendon; MuJoCo 2.2.2's tendon_* fields): each tendon's path is
    // wrap_*[tendon_adr .. tendon_adr + tendon_num); a fixed tendon's length is
    // sum coef q_joint, its Jacobian ten_J (gdnData) constant
    int* tendon_adr;        // first path object
    int* tendon_num;        // number of path objects
    int* tendon_limited;    // has a length range (limit constraint rows)
    double* tendon_range;   // (ntendon x 2) length limits
    double* tendon_solref_lim; // (ntendon x 2) limit solref
    double* tendon_solimp_lim; // (ntendon x 5) limit solimp
    double* tendon_solref_fri; // (ntendon x 2) friction-loss solref
    double* tendon_solimp_fri; // (ntendon x 5) friction-loss solimp
    double* tendon_margin;     // limit margin
    double* tendon_stiffness;  // spring: qfrc_passive -= ten_J' k (length - lengthspring)
    double* tendon_damping;    // damper: qfrc_passive -= ten_J' b velocity (explicit)
    double* tendon_frictionloss; // dry friction (a constraint row when > 0)
    double* tendon_lengthspring; // spring rest length (springlength; < 0 in MJCF: the length
                                 // at qpos_spring, computed by the loader)
    double* tendon_length0;    // length at qpos0
    double* tendon_invweight0; // J M^-1 J' at qpos0 (the rows' diagApprox)

    // tendon path objects (nwrap)
    int* wrap_type;         // gdnWrapType
    int* wrap_objid;        // joint, site or geom id (-1 for a pulley)
    double* wrap_prm;       // coef (joint), divisor (pulley), side site (geom)

    // equality constraints (neq): MuJoCo 2.2.2's eq_* layout (src/constraint/constraint.h)
    int* eq_type;           // 0 connect, 1 weld, 2 joint, 3 tendon (MuJoCo's mjtEq)
    int* eq_obj1id;         // body 1 (connect, weld), joint 1 (joint) or tendon 1 (tendon)
    int* eq_obj2id;         // body 2 (0: the world), or joint / tendon 2 (-1: absent)
    int* eq_active;         // 1: enforced
    double* eq_solref;      // (neq x 2)
    double* eq_solimp;      // (neq x 5)
    double* eq_data;        // (neq x GDN_NEQDATA) anchors, relpose, torquescale; polycoef

    // sensors (nsensor; MuJoCo 2.2.2's sensor_* fields, include/gradyn/sensor.h)
    int* sensor_type;       // gdnSensorType
    int* sensor_datatype;   // gdnDataType (real, positive, axis, quaternion)
    int* sensor_needstage;  // gdnStage: position, velocity or acceleration
    int* sensor_objtype;    // gdnObjType of the sensorized object
    int* sensor_objid;      // its id (-1: none, e.g. clock)
    int* sensor_reftype;    // gdnObjType of the reference frame (frame sensors; 0: world)
    int* sensor_refid;      // its id (-1: the world frame)
    int* sensor_dim;        // number of values
    int* sensor_adr;        // first value in sensordata
    double* sensor_cutoff;  // clamp: |value| <= cutoff (real), value <= cutoff (positive); 0 off
    double* sensor_noise;   // noise standard deviation (kept, never applied: sensor.h)
    // keyframes (nkey)
    double* key_time;       // (nkey)
    double* key_qpos;       // (nkey x nq)
    double* key_qvel;       // (nkey x nv)
    double* key_ctrl;       // (nkey x nu)
    double* key_act;        // (nkey x na)
    double* key_mpos;       // (nkey x nmocap x 3) mocap positions
    double* key_mquat;      // (nkey x nmocap x 4) mocap orientations (unit)

    // default configuration and spring reference
    double* qpos0;          // (nq) neutral configuration
    double* qpos_spring;    // (nq) spring reference configuration

    // collision meshes (penalty contact): vertices grouped by body, in body id order
    int* body_vertadr;      // (nbody) first vertex of the body's skin
    int* body_vertnum;      // (nbody) number of skin vertices
    double* vert_pos;       // (nvert x 3) vertex position in the body frame (own allocation)

    // convex meshes (nmesh; MuJoCo 2.2.2's mesh_* layout): vertices re-centred at the mesh's
    // centre of mass and rotated to its principal axes (geom_pos/quat absorb that frame);
    // mesh_graph holds each mesh's convex hull as numvert, numface, vert_edgeadr[numvert],
    // vert_globalid[numvert], edge_localid[numvert + 3 numface] (each hull vertex's neighbours,
    // -1 terminated), face_globalid[3 numface] (outward triangles); own allocation
    int* mesh_vertadr;      // (nmesh) first vertex
    int* mesh_vertnum;      // (nmesh) number of vertices
    int* mesh_faceadr;      // (nmesh) first triangle
    int* mesh_facenum;      // (nmesh) number of triangles
    int* mesh_graphadr;     // (nmesh) first int of the hull graph (-1: none)
    double* mesh_vert;      // (nmeshvert x 3) vertex positions in the mesh frame
    int* mesh_face;         // (nmeshface x 3) vertex ids (mesh-local) of each triangle
    int* mesh_graph;        // (nmeshgraph) hull graphs

    // names: offsets into the '\0'-separated names buffer (empty string when unnamed)
    int* name_bodyadr;      // (nbody)
    int* name_jntadr;       // (njnt)
    int* name_geomadr;      // (ngeom)
    int* name_siteadr;      // (nsite)
    int* name_actuatoradr;  // (nu)
    int* name_keyadr;       // (nkey)
    int* name_tendonadr;    // (ntendon)
    int* name_sensoradr;    // (nsensor)
    char* names;            // (nnames)

    void* buffer_;          // internal: the single allocation backing every array
    void* vert_buffer_;     // internal: vert_pos storage (NULL when nvert is 0)
    void* mesh_buffer_;     // internal: mesh_* storage (NULL when nmesh is 0)
} gdnModel;

#ifdef __cplusplus
}
#endif

#endif
