// SPDX-License-Identifier: Apache-2.0
// The Option type: m.opt, the physics options of a Model read and written in place (the step
// validates them: an out-of-range value makes gradyn.step raise, never crash).
#include "gdnpy.h" // first: Python.h precedes the standard headers
#include <stddef.h>
#include <string.h>

// one scalar option (not const: a getset closure is a void pointer): its offset in gdnOption
// and its type ('d' double, 'i' int, 'e' an int-sized enum)
typedef struct {
    size_t offset;
    char type;
} optField;

// the enum options are stored as ints
_Static_assert(sizeof(gdnSolver) == sizeof(int) && sizeof(gdnCone) == sizeof(int) &&
                   sizeof(gdnIntegrator) == sizeof(int),
               "enum options are int-sized");

#define OF(name, type) {offsetof(gdnOption, name), type}
static optField opt_timestep = OF(timestep, 'd');
static optField opt_integrator = OF(integrator, 'e');
static optField opt_disableflags = OF(disableflags, 'i');
static optField opt_enableflags = OF(enableflags, 'i');
static optField opt_solver = OF(solver, 'e');
static optField opt_iterations = OF(iterations, 'i');
static optField opt_tolerance = OF(tolerance, 'd');
static optField opt_cone = OF(cone, 'e');
static optField opt_collision = OF(collision, 'i');
static optField opt_impratio = OF(impratio, 'd');
static optField opt_o_margin = OF(o_margin, 'd');
static optField opt_mpr_iterations = OF(mpr_iterations, 'i');
static optField opt_mpr_tolerance = OF(mpr_tolerance, 'd');
static optField opt_box_edge_bias = OF(box_edge_bias, 'd');
static optField opt_density = OF(density, 'd');
static optField opt_viscosity = OF(viscosity, 'd');
#undef OF

static PyObject* opt_get(PyObject* self, void* closure)
{
    const optField* f = closure;
    char* p = (char*)&((gdnpyOption*)self)->model->m->opt + f->offset;
    if (f->type == 'd') {
        double v;
        memcpy(&v, p, sizeof v);
        return PyFloat_FromDouble(v);
    }
    if (f->type == 'e') {
        // the enums are stored as int-sized values (gdnSolver, gdnCone, gdnIntegrator)
        int v = 0;
        memcpy(&v, p, sizeof v);
        return PyLong_FromLong(v);
    }
    int v;
    memcpy(&v, p, sizeof v);
    return PyLong_FromLong(v);
}

static int opt_set(PyObject* self, PyObject* value, void* closure)
{
    const optField* f = closure;
    gdnpyModel* mo = ((gdnpyOption*)self)->model;
    if (!value) {
        PyErr_SetString(PyExc_AttributeError, "gradyn.Option: attributes cannot be deleted");
        return -1;
    }
    if (gdnpy_model_writable(mo) < 0) {
        return -1;
    }
    char* p = (char*)&mo->m->opt + f->offset;
    if (f->type == 'd') {
        double v = PyFloat_AsDouble(value);
        if (v == -1.0 && PyErr_Occurred()) {
            return -1;
        }
        memcpy(p, &v, sizeof v);
        return 0;
    }
    if (!PyLong_Check(value)) {
        PyErr_SetString(PyExc_TypeError, "gradyn.Option: this option is an int");
        return -1;
    }
    int overflow = 0;
    long v = PyLong_AsLongAndOverflow(value, &overflow);
    if (overflow || v < -2147483647L - 1 || v > 2147483647L) {
        PyErr_SetString(PyExc_OverflowError, "gradyn.Option: value out of the int range");
        return -1;
    }
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    int iv = (int)v;
    memcpy(p, &iv, sizeof iv);
    return 0;
}

// the array options: writable views into the model's option struct
static PyObject* opt_gravity(PyObject* self, void* closure)
{
    (void)closure;
    gdnpyModel* mo = ((gdnpyOption*)self)->model;
    Py_ssize_t shape[1] = {3};
    return gdnpy_view((PyObject*)mo, mo->m->opt.gravity, 'd', 1, shape, 0);
}

static PyObject* opt_wind(PyObject* self, void* closure)
{
    (void)closure;
    gdnpyModel* mo = ((gdnpyOption*)self)->model;
    Py_ssize_t shape[1] = {3};
    return gdnpy_view((PyObject*)mo, mo->m->opt.wind, 'd', 1, shape, 0);
}

static PyObject* opt_o_solref(PyObject* self, void* closure)
{
    (void)closure;
    gdnpyModel* mo = ((gdnpyOption*)self)->model;
    Py_ssize_t shape[1] = {GDN_NREF};
    return gdnpy_view((PyObject*)mo, mo->m->opt.o_solref, 'd', 1, shape, 0);
}

static PyObject* opt_o_solimp(PyObject* self, void* closure)
{
    (void)closure;
    gdnpyModel* mo = ((gdnpyOption*)self)->model;
    Py_ssize_t shape[1] = {GDN_NIMP};
    return gdnpy_view((PyObject*)mo, mo->m->opt.o_solimp, 'd', 1, shape, 0);
}

#define RW(name) {#name, opt_get, opt_set, #name, (void*)&opt_##name}
static PyGetSetDef opt_getset[] = {
    RW(timestep),
    {"integrator", opt_get, opt_set, "integrator (INT_EULER 0, INT_RK4 1, INT_IMPLICIT 2: MuJoCo's codes)",
     (void*)&opt_integrator},
    RW(disableflags), RW(enableflags), RW(solver), RW(iterations), RW(tolerance), RW(cone),
    RW(impratio), RW(o_margin), RW(mpr_iterations), RW(mpr_tolerance), RW(box_edge_bias),
    RW(density), RW(viscosity),
    {"collision", opt_get, opt_set,
     "which geom pairs collide (COL_ALL 0, COL_PAIR 1 'predefined', COL_DYNAMIC 2: MuJoCo's "
     "codes)",
     (void*)&opt_collision},
    {"wind", opt_wind, NULL, "medium velocity (3,), a writable view", NULL},
    {"gravity", opt_gravity, NULL, "gravity (3,), a writable view", NULL},
    {"o_solref", opt_o_solref, NULL, "override solref (2,), a writable view", NULL},
    {"o_solimp", opt_o_solimp, NULL, "override solimp (5,), a writable view", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};
#undef RW

static void opt_dealloc(PyObject* self)
{
    Py_XDECREF(((gdnpyOption*)self)->model);
    Py_TYPE(self)->tp_free(self);
}

PyTypeObject gdnpyOptionType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gradyn.Option",
    .tp_doc = "The physics options of a Model (m.opt), read and written in place.",
    .tp_basicsize = sizeof(gdnpyOption),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = opt_dealloc,
    .tp_getset = opt_getset,
};
