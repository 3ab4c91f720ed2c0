# SPDX-License-Identifier: Apache-2.0
# Hostile inputs must never crash the interpreter: wrong types, shapes, huge ints, None,
# NaN states, mutated XML, a Data outliving its model's edits, views outliving their Data,
# the batch calls and BatchPool in every argument position, a busy pool.
import gc
import random

import numpy as np
import pytest

import gradyn
from conftest import model_path

HOSTILE = [
    None, 0, -1, 1, 7, 2 ** 31, -2 ** 31 - 1, 2 ** 70, -2 ** 70, 1.5, float("nan"),
    float("inf"), "", "torso", "x" * 10000, b"bytes", [], [1.0, 2.0], [None], (1, "a"), {},
    object(), np.zeros(0), np.zeros(1000), np.zeros(3, dtype=np.int32), np.zeros((2, 2)),
    np.zeros(6, dtype=">f8"), np.full(32, np.nan), np.full(32, 1e308), np.array(1.0),
    memoryview(b"abcdefgh"), np.zeros(64)[::2], bytearray(16),
]


def hostile_calls(m, d):
    """(function, fixed arguments before the hostile one) of every module call."""
    calls = []
    for fn in (gradyn.step, gradyn.forward, gradyn.inverse, gradyn.kinematics, gradyn.reset,
               gradyn.collision, gradyn.transition_jacobians):
        calls += [(fn, ()), (fn, (m,)), (fn, (d,))]
    for fn in (gradyn.reset_keyframe, gradyn.contact_force):
        calls += [(fn, (m, d))]
    calls += [(gradyn.step, (m, d)), (gradyn.step_jvp, (m, d)), (gradyn.step_vjp, (m, d)),
              (gradyn.step_jvp, (m, d, None)), (gradyn.step_jvp, (m, d, None, None, None)),
              (gradyn.step_jvp, (m, d, None, None, None, None)),
              (gradyn.step_vjp, (m, d, None)), (gradyn.Data, ()),
              (gradyn.Model.from_xml_string, ()), (gradyn.Model.from_xml_path, ())]
    for name in ("set_geom_friction", "set_geom_solref", "set_geom_solimp", "set_geom_size",
                 "set_pair_friction", "set_body_inertia", "set_collision_mesh"):
        fn = getattr(m, name)
        calls += [(fn, ()), (fn, (0,)), (fn, (1,)), (fn, ("torso",))]
    for name in ("body", "joint", "geom", "site", "actuator", "key", "names",
                 "get_body_inertia", "set_penalty"):
        calls += [(getattr(m, name), ())]
    for name in ("body", "joint", "geom", "site", "actuator"):
        calls += [(getattr(d, name), ())]
    return calls


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # bool() of an empty array
def test_hostile_arguments_never_crash():
    m = gradyn.Model.from_xml_path(model_path("humanoid32.xml"))
    d = gradyn.Data(m)
    n = 0
    for fn, fixed in hostile_calls(m, d):
        for h in HOSTILE:
            if fn is gradyn.step and len(fixed) == 2 and isinstance(h, int) and h > 100:
                continue  # a legitimate, long nstep
            for extra in ((), (h,)):
                try:
                    fn(*fixed, h, *extra)
                except (gradyn.Error, ValueError, TypeError, IndexError, KeyError,
                        OverflowError, BufferError, RuntimeError):
                    pass
                n += 1
        # the model may have been edited (collision meshes): keep a matching Data
        d = gradyn.Data(m)
    assert n > 1000
    gradyn.reset(m, d)
    gradyn.step(m, d)  # still usable


def test_hostile_attribute_writes():
    m = gradyn.Model.from_xml_path(model_path("humanoid32.xml"))
    d = gradyn.Data(m)
    for name in d.fields() + ["time", "ncon", "contact", "model", "act", "nosuch"]:
        for h in HOSTILE:
            try:
                setattr(d, name, h)
            except (ValueError, TypeError, AttributeError, OverflowError):
                pass
    m = gradyn.Model.from_xml_path(model_path("sol_stack.xml"))
    d = gradyn.Data(m)
    gradyn.step(m, d, nstep=30)  # in contact
    calls = (gradyn.step, gradyn.forward, gradyn.inverse, gradyn.kinematics, gradyn.collision,
             gradyn.step_jvp, gradyn.step_vjp, gradyn.transition_jacobians)
    options = ("timestep", "iterations", "solver", "cone", "tolerance", "impratio", "gravity",
               "disableflags", "enableflags", "mpr_iterations", "mpr_tolerance", "o_margin",
               "box_edge_bias", "collision")
    for name in options:
        saved = getattr(m.opt, name)
        saved = saved.copy() if hasattr(saved, "copy") else saved
        for h in HOSTILE + [-5, 3, 1000, 1e-300, -1e308, 0.0, -0.0, 2 ** 30]:
            try:
                setattr(m.opt, name, h)
            except (ValueError, TypeError, AttributeError, OverflowError):
                pass
            for fn in calls:
                try:
                    fn(m, d)
                except gradyn.Error:
                    pass
        if name != "gravity":
            setattr(m.opt, name, saved)
        gradyn.reset(m, d)
        gradyn.step(m, d, nstep=30)
    for h in HOSTILE:
        try:
            delattr(d, "qpos") if h is None else None
        except AttributeError:
            pass


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf, 1e308, -1e308, 1e-320])
def test_nonfinite_and_extreme_states(value):
    m = gradyn.Model.from_xml_path(model_path("sol_stack.xml"))
    d = gradyn.Data(m)
    gradyn.step(m, d, nstep=20)
    for field in ("qpos", "qvel", "ctrl", "qfrc_applied", "xfrc_applied", "qacc"):
        arr = getattr(d, field)
        if arr.size == 0:
            continue
        saved = arr.copy()
        arr.flat[arr.size // 2] = value
        for fn in (gradyn.step, gradyn.forward, gradyn.inverse, gradyn.kinematics,
                   gradyn.transition_jacobians, gradyn.step_jvp, gradyn.step_vjp,
                   gradyn.collision):
            try:
                fn(m, d)
            except gradyn.Error:
                pass
        arr[...] = saved
    d.time = value
    try:
        gradyn.step(m, d, nstep=3)
    except gradyn.Error:
        pass


def test_mutated_xml_never_crashes():
    xml = open(model_path("scene_drop_box.xml")).read()
    rng = random.Random(11)
    tokens = ["<", ">", "/", '"', "=", " ", "-1", "1e999", "nan", "body", "geom", "0", "\n",
              "&", "<!--", "type", "size"]
    for _ in range(300):
        s = list(xml)
        for _ in range(rng.randint(1, 6)):
            i = rng.randrange(len(s))
            op = rng.randrange(3)
            if op == 0:
                del s[i:i + rng.randint(1, 20)]
            elif op == 1:
                s.insert(i, rng.choice(tokens))
            else:
                s[i] = rng.choice(tokens)
        try:
            m = gradyn.Model.from_xml_string("".join(s))
        except gradyn.Error:
            continue
        d = gradyn.Data(m)
        try:
            gradyn.step(m, d, nstep=5)
        except gradyn.Error:
            pass


def test_data_outlives_model_edit_and_views_outlive_data():
    m = gradyn.Model.from_xml_path(model_path("box_penalty.xml"))
    d = gradyn.Data(m)
    v = d.vert_xpos
    b = m.nbody - 1
    m.set_collision_mesh(b, np.zeros((2, 3)))  # nvert changes: d no longer matches
    with pytest.raises(gradyn.Error):
        gradyn.step(m, d)
    with pytest.raises(gradyn.Error):
        gradyn.forward(m, d)
    assert v.shape[0] == d.nvert  # the old view still covers d's own arrays
    d2 = gradyn.Data(m)
    gradyn.step(m, d2)
    views = [d2.qpos, d2.xpos, d2.contact, d2.efc_J, d2.body(1).xpos, m.body_mass, m.opt.gravity]
    del d2, m
    gc.collect()
    for view in views:
        view = np.asarray(view)
        if view.dtype.names:
            view = view["dist"]
        view.sum()


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_hostile_batch_and_pool_arguments_never_crash():
    """Each argument of the batch calls (one-shot, on a pool, and the C entry points with
    their pool argument) replaced by every hostile value; the pool works afterwards."""
    m = gradyn.Model.from_xml_path(model_path("double_pendulum.xml"))
    other = gradyn.Model.from_xml_path(model_path("pendulum.xml"))
    pool = gradyn.BatchPool(m, nthread=2)
    q0, v0, u = np.zeros((2, 2)), np.zeros((2, 2)), np.zeros((2, 5, 2))
    cq = np.ones((2, 6, 2))
    hostile = HOSTILE + [other, [m, other], [m, m, m], [None], (), pool, m]
    ok = (gradyn.Error, ValueError, TypeError, IndexError, KeyError, OverflowError,
          BufferError, RuntimeError, AttributeError)
    calls = [
        (pool.rollout, [m, q0, v0, u]),
        (pool.rollout_vjp, [m, q0, v0, u, cq, None]),
        (gradyn.rollout, [m, q0, v0, u]),
        (gradyn.BatchPool, [m, 1]),
        (gradyn._gradyn._rollout, [(m,), 2, 5, q0, v0, u, 1, False, pool]),
        (gradyn._gradyn._rollout_vjp, [(m,), 2, 5, q0, v0, u, cq, None, 1, True, True, True,
                                       pool]),
    ]
    n = 0
    for fn, args in calls:
        for i in range(len(args)):
            for h in hostile:
                a = list(args)
                a[i] = h
                try:
                    r = fn(*a)
                    del r
                except ok:
                    pass
                n += 1
        for key in ("pool", "nthread", "nstep", "ncon", "return_status"):
            if fn in (gradyn.BatchPool, gradyn._gradyn._rollout, gradyn._gradyn._rollout_vjp):
                continue
            for h in hostile:
                try:
                    fn(*args, **{key: h})
                except ok:
                    pass
                n += 1
    assert n > 1000
    assert not pool.busy
    q, v = pool.rollout(m, q0, v0, u)  # still usable
    assert np.array_equal(q, gradyn.rollout(m, q0, v0, u)[0])


def test_pool_freed_while_views_and_threads_live():
    """Outputs outlive their pool; pools created and dropped in a loop (threads joined)."""
    m = gradyn.Model.from_xml_path(model_path("double_pendulum.xml"))
    q0, v0, u = np.zeros((3, 2)), np.zeros((3, 2)), np.zeros((3, 4, 2))
    outs = []
    for k in range(30):
        pool = gradyn.BatchPool(m, nthread=1 + k % 3)
        outs.append(pool.rollout(m, q0, v0, u)[0])
        del pool
    gc.collect()
    assert all(np.array_equal(o, outs[0]) for o in outs)
