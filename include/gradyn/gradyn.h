// SPDX-License-Identifier: Apache-2.0
// gradyn public API: model loading, data, simulation step and rigid-body algorithms.
#ifndef GRADYN_GRADYN_H
#define GRADYN_GRADYN_H

#include <gradyn/data.h>
#include <gradyn/model.h>

#ifdef __cplusplus
extern "C" {
#endif

// the public functions: the library is compiled with hidden visibility, so these are the only
// symbols libgradyn.so exports (tests/test_exports.c counts them)
#if defined(__GNUC__)
#    define GDN_API __attribute__((visibility("default")))
#else
#    define GDN_API
#endif

#define GDN_VERSION_STRING "0.1.0"

// status codes returned by every fallible call
typedef enum gdnStatus {
    GDN_OK = 0,
    GDN_ERR_IO,          // file could not be read
    GDN_ERR_PARSE,       // malformed input (XML, numbers, JSON)
    GDN_ERR_MODEL,       // well-formed input describing an invalid model
    GDN_ERR_ARG,         // invalid argument (NULL, wrong size, out of range)
    GDN_ERR_NONFINITE,   // non-finite value in state or result
    GDN_ERR_MEMORY,      // allocation failed or arena exhausted
    GDN_ERR_UNSUPPORTED, // feature not implemented
    GDN_ERR_UNCONVERGED, // a derivative of a step whose constraint solve did not converge
    GDN_ERR_SINGULAR     // a derivative of a step whose linearized system is singular
} gdnStatus;

// human-readable name of a status code
GDN_API const char* gdn_status_string(gdnStatus status);

// ---------------------------------------------------------------- loading

// load an MJCF file; on failure *m is NULL and err holds "file:line: element: cause".
// warnings (non-fatal, e.g. an unknown attribute) go to warn when non-NULL, one per line.
// Features that change the dynamics but are not simulated are refused (gdnLoadOptions below)
GDN_API gdnStatus gdn_load_xml(const char* path, gdnModel** m, char* err, int err_size,
                               char* warn, int warn_size);

// load MJCF from memory; dir resolves <include> and asset files (NULL: current directory)
GDN_API gdnStatus gdn_load_xml_string(const char* xml, size_t len, const char* dir, gdnModel** m,
                                      char* err, int err_size, char* warn, int warn_size);

// how a model is loaded. Zero-initialize (gdnLoadOptions o = {0}) for the defaults, which
// are gdn_load_xml's: a file using anything gradyn does not simulate that changes the
// dynamics (tendons, the implicit integrator, ...) is
// refused with GDN_ERR_UNSUPPORTED and "file:line: element: X is not simulated by gradyn".
// accept_unsupported = 1 loads it anyway: each such feature is replaced by the substitute
// its warning names (e.g. "semi-implicit Euler is used", "the tendon is dropped").
typedef struct gdnLoadOptions {
    int accept_unsupported;
} gdnLoadOptions;

// gdn_load_xml / gdn_load_xml_string with options; opt NULL means the defaults
GDN_API gdnStatus gdn_load_xml_ex(const char* path, const gdnLoadOptions* opt, gdnModel** m,
                                  char* err, int err_size, char* warn, int warn_size);
GDN_API gdnStatus gdn_load_xml_string_ex(const char* xml, size_t len, const char* dir,
                                         const gdnLoadOptions* opt, gdnModel** m, char* err,
                                         int err_size, char* warn, int warn_size);

GDN_API void gdn_model_free(gdnModel* m);

// id of a named object, -1 when absent; objtype is one of "body", "joint", "geom", "site",
// "actuator", "key"
GDN_API int gdn_name2id(const gdnModel* m, const char* objtype, const char* name);

// name of an object ("" when unnamed, NULL when the id is out of range)
GDN_API const char* gdn_id2name(const gdnModel* m, const char* objtype, int id);

// ---------------------------------------------------------------- penalty ground contact

// per-vertex penalty contact with the plane z = height (docs/contact_penalty.md): every
// collision-mesh vertex with depth = height - z > 0 gets the world force
// f_z = max(0, stiffness * depth - damping * v_z) at the vertex (frictionless). When enabled it is
// part of the step gdn_step and gdn_forward take. GDN_ERR_ARG for a NULL model, non-finite
// values or negative stiffness / damping (the model is then unchanged)
GDN_API gdnStatus gdn_model_set_penalty(gdnModel* m, int enabled, double height,
                                        double stiffness, double damping);

// replace body's collision mesh by the n vertices verts (n x 3, body frame; n = 0 removes it).
// The model's vertex arrays are rebuilt (vert_pos may then live outside the model's single
// buffer; gdn_model_free releases it) and nvert changes: gdnData created before this call no
// longer matches the model (gdn_forward returns GDN_ERR_ARG for it, gdn_step an error with the
// state unchanged, never an overrun); create data after such edits.
// GDN_ERR_ARG for a NULL model, body out of range (the world body 0 included), n < 0, NULL
// verts with n > 0 or non-finite coordinates; GDN_ERR_MEMORY when allocation fails (the model is
// then unchanged)
GDN_API gdnStatus gdn_model_set_collision_mesh(gdnModel* m, int body, const double* verts,
                                               int n);

// ---------------------------------------------------------------- data

GDN_API gdnStatus gdn_data_create(const gdnModel* m, gdnData** d);
GDN_API void gdn_data_free(gdnData* d);

// reset to qpos0, zero velocity, controls and applied forces, time 0. Nothing happens for a
// NULL argument or a d created for a model of other sizes
GDN_API void gdn_data_reset(const gdnModel* m, gdnData* d);

// reset to keyframe key; GDN_ERR_ARG if out of range
GDN_API gdnStatus gdn_data_reset_keyframe(const gdnModel* m, gdnData* d, int key);

// ---------------------------------------------------------------- simulation

// one step: forward dynamics with MuJoCo's constraint solve (contacts, joint limits, equality,
// friction loss; none with GDN_DSBL_CONSTRAINT) then MuJoCo's semi-implicit Euler
// (v' = v + h qacc, q' = q (+) h v'; implicit dof damping). Returns GDN_ERR_NONFINITE (and
// leaves the state unchanged) when the state, controls or acceleration are not finite, the
// solver's GDN_ERR_MEMORY / GDN_ERR_UNSUPPORTED (state unchanged); an unconverged solve is
// reported in d->solver_converged (0), not as an error, but a solve whose acceleration, forces
// or residual are not finite is GDN_ERR_NONFINITE (state unchanged). GDN_ERR_NONFINITE too when
// time + timestep is not finite; GDN_ERR_ARG (state unchanged) for NULL arguments, a d created
// for a model of other sizes, or options out of the loader's ranges (m->opt changed after load:
// timestep <= 0, iterations < 0, a NaN tolerance, unknown solver / cone codes, ...;
// docs/architecture.md, "Input validation")
GDN_API gdnStatus gdn_step(const gdnModel* m, gdnData* d);

// forward dynamics without integration (MuJoCo's mj_forward): kinematics, qM, forces,
// qacc_smooth, contacts and constraint rows, qacc from the constraint solve. The same checks as
// gdn_step: GDN_ERR_ARG for NULL, another model's data or bad options, GDN_ERR_NONFINITE for a
// non-finite qpos, qvel or ctrl (nothing computed) or a non-finite result
GDN_API gdnStatus gdn_forward(const gdnModel* m, gdnData* d);

// inverse dynamics (MuJoCo's mj_inverse without constraints): qfrc_inverse = M qacc + C -
// qfrc_passive, armature included in M; it is the actuator + applied force that yields d->qacc.
// gdn_forward's checks of the arguments, options and state
GDN_API gdnStatus gdn_inverse(const gdnModel* m, gdnData* d);

// ---------------------------------------------------------------- algorithms (stages)

// forward kinematics: xpos, xquat, xmat, xipos, ximat, xanchor, xaxis, geom/site poses.
// Nothing happens for a NULL argument or a d created for a model of other sizes
GDN_API void gdn_kinematics(const gdnModel* m, gdnData* d);

// collision detection (MuJoCo 2.2.2's mj_collision): d->contact[0 .. ncon) from the geom poses
// (needs kinematics), in MuJoCo's deterministic order; contacts beyond d->maxcon are counted in
// d->ncon_overflow and never written. Nothing (ncon = 0) when the model disables contact or
// constraints. GDN_ERR_ARG for NULL arguments, GDN_ERR_MEMORY when the arena is exhausted
GDN_API gdnStatus gdn_collision(const gdnModel* m, gdnData* d);

// force of contact id in its contact frame (MuJoCo's mj_contactForce), from the last solve's
// efc_force (after gdn_forward or gdn_step): result = (normal, tangent1, tangent2, torsion,
// roll1, roll2), the first d->contact[id].dim entries set and the rest 0. result[0] >= 0
// pushes the geoms apart: it acts on geom2 along the frame's normal (geom1 -> geom2) and on
// geom1 opposite to it; the tangential entries likewise act on geom2 along the tangents.
// Pyramidal rows are decoded as MuJoCo does: normal = sum of the 2 (dim - 1) edge forces,
// tangent_i = (f_2i - f_2i+1) friction_i. A contact without rows (in the gap, or rows
// disabled) gives zeros. GDN_ERR_ARG for NULL arguments or id outside [0, ncon)
GDN_API gdnStatus gdn_contact_force(const gdnModel* m, const gdnData* d, int id,
                                    double result[6]);

// The stages below, called one by one: d must have been created for a model of m's sizes
// (gdn_data_create); otherwise, or with NULL m or d, they write nothing into d, the results
// gdn_rne and gdn_aba return are NaN and the Jacobians zero.

// composite rigid body algorithm: d->qM (dense, armature included); needs kinematics
GDN_API void gdn_crb(const gdnModel* m, gdnData* d);

// recursive Newton-Euler: result = M qacc + C(q, v) when flg_acc, else C(q, v) (gravity
// included); needs kinematics
GDN_API void gdn_rne(const gdnModel* m, gdnData* d, int flg_acc, double* result);

// articulated-body algorithm: qacc = (M + diag(extra))^-1 tau at the current (q, v), where
// extra (nv, NULL for none) adds to the armature; needs kinematics
GDN_API void gdn_aba(const gdnModel* m, gdnData* d, const double* tau, const double* extra,
                     double* qacc);

// passive forces (springs, damping) into d->qfrc_passive
GDN_API void gdn_passive(const gdnModel* m, gdnData* d);

// actuation: actuator_length/velocity/force and qfrc_actuator
GDN_API void gdn_actuation(const gdnModel* m, gdnData* d);

// energy: d->energy = [potential (gravity + springs), kinetic 0.5 v'Mv]; needs kinematics
GDN_API void gdn_energy(const gdnModel* m, gdnData* d);

// Jacobian of a world point attached to body: jacp, jacr (3 x nv each, NULL to skip);
// needs kinematics
GDN_API void gdn_jac(const gdnModel* m, const gdnData* d, double* jacp, double* jacr,
                     const double point[3], int body);

// Jacobians of the body frame origin and of the body COM
GDN_API void gdn_jac_body(const gdnModel* m, const gdnData* d, double* jacp, double* jacr,
                          int body);
GDN_API void gdn_jac_body_com(const gdnModel* m, const gdnData* d, double* jacp, double* jacr,
                              int body);

// ---------------------------------------------------------------- configuration manifold

// number of qpos / qvel coordinates of a joint type
GDN_API int gdn_joint_nq(int jnt_type);
GDN_API int gdn_joint_nv(int jnt_type);

// qpos <- qpos (+) dt qvel: vector addition for hinge/slide and free position, quaternion
// right-multiplication by exp(dt omega / 2) for ball and free rotation (MuJoCo's convention).
// This and the two calls below do nothing when an argument is NULL
GDN_API void gdn_integrate_pos(const gdnModel* m, double* qpos, const double* qvel, double dt);

// qvel <- (qpos2 (-) qpos1) / dt: the inverse of gdn_integrate_pos
GDN_API void gdn_difference_pos(const gdnModel* m, double* qvel, double dt, const double* qpos1,
                                const double* qpos2);

// normalize the quaternions in qpos
GDN_API void gdn_normalize_quat(const gdnModel* m, double* qpos);

// ---------------------------------------------------------------- inertia parameters

// number of inertia parameters per body: [m, cx, cy, cz, Ixx, Iyy, Izz, Ixy, Ixz, Iyz]
#define GDN_N_INERTIA_PARAMS 10

// a rigid body's inertia: mass, COM in the body frame, inertia about the COM in body axes
typedef struct gdnInertia {
    double mass;
    double com[3];
    double inertia[9]; // symmetric 3x3, row-major
} gdnInertia;

// the inertia of body b as compiled (principal form rotated into body axes); all zeros for a
// NULL model or b outside [0, nbody), nothing for a NULL out
GDN_API void gdn_body_inertia(const gdnModel* m, int b, gdnInertia* out);

// set the inertia of body b (1 <= b < nbody): body_mass (kg), body_ipos (m, body frame) and
// the principal form (body_iquat, body_inertia in kg m^2 about the COM) from an exact symmetric
// eigen-decomposition of in->inertia (its upper triangle), so gdn_body_inertia returns it to
// round-off. Every derived constant is refreshed as the loader computes it: body_subtreemass,
// body/geom/site_sameframe, stat_meaninertia, body_invweight0, dof_invweight0 and
// actuator_acc0 (at qpos0; the muscles' length ranges are not simulated again),
// body_inertiasource[b] = 0 and the body's geoms' geom_inertial / geom_mass / geom_inertia = 0
// (the inertia is explicit now). The model then equals, bit for bit, the one compiled from the MJCF
// with <inertial mass pos quat diaginertia> holding the stored values (under inertiafromgeom
// "true" that element is ignored by the compiler: the equivalent file says "auto").
// GDN_ERR_ARG (model unchanged) for a bad b, a NULL argument, non-finite values, a negative mass
// or principal moment, or a moving body left with mass or a moment below 1e-15 (the compiler's
// checks; principal moments violating A + B >= C, which the compiler refuses, are accepted, so
// optimizers and finite differences may step through them); GDN_ERR_UNSUPPORTED for a body whose
// mass the compiler rescaled or clamped (body_inertiasource 2: settotalmass, boundmass,
// boundinertia); GDN_ERR_MEMORY when the refresh cannot allocate (model unchanged). Allocates:
// not for a loop that must not allocate. gdnData made before stays valid (its sizes do not change)
GDN_API gdnStatus gdn_model_set_body_inertia(gdnModel* m, int b, const gdnInertia* in);

// ---------------------------------------------------------------- contact parameters

// contact parameters of geom g (0 <= g < ngeom) or explicit pair p (0 <= p < npair), as the MJCF
// attributes of the same name compile (no other model field derives from them, so the model
// equals the one loaded from the edited file bit for bit):
//   friction: geom (slide, spin, roll), pair (tangent1, tangent2, spin, roll1, roll2), finite
//     and >= 0 (dimensionless; spin and roll in m);
//   solref (timeconst s, dampratio) both > 0, or the direct form (-stiffness, -damping) both
//     <= 0 (a mixed form is what the constraint rows replace by the default);
//   solimp (dmin, dmax, width m, midpoint, power): dmin, dmax, midpoint in [0, 1], width >= 0,
//     power >= 1, finite.
// GDN_ERR_ARG (model unchanged) for a NULL argument, an id out of range or a value out of range
GDN_API gdnStatus gdn_model_set_geom_friction(gdnModel* m, int g, const double friction[3]);
GDN_API gdnStatus gdn_model_set_geom_solref(gdnModel* m, int g, const double solref[2]);
GDN_API gdnStatus gdn_model_set_geom_solimp(gdnModel* m, int g, const double solimp[5]);
GDN_API gdnStatus gdn_model_set_pair_friction(gdnModel* m, int p, const double friction[5]);
GDN_API gdnStatus gdn_model_set_pair_solref(gdnModel* m, int p, const double solref[2]);
GDN_API gdnStatus gdn_model_set_pair_solimp(gdnModel* m, int p, const double solimp[5]);

// size of primitive geom g (m; the three values stored as given, like size="a b c"): sphere
// radius; capsule, cylinder radius and half-length; ellipsoid, box half-sizes; plane
// (half-sizes, grid spacing). Refreshed: geom_rbound; when the geom has a collision skin that
// still derives from the geoms (not replaced by gdn_model_set_collision_mesh), its skin points
// in vert_pos (same count); when its body's inertia comes from its geoms (geom_inertial[g]),
// the geom's geom_mass / geom_inertia (its density times the new volume, or its given mass),
// the body's mass, ipos, iquat, inertia combined from its geoms as the compiler does, then
// body_subtreemass, the sameframe flags, stat_meaninertia, body_invweight0 and dof_invweight0.
// The model then equals the one compiled from the file with size="..." on that geom bit for
// bit (a fromto geom: the file gives the compiled pos and quat instead of fromto). Allocates
// when the mass changes. GDN_ERR_ARG (model unchanged) for a NULL argument, g out of range,
// non-finite values, a size the compiler rejects (the type's sizes must be > 0; plane:
// size[2] > 0) or a body inertia it would reject; GDN_ERR_UNSUPPORTED for a mesh or height
// field (the size is the mesh's), a body the compiler rescaled or clamped (body_inertiasource 2),
// a skinned geom on a body whose skin also holds a mesh geom's vertices, and a given mass the
// compiler had dropped for a vanishing volume; GDN_ERR_MEMORY (model
// unchanged) when the refresh cannot allocate
GDN_API gdnStatus gdn_model_set_geom_size(gdnModel* m, int g, const double size[3]);

// pack into the canonical 10-vector (off-diagonals read from the upper triangle)
GDN_API void gdn_inertia_params(const gdnInertia* in, double p[GDN_N_INERTIA_PARAMS]);

// unpack; each off-diagonal parameter fills both symmetric slots (exact round trip)
GDN_API void gdn_inertia_from_params(const double p[GDN_N_INERTIA_PARAMS], gdnInertia* out);

#ifdef __cplusplus
}
#endif

#endif
