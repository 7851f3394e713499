/*
 * How the application opens an MPA connection of its own (connect to an
 * address, or wrap a connected TCP socket; the calls that read the
 * caller's structs by their sizes) and what it reads of one (its session,
 * the negotiated parameters). The connection itself is mpa_tcp.c.
 */
#include "mpa/tcp/mpa_tcp_int.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>

#include "abi.h"

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -1;
	return 0;
}

int ddp_mpa_wrap_fd_sized(struct event_base *base, ddp_ctx *ctx, int fd, int initiator,
                          const ddp_mpa_config *cfg, const ddp_callbacks *cb,
                          ddp_mpa_accept_cb accept, ddp_mpa_event_cb ev, void *user,
                          ddp_mpa_conn **out, uint64_t sizes)
{
	ddp_mpa_config cfg_v;
	ddp_callbacks cb_v;
	int rc;
	if (DDP_ABI_TAKE(rc, cfg_v, cfg, sizes, 0) || DDP_ABI_TAKE(rc, cb_v, cb, sizes, 1))
		return rc;
	if (fd < 0 || set_nonblock(fd) < 0)
		return DDP_ERR_INVAL;
	rc = mpa_tcp_conn_new(base, ctx, fd, initiator, 0, cfg, cb, accept, ev, user, out);
	if (rc < 0)
		return rc;
	mpa_tcp_start(*out);
	return 0;
}

int ddp_mpa_connect_sized(struct event_base *base, ddp_ctx *ctx, const struct sockaddr *sa,
                          socklen_t salen, const ddp_mpa_config *cfg, const ddp_callbacks *cb,
                          ddp_mpa_event_cb ev, void *user, ddp_mpa_conn **out, uint64_t sizes)
{
	ddp_mpa_config cfg_v;
	ddp_callbacks cb_v;
	int rc;
	if (DDP_ABI_TAKE(rc, cfg_v, cfg, sizes, 0) || DDP_ABI_TAKE(rc, cb_v, cb, sizes, 1))
		return rc;
	if (!sa || !out)
		return DDP_ERR_INVAL;
	int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return DDP_ERR_SYS;
	if (cfg && mpa_tcp_set_congestion(fd, cfg->tcp_congestion) < 0) {
		close(fd);
		return DDP_ERR_INVAL;
	}
	rc = mpa_tcp_conn_new(base, ctx, fd, 1, 0, cfg, cb, NULL, ev, user, out);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	ddp_mpa_conn *c = *out;
	if (connect(fd, sa, salen) == 0) {
		mpa_tcp_start(c);
		return 0;
	}
	if (errno != EINPROGRESS) {
		int e = errno;
		c->finished = 1;
		mpa_tcp_destroy(c);
		*out = NULL;
		errno = e;
		return DDP_ERR_SYS;
	}
	c->connecting = 1;
	event_add(c->wev, NULL);
	struct timeval tv = {c->timeout_ms / 1000, (c->timeout_ms % 1000) * 1000};
	event_add(c->tmo, &tv);
	return 0;
}

ddp_session *ddp_mpa_session(const ddp_mpa_conn *c)
{
	return c ? c->s : NULL;
}

void ddp_mpa_set_user(ddp_mpa_conn *c, void *user)
{
	if (c)
		c->user = user;
}

int ddp_mpa_get_info_sized(const ddp_mpa_conn *c, ddp_mpa_info *out, uint64_t sizes)
{
	ddp_mpa_info v = {0};
	int rc = mpa_tcp_info(c, out ? &v : NULL);
	return rc ? rc : DDP_ABI_OUT(out, v, sizes, 0);
}
