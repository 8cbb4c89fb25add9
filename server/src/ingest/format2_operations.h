// What each kernel computes, for runs stored before documents said it (contract format 3's "operation" in the
// compiled section): the rankings compare only variants of one operation. A kernel the catalog of format 2 did
// not have is an operation of its own (its name).
#pragma once

#include <string>

namespace shaderwatch {

std::string format2_operation(const std::string& kernel);

}  // namespace shaderwatch
