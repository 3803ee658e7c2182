//! The self-test's cases, generic over the group: each one MSM call (or an
//! upload that must be refused) checked against arkworks.

use ark_ec::short_weierstrass::{Affine, Projective};
use ark_ec::{CurveConfig, VariableBaseMSM};
use ark_ff::{BigInt, BigInteger, PrimeField};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

use super::SelfTestCase;
use crate::config::MsmConfig;
use crate::context::GpuContext;
use crate::cpu::bases::{encode_point, BaseDefect, BaseFormat};
use crate::curve::GpuCurve;
use crate::error::MsmError;
use crate::host_bytes::HostBytes;
use crate::knobs::KnobOverrides;
use crate::msm::Scalars;
use crate::sample;

type Fr<C> = <C as CurveConfig>::ScalarField;

/// The widths a quick run takes (a full run: every one in 4..=16).
const QUICK_WIDTHS: [u32; 5] = [4, 7, 10, 13, 16];

/// One self-test run over a context.
pub(super) struct Run<'a> {
    ctx: &'a GpuContext,
    /// The knobs every call runs with, over each size's defaults.
    knobs: &'a KnobOverrides,
    full: bool,
    /// Points of the main inputs.
    n: usize,
}

/// What a case's check found: nothing wrong, or what was wrong.
type Verdict = Result<(), String>;

fn same<C: GpuCurve>(got: Result<Projective<C>, MsmError>, want: Projective<C>) -> Verdict {
    match got {
        Ok(g) if g == want => Ok(()),
        Ok(g) => Err(format!("the GPU's sum {g} is not arkworks' {want}")),
        Err(e) => Err(format!("the call failed: {e}")),
    }
}

fn reference<C: GpuCurve>(bases: &[Affine<C>], scalars: &[Fr<C>]) -> Projective<C> {
    Projective::<C>::msm(&bases[..scalars.len()], scalars).expect("equal lengths")
}

/// r - 1, r, r + 1, 2r, 2^254, 2^255, 2^256 - 1 and zero, then random 256-bit words.
fn edge_words<F: PrimeField<BigInt = BigInt<4>>>(n: usize, rng: &mut ChaCha20Rng) -> Vec<BigInt<4>> {
    let r = F::MODULUS;
    let plus = |k: u64| {
        let mut a = r;
        a.add_with_carry(&BigInt::from(k));
        a
    };
    let mut minus_one = r;
    minus_one.sub_with_borrow(&BigInt::from(1u64));
    let mut two_r = r;
    two_r.mul2();
    let pow2 = |e: usize| {
        let mut b = BigInt::<4>::zero();
        b.0[e / 64] = 1 << (e % 64);
        b
    };
    let mut words = vec![
        minus_one,
        r,
        plus(1),
        two_r,
        pow2(254),
        pow2(255),
        BigInt([u64::MAX; 4]),
        BigInt::zero(),
    ];
    while words.len() < n {
        words.push(BigInt(std::array::from_fn(|_| rng.next_u64())));
    }
    words.truncate(n);
    words
}

impl<'a> Run<'a> {
    pub(super) fn new(ctx: &'a GpuContext, knobs: &'a KnobOverrides, full: bool) -> Self {
        Run {
            ctx,
            knobs,
            full,
            n: if full { 1 << 12 } else { 1 << 9 },
        }
    }

    /// The knobs of a call of `n` points.
    fn config(&self, n: usize) -> MsmConfig {
        self.ctx.config_for_with(self.knobs, n)
    }

    /// The MSM of the first `scalars.len()` of `bases` with the run's knobs.
    async fn msm<C: GpuCurve>(
        &self,
        bases: &crate::bases::Bases<C>,
        scalars: Scalars<'_>,
    ) -> Result<Projective<C>, MsmError> {
        let config = self.config(scalars.len());
        self.ctx
            .msm_scalars_with(bases, scalars, &config)
            .await
            .map(|r| r.result)
    }

    /// A batch with the run's knobs, each result against arkworks.
    async fn batch<C: GpuCurve>(
        &self,
        bases: &crate::bases::Bases<C>,
        points: &[Affine<C>],
        vectors: &[&[Fr<C>]],
    ) -> Verdict {
        let lens: Vec<usize> = vectors.iter().map(|v| v.len()).collect();
        let config = self.ctx.config_for_batch_with(self.knobs, &lens);
        let scalars: Vec<Scalars<'_>> = vectors.iter().map(|v| Scalars::of::<C>(v)).collect();
        let got = self.ctx.msm_batch_with(bases, &scalars, &config).await;
        let got = got.map_err(|e| format!("the call failed: {e}"))?.results;
        vectors
            .iter()
            .zip(got)
            .try_for_each(|(v, g)| same(Ok(g), reference(points, v)))
    }

    /// Times `check` and records it as case `name`.
    async fn case(
        &self,
        name: impl Into<String>,
        record: &mut impl FnMut(SelfTestCase),
        check: impl std::future::Future<Output = Verdict>,
    ) {
        let t = web_time::Instant::now();
        let verdict = check.await;
        record(SelfTestCase {
            group: self.ctx.curve(),
            name: name.into(),
            passed: verdict.is_ok(),
            detail: verdict.err().unwrap_or_default(),
            ms: t.elapsed().as_secs_f64() * 1e3,
        });
    }

    /// Every case in the group `C` (the context's).
    pub(super) async fn all<C: GpuCurve>(&self, record: &mut impl FnMut(SelfTestCase))
    where
        Fr<C>: PrimeField<BigInt = BigInt<4>>,
    {
        let ctx = self.ctx;
        let n = self.n;
        let (points, scalars) = sample::inputs_of::<C>(n, 0x5e1f);
        let want = reference(&points, &scalars);
        let bases = match ctx.upload_bases(&points).await {
            Ok(b) => b,
            Err(e) => {
                let why = Err(format!("uploading {n} points failed: {e}"));
                return self.case("upload", record, async { why }).await;
            }
        };
        let config = self.config(n);
        // scalars in every form
        self.case(format!("{n} points, scalars as field elements"), record, async {
            same(self.msm(&bases, Scalars::of::<C>(&scalars)).await, want)
        })
        .await;
        let mut rng = ChaCha20Rng::seed_from_u64(0x5e1f);
        let words = edge_words::<Fr<C>>(n, &mut rng);
        let want_words = crate::cpu::msm_reference_words(&points, &words);
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_bytes_le()).collect();
        // the edge words' MSM under a config, against arkworks
        let on_words = |config: MsmConfig| {
            let (bases, words) = (&bases, &words);
            async move {
                same(
                    ctx.msm_scalars_with(bases, Scalars::Canonical(words), &config)
                        .await
                        .map(|r| r.result),
                    want_words,
                )
            }
        };
        self.case(
            "scalars as words: r - 1, r, r + 1, 2r, 2^254, 2^255, 2^256 - 1, 0, random 256-bit",
            record,
            on_words(config.clone()),
        )
        .await;
        self.case("scalars as little-endian bytes (the same words)", record, async {
            same(
                ctx.msm_scalars_with(&bases, Scalars::Bytes(HostBytes::slice(&bytes)), &config)
                    .await
                    .map(|r| r.result),
                want_words,
            )
        })
        .await;
        // every window width
        let widths: Vec<u32> = if self.full {
            (4..=16).collect()
        } else {
            QUICK_WIDTHS.to_vec()
        };
        for c in widths {
            let config = MsmConfig {
                window_bits: Some(c),
                ..config.clone()
            };
            self.case(format!("window width {c}"), record, on_words(config)).await;
        }
        // prefix and batches
        let k = n / 3 + 1;
        self.case(format!("prefix: the first {k} of {n} bases"), record, async {
            same(
                self.msm(&bases, Scalars::of::<C>(&scalars[..k])).await,
                reference(&points, &scalars[..k]),
            )
        })
        .await;
        let quarter = n / 4;
        let vectors: Vec<&[Fr<C>]> = scalars.chunks(quarter).take(4).collect();
        self.case(format!("batch of 4 vectors of {quarter} (joint)"), record, async {
            self.batch(&bases, &points, &vectors).await
        })
        .await;
        let mixed: Vec<&[Fr<C>]> = vec![&scalars, &scalars[..n / 2], &[], &scalars[..17]];
        self.case("batch of mixed lengths (n, n / 2, 0, 17)", record, async {
            self.batch(&bases, &points, &mixed).await
        })
        .await;
        // the walkers larger sizes take (their knobs on these inputs)
        for other in ctx.walker_configs_with(self.knobs) {
            if other.walker_shape() == config.walker_shape() {
                continue;
            }
            let (tpb, slots) = (other.walker_tpb, other.walker_slots);
            let mut name = format!("the walker of larger sizes: {tpb} threads a workgroup, {slots} slots");
            for (on, what) in [(other.walker_straight, "straight-line"), (other.walker_fused, "fused")] {
                if on {
                    name += &format!(", {what}");
                }
            }
            self.case(name, record, on_words(other)).await;
        }
        // a chain: four jobs of one plan, reduced once (`chain_jobs`)
        let chained = MsmConfig {
            chain_jobs: 2,
            max_chunk_points: Some(n.div_ceil(4) as u32),
            ..config.clone()
        };
        self.case("four chunks chained into one reduce", record, on_words(chained))
            .await;
        self.tables(record, &points, &words, want_words).await;
        self.adversarial::<C>(record).await;
        self.bases_from_bytes(record, &points, &scalars, want).await;
        self.subgroup::<C>(record, &points).await;
    }

    /// MSMs over a table of shifted bases: the automatic width, and one more.
    async fn tables<C: GpuCurve>(
        &self,
        record: &mut impl FnMut(SelfTestCase),
        points: &[Affine<C>],
        words: &[BigInt<4>],
        want: Projective<C>,
    ) {
        let ctx = self.ctx;
        let widths: &[Option<u32>] = if self.full {
            &[None, Some(8), Some(13)]
        } else {
            &[None, Some(8)]
        };
        for &c in widths {
            let name = match c {
                None => "table of shifted bases, automatic width".to_string(),
                Some(c) => format!("table of shifted bases, width {c}"),
            };
            self.case(name, record, async {
                let mut b = ctx.upload_bases(points).await.map_err(|e| format!("upload: {e}"))?;
                ctx.build_table(&mut b, c)
                    .await
                    .map_err(|e| format!("build_table: {e}"))?;
                let config = MsmConfig {
                    window_bits: c,
                    ..self.config(points.len())
                };
                let got = ctx.msm_scalars_with(&b, Scalars::Canonical(words), &config).await;
                same(got.map(|r| r.result), want)
            })
            .await;
        }
    }

    /// The input classes that break MSMs which assume distinct, non-identity
    /// points and spread scalars: P and -P, identities, duplicates, one
    /// bucket, zero scalars, r - 1, tiny sizes.
    async fn adversarial<C: GpuCurve>(&self, record: &mut impl FnMut(SelfTestCase)) {
        let ctx = self.ctx;
        let n = if self.full { 256 } else { 64 };
        for (what, points, scalars) in sample::adversarial_of::<C>(n, 0xad) {
            self.case(format!("adversarial: {what}"), record, async {
                let b = ctx.upload_bases(&points).await.map_err(|e| format!("upload: {e}"))?;
                same(
                    self.msm(&b, Scalars::of::<C>(&scalars)).await,
                    reference(&points, &scalars),
                )
            })
            .await;
        }
        self.case("empty scalars: the identity", record, async {
            let b = ctx.upload_bases::<C>(&[]).await.map_err(|e| format!("upload: {e}"))?;
            same(self.msm(&b, Scalars::of::<C>(&[])).await, Projective::<C>::default())
        })
        .await;
    }

    /// Bases from bytes in both formats (converted and checked on the GPU).
    async fn bases_from_bytes<C: GpuCurve>(
        &self,
        record: &mut impl FnMut(SelfTestCase),
        points: &[Affine<C>],
        scalars: &[Fr<C>],
        want: Projective<C>,
    ) {
        let ctx = self.ctx;
        for (format, name) in [
            (BaseFormat::Arkworks, "arkworks' encoding"),
            (BaseFormat::Raw, "raw coordinates"),
        ] {
            self.case(format!("bases from bytes ({name})"), record, async {
                let bytes: Vec<u8> = points.iter().flat_map(|p| encode_point(p, format)).collect();
                let b = ctx
                    .upload_bases_bytes::<C>(HostBytes::slice(&bytes), format)
                    .await
                    .map_err(|e| format!("upload: {e}"))?;
                same(self.msm(&b, Scalars::of::<C>(scalars)).await, want)
            })
            .await;
        }
    }

    /// Points outside the prime-order subgroup are refused by index (from
    /// bytes, and from typed points when asked); the group's own pass.
    async fn subgroup<C: GpuCurve>(&self, record: &mut impl FnMut(SelfTestCase), points: &[Affine<C>]) {
        let ctx = self.ctx;
        let outside = sample::outside_subgroup::<C>(2, 0x5b);
        self.case("subgroup check passes the group's points", record, async {
            let b = ctx.upload_bases(points).await.map_err(|e| format!("upload: {e}"))?;
            ctx.check_subgroup(&b).await.map_err(|e| format!("refused: {e}"))
        })
        .await;
        if outside.is_empty() {
            return; // cofactor 1
        }
        let at = points.len() / 2 + 1;
        let mut bad = points.to_vec();
        bad[at] = outside[0];
        bad[at + 3] = outside[1];
        let refused = |got: Result<(), MsmError>| match got {
            Err(MsmError::InvalidBase {
                index,
                defect: BaseDefect::NotInSubgroup,
            }) if index == at => Ok(()),
            other => Err(format!("point {at} is outside the subgroup; the call gave {other:?}")),
        };
        self.case(
            format!("a point outside the subgroup refused (bytes, point {at})"),
            record,
            async {
                let bytes: Vec<u8> = bad.iter().flat_map(|p| encode_point(p, BaseFormat::Arkworks)).collect();
                refused(
                    ctx.upload_bases_bytes::<C>(HostBytes::slice(&bytes), BaseFormat::Arkworks)
                        .await
                        .map(|_| ()),
                )
            },
        )
        .await;
        self.case(
            format!("a point outside the subgroup refused (check_subgroup, point {at})"),
            record,
            async {
                let b = ctx.upload_bases(&bad).await.map_err(|e| format!("upload: {e}"))?;
                refused(ctx.check_subgroup(&b).await)
            },
        )
        .await;
    }
}
