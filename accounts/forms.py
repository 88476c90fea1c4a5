"""The sign-up form allauth runs (``ACCOUNT_SIGNUP_FORM_CLASS``): a display name beside the
e-mail and password, optional (the e-mail's name before the @ by default)."""

from __future__ import annotations

from typing import Any

from django import forms

from accounts import errors
from accounts.services.players import DISPLAY_NAME_MAX, display_name_clean


class SignupForm(forms.Form):
    display_name = forms.CharField(max_length=DISPLAY_NAME_MAX, required=False)

    def clean_display_name(self) -> str:
        name: str = self.cleaned_data.get("display_name") or ""
        if not name.strip():
            return ""
        try:
            return display_name_clean(name)
        except errors.DisplayNameInvalid as exc:
            raise forms.ValidationError(exc.message) from exc

    def signup(self, request: Any, user: Any) -> None:
        from accounts.services.players import player_rename_at_signup

        email: str = getattr(user, "email", "") or ""
        player_rename_at_signup(
            user, self.cleaned_data.get("display_name") or email.split("@")[0] or "Player"
        )
