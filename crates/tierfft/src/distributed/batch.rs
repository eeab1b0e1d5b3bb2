//! Many independent transforms split across devices: each device transforms a contiguous
//! share of the batch, with no exchange between them, all at once (one thread per device).

use std::ops::Range;
use std::time::Instant;

use super::on_threads;
use crate::backend::{Device, DeviceBuffer, Element, Fft};
use crate::error::{Error, Result};
use crate::spec::{FftSpec, Layout, PointOp};

/// A batch of transforms ([`FftSpec::batch`]) split into one contiguous share of transforms
/// per device, each planned on its device; the shares differ by at most one transform.
pub struct SplitBatch {
    spec: FftSpec,
    /// Each share's device, plan and transforms.
    parts: Vec<(Device, Fft, Range<usize>)>,
}

impl SplitBatch {
    /// Plans `spec`'s batch split across `devices`: device `i` of the first
    /// `min(batch, devices.len())` takes share `i`, the others none.
    /// The spec's transforms lie in rows ([`Layout::Rows`]) and its vectors are shared by
    /// every transform: a vector laid out over the whole batch ([`PointOp::MultiplyEach`],
    /// [`PointOp::Weight`], a chain of one filter per transform) is refused, since each
    /// device would need its part of it.
    pub fn new(spec: &FftSpec, devices: &[Device]) -> Result<SplitBatch> {
        spec.validate()?;
        if devices.is_empty() {
            return Err(Error::InvalidSpec(
                "a batch split across devices needs at least one device".into(),
            ));
        }
        if !matches!(spec.layout, Layout::Rows) {
            return Err(Error::InvalidSpec(format!(
                "a batch split across devices takes transforms in rows, not {:?}: transpose \
                 the columns first, or plan one Fft per device on its columns",
                spec.layout
            )));
        }
        let per_batch = (spec.load.iter().chain(&spec.store))
            .find_map(|op| match op {
                PointOp::MultiplyEach(_) => Some("a PointOp::MultiplyEach vector"),
                PointOp::Weight(_) => Some("a PointOp::Weight vector"),
                _ => None,
            })
            .or_else(|| {
                (spec.chain.as_ref())
                    .filter(|c| c.len() != spec.n)
                    .map(|_| "a chain with one filter per transform")
            });
        if let Some(what) = per_batch {
            return Err(Error::InvalidSpec(format!(
                "a batch split across devices takes vectors shared by every transform, and \
                 {what} is laid out over the whole batch: plan one Fft per device with its \
                 part of it"
            )));
        }
        let shares = shares(spec.batch, devices.len());
        let parts = (devices.iter().zip(shares))
            .filter(|(_, share)| !share.is_empty())
            .map(|(device, share)| {
                let mut part = spec.clone();
                part.batch = share.len();
                Ok((device.clone(), device.plan(&part)?, share))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(SplitBatch {
            spec: spec.clone(),
            parts,
        })
    }

    /// What the whole batch computes.
    pub fn spec(&self) -> &FftSpec {
        &self.spec
    }

    /// Each share's transforms (indices into the batch): share `i` is device `i`'s.
    pub fn shares(&self) -> Vec<Range<usize>> {
        self.parts
            .iter()
            .map(|(_, _, share)| share.clone())
            .collect()
    }

    /// Each device's plan of its share.
    pub fn ffts(&self) -> impl Iterator<Item = &Fft> {
        self.parts.iter().map(|(_, fft, _)| fft)
    }

    /// Transforms `data` (`n × batch` elements in host memory) in place: each device's rows
    /// uploaded, transformed and downloaded, all devices at once.
    pub fn process<T: Element>(&self, data: &mut [T]) -> Result<()> {
        self.spec.check_len(data.len())?;
        let n = self.spec.n;
        let mut rest = data;
        let mut chunks = Vec::with_capacity(self.parts.len());
        for (_, _, share) in &self.parts {
            let (chunk, tail) = rest.split_at_mut(share.len() * n);
            chunks.push(chunk);
            rest = tail;
        }
        on_threads(self.parts.iter().zip(chunks), |((_, fft, _), chunk)| {
            fft.process(chunk)
        })
        .map(|_| ())
    }

    /// Transforms device-resident shares in place, `buffers[i]` on device `i` holding share
    /// `i`'s `n × share` elements; queued, not waited for.
    pub fn process_buffers<T: Element>(&self, buffers: &mut [DeviceBuffer<T>]) -> Result<()> {
        self.check_buffers(buffers)?;
        on_threads(self.parts.iter().zip(buffers), |((_, fft, _), buffer)| {
            fft.process_buffer(buffer)
        })
        .map(|_| ())
    }

    /// Zeroed buffers for [`SplitBatch::process_buffers`], one per share on its device.
    pub fn zeros<T: Element>(&self) -> Result<Vec<DeviceBuffer<T>>> {
        self.parts
            .iter()
            .map(|(device, _, share)| device.zeros_of(share.len() * self.spec.n))
            .collect()
    }

    /// Seconds of `reps` runs over device-resident shares (after one untimed run), each from
    /// a common start until every device has finished (host clock).
    pub fn time(&self, reps: usize) -> Result<Vec<f64>> {
        let mut buffers = self.zeros::<num_complex::Complex32>()?;
        (0..=reps.max(1))
            .map(|_| {
                let t = Instant::now();
                on_threads(
                    self.parts.iter().zip(&mut buffers),
                    |((device, fft, _), buffer)| {
                        fft.process_buffer(buffer)?;
                        device.synchronize()
                    },
                )?;
                Ok(t.elapsed().as_secs_f64())
            })
            .skip(1)
            .collect()
    }

    fn check_buffers<T: Element>(&self, buffers: &[DeviceBuffer<T>]) -> Result<()> {
        if buffers.len() != self.parts.len() {
            return Err(Error::InvalidSpec(format!(
                "{} shares take {} buffers (got {})",
                self.parts.len(),
                self.parts.len(),
                buffers.len()
            )));
        }
        for (i, ((_, _, share), buffer)) in self.parts.iter().zip(buffers).enumerate() {
            if buffer.len() != share.len() * self.spec.n {
                return Err(Error::InvalidSpec(format!(
                    "share {i} (transforms {share:?}) takes {} elements; its buffer holds {}",
                    share.len() * self.spec.n,
                    buffer.len()
                )));
            }
        }
        Ok(())
    }
}

/// `batch` transforms cut into `devices` contiguous shares differing by at most one, the
/// larger first (so that any empty ones are last).
fn shares(batch: usize, devices: usize) -> Vec<Range<usize>> {
    let (base, extra) = (batch / devices, batch % devices);
    let start = |d: usize| d * base + d.min(extra);
    (0..devices).map(|d| start(d)..start(d + 1)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_cover_the_batch() {
        for (batch, devices) in [(10, 3), (2, 4), (7, 1), (1024, 8)] {
            let s = shares(batch, devices);
            assert_eq!(s.len(), devices);
            assert_eq!((s[0].start, s[devices - 1].end), (0, batch));
            assert!(s.windows(2).all(|w| w[0].end == w[1].start));
            assert!(
                s.iter()
                    .all(|r| r.len() == batch / devices || r.len() == batch / devices + 1)
            );
        }
    }
}
