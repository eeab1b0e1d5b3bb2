//! What a Vulkan driver makes of our WGSL kernels: registers, shared memory, spills.
//!
//! wgpu does not expose `VK_KHR_pipeline_executable_properties`, so this tool compiles the
//! kernels itself: WGSL through naga to SPIR-V with the options tierfft gives wgpu (no
//! bounds checks, no workgroup-memory zeroing), then a compute pipeline built with the
//! driver's statistics captured, on the first Vulkan device (or the one whose name contains
//! `TIERFFT_VK_DEVICE`).
//!
//! ```text
//! tierfft plan 4096 --device h100-vulkan --source wgsl > k.wgsl
//! cargo run --release -p tierfft --example vulkan_stats -- k.wgsl [OUT_DIR]
//! ```
//!
//! The input holds one or more modules separated by `// ---- pass` lines (what `tierfft plan
//! --source wgsl` prints; lines before the first module are skipped). With `OUT_DIR`, each
//! module's SPIR-V and the driver's internal representations (NVIDIA: its own assembly) are
//! written there.

use std::error::Error;
use std::ffi::CStr;
use std::path::{Path, PathBuf};

use ash::vk;

type Res<T> = Result<T, Box<dyn Error>>;

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(input) = args.first() else {
        return Err("usage: vulkan_stats KERNELS.wgsl [OUT_DIR]".into());
    };
    let out = args.get(1).map(PathBuf::from);
    if let Some(dir) = &out {
        std::fs::create_dir_all(dir)?;
    }
    let text = std::fs::read_to_string(input)?;
    let modules = split_modules(&text);
    if modules.is_empty() {
        return Err(format!("{input}: no `@compute` entry point found").into());
    }
    let vk = Vulkan::open()?;
    println!("device: {}", vk.name);
    for (i, (title, src)) in modules.iter().enumerate() {
        println!("\n{title}");
        let (words, entry, bindings) = to_spirv(src)?;
        if let Some(dir) = &out {
            std::fs::write(
                dir.join(format!("pass{}.spv", i + 1)),
                bytemuck::cast_slice(&words),
            )?;
        }
        vk.report(&words, &entry, &bindings, out.as_deref(), i + 1)?;
    }
    Ok(())
}

/// Splits `tierfft plan --source wgsl` output into (title line, WGSL module).
fn split_modules(text: &str) -> Vec<(String, String)> {
    let mut modules = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in text.lines() {
        if line.starts_with("// ---- pass") {
            modules.extend(current.take());
            current = Some((line.to_string(), String::new()));
        } else if let Some((_, src)) = &mut current {
            src.push_str(line);
            src.push('\n');
        }
    }
    modules.extend(current);
    if modules.is_empty() && text.contains("@compute") {
        modules.push(("// module".to_string(), text.to_string()));
    }
    modules
}

/// One resource binding of set 0: (binding, descriptor type).
type Binding = (u32, vk::DescriptorType);

/// WGSL to SPIR-V words, the entry point's name and the module's bindings.
fn to_spirv(src: &str) -> Res<(Vec<u32>, String, Vec<Binding>)> {
    use naga::back::spv;
    let module = naga::front::wgsl::parse_str(src).map_err(|e| e.emit_to_string(src))?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)?;
    let entry = module
        .entry_points
        .iter()
        .find(|e| e.stage == naga::ShaderStage::Compute)
        .ok_or("no compute entry point")?
        .name
        .clone();
    let mut bindings = Vec::new();
    for (_, var) in module.global_variables.iter() {
        let Some(rb) = &var.binding else { continue };
        let ty = match var.space {
            naga::AddressSpace::Uniform => vk::DescriptorType::UNIFORM_BUFFER,
            naga::AddressSpace::Storage { .. } => vk::DescriptorType::STORAGE_BUFFER,
            other => return Err(format!("binding in {other:?} is not handled").into()),
        };
        if rb.group != 0 {
            return Err("only bind group 0 is handled".into());
        }
        bindings.push((rb.binding, ty));
    }
    let options = spv::Options {
        lang_version: (1, 5),
        bounds_check_policies: naga::proc::BoundsCheckPolicies {
            index: naga::proc::BoundsCheckPolicy::Unchecked,
            buffer: naga::proc::BoundsCheckPolicy::Unchecked,
            image_load: naga::proc::BoundsCheckPolicy::Unchecked,
            binding_array: naga::proc::BoundsCheckPolicy::Unchecked,
        },
        zero_initialize_workgroup_memory: spv::ZeroInitializeWorkgroupMemoryMode::None,
        force_loop_bounding: false,
        ..Default::default()
    };
    let pipeline = spv::PipelineOptions {
        shader_stage: naga::ShaderStage::Compute,
        entry_point: entry.clone(),
    };
    let words = spv::write_vec(&module, &info, &options, Some(&pipeline))?;
    Ok((words, entry, bindings))
}

/// A Vulkan device opened with pipeline-executable properties enabled.
struct Vulkan {
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    exec: ash::khr::pipeline_executable_properties::Device,
    name: String,
}

impl Vulkan {
    fn open() -> Res<Vulkan> {
        // SAFETY: loads the system's Vulkan loader; nothing else holds it.
        let entry = unsafe { ash::Entry::load()? };
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_2);
        let info = vk::InstanceCreateInfo::default().application_info(&app);
        // SAFETY: valid create info; the instance is destroyed in Drop.
        let instance = unsafe { entry.create_instance(&info, None)? };
        let wanted = std::env::var("TIERFFT_VK_DEVICE").unwrap_or_default();
        // SAFETY: the instance is alive for these queries.
        let (phys, name) = unsafe {
            let mut found = None;
            for p in instance.enumerate_physical_devices()? {
                let props = instance.get_physical_device_properties(p);
                let name = props.device_name_as_c_str()?.to_string_lossy().into_owned();
                if name.contains(&wanted) {
                    found = Some((p, name));
                    break;
                }
            }
            found.ok_or(format!("no Vulkan device named like {wanted:?}"))?
        };
        let ext = ash::khr::pipeline_executable_properties::NAME;
        // SAFETY: `phys` came from this instance.
        let has = unsafe { instance.enumerate_device_extension_properties(phys)? }
            .iter()
            .any(|e| e.extension_name_as_c_str() == Ok(ext));
        if !has {
            return Err(format!("{name} does not offer {}", ext.to_string_lossy()).into());
        }
        // SAFETY: as above.
        let family = unsafe { instance.get_physical_device_queue_family_properties(phys) }
            .iter()
            .position(|q| q.queue_flags.contains(vk::QueueFlags::COMPUTE))
            .ok_or("no compute queue")? as u32;
        let priorities = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let mut feature = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
            .pipeline_executable_info(true);
        let exts = [ext.as_ptr()];
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&exts)
            .push_next(&mut feature);
        // SAFETY: the extension and feature were checked above; destroyed in Drop.
        let device = unsafe { instance.create_device(phys, &info, None)? };
        let exec = ash::khr::pipeline_executable_properties::Device::new(&instance, &device);
        Ok(Vulkan {
            _entry: entry,
            instance,
            device,
            exec,
            name,
        })
    }

    /// Builds the pipeline with statistics captured and prints them.
    fn report(
        &self,
        words: &[u32],
        entry: &str,
        bindings: &[Binding],
        out: Option<&Path>,
        pass: usize,
    ) -> Res<()> {
        let d = &self.device;
        let layout_bindings: Vec<_> = bindings
            .iter()
            .map(|&(b, ty)| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(b)
                    .descriptor_type(ty)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let name = std::ffi::CString::new(entry)?;
        // SAFETY: every object is created from this device and destroyed before returning.
        unsafe {
            let module =
                d.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(words), None)?;
            let set = d.create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&layout_bindings),
                None,
            )?;
            let sets = [set];
            let layout = d.create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default().set_layouts(&sets),
                None,
            )?;
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(module)
                .name(&name);
            let info = vk::ComputePipelineCreateInfo::default()
                .flags(
                    vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR
                        | vk::PipelineCreateFlags::CAPTURE_INTERNAL_REPRESENTATIONS_KHR,
                )
                .stage(stage)
                .layout(layout);
            let pipeline = d
                .create_compute_pipelines(vk::PipelineCache::null(), &[info], None)
                .map_err(|(_, e)| e)?[0];
            let result = self.print_executables(pipeline, out, pass);
            d.destroy_pipeline(pipeline, None);
            d.destroy_pipeline_layout(layout, None);
            d.destroy_descriptor_set_layout(set, None);
            d.destroy_shader_module(module, None);
            result
        }
    }

    /// Prints every executable's statistics; writes its internal representations to `out`.
    ///
    /// # Safety
    /// `pipeline` was created on this device with statistics captured.
    unsafe fn print_executables(
        &self,
        pipeline: vk::Pipeline,
        out: Option<&Path>,
        pass: usize,
    ) -> Res<()> {
        let info = vk::PipelineInfoKHR::default().pipeline(pipeline);
        // SAFETY: see the function's contract.
        let execs = unsafe { self.exec.get_pipeline_executable_properties(&info)? };
        for (i, e) in execs.iter().enumerate() {
            println!(
                "  executable {i}: {} (subgroup {})",
                c_text(&e.name),
                e.subgroup_size
            );
            let ei = vk::PipelineExecutableInfoKHR::default()
                .pipeline(pipeline)
                .executable_index(i as u32);
            // SAFETY: as above.
            for s in unsafe { self.exec.get_pipeline_executable_statistics(&ei)? } {
                // SAFETY: the union member read is the one `format` names.
                let value = unsafe {
                    match s.format {
                        vk::PipelineExecutableStatisticFormatKHR::BOOL32 => {
                            (s.value.b32 != 0).to_string()
                        }
                        vk::PipelineExecutableStatisticFormatKHR::INT64 => s.value.i64.to_string(),
                        vk::PipelineExecutableStatisticFormatKHR::UINT64 => s.value.u64.to_string(),
                        vk::PipelineExecutableStatisticFormatKHR::FLOAT64 => {
                            s.value.f64.to_string()
                        }
                        _ => "?".to_string(),
                    }
                };
                println!(
                    "    {:<32} {value:>10}   {}",
                    c_text(&s.name),
                    c_text(&s.description)
                );
            }
            if let Some(dir) = out {
                // SAFETY: as above.
                unsafe { self.write_representations(&ei, dir, pass, i)? };
            }
        }
        Ok(())
    }

    /// Writes the executable's internal representations (text ones only) to `dir`.
    ///
    /// # Safety
    /// `ei` names an executable of a pipeline created with internal representations captured.
    unsafe fn write_representations(
        &self,
        ei: &vk::PipelineExecutableInfoKHR,
        dir: &Path,
        pass: usize,
        exec: usize,
    ) -> Res<()> {
        let get = self
            .exec
            .fp()
            .get_pipeline_executable_internal_representations_khr;
        let handle = self.device.handle();
        let mut count = 0u32;
        // SAFETY: the first call only counts.
        unsafe { get(handle, ei, &mut count, std::ptr::null_mut()) }.result()?;
        let mut reps =
            vec![vk::PipelineExecutableInternalRepresentationKHR::default(); count as usize];
        // SAFETY: `reps` holds `count` structs; this call fills their sizes.
        unsafe { get(handle, ei, &mut count, reps.as_mut_ptr()) }.result()?;
        let mut buffers: Vec<Vec<u8>> = reps.iter().map(|r| vec![0u8; r.data_size]).collect();
        for (r, b) in reps.iter_mut().zip(&mut buffers) {
            r.p_data = b.as_mut_ptr().cast();
        }
        // SAFETY: every `p_data` points at `data_size` writable bytes that outlive the call.
        unsafe { get(handle, ei, &mut count, reps.as_mut_ptr()) }.result()?;
        for (k, (r, b)) in reps.iter().zip(&buffers).enumerate() {
            if r.is_text == 0 {
                continue;
            }
            let text = CStr::from_bytes_until_nul(b)
                .map(|c| c.to_string_lossy())
                .unwrap_or_default();
            let file = dir.join(format!("pass{pass}.exec{exec}.rep{k}.txt"));
            std::fs::write(
                &file,
                format!("// {}: {}\n{text}", c_text(&r.name), c_text(&r.description)),
            )?;
            println!("    wrote {} ({})", file.display(), c_text(&r.name));
        }
        Ok(())
    }
}

impl Drop for Vulkan {
    fn drop(&mut self) {
        // SAFETY: nothing created from the device or instance outlives this.
        unsafe {
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

/// A fixed-size C string from a Vulkan struct, as text.
fn c_text(chars: &[std::ffi::c_char]) -> String {
    let bytes: Vec<u8> = chars
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}
