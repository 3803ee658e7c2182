//! The built-in knobs by size of each adapter class, group and field
//! layout (what a context uses without a tuned profile), and the built-in
//! CPU/GPU crossover: measured figures, each range with its reason.

use crate::adapter::AdapterClass;
use crate::config::MsmConfig;
use crate::curve::Curve;
use crate::plan::profile::ProfileRange;
use crate::plan::AdapterBounds;

/// Built-in CPU/GPU crossover per adapter class and group: a CPU adapter
/// never beats arkworks on the same cores; on a GPU, the group's measured
/// crossover (see docs/benchmarks.md) where no profile says otherwise.
pub fn builtin_crossover(info: &wgpu::AdapterInfo, curve: Curve) -> Option<usize> {
    (!AdapterClass::of(info).is_software()).then_some(builtin_gpu_crossover(curve))
}

/// Smallest n at which a GPU's MSM in `curve` beats arkworks, without a
/// profile: twice the crossover `msm-cli tune --crossover-only` measured on
/// an H200 against 16 threads (BN254 G1 2,048, BLS12-381 G1 512, BN254 G2
/// 512, BLS12-381 G2 1,024 points; docs/benchmarks.md), a margin for
/// slower GPUs and faster CPUs. arkworks' cost a point grows with the
/// field, the GPU's fixed cost does not: wider groups cross earlier.
pub const fn builtin_gpu_crossover(curve: Curve) -> usize {
    match curve {
        Curve::Bn254G1 => 1 << 12,
        Curve::Bls12_381G1 | Curve::Bn254G2 => 1 << 10,
        Curve::Bls12_381G2 => 1 << 11,
    }
}

/// Min log2 n, max log2 n, and the knobs between them.
type BuiltinRange = (u32, u32, &'static [(&'static str, &'static str)]);

/// The walker's shape by size on a discrete GPU with 64-bit integers
/// (min log2 n, max log2 n, knobs), from the H200's sweeps
/// (docs/benchmarks.md): small sizes want fewer slots; from 2^21 a larger
/// workgroup and more slots share each inversion among 4,096 additions,
/// and 65,536 threads (one wave on the H200's 132 SMs) walk long tasks:
/// 2^21 1.30x, 2^22 1.43x, 2^24 1.54x faster than the defaults. Elsewhere
/// the defaults. From 2^20 scatter fills 2^17 buckets a round (H100,
/// BLS12-381 G1, wall: 0.984x at 2^20, 0.987x at 2^22, 0.982x over a 2^22
/// table; 2^16 buckets a round 0.985-0.99x). From 2^16 to 2^20 a set's
/// table of shifted bases is built by the call that has paid for it (as
/// BN254 G1's below; H100, warm over the table against plain: 0.75x at
/// 2^16 for a 38 ms build, 0.74x at 2^18 for 90 ms, 0.93x at 2^20 for 280
/// ms). BLS12-381 G1's; BN254 G1 has its own below.
const DISCRETE_INT64: &[BuiltinRange] = &[
    (0, 15, &[("walker_slots", "2")]),
    (16, 16, &[("walker_slots", "2"), ("table_after", "32")]),
    (17, 17, &[("table_after", "32")]),
    (18, 19, &[("walker_slots", "8"), ("table_after", "32")]),
    (20, 20, &[("walker_tpb", "512"), SCATTER_ROUNDS, ("table_after", "128")]),
    (21, 31, WIDE_WALKER),
];

/// scatter in rounds of 2^17 buckets (16 MB of the lines being filled).
const SCATTER_ROUNDS: (&str, &str) = ("scatter_buckets", "131072");

/// From 2^21 in the 64-bit layout (but BN254 G1's) and the portable one:
/// 512 threads of 8 slots, 65,536 threads, scatter in rounds.
const WIDE_WALKER: &[(&str, &str)] = &[
    ("walker_tpb", "512"),
    ("walker_slots", "8"),
    ("walker_threads", "65536"),
    SCATTER_ROUNDS,
];

/// BN254 G1 in the 64-bit layout on a discrete GPU: [`DISCRETE_INT64`]'s
/// walkers with straight-line field code from 2^17 (H200, ABBA over two
/// processes' worth of calls: 0.953x at 2^18, 0.960x at 2^20, 0.948x at
/// 2^22, 0.965-0.971x over tables; 0.977x at 2^16, left to the row loops
/// there, whose walker compiles in 1.6 s instead of 2.6 s on a fresh
/// machine). BLS12-381 G1 lost with it (1.09x at 2^20), BN254 G2 was level.
/// With it 16 slots a thread win from 2^21 (0.97x at 2^21, 0.93x at 2^22,
/// 0.90x at 2^23, 0.89x at 2^24; at 2^18 and 2^20 the shapes stay). With
/// safegcd's shorter inversion 2 slots win at 2^17 as at 2^16 (H100, ABBA:
/// 0.90x against 4; 1 slot 0.90x, 8 slots 1.08x), and from 2^16 to 2^20
/// 65,536 threads walk (fewer steps a workgroup, so fewer of its
/// inversions and trees waited on), in workgroups of 512 from 2^17 (H100
/// sweeps, GPU time against the shapes before: 2^16 0.96x plain, level
/// over a table; 2^17 0.91x plain, 0.89x over a table; 2^18 0.89x). Plans
/// of at most 128 group sums (a table's one row at 2^16-2^19; the plain
/// plans' 17 rows have 272) fold them on the host instead of reduce's
/// `windows` kernel (H200 ABBA, wall: 0.97x at 2^16, 0.955x at 2^17, 0.97x
/// at 2^18; the plain plans lost, 1.03-1.06x). From 2^18 the inverse and
/// peel loops are fused: each slot's inverse is used as it is made instead
/// of stored and read again (H100, GPU time: 0.98x at 2^18, 0.96x at 2^20,
/// 0.985x at 2^21-2^22, 0.977x at 2^24; level over a 2^22 table). From
/// 2^20 plans of at most 256 group sums fold them on the host too: a
/// table's one row of 256 groups, whose `windows` kernel is one workgroup's
/// 23 dependent additions (H100, wall: 0.95x at 2^20, 0.97x at 2^21, 0.985x
/// at 2^22); the plain plans' 16 rows of 16 groups are level. From 2^20
/// scatter fills 2^17 buckets a round, whose slots being written (a 128-byte
/// line each, 16 MB) stay in the L2 until whole (H100, wall: 0.96x over
/// tables at 2^22-2^24, 0.96-0.98x plain from 2^21, 0.99x at 2^20; level
/// at 2^18-2^19). BN254 G2 was level at 2^20 (0.993x), BLS12-381 G2 too.
/// From 2^16 a set's table of shifted bases is built by the call that has
/// paid for it: the k-th, where k is the build's cost over what a call
/// over the table saves (H100, warm: 21 ms / 1.2 ms at 2^16, 38 / 1.45 at
/// 2^18, 122 / 1.55 at 2^20, 670 / 4.3 at 2^22), so a set used fewer times
/// never costs more than twice the best choice in hindsight.
const DISCRETE_INT64_BN254: &[BuiltinRange] = &[
    (0, 15, &[("walker_slots", "2")]),
    (
        16,
        16,
        &[("walker_slots", "2"), ("walker_threads", "65536"), ("host_windows_max", "128"), ("table_after", "16")],
    ),
    (
        17,
        17,
        &[
            ("walker_tpb", "512"),
            ("walker_slots", "2"),
            ("walker_threads", "65536"),
            ("walker_straight", "true"),
            ("host_windows_max", "128"),
            ("table_after", "16"),
        ],
    ),
    (
        18,
        19,
        &[
            ("walker_tpb", "512"),
            ("walker_threads", "65536"),
            ("walker_straight", "true"),
            ("walker_fused", "true"),
            ("host_windows_max", "128"),
            ("table_after", "32"),
        ],
    ),
    (
        20,
        20,
        &[
            ("walker_tpb", "512"),
            ("walker_threads", "65536"),
            ("walker_straight", "true"),
            ("walker_fused", "true"),
            ("host_windows_max", "256"),
            SCATTER_ROUNDS,
            ("table_after", "64"),
        ],
    ),
    (
        21,
        31,
        &[
            ("walker_tpb", "512"),
            ("walker_slots", "16"),
            ("walker_threads", "65536"),
            ("walker_straight", "true"),
            ("walker_fused", "true"),
            ("host_windows_max", "256"),
            SCATTER_ROUNDS,
            ("table_after", "128"),
        ],
    ),
];

/// G2 (Fq2 coordinates) in the 64-bit layout on a discrete GPU: the
/// 512-thread walkers above do not fit its workgroup memory; 8 slots a
/// thread from 2^18 (H200, BN254 G2 at 2^20: 4 slots 56.4 ms, 8 46.1, 16
/// 51.2, 2 80.3; at 2^22 210.5 -> 166.7; BLS12-381 G2 at 2^20 132.2 ->
/// 111.8); from 2^21 the walker keeps 2^20's 32,768 threads, so that tasks
/// grow instead of multiplying and fewer buckets are split between tasks
/// (walker_combine's Fq2 additions: BN254 G2 0.88x at 2^21, 0.81x at 2^22,
/// 0.69x at 2^23; BLS12-381 G2 0.80x at 2^22).
const DISCRETE_INT64_G2: &[BuiltinRange] = &[
    (0, 16, &[("walker_slots", "2")]),
    (18, 20, &[("walker_slots", "8")]),
    (21, 31, &[("walker_slots", "8"), ("walker_threads", "32768")]),
];

/// The portable layout (13x20) on a discrete GPU: the same large-size
/// walker from 2^21 (H200, ABBA: 0.79x at 2^21, 0.69x at 2^22, 0.50x at
/// 2^24), with 16 slots from 2^22 (H100: 0.94-0.97x at 2^22, 0.91x at
/// 2^23; 1.01x at 2^21), and scatter in rounds of 2^17 buckets (H100,
/// wall: 0.98x at 2^22 plain and over a table; level at 2^20). From 2^18
/// to 2^20, 65,536 threads in workgroups of 512 at 4 slots (H100, wall
/// over a table / plain: 0.88x / 0.83x at 2^18, 0.76x / 0.78x at 2^19,
/// 0.75x / 0.72x at 2^20; level at 2^17, 1.27x at 2^16; with 8 slots it
/// lost at 2^20). From 2^20 plans of at most 256 group sums fold them on
/// the host, as BN254 G1 does in the 64-bit layout (over a table, wall:
/// H200 0.95x at 2^20, H100 0.97-0.98x at 2^22). G2's inversion tree does
/// not fit these 512-thread walkers: its ranges are dropped whole.
const DISCRETE_PORTABLE: &[BuiltinRange] = &[
    (18, 19, PORTABLE_MID),
    (20, 20, &[("walker_tpb", "512"), ("walker_threads", "65536"), HOST_WINDOWS]),
    (
        21,
        21,
        &[
            ("walker_tpb", "512"),
            ("walker_slots", "8"),
            ("walker_threads", "65536"),
            HOST_WINDOWS,
            SCATTER_ROUNDS,
        ],
    ),
    (
        22,
        31,
        &[
            ("walker_tpb", "512"),
            ("walker_slots", "16"),
            ("walker_threads", "65536"),
            HOST_WINDOWS,
            SCATTER_ROUNDS,
        ],
    ),
];

/// 13x20's walker from 2^18: 65,536 threads in workgroups of 512.
const PORTABLE_MID: &[(&str, &str)] = &[("walker_tpb", "512"), ("walker_threads", "65536")];

/// A table's one row of 256 group sums folded on the host.
const HOST_WINDOWS: (&str, &str) = ("host_windows_max", "256");

/// The browser package (WebGPU, 13x20, WGSL compiled by Tint) on a GPU:
/// 13x20's native walker from 2^18 to 2^20, where it won under Dawn too
/// (over a table, warm: H200 0.93x at 2^20; H100 0.88x at 2^18, 0.90-0.95x
/// at 2^20; 1.18x at 2^16, so smaller sizes keep the defaults). A browser
/// does not say whether its GPU is discrete: every hardware adapter whose
/// limits fit the 512-thread walker takes it (`walkerTpb` pins another).
/// The host's fold is not taken: in wasm it cost 2 ms where the GPU's
/// `windows` kernel took 0.8.
const WEB_PORTABLE: &[BuiltinRange] = &[(18, 20, PORTABLE_MID)];

/// The built-in knobs by size of an adapter class and field layout (what a
/// context uses without a tuned profile), less the ranges whose walker does
/// not fit `bounds` (WebGPU's default limits): empty where the defaults hold
/// at every size.
pub fn builtin_ranges(info: &wgpu::AdapterInfo, field_layout: &str, bounds: &AdapterBounds) -> Vec<ProfileRange> {
    if AdapterClass::of(info) != AdapterClass::Gpu {
        return Vec::new();
    }
    let web = info.backend == wgpu::Backend::BrowserWebGpu;
    // measured on a discrete GPU natively, on any GPU a browser offers
    // (which it does not type); other adapters keep the plain defaults
    if !web && info.device_type != wgpu::DeviceType::DiscreteGpu {
        return Vec::new();
    }
    let table = match field_layout {
        "13x20" if web => WEB_PORTABLE,
        _ if web => return Vec::new(),
        "32x8-int64" if bounds.curve.coords() == msm_wgsl::Coords::Fq2 => DISCRETE_INT64_G2,
        "32x8-int64" if bounds.curve == Curve::Bn254G1 => DISCRETE_INT64_BN254,
        "32x8-int64" => DISCRETE_INT64,
        "13x20" => DISCRETE_PORTABLE,
        _ => return Vec::new(),
    };
    table
        .iter()
        .map(|&(min_logn, max_logn, knobs)| ProfileRange {
            min_logn,
            max_logn,
            knobs: knobs.iter().map(|&(k, v)| (k.to_string(), v.to_string())).collect(),
        })
        .filter(|r| {
            r.apply(&MsmConfig::default())
                .is_ok_and(|c| c.check_walker_fits(bounds).is_ok())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::profile::config_in_ranges;

    fn info(name: &str, device_type: wgpu::DeviceType) -> wgpu::AdapterInfo {
        crate::adapter::test_adapter_info(name, "NVIDIA", device_type, wgpu::Backend::Vulkan)
    }

    /// An H200's limits, or WebGPU's default 16 KiB of workgroup memory.
    fn bounds(max_workgroup_storage: u32) -> AdapterBounds {
        AdapterBounds {
            max_workgroup_storage,
            ..AdapterBounds::discrete_for_tests()
        }
    }

    /// The built-in ranges parse, ascend without overlap, and apply to a
    /// discrete GPU's 64-bit layout (and the portable one from 2^21) only;
    /// sizes between ranges keep the defaults.
    #[test]
    fn builtin_ranges_are_well_formed() {
        let gpu = info("NVIDIA H200", wgpu::DeviceType::DiscreteGpu);
        let ranges = builtin_ranges(&gpu, "32x8-int64", &bounds(49_152));
        assert!(!ranges.is_empty());
        for w in ranges.windows(2) {
            assert!(w[0].max_logn < w[1].min_logn, "{w:?}");
        }
        for r in &ranges {
            assert!(r.min_logn <= r.max_logn);
            r.apply(&MsmConfig::default()).unwrap();
        }
        let straight = |n: usize| config_in_ranges(&ranges, n).walker_straight;
        assert_eq!((straight(1 << 16), straight(1 << 17), straight(1 << 24)), (false, true, true));
        let mid = config_in_ranges(&ranges, 1 << 17);
        let two_slots = MsmConfig {
            walker_straight: true,
            walker_tpb: 512,
            walker_slots: 2,
            walker_threads: Some(65_536),
            host_windows_max: 128,
            table_after: 16,
            ..MsmConfig::default()
        };
        assert_eq!(mid, two_slots);
        // a set's table is built once it has paid for itself, from 2^16
        let after = |n: usize| config_in_ranges(&ranges, n).table_after;
        let calls = [1 << 15, 1 << 16, 1 << 18, 1 << 20, 1 << 22].map(after);
        assert_eq!(calls, [0, 16, 32, 64, 128]);
        // plans of at most 128 group sums fold on the host at 2^16-2^19
        // (a table's one row), of at most 256 from 2^20
        let host_windows = |n: usize| config_in_ranges(&ranges, n).host_windows_max;
        assert_eq!((host_windows(1 << 15), host_windows(1 << 19), host_windows(1 << 20)), (0, 128, 256));
        assert_eq!(host_windows(1 << 24), 256);
        // scatter in rounds of 2^17 buckets from 2^20
        let rounds = |n: usize| config_in_ranges(&ranges, n).scatter_buckets;
        assert_eq!((rounds(1 << 19), rounds(1 << 20), rounds(1 << 24)), (0, 131_072, 131_072));
        // the fixed thread count only from 2^16 (small MSMs keep the plan's)
        assert_eq!(config_in_ranges(&ranges, 1 << 16).walker_threads, Some(65_536));
        assert_eq!(config_in_ranges(&ranges, 1 << 12).walker_threads, None);
        let big = config_in_ranges(&ranges, 1 << 22);
        assert_eq!((big.walker_tpb, big.walker_slots, big.walker_threads), (512, 16, Some(65_536)));
        let portable = builtin_ranges(&gpu, "13x20", &bounds(49_152));
        assert_eq!(config_in_ranges(&portable, 1 << 17), MsmConfig::default());
        for logn in 18..=20 {
            let mid = config_in_ranges(&portable, 1 << logn);
            assert_eq!((mid.walker_tpb, mid.walker_slots, mid.walker_threads), (512, 4, Some(65_536)));
        }
        assert!(big.walker_fused);
        let wide = MsmConfig {
            walker_straight: false,
            walker_fused: false,
            walker_slots: 8,
            host_windows_max: 0,
            table_after: 0,
            ..big.clone()
        };
        // 13x20 folds a table's 256 group sums on the host from 2^20
        let portable_wide = MsmConfig {
            host_windows_max: 256,
            ..wide.clone()
        };
        assert_eq!(config_in_ranges(&portable, 1 << 21), portable_wide);
        let wider = MsmConfig {
            walker_slots: 16,
            ..portable_wide.clone()
        };
        assert_eq!(config_in_ranges(&portable, 1 << 22), wider);
        let host_windows = |n: usize| config_in_ranges(&portable, n).host_windows_max;
        assert_eq!((host_windows(1 << 19), host_windows(1 << 20)), (0, 256));
        // BLS12-381 G1: the same walkers, its row loops kept
        let bls = AdapterBounds {
            curve: crate::curve::Curve::Bls12_381G1,
            ..bounds(49_152)
        };
        let bls = builtin_ranges(&gpu, "32x8-int64", &bls);
        let bls_17 = MsmConfig {
            table_after: 32,
            ..MsmConfig::default()
        };
        assert_eq!(config_in_ranges(&bls, 1 << 17), bls_17);
        let bls_after = [1 << 15, 1 << 16, 1 << 20, 1 << 21].map(|n| config_in_ranges(&bls, n).table_after);
        assert_eq!(bls_after, [0, 32, 128, 0]);
        assert_eq!(config_in_ranges(&bls, 1 << 22), wide);
        assert!(builtin_ranges(&gpu, "16x16", &bounds(49_152)).is_empty());
        let igpu = info("Intel", wgpu::DeviceType::IntegratedGpu);
        assert!(builtin_ranges(&igpu, "32x8-int64", &bounds(49_152)).is_empty());
        let cpu = info("llvmpipe (LLVM 15.0.6, 256 bits)", wgpu::DeviceType::Cpu);
        assert!(builtin_ranges(&cpu, "32x8-int64", &bounds(49_152)).is_empty());
        // G2's own table: 8 slots from 2^18, no 512-thread walkers, 2^20's
        // thread count from 2^21
        let g2 = AdapterBounds {
            curve: crate::curve::Curve::Bls12_381G2,
            ..bounds(49_152)
        };
        let ranges = builtin_ranges(&gpu, "32x8-int64", &g2);
        for (logn, threads) in [(18, None), (20, None), (21, Some(32_768)), (22, Some(32_768))] {
            let c = config_in_ranges(&ranges, 1 << logn);
            assert_eq!((c.walker_tpb, c.walker_slots, c.walker_threads), (256, 8, threads), "2^{logn}");
        }
    }

    /// In a browser (which does not type its GPU) 13x20 takes the
    /// 512-thread walker from 2^18 to 2^20 on a hardware adapter whose
    /// limits fit it, and nothing else; other layouts, a fallback adapter
    /// and G2 (whose tree does not fit) keep the defaults.
    #[test]
    fn web_ranges_are_13x20s_mid_walker() {
        let web = |name: &str, t| crate::adapter::test_adapter_info(name, "", t, wgpu::Backend::BrowserWebGpu);
        let gpu = web("nvidia hopper", wgpu::DeviceType::Other);
        let ranges = builtin_ranges(&gpu, "13x20", &bounds(49_152));
        let mid = MsmConfig {
            walker_tpb: 512,
            walker_threads: Some(65_536),
            ..MsmConfig::default()
        };
        for (logn, want) in [(17, &MsmConfig::default()), (18, &mid), (20, &mid), (21, &MsmConfig::default())] {
            assert_eq!(&config_in_ranges(&ranges, 1 << logn), want, "2^{logn}");
        }
        assert!(builtin_ranges(&gpu, "16x16", &bounds(49_152)).is_empty());
        assert!(builtin_ranges(&gpu, "13x20", &bounds(16_384)).is_empty());
        let fallback = web("", wgpu::DeviceType::Cpu);
        assert!(builtin_ranges(&fallback, "13x20", &bounds(49_152)).is_empty());
        let g2 = AdapterBounds {
            curve: Curve::Bn254G2,
            ..bounds(49_152)
        };
        assert!(builtin_ranges(&gpu, "13x20", &g2).is_empty());
        let native = info("NVIDIA H200", wgpu::DeviceType::DiscreteGpu);
        assert!(builtin_ranges(&native, "13x20", &g2).iter().all(|r| {
            r.apply(&MsmConfig::default()).unwrap().walker_tpb != 512
        }));
    }

    /// Every group has its built-in crossover on a GPU, none on a CPU
    /// adapter; the wider groups' arkworks costs more a point, so theirs is
    /// never above BN254 G1's.
    #[test]
    fn builtin_crossover_is_per_group() {
        let gpu = info("NVIDIA H200", wgpu::DeviceType::DiscreteGpu);
        let cpu = info("llvmpipe (LLVM 15.0.6, 256 bits)", wgpu::DeviceType::Cpu);
        let g1 = builtin_crossover(&gpu, Curve::Bn254G1).unwrap();
        assert_eq!(g1, 4096);
        for c in Curve::ALL {
            assert_eq!(builtin_crossover(&cpu, c), None, "{c}");
            let x = builtin_crossover(&gpu, c).unwrap();
            assert!(x.is_power_of_two() && x <= g1, "{c}: {x}");
        }
        assert_eq!(builtin_crossover(&gpu, Curve::Bls12_381G2), Some(2048));
    }

    /// Under WebGPU's default limits the ranges with 512-thread walkers (a
    /// 32 KiB inversion tree) are dropped; the others stay.
    #[test]
    fn builtin_ranges_fit_the_limits() {
        let gpu = info("NVIDIA H200", wgpu::DeviceType::DiscreteGpu);
        let all = builtin_ranges(&gpu, "32x8-int64", &bounds(49_152));
        let small = builtin_ranges(&gpu, "32x8-int64", &bounds(16_384));
        assert!(!small.is_empty() && small.len() < all.len());
        for r in &small {
            assert_ne!(r.apply(&MsmConfig::default()).unwrap().walker_tpb, 512, "{r:?}");
        }
    }
}
