#!/bin/sh
# Layering rules (STYLE.md): the core (src/) never includes usrsctp, libevent
# or socket headers; adapters/mpa never includes libevent; only one file
# includes usrsctp.h. Exit 1 on a violation.
# (The usrsctp glue is two files, adapters/sctp/sctp_usrsctp.c and
# sctp_usrsctp_io.c; no other file may include usrsctp.h.)
cd "$(dirname "$0")/.." || exit 1
rc=0
bad=$(grep -rlE '#[[:space:]]*include[[:space:]]*[<"](usrsctp\.h|event2/|event\.h|sys/socket\.h|netinet/|arpa/|netdb\.h)' src include/ddp/ddp.h include/ddp/llp.h 2>/dev/null)
[ -n "$bad" ] && { echo "layering: core includes transport headers: $bad"; rc=1; }
bad=$(grep -rlE '#[[:space:]]*include[[:space:]]*[<"](event2/|event\.h|usrsctp\.h)' adapters/mpa adapters/common 2>/dev/null)
[ -n "$bad" ] && { echo "layering: adapters/mpa or common includes libevent/usrsctp: $bad"; rc=1; }
bad=$(grep -rlE '#[[:space:]]*include[[:space:]]*[<"]usrsctp\.h' src adapters demos include tests 2>/dev/null |
	grep -vxE 'adapters/sctp/sctp_usrsctp(_io)?\.c')
[ -n "$bad" ] && { echo "layering: usrsctp.h included outside the usrsctp glue: $bad"; rc=1; }
# libddp-rdmap (rdmap/) sits on the public DDP API: ddp/*.h, its own files
# and the header-only cursor (src/cursor.h); no core internals, no transports.
bad=$(grep -hE '#[[:space:]]*include[[:space:]]*"' rdmap/*.c rdmap/*.h 2>/dev/null |
	grep -vE '"(rdmap_[a-z_]+\.h|cursor\.h)"')
[ -n "$bad" ] && { echo "layering: rdmap/ includes internals: $bad"; rc=1; }
bad=$(grep -lE '#[[:space:]]*include[[:space:]]*<(event2/|event\.h|usrsctp\.h|sys/socket\.h|netinet/)' rdmap/* include/ddp/rdmap.h 2>/dev/null)
[ -n "$bad" ] && { echo "layering: rdmap/ includes transport headers: $bad"; rc=1; }
exit $rc
