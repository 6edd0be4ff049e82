/* tests/cli/wk/demo_more.h - a helper, included by demo_shared.h. */
WEFT_FN weft_u32 demo_twice(weft_u32 v)
{
	return v + v;
}
