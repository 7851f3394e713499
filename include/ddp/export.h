/*
 * libddp: the export mark. DDP_API stands before every function the
 * installed libraries export; the export lists of the shared libraries
 * (their version scripts, symbol version LIBDDP_1) and of the installed
 * static archives are generated from these marks (mk/install.mk), and
 * scripts/check-api.sh fails the build's checks when a function declared
 * in an installed header lacks it.
 */
#ifndef DDP_EXPORT_H
#define DDP_EXPORT_H

#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define DDP_API __attribute__((visibility("default")))
#else
#define DDP_API
#endif

/* The library's version (configure.ac's AC_INIT; checked by
 * scripts/check-api.sh): compile time here, run time from
 * ddp_version() / ddp_version_num(). */
#define DDP_LIB_VERSION_MAJOR  1
#define DDP_LIB_VERSION_MINOR  0
#define DDP_LIB_VERSION_PATCH  0
#define DDP_LIB_VERSION_STRING "1.0.0"
/* 0xMMmmpp: compare with >= in #if */
#define DDP_LIB_VERSION_NUM                                                                        \
	((DDP_LIB_VERSION_MAJOR << 16) | (DDP_LIB_VERSION_MINOR << 8) | DDP_LIB_VERSION_PATCH)

/* Struct sizes, so that structs can grow: the hidden last argument.
 * Every call that takes or fills a public struct (a configuration, a
 * callback table, statistics) is a macro that adds one argument and calls
 * a function of the same name with _sized appended:
 *
 *     ddp_ctx_new(&cfg, &ctx)
 *       is  ddp_ctx_new_sized(&cfg, &ctx, DDP_SIZES1(ddp_ctx_config))
 *
 * The argument holds the sizes of those structs as the calling program
 * was compiled, packed by DDP_SIZES*() (16 bits each, in the order of the
 * call's arguments). ddp_x_sized is what the library defines and exports;
 * call the macro, or, through a function pointer, ddp_x_sized with the
 * sizes yourself. Programs built against the 1.0 headers, which named the
 * function ddp_x (with the same parameters), keep working: the shared
 * libraries export ddp_x@LIBDDP_1 as a second name of ddp_x_sized.
 * The library reads a struct by the caller's size, so a later release can
 * append fields without breaking programs built before:
 *  - an input struct smaller than the first release's is refused
 *    (DDP_ERR_INVAL); one larger than the library's own (a program built
 *    with a newer header) is taken when every octet the library does not
 *    know is zero, else refused with DDP_ERR_UNSUPPORTED (it asks for
 *    something this library cannot do);
 *  - a struct that holds another (ddp_conn_callbacks holds ddp_callbacks;
 *    ddp_mpa_config holds ddp_session_config; ddp_sctp_config holds
 *    ddp_session_config, ddp_callbacks and ddp_sctp_callbacks) is read by
 *    its own size, which names the layout of what it holds; larger than
 *    the library's own, it is refused (DDP_ERR_UNSUPPORTED), zero tail or
 *    not: the fields after a nested struct that grew have moved;
 *  - an output struct is filled up to the caller's size and no further;
 *    octets past the library's own are zeroed.
 * Structs only ever grow at their end, and a struct that another one
 * holds does not grow within a SONAME (make check-abi refuses it). The
 * wire formats ddp_sctp_ird_ord and ddp_rdmap_term never change; structs
 * the library hands to callbacks (ddp_delivery, ddp_error_info,
 * ddp_rdmap_wc) may grow at their end (read the fields you know). */
#define DDP_SIZE_(t, i)  ((uint64_t)sizeof(t) << (16 * (i)))
#define DDP_SIZES1(a)    DDP_SIZE_(a, 0)
#define DDP_SIZES2(a, b) (DDP_SIZE_(a, 0) | DDP_SIZE_(b, 1))

#endif
