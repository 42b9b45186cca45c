//! CPU time this process has used, all its threads together: user + system seconds from
//! `/proc/self/stat` (Linux). Elsewhere there is no figure (`None`), and callers print "n/a".
//!
//! The file's fields 14 and 15 (utime, stime) count clock ticks of USER_HZ, which Linux fixes
//! at 100 per second for user space whatever the kernel's own tick, so figures have 10 ms
//! steps. Field 2, the command name, is in parentheses and may hold spaces, so fields are
//! counted after its closing parenthesis.

/// Clock ticks per second in `/proc` (USER_HZ).
const TICKS_PER_SECOND: f64 = 100.0;

/// User + system CPU seconds used so far by every thread of this process.
pub fn process_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    cpu_seconds_from_stat(&stat)
}

/// User + system seconds from the text of a `/proc/PID/stat` file.
pub fn cpu_seconds_from_stat(stat: &str) -> Option<f64> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    // After the name: field 3 (state) is at index 0, so utime (14) at 11 and stime (15) at 12.
    let mut fields = after_name.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some((utime + stime) as f64 / TICKS_PER_SECOND)
}

/// Seconds as `"X.XXXX"`, or `"n/a"` when unknown.
pub fn format_seconds(s: Option<f64>) -> String {
    s.map_or_else(|| "n/a".to_string(), |s| format!("{s:.4}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_utime_and_stime_after_a_name_with_spaces() {
        let stat = "42 (a (b) c) R 1 42 42 0 -1 4194304 100 0 0 0 250 37 0 0 20 0 3 0";
        assert_eq!(cpu_seconds_from_stat(stat), Some(2.87));
        assert_eq!(cpu_seconds_from_stat("42 (x) R 1"), None);
        assert_eq!(format_seconds(None), "n/a");
        assert_eq!(format_seconds(Some(0.5)), "0.5000");
    }

    #[test]
    fn this_process_has_a_figure_on_linux() {
        if cfg!(target_os = "linux") {
            assert!(process_cpu_seconds().is_some_and(|s| s >= 0.0));
        }
    }
}
