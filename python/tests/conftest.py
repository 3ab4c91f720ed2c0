# SPDX-License-Identifier: Apache-2.0
# Shared fixtures of the gradyn pytest suite: model paths, the C reference helper, and the
# "N passed, N failed" line scripts/test.sh sums.
import os
import subprocess

import pytest

MODELS = os.environ.get("GDNPY_MODELS", os.path.join(os.path.dirname(__file__), "..", "..",
                                                      "tests", "models"))
SAMPLES = "/usr/share/mujoco/model"
REF = os.environ.get("GDNPY_REF", "")


def model_path(name):
    """A test model of tests/models by file name."""
    return os.path.join(MODELS, name)


def sample_path(rel):
    """A MuJoCo sample model (libmujoco-samples); the test skips when it is missing."""
    path = os.path.join(SAMPLES, rel)
    if not os.path.exists(path):
        pytest.skip("MuJoCo samples not installed: " + path)
    return path


def run_ref(path, nstep):
    """The C reference run: {name: [float, ...]} of gdnpy_ref's hex output."""
    if not REF or not os.path.exists(REF):
        pytest.skip("GDNPY_REF (the C reference helper) not built")
    out = subprocess.run([REF, path, str(nstep)], check=True, capture_output=True, text=True)
    rows = {}
    for line in out.stdout.splitlines():
        name, *vals = line.split()
        if name.endswith("_status") or name in ("ncon", "error"):
            rows[name] = [int(v) for v in vals]
        else:
            rows[name] = [float.fromhex(v) for v in vals]
    return rows


def pytest_terminal_summary(terminalreporter):
    """The per-suite count line of the project's test command (scripts/test.sh)."""
    passed = len(terminalreporter.stats.get("passed", []))
    failed = len(terminalreporter.stats.get("failed", [])) + \
        len(terminalreporter.stats.get("error", []))
    terminalreporter.write_line("%d passed, %d failed" % (passed, failed))


def pytest_sessionstart(session):
    """Under test_pip's venv run, make sure the installed module is the one imported."""
    venv = os.environ.get("GDNPY_EXPECT_INSTALLED")
    if venv:
        import gradyn
        assert os.path.realpath(gradyn.__file__).startswith(os.path.realpath(venv)), \
            gradyn.__file__
