// A Web Worker that proves a circom circuit off the page's main thread,
// every MSM on the GPU: with the package's own prover (`groth16Prover`,
// the default) or with `snarkjs.groth16.prove` after `accelerateSnarkjs`
// (`prover: "snarkjs"`); snarkjs checks each proof. Served from the
// repository's root: the package from msm-wasm/www/pkg, snarkjs's browser
// bundle (ffjavascript inside) from msm-wasm/node's node_modules
// (scripts/setup-dawn.sh installs it). The bundle is a script that defines
// a global `snarkjs`: evaluated as one, since a module worker has no
// importScripts.
import init from "./pkg/msm_wasm.js";
import { accelerateSnarkjs, groth16Prover } from "./pkg/snarkjs.js";

const bytes = async (url) => {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${response.status} ${response.statusText}`);
  return new Uint8Array(await response.arrayBuffer());
};

async function loadSnarkjs() {
  const text = await (await fetch("../node/node_modules/snarkjs/build/snarkjs.min.js")).text();
  (0, eval)(text);
  return globalThis.snarkjs;
}

onmessage = async ({ data: { zkeyUrl, wtnsUrl, reps, prover = "package" } }) => {
  const say = (m) => postMessage(m);
  const since = (t) => Math.round((performance.now() - t) * 10) / 10;
  try {
    const snarkjs = await loadSnarkjs();
    await init();
    let t = performance.now();
    const [zkey, wtns] = await Promise.all([bytes(zkeyUrl), bytes(wtnsUrl)]);
    say({ event: "fetched", zkeyBytes: zkey.byteLength, wtnsBytes: wtns.byteLength, ms: since(t) });
    // builds ffjavascript's bn128 curve, which snarkjs keeps in globalThis
    const vkey = await snarkjs.zKey.exportVerificationKey(zkey);
    const curve = globalThis.curve_bn128;
    t = performance.now();
    const acc = await accelerateSnarkjs(curve);
    say({ event: "accelerated", gpu: acc.gpu, reason: acc.reason, ms: since(t) });
    // without WebGPU snarkjs's own code proves (accelerateSnarkjs left it)
    let prove = (w) => snarkjs.groth16.prove(zkey, w);
    let used = "snarkjs";
    if (prover === "package" && acc.gpu) {
      t = performance.now();
      const own = await groth16Prover(zkey, { contexts: acc.contexts, curve });
      say({ event: "prover", domainSize: own.key.domainSize, ms: since(t) });
      prove = (w) => own.prove(w);
      used = "package";
    }
    for (let i = 0; i < reps; i++) {
      t = performance.now();
      const { proof, publicSignals } = await prove(wtns);
      const ms = since(t);
      const verified = await snarkjs.groth16.verify(vkey, publicSignals, proof);
      say({ event: "proof", rep: i, prover: used, ms, verified, stats: acc.stats && { ...acc.stats } });
    }
    say({ event: "done" });
  } catch (e) {
    say({ event: "error", message: String(e?.stack ?? e) });
  }
};
