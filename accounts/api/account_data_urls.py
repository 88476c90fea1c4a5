"""Routes of account deletion and data export (under /api/v1/; accounts/api/account_data.py)."""

from django.urls import path

from accounts.api import account_data

urlpatterns = [
    path("account/delete/", account_data.AccountDeleteApi.as_view(), name="account-delete"),
    path("account/export/", account_data.AccountExportApi.as_view(), name="account-export"),
]
