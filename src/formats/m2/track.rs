//! M2 animation tracks ("AnimationBlock", ≤263 layout, 28 bytes): interpolation type, global
//! sequence, per-sequence key ranges, timestamps (ms) and values, all on one shared timeline.
//!
//! Sampling (format-notes §2.2, WMVx `RangeBasedAnimatedValue` read for facts): a track on a
//! global sequence loops over all its keys with `time % globalSequences[g]`; otherwise the
//! sequence's `(first, last)` key range is used, `first == last` meaning a constant. Hermite and
//! Bezier tracks store `(value, in-tangent, out-tangent)` per key.

use super::{M2Array, ReadBudget};
use crate::formats::error::Result;
use crate::formats::reader::Reader;
use crate::math::{normalize4, slerp, Quat};

/// Size of a track header in files ≤ 263.
pub const TRACK_SIZE: u64 = 28;
/// Most keys one track may hold.
pub const MAX_KEYS: u64 = 1 << 20;

/// Interpolation between keys (the u16 at the start of a track).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    /// 0: hold each key until the next.
    None,
    /// 1: linear (slerp for rotations).
    Linear,
    /// 2: cubic Hermite with stored tangents.
    Hermite,
    /// 3: cubic Bezier with stored control points.
    Bezier,
}

/// A value a track can hold and blend.
pub trait Key: Copy {
    /// Linear blend (slerp for quaternions).
    fn lerp(a: Self, b: Self, t: f32) -> Self;
    /// Weighted sum of four values (cubic bases).
    fn combine(v: [Self; 4], w: [f32; 4]) -> Self;
}

impl Key for f32 {
    fn lerp(a: f32, b: f32, t: f32) -> f32 {
        a + (b - a) * t
    }
    fn combine(v: [f32; 4], w: [f32; 4]) -> f32 {
        v.iter().zip(w).map(|(v, w)| v * w).sum()
    }
}

impl Key for [f32; 3] {
    fn lerp(a: Self, b: Self, t: f32) -> Self {
        std::array::from_fn(|i| a[i] + (b[i] - a[i]) * t)
    }
    fn combine(v: [Self; 4], w: [f32; 4]) -> Self {
        std::array::from_fn(|i| (0..4).map(|k| v[k][i] * w[k]).sum())
    }
}

/// Quaternion keys: slerp; cubic forms are blended component-wise then normalised.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rot(pub Quat);

impl Key for Rot {
    fn lerp(a: Self, b: Self, t: f32) -> Self {
        Rot(slerp(a.0, b.0, t))
    }
    fn combine(v: [Self; 4], w: [f32; 4]) -> Self {
        Rot(normalize4(std::array::from_fn(|i| {
            (0..4).map(|k| v[k].0[i] * w[k]).sum()
        })))
    }
}

/// When to sample: the sequence and the times that apply.
#[derive(Clone, Copy, Debug)]
pub struct Time {
    /// Sequence index, `None` for the rest pose.
    pub sequence: Option<usize>,
    /// Time on the shared timeline (sequence start + local time), ms.
    pub ms: u32,
    /// Time since the animation started, for global sequences, ms.
    pub global_ms: u32,
}

/// One animated value.
#[derive(Clone, Debug, PartialEq)]
pub struct Track<T> {
    /// How keys blend.
    pub interpolation: Interpolation,
    /// Global sequence index, if the track loops on one.
    pub global_sequence: Option<usize>,
    /// Per-sequence `(first, last)` key indices.
    pub ranges: Vec<(u32, u32)>,
    /// Key times (ms).
    pub times: Vec<u32>,
    /// Key values.
    pub values: Vec<T>,
    /// `(in, out)` tangents per key for Hermite/Bezier tracks.
    pub tangents: Vec<(T, T)>,
}

impl<T: Key> Track<T> {
    /// Reads a track header at `at`, charging its ranges, timestamps and values to `budget`
    /// (many tracks may point at one region: each is charged for what it reads); `size` and
    /// `read` describe one stored value.
    pub fn read_charged(
        r: &Reader,
        budget: &ReadBudget,
        at: u64,
        global_sequences: usize,
        size: u64,
        read: impl Fn(&Reader, u64) -> Result<T>,
    ) -> Result<Track<T>> {
        let interpolation = match r.u16_at(at, "track interpolation")? {
            0 => Interpolation::None,
            1 => Interpolation::Linear,
            2 => Interpolation::Hermite,
            3 => Interpolation::Bezier,
            n => return Err(r.invalid(at, format!("track interpolation {n} (expected 0-3)"))),
        };
        let gs = r.i16_at(at + 2, "track global sequence")?;
        let global_sequence = if gs < 0 {
            None
        } else if (gs as usize) < global_sequences {
            Some(gs as usize)
        } else {
            return Err(r.invalid(
                at + 2,
                format!("track global sequence {gs} but the model has {global_sequences}"),
            ));
        };
        // Each array is charged before any of its elements is read.
        let array = |at: u64, max: u64, size: u64, what: &'static str| {
            M2Array::read_charged(r, budget, at, max, size, what)
        };
        let ranges_a = array(at + 4, MAX_KEYS, 8, "track ranges")?;
        let times_a = array(at + 12, MAX_KEYS, 4, "track timestamps")?;
        let values_a = array(at + 20, 3 * MAX_KEYS, size, "track values")?;
        let ranges = (0..ranges_a.count)
            .map(|i| {
                let o = ranges_a.offset + 8 * i;
                Ok((r.u32_at(o, "range start")?, r.u32_at(o + 4, "range end")?))
            })
            .collect::<Result<Vec<_>>>()?;
        let times = (0..times_a.count)
            .map(|i| r.u32_at(times_a.offset + 4 * i, "timestamp"))
            .collect::<Result<Vec<_>>>()?;
        let all = (0..values_a.count)
            .map(|i| read(r, values_a.offset + size * i))
            .collect::<Result<Vec<_>>>()?;
        let cubic = matches!(
            interpolation,
            Interpolation::Hermite | Interpolation::Bezier
        );
        let (values, tangents) = if cubic && all.len() == 3 * times.len() {
            let v = all.chunks(3).map(|c| c[0]).collect();
            let t = all.chunks(3).map(|c| (c[1], c[2])).collect();
            (v, t)
        } else if all.len() == times.len() {
            (all, Vec::new())
        } else {
            return Err(r.invalid(
                at + 20,
                format!(
                    "track has {} timestamps but {} values",
                    times.len(),
                    all.len()
                ),
            ));
        };
        Ok(Track {
            interpolation,
            global_sequence,
            ranges,
            times,
            values,
            tangents,
        })
    }

    /// A track without keys: every sample is `None`, so its reader's default holds.
    pub fn empty() -> Track<T> {
        Track {
            interpolation: Interpolation::None,
            global_sequence: None,
            ranges: Vec::new(),
            times: Vec::new(),
            values: Vec::new(),
            tangents: Vec::new(),
        }
    }

    /// A constant track (used by the writer and tests).
    pub fn constant(v: T) -> Track<T> {
        Track {
            interpolation: Interpolation::None,
            global_sequence: None,
            ranges: Vec::new(),
            times: vec![0],
            values: vec![v],
            tangents: Vec::new(),
        }
    }

    /// True when the track has no keys (the value stays at its default).
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The value at `time`, or `None` when the track has nothing for it.
    pub fn sample(&self, time: &Time, global_sequences: &[u32]) -> Option<T> {
        let n = self.values.len();
        if n == 0 {
            return None;
        }
        let (first, last, t) = if let Some(g) = self.global_sequence {
            let len = global_sequences.get(g).copied().unwrap_or(0);
            let t = if len > 0 { time.global_ms % len } else { 0 };
            (0, n - 1, t)
        } else {
            match time.sequence {
                None => return Some(self.values[0]),
                Some(s) => match self.ranges.get(s) {
                    Some(&(a, b)) => {
                        let a = (a as usize).min(n - 1);
                        (a, (b as usize).clamp(a, n - 1), time.ms)
                    }
                    // No range table: search every key on the shared timeline.
                    None if self.ranges.is_empty() => (0, n - 1, time.ms),
                    None => return Some(self.values[0]),
                },
            }
        };
        if first == last || t <= self.times[first] {
            return Some(self.values[first]);
        }
        if t >= self.times[last] {
            return Some(self.values[last]);
        }
        // Largest i in [first, last) with times[i] <= t (times are ascending within a range).
        let i = (first + self.times[first..=last].partition_point(|&k| k <= t)).saturating_sub(1);
        let i = i.clamp(first, last - 1);
        let (t0, t1) = (self.times[i], self.times[i + 1]);
        let r = if t1 > t0 {
            ((t - t0) as f32 / (t1 - t0) as f32).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let (a, b) = (self.values[i], self.values[i + 1]);
        Some(match self.interpolation {
            Interpolation::None => a,
            Interpolation::Linear => T::lerp(a, b, r),
            Interpolation::Hermite | Interpolation::Bezier if self.tangents.len() == n => {
                let (out_a, in_b) = (self.tangents[i].1, self.tangents[i + 1].0);
                let (r2, r3) = (r * r, r * r * r);
                let w = if self.interpolation == Interpolation::Hermite {
                    [
                        2.0 * r3 - 3.0 * r2 + 1.0,
                        r3 - 2.0 * r2 + r,
                        r3 - r2,
                        -2.0 * r3 + 3.0 * r2,
                    ]
                } else {
                    let s = 1.0 - r;
                    [s * s * s, 3.0 * r * s * s, 3.0 * r2 * s, r3]
                };
                // Hermite: p0, m0 (out of key i), m1 (into key i+1), p1; Bezier: p0, c0, c1, p1.
                T::combine([a, out_a, in_b, b], w)
            }
            _ => T::lerp(a, b, r),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn track(interpolation: Interpolation) -> Track<f32> {
        Track {
            interpolation,
            global_sequence: None,
            ranges: vec![(0, 1), (2, 3), (4, 4)],
            times: vec![0, 100, 1000, 1200, 2000],
            values: vec![0.0, 10.0, 5.0, 7.0, 3.0],
            tangents: Vec::new(),
        }
    }

    fn at(sequence: usize, ms: u32) -> Time {
        Time {
            sequence: Some(sequence),
            ms,
            global_ms: 0,
        }
    }

    #[test]
    fn linear_uses_the_sequence_range() {
        let t = track(Interpolation::Linear);
        assert_eq!(t.sample(&at(0, 50), &[]), Some(5.0));
        assert_eq!(t.sample(&at(1, 1100), &[]), Some(6.0));
        assert_eq!(
            t.sample(&at(1, 1500), &[]),
            Some(7.0),
            "clamped at the range end"
        );
        assert_eq!(
            t.sample(&at(2, 2500), &[]),
            Some(3.0),
            "single-key range is constant"
        );
        assert_eq!(
            t.sample(&at(7, 0), &[]),
            Some(0.0),
            "missing range falls back to key 0"
        );
    }

    #[test]
    fn none_holds_and_global_sequences_wrap() {
        let t = track(Interpolation::None);
        assert_eq!(t.sample(&at(0, 99), &[]), Some(0.0));
        let mut g = track(Interpolation::Linear);
        g.global_sequence = Some(0);
        let time = Time {
            sequence: Some(2),
            ms: 0,
            global_ms: 2050,
        };
        assert_eq!(
            g.sample(&time, &[2000]),
            Some(5.0),
            "2050 % 2000 = 50 over all keys"
        );
    }

    #[test]
    fn hermite_and_bezier_hit_their_ends_and_use_tangents() {
        let mut t = track(Interpolation::Hermite);
        t.tangents = vec![(0.0, 0.0); 5];
        assert_eq!(t.sample(&at(0, 0), &[]), Some(0.0));
        let mid = t.sample(&at(0, 50), &[]).unwrap();
        assert!(
            (mid - 5.0).abs() < 1e-4,
            "flat tangents: smoothstep midpoint {mid}"
        );
        t.interpolation = Interpolation::Bezier;
        t.tangents[0].1 = 10.0;
        t.tangents[1].0 = 10.0;
        let mid = t.sample(&at(0, 50), &[]).unwrap();
        assert!(
            (mid - 8.75).abs() < 1e-4,
            "bezier 0,10,10,10 at 1/2 = {mid}"
        );
    }
}
