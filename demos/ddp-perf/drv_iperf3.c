/* ddp-perf driver "iperf3": the tool users measure a link with, run on
 * the same path as the other rows. The server end runs `iperf3 -s -J`
 * (started by the server role, so in the server's network namespace and
 * on its CPU: the child inherits both); the client end runs `iperf3 -c -J`
 * with the row's message size as the block size (-l), its streams (-P) and
 * the congestion control of the TCP rows (-C), and takes the goodput the
 * receiver counted (end.sum_received) and both ends' CPU from its JSON.
 * iperf3 runs whole seconds (-t), at least one. Not installed: the row is
 * skipped ("n/a"), nothing fails. DDP_PERF_IPERF3 names another program. */
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "child.h"
#include "iperf3_json.h"

#define OUT_MAX (4u << 20) /* client output kept; -i 0 makes it a few KiB */

static const char *prog(void)
{
	const char *p = getenv("DDP_PERF_IPERF3");
	return p && *p ? p : "iperf3";
}

static int installed(void)
{
	return child_installed(prog());
}

static pid_t spawn(char *const argv[], int *out)
{
	return child_spawn(prog(), argv, out, 0);
}

static void reap(pid_t pid, int sig)
{
	child_reap(pid, sig);
}

/* A free TCP port on the host of sa (the kernel's pick). 0 if none. */
static int free_port(const struct sockaddr_in *sa)
{
	struct sockaddr_in a = *sa;
	socklen_t l = sizeof(a);
	int port = 0, fd = socket(AF_INET, SOCK_STREAM, 0);
	a.sin_port = 0;
	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &l) == 0)
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* Wait (5 s at most) until something listens on sa: binding it fails
 * then. 0 listening, -1 not (or pid ended). */
static int wait_listening(const struct sockaddr_in *sa, pid_t pid)
{
	for (int i = 0; i < 500; i++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			return -1;
		int rc = bind(fd, (const struct sockaddr *)sa, sizeof(*sa));
		int err = errno;
		close(fd);
		if (rc < 0 && err == EADDRINUSE)
			return 0;
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return -1;
		struct timespec ms = { 0, 10000000 };
		nanosleep(&ms, NULL);
	}
	return -1;
}

/* iperf3 -s on sa's host and port; pid or -1. out: its stdout (NULL: a
 * server for one test, output dropped). */
static pid_t start_server(const struct sockaddr_in *sa, int *out)
{
	char host[INET_ADDRSTRLEN], port[8];
	inet_ntop(AF_INET, &sa->sin_addr, host, sizeof(host));
	snprintf(port, sizeof(port), "%u", ntohs(sa->sin_port));
	char *argv[] = { (char *)prog(), "-s", "-B", host, "-p", port, "-i", "0", "-J",
			 out ? NULL : "-1", NULL };
	pid_t pid = spawn(argv, out);
	if (pid > 0 && wait_listening(sa, pid)) {
		reap(pid, SIGKILL);
		if (out)
			close(*out);
		return -1;
	}
	return pid;
}

/* ------------------------------------------------------------ client */

static void run_client(const struct bench_params *p, const struct sockaddr_in *sa,
		       struct bench_result *r)
{
	char host[INET_ADDRSTRLEN], port[8], secs[16], len[16], streams[16];
	int t = p->duration < 1.5 ? 1 : (int)(p->duration + 0.5);
	inet_ntop(AF_INET, &sa->sin_addr, host, sizeof(host));
	snprintf(port, sizeof(port), "%u", ntohs(sa->sin_port));
	snprintf(secs, sizeof(secs), "%d", t);
	snprintf(len, sizeof(len), "%zu", p->size);
	snprintf(streams, sizeof(streams), "%d", p->streams);
	char *argv[] = { (char *)prog(), "-c", host, "-p", port, "-t", secs, "-l", len, "-P",
			 streams, "-i", "0", "-J", p->tcp_cc ? "-C" : NULL, (char *)p->tcp_cc, NULL };
	int fd;
	double c0 = now_s();
	pid_t pid = spawn(argv, &fd);
	if (pid < 0) {
		bench_fail(r, "iperf3: cannot start %s: %s", prog(), strerror(errno));
		return;
	}
	char *out;
	int timed_out;
	size_t n = child_read_all(fd, c0 + t + 20, OUT_MAX, &out, &timed_out);
	close(fd);
	reap(pid, timed_out ? SIGKILL : 0);
	struct iperf3_result res;
	if (timed_out)
		bench_fail(r, "iperf3 -c: no result after %d s", t + 20);
	else if (iperf3_parse_result(out ? out : "", n, &res))
		bench_fail(r, "iperf3 -c: %s", res.error[0] ? res.error : "no result in its output");
	free(out);
	if (r->failed)
		return;
	r->bytes = (uint64_t)res.bytes;
	r->secs = res.seconds;
	r->msgs = r->bytes / p->size;
	r->cpu = (res.cpu_host + res.cpu_remote) / 100 * res.seconds;
}

/* ------------------------------------------------------------ server */

struct iserver {
	const struct bench_params *p;
	struct iperf3_ends ends;
	struct event_base *base;
	struct bench_result *r;
};

/* Each test the server finished: tell the client's process (fork mode). */
static void on_server_out(evutil_socket_t fd, short what, void *arg)
{
	struct iserver *s = arg;
	char buf[4096];
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (int k = iperf3_count_ends(&s->ends, buf, (size_t)n); k > 0; k--)
			bench_server_done(s->p, 0);
	if (n == 0) {
		bench_fail(s->r, "iperf3 -s ended");
		event_base_loopbreak(s->base);
	}
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	event_base_loopbreak(arg);
}

static int serve(struct event_base *base, const struct bench_params *p, struct bench_result *r)
{
	struct sockaddr_in sa = *(const struct sockaddr_in *)&p->addr;
	pid_t pid = -1;
	int fd = -1, port;
	char line[128];
	if (!installed()) {
		/* a port to announce all the same; the client skips the row */
		fd = socket(AF_INET, SOCK_STREAM, 0);
		socklen_t l = sizeof(sa);
		if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 1) < 0 ||
		    getsockname(fd, (struct sockaddr *)&sa, &l) < 0) {
			bench_fail(r, "iperf3 server: listen: %s", strerror(errno));
			goto out;
		}
		port = ntohs(sa.sin_port);
		snprintf(line, sizeof(line), "iperf3 not installed: port %d serves nothing", port);
	} else {
		if (!sa.sin_port)
			sa.sin_port = htons((uint16_t)free_port(&sa));
		if (!sa.sin_port || (pid = start_server(&sa, &fd)) < 0) {
			bench_fail(r, "iperf3 -s did not start");
			goto out;
		}
		port = ntohs(sa.sin_port);
		snprintf(line, sizeof(line), "iperf3 server (%s -s) on port %d", prog(), port);
	}
	struct iserver s = { .p = p, .base = base, .r = r };
	struct event *ev = pid > 0 ? event_new(base, fd, EV_READ | EV_PERSIST, on_server_out, &s)
				   : NULL;
	struct event *si = evsignal_new(base, SIGINT, on_signal, base);
	struct event *st = evsignal_new(base, SIGTERM, on_signal, base);
	if (ev)
		event_add(ev, NULL);
	event_add(si, NULL);
	event_add(st, NULL);
	bench_serving(p, line, port);
	event_base_dispatch(base);
	if (ev)
		event_free(ev);
	event_free(si);
	event_free(st);
out:
	reap(pid, SIGTERM);
	if (fd >= 0)
		close(fd);
	return r->failed ? -1 : 0;
}

static int iperf3_main(struct event_base *base, const struct bench_params *p,
		       struct bench_result *r)
{
	if (p->role == 1)
		return serve(base, p, r);
	if (!installed()) {
		r->skipped = 1;
		snprintf(r->why, sizeof(r->why), "%s not installed", prog());
		return 0;
	}
	if (p->mode != MODE_UNTAGGED) {
		bench_fail(r, "iperf3 measures throughput only (no --mode %s)",
			   bench_mode_name(p->mode));
		return -1;
	}
	if (p->role == 2) {
		run_client(p, (const struct sockaddr_in *)&p->addr, r);
		return r->failed ? -1 : 0;
	}
	/* both ends here: a one-test server on loopback */
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	sa.sin_port = htons((uint16_t)free_port(&sa));
	pid_t pid = sa.sin_port ? start_server(&sa, NULL) : -1;
	if (pid < 0) {
		bench_fail(r, "iperf3 -s did not start");
		return -1;
	}
	run_client(p, &sa, r);
	reap(pid, SIGTERM);
	return r->failed ? -1 : 0;
}

const struct bench_driver drv_iperf3 = { "iperf3", iperf3_main };
