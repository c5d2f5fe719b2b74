#!/usr/bin/env bash
# The sharded CI recipe, run locally: a small corpus of recordings replayed against a changed
# delegate by 4 shard jobs, each reading the corpus and writing a database of its own (as CI jobs on
# their own machines would), each writing JUnit; then the shards' databases merged into one. Checks that the shards
# together replayed exactly the sessions an unsharded `replay --all` replays, with the same verdicts,
# and that the merged database holds every recording once and every shard's candidates.
#
#   scripts/ci-shards.sh [SESSIONS]     (default 12)
set -euo pipefail
cd "$(dirname "$0")/.."
sessions=${1:-12}
shards=4

source scripts/lib/swift-flags.sh
swift build "${swift_flags[@]}" --product auditctl >/dev/null
auditctl="$(swift build "${swift_flags[@]}" --show-bin-path)/auditctl"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The corpus: the example recorded with labels, as testers' devices would.
for i in $(seq 1 "$sessions"); do
    "$auditctl" record --scenario Examples/checkout.json --db "$work/corpus.sqlite" --label "device=d$((i % 3))" \
        >/dev/null 2>&1
done

# What one job replaying everything says, on a copy of its own: what the shards must add up to.
cp "$work/corpus.sqlite" "$work/unsharded.sqlite"
"$auditctl" replay --all --delegate checkout.v2 --db "$work/unsharded.sqlite" --format junit \
    >"$work/all.xml" 2>/dev/null && status=0 || status=$?
[ "$status" -le 1 ] || { echo "ci-shards: unsharded replay failed ($status)" >&2; exit 1; }

# The matrix: each job replays its part of the corpus into a database of its own (--output-db),
# which holds its sessions and their candidates; the corpus is only read.
before=$(sha256sum "$work/corpus.sqlite")
for i in $(seq 1 "$shards"); do
    "$auditctl" replay --all --delegate checkout.v2 --shard "$i/$shards" --db "$work/corpus.sqlite" \
        --output-db "$work/shard-$i.sqlite" --format junit >"$work/shard-$i.xml" 2>/dev/null && status=0 || status=$?
    [ "$status" -le 1 ] || { echo "ci-shards: shard $i/$shards failed ($status)" >&2; exit 1; }
done
[ "$(sha256sum "$work/corpus.sqlite")" = "$before" ] || { echo "ci-shards: the shards changed the corpus" >&2; exit 1; }

# The collecting job: every shard's database merged into one.
"$auditctl" merge "$work"/shard-*.sqlite --into "$work/merged.sqlite" >/dev/null

# Test cases of the JUnit files, one per line: name and failure message.
cases_all=$(tr '\n' ' ' <"$work/all.xml" | sed 's/<testcase/\n<testcase/g' | grep -o '<testcase [^>]*>\s*\(<failure message="[^"]*"\)\?' | sort)
cases_shards=$(for i in $(seq 1 "$shards"); do tr '\n' ' ' <"$work/shard-$i.xml" | sed 's/<testcase/\n<testcase/g'; done \
    | grep -o '<testcase [^>]*>\s*\(<failure message="[^"]*"\)\?' | sort)
if [ "$cases_all" != "$cases_shards" ]; then
    echo "ci-shards: the shards' verdicts differ from one unsharded replay --all" >&2
    diff <(echo "$cases_all") <(echo "$cases_shards") >&2 || true
    exit 1
fi
count=$(echo "$cases_shards" | grep -c '<testcase')
[ "$count" -eq "$sessions" ] || { echo "ci-shards: $count test cases for $sessions sessions" >&2; exit 1; }

# The merged database: every recording once, and one candidate per recording.
recordings=$("$auditctl" query "select count(*) from sessions where replay_of is null" --db "$work/merged.sqlite" --format csv | tail -1)
candidates=$("$auditctl" query "select count(*) from sessions where replay_of is not null" --db "$work/merged.sqlite" --format csv | tail -1)
if [ "$recordings" -ne "$sessions" ] || [ "$candidates" -ne "$sessions" ]; then
    echo "ci-shards: merged database has $recordings recordings and $candidates candidates, expected $sessions each" >&2
    exit 1
fi
echo "ci-shards: $sessions sessions in $shards shards: verdicts equal one unsharded replay --all; merged $recordings recordings and $candidates candidates"
