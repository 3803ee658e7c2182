// snarkjs's Groth16 prover with its MSMs on the GPU. snarkjs computes every
// MSM through ffjavascript's `curve.G1.multiExpAffine` /
// `curve.G2.multiExpAffine` (bases in ffjavascript's Montgomery layout,
// scalars as 32-byte little-endian words, a Jacobian point back);
// `accelerateSnarkjs` replaces the two on the curve object snarkjs uses with
// this package's MSM, so `snarkjs.groth16.prove` and `fullProve` run A, B
// (G1 and G2), C and H on the GPU, unchanged otherwise. A key's bases are
// converted and checked on the GPU once and stay resident across proofs.
import { MsmContext, Groth16Key } from "./msm_wasm.js";

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
 * `options.maxBaseSets` bounds the resident base sets (default 10: two keys);
 * `options.groups` names the groups whose MSMs move (default both: G2's
 * pipelines are the larger compile, so a page may leave B's G2 MSM, one of
 * five, to snarkjs).
 */
export async function accelerateSnarkjs(curve, options = {}) {
  if (!curve || curve.name !== "bn128") {
    throw new Error(`accelerateSnarkjs: expected ffjavascript's bn128 curve, got ${curve && curve.name}`);
  }
  const groups = options.groups ?? ["g1", "g2"];
  if (!Array.isArray(groups) || groups.length === 0 || groups.some((g) => g !== "g1" && g !== "g2")) {
    throw new Error(`accelerateSnarkjs: groups must list "g1" and/or "g2", got ${JSON.stringify(groups)}`);
  }
  const contexts = {};
  try {
    const make = (group) => MsmContext.create({ ...(options.context ?? {}), curve: "bn254", group });
    for (const g of new Set(groups)) contexts[g] = await make(g);
  } catch (e) {
    for (const c of Object.values(contexts)) c.free?.();
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

  if (contexts.g1) curve.G1.multiExpAffine = accelerated("g1", curve.G1);
  if (contexts.g2) curve.G2.multiExpAffine = accelerated("g2", curve.G2);
  return {
    gpu: true,
    reason: null,
    contexts,
    stats,
    /** Resolves once the contexts' pipelines are compiled. */
    ready: () => Promise.all(Object.values(contexts).map((c) => c.ready())),
    /** Puts ffjavascript's own MSMs back and frees the resident bases. */
    restore() {
      curve.G1.multiExpAffine = original.g1;
      curve.G2.multiExpAffine = original.g2;
      for (const set of sets.values()) set.then((b) => b.free?.(), () => {});
      sets.clear();
    },
  };
}

/** `n` as `bytes` little-endian bytes. */
function le(n, bytes) {
  const out = new Uint8Array(bytes);
  for (let i = 0; i < bytes && n > 0n; i++, n >>= 8n) out[i] = Number(n & 0xffn);
  return out;
}

/**
 * A Groth16 prover for one snarkjs `.zkey` (BN254): the key read once in
 * wasm, its five queries uploaded once (converted and checked on the GPU),
 * and per proof the witness, H's scalars (one wasm call: A and B from the
 * key's coefficients, six FFTs) and the five MSMs here, snarkjs's proof
 * term for term. `prove(wtns, { r, s, verify })` resolves to `{ proof,
 * publicSignals }` as `snarkjs.groth16.prove` does; r and s (BigInts) are
 * for tests (snarkjs's proof with the same two), fresh randomness
 * otherwise; `verify` checks the pairing equation first. `options.contexts`
 * reuses `{ g1, g2 }` (e.g. `accelerateSnarkjs`'s), else `options.context`
 * goes to `MsmContext.create`. `options.curve` (ffjavascript's bn128, as
 * for `accelerateSnarkjs`) runs H's six FFTs on its worker threads;
 * without it they run in wasm on one thread.
 */
export async function groth16Prover(zkey, options = {}) {
  let contexts = options.contexts;
  if (contexts && !(contexts.g1 && contexts.g2)) {
    throw new Error("groth16Prover: options.contexts must hold a g1 and a g2 context");
  }
  const bytes = bytesOf(zkey);
  const key = Groth16Key.parse(bytes);
  if (!contexts) {
    const make = (group) => MsmContext.create({ ...(options.context ?? {}), curve: "bn254", group });
    contexts = { g1: await make("g1"), g2: await make("g2") };
  }
  const [a, b1, b2, c, h] = key.queryRanges.map(([start, end]) => bytes.subarray(start, end));
  const up = (group, q) => contexts[group].uploadBasesMontgomery(q);
  const bases = {};
  [bases.a, bases.b1, bases.b2, bases.c, bases.h] = await Promise.all([
    up("g1", a), up("g1", b1), up("g2", b2), up("g1", c), up("g1", h),
  ]);
  const Fr = options.curve?.Fr;
  // H's scalars: A, B, C at the domain in wasm, their odd-coset
  // evaluations (ifft, shift by the 2n-th root, fft) on ffjavascript's
  // threads as snarkjs computes them, A·B - C in wasm
  async function hScalars(w, t) {
    if (!Fr) return key.hScalars(w);
    const n = key.domainSize;
    const abc = key.abc(w);
    t.abc = performance.now();
    const shift = Fr.w[Math.log2(n) + 1];
    const odd = await Promise.all(
      [0, 1, 2].map(async (k) => {
        const coefficients = await Fr.ifft(abc.subarray(k * n * WORD, (k + 1) * n * WORD));
        return bytesOf(await Fr.fft(await Fr.batchApplyKey(coefficients, Fr.e(1), shift)));
      }),
    );
    t.ffts = performance.now();
    return key.joinAbc(odd[0], odd[1], odd[2]);
  }
  return {
    key,
    contexts,
    async prove(wtns, { r, s, verify = false } = {}) {
      const t = { start: performance.now() };
      const w = key.witness(bytesOf(wtns));
      t.witness = performance.now();
      const all = w.scalars;
      const priv = w.privateScalars;
      // A, B and C need only the witness: submitted before H's scalars
      const msms = [
        contexts.g1.msm(bases.a, all),
        contexts.g1.msm(bases.b1, all),
        contexts.g2.msm(bases.b2, all),
        contexts.g1.msm(bases.c, priv),
      ];
      await new Promise((done) => setTimeout(done, 0));
      t.h = performance.now();
      const hs = await hScalars(w, t);
      t.hDone = performance.now();
      const [ra, rb1, rb2, rc, rh] = await Promise.all([...msms, contexts.g1.msm(bases.h, hs)]);
      t.msms = performance.now();
      let randomness;
      if (r !== undefined || s !== undefined) {
        randomness = new Uint8Array(128);
        randomness.set(le(BigInt(r ?? 0), 64), 0);
        randomness.set(le(BigInt(s ?? 0), 64), 64);
      } else {
        randomness = crypto.getRandomValues(new Uint8Array(128));
      }
      const out = key.assemble(w, ra, rb1, rb2, rc, rh, randomness, verify);
      for (const x of [ra, rb1, rb2, rc, rh, w]) x.free?.();
      const end = performance.now();
      // where the proof's time went, ms (abc and ffts only on ffjavascript's threads)
      const stages = {
        witness: t.witness - t.start,
        hScalars: t.hDone - t.h,
        abc: t.abc === undefined ? undefined : t.abc - t.h,
        ffts: t.ffts === undefined ? undefined : t.ffts - t.abc,
        join: t.ffts === undefined ? undefined : t.hDone - t.ffts,
        msmsAfterH: t.msms - t.hDone,
        assemble: end - t.msms,
        total: end - t.start,
      };
      return { ...out, stages };
    },
    /** Frees the resident queries and the key (and the contexts this made). */
    free() {
      for (const b of Object.values(bases)) b.free?.();
      key.free?.();
      if (!options.contexts) {
        contexts.g1.free?.();
        contexts.g2.free?.();
      }
    },
  };
}
