//! One error type for every file psxrender reads: which file, which format, which byte, what.

use std::fmt;
use std::path::{Path, PathBuf};

/// What a kind of file is for, which decides the commands that take it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A 3D model: render, `view`, `info`.
    Model,
    /// An image: `texture`, `info`.
    Texture,
    /// Texture settings (NWN `.txi`): `info`.
    TextureInfo,
    /// GPU words: `replay`, `info`.
    GpuInput,
}

/// A file no detector claimed: what each said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unrecognised {
    /// The file's size, bytes. Its content is never shown: the file may be anyone's.
    pub size: usize,
    /// (format, why it refused), in the order asked.
    pub refusals: Vec<(&'static str, String)>,
}

impl std::fmt::Display for Unrecognised {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "not a file psxrender reads ({} bytes; none shown: the file may be anyone's); tried",
            self.size
        )?;
        for (name, why) in &self.refusals {
            write!(f, "\n  {name}: {why}")?;
        }
        Ok(())
    }
}

/// What was wrong at the offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The file does not start the way the format requires.
    BadMagic {
        /// What the format expects there, in words.
        expected: &'static str,
    },
    /// The file ends before a field of `len` bytes that starts at the offset.
    UnexpectedEof {
        /// What was being read.
        what: &'static str,
        /// How many bytes it needed.
        len: u64,
    },
    /// A pointer or array read from the file lies (partly) outside the file or its section.
    OutOfBounds {
        /// What the pointer or array is.
        what: &'static str,
        /// Where it points (absolute file offset where that makes sense).
        target: u64,
        /// How many bytes it spans.
        len: u64,
    },
    /// A count read from the file is larger than psxrender accepts (or than the file can hold).
    CountTooLarge {
        /// What is being counted.
        what: &'static str,
        /// The count found.
        count: u64,
        /// The largest count accepted.
        max: u64,
    },
    /// A version psxrender does not read.
    UnsupportedVersion {
        /// The version found, as the format writes it.
        version: u64,
        /// The versions that are read, in words.
        supported: &'static str,
    },
    /// A value that the format does not allow (an index past its array, a bad enum, …).
    Invalid(String),
    /// A value of a JSON format (glTF) that is wrong, named by its JSON path
    /// (`meshes[0].primitives[1].indices`): JSON values have no useful byte offset, so the
    /// message names the path instead (the error's offset is where the JSON text starts).
    Json {
        /// Where in the document, e.g. `accessors[3]`.
        path: String,
        /// What is wrong there.
        msg: String,
    },
    /// The operating system could not read the file.
    Io(String),
    /// No format recognised the content: what each one said.
    Unrecognised(Unrecognised),
    /// A file psxrender reads, but not one this command takes (a texture given as a model).
    NotAModel(Role),
    /// A file psxrender reads, but not an image (a model given to `texture`).
    NotAnImage(Role),
    /// Content an outside decoder (the `image` crate's PNG, JPEG or TGA reader) refused; it
    /// says what but not where, so no byte offset is claimed.
    Undecodable(String),
    /// A command-line choice the file cannot satisfy (`--skin` naming no skin found): about
    /// the file as a whole, so no byte offset.
    Choice(String),
}

/// The indefinite article for a format's name as it is read aloud: "an M2", "an NWN MDL",
/// "an FF9" (letters said as "em", "en", "ef"), "a TIM", "a glTF".
pub fn article(name: &str) -> &'static str {
    let mut c = name.chars();
    match (c.next(), c.next()) {
        (Some(v), _) if "AEIOUaeiou".contains(v) => "an",
        (Some('F' | 'H' | 'L' | 'M' | 'N' | 'R' | 'S' | 'X'), Some(n))
            if n.is_ascii_uppercase() || n.is_ascii_digit() =>
        {
            "an"
        }
        _ => "a",
    }
}

impl ErrorKind {
    /// Why an image side of `v` pixels is refused: a side of 0 is no image (`Invalid`), one above
    /// `max` is too large (`CountTooLarge`). Call only when `v == 0 || v > max`.
    pub fn image_side(what: &'static str, v: u32, max: u32) -> ErrorKind {
        if v == 0 {
            ErrorKind::Invalid(format!("{what} is 0"))
        } else {
            ErrorKind::CountTooLarge {
                what,
                count: u64::from(v),
                max: u64::from(max),
            }
        }
    }
}

/// `what` as the subject of a message about a `format` file: `what` alone when it already names
/// the format (`TIM CLUT block`), else the two together (`M2 bone array`).
fn subject(format: &str, what: &str) -> String {
    match what.strip_prefix(format) {
        Some(rest) if rest.starts_with(' ') => what.to_string(),
        _ => format!("{format} {what}"),
    }
}

/// A failure to load a file, naming the file, the format, the byte offset and the cause.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    /// The file, when known.
    pub file: Option<PathBuf>,
    /// The format being read ("NWN MDL", "M2", "TIM", …).
    pub format: &'static str,
    /// Byte offset in the file where the problem was found.
    pub offset: u64,
    /// What was wrong.
    pub kind: ErrorKind,
}

impl LoadError {
    /// An error at `offset` in a file of `format`; attach the path later with [`Self::in_file`].
    pub fn new(format: &'static str, offset: u64, kind: ErrorKind) -> Self {
        LoadError {
            file: None,
            format,
            offset,
            kind,
        }
    }

    /// An `Invalid` error with a message.
    pub fn invalid(format: &'static str, offset: u64, msg: impl Into<String>) -> Self {
        Self::new(format, offset, ErrorKind::Invalid(msg.into()))
    }

    /// The OS failed to read `path`.
    pub fn io(format: &'static str, path: &Path, err: &std::io::Error) -> Self {
        LoadError {
            file: Some(path.to_path_buf()),
            format,
            offset: 0,
            kind: ErrorKind::Io(err.to_string()),
        }
    }

    /// Names the file the error happened in (keeps a file already named).
    pub fn in_file(mut self, path: &Path) -> Self {
        if self.file.is_none() {
            self.file = Some(path.to_path_buf());
        }
        self
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{}: ", file.display())?;
        }
        match &self.kind {
            ErrorKind::Io(e) => return write!(f, "cannot read {} file: {e}", self.format),
            ErrorKind::Unrecognised(u) => return write!(f, "{u}"),
            ErrorKind::NotAModel(role) | ErrorKind::NotAnImage(role) => {
                let image = matches!(self.kind, ErrorKind::NotAnImage(_));
                // A GPU input format's name already says what it holds ("GPU text stream").
                let what = match role {
                    Role::Model => " model",
                    Role::Texture => " texture",
                    Role::TextureInfo => " texture-info file",
                    Role::GpuInput => " (GPU input)",
                };
                let try_cmd = match (role, image) {
                    (Role::Model, true) => "`psxrender MODEL OUT.png` or `psxrender info`",
                    (Role::Texture, false) => "`psxrender info` or `psxrender texture`",
                    (Role::GpuInput, _) => "`psxrender info` or `psxrender replay`",
                    _ => "`psxrender info`",
                };
                return write!(
                    f,
                    "this is {} {}{what}, not {}: try {try_cmd}",
                    article(self.format),
                    self.format,
                    if image { "an image" } else { "a model" }
                );
            }
            ErrorKind::Choice(msg) => return write!(f, "{msg}"),
            ErrorKind::Undecodable(msg) => {
                return write!(f, "{} cannot be decoded: {msg}", self.format)
            }
            ErrorKind::BadMagic { expected } => {
                write!(f, "not a {} file: expected {expected}", self.format)?
            }
            ErrorKind::UnexpectedEof { what, len } => write!(
                f,
                "{} truncated: {what} ({len} bytes) runs past the end",
                self.format
            )?,
            ErrorKind::OutOfBounds { what, target, len } => write!(
                f,
                "{} out of bounds (0x{target:x}, {len} bytes)",
                subject(self.format, what)
            )?,
            ErrorKind::CountTooLarge { what, count, max } => write!(
                f,
                "{} count {count} is larger than the limit {max}",
                subject(self.format, what)
            )?,
            ErrorKind::UnsupportedVersion { version, supported } => write!(
                f,
                "{} version {version} (0x{version:x}) is not supported (supported: {supported})",
                self.format
            )?,
            ErrorKind::Invalid(msg) => write!(f, "{}: {msg}", self.format)?,
            ErrorKind::Json { path, msg } => return write!(f, "{} {path}: {msg}", self.format),
        }
        write!(f, " at byte 0x{:x}", self.offset)
    }
}

impl std::error::Error for LoadError {}

/// Shorthand for loader results.
pub type Result<T, E = LoadError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_take_the_article_of_their_spoken_name() {
        for (name, a) in [
            ("M2", "an"),
            ("NWN MDL", "an"),
            ("FF9", "an"),
            ("TIM", "a"),
            ("glTF", "a"),
            ("GPU text stream", "a"),
            ("BLP2", "a"),
            ("image", "an"),
        ] {
            assert_eq!(article(name), a, "{name}");
        }
    }

    #[test]
    fn messages_name_the_format_once() {
        let e = LoadError::new(
            "TIM",
            8,
            ErrorKind::OutOfBounds {
                what: "TIM CLUT block",
                target: 8,
                len: 12,
            },
        );
        assert_eq!(
            e.to_string(),
            "TIM CLUT block out of bounds (0x8, 12 bytes) at byte 0x8"
        );
        let e = LoadError::new("PLT", 16, ErrorKind::image_side("PLT width", 9000, 8192));
        assert_eq!(
            e.to_string(),
            "PLT width count 9000 is larger than the limit 8192 at byte 0x10"
        );
        let e = LoadError::new(
            "M2",
            4,
            ErrorKind::OutOfBounds {
                what: "bone array",
                target: 1,
                len: 2,
            },
        );
        assert!(
            e.to_string().starts_with("M2 bone array out of bounds"),
            "{e}"
        );
        let e = LoadError::new("DDS", 12, ErrorKind::image_side("image width", 0, 8192));
        assert_eq!(e.to_string(), "DDS: image width is 0 at byte 0xc");
        let e = LoadError::new("GPU text stream", 0, ErrorKind::NotAModel(Role::GpuInput));
        assert!(
            e.to_string()
                .starts_with("this is a GPU text stream (GPU input), not a model"),
            "{e}"
        );
        let e = LoadError::io("input", Path::new("x"), &std::io::Error::other("gone"));
        assert_eq!(e.to_string(), "x: cannot read input file: gone");
    }
}
