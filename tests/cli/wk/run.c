/*
 * tests/cli/wk/run.c - what tests/cli/test-wk.sh links with demo_kernels.c, the
 * C file weft-wk generated from demo.wk: checks the program descriptor, the
 * signatures and the launch helpers of demo_kernels.h, runs the host
 * builds the way a host backend does, and runs the program on each
 * backend plugin named on the command line through the backend ABI
 * alone (weft/backend.h), so that run-time compilers (OpenCL, CUDA)
 * compile the embedded text.
 *
 * usage: run SOURCE-OUT [weft-backend-NAME.so]...
 * Writes the embedded program text to SOURCE-OUT and prints one line per
 * check, "ok - what" or "not ok - what", which the script numbers; lines
 * starting with '#' are diagnostics (a backend that cannot run here says
 * so in one).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <weft/backend.h>
#include <weft/kernel_host.h>

#include "demo_shared.h"
#include "demo_kernels.h"

#define N   10u /* elements of each array */
#define EXT 7u	/* the launches' extent: items 7..9 stay as they were */

static int failed;

static void check(int ok, const char *what)
{
	printf("%s - %s\n", ok ? "ok" : "not ok", what);
	failed |= !ok;
}

/* ---- the descriptor and the signatures -------------------------------- */

static int same_bufs(const weft_kernel_sig *s, const char *const *want,
		     uint32_t n)
{
	if (s->n_bufs != n || (n == 0) != (s->bufs == NULL))
		return 0;
	for (uint32_t i = 0; i < n; i++)
		if (strcmp(s->bufs[i], want[i]))
			return 0;
	return 1;
}

static void check_tables(const char *source_out)
{
	static const char *const scale[] = { "p", "x" };
	static const char *const add[] = { "a", "b", "sum", "braces" };
	const weft_program_desc *p = &demo_program;
	FILE *f;

	check(p->struct_size == sizeof(weft_program_desc) &&
		      !strcmp(p->name, "demo"),
	      "demo_program: struct_size and name \"demo\"");
	check(p->n_kernels == 3 && DEMO_N_KERNELS == 3,
	      "demo_program has 3 kernels, DEMO_N_KERNELS is 3");
	check(DEMO_K_SCALE == 0 && DEMO_K_ADD == 1 && DEMO_K_TICK == 2 &&
		      !strcmp(p->kernels[DEMO_K_SCALE].name, "demo_scale") &&
		      !strcmp(p->kernels[DEMO_K_ADD].name, "add") &&
		      !strcmp(p->kernels[DEMO_K_TICK].name, "tick"),
	      "kernels in file order: demo_scale (DEMO_K_SCALE), add, tick");
	check(p->kernels[0].host_fn && p->kernels[1].host_fn &&
		      p->kernels[2].host_fn,
	      "every kernel has its host build");
	check(!strcmp(demo_sigs[0].kernel, "demo_scale") &&
		      !strcmp(demo_sigs[1].kernel, "add") &&
		      !strcmp(demo_sigs[2].kernel, "tick"),
	      "demo_sigs names the kernels in the same order");
	check(same_bufs(&demo_sigs[DEMO_K_SCALE], scale, 2) &&
		      same_bufs(&demo_sigs[DEMO_K_ADD], add, 4) &&
		      same_bufs(&demo_sigs[DEMO_K_TICK], NULL, 0),
	      "signatures: demo_scale (p, x), add (a, b, sum, braces), "
	      "tick (none, NULL)");
	check(p->source_len == strlen(p->source) && p->source_len > 0,
	      "source_len is the length of the program text");
	f = fopen(source_out, "wb");
	check(f && fwrite(p->source, 1, p->source_len, f) == p->source_len &&
		      fclose(f) == 0,
	      "the program text is written out for the script to compare");
}

/* ---- the launch helpers ----------------------------------------------- */

typedef struct demo_data {
	demo_params params;
	weft_u32 x[N], a[N], b[N], sum[N], braces;
} demo_data;

/* The step: scale x, then sum = a + 2 b with a count of '{' in b, then
 * tick. The buffers are given by name, in any order. */
static void launches(weft_launch l[3], weft_buf *params, weft_buf *x,
		     weft_buf *a, weft_buf *b, weft_buf *sum, weft_buf *braces)
{
	l[0] = demo_scale_launch((demo_scale_bufs){ .x = x, .p = params }, EXT);
	l[1] = demo_add_launch(
		(demo_add_bufs){ .sum = sum, .braces = braces, .b = b, .a = a },
		EXT);
	l[2] = demo_tick_launch(EXT);
}

static void fill(demo_data *d)
{
	memset(d, 0, sizeof *d);
	d->params.factor = 3;
	d->params.offset = 5;
	for (weft_u32 i = 0; i < N; i++) {
		d->x[i] = i;
		d->a[i] = 100 + i;
		d->b[i] = i == 3 || i == 5 || i == 8 ? (weft_u32)'{' : i;
		d->sum[i] = 7;
	}
}

/* What the step must leave. */
static int expected(const demo_data *d)
{
	demo_data w;

	fill(&w);
	for (weft_u32 i = 0; i < EXT; i++) {
		w.x[i] = i * 3 + 5;
		w.sum[i] = w.a[i] + 2 * w.b[i];
	}
	w.braces = 2; /* items 3 and 5; 8 is past the extent */
	return !memcmp(d, &w, sizeof w);
}

static void check_helpers(void)
{
	weft_buf *bp = (weft_buf *)"p", *bx = (weft_buf *)"x",
		 *ba = (weft_buf *)"a", *bb = (weft_buf *)"b",
		 *bs = (weft_buf *)"s", *bc = (weft_buf *)"c";
	weft_launch l[3];

	launches(l, bp, bx, ba, bb, bs, bc);
	check(l[0].kernel == DEMO_K_SCALE && l[0].n_bufs == 2 &&
		      l[0].bufs[0] == bp && l[0].bufs[1] == bx &&
		      l[0].bufs[2] == NULL && l[0].extent == EXT &&
		      l[0].extent_buf == NULL,
	      "demo_scale_launch binds p to slot 0 and x to slot 1");
	check(l[1].kernel == DEMO_K_ADD && l[1].n_bufs == 4 &&
		      l[1].bufs[0] == ba && l[1].bufs[1] == bb &&
		      l[1].bufs[2] == bs && l[1].bufs[3] == bc &&
		      l[1].bufs[4] == NULL,
	      "demo_add_launch binds a, b, sum, braces to slots 0-3 "
	      "whatever the order they are named in");
	check(l[2].kernel == DEMO_K_TICK && l[2].n_bufs == 0 &&
		      l[2].bufs[0] == NULL && l[2].extent == EXT,
	      "demo_tick_launch binds no buffer");
	l[1] = demo_add_launch((demo_add_bufs){ .a = ba, .sum = bs }, 1);
	check(l[1].n_bufs == 4 && l[1].bufs[1] == NULL && l[1].bufs[3] == NULL,
	      "a buffer left out of the struct is NULL in its slot");
}

/* The host builds, called as a host backend calls them: kargs from the
 * launch, items 0..extent-1. */
static void check_host(void)
{
	demo_data d;
	weft_launch l[3];

	fill(&d);
	launches(l, (weft_buf *)&d.params, (weft_buf *)d.x, (weft_buf *)d.a,
		 (weft_buf *)d.b, (weft_buf *)d.sum, (weft_buf *)&d.braces);
	for (int i = 0; i < 3; i++) {
		weft_kargs ka = { .extent = l[i].extent };

		for (uint32_t k = 0; k < l[i].n_bufs; k++)
			ka.buf[k] = (void *)l[i].bufs[k];
		demo_program.kernels[l[i].kernel].host_fn(&ka, 0, ka.extent);
	}
	check(expected(&d), "the host builds, run through the kernel table "
			    "with the helpers' launches, compute the step");
}

/* ---- on a backend, through its ABI ----------------------------------------
 */

typedef struct bufs {
	weft_buf *params, *x, *a, *b, *sum, *braces;
} bufs;

static int run_on(const weft_backend *vt, weft_device *dev, weft_error *err)
{
	weft_program *prog = NULL;
	demo_data d, out;
	weft_launch l[3];
	bufs b = { 0 };
	weft_buf **all[] = { &b.params, &b.x, &b.a, &b.b, &b.sum, &b.braces };
	void *host[] = { &d.params, d.x, d.a, d.b, d.sum, &d.braces };
	void *back[] = {
		&out.params, out.x, out.a, out.b, out.sum, &out.braces
	};
	size_t size[] = { sizeof d.params, sizeof d.x,	 sizeof d.a,
			  sizeof d.b,	   sizeof d.sum, sizeof d.braces };
	int ok = 0;

	fill(&d);
	memset(&out, 0, sizeof out);
	if (vt->load_program(dev, &demo_program, &prog, err))
		return -1;
	for (int i = 0; i < 6; i++)
		if (vt->alloc(dev, size[i], all[i], err) ||
		    vt->write(dev, *all[i], 0, host[i], size[i], 0, err))
			goto out;
	launches(l, b.params, b.x, b.a, b.b, b.sum, b.braces);
	if (vt->step(dev, prog, l, 3, 1, err) || vt->sync(dev, err))
		goto out;
	for (int i = 0; i < 6; i++)
		if (vt->read(dev, back[i], *all[i], 0, size[i], 0, err))
			goto out;
	ok = expected(&out) ? 1 : 0;
	if (!ok)
		snprintf(err->msg, sizeof err->msg, "wrong results");
out:
	for (int i = 0; i < 6; i++)
		vt->free(dev, *all[i]);
	vt->unload_program(dev, prog);
	return ok ? 0 : -2;
}

static void check_plugin(const char *path)
{
	void *so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	const weft_backend *vt =
		so ? dlsym(so, WEFT_BACKEND_ENTRY_SYMBOL) : NULL;
	weft_probe pr = { .struct_size = sizeof pr };
	weft_device_config dc = { .struct_size = sizeof dc, .device = -1 };
	weft_device *dev = NULL;
	weft_error err = { { 0 } };
	char what[600];
	int rc;

	if (!vt || vt->abi_major != WEFT_BACKEND_ABI_MAJOR ||
	    vt->struct_size < WEFT_BACKEND_V1_0_SIZE) {
		printf("not ok - %s loads: %s\n", path,
		       so ? "no entry of this ABI" : dlerror());
		failed = 1;
		goto out;
	}
	if (vt->probe(&pr) || !pr.available) {
		printf("# %s cannot run here: %s\n", vt->name, pr.reason);
		goto out;
	}
	if (vt->open(&dc, &dev, &err)) {
		printf("# %s cannot open a device here: %s\n", vt->name,
		       err.msg);
		goto out;
	}
	rc = run_on(vt, dev, &err);
	snprintf(what, sizeof what, "%s loads the generated program%s%s",
		 vt->name, rc == -1 ? ": " : "", rc == -1 ? err.msg : "");
	check(rc != -1, what);
	if (rc != -1) {
		snprintf(what, sizeof what,
			 "%s runs the helpers' launches to the host's "
			 "results%s%s",
			 vt->name, rc ? ": " : "", rc ? err.msg : "");
		check(rc == 0, what);
	}
	vt->close(dev);
out:
	if (so)
		dlclose(so);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs("usage: run SOURCE-OUT [PLUGIN.so]...\n", stderr);
		return 2;
	}
	check_tables(argv[1]);
	check_helpers();
	check_host();
	for (int i = 2; i < argc; i++)
		check_plugin(argv[i]);
	return failed;
}
