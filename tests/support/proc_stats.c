/* Process numbers for the limit, scale and soak tests (proc_stats.h). */
#include "proc_stats.h"

#include <stdio.h>
#include <stdlib.h>

#ifdef __has_feature
#define HAS_FEATURE_(x) __has_feature(x)
#else
#define HAS_FEATURE_(x) 0
#endif

long proc_rss_kib(void)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

int proc_under_asan(void)
{
#if defined(__SANITIZE_ADDRESS__) || HAS_FEATURE_(address_sanitizer)
	return 1;
#else
	return 0;
#endif
}

int proc_under_valgrind(void)
{
	return getenv("DDP_VALGRIND") != NULL;
}

int proc_rss_meaningful(void)
{
	return !proc_under_asan() && !proc_under_valgrind();
}
