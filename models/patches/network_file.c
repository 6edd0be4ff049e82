/*
 * models/patches/network_file.c - [patches] network_file: the network
 * between the patches given as a matrix, a row per source patch and a
 * column per destination, instead of one computed by a migration model
 * (a modeller's own mobility data, or another tool's matrix, such as
 * laser-measles' migration matrix, to mix through that very network).
 *
 *   # from\to, patch 0, patch 1, patch 2      (an optional header)
 *   0, 0.001, 0.0005
 *   0.002, 0, 0.0001
 *   0.0003, 0.0004, 0
 */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demography.h"

/* Whether the field at p begins as a number: a digit, a sign or a point
 * (a header's first field does not; strtod would take "inf" or "nan"). */
static int pt_net_numeric(const char *p)
{
	p += strspn(p, " \t");
	return *p && strchr("0123456789+-.", *p) != NULL;
}

/* Row r of the matrix from line into row (P numbers): NULL, or what is
 * wrong with it. A row of P + 1 fields begins with its source patch's
 * number, r (network_output's network.csv). */
static const char *pt_net_row(const char *line, uint32_t P, uint32_t r,
			      double *row)
{
	const char *p = line;
	size_t fields = 1;
	char *end;

	const char *last = line + strlen(line);

	while (last > line && strchr(" \t\r\n", last[-1]))
		last--;
	if (last > line && last[-1] == ',')
		return "a comma at the end of the line (an empty entry)";
	for (const char *q = line; *q; q++)
		fields += *q == ',';
	if (fields == (size_t)P + 1) {
		unsigned long src = strtoul(p, &end, 10);

		if (end == p || src != r ||
		    *(p = end + strspn(end, " \t")) != ',')
			return "a row of one field more than the patches does "
			       "not begin with its source patch's number";
		p++;
	} else if (fields != P)
		return "not as many entries as patches (or one more: the "
		       "source patch's number first)";
	for (uint32_t j = 0; j < P; j++) {
		if (!pt_net_numeric(p))
			return p[strspn(p, " \t")] == ',' ||
					       p[strspn(p, " \t\r\n")] == 0
				       ? "an empty entry"
				       : "an entry is not a number";
		/* An entry that underflows (1e-320) is taken as strtod
		 * gives it; one that overflows is not finite. */
		row[j] = strtod(p, &end);
		if (end == p || !isfinite(row[j]))
			return "an entry is not a number";
		if (row[j] < 0)
			return "a negative entry";
		if (j == r && row[j] != 0)
			return "the entry from a patch to itself is not 0 "
			       "(what stays is 1 - the row's sum)";
		p = end + strspn(end, " \t");
		if (j + 1 < P && *p++ != ',')
			return "an entry is not a number";
	}
	if (p[strspn(p, " \t\r\n")] != 0)
		return "text after the last entry";
	return NULL;
}

/* network_file into net, P rows of P; a first line that does not begin
 * with a number is a header, blank lines are skipped. Errors name the
 * key's INI line, the file and its line. Lines of any length (POSIX
 * getline, which the models' _GNU_SOURCE gives): a row of 4096 patches
 * runs to about 100 kB. */
weft_status pt_network_read(weft_model_ctx *mc, uint32_t P, double *net)
{
	const char *where = weft_model_where(mc, "network_file");
	const char *what = NULL;
	char path[4096], *line = NULL;
	size_t cap = 0;
	uint32_t ln = 0, rows = 0;
	int seen = 0;
	FILE *f;
	weft_status st;

	if ((st = pt_file_open(mc, "network_file", path, sizeof path, &f)))
		return st;
	while (!what && getline(&line, &cap, f) > 0) {
		ln++;
		if (line[strspn(line, " \t\r\n")] == 0)
			continue;
		if (rows == P) {
			what = "more rows than patches";
			break;
		}
		/* The first line that is not blank, if it does not begin
		 * with a number, is a header. */
		if (!seen++ && !pt_net_numeric(line))
			continue;
		what = pt_net_row(line, P, rows, net + (size_t)rows * P);
		rows += what == NULL;
	}
	free(line);
	fclose(f);
	if (!what && rows < P) {
		char msg[96];

		snprintf(msg, sizeof msg, "%u row%s for %u patches", rows,
			 rows == 1 ? "" : "s", P);
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "[patches] network_file (%s): %s: %s",
				       where, path, msg);
	}
	if (what)
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "[patches] network_file (%s): %s, line "
				       "%u: %s",
				       where, path, ln, what);
	return WEFT_OK;
}
