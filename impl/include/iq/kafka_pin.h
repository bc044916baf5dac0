#pragma once
// KafkaPin: which Kafka Streams impl/ re-implements in a run. impl/ is faithful to two commits of
// apache/kafka trunk; where they differ, the code asks the pin, in one place per difference,
// marked "pin delta N" (docs/kafka-2026-08-20.md §1 numbers the deltas; docs/fidelity-2026-08-20.md
// lists each with the Kafka commit that made it). The pin is chosen per run (StreamsConfig), like
// any config, never at compile time.

#include <cstdint>

namespace iq {

enum class KafkaPin : uint8_t {
  k2024_10_25,  // 1eb7644 (between 3.9 and 4.0): the default
  k2026_08_20,  // 8f4e08b5a3 (after 4.4)
};

// Whether `pin` has the behaviour Kafka gained at `since`.
constexpr bool at_least(KafkaPin pin, KafkaPin since) {
  return static_cast<uint8_t>(pin) >= static_cast<uint8_t>(since);
}

// The date scenario files name the pin by ('2024-10-25').
inline const char* to_string(KafkaPin pin) {
  return pin == KafkaPin::k2026_08_20 ? "2026-08-20" : "2024-10-25";
}

}  // namespace iq
