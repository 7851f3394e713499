#!/bin/sh
# Comments say what and why, as the code is now (docs/style.md, "Comments"):
# no history (how the code used to be, who proposed what) and no
# measurements (they live in docs/performance.md, with how they were taken)
# in the public headers and the libraries' sources and build files. A
# cheap check: a short list of phrases that only such text uses, so it does
# not fire on ordinary comments. Exit 1 on a hit, each printed.
cd "$(dirname "$0")/.." || exit 1
telltales='\bmeasured\b|\bmedians?\b|\b(it|we|they|this|that|which) used to\b|\bused to (get|be|take|have|run|cost)\b|\bproposed to\b|\bthe lead\b'
telltales="$telltales"'|\b[0-9.]+ ?(x|×) (faster|slower)\b|\b(paired|alternating|interleaved) runs?\b'
telltales="$telltales"'|\bon this machine\b|\bbefore (this|the) (change|fix|commit)\b|\bpreviously\b'
telltales="$telltales"'|\bissue #?[0-9]+\b'
bad=$(grep -rnEi "$telltales" include/ddp src adapters rdmap Makefile mk \
	--include='*.h' --include='*.c' --include='*.mk' --include=Makefile 2>/dev/null)
[ -z "$bad" ] && exit 0
echo "comments: history or a measurement (move it to docs/performance.md or the commit message):"
echo "$bad"
exit 1
