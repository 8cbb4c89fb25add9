#include "common/json_body.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "common/client_error.h"

namespace shaderwatch {

namespace {

// The most the parsed tree may take in memory per byte of body (see DomWithoutDuplicateKeys).
constexpr std::size_t kTreeBytesPerBodyByte = 8;

// nlohmann's own DOM builder, fed by one SAX pass that also keeps the keys of the objects open, refusing the text
// (ClientError, 400) at a duplicate key or where it is not JSON. (nlohmann's callback parser, which could do the
// same, rescans an array after each value it ends: 200,000 `{}` in one array took 7-11 s.)
// The memory the tree takes is bounded: each value is counted as it is added, at about what nlohmann's tree spends
// on it (a value's 16 bytes and its share of its array's growth, a map node per key, the heap of strings past
// the small-string buffer), and a body whose tree would pass kTreeBytesPerBodyByte times its own size is refused
// (413) as it is read. The count errs high for small values (28 bytes per byte of `{"a":1}`, which takes 17), so
// the tree a refused body reached stays under about 5 times its size. The real runs of ../shared/data take 2.8-3.0
// times theirs (counted under 4).
// Nesting deeper than max_nesting is refused as it is read too (nlohmann's parser keeps its own stack, so a deep
// text cannot overflow ours; a scan for brackets before parsing took a pass over the body of its own).
class DomWithoutDuplicateKeys : public nlohmann::json_sax<nlohmann::json> {
 public:
  // build: false checks the text only (syntax, duplicate keys, nesting) and builds nothing.
  DomWithoutDuplicateKeys(nlohmann::json& out, std::size_t body_bytes, std::size_t max_nesting, bool build = true)
      : dom_(out, true), factor_(kTreeBytesPerBodyByte), budget_(std::max<std::size_t>(factor_ * body_bytes, 1 << 20)),
        max_nesting_(max_nesting), build_(build) {}
  // Streams the elements of the array at `array_at` to `element` (parse_json_object_streaming): what is kept, with
  // the one element being built, may take twice the body.
  DomWithoutDuplicateKeys(nlohmann::json& out, std::size_t body_bytes, std::size_t max_nesting,
                          const std::vector<std::string>& array_at,
                          const std::function<void(const nlohmann::json&, std::size_t)>& element)
      : dom_(out, true), factor_(2), budget_(std::max<std::size_t>(factor_ * body_bytes, 1 << 20)),
        max_nesting_(max_nesting), build_(true), array_at_(&array_at), element_(&element) {}
  bool null() override { return value(kSlot) && emit([&](auto& d) { return d.null(); }) && element_done(); }
  bool boolean(bool v) override { return value(kSlot) && emit([&](auto& d) { return d.boolean(v); }) && element_done(); }
  bool number_integer(number_integer_t v) override {
    return value(kSlot) && emit([&](auto& d) { return d.number_integer(v); }) && element_done();
  }
  bool number_unsigned(number_unsigned_t v) override {
    return value(kSlot) && emit([&](auto& d) { return d.number_unsigned(v); }) && element_done();
  }
  bool number_float(number_float_t v, const string_t& s) override {
    return value(kSlot) && emit([&](auto& d) { return d.number_float(v, s); }) && element_done();
  }
  bool string(string_t& v) override {
    return value(kSlot + kString + heap(v)) && emit([&](auto& d) { return d.string(v); }) && element_done();
  }
  bool binary(binary_t& v) override { return dom_.binary(v); }
  bool start_object(std::size_t n) override {
    enter(false);
    if (depth_ == keys_.size()) keys_.emplace_back();
    keys_[depth_++].clear();
    return spend(kSlot + kObject) && emit([&](auto& d) { return d.start_object(n); });
  }
  bool key(string_t& k) override {
    if (!keys_[depth_ - 1].insert(std::hash<std::string_view>{}(k)))
      throw ClientError(400, "duplicate key in a JSON object", k);
    if (array_at_ && nesting_ == on_path_) last_key_ = k;
    return spend(kMapNode + heap(k)) && emit([&](auto& d) { return d.key(k); });
  }
  bool end_object() override {
    --depth_;
    return emit([&](auto& d) { return d.end_object(); }) && leave();
  }
  bool start_array(std::size_t n) override {
    enter(true);
    return spend(kSlot + kArray) && emit([&](auto& d) { return d.start_array(n); });
  }
  bool end_array() override { return emit([&](auto& d) { return d.end_array(); }) && leave(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::json::exception& e) override {
    throw ClientError(400, std::string("body is not valid JSON: ") + e.what());
  }

 private:
  // Bytes, as libstdc++ and malloc lay them out on 64-bit Linux.
  static constexpr std::size_t kSlot = 32;     // a value, and its array's spare capacity
  static constexpr std::size_t kObject = 64;   // the std::map of an object
  static constexpr std::size_t kMapNode = 96;  // a key: its tree node with the key's string and the value
  static constexpr std::size_t kString = 48;   // a string value's std::string
  static constexpr std::size_t kArray = 40;    // the std::vector of an array
  static std::size_t heap(const std::string& s) { return s.size() > 15 ? s.size() + 17 : 0; }
  // Gives an event to the element being built, else to the document's tree.
  template <class F>
  bool emit(F&& f) {
    if (!build_) return true;
    return in_element_ ? f(*element_dom_) : f(dom_);
  }
  // A container opens: one level deeper, and where it is the next key of the streamed array's path (or the array
  // itself, or one of its elements), noted.
  void enter(bool array) {
    if (++nesting_ > max_nesting_)
      throw ClientError(400, "JSON nested deeper than " + std::to_string(max_nesting_) + " levels");
    if (!array_at_) return;
    if (streaming_) {
      if (!in_element_ && nesting_ == streamed_ + 1) begin_element();
      return;
    }
    if (nesting_ == 1) {
      on_path_ = 1;  // the root: the path's keys start in it
      return;
    }
    if (on_path_ == 0 || nesting_ != on_path_ + 1 || last_key_ != (*array_at_)[on_path_ - 1]) return;
    if (on_path_ < array_at_->size()) {
      if (!array) ++on_path_;
    } else if (array) {
      streaming_ = true;
      streamed_ = nesting_;
    }
  }
  bool leave() {
    --nesting_;
    if (!array_at_) return true;
    if (in_element_ && nesting_ == streamed_) return element_done();
    if (streaming_ && nesting_ == streamed_ - 1) streaming_ = false;
    if (!streaming_ && nesting_ < on_path_) on_path_ = nesting_, last_key_.clear();
    return true;
  }
  // A value: counted, and where it is a whole element of the streamed array (a scalar), built on its own.
  bool value(std::size_t bytes) {
    if (streaming_ && !in_element_ && nesting_ == streamed_) begin_element();
    return spend(bytes);
  }
  void begin_element() {
    element_value_ = nlohmann::json();
    element_dom_.emplace(element_value_, true);
    in_element_ = true;
    element_start_ = used_;
  }
  // After a value: where it completed an element, the element is handed out and dropped, and its bytes freed.
  bool element_done() {
    if (!in_element_ || nesting_ != streamed_) return true;
    in_element_ = false;
    (*element_)(element_value_, elements_++);
    element_value_ = nlohmann::json();
    element_dom_.reset();
    used_ = element_start_;
    return true;
  }
  bool spend(std::size_t bytes) {
    if (!build_ || (used_ += bytes) <= budget_) return true;
    throw ClientError(413, "the body's JSON would take more than " + std::to_string(budget_ >> 20) +
                               " MiB to hold in memory (" + std::to_string(factor_) +
                               " times its size): too many small values");
  }

  nlohmann::detail::json_sax_dom_parser<nlohmann::json> dom_;
  // The keys of one object, as 64-bit hashes: a key twice always hashes the same, and two keys of one object with
  // the same hash (a false "duplicate", refusing only the sender's own body) take a collision made on purpose. A
  // few are scanned; past kScanned they go in a hash set. Kept across objects, so their buffers are reused.
  class ObjectKeys {
   public:
    void clear() {
      few_.clear();
      if (!many_.empty()) many_ = {};  // not clear(): a big set's buckets would be swept again for every object
    }
    bool insert(std::uint64_t h) {
      if (few_.size() < kScanned) {
        if (std::find(few_.begin(), few_.end(), h) != few_.end()) return false;
        few_.push_back(h);
        return true;
      }
      if (many_.empty()) many_.insert(few_.begin(), few_.end());
      return many_.insert(h).second;
    }

   private:
    static constexpr std::size_t kScanned = 32;
    std::vector<std::uint64_t> few_;
    std::unordered_set<std::uint64_t> many_;
  };
  std::vector<ObjectKeys> keys_;  // per open object, the first depth_ of them
  std::size_t depth_ = 0;    // objects open
  std::size_t nesting_ = 0;  // objects and arrays open
  const std::size_t factor_;  // the budget, in bytes per byte of body
  const std::size_t budget_;
  const std::size_t max_nesting_;
  const bool build_;
  std::size_t used_ = 0;
  // Streaming (array_at_ given): how far down the array's path the open containers go (0: not in the root; the
  // root object is 1), the last key seen at that level, and while inside the array its level and element.
  const std::vector<std::string>* array_at_ = nullptr;
  const std::function<void(const nlohmann::json&, std::size_t)>* element_ = nullptr;
  std::size_t on_path_ = 0;
  std::string last_key_;
  bool streaming_ = false, in_element_ = false;
  std::size_t streamed_ = 0, elements_ = 0, element_start_ = 0;
  nlohmann::json element_value_;
  std::optional<nlohmann::detail::json_sax_dom_parser<nlohmann::json>> element_dom_;
};

// nlohmann skips a byte order mark, stops at a NUL and keeps the last of duplicate keys: each would store something
// other than what the client meant to send.
void check_bytes(std::string_view body) {
  if (body.empty()) throw ClientError(400, "empty body: expected a JSON object");
  if (body.starts_with("\xEF\xBB\xBF")) throw ClientError(400, "a UTF-8 byte order mark before the JSON", "$");
  if (body.find('\0') != std::string_view::npos) throw ClientError(400, "a NUL byte in the body", "$");
}

void sax_parse(std::string_view body, DomWithoutDuplicateKeys& builder) {
  try {
    nlohmann::json::sax_parse(body.begin(), body.end(), &builder);
  } catch (const nlohmann::json::exception& e) {
    throw ClientError(400, std::string("body is not valid JSON: ") + e.what());
  }
}

}  // namespace

nlohmann::json parse_json_object(std::string_view body, std::size_t max_nesting) {
  check_bytes(body);
  nlohmann::json j;
  const auto pass = [&](bool build) {
    DomWithoutDuplicateKeys builder(j, body.size(), max_nesting, build);
    sax_parse(body, builder);
  };
  // A large body is read once without building anything first: one that is not JSON (cut short, say) is refused
  // at the cost of the body alone, not of the tree it had grown (three 60 MiB bodies cut short took 0.9 GB).
  if (body.size() >= kCheckedFirstBytes) pass(false);
  pass(true);
  if (!j.is_object()) throw ClientError(400, "body must be a JSON object", "$");
  return j;
}

nlohmann::json parse_json_object_streaming(std::string_view body, std::size_t max_nesting,
                                           const std::vector<std::string>& array_at,
                                           const std::function<void(const nlohmann::json&, std::size_t)>& element) {
  check_bytes(body);
  nlohmann::json j;
  DomWithoutDuplicateKeys builder(j, body.size(), max_nesting, array_at, element);
  sax_parse(body, builder);
  if (!j.is_object()) throw ClientError(400, "body must be a JSON object", "$");
  return j;
}

}  // namespace shaderwatch
