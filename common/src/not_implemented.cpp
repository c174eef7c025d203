#include <atomic>
#include <mutex>
#include <string>

#include "convlab/lab_api.cuh"
#include "convlab/runner.hpp"

namespace convlab {
namespace {
std::atomic<bool> g_flag{false};
std::mutex g_mutex;
std::string g_what;
}  // namespace

void not_implemented(const char* what) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_flag = true;
  g_what = what;
}

bool lab_reported_not_implemented(std::string* what) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (what) *what = g_what;
  return g_flag;
}

void reset_not_implemented() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_flag = false;
  g_what.clear();
}

}  // namespace convlab
