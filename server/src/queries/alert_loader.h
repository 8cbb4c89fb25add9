// An alert read as the API shows it (alert_answer.h), by id; shared by every answer that lists alerts.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "queries/alert_answer.h"
#include "storage/sql.h"

namespace shaderwatch {

// ClientError 404 where there is no such alert.
Alert load_alert(sql::Conn& c, std::int64_t id);
// The alerts of `ids`, in that order, read a batch at a time; ClientError 404 names the first that is not there.
std::vector<Alert> load_alerts(sql::Conn& c, std::span<const std::int64_t> ids);

}  // namespace shaderwatch
