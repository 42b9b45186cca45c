//! The batch's hashes, written as 32 hex digits: 128-bit FNV-1a of short fields (a job's options,
//! its key for the shard split) and XXH3-128 of files' contents (models, textures, outputs, the
//! manifest), which a batch reads for every job: XXH3 takes a fraction of an instruction a byte
//! where FNV-1a takes ten. They detect changed inputs and outputs and spread jobs over shards;
//! they are not a defence against someone crafting collisions (a batch trusts its own files).

use std::io::{self, Read};
use std::path::Path;

const OFFSET: u128 = 0x6c62272e07bb014262b821756295c58d;
const PRIME: u128 = 0x0000000001000000000000000000013b;

/// An FNV-1a 128 hash being computed.
#[derive(Clone, Copy, Debug)]
pub struct Hasher(u128);

impl Default for Hasher {
    fn default() -> Self {
        Hasher(OFFSET)
    }
}

impl Hasher {
    /// Adds bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u128::from(b)).wrapping_mul(PRIME);
        }
    }

    /// Adds a string and a separator, so `("ab","c")` and `("a","bc")` differ.
    pub fn field(&mut self, s: &str) {
        self.update(s.as_bytes());
        self.update(&[0]);
    }

    /// The hash value.
    pub fn value(&self) -> u128 {
        self.0
    }

    /// The hash as 32 lowercase hex digits.
    pub fn hex(&self) -> String {
        format!("{:032x}", self.0)
    }
}

/// The hash of `bytes`.
pub fn of(bytes: &[u8]) -> Hasher {
    let mut h = Hasher::default();
    h.update(bytes);
    h
}

/// The hex XXH3-128 of a file's contents, read in pieces.
pub fn file(path: &Path) -> io::Result<String> {
    let mut f = std::fs::File::open(path)?;
    let mut h = twox_hash::XxHash3_128::new();
    let mut buf = [0u8; 16 << 10];
    loop {
        match f.read(&mut buf) {
            Ok(0) => return Ok(format!("{:032x}", h.finish_128())),
            Ok(n) => h.write(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        // FNV-1a 128 of "" is the offset basis; of "a" per the published test vector.
        assert_eq!(of(b"").hex(), "6c62272e07bb014262b821756295c58d");
        assert_eq!(of(b"a").hex(), "d228cb696f1a8caf78912b704e4a8964");
        let (mut a, mut b) = (Hasher::default(), Hasher::default());
        a.field("ab");
        a.field("c");
        b.field("a");
        b.field("bc");
        assert_ne!(a.hex(), b.hex());
    }

    #[test]
    fn a_file_read_in_pieces_hashes_as_its_bytes_at_once() {
        let dir = std::env::temp_dir().join(format!("psxr-hash-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("f.bin");
        // Past several reads, not a multiple of the piece.
        let bytes: Vec<u8> = (0..100_003u32).map(|i| (i * 7 + i / 251) as u8).collect();
        std::fs::write(&p, &bytes).unwrap();
        let want = format!("{:032x}", twox_hash::XxHash3_128::oneshot(&bytes));
        assert_eq!(file(&p).unwrap(), want);
        std::fs::write(&p, b"").unwrap();
        let empty = format!("{:032x}", twox_hash::XxHash3_128::oneshot(b""));
        assert_eq!(file(&p).unwrap(), empty);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
