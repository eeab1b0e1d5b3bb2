//! The `.npy` reader: any bytes either fail to open with an error, or open with a header whose
//! data every read returns, element for element.

use std::io::Cursor;

use tierfft_cli::npy::{Expect, from_reader};

/// Opens `data` as `tierfft fft` and `tierfft sar --raw` do and reads what opens in every way
/// the commands read it.
pub fn npy(data: &[u8]) -> Result<(), String> {
    for expect in [Expect::Rows, Expect::Scene] {
        let open = || from_reader(Cursor::new(data), data.len() as u64, "fuzz.npy", expect);
        let Ok(input) = open() else {
            continue;
        };
        let header = &input.header;
        let (n, batch, complex) = (header.n, header.batch, header.element.is_complex());
        let pairs = header.shape.last() == Some(&2);
        let values = n
            .checked_mul(batch)
            .ok_or("an accepted header whose size overflows")?;
        let read = |what: &str, got: Result<usize, tierfft_cli::CliError>, want: usize| match got {
            Ok(len) if len == want => Ok(()),
            Ok(len) => Err(format!(
                "{what} returned {len} values, the header promised {want}"
            )),
            Err(e) => Err(format!(
                "{what} failed on an accepted header ({expect:?}): {e}"
            )),
        };
        read("read", input.read().map(|v| v.len()), values)?;
        let input = open().map_err(|e| format!("a second open failed: {e}"))?;
        read("read_f64", input.read_f64().map(|v| v.len()), values)?;
        if !complex {
            let input = open().map_err(|e| format!("a second open failed: {e}"))?;
            read("read_real", input.read_real().map(|v| v.len()), values)?;
            if pairs {
                let input = open().map_err(|e| format!("a second open failed: {e}"))?;
                read(
                    "read_pairs",
                    input.read_pairs(|x| x).map(|v| v.len()),
                    values / 2,
                )?;
            }
        } else if let Ok(input) = open()
            && input.read_real().is_ok()
        {
            return Err("read_real accepted complex values".into());
        }
    }
    Ok(())
}
