// The browser package under Node with Dawn, timed as a page would see it:
// per size, uploadBases, the cold first call, warm calls (median, min, max;
// untimed, and timed with per-pass GPU timestamps), where the host time
// goes, and the verdict. Every result
// is checked: against arkworks in wasm (`cpuMsm`) up to 2^14 points, else
// against a file of the expected point (`msm-cli msm --out`, itself checked
// against arkworks) when --inputs holds one, else only warm against cold
// (and the report says so).
//
//   node bench.mjs [--sizes 16,17,20] [--reps 10] [--seed 1]
//                  [--curve bn254|bls12-381] [--group g1|g2] [--field-code unrolled|looped]
//                  [--inputs DIR]   # DIR/<logn>/{bases,scalars,expect}.bin from msm-cli gen / msm
//                  [--limits adapter|default] [--knob name=value]... [--json FILE]
//                  [--table C|auto]  # uploadBases(bytes, { tableBits }): a table of shifted bases
//                  [--upload-reps K]  # K more uploads of the bases after the first (warm uploadBases)
//                  [--dawn "backend=vulkan disable-dawn-features=..."]
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";

import init, { MsmContext, SampleInputs, cpuMsm, passes } from "msm-wasm";

const { values: args } = parseArgs({
  options: {
    sizes: { type: "string", default: "16,17,20" },
    reps: { type: "string", default: "10" },
    seed: { type: "string", default: "1" },
    curve: { type: "string", default: "bn254" },
    group: { type: "string", default: "g1" },
    "field-code": { type: "string" },
    inputs: { type: "string" },
    limits: { type: "string", default: "adapter" },
    knob: { type: "string", multiple: true, default: [] },
    json: { type: "string" },
    table: { type: "string" },
    "upload-reps": { type: "string", default: "0" },
    dawn: { type: "string", default: "backend=vulkan disable-dawn-features=timestamp_quantization" },
  },
});
const CPU_CHECK_MAX = 1 << 14;

const now = () => performance.now();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const stats = (xs) => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs) });
const equal = (a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;
const f = (x, d = 2) => (x == null ? "-" : x.toFixed(d));

function inputsFor(logn) {
  const dir = args.inputs && `${args.inputs}/${logn}`;
  if (dir && existsSync(`${dir}/bases.bin`)) {
    const expect = existsSync(`${dir}/expect.bin`) ? readFileSync(`${dir}/expect.bin`) : null;
    return { bases: readFileSync(`${dir}/bases.bin`), scalars: readFileSync(`${dir}/scalars.bin`), expect, from: dir };
  }
  const s = new SampleInputs(1 << logn, BigInt(args.seed), group);
  return { bases: s.bases, scalars: s.scalars, expect: null, from: `SampleInputs(2^${logn}, ${args.seed})` };
}

const group = { curve: args.curve, group: args.group };
const knobs = Object.fromEntries(args.knob.map((k) => k.split("=")));
const t0 = now();
await init({ dawnOptions: args.dawn.split(" ").filter(Boolean) });
const fieldCode = args["field-code"];
// no background warm-up: the first call's compile is part of what this measures
const ctx = await MsmContext.create({ ...group, limits: args.limits, warmUp: false, ...(fieldCode ? { fieldCode } : {}) });
const adapter = ctx.adapter;
console.error(`${args.curve} ${args.group}; adapter: ${adapter.name} (${adapter.adapterClass}), field ${adapter.fieldLayout} ${adapter.fieldCode}, ` +
  `inversion ${adapter.inversion}, limits ${args.limits}; context in ${f(now() - t0, 0)} ms`);
const rows = [];
for (const logn of args.sizes.split(",").map(Number)) {
  const n = 1 << logn;
  const inputs = inputsFor(logn);
  let t = now();
  const tableBits = args.table && (args.table === "auto" ? "auto" : Number(args.table));
  const bases = await ctx.uploadBases(inputs.bases, tableBits ? { tableBits } : undefined);
  const uploadBasesMs = now() - t;
  // warm uploads (the kernel compiled), each set freed at once
  const uploads = [];
  for (let i = 0; i < Number(args["upload-reps"]); i++) {
    t = now();
    const again = await ctx.uploadBases(inputs.bases, tableBits ? { tableBits } : undefined);
    uploads.push(now() - t);
    again.free();
  }
  const uploadBasesWarmMs = uploads.length ? median(uploads) : null;
  const options = { ...knobs, timing: adapter.timestamps };
  t = now();
  const cold = await ctx.msm(bases, inputs.scalars, options);
  const coldMs = now() - t;
  // Timed and untimed calls alternate: timestamps put each kernel in its
  // own compute pass, so the untimed call is the end-to-end figure.
  const warm = [];
  const untimed = [];
  for (let i = 0; i < Number(args.reps); i++) {
    for (const timing of [true, false]) {
      if (!adapter.timestamps && timing) continue;
      t = now();
      const r = await ctx.msm(bases, inputs.scalars, { ...options, timing });
      const ms = now() - t;
      if (timing) warm.push({ ms, timings: r.timings });
      else untimed.push(ms);
      if (!equal(r.point, cold.point)) throw new Error(`2^${logn}: warm run ${i} differs from the cold run`);
    }
  }
  if (warm.length === 0) warm.push(...untimed.map((ms) => ({ ms, timings: {} })));
  let check = "warm = cold only";
  if (inputs.expect) check = equal(cold.point, inputs.expect) ? "ok (= expect.bin)" : "WRONG";
  else if (n <= CPU_CHECK_MAX) check = equal(cold.point, cpuMsm(inputs.bases, inputs.scalars, group)) ? "ok (= arkworks)" : "WRONG";
  const pass = passes().map((_, k) => median(warm.map((w) => w.timings.gpuPassMs?.[k] ?? NaN)));
  const host = Object.fromEntries(
    ["prepareMs", "uploadMs", "submitMs", "waitMs", "hostCombineMs", "gpuSpanMs"].map((k) => [
      k,
      median(warm.map((w) => w.timings[k] ?? NaN)),
    ]),
  );
  const kernelNames = Object.keys(warm[0]?.timings.gpuKernelMs ?? {});
  const gpuKernelMs = Object.fromEntries(
    kernelNames.map((k) => [k, median(warm.map((w) => w.timings.gpuKernelMs[k] ?? NaN))]),
  );
  const warmStats = stats(untimed);
  const timedStats = stats(warm.map((w) => w.ms));
  const gpuSum = pass.reduce((a, b) => a + b, 0);
  const row = {
    logn, n, curve: args.curve, group: args.group, inputs: inputs.from, adapter: adapter.name, adapterClass: adapter.adapterClass,
    fieldLayout: adapter.fieldLayout, limits: args.limits, knobs, windowBits: cold.windowBits,
    uploadBasesMs, uploadBasesWarmMs, tableBits: bases.tableBits ?? null, coldMs, point: Buffer.from(cold.point).toString("hex"), warm: warmStats, warmTimed: timedStats,
    gpuPassMs: Object.fromEntries(passes().map((p, k) => [p, pass[k]])),
    gpuKernelMs, gpuSumMs: gpuSum, hostMs: timedStats.median - gpuSum, host, check,
  };
  rows.push(row);
  console.error(`2^${logn}: warm ${f(warmStats.median)} ms (${f(warmStats.min)}..${f(warmStats.max)}), timed ` +
    `${f(timedStats.median)}, GPU ${f(gpuSum)} [${pass.map((x) => f(x)).join(" / ")}], timed - GPU ${f(row.hostMs)}, cold ${f(coldMs, 0)}, ` +
    `uploadBases ${f(uploadBasesMs, 1)} (warm ${f(uploadBasesWarmMs, 1)}); check: ${check}`);
  if (check === "WRONG") process.exitCode = 1;
  bases.free();
}
if (args.json) writeFileSync(args.json, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
console.log("| logn | warm ms (min..max) | warm, timed | GPU sum | " + passes().join(" / ") +
  " | timed - GPU | upload / submit / wait | cold ms | uploadBases ms | check |");
console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
for (const r of rows) {
  console.log(`| ${r.logn} | ${f(r.warm.median)} (${f(r.warm.min)}..${f(r.warm.max)}) | ${f(r.warmTimed.median)} | ${f(r.gpuSumMs)} | ` +
    `${Object.values(r.gpuPassMs).map((x) => f(x)).join(" / ")} | ${f(r.hostMs)} | ` +
    `${f(r.host.uploadMs)} / ${f(r.host.submitMs)} / ${f(r.host.waitMs)} | ${f(r.coldMs, 0)} | ${f(r.uploadBasesMs, 1)} | ${r.check} |`);
}
process.exit(process.exitCode ?? 0);
