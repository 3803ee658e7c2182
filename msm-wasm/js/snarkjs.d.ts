// Types of snarkjs.js: snarkjs's Groth16 MSMs on the GPU.
import type { MsmContext, ContextOptions } from "./msm_wasm.js";

export interface AccelerateOptions {
  /** Options for both `MsmContext.create` calls (curve and group are set). */
  context?: ContextOptions;
  /** Base sets kept resident, least recently used dropped first (default 10). */
  maxBaseSets?: number;
  /** false: reject where no WebGPU device can be made, instead of leaving snarkjs's MSMs. */
  fallback?: boolean;
}

export interface Acceleration {
  /** Whether snarkjs's MSMs now run here; false: snarkjs's own code stays. */
  gpu: boolean;
  /** Why not, where `gpu` is false. */
  reason: string | null;
  /** MSMs run, base sets uploaded, MSMs that ran on the CPU (while pipelines compiled). */
  stats: { msms: number; uploads: number; cpu: number } | null;
  contexts?: { g1: MsmContext; g2: MsmContext };
  /** Resolves once both contexts' pipelines are compiled. */
  ready?: () => Promise<unknown>;
  /** Puts ffjavascript's own MSMs back and frees the resident bases. */
  restore(): void;
}

/** Makes snarkjs's Groth16 MSMs on ffjavascript's bn128 `curve` run on the GPU. */
export function accelerateSnarkjs(curve: unknown, options?: AccelerateOptions): Promise<Acceleration>;
