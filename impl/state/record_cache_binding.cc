#include "state/record_cache_binding.h"

namespace iq {

void RecordCacheBinding::init(StateStoreContext& context, const std::string& store_name,
                              EntryWriter writer) {
  context_ = &context;
  store_name_ = store_name;
  cache_name_ = ThreadCache::name_space(context.task_id(), store_name);
  writer_ = std::move(writer);
  (void)cache();
}

ThreadCache& RecordCacheBinding::cache() {
  ThreadCache* current = context().cache();
  IQ_ASSERT(current != nullptr, "caching {} store {} needs a thread cache", layer_, store_name_);
  if (current != listener_registered_on_) {
    current->add_dirty_entry_flush_listener(cache_name_,
                                            [this](const std::vector<DirtyEntry>& entries) {
                                              for (const auto& e : entries) {
                                                auto s = writer_(e);
                                                if (!s) return s;
                                              }
                                              return ok_status();
                                            });
    listener_registered_on_ = current;
  }
  return *current;
}

Status RecordCacheBinding::put_dirty(const Bytes& cache_key, const ValueBytes& value) {
  const RecordContext* rc = context().record_context();
  LRUCacheEntry entry{value, rc != nullptr ? *rc : RecordContext{}, /*dirty=*/true};
  return cache().put(cache_name_, cache_key, std::move(entry));
}

void RecordCacheBinding::close() {
  if (context_ == nullptr) return;
  auto s = cache().flush(cache_name_);
  IQ_ASSERT(s.has_value(), "flushing cache of {} on close: {}", store_name_,
            s ? "" : s.error().to_string());
  cache().close(cache_name_);
}

}  // namespace iq
