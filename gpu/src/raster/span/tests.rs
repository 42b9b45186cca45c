//! The kernels against the pixel-by-pixel reference, and the rule's instances against each other.

use super::*;
use crate::raster::pixel::{
    Flags, Inputs, PixelOut, BLEND_ADD, BLEND_ADD_QUARTER, BLEND_AVERAGE, BLEND_NONE,
    BLEND_SUBTRACT,
};
use crate::raster::texture::{ClutTable, Texture};
use crate::raster::TexSource;
use crate::rng::XorShift;
use crate::{VramImage, VRAM_HEIGHT};

/// Every flag combination the kernels are compiled for.
fn all_flags() -> impl Iterator<Item = Flags> {
    let blends = [
        BLEND_NONE,
        BLEND_AVERAGE,
        BLEND_ADD,
        BLEND_SUBTRACT,
        BLEND_ADD_QUARTER,
    ];
    let textures = [(false, false), (true, false), (true, true)];
    blends
        .into_iter()
        .flat_map(move |b| textures.map(|(t, raw)| Flags::new(t, raw, b)))
}

/// `p` with `f` applied to every value.
fn map<A: Copy, B>(p: Inputs<A>, f: impl Fn(A) -> B) -> Inputs<B> {
    Inputs {
        dst: f(p.dst),
        texel: f(p.texel),
        rgb: p.rgb.map(&f),
        dither: f(p.dither),
        covered: f(p.covered),
    }
}

/// The rule compiled for the lane kernels gives what it gives in 32 bits, one pixel at a time,
/// for every 5-bit texel component, colour in 0..=255 and dither offset, under every flag, with
/// random destinations, texel bit 15, transparent texels, mask bits and uncovered lanes.
#[test]
fn lane_instances_equal_the_scalar_rule() {
    let mut r = XorShift::new(0x1a4e_5ca1);
    for tc in 0..32u16 {
        for c in 0..256 {
            let t5 = tc | (tc << 5) | (tc << 10);
            let texel: [u16; LANES] = std::array::from_fn(|_| match r.below(8) {
                0 => 0,
                _ => t5 | (r.next_u32() as u16 & 0x8000),
            });
            let dst: [u16; LANES] = std::array::from_fn(|_| r.next_u32() as u16);
            let covered: [bool; LANES] = std::array::from_fn(|_| r.below(8) != 0);
            let rgb = [c, 255 - c, (c * 7) & 255];
            let px = PixelOut {
                check: (r.below(2) as u16) << 15,
                set: (r.below(2) as u16) << 15,
            };
            for flags in all_flags() {
                let want: [u16; LANES] = std::array::from_fn(|i| {
                    let p = Inputs {
                        dst: dst[i].into(),
                        texel: texel[i].into(),
                        rgb,
                        dither: i as i32 - 4,
                        covered: -i32::from(covered[i]),
                    };
                    pixel(Scalar, flags, p, px.lanes(Scalar)) as u16
                });
                let wide = |v: [u16; LANES]| v.map(i32::from);
                let lanes = Inputs {
                    dst: wide(dst),
                    texel: wide(texel),
                    rgb: rgb.map(|c| [c; LANES]),
                    dither: std::array::from_fn(|i| i as i32 - 4),
                    covered: covered.map(|c| -i32::from(c)),
                };
                let narrow = |v: [i32; LANES]| v.map(|x| x as i16);
                let got = pixel(Portable, flags, map(lanes, narrow), px.lanes(Portable));
                assert_eq!(
                    got.map(|x| x as u16),
                    want,
                    "portable {flags:?} tc {tc} c {c}"
                );
                #[cfg(target_arch = "x86_64")]
                if let Some(k) = avx2::Avx2::detect() {
                    let got = pixel(k, flags, map(lanes, |v| k.load(v)), px.lanes(k));
                    let got = k.store(got).map(|x| x as u16);
                    assert_eq!(got, want, "avx2 {flags:?} tc {tc} c {c}");
                }
            }
        }
    }
}

#[test]
fn dither_lanes_follow_the_matrix() {
    for y in 0..4 {
        for x0 in 0..4 {
            for i in 0..LANES {
                assert_eq!(DITHER_LANES[y][x0][i], DITHER[y][(x0 + i) % 4]);
            }
        }
    }
}

/// What every kernel is compared on: a random VRAM snapshot, CLUT and destination row.
struct Case {
    vram: Box<VramImage>,
    clut: ClutTable,
    row: Vec<u16>,
}

impl Case {
    fn new(r: &mut XorShift) -> Self {
        let texel = |r: &mut XorShift| match r.below(8) {
            0 => 0,
            1 => 0x8000,
            _ => r.next_u32() as u16,
        };
        let vram: Box<VramImage> = (0..VRAM_WIDTH * VRAM_HEIGHT)
            .map(|_| texel(r))
            .collect::<Vec<_>>()
            .try_into()
            .expect("VRAM-sized");
        Case {
            vram,
            clut: std::array::from_fn(|_| texel(r)),
            row: (0..VRAM_WIDTH).map(|_| texel(r)).collect(),
        }
    }
}

/// Random colours ·2¹² at the first of `n` pixels and their steps (0 unless `gouraud`): start
/// and end in 0..=255, so every pixel is (the kernels' precondition).
fn colours(r: &mut XorShift, n: usize, gouraud: bool) -> ([i32; 3], [i32; 3]) {
    let mut rgb = [0i32; 3];
    let mut drgb = [0i32; 3];
    for c in 0..3 {
        let (a, b) = (r.below(256) as i32, r.below(256) as i32);
        rgb[c] = (a << FRAC) | r.below(1 << FRAC) as i32;
        drgb[c] = if gouraud && n > 1 {
            ((b << FRAC) - rgb[c]) / (n as i32 - 1)
        } else {
            0
        };
    }
    (rgb, drgb)
}

/// Random spans of one specialisation: the portable kernel and (where the CPU has it) the
/// AVX2 kernel must write exactly what the pixel-by-pixel reference writes, everywhere in
/// the row.
fn check<const DEPTH: u8, const GOURAUD: bool, const RAW: bool, const BLEND: u8>(
    r: &mut XorShift,
    case: &Case,
) {
    for _ in 0..60 {
        let max = if r.below(4) == 0 { 80 } else { 20 };
        let n = 1 + r.below(max) as usize;
        let x0 = if r.below(5) == 0 {
            VRAM_WIDTH - n
        } else {
            r.below((VRAM_WIDTH - n) as u32 + 1) as usize
        };
        let x1 = x0 + n;
        let (rgb, drgb) = colours(r, n, GOURAUD);
        let uv = [r.next_u32(), r.next_u32()];
        let (s0, s1) = (r.below(32), r.below(32));
        let duv = [r.next_u32() >> s0, (r.next_u32() >> s1).wrapping_neg()];
        // A second span inside the first, through the same primitive constants.
        let s0 = x0 + r.below(n as u32) as usize;
        let s1 = s0 + 1 + r.below((x1 - s0) as u32) as usize;
        let dither_row = (r.below(2) == 0).then(|| r.below(4) as usize);
        let dither_at = |x: usize| dither_lanes(dither_row, x);
        let dither = dither_at(x0);
        let px = PixelOut {
            check: if r.below(2) == 0 { 0x8000 } else { 0 },
            set: if r.below(2) == 0 { 0x8000 } else { 0 },
        };
        let page = crate::gp0::fields::TexPage((r.next_u32() & 0x1ff) as u16);
        let win = match r.below(2) {
            0 => 0,
            _ => r.next_u32(),
        };
        let win = crate::gp0::fields::TexWindow(win);
        let tex = Texture::new(page, win, crate::raster::texture::ClutRef::Table(0));
        let cluts = [case.clut];
        let src = TexSource {
            vram: &case.vram,
            cluts: &cluts,
        };
        let smp = tex.sampler::<DEPTH>(src);
        let smp = (DEPTH != 0).then_some(&smp);
        let acc = [0, 1, 2, 3, 4].map(|i| match i {
            0..=2 => rgb[i] as i64,
            _ => uv[i - 3] as i64,
        });
        let gdx = [0, 1, 2, 3, 4].map(|i| match i {
            0..=2 => drgb[i] as i64,
            _ => duv[i - 3] as i32 as i64,
        });
        let mut want = case.row.clone();
        span_exact::<DEPTH, RAW, BLEND>(&mut want[x0..x1], dither, acc, gdx, smp, px);
        let skip = (s0 - x0) as i64;
        let acc2 = std::array::from_fn(|i| acc[i] + gdx[i] * skip);
        let sub = &mut want[s0..s1];
        span_exact::<DEPTH, RAW, BLEND>(sub, dither_at(s0), acc2, gdx, smp, px);
        // Flat spans read the flat colour, gouraud ones their colours at the first pixel.
        // A flat span's colour comes from `flat` alone: its colour steps are garbage here.
        let drgb = if GOURAUD {
            drgb
        } else {
            [r.next_u32() as i32, 7, -3]
        };
        let steps = PrimSteps {
            gdx: [drgb[0], drgb[1], drgb[2], duv[0] as i32, duv[1] as i32],
            flat: rgb.map(|c| c >> FRAC),
            px,
        };
        let at = if GOURAUD {
            [rgb[0], rgb[1], rgb[2], uv[0] as i32, uv[1] as i32]
        } else {
            let garbage = r.next_u32() as i32;
            [-1 << 30, 1 << 30, garbage, uv[0] as i32, uv[1] as i32]
        };
        // Both spans through kernel `k`, the second's attributes stepped from the first's.
        let draw = |k: &dyn Fn(&mut [u16; VRAM_WIDTH])| {
            let mut got = case.row.clone();
            k((&mut got[..]).try_into().expect("a VRAM row"));
            got
        };
        let what = format!(
            "DEPTH {DEPTH} GOURAUD {GOURAUD} RAW {RAW} BLEND {BLEND} {x0}..{x1}, {s0}..{s1}"
        );
        let got = draw(&|row| {
            let (k, p) = (Portable, Portable.prim(&steps, smp));
            let (a, d) = (k.attrs(at), k.attrs(steps.gdx));
            k.span::<DEPTH, GOURAUD, RAW, BLEND>(&p, row, x0, x1, a, dither, smp);
            let a2 = k.attrs_mul_add(a, d, (s0 - x0) as i32);
            k.span::<DEPTH, GOURAUD, RAW, BLEND>(&p, row, s0, s1, a2, dither_at(s0), smp);
        });
        assert_eq!(got, want, "portable, {what}");
        #[cfg(target_arch = "x86_64")]
        if let Some(k) = avx2::Avx2::detect() {
            let got = draw(&|row| {
                let p = k.prim(&steps, smp);
                let (a, d) = (k.attrs(at), k.attrs(steps.gdx));
                k.span::<DEPTH, GOURAUD, RAW, BLEND>(&p, row, x0, x1, a, dither, smp);
                let a2 = k.attrs_mul_add(a, d, (s0 - x0) as i32);
                k.span::<DEPTH, GOURAUD, RAW, BLEND>(&p, row, s0, s1, a2, dither_at(s0), smp);
            });
            assert_eq!(got, want, "avx2, {what}");
        }

        let drawn = Drawn {
            x0,
            x1,
            acc,
            gdx,
            at,
            steps,
            dither_row,
            smp,
            px,
            what: &what,
        };
        check_pair::<DEPTH, GOURAUD, RAW, BLEND>(r, case, &drawn);
    }
}

/// A random span's primitive as [`check`] drew it: what spans inside it need.
struct Drawn<'a, const DEPTH: u8> {
    x0: usize,
    x1: usize,
    /// r, g, b, u, v ·2¹² at `x0` and their steps, as `span_exact` takes them.
    acc: [i64; 5],
    gdx: [i64; 5],
    /// The attributes at `x0` and the primitive's constants, as the kernels take them.
    at: [i32; 5],
    steps: PrimSteps,
    dither_row: Option<usize>,
    smp: Option<&'a Sampler<'a, DEPTH>>,
    px: PixelOut,
    what: &'a str,
}

/// The dither lanes of a span starting at column `x` on dither row `row` (`None`: no dither).
fn dither_lanes(row: Option<usize>, x: usize) -> &'static [i16; LANES] {
    match row {
        None => &NO_DITHER,
        Some(y) => &DITHER_LANES[y][x & 3],
    }
}

/// Two short spans inside `d`'s, on two rows, drawn as one pair by each kernel, must write
/// what the pixel-by-pixel reference writes on each row.
fn check_pair<const DEPTH: u8, const GOURAUD: bool, const RAW: bool, const BLEND: u8>(
    r: &mut XorShift,
    case: &Case,
    d: &Drawn<'_, DEPTH>,
) {
    let (x0, x1, acc, gdx, smp, px) = (d.x0, d.x1, d.acc, d.gdx, d.smp, d.px);
    let dither_at = |x: usize| dither_lanes(d.dither_row, x);
    let n = x1 - x0;
    let mut short = || {
        let s = x0 + r.below(n as u32) as usize;
        let e = s + 1 + r.below((x1 - s).min(HALF) as u32) as usize;
        (s, e)
    };
    let (a, b) = (short(), short());
    if !Short::<()>::fits(a.0, a.1) || !Short::<()>::fits(b.0, b.1) {
        return;
    }
    let rows = [case.row.clone(), case.row.iter().rev().copied().collect()];
    let mut want = rows.clone();
    for (row, (s, e)) in want.iter_mut().zip([a, b]) {
        let acc = std::array::from_fn(|i| acc[i] + gdx[i] * (s - x0) as i64);
        span_exact::<DEPTH, RAW, BLEND>(&mut row[s..e], dither_at(s), acc, gdx, smp, px);
    }
    let what = format!("{}, pair {a:?} {b:?}", d.what);
    macro_rules! pair {
        ($k:expr) => {{
            let k = $k;
            let p = k.prim(&d.steps, smp);
            let (at, step) = (k.attrs(d.at), k.attrs(d.steps.gdx));
            let mut got = rows.clone();
            let [ra, rb] = &mut got;
            macro_rules! short {
                ($row:expr, $span:expr) => {
                    Short {
                        row: (&mut $row[..]).try_into().expect("a VRAM row"),
                        x0: $span.0,
                        x1: $span.1,
                        at: k.attrs_mul_add(at, step, ($span.0 - x0) as i32),
                        dither: dither_at($span.0),
                    }
                };
            }
            k.span_pair::<DEPTH, GOURAUD, RAW, BLEND>(&p, short!(ra, a), short!(rb, b), smp);
            got
        }};
    }
    assert_eq!(pair!(Portable), want, "portable, {what}");
    #[cfg(target_arch = "x86_64")]
    if let Some(k) = avx2::Avx2::detect() {
        assert_eq!(pair!(k), want, "avx2, {what}");
    }
}

macro_rules! check_all {
    ($r:expr, $case:expr; $($blend:expr),*) => {$(
        check::<0, false, false, $blend>($r, $case);
        check::<0, true, false, $blend>($r, $case);
        check::<4, false, false, $blend>($r, $case);
        check::<4, true, false, $blend>($r, $case);
        check::<4, false, true, $blend>($r, $case);
        check::<8, false, false, $blend>($r, $case);
        check::<8, true, false, $blend>($r, $case);
        check::<8, false, true, $blend>($r, $case);
        check::<15, false, false, $blend>($r, $case);
        check::<15, true, false, $blend>($r, $case);
        check::<15, false, true, $blend>($r, $case);
    )*};
}

#[test]
fn kernels_equal_the_pixel_by_pixel_reference() {
    let mut r = XorShift::new(0x5eed_5a4e);
    for _ in 0..3 {
        let case = Case::new(&mut r);
        check_all!(&mut r, &case; BLEND_NONE, BLEND_AVERAGE, BLEND_ADD, BLEND_SUBTRACT, BLEND_ADD_QUARTER);
    }
}
