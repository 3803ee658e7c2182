//! Fuzzing of the JS boundary, natively: the byte decoders of `encoding` and
//! the options objects of `options` take arbitrary bytes and JSON and end in
//! `Ok` or their typed error, never a panic; accepted bytes are exactly what
//! the encoders write (one encoding per value). Cases: `PROPTEST_CASES`
//! (default 64); failures are kept in `fuzz.proptest-regressions`.
#![cfg(not(target_arch = "wasm32"))]

use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ff::{BigInteger, PrimeField};
use msm_core::knobs::KNOBS;
use msm_core::MsmConfig;
use msm_wasm::encoding::{self, FormatError};
use msm_wasm::options::{ContextOptions, MsmOptions};
use proptest::prelude::*;
use serde_json::Value;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

/// Bytes: noise, and seeded valid inputs with damage applied.
fn bytes() -> impl Strategy<Value = Vec<u8>> {
    let damaged = (
        0usize..10,
        any::<u64>(),
        any::<bool>(),
        any::<bool>(),
        any::<(usize, u8)>(),
        any::<usize>(),
    )
        .prop_map(|(n, seed, raw, prefix, (at, x), cut)| {
            let (b, s) = msm_core::sample::inputs(n, seed);
            let mut out = if prefix {
                (n as u64).to_le_bytes().to_vec()
            } else {
                Vec::new()
            };
            match (raw, seed % 3) {
                (_, 0) => out.extend(encoding::scalars_bytes(&s)),
                (true, _) => {
                    for p in &b {
                        out.extend(encoding::point_raw(&G1Projective::from(*p)));
                    }
                }
                (false, _) => out.extend(encoding::points_arkworks(&b)),
            }
            if !out.is_empty() && x != 0 {
                let i = at % out.len();
                out[i] ^= x;
            }
            if cut % 4 == 0 {
                out.truncate(cut % (out.len() + 1));
            }
            out
        });
    prop_oneof![
        2 => proptest::collection::vec(any::<u8>(), 0..300),
        3 => damaged,
    ]
}

/// Re-encodes what a decoder accepted: `prefix` puts the 8-byte count back.
fn framed(body: Vec<u8>, count: usize, prefix: bool) -> Vec<u8> {
    let mut out = if prefix {
        (count as u64).to_le_bytes().to_vec()
    } else {
        Vec::new()
    };
    out.extend(body);
    out
}

fn has_prefix(bytes: &[u8], item: usize) -> bool {
    bytes.len() >= 8 && bytes.len() % item == 8 % item
}

fn message(e: &FormatError) -> Result<(), TestCaseError> {
    prop_assert!(!e.0.is_empty());
    Ok(())
}

/// JSON values of every kind, knob names as keys mostly.
fn json() -> impl Strategy<Value = Value> {
    let names: Vec<String> = KNOBS
        .iter()
        .flat_map(|k| [k.name, k.camel, k.alias])
        .chain(["fieldLayout", "fieldCode", "inversion", "timestamps", "config"])
        .map(String::from)
        .collect();
    let key = prop_oneof![3 => proptest::sample::select(names), 1 => ".{0,12}"];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        (0u64..40).prop_map(Value::from),
        prop_oneof![
            Just("auto"),
            Just("private"),
            Just("workgroup"),
            Just("buckets"),
            Just("host"),
            Just("13x20"),
            Just("16x16"),
            Just("32x8-int64"),
            Just("gcd"),
            Just("looped"),
            Just("")
        ]
        .prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 6, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(key.clone(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn byte_decoders(bytes in bytes()) {
        match encoding::bases_arkworks(&bytes) {
            Ok(b) => {
                let prefix = has_prefix(&bytes, encoding::POINT_BYTES);
                prop_assert_eq!(framed(encoding::points_arkworks(&b), b.len(), prefix), bytes.clone());
            }
            Err(e) => message(&e)?,
        }
        match encoding::bases_raw(&bytes) {
            Ok(b) => {
                let raw: Vec<u8> = b.iter().flat_map(|p| encoding::point_raw(&G1Projective::from(*p))).collect();
                prop_assert_eq!(raw, bytes.clone());
                prop_assert!(b.iter().all(G1Affine::is_on_curve));
            }
            Err(e) => message(&e)?,
        }
        match encoding::scalars(&bytes) {
            Ok(s) => {
                // every word is taken mod r; canonical words round-trip
                let prefix = has_prefix(&bytes, encoding::SCALAR_BYTES);
                let body = &bytes[if prefix { 8 } else { 0 }..];
                prop_assert_eq!(s.len(), body.len() / 32);
                for (x, w) in s.iter().zip(body.chunks_exact(32)) {
                    prop_assert_eq!(*x, Fr::from_le_bytes_mod_order(w));
                }
                if s.iter().zip(body.chunks_exact(32)).all(|(x, w)| x.into_bigint().to_bytes_le() == w) {
                    prop_assert_eq!(framed(encoding::scalars_bytes(&s), s.len(), prefix), bytes.clone());
                }
            }
            Err(e) => message(&e)?,
        }
    }

    #[test]
    fn options_objects(value in json(), text in ".{0,40}") {
        if let Ok(o) = serde_json::from_value::<MsmOptions>(value.clone()) {
            if let Ok(c) = o.apply(&MsmConfig::default()) {
                // what JS reads back applies to the same knobs
                prop_assert_eq!(MsmOptions::from_config(&c).apply(&MsmConfig::default()), Ok(c));
            }
        }
        if let Ok(o) = serde_json::from_value::<ContextOptions>(value) {
            let _ = o.to_core();
        }
        let _ = serde_json::from_str::<MsmOptions>(&text).map(|o| o.apply(&MsmConfig::default()));
        let _ = serde_json::from_str::<ContextOptions>(&text).map(|o| o.to_core());
    }
}

/// Kept corpus: inputs at the edges of each format.
#[test]
fn corpus() {
    let r = Fr::MODULUS.to_bytes_le();
    let mut r_minus_one = r.clone();
    r_minus_one[0] -= 1;
    let cases: Vec<Vec<u8>> = vec![
        vec![],
        vec![0; 8],
        vec![0; 32],
        vec![0; 40],
        vec![0; 64],
        vec![0; 72],
        vec![0xff; 72],
        r,
        r_minus_one,
        [u64::MAX.to_le_bytes().to_vec(), vec![0; 64]].concat(),
        [1u64.to_le_bytes().to_vec(), vec![0; 64]].concat(),
        encoding::points_arkworks(&[G1Affine::default()]),
    ];
    for b in &cases {
        let _ = encoding::bases_arkworks(b);
        let _ = encoding::bases_raw(b);
        let _ = encoding::scalars(b);
    }
    // r itself is zero, r - 1 is -1
    assert_eq!(encoding::scalars(&cases[7]).unwrap(), vec![Fr::from(0u64)]);
    assert_eq!(encoding::scalars(&cases[8]).unwrap(), vec![-Fr::from(1u64)]);
    assert_eq!(encoding::bases_raw(&[0; 64]).unwrap(), vec![G1Affine::default()]);
    // arkworks alone reads these as the identity and as the same point
    let point = encoding::points_arkworks(&msm_core::sample::inputs(1, 3).0);
    for flag in [0x40u8, 0x80] {
        let mut flipped = point.clone();
        flipped[63] ^= flag;
        assert!(encoding::bases_arkworks(&flipped).is_err(), "flag {flag:#x}");
    }
}
