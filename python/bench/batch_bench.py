# SPDX-License-Identifier: Apache-2.0
# gradyn.batch from Python: rollout of 1000 humanoid steps vs the C loop (gradyn.step with
# nstep, no Python per step), and rollout / gradient batches on 1 and 2 threads; best of 5.
# usage: PYTHONPATH=build/python /usr/bin/python3 python/bench/batch_bench.py [MODEL.xml]
import os
import sys
import time

import numpy as np

import gradyn
from gradyn import batch

path = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/mujoco/model/humanoid/humanoid.xml"
m = gradyn.Model.from_xml_path(path)
T, B = 1000, 8
rng = np.random.default_rng(0)
d0 = gradyn.Data(m)
q0 = np.tile(np.array(d0.qpos), (B, 1))
v0 = np.zeros((B, m.nv))
u = np.zeros((B, T, m.nu))  # zero controls: the C loop below steps the same states
cq = rng.standard_normal((B, T + 1, m.nq))


def best(fn, runs=5):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def c_loop():
    d = gradyn.Data(m)
    gradyn.step(m, d, nstep=T)


tc = best(c_loop)
t1 = best(lambda: batch.rollout(m, q0[:1], v0[:1], u[:1], nthread=1))
print(f"{os.path.basename(path)}, {T} steps: C loop {1e3 * tc:.2f} ms, gradyn.batch.rollout "
      f"{1e3 * t1:.2f} ms ({100 * (t1 / tc - 1):+.1f}%)")
for name, fn in (("rollout", lambda n: batch.rollout(m, q0, v0, u, nthread=n)),
                 ("rollout_vjp", lambda n: batch.rollout_vjp(m, q0, v0, u, cq, nthread=n))):
    a = best(lambda: fn(1), 3)
    b = best(lambda: fn(2), 3)
    print(f"{name}, batch {B} x {T}: 1 thread {1e3 * a:.1f} ms, 2 threads {1e3 * b:.1f} ms, "
          f"speedup {a / b:.2f}x")
