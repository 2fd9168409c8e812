# cucatch-expect: clean
# cucatch-needs-module: torch
# cucatch-jit-expect-note: libtorch_cuda.so: not instrumented on sm_90
# cucatch-jit-expect-note: JIT mode leaves the CUDA libraries' own kernels uninstrumented
"""PyTorch with expandable segments (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True): the
caching allocator maps physical memory into a reserved range with the driver's virtual memory
management API (cuMemCreate, cuMemMap), which cucatch does not track. Results must be the
same under the cucatch runtime as without it, across growth of the segment and tensors that
span mappings.
"""
import os

os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"
os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
import torch  # noqa: E402

torch.manual_seed(0)
torch.use_deterministic_algorithms(True, warn_only=True)
dev = "cuda"


def ints(*shape, mod=7):
    return (torch.randint(0, mod, shape, device=dev) - mod // 2).float()


chunks = []
for k in range(12):  # grows the segment several times
    chunks.append(ints(1 << 18, 8))
    print("chunk", k, float(chunks[-1].sum()))
big = torch.cat(chunks)  # one tensor across the mappings
print("cat", float(big.sum()), float((big @ ints(8, 4)).sum()))
del chunks
a, b = ints(1024, 512), ints(512, 256)
print("gemm", float((a @ b).sum()))
print("sort", float(torch.sort(big[:, 0]).values[::100000].sum()))
model = torch.nn.Linear(256, 64).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = ints(512, 256)
for _ in range(3):
    opt.zero_grad()
    model(x).square().mean().backward()
    opt.step()
print("sgd", round(float(model(x).square().mean()), 4))
torch.cuda.synchronize()
print("done")
