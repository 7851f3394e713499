#!/bin/sh
# Layering rules (docs/style.md): the core (src/) never includes usrsctp,
# libevent or socket headers; each LLP's protocol code never includes its
# glue; only the usrsctp glue includes usrsctp.h. Exit 1 on a violation.
cd "$(dirname "$0")/.." || exit 1
rc=0
bad=$(grep -rlE '#[[:space:]]*include[[:space:]]*[<"](usrsctp\.h|event2/|event\.h|sys/socket\.h|netinet/|arpa/|netdb\.h)' src include/ddp/ddp.h include/ddp/llp.h 2>/dev/null)
[ -n "$bad" ] && { echo "layering: core includes transport headers: $bad"; rc=1; }
# Folders (docs/design.md, "Folders"): each LLP is one tree, its protocol
# code on top of the tree's root and its glue in sub-folders:
#   adapters/mpa/*       RFC 5044 machine: no libevent, socket or Linux
#                        headers, nothing of its glue (adapters/mpa/tcp/)
#   adapters/sctp/*      RFC 5043 adaptation: no libevent, usrsctp or socket
#                        headers (its setup binds to adapters/event/conn_setup.h,
#                        which names none)
#   adapters/sctp/udp/   RFC 6951 encapsulation: nothing of usrsctp
#   adapters/event/      event glue both LLPs share: no LLP code, no usrsctp
#   adapters/common/     no libevent, no usrsctp
# Inside an LLP tree includes point down only: a sub-folder never includes
# its parent's headers, udp/ never includes usrsctp/'s.
hdr_ev='#[[:space:]]*include[[:space:]]*[<"](event2/|event\.h|usrsctp\.h|sys/socket\.h|netinet/|arpa/|netdb\.h|linux/)'
bad=$(grep -lE "$hdr_ev" adapters/mpa/*.[ch] adapters/sctp/*.[ch] 2>/dev/null)
[ -n "$bad" ] && { echo "layering: LLP protocol code includes event-loop or socket headers: $bad"; rc=1; }
bad=$(grep -lE '#[[:space:]]*include[[:space:]]*"mpa/tcp/' adapters/mpa/*.[ch] 2>/dev/null)
[ -n "$bad" ] && { echo "layering: the MPA machine includes its socket glue: $bad"; rc=1; }
bad=$(grep -lE '#[[:space:]]*include[[:space:]]*"sctp/sctp_[a-z_]*\.h"' adapters/sctp/usrsctp/* adapters/sctp/udp/* 2>/dev/null)
[ -n "$bad" ] && { echo "layering: SCTP glue includes the RFC 5043 adaptation above it: $bad"; rc=1; }
bad=$(grep -lE '#[[:space:]]*include[[:space:]]*[<"](sctp/usrsctp/|usrsctp\.h)' adapters/sctp/udp/* 2>/dev/null)
[ -n "$bad" ] && { echo "layering: the UDP encapsulation includes the usrsctp glue: $bad"; rc=1; }
bad=$(grep -lE '#[[:space:]]*include[[:space:]]*[<"](mpa/|sctp/|usrsctp\.h)' adapters/event/* 2>/dev/null)
[ -n "$bad" ] && { echo "layering: adapters/event includes LLP code: $bad"; rc=1; }
bad=$(grep -rlE '#[[:space:]]*include[[:space:]]*[<"](event2/|event\.h|usrsctp\.h)' adapters/common 2>/dev/null)
[ -n "$bad" ] && { echo "layering: adapters/common includes libevent/usrsctp: $bad"; rc=1; }
# usrsctp.h: only the files of the usrsctp glue named sctp_usrsctp*.c
bad=$(grep -rlE '#[[:space:]]*include[[:space:]]*[<"]usrsctp\.h' src adapters demos include tests 2>/dev/null |
	grep -vxE 'adapters/sctp/usrsctp/sctp_usrsctp(_[a-z]+)?\.c')
[ -n "$bad" ] && { echo "layering: usrsctp.h included outside the usrsctp glue: $bad"; rc=1; }
# libddp-rdmap (rdmap/) sits on the public DDP API: ddp/*.h, its own files
# and the header-only cursor (src/cursor.h), lifetime rule (src/life.h) and
# struct-size reader (src/abi.h);
# no core internals, no transports.
bad=$(grep -hE '#[[:space:]]*include[[:space:]]*"' rdmap/*.c rdmap/*.h 2>/dev/null |
	grep -vE '"(rdmap_[a-z_]+\.h|cursor\.h|life\.h|abi\.h)"')
[ -n "$bad" ] && { echo "layering: rdmap/ includes internals: $bad"; rc=1; }
bad=$(grep -lE '#[[:space:]]*include[[:space:]]*<(event2/|event\.h|usrsctp\.h|sys/socket\.h|netinet/)' rdmap/* include/ddp/rdmap.h 2>/dev/null)
[ -n "$bad" ] && { echo "layering: rdmap/ includes transport headers: $bad"; rc=1; }
# Programs (demos/, tools/) are applications of the library: they include
# the installed headers (<ddp/NAME.h>), their own files (same folder) and
# one internal header, adapters/ddp_test.h (test and benchmark hooks);
# nothing else of src/ or adapters/.
bad=$(for f in $(find demos tools -name '*.[ch]' 2>/dev/null | sort); do
	d=$(dirname "$f")
	sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*)".*/\1/p' "$f" |
		while read -r h; do
			[ "$h" = ddp_test.h ] && continue
			case $h in */*) echo "$f:$h" ;; *) [ -f "$d/$h" ] || echo "$f:$h" ;; esac
		done
done)
[ -n "$bad" ] && { echo "layering: a program includes internals other than ddp_test.h: $bad"; rc=1; }
# Byte order lives in src/cursor.h: no parser or encoder in src/
# or adapters/ assembles or splits multi-octet fields by hand, i.e. shifts an
# array octet left by a multiple of 8 (p[0] << 8) or casts a value shifted
# right by one to uint8_t ((uint8_t)(v >> 8)). Excepted: the cursor itself
# and the CRC32c table code (adapters/common/crc32c.c, its word loads).
bad=$(grep -rlE '\][[:space:]]*\)?[[:space:]]*<<[[:space:]]*(8|16|24|32|40|48|56)([^0-9]|$)|\(uint8_t\)[[:space:]]*\(?[^;]*>>[[:space:]]*(8|16|24|32|40|48|56)([^0-9]|$)' \
	src adapters --include='*.c' --include='*.h' 2>/dev/null |
	grep -vxE 'src/cursor\.h|adapters/common/crc32c\.c')
[ -n "$bad" ] && { echo "layering: byte order by hand outside src/cursor.h: $bad"; rc=1; }
exit $rc
