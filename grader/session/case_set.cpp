#include "session/case_set.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "convlab/datagen.hpp"
#include "convlab/lab_registry.hpp"
#include "convlab/reference.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;

std::size_t GradingCase::outputs() const {
  return info.problem == Problem::conv2d ? info.conv2d.pixels() : info.layer.output_elements();
}

std::vector<const GradingCase*> CaseSet::of_problem(Problem p) const {
  std::vector<const GradingCase*> out;
  for (const GradingCase& c : cases) {
    if (c.info.problem == p) out.push_back(&c);
  }
  return out;
}

CaseSet load_case_set(const fs::path& root, const std::string& description) {
  CaseSet set;
  set.description = description;
  set.root = root;
  std::map<std::string, fs::path> named;  // name -> the case folder that has it
  for (const fs::path& dir : find_cases(root, &set.skipped)) {
    GradingCase c{read_case_info(dir), dir};
    // Every file of the case read now, before any build: a broken input is the dataset's error,
    // with its path, and not, after the builds, a class of "could not grade".
    try {
      if (c.info.problem == Problem::conv2d) {
        load_conv2d_case(dir, true);
      } else {
        load_conv_layer_case(dir, true);
      }
    } catch (const DatasetError&) {
      throw;
    } catch (const std::exception& e) {  // a .npy's own error, which names its file
      throw DatasetError(e.what());
    }
    // Two cases of one name would be staged into one folder, and one judged by the other's output.
    if (const auto [it, fresh] = named.emplace(c.info.name, dir); !fresh) {
      throw DatasetError(fmt::format("{}: field \"name\": \"{}\" is also the name of the case in {}",
                                     (dir / "case.json").string(), c.info.name, it->second.string()));
    }
    set.cases.push_back(std::move(c));
  }
  return set;
}

void write_inputs_only(const fs::path& dir, Conv2dCase c) {
  c.expected.reset();
  write_case(dir, c);
}

void write_inputs_only(const fs::path& dir, ConvLayerCase c) {
  c.expected.reset();
  write_case(dir, c);
}

CaseSet generate_random_case_set(std::uint64_t seed, int count, const fs::path& out) {
  // Every width some lab's conv2d variant takes (the registry's): each variant gets cases.
  for (const Conv2dSpec& s : random_conv2d_specs(seed, count, 300, labs::conv2d_mask_widths_of_all_labs())) {
    write_inputs_only(out / "conv2d" / s.name, generate_case(s));
  }
  for (const ConvLayerSpec& s : random_conv_layer_specs(seed, count)) {
    write_inputs_only(out / "conv_layer" / s.name, generate_case(s));
  }
  return load_case_set(out, fmt::format("random (seed {}, {} conv2d + {} conv-layer cases)", seed, count, count));
}

fs::path stage_inputs(const GradingCase& c, const fs::path& dest_root) {
  // The name comes from a case.json, which may be anyone's: it must be one plain path
  // component, and the folder it gives must lie inside dest_root and not exist yet. Staging
  // creates that folder and deletes only it, and only when it created it.
  if (const std::string why = case_name_problem(c.info.name); !why.empty()) {
    throw DatasetError(fmt::format("{}: field \"name\": {} is not a case name: {}; not staged",
                                   (c.dir / "case.json").string(), nlohmann::json(c.info.name).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), why));
  }
  fs::create_directories(dest_root / problem_name(c.info.problem));
  const fs::path root = fs::canonical(dest_root);
  const fs::path parent = fs::canonical(dest_root / problem_name(c.info.problem));
  const fs::path inside = (parent / c.info.name).lexically_relative(root);
  if (inside.empty() || *inside.begin() == ".." || inside.is_absolute()) {
    throw DatasetError(fmt::format("{}: staging {} would leave the work folder {}; not staged",
                                   (c.dir / "case.json").string(), (parent / c.info.name).string(), root.string()));
  }
  const fs::path dest = dest_root / problem_name(c.info.problem) / c.info.name;
  std::error_code ec;
  if (fs::symlink_status(dest, ec).type() != fs::file_type::not_found) {
    throw DatasetError(fmt::format("{}: {} is staged already (two cases named \"{}\"?); not staged again",
                                   (c.dir / "case.json").string(), dest.string(), c.info.name));
  }
  fs::create_directory(dest);
  try {
    // Load without the expected output and write back: dataset.cpp is the one definition of
    // which files a case holds, and the copy can hold nothing else. A copy for one run, read by
    // that run: scratch, never fsync'ed (every lab of every student stages every case).
    if (c.info.problem == Problem::conv2d) {
      write_case(dest, load_conv2d_case(c.dir, /*with_expected=*/false), Durability::scratch);
    } else {
      write_case(dest, load_conv_layer_case(c.dir, /*with_expected=*/false), Durability::scratch);
    }
  } catch (...) {
    fs::remove_all(dest, ec);  // the folder created above, inside dest_root
    throw;
  }
  return dest;
}

const Expectation& ExpectationCache::get(const GradingCase& c) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string key = c.dir.string();
  if (auto it = cache_.find(key); it != cache_.end()) return *it->second;
  auto e = std::make_unique<Expectation>();
  if (c.info.problem == Problem::conv2d) {
    Conv2dCase cc = load_conv2d_case(c.dir, true);
    e->expected = cc.expected ? std::move(*cc.expected) : conv2d_reference(cc.image, cc.mask);
    e->abs_sum = conv2d_abs_sum(cc.image, cc.mask);
    e->terms = cc.info.conv2d.terms_per_output();
  } else {
    ConvLayerCase lc = load_conv_layer_case(c.dir, true);
    e->expected = lc.expected ? std::move(*lc.expected) : conv_layer_reference(lc.x, lc.w, lc.params());
    e->abs_sum = conv_layer_abs_sum(lc.x, lc.w, lc.params());
    e->terms = lc.info.layer.terms_per_output();
  }
  return *cache_.emplace(key, std::move(e)).first->second;
}

}  // namespace convlab::grader
