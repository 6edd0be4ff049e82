/*
 * bench/cub-bench.cu - NVIDIA CUB's scan, radix sort and compaction on the
 * same workloads as bench/blocks-bench.c, timed the same way, so that
 * weft's building blocks on the cuda backend can be compared with CUB in
 * one run (.ci/gpu-check.sh, step bench). Not part of the build: CUB is
 * header-only and ships with the CUDA toolkit, so this is compiled where
 * a GPU is:
 *
 *   nvcc -O3 -arch=native -o cub-bench bench/cub-bench.cu
 *   cub-bench N REPEATS
 *
 * Workloads, on N random u32 elements (a fixed seed): scan = exclusive sum
 * (in != out); sort = u32 keys with values 0..N-1 (the stable permutation
 * and the sorted keys); compact = the elements whose u8 flag is set, each
 * with probability 1/2. Each is timed from the host, launch to
 * cudaDeviceSynchronize(), its inputs copied in again before each repeat
 * (not timed), after one run that is not timed; the time printed is the
 * median of REPEATS. Scratch space is allocated once, outside the timing.
 * The last results are checked on the host.
 *
 * Lines: ms_cub_scan_u32=, ms_cub_sort_u32=, ms_cub_compact_u32=,
 * kept=, d2d_gbps= (a cudaMemcpy of 4 N bytes device to device: 8 N
 * bytes moved / its time).
 */
#include <cub/cub.cuh>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                \
	do {                                                                       \
		cudaError_t e_ = (call);                                           \
		if (e_ != cudaSuccess) {                                           \
			fprintf(stderr, "cub-bench: %s: %s\n", #call,              \
				cudaGetErrorString(e_));                           \
			exit(1);                                                   \
		}                                                                  \
	} while (0)

static double now_s()
{
	using namespace std::chrono;
	return duration<double>(steady_clock::now().time_since_epoch()).count();
}

static unsigned xorshift(unsigned long long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (unsigned)(*s >> 16);
}

/* The median of REPEATS timings of f(), after one untimed run; prep()
 * (untimed) before each. */
template <class Prep, class F> static double median_ms(int repeats, Prep prep, F f)
{
	std::vector<double> t;

	for (int r = -1; r < repeats; r++) {
		prep();
		CHECK(cudaDeviceSynchronize());
		double t0 = now_s();
		f();
		CHECK(cudaDeviceSynchronize());
		if (r >= 0)
			t.push_back((now_s() - t0) * 1e3);
	}
	std::sort(t.begin(), t.end());
	return t[t.size() / 2];
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: cub-bench N REPEATS\n");
		return 2;
	}
	size_t n = strtoul(argv[1], NULL, 10);
	int repeats = atoi(argv[2]);
	if (n == 0 || repeats < 1) {
		fprintf(stderr, "cub-bench: N and REPEATS must be positive\n");
		return 2;
	}
	std::vector<unsigned> keys(n), vals(n), out(n);
	std::vector<unsigned char> flags(n);
	unsigned long long seed = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < n; i++) {
		keys[i] = xorshift(&seed);
		vals[i] = (unsigned)i;
		flags[i] = xorshift(&seed) & 1;
	}
	unsigned *d_in, *d_out, *d_kin, *d_kout, *d_vin, *d_vout, *d_count;
	unsigned char *d_flags;
	size_t bytes = n * sizeof(unsigned);
	CHECK(cudaMalloc(&d_in, bytes));
	CHECK(cudaMalloc(&d_out, bytes));
	CHECK(cudaMalloc(&d_kin, bytes));
	CHECK(cudaMalloc(&d_kout, bytes));
	CHECK(cudaMalloc(&d_vin, bytes));
	CHECK(cudaMalloc(&d_vout, bytes));
	CHECK(cudaMalloc(&d_count, sizeof(unsigned)));
	CHECK(cudaMalloc(&d_flags, n));

	/* One scratch allocation, the largest any of the three asks for. */
	size_t s_scan = 0, s_sort = 0, s_sel = 0;
	int ni = (int)n;
	CHECK(cub::DeviceScan::ExclusiveSum(NULL, s_scan, d_in, d_out, ni));
	CHECK(cub::DeviceRadixSort::SortPairs(NULL, s_sort, d_kin, d_kout, d_vin, d_vout, ni));
	CHECK(cub::DeviceSelect::Flagged(NULL, s_sel, d_in, d_flags, d_out, d_count, ni));
	size_t s_tmp = std::max(s_scan, std::max(s_sort, s_sel));
	void *d_tmp;
	CHECK(cudaMalloc(&d_tmp, s_tmp));

	auto put_keys = [&] { CHECK(cudaMemcpy(d_in, keys.data(), bytes, cudaMemcpyHostToDevice)); };
	double ms_scan = median_ms(repeats, put_keys, [&] {
		CHECK(cub::DeviceScan::ExclusiveSum(d_tmp, s_scan, d_in, d_out, ni));
	});
	CHECK(cudaMemcpy(out.data(), d_out, bytes, cudaMemcpyDeviceToHost));
	unsigned acc = 0;
	for (size_t i = 0; i < n; i++) {
		if (out[i] != acc) {
			fprintf(stderr, "cub-bench: scan wrong at %zu\n", i);
			return 1;
		}
		acc += keys[i];
	}

	double ms_sort = median_ms(
		repeats,
		[&] {
			CHECK(cudaMemcpy(d_kin, keys.data(), bytes, cudaMemcpyHostToDevice));
			CHECK(cudaMemcpy(d_vin, vals.data(), bytes, cudaMemcpyHostToDevice));
		},
		[&] {
			CHECK(cub::DeviceRadixSort::SortPairs(d_tmp, s_sort, d_kin, d_kout, d_vin,
							      d_vout, ni));
		});
	std::vector<unsigned> sk(n), sv(n);
	CHECK(cudaMemcpy(sk.data(), d_kout, bytes, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(sv.data(), d_vout, bytes, cudaMemcpyDeviceToHost));
	for (size_t i = 0; i < n; i++) {
		if (keys[sv[i]] != sk[i] || (i && (sk[i - 1] > sk[i] ||
						   (sk[i - 1] == sk[i] && sv[i - 1] > sv[i])))) {
			fprintf(stderr, "cub-bench: sort wrong at %zu\n", i);
			return 1;
		}
	}

	double ms_sel = median_ms(
		repeats,
		[&] {
			put_keys();
			CHECK(cudaMemcpy(d_flags, flags.data(), n, cudaMemcpyHostToDevice));
		},
		[&] {
			CHECK(cub::DeviceSelect::Flagged(d_tmp, s_sel, d_in, d_flags, d_out, d_count,
							 ni));
		});
	unsigned kept = 0, want = 0;
	CHECK(cudaMemcpy(&kept, d_count, sizeof kept, cudaMemcpyDeviceToHost));
	for (size_t i = 0; i < n; i++)
		want += flags[i];
	if (kept != want) {
		fprintf(stderr, "cub-bench: compaction kept %u, not %u\n", kept, want);
		return 1;
	}

	double ms_copy = median_ms(
		repeats, [] {}, [&] { CHECK(cudaMemcpy(d_out, d_in, bytes, cudaMemcpyDeviceToDevice)); });

	printf("n=%zu\nms_cub_scan_u32=%.4f\nms_cub_sort_u32=%.4f\nms_cub_compact_u32=%.4f\n"
	       "kept=%u\nd2d_gbps=%.1f\n",
	       n, ms_scan, ms_sort, ms_sel, kept, 2.0 * bytes / (ms_copy * 1e-3) / 1e9);
	return 0;
}
