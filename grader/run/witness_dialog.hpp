// The grader's side of the witness dialog (convlab/witness_protocol.hpp): it answers a lab
// runner's "ready" with a seed and its "computed" with a nonce, both drawn here and now, and
// keeps its own clock from "go" to "done". A phase whose lines do not come exactly once each, in
// order, is broken: its time is not taken (a lab that prints the dialog's lines itself gets no
// speed points for that phase).
#pragma once

#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace convlab::grader {

/// One timed phase, as the grader saw it.
struct WitnessPhase {
  std::string case_id;      ///< as the runner named it at "ready"
  std::string variant;
  std::uint64_t seed = 0;   ///< sent with "go": the phase's inputs
  std::uint64_t nonce = 0;  ///< sent with "sample": the outputs handed over
  int calls = 0;            ///< timed calls, as the runner said at "computed"
  double window_ms = 0;     ///< the grader's clock, "go" sent to "done" read
  bool complete = false;    ///< every line came once, in order
  std::string broken;       ///< what went wrong in the dialog, if anything
};

/// The last phase of `case_id` and `variant` in `phases`, or nullptr.
const WitnessPhase* find_phase(const std::vector<WitnessPhase>& phases, const std::string& case_id,
                               const std::string& variant);

/// The dialog with one runner process (a LineDialog of system/subprocess.hpp).
class WitnessDialog {
 public:
  /// @param seed_source seeds the generator of seeds and nonces (the grader's, never the child's)
  explicit WitnessDialog(std::uint64_t seed_source);
  /// Answers one line of the runner's output.
  std::string on_line(std::string_view line);
  /// Every phase that reached "ready", in order.
  [[nodiscard]] const std::vector<WitnessPhase>& phases() const { return phases_; }

 private:
  enum class Step { idle, started, sampling };
  void break_open_phase(const std::string& why);
  std::mt19937_64 random_;
  std::vector<WitnessPhase> phases_;
  Step step_ = Step::idle;
  std::chrono::steady_clock::time_point opened_;
};

}  // namespace convlab::grader
