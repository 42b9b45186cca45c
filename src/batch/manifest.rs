//! Batch manifests: JSON Lines, one job a line, `{"model": PATH, "out": PATH, KEY: VALUE, ...}`
//! where every other key is a long option of the render command without its dashes (blank
//! lines skipped); or TOML (`.toml`), `[[job]]` tables with the same keys. A model path with `*`/`?` is a glob: one job per file, `{stem}` in `out`
//! (and in any option value) standing for that file's name without its extension.
//!
//! This module reads the lines into [`Entry`]s and expands globs; which keys exist and what
//! their values mean is the render command's to say (the CLI checks them with its parser).

use std::fmt;
use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use super::glob;

/// Largest manifest read, bytes.
pub const MAX_BYTES: u64 = 64 << 20;
/// Most jobs one manifest may expand to.
pub const MAX_JOBS: usize = 1_000_000;

/// What is wrong with a manifest, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestError {
    /// The manifest file.
    pub file: PathBuf,
    /// 1-based line; 0 for the file as a whole.
    pub line: usize,
    /// The key at fault, if one is.
    pub key: Option<String>,
    /// What was wrong.
    pub message: String,
}

impl ManifestError {
    /// An error at `line` (and `key`).
    pub fn new(file: &Path, line: usize, key: Option<&str>, message: impl Into<String>) -> Self {
        ManifestError {
            file: file.to_path_buf(),
            line,
            key: key.map(str::to_string),
            message: message.into(),
        }
    }
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if self.line > 0 {
            write!(f, " line {}", self.line)?;
        }
        if let Some(k) = &self.key {
            write!(f, ", key \"{k}\"")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ManifestError {}

/// A key's value, as the command line would spell it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionValue {
    /// `true` / `false`: a switch given or not.
    Switch(bool),
    /// A string or number.
    Text(String),
    /// An array: the option repeated.
    List(Vec<String>),
}

/// One manifest line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// 1-based line number.
    pub line: usize,
    /// `model`: a path or a glob, relative to the manifest's folder.
    pub model: String,
    /// `out`: the output path, relative to the manifest's folder; may hold `{stem}`.
    pub out: String,
    /// Every other key, in the line's order.
    pub options: Vec<(String, OptionValue)>,
}

/// One job after glob expansion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expanded {
    /// The model file, relative to the manifest's folder (or absolute).
    pub model: String,
    /// The output, `{stem}` filled in.
    pub out: String,
    /// The model's file name without extension: what `{stem}` stands for in this job's `out`
    /// and option values.
    pub stem: String,
}

/// Reads and parses the manifest at `path`: TOML when it ends in `.toml`, else JSON Lines.
pub fn read(path: &Path) -> Result<Vec<Entry>, ManifestError> {
    let whole = |m: String| ManifestError::new(path, 0, None, m);
    let meta = std::fs::metadata(path).map_err(|e| whole(format!("cannot read: {e}")))?;
    if meta.len() > MAX_BYTES {
        return Err(whole(format!(
            "{} bytes; a manifest may hold at most {MAX_BYTES}",
            meta.len()
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| whole(format!("cannot read: {e}")))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        whole(format!("not UTF-8 text (byte offset {at})"))
    })?;
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"))
    {
        parse_toml(path, &text)
    } else {
        parse_jsonl(path, &text)
    }
}

/// Parses JSON Lines manifest text (`file` names it in errors).
pub fn parse_jsonl(file: &Path, text: &str) -> Result<Vec<Entry>, ManifestError> {
    let mut entries = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(raw).map_err(|e| {
            ManifestError::new(
                file,
                line,
                None,
                format!("not valid JSON (column {}): {e}", e.column()),
            )
        })?;
        push_entry(file, line, value, &mut entries)?;
    }
    finish(file, entries)
}

/// Parses a TOML manifest: `[[job]]` tables with the same keys as a JSON Lines line. A job's
/// line is the line of its `[[job]]` header.
pub fn parse_toml(file: &Path, text: &str) -> Result<Vec<Entry>, ManifestError> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        let line = e.span().map_or(0, |s| {
            text[..s.start.min(text.len())].matches('\n').count() + 1
        });
        // Some refusals (nesting past the reader's recursion limit) come without a place.
        let unplaced = if line == 0 {
            " (nesting too deep, or a problem the TOML reader gives no line for)"
        } else {
            ""
        };
        ManifestError::new(
            file,
            line,
            None,
            format!("not valid TOML: {}{unplaced}", e.message().trim()),
        )
    })?;
    let mut jobs = None;
    for (key, value) in table {
        match (key.as_str(), value) {
            ("job", toml::Value::Array(a)) => jobs = Some(a),
            (k, _) => {
                return Err(ManifestError::new(
                    file,
                    0,
                    Some(k),
                    "a TOML manifest holds only [[job]] tables",
                ))
            }
        }
    }
    let headers: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with("[[job]]"))
        .map(|(i, _)| i + 1)
        .collect();
    let mut entries = Vec::new();
    for (n, job) in jobs.unwrap_or_default().into_iter().enumerate() {
        let line = headers.get(n).copied().unwrap_or(0);
        // TOML values as JSON ones: one conversion of keys to options for both formats.
        let value = serde_json::to_value(&job).map_err(|e| {
            ManifestError::new(file, line, None, format!("cannot read the job: {e}"))
        })?;
        push_entry(file, line, value, &mut entries)?;
    }
    finish(file, entries)
}

/// Reads one job object (`line` of `file`) into `entries`.
fn push_entry(
    file: &Path,
    line: usize,
    value: Value,
    entries: &mut Vec<Entry>,
) -> Result<(), ManifestError> {
    let err = |key: Option<&str>, m: String| ManifestError::new(file, line, key, m);
    let Value::Object(map) = value else {
        return Err(err(
            None,
            "a job is an object: {\"model\": ..., \"out\": ...}".into(),
        ));
    };
    let mut model = None;
    let mut out = None;
    let mut options = Vec::new();
    for (key, v) in map {
        match key.as_str() {
            "model" | "out" => {
                let Value::String(s) = v else {
                    return Err(err(Some(&key), "expects a path (a string)".into()));
                };
                if s.is_empty() {
                    return Err(err(Some(&key), "is empty".into()));
                }
                if key == "model" {
                    model = Some(s);
                } else {
                    out = Some(s);
                }
            }
            _ => {
                let v = option_value(v).map_err(|m| err(Some(&key), m))?;
                options.push((key, v));
            }
        }
    }
    let model =
        model.ok_or_else(|| err(Some("model"), "missing: every job names its model".into()))?;
    let out = out.ok_or_else(|| err(Some("out"), "missing: every job names its output".into()))?;
    if entries.len() >= MAX_JOBS {
        return Err(err(None, format!("more than {MAX_JOBS} jobs")));
    }
    entries.push(Entry {
        line,
        model,
        out,
        options,
    });
    Ok(())
}

fn finish(file: &Path, entries: Vec<Entry>) -> Result<Vec<Entry>, ManifestError> {
    if entries.is_empty() {
        return Err(ManifestError::new(file, 0, None, "holds no jobs"));
    }
    Ok(entries)
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn option_value(v: Value) -> Result<OptionValue, String> {
    match v {
        Value::Bool(b) => Ok(OptionValue::Switch(b)),
        Value::Array(items) => items
            .iter()
            .map(|i| scalar(i).ok_or_else(|| format!("list item {i} is not a string or number")))
            .collect::<Result<_, _>>()
            .map(OptionValue::List),
        other => scalar(&other).map(OptionValue::Text).ok_or_else(|| {
            format!("{other} is not a value an option takes (string, number, true/false or a list)")
        }),
    }
}

impl Entry {
    /// The jobs this entry stands for: one, or one per file its `model` glob matches (relative
    /// to `base`, the manifest's folder). An existing model file and a match are required.
    pub fn expand(&self, file: &Path, base: &Path) -> Result<Vec<Expanded>, ManifestError> {
        let err = |key: &str, m: String| ManifestError::new(file, self.line, Some(key), m);
        let models = if glob::is_pattern(&self.model) {
            let found = glob::expand(base, &self.model, MAX_JOBS).map_err(|m| err("model", m))?;
            if found.is_empty() {
                return Err(err("model", format!("no file matches {}", self.model)));
            }
            if found.len() > 1 && !self.out.contains("{stem}") {
                return Err(err(
                    "out",
                    format!(
                        "the model glob matches {} files; \"out\" needs {{stem}} to name each",
                        found.len()
                    ),
                ));
            }
            found
        } else {
            let p = PathBuf::from(&self.model);
            if !base.join(&p).is_file() {
                return Err(err(
                    "model",
                    format!("no such file: {}", base.join(&p).display()),
                ));
            }
            vec![p]
        };
        Ok(models
            .into_iter()
            .map(|m| {
                let stem = m
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                Expanded {
                    model: m.to_string_lossy().into_owned(),
                    out: self.out.replace("{stem}", &stem),
                    stem,
                }
            })
            .collect())
    }
}

/// `path` with `.` dropped and `dir/..` folded, textually (no file system access): the one
/// spelling by which outputs are compared and jobs keyed.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out: Vec<Component> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir) | Some(Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            _ => out.push(c),
        }
    }
    out.iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Vec<Entry>, ManifestError> {
        parse_jsonl(Path::new("jobs.jsonl"), text)
    }

    #[test]
    fn reads_lines_keys_and_values() {
        let e = parse(
            "{\"model\": \"a.m2\", \"out\": \"a.png\", \"frame\": 10, \"gif\": true}\n\n\
             {\"model\": \"b.glb\", \"out\": \"b.gif\", \"texture\": [\"11=s.blp\", 3], \"yaw\": -12.5}\n",
        )
        .unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!((e[0].line, e[1].line), (1, 3));
        assert_eq!(
            e[0].options,
            [
                ("frame".into(), OptionValue::Text("10".into())),
                ("gif".into(), OptionValue::Switch(true))
            ]
        );
        assert_eq!(
            e[1].options[0].1,
            OptionValue::List(vec!["11=s.blp".into(), "3".into()])
        );
        assert_eq!(e[1].options[1].1, OptionValue::Text("-12.5".into()));
    }

    #[test]
    fn errors_name_line_and_key() {
        let msg = |t: &str| parse(t).unwrap_err().to_string();
        assert!(
            msg("{\"model\": \"a\", \"out\": \"b\"}\n{\"model\": 3, \"out\": \"x\"}")
                .starts_with("jobs.jsonl line 2, key \"model\": expects a path")
        );
        assert!(msg("{\"model\": \"a\"").starts_with("jobs.jsonl line 1: not valid JSON"));
        assert!(msg("[1]").contains("line 1: a job is an object"));
        assert!(msg("{\"model\": \"a\"}").contains("key \"out\": missing"));
        assert!(msg("{\"model\": \"a\", \"out\": \"b\", \"frame\": null}")
            .contains("key \"frame\": null is not a value"));
        assert!(
            msg("{\"model\": \"a\", \"out\": \"b\", \"texture\": [[1]]}")
                .contains("key \"texture\": list item [1]")
        );
        assert_eq!(msg("\n \n"), "jobs.jsonl: holds no jobs");
    }

    #[test]
    fn reads_toml_job_tables() {
        let file = Path::new("jobs.toml");
        let text = "# thumbnails\n[[job]]\nmodel = \"a.m2\"\nout = \"a.png\"\nframe = 10\n\n\
                    [[job]]\nmodel = \"b.glb\"\nout = \"b.gif\"\ngif = true\ntexture = [\"11=s.blp\"]\n";
        let e = parse_toml(file, text).unwrap();
        assert_eq!((e.len(), e[0].line, e[1].line), (2, 2, 7));
        assert_eq!(
            e[0].options,
            [("frame".into(), OptionValue::Text("10".into()))]
        );
        assert_eq!(e[1].options[0], ("gif".into(), OptionValue::Switch(true)));
        let msg = |t: &str| parse_toml(file, t).unwrap_err().to_string();
        assert!(
            msg("[[job]]\nmodel = \"a\"\nout = \n").starts_with("jobs.toml line 3: not valid TOML")
        );
        assert!(msg("[[job]]\nmodel = \"a\"\nout = \"b\"\nsize = 3.5e\n").contains("line 4"));
        // Nesting past the reader's limit comes without a line: the message says so.
        let deep = format!("[{}a]\n", "a.".repeat(20_000));
        let m = msg(&deep);
        assert!(
            m.contains("not valid TOML") && m.contains("no line for"),
            "{m}"
        );
        assert!(msg("model = \"a\"\n")
            .contains("key \"model\": a TOML manifest holds only [[job]] tables"));
        assert!(
            msg("[[job]]\nmodel = \"a\"\nout = \"x\"\n\n[[job]]\nout = \"b\"\n")
                .starts_with("jobs.toml line 5, key \"model\": missing")
        );
        assert_eq!(msg("# nothing\n"), "jobs.toml: holds no jobs");
    }

    #[test]
    fn normalizes_textually() {
        assert_eq!(normalize(Path::new("./a/b/../c.png")), Path::new("a/c.png"));
        assert_eq!(normalize(Path::new("../x/./y")), Path::new("../x/y"));
        assert_eq!(normalize(Path::new("/a/../../b")), Path::new("/b"));
    }
}
