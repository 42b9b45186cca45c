//! Opening a glTF file: the GLB container's header and chunks (checked here, so the `gltf`
//! crate is only handed a well-formed container), what parsing the JSON will allocate charged
//! to the load's budget from its text (`json_cost.rs`), the JSON parsed and validated by the
//! `gltf` crate, then every buffer resolved — the GLB BIN chunk, a base64 data URI (decoded by the
//! crate), or a file beside the model — with its declared `byteLength` checked against the bytes
//! actually there, and images decoded through the `image` crate under the load's budget.
//!
//! Files beside the model are read once per load however often the document names them
//! ([`ExternalFiles`]): the budget grows with each distinct input file, never per mention, so
//! naming one file a thousand times neither multiplies the memory held nor lifts the limit.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ::gltf::json;

use super::{json_cost, json_error, Budget, Container, FORMAT};
use crate::formats::error::{ErrorKind, LoadError, Result};
use crate::formats::images;
use crate::formats::reader::Reader;
use crate::formats::{model_dir, Folders, MAX_FILE_SIZE};
use crate::scene::RgbaImage;

/// GLB chunk type `JSON`.
const CHUNK_JSON: u32 = 0x4E4F_534A;
/// GLB chunk type `BIN\0`.
const CHUNK_BIN: u32 = 0x004E_4942;

/// One buffer's bytes and where they came from.
#[derive(Debug)]
pub struct BufferData {
    /// Where from, for messages: `GLB BIN chunk`, `data URI`, or the file name.
    pub origin: String,
    /// The file errors in these bytes belong to (an external `.bin`), `None` for the model.
    pub file: Option<PathBuf>,
    /// Where the bytes start in that file.
    pub offset: u64,
    /// The bytes this buffer starts with: shared by every buffer naming the same file.
    data: Arc<Vec<u8>>,
    /// Its `byteLength` (at most `data.len()`).
    len: usize,
}

impl BufferData {
    /// The buffer's bytes (exactly `byteLength` of them).
    pub fn bytes(&self) -> &[u8] {
        &self.data[..self.len]
    }
}

/// A file's identity on disk (device, inode): every spelling of its path and every link to it is
/// one file, so a document cannot make one file count as many by naming it differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileId(u64, u64);

impl FileId {
    fn of(meta: &std::fs::Metadata) -> FileId {
        FileId(meta.dev(), meta.ino())
    }
}

/// The files beside the model one load reads, counted once each: the budget grows by a file's
/// size the first time it is read (the model file's size is in the budget from the start), and
/// never again however many buffers or images name it. Callers keep what they made of a file by
/// its [`FileId`], so that a file named many times is also read and decoded once.
pub struct ExternalFiles {
    /// The folders files must lie in.
    folders: Folders,
    /// The model file itself, when it can be identified.
    model: Option<FileId>,
    /// Files whose size the budget has grown by.
    counted: RefCell<HashSet<FileId>>,
}

impl ExternalFiles {
    /// The files a load of `model` may read from `folders`.
    pub fn new(model: &Path, folders: Folders) -> ExternalFiles {
        ExternalFiles {
            folders,
            model: std::fs::metadata(model).ok().map(|m| FileId::of(&m)),
            counted: RefCell::new(HashSet::new()),
        }
    }

    /// Which file `file` is: refused unless it lies inside the folders and exists. (Only the
    /// first read of a file notes it among the load's inputs: other spellings are that file.)
    pub fn identify(&self, file: &Path) -> Result<FileId> {
        self.folders
            .check(file)
            .map_err(|m| LoadError::new(FORMAT, 0, ErrorKind::Io(m)).in_file(file))?;
        let meta = std::fs::metadata(file).map_err(|e| LoadError::io(FORMAT, file, &e))?;
        Ok(FileId::of(&meta))
    }

    /// Reads `file` (identified as `id`): a regular file within the size limit. The budget
    /// grows by its size the first time `id` is read, and is charged for the bytes every time
    /// (each read is a new allocation).
    pub fn read(&self, file: &Path, id: FileId, budget: &Budget) -> Result<Vec<u8>> {
        let bytes = self.folders.read(file, FORMAT, MAX_FILE_SIZE)?;
        let len = bytes.len() as u64;
        if self.model != Some(id) && self.counted.borrow_mut().insert(id) {
            budget.add_input(len);
        }
        budget
            .charge(len, "external file (bytes)")
            .map_err(|e| e.in_file(file))?;
        Ok(bytes)
    }
}

/// A buffer's bytes until every buffer is resolved: the GLB BIN chunk's, a data URI's decoded
/// bytes, or the nth external file read.
enum Held {
    Bin(Vec<u8>),
    DataUri(Vec<u8>),
    File(usize),
}

/// `bytes` cut to the `used` bytes buffers take from its start, its spare capacity released when
/// that is most of it (a buffer of byteLength 1 must not hold a whole file).
fn keep_used(mut bytes: Vec<u8>, used: usize) -> Vec<u8> {
    bytes.truncate(used);
    if bytes.capacity() / 2 > bytes.len() {
        bytes.shrink_to_fit();
    }
    bytes
}

/// A parsed, validated document with its buffers.
pub struct Source {
    /// The document.
    pub doc: ::gltf::Document,
    /// Buffers, by index.
    pub buffers: Vec<BufferData>,
    /// How it was stored.
    pub container: Container,
    /// The model's directory (external files are looked up there).
    pub base: PathBuf,
    /// The files beside the model the load reads (inside the folders it may read).
    pub files: ExternalFiles,
    /// Byte offset of the JSON text in the model file.
    pub json_offset: u64,
}

/// Where the JSON text and the BIN chunk lie in a GLB file, checked.
struct GlbLayout {
    json: (u64, u64),
    bin: Option<(u64, u64)>,
    end: u64,
}

/// Checks a GLB file's header and chunk headers (glTF 2.0 §4.4).
fn glb_layout(data: &[u8]) -> Result<GlbLayout> {
    let r = Reader::new(data, FORMAT);
    r.bytes(0, 12, "GLB header")?;
    let version = r.u32_at(4, "GLB version")?;
    if version != 2 {
        return Err(r.error(
            4,
            ErrorKind::UnsupportedVersion {
                version: u64::from(version),
                supported: "GLB 2",
            },
        ));
    }
    let length = u64::from(r.u32_at(8, "GLB length")?);
    if length < 20 {
        return Err(r.invalid(
            8,
            format!("GLB length {length} is shorter than its headers"),
        ));
    }
    if length > r.len() {
        return Err(r.error(
            8,
            ErrorKind::UnexpectedEof {
                what: "GLB file (its header's length)",
                len: length,
            },
        ));
    }
    let json_len = u64::from(r.u32_at(12, "GLB JSON chunk length")?);
    if r.u32_at(16, "GLB JSON chunk type")? != CHUNK_JSON {
        return Err(r.invalid(16, "the first GLB chunk is not JSON"));
    }
    if 20 + json_len > length {
        return Err(r.error(
            12,
            ErrorKind::OutOfBounds {
                what: "GLB JSON chunk",
                target: 20,
                len: json_len,
            },
        ));
    }
    let mut end = 20 + json_len;
    let mut bin = None;
    // Chunks after the first BIN chunk are ignored, as glTF asks of unknown chunks.
    if end + 8 <= length {
        let bin_len = u64::from(r.u32_at(end, "GLB chunk length")?);
        let ty = r.u32_at(end + 4, "GLB chunk type")?;
        if ty == CHUNK_BIN {
            if end + 8 + bin_len > length {
                return Err(r.error(
                    end,
                    ErrorKind::OutOfBounds {
                        what: "GLB BIN chunk",
                        target: end + 8,
                        len: bin_len,
                    },
                ));
            }
            bin = Some((end + 8, bin_len));
            end += 8 + bin_len;
        }
    } else if end < length {
        return Err(r.error(
            end,
            ErrorKind::UnexpectedEof {
                what: "GLB chunk header",
                len: 8,
            },
        ));
    }
    Ok(GlbLayout {
        json: (20, json_len),
        bin,
        end,
    })
}

/// The byte offset of a (1-based) line and column in `text`.
fn line_col_offset(text: &[u8], line: usize, column: usize) -> u64 {
    let mut line_start = 0usize;
    for _ in 1..line.max(1) {
        match text[line_start..].iter().position(|&c| c == b'\n') {
            Some(i) => line_start += i + 1,
            None => break,
        }
    }
    (line_start + column.saturating_sub(1)).min(text.len()) as u64
}

/// What a validation error kind means, in words.
fn validation_words(e: json::validation::Error) -> &'static str {
    use json::validation::Error as V;
    match e {
        V::IndexOutOfBounds => "index out of range",
        V::Invalid => "invalid value",
        V::Missing => "required value missing",
        V::Oversize => "size too large",
        V::Unsupported => "not supported (an extension this loader does not implement)",
    }
}

/// Checks the document parts the `gltf` crate's validation would index unchecked, and the asset
/// version, before validation runs.
fn pre_validate(root: &json::Root) -> Result<()> {
    let version = root.asset.version.as_str();
    let major = version.split('.').next().unwrap_or("");
    if major != "2" {
        return Err(LoadError::new(
            FORMAT,
            0,
            ErrorKind::UnsupportedVersion {
                version: major.parse::<u64>().unwrap_or(0),
                supported: "glTF 2.x",
            },
        ));
    }
    if let Some(min) = &root.asset.min_version {
        if min.split('.').next() != Some("2") || min.split('.').nth(1).is_some_and(|m| m != "0") {
            return Err(json_error(
                "asset.minVersion",
                format!("requires glTF {min}; supported: 2.0"),
            ));
        }
    }
    // The crate validates neither an animation channel's target node nor its path, and its
    // accessors unwrap both.
    for (a, anim) in root.animations.iter().enumerate() {
        for (c, ch) in anim.channels.iter().enumerate() {
            let path = format!("animations[{a}].channels[{c}].target");
            if ch.target.node.value() >= root.nodes.len() {
                return Err(json_error(
                    format!("{path}.node"),
                    format!(
                        "node {} does not exist ({} nodes)",
                        ch.target.node.value(),
                        root.nodes.len()
                    ),
                ));
            }
            if matches!(ch.target.path, json::validation::Checked::Invalid) {
                return Err(json_error(
                    format!("{path}.path"),
                    "not translation, rotation, scale or weights",
                ));
            }
        }
    }
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            // The crate's validation reads POSITION's accessor by index without a check.
            let pos = prim.attributes.get(&json::validation::Checked::Valid(
                json::mesh::Semantic::Positions,
            ));
            if let Some(i) = pos {
                if i.value() >= root.accessors.len() {
                    return Err(json_error(
                        format!("meshes[{m}].primitives[{p}].attributes.POSITION"),
                        format!(
                            "accessor {} does not exist ({} accessors)",
                            i.value(),
                            root.accessors.len()
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Runs the `gltf` crate's validation. One of its rules is stricter than glTF 2.0 and is
/// dropped: an accessor without a bufferView (and without sparse values) is valid — it reads as
/// zeros, and it is how KHR_draco_mesh_compression primitives declare their attributes.
fn validate(root: json::Root) -> Result<::gltf::Document> {
    use json::validation::Validate;
    // The first error is reported and the rest only counted: a document can have one per
    // element.
    let mut first = None;
    let mut count = 0u64;
    root.validate(&root, json::Path::new, &mut |path, error| {
        let path = path();
        let p = path.as_str();
        let zero_filled = error == json::validation::Error::Missing
            && p.starts_with("accessors[")
            && p.ends_with("].bufferView");
        if !zero_filled {
            count += 1;
            first.get_or_insert((path, error));
        }
    });
    if let Some((path, kind)) = first {
        let more = match count {
            1 => String::new(),
            n => format!(" (and {} more validation errors)", n - 1),
        };
        return Err(json_error(
            path.as_str(),
            format!("{}{more}", validation_words(kind)),
        ));
    }
    // Backstop for an enum value the crate's validation does not visit: such a value cannot be
    // written back out, and the crate would unwrap it.
    if serde_json::to_writer(std::io::sink(), &root).is_err() {
        return Err(json_error(
            "(document)",
            "a value outside the set glTF defines for its field",
        ));
    }
    Ok(::gltf::Document::from_json_without_validation(root))
}

/// Charges what the `gltf` crate will allocate parsing `json` (and copying a GLB BIN chunk of
/// `bin_len` bytes), before it runs: a document that would not fit the budget is refused, naming
/// the top-level member that costs the most.
fn charge_parse(json: &[u8], bin_len: u64, budget: &Budget) -> Result<()> {
    let cost = json_cost::of(json);
    let bytes = cost.bytes.saturating_add(bin_len);
    if bytes > budget.remaining() {
        let (path, what) = match &cost.largest {
            Some(m) if m.elements > 0 => (m.key.clone(), format!("{} elements take", m.elements)),
            Some(m) => (m.key.clone(), "takes".to_string()),
            None => ("(document)".to_string(), "takes".to_string()),
        };
        let part = cost.largest.as_ref().map_or(bytes, |m| m.bytes);
        return Err(json_error(
            path,
            format!(
                "{what} up to {part} bytes once parsed (the document {bytes}), more than the \
                 load's budget has left ({} of {} bytes)",
                budget.remaining(),
                budget.limit()
            ),
        ));
    }
    budget.charge(bytes, "JSON document once parsed (bytes)")
}

/// Extensions this loader implements itself (removed from `extensionsRequired` before the crate
/// validates, as the crate does not know them).
pub const HANDLED_EXTENSIONS: &[&str] = &["KHR_draco_mesh_compression"];

/// Parses and validates the document, resolves its buffers (external ones only inside
/// `folders`).
pub fn open(path: &Path, data: &[u8], budget: &Budget, folders: Folders) -> Result<Source> {
    let (container, json_range, glb_end, glb_bin_len) = if data.starts_with(b"glTF") {
        let l = glb_layout(data)?;
        (
            Container::Binary {
                json_offset: l.json.0,
                bin_offset: l.bin.map(|b| b.0),
            },
            l.json,
            Some(l.end),
            l.bin.map_or(0, |b| b.1),
        )
    } else {
        (Container::Json, (0, data.len() as u64), None, 0)
    };
    let json_offset = json_range.0;
    let json_text = &data[json_range.0 as usize..(json_range.0 + json_range.1) as usize];
    charge_parse(json_text, glb_bin_len, budget).map_err(|e| with_offset(e, json_offset))?;
    let slice = match glb_end {
        Some(end) => &data[..end as usize],
        None => data,
    };
    let parsed = ::gltf::Gltf::from_slice_without_validation(slice).map_err(|e| match e {
        ::gltf::Error::Deserialize(je) => {
            let at = json_offset + line_col_offset(json_text, je.line(), je.column());
            // serde_json ends its message with " at line L column C"; said first instead.
            let msg = je.to_string();
            let what = msg
                .strip_suffix(&format!(" at line {} column {}", je.line(), je.column()))
                .unwrap_or(&msg);
            LoadError::invalid(
                FORMAT,
                at,
                format!(
                    "JSON syntax error at line {}, column {}: {what}",
                    je.line(),
                    je.column()
                ),
            )
        }
        other => LoadError::invalid(FORMAT, 0, other.to_string()),
    })?;
    let blob = parsed.blob;
    let mut root = parsed.document.into_json();
    pre_validate(&root).map_err(|e| with_offset(e, json_offset))?;
    root.extensions_required
        .retain(|e| !HANDLED_EXTENSIONS.contains(&e.as_str()));
    let doc = validate(root).map_err(|e| with_offset(e, json_offset))?;
    let base = model_dir(path).to_path_buf();
    let bin_offset = match container {
        Container::Binary { bin_offset, .. } => bin_offset.unwrap_or(0),
        Container::Json => 0,
    };
    let files = ExternalFiles::new(path, folders);
    let buffers = read_buffers(&doc, blob, &files, &base, (json_offset, bin_offset), budget)?;
    Ok(Source {
        doc,
        buffers,
        container,
        base,
        files,
        json_offset,
    })
}

/// Every buffer's bytes: the GLB BIN chunk, a data URI, or an external file, each file read
/// once however many buffers name it (and however it is spelled), sharing its bytes and
/// holding only the most any of them uses. `offsets` are the JSON's and the BIN chunk's in
/// the model file.
fn read_buffers(
    doc: &::gltf::Document,
    mut blob: Option<Vec<u8>>,
    files: &ExternalFiles,
    base: &Path,
    (json_offset, bin_offset): (u64, u64),
    budget: &Budget,
) -> Result<Vec<BufferData>> {
    // Files the buffers name, each read once: its bytes and the most any buffer takes of them.
    let mut read: Vec<(Vec<u8>, usize)> = Vec::new();
    let mut read_index: HashMap<FileId, usize> = HashMap::new();
    let mut pending = Vec::new();
    for buffer in doc.buffers() {
        let i = buffer.index();
        let len = buffer.length() as u64;
        let jpath = format!("buffers[{i}]");
        let (origin, file, offset, held) = match buffer.source() {
            ::gltf::buffer::Source::Bin => {
                let b = blob.take().ok_or_else(|| {
                    with_offset(
                        json_error(&jpath, "refers to the GLB BIN chunk, which this file lacks"),
                        json_offset,
                    )
                })?;
                ("GLB BIN chunk".to_string(), None, bin_offset, Held::Bin(b))
            }
            ::gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => {
                let data =
                    ::gltf::buffer::Data::from_source(::gltf::buffer::Source::Uri(uri), None)
                        .map_err(|e| {
                            with_offset(json_error(&jpath, format!("data URI: {e}")), json_offset)
                        })?;
                ("data URI".to_string(), None, 0, Held::DataUri(data.0))
            }
            ::gltf::buffer::Source::Uri(uri) => {
                let file = external_path(base, uri)
                    .map_err(|m| with_offset(json_error(format!("{jpath}.uri"), m), json_offset))?;
                let named = |e| named_in_uri(e, &format!("{jpath}.uri"), uri);
                let id = files.identify(&file).map_err(named)?;
                let k = match read_index.get(&id) {
                    Some(&k) => k,
                    None => {
                        let bytes = files.read(&file, id, budget).map_err(named)?;
                        read.push((bytes, 0));
                        read_index.insert(id, read.len() - 1);
                        read.len() - 1
                    }
                };
                (uri.to_string(), Some(file), 0, Held::File(k))
            }
        };
        let have = match &held {
            Held::Bin(b) | Held::DataUri(b) => b.len(),
            Held::File(k) => read[*k].0.len(),
        } as u64;
        if have < len {
            let e = short_buffer(&jpath, &held, file.as_deref(), offset, have, len);
            return Err(match e.kind {
                ErrorKind::Json { .. } => with_offset(e, json_offset),
                _ => e,
            });
        }
        if let Held::File(k) = held {
            read[k].1 = read[k].1.max(len as usize);
        }
        pending.push((origin, file, offset, held, len as usize));
    }
    let shared: Vec<Arc<Vec<u8>>> = read
        .into_iter()
        .map(|(bytes, used)| Arc::new(keep_used(bytes, used)))
        .collect();
    Ok(pending
        .into_iter()
        .map(|(origin, file, offset, held, len)| BufferData {
            origin,
            file,
            offset,
            data: match held {
                Held::Bin(b) | Held::DataUri(b) => Arc::new(keep_used(b, len)),
                Held::File(k) => Arc::clone(&shared[k]),
            },
            len,
        })
        .collect())
}

/// A buffer holding `have` bytes, fewer than its `byteLength` of `len`. Bytes from a file (the
/// GLB BIN chunk at `offset`, an external file) are told at the byte where they ran out; a data
/// URI's decoded bytes have no position in any file, so that error names the buffer's JSON path.
fn short_buffer(
    jpath: &str,
    held: &Held,
    file: Option<&Path>,
    offset: u64,
    have: u64,
    len: u64,
) -> LoadError {
    if matches!(held, Held::DataUri(_)) {
        return json_error(
            jpath,
            format!("its data URI holds {have} bytes, fewer than its byteLength {len}"),
        );
    }
    let err = LoadError::new(
        FORMAT,
        offset + have,
        ErrorKind::UnexpectedEof {
            what: "buffer (its byteLength)",
            len,
        },
    );
    match file {
        Some(f) => err.in_file(f),
        None => err,
    }
}

/// Sets the offset of an error (the JSON text's start for path errors).
pub fn with_offset(mut e: LoadError, offset: u64) -> LoadError {
    e.offset = offset;
    e
}

/// A relative URI (percent-encoded, `/`-separated) as a path beside the model.
pub fn external_path(base: &Path, uri: &str) -> std::result::Result<PathBuf, String> {
    if uri.contains(':') {
        return Err(format!(
            "URI '{uri}' has a scheme; only data URIs and relative paths are read"
        ));
    }
    let mut bytes = Vec::with_capacity(uri.len());
    let raw = uri.as_bytes();
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'%' {
            let hex = raw
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            match hex {
                Some(b) => {
                    bytes.push(b);
                    i += 3;
                    continue;
                }
                None => return Err(format!("URI '{uri}' has a bad %-escape")),
            }
        }
        bytes.push(raw[i]);
        i += 1;
    }
    let decoded = String::from_utf8(bytes).map_err(|_| format!("URI '{uri}' is not UTF-8"))?;
    if decoded.starts_with('/') || decoded.contains('\0') {
        return Err(format!("URI '{uri}' is not a relative path"));
    }
    Ok(base.join(decoded))
}

/// A failure to read the file a URI names, told with the URI and the JSON path naming it (the
/// error stays the file's, of its kind: an I/O refusal is still `Io`).
pub fn named_in_uri(e: LoadError, jpath: &str, uri: &str) -> LoadError {
    match e.kind {
        ErrorKind::Io(m) => LoadError {
            kind: ErrorKind::Io(format!("{m} ({jpath} '{uri}')")),
            ..e
        },
        _ => e,
    }
}

/// Which decoder an image's bytes call for: the MIME type when given, else the content.
pub fn image_format(bytes: &[u8], mime: Option<&str>) -> Option<image::ImageFormat> {
    match mime {
        Some("image/png") => Some(image::ImageFormat::Png),
        Some("image/jpeg") => Some(image::ImageFormat::Jpeg),
        _ => match image::guess_format(bytes) {
            Ok(f @ (image::ImageFormat::Png | image::ImageFormat::Jpeg)) => Some(f),
            _ => None,
        },
    }
}

/// Decodes PNG or JPEG bytes to RGBA for drawing ([`images::decode_for_drawing`]): sides up to
/// [`images::MAX_IMAGE_SIDE`] (refused from the header, naming the cap), the decoded pixels charged
/// to the budget's image allowance first. The inner `Err` says why the decoder failed on the bytes
/// (drawn as a checkerboard); the outer one refuses the image: a header past the side cap or too
/// short for its size, or the allowance exceeded (limits on what a file may make psxrender allocate
/// stay refusals).
pub fn decode_image(
    bytes: &[u8],
    format: image::ImageFormat,
    budget: &Budget,
) -> Result<std::result::Result<RgbaImage, String>> {
    if let Err(why) = images::dimensions(bytes, format) {
        return Ok(Err(why));
    }
    let (w, h) = images::header_size(bytes, format)
        .map_err(|m| LoadError::new(FORMAT, 0, ErrorKind::Undecodable(m)))?;
    budget.charge_image(u64::from(w) * u64::from(h) * 4)?;
    Ok(images::decode_for_drawing(bytes, format))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_percent_decoded_and_confined_to_relative_paths() {
        let base = Path::new("m");
        assert_eq!(
            external_path(base, "a%20b.bin").unwrap(),
            PathBuf::from("m/a b.bin")
        );
        assert!(external_path(base, "%FF.bin").is_err());
        assert!(external_path(base, "%G1.bin").is_err());
        assert!(external_path(base, "%4").is_err());
        assert!(external_path(base, "http://x/y.bin").is_err());
        assert!(external_path(base, "/etc/passwd").is_err());
    }

    #[test]
    fn line_and_column_become_byte_offsets() {
        let t = b"{\n  \"a\": 1,\n  x\n}";
        assert_eq!(line_col_offset(t, 3, 3), 14);
        assert_eq!(t[14], b'x');
        assert_eq!(line_col_offset(t, 1, 1), 0);
    }

    #[test]
    fn glb_headers_are_checked_before_the_crate_sees_them() {
        let mut d = b"glTF".to_vec();
        d.extend(2u32.to_le_bytes());
        d.extend(8u32.to_le_bytes());
        let e = glb_layout(&d).err().unwrap();
        assert_eq!(e.offset, 8);
        d[8..12].copy_from_slice(&100u32.to_le_bytes());
        assert!(matches!(
            glb_layout(&d).err().unwrap().kind,
            ErrorKind::UnexpectedEof { .. }
        ));
        d[4] = 1;
        assert!(matches!(
            glb_layout(&d).err().unwrap().kind,
            ErrorKind::UnsupportedVersion { .. }
        ));
    }
}
