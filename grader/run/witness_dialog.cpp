#include "run/witness_dialog.hpp"

#include <fmt/format.h>

#include <sstream>

#include "convlab/witness_protocol.hpp"

namespace convlab::grader {

WitnessDialog::WitnessDialog(std::uint64_t seed_source) : random_(seed_source) {}

void WitnessDialog::break_open_phase(const std::string& why) {
  if (!phases_.empty() && phases_.back().broken.empty()) phases_.back().broken = why;
  if (!phases_.empty()) phases_.back().complete = false;
  step_ = Step::idle;
}

std::string WitnessDialog::on_line(std::string_view line) {
  const std::string_view prefix = witness::kPrefix;
  if (line.substr(0, prefix.size()) != prefix) return "";
  std::istringstream words{std::string(line.substr(prefix.size()))};
  std::string word;
  words >> word;
  const auto now = std::chrono::steady_clock::now();
  if (word == witness::kReady) {
    if (step_ != Step::idle) break_open_phase("a new phase began before the last one was done");
    WitnessPhase phase;
    words >> phase.case_id >> phase.variant;
    phase.seed = random_();
    phases_.push_back(std::move(phase));
    step_ = Step::started;
    opened_ = std::chrono::steady_clock::now();  // as late as possible: the child waits for this line
    return fmt::format("{} {}\n", witness::kGo, phases_.back().seed);
  }
  if (phases_.empty()) return "";
  WitnessPhase& phase = phases_.back();
  if (word == witness::kComputed) {
    if (step_ != Step::started || !(words >> phase.calls) || phase.calls < 1) {
      break_open_phase(fmt::format("a '{}' line out of place", witness::kComputed));
      return "";
    }
    phase.nonce = random_();
    step_ = Step::sampling;
    return fmt::format("{} {}\n", witness::kSample, phase.nonce);
  }
  if (word == witness::kDone) {
    if (step_ != Step::sampling || phase.complete) {
      // A second "done" too: the first was not the runner's.
      phase.complete = false;
      if (phase.broken.empty()) phase.broken = fmt::format("a '{}' line out of place", witness::kDone);
      step_ = Step::idle;
      return "";
    }
    phase.window_ms = std::chrono::duration<double, std::milli>(now - opened_).count();
    phase.complete = phase.broken.empty();
    step_ = Step::idle;
    return "";
  }
  break_open_phase(fmt::format("an unknown witness line '{}'", line.substr(0, 80)));
  return "";
}

const WitnessPhase* find_phase(const std::vector<WitnessPhase>& phases, const std::string& case_id,
                               const std::string& variant) {
  for (auto it = phases.rbegin(); it != phases.rend(); ++it) {
    if (it->case_id == case_id && it->variant == variant) return &*it;
  }
  return nullptr;
}

}  // namespace convlab::grader
