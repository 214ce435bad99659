from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Players"

    def ready(self) -> None:
        from accounts import receivers  # noqa: F401  (connects to allauth's signals)
