"""Player profiles: finding a player by name, the about text and the photo.

A photo upload is treated as hostile until proven otherwise: it must be a real
JPEG, PNG, WebP or GIF by its content (the name and the browser's content type
are ignored), at most 5 MB and 4 megapixels decoded, and it must decode
completely. Only a re-encoded square copy is kept, under a random name the server
chooses, with all metadata (EXIF, GPS, comments) dropped, so nothing the uploader
wrote ever reaches another browser.
"""

from __future__ import annotations

import io
import secrets
import threading
import warnings
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils.translation import gettext_lazy as _
from PIL import Image, ImageOps, UnidentifiedImageError

from accounts.validators import name_key

if TYPE_CHECKING:
    from accounts.models import User

MAX_UPLOAD_BYTES = 5 * 1024 * 1024
# Pixels decoded at most (issue #38: a 39 KB PNG of 6400 x 6250 cost ~275 MB and
# 2-3 s, and 8 parallel uploads took two daphne processes to 1.9 GB). 4 megapixels
# is 16 MB as RGBA, and an avatar is 256 px. Checked from the header, before a
# single pixel is decoded.
MAX_PIXELS = 4_000_000
# A JPEG is decoded at 1/2, 1/4 or 1/8 of its size straight from its DCT blocks
# (Pillow's draft), so a phone photo decodes to well under MAX_PIXELS: its header
# may say up to this much (at 1/8: 0.6 megapixels decoded).
MAX_JPEG_PIXELS = 40_000_000
DRAFT_SIDE = 512  # the smallest side a draft decode may shrink to: twice the avatar
ALLOWED_FORMATS = {"JPEG", "PNG", "WEBP", "GIF"}
AVATAR_SIZES = {"avatar": 256, "avatar_small": 64}
# Photos decoded at once per process: each view runs in one of daphne's threads
# (Django runs sync views off the event loop), and a burst of uploads would
# otherwise take as many times the memory. Others wait, then are told to retry.
AVATAR_DECODES_AT_ONCE = 2
AVATAR_WAIT_SECONDS = 15
_decoding = threading.BoundedSemaphore(AVATAR_DECODES_AT_ONCE)


class AvatarError(ValueError):
    """The upload is refused; ``str(error)`` is the sentence to show."""


@dataclass(frozen=True)
class PreparedAvatar:
    """Re-encoded images ready to store: field name -> (file name, bytes)."""

    files: dict[str, tuple[str, bytes]]


def find_player(name: str) -> User | None:
    """The active player called ``name``, ignoring case (None if there is none)."""
    if not name:
        return None
    return get_user_model().objects.filter(username_key=name_key(name), is_active=True).first()


def prepare_avatar(upload: IO[bytes]) -> PreparedAvatar:
    """Check an uploaded photo and make the avatars; raises AvatarError with the reason."""
    size = getattr(upload, "size", None)
    if size is None or size > MAX_UPLOAD_BYTES:
        raise AvatarError(_("The photo is larger than 5 MB."))
    if hasattr(upload, "seek"):
        upload.seek(0)
    data = upload.read(MAX_UPLOAD_BYTES + 1)
    if len(data) > MAX_UPLOAD_BYTES:
        raise AvatarError(_("The photo is larger than 5 MB."))
    if not _decoding.acquire(timeout=AVATAR_WAIT_SECONDS):
        raise AvatarError(_("Many photos are being processed right now. Please try again in a moment."))
    try:
        image = _decode(data)
        return PreparedAvatar(files={field: _encode(image, px) for field, px in AVATAR_SIZES.items()})
    finally:
        _decoding.release()


def _decode(data: bytes) -> Image.Image:
    not_an_image = AvatarError(
        _("This file is not a photo we can use. Upload a JPEG, PNG, WebP or GIF image.")
    )
    too_big = AvatarError(
        _("The photo has too many pixels: at most %(megapixels)d megapixels. Please upload a smaller one.")
        % {"megapixels": MAX_PIXELS // 1_000_000}
    )
    try:
        with warnings.catch_warnings():
            # Pillow only warns below twice its own limit; ours is stricter anyway.
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            # Sniff by content: restricting ``formats`` keeps every other decoder out.
            image: Image.Image = Image.open(io.BytesIO(data), formats=sorted(ALLOWED_FORMATS))
            if image.format not in ALLOWED_FORMATS:
                raise not_an_image
            # The header's size is checked before decoding a single pixel.
            width, height = image.size
            if width < 1 or height < 1 or width * height > MAX_JPEG_PIXELS:
                raise too_big
            if image.format == "JPEG":
                # Decode at the smallest scale that keeps both sides at DRAFT_SIDE or more.
                image.draft(image.mode, (DRAFT_SIDE, DRAFT_SIDE))
            width, height = image.size  # the size that will be decoded
            if width * height > MAX_PIXELS:
                raise too_big
            if getattr(image, "n_frames", 1) > 1:
                image.seek(0)  # animated GIF/WebP: the first frame
            image.load()  # a truncated or corrupt file fails here, not later
            image = ImageOps.exif_transpose(image)  # turn phone photos upright before EXIF goes
            has_alpha = image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info
            image = image.convert("RGBA" if has_alpha else "RGB")
            # Shrink by whole factors (cheap box averaging) before the careful resampling.
            factor = min(image.size) // DRAFT_SIDE
            if factor >= 2:
                image = image.reduce(factor)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise too_big from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError) as error:
        if isinstance(error, AvatarError):
            raise
        raise not_an_image from None
    return image


def _encode(image: Image.Image, px: int) -> tuple[str, bytes]:
    """A ``px`` square, centre-cropped, as WebP with no metadata."""
    square = ImageOps.fit(image, (px, px), method=Image.Resampling.LANCZOS)
    out = io.BytesIO()
    # No exif=/icc_profile= arguments: the new file carries pixels only.
    square.save(out, format="WEBP", quality=85, method=4)
    return f"{secrets.token_hex(16)}-{px}.webp", out.getvalue()


def profile_update(
    *, user: User, about: str | None = None, avatar: PreparedAvatar | None = None, remove_avatar: bool = False
) -> None:
    """Save the about text and/or a new (or no) photo.

    Old photo files go after commit; new ones go again if the row is not saved.
    """
    storage = user.avatar.storage
    old_files = [f.name for f in (user.avatar, user.avatar_small) if f.name]  # a FieldFile is true iff named
    new_files: list[str] = []
    fields: list[str] = []
    if about is not None:
        user.about = about.strip()
        fields.append("about")
    try:
        with transaction.atomic():
            if avatar is not None:
                for field, (name, data) in avatar.files.items():
                    getattr(user, field).save(name, ContentFile(data), save=False)
                    new_files.append(getattr(user, field).name)
                fields += list(avatar.files)
            elif remove_avatar:
                user.avatar = ""
                user.avatar_small = ""
                fields += list(AVATAR_SIZES)
            user.save(update_fields=fields)
    except BaseException:
        # Nothing points at the new files: a failed save must not leave them behind.
        for name in new_files:
            storage.delete(name)
        raise
    if avatar is not None or remove_avatar:
        # After commit: until then the old row still points at these files.
        def delete_old_files() -> None:
            for name in old_files:
                storage.delete(name)

        transaction.on_commit(delete_old_files)
