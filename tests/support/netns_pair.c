/* Network namespace pairs for integration tests (netns_pair.h). */
#include "netns_pair.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

char netns_a[32], netns_b[32], netns_veth_a[16], netns_veth_b[16];

int netns_sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd) == 0 ? 0 : -1;
}

void netns_pair_del(void)
{
	if (!netns_a[0])
		return;
	netns_sh("ip netns del %s 2>/dev/null; ip netns del %s 2>/dev/null", netns_a, netns_b);
	netns_a[0] = 0;
}

static void on_signal(int sig)
{
	netns_pair_del(); /* a test over its alarm: leave nothing behind */
	signal(sig, SIG_DFL);
	raise(sig);
}

int netns_pair_up(const char *tag, const char *vtag, const char *addr_a, const char *addr_b)
{
	static int registered;
	int pid = (int)getpid() % 100000;
	if (!registered++)
		atexit(netns_pair_del);
	snprintf(netns_a, sizeof(netns_a), "%sA%d", tag, pid);
	snprintf(netns_b, sizeof(netns_b), "%sB%d", tag, pid);
	snprintf(netns_veth_a, sizeof(netns_veth_a), "%sA%d", vtag, pid);
	snprintf(netns_veth_b, sizeof(netns_veth_b), "%sB%d", vtag, pid);
	signal(SIGALRM, on_signal);
	signal(SIGABRT, on_signal);
	if (netns_sh("ip netns add %s && ip netns add %s", netns_a, netns_b) != 0 ||
	    netns_sh("ip link add %s netns %s type veth peer name %s netns %s", netns_veth_a,
	             netns_a, netns_veth_b, netns_b) != 0 ||
	    netns_sh("ip -n %s addr add %s/24 dev %s && ip -n %s link set %s up && "
	             "ip -n %s addr add %s/24 dev %s && ip -n %s link set %s up",
	             netns_a, addr_a, netns_veth_a, netns_a, netns_veth_a, netns_b, addr_b,
	             netns_veth_b, netns_b, netns_veth_b) != 0) {
		netns_pair_del();
		return -1;
	}
	return 0;
}

int netns_enter(const char *ns, int *home)
{
	char path[64];
	snprintf(path, sizeof(path), "/var/run/netns/%s", ns);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*home < 0)
		*home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || *home < 0 || setns(fd, CLONE_NEWNET) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}
