// snarkjs's Groth16 prover timed in Node: its own MSMs (ffjavascript on
// every core) or, with --gpu, every MSM on the GPU through
// msm-wasm/snarkjs under Dawn; with --prover, the package's own
// `groth16Prover` (the host work in wasm, every MSM on the GPU). Every
// proof is checked by snarkjs.groth16.verify under the key's verifying key.
//
//   node snarkjs-bench.mjs circuit.zkey witness.wtns [reps] [--gpu | --prover [--wasm-fft]]
import { readFileSync } from "node:fs";
import * as snarkjs from "snarkjs";
import { buildBn128 } from "ffjavascript";

const args = process.argv.slice(2);
const prover = args.includes("--prover");
const gpu = prover || args.includes("--gpu");
const [zkeyPath, wtnsPath, repsArg] = args.filter((a) => !a.startsWith("--"));
const reps = Number(repsArg ?? 5);
const zkey = new Uint8Array(readFileSync(zkeyPath));
const wtns = new Uint8Array(readFileSync(wtnsPath));
const vkey = await snarkjs.zKey.exportVerificationKey(zkey);
const curve = await buildBn128();
const start = performance.now();
let prove = () => snarkjs.groth16.prove(zkey, wtns);
if (gpu) {
  const { default: init } = await import("msm-wasm");
  const { accelerateSnarkjs, groth16Prover } = await import("msm-wasm/snarkjs");
  await init();
  const acc = await accelerateSnarkjs(curve, { fallback: false });
  console.log(JSON.stringify({ event: "created", ms: performance.now() - start }));
  await acc.ready();
  console.log(JSON.stringify({ event: "ready", ms: performance.now() - start }));
  if (prover) {
    const p = await groth16Prover(zkey, { contexts: acc.contexts, curve: args.includes("--wasm-fft") ? undefined : curve });
    console.log(JSON.stringify({ event: "key uploaded", ms: performance.now() - start }));
    prove = () => p.prove(wtns);
  }
}
const times = [];
for (let i = 0; i < reps; i++) {
  const t = performance.now();
  const { proof, publicSignals, stages } = await prove();
  const ms = performance.now() - t;
  const ok = await snarkjs.groth16.verify(vkey, publicSignals, proof);
  times.push(ms);
  console.log(JSON.stringify({ event: "proof", rep: i, ms, verified: ok, stages }));
  if (!ok) process.exit(1);
}
const warm = times.slice(1).sort((a, b) => a - b);
console.log(JSON.stringify({ event: "summary", gpu, prover, first_ms: times[0], warm_median_ms: warm[Math.floor(warm.length / 2)] }));
await curve.terminate();
process.exit(0);
