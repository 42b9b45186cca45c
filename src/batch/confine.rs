//! Where a manifest may reach: a manifest is a file anyone may hand over, so the paths it
//! names (models, textures, folders searched, outputs) must resolve inside its own folder, and
//! inputs may also come from the `--search-path` folders the user gives on the command line.
//! Anything else (`../../x.png`, an absolute path, a link leading out) is refused unless the
//! user says `--allow-outside`. Paths resolve as [`crate::output::plan::resolve`] does: through
//! symbolic links, an input's own link too (reading follows it), an output's not (writing
//! replaces it).

use std::io;
use std::path::{Path, PathBuf};

use crate::output::plan::resolve;

/// The folders a manifest's paths may resolve into.
#[derive(Clone, Debug)]
pub struct Confinement {
    /// The manifest's folder, canonical.
    base: PathBuf,
    /// `--search-path` folders, canonical: inputs only.
    search: Vec<PathBuf>,
    /// `--allow-outside`: no check.
    open: bool,
}

impl Confinement {
    /// Paths inside `base` (outputs) or `base` and `search` (inputs); anywhere when
    /// `allow_outside`. A folder that cannot be resolved is an error naming it.
    pub fn new(base: &Path, search: &[PathBuf], allow_outside: bool) -> io::Result<Self> {
        let canon = |p: &Path| {
            p.canonicalize()
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", p.display())))
        };
        Ok(Confinement {
            base: canon(base)?,
            search: search.iter().map(|s| canon(s)).collect::<Result<_, _>>()?,
            open: allow_outside,
        })
    }

    /// `Err` saying where `path` (relative to `base`, as the manifest spells it) leads when
    /// that is outside the folders allowed for an input (`input`) or an output.
    pub fn check(&self, path: &Path, input: bool) -> Result<(), String> {
        if self.open {
            return Ok(());
        }
        let joined = self.base.join(path);
        let real = match (input, crate::formats::files::canonical_file(&joined)) {
            (true, Ok(target)) => target,
            _ => resolve(&joined).map_err(|e| format!("cannot resolve {}: {e}", path.display()))?,
        };
        let roots = if input { &self.search[..] } else { &[] };
        if std::iter::once(&self.base)
            .chain(roots)
            .any(|r| real.starts_with(r))
        {
            return Ok(());
        }
        let also = if input && !self.search.is_empty() {
            " or a --search-path folder"
        } else {
            ""
        };
        Err(format!(
            "{} leads outside the manifest's folder{also}: refused (a manifest reads and writes \
             only there; `psxrender batch --allow-outside` lets it reach further)",
            path.display()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside_unless_allowed() {
        let root = std::env::temp_dir().join(format!("psxr-confine-{}", std::process::id()));
        let base = root.join("m");
        let lib = root.join("lib");
        std::fs::create_dir_all(&base).unwrap();
        std::fs::create_dir_all(&lib).unwrap();
        std::fs::write(lib.join("skin.blp"), b"x").unwrap();
        let c = Confinement::new(&base, std::slice::from_ref(&lib), false).unwrap();
        assert!(c.check(Path::new("a/b.png"), false).is_ok());
        assert!(c.check(Path::new("a/../b.png"), false).is_ok());
        let e = c.check(Path::new("../../x.png"), false).unwrap_err();
        assert!(e.contains("../../x.png leads outside"), "{e}");
        assert!(c.check(Path::new("/etc/shadow"), true).is_err());
        // The search path is for inputs only.
        assert!(c.check(Path::new("../lib/skin.blp"), true).is_ok());
        assert!(c.check(Path::new("../lib/out.png"), false).is_err());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/etc", base.join("etc")).unwrap();
            assert!(c.check(Path::new("etc/passwd"), true).is_err());
            assert!(c.check(Path::new("etc/x.png"), false).is_err());
        }
        let open = Confinement::new(&base, &[], true).unwrap();
        assert!(open.check(Path::new("/etc/shadow"), true).is_ok());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
