/* Socket addresses as text for the log hook (peer_addr.h). */
#include "common/peer_addr.h"

#include <ddp/ddp.h>

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

const char *ddp_addr_fmt(const struct sockaddr *sa, socklen_t len, char *buf)
{
	char ip[INET6_ADDRSTRLEN];
	if (sa && sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *s = (const void *)sa;
		inet_ntop(AF_INET, &s->sin_addr, ip, sizeof(ip));
		snprintf(buf, DDP_ADDR_STRLEN, "%s:%u", ip, ntohs(s->sin_port));
	} else if (sa && sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *s = (const void *)sa;
		inet_ntop(AF_INET6, &s->sin6_addr, ip, sizeof(ip));
		snprintf(buf, DDP_ADDR_STRLEN, "[%s]:%u", ip, ntohs(s->sin6_port));
	} else {
		strcpy(buf, "?");
	}
	return buf;
}

const char *ddp_fd_peer_fmt(int fd, char *buf)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	if (fd < 0 || getpeername(fd, (struct sockaddr *)&ss, &sl) < 0) {
		strcpy(buf, "?");
		return buf;
	}
	return ddp_addr_fmt((struct sockaddr *)&ss, sl, buf);
}

const char *ddp_fd_local_fmt(int fd, char *buf)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	if (fd < 0 || getsockname(fd, (struct sockaddr *)&ss, &sl) < 0) {
		strcpy(buf, "?");
		return buf;
	}
	return ddp_addr_fmt((struct sockaddr *)&ss, sl, buf);
}

int ddp_addr_resolve(const char *host, int port, int passive, struct sockaddr_storage *ss,
                     socklen_t *len)
{
	struct addrinfo hints, *res = NULL;
	char serv[8];
	if (port < 0 || port > 65535 || !ss || !len)
		return DDP_ERR_INVAL;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
	snprintf(serv, sizeof(serv), "%d", port);
	if (getaddrinfo(host, serv, &hints, &res) != 0 || !res)
		return DDP_ERR_NOENT;
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

int ddp_addr_host(const struct sockaddr *sa, socklen_t len, char *buf, size_t n)
{
	return getnameinfo(sa, len, buf, (socklen_t)n, NULL, 0, NI_NUMERICHOST) == 0
	           ? 0
	           : DDP_ERR_INVAL;
}
