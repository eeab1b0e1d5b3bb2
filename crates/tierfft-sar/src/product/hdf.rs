//! Reading one HDF5 file's fields for a product reader: each typed read checked (length,
//! finite values, units) and every error naming the file and the field.

use hdf5_pure::{AttrValue, Dataset, File, H5Element};

use crate::error::SarError;

/// Reading fields of one file, with messages that name the file and the field.
pub(super) struct Fields<'a> {
    pub(super) file: &'a File,
    pub(super) name: &'a str,
}

impl Fields<'_> {
    pub(super) fn error(&self, message: String) -> SarError {
        SarError::Product(format!("'{}': {message}", self.name))
    }

    pub(super) fn dataset(&self, path: &str) -> Result<Dataset, SarError> {
        self.file.dataset(path).map_err(|e| match e {
            hdf5_pure::Error::Format(hdf5_pure::FormatError::PathNotFound(_)) => self.error(
                format!("{path} is missing: not the product it should be, or an incomplete one"),
            ),
            e => self.error(format!("{path}: {e}")),
        })
    }

    pub(super) fn shape(&self, ds: &Dataset, path: &str) -> Result<Vec<usize>, SarError> {
        let shape = ds.shape().map_err(|e| self.error(format!("{path}: {e}")))?;
        shape
            .iter()
            .map(|&d| usize::try_from(d).map_err(|_| self.error(format!("{path}: extent {d}"))))
            .collect()
    }

    /// The values of the dataset at `path` as `T` (f64, f32, i64, ...: converted as the
    /// HDF5 library converts), `len` of them where given.
    pub(super) fn values<T: H5Element>(
        &self,
        path: &str,
        len: Option<usize>,
    ) -> Result<Vec<T>, SarError> {
        let v = self
            .dataset(path)?
            .read::<T>()
            .map_err(|e| self.error(format!("{path}: {e}")))?;
        self.check_len(path, v, len)
    }

    pub(super) fn check_len<T>(
        &self,
        path: &str,
        v: Vec<T>,
        len: Option<usize>,
    ) -> Result<Vec<T>, SarError> {
        match len {
            Some(n) if v.len() != n => Err(self.error(format!(
                "{path} holds {} values where {n} are expected",
                v.len()
            ))),
            _ => Ok(v),
        }
    }

    pub(super) fn scalar(&self, path: &str) -> Result<f64, SarError> {
        let v = self.values::<f64>(path, None)?;
        match v[..] {
            [x] => Ok(x),
            _ => Err(self.error(format!("{path} holds {} values: one expected", v.len()))),
        }
    }

    pub(super) fn string(&self, path: &str) -> Result<String, SarError> {
        let ds = self.dataset(path)?;
        let v = ds
            .read_string()
            .map_err(|e| self.error(format!("{path}: {e}")))?;
        match v.into_iter().next() {
            Some(s) => Ok(s.trim_end_matches('\0').trim().to_string()),
            None => Err(self.error(format!("{path} is empty"))),
        }
    }

    /// A time axis and its epoch: the values in s and the instant after "seconds since" in
    /// its `units` attribute.
    pub(super) fn times(
        &self,
        path: &str,
        len: Option<usize>,
    ) -> Result<(String, Vec<f64>), SarError> {
        let ds = self.dataset(path)?;
        let units = ds
            .attrs()
            .ok()
            .and_then(|a| {
                a.get("units")
                    .and_then(AttrValue::as_str)
                    .map(str::to_string)
            })
            .ok_or_else(|| {
                self.error(format!(
                    "{path} has no units attribute (\"seconds since ...\")"
                ))
            })?;
        let epoch = units
            .trim_end_matches('\0')
            .strip_prefix("seconds since ")
            .ok_or_else(|| {
                self.error(format!(
                    "{path} is in '{units}': \"seconds since ...\" expected"
                ))
            })?
            .trim()
            .to_string();
        let t = self.values::<f64>(path, len)?;
        if t.is_empty() || !t.iter().all(|x| x.is_finite()) {
            return Err(self.error(format!("{path} is empty or holds NaN or infinite times")));
        }
        Ok((epoch, t))
    }

    /// Seconds to add to times counted from `from` to count them from `to`.
    pub(super) fn shift(&self, path: &str, from: &str, to: &str) -> Result<f64, SarError> {
        let parse = |s: &str| {
            seconds_of(s).ok_or_else(|| {
                self.error(format!("{path}: epoch '{s}' is not YYYY-MM-DD hh:mm:ss"))
            })
        };
        Ok(parse(from)? - parse(to)?)
    }
}

/// Seconds since 1970-01-01 00:00:00 of `YYYY-MM-DD hh:mm:ss[.f]` (a `T` may separate date
/// and time), for comparing the epochs of a product's time axes.
pub(super) fn seconds_of(s: &str) -> Option<f64> {
    let s = s.trim().trim_end_matches('Z');
    let (date, time) = s.split_once([' ', 'T']).unwrap_or((s, "00:00:00"));
    let mut d = date.split('-').map(|x| x.parse::<i64>().ok());
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    let mut t = time.split(':');
    let (h, min) = (
        t.next()?.parse::<f64>().ok()?,
        t.next()?.parse::<f64>().ok()?,
    );
    let sec = t.next().map_or(Some(0.0), |x| x.parse::<f64>().ok())?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&day) {
        return None;
    }
    // Days from the civil date (proleptic Gregorian), after H. Hinnant's days_from_civil.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days as f64 * 86_400.0 + h * 3600.0 + min * 60.0 + sec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epochs_compare_across_formats() {
        let a = seconds_of("2011-01-13 00:00:00").unwrap();
        let b = seconds_of("2011-01-13T00:00:00.000000000").unwrap();
        assert_eq!(a, b);
        assert_eq!(seconds_of("1970-01-02 00:00:01"), Some(86_401.0));
        assert_eq!(
            seconds_of("2000-03-01 00:00:00").unwrap() - seconds_of("2000-02-28 00:00:00").unwrap(),
            2.0 * 86_400.0
        );
        assert!(seconds_of("2011-13-01 00:00:00").is_none() && seconds_of("yesterday").is_none());
    }
}
