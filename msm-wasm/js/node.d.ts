// Types of the package's Node entry point (node.js): the browser module's
// API, with an `init` that sets up WebGPU from the `webgpu` package.
export * from "./msm_wasm.js";

export interface NodeInitOptions {
  /** A WebGPU implementation (`GPU` object) to use instead of the `webgpu` package's. */
  gpu?: unknown;
  /** Options for the `webgpu` package's `create()`, e.g. ["backend=vulkan"]. */
  dawnOptions?: string[];
  /** The .wasm's bytes, instead of reading msm_wasm_bg.wasm next to this module. */
  wasm?: BufferSource;
}

/** Sets up WebGPU and loads the .wasm; resolves to the GPU object. Idempotent. */
export default function init(options?: NodeInitOptions): Promise<unknown>;
