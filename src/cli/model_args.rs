//! Loader options shared by every command that opens a model (`info`, render, `view`).

use std::path::{Path, PathBuf};

use clap::Args;

use psxrender::formats::ff9::ModelKind;
use psxrender::formats::LoadOptions;

/// Options that tell the loaders where to find what a model refers to.
#[derive(Args, Debug, Clone, Default)]
pub struct ModelArgs {
    /// NWN: extra directory searched for supermodels (repeatable).
    #[arg(long = "search-path", value_name = "DIR")]
    pub search_paths: Vec<PathBuf>,
    /// Extra directory searched for textures (repeatable).
    #[arg(long = "texture-dir", value_name = "DIR")]
    pub texture_dirs: Vec<PathBuf>,
    /// NWN PLT: ten palette rows (skin,hair,metal1,metal2,cloth1,cloth2,leather1,leather2,
    /// tattoo1,tattoo2), comma-separated.
    #[arg(long = "plt-colors", value_name = "N,N,...", value_parser = parse_plt_colors)]
    pub plt_colors: Option<PltColors>,
    /// NWN PLT: directory holding the pal_*.tga palettes.
    #[arg(long = "palette-dir", value_name = "DIR")]
    pub palette_dir: Option<PathBuf>,
    /// M2: level of detail (view) to draw, 0 = most detailed.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub lod: usize,
    /// M2: replaceable texture, e.g. `11=skin.blp` (repeatable). Creature skins (types
    /// 11-13) not given are looked for beside the model: `Wolf.m2` takes `WolfSkin*.blp`,
    /// `Rabbit2.m2` `rabbitskin2_*.blp` (any case), the first in name order.
    #[arg(long = "texture", value_name = "TYPE=PATH", value_parser = parse_replaceable)]
    pub textures: Vec<(u32, PathBuf)>,
    /// M2: which creature skin found beside the model to use: its number in `psxrender info`'s
    /// list, its file name, or the part after the prefix.
    /// Example: `psxrender Wolf.m2 out.png --skin timber` (WolfSkinTimber.blp).
    #[arg(long, value_name = "NAME|N")]
    pub skin: Option<String>,
    /// M2: which creature display to draw (its id in the asset tree's CreatureDisplayInfo.dbc,
    /// as `psxrender info` lists them); default the first that uses the model.
    #[arg(long, value_name = "ID")]
    pub display: Option<u32>,
    /// FF9: animation (type 0x03) file for a bare model.
    #[arg(long = "anim-file", value_name = "FILE")]
    pub ff9_anim: Option<PathBuf>,
    /// FF9: TIM texture for a bare model (repeatable).
    #[arg(long = "tim", value_name = "FILE")]
    pub ff9_tims: Vec<PathBuf>,
    /// FF9: 0x12 materials file for a bare model.
    #[arg(long = "materials", value_name = "FILE")]
    pub ff9_materials: Option<PathBuf>,
    /// FF9: which model of a data cluster (0-based).
    #[arg(long = "model", value_name = "N")]
    pub ff9_model: Option<usize>,
    /// FF9: the model's kind, which a bare file does not record (its FF9.IMG directory does):
    /// field (dir 4) or world (dir 3) take 0x12 materials and add their texture-window offset
    /// to UVs; battle (party dir 10, enemies dir 7) takes material index = TIM index; weapon
    /// (dir 8) is battle with V 16 rows down. Default: field when a 0x12 record is found,
    /// else battle.
    #[arg(long = "ff9-kind", value_name = "KIND", value_parser = parse_ff9_kind)]
    pub ff9_kind: Option<ModelKind>,
    /// glTF: give primitives without NORMAL smooth normals (averaged where faces meet) instead
    /// of flat ones.
    #[arg(long = "smooth-normals")]
    pub smooth_normals: bool,
}

fn parse_ff9_kind(s: &str) -> Result<ModelKind, String> {
    s.parse()
}

/// Ten PLT palette rows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PltColors(pub [u8; 10]);

pub(super) fn parse_plt_colors(s: &str) -> Result<PltColors, String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.len() != 10 {
        return Err(format!(
            "expected 10 comma-separated rows, got {}",
            parts.len()
        ));
    }
    let mut out = [0u8; 10];
    for (o, p) in out.iter_mut().zip(parts) {
        *o = p
            .parse()
            .map_err(|_| format!("'{p}' is not a row number 0-255"))?;
    }
    Ok(PltColors(out))
}

fn parse_replaceable(s: &str) -> Result<(u32, PathBuf), String> {
    let (ty, path) = s
        .split_once('=')
        .ok_or("expected TYPE=PATH, e.g. 11=skin.blp")?;
    let ty = ty
        .trim()
        .parse()
        .map_err(|_| format!("'{ty}' is not a texture type number"))?;
    Ok((ty, PathBuf::from(path)))
}

/// A path a loader option names: a file it reads or a folder it searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NamedPath<'a> {
    /// The path as given.
    pub path: &'a Path,
    /// The option (`--texture`).
    pub option: &'static str,
    /// A folder searched, not a file read.
    pub folder: bool,
}

impl ModelArgs {
    /// Every file and folder these options name.
    pub fn paths(&self) -> Vec<NamedPath<'_>> {
        fn named<'a>(
            paths: impl IntoIterator<Item = &'a PathBuf>,
            option: &'static str,
            folder: bool,
        ) -> impl Iterator<Item = NamedPath<'a>> {
            paths.into_iter().map(move |p| NamedPath {
                path: p.as_path(),
                option,
                folder,
            })
        }
        (named(&self.search_paths, "--search-path", true))
            .chain(named(&self.texture_dirs, "--texture-dir", true))
            .chain(named(&self.palette_dir, "--palette-dir", true))
            .chain(named(
                self.textures.iter().map(|(_, p)| p),
                "--texture",
                false,
            ))
            .chain(named(&self.ff9_anim, "--anim-file", false))
            .chain(named(&self.ff9_tims, "--tim", false))
            .chain(named(&self.ff9_materials, "--materials", false))
            .collect()
    }

    /// The files these options name (the folders left out).
    pub fn files(&self) -> Vec<&Path> {
        (self.paths().into_iter())
            .filter(|p| !p.folder)
            .map(|p| p.path)
            .collect()
    }

    /// A warning for each option given that the loader of `format` (a model's
    /// [`psxrender::scene::Model::format`]) does not read: `--ff9-kind` on an M2 model does
    /// nothing, and silence would let the user think it did.
    pub fn ignored_by(&self, format: &str) -> Vec<String> {
        use psxrender::formats::{ff9, gltf, m2, nwn};
        use psxrender::read::error::article;
        let nwn = nwn::binary::FORMAT;
        let given = [
            ("--search-path", nwn, !self.search_paths.is_empty()),
            ("--plt-colors", nwn, self.plt_colors.is_some()),
            ("--palette-dir", nwn, self.palette_dir.is_some()),
            ("--lod", m2::FORMAT, self.lod != 0),
            ("--texture", m2::FORMAT, !self.textures.is_empty()),
            ("--skin", m2::FORMAT, self.skin.is_some()),
            ("--display", m2::FORMAT, self.display.is_some()),
            ("--anim-file", ff9::FORMAT, self.ff9_anim.is_some()),
            ("--tim", ff9::FORMAT, !self.ff9_tims.is_empty()),
            ("--materials", ff9::FORMAT, self.ff9_materials.is_some()),
            ("--model", ff9::FORMAT, self.ff9_model.is_some()),
            ("--ff9-kind", ff9::FORMAT, self.ff9_kind.is_some()),
            ("--smooth-normals", gltf::FORMAT, self.smooth_normals),
        ];
        (given.into_iter())
            .filter(|&(_, for_format, set)| set && for_format != format)
            .map(|(option, for_format, _)| {
                format!(
                    "{option} is for {for_format} models; this is {} {format} model, so it is ignored",
                    article(format)
                )
            })
            .collect()
    }

    /// The loader options these arguments describe.
    pub fn load_options(&self) -> LoadOptions {
        LoadOptions {
            search_paths: self.search_paths.clone(),
            texture_dirs: self.texture_dirs.clone(),
            plt_colors: self.plt_colors.map(|c| c.0),
            palette_dir: self.palette_dir.clone(),
            lod: self.lod,
            replaceable_textures: self.textures.clone(),
            skin: self.skin.clone(),
            display: self.display,
            ff9_anim: self.ff9_anim.clone(),
            ff9_tims: self.ff9_tims.clone(),
            ff9_materials: self.ff9_materials.clone(),
            ff9_model: self.ff9_model,
            ff9_kind: self.ff9_kind,
            smooth_normals: self.smooth_normals,
            texture_cache: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_replaceable_and_plt() {
        assert_eq!(
            parse_replaceable("11=a/b.blp").unwrap(),
            (11, PathBuf::from("a/b.blp"))
        );
        assert!(parse_replaceable("x=a").is_err());
        assert!(parse_replaceable("11").is_err());
        assert_eq!(parse_plt_colors("1,2,3,4,5,6,7,8,9,10").unwrap().0[9], 10);
        assert!(parse_plt_colors("1,2").is_err());
    }
}
