# SPDX-License-Identifier: Apache-2.0
# gradyn.distributed under Open MPI's mpirun: 2 and 3 ranks (uneven blocks) give the serial
# gradyn.batch results bit for bit, rollouts and gradients (act0, act and sensordata on
# act_arm.xml too); a failing entry raises on every rank.
import os
import shutil
import subprocess
import sys

import pytest

from conftest import model_path, sample_path

pytest.importorskip("mpi4py")


@pytest.mark.parametrize("ranks, nbatch, model", [
    (2, 4, "humanoid"), (3, 5, "double_pendulum.xml"), (2, 3, "act_arm.xml")])
def test_mpi_equals_serial(ranks, nbatch, model):
    mpirun = shutil.which("mpirun")
    if not mpirun:
        pytest.skip("mpirun not installed (openmpi-bin)")
    path = sample_path("humanoid/humanoid.xml") if model == "humanoid" else model_path(model)
    cmd = [mpirun, "-n", str(ranks), "--oversubscribe"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    env = dict(os.environ, OMPI_MCA_plm="isolated", OMPI_MCA_btl_vader_single_copy_mechanism="none",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    script = os.path.join(os.path.dirname(__file__), "mpi_rollout.py")
    out = subprocess.run(cmd + [sys.executable, script, path, str(nbatch)], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"ranks {ranks}, batch {nbatch}: identical" in out.stdout
