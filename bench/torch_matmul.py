"""cuBLAS's figure for the tensor-core GEMM (examples/examples/gemm_bf16.rs): PyTorch's bf16
matmul, C = A @ B with A (n x n) and B (n x n) bf16 on the GPU, for n = 4096 and 8192 (or the
sizes given), timed with CUDA events: 5 warm-up launches, then the median of 20, each one launch
between two events. Prints one line per size,

  torch_bf16_tflops_<n> <TFLOP/s>

(2 n^3 floating-point operations per product). The output is bf16, as PyTorch's bf16 matmul
gives it (cuBLAS accumulates in f32 and rounds once at the end).

Usage: python3 torch_matmul.py [--sizes 4096,8192]. Exits 2 with a message on stderr when
PyTorch cannot be imported or sees no GPU (bench/run.sh then skips the comparison)."""
import argparse
import statistics
import sys

WARM_UP = 5
TIMED = 20


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="4096,8192", help="comma-separated square sizes")
    args = parser.parse_args()
    try:
        sizes = [int(s) for s in args.sizes.split(",")]
    except ValueError:
        print(f"--sizes: expected numbers like 4096,8192, got {args.sizes!r}", file=sys.stderr)
        return 1
    try:
        import torch
    except Exception as e:  # noqa: BLE001 - any import failure means no cuBLAS figure
        print(f"PyTorch unavailable ({type(e).__name__}: {e})", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("PyTorch sees no CUDA GPU", file=sys.stderr)
        return 2
    generator = torch.Generator(device="cuda").manual_seed(0)
    for n in sizes:
        a = torch.rand((n, n), device="cuda", dtype=torch.bfloat16, generator=generator) * 2 - 1
        b = torch.rand((n, n), device="cuda", dtype=torch.bfloat16, generator=generator) * 2 - 1
        c = torch.empty((n, n), device="cuda", dtype=torch.bfloat16)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = []
        for i in range(WARM_UP + TIMED):
            start.record()
            torch.matmul(a, b, out=c)
            end.record()
            end.synchronize()
            if i >= WARM_UP:
                times.append(start.elapsed_time(end))
        ms = statistics.median(times)
        # A sanity check of the product (a few elements against f64 on the CPU).
        rows = torch.arange(0, n, max(1, n // 7), device="cuda")
        expected = (a[rows].double() @ b.double())[:, :8]
        got = c[rows][:, :8].double()
        error = ((got - expected).abs() / (a[rows].double().abs() @ b.double().abs())[:, :8]).max().item()
        if not error < 2 ** -6:
            print(f"torch matmul {n}: relative error {error:.3e} (more than 2^-6)", file=sys.stderr)
            return 1
        print(f"torch_bf16_tflops_{n} {2 * n ** 3 / (ms * 1e-3) / 1e12:.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
