#!/bin/sh
# Requirement coverage. The requirement ids, their level and any
# "not covered: <reason>" marker are defined in docs/compliance.md (rows
# "| ID | level | ... |"); tests cite ids in comments. Prints the coverage
# table (markdown: id, level, the files under tests/ that cite it) and exits
# 1 when
#   - a file under tests/ cites an id docs/compliance.md does not define,
#   - an id whose level contains MUST (MUST, MUST NOT, SHOULD / MUST, ...)
#     is cited by no test and its row has no "not covered: <reason>" marker,
#   - a row says "not covered" although a test cites the id (stale marker).
# A "Proved by" column that no longer matches the tests is reported (not an
# error); --update rewrites it.
#
# Usage: coverage-table.sh              table + checks (run by make check)
#        coverage-table.sh --update     also rewrite the Proved-by column
#        coverage-table.sh --sections   which tests cite which section of
#                                       RFC 5044, 6581, 5043 and 5040
cd "$(dirname "$0")/.." || exit 1
doc=docs/compliance.md
idre='(DDP|MPA|SCTP|RDMAP)-[A-Z]+-[A-Z]?[0-9]+'
[ -f "$doc" ] || { echo "coverage: $doc missing"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

if [ "${1:-}" = --sections ]; then
	echo "| RFC section | Cited by |"
	echo "|---|---|"
	grep -rIoE 'RFC (5044|6581|5043|5040) §[0-9A-Z.]*[0-9A-Z]' tests |
		sed 's|^tests/||; s|:RFC \([0-9]*\) §| \1 §|' |
		awk '{ k = "RFC " $2 " " $3; if (!((k, $1) in seen)) { seen[k, $1] = 1; a[k] = a[k] " " $1 } }
		     END { for (k in a) print k "\t" a[k] }' |
		sort -t '	' -k1,1V | awk -F '	' '{ print "| " $1 " |" $2 " |" }'
	exit 0
fi

# id <TAB> level <TAB> marked(0/1), in document order
awk -F '|' -v re="^ *$idre *\$" '
	$2 ~ re { id = $2; gsub(/ /, "", id); lvl = $3; gsub(/^ +| +$/, "", lvl)
		  print id "\t" lvl "\t" (index($0, "not covered:") ? 1 : 0) }' \
	"$doc" > "$tmp/defs"
# file <TAB> id for every citation under tests/ (text files only)
grep -rIoHwE "$idre" tests | sed 's|^tests/||; s|:|	|' | sort -u > "$tmp/cites"

awk -F '\t' -v doc="$doc" -v out="$tmp/cited" '
	FNR == NR { n++; id[n] = $1; lvl[$1] = $2; mark[$1] = $3
		    if ($1 in def) { printf "coverage: %s defined twice in %s\n", $1, doc; bad = 1 }
		    def[$1] = 1; next }
	{ if (!($2 in def)) { if (!(($2) in unk)) printf "coverage: %s (cited by tests/%s) is not defined in %s\n", $2, $1, doc; unk[$2] = 1; bad = 1; next }
	  files[$2] = files[$2] " " $1 }
	END {
		print "| Id | Level | Proved by |"
		print "|---|---|---|"
		for (i = 1; i <= n; i++) {
			k = id[i]; f = files[k]
			must = lvl[k] ~ /MUST/
			if (f != "") cov++
			if (f != "" && mark[k]) { printf "coverage: %s is marked not covered but tests cite it:%s\n", k, f; bad = 1 }
			if (f == "" && must && !mark[k]) { printf "coverage: %s (%s) is cited by no test and has no \"not covered: <reason>\" marker\n", k, lvl[k]; bad = 1 }
			if (f == "" && mark[k]) nc++
			printf "| %s | %s | %s |\n", k, lvl[k], f != "" ? substr(f, 2) : (mark[k] ? "not covered (see " doc ")" : "-")
			print k "\t" (f != "" ? substr(f, 2) : "") > out
		}
		printf "coverage: %d ids, %d cited by tests, %d marked not covered\n", n, cov, nc
		exit bad
	}' "$tmp/defs" "$tmp/cites"
rc=$?

# The Proved-by column (5th) of docs/compliance.md against the citations.
awk -F '\t' -v re="^ *$idre *\$" '
	FNR == NR { want[$1] = $2; next }
	{ nc = split($0, c, "|") }
	c[2] ~ re { k = c[2]; gsub(/ /, "", k); have = c[6]; gsub(/^ +| +$/, "", have)
		    w = want[k] == "" ? (index($0, "not covered:") ? "not covered" : "-") : want[k]
		    if (have != w) stale++
		    if (upd) { c[6] = " " w " "; s = ""; for (i = 2; i < nc; i++) s = s "|" c[i]; $0 = s "|" } }
	{ if (upd) print > tmpf }
	END { if (stale) printf "coverage: the Proved-by column of %s is out of date in %d rows%s\n", FILENAME, stale, upd ? ": rewritten" : " (scripts/coverage-table.sh --update)" }' \
	upd="$([ "${1:-}" = --update ] && echo 1 || echo 0)" tmpf="$tmp/doc" "$tmp/cited" "$doc"
[ "${1:-}" = --update ] && cp "$tmp/doc" "$doc"
exit $rc
