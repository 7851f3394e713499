/* Small socket and event-loop helpers shared by integration tests
 * (loopback only). Not linked into the libFuzzer builds (net_ prefix). */
#ifndef DDP_TEST_NET_HELPERS_H
#define DDP_TEST_NET_HELPERS_H

#include <netinet/in.h>

struct event_base;

/* Monotonic seconds. */
double net_now_s(void);
/* Run the loop for secs seconds. */
void net_run_for(struct event_base *base, double secs);
/* 127.0.0.1:port */
struct sockaddr_in net_lo(int port);
/* A plain TCP listener on 127.0.0.1 (ephemeral port in *port) that never
 * runs MPA. Returns the fd or -1. */
int net_raw_listener(int *port);
/* A blocking TCP connect to 127.0.0.1:port. Returns the fd or -1. */
int net_raw_connect(int port);
/* 1: the peer closed or reset fd, 0: still open and silent. */
int net_peer_closed(int fd);

#endif
