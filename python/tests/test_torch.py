# SPDX-License-Identifier: Apache-2.0
# gradyn.torch: the autograd Functions pass torch.autograd.gradcheck on smooth and constrained
# rollouts (initial state, controls, inertia parameters, batched), equal the C rollout bit for
# bit, and refuse tensors gradyn cannot take.
import numpy as np
import pytest

import gradyn
from gradyn import batch
from conftest import model_path

torch = pytest.importorskip("torch")
import gradyn.torch as gt  # noqa: E402


def f64(x, grad=True):
    return torch.tensor(np.asarray(x, dtype=np.float64), dtype=torch.float64, requires_grad=grad)


def pendulum():
    return gradyn.Model.from_xml_path(model_path("double_pendulum.xml"))


def test_forward_equals_batch_rollout():
    m = pendulum()
    rng = np.random.default_rng(1)
    q0, v0, u = rng.standard_normal((3, 2)), rng.standard_normal((3, 2)), rng.standard_normal((3, 25, 2))
    q, v = gt.rollout(m, f64(q0), f64(v0), f64(u))
    qb, vb = batch.rollout(m, q0, v0, u)
    assert np.array_equal(q.detach().numpy(), qb) and np.array_equal(v.detach().numpy(), vb)
    q1, v1 = gt.step(m, f64(q0[0]), f64(v0[0]), f64(u[0, 0]))
    assert np.array_equal(q1.detach().numpy(), qb[0, 1]) and np.array_equal(v1.detach().numpy(), vb[0, 1])


def test_gradcheck_smooth():
    m = pendulum()
    rng = np.random.default_rng(2)
    args = (f64([0.2, -0.3]), f64([0.1, 0.4]), f64(0.3 * rng.standard_normal((20, 2))))
    assert torch.autograd.gradcheck(lambda q, v, u: gt.rollout(m, q, v, u), args,
                                    eps=1e-6, atol=1e-6, rtol=1e-5)
    # batched, and one step
    argsb = (f64(0.1 * rng.standard_normal((3, 2))), f64(np.zeros((3, 2))),
             f64(0.2 * rng.standard_normal((3, 8, 2))))
    assert torch.autograd.gradcheck(lambda q, v, u: gt.rollout(m, q, v, u, nthread=2), argsb,
                                    eps=1e-6, atol=1e-6, rtol=1e-5)
    assert torch.autograd.gradcheck(lambda q, v, u: gt.step(m, q, v, u), (args[0], args[1], args[2][0]),
                                    eps=1e-6, atol=1e-6, rtol=1e-5)


def test_gradcheck_params():
    m = pendulum()
    p = f64(np.stack([m.get_body_inertia(b) for b in range(m.nbody)]))
    q0, v0 = f64([0.2, -0.3], False), f64([0.1, 0.4], False)
    u = f64(0.2 * np.ones((15, 2)), False)
    assert torch.autograd.gradcheck(lambda p: gt.rollout(m, q0, v0, u, params=p), (p,),
                                    eps=1e-6, atol=1e-6, rtol=1e-4)


def settled_box(push, spin):
    """cnstr_box.xml (solver tolerance 1e-12) after 500 steps at rest on the floor, then pushed
    along x and spun about z: (model, qpos, qvel)."""
    m = gradyn.Model.from_xml_path(model_path("cnstr_box.xml"))
    m.opt.tolerance = 1e-12
    m.opt.iterations = 200
    d = gradyn.Data(m)
    gradyn.step(m, d, nstep=500)
    v = np.array(d.qvel)
    v[0] += push
    v[5] += spin
    return m, np.array(d.qpos), v


def test_gradcheck_constrained():
    # a box settled on the floor, pushed and spun: four contacts through most of the run
    m, q, v = settled_box(0.3, 0.2)
    _, _, ncon = batch.rollout(m, q, v, nstep=30, ncon=True)
    assert ncon.min() >= 0 and ncon.max() == 4
    assert torch.autograd.gradcheck(lambda q, w: gt.rollout(m, q, w, nstep=30),
                                    (f64(q), f64(v)), eps=1e-7, atol=1e-5, rtol=1e-5)


def test_refused_tensors():
    m = pendulum()
    good = torch.zeros(2, dtype=torch.float64)
    with pytest.raises(TypeError):
        gt.rollout(m, good.float(), good, torch.zeros(3, 2, dtype=torch.float64))
    with pytest.raises(TypeError):
        gt.rollout(m, np.zeros(2), good, torch.zeros(3, 2, dtype=torch.float64))
    with pytest.raises(ValueError):
        gt.rollout(m, good, good, torch.zeros(3, 5, dtype=torch.float64))
    with pytest.raises(ValueError):
        gt.rollout(m, good, good, torch.zeros(3, 2, dtype=torch.float64),
                   params=torch.zeros(2, 10, dtype=torch.float64))


def test_gradcheck_domain_randomization():
    # three models, one inertia parameter set each: the gradient of each set is its entry's
    models = [pendulum() for _ in range(3)]
    base = np.stack([models[0].get_body_inertia(b) for b in range(models[0].nbody)])
    p = np.stack([base] * 3)
    p[:, 1, 0] *= np.array([1.0, 1.3, 0.8])
    p = f64(p)
    rng = np.random.default_rng(4)
    q0 = f64(0.2 * rng.standard_normal((3, 2)), False)
    v0 = f64(np.zeros((3, 2)), False)
    u = f64(0.2 * rng.standard_normal((3, 10, 2)), False)
    assert torch.autograd.gradcheck(lambda p: gt.rollout(models, q0, v0, u, params=p), (p,),
                                    eps=1e-6, atol=1e-6, rtol=1e-4)


def test_gradcheck_geom_friction():
    # a box settled on the floor and pushed: it slides and stops on its four contacts, so the
    # sliding friction of the floor and the box enters every step (MuJoCo's mixing: the larger)
    m, q, v = settled_box(0.5, 0.0)
    f0 = np.array(m.geom_friction, dtype=np.float64)
    f0[0, 0] = 0.5  # the floor below the box's 0.8: the box's value is the mixed one
    fr = f64(f0)
    q0, v0 = f64(q, False), f64(v, False)
    assert torch.autograd.gradcheck(lambda f: gt.rollout(m, q0, v0, nstep=40, geom_friction=f),
                                    (fr,), eps=1e-7, atol=1e-5, rtol=1e-5)
    qpos, _ = gt.rollout(m, q0, v0, nstep=40, geom_friction=fr)
    qpos[-1, 0].backward()
    assert fr.grad[1, 0] < 0 and fr.grad[0, 0] == 0  # more friction, shorter slide


def test_backward_at_its_own_parameters():
    # two forwards with different inertia parameters on one model, then the first one's
    # backward: its gradient is the one of a lone forward at its parameters
    m = pendulum()
    base = np.stack([m.get_body_inertia(b) for b in range(m.nbody)])
    q0, v0 = f64([0.2, -0.3], False), f64([0.1, 0.4], False)
    u = f64(0.2 * np.ones((15, 2)), False)
    p1, p2 = f64(base), f64(base * np.array([1] + [1.5] * 9))
    alone = torch.autograd.grad(gt.rollout(m, q0, v0, u, params=p1)[0].sum(), p1)[0]
    first = gt.rollout(m, q0, v0, u, params=p1)[0].sum()
    gt.rollout(m, q0, v0, u, params=p2)
    assert torch.equal(torch.autograd.grad(first, p1)[0], alone)
