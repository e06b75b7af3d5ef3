"""PyTorch's figure for the tensor-core attention (examples/examples/attention.rs):
torch.nn.functional.scaled_dot_product_attention with the flash backend, bf16 Q, K, V of shape
(batch, heads, seq, d) on the GPU, without and with is_causal, for the shapes the example times:
each sequence length n (4096 and 16384, or --seqs) with each head dimension d (64 and 128, or
--dims), batch 16384 / n and 2048 / d heads. Timed with CUDA events: 5 warm-up launches, then the
median of 20, each one call between two events. Prints one line per shape,

  torch_attention_tflops_<shape> <TFLOP/s>

with <shape> like s4096_d64 or s4096_d64_causal, the keys of the example's --torch-tflops;
FLOPs are 4 batch heads n^2 d, halved with the causal mask. The output is bf16, as PyTorch
gives it.

Usage: python3 torch_attention.py [--seqs 4096,16384] [--dims 64,128]. Exits 2 with a message on
stderr when PyTorch cannot be imported, sees no GPU or has no flash backend for these inputs
(bench/run.sh then skips the comparison)."""
import argparse
import math
import statistics
import sys

WARM_UP = 5
TIMED = 20
TOKENS = 16384
MODEL_DIM = 2048


def numbers(name, text):
    try:
        return [int(s) for s in text.split(",")]
    except ValueError:
        raise SystemExit(f"{name}: expected numbers like 4096,16384, got {text!r}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seqs", default="4096,16384", help="comma-separated sequence lengths")
    parser.add_argument("--dims", default="64,128", help="comma-separated head dimensions")
    args = parser.parse_args()
    seqs, dims = numbers("--seqs", args.seqs), numbers("--dims", args.dims)
    try:
        import torch
        import torch.nn.functional as F
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except Exception as e:  # noqa: BLE001 - any import failure means no PyTorch figure
        print(f"PyTorch unavailable ({type(e).__name__}: {e})", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("PyTorch sees no CUDA GPU", file=sys.stderr)
        return 2
    generator = torch.Generator(device="cuda").manual_seed(0)
    for n in seqs:
        for d in dims:
            batch, heads = max(1, TOKENS // n), max(1, MODEL_DIM // d)

            def tensor():
                shape = (batch, heads, n, d)
                x = torch.rand(shape, device="cuda", dtype=torch.bfloat16, generator=generator)
                return x * 2 - 1

            q, k, v = tensor(), tensor(), tensor()
            for causal in (False, True):
                name = f"s{n}_d{d}" + ("_causal" if causal else "")
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                times = []
                try:
                    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                        for i in range(WARM_UP + TIMED):
                            start.record()
                            o = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                            end.record()
                            end.synchronize()
                            if i >= WARM_UP:
                                times.append(start.elapsed_time(end))
                except RuntimeError as e:
                    print(f"no flash attention backend for {name}: {e}", file=sys.stderr)
                    return 2
                ms = statistics.median(times)
                # A sanity check of a few rows of the first head against f64 on the CPU.
                rows = list(range(0, n, max(1, n // 5)))
                qh, kh, vh = q[0, 0].double().cpu(), k[0, 0].double().cpu(), v[0, 0].double().cpu()
                scores = (qh[rows] @ kh.T) / math.sqrt(d)
                if causal:
                    keys = torch.arange(n).unsqueeze(0)
                    scores = scores.masked_fill(keys > torch.tensor(rows).unsqueeze(1), float("-inf"))
                expected = torch.softmax(scores, dim=-1) @ vh
                error = (o[0, 0].double().cpu()[rows] - expected).abs().max().item()
                if not error < 2 ** -6:
                    print(f"torch attention {name}: error {error:.3e} (more than 2^-6)", file=sys.stderr)
                    return 1
                flops = 4 * batch * heads * n * n * d / (2 if causal else 1)
                print(f"torch_attention_tflops_{name} {flops / (ms * 1e-3) / 1e12:.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
