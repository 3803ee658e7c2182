// The package's entry point in Node: the same API as in a browser, with
// WebGPU from the `webgpu` npm package (Dawn, Chrome's WebGPU engine) and the
// .wasm read from disk. `await init()` sets both up; everything else is the
// browser module's.
import { readFile } from "node:fs/promises";
import initWasm from "./msm_wasm.js";

export * from "./msm_wasm.js";

let ready = null;

/**
 * Installs a WebGPU implementation as `navigator.gpu` (the `gpu` given, else
 * one made by the `webgpu` package with `dawnOptions`, e.g. ["backend=vulkan"])
 * and loads the .wasm. Resolves to the GPU object. Later calls return the
 * first call's promise.
 */
export default function init(options = {}) {
  ready ??= setUp(options);
  return ready;
}

async function setUp({ gpu, dawnOptions = [], wasm } = {}) {
  if (!gpu) {
    let webgpu;
    try {
      webgpu = await import("webgpu");
    } catch (e) {
      throw new Error(
        "msm-wasm in Node needs WebGPU: `npm install webgpu` (Dawn), or pass { gpu } to init()",
        { cause: e },
      );
    }
    Object.assign(globalThis, webgpu.globals);
    gpu = webgpu.create(dawnOptions);
  }
  // wgpu's web backend looks for `navigator.gpu` only where the global object
  // has a `Window` or a `WorkerGlobalScope`, as in a browser.
  if (!("Window" in globalThis) && !("WorkerGlobalScope" in globalThis)) {
    globalThis.Window = class Window {};
  }
  // Node's own `navigator` is a getter without `gpu`: wrap it.
  const navigator = Object.create(globalThis.navigator ?? null, { gpu: { value: gpu, enumerable: true } });
  Object.defineProperty(globalThis, "navigator", { value: navigator, configurable: true, writable: true });
  const bytes = wasm ?? (await readFile(new URL("./msm_wasm_bg.wasm", import.meta.url)));
  await initWasm({ module_or_path: bytes });
  return gpu;
}
