/*
 * CRC32c (Castagnoli, RFC 3720 §12.1 / B.4), as used by the MPA FPDU CRC
 * (RFC 5044 §4.4) and the SCTP checksum (RFC 4960 App. B).
 *
 * Convention: the value passed in and returned is the *finished* CRC
 * (initial inversion and final XOR already applied), so
 *   crc = ddp_crc32c(0, a, na);
 *   crc = ddp_crc32c(crc, b, nb);
 * equals ddp_crc32c(0, ab, na + nb). Pass 0 to start.
 */
#ifndef DDP_ADAPTERS_CRC32C_H
#define DDP_ADAPTERS_CRC32C_H

#include <ddp/export.h>
#include <stddef.h>
#include <stdint.h>

/* CRC32c of p[0..n) chained onto crc (0 to start). Uses ISA-L's
 * crc32_iscsi when built with HAVE_ISAL, else ddp_crc32c_portable().
 * p may be NULL when n == 0. */
DDP_API uint32_t ddp_crc32c(uint32_t crc, const void *p, size_t n);

/* The portable slicing-by-8 implementation (same convention); always
 * built so tests can compare it against the accelerated one. */
DDP_API uint32_t ddp_crc32c_portable(uint32_t crc, const void *p, size_t n);

/* Write a CRC value in MPA/SCTP wire order: least-significant octet first
 * (RFC 5044 §4.4: value 0x83992352 goes out as 52 23 99 83). */
DDP_API void ddp_crc32c_put_wire(uint8_t out[4], uint32_t crc);

/* Read a CRC value stored least-significant octet first. */
DDP_API uint32_t ddp_crc32c_get_wire(const uint8_t in[4]);

#endif
