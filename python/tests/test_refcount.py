# SPDX-License-Identifier: Apache-2.0
# No leaks: reference counts of Model and Data and traced Python memory do not grow over a loop
# of every call, view, error and named access; the batch calls' and BatchPool's error paths.
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


def batch_round(m, other, pool, q0, v0, u, cq):
    """Every batch call, one-shot and on the pool, and each of its error paths once."""
    gradyn.rollout(m, q0, v0, u, ncon=True)
    pool.rollout(m, q0, v0, u, ncon=True)
    pool.rollout_vjp(m, q0, v0, u, cq, params=True, tangent=True, contact=True)
    gradyn.rollout_vjp(m, q0, v0, u, cq, params=True, nthread=1)
    nan_v = v0.copy()
    nan_v[1, 2] = np.nan
    huge_v = v0.copy()
    huge_v[1] = 1e300
    bad = [
        lambda: pool.rollout(m, q0[:, :1], v0, u),                      # shape
        lambda: pool.rollout(m, q0.astype(np.complex128), v0, u),       # type
        lambda: pool.rollout_vjp(m, q0, v0, u, cq[:, :2]),              # cotangent shape
        lambda: pool.rollout([m, None, m], q0, v0, u),                  # not a model
        lambda: pool.rollout([m, m], q0, v0, u),                        # model count
        lambda: pool.rollout([m, other, m], q0, v0, u),                 # model sizes
        lambda: pool.rollout(other, q0[:, :1], v0[:, :1], u[:, :, :0]),  # the pool's sizes
        lambda: pool.rollout(m, q0, nan_v, u),                          # non-finite input
        lambda: pool.rollout(m, q0, huge_v, u),                         # failing entry
        lambda: pool.rollout_vjp(m, q0, huge_v, u, cq),                 # failing entry
        lambda: pool.rollout(m, q0, v0, u, nthread=1),                  # nthread on a pool
        lambda: gradyn.rollout(m, q0, v0, u, pool="x"),                 # not a pool
        lambda: gradyn._gradyn._rollout((m,), 3, 4, q0, v0, u, 0, True, m),
        lambda: gradyn._gradyn._rollout_vjp((m,), 3, 4, q0, v0, u, cq, None, 0, True, True,
                                            True, 7),
        lambda: gradyn.BatchPool(None),
        lambda: gradyn.BatchPool(m, -2),
    ]
    for fn in bad:
        try:
            fn()
        except (gradyn.Error, ValueError, TypeError, RuntimeError):
            pass
    # the busy path: the pool marked busy (as during another thread's call)
    pool2 = gradyn.BatchPool(m, 1)
    q, v, status = pool2.rollout(m, q0, v0, u, return_status=True)
    del pool2, q, v, status


def busy_round(m, pool, q0, v0, u):
    """A call refused because another thread's call holds the pool."""
    import threading
    long_u = np.zeros((3, 400, m.nu))
    t = threading.Thread(target=lambda: pool.rollout(m, q0, v0, long_u))
    t.start()
    refused = 0
    while t.is_alive() and not refused:
        if pool.busy:
            try:
                pool.rollout(m, q0, v0, u)
            except RuntimeError:
                refused = 1
    t.join()
    return refused


def test_batch_refcounts_and_memory_stable():
    m = gradyn.Model.from_xml_path(model_path("sol_stack.xml"))
    other = gradyn.Model.from_xml_path(model_path("pendulum.xml"))
    pool = gradyn.BatchPool(m, nthread=2)
    d = gradyn.Data(m)
    q0 = np.tile(np.array(d.qpos), (3, 1))
    v0 = np.zeros((3, m.nv))
    u = np.zeros((3, 4, m.nu))
    cq = np.ones((3, 5, m.nq))
    for _ in range(3):
        batch_round(m, other, pool, q0, v0, u, cq)
    busy_round(m, pool, q0, v0, u)
    gc.collect()
    counts = [sys.getrefcount(x) for x in (m, other, pool, q0, v0, u, cq)]
    objects = len(gc.get_objects())
    tracemalloc.start()
    sizes = []
    refused = 0
    try:
        for _ in range(6):
            for _ in range(20):
                batch_round(m, other, pool, q0, v0, u, cq)
            refused += busy_round(m, pool, q0, v0, u)
            gc.collect()
            sizes.append(tracemalloc.get_traced_memory()[0])
    finally:
        tracemalloc.stop()
    gc.collect()
    assert [sys.getrefcount(x) for x in (m, other, pool, q0, v0, u, cq)] == counts
    assert len(gc.get_objects()) <= objects + 10
    growth = sorted(b - a for a, b in zip(sizes[1:], sizes[2:]))
    assert growth[len(growth) // 2] < 8000, sizes
    assert refused > 0  # the busy path ran
    assert not pool.busy
