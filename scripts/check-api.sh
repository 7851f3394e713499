#!/bin/sh
# The public API's marks and docs: every function declared at the top level of an
# installed header (include/ddp/*.h) or of an adapters/common header whose
# functions libddp exports begins with DDP_API (the export lists are made
# from the marks, mk/install.mk), and include/ddp/export.h's version is
# configure.ac's. Exit 0 = clean; prints each offending line otherwise.
set -u
cd "$(dirname "$0")/.." || exit 1
bad=0
for h in include/ddp/*.h src/conn_glue.h adapters/common/crc32c.h adapters/common/peer_addr.h \
	adapters/common/siphash.h; do
	[ -f "$h" ] || continue
	# outside comments: a line starting a declaration of ddp_*( that is not
	# a typedef or a function pointer and carries no DDP_API
	out=$(awk '
		/\/\*/ { c = 1 }
		c == 0 && /^[A-Za-z_]/ && /ddp_[A-Za-z0-9_]+ *\(/ && !/^typedef/ && \
			!/^DDP_API/ && !/^#/ && !/\(\*/ && !/^static/ { print FILENAME ":" NR ": " $0 }
		/\*\// { c = 0 }' "$h")
	if [ -n "$out" ]; then
		echo "$out"
		bad=1
	fi
done
[ $bad -eq 0 ] || echo "check-api: declare these with DDP_API (include/ddp/export.h)"
# every exported function has its comment (the API reference is made
# from them: make doc, scripts/apiref.awk)
awk -v check=1 -f scripts/apiref.awk include/ddp/*.h || bad=1
# Structs that hold another public struct: a holder (the nested struct
# not its last member) is refused when larger than the library's own
# (src/abi.h, DDP_ABI_HOLDS lists them), and a struct that another one
# holds may not grow (abi/grow.suppr must not list it).
nesting=$(awk '
	/^typedef struct ddp_[a-z0-9_]+ \{/ { in_s = $3; structs[in_s] = 1; last = ""; next }
	in_s != "" && /^\} ddp_[a-z0-9_]+;/ { lastof[in_s] = last; in_s = ""; next }
	in_s != "" && /^\t[a-z]/ {
		t = $1
		if (t == "const" || t == "struct" || t == "enum" || t == "unsigned") t = $2
		last = t
		code = $0; sub(/\/\*.*/, "", code)
		if (t in structs && code !~ /\*/) holds[++nh] = in_s " " t
	}
	END {
		for (i = 1; i <= nh; i++) {
			split(holds[i], p, " ")
			print p[1], p[2], (lastof[p[1]] == p[2] ? "last" : "inner")
		}
	}' include/ddp/*.h)
grow=$(sed -n 's/^[[:space:]]*name_regexp[[:space:]]*=[[:space:]]*//p' abi/grow.suppr)
listed=$(tr -d ' \\\t' < src/abi.h | grep -o 'struct[a-z0-9_]*\*:1' | sed 's/^struct//; s/\*:1$//' | sort -u)
held=
while read -r holder member where; do
	[ -n "$holder" ] || continue
	held="$held $holder"
	if [ "$where" = inner ] && ! echo "$listed" | grep -qx "$holder"; then
		echo "check-api: $holder holds $member but src/abi.h (DDP_ABI_HOLDS) does not list it"
		bad=1
	fi
	if [ -n "$grow" ] && echo "$member" | grep -Eq "$grow"; then
		echo "check-api: abi/grow.suppr lets $member grow, but $holder holds it"
		bad=1
	fi
done <<EOF
$nesting
EOF
for t in $listed; do
	case " $held " in *" $t "*) ;; *)
		echo "check-api: src/abi.h (DDP_ABI_HOLDS) lists $t, which holds no public struct"
		bad=1 ;;
	esac
done
# Every ddp_* function the headers' comments and the documents name,
# name(...), exists: it is called, declared or defined as a function or a
# function-like macro somewhere in the code (comments stripped).
strip_comments='{
	line = $0; out = ""
	while (line != "") {
		if (inc) {
			i = index(line, "*/")
			if (!i) { if (want) print line; line = ""; break }
			if (want) print substr(line, 1, i - 1)
			line = substr(line, i + 2); inc = 0
			continue
		}
		i = index(line, "/*"); j = index(line, "//")
		if (!want && j && (!i || j < i)) { out = out substr(line, 1, j - 1); line = ""; break }
		if (!i) { out = out line; line = ""; break }
		out = out substr(line, 1, i - 1); line = substr(line, i + 2); inc = 1
	}
	if (!want) print out
}'
T=$(mktemp -d "${TMPDIR:-/tmp}/check-api.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
find src adapters rdmap include tests demos tools examples -name '*.[ch]' | LC_ALL=C sort |
	xargs awk -v want=0 "$strip_comments" | grep -o 'ddp_[A-Za-z0-9_]* *(' | tr -d ' (' |
	LC_ALL=C sort -u > "$T/code"
for f in include/ddp/*.h docs/*.md README; do
	[ -f "$f" ] || continue
	case $f in
	*.h) awk -v want=1 "$strip_comments" "$f" ;;
	*) cat "$f" ;;
	esac | grep -o '\(^\|[^A-Za-z0-9_]\)ddp_[A-Za-z0-9_]*(' | sed 's/^[^d]//; s/($//' |
		LC_ALL=C sort -u | LC_ALL=C comm -23 - "$T/code" > "$T/missing"
	if [ -s "$T/missing" ]; then
		echo "check-api: $f names functions that do not exist: $(tr '\n' ' ' < "$T/missing")"
		bad=1
	fi
done
# The examples keep no event-loop pass that ddp/ddp.h calls unnecessary:
# ddp_ctx_free() releases what an adapter left for the loop, also after
# ddp_listener_free().
out=$(awk '
	FNR == 1 { prev = "" }
	/^[ \t]*$/ { next }
	{
		if (pass && $0 ~ /ddp_ctx_free\(/)
			print FILENAME ":" passline ": an event-loop pass before ddp_ctx_free()"
		pass = 0
		if ($0 ~ /event_base_loop\(.*EVLOOP_NONBLOCK/) {
			if (prev ~ /ddp_listener_free\(/)
				print FILENAME ":" FNR ": an event-loop pass after ddp_listener_free()"
			else { pass = 1; passline = FNR }
		}
		prev = $0
	}' examples/*.c examples/*/*.c)
if [ -n "$out" ]; then
	echo "$out"
	echo "check-api: ddp_ctx_free() needs no extra pass of the loop (ddp/ddp.h, ddp_ctx_free, ddp_listener_free)"
	bad=1
fi
v=$(sed -n 's/^AC_INIT(\[libddp\], *\[\([0-9.]*\)\].*/\1/p' configure.ac)
h=$(sed -n 's/^#define DDP_LIB_VERSION_STRING[[:space:]]*"\(.*\)"/\1/p' include/ddp/export.h)
if [ "$v" != "$h" ]; then
	echo "check-api: configure.ac says $v, include/ddp/export.h $h"
	bad=1
fi
for part in MAJOR MINOR PATCH; do
	n=$(sed -n "s/^#define DDP_LIB_VERSION_$part[[:space:]]*\([0-9]*\)/\1/p" include/ddp/export.h)
	case $part in MAJOR) w=${v%%.*} ;; MINOR) w=${v#*.}; w=${w%%.*} ;; PATCH) w=${v##*.} ;; esac
	[ "$n" = "$w" ] || { echo "check-api: DDP_LIB_VERSION_$part is $n, configure.ac $w"; bad=1; }
done
exit $bad
