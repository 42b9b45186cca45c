//! Batch manifests: JSON Lines, one job a line, `{"model": PATH, "out": PATH, KEY: VALUE, ...}`
//! where every other key is a long option of the render command without its dashes (blank
//! lines skipped); or TOML (`.toml`), `[[job]]` tables with the same keys. A model path with `*`/`?` is a glob: one job per file, `{stem}` in `out`
//! (and in any option value) standing for that file's name without its extension.
//!
//! This module reads the lines into [`Entry`]s and expands globs; which keys exist and what
//! their values mean is the render command's to say (the CLI checks them with its parser).

use std::cell::RefCell;
use std::fmt;
use std::io::{self, BufRead, Read};
use std::path::{Component, Path, PathBuf};

use serde::de::{self, DeserializeSeed};

use super::glob;

/// Largest manifest read, bytes (counted while reading: a device or a growing file is cut
/// there).
pub const MAX_BYTES: u64 = 64 << 20;
/// Largest TOML manifest read, bytes: the TOML reader holds its whole document as a tree,
/// several times the text, so TOML is for hand-written manifests and JSON Lines for big ones.
pub const MAX_TOML_BYTES: u64 = 4 << 20;
/// Most jobs one manifest may expand to.
pub const MAX_JOBS: usize = 1_000_000;
/// Most keys one job may have: the render command has fewer options.
pub const MAX_KEYS: usize = 64;
/// Most values one list may hold (`"texture": [...]`).
pub const MAX_ITEMS: usize = 1024;
/// Longest value, bytes: far past any path or option value.
pub const MAX_VALUE: usize = 64 << 10;

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

/// One manifest line, held compactly: its model, output and options as one text of
/// NUL-separated fields (a NUL is refused in values), so a job costs little more than its
/// line in the file whatever its shape ([`Entry::options`] spells them out).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// 1-based line number.
    pub line: usize,
    /// `model`, `out`, then per option its key, its kind (`+`/`-` a switch, `=` a value,
    /// `[N` a list of N), and its values.
    fields: Box<str>,
}

impl Entry {
    /// An entry for `line` (tests and callers building one by hand).
    pub fn new(line: usize, model: &str, out: &str, options: &[(String, OptionValue)]) -> Entry {
        let mut b = Fields::default();
        b.push(model);
        b.push(out);
        for (k, v) in options {
            b.option(k, v);
        }
        Entry {
            line,
            fields: b.0.into_boxed_str(),
        }
    }

    /// `model`: a path or a glob, relative to the manifest's folder.
    pub fn model(&self) -> &str {
        self.fields.split('\0').next().unwrap_or("")
    }

    /// `out`: the output path, relative to the manifest's folder; may hold `{stem}`.
    pub fn out(&self) -> &str {
        self.fields.split('\0').nth(1).unwrap_or("")
    }

    /// Every other key, in the line's order.
    pub fn options(&self) -> Vec<(String, OptionValue)> {
        let mut it = self.fields.split('\0').skip(2);
        let mut out = Vec::new();
        while let (Some(key), Some(kind)) = (it.next(), it.next()) {
            let v = match kind {
                "+" => OptionValue::Switch(true),
                "-" => OptionValue::Switch(false),
                "=" => OptionValue::Text(it.next().unwrap_or("").to_string()),
                _ => {
                    let n: usize = kind[1..].parse().unwrap_or(0);
                    OptionValue::List(it.by_ref().take(n).map(str::to_string).collect())
                }
            };
            out.push((key.to_string(), v));
        }
        out
    }

    /// Whether the job sets `key`.
    pub fn sets(&self, key: &str) -> bool {
        self.options().iter().any(|(k, _)| k == key)
    }
}

/// The NUL-separated fields of an [`Entry`] being built.
#[derive(Default)]
struct Fields(String);

impl Fields {
    fn push(&mut self, s: &str) {
        if !self.0.is_empty() {
            self.0.push('\0');
        }
        self.0.push_str(s);
    }

    fn option(&mut self, key: &str, v: &OptionValue) {
        self.push(key);
        match v {
            OptionValue::Switch(true) => self.push("+"),
            OptionValue::Switch(false) => self.push("-"),
            OptionValue::Text(t) => {
                self.push("=");
                self.push(t);
            }
            OptionValue::List(items) => {
                self.push(&format!("[{}", items.len()));
                for i in items {
                    self.push(i);
                }
            }
        }
    }
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
/// The file is read through a cap (never trusting its size as reported), JSON Lines a line at
/// a time, so memory stays near the size of the jobs kept.
pub fn read(path: &Path) -> Result<Vec<Entry>, ManifestError> {
    let whole = |m: String| ManifestError::new(path, 0, None, m);
    let toml = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    let cap = if toml { MAX_TOML_BYTES } else { MAX_BYTES };
    let file = std::fs::File::open(path).map_err(|e| whole(format!("cannot read: {e}")))?;
    let mut capped = io::BufReader::new(file.take(cap + 1));
    let too_big = || {
        whole(format!(
            "more than {cap} bytes, the most a {} manifest may hold",
            if toml { "TOML" } else { "JSON Lines" }
        ))
    };
    if toml {
        let mut bytes = Vec::new();
        capped
            .read_to_end(&mut bytes)
            .map_err(|e| whole(format!("cannot read: {e}")))?;
        if bytes.len() as u64 > cap {
            return Err(too_big());
        }
        let text = utf8(path, 0, 0, bytes)?;
        return parse_toml(path, &text);
    }
    let mut entries = Vec::new();
    let mut line = Vec::new();
    let (mut n, mut offset) = (0usize, 0u64);
    loop {
        line.clear();
        let got = capped
            .read_until(b'\n', &mut line)
            .map_err(|e| whole(format!("cannot read: {e}")))?;
        if got == 0 {
            break;
        }
        if offset + got as u64 > cap {
            return Err(too_big());
        }
        n += 1;
        let text = utf8(path, n, offset, std::mem::take(&mut line))?;
        offset += got as u64;
        let text = if n == 1 { strip_bom(&text) } else { &text };
        parse_line(path, n, text, &mut entries)?;
    }
    entries.shrink_to_fit();
    finish(path, entries)
}

fn utf8(path: &Path, line: usize, offset: u64, bytes: Vec<u8>) -> Result<String, ManifestError> {
    String::from_utf8(bytes).map_err(|e| {
        let at = offset + e.utf8_error().valid_up_to() as u64;
        ManifestError::new(
            path,
            line,
            None,
            format!("not UTF-8 text (byte offset {at})"),
        )
    })
}

/// `text` without a leading UTF-8 byte-order mark (editors on Windows write one).
fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Parses JSON Lines manifest text (`file` names it in errors).
pub fn parse_jsonl(file: &Path, text: &str) -> Result<Vec<Entry>, ManifestError> {
    let mut entries = Vec::new();
    for (i, raw) in strip_bom(text).lines().enumerate() {
        parse_line(file, i + 1, raw, &mut entries)?;
    }
    finish(file, entries)
}

/// Parses one JSON Lines line (number `line`) into `entries`.
fn parse_line(
    file: &Path,
    line: usize,
    raw: &str,
    entries: &mut Vec<Entry>,
) -> Result<(), ManifestError> {
    if raw.trim().is_empty() {
        return Ok(());
    }
    if entries.len() >= MAX_JOBS {
        return Err(ManifestError::new(
            file,
            line,
            None,
            format!("more than {MAX_JOBS} jobs"),
        ));
    }
    let ctx = Context::default();
    let mut de = serde_json::Deserializer::from_str(raw);
    let parsed = EntrySeed { ctx: &ctx }
        .deserialize(&mut de)
        .and_then(|fields| de.end().map(|()| fields));
    let fields = parsed.map_err(|e| match ctx.failure() {
        Some((key, m)) => ManifestError::new(file, line, key.as_deref(), m),
        None => ManifestError::new(
            file,
            line,
            None,
            format!("not valid JSON (column {}): {e}", e.column()),
        ),
    })?;
    entries.push(Entry { line, fields });
    Ok(())
}

/// Parses a TOML manifest: `[[job]]` tables with the same keys as a JSON Lines line. A job's
/// line is the line of its `[[job]]` header.
pub fn parse_toml(file: &Path, text: &str) -> Result<Vec<Entry>, ManifestError> {
    let text = strip_bom(text);
    let headers: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with("[[job]]"))
        .map(|(i, _)| i + 1)
        .collect();
    let ctx = Context::default();
    let parsed = toml::de::Deserializer::parse(text)
        .and_then(|de| serde::de::DeserializeSeed::deserialize(TomlSeed { ctx: &ctx }, de));
    let jobs = parsed.map_err(|e| {
        let line = e.span().map_or(0, |s| {
            text[..s.start.min(text.len())].matches('\n').count() + 1
        });
        if let Some((key, m)) = ctx.failure() {
            // A job's refusal is placed on its `[[job]]` header.
            let at = ctx.job.get().and_then(|j| headers.get(j).copied());
            return ManifestError::new(file, at.unwrap_or(line), key.as_deref(), m);
        }
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
    let entries = (jobs.into_iter().enumerate())
        .map(|(n, fields)| Entry {
            line: headers.get(n).copied().unwrap_or(0),
            fields,
        })
        .collect();
    finish(file, entries)
}

fn finish(file: &Path, entries: Vec<Entry>) -> Result<Vec<Entry>, ManifestError> {
    if entries.is_empty() {
        return Err(ManifestError::new(file, 0, None, "holds no jobs"));
    }
    Ok(entries)
}

/// Where a parse failed on our account (a key's value refused), as opposed to the text's
/// syntax: the key, if known, and what was wrong.
#[derive(Default)]
struct Context {
    failed: RefCell<Option<(Option<String>, String)>>,
    /// In a TOML manifest, the index of the job that failed.
    job: std::cell::Cell<Option<usize>>,
}

impl Context {
    /// Records the failure; the error returned carries it to the caller through `self`.
    fn fail<E: de::Error>(&self, key: Option<&str>, message: String) -> E {
        let e = E::custom(&message);
        *self.failed.borrow_mut() = Some((key.map(str::to_string), message));
        e
    }

    fn failure(&self) -> Option<(Option<String>, String)> {
        self.failed.borrow_mut().take()
    }
}

/// The marker key under which the TOML reader hands over a date or time.
const TOML_DATETIME: &str = "$__toml_private_datetime";

/// Reads one job object into [`Entry`] fields, refusing (with the key) what no option takes.
struct EntrySeed<'c> {
    ctx: &'c Context,
}

impl<'de> de::DeserializeSeed<'de> for EntrySeed<'_> {
    type Value = Box<str>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Box<str>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> de::Visitor<'de> for EntrySeed<'_> {
    type Value = Box<str>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a job: {\"model\": ..., \"out\": ...}")
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Box<str>, A::Error> {
        let ctx = self.ctx;
        let (mut model, mut out) = (None, None);
        let mut keys: Vec<String> = Vec::new();
        let mut options = Fields::default();
        while let Some(key) = map.next_key::<String>()? {
            if keys.contains(&key) {
                return Err(ctx.fail(
                    Some(&key),
                    "given twice in one job: which one was meant?".into(),
                ));
            }
            if keys.len() >= MAX_KEYS {
                return Err(ctx.fail(
                    None,
                    format!("more than {MAX_KEYS} keys in one job; the render command has fewer options"),
                ));
            }
            let path = key == "model" || key == "out";
            let value = map.next_value_seed(ValueSeed {
                ctx,
                key: &key,
                path,
            })?;
            match (key.as_str(), value) {
                ("model" | "out", OptionValue::Text(s)) => {
                    if s.is_empty() {
                        return Err(ctx.fail(Some(&key), "is empty".into()));
                    }
                    if key == "model" {
                        model = Some(s);
                    } else {
                        out = Some(s);
                    }
                }
                ("model" | "out", _) => {
                    return Err(ctx.fail(Some(&key), "expects a path (a string)".into()));
                }
                (_, v) => options.option(&key, &v),
            }
            keys.push(key);
        }
        let model = model
            .ok_or_else(|| ctx.fail(Some("model"), "missing: every job names its model".into()))?;
        let out =
            out.ok_or_else(|| ctx.fail(Some("out"), "missing: every job names its output".into()))?;
        let mut fields = Fields::default();
        fields.push(&model);
        fields.push(&out);
        if !options.0.is_empty() {
            fields.push(&options.0);
        }
        Ok(fields.0.into_boxed_str())
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, _: A) -> Result<Box<str>, A::Error> {
        Err(self.ctx.fail(
            None,
            "a job is an object: {\"model\": ..., \"out\": ...}".into(),
        ))
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Box<str>, E> {
        Err(self.ctx.fail(
            None,
            "a job is an object: {\"model\": ..., \"out\": ...}".into(),
        ))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Box<str>, E> {
        self.visit_str("")
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Box<str>, E> {
        self.visit_str("")
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Box<str>, E> {
        self.visit_str("")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Box<str>, E> {
        self.visit_str("")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Box<str>, E> {
        self.visit_str("")
    }
}

/// Reads one option's value: a switch, a scalar, or a list of scalars; for `model` and `out`
/// (`path`), a string only.
struct ValueSeed<'c, 'k> {
    ctx: &'c Context,
    key: &'k str,
    path: bool,
}

impl ValueSeed<'_, '_> {
    /// `Err` for `model`/`out`, which take a string only.
    fn not_path<E: de::Error>(&self) -> Result<(), E> {
        match self.path {
            true => Err(self
                .ctx
                .fail(Some(self.key), "expects a path (a string)".into())),
            false => Ok(()),
        }
    }

    fn refuse<E: de::Error>(&self, what: &str) -> E {
        self.ctx.fail(
            Some(self.key),
            format!("{what} is not a value an option takes (string, number, true/false or a list)"),
        )
    }

    fn text<E: de::Error>(&self, s: &str) -> Result<String, E> {
        if s.len() > MAX_VALUE {
            return Err(self.ctx.fail(
                Some(self.key),
                format!("a value of {} bytes; at most {MAX_VALUE}", s.len()),
            ));
        }
        if s.contains('\0') {
            return Err(self.ctx.fail(
                Some(self.key),
                "holds a NUL character, which no path or option value can".into(),
            ));
        }
        Ok(s.to_string())
    }
}

/// A number as JSON writes it (`10`, `-12.5`); `Err` for infinity and NaN (TOML has them).
fn number(v: f64) -> Option<String> {
    serde_json::Number::from_f64(v).map(|n| n.to_string())
}

impl<'de> de::DeserializeSeed<'de> for ValueSeed<'_, '_> {
    type Value = OptionValue;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<OptionValue, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> de::Visitor<'de> for ValueSeed<'_, '_> {
    type Value = OptionValue;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string, number, true/false or a list")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<OptionValue, E> {
        self.not_path()?;
        Ok(OptionValue::Switch(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<OptionValue, E> {
        self.text(v).map(OptionValue::Text)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<OptionValue, E> {
        self.not_path()?;
        Ok(OptionValue::Text(v.to_string()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<OptionValue, E> {
        self.not_path()?;
        Ok(OptionValue::Text(v.to_string()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<OptionValue, E> {
        self.not_path()?;
        number(v)
            .map(OptionValue::Text)
            .ok_or_else(|| self.refuse(&format!("{v} (not a finite number)")))
    }

    fn visit_unit<E: de::Error>(self) -> Result<OptionValue, E> {
        Err(self.refuse("null"))
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<OptionValue, A::Error> {
        self.not_path()?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(ItemSeed { parent: &self })? {
            if items.len() >= MAX_ITEMS {
                return Err(self.ctx.fail(
                    Some(self.key),
                    format!("a list of more than {MAX_ITEMS} values"),
                ));
            }
            items.push(item);
        }
        Ok(OptionValue::List(items))
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<OptionValue, A::Error> {
        self.not_path()?;
        if let Some(k) = map.next_key::<String>()? {
            if k == TOML_DATETIME {
                let when: String = map.next_value()?;
                return Err(self.refuse(&format!("the date/time {when} (quote it for text)")));
            }
        }
        Err(self.refuse("a table or object"))
    }
}

/// One list item: a string or a number.
struct ItemSeed<'p, 'c, 'k> {
    parent: &'p ValueSeed<'c, 'k>,
}

impl<'de> de::DeserializeSeed<'de> for ItemSeed<'_, '_, '_> {
    type Value = String;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> de::Visitor<'de> for ItemSeed<'_, '_, '_> {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string or number")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        self.parent.text(v)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<String, E> {
        number(v).ok_or_else(|| self.bad(&v.to_string()))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<String, E> {
        Err(self.bad(&v.to_string()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<String, E> {
        Err(self.bad("null"))
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, _: A) -> Result<String, A::Error> {
        Err(self.bad("a list"))
    }

    fn visit_map<A: de::MapAccess<'de>>(self, _: A) -> Result<String, A::Error> {
        Err(self.bad("a table or object"))
    }
}

impl ItemSeed<'_, '_, '_> {
    fn bad<E: de::Error>(&self, what: &str) -> E {
        let p = self.parent;
        p.ctx.fail(
            Some(p.key),
            format!("list item {what} is not a string or number"),
        )
    }
}

/// A TOML manifest's top level: only `job`, an array of tables.
struct TomlSeed<'c> {
    ctx: &'c Context,
}

type TomlJob = Box<str>;

impl<'de> de::DeserializeSeed<'de> for TomlSeed<'_> {
    type Value = Vec<TomlJob>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> de::Visitor<'de> for TomlSeed<'_> {
    type Value = Vec<TomlJob>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("[[job]] tables")
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut jobs = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if key != "job" {
                return Err(self.ctx.fail(
                    Some(&key),
                    "a TOML manifest holds only [[job]] tables".into(),
                ));
            }
            jobs = map.next_value_seed(TomlJobs { ctx: self.ctx })?;
        }
        Ok(jobs)
    }
}

struct TomlJobs<'c> {
    ctx: &'c Context,
}

impl<'de> de::DeserializeSeed<'de> for TomlJobs<'_> {
    type Value = Vec<TomlJob>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> de::Visitor<'de> for TomlJobs<'_> {
    type Value = Vec<TomlJob>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("[[job]] tables")
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut jobs = Vec::new();
        loop {
            if jobs.len() >= MAX_JOBS {
                return Err(self.ctx.fail(None, format!("more than {MAX_JOBS} jobs")));
            }
            let ctx = Context::default();
            match seq.next_element_seed(EntrySeed { ctx: &ctx }) {
                Ok(Some(fields)) => jobs.push(fields),
                Ok(None) => break,
                Err(e) => match ctx.failure() {
                    Some((key, m)) => {
                        self.ctx.job.set(Some(jobs.len()));
                        return Err(self.ctx.fail(key.as_deref(), m));
                    }
                    None => return Err(e),
                },
            }
        }
        Ok(jobs)
    }
}

impl Entry {
    /// The jobs this entry stands for: one, or one per file its `model` glob matches (relative
    /// to `base`, the manifest's folder). An existing model file and a match are required.
    pub fn expand(&self, file: &Path, base: &Path) -> Result<Vec<Expanded>, ManifestError> {
        let err = |key: &str, m: String| ManifestError::new(file, self.line, Some(key), m);
        let models = if glob::is_pattern(self.model()) {
            let found = glob::expand(base, self.model(), MAX_JOBS).map_err(|m| err("model", m))?;
            if found.is_empty() {
                return Err(err("model", format!("no file matches {}", self.model())));
            }
            if found.len() > 1 && !self.out().contains("{stem}") {
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
            let p = PathBuf::from(self.model());
            let full = base.join(&p);
            if let Some(kind) = crate::output::plan::not_regular(&full) {
                return Err(err(
                    "model",
                    format!("{} is {kind}, not a model file", full.display()),
                ));
            }
            if !full.is_file() {
                return Err(err("model", format!("no such file: {}", full.display())));
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
                    out: self.out().replace("{stem}", &stem),
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
            e[0].options(),
            [
                ("frame".into(), OptionValue::Text("10".into())),
                ("gif".into(), OptionValue::Switch(true))
            ]
        );
        assert_eq!((e[0].model(), e[0].out()), ("a.m2", "a.png"));
        assert_eq!(
            e[1].options()[0].1,
            OptionValue::List(vec!["11=s.blp".into(), "3".into()])
        );
        assert_eq!(e[1].options()[1].1, OptionValue::Text("-12.5".into()));
        let built = Entry::new(3, "b.glb", "b.gif", &e[1].options());
        assert_eq!(built, e[1]);
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
                .contains("key \"texture\": list item a list is not")
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
            e[0].options(),
            [("frame".into(), OptionValue::Text("10".into()))]
        );
        assert_eq!(e[1].options()[0], ("gif".into(), OptionValue::Switch(true)));
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
