import pytest
from django.test import Client
pytestmark = pytest.mark.django_db
A = "/_allauth/app/v1"

def test_probe():
    c = Client()
    for i in range(12):
        r = c.post(A + "/auth/login", {"email": "x@example.org", "password": "wrong-pass-1"}, content_type="application/json")
        print(i, r.status_code, r.content[:200], r.headers.get("Retry-After"))
    for i in range(7):
        r = c.post(A + "/auth/password/request", {"email": "y@example.org"}, content_type="application/json")
        print("reset", i, r.status_code, r.content[:200], r.headers.get("Retry-After"))
    r = c.post(A + "/tokens/refresh", {"refresh_token": "crt_x"}, content_type="application/json")
    print("refresh", r.status_code, r.content[:300])
    bc = Client(enforce_csrf_checks=True)
    r = bc.post("/_allauth/browser/v1/auth/login", {"email": "x@example.org", "password": "p"}, content_type="application/json")
    print("browser", r.status_code, r.content[:300])
