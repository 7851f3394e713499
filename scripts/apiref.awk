# apiref.awk: the API reference, made from the installed headers' own
# comments (make doc). For every header: each comment block that stands
# right before a DDP_API declaration, a typedef or a #define, with the
# declaration itself, in the header's order, as Markdown. Declarations that
# follow one another without a blank line share the comment above them.
# Each function, call macro and type gets an anchor (<a id="NAME">), and
# an index of them, header by header, comes first.
# With -v check=1 it prints nothing but "FILE:LINE: undocumented NAME" for
# every DDP_API function without such a comment, and exits 1 if any.
function flush_comment() { cbuf = ""; have_c = 0 }
# the reference is kept until the end, so that the index can come first
function out(l) { body[++nbody] = l }
function anchor(name, what) {
	if (name == "" || (name in anchored)) return
	anchored[name] = 1
	out("<a id=\"" name "\"></a>")
	idx[hdr] = idx[hdr] (idx[hdr] == "" ? "" : ", ") "[`" name what "`](#" name ")"
}
function strip(l) {
	sub(/^[ \t]*\/\*+ ?/, "", l); sub(/[ \t]*\*+\/[ \t]*$/, "", l)
	sub(/^[ \t]*\* ?/, "", l); return l
}
FNR == 1 {
	if (!check) {
		if (NR > 1) out("")
		hdr = FILENAME; sub(/.*\//, "", hdr); hdr = "ddp/" hdr; hdrs[++nhdr] = hdr
		out("## " hdr); out("")
	}
	flush_comment(); in_c = 0; in_decl = 0; group_ok = 0; prev_decl = 0; first = 1
}
{
	line = $0
	if (in_decl) {
		dbuf = dbuf "\n" line
		if (decl_end(line)) { emit(); in_decl = 0 }
		next
	}
	if (in_c) {
		cbuf = cbuf "\n" strip(line)
		if (line ~ /\*\//) { in_c = 0; have_c = 1; opening() }
		next
	}
	if (line ~ /^\/\*/) {
		# the file's opening comment describes the header
		cbuf = strip(line); prev_decl = 0
		if (line ~ /\*\//) { have_c = 1; opening() } else in_c = 1
		next
	}
	if (line ~ /^[ \t]*$/) { flush_comment(); prev_decl = 0; next }
	# the macro that passes a call's struct sizes (DDP_SIZES, export.h)
	# belongs to the declaration before it
	if (line ~ /^#define ddp_[a-z0-9_]+\(\.\.\.\)/) {
		mbuf = line
		while (line ~ /\\$/ && (getline line) > 0)
			mbuf = mbuf "\n" line
		if (!check) {
			m = mbuf; sub(/^#define /, "", m); sub(/\(.*/, "", m)
			anchor(m, "()")
			out("```c"); out(mbuf); out("```"); out("")
		}
		next
	}
	if (line ~ /^DDP_API/ || line ~ /^typedef/ || (line ~ /^#define DDP_/ && line !~ /_H$/) || line ~ /^enum [a-z_]+ *\{/ || line ~ /^struct [a-z_]+ *\{/) {
		dbuf = line; kind = line ~ /^DDP_API/ ? "f" : "t"; start = FNR
		documented = have_c || (prev_decl && group_ok)
		if (decl_end(line)) emit(); else in_decl = 1
		next
	}
	flush_comment(); prev_decl = 0
}
# the file's opening comment describes the header: printed as it stands
function opening() {
	if (!first) return
	first = 0
	if (!check) { out(cbuf); out("") }
	flush_comment()
}
function decl_end(l) {
	if (kind == "t" && dbuf ~ /^#define/) return l !~ /\\$/
	if (kind == "t" && dbuf ~ /\{/) return l ~ /^\}.*;[ \t]*$/
	return l ~ /;[ \t]*$/ || l ~ /;[ \t]*\/\*.*\*\/[ \t]*$/
}
function emit(   name) {
	name = dbuf
	if (kind == "f") {
		match(name, /ddp_[A-Za-z0-9_]+ *\(/); name = substr(name, RSTART, RLENGTH)
		sub(/ *\($/, "", name)
		if (!documented) { undoc++; if (check) print FILENAME ":" start ": undocumented " name }
	}
	if (!check) {
		if (kind == "f") anchor(name, "()")
		else if (dbuf ~ /^typedef struct [a-z0-9_]+ \{/ || dbuf ~ /^typedef enum/ || dbuf ~ /^typedef [^(]*;/) {
			t = dbuf; sub(/;[^;]*$/, "", t); sub(/.*[ *}]/, "", t)
			if (t ~ /^ddp_/) anchor(t, "")
		}
		if (have_c) { out(cbuf); out("") }
		out("```c"); out(dbuf); out("```"); out("")
	}
	group_ok = documented; prev_decl = 1; flush_comment(); first = 0
}
END {
	if (check) { if (undoc) exit 1; exit 0 }
	print "## Index"; print ""
	for (i = 1; i <= nhdr; i++)
		if (idx[hdrs[i]] != "") { print "* " hdrs[i] ": " idx[hdrs[i]]; print "" }
	for (i = 1; i <= nbody; i++) print body[i]
}
