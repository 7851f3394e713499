/*
 * faultproxy: see faultproxy.h. Needs libevent; the fuzz builds (no
 * libevent) compile this file to nothing.
 */
#include "faultproxy.h"

#if HAVE_LIBEVENT

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>

static uint32_t prng(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

static struct sockaddr_in lo(int port)
{
	struct sockaddr_in sa;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return sa;
}

static void dir_flush(struct fproxy_dir *f)
{
	while (f->plen > 0) {
		size_t k = 1 + prng(&f->seed) % f->max_piece;
		if (k > f->plen)
			k = f->plen;
		ssize_t w = send(f->to, f->pend, k, MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EAGAIN || errno == EINTR)
				break;
			f->plen = 0; /* the far end is gone */
			f->failed = 1;
			break;
		}
		memmove(f->pend, f->pend + w, f->plen - (size_t)w);
		f->plen -= (size_t)w;
	}
	if (f->plen)
		event_add(f->wev, NULL);
	else
		event_del(f->wev);
	if (f->plen < FPROXY_HIGH && !f->eof && !f->failed)
		event_add(f->rev, NULL);
	if (!f->plen && f->eof)
		shutdown(f->to, SHUT_WR);
}

static void dir_read(evutil_socket_t fd, short what, void *arg)
{
	struct fproxy_dir *f = arg;
	uint8_t buf[16384];
	ssize_t r = recv(f->from, buf, sizeof buf, 0);
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (r <= 0) {
		event_del(f->rev);
		f->eof = 1;
		if (!f->plen)
			shutdown(f->to, SHUT_WR);
		return;
	}
	if (f->flip_at && f->seen <= f->flip_at &&
	    f->seen + (uint64_t)r > f->flip_at)
		buf[f->flip_at - f->seen] ^= f->flip_mask;
	f->seen += (uint64_t)r;
	if (f->plen + (size_t)r > f->pcap) {
		size_t cap = (f->plen + (size_t)r) * 2;
		uint8_t *p = realloc(f->pend, cap);
		if (!p) {
			f->failed = 1;
			event_del(f->rev);
			return;
		}
		f->pend = p;
		f->pcap = cap;
	}
	memcpy(f->pend + f->plen, buf, (size_t)r);
	f->plen += (size_t)r;
	if (f->plen >= FPROXY_HIGH)
		event_del(f->rev);
	dir_flush(f);
}

static void dir_write(evutil_socket_t fd, short what, void *arg)
{
	dir_flush(arg);
}

static void on_accept(evutil_socket_t lfd, short what, void *arg)
{
	fproxy *px = arg;
	int c = accept4(px->lfd, NULL, NULL, SOCK_NONBLOCK);
	if (c < 0)
		return;
	if (px->active) {
		close(c); /* one connection per proxy */
		return;
	}
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = lo(px->target_port);
	if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof sa) != 0) {
		if (s >= 0)
			close(s);
		close(c);
		return;
	}
	evutil_make_socket_nonblocking(s);
	int one = 1;
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	px->active = 1;
	px->d[0].from = c;
	px->d[0].to = s;
	px->d[1].from = s;
	px->d[1].to = c;
	for (int i = 0; i < 2; i++) {
		struct fproxy_dir *f = &px->d[i];
		f->rev = event_new(px->base, f->from, EV_READ | EV_PERSIST,
				   dir_read, f);
		f->wev = event_new(px->base, f->to, EV_WRITE | EV_PERSIST,
				   dir_write, f);
		event_add(f->rev, NULL);
	}
}

int fproxy_start(fproxy *px, struct event_base *base, int target,
		 size_t max_piece, uint32_t seed)
{
	memset(px, 0, sizeof(*px));
	px->base = base;
	px->target_port = target;
	px->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (px->lfd < 0)
		return -1;
	struct sockaddr_in sa = lo(0);
	socklen_t sl = sizeof sa;
	if (bind(px->lfd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
	    listen(px->lfd, 4) != 0 ||
	    getsockname(px->lfd, (struct sockaddr *)&sa, &sl) != 0) {
		close(px->lfd);
		return -1;
	}
	px->port = ntohs(sa.sin_port);
	px->lev = event_new(base, px->lfd, EV_READ | EV_PERSIST, on_accept, px);
	event_add(px->lev, NULL);
	for (int i = 0; i < 2; i++) {
		px->d[i].seed = seed + (uint32_t)i;
		px->d[i].max_piece = max_piece ? max_piece : 65536;
		px->d[i].from = px->d[i].to = -1;
	}
	return 0;
}

void fproxy_kill(fproxy *px, int rst)
{
	if (!px->active || px->dead)
		return;
	px->dead = 1;
	for (int i = 0; i < 2; i++) {
		event_del(px->d[i].rev);
		event_del(px->d[i].wev);
	}
	if (!rst)
		return;
	struct linger lg = { 1, 0 };
	for (int i = 0; i < 2; i++) {
		setsockopt(px->d[i].from, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
		close(px->d[i].from);
		px->d[i].from = -1; /* d[1 - i].to is the same socket */
	}
}

void fproxy_stop(fproxy *px)
{
	event_free(px->lev);
	close(px->lfd);
	if (!px->active)
		return;
	for (int i = 0; i < 2; i++) {
		event_free(px->d[i].rev);
		event_free(px->d[i].wev);
		free(px->d[i].pend);
		if (px->d[i].from >= 0)
			close(px->d[i].from);
	}
}

#else
typedef int fproxy_needs_libevent; /* ISO C: no empty translation unit */
#endif
