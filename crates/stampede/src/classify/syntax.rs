//! HTTP's syntax for names and values (RFC 9110 §5.6.2 and §5.5): what a method or a header
//! name may be (a token), and what a header value may hold.

/// Whether `s` is a token: a method, or a header's name. One or more of the ASCII letters,
/// digits and `` !#$%&'*+-.^_`|~ ``; no space, separator or control character.
#[inline]
pub fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Whether `s` may be a header's value: no control character but the tab (a line break
/// would end the header, and a NUL is refused by every parser).
pub fn is_field_value(s: &str) -> bool {
    s.bytes().all(|b| b == b'\t' || !b.is_ascii_control())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_values() {
        for ok in [
            "GET",
            "Retry-After",
            "grpc-retry-pushback-ms",
            "X_1!#$%&'*+.^`|~",
        ] {
            assert!(is_token(ok), "{ok:?}");
        }
        for bad in [
            "",
            "Retry After",
            "Retry-After\n",
            "a:b",
            "é",
            "a\"b",
            "(x)",
            "a\0",
        ] {
            assert!(!is_token(bad), "{bad:?}");
        }
        for ok in ["", "120", "Wed, 21 Oct 2015 07:28:00 GMT", "a\tb", "é"] {
            assert!(is_field_value(ok), "{ok:?}");
        }
        for bad in ["5\n6", "5\r", "a\0", "\x7f", "\x1b[31m"] {
            assert!(!is_field_value(bad), "{bad:?}");
        }
    }
}
