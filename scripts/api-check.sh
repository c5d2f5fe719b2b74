#!/usr/bin/env bash
# Checks the public API of the library products (AuditCore with the layers it re-exports, AuditCLI,
# AuditTesting, AuditExamples)
# against a baseline with the toolchain's API digester (`swift package
# diagnose-api-breaking-changes`): the newest release tag, or the previous commit when the
# repository has no tag yet, or the revision given.
#
#   scripts/api-check.sh [REVISION]
#
# Exit status: 0 no breaking change; 1 breaking changes, listed (a change that is meant must come
# with a major version, or a minor one before 1.0: see the Development article); 2 bad setup (a
# revision given that does not exist); 77 skipped, with the reason on stderr, when no revision is
# given and the clone has no baseline (no tag, and no previous commit in a shallow clone).
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-$(git describe --tags --abbrev=0 2>/dev/null || echo HEAD~1)}
if ! git rev-parse --verify --quiet "$base^{commit}" >/dev/null; then
    if [ $# -gt 0 ]; then echo "api-check: no revision '$base'" >&2; exit 2; fi
    echo "api-check: skipped: no baseline revision '$base' in this clone (shallow?)" >&2
    exit 77
fi
echo "api-check: the public API against $base"
exec swift package diagnose-api-breaking-changes "$base" \
    --products AuditCore AuditCLI AuditTesting AuditExamples
