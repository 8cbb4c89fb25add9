#!/usr/bin/env bash
# The measurement study of issue 9 on a lent NVIDIA GPU (../shared/gpu/README.md): whole default-suite
# runs, and the experiments on the two-mode samples at 7680x4320 and the hot/cold gaps at 15360x8640.
# Usage, on the GPU machine from the repository root:  bash tests/gpu/measurement_study.sh PART OUTDIR
#   PART: suite1 | suite2 | modes8k | gaps16k    (each fits one 10-minute device call)
set -uo pipefail
part=$1 out=$2
mkdir -p "$out"
bench() {  # name, then shaderwatch-bench arguments; JSON and stderr into $out, wall time on stdout
  local name=$1; shift
  local t0; t0=$(date +%s.%N)
  timeout 540 bash .device/on-device.sh shaderwatch-bench --seed 7 "$@" --benchmark_format=console \
    --benchmark_out="$out/$name.json" --benchmark_out_format=json >/dev/null 2>"$out/$name.err"
  local rc=$?
  printf '%-10s rc=%d wall=%.1f s\n' "$name" "$rc" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')"
}
postfx_8k='^postfx/(tonemap_|fused_|rgb_to|yxy_to|bright|local|coc)'
lum_16k='^lum/(interleaved_256|prefetch2_64|prefetch4_16|stats_sum_log_min_max|subgroup_add_256)$'
case $part in
  suite1 | suite2) bench "$part" ;;
  modes8k)
    bench m8k_f256 --filter "$postfx_8k" --sizes 7680x4320
    bench m8k_f96 --filter "$postfx_8k" --sizes 7680x4320 --cold-flush-mib 96
    bench m8k_alone --filter '^postfx/tonemap_uchimura$' --sizes 7680x4320 ;;
  gaps16k)
    bench g16k_f256 --filter "$lum_16k" --sizes 15360x8640
    bench g16k_f96 --filter "$lum_16k" --sizes 15360x8640 --cold-flush-mib 96 ;;
  *) echo "unknown part $part" >&2; exit 2 ;;
esac
python3 "$(dirname "$0")/summarize_study.py" "$out"/*.json
