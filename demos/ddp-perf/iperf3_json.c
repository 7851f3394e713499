/* ddp-perf: the numbers of an iperf3 -J result (iperf3_json.h). A scan
 * that knows strings and nesting, enough to find a key of one object;
 * every step checks the end of the input. */
#include "iperf3_json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_ws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* p at an opening quote: the octet after the closing one, or NULL. */
static const char *string_end(const char *p, const char *e)
{
	for (p++; p < e; p++) {
		if (*p == '\\') {
			if (++p == e)
				return NULL;
		} else if (*p == '"') {
			return p + 1;
		}
	}
	return NULL;
}

/* o at '{': the value of key among that object's own members (not those
 * of objects inside it), or NULL. *end: where the object ends (after its
 * '}', or e if it does not). */
static const char *member(const char *o, const char *e, const char *key, const char **end)
{
	size_t klen = strlen(key);
	const char *found = NULL;
	int depth = 0;
	*end = e;
	if (o >= e || *o != '{')
		return NULL;
	for (const char *p = o; p < e;) {
		if (*p == '"') {
			const char *q = string_end(p, e);
			if (!q)
				return NULL;
			const char *v = skip_ws(q, e);
			if (!found && depth == 1 && v < e && *v == ':' && (size_t)(q - p) == klen + 2 &&
			    !memcmp(p + 1, key, klen))
				found = skip_ws(v + 1, e);
			p = q;
			continue;
		}
		if (*p == '{' || *p == '[')
			depth++;
		else if ((*p == '}' || *p == ']') && --depth == 0) {
			*end = p + 1;
			return found;
		}
		p++;
	}
	return NULL; /* unterminated: nothing in it counts */
}

/* The member key of the object at o as a finite, non-negative number. */
static int number(const char *o, const char *e, const char *key, double *out)
{
	const char *end, *v = member(o, e, key, &end);
	char buf[64];
	size_t n = 0;
	if (!v)
		return -1;
	while (v + n < end && n < sizeof(buf) - 1 && v[n] && strchr("0123456789+-.eE", v[n]))
		n++;
	if (n == 0 || n == sizeof(buf) - 1)
		return -1;
	memcpy(buf, v, n);
	buf[n] = 0;
	char *stop;
	double d = strtod(buf, &stop);
	if (*stop || !isfinite(d) || d < 0)
		return -1;
	*out = d;
	return 0;
}

/* The member key of the object at o, itself an object: where it starts. */
static const char *object(const char *o, const char *e, const char *key)
{
	const char *end, *v = member(o, e, key, &end);
	return v && v < end && *v == '{' ? v : NULL;
}

/* The member "error" as text (escapes dropped, control octets as spaces). */
static void error_text(const char *o, const char *e, char *out, size_t cap)
{
	const char *end, *v = member(o, e, "error", &end);
	size_t n = 0;
	out[0] = 0;
	if (!v || v >= end || *v != '"')
		return;
	for (const char *p = v + 1; p < end && *p != '"' && n < cap - 1; p++) {
		if (*p == '\\' && ++p == end)
			break;
		out[n++] = (unsigned char)*p < 0x20 ? ' ' : *p;
	}
	out[n] = 0;
}

int iperf3_parse_result(const char *s, size_t len, struct iperf3_result *out)
{
	const char *e = s + len, *top = skip_ws(s, e);
	memset(out, 0, sizeof(*out));
	error_text(top, e, out->error, sizeof(out->error));
	const char *end = object(top, e, "end");
	const char *sum = end ? object(end, e, "sum_received") : NULL;
	if (!sum || number(sum, e, "seconds", &out->seconds) ||
	    number(sum, e, "bytes", &out->bytes) ||
	    number(sum, e, "bits_per_second", &out->bits_per_second))
		return -1;
	const char *cpu = object(end, e, "cpu_utilization_percent");
	if (cpu && (number(cpu, e, "host_total", &out->cpu_host) ||
		    number(cpu, e, "remote_total", &out->cpu_remote)))
		out->cpu_host = out->cpu_remote = 0;
	return 0;
}

int iperf3_count_ends(struct iperf3_ends *st, const char *s, size_t len)
{
	int ends = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n') {
			ends += st->state == 1;
			st->state = 0;
		} else if (s[i] == '}' && st->state == 0) {
			st->state = 1;
		} else if (s[i] != '\r') {
			st->state = 2;
		}
	}
	return ends;
}
