#!/usr/bin/env python3
"""Writes a synthetic PTX module of about SIZE megabytes, shaped like nvcc -O3 output:
kernels with parameter loads, address arithmetic, global/shared loads and stores, vector
accesses, predicated branches, loops, atomics and device-function calls.

Usage: gen-synthetic-ptx.py OUT.ptx [--mb 50] [--arch sm_80]
"""
import argparse

FUNC = """
.func  (.param .b32 func_retval0) helper_{n}(
	.param .b64 helper_{n}_param_0,
	.param .b32 helper_{n}_param_1
)
{{
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<4>;
	ld.param.u64 	%rd1, [helper_{n}_param_0];
	ld.param.u32 	%r1, [helper_{n}_param_1];
	mul.wide.s32 	%rd2, %r1, 4;
	add.s64 	%rd3, %rd1, %rd2;
	ld.u32 	%r2, [%rd3];
	add.s32 	%r3, %r2, {n};
	st.param.b32 	[func_retval0], %r3;
	ret;

}}
"""

KERNEL_HEAD = """
	// .globl	kernel_{n}
.visible .entry kernel_{n}(
	.param .u64 .ptr .align 1 kernel_{n}_param_0,
	.param .u64 .ptr .align 1 kernel_{n}_param_1,
	.param .u32 kernel_{n}_param_2
)
.maxntid 256, 1, 1
{{
	.reg .pred 	%p<8>;
	.reg .b32 	%r<64>;
	.reg .f32 	%f<64>;
	.reg .b64 	%rd<64>;
	.shared .align 16 .b8 tile_{n}[4096];
	ld.param.u64 	%rd1, [kernel_{n}_param_0];
	ld.param.u64 	%rd2, [kernel_{n}_param_1];
	ld.param.u32 	%r1, [kernel_{n}_param_2];
	cvta.to.global.u64 	%rd3, %rd1;
	cvta.to.global.u64 	%rd4, %rd2;
	mov.u32 	%r2, %ctaid.x;
	mov.u32 	%r3, %ntid.x;
	mov.u32 	%r4, %tid.x;
	mad.lo.s32 	%r5, %r2, %r3, %r4;
	setp.ge.s32 	%p1, %r5, %r1;
	@%p1 bra 	$L__BB{n}_9;
	mov.u32 	%r6, 0;
"""

BLOCK = """	mul.wide.s32 	%rd{a}, %r5, 16;
	add.s64 	%rd{b}, %rd3, %rd{a};
	ld.global.nc.v4.f32 	{{%f1, %f2, %f3, %f4}}, [%rd{b}+{off}];
	fma.rn.f32 	%f5, %f1, 0f3F800000, %f2;
	fma.rn.f32 	%f6, %f3, 0f40000000, %f4;
	add.f32 	%f7, %f5, %f6;
	shl.b32 	%r7, %r4, 2;
	mov.u32 	%r8, tile_{n};
	add.s32 	%r9, %r8, %r7;
	st.shared.f32 	[%r9], %f7;
	bar.sync 	0;
	ld.shared.f32 	%f8, [%r9+4];
	add.s64 	%rd{c}, %rd4, %rd{a};
	st.global.f32 	[%rd{c}+{off}], %f8;
	atom.global.add.u32 	%r10, [%rd{c}], 1;
	setp.lt.u32 	%p2, %r10, {off};
	@%p2 bra 	$L__BB{n}_{lab};
	add.s32 	%r6, %r6, %r10;
$L__BB{n}_{lab}:
"""

KERNEL_TAIL = """	{{ // callseq {n}, 0
	.param .b64 param0;
	st.param.b64 	[param0], %rd4;
	.param .b32 param1;
	st.param.b32 	[param1], %r6;
	.param .b32 retval0;
	call.uni (retval0),
	helper_{n},
	(
	param0,
	param1
	);
	ld.param.b32 	%r11, [retval0];
	}} // callseq {n}
	st.global.u32 	[%rd4], %r11;
$L__BB{n}_9:
	ret;

}}
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--mb", type=float, default=50)
    ap.add_argument("--arch", default="sm_80")
    a = ap.parse_args()
    target = int(a.mb * 1e6)
    parts = [f"//\n// Synthetic PTX for cucatch's front-end benchmark\n//\n\n.version 8.0\n.target {a.arch}\n.address_size 64\n"]
    size = len(parts[0])
    n = 0
    while size < target:
        chunk = [FUNC.format(n=n), KERNEL_HEAD.format(n=n)]
        for k in range(8):
            chunk.append(BLOCK.format(n=n, a=10 + 3 * k, b=11 + 3 * k, c=12 + 3 * k, off=16 * k, lab=10 + k))
        chunk.append(KERNEL_TAIL.format(n=n))
        text = "".join(chunk)
        parts.append(text)
        size += len(text)
        n += 1
    with open(a.out, "w") as f:
        f.write("".join(parts))
    print(f"{a.out}: {size} bytes, {n} kernels")


if __name__ == "__main__":
    main()
