#!/bin/sh
# Layering rules (STYLE.md): the core (src/) never includes usrsctp, libevent
# or socket headers; adapters/mpa never includes libevent; only one file
# includes usrsctp.h. Exit 1 on a violation.
# (The usrsctp glue is four files, adapters/libevent/sctp_usrsctp.c,
# sctp_usrsctp_io.c, sctp_usrsctp_abort.c and sctp_usrsctp_rcvbuf.c; no other
# file may include usrsctp.h.)
cd "$(dirname "$0")/.." || exit 1
rc=0
bad=$(grep -rlE '#[[:space:]]*include[[:space:]]*[<"](usrsctp\.h|event2/|event\.h|sys/socket\.h|netinet/|arpa/|netdb\.h)' src include/ddp/ddp.h include/ddp/llp.h 2>/dev/null)
[ -n "$bad" ] && { echo "layering: core includes transport headers: $bad"; rc=1; }
# Each LLP's protocol code (adapters/mpa, adapters/sctp) includes neither
# libevent, usrsctp nor socket headers: the event-loop and socket glue of
# both LLPs lives in adapters/libevent (mpa_*, sctp_*). adapters/common
# (CRC32c, address formatting for the glue) stays off libevent and usrsctp.
bad=$(grep -rlE '#[[:space:]]*include[[:space:]]*[<"](event2/|event\.h|usrsctp\.h|sys/socket\.h|netinet/|arpa/|netdb\.h|linux/)' adapters/mpa adapters/sctp 2>/dev/null)
[ -n "$bad" ] && { echo "layering: LLP protocol code includes event-loop or socket headers: $bad"; rc=1; }
bad=$(grep -rlE '#[[:space:]]*include[[:space:]]*[<"](event2/|event\.h|usrsctp\.h)' adapters/common 2>/dev/null)
[ -n "$bad" ] && { echo "layering: adapters/common includes libevent/usrsctp: $bad"; rc=1; }
# no file in adapters/<llp>/ includes the glue (protocol code never calls up)
bad=$(grep -lE '#[[:space:]]*include[[:space:]]*"libevent/' adapters/mpa/* adapters/sctp/* 2>/dev/null)
[ -n "$bad" ] && { echo "layering: LLP protocol code includes the event-loop glue: $bad"; rc=1; }
bad=$(grep -rlE '#[[:space:]]*include[[:space:]]*[<"]usrsctp\.h' src adapters demos include tests 2>/dev/null |
	grep -vxE 'adapters/libevent/sctp_usrsctp(_io|_abort|_rcvbuf)?\.c')
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
