//! The ordering table: one linked list of packets per depth slot, drawn from the far end to the
//! near end, exactly as a game's `ClearOTagR` + `addPrim` + `DrawOTag` would.
//!
//! Size: [`OT_LEN`] = 4096 slots. The GTE's AVSZ3/AVSZ4 give OTZ = ZSF × ΣSZ >> 12; the renderer
//! loads ZSF3 = 4096·4096 / (3·zfar) and ZSF4 = 4096·4096 / (4·zfar) (both clamped to int16),
//! where zfar is the camera-space depth of the far side of the model's bounding sphere, so the
//! model spans the table. OTZ beyond the table is clamped into the last slot. Within one slot the
//! last packet added is drawn first (`addPrim` prepends), as on the console.

/// Number of depth slots.
pub const OT_LEN: usize = 4096;

const NIL: u32 = u32::MAX;

/// An ordering table of GP0 packets.
#[derive(Clone, Debug)]
pub struct OrderingTable {
    heads: Vec<u32>,
    /// (start, len, next) per packet; words live in `words`.
    packets: Vec<(u32, u32, u32)>,
    words: Vec<u32>,
}

impl Default for OrderingTable {
    fn default() -> Self {
        Self::new()
    }
}

impl OrderingTable {
    /// An empty table.
    pub fn new() -> Self {
        OrderingTable {
            heads: vec![NIL; OT_LEN],
            packets: Vec::new(),
            words: Vec::new(),
        }
    }

    /// Empties every slot (`ClearOTagR`), keeping the allocations.
    pub fn clear(&mut self) {
        self.heads.fill(NIL);
        self.packets.clear();
        self.words.clear();
    }

    /// Number of packets held.
    pub fn len(&self) -> usize {
        self.packets.len()
    }

    /// True when no packet is held.
    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }

    /// Adds a packet at depth `otz` (`addPrim`): `write` appends its words.
    pub fn add(&mut self, otz: u32, write: impl FnOnce(&mut Vec<u32>)) {
        let slot = (otz as usize).min(OT_LEN - 1);
        let start = self.words.len();
        write(&mut self.words);
        let len = self.words.len() - start;
        if len == 0 {
            return;
        }
        self.packets
            .push((start as u32, len as u32, self.heads[slot]));
        self.heads[slot] = (self.packets.len() - 1) as u32;
    }

    /// Appends every packet, far slots first (`DrawOTag` on a reversed table).
    pub fn drain_into(&self, out: &mut Vec<u32>) {
        out.reserve(self.words.len());
        for &head in self.heads.iter().rev() {
            let mut p = head;
            while p != NIL {
                let (start, len, next) = self.packets[p as usize];
                out.extend_from_slice(&self.words[start as usize..(start + len) as usize]);
                p = next;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn far_first_and_last_added_first_within_a_slot() {
        let mut ot = OrderingTable::new();
        ot.add(5, |w| w.push(1));
        ot.add(100, |w| w.push(2));
        ot.add(5, |w| w.push(3));
        ot.add(1_000_000, |w| w.extend([4, 4]));
        let mut out = Vec::new();
        ot.drain_into(&mut out);
        assert_eq!(out, [4, 4, 2, 3, 1]);
        ot.clear();
        assert!(ot.is_empty());
    }
}
