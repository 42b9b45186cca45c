//! Every read of a file goes through [`Reader`]: bounds-checked, little-endian, and every
//! failure an error naming the byte offset.

use super::error::{ErrorKind, LoadError, Result};

/// A bounds-checked view of a whole file. Offsets are absolute file offsets; `base` lets a
/// format whose pointers are relative to a section (NWN model data at byte 12) say so once.
#[derive(Clone, Copy)]
pub struct Reader<'a> {
    data: &'a [u8],
    format: &'static str,
}

macro_rules! read_int {
    ($name:ident, $ty:ty, $n:expr) => {
        #[doc = concat!("Reads a little-endian `", stringify!($ty), "` at `off`.")]
        pub fn $name(&self, off: u64, what: &'static str) -> Result<$ty> {
            let b = self.bytes(off, $n, what)?;
            Ok(<$ty>::from_le_bytes(b.try_into().expect("length checked")))
        }
    };
}

impl<'a> Reader<'a> {
    /// A reader over `data`, whose errors say they are in a `format` file.
    pub fn new(data: &'a [u8], format: &'static str) -> Self {
        Reader { data, format }
    }

    /// The whole file.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// File length in bytes.
    pub fn len(&self) -> u64 {
        self.data.len() as u64
    }

    /// True for an empty file.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The format name errors carry.
    pub fn format(&self) -> &'static str {
        self.format
    }

    /// An error of this reader's format at `off`.
    pub fn error(&self, off: u64, kind: ErrorKind) -> LoadError {
        LoadError::new(self.format, off, kind)
    }

    /// An `Invalid` error at `off`.
    pub fn invalid(&self, off: u64, msg: impl Into<String>) -> LoadError {
        LoadError::invalid(self.format, off, msg)
    }

    /// `len` bytes at `off`; `UnexpectedEof` if the file is shorter.
    pub fn bytes(&self, off: u64, len: u64, what: &'static str) -> Result<&'a [u8]> {
        let end = off.checked_add(len);
        match end {
            Some(end) if end <= self.len() => Ok(&self.data[off as usize..end as usize]),
            _ => Err(self.error(off, ErrorKind::UnexpectedEof { what, len })),
        }
    }

    /// An array of `count` elements of `size` bytes at `off`, checked before anything is
    /// allocated: `OutOfBounds` (reported at `at`, where the pointer was read) if it does not
    /// fit in the file.
    pub fn array(
        &self,
        at: u64,
        off: u64,
        count: u64,
        size: u64,
        what: &'static str,
    ) -> Result<&'a [u8]> {
        let len = count.checked_mul(size);
        match len.and_then(|l| off.checked_add(l)) {
            Some(end) if end <= self.len() => Ok(&self.data[off as usize..end as usize]),
            _ => Err(self.error(
                at,
                ErrorKind::OutOfBounds {
                    what,
                    target: off,
                    len: len.unwrap_or(u64::MAX),
                },
            )),
        }
    }

    /// Fails with `CountTooLarge` at `off` when `count > max`.
    pub fn check_count(&self, off: u64, count: u64, max: u64, what: &'static str) -> Result<u64> {
        if count > max {
            Err(self.error(off, ErrorKind::CountTooLarge { what, count, max }))
        } else {
            Ok(count)
        }
    }

    read_int!(u8_at, u8, 1);
    read_int!(i8_at, i8, 1);
    read_int!(u16_at, u16, 2);
    read_int!(i16_at, i16, 2);
    read_int!(u32_at, u32, 4);
    read_int!(i32_at, i32, 4);
    read_int!(u64_at, u64, 8);

    /// A little-endian `f32` at `off`.
    pub fn f32_at(&self, off: u64, what: &'static str) -> Result<f32> {
        Ok(f32::from_bits(self.u32_at(off, what)?))
    }

    /// An unsigned 24-bit little-endian integer at `off`.
    pub fn u24_at(&self, off: u64, what: &'static str) -> Result<u32> {
        let b = self.bytes(off, 3, what)?;
        Ok(u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16)
    }

    /// A NUL-terminated (or `max`-byte) string at `off`, lossily decoded.
    pub fn cstr_at(&self, off: u64, max: u64, what: &'static str) -> Result<String> {
        let avail = self.len().saturating_sub(off).min(max);
        let b = self.bytes(off, avail, what)?;
        if avail == 0 && max > 0 {
            return Err(self.error(off, ErrorKind::UnexpectedEof { what, len: 1 }));
        }
        let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
        Ok(String::from_utf8_lossy(&b[..end]).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_little_endian_and_bounded() {
        let r = Reader::new(&[1, 2, 3, 4, 5], "test");
        assert_eq!(r.u32_at(0, "x").unwrap(), 0x0403_0201);
        assert_eq!(r.u24_at(2, "x").unwrap(), 0x05_0403);
        let e = r.u32_at(2, "field").unwrap_err();
        assert_eq!(e.offset, 2);
        assert!(e.to_string().contains("field"), "{e}");
        assert!(r.u32_at(u64::MAX - 1, "x").is_err());
    }

    #[test]
    fn arrays_are_checked_before_allocation() {
        let r = Reader::new(&[0; 16], "test");
        assert_eq!(r.array(0, 4, 3, 4, "a").unwrap().len(), 12);
        let e = r.array(8, 4, u64::MAX / 2, 4, "a").unwrap_err();
        assert_eq!(e.offset, 8);
        assert!(matches!(e.kind, ErrorKind::OutOfBounds { .. }));
    }

    #[test]
    fn cstr_stops_at_nul_or_max() {
        let r = Reader::new(b"abc\0def", "test");
        assert_eq!(r.cstr_at(0, 32, "s").unwrap(), "abc");
        assert_eq!(r.cstr_at(4, 2, "s").unwrap(), "de");
        assert_eq!(r.cstr_at(4, 32, "s").unwrap(), "def");
        assert!(r.cstr_at(7, 32, "s").is_err());
    }
}
