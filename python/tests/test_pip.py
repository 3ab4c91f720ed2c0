# SPDX-License-Identifier: Apache-2.0
# pip installs the package into a virtual environment without network (setuptools from
# Debian), and the installed module gives the C reference's bits.
import os
import shutil
import subprocess
import sys

import pytest

SOURCE = os.environ.get("GDNPY_SOURCE", os.path.join(os.path.dirname(__file__), ".."))


@pytest.mark.skipif(os.environ.get("GDNPY_SANITIZE") == "1",
                    reason="the pip build is not sanitized: the build-tree module is tested")
def test_pip_install_into_venv(tmp_path):
    root = os.path.dirname(os.path.abspath(SOURCE))
    # a copy of the sources, so that the in-tree build leaves the repository clean
    src = tmp_path / "src"
    for part in ("python", "src", "include"):
        shutil.copytree(os.path.join(root, part), src / part,
                        ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    venv = tmp_path / "venv"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_PRELOAD")}
    try:
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                       check=True, env=env, capture_output=True)
    except subprocess.CalledProcessError as e:
        pytest.skip("no venv with pip (python3-venv): " + e.stderr.decode()[-200:])
    pip = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-index",
                          "--no-build-isolation", str(src / "python")],
                         env=env, capture_output=True, text=True)
    assert pip.returncode == 0, pip.stdout[-2000:] + pip.stderr[-2000:]
    # the installed module (not the build tree's) passes the bit-for-bit tests
    env["GDNPY_EXPECT_INSTALLED"] = str(venv)
    test = subprocess.run([str(venv / "bin" / "python"), "-m", "pytest", "-q", "-p",
                           "no:cacheprovider", os.path.join(os.path.dirname(__file__),
                                                             "test_bitwise.py")],
                          env=env, capture_output=True, text=True, cwd=str(tmp_path))
    assert test.returncode == 0, test.stdout[-3000:] + test.stderr[-2000:]
    assert " passed" in test.stdout
