/* A socket address as text for log messages: "127.0.0.1:4242",
 * "[::1]:4242", "?" for anything else. */
#ifndef DDP_PEER_ADDR_H
#define DDP_PEER_ADDR_H

#include <ddp/export.h>
#include <stddef.h>
#include <sys/socket.h>

#define DDP_ADDR_STRLEN 64

/* Writes into buf (DDP_ADDR_STRLEN octets) and returns it. */
DDP_API const char *ddp_addr_fmt(const struct sockaddr *sa, socklen_t len, char *buf);
/* The remote address of a connected socket fd ("?" if unknown). */
DDP_API const char *ddp_fd_peer_fmt(int fd, char *buf);
/* The local address of a socket fd ("?" if unknown). */
DDP_API const char *ddp_fd_local_fmt(int fd, char *buf);

struct sockaddr_storage;
/* host:port into *ss and *len: host numeric (IPv4 or IPv6) or a name
 * (getaddrinfo: blocks while a resolver is asked), NULL = the wildcard
 * address (passive) or loopback. Errors: DDP_ERR_INVAL (port out of
 * 0..65535), DDP_ERR_NOENT (no such host). */
DDP_API int ddp_addr_resolve(const char *host, int port, int passive, struct sockaddr_storage *ss,
                             socklen_t *len);
/* The numeric host of sa (no port) into buf (n octets). */
DDP_API int ddp_addr_host(const struct sockaddr *sa, socklen_t len, char *buf, size_t n);

#endif
