#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Instructions per call for every bench row and engine (the issue-3 derivative kernels
# included: adjoint rollouts and gradients, transition Jacobians vs mjd_transitionFD; and the
# issue-9 constrained kernels on humanoid_floor, cnstr_arm_motor, arm7_contact: constrained
# adjoint rollouts and gradients, A, B vs mjd_transitionFD with contacts, gdn_step_vjp, the step
# from the same states; e.g. GDN_CALLGRIND_FILTER='humanoid_floor|cnstr_arm_motor|arm7_contact'),
# counted by callgrind: run
# `gdn_bench --count MODEL/ROW/ENGINE N` for N = 0 and N = 1000 and divide the difference of the
# total instruction counts by 1000 (loading and setup cancel). Prints a markdown table.
#
# The bench is built without AVX-512 (valgrind 3.19 cannot decode it) in its own directory.
# Environment: GDN_CALLGRIND_BUILD_DIR (default <repo>/build-bench-callgrind),
# GDN_CALLGRIND_CALLS (default 1000; GDN_CALLGRIND_DERIV_CALLS, default 10, for the whole-rollout
# and Jacobian kernels), GDN_CALLGRIND_FILTER (grep -E on the names, default all).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GDN_CALLGRIND_BUILD_DIR:-$root/build-bench-callgrind}
calls=${GDN_CALLGRIND_CALLS:-1000}
deriv_calls=${GDN_CALLGRIND_DERIV_CALLS:-10}
filter=${GDN_CALLGRIND_FILTER:-.}

command -v valgrind >/dev/null || "$root/scripts/deps.sh"

# Release, x86-64 baseline plus no AVX-512 even if a -march is added later
mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DGDN_BUILD_TESTS=OFF \
    -DGDN_BUILD_BENCH=ON -DCMAKE_C_FLAGS="-mno-avx512f" >/dev/null
cmake --build "$build" --target gdn_bench -j 2 >"$build/build.log" 2>&1 ||
    { tail -n 60 "$build/build.log"; exit 1; }
bench=$build/bench/gdn_bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# total instructions (Ir) of one run of the bench in --count mode. The N=0 run is counted per row:
# the setup depends on the row (a derivative row builds its tape, states and controls), so a
# model's first row cannot stand for the others
instructions() {
    valgrind --tool=callgrind --callgrind-out-file="$tmp/out" "$bench" --count "$1" "$2" \
        >/dev/null 2>"$tmp/log" || { cat "$tmp/log" >&2; return 1; }
    awk '/^summary:/ { print $2 }' "$tmp/out"
}

echo "instructions per call (callgrind, difference of N=$calls (derivative kernels: N=$deriv_calls) and N=0 calls, Release)"
echo
echo "| model | row | gradyn Ir | MuJoCo Ir | gradyn/MuJoCo |"
echo "|---|---|---:|---:|---:|"
"$bench" --list >"$tmp/list"
grep -E "$filter" "$tmp/list" | sed 's|/[^/]*$||' | uniq | while read -r name; do
    per_call=()
    for engine in gradyn mujoco; do
        # derivative kernels without a counterpart in the other engine (e.g. the rollouts)
        if ! grep -qx "$name/$engine" "$tmp/list"; then
            per_call+=("-")
            continue
        fi
        base=$(instructions "$name/$engine" 0 || echo failed)
        n=$calls
        case ${name#*/} in rollout* | grad_* | jacobians*) n=$deriv_calls ;; esac
        if [[ $base != failed ]] && total=$(instructions "$name/$engine" "$n"); then
            per_call+=("$(( (total - base) / n ))")
        else
            per_call+=("failed")
        fi
    done
    ratio=$(awk -v g="${per_call[0]}" -v m="${per_call[1]}" \
        'BEGIN { if (g + 0 > 0 && m + 0 > 0) printf "%.2f", g / m; else print "-" }')
    echo "| ${name%%/*} | ${name#*/} | ${per_call[0]} | ${per_call[1]} | $ratio |"
done
