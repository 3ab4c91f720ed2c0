// SPDX-License-Identifier: Apache-2.0
// Sensor compilation (MuJoCo 2.2.2's mjCSensor::Compile): objects by name, dimension, data type
// and stage of each type, the checks, and the sensor_* arrays with their sensordata addresses.
#include "mjcf/sensor.h"

#include <string.h>

#include <gradyn/sensor.h>

// dimension, data type and stage of a sensor type (user sensors: as given)
static void sensor_shape(const gdnSpecSensor* s, int* dim, int* datatype, int* stage) {
    *datatype = GDN_DATATYPE_REAL;
    *dim = 1;
    switch (s->type) {
    case GDN_SENS_TOUCH:
    case GDN_SENS_RANGEFINDER:
        *datatype = GDN_DATATYPE_POSITIVE;
        *stage = s->type == GDN_SENS_TOUCH ? GDN_STAGE_ACC : GDN_STAGE_POS;
        return;
    case GDN_SENS_ACCELEROMETER:
    case GDN_SENS_FORCE:
    case GDN_SENS_TORQUE:
    case GDN_SENS_FRAMELINACC:
    case GDN_SENS_FRAMEANGACC:
        *dim = 3;
        *stage = GDN_STAGE_ACC;
        return;
    case GDN_SENS_VELOCIMETER:
    case GDN_SENS_GYRO:
    case GDN_SENS_BALLANGVEL:
    case GDN_SENS_FRAMELINVEL:
    case GDN_SENS_FRAMEANGVEL:
    case GDN_SENS_SUBTREELINVEL:
    case GDN_SENS_SUBTREEANGMOM:
        *dim = 3;
        *stage = GDN_STAGE_VEL;
        return;
    case GDN_SENS_MAGNETOMETER:
    case GDN_SENS_FRAMEPOS:
    case GDN_SENS_SUBTREECOM:
        *dim = 3;
        *stage = GDN_STAGE_POS;
        return;
    case GDN_SENS_FRAMEXAXIS:
    case GDN_SENS_FRAMEYAXIS:
    case GDN_SENS_FRAMEZAXIS:
        *dim = 3;
        *datatype = GDN_DATATYPE_AXIS;
        *stage = GDN_STAGE_POS;
        return;
    case GDN_SENS_FRAMEQUAT:
    case GDN_SENS_BALLQUAT:
        *dim = 4;
        *datatype = GDN_DATATYPE_QUATERNION;
        *stage = GDN_STAGE_POS;
        return;
    case GDN_SENS_JOINTPOS:
    case GDN_SENS_ACTUATORPOS:
    case GDN_SENS_JOINTLIMITPOS:
    case GDN_SENS_CLOCK:
        *stage = GDN_STAGE_POS;
        return;
    case GDN_SENS_JOINTVEL:
    case GDN_SENS_ACTUATORVEL:
    case GDN_SENS_JOINTLIMITVEL:
        *stage = GDN_STAGE_VEL;
        return;
    case GDN_SENS_ACTUATORFRC:
    case GDN_SENS_JOINTLIMITFRC:
        *stage = GDN_STAGE_ACC;
        return;
    default: // user
        *dim = s->dim;
        *datatype = s->datatype;
        *stage = s->needstage;
        return;
    }
}

int gdn_mjcf_sensor_count(gdnSpec* spec, int* nsensordata) {
    long total = 0;
    for (int i = 0; i < spec->nsensor; i++) {
        const gdnSpecSensor* s = &spec->sensors[i];
        int dim, datatype, stage;
        sensor_shape(s, &dim, &datatype, &stage);
        if (dim < 0 || dim > 1000000) {
            return gdn_xml_error(spec->diag, GDN_ERR_MODEL, s->elem,
                                 "sensor dim must be positive: sensor '%.64s' (id = %d)",
                                 s->name, i);
        }
        total += dim;
    }
    if (total > 10000000) {
        return gdn_xml_error(spec->diag, GDN_ERR_MODEL, NULL, "too many sensor values");
    }
    *nsensordata = (int)total;
    return 0;
}

// the id of a named object of a type in the compiled model, -1 when absent; *n the count of
// that type (0 for a type gradyn does not have)
static int find_object(const gdnModel* m, int type, const char* name) {
    switch (type) {
    case GDN_OBJ_BODY:
    case GDN_OBJ_XBODY:
        return gdn_name2id(m, "body", name);
    case GDN_OBJ_JOINT:
        return gdn_name2id(m, "joint", name);
    case GDN_OBJ_GEOM:
        return gdn_name2id(m, "geom", name);
    case GDN_OBJ_SITE:
        return gdn_name2id(m, "site", name);
    case GDN_OBJ_ACTUATOR:
        return gdn_name2id(m, "actuator", name);
    default:
        return -1;
    }
}

static int spatial_type(int type) {
    return type == GDN_OBJ_BODY || type == GDN_OBJ_XBODY || type == GDN_OBJ_GEOM ||
           type == GDN_OBJ_SITE || type == GDN_OBJ_CAMERA;
}

// compile sensor i into the model's arrays; -1 after an error
static int compile_sensor(gdnSpec* spec, gdnModel* m, int i, int adr) {
    const gdnSpecSensor* s = &spec->sensors[i];
    gdnDiag* d = spec->diag;
    gdnXmlElem* e = s->elem;
    const char* nm = s->name;
    if (s->noise < 0) {
        return gdn_xml_error(d, GDN_ERR_MODEL, e, "negative noise in sensor '%.64s' (id = %d)",
                             nm, i);
    }
    if (s->cutoff < 0) {
        return gdn_xml_error(d, GDN_ERR_MODEL, e, "negative cutoff in sensor '%.64s' (id = %d)",
                             nm, i);
    }
    if (s->objtype == GDN_OBJ_CAMERA || s->reftype == GDN_OBJ_CAMERA) {
        return gdn_xml_error(d, GDN_ERR_UNSUPPORTED, e,
                             "sensors on cameras are not supported (gradyn loads no cameras)");
    }
    int objid = -1, refid = -1;
    if (s->objtype != GDN_OBJ_UNKNOWN) {
        if (!s->objname[0]) {
            return gdn_xml_error(d, GDN_ERR_MODEL, e,
                                 "missing name of sensorized object in sensor '%.64s' (id = %d)",
                                 nm, i);
        }
        objid = find_object(m, s->objtype, s->objname);
        if (objid < 0) {
            return gdn_xml_error(d, GDN_ERR_MODEL, e,
                                 "unrecognized name '%.64s' of sensorized object in sensor "
                                 "'%.64s' (id = %d)",
                                 s->objname, nm, i);
        }
    } else if (s->type != GDN_SENS_CLOCK) {
        return gdn_xml_error(d, GDN_ERR_MODEL, e, "invalid type in sensor '%.64s' (id = %d)", nm,
                             i);
    }
    if (s->reftype != GDN_OBJ_UNKNOWN) {
        if (!s->refname[0]) {
            return gdn_xml_error(d, GDN_ERR_MODEL, e,
                                 "missing name of reference frame object in sensor '%.64s'", nm);
        }
        refid = find_object(m, s->reftype, s->refname);
        if (refid < 0) {
            return gdn_xml_error(d, GDN_ERR_MODEL, e,
                                 "unrecognized name '%.64s' of reference frame object in sensor "
                                 "'%.64s' (id = %d)",
                                 s->refname, nm, i);
        }
        if (!spatial_type(s->reftype)) {
            return gdn_xml_error(d, GDN_ERR_MODEL, e,
                                 "reference frame object must be (x)body, geom, site or camera: "
                                 "sensor '%.64s' (id = %d)",
                                 nm, i);
        }
    }
    int dim, datatype, stage;
    sensor_shape(s, &dim, &datatype, &stage);
    const char* need = NULL;
    switch (s->type) {
    case GDN_SENS_TOUCH:
    case GDN_SENS_ACCELEROMETER:
    case GDN_SENS_VELOCIMETER:
    case GDN_SENS_GYRO:
    case GDN_SENS_FORCE:
    case GDN_SENS_TORQUE:
    case GDN_SENS_MAGNETOMETER:
    case GDN_SENS_RANGEFINDER:
        need = s->objtype == GDN_OBJ_SITE ? NULL : "sensor must be attached to site";
        break;
    case GDN_SENS_JOINTPOS:
    case GDN_SENS_JOINTVEL:
        if (s->objtype != GDN_OBJ_JOINT) {
            need = "sensor must be attached to joint";
        } else if (m->jnt_type[objid] != GDN_JNT_SLIDE && m->jnt_type[objid] != GDN_JNT_HINGE) {
            need = "joint must be slide or hinge in sensor";
        }
        break;
    case GDN_SENS_ACTUATORPOS:
    case GDN_SENS_ACTUATORVEL:
    case GDN_SENS_ACTUATORFRC:
        need = s->objtype == GDN_OBJ_ACTUATOR ? NULL : "sensor must be attached to actuator";
        break;
    case GDN_SENS_BALLQUAT:
    case GDN_SENS_BALLANGVEL:
        if (s->objtype != GDN_OBJ_JOINT) {
            need = "sensor must be attached to joint";
        } else if (m->jnt_type[objid] != GDN_JNT_BALL) {
            need = "joint must be ball in sensor";
        }
        break;
    case GDN_SENS_JOINTLIMITPOS:
    case GDN_SENS_JOINTLIMITVEL:
    case GDN_SENS_JOINTLIMITFRC:
        if (s->objtype != GDN_OBJ_JOINT) {
            need = "sensor must be attached to joint";
        } else if (!m->jnt_limited[objid]) {
            need = "joint must be limited in sensor";
        }
        break;
    case GDN_SENS_FRAMEPOS:
    case GDN_SENS_FRAMEQUAT:
    case GDN_SENS_FRAMEXAXIS:
    case GDN_SENS_FRAMEYAXIS:
    case GDN_SENS_FRAMEZAXIS:
    case GDN_SENS_FRAMELINVEL:
    case GDN_SENS_FRAMEANGVEL:
    case GDN_SENS_FRAMELINACC:
    case GDN_SENS_FRAMEANGACC:
        need = spatial_type(s->objtype)
                   ? NULL
                   : "sensor must be attached to (x)body, geom, site or camera:";
        break;
    case GDN_SENS_SUBTREECOM:
    case GDN_SENS_SUBTREELINVEL:
    case GDN_SENS_SUBTREEANGMOM:
        need = s->objtype == GDN_OBJ_BODY ? NULL : "sensor must be attached to body";
        break;
    case GDN_SENS_CLOCK:
        break;
    case GDN_SENS_USER:
        if (datatype == GDN_DATATYPE_AXIS && dim != 3) {
            need = "datatype AXIS requires dim=3 in sensor";
        } else if (datatype == GDN_DATATYPE_QUATERNION && dim != 4) {
            need = "datatype QUATERNION requires dim=4 in sensor";
        }
        break;
    default:
        need = "invalid type in sensor";
    }
    if (need) {
        return gdn_xml_error(d, GDN_ERR_MODEL, e, "%s '%.64s' (id = %d)", need, nm, i);
    }
    if (s->cutoff > 0 &&
        (datatype == GDN_DATATYPE_AXIS || datatype == GDN_DATATYPE_QUATERNION)) {
        return gdn_xml_error(d, GDN_ERR_MODEL, e,
                             "cutoff applied to axis or quaternion datatype in sensor '%.64s' "
                             "(id = %d)",
                             nm, i);
    }
    // MuJoCo adds noise only with the sensornoise enable flag (off by default); gradyn never
    if (s->noise > 0 && (m->opt.enableflags & GDN_ENBL_SENSORNOISE)) {
        gdn_diag_warn(d, e->file, e->line, e->name,
                      "sensor noise is not applied (gradyn's sensors are noise-free)");
    }
    m->sensor_type[i] = s->type;
    m->sensor_datatype[i] = datatype;
    m->sensor_needstage[i] = stage;
    m->sensor_objtype[i] = s->objtype;
    m->sensor_objid[i] = objid;
    m->sensor_reftype[i] = s->reftype;
    m->sensor_refid[i] = refid;
    m->sensor_dim[i] = dim;
    m->sensor_adr[i] = adr;
    m->sensor_cutoff[i] = s->cutoff;
    m->sensor_noise[i] = s->noise;
    return 0;
}

int gdn_mjcf_fill_sensors(gdnSpec* spec, gdnModel* m) {
    int adr = 0;
    for (int i = 0; i < m->nsensor; i++) {
        if (compile_sensor(spec, m, i, adr) < 0) {
            return -1;
        }
        adr += m->sensor_dim[i];
    }
    return 0;
}
