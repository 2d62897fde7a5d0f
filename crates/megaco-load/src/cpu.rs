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

/// `b - a`, when both were read.
pub fn since(a: Option<Duration>, b: Option<Duration>) -> Option<Duration> {
    Some(b?.saturating_sub(a?))
}
