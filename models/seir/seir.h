/*
 * models/seir/seir.h - what the SEIR model's host code and its host-compiled
 * kernels share: the buffer slots of each kernel and the layout of the
 * parameter block, which must be identical on every target (only 32-bit
 * fields, no padding).
 */
#ifndef WEFT_SEIR_H
#define WEFT_SEIR_H

#include <weft/backend.h>

extern const weft_kernel_desc weft__seir_kernels[];
extern const uint32_t weft__seir_n_kernels;
extern const char weft__seir_source[];
extern const size_t weft__seir_source_len;

#endif
