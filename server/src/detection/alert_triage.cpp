#include "detection/alert_triage.h"

#include <optional>

#include <nlohmann/json.hpp>

#include "common/client_error.h"
#include "common/clock.h"
#include "common/iso8601.h"
#include "common/json_body.h"
#include "common/alert_states.h"

using nlohmann::json;

namespace shaderwatch {

void set_alert_state(Database& db, std::int64_t id, std::string_view body, const std::string& by) {
  if (body.size() > 65536) throw ClientError(413, "body larger than 64 KiB");
  const json j = parse_json_object(body, 8);
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "state" && it.key() != "note") throw ClientError(400, "unknown field", it.key());
  if (!j.contains("state")) throw ClientError(400, "missing required field", "state");
  if (!j["state"].is_string() || !kAlertStates.count(j["state"].get<std::string>()))
    throw ClientError(400, "must be one of new, acknowledged, expected, fixed, invalid", "state");
  std::optional<std::string> note;
  if (j.contains("note")) {
    if (!j["note"].is_string()) throw ClientError(400, "must be a string", "note");
    note = j["note"].get<std::string>();
    if (note->size() > 4096) throw ClientError(400, "longer than 4096 characters", "note");
  }
  auto lk = db.write();
  auto& w = lk.conn();
  auto& st = w.q("UPDATE alerts SET state=?, note=COALESCE(?, note), state_by=?, updated_at=? WHERE id=?");
  st.bind(1, j["state"].get<std::string>()).bind(2, note).bind(3, by)
      .bind(4, format_iso8601_ms(now_ms())).bind(5, id).run();
  if (st.changes() == 0) throw ClientError(404, "no alert with id " + std::to_string(id), "id");
}

}  // namespace shaderwatch
