// The browser package in Node, as an npm user runs it: `npm install msm-wasm
// webgpu`, then this file. `init()` sets up WebGPU from the `webgpu` package
// (Dawn, Chrome's WebGPU engine) and loads the .wasm; the rest is the browser
// API. Commits to a polynomial over a seeded SRS and checks the result
// against arkworks (run in the same wasm instance, on the CPU).
//
//   node example.mjs [logn]        # default 12
import init, { MsmContext, SampleInputs, cpuMsm } from "msm-wasm";

const logn = Number(process.argv[2] ?? 12);
await init();
const ctx = await MsmContext.create();
console.log(`adapter: ${ctx.adapter.name || "(unnamed)"} (${ctx.adapter.adapterClass})`);

const inputs = new SampleInputs(1 << logn, 1n); // stand-ins for an SRS and coefficients
const srs = await ctx.uploadBases(inputs.bases); // once per base set; checked on the GPU
let t = performance.now();
const first = await ctx.msm(srs, inputs.scalars); // compiles the pipelines
console.log(`2^${logn} points: first MSM ${(performance.now() - t).toFixed(0)} ms`);
t = performance.now();
const result = await ctx.msm(srs, inputs.scalars);
console.log(`again: ${(performance.now() - t).toFixed(1)} ms, x = ${result.x}`);

const ok = Buffer.from(first.point).equals(Buffer.from(cpuMsm(inputs.bases, inputs.scalars)));
console.log(ok ? "equal to arkworks" : "DIFFERS from arkworks");
process.exit(ok ? 0 : 1);
