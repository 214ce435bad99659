"""Profile pages and photo uploads."""

from __future__ import annotations

import io
from http import HTTPStatus

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from PIL import Image

from tests.accounts.images import image_bytes, jpeg_with_exif, png_bomb, png_with_header_size

pytestmark = pytest.mark.django_db


def upload(client: Client, name: str, data: bytes, content_type: str = "image/png", about: str = ""):
    photo = SimpleUploadedFile(name, data, content_type=content_type)
    return client.post("/profile/edit/", {"about": about, "photo": photo})


def stored_files(media_root) -> list:
    return [p for p in media_root.rglob("*") if p.is_file()] if media_root.exists() else []


def test_a_profile_shows_name_about_text_and_the_ratings_and_games_sections(alice):
    alice.about = "I like <b>Reversi</b>. See https://example.com/me"
    alice.save()
    response = Client().get("/players/alice/")
    assert response.status_code == HTTPStatus.OK
    html = response.content.decode()
    assert "<h1>alice</h1>" in html
    assert "&lt;b&gt;Reversi&lt;/b&gt;" in html and "<b>Reversi</b>" not in html
    assert '<a href="https://example.com/me" rel="nofollow">' in html
    assert "Ratings" in html and "Recent games" in html


def test_a_profile_is_found_ignoring_case_and_a_missing_player_is_404(alice):
    assert Client().get("/players/ALICE/").context["player"] == alice
    assert Client().get("/players/nobody/").status_code == HTTPStatus.NOT_FOUND


def test_only_a_logged_in_owner_can_edit_their_profile(alice, client_for):
    assert Client().get("/profile/edit/").status_code == HTTPStatus.FOUND  # to the login page
    client = client_for(alice)
    assert client.get("/profile/edit/").status_code == HTTPStatus.OK
    response = client.post("/profile/edit/", {"about": "Hello"})
    assert response.status_code == HTTPStatus.FOUND
    alice.refresh_from_db()
    assert alice.about == "Hello"


def test_a_valid_photo_becomes_square_avatars_without_exif(alice, client_for, _media_in_tmp):
    response = upload(client_for(alice), "holiday.jpg", jpeg_with_exif(), "image/jpeg")
    assert response.status_code == HTTPStatus.FOUND
    alice.refresh_from_db()
    for field, px in (("avatar", 256), ("avatar_small", 64)):
        stored = getattr(alice, field)
        assert stored.name.startswith("avatars/") and stored.name.endswith(".webp")
        assert "holiday" not in stored.name  # the server picks the name
        with Image.open(stored.path) as image:
            assert image.size == (px, px)
            assert image.format == "WEBP"
            assert not image.getexif()
            assert "exif" not in image.info and "xmp" not in image.info
    assert b"SpyCam" not in (_media_in_tmp / alice.avatar.name).read_bytes()
    assert alice.avatar.url.startswith("/media/avatars/")


def test_a_photo_whose_save_fails_leaves_no_files_behind(alice, _media_in_tmp, monkeypatch):
    from accounts.services.profiles import prepare_avatar, profile_update

    prepared = prepare_avatar(SimpleUploadedFile("me.png", image_bytes("PNG"), content_type="image/png"))

    def database_down(*args, **kwargs):
        raise RuntimeError("database went away")

    monkeypatch.setattr(type(alice), "save", database_down)
    with pytest.raises(RuntimeError):
        profile_update(user=alice, avatar=prepared)
    assert stored_files(_media_in_tmp) == []


def test_a_real_png_named_jpg_is_accepted_by_its_content(alice, client_for):
    response = upload(client_for(alice), "photo.jpg", image_bytes("PNG"), "image/jpeg")
    assert response.status_code == HTTPStatus.FOUND
    alice.refresh_from_db()
    assert alice.avatar


def test_the_first_frame_of_an_animated_gif_is_used(alice, client_for):
    frames = [Image.new("P", (50, 50), colour) for colour in (1, 2, 3)]
    out = io.BytesIO()
    frames[0].save(out, format="GIF", save_all=True, append_images=frames[1:])
    assert upload(client_for(alice), "a.gif", out.getvalue(), "image/gif").status_code == HTTPStatus.FOUND
    alice.refresh_from_db()
    with Image.open(alice.avatar.path) as image:
        assert getattr(image, "n_frames", 1) == 1


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("evil.png", b"<html><script>alert(1)</script></html>", "not a photo"),
        ("cut.jpg", image_bytes("JPEG", (400, 400))[:-600], "not a photo"),
        ("bomb.png", png_bomb(20000, 20000), "too many pixels"),
        ("big-header.png", png_with_header_size(8000, 8000), "too many pixels"),
        ("huge.png", image_bytes("PNG", (4, 4)) + b"\0" * (6 * 1024 * 1024), "larger than 5 MB"),
        ("doc.pdf", b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", "not a photo"),
        (
            "vector.svg",
            b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
            "not a photo",
        ),
    ],
    ids=["html-named-png", "truncated-jpeg", "20000x20000-png", "8000x8000-header", "6mb", "pdf", "svg"],
)
def test_a_bad_upload_is_refused_with_a_clear_message_and_nothing_is_stored(
    alice, client_for, _media_in_tmp, name, data, message
):
    alice.about = "before"
    alice.save()
    response = upload(client_for(alice), name, data, about="after")
    assert response.status_code == HTTPStatus.OK
    errors = response.context["form"].errors["photo"]
    assert message in errors[0]
    assert message in response.content.decode()
    alice.refresh_from_db()
    assert not alice.avatar and alice.about == "before"
    assert stored_files(_media_in_tmp) == []


def test_a_new_photo_replaces_the_old_files_and_remove_deletes_them(
    alice, client_for, _media_in_tmp, django_capture_on_commit_callbacks
):
    client = client_for(alice)
    upload(client, "one.png", image_bytes("PNG"))
    alice.refresh_from_db()
    first = alice.avatar.name
    with django_capture_on_commit_callbacks(execute=True):
        upload(client, "two.png", image_bytes("PNG"))
    alice.refresh_from_db()
    assert alice.avatar.name != first
    assert len(stored_files(_media_in_tmp)) == 2
    with django_capture_on_commit_callbacks(execute=True):
        client.post("/profile/edit/", {"about": "", "remove_photo": "on"})
    alice.refresh_from_db()
    assert not alice.avatar
    assert stored_files(_media_in_tmp) == []


def test_a_forged_profile_edit_without_csrf_token_is_refused(alice, client_for):
    response = client_for(alice, enforce_csrf_checks=True).post("/profile/edit/", {"about": "pwned"})
    assert response.status_code == HTTPStatus.FORBIDDEN
    alice.refresh_from_db()
    assert alice.about == ""
