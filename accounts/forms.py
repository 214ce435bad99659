from __future__ import annotations

from typing import Any

from allauth.account.forms import AddEmailForm, ResetPasswordForm
from allauth.account.models import EmailAddress
from django import forms
from django.conf import settings
from django.contrib.auth.forms import UserChangeForm, UserCreationForm
from django.utils.translation import gettext_lazy as _

from accounts.models import ABOUT_MAX_LENGTH, Preferences, User
from accounts.services import messages as message_service
from accounts.services.preferences import FIELDS as PREFERENCE_FIELDS
from accounts.services.profiles import AvatarError, PreparedAvatar, prepare_avatar


class ProfileForm(forms.Form):
    about = forms.CharField(
        label=_("About you"),
        required=False,
        max_length=ABOUT_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text=_("Plain text; links become clickable."),
    )
    # A plain FileField: the content is judged by profiles.prepare_avatar, not by
    # the file name or the browser's content type.
    photo = forms.FileField(
        label=_("Photo"),
        required=False,
        widget=forms.ClearableFileInput(attrs={"accept": "image/jpeg,image/png,image/webp,image/gif"}),
        help_text=_(
            "JPEG, PNG, WebP or GIF, at most 5 MB and 4 megapixels (e.g. 2000 × 2000; "
            "larger JPEG photos are shrunk as they are read). It is cropped to a square."
        ),
    )
    remove_photo = forms.BooleanField(label=_("Remove my photo"), required=False)

    def clean_photo(self) -> PreparedAvatar | None:
        upload = self.cleaned_data.get("photo")
        if not upload:
            return None
        try:
            return prepare_avatar(upload)
        except AvatarError as error:
            raise forms.ValidationError(str(error), code="bad_photo") from None


class ComposeForm(forms.Form):
    to = forms.CharField(label=_("To"), max_length=150, widget=forms.TextInput(attrs={"autocomplete": "off"}))
    body = forms.CharField(
        label=_("Message"),
        max_length=message_service.MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 6, "maxlength": message_service.MAX_LENGTH}),
    )


class ReplyForm(forms.Form):
    body = forms.CharField(
        label=_("Message"),
        max_length=message_service.MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3, "maxlength": message_service.MAX_LENGTH}),
    )


class SettingsForm(forms.ModelForm):
    class Meta:
        model = Preferences
        # Every stored preference but the screen-reader mode, which has a switch of its own on every page.
        fields = [name for name in PREFERENCE_FIELDS if name != "screen_reader"]
        widgets = {
            "theme": forms.RadioSelect,
            "palette": forms.RadioSelect,
            "ai_level": forms.RadioSelect,
        }
        help_texts = {
            "block_invitations": _("Nobody can invite you to a game; you can still join open challenges."),
            "hints": _("Show the legal moves when playing the computer."),
            "chat": _("Off: the game page shows no chat and you receive no chat lines."),
            "correspondence_mail": _(
                "To your verified address: one mail per game when it becomes your turn (at most one a day), "
                "and a reminder when less than 12 hours are left for your move."
            ),
        }

    def __init__(self, *args: Any, registered: bool, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not registered:
            del self.fields["block_invitations"]
            del self.fields["correspondence_mail"]


class PlayerCreationForm(UserCreationForm):
    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username",)


class PlayerChangeForm(UserChangeForm):
    class Meta(UserChangeForm.Meta):
        model = User
        fields = "__all__"


# --- e-mail for recovery (allauth's forms, settings.ACCOUNT_FORMS) ------------

MAIL_NOT_SET_UP = _(
    "E-mail is not set up on this site, so an address cannot be verified and a password cannot be reset "
    "by e-mail. Ask the site's operator for help."
)


class RecoveryAddEmailForm(AddEmailForm):
    """Adding an address for recovery: refused while the site cannot mail its link."""

    def clean_email(self) -> str:
        if not settings.ACCOUNTS_MAIL_ENABLED:
            raise forms.ValidationError(MAIL_NOT_SET_UP, code="mail_not_set_up")
        return super().clean_email()


class RecoveryResetPasswordForm(ResetPasswordForm):
    """Resets go to verified addresses only.

    allauth falls back to unverified addresses (and the user row's e-mail) when no
    account has verified the address, so anybody could add somebody's address to
    an account and have its reset link sent. Whoever asks sees the same page
    either way (ACCOUNT_PREVENT_ENUMERATION).
    """

    users: list[Any]  # set by allauth's clean_email: the accounts the link goes to

    def clean_email(self) -> str:
        if not settings.ACCOUNTS_MAIL_ENABLED:
            raise forms.ValidationError(MAIL_NOT_SET_UP, code="mail_not_set_up")
        email = super().clean_email()
        verified = set(
            EmailAddress.objects.filter(email__iexact=email, verified=True).values_list("user_id", flat=True)
        )
        self.users = [user for user in self.users if user.pk in verified]
        return email
