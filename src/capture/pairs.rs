//! Two sequences of pictures compared frame by frame: ours (`replay --frames … --display DIR`)
//! against another emulator's screenshots of the same capture.
//!
//! A sequence is a directory (its `.png` files, and raw 1 MiB VRAM `.bin`/`.raw` files) or a
//! pattern with one `*` standing for the frame number (`shots/frame_*.png`). A file's frame
//! number is the `*` part of a pattern, else the last run of digits in its name
//! (`frame_0120.png`, `shot-120.png` → 120), so sequences named differently still pair up.
//! Pairs are compared one at a time: memory holds two pictures, whatever the length.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::capture::compare::{self, Capture, Options, Report};
use crate::capture::display::Picture;
use crate::read::LoadError;

/// Format name in errors.
pub const FORMAT: &str = "picture sequence";

/// Most files one sequence may hold.
pub const MAX_FILES: usize = 1_000_000;

/// True when `spec` names a sequence (a directory, or a pattern with a `*`) rather than one
/// picture.
pub fn is_sequence(spec: &Path) -> bool {
    spec.is_dir() || spec.to_string_lossy().contains('*')
}

/// The pictures of a sequence by frame number.
pub fn list(spec: &Path) -> Result<BTreeMap<u64, PathBuf>, LoadError> {
    listing(spec).map(|l| l.frames)
}

/// A sequence's pictures, and the picture files of its directory left out for holding no
/// frame number (`cover.png`), so that a command can say so.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listing {
    /// The pictures by frame number.
    pub frames: BTreeMap<u64, PathBuf>,
    /// How many picture files hold no frame number.
    pub unnumbered: u64,
    /// The first of them in directory order (at most 3), for the message.
    pub unnumbered_names: Vec<String>,
}

/// The pictures of a sequence by frame number, and what was left out.
pub fn listing(spec: &Path) -> Result<Listing, LoadError> {
    let text = spec.to_string_lossy();
    let (dir, prefix, suffix) = if spec.is_dir() {
        (spec.to_path_buf(), None, None)
    } else {
        let name = spec
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Some((prefix, suffix)) = name.split_once('*') else {
            return Err(LoadError::invalid(
                FORMAT,
                0,
                format!("'{text}' is neither a directory nor a pattern with one *"),
            )
            .in_file(spec));
        };
        if suffix.contains('*')
            || spec
                .parent()
                .is_some_and(|p| p.to_string_lossy().contains('*'))
        {
            return Err(LoadError::invalid(
                FORMAT,
                0,
                "only the file name may hold a *, and only one",
            )
            .in_file(spec));
        }
        let dir = match spec.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        (dir, Some(prefix.to_string()), Some(suffix.to_string()))
    };
    let io = |e: std::io::Error| LoadError::io(FORMAT, &dir, &e);
    let mut frames = BTreeMap::new();
    let mut listed = Listing::default();
    for entry in std::fs::read_dir(&dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let number = match (&prefix, &suffix) {
            (Some(p), Some(s)) => name
                .strip_prefix(p.as_str())
                .and_then(|rest| rest.strip_suffix(s.as_str()))
                .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
                .map(str::to_string),
            _ => picture_name(&name).then(|| last_digits(&name)).flatten(),
        };
        let Some(n) = number.and_then(|d| d.parse::<u64>().ok()) else {
            if prefix.is_none() && picture_name(&name) {
                listed.unnumbered += 1;
                if listed.unnumbered_names.len() < 3 {
                    listed.unnumbered_names.push(name);
                }
            }
            continue;
        };
        if frames.len() >= MAX_FILES {
            return Err(LoadError::new(
                FORMAT,
                0,
                crate::read::ErrorKind::CountTooLarge {
                    what: "numbered pictures",
                    count: frames.len() as u64 + 1,
                    max: MAX_FILES as u64,
                },
            )
            .in_file(spec));
        }
        if let Some(first) = frames.insert(n, entry.path()) {
            return Err(LoadError::invalid(
                FORMAT,
                0,
                format!("frame {n} twice: {} and {name}", first.display()),
            )
            .in_file(spec));
        }
    }
    if frames.is_empty() {
        return Err(
            LoadError::invalid(FORMAT, 0, "no numbered pictures (.png, .bin, .raw)").in_file(spec),
        );
    }
    listed.frames = frames;
    Ok(listed)
}

/// A picture file by its extension: PNG or raw VRAM.
fn picture_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [".png", ".bin", ".raw"].iter().any(|e| lower.ends_with(e))
}

/// The last run of ASCII digits in the file's stem.
fn last_digits(name: &str) -> Option<String> {
    let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
    let end = stem.rfind(|c: char| c.is_ascii_digit())? + 1;
    let start = stem[..end]
        .rfind(|c: char| !c.is_ascii_digit())
        .map_or(0, |i| i + 1);
    Some(stem[start..end].to_string())
}

/// How one frame number came out.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// Both pictures exist and were compared.
    Compared(Report),
    /// Only the first sequence has this frame.
    OnlyInA,
    /// Only the second sequence has this frame.
    OnlyInB,
}

/// Compares the pictures at `a` and `b` (loaded, aligned, compared); with `diff`, also the
/// difference picture when they differ.
pub fn compare_files(
    a: &Path,
    b: &Path,
    opts: &Options,
    diff: bool,
) -> Result<(Report, Option<Picture>), String> {
    let (ca, cb) = (
        Capture::load(a).map_err(|e| e.to_string())?,
        Capture::load(b).map_err(|e| e.to_string())?,
    );
    let aligned =
        compare::align(ca, cb).map_err(|e| format!("{} vs {}: {e}", a.display(), b.display()))?;
    let report = compare::compare(&aligned.a, &aligned.b, opts);
    let picture =
        (diff && !report.passed()).then(|| compare::diff_image(&aligned.a, &aligned.b, opts));
    Ok((report, picture))
}

/// What a whole sequence comparison found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Frame numbers present in both.
    pub compared: u64,
    /// Of those, the ones equal within the tolerance.
    pub equal: u64,
    /// Frames only one sequence has.
    pub unpaired: u64,
    /// The first frame both have that differs.
    pub first_difference: Option<u64>,
    /// The first frame only one sequence has.
    pub first_unpaired: Option<u64>,
    /// The frame with the most pixels beyond the tolerance (ties: the larger error, then the
    /// earlier frame), its pixel count and largest channel error.
    pub worst: Option<(u64, u64, u8)>,
}

impl Summary {
    /// Counts one frame's outcome (frames must come in increasing order).
    pub fn add(&mut self, n: u64, outcome: &Outcome) {
        match outcome {
            Outcome::Compared(r) => {
                self.compared += 1;
                if r.passed() {
                    self.equal += 1;
                } else {
                    let bad = r.compared - r.within_tolerance;
                    let err = r.max_channel_error;
                    if self.worst.is_none_or(|(_, b, e)| (bad, err) > (b, e)) {
                        self.worst = Some((n, bad, err));
                    }
                    self.first_difference.get_or_insert(n);
                }
            }
            Outcome::OnlyInA | Outcome::OnlyInB => {
                self.unpaired += 1;
                self.first_unpaired.get_or_insert(n);
            }
        }
    }

    /// True when every frame pairs up and is equal.
    pub fn passed(&self) -> bool {
        self.first_difference.is_none() && self.first_unpaired.is_none()
    }
}

/// One line for a frame that differs; `None` for an equal one.
pub fn line(n: u64, outcome: &Outcome) -> Option<String> {
    match outcome {
        Outcome::Compared(r) if r.passed() => None,
        Outcome::Compared(r) => {
            let bad = r.compared - r.within_tolerance;
            let bbox = r.bbox.map_or("none".into(), |b| b.to_string());
            Some(format!(
                "frame {n}: {bad} pixels differ, largest channel error {}, within {bbox}",
                r.max_channel_error
            ))
        }
        Outcome::OnlyInA => Some(format!("frame {n}: only in A")),
        Outcome::OnlyInB => Some(format!("frame {n}: only in B")),
    }
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "frames compared: {}, equal: {}, differing: {}, only in one sequence: {}",
            self.compared,
            self.equal,
            self.compared - self.equal,
            self.unpaired
        )?;
        match self.first_difference {
            Some(n) => writeln!(f, "first differing frame: {n}")?,
            None => writeln!(f, "first differing frame: none")?,
        }
        if let Some(n) = self.first_unpaired {
            writeln!(f, "first frame only one sequence has: {n}")?;
        }
        if let Some((n, bad, err)) = self.worst {
            writeln!(
                f,
                "worst frame: {n} ({bad} pixels differ, largest channel error {err})"
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_the_last_digits_of_the_stem() {
        assert_eq!(last_digits("frame_0120.png").as_deref(), Some("0120"));
        assert_eq!(last_digits("shot2-77.png").as_deref(), Some("77"));
        assert_eq!(last_digits("7.png").as_deref(), Some("7"));
        assert_eq!(last_digits("none.png"), None);
        assert!(picture_name("A.PNG") && picture_name("v.bin") && !picture_name("n.txt"));
    }

    #[test]
    fn the_summary_names_the_first_and_worst_frames() {
        let report = |bad: u64, err: u8| Report {
            width: 10,
            height: 10,
            compared: 100,
            identical: 100 - bad,
            within_tolerance: 100 - bad,
            max_channel_error: err,
            psnr: 0.0,
            bbox: None,
            mask_bit_differences: None,
            tolerance: 0,
        };
        let mut s = Summary::default();
        s.add(0, &Outcome::Compared(report(0, 0)));
        s.add(5, &Outcome::Compared(report(3, 9)));
        s.add(6, &Outcome::Compared(report(7, 2)));
        s.add(9, &Outcome::OnlyInB);
        assert_eq!(s.first_difference, Some(5));
        assert_eq!(s.worst, Some((6, 7, 2)));
        assert_eq!((s.compared, s.equal, s.unpaired), (3, 1, 1));
        assert!(!s.passed());
        let text = s.to_string();
        assert!(text.contains("first differing frame: 5"), "{text}");
        assert_eq!(line(0, &Outcome::Compared(report(0, 0))), None);
        assert_eq!(line(9, &Outcome::OnlyInB).unwrap(), "frame 9: only in B");
        // Frames only unpaired: nothing "differs", and the summary says which is alone.
        let mut s = Summary::default();
        s.add(0, &Outcome::Compared(report(0, 0)));
        s.add(1, &Outcome::OnlyInA);
        assert!(!s.passed());
        let text = s.to_string();
        assert!(
            text.contains("differing: 0,") && text.contains("first differing frame: none"),
            "{text}"
        );
        assert!(
            text.contains("first frame only one sequence has: 1"),
            "{text}"
        );
    }
}
