#!/usr/bin/env bash
# Usage: scripts/investigate-at-scale.sh [SESSIONS] [STEPS]
#
# Times the investigation commands on a large generated database: SESSIONS recordings (default 20)
# of a checkout scenario with STEPS random taps and selections each (default 100,000, about 258,000
# events a session), then search, report (text and HTML), replay --all, a replay and its diff
# with the recording, and minimize on it.
# Prints one line per command: wall seconds, peak resident memory, exit status, and what it found.
# Release build; everything happens in a scratch directory that is removed at the end.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
sessions="${1:-20}"
steps="${2:-100000}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

(cd "$root" && swift build -c release --product auditctl >&2)
auditctl="$(cd "$root" && swift build -c release --show-bin-path)/auditctl"
db="$scratch/large.sqlite"

for i in $(seq 1 "$sessions"); do
    python3 - "$root/Examples/checkout.json" "$scratch/s.json" "$steps" "$i" <<'PY'
import json, random, sys
example, out, steps, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
random.seed(seed)
scenario = json.load(open(example))
moves = []
for _ in range(steps):
    widget = random.choice(["checkout/shipping", "checkout/payment"])
    segment = random.randrange(3)
    if random.randrange(4) == 0:
        moves.append({"action": "selectSegment", "widget": widget, "segment": segment, "notify": True})
    else:
        moves.append({"action": "tapSegment", "widget": widget, "segment": segment})
scenario["steps"] = moves
json.dump(scenario, open(out, "w"))
PY
    "$auditctl" record --scenario "$scratch/s.json" --db "$db" >/dev/null
done
events=$("$auditctl" query "SELECT count(*) FROM timeline" --db "$db" --format csv | tail -1)
echo "database: $sessions sessions, $events events, $(du -m "$db" | cut -f1) MB"

measure() {
    local label="$1"
    shift
    local status=0
    /usr/bin/time -f "%e %M" -o "$scratch/time" "$auditctl" "$@" --db "$db" >"$scratch/out" 2>"$scratch/err" || status=$?
    # GNU time writes "Command exited with non-zero status N" first when the command fails.
    read -r seconds kilobytes < <(tail -1 "$scratch/time")
    printf '%-58s %7.2f s %6d MB  exit %d  %s\n' "$label" "$seconds" $((kilobytes / 1024)) "$status" \
        "$(head -c 300 "$scratch/out" | head -1 | cut -c1-90)"
}

mid=$(((sessions + 1) / 2))
measure "search vetoed shouldSelect, one session (count)" search --session "$mid" --callback '*shouldSelect*' --vetoed yes --format csv
echo "    rows: $(($(wc -l <"$scratch/out") - 1))"
measure "search vetoed, every session, since today (count)" search --vetoed yes --since today --format csv
echo "    rows: $(($(wc -l <"$scratch/out") - 1))"
measure "search one widget's inputs, one session" search --session "$mid" --widget checkout/payment --kind input --format csv
echo "    rows: $(($(wc -l <"$scratch/out") - 1))"
measure "report, one session" report --session "$mid"
measure "report, every session" report
measure "report --html, one session" report --session "$mid" --html "$scratch/report.html"
echo "    page: $(du -k "$scratch/report.html" | cut -f1) KB"
measure "replay --all --isolated against checkout.v2" replay --all --delegate checkout.v2 --isolated
tail -1 "$scratch/out" | sed 's/^/    /'
measure "replay one session (interaction) against checkout.v2" replay --session "$mid" --delegate checkout.v2
replayed=$("$auditctl" query "SELECT max(id) FROM sessions" --db "$db" --format csv | tail -1)
measure "diff of that session and its interaction replay" diff "$mid" "$replayed"
measure "minimize one session against checkout.v2 (max 200 tests)" minimize --session "$mid" --delegate checkout.v2 --output "$scratch/min.json" --max-tests 200
