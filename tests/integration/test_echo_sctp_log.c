/*
 * ddp-echo logs what the library reports through the context's log hook:
 * before, it created its context without one and every eviction, refusal
 * and time-out of a peer was invisible. ddp-echo runs with --max-assocs 1;
 * two SCTP associations from this test that never initiate a DDP stream
 * session: the second evicts the first (sctp_slots.c), and ddp-echo's
 * stderr must show that line with a timestamp. With -q it must not.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ddp/ddp.h>
#include <ddp/sctp.h>
#include <event2/event.h>
#include <limits.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct cli {
	int up, down;
};

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)s;
	(void)d;
	(void)user;
}

static void on_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	struct cli *c = user;
	(void)a;
	(void)s;
	if (status == 0)
		c->up++;
	else
		c->down++;
}

static void on_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
		   const void *pd, size_t len, void *user)
{
	(void)a;
	(void)stream;
	(void)ev;
	(void)status;
	(void)pd;
	(void)len;
	(void)user;
}

static pid_t start_echo(int port, const char *logpath, int quiet)
{
	char self[PATH_MAX], prog[PATH_MAX + 16], addr[32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = 0;
	*strrchr(self, '/') = 0; /* BUILD/itests */
	snprintf(prog, sizeof(prog), "%s/../bin/ddp-echo", self);
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		FILE *f = freopen(logpath, "w", stderr);
		if (!f)
			_exit(126);
		alarm(60); /* never outlive the test */
		execl(prog, "ddp-echo", "--sctp-listen", addr, "--max-assocs", "1",
		      quiet ? "-q" : "--depth", quiet ? "--depth" : "4", "4", (char *)NULL);
		_exit(127);
	}
	return pid;
}

static int file_has(const char *path, const char *needle)
{
	char line[512];
	int found = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, needle) != NULL;
	fclose(f);
	return found;
}

/* Two associations that never initiate a stream; returns when the first
 * was evicted (ABORTed by ddp-echo) or after 10 s. */
static void two_idle_assocs(int port, const char *log)
{
	struct event_base *base = event_base_new();
	ddp_ctx *ctx;
	ddp_sctp_ep *ep[2];
	ddp_sctp_assoc *a[2];
	struct cli c[2];
	memset(c, 0, sizeof(c));
	assert_int_equal(ddp_ctx_new(NULL, &ctx), 0);
	/* ddp-echo is up once it logged that it listens */
	for (int i = 0; i < 100 && !file_has(log, "SCTP listening"); i++)
		usleep(100000);
	assert_true(file_has(log, "SCTP listening"));
	for (int i = 0; i < 2; i++) {
		ddp_sctp_config cfg;
		memset(&cfg, 0, sizeof(cfg));
		cfg.port = -1;
		cfg.ctx = ctx;
		cfg.ddp.deliver = on_deliver;
		cfg.sctp.assoc = on_assoc;
		cfg.sctp.session_ctl = on_ctl;
		cfg.user = &c[i];
		assert_int_equal(ddp_sctp_ep_new(base, &cfg, &ep[i]), 0);
		assert_int_equal(ddp_sctp_connect(ep[i], "127.0.0.1", port, &a[i]), 0);
		long end = now_ms() + 5000;
		while (!c[i].up && !c[i].down && now_ms() < end) {
			struct timeval tv = { 0, 5000 };
			event_base_loopexit(base, &tv);
			event_base_dispatch(base);
		}
		assert_int_equal(c[i].up, 1);
	}
	long end = now_ms() + 10000;
	while (!c[0].down && now_ms() < end) {
		struct timeval tv = { 0, 5000 };
		event_base_loopexit(base, &tv);
		event_base_dispatch(base);
	}
	assert_int_equal(c[0].down, 1); /* evicted */
	assert_int_equal(c[1].down, 0);
	ddp_sctp_ep_free(ep[0]);
	ddp_sctp_ep_free(ep[1]);
	event_base_free(base);
	assert_int_equal(ddp_ctx_free(ctx), 0);
}

static void stop_echo(pid_t pid)
{
	int st = -1;
	kill(pid, SIGTERM);
	for (int i = 0; i < 50 && waitpid(pid, &st, WNOHANG) == 0; i++)
		usleep(100000);
	if (!WIFEXITED(st))
		kill(pid, SIGKILL);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void test_echo_logs_eviction_with_timestamp(void **state)
{
	char log[64];
	int port = 30000 + getpid() % 20000;
	snprintf(log, sizeof(log), "/tmp/ddp-echo-log-%d.txt", (int)getpid());
	pid_t pid = start_echo(port, log, 0);
	two_idle_assocs(port, log);
	/* the line may follow the ABORT by a moment */
	for (int i = 0; i < 50 && !file_has(log, "evicted 127.0.0.1:"); i++)
		usleep(100000);
	stop_echo(pid);
	char line[512];
	int hits = 0;
	regex_t re;
	assert_int_equal(regcomp(&re,
				 "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z "
				 "ddp-echo: warn: SCTP association cap 1 reached: evicted 127\\.0\\.0\\.1:",
				 REG_EXTENDED | REG_NOSUB),
			 0);
	FILE *f = fopen(log, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		hits += regexec(&re, line, 0, NULL, 0) == 0;
	fclose(f);
	regfree(&re);
	if (hits != 1) {
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "cat %s >&2", log);
		if (system(cmd) != 0)
			fprintf(stderr, "(no log)\n");
	}
	assert_int_equal(hits, 1);
	unlink(log);
}

static void test_echo_quiet_keeps_warnings_out(void **state)
{
	char log[64];
	int port = 30001 + getpid() % 20000;
	snprintf(log, sizeof(log), "/tmp/ddp-echo-log-q-%d.txt", (int)getpid());
	pid_t pid = start_echo(port, log, 1);
	two_idle_assocs(port, log);
	usleep(300000);
	stop_echo(pid);
	assert_false(file_has(log, "evicted"));
	assert_true(file_has(log, "SCTP listening")); /* its own lines stay */
	unlink(log);
}

int main(void)
{
	alarm(90);
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_echo_logs_eviction_with_timestamp),
		cmocka_unit_test(test_echo_quiet_keeps_warnings_out),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
