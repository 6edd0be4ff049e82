/*
 * plugins/common/stats.c - the backends' counters and bounded replies
 * (stats.h).
 */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "stats.h"

void weft__stats_xfer(weft_stats *st, enum weft_dir dir, size_t bytes,
		      uint64_t t0)
{
	st->xfer_count[dir]++;
	st->xfer_bytes[dir] += bytes;
	st->time_ns[WEFT_PHASE_TRANSFER] += weft__clock_ns() - t0;
}

void weft__stats_step(weft_stats *st, uint64_t n_steps, uint32_t n_launches,
		      uint64_t t0)
{
	st->steps += n_steps;
	st->launches += n_steps * n_launches;
	st->time_ns[WEFT_PHASE_KERNEL] += weft__clock_ns() - t0;
}

weft_status weft__stats_copy(weft_stats *out, const weft_stats *st)
{
	size_t hdr = sizeof out->struct_size;
	size_t size;

	if (!out || !st)
		return WEFT_E_INVALID;
	size = out->struct_size < sizeof *st ? out->struct_size : sizeof *st;
	if (size > hdr)
		memcpy((char *)out + hdr, (const char *)st + hdr, size - hdr);
	return WEFT_OK;
}

void weft__probe_copy(weft_probe *out, weft_probe *p)
{
	uint32_t size =
		out->struct_size < sizeof *p ? out->struct_size : sizeof *p;

	p->struct_size = out->struct_size;
	memcpy(out, p, size);
}

void weft__mem_info_copy(weft_mem_info *out, const weft_mem_info *mi)
{
	size_t hdr = sizeof out->struct_size;
	size_t size =
		out->struct_size < sizeof *mi ? out->struct_size : sizeof *mi;

	memcpy((char *)out + hdr, (const char *)mi + hdr, size - hdr);
}

void weft__mem_info_host(weft_mem_info *mi)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);

	memset(mi, 0, sizeof *mi);
	mi->struct_size = sizeof *mi;
	mi->host = 1;
	if (pages > 0 && page > 0)
		mi->total_bytes = (uint64_t)pages * (uint64_t)page;
}
