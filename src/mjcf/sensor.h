// SPDX-License-Identifier: Apache-2.0
// Internal: compiling the spec's sensors (MuJoCo 2.2.2's mjCSensor::Compile, mjcf/sensor.c).
#ifndef GDN_MJCF_SENSOR_H
#define GDN_MJCF_SENSOR_H

#include "mjcf/spec.h"

// the number of sensor values (the sum of the sensors' dimensions) into *nsensordata; 0 ok,
// -1 after an error (a negative user dim)
int gdn_mjcf_sensor_count(gdnSpec* spec, int* nsensordata);

// the sensor_* arrays of m (its nsensor from the spec; names, bodies, joints, geoms, sites and
// actuators already in m): objects by name, type checks, dimensions and addresses; 0 ok, -1
// after an error
int gdn_mjcf_fill_sensors(gdnSpec* spec, gdnModel* m);

#endif
