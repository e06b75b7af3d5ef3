"""What the CuPy and Numba references share: the kernels, their sizes and timed rounds (those of
examples/examples/bench_kernels.rs), the median, and the results file (the CSV format of
examples/src/bench_report.rs: kernel,implementation,value,ms,registers,note)."""
import os
import sys
import traceback

# id -> (rounds timed after 3 warm-up rounds, unit)
KERNELS = {
    "vecadd": (20, "GB/s"),
    "matmul": (10, "TFLOP/s"),
    "transpose": (20, "GB/s"),
    "histogram": (20, "GB/s"),
    "sum": (40, "GB/s"),
}
VECADD_N = 1 << 26  # f32 elements
MATMUL_N = 4096  # square, 16x16 tiles
TRANSPOSE_N = 8192  # square, 32x33 tile, blocks of 32x8
STREAM_N = 1 << 26  # histogram (u32) and sum (f32) elements
WARM_UP = 3


def median(values):
    """The upper middle value, as bench_kernels' median."""
    values = sorted(values)
    return values[len(values) // 2]


def amount(kernel):
    """What one launch moves or computes, in the unit's base (bytes; flops / 1000 for TFLOP/s),
    so that value = amount / ms / 1e6."""
    return {
        "vecadd": 12.0 * VECADD_N,
        "matmul": 2.0 * MATMUL_N**3 / 1e3,
        "transpose": 8.0 * TRANSPOSE_N * TRANSPOSE_N,
        "histogram": 4.0 * STREAM_N,
        "sum": 4.0 * STREAM_N,
    }[kernel]


def out_path():
    """The file named by `--out FILE` (required)."""
    if "--out" not in sys.argv or sys.argv.index("--out") + 1 >= len(sys.argv):
        sys.exit(f"usage: {sys.argv[0]} --out RESULTS.csv")
    return sys.argv[sys.argv.index("--out") + 1]


class Results:
    """The rows of one implementation, written to the results file after every kernel (so a
    crash part-way keeps what was measured)."""

    def __init__(self, implementation):
        self.implementation = implementation
        self.path = out_path()
        self.rows = []

    def add(self, kernel, ms, registers=None, note=""):
        value = amount(kernel) / ms / 1e6
        self.rows.append((kernel, f"{value:.3f}", f"{ms:.5f}", "" if registers is None else str(registers), note))
        print(f"{self.implementation} {kernel}: {value:.2f} {KERNELS[kernel][1]} ({ms:.4f} ms)", flush=True)
        self.write()

    def missing(self, kernel, reason):
        reason = " ".join(str(reason).split())
        self.rows.append((kernel, "", "", "", f"n/a: {reason}"))
        print(f"{self.implementation} {kernel}: n/a: {reason}", file=sys.stderr, flush=True)
        self.write()

    def write(self):
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            f.write("kernel,implementation,value,ms,registers,note\n")
            for kernel, value, ms, registers, note in self.rows:
                f.write(f"{kernel},{self.implementation},{value},{ms},{registers},{note}\n")
        os.replace(tmp, self.path)

    def all_missing(self, reason):
        for kernel in KERNELS:
            self.missing(kernel, reason)

    def run(self, kernel, measure):
        """Calls measure() -> (ms, registers, note); any exception makes the kernel n/a."""
        try:
            ms, registers, note = measure()
            self.add(kernel, ms, registers, note)
        except Exception as e:  # noqa: BLE001 - one failing kernel must not hide the others
            traceback.print_exc()
            self.missing(kernel, f"{type(e).__name__}: {e}")
