/*
 * --sctp-cc's names: one table for every place ddp-perf parses, passes on
 * or prints usrsctp's congestion control module (enum ddp_sctp_cc).
 */
#include "bench.h"

#include <ddp/sctp.h>
#include <string.h>

static const char *const names[] = {
    [DDP_SCTP_CC_DEFAULT] = "default", [DDP_SCTP_CC_RFC4960] = "rfc4960",
    [DDP_SCTP_CC_HSTCP] = "hstcp",     [DDP_SCTP_CC_HTCP] = "htcp",
    [DDP_SCTP_CC_RTCC] = "rtcc",       [DDP_SCTP_CC_CUBIC] = "cubic",
};

int bench_sctp_cc_parse(const char *s)
{
	for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

const char *bench_sctp_cc_name(int cc)
{
	return cc >= 0 && cc < (int)(sizeof(names) / sizeof(names[0])) ? names[cc] : "?";
}
