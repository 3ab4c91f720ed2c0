#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The main job: install what is missing, build in Release, simulate the humanoid-like test model
# (or MuJoCo's humanoid.xml) and print steps/s, energy drift and the final pose of the root.
#
# Usage: scripts/demo.sh [MODEL.xml] [STEPS]. Environment: GDN_BUILD_DIR (default
# <repo>/build-release), GDN_JOBS (default: number of cores, at most 2).
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
cmake --build "$build" --target gradyn_demo -j "$jobs" >"$build/build.log" 2>&1 ||
    { tail -n 60 "$build/build.log"; exit 1; }

# the run
echo "gradyn demo: $steps steps of $(basename "$model"), no contacts, controls zero"
"$build/examples/gradyn_demo" "$model" "$steps"
