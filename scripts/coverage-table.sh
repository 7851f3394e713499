#!/bin/sh
# Prints the RFC 5041 checklist coverage table (markdown): every id of
# ../shared/spec/ddp-checklist.md (or $1) and the test files that cite it.
cd "$(dirname "$0")/.." || exit 1
list=${1:-../shared/spec/ddp-checklist.md}
echo "| Id | Cited by |"
echo "|---|---|"
grep -oE '^\| DDP-[A-Z]+-[A-Z]?[0-9]+' "$list" | sed 's/^| //' | while read -r id; do
	files=$(grep -rlw -- "$id" tests 2>/dev/null | sort | sed 's|^tests/||' | tr '\n' ' ')
	echo "| $id | ${files:-**not covered**} |"
done
