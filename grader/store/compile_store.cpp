#include "store/compile_store.hpp"

#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <atomic>

#include "build/digest.hpp"
#include "convlab/atomic_file.hpp"
#include "convlab/file_reader.hpp"
#include "convlab/json_file.hpp"
#include "convlab/limits.hpp"
#include "run/reasons.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// What may be stored: an executable, or the host-code check's refusal of one. Both follow from
// the inputs alone; a compile error may be a timeout or a full disk, and is tried again.
bool storable(const LabExecutable& e) {
  if (!e.could_not_grade.empty()) return false;
  return e.exe.has_value() || e.build_reasons == std::vector<std::string>{reason::kForbiddenHostCode};
}

}  // namespace

CompileStore::CompileStore(fs::path dir) : dir_(std::move(dir)) { fs::create_directories(dir_); }

std::string CompileStore::key(const std::string& context, const StagedLab& lab) const {
  // Every part length-prefixed: no two different labs serialize to the same bytes.
  std::string material = fmt::format("convlab-compile-key 1\ncontext {}\nlab {} {}\nfiles {}\n", context,
                                     lab.lab.number, lab.lab.folder, lab.files.size());
  for (const auto& [path, bytes] : lab.files) {
    material += fmt::format("{} {}\n", path.size(), bytes.size());
    material += path;
    material += bytes;
    material += '\n';
  }
  return sha256_of_bytes(material, dir_ / ".digests");
}

int CompileStore::compiles() {
  std::lock_guard<std::mutex> lock(mutex_);
  return compiles_;
}

std::optional<CompileStore::Entry> CompileStore::load(const std::string& key) const {
  const fs::path file = dir_ / key / "entry.json";
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(file, ec))) return std::nullopt;
  try {
    const json j = parse_json(convlab::read_file(file, kMaxTextFileBytes), file.string());
    if (j.value("format", "") != "convlab-compile" || j.value("version", 0) != 1) return std::nullopt;
    Entry e;
    if (!j.at("exe").is_null()) e.exe.exe = j.at("exe").get<std::string>();
    e.exe.build_reasons = j.at("build_reasons").get<std::vector<std::string>>();
    e.exe.build_message = j.at("build_message").get<std::string>();
    e.compiled_for = j.at("compiled_for").get<std::string>();
    return e;
  } catch (const std::exception&) {
    return std::nullopt;  // unreadable: compiled again, and published anew beside it
  }
}

void CompileStore::publish(const std::string& key, const std::string& submission, const fs::path& out_dir,
                           const LabExecutable& exe) {
  static std::atomic<unsigned> counter{0};
  const fs::path incoming = dir_ / fmt::format(".incoming-{}-{}-{}", key, getpid(), counter++);
  fs::remove_all(incoming);
  fs::create_directories(incoming / "files");
  if (fs::is_directory(out_dir)) copy_plain_tree(out_dir, incoming / "files");
  Entry e{exe, submission};
  if (exe.exe) e.exe.exe = fs::relative(*exe.exe, out_dir);
  const json j = {{"format", "convlab-compile"},
                  {"version", 1},
                  {"compiled_for", submission},
                  {"exe", e.exe.exe ? json(e.exe.exe->string()) : json(nullptr)},
                  {"build_reasons", exe.build_reasons},
                  {"build_message", exe.build_message}};
  write_file_atomically(incoming / "entry.json", j.dump(2) + "\n");
  // Whole or not at all: an entry appears by one rename. One already there could not be read
  // (load() found no entry), so this one replaces it.
  std::error_code ec;
  fs::remove_all(dir_ / key, ec);
  fs::rename(incoming, dir_ / key, ec);
  if (ec) {
    fs::remove_all(incoming, ec);
    return;  // not stored: the next student with these bytes compiles them
  }
  std::lock_guard<std::mutex> lock(mutex_);
  entries_[key] = e;
}

LabExecutable CompileStore::take(const std::string& key, const Entry& e, const fs::path& out_dir) const {
  LabExecutable exe = e.exe;
  fs::remove_all(out_dir);
  fs::create_directories(out_dir);
  copy_plain_tree(dir_ / key / "files", out_dir);
  if (exe.exe) exe.exe = out_dir / *exe.exe;
  return exe;
}

StoredCompile CompileStore::get(const std::string& key, const std::string& submission, const fs::path& out_dir,
                                const std::function<LabExecutable(double* core_s)>& compile,
                                const std::function<void()>& not_compiling) {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    if (const auto it = entries_.find(key); it != entries_.end()) {
      const Entry e = it->second;
      lock.unlock();
      if (not_compiling) not_compiling();
      return {take(key, e, out_dir), true, e.compiled_for, 0};
    }
    if (in_flight_.count(key)) {  // the same bytes compiling for another student: wait for it
      if (not_compiling) not_compiling();
      done_.wait(lock);
      continue;
    }
    if (std::optional<Entry> e = load(key)) {
      entries_[key] = *e;
      continue;
    }
    in_flight_.insert(key);
    ++compiles_;
    break;
  }
  lock.unlock();
  StoredCompile out;
  out.compiled_for = submission;
  try {
    out.exe = compile(&out.core_s);
  } catch (...) {
    lock.lock();
    in_flight_.erase(key);
    done_.notify_all();
    throw;
  }
  if (storable(out.exe)) {
    try {
      publish(key, submission, out_dir, out.exe);
    } catch (const std::exception&) {
      // Not stored (a full disk, say): the next student with these bytes compiles them again.
    }
  }
  lock.lock();
  in_flight_.erase(key);
  done_.notify_all();
  return out;
}

}  // namespace convlab::grader
