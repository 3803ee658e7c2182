// snarkjs's Groth16 prover with its randomness r and s fixed (decimal args).
import * as snarkjs from "snarkjs";
import { buildBn128 } from "ffjavascript";
import { writeFileSync } from "node:fs";
const [zkey, wtns, r, s, proofOut, publicOut] = process.argv.slice(2);
const curve = await buildBn128();
const fixed = [BigInt(r), BigInt(s)];
let k = 0;
curve.Fr.random = () => curve.Fr.e(fixed[k++ % 2]);
const { proof, publicSignals } = await snarkjs.groth16.prove(zkey, wtns);
writeFileSync(proofOut, JSON.stringify(proof, null, 1));
writeFileSync(publicOut, JSON.stringify(publicSignals, null, 1));
await curve.terminate();
