#pragma once
// The spellings of enum values in scenario files, shared by the parser and the writer so that the
// two can never disagree. Each table lists every value once; a name not in a table is an error
// the parser reports with the table's names (names_list()).

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "io/operation_marker.h"
#include "iq/failure_reason.h"
#include "iq/query.h"
#include "iq/result_order.h"
#include "iq/streams_error.h"
#include "scenario/scenario.h"
#include "state/stores.h"
#include "topology/topologies.h"
#include "trace/property_names.h"
#include "trace/query_record.h"
#include "workload/key_distribution.h"
#include "workload/query_client_workload.h"

namespace iq::sim::names {

template <typename E>
struct Named {
  E value;
  std::string_view name;
};

// [configuration] store_backend. 'rocksdb' is the timestamped RocksDB store every DSL KTable gets;
// 'rocksdb_plain' is Stores.persistentKeyValueStore.
inline constexpr std::array<Named<KeyValueSupplier>, 4> kStoreBackends{{
    {KeyValueSupplier::kRocksDbTimestamped, "rocksdb"},
    {KeyValueSupplier::kRocksDb, "rocksdb_plain"},
    {KeyValueSupplier::kInMemory, "in_memory"},
    {KeyValueSupplier::kLruMap, "lru"},
}};

// [streams_config] processing.guarantee, as StreamsConfig spells it.
inline constexpr std::array<Named<ProcessingGuarantee>, 2> kProcessingGuarantees{{
    {ProcessingGuarantee::AT_LEAST_ONCE, "at_least_once"},
    {ProcessingGuarantee::EXACTLY_ONCE_V2, "exactly_once_v2"},
}};

// [configuration] kafka: the pinned Kafka commit impl/ follows, by its date (iq/kafka_pin.h).
inline constexpr std::array<Named<KafkaPin>, 2> kKafkaPins{{
    {KafkaPin::k2024_10_25, "2024-10-25"},
    {KafkaPin::k2026_08_20, "2026-08-20"},
}};

// Kafka's IsolationLevel names: StreamsConfig's default.interactive.query.isolation.level and a
// scripted query's isolation_level (2026-08-20 pin; StreamsConfig upper-cases the config).
inline constexpr std::array<Named<IsolationLevel>, 2> kQueryIsolationLevels{{
    {IsolationLevel::READ_UNCOMMITTED, "READ_UNCOMMITTED"},
    {IsolationLevel::READ_COMMITTED, "READ_COMMITTED"},
}};

// ConsumerConfig's isolation.level.
inline constexpr std::array<Named<IsolationLevel>, 2> kIsolationLevels{{
    {IsolationLevel::READ_UNCOMMITTED, "read_uncommitted"},
    {IsolationLevel::READ_COMMITTED, "read_committed"},
}};

inline constexpr std::array<Named<TopologyKind>, 12> kTopologies{{
    {TopologyKind::SourceTable, "SourceTable"},
    {TopologyKind::Count, "Count"},
    {TopologyKind::Sum, "Sum"},
    {TopologyKind::PapiWriter, "PapiWriter"},
    {TopologyKind::VersionedTable, "VersionedTable"},
    {TopologyKind::WindowedCount, "WindowedCount"},
    {TopologyKind::WindowedSum, "WindowedSum"},
    {TopologyKind::SessionCount, "SessionCount"},
    {TopologyKind::SessionSum, "SessionSum"},
    {TopologyKind::WindowPapiWriter, "WindowPapiWriter"},
    {TopologyKind::SessionPapiWriter, "SessionPapiWriter"},
    {TopologyKind::VersionedPapiWriter, "VersionedPapiWriter"},
}};

inline constexpr std::array<Named<KeyDistribution>, 2> kKeyDistributions{{
    {KeyDistribution::kUniform, "uniform"},
    {KeyDistribution::kSkewed, "skewed"},
}};

inline constexpr std::array<Named<BoundMode>, 3> kBoundModes{{
    {BoundMode::kUnbounded, "unbounded"},
    {BoundMode::kSession, "session"},
    {BoundMode::kProduced, "produced"},
}};

// Kafka's query class names.
inline constexpr std::array<Named<QueryKind>, 13> kQueryKinds{{
    {QueryKind::KeyQuery, "KeyQuery"},
    {QueryKind::RangeQuery, "RangeQuery"},
    {QueryKind::TimestampedKeyQuery, "TimestampedKeyQuery"},
    {QueryKind::TimestampedRangeQuery, "TimestampedRangeQuery"},
    {QueryKind::WindowKeyQuery, "WindowKeyQuery"},
    {QueryKind::WindowRangeQuery, "WindowRangeQuery"},
    {QueryKind::VersionedKeyQuery, "VersionedKeyQuery"},
    {QueryKind::MultiVersionedKeyQuery, "MultiVersionedKeyQuery"},
    {QueryKind::Custom, "Custom"},
    // KIP-1356, 2026-08-20 pin only.
    {QueryKind::TimestampedKeyWithHeadersQuery, "TimestampedKeyWithHeadersQuery"},
    {QueryKind::TimestampedRangeWithHeadersQuery, "TimestampedRangeWithHeadersQuery"},
    {QueryKind::TimestampedWindowKeyWithHeadersQuery, "TimestampedWindowKeyWithHeadersQuery"},
    {QueryKind::TimestampedWindowRangeWithHeadersQuery, "TimestampedWindowRangeWithHeadersQuery"},
}};

inline constexpr std::array<Named<ResultOrder>, 3> kResultOrders{{
    {ResultOrder::ANY, "ANY"},
    {ResultOrder::ASCENDING, "ASCENDING"},
    {ResultOrder::DESCENDING, "DESCENDING"},
}};

inline constexpr std::array<Named<FailureReason>, 6> kFailureReasons{{
    {FailureReason::UNKNOWN_QUERY_TYPE, "UNKNOWN_QUERY_TYPE"},
    {FailureReason::NOT_ACTIVE, "NOT_ACTIVE"},
    {FailureReason::NOT_UP_TO_BOUND, "NOT_UP_TO_BOUND"},
    {FailureReason::NOT_PRESENT, "NOT_PRESENT"},
    {FailureReason::DOES_NOT_EXIST, "DOES_NOT_EXIST"},
    {FailureReason::STORE_EXCEPTION, "STORE_EXCEPTION"},
}};

inline constexpr std::array<Named<FaultAction>, 12> kFaultActions{{
    {FaultAction::kCrash, "crash"},
    {FaultAction::kRestart, "restart"},
    {FaultAction::kRestartWiped, "restart_wiped"},
    {FaultAction::kClose, "close"},
    {FaultAction::kStart, "start"},
    {FaultAction::kPause, "pause"},
    {FaultAction::kResume, "resume"},
    {FaultAction::kIsolate, "isolate"},
    {FaultAction::kHeal, "heal"},
    {FaultAction::kAddInstance, "add_instance"},
    {FaultAction::kUpgrade, "upgrade"},
    {FaultAction::kRemoveInstance, "remove_instance"},
}};

// A 'CrashInside' workload's crash_at and during (cluster/crash_inside.h).
inline constexpr std::array<Named<CrashInsideAt>, 4> kCrashInsideAt{{
    {CrashInsideAt::kDiskOp, "disk"},
    {CrashInsideAt::kSend, "send"},
    {CrashInsideAt::kCommit, "commit"},
    {CrashInsideAt::kRestorePoll, "restore_poll"},
}};
inline constexpr std::array<Named<uint32_t>, 9> kCrashDuring{{
    {0, "any"},
    {static_cast<uint32_t>(Operation::kCheckpoint), "checkpoint"},
    {static_cast<uint32_t>(Operation::kCheckpointFlush), "checkpoint_flush"},
    {static_cast<uint32_t>(Operation::kWritePosition), "write_position"},
    {static_cast<uint32_t>(Operation::kWriteCheckpoint), "write_checkpoint"},
    {static_cast<uint32_t>(Operation::kRestore), "restore"},
    {static_cast<uint32_t>(Operation::kStateDirectoryCleaner), "cleaner"},
    {static_cast<uint32_t>(Operation::kClose), "close"},
    {static_cast<uint32_t>(Operation::kCommit), "commit"},
}};

// expect_error: the Java exception class names StreamsError::kind_name spells.
inline constexpr std::array<StreamsError::Kind, 15> kStreamsErrorKinds{
    StreamsError::Kind::UnknownStateStore,
    StreamsError::Kind::StreamsNotStarted,
    StreamsError::Kind::StreamsStopped,
    StreamsError::Kind::InvalidStateStore,
    StreamsError::Kind::UnsupportedOperation,
    StreamsError::Kind::IllegalArgument,
    StreamsError::Kind::IllegalState,
    StreamsError::Kind::ClassCast,
    StreamsError::Kind::ProcessorState,
    StreamsError::Kind::Streams,
    StreamsError::Kind::BufferUnderflow,
    StreamsError::Kind::TaskMigrated,
    StreamsError::Kind::Serialization,
    StreamsError::Kind::TaskCorrupted,
    StreamsError::Kind::Timeout,
};

// The properties checks, expected_failures and [liveness] checks may name: the one list, in
// trace/property_names.h (docs/design.md §4).
inline constexpr const auto& kPropertyNames = property_names::kAll;

// QueryClients retry_on: which RetryPolicy switch each outcome name sets.
struct RetryOutcome {
  std::string_view name;
  bool RetryPolicy::*flag;
};
inline constexpr std::array<RetryOutcome, 6> kRetryOutcomes{{
    {"NOT_UP_TO_BOUND", &RetryPolicy::on_not_up_to_bound},
    {"NOT_ACTIVE", &RetryPolicy::on_not_active},
    {"NOT_PRESENT", &RetryPolicy::on_not_present},
    {"STREAMS_ERROR", &RetryPolicy::on_streams_error},
    {"TIMEOUT", &RetryPolicy::on_timeout},
    {"NOT_ROUTED", &RetryPolicy::on_not_routed},
}};

template <typename E, size_t N>
std::optional<E> from_name(const std::array<Named<E>, N>& table, std::string_view name) {
  for (const auto& entry : table) {
    if (entry.name == name) return entry.value;
  }
  return std::nullopt;
}

// Every enum value is in its table; a value missing from one is a programmer error.
template <typename E, size_t N>
std::string_view name_of(const std::array<Named<E>, N>& table, E value) {
  for (const auto& entry : table) {
    if (entry.value == value) return entry.name;
  }
  IQ_ASSERT(false, "an enum value with no name in its scenario table: {}", static_cast<int>(value));
  return "?";
}

// "'a' | 'b' | 'c'", for error messages and the README.
template <typename E, size_t N>
std::string names_list(const std::array<Named<E>, N>& table) {
  std::string out;
  for (const auto& entry : table) {
    if (!out.empty()) out += " | ";
    out += "'" + std::string(entry.name) + "'";
  }
  return out;
}

}  // namespace iq::sim::names
