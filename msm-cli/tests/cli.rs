//! End to end through the binary: `gen` then `msm` on the files, the result
//! checked against arkworks' MSM of the same files; and a damaged input file
//! fails with a message, not a panic. Small sizes: on lavapipe the GPU run is
//! dominated by pipeline compilation.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ec::{CurveGroup, VariableBaseMSM};
use ark_serialize::CanonicalDeserialize;

fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_msm-cli"))
        .args(args)
        .output()
        .expect("the msm-cli binary runs")
}

/// A fresh directory under the system temp dir, unique to this process and test.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("msm-cli-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn read<T: CanonicalDeserialize>(path: &Path) -> T {
    T::deserialize_uncompressed(&std::fs::read(path).unwrap()[..]).unwrap()
}

fn generate(dir: &Path) {
    let out = cli(&["gen", "--logn", "6", "--seed", "3", "--out", dir.to_str().unwrap()]);
    assert!(out.status.success(), "gen: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn gen_then_msm_equals_arkworks() {
    let dir = temp_dir("msm");
    generate(&dir);
    let (bases, scalars, result) = (dir.join("bases.bin"), dir.join("scalars.bin"), dir.join("result.bin"));
    let out = cli(&[
        "msm",
        "--bases",
        bases.to_str().unwrap(),
        "--scalars",
        scalars.to_str().unwrap(),
        "--out",
        result.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "msm: {stderr}");
    assert!(stderr.contains("check: ok"), "msm did not report its check: {stderr}");

    let b: Vec<G1Affine> = read(&bases);
    let s: Vec<Fr> = read(&scalars);
    assert_eq!(b.len(), 64);
    let expected = G1Projective::msm(&b, &s).unwrap().into_affine();
    assert_eq!(read::<G1Affine>(&result), expected);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The same through BLS12-381's G1 (`--curve` on both commands), and a
/// BN254 file refused as BLS12-381 points with a message.
#[test]
fn bls12_381_gen_then_msm_equals_arkworks() {
    use ark_bls12_381::{Fr, G1Affine, G1Projective};
    let dir = temp_dir("bls");
    let d = dir.to_str().unwrap();
    let out = cli(&["gen", "--logn", "5", "--seed", "4", "--curve", "bls12-381", "--out", d]);
    assert!(out.status.success(), "gen: {}", String::from_utf8_lossy(&out.stderr));
    let (bases, scalars, result) = (dir.join("bases.bin"), dir.join("scalars.bin"), dir.join("result.bin"));
    let (b, s, r) = (
        bases.to_str().unwrap(),
        scalars.to_str().unwrap(),
        result.to_str().unwrap(),
    );
    let out = cli(&["msm", "--curve", "bls12-381", "--bases", b, "--scalars", s, "--out", r]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stderr.contains("check: ok"), "msm: {stderr}");
    let (pts, sc): (Vec<G1Affine>, Vec<Fr>) = (read(&bases), read(&scalars));
    assert_eq!(pts.len(), 32);
    assert_eq!(
        read::<G1Affine>(&result),
        G1Projective::msm(&pts, &sc).unwrap().into_affine()
    );
    // BLS12-381 files read as BN254's: refused before any GPU work
    let out = cli(&["msm", "--bases", b, "--scalars", s]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && !stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains("bases.bin"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn truncated_scalars_fail_cleanly() {
    let dir = temp_dir("truncated");
    generate(&dir);
    let scalars = dir.join("scalars.bin");
    let bytes = std::fs::read(&scalars).unwrap();
    std::fs::write(&scalars, &bytes[..bytes.len() - 10]).unwrap();
    let out = cli(&[
        "msm",
        "--bases",
        dir.join("bases.bin").to_str().unwrap(),
        "--scalars",
        scalars.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "msm accepted a truncated file: {stderr}");
    assert!(!stderr.contains("panicked"), "msm panicked: {stderr}");
    assert!(
        stderr.contains("scalars.bin") && stderr.contains("truncated"),
        "the message should name the file and the fault: {stderr}"
    );
    assert!(out.stdout.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A short soak: random sizes, knob sets (one shader set, so pipelines
/// compile once) and input classes on two threads sharing the context, every
/// result checked against arkworks by the command, which exits non-zero on a
/// mismatch or an error.
#[test]
fn short_soak_matches_arkworks() {
    let out = cli(&[
        "soak",
        "--count",
        "20",
        "--seed",
        "7",
        "--max-logn",
        "9",
        "--shader-sets",
        "1",
        "--threads",
        "2",
        "--json",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "soak failed: {stdout}\n{stderr}");
    let summary: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON summary");
    let count = |k: &str| summary[k].as_u64().unwrap_or_else(|| panic!("{k} in {summary}"));
    assert_eq!(count("runs"), 20);
    assert_eq!(count("ok") + count("refused"), 20);
    assert_eq!((count("mismatches"), count("errors")), (0, 0));
    assert!(count("ok") >= 10, "most drawn knob sets run: {summary}");
}

/// `--group g2` files are G2 points: `gen` writes them, `msm` without
/// `--group g2` refuses them with a message naming the file; commands that
/// run BN254 G1 alone, and an unknown group, are refused before any GPU
/// work.
#[test]
fn g2_files_and_groups_are_checked() {
    let dir = temp_dir("g2");
    let out = cli(&["gen", "--logn", "4", "--group", "g2", "--out", dir.to_str().unwrap()]);
    assert!(out.status.success(), "gen: {}", String::from_utf8_lossy(&out.stderr));
    let points: Vec<ark_bn254::G2Affine> = read(&dir.join("bases.bin"));
    assert_eq!(points.len(), 16);
    assert!(points
        .iter()
        .all(|p| p.is_on_curve() && p.is_in_correct_subgroup_assuming_on_curve()));
    let (bases, scalars) = (dir.join("bases.bin"), dir.join("scalars.bin"));
    let out = cli(&[
        "msm",
        "--bases",
        bases.to_str().unwrap(),
        "--scalars",
        scalars.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && !stderr.contains("panicked"), "{stderr}");
    assert!(
        stderr.contains("bases.bin"),
        "the message should name the file: {stderr}"
    );
    for args in [&["soak", "--group", "g2"][..], &["sweep", "--group", "g3"]] {
        let out = cli(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && !stderr.contains("panicked"),
            "{args:?}: {stderr}"
        );
        assert!(
            stderr.contains("--group") || stderr.contains("BN254 G1 only"),
            "{args:?}: {stderr}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `selftest` on this adapter: every case of BN254 G1's covering subset
/// passes against arkworks; the same with a knob the adapter refuses fails
/// every MSM case, says which, and exits with status 1.
#[test]
fn selftest_passes_and_reports_failures() {
    let out = cli(&["selftest", "--groups", "bn254-g1", "--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "selftest: {stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["passed"], true);
    let cases = report["groups"][0]["cases"].as_array().unwrap();
    assert!(cases.len() >= 30, "{} cases", cases.len());
    for name in [
        "scalars as words",
        "window width 16",
        "table of shifted bases",
        "adversarial: P and -P",
        "batch of mixed lengths",
        "bases from bytes",
    ] {
        assert!(
            cases.iter().any(|c| c["name"].as_str().unwrap().starts_with(name)),
            "no case {name}"
        );
    }
    assert_eq!(
        stderr.matches("\npass ").count() + usize::from(stderr.starts_with("pass ")),
        cases.len(),
        "{stderr}"
    );

    let out = cli(&["selftest", "--groups", "bn254-g1", "--knob", "walker_tpb=4096"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("FAIL  bn254") && stderr.contains("walker_tpb"),
        "{stderr}"
    );
    assert!(
        stdout.contains("FAIL") && stderr.contains("case(s) failed"),
        "{stdout}\n{stderr}"
    );
    let out = cli(&["selftest", "--groups", "bn254-g3"]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("--groups"));
}

/// `field-bench` checks every chain against arkworks: squarings in
/// straight-line code (the walker's) in the 64-bit layout, where the
/// adapter has 64-bit integers, and in the portable one, each JSON line
/// reporting the field code and `correct`.
#[test]
fn field_bench_chains_equal_arkworks() {
    for layout in ["32x8-int64", "13x20"] {
        let out = cli(&[
            "field-bench",
            "--op",
            "sqr",
            "--layout",
            layout,
            "--field-code",
            "unrolled",
            "--invocations",
            "256",
            "--iters",
            "16",
            "--reps",
            "1",
            "--json",
        ]);
        let (text, err) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        if err.contains("needs 64-bit shader integers") {
            continue;
        }
        assert!(out.status.success(), "{layout}: {err}");
        assert!(
            text.contains("\"code\":\"unrolled\"") && text.contains("\"correct\":true"),
            "{layout}: {text}"
        );
    }
    let bad = cli(&["field-bench", "--op", "cube"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("expected mul, sqr, inv or products"));
    // the limb products diagnostic: every style's chains equal the CPU twin
    let out = cli(&[
        "field-bench",
        "--op",
        "products",
        "--invocations",
        "64",
        "--iters",
        "4",
        "--reps",
        "1",
        "--json",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for style in ["int-13x20", "int-11x24", "f32-11x24"] {
        assert!(text.contains(&format!("\"style\":\"{style}\"")), "{text}");
    }
    assert_eq!(text.matches("\"correct\":true").count(), 3, "{text}");
    let bad = cli(&["field-bench", "--op", "products", "--products", "f16-8x32"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown style"));
}
