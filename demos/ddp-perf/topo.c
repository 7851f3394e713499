/* ddp-perf: server children, CPU pinning and the --netns set-up (topo.h).
 * Server children are forked before this process touches usrsctp or
 * libevent; each makes its own event_base, says its port on a pipe, and
 * dies with the client (PR_SET_PDEATHSIG). */
#include "topo.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <unistd.h>

int topo_pin(int cpu)
{
	cpu_set_t have, want;
	if (sched_getaffinity(0, sizeof(have), &have) || !CPU_ISSET(0, &have) ||
	    !CPU_ISSET(1, &have))
		return 0;
	CPU_ZERO(&want);
	CPU_SET(cpu, &want);
	return sched_setaffinity(0, sizeof(want), &want) == 0;
}

int topo_enter_netns(const char *name)
{
	char path[96];
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = setns(fd, CLONE_NEWNET);
	close(fd);
	return rc;
}

/* The child: serve srv->llp until SIGTERM (or the client's death). */
static void server_child(const struct topo_server *srv, const struct bench_params *tmpl,
			 const char *host, const char *netns, int wfd, pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(0);
	if (netns && topo_enter_netns(netns)) {
		fprintf(stderr, "ddp-perf: entering network namespace %s: %s\n", netns,
			strerror(errno));
		_exit(1);
	}
	topo_pin(1);
	int nul = open("/dev/null", O_WRONLY); /* the per-run JSON lines of --server */
	if (nul >= 0) {
		dup2(nul, 1);
		close(nul);
	}
	struct bench_params p = { .llp = srv->llp, .role = 1, .mtu = tmpl->mtu,
				  .tcp_cc = tmpl->tcp_cc, .no_crc = tmpl->no_crc,
				  .sctp_cc = tmpl->sctp_cc, .sctp_buf = tmpl->sctp_buf,
				  .announce_fd = wfd, .share = srv->share, .size = 64, .streams = 1 };
	struct sockaddr_in *sin = (struct sockaddr_in *)&p.addr;
	sin->sin_family = AF_INET;
	inet_pton(AF_INET, host, &sin->sin_addr);
	p.addrlen = sizeof(*sin);
	struct bench_result r = { 0 };
	struct event_base *base = event_base_new();
	const struct bench_driver *d = bench_find_driver(srv->llp);
	if (!base || !d)
		_exit(1);
	d->run(base, &p, &r);
	if (r.failed)
		fprintf(stderr, "ddp-perf: %s server: %s\n", srv->llp, r.why);
	event_base_free(base);
	_exit(r.failed ? 1 : 0);
}

/* SIGINT/SIGTERM/SIGHUP in the client while server children run: stop
 * and reap them, then end with 128 + the signal. */
static struct topo_server *sig_srv;
static int sig_nsrv;

static void on_client_sig(int sig)
{
	for (int i = 0; i < sig_nsrv; i++)
		if (sig_srv[i].pid > 0)
			kill(sig_srv[i].pid, SIGTERM);
	for (int i = 0; i < sig_nsrv; i++)
		if (sig_srv[i].pid > 0)
			waitpid(sig_srv[i].pid, NULL, 0);
	_exit(128 + sig);
}

static void client_signals(struct topo_server *srv, int n)
{
	struct sigaction sa = { .sa_handler = n ? on_client_sig : SIG_DFL };
	sigemptyset(&sa.sa_mask);
	sig_srv = srv;
	sig_nsrv = n;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int topo_start_servers(struct topo_server *srv, int n, const struct bench_params *tmpl,
		       const char *host, const char *netns)
{
	if (n == 0) /* rows that need no server child (usrsctp-system) */
		return 0;
	struct bench_share *sh = mmap(NULL, (size_t)n * sizeof(*sh), PROT_READ | PROT_WRITE,
				      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("ddp-perf: mmap");
		return -1;
	}
	memset(sh, 0, (size_t)n * sizeof(*sh));
	fflush(NULL);
	for (int i = 0; i < n; i++) {
		int pfd[2];
		srv[i].share = &sh[i];
		srv[i].pid = -1;
		if (pipe(pfd)) {
			perror("ddp-perf: pipe");
			goto fail;
		}
		pid_t parent = getpid();
		pid_t pid = fork();
		if (pid < 0) {
			perror("ddp-perf: fork");
			goto fail;
		}
		if (pid == 0) {
			close(pfd[0]);
			server_child(&srv[i], tmpl, host, netns, pfd[1], parent);
		}
		close(pfd[1]);
		srv[i].pid = pid;
		client_signals(srv, i + 1);
		char buf[16] = { 0 };
		ssize_t got = 0, k;
		/* the child writes its port and closes the pipe; EOF alone: it failed */
		while (got < (ssize_t)sizeof(buf) - 1 &&
		       (k = read(pfd[0], buf + got, sizeof(buf) - 1 - (size_t)got)) != 0) {
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0)
				break;
			got += k;
		}
		close(pfd[0]);
		srv[i].port = atoi(buf);
		if (srv[i].port <= 0) {
			fprintf(stderr, "ddp-perf: the %s server did not start\n", srv[i].llp);
			goto fail;
		}
	}
	return 0;
fail:
	topo_stop_servers(srv, n);
	return -1;
}

void topo_stop_servers(struct topo_server *srv, int n)
{
	client_signals(NULL, 0);
	for (int i = 0; i < n; i++)
		if (srv[i].pid > 0)
			kill(srv[i].pid, SIGTERM);
	for (int i = 0; i < n; i++) {
		if (srv[i].pid > 0)
			while (waitpid(srv[i].pid, NULL, 0) < 0 && errno == EINTR)
				;
		srv[i].pid = -1;
	}
	if (n > 0 && srv[0].share)
		munmap(srv[0].share, (size_t)n * sizeof(*srv[0].share));
	for (int i = 0; i < n; i++)
		srv[i].share = NULL;
}

/* ------------------------------------------------------------ --netns */

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	int rc = system(cmd);
	return rc == 0 ? 0 : -1;
}

static volatile sig_atomic_t got_sig;
static volatile pid_t runner;

static void on_sig(int sig)
{
	got_sig = sig;
	if (runner > 0)
		kill(runner, SIGTERM);
}

static void netns_del(const struct topo_netns *ns)
{
	sh("ip netns del %s 2>/dev/null", ns->client);
	sh("ip netns del %s 2>/dev/null", ns->server);
}

static int netns_add(const struct topo_netns *ns)
{
	int id = (int)getpid();
	char va[16], vb[16];
	snprintf(va, sizeof(va), "dpvA%d", id);
	snprintf(vb, sizeof(vb), "dpvB%d", id);
	if (sh("ip netns add %s", ns->client) || sh("ip netns add %s", ns->server)) {
		fprintf(stderr, "ddp-perf: --netns: cannot create network namespaces\n");
		return -1;
	}
	if (sh("ip link add %s type veth peer name %s", va, vb) ||
	    sh("ip link set %s netns %s", va, ns->client) ||
	    sh("ip link set %s netns %s", vb, ns->server) ||
	    sh("ip -n %s addr add " TOPO_CLIENT_ADDR "/24 dev %s", ns->client, va) ||
	    sh("ip -n %s addr add " TOPO_SERVER_ADDR "/24 dev %s", ns->server, vb) ||
	    sh("ip -n %s link set lo up", ns->client) || sh("ip -n %s link set lo up", ns->server) ||
	    sh("ip -n %s link set %s mtu %u up", ns->client, va, ns->mtu) ||
	    sh("ip -n %s link set %s mtu %u up", ns->server, vb, ns->mtu)) {
		fprintf(stderr, "ddp-perf: --netns: setting up the veth pair failed\n");
		return -1;
	}
	return 0;
}

/* linkem beside this program (build/bin), or $DDP_LINKEM */
static void linkem_path(char *out, size_t n)
{
	const char *env = getenv("DDP_LINKEM");
	if (env && *env) {
		snprintf(out, n, "%s", env);
		return;
	}
	char self[512];
	ssize_t l = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (l <= 0) {
		snprintf(out, n, "linkem");
		return;
	}
	self[l] = 0;
	char *slash = strrchr(self, '/');
	if (slash)
		*slash = 0;
	snprintf(out, n, "%s/linkem", self);
}

static pid_t linkem_pid;

/* The namespaces joined through linkem (it makes and removes them). */
static int linkem_add(const struct topo_netns *ns)
{
	char bin[600], spec[512], fd[16];
	linkem_path(bin, sizeof(bin));
	snprintf(spec, sizeof(spec), "%s,mtu=%u", ns->link, ns->mtu);
	int p[2];
	if (pipe(p))
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		snprintf(fd, sizeof(fd), "%d", p[1]);
		execl(bin, "linkem", "--spec", spec, "--ns-a", ns->client, "--ns-b", ns->server,
		      "--addr-a", TOPO_CLIENT_ADDR, "--addr-b", TOPO_SERVER_ADDR, "--ready-fd", fd,
		      "--die-with-parent", "--quiet", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	char line[8] = { 0 };
	ssize_t n = pid > 0 ? read(p[0], line, sizeof(line) - 1) : -1;
	close(p[0]);
	if (n <= 0 || strncmp(line, "ready", 5) != 0) {
		fprintf(stderr, "ddp-perf: --link: %s did not bring the link up (SPEC %s)\n", bin,
			spec);
		if (pid > 0)
			waitpid(pid, NULL, 0);
		return -1;
	}
	linkem_pid = pid;
	return 0;
}

static void linkem_del(void)
{
	if (linkem_pid <= 0)
		return;
	kill(linkem_pid, SIGTERM);
	while (waitpid(linkem_pid, NULL, 0) < 0 && errno == EINTR)
		;
	linkem_pid = 0;
}

int topo_netns_run(unsigned mtu, const char *link,
		   int (*body)(const struct topo_netns *ns, void *arg), void *arg)
{
	if (geteuid() != 0) {
		fprintf(stderr, "ddp-perf: --netns needs root (network namespaces); skipped\n");
		return TOPO_SKIP;
	}
	if (system("ip -V >/dev/null 2>&1") != 0) {
		fprintf(stderr, "ddp-perf: --netns needs iproute2's `ip`; skipped\n");
		return TOPO_SKIP;
	}
	struct topo_netns ns = { .mtu = mtu, .link = link };
	/* $DDP_PERF_NETNS: the names' prefix (tests running side by side
	 * tell their namespaces apart by it); default ddpperf */
	const char *pre = getenv("DDP_PERF_NETNS");
	if (!pre || !*pre || strlen(pre) > 16)
		pre = "ddpperf";
	snprintf(ns.client, sizeof(ns.client), "%sA%d", pre, (int)getpid());
	snprintf(ns.server, sizeof(ns.server), "%sB%d", pre, (int)getpid());
	struct sigaction sa = { .sa_handler = on_sig }, old[3];
	sigemptyset(&sa.sa_mask);
	const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
	int status = 1;
	if (link ? linkem_add(&ns) : netns_add(&ns)) {
		netns_del(&ns);
		status = TOPO_SKIP;
		goto out;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 3; i++)
			sigaction(sigs[i], &old[i], NULL);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		fflush(NULL);
		_exit(body(&ns, arg));
	}
	runner = pid;
	if (pid > 0 && got_sig)
		kill(pid, SIGTERM);
	int ws = 0;
	while (pid > 0 && waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	runner = 0;
	status = pid < 0 ? 1 : WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	linkem_del(); /* it removes its namespaces */
	netns_del(&ns);
out:
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	if (got_sig)
		status = 128 + got_sig;
	return status;
}
