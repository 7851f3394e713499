#!/bin/sh
# The installed libraries keep their internals to themselves:
# `make install` into a temporary DESTDIR, then
#  - every header under include/ddp/ is installed (no internal one there);
#  - every installed libddp*.a and libddp*.so defines only ddp_* globals
#    (`nm -g --defined-only`), no ddp_debug_* test hook, and each .a exports
#    exactly the functions its .so exports;
#  - tests/programs/symbols_clash.c, which defines stream_error, tx_pump,
#    uq_push, mpa_proto_new, sctp_udp_open, ... itself, links statically
#    against the installed archives through `pkg-config --static` and runs:
#    one message over MPA/TCP and one over DDP/SCTP (ephemeral loopback
#    ports only), an RDMAP Terminate decoded.
# Exit 0 = pass. Usage (from the top directory):
#   BUILD=build sh tests/programs/test_symbols.sh
set -u
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
CC=${CC:-cc}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1

T=$(mktemp -d "${TMPDIR:-/tmp}/ddp-symbols.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM HUP

nfail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; nfail=$((nfail + 1)); }

for tool in pkg-config nm; do
	command -v $tool >/dev/null || { echo "FAIL: $tool not installed"; exit 1; }
done

# a sanitizer build's objects need the sanitizer runtime in the program too
san=0
xflags=
if nm "$BUILD/lib/libddp.a" 2>/dev/null | grep -q '__asan_'; then
	san=1
	xflags="-fsanitize=address,undefined"
fi
libs="libddp libddp-rdmap"
pcs="libddp-rdmap"
if [ "$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $MAKE -s --no-print-directory BUILD="$BUILD" \
	--eval 'ddp-print-have: ; @echo $(HAVE_LIBEVENT)$(HAVE_USRSCTP)' ddp-print-have)" = 11 ]
then
	libs="libddp libddp-mpa libddp-sctp libddp-rdmap"
	pcs="libddp-mpa libddp-sctp libddp-rdmap"
else
	echo "note: core-only build: libddp and libddp-rdmap only"
	xflags="$xflags -DSYMBOLS_CORE_ONLY"
fi

D=$T/root
libdir=$D/usr/local/lib
if ! timeout 240 $MAKE --no-print-directory BUILD="$BUILD" SAN=$san DESTDIR="$D" \
	prefix=/usr/local install > "$T/install.log" 2>&1; then
	cat "$T/install.log"
	echo "FAIL: make install"
	exit 1
fi

# include/ddp/ holds the public headers only: every one is installed (test
# hooks live in internal headers, e.g. src/ddp_debug.h)
for h in include/ddp/*.h; do
	[ -f "$h" ] || continue
	b=${h##*/}
	case "$xflags" in *SYMBOLS_CORE_ONLY*) case $b in mpa.h | sctp.h) continue ;; esac ;; esac
	if [ -f "$D/usr/local/include/ddp/$b" ]; then
		ok "$h is installed"
	else
		bad "$h is under include/ddp/ but not installed (an internal header belongs beside its code)"
	fi
done

# defined globals of a file, one name per line
globals() {
	LC_ALL=C nm -g --defined-only "$1" 2>/dev/null | awk 'NF == 3 && $2 != "A" {print $3}' | LC_ALL=C sort -u
}
for l in $libs; do
	for f in "$libdir/$l.a" "$libdir/$l.so"; do
		n=${f##*/}
		if [ ! -f "$f" ]; then
			bad "$n installed"
			continue
		fi
		globals "$f" > "$T/g"
		if [ ! -s "$T/g" ]; then
			bad "$n: nm finds no global symbol"
			continue
		fi
		other=$(grep -v '^ddp' "$T/g")
		if [ -z "$other" ]; then
			ok "$n: $(wc -l < "$T/g") globals, all ddp*"
		else
			bad "$n: $(echo "$other" | wc -l) globals without the ddp prefix:" \
				"$(echo "$other" | head -20 | tr '\n' ' ')"
		fi
		if grep -q '^ddp_debug_' "$T/g"; then
			bad "$n: exports test hooks: $(grep '^ddp_debug_' "$T/g" | tr '\n' ' ')"
		else
			ok "$n: no ddp_debug_* test hook"
		fi
	done
	# (the .so's names carry their symbol version: ddp_x@@LIBDDP_1)
	LC_ALL=C nm -D --defined-only "$libdir/$l.so" | awk 'NF == 3 && $2 != "A" {print $3}' | sed 's/@.*//' | LC_ALL=C sort -u \
		> "$T/so"
	globals "$libdir/$l.a" > "$T/a"
	# the .so's only extras: the 1.0 names of the calls that take a
	# struct (ddp_x for ddp_x_sized, mk/install.mk), at ddp_x_sized's
	# address
	sed -n 's/_sized$//p' "$T/a" | LC_ALL=C sort | LC_ALL=C comm -12 - "$T/so" > "$T/compat"
	LC_ALL=C sort -u "$T/a" "$T/compat" > "$T/a+compat"
	if cmp -s "$T/a+compat" "$T/so"; then
		ok "$l.a exports the same $(wc -l < "$T/a") symbols as $l.so, which adds" \
			"$(wc -l < "$T/compat") 1.0 names"
	else
		bad "$l.a and $l.so export different symbols (< .a only, > .so only):"
		diff "$T/a+compat" "$T/so" | grep '^[<>]' | head -20
	fi
	moved=$(LC_ALL=C nm -D --defined-only "$libdir/$l.so" | awk '
		NR == FNR { want[$1] = 1; next }
		{ n = $3; sub(/@.*/, "", n); addr[n] = $1 }
		END { for (n in want) if (addr[n] != addr[n "_sized"]) print n }' "$T/compat" -)
	if [ -z "$moved" ]; then
		ok "$l.so: each 1.0 name is its _sized function"
	else
		bad "$l.so: 1.0 names not at their _sized function: $moved"
	fi
	# symbol versioning: every export at the SONAME's version node
	unv=$(objdump -T "$libdir/$l.so" | grep -v 'UND' | awk '$NF ~ /^ddp_/ && $(NF-1) !~ /^LIBDDP_[0-9]+$/ {print $NF}')
	if [ -z "$unv" ]; then
		ok "$l.so: every export at version LIBDDP_<major>"
	else
		bad "$l.so: exports without the version node: $(echo "$unv" | head -5 | tr '\n' ' ')"
	fi
done

# static link of a program that uses the libraries' internal names
mkdir -p "$T/sroot"
cp -a "$D/." "$T/sroot/"
rm -f "$T"/sroot/usr/local/lib/*.so*
# shellcheck disable=SC2086,SC2046
if $CC -std=c11 -Wall -Wextra -Wno-unused-parameter -Werror -o "$T/clash" tests/programs/symbols_clash.c $xflags \
	$(PKG_CONFIG_PATH="$T/sroot/usr/local/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$T/sroot" \
	pkg-config --static --cflags --libs $pcs) > "$T/link.log" 2>&1; then
	ok "a program defining stream_error, tx_pump, uq_push, mpa_proto_new, sctp_udp_open," \
		"... links statically (pkg-config --static $pcs)"
	if timeout 30 "$T/clash" > "$T/run.log" 2>&1; then
		ok "it runs: $(tr '\n' ';' < "$T/run.log")"
	else
		bad "the statically linked program fails"
		cat "$T/run.log"
	fi
else
	bad "a program defining libddp's internal names does not link statically:"
	grep -m 20 -e 'multiple definition' -e 'error' "$T/link.log" || head -20 "$T/link.log"
fi

echo "test_symbols: $nfail failed"
[ $nfail -eq 0 ]
