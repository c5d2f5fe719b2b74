#!/usr/bin/env bash
# Checks the public API of the library products (AuditCore, AuditCLI, AuditTesting, AuditExamples)
# against a baseline with the toolchain's API digester (`swift package
# diagnose-api-breaking-changes`): the newest release tag, or the previous commit when the
# repository has no tag yet, or the revision given.
#
#   scripts/api-check.sh [REVISION]
#
# Exit status: 0 no breaking change; 1 breaking changes, listed (a change that is meant must come
# with a major version, or a minor one before 1.0: see the Development article); 2 bad setup.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-$(git describe --tags --abbrev=0 2>/dev/null || echo HEAD~1)}
git rev-parse --verify --quiet "$base^{commit}" >/dev/null || { echo "api-check: no revision '$base'" >&2; exit 2; }
echo "api-check: the public API against $base"
exec swift package diagnose-api-breaking-changes "$base" \
    --products AuditCore AuditCLI AuditTesting AuditExamples
