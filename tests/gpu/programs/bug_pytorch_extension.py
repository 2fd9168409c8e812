# cucatch-expect: out-of-bounds write 4 kernel=shift_right
# cucatch-modes: jit
# cucatch-needs-module: torch
"""A PyTorch C++/CUDA extension, built by PyTorch (torch.utils.cpp_extension, with the toolkit's
nvcc, so it embeds PTX for the device), whose kernel writes one element past its output. Only
JIT mode checks it: cucatch never built it. The program first runs PyTorch's precompiled
kernels (which must keep working under JIT mode), then the extension.

The extension is built in a child process without cucatch's runtime preloaded (the compilers
need none of it), then loaded here from the same build directory. PyTorch's caching allocator
is off: it carves tensors out of larger cudaMalloc blocks, and cucatch checks against what
cudaMalloc handed out, so one element past a cached tensor is still inside its block.
"""
import os
import subprocess
import sys
import tempfile

# Its kernel's lines are this file's, so that the report points here (#line).
CUDA_SOURCE = r'''
#line 22 "bug_pytorch_extension.py"
__global__ void shift_right(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i + 1] = in[i];  // cucatch-bug-line
}
#include <torch/extension.h>
torch::Tensor shifted(torch::Tensor in) {
  auto out = torch::zeros_like(in);
  int n = in.numel();
  shift_right<<<(n + 255) / 256, 256>>>(in.data_ptr<float>(), out.data_ptr<float>(), n);
  return out;
}
'''
CPP_SOURCE = "torch::Tensor shifted(torch::Tensor in);"


def extension(build_directory):
    from torch.utils.cpp_extension import load_inline
    return load_inline("cucatch_shift", cpp_sources=CPP_SOURCE, cuda_sources=CUDA_SOURCE, functions=["shifted"],
                       build_directory=build_directory, extra_cuda_cflags=["-lineinfo"], verbose=False)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--build":
        extension(sys.argv[2])
        sys.exit(0)
    os.environ["PYTORCH_NO_CUDA_MEMORY_CACHING"] = "1"
    import torch
    # With PTX for the device ("+PTX"): by default PyTorch builds an extension for Hopper as
    # sm_90a SASS only, which JIT mode cannot instrument (it says so, and runs it unchecked). Set
    # here for the load below too, which would build it again if its flags differed.
    major, minor = torch.cuda.get_device_capability()
    os.environ["TORCH_CUDA_ARCH_LIST"] = f"{major}.{minor}+PTX"
    with tempfile.TemporaryDirectory() as build:
        env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        subprocess.run([sys.executable, __file__, "--build", build], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        x = torch.arange(1000, device="cuda", dtype=torch.float32)
        print("precompiled:", float((x * 2).sum()), float(torch.cumsum(x, 0)[-1]))
        y = extension(build).shifted(x)
        torch.cuda.synchronize()
        print("extension:", float(y[1:].sum()))
