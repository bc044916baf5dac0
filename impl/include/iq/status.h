#pragma once
// Status: the result of an operation that returns nothing but can fail with one of Kafka's
// exceptions (as a value). Every folder of impl/ returns it, so it lives in the vocabulary rather
// than in any one of them.

#include "base/expected.h"
#include "iq/streams_error.h"

namespace iq {

struct Unit {};
using Status = base::Expected<Unit, StreamsError>;
inline Status ok_status() {
  return Unit{};
}

}  // namespace iq
