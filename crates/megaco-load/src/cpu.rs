//! CPU time, beside the wall-clock time of a round: on a shared machine
//! a round longer than the scheduler's time slice shares its core with
//! whatever else runs, and its wall time grows with the machine's load;
//! the CPU time it used does not. Linux only (`None` elsewhere).
//!
//! ```
//! let t0 = megaco_load::cpu::thread();
//! let x: u64 = (0..1_000_000u64).map(|i| i ^ (i >> 3)).sum();
//! assert!(x > 0);
//! if let (Some(a), Some(b)) = (t0, megaco_load::cpu::thread()) {
//!     assert!(b >= a);
//! }
//! ```

use std::time::Duration;

/// CPU time the calling thread has used (user and system).
pub fn thread() -> Option<Duration> {
    #[cfg(target_os = "linux")]
    {
        use nix::time::{clock_gettime, ClockId};
        clock_gettime(ClockId::CLOCK_THREAD_CPUTIME_ID)
            .ok()
            .map(Duration::from)
    }
    #[cfg(not(target_os = "linux"))]
    None
}

/// CPU time every thread of this process has used (user and system).
pub fn process() -> Option<Duration> {
    #[cfg(target_os = "linux")]
    {
        use nix::time::{clock_gettime, ClockId};
        clock_gettime(ClockId::CLOCK_PROCESS_CPUTIME_ID)
            .ok()
            .map(Duration::from)
    }
    #[cfg(not(target_os = "linux"))]
    None
}

/// CPU time another process has used (user and system, every thread),
/// from `/proc/PID/stat`: to ask what a controller under load spends per
/// transaction. The kernel counts it in ticks of 10 ms (`USER_HZ`, 100 on
/// every Linux architecture in use), so read it over seconds, not
/// microseconds.
///
/// ```
/// let me = megaco_load::cpu::of_process(std::process::id());
/// assert_eq!(me.is_some(), cfg!(target_os = "linux"));
/// ```
pub fn of_process(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&stat)
}

/// utime + stime of a `/proc/PID/stat` line: fields 14 and 15, counted
/// after the command name, which is in parentheses and may hold spaces.
fn parse_stat(stat: &str) -> Option<Duration> {
    const USER_HZ: u64 = 100;
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut f = rest.split_whitespace().skip(11);
    let utime: u64 = f.next()?.parse().ok()?;
    let stime: u64 = f.next()?.parse().ok()?;
    Some(Duration::from_millis((utime + stime) * 1000 / USER_HZ))
}

/// `b - a`, when both were read.
pub fn since(a: Option<Duration>, b: Option<Duration>) -> Option<Duration> {
    Some(b?.saturating_sub(a?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_count_after_the_command_name() {
        // A command name with spaces and a parenthesis; utime 250 and
        // stime 75 ticks.
        let line =
            "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 3 0 99 1000 200";
        assert_eq!(parse_stat(line), Some(Duration::from_millis(3250)));
        assert_eq!(parse_stat("4242 (x) S 1 2"), None);
        assert_eq!(parse_stat("garbage"), None);
    }
}
