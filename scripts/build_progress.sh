#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sourced by demo.sh and test.sh: a cmake build whose whole output goes to a log while its
# progress (cmake's "[ NN%] Built target ..." lines and a line every 20 compiled files) is printed.

# gdn_build LOG LABEL cmake-build-arguments...: 0 when the build succeeds
gdn_build() {
    local log=$1 label=$2
    shift 2
    echo "   $label: building (log: $log)"
    local status
    cmake --build "$@" 2>&1 | tee "$log" | awk -v label="$label" '
        /Building C object/ {
            n++
            if (n % 20 == 0) { printf "   %s: %d files compiled\n", label, n; fflush() }
        }
        /Built target/ {
            line = $0
            gsub(/\[ +/, "[", line)
            printf "   %s: %s\n", label, line
            fflush()
        }
    '
    status=${PIPESTATUS[0]}
    if [[ $status -eq 0 ]]; then
        echo "   $label: build done"
    fi
    return "$status"
}
