"""NCCL's own all-to-all through PyTorch (one process per GPU, all_to_all_single), the
yardstick for tierfft's exchange in `tierfft bench --gpus N`: the same bytes per rank, CUDA
events, median of many runs.

Usage: python3 scripts/nccl_alltoall.py GPUS MIB[,MIB...] [REPS]
(MIB: each rank's whole slab in MiB; it sends (GPUS-1)/GPUS of it to its peers.)
"""
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank, world, sizes, reps):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29533")
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world,
                            device_id=torch.device("cuda", rank))
    for mib in sizes:
        n = mib * 2**20 // 4
        x = torch.ones(n, dtype=torch.float32, device="cuda")
        y = torch.empty_like(x)
        for _ in range(3):
            dist.all_to_all_single(y, x)
        torch.cuda.synchronize()
        times = []
        for _ in range(reps):
            dist.barrier()
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            dist.all_to_all_single(y, x)
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) / 1e3)
        t = torch.tensor([sorted(times)[len(times) // 2]], device="cuda")
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        if rank == 0:
            sent = mib * 2**20 * (world - 1) / world
            print(f"{mib:>8} MiB per rank: {1e3 * t.item():9.3f} ms, "
                  f"{sent / t.item() / 1e9:7.1f} GB/s to peers per rank")
        del x, y
    dist.destroy_process_group()


if __name__ == "__main__":
    world = int(sys.argv[1])
    sizes = [int(s) for s in sys.argv[2].split(",")]
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    print(f"NCCL all_to_all_single (PyTorch {torch.__version__}, NCCL "
          f"{'.'.join(map(str, torch.cuda.nccl.version()))}), {world} GPUs, median of {reps}")
    mp.spawn(worker, args=(world, sizes, reps), nprocs=world)
