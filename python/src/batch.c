// SPDX-License-Identifier: Apache-2.0
// The batch entry points for Python: _rollout and _rollout_vjp over gdn_rollout_batch_full and
// gdn_adjoint_batch_full, or a BatchPool's gdn_batch_pool_rollout_full /
// gdn_batch_pool_adjoint_full (include/gradyn/batch.h), flat float64 inputs whose shapes the Python wrappers
// (gradyn/batch.py) check; the GIL is released around the threaded C call.
#include "gdnpy.h" // (Python.h first, as CPython requires)

#include <stdint.h>
#include <string.h>

#include <gradyn/batch.h>

// the models of a call: a tuple of gradyn.Model (1 or nbatch of them), marked busy while the
// C call runs so no setter changes them under it
typedef struct {
    gdnpyModel** py;
    const gdnModel** c;
    Py_ssize_t n;
} gdnpyModels;

static void models_release(gdnpyModels* ms)
{
    for (Py_ssize_t i = 0; i < ms->n; i++) {
        ms->py[i]->busy--;
    }
    PyMem_Free(ms->py);
    PyMem_Free(ms->c);
    memset(ms, 0, sizeof *ms);
}

// -1 with TypeError / ValueError unless seq is a non-empty tuple of Models of 1 or nbatch.
// gradyn/batch.py hands a tuple it made from the caller's model argument without checking it:
// this is the one check of the models' count and types (the C call checks their sizes)
static int models_acquire(PyObject* seq, Py_ssize_t nbatch, gdnpyModels* ms)
{
    memset(ms, 0, sizeof *ms);
    if (!PyTuple_Check(seq)) {
        PyErr_SetString(PyExc_TypeError, "models: expected a tuple of gradyn.Model");
        return -1;
    }
    const Py_ssize_t n = PyTuple_GET_SIZE(seq);
    if (n != 1 && n != nbatch) {
        PyErr_Format(PyExc_ValueError, "models: %zd models for %zd batch entries (1 or %zd)", n,
                     nbatch, nbatch);
        return -1;
    }
    ms->py = PyMem_Calloc((size_t)n, sizeof *ms->py);
    ms->c = PyMem_Calloc((size_t)n, sizeof *ms->c);
    if (!ms->py || !ms->c) {
        PyMem_Free(ms->py);
        PyMem_Free(ms->c);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject* o = PyTuple_GET_ITEM(seq, i);
        if (!PyObject_TypeCheck(o, &gdnpyModelType)) {
            PyErr_Format(PyExc_TypeError, "models[%zd]: expected a gradyn.Model, got %s", i,
                         Py_TYPE(o)->tp_name);
            ms->n = i;
            models_release(ms);
            return -1;
        }
        ms->py[i] = (gdnpyModel*)o;
        ms->c[i] = ms->py[i]->m;
        ms->py[i]->busy++;
    }
    ms->n = n;
    return 0;
}

// the per-entry outcomes as a list of (status name, status code, step, message)
static PyObject* status_list(const gdnBatchStatus* st, Py_ssize_t nbatch)
{
    PyObject* list = PyList_New(nbatch);
    if (!list) {
        return NULL;
    }
    for (Py_ssize_t b = 0; b < nbatch; b++) {
        PyObject* item = Py_BuildValue("(siis)", gdn_status_string(st[b].status),
                                       (int)st[b].status, st[b].step, st[b].message);
        if (!item) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, b, item);
    }
    return list;
}

// the batch's sizes checked and its models acquired; the sizes of models[0] (the C call checks
// that the others have them too); -1 with an exception
static int batch_begin(const char* what, PyObject* mobj, Py_ssize_t nbatch, Py_ssize_t T,
                       int nthread, gdnpyModels* ms, Py_ssize_t* nq, Py_ssize_t* nv,
                       Py_ssize_t* nu, Py_ssize_t* nbody)
{
    if (nbatch <= 0 || T <= 0 || nthread < 0 || nbatch > INT32_MAX || T > INT32_MAX) {
        PyErr_Format(PyExc_ValueError, "%s: nbatch > 0, nstep > 0, nthread >= 0", what);
        return -1;
    }
    if (models_acquire(mobj, nbatch, ms) < 0) {
        return -1;
    }
    const gdnModel* m = ms->c[0];
    *nq = m->nq;
    *nv = m->nv;
    *nu = m->nu;
    *nbody = m->nbody;
    // every array of the call has at most nbatch (T + 1) width doubles: their byte counts fit
    Py_ssize_t width = 1;
    const Py_ssize_t widths[5] = {m->nq, m->nv, m->nu, (Py_ssize_t)GDN_N_INERTIA_PARAMS * m->nbody,
                                  (Py_ssize_t)5 * m->ngeom};
    for (int k = 0; k < 5; k++) {
        width = widths[k] > width ? widths[k] : width;
    }
    if (T + 1 > PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(double) / width / nbatch) {
        PyErr_Format(PyExc_ValueError, "%s: %zd entries of %zd steps do not fit in memory", what,
                     nbatch, T);
        models_release(ms);
        return -1;
    }
    return 0;
}

// _rollout(models, nbatch, T, qpos0, qvel0, ctrl, nthread, want_ncon[, pool[, act0[, want_act
//          [, want_sensordata]]]])
//   -> (qpos [B, T+1, nq], qvel [B, T+1, nv], ncon [B, T+1] float or None, status list,
//       act [B, T+1, na] or None, sensordata [B, T, nsensordata] or None);
//   on a BatchPool (not None) nthread is not used: the pool's workers run the call; act0
//   [B, na] or None (zero)
static PyObject* py_rollout(PyObject* self, PyObject* args)
{
    (void)self;
    PyObject *mobj, *q0, *v0, *u, *pobj = Py_None, *a0 = Py_None;
    Py_ssize_t nbatch, T;
    int nthread, want_ncon, want_act = 0, want_sens = 0;
    if (!PyArg_ParseTuple(args, "OnnOOOip|OOpp:_rollout", &mobj, &nbatch, &T, &q0, &v0, &u,
                          &nthread, &want_ncon, &pobj, &a0, &want_act, &want_sens)) {
        return NULL;
    }
    gdnpyModels ms;
    Py_ssize_t nq, nv, nu, nbody;
    if (batch_begin("_rollout", mobj, nbatch, T, nthread, &ms, &nq, &nv, &nu, &nbody) < 0) {
        return NULL;
    }
    (void)nbody;
    gdnpyBatchPool* pool;
    if (gdnpy_pool_acquire(pobj, &pool) < 0) {
        models_release(&ms);
        return NULL;
    }
    const Py_ssize_t na = ms.c[0]->na, ns = ms.c[0]->nsensordata;
    gdnpyInput iq, iv, iu, ia;
    memset(&ia, 0, sizeof ia);
    PyObject *qpos = NULL, *qvel = NULL, *ncon = NULL, *status = NULL, *result = NULL;
    PyObject *act = NULL, *sens = NULL;
    int* ncon_c = NULL;
    gdnBatchStatus* st = NULL;
    if (gdnpy_input(q0, nbatch * nq, 0, "qpos0", &iq) < 0) {
        gdnpy_pool_release(pool);
        models_release(&ms);
        return NULL;
    }
    if (gdnpy_input(v0, nbatch * nv, 0, "qvel0", &iv) < 0) {
        gdnpy_input_release(&iq);
        gdnpy_pool_release(pool);
        models_release(&ms);
        return NULL;
    }
    if (gdnpy_input(u, nbatch * T * nu, nu == 0, "ctrl", &iu) < 0) {
        gdnpy_input_release(&iq);
        gdnpy_input_release(&iv);
        gdnpy_pool_release(pool);
        models_release(&ms);
        return NULL;
    }
    if (gdnpy_input(a0, nbatch * na, 1, "act0", &ia) < 0) {
        goto done;
    }
    double *qd, *vd, *nd = NULL, *ad = NULL, *sd = NULL;
    const Py_ssize_t sq[3] = {nbatch, T + 1, nq}, sv[3] = {nbatch, T + 1, nv};
    const Py_ssize_t sn[2] = {nbatch, T + 1};
    qpos = gdnpy_new_array(3, sq, &qd);
    qvel = qpos ? gdnpy_new_array(3, sv, &vd) : NULL;
    if (qvel && want_ncon) {
        ncon = gdnpy_new_array(2, sn, &nd);
        ncon_c = ncon ? PyMem_Calloc((size_t)(nbatch * (T + 1)), sizeof(int)) : NULL;
    }
    if (qvel && want_act) {
        const Py_ssize_t sa[3] = {nbatch, T + 1, na};
        act = gdnpy_new_array(3, sa, &ad);
    }
    if (qvel && want_sens) {
        const Py_ssize_t ss[3] = {nbatch, T, ns};
        sens = gdnpy_new_array(3, ss, &sd);
    }
    st = PyMem_Calloc((size_t)nbatch, sizeof *st);
    if (!qvel || (want_ncon && !ncon_c) || (want_act && !act) || (want_sens && !sens) || !st) {
        if (!PyErr_Occurred()) {
            PyErr_NoMemory();
        }
        goto done;
    }
    char err[512] = "";
    gdnStatus rc;
    Py_BEGIN_ALLOW_THREADS
    if (pool) {
        rc = gdn_batch_pool_rollout_full(pool->pool, ms.c, (int)ms.n, (int)nbatch, (int)T,
                                         iq.ptr, iv.ptr, ia.ptr, iu.ptr, qd, vd, ad, sd, ncon_c,
                                         st, err, (int)sizeof err);
    } else {
        rc = gdn_rollout_batch_full(ms.c, (int)ms.n, (int)nbatch, (int)T, iq.ptr, iv.ptr,
                                    ia.ptr, iu.ptr, nthread, qd, vd, ad, sd, ncon_c, st, err,
                                    (int)sizeof err);
    }
    Py_END_ALLOW_THREADS
    if (rc != GDN_OK) {
        gdnpy_raise_status(rc, "rollout", err);
        goto done;
    }
    for (Py_ssize_t i = 0; want_ncon && i < nbatch * (T + 1); i++) {
        nd[i] = ncon_c[i];
    }
    status = status_list(st, nbatch);
    if (status) {
        result = Py_BuildValue("(OOOOOO)", qpos, qvel, ncon ? ncon : Py_None, status,
                               act ? act : Py_None, sens ? sens : Py_None);
    }
done:
    Py_XDECREF(qpos);
    Py_XDECREF(qvel);
    Py_XDECREF(ncon);
    Py_XDECREF(act);
    Py_XDECREF(sens);
    gdnpy_input_release(&ia);
    Py_XDECREF(status);
    PyMem_Free(ncon_c);
    PyMem_Free(st);
    gdnpy_input_release(&iq);
    gdnpy_input_release(&iv);
    gdnpy_input_release(&iu);
    gdnpy_pool_release(pool);
    models_release(&ms);
    return result;
}

// _rollout_vjp(models, nbatch, T, qpos0, qvel0, ctrl, cqpos, cqvel, nthread, want_param,
//              want_tangent[, want_contact[, pool[, act0[, csensordata[, cact]]]]])
//   -> (J [B], dqpos0 [B, nq], dqpos0_tangent [B, nv] or None, dqvel0 [B, nv],
//       dctrl [B, T, nu], dparam [B, nbody, 10] or None,
//       (dgeom_friction [B, ngeom, 3], dgeom_solref [B, ngeom, 2], dgeom_solimp [B, ngeom, 5])
//       or None, status list, dact0 [B, na]); on a BatchPool nthread is not used; act0
//   [B, na], csensordata [B, T, nsensordata] and cact [B, T+1, na] may be None (zero)
static PyObject* py_rollout_vjp(PyObject* self, PyObject* args)
{
    (void)self;
    PyObject *mobj, *q0, *v0, *u, *cq, *cv, *pobj = Py_None, *a0 = Py_None, *cs = Py_None;
    PyObject* ca = Py_None;
    Py_ssize_t nbatch, T;
    int nthread, want_param, want_tangent, want_contact = 0;
    if (!PyArg_ParseTuple(args, "OnnOOOOOipp|pOOOO:_rollout_vjp", &mobj, &nbatch, &T, &q0,
                          &v0, &u, &cq, &cv, &nthread, &want_param, &want_tangent,
                          &want_contact, &pobj, &a0, &cs, &ca)) {
        return NULL;
    }
    gdnpyModels ms;
    Py_ssize_t nq, nv, nu, nbody;
    if (batch_begin("_rollout_vjp", mobj, nbatch, T, nthread, &ms, &nq, &nv, &nu, &nbody) < 0) {
        return NULL;
    }
    gdnpyBatchPool* pool;
    if (gdnpy_pool_acquire(pobj, &pool) < 0) {
        models_release(&ms);
        return NULL;
    }
    const Py_ssize_t na = ms.c[0]->na, ns = ms.c[0]->nsensordata;
    enum { NIN = 8 };
    gdnpyInput in[NIN];
    memset(in, 0, sizeof in);
    PyObject* obj[NIN] = {q0, v0, u, cq, cv, a0, cs, ca};
    const char* names[NIN] = {"qpos0", "qvel0", "ctrl", "cotangent qpos", "cotangent qvel",
                              "act0", "cotangent sensordata", "cotangent act"};
    const Py_ssize_t count[NIN] = {nbatch * nq, nbatch * nv, nbatch * T * nu,
                                   nbatch * (T + 1) * nq, nbatch * (T + 1) * nv, nbatch * na,
                                   nbatch * T * ns, nbatch * (T + 1) * na};
    const int none_ok[NIN] = {0, 0, nu == 0, 1, 1, 1, 1, 1};
    PyObject *J = NULL, *gq = NULL, *gqt = NULL, *gv = NULL, *gu = NULL, *gp = NULL;
    PyObject* ga = NULL;
    PyObject *gf = NULL, *gsr = NULL, *gsi = NULL, *contact = NULL;
    PyObject *status = NULL, *result = NULL;
    gdnBatchStatus* st = NULL;
    int ok = 1;
    for (int k = 0; k < NIN && ok; k++) {
        ok = gdnpy_input(obj[k], count[k], none_ok[k], names[k], in + k) == 0;
    }
    if (!ok) {
        goto done;
    }
    gdnBatchGradients out;
    memset(&out, 0, sizeof out);
    const Py_ssize_t sB[1] = {nbatch}, sq[2] = {nbatch, nq}, sv[2] = {nbatch, nv};
    const Py_ssize_t su[3] = {nbatch, T, nu}, sp[3] = {nbatch, nbody, GDN_N_INERTIA_PARAMS};
    J = gdnpy_new_array(1, sB, &out.J);
    gq = J ? gdnpy_new_array(2, sq, &out.qpos0) : NULL;
    gv = gq ? gdnpy_new_array(2, sv, &out.qvel0) : NULL;
    gu = gv ? gdnpy_new_array(3, su, &out.ctrl) : NULL;
    const Py_ssize_t sa[2] = {nbatch, na};
    ga = gu ? gdnpy_new_array(2, sa, &out.act0) : NULL;
    if (gu && want_tangent) {
        gqt = gdnpy_new_array(2, sv, &out.qpos0_tangent);
    }
    if (gu && want_param) {
        gp = gdnpy_new_array(3, sp, &out.param);
    }
    if (gu && want_contact) {
        const Py_ssize_t ng = ms.c[0]->ngeom;
        const Py_ssize_t sf[3] = {nbatch, ng, 3}, sr[3] = {nbatch, ng, 2}, si[3] = {nbatch, ng, 5};
        gf = gdnpy_new_array(3, sf, &out.geom_friction);
        gsr = gf ? gdnpy_new_array(3, sr, &out.geom_solref) : NULL;
        gsi = gsr ? gdnpy_new_array(3, si, &out.geom_solimp) : NULL;
    }
    st = PyMem_Calloc((size_t)nbatch, sizeof *st);
    if (!gu || !ga || (want_tangent && !gqt) || (want_param && !gp) || (want_contact && !gsi) || !st) {
        if (!PyErr_Occurred()) {
            PyErr_NoMemory();
        }
        goto done;
    }
    char err[512] = "";
    gdnStatus rc;
    Py_BEGIN_ALLOW_THREADS
    if (pool) {
        rc = gdn_batch_pool_adjoint_full(pool->pool, ms.c, (int)ms.n, (int)nbatch, (int)T,
                                         in[0].ptr, in[1].ptr, in[5].ptr, in[2].ptr, in[3].ptr,
                                         in[4].ptr, in[7].ptr, in[6].ptr, &out, st, err,
                                         (int)sizeof err);
    } else {
        rc = gdn_adjoint_batch_full(ms.c, (int)ms.n, (int)nbatch, (int)T, in[0].ptr, in[1].ptr,
                                    in[5].ptr, in[2].ptr, in[3].ptr, in[4].ptr, in[7].ptr,
                                    in[6].ptr, nthread, &out, st, err, (int)sizeof err);
    }
    Py_END_ALLOW_THREADS
    if (rc != GDN_OK) {
        gdnpy_raise_status(rc, "rollout_vjp", err);
        goto done;
    }
    status = status_list(st, nbatch);
    contact = want_contact ? Py_BuildValue("(OOO)", gf, gsr, gsi) : Py_NewRef(Py_None);
    if (status && contact) {
        result = Py_BuildValue("(OOOOOOOOO)", J, gq, gqt ? gqt : Py_None, gv, gu,
                               gp ? gp : Py_None, contact, status, ga);
    }
done:
    Py_XDECREF(J);
    Py_XDECREF(gq);
    Py_XDECREF(gqt);
    Py_XDECREF(gv);
    Py_XDECREF(gu);
    Py_XDECREF(gp);
    Py_XDECREF(ga);
    Py_XDECREF(gf);
    Py_XDECREF(gsr);
    Py_XDECREF(gsi);
    Py_XDECREF(contact);
    Py_XDECREF(status);
    PyMem_Free(st);
    for (int k = 0; k < NIN; k++) {
        gdnpy_input_release(in + k);
    }
    gdnpy_pool_release(pool);
    models_release(&ms);
    return result;
}

PyMethodDef gdnpy_batch_methods[] = {
    {"_rollout", py_rollout, METH_VARARGS,
     "_rollout(models, nbatch, nstep, qpos0, qvel0, ctrl, nthread, want_ncon[, pool[, act0[, "
     "want_act[, want_sensordata]]]]): the C batch rollout on flat float64 arrays (use "
     "gradyn.rollout)"},
    {"_rollout_vjp", py_rollout_vjp, METH_VARARGS,
     "_rollout_vjp(models, nbatch, nstep, qpos0, qvel0, ctrl, cqpos, cqvel, nthread, "
     "want_param, want_tangent[, want_contact[, pool[, act0[, csensordata[, cact]]]]]): the "
     "C gradient batch (use gradyn.rollout_vjp)"},
    {NULL, NULL, 0, NULL},
};
