/*
 * bench/cuda-bench.c - GPU measurements through a backend's vtable (made
 * for the CUDA backend; any backend loads), printed as "key=value" lines
 * that .ci/gpu-check.sh puts into its report.
 *
 *   cuda-bench PLUGIN.so overhead [STEPS]      host cost of step(n)
 *   cuda-bench PLUGIN.so bandwidth [MIB]       copy bandwidth
 *   cuda-bench PLUGIN.so transmit AGENTS [CONTACTS [STEPS]]
 *
 * overhead: a one-item kernel (c[0] += 1) stepped STEPS times (10000),
 * with WEFT_CUDA_GRAPHS=1 and then =0 (the variable is read when a device
 * is opened): host time per step spent in step() (enqueue) and in
 * step() + sync() (total), and a check that the kernel ran exactly as
 * often as asked.
 *
 * bandwidth: a device-to-device copy of MIB MiB (1024) through the
 * vtable, timed with sync() (best of 5; read + write bytes per second),
 * and blocking host transfers of the same size.
 *
 * transmit: SEIR's transmission kernel alone (models/seir/seir.wk) on a
 * random network of AGENTS agents with CONTACTS (10) sorted contacts
 * each, over every agent (no frontier), 1% of agents infectious and beta
 * 0.05: infectious agents walk the candidates among their contacts (skip
 * sampling) and expose the ones they infect, about 0.5% of the agents a
 * step, so later steps find slightly fewer susceptible candidates. STEPS
 * (20) steps timed with sync(). Reported: time per launch, and bytes per
 * second for two byte counts: "unique" (each array read once: every
 * state, the infectious agents' rows and timers, the candidates' columns,
 * state and age bin) and "issued" (every load the kernel issues, the
 * same here).
 */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <weft/backend.h>
#include <weft/kernel_host.h>

#include "seir.h"

static const weft_backend *vt;
static weft_error err;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
	fprintf(stderr, "cuda-bench: %s: %s\n", what, err.msg);
	exit(1);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "cuda-bench: out of memory (%zu bytes)\n", n);
		exit(1);
	}
	return p;
}

static void load(const char *path)
{
	void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!dl) {
		fprintf(stderr, "cuda-bench: %s\n", dlerror());
		exit(1);
	}
	vt = dlsym(dl, WEFT_BACKEND_ENTRY_SYMBOL);
	if (!vt || vt->abi_major != WEFT_BACKEND_ABI_MAJOR) {
		fprintf(stderr,
			"cuda-bench: %s is not a weft backend of ABI "
			"1\n",
			path);
		exit(1);
	}
}

static weft_device *open_dev(void)
{
	weft_device_config cfg = { .struct_size = sizeof cfg, .device = -1 };
	weft_device *dev = NULL;

	if (vt->open(&cfg, &dev, &err) != WEFT_OK)
		die("open");
	return dev;
}

static weft_buf *alloc(weft_device *dev, size_t n)
{
	weft_buf *b = NULL;

	if (vt->alloc(dev, n, &b, &err) != WEFT_OK)
		die("alloc");
	return b;
}

static void put(weft_device *dev, weft_buf *b, const void *p, size_t n)
{
	if (vt->write(dev, b, 0, p, n, 0, &err) != WEFT_OK)
		die("write");
}

static void get(weft_device *dev, void *p, weft_buf *b, size_t n)
{
	if (vt->read(dev, p, b, 0, n, 0, &err) != WEFT_OK)
		die("read");
}

static void sync_dev(weft_device *dev)
{
	if (vt->sync(dev, &err) != WEFT_OK)
		die("sync");
}

static void step(weft_device *dev, weft_program *prog, const weft_launch *l,
		 uint32_t n, uint64_t steps)
{
	if (vt->step(dev, prog, l, n, steps, &err) != WEFT_OK)
		die("step");
}

static weft_stats stats_of(weft_device *dev)
{
	weft_stats s = { .struct_size = sizeof s };

	vt->stats(dev, &s);
	return s;
}

/* ---- overhead ------------------------------------------------------------ */

static const char tick_source[] = "WEFT_KERNEL(tick)\n"
				  "{\n"
				  "  WEFT_BUF(weft_u32, c, 0);\n"
				  "  if (WEFT_GID == 0)\n"
				  "    c[0] += 1;\n"
				  "}\n";

static int overhead(const char *graphs, uint64_t n)
{
	static const weft_kernel_desc k[] = { { "tick", NULL } };
	weft_program_desc d = { .struct_size = sizeof d,
				.name = "tick",
				.source = tick_source,
				.source_len = sizeof tick_source - 1,
				.kernels = k,
				.n_kernels = 1 };
	weft_device *dev;
	weft_program *prog = NULL;
	weft_launch l = { .kernel = 0, .n_bufs = 1, .extent = 1 };
	uint32_t zero = 0, count = 0;
	double t0, t1, t2;
	weft_stats s;

	setenv("WEFT_CUDA_GRAPHS", graphs, 1);
	dev = open_dev();
	if (vt->load_program(dev, &d, &prog, &err) != WEFT_OK)
		die("load_program");
	l.bufs[0] = alloc(dev, 4);
	put(dev, l.bufs[0], &zero, 4);
	step(dev, prog, &l, 1, 1); /* warm up: captures the graphs */
	step(dev, prog, &l, 1, n);
	sync_dev(dev);
	t0 = now_s();
	step(dev, prog, &l, 1, n);
	t1 = now_s();
	sync_dev(dev);
	t2 = now_s();
	get(dev, &count, l.bufs[0], 4);
	s = stats_of(dev);
	printf("overhead graphs=%s steps=%llu enqueue_us_per_step=%.3f "
	       "total_us_per_step=%.3f graph_captures=%llu "
	       "graph_launches=%llu launches=%llu count_ok=%s\n",
	       graphs, (unsigned long long)n, (t1 - t0) * 1e6 / (double)n,
	       (t2 - t0) * 1e6 / (double)n,
	       (unsigned long long)s.graph_captures,
	       (unsigned long long)s.graph_launches,
	       (unsigned long long)s.launches,
	       count == 2 * n + 1 ? "yes" : "NO");
	vt->free(dev, l.bufs[0]);
	vt->unload_program(dev, prog);
	vt->close(dev);
	return count == 2 * n + 1 ? 0 : 1;
}

/* ---- bandwidth -------------------------------------------------------------
 */

static void bandwidth(size_t mib)
{
	size_t n = mib << 20;
	weft_device *dev = open_dev();
	weft_buf *a = alloc(dev, n), *b = alloc(dev, n);
	char *host = xmalloc(n);
	double best = 1e30, h2d, d2h, t;

	memset(host, 0x5a, n);
	t = now_s();
	put(dev, a, host, n);
	h2d = now_s() - t;
	for (int r = 0; r < 6; r++) {
		t = now_s();
		if (vt->copy(dev, b, 0, a, 0, n, WEFT_XFER_ASYNC, &err))
			die("copy");
		sync_dev(dev);
		t = now_s() - t;
		if (r > 0 && t < best) /* the first one warms up */
			best = t;
	}
	t = now_s();
	get(dev, host, b, n);
	d2h = now_s() - t;
	printf("bandwidth bytes=%zu d2d_ms=%.3f d2d_gbps=%.1f h2d_gbps=%.2f "
	       "d2h_gbps=%.2f check=%s\n",
	       n, best * 1e3, 2.0 * (double)n / best / 1e9,
	       (double)n / h2d / 1e9, (double)n / d2h / 1e9,
	       host[n - 1] == 0x5a ? "ok" : "BAD");
	free(host);
	vt->free(dev, a);
	vt->free(dev, b);
	vt->close(dev);
}

/* ---- transmit --------------------------------------------------------------
 */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* contacts random neighbours per agent, each row sorted. */
static void random_csr(uint32_t agents, uint32_t contacts, uint32_t *row,
		       uint32_t *col)
{
	uint64_t s = 42;

	for (uint32_t i = 0; i <= agents; i++)
		row[i] = i * contacts;
	for (uint32_t i = 0; i < agents; i++) {
		uint32_t *r = col + (size_t)i * contacts;

		for (uint32_t c = 0; c < contacts; c++) {
			uint32_t j = (uint32_t)(((splitmix(&s) >> 32) *
						 (uint64_t)agents) >>
						32);
			uint32_t k = c;

			while (k > 0 && r[k - 1] > j) {
				r[k] = r[k - 1];
				k--;
			}
			r[k] = j;
		}
	}
}

static void transmit(uint32_t agents, uint32_t contacts, uint64_t steps)
{
	const weft_program_desc d = seir_program;
	size_t edges = (size_t)agents * contacts;
	/* Every agent processed (no frontier), one stored layer (the
	 * community's), one row of beta table. */
	struct {
		seir_params p;
		uint32_t beta[SEIR_BETA_COLS];
	} pb = { .p = { .n_agents = agents,
			.seed_lo = 1,
			.n_days = 1,
			.layer_slot = { SEIR_NONE, SEIR_NONE, SEIR_NONE, 0 },
			.n_slots = 1,
			.w_max = { 1000, 1000, 1000, 1000 },
			.sus_max = SEIR_Q16_ONE,
			.asym_q16 = SEIR_Q16_ONE },
		 .beta = { [SEIR_COMMUNITY] = 13421773 } }; /* 0.05, Q28 */
	uint32_t *row = xmalloc(((size_t)agents + 1) * 4);
	uint32_t *col = xmalloc(edges * 4), *tally;
	uint8_t *state = xmalloc(agents), *zero = xmalloc(agents);
	uint16_t *timer = xmalloc((size_t)agents * 2);
	size_t words = ((size_t)agents + 31) / 32;
	uint32_t *bits = xmalloc(words * 4);
	weft_device *dev = open_dev();
	weft_program *prog = NULL;
	seir_transmit_bufs b;
	weft_launch l;
	double t, unique, issued, infectious = agents / 100.0;
	double cand = infectious * contacts * 0.05;

	size_t tally_words, agent_bytes;

	weft_graph_tables_init(&pb.p.skip);
	for (int b = 0; b < SEIR_AGE_BINS; b++)
		pb.p.sus_q16[b] = SEIR_Q16_ONE;
	/* The tally as the model lays it out: the counters, then the
	 * reproduction counts and each agent's infector (none: all ones),
	 * which the kernel writes for every agent it exposes. */
	tally_words = weft__seir_tally_layout(&pb.p, agents, &agent_bytes);
	tally = xmalloc(tally_words * 4);
	memset(tally, 0, tally_words * 4);
	memset(tally + pb.p.inf_off, 0xff, (size_t)agents * 4);
	tally[SEIR_T_DAY] = 1;
	random_csr(agents, contacts, row, col);
	memset(zero, 0, agents);
	memset(bits, 0, words * 4);
	for (uint32_t i = 0; i < agents; i++) {
		state[i] = i % 100 == 0 ? SEIR_IS : SEIR_S;
		timer[i] = 5;
		if (i % 100 == 0)
			bits[i / 32] |= 1u << (i % 32);
	}
	if (vt->load_program(dev, &d, &prog, &err) != WEFT_OK)
		die("load_program");
	b.p = alloc(dev, sizeof pb);
	b.state = alloc(dev, agents);
	b.timer = alloc(dev, (size_t)agents * 2);
	b.tally = alloc(dev, tally_words * 4);
	b.agebin = alloc(dev, agents);
	b.bits = alloc(dev, words * 4);
	b.rows = alloc(dev, ((size_t)agents + 1) * 4);
	b.cols = alloc(dev, edges * 4);
	put(dev, b.p, &pb, sizeof pb);
	put(dev, b.state, state, agents);
	put(dev, b.timer, timer, (size_t)agents * 2);
	put(dev, b.tally, tally, tally_words * 4);
	put(dev, b.agebin, zero, agents);
	put(dev, b.bits, bits, words * 4);
	put(dev, b.rows, row, ((size_t)agents + 1) * 4);
	put(dev, b.cols, col, edges * 4);
	/* The buffers this configuration does not read (no frontier, no
	 * weights): any live buffer. */
	b.list = b.weights = b.relcls = b.care = b.state;
	l = seir_transmit_launch(b, agents);
	step(dev, prog, &l, 1, 1);
	sync_dev(dev);
	t = now_s();
	step(dev, prog, &l, 1, steps);
	sync_dev(dev);
	t = (now_s() - t) / (double)steps;
	get(dev, bits, b.bits, words * 4);
	uint32_t exposed = 0;
	for (size_t w = 0; w < words; w++)
		exposed += (uint32_t)__builtin_popcount(bits[w]);
	exposed -= (uint32_t)((agents + 99) / 100);
	/* unique = issued: every state once; per infectious agent its row
	 * and timer; per candidate (about 5% of the contacts) its column,
	 * state and age bin */
	unique = issued = agents + infectious * 10.0 + cand * 6.0;
	printf("transmit agents=%u contacts=%u steps=%llu ms_per_launch=%.4f "
	       "unique_gbps=%.1f issued_gbps=%.1f exposed=%u\n",
	       agents, contacts, (unsigned long long)steps, t * 1e3,
	       unique / t / 1e9, issued / t / 1e9, exposed);
	weft_buf *owned[] = { b.p,	b.state, b.timer, b.tally,
			      b.agebin, b.bits,	 b.rows,  b.cols };
	for (size_t k = 0; k < sizeof owned / sizeof owned[0]; k++)
		vt->free(dev, owned[k]);
	vt->unload_program(dev, prog);
	vt->close(dev);
	free(row), free(col), free(state), free(zero), free(timer), free(bits);
	free(tally);
}

static unsigned long long arg(int argc, char **argv, int i,
			      unsigned long long def)
{
	return argc > i ? strtoull(argv[i], NULL, 10) : def;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr,
			"usage: cuda-bench PLUGIN.so overhead [STEPS] | "
			"bandwidth [MIB] | transmit AGENTS [CONTACTS "
			"[STEPS]]\n");
		return 2;
	}
	load(argv[1]);
	if (strcmp(argv[2], "overhead") == 0) {
		uint64_t n = arg(argc, argv, 3, 10000);

		return overhead("1", n) | overhead("0", n);
	}
	if (strcmp(argv[2], "bandwidth") == 0) {
		bandwidth((size_t)arg(argc, argv, 3, 1024));
		return 0;
	}
	if (strcmp(argv[2], "transmit") == 0 && argc > 3) {
		transmit((uint32_t)arg(argc, argv, 3, 0),
			 (uint32_t)arg(argc, argv, 4, 10),
			 arg(argc, argv, 5, 20));
		return 0;
	}
	fprintf(stderr, "cuda-bench: unknown command '%s'\n", argv[2]);
	return 2;
}
