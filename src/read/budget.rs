//! A load's read budget: the bytes one load may read out of arrays (and build from them), in
//! proportion to its input. Each count a file holds is capped on its own, but nothing stops many
//! of them pointing at one region of the file — 4096 M2 bones whose tracks claim one block of
//! keys, 255 FF9 groups sharing one polygon list, NWN nodes shared by several parents — so only
//! a total over the whole load keeps what a small file costs proportional to its size. Every
//! array is charged before anything is allocated for it.

use super::{ErrorKind, LoadError, Result};
use std::cell::Cell;

/// How large a budget an input gets: `base` bytes whatever its size, so tiny hand-made files are
/// never refused, plus `per_input_byte` for each byte read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rate {
    /// Bytes every load may read.
    pub base: u64,
    /// Bytes more per byte of input.
    pub per_input_byte: u64,
}

impl Rate {
    /// The limit for `input` bytes of input.
    pub const fn limit(&self, input: u64) -> u64 {
        self.base
            .saturating_add(input.saturating_mul(self.per_input_byte))
    }
}

/// The binary model formats' rate (NWN, M2, FF9): a well-formed model reads each byte of its
/// arrays once, and four times leaves room for exporters that point several tracks, nodes or
/// groups at one block.
pub const MODELS: Rate = Rate {
    base: 1 << 20,
    per_input_byte: 4,
};

/// Bytes one load may still read, charged as it reads (shared by reference: loaders hand it
/// down their parse, so it counts through `&self`).
#[derive(Debug)]
pub struct ReadBudget {
    format: &'static str,
    rate: Rate,
    limit: Cell<u64>,
    used: Cell<u64>,
}

impl ReadBudget {
    /// The budget of `input` bytes of `format` (the name its errors carry) at `rate`.
    pub fn new(format: &'static str, rate: Rate, input: u64) -> ReadBudget {
        ReadBudget {
            format,
            rate,
            limit: Cell::new(rate.limit(input)),
            used: Cell::new(0),
        }
    }

    /// More input was read (a file the model names): the limit grows at the same rate.
    pub fn add_input(&self, bytes: u64) {
        let more = bytes.saturating_mul(self.rate.per_input_byte);
        self.limit.set(self.limit.get().saturating_add(more));
    }

    /// Charges `bytes` of `what`, whose count or pointer is at `at`; fails with
    /// `CountTooLarge` there, charging nothing, when the total would pass the limit.
    pub fn charge(&self, at: u64, bytes: u64, what: &'static str) -> Result<()> {
        let total = self.used.get().saturating_add(bytes);
        if total > self.limit.get() {
            return Err(LoadError::new(
                self.format,
                at,
                ErrorKind::CountTooLarge {
                    what,
                    count: total,
                    max: self.limit.get(),
                },
            ));
        }
        self.used.set(total);
        Ok(())
    }

    /// Bytes charged so far.
    pub fn used(&self) -> u64 {
        self.used.get()
    }

    /// The limit in force.
    pub fn limit(&self) -> u64 {
        self.limit.get()
    }

    /// Bytes still free.
    pub fn remaining(&self) -> u64 {
        self.limit.get().saturating_sub(self.used.get())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Charges add up to the limit exactly; the one that would pass it is refused where it
    /// was read, naming the total and the limit, and leaves the budget as it was.
    #[test]
    fn charges_stop_at_the_limit() {
        let b = ReadBudget::new("test", MODELS, 10);
        assert_eq!(b.limit(), (1 << 20) + 40);
        b.charge(4, (1 << 20) + 30, "arrays").unwrap();
        b.charge(8, 10, "arrays").unwrap();
        let e = b.charge(0x1c, 1, "keys").unwrap_err();
        assert_eq!(e.offset, 0x1c);
        assert!(matches!(
            e.kind,
            ErrorKind::CountTooLarge { what: "keys", count, max }
                if count == (1 << 20) + 41 && max == (1 << 20) + 40
        ));
        assert_eq!((b.used(), b.remaining()), (b.limit(), 0));
        b.add_input(1);
        b.charge(0, 4, "keys").unwrap();
        assert_eq!(b.remaining(), 0);
        assert_eq!(ReadBudget::new("t", MODELS, u64::MAX).limit(), u64::MAX);
    }
}
