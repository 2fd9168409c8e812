# cucatch-expect: clean
# cucatch-expect-raw
# cucatch-needs-module: torch
# cucatch-jit-expect-note: libtorch_cuda.so: not instrumented on sm_90
# cucatch-jit-expect-note: JIT mode leaves the CUDA libraries' own kernels uninstrumented
# cucatch-jit-expect-note: not instrumented: a cubin
"""PyTorch on the GPU (no cucatch instrumentation: every kernel is precompiled or generated
by Triton) must give the same results under the cucatch runtime as without it. PyTorch's
caching allocator (libc10_cuda, a precompiled library) makes the allocations, so its pointers
stay raw (docs/runtime.md): its kernels may keep them in device memory. Covered: cuBLAS /
cuBLASLt GEMMs in float32 and bf16 (Hopper TMA kernels), cuDNN convolution, sort, reductions, indexing, a few optimizer steps (multi-tensor kernels whose
arguments hold pointer arrays), a transformer layer forward and backward under bf16 autocast
(flash attention), a CUDA graph captured and replayed, and a torch.compile'd function (Triton
kernels loaded with cuModuleLoadData).

Inputs are small integers where the operation is exact, so the printed values must match to
the last digit between the two runs; elsewhere a fixed seed and deterministic algorithms.
"""
import os
import sys

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # what deterministic cuBLAS needs
import torch  # noqa: E402

torch.manual_seed(0)
# Where an operation has no deterministic algorithm, a warning (stderr) rather than an error.
torch.use_deterministic_algorithms(True, warn_only=True)
dev = "cuda"


def ints(*shape, mod=7, dtype=torch.float32):
    return (torch.randint(0, mod, shape, device=dev) - mod // 2).to(dtype)


a, b = ints(513, 257), ints(257, 129)
# Under cucatch the tensors' device pointers stay raw: PyTorch's allocator is a precompiled
# library (stderr, not compared: the runner wants "pointers: raw" there).
print("pointers:", "tagged" if a.data_ptr() >> 56 else "raw", file=sys.stderr)
print("fp32 gemm", float((a @ b).sum()))
x, y = ints(4096, 1024, dtype=torch.bfloat16), ints(1024, 2048, dtype=torch.bfloat16)
print("bf16 gemm", float((x @ y).float().sum()))
batch = torch.bmm(ints(8, 128, 64), ints(8, 64, 96))
print("bmm", float(batch.sum()))
img, w = ints(8, 3, 32, 32), ints(16, 3, 3, 3)
print("conv2d", float(torch.nn.functional.conv2d(img, w, padding=1).sum()))
v = torch.randn(100003, device=dev)
print("sort", torch.sort(v).values[::20000].tolist())
print("topk", torch.topk(v, 5).values.tolist())
idx = torch.randint(0, 100003, (5000,), device=dev)
print("gather", float(v[idx].sum()))
print("cumsum", float(ints(10000).cumsum(0)[-1]))

model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10)).to(dev)
opt = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=True)
data, target = torch.randn(256, 64, device=dev), torch.randint(0, 10, (256,), device=dev)
for step in range(5):
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(data), target)
    loss.backward()
    opt.step()
print("adam loss", round(float(loss), 5))

layer = torch.nn.TransformerEncoderLayer(256, 8, 1024, batch_first=True, dropout=0.0).to(dev)
tokens = torch.randn(16, 128, 256, device=dev, requires_grad=True)
with torch.autocast("cuda", dtype=torch.bfloat16):
    out = layer(tokens)
(out.float() * torch.randn(16, 128, 256, device=dev)).sum().backward()  # (a plain sum of a LayerNorm's output has no gradient)
# Rounded: flash attention's backward accumulates with atomics.
print("transformer", round(float(out.detach().float().abs().mean()), 3), round(float(tokens.grad.norm()), 1))

square = torch.randn(1024, 1024, device=dev)
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    for _ in range(2):  # warm-up outside the capture, as CUDA graphs require
        product = square @ square
torch.cuda.current_stream().wait_stream(side)
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):
    product = square @ square
square.copy_(ints(1024, 1024))
graph.replay()
print("cuda graph", float(product.sum()))

fused = torch.compile(lambda p, q: torch.relu(p * 2 + q).sum(dim=1))
p, q = ints(4096, 512), ints(4096, 512)
print("torch.compile", float(fused(p, q).sum()), float(torch.relu(p * 2 + q).sum(dim=1).sum()))
torch.cuda.synchronize()
print("done")
