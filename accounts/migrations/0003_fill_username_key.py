# Fills User.username_key for players registered before the column existed.

import unicodedata

from django.db import migrations


def fill(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    for user in User.objects.filter(username_key=None).only("pk", "username").iterator():
        key = unicodedata.normalize("NFKC", user.username).casefold()
        User.objects.filter(pk=user.pk).update(username_key=key)


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0002_profiles_messages_blocks'),
    ]

    operations = [
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
