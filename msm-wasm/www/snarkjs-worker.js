// A Web Worker that proves with snarkjs, its MSMs on the GPU
// (msm-wasm/snarkjs), off the page's main thread. Served from the
// repository's root: the package from msm-wasm/www/pkg, snarkjs's browser
// bundle (ffjavascript inside) from msm-wasm/node's node_modules
// (scripts/setup-dawn.sh installs it). The bundle is a script that defines
// a global `snarkjs`: evaluated as one, since a module worker has no
// importScripts.
import init from "./pkg/msm_wasm.js";
import { accelerateSnarkjs } from "./pkg/snarkjs.js";

const bytes = async (url) => new Uint8Array(await (await fetch(url)).arrayBuffer());

async function loadSnarkjs() {
  const text = await (await fetch("../node/node_modules/snarkjs/build/snarkjs.min.js")).text();
  (0, eval)(text);
  return globalThis.snarkjs;
}

onmessage = async ({ data: { zkeyUrl, wtnsUrl, reps } }) => {
  const say = (m) => postMessage(m);
  try {
    const snarkjs = await loadSnarkjs();
    await init();
    const [zkey, wtns] = await Promise.all([bytes(zkeyUrl), bytes(wtnsUrl)]);
    // builds ffjavascript's bn128 curve, which snarkjs keeps in globalThis
    const vkey = await snarkjs.zKey.exportVerificationKey(zkey);
    const t = performance.now();
    const acc = await accelerateSnarkjs(globalThis.curve_bn128);
    say({ event: "accelerated", gpu: acc.gpu, reason: acc.reason, ms: performance.now() - t });
    for (let i = 0; i < reps; i++) {
      const s = performance.now();
      const { proof, publicSignals } = await snarkjs.groth16.prove(zkey, wtns);
      const ms = performance.now() - s;
      const verified = await snarkjs.groth16.verify(vkey, publicSignals, proof);
      say({ event: "proof", rep: i, ms, verified, stats: acc.stats && { ...acc.stats } });
    }
    say({ event: "done" });
  } catch (e) {
    say({ event: "error", message: String(e?.stack ?? e) });
  }
};
