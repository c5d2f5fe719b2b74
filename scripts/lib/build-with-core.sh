#!/usr/bin/env bash
# Usage: scripts/lib/build-with-core.sh OUTPUT FILE.swift [SWIFTC FLAGS...]
#
# Compiles AuditCore's sources together with FILE.swift into one executable with plain swiftc, for
# the tools that are no package target (the kill harness, the fuzzers). The migrations and examples
# are embedded first by Sources/EmbedFiles, as the build plugin does. Compiled into the same module,
# the tool may use AuditCore's internal API. Does nothing when OUTPUT is newer than every input.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
output="$1"
file="$2"
shift 2
work="$root/.build/reliability"
mkdir -p "$work" "$(dirname "$output")"

mapfile -t sources < <(find "$root/Sources/AuditCore" -name '*.swift' | sort)
# The examples' target (checkout.v1/v2 and the embedded scenario) joins the same single module:
# copies without their `import AuditCore`.
mkdir -p "$work/examples"
for example in "$root"/Sources/AuditExamples/*.swift; do
    sed '/^import AuditCore$/d' "$example" >"$work/examples/$(basename "$example")"
done
mapfile -t -O "${#sources[@]}" sources < <(find "$work/examples" -name '*.swift' | sort)
inputs=("$root"/Migrations/*.sql "$root"/Examples/*.json)
if [ -x "$output" ] && [ -z "$(find "${sources[@]}" "${inputs[@]}" "$file" "$0" -newer "$output" | head -1)" ]; then
    exit 0
fi

embed="$work/embed-files"
if [ ! -x "$embed" ] || [ "$root/Sources/EmbedFiles/main.swift" -nt "$embed" ]; then
    swiftc -O "$root/Sources/EmbedFiles/main.swift" -o "$embed"
fi
"$embed" "$work/EmbeddedFiles.swift" "${inputs[@]}"

module="$(basename "$output" | tr -c 'A-Za-z0-9\n' '_')"
echo "building $output" >&2
swiftc -swift-version 6 -parse-as-library -package-name auditctl -module-name "Tool_$module" -I "$root/Sources/CSQLite" "$@" \
    "${sources[@]}" "$work/EmbeddedFiles.swift" "$file" -o "$output"
