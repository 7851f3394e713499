/* A socket address as text for log messages: "127.0.0.1:4242",
 * "[::1]:4242", "?" for anything else. */
#ifndef DDP_PEER_ADDR_H
#define DDP_PEER_ADDR_H

#include <stddef.h>
#include <sys/socket.h>

#define DDP_ADDR_STRLEN 64

/* Writes into buf (DDP_ADDR_STRLEN octets) and returns it. */
const char *ddp_addr_fmt(const struct sockaddr *sa, socklen_t len, char *buf);
/* The remote address of a connected socket fd ("?" if unknown). */
const char *ddp_fd_peer_fmt(int fd, char *buf);

#endif
