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

/* Row r of the matrix from line into row (P numbers): NULL, or what is
 * wrong with it; *text set when its first field is not a number (a
 * header, on the first line). A row of P + 1 fields begins with its
 * source patch's number, r (network_output's network.csv). */
static const char *pt_net_row(const char *line, uint32_t P, uint32_t r,
			      double *row, int *text)
{
	const char *p = line;
	size_t fields = 1;
	char *end;

	for (const char *q = line; *q; q++)
		fields += *q == ',';
	errno = 0;
	*text = 0;
	if (fields == (size_t)P + 1) {
		unsigned long src = strtoul(p, &end, 10);

		if ((*text = end == p) != 0)
			return "an entry is not a number";
		if (src != r || *(p = end + strspn(end, " \t")) != ',')
			return "a row of one field more than the patches does "
			       "not begin with its source patch's number";
		p++;
	} else if (fields != P) {
		(void)strtod(p, &end);
		*text = end == p;
		return "not as many entries as patches (or one more: the "
		       "source patch's number first)";
	}
	for (uint32_t j = 0; j < P; j++) {
		row[j] = strtod(p, &end);
		*text = j == 0 && fields == P && end == p;
		if (end == p || errno || !isfinite(row[j]))
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

/* network_file into net, P rows of P; a first line that is not numbers
 * is a header, blank lines are skipped. Errors name the key's INI line,
 * the file and its line. */
weft_status pt_network_read(weft_model_ctx *mc, uint32_t P, double *net)
{
	const char *where = weft_model_where(mc, "network_file");
	const char *what = NULL;
	char path[4096], *line = NULL;
	size_t cap = 0;
	uint32_t ln = 0, rows = 0;
	int seen = 0, text;
	FILE *f;

	pt_file_path(mc, "network_file", path, sizeof path);
	if (!(f = fopen(path, "r")))
		return weft_model_fail(mc, WEFT_E_IO,
				       "[patches] network_file (%s): cannot "
				       "open %s: %s",
				       where, path, strerror(errno));
	while (!what && getline(&line, &cap, f) > 0) {
		ln++;
		if (line[strspn(line, " \t\r\n")] == 0)
			continue;
		if (rows == P) {
			what = "more rows than patches";
			break;
		}
		what = pt_net_row(line, P, rows, net + (size_t)rows * P, &text);
		if (text && !seen)
			what = NULL; /* the header */
		else
			rows += what == NULL;
		seen = 1;
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
