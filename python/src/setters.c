// SPDX-License-Identifier: Apache-2.0
// The Model setters of the differentiable parameters (gdn_model_set_* of include/gradyn/):
// inertia, contact parameters, geom sizes, penalty contact and collision meshes.
#include "gdnpy.h" // first: Python.h precedes the standard headers
#include <string.h>

// the setters taking (id, fixed-size vector)
typedef gdnStatus (*vecSetter)(gdnModel*, int, const double*);

static PyObject* run_vec_setter(PyObject* self, PyObject* args, const char* name,
                                const char* objtype, Py_ssize_t n, vecSetter fn)
{
    gdnpyModel* mo = (gdnpyModel*)self;
    PyObject *key, *vec;
    if (!PyArg_ParseTuple(args, "OO", &key, &vec)) {
        return NULL;
    }
    if (gdnpy_model_writable(mo) < 0) {
        return NULL;
    }
    int id = gdnpy_object_id(mo->m, objtype, key);
    if (id < 0) {
        return NULL;
    }
    gdnpyInput in;
    if (gdnpy_input(vec, n, 0, name, &in) < 0) {
        return NULL;
    }
    double v[8];
    memcpy(v, in.ptr, (size_t)n * sizeof(double));
    gdnpy_input_release(&in);
    gdnStatus st = fn(mo->m, id, v);
    if (st != GDN_OK) {
        return gdnpy_raise_status(st, name, NULL);
    }
    Py_RETURN_NONE;
}

#define VEC_SETTER(fname, objtype, n)                                                           \
    static PyObject* setter_##fname(PyObject* self, PyObject* args)                             \
    {                                                                                           \
        return run_vec_setter(self, args, #fname, objtype, n, gdn_model_##fname);               \
    }
VEC_SETTER(set_geom_friction, "geom", 3)
VEC_SETTER(set_geom_solref, "geom", 2)
VEC_SETTER(set_geom_solimp, "geom", 5)
VEC_SETTER(set_geom_size, "geom", 3)
VEC_SETTER(set_pair_friction, "pair", 5)
VEC_SETTER(set_pair_solref, "pair", 2)
VEC_SETTER(set_pair_solimp, "pair", 5)
#undef VEC_SETTER

// set_body_inertia(body, params): the canonical 10-vector [m, c (3), Ixx, Iyy, Izz, Ixy, Ixz,
// Iyz] (inertia about the COM in body axes)
static PyObject* setter_set_body_inertia(PyObject* self, PyObject* args)
{
    gdnpyModel* mo = (gdnpyModel*)self;
    PyObject *key, *vec;
    if (!PyArg_ParseTuple(args, "OO:set_body_inertia", &key, &vec)) {
        return NULL;
    }
    if (gdnpy_model_writable(mo) < 0) {
        return NULL;
    }
    int id = gdnpy_object_id(mo->m, "body", key);
    if (id < 0) {
        return NULL;
    }
    gdnpyInput in;
    if (gdnpy_input(vec, GDN_N_INERTIA_PARAMS, 0, "set_body_inertia", &in) < 0) {
        return NULL;
    }
    gdnInertia inertia;
    gdn_inertia_from_params(in.ptr, &inertia);
    gdnpy_input_release(&in);
    gdnStatus st = gdn_model_set_body_inertia(mo->m, id, &inertia);
    if (st != GDN_OK) {
        return gdnpy_raise_status(st, "set_body_inertia", NULL);
    }
    Py_RETURN_NONE;
}

// get_body_inertia(body) -> the canonical 10-vector (a new array)
static PyObject* getter_body_inertia(PyObject* self, PyObject* key)
{
    gdnpyModel* mo = (gdnpyModel*)self;
    int id = gdnpy_object_id(mo->m, "body", key);
    if (id < 0) {
        return NULL;
    }
    gdnInertia inertia;
    gdn_body_inertia(mo->m, id, &inertia);
    Py_ssize_t shape[1] = {GDN_N_INERTIA_PARAMS};
    double* out;
    PyObject* arr = gdnpy_new_array(1, shape, &out);
    if (arr) {
        gdn_inertia_params(&inertia, out);
    }
    return arr;
}

// set_penalty(enabled, height=0, stiffness=0, damping=0)
static PyObject* setter_set_penalty(PyObject* self, PyObject* args, PyObject* kw)
{
    gdnpyModel* mo = (gdnpyModel*)self;
    static char* kwlist[] = {"enabled", "height", "stiffness", "damping", NULL};
    int enabled;
    double height = 0, stiffness = 0, damping = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "p|ddd:set_penalty", kwlist, &enabled, &height,
                                     &stiffness, &damping)) {
        return NULL;
    }
    if (gdnpy_model_writable(mo) < 0) {
        return NULL;
    }
    gdnStatus st = gdn_model_set_penalty(mo->m, enabled, height, stiffness, damping);
    if (st != GDN_OK) {
        return gdnpy_raise_status(st, "set_penalty", NULL);
    }
    Py_RETURN_NONE;
}

// set_collision_mesh(body, verts (n x 3)): Data made before no longer matches the model
static PyObject* setter_set_collision_mesh(PyObject* self, PyObject* args)
{
    gdnpyModel* mo = (gdnpyModel*)self;
    PyObject *key, *vec;
    if (!PyArg_ParseTuple(args, "OO:set_collision_mesh", &key, &vec)) {
        return NULL;
    }
    if (gdnpy_model_writable(mo) < 0) {
        return NULL;
    }
    int id = gdnpy_object_id(mo->m, "body", key);
    if (id < 0) {
        return NULL;
    }
    // the vertex count from the buffer's length (a multiple of 3 doubles)
    Py_ssize_t n = 0;
    if (PyObject_CheckBuffer(vec)) {
        Py_buffer view;
        if (PyObject_GetBuffer(vec, &view, PyBUF_SIMPLE) < 0) {
            return NULL;
        }
        n = view.len / (Py_ssize_t)sizeof(double);
        PyBuffer_Release(&view);
    } else if (PyList_Check(vec) || PyTuple_Check(vec)) {
        n = PySequence_Size(vec);
    }
    if (n % 3 != 0 || n / 3 > 2147483647L) {
        PyErr_SetString(PyExc_ValueError, "set_collision_mesh: expected an (n, 3) float64 array");
        return NULL;
    }
    gdnpyInput in;
    if (gdnpy_input(vec, n, 0, "set_collision_mesh", &in) < 0) {
        return NULL;
    }
    gdnStatus st = gdn_model_set_collision_mesh(mo->m, id, in.ptr, (int)(n / 3));
    gdnpy_input_release(&in);
    if (st != GDN_OK) {
        return gdnpy_raise_status(st, "set_collision_mesh", NULL);
    }
    Py_RETURN_NONE;
}

PyMethodDef gdnpy_setter_methods[] = {
    {"set_geom_friction", setter_set_geom_friction, METH_VARARGS,
     "m.set_geom_friction(geom, (slide, spin, roll))"},
    {"set_geom_solref", setter_set_geom_solref, METH_VARARGS, "m.set_geom_solref(geom, (2,))"},
    {"set_geom_solimp", setter_set_geom_solimp, METH_VARARGS, "m.set_geom_solimp(geom, (5,))"},
    {"set_geom_size", setter_set_geom_size, METH_VARARGS,
     "m.set_geom_size(geom, (3,)): primitive size, the body inertia refreshed"},
    {"set_pair_friction", setter_set_pair_friction, METH_VARARGS,
     "m.set_pair_friction(pair, (5,))"},
    {"set_pair_solref", setter_set_pair_solref, METH_VARARGS, "m.set_pair_solref(pair, (2,))"},
    {"set_pair_solimp", setter_set_pair_solimp, METH_VARARGS, "m.set_pair_solimp(pair, (5,))"},
    {"set_body_inertia", setter_set_body_inertia, METH_VARARGS,
     "m.set_body_inertia(body, params (10,)): [mass, com (3), Ixx, Iyy, Izz, Ixy, Ixz, Iyz]"},
    {"get_body_inertia", getter_body_inertia, METH_O,
     "m.get_body_inertia(body) -> params (10,), the canonical packing"},
    {"set_penalty", (PyCFunction)(void (*)(void))setter_set_penalty,
     METH_VARARGS | METH_KEYWORDS,
     "m.set_penalty(enabled, height=0, stiffness=0, damping=0): penalty ground contact"},
    {"set_collision_mesh", setter_set_collision_mesh, METH_VARARGS,
     "m.set_collision_mesh(body, verts (n, 3)): Data made before no longer matches"},
    {NULL, NULL, 0, NULL},
};
