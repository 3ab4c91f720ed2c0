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
# window after 0.2 s, PADMM iterations and unconverged steps, loop closure), all in one process
# pinned to core 1, then the callgrind instruction counts and the Kamino step's cost split
# (assembly, factorization, iterations: callgrind inclusive counts per function).
# Extra arguments go to gdn_bench (e.g. --rows aba,aba_pre --batches 9 --deriv 0, or
# --contact only --contact-steps 2000, or --cnstr only, or --kamino only --kamino-steps 1000).
#
# Environment: GDN_BUILD_DIR (default <repo>/build-bench), GDN_BENCH_CORE (default 1),
# GDN_SKIP_CALLGRIND=1 to print the tables only, GDN_CALLGRIND_FILTER (see callgrind.sh).
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

# the table: one process, pinned to one core (fall back to unpinned if that core is absent)
if taskset -c "$core" true 2>/dev/null; then
    taskset -c "$core" "$build/bench/gdn_bench" "$@"
else
    echo "(core $core unavailable: not pinned)"
    "$build/bench/gdn_bench" "$@"
fi

# instruction counts
if [[ ${GDN_SKIP_CALLGRIND:-0} != 1 ]]; then
    echo
    "$root/bench/callgrind.sh"
fi
