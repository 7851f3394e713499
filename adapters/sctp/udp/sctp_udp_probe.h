/*
 * The wire form of a path MTU probe (RFC 8899 §6.2.1.2, PLPMTUD for SCTP:
 * a HEARTBEAT chunk padded with a PAD chunk) and of its HEARTBEAT ACK,
 * built and parsed by the UDP layer itself, which usrsctp never sees.
 * Pure: no socket, no allocation, every read bounds-checked.
 *
 *   common header (12): ports, the verification tag the peer expects
 *   HEARTBEAT (type 4, 28 octets): Heartbeat Info TLV (type 1, 24):
 *       marker (4) "DDPp", probe size (4, IP octets), sequence (4),
 *       nonce (8, keyed SipHash over peer, size and sequence; opaque
 *       to the peer, so in host order)
 *   PAD (type 0x84, RFC 4820): fills the UDP payload to the probe size
 */
#ifndef SCTP_UDP_PROBE_H
#define SCTP_UDP_PROBE_H

#include <stddef.h>
#include <stdint.h>

#define SCTP_PROBE_MARKER  0x44445070u /* "DDPp" */
#define SCTP_PROBE_HB_LEN  28          /* HEARTBEAT chunk with our TLV */
#define SCTP_PROBE_MIN_LEN 44          /* header + HEARTBEAT + empty PAD */

struct sctp_probe {
	uint16_t sport, dport; /* SCTP ports as sent */
	uint32_t vtag;         /* verification tag in the common header */
	uint32_t size;         /* probed IP packet size */
	uint32_t seq;
	uint64_t nonce;
};

/* Build a probe of exactly len octets (the UDP payload: a multiple of 4,
 * at least SCTP_PROBE_MIN_LEN) into buf, CRC32c included. Returns len, or
 * 0 if len is not acceptable. */
size_t sctp_probe_build(uint8_t *buf, size_t len, const struct sctp_probe *pr);

enum sctp_probe_ack {
	SCTP_PROBE_NONE, /* no HEARTBEAT ACK with our marker: not ours */
	SCTP_PROBE_ACK,  /* one, well formed: *out filled, its chunk at
	                  * *off (*clen octets with padding) */
	SCTP_PROBE_BAD,  /* a HEARTBEAT ACK with our marker whose TLV is
	                  * malformed (length): dropped and counted */
};

/* Look for the HEARTBEAT ACK of one of our probes in the received SCTP
 * packet b[0..n) (CRC32c already checked). Chunks are walked while their
 * lengths stay inside the packet. */
enum sctp_probe_ack sctp_probe_ack_parse(const uint8_t *b, size_t n, struct sctp_probe *out,
                                         size_t *off, size_t *clen);

#endif
