#!/usr/bin/env bash
# Usage: scripts/fuzz.sh [--ci] [--build-only | SECONDS [TARGET...]]
#
# Runs the libFuzzer targets of scripts/fuzz/Fuzz.swift for SECONDS each (60 by default): `scenario`
# (the scenario parser, then a dry run of what parses) and `query` (the read-only query guard on a
# recorded database, which must stay byte-identical). Built with swiftc -sanitize=fuzzer,address from
# AuditCore's sources. Each target's corpus grows in .build/fuzz/corpus-TARGET, starting from
# scripts/fuzz/seeds/TARGET; the last run's crashes, leaks and hangs are in .build/fuzz/findings/.
# Prints the executions per target and the findings, and exits 1 when there are any: each one
# becomes a regression test (Tests/AuditCoreTests/FuzzRegressionTests.swift).
#
# LeakSanitizer runs on the scenario target (it found a retain cycle there). It is off for the query
# target, where it reports the fixture's globals: Swift keeps spare bits in some pointers (Data's
# storage in an enum payload), which LeakSanitizer cannot follow.
#
# .ci/run runs `scripts/fuzz.sh --ci 10`: a bounded run whose only failure is a finding, of a debug
# build (-Onone, which compiles in a fraction of the time of -O and finds the same faults, at fewer
# executions a second). --build-only builds the fuzzers (of the form asked for) and stops.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
optimization=-O
binary="$root/.build/reliability/fuzz"
if [ "${1:-}" = "--ci" ]; then
    optimization=-Onone
    binary="$root/.build/reliability/fuzz-debug"
    shift
fi
build_only=false
if [ "${1:-}" = "--build-only" ]; then
    build_only=true
    shift
fi
seconds="${1:-60}"
shift || true
targets=("$@")
[ "${#targets[@]}" -gt 0 ] || targets=(scenario query)

"$root/scripts/lib/build-with-core.sh" "$binary" "$root/scripts/fuzz/Fuzz.swift" "$optimization" -g -sanitize=fuzzer,address \
    2> >(grep -v "ld.gold: warning: Cannot export local symbol" >&2)
if "$build_only"; then exit 0; fi

work="$root/.build/fuzz"
mkdir -p "$work/findings"
status=0
for target in "${targets[@]}"; do
    corpus="$work/corpus-$target"
    mkdir -p "$corpus"
    rm -f "$work/findings/$target-"*
    log="$work/$target.log"
    leaks=1
    [ "$target" = query ] && leaks=0
    # The Swift runtime's backtracer is slow and interactive on a crash; libFuzzer reports it anyway.
    if ! SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="detect_leaks=$leaks" FUZZ_TARGET="$target" "$binary" "$corpus" "$root/scripts/fuzz/seeds/$target" \
        -dict="$root/scripts/fuzz/$target.dict" -max_total_time="$seconds" -max_len=8192 -timeout=10 \
        -rss_limit_mb=4096 -detect_leaks="$leaks" -print_final_stats=1 -artifact_prefix="$work/findings/$target-" >"$log" 2>&1; then
        status=1
    fi
    executions="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
    findings="$(find "$work/findings" -name "$target-*" | wc -l | tr -d ' ')"
    echo "$target: ${executions:-0} executions in ${seconds} s, $findings findings, corpus of $(find "$corpus" -type f | wc -l | tr -d ' ') inputs"
    if [ "$findings" -gt 0 ]; then
        status=1
        find "$work/findings" -name "$target-*" | sed 's/^/  finding: /'
        grep -m1 -E "ERROR|Fatal error|==[0-9]+==" "$log" | sed 's/^/  /' || true
    fi
done
exit "$status"
