#!/usr/bin/env bash
# Usage: scripts/kill-harness.sh [--kills N] [--steps S] [--seed X] [--window-ms W] [--enforce-window] [--ci]
#                                [--build-only]
#
# Crash safety, the long form of ReliabilityTests: records a generated checkout-like scenario
# (50,000 steps by default) in a child process and kills it with SIGKILL at N random moments (20 by
# default). After each kill it checks PRAGMA integrity_check, that the session reads as interrupted
# and the next open for writing marks it, that seq has no holes and matches an unkilled reference
# run, and how many events were lost and how old the oldest of them was, against the durability
# window (the ReliabilityAndSecurity article: 50 ms + one batch, --window-ms, 250 by default; under overload, at most twice the
# queue's capacity of events). Prints the figures: kills survived out of N, most events lost in one
# kill. Exits 0 when every kill survived; with --enforce-window, also only when every kill kept
# within the window.
#
# --ci is the short form .ci/run uses: 3 kills of a 20,000-step scenario. Nothing in it depends on
# timing: the window is reported, never enforced. So it runs a debug build (-Onone, as the tests'
# auditctl is), which compiles in a fifth of the time and runs a few seconds longer; the long form
# measures the window, so it runs optimized (-O), as a release auditctl would. --build-only builds
# the harness (of the form asked for) and stops.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
arguments=()
binary="$root/.build/reliability/kill-harness"
optimization=-O
build_only=false
for argument in "$@"; do
    if [ "$argument" = "--build-only" ]; then
        build_only=true
    elif [ "$argument" = "--ci" ]; then
        arguments+=(--kills 3 --steps 20000)
        binary="$root/.build/reliability/kill-harness-debug"
        optimization=-Onone
    else
        arguments+=("$argument")
    fi
done
"$root/scripts/lib/build-with-core.sh" "$binary" "$root/scripts/reliability/KillHarness.swift" "$optimization"
if "$build_only"; then exit 0; fi
exec "$binary" "${arguments[@]}"
