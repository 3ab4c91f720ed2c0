# SPDX-License-Identifier: Apache-2.0
# Data and Model arrays are zero-copy numpy views of the C memory: aliasing, lifetime,
# read-only model arrays, shapes, named access, options.
import gc

import numpy as np
import pytest

import gradyn
from conftest import model_path


@pytest.fixture
def humanoid():
    m = gradyn.Model.from_xml_path(model_path("humanoid32.xml"))
    return m, gradyn.Data(m)


def test_shapes(humanoid):
    m, d = humanoid
    assert d.qpos.shape == (m.nq,) and d.qvel.shape == (m.nv,) and d.ctrl.shape == (m.nu,)
    assert d.xpos.shape == (m.nbody, 3) and d.xquat.shape == (m.nbody, 4)
    assert d.xmat.shape == (m.nbody, 9) and d.xfrc_applied.shape == (m.nbody, 6)
    assert d.qM.shape == (m.nv, m.nv) and d.qacc.shape == (m.nv,)
    assert d.act.shape == (0,) and m.na == 0
    assert d.qpos.dtype == np.float64 and m.body_parentid.dtype == np.int32
    assert m.body_mass.shape == (m.nbody,) and m.geom_size.shape == (m.ngeom, 3)
    assert m.key_qpos.shape == (m.nkey, m.nq)
    np.testing.assert_array_equal(d.qpos, m.qpos0)


def test_views_alias_c_memory(humanoid):
    """Writing d.qpos[0] changes the next step, as writing the C array does."""
    m, d = humanoid
    q = d.qpos
    q[0] = 0.25
    assert d.qpos[0] == 0.25  # a second view sees the write
    d2 = gradyn.Data(m)
    d2.qpos = np.array(q)  # a copy through the setter
    gradyn.step(m, d)
    gradyn.step(m, d2)
    assert q[0] == d.qpos[0]  # the old view sees the step's result
    np.testing.assert_array_equal(d.qpos, d2.qpos)
    d3 = gradyn.Data(m)
    gradyn.step(m, d3)
    assert d3.qpos[0] != d.qpos[0]
    # ctrl and applied forces too
    d.ctrl[:] = 0.1
    d.xfrc_applied[1, 2] = 100.0
    d4 = gradyn.Data(m)
    d4.qpos, d4.qvel, d4.time = d.qpos, d.qvel, d.time
    d4.ctrl = np.full(m.nu, 0.1)
    gradyn.step(m, d)
    gradyn.step(m, d4)
    assert not np.array_equal(d.qvel, d4.qvel)  # the force only reached d


def test_view_keeps_data_alive():
    m = gradyn.Model.from_xml_path(model_path("pendulum.xml"))
    d = gradyn.Data(m)
    gradyn.step(m, d, nstep=5)
    q = d.qpos
    x = d.xpos
    expect = q.copy()
    del d, m
    gc.collect()
    junk = [np.ones(1000) for _ in range(100)]  # reuse freed memory, if any were freed
    np.testing.assert_array_equal(q, expect)
    q[0] = 1.0
    assert x.shape[1] == 3
    del junk


def test_model_arrays_read_only(humanoid):
    m, _ = humanoid
    with pytest.raises(ValueError):
        m.body_mass[1] = 0.0
    with pytest.raises(ValueError):
        m.geom_type[0] = 99
    with pytest.raises(AttributeError):
        m.nq = 3
    # Data's int arrays are read-only too; doubles writable
    d = gradyn.Data(m)
    with pytest.raises(ValueError):
        d.efc_type[:] = 0
    with pytest.raises(AttributeError):
        d.efc_type = np.zeros(0)
    with pytest.raises(ValueError):
        d.warning[0] = 1


def test_contacts_and_solver_status():
    m = gradyn.Model.from_xml_path(model_path("scene_drop_box.xml"))
    d = gradyn.Data(m)
    gradyn.step(m, d, nstep=300)
    assert d.ncon > 0
    c = d.contact
    assert len(c) == d.ncon
    assert c.dist.shape == (d.ncon,) and c.pos.shape == (d.ncon, 3)
    assert c.frame.shape == (d.ncon, 9)
    assert np.all(c.geom1 >= 0) and np.all(c.geom2 < m.ngeom)
    with pytest.raises(ValueError):
        c.dist[0] = 1.0
    assert d.solver_iter >= 1 and d.solver_converged in (0, 1)
    assert d.nefc >= d.ncon and d.efc_force.shape == (d.nefc,)
    f = gradyn.contact_force(m, d, 0)
    assert f.shape == (6,) and f[0] >= 0
    with pytest.raises(IndexError):
        gradyn.contact_force(m, d, d.ncon)
    # the contact view outlives steps that change ncon (its length is the count at access)
    for _ in range(20):
        gradyn.step(m, d)
    assert len(c) >= 0 and np.isfinite(c.dist).all()


def test_named_access(humanoid):
    m, d = humanoid
    torso = m.body("torso")
    assert torso.id == 1 and torso.name == "torso"
    assert torso.mass[0] == m.body_mass[1]
    np.testing.assert_array_equal(torso.pos, m.body_pos[1])
    assert m.body(1).name == "torso"
    j = m.joint(m.names("joint")[1])
    assert j.id == 1 and j.qposadr[0] == m.jnt_qposadr[1]
    assert m.geom(0).id == 0 and m.geom(0).size.shape == (3,)
    assert m.actuator(0).gear.shape == (6,)
    gradyn.forward(m, d)
    np.testing.assert_array_equal(d.body("torso").xpos, d.xpos[1])
    d.joint(0).qpos[2] = 2.0  # the free joint's slice aliases qpos
    assert d.qpos[2] == 2.0 and d.joint(0).qvel.shape == (6,)
    assert d.actuator(0).ctrl.shape == (1,)
    with pytest.raises(KeyError):
        m.body("no such body")
    with pytest.raises(IndexError):
        m.body(m.nbody)
    with pytest.raises(TypeError):
        m.body(1.5)
    with pytest.raises(ValueError):
        m.names("tendon")


def test_options():
    m = gradyn.Model.from_xml_path(model_path("pendulum.xml"))
    assert m.opt.timestep > 0
    m.opt.timestep = 0.001
    assert m.opt.timestep == 0.001
    m.opt.gravity[2] = -1.0
    assert m.opt.gravity[2] == -1.0
    m.opt.iterations = 7
    assert m.opt.iterations == 7
    with pytest.raises(TypeError):
        m.opt.iterations = 1.5
    with pytest.raises(OverflowError):
        m.opt.iterations = 2 ** 40
    d = gradyn.Data(m)
    m.opt.timestep = -1.0  # out of the loader's range: the step refuses, never crashes
    with pytest.raises(gradyn.Error):
        gradyn.step(m, d)


def test_reset_and_keyframes():
    m = gradyn.Model.from_xml_path(model_path("humanoid32.xml"))
    d = gradyn.Data(m)
    assert m.nkey >= 1
    gradyn.reset_keyframe(m, d, 0)
    np.testing.assert_array_equal(d.qpos, m.key_qpos[0])
    np.testing.assert_array_equal(d.qpos, m.key(0).qpos)
    gradyn.step(m, d, nstep=3)
    gradyn.reset(m, d)
    np.testing.assert_array_equal(d.qpos, m.qpos0)
    assert d.time == 0.0 and not d.qvel.any()
    with pytest.raises(IndexError):
        gradyn.reset_keyframe(m, d, m.nkey)
    with pytest.raises(IndexError):
        gradyn.reset_keyframe(m, d, -1)
