"""Texts of django-allauth and Django that the account pages show, for our catalogues.

allauth has no Hindi or Bengali catalogue, and Django's Hindi and Bengali ones
lack these validation messages. Listing the exact source texts here makes
``makemessages`` put them into config/locale, whose translations Django looks up
before those of any app. Nothing needs to import this module.
"""

from __future__ import annotations

from django.utils.translation import gettext_noop, ngettext_lazy

ALLAUTH = [
    # Log in, sign up, change password (allauth.account.forms and fields).
    gettext_noop("Username"),
    gettext_noop("Password"),
    gettext_noop("Password (again)"),
    gettext_noop("Remember Me"),
    gettext_noop("Forgot your password?"),
    gettext_noop("Current Password"),
    gettext_noop("New Password"),
    gettext_noop("New Password (again)"),
    gettext_noop("You must type the same password each time."),
    gettext_noop("Please type your current password."),
    gettext_noop("Incorrect password."),
    gettext_noop("The username and/or password you specified are not correct."),
    gettext_noop("Too many failed login attempts. Try again later."),
    gettext_noop("Be patient, you are sending too many requests."),
    # The messages shown after logging in and out and changing the password.
    gettext_noop("Successfully signed in as %(name)s."),
    gettext_noop("You have signed out."),
    gettext_noop("Password successfully changed."),
    # E-mail for recovery: the address field, and the messages after adding, confirming, removing.
    gettext_noop("Email"),
    gettext_noop("Email address"),
    gettext_noop("Confirmation email sent to %(email)s."),
    gettext_noop("You have confirmed %(email)s."),
    gettext_noop("Removed email address %(email)s."),
    gettext_noop("Unable to confirm %(email)s because it is already confirmed by a different account."),
]

DJANGO = [
    ngettext_lazy(
        "Ensure this value has at least %(limit_value)d character (it has %(show_value)d).",
        "Ensure this value has at least %(limit_value)d characters (it has %(show_value)d).",
        "limit_value",
    ),
    ngettext_lazy(
        "Ensure this value has at most %(limit_value)d character (it has %(show_value)d).",
        "Ensure this value has at most %(limit_value)d characters (it has %(show_value)d).",
        "limit_value",
    ),
    ngettext_lazy(
        "This password is too short. It must contain at least %d character.",
        "This password is too short. It must contain at least %d characters.",
        "min_length",
    ),
    ngettext_lazy(
        "Your password must contain at least %(min_length)d character.",
        "Your password must contain at least %(min_length)d characters.",
        "min_length",
    ),
]
