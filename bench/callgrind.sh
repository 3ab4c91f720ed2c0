#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Instructions per call for every bench row and engine (the issue-3 derivative kernels
# included: adjoint rollouts and gradients, transition Jacobians vs mjd_transitionFD; and the
# issue-9 constrained kernels on humanoid_floor, cnstr_arm_motor, arm7_contact: constrained
# adjoint rollouts and gradients, A, B vs mjd_transitionFD with contacts, gdn_step_vjp, the step
# from the same states; e.g. GDN_CALLGRIND_FILTER='humanoid_floor|cnstr_arm_motor|arm7_contact';
# and the issue-10 Kamino rows kamino_*/kamino_step: gdn_kamino_step vs mj_step over the timed
# window of the Kamino table, GDN_CALLGRIND_FILTER='^kamino_'), counted by callgrind: run
# `gdn_bench --count MODEL/ROW/ENGINE N` for N = 0 and N = 1000 and divide the difference of the
# total instruction counts by 1000 (loading and setup cancel). Prints a markdown table.
# Then the cost split of the Kamino step per scene: callgrind_annotate's inclusive counts per
# function (N = window minus N = 0, per step) as shares of gdn_kamino_step.
#
# The bench is built without AVX-512 (valgrind 3.19 cannot decode it) in its own directory.
# Environment: GDN_CALLGRIND_BUILD_DIR (default <repo>/build-bench-callgrind),
# GDN_CALLGRIND_CALLS (default 1000; GDN_CALLGRIND_DERIV_CALLS, default 10, for the whole-rollout
# and Jacobian kernels; GDN_CALLGRIND_KAMINO_STEPS, default 500 = gdn_bench's --kamino-steps, for
# the Kamino rows), GDN_CALLGRIND_FILTER (grep -E on the names, default all).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GDN_CALLGRIND_BUILD_DIR:-$root/build-bench-callgrind}
calls=${GDN_CALLGRIND_CALLS:-1000}
deriv_calls=${GDN_CALLGRIND_DERIV_CALLS:-10}
kamino_steps=${GDN_CALLGRIND_KAMINO_STEPS:-500}
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

echo "instructions per call (callgrind, difference of N=$calls (derivative kernels: N=$deriv_calls; Kamino steps: N=$kamino_steps from t = 0.2 s) and N=0 calls, Release)"
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
        case ${name#*/} in
            rollout* | grad_* | jacobians*) n=$deriv_calls ;;
            kamino_step) n=$kamino_steps ;;
        esac
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

# ---------------------------------------------------------------- the Kamino cost split
# One callgrind run's inclusive Ir per function and per caller -> function pair, from
# callgrind_annotate's caller tree: "NAME COUNT" and "CALLER>NAME COUNT" lines. Names lose their
# file, binary and GCC clone suffixes (.constprop.0, .isra.0, .part.0, .cold): the unsuffixed
# function when callgrind saw it, else the sum of its clones
function_counts() {
    callgrind_annotate --inclusive=yes --tree=caller --threshold=100 "$1" | awk '
        function fname(s, base) {
            sub(/ \[[^]]*\]$/, "", s); sub(/ \([0-9,]+x\)$/, "", s); sub(/^[^:]*:/, "", s)
            sub(/^ +/, "", s); gsub(/ /, "_", s)
            return s
        }
        function base(s) { sub(/\..*$/, "", s); return s }
        match($0, /^ *[0-9,]+ \( *[0-9.]+%\)  [<*] /) {
            cnt = $1; gsub(/,/, "", cnt)
            kind = substr($0, RLENGTH - 1, 1)
            f = fname(substr($0, RLENGTH + 1))
            if (kind == "<") { np++; caller[np] = base(f); ccnt[np] = cnt; next }
            b = base(f)
            if (b == f) { exact[b] += cnt } else { clone[b] += cnt }
            for (i = 1; i <= np; i++) { via[caller[i] ">" b] += ccnt[i] }
            np = 0
        }
        END {
            for (f in exact) print f, exact[f]
            for (f in clone) if (!(f in exact)) print f, clone[f]
            for (k in via) print k, via[k]
        }'
}

# the window of a scene's Kamino step counted at N = 0 and N = kamino_steps: per-step Ir of each
# name (or caller>name) in "$tmp/split.<model>" ("absent" when callgrind saw no call of it)
kamino_split() {
    local model=$1 n
    for n in 0 "$kamino_steps"; do
        valgrind --tool=callgrind --callgrind-out-file="$tmp/out.$n" "$bench" --count \
            "$model/kamino_step/gradyn" "$n" >/dev/null 2>"$tmp/log" ||
            { cat "$tmp/log" >&2; return 1; }
        function_counts "$tmp/out.$n" >"$tmp/counts.$n"
    done
    awk -v n="$kamino_steps" 'NR == FNR { base[$1] = $2; next } { print $1, ($2 - base[$1]) / n }' \
        "$tmp/counts.0" "$tmp/counts.$kamino_steps" >"$tmp/split.$model"
}

# Ir per step of a name in a scene's split, or "absent"
per_step() {
    awk -v f="$2" '$1 == f { printf "%.0f", $2; found = 1 } END { if (!found) printf "absent" }' \
        "$tmp/split.$1"
}

kamino_models=$(grep -E "$filter" "$tmp/list" | grep '/kamino_step/gradyn$' | sed 's|/.*||' || true)
if [[ -n $kamino_models ]]; then
    echo
    echo "Kamino step cost split (callgrind inclusive Ir per step over the window of $kamino_steps steps from t = 0.2 s, N=$kamino_steps minus N=0; share of gdn_kamino_step)"
    echo
    header="| part | function |"
    rule="|---|---|"
    for model in $kamino_models; do
        kamino_split "$model" || echo "(callgrind failed on $model)" >&2
        header+=" ${model#kamino_} |"
        rule+="---:|"
    done
    echo "$header"
    echo "$rule"
    # one table row: a label, the function column, and per scene "Ir (share)" of an expression
    # over per-step counts (names, "a-b": a minus b, "a+b": their sum; absent terms count 0,
    # all absent or an absent @name: "absent")
    row() {
        local label=$1 shown=$2 expr=$3 line model
        line="| $label | $shown |"
        for model in $kamino_models; do
            [[ -f $tmp/split.$model ]] || { line+=" failed |"; continue; }
            line+=" $(awk -v expr="$expr" '
                { v[$1] = $2 }
                END {
                    total = v["gdn_kamino_step"]; any = 0; sum = 0
                    n = split(expr, t, /[-+]/); pos = 1
                    for (i = 1; i <= n; i++) {
                        sign = (i == 1 || substr(expr, pos - 1, 1) == "+") ? 1 : -1
                        pos += length(t[i]) + 1
                        need = sub(/^@/, "", t[i])
                        if (need && !(t[i] in v)) { printf "absent"; exit }
                        if (t[i] in v) { any = 1; sum += sign * v[t[i]] }
                    }
                    if (!any) { printf "absent"; exit }
                    if (total > 0) printf "%.0f (%.1f%%)", sum, 100 * sum / total
                    else printf "%.0f", sum
                }' "$tmp/split.$model") |"
        done
        echo "$line"
    }
    # the parts are call edges out of the step (step_world, or gdn_kamino_step when the compiler
    # inlines it), so a function the projection calls too (body frames, joint rows, the dual
    # problem) is counted where it is called; the factorization is the Cholesky calls made by
    # PADMM's functions (whichever of its static helpers callgrind sees)
    edge() {  # edge CALLEE [OP]: the step's calls of CALLEE, joined by OP (+ or -)
        local op=${2:-+}
        echo "step_world>$1${op}gdn_kamino_step>$1"
    }
    chol=""
    for c in gdn_kamino_padmm_solve factorize refactor_unilateral schur_unilateral; do
        for f in gdn_chol_factor gdn_chol_factor_env gdn_chol_factor_trailing; do
            chol+=${chol:++}$c\>$f
        done
    done
    parts=(gdn_kamino_body_frames_update gdn_kamino_joint_rows_update gdn_collision_stage
           gdn_kamino_free_velocity
           gdn_kamino_assemble gdn_kamino_padmm_solve gdn_kamino_integrate gdn_kamino_project
           gdn_kamino_recover_joints)
    assembly=""
    for f in "${parts[@]:0:5}"; do assembly+=${assembly:++}$(edge "$f"); done
    rest=gdn_kamino_step
    for f in "${parts[@]}"; do rest+=-$(edge "$f" -); done
    row "whole step" "gdn_kamino_step" "gdn_kamino_step"
    row "assembly: body frames" \
        "gdn_kamino_body_frames_update (start and end of the step; absent when both are cached)" \
        "$(edge gdn_kamino_body_frames_update)"
    row "assembly: joint rows" \
        "gdn_kamino_joint_rows_update (the projection's last check makes them for the next step)" \
        "$(edge gdn_kamino_joint_rows_update)"
    row "assembly: contacts" "gdn_collision_stage" "$(edge gdn_collision_stage)"
    row "assembly: free velocity" "gdn_kamino_free_velocity" "$(edge gdn_kamino_free_velocity)"
    row "assembly: dual problem" "gdn_kamino_assemble (M^-1 J', D, v_f)" \
        "$(edge gdn_kamino_assemble)"
    row "assembly (sum)" "the five above" "$assembly"
    row "PADMM" "gdn_kamino_padmm_solve" "$(edge gdn_kamino_padmm_solve)"
    row "factorization" "gdn_chol_factor, _env, _trailing called by PADMM" "$chol"
    row "iterations" "PADMM minus its Cholesky calls (iterations, preconditioner, scaling)" \
        "$(edge gdn_kamino_padmm_solve)-${chol//+/-}"
    row "factorization + setup" \
        "factorize + refactor_unilateral (padmm.c, static: scaling, factor, Schur; absent if inlined)" \
        "@factorize+refactor_unilateral"
    row "iterations alone" "PADMM minus those" \
        "$(edge gdn_kamino_padmm_solve)-@factorize-refactor_unilateral"
    row "integration" "gdn_kamino_integrate" "$(edge gdn_kamino_integrate)"
    row "projection" "gdn_kamino_project (residuals, chord solves, the next step's joint rows)" \
        "$(edge gdn_kamino_project)"
    row "joint recovery" "gdn_kamino_recover_joints" "$(edge gdn_kamino_recover_joints)"
    row "rest" "limits, contact rows, wrenches, warm start, outputs (inlined in the step)" "$rest"
    echo
    echo "absent: callgrind saw no such call in the step (not called, e.g. the projection when off, or inlined by the compiler)"
fi
