"""notifications.services.addresses: a private IPv4 address in an IPv6 form is not public, and
the delivery log says one thing of every host it may not send to."""

from __future__ import annotations

import pytest

from notifications import errors
from notifications.services.addresses import NO_PUBLIC_ADDRESS, address_is_public
from notifications.services.notifications import webhook_url_check
from notifications.services.outbound import http_post
from notifications.services.push import push_endpoint_check

# Each names 10.0.0.1 or 127.0.0.1 (and one a link-local or shared address) in an IPv6 form.
PRIVATE_IN_IPV6 = [
    "64:ff9b::a00:1",  # NAT64, 10.0.0.1
    "64:ff9b::7f00:1",  # NAT64, 127.0.0.1
    "64:ff9b:1::a00:1",  # NAT64 local-use prefix
    "::ffff:0:7f00:1",  # IPv4-translated, 127.0.0.1
    "2002:7f00:1::",  # 6to4, 127.0.0.1
    "2002:a9fe:a9fe::",  # 6to4, 169.254.169.254 (cloud metadata)
    "::ffff:127.0.0.1",  # IPv4-mapped
]
PRIVATE = ["10.0.0.1", "127.0.0.1", "169.254.169.254", "::1", "fd00::1", "fe80::1"]
PUBLIC = ["8.8.8.8", "2606:4700:4700::1111", "64:ff9b::808:808", "2002:808:808::"]


@pytest.mark.parametrize("address", PRIVATE_IN_IPV6 + PRIVATE)
def test_a_private_address_in_any_form_is_not_public(address: str) -> None:
    assert not address_is_public(address)


@pytest.mark.parametrize("address", PUBLIC)
def test_a_public_address_in_any_form_is_public(address: str) -> None:
    assert address_is_public(address)


def test_a_name_is_not_an_address() -> None:
    with pytest.raises(ValueError):
        address_is_public("example.com")


@pytest.mark.parametrize("address", PRIVATE_IN_IPV6)
def test_webhooks_and_push_endpoints_at_such_an_address_are_refused(address: str) -> None:
    with pytest.raises(errors.WebhookUrlRefused):
        webhook_url_check(f"https://[{address}]/hook")
    with pytest.raises(errors.PushEndpointRefused):
        push_endpoint_check(f"https://[{address}]/push/1")


@pytest.mark.parametrize("host", ["localhost", "no-such-host.invalid"])
def test_the_delivery_log_says_the_same_of_an_internal_and_an_unknown_name(host: str) -> None:
    """A receiver's owner learns nothing of which names exist inside the service's network."""
    outcome = http_post(f"https://{host}/hook", b"{}", {}, allowed_hosts=[], total_timeout=2)
    assert not outcome.ok and outcome.error == NO_PUBLIC_ADDRESS
