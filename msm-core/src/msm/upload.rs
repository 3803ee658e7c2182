//! Scalars into the upload memory as arkworks holds them: each `Fr`'s four
//! Montgomery limbs, copied in parallel chunks with no arithmetic (the GPU
//! converts them in preprocess).

use ark_bn254::Fr;
use wgpu::WriteOnly;

/// Scalars per parallel chunk.
const CHUNK: usize = 8192;
const CHUNK_BYTES: usize = CHUNK * 32;

/// Copies the limbs of `scalars` (32 bytes each, little-endian) into `dst`.
pub(super) fn fr_limbs(dst: WriteOnly<'_, [u8]>, scalars: &[Fr]) {
    // Fixed-size chunks are `Send` (a `WriteOnly` of a slice is not), so
    // each chunk can be filled on its own thread.
    let (chunks, rest) = dst.into_chunks::<CHUNK_BYTES>();
    let chunks: Vec<WriteOnly<'_, [u8; CHUNK_BYTES]>> = chunks.into_iter().collect();
    let whole = chunks.len() * CHUNK;
    #[cfg(not(target_arch = "wasm32"))]
    {
        use rayon::prelude::*;
        chunks
            .into_par_iter()
            .zip(scalars[..whole].par_chunks(CHUNK))
            .for_each(|(w, c)| fill(w.into(), c));
    }
    #[cfg(target_arch = "wasm32")]
    for (w, c) in chunks.into_iter().zip(scalars[..whole].chunks(CHUNK)) {
        fill(w.into(), c);
    }
    fill(rest, &scalars[whole..]);
}

fn fill(mut w: WriteOnly<'_, [u8]>, scalars: &[Fr]) {
    let mut bytes = Vec::with_capacity(scalars.len() * 32);
    for s in scalars {
        for limb in s.0 .0 {
            bytes.extend_from_slice(&limb.to_le_bytes());
        }
    }
    w.copy_from_slice(&bytes);
}
