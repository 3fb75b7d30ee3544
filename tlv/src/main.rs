// SPDX-License-Identifier: GPL-2.0

//! nova-tlv: converts NVIDIA's GSP firmware package files into the TLV firmware files Linux
//! 7.3's nova-core requests, or shows a TLV file (`--dump`). See `--help` and the README.
//!
//! Exit status: 0 on success, 1 on a missing or invalid file (one line naming the file and what
//! is wrong), 2 on a usage error.

use std::{
    fs,
    process::ExitCode, //
};

mod args;

use args::Command;

fn main() -> ExitCode {
    let command = match args::parse(std::env::args().skip(1)) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("nova-tlv: {e} (see --help)");
            return ExitCode::from(2);
        }
    };
    match command {
        Command::Help => {
            print!("{}", args::help());
            ExitCode::SUCCESS
        }
        Command::Dump(path) => {
            let shown = path.display();
            match fs::read(&path) {
                Ok(data) => match nova_tlv::dump::dump(&data) {
                    Ok(text) => {
                        print!("{text}");
                        ExitCode::SUCCESS
                    }
                    Err(e) => {
                        eprintln!("nova-tlv: {shown}: {e}");
                        ExitCode::FAILURE
                    }
                },
                Err(e) => {
                    eprintln!("nova-tlv: {shown}: cannot read: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::Convert {
            firmware_dir,
            chip,
            version,
            out,
        } => {
            let done = nova_tlv::convert::convert(&firmware_dir, chip, &version)
                .and_then(|outputs| nova_tlv::convert::write(&out, &outputs).map(|()| outputs));
            match done {
                Ok(outputs) => {
                    for o in outputs {
                        println!("{}: {} bytes", out.join(&o.name).display(), o.bytes.len());
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("nova-tlv: {e}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}
