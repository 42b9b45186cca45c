//! A folder of textures already put in PS1 form, shared by every process that renders with it
//! (`--cache DIR`; a batch's jobs share one beside its report), so a texture is quantised once
//! per library rather than once per model, and its file decoded only the first time.
//!
//! An entry of PS1 texels is named by a hash of everything they depend on: the source (the
//! texture file's bytes and how the loader decodes them, see [`source_id`]; for an image no
//! loader named, its size and pixels), the encoding, the depth, how often it was halved, and
//! [`FORMAT`] with the program's version. It holds the texels and CLUT exactly as the converter
//! made them, after a header, and ends with a checksum of all that precedes it; an entry that
//! is short, long, damaged or names another key is a miss, never a texture. Beside them, a
//! source's facts entry holds what the loaders need of a decoded file before anything is drawn
//! (its size, whether a texel is translucent: [`SourceFacts`]), so that a loader finding it
//! can leave the file undecoded, in the same checked form. Entries are written whole to a
//! temporary file and renamed into place, so processes writing the same entry at once each
//! leave a complete one. The folder is kept under a size limit by deleting the entries least
//! recently used (their modification time, refreshed by a hit once it is an hour old).

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use twox_hash::{XxHash3_128, XxHash3_64};

use super::quantise::Converted;
use super::{BlendClass, TextureDepth};
use crate::scene::{RgbaImage, SourceId, TextureImage};

/// The entry layouts and what wrote them (the converter, the decoders): bumped whenever one
/// changes, so an entry an older program wrote differently is a miss, never a texture.
pub const FORMAT: u32 = 3;

/// The size limit of a folder when none is given: 1 GiB.
pub const DEFAULT_LIMIT: u64 = 1 << 30;

/// Every entry of texels begins with these bytes.
const MAGIC: &[u8; 8] = b"PSXTEX\0\x02";

/// Bytes before the texels: magic, key, width, height, depth, CLUT length, texel count.
const HEADER: usize = 8 + 16 + 2 + 2 + 1 + 2 + 4;

/// Longest entry read: the biggest, a 256×256 15-bit texture, is 128 KiB and a few header bytes;
/// a longer file is not an entry, and is not read into memory.
const MAX_ENTRY: u64 = 1 << 18;

/// Entry files of texels end with this.
const SUFFIX: &str = "tex";

/// Every facts entry begins with these bytes.
const FACTS_MAGIC: &[u8; 8] = b"PSXSRC\0\x02";

/// A facts entry: magic, source id, width, height, flags, checksum.
const FACTS_LEN: usize = 8 + 16 + 4 + 4 + 1 + 8;

/// Facts entry files end with this.
const FACTS_SUFFIX: &str = "src";

/// A temporary file older than this was left by a process that died while writing it.
const STALE: Duration = Duration::from_secs(3600);

/// A hit re-stamps an entry only when its stamp is older than this, so a warm run reads its
/// entries without writing to the folder (an open and a time change a hit saved): the trim's
/// "least recently used" is then exact to this, and an entry used since is never dropped
/// before one unused for longer.
const RESTAMP_AFTER: Duration = Duration::from_secs(3600);

/// What an entry is named by: a 128-bit hash of what the texels depend on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Key(u128);

/// A hash of a texture's source, computed once and combined with each encoding asked for:
/// its [`SourceId`] when the loader gave one (the pixels are not looked at, nor decoded), else
/// its size and pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ImageHash(u128);

impl ImageHash {
    pub(super) fn of(img: &TextureImage) -> ImageHash {
        let mut h = XxHash3_128::new();
        match img.source() {
            Some(id) => {
                h.write(b"source");
                h.write(&id.0.to_le_bytes());
            }
            None => {
                h.write(b"pixels");
                h.write(&img.width.to_le_bytes());
                h.write(&img.height.to_le_bytes());
                h.write(img.pixels.as_flattened());
            }
        }
        ImageHash(h.finish_128())
    }
}

/// The id of a texture file's `bytes` decoded by `decoder` (a name that changes when the way
/// the loader turns those bytes into pixels does, e.g. `"nwn dds"`), in this version of the
/// program: what a loader names a texture by for the cache.
pub fn source_id(decoder: &str, bytes: &[u8]) -> SourceId {
    let mut h = XxHash3_128::new();
    h.write(&(decoder.len() as u64).to_le_bytes());
    h.write(decoder.as_bytes());
    h.write(&(bytes.len() as u64).to_le_bytes());
    h.write(bytes);
    h.write(&FORMAT.to_le_bytes());
    h.write(env!("CARGO_PKG_VERSION").as_bytes());
    SourceId(h.finish_128())
}

/// What loaders need to know of a decoded texture before anything is drawn, so that one whose
/// facts are cached can be left undecoded until (and unless) its pixels are asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SourceFacts {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Some pixel's alpha is below 255.
    pub translucent: bool,
}

impl SourceFacts {
    /// The facts of `img`.
    pub fn of(img: &RgbaImage) -> SourceFacts {
        SourceFacts {
            width: img.width,
            height: img.height,
            translucent: img.pixels.iter().any(|p| p[3] < 255),
        }
    }
}

impl Key {
    pub(super) fn new(
        image: ImageHash,
        class: BlendClass,
        depth: TextureDepth,
        shrink: u32,
    ) -> Key {
        let mut h = XxHash3_128::new();
        h.write(&image.0.to_le_bytes());
        h.write(&[class as u8, depth_code(depth)]);
        h.write(&shrink.to_le_bytes());
        h.write(&FORMAT.to_le_bytes());
        h.write(env!("CARGO_PKG_VERSION").as_bytes());
        Key(h.finish_128())
    }
}

fn depth_code(depth: TextureDepth) -> u8 {
    match depth {
        TextureDepth::Auto => 0,
        TextureDepth::Bpp4 => 1,
        TextureDepth::Bpp8 => 2,
        TextureDepth::Bpp15 => 3,
    }
}

/// A cache folder and its size limit. Nothing is read or written until a texture is looked
/// up; the folder is created by the first entry written.
#[derive(Debug)]
pub struct TextureCache {
    dir: PathBuf,
    limit: u64,
    /// Names temporary files apart within this process.
    serial: AtomicU64,
}

/// Two caches are the same when they are the same folder with the same limit.
impl PartialEq for TextureCache {
    fn eq(&self, other: &Self) -> bool {
        self.dir == other.dir && self.limit == other.limit
    }
}

/// One entry written in this many (by key) trims the folder: a trim lists the whole folder, so
/// it is not done for every entry, and keys are uniform, so whichever processes write, the
/// folder passes its limit by about this many entries at most between trims.
const TRIM_EVERY: u128 = 64;

impl TextureCache {
    /// The cache in `dir`, kept under `limit` bytes.
    pub fn new(dir: &Path, limit: u64) -> TextureCache {
        TextureCache {
            dir: dir.to_path_buf(),
            limit,
            serial: AtomicU64::new(0),
        }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, key: Key) -> PathBuf {
        self.dir.join(format!("{:032x}.{SUFFIX}", key.0))
    }

    fn facts_path(&self, id: SourceId) -> PathBuf {
        self.dir.join(format!("{:032x}.{FACTS_SUFFIX}", id.0))
    }

    /// The entry for `key`, if there is a whole and sound one.
    pub(super) fn get(&self, key: Key) -> Option<Converted> {
        self.read(&self.path(key), |bytes| decode(bytes, key))
    }

    /// Stores `c` as the entry for `key`.
    pub(super) fn put(&self, key: Key, c: &Converted) {
        self.write(&self.path(key), key.0, &encode(key, c));
    }

    /// The facts of source `id`, if there is a whole and sound entry of them.
    pub fn facts(&self, id: SourceId) -> Option<SourceFacts> {
        self.read(&self.facts_path(id), |bytes| decode_facts(bytes, id))
    }

    /// Stores `facts` as those of source `id`.
    pub fn put_facts(&self, id: SourceId, facts: SourceFacts) {
        self.write(&self.facts_path(id), id.0, &encode_facts(id, facts));
    }

    /// The entry at `path` as `decode` reads it, marked as used when its stamp is older than
    /// [`RESTAMP_AFTER`].
    fn read<T>(&self, path: &Path, decode: impl FnOnce(&[u8]) -> Option<T>) -> Option<T> {
        let mut file = fs::File::open(path).ok()?;
        let meta = file.metadata().ok()?;
        // Entries are replaced by renames, never written in place: the open file keeps the
        // length its metadata gave.
        if meta.len() > MAX_ENTRY {
            return None;
        }
        let mut bytes = vec![0; usize::try_from(meta.len()).ok()?];
        file.read_exact(&mut bytes).ok()?;
        let value = decode(&bytes)?;
        // Recently used: a trim keeps it over entries not used since.
        let now = SystemTime::now();
        let stamped = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
        if now.duration_since(stamped).unwrap_or_default() > RESTAMP_AFTER {
            if let Ok(f) = fs::File::options().append(true).open(path) {
                let _ = f.set_modified(now);
            }
        }
        Some(value)
    }

    /// Writes `bytes` as the entry at `path` (named by `name`): whole to a temporary file,
    /// then renamed into place. A cache that cannot be written is only slower, so failures
    /// are not reported.
    fn write(&self, path: &Path, name: u128, bytes: &[u8]) {
        let tmp = self.dir.join(format!(
            ".tmp-{}-{}-{name:032x}",
            std::process::id(),
            self.serial.fetch_add(1, Ordering::Relaxed),
        ));
        let written = fs::create_dir_all(&self.dir)
            .and_then(|()| fs::File::create(&tmp))
            .and_then(|mut f| f.write_all(bytes))
            .and_then(|()| fs::rename(&tmp, path));
        if written.is_err() {
            let _ = fs::remove_file(&tmp);
        } else if name.is_multiple_of(TRIM_EVERY) {
            self.trim();
        }
    }

    /// Deletes the least recently used entries until the rest fit in the limit, and
    /// temporary files left by processes that died while writing them.
    pub fn trim(&self) {
        let Ok(list) = fs::read_dir(&self.dir) else {
            return;
        };
        let now = SystemTime::now();
        let mut entries = Vec::new();
        let mut total = 0u64;
        for e in list.flatten() {
            let name = e.file_name();
            let name = name.to_string_lossy();
            let Ok(meta) = e.metadata() else { continue };
            let modified = meta.modified().unwrap_or(now);
            if name.starts_with(".tmp-") {
                if now.duration_since(modified).unwrap_or_default() > STALE {
                    let _ = fs::remove_file(e.path());
                }
            } else if (name.ends_with(SUFFIX) || name.ends_with(FACTS_SUFFIX)) && meta.is_file() {
                total += meta.len();
                entries.push((modified, meta.len(), e.path()));
            }
        }
        entries.sort();
        for (_, len, path) in entries {
            if total <= self.limit {
                break;
            }
            // Another process may have deleted it first; it is gone either way.
            let _ = fs::remove_file(path);
            total -= len;
        }
    }
}

/// The bytes of the entry for `key` holding `c`.
fn encode(key: Key, c: &Converted) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + 2 * (c.palette.len() + c.data.len()) + 8);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&key.0.to_le_bytes());
    out.extend_from_slice(&c.w.to_le_bytes());
    out.extend_from_slice(&c.h.to_le_bytes());
    out.push(c.depth);
    out.extend_from_slice(&(c.palette.len() as u16).to_le_bytes());
    out.extend_from_slice(&(c.data.len() as u32).to_le_bytes());
    for v in c.palette.iter().chain(&c.data) {
        out.extend_from_slice(&v.to_le_bytes());
    }
    let sum = XxHash3_64::oneshot(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// The texture in `bytes` if they are a whole, sound entry for `key`: right magic and key, a
/// shape the converter makes, the length that shape needs, and a matching checksum.
fn decode(bytes: &[u8], key: Key) -> Option<Converted> {
    let body_len = bytes.len().checked_sub(8)?;
    let (body, sum) = bytes.split_at(body_len);
    if body.len() < HEADER || u64::from_le_bytes(sum.try_into().ok()?) != XxHash3_64::oneshot(body)
    {
        return None;
    }
    if &body[..8] != MAGIC || u128::from_le_bytes(body[8..24].try_into().ok()?) != key.0 {
        return None;
    }
    let u16_at = |at: usize| u16::from_le_bytes([body[at], body[at + 1]]);
    let (w, h, depth) = (u16_at(24), u16_at(26), body[28]);
    let clut = usize::from(u16_at(29));
    let count = u32::from_le_bytes(body[31..35].try_into().ok()?) as usize;
    let side_ok = |s: u16| s.is_power_of_two() && (8..=256).contains(&s);
    let (texels_per_word, clut_len) = match depth {
        0 => (4, 16),
        1 => (2, 256),
        2 => (1, 0),
        _ => return None,
    };
    if !side_ok(w)
        || !side_ok(h)
        || clut != clut_len
        || count != usize::from(w) * usize::from(h) / texels_per_word
        || body.len() != HEADER + 2 * (clut + count)
    {
        return None;
    }
    let words: Vec<u16> = body[HEADER..]
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect();
    let (palette, data) = words.split_at(clut);
    Some(Converted {
        w,
        h,
        depth,
        data: data.to_vec(),
        palette: palette.to_vec(),
    })
}

/// The bytes of the facts entry of source `id`.
fn encode_facts(id: SourceId, facts: SourceFacts) -> Vec<u8> {
    let mut out = Vec::with_capacity(FACTS_LEN);
    out.extend_from_slice(FACTS_MAGIC);
    out.extend_from_slice(&id.0.to_le_bytes());
    out.extend_from_slice(&facts.width.to_le_bytes());
    out.extend_from_slice(&facts.height.to_le_bytes());
    out.push(u8::from(facts.translucent));
    let sum = XxHash3_64::oneshot(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// The facts in `bytes` if they are a whole, sound facts entry of source `id`: right length,
/// magic and id, a size the loaders accept, and a matching checksum.
fn decode_facts(bytes: &[u8], id: SourceId) -> Option<SourceFacts> {
    if bytes.len() != FACTS_LEN {
        return None;
    }
    let (body, sum) = bytes.split_at(FACTS_LEN - 8);
    if u64::from_le_bytes(sum.try_into().ok()?) != XxHash3_64::oneshot(body)
        || &body[..8] != FACTS_MAGIC
        || u128::from_le_bytes(body[8..24].try_into().ok()?) != id.0
    {
        return None;
    }
    let u32_at =
        |at: usize| u32::from_le_bytes([body[at], body[at + 1], body[at + 2], body[at + 3]]);
    let (width, height) = (u32_at(24), u32_at(28));
    let pixels = u64::from(width) * u64::from(height);
    if pixels == 0 || pixels > super::MAX_SOURCE_PIXELS as u64 || body[32] > 1 {
        return None;
    }
    Some(SourceFacts {
        width,
        height,
        translucent: body[32] == 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch folder of this process, removed when dropped.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Scratch {
            let dir = std::env::temp_dir().join(format!(
                "psxrender-texture-cache-{}-{name}",
                std::process::id()
            ));
            let _ = fs::remove_dir_all(&dir);
            Scratch(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn sample(seed: u16) -> Converted {
        Converted {
            w: 8,
            h: 16,
            depth: 0,
            data: (0..32).map(|i| i * 7 + seed).collect(),
            palette: (0..16).map(|i| i * 1000 + seed).collect(),
        }
    }

    fn key(n: u128) -> Key {
        Key(n.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835) | 1)
    }

    fn same(a: &Converted, b: &Converted) -> bool {
        (a.w, a.h, a.depth, &a.data, &a.palette) == (b.w, b.h, b.depth, &b.data, &b.palette)
    }

    #[test]
    fn an_entry_reads_back_as_written() {
        let s = Scratch::new("roundtrip");
        let cache = TextureCache::new(&s.0, DEFAULT_LIMIT);
        assert!(cache.get(key(1)).is_none(), "empty cache");
        cache.put(key(1), &sample(3));
        assert!(same(&cache.get(key(1)).unwrap(), &sample(3)));
        assert!(cache.get(key(2)).is_none(), "another key");
        let direct = Converted {
            w: 256,
            h: 8,
            depth: 2,
            data: (0..2048).collect(),
            palette: Vec::new(),
        };
        cache.put(key(2), &direct);
        assert!(same(&cache.get(key(2)).unwrap(), &direct));
    }

    #[test]
    fn a_truncated_or_damaged_entry_is_a_miss() {
        let s = Scratch::new("damaged");
        let cache = TextureCache::new(&s.0, DEFAULT_LIMIT);
        let k = key(7);
        let whole = encode(k, &sample(5));
        assert!(decode(&whole, k).is_some());
        for len in 0..whole.len() {
            assert!(decode(&whole[..len], k).is_none(), "cut at {len}");
        }
        for at in 0..whole.len() {
            for bit in [0x01, 0x80] {
                let mut bad = whole.clone();
                bad[at] ^= bit;
                assert!(decode(&bad, k).is_none(), "bit {bit:#x} of byte {at}");
            }
        }
        let mut longer = whole.clone();
        longer.push(0);
        assert!(decode(&longer, k).is_none(), "a byte too many");
        assert!(decode(&whole, key(8)).is_none(), "another key's entry");
        // The same through the folder: every truncation of the file on disk is a miss.
        cache.put(k, &sample(5));
        for len in 0..whole.len() {
            fs::write(cache.path(k), &whole[..len]).unwrap();
            assert!(cache.get(k).is_none(), "file cut at {len}");
        }
    }

    #[test]
    fn facts_read_back_and_a_truncated_or_damaged_facts_entry_is_a_miss() {
        let s = Scratch::new("facts");
        let cache = TextureCache::new(&s.0, DEFAULT_LIMIT);
        let id = source_id("test", b"some texture file");
        assert_ne!(
            id,
            source_id("test2", b"some texture file"),
            "the decoder counts"
        );
        assert_ne!(
            id,
            source_id("test", b"some texture filf"),
            "every byte counts"
        );
        let facts = SourceFacts {
            width: 640,
            height: 8,
            translucent: true,
        };
        assert!(cache.facts(id).is_none(), "empty cache");
        cache.put_facts(id, facts);
        assert_eq!(cache.facts(id), Some(facts));
        let whole = encode_facts(id, facts);
        for len in 0..whole.len() {
            fs::write(cache.facts_path(id), &whole[..len]).unwrap();
            assert!(cache.facts(id).is_none(), "file cut at {len}");
        }
        for at in 0..whole.len() {
            let mut bad = whole.clone();
            bad[at] ^= 0x10;
            assert!(decode_facts(&bad, id).is_none(), "byte {at} damaged");
        }
        assert!(
            decode_facts(&whole, SourceId(id.0 ^ 1)).is_none(),
            "another id"
        );
    }

    #[test]
    fn trimming_drops_the_least_recently_used_entries() {
        let s = Scratch::new("trim");
        let size = encode(key(0), &sample(0)).len() as u64;
        // Room for three entries.
        let cache = TextureCache::new(&s.0, 3 * size + size / 2);
        let t0 = SystemTime::now() - 2 * RESTAMP_AFTER;
        for n in 0..5u16 {
            cache.put(key(u128::from(n)), &sample(n));
            let f = fs::File::options()
                .append(true)
                .open(cache.path(key(u128::from(n))))
                .unwrap();
            f.set_modified(t0 + Duration::from_secs(u64::from(n) * 10))
                .unwrap();
        }
        // Entry 0, the oldest, is used now, so 1 and 2 are the least recently used.
        assert!(cache.get(key(0)).is_some());
        // A hit on an entry stamped within the hour leaves its stamp.
        let recent = SystemTime::now() - RESTAMP_AFTER / 2;
        let f = fs::File::options().append(true).open(cache.path(key(4)));
        f.unwrap().set_modified(recent).unwrap();
        assert!(cache.get(key(4)).is_some());
        let stamp = fs::metadata(cache.path(key(4)))
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(stamp, recent);
        let stale = s.0.join(".tmp-1-2-3");
        fs::write(&stale, b"left by a dead process").unwrap();
        fs::File::options()
            .append(true)
            .open(&stale)
            .unwrap()
            .set_modified(SystemTime::now() - 2 * STALE)
            .unwrap();
        cache.trim();
        let kept: Vec<bool> = (0..5).map(|n| cache.path(key(n)).exists()).collect();
        assert_eq!(kept, [true, false, false, true, true]);
        assert!(!stale.exists(), "a stale temporary file is removed");
    }

    #[test]
    fn writers_at_once_leave_only_whole_entries() {
        let s = Scratch::new("concurrent");
        std::thread::scope(|scope| {
            for t in 0..4u16 {
                let dir = s.0.clone();
                scope.spawn(move || {
                    // Each thread its own cache, as separate processes have.
                    let cache = TextureCache::new(&dir, DEFAULT_LIMIT);
                    for round in 0..50u16 {
                        let n = round % 10;
                        cache.put(key(u128::from(n)), &sample(n));
                        if let Some(c) = cache.get(key(u128::from((n + t) % 10))) {
                            assert!(same(&c, &sample((n + t) % 10)));
                        }
                    }
                });
            }
        });
        let names: Vec<String> = fs::read_dir(&s.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 10, "{names:?}");
        let cache = TextureCache::new(&s.0, DEFAULT_LIMIT);
        for n in 0..10u16 {
            assert!(same(&cache.get(key(u128::from(n))).unwrap(), &sample(n)));
        }
    }
}
