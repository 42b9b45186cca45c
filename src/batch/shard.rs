//! Shards: `I/N` takes the jobs whose key (the job's normalized output path) hashes to `I`
//! modulo `N`. The choice depends on nothing but the key, so it is the same on every machine,
//! in every order of the manifest, and adding or removing a job moves no other job.

use std::str::FromStr;

use super::hash;

/// Most shards a batch may be split into.
pub const MAX_SHARDS: u32 = 1 << 16;

/// One part of `count`: the `index`-th (0-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 0 to `count - 1`.
    pub index: u32,
    /// How many parts.
    pub count: u32,
}

impl Shard {
    /// The whole batch.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// Whether the job keyed `key` is this shard's.
    pub fn takes(&self, key: &str) -> bool {
        let mut h = hash::Hasher::default();
        h.field(key);
        h.value() % u128::from(self.count) == u128::from(self.index)
    }
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let (i, n) = s
            .split_once('/')
            .ok_or_else(|| format!("'{s}' is not I/N (e.g. 0/4)"))?;
        let i: u32 = i
            .trim()
            .parse()
            .map_err(|_| format!("bad shard index '{i}'"))?;
        let n: u32 = n
            .trim()
            .parse()
            .map_err(|_| format!("bad shard count '{n}'"))?;
        if n == 0 || n > MAX_SHARDS {
            return Err(format!("shard count {n} is not 1 to {MAX_SHARDS}"));
        }
        if i >= n {
            return Err(format!("shard index {i} is not 0 to {}", n - 1));
        }
        Ok(Shard { index: i, count: n })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_partitions() {
        assert_eq!("3/4".parse(), Ok(Shard { index: 3, count: 4 }));
        assert!("4/4".parse::<Shard>().is_err() && "0/0".parse::<Shard>().is_err());
        assert!("1".parse::<Shard>().is_err());
        let keys: Vec<String> = (0..200).map(|i| format!("out/m{i}.png")).collect();
        let shards: Vec<Shard> = (0..4).map(|i| Shard { index: i, count: 4 }).collect();
        for k in &keys {
            assert_eq!(shards.iter().filter(|s| s.takes(k)).count(), 1, "{k}");
            assert!(Shard::ALL.takes(k));
        }
        // Each shard gets a fair part of 200 keys.
        for s in &shards {
            let n = keys.iter().filter(|k| s.takes(k)).count();
            assert!((25..=75).contains(&n), "shard {s}: {n} jobs");
        }
    }
}
