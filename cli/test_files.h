#pragma once
// What the cli tests (iqsim_binary_test.cc, malformed_input_test.cc) read and write: a whole file
// as bytes, so a test compares exactly what the binary wrote or reads back what it gave it.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace iq::cli::test_files {

// The file's bytes; empty when it cannot be read (the caller's expectation says what was wanted).
inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Replaces the file with `text`; a write that fails fails the test.
inline void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  EXPECT_TRUE(out.good()) << path;
}

}  // namespace iq::cli::test_files
