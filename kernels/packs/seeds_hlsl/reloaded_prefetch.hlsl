// Seed 000, "Reloaded" (January 2015): each thread fetches FETCH consecutive pixels, converts them to luminance,
// stores their sum in shared memory, and the group reduces THREADX * THREADY values to its tile's sum.
// Compute-only port: the differences from the published shader are in README.md beside this file.

[[vk::binding(0)]] StructuredBuffer<float4> Input : register(t0);
[[vk::binding(1)]] RWStructuredBuffer<float> Result : register(u0);

[[vk::push_constant]] cbuffer cbCS
{
  int c_height;
  int c_width;  // size view port
};

#define groupthreads THREADX * THREADY
groupshared float sharedMem[groupthreads];

// The luminance of pixel (x, y), 0 past the image (the published shader reads past it at 1080p).
float LumAt(uint x, uint y, float4 LumVector)
{
  return (x < (uint)c_width && y < (uint)c_height) ? dot(Input[y * c_width + x], LumVector) : 0.0f;
}

[numthreads(THREADX, THREADY, 1)]
void PostFX(uint3 Gid : SV_GroupID, uint3 DTid : SV_DispatchThreadID, uint3 GTid : SV_GroupThreadID, uint GI : SV_GroupIndex)
{
  const float4 LumVector = float4(0.2125f, 0.7154f, 0.0721f, 0.0f);

  float temp = 0.0f;
  [unroll] for (uint f = 0; f < FETCH; ++f)
    temp += LumAt(DTid.x * FETCH + f, DTid.y, LumVector);
  sharedMem[GI] = temp;
  // wait until everything is transfered from device memory to shared memory
  GroupMemoryBarrierWithGroupSync();

  // The published tail drops the barriers below 64 threads (one AMD wavefront in lockstep); every step has one here.
  [unroll] for (uint s = groupthreads / 2; s > 0; s >>= 1)
  {
    if (GI < s) sharedMem[GI] += sharedMem[GI + s];
    GroupMemoryBarrierWithGroupSync();
  }

  // Have the first thread write out the result for each thread group: its tile's sum, in row order of the groups.
  if (GI == 0)
  {
    const uint groupsX = ((uint)c_width + THREADX * FETCH - 1) / (THREADX * FETCH);
    Result[Gid.y * groupsX + Gid.x] = sharedMem[0];
  }
}
