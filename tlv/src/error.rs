// SPDX-License-Identifier: GPL-2.0

//! What went wrong, and with which file: every failure of a conversion names the file it is
//! about and says what is wrong with it, in one line.

use std::{
    fmt,
    io,
    path::PathBuf, //
};

use crate::{
    package::Invalid,
    tlv::TlvError, //
};

/// What is wrong with a file.
#[derive(Debug)]
pub enum Problem {
    /// It cannot be read.
    Read(io::Error),
    /// It cannot be written.
    Write(io::Error),
    /// It is not a valid package file.
    Invalid(Invalid),
    /// Its contents do not make a valid TLV file.
    Tlv(TlvError),
}

impl From<Invalid> for Problem {
    fn from(e: Invalid) -> Self {
        Problem::Invalid(e)
    }
}

impl From<TlvError> for Problem {
    fn from(e: TlvError) -> Self {
        Problem::Tlv(e)
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Read(e) => write!(f, "cannot read: {e}"),
            Problem::Write(e) => write!(f, "cannot write: {e}"),
            Problem::Invalid(e) => write!(f, "{e}"),
            Problem::Tlv(e) => write!(f, "cannot make a valid TLV file: {e}"),
        }
    }
}

/// A failure: the file and its problem.
#[derive(Debug)]
pub struct Error {
    pub path: PathBuf,
    pub problem: Problem,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.problem)
    }
}

impl std::error::Error for Error {}
