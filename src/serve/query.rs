//! A request's query string, decoded once (percent-escapes and `+`, as browsers encode forms)
//! by `form_urlencoded`, with typed, range-checked readers: a parameter is text only until one
//! of these has checked it.

use std::collections::HashMap;

/// Most parameters one query may carry (the API uses a dozen).
const MAX_PARAMS: usize = 64;

/// Decoded parameters; a name given twice keeps the first value.
#[derive(Clone, Debug, Default)]
pub struct Query {
    params: HashMap<String, String>,
}

impl Query {
    /// Decodes `raw` (the part after `?`, if any).
    pub fn parse(raw: Option<&str>) -> Result<Query, String> {
        let mut params = HashMap::new();
        for (k, v) in form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
            if params.len() >= MAX_PARAMS {
                return Err(format!("more than {MAX_PARAMS} query parameters"));
            }
            params
                .entry(k.into_owned())
                .or_insert_with(|| v.into_owned());
        }
        Ok(Query { params })
    }

    /// The raw text of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.params.get(name).map(String::as_str)
    }

    /// `name`, which must be given.
    pub fn required(&self, name: &str) -> Result<&str, String> {
        self.get(name).ok_or_else(|| format!("{name}= is needed"))
    }

    /// A whole number in `lo..=hi`; `lo` when absent.
    pub fn number(&self, name: &str, lo: u64, hi: u64) -> Result<u64, String> {
        let Some(s) = self.get(name).filter(|s| !s.is_empty()) else {
            return Ok(lo);
        };
        // Digits only: Rust's parser would take a leading `+`.
        match s.parse::<u64>() {
            Ok(n) if s.bytes().all(|b| b.is_ascii_digit()) && (lo..=hi).contains(&n) => Ok(n),
            _ => Err(format!("{name}={s}: a whole number from {lo} to {hi}")),
        }
    }

    /// A finite number in `lo..=hi`.
    pub fn float(&self, name: &str, lo: f32, hi: f32) -> Result<f32, String> {
        let s = self.required(name)?;
        match s.parse::<f32>() {
            Ok(v) if v.is_finite() && (lo..=hi).contains(&v) => Ok(v),
            _ => Err(format!("{name}={s}: a number from {lo} to {hi}")),
        }
    }

    /// `on`/`off` (also `1`/`0`, `true`/`false`); `default` when absent.
    pub fn flag(&self, name: &str, default: bool) -> Result<bool, String> {
        match self.get(name) {
            None | Some("") => Ok(default),
            Some("on" | "1" | "true") => Ok(true),
            Some("off" | "0" | "false") => Ok(false),
            Some(s) => Err(format!("{name}={s}: on or off")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_decoded_once_and_checked() {
        let q = Query::parse(Some(
            "path=0%2F..%2Fx&frame=12&yaw=-3.5&d=off&a=1&a=2&n=%2B5",
        ))
        .unwrap();
        assert_eq!(q.get("path"), Some("0/../x"));
        assert_eq!(q.number("frame", 0, 100), Ok(12));
        assert!(q.number("frame", 0, 10).is_err());
        assert!(q.number("n", 0, 10).is_err(), "+5 is not a plain number");
        assert_eq!(q.float("yaw", -360.0, 360.0), Ok(-3.5));
        assert_eq!(q.flag("d", true), Ok(false));
        assert_eq!(q.get("a"), Some("1"));
        assert!(Query::parse(Some("yaw=nan"))
            .unwrap()
            .float("yaw", -1.0, 1.0)
            .is_err());
    }
}
