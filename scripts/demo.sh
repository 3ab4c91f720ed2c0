#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The main job: install what is missing, build in Release, then
#   1. the adjoint demo (examples/adjoint_demo.c): trajectory optimization of arm7's controls and
#      system identification of a double pendulum link's mass and COM by L-BFGS on gradients from
#      one backward pass per iteration; loss per iteration, gradient vs rollout timing, an SVG plot;
#   2. the simulator: the humanoid-like test model (or MuJoCo's humanoid.xml), steps/s, energy
#      drift and the final pose of the root.
#
# Usage: scripts/demo.sh [MODEL.xml] [STEPS] (the simulated model). Environment: GDN_BUILD_DIR
# (default <repo>/build-release), GDN_JOBS (default: number of cores, at most 2), GDN_DEMO_SVG
# (default <build>/adjoint_demo.svg).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GDN_BUILD_DIR:-$root/build-release}
cores=$(nproc 2>/dev/null || echo 2)
jobs=${GDN_JOBS:-$((cores < 2 ? cores : 2))}

"$root/scripts/deps.sh"

# the model: ours if present, else MuJoCo's sample humanoid
model=${1:-$root/tests/models/humanoid32.xml}
if [[ $# -lt 1 && ! -f $model ]]; then
    model=/usr/share/mujoco/model/humanoid/humanoid.xml
fi
steps=${2:-5000}

# Release build of the library and the demo program (tests and bench are not needed)
mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DGDN_BUILD_TESTS=OFF \
    -DGDN_BUILD_BENCH=OFF >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" --target gradyn_adjoint_demo gradyn_demo -j "$jobs" >"$build/build.log" \
    2>&1 || { tail -n 60 "$build/build.log"; exit 1; }

# 1. the adjoint
svg=${GDN_DEMO_SVG:-$build/adjoint_demo.svg}
echo "== gradyn adjoint demo: gradients of whole rollouts, one backward pass per iteration"
"$build/examples/gradyn_adjoint_demo" --svg "$svg" --models "$root/tests/models"

# 2. the simulator
echo
echo "== gradyn simulator: $steps steps of $(basename "$model"), no contacts, controls zero"
"$build/examples/gradyn_demo" "$model" "$steps"
