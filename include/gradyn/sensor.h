// SPDX-License-Identifier: Apache-2.0
// Sensors: MuJoCo 2.2.2's sensor types and codes (the model's sensor_* arrays, gdnData's
// sensordata) and the sensor derivatives (tangent and adjoint of sensordata at a state).
#ifndef GRADYN_SENSOR_H
#define GRADYN_SENSOR_H

#include <gradyn/gradyn.h>

#ifdef __cplusplus
extern "C" {
#endif

// sensor types: values equal MuJoCo 2.2.2's mjtSensor (the derivatives below say which have
// one); user sensors (MuJoCo fills them in a callback, gradyn has none) keep zeros in
// sensordata
typedef enum gdnSensorType {
    GDN_SENS_TOUCH = 0,      // contact normal forces summed over the site's zone (acc)
    GDN_SENS_ACCELEROMETER,  // linear acceleration of the site, site frame, gravity included
    GDN_SENS_VELOCIMETER,    // linear velocity of the site, site frame (vel)
    GDN_SENS_GYRO,           // angular velocity, site frame (vel)
    GDN_SENS_FORCE,          // force between the site's body and its parent, site frame (acc)
    GDN_SENS_TORQUE,         // torque between them about the site, site frame (acc)
    GDN_SENS_MAGNETOMETER,   // opt.magnetic in the site frame (pos)
    GDN_SENS_RANGEFINDER,    // distance along the site's z axis to the nearest geom, -1 none
    GDN_SENS_JOINTPOS,       // hinge / slide position (pos)
    GDN_SENS_JOINTVEL,       // hinge / slide velocity (vel)
    GDN_SENS_TENDONPOS,
    GDN_SENS_TENDONVEL,
    GDN_SENS_ACTUATORPOS,    // actuator_length (pos)
    GDN_SENS_ACTUATORVEL,    // actuator_velocity (vel)
    GDN_SENS_ACTUATORFRC,    // actuator_force (acc)
    GDN_SENS_BALLQUAT,       // ball joint quaternion as in qpos (pos)
    GDN_SENS_BALLANGVEL,     // ball joint angular velocity (vel)
    GDN_SENS_JOINTLIMITPOS,  // efc_pos - efc_margin of the joint's limit row, 0 without (pos)
    GDN_SENS_JOINTLIMITVEL,  // efc_vel of that row, 0 without (vel)
    GDN_SENS_JOINTLIMITFRC,  // efc_force of that row, 0 without (acc)
    GDN_SENS_TENDONLIMITPOS,
    GDN_SENS_TENDONLIMITVEL,
    GDN_SENS_TENDONLIMITFRC,
    GDN_SENS_FRAMEPOS,       // object position (in the reference frame if any) (pos)
    GDN_SENS_FRAMEQUAT,      // object orientation quaternion (relative to the reference) (pos)
    GDN_SENS_FRAMEXAXIS,     // object x axis (pos)
    GDN_SENS_FRAMEYAXIS,
    GDN_SENS_FRAMEZAXIS,
    GDN_SENS_FRAMELINVEL,    // object linear velocity, world frame or relative to the reference
    GDN_SENS_FRAMEANGVEL,    // object angular velocity (vel)
    GDN_SENS_FRAMELINACC,    // object linear acceleration, world frame, gravity included (acc)
    GDN_SENS_FRAMEANGACC,    // object angular acceleration (acc)
    GDN_SENS_SUBTREECOM,     // subtree centre of mass (pos)
    GDN_SENS_SUBTREELINVEL,  // subtree COM velocity (vel)
    GDN_SENS_SUBTREEANGMOM,  // subtree angular momentum about its COM (vel)
    GDN_SENS_CLOCK,          // time (pos)
    GDN_SENS_USER            // zeros (MuJoCo: the mjcb_sensor callback)
} gdnSensorType;

// object types of sensor_objtype / sensor_reftype: values equal MuJoCo's mjtObj
typedef enum gdnObjType {
    GDN_OBJ_UNKNOWN = 0,
    GDN_OBJ_BODY = 1,     // the body's inertial frame (xipos, ximat)
    GDN_OBJ_XBODY = 2,    // the body frame (xpos, xmat)
    GDN_OBJ_JOINT = 3,
    GDN_OBJ_GEOM = 5,
    GDN_OBJ_SITE = 6,
    GDN_OBJ_CAMERA = 7,   // not loaded by gradyn (a frame sensor on a camera is refused)
    GDN_OBJ_TENDON = 17,
    GDN_OBJ_ACTUATOR = 18
} gdnObjType;

// sensor value kinds (MuJoCo's mjtDataType) and stages (mjtStage)
typedef enum gdnDataType {
    GDN_DATATYPE_REAL = 0,
    GDN_DATATYPE_POSITIVE = 1,
    GDN_DATATYPE_AXIS = 2,
    GDN_DATATYPE_QUATERNION = 3
} gdnDataType;
typedef enum gdnStage {
    GDN_STAGE_NONE = 0,
    GDN_STAGE_POS = 1,
    GDN_STAGE_VEL = 2,
    GDN_STAGE_ACC = 3
} gdnStage;

// When sensordata is computed: by every gdn_forward and gdn_step, at the state the call starts
// from (MuJoCo 2.2.2's mj_forward / mj_step: an RK4 step computes them in its first stage only),
// unless opt.disableflags has GDN_DSBL_SENSOR (then sensordata keeps its values). The step
// derivatives (derivative.h) do not compute them (sensordata keeps its values). Noise: MuJoCo
// adds noise only with enableflags sensornoise (off by default); gradyn never adds it (the
// loader warns when a model enables it with noise > 0). cutoff clamps as MuJoCo does.

// Sensor derivatives at the state of the last gdn_forward in d (kinematics, velocities,
// contacts, rows and the solve as it left them; call gdn_forward first). Tangent:
//   dsensordata = d sensordata / d(qpos, qvel, ctrl) . (dq, dv, du)
// with dq a tangent of qpos in qvel's layout (nv, docs/conventions.md: q (+) eps dq), dv (nv),
// du (nu), each NULL = zero; dsensordata (nsensordata). A quaternion sensor (framequat,
// ballquat) gets the tangent of its 4 values. Adjoint: gq (nv), gv (nv), gu (nu) = the
// transposed map applied to gsensordata (nsensordata), overwritten (NULL: not wanted).
// Exact for every position- and velocity-stage sensor and for the acceleration stage's
// actuatorfrc, accelerometer, force, torque, framelinacc, frameangacc, touch, jointlimitfrc
// and tendonlimitfrc: these read gdn_forward's qacc (mj_forward's, with the constraint forces;
// never the damped or implicit step acceleration), cacc, cfrc_int and efc_force, whose
// tangents are the step derivatives' implicit differentiation of the solve at its solution
// (docs/derivatives.md) with the contact and row set and the row states held (force and
// torque with cfrc_ext's contact, connect and weld wrenches as MuJoCo forms them); touch also
// holds which contacts its zone counts. A clamped cutoff has derivative 0 (the value sits on the
// bound); user sensors are zeros (derivative 0). With an acceleration sensor other than
// actuatorfrc, d->deriv_* holds the step derivatives' report and the solve must have a
// derivative: GDN_ERR_UNCONVERGED (an unconverged solve without GDN_ENBL_ONESIDED),
// GDN_ERR_SINGULAR, GDN_ERR_UNSUPPORTED (a row or contact pair the step derivatives refuse),
// each with nothing written. An actuator sensor on a body (adhesion) transmission is
// differentiated at the fixed contact set (the contacts' points and normals moving with their
// geometry tangents, the count held). Every sensor type has a derivative; GDN_ERR_UNSUPPORTED
// (nothing written) also at a state where a sensor has none: a rangefinder's ray on a surface
// without a derivative there (a grazing ray), a tendon sensor's tendon wrapping inside without
// a root of its wrap equation, an actuator sensor's body transmission with a contact without a
// geometry derivative (its pair or its features); gdn_sensor_refusal then names the sensor and
// the cause (it returns -1 for the solve's refusals above). The adjoint skips a sensor whose
// cotangent is zero (it is not refused). GDN_ERR_ARG for a NULL m / d or another model's
// data. Call gdn_forward again after changing the model (a spatial tendon's linearization is
// cached per body-frame state, kinematics/tendon_derivative.h).
// The rangefinder's derivative holds the hit on the surface it hit (docs/derivatives.md);
// the tendon sensors' use the tendon's Jacobian row and its q-derivative. Arena balanced.
GDN_API gdnStatus gdn_sensor_jvp(const gdnModel* m, gdnData* d, const double* dq,
                                 const double* dv, const double* du, double* dsensordata);
GDN_API gdnStatus gdn_sensor_vjp(const gdnModel* m, gdnData* d, const double* gsensordata,
                                 double* gq, double* gv, double* gu);
// With the actuator activations (na): an actuatorfrc sensor of a stateful actuator reads act
// (its force law's input), and so does every sensor of qacc or efc_force; these carry act's
// tangent dact (na, NULL: 0) and cotangent gact (na, NULL: not wanted, overwritten);
// gdn_sensor_jvp / vjp are them with act held
GDN_API gdnStatus gdn_sensor_jvp_act(const gdnModel* m, gdnData* d, const double* dq,
                                     const double* dv, const double* dact, const double* du,
                                     double* dsensordata);
GDN_API gdnStatus gdn_sensor_vjp_act(const gdnModel* m, gdnData* d, const double* gsensordata,
                                     double* gq, double* gv, double* gact, double* gu);
// After a gdn_sensor_jvp / vjp (and _act) that returned GDN_ERR_UNSUPPORTED: the id of the
// sensor it refused at d's state (d->sensor_refused), with "sensor <id> '<name>' (<type>): no
// derivative at this state: <cause>" written to msg (msg_size bytes, NUL-terminated; NULL: not
// written); -1 with msg "" when the last call refused none (or m / d are invalid)
GDN_API int gdn_sensor_refusal(const gdnModel* m, const gdnData* d, char* msg, int msg_size);

#ifdef __cplusplus
}
#endif

#endif
