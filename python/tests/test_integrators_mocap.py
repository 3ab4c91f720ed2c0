# SPDX-License-Identifier: Apache-2.0
# The RK4 and implicit integrators and mocap bodies from Python: m.opt.integrator switches
# gradyn.step and its derivatives (RK4 and implicit from XML, INT_EULER / INT_RK4 /
# INT_IMPLICIT constants), d.mocap_pos / d.mocap_quat are writable views that pose the mocap
# bodies, keyframes set them; m.opt.collision selects the colliding pairs (COL_* constants).
import numpy as np

import gradyn

RK4_XML = """<mujoco><option integrator="RK4"/><worldbody><body><joint type="hinge" axis="0 1 0"/>
<geom type="capsule" size="0.05" fromto="0 0 0 0 0 -0.5"/></body></worldbody></mujoco>"""

MOCAP_XML = """<mujoco><worldbody>
<body name="hand" mocap="true" pos="0 0 1"><geom size="0.05" contype="0" conaffinity="0"/></body>
<body name="ball" pos="0 0 0.5"><freejoint/><geom size="0.1"/></body>
</worldbody><keyframe><key mpos="0.5 0 1" mquat="0 0 0 2"/></keyframe></mujoco>"""


def test_rk4_option():
    m = gradyn.Model.from_xml_string(RK4_XML)
    assert m.opt.integrator == gradyn.INT_RK4
    d = gradyn.Data(m)
    d.qpos[0] = 0.5
    gradyn.step(m, d, nstep=10)
    rk4 = d.qpos.copy()
    m.opt.integrator = gradyn.INT_EULER
    gradyn.reset(m, d)
    d.qpos[0] = 0.5
    gradyn.step(m, d, nstep=10)
    assert not np.array_equal(rk4, d.qpos)
    # the derivative follows the integrator: RK4's A differs from Euler's
    m.opt.integrator = gradyn.INT_RK4
    gradyn.reset(m, d)
    d.qpos[0] = 0.5
    a_rk4, _ = gradyn.transition_jacobians(m, d)
    m.opt.integrator = gradyn.INT_EULER
    a_euler, _ = gradyn.transition_jacobians(m, d)
    assert a_rk4.shape == (2, 2) and not np.allclose(a_rk4, a_euler, rtol=0, atol=1e-9)


def test_mocap_views():
    m = gradyn.Model.from_xml_string(MOCAP_XML)
    assert m.nmocap == 1
    assert list(m.body_mocapid) == [-1, 0, -1]
    d = gradyn.Data(m)
    assert d.mocap_pos.shape == (1, 3) and d.mocap_quat.shape == (1, 4)
    np.testing.assert_array_equal(d.mocap_pos[0], [0, 0, 1])
    d.mocap_pos[0] = [0.2, 0.3, 0.4]
    gradyn.kinematics(m, d)
    np.testing.assert_array_equal(d.xpos[1], [0.2, 0.3, 0.4])
    gradyn.reset_keyframe(m, d, 0)
    np.testing.assert_array_equal(d.mocap_pos[0], [0.5, 0, 1])
    np.testing.assert_array_equal(d.mocap_quat[0], [0, 0, 0, 1])


def test_fluid_options():
    xml = """<mujoco><option density="1000" viscosity="0.001" wind="0.5 0 0"/><worldbody>
<body><freejoint/><geom type="box" size="0.2 0.1 0.05"/></body></worldbody></mujoco>"""
    m = gradyn.Model.from_xml_string(xml)
    assert m.opt.density == 1000 and m.opt.viscosity == 0.001
    np.testing.assert_array_equal(m.opt.wind, [0.5, 0, 0])
    d = gradyn.Data(m)
    gradyn.forward(m, d)
    # at rest in a current along +x the box is dragged along +x
    assert d.qfrc_passive[0] > 0
    m.opt.wind[0] = 0
    m.opt.density = 0
    gradyn.forward(m, d)
    assert d.qfrc_passive[0] == 0


IMPLICIT_XML = """<mujoco><option integrator="implicit" timestep="0.01"/><worldbody><body>
<joint name="j" type="hinge" axis="0 1 0" damping="0.5"/>
<geom type="capsule" size="0.05" fromto="0 0 0 0 0 -0.5"/></body></worldbody>
<actuator><velocity joint="j" kv="3"/></actuator></mujoco>"""


def test_implicit_option():
    # the implicit integrator (MuJoCo 2.2.2's mjINT_IMPLICIT) from XML, its transition Jacobian
    # against central differences of gradyn.step
    m = gradyn.Model.from_xml_string(IMPLICIT_XML)
    assert m.opt.integrator == gradyn.INT_IMPLICIT
    d = gradyn.Data(m)
    d.qpos[0], d.qvel[0], d.ctrl[0] = 0.5, -0.3, 0.2
    a, b = gradyn.transition_jacobians(m, d)
    eps = 1e-6
    fd = np.zeros((2, 3))
    for col in range(3):
        out = []
        for s in (eps, -eps):
            gradyn.reset(m, d)
            d.qpos[0], d.qvel[0], d.ctrl[0] = 0.5, -0.3, 0.2
            [d.qpos, d.qvel, d.ctrl][col][0] += s
            gradyn.step(m, d)
            out.append(np.array([d.qpos[0], d.qvel[0]]))
        fd[:, col] = (out[0] - out[1]) / (2 * eps)
    np.testing.assert_allclose(np.hstack([a, b]), fd, rtol=0, atol=1e-7)
    # not Euler's
    m.opt.integrator = gradyn.INT_EULER
    gradyn.reset(m, d)
    d.qpos[0], d.qvel[0], d.ctrl[0] = 0.5, -0.3, 0.2
    a_euler, _ = gradyn.transition_jacobians(m, d)
    assert not np.allclose(a, a_euler, rtol=0, atol=1e-6)


def test_collision_option():
    # a ball on the floor with an explicit pair between two other geoms: "predefined" keeps
    # only the pair's contact, "dynamic" only the floor's
    xml = """<mujoco><option collision="predefined"/><worldbody>
<geom name="floor" type="plane" size="1 1 0.1"/>
<body pos="0 0 0.09"><freejoint/><geom name="ball" size="0.1"/></body>
<body pos="1 0 0.09"><freejoint/><geom name="a" size="0.1" contype="0" conaffinity="0"/></body>
<body pos="1.15 0 0.09"><freejoint/><geom name="b" size="0.1" contype="0" conaffinity="0"/>
</body></worldbody><contact><pair geom1="a" geom2="b"/></contact></mujoco>"""
    m = gradyn.Model.from_xml_string(xml)
    d = gradyn.Data(m)
    assert m.opt.collision == gradyn.COL_PAIR
    gradyn.forward(m, d)
    assert d.ncon == 1
    m.opt.collision = gradyn.COL_DYNAMIC
    gradyn.forward(m, d)
    assert d.ncon == 1 and {d.contact[0].geom1, d.contact[0].geom2} == {0, 1}
    m.opt.collision = gradyn.COL_ALL
    gradyn.forward(m, d)
    assert d.ncon == 2
