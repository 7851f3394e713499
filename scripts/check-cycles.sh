#!/bin/sh
# Call cycles, from the built objects (BUILD/obj/<tree>/**.o): file A
# depends on file B when A has an undefined symbol that B defines.
#  - two files of one tree that depend on each other are a cycle
#    ("two files calling each other where a return value would do",
#    docs/style.md); a tree is a folder with all its sub-folders, so an
#    LLP's protocol code and its glue are checked together;
#  - two folders of one tree whose files depend on each other both ways are
#    a cycle too: inside an LLP, dependencies point one way.
# Each cycle is printed with the symbols of both directions.
# Usage: scripts/check-cycles.sh BUILD [tree...]
# (default trees: src adapters/common adapters/event adapters/mpa adapters/sctp rdmap).
# Exit 1 when a cycle is found, 2 when BUILD has no objects for a tree.
build=${1:-build}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- src adapters/common adapters/event adapters/mpa adapters/sctp rdmap
NM=${NM:-nm}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
rc=0
for tree in "$@"; do
	objs=$(find "$build/obj/$tree" -name '*.o' 2>/dev/null | sort)
	if [ -z "$objs" ]; then
		echo "check-cycles: no objects in $build/obj/$tree (build first)"
		exit 2
	fi
	: >"$tmp/def"
	: >"$tmp/und"
	for o in $objs; do
		f=${o#"$build/obj/"}
		f=${f%.o}
		# an object whose source is gone (a file moved since BUILD was made)
		[ -f "$f.c" ] || continue
		# defined text symbols (T: global; W: weak global) and undefined
		$NM "$o" | awk -v f="$f" '$1 != "U" && ($2 == "T" || $2 == "W") { print $3, f }' >>"$tmp/def"
		$NM "$o" | awk -v f="$f" '$1 == "U" { print $2, f }' >>"$tmp/und"
	done
	# edges "from to sym": from uses sym, to defines it
	sort -k1,1 "$tmp/def" >"$tmp/def.s"
	sort -k1,1 "$tmp/und" >"$tmp/und.s"
	join "$tmp/und.s" "$tmp/def.s" | awk '$2 != $3 { print $2, $3, $1 }' |
		sort -u >"$tmp/edges"
	awk -v tree="$tree" '
	function dir(p) { sub(/\/[^\/]*$/, "", p); return p }
	{
		key = $1 " " $2; syms[key] = syms[key] (syms[key] == "" ? "" : ",") $3
		a = dir($1); b = dir($2)
		if (a != b) { dk = a " " b; dsyms[dk] = dsyms[dk] (dsyms[dk] == "" ? "" : ",") $3 }
	}
	END {
		n = 0
		for (k in syms) {
			split(k, p, " ")
			if (p[1] < p[2] && ((p[2] " " p[1]) in syms)) {
				printf "cycle in %s: %s.o -> %s.o (%s) and %s.o -> %s.o (%s)\n", \
					tree, p[1], p[2], syms[k], p[2], p[1], syms[p[2] " " p[1]]
				n++
			}
		}
		for (k in dsyms) {
			split(k, p, " ")
			if (p[1] < p[2] && ((p[2] " " p[1]) in dsyms)) {
				printf "folder cycle in %s: %s/ -> %s/ (%s) and %s/ -> %s/ (%s)\n", \
					tree, p[1], p[2], dsyms[k], p[2], p[1], dsyms[p[2] " " p[1]]
				n++
			}
		}
		exit n ? 1 : 0
	}' "$tmp/edges" || rc=1
done
[ $rc -eq 0 ] && echo "check-cycles: no call cycles between files or folders of one tree ($*)"
exit $rc
