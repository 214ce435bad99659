"""Issue #38, finding 3: a small file with a huge picture is refused before it is decoded.

A 39 KB PNG of 6400 x 6250 cost ~275 MB and 2-3 s per upload. Now a picture
decoding to more than 4 megapixels is refused from its header, JPEG photos are
decoded at a fraction of their size (draft), the form says the limit, and at most
AVATAR_DECODES_AT_ONCE photos are decoded at once per process.
"""

from __future__ import annotations

import threading
from http import HTTPStatus

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import ImageFile

from accounts.services import profiles
from tests.accounts.images import image_bytes, png_bomb, png_with_header_size

pytestmark = pytest.mark.django_db


@pytest.fixture
def decoded_sizes(monkeypatch) -> list[tuple[int, int]]:
    """The size of every picture actually decoded (Pillow's ImageFile.load)."""
    sizes: list[tuple[int, int]] = []
    real_load = ImageFile.ImageFile.load

    def load(self):
        sizes.append(self.size)
        return real_load(self)

    monkeypatch.setattr(ImageFile.ImageFile, "load", load)
    return sizes


def upload(client, name: str, data: bytes):
    photo = SimpleUploadedFile(name, data, content_type="image/png")
    return client.post("/profile/edit/", {"about": "", "photo": photo})


@pytest.mark.parametrize(
    "data",
    [png_bomb(6400, 6250), png_with_header_size(2001, 2000)],
    ids=["issue-38-6400x6250-png", "just-over-4-megapixels-header"],
)
def test_a_small_file_with_too_many_pixels_is_refused_without_decoding_it(
    alice, client_for, _media_in_tmp, decoded_sizes, data
):
    assert len(data) < 64 * 1024  # a small file: the cost is all in the pixels
    response = upload(client_for(alice), "bomb.png", data)
    assert response.status_code == HTTPStatus.OK
    assert "The photo has too many pixels: at most 4 megapixels." in response.content.decode()
    assert decoded_sizes == []  # not one pixel decoded
    alice.refresh_from_db()
    assert not alice.avatar


def test_a_phone_sized_jpeg_is_accepted_and_decoded_at_a_fraction_of_its_size(
    alice, client_for, _media_in_tmp, decoded_sizes
):
    photo = image_bytes("JPEG", (4000, 3000), quality=30)  # 12 megapixels
    response = upload(client_for(alice), "phone.jpg", photo)
    assert response.status_code == HTTPStatus.FOUND
    alice.refresh_from_db()
    assert alice.avatar and alice.avatar_small
    # Decoded at a quarter of each side (1000 x 750), not the 12 megapixels of the file.
    assert decoded_sizes and all(w * h <= 4_000_000 and min(w, h) >= 512 for w, h in decoded_sizes)


def test_the_form_says_the_limit(alice, client_for):
    page = client_for(alice).get("/profile/edit/").content.decode()
    assert "at most 5 MB and 4 megapixels" in page


def test_at_most_two_photos_are_decoded_at_once_and_a_long_wait_is_refused_clearly(monkeypatch):
    gate = threading.Event()
    entered = threading.Semaphore(0)
    real_decode = profiles._decode

    def slow_decode(data):
        entered.release()
        assert gate.wait(30)
        return real_decode(data)

    monkeypatch.setattr(profiles, "_decode", slow_decode)
    photo = image_bytes("PNG", (300, 200))
    results: list[object] = []

    def prepare():
        try:
            results.append(profiles.prepare_avatar(SimpleUploadedFile("a.png", photo)))
        except profiles.AvatarError as error:
            results.append(error)

    threads = [threading.Thread(target=prepare) for _ in range(2)]
    for thread in threads:
        thread.start()
    assert entered.acquire(timeout=30) and entered.acquire(timeout=30)
    # Two decode; a third would wait for a place (the semaphore has none left), and is refused after a while.
    assert not profiles._decoding.acquire(blocking=False)
    monkeypatch.setattr(profiles, "AVATAR_WAIT_SECONDS", 0.05)
    with pytest.raises(profiles.AvatarError, match="Please try again in a moment"):
        profiles.prepare_avatar(SimpleUploadedFile("b.png", photo))
    gate.set()
    for thread in threads:
        thread.join(30)
    assert len(results) == 2 and all(isinstance(r, profiles.PreparedAvatar) for r in results)
