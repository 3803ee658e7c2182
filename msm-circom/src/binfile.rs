//! iden3's binary container (`.zkey`, `.wtns`, `.r1cs`, `.ptau`): a 4-byte
//! magic, a version, then sections of (type u32, length u64, bytes), all
//! little-endian. Sections are located once and read by type.

use crate::error::{CircomError, FileKind};

/// The bytes of the file at `path`, or an error naming it.
pub(crate) fn read_path(path: &std::path::Path) -> Result<Vec<u8>, CircomError> {
    std::fs::read(path).map_err(|source| CircomError::Io {
        path: path.display().to_string(),
        source,
    })
}

/// A container's sections over its bytes.
pub(crate) struct BinFile<'a> {
    kind: FileKind,
    bytes: &'a [u8],
    /// (type, start, length) in file order.
    sections: Vec<(u32, usize, usize)>,
}

impl<'a> BinFile<'a> {
    /// Checks the magic and version and locates every section.
    pub(crate) fn parse(kind: FileKind, bytes: &'a [u8], versions: &[u32]) -> Result<Self, CircomError> {
        let mut r = Reader::new(kind, bytes, "the file header");
        let magic = r.take(4)?;
        if magic != kind.magic() {
            return Err(CircomError::Magic {
                kind,
                found: magic.try_into().expect("4 bytes"),
            });
        }
        let version = r.u32()?;
        if !versions.contains(&version) {
            return Err(CircomError::Version { kind, version });
        }
        let count = r.u32()?;
        let mut sections = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let ty = r.u32()?;
            let len = r.u64()?;
            let start = r.pos;
            let len = usize::try_from(len).map_err(|_| r.truncated(len))?;
            r.what = "a section";
            r.take(len)?;
            sections.push((ty, start, len));
        }
        Ok(BinFile { kind, bytes, sections })
    }

    /// The one section of type `ty`.
    pub(crate) fn section(&self, ty: u32) -> Result<Reader<'a>, CircomError> {
        let mut found = self.sections.iter().filter(|s| s.0 == ty);
        let (_, start, len) = *found.next().ok_or(CircomError::MissingSection {
            kind: self.kind,
            section: ty,
        })?;
        if found.next().is_some() {
            return Err(CircomError::Malformed {
                kind: self.kind,
                detail: format!("section {ty} appears more than once"),
            });
        }
        Ok(Reader {
            kind: self.kind,
            bytes: &self.bytes[start..start + len],
            pos: 0,
            what: "a section",
            section: Some(ty),
        })
    }
}

/// A cursor over a file's or a section's bytes whose reads past the end are
/// [`CircomError::Truncated`].
pub(crate) struct Reader<'a> {
    kind: FileKind,
    bytes: &'a [u8],
    pos: usize,
    what: &'static str,
    section: Option<u32>,
}

impl<'a> Reader<'a> {
    fn new(kind: FileKind, bytes: &'a [u8], what: &'static str) -> Self {
        Reader {
            kind,
            bytes,
            pos: 0,
            what,
            section: None,
        }
    }

    fn truncated(&self, needed: u64) -> CircomError {
        CircomError::Truncated {
            kind: self.kind,
            what: match self.section {
                Some(s) => format!("section {s}"),
                None => self.what.to_string(),
            },
            needed,
            left: (self.bytes.len() - self.pos) as u64,
        }
    }

    /// The next `n` bytes.
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], CircomError> {
        if self.bytes.len() - self.pos < n {
            return Err(self.truncated(n as u64));
        }
        let out = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    pub(crate) fn u32(&mut self) -> Result<u32, CircomError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }

    pub(crate) fn u64(&mut self) -> Result<u64, CircomError> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }

    /// The bytes not read yet.
    pub(crate) fn rest(&self) -> &'a [u8] {
        &self.bytes[self.pos..]
    }

    /// `count` items of `size` bytes each, checking that the section holds
    /// exactly them (a longer section is a key of another shape).
    pub(crate) fn items(&mut self, count: usize, size: usize) -> Result<&'a [u8], CircomError> {
        let out = self.take(count * size)?;
        if !self.rest().is_empty() {
            return Err(CircomError::Malformed {
                kind: self.kind,
                detail: format!(
                    "section {} holds {} bytes more than its {count} items of {size} bytes",
                    self.section.unwrap_or(0),
                    self.rest().len()
                ),
            });
        }
        Ok(out)
    }
}
