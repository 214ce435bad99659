"""Player profiles: finding a player by name, the about text and the photo.

A photo upload is treated as hostile until proven otherwise: it must be a real
JPEG, PNG, WebP or GIF by its content (the name and the browser's content type
are ignored), at most 5 MB and a sane number of pixels, and it must decode
completely. Only a re-encoded square copy is kept, under a random name the server
chooses, with all metadata (EXIF, GPS, comments) dropped, so nothing the uploader
wrote ever reaches another browser.
"""

from __future__ import annotations

import io
import secrets
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
# 40 megapixels covers phone cameras; one decoded RGBA frame of that is 160 MB,
# which is as much as one request should ever be allowed to allocate.
MAX_PIXELS = 40_000_000
ALLOWED_FORMATS = {"JPEG", "PNG", "WEBP", "GIF"}
AVATAR_SIZES = {"avatar": 256, "avatar_small": 64}


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
    image = _decode(data)
    return PreparedAvatar(files={field: _encode(image, px) for field, px in AVATAR_SIZES.items()})


def _decode(data: bytes) -> Image.Image:
    not_an_image = AvatarError(
        _("This file is not a photo we can use. Upload a JPEG, PNG, WebP or GIF image.")
    )
    too_big = AvatarError(_("The photo has too many pixels. Please upload a smaller one."))
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
            if width < 1 or height < 1 or width * height > MAX_PIXELS:
                raise too_big
            if getattr(image, "n_frames", 1) > 1:
                image.seek(0)  # animated GIF/WebP: the first frame
            image.load()  # a truncated or corrupt file fails here, not later
            image = ImageOps.exif_transpose(image)  # turn phone photos upright before EXIF goes
            has_alpha = image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info
            image = image.convert("RGBA" if has_alpha else "RGB")
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
