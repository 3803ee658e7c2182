// snarkjs's Groth16 prover with its MSMs on the GPU (msm-wasm/snarkjs), on
// the circom circuits of msm-circom/tests/fixtures: with r and s fixed the
// proof equals snarkjs's own byte for byte, `snarkjs.groth16.verify`
// accepts it and proofs with fresh randomness, and the key's bases are
// uploaded once across proofs. `groth16Prover` (the host work in wasm, the
// MSMs here) gives the same proofs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as snarkjs from "snarkjs";
import { buildBn128 } from "ffjavascript";
import init from "msm-wasm";
import { accelerateSnarkjs, groth16Prover } from "msm-wasm/snarkjs";

const fixtures = new URL("../../../msm-circom/tests/fixtures/", import.meta.url);
const file = (name) => new Uint8Array(readFileSync(new URL(name, fixtures)));
const json = (name) => JSON.parse(readFileSync(new URL(name, fixtures), "utf8"));

// G2's pipelines compile for over a quarter of an hour under Dawn on
// lavapipe from a cold shader cache (the 13x20 walker and the subgroup
// test in straight-line code): by default B's G2 MSM stays snarkjs's and
// groth16Prover (which needs both groups) is left out; with
// MSM_DAWN_GROUPS=1, every MSM on the GPU and groth16Prover too.
const allGroups = Boolean(process.env.MSM_DAWN_GROUPS);

test("snarkjs's proofs with every MSM on the GPU equal snarkjs's own", async () => {
  await init();
  const curve = await buildBn128();
  try {
    await proveAndVerify(curve);
  } finally {
    await curve.terminate(); // its worker threads would keep the process alive
  }
});

async function proveAndVerify(curve) {
  // the pipelines of these circuits' sizes only (the default prepares up to 2^20)
  await assert.rejects(accelerateSnarkjs(curve, { groups: ["g3"] }), /groups must list/);
  const groups = allGroups ? ["g1", "g2"] : ["g1"];
  const acc = await accelerateSnarkjs(curve, { fallback: false, groups, context: { warmUpMaxPoints: 4096 } });
  assert.equal(acc.gpu, true);
  await acc.ready(); // every MSM on the GPU, none on the CPU while compiling
  const random = curve.Fr.random;
  try {
    for (const name of ["multiplier", "chain"]) {
      const [zkey, wtns] = [file(`${name}.zkey`), file(`${name}.wtns`)];
      const fixed = [1234567n, 7654321n];
      let k = 0;
      curve.Fr.random = () => curve.Fr.e(fixed[k++ % 2]);
      const { proof, publicSignals } = await snarkjs.groth16.prove(zkey, wtns);
      assert.deepEqual(proof, json(`${name}_proof.json`), `${name}: snarkjs's proof`);
      assert.deepEqual(publicSignals, json(`${name}_public.json`));
      curve.Fr.random = random;
      const vkey = json(`${name}_vkey.json`);
      assert.equal(await snarkjs.groth16.verify(vkey, publicSignals, proof), true);
      const uploads = acc.stats.uploads;
      const fresh = await snarkjs.groth16.prove(zkey, wtns);
      assert.notDeepEqual(fresh.proof, proof);
      assert.equal(await snarkjs.groth16.verify(vkey, fresh.publicSignals, fresh.proof), true);
      assert.equal(acc.stats.uploads, uploads, "the key's bases stay resident");
    }
    // five MSMs a proof (A, B1, B2, C, H) and one a verification (IC), all
    // on the GPU; each circuit's six base sets uploaded once (B2 left out
    // where G2 stays snarkjs's)
    const perProof = allGroups ? 5 : 4;
    assert.equal(acc.stats.msms, 4 * perProof + 4);
    assert.equal(acc.stats.cpu, 0);
    assert.equal(acc.stats.uploads, 2 * (perProof + 1));
    if (allGroups) {
      await checkProver(acc.contexts);
      await checkProver(acc.contexts, curve);
    } else {
      await assert.rejects(groth16Prover(file("multiplier.zkey"), { contexts: acc.contexts }), /a g1 and a g2 context/);
    }
  } finally {
    curve.Fr.random = random;
    acc.restore();
  }
  // restored: snarkjs's own MSMs give the same proof
  const { proof } = await snarkjs.groth16.prove(file("multiplier.zkey"), file("multiplier.wtns"));
  assert.equal(await snarkjs.groth16.verify(json("multiplier_vkey.json"), json("multiplier_public.json"), proof), true);
}


/** `groth16Prover` on the same contexts, H's FFTs in wasm or (given
 * `curve`) on ffjavascript's threads: snarkjs's proofs, verified. */
async function checkProver(contexts, curve) {
  for (const name of ["multiplier", "chain"]) {
    const prover = await groth16Prover(file(`${name}.zkey`), { contexts, curve });
    const wtns = file(`${name}.wtns`);
    const fixed = await prover.prove(wtns, { r: 1234567n, s: 7654321n, verify: true });
    assert.deepEqual(fixed.proof, json(`${name}_proof.json`), `${name}: groth16Prover, snarkjs's proof`);
    assert.deepEqual(fixed.publicSignals, json(`${name}_public.json`));
    const st = fixed.stages;
    assert.equal(st.ffts === undefined, curve === undefined, `${name}: FFT stages only on ffjavascript's threads`);
    assert.ok(st.total >= st.witness + st.hScalars + st.msmsAfterH + st.assemble - 1e-6, `${name}: the stages fit in the proof`);
    const fresh = await prover.prove(wtns);
    assert.notDeepEqual(fresh.proof, fixed.proof);
    assert.equal(await snarkjs.groth16.verify(json(`${name}_vkey.json`), fresh.publicSignals, fresh.proof), true);
    // a changed private signal (the last value's low bit): with verify,
    // the pairing check refuses the proof
    const wrong = wtns.slice();
    wrong[wrong.length - 32] ^= 1;
    await assert.rejects(prover.prove(wrong, { verify: true }), /fails the pairing check/);
    // another circuit's witness
    const other = name === "chain" ? "multiplier" : "chain";
    await assert.rejects(prover.prove(file(`${other}.wtns`)), /witness of another circuit/);
    prover.free();
  }
  await assert.rejects(groth16Prover(file("chain.wtns"), { contexts }), /not a \.zkey file/);
}
