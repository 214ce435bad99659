# The look-alike skeleton now folds digits that read as letters (issue #38:
# "Magnu5" passes for "Magnus"), so every stored skeleton is computed again.
#
# As in 0004: all cleared first (a new skeleton may equal another player's old
# one), then filled oldest account first; where two existing players now look
# alike, the older keeps the skeleton and the newer is left null, so the
# migration never fails and renames nobody (`manage.py confusable_names` lists them).

from django.db import migrations


def refill(apps, schema_editor):
    # The live function: the skeleton is defined by Unicode's data in confusable-homoglyphs.
    from accounts.validators import name_skeleton

    User = apps.get_model("accounts", "User")
    User.objects.update(username_skeleton=None)
    seen = set()
    for user in User.objects.order_by("pk").only("pk", "username").iterator():
        skeleton = name_skeleton(user.username)
        if skeleton in seen:
            continue
        seen.add(skeleton)
        User.objects.filter(pk=user.pk).update(username_skeleton=skeleton)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0008_preferences_language"),
    ]

    operations = [
        migrations.RunPython(refill, migrations.RunPython.noop),
    ]
