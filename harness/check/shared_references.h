#pragma once
// References that several kernels' checks share: blur naive and blur shared expect the same image from the same
// input, and at 8K that reference costs a minute of CPU time. The first check that asks makes it; it is kept for as
// many checks as were announced with expect() (the benchmark suite knows which kernels it will run), then let go, so
// that memory holds it only while a check still needs it. A check not announced makes its own.
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace shaderwatch {

class SharedReferences {
 public:
  // One more check will ask for `key`.
  void expect(const std::string& key);
  // The reference of `key`, made with `make` by the first caller; callers at the same time wait for it. Every
  // caller of a key must make the same type T.
  template <class T>
  std::shared_ptr<const T> get(const std::string& key, const std::function<T()>& make) {
    const std::shared_ptr<Slot> slot = take(key);
    std::call_once(slot->once, [&] {
      slot->value = std::make_shared<const T>(make());
      std::lock_guard lock(mutex_);
      ++made_;
    });
    return std::static_pointer_cast<const T>(slot->value);
  }
  // How many references it has made so far.
  int made() const {
    std::lock_guard lock(mutex_);
    return made_;
  }

 private:
  struct Slot {
    std::once_flag once;
    std::shared_ptr<const void> value;
  };
  struct Entry {
    int callers_left = 0;
    std::shared_ptr<Slot> slot;
  };
  // The key's slot, forgotten here once its last announced caller has it.
  std::shared_ptr<Slot> take(const std::string& key);
  mutable std::mutex mutex_;
  std::map<std::string, Entry> entries_;
  int made_ = 0;
};

// From `shared` where there is one, else made here.
template <class T>
std::shared_ptr<const T> shared_reference(SharedReferences* shared, const std::string& key, const std::function<T()>& make) {
  return shared ? shared->get<T>(key, make) : std::make_shared<const T>(make());
}

}  // namespace shaderwatch
