// Kernel packs (harness/pack/): the example packs read and pass their checks on lavapipe; a broken variant of each
// kind fails its check; every mistake in a pack is refused on load, naming its file, line and key.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>

#include "families/kernel_family.h"
#include "lavapipe_device.h"
#include "pack/kernel_pack.h"
#include "pack/pack_limits.h"
#include "pack/manifest_table.h"
#include "suite/benchmark_suite.h"
#include "run_command.h"

namespace shaderwatch {
namespace {

namespace fs = std::filesystem;
const std::string kPacks = SHADERWATCH_PACKS;

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A copy of an example pack under a name of its own (so nothing cached of the original serves it), edited.
class PackCopy {
 public:
  PackCopy(const std::string& example, const std::string& name)
      : dir_(fs::temp_directory_path() / ("sw_pack_" + std::to_string(getpid()) + "_" + name)) {
    fs::remove_all(dir_);
    fs::copy(kPacks + "/" + example, dir_);
    fs::remove(dir_ / "expectations.json");
    replace("pack.toml", "name = \"" + example + "\"", "name = \"" + name + "\"");
  }
  ~PackCopy() { fs::remove_all(dir_); }
  // Replaces the first `from` in `file` (which must have it) by `to`.
  void replace(const std::string& file, const std::string& from, const std::string& to) {
    std::string text = read_text(dir_ / file);
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from << " not in " << file;
    text.replace(at, from.size(), to);
    std::ofstream(dir_ / file) << text;
  }
  KernelPack read() const {
    ShaderCompiler compiler;
    return read_kernel_pack(dir_.string(), compiler);
  }
  // The message read() fails with ("" where it reads).
  std::string error() const {
    try {
      read();
    } catch (const ManifestError& e) {
      return e.what();
    }
    return "";
  }
  std::string dir() const { return dir_.string(); }

 private:
  fs::path dir_;
};

const KernelSpec& kernel_named(const KernelPack& pack, const std::string& name) {
  for (const auto& k : pack.kernels)
    if (k.name == name) return k;
  throw std::invalid_argument("no " + name);
}

// The kernel on one input of its family: a size with partial edge tiles, or a count that is not a multiple of 64.
// Each broken variant gets its own seed: on lavapipe a workgroup that skips a barrier reads what the last dispatch
// left in shared memory, which was right where that dispatch summed the same data (a missing barrier then passed).
CheckResult check_once(const KernelSpec& spec, InputKind kind = InputKind::Random, uint64_t seed = 11) {
  const KernelFamily& family = kernel_family(spec.family);
  const SizeSpec size = family.size == SizeKind::Image ? SizeSpec{333, 77, 0} : SizeSpec{0, 0, 4099};
  const Problem problem = family.make_problem(kind, size, seed);
  return run_and_check(*lavapipe().device, lavapipe().compiler, spec, problem);
}

TEST(Pack, TheExamplePacksReadAsCatalogEntries) {
  ShaderCompiler compiler;
  const KernelPack seeds = read_kernel_pack(kPacks + "/seeds_hlsl", compiler);
  EXPECT_EQ(seeds.name, "seeds_hlsl");
  ASSERT_EQ(seeds.kernels.size(), 5u);
  EXPECT_NE(seeds.expectations.find("expectations.json"), std::string::npos);
  const KernelSpec& reloaded = kernel_named(seeds, "seeds_hlsl/reloaded_prefetch2_128");
  EXPECT_EQ(reloaded.family, Family::Luminance);
  EXPECT_EQ(reloaded.operation, "luminance sum");  // lum/prefetch2_128's
  EXPECT_EQ(reloaded.shaders.at(0).entry, "PostFX");
  EXPECT_EQ(reloaded.group_x, 8u);  // from the shader's [numthreads], by reflection
  EXPECT_EQ(reloaded.group_y, 16u);
  EXPECT_DOUBLE_EQ(reloaded.roundings({8, 1000, 10}), 11.0);
  const KernelSpec& two_pass = kernel_named(seeds, "seeds_hlsl/iterative_transposed");
  ASSERT_EQ(two_pass.shaders.size(), 2u);
  EXPECT_EQ(two_pass.shaders[1].entry, "CS_Average");
  EXPECT_DOUBLE_EQ(two_pass.roundings({8, 4099, 1}), (65 - 1) + 63.0);

  const KernelPack team = read_kernel_pack(kPacks + "/example_glsl", compiler);
  ASSERT_EQ(team.kernels.size(), 3u);
  EXPECT_EQ(team.kernels[0].subgroup_ops, 0x1u | 0x4u);  // basic and arithmetic, from its SPIR-V's capabilities
  EXPECT_EQ(reloaded.subgroup_ops, 0u);
  EXPECT_EQ(team.kernels[0].tile_x, 64u);
  // A pixel map takes the formula, input space and operation of the catalog's map it names.
  const KernelSpec& tonemap = kernel_named(team, "example_glsl/tonemap_reinhard_8x8");
  const KernelSpec& catalogs = find_kernel("postfx/tonemap_reinhard");
  EXPECT_EQ(tonemap.method, Method::PixelMap);
  EXPECT_EQ(tonemap.stage, catalogs.stage);
  EXPECT_EQ(tonemap.input_space, catalogs.input_space);
  EXPECT_EQ(tonemap.operation, "tone mapping");
  // A kernel with a reference shader: the family of its inputs, its operation and tolerance, from the manifest.
  const KernelSpec& box = kernel_named(team, "example_glsl/box3_shared");
  EXPECT_EQ(box.method, Method::PackReference);
  EXPECT_EQ(box.family, Family::Postfx);
  EXPECT_EQ(box.operation, "box filter 3x3");
  ASSERT_TRUE(box.reference);
  EXPECT_TRUE(box.reference->fp64);
  EXPECT_EQ(box.reference->compared.text(), "items * 4");
  EXPECT_DOUBLE_EQ(box.reference->relative, 5.9605e-7);
  EXPECT_EQ(box.reference->run.shaders.at(0).file, "example_glsl/box3_reference.comp");
  EXPECT_DOUBLE_EQ(box.reference->bound(2.0), 2 * 5.9605e-7);
  // The roofline prices what it reads and the floats it is compared on, which it writes.
  EXPECT_EQ(kernel_traffic(box, 100).bytes_read, 1600u);
  EXPECT_EQ(kernel_traffic(box, 100).bytes_written, 1600u);
  // Its own benchmark sizes, unless the run chooses sizes (--sizes, --quick).
  BenchmarkOptions options = default_benchmark_options();
  const std::vector<SizeSpec> own = benchmark_sizes(box, options);
  ASSERT_EQ(own.size(), 2u);
  EXPECT_EQ(own[0].width, 1920u);
  EXPECT_EQ(own[1].height, 1440u);
  EXPECT_EQ(benchmark_sizes(tonemap, options).size(), options.image_sizes.size());
  apply_sizes(options, "64x32");
  ASSERT_EQ(benchmark_sizes(box, options).size(), 1u);
  EXPECT_EQ(benchmark_sizes(box, options)[0].width, 64u);
  EXPECT_EQ(benchmark_sizes(box, quick_benchmark_options()).size(), quick_benchmark_options().image_sizes.size());
}

TEST(Pack, AReferenceToleranceIsTheLargestOfItsParts) {
  ReferenceShader ref;
  EXPECT_EQ(ref.bound(3.0), 0.0);  // none given: exact
  ref.ulps = 2;
  EXPECT_DOUBLE_EQ(ref.bound(1.0), 2 * 0x1p-23);  // an ULP of the float at 1
  EXPECT_DOUBLE_EQ(ref.bound(-1.5), 2 * 0x1p-23);
  ref.absolute = 1e-3;
  EXPECT_DOUBLE_EQ(ref.bound(1.0), 1e-3);
  ref.relative = 1e-2;
  EXPECT_DOUBLE_EQ(ref.bound(-1.0), 1e-2);
}

TEST(Pack, TheExampleKernelsPassTheirChecksOnLavapipe) {
  ShaderCompiler compiler;
  for (const char* name : {"seeds_hlsl", "example_glsl"}) {
    for (const KernelSpec& spec : read_kernel_pack(kPacks + "/" + name, compiler).kernels) {
      const InputKind second = spec.family == Family::Boids      ? InputKind::Whole
                               : spec.family == Family::Postfx ? InputKind::HdrTest
                                                               : InputKind::Exponents;
      for (InputKind kind : {InputKind::Random, second}) {
        const CheckResult r = check_once(spec, kind);
        EXPECT_EQ(r.status, CheckStatus::Pass) << spec.name << ": " << r.message << " " << r.first_failure;
      }
    }
  }
}

// Each a copy of an example pack with one mistake a kernel's author makes, and the kernel it breaks.
struct Broken {
  std::string what, example, file, from, to, kernel;
};

TEST(Pack, ABrokenVariantOfEachPackKernelFailsItsCheck) {
  const std::vector<Broken> broken{
      {"a dropped element", "seeds_hlsl", "reloaded_prefetch.hlsl", "f < FETCH", "f + 1 < FETCH", "reloaded_prefetch2_128"},
      {"a missing barrier", "seeds_hlsl", "reloaded_prefetch.hlsl",
       "if (GI < s) sharedMem[GI] += sharedMem[GI + s];\n    GroupMemoryBarrierWithGroupSync();",
       "if (GI < s) sharedMem[GI] += sharedMem[GI + s];", "reloaded_prefetch4_64"},
      {"a wrong binding", "seeds_hlsl", "pack.toml", "bindings = [\"input\", \"output\"]", "bindings = [\"output\", \"input\"]",
       "reloaded_prefetch2_128"},
      {"a dropped element", "seeds_hlsl", "boids_average.hlsl", "i < cnt;", "i + 1 < cnt;", "dummy_loop"},
      {"a dropped element", "seeds_hlsl", "boids_average.hlsl", "for (uint j = 0; j < 64; j++)", "for (uint j = 1; j < 64; j++)",
       "groupshared"},
      {"a missing barrier", "seeds_hlsl", "boids_average.hlsl", "  GroupMemoryBarrierWithGroupSync();\n\n  //Just", "  //Just",
       "groupshared"},
      {"a wrong binding", "seeds_hlsl", "pack.toml", "bindings = [\"partials\", \"output\"]", "bindings = [\"input\", \"output\"]",
       "iterative_transposed"},
      {"a dropped element", "example_glsl", "tile_sum.comp", "i < PIXELS", "i + 1 < PIXELS", "tile_sum_subgroup"},
      {"a missing barrier", "example_glsl", "tile_sum.comp", "  barrier();\n", "", "tile_sum_subgroup"},
      {"a dropped element", "example_glsl", "tonemap.comp", "xy.x >= p.width", "xy.x + 1 >= p.width", "tonemap_reinhard_8x8"},
      {"a wrong formula", "example_glsl", "tonemap.comp", "Y / (1.0 + Y)", "Y / (1.0 + Y * 1.0001)", "tonemap_reinhard_8x8"},
      {"a wrong binding", "example_glsl", "pack.toml", "bindings = [\"input\", \"output\"]\nworkgroups = [\"ceil(width / 8)\"",
       "bindings = [\"output\", \"input\"]\nworkgroups = [\"ceil(width / 8)\"", "tonemap_reinhard_8x8"},
      {"a dropped element", "example_glsl", "box3.comp", "xy.x >= p.width", "xy.x + 1 >= p.width", "box3_shared"},
      {"a dropped tap", "example_glsl", "box3.comp", "dx < 3", "dx < 2", "box3_shared"},
      {"a missing barrier", "example_glsl", "box3.comp", "  barrier();\n", "", "box3_shared"},
      {"a wrong binding", "example_glsl", "pack.toml", "bindings = [\"input\", \"output\"]\nworkgroups = [\"ceil(width / 16)\"",
       "bindings = [\"output\", \"input\"]\nworkgroups = [\"ceil(width / 16)\"", "box3_shared"},
      // The reference holds the kernel to its tolerance: one a hundred times tighter than the rounding fails.
      {"a tolerance tighter than its rounding", "example_glsl", "pack.toml", "relative = 5.9605e-7", "relative = 5.9605e-9",
       "box3_shared"},
  };
  int n = 0;
  for (const Broken& b : broken) {
    PackCopy copy(b.example, "broken" + std::to_string(n++));
    copy.replace(b.file, b.from, b.to);
    // Bindings that put the input where the shader may write are refused on load, before any check.
    if (const std::string error = copy.error(); !error.empty()) {
      EXPECT_EQ(b.what, "a wrong binding") << error;
      EXPECT_NE(error.find("('input') may be written by"), std::string::npos) << error;
      continue;
    }
    const KernelPack pack = copy.read();
    const KernelSpec& spec = kernel_named(pack, pack.name + "/" + b.kernel);
    const CheckResult r = check_once(spec, spec.family == Family::Boids ? InputKind::Whole : InputKind::Random, 100 + n);
    EXPECT_TRUE(is_wrong_answer(r.status)) << b.kernel << " with " << b.what << " (" << b.file << "): "
                                           << status_name(r.status) << " " << r.message;
  }
}

// Each a mistake in a pack and what its message must say.
struct Mistake {
  std::string what, file, from, to;
  std::vector<std::string> said;
};

TEST(Pack, AMistakeIsRefusedNamingItsFileLineAndKey) {
  const std::vector<Mistake> mistakes{
      {"unknown key", "pack.toml", "tile = [16, 16]\n# dot", "tiles = [16, 16]\n# dot",
       {"pack.toml:12: kernel 'reloaded_prefetch2_128': unknown key 'tiles'", "its keys: name,"}},
      {"unknown check", "pack.toml", "check = \"luminance tile sums\"", "check = \"luminance sums\"",
       {"pack.toml:11: kernel 'reloaded_prefetch2_128', key 'check': 'luminance sums' is not a check ('luminance tile sums'"}},
      {"misspelt formula name", "pack.toml", "ceil(width / 16)", "ceil(widht / 16)",
       {"pack.toml:23: kernel 'reloaded_prefetch2_128', pass 1, key 'workgroups'", "widht", "its names: width, height, items"}},
      {"missing bound", "pack.toml", "roundings = \"3 + 1 + 7\"\n", "",
       {"kernel 'reloaded_prefetch2_128', key 'roundings': missing"}},
      {"shader that does not compile", "reloaded_prefetch.hlsl", "temp += LumAt", "temp += LumAtt",
       {"kernel 'reloaded_prefetch2_128', key 'source'", "reloaded_prefetch.hlsl:30", "LumAtt"}},
      {"a binding the shader does not declare", "pack.toml", "bindings = [\"input\", \"output\"]",
       "bindings = [\"input\", \"output\", \"output\"]",
       {"pack.toml:22: kernel 'reloaded_prefetch2_128', pass 1, key 'bindings': binding 2 ('output') is not declared by "
        "reloaded_prefetch.hlsl (its reflection shows bindings 0, 1)"}},
      {"a binding the pass leaves out", "pack.toml", "bindings = [\"input\", \"output\"]", "bindings = [\"input\"]",
       {"key 'bindings': reloaded_prefetch.hlsl declares binding 1, which the pass leaves unbound: its list binds binding 0 only"}},
      {"an entry function the shader does not have", "pack.toml", "entry = \"PostFX\"", "entry = \"Main\"",
       {"kernel 'reloaded_prefetch2_128', key 'source'", "has no function named 'Main' to be its entry point"}},
      {"HLSL without its entry", "pack.toml", "entry = \"PostFX\"\n", "", {"key 'source': an HLSL shader needs its entry function"}},
      // toml++ names the line where it saw what could not follow: the next key, two lines on.
      {"not TOML", "pack.toml", "tile = [16, 16]", "tile = [16, 16", {"pack.toml:14: not TOML: Error while parsing array"}},
      {"a map that is not the catalog's", "pack.toml", "check = \"boids sum\"", "check = \"pixel map\"\nmap = \"postfx/blur_naive_r16\"",
       {"kernel 'dummy_loop', key 'map': 'postfx/blur_naive_r16' is not one of the catalog's pixel maps (postfx/rgb_to_yxy"}},
      {"a uniform buffer", "reloaded_prefetch.hlsl", "[[vk::push_constant]] cbuffer cbCS", "[[vk::binding(2)]] cbuffer cbCS",
       {"pass 1, key 'bindings': reloaded_prefetch.hlsl uses uniform block 'cbCS': a pack's kernel binds storage buffers of set 0 only"}},
      {"a buffer without its role", "pack.toml", "name = \"partials\"\nrole = \"partials\"\n", "name = \"partials\"\n",
       {"buffer 'partials', key 'role': missing"}},
      {"parameters outside a pixel map", "pack.toml", "push = [\"height\", \"width\"]", "push = [\"height\", \"width\", \"parameters\"]",
       {"key 'push': 'parameters' are the post-processing parameters"}},
      {"a name results cannot keep", "pack.toml", "name = \"dummy_loop\"", "name = \"Dummy Loop\"",
       {"the pack, kernel 3, key 'name': 'Dummy Loop': lower-case letters"}},
  };
  int n = 0;
  for (const Mistake& m : mistakes) {
    PackCopy copy("seeds_hlsl", "mistake" + std::to_string(n++));
    copy.replace(m.file, m.from, m.to);
    const std::string error = copy.error();
    ASSERT_FALSE(error.empty()) << m.what << ": read without an error";
    EXPECT_NE(error.find(copy.dir() + "/pack.toml"), std::string::npos) << m.what << ": " << error;
    for (const auto& part : m.said) EXPECT_NE(error.find(part), std::string::npos) << m.what << ": " << error;
  }
}

TEST(Pack, AMistakeInAReferenceIsRefusedNamingItsFileLineAndKey) {
  const std::string reference_pass = "[[kernel.reference.pass]]\nbindings = [\"input\", \"output\"]";
  const std::vector<Mistake> mistakes{
      {"no tolerance", "pack.toml", "tolerance = { relative = 5.9605e-7 }\n", "",
       {"pack.toml:51: kernel 'box3_shared', reference, key 'tolerance': missing"}},
      {"an empty tolerance", "pack.toml", "tolerance = { relative = 5.9605e-7 }", "tolerance = {}",
       {"pack.toml:57: kernel 'box3_shared', reference, key 'tolerance': one or more of relative, absolute and ulps is needed"}},
      {"a misspelt tolerance", "pack.toml", "{ relative = 5.9605e-7 }", "{ relativ = 5.9605e-7 }",
       {"pack.toml:57: kernel 'box3_shared', reference, tolerance: unknown key 'relativ' (its keys: relative, absolute, ulps)"}},
      {"a negative tolerance", "pack.toml", "{ relative = 5.9605e-7 }", "{ ulps = -4 }",
       {"kernel 'box3_shared', reference, tolerance, key 'ulps': a number of 0 or more is needed"}},
      {"a precision it does not know", "pack.toml", "precision = \"fp64\"", "precision = \"fp16\"",
       {"pack.toml:53: kernel 'box3_shared', reference, key 'precision': 'fp16' is not fp32 or fp64"}},
      {"inputs of no family", "pack.toml", "inputs = \"postfx\"", "inputs = \"images\"",
       {"pack.toml:40: kernel 'box3_shared', key 'inputs': 'images' is not one of the catalog's families ('lum', 'boids', 'postfx')"}},
      {"a writable input", "box3.comp", "readonly buffer Src", "buffer Src",
       {"kernel 'box3_shared', pass 1, key 'bindings': binding 0 ('input') may be written by box3.comp: declare it readonly"}},
      {"a size not of its family's kind", "pack.toml", "sizes = [\"1920x1080\",", "sizes = [\"1920\",",
       {"pack.toml:42: kernel 'box3_shared', key 'sizes': bad size '1920': expected WIDTHxHEIGHT"}},
      {"inputs beside a check with its own", "pack.toml", "tile = [64, 16]", "tile = [64, 16]\ninputs = \"lum\"",
       {"kernel 'tile_sum_subgroup', key 'inputs': only a kernel checked by its reference shader chooses its inputs"}},
      {"a reference shader that does not compile", "box3_reference.comp", "sum / 9.0", "sum / nine",
       {"kernel 'box3_shared', reference, key 'source'", "box3_reference.comp:20", "nine"}},
      {"a reference binding its shader lacks", "pack.toml", reference_pass, reference_pass.substr(0, reference_pass.size() - 1) + ", \"output\"]",
       {"kernel 'box3_shared', reference, pass 1, key 'bindings': binding 2 ('output') is not declared by box3_reference.comp"}},
  };
  int n = 0;
  for (const Mistake& m : mistakes) {
    PackCopy copy("example_glsl", "refmistake" + std::to_string(n++));
    copy.replace(m.file, m.from, m.to);
    const std::string error = copy.error();
    ASSERT_FALSE(error.empty()) << m.what << ": read without an error";
    for (const auto& part : m.said) EXPECT_NE(error.find(part), std::string::npos) << m.what << ": " << error;
  }
}

// A reference written in float works too (its output read as floats), and a reference that leaves an element
// unwritten is the pack's error, not a pass or a failure of the kernel.
TEST(Pack, AFloatReferenceIsReadAsFloatsAndAnUnwrittenElementIsAnError) {
  PackCopy copy("example_glsl", "fp32ref");
  copy.replace("pack.toml", "precision = \"fp64\"", "precision = \"fp32\"");
  copy.replace("pack.toml", "bytes = \"items * 32\"", "bytes = \"items * 16\"");
  copy.replace("pack.toml", "relative = 5.9605e-7", "relative = 1e-6");  // gamma_10, and the reference's rounding u
  copy.replace("box3_reference.comp", "dvec4 dst[]", "vec4 dst[]");
  copy.replace("box3_reference.comp", "= sum / 9.0", "= vec4(sum / 9.0)");
  const CheckResult r = check_once(kernel_named(copy.read(), "fp32ref/box3_shared"), InputKind::HdrTest);
  EXPECT_EQ(r.status, CheckStatus::Pass) << r.message << " " << r.first_failure;
  EXPECT_GT(r.worst_ratio, 0.0);

  PackCopy holes("example_glsl", "holes");
  holes.replace("box3_reference.comp", "xy.x >= p.width", "xy.x + 1 >= p.width");
  const CheckResult e = check_once(kernel_named(holes.read(), "holes/box3_shared"));
  EXPECT_EQ(e.status, CheckStatus::Error);
  EXPECT_NE(e.message.find("holes/box3_shared: its reference shader left value 1328 of 102564 NaN"), std::string::npos) << e.message;
}

// A pack of example_glsl whose box filter reads its own 64x32 image from frame.f32 (raw RGBA32F, row by row).
class FilePack : public PackCopy {
 public:
  explicit FilePack(const std::string& name, uint32_t height = 32) : PackCopy("example_glsl", name) {
    std::vector<float> pixels(64 * height * 4);
    for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = 0.25f + static_cast<float>((i * 7919) % 1000) / 37.0f;
    std::ofstream(dir() + "/frame.f32", std::ios::binary).write(reinterpret_cast<const char*>(pixels.data()),
                                                                static_cast<std::streamsize>(pixels.size() * 4));
    replace("pack.toml", "sizes = [\"1920x1080\", \"2560x1440\"]", "input = { file = \"frame.f32\", size = \"64x32\" }");
  }
};

TEST(Pack, AKernelReadsItsOwnInputFileAtItsSizeBesidesItsFamilysInputs) {
  FilePack pack("filepack");
  const KernelPack read = pack.read();
  const KernelSpec& box = kernel_named(read, "filepack/box3_shared");
  EXPECT_EQ(box.input_file, pack.dir() + "/frame.f32");
  ASSERT_EQ(box.sizes, std::vector<std::string>{"64x32"});
  BenchmarkOptions options = default_benchmark_options();
  apply_sizes(options, "1920x1080");  // the run's sizes do not move a file
  ASSERT_EQ(benchmark_sizes(box, options).size(), 1u);
  EXPECT_EQ(benchmark_sizes(box, options)[0].width, 64u);
  const Problem problem = kernel_problem(box, InputKind::File, {64, 32, 0}, 0);
  EXPECT_FLOAT_EQ(problem.data[7], 0.25f + static_cast<float>((7 * 7919) % 1000) / 37.0f);
  EXPECT_TRUE(std::regex_match(input_identity(problem), std::regex("file:frame\\.f32@[0-9a-f]{8}"))) << input_identity(problem);
  const CheckResult r = run_and_check(*lavapipe().device, lavapipe().compiler, box, problem);
  EXPECT_EQ(r.status, CheckStatus::Pass) << r.message << " " << r.first_failure;

  // --check adds a row on the file; the benchmark times the kernel on it alone, and records whose data it was.
  const auto check = run_command(std::string(SHADERWATCH_BENCH) + " --pack " + pack.dir() + " --check --filter filepack/box3 2>&1");
  EXPECT_EQ(check.exit_code, 0) << check.output;
  EXPECT_TRUE(std::regex_search(check.output, std::regex("filepack/box3_shared +64x32 +file +PASS"))) << check.output;
  EXPECT_TRUE(std::regex_search(check.output, std::regex("filepack/box3_shared +640x360 +hdr-test +PASS"))) << check.output;
  const std::string out = pack.dir() + "/run.json";
  const auto bench = run_command(std::string(SHADERWATCH_BENCH) + " --pack " + pack.dir() +
                                 " --quick --filter filepack/box3 --benchmark_out=" + out + " 2>&1");
  EXPECT_EQ(bench.exit_code, 0) << bench.output;
  const std::string json = read_text(out);
  EXPECT_NE(json.find("\"filepack/box3_shared/64x32/hot\""), std::string::npos) << json.substr(0, 2000);
  EXPECT_EQ(json.find("filepack/box3_shared/320x180"), std::string::npos) << "timed at --quick's sizes";
  EXPECT_NE(json.find(input_identity(problem)), std::string::npos) << "the file's identity is not in the results";
}

TEST(Pack, AnInputFileOfAnotherLengthOrNoneIsRefusedNamingItsKey) {
  FilePack shorter("shortfile", 31);
  const std::string wrong = shorter.error();
  EXPECT_NE(wrong.find("kernel 'box3_shared', input, key 'file': input file " + shorter.dir() + "/frame.f32 has 31744 bytes; at "
                       "64x32 it needs 32768 (four little-endian float32 per pixel, row by row)"), std::string::npos) << wrong;
  FilePack missing("nofile");
  missing.replace("pack.toml", "file = \"frame.f32\"", "file = \"frame.raw\"");
  EXPECT_NE(missing.error().find("key 'file': input file " + missing.dir() + "/frame.raw cannot be read"), std::string::npos)
      << missing.error();
  FilePack both("bothsizes");
  both.replace("pack.toml", "input = {", "sizes = [\"64x32\"]\ninput = {");
  EXPECT_NE(both.error().find("key 'sizes': a kernel with an input file runs at the file's size: input.size"), std::string::npos)
      << both.error();
}

TEST(Pack, AWorkgroupFormulaThatDoesNotDivideIsRefusedAtItsSize) {
  PackCopy copy("seeds_hlsl", "divides");
  copy.replace("pack.toml", "ceil(width / 16)", "width / 16");
  const KernelPack pack = copy.read();
  const KernelSpec& spec = kernel_named(pack, "divides/reloaded_prefetch2_128");
  EXPECT_EQ(pack_size_problem(spec, SizeKind::Image, {1920, 1080, 0}), "");
  const std::string problem = pack_size_problem(spec, SizeKind::Image, {1921, 1079, 0});
  EXPECT_NE(problem.find("divides/reloaded_prefetch2_128 at 1921x1079: 'width / 16' is 120.0625 for width=1921"),
            std::string::npos) << problem;
  EXPECT_NE(problem.find("not a whole number"), std::string::npos) << problem;

  // Tile sums are read one per workgroup: a tile that is not the workgroups' is refused at a size, not checked.
  PackCopy tiles("example_glsl", "tiles");
  tiles.replace("pack.toml", "tile = [64, 16]", "tile = [32, 16]");
  const std::string mismatch = pack_size_problem(kernel_named(tiles.read(), "tiles/tile_sum_subgroup"), SizeKind::Image,
                                                 {1920, 1080, 0});
  EXPECT_NE(mismatch.find("tiles/tile_sum_subgroup at 1920x1080: its first pass has 2040 workgroups, and its 32x16 tiles are "
                          "4080: the check reads one sum per tile from one workgroup each"), std::string::npos) << mismatch;
}

TEST(Pack, AnOutputSmallerThanItsCheckReadsIsRefusedAtItsSize) {
  PackCopy copy("seeds_hlsl", "small");
  copy.replace("pack.toml", "bytes = \"groups * 4\"", "bytes = \"groups\"");
  const KernelPack pack = copy.read();
  const std::string problem = pack_size_problem(kernel_named(pack, "small/reloaded_prefetch2_128"), SizeKind::Image, {33, 17, 0});
  EXPECT_NE(problem.find("small/reloaded_prefetch2_128 at 33x17: buffer 'output' of 6 bytes ('groups') is smaller than "
                         "the check reads, 24: one float per workgroup"), std::string::npos) << problem;

  // A reference's output must hold what is compared, and the kernel's output what the check reads.
  PackCopy ref("example_glsl", "smallref");
  ref.replace("pack.toml", "bytes = \"items * 32\"", "bytes = \"items * 16\"");
  const std::string reference = pack_size_problem(kernel_named(ref.read(), "smallref/box3_shared"), SizeKind::Image, {4, 2, 0});
  EXPECT_NE(reference.find("smallref/box3_shared at 4x2: its reference's buffer 'output' of 128 bytes ('items * 16') is "
                           "smaller than the 32 doubles compared ('items * 4')"), std::string::npos) << reference;
  PackCopy more("example_glsl", "morecompared");
  more.replace("pack.toml", "compare = \"items * 4\"", "compare = \"items * 8\"");
  const std::string compared = pack_size_problem(kernel_named(more.read(), "morecompared/box3_shared"), SizeKind::Image, {4, 2, 0});
  EXPECT_NE(compared.find("morecompared/box3_shared at 4x2: buffer 'output' of 128 bytes ('items * 16') is smaller than the "
                          "check reads, 256"), std::string::npos) << compared;

  // The reference runs on the CPU device, within its limits (lavapipe binds 128 MiB), whatever the GPU's.
  ShaderCompiler compiler;
  const KernelPack team = read_kernel_pack(kPacks + "/example_glsl", compiler);
  const KernelSpec& box = kernel_named(team, "example_glsl/box3_shared");
  DeviceInfo gpu, cpu;
  gpu.name = "a GPU", cpu.name = "llvmpipe";
  gpu.max_storage_buffer_range = 0xFFFFFFFFu, cpu.max_storage_buffer_range = 134217728;
  gpu.max_workgroup_count_x = gpu.max_workgroup_count_y = cpu.max_workgroup_count_x = cpu.max_workgroup_count_y = 65535;
  gpu.max_workgroup_invocations = cpu.max_workgroup_invocations = 1024;
  EXPECT_EQ(pack_size_problem(box, SizeKind::Image, {2560, 1440, 0}, &gpu, &cpu), "");
  const std::string past = pack_size_problem(box, SizeKind::Image, {3840, 2160, 0}, &gpu, &cpu);
  EXPECT_NE(past.find("example_glsl/box3_shared at 3840x2160 on a GPU: its reference on llvmpipe: buffer 'output' of 265420800 "
                      "bytes is past the device's maxStorageBufferRange, 134217728"), std::string::npos) << past;
  // Its input with the guard zone, 140574720 bytes at 4K, is past it too: with a float reference, that is what is said.
  DeviceInfo roomier = cpu;
  roomier.max_storage_buffer_range = 140574720 + 128;  // the input and guard fit, the fp64 output does not
  EXPECT_NE(pack_size_problem(box, SizeKind::Image, {3840, 2160, 0}, &gpu, &roomier).find("buffer 'output' of 265420800"),
            std::string::npos);
  roomier.max_storage_buffer_range = 134217728 * 2;  // the output fits; the input with its guard does too
  EXPECT_EQ(pack_size_problem(box, SizeKind::Image, {3840, 2160, 0}, &gpu, &roomier), "");
  PackCopy fp32("example_glsl", "fp32limits");
  fp32.replace("pack.toml", "precision = \"fp64\"", "precision = \"fp32\"");
  fp32.replace("pack.toml", "bytes = \"items * 32\"", "bytes = \"items * 16\"");
  const std::string input = pack_size_problem(kernel_named(fp32.read(), "fp32limits/box3_shared"), SizeKind::Image,
                                              {3840, 2160, 0}, &gpu, &cpu);
  EXPECT_NE(input.find("fp32limits/box3_shared at 3840x2160 on a GPU: its reference on llvmpipe: the input and its guard zone, "
                       "140574720 bytes, are past that device's maxStorageBufferRange, 134217728"), std::string::npos) << input;
  const std::string none = pack_size_problem(box, SizeKind::Image, {64, 64, 0}, &gpu, nullptr);
  EXPECT_NE(none.find("its reference shader runs on the CPU Vulkan device (lavapipe: Debian's mesa-vulkan-drivers), which the "
                      "Vulkan loader does not list"), std::string::npos) << none;
}

// A manifest that does not parse, and a dispatch past the device's limits at a size --check uses, both exit 4 before a
// device opens; a good pack's --check runs.
TEST(Pack, TheBenchRefusesABadPackBeforeAnyGpuWorkAndRunsAGoodOne) {
  PackCopy copy("example_glsl", "cli_bad");
  copy.replace("pack.toml", "bytes = \"groups * 4\"", "bytes = \"groups * 4 +\"");
  const auto bad = run_command(std::string(SHADERWATCH_BENCH) + " --pack " + copy.dir() + " --check 2>&1");
  EXPECT_EQ(bad.exit_code, 4) << bad.output;
  EXPECT_NE(bad.output.find("pack.toml:16: kernel 'tile_sum_subgroup', buffer 'output', key 'bytes'"), std::string::npos)
      << bad.output;
  EXPECT_EQ(bad.output.find("device:"), std::string::npos) << "a device was opened: " << bad.output;

  PackCopy big("example_glsl", "cli_big");
  big.replace("pack.toml", "\"ceil(width / 16)\", \"ceil(height / 16)\"", "\"ceil(width / 16)\", \"ceil(height / 16) * 3000\"");
  const auto past = run_command(std::string(SHADERWATCH_BENCH) + " --pack " + big.dir() + " --check 2>&1");
  EXPECT_EQ(past.exit_code, 4) << past.output;
  EXPECT_NE(past.output.find("cli_big/box3_shared at 640x360 on llvmpipe"), std::string::npos) << past.output;
  EXPECT_NE(past.output.find("'ceil(height / 16) * 3000' is 69000"), std::string::npos) << past.output;
  EXPECT_EQ(past.output.find("device:"), std::string::npos) << "a device was opened: " << past.output;

  PackCopy masks("seeds_hlsl", "cli_masks");
  // Its copy has none: one that would excuse a built-in kernel.
  std::ofstream(masks.dir() + "/expectations.json")
      << R"({"expectations": [{"id": "mask", "kernel": "lum/*", "expect": "fail", "reason": "r"}]})";
  const auto masked = run_command(std::string(SHADERWATCH_BENCH) + " --pack " + masks.dir() + " --check 2>&1");
  EXPECT_EQ(masked.exit_code, 4) << masked.output;
  EXPECT_NE(masked.output.find("entry 'mask' ('lum/*') matches lum/"), std::string::npos) << masked.output;

  const auto good = run_command(std::string(SHADERWATCH_BENCH) + " --pack " + kPacks +
                                "/example_glsl --check --filter example_glsl 2>&1");
  EXPECT_EQ(good.exit_code, 0) << good.output;
  EXPECT_NE(good.output.find("1921x1079  random/sg8     PASS"), std::string::npos) << good.output;
}

}  // namespace
}  // namespace shaderwatch
