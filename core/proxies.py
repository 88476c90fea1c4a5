"""The client's address, with ``X-Forwarded-For`` trusted only from configured proxies.

A reverse proxy (nginx in docker-compose) appends the address it received a request from to
``X-Forwarded-For``; everything to the left of that came from the client and may be forged.
``TRUSTED_PROXIES`` lists the addresses or networks (CIDR) of the proxies in front of the
service. ``client_address`` walks the header from the right while each hop was a trusted
proxy, and answers the first address a trusted proxy did not vouch for. With no trusted
proxies (the default), the header is ignored and the socket's peer is the client.

Anonymous rate limits count per client address (``ClientRateThrottle``), so a rotating
``X-Forwarded-For`` no longer buys a fresh quota.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address, ip_network
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

Network = IPv4Network | IPv6Network
Address = IPv4Address | IPv6Address


def trusted_proxies_parse(name: str, value: str | None) -> tuple[Network, ...]:
    """``TRUSTED_PROXIES``: comma-separated addresses or CIDR networks; empty trusts none.

    Called from settings.py: a malformed entry stops the start-up with a message naming it.
    """
    networks: list[Network] = []
    for entry in (value or "").split(","):
        entry = entry.strip()
        if not entry:
            continue
        try:
            networks.append(ip_network(entry, strict=False))
        except ValueError:
            raise ImproperlyConfigured(
                f"Environment variable {name} has {entry!r}, which is neither an IP address "
                "nor a CIDR network (e.g. 10.0.0.0/8)."
            ) from None
    return tuple(networks)


def _address(text: str) -> Address | None:
    text = text.strip()
    if text.startswith("[") and "]" in text:  # "[::1]:1234"
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # "203.0.113.9:1234"
        text = text.split(":", 1)[0]
    try:
        address = ip_address(text)
    except ValueError:
        return None
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped or address


def _trusted(address: Address, proxies: Iterable[Network]) -> bool:
    return any(address in network for network in proxies)


def client_address(meta: Mapping[str, Any], proxies: Iterable[Network]) -> str:
    """The client's address for a request's ``META``: the peer, or, when the peer is a trusted
    proxy, the rightmost ``X-Forwarded-For`` hop that no trusted proxy vouches for."""
    peer_text = str(meta.get("REMOTE_ADDR") or "")
    peer = _address(peer_text)
    proxies = tuple(proxies)
    if peer is None or not proxies or not _trusted(peer, proxies):
        return str(peer) if peer is not None else peer_text
    client = peer
    for hop in reversed(str(meta.get("HTTP_X_FORWARDED_FOR") or "").split(",")):
        address = _address(hop)
        if address is None:
            break  # garbage written by the client: the last trusted hop saw the client
        client = address
        if not _trusted(address, proxies):
            break
    return str(client)


def request_address(request: Any) -> str:
    """The client's address of a Django or DRF request (``client_address`` with the
    ``TRUSTED_PROXIES`` setting)."""
    return client_address(request.META, settings.TRUSTED_PROXIES)
