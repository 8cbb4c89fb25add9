// A person's word on an alert: its state (new, acknowledged, expected, fixed, invalid) and a note.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "storage/database.h"

namespace shaderwatch {

// body: {"state": ..., "note": ...}. ClientError 400 naming the field, 404 for an unknown alert, 413 past 64 KiB.
void set_alert_state(Database& db, std::int64_t id, std::string_view body, const std::string& by);

}  // namespace shaderwatch
