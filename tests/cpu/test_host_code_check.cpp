// A submission's host code may call what a lab needs and nothing else: the rules
// (grader/build/host_code_rules.hpp) one symbol at a time, then the check on objects that g++
// and nvcc really compiled (grader/build/host_code_check.hpp).
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "build/host_code_check.hpp"
#include "build/host_code_rules.hpp"
#include "grader_test_support.hpp"
#include "system/subprocess.hpp"
#include "system/tool_paths.hpp"

using namespace convlab::grader;
using namespace convlab::grader::testing;
namespace fs = std::filesystem;

namespace {

// The tools as they are (the grader runs them in the compile sandbox).
const ToolRunner kPlainTools = [](const std::vector<std::string>& argv, std::string* error) {
  std::vector<std::string> resolved = argv;
  if (const auto p = find_tool(argv.front())) resolved.front() = p->string();
  const ProcessResult p = run_process(resolved, std::chrono::seconds(60));
  if (p.exit_code != 0) *error = p.output;
  return p.output;
};

fs::path compile(const TempDir& tmp, const std::string& name, const std::string& source) {
  const fs::path src = tmp.path() / (name + ".cpp");
  const fs::path obj = tmp.path() / (name + ".o");
  write_test_file(src, source);
  const ProcessResult p = run_process({find_tool("g++").value().string(), "-std=c++17", "-O1", "-pthread", "-c",
                                       src.string(), "-o", obj.string()},
                                      std::chrono::seconds(120));
  INFO(p.output);
  REQUIRE(p.exit_code == 0);
  return obj;
}

bool names(const HostCodeReport& r, const std::string& symbol_part) {
  for (const HostCodeFinding& f : r.findings) {
    if (f.symbol.find(symbol_part) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("host code rules: the lab's API is allowed", "[hostcode]") {
  for (const char* ok : {"cudaMalloc", "cudaMemcpyToSymbol", "cudaFuncSetAttribute", "cudaGetLastError", "memcpy",
                         "sqrtf", "printf", "__cudaPushCallConfiguration", "__cxa_guard_acquire"}) {
    INFO(ok);
    CHECK_FALSE(refused_call(ok, ok));
  }
  CHECK_FALSE(refused_call("_ZNSt6vectorIfSaIfEE17_M_realloc_insertIJRKfEEEvN9__gnu_cxx17__normal_iteratorIPfS1_EEDpOT_",
                           "void std::vector<float, std::allocator<float> >::_M_realloc_insert<float const&>(...)"));
}

TEST_CASE("host code rules: processes, threads, files, streams, clocks and exit hooks are refused, with a reason",
          "[hostcode]") {
  for (const char* bad : {"pthread_create", "fork", "execve", "system", "popen", "dlopen", "syscall", "fopen", "open",
                          "write", "clock_gettime", "cudaStreamCreateWithFlags", "cudaEventRecord", "cudaGraphLaunch",
                          "cudaLaunchHostFunc", "cuLaunchKernel", "atexit", "on_exit", "exit", "kill", "socket",
                          "cudaHostAlloc", "getenv"}) {
    INFO(bad);
    const auto why = refused_call(bad, bad);
    REQUIRE(why);
    CHECK_FALSE(why->empty());
  }
  CHECK_THAT(*refused_call("cudaStreamCreateWithFlags", "cudaStreamCreateWithFlags"), Catch::Contains("stream"));
  CHECK_THAT(*refused_call("_ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateESt14default_deleteIS1_EEPFvvE",
                           "std::thread::_M_start_thread(...)"),
             Catch::Contains("threads"));
  CHECK(refused_call("_ZNSt6chrono3_V212steady_clock3nowEv", "std::chrono::_V2::steady_clock::now()"));
}

TEST_CASE("host code rules: a definition may not stand in for a library's or the harness's", "[hostcode]") {
  CHECK(refused_definition("clock_gettime", "clock_gettime", true, true, false));
  CHECK(refused_definition("cudaEventElapsedTime", "cudaEventElapsedTime", false, true, false));  // weak too
  CHECK(refused_definition("_ZN7convlab10EventTimer4stopEP11CUstream_st", "convlab::EventTimer::stop(CUstream_st*)", true,
                           true, true));
  CHECK(refused_definition("_ZSt9terminatev", "std::terminate()", true, true, false));
  CHECK(refused_definition("stdout", "stdout", true, false, false));
  // What every lab defines: its functions, its kernels' stubs, template code shared by all,
  // variables at namespace scope (not mangled), the compiler's own.
  CHECK_FALSE(refused_definition("_ZN7convlab5lab0118conv2d_no_restrictERKNS_10Conv2dArgsE",
                                 "convlab::lab01::conv2d_no_restrict(convlab::Conv2dArgs const&)", true, true, false));
  CHECK_FALSE(refused_definition("_ZNSt6vectorIfSaIfEED2Ev", "std::vector<float>::~vector()", false, true, true));
  CHECK_FALSE(refused_definition("__cudaRegisterLinkedBinary_x", "__cudaRegisterLinkedBinary_x", true, true, false));
  CHECK_FALSE(refused_definition("c_mask", "c_mask", true, false, false));
  CHECK_FALSE(refused_definition("DW.ref.__gxx_personality_v0", "DW.ref.__gxx_personality_v0", false, false, false));
}

TEST_CASE("host code check: compiled objects are read for calls, exit hooks, raw system calls and definitions",
          "[hostcode]") {
  TempDir tmp("host-code");
  const std::set<std::string> no_harness;
  SECTION("plain arithmetic and containers are clean") {
    const fs::path o = compile(tmp, "clean", R"(
#include <cstring>
#include <vector>
float sum_of(const float* a, int n) { std::vector<float> v(a, a + n); float s = 0; for (float x : v) s += x; return s; }
)");
    const HostCodeReport r = check_host_code({o}, no_harness, kPlainTools);
    INFO(r.describe());
    CHECK(r.clean());
  }
  SECTION("a thread, an exit hook and a file") {
    const fs::path o = compile(tmp, "cheat", R"(
#include <cstdio>
#include <cstdlib>
#include <thread>
static void rewrite_report() { if (FILE* f = std::fopen("report.json", "w")) std::fclose(f); }
void launch() { std::atexit(rewrite_report); std::thread([] {}).detach(); }
)");
    const HostCodeReport r = check_host_code({o}, no_harness, kPlainTools);
    INFO(r.describe());
    CHECK(names(r, "atexit"));
    CHECK(names(r, "fopen"));
    CHECK(names(r, "std::thread"));
    CHECK_THAT(r.describe(), Catch::Contains("cheat.o uses"));
  }
  SECTION("a raw system call in inline assembly") {
    const fs::path o = compile(tmp, "raw", R"(
long raw_write() { long r; asm volatile("syscall" : "=a"(r) : "a"(1) : "rcx", "r11", "memory"); return r; }
)");
    CHECK(names(check_host_code({o}, no_harness, kPlainTools), "raw system call"));
  }
  SECTION("a C-linkage definition that would replace the clock") {
    const fs::path o = compile(tmp, "clock", R"(
#include <time.h>
extern "C" int clock_gettime(clockid_t, struct timespec* t) { t->tv_sec = 0; t->tv_nsec = 0; return 0; }
)");
    CHECK(names(check_host_code({o}, no_harness, kPlainTools), "clock_gettime"));
  }
}

TEST_CASE("host code check: a lab that nvcc compiled is clean, nvcc's own exit hook included", "[hostcode][nvcc]") {
  const std::optional<fs::path> nvcc = cuda_compiler();
  if (!nvcc) {
    WARN("no nvcc: the check of an nvcc-compiled lab is not run");
    return;
  }
  TempDir tmp("host-code-nvcc");
  const fs::path obj = tmp.path() / "naive.cu.o";
  const ProcessResult p = run_process({nvcc->string(), "-std=c++17", "-arch=sm_90", "-I", CONVLAB_SOURCE_DIR "/common/include",
                                       "-c", CONVLAB_SOURCE_DIR "/solutions/01-naive/naive.cu", "-o", obj.string()},
                                      std::chrono::seconds(300));
  INFO(p.output);
  REQUIRE(p.exit_code == 0);
  const HostCodeReport r = check_host_code({obj}, {}, kPlainTools);
  INFO(r.describe());
  CHECK(r.clean());
}
