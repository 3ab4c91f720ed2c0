# SPDX-License-Identifier: Apache-2.0
# Every binding equals the C result bit for bit: the same call sequence through the Python
# module and through the C reference helper (tests/ref_helper.c, numbers in hex floats).
import numpy as np
import pytest

import gradyn
from conftest import model_path, run_ref, sample_path

NSTEP = 150

MODELS = [
    "pendulum.xml", "double_pendulum.xml", "humanoid32.xml", "arm7.xml", "scene_drop_box.xml",
    "scene_slide_elliptic.xml", "cnstr_fourbar.xml", "cnstr_frictionloss.xml", "cnstr_weld.xml",
    "sol_stack.xml", "box_penalty.xml", "scene_meshes.xml", "dcon_pairs.xml",
]


def same(a, b):
    """Bitwise equality of two float sequences (NaN payloads included)."""
    a = np.ascontiguousarray(a, dtype=np.float64).ravel()
    b = np.ascontiguousarray(b, dtype=np.float64).ravel()
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def python_run(path, nstep):
    """The reference helper's sequence through the bindings."""
    m = gradyn.Model.from_xml_path(path)
    d = gradyn.Data(m)
    d.ctrl[:] = 0.01 * np.arange(1, m.nu + 1)
    out = {}
    gradyn.step(m, d, nstep=nstep)
    out["time"] = [d.time]
    out["qpos"], out["qvel"], out["qacc"] = d.qpos.copy(), d.qvel.copy(), d.qacc.copy()
    out["xpos"] = d.xpos.copy()
    out["ncon"] = [d.ncon]
    ones, onesu = np.ones(m.nv), np.ones(m.nu)

    def status(fn):
        try:
            return fn(), 0
        except gradyn.Error as e:
            return None, e.status

    r, out["jvp_status"] = status(lambda: gradyn.step_jvp(m, d, ones, ones, onesu))
    if r is not None:
        out["jvp_q"], out["jvp_v"] = r
    r, out["vjp_status"] = status(lambda: gradyn.step_vjp(m, d, ones, ones))
    if r is not None:
        out["vjp_q"], out["vjp_v"], out["vjp_u"] = r
    r, out["jac_status"] = status(lambda: gradyn.transition_jacobians(m, d))
    if r is not None:
        out["A"], out["B"] = r
    gradyn.forward(m, d)
    out["fwd_qacc"] = d.qacc.copy()
    gradyn.inverse(m, d)
    out["qfrc_inverse"] = d.qfrc_inverse.copy()
    return out


def compare(path, nstep=NSTEP):
    ref = run_ref(path, nstep)
    assert "error" not in ref, "the C run failed: %s" % ref["error"]
    got = python_run(path, nstep)
    for key in ("jvp", "vjp", "jac"):
        assert got[key + "_status"] == ref[key + "_status"][0], key
    for key, want in ref.items():
        if key.endswith("_status"):
            continue
        if key not in got:
            # outputs of a failed derivative call: the C helper printed whatever the
            # buffers held; Python raised instead
            continue
        assert same(got[key], want), "%s differs from the C result" % key


@pytest.mark.parametrize("name", MODELS)
def test_bindings_equal_c(name):
    compare(model_path(name))


def test_bindings_equal_c_mujoco_humanoid():
    compare(sample_path("humanoid/humanoid.xml"), 100)


def test_nstep_equals_single_steps():
    m = gradyn.Model.from_xml_path(model_path("scene_drop_box.xml"))
    d1, d2 = gradyn.Data(m), gradyn.Data(m)
    gradyn.step(m, d1, nstep=200)
    for _ in range(200):
        gradyn.step(m, d2)
    assert same(d1.qpos, d2.qpos) and same(d1.qvel, d2.qvel) and d1.time == d2.time


def test_kinematics_equals_step_stage():
    """gradyn.kinematics at a state gives the poses the next step computes there."""
    m = gradyn.Model.from_xml_path(model_path("humanoid32.xml"))
    d = gradyn.Data(m)
    gradyn.step(m, d, nstep=10)
    d2 = gradyn.Data(m)
    d2.qpos = d.qpos
    gradyn.step(m, d)
    gradyn.kinematics(m, d2)
    assert same(d.xpos, d2.xpos) and same(d.xquat, d2.xquat) and same(d.xmat, d2.xmat)


def test_derivative_outputs_consistent():
    """step_vjp is the transpose of step_jvp's map: <g, J t> = <J' g, t> to round-off, and
    transition_jacobians' columns are step_jvp of unit tangents, bit for bit."""
    m = gradyn.Model.from_xml_path(model_path("double_pendulum.xml"))
    d = gradyn.Data(m)
    d.qvel[:] = 0.3
    gradyn.step(m, d, nstep=5)
    A, B = gradyn.transition_jacobians(m, d)
    nv = m.nv
    for i in range(nv):
        e = np.zeros(nv)
        e[i] = 1.0
        dq, dv = gradyn.step_jvp(m, d, dqpos=e)
        col = np.concatenate([dq, dv])
        assert np.allclose(col, A[:, i], rtol=0, atol=1e-12)
    gq, gv, gu, gparam, gvert = gradyn.step_vjp(m, d, np.ones(nv), None, params=True)
    assert gparam.shape == (m.nbody, gradyn.N_INERTIA_PARAMS) and gvert.shape == (m.nvert, 3)
    assert np.allclose(gq, A[:nv, :nv].T @ np.ones(nv), atol=1e-12)
