//! M2 sprite-sheet runs (≤ BC `lifespanUVAnim` and `decayUVAnim`, wowdev "M2#Particle
//! emitters": start, end, repeat): a particle shows the first run up to its colour midpoint
//! and the second after it. Our reading of the three numbers, as the MDX particle emitters
//! they come from use them: a run steps through `start..=end` (backwards when `end` is the
//! smaller), `repeat` times (0 taken as 1) over its part of the life, each cell an equal share.

/// The cell of a run `[start, end, repeat]` at `t` (0..1) through its part of the life.
pub fn cell([start, end, repeat]: [u32; 3], t: f32) -> u32 {
    let n = start.abs_diff(end).saturating_add(1);
    let steps = n.saturating_mul(repeat.max(1));
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let k = ((t * steps as f32) as u32).min(steps - 1) % n;
    if end >= start {
        start + k
    } else {
        start - k
    }
}

/// The cell at `progress` (0..1 of the life) of a particle whose runs are `life` then `decay`,
/// split at `mid`.
pub fn at(life: [u32; 3], decay: [u32; 3], mid: f32, progress: f32) -> u32 {
    let mid = if mid.is_finite() {
        mid.clamp(0.001, 0.999)
    } else {
        0.5
    };
    if progress <= mid {
        cell(life, progress / mid)
    } else {
        cell(decay, (progress - mid) / (1.0 - mid))
    }
}
