//! M2 "twinkle": a particle blinks and changes size as it ages, following a table of 128
//! values in [0, 1] stepped `speed` times a second from a start the particle draws at birth
//! (WebWowViewerCpp's `CalculateParticlePreRenderData`). The particle is hidden while the
//! value exceeds `percent`; its sizes are scaled by the value mapped onto the scale range.
//! The reference fills its table from the C library's `rand()` at start-up, so its blink
//! pattern is the platform's; ours is a fixed sequence of our own, the same on every machine.

use std::sync::LazyLock;

/// One emitter's twinkle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Twinkle {
    /// Table steps a second.
    pub speed: f32,
    /// A particle shows while its table value is at most this (1 or more: always).
    pub percent: f32,
    /// Its sizes are multiplied by `scale[0] + (scale[1] − scale[0]) · value`.
    pub scale: [f32; 2],
}

/// No twinkle: always shown, sizes as they are.
impl Default for Twinkle {
    fn default() -> Self {
        Twinkle {
            speed: 0.0,
            percent: 1.0,
            scale: [1.0; 2],
        }
    }
}

impl Twinkle {
    /// The size factor of a particle with start `seed` at `age` seconds, or `None` while it is
    /// hidden. With `percent` ≥ 1 and no scale range the table is not stepped (its first
    /// value is used, which never hides), as the reference does.
    pub fn factor(&self, age: f32, seed: u16) -> Option<f32> {
        let vary = self.scale[1] - self.scale[0];
        let at = if self.percent < 1.0 || vary != 0.0 {
            // `as` saturates a huge or NaN product, so the index stays in the table.
            ((age * self.speed) as i32).wrapping_add(i32::from(seed)) & 0x7f
        } else {
            0
        };
        let value = TABLE[at as usize];
        (self.percent >= value).then_some(vary * value + self.scale[0])
    }
}

/// The table: 128 draws of the effects' own sequence ([`super::Rng`]) from a fixed seed.
static TABLE: LazyLock<[f32; 128]> = LazyLock::new(|| {
    let mut rng = super::Rng::for_emitter(0, "twinkle");
    std::array::from_fn(|_| rng.unit())
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_twinkle_always_shows_at_full_size() {
        let t = Twinkle::default();
        for age in [0.0, 0.3, 7.9, 1e9] {
            for seed in [0, 1, 77, u16::MAX] {
                assert_eq!(t.factor(age, seed), Some(1.0));
            }
        }
    }

    #[test]
    fn the_table_is_spread_over_zero_to_one() {
        assert!(TABLE.iter().all(|v| (0.0..=1.0).contains(v)));
        let below_half = TABLE.iter().filter(|v| **v < 0.5).count();
        assert!(
            (48..=80).contains(&below_half),
            "{below_half} of 128 below 0.5"
        );
    }

    /// WebWowViewerCpp (`particleEmitter.cpp`, `CalculateParticlePreRenderData`): the index is
    /// `0x7f & (int(age · TwinkleSpeed) + seed)`, the particle is drawn only when
    /// `TwinklePercent ≥ RandTable[index]`, and its scale is multiplied by
    /// `(max − min) · RandTable[index] + min`. With percent 0.5 and speed 4, a particle of seed
    /// 126 reads entries 126, 127, 0, 1 over its first second, a quarter second each.
    #[test]
    fn a_particle_steps_through_the_table_and_hides_above_the_percent() {
        let t = Twinkle {
            speed: 4.0,
            percent: 0.5,
            scale: [2.0, 3.0],
        };
        for (step, at) in [126usize, 127, 0, 1].into_iter().enumerate() {
            let age = step as f32 * 0.25 + 0.1;
            let v = TABLE[at];
            let want = (v <= 0.5).then_some(v + 2.0);
            assert_eq!(t.factor(age, 126), want, "age {age}");
        }
        // Over the whole table about half the steps are hidden, and the shown ones are
        // scaled within the range.
        let shown: Vec<f32> = (0..128)
            .filter_map(|i| t.factor(i as f32 / 4.0, 0))
            .collect();
        assert!((48..=80).contains(&shown.len()), "{} shown", shown.len());
        assert!(shown.iter().all(|k| (2.0..=2.5).contains(k)));
    }

    /// A constant scale range and percent 1 never step the table: the reference reads entry 0
    /// and scales by the range's minimum (Imp2's emitters: speed 10, percent 1, scale 20–20).
    #[test]
    fn a_constant_range_with_percent_one_scales_by_its_minimum() {
        let t = Twinkle {
            speed: 10.0,
            percent: 1.0,
            scale: [20.0, 20.0],
        };
        for age in [0.0, 0.05, 0.15, 3.0] {
            assert_eq!(t.factor(age, 9), Some(20.0));
        }
    }
}
