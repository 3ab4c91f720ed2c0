// SPDX-License-Identifier: Apache-2.0
// The list of gdnModel's arrays in the single allocation (an X-macro), shared by the allocator
// and the field iterator.
#ifndef GDN_MODEL_ARRAYS_H
#define GDN_MODEL_ARRAYS_H

#include <gradyn/model.h>

// the model's arrays in layout order: X(type, field, count-expression); the count expressions
// use the size_t locals nq, nv, nu, nbody, njnt, ngeom, nsite, nkey, nnames, npair, nexclude, neq,
// nmocap, nsensor, ntendon, nwrap
#define GDN_MODEL_ARRAYS(X)                      \
    X(int, body_parentid, nbody)                 \
    X(int, body_rootid, nbody)                   \
    X(int, body_weldid, nbody)                   \
    X(int, body_jntnum, nbody)                   \
    X(int, body_jntadr, nbody)                   \
    X(int, body_dofnum, nbody)                   \
    X(int, body_dofadr, nbody)                   \
    X(int, body_geomnum, nbody)                  \
    X(int, body_geomadr, nbody)                  \
    X(double, body_pos, nbody * 3)               \
    X(double, body_quat, nbody * 4)              \
    X(double, body_ipos, nbody * 3)              \
    X(double, body_iquat, nbody * 4)             \
    X(double, body_mass, nbody)                  \
    X(double, body_subtreemass, nbody)           \
    X(double, body_inertia, nbody * 3)           \
    X(int, body_sameframe, nbody)                \
    X(int, body_mocapid, nbody)                  \
    X(double, body_invweight0, nbody * 2)        \
    X(int, body_inertiasource, nbody)            \
    X(int, jnt_type, njnt)                       \
    X(int, jnt_qposadr, njnt)                    \
    X(int, jnt_dofadr, njnt)                     \
    X(int, jnt_bodyid, njnt)                     \
    X(int, jnt_limited, njnt)                    \
    X(double, jnt_pos, njnt * 3)                 \
    X(double, jnt_axis, njnt * 3)                \
    X(double, jnt_stiffness, njnt)               \
    X(double, jnt_range, njnt * 2)               \
    X(double, jnt_margin, njnt)                  \
    X(double, jnt_solref, njnt * GDN_NREF)       \
    X(double, jnt_solimp, njnt * GDN_NIMP)       \
    X(int, dof_bodyid, nv)                       \
    X(int, dof_jntid, nv)                        \
    X(int, dof_parentid, nv)                     \
    X(double, dof_armature, nv)                  \
    X(double, dof_damping, nv)                   \
    X(double, dof_frictionloss, nv)              \
    X(double, dof_solref, nv * GDN_NREF)         \
    X(double, dof_solimp, nv * GDN_NIMP)         \
    X(double, dof_invweight0, nv)                \
    X(int, geom_type, ngeom)                     \
    X(int, geom_contype, ngeom)                  \
    X(int, geom_conaffinity, ngeom)              \
    X(int, geom_condim, ngeom)                   \
    X(int, geom_priority, ngeom)                 \
    X(int, geom_bodyid, ngeom)                   \
    X(int, geom_group, ngeom)                    \
    X(double, geom_size, ngeom * 3)              \
    X(double, geom_pos, ngeom * 3)               \
    X(double, geom_quat, ngeom * 4)              \
    X(double, geom_friction, ngeom * 3)          \
    X(double, geom_solmix, ngeom)                \
    X(double, geom_solref, ngeom * GDN_NREF)     \
    X(double, geom_solimp, ngeom * GDN_NIMP)     \
    X(double, geom_margin, ngeom)                \
    X(double, geom_gap, ngeom)                   \
    X(double, geom_fluid, ngeom * GDN_NFLUID)    \
    X(double, geom_rgba, ngeom * 4)              \
    X(int, geom_sameframe, ngeom)                \
    X(int, geom_dataid, ngeom)                   \
    X(double, geom_rbound, ngeom)                \
    X(int, geom_inertial, ngeom)                 \
    X(double, geom_mass, ngeom)                  \
    X(double, geom_inertia, ngeom * 3)           \
    X(double, geom_density, ngeom)               \
    X(int, pair_dim, npair)                      \
    X(int, pair_geom1, npair)                    \
    X(int, pair_geom2, npair)                    \
    X(int, pair_signature, npair)                \
    X(double, pair_solref, npair * GDN_NREF)     \
    X(double, pair_solimp, npair * GDN_NIMP)     \
    X(double, pair_margin, npair)                \
    X(double, pair_gap, npair)                   \
    X(double, pair_friction, npair * 5)          \
    X(int, exclude_signature, nexclude)          \
    X(int, site_bodyid, nsite)                   \
    X(double, site_pos, nsite * 3)               \
    X(double, site_quat, nsite * 4)              \
    X(int, site_sameframe, nsite)                \
    X(int, site_type, nsite)                     \
    X(double, site_size, nsite * 3)              \
    X(int, actuator_trntype, nu)                 \
    X(int, actuator_dyntype, nu)                 \
    X(int, actuator_gaintype, nu)                \
    X(int, actuator_biastype, nu)                \
    X(int, actuator_trnid, nu * 2)               \
    X(int, actuator_ctrllimited, nu)             \
    X(int, actuator_forcelimited, nu)            \
    X(double, actuator_gear, nu * 6)             \
    X(double, actuator_cranklength, nu)          \
    X(double, actuator_gainprm, nu * GDN_NGAIN)  \
    X(double, actuator_biasprm, nu * GDN_NBIAS)  \
    X(double, actuator_ctrlrange, nu * 2)        \
    X(double, actuator_forcerange, nu * 2)       \
    X(int, actuator_actlimited, nu)              \
    X(double, actuator_dynprm, nu * GDN_NDYN)    \
    X(double, actuator_actrange, nu * 2)         \
    X(double, actuator_lengthrange, nu * 2)      \
    X(double, actuator_acc0, nu)                 \
    X(int, tendon_adr, ntendon)                  \
    X(int, tendon_num, ntendon)                  \
    X(int, tendon_limited, ntendon)              \
    X(double, tendon_range, ntendon * 2)         \
    X(double, tendon_solref_lim, ntendon * GDN_NREF) \
    X(double, tendon_solimp_lim, ntendon * GDN_NIMP) \
    X(double, tendon_solref_fri, ntendon * GDN_NREF) \
    X(double, tendon_solimp_fri, ntendon * GDN_NIMP) \
    X(double, tendon_margin, ntendon)            \
    X(double, tendon_stiffness, ntendon)         \
    X(double, tendon_damping, ntendon)           \
    X(double, tendon_frictionloss, ntendon)      \
    X(double, tendon_lengthspring, ntendon)      \
    X(double, tendon_length0, ntendon)           \
    X(double, tendon_invweight0, ntendon)        \
    X(int, wrap_type, nwrap)                     \
    X(int, wrap_objid, nwrap)                    \
    X(double, wrap_prm, nwrap)                   \
    X(int, eq_type, neq)                         \
    X(int, eq_obj1id, neq)                       \
    X(int, eq_obj2id, neq)                       \
    X(int, eq_active, neq)                       \
    X(double, eq_solref, neq * GDN_NREF)         \
    X(double, eq_solimp, neq * GDN_NIMP)         \
    X(double, eq_data, neq * GDN_NEQDATA)        \
    X(int, sensor_type, nsensor)                 \
    X(int, sensor_datatype, nsensor)             \
    X(int, sensor_needstage, nsensor)            \
    X(int, sensor_objtype, nsensor)              \
    X(int, sensor_objid, nsensor)                \
    X(int, sensor_reftype, nsensor)              \
    X(int, sensor_refid, nsensor)                \
    X(int, sensor_dim, nsensor)                  \
    X(int, sensor_adr, nsensor)                  \
    X(double, sensor_cutoff, nsensor)            \
    X(double, sensor_noise, nsensor)             \
    X(double, key_time, nkey)                    \
    X(double, key_qpos, nkey * nq)               \
    X(double, key_qvel, nkey * nv)               \
    X(double, key_ctrl, nkey * nu)               \
    X(double, key_act, nkey * na)                \
    X(double, key_mpos, nkey * nmocap * 3)       \
    X(double, key_mquat, nkey * nmocap * 4)      \
    X(double, qpos0, nq)                         \
    X(double, qpos_spring, nq)                   \
    X(int, body_vertadr, nbody)                  \
    X(int, body_vertnum, nbody)                  \
    X(int, name_bodyadr, nbody)                  \
    X(int, name_jntadr, njnt)                    \
    X(int, name_geomadr, ngeom)                  \
    X(int, name_siteadr, nsite)                  \
    X(int, name_actuatoradr, nu)                 \
    X(int, name_keyadr, nkey)                    \
    X(int, name_tendonadr, ntendon)              \
    X(int, name_sensoradr, nsensor)              \
    X(char, names, nnames)

#endif
