"""CuPy's side of examples/examples/bench_generated.rs (kernels generated from a scalar function),
on 2^26 f32: the ElementwiseKernel saxpy and the ReductionKernel sum of squares, the Python
analogues of #[elementwise] and #[reduction]. Each is timed with CUDA events (one call between two
events, 3 warm-up runs, the median of 21), checked against NumPy, and printed as `name_ms value`
lines, which bench_generated reads (--cupy FILE).

Usage: python3 generated_cupy.py [log2 n] > generated_cupy.txt. Without CuPy or a GPU it prints
`unavailable <reason>` and exits 0, and bench_generated shows n/a."""
import sys

WARM_UP = 3
ROUNDS = 21

try:
    import cupy as cp
    import numpy as np

    cp.cuda.runtime.getDeviceCount()
except Exception as e:  # noqa: BLE001 - any import or driver failure means no CuPy column
    print(f"unavailable {type(e).__name__}: {e}")
    sys.exit(0)


def median_ms(call):
    start, end = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(WARM_UP):
        call()
    times = []
    for _ in range(ROUNDS):
        start.record()
        call()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end))
    times.sort()
    return times[len(times) // 2]


log2_n = int(sys.argv[1]) if len(sys.argv) > 1 else 26
n = 1 << log2_n
rng = np.random.default_rng(12345)
x_host = rng.uniform(-1.0, 1.0, n).astype(np.float32)
y_host = rng.uniform(-1.0, 1.0, n).astype(np.float32)
x, y = cp.asarray(x_host), cp.asarray(y_host)
out = cp.empty_like(x)

saxpy = cp.ElementwiseKernel(
    "float32 a, float32 x, float32 y", "float32 z", "z = a * x + y", "saxpy"
)
sum_of_squares = cp.ReductionKernel(
    "T x", "T y", "x * x", "a + b", "y = a", "0", "sum_of_squares"
)

a = np.float32(2.5)
saxpy_ms = median_ms(lambda: saxpy(a, x, y, out))
saxpy_ok = np.allclose(cp.asnumpy(out), a * x_host + y_host, rtol=1e-6, atol=1e-6)
total = None


def reduce():
    global total
    total = sum_of_squares(x)


sum_ms = median_ms(reduce)
expected = float(np.sum(x_host.astype(np.float64) ** 2))
sum_ok = abs(float(total) - expected) <= 1e-5 * expected

print(f"n {n}")
print(f"saxpy_ms {saxpy_ms:.6f}")
print(f"saxpy_check {'ok' if saxpy_ok else 'FAILED'}")
print(f"sum_of_squares_ms {sum_ms:.6f}")
print(f"sum_of_squares_check {'ok' if sum_ok else 'FAILED'}")
