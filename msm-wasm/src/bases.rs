//! `Bases`: a base set of one context, resident on its GPU, or, while the
//! context warms up, decoded on the CPU too (so that small MSMs run there
//! without waiting on a compile) with its bytes kept for the GPU upload the
//! first GPU call makes.

use std::cell::RefCell;
use std::rc::Rc;

use ark_ec::short_weierstrass::{Affine, Projective};
use ark_ec::VariableBaseMSM;
use msm_core::{BaseFormat, Curve, GpuContext, GpuCurve, HostBytes, MsmError, MsmRun};
use wasm_bindgen::prelude::*;

use crate::encoding::{self, body_start};
use crate::js::js_error;
use crate::result::MsmResult;

/// A GPU base set of any group.
#[derive(Clone)]
pub(crate) enum GroupBases {
    Bn254G1(Rc<msm_core::Bases<ark_bn254::g1::Config>>),
    Bls12_381G1(Rc<msm_core::Bases<ark_bls12_381::g1::Config>>),
    Bn254G2(Rc<msm_core::Bases<ark_bn254::g2::Config>>),
    Bls12_381G2(Rc<msm_core::Bases<ark_bls12_381::g2::Config>>),
}

impl GroupBases {
    /// Points in the set.
    fn len(&self) -> usize {
        match self {
            GroupBases::Bn254G1(b) => b.len(),
            GroupBases::Bls12_381G1(b) => b.len(),
            GroupBases::Bn254G2(b) => b.len(),
            GroupBases::Bls12_381G2(b) => b.len(),
        }
    }

    /// The window width of the set's table of shifted bases, if it has one.
    fn table_bits(&self) -> Option<u32> {
        match self {
            GroupBases::Bn254G1(b) => b.table_bits(),
            GroupBases::Bls12_381G1(b) => b.table_bits(),
            GroupBases::Bn254G2(b) => b.table_bits(),
            GroupBases::Bls12_381G2(b) => b.table_bits(),
        }
    }
}

/// Points of any group decoded (and checked) on the CPU.
pub(crate) enum HostPoints {
    Bn254G1(Vec<Affine<ark_bn254::g1::Config>>),
    Bls12_381G1(Vec<Affine<ark_bls12_381::g1::Config>>),
    Bn254G2(Vec<Affine<ark_bn254::g2::Config>>),
    Bls12_381G2(Vec<Affine<ark_bls12_381::g2::Config>>),
}

/// A group's typed bases in and out of [`GroupBases`] and [`HostPoints`].
pub(crate) trait WebGroup: GpuCurve {
    fn wrap(bases: msm_core::Bases<Self>) -> GroupBases;
    fn unwrap(bases: &GroupBases) -> Option<&msm_core::Bases<Self>>;
    fn wrap_host(points: Vec<Affine<Self>>) -> HostPoints;
    fn unwrap_host(points: &HostPoints) -> Option<&[Affine<Self>]>;
}

macro_rules! web_group {
    ($config:ty, $variant:ident) => {
        impl WebGroup for $config {
            fn wrap(bases: msm_core::Bases<Self>) -> GroupBases {
                GroupBases::$variant(Rc::new(bases))
            }
            fn unwrap(bases: &GroupBases) -> Option<&msm_core::Bases<Self>> {
                match bases {
                    GroupBases::$variant(b) => Some(b),
                    _ => None,
                }
            }
            fn wrap_host(points: Vec<Affine<Self>>) -> HostPoints {
                HostPoints::$variant(points)
            }
            fn unwrap_host(points: &HostPoints) -> Option<&[Affine<Self>]> {
                match points {
                    HostPoints::$variant(p) => Some(p),
                    _ => None,
                }
            }
        }
    };
}

web_group!(ark_bn254::g1::Config, Bn254G1);
web_group!(ark_bls12_381::g1::Config, Bls12_381G1);
web_group!(ark_bn254::g2::Config, Bn254G2);
web_group!(ark_bls12_381::g2::Config, Bls12_381G2);

/// Bytes of a base set not yet on the GPU, with their format and name.
pub(crate) struct Pending {
    bytes: Vec<u8>,
    format: BaseFormat,
    what: &'static str,
}

/// A base set of one context: on its GPU, or (while the context warms up)
/// decoded on the CPU with its bytes kept for the GPU.
#[wasm_bindgen]
pub struct Bases {
    pub(crate) inner: Rc<Inner>,
}

pub(crate) struct Inner {
    curve: Curve,
    len: usize,
    gpu: RefCell<Option<GroupBases>>,
    /// The points on the CPU: kept while calls may run there.
    host: RefCell<Option<Rc<HostPoints>>>,
    pending: RefCell<Option<Rc<Pending>>>,
}

#[wasm_bindgen]
impl Bases {
    /// Number of points.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> usize {
        self.inner.len
    }

    /// The window width of the set's table of shifted bases (undefined
    /// without one).
    #[wasm_bindgen(getter, js_name = tableBits)]
    pub fn table_bits(&self) -> Option<u32> {
        self.inner.gpu.borrow().as_ref().and_then(|b| b.table_bits())
    }
}

impl Inner {
    pub(crate) fn curve(&self) -> Curve {
        self.curve
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The CPU copy, where the set has one.
    pub(crate) fn host(&self) -> Option<Rc<HostPoints>> {
        self.host.borrow().clone()
    }

    pub(crate) fn is_on_gpu(&self) -> bool {
        self.gpu.borrow().is_some()
    }

    /// Drops the CPU copy (once no call can run on the CPU).
    pub(crate) fn drop_host(&self) {
        self.host.borrow_mut().take();
    }

    /// The GPU set, uploading the kept bytes first where they wait (two
    /// calls that meet a set not yet there both upload it; the first kept).
    pub(crate) async fn on_gpu(&self, ctx: &GpuContext) -> Result<GroupBases, JsValue> {
        if let Some(b) = self.gpu.borrow().clone() {
            return Ok(b);
        }
        let pending = self
            .pending
            .borrow()
            .clone()
            .expect("a set not on the GPU keeps its bytes");
        let bytes = HostBytes::slice(&pending.bytes);
        let uploaded = for_group!(
            self.curve,
            upload_group(ctx, bytes, pending.format, None, pending.what).await
        )?;
        let mut gpu = self.gpu.borrow_mut();
        self.pending.borrow_mut().take();
        Ok(gpu.get_or_insert(uploaded).clone())
    }
}

/// A set uploaded to the GPU now.
pub(crate) fn on_gpu(curve: Curve, bases: GroupBases) -> Bases {
    let len = bases.len();
    Bases {
        inner: Rc::new(Inner {
            curve,
            len,
            gpu: RefCell::new(Some(bases)),
            host: RefCell::new(None),
            pending: RefCell::new(None),
        }),
    }
}

/// A set decoded on the CPU (checked as the GPU checks it), its bytes kept
/// for the GPU; `gpu` where it went there too.
pub(crate) fn on_host<C: WebGroup>(
    array: &js_sys::Uint8Array,
    format: BaseFormat,
    what: &'static str,
    gpu: Option<GroupBases>,
) -> Result<Bases, JsValue> {
    let mut all = array.to_vec();
    let points = encoding::points_of::<C>(&all, format, what).map_err(js_error)?;
    let pending = gpu.is_none().then(|| {
        // the one copy kept, less an arkworks length prefix
        all.drain(..all.len() - points.len() * C::CURVE.point_bytes());
        Rc::new(Pending {
            bytes: all,
            format,
            what,
        })
    });
    Ok(Bases {
        inner: Rc::new(Inner {
            curve: C::CURVE,
            len: points.len(),
            gpu: RefCell::new(gpu),
            host: RefCell::new(Some(Rc::new(C::wrap_host(points)))),
            pending: RefCell::new(pending),
        }),
    })
}

/// The first 8 bytes (an arkworks `Vec` length prefix).
pub(crate) fn prefix(bytes: &HostBytes<'_>) -> [u8; 8] {
    bytes.read(0..8).try_into().expect("8 bytes")
}

/// Where the points of `all` begin (after an arkworks length prefix in
/// that format).
pub(crate) fn points_start<C: GpuCurve>(all: HostBytes<'_>, format: BaseFormat, what: &str) -> Result<usize, JsError> {
    match format {
        BaseFormat::Arkworks => body_start(all.len(), C::CURVE.point_bytes(), || prefix(&all), what),
        BaseFormat::Raw | BaseFormat::Montgomery => Ok(0),
    }
    .map_err(js_error)
}

/// Uploads the bases of `bytes` (points only), with their table where
/// `table` asks for one.
pub(crate) async fn upload_group<C: WebGroup>(
    ctx: &GpuContext,
    bytes: HostBytes<'_>,
    format: BaseFormat,
    table: Option<Option<u32>>,
    what: &str,
) -> Result<GroupBases, JsValue> {
    let mut inner = ctx.upload_bases_bytes::<C>(bytes, format).await.map_err(|e| match e {
        MsmError::InvalidBase { index, defect } => js_error(encoding::base_error(what, index, defect)),
        e => js_error(format!("{what}: {e}")),
    })?;
    if let Some(c) = table {
        (ctx.build_table(&mut inner, c).await).map_err(|e| js_error(format!("{what}: the table: {e}")))?;
    }
    Ok(C::wrap(inner))
}

/// The MSMs of the CPU copy `host` with each vector, by arkworks in wasm.
pub(crate) fn cpu_msm_group<C: WebGroup>(
    host: &HostPoints,
    vectors: &[(js_sys::Uint8Array, usize)],
) -> Result<Vec<MsmResult>, JsValue> {
    let points = C::unwrap_host(host).expect("dispatched on the bases' group");
    let mut out = Vec::with_capacity(vectors.len());
    for (array, start) in vectors {
        let bytes = array.to_vec();
        let scalars = encoding::scalars_of::<C::ScalarField>(&bytes[*start..]).map_err(js_error)?;
        let result = Projective::<C>::msm(&points[..scalars.len()], &scalars).expect("equal lengths");
        let run = MsmRun {
            result,
            plan: None,
            timings: Default::default(),
        };
        out.push(MsmResult::new(run, scalars.len(), "cpu"));
    }
    Ok(out)
}

/// The MSMs of `bases` (of the group `C`) with each vector, one submission.
pub(crate) async fn msm_group<C: WebGroup>(
    ctx: &GpuContext,
    bases: &GroupBases,
    vectors: &[(js_sys::Uint8Array, usize)],
    config: &msm_core::MsmConfig,
) -> Result<Vec<MsmResult>, JsValue> {
    let bases = C::unwrap(bases).expect("dispatched on the bases' group");
    let bytes: Vec<HostBytes<'_>> = vectors
        .iter()
        .map(|(a, start)| {
            let all = HostBytes::js(a);
            all.range(*start..all.len())
        })
        .collect();
    let scalars: Vec<msm_core::Scalars<'_>> = bytes.iter().map(|b| msm_core::Scalars::Bytes(*b)).collect();
    let run = ctx
        .msm_batch_with(bases, &scalars, config)
        .await
        .map_err(|e| JsValue::from(js_error(e)))?;
    let results = run.results.into_iter().zip(&scalars).map(|(result, v)| {
        let run = MsmRun {
            result,
            plan: run.plan,
            timings: run.timings.clone(),
        };
        MsmResult::new(run, v.len(), "gpu")
    });
    Ok(results.collect())
}
