#include <fmt/core.h>

#include <exception>
#include <filesystem>

#include "commands/commands.hpp"

namespace convlab::grader {

int run_command_line(CLI::App& app, int argc, char** argv, const int& exit_code) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kUsageError;
  } catch (const std::filesystem::filesystem_error& e) {
    // The last net: the commands check the folders they are given (contained_paths.hpp), but
    // whatever the file system still refuses is said as a path and a reason, not as a C++ type.
    const std::string where = e.path1().empty() ? std::string() : e.path1().string() + ": ";
    fmt::print(stderr, "grader: error: {}{}\n", where, e.code().message());
    return kUsageError;
  } catch (const std::exception& e) {
    fmt::print(stderr, "grader: error: {}\n", e.what());
    return kUsageError;
  }
  return exit_code;
}

}  // namespace convlab::grader
