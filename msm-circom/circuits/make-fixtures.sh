#!/usr/bin/env bash
# Regenerates tests/fixtures from the circuits here with npm's circom2 and
# snarkjs: a small powers of tau (2^13, one contribution), each circuit's
# constraint system, key (setup and one contribution), verifying key, witness, and snarkjs's
# proof with r and s fixed (prove-fixed.mjs), checked by `snarkjs groth16
# verify`. Needs Node 20+ and npm; takes about three minutes on two cores.
# An argument writes them to another folder instead.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$(realpath "${1:-$here/../tests/fixtures}")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
npm init -y >/dev/null
npm install --silent circom2@0.2 circomlib@2 snarkjs@0.7 ffjavascript@0.3 >/dev/null
cp "$here"/*.circom "$here"/prove-fixed.mjs .
S="npx snarkjs"
$S powersoftau new bn128 13 p0.ptau >/dev/null
$S powersoftau contribute p0.ptau p1.ptau -e="fixtures" >/dev/null
$S powersoftau prepare phase2 p1.ptau pot.ptau >/dev/null
for n in chain multiplier; do
  npx circom2 "$n.circom" --r1cs --wasm -l node_modules -o . >/dev/null
  $S groth16 setup "$n.r1cs" pot.ptau "${n}_0.zkey" >/dev/null
  $S zkey contribute "${n}_0.zkey" "$n.zkey" -e="fixture $n" >/dev/null
  $S zkey export verificationkey "$n.zkey" "${n}_vkey.json" >/dev/null
  cp "$here/../tests/fixtures/${n}_input.json" .
  $S wtns calculate "${n}_js/$n.wasm" "${n}_input.json" "$n.wtns"
  node prove-fixed.mjs "$n.zkey" "$n.wtns" 1234567 7654321 "${n}_proof.json" "${n}_public.json"
  $S groth16 verify "${n}_vkey.json" "${n}_public.json" "${n}_proof.json"
  cp "$n.r1cs" "$n.zkey" "$n.wtns" "${n}_vkey.json" "${n}_proof.json" "${n}_public.json" "$out/"
done
