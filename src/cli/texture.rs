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
    super::precheck::check_outputs(std::iter::once(&args.out).chain(&args.tim), &[&args.file])
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
    let form = ps1_form(
        &img,
        class,
        args.depth.unwrap_or_default(),
        LONE_TEXTURE_FRAMEBUFFER,
    )
    .map_err(|e| bad(format!("{}: {e}", args.file.display())))?;
    let ps1 = form.tim.to_rgba(0);
    let scale = (img.width / ps1.width).min(img.height / ps1.height).max(1);
    let picture = side_by_side(&img, &ps1, scale);
    let t = &form.tim;
    let clut = t.clut.as_ref().map_or(String::new(), |c| {
        format!(", CLUT of {} at VRAM ({},{})", c.data.len(), c.x, c.y)
    });
    outln!(
        "{}: {} {}x{} -> PS1 {}bpp {}x{}, {} encoding, {} colours{clut}; texels at VRAM ({},{}){}",
        args.file.display(),
        kind.name(),
        img.width,
        img.height,
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
    psxrender::output::save_png_rgba(&args.out, picture.width, picture.height, &flat(&picture))
        .map_err(|e| write_failed(&args.out, e))?;
    outln!("wrote {}", args.out.display());
    if let Some(path) = &args.tim {
        psxrender::output::write_atomic(path, &form.tim.write())
            .map_err(|e| write_failed(path, e))?;
        outln!("wrote {}", path.display());
    }
    Ok(())
}

/// `a`, a transparent gap, then `b` enlarged `scale` times (nearest texel), tops aligned.
fn side_by_side(a: &RgbaImage, b: &RgbaImage, scale: u32) -> RgbaImage {
    let (bw, bh) = (b.width * scale, b.height * scale);
    let width = a.width + GAP + bw;
    let height = a.height.max(bh);
    let mut pixels = vec![[0u8; 4]; width as usize * height as usize];
    for y in 0..a.height {
        for x in 0..a.width {
            pixels[(y * width + x) as usize] = a.pixels[(y * a.width + x) as usize];
        }
    }
    let x0 = a.width + GAP;
    for y in 0..bh {
        for x in 0..bw {
            pixels[(y * width + x0 + x) as usize] =
                b.pixels[((y / scale) * b.width + x / scale) as usize];
        }
    }
    RgbaImage {
        width,
        height,
        pixels,
    }
}

fn flat(img: &RgbaImage) -> Vec<u8> {
    img.pixels.iter().flatten().copied().collect()
}
