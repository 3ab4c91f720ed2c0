// SPDX-License-Identifier: Apache-2.0
// Named access: m.body('torso').id, m.joint(name).range, d.body('torso').xpos, ... (the
// conventions of the mujoco package): an object of one type and id whose attributes are rows
// of the Model's or Data's arrays.
#include "gdnpy.h" // first: Python.h precedes the standard headers
#include <string.h>

typedef struct {
    PyObject_HEAD
    PyObject* owner; // the Model or Data
    int is_data;
    const char* objtype;
    int id;
} gdnpyNamed;

// the model-array prefix of an object type (m.body(i).mass is body_mass[i])
static const char* model_prefix(const char* objtype)
{
    return strcmp(objtype, "joint") == 0 ? "jnt" : strcmp(objtype, "key") == 0 ? "key" : objtype;
}

// the object count of a type (pairs have ids only, no names)
static int object_count(const gdnModel* m, const char* objtype)
{
    if (strcmp(objtype, "body") == 0) return m->nbody;
    if (strcmp(objtype, "joint") == 0) return m->njnt;
    if (strcmp(objtype, "geom") == 0) return m->ngeom;
    if (strcmp(objtype, "site") == 0) return m->nsite;
    if (strcmp(objtype, "actuator") == 0) return m->nu;
    if (strcmp(objtype, "key") == 0) return m->nkey;
    if (strcmp(objtype, "pair") == 0) return m->npair;
    if (strcmp(objtype, "sensor") == 0) return m->nsensor;
    return 0;
}

int gdnpy_object_id(const gdnModel* m, const char* objtype, PyObject* key)
{
    int count = object_count(m, objtype);
    // a name: its id, KeyError when no object of the type has it
    if (PyUnicode_Check(key)) {
        const char* name = PyUnicode_AsUTF8(key);
        if (!name) {
            return -1;
        }
        int id = gdn_name2id(m, objtype, name);
        if (id < 0) {
            PyErr_Format(PyExc_KeyError, "Invalid name '%s'. No %s of that name.", name,
                         objtype);
        }
        return id;
    }
    if (!PyLong_Check(key)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a name (str) or an id (int), got %s",
                     objtype, Py_TYPE(key)->tp_name);
        return -1;
    }
    // an id: 0 <= id < count, else IndexError (also for ints beyond a C long)
    int overflow = 0;
    long v = PyLong_AsLongAndOverflow(key, &overflow);
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (overflow || v < 0 || v >= count) {
        PyErr_Format(PyExc_IndexError, "%s id out of range [0, %d)", objtype, count);
        return -1;
    }
    return (int)v;
}

static const gdnModel* owner_model(const gdnpyNamed* n)
{
    return n->is_data ? ((gdnpyData*)n->owner)->model->m : ((gdnpyModel*)n->owner)->m;
}

PyObject* gdnpy_named(PyObject* owner, int is_data, const char* objtype, PyObject* key)
{
    const gdnModel* m = is_data ? ((gdnpyData*)owner)->model->m : ((gdnpyModel*)owner)->m;
    int id = gdnpy_object_id(m, objtype, key);
    if (id < 0) {
        return NULL;
    }
    gdnpyNamed* n = PyObject_New(gdnpyNamed, &gdnpyNamedType);
    if (!n) {
        return NULL;
    }
    Py_INCREF(owner);
    n->owner = owner;
    n->is_data = is_data;
    n->objtype = objtype; // a string literal of the callers
    n->id = id;
    return (PyObject*)n;
}

// row id of field f as a view (1-D of cols, or a scalar-like shape (1,) for single columns)
static PyObject* row_view(gdnpyNamed* n, const void* base, const gdnpyField* f,
                          const gdnData* d, int readonly)
{
    const gdnModel* m = owner_model(n);
    int cols = f->cols == -1 ? m->nq : f->cols == -2 ? m->nv : f->cols == -3 ? m->nu : f->cols;
    char* ptr;
    memcpy(&ptr, (const char*)base + f->offset, sizeof ptr);
    if (!ptr || n->id >= gdnpy_rows(m, d, f->rows)) {
        PyErr_Format(PyExc_AttributeError, "%s %d has no %s row", n->objtype, n->id, f->name);
        return NULL;
    }
    Py_ssize_t item = f->type == 'i' ? (Py_ssize_t)sizeof(int) : (Py_ssize_t)sizeof(double);
    Py_ssize_t shape[1] = {cols};
    return gdnpy_view(n->owner, ptr + (Py_ssize_t)n->id * cols * item, f->type, 1, shape,
                      readonly);
}

// a slice of a data vector for a joint: qpos (by jnt_qposadr) or qvel, qacc, ... (jnt_dofadr)
static PyObject* joint_slice(gdnpyNamed* n, const gdnpyField* f)
{
    gdnpyData* dobj = (gdnpyData*)n->owner;
    const gdnModel* m = dobj->model->m;
    int type = m->jnt_type[n->id];
    int adr = f->rows == GDNPY_ROWS_NQ ? m->jnt_qposadr[n->id] : m->jnt_dofadr[n->id];
    int len = f->rows == GDNPY_ROWS_NQ ? gdn_joint_nq(type) : gdn_joint_nv(type);
    double* ptr;
    memcpy(&ptr, (const char*)dobj->d + f->offset, sizeof ptr);
    Py_ssize_t shape[1] = {len};
    return gdnpy_view(n->owner, ptr + adr, 'd', 1, shape, 0);
}

static PyObject* named_getattro(PyObject* self, PyObject* name)
{
    gdnpyNamed* n = (gdnpyNamed*)self;
    const char* s = PyUnicode_AsUTF8(name);
    if (!s) {
        return NULL;
    }
    const gdnModel* m = owner_model(n);
    if (strcmp(s, "id") == 0) {
        return PyLong_FromLong(n->id);
    }
    if (strcmp(s, "name") == 0) {
        const char* nm = gdn_id2name(m, n->objtype, n->id);
        return PyUnicode_FromString(nm ? nm : "");
    }
    if (s[0] == '_') {
        return PyObject_GenericGetAttr(self, name);
    }
    char full[128];
    if (!n->is_data) {
        // the model array prefix_attr (m.body(i).mass: body_mass)
        snprintf(full, sizeof full, "%s_%s", model_prefix(n->objtype), s);
        const gdnpyField* f = gdnpy_find_field(gdnpy_model_fields, full);
        if (f) {
            return row_view(n, m, f, NULL, 1);
        }
    } else {
        gdnpyData* dobj = (gdnpyData*)n->owner;
        // sensors: data, the sensor's slice of sensordata (writable, as MuJoCo's)
        if (strcmp(n->objtype, "sensor") == 0 && strcmp(s, "data") == 0) {
            const gdnData* d = dobj->d;
            Py_ssize_t shape[1] = {m->sensor_dim[n->id]};
            return gdnpy_view(n->owner, d->sensordata + m->sensor_adr[n->id], 'd', 1, shape, 0);
        }
        // joints: qpos, qvel, qacc, qfrc_* sliced by address; others: prefixed or plain rows
        const gdnpyField* f = gdnpy_find_field(gdnpy_data_fields, s);
        if (strcmp(n->objtype, "joint") == 0 && f && f->cols == 1 &&
            (f->rows == GDNPY_ROWS_NQ || f->rows == GDNPY_ROWS_NV)) {
            return joint_slice(n, f);
        }
        static const struct {
            const char* objtype;
            int rows;
            const char* prefix;
        } kinds[] = {{"body", GDNPY_ROWS_NBODY, ""},  {"joint", GDNPY_ROWS_NJNT, ""},
                     {"geom", GDNPY_ROWS_NGEOM, "geom_"}, {"site", GDNPY_ROWS_NSITE, "site_"},
                     {"actuator", GDNPY_ROWS_NU, "actuator_"}};
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
            if (strcmp(kinds[k].objtype, n->objtype) != 0) {
                continue;
            }
            snprintf(full, sizeof full, "%s%s", kinds[k].prefix, s);
            f = gdnpy_find_field(gdnpy_data_fields, full);
            if (!f && strcmp(n->objtype, "actuator") == 0) {
                f = gdnpy_find_field(gdnpy_data_fields, s); // d.actuator(i).ctrl
            }
            if (f && f->rows == kinds[k].rows) {
                return row_view(n, dobj->d, f, dobj->d, f->type != 'd');
            }
        }
    }
    return PyObject_GenericGetAttr(self, name);
}

static void named_dealloc(PyObject* self)
{
    Py_XDECREF(((gdnpyNamed*)self)->owner);
    Py_TYPE(self)->tp_free(self);
}

static PyObject* named_repr(PyObject* self)
{
    gdnpyNamed* n = (gdnpyNamed*)self;
    const char* nm = gdn_id2name(owner_model(n), n->objtype, n->id);
    return PyUnicode_FromFormat("<gradyn %s %s id=%d name='%s'>", n->is_data ? "data" : "model",
                                n->objtype, n->id, nm ? nm : "");
}

PyTypeObject gdnpyNamedType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gradyn.Named",
    .tp_doc = "One named object of a Model or Data: .id, .name and its rows of the arrays.",
    .tp_basicsize = sizeof(gdnpyNamed),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = named_dealloc,
    .tp_getattro = named_getattro,
    .tp_repr = named_repr,
};
