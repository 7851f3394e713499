/*
 * proto.h — the pub/sub ULP on top of untagged DDP, shared by the relay and
 * pubsub_client. One code path for both LLPs:
 *
 *  - Every message is an untagged DDP message on queue PS_QN. Its kind sits
 *    in the low 8 bits of RsvdULP (40 bits), a count in the 32 above.
 *  - A topic travels inside the message, never in the stream id: a DATA
 *    message starts with a 12-octet header (topic, publisher id, sequence
 *    number; big endian) followed by the payload. The DDP stream a topic
 *    uses is topic % nstreams of the connection: over SCTP each stream is
 *    its own ordered channel, over MPA (one stream) all topics share it.
 *    Either way one topic stays on one stream, so its messages stay in order.
 *  - HELLO (client → relay, stream 0, first message): role and topic list.
 *    ACK (relay → client, stream 0, no payload): the subscription is in
 *    force; messages published from now on reach the client.
 *  - Credits (relay → client): the relay keeps PS_CREDITS buffers posted on
 *    each stream of a connection; a client may have at most that many
 *    messages on a stream that the relay has not given back. CREDIT (no
 *    payload, count in RsvdULP) returns them when the relay reposts the
 *    buffers. Untagged DDP has no flow control of its own (a message with
 *    no posted buffer is an error), so this is how the relay stops reading
 *    from a publisher: it keeps the buffers, it sends no credit.
 */
#ifndef PUBSUB_PROTO_H
#define PUBSUB_PROTO_H

#include <stdint.h>

#define PS_QN         0    /* the one untagged queue used */
#define PS_CREDITS    64   /* relay buffers posted per stream of a connection */
#define PS_MAX_TOPICS 1024 /* topic ids 0..PS_MAX_TOPICS-1 */
#define PS_MAX_MSG    4096 /* largest message, header included */
#define PS_HDR_LEN    12   /* DATA header: topic, publisher, sequence */

enum ps_kind { PS_HELLO = 1, PS_ACK = 2, PS_CREDIT = 3, PS_DATA = 4 };
enum ps_role { PS_PUB = 1, PS_SUB = 2 };

static inline uint64_t ps_rsvdulp(enum ps_kind kind, uint32_t count)
{
	return (uint64_t)count << 8 | (uint64_t)kind;
}
static inline enum ps_kind ps_kind_of(uint64_t rsvdulp) { return (enum ps_kind)(rsvdulp & 0xff); }
static inline uint32_t ps_count_of(uint64_t rsvdulp) { return (uint32_t)(rsvdulp >> 8); }

static inline void ps_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}
static inline uint32_t ps_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* HELLO payload: role, topic count, then that many topic ids (32 bits each). */
#define PS_HELLO_MAX_TOPICS ((PS_MAX_MSG - 8) / 4)

#endif
