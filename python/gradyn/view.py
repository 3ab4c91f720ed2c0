# SPDX-License-Identifier: Apache-2.0
# gradyn.view: a rollout as the self-contained HTML player of `gradyn view` (docs/viewer.md),
# by writing the trajectory in simulate's CSV layout and running the command line program.
"""Look at a trajectory in a browser.

    qpos, qvel = gradyn.batch.rollout(m, qpos0, qvel0, ctrl)
    gradyn.view("model.xml", qpos, "out.html", timestep=m.opt.timestep)

The page is written by the ``gradyn`` command line program (``gradyn view MODEL TRAJ.csv -o
OUT``): found through $GRADYN_CLI, next to the build tree this package was built in, or on PATH.
"""

import os
import shutil
import subprocess
import tempfile

import numpy as np


def _cli():
    env = os.environ.get("GRADYN_CLI")
    if env:
        return env
    # the build tree: <build>/python/gradyn/view.py -> <build>/gradyn
    here = os.path.dirname(os.path.abspath(__file__))
    for cand in (os.path.join(here, "..", "..", "gradyn"), os.path.join(here, "..", "..", "cli", "gradyn")):
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return os.path.normpath(cand)
    found = shutil.which("gradyn")
    if found:
        return found
    raise FileNotFoundError("gradyn.view: the gradyn command line program was not found "
                            "(set GRADYN_CLI, or put it on PATH)")


def view(model_path, qpos, out, *, time=None, timestep=None, contacts=False, every=1):
    """Write the HTML player of trajectory qpos [T, nq] of the MJCF file model_path to out.

    time: [T] seconds (default: row index times timestep, or 0.002 s). contacts: draw the
    contact points. every: keep every k-th frame (and the last). Returns out.
    """
    q = np.asarray(qpos, dtype=np.float64)
    if q.ndim != 2:
        raise ValueError(f"qpos: expected [T, nq], got shape {q.shape}")
    if time is None:
        time = np.arange(q.shape[0]) * (0.002 if timestep is None else float(timestep))
    t = np.asarray(time, dtype=np.float64)
    if t.shape != (q.shape[0],):
        raise ValueError(f"time: expected [{q.shape[0]}], got shape {t.shape}")
    if not np.isfinite(q).all() or not np.isfinite(t).all():
        raise ValueError("qpos, time: non-finite values (a diverged rollout?)")
    with tempfile.TemporaryDirectory() as tmp:
        csv = os.path.join(tmp, "trajectory.csv")
        with open(csv, "w") as f:
            f.write(",".join(["time"] + [f"qpos{i}" for i in range(q.shape[1])]) + "\n")
            for ti, row in zip(t, q):
                f.write(",".join(repr(float(x)) for x in (ti, *row)) + "\n")
        cmd = [_cli(), "view", os.fspath(model_path), csv, "-o", os.fspath(out)]
        if contacts:
            cmd.append("--contacts")
        if every != 1:
            cmd += ["--every", str(int(every))]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            from ._gradyn import Error
            raise Error(f"gradyn view: {res.stderr.strip() or res.stdout.strip()}")
    return out
