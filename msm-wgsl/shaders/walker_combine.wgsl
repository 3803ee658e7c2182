// walker_combine: joins the partials of buckets split across walker tasks.
//
// The task whose tail partial opens a split bucket owns it: it adds the head
// partials of the following tasks while they pass the bucket through, then
// writes the bucket's final affine sum (one inversion per split bucket).
#import config
#import curve

@group(0) @binding(0) var<uniform> params: MsmParams;
@group(0) @binding(1) var<storage, read> partials: array<PointRecord>;
@group(0) @binding(2) var<storage, read_write> bucket_sums: array<PointRecord>;

fn record_point(r: PointRecord) -> Affine {
    return Affine(fq_unpack(r.x), fq_unpack(r.y));
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = gid.x + gid.y * nwg.x * 64u;
    if k >= params.tasks {
        return;
    }
    let tail = partials[2u * k + 1u];
    if tail.bucket == NO_BUCKET {
        return;
    }
    var acc = xyzz_identity();
    if tail.valid != 0u {
        acc = xyzz_from_affine(record_point(tail));
    }
    for (var j = k + 1u; j < params.tasks; j++) {
        let head = partials[2u * j];
        if head.valid != 0u {
            acc = xyzz_add_affine(acc, record_point(head));
        }
        if head.through == 0u {
            break;
        }
    }
    var out = PointRecord();
    out.bucket = tail.bucket;
    if !xyzz_is_identity(acc) {
        // one inversion: 1/ZZ = I ZZZ, 1/ZZZ = I ZZ with I = 1/(ZZ ZZZ)
        let i = fq_inv(fq_mul(acc.zz, acc.zzz));
        out.x = fq_pack(fq_mul(acc.x, fq_mul(i, acc.zzz)));
        out.y = fq_pack(fq_mul(acc.y, fq_mul(i, acc.zz)));
        out.valid = 1u;
    }
    bucket_sums[tail.bucket] = out;
}
