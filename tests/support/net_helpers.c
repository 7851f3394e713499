/* Socket and event-loop helpers for integration tests (net_helpers.h). */
#include "net_helpers.h"

#if HAVE_LIBEVENT
#include <errno.h>
#include <event2/event.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

double net_now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void net_run_for(struct event_base *base, double secs)
{
	struct timeval tv = { (time_t)secs, (suseconds_t)((secs - (double)(time_t)secs) * 1e6) };
	event_base_loopexit(base, &tv);
	event_base_dispatch(base);
}

struct sockaddr_in net_lo(int port)
{
	struct sockaddr_in sa;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return sa;
}

int net_raw_listener(int *port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = net_lo(0);
	socklen_t sl = sizeof(sa);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 64) != 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl) != 0) {
		close(fd);
		return -1;
	}
	*port = ntohs(sa.sin_port);
	return fd;
}

int net_raw_connect(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = net_lo(port);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int net_peer_closed(int fd)
{
	char b[64];
	ssize_t r = recv(fd, b, sizeof(b), MSG_DONTWAIT);
	return r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}
#endif
