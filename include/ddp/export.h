/*
 * libddp: the export mark. DDP_API stands before every function the
 * installed libraries export; the export lists of the shared libraries
 * (their version scripts, symbol version LIBDDP_0) and of the installed
 * static archives are generated from these marks (mk/install.mk), and
 * scripts/check-api.sh fails the build's checks when a function declared
 * in an installed header lacks it.
 */
#ifndef DDP_EXPORT_H
#define DDP_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define DDP_API __attribute__((visibility("default")))
#else
#define DDP_API
#endif

/* The library's version (configure.ac's AC_INIT; checked by
 * scripts/check-api.sh): compile time here, run time from
 * ddp_version() / ddp_version_num(). */
#define DDP_LIB_VERSION_MAJOR 0
#define DDP_LIB_VERSION_MINOR 2
#define DDP_LIB_VERSION_PATCH 0
#define DDP_LIB_VERSION_STRING "0.2.0"
/* 0xMMmmpp: compare with >= in #if */
#define DDP_LIB_VERSION_NUM \
	((DDP_LIB_VERSION_MAJOR << 16) | (DDP_LIB_VERSION_MINOR << 8) | DDP_LIB_VERSION_PATCH)

#endif
