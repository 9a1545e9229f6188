//! Free loopback ports. The kernel picks them; they are released just before the binaries bind
//! them, so another process can win the race: the environment retries its start when a binary
//! reports "address already in use".

use std::net::{Ipv4Addr, TcpListener};

/// `n` distinct free ports on 127.0.0.1 (all held until every one is picked, so they differ).
pub(crate) fn reserve(n: usize) -> std::io::Result<Vec<u16>> {
    let listeners = (0..n)
        .map(|_| TcpListener::bind((Ipv4Addr::LOCALHOST, 0)))
        .collect::<std::io::Result<Vec<_>>>()?;
    listeners
        .iter()
        .map(|l| l.local_addr().map(|a| a.port()))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn ports_are_distinct_and_bindable() {
        let ports = super::reserve(4).unwrap();
        let mut sorted = ports.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 4);
        for p in ports {
            std::net::TcpListener::bind(("127.0.0.1", p)).unwrap();
        }
    }
}
