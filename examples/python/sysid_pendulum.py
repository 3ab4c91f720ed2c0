# SPDX-License-Identifier: Apache-2.0
# System identification through gradyn with PyTorch: recover the two link masses of a double
# pendulum from a recorded trajectory by gradient descent (torch.optim.LBFGS) on the rollout.
"""Fit the link masses of tests/models/double_pendulum.xml to an observed trajectory.

The "real" pendulum has masses 1.6x and 0.7x the file's; the model starts from the file's
values. Each evaluation rolls the model out under the recorded controls (gradyn.torch.rollout:
the C rollout forward, one adjoint pass backward); torch.optim.LBFGS steps the log-masses.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/sysid_pendulum.py [--plot out.png]
"""

import argparse
import os

import numpy as np
import torch

import gradyn
import gradyn.torch as gt

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "..", "..", "tests", "models", "double_pendulum.xml")


def fit(iterations=15, T=300, true_scale=(1.6, 0.7), verbose=True):
    """Returns (estimated masses, true masses, loss per rollout)."""
    truth = gradyn.Model.from_xml_path(MODEL)
    model = gradyn.Model.from_xml_path(MODEL)
    base = torch.tensor(np.stack([model.get_body_inertia(b) for b in range(model.nbody)]))
    true_p = base.clone()
    true_p[1, 0] *= true_scale[0]
    true_p[2, 0] *= true_scale[1]
    for b in (1, 2):
        truth.set_body_inertia(b, true_p[b].numpy())

    # the observation: the true pendulum under a chirp of the two motors
    t = np.arange(T) * model.opt.timestep
    ctrl = torch.tensor(np.stack([1.5 * np.sin(2 * np.pi * (0.5 + t) * t),
                                  0.8 * np.cos(3.0 * t)], axis=1))
    q0 = torch.tensor([0.3, -0.2], dtype=torch.float64)
    v0 = torch.zeros(2, dtype=torch.float64)
    q_obs, _ = gt.rollout(truth, q0, v0, ctrl)

    log_scale = torch.zeros(2, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([log_scale], lr=1, max_iter=5, line_search_fn="strong_wolfe",
                            tolerance_grad=1e-15, tolerance_change=1e-24)
    history = []

    def closure():
        opt.zero_grad()
        p = base.clone()
        p[1, 0] = base[1, 0] * torch.exp(log_scale[0])
        p[2, 0] = base[2, 0] * torch.exp(log_scale[1])
        q, _ = gt.rollout(model, q0, v0, ctrl, params=p)
        loss = (q - q_obs).square().mean()
        loss.backward()
        history.append(float(loss))
        return loss

    for it in range(iterations):
        opt.step(closure)
        if verbose:
            est = base[1:, 0] * torch.exp(log_scale.detach())
            print(f"step {it:2d}  loss {history[-1]:.3e}  masses {est.numpy()}")
        if history[-1] < 1e-24:
            break
    est = (base[1:, 0] * torch.exp(log_scale.detach())).numpy()
    return est, true_p[1:, 0].numpy(), history


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=15)
    ap.add_argument("--plot", help="write the loss curve to this PNG (needs matplotlib)")
    args = ap.parse_args()
    est, true, history = fit(args.iterations)
    print(f"estimated masses {est}, true {true}, relative error "
          f"{np.abs(est / true - 1).max():.2e}")
    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(5, 3.2))
        ax.semilogy(history)
        ax.set_xlabel("rollout (forward + adjoint)")
        ax.set_ylabel("trajectory error (rad^2)")
        ax.set_title("double pendulum: fitting two link masses")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)
        print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
