# SPDX-License-Identifier: Apache-2.0
# Run under mpirun by test_distributed.py: gradyn.distributed's rollout and gradient batches
# over the ranks against gradyn.batch on one process, bit for bit (act0, act and sensordata too
# for models with actuator dynamics or sensors); rank 0 prints the verdict.
import sys

import numpy as np
from mpi4py import MPI

import gradyn
from gradyn import batch, distributed

comm = MPI.COMM_WORLD
path, nbatch = sys.argv[1], int(sys.argv[2])
m = gradyn.Model.from_xml_path(path)
rng = np.random.default_rng(7)
d = gradyn.Data(m)
q0 = np.tile(np.array(d.qpos), (nbatch, 1))
v0 = 0.1 * rng.standard_normal((nbatch, m.nv))
u = 0.2 * rng.standard_normal((nbatch, 60, m.nu))
cq = rng.standard_normal((nbatch, 61, m.nq))

q, v = distributed.rollout(m, q0, v0, u, nthread=1)          # gathered on every rank
g = distributed.rollout_vjp(m, q0, v0, u, cq, nthread=1, params=True, root=0)
ok = True
if comm.Get_rank() == 0:
    qs, vs = batch.rollout(m, q0, v0, u, nthread=1)
    gs = batch.rollout_vjp(m, q0, v0, u, cq, nthread=1, params=True)
    ok = np.array_equal(q, qs) and np.array_equal(v, vs)
    ok = ok and all(np.array_equal(g[k], gs[k]) for k in gs)
else:
    ok = g is None and q.shape == (nbatch, 61, m.nq)
# the activations and the sensors (models with actuator dynamics or sensors)
if m.na > 0 or m.nsensordata > 0:
    a0 = rng.uniform(0.1, 0.4, (nbatch, m.na))
    full = distributed.rollout(m, q0, v0, u, act0=a0, act=True, sensordata=True, nthread=1)
    ga = distributed.rollout_vjp(m, q0, v0, u, cq, act0=a0, nthread=1, root=0)
    if comm.Get_rank() == 0:
        ref = batch.rollout(m, q0, v0, u, act0=a0, act=True, sensordata=True, nthread=1)
        gr = batch.rollout_vjp(m, q0, v0, u, cq, act0=a0, nthread=1)
        ok = ok and all(np.array_equal(x, y) for x, y in zip(full, ref))
        ok = ok and all(np.array_equal(ga[k], gr[k]) for k in gr)
    else:
        ok = ok and ga is None and full[2].shape == (nbatch, 61, m.na)
# a diverging entry (on the last rank's block) raises on every rank instead of hanging one
bad = v0.copy()
bad[-1] = 1e300
try:
    distributed.rollout(m, q0, bad, u, nthread=1)
    ok = False
except gradyn.Error as e:
    ok = ok and f"entry {nbatch - 1}" in str(e)
ok = comm.allreduce(bool(ok), op=MPI.LAND)
if comm.Get_rank() == 0:
    print(f"ranks {comm.Get_size()}, batch {nbatch}: {'identical' if ok else 'DIFFERENT'}")
sys.exit(0 if ok else 1)
