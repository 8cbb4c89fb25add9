// One device's part of a Google Benchmark document. With several devices (shaderwatch-bench --device all) a
// bench before result format 3 wrote them all into one document (contract: context keys swdev<N>_<name>, names
// ending /dev<N>); the server stores one run per device. `shaderwatch-server post` splits such a file here:
// context keys sw_<name> (the device's own; keys of other devices dropped, shared ones kept), names without the
// suffix, the run id suffix "-dev<N>". A document of one device is one part with an empty suffix. (The bench
// now writes one document per device itself, from where each result ran: report/result_documents.)
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace shaderwatch::upload {

// The Google Benchmark document of a file's text, in the order it was written. Throws std::invalid_argument
// when the text is not valid JSON or not a JSON object.
nlohmann::ordered_json parse_benchmark_document(const std::string& text);
// Whether the document's context has a date (the server takes a run's start from it where the run gives none).
bool document_dated(const nlohmann::ordered_json& document);

struct DevicePart {
  std::string run_id_suffix;
  std::string benchmark_json;
};
// Throws std::invalid_argument when the text is no JSON object or a benchmark of a several-device document names
// no device of its context.
std::vector<DevicePart> split_by_device(const std::string& benchmark_json);

}  // namespace shaderwatch::upload
