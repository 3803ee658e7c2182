//! `msm-cli field-bench`: multiplications (or inversions) per second of each
//! field layout.

use msm_core::diagnostics::{ChainOp, ProductStyle};
use msm_core::{ContextOptions, FieldCode, FieldLayout, GpuContext, Inversion, MsmError};

#[derive(clap::Args)]
pub struct Args {
    /// Layouts to measure (13x20, 16x16, 32x8-int64: BN254's shapes; in
    /// BLS12-381's field they are 13x30, 16x24 and 32x12); default: every
    /// layout the adapter runs.
    #[arg(long, value_delimiter = ',')]
    layout: Vec<String>,
    /// Threads, each running one dependent chain.
    #[arg(long, default_value_t = 1 << 20)]
    invocations: usize,
    /// Operations per chain (keep under 65,535 / 80 for `inv` on lavapipe).
    #[arg(long, default_value_t = 256)]
    iters: u32,
    /// The chained operation: `mul` (x <- x y), `sqr` (x <- x^2), `inv`
    /// (x <- y / x: one inversion and one multiplication) or `products`
    /// (254-bit integer products by u32 or f32 units, `--products`).
    #[arg(long, default_value = "mul")]
    op: String,
    /// Inversion algorithms for `--op inv` (fermat, gcd, bingcd, safegcd,
    /// safegcd64); default: every one the layout runs.
    #[arg(long, value_delimiter = ',')]
    inversion: Vec<String>,
    /// The base field: bn254 (254-bit Fq) or bls12-381 (381-bit Fq).
    #[arg(long, default_value = "bn254")]
    field: String,
    /// The group whose coordinates to multiply: g1 (Fq) or g2 (Fq2, one
    /// Karatsuba multiplication counted as one).
    #[arg(long, default_value = "g1")]
    group: String,
    /// Timed repetitions after one warm-up; the median is reported.
    #[arg(long, default_value_t = 5)]
    reps: usize,
    /// Field code: unrolled, looped, rows or mixed (default: the adapter's;
    /// on a GPU the 64-bit layout's is rows, whose squaring is a
    /// multiplication, while the walker's is unrolled).
    #[arg(long)]
    field_code: Option<String>,
    /// Styles for `--op products` (int-13x20, int-11x24, f32-11x24);
    /// default: all three.
    #[arg(long, value_delimiter = ',')]
    products: Vec<String>,
    /// Use the first adapter whose name contains this text.
    #[arg(long)]
    adapter: Option<String>,
    /// One JSON object per layout instead of a table row.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &Args) -> Result<(), MsmError> {
    if args.op == "products" {
        return products(args);
    }
    let (op, unit) = match args.op.as_str() {
        "mul" => (ChainOp::Mul, "mul/s"),
        "sqr" => (ChainOp::Sqr, "sqr/s"),
        "inv" => (ChainOp::Inv, "inv/s"),
        other => {
            return Err(MsmError::invalid_config(
                "--op",
                format!("{other}: expected mul, sqr, inv or products"),
            ))
        }
    };
    let group = crate::knobs::curve_group(&args.field, &args.group).map_err(|_| {
        MsmError::invalid_config(
            "--field",
            format!("{} {}: expected bn254 or bls12-381, g1 or g2", args.field, args.group),
        )
    })?;
    let field = group.field();
    let coords = if group.coords() == msm_wgsl::Coords::Fq2 {
        "2"
    } else {
        ""
    };
    let layouts = named(
        &args.layout,
        &FieldLayout::ALL,
        FieldLayout::from_name,
        "--layout",
        "layout",
        "13x20, 16x16, 32x8-int64",
    )?;
    let inversions: Vec<Option<Inversion>> = match (op, args.inversion.is_empty()) {
        (ChainOp::Mul | ChainOp::Sqr, _) => vec![None],
        (ChainOp::Inv, true) => Inversion::ALL.map(Some).to_vec(),
        (ChainOp::Inv, false) => args
            .inversion
            .iter()
            .map(|s| {
                s.parse()
                    .map(Some)
                    .map_err(|e: String| MsmError::invalid_config("--inversion", e))
            })
            .collect::<Result<_, _>>()?,
    };
    let field_code: Option<FieldCode> = args
        .field_code
        .as_deref()
        .map(str::parse)
        .transpose()
        .map_err(|e: String| MsmError::invalid_config("--field-code", e))?;
    for (layout, inversion) in layouts
        .iter()
        .flat_map(|&l| inversions.iter().map(move |&i| (l, i)))
        .filter(|(l, i)| i.is_none_or(|i| i.supports(*l)))
    {
        let opts = ContextOptions {
            field_layout: Some(layout),
            adapter_name: args.adapter.clone(),
            inversion,
            field_code,
            ..Default::default()
        };
        let ctx = match GpuContext::new_blocking(&opts) {
            Err(MsmError::LayoutUnsupported { .. }) if args.layout.is_empty() => {
                eprintln!("{layout}: skipped, the adapter lacks SHADER_INT64");
                continue;
            }
            other => other?,
        };
        let info = ctx.adapter_info();
        if ctx.is_software() && !args.json {
            eprintln!(
                "note: `{}` is a software adapter; absolute figures are CPU figures",
                info.name
            );
        }
        let t = pollster::block_on(ctx.field_throughput_in(group, args.invocations, args.iters, args.reps, op))?;
        // the layout's limb shape in this field (13x30, 16x24, 32x12 for BLS12-381)
        let c = msm_wgsl::FieldConstants::for_field(layout, field);
        let int64 = if layout.needs_int64() { "-int64" } else { "" };
        let shape = format!("{}x{}{int64}", layout.limb_bits(), c.n);
        if args.json {
            println!(
                "{{\"adapter\":{:?},\"backend\":\"{:?}\",\"driver\":{:?},\"field\":\"{field}\",\"group\":\"{}\",\"layout\":\"{layout}\",\"limbs\":\"{shape}\",\"inversion\":\"{}\",\"code\":\"{}\",\"op\":\"{}\",\"invocations\":{},\"iters\":{},\"reps\":{},\"mults_per_sec_median\":{:.4e},\"mults_per_sec_min\":{:.4e},\"mults_per_sec_max\":{:.4e},\"timing\":\"wall\",\"correct\":{}}}",
                info.name, info.backend, format!("{} {}", info.driver, info.driver_info), group.coords().group(), ctx.field_options().inversion, ctx.field_code(), args.op, args.invocations, args.iters, args.reps,
                t.mults_per_sec_median, t.mults_per_sec_worst, t.mults_per_sec_best, t.correct
            );
        } else {
            println!(
                "{field} Fq{coords} {:<11} {:<8} {:<6} {:>10.3e} {unit} (median; min {:.3e}, max {:.3e}; wall clock, {} x {} chained, {} reps) on {} [{:?}, {} {}] check: {}",
                shape, ctx.field_code().name(), if op == ChainOp::Inv { ctx.field_options().inversion.name() } else { "" }, t.mults_per_sec_median, t.mults_per_sec_worst, t.mults_per_sec_best,
                args.invocations, args.iters, args.reps, info.name, info.backend, info.driver, info.driver_info,
                if t.correct { "ok (arkworks)" } else { "WRONG" }
            );
        }
        if !t.correct {
            return Err(MsmError::CorruptResult);
        }
    }
    Ok(())
}

/// `--op products`: each style's chained 254-bit products on one context,
/// checked against the CPU twin.
fn products(args: &Args) -> Result<(), MsmError> {
    let styles = named(
        &args.products,
        &ProductStyle::ALL,
        ProductStyle::from_name,
        "--products",
        "style",
        "int-13x20, int-11x24, f32-11x24",
    )?;
    let opts = ContextOptions {
        adapter_name: args.adapter.clone(),
        ..Default::default()
    };
    let ctx = GpuContext::new_blocking(&opts)?;
    let info = ctx.adapter_info();
    for style in styles {
        let t = pollster::block_on(ctx.limb_products(style, args.invocations, args.iters, args.reps))?;
        if args.json {
            println!(
                "{{\"adapter\":{:?},\"driver\":{:?},\"op\":\"products\",\"style\":\"{}\",\"invocations\":{},\"iters\":{},\"reps\":{},\"products_per_sec_median\":{:.4e},\"products_per_sec_min\":{:.4e},\"products_per_sec_max\":{:.4e},\"limb_products_per_sec\":{:.4e},\"timing\":\"wall\",\"correct\":{}}}",
                info.name, format!("{} {}", info.driver, info.driver_info), style.name(), args.invocations, args.iters, args.reps,
                t.products_per_sec_median, t.products_per_sec_worst, t.products_per_sec_best, t.limb_products_per_sec, t.correct
            );
        } else {
            println!(
                "{:<10} {:>10.3e} products/s ({:.3e} limb products/s; min {:.3e}, max {:.3e}; wall clock, {} x {} chained, {} reps) on {} check: {}",
                style.name(), t.products_per_sec_median, t.limb_products_per_sec, t.products_per_sec_worst, t.products_per_sec_best,
                args.invocations, args.iters, args.reps, info.name, if t.correct { "ok (CPU twin)" } else { "WRONG" }
            );
        }
        if !t.correct {
            return Err(MsmError::CorruptResult);
        }
    }
    Ok(())
}

/// The values `given` names (`all` when none), or the flag's error for an
/// unknown name.
fn named<T: Copy>(
    given: &[String],
    all: &[T],
    parse: fn(&str) -> Option<T>,
    flag: &'static str,
    what: &str,
    known: &str,
) -> Result<Vec<T>, MsmError> {
    if given.is_empty() {
        return Ok(all.to_vec());
    }
    given
        .iter()
        .map(|n| parse(n).ok_or_else(|| MsmError::invalid_config(flag, format!("unknown {what} `{n}` ({known})"))))
        .collect()
}
