// corpus-nvrtc: 124 118
// Dense switches (a bytecode interpreter and a 32-way dispatch) and a switch over sparse
// values. NVVM lowers them to compare/branch trees; it does not write brx.idx jump tables
// (p45_asm_directives has one written by hand).
__global__ void interpret(const int* code, int* regs, int steps) {
  int pc = 0, acc = 0;
  for (int s = 0; s < steps; ++s) {
    int op = code[pc];
    switch (op) {
      case 0: acc += 1; break;
      case 1: acc -= 3; break;
      case 2: acc *= 2; break;
      case 3: acc ^= 0x55; break;
      case 4: acc = regs[acc & 7]; break;
      case 5: regs[acc & 7] = acc; break;
      case 6: pc = acc & 15; continue;
      case 7: acc >>= 1; break;
      case 8: acc |= 16; break;
      case 9: acc = -acc; break;
      default: return;
    }
    pc = (pc + 1) & 15;
  }
  regs[threadIdx.x & 7] = acc;
}

__device__ __noinline__ float dispatch32(int op, float a, float b) {
  switch (op & 31) {
    case 0: return a + b;        case 1: return a - b;        case 2: return a * b;        case 3: return a / b;
    case 4: return fminf(a, b);  case 5: return fmaxf(a, b);  case 6: return sqrtf(a);     case 7: return -a;
    case 8: return a * a;        case 9: return b * b;        case 10: return fabsf(a);    case 11: return floorf(a);
    case 12: return ceilf(b);    case 13: return a * 0.5f;    case 14: return b * 2.f;     case 15: return a + 1.f;
    case 16: return b - 1.f;     case 17: return expf(a);     case 18: return logf(b);     case 19: return sinf(a);
    case 20: return cosf(b);     case 21: return tanf(a);     case 22: return a - 2.f * b; case 23: return fmaf(a, b, 1.f);
    case 24: return rintf(a);    case 25: return truncf(b);   case 26: return a * 3.f;     case 27: return b / 3.f;
    case 28: return powf(a, b);  case 29: return atanf(a);    case 30: return 0.f;         default: return 1.f;
  }
}

__global__ void alu(const int* ops, const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = dispatch32(ops[i], a[i], b[i]);
}

__global__ void sparse_cases(const int* keys, int* out) {
  int k = keys[threadIdx.x], r;
  switch (k) {
    case -1000: r = 1; break;
    case 7: r = 2; break;
    case 4096: r = 3; break;
    case 65537: r = 4; break;
    case 0x7fffffff: r = 5; break;
    default: r = k & 3;
  }
  out[threadIdx.x] = r;
}
