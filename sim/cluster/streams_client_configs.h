#pragma once
// StreamsClientConfigs: the client settings a scenario gives through StreamsConfig with Kafka's
// names and prefixes (isolation.level, main.consumer.*, restore.consumer.*, producer.*), kept as
// given so that a written scenario reads back equal, and resolved per client as Kafka's
// StreamsConfig resolves them (streams/src/main/java/org/apache/kafka/streams/StreamsConfig.java:
// getCommonConsumerConfigs, getMainConsumerConfigs, getRestoreConsumerConfigs, getProducerConfigs).

#include <cstdint>
#include <optional>

#include "io/consumer.h"
#include "kafka_streams.h"

namespace iq::sim {

struct StreamsClientConfigs {
  // StreamsConfig.DEFAULT_TRANSACTION_TIMEOUT: PRODUCER_EOS_OVERRIDES' transaction.timeout.ms.
  static constexpr int32_t kEosDefaultTransactionTimeoutMs = 10'000;

  // "isolation.level" / "consumer.isolation.level" (the prefixed one wins,
  // getClientPropsWithPrefix): every consumer's. Under exactly_once_v2 Streams drops a user value
  // other than read_committed with a warning (checkIfUnexpectedUserSpecifiedConsumerConfig,
  // NON_CONFIGURABLE_CONSUMER_EOS_ CONFIGS) and uses CONSUMER_EOS_OVERRIDES' read_committed.
  std::optional<IsolationLevel> consumer_isolation_level;
  // "main.consumer.isolation.level" / "restore.consumer.isolation.level": putAll into the common
  // configs after that check, so they take effect under exactly_once_v2 too (a quirk kept).
  std::optional<IsolationLevel> main_consumer_isolation_level;
  std::optional<IsolationLevel> restore_consumer_isolation_level;
  // "transaction.timeout.ms" / "producer.transaction.timeout.ms" (the prefixed one wins). Only the
  // prefixed key is compared with commit.interval.ms (verifyEOSTransactionTimeoutCompatibility);
  // the scenario parser refuses what StreamsConfig's constructor refuses.
  std::optional<int32_t> transaction_timeout_ms;
  std::optional<int32_t> producer_transaction_timeout_ms;

  IsolationLevel main_isolation_level(ProcessingGuarantee guarantee) const {
    return main_consumer_isolation_level.value_or(common_isolation_level(guarantee));
  }
  IsolationLevel restore_isolation_level(ProcessingGuarantee guarantee) const {
    return restore_consumer_isolation_level.value_or(common_isolation_level(guarantee));
  }
  // The transactional producer's transaction.timeout.ms (only exactly_once_v2 has one).
  int32_t effective_transaction_timeout_ms() const {
    return producer_transaction_timeout_ms.value_or(
        transaction_timeout_ms.value_or(kEosDefaultTransactionTimeoutMs));
  }
  // What verifyEOSTransactionTimeoutCompatibility compares with the commit interval: the prefixed
  // key only, else the default, whatever the plain key says.
  int32_t verified_transaction_timeout_ms() const {
    return producer_transaction_timeout_ms.value_or(kEosDefaultTransactionTimeoutMs);
  }

  bool operator==(const StreamsClientConfigs&) const = default;

 private:
  IsolationLevel common_isolation_level(ProcessingGuarantee guarantee) const {
    if (guarantee == ProcessingGuarantee::EXACTLY_ONCE_V2) return IsolationLevel::READ_COMMITTED;
    return consumer_isolation_level.value_or(IsolationLevel::READ_UNCOMMITTED);
  }
};

}  // namespace iq::sim
