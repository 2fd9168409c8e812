# cucatch-expect: clean
# cucatch-expect-raw
# cucatch-needs-module: torch
# cucatch-needs-gpus: 2
# cucatch-jit-expect-note: libtorch_cuda.so: not instrumented on sm_90
# cucatch-jit-expect-note: JIT mode leaves the CUDA libraries' own kernels uninstrumented
"""PyTorch on two GPUs, as multi-GPU training uses them: tensors copied between the devices
(peer copies) and computed on each, then torch.distributed with the NCCL backend in two spawned
processes, one per GPU (all-reduce, broadcast, all-gather, reduce-scatter). NCCL maps its
buffers with the driver's virtual memory management and shares them between the processes
(file descriptors), which cucatch does not track but must leave working. Every value printed
is an exact integer, printed by the parent.
"""
import os
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def rank_main(rank, world, init, results):
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=init, rank=rank, world_size=world)
    dev = f"cuda:{rank}"
    x = torch.arange(1 << 20, device=dev, dtype=torch.int64) % (5 + rank)
    dist.all_reduce(x)
    b = torch.full((1000,), rank + 1, device=dev, dtype=torch.int64)
    dist.broadcast(b, src=1)
    parts = [torch.empty(4096, device=dev, dtype=torch.int64) for _ in range(world)]
    dist.all_gather(parts, torch.arange(4096, device=dev, dtype=torch.int64) * (rank + 1))
    out = torch.empty(2048, device=dev, dtype=torch.int64)
    dist.reduce_scatter(out, [torch.full((2048,), rank * 10 + k, device=dev, dtype=torch.int64) for k in range(world)])
    for step in range(20):  # a few steps of a data-parallel loop: gradients averaged
        g = torch.full((1 << 16,), step + rank, device=dev, dtype=torch.int64)
        dist.all_reduce(g)
        x += g[:1].sum()
    torch.cuda.synchronize()
    results.put((rank, int(x.sum()), int(b.sum()), [int(p.sum()) for p in parts], int(out.sum())))
    dist.destroy_process_group()


def main():
    probe = torch.empty(16, device="cuda:0")
    print("pointers:", "tagged" if probe.data_ptr() >> 56 else "raw", file=sys.stderr)
    del probe

    # Peer copies and work on each device.
    a = torch.arange(1 << 22, device="cuda:0", dtype=torch.int64) % 9
    b = a.to("cuda:1")
    c = (b * 3 + 1).to("cuda:0", non_blocking=True)
    torch.cuda.synchronize("cuda:0")
    torch.cuda.synchronize("cuda:1")
    print("peer", int(a.sum()), int(b.sum()), int((c - a).sum()))
    with torch.cuda.device(1):
        m = (torch.arange(256 * 256, device="cuda:1", dtype=torch.float32) % 5).reshape(256, 256)
        print("gpu1 gemm", int((m @ m).sum()))

    world = 2
    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    with tempfile.TemporaryDirectory() as tmp:
        init = "file://" + os.path.join(tmp, "rendezvous")
        procs = [ctx.Process(target=rank_main, args=(r, world, init, results)) for r in range(world)]
        for p in procs:
            p.start()
        got = sorted(results.get() for _ in range(world))
        for p in procs:
            p.join()
    for r in got:
        print("rank", *r)
    print("exit codes", [p.exitcode for p in procs])


if __name__ == "__main__":
    main()
