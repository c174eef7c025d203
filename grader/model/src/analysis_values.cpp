// Published-vs-exact values: parsing a number as printed, judging it, printing the exact one.
#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <stdexcept>

#include "convlab/analysis_tables.hpp"

namespace convlab::analysis {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::agrees: return "agrees";
    case Verdict::rounding: return "rounding";
    case Verdict::error: return "error";
    case Verdict::exact_only: return "exact only";
    case Verdict::published_only: return "published only";
  }
  return "?";
}

Published published(const std::string& text) {
  // Keep digits and the decimal point of the first number; its decimals set the precision.
  std::string digits;
  int decimals = -1;
  for (char ch : text) {
    if (std::isdigit(static_cast<unsigned char>(ch))) {
      digits += ch;
      if (decimals >= 0) ++decimals;
    } else if (ch == '.' && decimals < 0 && !digits.empty()) {
      digits += ch;
      decimals = 0;
    } else if (ch == ',' && !digits.empty()) {
      continue;  // thousands separator
    } else if (!digits.empty()) {
      break;
    }
  }
  if (digits.empty()) throw std::invalid_argument("published: no number in '" + text + "'");
  Published p;
  p.text = text;
  p.value = std::stod(digits);
  p.tolerance = 0.5 * std::pow(10.0, -std::max(decimals, 0));
  return p;
}

Published published(const std::string& text, double value, double tolerance) {
  return Published{text, value, tolerance};
}

namespace {

std::string with_commas(const std::string& digits) {
  // digits: an optional '-', integer part, optional fraction.
  const std::size_t start = digits[0] == '-' ? 1 : 0;
  const std::size_t point = std::min(digits.find('.'), digits.size());
  std::string out = digits.substr(0, start);
  for (std::size_t i = start; i < point; ++i) {
    out += digits[i];
    const std::size_t left = point - i - 1;
    if (left > 0 && left % 3 == 0) out += ',';
  }
  return out + digits.substr(point);
}

std::string number_text(double x, int decimals) {
  std::string s = fmt::format("{:.{}f}", x, decimals);
  return with_commas(s);  // 1,600 as the lecture prints it
}

}  // namespace

std::string Value::exact_text() const {
  if (!exact) return "—";
  return number_text(*exact, decimals) + unit;
}

Value compare(const Published& p, double exact, int decimals, const std::string& unit,
              const std::string& error_reason) {
  Value v;
  v.published = p;
  v.exact = exact;
  v.decimals = decimals;
  v.unit = unit;
  const double diff = std::fabs(exact - p.value);
  const double slack = 1e-9 * std::max(1.0, std::fabs(exact));  // floating-point ties
  if (diff <= p.tolerance + slack) {
    v.verdict = Verdict::agrees;
  } else if (diff <= 2 * p.tolerance + slack && error_reason.empty()) {
    v.verdict = Verdict::rounding;
    // The published precision, from the tolerance 0.5·10^-d.
    const int d = std::max(0, static_cast<int>(std::lround(-std::log10(2 * p.tolerance))));
    v.reason = fmt::format("{} rounds to {}{}, not {} ({})", v.exact_text(),
                           fmt::format("{:.{}f}", exact, d), unit, p.text,
                           exact > p.value ? "truncated" : "rounded up");
  } else {
    v.verdict = Verdict::error;
    v.reason = error_reason.empty()
                   ? fmt::format("the source says {}, the model gives {}", p.text, v.exact_text())
                   : error_reason;
  }
  return v;
}

Value published_only(const Published& p, Verdict verdict, const std::string& reason) {
  Value v;
  v.published = p;
  v.verdict = verdict;
  v.reason = reason;
  return v;
}

Value exact_only(double exact, int decimals, const std::string& unit) {
  Value v;
  v.exact = exact;
  v.decimals = decimals;
  v.unit = unit;
  v.verdict = Verdict::exact_only;
  return v;
}

}  // namespace convlab::analysis
