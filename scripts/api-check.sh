#!/usr/bin/env bash
# Checks the public API of the library products (each module of AuditCore, AuditCLI, AuditTesting
# and AuditExamples, as `swift package describe` lists them) with the toolchain's API digester.
#
#   scripts/api-check.sh            the built modules against the baseline committed in api/
#   scripts/api-check.sh --update   writes the built modules' API into api/ (a change that is meant)
#   scripts/api-check.sh REVISION   the API against a revision's, both built here
#                                   (`swift package diagnose-api-breaking-changes REVISION`)
#
# The baseline is the API as last accepted: one digester dump per module, api/<module>.json. The
# check fails on a breaking change (listed, file and line) and on any other difference from the
# baseline, such as a new public declaration: every change of the public API is then recorded in the
# commit that makes it, where a review sees it. A change that is meant is recorded with --update;
# one that breaks must come with a new major version (before 1.0, a minor one): see the Development
# article. The modules are those of the current build (AUDITCTL_BUILD_FLAGS, scripts/lib/
# swift-flags.sh), built first when they are not.
#
# Exit status: 0 the API is the baseline's; 1 a breaking change or an unrecorded one, listed; 2 bad
# setup (a revision that does not exist, a baseline missing for a module).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/swift-flags.sh

if [ $# -gt 0 ] && [ "$1" != "--update" ]; then
    if ! git rev-parse --verify --quiet "$1^{commit}" >/dev/null; then
        echo "api-check: no revision '$1'" >&2
        exit 2
    fi
    echo "api-check: the public API against $1"
    exec swift package diagnose-api-breaking-changes "$1" \
        --products AuditCore AuditCLI AuditTesting AuditExamples
fi

modules=$(swift package describe --type json | jq -r '.products[] | select(.type.library != null) | .targets[]' | sort -u)
swift build "${swift_flags[@]}" >/dev/null
search=(-I "$(swift build "${swift_flags[@]}" --show-bin-path)/Modules" -I Sources/CSQLite)
dumps=$(mktemp -d)
trap 'rm -rf "$dumps"' EXIT

status=0
for module in $modules; do
    swift-api-digester -dump-sdk -module "$module" "${search[@]}" -o "$dumps/$module.json" \
        -avoid-tool-args -abort-on-module-fail
    if [ "${1:-}" = "--update" ]; then
        mkdir -p api
        cp "$dumps/$module.json" "api/$module.json"
        continue
    fi
    if [ ! -f "api/$module.json" ]; then
        echo "api-check: no baseline for $module: run scripts/api-check.sh --update and commit api/$module.json" >&2
        exit 2
    fi
    # A break is an error diagnostic, with the declaration's file and line; the digester then exits 1.
    if ! swift-api-digester -diagnose-sdk -baseline-path "api/$module.json" -module "$module" "${search[@]}" \
        -compiler-style-diags -abort-on-module-fail; then
        echo "api-check: $module breaks its public API (above)" >&2
        status=1
    elif ! cmp -s "$dumps/$module.json" "api/$module.json"; then
        echo "api-check: $module's public API changed without breaking; if that is meant, run scripts/api-check.sh --update and commit api/" >&2
        # What the baseline lacks: the baseline read as the build, against the build as baseline.
        swift-api-digester -diagnose-sdk -input-paths "$dumps/$module.json" -input-paths "api/$module.json" 2>&1 |
            grep -v '^/\*\|^$' | sed 's/ has been removed$/ is new/; s/^/  /' >&2 || true
        status=1
    fi
done
if [ "${1:-}" = "--update" ]; then
    echo "api-check: the baseline in api/ is now the built API of:" $modules
elif [ "$status" -eq 0 ]; then
    echo "api-check: the public API of" $modules "is the baseline's (api/)"
fi
exit "$status"
