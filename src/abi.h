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

/* The structs that hold another public struct (not as their last member):
 * ddp_mpa_config and ddp_sctp_config hold ddp_session_config (the latter
 * also ddp_callbacks and ddp_sctp_callbacks), ddp_conn_callbacks holds
 * ddp_callbacks. The caller's size of such a struct cannot tell which
 * layout of the nested one it was built with: after a nested struct grew,
 * every field behind it sits further on. scripts/check-api.sh checks this
 * list against the installed headers. The tags are declared here so that
 * the list needs no adapter header (a tag first met inside _Generic would
 * name a new, different struct). */
struct ddp_mpa_config;
struct ddp_sctp_config;
struct ddp_conn_callbacks;
#define DDP_ABI_HOLDS(local)                                                                       \
	_Generic(&(local), struct ddp_mpa_config * : 1, struct ddp_sctp_config * : 1,              \
	         struct ddp_conn_callbacks * : 1, default : 0)

/* Copy the caller's input struct src (have octets) into the library's own
 * dst (want octets; min: the first release's size); nothing when src is
 * NULL. A larger struct is taken when every octet past want is zero
 * (DDP_ERR_UNSUPPORTED otherwise: a field this release lacks); a smaller
 * one gets zeros (defaults) for the fields it lacks, and one below min is
 * refused (DDP_ERR_INVAL). holds: the struct holds other structs, so a
 * larger one (a program built with a newer header, whose nested struct
 * may have grown and moved every field after it) is always refused with
 * DDP_ERR_UNSUPPORTED. */
static inline int ddp_abi_in(void *dst, size_t want, size_t min, const void *src, size_t have,
                             int holds)
{
	if (!src)
		return 0;
	if (have < min)
		return DDP_ERR_INVAL;
	if (have > want && (holds || !ddp_abi_zero_tail(src, want, have)))
		return DDP_ERR_UNSUPPORTED;
	memset(dst, 0, want);
	memcpy(dst, src, have < want ? have : want);
	return 0;
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

/* Take input struct number i of sizes into the local copy, by the rule of
 * its type (DDP_ABI_HOLDS). The first release's size is this one's. */
#define DDP_ABI_IN(local, arg, sizes, i)                                                           \
	ddp_abi_in(&(local), sizeof(local), sizeof(local), (arg), ddp_abi_size((sizes), (i)),      \
	           DDP_ABI_HOLDS(local))
/* DDP_ABI_IN, then the parameter arg points at the local copy (NULL stays
 * NULL): the rest of the call reads the library's own struct. 1 with the
 * error in rc, or 0. */
#define DDP_ABI_TAKE(rc, local, arg, sizes, i)                                                     \
	(((rc) = DDP_ABI_IN(local, arg, sizes, i)) != 0 || ((arg) = (arg) ? &(local) : NULL, 0))
/* DDP_ABI_IN, for a struct that holds others: it does not compile for a
 * type DDP_ABI_HOLDS does not list. */
#define DDP_ABI_IN_HOLDER(local, arg, sizes, i)                                                    \
	(sizeof(char[DDP_ABI_HOLDS(local) ? 1 : -1]) ? DDP_ABI_IN(local, arg, sizes, i) : 0)
/* Give out an output struct: the caller's size is number i of sizes. */
#define DDP_ABI_OUT(dst, local, sizes, i)                                                          \
	ddp_abi_out((dst), ddp_abi_size((sizes), (i)), sizeof(local), &(local), sizeof(local))

#endif
