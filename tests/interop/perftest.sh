# Sourced by check-interop.sh (uses VM, PT, T, PORT, PN, res): perftest's
# tools in the siw VM against ddp-perftest, both roles, one VM run per role;
# inside it the perftest runs go one after another, each bounded by
# timeout(1). A VM run that ends with siw-vm's 125 (harness failure) fails
# every run it carried, saying so.

# TEST SIZE QPS, bandwidth at every size with 1 and 4 queue pairs
pt_bw_runs() {
	for t in write_bw read_bw send_bw; do
		for s in 2 4096 65536; do
			for q in ${INTEROP_PT_QPS:-1 4}; do echo "$t $s $q"; done
		done
	done
}

# the section of run $2 in the guest's output $1
pt_section() {
	awk -v i="$2" '$0 ~ "^guest: PTRUN " i "$" {on=1; next}
		$0 ~ "^guest: PTRC " i " " {on=0} on' "$1"
}
pt_grc() { sed -n "s/^guest: PTRC $2 \([0-9]*\)$/\1/p" "$1"; }
# #iterations of the first table row for SIZE in a table (prefix: "guest: " or "")
pt_iters() { # FILE PREFIX SIZE
	sed -n "s/^$2 *$3  *\([0-9][0-9]*\)  .*/\1/p" "$1" | head -1
}

# check one run: TEST SIZE QPS perftest-rc perftest-section ours-rc ours-output role
pt_check() {
	local want=$((PN * $3)) theirs ours why
	case $1 in *_lat) want=$PN ;; esac
	theirs=$(pt_iters "$5" "guest:" "$2")
	ours=$(pt_iters "$7" "" "$2")
	why="perftest rc=$4 iterations=${theirs:-none}, ddp-perftest rc=$6 iterations=${ours:-none}: $(tail -1 "$7")"
	if [ "$1" = read_lat ] && [ "$8" = server ]; then
		ours=$want # perftest's read_lat server prints no table either
	fi
	if [ "$1" = read_lat ] && [ "$8" = client ]; then
		theirs=$want
	fi
	[ "$4" = 0 ] && [ "$6" = 0 ] && [ "$theirs" = "$want" ] && [ "$ours" = "$want" ]
	res $? "ib_$1 -R $([ "$8" = server ] && echo "-> ddp-perftest server" || echo "server <- ddp-perftest"), -s $2 -q $3" "$why"
}

PT_TMO=${INTEROP_PT_TIMEOUT:-60}
export SIW_VM_TIMEOUT=${INTEROP_PT_VM_TIMEOUT:-420}

# ------------------------------------------------ siw's perftest client -> ddp-perftest
{ pt_bw_runs; echo "read_lat 2 1"; echo "read_lat 4096 1"; } >"$T/runsA"
i=0; fw=""; specs=""
while read -r t s q; do
	p=$((PORT + 1 + i))
	"$PT" "$t" -s "$s" -q "$q" -n "$PN" -p $p --bind 127.0.0.1 -F \
		--timeout $((SIW_VM_TIMEOUT + 30)) >"$T/a$i" 2>&1 &
	echo $! >"$T/a$i.pid"
	fw="$fw${fw:+,}@$p"
	case $t in *_lat) gq=0 ;; *) gq=$q ;; esac # perftest's _lat take no -q
	specs="$specs $t:$s:$gq:$p:$PT_TMO"
	i=$((i + 1))
done <"$T/runsA"
# write_lat with ddp-perftest as the MPA Responder: must fail with its reason
p=$((PORT + 1 + i))
"$PT" write_lat -s 2 -n "$PN" -p $p --bind 127.0.0.1 --timeout $((SIW_VM_TIMEOUT + 30)) \
	>"$T/alat" 2>&1 &
echo $! >"$T/alat.pid"
fw="$fw,@$p"
specs="$specs write_lat:2:0:$p:20"
PORT=$((p + 1))
# the guest's job goes on the kernel command line: a loop over short specs
gs='i=0; for r in'"$specs"'; do set -- $(echo $r | tr : " "); echo PTRUN $i;
[ $3 = 0 ] && q= || q="-q $3";
timeout $5 ib_$1 -R -d siw0 -F -s $2 $q -n '"$PN"' -p $4 10.0.2.100; echo PTRC $i $?;
i=$((i + 1)); done'
"$VM" run "$fw" -- sh -c "$gs" >"$T/vmA" 2>&1
vrc=$?
# every guest client ended: a server still waiting now waits for nothing
sleep 3
for f in "$T"/a*.pid; do kill "$(cat "$f")" 2>/dev/null; done
i=0
while read -r t s q; do
	wait "$(cat "$T/a$i.pid")"; orc=$?
	pt_section "$T/vmA" $i >"$T/secA$i"
	grc=$(pt_grc "$T/vmA" $i)
	[ $vrc = 125 ] && grc="siw-vm 125 (harness failure)"
	pt_check "$t" "$s" "$q" "${grc:-none (siw-vm rc=$vrc)}" "$T/secA$i" $orc "$T/a$i" server
	i=$((i + 1))
done <"$T/runsA"
wait "$(cat "$T/alat.pid")"; orc=$?
grc=$(pt_grc "$T/vmA" $i)
[ $orc = 1 ] && grep -q "RFC 5044 §7.1.4" "$T/alat" && [ $vrc != 125 ]
res $? "ib_write_lat -R -> ddp-perftest server: refused with its reason (MPA Responder writes first)" \
	"ddp-perftest rc=$orc, perftest rc=${grc:-none}, siw-vm rc=$vrc: $(tail -1 "$T/alat")"

# ------------------------------------------------ ddp-perftest -> siw's perftest server
{ pt_bw_runs; for s in 2 4096; do echo "write_lat $s 1"; echo "read_lat $s 1"; done; } >"$T/runsB"
p=$PORT
specs=""
while read -r t s q; do
	case $t in *_lat) q=0 ;; esac
	specs="$specs $t:$s:$q"
done <"$T/runsB"
gs='i=0; for r in'"$specs"'; do set -- $(echo $r | tr : " "); echo PTRUN $i;
[ $3 = 0 ] && q= || q="-q $3";
timeout '"$PT_TMO"' ib_$1 -R -d siw0 -F -s $2 $q -n '"$PN -p $p"'; echo PTRC $i $?;
i=$((i + 1)); done'
"$VM" run "$p:$p" -- sh -c "$gs" >"$T/vmB" 2>&1 &
v=$!
until grep -q '^SIWVM: READY' "$T/vmB"; do kill -0 $v 2>/dev/null || break; sleep 0.2; done
i=0
while read -r t s q; do
	if kill -0 $v 2>/dev/null; then
		"$PT" "$t" -s "$s" -q "$q" -n "$PN" -p $p -F --timeout $PT_TMO 127.0.0.1 \
			>"$T/b$i" 2>&1 </dev/null
		echo $? >"$T/b$i.rc"
	else
		echo "not run: the VM had ended" >"$T/b$i"
		echo 125 >"$T/b$i.rc"
	fi
	i=$((i + 1))
done <"$T/runsB"
wait $v; vrc=$?
i=0
while read -r t s q; do
	pt_section "$T/vmB" $i >"$T/secB$i"
	grc=$(pt_grc "$T/vmB" $i)
	[ $vrc = 125 ] && grc="siw-vm 125 (harness failure)"
	pt_check "$t" "$s" "$q" "${grc:-none (siw-vm rc=$vrc)}" "$T/secB$i" "$(cat "$T/b$i.rc")" "$T/b$i" client
	i=$((i + 1))
done <"$T/runsB"
[ -z "${INTEROP_KEEP:-}" ] || cp -r "$T" "$INTEROP_KEEP"
