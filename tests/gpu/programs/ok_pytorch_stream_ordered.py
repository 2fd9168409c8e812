# cucatch-expect: clean
# cucatch-expect-raw
# cucatch-needs-module: torch
# cucatch-jit-expect-note: libtorch_cuda.so: not instrumented on sm_90
# cucatch-jit-expect-note: JIT mode leaves the CUDA libraries' own kernels uninstrumented
"""PyTorch with its cudaMallocAsync backend (PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync):
every tensor's memory comes from cudaMallocAsync on the stream current when it was made and goes
back by cudaFreeAsync, so a real program drives the path where cucatch keeps a stream-ordered
allocation's and free's table changes pending until a call could order a kernel after them
(docs/design.md, "Kept pending until something could see them"). Covered, on side streams (the
default stream keeps nothing pending): allocations made and dropped with no kernel between
them, hundreds pending at once, tensors made on one stream and used on another after an event
(record_stream), inputs dropped while the kernels reading them still run, pinned copies with
non_blocking, two host threads each on a stream of its own, and a CUDA graph captured on a side
stream and replayed. The caching allocator is a precompiled library, so its pointers stay raw
(docs/runtime.md): the allocations have no direct tag, and a free of one still pending sends
its mapping ahead of the real free.

Inputs are small integers, so every printed value is exact and must match between the runs.
"""
import os
import sys
import threading

os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "backend:cudaMallocAsync"
import torch  # noqa: E402

torch.manual_seed(0)
torch.backends.cuda.matmul.allow_tf32 = False  # exact float32 GEMMs of small integers
dev = "cuda"
print("backend", torch.cuda.get_allocator_backend())


def ints(*shape, mod=7, **kw):
    return (torch.randint(0, mod, shape, device=dev, **kw) - mod // 2).float()


s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()

# Allocations and frees with nothing between them, then with kernels between them.
with torch.cuda.stream(s1):
    probe = torch.empty(16, device=dev)
    # Raw under cucatch (stderr, not compared: the runner wants "pointers: raw" there).
    print("pointers:", "tagged" if probe.data_ptr() >> 56 else "raw", file=sys.stderr)
    del probe
    for k in range(300):
        e = torch.empty(1 << (10 + k % 8), device=dev)
        del e
    kept = [torch.empty(4096, device=dev) for _ in range(300)]  # pending at once
    for i, t in enumerate(kept):
        t.fill_(i % 5)
    print("kept", float(sum(t.sum() for t in kept[::7])))
    del kept
    acc = torch.zeros(1 << 16, device=dev)
    for k in range(40):
        t = ints(1 << 16)
        acc += t * (k % 3)
        del t
    print("acc", float(acc.sum()), float(acc.abs().max()))

# Made on s1, used on s2 after an event, dropped while s2 still reads it.
with torch.cuda.stream(s1):
    a = ints(2048, 2048)
    b = ints(2048, 2048)
done = torch.cuda.Event()
done.record(s1)
with torch.cuda.stream(s2):
    s2.wait_event(done)
    c = a @ b  # a long GEMM: its inputs are freed while it runs
    a.record_stream(s2)
    b.record_stream(s2)
    del a, b
    d = c.sum(dim=1, dtype=torch.float64)
    print("gemm", float(d.sum()), float(d.abs().max()))

# Pinned copies on a side stream.
host = torch.arange(1 << 20, dtype=torch.float32).pin_memory()
with torch.cuda.stream(s2):
    g = host.to(dev, non_blocking=True)
    g = (g % 11) - 5
    back = torch.empty(g.shape, pin_memory=True)
    back.copy_(g, non_blocking=True)
s2.synchronize()
print("pinned", float(back.sum()), float(back[::4097].abs().sum()))


# Two host threads, each on a stream of its own.
results = {}


def worker(name, seed):
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        gen = torch.Generator(device=dev).manual_seed(seed)
        total = torch.zeros((), device=dev, dtype=torch.float64)
        for _ in range(50):
            x = ints(512, 64, generator=gen)
            y = ints(64, 32, generator=gen)
            total += (x @ y).sum(dtype=torch.float64)
            del x, y
        s.synchronize()
        results[name] = float(total)


threads = [threading.Thread(target=worker, args=(f"t{i}", 10 + i)) for i in range(2)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("threads", results["t0"], results["t1"])

# A CUDA graph captured on a side stream (allocations inside the capture are the graph's) and
# replayed.
static_in = ints(1024)
capture = torch.cuda.Stream()
capture.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(capture):
    for _ in range(2):  # warm up outside the capture
        static_out = (static_in * 3 + 1).cumsum(0)
torch.cuda.current_stream().wait_stream(capture)
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):
    static_out = (static_in * 3 + 1).cumsum(0)
sums = []
for k in range(3):
    static_in.copy_(ints(1024))
    graph.replay()
    sums.append(float(static_out.sum()))
print("graph", sums)

torch.cuda.synchronize()
print("done")
