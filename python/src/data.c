// SPDX-License-Identifier: Apache-2.0
// The Data type: gradyn.Data(model), its arrays as zero-copy numpy views (double arrays
// writable, int arrays read-only), scalars, solver status and the contacts.
#include "gdnpy.h" // first: Python.h precedes the standard headers
#include <stddef.h>
#include <string.h>

#define DF(name, type, rows, cols) {#name, offsetof(gdnData, name), type, GDNPY_ROWS_##rows, cols}

// every array of gdnData; cols -2 is nv. The efc_* views hold the rows of the last step
// (nefc), the capacity stays the data's: a view taken before a step never overruns
const gdnpyField gdnpy_data_fields[] = {
    DF(qpos, 'd', NQ, 1), DF(qvel, 'd', NV, 1), DF(ctrl, 'd', NU, 1), DF(act, 'd', NA, 1),
    DF(act_dot, 'd', NA, 1),
    DF(qfrc_applied, 'd', NV, 1), DF(xfrc_applied, 'd', NBODY, 6), DF(mocap_pos, 'd', NMOCAP, 3),
    DF(mocap_quat, 'd', NMOCAP, 4), DF(qacc, 'd', NV, 1),
    DF(qacc_smooth, 'd', NV, 1), DF(xpos, 'd', NBODY, 3), DF(xquat, 'd', NBODY, 4),
    DF(xmat, 'd', NBODY, 9), DF(xipos, 'd', NBODY, 3), DF(ximat, 'd', NBODY, 9),
    DF(xanchor, 'd', NJNT, 3), DF(xaxis, 'd', NJNT, 3), DF(geom_xpos, 'd', NGEOM, 3),
    DF(geom_xmat, 'd', NGEOM, 9), DF(site_xpos, 'd', NSITE, 3), DF(site_xmat, 'd', NSITE, 9),
    DF(subtree_com, 'd', NBODY, 3), DF(ten_length, 'd', NTENDON, 1),
    DF(ten_velocity, 'd', NTENDON, 1), DF(ten_J, 'd', NTENDON, -2),
    DF(ten_wrapadr, 'i', NTENDON, 1), DF(ten_wrapnum, 'i', NTENDON, 1),
    DF(wrap_obj, 'i', NWRAP2, 1), DF(wrap_xpos, 'd', NWRAP2, 3),
    DF(qM, 'd', NV, -2), DF(cdof, 'd', NV, 6),
    DF(cinert, 'd', NBODY, 10), DF(cvel, 'd', NBODY, 6), DF(cdof_dot, 'd', NV, 6),
    DF(cacc, 'd', NBODY, 6), DF(cfrc_int, 'd', NBODY, 6), DF(cfrc_ext, 'd', NBODY, 6),
    DF(sensordata, 'd', NSENSORDATA, 1), DF(subtree_linvel, 'd', NBODY, 3),
    DF(subtree_angmom, 'd', NBODY, 3), DF(qfrc_bias, 'd', NV, 1),
    DF(qfrc_passive, 'd', NV, 1), DF(actuator_length, 'd', NU, 1),
    DF(actuator_velocity, 'd', NU, 1), DF(actuator_moment, 'd', NU, -2),
    DF(actuator_force, 'd', NU, 1),
    DF(qfrc_actuator, 'd', NV, 1), DF(qfrc_smooth, 'd', NV, 1), DF(vert_xpos, 'd', DNVERT, 3),
    DF(vert_force, 'd', DNVERT, 3), DF(qfrc_penalty, 'd', NV, 1),
    DF(efc_type, 'i', NEFC, 1), DF(efc_id, 'i', NEFC, 1), DF(efc_state, 'i', NEFC, 1),
    DF(efc_J, 'd', NEFC, -2), DF(efc_pos, 'd', NEFC, 1), DF(efc_margin, 'd', NEFC, 1),
    DF(efc_frictionloss, 'd', NEFC, 1), DF(efc_diagApprox, 'd', NEFC, 1),
    DF(efc_KBIP, 'd', NEFC, 4), DF(efc_D, 'd', NEFC, 1), DF(efc_R, 'd', NEFC, 1),
    DF(efc_vel, 'd', NEFC, 1), DF(efc_aref, 'd', NEFC, 1), DF(efc_force, 'd', NEFC, 1),
    DF(qfrc_constraint, 'd', NV, 1), DF(qacc_warmstart, 'd', NV, 1),
    DF(solver_H, 'd', NV, -2), DF(solver_H_first, 'i', NV, 1), DF(qfrc_inverse, 'd', NV, 1),
    {NULL, 0, 0, 0, 0},
};

// ---------------------------------------------------------------- creation

static PyObject* data_new(PyTypeObject* type, PyObject* args, PyObject* kw)
{
    static char* kwlist[] = {"model", NULL};
    PyObject* mo;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!:Data", kwlist, &gdnpyModelType, &mo)) {
        return NULL;
    }
    gdnData* d = NULL;
    gdnStatus st = gdn_data_create(((gdnpyModel*)mo)->m, &d);
    if (st != GDN_OK || !d) {
        return gdnpy_raise_status(st, "Data", NULL);
    }
    gdnpyData* self = (gdnpyData*)type->tp_alloc(type, 0);
    if (!self) {
        gdn_data_free(d);
        return NULL;
    }
    self->d = d;
    Py_INCREF(mo);
    self->model = (gdnpyModel*)mo;
    self->busy = 0;
    return (PyObject*)self;
}

static void data_dealloc(PyObject* self)
{
    gdnpyData* d = (gdnpyData*)self;
    gdn_data_free(d->d);
    Py_XDECREF(d->model);
    Py_TYPE(self)->tp_free(self);
}

// ---------------------------------------------------------------- arrays

static PyObject* data_getattro(PyObject* self, PyObject* name)
{
    gdnpyData* d = (gdnpyData*)self;
    const char* s = PyUnicode_AsUTF8(name);
    if (!s) {
        return NULL;
    }
    const gdnpyField* f = gdnpy_find_field(gdnpy_data_fields, s);
    if (f) {
        return gdnpy_field_view(self, d->d, f, d->model->m, d->d, f->type != 'd');
    }
    return PyObject_GenericGetAttr(self, name);
}

// d.qpos = values copies into the C array (same size, float64); int arrays are read-only
int gdnpy_data_writable(const gdnpyData* d)
{
    if (d->busy) {
        PyErr_SetString(PyExc_RuntimeError,
                        "this gradyn.Data is in use by a call in another thread");
        return -1;
    }
    return 0;
}

static int data_setattro(PyObject* self, PyObject* name, PyObject* value)
{
    gdnpyData* d = (gdnpyData*)self;
    const char* s = PyUnicode_AsUTF8(name);
    if (!s) {
        return -1;
    }
    const gdnpyField* f = gdnpy_find_field(gdnpy_data_fields, s);
    if (!f) {
        return PyObject_GenericSetAttr(self, name, value);
    }
    if (!value) {
        PyErr_Format(PyExc_AttributeError, "Data.%s cannot be deleted", s);
        return -1;
    }
    if (gdnpy_data_writable(d) < 0) {
        return -1;
    }
    if (f->type != 'd') {
        PyErr_Format(PyExc_AttributeError, "Data.%s is read-only", s);
        return -1;
    }
    const gdnModel* m = d->model->m;
    Py_ssize_t n = gdnpy_rows(m, d->d, f->rows) * (f->cols == -2 ? m->nv : f->cols);
    gdnpyInput in;
    if (gdnpy_input(value, n, 0, s, &in) < 0) {
        return -1;
    }
    double* dst;
    memcpy(&dst, (const char*)d->d + f->offset, sizeof dst);
    if (dst && n > 0) {
        memmove(dst, in.ptr, (size_t)n * sizeof(double));
    }
    gdnpy_input_release(&in);
    return 0;
}

// ---------------------------------------------------------------- scalars

static PyObject* data_get_time(PyObject* self, void* closure)
{
    (void)closure;
    return PyFloat_FromDouble(((gdnpyData*)self)->d->time);
}

static int data_set_time(PyObject* self, PyObject* value, void* closure)
{
    (void)closure;
    if (!value) {
        PyErr_SetString(PyExc_AttributeError, "Data.time cannot be deleted");
        return -1;
    }
    if (gdnpy_data_writable((gdnpyData*)self) < 0) {
        return -1;
    }
    double t = PyFloat_AsDouble(value);
    if (t == -1.0 && PyErr_Occurred()) {
        return -1;
    }
    ((gdnpyData*)self)->d->time = t;
    return 0;
}

// read-only int and double scalars of gdnData, by offset
typedef struct {
    size_t offset;
    char type;
} scalarField;
#define SF(name, type) static scalarField sf_##name = {offsetof(gdnData, name), type};
SF(ncon, 'i')
SF(ncon_overflow, 'i')
SF(nefc, 'i')
SF(ne, 'i')
SF(nf, 'i')
SF(nefc_overflow, 'i')
SF(maxcon, 'i')
SF(maxefc, 'i')
SF(nvert, 'i')
SF(nvert_active, 'i')
SF(solver_iter, 'i')
SF(solver_converged, 'i')
SF(solver_residual, 'd')
SF(solver_H_valid, 'i')
SF(deriv_flags, 'i')
SF(deriv_state_margin, 'd')
SF(deriv_activation_margin, 'd')
#undef SF

static PyObject* data_get_scalar(PyObject* self, void* closure)
{
    const scalarField* f = closure;
    const char* p = (const char*)((gdnpyData*)self)->d + f->offset;
    if (f->type == 'd') {
        double v;
        memcpy(&v, p, sizeof v);
        return PyFloat_FromDouble(v);
    }
    int v;
    memcpy(&v, p, sizeof v);
    return PyLong_FromLong(v);
}

static PyObject* data_get_energy(PyObject* self, void* closure)
{
    (void)closure;
    Py_ssize_t shape[1] = {2};
    return gdnpy_view(self, ((gdnpyData*)self)->d->energy, 'd', 1, shape, 0);
}

static PyObject* data_get_warning(PyObject* self, void* closure)
{
    (void)closure;
    Py_ssize_t shape[1] = {GDN_NWARNING};
    return gdnpy_view(self, ((gdnpyData*)self)->d->warning, 'i', 1, shape, 1);
}

static PyObject* data_get_model(PyObject* self, void* closure)
{
    (void)closure;
    PyObject* m = (PyObject*)((gdnpyData*)self)->model;
    Py_INCREF(m);
    return m;
}

// the numpy dtype of gdnContact (built once from offsetof, run-time numpy only)
static PyObject* contact_dtype(void)
{
    static PyObject* dtype = NULL;
    if (dtype) {
        return dtype;
    }
    PyObject* np = gdnpy_numpy();
    if (!np) {
        PyErr_SetString(PyExc_ImportError, "Data.contact needs numpy");
        return NULL;
    }
    char ifmt[8];
    snprintf(ifmt, sizeof ifmt, "i%d", (int)sizeof(int));
    PyObject* spec = Py_BuildValue(
        "{s:[sssssssssssss],s:[ssssssssssss s],s:[nnnnnnnnnnnnn],s:n}", "names", "dist", "pos",
        "frame", "includemargin", "friction", "solref", "solimp", "mu", "dim", "geom1", "geom2",
        "exclude", "efc_address", "formats", "f8", "(3,)f8", "(9,)f8", "f8", "(5,)f8",
        "(2,)f8", "(5,)f8", "f8", ifmt, ifmt, ifmt, ifmt, ifmt, "offsets",
        (Py_ssize_t)offsetof(gdnContact, dist), (Py_ssize_t)offsetof(gdnContact, pos),
        (Py_ssize_t)offsetof(gdnContact, frame), (Py_ssize_t)offsetof(gdnContact, includemargin),
        (Py_ssize_t)offsetof(gdnContact, friction), (Py_ssize_t)offsetof(gdnContact, solref),
        (Py_ssize_t)offsetof(gdnContact, solimp), (Py_ssize_t)offsetof(gdnContact, mu),
        (Py_ssize_t)offsetof(gdnContact, dim), (Py_ssize_t)offsetof(gdnContact, geom1),
        (Py_ssize_t)offsetof(gdnContact, geom2), (Py_ssize_t)offsetof(gdnContact, exclude),
        (Py_ssize_t)offsetof(gdnContact, efc_address), "itemsize",
        (Py_ssize_t)sizeof(gdnContact));
    if (!spec) {
        return NULL;
    }
    dtype = PyObject_CallMethod(np, "dtype", "O", spec);
    Py_DECREF(spec);
    return dtype;
}

// d.contact: a read-only numpy record array over the ncon contacts of the last collision
// pass (fields dist, pos, frame, ..., geom1, geom2; d.contact.dist works as in mujoco)
static PyObject* data_get_contact(PyObject* self, void* closure)
{
    (void)closure;
    const gdnData* d = ((gdnpyData*)self)->d;
    PyObject* dtype = contact_dtype();
    if (!dtype) {
        return NULL;
    }
    int ncon = d->ncon < 0 ? 0 : d->ncon > d->maxcon ? d->maxcon : d->ncon;
    // the bytes of the contacts, exported as unsigned chars
    Py_ssize_t shape[1] = {(Py_ssize_t)ncon * (Py_ssize_t)sizeof(gdnContact)};
    PyObject* bytes = gdnpy_view(self, d->contact, 'B', 1, shape, 1);
    if (!bytes) {
        return NULL;
    }
    PyObject* np = gdnpy_numpy();
    PyObject* rec = PyObject_GetAttrString(np, "recarray");
    if (!rec) {
        Py_DECREF(bytes);
        return NULL;
    }
    PyObject* arr = PyObject_CallMethod(bytes, "view", "O", dtype);
    Py_DECREF(bytes);
    PyObject* out = arr ? PyObject_CallMethod(arr, "view", "O", rec) : NULL;
    Py_XDECREF(arr);
    Py_DECREF(rec);
    return out;
}

#define SC(name, doc) {#name, data_get_scalar, NULL, doc, (void*)&sf_##name}
static PyGetSetDef data_getset[] = {
    {"time", data_get_time, data_set_time, "simulation time (s)", NULL},
    SC(ncon, "contacts of the last collision pass"),
    SC(ncon_overflow, "contacts that did not fit"), SC(nefc, "constraint rows"),
    SC(ne, "equality rows"), SC(nf, "friction-loss rows"),
    SC(nefc_overflow, "rows that did not fit"), SC(maxcon, "contact capacity"),
    SC(maxefc, "row capacity"), SC(nvert, "collision-mesh vertices of the vert_* arrays"),
    SC(nvert_active, "vertices with a penalty force"),
    SC(solver_iter, "iterations of the last constraint solve"),
    SC(solver_converged, "1 when the last solve reached its tolerance"),
    SC(solver_residual, "final scaled gradient norm of the last solve"),
    SC(solver_H_valid, "1 when solver_H holds the Newton Hessian's factor"),
    SC(deriv_flags, "GDN_DERIV_* bits of the last derivative call"),
    SC(deriv_state_margin, "margin of the linearized step's row states"),
    SC(deriv_activation_margin, "margin of the contact and limit rows' inclusion"),
    {"energy", data_get_energy, NULL, "[potential, kinetic] (with ENBL_ENERGY)", NULL},
    {"warning", data_get_warning, NULL, "warning counts (read-only)", NULL},
    {"contact", data_get_contact, NULL, "the ncon contacts: a read-only numpy record array",
     NULL},
    {"model", data_get_model, NULL, "the Model this Data was made for", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};
#undef SC

// d.body(name or id), d.joint, d.geom, d.site, d.actuator
#define NAMED(objtype)                                                                          \
    static PyObject* data_named_##objtype(PyObject* self, PyObject* key)                        \
    {                                                                                           \
        return gdnpy_named(self, 1, #objtype, key);                                             \
    }
NAMED(body)
NAMED(joint)
NAMED(geom)
NAMED(site)
NAMED(actuator)
NAMED(sensor)
#undef NAMED

static PyObject* data_fields(PyObject* self, PyObject* unused)
{
    (void)self;
    (void)unused;
    PyObject* list = PyList_New(0);
    for (const gdnpyField* f = gdnpy_data_fields; list && f->name; f++) {
        PyObject* s = PyUnicode_FromString(f->name);
        if (!s || PyList_Append(list, s) < 0) {
            Py_XDECREF(s);
            Py_CLEAR(list);
        } else {
            Py_DECREF(s);
        }
    }
    return list;
}

static PyMethodDef data_methods[] = {
    {"body", data_named_body, METH_O, "d.body(name or id): xpos, xquat, xmat, ... of a body"},
    {"joint", data_named_joint, METH_O, "d.joint(name or id): qpos, qvel, xanchor, xaxis"},
    {"geom", data_named_geom, METH_O, "d.geom(name or id): xpos, xmat"},
    {"site", data_named_site, METH_O, "d.site(name or id): xpos, xmat"},
    {"actuator", data_named_actuator, METH_O, "d.actuator(name or id): ctrl, force, ..."},
    {"sensor", data_named_sensor, METH_O, "d.sensor(name or id).data: its sensordata values"},
    {"fields", data_fields, METH_NOARGS, "d.fields(): the names of the array fields"},
    {NULL, NULL, 0, NULL},
};

PyTypeObject gdnpyDataType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gradyn.Data",
    .tp_doc = "gradyn.Data(model): simulation state and results. Arrays (qpos, qvel, ctrl, "
              "xpos, ...) are zero-copy numpy views that keep this Data alive.",
    .tp_basicsize = sizeof(gdnpyData),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = data_new,
    .tp_dealloc = data_dealloc,
    .tp_getattro = data_getattro,
    .tp_setattro = data_setattro,
    .tp_getset = data_getset,
    .tp_methods = data_methods,
};
