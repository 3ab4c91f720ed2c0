// SPDX-License-Identifier: Apache-2.0
// The Model type: loading (from_xml_path, from_xml_string), sizes, read-only views of the
// model arrays, and the table of those arrays the named access shares.
#include "gdnpy.h" // first: Python.h precedes the standard headers
#include <stddef.h>
#include <string.h>

#define MF(name, type, rows, cols) {#name, offsetof(gdnModel, name), type, GDNPY_ROWS_##rows, cols}

// every array of gdnModel a Python caller may read (vert_pos is not here: the collision-mesh
// setter may move it, so it is copied by Model.vert_pos instead)
const gdnpyField gdnpy_model_fields[] = {
    MF(body_parentid, 'i', NBODY, 1), MF(body_rootid, 'i', NBODY, 1),
    MF(body_weldid, 'i', NBODY, 1), MF(body_jntnum, 'i', NBODY, 1),
    MF(body_jntadr, 'i', NBODY, 1), MF(body_dofnum, 'i', NBODY, 1),
    MF(body_dofadr, 'i', NBODY, 1), MF(body_geomnum, 'i', NBODY, 1),
    MF(body_geomadr, 'i', NBODY, 1), MF(body_pos, 'd', NBODY, 3),
    MF(body_quat, 'd', NBODY, 4), MF(body_ipos, 'd', NBODY, 3),
    MF(body_iquat, 'd', NBODY, 4), MF(body_mass, 'd', NBODY, 1),
    MF(body_subtreemass, 'd', NBODY, 1), MF(body_inertia, 'd', NBODY, 3),
    MF(body_sameframe, 'i', NBODY, 1), MF(body_mocapid, 'i', NBODY, 1), MF(body_invweight0, 'd', NBODY, 2),
    MF(body_inertiasource, 'i', NBODY, 1),
    MF(jnt_type, 'i', NJNT, 1), MF(jnt_qposadr, 'i', NJNT, 1), MF(jnt_dofadr, 'i', NJNT, 1),
    MF(jnt_bodyid, 'i', NJNT, 1), MF(jnt_limited, 'i', NJNT, 1), MF(jnt_pos, 'd', NJNT, 3),
    MF(jnt_axis, 'd', NJNT, 3), MF(jnt_stiffness, 'd', NJNT, 1), MF(jnt_range, 'd', NJNT, 2),
    MF(jnt_margin, 'd', NJNT, 1), MF(jnt_solref, 'd', NJNT, 2), MF(jnt_solimp, 'd', NJNT, 5),
    MF(dof_bodyid, 'i', NV, 1), MF(dof_jntid, 'i', NV, 1), MF(dof_parentid, 'i', NV, 1),
    MF(dof_armature, 'd', NV, 1), MF(dof_damping, 'd', NV, 1),
    MF(dof_frictionloss, 'd', NV, 1), MF(dof_solref, 'd', NV, 2), MF(dof_solimp, 'd', NV, 5),
    MF(dof_invweight0, 'd', NV, 1),
    MF(geom_type, 'i', NGEOM, 1), MF(geom_contype, 'i', NGEOM, 1),
    MF(geom_conaffinity, 'i', NGEOM, 1), MF(geom_condim, 'i', NGEOM, 1),
    MF(geom_priority, 'i', NGEOM, 1), MF(geom_bodyid, 'i', NGEOM, 1),
    MF(geom_group, 'i', NGEOM, 1), MF(geom_size, 'd', NGEOM, 3), MF(geom_pos, 'd', NGEOM, 3),
    MF(geom_quat, 'd', NGEOM, 4), MF(geom_friction, 'd', NGEOM, 3),
    MF(geom_solmix, 'd', NGEOM, 1), MF(geom_solref, 'd', NGEOM, 2),
    MF(geom_solimp, 'd', NGEOM, 5), MF(geom_margin, 'd', NGEOM, 1),
    MF(geom_gap, 'd', NGEOM, 1), MF(geom_rgba, 'd', NGEOM, 4),
    MF(geom_sameframe, 'i', NGEOM, 1), MF(geom_rbound, 'd', NGEOM, 1),
    MF(geom_dataid, 'i', NGEOM, 1), MF(geom_inertial, 'i', NGEOM, 1),
    MF(geom_mass, 'd', NGEOM, 1), MF(geom_inertia, 'd', NGEOM, 3),
    MF(geom_density, 'd', NGEOM, 1),
    MF(pair_dim, 'i', NPAIR, 1), MF(pair_geom1, 'i', NPAIR, 1), MF(pair_geom2, 'i', NPAIR, 1),
    MF(pair_signature, 'i', NPAIR, 1), MF(pair_solref, 'd', NPAIR, 2),
    MF(pair_solimp, 'd', NPAIR, 5), MF(pair_margin, 'd', NPAIR, 1), MF(pair_gap, 'd', NPAIR, 1),
    MF(pair_friction, 'd', NPAIR, 5), MF(exclude_signature, 'i', NEXCLUDE, 1),
    MF(site_bodyid, 'i', NSITE, 1), MF(site_pos, 'd', NSITE, 3), MF(site_quat, 'd', NSITE, 4),
    MF(site_sameframe, 'i', NSITE, 1), MF(site_type, 'i', NSITE, 1),
    MF(site_size, 'd', NSITE, 3),
    MF(sensor_type, 'i', NSENSOR, 1), MF(sensor_datatype, 'i', NSENSOR, 1),
    MF(sensor_needstage, 'i', NSENSOR, 1), MF(sensor_objtype, 'i', NSENSOR, 1),
    MF(sensor_objid, 'i', NSENSOR, 1), MF(sensor_reftype, 'i', NSENSOR, 1),
    MF(sensor_refid, 'i', NSENSOR, 1), MF(sensor_dim, 'i', NSENSOR, 1),
    MF(sensor_adr, 'i', NSENSOR, 1), MF(sensor_cutoff, 'd', NSENSOR, 1),
    MF(sensor_noise, 'd', NSENSOR, 1),
    MF(actuator_trntype, 'i', NU, 1), MF(actuator_dyntype, 'i', NU, 1),
    MF(actuator_gaintype, 'i', NU, 1), MF(actuator_biastype, 'i', NU, 1),
    MF(actuator_trnid, 'i', NU, 2), MF(actuator_ctrllimited, 'i', NU, 1),
    MF(actuator_forcelimited, 'i', NU, 1), MF(actuator_gear, 'd', NU, 6),
    MF(actuator_cranklength, 'd', NU, 1),
    MF(actuator_gainprm, 'd', NU, GDN_NGAIN), MF(actuator_biasprm, 'd', NU, GDN_NBIAS),
    MF(actuator_ctrlrange, 'd', NU, 2), MF(actuator_forcerange, 'd', NU, 2),
    MF(actuator_actlimited, 'i', NU, 1), MF(actuator_dynprm, 'd', NU, GDN_NDYN),
    MF(actuator_actrange, 'd', NU, 2), MF(actuator_lengthrange, 'd', NU, 2),
    MF(actuator_acc0, 'd', NU, 1),
    MF(eq_type, 'i', NEQ, 1), MF(eq_obj1id, 'i', NEQ, 1), MF(eq_obj2id, 'i', NEQ, 1),
    MF(eq_active, 'i', NEQ, 1), MF(eq_solref, 'd', NEQ, 2), MF(eq_solimp, 'd', NEQ, 5),
    MF(eq_data, 'd', NEQ, GDN_NEQDATA),
    MF(tendon_adr, 'i', NTENDON, 1), MF(tendon_num, 'i', NTENDON, 1),
    MF(tendon_limited, 'i', NTENDON, 1), MF(tendon_range, 'd', NTENDON, 2),
    MF(tendon_solref_lim, 'd', NTENDON, 2), MF(tendon_solimp_lim, 'd', NTENDON, 5),
    MF(tendon_solref_fri, 'd', NTENDON, 2), MF(tendon_solimp_fri, 'd', NTENDON, 5),
    MF(tendon_margin, 'd', NTENDON, 1), MF(tendon_stiffness, 'd', NTENDON, 1),
    MF(tendon_damping, 'd', NTENDON, 1), MF(tendon_frictionloss, 'd', NTENDON, 1),
    MF(tendon_lengthspring, 'd', NTENDON, 1), MF(tendon_length0, 'd', NTENDON, 1),
    MF(tendon_invweight0, 'd', NTENDON, 1),
    MF(wrap_type, 'i', NWRAP, 1), MF(wrap_objid, 'i', NWRAP, 1), MF(wrap_prm, 'd', NWRAP, 1),
    MF(key_time, 'd', NKEY, 1), MF(key_qpos, 'd', NKEY, -1), MF(key_qvel, 'd', NKEY, -2),
    MF(key_ctrl, 'd', NKEY, -3), MF(key_act, 'd', NKEY, -7), MF(key_mpos, 'd', NKEY, -5), MF(key_mquat, 'd', NKEY, -6),
    MF(qpos0, 'd', NQ, 1), MF(qpos_spring, 'd', NQ, 1),
    MF(mesh_vertadr, 'i', NMESH, 1), MF(mesh_vertnum, 'i', NMESH, 1),
    MF(mesh_faceadr, 'i', NMESH, 1), MF(mesh_facenum, 'i', NMESH, 1),
    MF(mesh_graphadr, 'i', NMESH, 1), MF(mesh_vert, 'd', NMESHVERT, 3),
    MF(mesh_face, 'i', NMESHFACE, 3), MF(mesh_graph, 'i', NMESHGRAPH, 1),
    {NULL, 0, 0, 0, 0},
};

Py_ssize_t gdnpy_rows(const gdnModel* m, const gdnData* d, int rows)
{
    switch (rows) {
    case GDNPY_ROWS_NQ: return m->nq;
    case GDNPY_ROWS_NV: return m->nv;
    case GDNPY_ROWS_NU: return m->nu;
    case GDNPY_ROWS_NA: return m->na;
    case GDNPY_ROWS_NBODY: return m->nbody;
    case GDNPY_ROWS_NJNT: return m->njnt;
    case GDNPY_ROWS_NGEOM: return m->ngeom;
    case GDNPY_ROWS_NSITE: return m->nsite;
    case GDNPY_ROWS_NKEY: return m->nkey;
    case GDNPY_ROWS_NPAIR: return m->npair;
    case GDNPY_ROWS_NEXCLUDE: return m->nexclude;
    case GDNPY_ROWS_NEQ: return m->neq;
    case GDNPY_ROWS_NMESH: return m->nmesh;
    case GDNPY_ROWS_NMESHVERT: return m->nmeshvert;
    case GDNPY_ROWS_NMESHFACE: return m->nmeshface;
    case GDNPY_ROWS_NMESHGRAPH: return m->nmeshgraph;
    case GDNPY_ROWS_DNVERT: return d ? d->nvert : 0;
    case GDNPY_ROWS_NEFC: // the rows of the last step, never beyond the capacity
        return d ? (d->nefc < 0 ? 0 : d->nefc > d->maxefc ? d->maxefc : d->nefc) : 0;
    case GDNPY_ROWS_MAXEFC: return d ? d->maxefc : 0;
    case GDNPY_ROWS_NMOCAP: return m->nmocap;
    case GDNPY_ROWS_NTENDON: return m->ntendon;
    case GDNPY_ROWS_NWRAP: return m->nwrap;
    case GDNPY_ROWS_NWRAP2: return 2 * (Py_ssize_t)m->nwrap;
    case GDNPY_ROWS_NSENSOR: return m->nsensor;
    case GDNPY_ROWS_NSENSORDATA: return m->nsensordata;
    default: return 1;
    }
}

PyObject* gdnpy_field_view(PyObject* owner, const void* base, const gdnpyField* f,
                           const gdnModel* m, const gdnData* d, int readonly)
{
    void* ptr;
    memcpy(&ptr, (const char*)base + f->offset, sizeof ptr);
    Py_ssize_t shape[2];
    shape[0] = gdnpy_rows(m, d, f->rows);
    // negative column counts: the state sizes (keyframes hold nq, nv, nu per row)
    int cols = f->cols == -1 ? m->nq : f->cols == -2 ? m->nv : f->cols == -3 ? m->nu
             : f->cols == -4 ? m->nv : f->cols == -5 ? 3 * m->nmocap
             : f->cols == -6 ? 4 * m->nmocap : f->cols == -7 ? m->na : f->cols;
    shape[1] = cols;
    if (!ptr) {
        shape[0] = 0;
    }
    return gdnpy_view(owner, ptr, f->type, cols == 1 && f->cols == 1 ? 1 : 2, shape, readonly);
}

const gdnpyField* gdnpy_find_field(const gdnpyField* table, const char* name)
{
    for (const gdnpyField* f = table; f->name; f++) {
        if (strcmp(f->name, name) == 0) {
            return f;
        }
    }
    return NULL;
}

// ---------------------------------------------------------------- loading

static PyObject* model_wrap(gdnModel* m)
{
    gdnpyModel* self = PyObject_New(gdnpyModel, &gdnpyModelType);
    if (!self) {
        gdn_model_free(m);
        return NULL;
    }
    self->m = m;
    self->busy = 0;
    return (PyObject*)self;
}

// a failed load: gradyn.Error carrying the loader's message
static PyObject* load_error(gdnStatus st, const char* err)
{
    PyObject* exc = PyObject_CallFunction(gdnpy_Error, "s", err[0] ? err : gdn_status_string(st));
    if (!exc) {
        return NULL;
    }
    PyObject* code = PyLong_FromLong((long)st);
    if (code) {
        PyObject_SetAttrString(exc, "status", code);
        Py_DECREF(code);
    }
    PyErr_SetObject(gdnpy_Error, exc);
    Py_DECREF(exc);
    return NULL;
}

#define GDNPY_ERRLEN 1024
#define GDNPY_WARNLEN 8192

// the loader's warnings about features it substituted (accept_unsupported) as Python
// warnings, one per line; -1 when a warning was turned into an exception
static int warn_substitutes(const char* warn)
{
    for (const char* line = warn; *line;) {
        const char* end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[GDNPY_ERRLEN];
        if (len >= sizeof buf) {
            len = sizeof buf - 1;
        }
        memcpy(buf, line, len);
        buf[len] = '\0';
        if (strstr(buf, "is not simulated by gradyn") &&
            PyErr_WarnEx(PyExc_UserWarning, buf, 2) < 0) {
            return -1;
        }
        line = end ? end + 1 : line + len;
    }
    return 0;
}

// a loaded model, its substitution warnings raised; NULL with the exception set
static PyObject* model_loaded(gdnStatus st, gdnModel* m, const char* err, const char* warn)
{
    if (st != GDN_OK || !m) {
        return load_error(st, err);
    }
    if (warn_substitutes(warn) < 0) {
        gdn_model_free(m);
        return NULL;
    }
    return model_wrap(m);
}

static PyObject* model_from_xml_path(PyObject* cls, PyObject* args, PyObject* kw)
{
    (void)cls;
    static char* kwlist[] = {"path", "accept_unsupported", NULL};
    PyObject* pathobj;
    int accept = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|p:from_xml_path", kwlist,
                                     PyUnicode_FSConverter, &pathobj, &accept)) {
        return NULL;
    }
    char err[GDNPY_ERRLEN] = "";
    char warn[GDNPY_WARNLEN] = "";
    gdnModel* m = NULL;
    gdnStatus st;
    const char* path = PyBytes_AS_STRING(pathobj);
    gdnLoadOptions opt = {0};
    opt.accept_unsupported = accept;
    Py_BEGIN_ALLOW_THREADS
    st = gdn_load_xml_ex(path, &opt, &m, err, (int)sizeof err, warn, (int)sizeof warn);
    Py_END_ALLOW_THREADS
    Py_DECREF(pathobj);
    return model_loaded(st, m, err, warn);
}

static PyObject* model_from_xml_string(PyObject* cls, PyObject* args, PyObject* kw)
{
    (void)cls;
    static char* kwlist[] = {"xml", "dir", "accept_unsupported", NULL};
    const char* xml;
    Py_ssize_t len;
    const char* dir = NULL;
    int accept = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "s#|zp:from_xml_string", kwlist, &xml, &len,
                                     &dir, &accept)) {
        return NULL;
    }
    char err[GDNPY_ERRLEN] = "";
    char warn[GDNPY_WARNLEN] = "";
    gdnModel* m = NULL;
    gdnStatus st;
    gdnLoadOptions opt = {0};
    opt.accept_unsupported = accept;
    Py_BEGIN_ALLOW_THREADS
    st = gdn_load_xml_string_ex(xml, (size_t)len, dir, &opt, &m, err, (int)sizeof err, warn,
                                (int)sizeof warn);
    Py_END_ALLOW_THREADS
    return model_loaded(st, m, err, warn);
}

static void model_dealloc(PyObject* self)
{
    gdn_model_free(((gdnpyModel*)self)->m);
    Py_TYPE(self)->tp_free(self);
}

// ---------------------------------------------------------------- attributes

// the sizes, as int attributes
static const struct {
    const char* name;
    size_t offset;
} model_sizes[] = {
#define MS(n) {#n, offsetof(gdnModel, n)}
    MS(nq), MS(nv), MS(nu), MS(na), MS(nbody), MS(njnt), MS(ngeom), MS(nsite), MS(nkey), MS(nnames),
    MS(nvert), MS(nconmax), MS(njmax), MS(npair), MS(nexclude), MS(neq), MS(nmocap), MS(nmesh),
    MS(nmeshvert), MS(nmeshface), MS(nmeshgraph), MS(nsensor), MS(nsensordata), MS(ntendon),
    MS(nwrap),
#undef MS
};

// sizes, arrays (read-only views), then the generic lookup (methods, opt)
static PyObject* model_getattro(PyObject* self, PyObject* name)
{
    gdnpyModel* mo = (gdnpyModel*)self;
    const char* s = PyUnicode_AsUTF8(name);
    if (!s) {
        return NULL;
    }
    for (size_t i = 0; i < sizeof model_sizes / sizeof model_sizes[0]; i++) {
        if (strcmp(s, model_sizes[i].name) == 0) {
            int v;
            memcpy(&v, (const char*)mo->m + model_sizes[i].offset, sizeof v);
            return PyLong_FromLong(v);
        }
    }
    if (strcmp(s, "na") == 0) {
        return PyLong_FromLong(0); // no activation dynamics (GDN_DYN_NONE only)
    }
    const gdnpyField* f = gdnpy_find_field(gdnpy_model_fields, s);
    if (f) {
        return gdnpy_field_view(self, mo->m, f, mo->m, NULL, 1);
    }
    return PyObject_GenericGetAttr(self, name);
}

// a copy of the collision-mesh vertices (nvert x 3, body frame): the setter may move them
static PyObject* model_vert_pos(PyObject* self, void* closure)
{
    (void)closure;
    const gdnModel* m = ((gdnpyModel*)self)->m;
    Py_ssize_t shape[2] = {m->nvert, 3};
    double* out;
    PyObject* arr = gdnpy_new_array(2, shape, &out);
    if (arr && m->nvert > 0 && m->vert_pos) {
        memcpy(out, m->vert_pos, (size_t)m->nvert * 3 * sizeof(double));
    }
    return arr;
}

static PyObject* model_opt(PyObject* self, void* closure)
{
    (void)closure;
    PyObject* o = PyType_GenericAlloc(&gdnpyOptionType, 0);
    if (!o) {
        return NULL;
    }
    Py_INCREF(self);
    ((gdnpyOption*)o)->model = (gdnpyModel*)self;
    return o;
}

static PyObject* model_stat_meaninertia(PyObject* self, void* closure)
{
    (void)closure;
    return PyFloat_FromDouble(((gdnpyModel*)self)->m->stat_meaninertia);
}

static PyObject* model_penalty(PyObject* self, void* closure)
{
    (void)closure;
    const gdnPenalty* p = &((gdnpyModel*)self)->m->penalty;
    return Py_BuildValue("{s:i,s:d,s:d,s:d}", "enabled", p->enabled, "height", p->height,
                         "stiffness", p->stiffness, "damping", p->damping);
}

static PyGetSetDef model_getset[] = {
    {"vert_pos", model_vert_pos, NULL, "copy of the collision-mesh vertices (nvert x 3)", NULL},
    {"opt", model_opt, NULL, "the physics options (gradyn.Option, writable attributes)", NULL},
    {"stat_meaninertia", model_stat_meaninertia, NULL, "mean diagonal of M at qpos0", NULL},
    {"penalty", model_penalty, NULL, "the penalty ground contact settings (a dict copy)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

// m.body(name or id), m.joint, m.geom, m.site, m.actuator, m.key
#define NAMED(objtype)                                                                          \
    static PyObject* model_named_##objtype(PyObject* self, PyObject* key)                       \
    {                                                                                           \
        return gdnpy_named(self, 0, #objtype, key);                                             \
    }
NAMED(body)
NAMED(joint)
NAMED(geom)
NAMED(site)
NAMED(actuator)
NAMED(key)
NAMED(sensor)
#undef NAMED

// the list of names of one object type
static PyObject* model_names(PyObject* self, PyObject* arg)
{
    const gdnModel* m = ((gdnpyModel*)self)->m;
    const char* objtype = PyUnicode_AsUTF8(arg);
    if (!objtype) {
        return NULL;
    }
    static const char* types[] = {"body", "joint", "geom", "site", "actuator", "key", "sensor"};
    int known = 0;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        known |= strcmp(objtype, types[i]) == 0;
    }
    if (!known) {
        PyErr_Format(PyExc_ValueError,
                     "names: unknown object type '%s' (body, joint, geom, site, actuator, key, "
                     "sensor)",
                     objtype);
        return NULL;
    }
    PyObject* list = PyList_New(0);
    for (int id = 0; list; id++) {
        const char* n = gdn_id2name(m, objtype, id);
        if (!n) {
            break;
        }
        PyObject* s = PyUnicode_FromString(n);
        if (!s || PyList_Append(list, s) < 0) {
            Py_XDECREF(s);
            Py_CLEAR(list);
            break;
        }
        Py_DECREF(s);
    }
    return list;
}

static PyMethodDef model_methods[] = {
    {"from_xml_path", (PyCFunction)(void (*)(void))model_from_xml_path,
     METH_VARARGS | METH_KEYWORDS | METH_STATIC,
     "Model.from_xml_path(path, accept_unsupported=False): load an MJCF file (gradyn.Error "
     "with the loader's message). A file using what changes the dynamics but gradyn does not "
     "simulate (noslip_iterations, springdamper, ...) is refused unless "
     "accept_unsupported=True, which loads it with a UserWarning naming each substitute"},
    {"from_xml_string", (PyCFunction)(void (*)(void))model_from_xml_string,
     METH_VARARGS | METH_KEYWORDS | METH_STATIC,
     "Model.from_xml_string(xml, dir=None, accept_unsupported=False): load MJCF from a string; "
     "dir resolves includes "
     "and assets"},
    {"body", model_named_body, METH_O, "m.body(name or id): a named body (.id, .name, fields)"},
    {"joint", model_named_joint, METH_O, "m.joint(name or id)"},
    {"geom", model_named_geom, METH_O, "m.geom(name or id)"},
    {"site", model_named_site, METH_O, "m.site(name or id)"},
    {"actuator", model_named_actuator, METH_O, "m.actuator(name or id)"},
    {"key", model_named_key, METH_O, "m.key(name or id)"},
    {"sensor", model_named_sensor, METH_O,
     "m.sensor(name or id): type, dim, adr, objid, cutoff, ... (the sensor_* rows)"},
    {"names", model_names, METH_O, "m.names(objtype): the names of every object of a type"},
    {NULL, NULL, 0, NULL},
};

static PyObject* model_repr(PyObject* self)
{
    const gdnModel* m = ((gdnpyModel*)self)->m;
    return PyUnicode_FromFormat("<gradyn.Model nq=%d nv=%d nu=%d nbody=%d ngeom=%d>", m->nq,
                                m->nv, m->nu, m->nbody, m->ngeom);
}

// the method table is the model's own plus the setters (setters.c), joined at first use
static PyMethodDef model_all_methods[48];

static int join_methods(void)
{
    int n = 0;
    const PyMethodDef* tables[] = {model_methods, gdnpy_setter_methods};
    for (size_t t = 0; t < 2; t++) {
        for (const PyMethodDef* p = tables[t]; p->ml_name; p++) {
            if (n >= (int)(sizeof model_all_methods / sizeof model_all_methods[0]) - 1) {
                return -1;
            }
            model_all_methods[n++] = *p;
        }
    }
    model_all_methods[n] = (PyMethodDef){NULL, NULL, 0, NULL};
    return 0;
}

PyTypeObject gdnpyModelType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gradyn.Model",
    .tp_doc = "A compiled gradyn model. Create with Model.from_xml_path or from_xml_string. "
              "Sizes (nq, nv, ...) are ints; arrays (body_mass, geom_size, ...) are read-only "
              "numpy views; change the differentiable parameters with the set_* methods.",
    .tp_basicsize = sizeof(gdnpyModel),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = model_dealloc,
    .tp_getattro = model_getattro,
    .tp_getset = model_getset,
    .tp_methods = model_all_methods,
    .tp_repr = model_repr,
};

// dir(m) lists the array fields and sizes too
static PyObject* model_dir(PyObject* self, PyObject* unused)
{
    (void)unused;
    PyObject* list = PyList_New(0);
    if (!list) {
        return NULL;
    }
    for (size_t i = 0; i < sizeof model_sizes / sizeof model_sizes[0]; i++) {
        PyObject* s = PyUnicode_FromString(model_sizes[i].name);
        if (!s || PyList_Append(list, s) < 0) {
            Py_XDECREF(s);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(s);
    }
    for (const gdnpyField* f = gdnpy_model_fields; f->name; f++) {
        PyObject* s = PyUnicode_FromString(f->name);
        if (!s || PyList_Append(list, s) < 0) {
            Py_XDECREF(s);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(s);
    }
    (void)self;
    return list;
}

// called by the module init before PyType_Ready
int gdnpy_model_prepare(void)
{
    if (join_methods() < 0) {
        return -1;
    }
    // __dir__ goes last
    int n = 0;
    while (model_all_methods[n].ml_name) {
        n++;
    }
    if (n >= (int)(sizeof model_all_methods / sizeof model_all_methods[0]) - 1) {
        return -1;
    }
    model_all_methods[n] = (PyMethodDef){"fields", model_dir, METH_NOARGS,
                                         "m.fields(): the names of the sizes and arrays"};
    model_all_methods[n + 1] = (PyMethodDef){NULL, NULL, 0, NULL};
    return 0;
}
