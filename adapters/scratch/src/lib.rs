//! Temporary artifacts owned by a live process.
//!
//! Probity makes short-lived files and directories outside its store's
//! committed bytes: a copy of the Git index in the git dir, a scratch export
//! repository, the store's own temp files between write and rename. None
//! may outlive the run that made it, however that run ends:
//!
//! - a normal end (or an error) drops the guard, which removes the artifact;
//! - Ctrl-C, SIGTERM or SIGHUP (when [`signals::install`] ran, as the CLI
//!   does first thing) stops the children Probity waits on, removes every
//!   registered artifact, then ends the process by the same signal;
//! - SIGKILL runs nothing, so every artifact is held under an exclusive
//!   `File::lock` that the operating system releases when its owner dies,
//!   and the next run's scavenging pass removes exactly the artifacts whose
//!   lock it can take: never a live owner's, whatever its age.
//!
//! This crate holds no policy about what is written: it is the process
//! plumbing the git and store adapters share, with the one bounded reader
//! of input files ([`input`]) the CLI and the git adapter share.

pub mod input;
pub mod output;
pub mod registry;
pub mod scratch;
pub mod signals;
pub mod temp;

pub use registry::Registered;
pub use scratch::{Scratch, scavenge, scavenge_with};
pub use temp::{
    LockedTemp, RegisteredTemp, create_dir_durable, fsyncs, remove_if_orphaned, sync_dir,
    sync_file, write_atomic,
};
