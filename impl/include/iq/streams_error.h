#pragma once
// Kafka's exceptions on the query path, as values. Where Kafka throws out of KafkaStreams#query or
// out of a store's query(), iqsim returns one of these instead, with Kafka's message.

#include <string>

namespace iq {

struct StreamsError {
  enum class Kind {
    UnknownStateStore,     // UnknownStateStoreException
    StreamsNotStarted,     // StreamsNotStartedException
    StreamsStopped,        // StreamsStoppedException
    InvalidStateStore,     // InvalidStateStoreException (e.g. a closed caching store on KeyQuery)
    UnsupportedOperation,  // UnsupportedOperationException (versioned store given
                           // KeyQuery/RangeQuery)
    IllegalArgument,       // IllegalArgumentException
    IllegalState,          // IllegalStateException
    ClassCast,             // ClassCastException (the adapter's RocksDbIterator cast, 2.3)
    ProcessorState,        // ProcessorStateException (I/O on state files, RocksDB errors)
    Streams,               // StreamsException
    BufferUnderflow,       // java.nio.BufferUnderflowException (a truncated position header)
    TaskMigrated,  // TaskMigratedException: the member was fenced (commit failed, stale generation)
    Serialization,  // SerializationException: a deserializer given bytes of the wrong size
    TaskCorrupted,  // TaskCorruptedException: under exactly_once_v2 a task's state cannot be
                    // trusted (no .checkpoint beside non-empty stores, a commit timed out): wipe
                    // and restore
    Timeout,        // org.apache.kafka.common.errors.TimeoutException: a client call could not
                    // reach the broker (the task.timeout.ms paths retry it)
  };
  Kind kind;
  std::string message;

  static const char* kind_name(Kind k) {
    switch (k) {
      case Kind::UnknownStateStore:
        return "UnknownStateStoreException";
      case Kind::StreamsNotStarted:
        return "StreamsNotStartedException";
      case Kind::StreamsStopped:
        return "StreamsStoppedException";
      case Kind::InvalidStateStore:
        return "InvalidStateStoreException";
      case Kind::UnsupportedOperation:
        return "UnsupportedOperationException";
      case Kind::IllegalArgument:
        return "IllegalArgumentException";
      case Kind::IllegalState:
        return "IllegalStateException";
      case Kind::ClassCast:
        return "ClassCastException";
      case Kind::ProcessorState:
        return "ProcessorStateException";
      case Kind::Streams:
        return "StreamsException";
      case Kind::BufferUnderflow:
        return "BufferUnderflowException";
      case Kind::TaskMigrated:
        return "TaskMigratedException";
      case Kind::Serialization:
        return "SerializationException";
      case Kind::TaskCorrupted:
        return "TaskCorruptedException";
      case Kind::Timeout:
        return "TimeoutException";
    }
    return "?";
  }
  std::string to_string() const { return std::string(kind_name(kind)) + ": " + message; }
};

}  // namespace iq
