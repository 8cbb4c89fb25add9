// A run read as the API lists it (run_answer.h's RunSummary), by primary key; shared by every answer that
// shows runs.
#pragma once

#include <cstdint>

#include "queries/run_answer.h"
#include "storage/sql.h"

namespace shaderwatch {

// ClientError 404 where there is no such run.
RunSummary load_run_summary(sql::Conn& c, std::int64_t run_pk);

}  // namespace shaderwatch
