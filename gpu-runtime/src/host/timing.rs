//! Timing a piece of GPU work the way benchmarks should: warm up first (the first launch
//! compiles), synchronise around every run so the time covers the work and not just its
//! enqueueing, and report the median, which ignores the odd slow run.

use std::fmt;
use std::time::{Duration, Instant};

use crate::error::{GpuError, Result};
use crate::host::device::Device;

/// The per-run times of [`Device::timed`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timing {
    /// The median run (the mean of the middle two for an even count).
    pub median: Duration,
    /// The mean of the runs.
    pub mean: Duration,
    /// The fastest run.
    pub min: Duration,
    /// The slowest run.
    pub max: Duration,
    /// How many runs were timed (warm-up runs excluded).
    pub runs: usize,
}

impl fmt::Display for Timing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "median {:.1} us (mean {:.1} us, min {:.1} us, max {:.1} us, {} runs)",
            self.median.as_secs_f64() * 1e6,
            self.mean.as_secs_f64() * 1e6,
            self.min.as_secs_f64() * 1e6,
            self.max.as_secs_f64() * 1e6,
            self.runs
        )
    }
}

impl Device {
    /// Run `work` `warmup` times untimed, then `runs` times, each run timed on the host
    /// from before `work` until the device has finished it ([`Device::synchronize`]).
    /// The seed article's `timed_run`; the times include one launch and one
    /// synchronisation (a few microseconds on an H200), so for kernels shorter than that
    /// time a loop of launches inside `work` instead. The first error `work` returns ends
    /// the timing and is returned.
    pub fn timed<F>(&self, warmup: usize, runs: usize, mut work: F) -> Result<Timing>
    where
        F: FnMut() -> Result<()>,
    {
        if runs == 0 {
            return Err(GpuError::InvalidArgument(
                "Device::timed needs at least one timed run".to_owned(),
            ));
        }
        // Each run's time is kept for the median: a count no measurement needs is refused
        // rather than left to fill the host's memory.
        const MOST_RUNS: usize = 1 << 24;
        if runs > MOST_RUNS || warmup > MOST_RUNS {
            return Err(GpuError::InvalidArgument(format!(
                "Device::timed takes at most {MOST_RUNS} runs and {MOST_RUNS} warm-up runs \
                 (asked: {runs} and {warmup})"
            )));
        }
        for _ in 0..warmup {
            work()?;
        }
        self.synchronize()?;
        // Room for the times as they come (a huge `runs` is not allocated up front).
        let mut times = Vec::with_capacity(runs.min(1 << 16));
        for _ in 0..runs {
            let start = Instant::now();
            work()?;
            self.synchronize()?;
            times.push(start.elapsed());
        }
        let mean = Duration::from_secs_f64(
            times.iter().map(Duration::as_secs_f64).sum::<f64>() / runs as f64,
        );
        times.sort_unstable();
        let median = if runs % 2 == 1 {
            times[runs / 2]
        } else {
            (times[runs / 2 - 1] + times[runs / 2]) / 2
        };
        Ok(Timing {
            median,
            mean,
            min: times[0],
            max: times[runs - 1],
            runs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warms_up_then_times_each_run_and_reports_order_statistics() {
        let dev = Device::simulator();
        let mut calls = 0;
        // Runs that take 1, 2, ... ms: the median of 1..=5 ms is 3 ms.
        let t = dev
            .timed(2, 5, || {
                calls += 1;
                if calls > 2 {
                    std::thread::sleep(Duration::from_millis(calls - 2));
                }
                Ok(())
            })
            .unwrap();
        assert_eq!(calls, 7);
        assert_eq!(t.runs, 5);
        assert!(t.min >= Duration::from_millis(1), "{t}");
        assert!(t.median >= Duration::from_millis(3), "{t}");
        assert!(t.max >= Duration::from_millis(5), "{t}");
        assert!(t.min <= t.median && t.median <= t.max, "{t}");
    }

    #[test]
    fn zero_runs_and_failing_work_are_errors() {
        let dev = Device::simulator();
        assert!(matches!(
            dev.timed(0, 0, || Ok(())),
            Err(GpuError::InvalidArgument(_))
        ));
        let mut calls = 0;
        let e = dev.timed(1, 10, || {
            calls += 1;
            if calls == 3 {
                Err(GpuError::InvalidArgument("third".into()))
            } else {
                Ok(())
            }
        });
        assert!(matches!(e, Err(GpuError::InvalidArgument(m)) if m == "third"));
        assert_eq!(calls, 3, "timing stops at the first error");
    }

    #[test]
    fn timed_refuses_a_run_count_no_measurement_needs() {
        let dev = Device::simulator();
        let r = dev.timed(0, usize::MAX, || Ok(()));
        assert!(matches!(r, Err(GpuError::InvalidArgument(_))), "{r:?}");
    }
}
