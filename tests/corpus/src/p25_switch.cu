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
