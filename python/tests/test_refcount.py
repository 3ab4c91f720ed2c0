# SPDX-License-Identifier: Apache-2.0
# No leaks: reference counts of Model and Data and traced Python memory do not grow over a loop
# of every call, view, error and named access.
import gc
import sys
import tracemalloc

import numpy as np

import gradyn
from conftest import model_path


def one_round(m, d):
    gradyn.step(m, d, nstep=2)
    gradyn.forward(m, d)
    gradyn.inverse(m, d)
    gradyn.kinematics(m, d)
    _ = d.qpos, d.qvel, d.xpos, d.contact, d.efc_J, d.time, d.ncon, m.body_mass, m.opt.gravity
    _ = m.body(1).mass, d.body(1).xpos, d.joint(0).qpos, m.names("body")
    d.qpos = d.qpos.copy()
    gradyn.step_jvp(m, d, np.ones(m.nv))
    gradyn.step_vjp(m, d, np.ones(m.nv), [1.0] * m.nv, params=True, contact_params=True)
    gradyn.transition_jacobians(m, d)
    for bad in (lambda: d.__setattr__("qpos", np.zeros(1)),
                lambda: gradyn.step_jvp(m, d, "x"),
                lambda: m.body("nosuch"),
                lambda: gradyn.Model.from_xml_string("<mujoco>")):
        try:
            bad()
        except (ValueError, TypeError, KeyError):
            pass
    d2 = gradyn.Data(m)
    del d2


def test_refcounts_stable():
    m = gradyn.Model.from_xml_path(model_path("sol_stack.xml"))
    d = gradyn.Data(m)
    one_round(m, d)
    gc.collect()
    rm, rd = sys.getrefcount(m), sys.getrefcount(d)
    objects = len(gc.get_objects())
    for _ in range(200):
        one_round(m, d)
    gc.collect()
    assert sys.getrefcount(m) == rm and sys.getrefcount(d) == rd
    assert len(gc.get_objects()) <= objects + 10


def test_traced_memory_stable():
    """Traced memory after windows of 100 rounds: the median growth per window, after the
    first windows (caches warming up), stays under 8 kB. A leak of one output array per round
    adds > 30 kB to every window; a transient allocator cache moves one window only."""
    m = gradyn.Model.from_xml_path(model_path("sol_stack.xml"))
    d = gradyn.Data(m)
    for _ in range(20):
        one_round(m, d)
    gc.collect()
    tracemalloc.start()
    sizes = []
    try:
        for _ in range(8):
            for _ in range(100):
                one_round(m, d)
            gc.collect()
            sizes.append(tracemalloc.get_traced_memory()[0])
    finally:
        tracemalloc.stop()
    growth = sorted(b - a for a, b in zip(sizes[2:], sizes[3:]))
    assert growth[len(growth) // 2] < 8000, sizes


def test_models_and_datas_are_freed():
    m = gradyn.Model.from_xml_path(model_path("pendulum.xml"))
    gc.collect()
    rm = sys.getrefcount(m)
    datas = [gradyn.Data(m) for _ in range(50)]
    assert sys.getrefcount(m) == rm + 50  # each Data holds its Model
    views = [d.qpos for d in datas]
    del datas
    gc.collect()
    assert sys.getrefcount(m) == rm + 50  # the views hold their Data
    del views
    gc.collect()
    assert sys.getrefcount(m) == rm
