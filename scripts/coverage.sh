#!/usr/bin/env bash
# The whole test suite with line coverage: runs the README's `swift test` with
# `--enable-code-coverage`, in a build folder of its own (.build/coverage, so the instrumented
# build leaves the usual one alone; under .ci/run, the run's one build: scripts/lib/swift-flags.sh),
# prints the test run's summary,
# merges the profiles (the test process's, the `auditctl` processes' it ran, and those of the runs
# as another user, written to /tmp), and prints the total of the toolchain's `llvm-cov report`
# over Sources/ (the benchmark and the build plugin left out). Fails when the tests fail or the
# figure falls under FLOOR percent. .ci/run's test stage is this script.
#
#   scripts/coverage.sh [FLOOR]     (default 93.5)
set -euo pipefail
cd "$(dirname "$0")/.."
floor=${1:-93.5}
source scripts/lib/swift-flags.sh
[ "${#swift_flags[@]}" -gt 0 ] || swift_flags=(--scratch-path .build/coverage)
bin="$(dirname "$(readlink -f "$(command -v swift)")")"
rm -f /tmp/auditctl-unprivileged-*.profraw
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# On failure, every failing test's issue lines first (swift-testing's ✘ and "recorded an issue"
# lines, not those of a known issue; XCTest's and the compiler's ": error: " lines; not the lines
# that start a test, whose arguments may say "error"), then the log's end.
failed() {
    grep -aE '✘|recorded an issue|: error: ' "$log" | grep -avE 'recorded a known issue|passed after|started\.$' >&2 || true
    echo "coverage: the end of the test log:" >&2
    tail -40 "$log" >&2
    echo "coverage: the tests failed" >&2
    exit 1
}
swift test --enable-code-coverage "${swift_flags[@]}" >"$log" 2>&1 || failed
# The two runs' summaries: XCTest's tests, then Swift Testing's.
grep -a -E "^[[:space:]]*Executed [0-9]+ tests?" "$log" | tail -1 | sed 's/^[[:space:]]*/coverage: XCTest: /'
grep -a -E "Test run with [0-9]+ tests?" "$log" | tail -1 | sed 's/^[^T]*/coverage: Swift Testing: /'
debug="$(swift build --enable-code-coverage "${swift_flags[@]}" --show-bin-path)"
profiles=("$debug"/codecov/*.profraw)
for file in /tmp/auditctl-unprivileged-*.profraw; do [ -e "$file" ] && profiles+=("$file"); done
"$bin/llvm-profdata" merge -sparse "${profiles[@]}" -o "$debug/codecov/merged.profdata"
total=$("$bin/llvm-cov" report "$debug/auditctlPackageTests.xctest" -object "$debug/auditctl" \
    -object "$debug/my-auditctl" -instr-profile "$debug/codecov/merged.profdata" \
    -ignore-filename-regex='(/Tests/|/\.build/|/Examples/|/Sources/auditbench/|/Sources/EmbedFiles/|/Plugins/)' |
    awk '$1 == "TOTAL" { print $10 }')
rm -f /tmp/auditctl-unprivileged-*.profraw
echo "coverage: ${total} of the lines of Sources/ (floor ${floor}%)"
awk -v total="${total%\%}" -v floor="$floor" 'BEGIN { exit !(total + 0 >= floor + 0) }' || {
    echo "coverage: ${total} is under the floor of ${floor}%" >&2
    exit 1
}
