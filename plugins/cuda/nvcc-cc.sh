#!/bin/sh
# plugins/cuda/nvcc-cc.sh - nvcc with the command line of a C compiler, so
# that libtool's compile mode can build the CUDA plugin's C files with it.
#
#   nvcc-cc.sh NVCC HOST_CC [COMPILER ARGUMENTS...]
#
# nvcc compiles .c files by running the host compiler (-ccbin) with the
# toolkit's include directories and defines; it knows -c -o -I -D -U -O -g
# and gcc's dependency flags (-MD -MF -MT -MP) itself. Everything else that
# libtool or configure adds (-fPIC, -std=c11, -Werror, -fvisibility=...)
# is meant for the host compiler and goes there as -Xcompiler=ARG; nvcc's
# own -Werror and -std take other arguments, so these are never left to
# nvcc. An argument with a comma cannot go through -Xcompiler (nvcc splits
# on commas) and is refused by name.
set -eu
if [ $# -lt 2 ]; then
	echo "usage: nvcc-cc.sh NVCC HOST_CC [ARGS...]" >&2
	exit 2
fi
nvcc=$1 host=$2
shift 2
n=$#
pending=
while [ "$n" -gt 0 ]; do
	a=$1
	shift
	n=$((n - 1))
	if [ -n "$pending" ]; then
		# the argument of -o, -MF, -MT, -MQ, -I, -D, -U, -isystem
		set -- "$@" "$a"
		pending=
		continue
	fi
	case $a in
	-o | -MF | -MT | -MQ | -I | -D | -U | -isystem)
		set -- "$@" "$a"
		pending=1
		;;
	-c | -g | -O* | -I?* | -D?* | -U?* | -MD | -MMD | -MP)
		set -- "$@" "$a"
		;;
	-*,*)
		echo "nvcc-cc.sh: cannot pass '$a' to the host compiler through nvcc (it contains a comma)" >&2
		exit 2
		;;
	-*)
		set -- "$@" "-Xcompiler=$a"
		;;
	*)
		set -- "$@" "$a"
		;;
	esac
done
exec "$nvcc" -ccbin "$host" -x c "$@"
