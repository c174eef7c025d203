// .npy format: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
//   magic "\x93NUMPY", major, minor, header length (2 bytes for 1.0, 4 for 2.0/3.0, little
//   endian), an ASCII Python dict literal padded with spaces and '\n' so that the data starts
//   on a 64-byte boundary, then the raw array.
#include "convlab/npy.hpp"

#include "convlab/atomic_file.hpp"
#include "convlab/file_reader.hpp"
#include "convlab/limits.hpp"

#include <fmt/format.h>

#include <array>
#include <map>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <optional>
#include <sstream>
#include <system_error>

namespace convlab {
namespace {

constexpr std::array<char, 6> kMagic = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

struct Header {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::size_t> shape;
};

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
  throw NpyError(fmt::format("{}: {}", path.string(), what));
}

// The header dict, read as Python reads the literal: `{KEY: VALUE, ...}` with quoted keys and
// values that are quoted strings, tuples or bare words (True, False). A key's text can then no
// longer be found inside another key's string, and of two equal keys the last one counts, as
// in NumPy. Values are kept as written: a tuple with its parentheses, a string without quotes.
std::map<std::string, std::string> parse_dict(const std::filesystem::path& path, const std::string& dict) {
  std::size_t i = 0;
  const auto skip_space = [&] {
    while (i < dict.size() && std::isspace(static_cast<unsigned char>(dict[i]))) ++i;
  };
  const auto quoted = [&](const char* what) {
    const char quote = dict[i];
    std::string text;
    for (++i; i < dict.size() && dict[i] != quote; ++i) {
      if (dict[i] == '\\' && i + 1 < dict.size()) ++i;
      text += dict[i];
    }
    if (i >= dict.size()) fail(path, fmt::format("header {} is not closed", what));
    ++i;
    return text;
  };
  std::map<std::string, std::string> entries;
  skip_space();
  if (i >= dict.size() || dict[i] != '{') fail(path, "header is not a Python dict literal");
  ++i;
  for (;;) {
    skip_space();
    if (i < dict.size() && dict[i] == '}') break;
    if (i >= dict.size() || (dict[i] != '\'' && dict[i] != '"')) fail(path, "header dict has a key that is not a string");
    const std::string key = quoted("key");
    skip_space();
    if (i >= dict.size() || dict[i] != ':') fail(path, fmt::format("header key '{}' has no value", key));
    ++i;
    skip_space();
    if (i >= dict.size()) fail(path, fmt::format("header key '{}' has no value", key));
    std::string value;
    if (dict[i] == '\'' || dict[i] == '"') {
      value = quoted(fmt::format("value of '{}'", key).c_str());
    } else if (dict[i] == '(') {
      const std::size_t close = dict.find(')', i);
      if (close == std::string::npos) fail(path, fmt::format("header tuple of '{}' is not closed", key));
      value = dict.substr(i, close - i + 1);
      i = close + 1;
    } else {
      const std::size_t b = i;
      while (i < dict.size() && dict[i] != ',' && dict[i] != '}' && !std::isspace(static_cast<unsigned char>(dict[i]))) ++i;
      value = dict.substr(b, i - b);
    }
    entries[key] = value;  // the last of equal keys counts
    skip_space();
    if (i < dict.size() && dict[i] == ',') {
      ++i;
      continue;
    }
    skip_space();
    if (i >= dict.size() || dict[i] != '}') fail(path, "header dict is not closed");
  }
  return entries;
}

// One dimension: decimal digits (Python 2 may add 'L'), at most kMaxTensorElements, so that
// no stoull can throw and no product can wrap.
std::size_t parse_dimension(const std::filesystem::path& path, const std::string& tuple, const std::string& digits) {
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) {
    fail(path, fmt::format("shape {} holds '{}', not a dimension", tuple, digits));
  }
  std::uint64_t v = 0;
  for (char c : digits) {
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
    if (v > kMaxTensorElements) {
      fail(path, fmt::format("shape {} holds the dimension {}, above the limit of {} elements", tuple, digits,
                             kMaxTensorElements));
    }
  }
  return static_cast<std::size_t>(v);
}

std::vector<std::size_t> parse_shape(const std::filesystem::path& path, const std::string& tuple) {
  std::vector<std::size_t> shape;
  std::string inner = tuple.substr(1, tuple.size() - 2);
  std::stringstream ss(inner);
  std::string item;
  while (std::getline(ss, item, ',')) {
    std::size_t b = item.find_first_not_of(" \t");
    if (b == std::string::npos) continue;  // "(3,)" leaves an empty last item
    std::size_t e = item.find_last_not_of(" \tL");
    const std::string digits = e == std::string::npos || e < b ? std::string() : item.substr(b, e - b + 1);
    shape.push_back(parse_dimension(path, tuple, digits));
    if (shape.size() > static_cast<std::size_t>(kMaxNpyRank)) {
      fail(path, fmt::format("shape {} has more than {} axes, the limit", tuple, kMaxNpyRank));
    }
  }
  return shape;
}

Header parse_header(const std::filesystem::path& path, const std::string& dict) {
  const std::map<std::string, std::string> entries = parse_dict(path, dict);
  // NumPy's own rule: these three keys and no others.
  for (const char* key : {"descr", "fortran_order", "shape"}) {
    if (!entries.count(key)) fail(path, fmt::format("header has no '{}' key", key));
  }
  if (entries.size() != 3) fail(path, "header has keys other than 'descr', 'fortran_order' and 'shape'");
  Header h;
  h.descr = entries.at("descr");
  const std::string fortran = entries.at("fortran_order");
  if (fortran == "True") {
    h.fortran_order = true;
  } else if (fortran != "False") {
    fail(path, fmt::format("fortran_order is '{}', not True or False", fortran));
  }
  const std::string shape = entries.at("shape");
  if (shape.empty() || shape.front() != '(') fail(path, "header shape is not a tuple");
  h.shape = parse_shape(path, shape);
  return h;
}

std::string dtype_name(const std::string& descr) {
  if (descr == "<f4") return "float32";
  if (descr == "<f8") return "float64";
  if (descr == ">f4") return "big-endian float32";
  if (descr == ">f8") return "big-endian float64";
  if (descr == "<f2") return "float16";
  if (descr == "<i4") return "int32";
  if (descr == "<i8") return "int64";
  if (descr == "|u1") return "uint8";
  return "dtype '" + descr + "'";
}

template <class T>
Tensor<T> read_npy_as(const std::filesystem::path& path, const char* want_descr, std::uint64_t max_file_bytes) {
  // Everything is checked against the file's size before anything is allocated: a 128-byte
  // file must not make the reader zero-fill gigabytes before it finds the file short.
  std::optional<InputFile> opened;
  try {
    opened.emplace(path, max_file_bytes);
  } catch (const LoadError& e) {
    throw NpyError(e.what());
  }
  InputFile& in = *opened;
  std::array<char, 8> pre{};
  const std::size_t got_pre = in.read(pre.data(), pre.size());
  if (got_pre < kMagic.size() || std::memcmp(pre.data(), kMagic.data(), kMagic.size()) != 0) {
    fail(path, "not a .npy file (the magic string \\x93NUMPY is missing)");
  }
  if (got_pre < 8) fail(path, "truncated: the file ends inside the version field");
  const int major = static_cast<unsigned char>(pre[6]);
  const int minor = static_cast<unsigned char>(pre[7]);
  std::uint32_t header_len = 0;
  std::uint64_t prefix = 8;
  if (major == 1) {
    unsigned char b[2];
    if (in.read(b, 2) != 2) fail(path, "truncated: the file ends inside the header length");
    header_len = static_cast<std::uint32_t>(b[0] | (b[1] << 8));
    prefix += 2;
  } else if (major == 2 || major == 3) {
    unsigned char b[4];
    if (in.read(b, 4) != 4) fail(path, "truncated: the file ends inside the header length");
    header_len = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<std::uint32_t>(b[3]) << 24);
    prefix += 4;
  } else {
    fail(path, fmt::format("unsupported .npy format version {}.{}", major, minor));
  }
  if (header_len > kMaxNpyHeaderBytes) {
    fail(path, fmt::format("header length {} is above the limit of {} bytes", header_len, kMaxNpyHeaderBytes));
  }
  if (prefix + header_len > in.size()) {
    fail(path, fmt::format("truncated: header of {} bytes, file ends after {}", header_len, in.size() - prefix));
  }
  std::string dict(header_len, '\0');
  in.read(dict.data(), header_len);
  const Header h = parse_header(path, dict);
  if (h.descr != want_descr) {
    fail(path, fmt::format("holds {} ('{}') where {} ('{}') was expected", dtype_name(h.descr),
                           h.descr, dtype_name(want_descr), want_descr));
  }
  if (h.fortran_order) fail(path, "is in Fortran order; convlab reads C order only (np.ascontiguousarray)");

  std::vector<std::uint64_t> dims(h.shape.begin(), h.shape.end());
  std::uint64_t count = 1;
  for (std::uint64_t d : dims) {
    if (!product_within({count, d}, kMaxTensorElements)) {
      fail(path, fmt::format("shape {} holds more than {} elements, the limit", shape_string(h.shape),
                             kMaxTensorElements));
    }
    count *= d;
  }
  const std::uint64_t want = count * sizeof(T);
  const std::uint64_t have = in.size() - prefix - header_len;
  if (have < want) {
    fail(path, fmt::format("truncated: shape {} needs {} data bytes, the file has {}",
                           shape_string(h.shape), want, have));
  }
  if (have > want) {
    fail(path, fmt::format("has bytes after the {} data bytes that shape {} needs", want,
                           shape_string(h.shape)));
  }
  std::vector<T> values(static_cast<std::size_t>(count));
  if (in.read(values.data(), static_cast<std::size_t>(want)) != want) {
    fail(path, fmt::format("truncated: shape {} needs {} data bytes, the file shrank while it was read",
                           shape_string(h.shape), want));
  }
  return Tensor<T>(h.shape, std::move(values));
}

template <class T>
void write_npy_as(const std::filesystem::path& path, const Tensor<T>& t, const char* descr, Durability durability) {
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr,
                                 shape_string(t.shape()));
  // magic(6) + version(2) + length(2) + dict + padding + '\n' is a multiple of 64.
  const std::size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict.push_back('\n');

  std::string bytes(kMagic.data(), kMagic.size());
  bytes += {1, 0};  // version 1.0
  bytes += {static_cast<char>(dict.size() & 0xFF), static_cast<char>(dict.size() >> 8)};
  bytes += dict;
  bytes.append(reinterpret_cast<const char*>(t.data()), t.size() * sizeof(T));
  try {
    write_file_atomically(path, bytes, durability);
  } catch (const std::runtime_error& e) {
    throw NpyError(e.what());
  }
}

}  // namespace

Tensor<float> read_npy_f32(const std::filesystem::path& path, std::uint64_t max_file_bytes) {
  return read_npy_as<float>(path, "<f4", max_file_bytes);
}
Tensor<double> read_npy_f64(const std::filesystem::path& path, std::uint64_t max_file_bytes) {
  return read_npy_as<double>(path, "<f8", max_file_bytes);
}
std::uint64_t npy_file_bytes_limit(std::uint64_t elements, std::size_t element_size) {
  // The data and the longest header convlab reads (a writer may pad it).
  return elements * element_size + 16 + kMaxNpyHeaderBytes;
}
void write_npy(const std::filesystem::path& path, const Tensor<float>& t, Durability durability) {
  write_npy_as(path, t, "<f4", durability);
}
void write_npy(const std::filesystem::path& path, const Tensor<double>& t, Durability durability) {
  write_npy_as(path, t, "<f8", durability);
}

}  // namespace convlab
