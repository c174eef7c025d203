// .npy: round trips, files written by NumPy itself (tests/fixtures/data/npy), and every malformed-file
// error, each of which must name the file and the problem.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>

#include "convlab/npy.hpp"

using namespace convlab;
namespace fs = std::filesystem;

namespace {

const fs::path kData = fs::path(CONVLAB_TEST_DATA_DIR) / "npy";

fs::path temp_file(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / "convlab-test-npy";
  fs::create_directories(dir);
  return dir / name;
}

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A version 1.0 file with a hand-written header dict (padded as numpy pads it).
std::string npy_bytes(const std::string& dict, const std::string& data, char major = 1) {
  std::string header = dict;
  const std::size_t prefix = major == 1 ? 10 : 12;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header.push_back('\n');
  std::string s = "\x93NUMPY";
  s.push_back(major);
  s.push_back(0);
  s.push_back(static_cast<char>(header.size() & 0xFF));
  s.push_back(static_cast<char>(header.size() >> 8));
  if (major != 1) s += std::string(2, '\0');
  return s + header + data;
}

std::string floats(std::initializer_list<float> v) {
  return std::string(reinterpret_cast<const char*>(v.begin()), v.size() * sizeof(float));
}

}  // namespace

TEST_CASE("npy: reads arrays written by NumPy", "[npy]") {
  const Tensor<float> a = read_npy_f32(kData / "f32_2x3.npy");
  CHECK(a.shape() == std::vector<std::size_t>{2, 3});
  CHECK(a.values() == std::vector<float>{1.5f, -2.0f, 3.25f, 0.0f, 1e-8f, -7.0f});

  const Tensor<double> b = read_npy_f64(kData / "f64_4.npy");
  CHECK(b.shape() == std::vector<std::size_t>{4});
  CHECK(b.values() == std::vector<double>{1.0, -0.5, 0x1p-30, 12345.678});

  const Tensor<float> s = read_npy_f32(kData / "f32_scalar.npy");
  CHECK(s.shape().empty());
  CHECK(s.values() == std::vector<float>{3.5f});

  const Tensor<float> e = read_npy_f32(kData / "f32_empty_0x3.npy");
  CHECK(e.shape() == std::vector<std::size_t>{0, 3});
  CHECK(e.size() == 0);

  const Tensor<float> v2 = read_npy_f32(kData / "f32_v2_2x2.npy");
  CHECK(v2.values() == std::vector<float>{1, 2, 3, 4});
}

TEST_CASE("npy: what we write, NumPy's layout and our reader agree", "[npy]") {
  const Tensor<float> a = read_npy_f32(kData / "f32_2x3.npy");
  const fs::path out = temp_file("roundtrip_f32.npy");
  write_npy(out, a);
  // Byte-identical to NumPy's own file: same header text, same padding, same data.
  CHECK(read_bytes(out) == read_bytes(kData / "f32_2x3.npy"));
  CHECK(read_bytes(out).size() % 64 == 24);  // 128-byte header + 24 data bytes

  Tensor<double> d({2, 1, 3}, {1, 2, 3, 4, 5, 6});
  write_npy(temp_file("roundtrip_f64.npy"), d);
  const Tensor<double> back = read_npy_f64(temp_file("roundtrip_f64.npy"));
  CHECK(back.shape() == d.shape());
  CHECK(back.values() == d.values());

  Tensor<float> one({1}, {42.f});  // shape "(1,)" needs numpy's trailing comma
  write_npy(temp_file("one.npy"), one);
  CHECK(read_npy_f32(temp_file("one.npy")).shape() == std::vector<std::size_t>{1});
  CHECK(read_bytes(temp_file("one.npy")).find("(1,)") != std::string::npos);
  for (const auto& e : fs::directory_iterator(temp_file("one.npy").parent_path())) {
    CHECK(e.path().filename().string().find(".tmp") == std::string::npos);  // no temporary left behind
  }
}

TEST_CASE("npy: every malformed file is rejected with its name and the problem", "[npy]") {
  auto expect_error = [](const fs::path& p, const std::string& phrase) {
    INFO(p.string() << " should fail with: " << phrase);
    try {
      (void)read_npy_f32(p);
      FAIL("no error");
    } catch (const NpyError& e) {
      const std::string what = e.what();
      CHECK_THAT(what, Catch::Contains(p.string()));
      CHECK_THAT(what, Catch::Contains(phrase));
    }
  };
  expect_error(temp_file("does_not_exist.npy"), "cannot open");
  expect_error(kData / "f64_4.npy", "holds float64 ('<f8') where float32 ('<f4') was expected");
  expect_error(kData / "i32_3.npy", "int32");
  expect_error(kData / "f32_bigendian_3.npy", "big-endian");
  expect_error(kData / "f32_fortran_2x3.npy", "Fortran order");

  const std::string good = read_bytes(kData / "f32_2x3.npy");
  write_bytes(temp_file("bad_magic.npy"), "PK\x03\x04" + good.substr(4));
  expect_error(temp_file("bad_magic.npy"), "not a .npy file");
  write_bytes(temp_file("short.npy"), good.substr(0, 7));
  expect_error(temp_file("short.npy"), "truncated");
  write_bytes(temp_file("cut_header.npy"), good.substr(0, 40));
  expect_error(temp_file("cut_header.npy"), "truncated: header of");
  write_bytes(temp_file("cut_data.npy"), good.substr(0, good.size() - 5));
  expect_error(temp_file("cut_data.npy"), "truncated: shape (2, 3) needs 24 data bytes, the file has 19");
  write_bytes(temp_file("trailing.npy"), good + "xyz");
  expect_error(temp_file("trailing.npy"), "bytes after the 24 data bytes");

  std::string v4 = good;
  v4[6] = 4;
  write_bytes(temp_file("v4.npy"), v4);
  expect_error(temp_file("v4.npy"), "unsupported .npy format version 4.0");

  write_bytes(temp_file("no_shape.npy"), npy_bytes("{'descr': '<f4', 'fortran_order': False, }", floats({1})));
  expect_error(temp_file("no_shape.npy"), "no 'shape' key");
  write_bytes(temp_file("bad_dim.npy"), npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }", ""));
  expect_error(temp_file("bad_dim.npy"), "not a dimension");
  write_bytes(temp_file("not_dict.npy"), npy_bytes("[1, 2]", ""));
  expect_error(temp_file("not_dict.npy"), "not a Python dict");
  write_bytes(temp_file("fortran_maybe.npy"), npy_bytes("{'descr': '<f4', 'fortran_order': 0, 'shape': (1,), }", floats({1})));
  expect_error(temp_file("fortran_maybe.npy"), "fortran_order is '0'");
}

TEST_CASE("npy: a hand-built version 2.0 header is read", "[npy]") {
  write_bytes(temp_file("v2.npy"), npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", floats({7, 8, 9}), 2));
  CHECK(read_npy_f32(temp_file("v2.npy")).values() == std::vector<float>{7, 8, 9});
}

TEST_CASE("npy: the header is read as the dict literal it is: last of equal keys, no key found inside a string",
          "[npy][hostile]") {
  // NumPy keeps the last of two equal keys: this file holds 2x3 floats, not one.
  write_bytes(temp_file("dup_shape.npy"),
              npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'shape': (2, 3), }",
                        floats({1, 2, 3, 4, 5, 6})));
  const Tensor<float> dup = read_npy_f32(temp_file("dup_shape.npy"));
  CHECK(dup.shape() == std::vector<std::size_t>{2, 3});
  // A key's text inside another value's string is that string, not the key; and NumPy takes no
  // keys but these three.
  write_bytes(temp_file("shape_in_string.npy"),
              npy_bytes("{'descr': '<f4', 'note': \"'shape': (1,)\", 'fortran_order': False, 'shape': (2, 3), }",
                        floats({1, 2, 3, 4, 5, 6})));
  CHECK_THROWS_WITH(read_npy_f32(temp_file("shape_in_string.npy")), Catch::Contains("keys other than"));
  // Quotes of either kind and escapes inside them; a missing brace or colon is named.
  write_bytes(temp_file("double_quotes.npy"),
              npy_bytes("{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (3,)}", floats({7, 8, 9})));
  CHECK(read_npy_f32(temp_file("double_quotes.npy")).values() == std::vector<float>{7, 8, 9});
  write_bytes(temp_file("open_dict.npy"), npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3,)", floats({7, 8, 9})));
  CHECK_THROWS_WITH(read_npy_f32(temp_file("open_dict.npy")), Catch::Contains("not closed"));
  write_bytes(temp_file("no_colon.npy"), npy_bytes("{'descr' '<f4', 'fortran_order': False, 'shape': (3,)}", floats({7, 8, 9})));
  CHECK_THROWS_WITH(read_npy_f32(temp_file("no_colon.npy")), Catch::Contains("has no value"));
}
