// Runs a loop of LOOPS iterations of a 32-bit LCG and stores the final state.
// The host recomputes the state: any mismatch means the driver stopped the loop
// early (lavapipe caps loop iterations per invocation).
override LOOPS: u32 = 1u;

@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var h = out[gid.x];
    for (var k = 0u; k < LOOPS; k++) {
        h = h * 1664525u + 1013904223u;
    }
    out[gid.x] = h;
}
