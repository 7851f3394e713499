/* ddp_strerror: text for every DDP_ERR_* code. */
#include <ddp/ddp.h>

const char *ddp_strerror(int err)
{
	switch (err) {
	case DDP_OK: return "success";
	case DDP_ERR_INVAL: return "invalid argument";
	case DDP_ERR_NOMEM: return "out of memory";
	case DDP_ERR_TOOBIG: return "message too large";
	case DDP_ERR_CLOSED: return "stream or session closed";
	case DDP_ERR_STATE: return "operation not allowed in this state";
	case DDP_ERR_NOENT: return "no such object";
	case DDP_ERR_LIMIT: return "configured limit reached";
	case DDP_ERR_AGAIN: return "lower layer busy, try again";
	case DDP_ERR_STREAM: return "stream stopped after an error";
	case DDP_ERR_LLP: return "lower layer protocol failure";
	case DDP_ERR_PROTO: return "protocol violation by the peer";
	case DDP_ERR_NEED_MORE: return "more input needed";
	case DDP_ERR_BUSY: return "object in use";
	case DDP_ERR_TIMEOUT: return "timed out";
	case DDP_ERR_REJECTED: return "rejected by the peer";
	case DDP_ERR_ABORTED: return "aborted by teardown";
	case DDP_ERR_UNSUPPORTED: return "not supported";
	case DDP_ERR_SYS: return "system call failed";
	case DDP_ERR_ACCESS: return "access not permitted";
	}
	return "unknown error";
}
