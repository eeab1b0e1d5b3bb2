//! tierfft inside a caller's own wgpu pipeline: their device, their buffer, their command
//! encoder. The FFT is recorded between the caller's own commands and runs when they submit.
//!
//! ```text
//! cargo run --release -p tierfft --example wgpu_encoder
//! ```
//!
//! Takes the first hardware adapter, else any (lavapipe on a machine without a GPU).

use num_complex::Complex32;
use tierfft::{Device, DeviceBuffer, FftSpec};
use wgpu::BufferUsages as U;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The caller's side: instance, adapter, device, queue, a storage buffer of their data.
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::PRIMARY);
    let instance = wgpu::Instance::new(desc);
    let mut adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
    adapters.sort_by_key(|a| a.get_info().device_type == wgpu::DeviceType::Cpu);
    let adapter = adapters.into_iter().next().ok_or("wgpu found no adapter")?;
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_limits: adapter.limits(),
        ..Default::default()
    }))?;
    println!("adapter: {}", adapter.get_info().name);

    // 256 lines of 1024 points, each a tone in bin 7.
    let (n, lines) = (1024, 256);
    let tone: Vec<Complex32> = (0..n * lines)
        .map(|i| {
            let phase = 2.0 * std::f32::consts::PI * 7.0 * (i % n) as f32 / n as f32;
            Complex32::new(phase.cos(), phase.sin())
        })
        .collect();
    let bytes = 8 * tone.len() as u64;
    let data = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("lines"),
        size: bytes,
        usage: U::STORAGE | U::COPY_SRC | U::COPY_DST,
        mapped_at_creation: false,
    });
    queue.write_buffer(&data, 0, bytemuck::cast_slice(&tone));
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: bytes,
        usage: U::MAP_READ | U::COPY_DST,
        mapped_at_creation: false,
    });

    // tierfft on the caller's device, recording into the caller's encoder.
    let tierfft_device = Device::from_wgpu(&adapter, device.clone(), queue.clone());
    let fft = tierfft_device.plan(&FftSpec::new(n).batch(lines))?;
    let mut buffer: DeviceBuffer = DeviceBuffer::from_wgpu_buffer(&tierfft_device, data.clone())?;
    let mut encoder = device.create_command_encoder(&Default::default());
    fft.record(&mut encoder, &mut buffer)?;
    encoder.copy_buffer_to_buffer(&data, 0, &readback, 0, bytes); // the caller's own command
    queue.submit([encoder.finish()]);

    readback.map_async(wgpu::MapMode::Read, .., |r| {
        if let Err(e) = r {
            eprintln!("mapping failed: {e}");
        }
    });
    device.poll(wgpu::PollType::wait_indefinitely())?;
    let spectrum: Vec<Complex32> = bytemuck::cast_slice(&readback.get_mapped_range(..)?).to_vec();
    let peak = |line: usize| {
        (0..n)
            .max_by(|&a, &b| {
                spectrum[line * n + a]
                    .norm()
                    .total_cmp(&spectrum[line * n + b].norm())
            })
            .unwrap_or(0)
    };
    if (0..lines).any(|l| peak(l) != 7) {
        return Err("a line's peak is not in bin 7".into());
    }
    println!("{lines} lines transformed inside the caller's command encoder: every peak in bin 7");
    Ok(())
}
