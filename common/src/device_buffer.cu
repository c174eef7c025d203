#include <fmt/format.h>

#include "convlab/device_buffer.cuh"

namespace convlab {

std::string GuardReport::describe(const std::string& buffer_name) const {
  if (clean()) return fmt::format("{}: guard bands intact", buffer_name);
  return fmt::format(
      "out-of-bounds write: {} element(s) written just before {} and {} just after it "
      "(first at element offset {})",
      before, buffer_name, after, first);
}

}  // namespace convlab
