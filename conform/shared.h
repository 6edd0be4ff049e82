/*
 * conform/shared.h - what the conformance suite's kernels (conform.wk)
 * and its host code share, in the kernel dialect: the guard words around every
 * buffer a kernel writes, and the layout of the control block of device-side
 * extents. Part of the program text handed to run-time compilers (before
 * conform.wk).
 */
#ifndef WEFT_CONFORM_SHARED_H
#define WEFT_CONFORM_SHARED_H

/* Buffers kernels write are CF_GUARD words of guard, the n words the
 * launch covers (work item i writes word CF_GUARD + i), CF_GUARD words of
 * guard: a backend running items past the extent overwrites a guard. */
#define CF_GUARD 32u

/* Control block of cf_count (32-bit words): before each launch that reads
 * its extent on the device, cf_count copies table[step % CF_CTL_TABLE_LEN]
 * to the count word and advances step. The count is at byte offset 8, so
 * a backend that ignores extent_offset reads the step number instead. */
#define CF_CTL_STEP	 0
#define CF_CTL_COUNT	 2
#define CF_CTL_TABLE	 4
#define CF_CTL_TABLE_LEN 16
#define CF_CTL_WORDS	 (CF_CTL_TABLE + CF_CTL_TABLE_LEN)

#endif /* WEFT_CONFORM_SHARED_H */
