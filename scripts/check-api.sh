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
