#!/bin/sh
# Call cycles between two files of one source folder (STYLE.md: "two files
# calling each other where a return value would do"). From the
# object files of BUILD/obj/<folder>/*.o: file A depends on file B when A
# has an undefined (U) symbol that B defines (T). A pair that depends both
# ways is a cycle; each is printed with the symbols of both directions.
# Usage: scripts/check-cycles.sh BUILD [folder...]
# (default folders: src adapters/mpa adapters/sctp adapters/libevent rdmap).
# Exit 1 when a cycle is found, 2 when BUILD has no objects.
build=${1:-build}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- src adapters/mpa adapters/sctp adapters/libevent rdmap
NM=${NM:-nm}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
rc=0
for dir in "$@"; do
	objs=$(ls "$build/obj/$dir"/*.o 2>/dev/null)
	if [ -z "$objs" ]; then
		echo "check-cycles: no objects in $build/obj/$dir (build first)"
		exit 2
	fi
	: >"$tmp/def"
	: >"$tmp/und"
	for o in $objs; do
		f=$(basename "$o" .o)
		# defined text symbols (T: global; W: weak global) and undefined
		$NM "$o" | awk -v f="$f" '$1 != "U" && ($2 == "T" || $2 == "W") { print $3, f }' >>"$tmp/def"
		$NM "$o" | awk -v f="$f" '$1 == "U" { print $2, f }' >>"$tmp/und"
	done
	# edges "from to sym": from uses sym, to defines it
	sort -k1,1 "$tmp/def" >"$tmp/def.s"
	sort -k1,1 "$tmp/und" >"$tmp/und.s"
	join "$tmp/und.s" "$tmp/def.s" | awk '$2 != $3 { print $2, $3, $1 }' |
		sort -u >"$tmp/edges"
	awk -v dir="$dir" '
	{ key = $1 " " $2; syms[key] = syms[key] (syms[key] == "" ? "" : ",") $3 }
	END {
		n = 0
		for (k in syms) {
			split(k, p, " ")
			if (p[1] < p[2] && ((p[2] " " p[1]) in syms)) {
				printf "cycle in %s: %s.o -> %s.o (%s) and %s.o -> %s.o (%s)\n", \
					dir, p[1], p[2], syms[k], p[2], p[1], syms[p[2] " " p[1]]
				n++
			}
		}
		exit n ? 1 : 0
	}' "$tmp/edges" || rc=1
done
[ $rc -eq 0 ] && echo "check-cycles: no call cycles between files of one folder ($*)"
exit $rc
