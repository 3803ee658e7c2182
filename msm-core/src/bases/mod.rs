//! Resident bases: converted to the GPU's packed Montgomery form and uploaded
//! once, then reused by every MSM against them. From arkworks points the
//! host converts them ([`GpuContext::upload_bases`]); from bytes the GPU does
//! ([`from_bytes`]).

mod auto_table;
mod from_bytes;
mod subgroup;
mod table;

pub(crate) use subgroup::has_cofactor;

#[allow(unused_imports)]
pub use auto_table::auto_table_width;
#[allow(unused_imports)]
pub use table::{auto_table_bits, auto_table_bits_for, table_bytes, table_part_points, table_windows, MAX_TABLE_BITS};

use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use ark_ec::short_weierstrass::Affine;

use crate::context::{GpuContext, LiveGuard};
use crate::curve::{affine_xy, Bn254, Curve, GpuCurve};
use crate::error::MsmError;
use crate::repr::FieldCodec;

/// GPU bytes of one resident BN254 point: x and y planes and its identity
/// flag ([`Curve::base_bytes`] for any curve; the diagnostics' name).
#[cfg(feature = "diagnostics")]
pub const BASE_BYTES: u64 = Curve::Bn254G1.base_bytes();

/// The most points one base part holds when a coordinate plane of
/// `coord_bytes` a point may take `binding` bytes in one binding and `buffer`
/// in one buffer: a power of two, so that the power-of-two chunks an MSM is
/// cut into fill parts exactly and share one plan (2^26 BN254 points on a 2
/// GiB binding: two parts of 2^25, not 2^26 - 1 and 1).
pub fn base_part_points(coord_bytes: u64, binding: u64, buffer: u64) -> usize {
    let points = (binding.min(buffer) / coord_bytes).max(1);
    1usize << (63 - points.leading_zeros())
}

/// Resident bases of the group `C`: a base set (`len`, `parts`, `curve`,
/// `table_bits`, `drop_table`) typed by its curve, so an MSM over them takes
/// `C`'s scalars and returns `C`'s points.
pub struct Bases<C: GpuCurve = Bn254> {
    set: BaseSet,
    _curve: PhantomData<fn() -> C>,
}

impl<C: GpuCurve> std::ops::Deref for Bases<C> {
    type Target = BaseSet;
    fn deref(&self) -> &BaseSet {
        &self.set
    }
}

impl<C: GpuCurve> std::ops::DerefMut for Bases<C> {
    fn deref_mut(&mut self) -> &mut BaseSet {
        &mut self.set
    }
}

impl<C: GpuCurve> std::fmt::Debug for Bases<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.set.fmt(f)
    }
}

/// A base set resident on one context's device, as SoA planes x[], y[] and
/// identity flags. Sets larger than one storage binding are split into parts
/// of consecutive points; an MSM runs each part's points as its own chunk.
pub struct BaseSet {
    /// Unique per upload: keys the bind groups cached for these buffers.
    pub(crate) id: u64,
    /// The id of the context that holds the buffers.
    pub(crate) context: u64,
    /// The curve group of the points.
    pub(crate) curve: Curve,
    pub(crate) n: usize,
    pub(crate) parts: Vec<BasePart>,
    pub(crate) layout: msm_wgsl::FieldLayout,
    /// The table of shifted copies, where one was built (set once by a
    /// call that builds it on its own, see [`auto_table`]).
    pub(crate) table: OnceLock<table::Table>,
    /// The calls over the set, and whether its table is settled (built,
    /// dropped or declined), for the knob `table_after`.
    pub(crate) auto: auto_table::AutoTable,
    /// Counts these buffers in the context's live memory while they exist.
    _live: LiveGuard,
}

/// Points `[start, start + len)` of a base set, in buffers of their own.
pub(crate) struct BasePart {
    pub(crate) start: usize,
    pub(crate) len: usize,
    pub(crate) x: wgpu::Buffer,
    pub(crate) y: wgpu::Buffer,
    pub(crate) flags: wgpu::Buffer,
}

impl BaseSet {
    pub fn len(&self) -> usize {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// How many buffer sets hold the points (1 unless a coordinate plane would
    /// exceed the adapter's largest storage binding).
    pub fn parts(&self) -> usize {
        self.parts.len()
    }

    /// The curve group of the points.
    pub fn curve(&self) -> Curve {
        self.curve
    }

    /// GPU bytes of a set of `n` BN254 points (an empty set still binds one
    /// word per buffer); `bytes_of` for any curve.
    pub fn bytes_for(n: usize) -> u64 {
        Self::bytes_of(n, Curve::Bn254G1)
    }

    /// GPU bytes of a set of `n` points of `curve`.
    pub fn bytes_of(n: usize, curve: Curve) -> u64 {
        (n as u64 * curve.base_bytes()).max(12)
    }

    /// The parts an MSM binds, with the id that keys their bind groups:
    /// the table's where `table` (and a table exists), else the bases'.
    pub(crate) fn job_parts(&self, table: bool) -> (u64, &[BasePart]) {
        match self.table.get() {
            Some(t) if table => (t.id, &t.parts),
            _ => (self.id, &self.parts),
        }
    }

    /// (first point, points) of each part an MSM binds (see [`Bases::job_parts`]).
    pub(crate) fn part_ranges(&self, table: bool) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.job_parts(table).1.iter().map(|p| (p.start, p.len))
    }
}

impl std::fmt::Debug for BaseSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bases")
            .field("curve", &self.curve)
            .field("n", &self.n)
            .field("parts", &self.parts.len())
            .field("layout", &self.layout)
            .field("table_bits", &self.table_bits())
            .finish()
    }
}

impl GpuContext {
    diagnostics_pub! {
        /// Checks that `n` more bases fit on the device beside the base sets this
        /// context holds, before anything is allocated.
        fn check_bases_fit(&self, n: usize) -> Result<(), MsmError> {
            self.check_bytes_fit(BaseSet::bytes_of(n, self.curve()), || format!("{n} bases"))
        }
    }

    /// The most points one base part may hold: a coordinate plane (32 bytes a
    /// BN254 point, 48 a BLS12-381 one) must fit one storage binding and one
    /// buffer (see `base_part_points`).
    pub fn max_base_part_points(&self) -> usize {
        let limits = self.device.limits();
        base_part_points(
            self.curve().coord_bytes(),
            limits.max_storage_buffer_binding_size,
            limits.max_buffer_size,
        )
    }

    /// Converts `points` and uploads them once. Identity points are allowed
    /// (they contribute nothing). A set whose coordinate planes exceed one
    /// storage binding is split into parts that each fit. Fails with
    /// [`MsmError::WrongCurve`] when the context runs another curve, with
    /// [`MsmError::DeviceLost`] on a lost device, and with
    /// [`MsmError::OutOfMemory`] when the points would not fit the device's
    /// memory (checked before allocating where the device says how much it
    /// has, else the driver's refusal).
    pub async fn upload_bases<C: GpuCurve>(&self, points: &[Affine<C>]) -> Result<Bases<C>, MsmError> {
        self.check_curve(C::CURVE)?;
        self.check_lost()?;
        self.check_bases_fit(points.len())?;
        let scope = self.catch(&[wgpu::ErrorFilter::OutOfMemory]);
        let bases = self.upload_bases_in_parts(points, self.max_base_part_points());
        if let Some(e) = scope.pop().await {
            return Err(MsmError::OutOfMemory {
                what: format!("{} bases (the driver refused: {e})", points.len()),
                needed: BaseSet::bytes_of(points.len(), C::CURVE),
                available: self.device_memory(),
            });
        }
        self.check_lost()?;
        Ok(bases)
    }

    /// Blocking [`GpuContext::upload_bases`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn upload_bases_blocking<C: GpuCurve>(&self, points: &[Affine<C>]) -> Result<Bases<C>, MsmError> {
        pollster::block_on(self.upload_bases(points))
    }

    diagnostics_pub! {
        /// Uploads `points` with at most `part_points` points a part (clamped to
        /// what one binding holds), without [`GpuContext::upload_bases`]'s checks.
        /// Smaller parts only cost extra chunks; this exists to exercise the
        /// split on small inputs.
        fn upload_bases_in_parts<C: GpuCurve>(&self, points: &[Affine<C>], part_points: usize) -> Bases<C> {
            let part_points = part_points.clamp(1, self.max_base_part_points());
            let codec = FieldCodec::<C::BaseField>::new(self.field_layout(), C::CURVE.field());
            let mut parts = Vec::new();
            let mut start = 0;
            // An empty set still gets one (minimal) part so bindings stay valid.
            loop {
                let chunk = &points[start..(start + part_points).min(points.len())];
                parts.push(self.upload_part(&codec, start, chunk));
                start += chunk.len();
                if start >= points.len() {
                    break;
                }
            }
            self.new_bases(points.len(), parts)
        }
    }

    /// A base set of `n` points of `C` held in `parts`, counted in live memory.
    pub(crate) fn new_bases<C: GpuCurve>(&self, n: usize, parts: Vec<BasePart>) -> Bases<C> {
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        let bytes = parts.iter().map(|p| BaseSet::bytes_of(p.len, C::CURVE)).sum();
        let set = BaseSet {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            context: self.id,
            curve: C::CURVE,
            n,
            parts,
            layout: self.field_layout(),
            table: OnceLock::new(),
            auto: Default::default(),
            _live: LiveGuard::new(&self.live_bases, bytes),
        };
        Bases {
            set,
            _curve: PhantomData,
        }
    }

    fn upload_part<C: GpuCurve>(
        &self,
        codec: &FieldCodec<C::BaseField>,
        start: usize,
        points: &[Affine<C>],
    ) -> BasePart {
        let w = codec.words();
        let mut x = vec![0u32; points.len() * w];
        let mut y = vec![0u32; points.len() * w];
        let flags: Vec<u32> = points.iter().map(|p| u32::from(affine_xy(p).is_none())).collect();
        let convert = |(xs, ys, ps): (&mut [u32], &mut [u32], &[Affine<C>])| {
            for ((xd, yd), p) in xs.chunks_exact_mut(w).zip(ys.chunks_exact_mut(w)).zip(ps) {
                if let Some((px, py)) = affine_xy(p) {
                    codec.encode_into(px, xd);
                    codec.encode_into(py, yd);
                }
            }
        };
        #[cfg(not(target_arch = "wasm32"))]
        {
            use rayon::prelude::*;
            const CHUNK: usize = 4096;
            crate::host::install(|| {
                x.par_chunks_mut(w * CHUNK)
                    .zip(y.par_chunks_mut(w * CHUNK))
                    .zip(points.par_chunks(CHUNK))
                    .for_each(|((xs, ys), ps)| convert((xs, ys, ps)))
            });
        }
        #[cfg(target_arch = "wasm32")]
        convert((&mut x, &mut y, points));
        BasePart {
            start,
            len: points.len(),
            x: self.base_buffer("bases.x", &x),
            y: self.base_buffer("bases.y", &y),
            flags: self.base_buffer("bases.flags", &flags),
        }
    }

    /// A storage buffer holding `words` (counted), written through a mapping
    /// at creation. Where the device is lost or out of memory the buffer is
    /// invalid and stays unwritten instead of panicking; the next MSM or
    /// [`GpuContext::try_upload_bases`] reports why.
    fn base_buffer(&self, label: &str, words: &[u32]) -> wgpu::Buffer {
        let words: &[u32] = if words.is_empty() { &[0] } else { words };
        let size = std::mem::size_of_val(words) as u64;
        self.counters.buffers.fetch_add(1, Ordering::Relaxed);
        self.counters.buffer_bytes.fetch_add(size, Ordering::Relaxed);
        let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: true,
        });
        if let Ok(mut view) = buffer.get_mapped_range_mut(..) {
            view.copy_from_slice(bytemuck::cast_slice(words));
            drop(view);
            buffer.unmap();
        }
        buffer
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parts are powers of two that fill the bindings: on a 2 GiB binding
    /// (the H200's 2^31 - 1 bytes) 2^26 points take two parts of 2^25; on
    /// lavapipe's 128 MiB bindings, parts of 2^22.
    #[test]
    fn parts_are_powers_of_two_within_the_limits() {
        const COORD_BYTES: u64 = 32;
        let h200 = base_part_points(COORD_BYTES, (1 << 31) - 1, 4 << 30);
        assert_eq!(h200, 1 << 25);
        assert_eq!((1usize << 26).div_ceil(h200), 2);
        assert_eq!(base_part_points(COORD_BYTES, 128 << 20, (1 << 31) - 1), 1 << 22);
        assert_eq!(base_part_points(COORD_BYTES, 100, 1 << 40), 2);
        assert_eq!(base_part_points(COORD_BYTES, 0, 0), 1);
        for (binding, buffer) in [(1u64 << 31, 1u64 << 31), (3 << 29, 1 << 40), (5000, 4000)] {
            let p = base_part_points(COORD_BYTES, binding, buffer) as u64;
            assert!(p.is_power_of_two() && p * COORD_BYTES <= binding.min(buffer));
            assert!(2 * p * COORD_BYTES > binding.min(buffer));
        }
    }
}
