"""An image from an http(s) URL, fetched under rules that keep a URL from being a way in.

A URL comes from a user or an agent, so the fetch is untrusted twice: the address may point
inside the server's network (SSRF: a cloud metadata endpoint, an admin page on loopback), and
the response may be endless or not an image. So:

- only http and https; no user name or password in the URL;
- every address a host resolves to is checked, and the connection is made to a checked
  address itself (not to the name again), so a name that resolves differently the second time
  (DNS rebinding) cannot slip through; loopback, private, link-local and other non-public
  addresses are refused unless `images.url_allow_private` is on;
- redirects are followed by hand, at most `images.url_max_redirects`, each hop checked the
  same way;
- the Content-Type must be an image type graphmem accepts, a Content-Length over the limit is
  refused unread, and the body is read in blocks with the byte limit enforced as it streams;
- one deadline covers the whole fetch, redirects included.

Every failure is one `InvalidInputError` on the field `url`, raised before anything is stored.
No proxy is used (http_proxy and friends are ignored): the checked address is the one reached.
"""

from __future__ import annotations

import concurrent.futures
import http.client
import ipaddress
import socket
import ssl
import time
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from graphmem.errors import InvalidInputError
from graphmem.images.decode import MIME

PDF_TYPE = "application/pdf"

ACCEPTED_TYPES = frozenset((*MIME.values(), "image/jpg", "image/pjpeg", PDF_TYPE))
"""Content-Types taken as an image, a PDF's page included (the bytes are decoded and checked
afterwards anyway)."""
REDIRECTS = (301, 302, 303, 307, 308)
BLOCK = 64 * 1024
_RESOLVER = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="image-dns")
"""getaddrinfo has no timeout of its own: it runs here, and the fetch waits for it no longer
than its deadline (a lookup left hanging finishes in its thread and is dropped)."""


@dataclass(frozen=True)
class Fetched:
    """An image's bytes as the server sent them, and the URL they came from after redirects."""

    data: bytes
    url: str
    content_type: str


def _error(url: str, message: str) -> InvalidInputError:
    return InvalidInputError("url", f"{url[:200]} {message}")


def _public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether an address is on the public internet (an IPv4 address mapped into IPv6 is
    judged as the IPv4 address it is)."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def _connect(host: str, port: int, timeout: float, allow_private: bool) -> socket.socket:
    """A TCP connection to an address of `host` that the rules allow; OSError otherwise."""
    lookup = _RESOLVER.submit(socket.getaddrinfo, host, port, type=socket.SOCK_STREAM)
    try:
        infos = lookup.result(timeout=timeout)
    except concurrent.futures.TimeoutError:
        raise TimeoutError("the host name was not resolved in time") from None
    refused: str | None = None
    last: OSError | None = None
    for family, kind, proto, _, addr in infos:
        ip = ipaddress.ip_address(str(addr[0]).split("%", 1)[0])
        if not allow_private and not _public(ip):
            refused = str(ip)
            continue
        sock = socket.socket(family, kind, proto)
        sock.settimeout(timeout)
        try:
            sock.connect(addr)
        except OSError as e:
            sock.close()
            last = e
            continue
        return sock
    if last is None and refused is not None:
        raise _Refused(refused)
    raise last or OSError("no address to connect to")


class _Refused(OSError):
    """The host resolves only to addresses the rules refuse."""


class _HTTP(http.client.HTTPConnection):
    allow_private = False

    def connect(self) -> None:
        self.sock = _connect(self.host, self.port, self.timeout or 10.0, self.allow_private)


class _HTTPS(http.client.HTTPSConnection):
    allow_private = False
    tls = ssl.create_default_context()

    def connect(self) -> None:
        sock = _connect(self.host, self.port, self.timeout or 10.0, self.allow_private)
        self.sock = self.tls.wrap_socket(sock, server_hostname=self.host)


def _checked(url: str, original: str) -> tuple[str, str, int, str]:
    """(scheme, host, port, path with query) of a URL the rules accept."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise _error(original, "is not a valid URL") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        what = "is" if url == original else f"redirects to {url[:200]}, which is"
        raise _error(original, f"{what} not an http or https URL (scheme {scheme or 'none'!r})")
    if parts.username is not None or parts.password is not None:
        raise _error(original, "holds a user name or password; such URLs are not fetched")
    if not parts.hostname:
        raise _error(original, "names no host")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return scheme, parts.hostname, port or (443 if scheme == "https" else 80), path


def fetch(
    url: str, *, max_bytes: int, timeout: float, max_redirects: int, allow_private: bool
) -> Fetched:
    """The image at `url`, under the rules above. Raises InvalidInputError (field `url`)."""
    if not isinstance(url, str) or not url.strip():
        raise InvalidInputError("url", "must be an http or https URL")
    url = url.strip()
    deadline = time.monotonic() + timeout
    current = url
    for _ in range(max_redirects + 1):
        scheme, host, port, path = _checked(current, url)
        left = deadline - time.monotonic()
        if left <= 0:
            raise _error(url, f"did not answer within {timeout:g} s")
        cls = _HTTPS if scheme == "https" else _HTTP
        conn = cls(host, port, timeout=left)
        conn.allow_private = allow_private
        try:
            conn.request(
                "GET",
                path,
                headers={
                    "User-Agent": "graphmem",
                    "Accept": ", ".join(sorted((*MIME.values(), PDF_TYPE))),
                    "Accept-Encoding": "identity",
                },
            )
            response = conn.getresponse()
            if response.status in REDIRECTS:
                location = response.getheader("Location")
                if not location:
                    raise _error(url, f"answered HTTP {response.status} with no Location")
                current = urljoin(current, location.strip())
                continue
            data = _body(conn, response, url, max_bytes, deadline, timeout)
            return Fetched(data, current, _type(response))
        except _Refused as e:
            raise _error(
                url,
                f"is at a private or loopback address ({e}); refused so a URL cannot reach"
                " inside the server's network (images.url_allow_private allows it)",
            ) from None
        except TimeoutError:
            raise _error(url, f"did not answer within {timeout:g} s") from None
        except socket.gaierror:
            raise _error(url, f"names a host that could not be resolved ({host[:100]})") from None
        except ssl.SSLError as e:
            raise _error(url, f"failed its TLS check: {e.reason or e}") from None
        except (OSError, http.client.HTTPException, ValueError) as e:
            raise _error(url, f"could not be fetched: {str(e)[:120] or type(e).__name__}") from None
        finally:
            conn.close()
    raise _error(url, f"redirected more than {max_redirects} times")


def _type(response: http.client.HTTPResponse) -> str:
    """The response's media type, lower case, without parameters ('' when none)."""
    return (response.getheader("Content-Type") or "").split(";")[0].strip().lower()


def _body(
    conn: http.client.HTTPConnection,
    response: http.client.HTTPResponse,
    url: str,
    max_bytes: int,
    deadline: float,
    timeout: float,
) -> bytes:
    """The response's body, checked first (status, type, declared length), then read in blocks,
    stopped as soon as it passes `max_bytes` or the deadline."""
    if response.status != 200:
        raise _error(url, f"returned HTTP {response.status} {response.reason}".rstrip())
    media = _type(response)
    if media not in ACCEPTED_TYPES:
        raise _error(
            url,
            f"is {media or 'of no content type'}, not an image (PNG, JPEG, WebP, GIF or PDF)",
        )
    declared = response.getheader("Content-Length")
    if declared and declared.strip().isdigit() and int(declared) > max_bytes:
        raise _error(url, f"is {int(declared):,} bytes; at most {max_bytes:,} are accepted")
    blocks: list[bytes] = []
    total = 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise _error(url, f"did not arrive within {timeout:g} s")
        if conn.sock is not None:
            conn.sock.settimeout(left)  # a server sending a byte at a time still ends in time
        block = response.read1(BLOCK)
        if not block:
            break
        total += len(block)
        if total > max_bytes:
            raise _error(url, f"is more than {max_bytes:,} bytes; stopped reading there")
        blocks.append(block)
    if not blocks:
        raise _error(url, "returned no bytes")
    return b"".join(blocks)


__all__ = ["ACCEPTED_TYPES", "Fetched", "fetch"]
