// The other unit of ok_rdc_weak_instance: an explicit instantiation of a device function
// template, which nvcc emits as a .weak function.
template <class T>
__device__ __noinline__ void store_twice(T* p, T v) {
  p[0] = v;
  p[1] = v + v;
}
template __device__ void store_twice<int>(int*, int);
