#!/bin/sh
# The library's sources follow .clang-format: every C file and header of
# src/, include/, adapters/ and rdmap/ is what clang-format makes of it.
# With -i (make format) it rewrites them instead. Exit 0 = clean; prints
# each file clang-format would change otherwise.
cd "$(dirname "$0")/.." || exit 1
command -v clang-format >/dev/null || { echo "check-format: clang-format not installed"; exit 1; }
files=$(find src include adapters rdmap -name '*.[ch]' | LC_ALL=C sort)
if [ "${1:-}" = -i ]; then
	# shellcheck disable=SC2086
	exec clang-format -i $files
fi
bad=0
for f in $files; do
	if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
		echo "check-format: $f is not formatted (make format)"
		bad=1
	fi
done
exit $bad
