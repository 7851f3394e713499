/*
 * CRC32c, RFC 3720 §12.1: polynomial 0x1EDC6F41 (reflected 0x82F63B78),
 * init 0xFFFFFFFF, reflected in/out, final XOR 0xFFFFFFFF.
 *
 * ISA-L's crc32_iscsi(buf, len, init) works on the raw register: it neither
 * inverts the initial value nor the result, and len is an int. We hide that:
 * register = ~crc on entry, ~register on exit, and feed it in chunks below
 * INT_MAX.
 */
#include "common/crc32c.h"

#include "cursor.h"

#include <limits.h>
#include <pthread.h>

#if HAVE_ISAL
#include <isa-l/crc.h>
#endif

#if HAVE_ISAL && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <stdatomic.h>

/* ISA-L's AVX-512 CRC (crc32_iscsi_by16_10, which its dispatcher picks
 * where the CPU has VPCLMULQDQ) returns with the upper halves of the
 * vector registers still in use: it ends without VZEROUPPER. Every
 * legacy-SSE instruction after it (our code and libc are built for plain
 * x86-64) then pays for the mixed state, a merge with the upper halves or
 * a state transition depending on the CPU, until something clears them.
 * So the wrapper clears them on a CPU that has AVX; on one without, ISA-L
 * used no AVX register and there is nothing to clear. */
static int cpu_has_avx(void)
{
	static _Atomic int avx = -1;
	int v = atomic_load_explicit(&avx, memory_order_relaxed);
	if (v < 0) {
		__builtin_cpu_init();
		v = __builtin_cpu_supports("avx") ? 1 : 0;
		atomic_store_explicit(&avx, v, memory_order_relaxed);
	}
	return v;
}

static void vector_upper_clear(void)
{
	if (cpu_has_avx())
		__asm__ volatile("vzeroupper");
}
#else
#define vector_upper_clear() ((void)0)
#endif

#define POLY_REFLECTED 0x82F63B78u

static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void table_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ POLY_REFLECTED : c >> 1;
		table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xff];
}

static uint32_t load32le(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

uint32_t ddp_crc32c_portable(uint32_t crc, const void *p, size_t n)
{
	const uint8_t *b = p;
	uint32_t c = ~crc;

	pthread_once(&table_once, table_init);
	while (n >= 8) {
		uint32_t lo = load32le(b) ^ c;
		uint32_t hi = load32le(b + 4);

		c = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^ table[5][(lo >> 16) & 0xff] ^
		    table[4][lo >> 24] ^ table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^
		    table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
		b += 8;
		n -= 8;
	}
	while (n--)
		c = (c >> 8) ^ table[0][(c ^ *b++) & 0xff];
	return ~c;
}

uint32_t ddp_crc32c(uint32_t crc, const void *p, size_t n)
{
#if HAVE_ISAL
	const uint8_t *b = p;
	uint32_t reg = ~crc;

	while (n > 0) {
		size_t chunk = n > (size_t)(INT_MAX & ~0xfff) ? (size_t)(INT_MAX & ~0xfff) : n;
		/* ISA-L takes a non-const pointer but does not write. */
		reg = crc32_iscsi((unsigned char *)(uintptr_t)b, (int)chunk, reg);
		b += chunk;
		n -= chunk;
	}
	vector_upper_clear();
	return ~reg;
#else
	return ddp_crc32c_portable(crc, p, n);
#endif
}

/* The CRC field's byte order is the cursor's (src/cursor.h), like every
 * other field's. */
void ddp_crc32c_put_wire(uint8_t out[4], uint32_t crc)
{
	struct wcur w = wc_init(out, 4);
	wc_put_le(&w, 4, crc);
}

uint32_t ddp_crc32c_get_wire(const uint8_t in[4])
{
	struct rcur c = rc_init(in, 4);
	uint64_t v = 0;
	rc_get_le(&c, 4, &v); /* cannot fail: 4 of 4 octets */
	return (uint32_t)v;
}
