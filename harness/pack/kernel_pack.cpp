#include "pack/kernel_pack.h"

#include <filesystem>
#include <regex>
#include <set>

#include "pack/manifest_table.h"
#include "shaderwatch/result_contract.h"

namespace shaderwatch {

namespace {

namespace fs = std::filesystem;

// The names an error bound's rounding count may use: ErrorContext's.
const std::vector<std::string> kRoundingsNames{"items", "groups", "subgroup_size"};

// Names are permanent keys of results: lower case, digits and underscores.
bool is_plain_name(const std::string& s) { return std::regex_match(s, std::regex("[a-z0-9_]+")); }

const PackCheck* find_check(const std::string& name) {
  for (const auto& c : pack_checks())
    if (c.name == name) return &c;
  return nullptr;
}

std::string check_names() {
  std::string s;
  for (const auto& c : pack_checks()) s += (s.empty() ? "'" : ", '") + c.name + "'";
  return s;
}

SizeFormula formula(const ManifestTable& t, const std::string& key, const std::string& text,
                    const std::vector<std::string>& names) {
  try {
    return SizeFormula(text, names);
  } catch (const FormulaError& e) {
    t.fail(key, e.what());
  }
}

PushWord push_word(const ManifestTable& pass, const std::string& word) {
  using K = PushWord::Kind;
  if (word == "width") return {K::Width};
  if (word == "height") return {K::Height};
  if (word == "items") return {K::Items};
  if (word == "groups") return {K::Groups};
  if (word == "parameters") return {K::Parameters};
  if (std::regex_match(word, std::regex("[0-9]{1,10}")) && std::stoull(word) <= 0xFFFFFFFFull)
    return {K::Value, static_cast<uint32_t>(std::stoull(word))};
  pass.fail("push", "'" + word + "' is not width, height, items, groups, parameters or a whole number");
}

BufferRole buffer_role(const ManifestTable& b, const std::string& role) {
  if (role == "output") return BufferRole::Output;
  if (role == "partials") return BufferRole::Partials;
  if (role == "counter") return BufferRole::Counter;
  b.fail("role", "'" + role + "' is not output, partials or counter");
}

// A shader of a pass: its own source, entry and defines, or the kernel's.
ShaderRef pass_shader(const std::string& pack, const fs::path& dir, const ManifestTable& kernel, const ManifestTable& pass) {
  const ManifestTable& owner = pass.has("source") ? pass : kernel;
  const std::string file = owner.text("source");
  if (file.find('/') != std::string::npos || file[0] == '.') owner.fail("source", "a file of the pack's directory is needed, not a path");
  if (!fs::is_regular_file(dir / file)) owner.fail("source", "no file " + (dir / file).string());
  ShaderRef shader{pack + "/" + file, kernel.text_table("defines"), ""};
  for (const auto& [k, v] : pass.text_table("defines")) shader.defines.emplace_back(k, v);
  if (ShaderCompiler::is_hlsl(file)) {
    shader.entry = pass.has("entry") ? pass.text("entry") : kernel.text_or("entry", "");
    if (shader.entry.empty()) owner.fail("source", "an HLSL shader needs its entry function: entry = \"...\"");
  } else if (ShaderCompiler::stage_of(file) != ShaderStage::Compute) {
    owner.fail("source", "a compute shader is needed: .comp (GLSL) or .hlsl");
  }
  return shader;
}

// The shader as compiled, or the compiler's message (with the shader's file and line) as the pack's error.
const ShaderInterface& compiled(ShaderCompiler& compiler, const ShaderRef& shader, const ManifestTable& where,
                                const fs::path& dir, const std::string& pack) {
  try {
    return compiler.interface_of(shader);
  } catch (const std::exception& e) {
    // glslang names the file as the pack's source name: say the path a person opens.
    std::string log = e.what();
    const std::string prefix = pack + "/";
    const std::string path = (dir / "").string();
    for (size_t at = 0; (at = log.find(prefix, at)) != std::string::npos; at += path.size()) log.replace(at, prefix.size(), path);
    where.fail("source", log);
  }
}

void check_bindings(const ManifestTable& pass, const ShaderInterface& shader, const std::vector<std::string>& bindings,
                    const std::string& file) {
  std::set<uint32_t> declared(shader.bindings.begin(), shader.bindings.end());
  for (uint32_t b = 0; b < bindings.size(); ++b)
    if (!declared.count(b))
      pass.fail("bindings", "binding " + std::to_string(b) + " ('" + bindings[b] + "') is not declared by " + file +
                                " (its reflection shows bindings " + [&] {
                                  std::string s;
                                  for (uint32_t d : shader.bindings) s += (s.empty() ? "" : ", ") + std::to_string(d);
                                  return s.empty() ? std::string("none") : s;
                                }() + ")");
  // The input is uploaded once and shared by every kernel that reads it: one that may write it is refused.
  for (uint32_t w : shader.writable)
    if (w < bindings.size() && bindings[w] == "input")
      pass.fail("bindings", "binding " + std::to_string(w) + " ('input') may be written by " + file +
                                ": declare it readonly (GLSL) or a StructuredBuffer (HLSL); the input is shared by every "
                                "kernel that reads it");
  for (uint32_t d : declared)
    if (d >= bindings.size())
      pass.fail("bindings", file + " declares binding " + std::to_string(d) + ", which the pass leaves unbound: its list binds " +
                                (bindings.size() == 1 ? std::string("binding 0 only")
                                                      : "bindings 0 to " + std::to_string(bindings.size() - 1)));
}

// The buffers and passes of `owner` (a kernel, or its reference) into `spec`'s plan and shaders, each shader compiled
// and its bindings checked against its reflection.
void read_plan(const std::string& pack, const fs::path& dir, ManifestTable& owner, const std::string& table,
               ShaderCompiler& compiler, KernelSpec& spec) {
  DispatchPlan plan;
  for (ManifestTable& b : owner.tables("buffer", "buffer")) {
    b.only_keys({"name", "role", "bytes"});
    PlanBuffer buffer{.name = b.text("name")};
    b.rename(owner.where() + ", buffer '" + buffer.name + "'");
    if (buffer.name == "input") b.fail("name", "'input' is the uploaded input, which every kernel has");
    if (!b.has("role") && buffer.name != "output") b.fail("role", "missing: output, partials or counter (only 'output' is output by default)");
    buffer.role = buffer_role(b, b.text_or("role", "output"));
    buffer.bytes.formula = formula(b, "bytes", b.text("bytes"), kBufferFormulaNames);
    plan.buffers.push_back(std::move(buffer));
  }
  std::vector<ManifestTable> passes = owner.tables("pass", "pass");
  if (passes.empty()) owner.fail("at least one [[" + table + ".pass]] is needed");
  if (passes.size() > contract::kMaxKernelPasses)
    owner.fail("pass", std::to_string(passes.size()) + " passes: a kernel has at most " + std::to_string(contract::kMaxKernelPasses));
  for (ManifestTable& p : passes) {
    p.only_keys({"source", "entry", "defines", "bindings", "workgroups", "push"});
    p.rename(owner.where() + ", " + p.where().substr(p.where().rfind("pass ")));
    const ShaderRef shader = pass_shader(pack, dir, owner, p);
    const ShaderInterface& reflected = compiled(compiler, shader, p.has("source") ? p : owner, dir, pack);
    PlanPass pass{.shader = spec.shaders.size(), .bindings = p.texts("bindings")};
    if (!reflected.unbindable.empty())
      p.fail("bindings", shader.file.substr(pack.size() + 1) + " uses " + reflected.unbindable[0] +
                             ": a pack's kernel binds storage buffers of set 0 only (push constants for parameters)");
    check_bindings(p, reflected, pass.bindings, shader.file.substr(pack.size() + 1));
    // The subgroup features its shaders use, from their SPIR-V: the device must have them, and --check runs the
    // kernel at every subgroup size the device can require.
    spec.subgroup_ops |= reflected.subgroup_features;
    const auto groups = p.texts("workgroups");
    if (groups.empty() || groups.size() > 2) p.fail("workgroups", "one or two formulas are needed: [x] or [x, y]");
    pass.groups.kind = Workgroups::Kind::Formula;
    pass.groups.formula_x = formula(p, "workgroups", groups[0], kWorkgroupFormulaNames);
    if (groups.size() == 2) pass.groups.formula_y = formula(p, "workgroups", groups[1], kWorkgroupFormulaNames);
    if (p.has("push"))
      for (const auto& word : p.texts("push")) pass.push.push_back(push_word(p, word));
    for (const PushWord& w : pass.push)
      if (w.kind == PushWord::Kind::Parameters && spec.family != Family::Postfx)
        p.fail("push", "'parameters' are the post-processing parameters: a kernel of postfx inputs has them");
    // The largest workgroup of its passes: the device's invocation limit and the subgroup sizes it can require
    // are judged by it (a workgroup of x, y and z is counted as x by y * z).
    const uint32_t x = reflected.local_size[0], yz = reflected.local_size[1] * reflected.local_size[2];
    if (uint64_t{x} * yz > uint64_t{spec.group_x} * spec.group_y) spec.group_x = x, spec.group_y = yz;
    spec.shaders.push_back(shader);
    plan.passes.push_back(std::move(pass));
  }
  if (const std::string error = plan_error(plan, spec.shaders.size()); !error.empty()) owner.fail(error);
  spec.plan = std::move(plan);
}

// The family of the catalog entries named "<family>/...": whose inputs and sizes a kernel with a reference runs on.
Family input_family(const ManifestTable& k) {
  const std::string inputs = k.text("inputs");
  std::string names;
  for (const KernelSpec& c : catalog()) {
    const std::string family = c.name.substr(0, c.name.find('/'));
    if (family == inputs) return c.family;
    if (c.plan && c.method != Method::PackReference && names.find("'" + family + "'") == std::string::npos)
      names += (names.empty() ? "'" : ", '") + family + "'";
  }
  k.fail("inputs", "'" + inputs + "' is not one of the catalog's families (" + names + ")");
}

// [kernel.reference]: the shader the kernel's output is compared with, run on the CPU device, and the tolerance.
std::shared_ptr<const ReferenceShader> read_reference(const std::string& pack, const fs::path& dir, ManifestTable& k,
                                                      ShaderCompiler& compiler, const KernelSpec& kernel) {
  ManifestTable r = k.table("reference", "reference");
  r.only_keys({"source", "entry", "defines", "precision", "compare", "tolerance", "buffer", "pass"});
  auto ref = std::make_shared<ReferenceShader>();
  ref->run = KernelSpec{.name = kernel.name + " (reference)", .family = kernel.family, .method = Method::PackReference,
                        .description = "the reference of " + kernel.name, .operation = kernel.operation};
  const std::string precision = r.text_or("precision", "fp32");
  if (precision != "fp32" && precision != "fp64") r.fail("precision", "'" + precision + "' is not fp32 or fp64 (what its output holds)");
  ref->fp64 = precision == "fp64";
  ref->compared = formula(r, "compare", r.text("compare"), kBufferFormulaNames);
  ManifestTable t = r.table("tolerance", "tolerance");
  t.only_keys({"relative", "absolute", "ulps"});
  if (!t.has("relative") && !t.has("absolute") && !t.has("ulps"))
    r.fail("tolerance", "one or more of relative, absolute and ulps is needed ({ absolute = 0 } for exact)");
  ref->relative = t.has("relative") ? t.number("relative") : 0;
  ref->absolute = t.has("absolute") ? t.number("absolute") : 0;
  ref->ulps = t.has("ulps") ? t.number("ulps") : 0;
  read_plan(pack, dir, r, "kernel.reference", compiler, ref->run);
  return ref;
}

KernelSpec read_kernel(const std::string& pack, const fs::path& dir, ManifestTable& k, ShaderCompiler& compiler) {
  const std::string name = k.text("name");
  if (!is_plain_name(name)) k.fail("name", "'" + name + "': lower-case letters, digits and _ only (results keep it)");
  k.rename("kernel '" + name + "'");
  k.only_keys({"name", "description", "check", "operation", "limit", "inputs", "input", "sizes", "tile", "map",
               "roundings", "reference", "source", "entry", "defines", "buffer", "pass"});
  const PackCheck* check = find_check(k.text("check"));
  if (!check) k.fail("check", "'" + k.text("check") + "' is not a check (" + check_names() + ")");
  const bool referenced = check->method == Method::PackReference;
  KernelSpec spec{.name = pack + "/" + name,
                  .family = referenced ? input_family(k) : check->family,
                  .method = check->method,
                  .description = k.text_or("description", name),
                  .operation = referenced ? k.text("operation") : k.text_or("operation", check->operation)};
  if (k.has("limit")) {
    const auto limit = contract::limit_from_word(k.text("limit"));
    if (!limit) k.fail("limit", "'" + k.text("limit") + "' is not a limit (bandwidth, latency, compute)");
    spec.limit = *limit;
  }
  if (!referenced && k.has("inputs"))
    k.fail("inputs", "only a kernel checked by its reference shader chooses its inputs ('" + check->name + "' has its own)");
  if (!referenced && k.has("reference")) k.fail("reference", "only the check 'reference shader' runs a reference shader");
  if (check->method == Method::PixelMap) {
    // The formula, input space and parameters of one of the catalog's pixel maps: its reference and per-pixel bounds.
    const KernelSpec* same = find_kernel_or_null(k.text("map"));
    if (!same || same->method != Method::PixelMap) {
      std::string maps;
      for (const KernelSpec& c : catalog())
        if (c.method == Method::PixelMap) maps += (maps.empty() ? "" : ", ") + c.name;
      k.fail("map", "'" + k.text("map") + "' is not one of the catalog's pixel maps (" + maps + ")");
    }
    spec.stage = same->stage, spec.tone_operator = same->tone_operator, spec.input_space = same->input_space;
    if (!k.has("operation")) spec.operation = same->operation;
  } else if (k.has("map")) {
    k.fail("map", "only a pixel map names the catalog's map it computes");
  }
  if (check->method == Method::LumTiles) {
    const auto tile = k.numbers("tile");
    if (tile.size() != 2) k.fail("tile", "the pixels one workgroup sums, [x, y], are needed");
    spec.tile_x = tile[0], spec.tile_y = tile[1];
  } else if (k.has("tile")) {
    k.fail("tile", "only a luminance check has tiles");
  }
  if (!check->sums && k.has("roundings"))
    k.fail("roundings", referenced ? "a reference shader's bound is its tolerance" : "a pixel map's bound is its reference's, per pixel");
  const SizeFormula roundings = formula(k, "roundings", check->sums ? k.text("roundings") : "0", kRoundingsNames);
  spec.roundings = [roundings](const ErrorContext& c) {
    return roundings.value({{"items", static_cast<double>(c.items)}, {"groups", static_cast<double>(c.groups)},
                            {"subgroup_size", static_cast<double>(c.subgroup_size)}});
  };
  if (k.has("sizes")) {
    // Its benchmark sizes, of its family's kind; --check runs the family's test inputs all the same.
    const SizeKind kind = family_size_kind(spec.family);
    for (const std::string& text : k.texts("sizes")) {
      try {
        if (parse_size(kind, text).items() == 0) throw std::invalid_argument("'" + text + "' is empty");
      } catch (const std::invalid_argument& e) {
        k.fail("sizes", e.what());
      }
      spec.sizes.push_back(text);
    }
  }
  if (k.has("input")) {
    // Its own data: a file of the pack's, at one size, which the benchmark times it on and --check checks it on.
    if (k.has("sizes")) k.fail("sizes", "a kernel with an input file runs at the file's size: input.size");
    ManifestTable in = k.table("input", "input");
    in.only_keys({"file", "size"});
    const std::string file = in.text("file");
    if (file.find('/') != std::string::npos || file[0] == '.') in.fail("file", "a file of the pack's directory is needed, not a path");
    const SizeKind kind = family_size_kind(spec.family);
    try {
      problem_from_file(spec.family, kind, parse_size(kind, in.text("size")), (dir / file).string());
    } catch (const std::invalid_argument& e) {
      in.fail(std::string(e.what()).find("bad size") == 0 ? "size" : "file", e.what());
    }
    spec.input_file = (dir / file).string();
    spec.sizes = {in.text("size")};
  }
  read_plan(pack, dir, k, "kernel", compiler, spec);
  if (referenced) spec.reference = read_reference(pack, dir, k, compiler, spec);
  return spec;
}

}  // namespace

const std::vector<PackCheck>& pack_checks() {
  static const std::vector<PackCheck> checks{
      {"luminance tile sums", Family::Luminance, Method::LumTiles, "luminance sum",
       "one float per workgroup of the first pass, in row order of the workgroups: the luminance sum of its tile",
       [](uint64_t, uint64_t groups) { return groups * 4; }},
      {"boids sum", Family::Boids, Method::BoidsSerial, "boids average",
       "one vec4 at the start of the output: the sums of the positions' x, y and z",
       [](uint64_t, uint64_t) -> uint64_t { return 16; }},
      {"pixel map", Family::Postfx, Method::PixelMap, "",
       "one vec4 per pixel, in row order: what the catalog's pixel map named by `map` writes",
       [](uint64_t items, uint64_t) { return items * 16; }, false},
      // Its family and operation are the manifest's (inputs, operation); the floats it reads, its `compare`.
      {"reference shader", Family::Luminance, Method::PackReference, "",
       "the floats its reference shader writes (`compare` of them), in the same order", nullptr, false},
  };
  return checks;
}

KernelPack read_kernel_pack(const std::string& directory, ShaderCompiler& compiler) {
  const fs::path dir(directory);
  KernelPack pack{.directory = directory};
  for (const char* file : {"pack.toml", "pack.json"}) {
    if (fs::is_regular_file(dir / file)) {
      if (!pack.manifest.empty()) throw ManifestError(directory + ": has both pack.toml and pack.json; keep one");
      pack.manifest = (dir / file).string();
    }
  }
  if (pack.manifest.empty()) throw ManifestError(directory + ": no pack.toml or pack.json (a kernel pack's manifest)");
  if (fs::is_regular_file(dir / "expectations.json")) pack.expectations = (dir / "expectations.json").string();
  const ManifestDocument doc = read_manifest(pack.manifest);
  ManifestTable root(doc, *doc.root, "the pack");
  root.only_keys({"name", "description", "kernel"});
  pack.name = root.text("name");
  if (!is_plain_name(pack.name)) root.fail("name", "'" + pack.name + "': lower-case letters, digits and _ only (results keep it)");
  for (const KernelSpec& k : catalog())
    if (k.name.substr(0, k.name.find('/')) == pack.name) root.fail("name", "'" + pack.name + "' is taken: the catalog has " + k.name);
  add_pack_sources(pack.name, directory);
  std::vector<ManifestTable> kernels = root.tables("kernel", "kernel");
  if (kernels.empty()) root.fail("kernel", "a pack has at least one [[kernel]]");
  for (ManifestTable& k : kernels) {
    KernelSpec spec = read_kernel(pack.name, dir, k, compiler);
    for (const auto& other : pack.kernels)
      if (other.name == spec.name) k.fail("name", "a second kernel named '" + spec.name + "'");
    pack.kernels.push_back(std::move(spec));
  }
  return pack;
}

}  // namespace shaderwatch
