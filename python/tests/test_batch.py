# SPDX-License-Identifier: Apache-2.0
# gradyn.batch: batched rollouts equal gradyn.step loops bit for bit, do not depend on the
# thread count, randomize per entry, report failing entries; rollout_vjp against central
# differences of rollout; hostile inputs raise instead of crashing.
import numpy as np
import pytest

import gradyn
from gradyn import batch
from conftest import model_path, sample_path


def humanoid():
    return gradyn.Model.from_xml_path(sample_path("humanoid/humanoid.xml"))


def inputs(m, nbatch, T, seed=0):
    rng = np.random.default_rng(seed)
    d = gradyn.Data(m)
    q0 = np.tile(np.array(d.qpos), (nbatch, 1))
    v0 = 0.1 * rng.standard_normal((nbatch, m.nv))
    u = 0.2 * rng.standard_normal((nbatch, T, m.nu))
    return q0, v0, u


def step_loop(m, q0, v0, u):
    d = gradyn.Data(m)
    d.qpos[:] = q0
    d.qvel[:] = v0
    qs, vs = [np.array(d.qpos)], [np.array(d.qvel)]
    for t in range(u.shape[0]):
        d.ctrl[:] = u[t]
        gradyn.step(m, d)
        qs.append(np.array(d.qpos))
        vs.append(np.array(d.qvel))
    return np.array(qs), np.array(vs)


def test_rollout_equals_step_loop_and_threads():
    m = humanoid()
    q0, v0, u = inputs(m, 5, 200)
    q1, v1, nc = batch.rollout(m, q0, v0, u, nthread=1, ncon=True)
    assert q1.shape == (5, 201, m.nq) and v1.shape == (5, 201, m.nv) and nc.shape == (5, 201)
    assert nc.max() > 0  # the humanoid touches the floor
    for nt in (2, 3, 0):
        q, v = batch.rollout(m, q0, v0, u, nthread=nt)
        assert np.array_equal(q, q1) and np.array_equal(v, v1)
    for b in (0, 4):
        qs, vs = step_loop(m, q0[b], v0[b], u[b])
        assert np.array_equal(q1[b], qs) and np.array_equal(v1[b], vs)
    # unbatched inputs, unbatched outputs
    q, v = batch.rollout(m, q0[2], v0[2], u[2])
    assert np.array_equal(q, q1[2]) and np.array_equal(v, v1[2])


def test_domain_randomization():
    path = model_path("double_pendulum.xml")
    models = [gradyn.Model.from_xml_path(path) for _ in range(3)]
    for k, m in enumerate(models):
        p = np.array(m.get_body_inertia(1))
        p[0] *= 1 + 0.5 * k
        m.set_body_inertia(1, p)
    q0, v0, u = inputs(models[0], 3, 50)
    q, v = batch.rollout(models, q0, v0, u, nthread=2)
    for k, m in enumerate(models):
        qs, vs = step_loop(m, q0[k], v0[k], u[k])
        assert np.array_equal(q[k], qs) and np.array_equal(v[k], vs)
    assert not np.array_equal(q[0], q[2])


def test_failing_entry_reported():
    m = gradyn.Model.from_xml_path(model_path("double_pendulum.xml"))
    q0, v0, u = inputs(m, 3, 20)
    v0[1] = 1e300
    q, v, status = batch.rollout(m, q0, v0, u, return_status=True)
    assert status[0][1] == 0 and status[2][1] == 0 and status[1][1] != 0
    assert status[1][2] >= 0 and status[1][3]  # the step and a message
    assert np.isnan(q[1, -1]).all() and np.isfinite(q[0]).all()
    with pytest.raises(gradyn.Error, match="entry 1"):
        batch.rollout(m, q0, v0, u)


def fd_check(m, q0, v0, u, eps, tol):
    """rollout_vjp against central differences of <w, rollout> in every input coordinate."""
    T = u.shape[0]
    rng = np.random.default_rng(3)
    wq = rng.standard_normal((T + 1, m.nq))
    wv = rng.standard_normal((T + 1, m.nv))

    def J(q, v, c):
        a, b = batch.rollout(m, q, v, c)
        return float((a * wq).sum() + (b * wv).sum())

    g = batch.rollout_vjp(m, q0, v0, u, wq, wv)
    assert np.isclose(g["J"], J(q0, v0, u), rtol=1e-12)
    for k, name in enumerate(("qpos0", "qvel0", "ctrl")):
        x, grad = (q0, v0, u)[k], g[name]
        for i in np.ndindex(x.shape):
            a = [q0, v0, u]
            a[k] = x.copy()
            a[k][i] += eps
            jp = J(*a)
            a[k] = x.copy()
            a[k][i] -= eps
            fd = (jp - J(*a)) / (2 * eps)
            assert abs(grad[i] - fd) <= tol * max(1, abs(fd)), (name, i, grad[i], fd)


def test_vjp_against_finite_differences_hinges():
    m = gradyn.Model.from_xml_path(model_path("double_pendulum.xml"))
    q0, v0, u = inputs(m, 1, 30)
    fd_check(m, q0[0] + 0.3, v0[0], u[0], 1e-6, 1e-6)


def test_vjp_against_finite_differences_free_joint():
    m = gradyn.Model.from_xml_path(model_path("adj_free_spin.xml"))
    q0, v0, u = inputs(m, 1, 20)
    q = q0[0].copy()
    q[3:7] *= 1.2  # raw quaternion off unit norm: the gradient includes the normalization
    fd_check(m, q, v0[0], u[0], 1e-6, 1e-6)


def test_vjp_threads_and_params():
    m = humanoid()
    q0, v0, u = inputs(m, 3, 40)
    cq = np.ones((3, 41, m.nq))
    g1 = batch.rollout_vjp(m, q0, v0, u, cq, nthread=1, params=True, tangent=True)
    g2 = batch.rollout_vjp(m, q0, v0, u, cq, nthread=3, params=True, tangent=True)
    for k in g1:
        assert np.array_equal(g1[k], g2[k]), k
    assert g1["param"].shape == (3, m.nbody, 10) and g1["qpos0_tangent"].shape == (3, m.nv)


@pytest.mark.parametrize("bad, exc", [
    (dict(qpos0="x"), TypeError),
    (dict(qpos0=np.zeros((2, 3))), ValueError),
    (dict(qvel0=np.zeros((3, 1))), ValueError),
    (dict(ctrl=np.zeros((2, 5))), ValueError),
    (dict(ctrl=np.zeros((3, 5, 7))), ValueError),
    (dict(ctrl=None), TypeError),
    (dict(nthread=-1), ValueError),
    (dict(model=[None]), TypeError),
    (dict(model=[]), ValueError),
    (dict(qpos0=np.full((2, 2), np.nan)), gradyn.Error),
    (dict(qpos0=np.zeros((2, 2), dtype=np.complex128)), TypeError),
])
def test_hostile_inputs(bad, exc):
    m = gradyn.Model.from_xml_path(model_path("double_pendulum.xml"))
    args = dict(model=m, qpos0=np.zeros((2, 2)), qvel0=np.zeros((2, 2)),
                ctrl=np.zeros((2, 5, 2)), nthread=0)
    args.update(bad)
    with pytest.raises(exc):
        batch.rollout(args["model"], args["qpos0"], args["qvel0"], args["ctrl"],
                      nthread=args["nthread"])


def test_huge_batch_refused():
    # sizes whose byte counts overflow are refused before anything is allocated, and the
    # models are left free (a setter works afterwards)
    m = gradyn.Model.from_xml_path(model_path("adj_free_spin.xml"))
    d = gradyn.Data(m)
    q0, v0 = np.array(d.qpos)[None], np.zeros((1, m.nv))
    with pytest.raises(ValueError, match="do not fit"):
        gradyn._gradyn._rollout((m,), 2**31 - 1, 2**31 - 1, q0, v0, None, 1, False)
    m.set_body_inertia(1, m.get_body_inertia(1))
    gradyn.rollout(m, q0, v0, np.zeros((1, 3, m.nu)))


# ---------------------------------------------------------------- BatchPool

def test_pool_equals_one_shot_calls():
    """Repeated pool calls of growing and shrinking T and nbatch, one model or one per entry,
    equal the one-shot calls (and the gradyn.step loops) bit for bit."""
    path = model_path("double_pendulum.xml")
    models = [gradyn.Model.from_xml_path(path) for _ in range(5)]
    for k, m in enumerate(models):
        p = np.array(m.get_body_inertia(1))
        p[0] *= 1 + 0.3 * k
        m.set_body_inertia(1, p)
    m = models[0]
    for nthread in (1, 2, 3):
        pool = gradyn.BatchPool(m, nthread=nthread)
        assert pool.nthread == nthread and not pool.busy
        for c, (nb, T) in enumerate(((3, 20), (1, 5), (5, 40), (2, 40), (4, 12))):
            q0, v0, u = inputs(m, nb, T, seed=c)
            q0 = q0 + 0.2
            model = models[:nb] if c % 2 else m
            q, v, nc = pool.rollout(model, q0, v0, u, ncon=True)
            q1, v1, nc1 = batch.rollout(model, q0, v0, u, nthread=nthread, ncon=True)
            assert np.array_equal(q, q1) and np.array_equal(v, v1) and np.array_equal(nc, nc1)
            mb = models[nb - 1] if c % 2 else m
            qs, vs = step_loop(mb, q0[-1], v0[-1], u[-1])
            assert np.array_equal(q[-1], qs) and np.array_equal(v[-1], vs)
            cq = np.random.default_rng(c).standard_normal((nb, T + 1, m.nq))
            g = pool.rollout_vjp(model, q0, v0, u, cq, params=True, tangent=True)
            g1 = gradyn.rollout_vjp(model, q0, v0, u, cq, nthread=1, params=True, tangent=True)
            g2 = gradyn.rollout_vjp(model, q0, v0, u, cq, params=True, tangent=True, pool=pool)
            for key in g1:
                assert np.array_equal(g[key], g1[key]) and np.array_equal(g2[key], g1[key]), key
        # unbatched inputs through the pool
        q0, v0, u = inputs(m, 1, 15)
        q, v = gradyn.rollout(m, q0[0], v0[0], u[0], pool=pool)
        assert q.shape == (16, m.nq)
        assert np.array_equal(q, batch.rollout(m, q0[0], v0[0], u[0])[0])


def test_pool_humanoid_threads():
    m = humanoid()
    q0, v0, u = inputs(m, 4, 30)
    ref = batch.rollout(m, q0, v0, u, nthread=1)
    gref = batch.rollout_vjp(m, q0, v0, u, np.ones((4, 31, m.nq)), nthread=1)
    for nthread in (1, 2):
        pool = gradyn.BatchPool(m, nthread)
        for _ in range(3):
            q, v = pool.rollout(m, q0, v0, u)
            assert np.array_equal(q, ref[0]) and np.array_equal(v, ref[1])
            g = pool.rollout_vjp(m, q0, v0, u, np.ones((4, 31, m.nq)))
            assert all(np.array_equal(g[k], gref[k]) for k in gref)


def test_pool_errors():
    m = gradyn.Model.from_xml_path(model_path("double_pendulum.xml"))
    other = gradyn.Model.from_xml_path(model_path("pendulum.xml"))
    pool = gradyn.BatchPool(m, nthread=2)
    q0, v0, u = inputs(m, 3, 10)
    # a model of other sizes than the pool's
    with pytest.raises(gradyn.Error, match="pool was created for nq 2"):
        pool.rollout(other, np.zeros((3, 1)), np.zeros((3, 1)), np.zeros((3, 10, other.nu)))
    with pytest.raises(gradyn.Error, match="models\\[1\\] has nq 1"):
        pool.rollout([m, other, m], q0, v0, u)
    # nthread belongs to the pool; wrong pool types
    with pytest.raises(ValueError, match="nthread"):
        pool.rollout(m, q0, v0, u, nthread=2)
    with pytest.raises(TypeError, match="BatchPool"):
        gradyn.rollout(m, q0, v0, u, pool=m)
    with pytest.raises(TypeError):
        gradyn.BatchPool("x")
    with pytest.raises(ValueError):
        gradyn.BatchPool(m, nthread=-1)
    # a failing entry: reported, the pool still usable and exact afterwards
    v0[1] = 1e300
    q, v, status = pool.rollout(m, q0, v0, u, return_status=True)
    assert status[1][1] != 0 and status[0][1] == 0 and np.isnan(q[1, -1]).all()
    with pytest.raises(gradyn.Error, match="entry 1"):
        pool.rollout_vjp(m, q0, v0, u, np.ones((3, 11, m.nq)))
    v0[1] = 0.0
    u[2, 4, 0] = np.nan
    with pytest.raises(gradyn.Error, match="entry 2"):
        pool.rollout(m, q0, v0, u)
    u[2, 4, 0] = 0.0
    assert not pool.busy
    q, v = pool.rollout(m, q0, v0, u)
    assert np.array_equal(q, batch.rollout(m, q0, v0, u)[0])


def test_pool_busy_from_another_thread():
    """A call on a pool another thread is running a call on raises RuntimeError at once (the
    GIL is released during the call, so the main thread gets to run)."""
    import threading
    m = humanoid()
    pool = gradyn.BatchPool(m, nthread=1)
    q0, v0, u = inputs(m, 2, 3000)  # about 150 ms
    started = threading.Event()
    result = {}

    def long_call():
        started.set()
        result["q"] = pool.rollout(m, q0, v0, u)[0]

    t = threading.Thread(target=long_call)
    t.start()
    started.wait()
    raised = 0
    for _ in range(2000):  # until the other thread's call runs (busy), then once more
        if pool.busy:
            with pytest.raises(RuntimeError, match="in use by a call in another thread"):
                pool.rollout(m, q0[:, :], v0, u[:, :5])
            raised = 1
            break
        threading.Event().wait(0.001)
    t.join()
    assert raised and not pool.busy
    assert np.array_equal(result["q"], batch.rollout(m, q0, v0, u)[0])
