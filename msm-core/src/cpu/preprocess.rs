//! CPU twin of the preprocess pass (`passes::preprocess`).

use crate::cpu::window_digit;
use crate::layout::SIGN_BIT;
use crate::plan::Plan;
use crate::repr::Words;

/// CPU twin of preprocess's histogram and scan: per-bucket counts and
/// exclusive offsets (offsets[T B] = E), plus each bucket's entries as a set
/// (the GPU's order inside a bucket is not deterministic).
pub struct Preprocessed {
    pub counts: Vec<u32>,
    pub offsets: Vec<u32>,
    pub bucket_entries: Vec<Vec<u32>>,
}

impl Preprocessed {
    /// The entry stream in bucket order (`l0_index`) as scatter writes it
    /// (entries sorted within each bucket).
    pub fn stream(&self) -> Vec<u32> {
        self.bucket_entries.concat()
    }
}

/// `identity` flags the bases (`plan.vector_len()` of them); scalar i is
/// vector i / vector_len's, of base i % vector_len (entries name the base).
/// With a table (`plan.table`) the bases are its windows of `vector_len`
/// points each: window j's entry names point j * vector_len + base, and a
/// vector's windows share its one row.
pub fn preprocess(plan: &Plan, scalars: &[Words], identity: &[bool]) -> Preprocessed {
    let tb = plan.total_buckets() as usize;
    let len = plan.vector_len() as usize;
    let mut bucket_entries = vec![Vec::new(); tb];
    for (i, s) in scalars.iter().enumerate() {
        let (v, base) = (i / len, i % len);
        if identity[base] {
            continue;
        }
        for j in 0..plan.windows {
            let d = window_digit(s, j, plan.c);
            if d != 0 {
                let (row, entry) = match plan.table {
                    true => (v as u32, j * len as u32 + base as u32),
                    false => (v as u32 * plan.windows + j, base as u32),
                };
                let b = (row * plan.buckets + d.unsigned_abs() - 1) as usize;
                bucket_entries[b].push(entry | if d < 0 { SIGN_BIT } else { 0 });
            }
        }
    }
    for e in &mut bucket_entries {
        e.sort_unstable();
    }
    let counts: Vec<u32> = bucket_entries.iter().map(|e| e.len() as u32).collect();
    let mut offsets = Vec::with_capacity(tb + 1);
    let mut run = 0u32;
    for c in &counts {
        offsets.push(run);
        run += c;
    }
    offsets.push(run);
    Preprocessed {
        counts,
        offsets,
        bucket_entries,
    }
}

/// Entries per bucket (the histogram alone), in stream order; each row
/// (vector, window) is counted on its own thread where threads exist.
pub fn bucket_counts(plan: &Plan, scalars: &[Words], identity: &[bool]) -> Vec<u32> {
    let len = plan.vector_len() as usize;
    let count_row = |row: u32| {
        let per = plan.rows_per_vector();
        let v = (row / per) as usize;
        // a row holds one window, or every window with a table
        let windows = if plan.table { 0..plan.windows } else { row % per..row % per + 1 };
        let mut counts = vec![0u32; plan.buckets as usize];
        for j in windows {
            for (s, &id) in scalars[v * len..(v + 1) * len].iter().zip(identity) {
                let d = window_digit(s, j, plan.c);
                if d != 0 && !id {
                    counts[d.unsigned_abs() as usize - 1] += 1;
                }
            }
        }
        counts
    };
    #[cfg(not(target_arch = "wasm32"))]
    let rows: Vec<Vec<u32>> = {
        use rayon::prelude::*;
        crate::host::install(|| (0..plan.rows()).into_par_iter().map(count_row).collect())
    };
    #[cfg(target_arch = "wasm32")]
    let rows: Vec<Vec<u32>> = (0..plan.rows()).map(count_row).collect();
    rows.concat()
}
