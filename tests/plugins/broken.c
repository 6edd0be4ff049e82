/*
 * tests/plugins/broken.c - backends that break one promise each, for
 * tests/plugins/test-conform-broken.sh: the conformance suite must catch every
 * one of them, in the group that states the promise.
 *
 * Each is the template backend (plugins/template/template.c, compiled in
 * here with its entry renamed) with exactly one function of its vtable
 * replaced by a wrapper that breaks one promise. tests/plugins/conform.am
 * builds one plugin per -D flag below, named BROKEN_NAME; with none, the plugin
 * is the template unchanged ("intact"), which must pass.
 *
 *   BROKEN_MISALIGN       load_program: kernels see every buffer 4 bytes
 *                         past a 64-byte boundary              -> align
 *   BROKEN_ALLOC_ZERO     alloc: 0 bytes is refused            -> alloc
 *   BROKEN_FREE_NULL      free: free(NULL) crashes (SIGSEGV)   -> alloc
 *   BROKEN_READ_OFFSET    read: ignores the offset             -> transfer
 *   BROKEN_ASYNC_ORDER    write: an async write is undone by the one
 *                         issued before it (out of order)      -> async-order
 *   BROKEN_WRITE_BOUNDS   write: out-of-range writes "succeed" -> invalid-args
 *   BROKEN_OVERSIZE_MSG   alloc: failures do not name the bytes -> oversize
 *   BROKEN_STATS_D2D      stats: copies are not counted        -> counters
 *   BROKEN_STEP_SYNC      step: synchronises inside step()     -> counters
 *   BROKEN_OVERRUN        step: runs one item past each extent -> guard
 *   BROKEN_DEVICE_EXTENT  step: ignores device-side counts     -> device-extent
 *   BROKEN_DROP_STEP      step: runs n - 1 steps               -> models
 *   BROKEN_SYNC_HANG      sync: never returns                  -> timeout
 *   BROKEN_WAIT_PENDING   read, sync: async reads are delivered at sync()
 *                         only, so wait() returns with the reads
 *                         issued before its fence still pending -> fence
 *   BROKEN_NATIVE_OFF     native: the host memory reported is 64 bytes
 *                         past the buffer's                    -> native
 *   BROKEN_SHORT_BLOCK    alloc: buffers are carved downward from an
 *                         arena, each start rounded up to 64 bytes
 *                         instead of down, so a buffer's last
 *                         (bytes % 64) bytes are the first bytes of the
 *                         buffer carved before it               -> guard
 *   BROKEN_REPLICA_STRIDE step_replicas: every slot shifted by slot 0's
 *                         stride                               -> replicas
 *   BROKEN_REPLICA_COUNT  step_replicas: every replica reads replica 0's
 *                         count (extent_stride ignored)        -> replicas
 *   BROKEN_REPLICA_ALIGN  step_replicas: a stride that is not a multiple
 *                         of 64 is rounded down, not refused   -> replicas
 *   BROKEN_REPLICA_COUNTED step_replicas: counts a launch per replica
 *                                                              -> replicas
 *   BROKEN_NO_CAPS        no caps() (NULL): a device without any
 *                         WEFT_CAP_*; not a broken promise, built for
 *                         tests/core/test-needs.sh (the core refuses a
 *                         program that needs one)
 */
#define weft_backend_entry weft__template_inner
#include "../../plugins/template/template.c"
#undef weft_backend_entry

#include <signal.h>
#include <unistd.h>

#ifndef BROKEN_NAME
#error "BROKEN_NAME must name the plugin (weft-backend-BROKEN_NAME.so)"
#endif

/* ---- load_program: misaligned buffers ------------------------------------ */
#ifdef BROKEN_MISALIGN
#define BROKEN_WHAT	    "kernels see misaligned buffers"
#define BROKEN_LOAD_PROGRAM broken_load_program
/* Kernels a program may have (the suite's has more than 40). */
#define BROKEN_MAX_KERNELS 64

/* The kernels of the last program loaded, called through trampolines. */
static weft_host_kernel_fn broken_fn[BROKEN_MAX_KERNELS];

static void broken_shifted(int k, const weft_kargs *ka, uint32_t begin,
			   uint32_t end)
{
	weft_kargs moved = *ka;

	for (int i = 0; i < WEFT_KERNEL_MAX_BUFS; i++)
		if (moved.buf[i])
			moved.buf[i] = (char *)moved.buf[i] + 4;
	broken_fn[k](&moved, begin, end);
}

#define BROKEN_TRAMPOLINE(k)                                              \
	static void broken_tramp##k(const weft_kargs *ka, uint32_t begin, \
				    uint32_t end)                         \
	{                                                                 \
		broken_shifted(k, ka, begin, end);                        \
	}
BROKEN_TRAMPOLINE(0)
BROKEN_TRAMPOLINE(1)
BROKEN_TRAMPOLINE(2)
BROKEN_TRAMPOLINE(3)
BROKEN_TRAMPOLINE(4)
BROKEN_TRAMPOLINE(5)
BROKEN_TRAMPOLINE(6)
BROKEN_TRAMPOLINE(7)
BROKEN_TRAMPOLINE(8)
BROKEN_TRAMPOLINE(9)
BROKEN_TRAMPOLINE(10)
BROKEN_TRAMPOLINE(11)
BROKEN_TRAMPOLINE(12)
BROKEN_TRAMPOLINE(13)
BROKEN_TRAMPOLINE(14)
BROKEN_TRAMPOLINE(15)
BROKEN_TRAMPOLINE(16)
BROKEN_TRAMPOLINE(17)
BROKEN_TRAMPOLINE(18)
BROKEN_TRAMPOLINE(19)
BROKEN_TRAMPOLINE(20)
BROKEN_TRAMPOLINE(21)
BROKEN_TRAMPOLINE(22)
BROKEN_TRAMPOLINE(23)
BROKEN_TRAMPOLINE(24)
BROKEN_TRAMPOLINE(25)
BROKEN_TRAMPOLINE(26)
BROKEN_TRAMPOLINE(27)
BROKEN_TRAMPOLINE(28)
BROKEN_TRAMPOLINE(29)
BROKEN_TRAMPOLINE(30)
BROKEN_TRAMPOLINE(31)
BROKEN_TRAMPOLINE(32)
BROKEN_TRAMPOLINE(33)
BROKEN_TRAMPOLINE(34)
BROKEN_TRAMPOLINE(35)
BROKEN_TRAMPOLINE(36)
BROKEN_TRAMPOLINE(37)
BROKEN_TRAMPOLINE(38)
BROKEN_TRAMPOLINE(39)
BROKEN_TRAMPOLINE(40)
BROKEN_TRAMPOLINE(41)
BROKEN_TRAMPOLINE(42)
BROKEN_TRAMPOLINE(43)
BROKEN_TRAMPOLINE(44)
BROKEN_TRAMPOLINE(45)
BROKEN_TRAMPOLINE(46)
BROKEN_TRAMPOLINE(47)
BROKEN_TRAMPOLINE(48)
BROKEN_TRAMPOLINE(49)
BROKEN_TRAMPOLINE(50)
BROKEN_TRAMPOLINE(51)
BROKEN_TRAMPOLINE(52)
BROKEN_TRAMPOLINE(53)
BROKEN_TRAMPOLINE(54)
BROKEN_TRAMPOLINE(55)
BROKEN_TRAMPOLINE(56)
BROKEN_TRAMPOLINE(57)
BROKEN_TRAMPOLINE(58)
BROKEN_TRAMPOLINE(59)
BROKEN_TRAMPOLINE(60)
BROKEN_TRAMPOLINE(61)
BROKEN_TRAMPOLINE(62)
BROKEN_TRAMPOLINE(63)

static const weft_host_kernel_fn broken_tramps[BROKEN_MAX_KERNELS] = {
	broken_tramp0,	broken_tramp1,	broken_tramp2,	broken_tramp3,
	broken_tramp4,	broken_tramp5,	broken_tramp6,	broken_tramp7,
	broken_tramp8,	broken_tramp9,	broken_tramp10, broken_tramp11,
	broken_tramp12, broken_tramp13, broken_tramp14, broken_tramp15,
	broken_tramp16, broken_tramp17, broken_tramp18, broken_tramp19,
	broken_tramp20, broken_tramp21, broken_tramp22, broken_tramp23,
	broken_tramp24, broken_tramp25, broken_tramp26, broken_tramp27,
	broken_tramp28, broken_tramp29, broken_tramp30, broken_tramp31,
	broken_tramp32, broken_tramp33, broken_tramp34, broken_tramp35,
	broken_tramp36, broken_tramp37, broken_tramp38, broken_tramp39,
	broken_tramp40, broken_tramp41, broken_tramp42, broken_tramp43,
	broken_tramp44, broken_tramp45, broken_tramp46, broken_tramp47,
	broken_tramp48, broken_tramp49, broken_tramp50, broken_tramp51,
	broken_tramp52, broken_tramp53, broken_tramp54, broken_tramp55,
	broken_tramp56, broken_tramp57, broken_tramp58, broken_tramp59,
	broken_tramp60, broken_tramp61, broken_tramp62, broken_tramp63,
};

static weft_status broken_load_program(weft_device *dev,
				       const weft_program_desc *desc,
				       weft_program **out, weft_error *err)
{
	weft_kernel_desc k[BROKEN_MAX_KERNELS];
	weft_program_desc d;

	if (!desc || !desc->kernels || desc->n_kernels == 0 ||
	    desc->n_kernels > BROKEN_MAX_KERNELS)
		return tpl_load_program(dev, desc, out, err);
	d = *desc;
	for (uint32_t i = 0; i < desc->n_kernels; i++) {
		k[i] = desc->kernels[i];
		broken_fn[i] = k[i].host_fn;
		if (k[i].host_fn)
			k[i].host_fn = broken_tramps[i];
	}
	d.kernels = k;
	return tpl_load_program(dev, &d, out, err);
}
#endif

/* ---- alloc --------------------------------------------------------------- */
#ifdef BROKEN_ALLOC_ZERO
#define BROKEN_WHAT  "alloc(0) is refused"
#define BROKEN_ALLOC broken_alloc
static weft_status broken_alloc(weft_device *dev, size_t bytes, weft_buf **out,
				weft_error *err)
{
	if (bytes == 0)
		return tpl_fail(err, WEFT_E_INVALID, "alloc: 0 bytes");
	return tpl_alloc(dev, bytes, out, err);
}
#endif

#ifdef BROKEN_OVERSIZE_MSG
#define BROKEN_WHAT  "allocation failures do not name the bytes"
#define BROKEN_ALLOC broken_alloc
static weft_status broken_alloc(weft_device *dev, size_t bytes, weft_buf **out,
				weft_error *err)
{
	weft_status st = tpl_alloc(dev, bytes, out, err);

	if (st != WEFT_OK && err)
		snprintf(err->msg, sizeof err->msg,
			 "template: out of device memory");
	return st;
}
#endif

/* ---- free ---------------------------------------------------------------- */
#ifdef BROKEN_FREE_NULL
#define BROKEN_WHAT "free(NULL) crashes"
#define BROKEN_FREE broken_free
/* NULL, but the compiler cannot know: the crash is a real SIGSEGV. */
static char *volatile broken_null;

static void broken_free(weft_device *dev, weft_buf *buf)
{
	if (!buf)
		*broken_null = 1;
	tpl_free(dev, buf);
}
#endif

/* ---- transfers ----------------------------------------------------------- */
#ifdef BROKEN_READ_OFFSET
#define BROKEN_WHAT "read ignores the offset"
#define BROKEN_READ broken_read
static weft_status broken_read(weft_device *dev, void *dst, weft_buf *src,
			       size_t offset, size_t bytes, unsigned flags,
			       weft_error *err)
{
	(void)offset;
	return tpl_read(dev, dst, src, 0, bytes, flags, err);
}
#endif

#ifdef BROKEN_ASYNC_ORDER
#define BROKEN_WHAT  "async writes complete out of order"
#define BROKEN_WRITE broken_write
/* The async write before the last one, applied again after it: as if the
 * two had completed in the opposite order. */
static struct {
	weft_buf *dst;
	size_t offset, bytes;
	unsigned char *data;
} broken_last;

static weft_status broken_write(weft_device *dev, weft_buf *dst, size_t offset,
				const void *src, size_t bytes, unsigned flags,
				weft_error *err)
{
	weft_status st = tpl_write(dev, dst, offset, src, bytes, flags, err);
	unsigned char *copy;

	if (st != WEFT_OK || !(flags & WEFT_XFER_ASYNC))
		return st;
	if (broken_last.data && broken_last.dst == dst)
		tpl_write(dev, dst, broken_last.offset, broken_last.data,
			  broken_last.bytes, 0, NULL);
	copy = malloc(bytes ? bytes : 1);
	if (!copy)
		return st;
	memcpy(copy, src, bytes);
	free(broken_last.data);
	broken_last.dst = dst;
	broken_last.offset = offset;
	broken_last.bytes = bytes;
	broken_last.data = copy;
	return st;
}
#endif

#ifdef BROKEN_WRITE_BOUNDS
#define BROKEN_WHAT  "writes out of range report success"
#define BROKEN_WRITE broken_write
static weft_status broken_write(weft_device *dev, weft_buf *dst, size_t offset,
				const void *src, size_t bytes, unsigned flags,
				weft_error *err)
{
	weft_status st = tpl_write(dev, dst, offset, src, bytes, flags, err);

	/* A range error is ignored, as an unchecked memcpy would. */
	if (st == WEFT_E_INVALID && dev && dst && (src || !bytes) &&
	    !(flags & ~(unsigned)WEFT_XFER_ASYNC)) {
		if (err)
			err->msg[0] = '\0';
		return WEFT_OK;
	}
	return st;
}
#endif

/* ---- stats --------------------------------------------------------------- */
#ifdef BROKEN_STATS_D2D
#define BROKEN_WHAT  "device-to-device copies are not counted"
#define BROKEN_STATS broken_stats
static weft_status broken_stats(weft_device *dev, weft_stats *out)
{
	weft_status st = tpl_stats(dev, out);

	if (st == WEFT_OK &&
	    out->struct_size >= offsetof(weft_stats, launches)) {
		out->xfer_count[WEFT_DIR_D2D] = 0;
		out->xfer_bytes[WEFT_DIR_D2D] = 0;
	}
	return st;
}
#endif

/* ---- step ---------------------------------------------------------------- */
#ifdef BROKEN_STEP_SYNC
#define BROKEN_WHAT "step() synchronises"
#define BROKEN_STEP broken_step
static weft_status broken_step(weft_device *dev, weft_program *prog,
			       const weft_launch *launches, uint32_t n_launches,
			       uint64_t n_steps, weft_error *err)
{
	weft_status st =
		tpl_step(dev, prog, launches, n_launches, n_steps, err);

	return st == WEFT_OK ? tpl_sync(dev, err) : st;
}
#endif

/* Run a copy of the launch list with one thing changed in every launch. */
#if defined(BROKEN_OVERRUN) || defined(BROKEN_DEVICE_EXTENT)
#define BROKEN_STEP	    broken_step
#define BROKEN_MAX_LAUNCHES 16
static weft_status broken_step(weft_device *dev, weft_program *prog,
			       const weft_launch *launches, uint32_t n_launches,
			       uint64_t n_steps, weft_error *err)
{
	weft_launch l[BROKEN_MAX_LAUNCHES];

	if (!launches || n_launches > BROKEN_MAX_LAUNCHES)
		return tpl_step(dev, prog, launches, n_launches, n_steps, err);
	for (uint32_t i = 0; i < n_launches; i++) {
		l[i] = launches[i];
#ifdef BROKEN_OVERRUN
		l[i].extent++; /* one item past the extent (or capacity) */
#else
		l[i].extent_buf = NULL; /* the capacity, always */
		l[i].extent_offset = 0;
#endif
	}
	return tpl_step(dev, prog, l, n_launches, n_steps, err);
}
#ifdef BROKEN_OVERRUN
#define BROKEN_WHAT "launches run one item past the extent"
#else
#define BROKEN_WHAT "device-side extents are ignored"
#endif
#endif

#ifdef BROKEN_DROP_STEP
#define BROKEN_WHAT "step(n) runs n - 1 steps"
#define BROKEN_STEP broken_step
static weft_status broken_step(weft_device *dev, weft_program *prog,
			       const weft_launch *launches, uint32_t n_launches,
			       uint64_t n_steps, weft_error *err)
{
	return tpl_step(dev, prog, launches, n_launches,
			n_steps ? n_steps - 1 : 0, err);
}
#endif

/* ---- sync ---------------------------------------------------------------- */
#ifdef BROKEN_SYNC_HANG
#define BROKEN_WHAT "sync() never returns"
#define BROKEN_SYNC broken_sync
static volatile int broken_forever = 1;

static weft_status broken_sync(weft_device *dev, weft_error *err)
{
	while (broken_forever)
		pause();
	return tpl_sync(dev, err);
}
#endif

/* ---- wait: earlier async reads left pending ------------------------------ */
#ifdef BROKEN_WAIT_PENDING
#define BROKEN_WHAT	 "wait() leaves earlier async reads pending"
#define BROKEN_READ	 broken_read
#define BROKEN_SYNC	 broken_sync
#define BROKEN_MAX_READS 64
/* Async reads complete later, as on a queued device: the bytes are taken
 * when the read is issued and reach the caller at sync(). The template's
 * wait() delivers nothing: the promise broken is wait()'s. */
static struct {
	void *dst;
	unsigned char *data;
	size_t bytes;
} broken_reads[BROKEN_MAX_READS];
static size_t broken_n_reads;

static void broken_deliver(void)
{
	for (size_t i = 0; i < broken_n_reads; i++) {
		memcpy(broken_reads[i].dst, broken_reads[i].data,
		       broken_reads[i].bytes);
		free(broken_reads[i].data);
	}
	broken_n_reads = 0;
}

static weft_status broken_read(weft_device *dev, void *dst, weft_buf *src,
			       size_t offset, size_t bytes, unsigned flags,
			       weft_error *err)
{
	unsigned char *copy = NULL;
	weft_status st;

	if ((flags & WEFT_XFER_ASYNC) && dst &&
	    broken_n_reads < BROKEN_MAX_READS)
		copy = malloc(bytes ? bytes : 1);
	if (!copy) { /* blocking: earlier reads land first */
		broken_deliver();
		return tpl_read(dev, dst, src, offset, bytes, flags, err);
	}
	st = tpl_read(dev, copy, src, offset, bytes, flags, err);
	if (st != WEFT_OK) {
		free(copy);
		return st;
	}
	broken_reads[broken_n_reads].dst = dst;
	broken_reads[broken_n_reads].data = copy;
	broken_reads[broken_n_reads].bytes = bytes;
	broken_n_reads++;
	return WEFT_OK;
}

static weft_status broken_sync(weft_device *dev, weft_error *err)
{
	broken_deliver();
	return tpl_sync(dev, err);
}
#endif

/* ---- native: the wrong memory -------------------------------------------- */
#ifdef BROKEN_NATIVE_OFF
#define BROKEN_WHAT   "native() reports memory 64 bytes past the buffer's"
#define BROKEN_NATIVE broken_native

static weft_status broken_native(weft_device *dev, weft_buf *buf,
				 weft_native *out, weft_error *err)
{
	weft_status st = tpl_native(dev, buf, out, err);

	if (st == WEFT_OK)
		out->handle = (char *)out->handle + 64;
	return st;
}
#endif

/* ---- alloc: blocks that end inside their neighbour ------------------------
 */
#ifdef BROKEN_SHORT_BLOCK
#define BROKEN_WHAT  "blocks overlap the block allocated before them"
#define BROKEN_ALLOC broken_alloc
#define BROKEN_FREE  broken_free
#define BROKEN_CLOSE broken_close
#define BROKEN_ARENA ((size_t)96 << 20)
#define BROKEN_MOVED 4096

/* The arena, carved from its top down; the template's own block of every
 * buffer moved into it, given back to the buffer before it is freed. */
static unsigned char *broken_arena;
/* One alignment below the arena's end: the first block's overrun stays
 * inside the arena (the bug is blocks ending inside their neighbour, not
 * writes past the arena, which a sanitizer would stop first). */
static size_t broken_top = BROKEN_ARENA - TPL_ALIGN;
static struct {
	weft_buf *buf;
	void *own;
} broken_moved[BROKEN_MOVED];

static void broken_restore(weft_buf *buf)
{
	for (size_t i = 0; i < BROKEN_MOVED; i++)
		if (broken_moved[i].buf == buf) {
			buf->ptr = broken_moved[i].own;
			broken_moved[i].buf = NULL;
			return;
		}
}

/* The bug: the start is rounded up, so the block ends up to 63 bytes
 * past the top, inside the block carved before. */
static void *broken_carve(size_t bytes)
{
	size_t start;

	if (!broken_arena && posix_memalign((void **)&broken_arena, TPL_ALIGN,
					    BROKEN_ARENA) != 0)
		return NULL;
	if (bytes + TPL_ALIGN > broken_top)
		return NULL;
	start = (broken_top - bytes + TPL_ALIGN - 1) & ~(size_t)(TPL_ALIGN - 1);
	broken_top = start;
	return broken_arena + start;
}

static weft_status broken_alloc(weft_device *dev, size_t bytes, weft_buf **out,
				weft_error *err)
{
	weft_status st = tpl_alloc(dev, bytes, out, err);
	void *p;

	if (st != WEFT_OK || !(p = broken_carve(bytes)))
		return st;
	for (size_t i = 0; i < BROKEN_MOVED; i++)
		if (!broken_moved[i].buf) {
			broken_moved[i].buf = *out;
			broken_moved[i].own = (*out)->ptr;
			(*out)->ptr = p;
			break;
		}
	return WEFT_OK;
}

static void broken_free(weft_device *dev, weft_buf *buf)
{
	if (dev && buf && tpl_live(dev, buf))
		broken_restore(buf);
	tpl_free(dev, buf);
}

static void broken_close(weft_device *dev)
{
	for (weft_buf *b = dev ? dev->bufs : NULL; b; b = b->next)
		broken_restore(b);
	tpl_close(dev);
}
#endif

/* ---- step_replicas: a copy of the layouts with one thing changed --------- */
#if defined(BROKEN_REPLICA_STRIDE) || defined(BROKEN_REPLICA_COUNT) || \
	defined(BROKEN_REPLICA_ALIGN)
#define BROKEN_STEP_REPLICAS broken_step_replicas
#define BROKEN_MAX_LAYOUTS   16
static weft_status broken_step_replicas(weft_device *dev, weft_program *prog,
					const weft_launch *launches,
					const weft_replica_layout *layouts,
					uint32_t n_launches, uint32_t replicas,
					uint64_t n_steps, weft_error *err)
{
	weft_replica_layout lay[BROKEN_MAX_LAYOUTS];

	if (!layouts || n_launches > BROKEN_MAX_LAYOUTS)
		return tpl_step_replicas(dev, prog, launches, layouts,
					 n_launches, replicas, n_steps, err);
	for (uint32_t i = 0; i < n_launches; i++) {
		lay[i] = layouts[i];
		for (int k = 0; k < WEFT_KERNEL_MAX_BUFS; k++) {
#ifdef BROKEN_REPLICA_STRIDE
			lay[i].stride[k] = layouts[i].stride[0];
#elif defined(BROKEN_REPLICA_ALIGN)
			lay[i].stride[k] -= lay[i].stride[k] % TPL_ALIGN;
#endif
		}
#ifdef BROKEN_REPLICA_COUNT
		lay[i].extent_stride = 0;
#endif
	}
	return tpl_step_replicas(dev, prog, launches, lay, n_launches, replicas,
				 n_steps, err);
}
#ifdef BROKEN_REPLICA_STRIDE
#define BROKEN_WHAT "step_replicas() shifts every slot by slot 0's stride"
#elif defined(BROKEN_REPLICA_COUNT)
#define BROKEN_WHAT "step_replicas() ignores the count's stride"
#else
#define BROKEN_WHAT "step_replicas() rounds strides down to 64 bytes"
#endif
#endif

#ifdef BROKEN_REPLICA_COUNTED
#define BROKEN_WHAT	     "step_replicas() counts a launch per replica"
#define BROKEN_STEP_REPLICAS broken_step_replicas
static weft_status broken_step_replicas(weft_device *dev, weft_program *prog,
					const weft_launch *launches,
					const weft_replica_layout *layouts,
					uint32_t n_launches, uint32_t replicas,
					uint64_t n_steps, weft_error *err)
{
	weft_status st = tpl_step_replicas(dev, prog, launches, layouts,
					   n_launches, replicas, n_steps, err);

	if (st == WEFT_OK)
		dev->st.launches += n_steps * n_launches * (replicas - 1);
	return st;
}
#endif

/* ---- the entry: the template's functions, one replaced ------------------- */

/* ---- caps: none (for tests/core/test-needs.sh, not the suite) ---------- */
#ifdef BROKEN_NO_CAPS
#define BROKEN_WHAT "no caps(), so no capability"
#define BROKEN_CAPS NULL
#endif

#ifndef BROKEN_WHAT
#define BROKEN_WHAT "nothing broken"
#endif
#ifndef BROKEN_ALLOC
#define BROKEN_ALLOC tpl_alloc
#endif
#ifndef BROKEN_FREE
#define BROKEN_FREE tpl_free
#endif
#ifndef BROKEN_WRITE
#define BROKEN_WRITE tpl_write
#endif
#ifndef BROKEN_READ
#define BROKEN_READ tpl_read
#endif
#ifndef BROKEN_LOAD_PROGRAM
#define BROKEN_LOAD_PROGRAM tpl_load_program
#endif
#ifndef BROKEN_STEP
#define BROKEN_STEP tpl_step
#endif
#ifndef BROKEN_SYNC
#define BROKEN_SYNC tpl_sync
#endif
#ifndef BROKEN_STATS
#define BROKEN_STATS tpl_stats
#endif
#ifndef BROKEN_WAIT
#define BROKEN_WAIT tpl_wait
#endif
#ifndef BROKEN_NATIVE
#define BROKEN_NATIVE tpl_native
#endif
#ifndef BROKEN_CLOSE
#define BROKEN_CLOSE tpl_close
#endif
#ifndef BROKEN_STEP_REPLICAS
#define BROKEN_STEP_REPLICAS tpl_step_replicas
#endif
#ifndef BROKEN_CAPS
#define BROKEN_CAPS tpl_caps
#endif

WEFT_BACKEND_ENTRY = {
	.abi_major = WEFT_BACKEND_ABI_MAJOR,
	.abi_minor = WEFT_BACKEND_ABI_MINOR,
	.struct_size = sizeof(weft_backend),
	.name = BROKEN_NAME,
	.version = "1.0",
	.description = "the template backend, broken on purpose: " BROKEN_WHAT,
	.probe = tpl_probe,
	.open = tpl_open,
	.close = BROKEN_CLOSE,
	.alloc = BROKEN_ALLOC,
	.free = BROKEN_FREE,
	.write = BROKEN_WRITE,
	.read = BROKEN_READ,
	.copy = tpl_copy,
	.load_program = BROKEN_LOAD_PROGRAM,
	.unload_program = tpl_unload_program,
	.step = BROKEN_STEP,
	.sync = BROKEN_SYNC,
	.stats = BROKEN_STATS,
	.fence = tpl_fence,
	.wait = BROKEN_WAIT,
	.native = BROKEN_NATIVE,
	.step_replicas = BROKEN_STEP_REPLICAS,
	.caps = BROKEN_CAPS,
};
