# The look-alike skeleton of every name (issue #24), unique in the database.
#
# Filled in three steps: the column without its unique index, the values, then the
# index. Where existing players already collide, the oldest account keeps the
# skeleton and the others are left null, so the migration never fails and renames
# nobody; `manage.py confusable_names` lists them for a person to settle.

from django.db import migrations, models


def fill(apps, schema_editor):
    # The live function, not a frozen copy: the skeleton is defined by Unicode's
    # data in confusable-homoglyphs, far too large to inline here.
    from accounts.validators import name_skeleton

    User = apps.get_model("accounts", "User")
    seen = set()
    for user in User.objects.order_by("pk").only("pk", "username").iterator():
        skeleton = name_skeleton(user.username)
        if skeleton in seen:
            continue
        seen.add(skeleton)
        User.objects.filter(pk=user.pk).update(username_skeleton=skeleton)


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0003_fill_username_key"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="username_skeleton",
            field=models.CharField(editable=False, max_length=255, null=True),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="user",
            name="username_skeleton",
            field=models.CharField(editable=False, max_length=255, null=True, unique=True),
        ),
    ]
