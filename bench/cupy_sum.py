"""CuPy's sum (CUB) over 2^26 float32: the reference for ferrocuda's warp-shuffle reduction.

Prints `cupy_sum_gbs <median GB/s>` (bytes read / median time of repeated runs, CUDA events)."""
import cupy as cp

n = 1 << 26
x = cp.random.random(n, dtype=cp.float32)
start, end = cp.cuda.Event(), cp.cuda.Event()
times = []
for i in range(40):
    start.record()
    s = x.sum()
    end.record()
    end.synchronize()
    if i >= 5:
        times.append(cp.cuda.get_elapsed_time(start, end))
times.sort()
ms = times[len(times) // 2]
print(f"cupy_sum_gbs {4 * n / ms / 1e6:.1f}")
print(f"cupy_sum_ms {ms:.4f}")
