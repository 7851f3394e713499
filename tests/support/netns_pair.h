/* Two network namespaces joined by a veth pair, made by integration tests
 * that cut a peer off (its veth goes down): one pair per process at a
 * time, removed by netns_pair_del(), at exit, and when the test dies by
 * its alarm or an abort. Root and iproute2 needed. */
#ifndef DDP_TEST_NETNS_PAIR_H
#define DDP_TEST_NETNS_PAIR_H

/* The names of the pair made last (empty when none). */
extern char netns_a[32], netns_b[32], netns_veth_a[16], netns_veth_b[16];

/* system() of the formatted command: 0 on exit status 0, else -1. */
int netns_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Namespaces <tag>A<pid> and <tag>B<pid>, veth <vtag>A<pid> / <vtag>B<pid>
 * with addr_a / addr_b (/24), both up. -1: namespaces cannot be made here
 * (nothing is left behind). */
int netns_pair_up(const char *tag, const char *vtag, const char *addr_a, const char *addr_b);
void netns_pair_del(void);
/* The sockets made from now on are in namespace ns; *home (-1 at first)
 * keeps the namespace to go back to with setns(*home, CLONE_NEWNET).
 * -1 on error. */
int netns_enter(const char *ns, int *home);

#endif
