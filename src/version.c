/* ddp_version: the library's version at run time. */
#include <ddp/ddp.h>

const char *ddp_version(void)
{
	return DDP_LIB_VERSION_STRING;
}

uint32_t ddp_version_num(void)
{
	return DDP_LIB_VERSION_NUM;
}
