// cucatch-expect: null-pointer-dereference read 4 kernel=sum_list
// A linked list in device memory walked one node too far: the last node's next pointer is null
// (read from memory), and the field at offset 8 of that null node is read.
#include <vector>

#include "common.h"

struct Node {
  Node* next;
  int value;
};

__global__ void sum_list(const Node* head, int nodes, int* out) {
  int s = 0;
  const Node* n = head;
  for (int k = 0; k <= nodes; ++k) {  // one step too many
    s += n->value;  // cucatch-bug-line
    n = n->next;
  }
  *out = s;
}

int main() {
  const int nodes = 8;
  Node* d;
  int* out;
  CHECK(cudaMalloc(&d, nodes * sizeof(Node)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  std::vector<Node> h(nodes);
  for (int k = 0; k < nodes; ++k) h[k] = {k + 1 < nodes ? d + k + 1 : nullptr, k};
  CHECK(cudaMemcpy(d, h.data(), nodes * sizeof(Node), cudaMemcpyHostToDevice));
  sum_list<<<1, 1>>>(d, nodes, out);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
