// SPDX-License-Identifier: Apache-2.0
// The _gradyn module: initialization, the gradyn.Error exception and status-to-exception mapping.
#include "gdnpy.h"

PyObject* gdnpy_Error = NULL;

// raise gradyn.Error("what: status[: detail]") with .status set to the gdnStatus code
PyObject* gdnpy_raise_status(gdnStatus st, const char* what, const char* detail)
{
    PyObject* msg;
    if (detail && detail[0]) {
        msg = PyUnicode_FromFormat("%s: %s: %s", what, gdn_status_string(st), detail);
    } else {
        msg = PyUnicode_FromFormat("%s: %s", what, gdn_status_string(st));
    }
    if (!msg) {
        return NULL;
    }
    PyObject* exc = PyObject_CallOneArg(gdnpy_Error, msg);
    Py_DECREF(msg);
    if (!exc) {
        return NULL;
    }
    PyObject* code = PyLong_FromLong((long)st);
    if (!code || PyObject_SetAttrString(exc, "status", code) < 0) {
        Py_XDECREF(code);
        Py_DECREF(exc);
        return NULL;
    }
    Py_DECREF(code);
    PyErr_SetObject(gdnpy_Error, exc);
    Py_DECREF(exc);
    return NULL;
}

// the module's functions: the calls and the derivatives, concatenated at init
static PyMethodDef gdnpy_methods[64];

static struct PyModuleDef gdnpy_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_gradyn",
    .m_doc = "gradyn: differentiable rigid multibody dynamics (C extension; see docs/python.md)",
    .m_size = -1,
    .m_methods = gdnpy_methods,
};

// add a type to the module under its short name
static int add_type(PyObject* mod, PyTypeObject* type, const char* name)
{
    if (PyType_Ready(type) < 0) {
        return -1;
    }
    Py_INCREF(type);
    if (PyModule_AddObject(mod, name, (PyObject*)type) < 0) {
        Py_DECREF(type);
        return -1;
    }
    return 0;
}

// fill the method table from the per-file tables (sentinel-terminated)
static void collect_methods(void)
{
    int n = 0;
    const PyMethodDef* tables[] = {gdnpy_call_methods, gdnpy_derivative_methods,
                                   gdnpy_batch_methods};
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
        for (const PyMethodDef* p = tables[t]; p->ml_name; p++) {
            if (n < (int)(sizeof gdnpy_methods / sizeof gdnpy_methods[0]) - 1) {
                gdnpy_methods[n++] = *p;
            }
        }
    }
    gdnpy_methods[n] = (PyMethodDef){NULL, NULL, 0, NULL};
}

PyMODINIT_FUNC PyInit__gradyn(void);
PyMODINIT_FUNC PyInit__gradyn(void)
{
    collect_methods();
    PyObject* mod = PyModule_Create(&gdnpy_module);
    if (!mod) {
        return NULL;
    }
    // gradyn.Error: what every failed C call raises (a ValueError, like mujoco's load errors)
    gdnpy_Error = PyErr_NewExceptionWithDoc(
        "gradyn.Error",
        "A gradyn C call failed: the message holds the loader's 'file:line: element: cause' or "
        "the call and its status; .status is the gdnStatus code.",
        PyExc_ValueError, NULL);
    if (!gdnpy_Error || PyModule_AddObject(mod, "Error", gdnpy_Error) < 0) {
        Py_XDECREF(gdnpy_Error);
        Py_DECREF(mod);
        return NULL;
    }
    Py_INCREF(gdnpy_Error); // the module's reference was stolen; keep ours
    if (gdnpy_model_prepare() < 0) {
        PyErr_SetString(PyExc_RuntimeError, "_gradyn: method table overflow");
        Py_DECREF(mod);
        return NULL;
    }
    if (add_type(mod, &gdnpyModelType, "Model") < 0 || add_type(mod, &gdnpyDataType, "Data") < 0 ||
        add_type(mod, &gdnpyBufferType, "Buffer") < 0 ||
        add_type(mod, &gdnpyOptionType, "Option") < 0 ||
        add_type(mod, &gdnpyNamedType, "Named") < 0 ||
        add_type(mod, &gdnpyBatchPoolType, "_BatchPool") < 0) {
        Py_DECREF(mod);
        return NULL;
    }
    // the status codes and a few constants
    static const struct {
        const char* name;
        long value;
    } consts[] = {
        {"OK", GDN_OK}, {"ERR_IO", GDN_ERR_IO}, {"ERR_PARSE", GDN_ERR_PARSE},
        {"ERR_MODEL", GDN_ERR_MODEL}, {"ERR_ARG", GDN_ERR_ARG},
        {"ERR_NONFINITE", GDN_ERR_NONFINITE}, {"ERR_MEMORY", GDN_ERR_MEMORY},
        {"ERR_UNSUPPORTED", GDN_ERR_UNSUPPORTED}, {"ERR_UNCONVERGED", GDN_ERR_UNCONVERGED},
        {"ERR_SINGULAR", GDN_ERR_SINGULAR}, {"N_INERTIA_PARAMS", GDN_N_INERTIA_PARAMS},
        {"DERIV_ONESIDED", GDN_DERIV_ONESIDED}, {"DERIV_NEAR_STATE", GDN_DERIV_NEAR_STATE},
        {"DERIV_NEAR_ACTIVATION", GDN_DERIV_NEAR_ACTIVATION},
        {"DERIV_MPR_LIMIT", GDN_DERIV_MPR_LIMIT},
        {"DERIV_INEXACT_SOLVE", GDN_DERIV_INEXACT_SOLVE},
        {"DERIV_WRAP_LIMIT", GDN_DERIV_WRAP_LIMIT},
        {"SOL_PGS", GDN_SOL_PGS}, {"SOL_CG", GDN_SOL_CG}, {"SOL_NEWTON", GDN_SOL_NEWTON},
        {"CONE_PYRAMIDAL", GDN_CONE_PYRAMIDAL}, {"CONE_ELLIPTIC", GDN_CONE_ELLIPTIC},
        {"INT_EULER", GDN_INT_EULER}, {"INT_RK4", GDN_INT_RK4},
        {"INT_IMPLICIT", GDN_INT_IMPLICIT},
        {"COL_ALL", GDN_COL_ALL}, {"COL_PAIR", GDN_COL_PAIR}, {"COL_DYNAMIC", GDN_COL_DYNAMIC},
        {"DSBL_CONSTRAINT", GDN_DSBL_CONSTRAINT}, {"DSBL_CONTACT", GDN_DSBL_CONTACT},
        {"DSBL_GRAVITY", GDN_DSBL_GRAVITY}, {"DSBL_WARMSTART", GDN_DSBL_WARMSTART},
        {"ENBL_ENERGY", GDN_ENBL_ENERGY}, {"ENBL_ONESIDED", GDN_ENBL_ONESIDED},
    };
    for (size_t i = 0; i < sizeof consts / sizeof consts[0]; i++) {
        if (PyModule_AddIntConstant(mod, consts[i].name, consts[i].value) < 0) {
            Py_DECREF(mod);
            return NULL;
        }
    }
    if (PyModule_AddStringConstant(mod, "__version__", GDN_VERSION_STRING) < 0) {
        Py_DECREF(mod);
        return NULL;
    }
    return mod;
}
