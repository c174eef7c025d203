/// @file datagen.hpp
/// @brief Deterministic, seeded dataset generation (same seed, same bytes on every machine).
///
/// Random values come from std::mt19937_64, whose output sequence the C++ standard fixes, mapped
/// to floats by hand (not by std::uniform_real_distribution, whose algorithm is left to the
/// library), so a case regenerated anywhere is bit-identical.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "convlab/dataset.hpp"
#include "convlab/mask_widths.hpp"

namespace convlab {

/// What to generate for one conv2d case.
struct Conv2dSpec {
  std::string name;         ///< folder name, e.g. "k5_37x53"
  Conv2dShape shape;        ///< H, W, K
  std::uint64_t seed = 0;   ///< drives every random value of the case
  std::string description;  ///< one line for people
};

/// What to generate for one conv-layer case.
struct ConvLayerSpec {
  std::string name;         ///< folder name
  ConvLayerShape shape;     ///< B, C, M, H, W, K, stride, padding, dilation
  std::uint64_t seed = 0;   ///< drives every random value of the case
  std::string description;  ///< one line for people
};

/// Random non-uniform inputs from the spec's seed, and (unless `with_expected` is false, for
/// timing-only cases) the expected output from the CPU reference.
Conv2dCase generate_case(const Conv2dSpec& spec, bool with_expected = true);
/// Random non-uniform inputs from the spec's seed, and (unless `with_expected` is false) the
/// expected output from the CPU reference.
ConvLayerCase generate_case(const ConvLayerSpec& spec, bool with_expected = true);

/// The small cases whose values a reader checks by hand (seeds' worked examples, recomputed).
std::vector<Conv2dCase> hand_conv2d_cases();
/// The small conv-layer cases whose values a reader checks by hand.
std::vector<ConvLayerCase> hand_conv_layer_cases();

/// The committed public conv2d set: edge sizes, several mask widths, odd and even.
std::vector<Conv2dSpec> public_conv2d_specs();
/// The committed public conv-layer set: strides, paddings, dilations, 1×1 to 7×7, 1..many channels.
std::vector<ConvLayerSpec> public_conv_layer_specs();

/// A fresh random conv2d set drawn from `seed`: `count` cases of random sizes (1..max_side)
/// and mask widths drawn uniformly from `mask_widths` (not empty).
std::vector<Conv2dSpec> random_conv2d_specs(std::uint64_t seed, int count, int max_side, MaskWidths mask_widths);
/// A fresh random conv-layer set drawn from `seed`.
std::vector<ConvLayerSpec> random_conv_layer_specs(std::uint64_t seed, int count);

/// The four layers lab 06 is measured on (convlab/lab06_config.hpp, bench_layers), as cases
/// named bench_b…_d… with seeds seed, seed + 1, ...: to time a student's own lab 06 steps where
/// `conv_layer_bench` times the reference (their CPU reference takes minutes: write them with
/// `with_expected` false for timing).
std::vector<ConvLayerSpec> bench_conv_layer_specs(std::uint64_t seed);

/// Writes every public case (hand-made and generated) under `root/conv2d` and `root/conv_layer`.
/// @returns the number of cases written.
int write_public_datasets(const std::filesystem::path& root);

}  // namespace convlab
