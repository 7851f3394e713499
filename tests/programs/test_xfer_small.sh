# ddp-xfer edge sizes on both LLPs: a 0-byte file (8 streams: every stream
# carries only END/RESULT), a 1-byte file (2 streams: one carries nothing),
# and chunk-boundary sizes (chunk - 1, chunk, chunk + 1 with --chunk 4096)
# over MPA.
. "$(dirname "$0")/xfer_lib.sh"
: >"$W/f0"
printf 'x' >"$W/f1"
transfer mpa-empty mpa 29520 "$W/f0" 8 "$W/o0"
transfer mpa-one mpa 29521 "$W/f1" 2 "$W/o1"
transfer sctp-empty sctp 29522 "$W/f0" 8 "$W/o2"
transfer sctp-one sctp 29523 "$W/f1" 2 "$W/o3"
port=29524
for n in 4095 4096 4097 12289; do
	head -c $n /dev/urandom >"$W/f$n"
	transfer "mpa-$n" mpa $port "$W/f$n" 3 "$W/o$n" --chunk 4096 --depth 1 -- --chunk 4096
	port=$((port + 1))
done
exit 0
