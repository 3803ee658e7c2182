// Compiles a batch of compute pipelines with createComputePipelineAsync, so
// that the browser (or Dawn in Node) compiles them at once on its worker
// threads. wgpu creates pipelines one at a time, synchronously; with these
// alive, its identical descriptors are answered from the device's pipeline
// cache. Jobs: { code, entry, constants, bindings: [[binding, type]] | null }
// (null: "auto" layout). Failures are ignored here: the synchronous creation
// reports them.
export async function warmPipelines(device, jobs) {
  const modules = new Map();
  const layouts = new Map();
  const pending = jobs.map(({ code, entry, constants, bindings }) => {
    try {
      let module = modules.get(code);
      if (!module) {
        module = device.createShaderModule({ code });
        modules.set(code, module);
      }
      let layout = "auto";
      if (bindings) {
        const key = JSON.stringify(bindings);
        layout = layouts.get(key);
        if (!layout) {
          const entries = bindings.map(([binding, type]) => ({
            binding,
            visibility: 4, // GPUShaderStage.COMPUTE
            buffer: { type, hasDynamicOffset: false, minBindingSize: 0 },
          }));
          const bindGroupLayout = device.createBindGroupLayout({ entries });
          layout = device.createPipelineLayout({ bindGroupLayouts: [bindGroupLayout] });
          layouts.set(key, layout);
        }
      }
      return device.createComputePipelineAsync({ layout, compute: { module, entryPoint: entry, constants } });
    } catch (e) {
      return Promise.reject(e);
    }
  });
  const settled = await Promise.allSettled(pending);
  return settled.filter((s) => s.status === "fulfilled").map((s) => s.value);
}
