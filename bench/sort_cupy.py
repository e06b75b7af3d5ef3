"""CuPy's side of the sort benchmark (examples/examples/bench_sort.rs): the same inputs' sizes as
bench/sort.cu, each timed with CUDA events (3 warm-up runs, then the median of 21), checked
against NumPy:

  cupy_sort_keys_u32_2^24      cp.sort(keys)                    (CUB radix sort inside CuPy)
  cupy_sort_pairs_u32_u32_2^24 order = cp.argsort(keys); keys[order], values[order]
                               (CuPy has no sort of pairs: argsort, then two gathers)
  cupy_histogram_even_u8_2^26  cp.histogram(pixels, bins=256, range=(0, 256))
  cupy_select_if_u32_2^24      x[x > 2^31]                      (boolean mask indexing)

Prints one "name milliseconds" line per measurement; a line "cupy_unavailable reason" and exit
status 0 when CuPy cannot run."""
import sys

try:
    import cupy as cp
    import numpy as np

    cp.cuda.runtime.getDeviceCount()
except Exception as e:  # noqa: BLE001 - any import or driver failure means no CuPy column
    print(f"cupy_unavailable {type(e).__name__}: {e}")
    sys.exit(0)

ROUNDS = 21
WARM_UP = 3


def time_ms(launch, before=None):
    """Median ms of one `launch()` between two events; `before()` runs outside the timing."""
    start, end = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for i in range(WARM_UP + ROUNDS):
        if before is not None:
            before()
        start.record()
        launch()
        end.record()
        end.synchronize()
        if i >= WARM_UP:
            times.append(cp.cuda.get_elapsed_time(start, end))
    times.sort()
    return times[len(times) // 2]


rng = np.random.default_rng(20261123)
n = 1 << 24
keys_host = rng.integers(0, 2**32, size=n, dtype=np.uint32)
keys = cp.asarray(keys_host)
values = cp.arange(n, dtype=cp.uint32)
pixels_host = rng.integers(0, 256, size=1 << 26, dtype=np.uint8)
pixels = cp.asarray(pixels_host)

result = {}
result["cupy_sort_keys_u32_2^24"] = time_ms(lambda: result.__setitem__("sorted", cp.sort(keys)))
assert np.array_equal(cp.asnumpy(result.pop("sorted")), np.sort(keys_host))


def sort_pairs():
    order = cp.argsort(keys)
    result["pairs"] = (keys[order], values[order])


result["cupy_sort_pairs_u32_u32_2^24"] = time_ms(sort_pairs)
sorted_keys, sorted_values = result.pop("pairs")
assert np.array_equal(cp.asnumpy(sorted_keys), np.sort(keys_host))
assert np.array_equal(cp.asnumpy(keys)[cp.asnumpy(sorted_values)], cp.asnumpy(sorted_keys))

result["cupy_histogram_even_u8_2^26"] = time_ms(
    lambda: result.__setitem__("histogram", cp.histogram(pixels, bins=256, range=(0, 256))[0])
)
assert np.array_equal(cp.asnumpy(result.pop("histogram")), np.bincount(pixels_host, minlength=256))

threshold = np.uint32(2**31)
result["cupy_select_if_u32_2^24"] = time_ms(lambda: result.__setitem__("kept", keys[keys > threshold]))
assert np.array_equal(cp.asnumpy(result.pop("kept")), keys_host[keys_host > threshold])

for name, ms in result.items():
    print(f"{name} {ms:.5f}")
