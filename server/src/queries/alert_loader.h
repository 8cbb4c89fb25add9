// An alert read as the API shows it (alert_answer.h), by id; shared by every answer that lists alerts.
#pragma once

#include <cstdint>

#include "queries/alert_answer.h"
#include "storage/sql.h"

namespace shaderwatch {

// ClientError 404 where there is no such alert.
Alert load_alert(sql::Conn& c, std::int64_t id);

}  // namespace shaderwatch
