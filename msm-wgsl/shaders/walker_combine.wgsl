// walker_combine: joins the partials of buckets split across walker tasks.
//
// A split bucket is a chain: the tail partial of the task where it starts
// (its owner), then the head partials of the following tasks while they pass
// the bucket through. Long chains (a bucket holding most points of a window,
// e.g. all-equal scalars) are summed in levels so no thread walks them alone:
//   blocks:  level-l block b sums the chain elements of level l-1 from index
//            64 b onward while the chain continues inside the block;
//   gather:  the owners (tasks with a tail partial) into one list, so that
//            `owners` runs full warps: a kernel's warps in flight are bounded
//            by its registers per workgroup, idle lanes included;
//   owners:  each owner walks its chain, jumping by a whole block where the
//            index is block-aligned, and leaves the bucket's sum in XYZZ
//            (split_sums[owner]; the bucket's record points there with
//            valid = 2), so no owner inverts: reduce adds it in XYZZ.
#import config
#import curve

// gather and owners: the workgroup size
override OWNERS_WG: u32 = 64u;
// blocks: the level it builds (1..=3)
override LEVEL: u32 = 1u;
// chain elements per block of the level above
override BLOCK: u32 = 64u;
// blocks: the workgroup size
override BLOCKS_WG: u32 = 64u;

// A chain element above level 0: an XYZZ sum and flags (bit 0: in the chain,
// bit 1: the chain continues past this element).
struct ChainSum {
    p: array<u32, XYZZ_WORDS>,
    flags: u32,
}

@group(0) @binding(0) var<uniform> params: MsmParams;
@group(0) @binding(1) var<storage, read> partials: array<PointRecord>;
@group(0) @binding(2) var<storage, read_write> bucket_sums: array<PointRecord>;
@group(0) @binding(3) var<storage, read_write> level1: array<ChainSum>;
@group(0) @binding(4) var<storage, read_write> level2: array<ChainSum>;
@group(0) @binding(5) var<storage, read_write> level3: array<ChainSum>;
@group(0) @binding(6) var<storage, read_write> split_sums: array<array<u32, XYZZ_WORDS>>;

// The owners' task indices, in no particular order, after their count
// (zeroed by the host before the pass).
struct OwnerList {
    count: atomic<u32>,
    tasks: array<u32>,
}
@group(0) @binding(7) var<storage, read_write> owner_list: OwnerList;

// Level-0 element j: the head partial of task j, as (point, in chain, through).
fn head_in_chain(j: u32) -> bool {
    let h = partials[2u * j];
    return h.bucket != NO_BUCKET || h.through != 0u;
}

fn add_head(acc: Xyzz, j: u32) -> Xyzz {
    let h = partials[2u * j];
    if h.valid != 0u {
        return xyzz_add_affine(acc, Affine(fq_unpack(h.x), fq_unpack(h.y)));
    }
    return acc;
}

fn level_len(level: u32) -> u32 {
    var len = params.tasks;
    for (var l = 0u; l < level; l++) {
        len = (len + BLOCK - 1u) / BLOCK;
    }
    return len;
}

// Block levels built for this plan: while the level below has more than one
// block, up to 3 (twin of the host's `chain_levels`).
fn chain_levels() -> u32 {
    var levels = 0u;
    while levels < 3u && level_len(levels) > BLOCK {
        levels += 1u;
    }
    return levels;
}

fn element(level: u32, j: u32) -> ChainSum {
    switch level {
        case 1u: { return level1[j]; }
        case 2u: { return level2[j]; }
        default: { return level3[j]; }
    }
}

fn store_element(level: u32, j: u32, e: ChainSum) {
    switch level {
        case 1u: { level1[j] = e; }
        case 2u: { level2[j] = e; }
        default: { level3[j] = e; }
    }
}

// Block sums of level LEVEL over elements of level LEVEL - 1.
@compute @workgroup_size(BLOCKS_WG)
fn blocks(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let b = gid.x + gid.y * nwg.x * BLOCKS_WG;
    if b >= level_len(LEVEL) {
        return;
    }
    let below = level_len(LEVEL - 1u);
    let lo = b * BLOCK;
    let hi = min(lo + BLOCK, below);
    var acc = xyzz_identity();
    var flags = 0u;
    for (var j = lo; j < hi; j++) {
        var through = false;
        if LEVEL == 1u {
            if !head_in_chain(j) {
                break;
            }
            acc = add_head(acc, j);
            through = partials[2u * j].through != 0u;
        } else {
            let e = element(LEVEL - 1u, j);
            if (e.flags & 1u) == 0u {
                break;
            }
            acc = xyzz_add(acc, xyzz_unpack(e.p));
            through = (e.flags & 2u) != 0u;
        }
        flags = 1u;
        if !through {
            break;
        }
        if j == hi - 1u && hi == lo + BLOCK {
            flags = 3u;
        }
    }
    store_element(LEVEL, b, ChainSum(xyzz_pack(acc), flags));
}

// A workgroup's owners, and where its part of the list begins.
var<workgroup> gathered: atomic<u32>;
var<workgroup> gather_base: u32;

// Appends the workgroup's owners to the list: one atomic on the list's
// count a workgroup, not one an owner.
@compute @workgroup_size(OWNERS_WG)
fn gather(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
) {
    let task = gid.x + gid.y * nwg.x * OWNERS_WG;
    if li == 0u {
        atomicStore(&gathered, 0u);
    }
    workgroupBarrier();
    let owns = task < params.tasks && partials[2u * task + 1u].bucket != NO_BUCKET;
    var at = 0u;
    if owns {
        at = atomicAdd(&gathered, 1u);
    }
    workgroupBarrier();
    if li == 0u {
        gather_base = atomicAdd(&owner_list.count, atomicLoad(&gathered));
    }
    workgroupBarrier();
    if owns {
        owner_list.tasks[gather_base + at] = task;
    }
}

// Each owner (a task with a tail partial) sums its chain and writes the
// bucket: one owner an invocation, over the gathered list.
@compute @workgroup_size(OWNERS_WG)
fn owners(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * OWNERS_WG;
    if i >= atomicLoad(&owner_list.count) {
        return;
    }
    let k = owner_list.tasks[i];
    let tail = partials[2u * k + 1u];
    var acc = xyzz_identity();
    // acc is the affine tail until the first addition
    var acc_affine = false;
    if tail.valid != 0u {
        acc = xyzz_from_affine(Affine(fq_unpack(tail.x), fq_unpack(tail.y)));
        acc_affine = true;
    }
    let levels = chain_levels();
    var j = k + 1u;
    loop {
        if j >= params.tasks {
            break;
        }
        // the highest level whose block starts at j
        var level = 0u;
        var step = 1u;
        while level < levels && (j % (step * BLOCK)) == 0u {
            level += 1u;
            step *= BLOCK;
        }
        // one addition site (drivers inline each call: compile time); a
        // head partial is affine, so its addition is the mixed one
        var through: bool;
        var next: Xyzz;
        if level == 0u {
            let h = partials[2u * j];
            next = xyzz_identity();
            if h.valid != 0u {
                next = xyzz_from_affine(Affine(fq_unpack(h.x), fq_unpack(h.y)));
            }
            through = h.through != 0u;
        } else {
            let e = element(level, j / step);
            next = xyzz_unpack(e.p);
            through = (e.flags & 2u) != 0u;
        }
        acc = xyzz_add_pq(acc, next, acc_affine, level == 0u);
        acc_affine = false;
        if !through {
            break;
        }
        j += step;
    }
    var out = PointRecord();
    out.bucket = tail.bucket;
    if !xyzz_is_identity(acc) {
        split_sums[k] = xyzz_pack(acc);
        out.valid = VALID_XYZZ;
        out.through = k;
    }
    bucket_sums[tail.bucket] = out;
}
