// SPDX-License-Identifier: Apache-2.0
// The derivative calls of include/gradyn/derivative.h: step_jvp, step_vjp (with the inertia,
// vertex and contact-parameter cotangents on request) and transition_jacobians, GIL released.
#include "gdnpy.h" // first: Python.h precedes the standard headers
#include <string.h>

#include <gradyn/sensor.h>

// release every input of a call
static void release_inputs(gdnpyInput* in, int n)
{
    for (int i = 0; i < n; i++) {
        gdnpy_input_release(&in[i]);
    }
}

// step_jvp(m, d, dqpos=None, dqvel=None, dctrl=None, dparam=None, dvert=None)
//   -> (dqpos_next (nv,), dqvel_next (nv,))
static PyObject* deriv_step_jvp(PyObject* self, PyObject* args, PyObject* kw)
{
    (void)self;
    static char* kwlist[] = {"m", "d", "dqpos", "dqvel", "dctrl", "dparam", "dvert", NULL};
    PyObject *mo, *dobj;
    PyObject* obj[5] = {Py_None, Py_None, Py_None, Py_None, Py_None};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OOOOO:step_jvp", kwlist, &mo, &dobj, &obj[0],
                                     &obj[1], &obj[2], &obj[3], &obj[4])) {
        return NULL;
    }
    gdnpyModel* m;
    gdnpyData* d;
    if (gdnpy_acquire(mo, dobj, &m, &d) < 0) {
        return NULL;
    }
    const gdnModel* mm = m->m;
    Py_ssize_t sizes[5] = {mm->nv, mm->nv, mm->nu, (Py_ssize_t)mm->nbody * GDN_N_INERTIA_PARAMS,
                           (Py_ssize_t)mm->nvert * 3};
    static const char* names[5] = {"dqpos", "dqvel", "dctrl", "dparam", "dvert"};
    gdnpyInput in[5];
    int nin = 0;
    for (; nin < 5; nin++) {
        if (gdnpy_input(obj[nin], sizes[nin], 1, names[nin], &in[nin]) < 0) {
            release_inputs(in, nin);
            gdnpy_release(m, d);
            return NULL;
        }
    }
    Py_ssize_t shape[1] = {mm->nv};
    double *oq, *ov;
    PyObject* aq = gdnpy_new_array(1, shape, &oq);
    PyObject* av = aq ? gdnpy_new_array(1, shape, &ov) : NULL;
    if (!av) {
        Py_XDECREF(aq);
        release_inputs(in, 5);
        gdnpy_release(m, d);
        return NULL;
    }
    gdnStatus st;
    Py_BEGIN_ALLOW_THREADS
    st = gdn_step_jvp(mm, d->d, in[0].ptr, in[1].ptr, in[2].ptr, in[3].ptr, in[4].ptr, oq, ov);
    Py_END_ALLOW_THREADS
    release_inputs(in, 5);
    gdnpy_release(m, d);
    if (st != GDN_OK) {
        Py_DECREF(aq);
        Py_DECREF(av);
        return gdnpy_raise_status(st, "step_jvp", NULL);
    }
    return Py_BuildValue("(NN)", aq, av);
}

// the status of a sensor derivative as an exception; a refusal names the sensor and the cause
// (gdn_sensor_refusal)
static PyObject* sensor_status(gdnStatus st, const gdnModel* m, const gdnData* d, const char* what)
{
    char detail[320];
    const int refused =
        st == GDN_ERR_UNSUPPORTED ? gdn_sensor_refusal(m, d, detail, (int)sizeof detail) : -1;
    return gdnpy_raise_status(st, what, refused >= 0 ? detail : NULL);
}

// sensor_jvp(m, d, dqpos=None, dqvel=None, dctrl=None, dact=None) -> dsensordata
// (nsensordata,), at the state of the last forward in d (dact: gdn_sensor_jvp_act)
static PyObject* deriv_sensor_jvp(PyObject* self, PyObject* args, PyObject* kw)
{
    (void)self;
    static char* kwlist[] = {"m", "d", "dqpos", "dqvel", "dctrl", "dact", NULL};
    PyObject *mo, *dobj;
    PyObject* obj[4] = {Py_None, Py_None, Py_None, Py_None};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OOOO:sensor_jvp", kwlist, &mo, &dobj,
                                     &obj[0], &obj[1], &obj[2], &obj[3])) {
        return NULL;
    }
    gdnpyModel* m;
    gdnpyData* d;
    if (gdnpy_acquire(mo, dobj, &m, &d) < 0) {
        return NULL;
    }
    const gdnModel* mm = m->m;
    Py_ssize_t sizes[4] = {mm->nv, mm->nv, mm->nu, mm->na};
    static const char* names[4] = {"dqpos", "dqvel", "dctrl", "dact"};
    gdnpyInput in[4];
    for (int k = 0; k < 4; k++) {
        if (gdnpy_input(obj[k], sizes[k], 1, names[k], &in[k]) < 0) {
            release_inputs(in, k);
            gdnpy_release(m, d);
            return NULL;
        }
    }
    Py_ssize_t shape[1] = {mm->nsensordata};
    double* out;
    PyObject* a = gdnpy_new_array(1, shape, &out);
    if (!a) {
        release_inputs(in, 4);
        gdnpy_release(m, d);
        return NULL;
    }
    gdnStatus st;
    Py_BEGIN_ALLOW_THREADS
    st = gdn_sensor_jvp_act(mm, d->d, in[0].ptr, in[1].ptr, in[3].ptr, in[2].ptr, out);
    Py_END_ALLOW_THREADS
    release_inputs(in, 4);
    gdnpy_release(m, d);
    if (st != GDN_OK) {
        Py_DECREF(a);
        return sensor_status(st, mm, d->d, "sensor_jvp");
    }
    return a;
}

// sensor_vjp(m, d, gsensordata, act=False) -> (gqpos (nv,), gqvel (nv,), gctrl (nu,)), plus
// gact (na,) with act=True (gdn_sensor_vjp_act)
static PyObject* deriv_sensor_vjp(PyObject* self, PyObject* args, PyObject* kw)
{
    (void)self;
    static char* kwlist[] = {"m", "d", "gsensordata", "act", NULL};
    PyObject *mo, *dobj, *gobj;
    int want_act = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO|p:sensor_vjp", kwlist, &mo, &dobj, &gobj,
                                     &want_act)) {
        return NULL;
    }
    gdnpyModel* m;
    gdnpyData* d;
    if (gdnpy_acquire(mo, dobj, &m, &d) < 0) {
        return NULL;
    }
    const gdnModel* mm = m->m;
    gdnpyInput in;
    if (gdnpy_input(gobj, mm->nsensordata, 0, "gsensordata", &in) < 0) {
        gdnpy_release(m, d);
        return NULL;
    }
    Py_ssize_t sv[1] = {mm->nv}, su[1] = {mm->nu}, sa[1] = {mm->na};
    double *gq, *gv, *gu, *ga = NULL;
    PyObject* aq = gdnpy_new_array(1, sv, &gq);
    PyObject* av = aq ? gdnpy_new_array(1, sv, &gv) : NULL;
    PyObject* au = av ? gdnpy_new_array(1, su, &gu) : NULL;
    PyObject* aa = au && want_act ? gdnpy_new_array(1, sa, &ga) : NULL;
    if (!au || (want_act && !aa)) {
        Py_XDECREF(aq);
        Py_XDECREF(av);
        Py_XDECREF(au);
        release_inputs(&in, 1);
        gdnpy_release(m, d);
        return NULL;
    }
    gdnStatus st;
    Py_BEGIN_ALLOW_THREADS
    st = gdn_sensor_vjp_act(mm, d->d, in.ptr, gq, gv, ga, gu);
    Py_END_ALLOW_THREADS
    release_inputs(&in, 1);
    gdnpy_release(m, d);
    if (st != GDN_OK) {
        Py_DECREF(aq);
        Py_DECREF(av);
        Py_DECREF(au);
        Py_XDECREF(aa);
        return sensor_status(st, mm, d->d, "sensor_vjp");
    }
    return aa ? Py_BuildValue("(NNNN)", aq, av, au, aa) : Py_BuildValue("(NNN)", aq, av, au);
}

// the contact-parameter cotangent arrays of step_vjp(contact_params=True): a dict of new
// (rows x cols) arrays, pointers into them in cp
static PyObject* contact_param_arrays(const gdnModel* m, int with_size,
                                      gdnContactParamGradients* cp)
{
    memset(cp, 0, sizeof *cp);
    struct {
        const char* name;
        Py_ssize_t rows, cols;
        double** slot;
    } spec[] = {{"geom_friction", m->ngeom, 3, &cp->geom_friction},
                {"geom_solref", m->ngeom, 2, &cp->geom_solref},
                {"geom_solimp", m->ngeom, 5, &cp->geom_solimp},
                {"geom_size", m->ngeom, 3, &cp->geom_size},
                {"pair_friction", m->npair, 5, &cp->pair_friction},
                {"pair_solref", m->npair, 2, &cp->pair_solref},
                {"pair_solimp", m->npair, 5, &cp->pair_solimp}};
    PyObject* dict = PyDict_New();
    for (size_t i = 0; dict && i < sizeof spec / sizeof spec[0]; i++) {
        if (!with_size && spec[i].slot == &cp->geom_size) {
            continue;
        }
        Py_ssize_t shape[2] = {spec[i].rows, spec[i].cols};
        PyObject* arr = gdnpy_new_array(2, shape, spec[i].slot);
        if (!arr || PyDict_SetItemString(dict, spec[i].name, arr) < 0) {
            Py_XDECREF(arr);
            Py_CLEAR(dict);
            break;
        }
        Py_DECREF(arr);
    }
    return dict;
}

// step_vjp(m, d, gqpos_next=None, gqvel_next=None, params=False, contact_params=False,
//          geom_size=False) -> (gqpos, gqvel, gctrl[, gparam (nbody, 10), gvert (nvert, 3)]
//          [, {contact parameter cotangents}])
static PyObject* deriv_step_vjp(PyObject* self, PyObject* args, PyObject* kw)
{
    (void)self;
    static char* kwlist[] = {"m", "d", "gqpos_next", "gqvel_next", "params", "contact_params",
                             "geom_size", NULL};
    PyObject *mo, *dobj;
    PyObject* obj[2] = {Py_None, Py_None};
    int want_params = 0, want_cp = 0, want_size = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OOppp:step_vjp", kwlist, &mo, &dobj, &obj[0],
                                     &obj[1], &want_params, &want_cp, &want_size)) {
        return NULL;
    }
    gdnpyModel* m;
    gdnpyData* d;
    if (gdnpy_acquire(mo, dobj, &m, &d) < 0) {
        return NULL;
    }
    const gdnModel* mm = m->m;
    gdnpyInput in[2];
    if (gdnpy_input(obj[0], mm->nv, 1, "gqpos_next", &in[0]) < 0) {
        gdnpy_release(m, d);
        return NULL;
    }
    if (gdnpy_input(obj[1], mm->nv, 1, "gqvel_next", &in[1]) < 0) {
        release_inputs(in, 1);
        gdnpy_release(m, d);
        return NULL;
    }
    // the outputs: new zero-filled arrays (gparam and gvert accumulate into zeros)
    PyObject* out[5] = {NULL, NULL, NULL, NULL, NULL};
    double* ptr[5] = {NULL, NULL, NULL, NULL, NULL};
    Py_ssize_t shapes[5][2] = {{mm->nv, 0}, {mm->nv, 0}, {mm->nu, 0},
                               {mm->nbody, GDN_N_INERTIA_PARAMS}, {mm->nvert, 3}};
    int nout = want_params ? 5 : 3;
    int ok = 1;
    for (int i = 0; i < nout && ok; i++) {
        out[i] = gdnpy_new_array(i < 3 ? 1 : 2, shapes[i], &ptr[i]);
        ok = out[i] != NULL;
    }
    gdnContactParamGradients cp;
    PyObject* cpdict = NULL;
    if (ok && (want_cp || want_size)) {
        cpdict = contact_param_arrays(mm, want_size, &cp);
        ok = cpdict != NULL;
    }
    if (!ok) {
        for (int i = 0; i < 5; i++) {
            Py_XDECREF(out[i]);
        }
        release_inputs(in, 2);
        gdnpy_release(m, d);
        return NULL;
    }
    gdnStatus st;
    Py_BEGIN_ALLOW_THREADS
    st = gdn_step_vjp_contact_params(mm, d->d, in[0].ptr, in[1].ptr, ptr[0], ptr[1], ptr[2],
                                     ptr[3], ptr[4], cpdict ? &cp : NULL);
    Py_END_ALLOW_THREADS
    release_inputs(in, 2);
    gdnpy_release(m, d);
    if (st != GDN_OK) {
        for (int i = 0; i < 5; i++) {
            Py_XDECREF(out[i]);
        }
        Py_XDECREF(cpdict);
        return gdnpy_raise_status(st, "step_vjp", NULL);
    }
    PyObject* tuple = PyTuple_New(nout + (cpdict ? 1 : 0));
    if (!tuple) {
        for (int i = 0; i < 5; i++) {
            Py_XDECREF(out[i]);
        }
        Py_XDECREF(cpdict);
        return NULL;
    }
    for (int i = 0; i < nout; i++) {
        PyTuple_SET_ITEM(tuple, i, out[i]);
    }
    if (cpdict) {
        PyTuple_SET_ITEM(tuple, nout, cpdict);
    }
    return tuple;
}

// transition_jacobians(m, d) -> (A (2nv + na, 2nv + na), B (2nv + na, nu)), row-major,
// MuJoCo's mjd_transitionFD layout
static PyObject* deriv_transition_jacobians(PyObject* self, PyObject* args)
{
    (void)self;
    PyObject *mo, *dobj;
    if (!PyArg_ParseTuple(args, "OO:transition_jacobians", &mo, &dobj)) {
        return NULL;
    }
    gdnpyModel* m;
    gdnpyData* d;
    if (gdnpy_acquire(mo, dobj, &m, &d) < 0) {
        return NULL;
    }
    const gdnModel* mm = m->m;
    const Py_ssize_t nx = 2 * (Py_ssize_t)mm->nv + mm->na;
    Py_ssize_t sa[2] = {nx, nx};
    Py_ssize_t sb[2] = {nx, mm->nu};
    double *pa, *pb;
    PyObject* a = gdnpy_new_array(2, sa, &pa);
    PyObject* b = a ? gdnpy_new_array(2, sb, &pb) : NULL;
    if (!b) {
        Py_XDECREF(a);
        gdnpy_release(m, d);
        return NULL;
    }
    gdnStatus st;
    Py_BEGIN_ALLOW_THREADS
    st = gdn_transition_jacobians(mm, d->d, pa, pb);
    Py_END_ALLOW_THREADS
    gdnpy_release(m, d);
    if (st != GDN_OK) {
        Py_DECREF(a);
        Py_DECREF(b);
        return gdnpy_raise_status(st, "transition_jacobians", NULL);
    }
    return Py_BuildValue("(NN)", a, b);
}

// step_jvp_act(m, d, dqpos, dqvel, dact, dctrl) -> (dqpos_next (nv,), dqvel_next (nv,),
// dact_next (na,)) and step_vjp_act(m, d, gqpos_next, gqvel_next, gact_next) -> (gqpos (nv,),
// gqvel (nv,), gact (na,), gctrl (nu,)): gdn_step_jvp_act / gdn_step_vjp_act
static PyObject* act_call(PyObject* args, PyObject* kw, int adjoint)
{
    static char* jvp_kw[] = {"m", "d", "dqpos", "dqvel", "dact", "dctrl", NULL};
    static char* vjp_kw[] = {"m", "d", "gqpos_next", "gqvel_next", "gact_next", NULL};
    PyObject *mo, *dobj;
    PyObject* obj[4] = {Py_None, Py_None, Py_None, Py_None};
    const int ok_args =
        adjoint ? PyArg_ParseTupleAndKeywords(args, kw, "OO|OOO:step_vjp_act", vjp_kw, &mo,
                                              &dobj, &obj[0], &obj[1], &obj[2])
                : PyArg_ParseTupleAndKeywords(args, kw, "OO|OOOO:step_jvp_act", jvp_kw, &mo,
                                              &dobj, &obj[0], &obj[1], &obj[2], &obj[3]);
    if (!ok_args) {
        return NULL;
    }
    gdnpyModel* m;
    gdnpyData* d;
    if (gdnpy_acquire(mo, dobj, &m, &d) < 0) {
        return NULL;
    }
    const gdnModel* mm = m->m;
    const int nin = adjoint ? 3 : 4, nout = adjoint ? 4 : 3;
    const Py_ssize_t insz[4] = {mm->nv, mm->nv, mm->na, mm->nu};
    const Py_ssize_t outsz[4] = {mm->nv, mm->nv, mm->na, mm->nu};
    static const char* jvp_names[4] = {"dqpos", "dqvel", "dact", "dctrl"};
    static const char* vjp_names[3] = {"gqpos_next", "gqvel_next", "gact_next"};
    gdnpyInput in[4];
    int got = 0;
    for (; got < nin; got++) {
        if (gdnpy_input(obj[got], insz[got], 1, adjoint ? vjp_names[got] : jvp_names[got],
                        &in[got]) < 0) {
            release_inputs(in, got);
            gdnpy_release(m, d);
            return NULL;
        }
    }
    PyObject* out[4] = {NULL, NULL, NULL, NULL};
    double* ptr[4] = {NULL, NULL, NULL, NULL};
    int ok = 1;
    for (int i = 0; i < nout && ok; i++) {
        Py_ssize_t shape[1] = {outsz[i]};
        out[i] = gdnpy_new_array(1, shape, &ptr[i]);
        ok = out[i] != NULL;
    }
    gdnStatus st = GDN_ERR_MEMORY;
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        st = adjoint ? gdn_step_vjp_act(mm, d->d, in[0].ptr, in[1].ptr, in[2].ptr, ptr[0],
                                        ptr[1], ptr[2], ptr[3], NULL, NULL)
                     : gdn_step_jvp_act(mm, d->d, in[0].ptr, in[1].ptr, in[2].ptr, in[3].ptr,
                                        NULL, NULL, ptr[0], ptr[1], ptr[2]);
        Py_END_ALLOW_THREADS
    }
    release_inputs(in, nin);
    gdnpy_release(m, d);
    if (!ok || st != GDN_OK) {
        for (int i = 0; i < 4; i++) {
            Py_XDECREF(out[i]);
        }
        return ok ? gdnpy_raise_status(st, adjoint ? "step_vjp_act" : "step_jvp_act", NULL)
                  : NULL;
    }
    return adjoint ? Py_BuildValue("(NNNN)", out[0], out[1], out[2], out[3])
                   : Py_BuildValue("(NNN)", out[0], out[1], out[2]);
}

static PyObject* deriv_step_jvp_act(PyObject* self, PyObject* args, PyObject* kw)
{
    (void)self;
    return act_call(args, kw, 0);
}

static PyObject* deriv_step_vjp_act(PyObject* self, PyObject* args, PyObject* kw)
{
    (void)self;
    return act_call(args, kw, 1);
}

PyMethodDef gdnpy_derivative_methods[] = {
    {"step_jvp", (PyCFunction)(void (*)(void))deriv_step_jvp, METH_VARARGS | METH_KEYWORDS,
     "step_jvp(m, d, dqpos=None, dqvel=None, dctrl=None, dparam=None, dvert=None) -> "
     "(dqpos_next, dqvel_next): the step's tangent map at d's state (positions in the tangent "
     "space, nv)"},
    {"step_vjp", (PyCFunction)(void (*)(void))deriv_step_vjp, METH_VARARGS | METH_KEYWORDS,
     "step_vjp(m, d, gqpos_next=None, gqvel_next=None, params=False, contact_params=False, "
     "geom_size=False) -> (gqpos, gqvel, gctrl[, gparam, gvert][, dict]): the step's adjoint"},
    {"sensor_jvp", (PyCFunction)(void (*)(void))deriv_sensor_jvp, METH_VARARGS | METH_KEYWORDS,
     "sensor_jvp(m, d, dqpos=None, dqvel=None, dctrl=None, dact=None) -> dsensordata: the "
     "sensors' tangent at the state of the last forward (position, velocity and "
     "acceleration sensors; a refused one is named in the error)"},
    {"sensor_vjp", (PyCFunction)(void (*)(void))deriv_sensor_vjp, METH_VARARGS | METH_KEYWORDS,
     "sensor_vjp(m, d, gsensordata, act=False) -> (gqpos, gqvel, gctrl[, gact]): the sensors' "
     "adjoint"},
    {"transition_jacobians", deriv_transition_jacobians, METH_VARARGS,
     "transition_jacobians(m, d) -> (A (2nv+na, 2nv+na), B (2nv+na, nu)) in the tangent "
     "space, rows and columns [dq, dv, act]"},
    {"step_jvp_act", (PyCFunction)(void (*)(void))deriv_step_jvp_act, METH_VARARGS | METH_KEYWORDS,
     "step_jvp_act(m, d, dqpos=None, dqvel=None, dact=None, dctrl=None) -> (dqpos_next, "
     "dqvel_next, dact_next): the step's tangent with the actuator activations"},
    {"step_vjp_act", (PyCFunction)(void (*)(void))deriv_step_vjp_act, METH_VARARGS | METH_KEYWORDS,
     "step_vjp_act(m, d, gqpos_next=None, gqvel_next=None, gact_next=None) -> (gqpos, gqvel, "
     "gact, gctrl): the step's adjoint with the actuator activations"},
    {NULL, NULL, 0, NULL},
};
