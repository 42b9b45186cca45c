//! Which creature skins (texture types 11-13) a model wears when none is given with `--texture`.
//!
//! **From the game's tables.** When the model's asset tree ([`super::tree`]) holds
//! `DBFilesClient/CreatureModelData.dbc` and `CreatureDisplayInfo.dbc`, the model's id is the
//! CreatureModelData row whose path is the model's own path in the tree (`.mdx` or `.m2`, any
//! case), and its displays are the CreatureDisplayInfo rows of that id, in file order: the first
//! is drawn unless `--display ID` picks another, and display skin N (Skin1-3) fills texture type
//! 10 + N, from `<skin>.blp` beside the model, as WoW does.
//!
//! **Without them** (or when they do not name the model), the skins beside the model named after
//! it ([`super::textures::skin_candidates`]); when there are none, the likeness rule
//! ([`by_likeness`]) picks among the BLP files beside the model that no texture slot of the model
//! names, and a warning names the file it chose.

use std::path::{Path, PathBuf};

use super::dbc::{self, DisplayRow, Table};
use super::tree::Tree;
use crate::formats::{model_dir, ErrorKind, Folders, LoadError, LoadOptions, MAX_FILE_SIZE};

/// A creature display of the model and the files of its skins.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Display {
    /// The table row: id and Skin1-3.
    pub row: DisplayRow,
    /// Each skin's file beside the model (`None` when the skin is empty or not there).
    pub files: [Option<PathBuf>; 3],
}

/// The model's creature displays and the one drawn.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Displays {
    /// Every display of the model, in table order.
    pub list: Vec<Display>,
    /// The one drawn (index into `list`).
    pub chosen: usize,
}

impl Displays {
    /// The skin file of texture type `kind` (11-13) in the drawn display, with the display.
    pub fn skin(&self, kind: u32) -> Option<(&Display, Option<&PathBuf>)> {
        let d = self.list.get(self.chosen)?;
        let slot = kind.checked_sub(11).filter(|&s| s < 3)? as usize;
        (!d.row.skins[slot].is_empty()).then(|| (d, d.files[slot].as_ref()))
    }
}

/// The tables' folder and files as the game spells them.
const MODEL_DATA: &str = "DBFilesClient\\CreatureModelData.dbc";
const DISPLAY_INFO: &str = "DBFilesClient\\CreatureDisplayInfo.dbc";

/// `p` as the tables compare model paths: lower case, `\`, no extension.
fn model_key(p: &str) -> String {
    let p = p.replace('/', "\\").to_ascii_lowercase();
    match p.rsplit_once('.') {
        Some((stem, ext)) if !ext.contains('\\') => stem.to_string(),
        _ => p,
    }
}

/// The displays of `model` from its tree's tables: `None` when there are no tables or they do
/// not name the model; a table that cannot be read is a warning (and `None`). `--display ID`
/// picks the drawn display; an id that is not one of them is an error listing those there are.
pub fn displays(
    model: &Path,
    tree: Option<&Tree>,
    opts: &LoadOptions,
    warnings: &mut Vec<String>,
) -> Result<Option<Displays>, LoadError> {
    let found = match tree {
        Some(t) => match read_displays(model, t) {
            Ok(d) => d,
            Err(e) => {
                warnings.push(format!(
                    "creature display tables not used: {e}; creature skins are chosen by file \
                     name instead"
                ));
                None
            }
        },
        None => None,
    };
    let choice = |msg: String| LoadError::new(super::FORMAT, 0, ErrorKind::Choice(msg));
    match (found, opts.display) {
        (Some(mut d), Some(id)) => {
            d.chosen = d.list.iter().position(|x| x.row.id == id).ok_or_else(|| {
                let ids: Vec<String> = d.list.iter().map(|x| x.row.id.to_string()).collect();
                choice(format!(
                    "--display {id}: not a display of this model; its displays are {}",
                    ids.join(", ")
                ))
            })?;
            Ok(Some(d))
        }
        (None, Some(id)) => Err(choice(format!(
            "--display {id}: no CreatureDisplayInfo table of the model's asset tree names this \
             model (`psxrender info` lists its displays when there are some)"
        ))),
        (found, None) => Ok(found),
    }
}

/// Reads the two tables of `tree` and the displays of `model` in them.
fn read_displays(model: &Path, tree: &Tree) -> Result<Option<Displays>, LoadError> {
    let (Some(models), Some(infos)) = (tree.locate(MODEL_DATA), tree.locate(DISPLAY_INFO)) else {
        return Ok(None);
    };
    let Some(own) = tree.path_of(model) else {
        return Ok(None);
    };
    let folders = Folders::new(tree.root(), &LoadOptions::default());
    let read =
        |p: &Path| -> Result<Vec<u8>, LoadError> { folders.read(p, dbc::FORMAT, MAX_FILE_SIZE) };
    let data = read(&models)?;
    let t = Table::open(&data).map_err(|e| e.in_file(&models))?;
    let key = model_key(&own);
    let ids: Vec<u32> = dbc::model_rows(&t)
        .map_err(|e| e.in_file(&models))?
        .into_iter()
        .filter(|(_, path)| model_key(path) == key)
        .map(|(id, _)| id)
        .collect();
    if ids.is_empty() {
        return Ok(None);
    }
    let data = read(&infos)?;
    let t = Table::open(&data).map_err(|e| e.in_file(&infos))?;
    let rows = dbc::display_rows(&t, &ids).map_err(|e| e.in_file(&infos))?;
    if rows.is_empty() {
        return Ok(None);
    }
    let dir = crate::formats::files::canonical_dir(model_dir(model)).ok();
    let list = rows
        .into_iter()
        .map(|row| {
            let files = row.skins.clone().map(|s| {
                let dir = dir.as_deref()?;
                (!s.is_empty())
                    .then(|| tree.locate_in(dir, &[&format!("{s}.blp")]))
                    .flatten()
            });
            Display { row, files }
        })
        .collect();
    Ok(Some(Displays { list, chosen: 0 }))
}

/// The length of the longest common subsequence of `a` and `b` (ASCII, any case).
fn likeness(a: &str, b: &str) -> usize {
    let (a, b) = (a.to_ascii_lowercase(), b.to_ascii_lowercase());
    let b = b.as_bytes();
    let mut row = vec![0usize; b.len() + 1];
    for &x in a.as_bytes() {
        let mut diag = 0;
        for (j, &y) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = if x == y { diag + 1 } else { up.max(row[j]) };
            diag = up;
        }
    }
    row[b.len()]
}

/// Most BLP files beside a model the likeness rule ranks (names are short, so this bounds it).
const MAX_LIKENESS: usize = 4096;

/// The likeness rule: the `.blp` files in the model's folder that no texture slot of the model
/// names (`named`: the model's texture paths), the most like the model's file name first — the
/// longest run of letters in common, in order, ignoring case (`DruidBearTauren` is more like
/// `DruidTaurenBearSkin` than `DruidBearSkin`) — then names holding "skin" first, then name
/// order. Exporters and people name skins after their model, but not always exactly as the
/// skin rule expects (`kotobeast2skinbrown.blp` beside `kodobeast2.m2`).
pub fn by_likeness(model: &Path, named: &[&str]) -> Vec<PathBuf> {
    let stem = model
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let used: Vec<String> = named
        .iter()
        .filter_map(|n| {
            super::tree::components(n)
                .last()
                .map(|f| f.to_ascii_lowercase())
        })
        .collect();
    let dir = model_dir(model);
    let Ok(entries) = crate::formats::files::list_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<(usize, bool, String, PathBuf)> = entries
        .take(MAX_LIKENESS)
        .filter_map(|file| {
            let lower = file.to_string_lossy().to_ascii_lowercase();
            let blp = lower.strip_suffix(".blp")?.to_string();
            let path = dir.join(&file);
            (!used.contains(&lower) && path.is_file()).then(|| {
                let score = likeness(&stem, &blp);
                (score, blp.contains("skin"), lower, path)
            })
        })
        .collect();
    found.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    found.into_iter().map(|f| f.3).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn likeness_is_the_longest_common_subsequence() {
        assert_eq!(likeness("DruidBearTauren", "druidtaurenbearskin"), 11);
        assert_eq!(likeness("DruidBearTauren", "druidbearskin"), 10);
        assert_eq!(likeness("kodobeast2", "kotobeast2skinbrown"), 9);
        assert_eq!(likeness("", "x"), 0);
    }

    #[test]
    fn the_likeness_rule_skips_named_files_and_prefers_skins() {
        let dir = std::env::temp_dir().join(format!("psxr-likeness-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for f in [
            "DruidBearSkin.blp",
            "DruidTaurenBearSkin.blp",
            "Reflect.BLP",
            "notes.txt",
        ] {
            std::fs::write(dir.join(f), b"").unwrap();
        }
        let got = by_likeness(
            &dir.join("DruidBearTauren.m2"),
            &["Creature\\X\\reflect.blp"],
        );
        let names: Vec<String> = got
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["DruidTaurenBearSkin.blp", "DruidBearSkin.blp"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn model_paths_compare_without_extension_or_case() {
        assert_eq!(
            model_key("Creature\\Bat\\Bat.mdx"),
            model_key("creature/bat/BAT.m2")
        );
        assert_ne!(
            model_key("Creature\\Bat\\Bat.mdx"),
            model_key("Creature\\Bat2\\Bat.m2")
        );
    }
}
