// SPDX-License-Identifier: GPL-2.0

//! The falcon engines (the GSP's falcon and SEC2): reset and core selection, loading IMEM and
//! DMEM by programmed I/O or by the falcon's DMA engine, the boot ROM's parameters, the boot
//! vector, mailboxes, the start and the wait for the halt.
//!
//! Both engines have the same registers at their own two bases ([`gsp::Gsp`], [`sec2::Sec2`]);
//! what differs between chip families (how a reset completes, the core selection of GA102's
//! dual falcon/RISC-V controllers, PIO or DMA, the boot ROM registers) is in one HAL per
//! family ([`hal`]). Every wait has one deadline; every status the device gives is read as its
//! word ([`state`]).

use core::marker::PhantomData;

use kernel::{
    dma::Coherent,
    io::{
        poll::read_poll_timeout,
        register::{
            RegisterBase,
            WithBase, //
        },
        Io,
    },
    prelude::*,
    time::{
        Delta,
        Instant,
        Monotonic, //
    },
};

use crate::{
    bar0::{
        Bar0,
        SharedBar0, //
    },
    chip::Chipset,
    untrusted::Untrusted,
};

pub(crate) mod gsp;
mod hal;
pub(crate) mod load;
pub(crate) mod regs;
pub(crate) mod sec2;
pub(crate) mod state;

pub(crate) use hal::FalconHal;
use load::{
    BromParams,
    Segment,
    BLOCK, //
};
use state::{
    Cond,
    CondReg,
    Holds,
    LockdownRegs,
    NotYet, //
};

/// The low and high halves of a DMA address, for a pair of mailboxes.
pub(crate) fn halves(address: u64) -> (u32, u32) {
    let [l0, l1, l2, l3, h0, h1, h2, h3] = address.to_le_bytes();
    (
        u32::from_le_bytes([l0, l1, l2, l3]),
        u32::from_le_bytes([h0, h1, h2, h3]),
    )
}

/// The base of an engine's `PFALCON` registers.
pub(crate) struct PFalconBase(());

/// The base of an engine's `PFALCON2` registers.
pub(crate) struct PFalcon2Base(());

/// A falcon engine: its two register bases and its name.
pub(crate) trait FalconEngine:
    RegisterBase<PFalconBase> + RegisterBase<PFalcon2Base> + 'static
{
    /// The engine's name, for the log.
    const NAME: &'static str;
}

/// How long a whole DMA load may take (transfers of 256 bytes take microseconds): what both
/// references allow each transfer (`nvkm/falcon/base.c`, `nvkm_falcon_dma_wr`,
/// `nova-core/falcon.rs`, `dma_wr`: 2 s).
pub(crate) const DMA_TIMEOUT: Delta = Delta::from_secs(2);

/// The DMA index [`Falcon::dma_load`]'s transfers go through: its commands leave
/// `DMATRFCMD`'s context DMA field (bits 14:12) at 0, nouveau's `FALCON_DMAIDX_UCODE`.
pub(crate) const LOAD_DMA_INDEX: usize = 0;

/// Which falcon memory a load goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mem {
    /// IMEM, secure code.
    ImemSecure,
    Dmem,
}

/// One falcon engine of a bound device.
pub(crate) struct Falcon<'a, E: FalconEngine> {
    bar: &'a SharedBar0,
    hal: FalconHal,
    _engine: PhantomData<E>,
}

/// The little-endian words of `data` (a whole number of them), as the PIO ports take them.
fn words(data: &[u8]) -> impl Iterator<Item = u32> + '_ {
    data.chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
}

/// Reads the register a condition is on, as the device answers it, with what its fields say.
fn read_cond<E: FalconEngine>(bar: &Bar0<'_>, cond: Cond) -> Untrusted<CondReg> {
    let raw = match cond {
        Cond::Halted | Cond::AliasInUse => bar
            .read(regs::NV_PFALCON_FALCON_CPUCTL::of::<E>())
            .into_raw(),
        Cond::ScrubbedDmactl => bar
            .read(regs::NV_PFALCON_FALCON_DMACTL::of::<E>())
            .into_raw(),
        Cond::ScrubbedHwcfg2 | Cond::ResetReady => bar
            .read(regs::NV_PFALCON_FALCON_HWCFG2::of::<E>())
            .into_raw(),
        Cond::DmaIdle => bar
            .read(regs::NV_PFALCON_FALCON_DMATRFCMD::of::<E>())
            .into_raw(),
        Cond::FalconCore => bar
            .read(regs::NV_PRISCV_RISCV_BCR_CTRL::of::<E>())
            .into_raw(),
        Cond::RiscvActiveStatus | Cond::RiscvIdleStatus => bar
            .read(regs::NV_PRISCV_RISCV_CORE_SWITCH_RISCV_STATUS::of::<E>())
            .into_raw(),
        Cond::Suspended => bar
            .read(regs::NV_PFALCON_FALCON_MAILBOX0::of::<E>())
            .into_raw(),
        Cond::RiscvActiveCpuctl | Cond::RiscvIdleCpuctl | Cond::RiscvHalted => {
            bar.read(regs::NV_PRISCV_RISCV_CPUCTL::of::<E>()).into_raw()
        }
        Cond::Handoff => bar
            .read(crate::regs::NV_PGC6_BSI_SECURE_SCRATCH_14)
            .into_raw(),
    };
    Untrusted::new_untrusted(cond_reg(cond, raw))
}

/// Whether the fields of `cond`'s register, whose word is `raw`, say that `cond` holds.
fn cond_reg(cond: Cond, raw: u32) -> CondReg {
    use regs::*;
    let fields_hold = match cond {
        Cond::Halted => NV_PFALCON_FALCON_CPUCTL::from_raw(raw).halted(),
        Cond::AliasInUse => NV_PFALCON_FALCON_CPUCTL::from_raw(raw).alias_en(),
        Cond::ScrubbedDmactl => {
            let r = NV_PFALCON_FALCON_DMACTL::from_raw(raw);
            !r.imem_scrubbing() && !r.dmem_scrubbing()
        }
        Cond::ScrubbedHwcfg2 => !NV_PFALCON_FALCON_HWCFG2::from_raw(raw).mem_scrubbing(),
        Cond::ResetReady => NV_PFALCON_FALCON_HWCFG2::from_raw(raw).reset_ready(),
        Cond::DmaIdle => NV_PFALCON_FALCON_DMATRFCMD::from_raw(raw).idle(),
        Cond::FalconCore => {
            let r = NV_PRISCV_RISCV_BCR_CTRL::from_raw(raw);
            r.core_select() == CoreSelect::Falcon && r.valid()
        }
        Cond::RiscvActiveStatus => {
            NV_PRISCV_RISCV_CORE_SWITCH_RISCV_STATUS::from_raw(raw).active_stat()
        }
        Cond::RiscvIdleStatus => {
            !NV_PRISCV_RISCV_CORE_SWITCH_RISCV_STATUS::from_raw(raw).active_stat()
        }
        Cond::RiscvActiveCpuctl => NV_PRISCV_RISCV_CPUCTL::from_raw(raw).active_stat(),
        Cond::RiscvIdleCpuctl => !NV_PRISCV_RISCV_CPUCTL::from_raw(raw).active_stat(),
        Cond::RiscvHalted => NV_PRISCV_RISCV_CPUCTL::from_raw(raw).halted(),
        Cond::Suspended => NV_PFALCON_FALCON_MAILBOX0::from_raw(raw).libos_suspended(),
        Cond::Handoff => {
            crate::regs::NV_PGC6_BSI_SECURE_SCRATCH_14::from_raw(raw).boot_stage_3_handoff()
        }
    };
    CondReg { raw, fields_hold }
}

impl<'a, E: FalconEngine> Falcon<'a, E> {
    /// The engine of a `chipset` device.
    pub(crate) fn new(bar: &'a SharedBar0, chipset: Chipset) -> Self {
        Falcon {
            bar,
            hal: chipset.family().falcon,
            _engine: PhantomData,
        }
    }

    /// Runs `f` on BAR0 while the device is bound.
    fn with<R>(&self, f: impl FnOnce(&Bar0<'_>) -> R) -> Result<R> {
        self.bar.with(f)
    }

    /// Whether `cond` holds now.
    pub(crate) fn check(&self, cond: Cond) -> Result<Result<Holds, NotYet>> {
        Ok(self
            .with(|bar| read_cond::<E>(bar, cond))?
            .validate_ref_against::<Holds, _>(cond))
    }

    /// Waits until `cond` holds, at most `timeout`; `Ok(Err(..))` with the last value when it
    /// did not.
    pub(crate) fn wait(&self, cond: Cond, timeout: Delta) -> Result<Result<Holds, NotYet>> {
        read_poll_timeout(
            || self.check(cond),
            |state| state.is_ok(),
            Delta::from_micros(10),
            timeout,
        )
        .or_else(|_| self.check(cond))
    }

    /// Waits for the CPU's halt after `name` was started, at most `timeout`: not halted by then
    /// fails with `ETIMEDOUT` and a line naming it.
    pub(crate) fn wait_halted(&self, name: &str, timeout: Delta) -> Result {
        self.wait(Cond::Halted, timeout)?.map(|_| ()).map_err(|e| {
            dev_err!(
                self.bar.device(),
                "{} did not halt within {} ms: {}\n",
                name,
                timeout.as_millis(),
                e
            );
            ETIMEDOUT
        })
    }

    /// Waits for `cond` as part of a sequence, at most `left` of the step's `budget`: not
    /// holding by then fails with `ETIMEDOUT` and a line naming the engine, the step, the
    /// value and the budget.
    fn wait_for(&self, cond: Cond, left: Delta, budget: Delta, step: &str) -> Result {
        self.wait(cond, left)?.map(|_| ()).map_err(|e| {
            dev_err!(
                self.bar.device(),
                "{} falcon {}: {} within {} ms\n",
                E::NAME,
                step,
                e,
                budget.as_millis()
            );
            ETIMEDOUT
        })
    }

    /// Resets the engine, selects its falcon core and waits for its memory to be scrubbed; then
    /// writes `NV_PMC_BOOT_0`'s value to its RM register, as the firmware expects.
    pub(crate) fn reset(&self, boot0: u32) -> Result {
        self.hal.reset::<E>(self)?;
        self.hal.select_core::<E>(self)?;
        self.hal.wait_scrubbed::<E>(self)?;
        self.with(|bar| {
            bar.write(
                WithBase::of::<E>(),
                regs::NV_PFALCON_FALCON_RM::from_raw(boot0),
            )
        })?;
        Ok(())
    }

    /// Holds the engine in reset for at least 10 us, then lets it go.
    fn toggle_reset(&self) -> Result {
        self.with(|bar| {
            bar.write(
                WithBase::of::<E>(),
                regs::NV_PFALCON_FALCON_ENGINE::zeroed().with_reset(true),
            )
        })?;
        kernel::time::delay::fsleep(Delta::from_micros(10));
        self.with(|bar| {
            bar.write(
                WithBase::of::<E>(),
                regs::NV_PFALCON_FALCON_ENGINE::zeroed().with_reset(false),
            )
        })
    }

    /// Writes `data` into IMEM at `dst` through port 0, one 256-byte block per tag from
    /// `start_tag` on. `data` is a whole number of words.
    pub(crate) fn pio_imem(&self, data: &[u8], dst: u16, secure: bool, start_tag: u16) -> Result {
        if data.len() % 4 != 0 {
            return Err(EINVAL);
        }
        self.with(|bar| {
            bar.write(
                WithBase::of::<E>(),
                regs::NV_PFALCON_FALCON_IMEMC::zeroed()
                    .with_secure(secure)
                    .with_aincw(true)
                    .with_offs(dst),
            );
        })?;
        for (n, block) in data.chunks(BLOCK).enumerate() {
            let tag = u16::try_from(n)
                .ok()
                .and_then(|n| start_tag.checked_add(n))
                .ok_or(ERANGE)?;
            self.with(|bar| {
                bar.write(
                    WithBase::of::<E>(),
                    regs::NV_PFALCON_FALCON_IMEMT::zeroed().with_tag(tag),
                );
                for word in words(block) {
                    bar.write(
                        WithBase::of::<E>(),
                        regs::NV_PFALCON_FALCON_IMEMD::zeroed().with_data(word),
                    );
                }
            })?;
        }
        Ok(())
    }

    /// Writes `data` into DMEM at `dst` through port 0. `data` is a whole number of words.
    pub(crate) fn pio_dmem(&self, data: &[u8], dst: u16) -> Result {
        if data.len() % 4 != 0 {
            return Err(EINVAL);
        }
        self.with(|bar| {
            bar.write(
                WithBase::of::<E>(),
                regs::NV_PFALCON_FALCON_DMEMC::zeroed()
                    .with_aincw(true)
                    .with_offs(dst),
            );
        })?;
        for block in data.chunks(BLOCK) {
            self.with(|bar| {
                for word in words(block) {
                    bar.write(
                        WithBase::of::<E>(),
                        regs::NV_PFALCON_FALCON_DMEMD::zeroed().with_data(word),
                    );
                }
            })?;
        }
        Ok(())
    }

    /// Lets DMA index `index` reach coherent system memory by physical address (and the
    /// engine use physical addresses without a context).
    pub(crate) fn dma_to_sysmem(&self, index: usize) -> Result {
        self.dma_reset()?;
        self.with(|bar| {
            let transcfg = regs::NV_PFALCON_FBIF_TRANSCFG::of::<E>()
                .try_at(index)
                .ok_or(EINVAL)?;
            bar.update(transcfg, |v| {
                v.with_target(regs::FbifTarget::CoherentSysmem)
                    .with_mem_type(regs::FbifMemType::Physical)
            });
            Ok(())
        })?
    }

    /// Copies `segment` of the image in `buf` into `mem` with the falcon's DMA engine, 256
    /// bytes per transfer: IMEM blocks are tagged with their image offset (code addresses are
    /// virtual), DMEM's source offset is folded into the base. The segment must lie in `buf`
    /// (whole blocks); every transfer must be done by `deadline`, one deadline for the load.
    pub(crate) fn dma_load(
        &self,
        buf: &Coherent<[u8]>,
        segment: Segment,
        mem: Mem,
        deadline: Instant<Monotonic>,
    ) -> Result {
        let end = segment.src as usize + (segment.len as usize).next_multiple_of(BLOCK);
        if end > buf.len() {
            return Err(EINVAL);
        }
        let base = buf.dma_address();
        let (src, base) = match mem {
            Mem::ImemSecure => (segment.src, base),
            Mem::Dmem => (0, base + u64::from(segment.src)),
        };
        if base % BLOCK as u64 != 0 {
            return Err(EINVAL);
        }
        let cmd = regs::NV_PFALCON_FALCON_DMATRFCMD::zeroed()
            .with_size(regs::DmaTrfCmdSize::Size256B)
            .with_mem(mem);
        let base1 = regs::NV_PFALCON_FALCON_DMATRFBASE1::zeroed()
            .try_with_base(base >> 40)
            .map_err(|_| EINVAL)?;
        self.with(|bar| {
            bar.write(
                WithBase::of::<E>(),
                regs::NV_PFALCON_FALCON_DMATRFBASE::from_raw((base >> 8) as u32),
            );
            bar.write(WithBase::of::<E>(), base1);
        })?;
        for pos in (0..segment.len).step_by(BLOCK) {
            self.with(|bar| -> Result {
                bar.write(
                    WithBase::of::<E>(),
                    regs::NV_PFALCON_FALCON_DMATRFMOFFS::zeroed()
                        .try_with_offs(segment.dst.checked_add(pos).ok_or(EINVAL)?)
                        .map_err(|_| EINVAL)?,
                );
                bar.write(
                    WithBase::of::<E>(),
                    regs::NV_PFALCON_FALCON_DMATRFFBOFFS::from_raw(src + pos),
                );
                bar.write(WithBase::of::<E>(), cmd);
                Ok(())
            })??;
            let left = deadline - Instant::<Monotonic>::now();
            let left = if left.as_nanos() > 0 {
                left
            } else {
                Delta::ZERO
            };
            self.wait_for(Cond::DmaIdle, left, DMA_TIMEOUT, "DMA load")?;
        }
        Ok(())
    }

    /// Programs the boot ROM's parameters (GA102 and later; nothing on Turing and GA100).
    pub(crate) fn program_brom(&self, params: &BromParams) -> Result {
        self.hal.program_brom::<E>(self, params)
    }

    /// Starts the CPU at `bootvec` with `mailbox0` in its first mailbox.
    pub(crate) fn start(&self, bootvec: u32, mailbox0: u32) -> Result {
        self.with(|bar| {
            bar.write(
                WithBase::of::<E>(),
                regs::NV_PFALCON_FALCON_BOOTVEC::from_raw(bootvec),
            );
            bar.write(
                WithBase::of::<E>(),
                regs::NV_PFALCON_FALCON_MAILBOX0::from_raw(mailbox0),
            );
        })?;
        self.start_cpu()
    }

    /// Lets the engine use physical addresses without a context and clears `DMACTL` (after a
    /// reset, before the engine's code runs DMA again).
    pub(crate) fn dma_reset(&self) -> Result {
        self.with(|bar| {
            bar.update(regs::NV_PFALCON_FBIF_CTL::of::<E>(), |v| {
                v.with_allow_phys_no_ctx(true)
            });
            bar.write(
                WithBase::of::<E>(),
                regs::NV_PFALCON_FALCON_DMACTL::zeroed(),
            );
        })
    }

    /// Writes both mailboxes.
    pub(crate) fn write_mailboxes(&self, mailbox0: u32, mailbox1: u32) -> Result {
        self.with(|bar| {
            bar.write(
                WithBase::of::<E>(),
                regs::NV_PFALCON_FALCON_MAILBOX0::from_raw(mailbox0),
            );
            bar.write(
                WithBase::of::<E>(),
                regs::NV_PFALCON_FALCON_MAILBOX1::from_raw(mailbox1),
            );
        })
    }

    /// Mailbox 0 as the device answers it.
    pub(crate) fn mailbox0(&self) -> Result<Untrusted<u32>> {
        self.with(|bar| {
            Untrusted::new_untrusted(
                bar.read(regs::NV_PFALCON_FALCON_MAILBOX0::of::<E>())
                    .into_raw(),
            )
        })
    }

    /// HWCFG2 and both mailboxes as the device answers them: where GSP-FMC's boot stands
    /// (Hopper and later).
    pub(crate) fn lockdown_regs(&self) -> Result<Untrusted<LockdownRegs>> {
        self.with(|bar| {
            let hwcfg2 = bar.read(regs::NV_PFALCON_FALCON_HWCFG2::of::<E>());
            Untrusted::new_untrusted(LockdownRegs {
                hwcfg2: hwcfg2.into_raw(),
                lockdown: hwcfg2.riscv_br_priv_lockdown(),
                mailbox0: bar
                    .read(regs::NV_PFALCON_FALCON_MAILBOX0::of::<E>())
                    .into_raw(),
                mailbox1: bar
                    .read(regs::NV_PFALCON_FALCON_MAILBOX1::of::<E>())
                    .into_raw(),
            })
        })
    }

    /// Writes the OS register: the application version of the code the engine runs.
    pub(crate) fn write_os(&self, version: u32) -> Result {
        self.with(|bar| {
            bar.write(
                WithBase::of::<E>(),
                regs::NV_PFALCON_FALCON_OS::from_raw(version),
            )
        })
    }

    /// The condition that says the RISC-V core is active, as the family reads it.
    pub(crate) fn riscv_active(&self) -> Cond {
        self.hal.riscv_active()
    }

    /// The condition that says the RISC-V core stopped, as the family reads it.
    pub(crate) fn riscv_idle(&self) -> Cond {
        match self.hal.riscv_active() {
            Cond::RiscvActiveStatus => Cond::RiscvIdleStatus,
            _ => Cond::RiscvIdleCpuctl,
        }
    }

    /// Starts the CPU at the boot vector it has (through `CPUCTL_ALIAS` when `CPUCTL` says the
    /// alias is in use).
    pub(crate) fn start_cpu(&self) -> Result {
        let alias = self.check(Cond::AliasInUse)?.is_ok();
        self.with(|bar| {
            if alias {
                bar.write(
                    WithBase::of::<E>(),
                    regs::NV_PFALCON_FALCON_CPUCTL_ALIAS::zeroed().with_startcpu(true),
                );
            } else {
                bar.write(
                    WithBase::of::<E>(),
                    regs::NV_PFALCON_FALCON_CPUCTL::zeroed().with_startcpu(true),
                );
            }
        })
    }
}

#[kernel::prelude::kunit_tests(nova_core_falcon)]
mod tests {
    use super::*;

    /// Whether each of the engine's own conditions holds on the word `raw` (every register
    /// read as `raw`), decoded by the register declarations.
    fn holds(raw: u32) -> [bool; 7] {
        [
            Cond::Halted,
            Cond::AliasInUse,
            Cond::ScrubbedDmactl,
            Cond::ScrubbedHwcfg2,
            Cond::ResetReady,
            Cond::DmaIdle,
            Cond::FalconCore,
        ]
        .map(|c| {
            Untrusted::new_untrusted(cond_reg(c, raw))
                .validate_ref_against::<Holds, _>(c)
                .is_ok()
        })
    }

    #[test]
    fn conditions_read_their_fields_and_all_ones_confirms_nothing() {
        // Halted, alias, DMACTL scrubbed, HWCFG2 scrubbed, reset ready, DMA idle, falcon core.
        assert_eq!(holds(0), [false, false, true, true, false, false, false]);
        assert_eq!(
            holds(1 << 4),
            [true, false, true, true, false, false, false]
        );
        assert_eq!(
            holds(1 << 6),
            [false, true, true, true, false, false, false]
        );
        assert_eq!(
            holds(0b110),
            [false, false, false, true, false, true, false]
        );
        assert_eq!(
            holds(1 << 12),
            [false, false, true, false, false, false, false]
        );
        assert_eq!(
            holds((1 << 31) | 1),
            [false, false, true, true, true, false, true]
        );
        assert_eq!(holds(0x11), [true, false, true, true, false, false, false]);
        assert_eq!(holds(u32::MAX), [false; 7]);
    }

    #[test]
    fn typed_fields_write_the_values_the_hardware_names() {
        use regs::*;
        let cmd = NV_PFALCON_FALCON_DMATRFCMD::zeroed().with_size(DmaTrfCmdSize::Size256B);
        // Size 6 (256 bytes) at 10:8, IMEM at bit 4, secure 1 at 3:2.
        assert_eq!(cmd.with_mem(Mem::ImemSecure).into_raw(), 0x614);
        assert_eq!(cmd.with_mem(Mem::Dmem).into_raw(), 0x600);
        // A load into DMEM after one into IMEM leaves neither IMEM nor secure set.
        assert_eq!(
            cmd.with_mem(Mem::ImemSecure).with_mem(Mem::Dmem).into_raw(),
            0x600
        );
        let transcfg = NV_PFALCON_FBIF_TRANSCFG::zeroed()
            .with_target(FbifTarget::CoherentSysmem)
            .with_mem_type(FbifMemType::Physical);
        assert_eq!(transcfg.into_raw(), 0x5);
        assert_eq!(
            NV_PFALCON2_FALCON_MOD_SEL::zeroed()
                .with_algo(ModSelAlgo::Rsa3k)
                .into_raw(),
            1
        );
        let core = |c| NV_PRISCV_RISCV_BCR_CTRL::zeroed().with_core_select(c);
        assert_eq!(core(CoreSelect::Falcon).into_raw(), 0);
        assert_eq!(core(CoreSelect::Riscv).into_raw(), 1 << 4);
        // `SWGEN0` in the three interrupt registers is the bit the parsing core routes.
        let swgen0 = crate::intr::status::SWGEN0;
        assert_eq!(
            NV_PFALCON_FALCON_IRQSCLR::zeroed()
                .with_swgen0(true)
                .into_raw(),
            swgen0
        );
        assert_eq!(
            NV_PFALCON_FALCON_IRQMCLR::zeroed()
                .with_swgen0(true)
                .into_raw(),
            swgen0
        );
        assert!(NV_PFALCON_FALCON_IRQSTAT::from_raw(swgen0).swgen0());
        assert!(NV_PFALCON_FALCON_IRQSTAT::from_raw(1 << 4).halt());
    }

    #[test]
    fn a_field_value_with_no_name_reads_as_an_error() {
        use crate::field::Unknown;
        use regs::*;
        fn unknown<T>(field: &'static str, raw: u32) -> Result<T, Unknown> {
            Err(Unknown { field, raw })
        }
        let cmd = NV_PFALCON_FALCON_DMATRFCMD::from_raw;
        assert_eq!(cmd(6 << 8).size(), Ok(DmaTrfCmdSize::Size256B));
        for size in [0, 5, 7] {
            assert_eq!(
                cmd(size << 8).size(),
                unknown("NV_PFALCON_FALCON_DMATRFCMD size", size)
            );
        }
        assert_eq!(cmd(1 << 2).sec(), Ok(DmaTrfCmdSec::Secure));
        assert_eq!(
            cmd(3 << 2).sec(),
            unknown("NV_PFALCON_FALCON_DMATRFCMD sec", 3)
        );
        let transcfg = NV_PFALCON_FBIF_TRANSCFG::from_raw;
        assert_eq!(transcfg(2).target(), Ok(FbifTarget::NoncoherentSysmem));
        assert_eq!(
            transcfg(u32::MAX).target(),
            unknown("NV_PFALCON_FBIF_TRANSCFG target", 3)
        );
        assert_eq!(transcfg(u32::MAX).mem_type(), FbifMemType::Physical);
        let algo = |raw| NV_PFALCON2_FALCON_MOD_SEL::from_raw(raw).algo();
        assert_eq!(algo(0), Ok(ModSelAlgo::Aes));
        assert_eq!(
            algo(0x1ff),
            unknown("NV_PFALCON2_FALCON_MOD_SEL algo", 0xff)
        );
        assert_eq!(
            NV_PRISCV_RISCV_BCR_CTRL::from_raw(!(1 << 4)).core_select(),
            CoreSelect::Falcon
        );
        assert_eq!(
            NV_PRISCV_RISCV_BCR_CTRL::from_raw(u32::MAX).core_select(),
            CoreSelect::Riscv
        );
    }

    #[test]
    fn the_risc_v_core_and_gsp_rm_conditions_read_their_fields() {
        let holds = |c: Cond, raw: u32| {
            Untrusted::new_untrusted(cond_reg(c, raw))
                .validate_ref_against::<Holds, _>(c)
                .is_ok()
        };
        assert!(holds(Cond::RiscvActiveStatus, 1) && !holds(Cond::RiscvIdleStatus, 1));
        assert!(holds(Cond::RiscvIdleStatus, 0) && !holds(Cond::RiscvActiveStatus, 0));
        assert!(holds(Cond::RiscvActiveCpuctl, 1 << 7) && !holds(Cond::RiscvIdleCpuctl, 1 << 7));
        assert!(holds(Cond::RiscvHalted, 1 << 4));
        // A read the PRIV target mask refuses says nothing of the halt.
        assert!(!holds(Cond::RiscvHalted, 0xbadf_4110));
        assert!(holds(Cond::Handoff, 1 << 26) && !holds(Cond::Handoff, !(1 << 26)));
        assert!(holds(Cond::Suspended, 1 << 31) && !holds(Cond::Suspended, 0x7fff_ffff));
        assert!(!holds(Cond::Suspended, u32::MAX));
    }
}
