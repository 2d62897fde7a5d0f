//! The ladder diagram of a capture: one column per endpoint, one arrow
//! per message, top to bottom in capture order, labelled with its
//! transactions (`T=` request, `R=` reply with its response time, `P=`
//! pending, `K` acknowledgement); the message's compact text shows on
//! hover. As SVG, or as a self-contained HTML page with the SVG and a
//! table of the messages.
//!
//! ```
//! use megaco_pcap::flow::Ladder;
//! # use megaco_pcap::{Record, Timestamp, Transport};
//! # let msg = megaco::text::decode(b"!/1 [10.0.0.1] T=1{C=-{AV=ROOT}}").unwrap();
//! # let record = Record {
//! #     packet: 1, time: Timestamp(0), src: "10.0.0.1:2944".parse().unwrap(),
//! #     dst: "10.0.0.2:2944".parse().unwrap(), transport: Transport::Udp,
//! #     encoding: megaco::codec::Kind::Text, bytes: Vec::new(), message: Ok(msg),
//! # };
//!
//! let mut ladder = Ladder::new(1000);
//! ladder.add(&record);
//! let svg = ladder.svg();
//! assert!(svg.starts_with("<svg") && svg.contains("T=1 AuditValue"));
//! assert!(ladder.html("capture").contains(&svg));
//! ```

use std::collections::HashMap;
use std::fmt::Write;
use std::net::SocketAddr;

use megaco::model::{MessageBody, Transaction, TransactionResult};

use crate::event::Record;
use crate::source::Timestamp;
use crate::stats::{command_error, command_name};

struct Row {
    packet: u64,
    time: Timestamp,
    from: usize,
    to: usize,
    label: String,
    class: &'static str,
    detail: String,
}

struct Endpoint {
    addr: SocketAddr,
    mid: Option<String>,
}

/// A ladder diagram being built.
pub struct Ladder {
    endpoints: Vec<Endpoint>,
    rows: Vec<Row>,
    requests: HashMap<(SocketAddr, SocketAddr, u32), Timestamp>,
    max_rows: usize,
    omitted: u64,
}

/// Most endpoints drawn; messages between others are counted as omitted.
const MAX_ENDPOINTS: usize = 32;
const COL: usize = 240;
const ROW: usize = 24;
const LEFT: usize = 110;
const TOP: usize = 70;

impl Ladder {
    /// A diagram of at most `max_rows` messages (the rest are counted).
    pub fn new(max_rows: usize) -> Self {
        Ladder {
            endpoints: Vec::new(),
            rows: Vec::new(),
            requests: HashMap::new(),
            max_rows,
            omitted: 0,
        }
    }

    /// Messages not drawn (past the row limit or the endpoint limit).
    pub fn omitted(&self) -> u64 {
        self.omitted
    }

    fn endpoint(&mut self, addr: SocketAddr) -> Option<usize> {
        if let Some(i) = self.endpoints.iter().position(|e| e.addr == addr) {
            return Some(i);
        }
        if self.endpoints.len() == MAX_ENDPOINTS {
            return None;
        }
        self.endpoints.push(Endpoint { addr, mid: None });
        Some(self.endpoints.len() - 1)
    }

    /// Adds one message.
    pub fn add(&mut self, r: &Record) {
        if self.rows.len() >= self.max_rows {
            self.omitted += 1;
            return;
        }
        let (Some(from), Some(to)) = (self.endpoint(r.src), self.endpoint(r.dst)) else {
            self.omitted += 1;
            return;
        };
        let (label, class, detail) = match &r.message {
            Err(e) => (
                format!("undecodable {}", r.encoding),
                "bad",
                format!("packet {}: {e}", r.packet),
            ),
            Ok(msg) => {
                let text = megaco::text::encode_compact(msg)
                    .map(|t| String::from_utf8_lossy(&t).into_owned())
                    .unwrap_or_else(|e| format!("(not writable as text: {e})"));
                if self.endpoints[from].mid.is_none() {
                    self.endpoints[from].mid =
                        text.split_whitespace().nth(1).map(|s| s.to_string());
                }
                let (label, class) = self.summary(r, &msg.mess.body);
                (label, class, text)
            }
        };
        self.rows.push(Row {
            packet: r.packet,
            time: r.time,
            from,
            to,
            label,
            class,
            detail,
        });
    }

    /// The arrow's label and colour class.
    fn summary(&mut self, r: &Record, body: &MessageBody) -> (String, &'static str) {
        let ts = match body {
            MessageBody::Error(e) => return (format!("ERROR {}", e.error_code), "err"),
            MessageBody::Transactions(ts) => ts,
        };
        let mut parts = Vec::new();
        let mut class = "req";
        for t in ts {
            match t {
                Transaction::Request(q) => {
                    let mut names: Vec<&str> = Vec::new();
                    for c in q.actions.iter().flat_map(|a| &a.command_requests) {
                        let n = command_name(&c.command);
                        if !names.contains(&n) {
                            names.push(n);
                        }
                    }
                    if self.requests.len() < self.max_rows {
                        self.requests
                            .entry((r.src, r.dst, q.transaction_id))
                            .or_insert(r.time);
                    }
                    parts.push(format!("T={} {}", q.transaction_id, names.join(",")));
                }
                Transaction::Reply(rep) => {
                    let mut s = format!("R={}", rep.transaction_id);
                    if let Some(n) = rep.segment_number {
                        let _ = write!(s, "/{n}");
                    }
                    let err = match &rep.result {
                        TransactionResult::Error(e) => Some(e.error_code),
                        TransactionResult::ActionReplies(a) => a.iter().find_map(|a| {
                            a.error_descriptor
                                .as_ref()
                                .or_else(|| a.command_reply.iter().find_map(command_error))
                                .map(|e| e.error_code)
                        }),
                    };
                    if let Some(code) = err {
                        let _ = write!(s, " error {code}");
                        class = "err";
                    } else if class == "req" {
                        class = "rep";
                    }
                    if let Some(t0) = self.requests.get(&(r.dst, r.src, rep.transaction_id)) {
                        let _ = write!(s, " ({:.1} ms)", r.time.since(*t0) as f64 / 1e6);
                    }
                    parts.push(s);
                }
                Transaction::Pending(p) => {
                    parts.push(format!("P={}", p.transaction_id));
                    if class == "req" {
                        class = "pend";
                    }
                }
                Transaction::ResponseAck(acks) => {
                    let ids: Vec<String> = acks
                        .iter()
                        .map(|a| match a.last_ack {
                            Some(l) => format!("{}-{l}", a.first_ack),
                            None => a.first_ack.to_string(),
                        })
                        .collect();
                    parts.push(format!("K {}", ids.join(",")));
                    if class == "req" {
                        class = "pend";
                    }
                }
                Transaction::SegmentReply(s) => {
                    parts.push(format!("SR {}/{}", s.transaction_id, s.segment_number));
                }
                _ => parts.push("?".into()),
            }
        }
        let mut label = parts.join("; ");
        if label.chars().count() > 38 {
            label = label.chars().take(37).collect::<String>() + "…";
        }
        (label, class)
    }

    /// The diagram as a standalone SVG document.
    pub fn svg(&self) -> String {
        let cols = self.endpoints.len().max(2);
        let width = LEFT + cols * COL;
        let height = TOP + (self.rows.len() + 1) * ROW + 20;
        let mut s = String::with_capacity(256 + self.rows.len() * 400);
        let _ = write!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
             viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"12\">\n\
             <style>.req{{stroke:#1f5fbf;fill:#1f5fbf}}.rep{{stroke:#2a8a2a;fill:#2a8a2a}}\
             .err{{stroke:#c02020;fill:#c02020}}.pend{{stroke:#888;fill:#888}}\
             .bad{{stroke:#c02020;fill:#c02020;stroke-dasharray:4 3}}\
             text{{stroke:none}}line{{stroke-width:1.5}}</style>\n\
             <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        );
        let x = |i: usize| LEFT + i * COL + COL / 2;
        for (i, e) in self.endpoints.iter().enumerate() {
            let _ = writeln!(
                s,
                "<text x=\"{}\" y=\"24\" text-anchor=\"middle\" font-weight=\"bold\">{}</text>\
                 <text x=\"{}\" y=\"42\" text-anchor=\"middle\" fill=\"#555\">{}</text>\
                 <line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#bbb\"/>",
                x(i),
                escape(&e.addr.to_string()),
                x(i),
                escape(e.mid.as_deref().unwrap_or("")),
                x(i),
                TOP - 16,
                x(i),
                height - 10
            );
        }
        let t0 = self.rows.first().map(|r| r.time).unwrap_or_default();
        for (n, r) in self.rows.iter().enumerate() {
            let y = TOP + n * ROW + ROW / 2;
            let (x1, x2) = (x(r.from), x(r.to));
            let dir: i64 = if x2 >= x1 { 1 } else { -1 };
            let tip = x2 as i64 - dir * 2;
            let _ = writeln!(
                s,
                "<g class=\"{}\"><title>packet {}\n{}</title>\
                 <text x=\"4\" y=\"{}\" fill=\"#555\">{:.6}</text>\
                 <line x1=\"{x1}\" y1=\"{y}\" x2=\"{tip}\" y2=\"{y}\"/>\
                 <polygon points=\"{tip},{y} {},{} {},{}\"/>\
                 <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text></g>",
                r.class,
                r.packet,
                escape(&r.detail),
                y + 4,
                r.time.since(t0) as f64 / 1e9,
                tip - dir * 8,
                y - 4,
                tip - dir * 8,
                y + 4,
                (x1 + x2) / 2,
                y - 5,
                escape(&r.label)
            );
        }
        if self.omitted > 0 {
            let _ = writeln!(
                s,
                "<text x=\"4\" y=\"{}\" fill=\"#c02020\">{} more messages not drawn</text>",
                height - 6,
                self.omitted
            );
        }
        s.push_str("</svg>\n");
        s
    }

    /// A self-contained HTML page: the diagram, then a table of the
    /// messages with their compact text.
    pub fn html(&self, title: &str) -> String {
        let mut s = String::new();
        let _ = write!(
            s,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <title>{t}</title><style>body{{font-family:sans-serif;margin:1em}}\
             table{{border-collapse:collapse;font-size:13px}}td,th{{border-bottom:1px solid #ddd;\
             padding:2px 8px;text-align:left;vertical-align:top}}pre{{margin:0;white-space:pre-wrap}}\
             .err,.bad{{color:#c02020}}</style></head><body>\n<h1>{t}</h1>\n<p>{} messages between {} endpoints{}. \
             Hover an arrow for its message.</p>\n",
            self.rows.len(),
            self.endpoints.len(),
            if self.omitted > 0 {
                format!(" ({} more not drawn)", self.omitted)
            } else {
                String::new()
            },
            t = escape(title)
        );
        s.push_str(&self.svg());
        s.push_str(
            "<h2>Messages</h2>\n<table><tr><th>packet</th><th>time</th><th>from</th><th>to</th>\
             <th>summary</th><th>message</th></tr>\n",
        );
        for r in &self.rows {
            let _ = writeln!(
                s,
                "<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
                 <td><details><summary>text</summary><pre>{}</pre></details></td></tr>",
                r.class,
                r.packet,
                r.time,
                escape(&self.endpoints[r.from].addr.to_string()),
                escape(&self.endpoints[r.to].addr.to_string()),
                escape(&r.label),
                escape(&r.detail)
            );
        }
        s.push_str("</table>\n</body></html>\n");
        s
    }
}

/// Escapes text for XML and HTML.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            c if c.is_control() && c != '\n' && c != '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}
