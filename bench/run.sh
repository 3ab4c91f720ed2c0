#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Build Release, print the gradyn-vs-MuJoCo timing table and the issue-3 derivative tables
# (adjoint gradient vs forward rollout on humanoid.xml and the pendulum, smooth and with penalty
# contact, dJ/dq0 only vs every block; exact A, B vs mjd_transitionFD), the issue-4 contact-step
# table (gdn_step vs mj_step rollouts with contacts on: humanoid.xml falling on its floor, a
# five-box stack, humanoid32 dropped on its floor; per-step time and both engines' mean Newton
# iterations), the issue-9 tables (constrained adjoint vs forward rollout on humanoid.xml
# falling onto its floor, exact A, B through the constrained step vs mjd_transitionFD at states
# with contacts, per-step derivative cost), the issue-10 Kamino table (gdn_kamino_step with the
# default PADMM settings vs mj_step on the same MJCF files: the four-bar, the slider-crank, the
# Jansen leg with cranks at 3 rad/s and the five-box stack; per-step time and steps/s over a
# window after 0.2 s, PADMM iterations and unconverged steps, loop closure), the issue-12
# integrator tables (gdn_step vs mj_step under Euler and RK4 on the humanoid smooth and on its
# floor, arm7 and the box stack; the trajectory adjoint's gradient / rollout ratio under RK4),
# all in one process
# pinned to core 1, then the callgrind instruction counts and the Kamino step's cost split
# (assembly, factorization, iterations: callgrind inclusive counts per function).
# Extra arguments go to gdn_bench (e.g. --rows aba,aba_pre --batches 9 --deriv 0, or
# --contact only --contact-steps 2000, or --cnstr only, or --kamino only --kamino-steps 1000,
# or --integ only --integ-steps 1000).
#
# Then the issue-11 batch table (gdn_rollout_batch / gdn_adjoint_batch on 1 and 2 threads vs
# mj_step run as mujoco.rollout runs it; not pinned) and the Python rows (python/bench/).
#
# Environment: GDN_BUILD_DIR (default <repo>/build-bench), GDN_BENCH_CORE (default 1),
# GDN_SKIP_PYTHON=1 to leave out the Python rows, GDN_SKIP_CALLGRIND=1 to print the tables only, GDN_CALLGRIND_FILTER (see callgrind.sh).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GDN_BUILD_DIR:-$root/build-bench}
core=${GDN_BENCH_CORE:-1}

"$root/scripts/deps.sh"

# Release build of the library and the bench binary only
mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DGDN_BUILD_TESTS=OFF \
    -DGDN_BUILD_BENCH=ON >/dev/null
cmake --build "$build" --target gdn_bench -j 2 >"$build/build.log" 2>&1 ||
    { tail -n 60 "$build/build.log"; exit 1; }

# which tables: --batch only / --batch 0 among the arguments decide whether the issue-11
# batch table runs (unpinned, after the pinned ones: it times 1 and 2 threads)
batch_table=1
pinned_only=0
prev=
for a in "$@"; do
    if [[ $prev == --batch ]]; then
        [[ $a == only ]] && pinned_only=2
        [[ $a == 0 ]] && batch_table=0
    elif [[ $a == only ]]; then
        batch_table=0 # another table alone
    fi
    prev=$a
done

# the tables: one process, pinned to one core (fall back to unpinned if that core is absent)
if [[ $pinned_only != 2 ]]; then
    if taskset -c "$core" true 2>/dev/null; then
        taskset -c "$core" "$build/bench/gdn_bench" "$@" --batch 0
    else
        echo "(core $core unavailable: not pinned)"
        "$build/bench/gdn_bench" "$@" --batch 0
    fi
fi

# the batch table (threads: not pinned) and the Python rows: gradyn.step in a Python loop vs
# the C loop, gradyn.rollout vs the C loop, batches on 1 and 2 threads (python/bench/)
if [[ $batch_table == 1 ]]; then
    "$build/bench/gdn_bench" "$@" --batch only
    py=/usr/bin/python3
    if [[ ${GDN_SKIP_PYTHON:-0} != 1 ]] && "$py" -c 'import numpy' 2>/dev/null &&
        cmake --build "$build" --target gradyn_python -j 2 >>"$build/build.log" 2>&1; then
        echo
        echo "### Python rows (python/bench/, best of 5; MuJoCo's humanoid)"
        echo
        PYTHONPATH="$build/python" "$py" "$root/python/bench/step_overhead.py" \
            /usr/share/mujoco/model/humanoid/humanoid.xml 2000
        PYTHONPATH="$build/python" "$py" "$root/python/bench/batch_bench.py"
    else
        echo "(Python rows skipped: GDN_SKIP_PYTHON=1, no numpy for $py, or the module did not build)"
    fi
fi

# instruction counts
if [[ ${GDN_SKIP_CALLGRIND:-0} != 1 ]]; then
    echo
    "$root/bench/callgrind.sh"
fi
