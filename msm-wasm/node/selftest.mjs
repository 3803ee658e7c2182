// The browser package's self-test under Node with Dawn (`ctx.selfTest()`),
// on the adapter Dawn picks: each group's cases printed as they finish,
// with a verdict; exit status 1 when a case fails.
//
//   node selftest.mjs [--groups bn254-g1,bls12-381-g1,bn254-g2,bls12-381-g2] [--full] [--json FILE]
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";

import init, { MsmContext } from "msm-wasm";

const { values: args } = parseArgs({
  options: {
    groups: { type: "string", default: "bn254-g1,bls12-381-g1,bn254-g2,bls12-381-g2" },
    full: { type: "boolean", default: false },
    json: { type: "string" },
    dawn: { type: "string", default: "backend=vulkan" },
  },
});

const t0 = performance.now();
await init({ dawnOptions: args.dawn.split(" ").filter(Boolean) });
const reports = [];
let failed = 0;
for (const name of args.groups.split(",")) {
  const [curve, group] = name.trim().split(/-(?=g[12]$)/);
  const t = performance.now();
  let ctx;
  try {
    ctx = await MsmContext.create({ curve, group, warmUp: false });
  } catch (e) {
    console.log(`FAIL  ${name}: no context: ${e.message}`);
    reports.push({ group: name, passed: false, error: e.message });
    failed += 1;
    continue;
  }
  console.error(`${name}: ${ctx.adapter.name} (${ctx.adapter.adapterClass}, ${ctx.adapter.fieldLayout})`);
  const report = await ctx.selfTest({
    full: args.full,
    onCase: (c) =>
      console.error(`${c.passed ? "pass" : "FAIL"}  ${name.padEnd(13)} ${c.ms.toFixed(1).padStart(9)} ms  ${c.name}${c.detail ? `: ${c.detail}` : ""}`),
  });
  const bad = report.cases.filter((c) => !c.passed).length;
  failed += bad;
  console.log(
    `${name.padEnd(13)} ${report.passed ? "pass" : "FAIL"}: ${report.cases.length - bad} of ${report.cases.length} cases ` +
      `in ${((performance.now() - t) / 1e3).toFixed(1)} s (context included; ${report.adapter})`,
  );
  reports.push({ ...report, seconds: (performance.now() - t) / 1e3 });
}
const seconds = (performance.now() - t0) / 1e3;
console.log(`selftest: ${failed ? `${failed} failure(s)` : "passed"} in ${seconds.toFixed(1)} s`);
if (args.json) writeFileSync(args.json, JSON.stringify({ passed: failed === 0, seconds, groups: reports }));
process.exit(failed ? 1 : 0);
