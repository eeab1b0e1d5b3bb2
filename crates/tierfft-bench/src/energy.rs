//! Energy of GPU work from NVML's total-energy counter (`nvmlDeviceGetTotalEnergyConsumption`,
//! millijoules since the driver loaded). NVML is loaded at run time, so machines without the
//! NVIDIA driver still build and run; asking for energy there is an error that says why.
//!
//! The counter moves in steps every 20–100 ms, so one short kernel cannot be measured by
//! reading it twice. Instead a loop keeps the GPU busy with the same call for at least a
//! second: the board's average power is the counter's change between two of its own updates
//! divided by the wall time between them, and energy per call is that power times the GPU time
//! per call of the same loop (CUDA events around every chunk of calls).

use std::collections::VecDeque;
use std::ffi::OsStr;
use std::time::{Duration, Instant};

use cudarc::driver::CudaEvent;
use cudarc::driver::sys::{CUdevice_attribute as A, CUevent_flags};
use nvml_wrapper::Nvml;
use nvml_wrapper::enum_wrappers::device::Clock;

use tierfft::backend::cuda::CudaDevice;
use tierfft::{Error, Result};

use crate::cuda::{gpu, gpu_err, gpu_from};

/// GPU work of about this long per chunk of calls between two events.
const CHUNK_SECONDS: f64 = 0.02;
/// Chunks kept queued ahead of the GPU so that it never waits for the host.
const QUEUED_CHUNKS: usize = 3;
/// Busy time before the first reading, so that clocks and power have settled.
const WARM_UP: Duration = Duration::from_millis(300);

/// The board's state as NVML reports it.
#[derive(Clone, Debug)]
pub struct BoardState {
    /// Power draw, watts.
    pub watts: f64,
    /// Streaming-multiprocessor clock, MHz.
    pub sm_mhz: u32,
    /// Memory clock, MHz.
    pub memory_mhz: u32,
    /// The power limit the driver enforces, watts.
    pub limit_watts: f64,
}

/// One energy measurement of a repeated call.
#[derive(Clone, Debug)]
pub struct EnergyReading {
    /// Energy per call, joules.
    pub joules_per_call: f64,
    /// Average board power over the measured window, watts.
    pub watts: f64,
    /// GPU time per call in the loop, seconds.
    pub seconds_per_call: f64,
    /// Wall time between the two counter readings, seconds.
    pub window_seconds: f64,
    /// Calls run in the loop.
    pub calls: usize,
    /// SM clock at the end of the window, MHz.
    pub sm_mhz: u32,
}

impl EnergyReading {
    /// The mean of several readings of the same call (energy, power and times averaged, calls
    /// summed, the lowest SM clock kept); NaN energies for no readings.
    pub fn mean(readings: &[EnergyReading]) -> EnergyReading {
        let k = readings.len() as f64;
        let avg = |f: fn(&EnergyReading) -> f64| readings.iter().map(f).sum::<f64>() / k;
        EnergyReading {
            joules_per_call: avg(|r| r.joules_per_call),
            watts: avg(|r| r.watts),
            seconds_per_call: avg(|r| r.seconds_per_call),
            window_seconds: avg(|r| r.window_seconds),
            calls: readings.iter().map(|r| r.calls).sum(),
            sm_mhz: readings.iter().map(|r| r.sm_mhz).min().unwrap_or(0),
        }
    }
}

/// NVML's view of one CUDA device.
pub struct EnergyMeter {
    nvml: Nvml,
    bus_id: String,
}

/// The counter: millijoules since the driver loaded.
fn energy_mj(device: &nvml_wrapper::Device<'_>) -> Result<u64> {
    device
        .total_energy_consumption()
        .map_err(|e| gpu_from("reading the GPU's energy counter", e))
}

/// Reads `device`'s counter until it moves, returning the new value and when it was seen.
fn next_update(
    device: &nvml_wrapper::Device<'_>,
    mut keep_busy: impl FnMut() -> Result<()>,
) -> Result<(u64, Instant)> {
    let first = energy_mj(device)?;
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        keep_busy()?;
        let e = energy_mj(device)?;
        if e != first {
            return Ok((e, Instant::now()));
        }
        if Instant::now() > deadline {
            return Err(gpu("the GPU's energy counter did not move in 2 s"));
        }
    }
}

/// Loads NVML, or says why it cannot be.
fn load_nvml() -> Result<Nvml> {
    // The driver installs only the versioned name on most Linux systems.
    Nvml::builder()
        .lib_path(OsStr::new("libnvidia-ml.so.1"))
        .init()
        .or_else(|_| Nvml::init())
        .map_err(|e| {
            Error::NoDevice(format!(
                "energy needs NVML (libnvidia-ml, installed with the NVIDIA driver), which \
                 could not be loaded: {e}"
            ))
        })
}

/// Whether energy can be measured on this machine: Ok when NVML loads, else the reason.
pub fn probe() -> Result<()> {
    load_nvml().map(drop)
}

impl EnergyMeter {
    /// Opens NVML for `dev` (matched by PCI bus id, not by ordinal).
    pub fn open(dev: &CudaDevice) -> Result<EnergyMeter> {
        let nvml = load_nvml()?;
        let attr = |a: A| {
            dev.stream()
                .context()
                .attribute(a)
                .map_err(gpu_err("reading the PCI address"))
        };
        let bus_id = format!(
            "{:08x}:{:02x}:{:02x}.0",
            attr(A::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID)?,
            attr(A::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID)?,
            attr(A::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID)?
        );
        let meter = EnergyMeter { nvml, bus_id };
        energy_mj(&meter.device()?)?;
        Ok(meter)
    }

    fn device(&self) -> Result<nvml_wrapper::Device<'_>> {
        self.nvml
            .device_by_pci_bus_id(self.bus_id.as_str())
            .map_err(|e| Error::NoDevice(format!("NVML has no GPU at {}: {e}", self.bus_id)))
    }

    /// Power, clocks and power limit now.
    pub fn state(&self) -> Result<BoardState> {
        let d = self.device()?;
        let nvml = |what: &'static str| move |e| gpu_from(&format!("reading the {what}"), e);
        Ok(BoardState {
            watts: f64::from(d.power_usage().map_err(nvml("power draw"))?) * 1e-3,
            sm_mhz: d.clock_info(Clock::SM).map_err(nvml("SM clock"))?,
            memory_mhz: d.clock_info(Clock::Memory).map_err(nvml("memory clock"))?,
            limit_watts: f64::from(d.enforced_power_limit().map_err(nvml("power limit"))?) * 1e-3,
        })
    }

    /// Energy per call of `work` (which enqueues one call on `dev`'s stream), measured over
    /// at least `min_seconds` between two updates of the counter while the GPU runs `work`
    /// back to back; `seconds_per_call` (e.g. a median from CUDA events) sizes the chunks.
    pub fn measure(
        &self,
        dev: &CudaDevice,
        min_seconds: f64,
        seconds_per_call: f64,
        mut work: impl FnMut() -> Result<()>,
    ) -> Result<EnergyReading> {
        let per_chunk = ((CHUNK_SECONDS / seconds_per_call.max(1e-7)).ceil() as usize).max(1);
        let stream = dev.stream();
        let timing = Some(CUevent_flags::CU_EVENT_DEFAULT);
        let record = || {
            stream
                .record_event(timing)
                .map_err(gpu_err("recording an event"))
        };
        let start = record()?;
        let mut pending: VecDeque<CudaEvent> = VecDeque::new();
        let mut calls = 0usize;
        // Tops the queue up to QUEUED_CHUNKS unfinished chunks.
        let mut keep_busy = || -> Result<()> {
            while pending.front().is_some_and(|e| e.is_complete()) {
                pending.pop_front();
            }
            while pending.len() < QUEUED_CHUNKS {
                for _ in 0..per_chunk {
                    work()?;
                }
                calls += per_chunk;
                pending.push_back(record()?);
            }
            Ok(())
        };
        let device = self.device()?;
        let warm = Instant::now();
        while warm.elapsed() < WARM_UP {
            keep_busy()?;
        }
        let (e0, t0) = next_update(&device, &mut keep_busy)?;
        while t0.elapsed().as_secs_f64() < min_seconds {
            keep_busy()?;
        }
        let (e1, t1) = next_update(&device, &mut keep_busy)?;
        let sm_mhz = device
            .clock_info(Clock::SM)
            .map_err(|e| gpu_from("reading the SM clock", e))?;
        let end = record()?;
        end.synchronize().map_err(gpu_err("waiting for the GPU"))?;
        let gpu_seconds = f64::from(
            start
                .elapsed_ms(&end)
                .map_err(gpu_err("reading an event"))?,
        ) * 1e-3;
        let window_seconds = (t1 - t0).as_secs_f64();
        let watts = (e1 - e0) as f64 * 1e-3 / window_seconds;
        let seconds_per_call = gpu_seconds / calls as f64;
        Ok(EnergyReading {
            joules_per_call: watts * seconds_per_call,
            watts,
            seconds_per_call,
            window_seconds,
            calls,
            sm_mhz,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::EnergyReading;

    #[test]
    fn readings_average() {
        let r = |j: f64, w: f64, mhz: u32| EnergyReading {
            joules_per_call: j,
            watts: w,
            seconds_per_call: j / w,
            window_seconds: 1.0,
            calls: 10,
            sm_mhz: mhz,
        };
        let m = EnergyReading::mean(&[r(1.0, 500.0, 1980), r(3.0, 700.0, 1950)]);
        assert_eq!(
            (m.joules_per_call, m.watts, m.calls, m.sm_mhz),
            (2.0, 600.0, 20, 1950)
        );
    }

    /// On machines without the NVIDIA driver (CI) asking for energy is an error that names
    /// NVML, not a panic; where NVML loads, the probe succeeds.
    #[test]
    fn probe_names_nvml_when_missing() {
        // SAFETY: only tries to dlopen the library.
        let present = unsafe { libloading::Library::new("libnvidia-ml.so.1") }.is_ok();
        match super::probe() {
            Ok(()) => assert!(present, "NVML loaded though libnvidia-ml.so.1 did not"),
            Err(e) => {
                assert!(!present, "NVML is present but failed to start: {e}");
                assert!(e.to_string().contains("NVML"), "{e}");
            }
        }
    }
}
