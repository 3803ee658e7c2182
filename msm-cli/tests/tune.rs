//! `tune` writes a profile that `bench` then reports using; a corrupt
//! profile is ignored with its reason, never fatal. Tiny sizes and a
//! one-step ladder: on lavapipe each knob set compiles its own pipelines.

use std::process::Command;

fn cli(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_msm-cli"))
        .args(args)
        .output()
        .expect("the msm-cli binary runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// An empty directory of this test process named `name`, and its profile's path.
fn fresh_dir(name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("profile.json");
    (dir, path)
}

#[test]
fn tune_writes_a_profile_bench_uses() {
    let (dir, path) = fresh_dir("msm-cli-tune");
    let p = path.to_str().unwrap();
    let (ok, text) = cli(&[
        "tune",
        "--sizes",
        "9",
        "--reps",
        "1",
        "--crossover-max-logn",
        "7",
        "--ladder",
        "walker_slots=2",
        "--out",
        p,
    ]);
    assert!(ok, "tune failed:\n{text}");
    assert!(text.contains("crossover"), "{text}");
    let profile: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(profile["format"], 1);
    assert!(profile["adapter"].as_str().is_some_and(|a| !a.is_empty()));

    let bench = ["bench", "--logn", "9", "--reps", "1", "--cpu-reps", "0", "--profile", p];
    let (ok, text) = cli(&bench);
    assert!(ok, "bench with the profile failed:\n{text}");
    assert!(text.contains("tuned profile"), "{text}");

    std::fs::write(&path, "{ corrupt").unwrap();
    let (ok, text) = cli(&bench);
    assert!(ok, "a corrupt profile must not be fatal:\n{text}");
    assert!(text.contains("profile ignored"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Another group's profile: `tune --curve bls12-381 --crossover-only` names
/// its group in the file, `bench` in that group uses it, and a BN254 G1
/// context refuses it, naming the group.
#[test]
fn tune_writes_a_profile_per_group() {
    let (dir, path) = fresh_dir("msm-cli-tune-group");
    let p = path.to_str().unwrap();
    let (ok, text) = cli(&[
        "tune",
        "--curve",
        "bls12-381",
        "--crossover-only",
        "--reps",
        "1",
        "--crossover-max-logn",
        "7",
        "--out",
        p,
    ]);
    assert!(ok, "tune failed:\n{text}");
    assert!(
        text.contains("bls12-381") && !text.contains("2^9:"),
        "no ladder: {text}"
    );
    let profile: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(profile["curve"], "bls12-381");

    let bench = |curve: &str| {
        cli(&[
            "bench",
            "--curve",
            curve,
            "--logn",
            "7",
            "--reps",
            "1",
            "--cpu-reps",
            "0",
            "--profile",
            p,
        ])
    };
    let (ok, text) = bench("bls12-381");
    assert!(ok && text.contains("tuned profile"), "{text}");
    let (ok, text) = bench("bn254");
    assert!(
        ok && text.contains("profile ignored") && text.contains("curve group"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
