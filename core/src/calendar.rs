//! The proleptic Gregorian calendar, as every timestamp Probity reads or
//! writes counts days (Howard Hinnant's algorithms): the one copy the
//! review ids, the context timestamps and the model adapter's HTTP dates
//! share; and the one UTC instant ([`UtcInstant`]) whose parser and
//! formatters read and write every RFC 3339 date-time.

/// Days since 1970-01-01 of the date `y-m-d` (negative before it); `m` is
/// 1 to 12.
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date `(year, month, day)` of the day `z` days after 1970-01-01 (the
/// inverse of [`days_from_civil`]).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    // Both within their ranges by construction (1..=31, 1..=12).
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// How many days month `m` (1 to 12) of year `y` has; 0 for another `m`.
pub fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        _ => 0,
    }
}

/// A UTC instant with nanosecond precision: the one parser and formatter
/// of RFC 3339 date-times in Probity. The review's second-precision
/// timestamp (`review::ids::Timestamp`) and the context's nanosecond one
/// (`context::types::Timestamp`) are thin newtypes on it, each keeping the
/// canonical form it writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UtcInstant {
    secs: i64,
    nanos: u32,
}

/// An instant's calendar fields in UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Civil {
    /// The proleptic Gregorian year.
    pub year: i64,
    /// 1 to 12.
    pub month: u32,
    /// 1 to 31.
    pub day: u32,
    /// 0 to 23.
    pub hour: i64,
    /// 0 to 59.
    pub minute: i64,
    /// 0 to 59.
    pub second: i64,
}

impl UtcInstant {
    /// Parses an RFC 3339 date-time (any offset, 0 to 9 fraction digits) and
    /// normalizes it to UTC. Leap seconds and years outside 0000-9999 after
    /// normalization are refused; the error says what is wrong, in words.
    pub fn parse_rfc3339(s: &str) -> Result<Self, &'static str> {
        let b = s.as_bytes();
        let num = |r: std::ops::Range<usize>| -> Result<i64, &'static str> {
            let part = b.get(r).ok_or("too short")?;
            if part.is_empty() || !part.iter().all(u8::is_ascii_digit) {
                return Err("expected digits");
            }
            Ok(part.iter().fold(0i64, |a, d| a * 10 + i64::from(d - b'0')))
        };
        let y = num(0..4)?;
        if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
            return Err("expected YYYY-MM-DD");
        }
        let mo = num(5..7)?;
        let d = num(8..10)?;
        if !matches!(b.get(10), Some(b'T' | b't')) {
            return Err("expected T between date and time");
        }
        let h = num(11..13)?;
        if b.get(13) != Some(&b':') || b.get(16) != Some(&b':') {
            return Err("expected HH:MM:SS");
        }
        let mi = num(14..16)?;
        let se = num(17..19)?;
        if !(1..=12).contains(&mo) || d < 1 || d > days_in_month(y, mo) {
            return Err("no such date");
        }
        if h > 23 || mi > 59 || se > 59 {
            return Err("no such time (leap seconds are not representable)");
        }
        let mut i = 19;
        let mut nanos: u32 = 0;
        if b.get(i) == Some(&b'.') {
            i += 1;
            let start = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            let digits = i - start;
            if digits == 0 || digits > 9 {
                return Err("the fraction must have 1 to 9 digits");
            }
            for &c in &b[start..i] {
                nanos = nanos * 10 + u32::from(c - b'0');
            }
            for _ in digits..9 {
                nanos *= 10;
            }
        }
        let offset_secs = match b.get(i) {
            Some(b'Z' | b'z') if b.len() == i + 1 => 0,
            Some(&sign @ (b'+' | b'-')) if b.len() == i + 6 && b[i + 3] == b':' => {
                let oh = num(i + 1..i + 3)?;
                let om = num(i + 4..i + 6)?;
                if oh > 23 || om > 59 {
                    return Err("offset out of range");
                }
                let o = oh * 3600 + om * 60;
                if sign == b'+' { o } else { -o }
            }
            _ => return Err("expected Z or a +HH:MM offset at the end"),
        };
        let secs = days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + se - offset_secs;
        let t = UtcInstant { secs, nanos };
        if !(0..=9999).contains(&t.civil().year) {
            return Err("year out of range after UTC normalization");
        }
        Ok(t)
    }

    /// The instant `secs` seconds after the Unix epoch (before it when
    /// negative), on a whole second.
    pub const fn from_unix_seconds(secs: i64) -> Self {
        UtcInstant { secs, nanos: 0 }
    }

    /// Seconds since the Unix epoch (negative before it).
    pub const fn unix_seconds(&self) -> i64 {
        self.secs
    }

    /// The nanoseconds past [`unix_seconds`](Self::unix_seconds).
    pub const fn subsec_nanos(&self) -> u32 {
        self.nanos
    }

    /// The calendar fields in UTC.
    pub fn civil(&self) -> Civil {
        let rem = self.secs.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(self.secs.div_euclid(86_400));
        Civil {
            year,
            month,
            day,
            hour: rem / 3600,
            minute: (rem % 3600) / 60,
            second: rem % 60,
        }
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` (the fraction dropped): what receipts and
    /// review state write.
    pub fn rfc3339_seconds(&self) -> String {
        let c = self.civil();
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
            c.year, c.month, c.day, c.hour, c.minute, c.second
        )
    }

    /// `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ`: what context trees write.
    pub fn rfc3339_nanos(&self) -> String {
        let c = self.civil();
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:09}Z",
            c.year, c.month, c.day, c.hour, c.minute, c.second, self.nanos
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates_and_every_day_round_trips() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(1969, 12, 31), -1);
        assert_eq!(civil_from_days(-719_528), (0, 1, 1));
        assert_eq!(days_in_month(2000, 2), 29);
        assert_eq!(days_in_month(1900, 2), 28);
        assert_eq!(days_in_month(2024, 13), 0);
        // Every day of years 0000 to 9999 and back, in order.
        let mut z = days_from_civil(0, 1, 1);
        for y in 0..=9999 {
            for m in 1..=12 {
                for d in 1..=days_in_month(y, m) {
                    assert_eq!(days_from_civil(y, m, d), z);
                    assert_eq!(civil_from_days(z), (y, m as u32, d as u32));
                    z += 1;
                }
            }
        }
    }
}
