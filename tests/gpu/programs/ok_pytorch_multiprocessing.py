# cucatch-expect: clean
# cucatch-expect-raw
# cucatch-needs-module: torch
# cucatch-jit-expect-note: libtorch_cuda.so: not instrumented on sm_90
"""PyTorch across processes, as training scripts use it: CUDA tensors handed to a spawned
process through a torch.multiprocessing queue and back (CUDA IPC: cudaIpcGetMemHandle in the
sender, cudaIpcOpenMemHandle in the receiver, both under cucatch), where the receiver has first
made, used and given back memory of its own (torch.cuda.empty_cache: cudaFree), so that the
driver may map the other process's memory at addresses the receiver freed; and a DataLoader
whose worker processes are forked after the parent has used the GPU, with pinned batches
copied to the GPU without blocking. Every value printed is an exact integer, printed by the
parent.
"""
import sys

import torch
import torch.multiprocessing as mp

N = 1 << 20


def child(inbox, outbox, done):
    dev = "cuda"
    for k in range(4):  # memory of the child's own, used and freed
        t = torch.full((N,), k, device=dev, dtype=torch.int32)
        t.mul_(3)
        assert int(t.sum()) == 3 * k * N
        del t
    torch.cuda.empty_cache()
    x = inbox.get()  # the parent's tensor, opened here
    before = int(x.sum())
    x.add_(1)  # the parent reads the change
    torch.cuda.synchronize()
    mine = torch.arange(N, device=dev, dtype=torch.int64) % 13
    outbox.put((before, int(x.sum()), mine))  # a tensor of the child's for the parent to open
    done.wait()  # (the child keeps `mine` alive while the parent reads it)
    del x


class Rows(torch.utils.data.Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        return torch.arange(i, i + 1000, dtype=torch.int64) % 17


def main():
    dev = "cuda"
    probe = torch.empty(16, device=dev)
    print("pointers:", "tagged" if probe.data_ptr() >> 56 else "raw", file=sys.stderr)
    del probe

    ctx = mp.get_context("spawn")
    inbox, outbox, done = ctx.Queue(), ctx.Queue(), ctx.Event()
    p = ctx.Process(target=child, args=(inbox, outbox, done))
    p.start()
    shared = torch.arange(N, device=dev, dtype=torch.int64) % 7
    inbox.put(shared)
    before, after, theirs = outbox.get()
    print("child saw", before, "then", after)
    print("parent sees the child's change:", int(shared.sum()))
    print("the child's tensor sums to", int(theirs.sum()), "here; doubled", int((theirs * 2).sum()))
    del theirs
    done.set()
    p.join()
    print("child ended", p.exitcode)

    loader = torch.utils.data.DataLoader(Rows(), batch_size=8, num_workers=2, pin_memory=True)
    total = torch.zeros((), device=dev, dtype=torch.int64)
    for batch in loader:
        total += batch.to(dev, non_blocking=True).sum()
    torch.cuda.synchronize()
    print("loader total", int(total))


if __name__ == "__main__":
    main()
