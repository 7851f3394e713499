# ddp-xfer over SCTP (usrsctp over UDP): a 50 MB random file over 4 DDP
# stream sessions of one association, --out identical (cmp), both ends
# print sha256sum's hash; then hash-only with odd chunk sizes on 5 streams.
# SCTP delivers unordered: the hashes prove DDP-ORD-5 / DDP-DLV-1 (in-order
# delivery per stream: DONE after its write) over RFC 5043 stream sessions
# opened with private data (RFC 5043 §6.2).
. "$(dirname "$0")/xfer_lib.sh"
head -c 50000000 /dev/urandom >"$W/f50" || fail "cannot make the test file"
transfer sctp4 sctp 29510 "$W/f50" 4 "$W/out"
transfer sctp5-hash sctp 29511 "$W/f50" 5 - --chunk 100000 --depth 3 -- --chunk 77777 --depth 2
exit 0
