from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0006_preferences_correspondence_mail"),
    ]

    operations = [
        migrations.AddField(
            model_name="preferences",
            name="screen_reader",
            field=models.BooleanField(default=False, verbose_name="screen-reader mode"),
        ),
    ]
