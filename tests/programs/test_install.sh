#!/bin/sh
# Packaging end to end: `make install` into a temporary DESTDIR with
# prefix=/usr/local, then examples/echo_client.c built ONLY from
# `pkg-config --cflags --libs libddp-mpa libddp-sctp` (PKG_CONFIG_SYSROOT_DIR
# points pkg-config at the DESTDIR) and run with LD_LIBRARY_PATH against
# $BUILD/bin/ddp-echo on 127.0.0.1 (MPA 29600, SCTP 29601, or the next free
# pair up to 29608/29609). Also checks the
# SONAMEs and symlinks, that only public ddp_* symbols are exported, that
# ddp/debug.h is not installed, a static link through `pkg-config --static`
# (proves Requires.private / Libs.private), and that `make uninstall` removes
# every file it installed. Exit 0 = pass. Usage (from the top directory):
#   BUILD=build sh tests/programs/test_install.sh
set -u
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1

T=$(mktemp -d "${TMPDIR:-/tmp}/ddp-install.XXXXXX") || exit 1
server=
cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

nfail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; nfail=$((nfail + 1)); }
check() { # check DESCRIPTION COMMAND...
	d=$1; shift
	if "$@"; then ok "$d"; else bad "$d"; fi
}

for tool in pkg-config readelf nm; do
	command -v $tool >/dev/null || { echo "FAIL: $tool not installed"; exit 1; }
done

# A sanitizer build (make check-sanitize) links and compiles with the
# sanitizers: the .so then needs them, so the example must have them too.
san=0
xflags=
if nm "$BUILD/lib/libddp.a" 2>/dev/null | grep -q '__asan_'; then
	san=1
	xflags="-fsanitize=address,undefined"
fi
# A core-only configuration (./configure --without-libevent/usrsctp)
# installs libddp alone and has no ddp-echo: check that install only.
full=0
libs="libddp libddp-rdmap"
headers="ddp llp rdmap"
if [ "$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $MAKE -s --no-print-directory BUILD="$BUILD" \
	--eval 'ddp-print-have: ; @echo $(HAVE_LIBEVENT)$(HAVE_USRSCTP)' ddp-print-have)" = 11 ]
then
	full=1
	libs="libddp libddp-mpa libddp-sctp libddp-rdmap"
	headers="ddp llp mpa sctp rdmap"
else
	echo "note: core-only build: only libddp is installed and checked"
fi
# the server (make check builds it; a partial build may not have)
if [ $full = 1 ] && [ ! -x "$BUILD/bin/ddp-echo" ] && ! timeout 240 $MAKE --no-print-directory BUILD="$BUILD" \
	SAN=$san "$BUILD/bin/ddp-echo" > "$T/build.log" 2>&1; then
	cat "$T/build.log"
	echo "FAIL: cannot build $BUILD/bin/ddp-echo"
	exit 1
fi

# A program of the RDMAP layer alone (ddp/rdmap.h, pkg-config libddp-rdmap):
# a dispatcher on a context, and RFC 5040 §4.8's Terminate decoded from the
# octets of (RDMAP, remote protection, access rights) with no headers.
cat > "$T/rdmap_prog.c" <<'PROG'
#include <stdio.h>
#include <ddp/rdmap.h>
int main(void)
{
	ddp_ctx *ctx;
	ddp_rdmap_dev *dev;
	static const unsigned char w[4] = { 0x01, 0x02, 0x00, 0x00 };
	const unsigned char *p = w;
	ddp_rdmap_term t;
	if (ddp_ctx_new(NULL, &ctx) || ddp_rdmap_dev_new(ctx, NULL, NULL, &dev) ||
	    ddp_rdmap_term_decode(&t, &p, w + 4))
		return 1;
	printf("rdmap: %u/%u/%u %s\n", t.layer, t.etype, t.code,
	       ddp_rdmap_term_str(t.layer, t.etype, t.code));
	return ddp_rdmap_dev_free(dev) || ddp_ctx_free(ctx);
}
PROG
rdmap_check() { # rdmap_check BINARY: it must decode (0, 1, 2)
	out=$(LD_LIBRARY_PATH="$libdir" timeout 15 "$1" 2>&1) && echo "$out" | grep -q "^rdmap: 0/1/2 "
}

# ---------------------------------------------------------------- install
D=$T/root
libdir=$D/usr/local/lib
if ! timeout 50 $MAKE --no-print-directory BUILD="$BUILD" SAN=$san DESTDIR="$D" \
	prefix=/usr/local install > "$T/install.log" 2>&1; then
	cat "$T/install.log"
	echo "FAIL: make install"
	exit 1
fi
version=$(sed -n 's/^AC_INIT(\[libddp\], *\[\([0-9.]*\)\].*/\1/p' configure.ac)
major=${version%%.*}

for h in $headers; do
	check "header ddp/$h.h installed" test -f "$D/usr/local/include/ddp/$h.h"
done
check "test-hook header ddp/debug.h not installed" test ! -e "$D/usr/local/include/ddp/debug.h"

# The API reference (make doc) in the doc directory, its index first:
# every function the installed headers export has an entry in the index
# whose link leads to an anchor in the reference, and no link of the index
# leads nowhere.
api=$D/usr/local/share/doc/libddp/api.md
check "make install puts the API reference in share/doc/libddp/api.md" test -s "$api"
apiref_index_ok() {
	awk '/^## / { n++ } n == 1' "$api" | grep -o '](#[A-Za-z0-9_]*)' | sed 's/^](#//; s/)$//' |
		LC_ALL=C sort -u > "$T/index"
	grep -o '<a id="[A-Za-z0-9_]*">' "$api" | sed 's/^<a id="//; s/">$//' | LC_ALL=C sort -u > "$T/anchors"
	grep -h '^DDP_API' "$D"/usr/local/include/ddp/*.h | grep -o 'ddp_[A-Za-z0-9_]* *(' | tr -d ' (' |
		LC_ALL=C sort -u > "$T/exported"
	[ -s "$T/exported" ] && head -1 "$api" | grep -q '^# libddp API reference' &&
		[ "$(awk '/^## / { print; exit }' "$api")" = "## Index" ] &&
		[ -z "$(LC_ALL=C comm -23 "$T/exported" "$T/index")" ] &&
		[ -z "$(LC_ALL=C comm -23 "$T/index" "$T/anchors")" ]
}
check "its index comes first and leads to every exported function ($(grep -c '^DDP_API' "$api" 2>/dev/null) declared)" \
	apiref_index_ok

for l in $libs; do
	so=$libdir/$l.so.$version
	check "$l: .a, .so.$version, .pc installed" \
		test -f "$libdir/$l.a" -a -f "$so" -a -f "$libdir/pkgconfig/$l.pc"
	check "$l: $l.so -> $l.so.$major -> $l.so.$version" \
		test "$(readlink "$libdir/$l.so")" = "$l.so.$major" -a \
		"$(readlink "$libdir/$l.so.$major")" = "$l.so.$version"
	check "$l: readelf -d shows SONAME $l.so.$major" \
		sh -c "readelf -d '$so' | grep -q 'Library soname: \[$l.so.$major\]'"
	# every exported function is a public ddp_* one; no test hooks
	check "$l: exports only ddp_* and no ddp_debug_*" \
		sh -c "nm -D --defined-only '$so' | awk '\$2 != \"A\" {print \$3}' | grep -v -e '^ddp_' -e '^\$' \
			| grep -q . && exit 1; ! nm -D --defined-only '$so' | grep -q ddp_debug_"
done
check "libddp.so links isal when the build uses it" \
	sh -c "! nm '$libdir/libddp.a' 2>/dev/null | grep -q 'U crc32_iscsi' ||
	       readelf -d '$libdir/libddp.so.$version' | grep -q 'NEEDED.*libisal'"
if [ $full = 0 ]; then
	export PKG_CONFIG_PATH="$libdir/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$D"
	# shellcheck disable=SC2046
	check "pkg-config --libs libddp" test "$(echo $(pkg-config --libs libddp))" = "-L$libdir -lddp"
	# shellcheck disable=SC2046
	check "an RDMAP program builds from pkg-config libddp-rdmap" \
		${CC:-cc} -o "$T/rdmap_prog" "$T/rdmap_prog.c" $xflags $(pkg-config --cflags --libs libddp-rdmap)
	check "the RDMAP program runs against the installed .so" rdmap_check "$T/rdmap_prog"
	$MAKE --no-print-directory BUILD="$BUILD" SAN=$san DESTDIR="$D" prefix=/usr/local \
		uninstall > /dev/null 2>&1
	check "make uninstall removes every installed file" test -z "$(find "$D" ! -type d)"
	echo "test_install: $nfail failed"
	[ $nfail -eq 0 ]
	exit
fi
check "libddp-mpa.so links libddp.so.$major and libevent_core" \
	sh -c "readelf -d '$libdir/libddp-mpa.so.$version' | grep -q 'NEEDED.*\[libddp.so.$major\]' &&
	       readelf -d '$libdir/libddp-mpa.so.$version' | grep -q 'NEEDED.*libevent_core'"
check "libddp-rdmap.so links libddp.so.$major" \
	sh -c "readelf -d '$libdir/libddp-rdmap.so.$version' | grep -q 'NEEDED.*\[libddp.so.$major\]'"
check "libddp-sctp.so links libddp.so.$major and libevent_core" \
	sh -c "readelf -d '$libdir/libddp-sctp.so.$version' | grep -q 'NEEDED.*\[libddp.so.$major\]' &&
	       readelf -d '$libdir/libddp-sctp.so.$version' | grep -q 'NEEDED.*libevent_core'"
# usrsctp: built into libddp-sctp from the patched source, every symbol of
# it local; or, with --with-system-usrsctp, the packaged libusrsctp.so
bundled=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $MAKE -s --no-print-directory BUILD="$BUILD" \
	--eval 'ddp-print-bundled: ; @echo $(USRSCTP_BUNDLED)' ddp-print-bundled)
if [ "$bundled" = 1 ]; then
	check "libddp-sctp.so carries usrsctp inside: no libusrsctp needed, no usrsctp_* exported" \
		sh -c "! readelf -d '$libdir/libddp-sctp.so.$version' | grep -q 'NEEDED.*libusrsctp' &&
		       ! nm -D --defined-only '$libdir/libddp-sctp.so.$version' | grep -q ' usrsctp_' &&
		       nm '$libdir/libddp-sctp.so.$version' | grep -q ' t usrsctp_init_nothreads'"
	check "libddp-sctp.a carries usrsctp inside, local" \
		sh -c "nm '$libdir/libddp-sctp.a' | grep -q ' t usrsctp_init_nothreads' &&
		       ! nm -g --defined-only '$libdir/libddp-sctp.a' | grep -q ' usrsctp_'"
else
	check "libddp-sctp.so links the packaged libusrsctp" \
		sh -c "readelf -d '$libdir/libddp-sctp.so.$version' | grep -q 'NEEDED.*libusrsctp'"
fi

# ----------------------------------------------------------- pkg-config
export PKG_CONFIG_PATH="$libdir/pkgconfig"
export PKG_CONFIG_SYSROOT_DIR="$D"
check "pkg-config --modversion libddp-sctp = $version" \
	test "$(pkg-config --modversion libddp-sctp)" = "$version"
flags=$(pkg-config --cflags --libs libddp-mpa libddp-sctp) || bad "pkg-config --cflags --libs"
echo "     pkg-config: $flags"
check "pkg-config --cflags hands out no dependency's defines (no -D)" \
	sh -c "! pkg-config --cflags libddp libddp-mpa libddp-sctp libddp-rdmap | grep -q -e '-D'"
check "pkg-config flags point into the DESTDIR" \
	sh -c "echo '$flags' | grep -q -e '-I$D/usr/local/include' && echo '$flags' | grep -q -e '-L$libdir'"
CC=${CC:-cc}
# every installed header compiles on its own, strict C11 and C++
for h in $headers; do
	echo "#include <ddp/$h.h>" > "$T/h.c"
	# shellcheck disable=SC2046
	check "ddp/$h.h compiles alone (-std=c11 -pedantic -Werror)" $CC -std=c11 -pedantic \
		-Wall -Wextra -Werror -fsyntax-only $(pkg-config --cflags libddp) "$T/h.c"
	if command -v c++ >/dev/null; then
		# shellcheck disable=SC2046
		check "ddp/$h.h compiles as C++" c++ -Wall -Werror -fsyntax-only -x c++ \
			$(pkg-config --cflags libddp) "$T/h.c"
	fi
done
check "echo_client builds from pkg-config alone" \
	$CC -o "$T/echo_client" examples/echo_client.c $xflags $flags
check "echo_client needs libddp-mpa.so.$major and libddp-sctp.so.$major" \
	sh -c "readelf -d '$T/echo_client' | grep -q 'NEEDED.*\[libddp-mpa.so.$major\]' &&
	       readelf -d '$T/echo_client' | grep -q 'NEEDED.*\[libddp-sctp.so.$major\]'"
# shellcheck disable=SC2046
check "an RDMAP program builds from pkg-config libddp-rdmap" \
	$CC -o "$T/rdmap_prog" "$T/rdmap_prog.c" $xflags $(pkg-config --cflags --libs libddp-rdmap)
check "the RDMAP program needs libddp-rdmap.so.$major" \
	sh -c "readelf -d '$T/rdmap_prog' | grep -q 'NEEDED.*\[libddp-rdmap.so.$major\]'"
check "the RDMAP program runs against the installed .so" rdmap_check "$T/rdmap_prog"

# Static: the same tree without the .so files; `pkg-config --static` must
# name every private dependency (libisal, pthread, and usrsctp unless it is
# built in).
cp -a "$D" "$T/sroot"
rm -f "$T"/sroot/usr/local/lib/*.so*
sflags=$(PKG_CONFIG_PATH="$T/sroot/usr/local/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$T/sroot" \
	pkg-config --static --cflags --libs libddp-mpa libddp-sctp)
check "echo_client links statically from pkg-config --static" \
	$CC -o "$T/echo_client_static" examples/echo_client.c $xflags $sflags
check "static echo_client needs no libddp*.so" \
	sh -c "! readelf -d '$T/echo_client_static' | grep -q 'NEEDED.*libddp'"
# shellcheck disable=SC2046
check "the RDMAP program links statically from pkg-config --static" \
	$CC -o "$T/rdmap_static" "$T/rdmap_prog.c" $xflags $(PKG_CONFIG_PATH="$T/sroot/usr/local/lib/pkgconfig" \
	PKG_CONFIG_SYSROOT_DIR="$T/sroot" pkg-config --static --cflags --libs libddp-rdmap)
check "the static RDMAP program runs" rdmap_check "$T/rdmap_static"

# ------------------------------------------------------------- run them
# Ports: the first free pair of 29600/1, 29602/3, ... 29608/9 (another
# build's make check may run this test at the same time); nobody listens
# on 29610.
for MPORT in 29600 29602 29604 29606 29608; do
	SPORT=$((MPORT + 1))
	"$BUILD/bin/ddp-echo" --mpa-listen 127.0.0.1:$MPORT --sctp-listen 127.0.0.1:$SPORT \
		2> "$T/echo.log" &
	server=$!
	i=0
	while [ $i -lt 50 ] && kill -0 $server 2>/dev/null &&
		! grep -q "SCTP listening" "$T/echo.log"; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -q "SCTP listening" "$T/echo.log" && break
	kill $server 2>/dev/null
	wait $server 2>/dev/null
	server=
done
check "ddp-echo started (MPA $MPORT, SCTP $SPORT)" grep -q "SCTP listening" "$T/echo.log"
run() { # run NAME BINARY ARGS...: the client must print the echo
	n=$1; shift
	out=$(LD_LIBRARY_PATH="$libdir" timeout 15 "$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && echo "$out" | grep -q "^echo: "; then ok "$n"; else
		bad "$n (rc=$rc)"; echo "$out"; fi
}
run "echo over MPA/TCP through the installed .so" "$T/echo_client" 127.0.0.1 $MPORT "mpa via pkg-config"
run "echo over SCTP through the installed .so" "$T/echo_client" --sctp 127.0.0.1 $SPORT "sctp via pkg-config"
run "echo over MPA/TCP, static link" "$T/echo_client_static" 127.0.0.1 $MPORT "static"
# and a client that must fail: nobody listens there
if LD_LIBRARY_PATH="$libdir" timeout 15 "$T/echo_client" 127.0.0.1 29610 x \
	>/dev/null 2>&1; then bad "echo_client fails without a server"; else
	ok "echo_client fails without a server"; fi
kill "$server"
wait "$server"
rc=$?
server=
check "ddp-echo exits 0 on SIGTERM" test $rc -eq 0
grep -q "mpa 2 messages, sctp 1 messages, 0 errors" "$T/echo.log" &&
	ok "ddp-echo counted 2 MPA + 1 SCTP messages" ||
	{ bad "ddp-echo message count"; cat "$T/echo.log"; }

# The installed examples: echo_server and echo_client built by their own
# Makefile (-Wall -Wextra -Werror) from the doc directory, through pkg-config,
# then the client talks to the server over both LLPs.
ex="$D/usr/local/share/doc/libddp/examples"
check "make install puts the examples (server, client, Makefile) in share/doc" \
	test -f "$ex/echo_server.c" -a -f "$ex/echo_client.c" -a -f "$ex/Makefile"
cp -r "$ex" "$T/ex"
if make -s -C "$T/ex" CC="$CC" CFLAGS="-O2 -Wall -Wextra -Werror $xflags" >"$T/ex.log" 2>&1; then
	ok "examples build from the installed tree (make -C examples, -Werror)"
else
	bad "examples build"; cat "$T/ex.log"
fi
for MPORT in 29620 29622 29624 29626; do
	SPORT=$((MPORT + 1))
	LD_LIBRARY_PATH="$libdir" "$T/ex/echo_server" 127.0.0.1 $MPORT $SPORT > "$T/exs.log" 2>&1 &
	server=$!
	i=0
	while [ $i -lt 50 ] && kill -0 $server 2>/dev/null && ! grep -q "SCTP on" "$T/exs.log"; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -q "SCTP on" "$T/exs.log" && break
	kill $server 2>/dev/null
	wait $server 2>/dev/null
	server=
done
run "example echo_server answers echo_client over MPA/TCP" "$T/ex/echo_client" 127.0.0.1 $MPORT "mpa example"
run "example echo_server answers echo_client over SCTP" "$T/ex/echo_client" --sctp 127.0.0.1 $SPORT "sctp example"
kill "$server"
wait "$server"
rc=$?
server=
check "echo_server exits 0 on SIGTERM" test $rc -eq 0

# ------------------------------------------------------------ uninstall
if timeout 50 $MAKE --no-print-directory BUILD="$BUILD" SAN=$san DESTDIR="$D" \
	prefix=/usr/local uninstall > "$T/uninstall.log" 2>&1; then
	left=$(find "$D" ! -type d)
	check "make uninstall removes every installed file" test -z "$left"
	[ -z "$left" ] || echo "$left"
	check "make uninstall removes include/ddp" test ! -e "$D/usr/local/include/ddp"
else
	cat "$T/uninstall.log"
	bad "make uninstall"
fi

# PREFIX (upper case) installs where it says, not under the configured prefix
P=$T/upper
if timeout 120 $MAKE --no-print-directory BUILD="$BUILD" SAN=$san PREFIX="$P" \
	install > "$T/upper.log" 2>&1; then
	check "make install PREFIX= installs under it" test -f "$P/include/ddp/ddp.h"
	timeout 50 $MAKE --no-print-directory BUILD="$BUILD" SAN=$san PREFIX="$P" \
		uninstall > /dev/null 2>&1
else
	cat "$T/upper.log"
	bad "make install PREFIX="
fi

echo "test_install: $nfail failed"
[ $nfail -eq 0 ]
