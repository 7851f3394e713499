/* ddp-perf driver "usrsctp-system": the usrsctp row's measurement
 * (drv_usrsctp.c: the same settings, UDP encapsulation and event loop)
 * over Debian's packaged libusrsctp, beside the usrsctp row over the
 * usrsctp this program was built with. One process cannot hold two usrsctp
 * stacks, so the row runs a second ddp-perf, built against the packaged
 * library (make perf-system-usrsctp makes build-sysusrsctp/bin/ddp-perf;
 * --system-usrsctp-perf PATH names another), as `--llp usrsctp --json`
 * with the row's mode, size, streams, duration, MTU and SCTP settings and
 * this run's topology options, and reports the one JSON line it prints.
 * That program makes its ends as this one does for its own rows: a server
 * child on CPU 1 and the client on CPU 0 (two processes on loopback), both
 * ends on one loop (--one-process), or its own two network namespaces,
 * named after its pid, joined by a veth pair (or linkem) of the same MTU
 * (--netns). Not built: the row is skipped, naming the make target. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "child.h"

#define OUT_MAX (1u << 20) /* one JSON line and what else it prints */
#define SETUP_S 60	   /* beyond the duration: namespaces, association */

/* The number after "key": in line; 0 when there, -1 when not. */
static int json_num(const char *line, const char *key, double *out)
{
	char pat[48];
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	const char *s = strstr(line, pat);
	if (!s)
		return -1;
	char *end;
	*out = strtod(s + strlen(pat), &end);
	return end == s + strlen(pat) ? -1 : 0;
}

/* The string after "key": in line (no escapes: ddp-perf writes none). */
static void json_str(const char *line, const char *key, char *out, size_t len)
{
	char pat[48];
	snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	const char *s = strstr(line, pat);
	out[0] = 0;
	if (!s)
		return;
	s += strlen(pat);
	size_t n = strcspn(s, "\"\n");
	snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), s);
}

/* The result line of the child's output: the one of llp usrsctp. */
static char *result_line(char *out)
{
	for (char *l = out; l && *l;) {
		char *nl = strchr(l, '\n');
		if (nl)
			*nl = 0;
		if (!strncmp(l, "{\"llp\":\"usrsctp\",", 17))
			return l;
		l = nl ? nl + 1 : NULL;
	}
	return NULL;
}

/* The row from the child's line: its rates back into totals. */
static void take_result(const char *line, const char *prog, struct bench_result *r)
{
	double secs = 0, mbs = 0, mps = 0, copied = 0, cpu = 0, rtt = 0;
	char err[120];
	json_str(line, "error", err, sizeof(err));
	if (!strstr(line, "\"ok\":true")) {
		bench_fail(r, "%s: %s", prog, err[0] ? err : "no result");
		return;
	}
	if (json_num(line, "seconds", &secs) || json_num(line, "mbytes_per_s", &mbs) ||
	    json_num(line, "msgs_per_s", &mps) ||
	    json_num(line, "copied_bytes_per_payload_byte", &copied) ||
	    json_num(line, "cpu_s_per_gb", &cpu) || json_num(line, "rtt_us", &rtt)) {
		bench_fail(r, "%s: a result line without its numbers", prog);
		return;
	}
	r->secs = secs;
	r->bytes = (uint64_t)(mbs * 1e6 * secs + 0.5);
	r->msgs = (uint64_t)(mps * secs + 0.5);
	r->copied = (uint64_t)(copied * (double)r->bytes + 0.5);
	r->cpu = cpu * (double)r->bytes / 1e9;
	r->rtt_us = rtt;
	json_str(line, "usrsctp", r->usrsctp, sizeof(r->usrsctp));
}

/* linkem for the child's --link: the one this program would run. */
static void share_linkem(void)
{
	const char *env = getenv("DDP_LINKEM");
	char self[PATH_MAX];
	ssize_t l = readlink("/proc/self/exe", self, sizeof(self) - 16);
	if ((env && *env) || l <= 0)
		return;
	self[l] = 0;
	char *slash = strrchr(self, '/');
	if (!slash)
		return;
	strcpy(slash + 1, "linkem");
	setenv("DDP_LINKEM", self, 0);
}

static int run(struct event_base *base, const struct bench_params *p, struct bench_result *r)
{
	const char *prog = p->system_perf ? p->system_perf : bench_system_perf_default();
	if (p->role == 1) {
		bench_fail(r, "usrsctp-system runs both of its ends itself: no --server");
		return -1;
	}
	if (p->role == 2) {
		r->skipped = 1;
		snprintf(r->why, sizeof(r->why), "runs on loopback or --netns, not against --connect");
		return 0;
	}
	if (p->mode != MODE_UNTAGGED && p->mode != MODE_RTT) {
		bench_fail(r, "usrsctp-system: raw messages or their round trip (no --mode %s)",
			   bench_mode_name(p->mode));
		return -1;
	}
	if (!child_installed(prog)) {
		r->skipped = 1;
		snprintf(r->why, sizeof(r->why), "no %s (make perf-system-usrsctp builds it)", prog);
		return 0;
	}
	char size[24], streams[16], dur[32], mtu[16], buf[16];
	snprintf(size, sizeof(size), "%zu", p->size);
	snprintf(streams, sizeof(streams), "%d", p->streams);
	snprintf(dur, sizeof(dur), "%.6g", p->duration);
	snprintf(mtu, sizeof(mtu), "%u", p->mtu);
	snprintf(buf, sizeof(buf), "%u", p->sctp_buf);
	const char *argv[32] = { prog, "--llp", "usrsctp", "--mode", bench_mode_name(p->mode),
				 "--size", size, "--streams", streams, "--duration", dur, "--json" };
	int n = 12;
	if (p->mtu) {
		argv[n++] = "--mtu";
		argv[n++] = mtu;
	}
	if (p->sctp_cc > 0) {
		argv[n++] = "--sctp-cc";
		argv[n++] = bench_sctp_cc_name(p->sctp_cc);
	}
	if (p->sctp_buf) {
		argv[n++] = "--sctp-buf";
		argv[n++] = buf;
	}
	for (int i = 0; i < 4 && p->child_opts[i]; i++)
		argv[n++] = p->child_opts[i];
	argv[n] = NULL;
	share_linkem();
	int fd;
	double t0 = now_s();
	pid_t pid = child_spawn(prog, (char *const *)argv, &fd, CHILD_ALL_CPUS | CHILD_TERM);
	if (pid < 0) {
		bench_fail(r, "cannot start %s: %s", prog, strerror(errno));
		return -1;
	}
	char *out;
	int timed_out;
	size_t len = child_read_all(fd, t0 + p->duration + SETUP_S, OUT_MAX, &out, &timed_out);
	close(fd);
	/* SIGTERM: it removes its namespaces before it ends */
	int ws = child_reap(pid, timed_out ? SIGTERM : 0);
	char *line = NULL;
	if (out) {
		char *z = len < OUT_MAX ? realloc(out, len + 1) : NULL;
		if (z) {
			out = z;
			out[len] = 0;
			line = result_line(out);
		}
	}
	if (timed_out)
		bench_fail(r, "%s: no result after %d s", prog, (int)p->duration + SETUP_S);
	else if (line)
		take_result(line, prog, r);
	else if (ws != -1 && WIFEXITED(ws))
		bench_fail(r, "%s: no result line (exit status %d)", prog, WEXITSTATUS(ws));
	else
		bench_fail(r, "%s: no result line (ended by signal %d)", prog,
			   ws != -1 && WIFSIGNALED(ws) ? WTERMSIG(ws) : 0);
	free(out);
	(void)base;
	return r->failed ? -1 : 0;
}

const struct bench_driver drv_usrsctp_system = { "usrsctp-system", run };
