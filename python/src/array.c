// SPDX-License-Identifier: Apache-2.0
// Array views: a buffer-protocol exporter over C arrays (zero-copy numpy views that keep their
// Model or Data alive), new output arrays, and the checked conversion of input vectors.
#include "gdnpy.h" // first: Python.h precedes the standard headers
#include <string.h>

// ---------------------------------------------------------------- the exporter type

static void buffer_dealloc(PyObject* self)
{
    gdnpyBuffer* b = (gdnpyBuffer*)self;
    Py_XDECREF(b->owner);
    PyMem_Free(b->owned);
    Py_TYPE(self)->tp_free(self);
}

// is the (C-ordered) array also Fortran-contiguous: empty, or at most one dimension longer
// than 1 (CPython's PyBuffer_IsContiguous 'F' rule)
static int buffer_is_fortran(const gdnpyBuffer* b)
{
    int long_dims = 0;
    for (int i = 0; i < b->ndim; i++) {
        if (b->shape[i] == 0) {
            return 1;
        }
        long_dims += b->shape[i] > 1;
    }
    return long_dims <= 1;
}

// export the array (the buffer protocol's request flags): a writable request on a read-only
// array and a Fortran-order request on a 2-D or 3-D array with two dimensions longer than 1
// are refused (BufferError); shape only with PyBUF_ND (else one dimension of len bytes' items,
// as PyBuffer_FillInfo), strides only with PyBUF_STRIDES (else C order is implied), the format
// only with PyBUF_FORMAT (else NULL, unsigned bytes)
static int buffer_get(PyObject* self, Py_buffer* view, int flags)
{
    gdnpyBuffer* b = (gdnpyBuffer*)self;
    view->obj = NULL;
    if ((flags & PyBUF_WRITABLE) && b->readonly) {
        PyErr_SetString(PyExc_BufferError, "gradyn: this array is read-only");
        return -1;
    }
    // C_CONTIGUOUS and ANY_CONTIGUOUS are always met (the arrays are C-ordered)
    if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS && !buffer_is_fortran(b)) {
        PyErr_SetString(PyExc_BufferError,
                        "gradyn: this array is C-contiguous, not Fortran-contiguous");
        return -1;
    }
    Py_ssize_t n = 1;
    for (int i = 0; i < b->ndim; i++) {
        n *= b->shape[i];
    }
    int nd = (flags & PyBUF_ND) == PyBUF_ND;
    view->buf = b->ptr;
    view->obj = self;
    Py_INCREF(self);
    view->len = n * b->itemsize;
    view->readonly = b->readonly;
    view->itemsize = b->itemsize;
    view->format = (flags & PyBUF_FORMAT) ? b->format : NULL;
    view->ndim = nd ? b->ndim : 1;
    view->shape = nd ? b->shape : NULL;
    view->strides = ((flags & PyBUF_STRIDES) == PyBUF_STRIDES) ? b->strides : NULL;
    view->suboffsets = NULL;
    view->internal = NULL;
    return 0;
}

static PyBufferProcs buffer_procs = {.bf_getbuffer = buffer_get, .bf_releasebuffer = NULL};

PyTypeObject gdnpyBufferType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gradyn.Buffer",
    .tp_doc = "A C array of a gradyn Model or Data exported through the buffer protocol "
              "(numpy.asarray gives a zero-copy view; the view keeps its owner alive).",
    .tp_basicsize = sizeof(gdnpyBuffer),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = buffer_dealloc,
    .tp_as_buffer = &buffer_procs,
};

// a new exporter of ptr with the given shape, C-contiguous
static gdnpyBuffer* buffer_new(PyObject* owner, void* ptr, char type, int ndim,
                               const Py_ssize_t* shape, int readonly)
{
    gdnpyBuffer* b = PyObject_New(gdnpyBuffer, &gdnpyBufferType);
    if (!b) {
        return NULL;
    }
    b->owner = owner;
    Py_XINCREF(owner);
    b->owned = NULL;
    b->ndim = ndim;
    b->itemsize = type == 'i'   ? (Py_ssize_t)sizeof(int)
                  : type == 'B' ? 1
                                : (Py_ssize_t)sizeof(double);
    b->format[0] = type;
    b->format[1] = '\0';
    b->readonly = readonly;
    Py_ssize_t stride = b->itemsize;
    for (int i = ndim - 1; i >= 0; i--) {
        b->shape[i] = shape[i];
        b->strides[i] = stride;
        stride *= shape[i] > 0 ? shape[i] : 1;
    }
    // a zero-size array still needs a valid address
    static double empty;
    b->ptr = ptr ? ptr : (void*)&empty;
    return b;
}

// ---------------------------------------------------------------- numpy at run time

PyObject* gdnpy_numpy(void)
{
    static PyObject* np = NULL;
    static int tried = 0;
    if (!tried) {
        tried = 1;
        np = PyImport_ImportModule("numpy");
        if (!np) {
            PyErr_Clear();
        }
    }
    return np;
}

PyObject* gdnpy_asarray(PyObject* exporter)
{
    if (!exporter) {
        return NULL;
    }
    PyObject* np = gdnpy_numpy();
    PyObject* out;
    if (np) {
        out = PyObject_CallMethod(np, "asarray", "O", exporter);
    } else {
        out = PyMemoryView_FromObject(exporter);
    }
    Py_DECREF(exporter);
    return out;
}

PyObject* gdnpy_view(PyObject* owner, void* ptr, char type, int ndim, const Py_ssize_t* shape,
                     int readonly)
{
    return gdnpy_asarray((PyObject*)buffer_new(owner, ptr, type, ndim, shape, readonly));
}

PyObject* gdnpy_new_array(int ndim, const Py_ssize_t* shape, double** data)
{
    Py_ssize_t n = 1;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] > 0 && n > PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(double) / shape[i]) {
            return PyErr_NoMemory(); // (the byte count would overflow)
        }
        n *= shape[i];
    }
    double* mem = PyMem_Calloc(n > 0 ? (size_t)n : 1, sizeof(double));
    if (!mem) {
        return PyErr_NoMemory();
    }
    gdnpyBuffer* b = buffer_new(NULL, mem, 'd', ndim, shape, 0);
    if (!b) {
        PyMem_Free(mem);
        return NULL;
    }
    b->owned = mem;
    *data = mem;
    return gdnpy_asarray((PyObject*)b);
}

// ---------------------------------------------------------------- input vectors

// is this buffer format a native double ("d", "=d", "<d" on little-endian, "@d")
static int format_is_double(const char* f)
{
    if (!f) {
        return 0; // unformatted bytes: refuse
    }
    if (f[0] == '@' || f[0] == '=') {
        f++;
    }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    else if (f[0] == '<') {
        f++;
    }
#endif
    return strcmp(f, "d") == 0;
}

int gdnpy_input(PyObject* obj, Py_ssize_t n, int allow_none, const char* name, gdnpyInput* in)
{
    memset(in, 0, sizeof *in);
    if (obj == NULL || obj == Py_None) {
        if (allow_none) {
            return 0;
        }
        PyErr_Format(PyExc_TypeError, "%s: expected an array of %zd float64, got None", name, n);
        return -1;
    }
    // a buffer exporter (numpy array, memoryview, array.array('d')): must be float64
    if (PyObject_CheckBuffer(obj)) {
        if (PyObject_GetBuffer(obj, &in->view, PyBUF_FORMAT | PyBUF_STRIDES) < 0) {
            return -1;
        }
        in->has_view = 1;
        if (!format_is_double(in->view.format) || in->view.itemsize != (Py_ssize_t)sizeof(double)) {
            PyErr_Format(PyExc_TypeError, "%s: expected float64 data, got buffer format '%s'",
                         name, in->view.format ? in->view.format : "B");
            gdnpy_input_release(in);
            return -1;
        }
        Py_ssize_t count = in->view.len / (Py_ssize_t)sizeof(double);
        if (count != n) {
            PyErr_Format(PyExc_ValueError, "%s: expected %zd elements, got %zd", name, n, count);
            gdnpy_input_release(in);
            return -1;
        }
        if (!PyBuffer_IsContiguous(&in->view, 'C')) {
            PyErr_Format(PyExc_ValueError, "%s: the array must be C-contiguous", name);
            gdnpy_input_release(in);
            return -1;
        }
        in->ptr = in->view.buf;
        return 0;
    }
    // a list or tuple of numbers
    if (PyList_Check(obj) || PyTuple_Check(obj)) {
        PyObject* seq = PySequence_Fast(obj, name);
        if (!seq) {
            return -1;
        }
        Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
        if (count != n) {
            PyErr_Format(PyExc_ValueError, "%s: expected %zd elements, got %zd", name, n, count);
            Py_DECREF(seq);
            return -1;
        }
        in->tmp = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
        if (!in->tmp) {
            Py_DECREF(seq);
            PyErr_NoMemory();
            return -1;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject* item = PySequence_Fast_GET_ITEM(seq, i);
            if (!PyFloat_Check(item) && !PyLong_Check(item)) {
                PyErr_Format(PyExc_TypeError, "%s: element %zd is not a number", name, i);
                Py_DECREF(seq);
                gdnpy_input_release(in);
                return -1;
            }
            in->tmp[i] = PyFloat_AsDouble(item);
            if (in->tmp[i] == -1.0 && PyErr_Occurred()) {
                Py_DECREF(seq);
                gdnpy_input_release(in);
                return -1;
            }
        }
        Py_DECREF(seq);
        in->ptr = in->tmp;
        return 0;
    }
    PyErr_Format(PyExc_TypeError, "%s: expected a float64 array or a list of %zd numbers, got %s",
                 name, n, Py_TYPE(obj)->tp_name);
    return -1;
}

void gdnpy_input_release(gdnpyInput* in)
{
    if (in->has_view) {
        PyBuffer_Release(&in->view);
        in->has_view = 0;
    }
    PyMem_Free(in->tmp);
    in->tmp = NULL;
    in->ptr = NULL;
}
