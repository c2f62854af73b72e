//! The public face of a log-structured baseline: `format`/`open` with the
//! label checks, and `BlockDevice` by delegation to [`LogFtl`]. The async
//! and sync FTLs differ only in their [`Mode`], so one macro declares both.

/// Declares a baseline FTL type `$name` of kind `$kind` over [`LogFtl`].
macro_rules! baseline_ftl {
    ($(#[$meta:meta])* $name:ident, $kind:expr) => {
        $(#[$meta])*
        pub struct $name<F: ::flash::Flash> {
            inner: $crate::logstruct::LogFtl<F>,
        }

        impl<F: ::flash::Flash> $name<F> {
            /// Formats `flash` as a device of this kind.
            pub fn format(flash: F, config: $crate::logstruct::LogConfig) -> $crate::Result<Self> {
                Self::format_with_mutant(flash, config, $crate::Mutant::None)
            }

            /// `format` with a seeded bug (crash-checker self-test).
            pub fn format_with_mutant(
                flash: F,
                config: $crate::logstruct::LogConfig,
                mutant: $crate::Mutant,
            ) -> $crate::Result<Self> {
                let mode = $crate::logstruct::Mode::new($kind, mutant)?;
                Ok($name { inner: $crate::logstruct::LogFtl::format(flash, config, mode)? })
            }

            /// Opens a device of this kind: reads the label, then recovers
            /// (scans the flash; the sync FTL also replays its log).
            pub fn open(flash: F) -> $crate::Result<Self> {
                Self::open_with_mutant(flash, $crate::Mutant::None)
            }

            /// `open` with a seeded bug (crash-checker self-test).
            pub fn open_with_mutant(mut flash: F, mutant: $crate::Mutant) -> $crate::Result<Self> {
                let mode = $crate::logstruct::Mode::new($kind, mutant)?;
                let (kind, bytes) = $crate::label::read_label(&mut flash)?;
                if kind != $kind {
                    return Err($crate::FtlError::WrongKind { found: kind, expected: $kind });
                }
                let config = $crate::logstruct::LogConfig::decode(&bytes)?;
                Ok($name { inner: $crate::logstruct::LogFtl::recover(flash, config, mode)? })
            }

            /// The configuration stored in the label.
            pub fn config(&self) -> &$crate::logstruct::LogConfig {
                self.inner.config()
            }

            /// Gives the flash device back (without flushing).
            pub fn into_flash(self) -> F {
                self.inner.into_flash()
            }

            /// The flash device (see `LogFtl::flash_mut`).
            pub fn flash_mut(&mut self) -> &mut F {
                self.inner.flash_mut()
            }
        }

        impl<F: ::flash::Flash> $crate::BlockDevice for $name<F> {
            fn sector_size(&self) -> usize {
                self.inner.sector_size()
            }
            fn num_sectors(&self) -> u64 {
                self.inner.num_sectors()
            }
            fn read(&mut self, lba: $crate::Lba, buf: &mut [u8]) -> $crate::Result<()> {
                self.inner.read(lba, buf)
            }
            fn allocation(
                &self,
                lba: $crate::Lba,
                count: u64,
            ) -> Option<$crate::Result<Vec<(u64, bool)>>> {
                Some(self.inner.allocation(lba, count))
            }
            fn write(&mut self, lba: $crate::Lba, data: &[u8]) -> $crate::Result<()> {
                self.inner.guarded(|f| f.write(lba, data))
            }
            fn trim(&mut self, lba: $crate::Lba, count: u64) -> $crate::Result<()> {
                self.inner.guarded(|f| f.trim(lba, count))
            }
            fn flush(&mut self) -> $crate::Result<()> {
                self.inner.guarded(|f| f.flush())
            }
            fn epoch_remaining(&self) -> Option<u64> {
                None
            }
            /// Dynamic wear leveling only (`static_spread` is refused: the
            /// baselines move no data for wear).
            fn set_wear_policy(&mut self, policy: $crate::WearPolicy) -> $crate::Result<()> {
                self.inner.set_wear_policy(policy)
            }
            fn stats(&self) -> $crate::DeviceStats {
                self.inner.stats()
            }
            fn check_invariants(&mut self) -> Result<(), String> {
                self.inner.check_invariants()
            }
        }
    };
}

pub(crate) use baseline_ftl;
