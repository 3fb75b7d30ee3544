// SPDX-License-Identifier: GPL-2.0

//! The interrupts the device delivers to the client: the interrupt tree's level
//! ([`crate::intr`]), fed by the GSP falcon's output, goes out by MSI while the client gave MSI
//! a trigger eventfd (QEMU does when the guest enables MSI), by INTx otherwise.
//!
//! | kind | sent when | then |
//! |---|---|---|
//! | MSI | the level is high, MSI is armed and bus mastering is on (an MSI is a memory write) | disarmed until the driver re-arms it ([`crate::intr::Effect::RearmMsi`]); a re-arm while the level is still high sends the next at once |
//! | INTx | the level is high, the line is not masked and the command register's INTx disable is clear | the line masks itself (VFIO's `AUTOMASKED`) until the client unmasks it: SET_IRQS UNMASK (QEMU under TCG, at the guest's EOI) or a signal on the resample eventfd (QEMU under KVM), read at every GSP tick; an unmask while the level is still high triggers again at once |
//!
//! MSI is armed at power-on and after a reset. The line is re-evaluated after every BAR0 or
//! config space write, every GSP tick, every SET_IRQS, a reset and the slot's power cut. Each
//! interrupt delivered is counted in its phase ([`Counts::interrupt`]) and the first of each
//! kind logged. The INTx mask is the VFIO interrupt context's, which the client sets up: a
//! trigger eventfd set for INTx starts unmasked (as Linux's `vfio_intx_enable`), a device
//! reset leaves it.

use std::io::Read;
use std::os::fd::AsRawFd;

use super::*;
use crate::config::PCI_COMMAND_INTX_DISABLE;
use crate::counts::Delivery;

impl Device {
    /// The vfio IRQ line of `index`.
    fn line_mut(&mut self, index: u32) -> Option<&mut IrqLine> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.irqs.get_mut(i))
    }

    /// Takes the GSP falcon's output into the interrupt tree, then sends what the tree's level
    /// calls for (see the module's documentation).
    pub(super) fn update_irq(&mut self) {
        let output = self.engines.as_ref().is_some_and(|e| e.gsp.irq_output());
        self.intr.set_gsp_output(output);
        if !self.intr.level() {
            return;
        }
        let command = self.config.command();
        let msi = self
            .line_mut(VFIO_PCI_MSI_IRQ_INDEX)
            .is_some_and(|l| l.triggers.iter().any(Option::is_some));
        if msi {
            if self.msi_armed
                && command & PCI_COMMAND_MASTER != 0
                && self.signal(VFIO_PCI_MSI_IRQ_INDEX, Delivery::Msi)
            {
                self.msi_armed = false;
            }
            return;
        }
        let unmasked = self
            .line_mut(VFIO_PCI_INTX_IRQ_INDEX)
            .is_some_and(|l| !l.masked);
        if unmasked
            && command & PCI_COMMAND_INTX_DISABLE == 0
            && self.signal(VFIO_PCI_INTX_IRQ_INDEX, Delivery::Intx)
        {
            if let Some(line) = self.line_mut(VFIO_PCI_INTX_IRQ_INDEX) {
                line.masked = true;
            }
        }
    }

    /// Signals vector 0 of the line `index` through its trigger eventfd, counted as
    /// `delivery`; whether it was signalled (a failure is logged).
    fn signal(&mut self, index: u32, delivery: Delivery) -> bool {
        let Some(line) = self.line_mut(index) else {
            return false;
        };
        let name = line.name;
        let Some(Some(fd)) = line.triggers.first_mut() else {
            return false;
        };
        if let Err(e) = signal_eventfd(fd) {
            self.log.line(&format!(
                "{name}: the trigger eventfd cannot be signalled: {e}"
            ));
            return false;
        }
        self.counts.interrupt(delivery);
        let phase = self.counts.phase();
        self.first_interrupts.log(&self.log, u64::from(index), || {
            format!("{name}: first interrupt delivered (phase {phase})")
        });
        true
    }

    /// MSI re-armed by the driver: the next interrupt may be sent, at once if the level is
    /// still high (the caller re-evaluates the line).
    pub(super) fn rearm_msi(&mut self) {
        self.msi_armed = true;
    }

    /// Reads INTx's resample eventfd without blocking (the GSP thread's tick): a signal, the
    /// guest's EOI under KVM, unmasks the line as SET_IRQS UNMASK does. A failing eventfd is
    /// logged and dropped.
    pub(super) fn poll_resample(&mut self) {
        let Some(line) = self.line_mut(VFIO_PCI_INTX_IRQ_INDEX) else {
            return;
        };
        let Some(fd) = &line.resample else {
            return;
        };
        match try_read_eventfd(fd) {
            Ok(true) => line.masked = false,
            Ok(false) => {}
            Err(e) => {
                line.resample = None;
                let name = line.name;
                self.log.line(&format!(
                    "{name}: the resample eventfd cannot be read ({e}): dropped"
                ));
            }
        }
    }

    /// Whether INTx is masked and waits for its resample eventfd: the GSP thread then ticks
    /// at its running pace to read it.
    pub(super) fn awaits_resample(&mut self) -> bool {
        self.line_mut(VFIO_PCI_INTX_IRQ_INDEX)
            .is_some_and(|l| l.masked && l.resample.is_some())
    }

    /// What GSP-RM did to the GSP falcon's interrupt since the last look, after a GSP tick:
    /// SWGEN0 raised in IRQSTAT (whatever the mask says), IRQSCLR stuck or not (`--gsp-fault
    /// irq-stuck`); then the line is re-evaluated.
    pub(super) fn gsp_interrupts(&mut self) {
        if let (Some(gsp), Some(e)) = (&mut self.gsp, &mut self.engines) {
            if gsp.take_swgen0() {
                e.gsp.raise_swgen0();
            }
            e.gsp.set_swgen0_stuck(gsp.swgen0_stuck());
            e.gsp.set_swgen0_storm(gsp.swgen0_storm());
        }
        self.update_irq();
    }
}

/// Reads an eventfd's counter if it is not 0, without blocking; whether it was.
fn try_read_eventfd(fd: &File) -> io::Result<bool> {
    let mut poll = libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: `poll` is one valid, initialised pollfd that lives across the call; a timeout of
    // 0 returns at once.
    let ready = unsafe { libc::poll(&mut poll, 1, 0) };
    if ready < 0 {
        return Err(io::Error::last_os_error());
    }
    if ready == 0 || poll.revents & libc::POLLIN == 0 {
        return Ok(false);
    }
    // Readable: the 8-byte read takes the counter without blocking.
    let mut counter = [0u8; 8];
    let mut reader: &File = fd;
    reader.read_exact(&mut counter)?;
    Ok(true)
}

#[cfg(test)]
mod tests;
