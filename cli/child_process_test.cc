// run_child: what a child printed and how it ended, as fuzz relies on to fail one aborting seed
// (RunCompletes) without ending the sweep.

#include "child_process.h"

#include <gtest/gtest.h>

#include <csignal>

namespace iq::cli {
namespace {

TEST(ChildProcessTest, CollectsOutputAndExitCode) {
  auto child = run_child({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"});
  ASSERT_TRUE(child.has_value()) << child.error();
  EXPECT_TRUE(child->exited);
  EXPECT_EQ(child->exit_code, 3);
  EXPECT_EQ(child->out, "out\n");
  EXPECT_EQ(child->err_tail, "err\n");
  EXPECT_EQ(child->describe(), "exit 3");
}

TEST(ChildProcessTest, ReportsTheSignalOfAnAbortedChild) {
  auto child = run_child({"/bin/sh", "-c", "echo 'assertion failed' >&2; kill -ABRT $$"});
  ASSERT_TRUE(child.has_value()) << child.error();
  EXPECT_FALSE(child->exited);
  EXPECT_EQ(child->signal, SIGABRT);
  EXPECT_EQ(child->err_tail, "assertion failed\n");
  EXPECT_NE(child->describe().find("signal 6"), std::string::npos) << child->describe();
}

TEST(ChildProcessTest, KeepsOnlyTheTailOfStderr) {
  auto child = run_child({"/bin/sh", "-c",
                          "i=0; while [ $i -lt 100 ]; do echo line$i >&2; "
                          "i=$((i+1)); done"},
                         ChildLimits{.out_bytes_max = 1024, .err_tail_bytes_max = 8});
  ASSERT_TRUE(child.has_value()) << child.error();
  EXPECT_EQ(child->err_tail, "\nline99\n");
}

TEST(ChildProcessTest, RefusesOutputBeyondTheBound) {
  auto child = run_child({"/bin/sh", "-c", "head -c 5000 /dev/zero"},
                         ChildLimits{.out_bytes_max = 100, .err_tail_bytes_max = 8});
  ASSERT_FALSE(child.has_value());
  EXPECT_NE(child.error().find("more than 100 bytes"), std::string::npos) << child.error();
}

// The cost the explorer reports is the child's CPU time, not the wall clock: a child that sleeps
// 400 ms costs next to nothing, one that computes costs what it computed.
TEST(ChildProcessTest, MeasuresTheChildsCpuTimeNotItsWallTime) {
  auto sleeping = run_child({"/bin/sh", "-c", "sleep 0.4"});
  ASSERT_TRUE(sleeping.has_value()) << sleeping.error();
  EXPECT_LT(sleeping->cpu_ms, 200.0);
  auto busy = run_child({"/bin/sh", "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done"});
  ASSERT_TRUE(busy.has_value()) << busy.error();
  EXPECT_GT(busy->cpu_ms, 20.0);
}

TEST(ChildProcessTest, AProgramThatCannotStartIsAnError) {
  auto child = run_child({"/nonexistent/iqsim"});
  EXPECT_FALSE(child.has_value());
}

}  // namespace
}  // namespace iq::cli
