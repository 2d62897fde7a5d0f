//! Message collections: Erlang/OTP's term-file corpus format and
//! directories of one-message files.
//!
//! OTP's measurement tools read a file holding one Erlang term,
//! `{Codec, [{Name, <<"...">>}, ...]}.`, where each binary is one encoded
//! message (`time_test.msgs` is the bundled one). [`parse_term_file`] reads
//! that format; [`load`] reads either it or a directory with one message per
//! file.
//!
//! ```
//! let src = br#"{pretty, [{msg1, <<"MEGACO/1 [10.0.0.1]\nPending = 1 { }">>}]}."#;
//! let corpus = megaco::corpus::parse_term_file(src).unwrap();
//! assert_eq!(corpus.codec, "pretty");
//! assert_eq!(corpus.messages[0].name, "msg1");
//! assert!(corpus.messages[0].bytes.starts_with(b"MEGACO/1 [10.0.0.1]\n"));
//! ```

use std::path::Path;

/// One message of a corpus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorpusMessage {
    /// The message's name (the atom in a term file, the file stem in a
    /// directory).
    pub name: String,
    /// The encoded message.
    pub bytes: Vec<u8>,
}

/// A named collection of encoded messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Corpus {
    /// The codec the term file names (`pretty`, `compact`, ...); for a
    /// directory, its name.
    pub codec: String,
    /// The messages, in file order.
    pub messages: Vec<CorpusMessage>,
}

/// Why a corpus could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CorpusError {
    /// The term file is not in the expected form.
    #[error("line {line}, column {column}: expected {expected}")]
    Syntax {
        /// 1-based line.
        line: u32,
        /// 1-based column.
        column: u32,
        /// What was expected there.
        expected: &'static str,
    },
    /// Reading a file or directory failed.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The error.
        source: std::io::Error,
    },
}

/// Reads a corpus from a term file or from a directory of message files
/// (every regular file, sorted by name; hidden files are skipped).
pub fn load(path: &Path) -> Result<Corpus, CorpusError> {
    let io = |source| CorpusError::Io {
        path: path.display().to_string(),
        source,
    };
    if path.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(path)
            .map_err(io)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(io)?;
        entries.sort_by_key(|e| e.file_name());
        let mut messages = Vec::new();
        for entry in entries {
            let p = entry.path();
            let file_name = entry.file_name().to_string_lossy().into_owned();
            if file_name.starts_with('.') || !p.is_file() {
                continue;
            }
            let bytes = std::fs::read(&p).map_err(|source| CorpusError::Io {
                path: p.display().to_string(),
                source,
            })?;
            let name = file_name
                .split('.')
                .next()
                .unwrap_or(&file_name)
                .to_string();
            messages.push(CorpusMessage { name, bytes });
        }
        let codec = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(Corpus { codec, messages })
    } else {
        let bytes = std::fs::read(path).map_err(io)?;
        parse_term_file(&bytes)
    }
}

/// Parses OTP's corpus term file: `{Codec, [{Name, <<"...">>}, ...]}.`
///
/// Binaries may hold several string segments (`<<"a" "b">>`) and the usual
/// Erlang escapes (`\n`, `\t`, `\r`, `\"`, `\\`, octal `\NNN`, `\xHH`,
/// `\x{H…}`, `\^X`); `%` comments are skipped.
pub fn parse_term_file(src: &[u8]) -> Result<Corpus, CorpusError> {
    let mut p = TermParser { src, pos: 0 };
    p.expect(b'{', "'{'")?;
    let codec = p.atom()?;
    p.expect(b',', "','")?;
    p.expect(b'[', "'['")?;
    let mut messages = Vec::new();
    if p.peek() == Some(b']') {
        p.pos += 1;
    } else {
        loop {
            p.expect(b'{', "'{' opening a {Name, <<\"...\">>} pair")?;
            let name = p.atom()?;
            p.expect(b',', "','")?;
            let bytes = p.binary()?;
            p.expect(b'}', "'}'")?;
            messages.push(CorpusMessage { name, bytes });
            match p.peek() {
                Some(b',') => p.pos += 1,
                Some(b']') => {
                    p.pos += 1;
                    break;
                }
                _ => return Err(p.error("',' or ']'")),
            }
        }
    }
    p.expect(b'}', "'}'")?;
    p.expect(b'.', "'.' ending the term")?;
    if p.peek().is_some() {
        return Err(p.error("end of file after the term"));
    }
    Ok(Corpus { codec, messages })
}

struct TermParser<'a> {
    src: &'a [u8],
    pos: usize,
}

impl TermParser<'_> {
    fn error(&self, expected: &'static str) -> CorpusError {
        let before = &self.src[..self.pos.min(self.src.len())];
        let line = before.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        CorpusError::Syntax {
            line,
            column: (before.len() - line_start) as u32 + 1,
            expected,
        }
    }

    /// Skips whitespace and comments, then returns the next byte.
    fn peek(&mut self) -> Option<u8> {
        while let Some(&b) = self.src.get(self.pos) {
            if b.is_ascii_whitespace() {
                self.pos += 1;
            } else if b == b'%' {
                while self.src.get(self.pos).is_some_and(|&b| b != b'\n') {
                    self.pos += 1;
                }
            } else {
                return Some(b);
            }
        }
        None
    }

    fn expect(&mut self, byte: u8, what: &'static str) -> Result<(), CorpusError> {
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(what))
        }
    }

    fn atom(&mut self) -> Result<String, CorpusError> {
        match self.peek() {
            Some(b'\'') => {
                self.pos += 1;
                let bytes = self.quoted(b'\'')?;
                String::from_utf8(bytes).map_err(|_| self.error("a UTF-8 atom"))
            }
            Some(b) if b.is_ascii_lowercase() => {
                let start = self.pos;
                while self
                    .src
                    .get(self.pos)
                    .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'@')
                {
                    self.pos += 1;
                }
                Ok(String::from_utf8_lossy(&self.src[start..self.pos]).into_owned())
            }
            _ => Err(self.error("an atom")),
        }
    }

    fn binary(&mut self) -> Result<Vec<u8>, CorpusError> {
        self.expect(b'<', "'<<'")?;
        self.expect(b'<', "'<<'")?;
        let mut out = Vec::new();
        while self.peek() == Some(b'"') {
            self.pos += 1;
            out.extend(self.quoted(b'"')?);
        }
        self.expect(b'>', "'>>' or a string")?;
        self.expect(b'>', "'>>'")?;
        Ok(out)
    }

    /// Reads the rest of a quoted string (the opening quote is consumed).
    fn quoted(&mut self, quote: u8) -> Result<Vec<u8>, CorpusError> {
        let mut out = Vec::new();
        loop {
            let Some(&b) = self.src.get(self.pos) else {
                return Err(self.error("a closing quote"));
            };
            self.pos += 1;
            if b == quote {
                return Ok(out);
            }
            if b != b'\\' {
                out.push(b);
                continue;
            }
            let Some(&e) = self.src.get(self.pos) else {
                return Err(self.error("an escape sequence"));
            };
            self.pos += 1;
            match e {
                b'n' => out.push(b'\n'),
                b't' => out.push(b'\t'),
                b'r' => out.push(b'\r'),
                b's' => out.push(b' '),
                b'b' => out.push(8),
                b'd' => out.push(127),
                b'e' => out.push(27),
                b'f' => out.push(12),
                b'v' => out.push(11),
                b'^' => {
                    let Some(&c) = self.src.get(self.pos) else {
                        return Err(self.error("a control character after \\^"));
                    };
                    self.pos += 1;
                    out.push(c & 0x1f);
                }
                b'0'..=b'7' => {
                    let mut v = u32::from(e - b'0');
                    for _ in 0..2 {
                        match self.src.get(self.pos) {
                            Some(&d @ b'0'..=b'7') => {
                                v = v * 8 + u32::from(d - b'0');
                                self.pos += 1;
                            }
                            _ => break,
                        }
                    }
                    out.push((v & 0xff) as u8);
                }
                b'x' => {
                    let braced = self.src.get(self.pos) == Some(&b'{');
                    if braced {
                        self.pos += 1;
                    }
                    let start = self.pos;
                    let max = if braced { usize::MAX } else { 2 };
                    while self.pos - start < max
                        && self.src.get(self.pos).is_some_and(u8::is_ascii_hexdigit)
                    {
                        self.pos += 1;
                    }
                    let digits = std::str::from_utf8(&self.src[start..self.pos]).unwrap_or("");
                    let v = u32::from_str_radix(digits, 16)
                        .map_err(|_| self.error("hex digits after \\x"))?;
                    if braced {
                        if self.src.get(self.pos) != Some(&b'}') {
                            return Err(self.error("'}' closing \\x{...}"));
                        }
                        self.pos += 1;
                    }
                    out.push((v & 0xff) as u8);
                }
                other => out.push(other),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_segments() {
        let c = parse_term_file(
            br#"% a comment
            {compact, [{'m 1', <<"a\tb\r\n\"q\"\\" "x\101\x42\x{43}\^A">>}, {m2, <<>>}]}.
            "#,
        )
        .unwrap();
        assert_eq!(c.codec, "compact");
        assert_eq!(c.messages.len(), 2);
        assert_eq!(c.messages[0].name, "m 1");
        assert_eq!(c.messages[0].bytes, b"a\tb\r\n\"q\"\\xABC\x01".to_vec());
        assert_eq!(c.messages[1].bytes, b"".to_vec());
    }

    #[test]
    fn errors_say_where() {
        let err = parse_term_file(b"{pretty,\n [{m, <<\"abc>>}]}.").unwrap_err();
        match err {
            CorpusError::Syntax { expected, .. } => assert_eq!(expected, "a closing quote"),
            other => panic!("unexpected {other:?}"),
        }
        let err = parse_term_file(b"{pretty,\n  x}.").unwrap_err();
        match err {
            CorpusError::Syntax {
                line,
                column,
                expected,
            } => {
                assert_eq!((line, column, expected), (2, 3, "'['"));
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn truncated_input_never_panics() {
        let src = br#"{pretty, [{m, <<"a\x{41}\101\^B">>}, {n, <<"b">>}]}."#;
        for end in 0..src.len() {
            assert!(parse_term_file(&src[..end]).is_err());
        }
    }
}
