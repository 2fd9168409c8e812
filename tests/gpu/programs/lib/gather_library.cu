// Device code of a static library built by plain nvcc (ok_library_reads_pointer_from_memory.cu):
// its kernel reads the buffers' addresses from a job description in device memory, where no
// launch can untag them.
struct GatherJob {
  const float* source;
  float* destination;
  int n;
};
__global__ void library_gather(const GatherJob* job) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < job->n) job->destination[i] = 2.0f * job->source[i];
}
void launch_library_gather(const GatherJob* job, int n) { library_gather<<<(n + 255) / 256, 256>>>(job); }
