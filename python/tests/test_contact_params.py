# SPDX-License-Identifier: Apache-2.0
# gradyn.batch.rollout_vjp(contact=True): the geom friction, solref and solimp gradients equal
# central finite differences of gradyn.rollout through the Model setters, on a box sliding on
# (elliptic cone) and pressed into (pyramidal cone) the floor, every sample on one branch.
import numpy as np
import pytest

import gradyn
from conftest import model_path

# the contact parameters of the floor (geom 0) and the box (geom 1). Friction mixes by the max,
# so the box's 0.3 is the contacts' and the floor's has no effect; spin and roll do not enter
# condim-3 contacts. solref / solimp mix by the mean (equal solmix). Widths are a few times
# the depth so the impedance is inside its curve (0 < depth / width < midpoint) at every step
WIDTH = 3e-4
FRICTION = [[0.25, 0.005, 0.0001], [0.3, 0.02, 0.005]]
SOLREF = [[0.016, 1.1], [0.024, 0.9]]
SOLIMP = [[0.7, 0.97, 1.2 * WIDTH, 0.7, 2.0], [0.8, 0.95, 0.8 * WIDTH, 0.9, 2.5]]
CHANNELS = {"geom_friction": FRICTION, "geom_solref": SOLREF, "geom_solimp": SOLIMP}
SETTERS = {"geom_friction": "set_geom_friction", "geom_solref": "set_geom_solref",
           "geom_solimp": "set_geom_solimp"}

# sliding: pushed along x at 0.1 m/s, four contacts in the elliptic cone's sliding zone
# (efc_state 4) for all 12 steps (it sticks at step 14); pressed: pushed down at 0.03 m/s, four
# pyramidal contacts in the quadratic zone (efc_state 1) for 20 steps
SCENES = {"sliding": (1, 0, 0.1, 12, 4), "pressed": (0, 2, -0.03, 20, 1)}


def box_model(cone, values):
    m = gradyn.Model.from_xml_path(model_path("cnstr_box.xml"))
    m.opt.tolerance = 1e-12  # solver noise far below the finite-difference signal
    m.opt.iterations = 200
    m.opt.cone = cone
    for channel, rows in values.items():
        for g, row in enumerate(rows):
            getattr(m, SETTERS[channel])(g, row)
    return m


def branch(m, q0, v0, nstep):
    """Per step (ncon, efc_state) and the depth / width range: the branch a sample is on."""
    d = gradyn.Data(m)
    d.qpos, d.qvel = q0, v0
    steps, depth = [], []
    for _ in range(nstep):
        gradyn.step(m, d)
        steps.append((d.ncon, tuple(d.efc_state)))
        depth += list(-d.contact.dist)
    return steps, min(depth), max(depth)


@pytest.mark.parametrize("scene", sorted(SCENES))
def test_contact_param_gradients_vs_central_differences(scene):
    cone, axis, push, T, state = SCENES[scene]
    m = box_model(cone, CHANNELS)
    d = gradyn.Data(m)
    gradyn.step(m, d, nstep=500)  # settled on the floor
    q0, v0 = np.array(d.qpos), np.array(d.qvel)
    v0[axis] += push
    steps, lo, hi = branch(m, q0, v0, T)
    assert all(n == 4 and set(s) == {state} for n, s in steps), steps
    mid = 0.5 * (SOLIMP[0][3] + SOLIMP[1][3])
    assert 0 < lo and hi / WIDTH < mid - 0.1, (lo, hi)  # off the impedance's kinks

    rng = np.random.default_rng(7)
    cq, cv = rng.standard_normal((T + 1, m.nq)), rng.standard_normal((T + 1, m.nv))
    g = gradyn.rollout_vjp(m, q0, v0, None, cq, cv, nstep=T, contact=True)

    def J(values):
        mm = box_model(cone, values)
        assert branch(mm, q0, v0, T)[0] == steps  # the sample is on the same branch
        q, v = gradyn.rollout(mm, q0, v0, nstep=T)
        return np.sum(cq * q) + np.sum(cv * v)

    # central differences, step 1e-4 of each value. Measured relative errors: at most 9e-9
    # (sliding) and 4e-7 (pressed: solimp's power, a derivative of 3.6e-5 where J's rounding
    # and solver noise, ~1e-11 over 2h, dominate); the truncation error falls as h^2 (1e-8
    # worst at this step, 1e-6 at 1e-3). The bound 1e-5 is 25x the worst of them, while a wrong
    # mixing weight, sign or missing term is an O(1) error and a 0.1 % error in one partial
    # fails (checked by scaling the power derivative in rows_param_derivative.c by 1.001)
    ad, fd = [], []
    for channel, rows in CHANNELS.items():
        assert g[channel].shape == (m.ngeom, len(rows[0]))
        for gi, row in enumerate(rows):
            for k, p in enumerate(row):
                h = 1e-4 * abs(p)
                plus = {c: [list(r) for r in v] for c, v in CHANNELS.items()}
                minus = {c: [list(r) for r in v] for c, v in CHANNELS.items()}
                plus[channel][gi][k] += h
                minus[channel][gi][k] -= h
                fd.append((J(plus) - J(minus)) / (2 * h))
                ad.append(g[channel][gi, k])
    ad, fd = np.array(ad), np.array(fd)
    # exact zeros where the value does not act: the floor's friction (the max is the box's),
    # spin and roll friction (condim 3)
    zero = np.zeros_like(ad, dtype=bool)
    zero[[0, 1, 2, 4, 5]] = True
    assert np.all(ad[zero] == 0) and np.all(fd[zero] == 0)
    # every other value acts, and solref / solimp act equally through both geoms (the mean)
    assert np.all(ad[~zero] != 0)
    assert np.allclose(g["geom_solref"][0], g["geom_solref"][1], rtol=1e-12, atol=0)
    assert np.allclose(g["geom_solimp"][0], g["geom_solimp"][1], rtol=1e-12, atol=0)
    err = np.abs(ad - fd) / np.maximum(np.abs(fd), 1e-300)
    err[zero] = 0
    assert err.max() < 1e-5, (scene, err.max(), int(err.argmax()))
