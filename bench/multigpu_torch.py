"""The all-reduce reference of bench/run.sh's multi-GPU step: PyTorch's NCCL all-reduce
(torch.distributed, one process per GPU) of 256 MiB of float32 on 2 GPUs, timed on each rank
with CUDA events around each call: 5 warm-up calls, then the median of 21; the slowest rank's
median gives the bus bandwidth, bytes / time * 2 (n - 1) / n, as nccl-tests reports it.

Prints `allreduce_busbw_gbs <GB/s>` (rank 0), or `# skipped: ...` with fewer than 2 GPUs.
NCCL_NVLS_ENABLE must be 0 (NVLink multicast stays off); the script refuses to run otherwise.
"""

import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

BYTES = 256 << 20
WARM_UP = 5
ROUNDS = 21


def run(rank: int, world: int, port: int) -> None:
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world)
    x = torch.zeros(BYTES // 4, dtype=torch.float32, device="cuda")
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    times = []
    for i in range(WARM_UP + ROUNDS):
        start.record()
        dist.all_reduce(x)
        stop.record()
        stop.synchronize()
        if i >= WARM_UP:
            times.append(start.elapsed_time(stop))
    times.sort()
    median = torch.tensor([times[len(times) // 2]], device="cuda")
    dist.all_reduce(median, op=dist.ReduceOp.MAX)
    if rank == 0:
        ms = median.item()
        busbw = BYTES / (ms * 1e-3) * (2 * (world - 1) / world) / 1e9
        print(f"# torch {torch.__version__}, NCCL {torch.cuda.nccl.version()}, slowest rank's median {ms:.4f} ms", flush=True)
        print(f"allreduce_busbw_gbs {busbw:.3f}", flush=True)
    dist.destroy_process_group()


def main() -> int:
    if os.environ.get("NCCL_NVLS_ENABLE") != "0":
        print("NCCL_NVLS_ENABLE=0 must be set: NVLink multicast stays off", file=sys.stderr)
        return 2
    world = torch.cuda.device_count()
    if world < 2:
        print(f"# skipped: {world} GPU(s), the all-reduce needs 2")
        return 0
    world = 2
    mp.spawn(run, args=(world, 29500 + os.getpid() % 1000), nprocs=world, join=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
