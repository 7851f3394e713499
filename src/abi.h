/*
 * Reading and writing public structs by the caller's size (DDP_SIZES in
 * ddp/export.h has the rules). Header only: the core, the adapters and
 * RDMAP each read the structs of their own calls.
 */
#ifndef DDP_ABI_H
#define DDP_ABI_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <ddp/ddp.h>

/* The caller's size of the call's struct number i (DDP_SIZES order). */
static inline size_t ddp_abi_size(uint64_t sizes, unsigned i)
{
	return (size_t)((sizes >> (16 * i)) & 0xffff);
}

/* Only zeros in [from, to) of p. */
static inline int ddp_abi_zero_tail(const void *p, size_t from, size_t to)
{
	const unsigned char *c = (const unsigned char *)p;
	for (size_t i = from; i < to; i++)
		if (c[i])
			return 0;
	return 1;
}

/* Copy the caller's input struct src (have octets) into the library's own
 * dst (want octets; min: the first release's size); nothing when src is
 * NULL. A larger struct is taken when every octet past want is
 * zero (DDP_ERR_UNSUPPORTED otherwise: a field this release lacks); a
 * smaller one gets zeros (defaults) for the fields it lacks, and one below
 * min is refused (DDP_ERR_INVAL). holds: the struct holds other structs
 * (a larger one is always refused). */
static inline int ddp_abi_in(void *dst, size_t want, size_t min, const void *src, size_t have,
                             int holds)
{
	if (!src)
		return 0;
	if (have < min)
		return DDP_ERR_INVAL;
	/* a struct that holds others: its fields past a grown nested struct
	 * moved, so a larger one cannot be read by this release */
	if (have > want && (holds || !ddp_abi_zero_tail(src, want, have)))
		return DDP_ERR_UNSUPPORTED;
	memset(dst, 0, want);
	memcpy(dst, src, have < want ? have : want);
	return 0;
}

/* A struct nested in another must have this release's size. */
static inline int ddp_abi_nested(size_t want, size_t have)
{
	if (have == want)
		return 0;
	return have > want ? DDP_ERR_UNSUPPORTED : DDP_ERR_INVAL;
}

/* Give the library's output struct src (want octets) to the caller's dst of
 * have octets: filled up to have, zeros past want. Below min: refused. */
static inline int ddp_abi_out(void *dst, size_t have, size_t min, const void *src, size_t want)
{
	if (have < min)
		return DDP_ERR_INVAL;
	memcpy(dst, src, have < want ? have : want);
	if (have > want)
		memset((unsigned char *)dst + want, 0, have - want);
	return 0;
}

/* Take input struct number i of sizes into the local copy. The first
 * release's size is this one's. */
#define DDP_ABI_IN(local, arg, sizes, i)                                                           \
	ddp_abi_in(&(local), sizeof(local), sizeof(local), (arg), ddp_abi_size((sizes), (i)), 0)
/* The same for a struct that holds other structs. */
#define DDP_ABI_IN_HOLDER(local, arg, sizes, i)                                                    \
	ddp_abi_in(&(local), sizeof(local), sizeof(local), (arg), ddp_abi_size((sizes), (i)), 1)
/* Give out an output struct: the caller's size is number i of sizes. */
#define DDP_ABI_OUT(dst, local, sizes, i)                                                          \
	ddp_abi_out((dst), ddp_abi_size((sizes), (i)), sizeof(local), &(local), sizeof(local))

#endif
