/*
 * models/minatar/minatar.h - what the MinAtar plugin's host code includes:
 * the host kernel prelude, the kernels' launch helpers and what kernels
 * and host share (the games' code too: setup computes the first states
 * with the kernels' own functions).
 */
#ifndef MINATAR_H
#define MINATAR_H

#include <weft/kernel_host.h>
#include <weft/kernel.h>
#include <weft/model.h>

#include "minatar_kernels.h"
#include "minatar_shared.h"

#endif /* MINATAR_H */
