#!/usr/bin/env bash
# Usage: scripts/build-docs.sh [OUTPUT]
#
# Builds the documentation catalog Sources/AuditCore/AuditCore.docc (the articles and the landing
# page) with `docc convert` into OUTPUT (default .build/docs), and fails on any warning.
#
# The catalog holds articles only. Its landing page is titled ``AuditCore``, which DocC resolves
# against a symbol graph; rather than extracting the module's whole API, the script gives DocC an
# empty symbol graph of the module, so the build documents the articles and nothing else.
#
# Exit status: 0 built without a warning, 1 a warning or an error, 2 bad setup (no docc).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
output="${1:-$root/.build/docs}"

docc=""
if command -v docc >/dev/null 2>&1; then
    docc=$(command -v docc)
elif command -v xcrun >/dev/null 2>&1 && xcrun --find docc >/dev/null 2>&1; then
    docc=$(xcrun --find docc)
elif [ -x "$(dirname "$(readlink -f "$(command -v swift)")")/docc" ]; then
    docc="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
fi
if [ -z "$docc" ]; then
    echo "build-docs: docc not found (it ships with the Swift toolchain)" >&2
    exit 2
fi

symbols="$root/.build/docs-symbol-graph"
rm -rf "$symbols"
mkdir -p "$symbols"
cat >"$symbols/AuditCore.symbols.json" <<'JSON'
{
  "metadata": { "formatVersion": { "major": 0, "minor": 6, "patch": 0 }, "generator": "scripts/build-docs.sh" },
  "module": { "name": "AuditCore", "platform": { "operatingSystem": { "name": "linux" } } },
  "symbols": [],
  "relationships": []
}
JSON

rm -rf "$output"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
"$docc" convert "$root/Sources/AuditCore/AuditCore.docc" \
    --additional-symbol-graph-dir "$symbols" \
    --fallback-display-name AuditCore \
    --fallback-bundle-identifier org.auditctl.AuditCore \
    --output-path "$output" \
    --warnings-as-errors >"$log" 2>&1 || status=$?
# --warnings-as-errors already fails on a warning; the log is checked too, so that a diagnostic
# DocC prints without failing (a note raised to a warning in a later version) fails the build.
if [ "$status" -ne 0 ] || grep -Eiq '(^|[^a-z])(warning|error):' "$log"; then
    cat "$log" >&2
    echo "build-docs: FAILED: docc reported the diagnostics above" >&2
    exit 1
fi
echo "build-docs: OK: $(find "$output/data/documentation" -name '*.json' | wc -l) pages in ${output#"$root"/}"
