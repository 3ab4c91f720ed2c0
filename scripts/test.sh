#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The test command: install what is missing, build the suite three times (RelWithDebInfo -O2,
# Debug -O0, ASan+UBSan), warnings as errors, run ctest in each, end with "N passed, N failed".
#
# Environment: GDN_BUILD_PREFIX (default <repo>/build-test; build dirs get -rel, -debug, -asan),
# GDN_JOBS (default: number of cores, at most 2), GDN_TEST_CONFIGS (default "rel debug asan").
set -uo pipefail

usage() {
    cat <<'USAGE'
usage: scripts/test.sh
       scripts/test.sh --help

Installs the Debian packages gradyn needs (scripts/deps.sh), then for each configuration
(rel: RelWithDebInfo -O2, debug: Debug -O0, asan: AddressSanitizer + UBSan) configures and
builds the whole suite with warnings as errors (printing the build's progress), runs ctest and
sums the per-test "N passed, N failed" lines; ends with the total "N passed, N failed" and
exit code 0 only when every configuration built and passed.

Environment: GDN_BUILD_PREFIX (default <repo>/build-test; build dirs get -rel, -debug,
-asan), GDN_JOBS (default: the number of cores, at most 2), GDN_TEST_CONFIGS (default
"rel debug asan").
USAGE
}
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
    usage
    exit 0
fi
if [[ $# -gt 0 ]]; then
    echo "test.sh: unexpected argument '$1' (see scripts/test.sh --help)" >&2
    exit 2
fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/build_progress.sh
source "$root/scripts/build_progress.sh"
prefix=${GDN_BUILD_PREFIX:-$root/build-test}
cores=$(nproc 2>/dev/null || echo 2)
jobs=${GDN_JOBS:-$((cores < 2 ? cores : 2))}
configs=${GDN_TEST_CONFIGS:-rel debug asan}

"$root/scripts/deps.sh" || { echo "test.sh: installing dependencies failed" >&2; exit 2; }

# cmake arguments of one configuration
config_args() {
    case $1 in
        rel) echo "-DCMAKE_BUILD_TYPE=RelWithDebInfo -DGDN_SANITIZE=OFF" ;;
        debug) echo "-DCMAKE_BUILD_TYPE=Debug -DGDN_SANITIZE=OFF" ;;
        asan) echo "-DCMAKE_BUILD_TYPE=RelWithDebInfo -DGDN_SANITIZE=ON" ;;
        *) return 1 ;;
    esac
}

# sum the per-binary "N passed, N failed" lines of a ctest log; a failed test that printed no
# failing count (a crash, a sanitizer abort, a timeout) counts as one failure
count_log() {
    awk '
        /^[0-9]+\/[0-9]+ Test: / { have = 0; p = 0; f = 0; next }
        /^[0-9]+ passed, [0-9]+ failed$/ { have = 1; p = $1; f = $3; next }
        /^Test Passed\./ { P += p; F += f; next }
        /^Test Failed\./ { P += p; F += (have && f > 0) ? f : f + 1; next }
        END { printf "%d %d\n", P, F }
    ' "$1"
}

total_passed=0
total_failed=0
status=0
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
for config in $configs; do
    dir=$prefix-$config
    args=$(config_args "$config") || { echo "test.sh: unknown config $config" >&2; exit 2; }
    echo "== $config: configure and build in $dir"
    mkdir -p "$dir"
    # shellcheck disable=SC2086
    if ! cmake -S "$root" -B "$dir" $args -DGDN_WARNINGS_AS_ERRORS=ON >"$dir/configure.log" 2>&1
    then
        cat "$dir/configure.log"
        echo "== $config: CONFIGURE FAILED"
        status=1
        continue
    fi
    if ! gdn_build "$dir/build.log" "$config" "$dir" -j "$jobs"; then
        grep -E -B2 -A6 'error|warning' "$dir/build.log" | head -n 120
        echo "== $config: BUILD FAILED (full log: $dir/build.log)"
        status=1
        continue
    fi
    echo "== $config: ctest"
    (cd "$dir" && ctest --output-on-failure -j "$jobs" --timeout 900)
    ctest_status=$?
    log=$dir/Testing/Temporary/LastTest.log
    read -r passed failed < <(count_log "$log")
    echo "== $config: $passed checks passed, $failed failed (ctest exit $ctest_status)"
    total_passed=$((total_passed + passed))
    total_failed=$((total_failed + failed))
    if [[ $ctest_status -ne 0 || $failed -ne 0 ]]; then
        status=1
    fi
done

echo "$total_passed passed, $total_failed failed"
exit $status
