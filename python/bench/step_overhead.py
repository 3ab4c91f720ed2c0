# SPDX-License-Identifier: Apache-2.0
# Python overhead of gradyn.step: N calls of gradyn.step(m, d) in a Python loop vs one
# gradyn.step(m, d, nstep=N) (the C loop over gdn_step), on a humanoid, best of 5 runs.
# usage: PYTHONPATH=build/python /usr/bin/python3 python/bench/step_overhead.py [MODEL.xml] [N]
import os
import sys
import time

import gradyn

here = os.path.dirname(os.path.abspath(__file__))
path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "tests", "models",
                                                          "humanoid32.xml")
n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
m = gradyn.Model.from_xml_path(path)


def best(fn):
    times = []
    for _ in range(5):
        d = gradyn.Data(m)
        t0 = time.perf_counter()
        fn(d)
        times.append(time.perf_counter() - t0)
    return min(times)


def python_loop(d):
    step = gradyn.step
    for _ in range(n):
        step(m, d)


def c_loop(d):
    gradyn.step(m, d, nstep=n)


tp = best(python_loop)
tc = best(c_loop)
print("%s, %d steps: Python loop %.3f us/step, C loop %.3f us/step, overhead %.3f us/step "
      "(%.1f%%)" % (os.path.basename(path), n, 1e6 * tp / n, 1e6 * tc / n, 1e6 * (tp - tc) / n,
                    100.0 * (tp - tc) / tc))
