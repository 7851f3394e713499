/* nullllp: a discarding LLP for fuzz targets (see nullllp.h). */
#include "nullllp.h"

static int nl_send(void *llp, uint32_t stream, const struct iovec *iov,
		   int iovcnt, size_t len, unsigned flags)
{
	nullllp *n = llp;
	size_t sum = 0;

	for (int i = 0; i < iovcnt; i++)
		sum += iov[i].iov_len;
	if (iovcnt < 1 || sum != len || len > (n->mulpdu ? n->mulpdu : 1500))
		n->violations++;
	if (n->send_rc)
		return n->send_rc;
	n->nsent++;
	n->bytes += len;
	return 0;
}

static uint32_t nl_mulpdu(void *llp)
{
	nullllp *n = llp;

	return n->mulpdu ? n->mulpdu : 1500;
}

static void nl_close_stream(void *llp, uint32_t stream, int abortive)
{
	nullllp *n = llp;

	n->ncloses++;
}

static void nl_close(void *llp, int abortive)
{
	nullllp *n = llp;

	n->ncloses++;
}

const ddp_llp_ops nullllp_ops = {
	.send = nl_send,
	.mulpdu = nl_mulpdu,
	.close_stream = nl_close_stream,
	.close = nl_close,
};
