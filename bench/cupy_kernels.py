"""CuPy's side of the kernel benchmark, the same kernels and sizes as
examples/examples/bench_kernels.rs, each timed with CUDA events (one launch between two events,
3 warm-up rounds, the median of the rest) and checked against NumPy:

  vecadd     cp.add(a, b, out=c)                 CuPy's own operation (an elementwise kernel)
  matmul     RawKernel matmul_tiled_cuda         bench/reference_kernels.cu compiled by NVRTC: the
             same 16x16 tiles (a @ b would be cuBLAS, a different algorithm; its figure is in the note)
  transpose  cp.copyto(t, x.T)                   CuPy's own operation (a strided elementwise copy)
  histogram  cp.bincount(x & 255, minlength=256) CuPy's own operations (the mask, then bincount)
  sum        x.sum()                             CuPy's own operation (CUB)

Usage: python3 cupy_kernels.py --out cupy.csv. If CuPy cannot be imported or has no GPU, every
kernel is written as n/a with the reason, and the script still exits 0."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_common as rc  # noqa: E402

results = rc.Results("cupy")
try:
    import cupy as cp
    import numpy as np

    cp.cuda.runtime.getDeviceCount()
except Exception as e:  # noqa: BLE001 - any import or driver failure means no CuPy column
    results.all_missing(f"CuPy unavailable ({type(e).__name__}: {e})")
    sys.exit(0)


def time_ms(kernel, launch, before=None):
    """Median ms of one `launch()` between two events; `before()` runs outside the timing."""
    start, end = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for i in range(rc.WARM_UP + rc.KERNELS[kernel][0]):
        if before is not None:
            before()
        start.record()
        launch()
        end.record()
        end.synchronize()
        if i >= rc.WARM_UP:
            times.append(cp.cuda.get_elapsed_time(start, end))
    return rc.median(times)


def vecadd():
    n = rc.VECADD_N
    a, b = cp.random.random(n, dtype=cp.float32), cp.random.random(n, dtype=cp.float32)
    c = cp.empty_like(a)
    ms = time_ms("vecadd", lambda: cp.add(a, b, out=c))
    assert np.array_equal(cp.asnumpy(c), cp.asnumpy(a) + cp.asnumpy(b)), "vecadd differs from NumPy"
    return ms, None, "cp.add(a, b, out=c) (CuPy's own operation)"


def matmul():
    n = rc.MATMUL_N
    source = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference_kernels.cu")).read()
    kernel = cp.RawModule(code=source).get_function("matmul_tiled_cuda")
    a = cp.random.random((n, n), dtype=cp.float32) * 2 - 1
    b = cp.random.random((n, n), dtype=cp.float32) * 2 - 1
    c = cp.empty_like(a)
    args = (a, b, c, np.uint32(n), np.uint32(n), np.uint32(n))
    ms = time_ms("matmul", lambda: kernel((n // 16, n // 16), (16, 16), args))
    # Rows spread over the matrix against NumPy in float64.
    rows = np.arange(0, n, 511)
    expected = cp.asnumpy(a)[rows].astype(np.float64) @ cp.asnumpy(b).astype(np.float64)
    worst = np.abs(cp.asnumpy(c)[rows] - expected).max()
    assert worst < 1e-2, f"matmul differs from NumPy by {worst}"
    cublas_ms = time_ms("matmul", lambda: cp.matmul(a, b, out=c))
    cublas = rc.amount("matmul") / cublas_ms / 1e6
    return ms, kernel.num_regs, f"RawKernel of bench/reference_kernels.cu (NVRTC); a @ b (cuBLAS) {cublas:.1f} TFLOP/s"


def transpose():
    n = rc.TRANSPOSE_N
    x = cp.random.random((n, n), dtype=cp.float32)
    t = cp.empty_like(x)
    ms = time_ms("transpose", lambda: cp.copyto(t, x.T))
    assert np.array_equal(cp.asnumpy(t), cp.asnumpy(x).T), "transpose differs from NumPy"
    return ms, None, "cp.copyto(t, x.T) (CuPy's own operation)"


def histogram():
    n = rc.STREAM_N
    x = cp.random.randint(0, 2_000_000, n, dtype=cp.uint32)
    out = []
    ms = time_ms("histogram", lambda: out.append(cp.bincount(x & 255, minlength=256)))
    expected = np.bincount(cp.asnumpy(x) & 255, minlength=256)
    assert np.array_equal(cp.asnumpy(out[-1]), expected), "histogram differs from NumPy"
    return ms, None, "cp.bincount(x & 255, minlength=256) (CuPy's own operations: two kernels)"


def sum_():
    n = rc.STREAM_N
    x = cp.random.random(n, dtype=cp.float32)
    out = []
    ms = time_ms("sum", lambda: out.append(x.sum()))
    expected = cp.asnumpy(x).astype(np.float64).sum()
    got = float(out[-1])
    assert abs(got - expected) <= 1e-3 * (1 + abs(expected)), f"sum is {got}, NumPy says {expected}"
    return ms, None, "x.sum() (CuPy's own operation: CUB)"


for name, measure in [("vecadd", vecadd), ("matmul", matmul), ("transpose", transpose),
                      ("histogram", histogram), ("sum", sum_)]:
    results.run(name, measure)
    cp.get_default_memory_pool().free_all_blocks()
