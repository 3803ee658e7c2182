// snarkjs's Groth16 prover with its MSMs on the GPU. snarkjs computes every
// MSM through ffjavascript's `curve.G1.multiExpAffine` /
// `curve.G2.multiExpAffine` (bases in ffjavascript's Montgomery layout,
// scalars as 32-byte little-endian words, a Jacobian point back);
// `accelerateSnarkjs` replaces the two on the curve object snarkjs uses with
// this package's MSM, so `snarkjs.groth16.prove` and `fullProve` run A, B
// (G1 and G2), C and H on the GPU, unchanged otherwise. A key's bases are
// converted and checked on the GPU once and stay resident across proofs.
import { MsmContext } from "./msm_wasm.js";

// Bytes of one affine point in ffjavascript's layout, per group.
const POINT_BYTES = { g1: 64, g2: 128 };
const WORD = 32;

/** A fingerprint of a base set: its length and 64 points spread over it. */
function fingerprint(bytes, size) {
  const n = bytes.byteLength / size;
  const step = Math.max(1, Math.floor(n / 64));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let h1 = 0x811c9dc5 ^ n;
  let h2 = 0x9e3779b9 ^ bytes.byteLength;
  for (let i = 0; i < n; i += step) {
    for (let o = i * size; o < (i + 1) * size; o += 4) {
      const w = view.getUint32(o, true);
      h1 = Math.imul(h1 ^ w, 0x01000193);
      h2 = Math.imul(h2 ^ w, 0x85ebca6b) ^ (h2 >>> 13);
    }
  }
  return `${n}:${h1 >>> 0}:${h2 >>> 0}`;
}

/** ffjavascript's `BigBuffer` (over 1 GiB) or a typed array, as one Uint8Array. */
function bytesOf(b) {
  if (b instanceof Uint8Array) return b;
  if (typeof b.slice === "function" && typeof b.byteLength === "number") return b.slice(0, b.byteLength);
  throw new TypeError("expected a Uint8Array or an ffjavascript BigBuffer");
}

/**
 * Makes snarkjs's Groth16 MSMs on `curve` (ffjavascript's bn128 curve, the
 * object snarkjs uses: `await ffjavascript.buildBn128()`) run on the GPU.
 * Resolves to a handle: `gpu` (false where no WebGPU device could be made:
 * snarkjs's own code then stays), `reason`, `stats` (MSMs run, base sets
 * uploaded) and `restore()`. `options.context` goes to `MsmContext.create`;
 * `options.maxBaseSets` bounds the resident base sets (default 10: two keys).
 */
export async function accelerateSnarkjs(curve, options = {}) {
  if (!curve || curve.name !== "bn128") {
    throw new Error(`accelerateSnarkjs: expected ffjavascript's bn128 curve, got ${curve && curve.name}`);
  }
  let contexts;
  try {
    const make = (group) => MsmContext.create({ ...(options.context ?? {}), curve: "bn254", group });
    contexts = { g1: await make("g1"), g2: await make("g2") };
  } catch (e) {
    if (options.fallback === false) throw e;
    return { gpu: false, reason: String(e?.message ?? e), stats: null, restore() {} };
  }
  const maxSets = options.maxBaseSets ?? 10;
  const sets = new Map(); // fingerprint -> Promise<Bases>, oldest first
  const stats = { msms: 0, uploads: 0, cpu: 0 };
  const original = { g1: curve.G1.multiExpAffine, g2: curve.G2.multiExpAffine };

  function resident(group, bytes) {
    const key = `${group}:${fingerprint(bytes, POINT_BYTES[group])}`;
    let set = sets.get(key);
    if (set) {
      sets.delete(key); // most recent last
    } else {
      stats.uploads++;
      // the GPU converts the layout and checks every point (the curve and,
      // in G2, the subgroup)
      set = contexts[group].uploadBasesMontgomery(bytes);
      set.catch(() => sets.delete(key));
    }
    sets.set(key, set);
    while (sets.size > maxSets) {
      const [oldest, dropped] = sets.entries().next().value;
      sets.delete(oldest);
      dropped.then((b) => b.free?.(), () => {});
    }
    return set;
  }

  // Our affine result (plain little-endian coordinates, zeros for the
  // identity) as ffjavascript's Jacobian point in Montgomery form.
  function toJacobian(G, raw) {
    if (raw.every((b) => b === 0)) return G.zero;
    const Fq = curve.G1.F;
    const out = new Uint8Array(raw.length + G.F.n8);
    for (let o = 0; o < raw.length; o += WORD) out.set(Fq.fromRprLE(raw, o), o);
    out.set(G.F.one, raw.length);
    return out;
  }

  const accelerated = (group, G) =>
    async function multiExpAffine(buffBases, buffScalars, logger, logText) {
      const bases = bytesOf(buffBases);
      const scalars = bytesOf(buffScalars);
      const n = Math.floor(bases.byteLength / POINT_BYTES[group]);
      if (n * POINT_BYTES[group] !== bases.byteLength || scalars.byteLength !== n * WORD) {
        // another shape than snarkjs's Groth16 calls: ffjavascript's own
        return original[group].call(G, buffBases, buffScalars, logger, logText);
      }
      if (n === 0) return G.zero;
      const set = await resident(group, bases);
      const result = await contexts[group].msm(set, scalars);
      stats.msms++;
      if (result.backend !== "gpu") stats.cpu++;
      if (logger) logger.debug(`${logText ?? "multiexp"}: ${n} points on the ${result.backend}`);
      return toJacobian(G, result.raw);
    };

  curve.G1.multiExpAffine = accelerated("g1", curve.G1);
  curve.G2.multiExpAffine = accelerated("g2", curve.G2);
  return {
    gpu: true,
    reason: null,
    contexts,
    stats,
    /** Resolves once both contexts' pipelines are compiled. */
    ready: () => Promise.all([contexts.g1.ready(), contexts.g2.ready()]),
    /** Puts ffjavascript's own MSMs back and frees the resident bases. */
    restore() {
      curve.G1.multiExpAffine = original.g1;
      curve.G2.multiExpAffine = original.g2;
      for (const set of sets.values()) set.then((b) => b.free?.(), () => {});
      sets.clear();
    },
  };
}
