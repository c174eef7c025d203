// How a copy of the fake lab runner carries its own arguments: appended to the executable as
// the magic, the space-separated arguments, and their length in 4 bytes. A copy is then one
// self-contained file, like a real lab executable, which is all a sandboxed run sees.
#pragma once

namespace convlab::testing {

inline constexpr const char* kFakeArgsMagic = "\n#convlab-fake-args#";

}  // namespace convlab::testing
