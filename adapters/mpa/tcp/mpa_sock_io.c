/*
 * Socket I/O of an MPA/TCP connection: recv/recvmsg into the places the
 * deframer names (no intermediate buffer of ours), sendmsg of the FPDU
 * queue, and the TCP options MPA connections use.
 */
#include "mpa/tcp/mpa_tcp_int.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>

#include <ddp/llp.h>
#include "common/peer_addr.h"
#include "log_limit.h"

uint64_t mpa_tcp_mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void mpa_tcp_log_unresponsive(ddp_mpa_conn *c, unsigned ms)
{
	/* the address was taken at start: a timed-out socket has none */
	ddp_llp_log_limited(c->ctx, DDP_LOGK_MPA_UNRESPONSIVE, DDP_LOG_WARN,
	                    "MPA peer %s unresponsive for %u.%u s (no ACK; "
	                    "dead_peer_timeout_ms %u): connection failed",
	                    c->peer[0] ? c->peer : "?", ms / 1000, ms % 1000 / 100, c->dead_ms);
}

/* A failed recv/sendmsg. ETIMEDOUT is the kernel's dead-peer verdict
 * (TCP_USER_TIMEOUT with data unacknowledged, or keepalive probes
 * unanswered): DDP_ERR_TIMEOUT, logged. Everything else (ECONNRESET,
 * EPIPE, EHOSTUNREACH, ...) is DDP_ERR_LLP. */
static int sock_err(ddp_mpa_conn *c)
{
	if (errno != ETIMEDOUT)
		return DDP_ERR_LLP;
	mpa_tcp_log_unresponsive(c, c->dead_ms);
	return DDP_ERR_TIMEOUT;
}

ssize_t mpa_tcp_readv(void *io, const struct iovec *iov, int cnt)
{
	ddp_mpa_conn *c = io;
	if (c->fd < 0)
		return DDP_ERR_CLOSED;
	/* A short read emptied the socket: say "dry" without another recv
	 * that would only return EAGAIN. epoll is level-triggered, so octets
	 * (or a FIN) that arrive meanwhile raise EV_READ again. */
	if (c->rd_dry)
		return 0;
	size_t want = 0;
	for (int i = 0; i < cnt; i++)
		want += iov[i].iov_len;
	struct msghdr mh;
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = (struct iovec *)(uintptr_t)iov;
	mh.msg_iovlen = (size_t)cnt;
	for (;;) {
		ssize_t r = recvmsg(c->fd, &mh, 0);
		if (r > 0) {
			if ((size_t)r < want)
				c->rd_dry = 1;
			/* bounded work per readable event (MPA_TCP_RD_BUDGET) */
			if ((size_t)r >= c->rd_budget)
				c->rd_dry = 1;
			else
				c->rd_budget -= (size_t)r;
			return r;
		}
		if (r == 0)
			return DDP_ERR_CLOSED;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		return sock_err(c);
	}
}

ssize_t mpa_tcp_read(void *io, void *dst, size_t n)
{
	struct iovec v = {dst, n};
	return mpa_tcp_readv(io, &v, 1);
}

ssize_t mpa_tcp_writev(void *io, const struct iovec *iov, int cnt)
{
	ddp_mpa_conn *c = io;
	if (c->fd < 0)
		return DDP_ERR_CLOSED;
	struct msghdr mh;
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = (struct iovec *)(uintptr_t)iov;
	mh.msg_iovlen = (size_t)cnt;
	for (;;) {
		ssize_t w = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
		if (w >= 0) {
			c->tx_octets += (uint64_t)w;
			return w;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		return sock_err(c);
	}
}

uint64_t mpa_tcp_outq(const ddp_mpa_conn *c)
{
	int outq = 0;
	if (c->fd < 0 || ioctl(c->fd, TIOCOUTQ, &outq) != 0 || outq < 0)
		return 0;
	return (uint64_t)outq;
}

/* Dead-peer detection for a connection whose peer stops acknowledging:
 * keepalive probes while idle (first after ms/2 of silence, then every
 * second), TCP_USER_TIMEOUT while data waits for its ACK. Either way
 * recv/sendmsg then fail with ETIMEDOUT about ms after the last ACK and
 * the session is flushed (DDP_ERR_TIMEOUT). A closed receive window is
 * not silence: mpa_tcp.c lifts TCP_USER_TIMEOUT while it lasts. */
void mpa_tcp_set_dead_peer_timeout(int fd, unsigned ms)
{
	int one = 1, idle = (int)(ms / 2000), cnt = (int)(ms / 2000), intvl = 1;
	if (idle < 1)
		idle = 1;
	if (cnt < 1)
		cnt = 1;
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
	mpa_tcp_set_user_timeout(fd, ms);
}

void mpa_tcp_set_user_timeout(int fd, unsigned ms)
{
	setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ms, sizeof(ms));
}

int mpa_tcp_set_congestion(int fd, const char *name)
{
	if (!name || !*name)
		return 0;
	if (setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, (socklen_t)strlen(name)) < 0)
		return DDP_ERR_INVAL;
	return 0;
}

int mpa_tcp_addr(void *io, int peer, char *buf, size_t len)
{
	ddp_mpa_conn *c = io;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char a[DDP_ADDR_STRLEN];
	if (c->fd < 0 || (peer ? getpeername(c->fd, (struct sockaddr *)&ss, &sl)
	                       : getsockname(c->fd, (struct sockaddr *)&ss, &sl)) < 0)
		return DDP_ERR_NOENT;
	ddp_addr_fmt((struct sockaddr *)&ss, sl, a);
	if (strlen(a) >= len)
		return DDP_ERR_INVAL;
	strcpy(buf, a);
	return 0;
}
