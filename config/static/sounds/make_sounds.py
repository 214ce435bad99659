"""Writes the board's short sound effects as small WAV files next to this script.

    python config/static/sounds/make_sounds.py

Synthesised (sine tones with a quick decay) rather than recorded, so the site
needs no third-party audio and the files stay a few kilobytes each: 8-bit mono
at 11025 Hz. The generated .wav files are committed; rerun after a change here.
"""

from __future__ import annotations

import math
import wave
from pathlib import Path

RATE = 11025
HERE = Path(__file__).resolve().parent


def tone(frequencies: list[float], seconds: float, *, volume: float = 0.5, decay: float = 8.0) -> list[float]:
    """A chord of sine tones that fades out exponentially (a soft 'tock')."""
    count = int(RATE * seconds)
    samples = []
    for i in range(count):
        t = i / RATE
        value = sum(math.sin(2 * math.pi * f * t) for f in frequencies) / len(frequencies)
        attack = min(1.0, i / (RATE * 0.004))  # 4 ms attack: no click at the start
        samples.append(volume * attack * math.exp(-decay * t) * value)
    return samples


def sequence(*parts: list[float]) -> list[float]:
    return [sample for part in parts for sample in part]


def write(name: str, samples: list[float]) -> Path:
    path = HERE / f"{name}.wav"
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(1)  # unsigned 8-bit
        out.setframerate(RATE)
        out.writeframes(bytes(max(0, min(255, int(128 + 127 * s))) for s in samples))
    return path


SOUNDS = {
    "move": tone([520.0], 0.12, decay=30.0),
    "capture": sequence(tone([440.0, 660.0], 0.08, decay=25.0), tone([330.0, 495.0], 0.14, decay=20.0)),
    "turn": sequence(
        tone([660.0], 0.09, volume=0.35, decay=18.0), tone([880.0], 0.14, volume=0.35, decay=14.0)
    ),
    "end": sequence(
        tone([523.25], 0.14, decay=8.0),
        tone([659.25], 0.14, decay=8.0),
        tone([783.99, 523.25], 0.35, decay=6.0),
    ),
}


def main() -> None:
    for name, samples in SOUNDS.items():
        path = write(name, samples)
        print(f"{path.name}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
