// Types of snarkjs.js: snarkjs's Groth16 MSMs on the GPU.
import type { MsmContext, ContextOptions, Groth16Key } from "./msm_wasm.js";

export interface AccelerateOptions {
  /** Options for both `MsmContext.create` calls (curve and group are set). */
  context?: ContextOptions;
  /** Base sets kept resident, least recently used dropped first (default 10). */
  maxBaseSets?: number;
  /** false: reject where no WebGPU device can be made, instead of leaving snarkjs's MSMs. */
  fallback?: boolean;
  /** The groups whose MSMs run here (default both); the others stay snarkjs's. */
  groups?: ("g1" | "g2")[];
}

export interface Acceleration {
  /** Whether snarkjs's MSMs now run here; false: snarkjs's own code stays. */
  gpu: boolean;
  /** Why not, where `gpu` is false. */
  reason: string | null;
  /** MSMs run, base sets uploaded, MSMs that ran on the CPU (while pipelines compiled). */
  stats: { msms: number; uploads: number; cpu: number } | null;
  /** One context per group in `groups`. */
  contexts?: { g1?: MsmContext; g2?: MsmContext };
  /** Resolves once the contexts' pipelines are compiled. */
  ready?: () => Promise<unknown>;
  /** Puts ffjavascript's own MSMs back and frees the resident bases. */
  restore(): void;
}

/** Makes snarkjs's Groth16 MSMs on ffjavascript's bn128 `curve` run on the GPU. */
export function accelerateSnarkjs(curve: unknown, options?: AccelerateOptions): Promise<Acceleration>;

export interface ProverOptions {
  /** Contexts to run the MSMs on (e.g. `accelerateSnarkjs`'s, of both groups:
   * without a g2 context the prover rejects); else made here. */
  contexts?: { g1?: MsmContext; g2?: MsmContext };
  /** Options for both `MsmContext.create` calls, where `contexts` is absent. */
  context?: ContextOptions;
  /** ffjavascript's bn128 curve: H's FFTs on its worker threads (else in wasm, one thread). */
  curve?: unknown;
}

export interface ProveOptions {
  /** Fixed randomness (tests: snarkjs's proof with the same r and s); fresh otherwise. */
  r?: bigint;
  s?: bigint;
  /** Check the pairing equation before resolving (default false). */
  verify?: boolean;
}

/**
 * Where a proof's time went, ms: the witness read and checked; H's scalars (with ffjavascript's
 * curve: A, B and C at the domain, the six FFTs on its threads, A·B − C); the MSMs still running
 * once H's scalars are ready (A, B and C start before them); the proof's assembly.
 */
export interface ProveStages {
  witness: number;
  hScalars: number;
  abc?: number;
  ffts?: number;
  join?: number;
  msmsAfterH: number;
  assemble: number;
  total: number;
}

export interface Groth16Prover {
  key: Groth16Key;
  contexts: { g1: MsmContext; g2: MsmContext };
  /**
   * A proof for a `.wtns`: `{ proof, publicSignals }` as snarkjs's `groth16.prove` gives, and
   * where its time went (`stages`, ms).
   */
  prove(wtns: Uint8Array, options?: ProveOptions): Promise<{ proof: object; publicSignals: string[]; stages: ProveStages }>;
  /** Frees the resident queries and the key (and the contexts it made). */
  free(): void;
}

/** A Groth16 prover for one snarkjs `.zkey`: the key read once, its queries resident, every MSM here. */
export function groth16Prover(zkey: Uint8Array, options?: ProverOptions): Promise<Groth16Prover>;
