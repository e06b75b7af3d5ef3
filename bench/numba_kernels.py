"""Numba's side of the kernel benchmark: the same algorithms as ferrocuda's kernels, written the
natural Numba way with @cuda.jit and the same block and tile sizes, the same sizes as
examples/examples/bench_kernels.rs, each timed with CUDA events (one launch between two events,
3 warm-up rounds, the median of the rest; the launch includes Numba's host-side dispatch, so the
notes also give vecadd, matmul and transpose launched 10 times back to back) and checked against
NumPy. The sum reads one float at a time (Numba has no natural 16-byte load).

Usage: python3 numba_kernels.py --out numba.csv. numba-cuda needs NumPy 2.2: bench/run.sh puts
the bundled wheel first on PYTHONPATH. If Numba cannot be imported or finds no GPU, every kernel
is written as n/a with the reason, and the script still exits 0."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_common as rc  # noqa: E402

results = rc.Results("numba")
try:
    import numpy as np
    from numba import cuda, float32, uint32

    if not cuda.is_available():
        raise RuntimeError("numba.cuda.is_available() is False")
except Exception as e:  # noqa: BLE001 - any import or driver failure means no Numba column
    results.all_missing(f"Numba unavailable ({type(e).__name__}: {e})")
    sys.exit(0)

TILE = 16


@cuda.jit
def vecadd_kernel(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


@cuda.jit
def matmul_kernel(a, b, c):
    ta = cuda.shared.array((TILE, TILE), float32)
    tb = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    m, n = a.shape
    p = b.shape[1]
    acc = float32(0.0)
    for t in range((n + TILE - 1) // TILE):
        ka, kb = t * TILE + tx, t * TILE + ty
        ta[ty, tx] = a[row, ka] if row < m and ka < n else float32(0.0)
        tb[ty, tx] = b[kb, col] if kb < n and col < p else float32(0.0)
        cuda.syncthreads()
        for k in range(TILE):
            acc += ta[ty, k] * tb[k, tx]
        cuda.syncthreads()
    if row < m and col < p:
        c[row, col] = acc


@cuda.jit
def transpose_kernel(x, out):
    tile = cuda.shared.array((32, 33), float32)
    h, w = x.shape
    bx, by = cuda.blockIdx.x * 32, cuda.blockIdx.y * 32
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    for j in range(0, 32, 8):
        if bx + tx < w and by + ty + j < h:
            tile[ty + j, tx] = x[by + ty + j, bx + tx]
    cuda.syncthreads()
    for j in range(0, 32, 8):
        if by + tx < h and bx + ty + j < w:
            out[bx + ty + j, by + tx] = tile[tx, ty + j]


@cuda.jit
def histogram_kernel(data, bins):
    local = cuda.shared.array(256, uint32)
    t = cuda.threadIdx.x
    for k in range(t, 256, cuda.blockDim.x):
        local[k] = 0
    cuda.syncthreads()
    for i in range(cuda.grid(1), data.size, cuda.gridsize(1)):
        cuda.atomic.add(local, data[i] & 255, uint32(1))
    cuda.syncthreads()
    for k in range(t, 256, cuda.blockDim.x):
        if local[k] > 0:
            cuda.atomic.add(bins, k, local[k])


@cuda.jit
def sum_kernel(x, out):
    warp_sums = cuda.shared.array(32, float32)
    s = float32(0.0)
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        s += x[i]
    offset = 16
    while offset > 0:
        s += cuda.shfl_down_sync(0xFFFFFFFF, s, offset)
        offset //= 2
    lane, warp = cuda.threadIdx.x % 32, cuda.threadIdx.x // 32
    if lane == 0:
        warp_sums[warp] = s
    cuda.syncthreads()
    if warp == 0:
        total = warp_sums[lane] if lane < cuda.blockDim.x // 32 else float32(0.0)
        offset = 16
        while offset > 0:
            total += cuda.shfl_down_sync(0xFFFFFFFF, total, offset)
            offset //= 2
        if lane == 0:
            cuda.atomic.add(out, 0, total)


def time_ms(kernel, launch, before=None):
    """Median ms of one `launch()` between two events; `before()` runs outside the timing."""
    start, end = cuda.event(), cuda.event()
    times = []
    for i in range(rc.WARM_UP + rc.KERNELS[kernel][0]):
        if before is not None:
            before()
        start.record()
        launch()
        end.record()
        end.synchronize()
        if i >= rc.WARM_UP:
            times.append(cuda.event_elapsed_time(start, end))
    return rc.median(times)


def back_to_back(kernel, launch, launches=10):
    """A note with the figure of `launches` back-to-back launches between two events (Numba's
    host dispatch then overlaps the previous launch's run): the kernel's own speed."""
    start, end = cuda.event(), cuda.event()
    times = []
    for i in range(rc.WARM_UP + rc.KERNELS[kernel][0]):
        start.record()
        for _ in range(launches):
            launch()
        end.record()
        end.synchronize()
        if i >= rc.WARM_UP:
            times.append(cuda.event_elapsed_time(start, end) / launches)
    value = rc.amount(kernel) / rc.median(times) / 1e6
    return f"{launches} back-to-back launches: {value:.2f} {rc.KERNELS[kernel][1]}"


def registers(kernel):
    """Registers per thread of a kernel's one compiled specialisation, or None."""
    try:
        regs = kernel.get_regs_per_thread()
        return next(iter(regs.values())) if isinstance(regs, dict) else int(regs)
    except Exception:  # noqa: BLE001 - only a detail of the report
        return None


rng = np.random.default_rng(7)
blocks = cuda.get_current_device().MULTIPROCESSOR_COUNT * 8


def vecadd():
    n = rc.VECADD_N
    ha, hb = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    a, b, c = cuda.to_device(ha), cuda.to_device(hb), cuda.device_array(n, np.float32)
    launch = vecadd_kernel[(n + 255) // 256, 256]
    ms = time_ms("vecadd", lambda: launch(a, b, c))
    assert np.array_equal(c.copy_to_host(), ha + hb), "vecadd differs from NumPy"
    return ms, registers(vecadd_kernel), back_to_back("vecadd", lambda: launch(a, b, c))


def matmul():
    n = rc.MATMUL_N
    ha = rng.random((n, n), dtype=np.float32) * 2 - 1
    hb = rng.random((n, n), dtype=np.float32) * 2 - 1
    a, b, c = cuda.to_device(ha), cuda.to_device(hb), cuda.device_array((n, n), np.float32)
    launch = matmul_kernel[(n // TILE, n // TILE), (TILE, TILE)]
    ms = time_ms("matmul", lambda: launch(a, b, c))
    rows = np.arange(0, n, 511)
    expected = ha[rows].astype(np.float64) @ hb.astype(np.float64)
    worst = np.abs(c.copy_to_host()[rows] - expected).max()
    assert worst < 1e-2, f"matmul differs from NumPy by {worst}"
    return ms, registers(matmul_kernel), back_to_back("matmul", lambda: launch(a, b, c))


def transpose():
    n = rc.TRANSPOSE_N
    hx = rng.random((n, n), dtype=np.float32)
    x, t = cuda.to_device(hx), cuda.device_array((n, n), np.float32)
    launch = transpose_kernel[(n // 32, n // 32), (32, 8)]
    ms = time_ms("transpose", lambda: launch(x, t))
    assert np.array_equal(t.copy_to_host(), hx.T), "transpose differs from NumPy"
    return ms, registers(transpose_kernel), back_to_back("transpose", lambda: launch(x, t))


def histogram():
    n = rc.STREAM_N
    hx = rng.integers(0, 2_000_000, n, dtype=np.uint32)
    x, bins = cuda.to_device(hx), cuda.device_array(256, np.uint32)
    zeros = np.zeros(256, np.uint32)
    launch = histogram_kernel[blocks, 256]
    ms = time_ms("histogram", lambda: launch(x, bins), before=lambda: bins.copy_to_device(zeros))
    assert np.array_equal(bins.copy_to_host(), np.bincount(hx & 255, minlength=256)), "histogram differs from NumPy"
    return ms, registers(histogram_kernel), ""


def sum_():
    n = rc.STREAM_N
    hx = rng.random(n, dtype=np.float32)
    x, total = cuda.to_device(hx), cuda.device_array(1, np.float32)
    zero = np.zeros(1, np.float32)
    launch = sum_kernel[blocks, 256]
    ms = time_ms("sum", lambda: launch(x, total), before=lambda: total.copy_to_device(zero))
    expected, got = hx.astype(np.float64).sum(), float(total.copy_to_host()[0])
    assert abs(got - expected) <= 1e-3 * (1 + abs(expected)), f"sum is {got}, NumPy says {expected}"
    return ms, registers(sum_kernel), "one 4-byte load per element"


for name, measure in [("vecadd", vecadd), ("matmul", matmul), ("transpose", transpose),
                      ("histogram", histogram), ("sum", sum_)]:
    results.run(name, measure)
