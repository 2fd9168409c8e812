#include <cub/cub.cuh>
void sort_pairs(void* tmp, size_t& bytes, const unsigned* kin, unsigned* kout, const int* vin, int* vout, int n) {
  cub::DeviceRadixSort::SortPairs(tmp, bytes, kin, kout, vin, vout, n);
}
