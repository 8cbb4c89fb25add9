// Prints every (shader, defines) pair in the catalog, one a line: "file -DNAME=VALUE ...", for the build
// step that compiles each with glslangValidator.
#include <iostream>

#include "catalog.h"

int main() {
  for (const auto& v : shaderwatch::all_shader_variants()) {
    std::cout << v.file;
    for (const auto& [name, value] : v.defines) std::cout << " -D" << name << "=" << value;
    std::cout << "\n";
  }
}
