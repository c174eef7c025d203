#include "schedule/lab_jobs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

namespace convlab::grader {
namespace fs = std::filesystem;

LabJobs::LabJobs(std::unique_ptr<LabBuilder> builder, const fs::path& store_dir, int cores,
                 std::chrono::steady_clock::time_point start)
    : builder_(std::move(builder)), store_(store_dir), budget_(cores), start_(start) {}

double LabJobs::now_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

StagedLab LabJobs::stage(const fs::path& submission, const LabInfo& lab) { return builder_->stage(submission, lab); }

int LabJobs::useful_cores(const StagedLab& lab) const { return builder_->useful_cores(lab); }

std::vector<std::size_t> LabJobs::widest_first(const std::vector<StagedLab>& labs) const {
  std::vector<std::size_t> order(labs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return useful_cores(labs[a]) > useful_cores(labs[b]); });
  return order;
}

LabBuild LabJobs::build(const std::string& submission, const StagedLab& lab, const fs::path& exe_dir,
                        CoreBudget::Ticket ticket) {
  const std::uint64_t priority = ticket.priority();
  LabBuild b;
  b.lab = lab.lab.id();
  b.start_s = now_s();
  if (lab.unbuildable) {
    b.exe = *lab.unbuildable;
    b.end_s = b.start_s;
    return b;
  }
  try {
    std::string error;
    if (!builder_->prepare(&error)) {
      b.exe.could_not_grade = error;
      b.end_s = now_s();
      return b;
    }
    const fs::path out_dir = exe_dir / lab.lab.id();
    const auto compile = [&](double* core_s) {
      // An identical compile that this job waited for failed: back in line, behind the jobs
      // that were handed out before it.
      if (!ticket.in_line()) ticket = budget_.line_up(priority);
      const CoreBudget::Grant grant = budget_.take(ticket, builder_->useful_cores(lab));
      b.cores = grant.cores();
      b.start_s = now_s();
      LabExecutable exe = builder_->compile(lab, grant.cores(), out_dir, core_s);
      b.end_s = now_s();
      return exe;
    };
    // Cores only for a compile that runs: waiting for an identical one, or copying its result,
    // takes none, and lets the next job in line through.
    const StoredCompile got =
        store_.get(store_.key(builder_->context(), lab), submission, out_dir, compile, [&] { ticket.cancel(); });
    b.exe = got.exe;
    b.compiled = !got.shared;
    b.core_s = got.core_s;
    if (got.shared) {
      b.shared_from = got.compiled_for;
      b.end_s = now_s();
    }
  } catch (const std::exception& e) {
    b.exe = LabExecutable{};
    b.exe.could_not_grade = fmt::format("the grader could not build {}: {}", lab.lab.id(), e.what());
    b.end_s = now_s();
  }
  return b;
}

std::vector<LabBuild> LabJobs::build_all(const std::string& submission, const fs::path& folder,
                                         const std::vector<LabInfo>& labs, const fs::path& exe_dir) {
  std::vector<StagedLab> staged;
  for (const LabInfo& lab : labs) staged.push_back(stage(folder, lab));
  // The labs that keep the most cores busy (lab 07, lab 06) are the longest: they take cores first.
  const std::vector<std::size_t> order = widest_first(staged);
  std::vector<LabBuild> out(labs.size());
  std::vector<std::thread> threads;
  for (std::size_t rank = 0; rank < order.size(); ++rank) {
    threads.emplace_back([&, rank, ticket = std::make_shared<CoreBudget::Ticket>(line_up(rank))] {
      out[order[rank]] = build(submission, staged[order[rank]], exe_dir, std::move(*ticket));
    });
  }
  for (std::thread& t : threads) t.join();
  return out;
}

}  // namespace convlab::grader
