#!/usr/bin/env bash
# The fast loop: every test but the suites tagged `.slow` (processes run many times, kill -9,
# full disks, memory and time at scale), about a minute on two cores. The README's `swift test`
# and CI run everything. Extra arguments go to `swift test` (`--skip-build`, `--filter X`).
#
#   scripts/test-fast.sh [SWIFT TEST OPTIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
# The suites tagged .slow, by type name (`swift test --skip` matches test identifiers, not tags);
# Tests/AuditCLITests/ReadmeSampleTests.swift checks this list against the tags in the sources.
slow='ConcurrentRecordingTests|FidelityPropertyTests|ShardTests|NestingLimitCLITests|FidelityPropertyCLITests|MutationCheckTests|HostileInputTests|TextGrowthTests|ReliabilityTests|CommandLineFaultTests|StreamedJSONTests|FaultTests|InvestigateAtScaleTests|ExploreTests|ConcurrencyTests|JSONTextTests|ExploreVerdictTests'
exec swift test --skip "$slow" "$@"
