//! WDBC tables of the WoW client (`DBFilesClient/*.dbc`): the two that say which skins a
//! creature model wears.
//!
//! A WDBC file is a 20-byte header (`WDBC`, then u32 record count, field count, record size and
//! string block size), the records (fixed size, little-endian u32 fields), then the string block
//! (NUL-terminated strings, which string fields point into by offset). The header must add up to
//! the file's size exactly, and the record size to four bytes a field; a file that does not is
//! refused, naming the field that lies. Which field holds what is not in the file: it is read
//! from the record size, and a table whose record size is not a layout listed here is refused by
//! name rather than misread.

use crate::formats::error::{ErrorKind, LoadError, Result};
use crate::formats::reader::Reader;

/// Format name in errors.
pub const FORMAT: &str = "DBC";
/// Most records read from one table (WoW 1.12's largest creature table has about 11 000).
pub const MAX_RECORDS: u64 = 1 << 20;
/// Most bytes one string of a table may have.
const MAX_STRING: u64 = 1024;

/// An open WDBC table.
pub struct Table<'a> {
    r: Reader<'a>,
    records: u64,
    record_size: u64,
    strings: u64,
    string_len: u64,
}

impl std::fmt::Debug for Table<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "WDBC table of {} records of {} bytes",
            self.records, self.record_size
        )
    }
}

/// The size of the header.
const HEADER: u64 = 20;

impl<'a> Table<'a> {
    /// Reads the header of `data` and checks it against the file's size.
    pub fn open(data: &'a [u8]) -> Result<Table<'a>> {
        let r = Reader::new(data, FORMAT);
        if !data.starts_with(b"WDBC") {
            return Err(r.error(
                0,
                ErrorKind::BadMagic {
                    expected: "\"WDBC\"",
                },
            ));
        }
        let records = u64::from(r.u32_at(4, "record count")?);
        let fields = u64::from(r.u32_at(8, "field count")?);
        let record_size = u64::from(r.u32_at(12, "record size")?);
        let string_len = u64::from(r.u32_at(16, "string block size")?);
        r.check_count(4, records, MAX_RECORDS, "record")?;
        if record_size != fields * 4 || record_size == 0 {
            return Err(r.invalid(
                12,
                format!("record size {record_size} is not 4 bytes for each of its {fields} fields"),
            ));
        }
        // Counts are at most 2^32 each, so the products fit in u64.
        let want = HEADER + records * record_size + string_len;
        if want != r.len() {
            return Err(r.invalid(
                4,
                format!(
                    "header says {records} records of {record_size} bytes and {string_len} \
                     string bytes ({want} bytes in all), but the file has {}",
                    r.len()
                ),
            ));
        }
        Ok(Table {
            r,
            records,
            record_size,
            strings: HEADER + records * record_size,
            string_len,
        })
    }

    /// Number of records.
    pub fn len(&self) -> u64 {
        self.records
    }

    /// Whether it has no records.
    pub fn is_empty(&self) -> bool {
        self.records == 0
    }

    /// Bytes per record.
    pub fn record_size(&self) -> u64 {
        self.record_size
    }

    /// Field `field` of record `rec` as a u32.
    pub fn u32(&self, rec: u64, field: u64) -> Result<u32> {
        self.r
            .u32_at(HEADER + rec * self.record_size + field * 4, "record field")
    }

    /// Field `field` of record `rec` as a string (an offset into the string block).
    pub fn string(&self, rec: u64, field: u64) -> Result<String> {
        let at = HEADER + rec * self.record_size + field * 4;
        let off = u64::from(self.r.u32_at(at, "string field")?);
        if off >= self.string_len.max(1) {
            return Err(self.r.error(
                at,
                ErrorKind::OutOfBounds {
                    what: "string offset",
                    target: self.strings + off,
                    len: 1,
                },
            ));
        }
        let max = MAX_STRING.min(self.string_len - off);
        self.r.cstr_at(self.strings + off, max, "string")
    }
}

/// Where the fields of a table's known layout are, keyed by its record size.
pub struct Layout {
    /// The table, as the game names its file.
    pub table: &'static str,
    /// The record size this layout has.
    pub record_size: u64,
    /// The client the layout is from, for messages.
    pub client: &'static str,
}

/// `CreatureModelData.dbc` of WoW 1.12: field 0 the id, field 2 the model's path.
pub const MODEL_DATA: Layout = Layout {
    table: "CreatureModelData.dbc",
    record_size: 64,
    client: "WoW 1.12: 16 fields",
};

/// `CreatureDisplayInfo.dbc` of WoW 1.12: field 0 the display id, field 1 the model id, fields
/// 6-8 the skins (Skin1-3, file names without `.blp` beside the model).
pub const DISPLAY_INFO: Layout = Layout {
    table: "CreatureDisplayInfo.dbc",
    record_size: 48,
    client: "WoW 1.12: 12 fields",
};

impl Layout {
    /// `t` opened as this table, or refused by name when its record size is another layout's.
    pub fn check(&self, t: &Table) -> Result<()> {
        if t.record_size() != self.record_size {
            return Err(LoadError::invalid(
                FORMAT,
                12,
                format!(
                    "{}: record size {} is not a layout psxrender reads ({}, {} bytes)",
                    self.table,
                    t.record_size(),
                    self.client,
                    self.record_size
                ),
            ));
        }
        Ok(())
    }
}

/// One row of CreatureModelData: a model id and its path (`Creature\Bat\Bat.mdx`).
pub fn model_rows(t: &Table) -> Result<Vec<(u32, String)>> {
    MODEL_DATA.check(t)?;
    (0..t.len())
        .map(|i| Ok((t.u32(i, 0)?, t.string(i, 2)?)))
        .collect()
}

/// A creature display: its id and its three skins (empty when unused).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DisplayRow {
    /// Display id (`--display`).
    pub id: u32,
    /// Skin1-3: file names without `.blp`.
    pub skins: [String; 3],
}

/// The rows of CreatureDisplayInfo whose model id is in `models`, in file order.
pub fn display_rows(t: &Table, models: &[u32]) -> Result<Vec<DisplayRow>> {
    DISPLAY_INFO.check(t)?;
    let mut out = Vec::new();
    for i in 0..t.len() {
        if models.contains(&t.u32(i, 1)?) {
            out.push(DisplayRow {
                id: t.u32(i, 0)?,
                skins: [t.string(i, 6)?, t.string(i, 7)?, t.string(i, 8)?],
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// A WDBC file of `rows` (u32 fields, `None` = a string field given as text).
    pub fn wdbc(fields: usize, rows: &[Vec<Result<u32, &str>>]) -> Vec<u8> {
        let mut strings = vec![0u8];
        let mut records = Vec::new();
        for row in rows {
            assert_eq!(row.len(), fields);
            for f in row {
                let v = match f {
                    Ok(v) => *v,
                    Err(s) => {
                        let at = strings.len() as u32;
                        strings.extend_from_slice(s.as_bytes());
                        strings.push(0);
                        at
                    }
                };
                records.extend_from_slice(&v.to_le_bytes());
            }
        }
        let mut out = b"WDBC".to_vec();
        for v in [rows.len(), fields, fields * 4, strings.len()] {
            out.extend_from_slice(&(v as u32).to_le_bytes());
        }
        out.extend(records);
        out.extend(strings);
        out
    }

    fn display(id: u32, model: u32, skin: &'static str) -> Vec<Result<u32, &'static str>> {
        let mut r = vec![Ok(0); 12];
        r[0] = Ok(id);
        r[1] = Ok(model);
        r[6] = Err(skin);
        r[7] = Err("");
        r[8] = Err("");
        r
    }

    #[test]
    fn displays_of_a_model_in_file_order() {
        let d = wdbc(
            12,
            &[display(7, 2, "A"), display(3, 1, "B"), display(9, 2, "C")],
        );
        let t = Table::open(&d).unwrap();
        let rows = display_rows(&t, &[2]).unwrap();
        assert_eq!(
            rows.iter()
                .map(|r| (r.id, r.skins[0].as_str()))
                .collect::<Vec<_>>(),
            [(7, "A"), (9, "C")]
        );
        // The same table read as CreatureModelData is another layout, refused by name.
        let e = model_rows(&t).unwrap_err();
        assert!(
            e.to_string()
                .contains("CreatureModelData.dbc: record size 48 is not a layout psxrender reads"),
            "{e}"
        );
    }

    #[test]
    fn lying_headers_are_refused_naming_the_lie() {
        let good = wdbc(12, &[display(1, 1, "x")]);
        let mut more = good.clone();
        more[4..8].copy_from_slice(&4_000_000u32.to_le_bytes());
        let e = Table::open(&more).unwrap_err();
        assert!(e.to_string().contains("record count 4000000"), "{e}");
        let mut two = good.clone();
        two[4..8].copy_from_slice(&2u32.to_le_bytes());
        let e = Table::open(&two).unwrap_err();
        assert!(
            e.to_string().contains("header says 2 records of 48 bytes"),
            "{e}"
        );
        let mut size = good.clone();
        size[12..16].copy_from_slice(&40u32.to_le_bytes());
        let e = Table::open(&size).unwrap_err();
        assert!(
            e.to_string().contains("record size 40 is not 4 bytes"),
            "{e}"
        );
        let mut strings = good.clone();
        strings[16..20].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(Table::open(&strings).is_err());
        let e = Table::open(b"WDBX").unwrap_err();
        assert!(e.to_string().contains("WDBC"), "{e}");
        // A string offset past the string block.
        let mut off = good.clone();
        let at = 20 + 6 * 4;
        off[at..at + 4].copy_from_slice(&999u32.to_le_bytes());
        let t = Table::open(&off).unwrap();
        assert!(display_rows(&t, &[1]).is_err());
    }
}
