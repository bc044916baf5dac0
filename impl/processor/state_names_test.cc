// Proves that the client state machine's enum (KafkaStreams.State) and the assignor's ClientState
// class are distinct names: this file includes both headers and uses both in one scope, which
// did not compile while both were called iq::ClientState.

#include <gtest/gtest.h>

#include "assignment/client_state.h"
#include "processor/thread_state.h"

namespace iq {
namespace {

TEST(StateNames, KafkaStreamsStateAndAssignorClientStateCoexist) {
  const KafkaStreamsState state = KafkaStreamsState::REBALANCING;
  ClientState client(2);
  EXPECT_STREQ(to_string(state), "REBALANCING");
  EXPECT_TRUE(is_valid_transition(state, KafkaStreamsState::RUNNING));
  EXPECT_FALSE(is_valid_transition(KafkaStreamsState::NOT_RUNNING, KafkaStreamsState::RUNNING));
  EXPECT_EQ(client.capacity(), 2);
}

}  // namespace
}  // namespace iq
