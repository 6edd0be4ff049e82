/*
 * core/util/version.c - version queries. libweft.la is this object plus the
 * convenience library core/libweft-internal.la (everything else).
 */
#include "util/util.h"

const char *weft_version(void)
{
	return PACKAGE_VERSION;
}

void weft_backend_abi(unsigned *major, unsigned *minor)
{
	*major = WEFT_BACKEND_ABI_MAJOR;
	*minor = WEFT_BACKEND_ABI_MINOR;
}

void weft_model_abi(unsigned *major, unsigned *minor)
{
	*major = WEFT_MODEL_ABI_MAJOR;
	*minor = WEFT_MODEL_ABI_MINOR;
}
