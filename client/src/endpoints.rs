//! Lists of servers: `--server` given several times, or a name that resolves to several
//! addresses (a Kubernetes headless Service resolves to one address per ready pod).

use tonic::transport::Uri;

use crate::ClientError;

/// Expands each `http://` address whose host name resolves to several IP addresses into one
/// address per IP, keeping the order given and dropping repeats. Names that resolve to one
/// address, or not at all, stay as given (connecting reports the error), and so do `https://`
/// addresses: TLS checks the certificate against the name, which an IP address would lose.
///
/// # Errors
/// [`ClientError::BadAddress`] for an address that is not a URI with a host.
pub async fn expand(addresses: &[String]) -> Result<Vec<String>, ClientError> {
    let mut expanded: Vec<String> = Vec::new();
    let mut push = |address: String| {
        if !expanded.contains(&address) {
            expanded.push(address);
        }
    };
    for address in addresses {
        let bad = |reason: &str| ClientError::BadAddress {
            address: address.clone(),
            reason: reason.to_string(),
        };
        let uri = address.parse::<Uri>().map_err(|e| bad(&e.to_string()))?;
        let host = uri.host().ok_or_else(|| bad("no host"))?;
        let scheme = uri.scheme_str().unwrap_or("http");
        let is_ip = host
            .trim_matches(|c| c == '[' || c == ']')
            .parse::<std::net::IpAddr>()
            .is_ok();
        if scheme != "http" || is_ip {
            push(address.clone());
            continue;
        }
        let port = uri.port_u16().unwrap_or(80);
        let resolved: Vec<std::net::SocketAddr> = match tokio::net::lookup_host((host, port)).await
        {
            Ok(addrs) => addrs.collect(),
            Err(_) => Vec::new(),
        };
        if resolved.len() <= 1 {
            push(address.clone());
        } else {
            for socket in resolved {
                push(format!("http://{socket}"));
            }
        }
    }
    Ok(expanded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn ip_addresses_and_https_stay_as_given_and_repeats_go() {
        let given = vec![
            "http://127.0.0.1:1".to_string(),
            "http://[::1]:2".to_string(),
            "https://orbit.example:3".to_string(),
            "http://127.0.0.1:1".to_string(),
        ];
        assert_eq!(expand(&given).await.expect("valid"), given[..3].to_vec());
    }

    #[tokio::test]
    async fn a_name_with_several_addresses_becomes_one_endpoint_each() {
        let resolved: Vec<_> = tokio::net::lookup_host(("localhost", 7))
            .await
            .map(|a| a.collect())
            .unwrap_or_default();
        let expanded = expand(&["http://localhost:7".to_string()])
            .await
            .expect("valid");
        if resolved.len() > 1 {
            assert_eq!(expanded.len(), resolved.len());
            assert!(
                expanded
                    .iter()
                    .all(|a| a.starts_with("http://") && a.ends_with(":7"))
            );
        } else {
            assert_eq!(expanded, vec!["http://localhost:7".to_string()]);
        }
    }

    #[tokio::test]
    async fn an_address_without_a_host_is_refused() {
        let err = expand(&["/just/a/path".to_string()]).await.unwrap_err();
        assert!(err.to_string().contains("/just/a/path"), "{err}");
    }
}
