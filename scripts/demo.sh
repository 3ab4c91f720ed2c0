#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The main job: install what is missing, build in Release (the library, the demo programs and
# the gradyn command line), then
#   1. the adjoint demo (examples/adjoint_demo.c): trajectory optimization of arm7's controls and
#      system identification of a double pendulum link's mass and COM by L-BFGS on gradients from
#      one backward pass per iteration; loss per iteration, gradient vs rollout timing, an SVG plot;
#   1b. the contact demo (examples/contact_demo.c): the pusher controls that make a box slide to
#      a target and stop there by friction, L-BFGS on adjoint gradients through every contact
#      solve; loss per iteration, final distance, timing, SVGs of the loss and of the paths;
#   2. the simulator: the humanoid-like test model (or MuJoCo's humanoid.xml), steps/s, the
#      contacts and constraint solves the run had, energy drift and the final pose of the root;
#   3. where the gradyn program is, and a first command to try.
set -euo pipefail

usage() {
    cat <<'USAGE'
usage: scripts/demo.sh [MODEL.xml] [STEPS]
       scripts/demo.sh --help

Installs the Debian packages gradyn needs (scripts/deps.sh), builds the library, the demo
programs and the gradyn command line in Release, then runs the adjoint demo (trajectory
optimization and system identification by L-BFGS on exact gradients, with an SVG plot), the
contact demo (a pushed box slides to a target by friction: L-BFGS on exact gradients through
the contact solve, with SVG plots of the loss and of the box's and pusher's paths) and
the simulator demo on MODEL.xml (default tests/models/humanoid32.xml, else MuJoCo's
humanoid.xml) for STEPS steps (default 5000), with the model's own contacts, limits and
equalities. It ends by saying where the gradyn program was built.

Environment: GDN_BUILD_DIR (default <repo>/build-release), GDN_JOBS (default: the number of
cores, at most 2), GDN_DEMO_SVG (default <build>/adjoint_demo.svg; the contact demo writes
contact_demo_loss.svg and contact_demo_paths.svg in the same directory).
USAGE
}
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
    usage
    exit 0
fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GDN_BUILD_DIR:-$root/build-release}
cores=$(nproc 2>/dev/null || echo 2)
jobs=${GDN_JOBS:-$((cores < 2 ? cores : 2))}
# shellcheck source=scripts/build_progress.sh
source "$root/scripts/build_progress.sh"

"$root/scripts/deps.sh"

# the model: ours if present, else MuJoCo's sample humanoid
model=${1:-$root/tests/models/humanoid32.xml}
if [[ $# -lt 1 && ! -f $model ]]; then
    model=/usr/share/mujoco/model/humanoid/humanoid.xml
fi
steps=${2:-5000}

# Release build of the library, the demo programs and the command line (tests and bench are
# not needed)
echo "== build: Release in $build"
mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DGDN_BUILD_TESTS=OFF \
    -DGDN_BUILD_BENCH=OFF >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
gdn_build "$build/build.log" release "$build" --target gradyn_adjoint_demo gradyn_contact_demo \
    gradyn_demo gradyn \
    -j "$jobs" || { tail -n 60 "$build/build.log"; exit 1; }

# 1. the adjoint
svg=${GDN_DEMO_SVG:-$build/adjoint_demo.svg}
echo
echo "== gradyn adjoint demo: gradients of whole rollouts, one backward pass per iteration"
"$build/examples/gradyn_adjoint_demo" --svg "$svg" --models "$root/tests/models"

# 1b. the adjoint through contact
svgdir=$(dirname "$svg")
echo
echo "== gradyn contact demo: a pushed box slides to a target by friction, gradients through" \
    "every contact solve"
"$build/examples/gradyn_contact_demo" --svg "$svgdir/contact_demo_loss.svg" \
    --paths-svg "$svgdir/contact_demo_paths.svg" --model "$root/examples/models/push_box.xml"

# 2. the simulator: the model as written (its contacts, limits and equalities; the program's
# "contacts" line says how many the run had)
echo
echo "== gradyn simulator: $steps steps of $(basename "$model"), the model's own contacts and" \
    "constraints, controls zero"
"$build/examples/gradyn_demo" "$model" "$steps"

# 3. the command line
echo
echo "== gradyn command line: $build/gradyn"
echo "   try: $build/gradyn --help"
echo "        $build/gradyn simulate $root/tests/models/sol_stack.xml --steps 500 --format json"
