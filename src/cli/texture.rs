//! `psxrender texture FILE [OUT.png]`: a texture beside what the PS1 would hold after
//! psxrender's conversion (resampled to a power of two ≤ 256, CLUT-quantised to 4 or 8 bpp or
//! kept at 15, transparency encoded), so an artist sees what the conversion does.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args as ClapArgs, ValueEnum};

use psxrender::formats::LoadOptions;
use psxrender::scene::RgbaImage;
use psxrender::texture::{ps1_form, BlendClass, TextureDepth, LONE_TEXTURE_FRAMEBUFFER};

use super::model_args::{parse_plt_colors, PltColors};
use super::render::parse_depth;
use super::write_failed;
use super::{EXIT_BAD_INPUT, EXIT_WRITE_FAILED};

/// Gap between the two pictures, in pixels (transparent).
const GAP: u32 = 8;

/// Show a texture beside its PS1 form: left the file as decoded, right the texels psxrender
/// would upload (decoded back through their CLUT, enlarged by a whole factor to about the
/// original's size; never-drawn texels are transparent). Reads TIM, BLP2, DDS, TGA, PNG, PLT.
///
/// Example: `psxrender texture skin.blp skin-4bpp.png --depth 4 --tim skin.tim`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The texture (format detected from its content).
    pub file: PathBuf,
    /// Output PNG (RGBA): the original, then the PS1 form.
    #[arg(value_name = "OUT.png", default_value = "texture.png")]
    pub out: PathBuf,
    /// Texel depth: 4 or 8 (CLUT) or 15 (direct); default: 4bpp for ≤16 colours, else 8bpp.
    #[arg(long, value_name = "4|8|15", value_parser = parse_depth)]
    pub depth: Option<TextureDepth>,
    /// How alpha is encoded: as on an opaque face, a cut-out one, an alpha-blended one, or an
    /// additive one (every texel sets STP); `auto` picks from the image's alpha.
    #[arg(long, value_enum, default_value_t = BlendArg::Auto)]
    pub blend: BlendArg,
    /// Also write the PS1 form as a TIM (image and CLUT at the VRAM places psxrender uses).
    #[arg(long, value_name = "OUT.tim")]
    pub tim: Option<PathBuf>,
    /// PLT: ten palette rows (skin,hair,metal1,metal2,cloth1,cloth2,leather1,leather2,
    /// tattoo1,tattoo2), comma-separated.
    #[arg(long = "plt-colors", value_name = "N,N,...", value_parser = parse_plt_colors)]
    pub plt_colors: Option<PltColors>,
    /// PLT: directory holding the pal_*.tga palettes (default: `pal/` beside the file).
    #[arg(long = "palette-dir", value_name = "DIR")]
    pub palette_dir: Option<PathBuf>,
}

/// `--blend`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BlendArg {
    /// Opaque when every pixel is, cutout when alpha is only on/off, else alpha.
    Auto,
    /// Alpha ignored.
    Opaque,
    /// Alpha below one half is transparent.
    Cutout,
    /// Partial alpha blends (STP set).
    Alpha,
    /// Every visible texel blends (additive, subtractive faces).
    Additive,
}

pub fn run(args: Args) -> ExitCode {
    match texture(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

fn bad(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(EXIT_BAD_INPUT)
}

fn texture(args: &Args) -> Result<(), ExitCode> {
    super::precheck::check_outputs(
        std::iter::once((&args.out, "OUT")).chain(args.tim.iter().map(|t| (t, "--tim"))),
        &[&args.file],
    )
    .map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(EXIT_WRITE_FAILED)
    })?;
    let opts = LoadOptions {
        plt_colors: args.plt_colors.map(|c| c.0),
        palette_dir: args.palette_dir.clone(),
        ..LoadOptions::default()
    };
    let mut warnings = Vec::new();
    let (kind, img) =
        psxrender::detect::load_image(&args.file, &opts, &mut warnings).map_err(bad)?;
    super::print_warnings(warnings);
    let class = match args.blend {
        BlendArg::Auto => BlendClass::for_image(&img),
        BlendArg::Opaque => BlendClass::Opaque,
        BlendArg::Cutout => BlendClass::Cutout,
        BlendArg::Alpha => BlendClass::Alpha,
        BlendArg::Additive => BlendClass::Blended,
    };
    let img = std::sync::Arc::new(img);
    let form = ps1_form(
        std::sync::Arc::clone(&img),
        class,
        args.depth.unwrap_or_default(),
        LONE_TEXTURE_FRAMEBUFFER,
    )
    .map_err(|e| bad(format!("{}: {e}", args.file.display())))?;
    let ps1 = form.tim.to_rgba(0);
    let scale = (img.width / ps1.width).min(img.height / ps1.height).max(1);
    let (width, height, rgba) = side_by_side(&img, &ps1, scale);
    let (in_width, in_height) = (img.width, img.height);
    // The picture holds the original now: an 8192² texture is not kept twice while encoding.
    drop(img);
    let t = &form.tim;
    let clut = t.clut.as_ref().map_or(String::new(), |c| {
        format!(", CLUT of {} at VRAM ({},{})", c.data.len(), c.x, c.y)
    });
    outln!(
        "{}: {} {}x{} -> PS1 {}bpp {}x{}, {} encoding, {} colours{clut}; texels at VRAM ({},{}){}",
        args.file.display(),
        kind.name(),
        in_width,
        in_height,
        form.bits(),
        ps1.width,
        ps1.height,
        class.name(),
        form.colours,
        t.image.x,
        t.image.y,
        if scale > 1 {
            format!("; shown x{scale} in {}", args.out.display())
        } else {
            String::new()
        }
    );
    psxrender::output::save_png_rgba(&args.out, width, height, &rgba)
        .map_err(|e| write_failed(&args.out, e))?;
    outln!("wrote {}", args.out.display());
    if let Some(path) = &args.tim {
        psxrender::output::write_atomic(path, &form.tim.write())
            .map_err(|e| write_failed(path, e))?;
        outln!("wrote {}", path.display());
    }
    Ok(())
}

/// `a`, a transparent gap, then `b` enlarged `scale` times (nearest texel), tops aligned:
/// width, height and the RGBA bytes, built flat (the PNG encoder's form, so never copied).
fn side_by_side(a: &RgbaImage, b: &RgbaImage, scale: u32) -> (u32, u32, Vec<u8>) {
    let (bw, bh) = (b.width * scale, b.height * scale);
    let width = a.width + GAP + bw;
    let height = a.height.max(bh);
    let row = width as usize * 4;
    let mut rgba = vec![0u8; row * height as usize];
    for (y, line) in rgba.chunks_exact_mut(row).enumerate() {
        let y = y as u32;
        if y < a.height {
            let src = &a.pixels[(y * a.width) as usize..((y + 1) * a.width) as usize];
            for (dst, p) in line.chunks_exact_mut(4).zip(src) {
                dst.copy_from_slice(p);
            }
        }
        if y < bh {
            let src = &b.pixels[((y / scale) * b.width) as usize..];
            let right = &mut line[(a.width + GAP) as usize * 4..];
            for (x, dst) in right.chunks_exact_mut(4).enumerate() {
                dst.copy_from_slice(&src[x / scale as usize]);
            }
        }
    }
    (width, height, rgba)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ps1_form_sits_right_of_the_original_enlarged_and_the_rest_is_clear() {
        let px = |n: u8| [n, n, n, 255];
        let a = RgbaImage {
            width: 3,
            height: 1,
            pixels: vec![px(1), px(2), px(3)],
        };
        let b = RgbaImage {
            width: 2,
            height: 1,
            pixels: vec![px(7), px(9)],
        };
        let (w, h, rgba) = side_by_side(&a, &b, 2);
        assert_eq!((w, h), (3 + GAP + 4, 2));
        let at = |x: u32, y: u32| -> [u8; 4] {
            let i = ((y * w + x) * 4) as usize;
            rgba[i..i + 4].try_into().unwrap()
        };
        assert_eq!([at(0, 0), at(1, 0), at(2, 0)], [px(1), px(2), px(3)]);
        assert_eq!(at(0, 1), [0; 4], "below the original: clear");
        assert_eq!(at(3, 0), [0; 4], "the gap: clear");
        let right: Vec<_> = (0..4).map(|x| at(3 + GAP + x, 1)).collect();
        assert_eq!(right, [px(7), px(7), px(9), px(9)]);
    }
}
