"""CuPy's side of the device-wide algorithms benchmark (examples/examples/bench_algorithms.rs),
on the same inputs as bench/algorithms.cu, each timed with CUDA events (3 warm-up runs, then the
median of 21):

  cupy_reduce_sum_f32       x.sum()                          (CUB underneath)
  cupy_inclusive_scan_f32   cp.cumsum(x, out=y)
  cupy_inclusive_scan_u32   cp.cumsum(u, dtype=cp.uint32, out=v)
  cupy_copy_f32             cp.copyto(y, x)

Usage: python3 algorithms_cupy.py [log2_n] > cupy.txt. Prints "name median_ms" per line; without
CuPy or a GPU it prints one "# unavailable: reason" line and exits 0 (the column is then n/a)."""
import sys

WARM_UP, ROUNDS = 3, 21

try:
    import cupy as cp

    cp.cuda.runtime.getDeviceCount()
except Exception as e:  # noqa: BLE001 - any import or driver failure means no CuPy column
    print(f"# unavailable: CuPy ({type(e).__name__}: {e})")
    sys.exit(0)


def hash_index(i):
    """The 32-bit integer mix of bench/algorithms.cu, on a uint32 array."""
    x = i * cp.uint32(0x9E3779B9)
    x ^= x >> 16
    x *= cp.uint32(0x85EBCA6B)
    x ^= x >> 13
    x *= cp.uint32(0xC2B2AE35)
    x ^= x >> 16
    return x


def time_ms(run):
    """Median ms of one `run()` between two events on the current stream."""
    start, end = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(WARM_UP):
        run()
    cp.cuda.Stream.null.synchronize()
    times = []
    for _ in range(ROUNDS):
        start.record()
        run()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end))
    times.sort()
    return times[len(times) // 2]


def main():
    n = 1 << (int(sys.argv[1]) if len(sys.argv) > 1 else 26)
    h = hash_index(cp.arange(n, dtype=cp.uint32))
    x = (h >> 8).astype(cp.float32) * cp.float32(1.0 / 16777216.0) - cp.float32(0.5)
    u = h & cp.uint32(0xFF)
    y = cp.empty_like(x)
    v = cp.empty_like(u)
    print(f"cupy_reduce_sum_f32 {time_ms(lambda: x.sum()):.6f}")
    print(f"cupy_inclusive_scan_f32 {time_ms(lambda: cp.cumsum(x, out=y)):.6f}")
    print(f"cupy_inclusive_scan_u32 {time_ms(lambda: cp.cumsum(u, dtype=cp.uint32, out=v)):.6f}")
    print(f"cupy_copy_f32 {time_ms(lambda: cp.copyto(y, x)):.6f}")


main()
