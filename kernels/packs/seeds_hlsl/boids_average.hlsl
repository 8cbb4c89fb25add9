// Seed 004, "Parallel Reduction basics" (2013): the average of the boids' positions, its compute shaders. Each writes
// sums (the harness divides by the count). Compute-only port: the differences are in README.md beside this file.

[[vk::binding(0)]] StructuredBuffer<float4> PositionBuffer : register(t0);
[[vk::binding(1)]] RWStructuredBuffer<float4> RWAverageBuffer : register(u0);

[[vk::push_constant]] cbuffer cbCount
{
  uint cnt;  // positions to add (the published dummy loop asks GetDimensions)
};

// 3/ Dummy loop: one thread adds every position.
[numthreads(1, 1, 1)]
void CS_Average(uint3 dtid : SV_DispatchThreadID)
{
  float3 sum = 0;
  for (uint i = 0; i < cnt; i++)
  {
    sum += PositionBuffer[i].xyz;
  }
  RWAverageBuffer[0] = float4(sum, 0);
}

// 4/ Iterative, transposed reads: 64 threads, each a run of consecutive positions (the published one: 64 of them,
// for 4096 positions); the dummy loop then adds the 64 sums.
// The sum of thread t's run of consecutive positions: the transposed reads of 4/ and 5/.
float3 RunSum(uint t)
{
  const uint per = (cnt + 63) / 64;
  float3 sum = 0;
  for (uint i = 0; i < per; i++)
  {
    uint idx = t * per + i;
    if (idx < cnt) sum += PositionBuffer[idx].xyz;
  }
  return sum;
}

[numthreads(64, 1, 1)]
void CS_AverageTransposed(uint3 dtid : SV_DispatchThreadID)
{
  RWAverageBuffer[dtid.x] = float4(RunSum(dtid.x), 0);
}

// 5/ groupshared and thread sync: the same 64 sums in shared memory, then thread 0 adds them, in one pass.
groupshared float3 averages[64];

[numthreads(64, 1, 1)]
void CS_AverageGroupshared(uint3 dtid : SV_DispatchThreadID)
{
  //Compute 64 sums in parallel
  averages[dtid.x] = RunSum(dtid.x);

  /*We need to wait for all threads to execute,
  so our groupshared is ready to use */
  GroupMemoryBarrierWithGroupSync();

  //Just make sure only one thread finish the job
  if (dtid.x > 0) { return; }

  float3 endsum = 0;
  for (uint j = 0; j < 64; j++)
  {
    endsum += averages[j];
  }
  RWAverageBuffer[0] = float4(endsum, 0);
}
