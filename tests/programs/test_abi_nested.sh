#!/bin/sh
# make check-abi refuses a struct that another public struct holds when it
# grows, and still passes what may grow. Three small shared libraries, one
# function for each struct the calls of libddp, libddp-mpa and libddp-sctp
# take (libddp-mpa's take ddp_mpa_config, which holds ddp_session_config,
# but no ddp_session_config of its own), are built against the installed
# headers as they are (the baselines, abidw as make abi-baseline writes
# them) and against copies of them with one change each, and each variant
# is compared with the baselines by check-abi's own comparison ($(ABIDIFF)
# of mk/abi.mk, abi/grow.suppr):
#  - refused in the library that takes the holder: ddp_session_config
#    grown (libddp-mpa), ddp_callbacks or ddp_sctp_callbacks grown
#    (libddp-sctp), each moving the fields after it in the struct that
#    holds it; a field inserted in the middle of ddp_mpa_config;
#  - passed everywhere: nothing changed; a field appended to
#    ddp_mpa_config, ddp_sctp_config, ddp_conn_callbacks or ddp_stats.
# Exit 0 = pass, 77 = skip (no abidiff). Usage (from the top directory):
#   BUILD=build sh tests/programs/test_abi_nested.sh
set -u
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
CC=${CC:-cc}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1

for tool in abidiff abidw; do
	command -v $tool >/dev/null || { echo "SKIP: $tool not installed (abigail-tools)"; exit 77; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/ddp-abi-nested.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM HUP

nfail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; nfail=$((nfail + 1)); }

abidiff_cmd=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $MAKE -s --no-print-directory BUILD="$BUILD" \
	--eval 'ddp-print-abidiff: ; @echo $(ABIDIFF)' ddp-print-abidiff)
case $abidiff_cmd in
abidiff*) echo "     check-abi compares with: $abidiff_cmd" ;;
*) echo "FAIL: no ABIDIFF in mk/abi.mk ($abidiff_cmd)"; exit 1 ;;
esac

# model LIB TYPE...: a library with one function per struct its calls take
model() {
	m=$1
	shift
	{
		echo "#include <ddp/mpa.h>"
		echo "#include <ddp/sctp.h>"
		for t in "$@"; do
			echo "DDP_API int ${m}_$t(const $t *p);"
			echo "int ${m}_$t(const $t *p) { return p != 0; }"
		done
	} > "$T/$m.c"
	models="$models $m"
}
models=
# the structs the calls of each library take (ddp/ddp.h, mpa.h, sctp.h)
model core ddp_ctx_config ddp_ctx_live ddp_mr_attr ddp_session_config ddp_callbacks ddp_stats
model mpa ddp_mpa_config ddp_callbacks ddp_conn_callbacks ddp_mpa_info
model sctp ddp_sctp_config ddp_conn_callbacks ddp_sctp_stats

# variant NAME SED-SCRIPT: include/ddp with the edit, the models built on it
variant() {
	mkdir -p "$T/$1"
	cp -r include/ddp "$T/$1/"
	if [ -n "$2" ]; then
		sed -i "$2" "$T/$1/ddp/ddp.h" "$T/$1/ddp/mpa.h" "$T/$1/ddp/sctp.h"
		if cmp -s include/ddp/ddp.h "$T/$1/ddp/ddp.h" && cmp -s include/ddp/mpa.h "$T/$1/ddp/mpa.h" &&
			cmp -s include/ddp/sctp.h "$T/$1/ddp/sctp.h"; then
			echo "FAIL: variant $1: the edit changed no header"
			exit 1
		fi
	fi
	for m in $models; do
		if ! $CC -g -O0 -fPIC -shared -I"$T/$1" -o "$T/$1/lib$m.so" "$T/$m.c" > "$T/$1.log" 2>&1; then
			cat "$T/$1.log"
			echo "FAIL: variant $1 does not build"
			exit 1
		fi
	done
}
# compare NAME pass|LIB-THAT-MUST-FAIL WHAT: each model against its baseline
compare() {
	failed=
	for m in $models; do
		# shellcheck disable=SC2086
		$abidiff_cmd --headers-dir2 "$T/$1/ddp" "$T/base-$m.abi" "$T/$1/lib$m.so" \
			> "$T/$1-$m.diff" 2>&1
		rc=$?
		if [ $((rc & 3)) -ne 0 ]; then
			bad "$3: abidiff could not compare (exit $rc)"
			cat "$T/$1-$m.diff"
			return
		fi
		[ $rc -eq 0 ] || failed="$failed $m"
	done
	if [ "$2" = pass ] && [ -z "$failed" ]; then
		ok "$3: check-abi passes it"
	elif [ "$2" != pass ] && case " $failed " in *" $2 "*) true ;; *) false ;; esac; then
		ok "$3: check-abi refuses it (in the library like lib${2}:$failed)"
	else
		bad "$3: check-abi should $([ "$2" = pass ] && echo pass || echo "refuse in $2") it (refused in:${failed:- none})"
		for m in $models; do sed -n '1,20p' "$T/$1-$m.diff"; done
	fi
}
grow() { # grow STRUCT: a field appended to it
	printf 's/^} %s;/\\tuint64_t added_by_test;\\n} %s;/' "$1" "$1"
}

variant base ""
for m in $models; do
	abidw --headers-dir "$T/base/ddp" --no-corpus-path --out-file "$T/base-$m.abi" "$T/base/lib$m.so" ||
		{ echo "FAIL: abidw"; exit 1; }
done
variant same ""
compare same pass "nothing changed"
variant mpa_end "$(grow ddp_mpa_config)"
compare mpa_end pass "a field appended to ddp_mpa_config (it holds ddp_session_config)"
variant sctp_end "$(grow ddp_sctp_config)"
compare sctp_end pass "a field appended to ddp_sctp_config"
variant conn_end "$(grow ddp_conn_callbacks)"
compare conn_end pass "a field appended to ddp_conn_callbacks"
variant stats_end "$(grow ddp_stats)"
compare stats_end pass "a field appended to ddp_stats"
variant session "$(grow ddp_session_config)"
compare session mpa "ddp_session_config grown inside ddp_mpa_config"
variant callbacks "$(grow ddp_callbacks)"
compare callbacks sctp "ddp_callbacks grown inside ddp_sctp_config and ddp_conn_callbacks"
variant sctp_callbacks "$(grow ddp_sctp_callbacks)"
compare sctp_callbacks sctp "ddp_sctp_callbacks grown inside ddp_sctp_config"
variant mpa_middle 's/^\tint markers; /\tuint64_t added_by_test;\n\tint markers; /'
compare mpa_middle mpa "a field inserted in the middle of ddp_mpa_config"

echo "test_abi_nested: $nfail failed"
[ $nfail -eq 0 ]
