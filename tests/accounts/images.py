"""Hand-made image files for the upload tests (all built in memory, in milliseconds)."""

from __future__ import annotations

import io
import struct
import zlib

from PIL import Image


def image_bytes(fmt: str = "PNG", size: tuple[int, int] = (300, 200), **save_args) -> bytes:
    image = Image.new("RGB", size, (200, 30, 40))
    out = io.BytesIO()
    image.save(out, format=fmt, **save_args)
    return out.getvalue()


def jpeg_with_exif() -> bytes:
    exif = Image.Exif()
    exif[0x010F] = "SpyCam"  # Make
    exif[0x0131] = "secret-software"  # Software
    exif[0x0112] = 1  # Orientation
    return image_bytes("JPEG", (640, 480), exif=exif.tobytes())


def png_with_header_size(width: int, height: int) -> bytes:
    """A tiny valid PNG whose IHDR claims ``width`` x ``height`` (a decompression bomb's header)."""
    data = image_bytes("PNG", (1, 1))
    # Signature (8) + IHDR length (4) + "IHDR" (4), then width, height, and 5 more bytes; CRC after.
    ihdr = bytearray(data[12:29])
    ihdr[4:12] = struct.pack(">II", width, height)
    crc = struct.pack(">I", zlib.crc32(bytes(ihdr)) & 0xFFFFFFFF)
    return data[:12] + bytes(ihdr) + crc + data[33:]


def png_bomb(width: int, height: int) -> bytes:
    """A real 1-bit PNG of ``width`` x ``height`` black pixels: a few KB on disk, gigabytes decoded."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body))
            + kind
            + body
            + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
        )

    row = b"\x00" * (1 + (width + 7) // 8)  # filter byte + packed bits
    packer = zlib.compressobj(1)
    block = row * 500
    parts = [packer.compress(block) for _ in range(height // 500)]
    idat = b"".join(parts) + packer.compress(row * (height % 500)) + packer.flush()
    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)  # 1-bit greyscale
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")
