#include "build/host_code_rules.hpp"

#include <string_view>

namespace convlab::grader {

namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// The CUDA runtime a lab needs: memory, symbols, launches, attributes, errors, device facts.
// Not here, on purpose: streams, events, graphs and host callbacks (work or clocks outside the
// stream the harness times), device reset and flags, IPC, the driver API.
constexpr std::string_view kCudaRuntime[] = {
    "cudaGetLastError", "cudaPeekAtLastError", "cudaGetErrorString", "cudaGetErrorName",
    "cudaMalloc", "cudaFree", "cudaMallocAsync", "cudaFreeAsync", "cudaMallocPitch",
    "cudaMemcpy", "cudaMemcpyAsync", "cudaMemcpy2D", "cudaMemcpy2DAsync", "cudaMemset", "cudaMemsetAsync",
    "cudaMemset2D", "cudaMemcpyToSymbol", "cudaMemcpyToSymbolAsync", "cudaMemcpyFromSymbol",
    "cudaMemcpyFromSymbolAsync", "cudaGetSymbolAddress", "cudaGetSymbolSize",
    "cudaFuncSetAttribute", "cudaFuncGetAttributes", "cudaFuncSetCacheConfig", "cudaFuncSetSharedMemConfig",
    "cudaOccupancyMaxActiveBlocksPerMultiprocessor", "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
    "cudaOccupancyMaxPotentialBlockSize", "cudaOccupancyAvailableDynamicSMemPerBlock",
    "cudaGetDevice", "cudaGetDeviceCount", "cudaGetDeviceProperties", "cudaGetDeviceProperties_v2",
    "cudaDeviceGetAttribute", "cudaMemGetInfo", "cudaPointerGetAttributes", "cudaDeviceSynchronize",
    "cudaLaunchKernel", "cudaLaunchKernelExC", "cudaLaunchCooperativeKernel", "cudaGetKernel"};

// The C and C++ run-time support every compiled C++ file may need, memory and string
// functions, printing to the console, and the math library.
constexpr std::string_view kCLibrary[] = {
    "_Unwind_Resume", "__gxx_personality_v0", "__cxa_begin_catch", "__cxa_end_catch", "__cxa_rethrow",
    "__cxa_allocate_exception", "__cxa_free_exception", "__cxa_throw", "__cxa_guard_acquire",
    "__cxa_guard_release", "__cxa_guard_abort", "__cxa_pure_virtual", "__cxa_atexit", "__cxa_call_terminate",
    "__dso_handle", "__stack_chk_fail", "_GLOBAL_OFFSET_TABLE_", "__cxa_thread_atexit", "memchr",
    "__libc_single_threaded", "__errno_location", "strtod", "strtof", "strtol", "strtoul", "strtoll", "strtoull", "__assert_fail", "abort", "__cxa_throw_bad_array_new_length",
    "memcpy", "memmove", "memset", "memcmp", "strlen", "strcmp", "strncmp", "strcpy", "strncpy", "strchr",
    "strrchr", "strstr", "malloc", "calloc", "realloc", "free", "posix_memalign", "aligned_alloc",
    "printf", "puts", "putchar", "fprintf", "fputs", "fputc", "fwrite", "fflush", "snprintf", "sprintf",
    "vsnprintf", "vfprintf", "stdout", "stderr", "__printf_chk", "__fprintf_chk", "__sprintf_chk",
    "__snprintf_chk", "__vsnprintf_chk", "__memcpy_chk", "__memset_chk", "__memmove_chk", "__strcpy_chk",
    "sqrt", "sqrtf", "cbrt", "cbrtf", "exp", "expf", "exp2", "exp2f", "log", "logf", "log2", "log2f", "pow", "powf",
    "fabs", "fabsf", "floor", "floorf", "ceil", "ceilf", "round", "roundf", "lround", "lroundf", "fmin", "fminf",
    "fmax", "fmaxf", "fmod", "fmodf", "sin", "cos", "tanh"};

// C++ names refused, by the start of their demangled form: threads, processes' clocks, files,
// dynamic loading, and ways out of the process.
struct Refusal {
  std::string_view prefix;
  std::string_view why;
};
constexpr Refusal kCxxRefused[] = {
    {"std::thread", "threads: work the harness does not wait for"},
    {"std::jthread", "threads: work the harness does not wait for"},
    {"std::this_thread", "sleeping or yielding: the harness times the lab, not the other way round"},
    {"std::__future_base", "std::async and futures: work outside the timed call"},
    {"std::async", "std::async: work outside the timed call"},
    {"std::filesystem", "files: a lab reads its inputs from the harness only"},
    {"std::basic_ifstream", "files: a lab reads its inputs from the harness only"},
    {"std::basic_ofstream", "files: a lab writes its output into the harness's buffer only"},
    {"std::basic_fstream", "files: a lab reads and writes through the harness only"},
    {"std::basic_filebuf", "files: a lab reads and writes through the harness only"},
    {"std::chrono::_V2::system_clock::now", "clocks: timing is the harness's"},
    {"std::chrono::_V2::steady_clock::now", "clocks: timing is the harness's"},
    {"std::chrono::_V2::high_resolution_clock::now", "clocks: timing is the harness's"},
    {"std::exit", "ending the process: the harness's job"},
};

// Why a C name outside the lists is refused, for the families a student is likely to try.
std::string refusal_of_c_name(const std::string& name) {
  struct Family {
    std::string_view prefix;
    std::string_view why;
  };
  static constexpr Family kFamilies[] = {
      {"cudaStream", "creating or using streams: the harness times the default stream, so all work goes there"},
      {"cudaEvent", "CUDA events: timing is the harness's"},
      {"cudaGraph", "CUDA graphs: work outside the timed call"},
      {"cudaLaunchHostFunc", "host callbacks: work outside the timed call"},
      {"cudaDevice", "device-wide settings: the harness's"},
      {"cudaSetDevice", "choosing the GPU: the harness's"},
      {"cudaIpc", "sharing memory with other processes"},
      {"cuda", "a CUDA runtime call outside the lab's API (grader/README.md lists it)"},
      {"cu", "the CUDA driver API: a lab uses the runtime's calls listed in grader/README.md"},
      {"pthread_", "threads: work the harness does not wait for"},
      {"fork", "processes"}, {"vfork", "processes"}, {"exec", "processes"}, {"posix_spawn", "processes"},
      {"system", "processes"}, {"popen", "processes"},
      {"dl", "loading code at run time"},
      {"clock", "clocks: timing is the harness's"}, {"gettimeofday", "clocks: timing is the harness's"},
      {"time", "clocks: timing is the harness's"},
      {"syscall", "raw system calls"},
      {"signal", "signals"}, {"sigaction", "signals"},
  };
  for (const Family& f : kFamilies) {
    if (starts_with(name, f.prefix)) return std::string(f.why);
  }
  if (name == "atexit" || name == "on_exit" || name == "at_quick_exit") {
    return "exit hooks: code that runs after the harness has reported";
  }
  if (name == "exit" || name == "_exit" || name == "_Exit" || name == "quick_exit" || name == "kill" || name == "raise") {
    return "ending the process: the harness's job";
  }
  for (std::string_view io : {"open", "fopen", "creat", "read", "write", "close", "unlink", "rename", "mmap", "ioctl",
                              "socket", "connect", "dup", "pipe"}) {
    if (starts_with(name, io)) return "files, sockets and descriptors: a lab reads and writes through the harness only";
  }
  return "not a call that a lab needs (if yours does, ask your instructor to add it to grader/build/host_code_rules.cpp)";
}

}  // namespace

bool is_nvcc_registration(const std::string& function) { return function == "_ZL24__sti____cudaRegisterAllv"; }

std::optional<std::string> refused_call(const std::string& name, const std::string& demangled) {
  if (starts_with(name, "__cuda") || starts_with(name, "__nv")) return std::nullopt;  // nvcc's own glue
  if (starts_with(name, "_Z")) {
    for (const Refusal& r : kCxxRefused) {
      if (starts_with(demangled, r.prefix)) return std::string(r.why);
    }
    return std::nullopt;
  }
  for (std::string_view ok : kCudaRuntime) {
    if (name == ok) return std::nullopt;
  }
  for (std::string_view ok : kCLibrary) {
    if (name == ok) return std::nullopt;
  }
  return refusal_of_c_name(name);
}

std::optional<std::string> refused_definition(const std::string& name, const std::string& demangled, bool strong,
                                              bool function, bool harness_defines) {
  if (starts_with(name, "__cuda") || starts_with(name, "__nv") || starts_with(name, "__fatbinwrap") ||
      starts_with(name, "__sti__")) {
    return std::nullopt;  // nvcc's glue
  }
  if (!starts_with(name, "_Z")) {
    // A variable at namespace scope is not mangled either: only a reserved name is suspect.
    if (function) {
      return "a C-linkage function could stand in for a library's function of the same name (extern \"C\" is not "
             "needed by any lab)";
    }
    if (starts_with(name, "_") || name == "stdout" || name == "stderr" || name == "stdin" || name == "environ") {
      return "a variable with a name reserved for the C library";
    }
    return std::nullopt;
  }
  if (strong && (starts_with(demangled, "std::") || starts_with(demangled, "operator new") ||
                 starts_with(demangled, "operator delete"))) {
    return "replaces a standard library function";
  }
  if (strong && harness_defines) return "replaces a function of the harness the labs share (common/)";
  return std::nullopt;
}

}  // namespace convlab::grader
