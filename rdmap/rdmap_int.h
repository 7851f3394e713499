/* libddp-rdmap internals shared by the dispatcher (rdmap_dev.c) and the
 * queue pair (rdmap_qp.c). Private prefix rdmapi_. */
#ifndef DDP_RDMAP_INT_H
#define DDP_RDMAP_INT_H

#include "life.h"
#include <ddp/rdmap.h>

#include "rdmap_wire.h"

/* What a DDP msg_ctx / buf_ctx of ours points to: a struct whose first
 * member is one of these tags. */
enum rdmapi_tag { TAG_WR = 0x52574b31, TAG_RESP, TAG_TERM, TAG_QN1, TAG_QN2 };

enum wr_state { WR_QUEUED, WR_SUBMITTED, WR_DONE };

struct rdmapi_wr {
	enum rdmapi_tag tag; /* TAG_WR */
	struct rdmapi_wr *next;
	enum ddp_rdmap_wc_kind kind;
	enum wr_state state;
	int status;
	int ddp_owned; /* handed to DDP, send_done not seen yet */
	int reported;  /* its completion ran */
	uint8_t opcode;
	uint32_t stag, inv_stag;
	uint64_t to;
	uint32_t len;
	void *ctx;
	int iovcnt;
	struct iovec *iov; /* iov_small or allocated */
	struct iovec iov_small[2];
	uint8_t rreq[RDMAPI_RREQ_LEN];
};

/* One incoming Read Request: its QN 1 buffer, then its Response. */
struct rdmapi_resp {
	enum rdmapi_tag tag;      /* TAG_QN1 while posted, TAG_RESP while answered */
	struct rdmapi_resp *next; /* pending list (DDP was full) */
	struct ddp_rdmap_qp *qp;
	uint8_t buf[RDMAPI_RREQ_LEN];
	rdmapi_rreq req;
	void *src;
	ddp_stag_hold *hold; /* on the source region while src is in use */
};

struct rdmapi_term_tx {
	enum rdmapi_tag tag; /* TAG_TERM */
	uint8_t buf[RDMAPI_TERM_MAX];
	int len;
	int queued, ddp_owned;
};

struct rdmapi_term_rx {
	enum rdmapi_tag tag; /* TAG_QN2 */
	uint8_t buf[128];
};

struct ddp_rdmap_qp {
	ddp_rdmap_dev *dev;
	struct ddp_rdmap_qp *next; /* dev's list */
	ddp_session *s;
	ddp_ctx *ctx;
	uint32_t stream;
	ddp_rdmap_config cfg;
	ddp_rdmap_callbacks cb;
	void *user;
	/* send queue: head..tail in posting order; sub = first not submitted */
	struct rdmapi_wr *head, *tail, *sub;
	uint32_t nwr;
	struct rdmapi_wr **reads; /* ring of ORD submitted Reads */
	uint32_t rd_head, rd_n;
	/* responder */
	struct rdmapi_resp *resp; /* ird of them */
	struct rdmapi_resp *pend_head, *pend_tail;
	struct rdmapi_term_tx term_tx;
	struct rdmapi_term_rx term_rx;
	int failed, ended, blocked;
	int in_submit, again, in_complete;
	int freeing;
	struct ddp_life life; /* frames on the stack, freed (src/life.h) */
};

struct ddp_rdmap_dev {
	ddp_ctx *ctx;
	ddp_callbacks other;
	void *other_user;
	struct ddp_rdmap_qp *qps;
};

/* rdmap_qp.c: the DDP events of one queue pair. */
void rdmapi_qp_deliver(struct ddp_rdmap_qp *qp, const ddp_delivery *d);
void rdmapi_qp_send_done(struct ddp_rdmap_qp *qp, void *msg_ctx, int status);
void rdmapi_qp_error(struct ddp_rdmap_qp *qp, const ddp_error_info *e);
void rdmapi_qp_stream_event(struct ddp_rdmap_qp *qp, enum ddp_stream_event ev, int status);
/* Every callback into the ULP goes through here: none once the queue
 * pair was freed inside a frame that uses it (src/life.h). */
#define QP_CALLBACK(qp, name, ...)                                                                 \
	do {                                                                                       \
		if (life_live(&(qp)->life))                                                        \
			(qp)->cb.name(__VA_ARGS__);                                                \
	} while (0)

/* rdmap_qp.c: a frame (the dispatcher, a posting call) starts / stops
 * using qp; the last frame after a free inside it releases qp. */
void rdmapi_qp_enter(struct ddp_rdmap_qp *qp);
void rdmapi_qp_leave(struct ddp_rdmap_qp *qp);

/* rdmap_qp.c: the QP of (s, stream) on a device (moved to the front) */
struct ddp_rdmap_qp *rdmapi_qp_find(ddp_rdmap_dev *dev, const ddp_session *s, uint32_t stream);

#endif
