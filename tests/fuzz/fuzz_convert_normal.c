/*
 * Fuzzer: "trace2 convert --to normal [--brief] DIR" (tools/convert.c and
 * the normal target), run through cmd_convert() on the input as files
 * (fz_cmd.h).  Nothing may crash, leak or read out of bounds, the exit
 * code is 0 or 1, and the output is whole lines.
 */
#include "fuzz.h"
#include "fz_cmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_cmd_convert_text("normal", data, size);
	return 0;
}
