/* Socket addresses as text for the log hook (peer_addr.h). */
#include "common/peer_addr.h"

#include <arpa/inet.h>
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
	} else if (sa && sa->sa_family == AF_INET6 &&
		   len >= sizeof(struct sockaddr_in6)) {
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
