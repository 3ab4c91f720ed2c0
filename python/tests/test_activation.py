# SPDX-License-Identifier: Apache-2.0
# Actuator activations from Python: m.na, d.act / d.act_dot views, the (2nv + na) transition
# Jacobians, step_jvp_act / step_vjp_act against central differences and each other.
import numpy as np

import gradyn
from conftest import model_path, sample_path


def _model():
    return gradyn.Model.from_xml_path(model_path("act_arm.xml"))


def _state(d, rng):
    d.qpos[:] = rng.uniform(-0.5, 0.5, 3)
    d.qvel[:] = rng.uniform(-1, 1, 3)
    d.act[:] = [0.1, -0.05, 0.2, 0.3, 0.4, 0.5, 0.2]
    d.ctrl[:] = rng.uniform(0.1, 0.6, 9)


def test_act_views_and_step():
    m = _model()
    d = gradyn.Data(m)
    assert m.na == 7 and d.act.shape == (7,) and d.act_dot.shape == (7,)
    assert m.actuator_dynprm.shape == (9, 10) and m.key_act.shape == (1, 7)
    d.ctrl[:] = 0.5
    gradyn.step(m, d, nstep=10)
    assert np.all(d.act != 0)                # every activation moved
    assert abs(d.act[2]) <= 0.5              # the intvelocity act stays in its actrange
    # arm26's muscles: their simulated length ranges were computed at load
    arm = gradyn.Model.from_xml_path(sample_path("tendon_arm/arm26.xml"))
    assert arm.na == 6
    assert np.all(arm.actuator_lengthrange[:, 0] < arm.actuator_lengthrange[:, 1])


def test_act_derivatives():
    m = _model()
    d = gradyn.Data(m)
    rng = np.random.default_rng(3)
    _state(d, rng)
    x0 = (d.qpos.copy(), d.qvel.copy(), d.act.copy(), d.ctrl.copy())
    A, B = gradyn.transition_jacobians(m, d)
    assert A.shape == (13, 13) and B.shape == (13, 9)
    dq, dv, da, du = (rng.uniform(-1, 1, n) for n in (3, 3, 7, 9))
    y = gradyn.step_jvp_act(m, d, dq, dv, da, du)
    ynum = np.concatenate(y)
    assert np.allclose(A @ np.concatenate([dq, dv, da]) + B @ du, ynum, rtol=1e-12, atol=1e-12)

    def step(s):
        d.qpos[:], d.qvel[:], d.act[:], d.ctrl[:] = (x0[0] + s * dq, x0[1] + s * dv,
                                                     x0[2] + s * da, x0[3] + s * du)
        d.qacc_warmstart[:] = 0
        gradyn.step(m, d)
        return np.concatenate([d.qpos, d.qvel, d.act])

    eps = 1e-6
    fd = (step(eps) - step(-eps)) / (2 * eps)
    assert np.max(np.abs(fd - ynum)) <= 1e-6 * max(1, np.max(np.abs(fd)))
    # the dot identity with the adjoint
    d.qpos[:], d.qvel[:], d.act[:], d.ctrl[:] = x0
    w = rng.uniform(-1, 1, 13)
    gq, gv, ga, gu = gradyn.step_vjp_act(m, d, w[:3], w[3:6], w[6:])
    lhs = ynum @ w
    rhs = dq @ gq + dv @ gv + da @ ga + du @ gu
    assert abs(lhs - rhs) <= 1e-13 * max(1, abs(lhs))


def test_act_sensor_derivatives():
    # actuatorfrc of stateful actuators reads act: sensor_jvp(dact=...) and sensor_vjp(act=True)
    m = _model()
    d = gradyn.Data(m)
    rng = np.random.default_rng(5)
    _state(d, rng)
    gradyn.forward(m, d)
    dq, dv, du, da = (rng.uniform(-1, 1, n) for n in (3, 3, 9, 7))
    js = gradyn.sensor_jvp(m, d, dq, dv, du, dact=da)
    g = rng.uniform(-1, 1, m.nsensordata)
    gq, gv, gu, ga = gradyn.sensor_vjp(m, d, g, act=True)
    assert abs(g @ js - (gq @ dq + gv @ dv + gu @ du + ga @ da)) <= 1e-13 * max(1, abs(g @ js))
    assert np.any(ga != 0)
