//! Finding and decoding the BLP2 textures a model names.
//!
//! Type-0 textures carry a path like `Creature\Rabbit2\ArmorReflect5.blp` (backslashes, any
//! case). It is tried, component by component and ignoring case, under each `--texture-dir` and
//! then the model's own directory; failing that, the bare file name is tried in the same places,
//! and then the path from the root of the asset tree the model lies in ([`super::tree`]).
//! Replaceable types (11 = creature skin, …) come from `--texture TYPE=PATH`; a creature skin
//! (types 11-13) not given that way is looked for beside the model (see [`skin_prefix`] and
//! [`skin_candidates`]), the first in name order unless `--skin` picks another. Anything not
//! found becomes a magenta/black checkerboard and a warning; so does a texture that would take
//! the model's decoded textures past their allowance ([`ImageAllowance`]).
//!
//! Why a name rule: WoW itself takes creature skins from its display database, which names
//! the files; model folders as people have them hold the model and its skins side by side,
//! named after the model: `Wolf.m2` beside `WolfSkinTimber.blp`, `Rabbit2.m2` beside
//! `rabbitskin2_default.blp` (the model's trailing digits follow "skin").

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::skins::Displays;
use super::tree::{components, Tree};
use super::{Place, TextureSlot, TextureSource};
use crate::formats::images::{cached_or_decoded, ImageAllowance};
use crate::formats::{
    blp, model_dir, read_file, ErrorKind, Folders, LoadError, LoadOptions, MAX_FILE_SIZE,
};
use crate::scene::{RgbaImage, Texture, TextureImage};

/// Most directory entries scanned when matching a name without regard to case.
const MAX_DIR_SCAN: usize = 100_000;

/// A visible stand-in for a missing texture: 8×8 magenta/black checks of 4 pixels.
pub fn fallback_image() -> RgbaImage {
    crate::formats::images::checkerboard(8)
}

/// What replaceable texture types mean (format-notes §2.2).
pub fn replaceable_kind(kind: u32) -> &'static str {
    match kind {
        0 => "file",
        1 => "character skin",
        2 => "cape",
        6 => "hair",
        8 => "skin extra",
        11 => "creature skin 1",
        12 => "creature skin 2",
        13 => "creature skin 3",
        _ => "replaceable",
    }
}

/// `dir/comp1/comp2/...`, each component matched exactly or else ignoring ASCII case.
fn find_ci(dir: &Path, components: &[&str]) -> Option<PathBuf> {
    let mut cur = dir.to_path_buf();
    for comp in components {
        let exact = cur.join(comp);
        if exact.exists() {
            cur = exact;
            continue;
        }
        let entries = crate::formats::files::list_dir(&cur).ok()?;
        let found = entries
            .take(MAX_DIR_SCAN)
            .find(|file| file.to_string_lossy().eq_ignore_ascii_case(comp))?;
        cur.push(found);
    }
    cur.is_file().then_some(cur)
}

/// Where a model-internal texture path is found, if anywhere, and in which place.
pub fn locate(
    model: &Path,
    name: &str,
    opts: &LoadOptions,
    tree: Option<&Tree>,
) -> Option<(PathBuf, Place)> {
    let parts = components(name);
    let file = *parts.last()?;
    let dirs: Vec<(&Path, Place)> = opts
        .texture_dirs
        .iter()
        .map(|d| (d.as_path(), Place::TextureDir))
        .chain(std::iter::once((model_dir(model), Place::Beside)))
        .collect();
    let found = |parts: &[&str]| {
        dirs.iter()
            .find_map(|(d, place)| Some((find_ci(d, parts)?, *place)))
    };
    found(&parts)
        .or_else(|| found(&[file]))
        .or_else(|| Some((tree?.locate(name)?, Place::TreeRoot)))
}

/// The texture types that are creature skins (11-13), which the skin search fills.
pub const CREATURE_SKINS: std::ops::RangeInclusive<u32> = 11..=13;

/// The file-name prefix of a model's creature skins, lower-case: the model file's stem with
/// "skin" put before its trailing digits. `Wolf.m2` → `wolfskin`, `Rabbit2.m2` → `rabbitskin2`.
pub fn skin_prefix(model: &Path) -> String {
    let stem = model
        .file_stem()
        .map(|s| s.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let base = stem.trim_end_matches(|c: char| c.is_ascii_digit());
    format!("{base}skin{}", &stem[base.len()..])
}

/// The file-name prefixes a model's skins start with, lower-case: [`skin_prefix`], and, when
/// the model's stem ends in a digit (a model revision such as `Imp2`, `Rabbit2`), the stem
/// itself: `Imp2.m2`'s skins are `imp2red.blp`, `imp2green.blp`. A stem without a trailing
/// digit is too loose a prefix (`Wolf` would take `Wolfhound.blp`).
pub fn skin_prefixes(model: &Path) -> Vec<String> {
    let mut out = vec![skin_prefix(model)];
    let stem = model
        .file_stem()
        .map(|s| s.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if stem.ends_with(|c: char| c.is_ascii_digit()) {
        out.push(stem);
    }
    out
}

/// The part of a lower-case file name after the skin prefix it starts with, when it does: a
/// prefix ending in a digit must not be followed by another (`Rabbit2` does not take
/// `rabbitskin21_x.blp`).
fn after_prefix<'a>(prefixes: &[String], lower: &'a str) -> Option<&'a str> {
    prefixes.iter().find_map(|p| {
        let rest = lower.strip_prefix(p.as_str())?;
        let digit_run = p.ends_with(|c: char| c.is_ascii_digit())
            && rest.starts_with(|c: char| c.is_ascii_digit());
        (!digit_run).then_some(rest)
    })
}

/// The skins that fit `model`: `.blp` files in its directory and each `--texture-dir` whose
/// name starts with one of [`skin_prefixes`] (ignoring case), in name order (ignoring case),
/// each file once.
pub fn skin_candidates(model: &Path, opts: &LoadOptions) -> Vec<PathBuf> {
    let prefixes = skin_prefixes(model);
    let mut found: Vec<(String, PathBuf)> = Vec::new();
    let dirs =
        std::iter::once(model_dir(model)).chain(opts.texture_dirs.iter().map(PathBuf::as_path));
    for dir in dirs {
        let Ok(entries) = crate::formats::files::list_dir(dir) else {
            continue;
        };
        for file in entries.take(MAX_DIR_SCAN) {
            let lower = file.to_string_lossy().to_ascii_lowercase();
            if !lower.ends_with(".blp") || after_prefix(&prefixes, &lower).is_none() {
                continue;
            }
            let path = dir.join(&file);
            if path.is_file() && !found.iter().any(|(_, p)| same_file(p, &path)) {
                found.push((lower, path));
            }
        }
    }
    found.sort();
    found.into_iter().map(|(_, p)| p).collect()
}

fn same_file(a: &Path, b: &Path) -> bool {
    use crate::formats::files::canonical_file;
    match (canonical_file(a), canonical_file(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// The candidate `--skin` names: an index into `candidates`, a file name (with or without
/// `.blp`), or the part after the prefix (`timber` for `WolfSkinTimber.blp`, `default` for
/// `rabbitskin2_default.blp`), ignoring case.
pub fn pick_skin(model: &Path, candidates: &[PathBuf], selector: &str) -> Result<usize, String> {
    let list = || {
        if candidates.is_empty() {
            format!(
                "no {}*.blp beside the model or in --texture-dir",
                skin_prefixes(model).join("*.blp or ")
            )
        } else {
            let names: Vec<String> = candidates
                .iter()
                .enumerate()
                .map(|(i, p)| format!("{i}: {}", file_name(p)))
                .collect();
            format!("the skins found are {}", names.join(", "))
        }
    };
    if let Ok(n) = selector.trim().parse::<usize>() {
        return if n < candidates.len() {
            Ok(n)
        } else {
            Err(format!("--skin {n}: there is no skin {n}; {}", list()))
        };
    }
    let want = selector.trim().to_ascii_lowercase();
    let prefixes = skin_prefixes(model);
    candidates
        .iter()
        .position(|p| {
            let name = file_name(p).to_ascii_lowercase();
            let stem = name.strip_suffix(".blp").unwrap_or(&name);
            let tail = after_prefix(&prefixes, stem).unwrap_or(stem);
            name == want || stem == want || tail.trim_start_matches(['_', '-', ' ']) == want
        })
        .ok_or_else(|| format!("--skin {selector}: no such skin; {}", list()))
}

/// The file name of `p`, for messages.
pub fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string())
}

/// What the skin search found for a model.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Skins {
    /// Every candidate, in name order (or in likeness order, see `by_likeness`).
    pub candidates: Vec<PathBuf>,
    /// The one used for creature skins not given with `--texture`, if any.
    pub chosen: Option<usize>,
    /// The candidates are the likeness rule's ([`super::skins::by_likeness`]): none was named
    /// after the model.
    pub by_likeness: bool,
    /// The model's creature displays from its tree's tables, which come first.
    pub displays: Option<Displays>,
}

/// Finds the model's skins and picks one: the displays of the tree's tables, unless `--skin`
/// picks a file; else the skins named after the model (`opts.skin`, else the first); else, when
/// the model has creature-skin slots (`wants`), the likeness rule's first, with a warning naming
/// it. A `--skin` or `--display` that names none of them is an error listing those there are.
pub fn find_skins(
    model: &Path,
    opts: &LoadOptions,
    tree: Option<&Tree>,
    (named, wants): (&[&str], bool),
    warnings: &mut Vec<String>,
) -> Result<Skins, LoadError> {
    let displays = if wants || opts.display.is_some() {
        super::skins::displays(model, tree, opts, warnings)?
    } else {
        None
    };
    let mut candidates = skin_candidates(model, opts);
    let mut by_likeness = false;
    if candidates.is_empty() && wants && (displays.is_none() || opts.skin.is_some()) {
        candidates = super::skins::by_likeness(model, named);
        by_likeness = !candidates.is_empty();
    }
    let chosen = match &opts.skin {
        Some(sel) => Some(
            pick_skin(model, &candidates, sel)
                .map_err(|e| LoadError::new(super::FORMAT, 0, ErrorKind::Choice(e)))?,
        ),
        None => (!candidates.is_empty()).then_some(0),
    };
    if let (true, Some(c), None) = (by_likeness, chosen, &opts.skin) {
        warnings.push(format!(
            "no {}*.blp beside the model and no creature display table names it: creature \
             skins drawn with {}, the BLP beside the model most like its name that no texture \
             slot names (of {}; --skin NAME|N or --texture 11=FILE picks another)",
            skin_prefixes(model).join("*.blp or "),
            file_name(&candidates[c]),
            candidates.len()
        ));
    }
    Ok(Skins {
        candidates,
        chosen,
        by_likeness,
        displays,
    })
}

/// Where one texture slot's file comes from, before it is read.
struct Choice {
    /// The file, if one was found or given.
    path: Option<PathBuf>,
    /// What messages and the texture call it.
    label: String,
    source: TextureSource,
    place: Place,
}

/// The file of texture slot `i` of replaceable type `kind`: `--texture` first, then the
/// tables' display (unless `--skin` picks a file), then the skin search's choice for creature
/// skins. Pushes a note for each skin taken from a display or the skin search, and a warning
/// for a display's skin that is not beside the model.
fn choose_replaceable(
    (i, kind): (usize, u32),
    model: &Path,
    opts: &LoadOptions,
    skins: &Skins,
    warnings: &mut Vec<String>,
    notes: &mut Vec<String>,
) -> Choice {
    let mut source = TextureSource::Model;
    let mut place = Place::Beside;
    let given = opts
        .replaceable_textures
        .iter()
        .rev()
        .find(|(k, _)| *k == kind)
        .map(|(_, p)| p.clone());
    // `--skin` picks a file over the tables' display.
    let display = (skins.displays.as_ref())
        .filter(|_| opts.skin.is_none())
        .and_then(|d| d.skin(kind));
    let path = match (given, skins.chosen, display) {
        (Some(p), _, _) => {
            source = TextureSource::Given;
            place = Place::Given;
            Some(p)
        }
        (None, _, Some((d, file))) => {
            source = TextureSource::Display(d.row.id);
            let skin = &d.row.skins[kind as usize - 11];
            match file {
                Some(p) => notes.push(format!(
                    "M2 texture {i} (type {kind}, {}): using {}, skin '{skin}' of creature display {} (CreatureDisplayInfo; --display ID picks another)",
                    replaceable_kind(kind),
                    p.display(),
                    d.row.id
                )),
                None => warnings.push(format!(
                    "M2 texture {i} (type {kind}, {}): creature display {} names skin '{skin}', but no {skin}.blp is beside the model; drawing a checkerboard",
                    replaceable_kind(kind),
                    d.row.id
                )),
            }
            file.cloned()
        }
        (None, Some(s), None) if CREATURE_SKINS.contains(&kind) => {
            source = TextureSource::Skin(s);
            let p = skins.candidates[s].clone();
            if p.parent() != Some(model_dir(model)) {
                place = Place::TextureDir;
            }
            notes.push(format!(
                "M2 texture {i} (type {kind}, {}): using {}, skin {s} of {} found beside the model{}",
                replaceable_kind(kind),
                p.display(),
                skins.candidates.len(),
                if skins.candidates.len() > 1 {
                    " (--skin NAME|N picks another; `psxrender info` lists them)"
                } else {
                    ""
                }
            ));
            Some(p)
        }
        (None, _, _) => None,
    };
    let label = match &path {
        Some(p) => p.display().to_string(),
        None => format!("<type {kind}: {}>", replaceable_kind(kind)),
    };
    Choice {
        path,
        label,
        source,
        place,
    }
}

/// The warning for texture slot `i` whose file was found nowhere (a display's missing skin
/// has had its own).
fn missing_warning(
    (i, kind, name): (usize, u32, &str),
    model: &Path,
    tree: Option<&Tree>,
) -> String {
    if kind == 0 {
        let root = match tree {
            Some(t) => format!(", and the asset tree at {}", t.root().display()),
            None => ", and no asset tree holds the model".to_string(),
        };
        return format!(
            "M2 texture {i} '{name}' not found (searched --texture-dir, the model's directory{root}); drawing a checkerboard"
        );
    }
    let search = if CREATURE_SKINS.contains(&kind) {
        format!(
            " and no {}*.blp is beside the model or in --texture-dir",
            skin_prefixes(model).join("*.blp or ")
        )
    } else {
        String::new()
    };
    format!(
        "M2 texture {i} is replaceable type {kind} ({}): none was given{search}; pass --texture {kind}=PATH; drawing a checkerboard",
        replaceable_kind(kind)
    )
}

/// Decoded textures by (file, given by the user), so each is decoded and charged once.
type Decoded = HashMap<(PathBuf, bool), Result<TextureImage, LoadError>>;

/// Resolves and decodes every texture (type 0 by [`locate`], also in the model's asset `tree`;
/// creature skins from the tables' display, else the skin search), pushing a warning for each
/// miss and a note for each skin taken from a display or the skin search. Each file is decoded
/// once, however many slots name it, and charged once to `allowance`, which every texture of
/// the model shares. A file the user gave (`--texture`) that cannot be read or decoded is an
/// error, not a checkerboard: they asked for that file.
pub fn resolve(
    model: &Path,
    textures: &[(u32, u32, String)],
    opts: &LoadOptions,
    (tree, skins): (Option<&Tree>, &Skins),
    allowance: &ImageAllowance,
    warnings: &mut Vec<String>,
    notes: &mut Vec<String>,
) -> Result<Vec<TextureSlot>, LoadError> {
    let mut decoded = Decoded::new();
    let mut folders = Folders::new(model_dir(model), opts);
    if let Some(t) = tree {
        folders.allow(t.root());
    }
    textures
        .iter()
        .enumerate()
        .map(|(i, (kind, flags, name))| {
            let choice = if *kind == 0 {
                let found = locate(model, name, opts, tree);
                Choice {
                    place: found.as_ref().map_or(Place::Missing, |f| f.1),
                    path: found.map(|f| f.0),
                    label: name.clone(),
                    source: TextureSource::Model,
                }
            } else {
                choose_replaceable((i, *kind), model, opts, skins, warnings, notes)
            };
            let from_user = matches!(choice.source, TextureSource::Given);
            let image = match &choice.path {
                None => {
                    if !matches!(choice.source, TextureSource::Display(_)) {
                        warnings.push(missing_warning((i, *kind, name), model, tree));
                    }
                    None
                }
                Some(p) => match (decoded.entry((p.clone(), from_user)))
                    .or_insert_with(|| load_blp(&folders, p, from_user, (allowance, opts)))
                {
                    Ok(img) => Some(img.clone()),
                    Err(e) if from_user => return Err(e.clone()),
                    Err(e) => {
                        warnings.push(format!(
                            "M2 texture {i} '{}' could not be loaded ({e}); drawing a checkerboard",
                            choice.label
                        ));
                        None
                    }
                },
            };
            let resolved = image.as_ref().and(choice.path);
            Ok(TextureSlot {
                kind: *kind,
                flags: *flags,
                name: name.clone(),
                place: if resolved.is_some() {
                    choice.place
                } else {
                    Place::Missing
                },
                resolved,
                source: choice.source,
                texture: Texture {
                    name: choice.label,
                    image: image.unwrap_or_else(|| fallback_image().into()),
                },
            })
        })
        .collect()
}

/// Reads and decodes a BLP2 texture (left undecoded when `opts`' texture cache holds its
/// facts), charged to `allowance`: a file the model names (found beside it or in a
/// `--texture-dir`) only inside `folders`, a file the user gave (`--texture`) from anywhere.
fn load_blp(
    folders: &Folders,
    path: &Path,
    given: bool,
    (allowance, opts): (&ImageAllowance, &LoadOptions),
) -> Result<TextureImage, LoadError> {
    let data = if given {
        read_file(path, blp::FORMAT)?
    } else {
        folders.read(path, blp::FORMAT, MAX_FILE_SIZE)?
    };
    let cache = opts.texture_cache.as_deref();
    let (image, _) = cached_or_decoded(cache, "m2 blp", data, blp::decode_for_drawing)
        .map_err(|e| e.in_file(path))?;
    let [width, height] = image.size();
    allowance.charge(blp::FORMAT, path, width, height)?;
    Ok(image)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn textures_past_the_model_allowance_are_checkerboards_named_in_a_warning() {
        let dir = std::env::temp_dir().join(format!("psxr-allowance-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let tex = blp::write_palettized(4, 4, &[[1, 2, 3]], &[0; 16], &[255; 16], 0);
        let names: Vec<(u32, u32, String)> = ["a.blp", "b.blp", "c.blp", "a.blp"]
            .iter()
            .map(|n| {
                std::fs::write(dir.join(n), &tex).unwrap();
                (0, 0, n.to_string())
            })
            .collect();
        // Three 4×4 textures of 64 decoded bytes each against 150: the third does not fit. The
        // fourth slot names the first file again: decoded once, charged once, shared.
        let allowance = ImageAllowance::new(150);
        let skins = Skins::default();
        let (mut warnings, mut notes) = (Vec::new(), Vec::new());
        let slots = resolve(
            &dir.join("m.m2"),
            &names,
            &LoadOptions::default(),
            (None, &skins),
            &allowance,
            &mut warnings,
            &mut notes,
        )
        .unwrap();
        assert!(slots[0].resolved.is_some() && slots[1].resolved.is_some());
        assert_eq!(slots[2].resolved, None);
        assert_eq!(*slots[2].texture.image, fallback_image());
        assert!(std::sync::Arc::ptr_eq(
            slots[3].texture.image.image(),
            slots[0].texture.image.image()
        ));
        assert_eq!(allowance.used(), 128);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        let c = dir.join("c.blp");
        assert!(
            warnings[0].contains(&format!("{}: BLP2 decoded image bytes", c.display()))
                && warnings[0].contains("count 192 is larger than the limit 150"),
            "{warnings:?}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn skin_prefixes() {
        assert_eq!(skin_prefix(Path::new("a/Wolf.m2")), "wolfskin");
        assert_eq!(skin_prefix(Path::new("Rabbit2.m2")), "rabbitskin2");
        assert_eq!(skin_prefix(Path::new("x/Murloc12.M2")), "murlocskin12");
    }

    #[test]
    fn candidates_in_name_order_and_picked_by_name_or_index() {
        let dir = std::env::temp_dir().join(format!("psxr-skins-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for f in [
            "WolfSkinTimber.BLP",
            "wolfskinblack.blp",
            "WolfSkinWhite.blp",
            "Wolf.m2",
            "WolfSkinTimber.txt",
            "Wolfhound.blp",
        ] {
            std::fs::write(dir.join(f), b"").unwrap();
        }
        let model = dir.join("Wolf.m2");
        let c = skin_candidates(&model, &LoadOptions::default());
        let names: Vec<String> = c.iter().map(|p| file_name(p)).collect();
        assert_eq!(
            names,
            [
                "wolfskinblack.blp",
                "WolfSkinTimber.BLP",
                "WolfSkinWhite.blp"
            ]
        );
        assert_eq!(pick_skin(&model, &c, "2"), Ok(2));
        assert_eq!(pick_skin(&model, &c, "timber"), Ok(1));
        assert_eq!(pick_skin(&model, &c, "WOLFSKINWHITE.blp"), Ok(2));
        let e = pick_skin(&model, &c, "grey").unwrap_err();
        assert!(e.contains("0: wolfskinblack.blp"), "{e}");
        assert!(pick_skin(&model, &c, "3").is_err());
        // Rabbit2 takes rabbitskin2_*, not rabbitskin21_*.
        for f in ["rabbitskin2_default.blp", "RabbitSkin21_x.blp"] {
            std::fs::write(dir.join(f), b"").unwrap();
        }
        let c = skin_candidates(&dir.join("Rabbit2.m2"), &LoadOptions::default());
        assert_eq!(c.len(), 1);
        assert_eq!(pick_skin(&dir.join("Rabbit2.m2"), &c, "default"), Ok(0));
        // Imp2 takes imp2red / imp2green (named after the model, no "skin"), not imp21 or fire.
        for f in ["imp2red.blp", "IMP2Green.blp", "imp21x.blp", "Fire_2x2.blp"] {
            std::fs::write(dir.join(f), b"").unwrap();
        }
        let imp = dir.join("Imp2.m2");
        let c = skin_candidates(&imp, &LoadOptions::default());
        let names: Vec<String> = c.iter().map(|p| file_name(p)).collect();
        assert_eq!(names, ["IMP2Green.blp", "imp2red.blp"]);
        assert_eq!(pick_skin(&imp, &c, "red"), Ok(1));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
