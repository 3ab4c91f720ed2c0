// SPDX-License-Identifier: Apache-2.0
// The simulation calls: reset, reset_keyframe, step (nstep, GIL released), forward, inverse,
// kinematics, contact_force; and the busy marks that keep two threads off one Data.
#include "gdnpy.h"

int gdnpy_acquire(PyObject* mo, PyObject* dobj, gdnpyModel** m, gdnpyData** d)
{
    if (!PyObject_TypeCheck(mo, &gdnpyModelType)) {
        PyErr_Format(PyExc_TypeError, "expected a gradyn.Model, got %s", Py_TYPE(mo)->tp_name);
        return -1;
    }
    if (!PyObject_TypeCheck(dobj, &gdnpyDataType)) {
        PyErr_Format(PyExc_TypeError, "expected a gradyn.Data, got %s", Py_TYPE(dobj)->tp_name);
        return -1;
    }
    *m = (gdnpyModel*)mo;
    *d = (gdnpyData*)dobj;
    if (gdnpy_data_writable(*d) < 0) {
        return -1;
    }
    (*d)->busy = 1;
    (*m)->busy++;
    return 0;
}

void gdnpy_release(gdnpyModel* m, gdnpyData* d)
{
    d->busy = 0;
    m->busy--;
}

int gdnpy_model_writable(gdnpyModel* m)
{
    if (m->busy) {
        PyErr_SetString(PyExc_RuntimeError,
                        "this gradyn.Model is in use by a call in another thread: it cannot "
                        "change now");
        return -1;
    }
    return 0;
}

// reset(m, d): qpos0, zero velocity, controls and applied forces, time 0
static PyObject* call_reset(PyObject* self, PyObject* args)
{
    (void)self;
    PyObject *mo, *dobj;
    if (!PyArg_ParseTuple(args, "OO:reset", &mo, &dobj)) {
        return NULL;
    }
    gdnpyModel* m;
    gdnpyData* d;
    if (gdnpy_acquire(mo, dobj, &m, &d) < 0) {
        return NULL;
    }
    gdn_data_reset(m->m, d->d);
    gdnpy_release(m, d);
    Py_RETURN_NONE;
}

// reset_keyframe(m, d, key): the keyframe's state
static PyObject* call_reset_keyframe(PyObject* self, PyObject* args)
{
    (void)self;
    PyObject *mo, *dobj;
    int key;
    if (!PyArg_ParseTuple(args, "OOi:reset_keyframe", &mo, &dobj, &key)) {
        return NULL;
    }
    gdnpyModel* m;
    gdnpyData* d;
    if (gdnpy_acquire(mo, dobj, &m, &d) < 0) {
        return NULL;
    }
    gdnStatus st = gdn_data_reset_keyframe(m->m, d->d, key);
    gdnpy_release(m, d);
    if (st != GDN_OK) {
        if (st == GDN_ERR_ARG && (key < 0 || key >= m->m->nkey)) {
            PyErr_Format(PyExc_IndexError, "reset_keyframe: key %d out of range [0, %d)", key,
                         m->m->nkey);
            return NULL;
        }
        return gdnpy_raise_status(st, "reset_keyframe", NULL);
    }
    Py_RETURN_NONE;
}

// steps between two checks of pending signals in step(nstep)
#define GDNPY_STEP_CHUNK 256

// step(m, d, nstep=1): nstep steps without the GIL; the first failing step raises (its state
// unchanged, the steps before it kept); a signal (Ctrl-C) between chunks of steps raises its
// exception with the steps done so far kept
static PyObject* call_step(PyObject* self, PyObject* args, PyObject* kw)
{
    (void)self;
    static char* kwlist[] = {"m", "d", "nstep", NULL};
    PyObject *mo, *dobj;
    Py_ssize_t nstep = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|n:step", kwlist, &mo, &dobj, &nstep)) {
        return NULL;
    }
    if (nstep < 0) {
        PyErr_Format(PyExc_ValueError, "step: nstep must be >= 0, got %zd", nstep);
        return NULL;
    }
    gdnpyModel* m;
    gdnpyData* d;
    if (gdnpy_acquire(mo, dobj, &m, &d) < 0) {
        return NULL;
    }
    // chunks of steps without the GIL; between chunks, pending signals (Ctrl-C) stop it
    gdnStatus st = GDN_OK;
    Py_ssize_t i = 0;
    int interrupted = 0;
    while (i < nstep && st == GDN_OK && !interrupted) {
        Py_ssize_t end = nstep - i > GDNPY_STEP_CHUNK ? i + GDNPY_STEP_CHUNK : nstep;
        Py_BEGIN_ALLOW_THREADS
        for (; i < end; i++) {
            st = gdn_step(m->m, d->d);
            if (st != GDN_OK) {
                break;
            }
        }
        Py_END_ALLOW_THREADS
        if (i < nstep && st == GDN_OK) {
            interrupted = PyErr_CheckSignals() < 0;
        }
    }
    gdnpy_release(m, d);
    if (interrupted) {
        return NULL; // the signal handler's exception (KeyboardInterrupt), after i steps
    }
    if (st != GDN_OK) {
        char detail[96];
        snprintf(detail, sizeof detail, "step %zd of %zd (time %.17g)", i + 1, nstep,
                 d->d->time);
        return gdnpy_raise_status(st, "step", detail);
    }
    Py_RETURN_NONE;
}

// the (m, d) calls returning a status: forward, inverse, collision
typedef gdnStatus (*statusCall)(const gdnModel*, gdnData*);

static PyObject* run_status_call(PyObject* args, const char* fmt, const char* name,
                                 statusCall fn)
{
    PyObject *mo, *dobj;
    if (!PyArg_ParseTuple(args, fmt, &mo, &dobj)) {
        return NULL;
    }
    gdnpyModel* m;
    gdnpyData* d;
    if (gdnpy_acquire(mo, dobj, &m, &d) < 0) {
        return NULL;
    }
    gdnStatus st;
    Py_BEGIN_ALLOW_THREADS
    st = fn(m->m, d->d);
    Py_END_ALLOW_THREADS
    gdnpy_release(m, d);
    if (st != GDN_OK) {
        return gdnpy_raise_status(st, name, NULL);
    }
    Py_RETURN_NONE;
}

static PyObject* call_forward(PyObject* self, PyObject* args)
{
    (void)self;
    return run_status_call(args, "OO:forward", "forward", gdn_forward);
}

static PyObject* call_inverse(PyObject* self, PyObject* args)
{
    (void)self;
    return run_status_call(args, "OO:inverse", "inverse", gdn_inverse);
}

static PyObject* call_collision(PyObject* self, PyObject* args)
{
    (void)self;
    return run_status_call(args, "OO:collision", "collision", gdn_collision);
}

// kinematics(m, d): poses only (nothing happens for another model's data)
static PyObject* call_kinematics(PyObject* self, PyObject* args)
{
    (void)self;
    PyObject *mo, *dobj;
    if (!PyArg_ParseTuple(args, "OO:kinematics", &mo, &dobj)) {
        return NULL;
    }
    gdnpyModel* m;
    gdnpyData* d;
    if (gdnpy_acquire(mo, dobj, &m, &d) < 0) {
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    gdn_kinematics(m->m, d->d);
    Py_END_ALLOW_THREADS
    gdnpy_release(m, d);
    Py_RETURN_NONE;
}

// contact_force(m, d, i): the 6-vector of contact i in its frame (a new array)
static PyObject* call_contact_force(PyObject* self, PyObject* args)
{
    (void)self;
    PyObject *mo, *dobj;
    int id;
    if (!PyArg_ParseTuple(args, "OOi:contact_force", &mo, &dobj, &id)) {
        return NULL;
    }
    gdnpyModel* m;
    gdnpyData* d;
    if (gdnpy_acquire(mo, dobj, &m, &d) < 0) {
        return NULL;
    }
    double f[6];
    gdnStatus st = gdn_contact_force(m->m, d->d, id, f);
    int ncon = d->d->ncon;
    gdnpy_release(m, d);
    if (st != GDN_OK) {
        if (id < 0 || id >= ncon) {
            PyErr_Format(PyExc_IndexError, "contact_force: contact %d out of range [0, %d)", id,
                         ncon);
            return NULL;
        }
        return gdnpy_raise_status(st, "contact_force", NULL);
    }
    Py_ssize_t shape[1] = {6};
    double* out;
    PyObject* arr = gdnpy_new_array(1, shape, &out);
    if (arr) {
        for (int i = 0; i < 6; i++) {
            out[i] = f[i];
        }
    }
    return arr;
}

PyMethodDef gdnpy_call_methods[] = {
    {"reset", call_reset, METH_VARARGS,
     "reset(m, d): qpos0, zero velocity, controls and applied forces, time 0"},
    {"reset_keyframe", call_reset_keyframe, METH_VARARGS,
     "reset_keyframe(m, d, key): the state of keyframe key (IndexError when out of range)"},
    {"step", (PyCFunction)(void (*)(void))call_step, METH_VARARGS | METH_KEYWORDS,
     "step(m, d, nstep=1): nstep steps (GIL released); gradyn.Error on a failing step"},
    {"forward", call_forward, METH_VARARGS, "forward(m, d): forward dynamics, no integration"},
    {"inverse", call_inverse, METH_VARARGS, "inverse(m, d): qfrc_inverse from qacc"},
    {"kinematics", call_kinematics, METH_VARARGS, "kinematics(m, d): poses"},
    {"collision", call_collision, METH_VARARGS,
     "collision(m, d): contacts from the geom poses"},
    {"contact_force", call_contact_force, METH_VARARGS,
     "contact_force(m, d, i): contact i's force in its frame (6,)"},
    {NULL, NULL, 0, NULL},
};
