/*
 * tests/cli/wk/kit/weft/demokit.h - a kit header for tests/cli/test-wk.sh:
 * found under -I tests/cli/wk/kit as <weft/demokit.h>, inlined once however
 * often it is included. A kit file may name its functions weft_*.
 */
#include <weft/kernel.h>

WEFT_FN weft_u32 weft_demokit_triple(weft_u32 v)
{
	return 3u * v;
}
