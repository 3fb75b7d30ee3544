// SPDX-License-Identifier: GPL-2.0

//! GSP-RM's start, as the booter makes it: the LIBOS arguments and RMARGS read and checked,
//! the status queue set up, the CPU sequence sent; then the core reset and resume the sequence
//! asks for, `GSP_INIT_DONE`, and the records GSP-RM writes into its log buffers. GSP-FMC's
//! start on Hopper and Blackwell sends no sequence. On both chains GSP-RM comes up
//! (`GSP_INIT_DONE`) once it carried out the boot commands the driver queued,
//! `GSP_SET_SYSTEM_INFO` and `SET_REGISTRY`: OpenRM, nouveau and nova-core all queue both before
//! they wait for it. FWSEC-SB's stop of a GSP-RM left running is here too.
//! The queue server that runs afterwards is [`super`]'s.

use super::*;

impl Gsp {
    /// The booter's start of GSP-RM of version `booted` with the LIBOS arguments at
    /// `libos_args`. Returns 0 once GSP-RM sent its CPU sequence, an error code when it
    /// refuses to start.
    pub fn start(
        &mut self,
        mem: &mut Sysmem<'_>,
        libos_args: u64,
        booted: Version,
        pci: PciFunction,
    ) -> u32 {
        let running = match self.begin(mem, "the booter", libos_args, booted, pci) {
            Ok(r) => r,
            Err(code) => return code,
        };
        self.state = Some(running);
        self.transitions.push(Transition::Started);
        self.send_sequence(mem)
    }

    /// What both starts do first: a GSP-RM still running stops, the start is logged with its
    /// starter (`by`), and the LIBOS arguments and RMARGS are read and checked; a refusal is
    /// logged and its code returned.
    fn begin(
        &mut self,
        mem: &mut Sysmem<'_>,
        by: &str,
        libos_args: u64,
        booted: Version,
        pci: PciFunction,
    ) -> Result<Running, u32> {
        self.halt(Stop::Restart, "started while running: restarting");
        self.line(&format!(
            "started by {by}, LIBOS arguments at {libos_args:#x}"
        ));
        self.boot(mem, libos_args, booted, pci)
            .map_err(|(code, msg)| {
                self.line(&format!("start refused ({code:#010x}): {msg}"));
                code
            })
    }

    /// GSP-FMC's start of GSP-RM of version `booted` with the LIBOS arguments at `libos_args`
    /// (Hopper and Blackwell): no CPU sequence; it comes up once the driver's boot commands are
    /// carried out. Returns 0 once started, an error code when it refuses to start.
    pub fn start_by_fmc(
        &mut self,
        mem: &mut Sysmem<'_>,
        libos_args: u64,
        booted: Version,
        pci: PciFunction,
    ) -> u32 {
        let mut running = match self.begin(mem, "GSP-FMC", libos_args, booted, pci) {
            Ok(r) => r,
            Err(code) => return code,
        };
        running.seq = Seq::AwaitsBootCommands;
        self.state = Some(running);
        self.transitions.push(Transition::Started);
        if let Err(e) = self.log_record(mem, 0, "GSP-RM: LIBOS up, waiting for its boot commands") {
            self.halt(Stop::Fault, &format!("stopped: {e}"));
            return ERR_FAULT;
        }
        self.line("no CPU sequence: serves its queue, up once its boot commands are carried out");
        self.come_up_after_boot_commands(mem)
    }

    /// Processes what is queued; posts GSP_INIT_DONE once GSP_SET_SYSTEM_INFO and SET_REGISTRY
    /// were carried out. Until then GSP-RM reads its queue at every tick; one it refused keeps
    /// it waiting for good.
    pub(super) fn come_up_after_boot_commands(&mut self, mem: &mut Sysmem<'_>) -> u32 {
        if let Some(code) = self.process_before_init_done(mem) {
            return code;
        }
        let Some(s) = self
            .state
            .as_mut()
            .filter(|s| s.system_info && s.registry && !s.refused)
        else {
            return 0;
        };
        s.seq = Seq::Done;
        self.init_done(mem)
    }

    /// GSP-RM's first words: a line in LOGINIT, and its CPU sequence; then
    /// it waits for the core reset and resume the sequence asks for.
    fn send_sequence(&mut self, mem: &mut Sysmem<'_>) -> u32 {
        let logged = self.log_record(mem, 0, "GSP-RM: LIBOS up, sending the CPU sequence");
        let reply = Reply {
            function: function::GSP_RUN_CPU_SEQUENCER,
            rpc_result: 0,
            rpc_seq: 0,
            payload: sequencer::lying_payload(self.config.boot_fault),
        };
        match logged.and_then(|()| self.post(mem, &reply)) {
            Ok(_) => {
                self.state.as_mut().expect("running").seq = Seq::Sent;
                self.line("RUN_CPU_SEQUENCER posted; waits for its core reset and resume");
                0
            }
            Err(e) => {
                self.halt(Stop::Fault, &format!("stopped: {e}"));
                ERR_FAULT
            }
        }
    }

    /// FWSEC-SB put the GSP falcon back to its state before GSP-RM: a GSP-RM still there (one
    /// that never got its resume, or that lies it cannot be stopped) is gone now, unless it
    /// lies.
    pub fn fwsec_sb(&mut self) {
        if self.state.is_none() {
            return;
        }
        if self.lies(Lie::Unstoppable) {
            self.line("fault unstoppable: FWSEC-SB ignored, still running");
            return;
        }
        self.halt(
            Stop::FalconReset,
            "stopped by FWSEC-SB; no memory access until the booter starts it again",
        );
    }

    /// booter_unload tore down WPR2 (it runs only while GSP-RM's core does not): GSP-RM
    /// waiting there for its resume is gone.
    pub fn wpr2_torn_down(&mut self) {
        if self.wants_resume() {
            self.halt(
                Stop::BooterUnload,
                "stopped by booter_unload while waiting for its resume (its state in WPR2 is gone)",
            );
        }
    }

    /// Whether GSP-RM lies that nothing stops it.
    pub fn unstoppable(&self) -> bool {
        self.state.is_some() && self.lies(Lie::Unstoppable)
    }

    /// Whether GSP-RM waits for the sequencer's resume.
    pub fn wants_resume(&self) -> bool {
        self.state
            .as_ref()
            .is_some_and(|s| matches!(s.seq, Seq::Sent | Seq::Reset))
    }

    /// The sequencer's resume (SEC2 started while GSP-RM waits); `scratch` is what the
    /// sequence's register holds. Returns the value for SEC2's MAILBOX0: 0 when GSP-RM is
    /// back, an error code when it is not.
    pub fn resume(&mut self, mem: &mut Sysmem<'_>, scratch: u32) -> u32 {
        let seq = self.state.as_ref().map(|s| s.seq);
        if seq != Some(Seq::Reset) {
            self.line("resume before the core reset of the CPU sequence: refused");
            return ERR_BAD_ARGUMENTS;
        }
        if scratch != sequencer::SCRATCH_AFTER {
            self.line(&format!(
                "resume refused: the CPU sequence's register holds {scratch:#010x}, not \
                 {:#010x} (its writes were not carried out)",
                sequencer::SCRATCH_AFTER
            ));
            return ERR_BAD_ARGUMENTS;
        }
        self.state.as_mut().expect("running").seq = Seq::AwaitsBootCommands;
        self.line("resumed after the CPU sequence");
        self.come_up_after_boot_commands(mem)
    }

    /// Processes what is queued before GSP_INIT_DONE; the code to return when GSP-RM stopped
    /// on the way (unloaded, 0, or a fault).
    fn process_before_init_done(&mut self, mem: &mut Sysmem<'_>) -> Option<u32> {
        match self.process(mem) {
            Halt::Wait => None,
            Halt::Stopped => {
                // Unloaded before it was up: no GSP_INIT_DONE.
                self.finish(Halt::Stopped);
                Some(0)
            }
            fault => {
                self.finish(fault);
                Some(ERR_FAULT)
            }
        }
    }

    /// Posts the events of its boot ([`super::events::at_boot`]) and GSP_INIT_DONE (unless a
    /// lie silenced GSP-RM): the GSP is up.
    fn init_done(&mut self, mem: &mut Sysmem<'_>) -> u32 {
        let version = self.state.as_ref().expect("running").version;
        if self.mute_now() || self.stream_now() {
            return 0;
        }
        let events = if self.config.events {
            super::events::at_boot(version)
        } else {
            Vec::new()
        };
        for event in &events {
            if let Err(e) = self.post_unprompted(mem, event) {
                self.halt(Stop::Fault, &format!("stopped: {e}"));
                return ERR_FAULT;
            }
        }
        if !events.is_empty() {
            let names: Vec<&str> = events.iter().map(super::events::Event::name).collect();
            self.line(&format!("events of its boot: {}", names.join(", ")));
        }
        let init_done = Reply {
            function: function::GSP_INIT_DONE,
            rpc_result: 0,
            rpc_seq: 0,
            payload: Vec::new(),
        };
        match self.post(mem, &init_done) {
            Ok(true) => {}
            // No room (post said why): held, and posted at the first tick that finds room, as
            // a reply is.
            Ok(false) => {
                self.state.as_mut().expect("running").held = Some(super::Held {
                    reply: init_done,
                    stop: false,
                });
            }
            Err(e) => {
                self.halt(Stop::Fault, &format!("stopped: {e}"));
                return ERR_FAULT;
            }
        }
        if let Err(e) = self.log_record(mem, 1, "GSP-RM: init done") {
            self.halt(Stop::Fault, &format!("stopped: {e}"));
            return ERR_FAULT;
        }
        self.line(&format!("{version} up"));
        0
    }

    /// Appends a record holding `text` to log buffer `which` (0: LOGINIT, 1: LOGRM), if the
    /// LIBOS arguments have it: word 0 of the buffer is the put pointer (in words, from 1 on
    /// past the buffer's own page table), the record the text's bytes, padded to whole words.
    fn log_record(
        &mut self,
        mem: &mut Sysmem<'_>,
        which: usize,
        text: &str,
    ) -> Result<(), GuestMemError> {
        let Some((pa, size)) = self.state.as_ref().and_then(|s| s.logs[which]) else {
            return Ok(());
        };
        let words = size / 8;
        let first = 1 + size.div_ceil(PAGE);
        let put = u64::from(mem.read_u32(pa)?) | (u64::from(mem.read_u32(pa + 4)?) << 32);
        let at = if (first..words).contains(&put) {
            put
        } else {
            first
        };
        let mut bytes = text.as_bytes().to_vec();
        bytes.resize(bytes.len().next_multiple_of(8), 0);
        let len = bytes.len() as u64 / 8;
        if at + len > words {
            return Ok(());
        }
        mem.write(pa + at * 8, &bytes)?;
        let next = at + len;
        mem.write(pa, &next.to_le_bytes())
    }

    /// Reads the arguments and sets the queues up; the error is the MAILBOX0
    /// code and the reason.
    fn boot(
        &mut self,
        mem: &mut Sysmem<'_>,
        libos_args: u64,
        booted: Version,
        pci: PciFunction,
    ) -> Result<Running, (u32, String)> {
        let bad = |msg: String| (ERR_BAD_ARGUMENTS, msg);
        let fault = |e: GuestMemError| (ERR_BAD_ARGUMENTS, e.to_string());
        let mut page = vec![0u8; PAGE as usize];
        mem.read(libos_args, &mut page).map_err(fault)?;
        let mut rmargs = None;
        let mut logs = [None, None];
        for entry in page.chunks_exact(libos::SIZE_OF) {
            let id8 = get_u64(entry, libos::ID8);
            if id8 == 0 {
                break;
            }
            let region = (
                get_u64(entry, libos::PA),
                get_u64(entry, libos::SIZE),
                entry[libos::KIND],
                entry[libos::LOC],
            );
            match id8 {
                libos::RMARGS if rmargs.is_none() => rmargs = Some(region),
                LOGINIT if logs[0].is_none() => logs[0] = Some(region),
                LOGRM if logs[1].is_none() => logs[1] = Some(region),
                _ => {}
            }
        }
        let check = |name: &str, region: Option<(u64, u64, u8, u8)>| match region {
            None => Err(bad(format!("no {name} in the LIBOS arguments"))),
            Some((pa, size, kind, loc))
                if kind != libos::KIND_CONTIGUOUS || loc != libos::LOC_SYSMEM =>
            {
                Err(bad(format!(
                    "{name} at {pa:#x}+{size:#x} has kind {kind} and loc {loc}, not contiguous \
                     system memory"
                )))
            }
            Some((pa, size, _, _)) => Ok((pa, size)),
        };
        let (rm_pa, rm_size) = check("RMARGS", rmargs)?;
        if rm_size % PAGE != 0 {
            // LIBOS maps whole pages: on silicon a region that is not goes unmapped.
            return Err(bad(format!(
                "RMARGS is {rm_size:#x} bytes, not a whole number of pages"
            )));
        }

        let logs = logs.map(|r| {
            r.and_then(|(pa, size, kind, loc)| {
                (kind == libos::KIND_CONTIGUOUS && loc == libos::LOC_SYSMEM && size >= 2 * PAGE)
                    .then_some((pa, size))
            })
        });
        let version = match self.config.forced_version {
            Some(v) => {
                self.line(&format!("firmware version forced to {v}"));
                v
            }
            None => booted,
        };

        let args_size = version.mq_init_args_size();
        if rm_size < args_size as u64 {
            return Err(bad(format!(
                "RMARGS holds {rm_size:#x} bytes, less than the {args_size} of {version}'s \
                 MESSAGE_QUEUE_INIT_ARGUMENTS"
            )));
        }
        let mut args = vec![0u8; args_size];
        mem.read(rm_pa, &mut args).map_err(fault)?;
        let shm = get_u64(&args, mq_args::SHARED_MEM_PHYS_ADDR);
        let entries = u64::from(get_u32(&args, mq_args::PAGE_TABLE_ENTRY_COUNT));
        let cmd_off = get_u64(&args, mq_args::CMD_QUEUE_OFFSET);
        let stat_off = get_u64(&args, mq_args::STAT_QUEUE_OFFSET);
        if version == Version::R535_113_01 {
            let lockless = (
                get_u64(&args, mq_args::LOCKLESS_CMD_QUEUE_OFFSET),
                get_u64(&args, mq_args::LOCKLESS_STAT_QUEUE_OFFSET),
            );
            if lockless != (0, 0) {
                self.line(&format!(
                    "lockless queue offsets {lockless:x?} are not 0 (ignored)"
                ));
            }
        }
        self.line(&format!(
            "shared memory at {shm:#x}, {entries} pages, command queue at +{cmd_off:#x}, \
             status queue at +{stat_off:#x}"
        ));
        let layout = |msg: String| (ERR_BAD_SHARED_MEMORY, msg);
        let qsize = u64::from(queue::SIZE);
        let table_bytes = (entries * 8).next_multiple_of(PAGE);
        if entries == 0 || entries > MAX_PAGE_TABLE_ENTRIES || shm % PAGE != 0 {
            return Err(layout(format!(
                "shared memory at {shm:#x} with {entries} pages is not page-aligned or has a \
                 page count outside 1..={MAX_PAGE_TABLE_ENTRIES}"
            )));
        }
        if cmd_off % PAGE != 0
            || stat_off % PAGE != 0
            || cmd_off < table_bytes
            || stat_off < cmd_off + qsize
            || stat_off + qsize > entries * PAGE
        {
            return Err(layout(format!(
                "queue offsets {cmd_off:#x} and {stat_off:#x} do not fit after a page table of \
                 {table_bytes:#x} bytes in {:#x} bytes of shared memory",
                entries * PAGE
            )));
        }
        if shm.checked_add(entries * PAGE).is_none() {
            return Err(layout(format!("shared memory at {shm:#x} overflows")));
        }
        let mut table = vec![0u8; (entries * 8) as usize];
        mem.read(shm, &mut table)
            .map_err(|e| (ERR_BAD_SHARED_MEMORY, e.to_string()))?;
        for i in 0..entries {
            let got = get_u64(&table, (i * 8) as usize);
            let want = shm + i * PAGE;
            if got != want {
                return Err(layout(format!(
                    "page table entry {i} is {got:#x}, not {want:#x}: the shared memory must be \
                     the contiguous pages of the region"
                )));
            }
        }

        let cmdq = shm + cmd_off;
        let statq = shm + stat_off;
        let mut header = [0u8; tx_header::SIZE_OF];
        put_u32(&mut header, tx_header::VERSION as usize, 0);
        put_u32(&mut header, tx_header::SIZE as usize, queue::SIZE);
        put_u32(&mut header, tx_header::MSG_SIZE as usize, queue::MSG_SIZE);
        put_u32(&mut header, tx_header::MSG_COUNT as usize, queue::MSG_COUNT);
        put_u32(&mut header, tx_header::WRITE_PTR as usize, 0);
        put_u32(&mut header, tx_header::FLAGS as usize, queue::FLAGS);
        put_u32(
            &mut header,
            tx_header::RX_HDR_OFF as usize,
            queue::RX_HDR_OFF,
        );
        put_u32(&mut header, tx_header::ENTRY_OFF as usize, queue::ENTRY_OFF);
        let fault = |e: GuestMemError| (ERR_FAULT, e.to_string());
        mem.write(statq, &header).map_err(fault)?;
        mem.write_u32(rx_read_ptr(statq), 0).map_err(fault)?;
        Ok(Running {
            version,
            cmdq,
            statq,
            cmd_rptr: 0,
            stat_wptr: 0,
            cmd_seq: 0,
            stat_seq: 0,
            pending: None,
            held: None,
            posted: 0,
            silent: None,
            bad_read_ptr: false,
            complaint: None,
            seq: Seq::Sent,
            logs,
            pci,
            ticks: 0,
            rm: {
                let mut tree = super::rm::Tree::default();
                tree.set_vram_end(self.wpr2_start.and_then(super::bar::usable_end));
                tree
            },
            system_info: false,
            registry: false,
            refused: false,
            doorbell: false,
            irq_lie: false,
        })
    }
}
