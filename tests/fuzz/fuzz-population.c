/*
 * tests/fuzz/fuzz-population.c - libFuzzer harness for the SEIR model's
 * population CSV loader (models/seir/population_csv.c, through
 * weft__seir_population_build): the input is the agents file, then, after
 * a line "%%", the edges file. The community layer is stored (not drawn
 * daily) when the input's length is even, so that community edges are
 * read too. Built and run by `make check-sanitize`
 * (tests/sanitize/run.sh); seeds in tests/fuzz/population/.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "population.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Bytes as the file behind one memory-backed descriptor, *fd. */
static int as_file(int *fd, const char *name, const uint8_t *data, size_t size,
		   char *path, size_t path_size)
{
	if (*fd < 0)
		*fd = memfd_create(name, 0);
	snprintf(path, path_size, "/proc/self/fd/%d", *fd);
	if (*fd < 0 || ftruncate(*fd, 0) != 0 ||
	    pwrite(*fd, data, size, 0) != (ssize_t)size)
		return -1;
	return 0;
}

/* Where the edges file starts: after the first line "%%", or size. */
static size_t split_at(const uint8_t *data, size_t size, size_t *agents)
{
	for (size_t i = 0; i + 2 <= size; i++)
		if ((i == 0 || data[i - 1] == '\n') && data[i] == '%' &&
		    data[i + 1] == '%' &&
		    (i + 2 == size || data[i + 2] == '\n')) {
			*agents = i;
			return i + 2 < size ? i + 3 : size;
		}
	*agents = size;
	return size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int agents_fd = -1, edges_fd = -1;
	static seir_pop_params pp;
	seir_population pop;
	size_t agents, edges = split_at(data, size, &agents);
	char err[1024];

	weft__seir_population_defaults(&pp);
	pp.kind = SEIR_POP_CSV;
	pp.seed = 1;
	pp.community_daily = size % 2;
	if (as_file(&agents_fd, "agents.csv", data, agents, pp.agents_file,
		    sizeof pp.agents_file))
		return 0;
	pp.edges_file[0] = '\0';
	if (edges < size &&
	    as_file(&edges_fd, "edges.csv", data + edges, size - edges,
		    pp.edges_file, sizeof pp.edges_file))
		return 0;
	if (weft__seir_population_build(&pp, &pop, err, sizeof err) == WEFT_OK)
		weft__seir_population_free(&pop);
	return 0;
}
