// cucatch-expect: clean
// Pointers that flow through memory in instrumented code: device-side new/delete of objects
// with virtual functions (indirect calls), function pointers, placement new into a shared
// buffer, a vector that grows on the device heap. Launched with 1024 threads per block, as the
// new/delete sample does (its kernels grew past 64 registers through the indirect calls).
#include <new>
#include "common.h"
struct Shape {
  __device__ virtual ~Shape() {}
  __device__ virtual float area() const = 0;
};
struct Square : Shape {
  float side;
  __device__ explicit Square(float s) : side(s) {}
  __device__ float area() const override { return side * side; }
};
struct Circle : Shape {
  float radius;
  __device__ explicit Circle(float r) : radius(r) {}
  __device__ float area() const override { return 3.0f * radius * radius; }
};
template <class T>
struct Vector {
  T* items = nullptr;
  int size = 0, capacity = 0;
  __device__ void push(const T& v) {
    if (size == capacity) {
      int grown = capacity ? capacity * 2 : 2;
      T* more = new T[grown];
      for (int i = 0; i < size; ++i) more[i] = items[i];
      delete[] items;
      items = more;
      capacity = grown;
    }
    items[size++] = v;
  }
  __device__ ~Vector() { delete[] items; }
};
__device__ float twice(float v) { return 2 * v; }
__device__ float half(float v) { return v / 2; }
__global__ void shapes(Shape** slots, float* areas, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  slots[i] = i % 2 ? static_cast<Shape*>(new Circle(i % 5)) : new Square(i % 7);
  areas[i] = slots[i] ? slots[i]->area() : -1.0f;
}
__global__ void release(Shape** slots, float* areas, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float (*f)(float) = i % 3 ? twice : half;
  if (slots[i]) areas[i] = f(slots[i]->area());
  delete slots[i];
}
__global__ void placement(int* out) {
  __shared__ alignas(Vector<int>) unsigned char buffer[1024][sizeof(Vector<int>)];
  Vector<int>* v = new (buffer[threadIdx.x]) Vector<int>();
  for (int k = 0; k <= threadIdx.x % 9; ++k) v->push(k * k);
  int s = 0;
  for (int k = 0; k < v->size; ++k) s += v->items[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  v->~Vector<int>();
}
int main() {
  const int n = 4096;
  CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 64 << 20));
  Shape** slots;
  float* areas;
  int* out;
  CHECK(cudaMalloc(&slots, n * sizeof(Shape*)));
  CHECK(cudaMalloc(&areas, n * 4));
  CHECK(cudaMalloc(&out, n * 4));
  shapes<<<n / 1024, 1024>>>(slots, areas, n);
  CHECK(cudaGetLastError());
  release<<<n / 1024, 1024>>>(slots, areas, n);
  CHECK(cudaGetLastError());
  placement<<<n / 1024, 1024>>>(out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  static float ha[n];
  static int ho[n];
  CHECK(cudaMemcpy(ha, areas, sizeof ha, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(ho, out, sizeof ho, cudaMemcpyDeviceToHost));
  double s = 0;
  long t = 0;
  for (int i = 0; i < n; ++i) s += ha[i], t += ho[i];
  std::printf("areas %.1f vectors %ld\n", s, t);
}
