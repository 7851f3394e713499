# Waiting helper for the program tests (sourced; not a test itself). POSIX
# sh; the sourcing script defines fail().

# wait_line FILE REGEX PID WHAT: wait until FILE has a line matching REGEX
# (grep), at most 10 s, while process PID runs; else fail "WHAT: ...".
wait_line() {
	wl_i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		wl_i=$((wl_i + 1))
		[ $wl_i -le 100 ] || fail "$4: nothing in 10 s: $(tail -n1 "$1" 2>/dev/null)"
		kill -0 "$3" 2>/dev/null || fail "$4: process $3 ended: $(tail -n1 "$1" 2>/dev/null)"
		sleep 0.1
	done
}
