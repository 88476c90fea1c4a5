"""Whether an address is one the service may send to: public, and not a private IPv4 address
written in one of IPv6's forms.

``ipaddress``'s ``is_global`` answers for the IPv6 address itself, so an IPv4 address embedded
in it passes: NAT64 (``64:ff9b::a00:1`` is 10.0.0.1 through a translator), the IPv4-translated
form (``::ffff:0:7f00:1``), 6to4 (``2002:7f00:1::``), Teredo and the old IPv4-compatible form.
A gateway that speaks these forms would carry a webhook or a push into the service's own
network, so each embedded IPv4 address must be public too.
"""

from __future__ import annotations

import ipaddress

# What a delivery log says of a host it may not send to, whether its name is unknown or resolves
# only to addresses that are not public: one text, so that the log tells a receiver's owner
# nothing of which names exist inside the service's network.
NO_PUBLIC_ADDRESS = "the host has no public address"

# NAT64's well-known prefix and the local-use one (RFC 6052, RFC 8215): the IPv4 address is
# the last 32 bits.
NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
# IPv4-translated (RFC 2765, ::ffff:0:a.b.c.d) and IPv4-compatible (::a.b.c.d, deprecated).
TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")
COMPATIBLE = ipaddress.ip_network("::/96")


def embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses ``address`` stands for in one of IPv6's forms (none: a plain one)."""
    found: list[ipaddress.IPv4Address] = []
    last32 = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address.ipv4_mapped is not None:
        found.append(address.ipv4_mapped)
    if any(address in net for net in NAT64) or address in TRANSLATED or address in COMPATIBLE:
        found.append(last32)
    if address.sixtofour is not None:
        found.append(address.sixtofour)
    if address.teredo is not None:
        found.extend(address.teredo)
    return found


def address_is_public(text: str) -> bool:
    """``text`` (an IPv4 or IPv6 address) is public, and so is every IPv4 address it embeds.
    Raises ValueError for what is not an address."""
    address = ipaddress.ip_address(text)
    if not address.is_global:
        return False
    if isinstance(address, ipaddress.IPv6Address):
        return all(v4.is_global for v4 in embedded_ipv4(address))
    return True
