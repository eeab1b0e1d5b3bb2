//! Where this process sits among the ranks a launcher started, one process per rank, as on
//! a cluster: read from the variables torchrun, Open MPI, MPICH-style PMI launchers and
//! Slurm's srun set, with the address where the ranks meet ([`super::Rendezvous`]).

use crate::error::{Error, Result};

/// Overrides the rendezvous address (`host:port`) the launcher's variables give.
pub const RENDEZVOUS_VAR: &str = "TIERFFT_RENDEZVOUS";

/// The variables of each launcher this reads, in the order they are tried: rank, ranks,
/// rank on this host.
const LAUNCHERS: [(&str, [&str; 3]); 4] = [
    ("torchrun", ["RANK", "WORLD_SIZE", "LOCAL_RANK"]),
    (
        "Open MPI",
        [
            "OMPI_COMM_WORLD_RANK",
            "OMPI_COMM_WORLD_SIZE",
            "OMPI_COMM_WORLD_LOCAL_RANK",
        ],
    ),
    ("PMI", ["PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"]),
    ("Slurm", ["SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"]),
];

/// This process's place in a group of ranks that a launcher started, one process per rank.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Launch {
    /// This process's rank, `0..ranks`.
    pub rank: usize,
    /// Processes in the group.
    pub ranks: usize,
    /// This process's index among the group's processes on its host: the GPU it takes.
    pub local_rank: usize,
    /// Where the ranks meet, `host:port`: rank 0 listens there and the others connect.
    /// Empty for a group of one.
    pub rendezvous: String,
    /// The launcher whose variables these are ("torchrun", "Open MPI", "PMI", "Slurm"), or
    /// "explicit" for [`Launch::new`].
    pub launcher: &'static str,
}

impl Launch {
    /// A group of `ranks` processes meeting at `rendezvous` (`host:port`), for launchers
    /// this does not read.
    pub fn new(rank: usize, ranks: usize, local_rank: usize, rendezvous: &str) -> Result<Launch> {
        let launch = Launch {
            rank,
            ranks,
            local_rank,
            rendezvous: rendezvous.to_string(),
            launcher: "explicit",
        };
        launch.validate()?;
        Ok(launch)
    }

    /// Reads this process's place from the environment its launcher set: torchrun's
    /// `RANK`, `WORLD_SIZE` and `LOCAL_RANK`; Open MPI's `OMPI_COMM_WORLD_*`; PMI's
    /// `PMI_RANK`, `PMI_SIZE` (and `MPI_LOCALRANKID`); or Slurm's `SLURM_PROCID`,
    /// `SLURM_NTASKS` and `SLURM_LOCALID`, the first launcher whose rank is set. The ranks
    /// meet at [`RENDEZVOUS_VAR`] (`host:port`) where it is set, else at `MASTER_ADDR` and
    /// `MASTER_PORT` (torchrun sets them; under mpirun or srun, export them).
    pub fn from_env() -> Result<Launch> {
        Launch::from_vars(|name| std::env::var(name).ok())
    }

    /// [`Launch::from_env`] over the variables `var` gives.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Launch> {
        let Some((launcher, [rank, ranks, local])) =
            LAUNCHERS.iter().find(|(_, names)| var(names[0]).is_some())
        else {
            return Err(Error::ranks(
                "no launcher's rank in the environment: start one process per rank with \
                 torchrun, mpirun or srun (RANK and WORLD_SIZE, OMPI_COMM_WORLD_RANK, PMI_RANK \
                 or SLURM_PROCID), or set RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and \
                 MASTER_PORT yourself",
                None,
            ));
        };
        let number = |name: &str| -> Result<Option<usize>> {
            var(name)
                .map(|v| {
                    v.trim().parse().map_err(|_| {
                        Error::ranks(
                            format!(
                                "{name}={v:?} (from {launcher}) is not a count: it must be a \
                                 whole number such as 0 or 4"
                            ),
                            None,
                        )
                    })
                })
                .transpose()
        };
        let rank_value = number(rank)?.unwrap_or(0);
        let ranks_value = number(ranks)?.ok_or_else(|| {
            Error::ranks(
                format!(
                    "{rank} is set but {ranks} is not: {launcher} sets both; set {ranks} to \
                     the number of processes"
                ),
                None,
            )
        })?;
        check_rank(rank_value, ranks_value, launcher)?;
        // Without a local rank every process is taken to be on a host of its own.
        let local_rank = number(local)?.unwrap_or(0);
        let rendezvous = match (var(RENDEZVOUS_VAR), var("MASTER_ADDR"), var("MASTER_PORT")) {
            (Some(at), _, _) => at,
            (None, Some(host), Some(port)) => join_host_port(&host, &port),
            _ if ranks_value == 1 => String::new(),
            _ => {
                return Err(Error::ranks(
                    format!(
                        "{ranks_value} ranks (from {launcher}) but nowhere to meet: set \
                     MASTER_ADDR to rank 0's host and MASTER_PORT to a free port there (or \
                     {RENDEZVOUS_VAR}=host:port)"
                    ),
                    None,
                ));
            }
        };
        let launch = Launch {
            rank: rank_value,
            ranks: ranks_value,
            local_rank,
            rendezvous,
            launcher,
        };
        launch.validate()?;
        Ok(launch)
    }

    /// The GPU this process takes of the `visible` ones: its local rank, or the only one
    /// where the launcher gave each process a GPU of its own (Slurm's `--gpus-per-task`,
    /// `CUDA_VISIBLE_DEVICES` set per process).
    pub fn gpu_ordinal(&self, visible: usize) -> usize {
        match visible {
            1 => 0,
            _ => self.local_rank,
        }
    }

    fn validate(&self) -> Result<()> {
        check_rank(self.rank, self.ranks, self.launcher)?;
        if self.ranks > 1 && split_host_port(&self.rendezvous).is_none() {
            return Err(Error::ranks(
                format!(
                    "rendezvous address {:?}: write it host:port, e.g. node01:29500 or \
                 [::1]:29500",
                    self.rendezvous
                ),
                None,
            ));
        }
        Ok(())
    }
}

fn check_rank(rank: usize, ranks: usize, launcher: &str) -> Result<()> {
    match ranks > 0 && rank < ranks {
        true => Ok(()),
        false => Err(Error::ranks(
            format!("rank {rank} of {ranks} (from {launcher}): ranks are 0 .. {ranks} - 1"),
            None,
        )),
    }
}

/// `host:port`, bracketing an IPv6 address.
fn join_host_port(host: &str, port: &str) -> String {
    match host.contains(':') && !host.starts_with('[') {
        true => format!("[{host}]:{port}"),
        false => format!("{host}:{port}"),
    }
}

/// The host and port of `host:port` (`[v6]:port` too), or None where it is not one.
pub(crate) fn split_host_port(at: &str) -> Option<(&str, u16)> {
    let (host, port) = at.rsplit_once(':')?;
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    let port = port.parse().ok()?;
    (!host.is_empty()).then_some((host, port))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn from(vars: &[(&str, &str)]) -> Result<Launch> {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Launch::from_vars(|name| vars.get(name).cloned())
    }

    #[test]
    fn each_launcher() {
        let torchrun = from(&[
            ("RANK", "3"),
            ("WORLD_SIZE", "8"),
            ("LOCAL_RANK", "1"),
            ("MASTER_ADDR", "node01"),
            ("MASTER_PORT", "29500"),
        ])
        .unwrap();
        assert_eq!(
            (torchrun.rank, torchrun.ranks, torchrun.local_rank),
            (3, 8, 1)
        );
        assert_eq!(
            (torchrun.rendezvous.as_str(), torchrun.launcher),
            ("node01:29500", "torchrun")
        );
        let mpi = from(&[
            ("OMPI_COMM_WORLD_RANK", "1"),
            ("OMPI_COMM_WORLD_SIZE", "2"),
            ("OMPI_COMM_WORLD_LOCAL_RANK", "1"),
            ("SLURM_PROCID", "0"),
            ("SLURM_NTASKS", "1"),
            (RENDEZVOUS_VAR, "[::1]:4000"),
        ])
        .unwrap();
        assert_eq!((mpi.rank, mpi.ranks, mpi.local_rank), (1, 2, 1));
        assert_eq!(mpi.launcher, "Open MPI");
        assert_eq!(split_host_port(&mpi.rendezvous), Some(("::1", 4000)));
        let pmi = from(&[
            ("PMI_RANK", "0"),
            ("PMI_SIZE", "2"),
            ("MASTER_ADDR", "fe80::1"),
            ("MASTER_PORT", "7"),
        ])
        .unwrap();
        assert_eq!((pmi.rank, pmi.local_rank), (0, 0));
        assert_eq!(pmi.rendezvous, "[fe80::1]:7");
        let slurm = from(&[("SLURM_PROCID", "0"), ("SLURM_NTASKS", "1")]).unwrap();
        assert_eq!((slurm.ranks, slurm.rendezvous.as_str()), (1, ""));
    }

    #[test]
    fn mistakes_are_named() {
        let err = |vars: &[(&str, &str)]| from(vars).unwrap_err().to_string();
        assert!(err(&[]).contains("torchrun, mpirun or srun"));
        assert!(err(&[("RANK", "0")]).contains("WORLD_SIZE is not"));
        assert!(err(&[("RANK", "x"), ("WORLD_SIZE", "2")]).contains("RANK=\"x\""));
        assert!(err(&[("RANK", "2"), ("WORLD_SIZE", "2")]).contains("rank 2 of 2"));
        assert!(err(&[("RANK", "0"), ("WORLD_SIZE", "2")]).contains("MASTER_ADDR"));
        assert!(
            err(&[("RANK", "0"), ("WORLD_SIZE", "2"), (RENDEZVOUS_VAR, "node")])
                .contains("host:port")
        );
        assert!(Launch::new(0, 2, 0, "localhost:1").is_ok());
        assert!(Launch::new(0, 0, 0, "").is_err());
    }
}
