#!/bin/sh
# Programs built against the 1.0 headers keep working with these shared
# libraries. The 1.0 headers declared each call that takes a struct as the
# function ddp_x(..., uint64_t sizes) behind a macro of the same name; it
# is now ddp_x_sized(..., sizes), and the libraries keep ddp_x@LIBDDP_1 as
# a second name of it (mk/install.mk). Checks:
#  - every function the 1.0 baseline (abi/*.abi) records is exported by
#    the built $BUILD/lib/*.so at the same version, LIBDDP_1;
#  - a program declared as the 1.0 headers declared the calls (the macros
#    undone, ddp_x given ddp_x_sized's type) links to ddp_x@LIBDDP_1, and
#    runs against the shared libraries: it creates a context, registers a
#    buffer, counts it, makes an RDMAP dispatcher and fills its callback
#    table, listens over MPA/TCP, all through the 1.0 names.
# Exit 0 = pass. Usage (from the top directory):
#   BUILD=build sh tests/programs/test_abi_compat.sh
set -u
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
CC=${CC:-cc}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1

T=$(mktemp -d "${TMPDIR:-/tmp}/ddp-abi-compat.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM HUP

nfail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; nfail=$((nfail + 1)); }

for tool in nm objdump; do
	command -v $tool >/dev/null || { echo "FAIL: $tool not installed"; exit 1; }
done
san=0
xflags=
if nm "$BUILD/lib/libddp.a" 2>/dev/null | grep -q '__asan_'; then
	san=1
	xflags="-fsanitize=address,undefined"
fi
libs="libddp libddp-rdmap"
if [ "$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $MAKE -s --no-print-directory BUILD="$BUILD" \
	--eval 'ddp-print-have: ; @echo $(HAVE_LIBEVENT)$(HAVE_USRSCTP)' ddp-print-have)" = 11 ]
then
	libs="libddp libddp-mpa libddp-sctp libddp-rdmap"
else
	xflags="$xflags -DCOMPAT_CORE_ONLY"
fi
if ! timeout 240 $MAKE --no-print-directory BUILD="$BUILD" SAN=$san shared > "$T/build.log" 2>&1; then
	cat "$T/build.log"
	echo "FAIL: make shared"
	exit 1
fi

# every 1.0 function, at its version
for l in $libs; do
	[ -f "abi/$l.abi" ] || { bad "no baseline abi/$l.abi"; continue; }
	so=$(ls "$BUILD/lib/$l.so".*.*.* 2>/dev/null | head -1)
	[ -n "$so" ] || { bad "$l: no $BUILD/lib/$l.so.*"; continue; }
	grep -o "<elf-symbol name='[A-Za-z0-9_]*' version='[A-Za-z0-9_]*'[^>]*type='func-type'" "abi/$l.abi" |
		sed "s/^<elf-symbol name='\([^']*\)' version='\([^']*\)'.*/\1@@\2/" | LC_ALL=C sort -u > "$T/old"
	LC_ALL=C nm -D --defined-only "$so" | awk '{ print $3 }' | LC_ALL=C sort -u > "$T/new"
	missing=$(LC_ALL=C comm -23 "$T/old" "$T/new")
	if [ ! -s "$T/old" ]; then
		bad "$l: no function in abi/$l.abi"
	elif [ -z "$missing" ]; then
		ok "$l.so exports all $(wc -l < "$T/old") functions of the 1.0 baseline at their version"
	else
		bad "$l.so lacks 1.0 functions: $(echo "$missing" | tr '\n' ' ')"
	fi
done

cat > "$T/old_prog.c" <<'EOF'
/* What a program built with the 1.0 headers calls: ddp_x(..., sizes). */
#include <stdio.h>
#include <string.h>
#include <ddp/ddp.h>
#include <ddp/rdmap.h>
#undef ddp_ctx_new
#undef ddp_ctx_live_objects
#undef ddp_stag_register
#undef ddp_rdmap_dev_new
#undef ddp_rdmap_dev_callbacks
__typeof__(ddp_ctx_new_sized) ddp_ctx_new;
__typeof__(ddp_ctx_live_objects_sized) ddp_ctx_live_objects;
__typeof__(ddp_stag_register_sized) ddp_stag_register;
__typeof__(ddp_rdmap_dev_new_sized) ddp_rdmap_dev_new;
__typeof__(ddp_rdmap_dev_callbacks_sized) ddp_rdmap_dev_callbacks;
#ifndef COMPAT_CORE_ONLY
#include <netinet/in.h>
#include <ddp/mpa.h>
#undef ddp_mpa_listen
__typeof__(ddp_mpa_listen_sized) ddp_mpa_listen;
struct event_base *event_base_new(void);
void event_base_free(struct event_base *);
static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)s; (void)d; (void)user;
}
#endif
#define FAIL(what) do { printf("fail: %s\n", what); return 1; } while (0)
int main(void)
{
	ddp_ctx *ctx = NULL;
	ddp_pd *pd = NULL;
	ddp_ctx_config cfg = { .max_stags = 2 };
	static char buf[64];
	uint32_t stag, more;
	if (ddp_ctx_new(&cfg, &ctx, DDP_SIZES1(ddp_ctx_config)) || ddp_pd_new(ctx, &pd))
		FAIL("ddp_ctx_new");
	ddp_mr_attr mr = { .addr = buf, .len = sizeof(buf), .pd = pd };
	if (ddp_stag_register(ctx, &mr, &stag, DDP_SIZES1(ddp_mr_attr)) ||
	    ddp_stag_register(ctx, &mr, &more, DDP_SIZES1(ddp_mr_attr)))
		FAIL("ddp_stag_register");
	/* cfg was read: max_stags 2 */
	if (ddp_stag_register(ctx, &mr, &more, DDP_SIZES1(ddp_mr_attr)) != DDP_ERR_LIMIT)
		FAIL("max_stags");
	ddp_ctx_live live;
	memset(&live, 0xff, sizeof(live));
	if (ddp_ctx_live_objects(ctx, &live, DDP_SIZES1(ddp_ctx_live)) || live.stags != 2 ||
	    live.pds != 1 || live.sessions != 0)
		FAIL("ddp_ctx_live_objects");
	ddp_rdmap_dev *dev = NULL;
	ddp_callbacks cb;
	memset(&cb, 0, sizeof(cb));
	if (ddp_rdmap_dev_new(ctx, NULL, NULL, &dev, DDP_SIZES1(ddp_callbacks)))
		FAIL("ddp_rdmap_dev_new");
	ddp_rdmap_dev_callbacks(&cb, DDP_SIZES1(ddp_callbacks));
	if (!cb.deliver || cb.writable)
		FAIL("ddp_rdmap_dev_callbacks");
	printf("core: 2 STags, 1 PD; rdmap: callbacks filled\n");
#ifndef COMPAT_CORE_ONLY
	struct event_base *base = event_base_new();
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001) };
	ddp_callbacks dcb = { .deliver = on_deliver };
	ddp_mpa_listener *l = NULL;
	if (!base || ddp_mpa_listen(base, ctx, (struct sockaddr *)&sin, sizeof(sin), NULL, &dcb, NULL,
	                            NULL, NULL, &l, DDP_SIZES2(ddp_mpa_config, ddp_callbacks)) ||
	    ddp_mpa_listener_port(l) <= 0)
		FAIL("ddp_mpa_listen");
	printf("mpa: listening on 127.0.0.1:%d\n", ddp_mpa_listener_port(l));
	ddp_mpa_listener_free(l);
#endif
	if (ddp_stag_invalidate(ctx, stag) || ddp_stag_invalidate(ctx, more) ||
	    ddp_rdmap_dev_free(dev) || ddp_pd_free(pd) || ddp_ctx_free(ctx))
		FAIL("free");
#ifndef COMPAT_CORE_ONLY
	event_base_free(base);
#endif
	return 0;
}
EOF
ldflags="-L$BUILD/lib -lddp-rdmap -lddp"
case $libs in *libddp-mpa*) ldflags="-L$BUILD/lib -lddp-mpa -lddp-rdmap -lddp -levent_core" ;; esac
# shellcheck disable=SC2086
if $CC -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Iinclude $xflags -o "$T/old_prog" "$T/old_prog.c" \
	$ldflags > "$T/cc.log" 2>&1; then
	ok "a program with the 1.0 declarations builds against $BUILD/lib/*.so"
else
	bad "the 1.0 program does not build:"
	head -20 "$T/cc.log"
fi
if [ -x "$T/old_prog" ]; then
	refs=$(objdump -T "$T/old_prog" | awk '/\*UND\*/ && $NF ~ /^ddp_/ { print $(NF-1), $NF }')
	if echo "$refs" | grep -q '^(LIBDDP_1) ddp_ctx_new$' &&
		echo "$refs" | grep -q '^(LIBDDP_1) ddp_rdmap_dev_callbacks$' &&
		! echo "$refs" | grep -q '_sized$'; then
		ok "it links to the 1.0 names at LIBDDP_1 (no _sized one)"
	else
		bad "its references are not the 1.0 names at LIBDDP_1:"
		echo "$refs"
	fi
	if LD_LIBRARY_PATH="$BUILD/lib" timeout 15 "$T/old_prog" > "$T/run.log" 2>&1; then
		ok "it runs: $(tr '\n' ';' < "$T/run.log")"
	else
		bad "the 1.0 program fails:"
		cat "$T/run.log"
	fi
fi

echo "test_abi_compat: $nfail failed"
[ $nfail -eq 0 ]
