// stream_walker: sums the bucket-major entry stream with batch-affine additions.
//
// The stream l0_index[0..E) is cut into K = threads * S tasks (task_start);
// each thread owns S consecutive tasks ("slots"). Every iteration each live
// slot does one affine addition (acc + P, or P0 + P1 at a segment's start),
// and every slot of the workgroup shares ONE inversion (Montgomery's trick):
//   forward: den_k, the thread's prefix products into pref_scratch;
//   batch_inverse: the threads' products in a workgroup product tree, whose
//     root one invocation inverts; each thread gets its product's inverse;
//   inverse (backward): inv_k = inv * prefix_{k-1}; inv *= den_k;
//   peel: lambda = dy * inv_k, x3, y3.
// A slot whose addition has dx = 0 does not poison the batch: it doubles
// (den = 2y) when y_l = y_r, and yields the identity (den = 1) when y_l = -y_r.
// A segment covering a whole bucket writes the bucket's final sum; one that
// starts or ends at a task boundary inside a bucket writes a head / tail
// partial for walker_combine. The loop runs until no slot of the workgroup is
// live (a workgroup-uniform decision, since every iteration has barriers).
// An entry's bucket comes from `offsets` (the buckets' starts in the stream):
// a segment knows where its bucket ends, and the next bucket is found from
// the last one, so scatter writes nothing but the entries.
#import config
#import curve
#import walker_config
#import batch_inverse

override TPB: u32 = 256u;

@group(0) @binding(0) var<uniform> params: MsmParams;
@group(0) @binding(1) var<storage, read> base_x: array<FqWords>;
@group(0) @binding(2) var<storage, read> base_y: array<FqWords>;
@group(0) @binding(3) var<storage, read> offsets: array<u32>;
@group(0) @binding(4) var<storage, read> l0_index: array<u32>;
@group(0) @binding(5) var<storage, read_write> bucket_sums: array<PointRecord>;
@group(0) @binding(6) var<storage, read_write> partials: array<PointRecord>;

// A slot's flags word: its addition's kind in the low two bits, then
// whether a segment is open, whether acc holds a point, and whether the open
// segment is the task's first and its bucket started before the task (a head
// partial). One word instead of four: slot state is what bounds the walker.
const KIND_NONE: u32 = 0u;
const KIND_ADD: u32 = 1u;
const KIND_DOUBLE: u32 = 2u;
const KIND_CANCEL: u32 = 3u;
const KIND_MASK: u32 = 3u;
const F_OPEN: u32 = 4u;
const F_ACC: u32 = 8u;
const F_HEAD: u32 = 16u;
// a segment has been opened (the next one's bucket follows this one's)
const F_SEEN: u32 = 32u;

// Slot state.
var<private> pos: array<u32, S>;
var<private> task_end: array<u32, S>;
var<private> bucket: array<u32, S>;
var<private> flags: array<u32, S>;
var<private> r_entry: array<u32, S>;
var<private> acc_x: array<FqWords, S>;
var<private> acc_y: array<FqWords, S>;
#ifdef CACHE_DX
var<private> den_cache: array<FqWords, S>;
#endif

// Live invocations of this iteration, and the verdict every invocation reads.
var<workgroup> live_count: atomic<u32>;
var<workgroup> any_live: u32;

#ifdef PREF_WORKGROUP
var<workgroup> pref_wg: array<array<FqWords, S>, TPB>;
fn pref_store(li: u32, s: u32, v: FqWords) {
    pref_wg[li][s] = v;
}
fn pref_load(li: u32, s: u32) -> FqWords {
    return pref_wg[li][s];
}
#else
var<private> pref_pv: array<FqWords, S>;
fn pref_store(li: u32, s: u32, v: FqWords) {
    pref_pv[s] = v;
}
fn pref_load(li: u32, s: u32) -> FqWords {
    return pref_pv[s];
}
#endif

// The bucket holding stream entry e < total, searching from bucket
// `lo_bucket` (whose start is at or before e): the last bucket starting at or
// before e (an empty bucket starts where the next one does). From a bucket
// above 0 it gallops first (steps of 1, 2, 4, ...: a near e costs a few
// loads), then halves: at most 2 log2(windows * buckets) + 2 steps.
fn bucket_at(e: u32, lo_bucket: u32) -> u32 {
    var lo = lo_bucket;
    var hi = params.rows * params.buckets;
    var step = select(1u, hi, lo_bucket == 0u);
    loop {
        let t = lo + step;
        if t >= hi {
            break;
        }
        if offsets[t] > e {
            hi = t;
            break;
        }
        lo = t;
        step *= 2u;
    }
    loop {
        if hi - lo <= 1u {
            break;
        }
        let mid = (lo + hi) / 2u;
        if offsets[mid] <= e {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// The bucket holding entry e < total once bucket b has ended at or before e:
// b + 1 unless that one is empty (one load in the common case).
fn next_bucket(b: u32, e: u32) -> u32 {
    if offsets[b + 2u] > e {
        return b + 1u;
    }
    return bucket_at(e, b + 1u);
}

// Where task k starts: an equal share of the stream, moved back to the start
// of its bucket when params.align is set and the bucket is no longer than a
// task (so only oversized buckets are split). Monotone in k; task K ends at E.
fn task_begin(k: u32, total: u32) -> u32 {
    let q = total / params.tasks;
    let rem = total % params.tasks;
    let a = k * q + min(k, rem);
    if params.align == 0u || a == 0u || a >= total {
        return a;
    }
    let b = bucket_at(a, 0u);
    let s = offsets[b];
    if offsets[b + 1u] - s <= q + 1u {
        return s;
    }
    return a;
}

// The entry's point in the resident bases (entries index the chunk).
fn base_index(entry: u32) -> u32 {
    return params.base_offset + (entry & ~SIGN_BIT);
}

fn load_y(entry: u32) -> Fq {
    let y = fq_unpack(base_y[base_index(entry)]);
    if (entry & SIGN_BIT) != 0u {
        return fq_neg(y);
    }
    return y;
}

fn load_x(entry: u32) -> Fq {
    return fq_unpack(base_x[base_index(entry)]);
}

fn acc_point(s: u32) -> Affine {
    return Affine(fq_unpack(acc_x[s]), fq_unpack(acc_y[s]));
}

// Where the open segment's bucket ends in the stream: a load (cached)
// instead of a word of slot state.
fn seg_end(s: u32) -> u32 {
    return offsets[bucket[s] + 1u];
}

fn kind_of(s: u32) -> u32 {
    return flags[s] & KIND_MASK;
}

// Chooses the slot's operation for acc + P[r_entry] (its kind was NONE) and
// returns its denominator.
fn classify(s: u32) -> Fq {
    let lx = fq_unpack(acc_x[s]);
    let dx = fq_sub(load_x(r_entry[s]), lx);
    if !fq_is_zero(dx) {
        flags[s] |= KIND_ADD;
        return dx;
    }
    let ly = fq_unpack(acc_y[s]);
    if fq_eq(load_y(r_entry[s]), ly) && !fq_is_zero(ly) {
        flags[s] |= KIND_DOUBLE;
        return fq_double(ly);
    }
    flags[s] |= KIND_CANCEL;
    return FQ_ONE;
}

// The denominator of slot s, recomputed (when dx is not cached).
fn denominator(s: u32) -> Fq {
#ifdef CACHE_DX
    return fq_unpack(den_cache[s]);
#else
    switch kind_of(s) {
        case KIND_ADD: { return fq_sub(load_x(r_entry[s]), fq_unpack(acc_x[s])); }
        case KIND_DOUBLE: { return fq_double(fq_unpack(acc_y[s])); }
        default: { return FQ_ONE; }
    }
#endif
}

fn write_record(s: u32, through: bool) -> PointRecord {
    let valid = u32((flags[s] & F_ACC) != 0u);
    return PointRecord(acc_x[s], acc_y[s], valid, bucket[s], u32(through), 0u);
}

// Ends slot s's segment: a final bucket sum, or a head / tail partial.
fn flush(s: u32, task: u32, total: u32) {
    let b = task_end[s];
    let starts_mid = (flags[s] & F_HEAD) != 0u;
    let ends_mid = pos[s] == b && b < total && b < seg_end(s);
    if starts_mid {
        partials[2u * task] = write_record(s, ends_mid);
    } else if ends_mid {
        partials[2u * task + 1u] = write_record(s, false);
    } else {
        bucket_sums[bucket[s]] = write_record(s, false);
    }
    flags[s] &= ~(F_OPEN | F_HEAD);
}

// Applies slot s's addition given its inverse, then closes the segment if the
// bucket ends here.
fn peel(s: u32, inv: Fq, task: u32, total: u32) {
    switch kind_of(s) {
        case KIND_ADD: {
            let l = acc_point(s);
#ifdef CACHE_DX
            // x_r = x_l + dx: one random load fewer than re-reading it
            let r = Affine(fq_add(l.x, fq_unpack(den_cache[s])), load_y(r_entry[s]));
#else
            let r = Affine(load_x(r_entry[s]), load_y(r_entry[s]));
#endif
            let p = affine_add_with_inv(l, r, inv);
            acc_x[s] = fq_pack(p.x);
            acc_y[s] = fq_pack(p.y);
        }
        case KIND_DOUBLE: {
            let p = affine_double_with_inv(acc_point(s), inv);
            acc_x[s] = fq_pack(p.x);
            acc_y[s] = fq_pack(p.y);
        }
        case KIND_CANCEL: {
            flags[s] &= ~F_ACC;
        }
        default: {}
    }
    if (flags[s] & F_OPEN) != 0u && (pos[s] == task_end[s] || pos[s] == seg_end(s)) {
        flush(s, task, total);
    }
}

@compute @workgroup_size(TPB)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let t = gid.x + gid.y * nwg.x * TPB;
    let in_range = t * S < params.tasks;
    let total = offsets[params.rows * params.buckets];
    // a bucket starting at or before this thread's next task
    var hint = 0u;
#unroll s S
        let k = t * S + s;
        var a = 0u;
        var b = 0u;
        if in_range {
            a = task_begin(k, total);
            b = task_begin(k + 1u, total);
            // Default records: no head (an empty task inside a bucket passes
            // it through), no tail.
            var through = false;
            if a == b && a > 0u && a < total {
                through = offsets[bucket_at(a - 1u, 0u) + 1u] > a;
            }
            var none = PointRecord();
            none.bucket = NO_BUCKET;
            none.through = u32(through);
            partials[2u * k] = none;
            none.through = 0u;
            partials[2u * k + 1u] = none;
        }
        task_end[s] = b;
        pos[s] = a;
        flags[s] = 0u;
        // the first segment's bucket (the thread's tasks are consecutive),
        // and whether that bucket started before the task
        if a < b {
            hint = bucket_at(a, hint);
            bucket[s] = hint;
            if a > 0u && offsets[hint] < a {
                flags[s] = F_HEAD;
            }
        }
#endunroll
    loop {
        var live = false;
        var prefix = FQ_ONE;
        // forward: choose each slot's addition, accumulate the prefix product
#unroll s S
            var den = FQ_ONE;
            flags[s] &= ~KIND_MASK;
            if pos[s] < task_end[s] {
                live = true;
                if (flags[s] & F_OPEN) == 0u {
                    if (flags[s] & F_SEEN) != 0u {
                        bucket[s] = next_bucket(bucket[s], pos[s]);
                    }
                    flags[s] = (flags[s] | F_OPEN | F_SEEN) & ~F_ACC;
                }
                if (flags[s] & F_ACC) == 0u {
                    let e0 = l0_index[pos[s]];
                    acc_x[s] = base_x[base_index(e0)];
                    acc_y[s] = fq_pack(load_y(e0));
                    flags[s] |= F_ACC;
                    pos[s] += 1u;
                    if pos[s] < task_end[s] && pos[s] < seg_end(s) {
                        r_entry[s] = l0_index[pos[s]];
                        pos[s] += 1u;
                        den = classify(s);
                    }
                } else {
                    r_entry[s] = l0_index[pos[s]];
                    pos[s] += 1u;
                    den = classify(s);
                }
            }
#ifdef CACHE_DX
            den_cache[s] = fq_pack(den);
#endif
            // the chains of products stay below 2p (fq_mul_raw) until a
            // value meets the tree's root or an addition
            prefix = fq_mul_raw(prefix, den);
            pref_store(li, s, fq_pack(prefix));
#endunroll
        if live {
            atomicAdd(&live_count, 1u);
        }
        workgroupBarrier();
        if li == 0u {
            any_live = atomicLoad(&live_count);
            atomicStore(&live_count, 0u);
        }
        if workgroupUniformLoad(&any_live) == 0u {
            break;
        }
        var inv = batch_inverse(li, fq_canon(prefix));
        // inverse: walk back, peeling one denominator per slot
#unroll i S
            let s = S - 1u - i;
            var inv_s = inv;
            if s > 0u {
                inv_s = fq_mul_raw(inv, fq_unpack(pref_load(li, s - 1u)));
            }
            inv = fq_mul_raw(inv, denominator(s));
#ifdef FUSED
            peel(s, inv_s, t * S + s, total);
#else
            pref_store(li, s, fq_pack(inv_s));
#endif
#endunroll
#ifndef FUSED
#unroll s S
            peel(s, fq_unpack(pref_load(li, s)), t * S + s, total);
#endunroll
#endif
    }
}
