# ddp-xfer over MPA/TCP: a 50 MB random file over 4 streams (4 TCP
# connections), --out identical (cmp), both ends print sha256sum's hash;
# then the same file without --out (hash only: out-of-order chunks held in
# their buffers), with buffers (100000 octets, 2 per stream) larger than
# the sender's writes (65536 octets, 3 in flight) and 7 streams.
# What it shows end to end: RFC 5041 §5.4 / DDP-DLV-1, DDP-ORD-5 (each
# DONE is delivered after its tagged write was placed: the receiver checks
# the placed length before it consumes a buffer, and the hash would differ
# otherwise); RFC 5044 §7.1.4 + RFC 6581 §9 (the Responder-speaks-first
# ULP works because the sender uses the peer-to-peer RTR start-up).
. "$(dirname "$0")/xfer_lib.sh"
head -c 50000000 /dev/urandom >"$W/f50" || fail "cannot make the test file"
transfer mpa4 mpa 29500 "$W/f50" 4 "$W/out"
transfer mpa7-hash mpa 29501 "$W/f50" 7 - --chunk 100000 --depth 2 -- --chunk 65536 --depth 3
exit 0
