// First contact with the browser package under Node with Dawn, as a page
// meets it: the process's first MSM with the default background warm-up
// (the call runs on the CPU in wasm while the GPU compiles), the warm-up's
// progress, `ready()`, and the first GPU call after it. Every result is
// checked against arkworks in wasm (`cpuMsm`). One JSON line on stdout.
//
//   node first-contact.mjs [--curve bn254|bls12-381] [--group g1|g2] [--logn 12]
//                          [--max-logn 20]  # warmUpMaxPoints = 2^max-logn
//                          [--dawn "backend=vulkan"]
import { parseArgs } from "node:util";

import init, { MsmContext, SampleInputs, cpuMsm } from "msm-wasm";

const { values: args } = parseArgs({
  options: {
    curve: { type: "string", default: "bn254" },
    group: { type: "string", default: "g1" },
    logn: { type: "string", default: "12" },
    "max-logn": { type: "string", default: "20" },
    dawn: { type: "string", default: "backend=vulkan" },
  },
});

const t0 = performance.now();
const s = (t) => Number(((t - t0) / 1e3).toFixed(3));
const equal = (a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;
const group = { curve: args.curve, group: args.group };
const n = 1 << Number(args.logn);

await init({ dawnOptions: args.dawn.split(" ").filter(Boolean) });
const progress = [];
const ctx = await MsmContext.create({
  ...group,
  warmUpMaxPoints: 1 << Number(args["max-logn"]),
  onProgress: (p) => {
    progress.push({ at: s(performance.now()), ...p });
    console.error(`warm-up ${p.done}/${p.total} at ${s(performance.now())} s${p.failed ? `: ${p.failed}` : ""}`);
  },
});
const created = performance.now();
const inputs = new SampleInputs(n, 1n, group);
const t1 = performance.now();
const bases = await ctx.uploadBases(inputs.bases);
const first = await ctx.msm(bases, inputs.scalars);
const firstAt = performance.now();
const want = cpuMsm(inputs.bases, inputs.scalars, group);
console.error(`first call: ${(firstAt - t1).toFixed(1)} ms (${s(firstAt - (t1 - created))} s from the start) on the ${first.backend}, ${equal(first.point, want) ? "exact" : "WRONG"}`);
let ready = null;
let failed = null;
try {
  await ctx.ready();
  ready = performance.now();
} catch (e) {
  failed = e.message;
}
const t2 = performance.now();
const gpu = await ctx.msm(bases, inputs.scalars);
const gpuAt = performance.now();
const row = {
  group: `${args.curve} ${args.group}`,
  adapter: ctx.adapter.name,
  n,
  context_s: s(created),
  // process start to the first result, less making the sample inputs
  first_call_s: s(firstAt - (t1 - created)),
  first_call_ms: Number((firstAt - t1).toFixed(1)),
  first_backend: first.backend,
  first_exact: equal(first.point, want),
  ready_s: ready && s(ready),
  failed,
  gpu_call_ms: Number((gpuAt - t2).toFixed(1)),
  gpu_backend: gpu.backend,
  gpu_exact: equal(gpu.point, want),
  progress,
};
console.log(JSON.stringify(row));
process.exit(row.first_exact && row.gpu_exact ? 0 : 1);
