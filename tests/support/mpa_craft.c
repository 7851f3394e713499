/* Raw MPA frames for attacker-side tests (see mpa_craft.h). */
#include "mpa_craft.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

#include "common/crc32c.h"
#include "cursor.h"
#include "mpa/mpa_fpdu.h"
#include "mpa/mpa_startup.h"

size_t mpa_craft_request(uint8_t *out, size_t cap, int rev, int crc)
{
	mpa_local l;
	mpa_frame req;
	size_t len = 0;
	memset(&l, 0, sizeof(l));
	l.rev = (uint8_t)rev;
	l.crc = crc;
	l.ird = l.ord = MPA_IRD_ORD_NONE;
	if (mpa_build_request(&l, &req) != 0)
		return 0;
	if (mpa_frame_encode(&req, out, cap, &len) != 0)
		return 0;
	return len;
}

int mpa_craft_read_reply(int fd, unsigned timeout_ms)
{
	mpa_startup_parser p;
	mpa_sp_init(&p, 1, 0);
	for (;;) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		if (poll(&pfd, 1, (int)timeout_ms) != 1)
			return -1;
		/* one octet at a time: nothing after the Reply is consumed */
		uint8_t b;
		ssize_t r = recv(fd, &b, 1, 0);
		if (r <= 0)
			return -1;
		size_t used = 0;
		int rc = mpa_sp_feed(&p, &b, 1, &used);
		if (rc == DDP_ERR_NEED_MORE)
			continue;
		if (rc != 0)
			return -1;
		return (p.frame.flags & MPA_FLAG_R) ? -1 : 0;
	}
}

size_t mpa_craft_fpdu_len(size_t ulpdu_len)
{
	return MPA_LEN_FIELD + ulpdu_len + mpa_pad_len(ulpdu_len) + MPA_CRC_LEN;
}

size_t mpa_craft_fpdu(uint8_t *out, size_t cap, const uint8_t *ulpdu, size_t ulpdu_len, int crc)
{
	if (ulpdu_len > UINT16_MAX)
		return 0;
	size_t n = mpa_craft_fpdu_len(ulpdu_len);
	if (n > cap)
		return 0;
	size_t pad = mpa_pad_len(ulpdu_len);
	memmove(out + MPA_LEN_FIELD, ulpdu, ulpdu_len); /* may overlap out */
	struct wcur w = wc_init(out, MPA_LEN_FIELD);
	wc_put_be(&w, MPA_LEN_FIELD, ulpdu_len);
	memset(out + MPA_LEN_FIELD + ulpdu_len, 0, pad);
	size_t body = MPA_LEN_FIELD + ulpdu_len + pad;
	/* RFC 5044 §4.4: CRC over ULPDU_Length, ULPDU and PAD, LSB first */
	ddp_crc32c_put_wire(out + body, crc ? ddp_crc32c(0, out, body) : 0);
	return n;
}

int mpa_craft_send_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;
	while (n) {
		ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}
