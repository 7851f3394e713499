/* ddp-perf: where the two ends of a run live. Loopback in one process (the
 * drivers do that themselves), loopback in two processes (server children
 * forked here, pinned to CPU 1, the client on CPU 0), or two network
 * namespaces joined by a veth pair (--netns). */
#ifndef DDP_PERF_TOPO_H
#define DDP_PERF_TOPO_H

#include <sys/types.h>

#include "bench.h"

/* A server child for one LLP. */
struct topo_server {
	const char *llp;
	pid_t pid;
	int port;
	struct bench_share *share; /* shared memory, written by the child */
};

/* Pin this process to cpu when the affinity mask holds CPUs 0 and 1
 * (else leave it). 1 pinned, 0 not. */
int topo_pin(int cpu);
/* Fork one server child per srv[i].llp listening on host:0 (inside the
 * network namespace netns when not NULL), on CPU 1, with tmpl's options
 * (mtu, tcp_cc, no_crc); fills pid, port and share. 0 or -1 (reason
 * printed; the children already started are stopped). */
int topo_start_servers(struct topo_server *srv, int n, const struct bench_params *tmpl,
		       const char *host, const char *netns);
void topo_stop_servers(struct topo_server *srv, int n);
/* Move this process into a named network namespace (/run/netns/NAME). */
int topo_enter_netns(const char *name);

/* --netns: two namespaces joined by a veth pair at link MTU mtu,
 * 169.254.211.1 (client side, names->client) and .2 (server side,
 * names->server). body runs in a forked child; the namespaces are removed
 * afterwards, also after SIGINT/SIGTERM/SIGHUP. Returns body's exit
 * status, 128 + signal, or TOPO_SKIP (not root, no `ip`, no namespaces). */
#define TOPO_SKIP 77
#define TOPO_CLIENT_ADDR "169.254.211.1"
#define TOPO_SERVER_ADDR "169.254.211.2"
struct topo_netns {
	char client[32], server[32];
	unsigned mtu;
	const char *link; /* --link SPEC: joined through linkem, not a veth */
};
/* link: NULL for the veth pair, else linkem's SPEC (docs/linkem.md): the
 * namespaces are joined through the link emulator (tools/linkem, found
 * beside this program or as $DDP_LINKEM) with that model each way. */
int topo_netns_run(unsigned mtu, const char *link,
		   int (*body)(const struct topo_netns *ns, void *arg), void *arg);

#endif
