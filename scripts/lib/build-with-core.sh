#!/usr/bin/env bash
# Usage: scripts/lib/build-with-core.sh OUTPUT FILE.swift [SWIFTC FLAGS...]
#
# Compiles the library's sources (every layer AuditCore re-exports) together with FILE.swift into
# one executable with plain swiftc, for the tools that are no package target (the kill harness, the
# fuzzers). The migrations and examples are embedded first by Sources/EmbedFiles, as the build
# plugin does. Compiled into the same module, the tool may use the layers' internal API. Does
# nothing when OUTPUT was built from the same inputs with the same flags (a digest of both, in
# OUTPUT.stamp).
#
# One whole-module job (-wmo) type-checks the sources once: the driver's default, a job per file,
# parses them all again for each file (138 s of CPU against 119 s with -O, 45 s against 21 s with
# -Onone, on two shared cores).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
output="$1"
file="$2"
shift 2
work="$root/.build/reliability"
mkdir -p "$work" "$(dirname "$output")"
# Absolute, since swiftc runs in $work: with -wmo and -g it leaves the module's files in its
# working directory.
output="$(cd "$(dirname "$output")" && pwd)/$(basename "$output")"
file="$(cd "$(dirname "$file")" && pwd)/$(basename "$file")"

# The library's layers (AuditModel … AuditInvestigate, which AuditCore re-exports) and the
# examples' target (checkout.v1/v2 and the embedded scenario) join one module: copies without
# their imports of one another.
layers=(AuditModel AuditStorage AuditKit AuditReplay AuditInvestigate AuditExamples)
originals=()
for layer in "${layers[@]}"; do
    mapfile -t -O "${#originals[@]}" originals < <(find "$root/Sources/$layer" -name '*.swift' | sort)
done
sources=()
mkdir -p "$work/sources"
for original in "${originals[@]}"; do
    copy="$work/sources/$(basename "$(dirname "$original")")-$(basename "$original")"
    if [ ! -e "$copy" ] || [ "$original" -nt "$copy" ]; then
        sed -E '/^(@testable )?import Audit(Core|Model|Storage|Kit|Replay|Investigate)$/d' "$original" >"$copy"
    fi
    sources+=("$copy")
done
inputs=("$root"/Migrations/*.sql "$root"/Examples/*.json)
stamp="$output.stamp"
# One build of OUTPUT at a time: a second call waits for the first, then finds it built (.ci/run
# builds the tools early, in the background, and their stages call this again).
exec 9>"$output.lock"
flock 9
digest=$({ printf '%s\n' "$*" "${originals[@]}" "${inputs[@]}"; cat "${originals[@]}" "${inputs[@]}" "$file" "$0"; } | sha256sum)
if [ -x "$output" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$digest" ]; then
    exit 0
fi

embed="$work/embed-files"
if [ ! -x "$embed" ] || [ "$root/Sources/EmbedFiles/main.swift" -nt "$embed" ]; then
    swiftc -O "$root/Sources/EmbedFiles/main.swift" -o "$embed"
fi
"$embed" "$work/EmbeddedFiles.swift" "${inputs[@]}"

module="$(basename "$output" | tr -c 'A-Za-z0-9\n' '_')"
echo "building $output" >&2
(cd "$work" && swiftc -swift-version 6 -parse-as-library -package-name auditctl -module-name "Tool_$module" \
    -I "$root/Sources/CSQLite" -wmo -num-threads "$(nproc)" "$@" "${sources[@]}" "$work/EmbeddedFiles.swift" "$file" \
    -o "$output")
echo "$digest" >"$stamp"
