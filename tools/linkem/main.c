/*
 * linkem: two network namespaces joined by an emulated link (docs/linkem.md).
 *
 * One TUN device in each namespace (same name in both); the process reads
 * what one side sends and writes it into the other after the model of that
 * direction has had its way with it. One thread per direction; the main
 * thread waits for signals: SIGUSR1 prints the counters, SIGINT, SIGTERM and
 * SIGHUP stop the link, print the counters and remove the namespaces that
 * linkem made (the TUN devices go with their file descriptors).
 */
#include "linkem.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

struct side {
	const char *ns;
	const char *addr;
	int created;
	int tun;
};

static struct lk_fwd *fwds[2];
static volatile int stop_flag;

static void usage(FILE *o)
{
	fprintf(o, "usage: linkem [--spec SPEC] [--ns-a NAME] [--ns-b NAME] [--addr-a IP] "
		   "[--addr-b IP]\n"
		   "              [--prefix N] [--dev NAME] [--ready-fd N] [--pidfile FILE]\n"
		   "              [--stats-file FILE] [--die-with-parent] [--quiet]\n"
		   "SPEC: delay=10ms,jitter=1ms,reorder=0,loss=0.5%%,ge=p:1%%/r:30%%,dup=0.1%%,"
		   "rate=1gbit,queue=500,\n"
		   "      outage=3s@5s,mtu=1500,seed=1,gso=1   or  fwd:...;rev:...\n");
}

static int valid_name(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 64)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '-' || s[i] == '_' || s[i] == '.'))
			return 0;
	return 1;
}

static int run_ip(const char *a1, const char *a2, const char *a3)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execlp("ip", "ip", a1, a2, a3, (char *)NULL);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int ifreq_call(int s, unsigned long req, struct ifreq *ifr, const char *what)
{
	if (ioctl(s, req, ifr) < 0) {
		fprintf(stderr, "linkem: %s %s: %s\n", what, ifr->ifr_name, strerror(errno));
		return -1;
	}
	return 0;
}

/* In the namespace of the calling thread: lo up; dev gets addr/prefix, the
 * link's MTU, a long transmit queue, no IPv6 (no stray solicitations). */
static int config_dev(const char *dev, const char *addr, int prefix, uint32_t mtu)
{
	char path[128];
	snprintf(path, sizeof path, "/proc/sys/net/ipv6/conf/%s/disable_ipv6", dev);
	int pf = open(path, O_WRONLY);
	if (pf >= 0) {
		if (write(pf, "1", 1) != 1)
			fprintf(stderr, "linkem: cannot turn IPv6 off on %s\n", dev);
		close(pf);
	}
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	struct ifreq ifr;
	int rc = -1;
	memset(&ifr, 0, sizeof ifr);
	strcpy(ifr.ifr_name, "lo");
	if (ifreq_call(s, SIOCGIFFLAGS, &ifr, "flags") == 0) {
		ifr.ifr_flags |= IFF_UP;
		ifreq_call(s, SIOCSIFFLAGS, &ifr, "up");
	}
	memset(&ifr, 0, sizeof ifr);
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", dev);
	struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;
	sin->sin_family = AF_INET;
	if (inet_pton(AF_INET, addr, &sin->sin_addr) != 1) {
		fprintf(stderr, "linkem: bad IPv4 address %s\n", addr);
		goto out;
	}
	if (ifreq_call(s, SIOCSIFADDR, &ifr, "address"))
		goto out;
	sin->sin_addr.s_addr = htonl(prefix ? 0xffffffffu << (32 - prefix) : 0);
	if (ifreq_call(s, SIOCSIFNETMASK, &ifr, "netmask"))
		goto out;
	ifr.ifr_mtu = (int)mtu;
	if (ifreq_call(s, SIOCSIFMTU, &ifr, "mtu"))
		goto out;
	ifr.ifr_qlen = 10000;
	if (ifreq_call(s, SIOCSIFTXQLEN, &ifr, "txqueuelen"))
		goto out;
	if (ifreq_call(s, SIOCGIFFLAGS, &ifr, "flags"))
		goto out;
	ifr.ifr_flags |= IFF_UP;
	if (ifreq_call(s, SIOCSIFFLAGS, &ifr, "up"))
		goto out;
	rc = 0;
out:
	close(s);
	return rc;
}

static int open_side(struct side *sd, const char *dev, int prefix, const struct lk_link *link,
		     int home)
{
	char path[128];
	snprintf(path, sizeof path, "/run/netns/%s", sd->ns);
	struct stat st;
	if (stat(path, &st) != 0) {
		if (run_ip("netns", "add", sd->ns)) {
			fprintf(stderr, "linkem: cannot create namespace %s (root? iproute2?)\n",
				sd->ns);
			return -1;
		}
		sd->created = 1;
	}
	int nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0 || setns(nsfd, CLONE_NEWNET) < 0) {
		fprintf(stderr, "linkem: cannot enter namespace %s: %s\n", sd->ns, strerror(errno));
		if (nsfd >= 0)
			close(nsfd);
		return -1;
	}
	close(nsfd);
	int rc = -1;
	sd->tun = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (sd->tun < 0) {
		fprintf(stderr, "linkem: /dev/net/tun: %s\n", strerror(errno));
		goto back;
	}
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI | IFF_VNET_HDR;
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", dev);
	if (ifreq_call(sd->tun, TUNSETIFF, &ifr, "TUNSETIFF"))
		goto back;
	int hs = LK_VNET_HDR_LEN;
	/* checksum offload always (no packet is ever summed in software on
	 * the way through); TSO only with gso=1 */
	unsigned off = TUN_F_CSUM;
	if (link->gso)
		off |= TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN;
	if (ioctl(sd->tun, TUNSETVNETHDRSZ, &hs) < 0 || ioctl(sd->tun, TUNSETOFFLOAD, off) < 0) {
		fprintf(stderr, "linkem: TUN offload settings: %s\n", strerror(errno));
		goto back;
	}
	fcntl(sd->tun, F_SETFL, fcntl(sd->tun, F_GETFL) | O_NONBLOCK);
	rc = config_dev(dev, sd->addr, prefix, link->mtu);
back:
	if (setns(home, CLONE_NEWNET) < 0) {
		fprintf(stderr, "linkem: cannot return to the first namespace: %s\n",
			strerror(errno));
		rc = -1;
	}
	return rc;
}

static void print_counters(FILE *o)
{
	static const char *const name[2] = {"fwd", "rev"};
	for (int d = 0; d < 2; d++) {
		struct lk_counters c;
		if (!fwds[d])
			continue;
		lk_fwd_counters(fwds[d], &c);
		fprintf(o,
			"linkem %s: passed=%llu bytes=%llu lost=%llu queue=%llu outage=%llu dup=%llu "
			"reordered=%llu errors=%llu reads=%llu\n",
			name[d], (unsigned long long)c.passed, (unsigned long long)c.bytes,
			(unsigned long long)c.lost, (unsigned long long)c.queue,
			(unsigned long long)c.outage, (unsigned long long)c.dup,
			(unsigned long long)c.reordered, (unsigned long long)c.errors,
			(unsigned long long)c.items);
	}
	fflush(o);
}

static void write_stats(const char *file)
{
	if (!file)
		return;
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp", file);
	FILE *o = fopen(tmp, "w");
	if (!o)
		return;
	print_counters(o);
	if (fclose(o) == 0)
		rename(tmp, file);
}

static void *thread_main(void *arg)
{
	prctl(PR_SET_TIMERSLACK, 1000UL); /* wake within a microsecond of a release */
	lk_fwd_run(arg, &stop_flag);
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"spec", required_argument, 0, 's'},      {"ns-a", required_argument, 0, 'a'},
		{"ns-b", required_argument, 0, 'b'},      {"addr-a", required_argument, 0, 'A'},
		{"addr-b", required_argument, 0, 'B'},    {"prefix", required_argument, 0, 'p'},
		{"dev", required_argument, 0, 'd'},       {"ready-fd", required_argument, 0, 'r'},
		{"pidfile", required_argument, 0, 'P'},   {"stats-file", required_argument, 0, 'S'},
		{"die-with-parent", no_argument, 0, 'D'}, {"quiet", no_argument, 0, 'q'},
		{"help", no_argument, 0, 'h'},            {0, 0, 0, 0}};
	const char *spec = "", *dev = "lkem0", *pidfile = NULL, *stats_file = NULL;
	char nsa[80], nsb[80];
	snprintf(nsa, sizeof nsa, "lkA%d", (int)getpid());
	snprintf(nsb, sizeof nsb, "lkB%d", (int)getpid());
	struct side side[2] = {{.ns = nsa, .addr = "169.254.77.1", .tun = -1},
			       {.ns = nsb, .addr = "169.254.77.2", .tun = -1}};
	int prefix = 24, ready_fd = -1, quiet = 0, c;
	while ((c = getopt_long(argc, argv, "s:h", opts, NULL)) != -1) {
		switch (c) {
		case 's': spec = optarg; break;
		case 'a': side[0].ns = optarg; break;
		case 'b': side[1].ns = optarg; break;
		case 'A': side[0].addr = optarg; break;
		case 'B': side[1].addr = optarg; break;
		case 'p': prefix = atoi(optarg); break;
		case 'd': dev = optarg; break;
		case 'r': ready_fd = atoi(optarg); break;
		case 'P': pidfile = optarg; break;
		case 'S': stats_file = optarg; break;
		case 'D': prctl(PR_SET_PDEATHSIG, SIGTERM); break;
		case 'q': quiet = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		spec = argv[optind++];
	if (optind < argc || prefix < 1 || prefix > 30 || strlen(dev) >= IFNAMSIZ ||
	    !valid_name(dev) || !valid_name(side[0].ns) || !valid_name(side[1].ns) ||
	    strcmp(side[0].ns, side[1].ns) == 0) {
		usage(stderr);
		return 2;
	}
	struct lk_link link;
	char err[256];
	if (lk_spec_parse(spec, &link, err, sizeof err)) {
		fprintf(stderr, "linkem: spec: %s\n", err);
		return 2;
	}

	/* every signal is taken by sigwaitinfo in this thread */
	sigset_t sigs;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGUSR1);
	sigaddset(&sigs, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);

	int rc = 1;
	pthread_t th[2];
	int started = 0;
	int stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	int home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (home < 0 || stop_fd < 0) {
		fprintf(stderr, "linkem: %s\n", strerror(errno));
		goto out;
	}
	for (int s = 0; s < 2; s++)
		if (open_side(&side[s], dev, prefix, &link, home))
			goto out;
	uint64_t t0 = lk_now_ns();
	for (int d = 0; d < 2; d++) {
		fwds[d] = lk_fwd_new(side[d].tun, side[1 - d].tun, &link.dir[d], t0, stop_fd);
		if (!fwds[d]) {
			fprintf(stderr, "linkem: out of memory\n");
			goto out;
		}
	}
	for (; started < 2; started++)
		if (pthread_create(&th[started], NULL, thread_main, fwds[started])) {
			fprintf(stderr, "linkem: cannot start a thread\n");
			goto out;
		}
	if (!quiet) {
		char f[512];
		for (int d = 0; d < 2; d++) {
			lk_spec_format(&link.dir[d], f, sizeof f);
			fprintf(stderr, "linkem %s %s(%s) -> %s(%s): %s\n", d ? "rev" : "fwd",
				side[d].ns, side[d].addr, side[1 - d].ns, side[1 - d].addr, f);
		}
		fprintf(stderr, "linkem: dev %s mtu %u gso %s\n", dev, link.mtu,
			link.gso ? "on" : "off");
	}
	if (pidfile) {
		FILE *o = fopen(pidfile, "w");
		if (o) {
			fprintf(o, "%d\n", (int)getpid());
			fclose(o);
		}
	}
	if (ready_fd >= 0) {
		if (write(ready_fd, "ready\n", 6) != 6)
			fprintf(stderr, "linkem: cannot write to the ready fd\n");
		close(ready_fd);
	}
	for (;;) {
		siginfo_t si;
		int sig = sigwaitinfo(&sigs, &si);
		if (sig == SIGUSR1) {
			print_counters(stderr);
			write_stats(stats_file);
		} else if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
			break;
		}
	}
	rc = 0;
out:
	__atomic_store_n(&stop_flag, 1, __ATOMIC_RELAXED);
	if (stop_fd >= 0) {
		uint64_t one = 1;
		if (write(stop_fd, &one, sizeof one) < 0)
			rc = 1;
	}
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (fwds[0] && fwds[1]) {
		print_counters(stderr);
		write_stats(stats_file);
	}
	for (int d = 0; d < 2; d++) {
		lk_fwd_free(fwds[d]);
		if (side[d].tun >= 0)
			close(side[d].tun);
		if (side[d].created && run_ip("netns", "del", side[d].ns))
			fprintf(stderr, "linkem: cannot remove namespace %s\n", side[d].ns);
	}
	if (pidfile)
		unlink(pidfile);
	return rc;
}
