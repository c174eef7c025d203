#include "convlab/fresh_inputs.hpp"

namespace convlab::fresh {

std::vector<int> call_order(std::uint64_t seed, int calls) {
  std::vector<int> order;
  order.reserve(calls > 0 ? static_cast<std::size_t>(calls) : 0);
  int previous = -1;
  for (int i = 0; i < calls; ++i) {
    const std::uint64_t h = mix(mix(seed ^ 0x6F72646572ull) + static_cast<std::uint64_t>(i));
    // After the first call, one of the other kDistinctInputs − 1 inputs: never a repeat.
    const int next = previous < 0 ? static_cast<int>(h % kDistinctInputs)
                                  : (previous + 1 + static_cast<int>(h % (kDistinctInputs - 1))) % kDistinctInputs;
    order.push_back(next);
    previous = next;
  }
  return order;
}

void fill_host(std::uint64_t seed, int input, Tensor tensor, float* out, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) out[i] = value(seed, input, tensor, i);
}

}  // namespace convlab::fresh
