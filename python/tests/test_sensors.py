# SPDX-License-Identifier: Apache-2.0
# Sensors from Python: d.sensordata as a zero-copy view, m.sensor / d.sensor named access, the
# values after forward and step (jointpos / jointvel equal qpos / qvel, the clock the step's
# start time), sizes and the sensor_* model arrays.
import numpy as np
import pytest

import gradyn
from conftest import model_path


@pytest.fixture
def chain():
    m = gradyn.Model.from_xml_path(model_path("sensors_chain.xml"))
    return m, gradyn.Data(m)


def test_sizes_and_arrays(chain):
    m, d = chain
    assert m.nsensor == 55 and m.nsensordata == 127
    assert d.sensordata.shape == (m.nsensordata,)
    assert m.sensor_dim.sum() == m.nsensordata
    assert list(m.sensor_adr) == list(np.concatenate([[0], np.cumsum(m.sensor_dim)[:-1]]))
    assert m.names("sensor")[0] == "acc_tip"
    s = m.sensor("bq")
    assert s.type[0] == 15  # GDN_SENS_BALLQUAT (MuJoCo's mjSENS_BALLQUAT)
    assert s.dim[0] == 4 and s.name == "bq" and m.sensor(s.id).name == "bq"
    with pytest.raises(KeyError):
        m.sensor("nope")
    with pytest.raises(IndexError):
        d.sensor(m.nsensor)


def test_view_and_values(chain):
    m, d = chain
    view = d.sensordata
    d.qpos[m.joint("hinge1").id] = 0.25
    d.qvel[:] = 0.5
    d.time = 1.25
    gradyn.forward(m, d)
    # the view aliases the C array: the forward's values appear without a new lookup
    assert view[m.sensor("jp_hinge").adr[0]] == 0.25
    assert d.sensor("jp_hinge").data[0] == 0.25
    assert d.sensor("clock").data[0] == 1.25
    assert np.all(d.sensor("jv_hinge").data == 0.5)
    q = d.sensor("bq").data
    assert np.allclose(np.linalg.norm(q), 1)
    # cutoff: |value| <= cutoff
    assert abs(d.sensor("force_base").data).max() <= 2
    # a step keeps the sensors of the state it started from
    gradyn.step(m, d)
    assert d.sensor("clock").data[0] == 1.25
    assert d.time > 1.25


def test_sensor_data_writable_and_zero_sized():
    m = gradyn.Model.from_xml_path(model_path("sensors_chain.xml"))
    d = gradyn.Data(m)
    d.sensor("clock").data[0] = 3.0
    assert d.sensordata[m.sensor("clock").adr[0]] == 3.0
    m0 = gradyn.Model.from_xml_string("<mujoco><worldbody/></mujoco>")
    d0 = gradyn.Data(m0)
    assert m0.nsensor == 0 and d0.sensordata.shape == (0,)


def test_sensor_jvp_vjp():
    """The sensors' tangent against central differences of forward, the adjoint's dot identity
    (also for actuator sensors on ball and free joints) and a refusal at a state without a
    derivative (gradyn.Error naming the sensor and the cause)."""
    m = gradyn.Model.from_xml_path(model_path("sensors_deriv.xml"))
    d = gradyn.Data(m)
    rng = np.random.default_rng(3)
    dv = rng.uniform(-1, 1, m.nv)
    du = rng.uniform(-1, 1, m.nu)
    d.qvel[:] = rng.uniform(-1, 1, m.nv)
    d.ctrl[:] = rng.uniform(-0.5, 0.5, m.nu)
    v0, u0 = d.qvel.copy(), d.ctrl.copy()
    eps = 1e-6
    out = []
    for s in (eps, -eps):
        d.qvel[:] = v0 + s * dv
        d.ctrl[:] = u0 + s * du
        gradyn.forward(m, d)
        out.append(d.sensordata.copy())
    d.qvel[:], d.ctrl[:] = v0, u0
    gradyn.forward(m, d)
    js = gradyn.sensor_jvp(m, d, dqvel=dv, dctrl=du)
    fd = (out[0] - out[1]) / (2 * eps)
    assert np.max(np.abs(js - fd)) <= 1e-6 * max(1.0, np.max(np.abs(fd)))
    g = rng.uniform(-1, 1, m.nsensordata)
    gq, gv, gu = gradyn.sensor_vjp(m, d, g)
    assert abs(g @ js - (gv @ dv + gu @ du)) <= 1e-12 * max(1.0, abs(g @ js))
    # the acceleration sensors of sensors_chain.xml have derivatives: the identity there
    mc = gradyn.Model.from_xml_path(model_path("sensors_chain.xml"))
    dc = gradyn.Data(mc)
    dc.qvel[:] = rng.uniform(-1, 1, mc.nv)
    gradyn.forward(mc, dc)
    dvc = rng.uniform(-1, 1, mc.nv)
    gc = rng.uniform(-1, 1, mc.nsensordata)
    jc = gradyn.sensor_jvp(mc, dc, dqvel=dvc)
    _, gvc, _ = gradyn.sensor_vjp(mc, dc, gc)
    assert abs(gc @ jc - gvc @ dvc) <= 1e-12 * max(1.0, np.sum(np.abs(gc * jc)))
    # actuator sensors of motors on a ball and a free joint: the identity at a random state
    mb = gradyn.Model.from_xml_path(model_path("sensors_ball_actuator.xml"))
    db = gradyn.Data(mb)
    db.qvel[:] = rng.uniform(-1, 1, mb.nv)
    gradyn.forward(mb, db)
    dqb, dvb = rng.uniform(-1, 1, mb.nv), rng.uniform(-1, 1, mb.nv)
    gb = rng.uniform(-1, 1, mb.nsensordata)
    jb = gradyn.sensor_jvp(mb, db, dqpos=dqb, dqvel=dvb)
    gqb, gvb, _ = gradyn.sensor_vjp(mb, db, gb)
    assert abs(gb @ jb - (gqb @ dqb + gvb @ dvb)) <= 1e-12 * max(1.0, np.sum(np.abs(gb * jb)))
    # a sensor without a derivative at its state (a tendon's inside wrap without a root at
    # qpos 0): refused by name and cause
    mw = gradyn.Model.from_xml_path(model_path("sensors_inside_wrap.xml"))
    dw = gradyn.Data(mw)
    gradyn.forward(mw, dw)
    with pytest.raises(gradyn.Error, match=r"'tl' \(tendonpos\).*without a root"):
        gradyn.sensor_jvp(mw, dw)
