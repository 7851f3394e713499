/*
 * MPA start-up (RFC 5044 §7.1, RFC 6581): Request/Reply frame codec, a
 * resumable frame parser and the pure negotiation rules (markers, CRC,
 * revision, IRD/ORD, peer-to-peer RTR). No I/O here.
 */
#ifndef DDP_MPA_STARTUP_H
#define DDP_MPA_STARTUP_H

#include <stddef.h>
#include <stdint.h>

#define MPA_KEY_LEN       16
#define MPA_FRAME_HDR_LEN 20  /* key + flags + rev + PD_Length */
#define MPA_PD_MAX        512 /* RFC 5044 §7.1: PD_Length MUST be <= 512 */
#define MPA_ENH_LEN       4   /* RFC 6581 §6.1 enhanced data word */
#define MPA_IRD_ORD_MASK  0x3FFF
#define MPA_IRD_ORD_NONE  0x3FFF /* RFC 6581 §9.1: no automatic negotiation */

/* Flags octet (offset 16). */
enum {
	MPA_FLAG_M = 0x80, /* markers wanted in FPDUs sent by the peer */
	MPA_FLAG_C = 0x40, /* CRC wanted */
	MPA_FLAG_R = 0x20, /* reply only: rejected */
	MPA_FLAG_S = 0x10, /* RFC 6581: enhanced private data follows */
};

/* RTR kinds (RFC 6581 §6.1 bits B, C, D). */
enum {
	MPA_RTR_SEND = 0x1,  /* B: zero-length Send */
	MPA_RTR_WRITE = 0x2, /* C: zero-length RDMA Write */
	MPA_RTR_READ = 0x4,  /* D: zero-length RDMA Read Request */
	MPA_RTR_ALL = 0x7,
};

/* Highest revision we speak. Rev 0 (RDMA Consortium MPA, RFC 5044 App. C)
 * is refused: it implies DDP/RDMAP version 0, which libddp does not do. */
#define MPA_REV_MAX 2
#define MPA_REV_MIN 1

/* A decoded (or to-be-encoded) Request or Reply frame. */
typedef struct mpa_frame {
	int reply;     /* 0: Request key, 1: Reply key */
	uint8_t flags; /* MPA_FLAG_* (Res bits are ignored on receipt) */
	uint8_t rev;
	/* RFC 6581 enhanced word, meaningful when enhanced != 0 */
	int enhanced;      /* rev >= 2 && S: PD starts with the 4-octet word */
	int p2p;           /* A */
	unsigned rtr;      /* MPA_RTR_* (B, C, D) */
	uint16_t ird, ord; /* 14 bit each */
	/* ULP private data (after the enhanced word if any) */
	const uint8_t *priv;
	uint16_t priv_len;
} mpa_frame;

/* Octets mpa_frame_encode() writes for f. */
size_t mpa_frame_len(const mpa_frame *f);

/* Encode f into out[0..cap). *len receives the frame length.
 * Errors: DDP_ERR_INVAL (NULL, rev 0 or > 2 with enhanced, IRD/ORD > 14
 * bit, PD too long: total PD_Length > MPA_PD_MAX), DDP_ERR_LIMIT (cap too
 * small). */
int mpa_frame_encode(const mpa_frame *f, uint8_t *out, size_t cap, size_t *len);

/* ------------------------------------------------------------- parser */

enum mpa_sp_state {
	MPA_SP_KEY = 0, /* collecting the 20-octet fixed header */
	MPA_SP_PD,      /* collecting PD_Length octets of private data */
	MPA_SP_DONE,    /* a whole frame was parsed */
	MPA_SP_ERROR,   /* improperly formatted: see ecode/why */
	MPA_SP_NSTATES
};

typedef struct mpa_startup_parser {
	enum mpa_sp_state state;
	int expect_reply;  /* 1: we are the Initiator and wait for "Rep" */
	uint16_t priv_cap; /* largest PD_Length accepted */
	size_t got;        /* octets of the current state collected */
	uint16_t priv_len; /* raw PD_Length from the wire */
	uint8_t hdr[MPA_FRAME_HDR_LEN];
	uint8_t priv[MPA_PD_MAX];
	mpa_frame frame; /* valid in MPA_SP_DONE; priv points into priv[] */
	uint8_t ecode;   /* DDP_MPA_ECODE_* in MPA_SP_ERROR */
	const char *why; /* static text in MPA_SP_ERROR */
} mpa_startup_parser;

/* Name of a parser state (static string, "?" for out of range). */
const char *mpa_sp_state_name(enum mpa_sp_state st);

/* Start a parser. priv_cap 0 = MPA_PD_MAX; values above MPA_PD_MAX are
 * clamped to it (RFC 5044 §7.1). */
void mpa_sp_init(mpa_startup_parser *p, int expect_reply, uint16_t priv_cap);

/* Feed n octets (any segmentation). *used receives the octets consumed.
 * Returns 0 when a whole valid frame is in p->frame, DDP_ERR_NEED_MORE when
 * every octet was consumed and the frame is not complete yet, or
 * DDP_ERR_PROTO (state MPA_SP_ERROR, p->ecode = DDP_MPA_ECODE_BAD_FRAME,
 * p->why says what) when:
 *  - the key is neither Request nor Reply, or is the wrong one of the two
 *    (RFC 5044 §7.1.1: Req where Rep expected = initiator/initiator);
 *  - Rev is not 1 or 2 (RFC 5044 §7.1.2: MUST check the revision);
 *  - PD_Length > priv_cap (RFC 5044 §7.1: improperly formatted);
 *  - Rev 2 with S=1 but PD_Length < 4 (RFC 6581 §6.1);
 *  - octets follow the frame in the same input (strict mode, siw/cxgb4:
 *    nothing may follow a start-up frame until the peer saw ours, spec §2).
 * After DONE or ERROR further calls return the same result, consuming 0. */
int mpa_sp_feed(mpa_startup_parser *p, const uint8_t *buf, size_t n, size_t *used);

/* --------------------------------------------------------- negotiation */

/* Local start-up settings of one side. */
typedef struct mpa_local {
	uint8_t rev;         /* 1 or 2 (2 = RFC 6581 enhanced, S=1 sent) */
	int markers;         /* we ask the peer for markers (M=1) */
	int crc;             /* we want CRCs (C=1); RFC 5044 §4.4 default 1 */
	int p2p;             /* rev 2: peer-to-peer, RTR required (A) */
	unsigned rtr;        /* rev 2: RTR kinds we can send/accept, 0=all */
	uint16_t ird, ord;   /* rev 2: our depths (0x3FFF: no negotiation) */
	const uint8_t *priv; /* ULP private data for our frame */
	uint16_t priv_len;
} mpa_local;

/* What the start-up settled. */
typedef struct mpa_result {
	uint8_t rev;                 /* revision reported to the ULP (the Reply's) */
	int tx_markers;              /* we insert markers (the peer's frame had M) */
	int rx_markers;              /* the peer inserts markers (our frame had M) */
	int crc;                     /* C=1 in either frame: generate and check */
	int enhanced;                /* both frames enhanced */
	int p2p;                     /* RTR exchange required */
	unsigned rtr;                /* initiator: the one RTR kind it sends;
	                              * responder: the kinds it accepts */
	uint16_t ird, ord;           /* our values after negotiation */
	uint16_t peer_ird, peer_ord; /* raw values from the peer (RFC 6581
	                              * §9.1: passed to the ULP) */
} mpa_result;

/* Initiator: the Request for l. Errors: DDP_ERR_INVAL (rev not 1/2). */
int mpa_build_request(const mpa_local *l, mpa_frame *req);

/* Responder: given a parsed Request, build the accepting Reply (R=0) and
 * the result (RFC 5044 §7.1.2, RFC 6581 §9.1-9.3). rev of the Reply = the
 * Request's (siw/cxgb4 practice). A Request that is enhanced gets an
 * enhanced Reply, a plain one a plain Reply (RFC 6581 §6.2) even when l
 * asks for rev 2. l->priv is the reply private data.
 * Errors: DDP_ERR_INVAL. */
int mpa_respond(const mpa_local *l, const mpa_frame *req, mpa_frame *rep, mpa_result *res);

/* Responder rejecting: R=1 Reply carrying l->priv (RFC 5044 §7.1.2). */
int mpa_build_reject(const mpa_local *l, const mpa_frame *req, mpa_frame *rep);

/* Initiator: check a parsed Reply against our Request and fill res.
 * Returns 0 (accepted), DDP_ERR_REJECTED (R=1: leave MPA; res still has
 * the peer's IRD/ORD), or DDP_ERR_PROTO with *ecode set:
 * DDP_MPA_ECODE_BAD_FRAME (Reply rev above the Request's, enhanced Reply to
 * a plain Request), DDP_MPA_ECODE_IRD (responder ORD above our IRD, RFC
 * 6581 §9.1), DDP_MPA_ECODE_NO_RTR (A=1 but no common RTR kind, §9.2). */
int mpa_check_reply(const mpa_local *l, const mpa_frame *req, const mpa_frame *rep, mpa_result *res,
                    uint8_t *ecode);

#endif
