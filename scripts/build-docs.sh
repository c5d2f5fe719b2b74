#!/usr/bin/env bash
# Usage: scripts/build-docs.sh [OUTPUT]
#
# Builds the documentation catalogs — Sources/AuditCore/AuditCore.docc (the articles and the
# landing page) and Sources/AuditTesting/AuditTesting.docc — with `docc convert` into OUTPUT
# (default .build/docs, one folder per module), against the modules' symbol graphs (`swift build
# -Xswiftc -emit-symbol-graph`, in a build folder of its own so the usual build is not redone, or
# those in AUDITCTL_SYMBOL_GRAPHS when set), and
# fails on any warning: a broken symbol link, a parameter left undocumented, a missing article.
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

# Kept with the build folder: an incremental build writes the graphs of the modules it compiles
# again, and leaves the others as they are. .ci/run's one build writes them already
# (AUDITCTL_SYMBOL_GRAPHS names where): then nothing is built here.
symbols="${AUDITCTL_SYMBOL_GRAPHS:-$root/.build/docs-build/symbol-graphs}"
if [ -z "${AUDITCTL_SYMBOL_GRAPHS:-}" ]; then
    mkdir -p "$symbols"
    swift build --package-path "$root" --scratch-path "$root/.build/docs-build" --target AuditTesting \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$symbols" >/dev/null
fi

rm -rf "$output"
mkdir -p "$output"
log=$(mktemp)
graphs=$(mktemp -d)
trap 'rm -rf "$log" "$graphs"' EXIT
pages=0
for module in AuditCore AuditTesting; do
    # The module's own graph and its extensions of other modules; not those of its dependencies.
    rm -rf "${graphs:?}"/*
    cp "$symbols/$module".symbols.json "$symbols/$module"@*.symbols.json "$graphs/" 2>/dev/null || true
    status=0
    "$docc" convert "$root/Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$graphs" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.auditctl.$module" \
        --output-path "$output/$module" \
        --warnings-as-errors >"$log" 2>&1 || status=$?
    # --warnings-as-errors already fails on a warning; the log is checked too, so that a diagnostic
    # DocC prints without failing (a note raised to a warning in a later version) fails the build.
    if [ "$status" -ne 0 ] || grep -Eiq '(^|[^a-z])(warning|error):' "$log"; then
        cat "$log" >&2
        echo "build-docs: FAILED: docc reported the diagnostics above for $module" >&2
        exit 1
    fi
    pages=$((pages + $(find "$output/$module/data/documentation" -name '*.json' | wc -l)))
done
echo "build-docs: OK: $pages pages in ${output#"$root"/} (AuditCore, AuditTesting)"
