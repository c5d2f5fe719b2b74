#!/usr/bin/env bash
# Type-checks each mistake in Tests/CompileFail against the built AuditCore and fails unless every
# one fails to compile with the message its `// expect:` line gives: the mistakes a user can make
# while adopting the package that are caught by the compiler, not at run time.
#
#   scripts/compile-fail.sh        (after `swift build`)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/swift-flags.sh
modules="$(swift build "${swift_flags[@]}" --show-bin-path)/Modules"
[ -f "$modules/AuditCore.swiftmodule" ] || { echo "compile-fail: build first (no $modules/AuditCore.swiftmodule)" >&2; exit 2; }
failed=0
count=0
for file in Tests/CompileFail/*.swift; do
    count=$((count + 1))
    expected=$(sed -n 's|^// expect: ||p' "$file" | head -1)
    if [ -z "$expected" ]; then echo "compile-fail: $file has no '// expect:' line" >&2; failed=1; continue; fi
    if output=$(swiftc -typecheck -I "$modules" -I Sources/CSQLite "$file" 2>&1); then
        echo "compile-fail: $file compiled, but must not ($expected)" >&2
        failed=1
    elif ! grep -qF -- "$expected" <<<"$output"; then
        echo "compile-fail: $file failed without '$expected':" >&2
        grep 'error:' <<<"$output" | head -3 >&2
        failed=1
    fi
done
[ "$failed" -eq 0 ] && echo "compile-fail: all $count mistakes are refused by the compiler with their message"
exit "$failed"
