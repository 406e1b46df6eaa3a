//! Lists of servers: `--server` given several times, or a name that resolves to several
//! addresses (a Kubernetes headless Service resolves to one address per ready pod).

use std::collections::HashMap;
use std::net::SocketAddr;

use tonic::transport::Uri;

use crate::ClientError;

/// One server to connect to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedEndpoint {
    /// The address to connect to, e.g. `https://10.1.2.3:50051`.
    pub address: String,
    /// For an `https://` address made from a name: the name, which TLS checks the server's
    /// certificate against (the IP address is rarely in a certificate).
    pub tls_server_name: Option<String>,
}

/// Expands each address whose host name resolves to several IP addresses into one endpoint per
/// IP, keeping the order given and dropping repeats. Names that resolve to one address, or not
/// at all, stay as given (connecting reports the error).
///
/// # Errors
/// [`ClientError::BadAddress`] for an address that is not a URI with a host.
pub async fn expand(addresses: &[String]) -> Result<Vec<ResolvedEndpoint>, ClientError> {
    let mut resolved: HashMap<(String, u16), Vec<SocketAddr>> = HashMap::new();
    for address in addresses {
        let (_, host, port) = parse(address)?;
        if host.parse::<std::net::IpAddr>().is_err()
            && !resolved.contains_key(&(host.clone(), port))
        {
            let ips = match tokio::net::lookup_host((host.as_str(), port)).await {
                Ok(ips) => ips.collect(),
                Err(_) => Vec::new(),
            };
            resolved.insert((host, port), ips);
        }
    }
    expand_with(addresses, &resolved)
}

/// [`expand`] with the names already resolved: `resolved` maps (host, port) to its addresses.
fn expand_with(
    addresses: &[String],
    resolved: &HashMap<(String, u16), Vec<SocketAddr>>,
) -> Result<Vec<ResolvedEndpoint>, ClientError> {
    let mut expanded: Vec<ResolvedEndpoint> = Vec::new();
    let mut push = |endpoint: ResolvedEndpoint| {
        if !expanded.iter().any(|e| e.address == endpoint.address) {
            expanded.push(endpoint);
        }
    };
    for address in addresses {
        let (scheme, host, port) = parse(address)?;
        match resolved.get(&(host.clone(), port)) {
            Some(ips) if ips.len() > 1 => {
                for ip in ips {
                    push(ResolvedEndpoint {
                        address: format!("{scheme}://{ip}"),
                        tls_server_name: (scheme == "https").then(|| host.clone()),
                    });
                }
            }
            _ => push(ResolvedEndpoint {
                address: address.clone(),
                tls_server_name: None,
            }),
        }
    }
    Ok(expanded)
}

/// The scheme (`http` if none), host (without IPv6 brackets) and port (80/443 by default).
fn parse(address: &str) -> Result<(String, String, u16), ClientError> {
    let bad = |reason: &str| ClientError::BadAddress {
        address: address.to_string(),
        reason: reason.to_string(),
    };
    let uri = address.parse::<Uri>().map_err(|e| bad(&e.to_string()))?;
    let host = uri.host().ok_or_else(|| bad("no host"))?;
    let scheme = uri.scheme_str().unwrap_or("http").to_string();
    let default_port = if scheme == "https" { 443 } else { 80 };
    let host = host.trim_matches(|c| c == '[' || c == ']').to_string();
    Ok((scheme, host, uri.port_u16().unwrap_or(default_port)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(address: &str) -> ResolvedEndpoint {
        ResolvedEndpoint {
            address: address.to_string(),
            tls_server_name: None,
        }
    }

    #[tokio::test]
    async fn ip_addresses_stay_as_given_and_repeats_go() {
        let given = vec![
            "http://127.0.0.1:1".to_string(),
            "http://[::1]:2".to_string(),
            "https://127.0.0.1:3".to_string(),
            "http://127.0.0.1:1".to_string(),
        ];
        let expected: Vec<_> = given[..3].iter().map(|a| plain(a)).collect();
        assert_eq!(expand(&given).await.expect("valid"), expected);
    }

    #[test]
    fn a_name_with_several_addresses_becomes_one_endpoint_each_keeping_the_name_for_tls() {
        let ips: Vec<SocketAddr> = vec![
            "10.0.0.1:50051".parse().expect("ip"),
            "10.0.0.2:50051".parse().expect("ip"),
        ];
        let resolved = HashMap::from([
            (("orbit".to_string(), 50051), ips),
            (
                ("single".to_string(), 50051),
                vec!["10.0.0.9:50051".parse().expect("ip")],
            ),
        ]);
        let given = [
            "http://orbit:50051".to_string(),
            "https://orbit:50051".to_string(),
            "http://single:50051".to_string(),
            "http://unknown:50051".to_string(),
        ];
        let tls = |address: &str| ResolvedEndpoint {
            address: address.to_string(),
            tls_server_name: Some("orbit".to_string()),
        };
        assert_eq!(
            expand_with(&given, &resolved).expect("valid"),
            vec![
                plain("http://10.0.0.1:50051"),
                plain("http://10.0.0.2:50051"),
                tls("https://10.0.0.1:50051"),
                tls("https://10.0.0.2:50051"),
                plain("http://single:50051"),
                plain("http://unknown:50051"),
            ]
        );
    }

    #[tokio::test]
    async fn an_address_without_a_host_is_refused() {
        let err = expand(&["/just/a/path".to_string()]).await.unwrap_err();
        assert!(err.to_string().contains("/just/a/path"), "{err}");
    }
}
