//! tierfft on a caller's own CUDA stream and arrays (cudarc), without copies or waits.
//!
//! ```text
//! cargo run --release -p tierfft --example cudarc_stream
//! ```
//!
//! Needs an NVIDIA GPU with its driver and NVRTC. The program owns a context, a stream and
//! an array on it; tierfft plans on that stream, transforms the array in place (queued
//! after the program's own upload, with nothing synchronised), and hands the same device
//! memory back; the program's download then waits for it like any other work on its stream.

use cudarc::driver::{CudaContext, DevicePtr};
use num_complex::Complex32;
use tierfft::{Device, DeviceBuffer, FftSpec};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // cudarc panics when the driver library is missing: ask first.
    if !tierfft::backend::cuda::driver_available() {
        return Err("no CUDA driver (libcuda) on this machine".into());
    }
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let device = Device::cuda_on_stream(stream.clone())?;
    println!("device: {}", device.name());

    // 1024 lines of 4096 points, each a tone in bin 5 (the caller's data on its stream).
    let (n, lines) = (4096, 1024);
    let tone: Vec<Complex32> = (0..n * lines)
        .map(|i| {
            let phase = 2.0 * std::f32::consts::PI * 5.0 * (i % n) as f32 / n as f32;
            Complex32::new(phase.cos(), phase.sin())
        })
        .collect();
    let array = stream.clone_htod(bytemuck::cast_slice::<Complex32, f32>(&tone))?;
    let pointer = array.device_ptr(&stream).0;

    let fft = device.plan(&FftSpec::new(n).batch(lines))?;
    let mut buffer = DeviceBuffer::<Complex32>::from_cuda_slice(&device, array)?;
    fft.process_buffer(&mut buffer)?; // queued on `stream`; returns at once
    let array = buffer.into_cuda_slice()?;
    assert_eq!(array.device_ptr(&stream).0, pointer, "same memory, no copy");

    let spectrum: Vec<f32> = stream.clone_dtoh(&array)?; // waits, as the caller's own work
    let bin = |line: usize, k: usize| {
        let i = 2 * (line * n + k);
        Complex32::new(spectrum[i], spectrum[i + 1]).norm()
    };
    assert!((bin(0, 5) - n as f32).abs() < 1e-2 * n as f32);
    assert!(bin(lines - 1, 6) < 1e-2 * n as f32);
    println!(
        "{lines} lines transformed in place on the caller's stream: bin 5 = {:.1}",
        bin(0, 5)
    );
    Ok(())
}
