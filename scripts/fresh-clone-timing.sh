#!/usr/bin/env bash
# The README's two commands on fresh clones of two commits, taken in turn in the same hour, so
# that the figure is a ratio and not this machine's speed of the day: for each round and each
# commit, a clone of this repository at that commit, `swift run auditctl demo`, then the timed
# `swift test` (its build and its run apart). Prints a line per run, then the second commit's
# total over the first's, per round.
#
#   scripts/fresh-clone-timing.sh [--rounds N] BASE [COMMIT]    (COMMIT defaults to HEAD)
#
# Each run takes several minutes on two cores; nothing else should run meanwhile. The clones are
# made in a temporary folder and removed.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=1
if [ "${1:-}" = "--rounds" ]; then
    rounds=$2
    shift 2
fi
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: scripts/fresh-clone-timing.sh [--rounds N] BASE [COMMIT]" >&2
    exit 2
fi
repository=$PWD
base=$(git rev-parse --short "$1")
commit=$(git rev-parse --short "${2:-HEAD}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Prints "TOTAL BUILD RUN TESTS" for one fresh clone of $1: seconds, and the test run's summary.
measure() {
    local clone="$work/$1"
    rm -rf "$clone"
    git clone --quiet "$repository" "$clone"
    git -C "$clone" checkout --quiet "$1"
    (cd "$clone" && swift run auditctl demo >demo.log 2>&1) || echo "fresh-clone-timing: the demo failed at $1" >&2
    local start end
    start=$(date +%s.%N)
    (cd "$clone" && swift test >test.log 2>&1) || echo "fresh-clone-timing: swift test failed at $1 (see the counts)" >&2
    end=$(date +%s.%N)
    local built ran summary
    built=$(grep -a -o 'Build complete! ([0-9.]*s)' "$clone/test.log" | tail -1 | tr -dc '0-9.')
    ran=$(grep -a -o 'after [0-9.]* seconds' "$clone/test.log" | tail -1 | tr -dc '0-9.')
    summary=$(grep -a 'Test run with' "$clone/test.log" | tail -1 | sed 's/^[^T]*//')
    echo "$(echo "$end - $start" | bc) ${built:-?} ${ran:-?} $summary"
    rm -rf "$clone"
}

for round in $(seq 1 "$rounds"); do
    read -r base_total base_build base_run base_summary <<<"$(measure "$base")"
    echo "round $round  $base: swift test ${base_total} s (build ${base_build} s, run ${base_run} s) — ${base_summary}"
    read -r total build run summary <<<"$(measure "$commit")"
    echo "round $round  $commit: swift test ${total} s (build ${build} s, run ${run} s) — ${summary}"
    echo "round $round  $commit / $base: $(echo "scale=2; $total / $base_total" | bc)"
done
