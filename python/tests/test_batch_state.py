# SPDX-License-Identifier: Apache-2.0
# gradyn.batch / gradyn.torch with the full state and the sensors: act0, act and sensordata
# equal a gradyn.step loop bit for bit at every thread count and on a pool, rollout_vjp's act0,
# act- and sensor-cotangent gradients vs central differences, refusals, torch gradcheck w.r.t.
# act0 and through act and sensordata, hostile inputs raise.
import os

import numpy as np
import pytest

import gradyn
from gradyn import batch
from conftest import model_path


def act_arm():
    """Muscles, filters, integrators and actuatorfrc / jointvel sensors (tests/models)."""
    return gradyn.Model.from_xml_path(model_path("act_arm.xml"))


def inputs(m, nbatch, T, seed=0):
    rng = np.random.default_rng(seed)
    q0 = np.tile(np.asarray(m.qpos0), (nbatch, 1)) + 0.1 * rng.standard_normal((nbatch, m.nq))
    v0 = 0.3 * rng.standard_normal((nbatch, m.nv))
    a0 = rng.uniform(0.1, 0.4, (nbatch, m.na))
    u = rng.uniform(0.05, 0.6, (nbatch, T, m.nu))
    return q0, v0, a0, u


def step_loop(m, q0, v0, a0, u):
    """The reference: a gradyn.step loop, (qpos, qvel, act) per state, sensordata per step."""
    d = gradyn.Data(m)
    d.qpos[:] = q0
    d.qvel[:] = v0
    if a0 is not None:
        d.act[:] = a0
    qs, vs, acts, sens = [np.array(d.qpos)], [np.array(d.qvel)], [np.array(d.act)], []
    for t in range(u.shape[0]):
        d.ctrl[:] = u[t]
        gradyn.step(m, d)
        qs.append(np.array(d.qpos))
        vs.append(np.array(d.qvel))
        acts.append(np.array(d.act))
        sens.append(np.array(d.sensordata))
    return np.array(qs), np.array(vs), np.array(acts), np.array(sens)


def test_rollout_full_state_equals_step_loop():
    m = act_arm()
    q0, v0, a0, u = inputs(m, 4, 60)
    ref = [step_loop(m, q0[b], v0[b], a0[b], u[b]) for b in range(4)]
    pool = gradyn.BatchPool(m, nthread=2)
    runs = [batch.rollout(m, q0, v0, u, act0=a0, act=True, sensordata=True, nthread=n)
            for n in (1, 2, 3)]
    runs += [pool.rollout(m, q0, v0, u, act0=a0, act=True, sensordata=True) for _ in range(2)]
    for q, v, a, s in runs:
        assert a.shape == (4, 61, m.na) and s.shape == (4, 60, m.nsensordata)
        for b in range(4):
            for got, want in zip((q[b], v[b], a[b], s[b]), ref[b]):
                assert np.array_equal(got, want)
    # act0 None: the reset's zeros; unbatched inputs drop the batch axis; ncon comes last
    q, v, a, s, nc = batch.rollout(m, q0[0], v0[0], u[0], act=True, sensordata=True, ncon=True)
    rq, rv, ra, rs = step_loop(m, q0[0], v0[0], None, u[0])
    assert np.array_equal(a, ra) and np.array_equal(s, rs) and np.array_equal(q, rq)
    assert not a[0].any() and nc.shape == (61,)
    # the old outputs are unchanged without the new flags
    q2, v2 = batch.rollout(m, q0, v0, u, act0=a0)
    assert np.array_equal(q2, runs[0][0]) and np.array_equal(v2, runs[0][1])


def test_keyframe_act0():
    m = act_arm()
    u = np.tile(np.asarray(m.key_ctrl)[0], (20, 1))
    q, v, a = batch.rollout(m, np.asarray(m.key_qpos)[0], np.zeros(m.nv), u,
                            act0=np.asarray(m.key_act)[0], act=True)
    assert np.array_equal(a[0], np.asarray(m.key_act)[0])
    rq, rv, ra, rs = step_loop(m, np.asarray(m.key_qpos)[0], np.zeros(m.nv),
                               np.asarray(m.key_act)[0], u)
    assert np.array_equal(a, ra) and np.array_equal(q, rq)


def objective(c, q, v, a, s):
    cq, cv, ca, cs = c
    return float((cq * q).sum() + (cv * v).sum() + (ca * a).sum() + (cs * s).sum())


def cotangents(m, T, seed):
    """Random cotangents of qpos, qvel, act and sensordata (every sensor: actuatorfrc of the
    stateful actuators too, through their act channel)."""
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((T + 1, m.nq)) / T, rng.standard_normal((T + 1, m.nv)) / T,
            rng.standard_normal((T + 1, m.na)) / T, rng.standard_normal((T, m.nsensordata)) / T)


def test_rollout_vjp_act0_and_sensors_vs_fd():
    m = act_arm()
    T = 40
    q0, v0, a0, u = inputs(m, 1, T, seed=3)
    q0, v0, a0, u = q0[0], v0[0], a0[0], u[0]
    c = cotangents(m, T, 4)
    g = batch.rollout_vjp(m, q0, v0, u, c[0], c[1], act0=a0, cact=c[2], csensordata=c[3])
    assert g["act0"].shape == (m.na,)

    def J(a, v, uu):
        q, vv, aa, s = batch.rollout(m, q0, v, uu, act0=a, act=True, sensordata=True)
        return objective(c, q, vv, aa, s)

    assert g["J"] == pytest.approx(J(a0, v0, u), rel=1e-12)
    rng = np.random.default_rng(5)
    eps = 1e-6
    for _ in range(3):
        da, dv, du = rng.standard_normal(m.na), rng.standard_normal(m.nv), rng.standard_normal(u.shape)
        fd = (J(a0 + eps * da, v0 + eps * dv, u + eps * du)
              - J(a0 - eps * da, v0 - eps * dv, u - eps * du)) / (2 * eps)
        an = g["act0"] @ da + g["qvel0"] @ dv + (g["ctrl"] * du).sum()
        assert abs(an - fd) <= 1e-6 * max(abs(an), abs(fd), 1e-6)
    # without act0 and csensordata: gdn_adjoint_batch's results
    g0 = batch.rollout_vjp(m, q0, v0, u, c[0], c[1])
    g1 = batch.rollout_vjp(m, q0, v0, u, c[0], c[1], act0=np.zeros(m.na))
    assert np.array_equal(g0["qvel0"], g1["qvel0"]) and np.array_equal(g0["act0"], g1["act0"])


def test_sensor_cotangent_refusals():
    # a tendon wrapping inside without a root at qpos 0 (entry 0); entry 1 elsewhere
    T = 1
    mc = gradyn.Model.from_xml_path(model_path("sensors_inside_wrap.xml"))
    qc, vc, uc = np.array([[0.0], [0.05]]), np.zeros((2, 1)), np.zeros((2, T, 1))
    cs = np.ones((2, T, mc.nsensordata))
    with pytest.raises(gradyn.Error, match=r"'tl' \(tendonpos\)"):
        batch.rollout_vjp(mc, qc, vc, uc, csensordata=cs)
    g = batch.rollout_vjp(mc, qc, vc, uc, csensordata=cs, return_status=True)
    assert g["status"][0][0] == "unsupported" and np.isnan(g["J"][0])
    assert g["status"][1][0] == "ok" and np.isfinite(g["J"][1])


def test_hostile_inputs():
    m = act_arm()
    q0, v0, a0, u = inputs(m, 2, 5)
    with pytest.raises(ValueError, match="act0"):
        batch.rollout(m, q0, v0, u, act0=np.zeros((2, m.na + 1)))
    with pytest.raises(ValueError, match="act0"):
        batch.rollout(m, q0, v0, u, act0=np.zeros((3, m.na)))
    bad = a0.copy()
    bad[1, 2] = np.nan
    with pytest.raises(gradyn.Error, match=r"act0\[1\]\[0\]\[2\]"):
        batch.rollout(m, q0, v0, u, act0=bad)
    with pytest.raises(gradyn.Error, match="not finite"):
        batch.rollout_vjp(m, q0, v0, u, act0=bad)
    with pytest.raises(ValueError, match="csensordata"):
        batch.rollout_vjp(m, q0, v0, u, csensordata=np.zeros((2, 5, m.nsensordata + 1)))
    with pytest.raises(ValueError, match="cact"):
        batch.rollout_vjp(m, q0, v0, u, cact=np.zeros((2, 5, m.na)))
    with pytest.raises(gradyn.Error, match=r"cact\[0\]\[1\]\[2\]"):
        ca = np.zeros((2, 6, m.na))
        ca[0, 1, 2] = np.inf
        batch.rollout_vjp(m, q0, v0, u, cact=ca)
    with pytest.raises(TypeError):
        batch.rollout(m, q0, v0, u, act0="x")


torch = pytest.importorskip("torch")


def test_torch_act0_gradcheck_and_sensordata():
    import gradyn.torch as gt
    m = act_arm()
    T = 15
    q0, v0, a0, u = inputs(m, 2, T, seed=7)
    f = lambda x: torch.tensor(x, dtype=torch.float64, requires_grad=True)  # noqa: E731
    qt, vt, at, ut = f(q0), f(v0), f(a0), f(u)
    # forward = the batch rollout bit for bit
    q, v, a, s = gt.rollout(m, qt, vt, ut, act0=at, return_act=True, return_sensordata=True)
    qb, vb, ab, sb = batch.rollout(m, q0, v0, u, act0=a0, act=True, sensordata=True)
    for x, y in ((q, qb), (v, vb), (a, ab), (s, sb)):
        assert np.array_equal(x.detach().numpy(), y)
    # gradcheck w.r.t. act0 through qpos and qvel, then through act and every sensor
    assert torch.autograd.gradcheck(lambda x: gt.rollout(m, qt.detach(), vt.detach(),
                                                         ut.detach(), act0=x), (at,),
                                    eps=1e-6, atol=1e-6, rtol=1e-5)
    assert torch.autograd.gradcheck(
        lambda x, uu: gt.rollout(m, qt.detach(), vt.detach(), uu, act0=x, return_act=True,
                                 return_sensordata=True)[2:], (at, ut),
        eps=1e-6, atol=1e-6, rtol=1e-5)
    # a sensor without a derivative at its states (sensors_inside_wrap.xml at qpos 0): refused
    # in backward when the loss reads it
    # (not under the sanitizer run: torch carries a backward's Python exception as a C++ throw,
    # and ASan preloaded into an uninstrumented interpreter aborts in its __cxa_throw
    # interceptor, a torch + LD_PRELOAD limitation)
    if os.environ.get("GDNPY_SANITIZE") == "1":
        return
    mc = gradyn.Model.from_xml_path(model_path("sensors_inside_wrap.xml"))
    qc, vc, uc = np.zeros((1, 1)), np.zeros((1, 1)), np.zeros((1, 5, 1))
    q, v, s = gt.rollout(mc, f(qc), f(vc), f(uc), return_sensordata=True)
    q[..., -1, :].sum().backward()  # sensordata unread: no refusal
    q, v, s = gt.rollout(mc, f(qc), f(vc), f(uc), return_sensordata=True)
    with pytest.raises(gradyn.Error, match="no derivative"):
        s.sum().backward()
