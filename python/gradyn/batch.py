# SPDX-License-Identifier: Apache-2.0
# Batched rollouts and their vector-Jacobian products on the C thread pool (docs/batch.md):
# shapes checked here, the models in C (one check), the stepping and the adjoint in C
# (gdn_rollout_batch, gdn_adjoint_batch, or a BatchPool's persistent threads and memory).
"""Batched rollouts and gradients.

``rollout(model, qpos0, qvel0, ctrl)`` steps ``nbatch`` independent copies of the simulator
(``gradyn.step``, bit for bit) on all cores and returns ``qpos[nbatch, T+1, nq]`` and
``qvel[nbatch, T+1, nv]`` (row 0 is the initial state); ``act0=`` starts the actuator
activations, ``act=True`` adds ``act[nbatch, T+1, na]`` and ``sensordata=True`` adds
``sensordata[nbatch, T, nsensordata]`` (row t: the sensors step t computed at x_t, as mj_step).
``rollout_vjp`` returns the gradients of
``J = sum_t <cqpos_t, qpos_t> + <cqvel_t, qvel_t> (+ <cact_t, act_t> + <csensordata_t,
sensordata_t>)`` with
respect to the initial state (act0 included), the controls and (optionally) the inertia
parameters, from one adjoint pass per entry.
Results never depend on ``nthread``. For many small calls (MPC), a ``BatchPool`` keeps its
threads parked and its per-thread memory between calls: ``pool.rollout(...)`` /
``pool.rollout_vjp(...)``, or ``pool=`` on ``rollout`` / ``rollout_vjp``, give the same
results bit for bit without starting threads or allocating tapes on every call.
"""

import numpy as np

from . import _gradyn
from ._gradyn import Error, Model


def _models(model):
    """The models as a tuple (one shared, or one per batch entry: domain randomization).

    Not checked here: the C call checks the count (1 or nbatch) and every model's type, the
    library their sizes."""
    if isinstance(model, Model):
        return (model,)
    try:
        return tuple(model)
    except TypeError:
        raise TypeError(f"model: expected a gradyn.Model or a list of them, got "
                        f"{type(model).__name__}") from None


def _array(x, name, trailing, batched):
    """x as a C-contiguous float64 array of shape (nbatch,) + trailing (batched) or trailing."""
    if x is None:
        raise TypeError(f"{name}: expected an array, got None")
    a = np.asarray(x)
    if a.dtype != np.float64:
        if not np.issubdtype(a.dtype, np.number) or np.iscomplexobj(a):
            raise TypeError(f"{name}: expected real numbers, got dtype {a.dtype}")
        a = a.astype(np.float64)
    want = len(trailing) + (1 if batched else 0)
    if a.ndim != want or tuple(a.shape[-len(trailing):] if trailing else ()) != tuple(trailing):
        lead = "(nbatch, " if batched else "("
        raise ValueError(f"{name}: expected shape {lead}{', '.join(map(str, trailing))}), "
                         f"got {a.shape}")
    return np.ascontiguousarray(a)


def _inputs(model, qpos0, qvel0, ctrl, nstep):
    """Batched, shape-checked inputs: (models, nbatch, T, qpos0, qvel0, ctrl, batched)."""
    models = _models(model)
    if not models:
        raise ValueError("model: an empty list of models")
    # the shapes below need the first model's sizes (the C call checks the others)
    m0 = models[0]
    if not isinstance(m0, Model):
        raise TypeError(f"model[0]: expected a gradyn.Model, got {type(m0).__name__}")
    nq, nv, nu = m0.nq, m0.nv, m0.nu
    batched = np.ndim(qpos0) == 2
    q0 = _array(qpos0, "qpos0", (nq,), batched)
    nbatch = q0.shape[0] if batched else 1
    v0 = _array(qvel0, "qvel0", (nv,), batched)
    if batched and v0.shape[0] != nbatch:
        raise ValueError(f"qvel0: {v0.shape[0]} entries, qpos0 has {nbatch}")
    if ctrl is None:
        if nu > 0:
            raise TypeError("ctrl: the model has actuators, pass ctrl[nbatch, T, nu]")
        if nstep is None or int(nstep) <= 0:
            raise ValueError("nstep: give nstep > 0 when ctrl is None")
        T = int(nstep)
        u = None
    else:
        ua = np.asarray(ctrl)
        if ua.ndim != (3 if batched else 2):
            raise ValueError(f"ctrl: expected shape ({'nbatch, ' if batched else ''}T, {nu}), "
                             f"got {ua.shape}")
        T = ua.shape[-2]
        u = _array(ua, "ctrl", (T, nu), batched)
        if batched and u.shape[0] != nbatch:
            raise ValueError(f"ctrl: {u.shape[0]} entries, qpos0 has {nbatch}")
        if nstep is not None and int(nstep) != T:
            raise ValueError(f"nstep {nstep} differs from ctrl's {T} steps")
        if T <= 0:
            raise ValueError("ctrl: at least one step")
    return models, nbatch, T, q0, v0, u, batched


def _act0(model, act0, nbatch, batched):
    """act0 as [nbatch, na] float64 (None stays None: zero activations)."""
    if act0 is None:
        return None
    m0 = model if isinstance(model, Model) else _models(model)[0]
    a = _array(act0, "act0", (m0.na,), batched)
    if batched and a.shape[0] != nbatch:
        raise ValueError(f"act0: {a.shape[0]} entries, qpos0 has {nbatch}")
    return a


def _raise_failed(status, what):
    bad = [(b, s) for b, s in enumerate(status) if s[1] != 0]
    if bad:
        b, (name, code, step, message) = bad[0]
        more = f" (and {len(bad) - 1} more entries)" if len(bad) > 1 else ""
        err = Error(f"{what}: entry {b}: {name}: {message}{more}")
        err.status = code
        err.entry = b
        err.step = step
        raise err


def _threads(nthread, pool):
    """The nthread argument of the C call: the pool's threads run a pool's call."""
    if pool is not None:
        if nthread is not None:
            raise ValueError("nthread: a pool's call runs on the pool's threads (give nthread "
                             "to BatchPool)")
        return 0
    nthread = 0 if nthread is None else int(nthread)
    if nthread < 0:
        raise ValueError("nthread: 0 (all cores) or a positive count")
    return nthread


def rollout(model, qpos0, qvel0, ctrl=None, *, act0=None, nstep=None, nthread=None, act=False,
            sensordata=False, ncon=False, return_status=False, pool=None):
    """Step nbatch rollouts on a thread pool.

    model: a Model, or a list of nbatch Models of equal sizes (domain randomization).
    qpos0 [nbatch, nq], qvel0 [nbatch, nv], ctrl [nbatch, T, nu] (or unbatched [nq], [nv],
    [T, nu]: the outputs then have no batch axis). ctrl None needs nu == 0 and nstep.
    act0 [nbatch, na]: the initial actuator activations (None: zero, as Data's reset; a
    keyframe's are m.key_act[k]).
    Returns (qpos [nbatch, T+1, nq], qvel [nbatch, T+1, nv]), plus act [nbatch, T+1, na] (row
    0 = act0) with act=True, plus sensordata [nbatch, T, nsensordata] (row t = the sensors of
    step t, at the state it starts from: mj_step's / mujoco.rollout's) with sensordata=True,
    plus ncon [nbatch, T+1] (int) with ncon=True, plus the per-entry status list
    [(status name, code, step, message)] with return_status=True. A failing entry (a diverging state) has NaN rows after its failing
    step; without return_status it raises gradyn.Error naming the entry.
    nthread: None or 0 = all cores. pool: a BatchPool whose threads and memory run the call
    (then nthread must be None); the results are the same bit for bit.
    """
    models, nbatch, T, q0, v0, u, batched = _inputs(model, qpos0, qvel0, ctrl, nstep)
    a0 = _act0(models[0], act0, nbatch, batched)
    nthread = _threads(nthread, pool)
    qpos, qvel, nc, status, ac, sd = _gradyn._rollout(models, nbatch, T, q0, v0, u, nthread,
                                                      bool(ncon), pool, a0, bool(act),
                                                      bool(sensordata))
    if not return_status:
        _raise_failed(status, "rollout")
    if not batched:
        qpos, qvel = qpos[0], qvel[0]
        nc = nc[0] if nc is not None else None
        ac = ac[0] if ac is not None else None
        sd = sd[0] if sd is not None else None
    out = (qpos, qvel)
    if act:
        out += (ac,)
    if sensordata:
        out += (sd,)
    if ncon:
        out += (nc.astype(np.int64),)
    if return_status:
        out += (status,)
    return out


def rollout_vjp(model, qpos0, qvel0, ctrl, cqpos=None, cqvel=None, *, act0=None, cact=None,
                csensordata=None, nstep=None, nthread=None, params=False, tangent=False,
                contact=False, return_status=False, pool=None):
    """Gradients of J = sum_t <cqpos_t, qpos_t> + <cqvel_t, qvel_t> over rollout's map.

    cqpos [nbatch, T+1, nq] and cqvel [nbatch, T+1, nv] (None: zero) are cotangents of
    rollout's outputs, in qpos coordinates; cact [nbatch, T+1, na] (None: zero) adds
    sum_t <cact_t, act_t>, csensordata [nbatch, T, nsensordata] (None: zero) adds
    sum_t <csensordata_t, sensordata_t> (sensors with a derivative only: an entry whose model
    has another sensor fails with GDN_ERR_UNSUPPORTED naming it). act0 as for rollout.
    Returns a dict with J [nbatch], qpos0 [nbatch, nq]
    (the gradient w.r.t. the raw qpos0 input, quaternion normalization included), qvel0
    [nbatch, nv], act0 [nbatch, na], ctrl [nbatch, T, nu], and with params=True param [nbatch, nbody, 10] (the
    inertia parameters, canonical packing), with tangent=True qpos0_tangent [nbatch, nv], with
    contact=True geom_friction [nbatch, ngeom, 3], geom_solref [.., 2], geom_solimp [.., 5]
    (the contact parameters of Model.set_geom_*, summed over the steps' contacts).
    Unbatched inputs give unbatched outputs. A failing entry raises gradyn.Error (its arrays
    are NaN and the call returns with return_status=True, a 'status' list in the dict).
    nthread and pool as for rollout.
    """
    models, nbatch, T, q0, v0, u, batched = _inputs(model, qpos0, qvel0, ctrl, nstep)
    m0 = models[0]
    cq = None if cqpos is None else _array(cqpos, "cqpos", (T + 1, m0.nq), batched)
    cv = None if cqvel is None else _array(cqvel, "cqvel", (T + 1, m0.nv), batched)
    cs = (None if csensordata is None
          else _array(csensordata, "csensordata", (T, m0.nsensordata), batched))
    ca = None if cact is None else _array(cact, "cact", (T + 1, m0.na), batched)
    for name, c in (("cqpos", cq), ("cqvel", cv), ("csensordata", cs), ("cact", ca)):
        if c is not None and batched and c.shape[0] != nbatch:
            raise ValueError(f"{name}: {c.shape[0]} entries, qpos0 has {nbatch}")
    a0 = _act0(m0, act0, nbatch, batched)
    nthread = _threads(nthread, pool)
    J, gq, gqt, gv, gu, gp, gc, status, ga = _gradyn._rollout_vjp(
        models, nbatch, T, q0, v0, u, cq, cv, nthread, bool(params), bool(tangent),
        bool(contact), pool, a0, cs, ca)
    if not return_status:
        _raise_failed(status, "rollout_vjp")
    out = {"J": J, "qpos0": gq, "qvel0": gv, "act0": ga, "ctrl": gu}
    if params:
        out["param"] = gp
    if tangent:
        out["qpos0_tangent"] = gqt
    if contact:
        out["geom_friction"], out["geom_solref"], out["geom_solimp"] = gc
    if not batched:
        out = {k: v[0] for k, v in out.items()}
    if return_status:
        out["status"] = status
    return out


class BatchPool(_gradyn._BatchPool):
    """BatchPool(model, nthread=0): threads and per-thread memory kept for repeated calls.

    nthread workers (0: one per core), the calling thread one of them, the others parked
    between calls; each keeps a gradyn Data for rollouts and a tape for gradients, allocated
    on first need and grown only when a call has more steps than any before (docs/batch.md).
    Calls take models of model's sizes (a list of them for domain randomization; the pool does
    not keep model itself) and give the results of gradyn.rollout / rollout_vjp bit for bit.
    The GIL is released while a call runs; a pool runs one call at a time: a call from another
    thread meanwhile raises RuntimeError (use one pool per thread).
    """

    __slots__ = ()

    def rollout(self, model, qpos0, qvel0, ctrl=None, **kwargs):
        """gradyn.rollout(model, qpos0, qvel0, ctrl, ..., pool=self)."""
        return rollout(model, qpos0, qvel0, ctrl, pool=self, **kwargs)

    def rollout_vjp(self, model, qpos0, qvel0, ctrl, cqpos=None, cqvel=None, **kwargs):
        """gradyn.rollout_vjp(model, qpos0, qvel0, ctrl, cqpos, cqvel, ..., pool=self)."""
        return rollout_vjp(model, qpos0, qvel0, ctrl, cqpos, cqvel, pool=self, **kwargs)
