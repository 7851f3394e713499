/* ddp-perf: which usrsctp this program was built with, and where the
 * ddp-perf of the usrsctp-system row is (bench.h). make defines both for
 * this file alone (mk/usrsctp.mk), from the patch series or the packaged
 * library's version. */
#include "bench.h"

#ifndef DDP_PERF_USRSCTP
#define DDP_PERF_USRSCTP "usrsctp of unknown origin (not built by make)"
#endif
#ifndef DDP_PERF_SYSTEM_PERF
#define DDP_PERF_SYSTEM_PERF "build-sysusrsctp/bin/ddp-perf"
#endif

const char *bench_usrsctp_build(void)
{
	return DDP_PERF_USRSCTP;
}

const char *bench_system_perf_default(void)
{
	return DDP_PERF_SYSTEM_PERF;
}
