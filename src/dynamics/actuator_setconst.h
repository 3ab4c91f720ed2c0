// SPDX-License-Identifier: Apache-2.0
// Internal: the actuators' compile-time constants (MuJoCo 2.2.2's mj_setConst actuator_acc0 and
// mj_setLengthRange), computed once at load and constant afterwards.
#ifndef GDN_DYNAMICS_ACTUATOR_SETCONST_H
#define GDN_DYNAMICS_ACTUATOR_SETCONST_H

#include <stddef.h>

#include <gradyn/gradyn.h>

// MJCF <compiler><lengthrange> (MuJoCo's mjLROpt); mode: 0 none, 1 muscle, 2 muscleuser, 3 all
typedef struct gdnLengthRangeOpt {
    int mode, useexisting, uselimit;
    double accel, maxforce, timeconst, timestep, inttotal, inteval, tolrange;
} gdnLengthRangeOpt;

// MuJoCo's defaults: muscle, useexisting, no uselimit, accel 20, maxforce 0, timeconst 1,
// timestep 0.01, inttotal 10, inteval 2, tolrange 0.05
void gdn_length_range_opt_default(gdnLengthRangeOpt* opt);

// actuator_acc0 = |M^-1 moment| at qpos0 (d: the kinematics and qM at qpos0, its arena free)
gdnStatus gdn_actuator_acc0(gdnModel* m, gdnData* d);

// actuator_lengthrange of the actuators opt selects whose range is not given: the joint or
// tendon range (uselimit, limited), else MuJoCo's simulation pushing the transmission with
// acceleration accel each way (contacts, passive forces, gravity, friction loss and actuation
// off, velocity decaying with timeconst, opt->timestep) for inttotal s, the extremes of the
// last inteval s. GDN_ERR_MODEL with MuJoCo's message in err for an unstable simulation, an
// empty range or one that did not converge (tolrange); GDN_ERR_MEMORY.
gdnStatus gdn_actuator_length_range(gdnModel* m, const gdnLengthRangeOpt* opt, char* err,
                                    size_t err_size);

#endif
