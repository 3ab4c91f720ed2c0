// SPDX-License-Identifier: Apache-2.0
// Internal declarations shared by the files of the gradyn CPython extension module.
#ifndef GDNPY_H
#define GDNPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <gradyn/derivative.h>
#include <gradyn/gradyn.h>

// the Model object: owns one gdnModel; busy counts C calls running on it without the GIL
// (the setters refuse to change the model while one runs)
typedef struct {
    PyObject_HEAD
    gdnModel* m;
    int busy;
} gdnpyModel;

// the Data object: owns one gdnData and keeps its Model alive; busy is 1 while a C call
// runs on it without the GIL (a second call from another thread raises instead of racing)
typedef struct {
    PyObject_HEAD
    gdnData* d;
    gdnpyModel* model;
    int busy;
} gdnpyData;

// the Option object: the physics options of one Model, read and written in place
typedef struct {
    PyObject_HEAD
    gdnpyModel* model;
} gdnpyOption;

// the batch pool object: owns one gdnBatchPool (threads and per-thread memory, batch.h);
// busy is 1 while a call runs on it without the GIL (a second call raises instead)
struct gdnBatchPool;
typedef struct {
    PyObject_HEAD
    struct gdnBatchPool* pool;
    int busy;
} gdnpyBatchPool;

// an exporter of one C array through the buffer protocol: it keeps owner alive (a Model or a
// Data whose memory it points into) or owns its memory (owned, freed with it)
#define GDNPY_MAXDIM 3
typedef struct {
    PyObject_HEAD
    PyObject* owner;
    void* ptr;
    void* owned;
    int ndim;
    Py_ssize_t shape[GDNPY_MAXDIM];
    Py_ssize_t strides[GDNPY_MAXDIM];
    Py_ssize_t itemsize;
    char format[4];
    int readonly;
} gdnpyBuffer;

extern PyTypeObject gdnpyModelType;
extern PyTypeObject gdnpyDataType;
extern PyTypeObject gdnpyBufferType;
extern PyTypeObject gdnpyOptionType;
extern PyTypeObject gdnpyNamedType;
extern PyTypeObject gdnpyBatchPoolType;

// module state kept in globals: the module is single-phase initialized (one interpreter)
extern PyObject* gdnpy_Error; // gradyn.Error, a subclass of ValueError

// ---- errors (module.c)
// raise gradyn.Error for a failed call: "what: status name[: detail]"; returns NULL
PyObject* gdnpy_raise_status(gdnStatus st, const char* what, const char* detail);

// ---- arrays (array.c)
// a numpy array (numpy.asarray of a buffer exporter; a memoryview when numpy is missing) over
// the C array ptr of type 'd' (double), 'i' (int) or 'B' (bytes) with the given shape,
// keeping owner alive
PyObject* gdnpy_view(PyObject* owner, void* ptr, char type, int ndim, const Py_ssize_t* shape,
                     int readonly);
// a new zero-filled array owning its memory (a float64 numpy array)
PyObject* gdnpy_new_array(int ndim, const Py_ssize_t* shape, double** data);
// wrap any buffer exporter in numpy.asarray (steals exporter); NULL on error
PyObject* gdnpy_asarray(PyObject* exporter);
// numpy, imported on first use (borrowed; NULL when not importable, without an exception)
PyObject* gdnpy_numpy(void);

// an input vector: a C-contiguous float64 buffer (or a list/tuple of numbers) of exactly n
// elements. Python None gives ptr NULL when allow_none. On failure raises TypeError (not
// float64, not a buffer) or ValueError (wrong size, non-contiguous) and returns -1. Release
// with gdnpy_input_release
typedef struct {
    Py_buffer view;
    int has_view;
    double* tmp;
    const double* ptr;
} gdnpyInput;
int gdnpy_input(PyObject* obj, Py_ssize_t n, int allow_none, const char* name, gdnpyInput* in);
void gdnpy_input_release(gdnpyInput* in);

// ---- helpers of the calls (calls.c)
// check that d is a Data and m a Model, that d is not busy, and mark both busy; -1 on error
int gdnpy_acquire(PyObject* mo, PyObject* dobj, gdnpyModel** m, gdnpyData** d);
// -1 with RuntimeError when a C call runs on d without the GIL (data.c): assignments to its
// fields are refused then (writes through a numpy view cannot be stopped: docs/python.md)
int gdnpy_data_writable(const gdnpyData* d);
void gdnpy_release(gdnpyModel* m, gdnpyData* d);

// ---- method tables of the module functions (calls.c, derivative.c)
extern PyMethodDef gdnpy_call_methods[];
extern PyMethodDef gdnpy_derivative_methods[];
extern PyMethodDef gdnpy_batch_methods[]; // (batch.c)

// ---- the batch pool (batch_pool.c)
// obj None (or NULL): *out NULL, 0. Else TypeError unless a BatchPool, RuntimeError when a
// call runs on it; marks it busy (release with gdnpy_pool_release, NULL ignored); -1 on error
int gdnpy_pool_acquire(PyObject* obj, gdnpyBatchPool** out);
void gdnpy_pool_release(gdnpyBatchPool* p);

// ---- the model field table (model.c), used by the named access (named.c)
// one array field of gdnModel or gdnData: where its pointer is, its row count, columns
typedef struct {
    const char* name;
    size_t offset;  // offsetof the pointer in gdnModel / gdnData
    char type;      // 'd' double, 'i' int
    int rows;       // a gdnpyRows value
    int cols;
} gdnpyField;

// what a field's row count is
enum {
    GDNPY_ROWS_NQ, GDNPY_ROWS_NV, GDNPY_ROWS_NU, GDNPY_ROWS_NBODY, GDNPY_ROWS_NJNT,
    GDNPY_ROWS_NGEOM, GDNPY_ROWS_NSITE, GDNPY_ROWS_NKEY, GDNPY_ROWS_NPAIR,
    GDNPY_ROWS_NEXCLUDE, GDNPY_ROWS_NEQ, GDNPY_ROWS_NMESH, GDNPY_ROWS_NMESHVERT,
    GDNPY_ROWS_NMESHFACE, GDNPY_ROWS_NMESHGRAPH, GDNPY_ROWS_DNVERT, GDNPY_ROWS_NEFC,
    GDNPY_ROWS_MAXEFC, GDNPY_ROWS_NMOCAP, GDNPY_ROWS_NSENSOR, GDNPY_ROWS_NSENSORDATA,
    GDNPY_ROWS_NTENDON, GDNPY_ROWS_NWRAP, GDNPY_ROWS_NWRAP2, GDNPY_ROWS_NA, GDNPY_ROWS_ONE
};
extern const gdnpyField gdnpy_model_fields[];
extern const gdnpyField gdnpy_data_fields[];
// the row count of a field for (m, d) (d may be NULL for model fields)
Py_ssize_t gdnpy_rows(const gdnModel* m, const gdnData* d, int rows);
// a view of field f of the struct base (a gdnModel or gdnData), rows from m / d
PyObject* gdnpy_field_view(PyObject* owner, const void* base, const gdnpyField* f,
                           const gdnModel* m, const gdnData* d, int readonly);
// find a field by name; NULL when absent
const gdnpyField* gdnpy_find_field(const gdnpyField* table, const char* name);

// ---- the setters of the differentiable parameters (setters.c), Model methods
extern PyMethodDef gdnpy_setter_methods[];
// -1 with RuntimeError when a C call runs on the model without the GIL
int gdnpy_model_writable(gdnpyModel* m);
int gdnpy_model_prepare(void);

// ---- named access (named.c): m.body('torso'), d.joint(3), ...
// the id of an object of objtype ("body", "joint", "geom", "site", "actuator", "key", "pair")
// named by key, a name (str) or an id (int) in [0, count); -1 with KeyError (unknown name),
// IndexError (id out of range) or TypeError (neither) set. The named access and the setters'
// one parser
int gdnpy_object_id(const gdnModel* m, const char* objtype, PyObject* key);
PyObject* gdnpy_named(PyObject* owner, int is_data, const char* objtype, PyObject* key);

#endif
