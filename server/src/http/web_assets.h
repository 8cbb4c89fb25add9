// The dashboard's files, embedded in the binary at build time (server/web/embed_web_assets.cmake).
#pragma once

#include <string_view>
#include <vector>

namespace shaderwatch::web {

struct Asset {
  std::string_view path;          // URL path, e.g. "/js/app.js"
  std::string_view content_type;  // e.g. "text/javascript; charset=utf-8"
  std::string_view etag;          // quoted content hash, e.g. "\"3f2a...\""
  std::string_view body;
};

const std::vector<Asset>& assets();

}  // namespace shaderwatch::web
