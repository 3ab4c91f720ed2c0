// SPDX-License-Identifier: Apache-2.0
// The batch pool for Python: _gradyn._BatchPool over gdnBatchPool (include/gradyn/batch.h),
// the base of gradyn.BatchPool (gradyn/batch.py); its busy mark keeps two threads off it.
#include "gdnpy.h" // (Python.h first, as CPython requires)

#include <gradyn/batch.h>

// _BatchPool(model, nthread=0): a pool for models of model's sizes
static PyObject* pool_new(PyTypeObject* type, PyObject* args, PyObject* kwds)
{
    static char* kwlist[] = {"model", "nthread", NULL};
    PyObject* mo;
    int nthread = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|i:BatchPool", kwlist, &mo, &nthread)) {
        return NULL;
    }
    if (!PyObject_TypeCheck(mo, &gdnpyModelType)) {
        PyErr_Format(PyExc_TypeError, "BatchPool: expected a gradyn.Model, got %s",
                     Py_TYPE(mo)->tp_name);
        return NULL;
    }
    if (nthread < 0) {
        PyErr_Format(PyExc_ValueError, "BatchPool: nthread: 0 (all cores) or a positive count, "
                     "got %d", nthread);
        return NULL;
    }
    gdnpyBatchPool* self = (gdnpyBatchPool*)type->tp_alloc(type, 0);
    if (!self) {
        return NULL;
    }
    // the threads start here (the model itself is not kept: only its sizes)
    char err[256] = "";
    gdnStatus st;
    const gdnModel* m = ((gdnpyModel*)mo)->m;
    Py_BEGIN_ALLOW_THREADS
    st = gdn_batch_pool_create(m, nthread, &self->pool, err, (int)sizeof err);
    Py_END_ALLOW_THREADS
    if (st != GDN_OK) {
        Py_DECREF(self);
        return gdnpy_raise_status(st, "BatchPool", err);
    }
    return (PyObject*)self;
}

// no call runs while the object dies (a call holds a reference): join the threads, free
static void pool_dealloc(PyObject* self)
{
    gdnpyBatchPool* p = (gdnpyBatchPool*)self;
    gdnBatchPool* pool = p->pool;
    p->pool = NULL;
    Py_BEGIN_ALLOW_THREADS
    gdn_batch_pool_free(pool);
    Py_END_ALLOW_THREADS
    Py_TYPE(self)->tp_free(self);
}

int gdnpy_pool_acquire(PyObject* obj, gdnpyBatchPool** out)
{
    *out = NULL;
    if (obj == NULL || obj == Py_None) {
        return 0;
    }
    if (!PyObject_TypeCheck(obj, &gdnpyBatchPoolType)) {
        PyErr_Format(PyExc_TypeError, "pool: expected a gradyn.BatchPool or None, got %s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    gdnpyBatchPool* p = (gdnpyBatchPool*)obj;
    if (!p->pool) {
        PyErr_SetString(PyExc_RuntimeError, "pool: this gradyn.BatchPool was not created");
        return -1;
    }
    if (p->busy) {
        PyErr_SetString(PyExc_RuntimeError,
                        "this gradyn.BatchPool is in use by a call in another thread (a pool "
                        "runs one call at a time: use one pool per thread)");
        return -1;
    }
    p->busy = 1;
    *out = p;
    return 0;
}

void gdnpy_pool_release(gdnpyBatchPool* p)
{
    if (p) {
        p->busy = 0;
    }
}

static PyObject* pool_get_nthread(PyObject* self, void* closure)
{
    (void)closure;
    return PyLong_FromLong(gdn_batch_pool_nthread(((gdnpyBatchPool*)self)->pool));
}

static PyObject* pool_get_busy(PyObject* self, void* closure)
{
    (void)closure;
    return PyBool_FromLong(((gdnpyBatchPool*)self)->busy);
}

static PyGetSetDef pool_getset[] = {
    {"nthread", pool_get_nthread, NULL, "the pool's workers, the calling thread included", NULL},
    {"busy", pool_get_busy, NULL, "True while a call runs on the pool", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject gdnpyBatchPoolType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gradyn._BatchPool",
    .tp_doc = "_BatchPool(model, nthread=0): parked threads and per-thread memory for repeated "
              "batch calls (use gradyn.BatchPool)",
    .tp_basicsize = sizeof(gdnpyBatchPool),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_new = pool_new,
    .tp_dealloc = pool_dealloc,
    .tp_getset = pool_getset,
};
