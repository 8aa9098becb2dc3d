"""The control token: who may start, stop, take back or resolve alerts from the web page.

Spectators read the page freely; control needs a random token that is printed in the terminal
(and as a QR code of the page URL with the token, for the operator's phone).  The token is
never shown on the page itself, so a club screen does not give it away.
"""

from __future__ import annotations

import hmac
import io
import secrets
import socket

import qrcode  # type: ignore[import-untyped]
import qrcode.image.svg  # type: ignore[import-untyped]


def new_token() -> str:
    """A fresh random token (128 bits, URL-safe)."""
    return secrets.token_urlsafe(16)


def token_matches(given: str | None, expected: str) -> bool:
    """Constant-time comparison, so response timing does not leak the token."""
    if not given:
        return False
    return hmac.compare_digest(given.encode("utf-8", "replace"), expected.encode("utf-8"))


def lan_address() -> str:
    """This machine's address on the local network (for URLs shown to phones), or 127.0.0.1.

    Connecting a UDP socket sends nothing; it only makes the kernel pick the outgoing address.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed, nothing is sent
            return str(s.getsockname()[0])
        except OSError:
            return "127.0.0.1"


def public_host(host: str) -> str:
    """The host name to put in a URL for a server listening on `host`."""
    if host in ("0.0.0.0", "::", ""):
        return lan_address()
    return host


def control_url(host: str, port: int, token: str) -> str:
    h = public_host(host)
    if ":" in h:
        h = f"[{h}]"
    return f"http://{h}:{port}/?token={token}"


def qr_text(data: str) -> str:
    """A QR code of `data` drawn with block characters, for the terminal."""
    qr = qrcode.QRCode(border=2, error_correction=qrcode.constants.ERROR_CORRECT_L)
    qr.add_data(data)
    qr.make(fit=True)
    out = io.StringIO()
    qr.print_ascii(out=out, invert=True)
    return out.getvalue()


def qr_svg(data: str) -> str:
    """A QR code of `data` as an SVG document (for a control holder's 'pair a phone' view)."""
    img = qrcode.make(data, image_factory=qrcode.image.svg.SvgPathImage, border=2)
    buf = io.BytesIO()
    img.save(buf)
    return buf.getvalue().decode("utf-8")
