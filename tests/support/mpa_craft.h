/*
 * mpa_craft: build raw MPA start-up frames and FPDUs for attacker-side
 * tests (a plain TCP socket that speaks MPA by hand). Uses the adapter's
 * own start-up codec (adapters/mpa/mpa_startup.h) for the Request and the
 * shared CRC32c; the FPDU framing is written here from RFC 5044 §4 so the
 * tests do not depend on the transmit framer they attack.
 */
#ifndef DDP_TEST_MPA_CRAFT_H
#define DDP_TEST_MPA_CRAFT_H

#include <stddef.h>
#include <stdint.h>

/* Encode an MPA Request (revision rev, C=1 when crc, M=0, no private
 * data) into out[0..cap). Returns its length, or 0 when it does not fit. */
size_t mpa_craft_request(uint8_t *out, size_t cap, int rev, int crc);

/* Read an MPA Reply from the blocking socket fd (gives up after
 * timeout_ms). Returns 0 for an accepting Reply (R=0), -1 otherwise. */
int mpa_craft_read_reply(int fd, unsigned timeout_ms);

/* Frame one ULPDU (DDP segment, 14..65535 octets) as an FPDU without
 * markers: ULPDU_Length (big endian), ULPDU, PAD to a multiple of 4 and
 * the CRC32c over all of them, least-significant octet first (RFC 5044
 * §4.1, §4.4); crc 0 writes a zero CRC field. Returns the FPDU length
 * (ulpdu_len + 2 + pad + 4), or 0 when it does not fit in cap. */
size_t mpa_craft_fpdu(uint8_t *out, size_t cap, const uint8_t *ulpdu, size_t ulpdu_len, int crc);

/* Octets an FPDU of ulpdu_len octets takes on the wire (no markers). */
size_t mpa_craft_fpdu_len(size_t ulpdu_len);

/* Write all n octets to the (blocking) socket fd. Returns 0 or -1. */
int mpa_craft_send_all(int fd, const void *p, size_t n);

#endif
