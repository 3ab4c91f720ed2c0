# SPDX-License-Identifier: Apache-2.0
# PyTorch autograd Functions over gradyn's batched rollout: forward = the C rollout, backward =
# one adjoint pass per entry (gradyn.batch.rollout_vjp), double precision, CPU tensors.
"""PyTorch bindings: differentiable rollouts and steps.

    import torch, gradyn, gradyn.torch as gt
    m = gradyn.Model.from_xml_path("pendulum.xml")
    qpos, qvel = gt.rollout(m, qpos0, qvel0, ctrl)     # qpos [T+1, nq], qvel [T+1, nv]
    loss = (qpos[-1] - target).square().sum()
    loss.backward()                                    # qpos0.grad, qvel0.grad, ctrl.grad
    qpos, qvel, act, sens = gt.rollout(m, qpos0, qvel0, ctrl, act0=act0,
                                       return_act=True, return_sensordata=True)

Inputs are float64 CPU tensors; a leading batch dimension is allowed (qpos0 [B, nq], qvel0
[B, nv], ctrl [B, T, nu]). ``params`` (optional) are the bodies' inertia parameters
[nbody, 10] (canonical packing: mass, COM (3), Ixx, Iyy, Izz, Ixy, Ixz, Iyz; row 0, the world,
is ignored): the forward writes them into the model (``Model.set_body_inertia``) before it
rolls out, so the model keeps them afterwards. With a list of B models (domain
randomization), params may be [B, nbody, 10], one set per model. ``geom_friction`` (optional,
[ngeom, 3] or [B, ngeom, 3]: slide, spin, roll per geom) is written the same way
(``Model.set_geom_friction``) and gets the gradient of the contacts it enters (MuJoCo's mixing:
the larger of the two geoms' values; docs/derivatives.md for ties and floors).
``act0`` (optional, [na] or [B, na]) starts the actuator activations (None: zero) and gets
dJ/dact0. ``return_act=True`` adds act [.., T+1, na] to the outputs (differentiable);
``return_sensordata=True`` adds sensordata [.., T, nsensordata] (row t: the sensors of step t,
at the state it starts from), differentiable when every sensor has a derivative
(gradyn.batch.rollout_vjp's csensordata rules; a backward pass raises otherwise).
"""

import numpy as np
import torch

from . import batch as _batch
from ._gradyn import Model


def _check(t, name):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name}: expected a torch.Tensor, got {type(t).__name__}")
    if t.dtype != torch.float64:
        raise TypeError(f"{name}: expected torch.float64 (gradyn is double precision), got {t.dtype}")
    if t.device.type != "cpu":
        raise TypeError(f"{name}: expected a CPU tensor, got device {t.device}")
    return t


def _numpy(t):
    return None if t is None else np.ascontiguousarray(t.detach().numpy())


def _set_friction(models, friction):
    """Write the geom friction coefficients into the models."""
    f = friction.detach().numpy()
    for i, m in enumerate(models):
        fi = f if f.ndim == 2 else f[i]
        if fi.shape != (m.ngeom, 3):
            raise ValueError(f"geom_friction: expected shape ({m.ngeom}, 3) per model, "
                             f"got {fi.shape}")
        for g in range(m.ngeom):
            m.set_geom_friction(g, np.ascontiguousarray(fi[g]))


def _set_params(models, params):
    """Write the inertia parameters into the models (bodies 1 .. nbody-1)."""
    p = params.detach().numpy()
    for i, m in enumerate(models):
        pi = p if p.ndim == 2 else p[i]
        if pi.shape != (m.nbody, 10):
            raise ValueError(f"params: expected shape ({m.nbody}, 10) per model, got {pi.shape}")
        for b in range(1, m.nbody):
            m.set_body_inertia(b, np.ascontiguousarray(pi[b]))


class _Rollout(torch.autograd.Function):
    """(qpos0, qvel0, ctrl, params, friction, act0) -> (qpos [.., T+1, nq], qvel [.., T+1, nv],
    act [.., T+1, na], sensordata [.., T, nsensordata])."""

    @staticmethod
    def forward(ctx, model, nthread, nstep, qpos0, qvel0, ctrl, params, friction, act0,
                want_act, want_sens):
        # unused outputs get no gradient (None), so act and sensordata cost nothing backward
        ctx.set_materialize_grads(False)
        models = (model,) if isinstance(model, Model) else tuple(model)
        for name, x, setter in (("params", params, _set_params),
                                ("geom_friction", friction, _set_friction)):
            if x is not None:
                if x.ndim == 3 and x.shape[0] != len(models):
                    raise ValueError(f"{name}: {x.shape[0]} sets for {len(models)} models")
                setter(models, x)
        arg = model if isinstance(model, Model) else models
        out = _batch.rollout(arg, _numpy(qpos0), _numpy(qvel0), _numpy(ctrl), act0=_numpy(act0),
                             nstep=nstep, nthread=nthread, act=want_act, sensordata=want_sens)
        ctx.model, ctx.nthread, ctx.nstep = arg, nthread, nstep
        ctx.save_for_backward(qpos0, qvel0, ctrl, params, friction, act0)
        # the outputs not asked for are empty placeholders (they get no gradient)
        res = [torch.from_numpy(x) for x in out]
        if not want_act:
            res.insert(2, torch.empty(0, dtype=torch.float64))
        if not want_sens:
            res.append(torch.empty(0, dtype=torch.float64))
        return tuple(res)

    @staticmethod
    def backward(ctx, gqpos, gqvel, gact, gsens):
        qpos0, qvel0, ctrl, params, friction, act0 = ctx.saved_tensors
        # an all-zero sensor cotangent is none (a state where a sensor has no derivative is then
        # not refused for outputs the loss never read); an empty placeholder's gradient none
        if gsens is not None and (gsens.numel() == 0 or not bool((gsens != 0).any())):
            gsens = None
        if gact is not None and gact.numel() == 0:
            gact = None
        # the model may hold another forward's parameters by now: differentiate at this one's
        models = (ctx.model,) if isinstance(ctx.model, Model) else tuple(ctx.model)
        if params is not None:
            _set_params(models, params)
        if friction is not None:
            _set_friction(models, friction)
        want_p = params is not None and ctx.needs_input_grad[6]
        want_f = friction is not None and ctx.needs_input_grad[7]
        g = _batch.rollout_vjp(ctx.model, _numpy(qpos0), _numpy(qvel0), _numpy(ctrl),
                               _numpy(gqpos), _numpy(gqvel), act0=_numpy(act0),
                               cact=_numpy(gact), csensordata=_numpy(gsens), nstep=ctx.nstep,
                               nthread=ctx.nthread, params=want_p, contact=want_f)
        dq = torch.from_numpy(g["qpos0"]) if ctx.needs_input_grad[3] else None
        dv = torch.from_numpy(g["qvel0"]) if ctx.needs_input_grad[4] else None
        du = torch.from_numpy(g["ctrl"]) if ctrl is not None and ctx.needs_input_grad[5] else None
        dp = None
        if want_p:
            gp = torch.from_numpy(g["param"])
            if params.ndim == 2 and gp.ndim == 3:
                gp = gp.sum(0)  # one set shared by every entry
            gp[..., 0, :] = 0  # the world's row is not a parameter
            dp = gp
        df = None
        if want_f:
            df = torch.from_numpy(g["geom_friction"])
            if friction.ndim == 2 and df.ndim == 3:
                df = df.sum(0)
        da = None
        if act0 is not None and ctx.needs_input_grad[8]:
            da = torch.from_numpy(g["act0"])
        return None, None, None, dq, dv, du, dp, df, da, None, None


def rollout(model, qpos0, qvel0, ctrl=None, params=None, *, geom_friction=None, act0=None,
            nstep=None, nthread=0, return_act=False, return_sensordata=False):
    """A differentiable rollout: (qpos [.., T+1, nq], qvel [.., T+1, nv]).

    Row 0 is the initial state, row t+1 the state after gradyn.step with ctrl[.., t]; every
    tensor input (qpos0, qvel0, ctrl, params, act0) gets its exact gradient from one adjoint
    pass per batch entry (geom_friction's too). ctrl None needs a model without actuators and
    nstep. return_act / return_sensordata add act [.., T+1, na] / sensordata
    [.., T, nsensordata] to the outputs, in that order (see the module's docstring).
    """
    _check(qpos0, "qpos0")
    _check(qvel0, "qvel0")
    if ctrl is not None:
        _check(ctrl, "ctrl")
    if params is not None:
        _check(params, "params")
    if geom_friction is not None:
        _check(geom_friction, "geom_friction")
    if act0 is not None:
        _check(act0, "act0")
    q, v, a, s = _Rollout.apply(model, int(nthread), nstep, qpos0, qvel0, ctrl, params,
                                geom_friction, act0, bool(return_act), bool(return_sensordata))
    out = (q, v)
    if return_act:
        out += (a,)
    if return_sensordata:
        out += (s,)
    return out


def step(model, qpos, qvel, ctrl=None, params=None, *, nthread=0):
    """One differentiable gradyn.step: (qpos', qvel') from (qpos, qvel, ctrl [.., nu])."""
    _check(qpos, "qpos")
    c = None if ctrl is None else _check(ctrl, "ctrl").unsqueeze(-2)
    q, v = rollout(model, qpos, qvel, c, params, nstep=1, nthread=nthread)
    return q[..., 1, :], v[..., 1, :]
