/* Process numbers the limit, scale and soak tests assert on: resident
 * memory, and whether they mean anything in this build (not under ASan's
 * quarantine or valgrind). */
#ifndef DDP_TEST_PROC_STATS_H
#define DDP_TEST_PROC_STATS_H

/* VmRSS of this process in KiB, or -1. */
long proc_rss_kib(void);
/* 1 when built with AddressSanitizer. */
int proc_under_asan(void);
/* 1 when run by `make check-valgrind` (DDP_VALGRIND set). */
int proc_under_valgrind(void);
/* 1 when RSS and CPU time say something about the library: neither of the
 * above (those runs print the numbers but do not assert them). */
int proc_rss_meaningful(void);

#endif
