// SPDX-License-Identifier: Apache-2.0
// Internal: sensordata at the state in d (MuJoCo 2.2.2's mj_sensorPos, mj_sensorVel,
// mj_sensorAcc) and the frames the sensors read.
#ifndef GDN_SENSOR_SENSOR_H
#define GDN_SENSOR_SENSOR_H

#include <gradyn/gradyn.h>
#include <gradyn/sensor.h>

// 1 when the model has sensors and they are not disabled (GDN_DSBL_SENSOR)
static inline int gdn_sensors_enabled(const gdnModel* m) {
    return m->nsensor > 0 && !(m->opt.disableflags & GDN_DSBL_SENSOR);
}

// every sensor, after the pipeline's acceleration stage (kinematics, contacts, rows, efc_vel,
// actuator outputs, the solve in d). tau (nv): the smooth forces of the velocity stage;
// hd: the implicit damping factor of d->qacc (0: d->qacc is MuJoCo's qacc; h > 0: it is the
// (M + h D)^-1 step acceleration, and MuJoCo's is recomputed when an acceleration sensor needs
// it). Writes d->sensordata, and cacc, cfrc_int, cfrc_ext when a sensor needs them
// (mj_sensorAcc's rule), subtree_linvel / angmom for the subtree velocity sensors. GDN_OK or
// GDN_ERR_MEMORY. Arena balanced
gdnStatus gdn_sensor_stages(const gdnModel* m, gdnData* d, const double* tau, double hd);

// sensors of one stage (GDN_STAGE_POS / VEL / ACC) into sensordata, with the cutoff; qacc: the
// acceleration the acceleration stage reads (NULL for the other stages)
void gdn_sensor_stage(const gdnModel* m, gdnData* d, int stage, const double* qacc);

// position and rotation of a sensor object (gdnObjType with a frame), its world quaternion
void gdn_sensor_frame(const gdnModel* m, const gdnData* d, int type, int id, const double** xpos,
                      const double** xmat);
void gdn_sensor_xquat(const gdnModel* m, const gdnData* d, int type, int id, double quat[4]);
// the body an object with a frame belongs to
int gdn_sensor_body(const gdnModel* m, int type, int id);

// the constraint row of joint j's limit among the limit rows, -1 without
int gdn_sensor_limit_row(const gdnData* d, int j);

// the same for a limit row of another type (GDN_CNSTR_LIMIT_TENDON: j a tendon)
int gdn_sensor_limit_row_of(const gdnData* d, int type, int j);

// 1 when contact j counts in the touch sensor of site: a contact of the site's body with rows
// and a positive normal force whose force ray (from the contact point into the body) meets
// the site's zone
int gdn_sensor_touch_counts(const gdnModel* m, const gdnData* d, int site, int j);

#endif
