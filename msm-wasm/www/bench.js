// The bench page: inputs from msm-wasm's seeded sampler, one context, a cold
// run, warm runs (median, min, max), per-pass GPU times where timestamp-query
// exists, and the verdict against arkworks run in wasm on the CPU.
import init, { MsmContext, SampleInputs, cpuMsm, passes } from "./pkg/msm_wasm.js";

// The page's own fields; every other form field and URL parameter is a knob,
// handed as text to msm-core's one parser (names, camelCase names or aliases
// as in docs/design.md; an empty field keeps the default).
const PAGE = ["curve", "group", "logn", "reps", "seed"];
const FORM_KNOBS = ["wtpb", "prefmem", "ws", "cachedx", "fused", "split"];
const KNOBS = [...PAGE, ...FORM_KNOBS];
const params = new URLSearchParams(location.search);
const $ = (id) => document.getElementById(id);
let context = null;

function setState(state, text) {
  document.body.dataset.state = state;
  $("status").textContent = text;
}

function row(name, value, note = "") {
  const tr = document.createElement("tr");
  for (const [cell, cls] of [[name, ""], [value, "num"], [note, ""]]) {
    const td = document.createElement("td");
    td.textContent = cell;
    if (cls) td.className = cls;
    tr.append(td);
  }
  $("rows").append(tr);
}

const ms = (x) => `${x.toFixed(2)} ms`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const equal = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);

async function run(event) {
  event?.preventDefault();
  $("run").disabled = true;
  $("rows").replaceChildren();
  $("error").textContent = "";
  $("verdict").textContent = "running";
  delete $("verdict").dataset.ok;
  try {
    const k = Object.fromEntries(KNOBS.map((name) => [name, $(name).value]));
    const n = 1 << Number(k.logn);
    setState("running", "starting WebGPU");
    // one context per curve group (each compiles its own pipelines)
    const group = { curve: k.curve, group: k.group };
    const key = `${k.curve} ${k.group}`;
    if (context?.key !== key) context = { key, ctx: await MsmContext.create({ ...group, warmUp: false }) };
    const ctx = context.ctx;
    const adapter = ctx.adapter;
    const options = { timing: adapter.timestamps };
    for (const name of FORM_KNOBS) if (k[name] !== "") options[name] = k[name];
    for (const [name, value] of params) if (!KNOBS.includes(name)) options[name] = value;
    setState("running", `generating 2^${k.logn} inputs`);
    const inputs = new SampleInputs(n, BigInt(k.seed), group);
    const basesBytes = inputs.bases;
    const scalarBytes = inputs.scalars;
    let t = performance.now();
    const bases = await ctx.uploadBases(basesBytes);
    const uploadMs = performance.now() - t;
    setState("running", "cold run (compiles shaders)");
    t = performance.now();
    const cold = await ctx.msm(bases, scalarBytes, options);
    const coldMs = performance.now() - t;
    const warm = [];
    const passMs = [];
    for (let i = 0; i < Number(k.reps); i++) {
      setState("running", `warm run ${i + 1} of ${k.reps}`);
      t = performance.now();
      const r = await ctx.msm(bases, scalarBytes, options);
      warm.push(performance.now() - t);
      if (r.gpuPassMs) passMs.push(Array.from(r.gpuPassMs));
      if (!equal(r.point, cold.point)) throw new Error(`warm run ${i + 1} differs from the cold run`);
    }
    setState("running", "arkworks on the CPU (wasm, one thread)");
    t = performance.now();
    const expected = cpuMsm(basesBytes, scalarBytes, group);
    const cpuMs = performance.now() - t;
    const ok = equal(cold.point, expected);
    $("verdict").textContent = ok ? "correct" : "WRONG";
    $("verdict").dataset.ok = String(ok);
    row("adapter", adapter.name || "(unnamed)", `${adapter.deviceType}, ${adapter.software ? "software: not GPU times" : "GPU"}; field ${adapter.fieldLayout} ${adapter.fieldCode}`);
    row("group", key, "");
    row("points", `2^${k.logn} = ${n}`, `window ${cold.windowBits} bits, ${cold.walkerThreads} walker threads`);
    row("bases upload", ms(uploadMs), "once per base set");
    row("cold", ms(coldMs), "first MSM: shader compilation, buffers");
    row("warm median", ms(median(warm)), `min ${ms(Math.min(...warm))}, max ${ms(Math.max(...warm))}, ${warm.length} runs`);
    if (passMs.length) {
      passes().forEach((name, i) => row(`  ${name}`, ms(median(passMs.map((p) => p[i]))), "GPU timestamps, median"));
    } else {
      row("per-pass GPU times", "n/a", "no timestamp-query on this adapter");
    }
    row("arkworks (wasm CPU)", ms(cpuMs), `${(cpuMs / median(warm)).toFixed(2)}x the warm median`);
    row("result x", cold.x || "identity");
    $("results").hidden = false;
    setState("done", ok ? "done" : "done: WRONG RESULT");
  } catch (e) {
    $("verdict").textContent = "error";
    $("error").textContent = String(e?.message ?? e);
    setState("error", "failed");
  } finally {
    $("run").disabled = false;
  }
}

await init();
for (const name of KNOBS) {
  if (params.has(name)) $(name).value = params.get(name);
}
$("knobs").addEventListener("submit", run);
if (!("gpu" in navigator)) {
  $("error").textContent = "This browser has no WebGPU (navigator.gpu is missing).";
  setState("error", "no WebGPU");
} else if ([...params.keys()].length > 0) {
  run();
}
