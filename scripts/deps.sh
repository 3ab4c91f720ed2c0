#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Install the Debian 12 packages gradyn needs (only those missing): compiler, CMake, expat,
# Qhull, MuJoCo 2.2.2 (test oracle and bench peer) with its sample models, cJSON, valgrind,
# npm and chromium (gradyn view's player and its browser test); for the Python module
# (python/): the interpreter's headers, numpy, pytest, venv; for gradyn.torch and
# gradyn.distributed: PyTorch, mpi4py with Open MPI, matplotlib (the example's plot).
set -euo pipefail

# the packages: build tools, the XML parser, convex hulls, the oracle, JSON for the CLI,
# callgrind for bench
packages=(build-essential cmake libexpat1-dev libqhull-dev libmujoco-dev libmujoco-samples
          libcjson-dev valgrind util-linux
          python3-dev python3-numpy python3-pytest python3-venv python3-setuptools
          python3-torch python3-mpi4py openmpi-bin python3-matplotlib)
if [[ $# -gt 0 ]]; then
    packages+=("$@")
fi
# gradyn view's player is bundled with npm at build time (three.js, esbuild; viewer/) and its
# page tested in headless Chromium: Debian's npm and chromium, unless the commands are there
# already (Node.js may come from elsewhere, whose npm would conflict with Debian's)
if ! command -v npm >/dev/null 2>&1; then
    packages+=(npm)
fi
if ! command -v chromium >/dev/null 2>&1; then
    packages+=(chromium)
fi

# which of them are not installed yet
missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$p")
    fi
done
if [[ ${#missing[@]} -eq 0 ]]; then
    exit 0
fi

# install them as root (directly, or through sudo when available)
echo "deps: installing ${missing[*]}" >&2
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
        sudo_cmd=(sudo)
    else
        echo "deps: missing packages (${missing[*]}) and not root: install them first" >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update
"${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
