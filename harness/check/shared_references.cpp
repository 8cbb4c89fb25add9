#include "check/shared_references.h"

namespace shaderwatch {

void SharedReferences::expect(const std::string& key) {
  std::lock_guard lock(mutex_);
  ++entries_[key].callers_left;
}

std::shared_ptr<SharedReferences::Slot> SharedReferences::take(const std::string& key) {
  std::lock_guard lock(mutex_);
  Entry& entry = entries_[key];
  if (!entry.slot) entry.slot = std::make_shared<Slot>();
  std::shared_ptr<Slot> slot = entry.slot;
  if (--entry.callers_left <= 0) entries_.erase(key);
  return slot;
}

}  // namespace shaderwatch
