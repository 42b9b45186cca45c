//! The game asset tree a model lies in, found by itself: its root, and files looked up in it by
//! the paths models and tables name (`WORLD\GENERIC\HUMAN\PASSIVE DOODADS\...`, any case).
//!
//! **The root walk.** WoW names every file by its path from the tree's root, and a model lies at
//! its own such path, so the root is the folder above the model from which the model's own path
//! starts where the paths it names start: walking up from the model's folder (at most
//! [`MAX_WALK`] levels), the first folder `R` such that the model's path below `R` has a folder
//! and its first folder is the first folder of a texture path the model names (`World`,
//! `Creature`, any case), or `R` holds `DBFilesClient` (the game's tables, which only the root
//! holds). The walk starts from the model's folder with its symlinks resolved, so a symlink loop
//! above the model cannot make it go round; it only reads whether `R/DBFilesClient` is a folder.
//!
//! **The index.** Paths are looked up from the root one folder at a time, ignoring case; each
//! folder is listed once per tree (at most [`MAX_ENTRIES`] names, a folder with more is
//! reported), and a path of more than [`MAX_DEPTH`] folders is not looked up. Only the folders
//! on the paths asked for are listed, so a tree of a million files costs what its few looked-up
//! folders hold. A found file is read only if it lies inside the root with its symlinks
//! resolved ([`crate::formats::Folders`]), so nothing outside the tree is read.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Most folders walked up from the model's folder looking for the root.
pub const MAX_WALK: usize = 16;
/// Most folders in a path looked up in the tree.
pub const MAX_DEPTH: usize = 32;
/// Most names read from one folder of the tree.
pub const MAX_ENTRIES: usize = 65_536;

/// One listed folder: lower-case name → the name as the file system spells it.
struct Listing {
    names: HashMap<String, OsString>,
}

/// An asset tree: its root and the folders listed so far.
pub struct Tree {
    root: PathBuf,
    listed: RefCell<HashMap<PathBuf, Listing>>,
    /// Folders that held more than [`MAX_ENTRIES`] names.
    capped: RefCell<Vec<PathBuf>>,
}

/// The components of a path as models and tables write it (`\` or `/`, no `.` or `..`).
pub fn components(name: &str) -> Vec<&str> {
    name.split(['\\', '/'])
        .filter(|c| !c.is_empty() && *c != "." && *c != "..")
        .collect()
}

/// Whether `dir` holds the game's tables folder (spelled as the game does, or in lower case).
fn holds_tables(dir: &Path) -> bool {
    ["DBFilesClient", "dbfilesclient", "DBFILESCLIENT"]
        .iter()
        .any(|n| dir.join(n).is_dir())
}

impl Tree {
    /// The tree `model` lies in, found by the root walk (see the module docs) from the texture
    /// paths it names; `None` when no folder above it qualifies.
    pub fn find(model: &Path, texture_names: &[&str]) -> Option<Tree> {
        let file = model.file_name()?;
        let dir = crate::formats::files::canonical_dir(crate::formats::model_dir(model)).ok()?;
        let firsts: Vec<&str> = texture_names
            .iter()
            .filter_map(|n| {
                let c = components(n);
                (c.len() >= 2).then(|| c[0])
            })
            .collect();
        // The model's path below each folder on the walk, built from the model up.
        let mut below: Vec<OsString> = vec![file.to_os_string()];
        let mut at = dir.as_path();
        for _ in 0..=MAX_WALK {
            let first = below.last().map(|c| c.to_string_lossy().into_owned());
            let named = below.len() >= 2
                && first.is_some_and(|f| firsts.iter().any(|t| t.eq_ignore_ascii_case(&f)));
            if named || holds_tables(at) {
                return Some(Tree::at(at.to_path_buf()));
            }
            below.push(at.file_name()?.to_os_string());
            at = at.parent()?;
        }
        None
    }

    /// The tree whose root is `root` (already resolved).
    pub fn at(root: PathBuf) -> Tree {
        Tree {
            root,
            listed: RefCell::new(HashMap::new()),
            capped: RefCell::new(Vec::new()),
        }
    }

    /// The root folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The model's path from the root, as the game's tables write it (`Creature\Bat\Bat.m2`),
    /// when it lies in the tree.
    pub fn path_of(&self, model: &Path) -> Option<String> {
        let dir = crate::formats::files::canonical_dir(crate::formats::model_dir(model)).ok()?;
        let rel = dir.strip_prefix(&self.root).ok()?;
        let mut parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        parts.push(model.file_name()?.to_string_lossy().into_owned());
        Some(parts.join("\\"))
    }

    /// The file at `name` (a path from the root, any case), if the tree has it.
    pub fn locate(&self, name: &str) -> Option<PathBuf> {
        self.locate_in(&self.root, &components(name))
    }

    /// The file at `parts` below `dir` (a folder of the tree), any case.
    pub fn locate_in(&self, dir: &Path, parts: &[&str]) -> Option<PathBuf> {
        if parts.is_empty() || parts.len() > MAX_DEPTH {
            return None;
        }
        let mut cur = dir.to_path_buf();
        for part in parts {
            let name = self.entry(&cur, part)?;
            cur.push(name);
        }
        cur.is_file().then_some(cur)
    }

    /// The name in folder `dir` that is `part` ignoring case, listing `dir` once.
    fn entry(&self, dir: &Path, part: &str) -> Option<OsString> {
        let mut listed = self.listed.borrow_mut();
        if !listed.contains_key(dir) {
            let listing = self.list(dir);
            listed.insert(dir.to_path_buf(), listing);
        }
        listed[dir].names.get(&part.to_ascii_lowercase()).cloned()
    }

    /// Reads up to [`MAX_ENTRIES`] names of `dir` (none when it cannot be read).
    fn list(&self, dir: &Path) -> Listing {
        let mut names = HashMap::new();
        if let Ok(entries) = crate::formats::files::list_dir(dir) {
            for (i, name) in entries.enumerate() {
                if i == MAX_ENTRIES {
                    self.capped.borrow_mut().push(dir.to_path_buf());
                    break;
                }
                let lower = name.to_string_lossy().to_ascii_lowercase();
                // Two names equal but for case: the first listed is kept.
                names.entry(lower).or_insert(name);
            }
        }
        Listing { names }
    }

    /// A warning for each folder that held more names than were read.
    pub fn warnings(&self) -> Vec<String> {
        self.capped
            .borrow()
            .iter()
            .map(|d| {
                format!(
                    "asset tree folder {} holds more than {MAX_ENTRIES} entries; only the first \
                     {MAX_ENTRIES} were searched",
                    d.display()
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("psxr-tree-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d.canonicalize().unwrap()
    }

    fn touch(p: &Path) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, b"x").unwrap();
    }

    #[test]
    fn the_root_is_where_the_models_path_starts_like_its_textures() {
        let d = scratch("walk");
        let model = d.join("game/World/Generic/Human/Signs/Bank.m2");
        touch(&model);
        touch(&d.join("game/World/EXPANSION05/Doodads/MAP1.BLP"));
        let tree = Tree::find(&model, &["WORLD\\Expansion05\\doodads\\map1.blp"]).unwrap();
        assert_eq!(tree.root(), d.join("game"));
        assert_eq!(
            tree.locate("world\\expansion05\\DOODADS\\Map1.blp"),
            Some(d.join("game/World/EXPANSION05/Doodads/MAP1.BLP"))
        );
        assert_eq!(tree.locate("World\\Nope\\x.blp"), None);
        assert_eq!(
            tree.path_of(&model).as_deref(),
            Some("World\\Generic\\Human\\Signs\\Bank.m2")
        );
        // No texture path: only the tables folder marks the root.
        let creature = d.join("game/Creature/Bat/Bat.m2");
        touch(&creature);
        assert!(Tree::find(&creature, &[]).is_none());
        std::fs::create_dir_all(d.join("game/DBFilesClient")).unwrap();
        assert_eq!(Tree::find(&creature, &[]).unwrap().root(), d.join("game"));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[cfg(unix)]
    #[test]
    fn symlink_loops_and_links_out_are_harmless() {
        let d = scratch("loop");
        let model = d.join("game/World/a/m.m2");
        touch(&model);
        std::os::unix::fs::symlink(d.join("game"), d.join("game/World/a/up")).unwrap();
        std::os::unix::fs::symlink("/etc", d.join("game/World/out")).unwrap();
        // The model reached through the loop: the walk starts from its real folder.
        let looped = d.join("game/World/a/up/World/a/up/World/a/m.m2");
        let tree = Tree::find(&looped, &["World\\x.blp"]).unwrap();
        assert_eq!(tree.root(), d.join("game"));
        // A path through a link out of the tree is found, but Folders refuses to read it.
        if let Some(p) = tree.locate("world\\out\\hostname") {
            let folders = crate::formats::Folders::new(tree.root(), &Default::default());
            assert!(folders.check(&p).is_err(), "{}", p.display());
        }
        let _ = std::fs::remove_dir_all(&d);
    }
}
