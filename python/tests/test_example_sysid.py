# SPDX-License-Identifier: Apache-2.0
# examples/python/sysid_pendulum.py: L-BFGS through gradyn.torch recovers the two link masses
# of the double pendulum (the gradients are exact, so it converges to round-off in a few steps).
import importlib.util
import os

import pytest

pytest.importorskip("torch")

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python",
                       "sysid_pendulum.py")


def test_sysid_recovers_masses():
    spec = importlib.util.spec_from_file_location("sysid_pendulum", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    est, true, history = mod.fit(iterations=6, verbose=False)
    assert abs(est / true - 1).max() < 1e-8
    assert history[-1] < 1e-16 * history[0]
